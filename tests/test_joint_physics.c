/* test_joint_physics.c: joints and tethers in the time step against closed forms: bodies
 * held by redundant joints (a 2-D bar pinned to the world at both ends, a 3-D hinge made of
 * two ball joints), whose impulses must split by least norm, and the hinge's small-amplitude
 * period against the compound pendulum's as semi-implicit Euler shifts it. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact/constraints.h"
#include "contact/step.h"
#include "scene/scene.h"

typedef struct {
  LsimModel m;
  LsimState st;
  LsimStepper *s;
} Run;

/* Parses json and makes its stepper with the scene's solver (or solver when not NULL). */
static void run_open(Run *r, const char *json, const char *solver) {
  LsimSceneError se;
  if (lsim_scene_parse(json, "test", &r->m, &r->st, &se)) {
    char line[512];
    lsim_scene_error_format(&se, line, sizeof line);
    fail_msg("scene: %s", line);
  }
  char err[256];
  if (lsim_stepper_create(&r->s, &r->m, solver, err, sizeof err)) fail_msg("stepper: %s", err);
}

static void run_close(Run *r) {
  lsim_stepper_free(r->s);
  lsim_state_free(&r->st);
  lsim_model_free(&r->m);
}

/* One step, which must be solved. */
static void step(Run *r) {
  LsimStepStats stats;
  const int rc = lsim_step(r->s, &r->m, &r->st, &stats);
  if (rc != LSIM_SOLVED)
    fail_msg("step %d: status %d (%s)", r->st.step, rc, lsim_stepper_last_error(r->s));
}

/* The impulse of joint j's row k in the last step. */
static double joint_impulse(const Run *r, int j, int k) {
  const LsimContactSet *set = lsim_stepper_contacts(r->s);
  for (int c = 0; c < set->count; ++c)
    if (set->contacts[c].id == lsim_joint_id(j, k)) return set->contacts[c].normal_impulse;
  fail_msg("joint %d row %d: no row", j, k);
  return NAN;
}

/* A uniform bar (m = 1 kg, length 1 m, I = 1/12 kg m^2) tilted 0.3 rad, pinned to the world
 * at both ends under gravity: 4 rows for 3 motions, A = J W J' singular (the two x rows
 * coincide when the bar is level; tilted, CHOLMOD meets a pivot of round-off size and
 * splits the impulses arbitrarily, +-0.022 N s where 0 is right). The bar stays at rest
 * (|v| below 1e-12: round-off of the elimination), and the least-norm split gives each pin
 * half the weight's impulse, m g h / 2 upwards, and no horizontal impulse (1e-12 of m g h:
 * round-off of the pivoted factor), with every solver, level or tilted. */
static void test_bar_pinned_at_both_ends(void **state) {
  (void)state;
  const char *solvers[] = {"lemke", "pgs", "newton", "lemke_sparse"};
  for (int tilt = 0; tilt < 2; ++tilt)
    for (int si = 0; si < 4; ++si) {
      const double a = tilt ? 0.3 : 0.0, c = cos(a), sn = sin(a);
      char json[2048];
      snprintf(json, sizeof json,
               "{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.001, \"steps\": 200,"
               " \"gravity\": [0, -9.81],"
               " \"bodies\": [{\"name\": \"bar\", \"mass\": 1, \"inertia\": %.17g,"
               "   \"position\": [0.1, 0.2], \"orientation\": %.17g}],"
               " \"joints\": ["
               "  {\"name\": \"left\", \"type\": \"pin\", \"ends\": [{\"body\": \"bar\", \"point\": [-0.5, 0]},"
               "   {\"world\": [%.17g, %.17g]}]},"
               "  {\"name\": \"right\", \"type\": \"pin\", \"ends\": [{\"body\": \"bar\", \"point\": [0.5, 0]},"
               "   {\"world\": [%.17g, %.17g]}]}]}",
               1.0 / 12.0, a, 0.1 - 0.5 * c, 0.2 - 0.5 * sn, 0.1 + 0.5 * c, 0.2 + 0.5 * sn);
      Run r;
      run_open(&r, json, solvers[si]);
      const double mgh = 9.81 * 0.001;
      for (int k = 0; k < r.m.steps; ++k) {
        step(&r);
        for (int d = 0; d < 3; ++d) assert_true(fabs(r.st.v[d]) < 1e-12);
        for (int j = 0; j < 2; ++j) {
          assert_true(lsim_joint_error(&r.m, &r.st, r.st.time, j) < 1e-12);
          const double ix = joint_impulse(&r, j, 0), iy = joint_impulse(&r, j, 1);
          if (!(fabs(ix) < 1e-12 * mgh && fabs(iy - mgh / 2) < 1e-12 * mgh))
            fail_msg("%s tilt %g step %d pin %d: impulse (%g, %g), expected (0, %g)",
                     solvers[si], a, k + 1, j, ix, iy, mgh / 2);
        }
      }
      run_close(&r);
    }
}

/* The same bar (now a box 1 m x 0.1 m), pinned at both ends, carrying a ball (m_b = 0.5 kg,
 * radius 0.1 m, mu 0.3) resting at x = 0.25 m: redundant joint rows next to a contact row,
 * so the reduced LCP's B_I' = B_I - B_E A^+ J_E B_I comes from the least-norm factor. The
 * vertical impulses are statics: left (m/2 + m_b/4) g h, right (m/2 + 3 m_b/4) g h; the
 * horizontal ones split by least norm into 0. Checked after 500 steps, with every exact
 * solver to 1e-12 relative (round-off of the elimination) and PGS and newton to 1e-9
 * (their default acceptance: natural residual 1e-10 of max|q|, q ~ g h); the ball stays
 * put (1e-12 m). */
static void test_bar_pinned_at_both_ends_carrying_a_ball(void **state) {
  (void)state;
  const char *solvers[] = {"lemke", "lemke_sparse", "pgs", "newton"};
  const double tol[] = {1e-12, 1e-12, 1e-9, 1e-9};
  const char *json =
      "{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.001, \"steps\": 500,"
      " \"gravity\": [0, -9.81],"
      " \"bodies\": [{\"name\": \"bar\", \"mass\": 1, \"inertia\": 0.08333333333333333,"
      "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.5, 0.05]}]},"
      "  {\"name\": \"ball\", \"mass\": 0.5, \"position\": [0.25, 0.15],"
      "   \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.1, \"mu\": 0.3}]}],"
      " \"joints\": ["
      "  {\"name\": \"left\", \"type\": \"pin\", \"ends\": [{\"body\": \"bar\", \"point\": [-0.5, 0]},"
      "   {\"world\": [-0.5, 0]}]},"
      "  {\"name\": \"right\", \"type\": \"pin\", \"ends\": [{\"body\": \"bar\", \"point\": [0.5, 0]},"
      "   {\"world\": [0.5, 0]}]}]}";
  for (int si = 0; si < 4; ++si) {
    Run r;
    run_open(&r, json, solvers[si]);
    for (int k = 0; k < r.m.steps; ++k) step(&r);
    const double gh = 9.81 * 0.001, left = (0.5 + 0.125) * gh, right = (0.5 + 0.375) * gh;
    const double il = joint_impulse(&r, 0, 1), ir = joint_impulse(&r, 1, 1);
    if (!(fabs(il - left) < tol[si] * left && fabs(ir - right) < tol[si] * right &&
          fabs(joint_impulse(&r, 0, 0)) < tol[si] * gh && fabs(joint_impulse(&r, 1, 0)) < tol[si] * gh))
      fail_msg("%s: pins (%g, %g) and (%g, %g), expected (0, %g) and (0, %g)", solvers[si],
               joint_impulse(&r, 0, 0), il, joint_impulse(&r, 1, 0), ir, left, right);
    const LsimBody *ball = &r.m.bodies[1];
    assert_true(fabs(r.st.q[ball->q_offset + 1] - 0.15) < 1e-12);
    run_close(&r);
  }
}

