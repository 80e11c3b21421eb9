/* test_physics.c: 2-D and 3-D rigid bodies against analytic outcomes, with Lemke and PGS:
 * a box on an incline (rest below tan = mu, slide at g (sin - mu cos) above), a box
 * sliding to a stop after v0^2 / (2 mu g), a rolling ball, a stack of boxes at rest, two
 * balls colliding head-on, and energy that never grows without applied forces. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact/contact.h"
#include "contact/geometry.h"
#include "contact/math3.h"
#include "contact/step.h"
#include "contact/world.h"
#include "lcp/factored.h"

#define G 9.81
#define PI_8 0.39269908169872414 /* pi / 8 */

static const char *const solvers[] = {"lemke", "pgs"};

static LsimModel model3(int dim, double h) {
  LsimModel m = lsim_default_model();
  m.dimension = dim;
  m.time_step = h;
  m.friction_directions = dim == 2 ? 2 : 4;
  m.solver.tol = 1e-12;
  m.solver.max_iter = 100000;
  if (dim == 2) m.gravity[1] = -G;
  else m.gravity[2] = -G;
  return m;
}

/* A static body with one plane through the origin, tilted by angle about x (3-D: normal
 * (0, -sin, cos)) or about z (2-D: normal (-sin, cos)). */
static int add_ground(LsimModel *m, double angle, double mu) {
  LsimBody b = lsim_default_body();
  snprintf(b.name, sizeof b.name, "ground");
  b.type = LSIM_BODY_STATIC;
  const int bi = lsim_model_add_body(m, &b);
  LsimShape s = lsim_default_shape();
  s.type = LSIM_SHAPE_PLANE;
  s.body = bi;
  s.mu = mu;
  if (m->dimension == 3) {
    s.rot[0] = cos(0.5 * angle), s.rot[1] = sin(0.5 * angle);
  } else {
    lsim_quat_from_angle_z(s.rot, angle);
  }
  lsim_model_add_shape(m, &s);
  return bi;
}

static int add_box(LsimModel *m, const double half[3], double mass, double mu) {
  LsimBody b = lsim_default_body();
  snprintf(b.name, sizeof b.name, "box%d", m->nbodies);
  b.mass = mass;
  lsim_inertia_box(mass, half, b.inertia);
  const int bi = lsim_model_add_body(m, &b);
  LsimShape s = lsim_default_shape();
  s.type = LSIM_SHAPE_BOX;
  s.body = bi;
  memcpy(s.half, half, sizeof s.half);
  s.mu = mu;
  lsim_model_add_shape(m, &s);
  return bi;
}

static int add_ball(LsimModel *m, double r, double mass, double mu) {
  LsimBody b = lsim_default_body();
  snprintf(b.name, sizeof b.name, "ball%d", m->nbodies);
  b.mass = mass;
  if (m->dimension == 2) lsim_inertia_disk(mass, r, b.inertia);
  else lsim_inertia_sphere(mass, r, b.inertia);
  const int bi = lsim_model_add_body(m, &b);
  LsimShape s = lsim_default_shape();
  s.type = LSIM_SHAPE_SPHERE;
  s.body = bi;
  s.radius = r;
  s.mu = mu;
  lsim_model_add_shape(m, &s);
  return bi;
}

/* Places body i at position p with rotation angle about x (3-D) or z (2-D). */
static void place(const LsimModel *m, LsimState *st, int i, const double *p, double angle) {
  double *q = st->q + m->bodies[i].q_offset;
  if (m->dimension == 2) {
    q[0] = p[0], q[1] = p[1], q[2] = angle;
  } else {
    q[0] = p[0], q[1] = p[1], q[2] = p[2];
    q[3] = cos(0.5 * angle), q[4] = sin(0.5 * angle), q[5] = q[6] = 0.0;
  }
}

/* One ball (radius r, the given mass, mu) on level ground (mu), its centre at height
 * above the ground and at rest: finalizes m, initializes st, returns the ball's index. */
static int ball_on_ground(LsimModel *m, LsimState *st, double r, double mass, double mu,
                          double height) {
  add_ground(m, 0.0, mu);
  const int ball = add_ball(m, r, mass, mu);
  assert_int_equal(lsim_model_finalize(m), 0);
  assert_int_equal(lsim_state_init(st, m), 0);
  double p[3] = {0, 0, 0};
  p[m->dimension - 1] = height;
  place(m, st, ball, p, 0.0);
  return ball;
}

/* Boxes (side 0.2 m, 1 kg) and then balls (radius 0.1 m, 0.5 kg), all mu 0.5, dropped
 * one above the other, slightly offset and turned, onto level ground (mu 0.5): they land
 * edge-first and tumble onto each other (2-D: in the x-y plane, y up). Finalizes m and
 * initializes st. */
static void drop_scene(LsimModel *m, LsimState *st, int boxes, int balls) {
  add_ground(m, 0.0, 0.5);
  const double half[3] = {0.1, 0.1, 0.1};
  for (int i = 0; i < boxes; ++i) add_box(m, half, 1.0, 0.5);
  for (int i = 0; i < balls; ++i) add_ball(m, 0.1, 0.5, 0.5);
  assert_int_equal(lsim_model_finalize(m), 0);
  assert_int_equal(lsim_state_init(st, m), 0);
  for (int i = 0; i < boxes + balls; ++i) {
    const double x = 0.05 * (i % 3) - 0.05, height = 0.15 + 0.35 * i;
    const double p3[3] = {x, 0.03 * (i % 2), height}, p2[3] = {x, height, 0.0};
    place(m, st, i + 1, m->dimension == 2 ? p2 : p3, 0.3 * i);
  }
}

/* Lemke's answers are exact to rounding: tolerance 1e-12 unless the model asks for more
 * (tol_lemke). PGS converges linearly and slowly on stacks: tolerance 1e-10 (the impulses
 * are then within about 1e-11 N s). */
static double tol_lemke = 1e-12;
static LsimStepper *stepper(LsimModel *m, const char *solver) {
  m->solver.tol = strcmp(solver, "pgs") ? tol_lemke : 1e-10;
  LsimStepper *s = NULL;
  char err[256];
  if (lsim_stepper_create(&s, m, solver, err, sizeof err)) fail_msg("stepper: %s", err);
  return s;
}

/* Steps; every solve must succeed, except that PGS may run out of sweeps where the model
 * allows a sweep budget (m->solver.max_iter < 100000): it is then an approximate solver,
 * as in practice, and the test checks physics, not its convergence. */
static void run(LsimStepper *s, const LsimModel *m, LsimState *st, int steps) {
  for (int k = 0; k < steps; ++k) {
    LsimStepStats ss;
    const int status = lsim_step(s, m, st, &ss);
    const int budget = m->solver.max_iter > 0 && m->solver.max_iter < 100000 &&
                       !strcmp(lsim_solver_name(lsim_stepper_solver(s)), "pgs");
    if (status != LSIM_SOLVED && !(budget && status == LSIM_MAX_ITERATIONS))
      fail_msg("%s: step %d: %s (%d iterations)", lsim_solver_name(lsim_stepper_solver(s)),
               st->step, lsim_status_name(status), ss.iterations);
  }
}

/* Box on an incline of angle theta with mu: the box starts at rest touching the plane
 * (its bottom face on it). Along the slope, with a = g (sin - mu cos):
 *   tan(theta) < mu: it stays at rest (speed below 1e-9 after 1 s: the solver tolerance);
 *   tan(theta) > mu: after N steps of semi-implicit Euler from rest v = N h a exactly (the
 *   friction impulse is mu c_n per step, constant), so v matches to 1e-8.
 * The slope direction is a cone direction in 3-D (the tangents of a normal in the y-z plane
 * are t1 = (0, -cos, -sin), along the slope), so the pyramid's capacity along it is exactly
 * mu c_n, as in 2-D. */
static void incline_case(int dim, double theta, double mu, const char *solver) {
  const double h = 0.01;
  LsimModel m = model3(dim, h);
  add_ground(&m, theta, mu);
  const double half[3] = {0.2, 0.1, 0.05};
  double half2[3] = {0.2, 0.05, 0.05};
  const int box = add_box(&m, dim == 3 ? half : half2, 2.0, mu);
  assert_int_equal(lsim_model_finalize(&m), 0);
  LsimState st;
  assert_int_equal(lsim_state_init(&st, &m), 0);
  /* Center at distance half height above the plane, along its normal. */
  const double hz = dim == 3 ? half[2] : half2[1];
  double p[3] = {0, 0, 0};
  if (dim == 3) p[1] = -sin(theta) * hz, p[2] = cos(theta) * hz;
  else p[0] = -sin(theta) * hz, p[1] = cos(theta) * hz;
  place(&m, &st, box, p, theta);
  LsimStepper *s = stepper(&m, solver);
  const int steps = 100;
  run(s, &m, &st, steps);
  /* Speed along the slope (down-slope positive). */
  const double *v = st.v + m.bodies[box].v_offset;
  double down[3] = {0, 0, 0};
  if (dim == 3) down[1] = -cos(theta), down[2] = -sin(theta);
  else down[0] = -cos(theta), down[1] = -sin(theta);
  const double speed = v[0] * down[0] + v[1] * down[1] + (dim == 3 ? v[2] * down[2] : 0.0);
  if (tan(theta) < mu) {
    if (fabs(speed) > 1e-9) fail_msg("%dD %s: creeps at %g m/s on a %g rad incline, mu %g", dim, solver, speed, theta, mu);
  } else {
    const double a = G * (sin(theta) - mu * cos(theta));
    if (fabs(speed - steps * h * a) > 1e-8)
      fail_msg("%dD %s: speed %.12g, expected %.12g", dim, solver, speed, steps * h * a);
  }
  lsim_stepper_free(s);
  lsim_state_free(&st);
  lsim_model_free(&m);
}

