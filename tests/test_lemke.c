/* test_lemke.c: Lemke's method on the Siconos test problems, random problems of known
 * classes, warm starts, limits and bad input. The .dat files are read with Siconos' own
 * reader (dense files only; the *_block files belong to the .dat reader's table test). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "LinearComplementarityProblem.h"
#include "NumericsMatrix.h"

#include "lcp/datfile.h"
#include "lcp/lemke.h"
#include "lcp/random.h"
#include "tests/support.h"

/* The acceptance level of every solved problem: the brief asks 1e-10 relative. */
#define RES_TOL 1e-10

/* Loads data/siconos-lcp/lcp_NAME.dat into lcp (dense storage). */
static void load_dat(const char *name, LsimLcp *lcp) {
  char rel[128], path[512];
  snprintf(rel, sizeof rel, "data/siconos-lcp/lcp_%s.dat", name);
  lsim_test_shared_path(rel, path, sizeof path);
  FILE *f = fopen(path, "r");
  if (!f) print_error("cannot open %s (set LSIM_SHARED)\n", path);
  assert_non_null(f);
  fclose(f);
  LinearComplementarityProblem *prob = newLCP();
  assert_non_null(prob);
  /* Siconos 4.4 returns 1 on success despite its "0 if ok" doc: check the result instead. */
  (void)linearComplementarity_newFromFilename(prob, path);
  assert_true(prob->size > 0);
  assert_non_null(prob->M);
  assert_non_null(prob->M->matrix0);
  const int n = prob->size;
  assert_int_equal(lsim_lcp_init(lcp, n), 0);
  memcpy(lcp->M, prob->M->matrix0, (size_t)n * n * sizeof(double));
  memcpy(lcp->q, prob->q, (size_t)n * sizeof(double));
  freeLinearComplementarityProblem(prob);
}

/* Solves and returns the status; *rel gets the relative natural residual of z. */
static int solve(LsimLemke *ws, const LsimLcp *lcp, const LsimLemkeOptions *o,
                 const unsigned char *guess, double *z, LsimLemkeInfo *info, double *rel) {
  int st = lsim_lemke_solve(ws, lcp, o, guess, z, info);
  double *w = malloc(((size_t)lcp->n + 1) * sizeof(double));
  LsimResidual res;
  lsim_lcp_residual(lcp, z, w, &res);
  free(w);
  *rel = res.relative;
  return st;
}

static int all_finite(const double *z, int n) {
  for (int i = 0; i < n; ++i)
    if (!isfinite(z[i])) return 0;
  return 1;
}

/* Every dense Siconos file. Expected: solved with relative residual <= 1e-10, except
 * CPS_3 (a bimatrix game: secondary ray) and Pang_isolated_sol_perturbed (Siconos' Lemke
 * fails there too; we accept a ray or a true solution). Pivot counts are exact where the
 * path is forced: trivial (diagonal M) takes z0 in, then one pivot per z_i = 1 + 9. */
static void test_siconos_files(void **state) {
  (void)state;
  static const struct {
    const char *name;
    int status;   /* expected; 1 = solved or secondary ray */
    int pivots;   /* exact count, or -1 when not asserted */
  } cases[] = {
      {"CPS_1", LSIM_SOLVED, -1},       {"CPS_2", LSIM_SOLVED, -1},
      {"CPS_3", LSIM_SECONDARY_RAY, 0}, {"CPS_4", LSIM_SOLVED, -1},
      {"CPS_4bis", LSIM_SOLVED, -1},    {"CPS_5", LSIM_SOLVED, -1},
      {"Pang_isolated_sol", LSIM_SOLVED, -1},
      {"Pang_isolated_sol_perturbed", 1, -1},
      {"deudeu", LSIM_SOLVED, -1},      {"enum_fails", LSIM_SOLVED, -1},
      {"exp_murty", LSIM_SOLVED, -1},   {"exp_murty2", LSIM_SOLVED, 63},
      {"inf_sol_perturbed", LSIM_SOLVED, -1},
      {"mmc", LSIM_SOLVED, -1},         {"ortiz", LSIM_SOLVED, -1},
      {"tobenna", LSIM_SOLVED, -1},     {"trivial", LSIM_SOLVED, 9},
  };
  LsimLemke *ws = lsim_lemke_create();
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    LsimLcp lcp;
    load_dat(cases[c].name, &lcp);
    double *z = calloc((size_t)lcp.n, sizeof(double));
    LsimLemkeInfo info = {0};
    double rel;
    int st = solve(ws, &lcp, NULL, NULL, z, &info, &rel);
    print_message("%-28s n=%2d %-14s pivots=%3d rel=%.2e\n", cases[c].name, lcp.n,
                  lsim_status_name(st), info.pivots, rel);
    assert_int_equal(st, info.status);
    assert_true(all_finite(z, lcp.n));
    if (cases[c].status == 1)
      assert_true(st == LSIM_SECONDARY_RAY || (st == LSIM_SOLVED && rel <= RES_TOL));
    else
      assert_int_equal(st, cases[c].status);
    if (st == LSIM_SOLVED) {
      assert_true(rel <= RES_TOL);
      assert_non_null(lsim_lemke_basis(ws));
    } else {
      assert_null(lsim_lemke_basis(ws));
    }
    if (cases[c].pivots >= 0) assert_int_equal(info.pivots, cases[c].pivots);
    free(z);
    lsim_lcp_free(&lcp);
  }
  lsim_lemke_free(ws);
}

