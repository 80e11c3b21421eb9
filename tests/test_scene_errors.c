/* test_scene_errors.c: every scene error with its message, JSON path and exact
 * line:column: 1-D scenes, 2-D / 3-D bodies and shapes, tethers and joints (split from
 * test_scene.c, which keeps the parsed numbers, defaults, schedules and example scenes).
 *
 * The expected positions in the error tables were computed independently of the C scanner
 * (by locating a marker substring in each text and counting characters), so they check
 * the scanner, not restate it. Each bad scene leaves no model behind, and
 * lsim_scene_output reports the same place. */
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
#include "lcp/lcp.h"
#include "lcp/random.h"
#include "hybrid/scene.h"
#include "scene/scene.h"
#include "tests/support.h"

typedef struct ErrorCase {
  const char *json;
  int line, column;
  const char *path;
  const char *fragment;
} ErrorCase;

static const ErrorCase error_cases[] = {
    /* 1-D has no overlap tolerance (its check is exact): the key was read and ignored. */
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"contact\": {\"overlap_tolerance\": 0.5},\n \"bodies\": [{}]}",
     2, 14, "contact.overlap_tolerance", "applies to 2-D and 3-D scenes only: 1-D checks overlaps exactly"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"sleep\": {\"time\": 0},\n \"bodies\": [{}]}",
     2, 20, "sleep.time", "must be > 0, got 0"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"sleep\": {\"enable\": true},\n \"bodies\": [{}]}",
     2, 12, "sleep.enable", "unknown key (did you mean 'enabled'?)"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"sleep\": {\"linear_speed\": -1},\n \"bodies\": [{}]}",
     2, 28, "sleep.linear_speed", "must be >= 0, got -1"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"sleep\": {\"enabled\": 1},\n \"bodies\": [{}]}",
     2, 23, "sleep.enabled", "must be true or false, got number"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"sleep\": true,\n \"bodies\": [{}]}",
     2, 11, "sleep", "must be an object, got boolean"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3, \"integrator\": \"event_driven\",\n \"sleep\": {\"enabled\": true},\n \"bodies\": [{}]}",
     2, 23, "sleep.enabled", "applies to the time-stepping integrator only"},
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
    /* the duration and step to their own digits (%g had said "1 s ... of 0.1 s") */
    {"{\"lcpsim\": 1, \"time_step\": 0.1,\n \"duration\": 1.0000001, \"bodies\": [{}]}",
     2, 14, "duration", "1.0000001 s is not a whole number of time steps of 0.1 s"},
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
    /* A compare spec where a name is taken: the options' place named (before: "did you
       mean \"pgs\"?", which drops them). */
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{}], \"solver\": \"pgs[sweeps=20]\"}",
     2, 28, "solver", "options in brackets are lcpsim compare's solver specs; a scene gives them in the solver object"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{}], \"solver\": {\"name\": \"pgs\", \"omega\": 2}}",
     2, 53, "solver.omega", "must be in (0, 2), got 2"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{}], \"solver\": {\"warm_start\": 1}}",
     2, 43, "solver.warm_start", "must be true or false, got number"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{}], \"solver\": {\"threads\": 0}}",
     2, 40, "solver.threads", "must be an integer in [1, 64], got 0"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{}], \"solver\": {\"sparse_limit\": -2}}",
     2, 45, "solver.sparse_limit", "must be an integer >= -1, got -2"},
    /* Sparse Lemke's settings: ranges, the LU's names, and refused with another solver
       (they would do nothing there). */
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{}], \"solver\": {\"name\": \"lemke_sparse\", \"block_start\": 1001}}",
     2, 68, "solver.block_start", "must be an integer in [0, 1000], got 1001"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{}], \"solver\": {\"name\": \"lemke_sparse\", \"lu_solve\": \"KLU\"}}",
     2, 65, "solver.lu_solve", "must be \"umfpack\", \"own\", \"klu\" or \"ft\", got \"KLU\""},
    /* An empty word was taken as the key absent (the environment's setting, or the
       default, then applied): refused as any other word outside the list. */
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{}], \"solver\": {\"name\": \"lemke_sparse\", \"lu_solve\": \"\"}}",
     2, 65, "solver.lu_solve", "must be \"umfpack\", \"own\", \"klu\" or \"ft\", got \"\""},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{}], \"solver\": {\"name\": \"pgs\", \"on_failure\": \"\"}}",
     2, 58, "solver.on_failure", "must be \"fallback\", \"stop\" or \"continue\", got \"\""},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{}], \"solver\": {\"name\": \"lemke_sparse\", \"lu_refactor\": 9}}",
     2, 68, "solver.lu_refactor", "must be an integer in [10, 100000], got 9"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{}], \"solver\": {\"name\": \"pgs\", \"lu_solve\": \"klu\"}}",
     2, 56, "solver.lu_solve", "is a setting of lemke_sparse only; the solver is pgs"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{}], \"solver\": {\"block_start\": 4}}",
     2, 44, "solver.block_start", "is a setting of lemke_sparse only; the solver is lemke"},
    /* lemke_sparse's principal pivoting budget: its range at the value, and refused with
       another solver (the default lemke, a named pgs), where it would do nothing. */
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{}], \"solver\": {\"name\": \"lemke_sparse\", \"principal\": 1000001}}",
     2, 66, "solver.principal", "must be an integer in [0, 1000000], got 1000001"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{}], \"solver\": {\"name\": \"lemke_sparse\", \"principal\": -1}}",
     2, 66, "solver.principal", "must be an integer in [0, 1000000], got -1"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{}], \"solver\": {\"name\": \"lemke_sparse\", \"principal\": 2.5}}",
     2, 66, "solver.principal", "must be an integer"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{}], \"solver\": {\"principal\": 400}}",
     2, 42, "solver.principal", "is a setting of lemke_sparse only; the solver is lemke"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{}], \"solver\": {\"name\": \"pgs\", \"principal\": 400}}",
     2, 57, "solver.principal", "is a setting of lemke_sparse only; the solver is pgs"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{}], \"walls\": [{\"position\": 1}]}",
     2, 28, "walls[0].side", "required key missing"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{}], \"walls\": [{\"position\": 1, \"side\": \"up\"}]}",
     2, 52, "walls[0].side", "must be \"left\" (occupies x <= position) or \"right\""},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{}], \"walls\": [{\"position\": 1, \"side\": \"left\"},\n  {\"position\": -1, \"side\": \"right\"}]}",
     3, 16, "walls[1].position", "wall 'wall0' (x <= 1) overlaps wall 'wall1' (x >= -1)"},
    {"[1, 2]",
     1, 1, "", "a scene is a JSON object {...}, got array"},
    /* Other files given for a scene, named for what they are: an HDF5 file (its signature;
       "3:1: the text contains a NUL byte" before), a Siconos problem file (numbers; "2:1:
       end of file expected near '0'" before). */
    {"\x89HDF\r\n\x1a\n", 1, 1, "", "an HDF5 file, not a scene"},
    {"24\n0\n24\n24\n", 2, 1, "", "starts with a number: a Siconos problem file? lcpsim solve FILE"},
    {"  -1.5 2", 1, 8, "", "starts with a number: a Siconos problem file?"},
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
     1, 42, "steps", "must be an integer in [1, 2147483647], got 3000000000"},
    /* Numbers below the smallest double, which jansson reads as 0 without a word (0 is a
       fixed budget for solver.tol, the default factor 1 for baumgarte): refused at the value,
       as numbers past the largest double are ("real number overflow"). */
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"solver\": {\"name\": \"pgs\", \"tol\": 1e-400},\n \"bodies\": [{}]}",
     2, 35, "solver.tol", "real number underflow near '1e-400' (not 0, but smaller than the smallest double"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3, \"baumgarte\": 2.5E-999, \"bodies\": [{}]}",
     1, 58, "baumgarte", "near '2.5E-999'"},
    /* 1e-331 written out (332 characters): the token is shortened to 40. */
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"force\": {\"table\": [[0, 1], [1, -0.0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001]]}}]}",
     2, 46, "bodies[0].force.table[1][1]", "near '-0.0000000000000000000000000000000000000...' (not 0"},
    /* jansson reports column 0 at the end of a text ending in a newline: column 1. */
    {"{\"lcpsim\": 1,\n", 2, 1, "", "expected near end of file"},
    {"", 1, 1, "", "near end of file"},
};

