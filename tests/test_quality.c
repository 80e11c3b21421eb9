/* test_quality.c: the solver-independent quality measures (lcp/quality.h) are zero on
 * exact solutions and positive on perturbed ones; problem hashes are FNV-1a of the bytes.
 * The factored variants (M = J B + C, never formed) give the dense measures to 1e-12 on
 * the time step's own problems, and the factored hash covers every field. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "contact/step.h"
#include "lcp/quality.h"
#include "scene/scene.h"

/* One sliding contact of a unit mass in 2-D (W = I): normal (0, 1), directions +x and -x,
 * mu = 0.5, v_free = (2, -1), gap 0. Variables (c_n, beta1, beta2, lambda), column-major.
 * Exact solution: c_n = 1, beta = (0, 0.5), lambda = 1.5 (sliding at 1.5 m/s after the
 * step, friction mu c_n against the motion); every number is exact in binary. */
static const double slide_M[16] = {
    /* column c_n */ 1, 0, 0, 0.5,
    /* column beta1 */ 0, 1, -1, -1,
    /* column beta2 */ 0, -1, 1, -1,
    /* column lambda */ 0, 1, 1, 0};
static double slide_q[4] = {-1, 2, -2, 0};
static const LsimConeBlock slide_cone = {.normal = 0, .fixed_normal = 0, .first_dir = 1,
                                         .ndir = 2, .lambda = 3, .mu = 0.5};
static const double slide_z[4] = {1, 0, 0.5, 1.5};

static LsimLcp slide_lcp(void) {
  LsimLcp l = {.n = 4, .M = (double *)slide_M, .q = slide_q, .ncones = 1, .cones = &slide_cone};
  return l;
}

static void quality_of(const LsimLcp *l, const double *z, LsimQuality *qm) {
  double work[64];
  lsim_lcp_quality(l, z, work, -1.0, qm);
}

static void test_exact_solution_is_zero(void **state) {
  (void)state;
  LsimLcp l = slide_lcp();
  LsimQuality qm;
  quality_of(&l, slide_z, &qm);
  assert_true(qm.residual.natural == 0.0);
  assert_true(qm.residual.complementarity == 0.0);
  assert_true(qm.signorini == 0.0);
  assert_true(qm.cone == 0.0);
  assert_true(qm.dissipation == 0.0);
  assert_int_equal(qm.nsliding, 1);
}

static void test_perturbed_solutions_are_positive(void **state) {
  (void)state;
  LsimLcp l = slide_lcp();
  LsimQuality qm;
  double z[4];

  /* Penetration: too small a normal impulse leaves w_n = -0.1. */
  memcpy(z, slide_z, sizeof z);
  z[0] = 0.9;
  quality_of(&l, z, &qm);
  assert_true(fabs(qm.signorini - 0.1) < 1e-15);
  assert_true(qm.residual.natural > 0.0);

  /* Outside the cone: beta2 = 0.6 > mu c_n. */
  memcpy(z, slide_z, sizeof z);
  z[2] = 0.6;
  quality_of(&l, z, &qm);
  assert_true(fabs(qm.cone - 0.1) < 1e-15);
  assert_true(qm.signorini == 0.0);

  /* Sliding with friction below mu c_n: maximum dissipation violated. */
  memcpy(z, slide_z, sizeof z);
  z[2] = 0.4;
  quality_of(&l, z, &qm);
  assert_true(qm.dissipation >= 0.1 - 1e-15);
  assert_true(qm.cone == 0.0);

  /* Friction on the wrong direction (0.1 along the sliding), total still mu c_n. */
  memcpy(z, slide_z, sizeof z);
  z[1] = 0.1;
  z[2] = 0.4;
  quality_of(&l, z, &qm);
  assert_true(fabs(qm.dissipation - 0.1) < 1e-15);
  assert_true(qm.cone == 0.0);

  /* No friction at all while the velocities slide (lambda 0 too): still judged. */
  memcpy(z, slide_z, sizeof z);
  z[2] = z[3] = 0.0;
  quality_of(&l, z, &qm);
  assert_int_equal(qm.nsliding, 1);
  assert_true(fabs(qm.dissipation - 0.5) < 1e-15);

  /* Negative impulse: Signorini counts -z on a normal row. */
  memcpy(z, slide_z, sizeof z);
  z[0] = -0.25;
  quality_of(&l, z, &qm);
  assert_true(qm.signorini >= 0.25);

  /* A non-finite z: every measure is +inf. */
  memcpy(z, slide_z, sizeof z);
  z[1] = NAN;
  quality_of(&l, z, &qm);
  assert_true(isinf(qm.signorini) && isinf(qm.cone) && isinf(qm.dissipation));
}

