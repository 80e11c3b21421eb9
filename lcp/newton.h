/* newton.h: an exact active-set solver for the factored LCP M = J B + C (factored.h): the
 * proximal point method with block principal pivoting (semismooth Newton) subproblems,
 * sparse LU (UMFPACK) of the active rows, never forming M. Math, references and failure
 * modes are at the top of newton.c. */
#ifndef LSIM_NEWTON_H
#define LSIM_NEWTON_H

#include "factored.h"

typedef struct LsimNewtonOptions {
  double tol;        /* stop when the natural residual <= tol * scale (max|q|, or 1) */
  int max_iter;      /* Newton, pivoting and proximal steps (phase 1 at most half);
                        0 = default 100 */
  int pgs_sweeps;    /* PGS sweeps before the first step and at each phase-1 restart;
                        0 = none, -1 = default 20 */
  double reg;        /* first proximal eps, relative to max_i |M_ii|; 0 = default 1e-3
                        (made smaller, down to 1e-12, when the proximal steps stall) */
  int dense_limit;   /* when the Newton steps fail, Lemke (lemke.c) on the dense M, warm
                        started from the best iterate's active set, if n <= dense_limit;
                        0 = default 500, -1 = never */
  int ipm_iter;      /* when phase 1 fails and the dense Lemke fallback does not apply
                        (n above dense_limit): at most this many interior point steps,
                        then phase 1 again from their crossover guess, then phase 2
                        (newton.c); 0 = default 60, -1 = none */
  int velocity_form; /* 0 (default): above dense_limit (where the interior point runs),
                        every linear system reduced to the m velocities where C is made of
                        blocks of at most 16 rows (cones; newton_schur.h), else and on a
                        singular reduced system the augmented form; -1: always the
                        augmented form (for comparison) */
  int sparse_limit;  /* above dense_limit: sparse Lemke (lemke_sparse.c) on the factored
                        problem, never forming M, from the same active set, if
                        n <= sparse_limit; 0 = never (the default), -1 = any n */
} LsimNewtonOptions;

/* tol 1e-10, max_iter 0, pgs_sweeps -1, reg 0, dense_limit 0, ipm_iter 0, velocity_form 0,
 * sparse_limit 0 (the defaults). */
LsimNewtonOptions lsim_default_newton_options(void);

typedef struct LsimNewtonInfo {
  int status;          /* LSIM_SOLVED, LSIM_MAX_ITERATIONS, LSIM_BREAKDOWN,
                          LSIM_INVALID_INPUT, LSIM_OUT_OF_MEMORY */
  int iterations;      /* phase-1 Newton steps, phase-2 pivoting and proximal steps */
  int factorizations;  /* sparse LUs (a Newton step whose active set did not change reuses
                          the last one) */
  int sweeps;          /* PGS sweeps done (the start, phase 1's restarts) */
  int single_pivots;   /* single (Murty) exchanges of the block pivoting */
  int restarts;        /* eps reductions (continuation) after stalled proximal steps */
  int refinements;     /* solves with the factors (back substitutions) */
  int ipm_iterations;  /* interior point steps (0 when phase 1 solved the problem) */
  int lemke_pivots;    /* pivots of the Lemke fallback (0 when it did not run) */
  int fallback;        /* 1 when the Lemke fallback ran, 2 when the sparse one did, 3 when
                          the dense one ended on a ray or a breakdown and its LU run
                          (sparse Lemke on f, the same guess) followed, 4 when both failed
                          and sparse Lemke from the caller's guess {z_i > 0} followed */
  double residual;     /* natural residual of the returned z, w recomputed from z */
  /* Where a failure arose (docs/solvers.md, "Why the settled steps fail"): */
  double stage_residual[4]; /* the best natural residual so far (over every stage) after
                               each stage that ran, NAN for one that did not: [0] the
                               start (guess, PGS), [1] phase 1, [2] the interior point's
                               crossover and phase 1 after it, [3] phase 2 (before any
                               Lemke fallback) */
  int stalls;          /* phase-1 steps whose line search accepted no step (a PGS restart
                          followed) */
  int singular;        /* factorizations found singular (the velocity form's S, then the
                          augmented matrix tried instead; or the augmented one) */
  double *trace;       /* optional, caller's: natural residual after each phase-1 Newton
                          step and each proximal step */
  int trace_capacity;
  int trace_len;
} LsimNewtonInfo;

typedef struct LsimNewton LsimNewton;

LsimNewton *lsim_newton_create(void);
void lsim_newton_free(LsimNewton *ws);

/* Solves f into z [n], starting from z if warm (negative or non-finite entries set to 0),
 * else from 0. The workspace grows on demand. Returns info->status (info may be NULL);
 * z is always finite. */
int lsim_newton_solve_factored(LsimNewton *ws, const LsimFactoredLcp *f,
                               const LsimNewtonOptions *opt, int warm, double *z,
                               LsimNewtonInfo *info);

#endif
