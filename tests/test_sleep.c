/* test_sleep.c: bodies at rest go to sleep in groups and wake when touched
 * (model->sleep, contact/sleep.c). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact/step.h"
#include "contact/world.h"
#include "lcp/random.h"
#include "scene/record.h"
#include "scene/scene.h"

#include <hdf5.h>

#include "tests/record_read.h"

#define HALF 0.05 /* box half side, m */
#define H 0.01    /* s */

/* A 3-D world with gravity, a ground plane (static body) and the given boxes (mass 1,
 * mu 0.5) at centers z[k] (x offsets x[k]) with vertical velocities vz[k] (box k is
 * kinematic, moving along x at kin_vx[k], when kin_vx is given and kin_vx[k] != 0); the
 * solver Lemke (tol 1e-10), sleeping as given. */
static void build_kin(LsimModel *m, LsimState *st, int n, const double *x, const double *z,
                      const double *vz, const double *kin_vx, const LsimSleep *sleep) {
  *m = lsim_default_model();
  m->dimension = 3;
  m->time_step = H;
  m->gravity[2] = -9.81;
  m->friction_directions = 4;
  m->sleep = *sleep;
  for (int i = 0; i < n; ++i) {
    LsimBody b = lsim_default_body();
    snprintf(b.name, sizeof b.name, "box%d", i);
    b.mass = 1.0;
    const double half[3] = {HALF, HALF, HALF};
    lsim_inertia_box(1.0, half, b.inertia);
    if (kin_vx && kin_vx[i] != 0.0) {
      b.type = LSIM_BODY_KINEMATIC;
      b.kinematic_velocity.width = 6; /* constant: vx, the other components zero */
      b.kinematic_velocity.constant = kin_vx[i];
    }
    const int bi = lsim_model_add_body(m, &b);
    LsimShape s = lsim_default_shape();
    s.type = LSIM_SHAPE_BOX;
    s.body = bi;
    s.half[0] = s.half[1] = s.half[2] = HALF;
    lsim_model_add_shape(m, &s);
  }
  LsimBody g = lsim_default_body();
  strcpy(g.name, "ground");
  g.type = LSIM_BODY_STATIC;
  const int gi = lsim_model_add_body(m, &g);
  LsimShape p = lsim_default_shape();
  p.type = LSIM_SHAPE_PLANE;
  p.body = gi;
  lsim_model_add_shape(m, &p);
  assert_int_equal(lsim_model_finalize(m), 0);
  assert_int_equal(lsim_state_init(st, m), 0);
  for (int i = 0; i < n; ++i) {
    double *q = st->q + m->bodies[i].q_offset;
    q[0] = x[i], q[2] = z[i], q[3] = 1.0;
    st->v[m->bodies[i].v_offset + 2] = vz[i];
  }
}

static void build(LsimModel *m, LsimState *st, int n, const double *x, const double *z,
                  const double *vz, const LsimSleep *sleep) {
  build_kin(m, st, n, x, z, vz, NULL, sleep);
}

/* Whether body i's speeds are within the sleep thresholds. */
static int at_rest(const LsimModel *m, const LsimState *st, int i) {
  const double *v = st->v + m->bodies[i].v_offset;
  const double lin = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  const double ang = sqrt(v[3] * v[3] + v[4] * v[4] + v[5] * v[5]);
  return lin <= m->sleep.linear_speed && ang <= m->sleep.angular_speed;
}

static const LsimSleep sleep_on = {.enabled = 1, .linear_speed = 0.01, .angular_speed = 0.02, .time = 0.5};

/* The default model has sleeping off, with the documented thresholds. */
static void test_default_off(void **state) {
  (void)state;
  const LsimModel m = lsim_default_model();
  assert_int_equal(m.sleep.enabled, 0);
  assert_true(m.sleep.linear_speed == 0.01 && m.sleep.angular_speed == 0.02 && m.sleep.time == 0.5);
}

