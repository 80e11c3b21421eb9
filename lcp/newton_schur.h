/* newton_schur.h (private to newton.c): newton's linear systems (active set and interior
 * point) of the factored LCP M = J B + C reduced to the m generalized velocities.
 *
 * The system over (u, z) with row scalings a and diagonal d,
 *     u - B z = 0,    a_i (J_i u + C_i z) + d_i z_i = r_i   (i = 1 .. n),
 * is solved through K = diag(d) + diag(a) C, block diagonal over the groups of rows that
 * C couples (a friction cone's normal, directions and lambda: 6 rows for d = 4), as
 *     S u = B K^-1 r,   S = I + B K^-1 diag(a) J   (m x m, sparse LU by UMFPACK),
 *     z = K^-1 (r - diag(a) J u).
 * S couples the velocities of bodies that share a contact, so for a pile it is much
 * smaller than the augmented matrix of order m + n. Math and measurements in newton.c. */
#ifndef LSIM_NEWTON_SCHUR_H
#define LSIM_NEWTON_SCHUR_H

#include "factored.h"

typedef struct LsimSchur LsimSchur;

LsimSchur *lsim_schur_create(void);
void lsim_schur_free(LsimSchur *s);

/* Analyses f: the blocks of K, the pattern of S and its symbolic LU. Needs f checked
 * (lsim_factored_check). Returns 0; LSIM_OUT_OF_MEMORY; or LSIM_BREAKDOWN when a block is
 * larger than 16 rows or UMFPACK refuses the pattern (the caller keeps another method). */
int lsim_schur_analyse(LsimSchur *s, const LsimFactoredLcp *f);

/* The numeric LU of S for a [n], d [n] (f as analysed), on a pattern of the blocks that a
 * couples to the velocities (made again, with its symbolic LU, when that set changes).
 * Returns 0, LSIM_OUT_OF_MEMORY, or LSIM_BREAKDOWN when a block of K or S is singular or
 * non-finite or UMFPACK refuses the pattern. */
int lsim_schur_factor(LsimSchur *s, const LsimFactoredLcp *f, const double *a, const double *d);

/* S's pattern narrows to the blocks that a couples to the velocities from m_min
 * velocities on (default 2000, newton_schur.c's NARROW_MIN_M; 0: always), for tests. */
void lsim_schur_narrow_from(LsimSchur *s, int m_min);

/* 1 when S's pattern narrows for this problem (m at least the bound above), else 0. */
int lsim_schur_narrows(const LsimSchur *s);

/* The blocks of K in S's current pattern (*total: all blocks), for tests. */
int lsim_schur_blocks_kept(const LsimSchur *s, int *total);

/* z [n] of the system for r [n], with the last factors (the same a and d), and one step
 * of refinement on the full rows. Returns 0 or LSIM_BREAKDOWN. */
int lsim_schur_solve(LsimSchur *s, const LsimFactoredLcp *f, const double *a, const double *d,
                     const double *r, double *z);

#endif
