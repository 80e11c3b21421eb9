/* fc.h: the frictional contact problem with Coulomb's exact cone, its files, its measures,
 * and its Stewart-Trinkle LCP with a polyhedral cone.
 *
 * The problem FC(W, q, mu), in the local (dual) form Siconos and FCLIB use: nc contacts in
 * dimension dim (2 or 3), n = dim * nc unknowns; contact i owns entries dim*i .. dim*i +
 * dim - 1 of the reaction r and the relative velocity u, the first normal, the others
 * tangential. Find r with
 *     u = W r + q,   K_i = {r_i : ||r_iT|| <= mu_i r_iN}   (the Coulomb cone),
 *     K_i* (dual cone)  ∋  û_i = u_i + mu_i ||u_iT|| e_N  ⊥  r_i  ∈  K_i
 * (De Saxcé's bipotential form of Coulomb's law: take-off, sticking or sliding with the
 * friction opposite the slip). W is dense, n x n, column-major; a block-sparse index of its
 * nonzero dim x dim blocks is built on reading (lsim_fc_index) for the solvers that use it.
 *
 * Measures (lsim_fc_quality), the same for every solution, exact or polyhedral:
 *   natural map  ||F(r)||_2, F_i(r) = r_i - P_{K_i}(r_i - û_i): the residual Siconos'
 *                fc3d_compute_error / fc2d_compute_error compute; relative: divided by
 *                ||q||_2 (when > DBL_EPSILON), as Siconos did before 4.x. Siconos 4.4's
 *                fc3d_compute_error divides by max(norm given, ||r||, ||u||), which
 *                is never smaller: ours is the stricter figure, equal to Siconos' where
 *                ||q|| is the largest (Capsules, BoxesStack1), 39 times Siconos' on
 *                Confeti-ex13 (||r|| = 387, ||q|| = 9.9);
 *   cone         max_i dist(r_i, K_i): how far the reaction leaves the exact cone (a
 *                polyhedral cone inscribed in K never does; circumscribed ones do);
 *   dual cone    max_i dist(û_i, K_i*): negative normal velocity, or sliding that the
 *                cone should have stopped;
 *   complementarity  max_i |r_i . û_i|.
 *
 * Files: Siconos frictionContact ".dat" (dim, nc, the matrix as in an LCP .dat file, dense
 * or sparse-block, q, mu), read by our positioned reader (lcp/datfile.c), and FCLIB HDF5
 * local problems (/fclib_local/W as a compressed sparse matrix, /fclib_local/vectors/q,
 * /fclib_local/vectors/mu, /fclib_local/spacedim).
 */
#ifndef LSIM_FC_H
#define LSIM_FC_H

#include <stddef.h>

#include "lcp.h"

typedef struct LsimFc {
  int dim;         /* 2 or 3 */
  int nc;          /* contacts */
  int n;           /* dim * nc */
  double *W;       /* [n*n] column-major */
  double *q;       /* [n] */
  double *mu;      /* [nc], >= 0 */
  int storage;     /* as read: 0 dense .dat, 1 sparse-block .dat, 2 FCLIB HDF5 */
  /* Block-sparse rows of W (lsim_fc_index): contact i couples with contacts
     bcol[bptr[i] .. bptr[i+1]-1]; block b is blk[b*dim*dim ..], column-major dim x dim;
     bdiag[i] is the index of the diagonal block. */
  int *bptr, *bcol, *bdiag;
  double *blk;
  int nblocks;
  int cap_rows, cap_blocks; /* allocated entries of bptr / bdiag and of bcol / blk */
} LsimFc;

/* Allocates a zeroed problem of nc contacts in dimension dim (2 or 3). 0 or
 * LSIM_OUT_OF_MEMORY / LSIM_INVALID_INPUT. */
int lsim_fc_init(LsimFc *p, int dim, int nc);
void lsim_fc_free(LsimFc *p);

