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

#include "contact/contact.h"
#include "contact/step.h"
#include "contact/world.h"
#include "scene/scene.h"

/* The scene data/box_slide_45_exact.json describes, at angle deg, cone exact or not, with
 * d friction directions; track, when not NULL, gets (x, y, vx, vy) of the box at each state
 * [steps + 1][4]. */
static void slide_track(double deg, int exact, int d, double *dist, double *dir_err, double *speed,
                        double *track) {
  const double a = deg * 3.14159265358979323846 / 180.0, v0 = 2.0;
  char json[2048];
  snprintf(json, sizeof json,
           "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.01, \"duration\": 1.0,"
           " \"gravity\": [0, 0, -9.81], \"friction\": {\"directions\": %d, \"cone\": \"%s\"},"
           " \"bodies\": [{\"name\": \"ground\", \"type\": \"static\", \"shapes\": [{\"type\":"
           " \"plane\", \"mu\": 0.4}]}, {\"name\": \"box\", \"mass\": 1.0, \"position\": [0, 0,"
           " 0.5], \"velocity\": [%.17g, %.17g, 0], \"shapes\": [{\"type\": \"box\","
           " \"half_extents\": [0.5, 0.5, 0.5], \"mu\": 0.4}]}]}",
           d, exact ? "exact" : "polyhedral", v0 * cos(a), v0 * sin(a));
  LsimModel m;
  LsimState st;
  LsimSceneError serr;
  assert_int_equal(lsim_scene_parse(json, "slide.json", &m, &st, &serr), 0);
  assert_int_equal(m.friction_exact, exact);
  if (exact) m.solver.tol = 1e-12; /* nsgs_aa, on the natural-map residual */
  LsimStepper *s = NULL;
  char err[256];
  assert_int_equal(lsim_stepper_create(&s, &m, NULL, err, sizeof err), 0);
  /* the box is body 1: q = (x, y, z, quaternion) */
  const int i = m.bodies[1].q_offset, iv = m.bodies[1].v_offset;
  for (int k = 0; k <= m.steps; ++k) {
    if (track) {
      double *t = track + 4 * k;
      t[0] = st.q[i], t[1] = st.q[i + 1], t[2] = st.v[iv], t[3] = st.v[iv + 1];
    }
    if (k == m.steps) break;
    LsimStepStats ss;
    assert_int_equal(lsim_step(s, &m, &st, &ss), LSIM_SOLVED);
  }
  const double x = st.q[i], y = st.q[i + 1];
  *dist = hypot(x, y);
  *dir_err = fabs(atan2(y, x) - a);
  *speed = hypot(st.v[m.bodies[1].v_offset], st.v[m.bodies[1].v_offset + 1]);
  lsim_stepper_free(s);
  lsim_state_free(&st);
  lsim_model_free(&m);
}

