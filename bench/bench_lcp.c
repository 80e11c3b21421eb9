/* bench_lcp.c: our Lemke and PGS against Siconos' Lemke and PGS, in the same process, on
 * identical problems (random SPD n = 10 .. 500, and the Siconos .dat test files).
 *
 * Lemke: median wall time of a cold solve over repetitions; both must solve, and the
 * residuals are printed so the comparison is at equal quality.
 * PGS: a fixed number of sweeps with tolerance 0 (so neither stops early), median time
 * per sweep; both run the same Gauss-Seidel iteration, and the final residuals are printed.
 * Prints Markdown tables with the ratio Siconos / ours (> 1: ours is faster).
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lcp/datfile.h"
#include "lcp/random.h"
#include "lcp/solver.h"

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef struct {
  double time;       /* median seconds per solve (or per sweep) */
  int iterations;
  int status;
  double residual;   /* relative natural residual of the last solve */
} Timing;

/* Median over reps solves of lcp by the named solver; per_iteration divides by sweeps. */
static Timing time_solver(const char *name, const LsimSolverOptions *opt, const LsimLcp *lcp,
                          int reps, int per_iteration) {
  Timing t = {0};
  char err[256];
  LsimSolver *s = NULL;
  if (lsim_solver_create(&s, name, opt, err, sizeof err)) {
    fprintf(stderr, "bench: %s: %s\n", name, err);
    exit(1);
  }
  double *z = calloc((size_t)lcp->n + 1, sizeof *z);
  double *times = calloc((size_t)reps, sizeof *times);
  /* One untimed solve sizes the workspace, as in time stepping. */
  lsim_solver_solve(s, lcp, z, NULL);
  for (int r = 0; r < reps; ++r) {
    LsimSolveStats st;
    memset(&st, 0, sizeof st);
    t.status = lsim_solver_solve(s, lcp, z, &st);
    t.iterations = st.iterations;
    t.residual = st.residual.relative;
    times[r] = per_iteration && st.iterations > 0 ? st.wall_time / st.iterations : st.wall_time;
  }
  t.time = median(times, reps);
  free(times);
  free(z);
  lsim_solver_free(s);
  return t;
}

static int cmp_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int reps_for(int n) { return n <= 50 ? 201 : n <= 200 ? 41 : 11; }

int main(int argc, char **argv) {
  const char *shared = getenv("LSIM_SHARED");
  char dir[512];
  snprintf(dir, sizeof dir, "%s/data/siconos-lcp", shared && *shared ? shared : "../shared");
  const int sizes[] = {10, 50, 100, 200, 500};
  const int nsizes = argc > 1 && !strcmp(argv[1], "--quick") ? 3 : 5;

  /* Lemke on random SPD. */
  printf("## Lemke, random SPD (cold start, median of repeated solves)\n\n");
  printf("| n | ours (ms) | pivots | Siconos (ms) | pivots | Siconos/ours | residual ours | "
         "residual Siconos |\n|---|---|---|---|---|---|---|---|\n");
  LsimSolverOptions opt = lsim_default_solver_options();
  for (int k = 0; k < nsizes; ++k) {
    LsimRng rng = lsim_rng(2024 + sizes[k]);
    LsimLcp lcp;
    lsim_lcp_random_spd(&lcp, sizes[k], &rng);
    Timing a = time_solver("lemke", &opt, &lcp, reps_for(sizes[k]), 0);
    Timing b = time_solver("siconos:lemke", &opt, &lcp, reps_for(sizes[k]), 0);
    printf("| %d | %.4f | %d | %.4f | %d | %.2f | %.1e | %.1e |\n", sizes[k], 1e3 * a.time,
           a.iterations, 1e3 * b.time, b.iterations, b.time / a.time, a.residual, b.residual);
    if (a.status || b.status) printf("|   | status %d | | status %d | | | | |\n", a.status, b.status);
    lsim_lcp_free(&lcp);
  }

  /* PGS per sweep at a fixed sweep count. */
  printf("\n## PGS, random SPD (100 sweeps, tolerance 0, median time per sweep)\n\n");
  printf("| n | ours (us/sweep) | Siconos (us/sweep) | Siconos/ours | residual ours | "
         "residual Siconos |\n|---|---|---|---|---|---|\n");
  LsimSolverOptions popt = lsim_default_solver_options();
  popt.tol = 0.0;
  popt.max_iter = 100;
  for (int k = 0; k < nsizes; ++k) {
    LsimRng rng = lsim_rng(4048 + sizes[k]);
    LsimLcp lcp;
    lsim_lcp_random_spd(&lcp, sizes[k], &rng);
    Timing a = time_solver("pgs", &popt, &lcp, reps_for(sizes[k]) / 4 + 3, 1);
    Timing b = time_solver("siconos:pgs", &popt, &lcp, reps_for(sizes[k]) / 4 + 3, 1);
    printf("| %d | %.3f | %.3f | %.2f | %.1e | %.1e |\n", sizes[k], 1e6 * a.time, 1e6 * b.time,
           b.time / a.time, a.residual, b.residual);
    lsim_lcp_free(&lcp);
  }

  /* Lemke on the Siconos test files (dense ones; the block twins hold the same matrices). */
  printf("\n## Lemke, Siconos .dat test problems\n\n");
  printf("| file | n | ours (us) | status | Siconos (us) | status | Siconos/ours |\n"
         "|---|---|---|---|---|---|---|\n");
  DIR *d = opendir(dir);
  if (!d) {
    printf("(no %s: skipped)\n", dir);
    return 0;
  }
  char *names[64];
  int count = 0;
  struct dirent *e;
  while ((e = readdir(d)) && count < 64) {
    const size_t len = strlen(e->d_name);
    if (len > 4 && !strcmp(e->d_name + len - 4, ".dat") && !strstr(e->d_name, "_block"))
      names[count++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(names, (size_t)count, sizeof *names, cmp_name);
  for (int i = 0; i < count; ++i) {
    char path[1024], err[512];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    LsimLcp lcp;
    if (lsim_dat_read(path, &lcp, err, sizeof err)) {
      printf("| %s | | %s | | | | |\n", names[i], err);
      free(names[i]);
      continue;
    }
    Timing a = time_solver("lemke", &opt, &lcp, 101, 0);
    Timing b = time_solver("siconos:lemke", &opt, &lcp, 101, 0);
    printf("| %s | %d | %.2f | %s | %.2f | %s | %.2f |\n", names[i], lcp.n, 1e6 * a.time,
           lsim_status_name(a.status), 1e6 * b.time, lsim_status_name(b.status), b.time / a.time);
    lsim_lcp_free(&lcp);
    free(names[i]);
  }
  return 0;
}
