/* fc_solver.h: frictional contact solvers behind one interface, chosen by name.
 *
 * Exact Coulomb cone:
 *   "nsgs"                ours: block (non-smooth) Gauss-Seidel with the exact solution of
 *                         each contact's local problem (lcp/fc_nsgs.c)
 *   "nsgs_aa"             ours: the same sweeps with Anderson acceleration (depth 5)
 *   "siconos:fc3d_NAME"   Siconos' fc3d solvers (3-D problems), "siconos:fc2d_NAME" its
 *                         fc2d solvers (2-D), see lsim_fc_solver_names() and
 *                         docs/siconos-solvers.md for which work and why others are refused
 * Polyhedral cone: any LCP solver name of lcp/solver.h ("lemke", "pgs", "siconos:lemke",
 *   ...) with ndir > 0: the problem is turned into its Stewart-Trinkle LCP with ndir
 *   directions per contact (lsim_fc_to_lcp), solved, and the reaction r = G x returned.
 *
 * Whatever the solver, the statistics carry the same Coulomb measures (lsim_fc_quality,
 * exact cone) of the returned r, so exact and polyhedral solutions are judged alike.
 * Tolerances: opt.tol is, for the exact-cone solvers, on the relative natural-map residual
 * (ours: relative to ||q||; Siconos' solvers stop on their own figure, relative to
 * max(||q||, ||r||, ||u||), lcp/fc.h); for the polyhedral ones, the LCP solver's own tolerance
 * (lcp/solver.h) on the LCP.
 */
#ifndef LSIM_FC_SOLVER_H
#define LSIM_FC_SOLVER_H

#include <stddef.h>

#include "fc.h"
#include "solver.h"

typedef struct LsimFcSolver LsimFcSolver;

/* A Siconos solver's finite r whose relative natural residual (lsim_fc_quality,
 * ||F(r)|| / ||q||) exceeds LSIM_SICONOS_DIVERGED_RELATIVE (lcp/siconos_adapter.h, the
 * bound and its reasoning shared with the LCP solvers) has diverged: status LSIM_BREAKDOWN,
 * r zeroed, the message giving max |r| and the residual. */

/* What a solve reports. */
typedef struct LsimFcStats {
  int status;              /* LsimStatus */
  int iterations;          /* sweeps, Newton steps or pivots */
  int warm_started;        /* 1 if r passed in was used as the starting point and was not
                              all zero (a cold start) */
  double wall_time;        /* seconds from our problem (LsimFc) to the reaction r, the same
                              span for every solver: setup_time included */
  double setup_time;       /* the part of wall_time spent putting the problem into the
                              solver's own form and its answer back: Siconos' W (sparse-block
                              or dense), FrictionContactProblem and SolverOptions; the
                              polyhedral LCP and r = G x; 0 for nsgs and nsgs_aa, which read
                              ours (each solver's internal preparation, e.g. nsgs' inverted
                              diagonal blocks, is part of its solve) */
  LsimFcQuality quality;   /* the Coulomb measures of the returned r */
  double siconos_error;    /* Siconos' fc3d/fc2d error of r, -1 when not computed */
  double lcp_relative;     /* polyhedral: the LCP's relative residual (lcp.h); else NaN */
} LsimFcStats;

/* Creates the solver name (see above) with options opt (NULL: defaults) and, for LCP
 * solvers, ndir cone directions (0: an exact-cone solver is required). 0, or
 * LSIM_UNAVAILABLE / LSIM_INVALID_INPUT / LSIM_OUT_OF_MEMORY with a message in err. */
int lsim_fc_solver_create(LsimFcSolver **out, const char *name, const LsimSolverOptions *opt,
                          int ndir, char *err, size_t errlen);
void lsim_fc_solver_free(LsimFcSolver *s);

/* Solves p. r [n]: in, the warm start when opt.warm_start; out, the final reaction (always
 * finite: zeroed if a solver left non-finite values, with status LSIM_BREAKDOWN). u [n]
 * receives W r + q. Returns the status (also in stats, which may be NULL). */
int lsim_fc_solver_solve(LsimFcSolver *s, const LsimFc *p, double *r, double *u,
                         LsimFcStats *stats);

/* 1 when name is an exact-cone solver ("nsgs", "siconos:fc3d_*", "siconos:fc2d_*"). */
int lsim_fc_solver_is_exact(const char *name);

/* The message of the last solve (a trapped Siconos error), or "". */
const char *lsim_fc_solver_last_message(const LsimFcSolver *s);

/* NULL-terminated list of the exact-cone names accepted. */
const char *const *lsim_fc_solver_names(void);

/* Our exact-cone solver, for direct use (lcp/fc_nsgs.c): at most max_iter sweeps (0:
 * 10000), stops when the relative natural-map residual is <= tol. Returns the status;
 * *iterations the sweeps done. */
int lsim_fc_nsgs(const LsimFc *p, double tol, int max_iter, int warm, double *r,
                 int *iterations);

/* The same with Anderson acceleration of depth `depth` (0: none; at most
 * LSIM_FC_ANDERSON_MAX) on the sweep's fixed-point map ("nsgs_aa" uses 5). */
#define LSIM_FC_ANDERSON_MAX 10
/* Plain sweeps taken after the mixing stalls (a mixed iterate equal to the point it
 * started from): the history is dropped and rebuilt from these (fc_nsgs.c). */
#define LSIM_FC_PLAIN_RUN 20
int lsim_fc_nsgs_ex(const LsimFc *p, double tol, int max_iter, int warm, int depth, double *r,
                    int *iterations);

/* A damped semismooth Newton method on Alart and Curnier's equations (lcp/fc_newton.c),
 * from r (projected on the cones): at most max_iter steps (0: 100), stops when the
 * relative natural-map residual is <= tol; tangent_weight scales the tangential weight
 * rho_T (1: 1 / W_TT; fc_newton.c); step_cap > 0 bounds a step's length by step_cap
 * (||r|| + ||q|| / max_i W_ii) (0: no bound). Dense: (n^2 + 7 n + 2 nc) doubles. Returns
 * the status; r the last iterate when solved, else the best one seen; *iterations the
 * steps; *relative (may be NULL) that point's relative natural-map residual. */
int lsim_fc_newton(const LsimFc *p, double tol, int max_iter, double tangent_weight,
                   double step_cap, double *r, int *iterations, double *relative);

#endif
