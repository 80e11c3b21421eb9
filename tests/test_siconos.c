/* test_siconos.c: the Siconos adapter: every accepted solver solves small problems without
 * touching M or q, refused names are refused, fatal errors are trapped, counters are
 * fresh, contexts resize, non-finite output is caught. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <sys/stat.h>
#include <pthread.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lcp/datfile.h"
#include "lcp/lcp.h"
#include "lcp/random.h"
#include "lcp/siconos_adapter.h"
#include "lcp/solver.h"
#include "lcp_cst.h"
#include "support.h"

/* Acceptance on our relative natural residual max|min(z, w)| / max|q|. Siconos stops on
 * its own error, ||z - proj(z - w)||_2 / ||q||_2 <= tol (tol 1e-10 here, 1e-8 for cpg,
 * which stalls near 1e-9): our measure is at most sqrt(n) times that, so 1e-6 leaves
 * two orders of margin for n <= 9 while still catching any wrong answer. */
#define RES_TOL 1e-6

static double tol_for(const char *name) { return strcmp(name, "cpg") == 0 ? 1e-8 : 1e-10; }

static void load(const char *file, LsimLcp *lcp) {
  char path[512], rel[128], err[256];
  snprintf(rel, sizeof rel, "data/siconos-lcp/%s", file);
  int rc = lsim_dat_read(lsim_test_shared_path(rel, path, sizeof path), lcp, err, sizeof err);
  if (rc) fprintf(stderr, "load %s: %s\n", file, err);
  assert_int_equal(rc, 0);
}

/* Solves lcp with solver s and checks status, residual, and that M and q are unchanged. */
static void check_solves(LsimSiconos *s, const char *name, const LsimLcp *lcp, const char *what) {
  LsimLcp before;
  assert_int_equal(lsim_lcp_copy(&before, lcp), 0);
  double *z = calloc((size_t)lcp->n, sizeof *z), *w = calloc((size_t)lcp->n, sizeof *w);
  int it = -1;
  int rc = lsim_siconos_solve(s, lcp, tol_for(name), 0, 0, z, &it);
  LsimResidual res;
  lsim_lcp_residual(lcp, z, w, &res);
  if (rc != LSIM_SOLVED || !(res.relative <= RES_TOL))
    fprintf(stderr, "%s on %s: %s (%s), residual %.3g\n", name, what, lsim_status_name(rc),
            lsim_siconos_last_error(s), res.relative);
  assert_int_equal(rc, LSIM_SOLVED);
  assert_true(res.relative <= RES_TOL);
  /* A count, or none (nsgs_sbm: test_uncounted_solvers). */
  assert_true(strcmp(name, "nsgs_sbm") == 0 ? it == LSIM_SICONOS_NO_COUNT || it == 0 : it >= 0);
  /* Siconos must not write into our arrays (bitwise compare). */
  size_t nn = (size_t)lcp->n * (size_t)lcp->n;
  assert_memory_equal(before.M, lcp->M, nn * sizeof(double));
  assert_memory_equal(before.q, lcp->q, (size_t)lcp->n * sizeof(double));
  lsim_lcp_free(&before);
  free(z);
  free(w);
}

/* Every accepted name: deudeu, trivial and a random SPD, one context reused (n changes
 * 2 -> 9 -> 6, so resizing is exercised too). The SPD seed is fixed: bard, cpg and latin
 * do not solve every random SPD (see docs/siconos-solvers.md); n = 6, seed 2 is one they
 * all solve. */
static void test_each_accepted_solver(void **state) {
  (void)state;
  LsimLcp deudeu, trivial, spd;
  load("lcp_deudeu.dat", &deudeu);
  load("lcp_trivial.dat", &trivial);
  LsimRng rng = lsim_rng(2);
  assert_int_equal(lsim_lcp_random_spd(&spd, 6, &rng), 0);
  const char *const *names = lsim_siconos_names();
  int count = 0;
  for (int k = 0; names[k]; ++k, ++count) {
    LsimSiconos *s = NULL;
    char err[256] = "";
    assert_int_equal(lsim_siconos_create(&s, names[k], err, sizeof err), 0);
    assert_non_null(s);
    check_solves(s, names[k], &deudeu, "lcp_deudeu");
    check_solves(s, names[k], &trivial, "lcp_trivial");
    check_solves(s, names[k], &spd, "random SPD n=6");
    check_solves(s, names[k], &deudeu, "lcp_deudeu again");
    lsim_siconos_free(s);
  }
  assert_true(count >= 15);
  lsim_lcp_free(&deudeu);
  lsim_lcp_free(&trivial);
  lsim_lcp_free(&spd);
}

/* trivial is diag(1..9), q = -1: the solution is z_i = 1/i exactly. */
static void test_trivial_solution_value(void **state) {
  (void)state;
  LsimLcp lcp;
  load("lcp_trivial.dat", &lcp);
  LsimSiconos *s;
  assert_int_equal(lsim_siconos_create(&s, "lemke", NULL, 0), 0);
  double z[9];
  int it;
  assert_int_equal(lsim_siconos_solve(s, &lcp, 1e-12, 0, 0, z, &it), LSIM_SOLVED);
  for (int i = 0; i < 9; ++i) assert_true(fabs(z[i] - 1.0 / (i + 1)) < 1e-14);
  lsim_siconos_free(s);
  lsim_lcp_free(&lcp);
}

