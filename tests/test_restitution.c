/* test_restitution.c: impacts with a coefficient of restitution in the time step
 * (contact/step.c, restitution_q): a ball dropped from H rebounds to e^2 H, two balls
 * head-on leave with the 1-D Newton velocities, the hollow ball of Tedrake's appendix
 * ("Multi-Body Dynamics", impact with restitution) leaves with its post-impact matrix,
 * energy never grows over many bounces, a ball resting on the ground stays at rest, and a
 * ball rattling in a slot narrower than a step's travel (Newton's law infeasible there)
 * has every step solved. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "contact/step.h"
#include "contact/world.h"
#include "scene/scene.h"

#define G 9.81

static const char *const solvers[] = {"lemke", "pgs"};

/* A 2-D world (x, y up) with gravity g and step h, and a static ground plane y = 0 of
 * friction mu and restitution e_ground. */
static LsimModel world2(double h, double g, double mu, double e_ground) {
  LsimModel m = lsim_default_model();
  m.dimension = 2;
  m.time_step = h;
  m.friction_directions = 2;
  m.gravity[1] = -g;
  m.solver.tol = 1e-13;
  m.solver.max_iter = 100000;
  LsimBody b = lsim_default_body();
  snprintf(b.name, sizeof b.name, "ground");
  b.type = LSIM_BODY_STATIC;
  b.restitution = e_ground;
  const int gi = lsim_model_add_body(&m, &b);
  LsimShape s = lsim_default_shape();
  s.type = LSIM_SHAPE_PLANE;
  s.body = gi;
  s.mu = mu;
  lsim_model_add_shape(&m, &s);
  return m;
}

/* A disk of radius r, mass, moment of inertia I (about its center), friction mu and
 * restitution e. Returns its body index. */
static int disk(LsimModel *m, double r, double mass, double I, double mu, double e) {
  LsimBody b = lsim_default_body();
  snprintf(b.name, sizeof b.name, "disk%d", m->nbodies);
  b.mass = mass;
  b.inertia[8] = I;
  b.restitution = e;
  const int bi = lsim_model_add_body(m, &b);
  LsimShape s = lsim_default_shape();
  s.type = LSIM_SHAPE_SPHERE;
  s.body = bi;
  s.radius = r;
  s.mu = mu;
  lsim_model_add_shape(m, &s);
  return bi;
}

static LsimStepper *stepper(const LsimModel *m, const char *solver) {
  LsimStepper *s = NULL;
  char err[256];
  if (lsim_stepper_create(&s, m, solver, err, sizeof err)) fail_msg("stepper: %s", err);
  return s;
}

static void step_ok(LsimStepper *s, const LsimModel *m, LsimState *st) {
  LsimStepStats ss;
  const int status = lsim_step(s, m, st, &ss);
  if (status != LSIM_SOLVED)
    fail_msg("%s: step %d: %s", lsim_solver_name(lsim_stepper_solver(s)), st->step,
             lsim_status_name(status));
}

static double energy(const LsimModel *m, const LsimState *st) {
  return lsim_kinetic_energy(m, st) + lsim_potential_energy(m, st);
}

/* A ball (radius 0.1) dropped with its bottom H = 1 m above frictionless ground, e in
 * {0.3, 0.6, 0.9} (on the ball; the ground has none: the pair takes the larger), h = 1e-3.
 * The first apex after the bounce is e^2 H within one step's travel h v_impact (v_impact =
 * sqrt(2 g H) = 4.43 m/s: 4.4 mm). Two errors, of opposite signs, each within it: the
 * impact happens on the step that would close the gap, from a height x of at most one
 * step's travel, which raises the apex by (1 - e^2) x; semi-implicit Euler loses
 * g h^2 / 2 of height per step in flight, over the fall and the rise (at most 2 sqrt(2H/g)
 * / h steps) at most h sqrt(2 g H). Measured: -0.8, -2.1, -3.8 mm for e = 0.3, 0.6, 0.9. */
