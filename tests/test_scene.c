/* test_scene.c: scene.json parsing: exact numbers, defaults, schedules, the example
 * scenes, and every error with its message and exact line:column.
 *
 * The expected positions in the error table were computed independently of the C scanner
 * (by locating a marker substring in each text and counting characters), so they check
 * the scanner, not restate it. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lcp/lcp.h"
#include "scene/scene.h"
#include "tests/support.h"

/* A scene using every field, with values chosen to be exact in binary where checked. */
static const char *full_scene =
    "{\n"
    "  \"$schema\": \"scene.schema.json\",\n"
    "  \"lcpsim\": 1,\n"
    "  \"name\": \"everything\",\n"
    "  \"description\": \"all fields set\",\n"
    "  \"dimension\": 1,\n"
    "  \"time_step\": 0.125,\n"
    "  \"steps\": 40,\n"
    "  \"gravity\": -2.5,\n"
    "  \"ground\": {\"mu\": 0.25, \"g\": 10.0},\n"
    "  \"solver\": {\"name\": \"pgs\", \"tol\": 1e-8, \"max_iter\": 500, \"omega\": 1.5,\n"
    "             \"warm_start\": false},\n"
    "  \"contact\": {\"margin\": 0.001},\n"
    "  \"bodies\": [\n"
    "    {\"name\": \"cart\", \"type\": \"dynamic\", \"position\": 1.5, \"velocity\": -2.0,\n"
    "     \"mass\": 2.0, \"width\": 0.5, \"ground_mu\": 0.75,\n"
    "     \"force\": {\"table\": [[0, 0], [1, 4], [3, 0]]}},\n"
    "    {\"position\": 4.0, \"velocity\": 0.5, \"force\": 3.0},\n"
    "    {\"name\": \"pusher\", \"type\": \"kinematic\", \"position\": -3.0, \"width\": 1.0,\n"
    "     \"velocity\": {\"table\": [[0, 1], [2, 3]]}}\n"
    "  ],\n"
    "  \"walls\": [\n"
    "    {\"name\": \"left wall\", \"position\": -4.0, \"side\": \"left\"},\n"
    "    {\"position\": 10.0, \"side\": \"right\"}\n"
    "  ],\n"
    "  \"output\": {\"file\": \"out.h5\", \"print\": true}\n"
    "}\n";

static void test_full_scene(void **unused) {
  (void)unused;
  LsimModel m;
  LsimState s;
  LsimSceneError err;
  assert_int_equal(lsim_scene_parse(full_scene, "full.json", &m, &s, &err), 0);
  /* Model-wide settings. */
  assert_int_equal(m.dimension, 1);
  assert_true(m.time_step == 0.125);
  assert_int_equal(m.steps, 40);
  assert_true(m.gravity[0] == -2.5);
  assert_true(m.ground_normal_gravity == 10.0);
  assert_true(m.contact_margin == 0.001);
  assert_int_equal(m.friction_directions, 2);
  assert_string_equal(m.solver.name, "pgs");
  assert_true(m.solver.tol == 1e-8);
  assert_int_equal(m.solver.max_iter, 500);
  assert_true(m.solver.omega == 1.5);
  assert_int_equal(m.solver.warm_start, 0);
  /* Bodies first, then walls; coordinates for the moving ones only. */
  assert_int_equal(m.nbodies, 5);
  assert_int_equal(m.nq, 3);
  assert_int_equal(m.nv, 3);
  const LsimBody *b = m.bodies;
  assert_string_equal(b[0].name, "cart");
  assert_int_equal(b[0].type, LSIM_BODY_DYNAMIC);
  assert_int_equal(b[0].shape, LSIM_SHAPE_SEGMENT);
  assert_true(b[0].mass == 2.0);
  assert_true(b[0].width == 0.5);
  assert_true(b[0].ground_mu == 0.75);
  assert_int_equal(b[0].force.npoints, 3);
  assert_string_equal(b[1].name, "body1");
  assert_true(b[1].mass == 1.0);
  assert_true(b[1].width == 0.0);
  assert_true(b[1].ground_mu == 0.25); /* from ground.mu */
  assert_int_equal(b[1].force.npoints, 0);
  assert_true(b[1].force.constant == 3.0);
  assert_string_equal(b[2].name, "pusher");
  assert_int_equal(b[2].type, LSIM_BODY_KINEMATIC);
  assert_true(b[2].width == 1.0);
  assert_int_equal(b[2].kinematic_velocity.npoints, 2);
  assert_true(lsim_schedule_eval(&b[2].kinematic_velocity, 1.0) == 2.0);
  assert_string_equal(b[3].name, "left wall");
  assert_int_equal(b[3].type, LSIM_BODY_STATIC);
  assert_int_equal(b[3].shape, LSIM_SHAPE_HALFLINE);
  assert_int_equal(b[3].side, -1);
  assert_true(b[3].pose[0] == -4.0);
  assert_int_equal(b[3].q_offset, -1);
  assert_string_equal(b[4].name, "wall1");
  assert_int_equal(b[4].side, 1);
  assert_true(b[4].pose[0] == 10.0);
  /* Initial state: positions, velocities (kinematic: its schedule at t = 0). */
  assert_true(s.time == 0.0);
  assert_int_equal(s.step, 0);
  assert_true(s.q[b[0].q_offset] == 1.5);
  assert_true(s.v[b[0].v_offset] == -2.0);
  assert_true(s.q[b[1].q_offset] == 4.0);
  assert_true(s.v[b[1].v_offset] == 0.5);
  assert_true(s.q[b[2].q_offset] == -3.0);
  assert_true(s.v[b[2].v_offset] == 1.0);
  lsim_state_free(&s);
  lsim_model_free(&m);
  /* The output settings. */
  LsimSceneOutput out;
  assert_int_equal(lsim_scene_output(full_scene, "full.json", &out, &err), 0);
  assert_string_equal(out.file, "out.h5");
  assert_int_equal(out.print, 1);
}