/* 2-D and 3-D scenes. Generated from (text, marker) pairs: the expected position is
 * where the marker first occurs in the text, counted in characters. */
static const ErrorCase error_cases_nd[] = {
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": [1, 1, 1]}, {\"mass\": 1, \"inertia\": [1, 1, 1]},\n  {\"mass\": 1, \"inertia\": [1, 1, 1], \"position\": [0, 1]}]}",
     3, 49, "bodies[2].position", "needs 3 numbers in 3-D, got 2"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": 1, \"position\": [0, \"y\"]}]}",
     2, 55, "bodies[0].position[1]", "must be a number, got string"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": 1, \"position\": 2}]}",
     2, 51, "bodies[0].position", "must be an array of 2 numbers in 2-D, got number"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": [1, 1, 1]}],\n \"gravity\": [0, -9.81]}",
     3, 13, "gravity", "needs 3 numbers in 3-D, got 2"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": 1}],\n \"gravity\": -9.81}",
     3, 13, "gravity", "must be an array of 2 numbers in 2-D, got number"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [\n  {\"shapes\": [{\"type\": \"sphere\", \"radius\": 1}]}]}",
     3, 3, "bodies[0].mass", "required key missing (\"mass\" (kg) or \"density\" (kg/m^3) of a dynamic body)"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [\n  {\"shapes\": [{\"type\": \"sphere\", \"radius\": 1}]}]}",
     3, 3, "bodies[0].mass", "required key missing (\"mass\" (kg) or \"density\" (kg/m^2) of a dynamic body)"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"density\": 2, \"shapes\": [{\"type\": \"sphere\", \"radius\": 1}]}]}",
     2, 25, "bodies[0].density", "give either \"mass\" or \"density\", not both"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": -2, \"shapes\": [{\"type\": \"sphere\", \"radius\": 1}]}]}",
     2, 22, "bodies[0].mass", "must be > 0, got -2"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"density\": 0, \"shapes\": [{\"type\": \"sphere\", \"radius\": 1}]}]}",
     2, 25, "bodies[0].density", "must be > 0, got 0"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"density\": 1000, \"shapes\": [{\"type\": \"point\"}]}]}",
     2, 25, "bodies[0].density", "the body's shapes have no volume to weigh (points carry none): give \"mass\""},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"density\": 1000}]}",
     2, 25, "bodies[0].density", "the body's shapes have no area to weigh"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [\n  {\"mass\": 1, \"shapes\": [{\"type\": \"point\", \"position\": [0, 0, 1]}]}]}",
     3, 3, "bodies[0].inertia", "required key missing (the body's shapes have no volume to compute it from: points carry no mass)"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": [1, 1, 1], \"shapes\": [{\"type\": \"plane\"}]}]}",
     2, 67, "bodies[0].shapes[0].type", "a plane is unbounded: planes go on static bodies only"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": [1, 1, 1]}, {\"type\": \"kinematic\", \"shapes\": [{\"type\": \"plane\"}]}]}",
     2, 90, "bodies[1].shapes[0].type", "planes go on static bodies only"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"shapes\": [{\"type\": \"cube\", \"radius\": 1}]}]}",
     2, 45, "bodies[0].shapes[0].type", "unknown shape type \"cube\" (known: plane, sphere, box, capsule, point)"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"shapes\": [{\"type\": \"sphre\", \"radius\": 1}]}]}",
     2, 45, "bodies[0].shapes[0].type", "unknown shape type \"sphre\" (did you mean \"sphere\"?)"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"shapes\": [{\"type\": \"disk\", \"radius\": 1}]}]}",
     2, 45, "bodies[0].shapes[0].type", "a disk is a \"sphere\" in 2-D"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"shapes\": [{\"radius\": 1}]}]}",
     2, 36, "bodies[0].shapes[0].type", "required key missing (\"plane\", \"sphere\", \"box\", \"capsule\" or \"point\")"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"shapes\": [{\"type\": \"sphere\", \"radius\": 0}]}]}",
     2, 65, "bodies[0].shapes[0].radius", "must be > 0, got 0"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"shapes\": [{\"type\": \"box\", \"half_extents\": [1, -1, 1]}]}]}",
     2, 72, "bodies[0].shapes[0].half_extents[1]", "must be > 0, got -1"},
    /* a subnormal half extent, as radii and half lengths (a flat box of 1e-320 ran) */
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"shapes\": [{\"type\": \"box\", \"half_extents\": [1, 1, 1e-320]}]}]}",
     2, 75, "bodies[0].shapes[0].half_extents[2]", "must be > 0 and at least 2.22507e-308"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"shapes\": [{\"type\": \"capsule\", \"radius\": 1, \"half_length\": -0.5}]}]}",
     2, 84, "bodies[0].shapes[0].half_length", "must be > 0, got -0.5"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"shapes\": [{\"type\": \"sphere\"}]}]}",
     2, 36, "bodies[0].shapes[0].radius", "required key missing (m, > 0)"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"shapes\": [{\"type\": \"capsule\", \"radius\": 1}]}]}",
     2, 36, "bodies[0].shapes[0].half_length", "required key missing (half the length of the axis segment"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"shapes\": [{\"type\": \"box\", \"half_extents\": [1, 1, 1], \"radius\": 1}]}]}",
     2, 79, "bodies[0].shapes[0].radius", "does not apply to a box"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"shapes\": [{\"type\": \"box\", \"half_extents\": [1, 1, 1]}]}]}",
     2, 68, "bodies[0].shapes[0].half_extents", "needs 2 numbers in 2-D, got 3"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": [1, 1, 1], \"orientation\": [1, 0, 0, 0.01]}]}",
     2, 62, "bodies[0].orientation", "must be a unit quaternion [w, x, y, z]: its norm is 1.00004999875, not within 1e-06 of 1"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": [1, 1, 1], \"orientation\": [1, 0, 0]}]}",
     2, 62, "bodies[0].orientation", "needs 4 numbers [w, x, y, z] (a unit quaternion), got 3"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": [1, 1, 1], \"orientation\": {\"axis\": [0, 0, 0], \"angle\": 1}}]}",
     2, 71, "bodies[0].orientation.axis", "must not be zero"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": [1, 1, 1], \"orientation\": {\"axis\": [0, 0, 1]}}]}",
     2, 62, "bodies[0].orientation.angle", "required key missing (the rotation angle, rad)"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": [1, 1, 1], \"orientation\": {\"axis\": [0, 0, 1], \"angel\": 1}}]}",
     2, 82, "bodies[0].orientation.angel", "unknown key (did you mean 'angle'?)"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": [1, 1, 1], \"orientation\": \"up\"}]}",
     2, 62, "bodies[0].orientation", "must be a unit quaternion [w, x, y, z] or {\"axis\": [x, y, z], \"angle\": rad}, got string"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": 1, \"orientation\": [1, 0, 0, 0]}]}",
     2, 54, "bodies[0].orientation", "must be a number in 2-D (the angle about z, rad), got array"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": [[1, 0, 0], [0, 1, 0], [0, 0, -1]]}]}",
     2, 66, "bodies[0].inertia[2][2]", "must be > 0, got -1"},
    /* Moments of inertia that are subnormal numbers (no finite inverse: the first step
       stopped on a NaN spin), as masses are refused. */
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": [1e-320, 1, 1]}]}",
     2, 37, "bodies[0].inertia[0]", "must be > 0 and at least 2.22507e-308 (the smallest normal number), got 9.99989e-321"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": 1e-320}]}",
     2, 36, "bodies[0].inertia", "must be > 0 and at least 2.22507e-308"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": [[1, 0, 0], [0, 1e-320, 0], [0, 0, 1]]}]}",
     2, 52, "bodies[0].inertia[1][1]", "must be > 0 and at least 2.22507e-308"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": [[1, 2, 0], [2, 1, 0], [0, 0, 1]]}]}",
     2, 36, "bodies[0].inertia", "must be positive definite"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": [[1, 0.5, 0], [0, 1, 0], [0, 0, 1]]}]}",
     2, 51, "bodies[0].inertia[1][0]", "must equal [0][1] (an inertia matrix is symmetric): 0 vs 0.5"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": [1, -1, 1]}]}",
     2, 40, "bodies[0].inertia[1]", "must be > 0, got -1"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": [[1, 0, 0], [0, 1, 0]]}]}",
     2, 36, "bodies[0].inertia", "must be [Ixx, Iyy, Izz] or a 3x3 matrix"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": [[1, 0, 0], [0, 1], [0, 0, 1]]}]}",
     2, 48, "bodies[0].inertia[1]", "needs 3 numbers in 3-D, got 2"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": [1, 1, 1]}]}",
     2, 36, "bodies[0].inertia", "must be a number in 2-D (I_zz, kg m^2), got array"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": 0}]}",
     2, 36, "bodies[0].inertia", "must be > 0, got 0"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": [1, 1, 1]}, {\"type\": \"static\", \"mass\": 1}]}",
     2, 67, "bodies[1].mass", "does not apply to a static body (it never moves)"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": [1, 1, 1]}, {\"type\": \"kinematic\", \"force\": [1, 0, 0]}]}",
     2, 70, "bodies[1].force", "does not apply to a kinematic body (its velocity is prescribed)"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": [1, 1, 1], \"motion\": {\"table\": [[0, 1, 0, 0, 0, 0, 0]]}}]}",
     2, 47, "bodies[0].motion", "applies to kinematic bodies only"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": 1}, {\"type\": \"kinematic\", \"motion\": {\"table\": [[0, 1, 0, 0]]},\n   \"velocity\": [1, 0]}]}",
     3, 4, "bodies[1].velocity", "give either \"motion\" (a table) or constant velocities, not both"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": 1}, {\"type\": \"kinematic\", \"motion\": {\"table\": [[0, 1, 2]]}}]}",
     2, 83, "bodies[1].motion.table[0]", "must be a row [t, value] of 4 numbers, got 3"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": 1}, {\"type\": \"kinematic\", \"motion\": [1, 0, 0]}]}",
     2, 72, "bodies[1].motion", "must be {\"table\": [[t, vx, vy, omega], ...]}, got array"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": [1, 1, 1], \"force\": {\"table\": [[0, 1, 0, 0, 0, 0, 0]]},\n   \"torque\": [0, 0, 1]}]}",
     3, 4, "bodies[0].torque", "give the torque as the last 3 columns of the force table"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": [1, 1, 1], \"force\": {\"table\": [[0, 1, 0, 0]]}}]}",
     2, 67, "bodies[0].force.table[0]", "must be a row [t, value] of 7 numbers, got 4"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": [1, 1, 1], \"force\": [1, 2]}]}",
     2, 56, "bodies[0].force", "needs 3 numbers in 3-D, got 2"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": [1, 1, 1], \"torque\": 2}]}",
     2, 57, "bodies[0].torque", "must be an array of 3 numbers in 3-D, got number"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": 1, \"torque\": [2]}]}",
     2, 49, "bodies[0].torque", "must be a number in 2-D (N m about z), got array"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": 1, \"force\": 3}]}",
     2, 48, "bodies[0].force", "must be [fx, fy] (N) or {\"table\": [[t, fx, fy, torque], ...]}, got number"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": 1, \"angular_velocity\": [1]}]}",
     2, 59, "bodies[0].angular_velocity", "must be a number, got array"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": [1, 1, 1], \"velocity\": {\"table\": [[0, 1, 0, 0]]}}]}",
     2, 59, "bodies[0].velocity", "must be an array of 3 numbers in 3-D, got object"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": 1}],\n \"walls\": [{\"position\": 0, \"side\": \"left\"}]}",
     3, 2, "walls", "applies to 1-D scenes only: in 2-D a wall is a static body with a \"plane\" or \"box\" shape"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": [1, 1, 1]}],\n \"ground\": {\"mu\": 0.5}}",
     3, 2, "ground", "applies to 1-D scenes only: in 3-D the ground is a static body with a \"plane\" shape"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": [1, 1, 1]}],\n \"friction\": {\"directions\": 5}}",
     3, 29, "friction.directions", "must be even, from 4 to 16, in 3-D, got 5"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": [1, 1, 1]}],\n \"friction\": {\"directions\": 18}}",
     3, 29, "friction.directions", "must be even, from 4 to 16, in 3-D, got 18"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": 1}],\n \"friction\": {\"directions\": 4}}",
     3, 29, "friction.directions", "must be 2 in 2-D"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": [1, 1, 1]}],\n \"friction\": {\"direction\": 4}}",
     3, 15, "friction.direction", "unknown key (did you mean 'directions'?)"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{}], \"friction\": {\"directions\": 2}}",
     2, 18, "friction", "applies to 2-D and 3-D scenes only (1-D friction is \"ground\")"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": 1, \"width\": 1}]}",
     2, 39, "bodies[0].width", "applies to 1-D scenes only (2-D/3-D bodies have \"shapes\""},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": [1, 1, 1], \"ground_mu\": 0.5}]}",
     2, 47, "bodies[0].ground_mu", "applies to 1-D scenes only (2-D/3-D bodies have \"shapes\", each with its \"mu\")"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"type\": \"static\", \"ground_mu\": 1e300, \"shapes\": [{\"type\": \"plane\"}]},\n  {\"mass\": 1, \"inertia\": 1}]}",
     2, 32, "bodies[0].ground_mu", "applies to 1-D scenes only (2-D/3-D bodies have \"shapes\", each with its \"mu\")"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"masss\": 1, \"inertia\": 1}]}",
     2, 14, "bodies[0].masss", "unknown key (did you mean 'mass'?)"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"shapes\": [{\"type\": \"sphere\", \"raduis\": 1}]}]}",
     2, 55, "bodies[0].shapes[0].raduis", "unknown key (did you mean 'radius'?)"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"type\": \"rigid\"}]}",
     2, 22, "bodies[0].type", "must be \"dynamic\", \"static\" or \"kinematic\", got \"rigid\""},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"type\": \"static\", \"shapes\": [{\"type\": \"plane\"}]}]}",
     2, 12, "bodies", "at least one dynamic body is required"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"shapes\": [{\"type\": \"sphere\", \"radius\": 1, \"name\": \"s\"},\n  {\"type\": \"point\", \"name\": \"s\"}]}]}",
     3, 29, "bodies[0].shapes[1].name", "shape name 's' is already used by bodies[0].shapes[0]"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"shapes\": [{\"type\": \"sphere\", \"radius\": 1, \"position\": [1, 0]}]}]}",
     2, 35, "bodies[0].shapes", "their center of mass is at [1, 0], not at the body origin"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"shapes\": [{\"type\": \"sphere\", \"radius\": 1, \"position\": [0.5, 0, 0]},\n  {\"type\": \"sphere\", \"radius\": 1, \"position\": [-0.25, 0, 0]}]}]}",
     2, 35, "bodies[0].shapes", "their center of mass is at [0.125, 0, 0]"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"density\": 1e300, \"shapes\": [{\"type\": \"sphere\", \"radius\": 1e10}]}]}",
     2, 25, "bodies[0].density", "gives a mass of inf kg"},
    /* Masses and inertias beyond LSIM_SCENE_MASS_MAX (1e150): products of two overflow past
       1e154 (a sphere of 1e300 kg stopped at step 1 with a NaN spin). */
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1e300, \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.5}]}]}",
     2, 22, "bodies[0].mass", "1e+300 kg is more than 1e+150 kg, the largest mass a scene may give"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": [1e200, 1e200, 1e200], \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.5}]}]}",
     2, 36, "bodies[0].inertia", "has an entry of 1e+200 kg m^2, more than 1e+150"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"density\": 1e152, \"shapes\": [{\"type\": \"sphere\", \"radius\": 1}]}]}",
     2, 25, "bodies[0].density", "gives a mass of 4.18879e+152 kg, more than 1e+150 kg"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1e149, \"shapes\": [{\"type\": \"sphere\", \"radius\": 1000}]}]}",
     2, 22, "bodies[0].mass", "gives an inertia entry of 4e+154 kg m^2 with these shapes, more than 1e+150"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1e151}]}",
     2, 22, "bodies[0].mass", "1e+151 kg is more than 1e+150 kg, the largest mass a scene may give"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": 1, \"grid\": {\"count\": [2, 0], \"spacing\": [1, 1]}}]}",
     2, 61, "bodies[0].grid.count[1]", "must be an integer in [1, 100000], got 0"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": 1, \"grid\": {\"count\": [2, 1.5], \"spacing\": [1, 1]}}]}",
     2, 61, "bodies[0].grid.count[1]", "must be an integer in [1, 100000], got 1.5"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": 1, \"grid\": {\"count\": [1000, 1000], \"spacing\": [1, 1]}}]}",
     2, 57, "bodies[0].grid.count", "makes 1000000 copies; at most 100000"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": 1, \"grid\": {\"count\": [2, 3]}}]}",
     2, 47, "bodies[0].grid.spacing", "required key missing"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": 1, \"grid\": {\"spacing\": [1, 1]}}]}",
     2, 47, "bodies[0].grid.count", "required key missing (copies along x and y: [nx, ny])"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": [1, 1, 1], \"grid\": {\"count\": [2, 1, 1], \"spacing\": [0, 0, 0]}}]}",
     2, 88, "bodies[0].grid.spacing[0]", "must be > 0 (2 copies along this axis), got 0"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": 1, \"grid\": {\"count\": [2, 1], \"spacing\": [1, 1],\n   \"jitter\": {\"amplitude\": -0.1}}}]}",
     3, 28, "bodies[0].grid.jitter.amplitude", "must be >= 0, got -0.1"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": 1, \"grid\": {\"count\": [2, 1], \"spacing\": [1, 1],\n   \"jitter\": {\"seed\": 3}}}]}",
     3, 14, "bodies[0].grid.jitter.amplitude", "required key missing"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": 1, \"grid\": {\"count\": [2, 1], \"spacing\": [1, 1],\n   \"jitter\": {\"amplitude\": 0.1, \"seed\": -1}}}]}",
     3, 41, "bodies[0].grid.jitter.seed", "must be an integer in [0, 2^53], got -1"},
    /* 2^53 + 1 is an integer beyond the range; read as a double it was 2^53 and accepted,
       the same positions as seed 2^53. The message names the integer as written. */
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": 1, \"grid\": {\"count\": [2, 1], \"spacing\": [1, 1],\n   \"jitter\": {\"amplitude\": 0.1, \"seed\": 9007199254740993}}}]}",
     3, 41, "bodies[0].grid.jitter.seed", "must be an integer in [0, 2^53], got 9007199254740993"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": 1, \"grid\": {\"count\": [2, 1], \"spacing\": [1, 1], \"jiter\": {}}}]}",
     2, 84, "bodies[0].grid.jiter", "unknown key (did you mean 'jitter'?)"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": 1, \"grid\": [2, 1]}]}",
     2, 47, "bodies[0].grid", "must be an object, got array"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a_1_0\", \"mass\": 1, \"inertia\": 1},\n  {\"name\": \"a\", \"mass\": 1, \"inertia\": 1, \"position\": [0, 5],\n   \"grid\": {\"count\": [2, 1], \"spacing\": [1, 1]}}]}",
     3, 12, "bodies[1].name", "name 'a_1_0' is already used by bodies[0]"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": 1}, {\"mass\": 1, \"inertia\": 1, \"name\": \"body0\"}]}",
     2, 74, "bodies[1].name", "name 'body0' is already used by bodies[0]"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"body1\", \"mass\": 1, \"inertia\": 1},\n  {\"mass\": 1, \"inertia\": 1}]}",
     3, 3, "bodies[1]", "name 'body1' is already used by bodies[0] (give this one a \"name\")"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\", \"mass\": 1, \"inertia\": 1,\n   \"grid\": {\"count\": [2, 10], \"spacing\": [1, 1]}}]}",
     2, 22, "bodies[0].name", "the grid copies' names (like 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx_1_9') would be longer than 47 bytes"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": 1, \"position\": [1e308, 0],\n   \"grid\": {\"count\": [3, 1], \"spacing\": [1e308, 1]}}]}",
     2, 51, "bodies[0].position", "grid copy 1, 0 lands at a position that is not finite"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": [1, 1, 1]}, {\"type\": \"static\", \"shapes\": [{\"type\": \"plane\", \"mu\": -1}]}]}",
     2, 102, "bodies[1].shapes[0].mu", "must be >= 0, got -1"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"mass\": 1, \"inertia\": [1, 1, 1]}, {\"type\": \"static\", \"shapes\": {\"type\": \"plane\"}}]}",
     2, 77, "bodies[1].shapes", "must be an array, got object"},
};