static void test_drop_rebound(void **state) {
  (void)state;
  const double H = 1.0, r = 0.1, h = 1e-3, es[] = {0.3, 0.6, 0.9};
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < 3; ++i) {
      LsimModel m = world2(h, G, 0.0, 0.0);
      const int b = disk(&m, r, 1.0, 0.5 * r * r, 0.0, es[i]);
      assert_int_equal(lsim_model_finalize(&m), 0);
      LsimState st;
      assert_int_equal(lsim_state_init(&st, &m), 0);
      double *q = st.q + m.bodies[b].q_offset, *v = st.v + m.bodies[b].v_offset;
      q[1] = H + r;
      LsimStepper *s = stepper(&m, solvers[k]);
      int bounced = 0;
      double apex = 0.0;
      for (int n = 0; n < 3000; ++n) {
        const double v_before = v[1];
        step_ok(s, &m, &st);
        if (!bounced && v_before < 0.0 && v[1] > 0.0) bounced = 1;
        if (bounced && v[1] > 0.0) apex = q[1] - r;
        if (bounced && v[1] <= 0.0) break;
      }
      assert_true(bounced);
      const double travel = h * sqrt(2.0 * G * H);
      if (fabs(apex - es[i] * es[i] * H) > travel)
        fail_msg("%s e %g: apex %.6f, e^2 H = %.6f, allowed %.4f", solvers[k], es[i], apex,
                 es[i] * es[i] * H, travel);
      lsim_stepper_free(s);
      lsim_state_free(&st);
      lsim_model_free(&m);
    }
}

/* Two frictionless disks head-on without gravity, masses 1 and 3, velocities 2 and -1,
 * restitution 0.6 on one of them (pair rule: the larger): the step of the impact leaves
 * them with Newton's 1-D velocities
 *   va' = (ma va + mb vb + mb e (vb - va)) / (ma + mb),  vb' = (... + ma e (va - vb)) / ...
 * to round-off (1e-12 m/s: Lemke's pivots; PGS at tol 1e-13 on this 1x1 LCP is exact in
 * one sweep), momentum to 1e-13, and every later step keeps them (they separate). Also
 * with a per-pair override e = 0.25 (model->restitution_pairs). */
static void test_head_on_newton(void **state) {
  (void)state;
  const double ma = 1.0, mb = 3.0, va = 2.0, vb = -1.0;
  for (int k = 0; k < 2; ++k)
    for (int pair = 0; pair < 2; ++pair) {
      LsimModel m = world2(0.01, 0.0, 0.0, 0.0);
      const int a = disk(&m, 0.1, ma, 0.005, 0.0, 0.0);
      const int b = disk(&m, 0.1, mb, 0.015, 0.0, 0.6);
      LsimRestitutionPair p = {{b, a}, 0.25};
      if (pair) m.restitution_pairs = &p, m.nrestitution_pairs = 1;
      const double e = pair ? 0.25 : 0.6;
      assert_true(lsim_pair_restitution(&m, a, b) == e);
      assert_int_equal(lsim_model_finalize(&m), 0);
      LsimState st;
      assert_int_equal(lsim_state_init(&st, &m), 0);
      st.q[m.bodies[a].q_offset + 0] = -0.5, st.q[m.bodies[a].q_offset + 1] = 1.0;
      st.q[m.bodies[b].q_offset + 0] = 0.5, st.q[m.bodies[b].q_offset + 1] = 1.0;
      st.v[m.bodies[a].v_offset] = va, st.v[m.bodies[b].v_offset] = vb;
      const double ea = (ma * va + mb * vb + mb * e * (vb - va)) / (ma + mb);
      const double eb = (ma * va + mb * vb + ma * e * (va - vb)) / (ma + mb);
      LsimStepper *s = stepper(&m, solvers[k]);
      int impacts = 0;
      for (int n = 0; n < 100; ++n) {
        const double before = st.v[m.bodies[a].v_offset];
        step_ok(s, &m, &st);
        const double ua = st.v[m.bodies[a].v_offset], ub = st.v[m.bodies[b].v_offset];
        assert_true(fabs(ma * ua + mb * ub - (ma * va + mb * vb)) <= 1e-13);
        if (before == va && ua != va) ++impacts;
        if (impacts) {
          if (fabs(ua - ea) > 1e-12 || fabs(ub - eb) > 1e-12)
            fail_msg("%s e %g step %d: (%.15g, %.15g), Newton (%.15g, %.15g)", solvers[k], e,
                     n, ua, ub, ea, eb);
        }
      }
      assert_int_equal(impacts, 1);
      m.restitution_pairs = NULL, m.nrestitution_pairs = 0;
      lsim_stepper_free(s);
      lsim_state_free(&st);
      lsim_model_free(&m);
    }
}

