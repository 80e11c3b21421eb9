/* test_lemke_sparse.c: Lemke's method on the factored problem with a sparse LU basis
 * (lcp/lemke_sparse.c) against the dense reference (lcp/lemke.c): random problems of known
 * classes, dumped contact steps, the factored LCPs of a simulated pile (J B + C, never
 * formed), warm start from a known basis, and bad input. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "contact/step.h"
#include "lcp/datfile.h"
#include "lcp/lemke.h"
#include "lcp/lemke_sparse.h"
#include "lcp/random.h"
#include "scene/scene.h"
#include "tests/scene_stepper.h"
#include "tests/support.h"

/* The acceptance level asked of an exact solver: 1e-10 relative natural residual. */
#define RES_TOL 1e-10

/* A dense LCP as the factored problem J = B = 0 (m = 0), C = M (CSR of the nonzeros). */
typedef struct {
  int *cp, *ci, *zero;
  double *cv;
  LsimFactoredLcp f;
} AsFactored;

static void as_factored(AsFactored *a, const LsimLcp *lcp) {
  const int n = lcp->n;
  a->cp = malloc((size_t)(n + 1) * sizeof(int));
  a->ci = malloc((size_t)n * n * sizeof(int) + 1);
  a->cv = malloc((size_t)n * n * sizeof(double) + 1);
  a->zero = calloc((size_t)n + 1, sizeof(int));
  int k = 0;
  a->cp[0] = 0;
  for (int i = 0; i < n; a->cp[++i] = k)
    for (int j = 0; j < n; ++j)
      if (lcp->M[i + (size_t)j * n] != 0.0) a->ci[k] = j, a->cv[k++] = lcp->M[i + (size_t)j * n];
  const LsimFactoredLcp f = {.n = n, .J_ptr = a->zero, .B_ptr = a->zero, .C_ptr = a->cp,
                             .C_idx = a->ci, .C_val = a->cv, .q = lcp->q,
                             .ncones = lcp->ncones, .cones = lcp->cones};
  a->f = f;
}

static void as_factored_free(AsFactored *a) { free(a->cp), free(a->ci), free(a->cv), free(a->zero); }

static double rel_residual(const LsimFactoredLcp *f, const double *z) {
  double *u = malloc(((size_t)f->m + 1) * sizeof(double)), *w = malloc((size_t)f->n * sizeof(double));
  LsimResidual r;
  lsim_factored_residual(f, z, u, w, &r);
  free(u), free(w);
  return r.natural / fmax(lsim_test_max_abs(f->q, f->n), 1.0);
}

/* Random SPD and P-matrix LCPs have one solution: the sparse path must end on dense
 * Lemke's z (both exact basic solutions of the same basis; condition ~1e2-1e3, so 1e-9 of
 * max|z| with room), at the same pivot count (same rules, same tie decisions here). */
static void test_unique_solutions_match_dense(void **state) {
  (void)state;
  LsimLemke *dl = lsim_lemke_create();
  LsimLemkeSparse *sl = lsim_lemke_sparse_create();
  for (int seed = 0; seed < 10; ++seed)
    for (int kind = 0; kind < 2; ++kind) {
      const int n = 2 + 23 * seed;
      LsimRng rng = lsim_rng(7300u + 10u * (unsigned)seed + (unsigned)kind);
      LsimLcp lcp;
      assert_int_equal(kind ? lsim_lcp_random_pmatrix(&lcp, n, &rng)
                            : lsim_lcp_random_spd(&lcp, n, &rng), 0);
      AsFactored a;
      as_factored(&a, &lcp);
      double *z = calloc((size_t)n, sizeof(double)), *zl = calloc((size_t)n, sizeof(double));
      LsimLemkeInfo si, di;
      memset(&si, 0, sizeof si), memset(&di, 0, sizeof di);
      assert_int_equal(lsim_lemke_solve(dl, &lcp, NULL, NULL, zl, &di), LSIM_SOLVED);
      assert_int_equal(lsim_lemke_sparse_solve(sl, &a.f, NULL, NULL, z, &si), LSIM_SOLVED);
      assert_true(rel_residual(&a.f, z) <= RES_TOL);
      assert_true(lsim_test_max_abs_diff(z, zl, n) <= 1e-9 * fmax(1.0, lsim_test_max_abs(zl, n)));
      assert_int_equal(si.pivots, di.pivots);
      /* Warm started from the final basis: solved at once, no pivot. */
      const unsigned char *basis = lsim_lemke_sparse_basis(sl);
      assert_non_null(basis);
      unsigned char *g = malloc((size_t)n);
      memcpy(g, basis, (size_t)n);
      memset(z, 0, (size_t)n * sizeof(double));
      assert_int_equal(lsim_lemke_sparse_solve(sl, &a.f, NULL, g, z, &si), LSIM_SOLVED);
      assert_int_equal(si.pivots, 0);
      int qneg = 0;
      for (int i = 0; i < n; ++i) qneg |= lcp.q[i] < 0.0;
      assert_int_equal(si.warm_started, qneg); /* q >= 0: z = 0 at once, no basis used */
      free(g);
      free(z), free(zl);
      as_factored_free(&a);
      lsim_lcp_free(&lcp);
    }
  lsim_lemke_free(dl);
  lsim_lemke_sparse_free(sl);
}

/* Dumped contact steps on which dense Lemke's robustness rules were built (tests/data):
 * wherever dense Lemke solves cold, the sparse one does too, to 1e-10. The chain_20 steps
 * (lcpsim data/chain_20.json --dump-lcp, steps 128 and 142, exported): a degenerate path
 * whose lexicographic tie came down to two components equal in exact arithmetic (-4 and -4)
 * that the updated B^{-1} held 5e-11 apart, above the tie tolerance: the sparse path took
 * the other row and ended on a secondary ray (583 and 569 pivots) where dense Lemke solves
 * in 141; a decision that close now refactors first (refactor_close, lemke_driver.h).
 * That was not enough on every BLAS kernel (UMFPACK's dense kernels are OpenBLAS's, chosen
 * by CPU: test_blas_kernels); the dense fallback solves them on any (DENSE FALLBACK in
 * lemke_sparse.c). */
static void test_dumped_steps(void **state) {
  (void)state;
  static const char *files[] = {"tests/data/lemke_pile10_step19.dat",
                                "tests/data/lemke_pile10_step25.dat",
                                "tests/data/lemke_pile10_step26.dat",
                                "tests/data/lemke_pile10_step30.dat",
                                "tests/data/lemke_stack_ray.dat",
                                "tests/data/lemke_tumble_cycle.dat",
                                "tests/data/lemke_chain20_step128.dat",
                                "tests/data/lemke_chain20_step142.dat"};
  LsimLemke *dl = lsim_lemke_create();
  LsimLemkeSparse *sl = lsim_lemke_sparse_create();
  for (size_t k = 0; k < sizeof files / sizeof files[0]; ++k) {
    LsimLcp lcp;
    char err[256];
    assert_int_equal(lsim_dat_read(files[k], &lcp, err, sizeof err), 0);
    const int n = lcp.n;
    AsFactored a;
    as_factored(&a, &lcp);
    double *z = calloc((size_t)n, sizeof(double)), *zl = calloc((size_t)n, sizeof(double));
    LsimLemkeInfo si, di;
    memset(&si, 0, sizeof si), memset(&di, 0, sizeof di);
    const int ds = lsim_lemke_solve(dl, &lcp, NULL, NULL, zl, &di);
    const int ss = lsim_lemke_sparse_solve(sl, &a.f, NULL, NULL, z, &si);
    print_message("%s: n %d dense %s (%d pivots), sparse %s (%d pivots) rel %.1e\n", files[k], n,
                  lsim_status_name(ds), di.pivots, lsim_status_name(ss), si.pivots,
                  rel_residual(&a.f, z));
    if (ds == LSIM_SOLVED) {
      assert_int_equal(ss, LSIM_SOLVED);
      assert_true(rel_residual(&a.f, z) <= RES_TOL);
    }
    free(z), free(zl);
    as_factored_free(&a);
    lsim_lcp_free(&lcp);
  }
  lsim_lemke_free(dl);
  lsim_lemke_sparse_free(sl);
}

/* The factored LCPs of a pile of ten boxes as the time step builds them (M = J B + C never
 * formed by the sparse solver), from the time step's guess (z_i > 0 of the warm start): every
 * step that dense Lemke solves on the formed M from the same guess ends within 1e-10 (114
 * of 114 steps, dense Lemke 114: 113 before the cleanup of lemke.c, whose step 61 ended
 * off the tolerance; one of them a ray at such a point). */
