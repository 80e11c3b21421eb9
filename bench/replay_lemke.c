/* replay_lemke.c: solves one dumped step (bench_exact --dump, bench/flcp_file.h) with
 * lemke_sparse through the solver front as bench_exact's series "lemke_sparse, whole,
 * carried basis" does (default options, warm start, whole, no iteration cap, the dumped
 * carried basis as the guess), and prints what bench_exact --verbose prints for it: status,
 * relative residual, pivots, solve counts, runs, CPU time and the FNV-1a hash of z's bytes.
 * A single slow step can so be profiled (perf, callgrind) without the run that led to it.
 *
 * usage: replay_lemke FILE.flcp [--reps R] [--positive] [--cold] [--cover-previous] [--sides]
 *                    [--pivots] [--principal K] [--perturb EPS]
 *   --positive: guess z > 0 of the dumped warm guess instead of the carried basis;
 *   --cold: from z = 0; --reps R: solve R times (fresh copies of the guess), times each;
 *   --sides: where the carried basis and the solve's final basis differ, by row kind
 *   (normal, friction direction, the cone's lambda row) and way (z basic in the carried
 *   basis and w in the final one, or the other way), with the solution's z_i and w_i and
 *   the warm guess's z_i on those rows;
 *   --principal K: up to K principal pivots from the guess first (lsim_solver_set_principal);
 *   --perturb EPS: see perturbed below;
 *   --pivots: the same solve once more, directly with lsim_lemke_sparse_solve (the solver
 *   front's settings: retry from z > 0 after the carried basis), tracing each exchange, and
 *   what the path did: pivots by the entering variable's kind (w or z; normal, direction,
 *   lambda) and by the solution's class of its contact (sticking: z_n > t and w_lambda > t;
 *   sliding: z_lambda > t; apart: z_n <= t; t as --sides), z0 down / up / unchanged, the
 *   pivots after z0 fell below 1e-3 and 1e-6 of its first value, and how often the same
 *   variables entered again (distinct, the most entries of one, pivots spent on variables
 *   entering 3 times or more).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/flcp_file.h"
#include "lcp/factored.h"
#include "lcp/lemke_sparse.h"
#include "lcp/solver.h"

/* Kind of each variable from the cone blocks: 0 normal, 1 direction, 2 lambda, 3 other. */
static void row_kinds(const LsimFactoredLcp *f, unsigned char *kind) {
  memset(kind, 3, (size_t)f->n);
  for (int c = 0; c < f->ncones; ++c) {
    const LsimConeBlock *b = &f->cones[c];
    if (b->normal >= 0) kind[b->normal] = 0;
    for (int k = 0; k < b->ndir; ++k) kind[b->first_dir + k] = 1;
    if (b->lambda >= 0) kind[b->lambda] = 2;
  }
}

/* --sides: the rows whose basic variable differs between the carried basis g and the final
 * basis b, counted by kind and way; each class split by the solution (z_i > t, w_i > t, or
 * both below t = 1e-9 of the largest |z|, |w|: degenerate) and by the warm guess's z_i > 0. */