/* Runs a table of bad inputs: LSIM_INVALID_INPUT, the exact position and path, the
 * message, and nothing left allocated (the model and state come back empty). */
static void check_error_table(const ErrorCase *table, size_t n, const char *label) {
  int failures = 0;
  for (size_t i = 0; i < n; ++i) {
    const ErrorCase *ec = &table[i];
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
      print_error("%s case %zu: rc %d, got \"%s\"; want %d:%d %s: ...%s...\n", label, i, rc,
                  line, ec->line, ec->column, ec->path, ec->fragment);
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

/* A run file given for a scene, behind its head (a 512-byte user block: lcp/h5check.h),
 * named as an HDF5 file as one with the signature at 0 is ("2:1: the text contains a NUL
 * byte" before: the head's zeros). */
static void test_run_file_as_scene(void **unused) {
  (void)unused;
  char text[520];
  memset(text, 0, sizeof text);
  memcpy(text, "lcpsim run file: flushed whole\n", 31);
  memcpy(text + 512, "\x89HDF\r\n\x1a\n", 8);
  LsimModel m;
  LsimState s;
  LsimSceneError err;
  assert_int_equal(lsim_scene_parse_text(text, sizeof text, "run.h5", &m, &s, &err), LSIM_INVALID_INPUT);
  assert_int_equal(err.line, 1);
  assert_non_null(strstr(err.message, "an HDF5 file, not a scene"));
  assert_null(m.bodies);
}

static void test_errors(void **unused) {
  (void)unused;
  check_error_table(error_cases, sizeof error_cases / sizeof error_cases[0], "1-D");
}

static void test_errors_nd(void **unused) {
  (void)unused;
  check_error_table(error_cases_nd, sizeof error_cases_nd / sizeof error_cases_nd[0], "2-D/3-D");
}

/* 1-D start overlaps and names, checked in O(n log n) (scene/bodies_1d.c): on 400 random
 * scenes of up to 12 segments and 3 walls (positions on a 0.5 m grid, so that touching,
 * overlapping and nested segments all occur, with exact dyadic ends), the error names
 * the pair that comparing every pair (i, j < i) in order finds first, walls with walls
 * before anything else; a scene with no such pair loads. */
static void test_overlaps_1d_order(void **unused) {
  (void)unused;
  LsimRng rng = lsim_rng(7);
  int refused = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int nb = 1 + (int)(lsim_rng_uniform(&rng) * 12), nw = (int)(lsim_rng_uniform(&rng) * 4);
    double x[16], w[16];
    int side[16];
    char text[4096], name[16][24], path[16][32];
    int len = snprintf(text, sizeof text, "{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 1, \"bodies\": [");
    for (int k = 0; k < nb + nw; ++k) {
      x[k] = 0.5 * (int)(lsim_rng_uniform(&rng) * 40) - 10.0;
      w[k] = k < nb ? 0.5 * (int)(lsim_rng_uniform(&rng) * 4) : 0.0;
      side[k] = k < nb ? 0 : lsim_rng_uniform(&rng) < 0.5 ? -1 : 1;
      snprintf(name[k], sizeof name[k], k < nb ? "'body%d'" : "'wall%d'", k < nb ? k : k - nb);
      snprintf(path[k], sizeof path[k], k < nb ? "bodies[%d].position" : "walls[%d].position",
               k < nb ? k : k - nb);
      if (k == nb) len += snprintf(text + len, sizeof text - (size_t)len, "], \"walls\": [");
      const char *sep = k == 0 || k == nb ? "" : ", ";
      if (k < nb)
        len += snprintf(text + len, sizeof text - (size_t)len,
                        "%s{\"position\": %g, \"width\": %g}", sep, x[k], w[k]);
      else
        len += snprintf(text + len, sizeof text - (size_t)len,
                        "%s{\"position\": %g, \"side\": \"%s\"}", sep, x[k],
                        side[k] < 0 ? "left" : "right");
    }
    snprintf(text + len, sizeof text - (size_t)len, "]}");
    /* The first pair, every pair in order (the check as it was). */
    int ei = -1, ej = -1;
    for (int pass = 0; pass < 2 && ei < 0; ++pass)
      for (int i = 0; i < nb + nw && ei < 0; ++i)
        for (int j = 0; j < i && ei < 0; ++j) {
          const int walls = (i >= nb) + (j >= nb);
          if ((pass == 0) != (walls == 2)) continue;
          double over;
          if (walls == 2) {
            const int l = side[i] < 0 ? i : j, r = side[i] < 0 ? j : i;
            over = side[i] != side[j] ? x[l] - x[r] : -1.0;
          } else if (walls == 0) {
            over = fmin(x[i] + w[i] / 2, x[j] + w[j] / 2) - fmax(x[i] - w[i] / 2, x[j] - w[j] / 2);
          } else {
            const int wl = i >= nb ? i : j, sg = i >= nb ? j : i;
            over = side[wl] < 0 ? x[wl] - (x[sg] - w[sg] / 2) : (x[sg] + w[sg] / 2) - x[wl];
          }
          if (over > 1e-12) ei = i, ej = j;
        }
    LsimModel m;
    LsimState st;
    LsimSceneError err;
    const int rc = lsim_scene_parse(text, "o.json", &m, &st, &err);
    if (ei < 0) {
      if (rc) print_error("trial %d: %s\n%s: %s\n", trial, text, err.path, err.message);
      assert_int_equal(rc, 0);
      lsim_state_free(&st);
      lsim_model_free(&m);
    } else {
      ++refused;
      /* The segment's place when a segment meets a wall, else the later one's. */
      const int at = (ei >= nb) != (ej >= nb) ? (ei >= nb ? ej : ei) : ei;
      if (rc != LSIM_INVALID_INPUT || strcmp(err.path, path[at]) || !strstr(err.message, name[ei]) ||
          !strstr(err.message, name[ej]))
        print_error("trial %d: %s\nexpected %s (%s, %s), got %s: %s\n", trial, text, path[at],
                    name[ei], name[ej], err.path, err.message);
      assert_int_equal(rc, LSIM_INVALID_INPUT);
      assert_string_equal(err.path, path[at]);
      assert_non_null(strstr(err.message, name[ei]));
      assert_non_null(strstr(err.message, name[ej]));
    }
  }
  assert_true(refused > 100 && refused < 390); /* both outcomes well represented */
}

/* Tethers, joints and "baumgarte": bad inputs in 1-D, 2-D and 3-D (positions computed
 * from a marker substring of each text, independently of the scanner). */
static const ErrorCase error_cases_constraints[] = {
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": 1}, {\"name\": \"g\", \"type\": \"static\"}],\n \"tethers\": [{\"ends\": [{\"body\": \"a\"}, {\"world\": [0, 1]}]}]}",
     3, 14, "tethers[0].length", "required key missing (the tether"},
    /* The exact cone with a tether: refused at the tether (was: exit 2 at step 1, no place) */
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": 1}, {\"name\": \"g\", \"type\": \"static\"}],\n \"friction\": {\"cone\": \"exact\"},\n \"tethers\": [{\"length\": 1, \"ends\": [{\"body\": \"a\"}, {\"world\": [0, 1]}]}]}",
     4, 14, "tethers[0]", "a tether cannot be simulated with the exact friction cone"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": 1}, {\"name\": \"g\", \"type\": \"static\"}],\n \"tethers\": [{\"length\": 0, \"ends\": [{\"body\": \"a\"}, {\"world\": [0, 1]}]}]}",
     3, 25, "tethers[0].length", "must be > 0, got 0"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": 1}, {\"name\": \"g\", \"type\": \"static\"}],\n \"tethers\": [{\"length\": 0.5, \"ends\": [{\"body\": \"a\"}, {\"world\": [0, 1]}]}]}",
     3, 25, "tethers[0].length", "the tether would start overstretched: its ends are 1 m apart, more than its length 0.5"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": 1}, {\"name\": \"g\", \"type\": \"static\"}],\n \"tethers\": [{\"length\": 2, \"ends\": [{\"body\": \"g\"}, {\"body\": \"a\"}]}]}",
     3, 37, "tethers[0].ends[0]", "the first end must be on a dynamic body (swap the ends?)"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": 1}, {\"name\": \"g\", \"type\": \"static\"}],\n \"tethers\": [{\"length\": 2, \"ends\": [{\"world\": [0, 0]}, {\"body\": \"a\"}]}]}",
     3, 37, "tethers[0].ends[0]", "the first end must be on a dynamic body"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": 1}, {\"name\": \"g\", \"type\": \"static\"}],\n \"tethers\": [{\"length\": 2, \"ends\": [{\"body\": \"a\"}, {\"body\": \"c\"}]}]}",
     3, 61, "tethers[0].ends[1].body", "no body named 'c'"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": 1}, {\"name\": \"g\", \"type\": \"static\"}],\n \"tethers\": [{\"length\": 2, \"ends\": [{\"body\": \"a\"}, {\"body\": \"a\", \"point\": [1, 0]}]}]}",
     3, 52, "tethers[0].ends[1]", "both ends are on body 'a'"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": 1}, {\"name\": \"g\", \"type\": \"static\"}],\n \"tethers\": [{\"length\": 2, \"ends\": [{\"body\": \"a\"}, {\"body\": \"g\", \"world\": [0, 1]}]}]}",
     3, 52, "tethers[0].ends[1]", "give exactly one of \"body\", \"world\" and \"path\""},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": 1}, {\"name\": \"g\", \"type\": \"static\"}],\n \"tethers\": [{\"length\": 2, \"ends\": [{\"body\": \"a\"}, {\"point\": [0, 1], \"world\": [0, 1]}]}]}",
     3, 53, "tethers[0].ends[1].point", "applies to body ends only"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": 1}, {\"name\": \"g\", \"type\": \"static\"}],\n \"tethers\": [{\"length\": 2, \"ends\": [{\"bdy\": \"a\"}, {\"world\": [0, 1]}]}]}",
     3, 38, "tethers[0].ends[0].bdy", "unknown key (did you mean 'body'?)"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": 1}, {\"name\": \"g\", \"type\": \"static\"}],\n \"tethers\": [{\"length\": 2, \"ends\": [{\"body\": \"a\"}]}]}",
     3, 36, "tethers[0].ends", "must have two ends [END, END], got 1"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": 1}, {\"name\": \"g\", \"type\": \"static\"}],\n \"tethers\": [{\"length\": 2, \"ends\": [{\"body\": \"a\"}, {\"world\": [0, 1, 2]}]}]}",
     3, 62, "tethers[0].ends[1].world", "needs 2 numbers in 2-D, got 3"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": 1}, {\"name\": \"g\", \"type\": \"static\"}],\n \"tethers\": [{\"length\": 2, \"ends\": [{\"body\": \"a\"}, {\"path\": {\"velocity\": [1, 0]}}]}]}",
     3, 61, "tethers[0].ends[1].path.origin", "required key missing (the anchor"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": 1}, {\"name\": \"g\", \"type\": \"static\"}],\n \"tethers\": [{\"length\": 2, \"ends\": [{\"body\": \"a\"}, {\"path\": {\"origin\": [0, 0], \"velocity\": [1, 0], \"table\": [[0, 1, 0]]}}]}]}",
     3, 80, "tethers[0].ends[1].path.velocity", "give either a \"table\" of velocities or \"velocity\"/\"amplitude\", not both"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": 1}, {\"name\": \"g\", \"type\": \"static\"}],\n \"tethers\": [{\"length\": 2, \"ends\": [{\"body\": \"a\"}, {\"path\": {\"origin\": [0, 0], \"amplitude\": [1, 0]}}]}]}",
     3, 61, "tethers[0].ends[1].path.frequency", "required key missing (the sine"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": 1}, {\"name\": \"g\", \"type\": \"static\"}],\n \"tethers\": [{\"length\": 2, \"ends\": [{\"body\": \"a\"}, {\"path\": {\"origin\": [0, 0]}}]}]}",
     3, 61, "tethers[0].ends[1].path", "a path needs \"velocity\""},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": 1}, {\"name\": \"g\", \"type\": \"static\"}],\n \"tethers\": [{\"length\": 2, \"ends\": [{\"body\": \"a\"}, {\"path\": {\"origin\": [0, 0], \"table\": [[0, 1]]}}]}]}",
     3, 90, "tethers[0].ends[1].path.table[0]", "must be a row [t, value] of 3 numbers, got 2"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": 1}, {\"name\": \"g\", \"type\": \"static\"}],\n \"tethers\": [{\"name\": \"r\", \"length\": 2, \"ends\": [{\"body\": \"a\"}, {\"world\": [0, 1]}]},\n  {\"name\": \"r\", \"length\": 2, \"ends\": [{\"body\": \"a\"}, {\"world\": [0, 1]}]}]}",
     4, 12, "tethers[1].name", "name 'r' is already used by tethers[0]"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": 1}, {\"name\": \"g\", \"type\": \"static\"}],\n \"tethers\": [{\"length\": 2, \"lenght\": 2, \"ends\": [{\"body\": \"a\"}, {\"world\": [0, 1]}]}]}",
     3, 28, "tethers[0].lenght", "unknown key (did you mean 'length'?)"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": 1}, {\"name\": \"g\", \"type\": \"static\"}],\n \"tethers\": {\"length\": 2}}",
     3, 13, "tethers", "must be an array, got object"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": 1}, {\"name\": \"g\", \"type\": \"static\"}],\n \"joints\": [{\"type\": \"ball\", \"ends\": [{\"body\": \"a\"}, {\"world\": [0, 1]}]}]}",
     3, 22, "joints[0].type", "must be \"pin\" or \"rod\", got \"ball\" (a 3-D ball joint is a \"pin\")"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": 1}, {\"name\": \"g\", \"type\": \"static\"}],\n \"joints\": [{\"ends\": [{\"body\": \"a\"}, {\"world\": [0, 1]}]}]}",
     3, 13, "joints[0].type", "required key missing (\"pin\""},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": 1}, {\"name\": \"g\", \"type\": \"static\"}],\n \"joints\": [{\"type\": \"pin\", \"length\": 1, \"ends\": [{\"body\": \"a\"}, {\"world\": [0, 1]}]}]}",
     3, 29, "joints[0].length", "applies to rods only"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": 1}, {\"name\": \"g\", \"type\": \"static\"}],\n \"joints\": [{\"type\": \"pin\", \"collide\": 0, \"ends\": [{\"body\": \"a\"}, {\"world\": [0, 1]}]}]}",
     3, 40, "joints[0].collide", "must be true or false, got number"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": 1}, {\"name\": \"g\", \"type\": \"static\"}],\n \"joints\": [{\"type\": \"pin\", \"collide\": \"no\", \"ends\": [{\"body\": \"a\"}, {\"world\": [0, 1]}]}]}",
     3, 40, "joints[0].collide", "must be true or false, got string"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": 1}, {\"name\": \"g\", \"type\": \"static\"}],\n \"tethers\": [{\"length\": 2, \"collide\": false, \"ends\": [{\"body\": \"a\"}, {\"world\": [0, 1]}]}]}",
     3, 28, "tethers[0].collide", "unknown key"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": 1}, {\"name\": \"g\", \"type\": \"static\"}],\n \"joints\": [{\"type\": \"rod\", \"ends\": [{\"body\": \"a\"}, {\"world\": [0, 0]}]}]}",
     3, 13, "joints[0]", "the rod's ends coincide at the start"},
    /* Ends apart by round-off only (0.1 + 0.1 and 0.3 - 0.1): 2.8e-17 m, no direction. */
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": 1, \"position\": [0.1, 0]}, {\"name\": \"b\", \"mass\": 1, \"inertia\": 1, \"position\": [0.3, 0]}],\n \"joints\": [{\"type\": \"rod\", \"ends\": [{\"body\": \"a\", \"point\": [0.1, 0]}, {\"body\": \"b\", \"point\": [-0.1, 0]}]}]}",
     3, 13, "joints[0]", "the rod's ends coincide at the start (2.78e-17 m apart, below 1e-09 m"},
    /* A given length does not give coincident ends a direction. */
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": 1}, {\"name\": \"g\", \"type\": \"static\"}],\n \"joints\": [{\"type\": \"rod\", \"length\": 0.5, \"ends\": [{\"body\": \"a\"}, {\"world\": [0, 0]}]}]}",
     3, 13, "joints[0]", "the rod's ends coincide at the start (0 m apart"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": 1}, {\"name\": \"g\", \"type\": \"static\"}],\n \"joints\": [{\"type\": \"rod\", \"length\": 1e-15, \"ends\": [{\"body\": \"a\"}, {\"world\": [0, 1]}]}]}",
     3, 39, "joints[0].length", "1e-15 m is below 1e-09 m: a rod that short has no direction to hold"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": 1}, {\"name\": \"g\", \"type\": \"static\"}],\n \"joints\": [{\"type\": \"rod\", \"length\": -1, \"ends\": [{\"body\": \"a\"}, {\"world\": [0, 0]}]}]}",
     3, 39, "joints[0].length", "must be > 0, got -1"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": 1}, {\"name\": \"g\", \"type\": \"static\"}],\n \"joints\": [{\"type\": \"rod\", \"ends\": [{\"body\": \"g\"}, {\"world\": [0, 1]}]}]}",
     3, 38, "joints[0].ends[0]", "the first end must be on a dynamic body"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": 1}, {\"name\": \"g\", \"type\": \"static\"}],\n \"baumgarte\": 1.5}",
     3, 15, "baumgarte", "must be in [0, 1] (0, the default: c = 1, the whole error in one step), got 1.5"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": 1}],\n \"baumgarte_time\": 0.05}",
     3, 20, "baumgarte_time", "must be >= time_step 0.1 (c = time_step / baumgarte_time <= 1), got 0.05"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": 1}],\n \"baumgarte_time\": -1}",
     3, 20, "baumgarte_time", "must be >= time_step 0.1"},
    {"{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": 1}],\n \"baumgarte\": 0.5, \"baumgarte_time\": 1}",
     3, 38, "baumgarte_time", "give \"baumgarte\" or \"baumgarte_time\", not both"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\"}], \"walls\": [{\"name\": \"w\", \"position\": -5, \"side\": \"left\"}],\n \"tethers\": [{\"length\": 4, \"ends\": [{\"body\": \"a\"}, {\"body\": \"w\"}]}]}",
     3, 25, "tethers[0].length", "its ends are 5 m apart"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\"}], \"walls\": [{\"name\": \"w\", \"position\": -5, \"side\": \"left\"}],\n \"tethers\": [{\"length\": 6, \"ends\": [{\"body\": \"a\"}, {\"world\": [1, 2]}]}]}",
     3, 62, "tethers[0].ends[1].world", "needs 1 numbers in 1-D, got 2"},
    {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\"}], \"walls\": [{\"name\": \"w\", \"position\": -5, \"side\": \"left\"}],\n \"joints\": [{\"type\": \"pin\", \"ends\": [{\"body\": \"w\"}, {\"body\": \"a\"}]}]}",
     3, 38, "joints[0].ends[0]", "the first end must be on a dynamic body (swap the ends?)"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": [1, 1, 1]}, {\"name\": \"b\", \"mass\": 1, \"inertia\": [1, 1, 1], \"position\": [0, 0, 1]}],\n \"joints\": [{\"type\": \"pin\", \"ends\": [{\"body\": \"a\", \"point\": [0, 0]}, {\"body\": \"b\"}]}]}",
     3, 61, "joints[0].ends[0].point", "needs 3 numbers in 3-D, got 2"},
    {"{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.1, \"steps\": 3,\n \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": [1, 1, 1]}, {\"name\": \"b\", \"mass\": 1, \"inertia\": [1, 1, 1], \"position\": [0, 0, 1]}],\n \"tethers\": [{\"length\": 0.75, \"ends\": [{\"body\": \"a\", \"point\": [0, 0, -0.5]}, {\"body\": \"b\"}]}]}",
     3, 25, "tethers[0].length", "its ends are 1.5 m apart"},

};