/* A scene's "sleep" object sets the model's; without it the defaults stay. */
static void test_scene_key(void **state) {
  (void)state;
  const char *with = "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.01, \"steps\": 3,"
                     " \"sleep\": {\"enabled\": true, \"linear_speed\": 0.05,"
                     " \"angular_speed\": 0.1, \"time\": 1.25},"
                     " \"bodies\": [{\"mass\": 1, \"position\": [0, 0, 1], \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.1}]}]}";
  const char *without = "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.01, \"steps\": 3,"
                        " \"bodies\": [{\"mass\": 1, \"position\": [0, 0, 1], \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.1}]}]}";
  LsimModel m;
  LsimState st;
  LsimSceneError err;
  const int rc = lsim_scene_parse(with, "with.json", &m, &st, &err);
  if (rc) {
    char msg[512];
    lsim_scene_error_format(&err, msg, sizeof msg);
    fail_msg("%s", msg);
  }
  assert_int_equal(m.sleep.enabled, 1);
  assert_true(m.sleep.linear_speed == 0.05 && m.sleep.angular_speed == 0.1 && m.sleep.time == 1.25);
  lsim_state_free(&st);
  lsim_model_free(&m);
  assert_int_equal(lsim_scene_parse(without, "without.json", &m, &st, &err), 0);
  assert_int_equal(m.sleep.enabled, 0);
  assert_true(m.sleep.linear_speed == 0.01 && m.sleep.angular_speed == 0.02 && m.sleep.time == 0.5);
  lsim_state_free(&st);
  lsim_model_free(&m);
}

/* A box dropped 2 cm onto the ground sleeps exactly when it has been at rest for 0.5 s
 * (50 steps: the step it sleeps at is the 50th at rest, so the 49 before it were), then
 * stays where it was to the bit, with no LCP, for 3 s; lifted from outside, it wakes and
 * falls freely (semi-implicit Euler from rest: dz = -g h^2, to round-off). */
static void test_box_sleeps_and_stays(void **state) {
  (void)state;
  LsimModel m;
  LsimState st;
  const double x = 0.0, z = HALF + 0.02, vz = 0.0;
  build(&m, &st, 1, &x, &z, &vz, &sleep_on);
  LsimStepper *s = NULL;
  char err[256];
  assert_int_equal(lsim_stepper_create(&s, &m, NULL, err, sizeof err), 0);
  LsimStepStats stats;
  int streak = 0, slept_at = -1;
  for (int k = 0; k < 300 && slept_at < 0; ++k) {
    assert_true(lsim_step(s, &m, &st, &stats) >= 0);
    if (stats.sleeping == 1) {
      slept_at = k;
      assert_int_equal(streak, 49);
    } else {
      streak = at_rest(&m, &st, 0) ? streak + 1 : 0;
    }
  }
  assert_true(slept_at > 50);
  const unsigned char *flags = NULL;
  assert_int_equal(lsim_stepper_sleeping(s, &flags), 1);
  assert_non_null(flags);
  assert_int_equal(flags[0], 1);
  /* Resting on the ground: the center at the half side, within the 1 mm a resting
     contact's velocity-level rows leave (the overlap tolerance). */
  assert_true(fabs(st.q[2] - HALF) < 1e-3);
  double q0[7];
  memcpy(q0, st.q, sizeof q0);
  for (int k = 0; k < 300; ++k) {
    assert_int_equal(lsim_step(s, &m, &st, &stats), 0);
    assert_int_equal(stats.sleeping, 1);
    assert_int_equal(stats.lcp_size, 0); /* its ground contacts left the LCP */
    assert_memory_equal(st.q, q0, sizeof q0);
    for (int d = 0; d < 6; ++d) assert_true(st.v[d] == 0.0);
  }
  /* Moved from outside (10 cm up): it wakes at the next step and falls (g h^2 below). */
  st.q[2] += 0.1;
  const double lifted = st.q[2];
  assert_int_equal(lsim_step(s, &m, &st, &stats), 0);
  assert_int_equal(stats.sleeping, 0);
  assert_true(fabs(st.q[2] - (lifted - 9.81 * H * H)) < 1e-12);
  lsim_stepper_free(s);
  lsim_state_free(&st);
  lsim_model_free(&m);
}

/* A box A dropped onto the ground sleeps; a box B thrown up from 2 m (3 m/s) comes down on
 * it after about 1 s (2 + 3 t - g t^2 / 2 = 0.15: t = 0.99 s) and wakes it; the stack then
 * settles (B on A: centers at HALF and 3 HALF) and sleeps as one group. */
