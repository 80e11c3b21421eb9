/* lemke_driver.h (private to lcp/): the complementary pivoting driver shared by lemke.c
 * (dense explicit B^{-1}) and lemke_sparse.c (sparse LU of B_0 plus an eta file): Lemke's
 * path with the ratio test, lexicographic and near ties, the terminal test, cycle detection,
 * the warm and cold runs, acceptance and verification. The method, its tolerances and its
 * failure modes are described at the top of lemke.c; this header says what the driver needs
 * of a basis representation (LsimLemkeBasisOps) and what it keeps itself (LsimLemkeDriver).
 *
 * Variables: w_i = i, z_i = n + i, z0 = 2n; their columns in [I | -M | -d]. The driver owns
 * the maps between variables and basis positions (bvar, vpos), the basic values x_B, the
 * entering column c, the covering vector d and the Zobrist hash of the basis; a basis
 * representation owns B^{-1} in whatever form and keeps it consistent with bvar. */
#ifndef LSIM_LEMKE_DRIVER_H
#define LSIM_LEMKE_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#include "lcp.h"
#include "lemke.h"

#define LSIM_LEMKE_RING 64 /* recent bases remembered to detect a cycle */

/* What the driver asks of a basis representation; ctx is LsimLemkeDriver.ctx. Called at
 * most a few times per pivot (never per entry), so function pointers cost nothing. */
typedef struct LsimLemkeBasisOps {
  /* c = B^{-1} a into drv->col for the entering variable v, a its column (e_v for a
   * nonbasic w_v, -M_{:,v-n} for z_{v-n}, -d for z0). 0, or nonzero when a solve failed. */
  int (*column)(void *ctx, int v);
  /* Row i of B^{-1}: entries row[k * *stride], k < n; with rmax != NULL also
   * *rmax = max_k |row_k|. NULL when a solve failed. The two rows of the last two calls
   * stay valid until the next update or refactor. */
  const double *(*row)(void *ctx, int i, int *stride, double *rmax);
  /* The exchange: the column c = drv->col enters at position r at the level theta. Updates
   * B^{-1} and x_B (x_B -= theta c, x_B[r] = theta) and leaves c as it came; the driver
   * then updates the maps. 0 or LSIM_OUT_OF_MEMORY (a representation that may refactor
   * here: LSIM_BREAKDOWN when the new basis is singular). */
  int (*update)(void *ctx, int r, double theta);
  /* B^{-1} afresh from the basis in bvar (and d), then x_B = B^{-1} q.
   * 0, LSIM_BREAKDOWN (singular, non-finite x_B) or LSIM_OUT_OF_MEMORY. */
  int (*refactor)(void *ctx);
  /* The all-w basis, its maps and d = e already set by the driver: B^{-1} = I, x_B = q.
   * 0 or a status as refactor's. */
  int (*cold)(void *ctx);
  /* The guessed basis of drv->guess: maps and d = B e (lsim_lemke_driver_guess_maps sets
   * them but for the -M columns of d), then factored. May drop guessed z_j (drv->guess)
   * whose columns make the basis singular. 0 or a status as refactor's. */
  int (*warm)(void *ctx);
  /* Grows the representation's own buffers to the problem of size n. 0 or
   * LSIM_OUT_OF_MEMORY. */
  int (*reserve)(void *ctx, int n);
  /* The residual (lcp.h) of z; w [n] is scratch. */
  void (*residual)(void *ctx, const double *z, double *w, LsimResidual *res);
  /* Column k of B^{-1} for a nonbasic w_k (B^{-1} e_k), n contiguous values valid until the
   * next call, update or refactor; *cmax = max_i |B^{-1}_ik|. NULL when a solve failed.
   * Optional: with it the lexicographic rule scans the columns of B^{-1} once for all the
   * tied rows (lex_min in lemke_driver.c), without it (NULL) it compares rows pairwise. */
  const double *(*inv_column)(void *ctx, int k, double *cmax);
  /* 1 when row i of B^{-1} is at hand (row costs nothing), else 0. Optional (NULL: never),
   * with inv_column: the scan stops where the rows it would still have to solve are fewer
   * than its solves so far. */
  int (*has_row)(void *ctx, int i);
  /* *sum = |B^{-1}_i| |q| (row_err's sum; drv->q) for row i without keeping the row (a
   * cheaper solve than row's, its own rounding). 0, or nonzero when it was not made (the
   * driver then calls row). Optional (NULL: row); used for the ratio test's bounds of rows
   * not at hand when drv->bound_sums is set. */
  int (*row_sum)(void *ctx, int i, double *sum);
  /* 1 when every row of z's natural residual is within ftol or its own rounding floor
   * (quality.h, lsim_lcp_rows_within_floor), w = M z + q [n] given. With
   * LsimLemkeOptions.floor the acceptance test passes such a point. */
  int (*within_floor)(void *ctx, const double *z, const double *w, double ftol);
} LsimLemkeBasisOps;