static void test_errors_constraints(void **unused) {
  (void)unused;
  check_error_table(error_cases_constraints,
                    sizeof error_cases_constraints / sizeof error_cases_constraints[0],
                    "constraints");
}

/* Tiny numbers: one that reads as 0 but is not (1e-400) is refused in hybrid scenes too, at
 * its value; what a double holds (the smallest subnormal 5e-324, exactly 4.94e-324) and
 * zeros however written (-0.0, 0e-999, 0.000) are read as they are. */
static void test_tiny_numbers(void **unused) {
  (void)unused;
  const char *hybrid = "{\"lcpsim\": 1,\n \"hybrid\": {\"model\": \"bouncing_mass\", \"final_time\": 1,"
                       " \"atol\": 1e-500}}";
  LsimHybridScene hs;
  LsimSceneError err;
  assert_int_equal(lsim_hybrid_scene_parse(hybrid, "h.json", &hs, &err), LSIM_INVALID_INPUT);
  /* Line 2, column of '1e-500' (counted: ' "hybrid": {"model": "bouncing_mass", "final_time": 1, "atol": '). */
  assert_int_equal(err.line, 2);
  assert_int_equal(err.column, (int)strlen(" \"hybrid\": {\"model\": \"bouncing_mass\", \"final_time\": 1, \"atol\": ") + 1);
  assert_string_equal(err.path, "hybrid.atol");
  assert_non_null(strstr(err.message, "real number underflow near '1e-500'"));

  const char *fine = "{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3, \"bodies\": [{\"name\": \"1e-999\","
                     " \"position\": -0.0, \"velocity\": 5e-324, \"force\": 0e-999, \"width\": 0.000}]}";
  LsimModel m;
  LsimState st;
  assert_int_equal(lsim_scene_parse(fine, "x.json", &m, &st, &err), 0);
  assert_true(st.v[0] > 0.0 && st.v[0] == 4.9406564584124654e-324); /* the subnormal kept */
  assert_true(st.q[0] == 0.0 && signbit(st.q[0]));
  lsim_state_free(&st);
  lsim_model_free(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_errors_nd),
      cmocka_unit_test(test_overlaps_1d_order),
      cmocka_unit_test(test_errors_constraints),
      cmocka_unit_test(test_tiny_numbers),
      cmocka_unit_test(test_run_file_as_scene),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