/* Tedrake's hollow ball (mass m, radius r, I = 2/3 m r^2) hits horizontal ground with
 * friction enough to stop its contact point from slipping (mu = 10): the post-impact
 * velocities are
 *   [x' z' th']^+ = [3/5 0 -2r/5; 0 -e 0; -3/(5r) 0 2/5] [x' z' th']^-
 * (the ball starts touching the ground, without gravity, so that the step is the
 * impact alone). e = 0 (the gap row alone) and e = 0.5, 1 (restitution); to 1e-12
 * (Lemke's pivots on a 4x4 LCP; PGS at tol 1e-13, contractive here). The contact point's
 * tangential velocity xdot + r thdot is zero after the impact. */
static void test_hollow_ball(void **state) {
  (void)state;
  const double mass = 2.0, r = 0.3, es[] = {0.0, 0.5, 1.0};
  const double vm[3] = {1.5, -2.0, 4.0}; /* x', z', th' before */
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < 3; ++i) {
      LsimModel m = world2(0.01, 0.0, 10.0, 0.0);
      const int b = disk(&m, r, mass, 2.0 / 3.0 * mass * r * r, 10.0, es[i]);
      assert_int_equal(lsim_model_finalize(&m), 0);
      LsimState st;
      assert_int_equal(lsim_state_init(&st, &m), 0);
      double *q = st.q + m.bodies[b].q_offset, *v = st.v + m.bodies[b].v_offset;
      q[1] = r;
      memcpy(v, vm, sizeof vm);
      LsimStepper *s = stepper(&m, solvers[k]);
      step_ok(s, &m, &st);
      const double want[3] = {0.6 * vm[0] - 0.4 * r * vm[2], -es[i] * vm[1],
                              -0.6 / r * vm[0] + 0.4 * vm[2]};
      for (int d = 0; d < 3; ++d)
        if (fabs(v[d] - want[d]) > 1e-12)
          fail_msg("%s e %g: v[%d] = %.15g, Tedrake %.15g", solvers[k], es[i], d, v[d], want[d]);
      assert_true(fabs(v[0] + r * v[2]) <= 1e-12);
      lsim_stepper_free(s);
      lsim_state_free(&st);
      lsim_model_free(&m);
    }
}

/* Energy never grows for e <= 1: a spinning disk thrown sideways bounces on ground with
 * friction (mu 0.3) and two disks bounce on it and on each other, e in {0.5, 0.9, 1}, for
 * 4000 steps of 1 ms (tens of bounces each). Each step's energy is at most the previous
 * step's plus 1e-12 J of rounding (Lemke to 1e-13; energies of about 30 J). */