typedef struct LsimLemkeDriver {
  const LsimLemkeBasisOps *ops;
  void *ctx;
  int n;                  /* the problem of the current solve: size and q */
  const double *q;
  int cap, basis_cap;     /* largest n the vectors / basis hold */
  double *xb;             /* [cap] basic values, by position */
  double *col;            /* [cap] entering column c = B^{-1} a */
  double *d;              /* [cap] covering vector (the z0 column is -d) */
  double *work, *work2;   /* [cap] scratch (also lent to the basis representation) */
  double *start;          /* [cap] the caller's z on entry (non-finite and negative entries
                             set to 0): what a failed solve falls back on */
  double *best;           /* [cap] a run's best failed point while its cleanups run */
  double *run_best;       /* [cap] the best point of the solve's failed runs (the smallest
                             natural residual): what a failed solve returns */
  double run_best_res;    /* its natural residual, INFINITY before a run failed */
  int accept_floor;       /* LsimLemkeOptions.floor of the current solve */
  double *cover;          /* [cap] weights x' > 0 of the covering vector d = B x' of a path
                             from the guessed basis with cover_previous (by position) */
  double *rbound;         /* [cap] upper bounds on |B^{-1}_i| |q| by position (row_err's
                             sum), INFINITY where unknown: exact where row_err computed
                             the row, carried through each exchange (only on the rows
                             in known: every other bound is non-finite, i.e. unknown) */
  int *known;             /* [cap] the positions whose rbound the exchanges update, nknown
                             of them: every finite bound is among them (see pivot) */
  unsigned char *is_known; /* [cap] 1 at the positions in known */
  int nknown;
  int *bvar;              /* [cap] variable at each position */
  int entering;           /* the variable entering at the exchange under way (ops->update) */
  int *vpos;              /* [2cap+1] position of each variable, -1 when nonbasic */
  unsigned char *guess;   /* [cap] private copy of the caller's basis guess */
  int *tied;              /* [cap] rows of a tie (lex_min) */
  unsigned char *in_tie;  /* [cap] 1 at the rows of a tie still in the running, else 0 */
  unsigned char *guess_kept; /* [cap] guess kept while a run's cleanups use guess */
  unsigned char *basis;   /* [basis_cap] final complementary basis of the last solved solve */
  int basis_valid;
  /* Settings of the basis representation, read by lsim_lemke_driver_solve. */
  int refactor_first;     /* pivots between refactorizations at the start of a solve */
  int refactor_floor;     /* x_B drift halves the interval only while it is above this */
  int refactor_reset;     /* 1: every cold run starts again from refactor_first */
  int lazy_first_tie;     /* see lsim_lemke_driver_solve */
  int refactor_close;     /* 1: a ratio-test tie that the lexicographic rule decides on rows
                             of an updated B^{-1} within LSIM_LEMKE_LEXCLOSE of the rows (an
                             exact tie's rounding) refactors and decides again */
  int retry_positive;     /* lsim_lemke_sparse_set_retry_positive */
  int warm_only;          /* lsim_lemke_sparse_set_warm_only */
  int cover_previous;     /* lsim_lemke_sparse_set_cover_previous */
  int cover_weighted;     /* 1: the current path's d is B cover (its first pivot by ratio) */
  int carry_bounds;       /* 1: the ratio test's tie bounds (row_err) try rbound, carried
                             through the exchanges, before solving for the row
                             (lsim_lemke_sparse_set_carry_bounds); 2: each exchange
                             updates every row's bound, not the known rows' alone */
  int shortcut_ties;      /* 1 (the default): a ratio test skips the other rows' ties where
                             z0's tie or the terminal test decides the pivot alone
                             (lemke_path; lsim_lemke_sparse_set_shortcut_ties); 0: every
                             row examined (the reference: the same decisions) */
  int bound_sums;         /* 1: the ratio test's row bounds take ops->row_sum where the row
                             is not at hand (lsim_lemke_sparse_set_bound_sums) */
  int block_rounds;       /* > 0: a caller's basis guess is first repaired by up to this
                             many rounds of block principal pivoting (block_start in
                             lemke_driver.c) and the path runs from the repaired basis; when
                             that path fails, from the guess as given. 0: off (the default;
                             lsim_lemke_sparse_set_block_start) */
  unsigned char *block_first; /* [cap] the caller's guess as given, while the repaired
                             basis's path runs */
  unsigned char *block_best;  /* [cap] the best basis of the rounds so far */
  int principal_budget;   /* > 0: a caller's basis guess is first pivoted by up to this many
                             single principal pivots (principal_phase in lemke_driver.c);
                             when they do not end at an accepted solution, the solve goes on
                             from the guess as given, as with 0 (the default;
                             lsim_lemke_sparse_set_principal) */
  unsigned char *principal_first; /* [cap] the caller's guess as given, during the phase */
  /* State of the current run. */
  int refactor_every;     /* pivots between refactorizations */
  int tie_by_pivot;       /* second cold run: non-degenerate ties go to the largest pivot */
  int sound;              /* 1: rows with sound pivots block first (not in the third run) */
  uint64_t hash;          /* Zobrist hash of the set of basic variables */
  uint64_t ring[LSIM_LEMKE_RING]; /* hashes of the last bases of this run */
  int ring_len, ring_pos;
} LsimLemkeDriver;