/* Murty's exponential example: 2^6 - 1 = 63 pivots after the artificial variable enters
 * (the lemke.h convention, also Siconos' ITER_DONE on the same path). The trace holds z0
 * after each of the 64 exchanges: -min q = 126 after the first, 0 after the last (exact:
 * small integer data). */
static void test_murty_exponential(void **state) {
  (void)state;
  LsimLcp lcp;
  load_dat("exp_murty2", &lcp);
  LsimLemke *ws = lsim_lemke_create();
  double z[6], trace[100];
  LsimLemkeInfo info = {0};
  info.trace = trace;
  info.trace_capacity = 100;
  double rel;
  assert_int_equal(solve(ws, &lcp, NULL, NULL, z, &info, &rel), LSIM_SOLVED);
  assert_int_equal(info.pivots, 63);
  assert_int_equal(info.trace_len, 64);
  assert_true(trace[0] == 126.0);
  assert_true(trace[63] == 0.0);
  assert_true(rel <= RES_TOL);
  /* A trace shorter than the run stops at its capacity. */
  info.trace_capacity = 5;
  assert_int_equal(solve(ws, &lcp, NULL, NULL, z, &info, &rel), LSIM_SOLVED);
  assert_int_equal(info.trace_len, 5);
  lsim_lemke_free(ws);
  lsim_lcp_free(&lcp);
}

/* tobenna: 40 variables, 32 zeros in q: cycles without the lexicographic rule. */
static void test_tobenna_degenerate(void **state) {
  (void)state;
  LsimLcp lcp;
  load_dat("tobenna", &lcp);
  LsimLemke *ws = lsim_lemke_create();
  double z[40];
  LsimLemkeInfo info = {0};
  double rel;
  assert_int_equal(solve(ws, &lcp, NULL, NULL, z, &info, &rel), LSIM_SOLVED);
  assert_true(rel <= RES_TOL);
  /* A cycling run would hit the default limit 10 * 41 + 100. */
  assert_true(info.pivots < 510);
  lsim_lemke_free(ws);
  lsim_lcp_free(&lcp);
}

/* tobenna under symmetric permutations P M P', P q and positive diagonal scalings D M D, D q
 * (the same LCP in other coordinates): the lexicographic order and the rounding change, the
 * answer must not. Before the tie tolerance followed rounding, some orders cycled. */
static void test_tobenna_permuted(void **state) {
  (void)state;
  LsimLcp base, lcp;
  load_dat("tobenna", &base);
  const int n = base.n;
  assert_int_equal(lsim_lcp_init(&lcp, n), 0);
  LsimLemke *ws = lsim_lemke_create();
  int perm[40], worst = 0;
  double dsc[40], z[40];
  for (int trial = 0; trial < 300; ++trial) {
    LsimRng rng = lsim_rng(2000u + (unsigned)trial);
    for (int i = 0; i < n; ++i) perm[i] = i;
    for (int i = n - 1; i > 0; --i) {
      int j = (int)(lsim_rng_uniform(&rng) * (i + 1)), t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
    }
    for (int i = 0; i < n; ++i) dsc[i] = trial % 2 ? exp(lsim_rng_range(&rng, -3.0, 3.0)) : 1.0;
    for (int i = 0; i < n; ++i) {
      lcp.q[i] = dsc[i] * base.q[perm[i]];
      for (int j = 0; j < n; ++j)
        lcp.M[i + j * n] = dsc[i] * dsc[j] * base.M[perm[i] + perm[j] * n];
    }
    LsimLemkeInfo info = {0};
    double rel;
    int st = solve(ws, &lcp, NULL, NULL, z, &info, &rel);
    if (st != LSIM_SOLVED || rel > RES_TOL)
      print_error("trial %d: %s pivots %d rel %.2e\n", trial, lsim_status_name(st), info.pivots,
                  rel);
    assert_int_equal(st, LSIM_SOLVED);
    assert_true(rel <= RES_TOL);
    worst = info.pivots > worst ? info.pivots : worst;
  }
  print_message("tobenna permuted: 300 solved, at most %d pivots\n", worst);
  lsim_lemke_free(ws);
  lsim_lcp_free(&lcp);
  lsim_lcp_free(&base);
}

/* Hand-checked: M = diag(1, 2, 3), q = -e: z = (1, 1/2, 1/3) to rounding (one division,
 * so within 1 ulp); 3 pivots after z0 enters (z3, z2, z1 in that order). */