static void test_factored_pile(void **state) {
  (void)state;
  SceneStepper sc;
  assert_int_equal(scene_stepper_open(&sc, "data/pile_10.json", "newton", RES_TOL), 0);
  LsimModel *const model = &sc.model;
  LsimState *const st = &sc.st;
  LsimStepper *const stepper = sc.stepper;
  LsimLemkeSparse *sl = lsim_lemke_sparse_create();
  int with_lcp = 0, solved = 0, warm = 0, dsolved = 0;
  LsimLemke *dl = lsim_lemke_create();
  for (int k = 0; k < 120; ++k) {
    LsimStepStats ss;
    assert_int_equal(lsim_step(stepper, model, st, &ss), LSIM_SOLVED);
    const LsimFactoredLcp *f = lsim_stepper_factored(stepper);
    if (f->n == 0) continue;
    ++with_lcp;
    const int n = f->n;
    double *z = calloc((size_t)n, sizeof(double));
    unsigned char *g = malloc((size_t)n);
    const double *zg = lsim_stepper_warm_guess(stepper);
    for (int i = 0; i < n; ++i) g[i] = zg[i] > 0.0;
    LsimLemkeInfo si;
    memset(&si, 0, sizeof si);
    const int rc = lsim_lemke_sparse_solve(sl, f, NULL, g, z, &si);
    /* The dense reference on the same problem, formed here, from the same guess. */
    LsimLcp dense;
    assert_int_equal(lsim_lcp_init(&dense, n), 0);
    int *tp = malloc(((size_t)f->m + 1) * sizeof(int)), *ti = malloc(((size_t)f->J_ptr[n] + 1) * sizeof(int));
    double *tv = malloc(((size_t)f->J_ptr[n] + 1) * sizeof(double)), *zd = calloc((size_t)n, sizeof(double));
    assert_int_equal(lsim_factored_to_dense(f, &dense, tp, ti, tv), 0);
    LsimLemkeInfo di;
    memset(&di, 0, sizeof di);
    const int drc = lsim_lemke_solve(dl, &dense, NULL, g, zd, &di);
    dsolved += drc == LSIM_SOLVED;
    if (rc != LSIM_SOLVED || drc != LSIM_SOLVED)
      print_message("step %d n %d: sparse %s (%d pivots, warm %d) rel %.2e, dense %s (%d pivots, warm %d)\n", k, n, lsim_status_name(rc),
                    si.pivots, si.warm_started, rel_residual(f, z), lsim_status_name(drc), di.pivots, di.warm_started);
    /* The same method: wherever the dense reference solves, the sparse one ends at a point
       within the tolerance (solved, or, on degenerate steps where rounding sends the two
       paths apart, a ray at such a point: step 70, relative 1.9e-11, which the solver
       front counts as solved). */
    if (drc == LSIM_SOLVED) assert_true(rc == LSIM_SOLVED || rel_residual(f, z) <= RES_TOL);
    free(tp), free(ti), free(tv), free(zd);
    dense.cones = NULL;
    lsim_lcp_free(&dense);
    solved += rel_residual(f, z) <= RES_TOL;
    warm += si.warm_started;
    free(z), free(g);
  }
  print_message("pile_10: %d steps with an LCP, %d solved (dense Lemke %d), %d from the guess\n",
                with_lcp, solved, dsolved, warm);
  lsim_lemke_free(dl);
  assert_true(with_lcp > 50);
  assert_true(solved >= dsolved && solved >= with_lcp - 2);
  lsim_lemke_sparse_free(sl);
  scene_stepper_close(&sc);
}

/* The carried basis through the solver API (lsim_solver_set_basis_guess and
 * lsim_solver_last_basis), whole and by island: a re-solve of the same problem from the
 * last solve's final basis takes 0 pivots (that basis is feasible and complementary, so
 * the warm start accepts it at once) and gives the same z (the basic solution of the same
 * basis; 1e-9 of max|z| as in test_unique_solutions_match_dense). */
static void test_solver_basis_resolve(void **state) {
  (void)state;
  for (int seed = 0; seed < 4; ++seed)
    for (int islands = 0; islands < 2; ++islands) {
      const int n = 10 + 31 * seed;
      LsimRng rng = lsim_rng(9100u + (unsigned)seed);
      LsimLcp lcp;
      assert_int_equal(lsim_lcp_random_spd(&lcp, n, &rng), 0);
      AsFactored a;
      as_factored(&a, &lcp);
      LsimSolverOptions o = lsim_default_solver_options();
      o.tol = RES_TOL, o.warm_start = 1, o.islands = islands;
      LsimSolver *s;
      char err[128];
      assert_int_equal(lsim_solver_create(&s, "lemke_sparse", &o, err, sizeof err), 0);
      double *z = calloc((size_t)n, sizeof(double)), *z1 = calloc((size_t)n, sizeof(double));
      LsimSolveStats st;
      assert_int_equal(lsim_solver_solve_factored(s, &a.f, z, &st), LSIM_SOLVED);
      memcpy(z1, z, (size_t)n * sizeof(double));
      int nb = -1;
      const unsigned char *basis = lsim_solver_last_basis(s, &nb);
      assert_non_null(basis);
      assert_int_equal(nb, n);
      unsigned char *g = malloc((size_t)n);
      memcpy(g, basis, (size_t)n);
      memset(z, 0, (size_t)n * sizeof(double));
      lsim_solver_set_basis_guess(s, g);
      assert_int_equal(lsim_solver_solve_factored(s, &a.f, z, &st), LSIM_SOLVED);
      assert_int_equal(st.iterations, 0);
      assert_true(rel_residual(&a.f, z) <= RES_TOL);
      assert_true(lsim_test_max_abs_diff(z, z1, n) <= 1e-9 * fmax(1.0, lsim_test_max_abs(z1, n)));
      /* The guess served one solve: the next, from z = 0, pivots again (q has a negative entry). */
      memset(z, 0, (size_t)n * sizeof(double));
      assert_int_equal(lsim_solver_solve_factored(s, &a.f, z, &st), LSIM_SOLVED);
      assert_true(st.iterations > 0);
      free(g), free(z), free(z1);
      lsim_solver_free(s);
      as_factored_free(&a);
      lsim_lcp_free(&lcp);
    }
}

/* The time step with sparse Lemke carries its final basis by contact id: on pile_10
 * (islands on, as the scene default) every step after the first with an LCP gets a basis
 * guess of its size and is solved to 1e-10; and the carried guess of each step, handed
 * to a second solver on the same problem (two consecutive steps: the basis of the one
 * before, this step's problem), solves it to 1e-10 too; a re-solve from that solver's
 * final basis takes 0 pivots but on a few near-singular steps (counted). Pivot totals of the carried guess and of z > 0 are printed
 * (not asserted: the ratio is a benchmark figure). */
static void test_step_carries_basis(void **state) {
  (void)state;
  SceneStepper sc;
  assert_int_equal(scene_stepper_open(&sc, "data/pile_10.json", "lemke_sparse", RES_TOL), 0);
  LsimModel *const model = &sc.model;
  LsimState *const st = &sc.st;
  LsimStepper *const stepper = sc.stepper;
  char err[256];
  LsimSolverOptions o = lsim_default_solver_options();
  o.tol = RES_TOL, o.warm_start = 1;
  LsimSolver *s;
  assert_int_equal(lsim_solver_create(&s, "lemke_sparse", &o, err, sizeof err), 0);
  int with_lcp = 0, carried = 0, prev_solved = 0, resolved_at_once = 0;
  long piv_carried = 0, piv_z = 0;
  for (int k = 0; k < 120; ++k) {
    LsimStepStats ss;
    assert_int_equal(lsim_step(stepper, model, st, &ss), LSIM_SOLVED);
    const LsimFactoredLcp *f = lsim_stepper_factored(stepper);
    const int n = f->n;
    if (n == 0) {
      prev_solved = 0;
      continue;
    }
    ++with_lcp;
    assert_true(rel_residual(f, lsim_stepper_solution(stepper)) <= RES_TOL);
    const unsigned char *g = lsim_stepper_basis_guess(stepper);
    if (prev_solved) assert_non_null(g);
    prev_solved = 1;
    if (!g) continue;
    ++carried;
    double *z = malloc((size_t)n * sizeof(double));
    LsimSolveStats a;
    /* This step's problem from the carried basis. */
    memcpy(z, lsim_stepper_warm_guess(stepper), (size_t)n * sizeof(double));
    lsim_solver_set_basis_guess(s, g);
    assert_int_equal(lsim_solver_solve_factored(s, f, z, &a), LSIM_SOLVED);
    assert_true(rel_residual(f, z) <= RES_TOL);
    piv_carried += a.iterations;
    /* Again from that solve's final basis: no pivot. */
    int nb = 0;
    const unsigned char *b = lsim_solver_last_basis(s, &nb);
    assert_non_null(b);
    assert_int_equal(nb, n);
    unsigned char *bb = malloc((size_t)n);
    memcpy(bb, b, (size_t)n);
    lsim_solver_set_basis_guess(s, bb);
    assert_int_equal(lsim_solver_solve_factored(s, f, z, &a), LSIM_SOLVED);
    resolved_at_once += a.iterations == 0;
    assert_true(rel_residual(f, z) <= RES_TOL);
    /* The guess z > 0 on the same problem, for the printed comparison. */
    memcpy(z, lsim_stepper_warm_guess(stepper), (size_t)n * sizeof(double));
    assert_int_equal(lsim_solver_solve_factored(s, f, z, &a), LSIM_SOLVED);
    assert_true(rel_residual(f, z) <= RES_TOL);
    piv_z += a.iterations;
    free(bb), free(z);
  }
  print_message("pile_10, lemke_sparse: %d steps with an LCP, %d with a carried basis, %d "
                "re-solved from the final basis with 0 pivots; pivots from the carried basis "
                "%ld, from z > 0 %ld\n", with_lcp, carried, resolved_at_once, piv_carried, piv_z);
  assert_true(with_lcp > 50 && carried >= with_lcp - 5);
  /* On a few steps (24-30, the near-singular ones of tests/data/lemke_pile10_step*.dat,
     and 3 more: 7 of 113 measured) the refactored final basis is refused or its basic
     solution misses the tolerance, and 1-77 pivots follow; at most 10 %. */
  assert_true(10 * resolved_at_once >= 9 * carried);
  lsim_solver_free(s);
  scene_stepper_close(&sc);
}

/* Problem k of a series: the dumped file files[k] for k < nfiles (read into lcp, factored
 * into a: the caller frees both), else the next step of sc's scene (its factored problem,
 * owned by the stepper; n may be 0). */
static const LsimFactoredLcp *nth_problem(int k, const char *const *files, int nfiles,
                                          SceneStepper *sc, LsimLcp *lcp, AsFactored *a) {
  if (k < nfiles) {
    char err[256];
    assert_int_equal(lsim_dat_read(files[k], lcp, err, sizeof err), 0);
    as_factored(a, lcp);
    return &a->f;
  }
  LsimStepStats ss;
  assert_int_equal(lsim_step(sc->stepper, &sc->model, &sc->st, &ss), LSIM_SOLVED);
  return lsim_stepper_factored(sc->stepper);
}