/* The smallest scene: every default applied. */
static void test_defaults(void **unused) {
  (void)unused;
  const char *js = "{\"lcpsim\": 1, \"time_step\": 0.5, \"steps\": 2, \"bodies\": [{}]}";
  LsimModel m;
  LsimState s;
  LsimSceneError err;
  assert_int_equal(lsim_scene_parse(js, "min.json", &m, &s, &err), 0);
  const LsimModel d = lsim_default_model();
  assert_int_equal(m.dimension, 1);
  assert_true(m.time_step == 0.5);
  assert_int_equal(m.steps, 2);
  assert_true(m.gravity[0] == 0.0);
  assert_true(m.ground_normal_gravity == 9.81);
  assert_true(m.contact_margin == 0.0);
  assert_int_equal(m.friction_directions, 2);
  assert_string_equal(m.solver.name, d.solver.name);
  assert_string_equal(m.solver.name, "lemke");
  assert_true(m.solver.tol == d.solver.tol);
  assert_int_equal(m.solver.max_iter, d.solver.max_iter);
  assert_true(m.solver.omega == d.solver.omega);
  assert_int_equal(m.solver.warm_start, d.solver.warm_start);
  assert_int_equal(m.nbodies, 1);
  const LsimBody *b = &m.bodies[0];
  assert_string_equal(b->name, "body0");
  assert_int_equal(b->type, LSIM_BODY_DYNAMIC);
  assert_true(b->mass == 1.0);
  assert_true(b->width == 0.0);
  assert_true(b->ground_mu == 0.0);
  assert_int_equal(b->force.npoints, 0);
  assert_true(b->force.constant == 0.0);
  assert_true(s.q[0] == 0.0 && s.v[0] == 0.0);
  lsim_state_free(&s);
  lsim_model_free(&m);
  LsimSceneOutput out;
  assert_int_equal(lsim_scene_output(js, "min.json", &out, NULL), 0);
  assert_string_equal(out.file, "");
  assert_int_equal(out.print, 0);
}

