/* table.h: a comparison's results, per problem and series, and their summary per series. */
#ifndef LSIM_COMPARE_TABLE_H
#define LSIM_COMPARE_TABLE_H

#include <stdint.h>

#include "lcp/factored.h"
#include "lcp/lcp.h"
#include "lcp/solver.h"

/* Per problem (steps or files) k and series s, entries at [k * P + s]. */
typedef struct LsimCompareTable {
  int N, P;                 /* problems (steps or files), series */
  int *status, *success, *iters, *warm, *size, *nsliding, *skipped;  /* [N * P] */
  uint64_t *hash;
  double *wall, *res, *rel, *compl_, *sig, *cone, *diss, *dist, *sicerr;
  double *qdiff, *vdiff;    /* independent mode: state difference to the reference (NULL
                               in the other modes) */
  double *spread;           /* --repeat: max - min of the repeated solves' times */
  double *ekin, *epot;      /* independent mode: [(N + 1) * P] (NULL in the other modes) */
  int *step;                /* [N] */
  double *time;             /* [N] */
  uint64_t *problem_hash;   /* [N] hash of the step's (reference) problem */
  uint64_t *problem_dense_hash; /* [N] lsim_lcp_hash of its dense form, 0 when none formed */
  int *problem_size;        /* [N] */
} LsimCompareTable;

/* Summary of one series over the problems with an LCP (size > 0). problems, successes,
 * failures, budget and success_rate count every such problem; the aggregates of solutions
 * (median / worst wall time, median / max iterations, median / worst relative residual,
 * max distance, worst cone violation) leave the failed solves out (lsim_compare_is_failure:
 * what a ray, a breakdown or a timeout leaves is no solution); median_fail_wall is their
 * time to fail. max_qdiff (independent mode) is over every step of the trajectory. NaN
 * where no solve counts. */
typedef struct LsimCompareSummary {
  int problems, successes, failures, skipped;
  int budget;               /* stopped at their iteration budget (LSIM_MAX_ITERATIONS): not
                               failures (a fixed sweep budget is a design), not successes
                               unless they reached the success tolerance */
  int missed;               /* finished by their own status (solved, or a warning) with a
                               residual above the success tolerance: neither successes nor
                               budget stops nor failures (a polyhedral cone's LCP solved
                               exactly whose exact-cone residual is 1e-3, a solver asked for
                               1e-4), so that successes (but budget stops that succeeded),
                               missed, budget and failures count each problem once */
  double success_rate;
  double median_wall, worst_wall, median_iters, median_rel, worst_rel, max_dist, max_qdiff;
  double worst_cone;        /* largest cone violation (frictional contact sets: exact cone) */
  double median_fail_wall;  /* median time of the failed solves */
  int max_iters;            /* over the solves with a count; -1 when none has one (a solver
                               that gives no count, lcp/solver.h), median_iters then NaN */
} LsimCompareSummary;

/* Status recorded for a solve that was not run: a dense solver on a problem above
 * --dense-limit (positive, so it is not a failure; /status_legend names it). */
#define LSIM_COMPARE_SKIPPED 2
#define LSIM_COMPARE_SKIPPED_TEXT "skipped (n too large for a dense solver)"

/* Scratch shared by the solves: the quality workspace. */
typedef struct LsimCompareScratch {
  double *work;
  int cap;
} LsimCompareScratch;

/* Allocates t for N problems and P series (measures NaN); qdiff, vdiff, ekin and epot in
 * independent mode only. Per problem: 116 P + 32 bytes (148 P + 32 in independent mode;
 * docs/solvers.md, "Memory"). 0 or -1 (memory; free t). */
int lsim_compare_table_alloc(LsimCompareTable *t, int N, int P, int independent);
void lsim_compare_table_free(LsimCompareTable *t);
int lsim_compare_scratch_grow(LsimCompareScratch *s, int n);

/* Records one solve of problem k by series s: its stats, the quality of z, the hash. The
 * problem is the dense lcp, or (lcp NULL) the factored f, whose quality measures are then
 * computed on the factored form (lsim_factored_quality: M is never formed). 0 or -1. */
int lsim_compare_record_solve(LsimCompareTable *t, LsimCompareScratch *sc, int k, int s,
                              const LsimLcp *lcp, const LsimFactoredLcp *f, const double *z,
                              const LsimSolveStats *st, uint64_t hash, const double *zref,
                              double success_tol);
/* A step without an LCP: solved, trivially, by every series. */
void lsim_compare_record_empty(LsimCompareTable *t, int k, int s);
/* A solve not run: skipped[i] = 1, status LSIM_COMPARE_SKIPPED, no success, lcp_size 0 (no
 * problem was handed to the solver; /problem_size has n), hash 0, measures NaN. */
void lsim_compare_record_skipped(LsimCompareTable *t, int k, int s);

/* Success, judged alike for every solver: a status that is not an error (solved, a
 * warning, or stopped at its budget) and a relative residual <= success_tol. A failure
 * status (a ray, a breakdown, a solver error) is never a success, whatever the residual
 * of the z it returned (a warm-started solve that fails returns the guess). */
int lsim_compare_is_success(int status, double relative, double success_tol);
/* 1 when status is a failure: an error other than stopping at the iteration budget. */
int lsim_compare_is_failure(int status);

/* The median of times[0..K) (sorted in place) and, in *spread, max - min. */
double lsim_compare_time_stats(double *times, int K, double *spread);

/* A solve that did not finish (a timeout, or a child that died): status, no success, the
 * problem's size n and hash, wall the time it was given for a timeout (status
 * LSIM_COMPARE_TIMEOUT), NaN for a child that died (not timed), measures NaN. */
void lsim_compare_record_unfinished(LsimCompareTable *t, int k, int s, int status, int n,
                                    uint64_t hash, double wall);

/* Summary of series s (LsimCompareSummary); buf holds N doubles of scratch. */
void lsim_compare_summarize(const LsimCompareTable *t, int s, double *buf,
                            LsimCompareSummary *out);

#endif