/* Solves the dumped steps (cold) and pile_10's factored steps (from the time step's guess
 * z > 0), each with set(ws, mode[0]) and then set(ws, mode[1]) on one workspace, and asserts the
 * same status and pivots (and, with same_bits 1, the same z bits, factorizations and solves
 * of both kinds; with same_bits 2 the same z bits and factorizations, the solves free to
 * differ; with same_bits -1 only that what mode[0] solves mode[1] solves too, the
 * solves whose status or pivots differ counted in rows[2], rows then of three entries),
 * each solved z within RES_TOL. Adds the
 * transposed solves of each mode to rows[]; returns the problems solved. */
static int compare_settings(void (*set)(LsimLemkeSparse *, int), const int mode[2], int same_bits,
                            long *rows) {
  LsimLemkeSparse *sl = lsim_lemke_sparse_create();
  int solves = 0;
  const char *files[] = {"tests/data/lemke_pile10_step19.dat", "tests/data/lemke_pile10_step25.dat",
                         "tests/data/lemke_pile10_step26.dat", "tests/data/lemke_pile10_step30.dat",
                         "tests/data/lemke_tumble_cycle.dat", "tests/data/lemke_chain20_step128.dat",
                         "tests/data/lemke_chain20_step142.dat"};
  SceneStepper sc;
  assert_int_equal(scene_stepper_open(&sc, "data/pile_10.json", "newton", RES_TOL), 0);
  const int nfiles = (int)(sizeof files / sizeof files[0]);
  for (int k = 0; k < nfiles + 120; ++k) {
    LsimLcp lcp;
    AsFactored a;
    const LsimFactoredLcp *f = nth_problem(k, files, nfiles, &sc, &lcp, &a);
    const double *zg = NULL;
    if (k >= nfiles) {
      if (f->n == 0) continue;
      zg = lsim_stepper_warm_guess(sc.stepper);
    }
    const int n = f->n;
    double *z[2] = {calloc((size_t)n, sizeof(double)), calloc((size_t)n, sizeof(double))};
    unsigned char *g = malloc((size_t)n);
    for (int i = 0; i < n; ++i) g[i] = zg && zg[i] > 0.0;
    int status[2], pivots[2], counts[2][3];
    for (int on = 0; on < 2; ++on) {
      LsimLemkeInfo si;
      memset(&si, 0, sizeof si);
      if (zg) memcpy(z[on], zg, (size_t)n * sizeof(double));
      set(sl, mode[on]);
      status[on] = lsim_lemke_sparse_solve(sl, f, NULL, zg ? g : NULL, z[on], &si);
      pivots[on] = si.pivots;
      lsim_lemke_sparse_counts(sl, &counts[on][0], &counts[on][1], &counts[on][2]);
      rows[on] += counts[on][1];
    }
    if (status[1] != status[0] || pivots[1] != pivots[0])
      print_message("problem %d n %d: mode %d %s %d pivots, mode %d %s %d\n", k, n, mode[0],
                    lsim_status_name(status[0]), pivots[0], mode[1], lsim_status_name(status[1]),
                    pivots[1]);
    if (same_bits >= 0) {
      assert_int_equal(status[1], status[0]);
      assert_int_equal(pivots[1], pivots[0]);
    } else {
      if (status[0] == LSIM_SOLVED) assert_int_equal(status[1], LSIM_SOLVED);
      rows[2] += status[1] != status[0] || pivots[1] != pivots[0];
    }
    if (same_bits > 0) {
      for (int c = 0; c < (same_bits == 2 ? 1 : 3); ++c)
        assert_int_equal(counts[1][c], counts[0][c]);
      assert_memory_equal(z[1], z[0], (size_t)n * sizeof(double));
    }
    if (status[0] == LSIM_SOLVED) assert_true(rel_residual(f, z[1]) <= RES_TOL);
    ++solves;
    free(z[0]), free(z[1]), free(g);
    if (k < nfiles) {
      as_factored_free(&a);
      lsim_lcp_free(&lcp);
    }
  }
  lsim_lemke_sparse_free(sl);
  scene_stepper_close(&sc);
  return solves;
}

/* lsim_lemke_sparse_set_carry_bounds: the ratio test's tie bounds from bounds carried
 * through the exchanges rule out the same rows as the bounds solved for, so the path is the
 * same: on the dumped steps (cold) and on pile_10's factored steps (from the time step's
 * guess z > 0) every solve ends with the same status and pivots with and without, within
 * 1e-10, and the transposed solves (rows of B^{-1}) are no more in total with them (fewer
 * where the bounds are asked often: settled pile_100, docs/solvers.md). */
static void test_carry_bounds(void **state) {
  (void)state;
  long rows[2] = {0, 0};
  const int solves =
      compare_settings(lsim_lemke_sparse_set_carry_bounds, (const int[2]){0, 1}, 0, rows);
  print_message("carried bounds: %d solves, transposed solves %ld without, %ld with\n", solves,
                rows[0], rows[1]);
  assert_true(solves > 50);
  assert_true(rows[1] <= rows[0]);
}

/* The carried bounds updated on the finite ones alone (the default) against every row
 * updated at each exchange (mode 2, the update as it was): on the same problems each solve
 * has the same status, pivots, factorizations, transposed and column solves (so every
 * bound asked for decided alike) and the same z, bit for bit; both paths of the update
 * run (the cold runs start with every bound known, the warm ones with none). */
static void test_carry_bounds_lazy(void **state) {
  (void)state;
  long rows[2] = {0, 0};
  const int solves =
      compare_settings(lsim_lemke_sparse_set_carry_bounds, (const int[2]){2, 1}, 1, rows);
  print_message("carried bounds, all rows / finite rows: %d solves, transposed solves %ld / %ld\n",
                solves, rows[0], rows[1]);
  assert_true(solves > 50);
  assert_int_equal(rows[1], rows[0]);
  assert_true(rows[0] > 0); /* the bounds were asked for */
}

/* lsim_lemke_sparse_set_shortcut_ties: a ratio test that z0's own tie or the terminal test
 * decides alone examines no other row's tie. Mode 1 (the default) against 0 (every row
 * examined): on the same problems each solve has the same status, pivots, factorizations
 * and z, bit for bit, and no more transposed solves in total. Mode 2 (the terminal test's
 * pivot taken without the lexicographic rule's refactorization) against 0: the same status
 * and pivots, each solved z within RES_TOL (its bits may differ where mode 0 refactored). */
static void test_shortcut_ties(void **state) {
  (void)state;
  long rows[2] = {0, 0}, rows2[3] = {0, 0, 0};
  int solves =
      compare_settings(lsim_lemke_sparse_set_shortcut_ties, (const int[2]){0, 1}, 2, rows);
  print_message("ties shortcut: %d solves, transposed solves %ld without, %ld with\n", solves,
                rows[0], rows[1]);
  assert_true(solves > 50);
  assert_true(rows[1] <= rows[0]);
  solves = compare_settings(lsim_lemke_sparse_set_shortcut_ties, (const int[2]){0, 2}, 0, rows2);
  print_message("ties shortcut 2: %d solves, transposed solves %ld without, %ld with\n", solves,
                rows2[0], rows2[1]);
  assert_true(solves > 50);
  assert_true(rows2[1] <= rows2[0]);
}

/* lsim_lemke_sparse_set_bound_sums: the ratio test's tie bounds of rows not at hand summed
 * from a solve on the LU factors read out (the default) instead of UMFPACK's rows: the sums
 * agree to rounding, far inside the margins the ties are decided by, so on the same
 * problems each solve has the same status, pivots, factorizations and z, bit for bit; the
 * sums are used (transposed solves are asked for on these problems). */
static void test_bound_sums(void **state) {
  (void)state;
  long rows[2] = {0, 0};
  const int solves =
      compare_settings(lsim_lemke_sparse_set_bound_sums, (const int[2]){0, 1}, 2, rows);
  print_message("bound sums: %d solves, transposed solves %ld with UMFPACK's rows, %ld with the "
                "sums\n", solves, rows[0], rows[1]);
  assert_true(solves > 50);
  assert_true(rows[0] > 0 && rows[1] > 0);
}

/* lsim_lemke_sparse_set_ft: Forrest-Tomlin updates of the factors read out instead of the
 * eta file. Other bits (other sums, no dropped entries of c in the update), so at a
 * degenerate vertex a tie may go the other way: every problem the default solves must be
 * solved (within RES_TOL) with them too, at most a third with other pivots or status (as
 * test_own_solve_path); the updates were made. */
static void test_ft_path(void **state) {
  (void)state;
  long rows[3] = {0, 0, 0};
  const int solves = compare_settings(lsim_lemke_sparse_set_ft, (const int[2]){0, 1}, -1, rows);
  print_message("Forrest-Tomlin: %d solves, %ld with other pivots; transposed solves %ld / %ld\n",
                solves, rows[2], rows[0], rows[1]);
  assert_true(solves > 50);
  /* A third: the updates keep the exact entering column where the eta file drops its
     entries below the pivot tolerance, so paths part a little more often than with the own
     solves alone (13 of 121) or KLU (27): 33 measured. */
  assert_true(3 * rows[2] <= solves);
  /* The updates themselves: pile_10's step 26 cold from one workspace. */
  LsimLcp lcp;
  char err[256];
  assert_int_equal(lsim_dat_read("tests/data/lemke_pile10_step26.dat", &lcp, err, sizeof err), 0);
  AsFactored a;
  as_factored(&a, &lcp);
  double *z = calloc((size_t)lcp.n, sizeof(double));
  LsimLemkeSparse *sl = lsim_lemke_sparse_create();
  lsim_lemke_sparse_set_ft(sl, 1);
  LsimLemkeInfo si;
  memset(&si, 0, sizeof si);
  assert_int_equal(lsim_lemke_sparse_solve(sl, &a.f, NULL, NULL, z, &si), LSIM_SOLVED);
  assert_true(rel_residual(&a.f, z) <= RES_TOL);
  int updates = 0, refused = 0;
  lsim_lemke_sparse_ft_counts(sl, &updates, &refused);
  print_message("step 26: %d pivots, %d updates, %d refused\n", si.pivots, updates, refused);
  assert_true(updates > 0 && updates >= si.pivots - refused);
  lsim_lemke_sparse_free(sl);
  free(z);
  as_factored_free(&a);
  lsim_lcp_free(&lcp);
}

