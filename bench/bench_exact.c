/* bench_exact.c: exact solvers on the time step's own problems, island by island and
 * whole, against PGS, in the same process on identical factored LCPs.
 *
 * A scene (default data/pile_100.json) is simulated by a driver (PGS at 1000 sweeps,
 * tolerance 1e-10, warm started); at every step with an LCP each listed series solves the
 * step's factored problem (M = J B + C) warm started from the driver's guess (the previous
 * step's impulses by contact id), the series taking turns in a rotating order so that all
 * see the same machine. Prints per series: steps solved to a relative natural residual of
 * 1e-10, median and worst milliseconds per step, median islands; and the ratios of the
 * island runs to the whole ones. Dense Lemke (both series) is skipped on steps with n
 * above --dense N (default 1500), counted as skipped.
 *
 * --driver newton drives the run with newton (tol 1e-10) instead, so the guess is the previous
 * step's exact solution (--driver lemke_sparse likewise with sparse Lemke); --no-pgs skips
 * the PGS series; --verbose prints every solve (for newton also where it ended:
 * LsimNewtonInfo's best relative residual after each stage, line search stalls, singular
 * factorizations).
 * --from S solves (and counts) only the steps from S on (the ones before only drive the
 * simulation); --only TEXT runs only the series whose label contains TEXT. The
 * lemke_sparse series (lemke_sparse.c, never forming M) run at every size. --cpu times with
 * the process's CPU clock instead of the wall clock. The series "lemke_sparse, whole, carried
 * basis" starts from the previous step's final sparse Lemke basis by contact id
 * (lsim_stepper_basis_guess, there with --driver lemke_sparse) instead of z > 0; "this
 * step's final basis" from the driver's own final basis of the same problem (0 pivots: the
 * cost of a warm start alone).
 * "lemke_sparse, whole, cold" starts from z = 0 (Lemke's cold path on the same problem); it
 * runs only when --only selects it (e.g. --only cold), since cold paths on large piles take
 * minutes a step. "newton, whole, cold" likewise: newton from z = 0, beside the warm
 * "newton, whole" (--only "newton, whole" runs both).
 * With --verbose each step of the "lemke_sparse, whole" series also prints the contact
 * structure of its solution (print_structure).
 * Sparse Lemke's solve counts (lsim_solver_lemke_sparse_counts: sparse LU factorizations,
 * transposed solves for rows of B^{-1}, solves for columns of B^{-1}) are printed per series
 * in a table after the times, and with --verbose on each solve's line: deterministic for a
 * build, so a change of path or of tie work shows in them whatever the machine's load.
 * Each solve's line also ends in "z" and a hash of z's bytes (FNV-1a): the same hash, the
 * same bits.
 * With --verbose each sparse Lemke solve also prints its runs (lsim_solver_lemke_info):
 * status and pivots of the path from the guessed basis, of the retry from z > 0 and of each
 * cold run made, e.g. "runs: guess secondary_ray 1 retry solved 1000".
 *
 * --cover-previous: the carried-basis series covers its path with the previous step's values
 * (lsim_solver_set_cover_previous); --driver-cover-previous: the driver's solver too (the
 * trajectory then follows its paths).
 * --principal K: the carried-basis series takes up to K principal pivots before Lemke's
 * path (lsim_solver_set_principal); --driver-principal K: the driver's solver too.
 * --sparse-limit N gives the newton series (and a newton driver) that option
 * (LsimSolverOptions.sparse_limit: sparse Lemke after newton's own phases fail, n <= N,
 * -1 any n); 0, the default, never.
 *
 * --dump DIR writes each solved step's factored problem, the driver's warm guess and the
 * carried basis to DIR/step_K.flcp (bench/flcp_file.h), for bench/replay_lemke to solve one
 * step alone (profiles of a single slow step without the run before it).
 *
 * usage: bench_exact [SCENE.json] [--steps S] [--dense N] [--no-lemke] [--no-pgs]
 *                    [--driver pgs|newton|lemke_sparse] [--from S] [--only TEXT] [--cpu]
 *                    [--sparse-limit N] [--cover-previous] [--driver-cover-previous]
 *                    [--principal K] [--driver-principal K] [--verbose]
 *                    [--dump DIR]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "contact/step.h"
#include "lcp/islands.h"
#include "lcp/solver.h"
#include "bench/bench_scene.h"
#include "bench/flcp_file.h"

enum { NSERIES = 11, MAXSTEPS = 4000 };

static int use_cpu; /* --cpu: the process's CPU clock (a shared machine's load aside) */