/* realloc that keeps *p on failure; sizes are at least 1 element. 0 or LSIM_OUT_OF_MEMORY. */
int lsim_lemke_grow(void **p, size_t count, size_t size);

/* Frees the driver's vectors (not the struct, which the solver's workspace embeds). */
void lsim_lemke_driver_free(LsimLemkeDriver *drv);

/* The options of a solve (lsim_default_lemke_options() for NULL); clears info (may be
 * NULL): status LSIM_INVALID_INPUT and every count 0 until lsim_lemke_driver_end. */
LsimLemkeOptions lsim_lemke_driver_options(const LsimLemkeOptions *opt, LsimLemkeInfo *info);

/* The start of a solve of size n > 0 with the vector q, after the caller's input checks:
 * grows the driver's vectors and the representation's (ops->reserve), keeps the caller's
 * point z [n] in start (clamped at 0, non-finite read as 0) and sets *have_start, sets
 * z = 0, copies basis_guess (may be NULL) into guess, then grows basis (after the copy:
 * the caller's guess may be drv->basis itself). 0 or LSIM_OUT_OF_MEMORY (z = 0; start is
 * kept when *have_start). */
int lsim_lemke_driver_begin(LsimLemkeDriver *drv, int n, const double *q, double *z,
                            const unsigned char *basis_guess, int *have_start);

/* Sets the maps of the guessed basis (z_i at position i where guess[i], w_i elsewhere) and
 * d_i = 0 where z_i is guessed basic, 1 elsewhere (the basic w's share of d = B e). */
void lsim_lemke_driver_guess_maps(LsimLemkeDriver *drv);

/* The solve after begin (ops, ctx and the settings are the caller's). q >= 0: z = 0.
 * With have_guess, the guessed basis (returned if its basic solution passes the acceptance
 * test, else Lemke's path from it, its covering vector d = B e, or with cover_previous
 * d = B x', x' the caller's point in that basis shifted by its largest entry; with retry_positive
 * (and cover_previous: covered, then again with B e) the basis {i : start_i > 0} next
 * when it differs), then up to three cold runs (lemke.c's ROBUSTNESS), none with
 * warm_only (the warm paths' status is returned, z the caller's point). Adds pivots to *pivots; sets info->warm_started, restarts and the trace.
 * lazy_first_tie 1: the ties of the first ratio test (z0 entering) compare the gap
 * x_i - x_min with the tie bound and compute the rounding bounds (a row of B^{-1} each)
 * only when the cheaper terms do not decide; 0: x_i with x_min + bound, every bound
 * computed. The two differ only where the rounding of that sum or difference decides
 * (the later ratio tests are evaluated lazily for both: there the forms agree exactly).
 * Returns the status; z holds the solution, or the last basic solution of a failed run. */
int lsim_lemke_driver_solve(LsimLemkeDriver *drv, int have_guess, int max_pivots, double tol,
                            double *z, int *pivots, LsimLemkeInfo *info);

/* The end of a solve: with verify and a failed status, the result no better than the
 * caller's point is rejected (z = start, info->rejected = 1: lemke.c's VERIFICATION);
 * info (may be NULL) gets the status and the pivots; drv may be NULL when verify is 0.
 * Returns status. */
int lsim_lemke_driver_end(LsimLemkeDriver *drv, int status, int verify, int pivots, double *z,
                          LsimLemkeInfo *info);

#endif
