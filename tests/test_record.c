/* test_record.c: the HDF5 recorder, read back with the HDF5 C API.
 *
 * The sample run: a hand-made 1-D model with two dynamic bodies, three steps with known
 * states, contacts and solver statistics. All values are dyadic rationals, so every
 * number (energies included) is exact and compared with ==.
 *
 * The 2-D and 3-D samples are in test_record_nd.c.
 *
 * The constraint sample: a 2-D world with two tethers and two joints (a pin and a rod),
 * two steps, the rows built by lsim_constraint_rows with impulses set by hand.
 *
 * `test_record --write-sample PATH` (and --write-sample-constraints; test_record_nd
 * --write-sample-2d, --write-sample-3d) writes a
 * sample file and exits; tests/e2e/record_readers.sh uses them to check the Python and
 * Octave readers against the same numbers.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>

#include "contact/constraints.h"
#include "contact/contact.h"
#include "contact/step.h"
#include "contact/world.h"
#include "lcp/h5check.h"
#include "lcp/lcp.h"
#include "scene/record.h"

#define BIG_ID UINT64_C(0x8000000000000001) /* high bit set: checks unsigned storage */

static const char *SCENE_TEXT = "{\n  \"bodies\": [\"left\", \"right-block\"]\n}\n";

/* The sample model: "left" (mass 2, width 0.5) and "right-block" (mass 3, width 1), both
 * dynamic, gravity -1 along the line, h = 0.25, 3 steps. */
static void sample_model(LsimModel *m, LsimState *s) {
  *m = lsim_default_model();
  m->gravity[0] = -1.0;
  m->time_step = 0.25;
  m->steps = 3;
  m->contact_margin = 0.125;
  m->solver.tol = 1e-9;
  m->solver.max_iter = 100;
  LsimBody b = lsim_default_body();
  strcpy(b.name, "left");
  b.mass = 2.0;
  b.width = 0.5;
  assert_int_equal(lsim_model_add_body(m, &b), 0);
  b = lsim_default_body();
  strcpy(b.name, "right-block");
  b.mass = 3.0;
  b.width = 1.0;
  assert_int_equal(lsim_model_add_body(m, &b), 1);
  assert_int_equal(lsim_model_finalize(m), 0);
  assert_int_equal(lsim_state_init(s, m), 0);
  s->q[0] = 0.0; s->q[1] = 2.0;
  s->v[0] = 1.0; s->v[1] = -1.0;
}

/* Expected rows. State k = 0..3. */
static const double T[4] = {0, 0.25, 0.5, 0.75};
static const double Q[4][2] = {{0, 2}, {0.25, 1.75}, {0.5, 1.5}, {0.625, 1.375}};
static const double V[4][2] = {{1, -1}, {1, -1}, {0.5, -0.5}, {0.5, -0.5}};
/* Kinetic 1/2 (2 v0^2 + 3 v1^2); potential -m g x = 2 q0 + 3 q1 (g = -1). */
static const double KE[4] = {2.5, 2.5, 0.625, 0.625};
static const double PE[4] = {6, 5.75, 5.5, 5.375};

/* Solver rows, steps 1..3; step 2's chosen solver broke down and the fallback's rescaled
 * Lemke recovered it (first_status, source); step 3 failed and the energy guard refused its
 * smallest residual (0.125 J beyond the slack) for PGS from zero impulses; steps 2 and 3
 * were detected and solved again once and twice for contacts the admission bound left out
 * (contact/step_admit.c). */
static const LsimStepStats STATS[3] = {
    {0, 0, 0, 0, 0, 0.0, 0.0, 0.25e-6, 0.0, 0, LSIM_SOURCE_SOLVER, 0, 0, 0, 0.0, 0, 0, 0},
    {0, 3, 5, 2, 1, 0x1p-40, 0x1p-39, 0.5e-6, 0x1p-42, LSIM_BREAKDOWN, LSIM_SOURCE_LEMKE_SCALED, 0,
     LSIM_PGS_SIMD_SSE2, 0, 0.0, 3, 1, 0},
    {LSIM_MAX_ITERATIONS, 100, 2, 1, 1, 0.5, 0.25, 0.75e-6, 0.0, LSIM_MAX_ITERATIONS,
     LSIM_SOURCE_PGS_COLD, 0, LSIM_PGS_SIMD_AVX2, 2, 0.125, 2, 2, 1},
};

/* Fills set with step k's contacts (k = 1..3): none, two, one. */
static void sample_contacts(LsimContactSet *set, int k) {
  lsim_contacts_clear(set);
  if (k == 2) {
    LsimContact *c = lsim_contacts_add(set, 1);
    assert_non_null(c);
    c->id = BIG_ID;
    c->kind = LSIM_CONTACT_NORMAL;
    c->body[0] = 0; c->body[1] = 1;
    c->gap = -0.125;
    c->point[0] = 0.75;
    c->normal[0] = -1;
    c->normal_impulse = 1.5;
    c = lsim_contacts_add(set, 2);
    assert_non_null(c);
    c->id = 42;
    c->kind = LSIM_CONTACT_FIXED_NORMAL;
    c->body[0] = 1; c->body[1] = -1;
    c->gap = 0;
    c->point[0] = 1.5;
    c->normal[1] = 1;
    c->normal_impulse = 0.25;
    c->friction_impulse[0] = -0.125;
    c->slip_speed = 0.5;
  } else if (k == 3) {
    LsimContact *c = lsim_contacts_add(set, 1);
    assert_non_null(c);
    c->id = BIG_ID;
    c->kind = LSIM_CONTACT_NORMAL;
    c->body[0] = 0; c->body[1] = 1;
    c->gap = 0.0625;
    c->point[0] = 0.75;
    c->normal[0] = -1;
  }
}

/* Records the sample run to path; returns lsim_record_close's status. */
static int write_sample(const char *path, int keep) {
  LsimModel m;
  LsimState s;
  sample_model(&m, &s);
  LsimRecord *r = NULL;
  char err[512] = "";
  int rc = lsim_record_open(&r, path, &m, &s, SCENE_TEXT, "pgs", err, sizeof err);
  if (rc != 0) fprintf(stderr, "%s\n", err);
  assert_int_equal(rc, 0);
  assert_non_null(r);
  LsimContactSet set;
  memset(&set, 0, sizeof set);
  for (int k = 1; k <= 3; ++k) {
    s.time = T[k];
    s.step = k;
    memcpy(s.q, Q[k], sizeof Q[k]);
    memcpy(s.v, V[k], sizeof V[k]);
    sample_contacts(&set, k);
    assert_int_equal(lsim_record_step(r, &m, &s, &set, &STATS[k - 1]), 0);
  }
  rc = lsim_record_close(r, keep, err, sizeof err);
  if (rc != 0) fprintf(stderr, "%s\n", err);
  lsim_contacts_free(&set);
  lsim_state_free(&s);
  lsim_model_free(&m);
  return rc;
}

#include "tests/record_read.h"

