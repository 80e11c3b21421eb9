/* replay_newton.c: solves one dumped step (bench_exact --dump, bench/flcp_file.h) with newton
 * through the solver front as bench_exact's series "newton, whole" does (default options,
 * warm started from the dumped warm guess, whole, tolerance 1e-10), and prints what
 * bench_exact --verbose prints for it: status, relative residual, iterations, CPU time, the
 * FNV-1a hash of z's bytes, and where newton ended (LsimNewtonInfo's best relative residual
 * after each stage, interior point steps, factorizations). A slow step can so be profiled
 * without the run that led to it.
 *
 * usage: replay_newton FILE.flcp [--reps R] [--cold] [--trace] [--islands] [--sizes]
 *   --cold: from z = 0; --reps R: solve R times (fresh copies of the guess), times each
 *   (0: no solve, e.g. with --sizes);
 *   --trace: newton called directly (lsim_newton_solve_factored, the same default options
 *   and guess, no solver front), printing the relative natural residual after each phase-1
 *   and proximal step; --islands: island by island (bench_exact's "newton, islands");
 *   --sizes: first the islands' count and their sizes (variables), largest first
 *   (lcp/islands.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/flcp_file.h"
#include "lcp/factored.h"
#include "lcp/islands.h"
#include "lcp/newton.h"
#include "lcp/solver.h"

/* The islands of f: their count and sizes, largest first (at most 12 shown). */
static int print_sizes(const LsimFactoredLcp *f) {
  LsimIslands *is = lsim_islands_create();
  const int count = is ? lsim_islands_find(is, f) : -1;
  int *size = count > 0 ? malloc(sizeof(int) * (size_t)count) : NULL;
  if (count < 0 || (count > 0 && !size)) {
    lsim_islands_free(is);
    return -1;
  }
  for (int k = 0; k < count; ++k) size[k] = lsim_islands_size(is, k);
  for (int k = 1; k < count; ++k) /* insertion sort, descending */
    for (int j = k; j > 0 && size[j] > size[j - 1]; --j) {
      const int t = size[j];
      size[j] = size[j - 1], size[j - 1] = t;
    }
  printf("islands %d of n = %d:", count, f->n);
  for (int k = 0; k < count && k < 12; ++k) printf(" %d", size[k]);
  printf(count > 12 ? " ...\n" : "\n");
  free(size);
  lsim_islands_free(is);
  return 0;
}

static void print_info(const LsimNewtonInfo *ni, double scale) {
  printf("stages: start %.1e phase1 %.1e ipm %.1e phase2 %.1e ipm_steps %d factorizations %d "
         "stalls %d sweeps %d fallback %d\n",
         ni->stage_residual[0] / scale, ni->stage_residual[1] / scale,
         ni->stage_residual[2] / scale, ni->stage_residual[3] / scale, ni->ipm_iterations,
         ni->factorizations, ni->stalls, ni->sweeps, ni->fallback);
}

int main(int argc, char **argv) {
  const char *path = NULL;
  int reps = 1, cold = 0, trace = 0, islands = 0, sizes = 0, ipm_iter = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--cold")) cold = 1;
    else if (!strcmp(argv[i], "--trace")) trace = 1;
    else if (!strcmp(argv[i], "--islands")) islands = 1;
    else if (!strcmp(argv[i], "--sizes")) sizes = 1;
    else if (!strcmp(argv[i], "--ipm-iter") && i + 1 < argc) ipm_iter = atoi(argv[++i]);
    else if (argv[i][0] != '-' && !path) path = argv[i];
    else path = NULL, reps = -1, i = argc;
  }
  if (!path || reps < 0) {
    fprintf(stderr, "usage: replay_newton FILE.flcp [--reps R] [--cold] [--trace] [--islands] "
                    "[--sizes]\n");
    return 2;
  }
  LsimFlcp p;
  if (lsim_flcp_read(path, &p)) {
    fprintf(stderr, "replay_newton: %s: not a readable dumped step\n", path);
    return 2;
  }
  const int n = p.f.n;
  if (sizes && print_sizes(&p.f)) return 2;
  double scale = 0.0;
  for (int i = 0; i < n; ++i) scale = fmax(scale, fabs(p.f.q[i]));
  if (scale == 0.0) scale = 1.0;
  LsimSolverOptions o = lsim_default_solver_options();
  o.warm_start = 1, o.islands = islands;
  LsimSolver *s = NULL;
  LsimNewton *ws = NULL;
  char err[256];
  if (!trace && lsim_solver_create(&s, "newton", &o, err, sizeof err)) {
    fprintf(stderr, "replay_newton: %s\n", err);
    return 2;
  }
  if (trace && !(ws = lsim_newton_create())) return 2;
  double *z = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
  double tr[512];
  if (!z) return 2;
  int rc = 0;
  for (int r = 0; r < reps; ++r) {
    if (cold) memset(z, 0, sizeof(double) * (size_t)n);
    else memcpy(z, p.z, sizeof(double) * (size_t)n);
    const double t0 = lsim_flcp_cpu_now();
    double rel;
    int its;
    const LsimNewtonInfo *ni;
    LsimNewtonInfo info;
    if (trace) {
      memset(&info, 0, sizeof info);
      info.trace = tr, info.trace_capacity = 512;
      LsimNewtonOptions no = lsim_default_newton_options();
      no.ipm_iter = ipm_iter;
      rc = lsim_newton_solve_factored(ws, &p.f, &no, !cold, z, &info);
      rel = info.residual / scale, its = info.iterations, ni = &info;
    } else {
      LsimSolveStats st;
      rc = lsim_solver_solve_factored(s, &p.f, z, &st);
      rel = st.residual.relative, its = st.iterations, ni = lsim_solver_newton_info(s);
    }
    const double ms = 1e3 * (lsim_flcp_cpu_now() - t0);
    printf("n %d m %d: %s relative %.2e iterations %d %.2f ms z %016llx\n", n, p.f.m,
           lsim_status_name(rc), rel, its, ms, lsim_flcp_z_hash(z, n));
    if (ni) print_info(ni, scale);
    if (trace) {
      printf("trace:");
      for (int k = 0; k < info.trace_len; ++k) printf(" %.1e", info.trace[k] / scale);
      printf("\n");
    }
  }
  free(z);
  lsim_solver_free(s);
  lsim_newton_free(ws);
  lsim_flcp_free(&p);
  return rc == LSIM_SOLVED || reps == 0 ? 0 : 1;
}