/* Refused and unknown names: LSIM_UNAVAILABLE, NULL context, a one-line message. */
static void test_refused_names(void **state) {
  (void)state;
  const char *refused[] = {"qp", "nsqp", "gams", "path", "no_such_solver", "", "LEMKE"};
  for (size_t k = 0; k < sizeof refused / sizeof refused[0]; ++k) {
    LsimSiconos *s = (LsimSiconos *)&s; /* must be overwritten with NULL */
    char err[256] = "";
    assert_int_equal(lsim_siconos_create(&s, refused[k], err, sizeof err), LSIM_UNAVAILABLE);
    assert_null(s);
    assert_true(strlen(err) > 10);
    assert_null(strchr(err, '\n'));
    assert_non_null(strstr(err, "siconos:"));
  }
  /* A NULL err buffer is allowed. */
  LsimSiconos *s;
  assert_int_equal(lsim_siconos_create(&s, "qp", NULL, 0), LSIM_UNAVAILABLE);
  /* The refused ones are not listed. */
  for (const char *const *p = lsim_siconos_names(); *p; ++p) {
    assert_string_not_equal(*p, "qp");
    assert_string_not_equal(*p, "path");
    assert_string_not_equal(*p, "gams");
  }
}

/* QP raises numerics_error ("ql0001 is not available") in this build: run it anyway via
 * the raw id, the error must come back as LSIM_SOLVER_FAILED with the message, and the
 * process (and the trap) must keep working: GAMS next, then a real solve. */
static void test_fatal_error_trapped(void **state) {
  (void)state;
  LsimLcp lcp;
  load("lcp_deudeu.dat", &lcp);
  double z[2] = {0, 0};
  int it = -1;
  const int ids[] = {SICONOS_LCP_QP, SICONOS_LCP_NSQP, SICONOS_LCP_GAMS, SICONOS_LCP_QP};
  for (size_t k = 0; k < sizeof ids / sizeof ids[0]; ++k) {
    LsimSiconos *s;
    assert_int_equal(lsim_siconos_create_id(&s, ids[k], NULL, 0), 0);
    assert_int_equal(lsim_siconos_solve(s, &lcp, 1e-10, 0, 0, z, &it), LSIM_SOLVER_FAILED);
    const char *msg = lsim_siconos_last_error(s);
    /* The message is Siconos' own, copied before its frame died. */
    assert_non_null(strstr(msg, "[Numerics][fatal error]"));
    if (ids[k] == SICONOS_LCP_QP) assert_non_null(strstr(msg, "ql0001 is not available"));
    assert_null(strchr(msg, '\n'));
    assert_true(isfinite(z[0]) && isfinite(z[1]));
    /* The same context again: the trap is re-armed on every call. */
    assert_int_equal(lsim_siconos_solve(s, &lcp, 1e-10, 0, 0, z, &it), LSIM_SOLVER_FAILED);
    lsim_siconos_free(s);
  }
  LsimSiconos *ok;
  assert_int_equal(lsim_siconos_create(&ok, "lemke", NULL, 0), 0);
  assert_int_equal(lsim_siconos_solve(ok, &lcp, 1e-10, 0, 0, z, &it), LSIM_SOLVED);
  assert_string_equal(lsim_siconos_last_error(ok), "");
  lsim_siconos_free(ok);
  /* Unknown ids are refused. */
  LsimSiconos *s;
  char err[128];
  assert_int_equal(lsim_siconos_create_id(&s, 12345, err, sizeof err), LSIM_UNAVAILABLE);
  assert_null(s);
  lsim_lcp_free(&lcp);
}

/* After a hard problem (PGS needs hundreds of sweeps on lcp_mmc), a q >= 0 problem (z = 0
 * solves it) must report a fresh, small count, not the previous one. */
static void test_iterations_fresh(void **state) {
  (void)state;
  const char *names[] = {"pgs", "psor", "rpgs", "lemke", "newton_fb", "convexqp_pg"};
  LsimLcp hard;
  load("lcp_mmc.dat", &hard);
  LsimLcp easy;
  assert_int_equal(lsim_lcp_copy(&easy, &hard), 0);
  for (int i = 0; i < easy.n; ++i) easy.q[i] = 1.0 + i;
  double *z = calloc((size_t)hard.n, sizeof *z);
  for (size_t k = 0; k < sizeof names / sizeof names[0]; ++k) {
    LsimSiconos *s;
    assert_int_equal(lsim_siconos_create(&s, names[k], NULL, 0), 0);
    int it_hard = -1, it_easy = -1;
    assert_int_equal(lsim_siconos_solve(s, &hard, 1e-10, 0, 0, z, &it_hard), LSIM_SOLVED);
    assert_int_equal(lsim_siconos_solve(s, &easy, 1e-10, 0, 0, z, &it_easy), LSIM_SOLVED);
    if (strcmp(names[k], "pgs") == 0) assert_true(it_hard > 50);
    assert_true(it_easy >= 0 && it_easy <= 2);
    assert_true(it_easy < it_hard || it_hard <= 2);
    assert_true(lsim_test_max_abs(z, hard.n) == 0.0);
    lsim_siconos_free(s);
  }
  free(z);
  lsim_lcp_free(&hard);
  lsim_lcp_free(&easy);
}