static void test_incline(void **state) {
  (void)state;
  for (int dim = 2; dim <= 3; ++dim)
    for (int k = 0; k < 2; ++k) {
      incline_case(dim, 0.3, 0.5, solvers[k]);  /* tan 0.3 = 0.309 < 0.5: rest */
      incline_case(dim, 0.5, 0.3, solvers[k]);  /* tan 0.5 = 0.546 > 0.3: slides */
    }
}

/* A box sliding on flat ground at v0 stops after v0^2 / (2 mu g): semi-implicit Euler
 * decelerates by mu g h per step and moves h v' per step, so the travelled distance is
 * within one step's travel (v0 h) of the exact one. */
static void test_slide_to_stop(void **state) {
  (void)state;
  for (int dim = 2; dim <= 3; ++dim)
    for (int k = 0; k < 2; ++k) {
      const double h = 0.01, mu = 0.4, v0 = 2.0;
      LsimModel m = model3(dim, h);
      add_ground(&m, 0.0, mu);
      const double half[3] = {0.1, 0.1, 0.1};
      const int box = add_box(&m, half, 1.0, mu);
      assert_int_equal(lsim_model_finalize(&m), 0);
      LsimState st;
      assert_int_equal(lsim_state_init(&st, &m), 0);
      double p[3] = {0, 0, 0};
      p[dim - 1] = 0.1;
      place(&m, &st, box, p, 0.0);
      st.v[m.bodies[box].v_offset] = v0;
      LsimStepper *s = stepper(&m, solvers[k]);
      run(s, &m, &st, 100);
      const double x = st.q[m.bodies[box].q_offset], d = v0 * v0 / (2 * mu * G);
      if (fabs(x - d) > v0 * h) fail_msg("%dD %s: stopped at %g, expected %g", dim, solvers[k], x, d);
      assert_true(fabs(st.v[m.bodies[box].v_offset]) <= 1e-9);
      lsim_stepper_free(s);
      lsim_state_free(&st);
      lsim_model_free(&m);
    }
}

/* A ball rolling without slip (v = w r) on flat ground keeps its speed: the contact
 * point is at rest, friction does nothing. Speed constant to 1e-9, slip below 1e-9. */
static void test_rolling_ball(void **state) {
  (void)state;
  for (int dim = 2; dim <= 3; ++dim)
    for (int k = 0; k < 2; ++k) {
      const double h = 0.01, r = 0.25, v0 = 1.5;
      LsimModel m = model3(dim, h);
      LsimState st;
      const int ball = ball_on_ground(&m, &st, r, 1.0, 0.5, r);
      double *v = st.v + m.bodies[ball].v_offset;
      v[0] = v0;
      if (dim == 2) v[2] = -v0 / r;     /* rolling to +x turns clockwise */
      else v[4] = v0 / r;               /* about +y */
      LsimStepper *s = stepper(&m, solvers[k]);
      run(s, &m, &st, 200);
      assert_true(fabs(v[0] - v0) <= 1e-9);
      const double slip = dim == 2 ? v[0] + v[2] * r : v[0] - v[4] * r;
      assert_true(fabs(slip) <= 1e-9);
      assert_true(fabs(st.q[m.bodies[ball].q_offset] - 200 * h * v0) <= 1e-8);
      lsim_stepper_free(s);
      lsim_state_free(&st);
      lsim_model_free(&m);
    }
}

/* A ball sliding without spin (v0 = 2 m/s, mu 0.5) rolls after t = 2 v0 / (7 mu g) at
 * v = 5/7 v0 (the contact impulses keep its angular momentum about the contact point), for
 * a mass of 1 kg and of 1e150 kg alike (the motion does not depend on the mass): to 1e-9
 * m/s, slip below 1e-9 m/s, the step's rounding. The heavy ball's inertia, 2.5e148 kg m^2,
 * has a determinant of 1.6e445: the inverse by cofactors over it overflowed to 0, so
 * friction could not spin the ball and it slid to a stop (a mass of 1e300 gave NaN). */
static void test_heavy_ball_rolls(void **state) {
  (void)state;
  static const double masses[2] = {1.0, 1e150};
  for (int k = 0; k < 2; ++k) {
    const double h = 0.01, r = 0.25, v0 = 2.0;
    LsimModel m = model3(3, h);
    LsimState st;
    const int ball = ball_on_ground(&m, &st, r, masses[k], 0.5, r);
    double *v = st.v + m.bodies[ball].v_offset;
    v[0] = v0;
    LsimStepper *s = stepper(&m, "lemke");
    run(s, &m, &st, 100);
    print_message("mass %g: v %.12g (5/7 v0 %.12g), spin r %.12g\n", masses[k], v[0],
                  5.0 / 7.0 * v0, v[4] * r);
    assert_true(fabs(v[0] - 5.0 / 7.0 * v0) <= 1e-9);
    assert_true(fabs(v[0] - v[4] * r) <= 1e-9);
    lsim_stepper_free(s);
    lsim_state_free(&st);
    lsim_model_free(&m);
  }
}

/* A stack of 5 unit-mass boxes on the ground rests for 10 s: no drift beyond 1 mm, no
 * penetration beyond 1e-6 m (the velocity-level step keeps gaps at zero up to the solver
 * tolerance), no energy gain (1e-9 J). */
static void test_stack_rests(void **state) {
  (void)state;
  for (int k = 0; k < 2; ++k) {
    const double h = 0.01, a = 0.1;
    LsimModel m = model3(3, h);
    add_ground(&m, 0.0, 0.6);
    const double half[3] = {a, a, a};
    int box[5];
    for (int i = 0; i < 5; ++i) box[i] = add_box(&m, half, 1.0, 0.6);
    assert_int_equal(lsim_model_finalize(&m), 0);
    LsimState st;
    assert_int_equal(lsim_state_init(&st, &m), 0);
    for (int i = 0; i < 5; ++i) {
      const double p[3] = {0, 0, a + 2 * a * i};
      place(&m, &st, box[i], p, 0.0);
    }
    LsimStepper *s = stepper(&m, solvers[k]);
    const double e0 = lsim_kinetic_energy(&m, &st) + lsim_potential_energy(&m, &st);
    double worst_pen = 0.0;
    for (int step = 0; step < 1000; ++step) {
      run(s, &m, &st, 1);
      const LsimContactSet *cs = lsim_stepper_contacts(s);
      for (int c = 0; c < cs->count; ++c) worst_pen = fmax(worst_pen, -cs->contacts[c].gap);
      const double e = lsim_kinetic_energy(&m, &st) + lsim_potential_energy(&m, &st);
      if (e > e0 + 1e-9) fail_msg("%s: energy grew by %g J at step %d", solvers[k], e - e0, step);
    }
    for (int i = 0; i < 5; ++i) {
      const double *q = st.q + m.bodies[box[i]].q_offset;
      const double drift = sqrt(q[0] * q[0] + q[1] * q[1] + pow(q[2] - (a + 2 * a * i), 2));
      if (drift > 1e-3) fail_msg("%s: box %d drifted %g m", solvers[k], i, drift);
    }
    if (worst_pen > 1e-6) fail_msg("%s: penetration %g m", solvers[k], worst_pen);
    lsim_stepper_free(s);
    lsim_state_free(&st);
    lsim_model_free(&m);
  }
}

/* A tower of 6 cubes (half width 0.1 m, 4 kg, mu 0.5) stacked exactly on the ground,
 * PGS at a fixed budget of 50 sweeps (tol 0), 10 s: it stays standing and at rest. A
 * warm start that handed each face's load distribution on from step to step let it
 * wander to single corners: the boxes rocked on them, the tower yawed 40 degrees, gained
 * 0.63 J above its start and moved its top box 3.5 cm (kinetic energy 0.22 J at 10 s);
 * keeping each face's previous moments (its split less the part the rows cannot see)
 * still rocked it (5.5e-2 J at 10 s, 14 degrees).
 * Bounds: the budget leaves penetrations of a few micrometres (4e-6 m measured) that
 * the correction pushes out, so the tower may rise by that much: energy within the
 * tower's weight times 1e-5 m (2.4e-3 J; 1.5e-3 J measured, 9.6e-4 J with only the top
 * face's moment set); kinetic energy at the end below 1e-4 J (5.8e-12 measured, 5e-10
 * with only the top face's moment set, 1.3e-6 with every face's load spread evenly; a
 * moment balancing the lower faces' friction as found rocked the tower, 3.3e-2 J); every box
 * within 1 mm of its start and turned by less than 1e-3 rad. */
