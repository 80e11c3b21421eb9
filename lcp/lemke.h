/* lemke.h: Lemke's complementary pivoting method with lexicographic anti-cycling and
 * warm start from a guessed basis. The math, references and failure modes are at the top
 * of lemke.c. */
#ifndef LSIM_LEMKE_H
#define LSIM_LEMKE_H

#include "lcp.h"

typedef struct LsimLemkeOptions {
  int max_pivots;     /* per run (see LsimLemkeInfo.pivots); 0 = default: 10 * (n + 1) + 100 */
  double tol;         /* acceptance: natural residual <= tol * lsim_lcp_scale(lcp) */
  int floor;          /* 1: the acceptance also passes a point whose every row is within tol
                         scale or its own rounding floor (quality.h,
                         lsim_lcp_rows_within_floor): as exact as double allows. The solver
                         front sets it for Lemke on a time step's problems under the
                         fallback policy (lcp/solver.c) */
} LsimLemkeOptions;

/* max_pivots 0, tol 1e-10, floor 0. */
LsimLemkeOptions lsim_default_lemke_options(void);

/* The runs of a solve, in order (LsimLemkeInfo.stage_*): the path from the caller's guessed
 * basis, from the basis {i : z_i > 0} of the caller's point (lemke_sparse's retry_positive),
 * the three cold runs (plain, ties by the largest pivot, no preference for sound
 * pivots: ROBUSTNESS in lemke.c), and lemke_sparse's dense fallback (lemke.c's solve on
 * M formed densely, after the sparse runs failed: DENSE FALLBACK in lemke_sparse.c). */
enum {
  LSIM_LEMKE_STAGE_GUESS,
  LSIM_LEMKE_STAGE_RETRY,
  LSIM_LEMKE_STAGE_COLD,
  LSIM_LEMKE_STAGE_COLD_PIVOT,
  LSIM_LEMKE_STAGE_COLD_LOOSE,
  LSIM_LEMKE_STAGE_DENSE,
  LSIM_LEMKE_STAGES
};

typedef struct LsimLemkeInfo {
  int status;          /* LSIM_SOLVED, LSIM_SECONDARY_RAY, LSIM_MAX_ITERATIONS, LSIM_BREAKDOWN,
                          LSIM_INVALID_INPUT, LSIM_OUT_OF_MEMORY */
  int pivots;          /* complementary pivots: basis exchanges after the artificial
                          variable entered (Murty's 2^n - 1, Siconos' count), summed over
                          every run of the solve: a warm-start path, the cold run, and the
                          second and third cold runs, each started when the run before it
                          ended on a ray or a breakdown (cycling included), not on the pivot
                          limit (see ROBUSTNESS in lemke.c), and the cleanup paths of a
                          run whose end missed the tolerance (CLEANUP in lemke.c). Each run,
                          its cleanups included, may use max_pivots, so
                          pivots <= 4 max_pivots (3 without a guess); lemke_sparse's dense
                          fallback adds lemke.c's cold runs: up to 7 (6); its block start's
                          fallback (the guess as given after the repaired guess's path
                          failed) one more; the principal phase before the path
                          (lsim_lemke_sparse_set_principal) up to its budget besides. */
  int warm_started;    /* 1 if the guessed basis was used (solved directly or pivoted from) */
  int block_fallback;  /* 1 if the path from a guess repaired by block pivoting
                          (lsim_lemke_sparse_set_block_start) failed and the guess as given
                          followed (its pivots in the same stage) */
  int principal_pivots; /* pivots of the principal pivoting phase before the path from a
                          guess (lsim_lemke_sparse_set_principal), included in pivots and in
                          the guess stage's stage_pivots */
  int principal_solved; /* 1 if that phase ended at the solution returned */
  int restarts;        /* 1 if a warm start failed and a cold start followed */
  int stage_pivots[LSIM_LEMKE_STAGES]; /* pivots of each run (LSIM_LEMKE_STAGE_*), its
                          cleanups included; -1 for a run not made. They sum to pivots. */
  int stage_status[LSIM_LEMKE_STAGES]; /* how each run made ended (as status; for the
                          guess and retry runs LSIM_SOLVED also when the guessed basis
                          solved with 0 pivots, LSIM_BREAKDOWN when it could not be
                          factored); LSIM_INVALID_INPUT for a run not made */
  int rejected;        /* 1 if the solve failed and its last basic solution had a natural
                          residual no smaller than the caller's z: z was then returned as
                          it came in (see VERIFICATION in lemke.c) */
  double *trace;       /* optional, caller's: z0 after each exchange, the first of each run
                          (z0 enters) included, so pivots + 1 values for a solve of one run
                          (pivots + paths in general: runs and cleanups; a path that ends
                          with z0 leaving records 0 last), up to trace_capacity */
  int trace_capacity;
  int trace_len;
  int *trace_var;      /* optional, caller's, with trace: [2 trace_capacity], for each value
                          of trace the variable that entered and the one that left at that
                          exchange (w_i = i, z_i = n + i, z0 = 2n) */
} LsimLemkeInfo;

/* Workspace: owns the basis inverse and the scratch vectors; grows on demand, so repeated
 * solves of sizes already seen do not allocate. */
typedef struct LsimLemke LsimLemke;

LsimLemke *lsim_lemke_create(void);
void lsim_lemke_free(LsimLemke *ws);

/* Solves lcp into z [n]. On entry z is the caller's current point (a warm-start guess, or
 * zeros; non-finite and negative entries read as 0): a failed solve never returns
 * anything worse than it (info->rejected).
 * basis_guess [n] or NULL: basis_guess[i] != 0 guesses that z_i is basic (w_i = 0),
 * 0 that w_i is basic (z_i = 0). The guessed complementary basis is factored; if its
 * basic solution is feasible it is returned at once (0 pivots); else Lemke pivots from it
 * with a covering vector that makes it feasible; if that fails, a cold start follows.
 * NULL: cold start with covering vector e = (1, ..., 1).
 * Returns info->status (info may be NULL). On any non-solved status z holds the last
 * basic solution (finite) when its natural residual is below that of the entry point,
 * else the entry point (clamped at 0) with info->rejected = 1. */
int lsim_lemke_solve(LsimLemke *ws, const LsimLcp *lcp, const LsimLemkeOptions *opt,
                     const unsigned char *basis_guess, double *z, LsimLemkeInfo *info);

/* The final complementary basis of the last solve that ended solved: [n], 1 where z_i is
 * basic; NULL before any solved solve. Valid until the next solve. */
const unsigned char *lsim_lemke_basis(const LsimLemke *ws);

#endif
