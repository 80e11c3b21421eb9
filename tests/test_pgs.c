/* test_pgs.c: projected Gauss-Seidel against exact solutions. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "lcp/factored.h"
#include "lcp/pgs.h"
#include "lcp/solver.h"
#include "lcp/random.h"
#include "tests/support.h"

/* diag(1..n), q = -e: z_i = 1/i exactly; Gauss-Seidel on a diagonal M is exact in one
 * sweep (the second sweep only confirms), so z equals 1/i to rounding (1 ulp). */
static void test_diagonal_exact(void **state) {
  (void)state;
  LsimLcp lcp;
  assert_int_equal(lsim_lcp_init(&lcp, 9), 0);
  for (int i = 0; i < 9; ++i) {
    lcp.M[i + i * 9] = i + 1;
    lcp.q[i] = -1.0;
  }
  LsimPgs *ws = lsim_pgs_create();
  double z[9];
  LsimPgsInfo info = {0};
  assert_int_equal(lsim_pgs_solve(ws, &lcp, NULL, 0, z, &info), LSIM_SOLVED);
  for (int i = 0; i < 9; ++i) assert_true(fabs(z[i] - 1.0 / (i + 1)) <= 1e-16);
  assert_int_equal(info.sweeps, 1);
  lsim_pgs_free(ws);
  lsim_lcp_free(&lcp);
}

/* A 2x2 SPD problem solved by hand: M = [[2,1],[1,2]], q = [-3, 0].
 * Try z2 = 0: z1 = 3/2, w2 = 3/2 >= 0: the solution is z = (1.5, 0). PGS converges
 * linearly; at tol 1e-14 relative, z is within 1e-13 of the exact value. */
static void test_two_by_two(void **state) {
  (void)state;
  LsimLcp lcp;
  assert_int_equal(lsim_lcp_init(&lcp, 2), 0);
  lcp.M[0] = 2; lcp.M[1] = 1; lcp.M[2] = 1; lcp.M[3] = 2;
  lcp.q[0] = -3; lcp.q[1] = 0;
  LsimPgs *ws = lsim_pgs_create();
  LsimPgsOptions o = lsim_default_pgs_options();
  o.tol = 1e-14;
  double z[2];
  assert_int_equal(lsim_pgs_solve(ws, &lcp, &o, 0, z, NULL), LSIM_SOLVED);
  assert_true(fabs(z[0] - 1.5) <= 1e-13);
  assert_true(fabs(z[1]) <= 1e-13);
  lsim_pgs_free(ws);
  lsim_lcp_free(&lcp);
}

/* Random SPD problems: PGS meets its tolerance, the reported residual is the one
 * recomputed from z alone, and SOR with omega = 1.2 also converges. */
static void test_random_spd(void **state) {
  (void)state;
  LsimPgs *ws = lsim_pgs_create();
  for (int trial = 0; trial < 10; ++trial) {
    LsimRng rng = lsim_rng(100 + trial);
    LsimLcp lcp;
    const int n = 10 + 20 * trial;
    assert_int_equal(lsim_lcp_random_spd(&lcp, n, &rng), 0);
    double *z = calloc(n, sizeof *z), *w = calloc(n, sizeof *w);
    for (int k = 0; k < 2; ++k) {
      LsimPgsOptions o = lsim_default_pgs_options();
      o.omega = k ? 1.2 : 1.0;
      o.max_sweeps = 100000;
      LsimPgsInfo info = {0};
      assert_int_equal(lsim_pgs_solve(ws, &lcp, &o, 0, z, &info), LSIM_SOLVED);
      LsimResidual r;
      lsim_lcp_residual(&lcp, z, w, &r);
      assert_true(r.natural <= o.tol * lsim_lcp_scale(&lcp));
      assert_true(r.natural == info.residual);
      assert_true(r.z_negative == 0.0); /* the projection keeps z >= 0 exactly */
    }
    free(z);
    free(w);
    lsim_lcp_free(&lcp);
  }
  lsim_pgs_free(ws);
}