static void test_stack_rests_at_budget(void **state) {
  (void)state;
  const double h = 0.01, a = 0.1, mass = 4.0;
  LsimModel m = model3(3, h);
  add_ground(&m, 0.0, 0.5);
  const double half[3] = {a, a, a};
  int box[6];
  for (int i = 0; i < 6; ++i) box[i] = add_box(&m, half, mass, 0.5);
  assert_int_equal(lsim_model_finalize(&m), 0);
  LsimState st;
  assert_int_equal(lsim_state_init(&st, &m), 0);
  for (int i = 0; i < 6; ++i) {
    const double p[3] = {0, 0, a + 2 * a * i};
    place(&m, &st, box[i], p, 0.0);
  }
  m.solver.tol = 0.0;
  m.solver.max_iter = 50;
  LsimStepper *s = NULL;
  char err[256];
  if (lsim_stepper_create(&s, &m, "pgs", err, sizeof err)) fail_msg("stepper: %s", err);
  const double e0 = lsim_kinetic_energy(&m, &st) + lsim_potential_energy(&m, &st);
  const double slack = 6 * mass * G * 1e-5;
  for (int step = 0; step < 1000; ++step) {
    run(s, &m, &st, 1);
    const double e = lsim_kinetic_energy(&m, &st) + lsim_potential_energy(&m, &st);
    if (e > e0 + slack) fail_msg("energy grew by %g J at step %d", e - e0, step);
  }
  const double ke = lsim_kinetic_energy(&m, &st);

  if (ke > 1e-4) fail_msg("kinetic energy %g J after 10 s", ke);
  for (int i = 0; i < 6; ++i) {
    const double *q = st.q + m.bodies[box[i]].q_offset;
    const double drift = sqrt(q[0] * q[0] + q[1] * q[1] + pow(q[2] - (a + 2 * a * i), 2));
    const double turn = 2.0 * asin(fmin(1.0, sqrt(q[4] * q[4] + q[5] * q[5] + q[6] * q[6])));
    if (drift > 1e-3) fail_msg("box %d drifted %g m", i, drift);
    if (turn > 1e-3) fail_msg("box %d turned %g rad", i, turn);
  }
  lsim_stepper_free(s);
  lsim_state_free(&st);
  lsim_model_free(&m);
}

/* A tower of 10 cubes (half width 0.1 m, 4 kg, mu 0.5) on the ground, each shifted
 * sideways by up to 2 cm (a fixed pattern), PGS at a fixed budget of 50 sweeps (tol 0),
 * 10 s: it stands, at rest. Statically it must: every cube's centre and the centre of
 * mass of the cubes above it lie within 3 cm of its own axis, inside its face. Swept in
 * detection order (the cubes from the bottom up) the tower swayed and leaned: by 10 s
 * the bottom cube had moved 2.5 cm and turned 2.2 degrees, kinetic energy 0.028 J
 * (measured; 5.5 cm, 9 degrees and 0.012 J with only the faces of one-contact bodies
 * warm started with their rest moment); swept from the top down (contacts of the bodies
 * farthest from the ground first, sweep_order) it settles (1e-4 m, 8e-5 rad, kinetic
 * energy 5e-11 J at 10 s measured). Bounds: every cube within 1 mm of its start (1/25
 * of the old motion, 10 times what is measured), turned by less than 1e-3 rad (12 times
 * what is measured), kinetic energy at the end below 1e-6 J (the old 1e-2 J). */
static void test_jittered_tower_rests_at_budget(void **state) {
  (void)state;
  const double h = 0.01, a = 0.1, mass = 4.0;
  LsimModel m = model3(3, h);
  add_ground(&m, 0.0, 0.5);
  const double half[3] = {a, a, a};
  int box[10];
  for (int i = 0; i < 10; ++i) box[i] = add_box(&m, half, mass, 0.5);
  assert_int_equal(lsim_model_finalize(&m), 0);
  LsimState st;
  assert_int_equal(lsim_state_init(&st, &m), 0);
  double p[10][3];
  for (int i = 0; i < 10; ++i) {
    p[i][0] = 0.02 * sin(2.3 * i + 0.5), p[i][1] = 0.02 * cos(1.7 * i + 0.2), p[i][2] = a + 2 * a * i;
    place(&m, &st, box[i], p[i], 0.0);
  }
  m.solver.tol = 0.0;
  m.solver.max_iter = 50;
  LsimStepper *s = NULL;
  char err[256];
  if (lsim_stepper_create(&s, &m, "pgs", err, sizeof err)) fail_msg("stepper: %s", err);
  run(s, &m, &st, 1000);
  const double ke = lsim_kinetic_energy(&m, &st);
  for (int i = 0; i < 10; ++i) {
    const double *q = st.q + m.bodies[box[i]].q_offset;
    const double drift = sqrt(pow(q[0] - p[i][0], 2) + pow(q[1] - p[i][1], 2) + pow(q[2] - p[i][2], 2));
    const double turn = 2.0 * asin(fmin(1.0, sqrt(q[4] * q[4] + q[5] * q[5] + q[6] * q[6])));
    if (drift > 1e-3) fail_msg("box %d drifted %g m", i, drift);
    if (turn > 1e-3) fail_msg("box %d turned %g rad", i, turn);
  }
  if (ke > 1e-6) fail_msg("kinetic energy %g J after 10 s", ke);
  lsim_stepper_free(s);
  lsim_state_free(&st);
  lsim_model_free(&m);
}

/* A tower of n <= 4 cubes (half width 0.1 m, 4 kg, mu 0.5) stacked on the top face of a
 * static box tilted by degrees about y (downhill is +x), PGS at a fixed budget of sweeps
 * (tol 0), 5 s: the farthest any cube gets from its start (m), and in *creep the
 * farthest any cube gets after 2 s from where it was at 2 s (the settling of the first
 * steps, from a cold start, apart). */
static double incline_creep(int n, double degrees, int sweeps, double *creep) {
  const double h = 0.01, a = 0.1, theta = degrees * 3.14159265358979323846 / 180.0;
  LsimModel m = model3(3, h);
  LsimBody sb = lsim_default_body();
  sb.type = LSIM_BODY_STATIC;
  const int bs = lsim_model_add_body(&m, &sb);
  LsimShape slope = lsim_default_shape();
  slope.type = LSIM_SHAPE_BOX, slope.body = bs, slope.mu = 0.5;
  slope.half[0] = slope.half[1] = 1.0, slope.half[2] = a;
  slope.rot[0] = cos(0.5 * theta), slope.rot[2] = sin(0.5 * theta);
  lsim_model_add_shape(&m, &slope);
  const double half[3] = {a, a, a};
  int box[4];
  for (int i = 0; i < n; ++i) box[i] = add_box(&m, half, 4.0, 0.5);
  assert_int_equal(lsim_model_finalize(&m), 0);
  LsimState st;
  assert_int_equal(lsim_state_init(&st, &m), 0);
  /* On the top face: cube i's centre (2 i + 2) a along its normal (sin, 0, cos), turned as
     the slope. */
  double p[4][3], p1[4][3];
  for (int i = 0; i < n; ++i) {
    double *q = st.q + m.bodies[box[i]].q_offset;
    p[i][0] = (2 * i + 2) * a * sin(theta), p[i][1] = 0.0, p[i][2] = (2 * i + 2) * a * cos(theta);
    q[0] = p[i][0], q[1] = p[i][1], q[2] = p[i][2];
    q[3] = cos(0.5 * theta), q[4] = 0.0, q[5] = sin(0.5 * theta), q[6] = 0.0;
  }
  m.solver.tol = 0.0;
  m.solver.max_iter = sweeps;
  LsimStepper *s = NULL;
  char err[256];
  if (lsim_stepper_create(&s, &m, "pgs", err, sizeof err)) fail_msg("stepper: %s", err);
  double moved = 0.0; /* the farthest from the start at any step */
  *creep = 0.0;
  for (int step = 0; step < 500; ++step) {
    run(s, &m, &st, 1);
    for (int i = 0; i < n; ++i) {
      const double *q = st.q + m.bodies[box[i]].q_offset;
      moved = fmax(moved, sqrt(pow(q[0] - p[i][0], 2) + pow(q[1] - p[i][1], 2) + pow(q[2] - p[i][2], 2)));
      if (step == 199) memcpy(p1[i], q, sizeof p1[i]);
      if (step >= 199)
        *creep = fmax(*creep, sqrt(pow(q[0] - p1[i][0], 2) + pow(q[1] - p1[i][1], 2) + pow(q[2] - p1[i][2], 2)));
    }
  }
  lsim_stepper_free(s);
  lsim_state_free(&st);
  lsim_model_free(&m);
  return moved;
}

/* Cubes resting on a slope (incline_creep) at a fixed budget of 20 sweeps. The four
 * corners of a face carry the load unevenly (under one cube on 20 degrees the downhill
 * pair 0.68 of it: the moment that balances the friction's torque about the centre), so
 * a warm start from the net load spread evenly made the sweeps rebuild that moment every
 * step, and what they left let a single cube creep 1.5e-4 m in 5 s (tilted about x,
 * where the sweeps meet the corners in another order, 3.6e-8 m). Warm started with the
 * moment that holds it at rest it stays within 1.1e-8 m (measured, the same as with the
 * previous split handed on as it was). Bound 1e-7 m: 1/1000 of the creep, 9 times what
 * is measured.
 * Stacks: the lower faces' moment must also balance the torque the loads above hand down
 * (a tower's weight acts along gravity, not along the slope's normal). With only the
 * bodies of one face balanced, two cubes on 20 degrees crept 3.4 mm in 5 s (2.0 mm of it
 * after 2 s), and three on 15 degrees (on 20 degrees three cubes tip over: tan 20 deg >
 * 1/3, half their width over their centre's height) 6.2 mm (3.7 mm after 2 s). Warm
 * started with every held face's moment of rest, the towers settle in the first second
 * from their cold start (0.11 mm and 0.69 mm measured) and then stay (after 2 s: 1e-16 m
 * and 3.1e-6 m, the last of the settling, measured). Bounds: settling within 1 mm (1/3
 * and 1/6 of the old motions), after 2 s within 1e-5 m (1/200 of the old creep, 3 times
 * the larger measured). */
static void test_incline_rests_at_budget(void **state) {
  (void)state;
  double creep;
  const double one = incline_creep(1, 20.0, 20, &creep);
  if (one > 1e-7) fail_msg("the cube crept %g m in 5 s", one);
  for (int n = 2; n <= 3; ++n) {
    const double moved = incline_creep(n, n == 2 ? 20.0 : 15.0, 20, &creep);
    if (moved > 1e-3) fail_msg("a tower of %d cubes moved %g m in 5 s", n, moved);
    if (creep > 1e-5) fail_msg("a tower of %d cubes crept %g m after 2 s", n, creep);
  }
}

