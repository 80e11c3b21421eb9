/* pgs.h: projected Gauss-Seidel / SOR for the LCP. Math, references and failure modes
 * are at the top of pgs.c. */
#ifndef LSIM_PGS_H
#define LSIM_PGS_H

#include "lcp.h"

typedef struct LsimPgsOptions {
  int max_sweeps;     /* 0 = default 10000 */
  double tol;         /* stop when natural residual <= tol * lsim_lcp_scale(lcp) */
  double omega;       /* relaxation in (0, 2); 1 = Gauss-Seidel */
  int threads;        /* sweep team size, 1 .. LSIM_PGS_MAX_THREADS (0 = 1): the factored
                         fast path sweeps T parts that share no block of u at once, then
                         the tasks that cross parts (pgs.c, "parallel sweeps"); the result
                         depends on T, never on the machine or the run */
  int precision;      /* the coloured sweep's arithmetic where its values are floats (a
                         fixed budget: tol 0, at most LSIM_PGS_FLOAT_MAX_SWEEPS): 0 double
                         (default), 1 single (pgs_wide.c; other bits, the same on every
                         path and machine) */
} LsimPgsOptions;

enum { LSIM_PGS_MAX_THREADS = 64 };
/* The longest fixed budget (tol 0) whose sweeps take single precision when asked. */
enum { LSIM_PGS_FLOAT_MAX_SWEEPS = 100 };

/* The coloured wide sweep's paths (identical results on each): chosen at run time, AVX2
 * where the CPU has it, else SSE2, unless the environment variable LSIM_SIMD (scalar,
 * sse2, avx2, avx512) asks for one (a path the CPU lacks falls back to the widest it has
 * below it). */
enum { LSIM_PGS_SIMD_SCALAR = 1, LSIM_PGS_SIMD_SSE2 = 2, LSIM_PGS_SIMD_AVX2 = 3 };
/* LSIM_SIMD=reference: the one-cone fast path over the same coloured order, with the
 * rows read in place as doubles (equal to the others with a tolerance, where their rows
 * are doubles too; a check, not a speed). */
enum { LSIM_PGS_SIMD_REFERENCE = 4 };
/* Eight lanes (AVX-512F and DQ): two four-lane groups of one colour per vector; only when
 * asked (LSIM_SIMD=avx512: faster at 1000 bodies, slower at 10 000, docs/solvers.md). */
enum { LSIM_PGS_SIMD_AVX512 = 5 };

/* max_sweeps 0, tol 1e-10, omega 1, threads 1. */
LsimPgsOptions lsim_default_pgs_options(void);

typedef struct LsimPgsInfo {
  int status;         /* LSIM_SOLVED, LSIM_MAX_ITERATIONS, LSIM_BAD_DIAGONAL, LSIM_BREAKDOWN,
                         LSIM_INVALID_INPUT, LSIM_OUT_OF_MEMORY */
  int sweeps;
  double residual;    /* natural residual of the returned z, w recomputed exactly */
  LsimResidual full;  /* every measure of that final residual (valid when full_valid) */
  int full_valid;
  double *trace;      /* optional, caller's: natural residual after each sweep */
  int trace_capacity;
  int trace_len;
  int parts;          /* parallel sweeps: parts swept at once (0: the natural order) */
  int crossing;       /* parallel sweeps: tasks (cones, scalars) swept after the parts */
  int simd;           /* coloured wide sweep (pgs.c, "coloured wide sweep"): the path that
                         ran, LSIM_PGS_SIMD_SCALAR / _SSE2 / _AVX2 / _AVX512; 0 when not used */
  int colours;        /* its colours (0 when not used) */
  int row_values;     /* its values of J's and B's rows stored a cone: 72 as doubles or full
                         floats, 63 or 54 with compact float rows (pgs_wide.c; 0 when not
                         used) */
  const double *bz;   /* factored fast path: u = B z [m] of the returned z, recomputed from z
                         with the final residual (owned by the workspace, valid until its
                         next solve); NULL otherwise */
  const double *w;    /* factored fast path: w [n] of the final residual (the measures in
                         full are those of z and this w; owned as bz); NULL otherwise */
} LsimPgsInfo;

typedef struct LsimPgs LsimPgs;

LsimPgs *lsim_pgs_create(void);
void lsim_pgs_free(LsimPgs *ws);

/* The workspace's thread team (lcp/team.h), made by a solve with threads > 1 and kept
 * for the next ones; NULL before that or with one thread. Others may run work on it
 * between solves (never during one). */
struct LsimTeam *lsim_pgs_team(LsimPgs *ws);

/* Solves lcp into z [n], starting from z if warm (negative entries are clamped to 0),
 * else from 0. Returns info->status (info may be NULL). */
int lsim_pgs_solve(LsimPgs *ws, const LsimLcp *lcp, const LsimPgsOptions *opt, int warm,
                   double *z, LsimPgsInfo *info);

#endif