static void test_diagonal_by_hand(void **state) {
  (void)state;
  LsimLcp lcp;
  assert_int_equal(lsim_lcp_init(&lcp, 3), 0);
  for (int i = 0; i < 3; ++i) {
    lcp.M[i + 3 * i] = i + 1;
    lcp.q[i] = -1.0;
  }
  LsimLemke *ws = lsim_lemke_create();
  double z[3];
  LsimLemkeInfo info = {0};
  assert_int_equal(lsim_lemke_solve(ws, &lcp, NULL, NULL, z, &info), LSIM_SOLVED);
  for (int i = 0; i < 3; ++i) assert_true(fabs(z[i] - 1.0 / (i + 1)) <= 1e-16);
  assert_int_equal(info.pivots, 3);
  const unsigned char *b = lsim_lemke_basis(ws);
  assert_non_null(b);
  for (int i = 0; i < 3; ++i) assert_int_equal(b[i], 1);
  lsim_lemke_free(ws);
  lsim_lcp_free(&lcp);
}

/* Random SPD (unique solution), n up to 500: solved to 1e-10 relative. */
static void test_random_spd(void **state) {
  (void)state;
  static const int sizes[] = {1, 2, 3, 5, 10, 20, 50, 100, 200, 500};
  LsimLemke *ws = lsim_lemke_create();
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
    for (int seed = 0; seed < (sizes[s] >= 200 ? 1 : 5); ++seed) {
      LsimRng rng = lsim_rng(100u * (unsigned)sizes[s] + (unsigned)seed);
      LsimLcp lcp;
      assert_int_equal(lsim_lcp_random_spd(&lcp, sizes[s], &rng), 0);
      double *z = malloc((size_t)lcp.n * sizeof(double));
      LsimLemkeInfo info = {0};
      double rel;
      assert_int_equal(solve(ws, &lcp, NULL, NULL, z, &info, &rel), LSIM_SOLVED);
      assert_true(rel <= RES_TOL);
      free(z);
      lsim_lcp_free(&lcp);
    }
  lsim_lemke_free(ws);
}

/* Random P-matrices (unique solution) and solvable PSD problems: all solved. */
static void test_random_pmatrix_psd(void **state) {
  (void)state;
  LsimLemke *ws = lsim_lemke_create();
  for (int seed = 0; seed < 30; ++seed) {
    const int n = 3 + 7 * seed;
    for (int kind = 0; kind < 2; ++kind) {
      LsimRng rng = lsim_rng(7000u + 10u * (unsigned)seed + (unsigned)kind);
      LsimLcp lcp;
      if (kind == 0)
        assert_int_equal(lsim_lcp_random_pmatrix(&lcp, n, &rng), 0);
      else
        assert_int_equal(lsim_lcp_random_psd(&lcp, n, 1 + n / 3, &rng), 0);
      double *z = malloc((size_t)n * sizeof(double));
      LsimLemkeInfo info = {0};
      double rel;
      int st = solve(ws, &lcp, NULL, NULL, z, &info, &rel);
      if (st != LSIM_SOLVED || rel > RES_TOL)
        print_error("kind %d seed %d n %d: %s rel %.2e\n", kind, seed, n,
                    lsim_status_name(st), rel);
      assert_int_equal(st, LSIM_SOLVED);
      assert_true(rel <= RES_TOL);
      free(z);
      lsim_lcp_free(&lcp);
    }
  }
  lsim_lemke_free(ws);
}

/* Stewart-Trinkle contact LCPs are copositive-plus and feasible: Lemke with d = e must solve
 * every one (a failure is a pivoting or tolerance bug). nc 5..40, d = 4, m = 6 nbodies,
 * frictionless and with friction; the larger ones take > 100 pivots, so the periodic
 * refactorization is exercised. */
static void test_random_contact(void **state) {
  (void)state;
  LsimLemke *ws = lsim_lemke_create();
  int count = 0, max_pivots = 0;
  for (int nc = 5; nc <= 40; nc += 5)
    for (int nbodies = 1; nbodies <= 8; nbodies *= 2)
      for (int k = 0; k < 3; ++k) {
        const double mu = k == 0 ? 0.0 : 0.3 * k;
        LsimRng rng = lsim_rng(90000u + 100u * (unsigned)nc + 10u * (unsigned)nbodies + (unsigned)k);
        LsimLcp lcp;
        assert_int_equal(lsim_lcp_random_contact(&lcp, nc, 4, 6 * nbodies, mu, &rng), 0);
        double *z = malloc((size_t)lcp.n * sizeof(double));
        LsimLemkeInfo info = {0};
        double rel;
        int st = solve(ws, &lcp, NULL, NULL, z, &info, &rel);
        if (st != LSIM_SOLVED || rel > RES_TOL)
          print_error("nc %d nbodies %d mu %g: %s pivots %d rel %.2e\n", nc, nbodies, mu,
                      lsim_status_name(st), info.pivots, rel);
        assert_int_equal(st, LSIM_SOLVED);
        assert_true(rel <= RES_TOL);
        max_pivots = info.pivots > max_pivots ? info.pivots : max_pivots;
        ++count;
        free(z);
        lsim_lcp_free(&lcp);
      }
  print_message("contact: %d problems solved, at most %d pivots\n", count, max_pivots);
  assert_true(max_pivots > 100); /* the refactorization did run at least once */
  lsim_lemke_free(ws);
}

/* Degenerate SPD problems, tobenna-style: half of q is exactly zero. Unique solution;
 * the lexicographic rule must get through the ties. */