/* Builds the block-sparse index of W (blocks with a nonzero entry, diagonal blocks always).
 * Called by the readers; call it again after changing W (its arrays are reused: no
 * allocation unless the problem outgrew them). 0 or LSIM_OUT_OF_MEMORY. */
int lsim_fc_index(LsimFc *p);

/* Checks sizes, finiteness and mu >= 0. 0 or LSIM_INVALID_INPUT with a message. */
int lsim_fc_check(const LsimFc *p, char *err, size_t errlen);

/* The kind of a problem file: LSIM_FILE_LCP (a Siconos LCP .dat), LSIM_FILE_FC_DAT,
 * LSIM_FILE_FCLIB, or LSIM_FILE_UNKNOWN; judged from the first bytes (HDF5 signature) and
 * the header of a .dat file (an LCP file starts "n storage n n", a frictional contact file
 * "dim nc storage dim*nc dim*nc"). */
enum { LSIM_FILE_UNKNOWN = 0, LSIM_FILE_LCP = 1, LSIM_FILE_FC_DAT = 2, LSIM_FILE_FCLIB = 3,
       LSIM_FILE_MLCP = 4 /* a Siconos mixed LCP .dat: recognised, not solved */ };
int lsim_problem_file_kind(const char *path);
/* "lcp", "frictional contact (Siconos .dat)", ... */
const char *lsim_problem_file_kind_name(int kind);

/* Reads a frictional contact problem from a Siconos .dat file or an FCLIB HDF5 file
 * (told apart by content). 0, or LSIM_IO_ERROR / LSIM_INVALID_INPUT /
 * LSIM_OUT_OF_MEMORY with "path:line: what" (.dat) or "path: /dataset: what" (HDF5) in
 * err; p is left freed on error. */
int lsim_fc_read(const char *path, LsimFc *p, char *err, size_t errlen);

/* The Coulomb measures of r (see above). u [n], when not NULL, receives W r + q. */
typedef struct LsimFcQuality {
  double natural;          /* ||F(r)||_2 */
  double relative;         /* natural / ||q||_2 (>= Siconos 4.4's fc3d error) */
  double cone;             /* max_i dist(r_i, K_i) */
  double dual_cone;        /* max_i dist(û_i, K_i*) */
  double complementarity;  /* max_i |r_i . û_i| */
  int nsliding;            /* contacts with r on the cone's boundary, r_N > 0, sliding */
} LsimFcQuality;
void lsim_fc_quality(const LsimFc *p, const double *r, double *u, LsimFcQuality *out);

/* Projection of x (dim entries, normal first) onto the cone ||x_T|| <= mu x_N, in place. */
void lsim_fc_project_cone(int dim, double mu, double *x);

/* The Stewart-Trinkle LCP of p with a polyhedral cone of ndir directions per contact (3-D:
 * ndir a multiple of 4, directions at angles 2 pi k / ndir in the tangent plane, an
 * inscribed cone; 2-D: ndir 2, the tangent and its opposite): per contact the variables
 * c_n, beta_1..beta_ndir, lambda (cones[i] describes them, lcp.h), and
 *     0 <= c_n    _|_  u_N >= 0
 *     0 <= beta_k _|_  d_k . u_T + lambda >= 0
 *     0 <= lambda _|_  mu c_n - sum_k beta_k >= 0,   with u = W r + q, r = G x.
 * lcp is initialised here (free with lsim_lcp_free); cones [nc] are allocated here (free
 * them). 0 or LSIM_INVALID_INPUT / LSIM_OUT_OF_MEMORY. */
int lsim_fc_to_lcp(const LsimFc *p, int ndir, LsimLcp *lcp, LsimConeBlock **cones);

/* r = G x: the reaction of an LCP solution x of lsim_fc_to_lcp(p, ndir). */
void lsim_fc_reaction_from_lcp(const LsimFc *p, int ndir, const double *x, double *r);

#endif
