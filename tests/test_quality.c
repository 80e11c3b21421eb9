/* test_quality.c: the solver-independent quality measures (lcp/quality.h) are zero on
 * exact solutions and positive on perturbed ones; problem hashes are FNV-1a of the bytes. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lcp/quality.h"

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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_exact_solution_is_zero),
      cmocka_unit_test(test_perturbed_solutions_are_positive),
      cmocka_unit_test(test_sticking_contact),
      cmocka_unit_test(test_plain_lcp),
      cmocka_unit_test(test_distance),
      cmocka_unit_test(test_hash),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
