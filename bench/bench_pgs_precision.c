/* bench_pgs_precision.c: what the PGS fast path's single-precision rows do to its result,
 * on the same problems. A run of SCENE is driven step by step by its PGS at a fixed
 * budget (20 sweeps, tol 0, as bench_pile); each step's factored LCP is then solved again
 * from the step's own warm start by
 *   reference: fast_sweep over the coloured order, double rows and arithmetic
 *              (LSIM_SIMD=reference, lcp/pgs_wide.c), and
 *   wide:      the path this machine takes (the coloured wide kernel: float rows when the
 *              budget is fixed),
 * so both see one problem and one start. Prints the median and worst relative residual
 * of each, and the difference of the two per problem (mean, worst), also relative to the
 * reference's where that is above 1e-6:
 * what the "single precision storage of the constant rows where the residual
 * stays the same" asks to measure. The worst differences come from problems whose
 * residual is set by a few contacts at a switch (a cone changing face), where any
 * rounding moves it.
 *
 * usage: bench_pgs_precision [SCENE.json] [--steps S]   (data/pile_100.json, 300 steps)
 * A pile of boxes: scripts/make_pile.py 1000 --shape box --size 0.05 --gap 0.02 -o F.json.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact/step.h"
#include "lcp/solver.h"
#include "bench/bench_scene.h"

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  const char *path = "data/pile_100.json";
  int steps = 300;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--steps") && i + 1 < argc) steps = atoi(argv[++i]);
    else if (argv[i][0] != '-') path = argv[i];
    else {
      fprintf(stderr, "usage: bench_pgs_precision [SCENE.json] [--steps S]\n");
      return 2;
    }
  }
  if (steps < 1) steps = 300;
  LsimModel model;
  LsimState state;
  char err[256];
  if (bench_load_scene("bench_pgs_precision", path, &model, &state)) return 2;
  /* The driver and the two solves: PGS, 20 sweeps, tol 0, warm started. */
  snprintf(model.solver.name, sizeof model.solver.name, "pgs");
  model.solver.tol = 0.0, model.solver.max_iter = 20, model.solver.warm_start = 1;
  LsimStepper *stepper = NULL;
  LsimSolver *solver = NULL;
  LsimSolverOptions o = lsim_default_solver_options();
  o.tol = 0.0, o.max_iter = 20, o.warm_start = 1;
  if (lsim_stepper_create(&stepper, &model, NULL, err, sizeof err) ||
      lsim_solver_create(&solver, "pgs", &o, err, sizeof err)) {
    fprintf(stderr, "bench_pgs_precision: %s\n", err);
    return 2;
  }
  double *ref = calloc((size_t)steps, sizeof(double)), *wide = calloc((size_t)steps, sizeof(double));
  double *z = NULL;
  int zcap = 0, k = 0, simd = 0, failed = 0;
  double sum_diff = 0.0, max_diff = 0.0, sum_abs = 0.0, max_abs = 0.0;
  int nrel = 0;
  if (!ref || !wide) return 2;
  for (int step = 0; step < steps; ++step) {
    LsimStepStats ss;
    lsim_step(stepper, &model, &state, &ss);
    const LsimFactoredLcp *f = lsim_stepper_factored(stepper);
    if (!f || f->n == 0) continue;
    if (f->n > zcap) {
      double *nz = realloc(z, (size_t)f->n * sizeof(double));
      if (!nz) return 2;
      z = nz, zcap = f->n;
    }
    /* The same problem and start, once per path (the path is chosen per solve). */
    double r[2];
    for (int v = 0; v < 2; ++v) {
      if (v == 0) setenv("LSIM_SIMD", "reference", 1);
      else unsetenv("LSIM_SIMD");
      memcpy(z, lsim_stepper_warm_guess(stepper), (size_t)f->n * sizeof(double));
      LsimSolveStats st;
      const int rc = lsim_solver_solve_factored(solver, f, z, &st);
      failed += rc < 0 && rc != LSIM_MAX_ITERATIONS;
      r[v] = st.residual.relative;
      if (v == 1) simd = st.simd;
    }
    /* Relative differences where the reference's residual is not round-off (1e-6 of
       max|q|: below it both are near a solution and their ratio says nothing). */
    const double a = fabs(r[1] - r[0]);
    sum_abs += a, max_abs = a > max_abs ? a : max_abs;
    if (r[0] >= 1e-6) {
      const double d = a / r[0];
      sum_diff += d, ++nrel;
      max_diff = d > max_diff ? d : max_diff;
    }
    ref[k] = r[0], wide[k] = r[1], ++k;
  }
  if (k == 0) {
    fprintf(stderr, "bench_pgs_precision: no step of %s had an LCP\n", path);
    return 2;
  }
  qsort(ref, (size_t)k, sizeof(double), cmp_double);
  qsort(wide, (size_t)k, sizeof(double), cmp_double);
  static const char *const paths[] = {"none", "scalar", "sse2", "avx2", "reference", "avx512"};
  printf("%s, %d problems (20 sweeps from each step's warm start), wide path %s:\n", path, k,
         simd >= 0 && simd <= 5 ? paths[simd] : "?");
  printf("| | median relative residual | worst |\n|---|---:|---:|\n");
  printf("| reference (double rows) | %.4g | %.4g |\n", ref[k / 2], ref[k - 1]);
  printf("| wide (this machine's path) | %.4g | %.4g |\n", wide[k / 2], wide[k - 1]);
  printf("difference of the two relative residuals per problem: mean %.3g, worst %.3g; "
         "relative to the reference's (%d problems where it is >= 1e-6): mean %.3g, worst "
         "%.3g; solver failures %d\n", sum_abs / k, max_abs, nrel,
         nrel ? sum_diff / nrel : 0.0, max_diff, failed);
  free(ref), free(wide), free(z);
  lsim_solver_free(solver);
  lsim_stepper_free(stepper);
  lsim_state_free(&state);
  lsim_model_free(&model);
  return failed ? 1 : 0;
}