/* Warm start from the solution: no sweep is needed. */
static void test_warm_start(void **state) {
  (void)state;
  LsimRng rng = lsim_rng(7);
  LsimLcp lcp;
  assert_int_equal(lsim_lcp_random_spd(&lcp, 60, &rng), 0);
  LsimPgs *ws = lsim_pgs_create();
  double z[60];
  LsimPgsInfo cold = {0}, warm = {0};
  assert_int_equal(lsim_pgs_solve(ws, &lcp, NULL, 0, z, &cold), LSIM_SOLVED);
  assert_true(cold.sweeps > 1);
  assert_int_equal(lsim_pgs_solve(ws, &lcp, NULL, 1, z, &warm), LSIM_SOLVED);
  assert_int_equal(warm.sweeps, 0);
  lsim_pgs_free(ws);
  lsim_lcp_free(&lcp);
}

/* A zero diagonal (lcp_CPS_2-like) is refused with a status, never divided by; a negative
 * one too. z stays finite. */
static void test_bad_diagonal(void **state) {
  (void)state;
  LsimLcp lcp;
  assert_int_equal(lsim_lcp_init(&lcp, 2), 0);
  lcp.M[0] = 1; lcp.M[3] = 0; lcp.M[1] = 1; lcp.M[2] = -1;
  lcp.q[0] = -1; lcp.q[1] = -1;
  LsimPgs *ws = lsim_pgs_create();
  double z[2] = {5, 5};
  assert_int_equal(lsim_pgs_solve(ws, &lcp, NULL, 0, z, NULL), LSIM_BAD_DIAGONAL);
  assert_true(isfinite(z[0]) && isfinite(z[1]));
  lcp.M[3] = -2;
  assert_int_equal(lsim_pgs_solve(ws, &lcp, NULL, 0, z, NULL), LSIM_BAD_DIAGONAL);
  lsim_pgs_free(ws);
  lsim_lcp_free(&lcp);
}

/* A zero diagonal where z = 0 already solves the problem (q >= 0: w = q >= 0, z'w = 0):
 * solved after no sweep, z = 0 exactly and residual exactly 0 (nothing is computed but
 * min(0, q_i) = 0). A warm guess that does not solve it gives way to z = 0; one that
 * does (z = (1, 0): w = (0, 1)) is kept, residual 0 exactly (integers). With q_0 < 0
 * neither start solves it: bad_diagonal stays, with z = 0. Dense and factored paths. */