/* lsim_lemke_sparse_set_eta_block: FTRAN with runs of dense etas applied together (AVX2
 * where the CPU has it, and the build's own vectors) gives the same bits as one eta at a
 * time, so every solve on the same problems has the same
 * status, pivots, counts and z, bit for bit (cold runs from B = I and warm ones; pile_10's
 * etas are dense and sparse, the runs broken by sparse ones and by zero pivots' rows). */
static void test_eta_block(void **state) {
  (void)state;
  long rows[2] = {0, 0};
  for (int wide = 1; wide <= 2; ++wide) { /* AVX2 where the CPU has it; the build's vectors */
    const int solves =
        compare_settings(lsim_lemke_sparse_set_eta_block, (const int[2]){0, wide}, 1, rows);
    assert_true(solves > 50);
    assert_int_equal(rows[1], rows[0]);
  }
}

/* Steps sc once; the step's factored problem, and in *g its basis carried from the last
 * step, or NULL when the step has no LCP or no carried basis. */
static const LsimFactoredLcp *step_carried(SceneStepper *sc, const unsigned char **g) {
  LsimStepStats ss;
  assert_int_equal(lsim_step(sc->stepper, &sc->model, &sc->st, &ss), LSIM_SOLVED);
  const LsimFactoredLcp *f = lsim_stepper_factored(sc->stepper);
  *g = lsim_stepper_basis_guess(sc->stepper);
  return f->n == 0 || !*g ? NULL : f;
}

/* lsim_lemke_sparse_set_cover_previous: the path from the carried basis covered by the
 * previous step's values (d = B x') instead of B e. pile_10 driven by lemke_sparse (its
 * carried basis, as the time step hands it on, and the previous impulses as the point):
 * each step's problem is solved from that basis with and without the weighted cover, both
 * to 1e-10 (status solved, residual checked here on the returned z); the cover changes the
 * paths (some step's pivots differ, so the option is in effect); through the solver front
 * (lsim_solver_set_cover_previous with the basis guess) each step takes the same pivots
 * as the direct call with the cover. Pivot totals printed. */
static void test_cover_previous(void **state) {
  (void)state;
  SceneStepper sc;
  assert_int_equal(scene_stepper_open(&sc, "data/pile_10.json", "lemke_sparse", RES_TOL), 0);
  LsimLemkeSparse *sl = lsim_lemke_sparse_create();
  lsim_lemke_sparse_set_retry_positive(sl, 1); /* as the solver front sets it for a guess */
  char err[256];
  LsimSolverOptions o = lsim_default_solver_options();
  o.tol = RES_TOL, o.warm_start = 1;
  LsimSolver *front; /* the same through lsim_solver_set_cover_previous */
  assert_int_equal(lsim_solver_create(&front, "lemke_sparse", &o, err, sizeof err), 0);
  lsim_solver_set_cover_previous(front, 1);
  long piv[2] = {0, 0};
  int solves = 0, differ = 0;
  for (int k = 0; k < 120; ++k) {
    const unsigned char *g;
    const LsimFactoredLcp *f = step_carried(&sc, &g);
    if (!f) continue;
    const int n = f->n;
    double *z = malloc((size_t)n * sizeof(double));
    int pivots[2];
    for (int on = 0; on < 2; ++on) {
      LsimLemkeInfo si;
      memset(&si, 0, sizeof si);
      memcpy(z, lsim_stepper_warm_guess(sc.stepper), (size_t)n * sizeof(double));
      lsim_lemke_sparse_set_cover_previous(sl, on);
      assert_int_equal(lsim_lemke_sparse_solve(sl, f, NULL, g, z, &si), LSIM_SOLVED);
      assert_true(rel_residual(f, z) <= RES_TOL);
      pivots[on] = si.pivots;
      piv[on] += si.pivots;
    }
    differ += pivots[0] != pivots[1];
    memcpy(z, lsim_stepper_warm_guess(sc.stepper), (size_t)n * sizeof(double));
    lsim_solver_set_basis_guess(front, g);
    LsimSolveStats st;
    assert_int_equal(lsim_solver_solve_factored(front, f, z, &st), LSIM_SOLVED);
    assert_int_equal(st.iterations, pivots[1]);
    ++solves;
    free(z);
  }
  print_message("cover from the previous values: %d solves, pivots %ld with B e, %ld with B x' "
                "(%d differ)\n", solves, piv[0], piv[1], differ);
  assert_true(solves > 50);
  assert_true(differ > 0);
  lsim_solver_free(front);
  lsim_lemke_sparse_free(sl);
  scene_stepper_close(&sc);
}

/* lsim_lemke_sparse_set_block_start: the carried basis repaired by block principal
 * pivoting before Lemke's path. On each of a scene's steps (driven by lemke_sparse, so the
 * guess is the last step's final basis by contact id) the step is solved from the carried
 * basis without and with 16 rounds (as the solver front sets the retry): both solved
 * within 1e-10, and with the rounds no more pivots in all than without (falling pile_1000
 * is where it pays, docs/solvers.md; here pile_10 and pile_100's first 40 steps). Where
 * the repaired basis's path fails (4 of pile_10's 113 solves: asserted to happen), the
 * guess as given follows in the same stage and the solve still ends solved; pile_100's
 * falling steps measured 2723 -> 683 pivots. Returns the solves; pivots summed into piv[2],
 * fallbacks into *fallbacks, solves whose pivots differ into *differ. A front (NULL: none)
 * solves each step from the same guess too and must take the pivots of the call with the
 * rounds. */
static int block_series(const char *scene, int steps, long piv[2], int *fallbacks, int *differ,
                        LsimSolver *front) {
  SceneStepper sc;
  assert_int_equal(scene_stepper_open(&sc, scene, "lemke_sparse", RES_TOL), 0);
  LsimLemkeSparse *sl = lsim_lemke_sparse_create();
  lsim_lemke_sparse_set_retry_positive(sl, 1);
  int solves = 0;
  for (int k = 0; k < steps; ++k) {
    const unsigned char *g;
    const LsimFactoredLcp *f = step_carried(&sc, &g);
    if (!f) continue;
    const int n = f->n;
    double *z = malloc((size_t)n * sizeof(double));
    int pivots[2];
    for (int on = 0; on < 2; ++on) {
      LsimLemkeInfo si;
      memset(&si, 0, sizeof si);
      memcpy(z, lsim_stepper_warm_guess(sc.stepper), (size_t)n * sizeof(double));
      lsim_lemke_sparse_set_block_start(sl, on ? 16 : 0);
      assert_int_equal(lsim_lemke_sparse_solve(sl, f, NULL, g, z, &si), LSIM_SOLVED);
      assert_true(rel_residual(f, z) <= RES_TOL);
      if (!on) assert_int_equal(si.block_fallback, 0);
      *fallbacks += si.block_fallback;
      pivots[on] = si.pivots;
      piv[on] += si.pivots;
    }
    *differ += pivots[0] != pivots[1];
    if (front) {
      memcpy(z, lsim_stepper_warm_guess(sc.stepper), (size_t)n * sizeof(double));
      lsim_solver_set_basis_guess(front, g);
      LsimSolveStats st;
      assert_int_equal(lsim_solver_solve_factored(front, f, z, &st), LSIM_SOLVED);
      assert_int_equal(st.iterations, pivots[1]);
      assert_true(rel_residual(f, z) <= RES_TOL);
    }
    ++solves;
    free(z);
  }
  lsim_lemke_sparse_free(sl);
  scene_stepper_close(&sc);
  return solves;
}

static void test_block_start(void **state) {
  (void)state;
  const char *scenes[] = {"data/pile_10.json", "data/pile_100.json"};
  const int steps[] = {120, 40};
  for (int s = 0; s < 2; ++s) {
    long piv[2] = {0, 0};
    int fallbacks = 0, differ = 0;
    const int solves = block_series(scenes[s], steps[s], piv, &fallbacks, &differ, NULL);
    print_message("block start, %s: %d solves, pivots %ld from the carried basis, %ld from "
                  "it repaired (%d differ, %d fell back to the guess as given)\n",
                  scenes[s], solves, piv[0], piv[1], differ, fallbacks);
    assert_true(solves > 30);
    assert_true(differ > 0); /* the rounds ran and chose other starts */
    assert_true(piv[1] <= piv[0]);
    /* The fallback ran (pile_10: 4 of 113 measured) and those solves ended solved. */
    if (s == 0) assert_true(fallbacks > 0);
    /* The falling pile's paths at least halved (measured: a quarter). */
    if (s == 1) assert_true(2 * piv[1] <= piv[0]);
  }
}

/* lsim_lemke_sparse_set_principal: principal pivots from the carried basis before Lemke's
 * path. On each of a scene's steps (driven by lemke_sparse, so the guess is the last step's
 * final basis by contact id) the step is solved from the carried basis without and with the
 * phase (budget 2000, the retry as the solver front sets it): both solved within 1e-10.
 * Where the phase stopped short (principal_solved 0) the solve went on from the guess as
 * given, so its status, z bytes and Lemke's pivots (pivots less the phase's) are those of
 * the solve without; where it solved, every pivot was the phase's, in the guess stage.
 * The solver front with lsim_solver_set_principal solves each step to the same pivots and
 * z bytes. Counts into c: [0] solves, [1] solved by the phase, [2] fell back. */