/* The sample file, read back: every dataset's shape and values. */
static void check_sample(const char *path) {
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  assert_true(f >= 0);
  char s[16][256];

  /* Header. */
  assert_int_equal(read_scalar_i(f, "/format_version"), 3);
  read_strings(f, "/lcpsim_version", -1, s);
  assert_string_equal(s[0], LSIM_VERSION);
  read_strings(f, "/scene_text", -1, s);
  assert_string_equal(s[0], SCENE_TEXT);

  /* Parameters. */
  assert_int_equal(read_scalar_i(f, "/parameters/dimension"), 1);
  assert_true(read_scalar_d(f, "/parameters/time_step") == 0.25);
  assert_int_equal(read_scalar_i(f, "/parameters/steps"), 3);
  assert_int_equal(read_scalar_i(f, "/parameters/nbodies"), 2);
  assert_int_equal(read_scalar_i(f, "/parameters/nq"), 2);
  assert_int_equal(read_scalar_i(f, "/parameters/nv"), 2);
  double g[3];
  read_as(f, "/parameters/gravity", H5T_NATIVE_DOUBLE, 1, 3, 0, g);
  assert_true(g[0] == -1 && g[1] == 0 && g[2] == 0);
  assert_true(read_scalar_d(f, "/parameters/ground_normal_gravity") == 9.81);
  assert_true(read_scalar_d(f, "/parameters/contact_margin") == 0.125);
  assert_int_equal(read_scalar_i(f, "/parameters/friction_directions"), 2);
  assert_true(read_scalar_d(f, "/parameters/solver_tol") == 1e-9);
  assert_int_equal(read_scalar_i(f, "/parameters/solver_max_iter"), 100);
  assert_true(read_scalar_d(f, "/parameters/solver_omega") == 1.0);
  assert_int_equal(read_scalar_i(f, "/parameters/solver_warm_start"), 1);
  assert_int_equal(read_scalar_i(f, "/parameters/solver_threads"), 1);
  assert_int_equal(read_scalar_i(f, "/parameters/solver_sparse_limit"), 0);
  read_strings(f, "/parameters/solver_name", -1, s);
  assert_string_equal(s[0], "pgs");

  /* Bodies. */
  read_strings(f, "/bodies/name", 2, s);
  assert_string_equal(s[0], "left");
  assert_string_equal(s[1], "right-block");
  int iv[8];
  double dv[8];
  read_as(f, "/bodies/type", H5T_NATIVE_INT, 1, 2, 0, iv);
  assert_true(iv[0] == 0 && iv[1] == 0);
  read_as(f, "/bodies/shape", H5T_NATIVE_INT, 1, 2, 0, iv);
  assert_true(iv[0] == 0 && iv[1] == 0);
  read_as(f, "/bodies/mass", H5T_NATIVE_DOUBLE, 1, 2, 0, dv);
  assert_true(dv[0] == 2 && dv[1] == 3);
  read_as(f, "/bodies/width", H5T_NATIVE_DOUBLE, 1, 2, 0, dv);
  assert_true(dv[0] == 0.5 && dv[1] == 1);
  read_as(f, "/bodies/ground_mu", H5T_NATIVE_DOUBLE, 1, 2, 0, dv);
  assert_true(dv[0] == 0 && dv[1] == 0);
  const char *offs[4] = {"/bodies/q_offset", "/bodies/v_offset", "/bodies/nq", "/bodies/nv"};
  const int expect[4][2] = {{0, 1}, {0, 1}, {1, 1}, {1, 1}};
  for (int k = 0; k < 4; ++k) {
    read_as(f, offs[k], H5T_NATIVE_INT, 1, 2, 0, iv);
    assert_int_equal(iv[0], expect[k][0]);
    assert_int_equal(iv[1], expect[k][1]);
  }

  read_as(f, "/bodies/side", H5T_NATIVE_INT, 1, 2, 0, iv);
  assert_true(iv[0] == -1 && iv[1] == -1);
  read_as(f, "/bodies/first_shape", H5T_NATIVE_INT, 1, 2, 0, iv);
  assert_true(iv[0] == 0 && iv[1] == 0);
  read_as(f, "/bodies/nshapes", H5T_NATIVE_INT, 1, 2, 0, iv);
  assert_true(iv[0] == 0 && iv[1] == 0);
  /* 1-D pose: the initial x of moving bodies, other columns 0; inertia unused (0). */
  double pose[2][7], inertia[2][3][3];
  read_as(f, "/bodies/pose", H5T_NATIVE_DOUBLE, 2, 2, 7, pose);
  assert_true(pose[0][0] == 0 && pose[1][0] == 2 && pose[1][1] == 0 && pose[1][3] == 0);
  read_as(f, "/bodies/inertia", H5T_NATIVE_DOUBLE, 3, 2, 3, inertia);
  assert_true(inertia[1][2][2] == 0 && inertia[0][0][0] == 0);

  /* No shapes in 1-D: every /shapes dataset has zero rows. */
  hid_t d0 = open_checked(f, "/shapes/position", 2, 0, 3);
  H5Dclose(d0);
  d0 = open_checked(f, "/shapes/orientation", 2, 0, 4);
  H5Dclose(d0);
  d0 = open_checked(f, "/shapes/type", 1, 0, 0);
  H5Dclose(d0);
  d0 = open_checked(f, "/shapes/name", 1, 0, 0);
  H5Dclose(d0);
  read_strings(f, "/parameters/q_components", 1, s);
  assert_string_equal(s[0], "x");
  read_strings(f, "/parameters/v_components", 1, s);
  assert_string_equal(s[0], "vx");
  read_strings(f, "/parameters/body_type_legend", 3, s);
  assert_string_equal(s[2], "2 kinematic");
  read_strings(f, "/parameters/shape_type_legend", 7, s);
  assert_string_equal(s[0], "0 segment");
  assert_string_equal(s[5], "5 capsule");

  /* State rows. */
  double t[4], q[4][2], v[4][2], ke[4], pe[4];
  read_as(f, "/time", H5T_NATIVE_DOUBLE, 1, 4, 0, t);
  read_as(f, "/q", H5T_NATIVE_DOUBLE, 2, 4, 2, q);
  read_as(f, "/v", H5T_NATIVE_DOUBLE, 2, 4, 2, v);
  read_as(f, "/energy/kinetic", H5T_NATIVE_DOUBLE, 1, 4, 0, ke);
  read_as(f, "/energy/potential", H5T_NATIVE_DOUBLE, 1, 4, 0, pe);
  for (int k = 0; k < 4; ++k) {
    assert_true(t[k] == T[k]);
    assert_true(q[k][0] == Q[k][0] && q[k][1] == Q[k][1]);
    assert_true(v[k][0] == V[k][0] && v[k][1] == V[k][1]);
    assert_true(ke[k] == KE[k]);
    assert_true(pe[k] == PE[k]);
  }

  /* Contacts: offsets [0 0 0 2 3], three rows. */
  long long off[5];
  read_as(f, "/contacts/offset", H5T_NATIVE_LLONG, 1, 5, 0, off);
  const long long eoff[5] = {0, 0, 0, 2, 3};
  for (int k = 0; k < 5; ++k) assert_int_equal(off[k], eoff[k]);
  hid_t d = open_checked(f, "/contacts/id", 1, 3, 0);
  hid_t ft = H5Dget_type(d);
  assert_true(H5Tequal(ft, H5T_STD_U64LE) > 0);
  H5Tclose(ft);
  H5Dclose(d);
  uint64_t id[3];
  read_as(f, "/contacts/id", H5T_NATIVE_UINT64, 1, 3, 0, id);
  assert_true(id[0] == BIG_ID && id[1] == 42 && id[2] == BIG_ID);
  int ci[3];
  read_as(f, "/contacts/step", H5T_NATIVE_INT, 1, 3, 0, ci);
  assert_true(ci[0] == 2 && ci[1] == 2 && ci[2] == 3);
  read_as(f, "/contacts/kind", H5T_NATIVE_INT, 1, 3, 0, ci);
  assert_true(ci[0] == 0 && ci[1] == 1 && ci[2] == 0);
  read_as(f, "/contacts/body_a", H5T_NATIVE_INT, 1, 3, 0, ci);
  assert_true(ci[0] == 0 && ci[1] == 1 && ci[2] == 0);
  read_as(f, "/contacts/body_b", H5T_NATIVE_INT, 1, 3, 0, ci);
  assert_true(ci[0] == 1 && ci[1] == -1 && ci[2] == 1);
  double cd[3], c3[3][3];
  read_as(f, "/contacts/gap", H5T_NATIVE_DOUBLE, 1, 3, 0, cd);
  assert_true(cd[0] == -0.125 && cd[1] == 0 && cd[2] == 0.0625);
  read_as(f, "/contacts/normal_impulse", H5T_NATIVE_DOUBLE, 1, 3, 0, cd);
  assert_true(cd[0] == 1.5 && cd[1] == 0.25 && cd[2] == 0);
  read_as(f, "/contacts/slip_speed", H5T_NATIVE_DOUBLE, 1, 3, 0, cd);
  assert_true(cd[0] == 0 && cd[1] == 0.5 && cd[2] == 0);
  read_as(f, "/contacts/point", H5T_NATIVE_DOUBLE, 2, 3, 3, c3);
  assert_true(c3[0][0] == 0.75 && c3[1][0] == 1.5 && c3[2][0] == 0.75);
  assert_true(c3[0][1] == 0 && c3[1][2] == 0);
  read_as(f, "/contacts/normal", H5T_NATIVE_DOUBLE, 2, 3, 3, c3);
  assert_true(c3[0][0] == -1 && c3[1][0] == 0 && c3[1][1] == 1 && c3[2][0] == -1);
  read_as(f, "/contacts/friction_impulse", H5T_NATIVE_DOUBLE, 2, 3, 3, c3);
  assert_true(c3[0][0] == 0 && c3[1][0] == -0.125 && c3[2][0] == 0 && c3[1][1] == 0);

  /* Solver rows. */
  int si[3];
  double sd[3];
  read_as(f, "/solver/status", H5T_NATIVE_INT, 1, 3, 0, si);
  assert_true(si[0] == 0 && si[1] == 0 && si[2] == -1);
  read_as(f, "/solver/iterations", H5T_NATIVE_INT, 1, 3, 0, si);
  assert_true(si[0] == 0 && si[1] == 3 && si[2] == 100);
  read_as(f, "/solver/lcp_size", H5T_NATIVE_INT, 1, 3, 0, si);
  assert_true(si[0] == 0 && si[1] == 5 && si[2] == 2);
  read_as(f, "/solver/ncontacts", H5T_NATIVE_INT, 1, 3, 0, si);
  assert_true(si[0] == 0 && si[1] == 2 && si[2] == 1);
  read_as(f, "/solver/warm_started", H5T_NATIVE_INT, 1, 3, 0, si);
  assert_true(si[0] == 0 && si[1] == 1 && si[2] == 1);
  read_as(f, "/solver/residual", H5T_NATIVE_DOUBLE, 1, 3, 0, sd);
  assert_true(sd[0] == 0 && sd[1] == 0x1p-40 && sd[2] == 0.5);
  read_as(f, "/solver/relative_residual", H5T_NATIVE_DOUBLE, 1, 3, 0, sd);
  assert_true(sd[0] == 0 && sd[1] == 0x1p-39 && sd[2] == 0.25);
  read_as(f, "/solver/wall_time", H5T_NATIVE_DOUBLE, 1, 3, 0, sd);
  assert_true(sd[0] == 0.25e-6 && sd[1] == 0.5e-6 && sd[2] == 0.75e-6);
  read_as(f, "/solver/siconos_error", H5T_NATIVE_DOUBLE, 1, 3, 0, sd);
  assert_true(sd[0] == 0 && sd[1] == 0x1p-42 && sd[2] == 0);
  read_strings(f, "/solver/status_legend", 11, s);
  assert_string_equal(s[0], "-9 io_error");
  assert_string_equal(s[8], "-1 max_iterations");
  assert_string_equal(s[9], "0 solved");
  assert_string_equal(s[10], "1 warm_start_rejected");
  read_as(f, "/solver/first_status", H5T_NATIVE_INT, 1, 3, 0, si);
  assert_true(si[0] == 0 && si[1] == LSIM_BREAKDOWN && si[2] == LSIM_MAX_ITERATIONS);
  read_as(f, "/solver/source", H5T_NATIVE_INT, 1, 3, 0, si);
  assert_true(si[0] == 0 && si[1] == 2 && si[2] == 5);
  read_strings(f, "/solver/source_legend", 7, s);
  assert_string_equal(s[0], "0 solver");
  assert_string_equal(s[2], "2 lemke_scaled");
  assert_string_equal(s[4], "4 start");
  assert_string_equal(s[5], "5 pgs_cold");
  assert_string_equal(s[6], "6 none");
  read_as(f, "/solver/energy_guard", H5T_NATIVE_INT, 1, 3, 0, si);
  assert_true(si[0] == 0 && si[1] == 0 && si[2] == 2);
  read_as(f, "/solver/refused_energy", H5T_NATIVE_DOUBLE, 1, 3, 0, sd);
  assert_true(sd[0] == 0 && sd[1] == 0 && sd[2] == 0.125);
  read_as(f, "/solver/admission_reruns", H5T_NATIVE_INT, 1, 3, 0, si);
  assert_true(si[0] == 0 && si[1] == 1 && si[2] == 2);
  read_as(f, "/solver/simd", H5T_NATIVE_INT, 1, 3, 0, si);
  assert_true(si[0] == 0 && si[1] == LSIM_PGS_SIMD_SSE2 && si[2] == LSIM_PGS_SIMD_AVX2);
  read_strings(f, "/solver/simd_legend", 6, s);
  assert_string_equal(s[0], "0 none");
  assert_string_equal(s[LSIM_PGS_SIMD_AVX2], "3 avx2");
  assert_string_equal(s[LSIM_PGS_SIMD_REFERENCE], "4 reference");
  assert_string_equal(s[LSIM_PGS_SIMD_AVX512], "5 avx512");

  /* Summary. */
  assert_int_equal(read_scalar_i(f, "/summary/steps_done"), 3);
  assert_int_equal(read_scalar_i(f, "/summary/failures"), 1);
  assert_int_equal(read_scalar_i(f, "/summary/warnings"), 0);
  assert_int_equal(read_scalar_i(f, "/summary/recovered"), 1);
  assert_true(read_scalar_d(f, "/summary/max_residual") == 0.5);
  assert_int_equal(read_scalar_i(f, "/summary/total_contacts"), 3);
  assert_true(read_scalar_d(f, "/summary/max_penetration") == 0.125);
  assert_true(read_scalar_d(f, "/summary/solver_wall_time") == 0.25e-6 + 0.5e-6 + 0.75e-6);
  double wall = read_scalar_d(f, "/summary/wall_time_total");
  assert_true(wall >= 0 && wall < 60);
  read_strings(f, "/summary/run_end", -1, s);
  assert_string_equal(s[0], "completed");
  assert_int_equal(read_scalar_i(f, "/summary/run_end_step"), 3);
  read_strings(f, "/summary/run_end_reason", -1, s);
  assert_string_equal(s[0], "");

  /* Only fixed-length strings anywhere: checked above for each string dataset. */
  assert_true(H5Fclose(f) >= 0);
}