/* Two equal balls collide head-on without gravity: momentum conserved (1e-12), the
 * collision perfectly inelastic: both end at the mean velocity (1e-9). */
static void test_balls_collide(void **state) {
  (void)state;
  for (int dim = 2; dim <= 3; ++dim)
    for (int k = 0; k < 2; ++k) {
      LsimModel m = model3(dim, 0.01);
      m.gravity[0] = m.gravity[1] = m.gravity[2] = 0.0;
      const int a = add_ball(&m, 0.1, 1.0, 0.0), b = add_ball(&m, 0.1, 1.0, 0.0);
      assert_int_equal(lsim_model_finalize(&m), 0);
      LsimState st;
      assert_int_equal(lsim_state_init(&st, &m), 0);
      const double pa[3] = {-0.5, 0, 0}, pb[3] = {0.5, 0, 0};
      place(&m, &st, a, pa, 0.0);
      place(&m, &st, b, pb, 0.0);
      st.v[m.bodies[a].v_offset] = 3.0;
      st.v[m.bodies[b].v_offset] = -1.0;
      LsimStepper *s = stepper(&m, solvers[k]);
      run(s, &m, &st, 100);
      const double va = st.v[m.bodies[a].v_offset], vb = st.v[m.bodies[b].v_offset];
      assert_true(fabs(va + vb - 2.0) <= 1e-12);
      assert_true(fabs(va - 1.0) <= 1e-9 && fabs(vb - 1.0) <= 1e-9);
      assert_true(st.q[m.bodies[b].q_offset] - st.q[m.bodies[a].q_offset] >= 0.2 - 1e-9);
      lsim_stepper_free(s);
      lsim_state_free(&st);
      lsim_model_free(&m);
    }
}

/* A row struck within a step: ball a (radius 0.1 m, 1 kg, no gravity) at 1 m/s touches
 * ball b at rest, and ball c rests 1 mm beyond b, h = 0.01 s, Lemke. The step's speed
 * bounds are each body's free speed (b's and c's 0); a contact.margin of h times the
 * fastest speed (0.01 m) keeps the b-c gap in the first solve (without it the step solves
 * again: test_struck_row_exact; docs/scene-format.md,
 * contact.margin). With it the first step is the LCP's exact answer: a and b together,
 * and b ahead of c by what the gap lets it gain, gap/h = 0.1 m/s: 2 V + (V - 0.1) = 1,
 * V = 1.1/3, c at 0.8/3, the gap closed to 0 (1e-12: a few roundings of O(1) numbers),
 * no overlap; the second step brings all three to 1/3 m/s (1e-9: Lemke's solution). */
/* The struck row in dim dimensions with the given contact.margin: one step checked
 * against the LCP's exact answer (tolerances above and below), the admission check's
 * re-runs counted, then the second step. */
static void struck_row(int dim, double margin, int reruns) {
  LsimModel m = model3(dim, 0.01);
  m.gravity[1] = m.gravity[2] = 0.0;
  m.contact_margin = margin;
  const int a = add_ball(&m, 0.1, 1.0, 0.0), b = add_ball(&m, 0.1, 1.0, 0.0),
            c = add_ball(&m, 0.1, 1.0, 0.0);
  assert_int_equal(lsim_model_finalize(&m), 0);
  LsimState st;
  assert_int_equal(lsim_state_init(&st, &m), 0);
  const double pa[3] = {0, 0, 0}, pb[3] = {0.2, 0, 0}, pc[3] = {0.401, 0, 0};
  place(&m, &st, a, pa, 0.0);
  place(&m, &st, b, pb, 0.0);
  place(&m, &st, c, pc, 0.0);
  st.v[m.bodies[a].v_offset] = 1.0;
  LsimStepper *s = stepper(&m, "lemke");
  LsimStepStats ss;
  assert_int_equal(lsim_step(s, &m, &st, &ss), LSIM_SOLVED);
  assert_int_equal(ss.admit_reruns, reruns);
  assert_int_equal(ss.admit_missed, 0);
  const double *v = st.v;
  const int oa = m.bodies[a].v_offset, ob = m.bodies[b].v_offset, oc = m.bodies[c].v_offset;
  assert_true(fabs(v[oa] - 1.1 / 3) <= 1e-9 && fabs(v[ob] - 1.1 / 3) <= 1e-9);
  assert_true(fabs(v[oc] - 0.8 / 3) <= 1e-9);
  const double gap_bc = st.q[m.bodies[c].q_offset] - st.q[m.bodies[b].q_offset] - 0.2;
  assert_true(fabs(gap_bc) <= 1e-12);
  run(s, &m, &st, 1);
  for (int i = 0; i < 3; ++i) assert_true(fabs(st.v[m.bodies[a + i].v_offset] - 1.0 / 3) <= 1e-9);
  lsim_stepper_free(s);
  lsim_state_free(&st);
  lsim_model_free(&m);
}

static void test_struck_row_margin(void **state) {
  (void)state;
  struck_row(3, 0.01, 0);
}

/* The struck row of test_struck_row_margin without the margin (contact.margin 0), in 2-D
 * and 3-D. Detection's bounds are the free speeds (a's 1 m/s, b's and c's 0), so the b-c
 * gap of 1 mm is left out of the first solve, whose impulse sends b off at 0.5 m/s: b
 * would end the step 4 mm inside c. The admission check (contact/step_admit.c) finds b
 * faster than its bound and the left-out b-c point closing (0.001 - 0.01 * 0.5 < 0), and
 * the step runs once more with b's bound raised to 0.5 m/s: the LCP's exact answer then,
 * the same as with the margin (V = 1.1/3 for a and b, 0.8/3 for c, the gap closed to 0
 * within 1e-12: a few roundings of O(1) numbers; velocities 1e-9: Lemke's solution), one
 * re-run and nothing left out after it. Without the check, b-c ends at -0.004 m. */
static void test_struck_row_exact(void **state) {
  (void)state;
  for (int dim = 2; dim <= 3; ++dim) struck_row(dim, 0.0, 1);
}

/* A ball dropped onto a ball at rest: ball b (radius 0.1 m, 1 kg) rests on the ground,
 * ball t is released at rest 0.5 mm above it, h = 0.01 s, Lemke. The step's LCP: the
 * ground row holds b (v_b = 0); t's row lets it close at most its gap, gap/h = 0.05 m/s,
 * less than the free fall's h g = 0.0981 m/s: v_t = -0.05 m/s and the gap ends at 0
 * (1e-12: a few roundings of O(1) numbers). Both bodies' speed bounds are h g, so the
 * contact is in the step; a bound on the pair's relative free velocity (0: both fall
 * alike) would leave it out, and t would fall h^2 g = 0.98 mm, 0.48 mm into b. */
static void test_dropped_on_resting(void **state) {
  (void)state;
  LsimModel m = model3(3, 0.01);
  add_ground(&m, 0.0, 0.0);
  const int b = add_ball(&m, 0.1, 1.0, 0.0), t = add_ball(&m, 0.1, 1.0, 0.0);
  assert_int_equal(lsim_model_finalize(&m), 0);
  LsimState st;
  assert_int_equal(lsim_state_init(&st, &m), 0);
  const double pb[3] = {0, 0, 0.1}, pt[3] = {0, 0, 0.3005};
  place(&m, &st, b, pb, 0.0);
  place(&m, &st, t, pt, 0.0);
  LsimStepper *s = stepper(&m, "lemke");
  run(s, &m, &st, 1);
  const double *q = st.q, *v = st.v;
  const int qb = m.bodies[b].q_offset, qt = m.bodies[t].q_offset;
  assert_true(fabs(v[m.bodies[b].v_offset + 2]) <= 1e-12);
  assert_true(fabs(v[m.bodies[t].v_offset + 2] + 0.05) <= 1e-12);
  assert_true(fabs(q[qt + 2] - q[qb + 2] - 0.2) <= 1e-12);
  lsim_stepper_free(s);
  lsim_state_free(&st);
  lsim_model_free(&m);
}

/* Energy never grows without applied forces: boxes and balls dropped on the ground,
 * tumbling into each other for 3 s. Each step's total energy is at most the previous
 * one's plus 1e-9 J (semi-implicit Euler loses m g^2 h^2 / 2 per step in free flight;
 * contacts are inelastic and friction dissipates). */
static void test_energy_never_grows(void **state) {
  (void)state;
  for (int k = 0; k < 2; ++k) {
    LsimModel m = model3(3, 0.005);
    m.solver.max_iter = 2000; /* PGS: a budget (tumbling contacts converge slowly) */
    /* Boxes landing edge-first on boxes give LCPs with condition numbers near 1e6: the
       attainable natural residual is then about 1e-10 relative (PGS stalls there too), so
       Lemke is asked for 1e-8 here. */
    tol_lemke = 1e-8;
    LsimState st;
    drop_scene(&m, &st, 4, 3);
    LsimStepper *s = stepper(&m, solvers[k]);
    double e_prev = lsim_kinetic_energy(&m, &st) + lsim_potential_energy(&m, &st);
    /* Lemke solves each step to 1e-8: energy may not grow beyond 1e-9 J. PGS stops at its
       2000-sweep budget on some steps with a residual up to about 1e-6 relative, which can
       move the impulses (order 0.01 N s) and velocities (order 1 m/s) enough to change the
       energy by about 1e-8 J; 1e-6 J (1e-7 of the 9 J in play) bounds that. */
    const double slack = k ? 1e-6 : 1e-9;
    for (int step = 0; step < 600; ++step) {
      run(s, &m, &st, 1);
      const double e = lsim_kinetic_energy(&m, &st) + lsim_potential_energy(&m, &st);
      if (e > e_prev + slack) fail_msg("%s: energy grew by %g J at step %d", solvers[k], e - e_prev, step);
      e_prev = e;
    }
    lsim_stepper_free(s);
    lsim_state_free(&st);
    lsim_model_free(&m);
  }
  tol_lemke = 1e-12;
}