static void principal_series(const char *scene, int steps, int c[3]) {
  char err[256];
  LsimSolverOptions o = lsim_default_solver_options();
  o.tol = RES_TOL, o.warm_start = 1;
  LsimSolver *front;
  assert_int_equal(lsim_solver_create(&front, "lemke_sparse", &o, err, sizeof err), 0);
  lsim_solver_set_principal(front, 2000);
  SceneStepper sc;
  assert_int_equal(scene_stepper_open(&sc, scene, "lemke_sparse", RES_TOL), 0);
  LsimLemkeSparse *sl = lsim_lemke_sparse_create();
  lsim_lemke_sparse_set_retry_positive(sl, 1);
  for (int k = 0; k < steps; ++k) {
    const unsigned char *g;
    const LsimFactoredLcp *f = step_carried(&sc, &g);
    if (!f) continue;
    const int n = f->n;
    double *z[2] = {malloc((size_t)n * sizeof(double)), malloc((size_t)n * sizeof(double))};
    LsimLemkeInfo si[2];
    int status[2];
    for (int on = 0; on < 2; ++on) {
      memset(&si[on], 0, sizeof si[on]);
      memcpy(z[on], lsim_stepper_warm_guess(sc.stepper), (size_t)n * sizeof(double));
      lsim_lemke_sparse_set_principal(sl, on ? 2000 : 0);
      status[on] = lsim_lemke_sparse_solve(sl, f, NULL, g, z[on], &si[on]);
      assert_int_equal(status[on], LSIM_SOLVED);
      assert_true(rel_residual(f, z[on]) <= RES_TOL);
    }
    assert_int_equal(si[0].principal_pivots, 0);
    assert_int_equal(si[0].principal_solved, 0);
    if (si[1].principal_solved) {
      ++c[1];
      assert_int_equal(si[1].pivots, si[1].principal_pivots);
      assert_int_equal(si[1].stage_pivots[LSIM_LEMKE_STAGE_GUESS], si[1].pivots);
    } else {
      c[2] += si[1].principal_pivots > 0;
      assert_int_equal(status[1], status[0]);
      assert_int_equal(si[1].pivots - si[1].principal_pivots, si[0].pivots);
      assert_memory_equal(z[1], z[0], (size_t)n * sizeof(double));
    }
    /* The solver front with lsim_solver_set_principal: the same solve. */
    memcpy(z[0], lsim_stepper_warm_guess(sc.stepper), (size_t)n * sizeof(double));
    lsim_solver_set_basis_guess(front, g);
    LsimSolveStats st;
    assert_int_equal(lsim_solver_solve_factored(front, f, z[0], &st), LSIM_SOLVED);
    assert_int_equal(st.iterations, si[1].pivots);
    assert_memory_equal(z[0], z[1], (size_t)n * sizeof(double));
    ++c[0];
    free(z[0]), free(z[1]);
  }
  lsim_solver_free(front);
  lsim_lemke_sparse_free(sl);
  scene_stepper_close(&sc);
}

static void test_principal_phase(void **state) {
  (void)state;
  int c[3] = {0, 0, 0};
  principal_series("data/pile_10.json", 120, c);
  print_message("principal phase, pile_10: %d solves, %d solved by the phase, %d fell back\n",
                c[0], c[1], c[2]);
  assert_true(c[0] > 100);
  assert_true(c[1] > 0); /* the phase solved some steps by itself */
  assert_true(c[2] > 0); /* and stopped short on others, which Lemke then solved */
  /* pile_100: the falling steps, then the first settled ones (measured: the phase solves
     53 of steps 0-60 by itself and stops short on most settled steps from 68 on). */
  int d[3] = {0, 0, 0};
  principal_series("data/pile_100.json", 76, d);
  print_message("principal phase, pile_100 steps 0-75: %d solves, %d solved by the phase, %d "
                "fell back\n", d[0], d[1], d[2]);
  assert_true(d[0] > 60);
  assert_true(d[1] > 40);
  assert_true(d[2] > 0);
}

/* LsimSolverOptions.block_start (compare's lemke_sparse[block=K]) reaches the solve: through
 * the solver front with 16 rounds each of pile_10's steps (driven by lemke_sparse, the
 * carried basis as the guess) takes the pivots of the direct call with 16 rounds, and some
 * step's pivots differ from the call without (so the rounds ran); 1001 rounds are refused
 * at the front's creation. */
static void test_block_start_option(void **state) {
  (void)state;
  char err[256];
  LsimSolverOptions o = lsim_default_solver_options();
  o.tol = RES_TOL, o.warm_start = 1, o.block_start = 1001;
  LsimSolver *front;
  assert_int_equal(lsim_solver_create(&front, "lemke_sparse", &o, err, sizeof err),
                   LSIM_INVALID_INPUT);
  assert_non_null(strstr(err, "0 <= block_start <= 1000"));
  o.block_start = 16;
  assert_int_equal(lsim_solver_create(&front, "lemke_sparse", &o, err, sizeof err), 0);
  long piv[2] = {0, 0};
  int fallbacks = 0, differ = 0;
  const int solves = block_series("data/pile_10.json", 60, piv, &fallbacks, &differ, front);
  assert_true(solves > 30);
  assert_true(differ > 0);
  lsim_solver_free(front);
}

/* lsim_lemke_sparse_set_own_solve: B_0's solves on the LU factors read out of UMFPACK
 * (triangles by columns or rows, zeros skipped) instead of UMFPACK's solve. The sums go in
 * another order, so the bits differ and at a degenerate vertex a tie may go the other way:
 * every problem UMFPACK's solves solve must be solved (within RES_TOL) with the own
 * solves too; the problems whose status or pivots differ are counted and printed
 * (chain_20's step 128 ends on a ray with UMFPACK's solves over OpenBLAS's AVX-512
 * kernels, test_dumped_steps, and is solved with the own ones). */
static void test_own_solve_path(void **state) {
  (void)state;
  long rows[3] = {0, 0, 0};
  const int solves =
      compare_settings(lsim_lemke_sparse_set_own_solve, (const int[2]){0, 1}, -1, rows);
  print_message("own LU solves: %d solves, %ld with other pivots; transposed solves %ld / %ld\n",
                solves, rows[2], rows[0], rows[1]);
  assert_true(solves > 50);
  /* Rounding moves a path only at a near tie: 13 of 121 measured. A wrong solve that the
     final acceptance still covers moves most (94 of 121 with U's diagonal left out of
     BTRAN, the tie rows wrong): at most a quarter. */
  assert_true(4 * rows[2] <= solves);
}

/* lsim_lemke_sparse_set_klu: B_0 factored and solved by KLU instead of UMFPACK. Other
 * factors, so other bits, and at a degenerate vertex a tie may go the other way: every
 * problem UMFPACK solves must be solved (within RES_TOL) with KLU too; the problems whose
 * status or pivots differ are counted and printed (chain_20's step 128 ends on a ray with
 * UMFPACK over OpenBLAS's AVX-512 kernels, test_dumped_steps). */
static void test_klu_path(void **state) {
  (void)state;
  long rows[3] = {0, 0, 0};
  const int solves = compare_settings(lsim_lemke_sparse_set_klu, (const int[2]){0, 1}, -1, rows);
  print_message("KLU: %d solves, %ld with other pivots; transposed solves %ld / %ld\n", solves,
                rows[2], rows[0], rows[1]);
  assert_true(solves > 50);
  /* As test_own_solve_path: rounding moves a path only at a near tie; at most a quarter. */
  assert_true(4 * rows[2] <= solves);
}

/* lsim_lemke_sparse_set_refactor as a setter of compare_settings (mode: the interval). */
static void set_refactor(LsimLemkeSparse *ws, int every) {
  assert_int_equal(lsim_lemke_sparse_set_refactor(ws, every), 0);
}

/* lsim_lemke_sparse_set_refactor: B_0 refactored every 200 pivots instead of 100. Other
 * refactorization points round otherwise, so a path may part at a near tie: every problem
 * solved with 100 must be solved with 200, at most a quarter with other pivots (as
 * test_own_solve_path). Intervals outside 10 .. 100000 are refused and change nothing:
 * the next solve with 200 takes the same pivots and z bits as before them. */
static void test_refactor_interval(void **state) {
  (void)state;
  long rows[3] = {0, 0, 0};
  const int solves = compare_settings(set_refactor, (const int[2]){100, 200}, -1, rows);
  print_message("refactor every 200: %d solves, %ld with other pivots; transposed solves %ld / "
                "%ld\n", solves, rows[2], rows[0], rows[1]);
  assert_true(solves > 50);
  assert_true(4 * rows[2] <= solves);
  /* Refused values leave the interval as it was. */
  LsimLcp lcp;
  char err[256];
  assert_int_equal(lsim_dat_read("tests/data/lemke_pile10_step26.dat", &lcp, err, sizeof err), 0);
  AsFactored a;
  as_factored(&a, &lcp);
  const int n = lcp.n;
  double *z0 = calloc((size_t)n, sizeof(double)), *z1 = calloc((size_t)n, sizeof(double));
  LsimLemkeSparse *sl = lsim_lemke_sparse_create();
  LsimLemkeInfo i0, i1;
  memset(&i0, 0, sizeof i0), memset(&i1, 0, sizeof i1);
  assert_int_equal(lsim_lemke_sparse_set_refactor(sl, 20), 0);
  assert_int_equal(lsim_lemke_sparse_solve(sl, &a.f, NULL, NULL, z0, &i0), LSIM_SOLVED);
  int f0, f1;
  lsim_lemke_sparse_counts(sl, &f0, NULL, NULL);
  assert_int_equal(lsim_lemke_sparse_set_refactor(sl, 9), LSIM_INVALID_INPUT);
  assert_int_equal(lsim_lemke_sparse_set_refactor(sl, 0), LSIM_INVALID_INPUT);
  assert_int_equal(lsim_lemke_sparse_set_refactor(sl, 100001), LSIM_INVALID_INPUT);
  assert_int_equal(lsim_lemke_sparse_set_refactor(NULL, 100), LSIM_INVALID_INPUT);
  assert_int_equal(lsim_lemke_sparse_solve(sl, &a.f, NULL, NULL, z1, &i1), LSIM_SOLVED);
  lsim_lemke_sparse_counts(sl, &f1, NULL, NULL);
  assert_int_equal(i1.pivots, i0.pivots);
  assert_int_equal(f1, f0);
  assert_memory_equal(z1, z0, (size_t)n * sizeof(double));
  /* 20 pivots between refactorizations: a path of more than 20 pivots refactors. */
  print_message("every 20: %d pivots, %d factorizations\n", i0.pivots, f0);
  assert_true(i0.pivots <= 20 || f0 >= 2);
  lsim_lemke_sparse_free(sl);
  free(z0), free(z1);
  as_factored_free(&a);
  lsim_lcp_free(&lcp);
}