/* A test's run of the sample model: a temporary folder and a path in it, the model and
 * its state, and room for messages. run_begin sets them up (path = DIR/NAME); run_open
 * opens a record of them (scene text and solver as given), asserting it opened; run_end
 * removes the folder with what is left in it and frees the model and state. */
typedef struct SampleRun {
  char dir[64], path[160], partial[192];
  LsimModel m;
  LsimState s;
  char err[512];
} SampleRun;

static void run_begin(SampleRun *u, const char *name) {
  temp_dir(u->dir, sizeof u->dir);
  snprintf(u->path, sizeof u->path, "%s/%s", u->dir, name);
  snprintf(u->partial, sizeof u->partial, "%s.%ld.partial", u->path, (long)getpid());
  sample_model(&u->m, &u->s);
  u->err[0] = '\0';
}

static LsimRecord *run_open(SampleRun *u, const char *scene_text, const char *solver) {
  LsimRecord *r = NULL;
  const int rc = lsim_record_open(&r, u->path, &u->m, &u->s, scene_text, solver, u->err,
                                  sizeof u->err);
  if (rc != 0) fprintf(stderr, "%s\n", u->err);
  assert_int_equal(rc, 0);
  assert_non_null(r);
  return r;
}

static void run_end(SampleRun *u) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", u->dir);
  assert_int_equal(system(cmd), 0);
  lsim_state_free(&u->s);
  lsim_model_free(&u->m);
}