/* Sticking: lambda = 0, friction inside the cone; no dissipation is asked for. */
static void test_sticking_contact(void **state) {
  (void)state;
  /* Same contact with v_free = (0.25, -1): c_n = 1, beta2 = 0.25 stops it, lambda = 0. */
  double q[4] = {-1, 0.25, -0.25, 0};
  LsimLcp l = slide_lcp();
  l.q = q;
  const double z[4] = {1, 0, 0.25, 0};
  LsimQuality qm;
  quality_of(&l, z, &qm);
  assert_true(qm.residual.natural == 0.0);
  assert_true(qm.signorini == 0.0 && qm.cone == 0.0 && qm.dissipation == 0.0);
  assert_int_equal(qm.nsliding, 0);
}

/* Without cone structure every row is a normal row: Signorini is the LCP violation. */
static void test_plain_lcp(void **state) {
  (void)state;
  double M[4] = {2, -1, -1, 2}, q[2] = {-1, 0.5};
  LsimLcp l = {.n = 2, .M = M, .q = q};
  const double exact[2] = {0.5, 0};  /* w = (0, 0): 2*0.5 - 1 = 0, -0.5 + 0.5 = 0 */
  LsimQuality qm;
  quality_of(&l, exact, &qm);
  assert_true(qm.residual.natural == 0.0 && qm.signorini == 0.0);
  assert_true(qm.cone == 0.0 && qm.dissipation == 0.0);
  const double off[2] = {0.25, 0};
  quality_of(&l, off, &qm);
  assert_true(fabs(qm.signorini - 0.5) < 1e-15); /* w_0 = -0.5 */
}

static void test_distance(void **state) {
  (void)state;
  const double a[3] = {1, 2, 3}, b[3] = {1, 2.5, 2};
  assert_true(lsim_quality_distance(3, a, b) == 1.0);
  assert_true(lsim_quality_distance(0, a, b) == 0.0);
  const double c[3] = {1, NAN, 3};
  assert_true(isinf(lsim_quality_distance(3, a, c)));
}

/* The hash is FNV-1a over n (int32 LE), M and q (float64 LE): values from Python's struct. */
static void test_hash(void **state) {
  (void)state;
  double M[4] = {2, -1, -1, 2}, q[2] = {-1, 0.5};
  LsimLcp l = {.n = 2, .M = M, .q = q};
  assert_true(lsim_lcp_hash(&l) == 0xc1c81b5987047887ull);
  LsimLcp empty = {.n = 0, .M = M, .q = q};
  assert_true(lsim_lcp_hash(&empty) == 0x4d25767f9dce13f5ull);
  /* One bit of M or of q changes it; the cones do not enter. */
  const uint64_t h = lsim_lcp_hash(&l);
  M[3] = nextafter(2.0, 3.0);
  assert_true(lsim_lcp_hash(&l) != h);
  M[3] = 2.0;
  q[0] = -0.0 - 1.0;
  assert_true(lsim_lcp_hash(&l) == h);
  q[1] = -0.5;
  assert_true(lsim_lcp_hash(&l) != h);
  q[1] = 0.5;
  l.ncones = 1;
  l.cones = &slide_cone;
  assert_true(lsim_lcp_hash(&l) == h);
}

/* The sliding contact above in factored form: a unit mass in 2-D (W = I, m = 2), J rows
 * c_n (0, 1), beta1 (1, 0), beta2 (-1, 0), lambda empty; B = W J' = J'; C the cone
 * couplings E (beta rows, lambda column) and (mu, -1, -1) on the lambda row. */
static int sf_Jp[5] = {0, 1, 2, 3, 3}, sf_Ji[3] = {1, 0, 0};
static double sf_Jv[3] = {1, 1, -1};
static int sf_Bp[5] = {0, 1, 2, 3, 3}, sf_Bi[3] = {1, 0, 0};
static double sf_Bv[3] = {1, 1, -1};
static int sf_Cp[5] = {0, 0, 1, 2, 5}, sf_Ci[5] = {3, 3, 0, 1, 2};
static double sf_Cv[5] = {1, 1, 0.5, -1, -1};
static double sf_q[4] = {-1, 2, -2, 0};
static LsimConeBlock sf_cone = {.normal = 0, .fixed_normal = 0, .first_dir = 1, .ndir = 2,
                                .lambda = 3, .mu = 0.5};

