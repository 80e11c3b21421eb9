/* test_exact_cone.c: the time step with Coulomb's exact cone (contact/exact_cone.h,
 * "friction": {"cone": "exact"}): a box sliding at any angle to the x axis stops after
 * v0^2 / (2 mu g), along its initial direction; with the polyhedral cone of 4 directions
 * it slides further on the diagonal (friction along the square's edges). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "contact/step.h"
#include "contact/world.h"
#include "scene/scene.h"

/* The scene data/box_slide_45_exact.json describes, at angle deg, cone exact or not. */
static void run_slide(double deg, int exact, double *dist, double *dir_err, double *speed) {
  const double a = deg * 3.14159265358979323846 / 180.0, v0 = 2.0;
  char json[2048];
  snprintf(json, sizeof json,
           "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.01, \"duration\": 1.0,"
           " \"gravity\": [0, 0, -9.81], \"friction\": {\"directions\": 4, \"cone\": \"%s\"},"
           " \"bodies\": [{\"name\": \"ground\", \"type\": \"static\", \"shapes\": [{\"type\":"
           " \"plane\", \"mu\": 0.4}]}, {\"name\": \"box\", \"mass\": 1.0, \"position\": [0, 0,"
           " 0.5], \"velocity\": [%.17g, %.17g, 0], \"shapes\": [{\"type\": \"box\","
           " \"half_extents\": [0.5, 0.5, 0.5], \"mu\": 0.4}]}]}",
           exact ? "exact" : "polyhedral", v0 * cos(a), v0 * sin(a));
  LsimModel m;
  LsimState st;
  LsimSceneError serr;
  assert_int_equal(lsim_scene_parse(json, "slide.json", &m, &st, &serr), 0);
  assert_int_equal(m.friction_exact, exact);
  if (exact) m.solver.tol = 1e-12; /* nsgs_aa, on the natural-map residual */
  LsimStepper *s = NULL;
  char err[256];
  assert_int_equal(lsim_stepper_create(&s, &m, NULL, err, sizeof err), 0);
  for (int k = 0; k < m.steps; ++k) {
    LsimStepStats ss;
    assert_int_equal(lsim_step(s, &m, &st, &ss), LSIM_SOLVED);
  }
  /* the box is body 1: q = (x, y, z, quaternion) */
  const int i = m.bodies[1].q_offset;
  const double x = st.q[i], y = st.q[i + 1];
  *dist = hypot(x, y);
  *dir_err = fabs(atan2(y, x) - a);
  *speed = hypot(st.v[m.bodies[1].v_offset], st.v[m.bodies[1].v_offset + 1]);
  lsim_stepper_free(s);
  lsim_state_free(&st);
  lsim_model_free(&m);
}

/* Stopping distance v0^2 / (2 mu g) = 4 / (2 * 0.4 * 9.81) = 0.50968 m whatever the angle.
 * Semi-implicit Euler with h = 0.01: the velocity drops by mu g h per step and positions
 * use the new velocity, so the discrete distance is h^2 sum_k (v0/h - k mu g) over the
 * moving steps, below the exact value by at most v0 h / 2 = 0.01 m: tolerance 0.011 m.
 * The box must stop (speed 0 to the solver's tolerance) and travel along its initial
 * direction (1e-9 rad: the exact cone has no preferred direction). */
static void test_stops_at_any_angle(void **state) {
  (void)state;
  const double expect = 4.0 / (2.0 * 0.4 * 9.81);
  const double angles[] = {0.0, 20.0, 45.0, 70.0};
  for (int k = 0; k < 4; ++k) {
    double d, e, v;
    run_slide(angles[k], 1, &d, &e, &v);
    assert_true(fabs(d - expect) <= 0.011);
    assert_true(e <= 1e-9);
    assert_true(v <= 1e-8);
  }
}

/* The polyhedral cone of 4 directions (the square with vertices mu c_n (+-1, 0), (0, +-1))
 * on the diagonal: the friction of maximal dissipation against a slip along (1, 1)/sqrt(2)
 * is an edge of the square, opposing the slip with only mu c_n / sqrt(2): deceleration
 * mu g / sqrt(2), a distance sqrt(2) times longer, 0.7208 m (0.711 m in the discrete
 * steps): above 0.65 m, where the exact cone stops at 0.51 m. */
static void test_polyhedral_diagonal_slides_further(void **state) {
  (void)state;
  double d, e, v;
  run_slide(45.0, 0, &d, &e, &v);
  assert_true(d > 0.65);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_stops_at_any_angle),
      cmocka_unit_test(test_polyhedral_diagonal_slides_further),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
