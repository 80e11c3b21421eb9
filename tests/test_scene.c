/* test_scene.c: scene.json parsing: exact numbers, defaults, schedules, tethers and joints,
 * 2-D and 3-D scenes, the example scenes and the schema; file-level errors (format, missing
 * and unreadable files). Every error of a scene's content, with its message and exact
 * line:column, is in test_scene_errors.c. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "contact/math3.h"
#include "contact/step.h"
#include "lcp/lcp.h"
#include "lcp/random.h"
#include "lcp/solver.h"
#include "hybrid/scene.h"
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
    "             \"warm_start\": false, \"threads\": 2, \"sparse_limit\": 2000},\n"
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
  assert_int_equal(m.solver.threads, 2);
  assert_int_equal(m.solver.sparse_limit, 2000);
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
  assert_int_equal(m.solver.threads, 1);
  assert_int_equal(m.solver.sparse_limit, 0);
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
/* Tethers and joints in 2-D: every kind of end, defaults (names, rod length = the initial
 * distance), path motions (velocity tables stored with width 3), baumgarte. */
static void test_constraints_2d(void **unused) {
  (void)unused;
  static const char *text =
      "{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.01, \"steps\": 10, \"baumgarte\": 0.25,\n"
      " \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": 1, \"position\": [0, -1]},\n"
      "  {\"name\": \"b\", \"mass\": 1, \"inertia\": 1, \"position\": [1, -1]},\n"
      "  {\"name\": \"k\", \"type\": \"kinematic\", \"velocity\": [1, 0]},\n"
      "  {\"name\": \"g\", \"type\": \"static\", \"position\": [0, -3]}],\n"
      " \"tethers\": [\n"
      "  {\"name\": \"r1\", \"length\": 1.5, \"ends\": [{\"body\": \"a\", \"point\": [0.5, 0]}, {\"world\": [0, 0]}]},\n"
      "  {\"length\": 2, \"ends\": [{\"body\": \"b\"}, {\"path\": {\"origin\": [1, 0], \"velocity\": [0.5, 0]}}]},\n"
      "  {\"length\": 3, \"ends\": [{\"body\": \"a\"}, {\"path\": {\"origin\": [0, 0], \"amplitude\": [0.125, 0],\n"
      "     \"frequency\": 2, \"phase\": 0.5}}]},\n"
      "  {\"length\": 3, \"ends\": [{\"body\": \"b\"}, {\"path\": {\"origin\": [0, 0], \"table\": [[0, 1, 0.5], [1, 2, 0]]}}]}],\n"
      " \"joints\": [\n"
      "  {\"name\": \"p\", \"type\": \"pin\", \"ends\": [{\"body\": \"a\", \"point\": [1, 0]}, {\"body\": \"b\"}]},\n"
      "  {\"type\": \"rod\", \"ends\": [{\"body\": \"a\"}, {\"body\": \"k\"}]},\n"
      "  {\"type\": \"rod\", \"length\": 2.5, \"ends\": [{\"body\": \"b\"}, {\"body\": \"g\", \"point\": [0, 1]}]}]}\n";
  LsimModel m;
  LsimState s;
  LsimSceneError err;
  const int rc = lsim_scene_parse(text, "c.json", &m, &s, &err);
  if (rc) {
    char line[640];
    lsim_scene_error_format(&err, line, sizeof line);
    print_error("%s\n", line);
  }
  assert_int_equal(rc, 0);
  assert_true(m.baumgarte == 0.25);
  assert_int_equal(m.ntethers, 4);
  assert_int_equal(m.njoints, 3);
  const LsimTether *t = m.tethers;
  assert_string_equal(t[0].name, "r1");
  assert_string_equal(t[1].name, "tether1");
  assert_true(t[0].length == 1.5);
  assert_int_equal(t[0].end[0].body, 0);
  assert_true(t[0].end[0].point[0] == 0.5 && t[0].end[0].point[1] == 0.0);
  assert_int_equal(t[0].end[1].body, -1);
  assert_int_equal(t[0].end[1].motion.kind, LSIM_MOTION_FIXED);
  assert_int_equal(t[1].end[1].motion.kind, LSIM_MOTION_VELOCITY);
  assert_true(t[1].end[1].motion.origin[0] == 1.0 && t[1].end[1].motion.velocity[0] == 0.5);
  assert_true(t[2].end[1].motion.amplitude[0] == 0.125 && t[2].end[1].motion.frequency == 2.0);
  assert_true(t[2].end[1].motion.phase == 0.5);
  const LsimSchedule *tab = &t[3].end[1].motion.table;
  assert_int_equal(t[3].end[1].motion.kind, LSIM_MOTION_TABLE);
  assert_int_equal(tab->width, 3);
  assert_int_equal(tab->npoints, 2);
  assert_true(tab->t[1] == 1.0);
  assert_true(tab->value[0] == 1.0 && tab->value[1] == 0.5 && tab->value[2] == 0.0);
  assert_true(tab->value[3] == 2.0 && tab->value[4] == 0.0 && tab->value[5] == 0.0);
  const LsimJoint *j = m.joints;
  assert_string_equal(j[0].name, "p");
  assert_string_equal(j[1].name, "joint1");
  assert_int_equal(j[0].type, LSIM_JOINT_PIN);
  assert_int_equal(j[1].type, LSIM_JOINT_ROD);
  assert_true(j[1].length == 1.0); /* a at (0, -1), k at (0, 0) */
  assert_int_equal(j[1].end[1].body, 2);
  assert_true(j[2].length == 2.5);
  assert_int_equal(j[2].end[1].body, 3);
  assert_true(j[2].end[1].point[1] == 1.0);
  lsim_state_free(&s);
  lsim_model_free(&m);
}

/* 1-D (a tether to a wall, a rod between carts) and 3-D (a ball joint, a taut tether
 * at exactly its length, a table path). */
static void test_constraints_1d_3d(void **unused) {
  (void)unused;
  static const char *one =
      "{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n"
      " \"bodies\": [{\"name\": \"a\", \"position\": 1}, {\"name\": \"b\", \"position\": 3}],\n"
      " \"walls\": [{\"name\": \"w\", \"position\": -1, \"side\": \"left\"}],\n"
      " \"tethers\": [{\"length\": 2, \"ends\": [{\"body\": \"a\"}, {\"body\": \"w\", \"point\": [0]}]}],\n"
      " \"joints\": [{\"type\": \"rod\", \"ends\": [{\"body\": \"b\", \"point\": [0.5]}, {\"body\": \"a\"}]}]}\n";
  LsimModel m;
  LsimState s;
  LsimSceneError err;
  assert_int_equal(lsim_scene_parse(one, "one.json", &m, &s, &err), 0);
  assert_int_equal(m.ntethers, 1);
  assert_int_equal(m.tethers[0].end[1].body, 2);
  assert_true(m.joints[0].length == 2.5);
  assert_true(m.baumgarte == 0.0);
  assert_int_equal(m.joints[0].no_collide, 0); /* "collide" defaults to true */
  assert_int_equal(lsim_pair_collides(&m, 0, 1), 1);
  lsim_state_free(&s);
  lsim_model_free(&m);
  static const char *apart =
      "{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n"
      " \"bodies\": [{\"name\": \"a\", \"position\": 1}, {\"name\": \"b\", \"position\": 3}],\n"
      " \"joints\": [{\"type\": \"rod\", \"collide\": false, \"ends\": [{\"body\": \"b\"}, {\"body\": \"a\"}]}]}\n";
  assert_int_equal(lsim_scene_parse(apart, "apart.json", &m, &s, &err), 0);
  assert_int_equal(m.joints[0].no_collide, 1);
  assert_int_equal(lsim_pair_collides(&m, 0, 1), 0);
  assert_int_equal(lsim_pair_collides(&m, 1, 0), 0);
  lsim_state_free(&s);
  lsim_model_free(&m);
  static const char *three =
      "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n"
      " \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": [1, 1, 1]},\n"
      "  {\"name\": \"b\", \"mass\": 1, \"inertia\": [1, 1, 1], \"position\": [0, 0, 1]}],\n"
      " \"tethers\": [{\"length\": 1.5, \"ends\": [{\"body\": \"a\", \"point\": [0, 0, -0.5]}, {\"body\": \"b\"}]},\n"
      "  {\"length\": 1, \"ends\": [{\"body\": \"b\"}, {\"path\": {\"origin\": [0, 0, 2], \"table\": [[0, 0, 0, 1]]}}]}],\n"
      " \"joints\": [{\"type\": \"pin\", \"ends\": [{\"body\": \"a\", \"point\": [0, 0, 0.5]}, {\"body\": \"b\", \"point\": [0, 0, -0.5]}]}]}\n";
  assert_int_equal(lsim_scene_parse(three, "three.json", &m, &s, &err), 0);
  assert_int_equal(m.ntethers, 2);
  assert_int_equal(m.njoints, 1);
  assert_true(m.tethers[0].end[0].point[2] == -0.5);
  assert_true(m.tethers[1].end[1].motion.table.value[2] == 1.0);
  assert_true(m.tethers[1].end[1].motion.origin[2] == 2.0);
  assert_true(m.joints[0].end[1].point[2] == -0.5);
  lsim_state_free(&s);
  lsim_model_free(&m);
}