static void test_energy_bounded(void **state) {
  (void)state;
  const double es[] = {0.5, 0.9, 1.0};
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < 3; ++i) {
      LsimModel m = world2(1e-3, G, 0.3, 0.0);
      const int b[3] = {disk(&m, 0.1, 1.0, 0.005, 0.3, es[i]), disk(&m, 0.15, 2.0, 0.0225, 0.3, es[i]),
                        disk(&m, 0.1, 0.5, 0.0025, 0.3, es[i])};
      assert_int_equal(lsim_model_finalize(&m), 0);
      LsimState st;
      assert_int_equal(lsim_state_init(&st, &m), 0);
      const double p[3][2] = {{0.0, 0.6}, {0.02, 1.1}, {0.8, 0.4}};
      const double u[3][3] = {{0.5, 0.0, 8.0}, {0.0, -1.0, -3.0}, {-1.0, 2.0, 0.0}};
      for (int j = 0; j < 3; ++j) {
        memcpy(st.q + m.bodies[b[j]].q_offset, p[j], sizeof p[j]);
        memcpy(st.v + m.bodies[b[j]].v_offset, u[j], sizeof u[j]);
      }
      LsimStepper *s = stepper(&m, solvers[k]);
      double e_prev = energy(&m, &st), e0 = e_prev;
      int ups = 0;
      for (int n = 0; n < 4000; ++n) {
        double vy[3];
        for (int j = 0; j < 3; ++j) vy[j] = st.v[m.bodies[b[j]].v_offset + 1];
        step_ok(s, &m, &st);
        for (int j = 0; j < 3; ++j) ups += vy[j] < 0.0 && st.v[m.bodies[b[j]].v_offset + 1] > 0.0;
        const double en = energy(&m, &st);
        if (en > e_prev + 1e-12)
          fail_msg("%s e %g: energy grew by %g J at step %d", solvers[k], es[i], en - e_prev, n);
        e_prev = en;
      }
      assert_true(ups >= 12); /* they did bounce, repeatedly */
      assert_true(e_prev < e0);
      lsim_stepper_free(s);
      lsim_state_free(&st);
      lsim_model_free(&m);
    }
}

/* A disk with e = 0.9 at rest on the ground stays at rest (the threshold and the gap row
 * keep a resting contact inelastic): after 2000 steps its height is r within 1e-9 and its
 * speed below 1e-9. And a ball dropped with e = 0.5 comes to rest: its bounces shrink
 * until the approach speed falls below the threshold or gravity's h g, after which the
 * contact is inelastic and the ball rests (speed below 1e-9 after 5 s). */
static void test_rest(void **state) {
  (void)state;
  for (int drop = 0; drop < 2; ++drop) {
    LsimModel m = world2(1e-3, G, 0.5, 0.0);
    const int b = disk(&m, 0.1, 1.0, 0.005, 0.5, drop ? 0.5 : 0.9);
    assert_int_equal(lsim_model_finalize(&m), 0);
    LsimState st;
    assert_int_equal(lsim_state_init(&st, &m), 0);
    st.q[m.bodies[b].q_offset + 1] = drop ? 0.6 : 0.1;
    LsimStepper *s = stepper(&m, "lemke");
    for (int n = 0; n < (drop ? 5000 : 2000); ++n) step_ok(s, &m, &st);
    const double *v = st.v + m.bodies[b].v_offset;
    assert_true(fabs(st.q[m.bodies[b].q_offset + 1] - 0.1) <= 1e-9);
    assert_true(fabs(v[0]) + fabs(v[1]) + fabs(v[2]) <= 1e-9);
    lsim_stepper_free(s);
    lsim_state_free(&st);
    lsim_model_free(&m);
  }
}

/* The scene keys: "restitution" on bodies (1-D walls too) and
 * "contact.restitution_threshold" and "contact.restitution_pairs" are read; a coefficient
 * outside [0, 1], a negative threshold, a pair naming no body, a body paired with itself
 * or a pair given twice is an error naming the key. */