/* max_iter is honoured and restored: 3 sweeps of PGS on lcp_mmc stop at that budget,
 * reported as a budget stop (LSIM_MAX_ITERATIONS, as our solvers do; Siconos' info 1
 * alone would say failure), then the default limit (max_iter 0) solves it again in the
 * same context. */
static void test_max_iter(void **state) {
  (void)state;
  LsimLcp lcp;
  load("lcp_mmc.dat", &lcp);
  double *z = calloc((size_t)lcp.n, sizeof *z);
  LsimSiconos *s;
  assert_int_equal(lsim_siconos_create(&s, "pgs", NULL, 0), 0);
  int it;
  assert_int_equal(lsim_siconos_solve(s, &lcp, 1e-10, 3, 0, z, &it), LSIM_MAX_ITERATIONS);
  assert_int_equal(it, 3);
  assert_non_null(strstr(lsim_siconos_last_error(s), "stopped at its iteration budget (3)"));
  assert_int_equal(lsim_siconos_solve(s, &lcp, 1e-10, 0, 0, z, &it), LSIM_SOLVED);
  lsim_siconos_free(s);
  free(z);
  lsim_lcp_free(&lcp);
}

/* The two solvers whose counts Siconos 4.4 does not put in ITER_DONE (they read 0):
 * M = [1 .99; .99 1] (+ a decoupled 1), q = (-1, -1.1, -1), solution z = (0, 1.1, 1).
 * enum tries the index sets in order 0, 1, ...: set 0 (all z basic) gives z_0 =
 * (1 - .99 * 1.1) / (1 - .99^2) < 0, set 1 (z_0 = 0) the solution: 2 sets. M = I, q = -1:
 * set 0 solves, 1. q >= 0: the driver answers z = 0 before enumerating, 0. M = -I with
 * q = -1 has no solution (w = -z - 1 < 0): all 2^3 = 8 sets, a failure, not a budget stop.
 * nsgs_sbm: no count (-1, never 0), except q >= 0 (0); at a budget of 5 sweeps (Gauss-
 * Seidel contracts by .99^2 a sweep here: far from 1e-12) a budget stop as siconos:pgs's. */
static void test_uncounted_solvers(void **state) {
  (void)state;
  double M[9] = {1, 0.99, 0, 0.99, 1, 0, 0, 0, 1}, q[3] = {-1, -1.1, -1}, z[3];
  LsimLcp lcp = {.n = 3, .M = M, .q = q};
  LsimSiconos *en, *nb, *pg;
  assert_int_equal(lsim_siconos_create(&en, "enum", NULL, 0), 0);
  assert_int_equal(lsim_siconos_create(&nb, "nsgs_sbm", NULL, 0), 0);
  assert_int_equal(lsim_siconos_create(&pg, "pgs", NULL, 0), 0);
  int it = 99;
  assert_int_equal(lsim_siconos_solve(en, &lcp, 1e-12, 0, 0, z, &it), LSIM_SOLVED);
  assert_int_equal(it, 2);
  assert_true(z[0] == 0.0 && fabs(z[1] - 1.1) <= 1e-15 && fabs(z[2] - 1.0) <= 1e-15);
  assert_int_equal(lsim_siconos_solve(nb, &lcp, 1e-12, 0, 0, z, &it), LSIM_SOLVED);
  assert_int_equal(it, LSIM_SICONOS_NO_COUNT);
  assert_true(it < 0);
  assert_int_equal(lsim_siconos_solve(nb, &lcp, 1e-12, 5, 0, z, &it), LSIM_MAX_ITERATIONS);
  assert_int_equal(it, LSIM_SICONOS_NO_COUNT);
  assert_int_equal(lsim_siconos_solve(pg, &lcp, 1e-12, 5, 0, z, &it), LSIM_MAX_ITERATIONS);
  assert_int_equal(it, 5);
  /* M = I, q = -1: the first set. */
  double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, m1[3] = {-1, -1, -1};
  LsimLcp eye = {.n = 3, .M = I3, .q = m1};
  assert_int_equal(lsim_siconos_solve(en, &eye, 1e-12, 0, 0, z, &it), LSIM_SOLVED);
  assert_int_equal(it, 1);
  /* q >= 0: nothing enumerated, no sweep. */
  double qp[3] = {1, 0, 2};
  LsimLcp triv = {.n = 3, .M = M, .q = qp};
  assert_int_equal(lsim_siconos_solve(en, &triv, 1e-12, 0, 0, z, &it), LSIM_SOLVED);
  assert_int_equal(it, 0);
  assert_int_equal(lsim_siconos_solve(nb, &triv, 1e-12, 0, 0, z, &it), LSIM_SOLVED);
  assert_int_equal(it, 0);
  /* Infeasible: every set tried, a failure. */
  double nI[9] = {-1, 0, 0, 0, -1, 0, 0, 0, -1};
  LsimLcp inf = {.n = 3, .M = nI, .q = m1};
  assert_int_equal(lsim_siconos_solve(en, &inf, 1e-12, 0, 0, z, &it), LSIM_SOLVER_FAILED);
  assert_int_equal(it, 8);
  /* Through the solver front end: the record's count is -1 too. */
  LsimSolver *s = NULL;
  assert_int_equal(lsim_solver_create(&s, "siconos:nsgs_sbm", NULL, NULL, 0), 0);
  LsimSolveStats st;
  assert_int_equal(lsim_solver_solve(s, &lcp, z, &st), LSIM_SOLVED);
  assert_int_equal(st.iterations, -1);
  lsim_solver_free(s);
  lsim_siconos_free(en), lsim_siconos_free(nb), lsim_siconos_free(pg);
}