/* A chain of capsule links (chain_20's: radius 0.02 m, half length 0.06 m, 0.2 m between
 * pins, so neighbours' ends are 0.04 m apart at the pin) falling at 10 m/s: at h = 5 ms
 * the neighbours' end-to-end contacts are within what the step can close, and enter the
 * step. Their contact point is the pin, whose relative velocity the joints fix: after the
 * elimination their rows' diagonals are round-off of either sign (-4e-14 on a 100-link
 * chain, where PGS stopped with bad_diagonal at step 90 and let the chain sink 1.2 m into
 * the ground). Such rows leave the LCP: straight links' contacts whole (held open, q > 0),
 * bent links' (0.1 rad a pin) friction rows (the normal row keeps a small diagonal). So
 * the LCP has 0 variables (straight) and one normal per pin (bent), and with PGS as with
 * Lemke every step is solved and the chain falls freely, as the same chain without
 * shapes does (positions to 1e-12 m: the contacts' impulses are zero). */
static void chain_json(char *json, size_t len, double bend, int shapes) {
  int k = snprintf(json, len,
                   "{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.005, \"steps\": 20,"
                   " \"gravity\": [0, -9.81], \"bodies\": [");
  double x = 0.0, y = 1.0, a = 0.0;
  for (int i = 0; i < 3; ++i) {
    k += snprintf(json + k, len - (size_t)k,
                  "%s{\"name\": \"l%d\", \"mass\": 0.1, \"inertia\": 0.0004, \"position\": [%.17g, %.17g],"
                  " \"orientation\": %.17g, \"velocity\": [0, -10]%s}",
                  i ? ", " : "", i, x + 0.1 * cos(a), y + 0.1 * sin(a), a,
                  shapes ? ", \"shapes\": [{\"type\": \"capsule\", \"radius\": 0.02,"
                           " \"half_length\": 0.06, \"mu\": 0.5}]" : "");
    x += 0.2 * cos(a), y += 0.2 * sin(a), a += bend;
  }
  k += snprintf(json + k, len - (size_t)k, "], \"joints\": [");
  for (int i = 1; i < 3; ++i)
    k += snprintf(json + k, len - (size_t)k,
                  "%s{\"type\": \"pin\", \"ends\": [{\"body\": \"l%d\", \"point\": [-0.1, 0]},"
                  " {\"body\": \"l%d\", \"point\": [0.1, 0]}]}", i > 1 ? ", " : "", i, i - 1);
  snprintf(json + k, len - (size_t)k, "]}");
}

static void test_contacts_held_by_joints(void **state) {
  (void)state;
  const char *solvers[] = {"pgs", "lemke"};
  for (int bent = 0; bent < 2; ++bent)
    for (int si = 0; si < 2; ++si) {
      char json[4096], bare[4096];
      chain_json(json, sizeof json, bent ? 0.1 : 0.0, 1);
      chain_json(bare, sizeof bare, bent ? 0.1 : 0.0, 0);
      Run r, b;
      run_open(&r, json, solvers[si]);
      run_open(&b, bare, solvers[si]);
      for (int k = 0; k < r.m.steps; ++k) {
        LsimStepStats stats;
        const int rc = lsim_step(r.s, &r.m, &r.st, &stats);
        if (rc != LSIM_SOLVED) fail_msg("%s bent %d step %d: status %d", solvers[si], bent, k + 1, rc);
        if (stats.lcp_size != (bent ? 2 : 0))
          fail_msg("%s bent %d step %d: LCP of %d variables", solvers[si], bent, k + 1, stats.lcp_size);
        step(&b);
        for (int i = 0; i < r.m.nq; ++i) assert_true(fabs(r.st.q[i] - b.st.q[i]) < 1e-12);
      }
      run_close(&r);
      run_close(&b);
    }
}

/* A chain of 5 links (m = 0.1 kg, 0.2 m) hanging from the world at rest, by pins or by
 * taut tethers, with sleep on: the bodies fall asleep (the whole group at step 500, after
 * sleep.time = 0.5 s at rest) and their rows leave the LCP, but the chain still hangs:
 * the impulses the step reports for them (the contact set's tether and joint rows, which
 * the record's /tethers/impulse and /joints/impulse copy) stay the weight below each link,
 * (5 - k) m g h, awake and asleep alike (they were 0 while asleep), and the step's
 * ncontacts counts them. 1e-10 relative: the
 * joint rows' gap / h turns the pins' round-off of 1e-17 m into 1e-14 m/s, and the first
 * step measured 6.8e-12. */
static void test_sleeping_chain_keeps_its_tensions(void **state) {
  (void)state;
  for (int tethered = 0; tethered < 2; ++tethered) {
    char json[4096];
    int k = snprintf(json, sizeof json,
                     "{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.001, \"steps\": 800,"
                     " \"gravity\": [0, -9.81], \"sleep\": {\"enabled\": true}, \"bodies\": [");
    for (int i = 0; i < 5; ++i)
      k += snprintf(json + k, sizeof json - (size_t)k,
                    "%s{\"name\": \"l%d\", \"mass\": 0.1, \"inertia\": 0.0003333333333333333,"
                    " \"position\": [0, %.17g], \"orientation\": -1.5707963267948966}",
                    i ? ", " : "", i, -0.1 - 0.2 * i);
    k += snprintf(json + k, sizeof json - (size_t)k, tethered ? "], \"tethers\": [" : "], \"joints\": [");
    for (int i = 0; i < 5; ++i) {
      char other[64];
      if (i == 0) snprintf(other, sizeof other, "{\"world\": [0, 0]}");
      else if (tethered) snprintf(other, sizeof other, "{\"body\": \"l%d\"}", i - 1);
      else snprintf(other, sizeof other, "{\"body\": \"l%d\", \"point\": [0.1, 0]}", i - 1);
      if (tethered)
        k += snprintf(json + k, sizeof json - (size_t)k,
                      "%s{\"length\": %g, \"ends\": [{\"body\": \"l%d\"}, %s]}", i ? ", " : "",
                      i ? 0.2 : 0.1, i, other);
      else
        k += snprintf(json + k, sizeof json - (size_t)k,
                      "%s{\"type\": \"pin\", \"ends\": [{\"body\": \"l%d\", \"point\": [-0.1, 0]}, %s]}",
                      i ? ", " : "", i, other);
    }
    snprintf(json + k, sizeof json - (size_t)k, "]}");
    Run r;
    run_open(&r, json, "lemke");
    int slept = 0;
    for (int s = 0; s < r.m.steps; ++s) {
      LsimStepStats stats;
      assert_int_equal(lsim_step(r.s, &r.m, &r.st, &stats), LSIM_SOLVED);
      if (stats.sleeping == 5) ++slept;
      const LsimContactSet *set = lsim_stepper_contacts(r.s);
      int seen = 0;
      for (int c = 0; c < set->count; ++c) {
        const LsimContact *ct = &set->contacts[c];
        const uint64_t id = ct->id;
        double expect;
        if (tethered && ct->kind == LSIM_CONTACT_TETHER) {
          expect = (5 - ct->source) * 0.1 * 9.81 * 0.001;
        } else if (!tethered && ct->kind == LSIM_CONTACT_EQUALITY && id == lsim_joint_id(ct->source, 1)) {
          expect = (5 - ct->source) * 0.1 * 9.81 * 0.001;
        } else {
          continue;
        }
        ++seen;
        if (!(fabs(ct->normal_impulse - expect) < 1e-10 * expect))
          fail_msg("%s %d at step %d (%d asleep): impulse %.17g, expected %.17g",
                   tethered ? "tether" : "joint", ct->source, s + 1, stats.sleeping,
                   ct->normal_impulse, expect);
      }
      assert_int_equal(seen, 5);
      /* The step's contact count is the rows the record writes for it, resting ones
         included (it counted only the awake rows: 0 while the chain slept). */
      assert_int_equal(stats.ncontacts, set->count);
    }
    assert_true(slept >= 200);
    run_close(&r);
  }
}