static void test_random_degenerate(void **state) {
  (void)state;
  LsimLemke *ws = lsim_lemke_create();
  for (int seed = 0; seed < 20; ++seed) {
    const int n = 10 + 10 * seed;
    LsimRng rng = lsim_rng(31337u + (unsigned)seed);
    LsimLcp lcp;
    assert_int_equal(lsim_lcp_random_spd(&lcp, n, &rng), 0);
    for (int i = 0; i < n; i += 2) lcp.q[i] = 0.0;
    for (int i = 1; i < n; i += 4) lcp.q[i] = -1.0; /* exact ties for the first pivot */
    double *z = malloc((size_t)n * sizeof(double));
    LsimLemkeInfo info = {0};
    double rel;
    assert_int_equal(solve(ws, &lcp, NULL, NULL, z, &info, &rel), LSIM_SOLVED);
    assert_true(rel <= RES_TOL);
    free(z);
    lsim_lcp_free(&lcp);
  }
  lsim_lemke_free(ws);
}

/* Warm start: SPD n = 100 solved cold, q perturbed by 1e-6 relative, re-solved from the
 * previous basis (passed straight from lsim_lemke_basis, which the solver must copy before
 * it overwrites it). The active set does not change for so small a perturbation unless a
 * component is within 1e-6 of degenerate; we allow 3 pivots. z agrees with a cold solve of
 * the perturbed problem to 1e-8 (both are exact basic solutions of the same basis,
 * rounding ~1e-14 times the condition ~1e2). */
static void test_warm_start_perturbed(void **state) {
  (void)state;
  const int n = 100;
  LsimRng rng = lsim_rng(4242);
  LsimLcp lcp;
  assert_int_equal(lsim_lcp_random_spd(&lcp, n, &rng), 0);
  LsimLemke *ws = lsim_lemke_create();
  double z[100], zc[100];
  LsimLemkeInfo cold = {0}, warm = {0}, cold2 = {0};
  double rel;
  assert_int_equal(solve(ws, &lcp, NULL, NULL, z, &cold, &rel), LSIM_SOLVED);
  for (int i = 0; i < n; ++i) lcp.q[i] *= 1.0 + 1e-6 * lsim_rng_range(&rng, -1.0, 1.0);
  assert_int_equal(solve(ws, &lcp, NULL, lsim_lemke_basis(ws), z, &warm, &rel), LSIM_SOLVED);
  assert_true(rel <= RES_TOL);
  assert_int_equal(warm.warm_started, 1);
  assert_int_equal(warm.restarts, 0);
  assert_true(warm.pivots <= 3);
  LsimLemke *ws2 = lsim_lemke_create();
  assert_int_equal(solve(ws2, &lcp, NULL, NULL, zc, &cold2, &rel), LSIM_SOLVED);
  print_message("warm start: cold %d pivots, warm %d pivots, cold (perturbed) %d\n",
                cold.pivots, warm.pivots, cold2.pivots);
  assert_true(cold2.pivots > 10 * (warm.pivots + 1));
  assert_true(lsim_test_max_abs_diff(z, zc, n) <= 1e-8);
  lsim_lemke_free(ws2);
  lsim_lemke_free(ws);
  lsim_lcp_free(&lcp);
}

/* A guess that is the exact final basis: 0 pivots, warm_started, the same z bit for bit
 * up to the refactorization's rounding (1e-12 absolute: z = O(1), cond ~1e2). */
static void test_warm_start_exact_basis(void **state) {
  (void)state;
  const int n = 60;
  LsimRng rng = lsim_rng(77);
  LsimLcp lcp;
  assert_int_equal(lsim_lcp_random_pmatrix(&lcp, n, &rng), 0);
  LsimLemke *ws = lsim_lemke_create();
  double z[60], z2[60];
  unsigned char basis[60];
  LsimLemkeInfo info = {0};
  double rel;
  assert_int_equal(solve(ws, &lcp, NULL, NULL, z, &info, &rel), LSIM_SOLVED);
  memcpy(basis, lsim_lemke_basis(ws), n);
  assert_int_equal(solve(ws, &lcp, NULL, basis, z2, &info, &rel), LSIM_SOLVED);
  assert_int_equal(info.pivots, 0);
  assert_int_equal(info.warm_started, 1);
  assert_true(lsim_test_max_abs_diff(z, z2, n) <= 1e-12);
  assert_memory_equal(basis, lsim_lemke_basis(ws), n);
  lsim_lemke_free(ws);
  lsim_lcp_free(&lcp);
}

/* Infeasible guesses still end solved: all-z guess on an SPD problem with mixed-sign q
 * (M^{-1}(-q) has negative entries), and on a contact problem, where guessing every
 * lambda basic makes M_GG singular (its lambda block is zero) and forces the cold restart. */
