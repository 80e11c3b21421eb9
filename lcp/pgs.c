/* pgs.c: projected Gauss-Seidel with over-relaxation (PSOR) for the LCP, with the
 * contact-block form for friction cones when the problem carries its structure.
 *
 * Math. For w = M z + q, z >= 0, w >= 0, z'w = 0, one sweep visits i = 1..n and sets
 *     z_i <- max(0, z_i - omega * w_i / M_ii),   w <- w + (z_i,new - z_i,old) M(:, i),
 * so w = M z + q is maintained by one column update per changed z_i: a sweep reads M once
 * (columns are contiguous in the column-major layout). For symmetric M with positive
 * diagonal this is coordinate descent on 1/2 z'Mz + q'z over z >= 0 and converges for
 * symmetric positive semi-definite M and omega in (0, 2) when a solution exists; for a
 * P-matrix with positive diagonal it converges for small enough omega in practice.
 *
 * Contact-block form. A friction cone (lcp.h, LsimConeBlock) has a zero diagonal on its
 * lambda row, so the scalar rule cannot apply to it. Its variables (normal, directions,
 * lambda: at most 34) are updated together, exactly: with the other variables held, they
 * solve the local LCP
 *     w_loc = M_loc z_loc + q_loc,   q_loc = w_loc(current) - M_loc z_loc(current),
 * M_loc the cone's block of M (computed once per solve), by Lemke's method (lemke.c, warm
 * started from the current active set), then relaxed by omega. This is block Gauss-Seidel
 * with exact local solves (the "nonsmooth Gauss-Seidel" of Jean and Moreau, Siconos' NSGS),
 * whose fixed points are the solutions of the LCP. Should a local solve fail, the block
 * falls back to one projected step on the directions: beta <- P(beta - omega h u), u_k =
 * w_k - lambda the tangential velocity along direction k, P the Euclidean projection onto
 * the cone section {beta >= 0, sum beta <= mu c_n} (the capped simplex), h = 1 / max_k M_kk
 * one step length for the block; then lambda = max(0, max_k -u_k).
 *   Why one step length: at a fixed point of beta = P(beta - H u), P with threshold tau,
 * every beta_k > 0 has H_kk u_k = -tau. With H = h I this is u_k = -tau/h for all of them,
 * and lambda = tau/h gives exactly the complementarity rows of the cone. Per-direction
 * steps H = diag(1/M_kk) would stall whenever a cone has directions of different M_kk.
 * The projected step alone converges too slowly on resting stacks (indeterminate friction
 * splits between contacts); the exact local solve does not have that trouble.
 *
 * Factored form (factored.h, M = J B + C). The same sweep, in the same variable order,
 * with the same cone-block update: only the way w_i is obtained and kept changes. The
 * solver maintains u = B z (length m) instead of w: w_i = J_i . u + C_i . z + q_i is
 * computed when variable i is visited (one sparse row of J and of C) and a change delta
 * of z_i costs u += delta B(:, i) (one sparse column of B). M_ii = J_i . B(:, i) + C_ii is
 * computed once per solve. The stop test needs all of w once per sweep: one pass
 * w = J u + C z + q over the maintained u, O(nnz(J) + nnz(C)), about the cost of the
 * sweep's own row products; so a sweep is O(nnz(J) + nnz(B) + nnz(C)) and M is never
 * formed. Both forms share one driver (run below) through a small backend table: how to
 * read w_i, how to set z_i, how to get all of w, how to recompute everything from z.
 *
 * The stop test is the common natural residual max_i |min(z_i, w_i)| <= tol * scale
 * (lsim_lcp_scale), evaluated on the maintained w (factored: w from the maintained u)
 * and confirmed on w recomputed from z alone (factored: u = B z recomputed too, so drift
 * in u cannot make a failure look like a success).
 *
 * Coloured wide sweep (factored fast path, one thread, block width 6, cones of d = 4
 * directions with a normal, at least 16 of them). The sweep order is changed so that
 * four cones can be updated at once: the natural order is cut into windows of 512 such
 * cones, the cones of a window coloured greedily so that no two of a colour share a
 * block of u (a body), and a sweep runs window after window, colour after colour, then
 * every other task (scalars, other cones) in the natural order. Cones of one colour
 * commute, so this is Gauss-Seidel in that order whatever the width; it converges as the
 * natural order does (another order of the same block Gauss-Seidel). The four-lane update
 * (pgs_wide.c) is written once and compiled scalar, SSE2, AVX2 and AVX-512 (eight lanes:
 * two groups of a colour; only when asked), picked at run time (__builtin_cpu_supports;
 * LSIM_SIMD=scalar|sse2|avx2|avx512 asks for one): the same bits on each. A small fixed budget (tol 0, at most LSIM_PGS_FLOAT_MAX_SWEEPS = 100 sweeps)
 * keeps the rows of J and B of the cones and their constants as floats (half the memory
 * the sweep streams; M is perturbed by about 1e-7 relative, far below what such budgets
 * leave; a longer budget would end at that floor), compact where the second block's
 * linear entries are the negatives of the first's (pgs_wide.c: the same bits, 54 of 72
 * values a cone on a pile of equal bodies), and their z in the groups during the sweeps (one
 * stream instead of scattered reads); with a tolerance they stay doubles, so that
 * tolerances down to 1e-10 remain reachable. With threads > 1 the parallel sweeps (pgs_team.c) keep their parts,
 * and each range of them (a boundary, an interior, the crossing set) is coloured and swept
 * this way on its own.
 *
 * Files: pgs.c (this front: options, workspace, the shared stop-test bookkeeping),
 * pgs_generic.c (the driver over both forms, the cone updates), pgs_fast.c (the factored
 * fast path), pgs_team.c (its parallel sweeps), pgs_wide.c and pgs_wide_kernel.h (the
 * coloured wide sweep), pgs_private.h (what they share).
 *
 * References: Cryer, "The solution of a quadratic programming problem using systematic
 * overrelaxation", SIAM J. Control 9 (1971); Cottle, Pang, Stone, The Linear
 * Complementarity Problem (1992), sect. 5.2; M. Jean, "The non-smooth contact dynamics
 * method", CMAME 177 (1999) and Acary & Brogliato, Numerical Methods for Nonsmooth
 * Dynamical Systems (2008), ch. 13, for block Gauss-Seidel with exact local solves.
 *
 * Failure modes: a zero, negative or non-finite diagonal entry outside the cone lambda
 * rows (no division is attempted: LSIM_BAD_DIAGONAL with z = 0, unless the start, the
 * projected warm guess or z = 0, already meets the tolerance: then LSIM_SOLVED after no
 * sweep, e.g. z = 0 when q >= 0); divergence to non-finite values
 * (LSIM_BREAKDOWN, z left finite, never NaN); slow convergence on ill-conditioned or
 * non-symmetric M (LSIM_MAX_ITERATIONS with the last iterate and its residual).
 */