static void test_bad_diagonal_trivial(void **state) {
  (void)state;
  LsimLcp lcp;
  assert_int_equal(lsim_lcp_init(&lcp, 2), 0);
  lcp.M[0] = 1; lcp.M[1] = 1; lcp.M[2] = -1; lcp.M[3] = 0; /* M = [1 -1; 1 0] */
  lcp.q[0] = 0; lcp.q[1] = 2;
  LsimPgs *ws = lsim_pgs_create();
  double z[2] = {5, 5};
  LsimPgsInfo info = {0};
  assert_int_equal(lsim_pgs_solve(ws, &lcp, NULL, 0, z, &info), LSIM_SOLVED);
  assert_true(z[0] == 0.0 && z[1] == 0.0);
  assert_int_equal(info.status, LSIM_SOLVED);
  assert_int_equal(info.sweeps, 0);
  assert_true(info.residual == 0.0);
  /* Warm, a guess that does not solve it (w = (-3, 5) at z = (0, 3)): z = 0 instead. */
  z[0] = 0, z[1] = 3;
  assert_int_equal(lsim_pgs_solve(ws, &lcp, NULL, 1, z, &info), LSIM_SOLVED);
  assert_true(z[0] == 0.0 && z[1] == 0.0 && info.residual == 0.0);
  /* Warm, a guess that solves it with q_0 = -1 (z = (1, 0): w = (0, 2)); z = 0 would not. */
  lcp.q[0] = -1;
  z[0] = 1, z[1] = 0;
  assert_int_equal(lsim_pgs_solve(ws, &lcp, NULL, 1, z, &info), LSIM_SOLVED);
  assert_true(z[0] == 1.0 && z[1] == 0.0 && info.residual == 0.0);
  /* Neither: bad_diagonal, z = 0 and its residual max|min(0, q)| = 1. */
  z[0] = 0, z[1] = 3;
  assert_int_equal(lsim_pgs_solve(ws, &lcp, NULL, 1, z, &info), LSIM_BAD_DIAGONAL);
  assert_true(z[0] == 0.0 && z[1] == 0.0 && info.residual == 1.0);
  /* The factored path (M = C, no J or B) and the solver front end say the same. */
  lcp.q[0] = 0;
  int jp[3] = {0, 0, 0}, cp[3] = {0, 2, 3}, ci[3] = {0, 1, 0};
  double cv[3] = {1, -1, 1};
  LsimFactoredLcp f = {.n = 2, .m = 0, .J_ptr = jp, .B_ptr = jp, .C_ptr = cp, .C_idx = ci,
                       .C_val = cv, .q = lcp.q};
  z[0] = z[1] = 5;
  assert_int_equal(lsim_pgs_solve_factored(ws, &f, NULL, 0, z, &info), LSIM_SOLVED);
  assert_true(z[0] == 0.0 && z[1] == 0.0 && info.residual == 0.0 && info.sweeps == 0);
  LsimSolver *s = NULL;
  assert_int_equal(lsim_solver_create(&s, "pgs", NULL, NULL, 0), 0);
  LsimSolveStats st;
  z[0] = z[1] = 5;
  assert_int_equal(lsim_solver_solve(s, &lcp, z, &st), LSIM_SOLVED);
  assert_true(z[0] == 0.0 && z[1] == 0.0 && st.residual.natural == 0.0);
  lsim_solver_free(s);
  lsim_pgs_free(ws);
  lsim_lcp_free(&lcp);
}

/* Sweep limit, invalid omega, NaN data, the trace. */
static void test_limits_and_trace(void **state) {
  (void)state;
  LsimRng rng = lsim_rng(11);
  LsimLcp lcp;
  assert_int_equal(lsim_lcp_random_spd(&lcp, 80, &rng), 0);
  LsimPgs *ws = lsim_pgs_create();
  double z[80], trace[5];
  LsimPgsOptions o = lsim_default_pgs_options();
  o.max_sweeps = 5;
  LsimPgsInfo info = {.trace = trace, .trace_capacity = 5};
  assert_int_equal(lsim_pgs_solve(ws, &lcp, &o, 0, z, &info), LSIM_MAX_ITERATIONS);
  assert_int_equal(info.sweeps, 5);
  assert_int_equal(info.trace_len, 5);
  /* Coordinate descent on an SPD quadratic: the residual after 5 sweeps is far below
     the start (max|q| <= 1), and every traced value is finite and non-negative. */
  for (int k = 0; k < 5; ++k) assert_true(trace[k] >= 0.0 && isfinite(trace[k]));
  assert_true(trace[4] < trace[0]);
  o.omega = 2.0;
  assert_int_equal(lsim_pgs_solve(ws, &lcp, &o, 0, z, NULL), LSIM_INVALID_INPUT);
  lcp.q[3] = NAN;
  assert_int_equal(lsim_pgs_solve(ws, &lcp, NULL, 0, z, NULL), LSIM_INVALID_INPUT);
  lsim_pgs_free(ws);
  lsim_lcp_free(&lcp);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_diagonal_exact),  cmocka_unit_test(test_two_by_two),
      cmocka_unit_test(test_random_spd),      cmocka_unit_test(test_warm_start),
      cmocka_unit_test(test_bad_diagonal),    cmocka_unit_test(test_bad_diagonal_trivial),    cmocka_unit_test(test_limits_and_trace),
  };
  return cmocka_run_group_tests_name("pgs", tests, NULL, NULL);
}