static void test_warm_start_bad_guess(void **state) {
  (void)state;
  LsimLemke *ws = lsim_lemke_create();
  {
    const int n = 80;
    LsimRng rng = lsim_rng(99);
    LsimLcp lcp;
    assert_int_equal(lsim_lcp_random_spd(&lcp, n, &rng), 0);
    unsigned char guess[80];
    memset(guess, 1, sizeof guess);
    double z[80];
    LsimLemkeInfo info = {0};
    double rel;
    assert_int_equal(solve(ws, &lcp, NULL, guess, z, &info, &rel), LSIM_SOLVED);
    assert_true(rel <= RES_TOL);
    assert_true(info.pivots > 0);
    print_message("all-z guess: %d pivots, warm_started %d, restarts %d\n", info.pivots,
                  info.warm_started, info.restarts);
    lsim_lcp_free(&lcp);
  }
  {
    const int nc = 10, d = 4;
    LsimRng rng = lsim_rng(123);
    LsimLcp lcp;
    assert_int_equal(lsim_lcp_random_contact(&lcp, nc, d, 12, 0.5, &rng), 0);
    const int n = lcp.n;
    unsigned char *guess = calloc((size_t)n, 1);
    for (int c = 0; c < nc; ++c) guess[nc * (d + 1) + c] = 1; /* every lambda basic */
    double *z = malloc((size_t)n * sizeof(double));
    LsimLemkeInfo info = {0};
    double rel;
    assert_int_equal(solve(ws, &lcp, NULL, guess, z, &info, &rel), LSIM_SOLVED);
    assert_true(rel <= RES_TOL);
    assert_int_equal(info.restarts, 1);
    assert_int_equal(info.warm_started, 0);
    free(z);
    free(guess);
    lsim_lcp_free(&lcp);
  }
  lsim_lemke_free(ws);
}

/* max_pivots = 3 on a problem needing ~50: LSIM_MAX_ITERATIONS after exactly 3 pivots,
 * z finite, no basis recorded. */
static void test_pivot_limit(void **state) {
  (void)state;
  LsimRng rng = lsim_rng(5);
  LsimLcp lcp;
  assert_int_equal(lsim_lcp_random_spd(&lcp, 100, &rng), 0);
  LsimLemke *ws = lsim_lemke_create();
  LsimLemkeOptions o = lsim_default_lemke_options();
  o.max_pivots = 3;
  double z[100] = {0};
  LsimLemkeInfo info = {0};
  assert_int_equal(lsim_lemke_solve(ws, &lcp, &o, NULL, z, &info), LSIM_MAX_ITERATIONS);
  assert_int_equal(info.status, LSIM_MAX_ITERATIONS);
  assert_int_equal(info.pivots, 3);
  assert_true(all_finite(z, 100));
  assert_null(lsim_lemke_basis(ws));
  lsim_lemke_free(ws);
  lsim_lcp_free(&lcp);
}

/* Stewart-Trinkle LCPs from 3-D time stepping on which the cold start used to end on a
 * secondary ray (tests/data, dense): a box landing on a resting box (n = 48, near-parallel
 * normals, a nearly singular basis on the lexicographic path: the second run with ties by
 * pivot size solved it; since sound pivots block first, the first run does), and three steps of data/pile_10.json with lemke (z0 stalled at a
 * residue of 1e-11 behind near-duplicate rows: the terminal test ends there). Each must
 * solve to 1e-10 relative, and its final basis must solve it again as a warm start. */
static void test_contact_rays(void **state) {
  (void)state;
  static const char *files[] = {"tests/data/lemke_stack_ray.dat",
                                "tests/data/lemke_pile10_step19.dat",
                                "tests/data/lemke_pile10_step26.dat",
                                "tests/data/lemke_pile10_step30.dat"};
  LsimLemke *ws = lsim_lemke_create();
  for (size_t f = 0; f < sizeof files / sizeof files[0]; ++f) {
    LsimLcp lcp;
    char err[256];
    if (lsim_dat_read(files[f], &lcp, err, sizeof err)) print_error("%s\n", err);
    assert_int_equal(lcp.n > 0, 1);
    double *z = calloc((size_t)lcp.n, sizeof(double));
    unsigned char *guess = malloc((size_t)lcp.n);
    LsimLemkeInfo info = {0};
    double rel;
    int st = solve(ws, &lcp, NULL, NULL, z, &info, &rel);
    print_message("%-36s n=%3d %-14s pivots=%3d rel=%.2e\n", files[f], lcp.n,
                  lsim_status_name(st), info.pivots, rel);
    assert_int_equal(st, LSIM_SOLVED);
    assert_true(rel <= RES_TOL);
    memcpy(guess, lsim_lemke_basis(ws), (size_t)lcp.n);
    st = solve(ws, &lcp, NULL, guess, z, &info, &rel);
    assert_int_equal(st, LSIM_SOLVED);
    assert_true(rel <= RES_TOL);
    free(guess);
    free(z);
    lsim_lcp_free(&lcp);
  }
  lsim_lemke_free(ws);
}