static double now(void) {
  struct timespec ts;
  clock_gettime(use_cpu ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  if (n == 0) return NAN;
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The contact structure of a solution z of f (--verbose): contacts pushing (normal impulse
 * above 1e-9 max z), of them sticking (cone slack lambda at 0) and sliding; complementary
 * pairs with both z_i and w_i at 0 (below 1e-9 of max z, max |w|); and, of the final basis
 * (may be NULL), the basic z among the normal and direction rows against m, the
 * generalized velocities: more than m makes the basis's J B part rank deficient. */
static void print_structure(int step, const LsimFactoredLcp *f, const double *z,
                            const unsigned char *basis) {
  const int n = f->n;
  double *u = malloc(sizeof(double) * (size_t)(f->m > 0 ? f->m : 1));
  double *w = malloc(sizeof(double) * (size_t)n);
  if (!u || !w) {
    free(u), free(w);
    return;
  }
  lsim_factored_w(f, z, u, w);
  double zmax = 0.0, wmax = 0.0;
  for (int i = 0; i < n; ++i) zmax = fmax(zmax, z[i]), wmax = fmax(wmax, fabs(w[i]));
  int pushing = 0, sliding = 0, degenerate = 0, zrows = 0;
  for (int i = 0; i < n; ++i) degenerate += z[i] <= 1e-9 * zmax && fabs(w[i]) <= 1e-9 * wmax;
  for (int k = 0; k < f->ncones; ++k) {
    const LsimConeBlock *c = &f->cones[k];
    if (c->normal < 0) continue;
    if (z[c->normal] > 1e-9 * zmax) ++pushing, sliding += z[c->lambda] > 1e-9 * zmax;
    if (!basis) continue;
    zrows += basis[c->normal] != 0;
    for (int d = 0; d < c->ndir; ++d) zrows += basis[c->first_dir + d] != 0;
  }
  fprintf(stderr, "step %d structure: %d contacts pushing (%d sticking, %d sliding), %d "
          "degenerate pairs, final basis: %d basic z on normal and direction rows against m = %d\n",
          step, pushing, pushing - sliding, sliding, degenerate, zrows, f->m);
  free(u), free(w);
}

typedef struct Series {
  const char *label, *name;
  int islands, max_iter;
  int carry; /* 1: from the driver's carried final basis (lsim_stepper_basis_guess); 2: from
                the driver's final basis of this very step (the floor: 0 pivots); 3: cold
                (z = 0, no guess) */
  LsimSolver *solver;
  double piv[MAXSTEPS];
  double ms[MAXSTEPS];
  int runs, solved, skipped;
  double isl[MAXSTEPS];
  long fact, rows, cols; /* sparse Lemke's solve counts over the series (lemke_sparse.c's:
                            factorizations, transposed solves, column solves) */
  long pivots;           /* iterations over the series */
} Series;

int main(int argc, char **argv) {
  const char *path = "data/pile_100.json";
  int steps = 60, dense = 1500, lemke = 1, verbose = 0, pgs_series = 1, from = 0;
  int sparse_limit = 0, cover_previous = 0, driver_cover = 0, principal = 0, driver_principal = 0;
  const char *only = NULL;
  const char *driver = "pgs";
  const char *dump = NULL;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--steps") && i + 1 < argc) steps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--dense") && i + 1 < argc) dense = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--no-lemke")) lemke = 0;
    else if (!strcmp(argv[i], "--no-pgs")) pgs_series = 0;
    else if (!strcmp(argv[i], "--verbose")) verbose = 1;
    else if (!strcmp(argv[i], "--cpu")) use_cpu = 1;
    else if (!strcmp(argv[i], "--from") && i + 1 < argc) from = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else if (!strcmp(argv[i], "--driver") && i + 1 < argc) driver = argv[++i];
    else if (!strcmp(argv[i], "--sparse-limit") && i + 1 < argc) sparse_limit = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--cover-previous")) cover_previous = 1;
    else if (!strcmp(argv[i], "--principal") && i + 1 < argc) principal = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--driver-principal") && i + 1 < argc)
      driver_principal = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--driver-cover-previous")) driver_cover = 1;
    else if (!strcmp(argv[i], "--dump") && i + 1 < argc) dump = argv[++i];
    else if (argv[i][0] != '-') path = argv[i];
    else {
      fprintf(stderr, "usage: bench_exact [SCENE.json] [--steps S] [--dense N] [--no-lemke] "
                      "[--no-pgs] [--driver pgs|newton|lemke_sparse] [--from S] [--only TEXT] [--cpu] [--sparse-limit N] [--cover-previous] [--driver-cover-previous] [--principal K] [--driver-principal K] [--verbose] [--dump DIR]\n");
      return 2;
    }
  }
  if (steps < 1 || steps > MAXSTEPS) steps = 60;
  LsimModel model;
  LsimState state;
  char err[256];
  if (bench_load_scene("bench_exact", path, &model, &state)) return 2;
  snprintf(model.solver.name, sizeof model.solver.name, "%s", driver);
  model.solver.tol = 1e-10, model.solver.warm_start = 1;
  model.solver.max_iter = strcmp(driver, "pgs") ? 0 : 1000;
  model.solver.sparse_limit = sparse_limit;
  LsimStepper *stepper;
  if (lsim_stepper_create(&stepper, &model, NULL, err, sizeof err)) {
    fprintf(stderr, "bench_exact: %s\n", err);
    return 2;
  }
  static Series series[NSERIES] = {
      {.label = "newton, islands", .name = "newton", .islands = 1},
      {.label = "newton, whole", .name = "newton", .islands = 0},
      {.label = "lemke, islands", .name = "lemke", .islands = 1},
      {.label = "lemke, whole", .name = "lemke", .islands = 0},
      {.label = "pgs[max_iter=1000]", .name = "pgs", .islands = 0, .max_iter = 1000},
      {.label = "lemke_sparse, islands", .name = "lemke_sparse", .islands = 1},
      {.label = "lemke_sparse, whole", .name = "lemke_sparse", .islands = 0},
      {.label = "lemke_sparse, whole, carried basis", .name = "lemke_sparse", .islands = 0,
       .carry = 1},
      {.label = "lemke_sparse, whole, this step's final basis", .name = "lemke_sparse",
       .islands = 0, .carry = 2},
      {.label = "lemke_sparse, whole, cold", .name = "lemke_sparse", .islands = 0, .carry = 3},
      {.label = "newton, whole, cold", .name = "newton", .islands = 0, .carry = 3},
  };
  unsigned char *own = NULL;
  int own_cap = 0;
  for (int k = 0; k < NSERIES; ++k) {
    LsimSolverOptions o = lsim_default_solver_options();
    o.warm_start = 1, o.islands = series[k].islands, o.max_iter = series[k].max_iter;
    o.sparse_limit = sparse_limit;
    if (lsim_solver_create(&series[k].solver, series[k].name, &o, err, sizeof err)) return 2;
    if (series[k].carry == 1) lsim_solver_set_cover_previous(series[k].solver, cover_previous);
    if (series[k].carry == 1) lsim_solver_set_principal(series[k].solver, principal);
  }
  lsim_solver_set_cover_previous(lsim_stepper_solver(stepper), driver_cover);
  lsim_solver_set_principal(lsim_stepper_solver(stepper), driver_principal);
  LsimIslands *finder = lsim_islands_create();
  double *z = NULL;
  int zcap = 0, nmax = 0, last_largest = 0, last_n = 0;
  for (int step = 0; step < steps; ++step) {
    LsimStepStats ss;
    lsim_step(stepper, &model, &state, &ss);
    const LsimFactoredLcp *f = lsim_stepper_factored(stepper);
    if (verbose)
      fprintf(stderr, "step %d driver: %s first %s source %s iterations %d relative %.2e\n", step,
              lsim_status_name(ss.status), lsim_status_name(ss.first_status),
              lsim_source_name(ss.source), ss.iterations, ss.relative_residual);
    if (ss.lcp_size == 0 || step < from) continue;
    const int n = f->n;
    if (dump) {
      char fp[4096];
      snprintf(fp, sizeof fp, "%s/step_%d.flcp", dump, step);
      if (lsim_flcp_write(fp, f, lsim_stepper_warm_guess(stepper),
                          lsim_stepper_basis_guess(stepper))) {
        fprintf(stderr, "bench_exact: cannot write %s\n", fp);
        return 2;
      }
    }
    nmax = n > nmax ? n : nmax;
    if (lsim_grow((void **)&z, &zcap, n, sizeof(double))) return 2;
    /* The largest island decides whether dense Lemke runs island by island. */
    const int count = lsim_islands_find(finder, f);
    int largest = 0;
    last_n = n;
    for (int k = 0; k < count; ++k)
      largest = lsim_islands_size(finder, k) > largest ? lsim_islands_size(finder, k) : largest;
    last_largest = largest;
    for (int t = 0; t < NSERIES; ++t) {
      Series *s = &series[(t + step) % NSERIES];
      const int is_lemke = !strcmp(s->name, "lemke");
      /* The cold series only when --only names it (a cold path on pile_1000 takes minutes). */
      if ((is_lemke && (!lemke || n > dense)) || (!strcmp(s->name, "pgs") && !pgs_series) ||
          (only && !strstr(s->label, only)) || (s->carry == 3 && !only)) {
        ++s->skipped;
        continue;
      }
      if (s->carry == 3) memset(z, 0, (size_t)n * sizeof(double));
      else memcpy(z, lsim_stepper_warm_guess(stepper), (size_t)n * sizeof(double));
      LsimSolveStats st;
      /* The carried series starts from the last step's final basis by contact id (NULL, so
         z > 0, when the driver is not lemke_sparse); the others guess z > 0. */
      if (s->carry == 1) lsim_solver_set_basis_guess(s->solver, lsim_stepper_basis_guess(stepper));
      if (s->carry == 2) {
        int nb = 0;
        const unsigned char *b = lsim_solver_last_basis(lsim_stepper_solver(stepper), &nb);
        if (b && nb == n && !lsim_grow((void **)&own, &own_cap, n, 1)) {
          memcpy(own, b, (size_t)n);
          lsim_solver_set_basis_guess(s->solver, own);
          const unsigned char *bg = lsim_stepper_basis_guess(stepper);
          int d = 0;
          for (int i = 0; bg && i < n; ++i) d += (bg[i] != 0) != (own[i] != 0);
          if (verbose) fprintf(stderr, "step %d carried basis differs from the final one in %d of %d\n", step, d, n);
        }
      }
      if (s->carry == 1 && verbose) {
        const unsigned char *bg = lsim_stepper_basis_guess(stepper);
        const double *zg = lsim_stepper_warm_guess(stepper);
        int nb = 0, nz = 0, diff = 0;
        for (int i = 0; bg && i < n; ++i) nb += bg[i] != 0, nz += zg[i] > 0.0, diff += (bg[i] != 0) != (zg[i] > 0.0);
        fprintf(stderr, "step %d basis guess %s: %d z-basic, %d z > 0, %d differ\n", step, bg ? "carried" : "none", nb, nz, diff);
      }
      const double t0 = now();
      const int rc = lsim_solver_solve_factored(s->solver, f, z, &st);
      s->ms[s->runs] = 1e3 * (now() - t0);
      s->piv[s->runs] = st.iterations;
      s->isl[s->runs++] = lsim_solver_last_islands(s->solver);
      s->solved += rc == LSIM_SOLVED && st.residual.relative <= 1e-10;
      int fa, ro, co; /* sparse Lemke's solves in this solve (0 for the other solvers) */
      lsim_solver_lemke_sparse_counts(s->solver, &fa, &ro, &co);
      s->fact += fa, s->rows += ro, s->cols += co, s->pivots += st.iterations;
      const unsigned long long zh = verbose ? lsim_flcp_z_hash(z, n) : 0;
      if (verbose)
        fprintf(stderr,
                "step %d n %d %s: %s relative %.2e iterations %d warm %d %.2f ms z %016llx%s",
                step, n, s->label, lsim_status_name(rc), st.residual.relative, st.iterations,
                st.warm_started, s->ms[s->runs - 1], zh, fa + ro + co ? "" : "\n");
      if (verbose && fa + ro + co)
        fprintf(stderr, " factorizations %d transposed solves %d column solves %d\n", fa, ro, co);
      /* Sparse Lemke's runs (the last island's when by islands): status and pivots of the
         path from the guessed basis, of the retry from z > 0, of each cold run made. */
      const LsimLemkeInfo *li = verbose ? lsim_solver_lemke_info(s->solver) : NULL;
      if (li) {
        static const char *const stage[LSIM_LEMKE_STAGES] = {"guess", "retry", "cold",
                                                             "cold_by_pivot", "cold_loose", "dense"};
        fprintf(stderr, "step %d %s runs:", step, s->label);
        for (int k = 0; k < LSIM_LEMKE_STAGES; ++k)
          if (li->stage_pivots[k] >= 0)
            fprintf(stderr, " %s %s %d", stage[k], lsim_status_name(li->stage_status[k]),
                    li->stage_pivots[k]);
        if (li->principal_pivots) /* LSIM_PRINCIPAL: the phase's pivots, in the guess's */
          fprintf(stderr, " principal %d %s", li->principal_pivots,
                  li->principal_solved ? "solved" : "fell_back");
        fprintf(stderr, "\n");
      }
      /* Where newton ended (whole: the problem's; islands: the last island's), the best
         relative residual after each stage (nan: not run). */
      const LsimNewtonInfo *ni = verbose ? lsim_solver_newton_info(s->solver) : NULL;
      if (ni) {
        double qmax = 0.0;
        for (int i = 0; i < n; ++i) qmax = fmax(qmax, fabs(f->q[i]));
        if (qmax == 0.0) qmax = 1.0;
        fprintf(stderr, "step %d %s stages: start %.1e phase1 %.1e ipm %.1e phase2 %.1e "
                "stalls %d singular %d ipm_steps %d single_pivots %d eps_cuts %d fallback %d\n",
                step, s->label, ni->stage_residual[0] / qmax, ni->stage_residual[1] / qmax,
                ni->stage_residual[2] / qmax, ni->stage_residual[3] / qmax, ni->stalls,
                ni->singular, ni->ipm_iterations, ni->single_pivots, ni->restarts, ni->fallback);
      }
      if (verbose && s->carry == 0 && !s->islands && rc == LSIM_SOLVED)
        print_structure(step, f, z, lsim_solver_last_basis(s->solver, &(int){0}));
    }
  }
  printf("## Exact solvers on %s (%d steps, n up to %d), warm started, same process\n\n", path,
         steps, nmax);
  printf("| series | steps run | solved to 1e-10 | skipped | median ms | worst ms | median "
         "islands | median iterations | max iterations |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  double med[NSERIES];
  for (int k = 0; k < NSERIES; ++k) {
    Series *s = &series[k];
    double worst = 0.0;
    double pmax = 0.0;
    for (int r = 0; r < s->runs; ++r) worst = fmax(worst, s->ms[r]), pmax = fmax(pmax, s->piv[r]);
    med[k] = s->runs ? median(s->ms, s->runs) : NAN;
    if (!s->runs) continue; /* not run at all (not selected, or lemke beyond --dense): below */
    printf("| %s | %d | %d | %d | %.2f | %.2f | %.0f | %.0f | %.0f |\n", s->label, s->runs,
           s->solved, s->skipped, med[k], worst, median(s->isl, s->runs),
           median(s->piv, s->runs), pmax);
  }
  /* The series that ran on no step are named, not printed as rows of nan (the cold series
     run only when --only selects them). */
  int none = 0;
  for (int k = 0; k < NSERIES; ++k)
    if (!series[k].runs) printf("%s\"%s\"", none++ ? ", " : "\nnot run on any step: ", series[k].label);
  if (none) printf(" (--only selects a series; dense lemke stops above --dense)\n");
  /* Sparse Lemke's solve counts per series: deterministic, unlike the times, so a change of
     path or of tie work shows in them alone. */
  int counted = 0;
  for (int k = 0; k < NSERIES; ++k) {
    const Series *s = &series[k];
    if (!s->runs || !(s->fact + s->rows + s->cols)) continue;
    if (!counted++)
      printf("\n| series | iterations | sparse LU factorizations | transposed solves (rows of "
             "B^-1) | column solves (ties) | solves a pivot |\n|---|---:|---:|---:|---:|---:|\n");
    printf("| %s | %ld | %ld | %ld | %ld | %.2f |\n", s->label, s->pivots, s->fact, s->rows,
           s->cols, s->pivots ? (double)(s->rows + s->cols) / (double)s->pivots : 0.0);
  }
  char rn[32] = "-", rl[32] = "-";
  if (isfinite(med[1] / med[0])) snprintf(rn, sizeof rn, "%.2f", med[1] / med[0]);
  if (isfinite(med[3] / med[2])) snprintf(rl, sizeof rl, "%.2f", med[3] / med[2]);
  printf("\nmedian time ratio whole / islands (same steps): newton %s, lemke %s; largest "
         "island at the last step %d of n = %d\n", rn, rl, last_largest, last_n);
  for (int k = 0; k < NSERIES; ++k) lsim_solver_free(series[k].solver);
  lsim_islands_free(finder);
  free(z), free(own);
  lsim_stepper_free(stepper);
  lsim_model_free(&model);
  lsim_state_free(&state);
  return 0;
}