#include "pgs.h"
#include "pgs_private.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

LsimPgsOptions lsim_default_pgs_options(void) {
  LsimPgsOptions o = {.max_sweeps = 0, .tol = 1e-10, .omega = 1.0, .threads = 1, .precision = 0};
  return o;
}

LsimPgs *lsim_pgs_create(void) { return calloc(1, sizeof(LsimPgs)); }

struct LsimTeam *lsim_pgs_team(LsimPgs *ws) {
  return ws && lsim_team_size(ws->team) > 1 ? ws->team : NULL;
}

void lsim_pgs_free(LsimPgs *ws) {
  if (!ws) return;
  free(ws->w);
  free(ws->inv);
  free(ws->block);
  free(ws->tmp);
  free(ws->u);
  free(ws->local);
  lsim_lemke_free(ws->lemke);
  free(ws->fc);
  free(ws->fs);
  free(ws->tasks);
  free(ws->rinfo);
  lsim_team_free(ws->team);
  free(ws->order);
  free(ws->graph);
  free(ws->cone_o);
  lsim_pgs_wide_free(ws);
  free(ws);
}

/* Grows the workspace to n variables and m inner dimensions; no allocation when both fit. */
int lsim_pgs_reserve(LsimPgs *ws, int n, int m) {
  if (n > ws->capacity) {
    double *w = realloc(ws->w, (size_t)n * sizeof(double));
    if (!w) return LSIM_OUT_OF_MEMORY;
    ws->w = w;
    double *inv = realloc(ws->inv, (size_t)n * sizeof(double));
    if (!inv) return LSIM_OUT_OF_MEMORY;
    ws->inv = inv;
    int *block = realloc(ws->block, (size_t)n * sizeof(int));
    if (!block) return LSIM_OUT_OF_MEMORY;
    ws->block = block;
    double *tmp = realloc(ws->tmp, (size_t)2 * n * sizeof(double));
    if (!tmp) return LSIM_OUT_OF_MEMORY;
    ws->tmp = tmp;
    ws->capacity = n;
  }
  if (m > ws->capacity_m) {
    double *u = realloc(ws->u, (size_t)m * sizeof(double));
    if (!u) return LSIM_OUT_OF_MEMORY;
    ws->u = u;
    ws->capacity_m = m;
  }
  return 0;
}

int lsim_pgs_finish(LsimPgsInfo *info, int status, int sweeps, double residual) {
  if (info && residual == INFINITY) info->full_valid = 0, info->bz = NULL, info->w = NULL;
  if (info) {
    info->status = status;
    info->sweeps = sweeps;
    info->residual = residual;
  }
  return status;
}

/* A sweep's stop-test bookkeeping, shared by the generic and the fast driver: the trace
 * entry of sweep `sweeps` (when asked for and there is room); a natural residual that is
 * not finite is divergence: z is left finite (negative and non-finite entries to 0) and 1
 * returned, for the caller to report LSIM_BREAKDOWN. */
int lsim_pgs_after_sweep(LsimPgsInfo *info, int sweeps, double natural, double *z, int n) {
  if (info && info->trace && sweeps <= info->trace_capacity) {
    info->trace[sweeps - 1] = natural;
    info->trace_len = sweeps;
  }
  if (isfinite(natural)) return 0;
  for (int i = 0; i < n; ++i) z[i] = isfinite(z[i]) ? fmax(z[i], 0.0) : 0.0;
  return 1;
}

int lsim_pgs_check_options(const LsimPgsOptions *opt) {
  return opt->omega > 0.0 && opt->omega < 2.0 && opt->tol >= 0.0 && opt->threads >= 0 &&
                 opt->threads <= LSIM_PGS_MAX_THREADS
             ? 0
             : LSIM_INVALID_INPUT;
}
