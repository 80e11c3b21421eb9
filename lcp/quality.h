/* quality.h: solver-independent quality measures of an LCP solution, problem hashes.
 *
 * Everything here is computed from M, q, z and the optional cone structure alone
 * (LsimLcp.cones), never from what a solver reports, so that solvers are compared on the
 * same measures (docs/solvers.md, "Quality measures"). Rows are classified by the cone
 * structure: a cone's beta and lambda variables are friction rows; every other variable
 * (all of them when the problem has no cone structure) is a unilateral "normal" row.
 *
 *   signorini    max over normal rows i of max(0, -w_i, -z_i, |z_i w_i|)
 *   cone         max over cones of max(0, sum_k beta_k - mu c_n)
 *   dissipation  max over sliding cones of
 *                  max( max(0, mu c_n - sum_k beta_k),
 *                       sum_k max(0, beta_k) min(1, max(0, g_k) / s) )
 *                where s = max_k (lambda - w_k) = max_k (-D_k'v') is the sliding speed seen
 *                in the velocities (w_k = lambda + D_k'v'), a cone slides when s > slide_tol,
 *                and g_k = D_k'v' + s = w_k - lambda + s >= 0 is zero exactly on the
 *                directions most opposed to the sliding. The first term: sliding friction
 *                weaker than the cone allows; the second: friction mass on directions that
 *                do not oppose the sliding. Velocities, not lambda, decide what slides, so a
 *                z that gets lambda wrong is still judged.
 * All are zero at an exact solution of a contact LCP.
 */
#ifndef LSIM_QUALITY_H
#define LSIM_QUALITY_H

#include <stdint.h>

#include "factored.h"
#include "lcp.h"

typedef struct LsimQuality {
  LsimResidual residual;  /* the common residual (lsim_lcp_residual) */
  double signorini;       /* non-penetration (Signorini) violation, see above */
  double cone;            /* friction-cone violation, N*s for contact LCPs */
  double dissipation;     /* maximum-dissipation violation, N*s for contact LCPs */
  int nsliding;           /* cones counted as sliding */
} LsimQuality;

/* The default sliding threshold of lsim_lcp_quality for lcp: 1e-8 * lsim_lcp_scale(lcp)
 * (the direction rows of q are velocities). */
double lsim_quality_slide_tol(const LsimLcp *lcp);

/* Computes every measure of z [n] for lcp. work [2 n] is the caller's scratch (no
 * allocation here); on return work[0 .. n-1] holds w = M z + q. slide_tol: a cone slides when s exceeds it (< 0:
 * the default above). The cone structure, when present, must be consistent with n (as the
 * time step builds it); indices outside 0..n-1 are ignored. A non-finite z gives +inf
 * measures. Never fails. */
void lsim_lcp_quality(const LsimLcp *lcp, const double *z, double *work, double slide_tol,
                      LsimQuality *out);

/* max_i |a_i - b_i| over n entries (0 when n = 0; +inf if any difference is not finite). */
double lsim_quality_distance(int n, const double *a, const double *b);

/* 64-bit FNV-1a over the bytes of n (int32, little endian), then M (n*n float64, column
 * major, little endian) and q (n float64): equal hashes mean bit-identical problems (the
 * cone structure is not hashed). Deterministic across runs and platforms of the same
 * byte order. */
uint64_t lsim_lcp_hash(const LsimLcp *lcp);

/* The natural residual in w's units: max_i of |min(z_i, w_i)| and of the same with the
 * row's z or w carried into w's units: |min(M_ii z_i, w_i)| where M_ii > 0 (an impulse
 * row: M_ii z_i is the velocity change z_i makes alone) and |min(z_i, s_i w_i)| where
 * M_ii <= 0, s_i = max(1, max_{j != i} min(|M_ij|, 1) M_jj) (a cone's lambda row, w_i =
 * mu z_n - sum z_d in impulses, z_i a slip speed: an error e in w_i is e in the directions'
 * sum, or e / mu in z_n, at most e where mu >= 1, hence the cap of |M_in| = mu at 1; with
 * mu M_nn a cube on mu = 1e6 failed steps at a relative natural residual of 1.9e-13, the
 * rounding of mu z_n alone 1.1e3 times the target). The plain natural residual mixes
 * impulses and velocities: for a body of mass 1e-10 kg every impulse of a step is below
 * 1e-9 N s, so min(z_i, w_i) <= z_i passes whatever w_i is. Never below the plain natural
 * residual; equal to it where every M_ii <= 1. w [n] = M z + q (given). plain [n] (may be
 * NULL): rows where it is nonzero get the plain measure only. Cost O(n) plus O(n) per
 * row with M_ii <= 0. */
double lsim_lcp_unit_residual(const LsimLcp *lcp, const double *z, const double *w,
                              const unsigned char *plain);

