/* solver.h: every LCP solver behind one interface, chosen by name.
 *
 * Names: "lemke" and "pgs" (ours), and "siconos:NAME" for Siconos Numerics solvers
 * (siconos:lemke, siconos:pgs, siconos:enum, siconos:newton_fb, ... see
 * lsim_solver_names()). A solver is a context object: it owns its options, its
 * workspace (grown on demand, so solves of a size already seen do no allocation) and
 * the statistics of the last solve.
 *
 * Every solve reports the same residual (lcp.h), computed from z alone, whatever the
 * solver, plus Siconos' own relative error for reference.
 */
#ifndef LSIM_SOLVER_H
#define LSIM_SOLVER_H

#include "factored.h"
#include "lcp.h"
#include "lemke.h"
#include "newton.h"

typedef struct LsimSolverOptions {
  double tol;        /* acceptance: natural residual <= tol * lsim_lcp_scale(lcp)
                        (iterative solvers stop there; Siconos solvers get it as their tol) */
  int max_iter;      /* sweeps (iterative) or pivots (pivoting); 0 = the solver's default */
  double omega;      /* PGS over-relaxation factor in (0, 2); 1 = Gauss-Seidel */
  int warm_start;    /* 1: z passed to solve is a guess (PGS starts from it, Lemke takes
                        {i : z_i > 0} as its guess of the basis); 0: cold start */
  int threads;       /* PGS sweep team size (pgs.h), 1 .. LSIM_PGS_MAX_THREADS; the other
                        solvers run in the calling thread */
  int islands;       /* 1: "lemke" and "newton" solve a factored problem island by island
                        (islands.h: independent groups of variables, e.g. separate piles),
                        each as a problem of its own (then no dense form of the whole
                        problem is kept: lsim_solver_last_dense gives NULL); 0: whole */
  int fallback;      /* 1: a solve that fails runs the fallback chain (FALLBACK below) on
                        each dense problem (the whole one, or each island) of at most
                        LSIM_FALLBACK_MAX_N variables; 0: the solver's result stands */
  int sparse_limit;  /* newton: when its own phases fail on a problem above its dense
                        limit (500 variables), sparse Lemke (lemke_sparse.c) follows from
                        its best point if n <= sparse_limit; -1: any n; 0 (default): never
                        (newton.h, LsimNewtonOptions.sparse_limit) */
  int cover_previous; /* "lemke_sparse" from a caller's basis guess: 1 covers its path with
                        the solve's point in that basis (d = B x', as
                        lsim_solver_set_cover_previous, which can change it later); 0
                        (default): d = B e */
  int impulse_unit;  /* 1: a problem whose largest impulse diagonal M_ii exceeds 2^10 (light
                        bodies) is solved in a power-of-two impulse unit (solver.c, UNITS;
                        docs/solvers.md, "Units"); what the solve returns stays physical.
                        0 (default): every problem as given, as for an LCP whose units are
                        unknown (a .dat file). The time step turns it on. */
  int block_start;   /* "lemke_sparse" from a caller's basis guess: K rounds of block pivoting
                        repair the guess before Lemke's path (lsim_lemke_sparse_set_block_start,
                        0 .. 1000); 0 (default): none, unless the environment's
                        LSIM_BLOCK_START says otherwise */
  int lu_solve;      /* "lemke_sparse": B_0's factorization and solves, LSIM_LU_* below
                        (lsim_lemke_sparse_set_own_solve / _set_klu / _set_ft); LSIM_LU_DEFAULT (0):
                        the environment's LSIM_LU_SOLVE, else the built-in default */
  int lu_refactor;   /* "lemke_sparse": pivots between refactorizations of B_0, 10 .. 100000
                        (lsim_lemke_sparse_set_refactor); 0: the environment's
                        LSIM_LU_REFACTOR, else 100 */
  int principal;     /* "lemke_sparse" from a caller's basis guess: up to K single principal
                        pivots before Lemke's path (lsim_solver_set_principal, 0 ..
                        LSIM_PRINCIPAL_MAX); 0 (default): none, unless the environment's
                        LSIM_PRINCIPAL says otherwise */
  int precision;     /* "pgs" at a fixed budget (tol 0, max_iter 1 .. 100): the coloured
                        sweep's arithmetic, 1 double, 2 single (other bits than double's,
                        the same on every path; docs/solvers.md "Single precision"); 0
                        (default): the environment's LSIM_PGS_PRECISION, else double */
} LsimSolverOptions;

