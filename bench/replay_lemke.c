/* replay_lemke.c: solves one dumped step (bench_exact --dump, bench/flcp_file.h) with
 * lemke_sparse through the solver front as bench_exact's series "lemke_sparse, whole,
 * carried basis" does (default options, warm start, whole, no iteration cap, the dumped
 * carried basis as the guess), and prints what bench_exact --verbose prints for it: status,
 * relative residual, pivots, solve counts, runs, CPU time and the FNV-1a hash of z's bytes.
 * A single slow step can so be profiled (perf, callgrind) without the run that led to it.
 *
 * usage: replay_lemke FILE.flcp [--reps R] [--positive] [--cold] [--cover-previous]
 *   --positive: guess z > 0 of the dumped warm guess instead of the carried basis;
 *   --cold: from z = 0; --reps R: solve R times (fresh copies of the guess), times each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/flcp_file.h"
#include "lcp/solver.h"

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
  const char *path = NULL;
  int reps = 1, positive = 0, cold = 0, cover = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--positive")) positive = 1;
    else if (!strcmp(argv[i], "--cold")) cold = 1;
    else if (!strcmp(argv[i], "--cover-previous")) cover = 1;
    else if (argv[i][0] != '-' && !path) path = argv[i];
    else {
      fprintf(stderr, "usage: replay_lemke FILE.flcp [--reps R] [--positive] [--cold] "
                      "[--cover-previous]\n");
      return 2;
    }
  }
  if (!path || reps < 1) {
    fprintf(stderr, "usage: replay_lemke FILE.flcp [--reps R] [--positive] [--cold] "
                    "[--cover-previous]\n");
    return 2;
  }
  LsimFlcp p;
  if (lsim_flcp_read(path, &p)) {
    fprintf(stderr, "replay_lemke: %s: not a readable dumped step\n", path);
    return 2;
  }
  const int n = p.f.n;
  LsimSolverOptions o = lsim_default_solver_options();
  o.warm_start = 1, o.islands = 0, o.max_iter = 0;
  LsimSolver *s;
  char err[256];
  if (lsim_solver_create(&s, "lemke_sparse", &o, err, sizeof err)) {
    fprintf(stderr, "replay_lemke: %s\n", err);
    return 2;
  }
  lsim_solver_set_cover_previous(s, cover);
  double *z = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
  if (!z) return 2;
  int rc = 0;
  for (int r = 0; r < reps; ++r) {
    if (cold) memset(z, 0, sizeof(double) * (size_t)n);
    else memcpy(z, p.z, sizeof(double) * (size_t)n);
    if (!cold && !positive && p.basis) lsim_solver_set_basis_guess(s, p.basis);
    LsimSolveStats st;
    const double t0 = cpu_now();
    rc = lsim_solver_solve_factored(s, &p.f, z, &st);
    const double ms = 1e3 * (cpu_now() - t0);
    int fa, ro, co;
    lsim_solver_lemke_sparse_counts(s, &fa, &ro, &co);
    unsigned long long zh = 14695981039346656037ull;
    for (size_t b = 0; b < (size_t)n * sizeof(double); ++b)
      zh = (zh ^ ((const unsigned char *)z)[b]) * 1099511628211ull;
    printf("n %d: %s relative %.2e iterations %d %.2f ms z %016llx factorizations %d transposed "
           "solves %d column solves %d runs:",
           n, lsim_status_name(rc), st.residual.relative, st.iterations, ms, zh, fa, ro, co);
    const LsimLemkeInfo *li = lsim_solver_lemke_info(s);
    static const char *const stage[LSIM_LEMKE_STAGES] = {"guess", "retry", "cold",
                                                         "cold_by_pivot", "cold_loose", "dense"};
    for (int k = 0; li && k < LSIM_LEMKE_STAGES; ++k)
      if (li->stage_pivots[k] >= 0)
        printf(" %s %s %d", stage[k], lsim_status_name(li->stage_status[k]), li->stage_pivots[k]);
    printf("\n");
  }
  free(z);
  lsim_solver_free(s);
  lsim_flcp_free(&p);
  return rc == LSIM_SOLVED ? 0 : 1;
}