static void test_falling_box_wakes_sleeper(void **state) {
  (void)state;
  LsimModel m;
  LsimState st;
  const double x[2] = {0.0, 0.01}, z[2] = {HALF + 0.02, 2.0}, vz[2] = {0.0, 3.0};
  build(&m, &st, 2, x, z, vz, &sleep_on);
  LsimStepper *s = NULL;
  char err[256];
  assert_int_equal(lsim_stepper_create(&s, &m, NULL, err, sizeof err), 0);
  LsimStepStats stats;
  const unsigned char *flags = NULL;
  int a_slept = -1, a_woke = -1, both = -1;
  double qa[7];
  for (int k = 0; k < 600 && both < 0; ++k) {
    assert_true(lsim_step(s, &m, &st, &stats) >= 0);
    (void)lsim_stepper_sleeping(s, &flags);
    if (a_slept < 0 && flags[0]) a_slept = k, memcpy(qa, st.q, sizeof qa);
    if (a_slept >= 0 && a_woke < 0) {
      if (flags[0]) {
        /* Asleep: A has not moved, B still in the air above it. */
        assert_memory_equal(st.q, qa, sizeof qa);
        assert_false(flags[1]);
      } else {
        a_woke = k;
        /* Its ground contacts were warm started from the impulses they had when it fell
           asleep: at rest they carried its weight over the step, m g h plus m dv_z, the
           resting box's change of vertical speed, zero to Lemke's 1e-10 (1e-9). */
        const LsimContactSet *cs = lsim_stepper_contacts(s);
        const double *guess = lsim_stepper_warm_guess(s);
        double carried = 0.0;
        int ground = 0;
        for (int c = 0; c < cs->count; ++c)
          if (cs->contacts[c].body[0] == 0 && cs->contacts[c].body[1] == 2)
            carried += guess[cs->contacts[c].first_var], ++ground;
        assert_true(ground >= 3);
        assert_true(fabs(carried - 9.81 * H) < 1e-9);
      }
    }
    if (a_woke >= 0 && stats.sleeping == 2) both = k;
  }
  /* A sleeps before B arrives (0.99 s = step 99), wakes when B comes within reach,
     and the stack sleeps at least 0.5 s after B's impact. */
  assert_true(a_slept > 0 && a_slept < 95);
  assert_true(a_woke >= 90 && a_woke <= 100);
  assert_true(both >= a_woke + 50);
  /* The stack: A on the ground, B on A, to the 1 mm of resting contacts per layer. */
  const double za = st.q[m.bodies[0].q_offset + 2], zb = st.q[m.bodies[1].q_offset + 2];
  assert_true(fabs(za - HALF) < 1e-3);
  assert_true(fabs(zb - 3 * HALF) < 2e-3);
  /* And stays so, to the bit. */
  double q1[14];
  memcpy(q1, st.q, sizeof q1);
  for (int k = 0; k < 100; ++k) {
    assert_int_equal(lsim_step(s, &m, &st, &stats), 0);
    assert_int_equal(stats.sleeping, 2);
  }
  assert_memory_equal(st.q, q1, sizeof q1);
  lsim_stepper_free(s);
  lsim_state_free(&st);
  lsim_model_free(&m);
}

/* A box asleep on the ground with a force table that is zero until 1.995 s and 20 N along
 * +x from 2 s (beyond mu m g = 0.5 * 9.81 N: it slides): it wakes at the first step whose
 * start time sees the force (step 200, t = 2 s), not before, and moves along +x. */
static void test_force_wakes_sleeper(void **state) {
  (void)state;
  LsimModel m;
  LsimState st;
  const double x = 0.0, z = HALF + 0.02, vz = 0.0;
  build(&m, &st, 1, &x, &z, &vz, &sleep_on);
  LsimSchedule *f = &m.bodies[0].force;
  f->width = 6;
  f->npoints = 3;
  f->t = calloc(3, sizeof(double));
  f->value = calloc(18, sizeof(double));
  assert_non_null(f->t);
  assert_non_null(f->value);
  f->t[0] = 0.0, f->t[1] = 1.995, f->t[2] = 2.0;
  f->value[12] = 20.0; /* point 2, fx */
  LsimStepper *s = NULL;
  char err[256];
  assert_int_equal(lsim_stepper_create(&s, &m, NULL, err, sizeof err), 0);
  LsimStepStats stats;
  int slept_at = -1;
  double x_asleep = 0.0;
  for (int k = 0; k < 200; ++k) {
    assert_true(lsim_step(s, &m, &st, &stats) >= 0);
    if (slept_at < 0 && stats.sleeping == 1) slept_at = k, x_asleep = st.q[0];
  }
  assert_true(slept_at > 0 && slept_at < 150);
  assert_int_equal(stats.sleeping, 1); /* asleep through step 199 (t = 1.99 .. 2.0) */
  assert_true(st.q[0] == x_asleep);
  assert_int_equal(lsim_step(s, &m, &st, &stats), 0);
  assert_int_equal(stats.sleeping, 0);
  assert_true(st.v[0] > 0.0 && st.q[0] > x_asleep);
  lsim_stepper_free(s);
  lsim_state_free(&st);
  lsim_model_free(&m);
}

/* A kinematic box sliding along +x at 0.5 m/s from 1 m away reaches a sleeping box (faces
 * 0.9 m apart: at 1.8 s) and wakes it when it comes within reach (not before 1.7 s), then
 * pushes it along. */