/* A pendulum (m = 1 kg, a rod of 1 m to the world, released level) with a rope of the
 * rod's length beside it: the rope's row is the rod's, held by it, with psi = 0 to
 * rounding, so the reduced LCP had a round-off diagonal and a round-off q of either sign
 * (PGS stopped with bad_diagonal, Lemke with secondary_ray, on 110 of 500 steps). The
 * held rope leaves the LCP (impulse 0: the least-norm split of the load between rod and
 * rope), every step is solved, and the rod's impulses and the motion are the rope-less
 * pendulum's (1e-12 relative, 1e-12 m: the same elimination; the rope shorter than the
 * rod would still be refused by the scene, overstretched). The same with the rope 1.2 m
 * long, slack and held open. */
static void test_rope_beside_a_rod(void **state) {
  (void)state;
  const char *solvers[] = {"pgs", "lemke"};
  const char *base =
      "{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.001, \"steps\": 500,"
      " \"gravity\": [0, -9.81],"
      " \"bodies\": [{\"name\": \"bob\", \"mass\": 1, \"inertia\": 0.01, \"position\": [1, 0]}],"
      " \"joints\": [{\"name\": \"rod\", \"type\": \"rod\", \"ends\": [{\"body\": \"bob\"}, {\"world\": [0, 0]}]}]";
  for (int slack = 0; slack < 2; ++slack)
    for (int si = 0; si < 2; ++si) {
      char json[2048], bare[2048];
      snprintf(json, sizeof json,
               "%s, \"tethers\": [{\"name\": \"rope\", \"length\": %s, \"ends\": [{\"body\": \"bob\"},"
               " {\"world\": [0, 0]}]}]}", base, slack ? "1.2" : "1.0");
      snprintf(bare, sizeof bare, "%s}", base);
      Run r, b;
      run_open(&r, json, solvers[si]);
      run_open(&b, bare, solvers[si]);
      for (int k = 0; k < r.m.steps; ++k) {
        step(&r);
        step(&b);
        const double ir = joint_impulse(&r, 0, 0), ib = joint_impulse(&b, 0, 0);
        if (!(fabs(ir - ib) <= 1e-12 * fabs(ib) + 1e-18))
          fail_msg("%s slack %d step %d: rod impulse %.17g, without the rope %.17g", solvers[si],
                   slack, k + 1, ir, ib);
        for (int i = 0; i < r.m.nq; ++i) assert_true(fabs(r.st.q[i] - b.st.q[i]) < 1e-12);
      }
      run_close(&r);
      run_close(&b);
    }
}

/* A chain of 50 pinned links (m = 0.1 kg, 0.2 m, I = m l^2 / 12) hanging straight down
 * from the world at rest: each pin carries the weight below it, (50 - k) m g h upwards on
 * link k, and no horizontal impulse, at every one of 200 steps, with Lemke and PGS. Checked
 * to 2e-9 of the top pin's (50 m g h): measured 5.2e-10 with either, the elimination's
 * round-off grown by the chain's conditioning (J W J' of a chain has a condition number
 * growing as N^2) and by the slow motion it starts (1.9e-11 m/s after 200 steps). */
static void test_hanging_chain_statics(void **state) {
  (void)state;
  enum { N = 50 };
  static char json[32768];
  int k = snprintf(json, sizeof json,
                   "{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.001, \"steps\": 200,"
                   " \"gravity\": [0, -9.81], \"bodies\": [");
  for (int i = 0; i < N; ++i)
    k += snprintf(json + k, sizeof json - (size_t)k,
                  "%s{\"mass\": 0.1, \"inertia\": 0.0003333333333333333, \"position\": [0, %.17g],"
                  " \"orientation\": -1.5707963267948966}", i ? ", " : "", -0.1 - 0.2 * i);
  k += snprintf(json + k, sizeof json - (size_t)k, "], \"joints\": [");
  for (int i = 0; i < N; ++i) {
    char other[64];
    if (i == 0) snprintf(other, sizeof other, "{\"world\": [0, 0]}");
    else snprintf(other, sizeof other, "{\"body\": \"body%d\", \"point\": [0.1, 0]}", i - 1);
    k += snprintf(json + k, sizeof json - (size_t)k,
                  "%s{\"type\": \"pin\", \"ends\": [{\"body\": \"body%d\", \"point\": [-0.1, 0]}, %s]}",
                  i ? ", " : "", i, other);
  }
  snprintf(json + k, sizeof json - (size_t)k, "]}");
  const char *solvers[] = {"lemke", "pgs"};
  const double mgh = 0.1 * 9.81 * 0.001;
  for (int si = 0; si < 2; ++si) {
    Run r;
    run_open(&r, json, solvers[si]);
    for (int s = 0; s < r.m.steps; ++s) {
      step(&r);
      for (int j = 0; j < N; ++j) {
        const double iy = joint_impulse(&r, j, 1), ix = joint_impulse(&r, j, 0);
        if (!(fabs(iy - (N - j) * mgh) < 2e-9 * N * mgh && fabs(ix) < 2e-9 * N * mgh))
          fail_msg("%s step %d pin %d: (%.17g, %.17g), expected (0, %.17g)", solvers[si], s + 1,
                   j, ix, iy, (N - j) * mgh);
      }
    }
    run_close(&r);
  }
}

/* A 3-D plate (m = 2 kg, 1 m x 1 m, I_x = m (2a)^2 / 12 about its centre, a = 0.5 m) hung
 * from a hinge along x made of two ball joints at (+-0.5, 0, 0): 6 rows, rank 5. Released
 * at theta0 = 0.05 rad, it swings as a compound pendulum: omega^2 = m g a / (I_x + m a^2),
 * T = 2 pi / omega (1 + theta0^2 / 16). Semi-implicit Euler turns at omega~ with
 * 2 sin(omega~ h / 2) = omega h, a period shorter by (omega h)^2 / 24 (6.1e-7 at h = 1 ms);
 * the measured period (mean of downward zero crossings of y over 10 s, linearly
 * interpolated) matches T (1 - (omega h)^2 / 24) to 1e-7 relative (the amplitude series'
 * next term 11 theta0^4 / 3072 is 2.2e-8, the interpolation of a crossing h^2 y'' / 8 over
 * a 1.6 s period below 1e-8). The hinge does not slide (x below 1e-12 m), carries no
 * impulse along its axis (1e-12 of m g h), and its two ball joints share the vertical load
 * equally (least norm; to 1e-12 of m g h). */