/* The largest principal pivoting budget LsimSolverOptions.principal, a scene's
 * solver.principal and LSIM_PRINCIPAL take (falling pile_1000 used 20 000). */
#define LSIM_PRINCIPAL_MAX 1000000

/* LsimSolverOptions.lu_solve: the default (environment, else built in), UMFPACK's own
 * solve, our solves with UMFPACK's factors, KLU, our solves with Forrest-Tomlin updates of
 * UMFPACK's factors. lsim_lu_solve_parse reads "umfpack", "own", "klu", "ft" (0, or -1 for
 * another word); lsim_lu_solve_name is the inverse ("default"
 * for LSIM_LU_DEFAULT, "?" out of range). */
enum { LSIM_LU_DEFAULT = 0, LSIM_LU_UMFPACK = 1, LSIM_LU_OWN = 2, LSIM_LU_KLU = 3, LSIM_LU_FT = 4 };
int lsim_lu_solve_parse(const char *word, int *lu);
const char *lsim_lu_solve_name(int lu);

/* The sparse Lemke settings a "lemke_sparse" solver created now with options o takes:
 * o's block_start, lu_solve, lu_refactor where set, else the environment's (LSIM_BLOCK_START,
 * LSIM_LU_SOLVE, LSIM_LU_REFACTOR), else the built-in ones (0, LSIM_LU_UMFPACK, 100);
 * *lu_solve is never LSIM_LU_DEFAULT. What a run records and a resumed run must match.
 * 0, or LSIM_OUT_OF_MEMORY / LSIM_INVALID_INPUT (o out of range). */
int lsim_lemke_sparse_effective(const LsimSolverOptions *o, int *block_start, int *lu_solve,
                                int *lu_refactor);

/* Whether the solver called name runs sparse Lemke (lemke_sparse.c) and so takes its
 * settings: "lemke_sparse" itself; "newton", whose sparse Lemke fallback (and, after a
 * failed dense Lemke, its LU run) reads the environment's LSIM_BLOCK_START, LSIM_LU_SOLVE
 * and LSIM_LU_REFACTOR at create; "lemke", whose LU run after a dense run ends on a ray or
 * a breakdown does the same. Other settings can give other pivots and bits (pile_100,
 * newton with max_iter 2 and sparse_limit -1: /q differs by step 60 between umfpack and
 * own), so a run of these solvers records the settings and a resumed run must match.
 * 1 with the settings in effect in *block_start, *lu_solve, *lu_refactor (for
 * "lemke_sparse" as lsim_lemke_sparse_effective with o; for the others the environment's
 * alone, o's keys not reaching their fallbacks); 0 for another solver (the outputs 0);
 * < 0 as lsim_lemke_sparse_effective. */
int lsim_solver_sparse_settings(const char *name, const LsimSolverOptions *o, int *block_start,
                                int *lu_solve, int *lu_refactor);

/* tol 1e-10, max_iter 0 (default), omega 1, warm_start 0, threads 1, islands 0, fallback 0,
 * sparse_limit 0, cover_previous 0, impulse_unit 0, block_start 0, lu_solve 0, lu_refactor 0
 * (the time step turns islands and fallback on from its settings: LsimSolverSettings.islands,
 * default 1, and on_failure, default fallback; and impulse_unit always). */
LsimSolverOptions lsim_default_solver_options(void);

