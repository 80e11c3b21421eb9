/* table.c: a comparison's results per problem and series, and their summaries
 * (compare/table.h). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compare/table.h"
#include "compare/timed.h"
#include "lcp/quality.h"

int lsim_compare_is_failure(int status) { return status < 0 && status != LSIM_MAX_ITERATIONS; }

int lsim_compare_is_success(int status, double relative, double success_tol) {
  return !lsim_compare_is_failure(status) && isfinite(relative) && relative <= success_tol;
}

int lsim_compare_table_alloc(LsimCompareTable *t, int N, int P, int independent) {
  memset(t, 0, sizeof *t);
  t->N = N;
  t->P = P;
  const size_t np = (size_t)N * P + 1, np1 = (size_t)(N + 1) * P + 1;
  int **ints[] = {&t->status, &t->success, &t->iters, &t->warm, &t->size, &t->nsliding,
                  &t->skipped};
  for (size_t k = 0; k < sizeof ints / sizeof *ints; ++k)
    if (!(*ints[k] = calloc(np, sizeof(int)))) return -1;
  /* The state differences and energies: independent mode only. */
  double **dbl[] = {&t->wall, &t->res, &t->rel, &t->compl_, &t->sig, &t->cone,
                    &t->diss, &t->dist, &t->sicerr, &t->spread, &t->qdiff, &t->vdiff};
  const size_t ndbl = sizeof dbl / sizeof *dbl - (independent ? 0 : 2);
  for (size_t k = 0; k < ndbl; ++k) {
    if (!(*dbl[k] = calloc(np, sizeof(double)))) return -1;
    for (size_t i = 0; i < np; ++i) (*dbl[k])[i] = NAN;
  }
  if (independent) {
    t->ekin = calloc(np1, sizeof(double));
    t->epot = calloc(np1, sizeof(double));
    if (!t->ekin || !t->epot) return -1;
    for (size_t i = 0; i < np1; ++i) t->ekin[i] = t->epot[i] = NAN;
  }
  t->hash = calloc(np, sizeof(uint64_t));
  t->step = calloc((size_t)N + 1, sizeof(int));
  t->time = calloc((size_t)N + 1, sizeof(double));
  t->problem_hash = calloc((size_t)N + 1, sizeof(uint64_t));
  t->problem_size = calloc((size_t)N + 1, sizeof(int));
  t->problem_dense_hash = calloc((size_t)N + 1, sizeof(uint64_t));
  if (!t->hash || !t->step || !t->time || !t->problem_hash || !t->problem_size ||
      !t->problem_dense_hash)
    return -1;
  return 0;
}

void lsim_compare_table_free(LsimCompareTable *t) {
  void *all[] = {t->status, t->success, t->iters, t->warm, t->size, t->nsliding, t->hash,
                 t->wall,   t->res,     t->rel,   t->compl_, t->sig, t->cone,  t->diss,
                 t->dist,   t->sicerr,  t->qdiff, t->vdiff, t->ekin, t->epot,  t->step,
                 t->time,   t->problem_hash, t->problem_size, t->skipped,
                 t->problem_dense_hash, t->spread};
  for (size_t k = 0; k < sizeof all / sizeof *all; ++k) free(all[k]);
  memset(t, 0, sizeof *t);
}

int lsim_compare_scratch_grow(LsimCompareScratch *s, int n) {
  if (n <= s->cap) return 0;
  double *w = realloc(s->work, ((size_t)n + 2) * sizeof(double));
  if (!w) return -1;
  s->work = w;
  s->cap = n;
  return 0;
}

/* Records one solve of problem k by series s: its stats, the quality of z, the hash. The
 * problem is the dense lcp, or (lcp NULL) the factored f, whose quality measures are then
 * computed on the factored form (lsim_factored_quality: M is never formed). */