static void test_hinge_of_two_ball_joints(void **state) {
  (void)state;
  const double th0 = 0.05, m = 2.0, a = 0.5, g = 9.81, h = 0.001;
  const double ixx = m * 4 * a * a / 12;
  char json[2048];
  snprintf(json, sizeof json,
           "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": %.17g, \"steps\": 10000,"
           " \"gravity\": [0, 0, %.17g],"
           " \"bodies\": [{\"name\": \"door\", \"mass\": %.17g, \"inertia\": [%.17g, %.17g, %.17g],"
           "   \"position\": [0, %.17g, %.17g], \"orientation\": {\"axis\": [1, 0, 0], \"angle\": %.17g}}],"
           " \"joints\": ["
           "  {\"name\": \"hl\", \"type\": \"pin\", \"ends\": [{\"body\": \"door\", \"point\": [-0.5, 0, %.17g]},"
           "   {\"world\": [-0.5, 0, 0]}]},"
           "  {\"name\": \"hr\", \"type\": \"pin\", \"ends\": [{\"body\": \"door\", \"point\": [0.5, 0, %.17g]},"
           "   {\"world\": [0.5, 0, 0]}]}]}",
           h, -g, m, ixx, ixx, ixx, a * sin(th0), -a * cos(th0), th0, a, a);
  Run r;
  run_open(&r, json, "lemke");
  double y_prev = r.st.q[1], t_first = -1.0, t_last = -1.0;
  int crossings = 0;
  for (int k = 0; k < r.m.steps; ++k) {
    step(&r);
    const double y = r.st.q[1];
    if (y_prev > 0.0 && y <= 0.0) {
      const double tc = r.st.time - h + h * y_prev / (y_prev - y);
      if (crossings++ == 0) t_first = tc;
      t_last = tc;
    }
    y_prev = y;
    assert_true(fabs(r.st.q[0]) < 1e-12);
    const double mgh = m * g * h;
    assert_true(fabs(joint_impulse(&r, 0, 0)) < 1e-12 * mgh);
    assert_true(fabs(joint_impulse(&r, 1, 0)) < 1e-12 * mgh);
    assert_true(fabs(joint_impulse(&r, 0, 2) - joint_impulse(&r, 1, 2)) < 1e-12 * mgh);
  }
  assert_true(crossings >= 5);
  const double period = (t_last - t_first) / (crossings - 1);
  const double omega = sqrt(m * g * a / (ixx + m * a * a));
  const double expect = 2 * 3.14159265358979323846 / omega * (1 + th0 * th0 / 16) * (1 - omega * omega * h * h / 24);
  if (!(fabs(period - expect) < 1e-7 * expect))
    fail_msg("period %.12g, expected %.12g (%.3g relative)", period, expect, period / expect - 1);
  run_close(&r);
}

/* File 003's moving anchor, a position-controlled source: a 1-D body (m = 2 kg) on a taut
 * rope (L = 1 m) behind an anchor that accelerates at a = 2 m/s^2 from rest (velocity table
 * [[0, 0], [10, 20]]: x_a = t^2), and a second body pinned to an anchor on a sinusoid
 * (x_a = 0.3 sin(2 pi t)), h = 0.01 s. Pulled away along the line, the roped body and the
 * pinned one move with their anchors: x_k = x_a(t_k) - 1 and x_a(t_k), so the velocity of
 * step k is the anchor's mean velocity over it, (x_a(t_k) - x_a(t_k-1)) / h, and the rope's
 * impulse m times its change (m a h / 2 in step 1, m a h after). The row's d psi / dt is the
 * anchor's displacement over the step / h (the rate at the step's start left the rope
 * a h^2 / 2 = 1e-4 m too long in every step, and the pin 0.3 (2 pi)^2 h^2 / 2 = 5.9e-4 m
 * off). Tolerance 1e-12: sums of 100 steps of O(1) round-off. */
static void test_anchor_on_a_prescribed_path(void **state) {
  (void)state;
  const double m = 2.0, a = 2.0, h = 0.01, A = 0.3, w = 2 * 3.14159265358979323846;
  Run r;
  run_open(&r,
           "{\"lcpsim\": 1, \"dimension\": 1, \"time_step\": 0.01, \"steps\": 100,"
           " \"bodies\": [{\"name\": \"roped\", \"position\": -1, \"mass\": 2},"
           "  {\"name\": \"pinned\", \"position\": 5, \"mass\": 2}],"
           " \"tethers\": [{\"name\": \"rope\", \"length\": 1, \"ends\": [{\"body\": \"roped\"},"
           "  {\"path\": {\"origin\": [0], \"table\": [[0, 0], [10, 20]]}}]}],"
           " \"joints\": [{\"name\": \"pin\", \"type\": \"pin\", \"ends\": [{\"body\": \"pinned\"},"
           "  {\"path\": {\"origin\": [5], \"amplitude\": [0.3], \"frequency\": 1}}]}]}",
           "lemke");
  double xa_prev = 0.0, v_prev = 0.0;
  for (int k = 1; k <= r.m.steps; ++k) {
    step(&r);
    const double t = k * h, xa = a * t * t / 2;
    if (!(fabs(r.st.q[0] - (xa - 1.0)) < 1e-12))
      fail_msg("step %d: roped body at %.15g, anchor - L = %.15g", k, r.st.q[0], xa - 1.0);
    const double v = (xa - xa_prev) / h;
    assert_true(fabs(r.st.v[0] - v) < 1e-12);
    const LsimContactSet *set = lsim_stepper_contacts(r.s);
    double p = NAN;
    for (int c = 0; c < set->count; ++c)
      if (set->contacts[c].id == lsim_tether_id(0)) p = set->contacts[c].normal_impulse;
    if (!(fabs(p - m * (v - v_prev)) < 1e-12))
      fail_msg("step %d: rope impulse %.15g, expected %.15g", k, p, m * (v - v_prev));
    if (!(fabs(r.st.q[1] - (5.0 + A * sin(w * t))) < 1e-12))
      fail_msg("step %d: pinned body at %.15g, anchor at %.15g", k, r.st.q[1], 5.0 + A * sin(w * t));
    xa_prev = xa, v_prev = v;
  }
  run_close(&r);
}

/* Drift correction with RBDL's time constant (file 004: T_stab, default 0.1 s): a bar
 * (m = 1 kg, I = 1/12 kg m^2, no gravity, at rest) whose pin end starts 0.01 m from its
 * world pin. "baumgarte_time": 0.1 at h = 1 ms is c = h / T = 0.01, and the pin row asks
 * J v' = -c e / h, so the error falls as e_k = e_0 (1 - h / T)^k: 0.01 * 0.99^100 =
 * 3.66e-3 m at t = T (e^-1 e_0 to first order in h / T). The run matches "baumgarte": 0.01
 * bit for bit and the closed form to 1e-15 m (the bar only translates along the error:
 * each step is exact up to round-off of O(1e-2)). Without either key (c = 1) the error is
 * gone after one step. */