/* What a solve reports. Filled by lsim_solver_solve; never NaN. */
typedef struct LsimSolveStats {
  int status;              /* LsimStatus of this solve */
  int iterations;          /* sweeps or pivots done (newton: its Newton, pivoting, proximal
                              and interior point steps plus its PGS sweeps; Siconos: its
                              iteration count, siconos:enum the index sets it tried); -1
                              when the solver gives none (siconos:nsgs_sbm, whose count
                              Siconos 4.4 overwrites): not available, never 0 */
  int warm_started;        /* 1 if a non-trivial warm-start guess was used: warm_start on,
                              some z_i > 0 in the guess (or a non-empty basis guess for
                              lemke_sparse), and the solver started from it (Lemke: its
                              warm path ended the solve; Siconos pivoting solvers read no
                              guess); 0 if cold, all-zero guess, or rejected */
  double wall_time;        /* seconds, the solver call alone */
  LsimResidual residual;   /* ours, from z alone */
  double siconos_error;    /* Siconos' lcp_compute_error on z (its relative error) */
  int trace_len;           /* values written to the trace buffer (lsim_solver_set_trace) */
  int rejected;            /* 1: Lemke failed and its result, no better than its start (the
                              warm-start guess, or zeros), was discarded (lemke.h) */
  int first_status;        /* the chosen solver's own status; status differs from it when
                              the fallback chain recovered the solve */
  int source;              /* LsimSolutionSource: what produced the returned z */
  int simd;                /* the PGS coloured sweep's instruction set (LSIM_PGS_SIMD_*,
                              pgs.h) when it ran on the whole problem, else 0 */
  int guard;               /* the energy guard (ENERGY GUARD below): 0 it did not judge
                              (no judge set, or the chain met the tolerance or did not
                              run), 1 it judged and kept the smallest residual, 2 it
                              refused that result for adding energy and took another */
  double refused_energy;   /* J: what the refused results would have added beyond the
                              judge's allowance (summed over islands); 0 when none */
} LsimSolveStats;

/* FALLBACK. With options.fallback, a solve whose status is a numerical failure (not
 * invalid input, out of memory or unavailable; with tol > 0, so a fixed PGS budget is not
 * a failure) tries, on each dense problem of at most LSIM_FALLBACK_MAX_N variables (the
 * whole problem, or each island that misses the tolerance: Lemke's and newton's islands,
 * and for pgs or newton on a larger problem its islands, lcp/islands.h), in order, until
 * one meets the tolerance:
 *   1. "lemke": Lemke warm started from the best point so far (the basis {i : z_i > w_i});
 *      only when the chosen solver is not Lemke;
 *   2. "lemke_scaled": Lemke, cold, on the diagonally rescaled problem D M D y + D q with
 *      D_ii = 1 / sqrt(M_ii) (1 where M_ii <= 0: the cone rows), z = D y: the unit
 *      diagonal evens out the pivot and tie tolerances between rows of N*s and m/s, and
 *      takes another path through the degenerate vertices of contact problems;
 *   3. "pgs": projected Gauss-Seidel on the dense problem from the best point so far, at
 *      most LSIM_FALLBACK_SWEEPS sweeps (it polishes a point near the solution).
 * Every candidate, the chosen solver's result and the starting point (the warm-start guess
 * or zeros) is judged by its natural residual on the original problem; the smallest wins
 * ("start" when none beat the starting point). The status is LSIM_SOLVED when the winner
 * meets the tolerance, or when its natural residual is within the rounding floor of the
 * residual itself, LSIM_FLOOR_K eps max_i (|M| |z| + |q|)_i (quality.h,
 * lsim_lcp_residual_floor: a result as exact as double precision allows, where that floor
 * exceeds tol * max|q|; the final verdict only, the stages stop on the tolerance), else
 * the chosen solver's failure; stats.first_status keeps the
 * chosen solver's status, stats.source names the winner (with islands: the latest stage
 * any island needed, in the order below). Measured on the failed steps of four 10-domino
 * runs (docs/solvers.md, "Failure policy").
 *
 * ENERGY GUARD. When no candidate meets the tolerance and an energy judge is set
 * (lsim_solver_set_energy_judge), the winner must also not add energy: the candidates are
 * taken in order of residual (ties in the order above) and the first whose judged excess
 * is <= 0 wins; when none passes, PGS from zero impulses at most LSIM_FALLBACK_SWEEPS
 * sweeps ("pgs_cold") wins if it passes, else zero impulses ("none"). The status stays the
 * failure; stats.guard and stats.refused_energy say what the guard did. */
