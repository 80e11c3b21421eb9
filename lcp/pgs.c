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
 * lambda row, so the scalar rule cannot apply to it. Its variables are updated as a
 * block: the normal impulse by the scalar rule; each direction k by the scalar rule on
 * its tangential velocity u_k = w_k - lambda (the row without its lambda term); then the
 * directions are projected onto the cone section {beta >= 0, sum beta <= mu c_n} (the
 * Euclidean projection onto the capped simplex); then lambda = max(0, max_k -u_k), the
 * largest sliding speed against a direction, which makes every direction row
 * non-negative and zero on the directions that oppose the sliding.
 *
 * The stop test is the common natural residual max_i |min(z_i, w_i)| <= tol * scale
 * (lsim_lcp_scale), evaluated on the maintained w and confirmed on w recomputed from z.
 *
 * References: Cryer, "The solution of a quadratic programming problem using systematic
 * overrelaxation", SIAM J. Control 9 (1971); Cottle, Pang, Stone, The Linear
 * Complementarity Problem (1992), sect. 5.2; Erleben, "Velocity-based shock propagation
 * for multibody dynamics animation", ACM TOG 26 (2007) for the contact-block form.
 *
 * Failure modes: a zero, negative or non-finite diagonal entry outside the cone lambda
 * rows (no division is attempted: LSIM_BAD_DIAGONAL); divergence to non-finite values
 * (LSIM_BREAKDOWN, z left finite, never NaN); slow convergence on ill-conditioned or
 * non-symmetric M (LSIM_MAX_ITERATIONS with the last iterate and its residual).
 */
#include "pgs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct LsimPgs {
  int capacity;
  double *w;    /* [capacity] maintained w = M z + q */
  double *inv;  /* [capacity] 1 / M_ii (0 for cone lambda variables) */
  int *block;   /* [capacity] cone index of a variable, -1 when scalar */
  double *tmp;  /* [capacity] projection scratch */
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
  free(ws->block);
  free(ws->tmp);
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
  int *block = realloc(ws->block, (size_t)n * sizeof(int));
  if (!block) return LSIM_OUT_OF_MEMORY;
  ws->block = block;
  double *tmp = realloc(ws->tmp, (size_t)n * sizeof(double));
  if (!tmp) return LSIM_OUT_OF_MEMORY;
  ws->tmp = tmp;
  ws->capacity = n;
  return 0;
}

/* z_i <- max(0, z_i - omega w_i / M_ii), keeping w = M z + q. */
static void set_z(const LsimLcp *lcp, int i, double znew, double *z, double *w) {
  const double delta = znew - z[i];
  if (delta == 0.0) return;
  const int n = lcp->n;
  z[i] = znew;
  const double *col = lcp->M + (size_t)i * n;
  for (int k = 0; k < n; ++k) w[k] += col[k] * delta;
}

static void scalar_update(LsimPgs *ws, const LsimLcp *lcp, int i, double omega, double *z,
                          double *w) {
  double znew = z[i] - omega * w[i] * ws->inv[i];
  set_z(lcp, i, znew > 0.0 ? znew : 0.0, z, w);
}

/* Euclidean projection of x [d] onto {y >= 0, sum y <= cap} into y. */
static void project_capped_simplex(const double *x, int d, double cap, double *y) {
  double sum = 0.0;
  for (int k = 0; k < d; ++k) {
    y[k] = x[k] > 0.0 ? x[k] : 0.0;
    sum += y[k];
  }
  if (sum <= cap) return;
  if (!(cap > 0.0)) {
    for (int k = 0; k < d; ++k) y[k] = 0.0;
    return;
  }
  /* Find tau with sum max(0, x_k - tau) = cap by bisection on [0, max x] (d is small). */
  double lo = 0.0, hi = 0.0;
  for (int k = 0; k < d; ++k) hi = x[k] > hi ? x[k] : hi;
  for (int it = 0; it < 100 && hi - lo > 1e-16 * (hi > 1.0 ? hi : 1.0); ++it) {
    const double tau = 0.5 * (lo + hi);
    double s = 0.0;
    for (int k = 0; k < d; ++k) s += x[k] > tau ? x[k] - tau : 0.0;
    if (s > cap) lo = tau;
    else hi = tau;
  }
  /* Exact finish on the support found: tau = (sum of the support - cap) / its size. */
  double ssum = 0.0;
  int count = 0;
  for (int k = 0; k < d; ++k)
    if (x[k] > hi) ssum += x[k], ++count;
  const double tau = count ? (ssum - cap) / count : hi;
  for (int k = 0; k < d; ++k) y[k] = x[k] > tau ? x[k] - tau : 0.0;
}

/* One contact-block update: normal, directions, projection on the cone, lambda. */
static void update_cone(LsimPgs *ws, const LsimLcp *lcp, const LsimConeBlock *cb, double omega,
                        double *z, double *w) {
  if (cb->normal >= 0) scalar_update(ws, lcp, cb->normal, omega, z, w);
  const double cn = cb->normal >= 0 ? z[cb->normal] : cb->fixed_normal;
  const int L = cb->lambda;
  for (int k = 0; k < cb->ndir; ++k) {
    const int i = cb->first_dir + k;
    const double u = w[i] - z[L]; /* tangential velocity along direction k */
    const double znew = z[i] - omega * u * ws->inv[i];
    set_z(lcp, i, znew > 0.0 ? znew : 0.0, z, w);
  }
  double *proj = ws->tmp;
  project_capped_simplex(z + cb->first_dir, cb->ndir, cb->mu * (cn > 0.0 ? cn : 0.0), proj);
  for (int k = 0; k < cb->ndir; ++k) set_z(lcp, cb->first_dir + k, proj[k], z, w);
  double slide = 0.0;
  for (int k = 0; k < cb->ndir; ++k) {
    const double u = w[cb->first_dir + k] - z[L];
    if (-u > slide) slide = -u;
  }
  set_z(lcp, L, slide, z, w);
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

  /* Prepare: cone membership, then the inverse diagonal, refusing zero or negative
     entries (the cone lambda rows excepted: their zero diagonal is by construction). */
  for (int i = 0; i < n; ++i) ws->block[i] = -1;
  for (int c = 0; c < lcp->ncones; ++c) {
    const LsimConeBlock *cb = &lcp->cones[c];
    if (cb->lambda < 0 || cb->lambda >= n || cb->first_dir < 0 || cb->ndir < 1 ||
        cb->first_dir + cb->ndir > n || cb->normal >= n || !(cb->mu >= 0.0))
      return finish(info, LSIM_INVALID_INPUT, 0, INFINITY);
    if (cb->normal >= 0) ws->block[cb->normal] = c;
    for (int k = 0; k < cb->ndir; ++k) ws->block[cb->first_dir + k] = c;
    ws->block[cb->lambda] = c;
  }
  for (int i = 0; i < n; ++i) {
    const double d = lcp->M[i + (size_t)i * n];
    const int is_lambda = ws->block[i] >= 0 && lcp->cones[ws->block[i]].lambda == i;
    if (is_lambda) {
      ws->inv[i] = 0.0;
      continue;
    }
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
      const int c = ws->block[i];
      if (c >= 0) {
        /* A cone block is updated once, at its first variable in index order. */
        const LsimConeBlock *cb = &lcp->cones[c];
        const int first = cb->normal >= 0 && cb->normal < cb->first_dir ? cb->normal : cb->first_dir;
        if (i == first) update_cone(ws, lcp, cb, omega, z, w);
        continue;
      }
      scalar_update(ws, lcp, i, omega, z, w);
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