static void test_baumgarte_time_constant(void **state) {
  (void)state;
  const char *fmt = "{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.001, \"steps\": 300,"
                    " \"gravity\": [0, 0], %s \"bodies\": [{\"name\": \"bar\", \"mass\": 1,"
                    " \"inertia\": 0.08333333333333333, \"position\": [0.51, 0]}],"
                    " \"joints\": [{\"name\": \"pin\", \"type\": \"pin\", \"ends\": [{\"body\": \"bar\","
                    " \"point\": [-0.5, 0]}, {\"world\": [0, 0]}]}]}";
  const char *keys[3] = {"\"baumgarte_time\": 0.1,", "\"baumgarte\": 0.01,", ""};
  Run r[3];
  char json[1024];
  for (int i = 0; i < 3; ++i) {
    snprintf(json, sizeof json, fmt, keys[i]);
    run_open(&r[i], json, "lemke");
  }
  assert_true(r[0].m.baumgarte == 0.001 / 0.1);
  double e0 = lsim_joint_error(&r[0].m, &r[0].st, 0.0, 0);
  assert_true(fabs(e0 - 0.01) < 1e-15);
  for (int k = 1; k <= 300; ++k) {
    for (int i = 0; i < 3; ++i) step(&r[i]);
    const double e = lsim_joint_error(&r[0].m, &r[0].st, r[0].st.time, 0);
    const double expect = 0.01 * pow(0.99, k);
    if (!(fabs(e - expect) < 1e-15)) fail_msg("step %d: error %.17g, expected %.17g", k, e, expect);
    assert_true(e == lsim_joint_error(&r[1].m, &r[1].st, r[1].st.time, 0));
    assert_true(lsim_joint_error(&r[2].m, &r[2].st, r[2].st.time, 0) < 1e-15);
  }
  for (int i = 0; i < 3; ++i) run_close(&r[i]);
}

/* The angle between bodies 1 and 2 (rad): 2-D their angles' difference; 3-D the turn of
 * a^-1 b, 2 asin |its vector part| (accurate at 1e-7 rad, where acos of the dot is not). */
static double relative_turn(const Run *r) {
  const double *a = r->st.q + r->m.bodies[1].q_offset, *b = r->st.q + r->m.bodies[2].q_offset;
  if (r->m.dimension == 2) return fabs(b[2] - a[2]);
  const double aw = a[3], bw = b[3], *av = a + 4, *bv = b + 4;
  double v[3];
  for (int k = 0; k < 3; ++k) {
    const int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
    v[k] = aw * bv[k] - bw * av[k] - (av[k1] * bv[k2] - av[k2] * bv[k1]);
  }
  return 2.0 * asin(fmin(1.0, sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])));
}

/* Two thin boxes (0.2 m x 0.01 m, 0.05 kg each) pinned end to end at the middle of their
 * touching end faces, at height y, the first hung by a rope from an anchor, above a
 * frictional floor; h = 0.002 s, Lemke, 500 steps; three such scenes (y, anchor, rope
 * length just taut), the third in 3-D too (boxes 0.01 m deep, four corner contacts), at
 * h = 0.01 s, and with a rod between the boxes' centres (0.2 m) in place of the pin. The
 * joint locks the pair: bending either way pushes a corner of one face into the other,
 * so it swings as one rod. The contacts at the two corners make with the joint a
 * self-stress (equal impulses at both, balanced by the joint's: M d = 0 with d = (1, 1)
 * >= 0), so the LCP is feasible only if q.d >= 0, and q.d is 0 but for rounding and the
 * rows' linearization (the joint's correction closes the faces as their gaps do). Before,
 * Lemke ended on a secondary ray (infeasible) on 28, 35 and 76 of the 500 steps (2-D), 70
 * (3-D), 31 of 100 (h = 0.01 s), 187 (rod), and the fallback's results, impulses up to
 * 5e6 N*s cancelling between the pin and the corners, bent the hinge by 7.6e-3 rad (2-D,
 * the corners 3.5e-5 m inside each other) and 2.25 rad (3-D, where the energy rose from
 * 0.098 J to 0.214 J; lcpsim run on the same scene). Now a contact between jointed
 * bodies may close to -(LSIM_TOUCH_REACH + |e x n|), e the joint's error and n the
 * contact's normal (contact/step_lcp.c, cq_range), q.d >= 2 reach / h, and:
 *  - every step is solved;
 *  - the total energy (kinetic plus gravitational) never rises above its start by more
 *    than the joint's drift correction can add, the boxes' 0.1 kg at E / h (E the joint's
 *    largest error |e| over the run), plus 1e-12 J of rounding: the contact rows are
 *    inelastic, their allowance lets bodies approach, never pushes them (measured: 0);
 *  - the pair stays locked within the joint's own error (E: 4.9e-7 to 3.65e-6 m at h =
 *    0.002 s, largest where the boxes hit the floor; 7.2e-5 m at 0.01 s): a corner's gap
 *    never below -(reach + E) - 1e-15 m (its row asks gap + h v_n >= -(reach + |e x n|);
 *    1e-15 m covers the placed coordinates' rounding at 0.3 m), and the bend theta (the
 *    boxes' relative turn) at most (reach + 2 E) / 0.005: the corners 0.005 m from the
 *    face's middle have gaps e.n +- 0.005 theta >= -(reach + |e x n|) (measured 2e-7 ..
 *    2.5e-4 rad).
 * (The scenes are chaotic: b's x is 0.1 + 0.1 + 0.1 as the scene generator summed it.) */