/* A capsule (radius 0.05 m, half length 0.3 m, 1 kg) tilted by a in the y-z plane lands
 * at 1 m/s, spinning at w about x, on a static support under its low end: the top edge
 * of a box (half extents 0.4, 0.3, 0.25) or a static capsule (radius 0.08 m, half length
 * 0.4 m) along y under the whole segment. It pivots there and its high end swings down
 * onto the support, 6 cm a step at 20 rad/s: held by the pivot's one point, that end sank
 * 1-3 cm into the support within a step, and the push-out at the next step added up to
 * 0.1 J. Now that end has its own point. Bounds: the step moves a point along its tangent,
 * h^2 w^2 R / 2 off its circle for a point R from the spin axis, 7 mm at w = 20 rad/s and
 * R = 0.35 m (the whole capsule); energy may not grow by more than 1e-8 J a step (Lemke
 * solves to 1e-10 relative: velocities of order 1 m/s move by 1e-10 m/s). */
static void test_spinning_capsule_end(void **state) {
  (void)state;
  tol_lemke = 1e-10;
  for (int support = 0; support < 2; ++support)
    for (int c = 0; c < 4; ++c) {
      const double w = c & 1 ? 20.0 : 10.0, a = c & 2 ? 0.5 : 0.3;
      LsimModel m = model3(3, 0.01);
      add_ground(&m, 0.0, 0.5);
      LsimBody sb = lsim_default_body();
      sb.type = LSIM_BODY_STATIC;
      const int bs = lsim_model_add_body(&m, &sb);
      LsimShape base = lsim_default_shape();
      base.body = bs;
      base.mu = 0.5;
      if (support == 0) {
        base.type = LSIM_SHAPE_BOX;
        base.half[0] = 0.4, base.half[1] = 0.3, base.half[2] = 0.25;
        base.pos[2] = 0.25;
      } else {
        base.type = LSIM_SHAPE_CAPSULE;
        base.radius = 0.08, base.half[0] = 0.4;
        base.pos[2] = 0.42;
        base.rot[0] = sqrt(0.5), base.rot[1] = -sqrt(0.5); /* axis along y */
      }
      lsim_model_add_shape(&m, &base);
      LsimBody b = lsim_default_body();
      b.mass = 1.0;
      lsim_inertia_capsule(1.0, 0.05, 0.3, b.inertia);
      const int bc = lsim_model_add_body(&m, &b);
      LsimShape cap = lsim_default_shape();
      cap.type = LSIM_SHAPE_CAPSULE, cap.body = bc, cap.mu = 0.5;
      cap.radius = 0.05, cap.half[0] = 0.3;
      lsim_model_add_shape(&m, &cap);
      assert_int_equal(lsim_model_finalize(&m), 0);
      LsimState st;
      assert_int_equal(lsim_state_init(&st, &m), 0);
      /* Axis (0, cos a, -sin a): the low end at +y, 1 cm above the box's edge (y = 0.3)
         or the capsule's top (z = 0.5). */
      const double p[3] = {0.0, support ? 0.0 : 0.3, support ? 0.561 + 0.3 * sin(a) : 0.56};
      place(&m, &st, bc, p, atan2(-cos(a), -sin(a)));
      double *v = st.v + m.bodies[bc].v_offset;
      v[2] = -1.0, v[3] = w;
      LsimStepper *s = stepper(&m, "lemke");
      double e_prev = lsim_kinetic_energy(&m, &st) + lsim_potential_energy(&m, &st);
      double deepest = 0.0, gain = -HUGE_VAL;
      for (int step = 0; step < 100; ++step) {
        run(s, &m, &st, 1);
        const LsimContactSet *set = lsim_stepper_contacts(s);
        for (int i = 0; i < set->count; ++i) deepest = fmin(deepest, set->contacts[i].gap);
        const double e = lsim_kinetic_energy(&m, &st) + lsim_potential_energy(&m, &st);
        gain = fmax(gain, e - e_prev);
        e_prev = e;
      }
      if (deepest < -7e-3 || gain > 1e-8)
        fail_msg("%s w %g a %g: penetration %g m, energy gain %g J", support ? "capsule" : "box",
                 w, a, -deepest, gain);
      lsim_stepper_free(s);
      lsim_state_free(&st);
      lsim_model_free(&m);
    }
  tol_lemke = 1e-12;
}

/* The same with a box: a rod (half extents 0.05, 0.3, 0.03, 1 kg) along y, rolled by 45
 * degrees about its length and tilted by a in the y-z plane, lands at 1 m/s spinning at w
 * about x with its low end beyond the top edge of the static box: its lowest edge crosses
 * the box's edge, an edge-edge contact, which was one point: the high end swung 2.8 cm
 * into the top face within a step at 20 rad/s (5 mm and +0.025 J a step at 10 rad/s).
 * Now the rod's face over the top face is held as well. Bounds as above: h^2 w^2 R / 2 =
 * 6.2 mm at w = 20 rad/s, R = 0.31 m (the rod's half diagonal), 7 mm; energy 1e-8 J. */
static void test_spinning_rod_on_edge(void **state) {
  (void)state;
  tol_lemke = 1e-10;
  for (int c = 0; c < 4; ++c) {
    const double w = c & 1 ? 20.0 : 10.0, a = c & 2 ? 0.5 : 0.3;
    LsimModel m = model3(3, 0.01);
    add_ground(&m, 0.0, 0.5);
    LsimBody sb = lsim_default_body();
    sb.type = LSIM_BODY_STATIC;
    const int bs = lsim_model_add_body(&m, &sb);
    LsimShape table = lsim_default_shape();
    table.type = LSIM_SHAPE_BOX, table.body = bs, table.mu = 0.5;
    table.half[0] = 0.4, table.half[1] = 0.3, table.half[2] = 0.25;
    table.pos[2] = 0.25;
    lsim_model_add_shape(&m, &table);
    const double half[3] = {0.05, 0.3, 0.03};
    const int br = add_box(&m, half, 1.0, 0.5);
    assert_int_equal(lsim_model_finalize(&m), 0);
    LsimState st;
    assert_int_equal(lsim_state_init(&st, &m), 0);
    /* Rolled about y by 45 degrees, then tilted about x by -a (low end at +y); the lowest
       edge, (0.05 + 0.03) / sqrt 2 below the axis, 1 cm above the box's edge. */
    const double roll[4] = {cos(PI_8), 0.0, sin(PI_8), 0.0};
    const double tilt[4] = {cos(-0.5 * a), sin(-0.5 * a), 0.0, 0.0};
    double *q = st.q + m.bodies[br].q_offset;
    q[0] = 0.0, q[1] = 0.3, q[2] = 0.5 + 0.08 / sqrt(2.0) / cos(a) + 0.01;
    lsim_quat_mul(q + 3, tilt, roll);
    double *v = st.v + m.bodies[br].v_offset;
    v[2] = -1.0, v[3] = w;
    LsimStepper *s = stepper(&m, "lemke");
    double e_prev = lsim_kinetic_energy(&m, &st) + lsim_potential_energy(&m, &st);
    double deepest = 0.0, gain = -HUGE_VAL;
    for (int step = 0; step < 100; ++step) {
      run(s, &m, &st, 1);
      const LsimContactSet *set = lsim_stepper_contacts(s);
      for (int i = 0; i < set->count; ++i) deepest = fmin(deepest, set->contacts[i].gap);
      const double e = lsim_kinetic_energy(&m, &st) + lsim_potential_energy(&m, &st);
      gain = fmax(gain, e - e_prev);
      e_prev = e;
    }
    if (deepest < -7e-3 || gain > 1e-8)
      fail_msg("rod w %g a %g: penetration %g m, energy gain %g J", w, a, -deepest, gain);
    lsim_stepper_free(s);
    lsim_state_free(&st);
    lsim_model_free(&m);
  }
  tol_lemke = 1e-12;
}

/* A plate (half extents 0.3, 0.2, 0.025, 1 kg) resting off-centre on a static roller (a
 * capsule of radius 0.05 m, half length 0.3 m, along y, longer than the plate is wide)
 * tips over it onto the ground and rocks there, its face on the roller. A face rocking
 * by a small angle about x leaves the segment's closest points just past the face's
 * border, so the roller held it by one point at a time, at alternate ends: it sank 1 mm
 * and each push-out gained up to 8e-4 J. Now both ends of the face are held. Bounds: the
 * step keeps the rolling contact's gap to first order, so the face ends a step up to
 * h^2 w^2 r / 2 = 2.3e-5 m inside (w <= 3 rad/s, r = 0.05 m); 1e-4 m allows for that;
 * pushing it back can add the support impulse (0.03 N s) times that over h, 7e-5 J a
 * step, so 1e-4 J bounds the gain, well below the 8e-4 J of a one-point rock. */