int lsim_compare_record_solve(LsimCompareTable *t, LsimCompareScratch *sc, int k, int s,
                              const LsimLcp *lcp, const LsimFactoredLcp *f, const double *z,
                              const LsimSolveStats *st, uint64_t hash, const double *zref,
                              double success_tol) {
  const size_t i = (size_t)k * t->P + s;
  const int n = lcp ? lcp->n : f->n;
  if (lsim_compare_scratch_grow(sc, 2 * n + (lcp ? 0 : f->m))) return -1;
  LsimQuality qm;
  if (lcp) lsim_lcp_quality(lcp, z, sc->work, -1.0, &qm);
  else lsim_factored_quality(f, z, sc->work, -1.0, &qm);
  t->status[i] = st->status;
  t->iters[i] = st->iterations;
  t->warm[i] = st->warm_started;
  t->size[i] = n;
  t->nsliding[i] = qm.nsliding;
  t->hash[i] = hash;
  t->wall[i] = st->wall_time;
  t->res[i] = qm.residual.natural;
  t->rel[i] = qm.residual.relative;
  t->compl_[i] = qm.residual.complementarity;
  t->sig[i] = qm.signorini;
  t->cone[i] = qm.cone;
  t->diss[i] = qm.dissipation;
  t->sicerr[i] = st->siconos_error;
  t->dist[i] = NAN;
  if (zref && lcp) {
    t->dist[i] = lsim_quality_distance(n, z, zref);
  } else if (zref) {
    /* Velocities, not impulses (those of a contact LCP are not unique). */
    if (lsim_compare_scratch_grow(sc, f->m + 1)) return -1;
    t->dist[i] = lsim_factored_velocity_distance(f, z, zref, sc->work);
  }
  t->success[i] = lsim_compare_is_success(st->status, qm.residual.relative, success_tol);
  return 0;
}

/* A step without an LCP: solved, trivially, by every series. */
void lsim_compare_record_empty(LsimCompareTable *t, int k, int s) {
  const size_t i = (size_t)k * t->P + s;
  t->status[i] = LSIM_SOLVED;
  t->success[i] = 1;
  t->iters[i] = t->warm[i] = t->size[i] = t->nsliding[i] = 0;
  t->hash[i] = 0;
  t->wall[i] = t->res[i] = t->rel[i] = t->compl_[i] = t->sig[i] = t->cone[i] = t->diss[i] = 0.0;
  t->dist[i] = 0.0;
  t->sicerr[i] = 0.0;
}

/* A solve not run: skipped[i] = 1, status LSIM_COMPARE_SKIPPED, no success, lcp_size 0 (no
 * problem was handed to the solver; /problem_size has n), hash 0, measures NaN. */
void lsim_compare_record_skipped(LsimCompareTable *t, int k, int s) {
  const size_t i = (size_t)k * t->P + s;
  t->status[i] = LSIM_COMPARE_SKIPPED;
  t->skipped[i] = 1;
  t->success[i] = t->iters[i] = t->warm[i] = t->size[i] = t->nsliding[i] = 0;
  t->hash[i] = 0;
  t->wall[i] = t->res[i] = t->rel[i] = t->compl_[i] = t->sig[i] = t->cone[i] = t->diss[i] = NAN;
  t->dist[i] = t->sicerr[i] = NAN;
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  if (isnan(x) || isnan(y)) return isnan(x) - isnan(y);
  return (x > y) - (x < y);
}

