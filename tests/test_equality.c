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

#include <SuiteSparse_config.h>

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

/* CHOLMOD's symbolic analysis is counted through its allocator: an analysis allocates,
 * a refactorization of a kept analysis of this size much less. */
static long ss_allocs;
static void *count_malloc(size_t n) { ++ss_allocs; return malloc(n); }
static void *count_calloc(size_t a, size_t b) { ++ss_allocs; return calloc(a, b); }
static void *count_realloc(void *p, size_t n) { ++ss_allocs; return realloc(p, n); }

/* A context kept across steps: once it has eliminated two problems (CHOLMOD sizes its
 * workspace over the first analysis and the first refactorization), eliminating a problem
 * of the same pattern (new values: the joints move every step) makes fewer CHOLMOD
 * allocations than one of a new pattern (the kept analysis is not redone); and each result equals a fresh context's to the last bit
 * (the kept analysis is the one a fresh context makes). */
static void test_kept_analysis(void **state) {
  (void)state;
  LsimRng rng = lsim_rng(900);
  double w[NV], vf0[NV], bE[NE];
  int JE_ptr[NE + 1], JE_idx[NE * PER_ROW], JI_ptr[NI + 1], JI_idx[NI * PER_ROW];
  double JE_val[NE * PER_ROW], BE_val[NE * PER_ROW], JI_val[NI * PER_ROW], BI0_val[NI * PER_ROW];
  for (int i = 0; i < NV; ++i) w[i] = 0.5 + lsim_rng_uniform(&rng), vf0[i] = lsim_rng_normal(&rng);
  for (int i = 0; i < NE; ++i) bE[i] = lsim_rng_normal(&rng);
  random_rows(&rng, NE, JE_ptr, JE_idx, JE_val);
  random_rows(&rng, NI, JI_ptr, JI_idx, JI_val);
  /* Room for B_I' (its pattern may fill in up to NV per column). */
  int cap = NV * NI, cap2 = NV * NI, BI_ptr[NI + 1], BI_ptr2[NI + 1];
  int *BI_idx = malloc(sizeof(int) * cap), *BI_idx2 = malloc(sizeof(int) * cap2);
  double *BI_val = malloc(sizeof(double) * cap), *BI_val2 = malloc(sizeof(double) * cap2);
  double vf[NV], vf2[NV], lam[NE], lam2[NE], z[NI];
  for (int j = 0; j < NI; ++j) z[j] = lsim_rng_uniform(&rng);
  LsimEquality *e = lsim_equality_create();
  char err[256];
  const struct SuiteSparse_config_struct saved = SuiteSparse_config;
  SuiteSparse_config.malloc_func = count_malloc;
  SuiteSparse_config.calloc_func = count_calloc;
  SuiteSparse_config.realloc_func = count_realloc;
  long steady_allocs = 0;
  for (int round = 0; round < 7; ++round) {
    /* This round's values on the same pattern; the last round another pattern (the joint
       rows touch other velocities), which needs a new analysis. */
    if (round == 6)
      /* Even rows on velocities 0-5, odd rows on 6-11: A(i, j) = 0 for i - j odd. */
      for (int r = 0; r < NE; ++r)
        for (int k = 0; k < PER_ROW; ++k) JE_idx[r * PER_ROW + k] = (r % 2) * PER_ROW + k;
    for (int k = 0; k < NE * PER_ROW; ++k) JE_val[k] *= 1.0 + 0.1 * round;
    times_w(w, NE, JE_ptr, JE_idx, JE_val, BE_val);
    times_w(w, NI, JI_ptr, JI_idx, JI_val, BI0_val);
    memcpy(vf, vf0, sizeof vf);
    memcpy(BI_ptr, JI_ptr, sizeof BI_ptr);
    memcpy(BI_idx, JI_idx, sizeof JI_idx);
    memcpy(BI_val, BI0_val, sizeof BI0_val);
    ss_allocs = 0;
    assert_int_equal(lsim_equality_eliminate(e, NV, NE, JE_ptr, JE_idx, JE_val, JE_ptr, JE_idx,
                                             BE_val, bE, vf, NI, JI_ptr, JI_idx, JI_val, BI_ptr,
                                             &BI_idx, &BI_val, &cap, err, sizeof err),
                     0);
    if (round == 5) steady_allocs = ss_allocs;
    if (round == 6 && !(steady_allocs < ss_allocs))
      fail_msg("%ld CHOLMOD allocations with the kept analysis, %ld with a new one",
               steady_allocs, ss_allocs);
    lsim_equality_impulses(e, z, lam);
    /* The same problem in a fresh context. */
    LsimEquality *fresh = lsim_equality_create();
    memcpy(vf2, vf0, sizeof vf2);
    memcpy(BI_ptr2, JI_ptr, sizeof BI_ptr2);
    memcpy(BI_idx2, JI_idx, sizeof JI_idx);
    memcpy(BI_val2, BI0_val, sizeof BI0_val);
    assert_int_equal(lsim_equality_eliminate(fresh, NV, NE, JE_ptr, JE_idx, JE_val, JE_ptr,
                                             JE_idx, BE_val, bE, vf2, NI, JI_ptr, JI_idx, JI_val,
                                             BI_ptr2, &BI_idx2, &BI_val2, &cap2, err, sizeof err),
                     0);
    lsim_equality_impulses(fresh, z, lam2);
    assert_memory_equal(vf, vf2, sizeof vf);
    assert_memory_equal(lam, lam2, sizeof lam);
    assert_memory_equal(BI_ptr, BI_ptr2, sizeof BI_ptr);
    assert_memory_equal(BI_val, BI_val2, sizeof(double) * (size_t)BI_ptr[NI]);
    lsim_equality_free(fresh);
  }
  lsim_equality_free(e);
  SuiteSparse_config = saved;
  free(BI_idx), free(BI_idx2), free(BI_val), free(BI_val2);
}