/* The sample run round-trips exactly; the partial file is gone after close. */
static void test_roundtrip(void **state) {
  (void)state;
  char dir[64], path[128], partial[160];
  temp_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/run.h5", dir);
  snprintf(partial, sizeof partial, "%s.%ld.partial", path, (long)getpid());
  assert_int_equal(write_sample(path, 1), 0);
  assert_true(exists(path));
  assert_false(exists(partial));
  check_sample(path);
  unlink(path);
  rmdir(dir);
}

/* keep = 0 leaves no file at all; during the run only the partial file exists. */
static void test_keep0(void **state) {
  (void)state;
  SampleRun u;
  run_begin(&u, "run.h5");
  LsimRecord *r = run_open(&u, SCENE_TEXT, NULL);
  assert_true(exists(u.partial));
  assert_false(exists(u.path));
  assert_int_equal(lsim_record_step(r, &u.m, &u.s, NULL, NULL), 0);
  assert_int_equal(lsim_record_close(r, 0, u.err, sizeof u.err), 0);
  assert_false(exists(u.path));
  assert_false(exists(u.partial));
  assert_int_equal(rmdir(u.dir), 0); /* empty */
  run_end(&u);
}

/* A record stride (lsim_record_set_every): 10 steps kept every 4th, and the last: rows of
 * steps 0, 4, 8, 10, each the step's own state, statistics and contacts (offsets into the
 * rows kept); failures between rows counted at the next (steps 2, 3 at step 4's row; 9, 10
 * at 10's); the summary over every step, the skipped step 5's residual and penetration
 * included. All values exact binary fractions: compared with ==. */
static void test_stride(void **state) {
  (void)state;
  SampleRun u;
  run_begin(&u, "run.h5");
  LsimRecord *r = run_open(&u, SCENE_TEXT, NULL);
  assert_int_equal(lsim_record_set_every(r, 0, u.err, sizeof u.err), LSIM_INVALID_INPUT);
  assert_non_null(strstr(u.err, "need an integer >= 1"));
  assert_int_equal(lsim_record_set_every(r, 4, u.err, sizeof u.err), 0);
  LsimContactSet set;
  memset(&set, 0, sizeof set);
  for (int k = 1; k <= 10; ++k) {
    u.s.time = 0.25 * k, u.s.step = k;
    u.s.q[0] = k, u.s.q[1] = -k;
    lsim_contacts_clear(&set);
    for (int i = 0; i < k % 3; ++i) {
      LsimContact *c = lsim_contacts_add(&set, 1);
      assert_non_null(c);
      c->id = (uint64_t)(100 * k + i);
      c->kind = LSIM_CONTACT_NORMAL;
      c->body[0] = 0, c->body[1] = 1;
      c->gap = k == 5 ? -0.5 : 0.0;
      c->normal_impulse = k + 0.5 * i;
    }
    LsimStepStats st;
    memset(&st, 0, sizeof st);
    st.status = (k == 2 || k == 3 || k == 9 || k == 10) ? LSIM_MAX_ITERATIONS : 0;
    st.residual = k == 5 ? 7.0 : 0.125 * k;
    st.iterations = k;
    assert_int_equal(lsim_record_step(r, &u.m, &u.s, &set, &st), 0);
  }
  assert_int_equal(lsim_record_set_every(r, 2, u.err, sizeof u.err), LSIM_INVALID_INPUT);
  assert_int_equal(lsim_record_close(r, 1, u.err, sizeof u.err), 0);
  hid_t f = H5Fopen(u.path, H5F_ACC_RDONLY, H5P_DEFAULT);
  assert_true(f >= 0);
  assert_int_equal(read_scalar_i(f, "/parameters/record_every"), 4);
  int step[4], failed[3], iter[3], cstep[4];
  double t[4], q[4][2], res[3], nimp[4];
  long long off[5];
  read_as(f, "/step", H5T_NATIVE_INT, 1, 4, 0, step);
  read_as(f, "/time", H5T_NATIVE_DOUBLE, 1, 4, 0, t);
  read_as(f, "/q", H5T_NATIVE_DOUBLE, 2, 4, 2, q);
  read_as(f, "/solver/failed_steps", H5T_NATIVE_INT, 1, 3, 0, failed);
  read_as(f, "/solver/iterations", H5T_NATIVE_INT, 1, 3, 0, iter);
  read_as(f, "/solver/residual", H5T_NATIVE_DOUBLE, 1, 3, 0, res);
  read_as(f, "/contacts/offset", H5T_NATIVE_LLONG, 1, 5, 0, off);
  read_as(f, "/contacts/step", H5T_NATIVE_INT, 1, 4, 0, cstep);
  read_as(f, "/contacts/normal_impulse", H5T_NATIVE_DOUBLE, 1, 4, 0, nimp);
  const int want_step[4] = {0, 4, 8, 10}, want_failed[3] = {2, 0, 2}, want_cstep[4] = {4, 8, 8, 10};
  const long long want_off[5] = {0, 0, 1, 3, 4};
  const double want_nimp[4] = {4, 8, 8.5, 10};
  for (int j = 0; j < 4; ++j) {
    assert_int_equal(step[j], want_step[j]);
    assert_true(t[j] == 0.25 * want_step[j]);
    assert_true(q[j][0] == (j ? want_step[j] : 0.0) && q[j][1] == (j ? -want_step[j] : 2.0));
    assert_int_equal(cstep[j], want_cstep[j]);
    assert_true(nimp[j] == want_nimp[j]);
  }
  for (int j = 0; j < 3; ++j) {
    assert_int_equal(failed[j], want_failed[j]);
    assert_int_equal(iter[j], want_step[j + 1]);
    assert_true(res[j] == 0.125 * want_step[j + 1]);
  }
  for (int j = 0; j < 5; ++j) assert_int_equal(off[j], want_off[j]);
  assert_int_equal(read_scalar_i(f, "/summary/steps_done"), 10);
  assert_int_equal(read_scalar_i(f, "/summary/run_end_step"), 10);
  assert_int_equal(read_scalar_i(f, "/summary/failures"), 4);
  assert_int_equal(read_scalar_i(f, "/summary/total_contacts"), 4);
  assert_true(read_scalar_d(f, "/summary/max_residual") == 7.0);
  assert_true(read_scalar_d(f, "/summary/max_penetration") == 0.5);
  assert_true(H5Fclose(f) >= 0);
  lsim_contacts_free(&set);
  run_end(&u);
}

/* A run marked stopped keeps its steps and says how and why it ended. */
static void test_run_end_stopped(void **state) {
  (void)state;
  SampleRun u;
  run_begin(&u, "run.h5");
  LsimRecord *r = run_open(&u, SCENE_TEXT, NULL);
  assert_int_equal(lsim_record_step(r, &u.m, &u.s, NULL, NULL), 0);
  assert_int_equal(lsim_record_step(r, &u.m, &u.s, NULL, NULL), 0);
  lsim_record_set_end(r, LSIM_RUN_STOPPED, "step 3: body 'a' velocity is not finite");
  assert_int_equal(lsim_record_close(r, 1, u.err, sizeof u.err), 0);
  hid_t f = H5Fopen(u.path, H5F_ACC_RDONLY, H5P_DEFAULT);
  assert_true(f >= 0);
  char str[1][256];
  read_strings(f, "/summary/run_end", -1, str);
  assert_string_equal(str[0], "stopped");
  assert_int_equal(read_scalar_i(f, "/summary/run_end_step"), 2);
  assert_int_equal(read_scalar_i(f, "/summary/steps_done"), 2);
  read_strings(f, "/summary/run_end_reason", -1, str);
  assert_string_equal(str[0], "step 3: body 'a' velocity is not finite");
  assert_true(H5Fclose(f) >= 0);
  run_end(&u);
}