static void test_kinematic_wakes_sleeper(void **state) {
  (void)state;
  LsimModel m;
  LsimState st;
  const double x[2] = {0.0, -1.0}, z[2] = {HALF + 0.02, HALF + 0.001}, vz[2] = {0.0, 0.0};
  const double kin[2] = {0.0, 0.5};
  build_kin(&m, &st, 2, x, z, vz, kin, &sleep_on);
  LsimStepper *s = NULL;
  char err[256];
  assert_int_equal(lsim_stepper_create(&s, &m, NULL, err, sizeof err), 0);
  LsimStepStats stats;
  int slept = -1, woke = -1;
  double x_asleep = 0.0;
  for (int k = 0; k < 260; ++k) {
    assert_true(lsim_step(s, &m, &st, &stats) >= 0);
    if (slept < 0 && stats.sleeping == 1) slept = k, x_asleep = st.q[0];
    if (slept >= 0 && woke < 0 && stats.sleeping == 0) woke = k;
    if (slept >= 0 && woke < 0) assert_true(st.q[0] == x_asleep);
  }
  assert_true(slept > 0 && slept < 150);
  assert_true(woke >= 170 && woke <= 182);
  /* Pushed: by 2.6 s the kinematic face has moved 0.4 m past first touch (1.8 s). */
  assert_true(st.q[0] > x_asleep + 0.3);
  lsim_stepper_free(s);
  lsim_state_free(&st);
  lsim_model_free(&m);
}

/* The output file: /solver/sleeping holds the steps' sleeping counts and /parameters the
 * settings when sleeping is on; a file with it off has neither. */
static void test_record(void **state) {
  (void)state;
  enum { STEPS = 120 };
  char dir[64], path[2][128];
  temp_dir(dir, sizeof dir);
  int counts[STEPS];
  for (int on = 0; on < 2; ++on) {
    LsimModel m;
    LsimState st;
    const double x = 0.0, z = HALF + 0.02, vz = 0.0;
    LsimSleep sl = sleep_on;
    sl.enabled = on;
    build(&m, &st, 1, &x, &z, &vz, &sl);
    LsimStepper *s = NULL;
    LsimRecord *r = NULL;
    char err[256];
    snprintf(path[on], sizeof path[on], "%s/run%d.h5", dir, on);
    assert_int_equal(lsim_stepper_create(&s, &m, NULL, err, sizeof err), 0);
    assert_int_equal(lsim_record_open(&r, path[on], &m, &st, "{}", NULL, err, sizeof err), 0);
    for (int k = 0; k < STEPS; ++k) {
      LsimStepStats stats;
      assert_true(lsim_step(s, &m, &st, &stats) >= 0);
      if (on) counts[k] = stats.sleeping;
      assert_int_equal(lsim_record_step(r, &m, &st, lsim_stepper_contacts(s), &stats), 0);
    }
    assert_int_equal(lsim_record_close(r, 1, err, sizeof err), 0);
    lsim_stepper_free(s);
    lsim_state_free(&st);
    lsim_model_free(&m);
  }
  assert_int_equal(counts[STEPS - 1], 1); /* asleep by 1.2 s (as test_box_sleeps_and_stays) */
  hid_t f = H5Fopen(path[1], H5F_ACC_RDONLY, H5P_DEFAULT);
  assert_true(f >= 0);
  int rec[STEPS];
  read_as(f, "/solver/sleeping", H5T_NATIVE_INT, 1, STEPS, 0, rec);
  assert_memory_equal(rec, counts, sizeof rec);
  assert_true(read_scalar_d(f, "/parameters/sleep_time") == 0.5);
  assert_true(read_scalar_d(f, "/parameters/sleep_linear_speed") == 0.01);
  assert_true(read_scalar_d(f, "/parameters/sleep_angular_speed") == 0.02);
  H5Fclose(f);
  f = H5Fopen(path[0], H5F_ACC_RDONLY, H5P_DEFAULT);
  assert_true(f >= 0);
  assert_true(H5Lexists(f, "/solver/sleeping", H5P_DEFAULT) == 0);
  assert_true(H5Lexists(f, "/parameters/sleep_time", H5P_DEFAULT) == 0);
  H5Fclose(f);
  for (int on = 0; on < 2; ++on) remove(path[on]);
  rmdir(dir);
}

/* A pile of 27 boxes dropped on the ground with PGS (20 sweeps, warm started): sleeping
 * on, but with a rest time no run reaches (1e9 s), gives the same states to the bit at
 * every step as sleeping off: the sleep bookkeeping itself changes nothing. (That
 * sleeping off gives the same results as before sleeping existed is checked against the
 * previous build's output files, docs/solvers.md "Islands".) */