static void test_boxes_hinged_at_their_end_faces(void **state) {
  (void)state;
  static const struct {
    int dim, rod;
    double h, y, anchor[2], rope;
  } scenes[] = {{2, 0, 0.002, 0.02, {-0.05, 0.05}, 0.05830951994845301},
                {2, 0, 0.002, 0.05, {-0.05, 0.05}, 0.050000001},
                {2, 0, 0.002, 0.1, {0.1, 0.15}, 0.11180339987498948},
                {3, 0, 0.002, 0.1, {0.1, 0.15}, 0.11180339987498948},
                {2, 0, 0.01, 0.1, {0.1, 0.15}, 0.11180339987498948},
                {2, 1, 0.002, 0.1, {0.1, 0.15}, 0.11180339987498948}};
  for (size_t c = 0; c < sizeof scenes / sizeof scenes[0]; ++c) {
    /* 3-D: the 2-D scene in the x-z plane, the boxes 0.01 m deep (y) too. */
    const int d3 = scenes[c].dim == 3;
    char json[2048], pa[64], pb[64], anchor[64], joint[256];
    const char *z0 = d3 ? "0, " : "", *depth = d3 ? ", 0.005" : "", *end = d3 ? ", 0" : "";
    snprintf(pa, sizeof pa, "[0.1, %s%.17g]", z0, scenes[c].y);
    snprintf(pb, sizeof pb, "[0.30000000000000004, %s%.17g]", z0, scenes[c].y);
    snprintf(anchor, sizeof anchor, "[%.17g, %s%.17g]", scenes[c].anchor[0], z0, scenes[c].anchor[1]);
    if (scenes[c].rod) /* between the centres, its length their distance, 0.2 m */
      snprintf(joint, sizeof joint, "{\"name\": \"rod\", \"type\": \"rod\", \"ends\": "
               "[{\"body\": \"b\"}, {\"body\": \"a\"}]}");
    else
      snprintf(joint, sizeof joint, "{\"name\": \"pin\", \"type\": \"pin\", \"ends\": [{\"body\": "
               "\"b\", \"point\": [-0.1, 0%s]}, {\"body\": \"a\", \"point\": [0.1, 0%s]}]}", end, end);
    snprintf(json, sizeof json,
             "{\"lcpsim\": 1, \"dimension\": %d, \"time_step\": %.17g, \"duration\": 1.0,"
             " \"gravity\": [0, %s-9.81], \"solver\": {\"name\": \"lemke\"}, \"bodies\": ["
             "  {\"name\": \"floor\", \"type\": \"static\", \"shapes\": [{\"type\": \"plane\", \"mu\": 0.5}]},"
             "  {\"name\": \"a\", \"mass\": 0.05, \"position\": %s,"
             "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.1, 0.005%s], \"mu\": 0.5}]},"
             "  {\"name\": \"b\", \"mass\": 0.05, \"position\": %s,"
             "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.1, 0.005%s], \"mu\": 0.5}]}],"
             " \"tethers\": [{\"name\": \"rope\", \"length\": %.17g,"
             "   \"ends\": [{\"body\": \"a\", \"point\": [-0.1, 0%s]}, {\"world\": %s}]}],"
             " \"joints\": [%s]}",
             scenes[c].dim, scenes[c].h, z0, pa, depth, pb, depth, scenes[c].rope, end, anchor,
             joint);
    Run r;
    run_open(&r, json, NULL);
    const double e0 = lsim_kinetic_energy(&r.m, &r.st) + lsim_potential_energy(&r.m, &r.st);
    double rise = 0.0, bend = 0.0, deepest = INFINITY, jerr = 0.0;
    int failed = 0, worst = 0, corners = 0;
    for (int k = 0; k < r.m.steps; ++k) {
      LsimStepStats stats;
      jerr = fmax(jerr, fabs(lsim_joint_error(&r.m, &r.st, r.st.time, 0)));
      failed += lsim_step(r.s, &r.m, &r.st, &stats) < 0;
      const LsimContactSet *cs = lsim_stepper_contacts(r.s);
      for (int i = 0; i < cs->count; ++i) {
        const LsimContact *ct = &cs->contacts[i];
        if (ct->kind != LSIM_CONTACT_NORMAL || ct->body[0] + ct->body[1] != 3) continue;
        corners++;
        deepest = fmin(deepest, ct->gap);
      }
      bend = fmax(bend, relative_turn(&r));
      const double e = lsim_kinetic_energy(&r.m, &r.st) + lsim_potential_energy(&r.m, &r.st);
      if (e - e0 > rise) rise = e - e0, worst = k + 1;
    }
    jerr = fmax(jerr, fabs(lsim_joint_error(&r.m, &r.st, r.st.time, 0)));
    printf("pinned boxes %zu (%d-D, %s): %d failed steps of %d; energy at most %.3g J above its "
           "start %.4g J (step %d); %d corner contacts, deepest gap %.3g m; joint error at most "
           "%.3g m; bend %.3g rad\n", c, scenes[c].dim, scenes[c].rod ? "rod" : "pin", failed,
           r.m.steps, rise, e0, worst, corners, deepest, jerr, bend);
    assert_int_equal(failed, 0);
    assert_true(rise <= 0.1 * (jerr / scenes[c].h) * (jerr / scenes[c].h) / 2 + 1e-12);
    assert_true(corners > 0);
    assert_true(deepest >= -(LSIM_TOUCH_REACH + jerr) - 1e-15);
    assert_true(bend <= (LSIM_TOUCH_REACH + 2.0 * jerr) / 0.005);
    run_close(&r);
  }
}

/* Two thin boxes pinned with their ends overlapping by 1 cm (pin points at +-0.095 of
 * half length 0.1), as chains of links are modelled; a rope holds a, a floor below; h =
 * 0.002 s, Lemke, 500 steps. The pin point lies inside both boxes, so the boxes overlap
 * at every angle of the pin and their contact could never open: detection drops it
 * (lsim_shapes_collide) whether "collide" is false or left at its default true. Either
 * way the pinned pair has no contacts, the solver never fails, and no step adds energy:
 * the energy stays within 1e-9 J of its start (what is left is the joint and rope rows'
 * rounding; measured: at most 1.7e-17 J a step, 0 above the start). Before, with the
 * default, the contact beside the pin stayed in the LCP (its diagonal after the pin's
 * elimination 0.1 % to 0.7 % of its value before): Lemke failed on all 500 steps, the
 * energy guard refused 499 results, and the run rose 3.96 J above its 0.049 J start
 * (before the correction's turn cap, step 3 alone gained 1361 J). */
static void test_overlapping_pin_adds_no_energy(void **state) {
  (void)state;
  for (int collide = 0; collide <= 1; ++collide) {
    char json[2048];
    snprintf(json, sizeof json,
             "{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.002, \"duration\": 1.0,"
             " \"gravity\": [0, -9.81], \"solver\": {\"name\": \"lemke\"},"
             " \"contact\": {\"allow_initial_overlap\": true}, \"bodies\": ["
             "  {\"name\": \"floor\", \"type\": \"static\", \"shapes\": [{\"type\": \"plane\", \"mu\": 0.5}]},"
             "  {\"name\": \"a\", \"mass\": 0.05, \"position\": [0.1, 0.05],"
             "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.1, 0.005], \"mu\": 0.5}]},"
             "  {\"name\": \"b\", \"mass\": 0.05, \"position\": [0.29, 0.05],"
             "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.1, 0.005], \"mu\": 0.5}]}],"
             " \"tethers\": [{\"name\": \"rope\", \"length\": 0.15,"
             "   \"ends\": [{\"body\": \"a\", \"point\": [-0.1, 0]}, {\"world\": [0, 0.2]}]}],"
             " \"joints\": [{\"name\": \"pin\", \"type\": \"pin\", \"collide\": %s, \"ends\": [{\"body\": \"b\","
             " \"point\": [-0.095, 0]}, {\"body\": \"a\", \"point\": [0.095, 0]}]}]}",
             collide ? "true" : "false");
    Run r;
    run_open(&r, json, NULL);
    assert_int_equal(r.m.joints[0].no_collide, !collide);
    assert_int_equal(lsim_pair_collides(&r.m, 1, 2), collide);
    assert_int_equal(lsim_pair_collides(&r.m, 2, 1), collide);
    assert_int_equal(lsim_pair_collides(&r.m, 0, 1), 1); /* the floor still collides */
    assert_int_equal(lsim_shapes_collide(&r.m, 1, 2), 0);  /* the pin point in both boxes */
    assert_int_equal(lsim_shapes_collide(&r.m, 0, 2), 1);
    const double e0 = lsim_kinetic_energy(&r.m, &r.st) + lsim_potential_energy(&r.m, &r.st);
    double rise = 0.0, gain = 0.0, e_prev = e0;
    int failed = 0, pair_contacts = 0;
    for (int k = 0; k < r.m.steps; ++k) {
      LsimStepStats stats;
      failed += lsim_step(r.s, &r.m, &r.st, &stats) < 0;
      const LsimContactSet *cs = lsim_stepper_contacts(r.s);
      for (int i = 0; i < cs->count; ++i) {
        const LsimContact *ct = &cs->contacts[i];
        pair_contacts += ct->kind == LSIM_CONTACT_NORMAL &&
                         ((ct->body[0] == 1 && ct->body[1] == 2) || (ct->body[0] == 2 && ct->body[1] == 1));
      }
      const double e = lsim_kinetic_energy(&r.m, &r.st) + lsim_potential_energy(&r.m, &r.st);
      if (e - e0 > rise) rise = e - e0;
      if (e - e_prev > gain) gain = e - e_prev;
      e_prev = e;
    }
    printf("overlapping pin, collide %s: %d failed steps, %d a-b contacts, energy at most %.3g J above its start %.4g J, largest gain of a step %.3g J\n",
           collide ? "true" : "false", failed, pair_contacts, rise, e0, gain);
    assert_int_equal(pair_contacts, 0);
    assert_int_equal(failed, 0);
    assert_true(rise <= 1e-9);
    run_close(&r);
  }
}