typedef enum LsimSolutionSource {
  LSIM_SOURCE_SOLVER = 0,       /* the chosen solver */
  LSIM_SOURCE_LEMKE = 1,        /* fallback 1 */
  LSIM_SOURCE_LEMKE_SCALED = 2, /* fallback 2 */
  LSIM_SOURCE_PGS = 3,          /* fallback 3 */
  LSIM_SOURCE_START = 4,        /* the starting point: nothing beat it, or Lemke rejected its
                                   own result (stats.rejected) and returned it */
  LSIM_SOURCE_PGS_COLD = 5,     /* the energy guard: PGS from zero impulses */
  LSIM_SOURCE_NONE = 6,         /* the energy guard: zero impulses (nothing else passed) */
  LSIM_SOURCE_COUNT = 7
} LsimSolutionSource;

enum { LSIM_FALLBACK_MAX_N = 600, LSIM_FALLBACK_SWEEPS = 1000 };

/* "solver", "lemke", "lemke_scaled", "pgs", "start", "pgs_cold", "none"; "unknown"
 * otherwise. */
const char *lsim_source_name(int source);

typedef struct LsimSolver LsimSolver;

/* Creates the solver called name with options opt (NULL = defaults). Returns 0, or
 * LSIM_UNAVAILABLE (unknown name, or a Siconos solver that is not built here or aborts),
 * LSIM_INVALID_INPUT (bad options), LSIM_OUT_OF_MEMORY; on error writes a one-line message
 * into err[errlen] (if err) and sets *out = NULL. */
int lsim_solver_create(LsimSolver **out, const char *name, const LsimSolverOptions *opt,
                       char *err, size_t errlen);

/* Solves lcp. z [n]: in, the warm-start guess when options.warm_start; out, the solver's
 * final iterate (the solution when status is LSIM_SOLVED). stats may be NULL (output
 * only). Returns the status (also in stats and in
 * lsim_solver_last_stats). Never aborts the process, whatever the solver does. A problem
 * whose largest impulse diagonal M_ii exceeds 2^10 (light bodies) is solved in a
 * power-of-two impulse unit (docs/solvers.md, "Units"); z, the residuals and everything
 * else the caller gets stay in the problem's own units. */
int lsim_solver_solve(LsimSolver *s, const LsimLcp *lcp, double *z, LsimSolveStats *stats);

/* Solves the factored problem f (factored.h, M = J B + C), with the same options,
 * statistics and guarantees as lsim_solver_solve. "pgs" runs the factored PGS
 * (lsim_pgs_solve_factored) and never forms M. Every other solver gets the dense M and q,
 * formed (lsim_factored_to_dense) into a buffer the solver context owns and grows on
 * demand, so repeated solves of sizes already seen do no allocation; the time to form M
 * counts in stats.wall_time, since it is part of what this solve costs. stats.residual is
 * computed from z alone on the factored form (lsim_factored_residual): the same measure as
 * lsim_solver_solve gives on the dense form. stats.siconos_error is Siconos' error on the
 * dense form when one was formed, -1 for "pgs" (no dense form to hand Siconos). Returns
 * LSIM_INVALID_INPUT, without touching z, when f is structurally unsound (bad pointers or
 * indices, non-finite values, bad cones). */
int lsim_solver_solve_factored(LsimSolver *s, const LsimFactoredLcp *f, double *z,
                               LsimSolveStats *stats);

/* The dense problem the last lsim_solver_solve_factored formed (owned by s, valid until the
 * next solve or lsim_solver_free), or NULL when the last solve formed none ("pgs", an
 * input error, or a dense lsim_solver_solve). */
const LsimLcp *lsim_solver_last_dense(const LsimSolver *s);