/* "solver": "pgs" shorthand, and "duration" giving steps. */
static void test_shorthand_and_duration(void **unused) {
  (void)unused;
  LsimModel m;
  LsimState s;
  LsimSceneError err;
  const char *js = "{\"lcpsim\": 1, \"time_step\": 0.1, \"duration\": 3.0, \"solver\": \"pgs\","
                   " \"bodies\": [{}]}";
  assert_int_equal(lsim_scene_parse(js, "d.json", &m, &s, &err), 0);
  assert_int_equal(m.steps, 30); /* 3.0 / 0.1 = 30.000000000000004 */
  assert_string_equal(m.solver.name, "pgs");
  assert_true(m.solver.tol == 1e-10);
  lsim_state_free(&s);
  lsim_model_free(&m);
  /* Bodies touching exactly, or overlapping by less than 1e-12, are accepted. */
  const char *touch = "{\"lcpsim\": 1, \"time_step\": 1, \"steps\": 1, \"bodies\": ["
                      "{\"position\": -0.5, \"width\": 1}, {\"position\": 0.5, \"width\": 1},"
                      "{\"position\": 1.4999999999999, \"width\": 1}],"
                      " \"walls\": [{\"position\": -1, \"side\": \"left\"}]}";
  assert_int_equal(lsim_scene_parse(touch, "t.json", &m, &s, &err), 0);
  assert_int_equal(m.nbodies, 4);
  lsim_state_free(&s);
  lsim_model_free(&m);
}

/* A force table: linear between rows, held outside; exact at chosen times. */
static void test_force_table(void **unused) {
  (void)unused;
  const char *js = "{\"lcpsim\": 1, \"time_step\": 0.25, \"steps\": 8, \"bodies\": [{\"force\":"
                   " {\"table\": [[0.5, 2], [1.5, 6], [2.5, -2]]}}]}";
  LsimModel m;
  LsimState s;
  LsimSceneError err;
  assert_int_equal(lsim_scene_parse(js, "f.json", &m, &s, &err), 0);
  const LsimSchedule *f = &m.bodies[0].force;
  assert_int_equal(f->npoints, 3);
  assert_int_equal(f->width, 1);
  assert_true(lsim_schedule_eval(f, -1.0) == 2.0); /* held before */
  assert_true(lsim_schedule_eval(f, 0.5) == 2.0);
  assert_true(lsim_schedule_eval(f, 0.75) == 3.0);
  assert_true(lsim_schedule_eval(f, 1.0) == 4.0);
  assert_true(lsim_schedule_eval(f, 1.5) == 6.0);
  assert_true(lsim_schedule_eval(f, 2.0) == 2.0);
  assert_true(lsim_schedule_eval(f, 2.25) == 0.0);
  assert_true(lsim_schedule_eval(f, 2.5) == -2.0);
  assert_true(lsim_schedule_eval(f, 10.0) == -2.0); /* held after */
  lsim_state_free(&s);
  lsim_model_free(&m);
}

typedef struct ErrorCase {
  const char *json;
  int line, column;
  const char *path;
  const char *fragment;
} ErrorCase;

