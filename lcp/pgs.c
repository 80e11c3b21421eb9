/* pgs.c: projected Gauss-Seidel with over-relaxation (PSOR) for the LCP.
 *
 * Math. For w = M z + q, z >= 0, w >= 0, z'w = 0, one sweep visits i = 1..n and sets
 *     z_i <- max(0, z_i - omega * w_i / M_ii),   w <- w + (z_i,new - z_i,old) M(:, i),
 * so w = M z + q is maintained by one column update per changed z_i: a sweep reads M once
 * (columns are contiguous in the column-major layout). For symmetric M with positive
 * diagonal this is coordinate descent on 1/2 z'Mz + q'z over z >= 0 and converges for
 * symmetric positive semi-definite M and omega in (0, 2) when a solution exists; for a
 * P-matrix with positive diagonal it converges for small enough omega in practice.
 * The stop test is the common natural residual max_i |min(z_i, w_i)| <= tol * scale, with
 * scale = max(1, max|q|)-like (lsim_lcp_scale), evaluated on the maintained w; the
 * reported residual is recomputed from z alone at the end.
 *
 * References: Cryer, "The solution of a quadratic programming problem using systematic
 * overrelaxation", SIAM J. Control 9 (1971); Cottle, Pang, Stone, The Linear
 * Complementarity Problem (1992), sect. 5.2.
 *
 * Failure modes: a zero, negative or non-finite diagonal entry (no division is attempted:
 * LSIM_BAD_DIAGONAL); divergence to non-finite values (LSIM_BREAKDOWN, z reset to the
 * last finite iterate's projection, never NaN); slow convergence on ill-conditioned or
 * non-symmetric M (LSIM_MAX_ITERATIONS with the last iterate and its residual).
 */
#include "pgs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct LsimPgs {
  int capacity;
  double *w;    /* [capacity] maintained w = M z + q */
  double *inv;  /* [capacity] 1 / M_ii */
};

LsimPgsOptions lsim_default_pgs_options(void) {
  LsimPgsOptions o = {.max_sweeps = 0, .tol = 1e-10, .omega = 1.0};
  return o;
}

LsimPgs *lsim_pgs_create(void) { return calloc(1, sizeof(LsimPgs)); }

void lsim_pgs_free(LsimPgs *ws) {
  if (!ws) return;
  free(ws->w);
  free(ws->inv);
  free(ws);
}

/* Grows the workspace to n; no allocation when n fits. */
static int reserve(LsimPgs *ws, int n) {
  if (n <= ws->capacity) return 0;
  double *w = realloc(ws->w, (size_t)n * sizeof(double));
  if (!w) return LSIM_OUT_OF_MEMORY;
  ws->w = w;
  double *inv = realloc(ws->inv, (size_t)n * sizeof(double));
  if (!inv) return LSIM_OUT_OF_MEMORY;
  ws->inv = inv;
  ws->capacity = n;
  return 0;
}

static int finish(LsimPgsInfo *info, int status, int sweeps, double residual) {
  if (info) {
    info->status = status;
    info->sweeps = sweeps;
    info->residual = residual;
  }
  return status;
}

int lsim_pgs_solve(LsimPgs *ws, const LsimLcp *lcp, const LsimPgsOptions *opt, int warm,
                   double *z, LsimPgsInfo *info) {
  const LsimPgsOptions defaults = lsim_default_pgs_options();
  if (!opt) opt = &defaults;
  if (info) info->trace_len = 0;
  const int n = lcp->n;
  if (n < 0 || !(opt->omega > 0.0 && opt->omega < 2.0) || !(opt->tol >= 0.0))
    return finish(info, LSIM_INVALID_INPUT, 0, INFINITY);
  if (lsim_lcp_check_finite(lcp)) return finish(info, LSIM_INVALID_INPUT, 0, INFINITY);
  if (reserve(ws, n)) return finish(info, LSIM_OUT_OF_MEMORY, 0, INFINITY);

  /* Prepare: inverse diagonal, refusing zero or negative entries. */
  for (int i = 0; i < n; ++i) {
    const double d = lcp->M[i + (size_t)i * n];
    if (!(d > 0.0)) {
      if (!warm) memset(z, 0, (size_t)n * sizeof(double));
      LsimResidual r;
      lsim_lcp_residual(lcp, z, ws->w, &r);
      return finish(info, LSIM_BAD_DIAGONAL, 0, r.natural);
    }
    ws->inv[i] = 1.0 / d;
  }

  /* Warm start: project the guess onto z >= 0; cold: z = 0. Then w = M z + q. */
  if (warm) {
    for (int i = 0; i < n; ++i) z[i] = isfinite(z[i]) && z[i] > 0.0 ? z[i] : 0.0;
  } else {
    memset(z, 0, (size_t)n * sizeof(double));
  }
  double *w = ws->w;
  lsim_lcp_w(lcp, z, w);

  const double target = opt->tol * lsim_lcp_scale(lcp);
  const int max_sweeps = opt->max_sweeps > 0 ? opt->max_sweeps : 10000;
  const double omega = opt->omega;
  int sweeps = 0, status = LSIM_MAX_ITERATIONS;
  double natural = 0.0;
  for (int i = 0; i < n; ++i) natural = fmax(natural, fabs(fmin(z[i], w[i])));
  if (natural <= target) status = LSIM_SOLVED;
  if (info && info->trace) info->trace_len = 0;

  /* Solve: sweeps until the natural residual on the maintained w meets the target. */
  while (status != LSIM_SOLVED && sweeps < max_sweeps) {
    for (int i = 0; i < n; ++i) {
      const double zi = z[i];
      double znew = zi - omega * w[i] * ws->inv[i];
      if (znew < 0.0) znew = 0.0;
      const double delta = znew - zi;
      if (delta == 0.0) continue;
      z[i] = znew;
      const double *col = lcp->M + (size_t)i * n;
      for (int k = 0; k < n; ++k) w[k] += col[k] * delta;
    }
    ++sweeps;
    natural = 0.0;
    for (int i = 0; i < n; ++i) natural = fmax(natural, fabs(fmin(z[i], w[i])));
    if (info && info->trace && sweeps <= info->trace_capacity) {
      info->trace[sweeps - 1] = natural;
      info->trace_len = sweeps;
    }
    if (!isfinite(natural)) {
      /* Divergence: report it, leave a finite z. */
      for (int i = 0; i < n; ++i) z[i] = isfinite(z[i]) ? fmax(z[i], 0.0) : 0.0;
      status = LSIM_BREAKDOWN;
      break;
    }
    if (natural <= target) {
      /* Confirm on w recomputed from z alone (this also refreshes the maintained w, so
         rounding drift cannot turn a failure into a success); sweep on if it fails. */
      LsimResidual r;
      lsim_lcp_residual(lcp, z, w, &r);
      if (r.natural <= target) status = LSIM_SOLVED;
    }
  }

  /* Report the residual recomputed from z alone. */
  LsimResidual r;
  lsim_lcp_residual(lcp, z, w, &r);
  return finish(info, status, sweeps, r.natural);
}