/* The extent of dataset name's first dimension. */
static hsize_t dim0(hid_t f, const char *name) {
  hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  if (d < 0) fail_msg("missing dataset %s", name);
  hid_t sp = H5Dget_space(d);
  hsize_t dims[3] = {0, 0, 0};
  H5Sget_simple_extent_dims(sp, dims, NULL);
  H5Sclose(sp);
  H5Dclose(d);
  return dims[0];
}

/* An event-driven run's file (an event table) has the marks of whole flushes a killed
 * run's readers cut by: the file as a kill after 300 steps leaves it (a copy of the
 * partial file, the steps since the last flush in memory) holds /flushed_rows = its /time
 * rows (at least the 256 steps' flush's 257) and /flushed_events = its event rows, the
 * events appended before that flush; the closed file's marks count every row. (Before,
 * such runs had no mark and readers read the rows a kill inside a flush left in pieces.) */
static void test_event_marks(void **state) {
  (void)state;
  char copy[192], cmd[400];
  SampleRun u;
  run_begin(&u, "run.h5");
  snprintf(copy, sizeof copy, "%s/killed.h5", u.dir);
  LsimRecord *r = run_open(&u, SCENE_TEXT, NULL);
  const char *kinds[2] = {"impact", "liftoff"};
  assert_int_equal(lsim_record_events_begin(r, "event_driven", kinds, 2, u.err, sizeof u.err), 0);
  /* an event every 7 steps, before the step's row (as the event-driven writer does) */
  int events = 0;
  for (int k = 1; k <= 300; ++k) {
    if (k % 7 == 0) {
      assert_int_equal(lsim_record_event(r, 0.25 * k - 0.1, k % 2, (uint64_t)k, 0, -1), 0);
      ++events;
    }
    u.s.time = 0.25 * k;
    u.s.step = k;
    assert_int_equal(lsim_record_step(r, &u.m, &u.s, NULL, NULL), 0);
  }
  /* the partial file as a kill now leaves it */
  snprintf(cmd, sizeof cmd, "cp %s/run.h5.*.partial %s", u.dir, copy);
  assert_int_equal(system(cmd), 0);
  hid_t f = H5Fopen(copy, H5F_ACC_RDONLY, H5P_DEFAULT);
  assert_true(f >= 0);
  const long long w = read_scalar_i(f, "/flushed_rows"), e = read_scalar_i(f, "/flushed_events");
  assert_true(w >= 257 && w <= 301);
  assert_int_equal(dim0(f, "/time"), w);
  assert_int_equal(dim0(f, "/events/time"), e);
  assert_int_equal(e, (w - 1) / 7); /* the events of steps 1 .. w - 1 */
  assert_false(H5Lexists(f, "/summary", H5P_DEFAULT) > 0);
  assert_true(H5Fclose(f) >= 0);
  assert_int_equal(lsim_record_close(r, 1, u.err, sizeof u.err), 0);
  f = H5Fopen(u.path, H5F_ACC_RDONLY, H5P_DEFAULT);
  assert_true(f >= 0);
  assert_int_equal(read_scalar_i(f, "/flushed_rows"), 301);
  assert_int_equal(read_scalar_i(f, "/flushed_events"), events);
  assert_int_equal(dim0(f, "/events/time"), events);
  assert_true(H5Fclose(f) >= 0);
  run_end(&u);
}

/* A run file's head (lcp/h5check.h): pending from the file's creation through the flushes
 * that make its objects (the header's, the stride's), marked whole by the first flush of
 * its marks (an event table's; a stepper memory's), never before, so a reader refuses a
 * cut of those flushes before HDF5 reads it; the memory's first flush makes both /resume
 * slots, so no later flush makes an object. Before, files had no head: cuts of the first
 * flushes went to HDF5, which crashed on 2 of data/bouncing_ball_events.json's
 * (tests/e2e/killed_early.sh). */