static void test_pile_unchanged_when_never_asleep(void **state) {
  (void)state;
  enum { N = 27, STEPS = 150 };
  double x[N], z[N], vz[N];
  LsimRng rng = lsim_rng(3);
  for (int i = 0; i < N; ++i) {
    x[i] = (i % 3 - 1) * 0.11 + lsim_rng_range(&rng, -0.003, 0.003);
    z[i] = HALF + 0.01 + (i / 3) * 0.11;
    vz[i] = 0.0;
  }
  LsimModel m[2];
  LsimState st[2];
  LsimStepper *s[2];
  LsimSleep never = sleep_on;
  never.time = 1e9;
  const LsimSleep off = {.enabled = 0, .linear_speed = 0.01, .angular_speed = 0.02, .time = 0.5};
  char err[256];
  for (int r = 0; r < 2; ++r) {
    build(&m[r], &st[r], N, x, z, vz, r ? &never : &off);
    strcpy(m[r].solver.name, "pgs");
    m[r].solver.tol = 0.0;
    m[r].solver.max_iter = 20;
    assert_int_equal(lsim_stepper_create(&s[r], &m[r], NULL, err, sizeof err), 0);
  }
  for (int k = 0; k < STEPS; ++k) {
    LsimStepStats a, b;
    lsim_step(s[0], &m[0], &st[0], &a);
    lsim_step(s[1], &m[1], &st[1], &b);
    assert_int_equal(a.ncontacts, b.ncontacts);
    assert_int_equal(b.sleeping, 0);
    assert_memory_equal(st[0].q, st[1].q, (size_t)m[0].nq * sizeof(double));
    assert_memory_equal(st[0].v, st[1].v, (size_t)m[0].nv * sizeof(double));
  }
  for (int r = 0; r < 2; ++r) {
    lsim_stepper_free(s[r]);
    lsim_state_free(&st[r]);
    lsim_model_free(&m[r]);
  }
}

/* Under gravity only a group held from outside may sleep. A box thrown up at 3 m/s from
 * z = 1 m with loose thresholds (0.1 m/s for 0.02 s: the two steps around the top of its
 * flight, where |v| <= g h / 2 + ... stays under 0.1 m/s) does not sleep in the air; it
 * sleeps only after landing, resting on the ground (center at HALF within the 1 mm of the
 * overlap tolerance). Without gravity a box drifting at 5 mm/s, touching nothing, sleeps
 * after its 0.02 s as before. */
static void test_no_sleep_in_flight(void **state) {
  (void)state;
  const LsimSleep loose = {.enabled = 1, .linear_speed = 0.1, .angular_speed = 0.1, .time = 0.02};
  for (int g = 0; g < 2; ++g) {
    LsimModel m;
    LsimState st;
    const double x = 0.0, z = 1.0, vz = g ? 3.0 : 0.005;
    build(&m, &st, 1, &x, &z, &vz, &loose);
    if (!g) m.gravity[2] = 0.0;
    LsimStepper *s = NULL;
    char err[256];
    assert_int_equal(lsim_stepper_create(&s, &m, NULL, err, sizeof err), 0);
    LsimStepStats stats;
    double top = 0.0;
    int slept_at = -1;
    for (int k = 0; k < 300 && slept_at < 0; ++k) {
      assert_true(lsim_step(s, &m, &st, &stats) >= 0);
      top = fmax(top, st.q[2]);
      if (stats.sleeping) slept_at = k;
    }
    if (g) {
      /* Up 3^2 / 2g = 0.46 m, down to the ground: 0.31 + 0.61 s, so after step 80. */
      assert_true(top > 1.4);
      assert_true(slept_at > 80);
      assert_true(fabs(st.q[2] - HALF) < 1e-3);
    } else {
      assert_int_equal(slept_at, 1); /* rest steps 1 and 2: asleep after the second */
      assert_true(fabs(st.q[2] - (1.0 + 2 * H * 0.005)) < 1e-12);
    }
    lsim_stepper_free(s);
    lsim_state_free(&st);
    lsim_model_free(&m);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_no_sleep_in_flight),
      cmocka_unit_test(test_default_off),
      cmocka_unit_test(test_scene_key),
      cmocka_unit_test(test_box_sleeps_and_stays),
      cmocka_unit_test(test_falling_box_wakes_sleeper),
      cmocka_unit_test(test_force_wakes_sleeper),
      cmocka_unit_test(test_kinematic_wakes_sleeper),
      cmocka_unit_test(test_record),
      cmocka_unit_test(test_pile_unchanged_when_never_asleep),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