static const ErrorCase error_cases[] = {
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [\n  {\"name\": \"a\", \"position\": 0,\n   \"masss\": 2}]}",
     4, 4, "bodies[0].masss", "unknown key (did you mean 'mass'?)"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"position\": -5},\n  {\"position\": 5, \"mass\": \"heavy\"}]}",
     3, 27, "bodies[1].mass", "must be a number, got string"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": -1}]}",
     2, 22, "bodies[0].mass", "must be > 0, got -1"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 0}]}",
     2, 22, "bodies[0].mass", "must be > 0, got 0"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"width\": -0.5}]}",
     2, 23, "bodies[0].width", "must be >= 0, got -0.5"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"velocity\": NaN}]}",
     2, 26, "", "invalid token near 'NaN' (JSON has no NaN or Infinity"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"velocity\": Infinity}]}",
     2, 26, "", "invalid token near 'Infinity' (JSON has no NaN"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"velocity\": -Infinity}]}",
     2, 26, "", "invalid token near '-' (JSON has no NaN"},
    {"{\"lcpsim\": 1,\n \"time_step\": 0, \"steps\": 3, \"bodies\": [{}]}",
     2, 15, "time_step", "must be > 0, got 0"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1,\n \"steps\": 0, \"bodies\": [{}]}",
     2, 11, "steps", "must be an integer >= 1, got 0"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1,\n \"steps\": 2.5, \"bodies\": [{}]}",
     2, 11, "steps", "must be an integer, got 2.5"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"A\", \"position\": 0, \"width\": 1},\n  {\"name\": \"B\", \"position\": 0.5, \"width\": 1}]}",
     3, 29, "bodies[1].position", "'B' [0, 1] overlaps 'A' (bodies[0]) [-0.5, 0.5] at the start by 0.5"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"cart\", \"position\": -0.25}],\n \"walls\": [{\"name\": \"wall\", \"position\": 0, \"side\": \"left\"}]}",
     2, 42, "bodies[0].position", "'cart' [-0.25, -0.25] is inside wall 'wall' (occupies x <= 0) by 0.25"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"position\": 2.5, \"width\": 2}],\n \"walls\": [{\"position\": 3, \"side\": \"right\"}]}",
     2, 26, "bodies[0].position", "is inside wall 'wall0' (occupies x >= 3) by 0.5"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\", \"position\": -1},\n  {\"name\": \"a\", \"position\": 1}]}",
     3, 12, "bodies[1].name", "name 'a' is already used by bodies[0]"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"body1\", \"position\": -1},\n  {\"position\": 1}]}",
     3, 3, "bodies[1]", "name 'body1' is already used by bodies[0] (give this one a \"name\")"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"walls\": [{\"name\": \"w\", \"side\": \"left\", \"position\": -9}],\n \"bodies\": [{\"name\": \"w\"}]}",
     2, 21, "walls[0].name", "name 'w' is already used by bodies[0]"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1,\n   \"mass\": 2}]}",
     3, 4, "", "duplicate object key near '\"mass\"'"},
    {"{\"lcpsim\": 2, \"time_step\": 0.1, \"steps\": 3, \"bodies\": [{}]}",
     1, 12, "lcpsim", "unsupported format version 2 (this lcpsim reads version 1)"},
    {"\n  {\"time_step\": 0.1, \"steps\": 3, \"bodies\": [{}]}",
     2, 3, "lcpsim", "required key missing"},
    {"{\"lcpsim\": 1, \"dimension\": 4, \"time_step\": 0.1, \"steps\": 3, \"bodies\": [{}]}",
     1, 28, "dimension", "must be 1, 2 or 3, got 4"},
    {"{\"lcpsim\": 1, \"dimension\": 0, \"time_step\": 0.1, \"steps\": 3, \"bodies\": [{}]}",
     1, 28, "dimension", "must be 1, 2 or 3, got 0"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"duration\": 0.3, \"bodies\": [{}]}",
     2, 2, "duration", "give either \"steps\" or \"duration\", not both"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"bodies\": [{}]}",
     1, 1, "", "one of \"steps\" (a count) or \"duration\" (s) is required"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1,\n \"duration\": 0.25, \"bodies\": [{}]}",
     2, 14, "duration", "is not a whole number of time steps"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"force\": {\"table\": [[0, 1], [1, 2], [1, 3]]}}]}",
     2, 51, "bodies[0].force.table[2][0]", "times must increase strictly: 1 after 1"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"force\": {\"table\": [[0, 1], [1, 2, 3]]}}]}",
     2, 42, "bodies[0].force.table[1]", "must be a row [t, value] of 2 numbers, got 3"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"force\": {\"table\": [[0, \"x\"]]}}]}",
     2, 38, "bodies[0].force.table[0][1]", "must be a number, got string"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"force\": {\"tabel\": []}}]}",
     2, 24, "bodies[0].force.tabel", "unknown key (did you mean 'table'?)"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"force\": \"strong\"}]}",
     2, 23, "bodies[0].force", "must be a number or {\"table\""},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"velocity\": {\"table\": [[0, 1]]}}]}",
     2, 26, "bodies[0].velocity", "must be a number, got object (tables are for kinematic bodies)"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"type\": \"kinematic\", \"velocity\": 1}]}",
     2, 12, "bodies", "at least one dynamic body is required"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": []}",
     2, 12, "bodies", "at least one dynamic body is required"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{}, {\"type\": \"kinematic\", \"position\": 5,\n   \"force\": 2}]}",
     3, 4, "bodies[1].force", "does not apply to a kinematic body"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"type\": \"static\"}]}",
     2, 22, "bodies[0].type", "(fixed bodies go in \"walls\")"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"gravty\": -9.81, \"bodies\": [{}]}",
     2, 2, "gravty", "unknown key (did you mean 'gravity'?)"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{}], \"colour\": \"red\"}",
     2, 18, "colour", "unknown key (known keys here: $schema, lcpsim, name"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{}], \"solver\": \"lemk\"}",
     2, 28, "solver", "unknown solver \"lemk\" (did you mean \"lemke\"?)"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{}], \"solver\": {\"name\": \"pgs\", \"omega\": 2}}",
     2, 53, "solver.omega", "must be in (0, 2), got 2"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{}], \"solver\": {\"warm_start\": 1}}",
     2, 43, "solver.warm_start", "must be true or false, got number"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{}], \"walls\": [{\"position\": 1}]}",
     2, 28, "walls[0].side", "required key missing"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{}], \"walls\": [{\"position\": 1, \"side\": \"up\"}]}",
     2, 52, "walls[0].side", "must be \"left\" (occupies x <= position) or \"right\""},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{}], \"walls\": [{\"position\": 1, \"side\": \"left\"},\n  {\"position\": -1, \"side\": \"right\"}]}",
     3, 16, "walls[1].position", "wall 'wall0' (x <= 1) overlaps wall 'wall1' (x >= -1)"},
    {"[1, 2]",
     1, 1, "", "a scene is a JSON object {...}, got array"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": {\"a\": 1}}",
     2, 12, "bodies", "must be an array, got object"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [3]}",
     2, 13, "bodies[0]", "must be an object, got number"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{}], \"ground\": {\"mu\": -0.1}}",
     2, 35, "ground.mu", "must be >= 0, got -0.1"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{}], \"output\": {\"file\": 3}}",
     2, 37, "output.file", "must be a string, got number"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{}], \"contact\": {\"margin\": -1}}",
     2, 40, "contact.margin", "must be >= 0, got -1"},
    {"{\"lcpsim\": 1, \"name\": \"café à la crème\", \"time_step\": -1, \"steps\": 3, \"bodies\": [{}]}",
     1, 55, "time_step", "must be > 0, got -1"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3, \"bodies\": [{\"n\\u00e4me\": 1}]}",
     1, 57, "bodies[0][\"näme\"]", "unknown key (did you mean 'name'?)"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3, \"bodies\": [{\"a.b\": 1, \"position\": 1}]}",
     1, 57, "bodies[0][\"a.b\"]", "unknown key (known keys here"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"x\", \"masss\": 1, \"widht\": 2}]}",
     2, 27, "bodies[0].masss", "unknown key (did you mean 'mass'?)"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"x\", \"widht\": 2, \"masss\": 1}]}",
     2, 27, "bodies[0].widht", "unknown key (did you mean 'width'?)"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"\"}]}",
     2, 22, "bodies[0].name", "must not be empty"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}]}",
     2, 22, "bodies[0].name", "must be at most 47 bytes long, got 48"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3, \"bodies\": [{}]",
     1, 58, "", "'}' expected near end of file"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 99999999999999999999, \"bodies\": [{}]}",
     1, 42, "", "too big integer"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3e9, \"bodies\": [{}]}",
     1, 42, "steps", "must be an integer >= 1, got 3000000000"},
    /* jansson reports column 0 at the end of a text ending in a newline: column 1. */
    {"{\"lcpsim\": 1,\n", 2, 1, "", "expected near end of file"},
    {"", 1, 1, "", "near end of file"},
};

