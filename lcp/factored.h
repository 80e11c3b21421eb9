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

#include <stdatomic.h>
#include <string.h>

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
     promise). lsim_step_assemble makes it; lsim_factored_blocks_hold tests it. Where the
     negated directions are implicit (full, below) it is a promise of the rows in full. */
  int block_width;
  /* The producer's bound of the diagonal, 0 for none: when > 0, every |M_ii| as
     lsim_factored_diagonal computes it is at most diag_bound, and diag_bound is what
     lsim_factored_check_bound would give for a sound f (lsim_factored_diag_bound of the
     same maxima). The solver front takes it instead of the check where it rules the
     impulse unit out (lcp/solver.c, UNITS); lsim_step_assemble makes it as it writes
     the rows (where it makes the block promise). A copy whose values change sets it to 0. */
  double diag_bound;
  /* The producer's cone products, NULL for none: entry c (LsimConeProducts, below) holds
     what lsim_cone_products gives for cone c's rows where they lie, as the PGS fast path's
     table computes them (len > 0), or nothing (len 0: the table reads the rows itself).
     lsim_step_assemble makes them as it writes the rows, while they are in the cache, so
     the table need not read them again (the same values, so the same table). Entry c is
     taken only where its lambda and row start are cone c's (a copy with its cones or rows
     moved reads the rows); a copy whose values of J or B change sets it to NULL. */
  const struct LsimConeProducts *cone_products;
  /* The negated directions implicit, NULL for none (every row stored). Non-NULL: the rows
     of J and B of each cone's direction d >= ndir / 2 (ndir even) are stored empty, and
     are the negatives of direction d - ndir / 2's rows (the same columns, each value
     negated); C and q hold every row. Only the PGS fast path reads such a problem as it
     stands (it reads p_0 and p_q alone); every other reader takes the whole rows from
     lsim_factored_full(f), the expanded copy in the storage this points to, made on the
     first call after the producer wrote the rows (lsim_factored_full_reset). The step
     makes it for its PGS problems where B shares J's pattern (contact/step_lcp.c). */
  struct LsimFactoredFull *full;
} LsimFactoredLcp;

/* The storage of the expanded copy of a problem whose negated directions are implicit
 * (LsimFactoredLcp.full): owned by the producer, reserved for the whole problem's size
 * when it writes the rows, so that the expansion never allocates. */
typedef struct LsimFactoredFull {
  LsimFactoredLcp f; /* the expanded problem (full NULL, cone_products NULL) */
  int made;          /* f holds the rows the producer wrote last */
  /* What the copy was made from (rows and cone structure): a caller's copy of the problem
     with other rows or cones gets its own expansion; its other fields are taken as given. */
  const void *from[5];
  int from_n, from_ncones;
  int *J_ptr, *J_idx, *src; /* [n + 1], [nnz], [n] (src: scratch) */
  double *J_val, *B_val;    /* [nnz] */
  int n_cap, nnz_cap;
  atomic_int busy; /* 1 while lsim_factored_full runs on this storage (its single-writer
                      check) */
} LsimFactoredFull;

/* Room for a problem of n variables and nnz entries of J (and B) counting the negated
 * rows: 0 or LSIM_OUT_OF_MEMORY. Marks the copy as not made (the rows changed). */
int lsim_factored_full_reserve(LsimFactoredFull *x, int n, int nnz);

/* The copy is out of date (the producer wrote new rows). */
static inline void lsim_factored_full_reset(LsimFactoredFull *x) { x->made = 0; }

/* Frees the storage (the struct itself is the caller's). */
void lsim_factored_full_free(LsimFactoredFull *x);

/* f with every row stored: f itself when its negated directions are stored (f->full
 * NULL), else the expanded copy (made now unless made since the last reset: the rows in
 * f's order, each negated direction's its source's entries negated, so the same arrays as
 * a producer writing every row gives, bit for bit; f's other fields as f has them, but
 * cone_products NULL and full NULL). Made again when f's rows or cones are not those the
 * copy was made from (a caller's modified copy of f). Never allocates; NULL only when the
 * producer reserved too little (then the caller reports LSIM_OUT_OF_MEMORY). O(n + nnz)
 * when made, O(1) after.
 * Single writer: every call writes the storage f->full (the copy when made, the fields
 * of the problem returned always), so calls on problems sharing one storage must not
 * overlap (the producer's thread, or threads that take turns under the caller's own
 * lock), and the problem returned holds until the next call on that storage or the next
 * reset. Two calls at once abort with a message (a race would hand out torn rows);
 * a copy read while another thread calls is the caller's race, not caught. The step
 * calls it from the thread that steps, never from the PGS team. */
const LsimFactoredLcp *lsim_factored_full(const LsimFactoredLcp *f);

/* A cone's inner products of its rows of J and B (normal n, first direction 1 and
 * direction d/4, 2, each len entries where they lie: J_val + J_ptr[row], B_val +
 * B_ptr[row]), the PGS table's: dot = {J_n B_n, J_1 B_n, J_2 B_n, J_1 B_1, J_1 B_2,
 * J_2 B_2}, each summed k = 0 .. len - 1 from +0 in turn; neg: bit 0 when each of J_n,
 * J_1 and J_2 has entries 6 .. 8 the negatives of entries 0 .. 2 bit for bit, bit 1 the
 * same of B's (len 12 only; else 0); the cone's lambda and J_ptr[n] they were made for;
 * the first direction's row's columns J_idx at its entries 0 and 6 (blocks: o[1] 0 when
 * len <= 6), its blocks' offsets under a block promise of width 6. */
typedef struct LsimConeProducts {
  double dot[6];
  int len, neg, lambda, at;
  int o[2];
} LsimConeProducts;

/* lsim_cone_products' sums (see LsimConeProducts), inlined where the rows are read. */
static inline void lsim_cone_products(const double *Jn, const double *J1, const double *J2,
                                      const double *Bn, const double *B1, const double *B2,
                                      int len, double dot[6]) {
  double dn = 0.0, g1 = 0.0, g2 = 0.0, a0 = 0.0, a1 = 0.0, a2 = 0.0;
  for (int k = 0; k < len; ++k) {
    dn += Jn[k] * Bn[k], g1 += J1[k] * Bn[k], g2 += J2[k] * Bn[k];
    a0 += J1[k] * B1[k], a1 += J1[k] * B2[k], a2 += J2[k] * B2[k];
  }
  dot[0] = dn, dot[1] = g1, dot[2] = g2, dot[3] = a0, dot[4] = a1, dot[5] = a2;
}

/* Zero when r[6 + k] is -r[k] bit for bit (a zero's sign too), k = 0, 1, 2, for each of
 * the three rows r (without a branch: the differences from the sign bit or-ed). */
static inline unsigned long long lsim_negated_heads(const double *r0, const double *r1,
                                                    const double *r2) {
  const double *rows[3] = {r0, r1, r2};
  unsigned long long acc = 0;
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k) {
      unsigned long long a, b;
      memcpy(&a, rows[i] + k, sizeof a), memcpy(&b, rows[i] + 6 + k, sizeof b);
      acc |= a ^ b ^ 1ULL << 63;
    }
  return acc;
}

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