/* Dependent joint rows: a row repeated (one body pinned twice at one point) shares its
 * impulse equally between the copies (the least-norm split of a singular A, which CHOLMOD
 * refuses: an exact zero pivot), to 1e-14 (a 2 x 2 solve of round-off size). */
static void test_dependent_rows(void **state) {
  (void)state;
  int ptr[3] = {0, 2, 4}, idx[4] = {0, 1, 0, 1};
  double val[4] = {1, 2, 1, 2}, bval[4] = {1, 2, 1, 2}, bE[2] = {0.5, 0.5}, vf[NV] = {0};
  vf[0] = 1.0, vf[1] = -3.0;
  int BI_ptr[1] = {0}, cap = 0;
  int *BI_idx = NULL;
  double *BI_val = NULL;
  LsimEquality *e = lsim_equality_create();
  char err[256] = "";
  const int rc = lsim_equality_eliminate(e, NV, 2, ptr, idx, val, ptr, idx, bval, bE, vf, 0, BI_ptr,
                                         NULL, NULL, BI_ptr, &BI_idx, &BI_val, &cap, err, sizeof err);
  assert_int_equal(rc, 0);
  /* J v' + b = 0 on both copies: (1 + l) + 2 (-3 + 2 l) + 0.5 = 0 with l = l1 + l2 = 0.9,
     split 0.45 each. */
  double lam[2];
  lsim_equality_impulses(e, NULL, lam);
  assert_true(fabs(lam[0] - 0.45) < 1e-14 && fabs(lam[1] - 0.45) < 1e-14);
  assert_true(fabs(vf[0] + 2.0 * vf[1] + 0.5) < 1e-14);
  lsim_equality_free(e);
}

/* Rank-deficient random rows (row 3 = row 0 - 2 row 1, b_E consistent, and a CHOLMOD pivot
 * of round-off size, which it does not refuse): the identities of test_identities hold
 * (1e-10 relative: the pivoted factor's cut at 1e-11 leaves round-off of about
 * 1e-16 / 1e-11 of the dropped direction's scale), and the impulses have the least norm:
 * no component along A's null vector n = (1, -2, 0, -1) (1e-12 of |lambda|). */
