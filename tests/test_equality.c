/* test_equality.c: the Schur-complement elimination of joint rows (contact/equality.c),
 * checked through the identities that define it, on random problems. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "contact/equality.h"
#include "lcp/random.h"

enum { NV = 12, NE = 4, NI = 5, PER_ROW = 6 };

/* Random dense-pattern rows stored as CSR: each row touches PER_ROW velocities. */
static void random_rows(LsimRng *rng, int n, int *ptr, int *idx, double *val) {
  int k = 0;
  for (int r = 0; r < n; ++r) {
    ptr[r] = k;
    const int start = (int)(lsim_rng_uniform(rng) * (NV - PER_ROW + 1));
    for (int c = 0; c < PER_ROW; ++c, ++k) idx[k] = start + c, val[k] = lsim_rng_normal(rng);
  }
  ptr[n] = k;
}

/* B = W J' with W diagonal (positive): same pattern as J. */
static void times_w(const double *w, int n, const int *ptr, const int *idx, const double *val,
                    double *out) {
  for (int k = 0; k < ptr[n]; ++k) out[k] = w[idx[k]] * val[k];
}

static void apply_rows(int n, const int *ptr, const int *idx, const double *val, const double *x,
                       double *out) {
  for (int r = 0; r < n; ++r) {
    out[r] = 0.0;
    for (int k = ptr[r]; k < ptr[r + 1]; ++k) out[r] += val[k] * x[idx[k]];
  }
}

/* For random z >= 0: v' = v_free' + B_I' z satisfies the joint rows exactly
 * (J_E v' + b_E = 0, 1e-12 relative: one Cholesky solve of a well-conditioned A), and
 * equals v_free + B_E lambda + B_I z with lambda from lsim_equality_impulses (1e-12). */
static void test_identities(void **state) {
  (void)state;
  for (int trial = 0; trial < 50; ++trial) {
    LsimRng rng = lsim_rng(500 + trial);
    double w[NV], vf[NV], vf0[NV], bE[NE];
    int JE_ptr[NE + 1], JE_idx[NE * PER_ROW], JI_ptr[NI + 1], JI_idx[NI * PER_ROW];
    double JE_val[NE * PER_ROW], BE_val[NE * PER_ROW], JI_val[NI * PER_ROW];
    for (int i = 0; i < NV; ++i) w[i] = 0.5 + lsim_rng_uniform(&rng), vf[i] = lsim_rng_normal(&rng);
    memcpy(vf0, vf, sizeof vf);
    for (int i = 0; i < NE; ++i) bE[i] = lsim_rng_normal(&rng);
    random_rows(&rng, NE, JE_ptr, JE_idx, JE_val);
    random_rows(&rng, NI, JI_ptr, JI_idx, JI_val);
    times_w(w, NE, JE_ptr, JE_idx, JE_val, BE_val);
    int BI_ptr[NI + 1], cap = NI * PER_ROW;
    int *BI_idx = malloc(sizeof(int) * cap);
    double *BI_val = malloc(sizeof(double) * cap);
    memcpy(BI_ptr, JI_ptr, sizeof JI_ptr);
    memcpy(BI_idx, JI_idx, sizeof JI_idx);
    times_w(w, NI, JI_ptr, JI_idx, JI_val, BI_val);
    /* Keep the original B_I as dense columns to check the identity. */
    double BI0[NV * NI] = {0};
    for (int j = 0; j < NI; ++j)
      for (int k = BI_ptr[j]; k < BI_ptr[j + 1]; ++k) BI0[BI_idx[k] + j * NV] += BI_val[k];
    LsimEquality *e = lsim_equality_create();
    char err[256];
    assert_int_equal(lsim_equality_eliminate(e, NV, NE, JE_ptr, JE_idx, JE_val, JE_ptr, JE_idx,
                                             BE_val, bE, vf, NI, JI_ptr, JI_idx, JI_val, BI_ptr,
                                             &BI_idx, &BI_val, &cap, err, sizeof err),
                     0);
    double z[NI], v[NV], lam[NE], row[NE];
    for (int j = 0; j < NI; ++j) z[j] = lsim_rng_uniform(&rng) < 0.5 ? 0.0 : lsim_rng_uniform(&rng);
    memcpy(v, vf, sizeof v);
    for (int j = 0; j < NI; ++j)
      for (int k = BI_ptr[j]; k < BI_ptr[j + 1]; ++k) v[BI_idx[k]] += BI_val[k] * z[j];
    apply_rows(NE, JE_ptr, JE_idx, JE_val, v, row);
    for (int i = 0; i < NE; ++i) assert_true(fabs(row[i] + bE[i]) <= 1e-12 * (1 + fabs(bE[i])));
    lsim_equality_impulses(e, z, lam);
    double v2[NV];
    memcpy(v2, vf0, sizeof v2);
    for (int i = 0; i < NE; ++i)
      for (int k = JE_ptr[i]; k < JE_ptr[i + 1]; ++k) v2[JE_idx[k]] += BE_val[k] * lam[i];
    for (int j = 0; j < NI; ++j)
      for (int r = 0; r < NV; ++r) v2[r] += BI0[r + j * NV] * z[j];
    for (int r = 0; r < NV; ++r) assert_true(fabs(v[r] - v2[r]) <= 1e-12 * (1 + fabs(v[r])));
    lsim_equality_free(e);
    free(BI_idx);
    free(BI_val);
  }
}

/* Dependent joint rows (a row repeated) are refused with a message, not a NaN. */
static void test_dependent_rows(void **state) {
  (void)state;
  int ptr[3] = {0, 2, 4}, idx[4] = {0, 1, 0, 1};
  double val[4] = {1, 2, 1, 2}, bval[4] = {1, 2, 1, 2}, bE[2] = {0, 0}, vf[NV] = {0};
  int BI_ptr[1] = {0}, cap = 0;
  int *BI_idx = NULL;
  double *BI_val = NULL;
  LsimEquality *e = lsim_equality_create();
  char err[256] = "";
  const int rc = lsim_equality_eliminate(e, NV, 2, ptr, idx, val, ptr, idx, bval, bE, vf, 0, BI_ptr,
                                         NULL, NULL, BI_ptr, &BI_idx, &BI_val, &cap, err, sizeof err);
  assert_int_equal(rc, -6);
  assert_non_null(strstr(err, "dependent"));
  lsim_equality_free(e);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_identities),
      cmocka_unit_test(test_dependent_rows),
  };
  return cmocka_run_group_tests_name("equality", tests, NULL, NULL);
}