/* "rotation" (3-D, time stepping): the Lie midpoint by default, the body-frame midpoint on
 * request; another name, a 2-D scene and an event-driven one are refused at the key. */
static void test_rotation_key(void **unused) {
  (void)unused;
  LsimModel m;
  LsimState s;
  LsimSceneError err;
  char js[512], line[640];
  const char *fmt = "{\"lcpsim\": 1, \"dimension\": %d, \"time_step\": 0.01, \"steps\": 3,%s"
                    " \"bodies\": [{\"mass\": 1, \"inertia\": [1, 1, 1]}]}";
  snprintf(js, sizeof js, fmt, 3, "");
  assert_int_equal(lsim_scene_parse(js, "r.json", &m, &s, &err), 0);
  assert_int_equal(m.rotation, LSIM_ROTATION_LIE_MIDPOINT);
  lsim_model_free(&m), lsim_state_free(&s);
  snprintf(js, sizeof js, fmt, 3, " \"rotation\": \"body_midpoint\",");
  assert_int_equal(lsim_scene_parse(js, "r.json", &m, &s, &err), 0);
  assert_int_equal(m.rotation, LSIM_ROTATION_BODY_MIDPOINT);
  lsim_model_free(&m), lsim_state_free(&s);
  snprintf(js, sizeof js, fmt, 3, " \"rotation\": \"lie_midpoint\",");
  assert_int_equal(lsim_scene_parse(js, "r.json", &m, &s, &err), 0);
  assert_int_equal(m.rotation, LSIM_ROTATION_LIE_MIDPOINT);
  lsim_model_free(&m), lsim_state_free(&s);
  snprintf(js, sizeof js, fmt, 3, " \"rotation\": \"cayley\",");
  assert_int_equal(lsim_scene_parse(js, "r.json", &m, &s, &err), LSIM_INVALID_INPUT);
  lsim_scene_error_format(&err, line, sizeof line);
  assert_non_null(strstr(line, "r.json:1:"));
  assert_non_null(strstr(line, "rotation: must be \"lie_midpoint\" or \"body_midpoint\", got \"cayley\""));
  snprintf(js, sizeof js, fmt, 2, " \"rotation\": \"body_midpoint\",");
  assert_int_equal(lsim_scene_parse(js, "r.json", &m, &s, &err), LSIM_INVALID_INPUT);
  lsim_scene_error_format(&err, line, sizeof line);
  assert_non_null(strstr(line, "rotation: applies to 3-D scenes only"));
  snprintf(js, sizeof js, fmt, 3, " \"integrator\": \"event_driven\", \"rotation\": \"body_midpoint\",");
  assert_int_equal(lsim_scene_parse(js, "r.json", &m, &s, &err), LSIM_INVALID_INPUT);
  lsim_scene_error_format(&err, line, sizeof line);
  assert_non_null(strstr(line, "rotation: applies to the time-stepping integrator only"));
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
  assert_null(strstr(err.message, "binary")); /* a JSON text with a NUL inside */
  /* A binary file (an ELF executable's first bytes) is named as one, not as a text with a
     NUL at 1:5 (the message said only "the text contains a NUL byte"). */
  static const char elf[] = "\x7f" "ELF\x02\x01\x01\0\0\0"; /* 11 bytes, the last NUL too */
  f = fopen(path, "w");
  fwrite(elf, 1, sizeof elf, f);
  fclose(f);
  assert_int_equal(lsim_scene_load(path, &m, &s, &text, &err), LSIM_INVALID_INPUT);
  assert_null(text);
  assert_string_equal(err.message, "not a text file (a NUL byte at byte 8): a binary file, not "
                                   "a scene (a JSON text)");
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

/* Loads js (which must be valid) and fails the test with the error line otherwise. */
static void parse_ok(const char *js, LsimModel *m, LsimState *s) {
  LsimSceneError err;
  const int rc = lsim_scene_parse(js, "ok.json", m, s, &err);
  if (rc) {
    char line[640];
    lsim_scene_error_format(&err, line, sizeof line);
    print_error("%s\n", line);
  }
  assert_int_equal(rc, 0);
}

/* A 2-D scene with every kind of body, in numbers exact in binary where checked. */
static const char *scene_2d =
    "{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.125, \"steps\": 8,\n"
    " \"gravity\": [0.5, -9.75], \"friction\": {\"directions\": 2},\n"
    " \"contact\": {\"allow_initial_overlap\": true},\n"
    " \"bodies\": [\n"
    "  {\"name\": \"floor\", \"type\": \"static\", \"position\": [0, -1], \"orientation\": 0.25,\n"
    "   \"shapes\": [{\"type\": \"plane\", \"mu\": 0.75}]},\n"
    "  {\"name\": \"crate\", \"mass\": 3, \"position\": [1.5, 2], \"orientation\": -0.5,\n"
    "   \"velocity\": [0.25, -1], \"angular_velocity\": 2, \"force\": [1, 2], \"torque\": -3,\n"
    "   \"shapes\": [{\"type\": \"box\", \"name\": \"body\", \"half_extents\": [0.5, 0.25], \"mu\": 0.25}]},\n"
    "  {\"name\": \"disk\", \"density\": 4, \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.5},\n"
    "   {\"type\": \"point\", \"position\": [0.5, 0]}]},\n"
    "  {\"name\": \"pill\", \"mass\": 2, \"inertia\": 0.75,\n"
    "   \"shapes\": [{\"type\": \"capsule\", \"radius\": 0.25, \"half_length\": 1}],\n"
    "   \"force\": {\"table\": [[0, 1, 2, 3], [1, 3, 4, 5]]}},\n"
    "  {\"name\": \"pusher\", \"type\": \"kinematic\", \"position\": [-4, 0], \"velocity\": [1, 0],\n"
    "   \"angular_velocity\": 0.5, \"shapes\": [{\"type\": \"box\", \"half_extents\": [1, 1]}]},\n"
    "  {\"name\": \"lift\", \"type\": \"kinematic\", \"position\": [4, 0],\n"
    "   \"motion\": {\"table\": [[0, 0, 1, 0], [2, 0, 3, 1]]}}\n"
    " ]}\n";

static void test_scene_2d(void **unused) {
  (void)unused;
  LsimModel m;
  LsimState s;
  parse_ok(scene_2d, &m, &s);
  /* Model-wide settings. */
  assert_int_equal(m.dimension, 2);
  assert_true(m.gravity[0] == 0.5 && m.gravity[1] == -9.75 && m.gravity[2] == 0.0);
  assert_int_equal(m.friction_directions, 2);
  assert_int_equal(m.nbodies, 6);
  assert_int_equal(m.nshapes, 6);
  /* 3 coordinates per moving body, none for the static one. */
  assert_int_equal(m.nq, 15);
  assert_int_equal(m.nv, 15);
  const LsimBody *b = m.bodies;
  /* The static floor: pose (x, y, theta), a tilted plane, no coordinates. */
  assert_int_equal(b[0].type, LSIM_BODY_STATIC);
  assert_true(b[0].pose[0] == 0.0 && b[0].pose[1] == -1.0 && b[0].pose[2] == 0.25);
  assert_int_equal(b[0].q_offset, -1);
  assert_true(b[0].mass == 0.0);
  const LsimShape *sh = &m.shapes[b[0].first_shape];
  assert_int_equal(b[0].nshapes, 1);
  assert_int_equal(sh->type, LSIM_SHAPE_PLANE);
  assert_int_equal(sh->body, 0);
  assert_string_equal(sh->name, "shape0");
  assert_true(sh->mu == 0.75);
  /* The crate: a 1 x 0.5 rectangle of mass 3: I_zz = m (a^2 + b^2) / 3 = 0.3125. */
  assert_int_equal(b[1].type, LSIM_BODY_DYNAMIC);
  assert_true(b[1].mass == 3.0);
  assert_true(b[1].inertia[8] == 0.3125);
  for (int k = 0; k < 8; ++k) assert_true(b[1].inertia[k] == 0.0);
  sh = &m.shapes[b[1].first_shape];
  assert_int_equal(sh->type, LSIM_SHAPE_BOX);
  assert_string_equal(sh->name, "body");
  assert_true(sh->half[0] == 0.5 && sh->half[1] == 0.25 && sh->half[2] == 0.0);
  assert_true(sh->mu == 0.25);
  assert_true(sh->rot[0] == 1.0 && sh->pos[0] == 0.0);
  /* Its state: q = (x, y, theta), v = (vx, vy, omega); force (fx, fy, torque) as one row. */
  const double q1[3] = {1.5, 2.0, -0.5}, v1[3] = {0.25, -1.0, 2.0};
  assert_int_equal(b[1].q_offset, 0);
  assert_int_equal(b[1].nq, 3);
  assert_true(lsim_test_max_abs_diff(s.q + b[1].q_offset, q1, 3) == 0.0);
  assert_true(lsim_test_max_abs_diff(s.v + b[1].v_offset, v1, 3) == 0.0);
  assert_int_equal(b[1].force.width, 3);
  assert_int_equal(b[1].force.npoints, 1);
  const double f1[3] = {1.0, 2.0, -3.0};
  assert_true(lsim_test_max_abs_diff(b[1].force.value, f1, 3) == 0.0);
  /* The disk by density: m = rho pi r^2, I_zz = m r^2 / 2; the point carries no mass. */
  const double pi = 3.14159265358979323846;
  assert_true(fabs(b[2].mass - 4.0 * pi * 0.25) < 1e-15);
  assert_true(fabs(b[2].inertia[8] - b[2].mass * 0.125) < 1e-15);
  assert_int_equal(b[2].nshapes, 2);
  assert_int_equal(m.shapes[b[2].first_shape + 1].type, LSIM_SHAPE_POINT);
  assert_true(m.shapes[b[2].first_shape + 1].pos[0] == 0.5);
  assert_int_equal(b[2].force.npoints, 0); /* no force: zero */
  assert_int_equal(b[2].force.width, 3);
  /* The pill: inertia as given; the force table of width 3. */
  assert_true(b[3].inertia[8] == 0.75);
  assert_int_equal(m.shapes[b[3].first_shape].type, LSIM_SHAPE_CAPSULE);
  assert_true(m.shapes[b[3].first_shape].half[0] == 1.0);
  assert_true(m.shapes[b[3].first_shape].radius == 0.25);
  assert_int_equal(b[3].force.npoints, 2);
  assert_true(b[3].force.value[5] == 5.0);
  /* Kinematic: constant velocities as a one-row schedule of width 3, or the motion table;
     the state's v is its value at t = 0. */
  assert_int_equal(b[4].type, LSIM_BODY_KINEMATIC);
  assert_true(b[4].mass == 0.0);
  assert_int_equal(b[4].kinematic_velocity.width, 3);
  assert_int_equal(b[4].kinematic_velocity.npoints, 1);
  const double v4[3] = {1.0, 0.0, 0.5};
  assert_true(lsim_test_max_abs_diff(b[4].kinematic_velocity.value, v4, 3) == 0.0);
  assert_true(lsim_test_max_abs_diff(s.v + b[4].v_offset, v4, 3) == 0.0);
  assert_int_equal(b[5].kinematic_velocity.npoints, 2);
  assert_true(s.v[b[5].v_offset + 1] == 1.0);
  assert_true(s.q[b[5].q_offset] == 4.0);
  assert_int_equal(b[5].nshapes, 0);
  lsim_state_free(&s);
  lsim_model_free(&m);
}

/* A 3-D scene: orientations both ways, inertia computed and given, the state layout. */
static const char *scene_3d =
    "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.01, \"steps\": 10,\n"
    " \"gravity\": [0, 0, -9.81], \"friction\": {\"directions\": 8},\n"
    " \"contact\": {\"allow_initial_overlap\": true},\n"
    " \"bodies\": [\n"
    "  {\"name\": \"ground\", \"type\": \"static\", \"shapes\": [{\"type\": \"plane\"}]},\n"
    "  {\"name\": \"brick\", \"mass\": 3, \"position\": [1, 2, 3],\n"
    "   \"orientation\": {\"axis\": [0, 0, 2], \"angle\": 1.5707963267948966},\n"
    "   \"velocity\": [1, 0, -1], \"angular_velocity\": [0.5, 0.25, 2],\n"
    "   \"force\": [1, 2, 3], \"torque\": [4, 5, 6],\n"
    "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.5, 0.25, 1]}]},\n"
    "  {\"name\": \"brick2\", \"mass\": 3, \"orientation\": [0.7071067811865476, 0, 0, 0.7071067811865475],\n"
    "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.5, 0.25, 1]}]},\n"
    "  {\"name\": \"ball\", \"density\": 2, \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.5}]},\n"
    "  {\"name\": \"pill\", \"mass\": 2, \"shapes\": [{\"type\": \"capsule\", \"radius\": 0.25, \"half_length\": 0.5}]},\n"
    "  {\"name\": \"diag\", \"mass\": 1, \"inertia\": [1, 2, 2.5], \"orientation\": [2e-7, 0, 0, 1.0000001]},\n"
    "  {\"name\": \"full\", \"mass\": 1, \"inertia\": [[2, 0.5, 0], [0.5, 2, 0], [0, 0, 3]],\n"
    "   \"force\": {\"table\": [[0, 1, 2, 3, 4, 5, 6]]}},\n"
    "  {\"name\": \"arm\", \"type\": \"kinematic\", \"motion\": {\"table\": [[0, 1, 2, 3, 4, 5, 6], [1, 0, 0, 0, 0, 0, 0]]},\n"
    "   \"shapes\": [{\"type\": \"capsule\", \"radius\": 0.1, \"half_length\": 0.5,\n"
    "                \"orientation\": {\"axis\": [1, 0, 0], \"angle\": 1.5707963267948966}}]}\n"
    " ]}\n";

static void test_scene_3d(void **unused) {
  (void)unused;
  LsimModel m;
  LsimState s;
  parse_ok(scene_3d, &m, &s);
  assert_int_equal(m.dimension, 3);
  assert_true(m.gravity[2] == -9.81);
  assert_int_equal(m.friction_directions, 8);
  assert_int_equal(m.nbodies, 8);
  /* 7 coordinates and 6 velocities per moving body. */
  assert_int_equal(m.nq, 7 * 7);
  assert_int_equal(m.nv, 7 * 6);
  const LsimBody *b = m.bodies;
  assert_int_equal(b[0].type, LSIM_BODY_STATIC);
  const double identity[7] = {0, 0, 0, 1, 0, 0, 0};
  assert_true(lsim_test_max_abs_diff(b[0].pose, identity, 7) == 0.0);
  /* Box of half extents (a, b, c) = (0.5, 0.25, 1), m = 3: I = m diag(b^2 + c^2,
     a^2 + c^2, a^2 + b^2) / 3, exactly. */
  const double Ibox[9] = {1.0625, 0, 0, 0, 1.25, 0, 0, 0, 0.3125};
  assert_true(lsim_test_max_abs_diff(b[1].inertia, Ibox, 9) == 0.0);
  /* q = (x, y, z, qw, qx, qy, qz) from position and orientation (axis normalized). */
  const double *q = s.q + b[1].q_offset, *v = s.v + b[1].v_offset;
  const double h = sqrt(0.5);
  const double q1[7] = {1, 2, 3, h, 0, 0, h}, v1[6] = {1, 0, -1, 0.5, 0.25, 2};
  assert_true(lsim_test_max_abs_diff(q, q1, 7) < 1e-15);
  assert_true(lsim_test_max_abs_diff(b[1].pose, q1, 7) < 1e-15);
  assert_true(lsim_test_max_abs_diff(v, v1, 6) == 0.0);
  /* Axis-angle and the same rotation as a quaternion agree. */
  assert_true(lsim_test_max_abs_diff(q + 3, s.q + b[2].q_offset + 3, 4) < 1e-15);
  /* Force and torque: one row of width 6. */
  const double f1[6] = {1, 2, 3, 4, 5, 6};
  assert_int_equal(b[1].force.width, 6);
  assert_int_equal(b[1].force.npoints, 1);
  assert_true(lsim_test_max_abs_diff(b[1].force.value, f1, 6) == 0.0);
  /* Sphere by density: m = rho 4/3 pi r^3, I = 2/5 m r^2. */
  const double pi = 3.14159265358979323846;
  assert_true(fabs(b[3].mass - 2.0 * 4.0 / 3.0 * pi * 0.125) < 1e-15);
  assert_true(fabs(b[3].inertia[0] - 0.4 * b[3].mass * 0.25) < 1e-15);
  assert_true(b[3].inertia[0] == b[3].inertia[4] && b[3].inertia[4] == b[3].inertia[8]);
  /* Capsule: lsim_inertia_capsule's numbers. */
  double Icap[9];
  lsim_inertia_capsule(2.0, 0.25, 0.5, Icap);
  assert_true(lsim_test_max_abs_diff(b[4].inertia, Icap, 9) < 1e-15);
  /* Explicit inertia: principal moments; the quaternion normalized (norm 1 + 1e-7). */
  const double Idiag[9] = {1, 0, 0, 0, 2, 0, 0, 0, 2.5};
  assert_true(lsim_test_max_abs_diff(b[5].inertia, Idiag, 9) == 0.0);
  const double *q5 = s.q + b[5].q_offset + 3;
  assert_true(fabs(q5[0] * q5[0] + q5[3] * q5[3] - 1.0) < 1e-15);
  assert_true(fabs(q5[3] - 1.0) < 1e-12);
  /* A full matrix, kept as given. */
  const double Ifull[9] = {2, 0.5, 0, 0.5, 2, 0, 0, 0, 3};
  assert_true(lsim_test_max_abs_diff(b[6].inertia, Ifull, 9) == 0.0);
  assert_int_equal(b[6].force.npoints, 1);
  /* Kinematic motion: width 6; the initial v is the first row; the capsule's local
     orientation is a quarter turn about x. */
  assert_int_equal(b[7].kinematic_velocity.width, 6);
  const double v7[6] = {1, 2, 3, 4, 5, 6};
  assert_true(lsim_test_max_abs_diff(s.v + b[7].v_offset, v7, 6) == 0.0);
  const LsimShape *arm = &m.shapes[b[7].first_shape];
  assert_true(fabs(arm->rot[0] - h) < 1e-15 && fabs(arm->rot[1] - h) < 1e-15);
  assert_true(arm->half[0] == 0.5 && arm->radius == 0.1);
  /* Shapes are grouped by body, in body order. */
  for (int i = 0; i < m.nbodies; ++i)
    for (int k = 0; k < b[i].nshapes; ++k) assert_int_equal(m.shapes[b[i].first_shape + k].body, i);
  lsim_state_free(&s);
  lsim_model_free(&m);
}

/* Several shapes: masses in proportion to volume, rotated shapes, parallel axes. */
static void test_composite_inertia(void **unused) {
  (void)unused;
  LsimModel m;
  LsimState s;
  /* 3-D dumbbell: two spheres r = 0.5 at x = +-1, total mass 4 (2 each): I_xx = 2 * 2/5 *
     2 * 0.25 = 0.4, I_yy = I_zz = 0.4 + 2 * 2 * 1 = 4.4. A box rotated a quarter turn
     about z swaps its I_xx and I_yy. */
  parse_ok("{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 1, \"bodies\": [\n"
           " {\"name\": \"dumbbell\", \"mass\": 4, \"shapes\": [\n"
           "   {\"type\": \"sphere\", \"radius\": 0.5, \"position\": [1, 0, 0]},\n"
           "   {\"type\": \"sphere\", \"radius\": 0.5, \"position\": [-1, 0, 0]},\n"
           "   {\"type\": \"point\", \"position\": [3, 0, 0]}]},\n"
           " {\"name\": \"turned\", \"mass\": 3, \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.5, 0.25, 1],\n"
           "   \"orientation\": {\"axis\": [0, 0, 1], \"angle\": 1.5707963267948966}}]}]}",
           &m, &s);
  const double Id[9] = {0.4, 0, 0, 0, 4.4, 0, 0, 0, 4.4};
  assert_true(lsim_test_max_abs_diff(m.bodies[0].inertia, Id, 9) < 1e-14);
  const double It[9] = {1.25, 0, 0, 0, 1.0625, 0, 0, 0, 0.3125};
  assert_true(lsim_test_max_abs_diff(m.bodies[1].inertia, It, 9) < 1e-14);
  lsim_state_free(&s);
  lsim_model_free(&m);
  /* 2-D by density: two 2 x 1 rectangles side by side at x = +-1 (area 2 each, mass 1
     each): I_zz = 2 (m (a^2 + b^2) / 3 + m 1^2). */
  parse_ok("{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 1, \"bodies\": [\n"
           " {\"density\": 0.5, \"shapes\": [\n"
           "   {\"type\": \"box\", \"half_extents\": [1, 0.5], \"position\": [1, 0]},\n"
           "   {\"type\": \"box\", \"half_extents\": [1, 0.5], \"position\": [-1, 0]}]}]}",
           &m, &s);
  assert_true(m.bodies[0].mass == 2.0);
  assert_true(fabs(m.bodies[0].inertia[8] - 2.0 * (1.25 / 3.0 + 1.0)) < 1e-15);
  lsim_state_free(&s);
  lsim_model_free(&m);
}

/* "grid": count, names, positions, shapes per copy; a plain body keeps its name. */
static void test_grid(void **unused) {
  (void)unused;
  LsimModel m;
  LsimState s;
  parse_ok("{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 1, \"bodies\": [\n"
           " {\"name\": \"floor\", \"type\": \"static\", \"shapes\": [{\"type\": \"plane\"}]},\n"
           " {\"name\": \"b\", \"mass\": 1, \"position\": [1, 2, 3], \"velocity\": [0, 0, -1],\n"
           "  \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.25}, {\"type\": \"point\"}],\n"
           "  \"grid\": {\"count\": [2, 1, 3], \"spacing\": [0.5, 0, 0.75]}},\n"
           " {\"name\": \"last\", \"mass\": 1, \"inertia\": [1, 1, 1], \"position\": [9, 9, 9]}]}",
           &m, &s);
  assert_int_equal(m.nbodies, 1 + 6 + 1);
  assert_int_equal(m.nshapes, 1 + 12);
  /* Copies in the order i, j, k (k fastest), named NAME_i_j_k. */
  int n = 1;
  for (int i = 0; i < 2; ++i)
    for (int k = 0; k < 3; ++k, ++n) {
      const LsimBody *b = &m.bodies[n];
      char want[48];
      snprintf(want, sizeof want, "b_%d_0_%d", i, k);
      assert_string_equal(b->name, want);
      const double *q = s.q + b->q_offset;
      assert_true(q[0] == 1.0 + 0.5 * i && q[1] == 2.0 && q[2] == 3.0 + 0.75 * k);
      assert_true(q[3] == 1.0);
      assert_true(s.v[b->v_offset + 2] == -1.0);
      assert_int_equal(b->nshapes, 2);
      assert_int_equal(m.shapes[b->first_shape].body, n);
      assert_int_equal(m.shapes[b->first_shape + 1].type, LSIM_SHAPE_POINT);
    }
  assert_string_equal(m.bodies[7].name, "last");
  lsim_state_free(&s);
  lsim_model_free(&m);
  /* 2-D: NAME_i_j; each copy owns its schedules. */
  parse_ok("{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 1, \"bodies\": [\n"
           " {\"mass\": 1, \"inertia\": 1, \"force\": {\"table\": [[0, 1, 2, 3], [1, 4, 5, 6]]},\n"
           "  \"grid\": {\"count\": [3, 2], \"spacing\": [1, 2]}}]}",
           &m, &s);
  assert_int_equal(m.nbodies, 6);
  assert_string_equal(m.bodies[0].name, "body0_0_0");
  assert_string_equal(m.bodies[5].name, "body0_2_1");
  assert_true(s.q[m.bodies[5].q_offset] == 2.0 && s.q[m.bodies[5].q_offset + 1] == 2.0);
  assert_true(m.bodies[0].force.value != m.bodies[1].force.value);
  assert_true(m.bodies[5].force.value[5] == 6.0);
  lsim_state_free(&s);
  lsim_model_free(&m);
}

/* Jitter: the same scene gives the same positions (twice, and as pinned below: splitmix64
 * is the same on every machine), within the amplitude; another seed differs. */
static void test_jitter(void **unused) {
  (void)unused;
  const char *fmt = "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 1, \"bodies\": [\n"
                    " {\"name\": \"s\", \"mass\": 1, \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.1}],\n"
                    "  \"grid\": {\"count\": [4, 3, 2], \"spacing\": [1, 1, 1],\n"
                    "           \"jitter\": {\"amplitude\": 0.125, \"seed\": %d}}}]}";
  char js[512];
  LsimModel m[3];
  LsimState s[3];
  const int seeds[3] = {7, 7, 8};
  for (int r = 0; r < 3; ++r) {
    snprintf(js, sizeof js, fmt, seeds[r]);
    parse_ok(js, &m[r], &s[r]);
    assert_int_equal(m[r].nbodies, 24);
  }
  assert_int_equal(m[0].nq, m[1].nq);
  assert_true(memcmp(s[0].q, s[1].q, (size_t)m[0].nq * sizeof(double)) == 0);
  double differ = 0.0, largest = 0.0;
  for (int i = 0; i < 24; ++i) {
    const LsimBody *b = &m[0].bodies[i];
    const double *q = s[0].q + b->q_offset;
    int ii, jj, kk;
    assert_int_equal(sscanf(b->name, "s_%d_%d_%d", &ii, &jj, &kk), 3);
    const double base[3] = {ii, jj, kk};
    for (int a = 0; a < 3; ++a) {
      assert_true(fabs(q[a] - base[a]) <= 0.125);
      largest = fmax(largest, fabs(q[a] - base[a]));
    }
    differ = fmax(differ, lsim_test_max_abs_diff(q, s[2].q + b->q_offset, 3));
  }
  assert_true(largest > 0.1);  /* it does move them */
  assert_true(differ > 0.01);  /* and the seed matters */
  /* The first copy's offsets, pinned: lsim_rng(7) draws u in [0, 1), offset -a + 2 a u. */
  LsimRng rng = lsim_rng(7);
  for (int a = 0; a < 3; ++a) {
    const double want = lsim_rng_range(&rng, -0.125, 0.125);
    assert_true(s[0].q[m[0].bodies[0].q_offset + a] == want);
  }
  for (int r = 0; r < 3; ++r) {
    lsim_state_free(&s[r]);
    lsim_model_free(&m[r]);
  }
}

/* Every scene in data/ loads (hybrid-model scenes: with their own loader,
 * hybrid/scene.h); the 2-D/3-D examples have the numbers their descriptions promise. */
static void test_all_data(void **unused) {
  (void)unused;
  DIR *dir = opendir("data");
  assert_non_null(dir);
  int count = 0;
  struct dirent *e;
  while ((e = readdir(dir)) != NULL) {
    const size_t n = strlen(e->d_name);
    if (n < 5 || strcmp(e->d_name + n - 5, ".json") != 0) continue;
    if (strcmp(e->d_name, "scene.schema.json") == 0) continue;
    char path[512];
    snprintf(path, sizeof path, "data/%s", e->d_name);
    LsimModel m;
    LsimState s;
    LsimSceneError err;
    char *text = NULL;
    assert_int_equal(lsim_scene_read_text(path, &text, NULL, NULL), 0);
    if (lsim_hybrid_scene_detect(text)) {
      LsimHybridScene hs;
      const int hrc = lsim_hybrid_scene_parse(text, path, &hs, &err);
      free(text);
      assert_int_equal(hrc, 0);
      assert_int_equal(lsim_scene_load(path, &m, &s, NULL, &err), LSIM_INVALID_INPUT);
      assert_string_equal(err.path, "hybrid");
      continue;
    }
    free(text);
    const int rc = lsim_scene_load(path, &m, &s, NULL, &err);
    if (rc) {
      char line[640];
      lsim_scene_error_format(&err, line, sizeof line);
      print_error("%s\n", line);
    }
    assert_int_equal(rc, 0);
    lsim_state_free(&s);
    lsim_model_free(&m);
    ++count;
  }
  closedir(dir);
  assert_true(count >= 13); /* 3 in 1-D, 10 in 2-D/3-D */

  LsimModel m;
  LsimState s;
  LsimSceneError err;
  /* The ball rolls without slip: v = omega r (omega about +y for motion along +x). */
  assert_int_equal(lsim_scene_load("data/ball_roll_3d.json", &m, &s, NULL, &err), 0);
  const LsimBody *ball = &m.bodies[1];
  const double r = m.shapes[ball->first_shape].radius;
  assert_true(s.v[ball->v_offset] == s.v[ball->v_offset + 4] * r);
  assert_true(s.q[ball->q_offset + 2] == r);
  lsim_state_free(&s);
  lsim_model_free(&m);
  /* The stack: 5 unit boxes resting exactly on each other and on the ground. */
  assert_int_equal(lsim_scene_load("data/box_stack_3d.json", &m, &s, NULL, &err), 0);
  assert_int_equal(m.nbodies, 6);
  assert_int_equal(m.steps, 1000);
  for (int i = 1; i <= 5; ++i) assert_true(s.q[m.bodies[i].q_offset + 2] == i - 0.5);
  lsim_state_free(&s);
  lsim_model_free(&m);
  /* The inclines: tan(angle) < mu, the box touching the plane (gap 0 to rounding). */
  const char *inclines[2] = {"data/incline_2d.json", "data/incline_3d.json"};
  for (int d = 0; d < 2; ++d) {
    assert_int_equal(lsim_scene_load(inclines[d], &m, &s, NULL, &err), 0);
    const LsimBody *box = &m.bodies[1];
    const LsimShape *bs = &m.shapes[box->first_shape];
    double p[3], qb[4], pp[3], qp[4], n[3], up[3] = {0, 0, 0};
    lsim_body_pose(&m, &s, 1, p, qb);
    lsim_body_pose(&m, &s, 0, pp, qp);
    up[m.dimension - 1] = 1.0;
    lsim_quat_rotate(n, qp, up);
    const double angle = acos(n[m.dimension - 1]);
    assert_true(tan(angle) < bs->mu);
    assert_true(fabs(lsim_v3_dot(p, n) - bs->half[m.dimension - 1]) < 1e-12);
    assert_true(lsim_test_max_abs_diff(qb, qp, 4) < 1e-15);
    lsim_state_free(&s);
    lsim_model_free(&m);
  }
  /* The piles: N dynamic bodies in a bin of one static body (plane and 4 boxes). */
  const int piles[3] = {10, 100, 1000};
  for (int k = 0; k < 3; ++k) {
    char path[64];
    snprintf(path, sizeof path, "data/pile_%d.json", piles[k]);
    assert_int_equal(lsim_scene_load(path, &m, &s, NULL, &err), 0);
    assert_int_equal(m.nbodies, piles[k] + 1);
    assert_int_equal(m.bodies[0].type, LSIM_BODY_STATIC);
    assert_int_equal(m.bodies[0].nshapes, 5);
    assert_int_equal(m.nv, 6 * piles[k]);
    lsim_state_free(&s);
    lsim_model_free(&m);
  }
}

/* Closes a python3 pipe running a schema check: skipped when python3 or its jsonschema
 * module is missing (exit 127, 77), else the check's exit status must be 0. */
static void finish_schema_check(FILE *py) {
  const int status = pclose(py);
  if (status == -1 || !WIFEXITED(status)) skip();
  if (WEXITSTATUS(status) == 77 || WEXITSTATUS(status) == 127) {
    print_message("python3 jsonschema not available: schema check skipped\n");
    skip();
  }
  assert_int_equal(WEXITSTATUS(status), 0);
}

/* Every scene in data/ follows data/scene.schema.json, checked by Python's jsonschema
 * when this machine has it (skipped otherwise: exit 77). */
static const char *schema_check_py =
    "import glob, json, sys\n"
    "try:\n"
    "    import jsonschema\n"
    "except ImportError:\n"
    "    sys.exit(77)\n"
    "schema = json.load(open('data/scene.schema.json'))\n"
    "jsonschema.Draft202012Validator.check_schema(schema)\n"
    "v = jsonschema.Draft202012Validator(schema)\n"
    "bad = 0\n"
    "for f in sorted(glob.glob('data/*.json')):\n"
    "    if f.endswith('scene.schema.json'):\n"
    "        continue\n"
    "    for e in v.iter_errors(json.load(open(f))):\n"
    "        print('%s: %s: %s' % (f, '/'.join(map(str, e.absolute_path)), e.message[:300]))\n"
    "        bad = 1\n"
    "sys.exit(bad)\n";

static void test_schema(void **unused) {
  (void)unused;
  FILE *py = popen("/usr/bin/python3 - 2>&1", "w");
  if (!py) skip();
  fputs(schema_check_py, py);
  finish_schema_check(py);
}

/* The schema and the reader agree on the 1-D keys: ground_mu on a 2-D/3-D body (of any
 * type) and ground in a 2-D/3-D scene are refused by both (the reader's messages:
 * test_scene_errors); in 1-D both accept them. */
static const char *schema_1d_keys_py =
    "import json, sys\n"
    "try:\n"
    "    import jsonschema\n"
    "except ImportError:\n"
    "    sys.exit(77)\n"
    "v = jsonschema.Draft202012Validator(json.load(open('data/scene.schema.json')))\n"
    "plane = {'type': 'static', 'shapes': [{'type': 'plane', 'mu': 0.5}]}\n"
    "def scene(dim, body, extra={}):\n"
    "    b = [dict(body, mass=1)] if body.get('type', 'dynamic') == 'dynamic' else [body, {'mass': 1}]\n"
    "    return dict({'lcpsim': 1, 'dimension': dim, 'time_step': 0.1, 'steps': 1, 'bodies': b}, **extra)\n"
    "bad = [scene(2, {'ground_mu': 0.5}), scene(3, {'ground_mu': 0.5}),\n"
    "       scene(3, dict(plane, ground_mu=0.5)), scene(2, {}, {'ground': {'mu': 0.5}}),\n"
    "       scene(3, {}, {'ground': {'mu': 0.5}})]\n"
    "good = [scene(1, {'ground_mu': 0.5}), scene(1, {}, {'ground': {'mu': 0.5}}), scene(3, plane)]\n"
    "fails = [i for i, s in enumerate(bad) if v.is_valid(s)] + [10 + i for i, s in enumerate(good) if not v.is_valid(s)]\n"
    "print(fails)\n"
    "sys.exit(1 if fails else 0)\n";

static void test_schema_1d_keys(void **unused) {
  (void)unused;
  FILE *py = popen("/usr/bin/python3 - 2>&1", "w");
  if (!py) skip();
  fputs(schema_1d_keys_py, py);
  finish_schema_check(py);
}

/* The schema and the reader agree beyond the examples: every solver name the reader takes
 * (lsim_solver_names; the schema had "lemke", "pgs" and "siconos:*" only, refusing
 * "newton" and "lemke_sparse") is valid in both, as a string and as an object's name;
 * "event_driven" settings without that integrator, and "couplings" in 2-D/3-D, are refused
 * by both (the reader's messages: bad_input.sh). */
static void test_schema_agrees_reader(void **unused) {
  (void)unused;
  const char *const *names = lsim_solver_names();
  char list[4096] = "";
  for (int i = 0; names[i]; ++i) {
    const size_t n = strlen(list);
    snprintf(list + n, sizeof list - n, "%s'%s'", i ? ", " : "", names[i]);
    char text[512];
    LsimModel m;
    LsimState st;
    LsimSceneError err;
    snprintf(text, sizeof text, "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 1, "
             "\"solver\": {\"name\": \"%s\"}, \"bodies\": [{\"mass\": 1, \"inertia\": [1, 1, 1]}]}", names[i]);
    if (lsim_scene_parse(text, "names", &m, &st, &err) != 0) fail_msg("%s: %s", names[i], err.message);
    lsim_state_free(&st);
    lsim_model_free(&m);
  }
  const char *bad[] = {
      "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 1, \"event_driven\": {\"rtol\": 1e-10}, "
      "\"bodies\": [{\"mass\": 1, \"inertia\": [1, 1, 1]}]}",
      "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 1, \"integrator\": \"time_stepping\", "
      "\"event_driven\": {\"rtol\": 1e-10}, \"bodies\": [{\"mass\": 1, \"inertia\": [1, 1, 1]}]}",
      "{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 1, \"couplings\": [], "
      "\"bodies\": [{\"mass\": 1, \"inertia\": 1}]}",
  };
  const size_t nbad = sizeof bad / sizeof *bad;
  for (size_t k = 0; k < nbad; ++k) {
    LsimModel m;
    LsimState st;
    LsimSceneError err;
    assert_int_equal(lsim_scene_parse(bad[k], "bad", &m, &st, &err), LSIM_INVALID_INPUT);
  }
  FILE *py = popen("/usr/bin/python3 - 2>&1", "w");
  if (!py) skip();
  fprintf(py,
          "import json, sys\n"
          "try:\n"
          "    import jsonschema\n"
          "except ImportError:\n"
          "    sys.exit(77)\n"
          "v = jsonschema.Draft202012Validator(json.load(open('data/scene.schema.json')))\n"
          "base = {'lcpsim': 1, 'dimension': 3, 'time_step': 0.1, 'steps': 1,\n"
          "        'bodies': [{'mass': 1, 'inertia': [1, 1, 1]}]}\n"
          "good = [dict(base, solver=n) for n in [%s]]\n"
          "good += [dict(base, solver={'name': n}) for n in [%s]]\n"
          "good.append(dict(base, integrator='event_driven', event_driven={'rtol': 1e-10}))\n"
          "bad = []\n",
          list, list);
  for (size_t k = 0; k < nbad; ++k) fprintf(py, "bad.append(json.loads('%s'))\n", bad[k]);
  fputs("fails = [str(g.get('solver', 'event_driven')) for g in good if not v.is_valid(g)]\n"
        "fails += ['bad %d' % i for i, b in enumerate(bad) if v.is_valid(b)]\n"
        "print(fails)\n"
        "sys.exit(1 if fails else 0)\n", py);
  finish_schema_check(py);
}

/* ---- initial overlap (docs/scene-format.md, "contact") ---- */

/* A 3-D ball of radius 0.5 m whose center is at height z: inside the ground by 0.5 - z.
 * contact_extra is added to the "contact" object. h = 0.01 s, g = 9.81 m/s^2, no friction. */
static void ball_scene(char *buf, size_t len, double z, const char *contact_extra) {
  snprintf(buf, len,
           "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.01, \"steps\": 100,\n"
           " \"gravity\": [0, 0, -9.81], \"contact\": {%s},\n"
           " \"bodies\": [{\"name\": \"ground\", \"type\": \"static\", \"shapes\": [{\"type\": \"plane\"}]},\n"
           "  {\"name\": \"ball\", \"mass\": 1, \"position\": [0, 0, %.17g],\n"
           "   \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.5}]}]}",
           contact_extra, z);
}

/* Beyond the tolerance (1e-3 m by default) the scene is refused, naming both bodies, the
 * depth and the moving body's position; within it, or when allowed, it loads. 2-D too
 * (a disk in a box's face). */
static void test_initial_overlap_refused(void **unused) {
  (void)unused;
  char text[1024];
  LsimModel m;
  LsimState s;
  LsimSceneError err;
  char line[1024];
  ball_scene(text, sizeof text, 0.2, "");
  assert_int_equal(lsim_scene_parse(text, "ball.json", &m, &s, &err), LSIM_INVALID_INPUT);
  lsim_scene_error_format(&err, line, sizeof line);
  assert_string_equal(err.path, "bodies[1].position");
  assert_int_equal(err.line, 4);
  assert_non_null(strstr(line, "ball.json:4:"));
  assert_non_null(strstr(err.message, "'ball' overlaps 'ground' (bodies[0]) at the start by 0.3 m"));
  assert_non_null(strstr(err.message, "allow_initial_overlap"));
  /* 0.9 mm inside: within the default tolerance; 0.9 mm with a tolerance of 0.5 mm: refused. */
  ball_scene(text, sizeof text, 0.5 - 9e-4, "");
  assert_int_equal(lsim_scene_parse(text, "ball.json", &m, &s, &err), 0);
  lsim_state_free(&s);
  lsim_model_free(&m);
  ball_scene(text, sizeof text, 0.5 - 9e-4, "\"overlap_tolerance\": 5e-4");
  assert_int_equal(lsim_scene_parse(text, "ball.json", &m, &s, &err), LSIM_INVALID_INPUT);
  assert_non_null(strstr(err.message, "by 0.0009 m"));
  /* Allowed: loads, with the flag and the cap in the model. */
  ball_scene(text, sizeof text, 0.2, "\"allow_initial_overlap\": true, \"max_correction_speed\": 0.5");
  assert_int_equal(lsim_scene_parse(text, "ball.json", &m, &s, &err), 0);
  assert_int_equal(m.allow_initial_overlap, 1);
  assert_true(m.max_correction_speed == 0.5);
  lsim_state_free(&s);
  lsim_model_free(&m);
  /* 2-D: two boxes (1 x 1 m), the second 0.25 m into the first along x. */
  const char *two_d =
      "{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.01, \"steps\": 10,\n"
      " \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.5, 0.5]}]},\n"
      "  {\"name\": \"b\", \"mass\": 1, \"position\": [0.75, 0], \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.5, 0.5]}]}]}";
  assert_int_equal(lsim_scene_parse(two_d, "boxes.json", &m, &s, &err), LSIM_INVALID_INPUT);
  assert_non_null(strstr(err.message, "at the start by 0.25 m"));
  assert_non_null(strstr(err.message, "'a'"));
  assert_non_null(strstr(err.message, "'b'"));
  assert_int_equal(m.nbodies, 0);
}

/* Allowed overlap, moved out by position at the cap: the ball 0.3 m inside the ground.
 * Its velocity row asks J v' >= s / h, s = min(2e-4 m, V h) the slop: the upward speed
 * after each step while it overlaps deeper than s is s / h = 0.02 m/s exactly (to Lemke's
 * rounding, 1e-12 relative), whatever the cap V (it was V, and 30 m/s without a cap);
 * stage 6b moves its position up by V h a step on top of h v' = s, so it is out (to s)
 * after ceil((0.3 - s) / (V h + s)) steps: 30 at V = 1, 58 at V = 0.5, 1 without a cap
 * (V = 1e9: the whole depth at once, by position, at no speed). */
static void test_initial_overlap_capped(void **unused) {
  (void)unused;
  const double caps[3] = {1.0, 0.5, 1e9};
  for (int k = 0; k < 3; ++k) {
    char text[1024], extra[128];
    if (k == 0) snprintf(extra, sizeof extra, "\"allow_initial_overlap\": true");
    else snprintf(extra, sizeof extra, "\"allow_initial_overlap\": true, \"max_correction_speed\": %.17g", caps[k]);
    ball_scene(text, sizeof text, 0.2, extra);
    LsimModel m;
    LsimState s;
    LsimSceneError err;
    assert_int_equal(lsim_scene_parse(text, "ball.json", &m, &s, &err), 0);
    assert_true(m.max_correction_speed == caps[k]); /* k = 0: the default, 1 m/s */
    LsimStepper *st = NULL;
    char msg[256];
    assert_int_equal(lsim_stepper_create(&st, &m, "lemke", msg, sizeof msg), 0);
    const int vz = m.bodies[1].v_offset + 2, z = m.bodies[1].q_offset + 2;
    double vmax = 0.0, first = 0.0;
    int out_at = -1;
    for (int i = 0; i < 100; ++i) {
      LsimStepStats ss;
      assert_int_equal(lsim_step(st, &m, &s, &ss), LSIM_SOLVED);
      if (i == 0) first = s.v[vz];
      vmax = fmax(vmax, s.v[vz]);
      if (out_at < 0 && s.q[z] >= 0.5 - 2e-4 - 1e-12) out_at = i + 1;
    }
    const double slop = 2e-4, expect = slop / 0.01;
    assert_true(fabs(first - expect) <= 1e-12 * expect);
    assert_true(vmax <= expect * (1.0 + 1e-12));
    const int want = (int)ceil((0.3 - slop) / (caps[k] * 0.01 + slop) - 1e-9);
    assert_int_equal(out_at, want);
    lsim_stepper_free(st);
    lsim_state_free(&s);
    lsim_model_free(&m);
  }
}

/* Sparse Lemke's settings as scene keys (solver.block_start, lu_solve, lu_refactor): read
 * into the model (absent: 0, the environment's or built-in default), and applied: a run of
 * 40 steps of a falling pile of ten boxes with the keys gives the states and pivot counts
 * of the same scene without them under LSIM_BLOCK_START, LSIM_LU_SOLVE and
 * LSIM_LU_REFACTOR (the environment the keys stand for), bit for bit, and other pivot
 * counts than the defaults (refactoring every 10 pivots with KLU takes other paths at the
 * pile's degenerate vertices). Before, the keys were refused as unknown. */
static void run_pile(const char *solver, double *q, int *pivots, int steps) {
  char text[2048];
  snprintf(text, sizeof text,
           "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.01, \"steps\": %d, "
           "\"gravity\": [0, 0, -9.81], \"solver\": %s, \"bodies\": [{\"name\": \"ground\", "
           "\"type\": \"static\", \"shapes\": [{\"type\": \"plane\", \"mu\": 0.5}]}, {\"name\": \"b\", "
           "\"mass\": 1, \"position\": [0, 0, 0.3], \"orientation\": [0.973216932604, 0.100331642536, 0.200663285073, 0.050165821268], "
           "\"shapes\": [{\"type\": \"box\", \"half_extents\": [0.2, 0.15, 0.1]}], \"grid\": "
           "{\"count\": [2, 1, 5], \"spacing\": [0.45, 1, 0.25]}}]}",
           steps, solver);
  LsimModel m;
  LsimState st;
  LsimSceneError err;
  if (lsim_scene_parse(text, "pile.json", &m, &st, &err)) fail_msg("%s", err.message);
  LsimStepper *s = NULL;
  char e[256];
  assert_int_equal(lsim_stepper_create(&s, &m, NULL, e, sizeof e), 0);
  for (int k = 0; k < m.steps; ++k) {
    LsimStepStats ss;
    assert_int_equal(lsim_step(s, &m, &st, &ss), LSIM_SOLVED);
    pivots[k] = ss.iterations;
  }
  memcpy(q, st.q, (size_t)m.nq * sizeof(double));
  lsim_stepper_free(s);
  lsim_state_free(&st);
  lsim_model_free(&m);
}

static void test_lemke_sparse_keys(void **unused) {
  (void)unused;
  LsimModel m;
  LsimState st;
  LsimSceneError err;
  const char *text =
      "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 1, \"solver\": {\"name\": "
      "\"lemke_sparse\", \"block_start\": 16, \"lu_solve\": \"klu\", \"lu_refactor\": 200}, "
      "\"bodies\": [{\"mass\": 1, \"inertia\": [1, 1, 1]}]}";
  if (lsim_scene_parse(text, "keys.json", &m, &st, &err)) fail_msg("%s", err.message);
  assert_int_equal(m.solver.block_start, 16);
  assert_int_equal(m.solver.lu_solve, LSIM_LU_KLU);
  assert_int_equal(m.solver.lu_refactor, 200);
  lsim_state_free(&st);
  lsim_model_free(&m);
  const char *own = "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 1, "
                    "\"solver\": {\"name\": \"lemke_sparse\", \"lu_solve\": \"own\"}, "
                    "\"bodies\": [{\"mass\": 1, \"inertia\": [1, 1, 1]}]}";
  if (lsim_scene_parse(own, "own.json", &m, &st, &err)) fail_msg("%s", err.message);
  assert_int_equal(m.solver.lu_solve, LSIM_LU_OWN);
  assert_int_equal(m.solver.block_start, 0);
  assert_int_equal(m.solver.lu_refactor, 0);
  lsim_state_free(&st);
  lsim_model_free(&m);

  enum { STEPS = 40 };
  double qk[80] = {0}, qe[80] = {0}, qd[80] = {0};
  int pk[STEPS], pe[STEPS], pd[STEPS];
  run_pile("{\"name\": \"lemke_sparse\", \"block_start\": 16, \"lu_solve\": \"klu\", "
           "\"lu_refactor\": 10}", qk, pk, STEPS);
  run_pile("{\"name\": \"lemke_sparse\"}", qd, pd, STEPS);
  setenv("LSIM_BLOCK_START", "16", 1);
  setenv("LSIM_LU_SOLVE", "klu", 1);
  setenv("LSIM_LU_REFACTOR", "10", 1);
  run_pile("{\"name\": \"lemke_sparse\"}", qe, pe, STEPS);
  unsetenv("LSIM_BLOCK_START");
  unsetenv("LSIM_LU_SOLVE");
  unsetenv("LSIM_LU_REFACTOR");
  int differ = 0, total_k = 0, total_d = 0;
  for (int k = 0; k < STEPS; ++k) {
    assert_int_equal(pk[k], pe[k]);
    differ += pk[k] != pd[k];
    total_k += pk[k], total_d += pd[k];
  }
  assert_memory_equal(qk, qe, sizeof qk);
  print_message("keys: %d pivots in %d steps, as the environment's; the defaults %d (%d steps "
                "differ)\n", total_k, STEPS, total_d, differ);
  assert_true(differ > 0);
}

/* pgs's sweep arithmetic (solver.precision: "double" 1, "float" 2, absent 0) in the model's
 * solver settings, and the setting in effect by lsim_solver_precision_setting, what runs
 * record: the options' value, else LSIM_PGS_PRECISION ("float"; anything else double),
 * else double; -1 for another solver. The key refused with another solver, or another
 * word, at its place. */
static void test_precision_key(void **unused) {
  (void)unused;
  static const char *const head =
      "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 1, \"solver\": ";
  static const char *const tail = ", \"bodies\": [{\"mass\": 1, \"inertia\": [1, 1, 1]}]}";
  static const char *const solvers[] = {"{\"name\": \"pgs\", \"tol\": 0, \"max_iter\": 20, \"precision\": \"float\"}",
                                        "{\"name\": \"pgs\", \"precision\": \"double\"}", "\"pgs\""};
  const int expect[] = {2, 1, 0};
  char text[512];
  LsimModel m;
  LsimState st;
  LsimSceneError err;
  for (int k = 0; k < 3; ++k) {
    snprintf(text, sizeof text, "%s%s%s", head, solvers[k], tail);
    if (lsim_scene_parse(text, "precision.json", &m, &st, &err)) fail_msg("%s", err.message);
    assert_int_equal(m.solver.precision, expect[k]);
    lsim_state_free(&st);
    lsim_model_free(&m);
  }
  snprintf(text, sizeof text, "%s%s%s", head, "{\"name\": \"pgs\", \"precision\": \"single\"}", tail);
  assert_int_equal(lsim_scene_parse(text, "bad.json", &m, &st, &err), LSIM_INVALID_INPUT);
  assert_non_null(strstr(err.message, "must be \"double\" or \"float\""));
  snprintf(text, sizeof text, "%s%s%s", head, "{\"name\": \"lemke\", \"precision\": \"float\"}", tail);
  assert_int_equal(lsim_scene_parse(text, "other.json", &m, &st, &err), LSIM_INVALID_INPUT);
  assert_non_null(strstr(err.message, "is a setting of pgs only"));
  /* "float" where the sweep stays double (a tolerance, or no fixed budget of 1 to 100
     sweeps) would do nothing: refused at the key, the message naming what it needs. */
  static const char *const inert[] = {"{\"name\": \"pgs\", \"precision\": \"float\"}",
                                      "{\"name\": \"pgs\", \"tol\": 1e-6, \"max_iter\": 20, \"precision\": \"float\"}",
                                      "{\"name\": \"pgs\", \"tol\": 0, \"max_iter\": 101, \"precision\": \"float\"}"};
  for (int k = 0; k < 3; ++k) {
    snprintf(text, sizeof text, "%s%s%s", head, inert[k], tail);
    assert_int_equal(lsim_scene_parse(text, "inert.json", &m, &st, &err), LSIM_INVALID_INPUT);
    if (!strstr(err.message, "\"float\" acts at a fixed budget only "
                             "(tol 0 and max_iter 1 to 100)"))
      fail_msg("%s: %s", inert[k], err.message);
    assert_string_equal(err.path, "solver.precision");
  }
  snprintf(text, sizeof text, "%s%s%s", head, "{\"name\": \"pgs\", \"tol\": 0, \"max_iter\": 100, \"precision\": \"float\"}", tail);
  if (lsim_scene_parse(text, "edge.json", &m, &st, &err)) fail_msg("%s", err.message);
  lsim_state_free(&st);
  lsim_model_free(&m);
  /* The setting in effect: single only at a fixed budget of 1 to 100 sweeps (what a run
     file records; the environment's float elsewhere is double). */
  LsimSolverOptions o = lsim_default_solver_options();
  setenv("LSIM_PGS_PRECISION", "float", 1);
  assert_int_equal(lsim_solver_precision_setting("pgs", &o), 0); /* tol 1e-10 */
  o.tol = 0.0, o.max_iter = 101;
  assert_int_equal(lsim_solver_precision_setting("pgs", &o), 0);
  o.max_iter = 0;
  assert_int_equal(lsim_solver_precision_setting("pgs", &o), 0);
  o.max_iter = 100;
  assert_int_equal(lsim_solver_precision_setting("pgs", &o), 1);
  o.max_iter = 20;
  unsetenv("LSIM_PGS_PRECISION");
  assert_int_equal(lsim_solver_precision_setting("pgs", &o), 0);
  assert_int_equal(lsim_solver_precision_setting("lemke", &o), -1);
  setenv("LSIM_PGS_PRECISION", "float", 1);
  assert_int_equal(lsim_solver_precision_setting("pgs", &o), 1);
  o.precision = 1;
  assert_int_equal(lsim_solver_precision_setting("pgs", &o), 0);
  o.precision = 2;
  unsetenv("LSIM_PGS_PRECISION");
  assert_int_equal(lsim_solver_precision_setting("pgs", &o), 1);
  o.precision = 0;
  setenv("LSIM_PGS_PRECISION", "x", 1);
  assert_int_equal(lsim_solver_precision_setting("pgs", &o), 0);
  unsetenv("LSIM_PGS_PRECISION");
  o.precision = 3;
  LsimSolver *front = NULL;
  char e[512];
  assert_int_equal(lsim_solver_create(&front, "pgs", &o, e, sizeof e), LSIM_INVALID_INPUT);
  assert_non_null(strstr(e, "precision 0, 1 or 2"));
}

/* lemke_sparse's principal pivoting budget (solver.principal) in the model's solver settings
 * (absent: 0), and the budget in effect by
 * lsim_solver_principal_setting, what runs and comparisons record: the options' value, else
 * LSIM_PRINCIPAL (an unreadable value as unset), else 0; -1 for a solver without the
 * setting; the front refuses a budget out of range. */
static void test_principal_key(void **unused) {
  (void)unused;
  const char *text =
      "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 1, \"solver\": {\"name\": "
      "\"lemke_sparse\", \"principal\": 400}, \"bodies\": [{\"mass\": 1, \"inertia\": [1, 1, 1]}]}";
  LsimModel m;
  LsimState st;
  LsimSceneError err;
  if (lsim_scene_parse(text, "principal.json", &m, &st, &err)) fail_msg("%s", err.message);
  assert_int_equal(m.solver.principal, 400);
  lsim_state_free(&st);
  lsim_model_free(&m);
  const char *bare =
      "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 1, \"solver\": "
      "\"lemke_sparse\", \"bodies\": [{\"mass\": 1, \"inertia\": [1, 1, 1]}]}";
  if (lsim_scene_parse(bare, "bare.json", &m, &st, &err)) fail_msg("%s", err.message);
  assert_int_equal(m.solver.principal, 0);
  lsim_state_free(&st);
  lsim_model_free(&m);
  LsimSolverOptions o = lsim_default_solver_options();
  unsetenv("LSIM_PRINCIPAL");
  assert_int_equal(lsim_solver_principal_setting("lemke_sparse", &o), 0);
  assert_int_equal(lsim_solver_principal_setting("pgs", &o), -1);
  assert_int_equal(lsim_solver_principal_setting("newton", &o), -1);
  setenv("LSIM_PRINCIPAL", "30", 1);
  assert_int_equal(lsim_solver_principal_setting("lemke_sparse", &o), 30);
  o.principal = 400;
  assert_int_equal(lsim_solver_principal_setting("lemke_sparse", &o), 400);
  o.principal = 0;
  setenv("LSIM_PRINCIPAL", "x", 1);
  assert_int_equal(lsim_solver_principal_setting("lemke_sparse", &o), 0);
  unsetenv("LSIM_PRINCIPAL");
  o.principal = LSIM_PRINCIPAL_MAX + 1;
  LsimSolver *front = NULL;
  char e[512];
  assert_int_equal(lsim_solver_create(&front, "lemke_sparse", &o, e, sizeof e), LSIM_INVALID_INPUT);
  assert_non_null(strstr(e, "0 <= principal <= 1000000"));
}

/* The Forrest-Tomlin setting ("ft") as a scene key: the same pivots and states as the
 * environment's LSIM_LU_SOLVE=ft, and the setting in effect (what a run records and a
 * resumed run must match) read back as ft, under the key and under the environment.
 * Before, the key was refused and a run under LSIM_LU_SOLVE=ft recorded "own", so a
 * resume under "own" (other pivots) passed the check. */
static void test_lemke_sparse_ft_key(void **unused) {
  (void)unused;
  enum { STEPS = 40 };
  double qk[80] = {0}, qe[80] = {0};
  int pk[STEPS], pe[STEPS];
  run_pile("{\"name\": \"lemke_sparse\", \"lu_solve\": \"ft\"}", qk, pk, STEPS);
  LsimSolverOptions o = lsim_default_solver_options();
  int block = -1, lu = -1, refactor = -1;
  o.lu_solve = LSIM_LU_FT;
  assert_int_equal(lsim_lemke_sparse_effective(&o, &block, &lu, &refactor), 0);
  assert_int_equal(lu, LSIM_LU_FT);
  assert_string_equal(lsim_lu_solve_name(lu), "ft");
  setenv("LSIM_LU_SOLVE", "ft", 1);
  run_pile("{\"name\": \"lemke_sparse\"}", qe, pe, STEPS);
  o.lu_solve = LSIM_LU_DEFAULT;
  assert_int_equal(lsim_lemke_sparse_effective(&o, &block, &lu, &refactor), 0);
  assert_int_equal(lu, LSIM_LU_FT);
  /* an explicit key wins over the environment, and turns the updates off */
  o.lu_solve = LSIM_LU_OWN;
  assert_int_equal(lsim_lemke_sparse_effective(&o, &block, &lu, &refactor), 0);
  assert_int_equal(lu, LSIM_LU_OWN);
  unsetenv("LSIM_LU_SOLVE");
  for (int k = 0; k < STEPS; ++k) assert_int_equal(pk[k], pe[k]);
  assert_memory_equal(qk, qe, sizeof qk);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_full_scene),
      cmocka_unit_test(test_lemke_sparse_keys),
      cmocka_unit_test(test_lemke_sparse_ft_key),
      cmocka_unit_test(test_defaults),
      cmocka_unit_test(test_shorthand_and_duration),
      cmocka_unit_test(test_force_table),
      cmocka_unit_test(test_error_format),
      cmocka_unit_test(test_missing_file),
      cmocka_unit_test(test_file_errors),
      cmocka_unit_test(test_examples),
      cmocka_unit_test(test_scene_2d),
      cmocka_unit_test(test_scene_3d),
      cmocka_unit_test(test_composite_inertia),
      cmocka_unit_test(test_grid),
      cmocka_unit_test(test_jitter),
      cmocka_unit_test(test_all_data),
      cmocka_unit_test(test_initial_overlap_refused),
      cmocka_unit_test(test_initial_overlap_capped),
      cmocka_unit_test(test_schema), cmocka_unit_test(test_schema_1d_keys),
      cmocka_unit_test(test_schema_agrees_reader),
      cmocka_unit_test(test_constraints_2d),
      cmocka_unit_test(test_constraints_1d_3d),
      cmocka_unit_test(test_rotation_key),
      cmocka_unit_test(test_principal_key),
      cmocka_unit_test(test_precision_key),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