static void test_scene_keys(void **state) {
  (void)state;
  const char *ok2 = "{\"lcpsim\": 1, \"time_step\": 0.01, \"steps\": 1, \"dimension\": 2, \"contact\": {\"restitution_threshold\": 0.5}, \"bodies\": ["
                    "{\"type\": \"static\", \"restitution\": 0.25, \"shapes\": [{\"type\": \"plane\"}]},"
                    "{\"mass\": 1, \"position\": [0, 1], \"restitution\": 0.75,"
                    " \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.1}]}]}";
  const char *ok1 = "{\"lcpsim\": 1, \"time_step\": 0.01, \"steps\": 1, \"dimension\": 1, \"bodies\": [{\"position\": 1, \"restitution\": 1}],"
                    " \"walls\": [{\"position\": 0, \"side\": \"left\", \"restitution\": 0.5}]}";
  LsimModel m;
  LsimState st;
  LsimSceneError err;
  assert_int_equal(lsim_scene_parse(ok2, "ok2", &m, &st, &err), 0);
  assert_true(m.bodies[0].restitution == 0.25 && m.bodies[1].restitution == 0.75);
  assert_true(m.restitution_threshold == 0.5 && lsim_pair_restitution(&m, 0, 1) == 0.75);
  lsim_state_free(&st);
  lsim_model_free(&m);
  /* A per-pair override, in either order of the names. */
  const char *pair = "{\"lcpsim\": 1, \"time_step\": 0.01, \"steps\": 1, \"dimension\": 2,"
                     " \"contact\": {\"restitution_pairs\": [{\"bodies\": [\"b\", \"a\"], \"restitution\": 0.125}]},"
                     " \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": 1, \"restitution\": 0.5}, {\"name\": \"b\", \"mass\": 1, \"inertia\": 1, \"position\": [2, 0]},"
                     " {\"name\": \"c\", \"mass\": 1, \"inertia\": 1, \"position\": [4, 0]}]}";
  assert_int_equal(lsim_scene_parse(pair, "pair", &m, &st, &err), 0);
  assert_true(lsim_pair_restitution(&m, 0, 1) == 0.125 && lsim_pair_restitution(&m, 1, 0) == 0.125);
  assert_true(lsim_pair_restitution(&m, 0, 2) == 0.5);
  lsim_state_free(&st);
  lsim_model_free(&m);
  assert_int_equal(lsim_scene_parse(ok1, "ok1", &m, &st, &err), 0);
  assert_true(m.bodies[0].restitution == 1.0 && m.bodies[1].restitution == 0.5);
  assert_true(m.restitution_threshold == 0.01);
  lsim_state_free(&st);
  lsim_model_free(&m);
  const char *bad[][2] = {
      {"{\"lcpsim\": 1, \"time_step\": 0.01, \"steps\": 1, \"dimension\": 1, \"bodies\": [{\"position\": 1, \"restitution\": 1.5}]}", "bodies[0].restitution"},
      {"{\"lcpsim\": 1, \"time_step\": 0.01, \"steps\": 1, \"dimension\": 1, \"bodies\": [{\"position\": 1}], \"walls\": [{\"side\": \"left\", \"restitution\": -0.1}]}",
       "walls[0].restitution"},
      {"{\"lcpsim\": 1, \"time_step\": 0.01, \"steps\": 1, \"dimension\": 2, \"contact\": {\"restitution_threshold\": -1}, \"bodies\": [{\"mass\": 1}]}",
       "contact.restitution_threshold"},
      {"{\"lcpsim\": 1, \"time_step\": 0.01, \"steps\": 1, \"dimension\": 2, \"contact\": {\"restitution_pairs\": "
       "[{\"bodies\": [\"x\", \"y\"], \"restitution\": 0.5}]}, \"bodies\": [{\"name\": \"x\", \"mass\": 1, \"inertia\": 1}]}",
       "contact.restitution_pairs[0].bodies[1]"},
      /* A body paired with itself, and a pair given twice (in the other order) with another
         coefficient: both were accepted, the second pair silently unused. */
      {"{\"lcpsim\": 1, \"time_step\": 0.01, \"steps\": 1, \"dimension\": 2, \"contact\": {\"restitution_pairs\": "
       "[{\"bodies\": [\"x\", \"x\"], \"restitution\": 0.5}]}, \"bodies\": [{\"name\": \"x\", \"mass\": 1, \"inertia\": 1}]}",
       "contact.restitution_pairs[0].bodies[1]"},
      {"{\"lcpsim\": 1, \"time_step\": 0.01, \"steps\": 1, \"dimension\": 2, \"contact\": {\"restitution_pairs\": "
       "[{\"bodies\": [\"x\", \"y\"], \"restitution\": 0.5}, {\"bodies\": [\"y\", \"x\"], \"restitution\": 0.25}]},"
       " \"bodies\": [{\"name\": \"x\", \"mass\": 1, \"inertia\": 1}, {\"name\": \"y\", \"mass\": 1, \"inertia\": 1, \"position\": [2, 0]}]}",
       "contact.restitution_pairs[1].bodies"},
  };
  for (int i = 0; i < 6; ++i) {
    assert_true(lsim_scene_parse(bad[i][0], "bad", &m, &st, &err) < 0);
    if (strcmp(err.path, bad[i][1]) != 0) fail_msg("error at '%s', expected '%s'", err.path, bad[i][1]);
  }
}