static void test_rank_deficient(void **state) {
  (void)state;
  for (int trial = 0; trial < 50; ++trial) {
    LsimRng rng = lsim_rng(700 + trial);
    double w[NV], vf[NV], vf0[NV], bE[NE];
    int JE_ptr[NE + 1], JE_idx[NE * 2 * PER_ROW], JI_ptr[NI + 1], JI_idx[NI * PER_ROW];
    double JE_val[NE * 2 * PER_ROW], BE_val[NE * 2 * PER_ROW], JI_val[NI * PER_ROW];
    for (int i = 0; i < NV; ++i) w[i] = 0.5 + lsim_rng_uniform(&rng), vf[i] = lsim_rng_normal(&rng);
    memcpy(vf0, vf, sizeof vf);
    /* Rows 0-2 random dense over all velocities, row 3 = row 0 - 2 row 1. */
    int k = 0;
    double dense[NE][NV];
    for (int r = 0; r < NE; ++r) {
      for (int c = 0; c < NV; ++c)
        dense[r][c] = r < 3 ? lsim_rng_normal(&rng) : dense[0][c] - 2.0 * dense[1][c];
      JE_ptr[r] = k;
      for (int c = 0; c < NV; ++c) JE_idx[k] = c, JE_val[k++] = dense[r][c];
    }
    JE_ptr[NE] = k;
    for (int i = 0; i < 3; ++i) bE[i] = lsim_rng_normal(&rng);
    bE[3] = bE[0] - 2.0 * bE[1];
    random_rows(&rng, NI, JI_ptr, JI_idx, JI_val);
    times_w(w, NE, JE_ptr, JE_idx, JE_val, BE_val);
    int BI_ptr[NI + 1], cap = NV * NI;
    int *BI_idx = malloc(sizeof(int) * cap);
    double *BI_val = malloc(sizeof(double) * cap);
    memcpy(BI_ptr, JI_ptr, sizeof JI_ptr);
    memcpy(BI_idx, JI_idx, sizeof JI_idx);
    times_w(w, NI, JI_ptr, JI_idx, JI_val, BI_val);
    double BI0[NV * NI] = {0};
    for (int j = 0; j < NI; ++j)
      for (int q = BI_ptr[j]; q < BI_ptr[j + 1]; ++q) BI0[BI_idx[q] + j * NV] += BI_val[q];
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
      for (int q = BI_ptr[j]; q < BI_ptr[j + 1]; ++q) v[BI_idx[q]] += BI_val[q] * z[j];
    apply_rows(NE, JE_ptr, JE_idx, JE_val, v, row);
    for (int i = 0; i < NE; ++i) assert_true(fabs(row[i] + bE[i]) <= 1e-10 * (1 + fabs(bE[i])));
    lsim_equality_impulses(e, z, lam);
    double v2[NV], nl = 0.0;
    memcpy(v2, vf0, sizeof v2);
    for (int i = 0; i < NE; ++i) {
      nl += lam[i] * lam[i];
      for (int q = JE_ptr[i]; q < JE_ptr[i + 1]; ++q) v2[JE_idx[q]] += BE_val[q] * lam[i];
    }
    for (int j = 0; j < NI; ++j)
      for (int r = 0; r < NV; ++r) v2[r] += BI0[r + j * NV] * z[j];
    for (int r = 0; r < NV; ++r) assert_true(fabs(v[r] - v2[r]) <= 1e-10 * (1 + fabs(v[r])));
    const double along = (lam[0] - 2.0 * lam[1] - lam[3]) / sqrt(6.0);
    assert_true(fabs(along) <= 1e-12 * sqrt(nl));
    lsim_equality_free(e);
    free(BI_idx);
    free(BI_val);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_identities),
      cmocka_unit_test(test_dependent_rows),
      cmocka_unit_test(test_rank_deficient),
      cmocka_unit_test(test_kept_analysis),
  };
  return cmocka_run_group_tests_name("equality", tests, NULL, NULL);
}