/* Warm start: PGS started from the solution needs (almost) no sweeps; a cold start
 * ignores garbage in z. */
static void test_warm_start(void **state) {
  (void)state;
  LsimLcp lcp;
  load("lcp_mmc.dat", &lcp);
  double *z = calloc((size_t)lcp.n, sizeof *z);
  LsimSiconos *s;
  assert_int_equal(lsim_siconos_create(&s, "pgs", NULL, 0), 0);
  int cold = -1, warm = -1;
  assert_int_equal(lsim_siconos_solve(s, &lcp, 1e-10, 0, 0, z, &cold), LSIM_SOLVED);
  assert_int_equal(lsim_siconos_solve(s, &lcp, 1e-10, 0, 1, z, &warm), LSIM_SOLVED);
  assert_true(warm <= 2 && warm < cold);
  for (int i = 0; i < lcp.n; ++i) z[i] = 1e300;
  int again = -1;
  assert_int_equal(lsim_siconos_solve(s, &lcp, 1e-10, 0, 0, z, &again), LSIM_SOLVED);
  assert_int_equal(again, cold);
  lsim_siconos_free(s);
  free(z);
  lsim_lcp_free(&lcp);
}

/* Solvers that return info 0 with a NaN z (newton_min on lcp_CPS_4, per the survey) give
 * LSIM_BREAKDOWN and a finite (zeroed) z. */
static void test_nonfinite_output(void **state) {
  (void)state;
  LsimLcp lcp;
  load("lcp_CPS_4.dat", &lcp);
  double z[4] = {1, 1, 1, 1};
  LsimSiconos *s;
  assert_int_equal(lsim_siconos_create(&s, "newton_min", NULL, 0), 0);
  int it;
  assert_int_equal(lsim_siconos_solve(s, &lcp, 1e-10, 0, 0, z, &it), LSIM_BREAKDOWN);
  for (int i = 0; i < 4; ++i) assert_true(z[i] == 0.0);
  assert_non_null(strstr(lsim_siconos_last_error(s), "non-finite"));
  lsim_siconos_free(s);
  lsim_lcp_free(&lcp);
}

/* A finite z that ran away is a breakdown, z zeroed, the message saying so with the figures
 * (as the frictional contact adapter does). At tol 1e-8, 1000 iterations: newton_min on
 * lcp_enum_fails returned info 2 with max |z| 2.2e13, relative natural residual 1.1e17
 * (was solver_failed, z kept); cpg on lcp_Pang_isolated_sol_perturbed info 3 with max |z|
 * 5e15, relative 5e15. The zeroed z's relative residual is exactly 1 (max(-q_i, 0) = max|q|
 * on both files: their most negative q has the largest magnitude). A budget stop that did
 * not run away stays one: convexqp_pg on M = diag(1, 0), q = (-1, -1) (tests/data/
 * lcp_zero_row.dat; no solution: w_2 = -1) ends at relative 6.5e2, above z = 0's 1 but far
 * below the bound 1e6. */