/* Median of v[0..n) (sorted in place); NaN when n = 0. */
static double median(double *v, int n) {
  if (n == 0) return NAN;
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* max that propagates NaN as "worst" only when all are NaN. */
static double maxf(double a, double b) { return isnan(a) ? b : isnan(b) ? a : fmax(a, b); }

void lsim_compare_record_unfinished(LsimCompareTable *t, int k, int s, int status, int n,
                                    uint64_t hash, double wall) {
  const size_t i = (size_t)k * t->P + s;
  t->status[i] = status;
  t->success[i] = t->iters[i] = t->warm[i] = t->nsliding[i] = t->skipped[i] = 0;
  t->size[i] = n;
  t->hash[i] = hash;
  /* A timeout's time is the limit; a child that died was not timed (the limit had stood
     in for its time to fail). */
  t->wall[i] = status == LSIM_COMPARE_TIMEOUT ? wall : NAN;
  t->res[i] = t->rel[i] = t->compl_[i] = t->sig[i] = t->cone[i] = t->diss[i] = NAN;
  t->dist[i] = t->sicerr[i] = NAN;
}

double lsim_compare_time_stats(double *times, int K, double *spread) {
  qsort(times, (size_t)K, sizeof *times, cmp_double);
  *spread = times[K - 1] - times[0];
  return K % 2 ? times[K / 2] : 0.5 * (times[K / 2 - 1] + times[K / 2]);
}

/* Summary of series s over the problems with an LCP (size > 0). The counts are over every
 * such problem; the aggregates of solutions (times, iterations, residuals, distances, cone
 * violations) over the solves that are not failures (lsim_compare_is_failure: a budget
 * stop's z counts, a ray's, a breakdown's, a timeout's or a Siconos error's does not);
 * the failed solves' time to fail is summarized apart (median_fail_wall). */
void lsim_compare_summarize(const LsimCompareTable *t, int s, double *buf,
                            LsimCompareSummary *out) {
  memset(out, 0, sizeof *out);
  out->median_wall = out->worst_wall = out->median_iters = out->median_rel = NAN;
  out->worst_rel = out->max_dist = out->max_qdiff = out->worst_cone = NAN;
  out->median_fail_wall = NAN;
  int m = 0, any_count = 0;
  for (int k = 0; k < t->N; ++k) {
    const size_t i = (size_t)k * t->P + s;
    if (t->qdiff) out->max_qdiff = maxf(out->max_qdiff, t->qdiff[i]);
    out->skipped += t->skipped[i];
    if (t->size[i] <= 0) continue;
    ++out->problems;
    out->successes += t->success[i];
    out->budget += t->status[i] == LSIM_MAX_ITERATIONS;
    out->missed += t->status[i] >= 0 && !t->success[i];
    if (lsim_compare_is_failure(t->status[i])) {
      ++out->failures;
      continue;
    }
    out->worst_wall = maxf(out->worst_wall, t->wall[i]);
    out->worst_rel = maxf(out->worst_rel, t->rel[i]);
    out->max_dist = maxf(out->max_dist, t->dist[i]);
    out->worst_cone = maxf(out->worst_cone, t->cone[i]);
    if (t->iters[i] > out->max_iters) out->max_iters = t->iters[i];
    any_count |= t->iters[i] >= 0;
    buf[m++] = t->wall[i];
  }
  /* Iteration counts a solver does not give (-1, lcp/solver.h) are left out of both
     aggregates: max -1 and median NaN when no solve has one, never 0. */
  if (!any_count && out->problems > out->failures) out->max_iters = -1;
  out->success_rate = out->problems ? (double)out->successes / out->problems : NAN;
  out->median_wall = median(buf, m);
  /* The medians below over the same solves: not failed (their residual is finite; a NaN
     one is left out all the same). */
#define SOLUTION(i) (t->size[i] > 0 && !lsim_compare_is_failure(t->status[i]))
  m = 0;
  for (int k = 0; k < t->N; ++k)
    if (SOLUTION((size_t)k * t->P + s) && t->iters[(size_t)k * t->P + s] >= 0)
      buf[m++] = t->iters[(size_t)k * t->P + s];
  out->median_iters = median(buf, m);
  m = 0;
  for (int k = 0; k < t->N; ++k)
    if (SOLUTION((size_t)k * t->P + s) && !isnan(t->rel[(size_t)k * t->P + s]))
      buf[m++] = t->rel[(size_t)k * t->P + s];
  out->median_rel = median(buf, m);
#undef SOLUTION
  /* Time to fail, apart. */
  m = 0;
  for (int k = 0; k < t->N; ++k) {
    const size_t i = (size_t)k * t->P + s;
    if (t->size[i] > 0 && lsim_compare_is_failure(t->status[i]) && !isnan(t->wall[i]))
      buf[m++] = t->wall[i];
  }
  out->median_fail_wall = median(buf, m);
}