/* The solves themselves (lsim_lemke_sparse_test_solves): after each solve of the problems
 * of compare_settings, B_0 x = b and B_0^T x = b for b = q, three unit vectors and a dense
 * vector, by UMFPACK and by the factors read out. Both are substitutions in the same L and
 * U, whose rounding error bound (Higham, Accuracy and Stability, Thm 8.5: (T + dT) x = b,
 * |dT| <= gamma_n |T|) does not depend on the order of the sums; so the residual
 * |b - B_0 x| of the own solve must stay of the size of UMFPACK's: within 8 times it plus
 * 8 n eps max(|B_0| |x| + |b|) (the residual's own rounding, and room for a residual of
 * UMFPACK's that came out small by chance). On these problems the two also agree to
 * 1e-6 of max|x|: rcond >= 1e-15 alone would allow more, their condition is lower. */
static void test_own_solves(void **state) {
  (void)state;
  LsimLemkeSparse *sl = lsim_lemke_sparse_create();
  lsim_lemke_sparse_set_own_solve(sl, 0);
  const char *files[] = {"tests/data/lemke_pile10_step19.dat",
                         "tests/data/lemke_pile10_step26.dat",
                         "tests/data/lemke_tumble_cycle.dat",
                         "tests/data/lemke_chain20_step142.dat"};
  SceneStepper sc;
  assert_int_equal(scene_stepper_open(&sc, "data/pile_10.json", "newton", RES_TOL), 0);
  const int nfiles = (int)(sizeof files / sizeof files[0]);
  int checked = 0;
  double worst = 0.0;
  for (int k = 0; k < nfiles + 60; ++k) {
    LsimLcp lcp;
    AsFactored a;
    const LsimFactoredLcp *f = nth_problem(k, files, nfiles, &sc, &lcp, &a);
    const int n = f->n;
    if (n > 0) {
      double *z = calloc((size_t)n, sizeof(double)), *b = malloc((size_t)n * sizeof(double));
      double *x0 = malloc((size_t)n * sizeof(double)), *x1 = malloc((size_t)n * sizeof(double));
      LsimLemkeInfo si;
      memset(&si, 0, sizeof si); /* no trace */
      const int st = lsim_lemke_sparse_solve(sl, f, NULL, NULL, z, &si);
      int fa = 0;
      lsim_lemke_sparse_counts(sl, &fa, NULL, NULL);
      for (int rhs = 0; st == LSIM_SOLVED && fa > 0 && rhs < 5; ++rhs) {
        for (int i = 0; i < n; ++i)
          b[i] = rhs == 0   ? f->q[i] /* q, unit vectors at 0, n/2, n - 1, a dense vector */
                 : rhs == 4 ? sin(1.0 + i)
                            : (double)(i == (rhs - 1) * (n - 1) / 2);
        for (int tr = 0; tr < 2; ++tr) {
          double res[3];
          assert_int_equal(lsim_lemke_sparse_test_solves(sl, tr, b, x0, x1, res), 0);
          const double eps = 2.220446049250313e-16;
          assert_true(res[1] <= 8.0 * res[0] + 8.0 * n * eps * res[2]);
          const double xm = lsim_test_max_abs(x0, n);
          double d = 0.0;
          for (int i = 0; i < n; ++i) d = fmax(d, fabs(x1[i] - x0[i]));
          assert_true(d <= 1e-6 * xm);
          worst = fmax(worst, xm > 0.0 ? d / xm : 0.0);
          ++checked;
        }
      }
      free(z), free(b), free(x0), free(x1);
    }
    if (k < nfiles) {
      as_factored_free(&a);
      lsim_lcp_free(&lcp);
    }
  }
  print_message("own LU solves against UMFPACK's: %d systems, largest difference %.1e of max|x|\n",
                checked, worst);
  assert_true(checked > 100);
  lsim_lemke_sparse_free(sl);
  scene_stepper_close(&sc);
}

/* No solution with the weighted cover: M = 0, q = (1, -1) (w_2 = -1 whatever z), guessed
 * basis all w, the caller's point z = (1, 1). d = B x' with x' = (1 + 1, 0 + 1): z0 enters at
 * 1, w_2 leaves, z_2's column (-M e_2 = 0) meets no blocking row: a secondary ray at the
 * path's first pivot, recorded for the guessed basis; the cold runs follow and end on rays;
 * the status says so, no basis is recorded and z is finite; likewise with the retries
 * from {z > 0} between them. */
static void test_cover_previous_no_solution(void **state) {
  (void)state;
  LsimLemkeSparse *ws = lsim_lemke_sparse_create();
  const int ptr[3] = {0, 0, 0};
  double q[2] = {1.0, -1.0}, z[2] = {1.0, 1.0};
  const unsigned char guess[2] = {0, 0};
  LsimFactoredLcp f = {.n = 2, .m = 0, .J_ptr = ptr, .B_ptr = ptr, .q = q};
  LsimLemkeInfo info;
  memset(&info, 0, sizeof info);
  lsim_lemke_sparse_set_cover_previous(ws, 1);
  assert_int_equal(lsim_lemke_sparse_solve(ws, &f, NULL, guess, z, &info), LSIM_SECONDARY_RAY);
  assert_int_equal(info.stage_status[LSIM_LEMKE_STAGE_GUESS], LSIM_SECONDARY_RAY);
  assert_int_equal(info.stage_pivots[LSIM_LEMKE_STAGE_GUESS], 0);
  assert_int_equal(info.stage_status[LSIM_LEMKE_STAGE_COLD], LSIM_SECONDARY_RAY);
  assert_true(isfinite(z[0]) && isfinite(z[1]));
  assert_null(lsim_lemke_sparse_basis(ws));
  /* With the retries from {z > 0} (covered, then with B e) before the cold runs: each
     fails, and so does the solve. */
  lsim_lemke_sparse_set_retry_positive(ws, 1);
  z[0] = z[1] = 1.0;
  memset(&info, 0, sizeof info);
  assert_int_equal(lsim_lemke_sparse_solve(ws, &f, NULL, guess, z, &info), LSIM_SECONDARY_RAY);
  assert_int_equal(info.stage_status[LSIM_LEMKE_STAGE_GUESS], LSIM_SECONDARY_RAY);
  assert_true(info.stage_status[LSIM_LEMKE_STAGE_RETRY] != LSIM_SOLVED &&
              info.stage_pivots[LSIM_LEMKE_STAGE_RETRY] >= 0);
  assert_int_equal(info.stage_status[LSIM_LEMKE_STAGE_COLD], LSIM_SECONDARY_RAY);
  assert_true(isfinite(z[0]) && isfinite(z[1]));
  assert_null(lsim_lemke_sparse_basis(ws));
  lsim_lemke_sparse_free(ws);
}

/* lsim_lemke_sparse_set_warm_only: with a guess, only the warm path runs. On the dumped
 * box-on-box step (tests/data/lemke_stack_ray.dat, n = 48; cold Lemke solves it) the guess
 * "every z basic" breaks down at once (0 pivots; more impulses than the two boxes' 12
 * velocities): with warm_only the solve fails and hands back the caller's point (zeros)
 * exactly; without, the cold runs follow and solve it to 1e-10; with warm_only and no
 * guess the cold runs run as before and solve it. */
static void test_warm_only(void **state) {
  (void)state;
  LsimLcp lcp;
  char err[256];
  assert_int_equal(lsim_dat_read("tests/data/lemke_stack_ray.dat", &lcp, err, sizeof err), 0);
  const int n = lcp.n;
  AsFactored a;
  as_factored(&a, &lcp);
  LsimLemkeSparse *sl = lsim_lemke_sparse_create();
  double *z = calloc((size_t)n, sizeof(double));
  unsigned char *all = malloc((size_t)n);
  memset(all, 1, (size_t)n);
  LsimLemkeInfo si;
  memset(&si, 0, sizeof si);
  lsim_lemke_sparse_set_warm_only(sl, 1);
  const int warm = lsim_lemke_sparse_solve(sl, &a.f, NULL, all, z, &si);
  print_message("warm only, every z basic: %s after %d pivots\n", lsim_status_name(warm),
                si.pivots);
  assert_true(warm < 0);
  assert_true(lsim_test_max_abs(z, n) == 0.0);
  /* The record of the runs: the guess's run only, its status the solve's, 0 pivots. */
  assert_int_equal(si.stage_status[LSIM_LEMKE_STAGE_GUESS], warm);
  assert_int_equal(si.stage_pivots[LSIM_LEMKE_STAGE_GUESS], 0);
  for (int k = LSIM_LEMKE_STAGE_RETRY; k < LSIM_LEMKE_STAGES; ++k)
    assert_int_equal(si.stage_pivots[k], -1);
  assert_int_equal(lsim_lemke_sparse_solve(sl, &a.f, NULL, NULL, z, &si), LSIM_SOLVED);
  assert_true(rel_residual(&a.f, z) <= RES_TOL);
  /* No guess: the first cold run alone, all the pivots its own. */
  assert_int_equal(si.stage_pivots[LSIM_LEMKE_STAGE_GUESS], -1);
  assert_int_equal(si.stage_status[LSIM_LEMKE_STAGE_COLD], LSIM_SOLVED);
  assert_int_equal(si.stage_pivots[LSIM_LEMKE_STAGE_COLD], si.pivots);
  const int cold_pivots = si.pivots;
  lsim_lemke_sparse_set_warm_only(sl, 0);
  memset(z, 0, (size_t)n * sizeof(double));
  assert_int_equal(lsim_lemke_sparse_solve(sl, &a.f, NULL, all, z, &si), LSIM_SOLVED);
  assert_true(rel_residual(&a.f, z) <= RES_TOL);
  /* The guess breaks down at once (0 pivots), the cold run follows and solves as above:
     the record says which run did the work. */
  assert_int_equal(si.stage_status[LSIM_LEMKE_STAGE_GUESS], warm);
  assert_int_equal(si.stage_pivots[LSIM_LEMKE_STAGE_GUESS], 0);
  assert_int_equal(si.stage_status[LSIM_LEMKE_STAGE_COLD], LSIM_SOLVED);
  assert_int_equal(si.stage_pivots[LSIM_LEMKE_STAGE_COLD], cold_pivots);
  assert_int_equal(si.pivots, cold_pivots);
  assert_int_equal(si.restarts, 1);
  free(z), free(all);
  lsim_lemke_sparse_free(sl);
  as_factored_free(&a);
  lsim_lcp_free(&lcp);
}