static void print_sides(const LsimFactoredLcp *f, const unsigned char *g, const unsigned char *b,
                        const double *zg, const double *z) {
  const int n = f->n;
  unsigned char *kind = malloc((size_t)n);
  double *w = malloc(sizeof(double) * (size_t)n), *u = malloc(sizeof(double) * (size_t)(f->m + 1));
  if (!kind || !w || !u) goto done;
  row_kinds(f, kind);
  lsim_factored_w(f, z, u, w);
  double zm = 0.0, wm = 0.0;
  for (int i = 0; i < n; ++i) {
    zm = fabs(z[i]) > zm ? fabs(z[i]) : zm;
    wm = fabs(w[i]) > wm ? fabs(w[i]) : wm;
  }
  static const char *const kname[4] = {"normal", "direction", "lambda", "other"};
  /* cnt[kind][way][class]: way 0 z -> w, 1 w -> z; class 0 z > t, 1 w > t, 2 degenerate;
     tot[kind]: rows of that kind; gpos[kind][way]: of the changed, guess z_i > 0. */
  int cnt[4][2][3] = {{{0}}}, tot[4] = {0}, gpos[4][2] = {{0}}, same_deg[4] = {0};
  for (int i = 0; i < n; ++i) {
    ++tot[kind[i]];
    const int cls = z[i] > 1e-9 * zm ? 0 : w[i] > 1e-9 * wm ? 1 : 2;
    if (g[i] == b[i]) {
      same_deg[kind[i]] += cls == 2;
      continue;
    }
    const int way = g[i] ? 0 : 1;
    ++cnt[kind[i]][way][cls];
    gpos[kind[i]][way] += zg[i] > 0.0;
  }
  for (int k = 0; k < 4; ++k) {
    if (!tot[k]) continue;
    printf("sides %-9s rows %4d | z->w %3d (z>t %d, w>t %d, degenerate %d; guess z>0 %d) | "
           "w->z %3d (z>t %d, w>t %d, degenerate %d; guess z>0 %d) | unchanged degenerate %d\n",
           kname[k], tot[k], cnt[k][0][0] + cnt[k][0][1] + cnt[k][0][2], cnt[k][0][0],
           cnt[k][0][1], cnt[k][0][2], gpos[k][0], cnt[k][1][0] + cnt[k][1][1] + cnt[k][1][2],
           cnt[k][1][0], cnt[k][1][1], cnt[k][1][2], gpos[k][1], same_deg[k]);
  }
  /* By contact: the cones whose directions changed, as one direction leaving and one
     entering (adjacent: 2 pi / ndir apart; opposite; other), or otherwise. */
  int one_one[3] = {0}, other = 0;
  for (int c = 0; c < f->ncones; ++c) {
    const LsimConeBlock *bl = &f->cones[c];
    int out = -1, in = -1, nout = 0, nin = 0;
    for (int k = 0; k < bl->ndir; ++k) {
      const int i = bl->first_dir + k;
      if (g[i] == b[i]) continue;
      if (g[i]) out = k, ++nout;
      else in = k, ++nin;
    }
    if (!nout && !nin) continue;
    if (nout == 1 && nin == 1) {
      const int d = abs(out - in), dd = d < bl->ndir - d ? d : bl->ndir - d;
      ++one_one[dd == 1 ? 0 : 2 * dd == bl->ndir ? 1 : 2];
    } else {
      ++other;
    }
  }
  printf("sides by cone: one direction out and one in %d (adjacent %d, opposite %d, other %d), "
         "other changes %d, of %d cones\n",
         one_one[0] + one_one[1] + one_one[2], one_one[0], one_one[1], one_one[2], other,
         f->ncones);
done:
  free(kind), free(w), free(u);
}