static void test_plate_on_roller(void **state) {
  (void)state;
  tol_lemke = 1e-10;
  LsimModel m = model3(3, 0.01);
  add_ground(&m, 0.0, 0.5);
  LsimBody rb = lsim_default_body();
  rb.type = LSIM_BODY_STATIC;
  const int br = lsim_model_add_body(&m, &rb);
  LsimShape roller = lsim_default_shape();
  roller.type = LSIM_SHAPE_CAPSULE, roller.body = br, roller.mu = 0.5;
  roller.radius = 0.05, roller.half[0] = 0.3;
  roller.pos[2] = 0.05;
  roller.rot[0] = sqrt(0.5), roller.rot[1] = -sqrt(0.5); /* axis along y */
  lsim_model_add_shape(&m, &roller);
  const double half[3] = {0.3, 0.2, 0.025};
  const int bp = add_box(&m, half, 1.0, 0.5);
  assert_int_equal(lsim_model_finalize(&m), 0);
  LsimState st;
  assert_int_equal(lsim_state_init(&st, &m), 0);
  const double p[3] = {0.15, 0.0, 0.125};
  place(&m, &st, bp, p, 0.0);
  LsimStepper *s = stepper(&m, "lemke");
  double e_prev = lsim_kinetic_energy(&m, &st) + lsim_potential_energy(&m, &st);
  double deepest = 0.0, gain = -HUGE_VAL;
  for (int step = 0; step < 150; ++step) {
    run(s, &m, &st, 1);
    const LsimContactSet *set = lsim_stepper_contacts(s);
    for (int i = 0; i < set->count; ++i) deepest = fmin(deepest, set->contacts[i].gap);
    const double e = lsim_kinetic_energy(&m, &st) + lsim_potential_energy(&m, &st);
    gain = fmax(gain, e - e_prev);
    e_prev = e;
  }
  if (deepest < -1e-4 || gain > 1e-4)
    fail_msg("penetration %g m, energy gain %g J", -deepest, gain);
  /* It came off the roller at +x: the plate ends lower than it started, on the ground. */
  assert_true(st.q[m.bodies[bp].q_offset + 2] < 0.1);
  lsim_stepper_free(s);
  lsim_state_free(&st);
  lsim_model_free(&m);
  tol_lemke = 1e-12;
}

/* A kinematic box moving at a prescribed 1 m/s pushes a dynamic box on frictionless
 * ground (2-D and 3-D): the kinematic body is not pushed back (its velocity stays exactly
 * 1), and after the inelastic impact the dynamic box moves with it at 1 m/s (1e-9). */
static void test_kinematic_pusher(void **state) {
  (void)state;
  for (int dim = 2; dim <= 3; ++dim)
    for (int k = 0; k < 2; ++k) {
      LsimModel m = model3(dim, 0.01);
      add_ground(&m, 0.0, 0.0);
      const double half[3] = {0.1, 0.1, 0.1};
      const int pusher = add_box(&m, half, 1.0, 0.0), box = add_box(&m, half, 1.0, 0.0);
      m.bodies[pusher].type = LSIM_BODY_KINEMATIC;
      m.bodies[pusher].kinematic_velocity.width = dim == 2 ? 3 : 6;
      m.bodies[pusher].kinematic_velocity.constant = 1.0; /* component 0: vx */
      assert_int_equal(lsim_model_finalize(&m), 0);
      LsimState st;
      assert_int_equal(lsim_state_init(&st, &m), 0);
      double p0[3] = {-0.5, 0, 0}, p1[3] = {0, 0, 0};
      p0[dim - 1] = p1[dim - 1] = 0.1;
      place(&m, &st, pusher, p0, 0.0);
      place(&m, &st, box, p1, 0.0);
      st.v[m.bodies[pusher].v_offset] = 1.0;
      LsimStepper *s = stepper(&m, solvers[k]);
      run(s, &m, &st, 100);
      assert_true(st.v[m.bodies[pusher].v_offset] == 1.0);
      assert_true(fabs(st.v[m.bodies[box].v_offset] - 1.0) <= 1e-9);
      const double gap = st.q[m.bodies[box].q_offset] - st.q[m.bodies[pusher].q_offset] - 0.2;
      assert_true(gap >= -1e-9 && gap <= 1e-9);
      lsim_stepper_free(s);
      lsim_state_free(&st);
      lsim_model_free(&m);
    }
}

/* A free body's world angular momentum L = R I R' w and energy over a run without gravity:
 * the largest angle between L and its start, the largest relative change of |L| and of the
 * energy w.I w / 2 over every step. The body: a box of 1 kg with the given half extents,
 * or with the given body-frame inertia (diagonal) when inertia is not NULL. */
typedef struct SpinDrift {
  double angle, norm, energy;
  double w_body[3], q[4]; /* at the end */
} SpinDrift;

static SpinDrift free_spin(int rotation, const double half[3], const double *inertia,
                           const double w0[3], double h, double T) {
  LsimModel m = model3(3, h);
  m.gravity[2] = 0.0;
  m.rotation = rotation;
  const int b = add_box(&m, half, 1.0, 0.5);
  if (inertia) {
    memset(m.bodies[b].inertia, 0, sizeof m.bodies[b].inertia);
    for (int k = 0; k < 3; ++k) m.bodies[b].inertia[4 * k] = inertia[k];
  }
  assert_int_equal(lsim_model_finalize(&m), 0);
  LsimState st;
  assert_int_equal(lsim_state_init(&st, &m), 0);
  st.q[3] = 1.0;
  memcpy(st.v + 3, w0, 3 * sizeof(double));
  LsimStepper *s = stepper(&m, "lemke");
  SpinDrift r = {0.0, 0.0, 0.0, {0, 0, 0}, {0, 0, 0, 0}};
  double L0[3] = {0, 0, 0}, E0 = 0.0;
  const int steps = (int)lround(T / h);
  for (int k = 0; k <= steps; ++k) {
    double wb[3], Iw[3], L[3], x[3];
    lsim_quat_rotate_inv(wb, st.q + 3, st.v + 3);
    lsim_m3_apply(Iw, m.bodies[b].inertia, wb);
    lsim_quat_rotate(L, st.q + 3, Iw);
    const double E = 0.5 * lsim_v3_dot(wb, Iw);
    if (k == 0) memcpy(L0, L, sizeof L), E0 = E;
    lsim_v3_cross(x, L, L0);
    r.angle = fmax(r.angle, atan2(lsim_v3_norm(x), lsim_v3_dot(L, L0)));
    r.norm = fmax(r.norm, fabs(lsim_v3_norm(L) - lsim_v3_norm(L0)) / lsim_v3_norm(L0));
    r.energy = fmax(r.energy, fabs(E - E0) / E0);
    memcpy(r.w_body, wb, sizeof wb);
    if (k < steps) run(s, &m, &st, 1);
  }
  memcpy(r.q, st.q + 3, sizeof r.q);
  lsim_stepper_free(s);
  lsim_state_free(&st);
  lsim_model_free(&m);
  return r;
}

/* Torque-free rotation of an asymmetric box (half extents 0.3, 0.2, 0.1) spinning near its
 * major axis, w = (0.3, 0.2, 5) rad/s, 10 s at h = 0.005 s. The body-frame midpoint of
 * earlier versions (LSIM_ROTATION_BODY_MIDPOINT) turned the world L by 1.0e-3 rad at most
 * (first order: 1.0e-4 at h = 0.0005 s), keeping |L| and the energy; the Lie midpoint
 * (the default) keeps all three to round-off: 2000 steps of a few ulps each, asserted below
 * 1e-11 (measured: L turned 5e-15 rad, |L| 5e-14, energy 1e-13). Fails before the Lie
 * midpoint (1.0e-3 rad). */
static void test_free_spin_momentum(void **state) {
  (void)state;
  const double half[3] = {0.3, 0.2, 0.1}, w[3] = {0.3, 0.2, 5.0};
  const SpinDrift lie = free_spin(LSIM_ROTATION_LIE_MIDPOINT, half, NULL, w, 0.005, 10.0);
  print_message("Lie midpoint: L turned %.3g rad, |L| %.3g, energy %.3g\n", lie.angle, lie.norm, lie.energy);
  assert_true(lie.angle <= 1e-11 && lie.norm <= 1e-11 && lie.energy <= 1e-11);
  /* The body-frame midpoint, first order in h: the ratio of the drifts at h and h / 10
     near 10 (8 to 12). */
  const SpinDrift coarse = free_spin(LSIM_ROTATION_BODY_MIDPOINT, half, NULL, w, 0.005, 10.0);
  const SpinDrift fine = free_spin(LSIM_ROTATION_BODY_MIDPOINT, half, NULL, w, 0.0005, 10.0);
  print_message("body-frame midpoint: L turned %.3g rad (h = 0.005 s), %.3g (h = 0.0005 s); "
                "|L| %.3g, energy %.3g\n", coarse.angle, fine.angle, coarse.norm, coarse.energy);
  assert_true(coarse.angle > 1e-4 && coarse.angle / fine.angle > 8.0 && coarse.angle / fine.angle < 12.0);
  assert_true(coarse.norm <= 1e-11 && coarse.energy <= 1e-11);
}

/* A spin about a principal axis is a constant w: the Lie midpoint turns the body by exactly
 * h w a step, so a box (half extents 0.3, 0.2, 0.1) spinning at 5 rad/s about its body z
 * (the major axis) for 10 s at h = 0.01 s has turned by 50 rad about z: quaternion
 * (cos 25, 0, 0, sin 25), to the round-off of 1000 quaternion products (1e-12 asserted). */
static void test_free_spin_principal(void **state) {
  (void)state;
  const double half[3] = {0.3, 0.2, 0.1}, w[3] = {0.0, 0.0, 5.0};
  const SpinDrift r = free_spin(LSIM_ROTATION_LIE_MIDPOINT, half, NULL, w, 0.01, 10.0);
  const double sgn = r.q[0] * cos(25.0) + r.q[3] * sin(25.0) >= 0.0 ? 1.0 : -1.0;
  assert_true(fabs(sgn * r.q[0] - cos(25.0)) <= 1e-12 && fabs(sgn * r.q[3] - sin(25.0)) <= 1e-12);
  assert_true(fabs(r.q[1]) <= 1e-12 && fabs(r.q[2]) <= 1e-12);
  assert_true(fabs(r.w_body[2] - 5.0) <= 1e-12 && fabs(r.w_body[0]) <= 1e-12 && fabs(r.w_body[1]) <= 1e-12);
}