/* tests/data/lemke_pile10_step25.dat (n = 240, 40 contacts of data/pile_10.json at step 25,
 * four nearly parallel normals per resting face, most of q at 1e-12 against max|q| =
 * 0.098): the cold path ends with z0 leaving after 71 pivots, on a well-conditioned basis
 * (condition 2e3) whose exact basic solution is infeasible: near-tied rows of those
 * duplicate contacts were taken as ties and left at -1e-12 .. -5e-11 (w_4 = -4.9e-11, a
 * relative residual of 5.0e-10 > 1e-10). Every cold run then failed the same way and the
 * solve ended as a breakdown (436 pivots). The cleanup (CLEANUP in lemke.c) pivots on from
 * that basis with the covering vector B e, z0 entering at the infeasibility. Asserted: the
 * solve ends solved to 1e-10 relative (the brief's level); exactly one path starts at
 * the level of q (the cold run: z0 enters at -min q = max|q| here) and every other one
 * (a cleanup; at least one) at most 1e-9 max|q| (the infeasibility the ties left, up to
 * 10x the acceptance level); all within one run's pivot budget 10 (n + 1) + 100; the
 * final basis solves the problem again as a warm start (0 pivots). */
static void test_contact_cleanup(void **state) {
  (void)state;
  LsimLcp lcp;
  char err[256];
  if (lsim_dat_read("tests/data/lemke_pile10_step25.dat", &lcp, err, sizeof err))
    print_error("%s\n", err);
  const int n = lcp.n;
  assert_int_equal(n, 240);
  double qmax = 0.0, qmin = 0.0;
  for (int i = 0; i < n; ++i) qmax = fmax(qmax, fabs(lcp.q[i])), qmin = fmin(qmin, lcp.q[i]);
  LsimLemke *ws = lsim_lemke_create();
  double *z = calloc((size_t)n, sizeof(double)), trace[4096];
  unsigned char *guess = malloc((size_t)n);
  LsimLemkeInfo info = {.trace = trace, .trace_capacity = 4096};
  double rel;
  int st = solve(ws, &lcp, NULL, NULL, z, &info, &rel);
  /* Path starts: the first entry, and every entry after one where z0 had left (0). */
  int cold = 0, cleanups = 0;
  double worst = 0.0;
  for (int k = 0; k < info.trace_len; ++k)
    if (k == 0 || trace[k - 1] == 0.0) {
      if (trace[k] == -qmin) ++cold;
      else ++cleanups, worst = fmax(worst, trace[k]);
    }
  print_message("lemke_pile10_step25 n=%d %s pivots=%d rel=%.2e, %d cold path, %d cleanups "
                "(z0 up to %.2e)\n", n, lsim_status_name(st), info.pivots, rel, cold, cleanups,
                worst);
  assert_int_equal(st, LSIM_SOLVED);
  assert_true(rel <= RES_TOL);
  assert_true(info.trace_len < 4096);
  assert_int_equal(cold, 1);
  assert_true(cleanups >= 1);
  assert_true(worst > 0.0 && worst <= 1e-9 * qmax);
  assert_true(info.pivots <= 10 * (n + 1) + 100);
  memcpy(guess, lsim_lemke_basis(ws), (size_t)n);
  st = solve(ws, &lcp, NULL, guess, z, &info, &rel);
  assert_int_equal(st, LSIM_SOLVED);
  assert_true(rel <= RES_TOL);
  assert_int_equal(info.pivots, 0);
  free(guess);
  free(z);
  lsim_lcp_free(&lcp);
  lsim_lemke_free(ws);
}

/* tests/data/lemke_tumble_cycle.dat (n = 90, 15 contacts of tumbling boxes and balls,
 * d = 4): the lexicographic rule took a degenerate tie at a true pivot of 2e-9 max|c|, the
 * next basis was nearly singular and the path cycled through 4 bases up to any pivot limit
 * (5000 and 10^6 tried). Sound pivots first solve it in one cold run of 72 pivots; we allow
 * up to the default limit of one run, 10 (n + 1) + 100 = 1010. Then: warm start from its
 * basis, 50 permuted (odd ones rescaled) copies all solved, and with a pivot limit of 5000
 * the solve still ends well below it. */