/* How far the unit residual may exceed the tolerance target (tol max|q|) for a result to
 * count as solved: on the 1971 solved steps of tests/test_newton.c (piles, dominoes,
 * boxes) it was at most 28 times the target (99 % below 5.2); on a box of 1e-300 kg
 * 7e4 to 2e10 times, on a cube of 1e-10 kg solved by Lemke 3e9 times. */
#define LSIM_UNIT_MARGIN 1e3

/* The rounding floor of the natural residual: LSIM_FLOOR_K * DBL_EPSILON * max_i
 * (sum_j |M_ij| |z_j| + |q_i|), the size below which |min(z_i, w_i)| of w = M z + q
 * computed in double cannot be told from zero: w_i's evaluation alone errs by up to
 * gamma_k (|M| |z| + |q|)_i for k terms (Higham, Accuracy and Stability, 3.1), and z's
 * own rounding (eps / 2 relative) moves w_i by as much again. A result whose natural
 * residual is within it is as exact as double precision allows (a 1e6 kg cube on a 1 kg
 * slab: the slab's rows sum the cube's impulses of 4.9e4 N s, so every exact result
 * misses a target tol max|q| = 9.8e-12). z [n]; a non-finite entry gives +inf. Cost
 * O(n^2). */
double lsim_lcp_residual_floor(const LsimLcp *lcp, const double *z);

/* The acceptance's factor K of the floor: see lsim_lcp_residual_floor and docs/solvers.md,
 * "The common residual" (measured margins there). */
#define LSIM_FLOOR_K 16.0

/* ---- the same on the factored form (factored.h: M = J B + C), never forming M ---- */

/* 1e-8 * max_i |q_i| (1e-8 when q = 0): lsim_quality_slide_tol of the same problem. */
double lsim_factored_quality_slide_tol(const LsimFactoredLcp *f);

/* lsim_lcp_quality on the factored problem f: w = J (B z) + C z + q (lsim_factored_w), then
 * the same residual, Signorini, cone and maximum-dissipation measures from f's cone
 * structure, with the same definitions (they agree with the dense measures of the formed
 * M up to the round-off of the two ways of summing M z). work [2 n + m] is the caller's
 * scratch; on return work[0 .. n-1] holds w. Cost O(n + nnz(J) + nnz(B) + nnz(C)). f must
 * be structurally sound (as the time step builds it; lsim_solver_solve_factored checks). */
void lsim_factored_quality(const LsimFactoredLcp *f, const double *z, double *work,
                           double slide_tol, LsimQuality *out);

/* lsim_lcp_unit_residual on the factored problem (M_ii = J_i B_:i + C_ii). w [n] =
 * M z + q (given); plain as there; d [n] and u [m] scratch. Cost O(n + nnz(J) + nnz(B) +
 * nnz(C)). */
double lsim_factored_unit_residual(const LsimFactoredLcp *f, const double *z, const double *w,
                                   const unsigned char *plain, double *d, double *u);

/* lsim_lcp_residual_floor on the factored problem, with |M| |z| bounded by |J| (|B| |z|)
 * + |C| |z| (entrywise |J B| <= |J| |B|; this is also the rounding bound of w computed as
 * J (B z) + C z + q, as lsim_factored_w does). u [m] scratch. Cost O(n + nnz). */
double lsim_factored_residual_floor(const LsimFactoredLcp *f, const double *z, double *u);

/* Row by row: 1 when every row's |min(z_i, w_i)| is at most ftol or that row's own rounding
 * floor LSIM_FLOOR_K eps (|M| |z| + |q|)_i, else 0 (also for a non-finite value); w = M z + q
 * [n] given. Unlike the max over rows (lsim_lcp_residual_floor), a row whose w is an
 * impulse (a cone's, of a body of 1e150 kg: 1e150 N s) does not lend its rounding to the
 * velocity rows. Cost O(n^2). */
int lsim_lcp_rows_within_floor(const LsimLcp *lcp, const double *z, const double *w,
                               double ftol);

/* The same on the factored problem (|M| |z| bounded by |J| (|B| |z|) + |C| |z|); u [m]
 * scratch. Cost O(n + nnz). */
int lsim_factored_rows_within_floor(const LsimFactoredLcp *f, const double *z, const double *w,
                                    double ftol, double *u);

/* 64-bit FNV-1a over the factored problem, every field in a fixed order and byte layout
 * (int32 / float64, little endian): the tag "LSIMFACT", n, m; J (row pointers [n + 1],
 * column indices, values); B (column pointers, row indices, values); a flag 0/1 for C and,
 * when present, C (row pointers, column indices, values); q; ncones and per cone normal,
 * fixed_normal, first_dir, ndir, lambda, mu, uniform. Equal hashes mean bit-identical
 * factored problems, cone structure included (so not comparable with lsim_lcp_hash: the
 * same M has many factorisations). Cost O(n + nnz). */
uint64_t lsim_factored_hash(const LsimFactoredLcp *f);

#endif