/* A constant applied torque on a tumbling free body changes its world angular momentum
 * by tau t exactly (dL/dt = tau; no gravity, no rows): a box of 1 kg with a full inertia
 * matrix (principal axes off the body axes), orientation 0.7 rad about (1, 2, 3), spinning
 * at (0.3, 4, 0.5) rad/s, torque (0.1, -0.2, 0.3) N m, 2000 steps of 0.005 s: L = L0 +
 * 10 tau. The Lie midpoint takes h I^-1 tau into the spin before it turns the body, so
 * each step adds h tau to L to round-off (2000 steps of a few ulps of |L| = 6.7 N m s:
 * 1e-11 asserted, measured 7e-13). Added after the turn, in the end's frame, it
 * missed by 0.050 N m s (a
 * first-order error: 0.020 at h = 0.01 s over 2 s, 0.010 at 0.005 s), and the
 * orientation was 4 times further from an accurate integration (3.7e-3 against
 * 1.1e-3 at h = 0.02 s, 2 s). */
static void test_free_spin_torque_momentum(void **state) {
  (void)state;
  const double h = 0.005, tau[3] = {0.1, -0.2, 0.3};
  const double I[9] = {2.0, 0.3, -0.2, 0.3, 1.5, 0.1, -0.2, 0.1, 1.0};
  LsimModel m = model3(3, h);
  m.gravity[2] = 0.0;
  m.rotation = LSIM_ROTATION_LIE_MIDPOINT;
  const double half[3] = {0.3, 0.2, 0.1};
  const int b = add_box(&m, half, 1.0, 0.5);
  memcpy(m.bodies[b].inertia, I, sizeof I);
  LsimSchedule *f = &m.bodies[b].force;
  f->width = 6, f->npoints = 0;
  f->value = calloc(6, sizeof(double));
  assert_non_null(f->value);
  memcpy(f->value + 3, tau, sizeof tau);
  assert_int_equal(lsim_model_finalize(&m), 0);
  LsimState st;
  assert_int_equal(lsim_state_init(&st, &m), 0);
  const double axis[3] = {1.0 / sqrt(14.0), 2.0 / sqrt(14.0), 3.0 / sqrt(14.0)};
  st.q[3] = cos(0.35);
  for (int k = 0; k < 3; ++k) st.q[4 + k] = sin(0.35) * axis[k];
  const double w0[3] = {0.3, 4.0, 0.5};
  memcpy(st.v + 3, w0, sizeof w0);
  double L0[3], L[3];
  for (int pass = 0; pass < 2; ++pass) {
    double wb[3], Iw[3];
    lsim_quat_rotate_inv(wb, st.q + 3, st.v + 3);
    lsim_m3_apply(Iw, I, wb);
    lsim_quat_rotate(pass ? L : L0, st.q + 3, Iw);
    if (!pass) {
      LsimStepper *s = stepper(&m, "lemke");
      run(s, &m, &st, 2000);
      lsim_stepper_free(s);
    }
  }
  double err = 0.0;
  for (int k = 0; k < 3; ++k) err = fmax(err, fabs(L[k] - (L0[k] + 2000 * h * tau[k])));
  print_message("L = (%.12f, %.12f, %.12f) N m s, L0 + 10 tau within %.2g\n", L[0], L[1],
                L[2], err);
  assert_true(err <= 1e-11);
  lsim_state_free(&st);
  lsim_model_free(&m);
}

/* An applied torque acts on a free body as before the Lie midpoint: a box (half extents
 * 0.3, 0.2, 0.1, 1 kg; Izz = (0.09 + 0.04) / 3 kg m^2) at rest, torque 0.5 N m about z,
 * no gravity: semi-implicit Euler gives w_k = k h tau / Izz and the angle h^2 tau / Izz
 * k (k + 1) / 2 (the turn uses the new spin), exactly; after 100 steps of 0.01 s: w =
 * 11.538 rad/s, angle 5.8269 rad, asserted to 1e-12 (round-off of 100 sums). */
static void test_free_spin_torque(void **state) {
  (void)state;
  LsimModel m = model3(3, 0.01);
  m.gravity[2] = 0.0;
  const double half[3] = {0.3, 0.2, 0.1}, tau = 0.5;
  const int b = add_box(&m, half, 1.0, 0.5);
  LsimSchedule *f = &m.bodies[b].force;
  f->width = 6, f->npoints = 1;
  f->t = calloc(1, sizeof(double));
  f->value = calloc(6, sizeof(double));
  assert_non_null(f->t);
  assert_non_null(f->value);
  f->value[5] = tau;
  assert_int_equal(lsim_model_finalize(&m), 0);
  LsimState st;
  assert_int_equal(lsim_state_init(&st, &m), 0);
  st.q[3] = 1.0;
  LsimStepper *s = stepper(&m, "lemke");
  run(s, &m, &st, 100);
  const double Izz = m.bodies[b].inertia[8], w = 100 * 0.01 * tau / Izz;
  const double angle = 0.01 * 0.01 * tau / Izz * 100 * 101 / 2.0;
  assert_true(fabs(st.v[5] - w) <= 1e-12 * w && fabs(st.v[3]) <= 1e-12 && fabs(st.v[4]) <= 1e-12);
  assert_true(fabs(st.q[3] - cos(0.5 * angle)) <= 1e-12 && fabs(st.q[6] - sin(0.5 * angle)) <= 1e-12);
  lsim_stepper_free(s);
  lsim_state_free(&st);
  lsim_model_free(&m);
}

/* The symmetric top: inertia (1, 1, 2) kg m^2, w = (1, 0, 3) rad/s in the body frame. Euler's
 * equations give w3 constant and (w1, w2) turning about the body z at
 * Omega = (I3 - I1) w3 / I1 = 3 rad/s (w1 = cos(Omega t) with I2 = I1), L and the energy
 * constant. The Lie midpoint keeps L, the energy and w3 to round-off (asserted 1e-11 over
 * 1000 steps at h = 0.01 s), and (w1, w2) at t = 10 s to its second-order phase error:
 * measured 2.5e-4 rad at h = 0.01 s against the analytic angle 30 rad, asserted 1e-3, and
 * 6.25e-5 at h = 0.005 s, 4 times less (asserted 3.5 to 4.5). */
static void test_free_spin_symmetric_top(void **state) {
  (void)state;
  const double half[3] = {0.3, 0.2, 0.1}, I[3] = {1.0, 1.0, 2.0}, w[3] = {1.0, 0.0, 3.0};
  const double hs[2] = {0.01, 0.005};
  double err[2];
  for (int c = 0; c < 2; ++c) {
    const SpinDrift r = free_spin(LSIM_ROTATION_LIE_MIDPOINT, half, I, w, hs[c], 10.0);
    assert_true(r.angle <= 1e-11 && r.norm <= 1e-11 && r.energy <= 1e-11);
    assert_true(fabs(r.w_body[2] - 3.0) <= 1e-11);
    assert_true(fabs(hypot(r.w_body[0], r.w_body[1]) - 1.0) <= 1e-11);
    /* the phase of (w1, w2) against Omega t = 30 rad */
    err[c] = fabs(remainder(atan2(r.w_body[1], r.w_body[0]) - 30.0, 6.283185307179586)); /* 2 pi */
    print_message("symmetric top, h = %g s: phase error %.3g rad\n", hs[c], err[c]);
  }
  assert_true(err[0] <= 1e-3);
  assert_true(err[0] / err[1] > 3.5 && err[0] / err[1] < 4.5);
}

/* A free box spinning near its intermediate axis (half extents 0.3, 0.2, 0.1: inertia
 * m (b^2 + c^2) / 3 ... about x, y, z, the y axis intermediate; w = (0.1, 5, 0.1) rad/s
 * in the body frame, no gravity) tumbles: the y component of w flips sign again and
 * again (growth rate 5 sqrt((Iy - Ix)(Iz - Iy) / (Ix Iz)) = 2.4 /s from a 2 % tilt; Euler's
 * equations integrated by RK4 at 1e-4 s put the sign changes of w_y at 2.7241 s and
 * 7.2562 s, at least two in 10 s). The Lie midpoint (contact/step.c,
 * rotation_step) keeps its kinetic energy, |L| and the world L to Newton's 1e-15 and
 * round-off over every step: asserted within 1e-11 relative of the start after each of
 * 10 s of steps at h = 0.05 s and 0.001 s (10000 steps of round-off). The second sign
 * change (w_y back to > 0) comes at the first state after 7.2562 s: 7.257 s at h = 0.001 s
 * and 7.25 s at h = 0.05 s (the method's second-order phase error, before the crossing),
 * asserted within h + 0.001 s and h + 0.01 s. The explicit torque fed energy in
 * (inertia (1, 2, 3), w = (0.01, 5, 0.01): +1.2 % in 10 s at h = 0.001 s, doubled at
 * h = 0.05 s). */
