/* exact_cone.h: the time step's contact problem solved with Coulomb's exact cone.
 *
 * With "friction": {"cone": "exact"} (docs/scene-format.md) the step still assembles its
 * Stewart-Trinkle LCP (polyhedral cone of d directions, contact/step.h), but solves the
 * frictional contact problem the LCP's rows describe, with the exact cone: per contact the
 * normal variable c_n and the two directions at 0 and 90 degrees (d_0 = t1, d_{d/4} = t2;
 * 2-D: d_0 = t) span the contact's reaction r = (c_n, r_t1, r_t2), and the LCP matrix
 * restricted to those variables is W = J M^-1 J' in the contact frame (J = [N; T1; T2]),
 * its q the free velocity in that frame (phi/h and restitution included). The solution r of
 * FC(W, q, mu) (lcp/fc_nsgs.c, Anderson-accelerated NSGS) is written back as LCP variables
 * with the same J' z: c_n = r_N, beta_0 = max(r_t1, 0), beta_{d/2} = max(-r_t1, 0),
 * beta_{d/4} = max(r_t2, 0), beta_{3d/4} = max(-r_t2, 0), others 0, and lambda the slip
 * speed ||u_T||. The friction then opposes the slip exactly, in every direction: a box
 * sliding at 45 degrees to x stops after v0^2 / (2 mu g), as one sliding along x does.
 *
 * Needs every LCP variable to belong to a cone with a normal variable and uniform
 * directions (d = 2 in 2-D, a multiple of 4 in 3-D): contacts only; tethers, unilateral
 * rows and fixed normals (1-D ground friction) are refused with LSIM_INVALID_INPUT.
 */
#ifndef LSIM_EXACT_CONE_H
#define LSIM_EXACT_CONE_H

#include <stddef.h>

#include "lcp/fc.h"
#include "lcp/lcp.h"
#include "lcp/solver.h"

/* The largest problem (dim * contacts) the Newton fallback takes: its dense Jacobian is
 * n^2 doubles (600: 2.9 MB). */
#define LSIM_FC_NEWTON_MAX_N 600

/* Workspace, kept by the stepper between steps (grown on demand). */
typedef struct LsimExactCone {
  LsimFc fc;       /* the contact problem of the last step */
  int cap_nc;      /* contacts allocated */
  double *r;       /* [3 * cap_nc] reactions, [3 * cap_nc] velocities, 2 x [3 * cap_nc] Newton's */
} LsimExactCone;

void lsim_exact_cone_free(LsimExactCone *x);

/* Solves the step's LCP lcp (dense, with its cones) with the exact cone: z [n] in, the
 * warm start (read when warm); out, the LCP variables of the exact-cone solution. tol on
 * the relative natural-map residual (lcp/fc.h), max_iter sweeps (0: 10000). Fills st
 * (residual: the natural-map residual, relative: Siconos' fc3d error). Returns the status
 * (LSIM_INVALID_INPUT with a message in err when the LCP is not all cones). */
int lsim_exact_cone_solve(LsimExactCone *x, const LsimLcp *lcp, double tol, int max_iter,
                          int warm, double *z, LsimSolveStats *st, char *err, size_t errlen);

#endif