/* Which shape pairs a pin keeps apart (lsim_shapes_collide), on exact geometry: 2-D
 * bodies at the origin (the points are body-frame), each pair pinned once. A pin point
 * inside both shapes drops the pair; on the boundary of both (blocks hinged at their end
 * faces, chain_20's capsules: a real hinge stop) or outside either, the pair keeps its
 * contacts; inside one and on the other's boundary drops it (the shapes overlap at every
 * angle). A rod never drops a pair; a second shape of the same body away from the pin
 * keeps its contacts. 3-D: a sphere and a capsule pinned inside both; a box pinned to the
 * ground (a half-space) below its surface. Then detection's sorted table
 * (lsim_contacts_shapes_collide) gives the scan's answer for every shape pair, also after
 * a joint's no_collide changes (the table is rebuilt). */
static void test_pin_inside_both_shapes(void **state) {
  (void)state;
  /* Bodies 0..9; their shapes in that order (one each, three on body 9). b7's box is
     turned by 0.5 rad: its pin point is (0.05, 0) in the box's frame. */
  const char *json2 =
      "{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.01, \"duration\": 0.01,"
      " \"contact\": {\"allow_initial_overlap\": true}, \"bodies\": ["
      "  {\"name\": \"b0\", \"mass\": 1, \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.1, 0.01]}]},"
      "  {\"name\": \"b1\", \"mass\": 1, \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.1, 0.01]}]},"
      "  {\"name\": \"c2\", \"mass\": 1, \"shapes\": [{\"type\": \"capsule\", \"radius\": 0.02, \"half_length\": 0.06}]},"
      "  {\"name\": \"c3\", \"mass\": 1, \"shapes\": [{\"type\": \"capsule\", \"radius\": 0.02, \"half_length\": 0.06}]},"
      "  {\"name\": \"d4\", \"mass\": 1, \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.1}]},"
      "  {\"name\": \"d5\", \"mass\": 1, \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.1}]},"
      "  {\"name\": \"d6\", \"mass\": 1, \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.1}]},"
      "  {\"name\": \"b7\", \"mass\": 1, \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.1, 0.01], \"orientation\": 0.5}]},"
      "  {\"name\": \"d8\", \"mass\": 1, \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.1}]},"
      "  {\"name\": \"b9\", \"mass\": 1, \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.1, 0.01]},"
      "                                 {\"type\": \"sphere\", \"radius\": 0.05, \"position\": [-1, 0]},"
      "                                 {\"type\": \"sphere\", \"radius\": 0.05, \"position\": [1, 0]}]}],"
      " \"joints\": ["
      "  {\"type\": \"pin\", \"ends\": [{\"body\": \"b1\", \"point\": [-0.1, 0]}, {\"body\": \"b0\", \"point\": [0.1, 0]}]},"
      "  {\"type\": \"pin\", \"ends\": [{\"body\": \"c3\", \"point\": [-0.1, 0]}, {\"body\": \"c2\", \"point\": [0.1, 0]}]},"
      "  {\"type\": \"pin\", \"ends\": [{\"body\": \"d5\", \"point\": [0, 0.05]}, {\"body\": \"d4\", \"point\": [0.1, 0]}]},"
      "  {\"type\": \"rod\", \"length\": 0.001, \"ends\": [{\"body\": \"d6\", \"point\": [0, 0]}, {\"body\": \"d5\", \"point\": [0.001, 0]}]},"
      "  {\"type\": \"pin\", \"ends\": [{\"body\": \"b7\", \"point\": [0.043879128094518644, 0.023971276930210153]}, {\"body\": \"d6\", \"point\": [0, 0.09]}]},"
      "  {\"type\": \"pin\", \"ends\": [{\"body\": \"d8\", \"point\": [0, 0.1]}, {\"body\": \"b7\", \"point\": [0.2, 0]}]},"
      "  {\"type\": \"pin\", \"ends\": [{\"body\": \"b9\", \"point\": [0.099, 0.009]}, {\"body\": \"d8\", \"point\": [0.0999, 0]}]}]}";
  LsimModel m;
  LsimState st;
  LsimSceneError se;
  if (lsim_scene_parse(json2, "test", &m, &st, &se)) {
    char line[512];
    lsim_scene_error_format(&se, line, sizeof line);
    fail_msg("scene: %s", line);
  }
  assert_int_equal(m.nshapes, 12);
  assert_int_equal(lsim_shapes_collide(&m, 0, 1), 1);  /* end faces: both boundaries */
  assert_int_equal(lsim_shapes_collide(&m, 2, 3), 1);  /* capsules: the pin 0.02 m outside */
  assert_int_equal(lsim_shapes_collide(&m, 4, 5), 0);  /* d5's inside, d4's boundary */
  assert_int_equal(lsim_shapes_collide(&m, 5, 6), 1);  /* a rod */
  assert_int_equal(lsim_shapes_collide(&m, 6, 7), 0);  /* inside both (b7's box turned) */
  assert_int_equal(lsim_shapes_collide(&m, 7, 8), 1);  /* outside b7's turned box */
  assert_int_equal(lsim_shapes_collide(&m, 8, 9), 0);  /* inside both, 1e-4 m from d8's rim */
  assert_int_equal(lsim_shapes_collide(&m, 8, 10), 1); /* b9's spheres, away from the pin */
  assert_int_equal(lsim_shapes_collide(&m, 8, 11), 1);
  assert_int_equal(lsim_shapes_collide(&m, 0, 2), 1);  /* not joined */
  assert_int_equal(lsim_shapes_collide(&m, 9, 10), 0); /* one body */
  LsimContactSet set;
  memset(&set, 0, sizeof set);
  for (int pass = 0; pass < 2; ++pass) {
    for (int a = 0; a < m.nshapes; ++a)
      for (int b = 0; b < m.nshapes; ++b)
        if (lsim_contacts_shapes_collide(&set, &m, a, b) != lsim_shapes_collide(&m, a, b))
          fail_msg("pass %d: shapes %d and %d: table %d, scan %d", pass, a, b,
                   lsim_contacts_shapes_collide(&set, &m, a, b), lsim_shapes_collide(&m, a, b));
    m.joints[0].no_collide = 1; /* b0-b1 now apart: the table must follow */
    assert_int_equal(lsim_shapes_collide(&m, 0, 1), 0);
  }
  lsim_contacts_free(&set);
  lsim_state_free(&st);
  lsim_model_free(&m);

  const char *json3 =
      "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.01, \"duration\": 0.01,"
      " \"contact\": {\"allow_initial_overlap\": true}, \"bodies\": ["
      "  {\"name\": \"ground\", \"type\": \"static\", \"shapes\": [{\"type\": \"plane\"}]},"
      "  {\"name\": \"s\", \"mass\": 1, \"position\": [0, 0, 1], \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.1}]},"
      "  {\"name\": \"c\", \"mass\": 1, \"position\": [0, 0, 1.15], \"shapes\": [{\"type\": \"capsule\", \"radius\": 0.02, \"half_length\": 0.1}]},"
      "  {\"name\": \"k\", \"mass\": 1, \"position\": [2, 0, 0.05], \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.1, 0.1, 0.1]}]}],"
      " \"joints\": ["
      "  {\"type\": \"pin\", \"ends\": [{\"body\": \"c\", \"point\": [0, 0, -0.1]}, {\"body\": \"s\", \"point\": [0, 0, 0.05]}]},"
      "  {\"type\": \"pin\", \"ends\": [{\"body\": \"k\", \"point\": [0, 0, -0.08]}, {\"body\": \"ground\", \"point\": [2, 0, -0.03]}]}]}";
  if (lsim_scene_parse(json3, "test", &m, &st, &se)) {
    char line[512];
    lsim_scene_error_format(&se, line, sizeof line);
    fail_msg("scene: %s", line);
  }
  assert_int_equal(lsim_shapes_collide(&m, 1, 2), 0); /* on the capsule's axis, in the sphere */
  assert_int_equal(lsim_shapes_collide(&m, 0, 3), 0); /* in the box, below the ground */
  assert_int_equal(lsim_shapes_collide(&m, 0, 1), 1);
  memset(&set, 0, sizeof set);
  for (int a = 0; a < m.nshapes; ++a)
    for (int b = 0; b < m.nshapes; ++b)
      assert_int_equal(lsim_contacts_shapes_collide(&set, &m, a, b), lsim_shapes_collide(&m, a, b));
  lsim_contacts_free(&set);
  lsim_state_free(&st);
  lsim_model_free(&m);
}