static void test_runaway_output(void **state) {
  (void)state;
  LsimLcp lcp;
  load("lcp_enum_fails.dat", &lcp);
  double z[9];
  LsimSiconos *s;
  assert_int_equal(lsim_siconos_create(&s, "newton_min", NULL, 0), 0);
  int it;
  assert_int_equal(lsim_siconos_solve(s, &lcp, 1e-8, 1000, 0, z, &it), LSIM_BREAKDOWN);
  for (int i = 0; i < lcp.n; ++i) assert_true(z[i] == 0.0);
  const char *msg = lsim_siconos_last_error(s);
  /* Where newton_min's iterates go after they leave depends on the BLAS kernel (Siconos'
     dense solves are OpenBLAS's, chosen by CPU): under Haswell a finite z of 2.21e13,
     under SkylakeX, Sandybridge and Prescott a non-finite one. Both are breakdowns with z
     zeroed; the figures are asserted where the run away is finite. */
  if (strstr(msg, "diverged")) {
    assert_non_null(strstr(msg, "siconos:newton_min diverged: max |z| "));
    assert_true(atof(strstr(msg, "max |z| ") + 8) > 1e6);
    assert_non_null(strstr(msg, "(bound 1e+06)"));
    assert_non_null(strstr(msg, "siconos info 2"));
  } else {
    assert_non_null(strstr(msg, "siconos:newton_min: returned a non-finite z"));
  }
  lsim_siconos_free(s);
  lsim_lcp_free(&lcp);

  /* Through the solver front: status, measures of the zeroed z, message. */
  load("lcp_Pang_isolated_sol_perturbed.dat", &lcp);
  LsimSolverOptions o = lsim_default_solver_options();
  o.tol = 1e-8, o.max_iter = 1000;
  LsimSolver *front;
  assert_int_equal(lsim_solver_create(&front, "siconos:cpg", &o, NULL, 0), 0);
  double *zp = calloc((size_t)lcp.n, sizeof *zp);
  LsimSolveStats st;
  /* cpg runs away to 5e15 under Haswell, Sandybridge and Prescott; under SkylakeX (and
     Cooperlake) it stops with info 3 at a finite point (relative 1e-4, below the bound):
     a failure it reports itself, z kept. The BLAS kernel decides which (see above). */
  const int cst = lsim_solver_solve(front, &lcp, zp, &st);
  assert_int_equal(st.status, cst);
  if (cst == LSIM_BREAKDOWN) {
    for (int i = 0; i < lcp.n; ++i) assert_true(zp[i] == 0.0);
    assert_true(fabs(st.residual.relative - 1.0) <= 1e-15); /* z = 0: exactly max|q| / max|q| */
    assert_non_null(strstr(lsim_solver_last_message(front), "siconos:cpg diverged: max |z| 5e+15"));
    assert_non_null(strstr(lsim_solver_last_message(front), "siconos info 3"));
  } else {
    assert_int_equal(cst, LSIM_SOLVER_FAILED);
    assert_true(st.residual.relative > 1e-8 && st.residual.relative < 1e6);
    assert_non_null(strstr(lsim_solver_last_message(front), "siconos:cpg: info 3"));
  }
  lsim_solver_free(front);
  free(zp);
  lsim_lcp_free(&lcp);

  double M[4] = {1, 0, 0, 0}, q[2] = {-1, -1}, zq[2] = {0, 0};
  LsimLcp zr;
  memset(&zr, 0, sizeof zr);
  zr.n = 2, zr.M = M, zr.q = q;
  assert_int_equal(lsim_solver_create(&front, "siconos:convexqp_pg", &o, NULL, 0), 0);
  assert_int_equal(lsim_solver_solve(front, &zr, zq, &st), LSIM_MAX_ITERATIONS);
  assert_true(st.residual.relative > 1e2 && st.residual.relative <= LSIM_SICONOS_DIVERGED_RELATIVE);
  lsim_solver_free(front);
}

/* ENUM is refused beyond its size limit (2^n cases) at once, not after minutes. */
static void test_enum_size_limit(void **state) {
  (void)state;
  LsimRng rng = lsim_rng(5);
  LsimLcp lcp;
  assert_int_equal(lsim_lcp_random_spd(&lcp, 40, &rng), 0);
  double z[40];
  LsimSiconos *s;
  assert_int_equal(lsim_siconos_create(&s, "enum", NULL, 0), 0);
  int it;
  assert_int_equal(lsim_siconos_solve(s, &lcp, 1e-10, 0, 0, z, &it), LSIM_SOLVER_FAILED);
  assert_non_null(strstr(lsim_siconos_last_error(s), "too large"));
  lsim_siconos_free(s);
  lsim_lcp_free(&lcp);
}

/* siconos:enum frees what it allocates: 4000 solves of a random SPD problem (n = 6, one
 * context, as a run's steps) leave the heap in use (lsim_test_heap_in_use) within 16 kB of
 * where it was. Siconos' lcp_enum never frees the state enum_init gives it, 32 bytes a
 * solve: 128000 bytes here before lcp/siconos_adapter.c freed it. (LeakSanitizer cannot
 * see it: tests/lsan.supp suppresses what libsiconos_numerics allocates.) */
static void test_enum_no_leak(void **state) {
  (void)state;
  if (!lsim_test_heap_checkable()) skip(); /* AddressSanitizer: mallinfo2 tells nothing */
  LsimRng rng = lsim_rng(7);
  LsimLcp lcp;
  assert_int_equal(lsim_lcp_random_spd(&lcp, 6, &rng), 0);
  double z[6];
  LsimSiconos *s;
  assert_int_equal(lsim_siconos_create(&s, "enum", NULL, 0), 0);
  int it;
  assert_int_equal(lsim_siconos_solve(s, &lcp, 1e-10, 0, 0, z, &it), LSIM_SOLVED);
  const size_t before = lsim_test_heap_in_use();
  for (int k = 0; k < 4000; ++k)
    assert_int_equal(lsim_siconos_solve(s, &lcp, 1e-10, 0, 0, z, &it), LSIM_SOLVED);
  const size_t after = lsim_test_heap_in_use();
  print_message("siconos:enum: heap in use %+ld bytes over 4000 solves\n",
                (long)after - (long)before);
  assert_true(after <= before + 16384);
  lsim_siconos_free(s);
  lsim_lcp_free(&lcp);
}

/* A problem with failures: Lemke ends on a secondary ray on lcp_CPS_3; reported, no crash. */
static void test_reported_failure(void **state) {
  (void)state;
  LsimLcp lcp;
  load("lcp_CPS_3.dat", &lcp);
  double z[4];
  LsimSiconos *s;
  assert_int_equal(lsim_siconos_create(&s, "lemke", NULL, 0), 0);
  int it;
  assert_int_equal(lsim_siconos_solve(s, &lcp, 1e-10, 0, 0, z, &it), LSIM_SOLVER_FAILED);
  assert_non_null(strstr(lsim_siconos_last_error(s), "info"));
  lsim_siconos_free(s);
  lsim_lcp_free(&lcp);
}

