/* bench_fc.c: our exact-cone frictional contact solvers against Siconos' fc3d NSGS, in
 * the same process, on the same problems (every 3-D file of shared/data/siconos-fc3d).
 *
 * Table 1, reach: each solver with tolerance 1e-8 on the relative natural-map residual
 * (relative to ||q||, lcp/fc.h: never below Siconos 4.4's own error; computed the same way
 * for every solver) and 10 000
 * iterations; the residual each reaches, its iterations and median time over alternating
 * repetitions (ours, Siconos, ours, ...: the machine's load hits both alike).
 * Table 2, equal error on Capsules-i101-404: both solvers at the same target error (1e-8,
 * our measure of both; Siconos given the fewest iterations that reach it, found by
 * bisection, since its own stopping test runs on); the time ratio Siconos / ours (> 1:
 * ours is faster). A solver that misses the target is reported as such, never timed as if
 * it had reached it.
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/table.h"
#include "lcp/fc.h"
#include "lcp/fc_solver.h"

/* The median of v[0..n) (sorted in place), by the comparison layer's helper. */
static double median(double *v, int n) {
  double spread;
  return lsim_compare_time_stats(v, n, &spread);
}

typedef struct {
  double time, rel;
  int iterations, status;
} Run;

static Run run_once(const char *name, const LsimFc *p, double tol, int max_iter) {
  LsimSolverOptions o = lsim_default_solver_options();
  o.tol = tol;
  o.max_iter = max_iter;
  LsimFcSolver *s = NULL;
  char err[256];
  if (lsim_fc_solver_create(&s, name, &o, 0, err, sizeof err)) {
    fprintf(stderr, "bench_fc: %s: %s\n", name, err);
    exit(1);
  }
  double *r = calloc(2 * (size_t)p->n + 2, sizeof(double));
  LsimFcStats st;
  lsim_fc_solver_solve(s, p, r, r + p->n, &st);
  Run out = {st.wall_time, st.quality.relative, st.iterations, st.status};
  free(r);
  lsim_fc_solver_free(s);
  return out;
}

/* Alternating repetitions of solvers a and b; medians of the times. */
static void alternate(const char *a, const char *b, const LsimFc *p, double tol, int max_iter,
                      int reps, Run *ra, Run *rb) {
  double ta[16], tb[16];
  for (int k = 0; k < reps; ++k) {
    *ra = run_once(a, p, tol, max_iter);
    *rb = run_once(b, p, tol, max_iter);
    ta[k] = ra->time;
    tb[k] = rb->time;
  }
  ra->time = median(ta, reps);
  rb->time = median(tb, reps);
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void) {
  const char *shared = getenv("LSIM_SHARED") ? getenv("LSIM_SHARED") : "../shared";
  char dir[512];
  snprintf(dir, sizeof dir, "%s/data/siconos-fc3d", shared);
  DIR *dp = opendir(dir);
  if (!dp) {
    fprintf(stderr, "bench_fc: cannot open %s\n", dir);
    return 1;
  }
  char *names[64];
  int nf = 0;
  for (struct dirent *e; (e = readdir(dp)) && nf < 64;) {
    const size_t l = strlen(e->d_name);
    if ((l > 4 && !strcmp(e->d_name + l - 4, ".dat")) ||
        (l > 5 && !strcmp(e->d_name + l - 5, ".hdf5")))
      names[nf++] = strdup(e->d_name);
  }
  closedir(dp);
  qsort(names, (size_t)nf, sizeof *names, by_name);

  const double target = 1e-8;
  printf("## Exact-cone solvers on the 3-D files (tolerance %g, 10000 iterations)\n\n", target);
  printf("| problem | contacts | nsgs_aa rel. error | iter. | time [ms] | nsgs rel. error | "
         "iter. | siconos:fc3d_nsgs rel. error | iter. | time [ms] | Siconos / nsgs_aa |\n");
  printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  int all_reached = 1;
  LsimFc caps;
  int have_caps = 0;
  for (int i = 0; i < nf; ++i) {
    char path[1024], err[512];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    LsimFc p;
    if (lsim_fc_read(path, &p, err, sizeof err)) {
      fprintf(stderr, "bench_fc: %s\n", err);
      return 1;
    }
    if (p.dim != 3) {
      lsim_fc_free(&p);
      continue;
    }
    Run ours, sic;
    alternate("nsgs_aa", "siconos:fc3d_nsgs", &p, target, 10000, 3, &ours, &sic);
    const Run plain = run_once("nsgs", &p, target, 10000);
    all_reached = all_reached && ours.rel <= target;
    /* the ratio compares runs to their own stops: equal error only when both reached it */
    printf("| %s | %d | %.2e | %d | %.3f | %.2e | %d | %.2e | %d | %.3f | %.2f%s |\n", names[i],
           p.nc, ours.rel, ours.iterations, 1e3 * ours.time, plain.rel, plain.iterations,
           sic.rel, sic.iterations, 1e3 * sic.time, sic.time / ours.time,
           ours.rel <= target && sic.rel <= target ? "" : " (not at equal error)");
    if (strstr(names[i], "Capsules") && !have_caps) {
      caps = p;
      have_caps = 1;
    } else {
      lsim_fc_free(&p);
    }
  }
  printf("\nnsgs_aa reaches %g on every 3-D file: %s\n", target, all_reached ? "yes" : "NO");
  printf("(the time ratio is of each run to its own stop; where one solver missed the target "
         "it is not a ratio at equal error)\n\n");

  if (have_caps) {
    /* Equal error: Siconos' own stopping test runs past the target (its light error is not
       ours), so its budget is the smallest iteration count whose result reaches the target
       on our measure (bisection: the iterates do not depend on the budget; tolerance 1e-300
       so that its own test never stops it first); ours stops by
       itself. Then 7 alternating timed runs. */
    int lo = 1, hi = 10000;
    if (run_once("siconos:fc3d_nsgs", &caps, 1e-300, hi).rel > target) hi = 0;
    while (hi && hi - lo > 50) {
      const int mid = (lo + hi) / 2;
      if (run_once("siconos:fc3d_nsgs", &caps, 1e-300, mid).rel <= target) hi = mid;
      else lo = mid;
    }
    double ta[7], tb[7];
    Run ours = {0}, sic = {0};
    for (int k = 0; k < 7 && hi; ++k) {
      ours = run_once("nsgs_aa", &caps, target, 20000);
      sic = run_once("siconos:fc3d_nsgs", &caps, 1e-300, hi);
      ta[k] = ours.time, tb[k] = sic.time;
    }
    if (hi) ours.time = median(ta, 7), sic.time = median(tb, 7);
    printf("## Capsules-i101-404 at equal error (both at relative error <= %g)\n\n", target);
    printf("| solver | rel. error | iterations | median time [ms] |\n|---|---:|---:|---:|\n");
    printf("| nsgs_aa | %.2e | %d | %.3f |\n", ours.rel, ours.iterations, 1e3 * ours.time);
    printf("| siconos:fc3d_nsgs (budget: the fewest iterations reaching the target, within "
           "50) | %.2e | %d | %.3f |\n", sic.rel, sic.iterations, 1e3 * sic.time);
    if (hi && ours.rel <= target && sic.rel <= target)
      printf("\nspeed-up Siconos NSGS / nsgs_aa at equal error: %.2f x\n", sic.time / ours.time);
    else
      printf("\nno equal-error ratio: a solver missed the target (above)\n");
    lsim_fc_free(&caps);
  }
  for (int i = 0; i < nf; ++i) free(names[i]);
  return 0;
}