/* Input errors: bad options and a NaN in q are refused; no solution (M = 0, q_2 < 0) fails
 * with a finite z; n = 0 is solved at once. */
static void test_bad_input_and_trivial(void **state) {
  (void)state;
  LsimLemkeSparse *ws = lsim_lemke_sparse_create();
  assert_non_null(ws);
  const int ptr[3] = {0, 0, 0};
  double q[2] = {1.0, NAN}, z[2] = {0.0, 0.0};
  LsimFactoredLcp f = {.n = 2, .m = 0, .J_ptr = ptr, .B_ptr = ptr, .q = q};
  LsimLemkeInfo info;
  memset(&info, 0, sizeof info);
  assert_int_equal(lsim_lemke_sparse_solve(ws, &f, NULL, NULL, z, &info), LSIM_INVALID_INPUT);
  q[1] = -2.0;
  LsimLemkeOptions o = lsim_default_lemke_options();
  o.tol = -1.0;
  assert_int_equal(lsim_lemke_sparse_solve(ws, &f, &o, NULL, z, &info), LSIM_INVALID_INPUT);
  z[0] = NAN, z[1] = INFINITY;
  const int rc = lsim_lemke_sparse_solve(ws, &f, NULL, NULL, z, &info);
  assert_true(rc != LSIM_SOLVED);
  assert_true(isfinite(z[0]) && isfinite(z[1]));
  f.n = 0;
  assert_int_equal(lsim_lemke_sparse_solve(ws, &f, NULL, NULL, z, &info), LSIM_SOLVED);
  lsim_lemke_sparse_free(ws);
}

/* n identical contacts, M = J B + C with J = ones (n x 1), B = ones (1 x n), C = I, and
 * q = -1: z_i = 1 / (n + 1) for all i (M z + q = n z_i + z_i - 1 = 0), w = 0. Every ratio
 * test of the cold path ties all the rows still basic, so the lexicographic rule decides
 * each pivot. Rows of B^{-1} compared pairwise cost a transposed solve per tied row (the
 * first pivot alone ties all n); the column scan of the tie (lex_min in lemke_driver.c)
 * rules them out on the unit columns of the basic w, so the solves of the rule stay below
 * n / 4 over the whole path. Dense Lemke (explicit inverse) takes the same pivots. */
static void test_identical_contacts_tie(void **state) {
  (void)state;
  enum { N = 60 };
  int jp[N + 1], ji[N], bp[N + 1], bi[N], cp[N + 1], ci[N];
  double jv[N], bv[N], cv[N], q[N], z[N], zd[N], Md[N * N];
  for (int i = 0; i < N; ++i) {
    jp[i] = bp[i] = cp[i] = i;
    ji[i] = bi[i] = 0;
    ci[i] = i;
    jv[i] = bv[i] = cv[i] = 1.0;
    q[i] = -1.0;
    z[i] = zd[i] = 0.0;
    for (int j = 0; j < N; ++j) Md[i + (size_t)j * N] = i == j ? 2.0 : 1.0;
  }
  jp[N] = bp[N] = cp[N] = N;
  const LsimFactoredLcp f = {.n = N, .m = 1, .J_ptr = jp, .J_idx = ji, .J_val = jv,
                             .B_ptr = bp, .B_idx = bi, .B_val = bv, .C_ptr = cp, .C_idx = ci,
                             .C_val = cv, .q = q};
  LsimLemkeSparse *ws = lsim_lemke_sparse_create();
  assert_non_null(ws);
  LsimLemkeInfo info;
  memset(&info, 0, sizeof info);
  assert_int_equal(lsim_lemke_sparse_solve(ws, &f, NULL, NULL, z, &info), LSIM_SOLVED);
  /* 1e-14: the exact solution is reached by N pivots on a well-conditioned basis. */
  for (int i = 0; i < N; ++i) assert_true(fabs(z[i] - 1.0 / (N + 1)) < 1e-14);
  int factorizations, rows, cols;
  lsim_lemke_sparse_counts(ws, &factorizations, &rows, &cols);
  printf("identical contacts, n %d: %d pivots, %d rows and %d columns of B^{-1} solved for "
         "ties\n", N, info.pivots, rows, cols);
  assert_true(rows + cols < N / 4);
  /* Dense Lemke on the formed M: the same pivots. */
  const LsimLcp lcp = {.n = N, .M = Md, .q = q};
  LsimLemke *wd = lsim_lemke_create();
  LsimLemkeInfo infod;
  memset(&infod, 0, sizeof infod);
  assert_int_equal(lsim_lemke_solve(wd, &lcp, NULL, NULL, zd, &infod), LSIM_SOLVED);
  assert_int_equal(infod.pivots, info.pivots);
  lsim_lemke_free(wd);
  lsim_lemke_sparse_free(ws);
}