/* u = B z [f->m] for the z the last lsim_solver_solve_factored returned, when the solver
 * computed it from that z anyway (the factored PGS fast path, with its final residual);
 * owned by s, valid until the next solve. NULL otherwise: then form it from f. */
const double *lsim_solver_last_bz(const LsimSolver *s);

/* What the last solve had to say beyond its status, or "": for Siconos solvers the
 * message of a trapped fatal error and, after "printed: ", whatever Siconos printed (it is
 * captured, never reaching stdout; the capture's time is not in stats.wall_time). Owned
 * by s, valid until the next solve. */
const char *lsim_solver_last_message(LsimSolver *s);

/* What Siconos printed (stdout and stderr, captured) during the last solve, islands
 * joined; lines joined by " | ", at most 1023 bytes; "" for our own solvers or when it
 * printed nothing. Owned by s, valid until the next solve. */
const char *lsim_solver_last_output(const LsimSolver *s);

/* The thread team of a "pgs" solver with threads > 1, once a solve has made it (pgs.h,
 * lsim_pgs_team); NULL otherwise. For work between solves. */
struct LsimTeam *lsim_solver_team(LsimSolver *s);

/* Per-iteration statistics, returned rather than printed: from now on each solve writes
 * the natural residual after each sweep (PGS) or z0 after each exchange (Lemke) into
 * trace[0 .. capacity - 1], and reports the count in stats.trace_len. The buffer stays the
 * caller's; NULL / 0 turns tracing off. Siconos solvers write none. */
void lsim_solver_set_trace(LsimSolver *s, double *trace, int capacity);

/* The number of islands the last factored solve was split into (1: solved whole). With
 * islands, stats.iterations is the sum over the islands, stats.trace_len is 0 and
 * stats.siconos_error -1 (no dense form of the whole problem was made). */
int lsim_solver_last_islands(const LsimSolver *s);

/* A Lemke basis guess for the next lsim_solver_solve_factored only: basis [f->n],
 * basis[i] != 0 guesses z_i basic (w_i = 0), else w_i basic. Used, instead of the guess
 * z_i > 0, by "lemke_sparse" with warm_start (split by island when options.islands);
 * ignored otherwise. Not copied: it must stay valid until that solve returns. NULL clears it. */
void lsim_solver_set_basis_guess(LsimSolver *s, const unsigned char *basis);

/* on != 0: a "lemke_sparse" solve from the caller's basis guess (above) runs its path, and
 * its retry from z > 0, with the covering vector weighted by the solve's point z in that
 * basis (d = B x', lsim_lemke_sparse_set_cover_previous) instead of B e; kept until
 * changed. 0 (default): B e. Changes the paths (on settled pile_100, fewer pivots in all:
 * docs/solvers.md). */
void lsim_solver_set_cover_previous(LsimSolver *s, int on);

/* budget > 0: a "lemke_sparse" solve from a basis guess first takes up to budget principal
 * pivots from it (lsim_lemke_sparse_set_principal: when they do not end at a solution, the
 * solve goes on exactly as with 0); kept until changed. 0 (default): off. Other bits where
 * the phase solves (docs/solvers.md, "Settled pile_100, steps 101-119"). */
void lsim_solver_set_principal(LsimSolver *s, int budget);

/* The principal pivoting budget a solver made by lsim_solver_create(name, o) runs with:
 * for "lemke_sparse" o->principal when > 0, else the environment's LSIM_PRINCIPAL (an
 * integer 0 .. LSIM_PRINCIPAL_MAX; another value counts as unset), else 0; -1 for any
 * other solver (it has no such setting: newton's and lemke's sparse Lemke runs take none).
 * What a run file and a comparison record (/parameters/solver_principal, /series/principal). */
int lsim_solver_principal_setting(const char *name, const LsimSolverOptions *o);

/* The sweep arithmetic a solver made by lsim_solver_create(name, o) runs with: for "pgs"
 * 1 (single) or 0 (double), from o->precision when > 0 (1 double, 2 single), else the
 * environment's LSIM_PGS_PRECISION ("float": 1; anything else: 0), single only where it
 * acts (lsim_solver_precision_acts(o->tol, o->max_iter); o NULL: as asked); -1 for other
 * solvers. What a run file and a comparison record (/parameters/solver_precision,
 * /series/precision). */
