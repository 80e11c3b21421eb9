/* bench_pgs_arith.c: the coloured wide sweep's kernel computing in double (float rows
 * converted) against computing in float (LSIM_PGS_ARITH=float), on the same problems. A run
 * of SCENE is driven step by step by its PGS at a fixed budget (20 sweeps, tol 0, as
 * bench_pile); each step's factored LCP is solved again from the step's own warm start
 * with each arithmetic (20 sweeps), and the relative residuals compared. The last step's
 * LCP is then solved --solves times per arithmetic and round, at --sweeps sweeps, the two
 * in turn (thread CPU time; min and first quartile per round), with each one's z hash.
 *
 * usage: bench_pgs_arith [SCENE.json] [--steps S] [--sweeps K] [--solves R] [--rounds N]
 *                        [--float NAME] [--time-only]
 *   --float: LSIM_PGS_ARITH's value for float; --time-only: no per-step comparison.
 *   defaults: data/pile_1000.json, 300 steps, 60 sweeps, 10 solves, 3 rounds.
 * A pile of boxes: scripts/make_pile.py 1000 --shape box --size 0.05 --gap 0.02 -o F.json.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "contact/step.h"
#include "lcp/solver.h"
#include "bench/bench_scene.h"
#include "bench/flcp_file.h"

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double thread_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Selects the arithmetic of the next solves (read at each solve). */
static const char *float_name = "float";
static void arith(int f) {
  if (f) setenv("LSIM_PGS_ARITH", float_name, 1);
  else unsetenv("LSIM_PGS_ARITH");
}