static LsimFactoredLcp slide_factored(void) {
  LsimFactoredLcp f = {.n = 4, .m = 2, .J_ptr = sf_Jp, .J_idx = sf_Ji, .J_val = sf_Jv,
                       .B_ptr = sf_Bp, .B_idx = sf_Bi, .B_val = sf_Bv, .C_ptr = sf_Cp,
                       .C_idx = sf_Ci, .C_val = sf_Cv, .q = sf_q, .ncones = 1,
                       .cones = &sf_cone};
  return f;
}

/* |a - b| <= 1e-12 max(1, |a|), infinities equal. */
static int close12(double a, double b) {
  if (isinf(a) || isinf(b)) return a == b;
  return fabs(a - b) <= 1e-12 * fmax(1.0, fabs(a));
}

static void assert_same_quality(const LsimQuality *d, const LsimQuality *f) {
  assert_true(close12(d->residual.natural, f->residual.natural));
  assert_true(close12(d->residual.complementarity, f->residual.complementarity));
  assert_true(close12(d->residual.z_negative, f->residual.z_negative));
  assert_true(close12(d->residual.w_negative, f->residual.w_negative));
  assert_true(close12(d->residual.relative, f->residual.relative));
  assert_true(close12(d->signorini, f->signorini));
  assert_true(close12(d->cone, f->cone));
  assert_true(close12(d->dissipation, f->dissipation));
  assert_int_equal(d->nsliding, f->nsliding);
}

/* The hand-made factored problem: the same measures as its dense M, on the exact solution
 * and on each perturbation of test_perturbed_solutions_are_positive. */
static void test_factored_slide(void **state) {
  (void)state;
  LsimLcp l = slide_lcp();
  LsimFactoredLcp f = slide_factored();
  double work[64];
  const double zs[6][4] = {{1, 0, 0.5, 1.5}, {0.9, 0, 0.5, 1.5}, {1, 0, 0.6, 1.5},
                           {1, 0.1, 0.4, 1.5}, {1, 0, 0, 0},     {-0.25, 0, 0.5, 1.5}};
  for (int k = 0; k < 6; ++k) {
    LsimQuality d, q;
    quality_of(&l, zs[k], &d);
    lsim_factored_quality(&f, zs[k], work, -1.0, &q);
    assert_same_quality(&d, &q);
  }
  LsimQuality q;
  lsim_factored_quality(&f, slide_z, work, -1.0, &q);
  assert_true(q.residual.natural == 0.0 && q.signorini == 0.0 && q.cone == 0.0 &&
              q.dissipation == 0.0);
  assert_int_equal(q.nsliding, 1);
  assert_true(lsim_factored_quality_slide_tol(&f) == lsim_quality_slide_tol(&l));
  const double bad[4] = {1, NAN, 0.5, 1.5};
  lsim_factored_quality(&f, bad, work, -1.0, &q);
  assert_true(isinf(q.signorini) && isinf(q.cone) && isinf(q.dissipation));
}

/* The residual's rounding floor, 16 eps max_i (|M| |z| + |q|)_i: at the sliding
 * contact's solution the rows give 2, 4, 4 and 1 (every term exact in binary), so the
 * floor is 64 eps exactly, the same on the factored form (|J| |B| |z| + |C| |z| + |q|
 * gives the same rows: no entry of J B sums terms of opposite signs there); a NaN in z
 * gives +inf, never a floor that would accept it. */
static void test_residual_floor(void **state) {
  (void)state;
  LsimLcp l = slide_lcp();
  LsimFactoredLcp f = slide_factored();
  double u[2];
  assert_true(lsim_lcp_residual_floor(&l, slide_z) == 64.0 * DBL_EPSILON);
  assert_true(lsim_factored_residual_floor(&f, slide_z, u) == 64.0 * DBL_EPSILON);
  const double bad[4] = {1, NAN, 0.5, 1.5};
  assert_true(isinf(lsim_lcp_residual_floor(&l, bad)));
  assert_true(isinf(lsim_factored_residual_floor(&f, bad, u)));
}

/* The time step's own problems (3-D boxes and a pile of spheres with 4-direction cones, a
 * 1-D brick with its zero-diagonal cone row): factored and dense measures agree to 1e-12
 * at the step's solution, at a perturbed one and at z = 0, every step with contacts. */