/* Two threads, each with its own context, solving with siconos:psor (which prints on every
 * call, captured) 5000 times (0.1 s): afterwards fds 1 and 2 are the files they were (the same
 * device and inode), and each context kept PSOR's text of its last call. The capture
 * redirects the process's fds, so the calls are serialized; before, the second thread
 * saved the first one's capture file as "stdout" and restored it, and the process's
 * stdout and stderr ended in a deleted temporary file. */
typedef struct ThreadJob {
  const LsimLcp *lcp;
  int solved;
  char output[256];
} ThreadJob;

static void *psor_thread(void *arg) {
  ThreadJob *job = arg;
  LsimSiconos *s;
  if (lsim_siconos_create(&s, "psor", NULL, 0)) return NULL;
  double z[64];
  int it;
  for (int k = 0; k < 5000; ++k)
    job->solved += lsim_siconos_solve(s, job->lcp, 1e-10, 0, 0, z, &it) == LSIM_SOLVED;
  snprintf(job->output, sizeof job->output, "%s", lsim_siconos_last_output(s));
  lsim_siconos_free(s);
  return NULL;
}

static void test_threads_capture(void **state) {
  (void)state;
  LsimLcp lcp;
  load("lcp_deudeu.dat", &lcp);
  struct stat before[2], after[2];
  assert_int_equal(fstat(STDOUT_FILENO, &before[0]), 0);
  assert_int_equal(fstat(STDERR_FILENO, &before[1]), 0);
  ThreadJob jobs[2] = {{&lcp, 0, ""}, {&lcp, 0, ""}};
  pthread_t th[2];
  for (int i = 0; i < 2; ++i) assert_int_equal(pthread_create(&th[i], NULL, psor_thread, &jobs[i]), 0);
  for (int i = 0; i < 2; ++i) pthread_join(th[i], NULL);
  assert_int_equal(fstat(STDOUT_FILENO, &after[0]), 0);
  assert_int_equal(fstat(STDERR_FILENO, &after[1]), 0);
  for (int k = 0; k < 2; ++k) {
    assert_true(before[k].st_dev == after[k].st_dev && before[k].st_ino == after[k].st_ino);
    assert_int_equal(jobs[k].solved, 5000);
    assert_non_null(strstr(jobs[k].output, "omega"));
  }
  lsim_lcp_free(&lcp);
}

/* A Siconos success is checked on the common residual: M = 0, q = (-1, 1, -1) has no
 * solution (w_1 = -1 whatever z), yet convexqp_pg returns info 0 with z of order 1e16
 * (the adapter alone says solved). Through the solver front the status is solver_failed,
 * the message says why, and the relative natural residual is 1 (w_1 = -1, max|q| = 1;
 * 1e-12: one rounding). A solve that meets the tolerance stays solved (lcp_deudeu by
 * siconos:lemke). */
static void test_success_verified(void **state) {
  (void)state;
  double M[9] = {0}, q[3] = {-1, 1, -1}, z[3] = {0, 0, 0};
  LsimLcp lcp;
  memset(&lcp, 0, sizeof lcp);
  lcp.n = 3, lcp.M = M, lcp.q = q;
  LsimSiconos *s;
  assert_int_equal(lsim_siconos_create(&s, "convexqp_pg", NULL, 0), 0);
  int it;
  assert_int_equal(lsim_siconos_solve(s, &lcp, 1e-10, 0, 0, z, &it), LSIM_SOLVED);
  lsim_siconos_free(s);
  LsimSolver *front;
  LsimSolverOptions o = lsim_default_solver_options();
  assert_int_equal(lsim_solver_create(&front, "siconos:convexqp_pg", &o, NULL, 0), 0);
  LsimSolveStats st;
  memset(z, 0, sizeof z);
  assert_int_equal(lsim_solver_solve(front, &lcp, z, &st), LSIM_SOLVER_FAILED);
  assert_int_equal(st.status, LSIM_SOLVER_FAILED);
  assert_true(fabs(st.residual.relative - 1.0) <= 1e-12);
  assert_non_null(strstr(lsim_solver_last_message(front), "reported success at a relative"));
  lsim_solver_free(front);
  LsimLcp deudeu;
  load("lcp_deudeu.dat", &deudeu);
  double zd[64];
  assert_int_equal(lsim_solver_create(&front, "siconos:lemke", &o, NULL, 0), 0);
  assert_int_equal(lsim_solver_solve(front, &deudeu, zd, &st), LSIM_SOLVED);
  assert_string_equal(lsim_solver_last_message(front), "");
  lsim_solver_free(front);
  lsim_lcp_free(&deudeu);
}

/* lsim_siconos_error: ~0 at the solution, positive at z = 0, z left unchanged, -1 when
 * it cannot say. */
/* A failed assert inside Siconos (pivot_lumod on lcp_tobenna.dat: "bck_drive >= 0") calls
 * abort(): the adapter traps it, the solve fails with a message saying so, and the same
 * context then solves another problem exactly (the options are re-created). */
