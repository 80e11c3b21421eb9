/* factored.h: an LCP whose matrix is given in factored sparse form,
 *
 *     M = J B + C,
 *
 * J (n x m, CSR rows), B (m x n, CSC columns) and C (n x n, CSR, may be empty). In contact
 * dynamics J is the constraint Jacobian over the m generalized velocities, B = Minv J^T
 * (Minv the inverse mass matrix) and C holds the friction-cone couplings (E, -E', mu), so
 * M is the Delassus matrix of the Stewart-Trinkle LCP without ever being formed. lcp/
 * knows nothing of bodies: these are just sparse matrices.
 *
 * Row i of w = M z + q is then w_i = J_i . u + (C z)_i + q_i with u = B z (length m), so a
 * solver that maintains u does one sparse row and one sparse column per variable update:
 * a PGS sweep costs O(nnz(J) + nnz(B) + nnz(C)).
 */
#ifndef LSIM_FACTORED_H
#define LSIM_FACTORED_H

#include "lcp.h"
#include "pgs.h"

typedef struct LsimFactoredLcp {
  int n;                 /* variables */
  int m;                 /* inner dimension (generalized velocities) */
  const int *J_ptr;      /* [n + 1] CSR row pointers of J */
  const int *J_idx;      /* [nnz] column indices (0 .. m-1) */
  const double *J_val;   /* [nnz] */
  const int *B_ptr;      /* [n + 1] CSC column pointers of B */
  const int *B_idx;      /* [nnz] row indices (0 .. m-1) */
  const double *B_val;
  const int *C_ptr;      /* [n + 1] CSR row pointers of C, or NULL when C = 0 */
  const int *C_idx;
  const double *C_val;
  const double *q;       /* [n] */
  int ncones;            /* friction cone structure, as in LsimLcp */
  const LsimConeBlock *cones;
  /* The producer's block promise, 0 for none (then a solver checks whatever it reads).
     W = 1, 3 or 6 promises: B shares J's arrays (B_ptr == J_ptr, B_idx == J_idx); every
     cone's normal and direction rows have the same columns, 0, W or 2 W of them, in blocks
     of W consecutive columns each starting at a multiple of W below m; a lambda row has no
     entries in J and B; in C a direction row is the single entry +1 at its lambda, a
     normal row is empty, and a lambda row holds finite entries at variables below n. The
     PGS fast path then takes each cone's blocks from its first direction's row without
     checking the rest (the same table entries, so the same iterates, as without the
     promise). lsim_step_assemble makes it; lsim_factored_blocks_hold tests it. */
  int block_width;
  /* The producer's bound of the diagonal, 0 for none: when > 0, every |M_ii| as
     lsim_factored_diagonal computes it is at most diag_bound, and diag_bound is what
     lsim_factored_check_bound would give for a sound f (lsim_factored_diag_bound of the
     same maxima). The solver front takes it instead of the check where it rules the
     impulse unit out (lcp/solver.c, UNITS); lsim_step_assemble makes it as it writes
     the rows (where it makes the block promise). A copy whose values change sets it to 0. */
  double diag_bound;
} LsimFactoredLcp;

/* Whether f keeps its block promise (block_width > 0 and everything it says holds): the
 * tests' check of what the fast path trusts; it reads all of J, B and C. */
int lsim_factored_blocks_hold(const LsimFactoredLcp *f);

/* 0 when f is structurally sound and every value is finite, else LSIM_INVALID_INPUT:
 * n >= 0, m >= 0, the arrays present, pointers from 0 and non-decreasing, every index in
 * range, values and q finite, the cone blocks inside 0 .. n-1 with mu >= 0. O(n + nnz). */
int lsim_factored_check(const LsimFactoredLcp *f);

/* lsim_factored_check, and when f is sound and bound non-NULL, an upper bound of every
 * |M_ii| as lsim_factored_diagonal computes it (rounding included), from the largest
 * |entries| of J, B and C and their longest rows, found in the check's own pass (one pass
 * more over J's indices where B shares them); infinite when those overflow. */
int lsim_factored_check_bound(const LsimFactoredLcp *f, double *bound);

/* The bound of lsim_factored_check_bound from its maxima: jl the longest row of J, terms
 * the entries of B's column i that can meet a J_p of row i (1 where B shares J's pattern
 * and every row of J ascends, else B's longest column), jm, bm and cm the largest
 * |entries| of J, B and C, cl C's longest row. */
double lsim_factored_diag_bound(int jl, int terms, double jm, double bm, int cl, double cm);

/* max |B (a - b)|: the largest difference of the velocity changes two impulse vectors a,
 * b [n] cause (m/s, rad/s). The impulses of a contact LCP are not unique (redundant
 * contacts, a cone's directions); the velocities are what two solutions share. du [m] is
 * scratch. */
double lsim_factored_velocity_distance(const LsimFactoredLcp *f, const double *a,
                                       const double *b, double *du);

/* M_ii = J_i . B(:, i) + C_ii, B's column i scattered into u [m] (all zero on entry, left
 * zero). Cost O(nnz(J_i) + nnz(B(:, i)) + nnz(C_i)). */
double lsim_factored_diagonal_entry(const LsimFactoredLcp *f, int i, double *u);

/* d [n] = every M_ii, as lsim_factored_diagonal_entry gives them (the same bits; u as
 * there). Where B shares J's pattern, without the scatter: cost O(nnz(J) + nnz(C)). */
void lsim_factored_diagonal(const LsimFactoredLcp *f, double *d, double *u);

/* w = M z + q. u [m] is scratch (gets B z). */
void lsim_factored_w(const LsimFactoredLcp *f, const double *z, double *u, double *w);

/* The common residual (lcp.h) of z, w recomputed from z alone; u [m], w [n] scratch. */
void lsim_factored_residual(const LsimFactoredLcp *f, const double *z, double *u, double *w,
                            LsimResidual *res);

/* Forms the dense M = J B + C and q into dense (which must have been initialised with
 * lsim_lcp_init(dense, f->n) or be the same size); copies the cone structure pointer.
 * Cost O(sum over columns of B of nnz(B_col) * nnz of the J columns it meets): uses a
 * transposed copy of J, built in the workspace given (tmp_ptr [m + 1], tmp_idx [nnz(J)],
 * tmp_val [nnz(J)]), so no allocation. 0 or LSIM_INVALID_INPUT. */
int lsim_factored_to_dense(const LsimFactoredLcp *f, LsimLcp *dense, int *tmp_ptr, int *tmp_idx,
                           double *tmp_val);

/* PGS (and its contact-block form for cones, as in pgs.c) on the factored problem,
 * maintaining u = B z: cost per sweep O(nnz(J) + nnz(B) + nnz(C)), never forming M. Same
 * options, statuses and stop test as lsim_pgs_solve (natural residual <= tol * scale,
 * confirmed on w recomputed from z alone). The workspace ws grows on demand (n and m). */
int lsim_pgs_solve_factored(LsimPgs *ws, const LsimFactoredLcp *f, const LsimPgsOptions *opt,
                            int warm, double *z, LsimPgsInfo *info);

#endif