/* Every bad input: LSIM_INVALID_INPUT, the exact position and path, the message, and
 * nothing left allocated (the model and state come back empty). */
static void test_errors(void **unused) {
  (void)unused;
  const size_t n = sizeof error_cases / sizeof error_cases[0];
  int failures = 0;
  for (size_t i = 0; i < n; ++i) {
    const ErrorCase *ec = &error_cases[i];
    LsimModel m;
    LsimState s;
    LsimSceneError err;
    const int rc = lsim_scene_parse(ec->json, "x.json", &m, &s, &err);
    char line[640];
    lsim_scene_error_format(&err, line, sizeof line);
    const int ok = rc == LSIM_INVALID_INPUT && err.line == ec->line &&
                   err.column == ec->column && strcmp(err.path, ec->path) == 0 &&
                   strstr(err.message, ec->fragment) != NULL && strcmp(err.file, "x.json") == 0;
    if (!ok) {
      print_error("case %zu: rc %d, got \"%s\"; want %d:%d %s: ...%s...\n", i, rc, line,
                  ec->line, ec->column, ec->path, ec->fragment);
      ++failures;
    }
    assert_int_equal(m.nbodies, 0);
    assert_null(m.bodies);
    assert_null(s.q);
    assert_null(s.v);
    /* lsim_scene_output reports the same error. */
    LsimSceneOutput out;
    LsimSceneError err2;
    assert_int_equal(lsim_scene_output(ec->json, "x.json", &out, &err2), LSIM_INVALID_INPUT);
    assert_int_equal(err2.line, err.line);
    assert_int_equal(err2.column, err.column);
  }
  assert_int_equal(failures, 0);
}