static void test_abort_trapped(void **state) {
  (void)state;
  LsimLcp bad, good;
  load("lcp_tobenna.dat", &bad);
  load("lcp_deudeu.dat", &good);
  LsimSiconos *s;
  assert_int_equal(lsim_siconos_create(&s, "pivot_lumod", NULL, 0), 0);
  double *z = calloc((size_t)bad.n, sizeof *z), w[2];
  int it;
  /* Whether pivot_lumod reaches its failed assertion depends on the BLAS kernel: it does
     under Haswell, SkylakeX and Sandybridge; under Prescott it runs to its budget of 10000
     iterations instead (a failure as well, no abort to trap). */
  const int st = lsim_siconos_solve(s, &bad, 1e-12, 0, 0, z, &it);
  if (st == LSIM_SOLVER_FAILED) {
    assert_non_null(strstr(lsim_siconos_last_error(s), "aborted inside Siconos"));
  } else {
    assert_int_equal(st, LSIM_MAX_ITERATIONS);
    assert_non_null(strstr(lsim_siconos_last_error(s), "stopped at its iteration budget"));
  }
  for (int i = 0; i < bad.n; ++i) assert_true(isfinite(z[i]));
  assert_int_equal(lsim_siconos_solve(s, &good, 1e-12, 0, 0, z, &it), LSIM_SOLVED);
  /* lcp_deudeu's unique solution is solved by pivoting to round-off. */
  assert_true(lsim_siconos_error(&good, z, w) < 1e-12);
  free(z);
  lsim_siconos_free(s);
  lsim_lcp_free(&bad);
  lsim_lcp_free(&good);
}

static void test_siconos_error(void **state) {
  (void)state;
  LsimLcp lcp;
  load("lcp_deudeu.dat", &lcp);
  double z[2], w[2], zc[2];
  LsimSiconos *s;
  assert_int_equal(lsim_siconos_create(&s, "lemke", NULL, 0), 0);
  int it;
  assert_int_equal(lsim_siconos_solve(s, &lcp, 1e-12, 0, 0, z, &it), LSIM_SOLVED);
  memcpy(zc, z, sizeof z);
  double e = lsim_siconos_error(&lcp, z, w);
  assert_true(e >= 0.0 && e < 1e-12);
  assert_memory_equal(z, zc, sizeof z);
  double zero[2] = {0, 0};
  assert_true(lsim_siconos_error(&lcp, zero, w) > 0.1);
  LsimLcp empty = {0};
  assert_true(lsim_siconos_error(&empty, z, w) == -1.0);
  lsim_siconos_free(s);
  lsim_lcp_free(&lcp);
}

/* Points file descriptor fd at a fresh temporary file (its stream flushed first); returns
 * the saved descriptor for sink_close. */
static int sink_open(int fd, FILE *stream, FILE **sink) {
  fflush(stream);
  *sink = tmpfile();
  assert_non_null(*sink);
  const int saved = dup(fd);
  assert_true(saved >= 0);
  assert_true(dup2(fileno(*sink), fd) >= 0);
  return saved;
}

/* Puts fd back (saved from sink_open) and returns the bytes written to the sink. */
static long sink_close(int fd, FILE *stream, int saved, FILE *sink) {
  fflush(stream);
  assert_true(dup2(saved, fd) >= 0);
  close(saved);
  fseek(sink, 0, SEEK_END);
  const long printed = ftell(sink);
  fclose(sink);
  return printed;
}

/* Siconos' own printing never reaches stdout: PSOR always prints "Warning : omega ... is
 * not used", LATIN "Matter with Cholesky Factorization" on a matrix that is not positive
 * definite. With stdout pointed at a file of the test's, each solve leaves that file
 * empty, and the text comes back from lsim_siconos_last_output; a solver that printed
 * nothing gives "" (Siconos' Lemke on lcp_deudeu), as does the next, quiet solve of the
 * same context (LATIN on lcp_deudeu). The front end reports it in its message. */
static void test_output_captured(void **state) {
  (void)state;
  LsimLcp deudeu, murty;
  load("lcp_deudeu.dat", &deudeu);
  load("lcp_exp_murty.dat", &murty);
  FILE *sink;
  const int saved = sink_open(STDOUT_FILENO, stdout, &sink);
  double z[64];
  int it;
  LsimSiconos *psor, *latin, *lemke;
  assert_int_equal(lsim_siconos_create(&psor, "psor", NULL, 0), 0);
  assert_int_equal(lsim_siconos_create(&latin, "latin", NULL, 0), 0);
  assert_int_equal(lsim_siconos_create(&lemke, "lemke", NULL, 0), 0);
  (void)lsim_siconos_solve(psor, &deudeu, 1e-10, 0, 0, z, &it);
  char psor_out[1024], latin_out[1024];
  snprintf(psor_out, sizeof psor_out, "%s", lsim_siconos_last_output(psor));
  (void)lsim_siconos_solve(latin, &murty, 1e-10, 0, 0, z, &it);
  snprintf(latin_out, sizeof latin_out, "%s", lsim_siconos_last_output(latin));
  assert_int_equal(lsim_siconos_solve(lemke, &deudeu, 1e-12, 0, 0, z, &it), LSIM_SOLVED);
  const int lemke_quiet = lsim_siconos_last_output(lemke)[0] == '\0';
  LsimSolver *front;
  LsimSolverOptions o = lsim_default_solver_options();
  assert_int_equal(lsim_solver_create(&front, "siconos:psor", &o, NULL, 0), 0);
  (void)lsim_solver_solve(front, &deudeu, z, NULL);
  char message[1400];
  snprintf(message, sizeof message, "%s", lsim_solver_last_message(front));
  const long printed = sink_close(STDOUT_FILENO, stdout, saved, sink);
  assert_int_equal(printed, 0);
  assert_non_null(strstr(psor_out, "omega"));
  assert_non_null(strstr(latin_out, "Cholesky"));
  assert_true(lemke_quiet);
  assert_non_null(strstr(message, "printed: Warning : omega"));
  /* The next solve of a context starts afresh: LATIN prints nothing on lcp_deudeu. */
  assert_int_equal(lsim_siconos_solve(latin, &deudeu, 1e-10, 0, 0, z, &it), LSIM_SOLVED);
  assert_string_equal(lsim_siconos_last_output(latin), "");
  lsim_solver_free(front);
  lsim_siconos_free(psor);
  lsim_siconos_free(latin);
  lsim_siconos_free(lemke);
  lsim_lcp_free(&deudeu);
  lsim_lcp_free(&murty);
}