/* A ball (r 0.1, 1 kg, e = 1) rattling at (1, 0.5) m/s in a slot 0.205 m wide between two
 * static walls, h = 0.01 s, no gravity: 2.5 mm each side, less than e v h = 10 mm. The
 * step that reaches the right wall asks Newton's law to send the ball back at 1 m/s while
 * the left wall's gap row lets it move at most 0.25 m/s that way: that LCP has no
 * solution (Lemke ends on a secondary ray, PGS at its budget). The step is then solved
 * again with gap rows only (inelastic at that step): every step solved (its first_status
 * keeps the failure), the ball never inside a wall (1e-12 m: positions of order 1e-3
 * summed), its energy never above the start's (1e-15 J), the y velocity kept
 * (frictionless; 1e-14: the walls' normals have y = cos(pi / 2) = 6e-17, times impulses
 * up to 1 N s over 100 steps). Before: 33 of 100 steps failed with Lemke, the ball 3.75 mm into
 * the left wall. */
static void test_slot(void **state) {
  (void)state;
  const char *json =
      "{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.01, \"steps\": 100, \"gravity\": [0, 0],"
      " \"bodies\": [{\"name\": \"left\", \"type\": \"static\", \"position\": [-0.1025, 0],"
      " \"orientation\": -1.5707963267948966, \"shapes\": [{\"type\": \"plane\", \"mu\": 0}]},"
      " {\"name\": \"right\", \"type\": \"static\", \"position\": [0.1025, 0],"
      " \"orientation\": 1.5707963267948966, \"shapes\": [{\"type\": \"plane\", \"mu\": 0}]},"
      " {\"name\": \"ball\", \"mass\": 1, \"velocity\": [1, 0.5], \"restitution\": 1,"
      " \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.1, \"mu\": 0}]}]}";
  for (int k = 0; k < 2; ++k) {
    LsimModel m;
    LsimState st;
    LsimSceneError se;
    assert_int_equal(lsim_scene_parse(json, "slot", &m, &st, &se), 0);
    LsimStepper *s = stepper(&m, solvers[k]);
    const double e0 = energy(&m, &st);
    int recovered = 0;
    for (int i = 0; i < 100; ++i) {
      LsimStepStats ss;
      const int status = lsim_step(s, &m, &st, &ss);
      if (status != LSIM_SOLVED) fail_msg("%s: step %d: %s", solvers[k], i + 1, lsim_status_name(status));
      recovered += ss.first_status < 0;
      const double x = st.q[m.bodies[2].q_offset];
      if (fabs(x) > 0.0025 + 1e-12) fail_msg("%s: step %d: ball at x = %g, inside a wall", solvers[k], i + 1, x);
      if (energy(&m, &st) > e0 + 1e-15) fail_msg("%s: step %d: energy %.17g above %.17g", solvers[k], i + 1, energy(&m, &st), e0);
      if (fabs(st.v[m.bodies[2].v_offset + 1] - 0.5) > 1e-14) fail_msg("%s: step %d: vy %.17g", solvers[k], i + 1, st.v[m.bodies[2].v_offset + 1]);
    }
    assert_true(recovered >= 1); /* the infeasible step happened and was recorded */
    lsim_stepper_free(s);
    lsim_state_free(&st);
    lsim_model_free(&m);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_drop_rebound),   cmocka_unit_test(test_head_on_newton),
      cmocka_unit_test(test_hollow_ball),    cmocka_unit_test(test_energy_bounded),
      cmocka_unit_test(test_rest),           cmocka_unit_test(test_scene_keys),
      cmocka_unit_test(test_slot),
  };
  return cmocka_run_group_tests_name("restitution", tests, NULL, NULL);
}