/* --pivots (see the header). */
static void print_pivots(const LsimFlcp *p, const LsimSolverOptions *o, int principal) {
  const LsimFactoredLcp *f = &p->f;
  const int n = f->n, cap = 50 * n + 1000;
  LsimLemkeSparse *ws = lsim_lemke_sparse_create();
  double *z = malloc(sizeof(double) * (size_t)n), *tr = malloc(sizeof(double) * (size_t)cap);
  double *w = malloc(sizeof(double) * (size_t)n), *u = malloc(sizeof(double) * (size_t)(f->m + 1));
  int *tv = malloc(sizeof(int) * 2 * (size_t)cap), *entries = calloc(2 * (size_t)n + 1, sizeof(int));
  unsigned char *kind = malloc((size_t)n), *cls = malloc((size_t)n);
  if (!ws || !z || !tr || !w || !u || !tv || !entries || !kind || !cls) goto done;
  memcpy(z, p->z, sizeof(double) * (size_t)n);
  LsimLemkeOptions lo = lsim_default_lemke_options();
  lo.max_pivots = o->max_iter, lo.tol = o->tol, lo.floor = o->fallback && o->impulse_unit;
  LsimLemkeInfo li = {.trace = tr, .trace_capacity = cap, .trace_var = tv};
  lsim_lemke_sparse_set_retry_positive(ws, p->basis != NULL);
  lsim_lemke_sparse_set_principal(ws, principal);
  const int st = lsim_lemke_sparse_solve(ws, f, &lo, p->basis, z, &li);
  printf("pivots: %s %d pivots, %d traced\n", lsim_status_name(st), li.pivots, li.trace_len);
  /* Each row's contact class at the solution: 0 sticking, 1 sliding, 2 apart, 3 no cone. */
  row_kinds(f, kind);
  lsim_factored_w(f, z, u, w);
  double zm = 0.0, wm = 0.0;
  for (int i = 0; i < n; ++i) zm = fmax(zm, fabs(z[i])), wm = fmax(wm, fabs(w[i]));
  memset(cls, 3, (size_t)n);
  for (int c = 0; c < f->ncones; ++c) {
    const LsimConeBlock *b = &f->cones[c];
    if (b->normal < 0 || b->lambda < 0) continue;
    const int k = !(z[b->normal] > 1e-9 * zm) ? 2 : z[b->lambda] > 1e-9 * zm ? 1
                  : w[b->lambda] > 1e-9 * wm ? 0 : 1;
    cls[b->normal] = cls[b->lambda] = (unsigned char)k;
    for (int d = 0; d < b->ndir; ++d) cls[b->first_dir + d] = (unsigned char)k;
  }
  /* by[zw][kind][class] */
  int by[2][4][4] = {{{0}}}, down = 0, up = 0, flat = 0, below3 = 0, below6 = 0;
  double first = 0.0;
  for (int t = 0; t < li.trace_len; ++t) {
    const int v = tv[2 * t];
    if (v == 2 * n) { /* z0 entered: a path's start */
      first = tr[t];
      continue;
    }
    const int i = v < n ? v : v - n;
    ++by[v >= n][kind[i]][cls[i]];
    ++entries[v];
    const double prev = tr[t - 1];
    down += tr[t] < prev, up += tr[t] > prev, flat += tr[t] == prev;
    below3 += tr[t] < 1e-3 * first, below6 += tr[t] < 1e-6 * first;
  }
  static const char *const kname[4] = {"normal", "direction", "lambda", "other"};
  for (int zw = 0; zw < 2; ++zw)
    for (int k = 0; k < 4; ++k) {
      const int *b = by[zw][k];
      if (b[0] + b[1] + b[2] + b[3])
        printf("pivots entering %s %-9s %5d (sticking %d, sliding %d, apart %d)\n",
               zw ? "z" : "w", kname[k], b[0] + b[1] + b[2] + b[3], b[0], b[1], b[2]);
    }
  int distinct = 0, most = 0, again = 0;
  for (int v = 0; v < 2 * n; ++v) {
    distinct += entries[v] > 0;
    most = entries[v] > most ? entries[v] : most;
    again += entries[v] >= 3 ? entries[v] : 0;
  }
  printf("pivots z0 down %d up %d unchanged %d; below 1e-3 of its start %d, below 1e-6 %d; "
         "variables entering %d, most entries of one %d, pivots on variables entering 3+ "
         "times %d\n", down, up, flat, below3, below6, distinct, most, again);
done:
  lsim_lemke_sparse_free(ws);
  free(z), free(tr), free(w), free(u), free(tv), free(entries), free(kind), free(cls);
}

/* --perturb EPS: Lemke from the carried basis on q + EPS max|q| r (r_i in [0.5, 1), a fixed
 * hash of i: every tie of the degenerate problem broken one way), then from that solve's
 * final basis on q itself through the solver front s; pivots and CPU time of both. */
static void perturbed(const LsimFlcp *p, LsimSolver *s, const LsimSolverOptions *o, double eps) {
  const LsimFactoredLcp *f = &p->f;
  const int n = f->n;
  double *q = malloc(sizeof(double) * (size_t)n), *z = malloc(sizeof(double) * (size_t)n);
  LsimLemkeSparse *ws = lsim_lemke_sparse_create();
  if (!q || !z || !ws) goto done;
  double qs = 0.0;
  for (int i = 0; i < n; ++i) qs = fmax(qs, fabs(f->q[i]));
  for (int i = 0; i < n; ++i) {
    unsigned long long h = (unsigned long long)i * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29, h *= 0xBF58476D1CE4E5B9ull, h ^= h >> 32;
    q[i] = f->q[i] + eps * qs * (0.5 + 0.5 * (double)(h >> 11) / 9007199254740992.0);
  }
  LsimFactoredLcp g = *f;
  g.q = q;
  memcpy(z, p->z, sizeof(double) * (size_t)n);
  LsimLemkeOptions lo = lsim_default_lemke_options();
  lo.max_pivots = o->max_iter, lo.tol = o->tol, lo.floor = o->fallback && o->impulse_unit;
  LsimLemkeInfo li = {0};
  lsim_lemke_sparse_set_retry_positive(ws, p->basis != NULL);
  double t0 = lsim_flcp_cpu_now();
  const int st1 = lsim_lemke_sparse_solve(ws, &g, &lo, p->basis, z, &li);
  const double ms1 = 1e3 * (lsim_flcp_cpu_now() - t0);
  const unsigned char *b = lsim_lemke_sparse_basis(ws);
  if (st1 == LSIM_SOLVED && b) lsim_solver_set_basis_guess(s, b);
  LsimSolveStats st;
  t0 = lsim_flcp_cpu_now();
  const int st2 = lsim_solver_solve_factored(s, f, z, &st);
  const double ms2 = 1e3 * (lsim_flcp_cpu_now() - t0);
  printf("perturb %.0e: perturbed %s %d pivots %.2f ms, then q %s relative %.2e %d pivots "
         "%.2f ms\n", eps, lsim_status_name(st1), li.pivots, ms1, lsim_status_name(st2),
         st.residual.relative, st.iterations, ms2);
done:
  lsim_lemke_sparse_free(ws);
  free(q), free(z);
}