static void test_file_head(void **state) {
  (void)state;
  char copy[192], cmd[400];
  SampleRun u;
  run_begin(&u, "run.h5");
  snprintf(copy, sizeof copy, "%s/killed.h5", u.dir);
  LsimRecord *r = NULL;
  const char *kinds[2] = {"impact", "liftoff"};
  for (int memory = 0; memory < 2; ++memory) {
    r = run_open(&u, SCENE_TEXT, NULL);
    assert_int_equal(lsim_h5_head(u.partial), LSIM_H5_HEAD_CUT);
    assert_int_equal(lsim_record_set_every(r, 1, u.err, sizeof u.err), 0);
    assert_int_equal(lsim_h5_head(u.partial), LSIM_H5_HEAD_CUT);
    LsimStepper *st = NULL;
    if (memory) {
      assert_int_equal(lsim_stepper_create(&st, &u.m, NULL, u.err, sizeof u.err), 0);
      lsim_record_keep_memory(r, st, &u.m, &u.s);
    } else {
      assert_int_equal(lsim_record_events_begin(r, "event_driven", kinds, 2, u.err, sizeof u.err),
                       0);
    }
    assert_int_equal(lsim_h5_head(u.partial), LSIM_H5_HEAD_WHOLE);
    /* the partial file as a kill now leaves it: every object made, the mark at row 0 */
    snprintf(cmd, sizeof cmd, "cp %s %s", u.partial, copy);
    assert_int_equal(system(cmd), 0);
    hid_t f = H5Fopen(copy, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(f >= 0);
    assert_int_equal(read_scalar_i(f, "/flushed_rows"), 1);
    assert_int_equal(H5Lexists(f, "/resume", H5P_DEFAULT) > 0, memory);
    if (memory) {
      assert_int_equal(read_scalar_i(f, "/resume/slot0/step"), 0);
      assert_int_equal(read_scalar_i(f, "/resume/slot1/step"), 0);
    }
    assert_true(H5Fclose(f) >= 0);
    assert_int_equal(lsim_record_close(r, 1, u.err, sizeof u.err), 0);
    assert_int_equal(lsim_h5_head(u.path), LSIM_H5_HEAD_WHOLE);
    lsim_stepper_free(st);
  }
  /* A record that keeps no marks (the library's): whole at its close. */
  r = run_open(&u, SCENE_TEXT, NULL);
  assert_int_equal(lsim_h5_head(u.partial), LSIM_H5_HEAD_CUT);
  assert_int_equal(lsim_record_close(r, 1, u.err, sizeof u.err), 0);
  assert_int_equal(lsim_h5_head(u.path), LSIM_H5_HEAD_WHOLE);
  run_end(&u);
}

/* A path in a missing directory: an error naming the path, no record, no file. */
static void test_missing_dir(void **state) {
  (void)state;
  SampleRun u;
  run_begin(&u, "no/such/dir/run.h5");
  LsimRecord *r = (LsimRecord *)&u.m; /* must be reset to NULL */
  int rc = lsim_record_open(&r, u.path, &u.m, &u.s, SCENE_TEXT, NULL, u.err, sizeof u.err);
  assert_true(rc < 0);
  assert_int_equal(rc, LSIM_IO_ERROR);
  assert_null(r);
  assert_non_null(strstr(u.err, u.path));
  assert_non_null(strstr(u.err, "No such file or directory"));
  assert_int_equal(rmdir(u.dir), 0); /* nothing was created */
  run_end(&u);
}

/* A run longer than several flush intervals, with a varying number of contacts per step
 * (0..5, over the contact buffer's initial capacity in total): lengths, offsets and the
 * rows on both sides of each flush boundary are right. */
static void test_long_run(void **state) {
  (void)state;
  SampleRun u;
  run_begin(&u, "long.h5");
  LsimRecord *r = run_open(&u, NULL, NULL);
  LsimContactSet set;
  memset(&set, 0, sizeof set);
  const int N = 1000;
  long long total = 0;
  for (int k = 1; k <= N; ++k) {
    u.s.time = k * 0.25;
    u.s.q[0] = k;
    u.s.q[1] = -k;
    lsim_contacts_clear(&set);
    for (int i = 0; i < k % 6; ++i) {
      LsimContact *c = lsim_contacts_add(&set, 1);
      assert_non_null(c);
      c->id = (uint64_t)i;
      c->gap = -(double)k; /* max penetration N */
      c->normal_impulse = k + 0.5 * i;
    }
    total += k % 6;
    LsimStepStats st = {0};
    st.iterations = k;
    st.residual = k == 700 ? 2.0 : 1.0;
    assert_int_equal(lsim_record_step(r, &u.m, &u.s, &set, &st), 0);
  }
  assert_int_equal(lsim_record_close(r, 1, u.err, sizeof u.err), 0);
  lsim_contacts_free(&set);

  hid_t f = H5Fopen(u.path, H5F_ACC_RDONLY, H5P_DEFAULT);
  assert_true(f >= 0);
  double *q = malloc(sizeof(double) * 2 * (size_t)(N + 1));
  long long *off = malloc(sizeof(long long) * (size_t)(N + 2));
  int *it = malloc(sizeof(int) * (size_t)N);
  int *cstep = malloc(sizeof(int) * (size_t)total);
  double *imp = malloc(sizeof(double) * (size_t)total);
  assert_true(q && off && it && cstep && imp);
  read_as(f, "/q", H5T_NATIVE_DOUBLE, 2, (hsize_t)N + 1, 2, q);
  read_as(f, "/contacts/offset", H5T_NATIVE_LLONG, 1, (hsize_t)N + 2, 0, off);
  read_as(f, "/solver/iterations", H5T_NATIVE_INT, 1, (hsize_t)N, 0, it);
  read_as(f, "/contacts/step", H5T_NATIVE_INT, 1, (hsize_t)total, 0, cstep);
  read_as(f, "/contacts/normal_impulse", H5T_NATIVE_DOUBLE, 1, (hsize_t)total, 0, imp);
  assert_true(q[0] == 0 && q[1] == 2);
  for (int k = 1; k <= N; ++k) {
    assert_true(q[2 * k] == k && q[2 * k + 1] == -k);
    assert_int_equal(it[k - 1], k);
    assert_int_equal(off[k + 1] - off[k], k % 6);
    for (long long row = off[k]; row < off[k + 1]; ++row) {
      assert_int_equal(cstep[row], k);
      assert_true(imp[row] == k + 0.5 * (double)(row - off[k]));
    }
  }
  assert_int_equal(off[0], 0);
  assert_int_equal(off[1], 0);
  assert_int_equal(off[N + 1], total);
  assert_int_equal(read_scalar_i(f, "/summary/steps_done"), N);
  assert_int_equal(read_scalar_i(f, "/summary/total_contacts"), total);
  assert_true(read_scalar_d(f, "/summary/max_residual") == 2.0);
  assert_true(read_scalar_d(f, "/summary/max_penetration") == N); /* 1000 % 6 = 4 rows */
  free(q); free(off); free(it); free(cstep); free(imp);
  H5Fclose(f);
  run_end(&u);
}

/* A model whose only body is static: no coordinates, q and v are [N+1, 0]. */
static void test_no_coordinates(void **state) {
  (void)state;
  char dir[64], path[128];
  temp_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/static.h5", dir);
  LsimModel m = lsim_default_model();
  LsimBody b = lsim_default_body();
  b.type = LSIM_BODY_STATIC;
  b.shape = LSIM_SHAPE_HALFLINE;
  strcpy(b.name, "wall");
  assert_int_equal(lsim_model_add_body(&m, &b), 0);
  assert_int_equal(lsim_model_finalize(&m), 0);
  LsimState s;
  assert_int_equal(lsim_state_init(&s, &m), 0);
  LsimRecord *r = NULL;
  char err[512] = "";
  assert_int_equal(lsim_record_open(&r, path, &m, &s, "", "lemke", err, sizeof err), 0);
  for (int k = 1; k <= 300; ++k) {
    s.time = k;
    assert_int_equal(lsim_record_step(r, &m, &s, NULL, NULL), 0);
  }
  assert_int_equal(lsim_record_close(r, 1, err, sizeof err), 0);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  assert_true(f >= 0);
  hid_t d = open_checked(f, "/q", 2, 301, 0);
  H5Dclose(d);
  d = open_checked(f, "/v", 2, 301, 0);
  H5Dclose(d);
  d = open_checked(f, "/contacts/point", 2, 0, 3);
  H5Dclose(d);
  double t[301];
  read_as(f, "/time", H5T_NATIVE_DOUBLE, 1, 301, 0, t);
  assert_true(t[0] == 0 && t[300] == 300);
  int ty;
  read_as(f, "/bodies/type", H5T_NATIVE_INT, 1, 1, 0, &ty);
  assert_int_equal(ty, LSIM_BODY_STATIC);
  char str[1][256];
  read_strings(f, "/scene_text", -1, str);
  assert_string_equal(str[0], "");
  assert_int_equal(read_scalar_i(f, "/parameters/nq"), 0);
  H5Fclose(f);
  unlink(path);
  rmdir(dir);
  lsim_state_free(&s);
  lsim_model_free(&m);
}

/* A state that does not match the model the file was opened with is refused, the error
 * sticks, and close reports it and leaves no file. */
static void test_mismatch_sticky(void **state) {
  (void)state;
  SampleRun u;
  run_begin(&u, "bad.h5");
  LsimRecord *r = run_open(&u, NULL, NULL);
  LsimModel other = u.m;
  other.nq = 1;
  assert_int_equal(lsim_record_step(r, &other, &u.s, NULL, NULL), LSIM_INVALID_INPUT);
  assert_int_equal(lsim_record_step(r, &u.m, &u.s, NULL, NULL), LSIM_INVALID_INPUT);
  assert_int_equal(lsim_record_close(r, 1, u.err, sizeof u.err), LSIM_INVALID_INPUT);
  assert_non_null(strstr(u.err, u.path));
  assert_int_equal(rmdir(u.dir), 0); /* no file left */
  run_end(&u);
}

/* ---- tethers and joints ---- */

/* The constraint sample (2-D): bodies "a" and "b"; tethers "ab" (a to b, length 2) and
 * "up" (a to the world point (0, 1), length 1); joints "hinge" (pin: a's (1, 0) to b's
 * (-1, 0)) and "bar" (rod a to b, length 2). Three states:
 *   k  a            b             |ab|  |up|    pin error  rod error
 *   0  (0, 0)       (2, 0)        2     1       0          0
 *   1  (0, -1/16)   (1.5, -1/16)  1.5   1.0625  0.5        0.5
 *   2  (0, 0)       (1.25, 0)     1.25  1       0.75       0.75
 * Impulses: step 1: ab 0, up 0.5, hinge (0.25, -0.125), bar 0.0625; step 2: ab 0, up 0,
 * hinge (0.5, 0), bar -0.25, and a contact of depth 1/16. Taut: up in both steps (by
 * impulse, then by length), ab never. */
static const double CA[3][2] = {{0, 0}, {0, -0.0625}, {0, 0}};
static const double CB[3][2] = {{2, 0}, {1.5, -0.0625}, {1.25, 0}};

static void constraint_model(LsimModel *m, LsimState *s) {
  *m = lsim_default_model();
  m->dimension = 2;
  m->time_step = 0.5;
  m->steps = 2;
  m->baumgarte = 0.125;
  for (int i = 0; i < 2; ++i) {
    LsimBody b = lsim_default_body();
    strcpy(b.name, i == 0 ? "a" : "b");
    b.inertia[8] = 1.0;
    assert_int_equal(lsim_model_add_body(m, &b), i);
  }
  assert_int_equal(lsim_model_finalize(m), 0);
  assert_int_equal(lsim_state_init(s, m), 0);
  m->tethers = calloc(2, sizeof *m->tethers);
  m->joints = calloc(2, sizeof *m->joints);
  assert_non_null(m->tethers);
  assert_non_null(m->joints);
  m->ntethers = m->njoints = 2;
  LsimTether *t = m->tethers;
  strcpy(t[0].name, "ab");
  t[0].length = 2.0;
  t[0].end[0].body = 0, t[0].end[1].body = 1;
  strcpy(t[1].name, "up");
  t[1].length = 1.0;
  t[1].end[0].body = 0, t[1].end[1].body = -1, t[1].end[1].motion.origin[1] = 1.0;
  LsimJoint *j = m->joints;
  strcpy(j[0].name, "hinge");
  j[0].type = LSIM_JOINT_PIN;
  j[0].end[0].body = 0, j[0].end[0].point[0] = 1.0;
  j[0].end[1].body = 1, j[0].end[1].point[0] = -1.0;
  strcpy(j[1].name, "bar");
  j[1].type = LSIM_JOINT_ROD;
  j[1].length = 2.0;
  j[1].end[0].body = 0, j[1].end[1].body = 1;
  j[1].no_collide = 1;
}

static void constraint_state(const LsimModel *m, LsimState *s, int k) {
  s->time = 0.5 * k;
  s->step = k;
  for (int d = 0; d < 2; ++d) {
    s->q[m->bodies[0].q_offset + d] = CA[k][d];
    s->q[m->bodies[1].q_offset + d] = CB[k][d];
  }
  /* b moves at (k/4, -k/2) turning at k/8 (a at rest): the hinge's rows (b's point
     (-1, 0) moves at (vx, vy - w)) give |J v| up to 5k/8, the bar's (along -x) k/4. */
  const int vb = m->bodies[1].v_offset;
  s->v[vb] = 0.25 * k, s->v[vb + 1] = -0.5 * k, s->v[vb + 2] = 0.125 * k;
}

static int write_sample_constraints(const char *path) {
  LsimModel m;
  LsimState s;
  constraint_model(&m, &s);
  constraint_state(&m, &s, 0);
  LsimRecord *r = NULL;
  char err[512] = "";
  int rc = lsim_record_open(&r, path, &m, &s, "{}\n", "lemke", err, sizeof err);
  if (rc != 0) fprintf(stderr, "%s\n", err);
  assert_int_equal(rc, 0);
  LsimContactSet set;
  memset(&set, 0, sizeof set);
  static const double imp[2][6] = {{0, 0.5, 0.25, -0.125, 0.0625, 0}, {0, 0, 0.5, 0, -0.25, 0}};
  for (int k = 1; k <= 2; ++k) {
    /* The step's rows from the state before it (as the step builds them), impulses set;
       step 2 has a penetrating contact first. */
    lsim_contacts_clear(&set);
    if (k == 2) {
      LsimContact *c = lsim_contacts_add(&set, 1);
      assert_non_null(c);
      c->kind = LSIM_CONTACT_NORMAL;
      c->body[0] = 0;
      c->gap = -0.0625;
    }
    const int first = set.count;
    assert_int_equal(lsim_constraint_rows(&m, &s, s.time, &set), 0);
    assert_int_equal(set.count - first, 5);
    for (int i = 0; i < 5; ++i) set.contacts[first + i].normal_impulse = imp[k - 1][i];
    constraint_state(&m, &s, k);
    LsimStepStats st = {0};
    st.ncontacts = set.count;
    assert_int_equal(lsim_record_step(r, &m, &s, &set, &st), 0);
  }
  rc = lsim_record_close(r, 1, err, sizeof err);
  if (rc != 0) fprintf(stderr, "%s\n", err);
  lsim_contacts_free(&set);
  lsim_state_free(&s);
  lsim_model_free(&m);
  return rc;
}

static void test_constraints_roundtrip(void **state) {
  (void)state;
  char dir[64], path[128];
  temp_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/tethers.h5", dir);
  assert_int_equal(write_sample_constraints(path), 0);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  assert_true(f >= 0);
  char names[2][256];
  read_strings(f, "/tethers/name", 2, names);
  assert_string_equal(names[0], "ab");
  assert_string_equal(names[1], "up");
  double lmax[2];
  read_as(f, "/tethers/length_max", H5T_NATIVE_DOUBLE, 1, 2, 0, lmax);
  assert_true(lmax[0] == 2.0 && lmax[1] == 1.0);
  double len[3][2], timp[2][2];
  int taut[2][2];
  read_as(f, "/tethers/length", H5T_NATIVE_DOUBLE, 2, 3, 2, len);
  const double want_len[3][2] = {{2, 1}, {1.5, 1.0625}, {1.25, 1}};
  for (int k = 0; k < 3; ++k)
    for (int i = 0; i < 2; ++i) assert_true(len[k][i] == want_len[k][i]);
  read_as(f, "/tethers/impulse", H5T_NATIVE_DOUBLE, 2, 2, 2, timp);
  assert_true(timp[0][0] == 0 && timp[0][1] == 0.5 && timp[1][0] == 0 && timp[1][1] == 0);
  read_as(f, "/tethers/taut", H5T_NATIVE_INT, 2, 2, 2, taut);
  assert_true(taut[0][0] == 0 && taut[0][1] == 1 && taut[1][0] == 0 && taut[1][1] == 1);
  read_strings(f, "/joints/name", 2, names);
  assert_string_equal(names[0], "hinge");
  assert_string_equal(names[1], "bar");
  read_strings(f, "/joints/type", 2, names);
  assert_string_equal(names[0], "pin");
  assert_string_equal(names[1], "rod");
  int rows[2];
  read_as(f, "/joints/rows", H5T_NATIVE_INT, 1, 2, 0, rows);
  assert_true(rows[0] == 2 && rows[1] == 1);
  double jl[2];
  read_as(f, "/joints/length", H5T_NATIVE_DOUBLE, 1, 2, 0, jl);
  assert_true(jl[0] == 0.0 && jl[1] == 2.0);
  int collide[2]; /* the hinge's pair collides (default), the bar's does not */
  read_as(f, "/joints/collide", H5T_NATIVE_INT, 1, 2, 0, collide);
  assert_true(collide[0] == 1 && collide[1] == 0);
  double jerr[3][2];
  read_as(f, "/joints/error", H5T_NATIVE_DOUBLE, 2, 3, 2, jerr);
  const double want_err[3] = {0, 0.5, 0.75};
  for (int k = 0; k < 3; ++k) assert_true(jerr[k][0] == want_err[k] && jerr[k][1] == want_err[k]);
  /* [N+1, J] velocity errors (the largest |J v| of a joint's rows), exact in binary. */
  double jverr[3][2];
  read_as(f, "/joints/velocity_error", H5T_NATIVE_DOUBLE, 2, 3, 2, jverr);
  for (int k = 0; k < 3; ++k) assert_true(jverr[k][0] == 0.625 * k && jverr[k][1] == 0.25 * k);
  /* [N, J, 3]: rows unused by a joint are 0. */
  hid_t d = H5Dopen2(f, "/joints/impulse", H5P_DEFAULT);
  assert_true(d >= 0);
  hid_t sp = H5Dget_space(d);
  hsize_t dims[3];
  assert_int_equal(H5Sget_simple_extent_dims(sp, dims, NULL), 3);
  assert_true(dims[0] == 2 && dims[1] == 2 && dims[2] == 3);
  double jimp[2][2][3];
  assert_true(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, jimp) >= 0);
  H5Sclose(sp);
  H5Dclose(d);
  const double want_imp[2][2][3] = {{{0.25, -0.125, 0}, {0.0625, 0, 0}}, {{0.5, 0, 0}, {-0.25, 0, 0}}};
  for (int k = 0; k < 2; ++k)
    for (int j = 0; j < 2; ++j)
      for (int c = 0; c < 3; ++c) assert_true(jimp[k][j][c] == want_imp[k][j][c]);
  /* Summary: stretch and joint error maxima; constraint rows are not penetrations. */
  assert_true(read_scalar_d(f, "/summary/max_tether_stretch") == 0.0625);
  assert_true(read_scalar_d(f, "/summary/max_joint_error") == 0.75);
  assert_true(read_scalar_d(f, "/summary/max_penetration") == 0.0625);
  assert_true(read_scalar_d(f, "/parameters/baumgarte") == 0.125);
  assert_int_equal(read_scalar_i(f, "/summary/total_contacts"), 11);
  H5Fclose(f);
  /* A run without tethers or joints has neither group. */
  char path2[160];
  snprintf(path2, sizeof path2, "%s/plain.h5", dir);
  assert_int_equal(write_sample(path2, 1), 0);
  f = H5Fopen(path2, H5F_ACC_RDONLY, H5P_DEFAULT);
  assert_true(f >= 0);
  assert_true(H5Lexists(f, "/tethers", H5P_DEFAULT) == 0);
  assert_true(H5Lexists(f, "/joints", H5P_DEFAULT) == 0);
  assert_true(read_scalar_d(f, "/parameters/baumgarte") == 0.0);
  H5Fclose(f);
  remove(path);
  remove(path2);
  rmdir(dir);
}