static void test_gyroscopic_invariants(void **state) {
  (void)state;
  const double hs[2] = {0.05, 0.001};
  double second[2] = {0.0, 0.0};
  for (int c = 0; c < 2; ++c) {
    LsimModel m = model3(3, hs[c]);
    m.gravity[2] = 0.0;
    const double half[3] = {0.3, 0.2, 0.1};
    const int b = add_box(&m, half, 1.0, 0.5);
    assert_int_equal(lsim_model_finalize(&m), 0);
    LsimState st;
    assert_int_equal(lsim_state_init(&st, &m), 0);
    st.q[3] = 1.0;
    st.v[3] = 0.1, st.v[4] = 5.0, st.v[5] = 0.1;
    LsimStepper *s = stepper(&m, "lemke");
    const int steps = (int)lround(10.0 / hs[c]);
    double E0 = 0.0, L0 = 0.0, Lw0[3] = {0, 0, 0};
    int flips = 0, sign = 1;
    for (int k = 0; k <= steps; ++k) {
      double wb[3], Iw[3];
      lsim_quat_rotate_inv(wb, st.q + 3, st.v + 3);
      lsim_m3_apply(Iw, m.bodies[b].inertia, wb);
      const double E = 0.5 * lsim_v3_dot(wb, Iw), L = lsim_v3_norm(Iw);
      double Lw[3], dL[3];
      lsim_quat_rotate(Lw, st.q + 3, Iw);
      if (k == 0) E0 = E, L0 = L, memcpy(Lw0, Lw, sizeof Lw);
      assert_true(fabs(E - E0) <= 1e-11 * E0);
      assert_true(fabs(L - L0) <= 1e-11 * L0);
      lsim_v3_sub(dL, Lw, Lw0);
      assert_true(lsim_v3_norm(dL) <= 1e-11 * L0);
      if ((wb[1] > 0) != (sign > 0)) {
        ++flips, sign = -sign;
        if (flips == 2) second[c] = k * hs[c];
      }
      if (k < steps) run(s, &m, &st, 1);
    }
    assert_true(flips >= 2);
    lsim_stepper_free(s);
    lsim_state_free(&st);
    lsim_model_free(&m);
  }
  print_message("intermediate axis: second flip at %.4g s (h = 0.05 s), %.4g s (h = 0.001 s)\n",
                second[0], second[1]);
  assert_true(fabs(second[1] - 7.2562) <= 0.001 + 0.001);
  assert_true(fabs(second[0] - 7.2562) <= 0.05 + 0.01);
}

/* Opposite friction directions are exact negatives, to the bit: in the contact rows
 * detection writes (direction k + d/2 against k, d = 4, 6, 8 in 3-D, the tangent pair in
 * 2-D) and in the LCP's rows of J and B, which the time step's assembly copies negated
 * instead of forming them again. Boxes and balls landing on each other and the ground,
 * 150 steps each, every contact of every step. */
static void test_opposite_directions_exact(void **state) {
  (void)state;
  const int dims[4] = {3, 3, 3, 2}, dirs[4] = {4, 6, 8, 2};
  for (int c = 0; c < 4; ++c) {
    LsimModel m = model3(dims[c], 0.005);
    m.friction_directions = dirs[c];
    m.solver.max_iter = 200;
    LsimState st;
    drop_scene(&m, &st, 3, 2);
    LsimStepper *s = stepper(&m, "pgs");
    int pairs = 0;
    for (int step = 0; step < 150; ++step) {
      run(s, &m, &st, 1);
      const LsimContactSet *set = lsim_stepper_contacts(s);
      const LsimFactoredLcp *f = lsim_stepper_factored(s);
      for (int k = 0; k < set->count; ++k) {
        const LsimContact *ct = &set->contacts[k];
        const int d = ct->ndir;
        if (d == 0) continue;
        assert_int_equal(d, dirs[c]);
        const int b0 = ct->first_var + 1; /* after the normal */
        for (int a = 0; a < d / 2; ++a, ++pairs) {
          const LsimJacRow *r = &set->rows[ct->first_row + 1 + a], *o = r + d / 2;
          for (int slot = 0; slot < 2; ++slot) {
            assert_int_equal(r->body[slot], o->body[slot]);
            for (int e = 0; e < LSIM_MAX_BODY_DOF; ++e) assert_true(o->j[slot][e] == -r->j[slot][e]);
          }
          const int i = b0 + a, j = b0 + a + d / 2, len = f->J_ptr[i + 1] - f->J_ptr[i];
          assert_int_equal(f->J_ptr[j + 1] - f->J_ptr[j], len);
          for (int e = 0; e < len; ++e) {
            assert_int_equal(f->J_idx[f->J_ptr[j] + e], f->J_idx[f->J_ptr[i] + e]);
            assert_true(f->J_val[f->J_ptr[j] + e] == -f->J_val[f->J_ptr[i] + e]);
            assert_true(f->B_val[f->B_ptr[j] + e] == -f->B_val[f->B_ptr[i] + e]);
          }
        }
      }
    }
    assert_true(pairs > 100); /* the bodies touched */
    lsim_stepper_free(s);
    lsim_state_free(&st);
    lsim_model_free(&m);
  }
}

/* A row of 10 equal boxes (side 0.2 m, 1 kg, mu 0.5) side by side on the ground, touching,
 * at one height: resting, the neighbours' heights differ by round-off (9.3e-15 m) that
 * changes sign from step to step, and lsim_collide orders two equal boxes by height, so
 * each such swap renumbered the pair's four face features and their contact ids: the warm
 * start (by contact id) found none of them (122 of 200 steps lost a pair's impulses).
 * A persistent pair now keeps its order (contact.c, keep_order): from the second step on
 * every contact's id was a contact the step before. The row must see such swaps (else the
 * test proves nothing): some neighbours' canonical order (lsim_collide_order) changes. */
static void test_row_keeps_contact_ids(void **state) {
  (void)state;
  enum { N = 10, STEPS = 200 };
  LsimModel m = model3(3, 0.01);
  add_ground(&m, 0.0, 0.5);
  const double half[3] = {0.1, 0.1, 0.1};
  int box[N];
  for (int i = 0; i < N; ++i) box[i] = add_box(&m, half, 1.0, 0.5);
  assert_int_equal(lsim_model_finalize(&m), 0);
  LsimState st;
  assert_int_equal(lsim_state_init(&st, &m), 0);
  for (int i = 0; i < N; ++i) {
    const double p[3] = {0.2 * i, 0.0, 0.1};
    place(&m, &st, box[i], p, 0.0);
  }
  m.solver.tol = 1e-10;
  LsimStepper *s = NULL;
  char err[256];
  if (lsim_stepper_create(&s, &m, "lemke", err, sizeof err)) fail_msg("stepper: %s", err);
  uint64_t prev[8 * N], cur[8 * N];
  int nprev = 0, lost = 0, swaps = 0;
  int order_prev[N - 1];
  for (int k = 0; k < STEPS; ++k) {
    LsimStepStats ss;
    const int status = lsim_step(s, &m, &st, &ss);
    if (status != LSIM_SOLVED) fail_msg("step %d: %s", st.step, lsim_status_name(status));
    const LsimContactSet *cs = lsim_stepper_contacts(s);
    assert_true(cs->count <= 8 * N);
    int ncur = 0;
    for (int c = 0; c < cs->count; ++c) {
      const uint64_t id = cs->contacts[c].id;
      int was = 0;
      for (int j = 0; j < nprev && !was; ++j) was = prev[j] == id;
      if (k > 0 && !was) ++lost;
      cur[ncur++] = id;
    }
    memcpy(prev, cur, (size_t)ncur * sizeof *cur), nprev = ncur;
    /* Each neighbours' canonical order at the new poses: a change is a swap. */
    LsimPlaced placed[N];
    for (int i = 0; i < N; ++i) {
      LsimPose body;
      lsim_body_pose(&m, &st, box[i], body.p, body.q);
      const LsimShape *sh = &m.shapes[m.bodies[box[i]].first_shape];
      const LsimPose pose = lsim_shape_world_pose(sh, &body);
      lsim_shape_place(sh, &pose, 3, &placed[i]);
    }
    for (int i = 0; i + 1 < N; ++i) {
      const int order = lsim_collide_order(&placed[i], &placed[i + 1], 3);
      if (k > 0 && order != order_prev[i]) ++swaps;
      order_prev[i] = order;
    }
  }
  if (swaps == 0) fail_msg("no neighbours' order swapped by round-off: the row tests nothing");
  if (lost) fail_msg("%d contacts had an id the step before did not (%d order swaps)", lost, swaps);
  lsim_stepper_free(s);
  lsim_state_free(&st);
  lsim_model_free(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_incline),       cmocka_unit_test(test_slide_to_stop),
      cmocka_unit_test(test_rolling_ball),
      cmocka_unit_test(test_heavy_ball_rolls),  cmocka_unit_test(test_stack_rests),
      cmocka_unit_test(test_stack_rests_at_budget),
      cmocka_unit_test(test_incline_rests_at_budget),
      cmocka_unit_test(test_jittered_tower_rests_at_budget),
      cmocka_unit_test(test_balls_collide), cmocka_unit_test(test_energy_never_grows),
      cmocka_unit_test(test_struck_row_margin), cmocka_unit_test(test_struck_row_exact),
      cmocka_unit_test(test_dropped_on_resting),
      cmocka_unit_test(test_spinning_capsule_end), cmocka_unit_test(test_plate_on_roller),
      cmocka_unit_test(test_spinning_rod_on_edge),
      cmocka_unit_test(test_kinematic_pusher), cmocka_unit_test(test_free_spin_momentum),
      cmocka_unit_test(test_free_spin_principal), cmocka_unit_test(test_free_spin_symmetric_top),
      cmocka_unit_test(test_free_spin_torque),
      cmocka_unit_test(test_free_spin_torque_momentum),
      cmocka_unit_test(test_gyroscopic_invariants),
      cmocka_unit_test(test_opposite_directions_exact),
      cmocka_unit_test(test_row_keeps_contact_ids),
  };
  return cmocka_run_group_tests_name("physics", tests, NULL, NULL);
}