static void check_scene(const char *path, int steps) {
  LsimModel model;
  LsimState st;
  char *text = NULL;
  LsimSceneError serr;
  assert_int_equal(lsim_scene_load(path, &model, &st, &text, &serr), 0);
  free(text);
  LsimStepper *stp = NULL;
  char err[256];
  assert_int_equal(lsim_stepper_create(&stp, &model, NULL, err, sizeof err), 0);
  int compared = 0;
  for (int k = 0; k < steps; ++k) {
    LsimStepStats ss;
    lsim_step(stp, &model, &st, &ss);
    const LsimFactoredLcp *f = lsim_stepper_factored(stp);
    if (f->n == 0) continue;
    const LsimLcp *l = lsim_stepper_lcp(stp);
    assert_non_null(l);
    assert_int_equal(l->n, f->n);
    const int n = f->n;
    double *z = malloc(3 * (size_t)n * sizeof(double));
    double *wd = malloc(2 * (size_t)n * sizeof(double));
    double *wf = malloc((2 * (size_t)n + (size_t)f->m + 1) * sizeof(double));
    const double *sol = lsim_stepper_solution(stp);
    for (int i = 0; i < n; ++i) {
      z[i] = sol[i];
      z[n + i] = sol[i] * (1.0 + 0.1 * sin(1.0 + i)) - 1e-3 * cos(i);
      z[2 * n + i] = 0.0;
    }
    for (int v = 0; v < 3; ++v) {
      LsimQuality d, q;
      lsim_lcp_quality(l, z + (size_t)v * n, wd, -1.0, &d);
      lsim_factored_quality(f, z + (size_t)v * n, wf, -1.0, &q);
      assert_same_quality(&d, &q);
      for (int i = 0; i < n; ++i) assert_true(close12(wd[i], wf[i])); /* w itself */
    }
    free(z), free(wd), free(wf);
    ++compared;
  }
  assert_true(compared > 0);
  lsim_stepper_free(stp);
  lsim_state_free(&st);
  lsim_model_free(&model);
}

static void test_factored_equals_dense(void **state) {
  (void)state;
  check_scene("data/box_stack_3d.json", 30);
  check_scene("data/brick_friction.json", 60);
  check_scene("data/pile_10.json", 60);
}

/* The factored hash: FNV-1a over the tag, n, m, J, B, C, q and the cones (value from an
 * independent Python computation), and every field changes it. */
static void test_factored_hash(void **state) {
  (void)state;
  LsimFactoredLcp f = slide_factored();
  const uint64_t h = lsim_factored_hash(&f);
  assert_true(h == 0x6d93dbac1b4ddf76ull);
  LsimFactoredLcp empty = {.n = 0};
  assert_true(lsim_factored_hash(&empty) == 0x8d13b32415d25dd0ull);
  /* Not the dense hash of the same M. */
  LsimLcp l = slide_lcp();
  assert_true(h != lsim_lcp_hash(&l));
  /* One bit anywhere changes it; restoring gives it back. */
  double *vals[4] = {&sf_Jv[1], &sf_Bv[2], &sf_Cv[2], &sf_q[1]};
  for (int k = 0; k < 4; ++k) {
    const double keep = *vals[k];
    *vals[k] = nextafter(keep, INFINITY);
    assert_true(lsim_factored_hash(&f) != h);
    *vals[k] = keep;
    assert_true(lsim_factored_hash(&f) == h);
  }
  int *ints[4] = {&sf_Ji[0], &sf_Bi[1], &sf_Ci[0], &sf_Cp[2]};
  for (int k = 0; k < 4; ++k) {
    const int keep = *ints[k];
    *ints[k] = keep ^ 1;
    assert_true(lsim_factored_hash(&f) != h);
    *ints[k] = keep;
  }
  sf_cone.mu = 0.25;
  assert_true(lsim_factored_hash(&f) != h);
  sf_cone.mu = 0.5;
  sf_cone.uniform = 1;
  assert_true(lsim_factored_hash(&f) != h);
  sf_cone.uniform = 0;
  f.ncones = 0;
  assert_true(lsim_factored_hash(&f) != h);
  f.ncones = 1;
  f.C_ptr = NULL; /* no C at all differs from C */
  assert_true(lsim_factored_hash(&f) != h);
  f.C_ptr = sf_Cp;
  f.m = 3;
  assert_true(lsim_factored_hash(&f) != h);
  f.m = 2;
  assert_true(lsim_factored_hash(&f) == h);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_exact_solution_is_zero),
      cmocka_unit_test(test_perturbed_solutions_are_positive),
      cmocka_unit_test(test_sticking_contact),
      cmocka_unit_test(test_plain_lcp),
      cmocka_unit_test(test_distance),
      cmocka_unit_test(test_hash),
      cmocka_unit_test(test_factored_slide),
      cmocka_unit_test(test_residual_floor),
      cmocka_unit_test(test_factored_equals_dense),
      cmocka_unit_test(test_factored_hash),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