/* ---- output files (scene/outfile.h) ---- */

/* A directory, a FIFO and a link to nothing are refused at open, each left as it was,
 * with a message naming the path and what it is; no partial file is left beside them. */
static void test_output_refused(void **state) {
  (void)state;
  char dir[64], sub[128], fifo[128], link[128], err[512];
  temp_dir(dir, sizeof dir);
  snprintf(sub, sizeof sub, "%s/folder", dir);
  snprintf(fifo, sizeof fifo, "%s/pipe", dir);
  snprintf(link, sizeof link, "%s/dangling", dir);
  assert_int_equal(mkdir(sub, 0777), 0);
  assert_int_equal(mkfifo(fifo, 0666), 0);
  assert_int_equal(symlink("nowhere", link), 0);
  LsimModel m;
  LsimState s;
  sample_model(&m, &s);
  const char *paths[3] = {sub, fifo, link};
  const char *what[3] = {"a directory", "a FIFO", "symbolic link to nothing"};
  for (int k = 0; k < 3; ++k) {
    LsimRecord *r = (LsimRecord *)&m; /* must come back NULL */
    err[0] = '\0';
    assert_int_equal(lsim_record_open(&r, paths[k], &m, &s, SCENE_TEXT, NULL, err, sizeof err),
                     LSIM_INVALID_INPUT);
    assert_null(r);
    assert_non_null(strstr(err, paths[k]));
    assert_non_null(strstr(err, what[k]));
  }
  struct stat st;
  assert_int_equal(lstat(sub, &st), 0);
  assert_true(S_ISDIR(st.st_mode));
  assert_int_equal(lstat(fifo, &st), 0);
  assert_true(S_ISFIFO(st.st_mode));
  assert_int_equal(lstat(link, &st), 0);
  assert_true(S_ISLNK(st.st_mode));
  /* Nothing else in the folder: folder, pipe, dangling, and no partial file. */
  assert_int_equal(unlink(link), 0);
  assert_int_equal(unlink(fifo), 0);
  assert_int_equal(rmdir(sub), 0);
  assert_int_equal(rmdir(dir), 0);
  lsim_state_free(&s);
  lsim_model_free(&m);
}