static void test_contact_cycle(void **state) {
  (void)state;
  LsimLcp base, lcp;
  char err[256];
  if (lsim_dat_read("tests/data/lemke_tumble_cycle.dat", &base, err, sizeof err))
    print_error("%s\n", err);
  const int n = base.n;
  assert_int_equal(n, 90);
  LsimLemke *ws = lsim_lemke_create();
  double *z = calloc((size_t)n, sizeof(double));
  unsigned char *guess = malloc((size_t)n);
  LsimLemkeInfo info = {0};
  LsimLemkeOptions o = lsim_default_lemke_options();
  o.max_pivots = 5000;
  double rel;
  int st = solve(ws, &base, &o, NULL, z, &info, &rel);
  print_message("lemke_tumble_cycle n=%d %s pivots=%d rel=%.2e\n", n, lsim_status_name(st),
                info.pivots, rel);
  assert_int_equal(st, LSIM_SOLVED);
  assert_true(rel <= RES_TOL);
  assert_true(info.pivots <= 10 * (n + 1) + 100);
  memcpy(guess, lsim_lemke_basis(ws), (size_t)n);
  st = solve(ws, &base, NULL, guess, z, &info, &rel);
  assert_int_equal(st, LSIM_SOLVED);
  assert_true(rel <= RES_TOL);
  assert_int_equal(info.pivots, 0);

  assert_int_equal(lsim_lcp_init(&lcp, n), 0);
  int perm[90], worst = 0;
  double dsc[90];
  for (int trial = 0; trial < 50; ++trial) {
    LsimRng rng = lsim_rng(2000u + (unsigned)trial);
    for (int i = 0; i < n; ++i) perm[i] = i;
    for (int i = n - 1; i > 0; --i) {
      int j = (int)(lsim_rng_uniform(&rng) * (i + 1)), t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
    }
    for (int i = 0; i < n; ++i) dsc[i] = trial % 2 ? exp(lsim_rng_range(&rng, -3.0, 3.0)) : 1.0;
    for (int i = 0; i < n; ++i) {
      lcp.q[i] = dsc[i] * base.q[perm[i]];
      for (int j = 0; j < n; ++j)
        lcp.M[i + j * n] = dsc[i] * dsc[j] * base.M[perm[i] + perm[j] * n];
    }
    st = solve(ws, &lcp, &o, NULL, z, &info, &rel);
    if (st != LSIM_SOLVED || rel > RES_TOL)
      print_error("trial %d: %s pivots %d rel %.2e\n", trial, lsim_status_name(st), info.pivots,
                  rel);
    assert_int_equal(st, LSIM_SOLVED);
    assert_true(rel <= RES_TOL);
    worst = info.pivots > worst ? info.pivots : worst;
  }
  print_message("lemke_tumble_cycle permuted: 50 solved, at most %d pivots\n", worst);
  assert_true(worst <= 10 * (n + 1) + 100);
  free(guess);
  free(z);
  lsim_lemke_free(ws);
  lsim_lcp_free(&lcp);
  lsim_lcp_free(&base);
}

/* Bad input: NaN in q or Inf in M, n < 0, a non-positive tolerance. */
static void test_invalid_input(void **state) {
  (void)state;
  LsimLemke *ws = lsim_lemke_create();
  LsimLcp lcp;
  assert_int_equal(lsim_lcp_init(&lcp, 3), 0);
  for (int i = 0; i < 3; ++i) lcp.M[i + 3 * i] = 1.0, lcp.q[i] = -1.0;
  double z[3] = {5, 5, 5};
  LsimLemkeInfo info = {0};
  lcp.q[1] = NAN;
  assert_int_equal(lsim_lemke_solve(ws, &lcp, NULL, NULL, z, &info), LSIM_INVALID_INPUT);
  assert_int_equal(info.status, LSIM_INVALID_INPUT);
  assert_true(all_finite(z, 3));
  lcp.q[1] = -1.0;
  lcp.M[4] = INFINITY;
  assert_int_equal(lsim_lemke_solve(ws, &lcp, NULL, NULL, z, NULL), LSIM_INVALID_INPUT);
  lcp.M[4] = 1.0;
  LsimLemkeOptions o = lsim_default_lemke_options();
  o.tol = 0.0;
  assert_int_equal(lsim_lemke_solve(ws, &lcp, &o, NULL, z, NULL), LSIM_INVALID_INPUT);
  o = lsim_default_lemke_options();
  o.max_pivots = -1;
  assert_int_equal(lsim_lemke_solve(ws, &lcp, &o, NULL, z, NULL), LSIM_INVALID_INPUT);
  LsimLcp bad = {.n = -1};
  assert_int_equal(lsim_lemke_solve(ws, &bad, NULL, NULL, z, NULL), LSIM_INVALID_INPUT);
  /* After all that the workspace still solves (z = 1 exactly: diagonal ones). */
  assert_int_equal(lsim_lemke_solve(ws, &lcp, NULL, NULL, z, NULL), LSIM_SOLVED);
  for (int i = 0; i < 3; ++i) assert_true(z[i] == 1.0);
  lsim_lemke_free(ws);
  lsim_lcp_free(&lcp);
}

/* VERIFICATION (lemke.c): an infeasible LCP, M = [4 -4; -1 -3], q = (-1, -3) (row 2 reads
 * w2 = -z1 - 3 z2 - 3 < 0 for every z >= 0), ends on a secondary ray whose last basic
 * solution is z = (0, 2): w = (-9, -9), natural residual 9, worse than z = 0 (w = q,
 * residual 3). From z = 0 the result is rejected and z stays exactly 0; from a worse start,
 * (1e6, 1e6) (w2 = -4000003, residual 4000003), the basic solution (0, 2) is kept (exact:
 * small integers through the basis inverse); a start with NaN and negative entries reads as
 * 0 and is returned clamped. The status names the ray in each case. */