static void run_slide(double deg, int exact, double *dist, double *dir_err, double *speed) {
  slide_track(deg, exact, 4, dist, dir_err, speed, NULL);
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

/* One step of a mass sliding on its friction polygon, the closed form of the polyhedral
 * cone's maximum dissipation: the friction impulse c u (c = mu g h per unit mass) with u in
 * the d-gon of vertices d_j = (cos 2 pi j / d, sin 2 pi j / d) that maximizes -u.v' for
 * the end velocity v' = v - c u. A vertex d_k when v' stays within pi / d of it (its normal
 * cone); else an edge, and v' lies on the bisector b between d_k and its neighbour on v's
 * side: v - s b = c (l d_k + (1 - l) d_k'), s > 0, 0 <= l <= 1; else v' = 0 (v is inside
 * c times the polygon: sticking). */
static void polygon_step(double v[2], double c, int d) {
  const double pi = 3.14159265358979323846, a = pi / d;
  const double ang = atan2(v[1], v[0]), psi = 2.0 * a * round(ang / (2.0 * a));
  const double p[2] = {v[0] - c * cos(psi), v[1] - c * sin(psi)};
  const double rel = remainder(atan2(p[1], p[0]) - psi, 2.0 * pi);
  if (fabs(rel) <= a && p[0] * cos(psi) + p[1] * sin(psi) > 0.0) {
    v[0] = p[0], v[1] = p[1];
    return;
  }
  const double side = ang - psi >= 0.0 ? 1.0 : -1.0, psi2 = psi + side * 2.0 * a;
  const double b[2] = {cos(psi + side * a), sin(psi + side * a)};
  const double e[2] = {c * (cos(psi) - cos(psi2)), c * (sin(psi) - sin(psi2))};
  const double r[2] = {v[0] - c * cos(psi2), v[1] - c * sin(psi2)};
  const double det = b[0] * e[1] - b[1] * e[0];
  const double sb = (r[0] * e[1] - r[1] * e[0]) / det, l = (b[0] * r[1] - b[1] * r[0]) / det;
  if (sb > 0.0 && l >= 0.0 && l <= 1.0) {
    v[0] = sb * b[0], v[1] = sb * b[1];
  } else {
    v[0] = v[1] = 0.0;
  }
}

/* The box sliding at 30 degrees to the x axis (the first friction direction), v0 = 2 m/s,
 * mu = 0.4, against the closed form of the polyhedral cone, for d = 4, 8 and 16.
 * Continuous time: with d_k the direction nearest to the slip, at phi0 from it (alpha =
 * pi / d), the friction mu m g d_k slows the slip along d_k only, the component across it,
 * v0 |sin phi0|, unchanged, until the slip is at alpha from d_k (the bisector of an edge);
 * then along that bisector at mu g cos alpha, from v0 |sin phi0| / sin alpha. d = 4 (phi0 =
 * 30 degrees, alpha = 45): x = v0^2 / (2 mu g) = 0.5097 m as along x, y = v0^2 sin 60 /
 * (2 mu g) = 0.4414 m (the exact cone: y = 0.2548 m), a distance sqrt(7) / 2 = 1.323 times
 * the exact cone's, stopping after 0.696 s instead of 0.510 s; d = 8: (0.4923, 0.2285) m,
 * 1.065 times; d = 16: (0.4364, 0.2782) m, 1.015 times. The time step follows the same
 * law step by step (polygon_step): its velocities and positions at every state are
 * asserted equal to that recurrence to 1e-10 m/s and 1e-11 m (Lemke's pivots solve each
 * step's LCP to round-off; measured at most 5.4e-12 m/s, 1.8e-12 m over 100 steps), and its
 * final position within 0.011 m of the continuous one (the discrete slide falls short by
 * up to v0 h / 2 = 0.01 m, as in test_stops_at_any_angle; measured 0.0099 m for d = 4). */
static void test_polyhedral_closed_form(void **state) {
  (void)state;
  const int ds[3] = {4, 8, 16};
  const double cont[3][2] = {{0.509683995922528, 0.4413992883712734},
                             {0.492316934907782, 0.2284850846503704},
                             {0.4364496450809189, 0.27818581327787595}};
  const double pi = 3.14159265358979323846, th = pi / 6.0, c = 0.4 * 9.81 * 0.01;
  for (int k = 0; k < 3; ++k) {
    double track[4 * 101], dist, dir, speed;
    slide_track(30.0, 0, ds[k], &dist, &dir, &speed, track);
    double v[2] = {2.0 * cos(th), 2.0 * sin(th)}, x[2] = {0.0, 0.0}, dv = 0.0, dx = 0.0;
    for (int n = 0; n <= 100; ++n) {
      const double *t = track + 4 * n;
      dx = fmax(dx, fmax(fabs(t[0] - x[0]), fabs(t[1] - x[1])));
      dv = fmax(dv, fmax(fabs(t[2] - v[0]), fabs(t[3] - v[1])));
      polygon_step(v, c, ds[k]);
      x[0] += 0.01 * v[0], x[1] += 0.01 * v[1];
    }
    print_message("d = %2d: final (%.6f, %.6f) m, closed form (%.6f, %.6f) m; recurrence "
                  "within %.2g m/s, %.2g m\n", ds[k], track[400], track[401], cont[k][0],
                  cont[k][1], dv, dx);
    assert_true(dv <= 1e-10 && dx <= 1e-11);
    assert_true(hypot(track[400] - cont[k][0], track[401] - cont[k][1]) <= 0.011);
    assert_true(speed <= 1e-9); /* stopped within the second */
  }
}

/* Where the directions lie (docs/scene-format.md, "friction"): d_j at 360 j / d degrees
 * from the first tangent t1 = a x n / |a x n| (a = x here, n = +z), i.e. t1 = -y, towards
 * t2 = n x t1 = x: at -90 + 360 j / d degrees from x. For d = 4, 8, 12, 16 that set holds
 * +-x and +-y; for d = 6, 10, 14 it holds +-y, and x bisects an edge (the documents said
 * the directions start from x, which would put x among them for every d: a box sent along
 * x with d = 6 would stop at 0.49969 m, not 0.5786 m). Along a direction the slip slows by
 * c = mu g h a step; along a bisector the maximum-dissipation friction is the edge's
 * midpoint, mu c_n cos(pi / d) against the slip, so it slows by c cos(pi / d) and keeps
 * its direction. Both recurrences are checked at every state to 1e-10 m/s and 1e-10 m
 * (Lemke solves each step's LCP to round-off: measured at most 4.2e-11 m/s and 9.8e-12 m
 * over the 100 steps, d = 14), and the sideways drift to 1e-9 m. */
static void test_polyhedral_first_tangent(void **state) {
  (void)state;
  const double pi = 3.14159265358979323846, h = 0.01, c = 0.4 * 9.81 * h;
  const int ds[7] = {4, 6, 8, 10, 12, 14, 16};
  for (int k = 0; k < 7; ++k) {
    for (int along_y = 0; along_y < 2; ++along_y) {
      const int bisector = !along_y && ds[k] % 4 != 0;
      const double dec = bisector ? c * cos(pi / ds[k]) : c;
      double track[4 * 101], dist, dir, speed;
      slide_track(along_y ? 90.0 : 0.0, 0, ds[k], &dist, &dir, &speed, track);
      double v = 2.0, x = 0.0, dv = 0.0, dx = 0.0, side = 0.0;
      for (int n = 0; n <= 100; ++n) {
        const double *t = track + 4 * n;
        const double along = along_y ? t[1] : t[0], vel = along_y ? t[3] : t[2];
        dx = fmax(dx, fabs(along - x));
        dv = fmax(dv, fabs(vel - v));
        side = fmax(side, fabs(along_y ? t[0] : t[1]));
        v = fmax(0.0, v - dec);
        x += h * v;
      }
      print_message("d = %2d along %c (%s): %.6f m; recurrence within %.2g m/s, %.2g m, "
                    "sideways %.2g m\n", ds[k], along_y ? 'y' : 'x',
                    bisector ? "a bisector" : "a direction", along_y ? track[401] : track[400],
                    dv, dx, side);
      assert_true(dv <= 1e-10 && dx <= 1e-10 && side <= 1e-9);
    }
  }
}

/* The model and state of scene text json (named name in messages) and a stepper for them. */
static LsimStepper *start(const char *json, const char *name, LsimModel *m, LsimState *st) {
  LsimSceneError serr;
  assert_int_equal(lsim_scene_parse(json, name, m, st, &serr), 0);
  LsimStepper *s = NULL;
  char err[256];
  assert_int_equal(lsim_stepper_create(&s, m, NULL, err, sizeof err), 0);
  return s;
}

/* Runs json for its steps with lsim_step; track gets the state q, v after each step
 * ([steps][nq + nv]); returns the largest friction impulse norm of any contact. */
static double run_track(const char *json, double *track, int *nq, int *nv) {
  LsimModel m;
  LsimState st;
  LsimStepper *s = start(json, "slide.json", &m, &st);
  *nq = m.nq, *nv = m.nv;
  double fmax_ = 0.0;
  for (int k = 0; k < m.steps; ++k) {
    LsimStepStats ss;
    assert_int_equal(lsim_step(s, &m, &st, &ss), LSIM_SOLVED);
    memcpy(track + (size_t)k * (m.nq + m.nv), st.q, (size_t)m.nq * sizeof(double));
    memcpy(track + (size_t)k * (m.nq + m.nv) + m.nq, st.v, (size_t)m.nv * sizeof(double));
    const LsimContactSet *cs = lsim_stepper_contacts(s);
    for (int c = 0; c < cs->count; ++c) {
      const double *fi = cs->contacts[c].friction_impulse;
      fmax_ = fmax(fmax_, sqrt(fi[0] * fi[0] + fi[1] * fi[1] + fi[2] * fi[2]));
    }
  }
  lsim_stepper_free(s);
  lsim_state_free(&st);
  lsim_model_free(&m);
  return fmax_;
}

/* The exact cone with a frictionless contact (the ground's mu 0, so sqrt(0 * 0.5) = 0): a
 * box dropped 0.2 m onto it while sliding at 1 m/s lands and slides on at 1 m/s, as with
 * the polyhedral cone, where friction is absent either way. Such a contact had no
 * direction rows, and the exact cone builds each contact's frame from them: the run
 * stopped at the landing (step 20, 'the exact cone handles contacts only', exit 2, the
 * file removed). Now it keeps its rows, held at zero by mu = 0: every state equals the
 * polyhedral run's to 1e-12 (both solve the same normal impulses to round-off), no
 * friction impulse, x = 1 m after 1 s (1e-12), in 2-D and 3-D. */
static void test_exact_cone_frictionless_contact(void **state) {
  (void)state;
  for (int dim = 2; dim <= 3; ++dim) {
    double *tr[2];
    int nq = 0, nv = 0;
    for (int exact = 0; exact < 2; ++exact) {
      char json[1024];
      snprintf(json, sizeof json,
               "{\"lcpsim\": 1, \"dimension\": %d, \"time_step\": 0.01, \"steps\": 100,"
               " \"gravity\": %s, \"friction\": {\"cone\": \"%s\"}, \"bodies\": [{\"name\":"
               " \"ground\", \"type\": \"static\", \"shapes\": [{\"type\": \"plane\", \"mu\": 0}]},"
               " {\"name\": \"box\", \"mass\": 1, \"position\": %s, \"velocity\": %s,"
               " \"shapes\": [{\"type\": \"box\", \"half_extents\": %s}]}]}",
               dim, dim == 2 ? "[0, -9.81]" : "[0, 0, -9.81]", exact ? "exact" : "polyhedral",
               dim == 2 ? "[0, 0.7]" : "[0, 0, 0.7]", dim == 2 ? "[1, 0]" : "[1, 0, 0]",
               dim == 2 ? "[0.5, 0.5]" : "[0.5, 0.5, 0.5]");
      tr[exact] = malloc(100 * 16 * sizeof(double));
      assert_non_null(tr[exact]);
      const double f = run_track(json, tr[exact], &nq, &nv);
      assert_true(f == 0.0);
    }
    double diff = 0.0;
    for (int k = 0; k < 100 * (nq + nv); ++k) diff = fmax(diff, fabs(tr[1][k] - tr[0][k]));
    const double x = tr[1][99 * (nq + nv)], vx = tr[1][99 * (nq + nv) + nq];
    print_message("%d-D: exact against polyhedral within %.2g; x = %.15f m, vx = %.15f m/s\n",
                  dim, diff, x, vx);
    assert_true(diff <= 1e-12);
    assert_true(fabs(x - 1.0) <= 1e-12 && fabs(vx - 1.0) <= 1e-12);
    free(tr[0]);
    free(tr[1]);
  }
}

/* Heavy on light with the exact cone (nsgs_aa's stall safeguard, lcp/fc_nsgs.c): two 0.5 m
 * cubes, the upper M kg on a 1 kg one, mu 0.5, h = 0.01 s, 100 steps, the default tolerance
 * and budget, M = 100 and 1e3: every step solved, both at rest (1e-6 m/s and 1e-6 m: 100
 * steps of residuals at the 1e-10 tolerance move nothing near that). Before, the mixing
 * stalled at zero impulses from step 1 (relative residual 0.976): at 100 kg 5 steps failed,
 * speeds up to 0.31 m/s; at 1e3 kg 62 failed and the heavy box fell through. */
static void test_heavy_on_light_exact(void **state) {
  (void)state;
  const double heavy[] = {100.0, 1e3};
  for (int c = 0; c < 2; ++c) {
    char json[1024];
    snprintf(json, sizeof json,
             "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.01, \"steps\": 100,"
             " \"gravity\": [0, 0, -9.81], \"friction\": {\"cone\": \"exact\"}, \"bodies\":"
             " [{\"name\": \"ground\", \"type\": \"static\", \"shapes\": [{\"type\": \"plane\","
             " \"mu\": 0.5}]}, {\"name\": \"light\", \"mass\": 1, \"position\": [0, 0, 0.25],"
             " \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.25, 0.25, 0.25], \"mu\": 0.5}]},"
             " {\"name\": \"heavy\", \"mass\": %g, \"position\": [0, 0, 0.75], \"shapes\":"
             " [{\"type\": \"box\", \"half_extents\": [0.25, 0.25, 0.25], \"mu\": 0.5}]}]}",
             heavy[c]);
    LsimModel m;
    LsimState st;
    LsimStepper *s = start(json, "stack.json", &m, &st);
    int solved = 0, breakdowns = 0;
    double worst = 0.0, moved = 0.0, speed = 0.0;
    for (int k = 0; k < m.steps; ++k) {
      LsimStepStats ss;
      const int rc = lsim_step(s, &m, &st, &ss);
      solved += rc == LSIM_SOLVED, breakdowns += rc == LSIM_BREAKDOWN;
      worst = fmax(worst, ss.relative_residual);
      for (int b = 1; b <= 2; ++b)
        for (int i = 0; i < 3; ++i) {
          moved = fmax(moved, fabs(st.q[m.bodies[b].q_offset + i] - m.bodies[b].pose[i]));
          speed = fmax(speed, fabs(st.v[m.bodies[b].v_offset + i]));
        }
    }
    print_message("exact cone, %g kg on 1 kg: %d of 100 steps solved, %d breakdowns, relative "
                  "residual up to %.3g, moved %.2e m, speed up to %.2e m/s\n",
                  heavy[c], solved, breakdowns, worst, moved, speed);
    assert_int_equal(solved, 100);
    assert_int_equal(breakdowns, 0);
    assert_true(worst <= 1e-10);
    assert_true(speed < 1e-6);
    assert_true(moved < 1e-6);
    lsim_stepper_free(s);
    lsim_state_free(&st);
    lsim_model_free(&m);
  }
}

/* The cube of data/box_slide_45_exact.json with both shapes' mu raised to 10 .. 1e6 (it
 * stops within a step, tips onto an edge and lands back flat at step 29): every step solved
 * at mu 10, 100 and 1000 (default tolerance 1e-10 and budget), the cube at rest on its face
 * at the end (speed below 1e-6 m/s, centre at 0.5 m within 1e-6 m: residuals at the
 * tolerance move nothing near that), at mu 1e6 at most 2 of the 100 steps failed. Before,
 * NSGS cycled on the landing's four corners (the Gauss-Seidel map over the contacts is not
 * a contraction at large mu; every local problem solved exactly): steps 29 and 30 failed
 * at mu 10 .. 1000 (relative residual up to 1.1e-2), and 44 at 1e6; the damped Newton
 * method on Alart and Curnier's equations after a failed sweep (lcp/fc_newton.c) solves
 * them. */
static void test_high_friction_landing_solved(void **state) {
  (void)state;
  const double mus[] = {10.0, 100.0, 1000.0, 1e6};
  for (int c = 0; c < 4; ++c) {
    char json[1024];
    snprintf(json, sizeof json,
             "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.01, \"duration\": 1.0,"
             " \"gravity\": [0, 0, -9.81], \"friction\": {\"directions\": 4, \"cone\": \"exact\"},"
             " \"bodies\": [{\"name\": \"ground\", \"type\": \"static\", \"shapes\": [{\"type\":"
             " \"plane\", \"mu\": %g}]}, {\"name\": \"box\", \"mass\": 1.0, \"position\": [0, 0,"
             " 0.5], \"velocity\": [1.4142135623730951, 1.4142135623730951, 0], \"shapes\":"
             " [{\"type\": \"box\", \"half_extents\": [0.5, 0.5, 0.5], \"mu\": %g}]}]}",
             mus[c], mus[c]);
    LsimModel m;
    LsimState st;
    LsimStepper *s = start(json, "slide.json", &m, &st);
    int failed = 0, first = -1;
    double worst = 0.0;
    for (int k = 0; k < m.steps; ++k) {
      LsimStepStats ss;
      if (lsim_step(s, &m, &st, &ss) != LSIM_SOLVED) {
        ++failed;
        if (first < 0) first = k + 1;
      }
      worst = fmax(worst, ss.relative_residual);
    }
    const int iq = m.bodies[1].q_offset, iv = m.bodies[1].v_offset;
    double speed = 0.0;
    for (int i = 0; i < 6; ++i) speed = fmax(speed, fabs(st.v[iv + i]));
    const double z = st.q[iq + 2];
    print_message("mu %g: %d of %d steps failed (first %d), relative residual up to %.3g, "
                  "z %.9f m, speed %.2e\n", mus[c], failed, m.steps, first, worst, z, speed);
    if (mus[c] <= 1000.0) {
      assert_int_equal(failed, 0);
      assert_true(worst <= 1e-10);
    } else {
      assert_true(failed <= 2);
    }
    assert_true(speed < 1e-6);
    assert_true(fabs(z - 0.5) < 1e-6);
    lsim_stepper_free(s);
    lsim_state_free(&st);
    lsim_model_free(&m);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_stops_at_any_angle),
      cmocka_unit_test(test_polyhedral_diagonal_slides_further),
      cmocka_unit_test(test_polyhedral_closed_form),
      cmocka_unit_test(test_polyhedral_first_tangent),
      cmocka_unit_test(test_exact_cone_frictionless_contact),
      cmocka_unit_test(test_heavy_on_light_exact),
      cmocka_unit_test(test_high_friction_landing_solved),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