int lsim_solver_precision_setting(const char *name, const LsimSolverOptions *o);

/* 1 when pgs's single precision acts with these options: a fixed budget (tol 0) of 1 to
 * LSIM_PGS_FLOAT_MAX_SWEEPS (100) sweeps, where the sweep's values are floats; else the
 * sweep is double whatever is asked. */
int lsim_solver_precision_acts(double tol, int max_iter);

/* The final complementary basis of the last lsim_solver_solve_factored ([*n], 1 where z_i
 * is basic, degenerate z_i = 0 included) when it was a "lemke_sparse" run (whole, or every
 * island) that solved by itself (no fallback); NULL (and *n = 0) otherwise. Owned by s, valid until the next
 * solve. n may be NULL. */
const unsigned char *lsim_solver_last_basis(const LsimSolver *s, int *n);

/* The energy judge of a failed chain (ENERGY GUARD above): excess(ctx, z, vars, n) is the
 * energy (J) the impulses z [n] add beyond what the caller allows, > 0 refusing them; z
 * holds the problem's variables vars[0 .. n-1] (an island), or all of them in order when
 * vars is NULL; the other variables' impulses are zero. lcp/ knows nothing of bodies: the
 * caller (the time step) measures. Kept until changed; excess NULL turns the guard off. */
typedef double (*LsimEnergyExcess)(void *ctx, const double *z, const int *vars, int n);
void lsim_solver_set_energy_judge(LsimSolver *s, LsimEnergyExcess excess, void *ctx);

/* Statistics of the last solve. */
const LsimSolveStats *lsim_solver_last_stats(const LsimSolver *s);

/* The statistics of the last newton run in the last solve (newton.h: where it ended,
 * LsimNewtonInfo.stage_residual, stalls, singular; its trace NULL) when the solver is
 * "newton" (the last island's when it solved island by island); NULL otherwise. Owned by
 * s, valid until the next solve. */
const LsimNewtonInfo *lsim_solver_newton_info(const LsimSolver *s);

/* The statistics of the last sparse Lemke run in the last solve (lemke.h: status, pivots,
 * LsimLemkeInfo.stage_pivots and stage_status of each run: the guessed basis, the retry, the
 * cold runs; trace NULL) when the solver is "lemke_sparse" (the last island's when it
 * solved island by island); NULL otherwise. Owned by s, valid until the next solve. */
const LsimLemkeInfo *lsim_solver_lemke_info(const LsimSolver *s);

/* Sparse Lemke's solve counts in the last solve (lemke_sparse.h, lsim_lemke_sparse_counts):
 * sparse LU factorizations, transposed solves (rows of B^{-1}) and solves for columns of
 * B^{-1} (the lexicographic rule's), summed over islands; for "lemke_sparse", and for
 * "lemke" when its LU run followed its cold runs; 0 otherwise. Deterministic, unlike times:
 * the evidence of a change of path or of tie work. Each pointer may be NULL. */
void lsim_solver_lemke_sparse_counts(const LsimSolver *s, int *factorizations, int *row_solves,
                                     int *column_solves);

/* The name the solver was created with, and its options. */
const char *lsim_solver_name(const LsimSolver *s);
const LsimSolverOptions *lsim_solver_options(const LsimSolver *s);

void lsim_solver_free(LsimSolver *s);

/* 1 when the solver called name needs the dense M on factored problems (every solver but
 * "pgs", "newton" and "lemke_sparse", which work on M = J B + C), else 0. */
int lsim_solver_needs_dense(const char *name);

/* NULL-terminated list of the solver names lsim_solver_create accepts. */
const char *const *lsim_solver_names(void);

/* 1 when name is a frictional contact solver of lsim_fc_solver_names() (nsgs,
 * siconos:fc3d_..., ...): not an LCP solver, so lsim_solver_create refuses it saying so. */
int lsim_solver_is_fc_name(const char *name);

#endif