/* The one-line format, with and without a position and a path. */
static void test_error_format(void **unused) {
  (void)unused;
  LsimModel m;
  LsimState s;
  LsimSceneError err;
  const char *js = "{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n"
                   " \"bodies\": [\n"
                   "  {\"name\": \"a\",\n"
                   "   \"masss\": 2}]}";
  assert_int_equal(lsim_scene_parse(js, "x.json", &m, &s, &err), LSIM_INVALID_INPUT);
  char line[640];
  lsim_scene_error_format(&err, line, sizeof line);
  assert_string_equal(line, "x.json:4:4: bodies[0].masss: unknown key (did you mean 'mass'?)");
  assert_int_equal(lsim_scene_parse("{\"a\": NaN}", "y.json", &m, &s, &err), LSIM_INVALID_INPUT);
  lsim_scene_error_format(&err, line, sizeof line);
  assert_string_equal(line, "y.json:1:7: invalid token near 'NaN' (JSON has no NaN or Infinity: "
                            "numbers must be finite)");
  /* Truncation keeps the buffer terminated. */
  char small[8];
  lsim_scene_error_format(&err, small, sizeof small);
  assert_string_equal(small, "y.json:");
}

/* A missing file: LSIM_IO_ERROR with the OS message, no position; a directory too. */
static void test_missing_file(void **unused) {
  (void)unused;
  LsimModel m;
  LsimState s;
  LsimSceneError err;
  char *text = (char *)1;
  assert_int_equal(lsim_scene_load("no/such/scene.json", &m, &s, &text, &err), LSIM_IO_ERROR);
  assert_null(text);
  assert_null(m.bodies);
  assert_null(s.q);
  assert_string_equal(err.file, "no/such/scene.json");
  assert_int_equal(err.line, 0);
  assert_non_null(strstr(err.message, "No such file or directory"));
  char line[640];
  lsim_scene_error_format(&err, line, sizeof line);
  assert_string_equal(line, "no/such/scene.json: cannot read: No such file or directory");
  assert_int_equal(lsim_scene_load("data", &m, &s, &text, &err), LSIM_IO_ERROR);
  assert_non_null(strstr(err.message, "Is a directory"));
}

/* A file with a semantic error and a NUL byte; load returns no text on error. */
static void test_file_errors(void **unused) {
  (void)unused;
  char path[] = "/tmp/lsim_scene_XXXXXX";
  const int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  const char body[] = "{\"lcpsim\": 1,\n \"time_step\": 0.1, \"steps\": 3,\n"
                      " \"bodies\": [{\"mass\": 1}]\n\0}";
  fwrite(body, 1, sizeof body - 1, f);
  fclose(f);
  LsimModel m;
  LsimState s;
  LsimSceneError err;
  char *text = NULL;
  assert_int_equal(lsim_scene_load(path, &m, &s, &text, &err), LSIM_INVALID_INPUT);
  assert_null(text);
  assert_int_equal(err.line, 4);
  assert_int_equal(err.column, 1);
  assert_non_null(strstr(err.message, "NUL byte"));
  /* Without the NUL it loads, and text is the file's text. */
  f = fopen(path, "w");
  fwrite(body, 1, sizeof body - 3, f);
  fputs("}\n", f);
  fclose(f);
  assert_int_equal(lsim_scene_load(path, &m, &s, &text, &err), 0);
  assert_non_null(text);
  assert_non_null(strstr(text, "\"bodies\": [{\"mass\": 1}]"));
  free(text);
  lsim_state_free(&s);
  lsim_model_free(&m);
  /* text may be NULL. */
  assert_int_equal(lsim_scene_load(path, &m, &s, NULL, &err), 0);
  lsim_state_free(&s);
  lsim_model_free(&m);
  remove(path);
}