/* Siconos' stderr is captured like its stdout: Newton-min-FBLSA prints "NM_LU_factorize:
 * LU factorisation DGETRF failed ..." with fprintf(stderr) on a singular Jacobian. The
 * problem is tests/data/lcp_zero_row.dat, M = [1 0; 0 0], q = (-1, -1) (no solution: w_2 =
 * -1 always): at z = 0 row 2 of the min function's Jacobian is M's zero row, and a zero row
 * stays exactly zero through any LU, so every LAPACK reports it (on the 3-D stack's step
 * lemke_stack_ray.dat, Newton-FB's singular pivot came out of round-off, and OpenBLAS's
 * kernels on some CPUs did not reproduce it). With fd 2 pointed at a file of the test's,
 * the solve leaves that file empty and the text comes back from lsim_siconos_last_output
 * and lsim_solver_last_output. */
static void test_stderr_captured(void **state) {
  (void)state;
  LsimLcp zero_row;
  char err[256];
  assert_int_equal(lsim_dat_read("tests/data/lcp_zero_row.dat", &zero_row, err, sizeof err), 0);
  FILE *sink;
  const int saved = sink_open(STDERR_FILENO, stderr, &sink);
  double *z = calloc((size_t)zero_row.n, sizeof *z);
  assert_non_null(z);
  int it;
  LsimSiconos *fb;
  assert_int_equal(lsim_siconos_create(&fb, "newton_min_fblsa", NULL, 0), 0);
  (void)lsim_siconos_solve(fb, &zero_row, 1e-10, 0, 0, z, &it);
  char fb_out[1024];
  snprintf(fb_out, sizeof fb_out, "%s", lsim_siconos_last_output(fb));
  LsimSolver *front;
  LsimSolverOptions o = lsim_default_solver_options();
  assert_int_equal(lsim_solver_create(&front, "siconos:newton_min_fblsa", &o, NULL, 0), 0);
  (void)lsim_solver_solve(front, &zero_row, z, NULL);
  char front_out[1024];
  snprintf(front_out, sizeof front_out, "%s", lsim_solver_last_output(front));
  const long printed = sink_close(STDERR_FILENO, stderr, saved, sink);
  assert_int_equal(printed, 0);
  assert_non_null(strstr(fb_out, "NM_LU_factorize: LU factorisation DGETRF failed"));
  assert_non_null(strstr(front_out, "DGETRF failed"));
  lsim_solver_free(front);
  lsim_siconos_free(fb);
  free(z);
  lsim_lcp_free(&zero_row);
}

/* n = 0 and a NULL free are harmless. */
static void test_edge_cases(void **state) {
  (void)state;
  lsim_siconos_free(NULL);
  LsimSiconos *s;
  assert_int_equal(lsim_siconos_create(&s, "pgs", NULL, 0), 0);
  LsimLcp empty;
  assert_int_equal(lsim_lcp_init(&empty, 0), 0);
  double z[1];
  int it = -1;
  assert_int_equal(lsim_siconos_solve(s, &empty, 1e-10, 0, 0, z, &it), LSIM_SOLVED);
  assert_int_equal(it, 0);
  lsim_lcp_free(&empty);
  lsim_siconos_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_each_accepted_solver),
      cmocka_unit_test(test_trivial_solution_value),
      cmocka_unit_test(test_refused_names),
      cmocka_unit_test(test_fatal_error_trapped),
      cmocka_unit_test(test_iterations_fresh),
      cmocka_unit_test(test_max_iter),
      cmocka_unit_test(test_uncounted_solvers),
      cmocka_unit_test(test_warm_start),
      cmocka_unit_test(test_nonfinite_output),
      cmocka_unit_test(test_runaway_output),
      cmocka_unit_test(test_enum_size_limit),
      cmocka_unit_test(test_enum_no_leak),
      cmocka_unit_test(test_reported_failure),   cmocka_unit_test(test_success_verified),
      cmocka_unit_test(test_threads_capture),
      cmocka_unit_test(test_siconos_error),
      cmocka_unit_test(test_abort_trapped),
      cmocka_unit_test(test_output_captured),
      cmocka_unit_test(test_stderr_captured),
      cmocka_unit_test(test_edge_cases),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