static void test_failed_result_verified(void **state) {
  (void)state;
  LsimLemke *ws = lsim_lemke_create();
  LsimLcp lcp;
  assert_int_equal(lsim_lcp_init(&lcp, 2), 0);
  const double M[4] = {4, -1, -4, -3}; /* column-major */
  memcpy(lcp.M, M, sizeof M);
  lcp.q[0] = -1.0, lcp.q[1] = -3.0;
  LsimLemkeInfo info = {0};
  double z[2] = {0.0, 0.0}, rel;
  assert_int_equal(solve(ws, &lcp, NULL, NULL, z, &info, &rel), LSIM_SECONDARY_RAY);
  assert_int_equal(info.rejected, 1);
  assert_true(z[0] == 0.0 && z[1] == 0.0);
  assert_true(rel == 1.0); /* residual 3 of max|q| = 3 */

  z[0] = z[1] = 1e6;
  assert_int_equal(solve(ws, &lcp, NULL, NULL, z, &info, &rel), LSIM_SECONDARY_RAY);
  assert_int_equal(info.rejected, 0);
  assert_true(fabs(z[0]) < 1e-12 && fabs(z[1] - 2.0) < 1e-12);
  assert_true(fabs(rel - 3.0) < 1e-12); /* residual 9 of max|q| = 3 */

  z[0] = NAN, z[1] = -5.0;
  assert_int_equal(solve(ws, &lcp, NULL, NULL, z, &info, &rel), LSIM_SECONDARY_RAY);
  assert_int_equal(info.rejected, 1);
  assert_true(z[0] == 0.0 && z[1] == 0.0);
  lsim_lemke_free(ws);
  lsim_lcp_free(&lcp);
}

/* n = 0 solves with 0 pivots; q >= 0 gives z = 0, 0 pivots, an all-w basis. */
static void test_trivial_cases(void **state) {
  (void)state;
  LsimLemke *ws = lsim_lemke_create();
  assert_null(lsim_lemke_basis(ws));
  LsimLcp empty;
  assert_int_equal(lsim_lcp_init(&empty, 0), 0);
  LsimLemkeInfo info = {0};
  assert_int_equal(lsim_lemke_solve(ws, &empty, NULL, NULL, NULL, &info), LSIM_SOLVED);
  assert_int_equal(info.pivots, 0);
  lsim_lcp_free(&empty);

  LsimRng rng = lsim_rng(8);
  LsimLcp lcp;
  assert_int_equal(lsim_lcp_random_spd(&lcp, 20, &rng), 0);
  for (int i = 0; i < 20; ++i) lcp.q[i] = fabs(lcp.q[i]);
  lcp.q[3] = 0.0;
  double z[20];
  assert_int_equal(lsim_lemke_solve(ws, &lcp, NULL, NULL, z, &info), LSIM_SOLVED);
  assert_int_equal(info.pivots, 0);
  assert_true(lsim_test_max_abs(z, 20) == 0.0);
  const unsigned char *b = lsim_lemke_basis(ws);
  assert_non_null(b);
  for (int i = 0; i < 20; ++i) assert_int_equal(b[i], 0);
  lsim_lemke_free(ws);
  lsim_lcp_free(&lcp);
}

/* The workspace grows to the largest n seen; later solves of that size or smaller do not
 * touch the heap (glibc's in-use byte count is unchanged). ASan replaces malloc and
 * mallinfo2 tells nothing there, so only the heap comparison is skipped under it
 * (tests/support.h). */
static void test_no_allocation_when_warm(void **state) {
  (void)state;
  LsimRng rng = lsim_rng(2024);
  LsimLcp big, small;
  assert_int_equal(lsim_lcp_random_spd(&big, 120, &rng), 0);
  assert_int_equal(lsim_lcp_random_spd(&small, 40, &rng), 0);
  LsimLemke *ws = lsim_lemke_create();
  double z[120];
  unsigned char guess[120] = {0};
  LsimLemkeInfo info = {0};
  assert_int_equal(lsim_lemke_solve(ws, &big, NULL, NULL, z, &info), LSIM_SOLVED);
  const size_t before = lsim_test_heap_in_use();
  assert_int_equal(lsim_lemke_solve(ws, &big, NULL, NULL, z, &info), LSIM_SOLVED);
  assert_int_equal(lsim_lemke_solve(ws, &small, NULL, NULL, z, &info), LSIM_SOLVED);
  assert_int_equal(lsim_lemke_solve(ws, &small, NULL, guess, z, &info), LSIM_SOLVED);
  assert_true(lsim_test_heap_in_use() == before);
  lsim_lemke_free(ws);
  lsim_lcp_free(&big);
  lsim_lcp_free(&small);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_siconos_files),
      cmocka_unit_test(test_murty_exponential),
      cmocka_unit_test(test_tobenna_degenerate),
      cmocka_unit_test(test_tobenna_permuted),
      cmocka_unit_test(test_diagonal_by_hand),
      cmocka_unit_test(test_random_spd),
      cmocka_unit_test(test_random_pmatrix_psd),
      cmocka_unit_test(test_random_contact),
      cmocka_unit_test(test_random_degenerate),
      cmocka_unit_test(test_warm_start_perturbed),
      cmocka_unit_test(test_warm_start_exact_basis),
      cmocka_unit_test(test_warm_start_bad_guess),
      cmocka_unit_test(test_pivot_limit),
      cmocka_unit_test(test_contact_rays),
      cmocka_unit_test(test_contact_cleanup),
      cmocka_unit_test(test_contact_cycle),
      cmocka_unit_test(test_invalid_input),
      cmocka_unit_test(test_trivial_cases),
      cmocka_unit_test(test_failed_result_verified),
      cmocka_unit_test(test_no_allocation_when_warm),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