int main(int argc, char **argv) {
  const char *path = "data/pile_1000.json";
  int steps = 300, sweeps = 60, solves = 10, rounds = 3, compare = 1;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--steps") && i + 1 < argc) steps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--sweeps") && i + 1 < argc) sweeps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--solves") && i + 1 < argc) solves = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--float") && i + 1 < argc) float_name = argv[++i];
    else if (!strcmp(argv[i], "--time-only")) compare = 0;
    else if (argv[i][0] != '-') path = argv[i];
    else {
      fprintf(stderr, "usage: bench_pgs_arith [SCENE.json] [--steps S] [--sweeps K] "
                      "[--solves R] [--rounds N] [--float NAME] [--time-only]\n");
      return 2;
    }
  }
  if (steps < 1 || sweeps < 1 || solves < 1 || rounds < 1) {
    fprintf(stderr, "bench_pgs_arith: --steps, --sweeps, --solves, --rounds: need >= 1\n");
    return 2;
  }
  LsimModel model;
  LsimState state;
  char err[256];
  if (bench_load_scene("bench_pgs_arith", path, &model, &state)) return 2;
  snprintf(model.solver.name, sizeof model.solver.name, "pgs");
  model.solver.tol = 0.0, model.solver.max_iter = 20, model.solver.warm_start = 1;
  LsimStepper *stepper = NULL;
  LsimSolver *solver = NULL, *timed = NULL;
  LsimSolverOptions o = lsim_default_solver_options();
  o.tol = 0.0, o.max_iter = 20, o.warm_start = 1;
  LsimSolverOptions ot = o;
  ot.max_iter = sweeps;
  if (lsim_stepper_create(&stepper, &model, NULL, err, sizeof err) ||
      lsim_solver_create(&solver, "pgs", &o, err, sizeof err) ||
      lsim_solver_create(&timed, "pgs", &ot, err, sizeof err)) {
    fprintf(stderr, "bench_pgs_arith: %s\n", err);
    return 2;
  }
  double *res[2] = {calloc((size_t)steps, sizeof(double)), calloc((size_t)steps, sizeof(double))};
  double *z = NULL, *z0 = NULL;
  int zcap = 0, k = 0, failed = 0, worse = 0, simd = 0;
  double sum_rel = 0.0, max_rel = 0.0, min_rel = 0.0;
  if (!res[0] || !res[1]) return 2;
  for (int step = 0; step < steps; ++step) {
    LsimStepStats ss;
    arith(0); /* the run itself in double */
    lsim_step(stepper, &model, &state, &ss);
    const LsimFactoredLcp *f = lsim_stepper_factored(stepper);
    if (!f || f->n == 0) continue;
    if (f->n > zcap) {
      double *nz = realloc(z, (size_t)f->n * sizeof(double)), *nz0 = NULL;
      if (nz) z = nz;
      if (nz) nz0 = realloc(z0, (size_t)f->n * sizeof(double));
      if (!nz || !nz0) return 2;
      z0 = nz0, zcap = f->n;
    }
    if (!compare) continue;
    /* The same problem and start, once per arithmetic. */
    double r[2];
    for (int v = 0; v < 2; ++v) {
      arith(v);
      memcpy(z, lsim_stepper_warm_guess(stepper), (size_t)f->n * sizeof(double));
      LsimSolveStats st;
      const int rc = lsim_solver_solve_factored(solver, f, z, &st);
      failed += rc < 0 && rc != LSIM_MAX_ITERATIONS;
      r[v] = st.residual.relative;
      simd = st.simd;
    }
    /* The float arithmetic's residual relative to the double one's (where that is not
       round-off: 1e-6 of max|q|, below which both are near a solution). */
    if (r[0] >= 1e-6) {
      const double d = (r[1] - r[0]) / r[0];
      sum_rel += d, max_rel = d > max_rel ? d : max_rel, min_rel = d < min_rel ? d : min_rel;
      worse += r[1] > r[0];
    }
    res[0][k] = r[0], res[1][k] = r[1], ++k;
  }
  if (k == 0 && compare) {
    fprintf(stderr, "bench_pgs_arith: no step of %s had an LCP\n", path);
    return 2;
  }
  const double mean_rel = k ? sum_rel / k : 0.0;
  if (compare) {
  qsort(res[0], (size_t)k, sizeof(double), cmp_double);
  qsort(res[1], (size_t)k, sizeof(double), cmp_double);
  static const char *const paths[] = {"none", "scalar", "sse2", "avx2", "reference", "avx512"};
  printf("%s, %d problems (20 sweeps from each step's warm start), wide path %s:\n", path, k,
         simd >= 0 && simd <= 5 ? paths[simd] : "?");
  printf("| arithmetic | median relative residual | worst |\n|---|---:|---:|\n");
  printf("| double | %.4g | %.4g |\n| float | %.4g | %.4g |\n", res[0][k / 2], res[0][k - 1],
         res[1][k / 2], res[1][k - 1]);
  printf("float's residual against double's, per problem: mean %+.3g, from %+.3g to %+.3g "
         "(relative), higher in %d of %d; solver failures %d\n", mean_rel, min_rel, max_rel,
         worse, k, failed);
  }

  /* The last problem, timed: the two arithmetics in turn. */
  const LsimFactoredLcp *f = lsim_stepper_factored(stepper);
  memcpy(z0, lsim_stepper_warm_guess(stepper), (size_t)f->n * sizeof(double));
  double *t = calloc((size_t)solves, sizeof(double));
  if (!t) return 2;
  printf("\nlast problem (n = %d), %d sweeps from its warm start, %d solves a round, thread "
         "CPU ms:\n| round | double min | q1 | float min | q1 | float / double (min) |\n"
         "|---|---:|---:|---:|---:|---:|\n", f->n, sweeps, solves);
  unsigned long long hash[2] = {0, 0};
  double resid[2] = {0, 0};
  for (int rd = 0; rd < rounds; ++rd) {
    double mn[2], q1[2];
    for (int v = 0; v < 2; ++v) {
      arith(v);
      for (int s = 0; s < solves; ++s) {
        memcpy(z, z0, (size_t)f->n * sizeof(double));
        LsimSolveStats st;
        const double c0 = thread_cpu();
        const int rc = lsim_solver_solve_factored(timed, f, z, &st);
        t[s] = 1e3 * (thread_cpu() - c0);
        failed += rc < 0 && rc != LSIM_MAX_ITERATIONS;
        resid[v] = st.residual.relative;
      }
      hash[v] = lsim_flcp_z_hash(z, f->n);
      qsort(t, (size_t)solves, sizeof(double), cmp_double);
      mn[v] = t[0], q1[v] = t[solves / 4];
    }
    printf("| %d | %.3f | %.3f | %.3f | %.3f | %.3f |\n", rd + 1, mn[0], q1[0], mn[1], q1[1],
           mn[1] / mn[0]);
  }
  printf("z hash: double %016llx (relative residual %.4g), float %016llx (%.4g)\n", hash[0],
         resid[0], hash[1], resid[1]);
  arith(0);
  free(t), free(res[0]), free(res[1]), free(z), free(z0);
  lsim_solver_free(solver);
  lsim_solver_free(timed);
  lsim_stepper_free(stepper);
  lsim_state_free(&state);
  lsim_model_free(&model);
  return failed ? 1 : 0;
}