/* The example scenes in data/ load with the numbers of the Tedrake exercises. */
static void test_examples(void **unused) {
  (void)unused;
  LsimModel m;
  LsimState s;
  LsimSceneError err;
  char *text = NULL;
  char msg[640];

  /* Cart and wall: m = 1, h = 0.1, u = 0, wall x <= 0, point cart at 1 moving at -3. */
  int rc = lsim_scene_load("data/cart_wall.json", &m, &s, &text, &err);
  lsim_scene_error_format(&err, msg, sizeof msg);
  if (rc) print_error("%s\n", msg);
  assert_int_equal(rc, 0);
  free(text);
  assert_true(m.time_step == 0.1);
  assert_int_equal(m.steps, 30);
  assert_string_equal(m.solver.name, "lemke");
  assert_int_equal(m.nbodies, 2);
  assert_string_equal(m.bodies[0].name, "cart");
  assert_true(m.bodies[0].mass == 1.0 && m.bodies[0].width == 0.0);
  assert_true(m.bodies[0].force.npoints == 0 && m.bodies[0].force.constant == 0.0);
  assert_true(s.q[0] == 1.0 && s.v[0] == -3.0);
  assert_int_equal(m.bodies[1].type, LSIM_BODY_STATIC);
  assert_int_equal(m.bodies[1].side, -1);
  assert_true(m.bodies[1].pose[0] == 0.0);
  lsim_state_free(&s);
  lsim_model_free(&m);

  /* Two blocks: A at -2 moving at 3, B at 0 at rest, widths 1, masses 1, h = 1, 3 steps. */
  assert_int_equal(lsim_scene_load("data/two_blocks.json", &m, &s, NULL, &err), 0);
  assert_true(m.time_step == 1.0);
  assert_int_equal(m.steps, 3);
  assert_int_equal(m.nbodies, 2);
  for (int i = 0; i < 2; ++i) assert_true(m.bodies[i].mass == 1.0 && m.bodies[i].width == 1.0);
  assert_true(s.q[0] == -2.0 && s.v[0] == 3.0);
  assert_true(s.q[1] == 0.0 && s.v[1] == 0.0);
  lsim_state_free(&s);
  lsim_model_free(&m);

  /* Brick: mu = 0.5, g = 9.81, h = 0.01, 200 steps; the push is below mu m g = 4.905 N
     for t < 1 s and above it after. */
  assert_int_equal(lsim_scene_load("data/brick_friction.json", &m, &s, NULL, &err), 0);
  assert_true(m.time_step == 0.01);
  assert_int_equal(m.steps, 200);
  assert_true(m.ground_normal_gravity == 9.81);
  assert_int_equal(m.nbodies, 1);
  const LsimBody *b = &m.bodies[0];
  assert_true(b->mass == 1.0 && b->ground_mu == 0.5);
  const double limit = b->ground_mu * b->mass * m.ground_normal_gravity;
  for (int k = 0; k < 100; ++k) assert_true(lsim_schedule_eval(&b->force, k * 0.01) < limit);
  for (int k = 101; k <= 200; ++k) assert_true(lsim_schedule_eval(&b->force, k * 0.01) > limit);
  lsim_state_free(&s);
  lsim_model_free(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_full_scene),
      cmocka_unit_test(test_defaults),
      cmocka_unit_test(test_shorthand_and_duration),
      cmocka_unit_test(test_force_table),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_error_format),
      cmocka_unit_test(test_missing_file),
      cmocka_unit_test(test_file_errors),
      cmocka_unit_test(test_examples),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