static int cmp_ints(const void *a, const void *b) {
  const int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* The basis columns' row sort (lsim_lemke_sparse_sort_rows) against qsort, exactly, on
 * the orders it meets: ascending (left as it is), a merge of ascending runs as a column of
 * M = J B + C lists them (the columns of J of a contact's bodies, each ascending), the
 * reverse order and shuffles; lengths from 0 to 200, across the insertion/qsort bound of
 * 64 entries. Integers: the order must be the same exactly. */
static void test_sort_rows(void **state) {
  (void)state;
  enum { L = 200 };
  int t[L], ref[L];
  LsimRng rng = lsim_rng(17);
  const int lens[] = {0, 1, 2, 3, 12, 36, 63, 64, 65, 100, 200};
  for (size_t li = 0; li < sizeof lens / sizeof lens[0]; ++li)
    for (int kind = 0; kind < 4; ++kind) {
      const int cnt = lens[li];
      /* Distinct rows: 3 k + a random offset in {0, 1, 2}, then ordered as kind says. */
      for (int k = 0; k < cnt; ++k) t[k] = 3 * k + (int)(3.0 * lsim_rng_uniform(&rng));
      if (kind == 1) { /* three ascending runs interleaved by blocks: k mod 3 first */
        int p = 0, u[L];
        for (int r = 0; r < 3; ++r)
          for (int k = r; k < cnt; k += 3) u[p++] = t[k];
        memcpy(t, u, (size_t)cnt * sizeof(int));
      } else if (kind == 2) {
        for (int k = 0; k < cnt / 2; ++k) {
          const int x = t[k];
          t[k] = t[cnt - 1 - k], t[cnt - 1 - k] = x;
        }
      } else if (kind == 3) {
        for (int k = cnt - 1; k > 0; --k) {
          const int p = (int)((k + 1) * lsim_rng_uniform(&rng)), x = t[k];
          t[k] = t[p], t[p] = x;
        }
      }
      memcpy(ref, t, (size_t)cnt * sizeof(int));
      qsort(ref, (size_t)cnt, sizeof(int), cmp_ints);
      lsim_lemke_sparse_sort_rows(t, cnt);
      for (int k = 0; k < cnt; ++k) assert_int_equal(t[k], ref[k]);
    }
}

/* B_0's columns are formed once a solve and kept for its later refactorizations: a
 * workspace that solved other problems of the same size, handed in the same
 * LsimFactoredLcp struct (same address, new contents), must solve each exactly as a fresh
 * workspace does: same status, pivots and factorizations, z bit for bit. Three dumped
 * pile_10 steps of n = 240, solved in turn twice (the second round after the others);
 * a column kept from an earlier solve would change the factored matrices and the path. */
static void test_columns_per_solve(void **state) {
  (void)state;
  static const char *files[] = {"tests/data/lemke_pile10_step25.dat",
                                "tests/data/lemke_pile10_step26.dat",
                                "tests/data/lemke_pile10_step30.dat"};
  enum { NF = sizeof files / sizeof files[0] };
  LsimLcp lcp[NF];
  AsFactored a[NF];
  for (int k = 0; k < NF; ++k) {
    char err[256];
    assert_int_equal(lsim_dat_read(files[k], &lcp[k], err, sizeof err), 0);
    assert_int_equal(lcp[k].n, lcp[0].n);
    as_factored(&a[k], &lcp[k]);
  }
  const int n = lcp[0].n;
  LsimLemkeSparse *shared = lsim_lemke_sparse_create();
  LsimFactoredLcp f; /* one struct for every problem handed to the shared workspace */
  double *z = malloc((size_t)n * sizeof(double)), *zf = malloc((size_t)n * sizeof(double));
  int multi = 0;
  for (int round = 0; round < 2; ++round)
    for (int k = 0; k < NF; ++k) {
      LsimLemkeSparse *fresh = lsim_lemke_sparse_create();
      LsimLemkeInfo si, fi;
      memset(&si, 0, sizeof si), memset(&fi, 0, sizeof fi);
      memset(z, 0, (size_t)n * sizeof(double)), memset(zf, 0, (size_t)n * sizeof(double));
      f = a[k].f;
      const int ss = lsim_lemke_sparse_solve(shared, &f, NULL, NULL, z, &si);
      const int fs = lsim_lemke_sparse_solve(fresh, &a[k].f, NULL, NULL, zf, &fi);
      int sfac, ffac;
      lsim_lemke_sparse_counts(shared, &sfac, NULL, NULL);
      lsim_lemke_sparse_counts(fresh, &ffac, NULL, NULL);
      assert_int_equal(ss, LSIM_SOLVED);
      assert_int_equal(ss, fs);
      assert_int_equal(si.pivots, fi.pivots);
      assert_int_equal(sfac, ffac);
      multi += sfac > 1;
      assert_memory_equal(z, zf, (size_t)n * sizeof(double));
      lsim_lemke_sparse_free(fresh);
    }
  assert_true(multi > 0); /* some solve refactored, so kept columns were used */
  free(z), free(zf);
  lsim_lemke_sparse_free(shared);
  for (int k = 0; k < NF; ++k) as_factored_free(&a[k]), lsim_lcp_free(&lcp[k]);
}

/* The chain_20 steps (test_dumped_steps) under one BLAS kernel: the child process that
 * test_blas_kernels starts with OPENBLAS_CORETYPE set (read by OpenBLAS when it loads).
 * Exit status 0 when sparse Lemke solves both to RES_TOL, 1 when not, 2 on bad setup;
 * with LSIM_KERNEL_NO_FALLBACK set, without the dense fallback; with LSIM_KERNEL_KLU set,
 * B_0 by KLU (lsim_lemke_sparse_set_klu), each solve's line then ending with the FNV-1a
 * hash of z's bytes. */
static int kernel_child(void) {
  static const char *files[] = {"tests/data/lemke_chain20_step128.dat",
                                "tests/data/lemke_chain20_step142.dat"};
  LsimLemkeSparse *sl = lsim_lemke_sparse_create();
  if (!sl) return 2;
  lsim_lemke_sparse_set_dense_fallback(sl, getenv("LSIM_KERNEL_NO_FALLBACK") == NULL);
  const int klu = getenv("LSIM_KERNEL_KLU") != NULL;
  lsim_lemke_sparse_set_klu(sl, klu);
  int bad = 0;
  for (size_t k = 0; k < sizeof files / sizeof files[0]; ++k) {
    LsimLcp lcp;
    char err[256];
    if (lsim_dat_read(files[k], &lcp, err, sizeof err)) return 2;
    AsFactored a;
    as_factored(&a, &lcp);
    double *z = calloc((size_t)lcp.n, sizeof(double));
    LsimLemkeInfo si;
    memset(&si, 0, sizeof si);
    const int ss = lsim_lemke_sparse_solve(sl, &a.f, NULL, NULL, z, &si);
    const double rel = rel_residual(&a.f, z);
    unsigned long long zh = 14695981039346656037ull;
    for (size_t b = 0; b < (size_t)lcp.n * sizeof(double); ++b)
      zh = (zh ^ ((const unsigned char *)z)[b]) * 1099511628211ull;
    printf("  %s %s%s: %s (%d pivots, dense fallback %d) rel %.1e", getenv("OPENBLAS_CORETYPE"),
           files[k], klu ? " (KLU)" : "", lsim_status_name(ss), si.pivots,
           si.stage_pivots[LSIM_LEMKE_STAGE_DENSE], rel);
    if (klu) printf(" z %016llx", zh);
    printf("\n");
    bad |= ss != LSIM_SOLVED || !(rel <= RES_TOL);
    free(z);
    as_factored_free(&a);
    lsim_lcp_free(&lcp);
  }
  lsim_lemke_sparse_free(sl);
  return bad;
}

static const char *self_path; /* this program, for test_blas_kernels' children */

/* Runs kernel_child under OPENBLAS_CORETYPE = core (this program again, fork and execv),
 * with KLU when klu; when out != NULL its output is read into out [cap] (and echoed) instead
 * of going to this program's stdout. Returns its exit status, -1 when it did not exit
 * normally. */
static int run_kernel_child_out(const char *core, int fallback, int klu, char *out, size_t cap) {
  fflush(stdout);
  int fd[2] = {-1, -1};
  if (out && pipe(fd)) return -1;
  const pid_t pid = fork();
  if (pid == 0) {
    if (out) dup2(fd[1], 1), close(fd[0]), close(fd[1]);
    setenv("OPENBLAS_CORETYPE", core, 1);
    setenv("LSIM_KERNEL_CHILD", "1", 1);
    if (!fallback) setenv("LSIM_KERNEL_NO_FALLBACK", "1", 1);
    if (klu) setenv("LSIM_KERNEL_KLU", "1", 1);
    char *const argv[] = {(char *)self_path, NULL};
    execv(self_path, argv);
    _exit(3);
  }
  if (out) {
    close(fd[1]);
    size_t got = 0;
    ssize_t r;
    while (pid > 0 && got + 1 < cap && (r = read(fd[0], out + got, cap - 1 - got)) > 0)
      got += (size_t)r;
    out[got] = 0;
    close(fd[0]);
    printf("%s", out);
  }
  int st;
  if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st)) return -1;
  return WEXITSTATUS(st);
}

static int run_kernel_child(const char *core, int fallback) {
  return run_kernel_child_out(core, fallback, 0, NULL, 0);
}

/* The z hashes of a KLU child's output ("z HEX" of each line), in order, into h [max];
 * returns how many. */
static int klu_hashes(const char *out, char h[][17], int max) {
  int k = 0;
  for (const char *p = strstr(out, " z "); p && k < max; p = strstr(p + 3, " z ")) {
    memcpy(h[k], p + 3, 16);
    h[k++][16] = 0;
  }
  return k;
}

/* With B_0 by KLU (lsim_lemke_sparse_set_klu), which calls no BLAS, the chain_20 steps
 * take the same path to the same bits under every kernel, and are solved without the
 * dense fallback even under Prescott, where UMFPACK's runs end on rays
 * (test_blas_kernels). */
static void test_klu_blas_kernels(void **state) {
  (void)state;
  static const char *cores[] = {"Haswell", "SkylakeX", "Prescott"};
  char out[4096], h0[2][17], h[2][17];
  for (size_t k = 0; k < sizeof cores / sizeof cores[0]; ++k) {
    assert_int_equal(run_kernel_child_out(cores[k], 0, 1, out, sizeof out), 0);
    assert_int_equal(klu_hashes(out, k ? h : h0, 2), 2);
    if (k) assert_memory_equal(h, h0, sizeof h);
  }
}

/* Sparse Lemke solves the chain_20 steps under each of OpenBLAS's x86-64 kernel families
 * (OPENBLAS_CORETYPE; OpenBLAS ignores it where it has no such kernel and runs its own,
 * where the check still holds): UMFPACK's factors round differently under each, and the
 * degenerate paths of these steps go through bases whose lexicographic ties and tie sets
 * are decided at rounding level (B^{-1} entries to 3.5e5, rows compared to 1e-12), so the
 * sparse runs' path depends on the kernel: step 128's cold runs solved in 213 pivots
 * under Haswell and Zen, 215 under Sandybridge, 231 + 284 (the second run) under SkylakeX
 * and Cooperlake, and ended on rays in all three runs under Prescott, Core2 and Barcelona
 * (OpenBLAS 0.3.21's choice on a CPU it does not know). The dense fallback's bits depend
 * on no kernel. Without it the Prescott run fails (checked, so the check has teeth). */
static void test_blas_kernels(void **state) {
  (void)state;
  static const char *cores[] = {"Haswell", "SkylakeX", "Sandybridge", "Prescott"};
  for (size_t k = 0; k < sizeof cores / sizeof cores[0]; ++k)
    assert_int_equal(run_kernel_child(cores[k], 1), 0);
  assert_int_equal(run_kernel_child("Prescott", 0), 1);
}

int main(int argc, char **argv) {
  (void)argc;
  self_path = argv[0];
  if (getenv("LSIM_KERNEL_CHILD")) return kernel_child();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_blas_kernels),
      cmocka_unit_test(test_klu_blas_kernels),
      cmocka_unit_test(test_unique_solutions_match_dense),
      cmocka_unit_test(test_dumped_steps),
      cmocka_unit_test(test_factored_pile),
      cmocka_unit_test(test_warm_only),
      cmocka_unit_test(test_carry_bounds),
      cmocka_unit_test(test_carry_bounds_lazy),
      cmocka_unit_test(test_shortcut_ties),
      cmocka_unit_test(test_bound_sums),
      cmocka_unit_test(test_eta_block),
      cmocka_unit_test(test_ft_path),
      cmocka_unit_test(test_cover_previous),
      cmocka_unit_test(test_cover_previous_no_solution),
      cmocka_unit_test(test_block_start),
      cmocka_unit_test(test_block_start_option),
      cmocka_unit_test(test_principal_phase),
      cmocka_unit_test(test_own_solves),
      cmocka_unit_test(test_own_solve_path),
      cmocka_unit_test(test_klu_path),
      cmocka_unit_test(test_refactor_interval),
      cmocka_unit_test(test_bad_input_and_trivial),
      cmocka_unit_test(test_solver_basis_resolve),
      cmocka_unit_test(test_step_carries_basis),
      cmocka_unit_test(test_identical_contacts_tie),
      cmocka_unit_test(test_sort_rows),
      cmocka_unit_test(test_columns_per_solve),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