/* A contact the joints hold open, dropped from a PGS step whose sweep order has reordered
 * the contacts (3-D, a body two contacts from the ground): the drop took each contact's
 * rows to run to the next contact's first row, which holds only in detection order; with
 * the order changed the row count went negative and the rows were moved over the heap
 * (a segfault at the first step; ASan: a write past the rows). A capsule (r 0.2, half
 * length 0.4, 1 kg) pinned at its top to the world stands on the ground (that contact held),
 * beside a box (1 kg, 0.5 m) with a ball (0.5 kg, r 0.25) on it. Every step is solved, the
 * set's rows are each contact's own (disjoint, every row owned), and all rests: the
 * bodies within 1e-9 m of their start (PGS at 1e-10 of max|q| ~ g h = 0.1 m/s leaves
 * 1e-11 m/s), the ground under the box carrying box and ball, 1.5 m g h (1e-8 relative:
 * PGS's tolerance), with the order of detection too (lemke) for the same answer. */
static void test_held_contact_dropped_after_sweep_order(void **state) {
  (void)state;
  const char *json =
      "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.01, \"steps\": 50,"
      " \"gravity\": [0, 0, -9.81],"
      " \"bodies\": [{\"name\": \"ground\", \"type\": \"static\", \"shapes\": [{\"type\": \"plane\"}]},"
      "  {\"name\": \"cap\", \"mass\": 1, \"position\": [1, 0, 0.6],"
      "   \"shapes\": [{\"type\": \"capsule\", \"radius\": 0.2, \"half_length\": 0.4}]},"
      "  {\"name\": \"box\", \"mass\": 1, \"position\": [-1, 0, 0.25],"
      "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.25, 0.25, 0.25]}]},"
      "  {\"name\": \"ball\", \"mass\": 0.5, \"position\": [-1, 0, 0.75],"
      "   \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.25}]}],"
      " \"joints\": [{\"name\": \"hinge\", \"type\": \"pin\","
      "   \"ends\": [{\"body\": \"cap\", \"point\": [0, 0, 0.6]}, {\"world\": [1, 0, 1.2]}]}]}";
  const char *solvers[] = {"pgs", "lemke"};
  for (int si = 0; si < 2; ++si) {
    Run r;
    run_open(&r, json, solvers[si]);
    double q0[21];
    assert_int_equal(r.m.nq, 21);
    memcpy(q0, r.st.q, sizeof q0);
    for (int k = 0; k < r.m.steps; ++k) {
      step(&r);
      const LsimContactSet *set = lsim_stepper_contacts(r.s);
      unsigned char owned[256] = {0};
      assert_true(set->nrows >= 0 && set->nrows <= 256);
      int rows = 0;
      double ground_box = 0.0;
      for (int c = 0; c < set->count; ++c) {
        const LsimContact *ct = &set->contacts[c];
        const int n = (ct->kind == LSIM_CONTACT_NORMAL ? 1 + ct->ndir : 1);
        assert_true(ct->first_row >= 0 && ct->first_row + n <= set->nrows);
        for (int j = ct->first_row; j < ct->first_row + n; ++j) {
          assert_int_equal(owned[j], 0);
          owned[j] = 1;
        }
        rows += n;
        if (ct->kind == LSIM_CONTACT_NORMAL && ct->body[0] == 2 && ct->body[1] == 0)
          ground_box += ct->normal_impulse;
        if (ct->kind == LSIM_CONTACT_NORMAL && ct->body[0] == 0 && ct->body[1] == 2)
          ground_box += ct->normal_impulse;
      }
      assert_int_equal(rows, set->nrows);
      const double w = 1.5 * 9.81 * 0.01;
      if (fabs(ground_box - w) > 1e-8 * w)
        fail_msg("%s step %d: ground under the box %.17g, expected %.17g", solvers[si], k + 1,
                 ground_box, w);
    }
    for (int i = 0; i < 21; ++i)
      if (!(fabs(r.st.q[i] - q0[i]) < 1e-9))
        fail_msg("%s: q[%d] moved from %.17g to %.17g", solvers[si], i, q0[i], r.st.q[i]);
    run_close(&r);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_hanging_chain_statics),
      cmocka_unit_test(test_bar_pinned_at_both_ends),
      cmocka_unit_test(test_bar_pinned_at_both_ends_carrying_a_ball),
      cmocka_unit_test(test_hinge_of_two_ball_joints),
      cmocka_unit_test(test_contacts_held_by_joints),
      cmocka_unit_test(test_rope_beside_a_rod),
      cmocka_unit_test(test_sleeping_chain_keeps_its_tensions),
      cmocka_unit_test(test_anchor_on_a_prescribed_path),
      cmocka_unit_test(test_baumgarte_time_constant),
      cmocka_unit_test(test_boxes_hinged_at_their_end_faces),
      cmocka_unit_test(test_overlapping_pin_adds_no_energy),
      cmocka_unit_test(test_pin_inside_both_shapes),
      cmocka_unit_test(test_held_contact_dropped_after_sweep_order),
  };
  return cmocka_run_group_tests_name("joint_physics", tests, NULL, NULL);
}