int main(int argc, char **argv) {
  const char *path = NULL;
  int reps = 1, positive = 0, cold = 0, cover = 0, sides = 0, pivots = 0;
  double eps = 0.0;
  int principal = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--positive")) positive = 1;
    else if (!strcmp(argv[i], "--cold")) cold = 1;
    else if (!strcmp(argv[i], "--cover-previous")) cover = 1;
    else if (!strcmp(argv[i], "--sides")) sides = 1;
    else if (!strcmp(argv[i], "--pivots")) pivots = 1;
    else if (!strcmp(argv[i], "--perturb") && i + 1 < argc) eps = atof(argv[++i]);
    else if (!strcmp(argv[i], "--principal") && i + 1 < argc) principal = atoi(argv[++i]);
    else if (argv[i][0] != '-' && !path) path = argv[i];
    else {
      fprintf(stderr, "usage: replay_lemke FILE.flcp [--reps R] [--positive] [--cold] "
                      "[--cover-previous] [--sides] [--pivots] [--principal K] [--perturb EPS]\n");
      return 2;
    }
  }
  if (!path || reps < 1) {
    fprintf(stderr, "usage: replay_lemke FILE.flcp [--reps R] [--positive] [--cold] "
                    "[--cover-previous] [--sides] [--pivots] [--principal K] [--perturb EPS]\n");
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
  lsim_solver_set_principal(s, principal);
  double *z = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
  if (!z) return 2;
  int rc = 0;
  for (int r = 0; r < reps; ++r) {
    if (cold) memset(z, 0, sizeof(double) * (size_t)n);
    else memcpy(z, p.z, sizeof(double) * (size_t)n);
    if (!cold && !positive && p.basis) lsim_solver_set_basis_guess(s, p.basis);
    LsimSolveStats st;
    const double t0 = lsim_flcp_cpu_now();
    rc = lsim_solver_solve_factored(s, &p.f, z, &st);
    const double ms = 1e3 * (lsim_flcp_cpu_now() - t0);
    int fa, ro, co;
    lsim_solver_lemke_sparse_counts(s, &fa, &ro, &co);
    const unsigned long long zh = lsim_flcp_z_hash(z, n);
    printf("n %d: %s relative %.2e iterations %d %.2f ms z %016llx factorizations %d transposed "
           "solves %d column solves %d runs:",
           n, lsim_status_name(rc), st.residual.relative, st.iterations, ms, zh, fa, ro, co);
    const LsimLemkeInfo *li = lsim_solver_lemke_info(s);
    static const char *const stage[LSIM_LEMKE_STAGES] = {"guess", "retry", "cold",
                                                         "cold_by_pivot", "cold_loose", "dense"};
    for (int k = 0; li && k < LSIM_LEMKE_STAGES; ++k)
      if (li->stage_pivots[k] >= 0)
        printf(" %s %s %d", stage[k], lsim_status_name(li->stage_status[k]), li->stage_pivots[k]);
    if (li && li->principal_pivots) /* LSIM_PRINCIPAL: the phase's pivots, in the guess's */
      printf(" principal %d %s", li->principal_pivots, li->principal_solved ? "solved" : "fell_back");
    printf("\n");
    int nb = 0;
    const unsigned char *fb = lsim_solver_last_basis(s, &nb);
    if (sides && fb && nb == n && p.basis) print_sides(&p.f, p.basis, fb, p.z, z);
    else if (sides) printf("sides: no carried basis or no final basis of a solve by itself\n");
  }
  if (pivots) print_pivots(&p, &o, principal);
  if (eps > 0.0) perturbed(&p, s, &o, eps);
  free(z);
  lsim_solver_free(s);
  lsim_flcp_free(&p);
  return rc == LSIM_SOLVED ? 0 : 1;
}