/* /dev/null is written through: the run succeeds, the node is still a character device
 * (as root, rename would have replaced it), and no temporary file is left in TMPDIR. */
static void test_output_dev_null(void **state) {
  (void)state;
  char dir[64], old_tmp[512] = "";
  temp_dir(dir, sizeof dir);
  const char *t = getenv("TMPDIR");
  if (t) snprintf(old_tmp, sizeof old_tmp, "%s", t);
  setenv("TMPDIR", dir, 1);
  assert_int_equal(write_sample("/dev/null", 1), 0);
  if (old_tmp[0]) setenv("TMPDIR", old_tmp, 1);
  else unsetenv("TMPDIR");
  struct stat st;
  assert_int_equal(lstat("/dev/null", &st), 0);
  assert_true(S_ISCHR(st.st_mode));
  assert_int_equal(rmdir(dir), 0); /* the temporary file is gone */
}

/* A link to a regular file: the file it points to gets the run, the link stays. */
static void test_output_symlink(void **state) {
  (void)state;
  char dir[64], target[128], link[128];
  temp_dir(dir, sizeof dir);
  snprintf(target, sizeof target, "%s/target.h5", dir);
  snprintf(link, sizeof link, "%s/link.h5", dir);
  FILE *f = fopen(target, "w");
  assert_non_null(f);
  fputs("old", f);
  fclose(f);
  assert_int_equal(symlink("target.h5", link), 0);
  assert_int_equal(write_sample(link, 1), 0);
  struct stat st;
  assert_int_equal(lstat(link, &st), 0);
  assert_true(S_ISLNK(st.st_mode));
  check_sample(target);
  unlink(link);
  unlink(target);
  assert_int_equal(rmdir(dir), 0);
}

/* Two records of the same path open at once (two runs writing one -o): the second is
 * refused at its start, naming the path and the first's partial file, and leaves nothing;
 * the first writes its file whole; once it is in place, a new record of the path replaces
 * it as usual. Before, both wrote and the last rename replaced the other's file. */
static void test_output_two_writers(void **state) {
  (void)state;
  SampleRun u;
  run_begin(&u, "run.h5");
  LsimRecord *a = run_open(&u, SCENE_TEXT, NULL), *b = (LsimRecord *)&u.m;
  assert_int_equal(lsim_record_open(&b, u.path, &u.m, &u.s, SCENE_TEXT, NULL, u.err,
                                    sizeof u.err), LSIM_INVALID_INPUT);
  assert_null(b);
  assert_non_null(strstr(u.err, "another run is writing it now"));
  assert_non_null(strstr(u.err, u.partial)); /* the first's partial file */
  assert_int_equal(lsim_record_step(a, &u.m, &u.s, NULL, NULL), 0);
  assert_int_equal(lsim_record_close(a, 1, u.err, sizeof u.err), 0);
  hid_t f = H5Fopen(u.path, H5F_ACC_RDONLY, H5P_DEFAULT);
  assert_true(f >= 0);
  assert_int_equal(read_scalar_i(f, "/summary/steps_done"), 1);
  H5Fclose(f);
  b = run_open(&u, SCENE_TEXT, NULL);
  assert_int_equal(lsim_record_close(b, 1, u.err, sizeof u.err), 0);
  f = H5Fopen(u.path, H5F_ACC_RDONLY, H5P_DEFAULT);
  assert_true(f >= 0);
  assert_int_equal(read_scalar_i(f, "/summary/steps_done"), 0);
  H5Fclose(f);
  assert_int_equal(unlink(u.path), 0);
  assert_int_equal(rmdir(u.dir), 0); /* no partial file left */
  run_end(&u);
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--write-sample") == 0)
    return write_sample(argv[2], 1) == 0 ? 0 : 1;
  if (argc == 3 && strcmp(argv[1], "--write-sample-constraints") == 0)
    return write_sample_constraints(argv[2]) == 0 ? 0 : 1;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_roundtrip),       cmocka_unit_test(test_keep0),
      cmocka_unit_test(test_missing_dir),     cmocka_unit_test(test_long_run),
      cmocka_unit_test(test_no_coordinates),  cmocka_unit_test(test_mismatch_sticky),
      cmocka_unit_test(test_constraints_roundtrip), cmocka_unit_test(test_run_end_stopped),
      cmocka_unit_test(test_event_marks),
      cmocka_unit_test(test_file_head),
      cmocka_unit_test(test_output_refused),  cmocka_unit_test(test_output_dev_null),
      cmocka_unit_test(test_output_symlink),  cmocka_unit_test(test_output_two_writers),
      cmocka_unit_test(test_stride),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
