/* pgs_generic.c: the PGS driver over both forms of the problem (dense M, factored
 * M = J B + C) through a small backend table, and the cone-block updates (projected step,
 * exact local Lemke solve, planar cone). Math and references: pgs.c. */
#include "pgs_private.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* How one form of the problem is read and updated. ctx is the form's own state, which
 * includes the iterate z the driver also reads. */
typedef struct Backend {
  double (*w_at)(void *ctx, int i);          /* w_i of the current z */
  void (*set)(void *ctx, int i, double znew); /* z_i <- znew, keeping the state consistent */
  double (*diag)(void *ctx, int i);          /* M_ii */
  double (*entry)(void *ctx, int i, int j);  /* M_ij (for the local blocks of the cones) */
  void (*all_w)(void *ctx, double *w);       /* all of w from the state; NULL: w is the state */
  void (*exact)(void *ctx, double *w, LsimResidual *r); /* from z alone; refreshes the state */
} Backend;

/* ---- dense form: w maintained, one column of M per change ---- */

typedef struct DenseCtx {
  const LsimLcp *lcp;
  double *z;
  double *w; /* maintained w = M z + q */
} DenseCtx;

static double dense_w_at(void *vc, int i) { return ((DenseCtx *)vc)->w[i]; }

static void dense_set(void *vc, int i, double znew) {
  DenseCtx *c = vc;
  const double delta = znew - c->z[i];
  if (delta == 0.0) return;
  const int n = c->lcp->n;
  c->z[i] = znew;
  const double *col = c->lcp->M + (size_t)i * n;
  double *w = c->w;
  for (int k = 0; k < n; ++k) w[k] += col[k] * delta;
}

static double dense_diag(void *vc, int i) {
  const LsimLcp *lcp = ((DenseCtx *)vc)->lcp;
  return lcp->M[i + (size_t)i * lcp->n];
}

static void dense_exact(void *vc, double *w, LsimResidual *r) {
  DenseCtx *c = vc;
  lsim_lcp_residual(c->lcp, c->z, w, r);
}

static double dense_entry(void *vc, int i, int j) {
  const LsimLcp *lcp = ((DenseCtx *)vc)->lcp;
  return lcp->M[i + (size_t)j * lcp->n];
}

static const Backend dense_backend = {dense_w_at, dense_set, dense_diag, dense_entry, NULL,
                                      dense_exact};

/* ---- factored form: u = B z maintained, w_i from one row of J and of C ---- */

/* w_i = J_i . u + C_i . z + q_i, summed in the order lsim_factored_w uses. */
static inline double factored_row(const LsimFactoredLcp *f, const double *u, const double *z,
                                  int i) {
  double s = 0.0;
  for (int k = f->J_ptr[i]; k < f->J_ptr[i + 1]; ++k) s += f->J_val[k] * u[f->J_idx[k]];
  if (f->C_ptr)
    for (int k = f->C_ptr[i]; k < f->C_ptr[i + 1]; ++k) s += f->C_val[k] * z[f->C_idx[k]];
  return s + f->q[i];
}

static double factored_w_at(void *vc, int i) {
  FactoredCtx *c = vc;
  return factored_row(c->f, c->u, c->z, i);
}

static void factored_set(void *vc, int i, double znew) {
  FactoredCtx *c = vc;
  const double delta = znew - c->z[i];
  if (delta == 0.0) return;
  c->z[i] = znew;
  const LsimFactoredLcp *f = c->f;
  double *u = c->u;
  for (int k = f->B_ptr[i]; k < f->B_ptr[i + 1]; ++k) u[f->B_idx[k]] += f->B_val[k] * delta;
}

/* M_ii = J_i . B(:, i) + C_ii: J_i scattered into u (zero on entry, zero again on exit),
 * then summed in the order of B's column, as lsim_factored_to_dense sums M_ii. */
static double factored_diag(void *vc, int i) {
  FactoredCtx *c = vc;
  const LsimFactoredLcp *f = c->f;
  double *u = c->u;
  for (int k = f->J_ptr[i]; k < f->J_ptr[i + 1]; ++k) u[f->J_idx[k]] += f->J_val[k];
  double d = 0.0;
  for (int k = f->B_ptr[i]; k < f->B_ptr[i + 1]; ++k) d += u[f->B_idx[k]] * f->B_val[k];
  for (int k = f->J_ptr[i]; k < f->J_ptr[i + 1]; ++k) u[f->J_idx[k]] = 0.0;
  if (f->C_ptr)
    for (int k = f->C_ptr[i]; k < f->C_ptr[i + 1]; ++k)
      if (f->C_idx[k] == i) d += f->C_val[k];
  return d;
}

static void factored_all_w(void *vc, double *w) {
  FactoredCtx *c = vc;
  for (int i = 0; i < c->f->n; ++i) w[i] = factored_row(c->f, c->u, c->z, i);
}

static void factored_exact(void *vc, double *w, LsimResidual *r) {
  FactoredCtx *c = vc;
  lsim_factored_residual(c->f, c->z, c->u, w, r);
}

/* M_ij = J_i . B(:, j) + C_ij, summed in the order lsim_factored_to_dense sums it (over
 * B's column, each product J_ik B_kj on its own, C last), so the local blocks of the cones
 * are bit-identical to the dense form's. */
static double factored_entry(void *vc, int i, int j) {
  FactoredCtx *c = vc;
  const LsimFactoredLcp *f = c->f;
  double d = 0.0;
  const int ji = f->J_ptr[i], nj = f->J_ptr[i + 1] - ji, bj = f->B_ptr[j], nb = f->B_ptr[j + 1] - bj;
  int same = nj == nb;
  for (int k = 0; k < nj && same; ++k) same = f->J_idx[ji + k] == f->B_idx[bj + k];
  if (same) {
    /* Fast path: the row of J and the column of B have the same pattern in the same order
       (the time step's rows of one contact); each index appears once. */
    for (int k = 0; k < nj; ++k) d += f->J_val[ji + k] * f->B_val[bj + k];
  } else {
    for (int kb = f->B_ptr[j]; kb < f->B_ptr[j + 1]; ++kb)
      for (int k = f->J_ptr[i]; k < f->J_ptr[i + 1]; ++k)
        if (f->J_idx[k] == f->B_idx[kb]) d += f->J_val[k] * f->B_val[kb];
  }
  if (f->C_ptr)
    for (int k = f->C_ptr[i]; k < f->C_ptr[i + 1]; ++k)
      if (f->C_idx[k] == j) d += f->C_val[k];
  return d;
}

static const Backend factored_backend = {factored_w_at, factored_set, factored_diag,
                                         factored_entry, factored_all_w, factored_exact};

/* ---- the iteration, shared by both forms ---- */

/* z_i <- max(0, z_i - omega w_i / M_ii). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void scalar_update(const LsimPgs *ws, const Backend *be, void *ctx, int i, double omega,
                          const double *z) {
  const double znew = z[i] - omega * be->w_at(ctx, i) * ws->inv[i];
  be->set(ctx, i, znew > 0.0 ? znew : 0.0);
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
static void update_cone(LsimPgs *ws, const Backend *be, void *ctx, const LsimConeBlock *cb,
                        double omega, double *z) {
  if (cb->normal >= 0) scalar_update(ws, be, ctx, cb->normal, omega, z);
  const double cn = cb->normal >= 0 ? z[cb->normal] : cb->fixed_normal;
  const int L = cb->lambda;
  /* One projected step on all the directions together, with one step length h for all:
     x = beta - omega h u, beta <- projection of x on the cone section. */
  double h = INFINITY;
  for (int k = 0; k < cb->ndir; ++k) h = fmin(h, ws->inv[cb->first_dir + k]);
  double *x = ws->tmp, *proj = ws->tmp + cb->ndir;
  for (int k = 0; k < cb->ndir; ++k) {
    const int i = cb->first_dir + k;
    const double u = be->w_at(ctx, i) - z[L]; /* tangential velocity along direction k */
    x[k] = z[i] - omega * h * u;
  }
  project_capped_simplex(x, cb->ndir, cb->mu * (cn > 0.0 ? cn : 0.0), proj);
  for (int k = 0; k < cb->ndir; ++k) be->set(ctx, cb->first_dir + k, proj[k]);
  double slide = 0.0;
  for (int k = 0; k < cb->ndir; ++k) {
    const double u = be->w_at(ctx, cb->first_dir + k) - z[L];
    if (-u > slide) slide = -u;
  }
  be->set(ctx, L, slide);
}

/* The variables of a cone block in local order: [normal] directions lambda. */
enum { LOCAL_MAX = 34 };
static int cone_vars(const LsimConeBlock *cb, int *v) {
  int k = 0;
  if (cb->normal >= 0) v[k++] = cb->normal;
  for (int d = 0; d < cb->ndir; ++d) v[k++] = cb->first_dir + d;
  v[k++] = cb->lambda;
  return k;
}

/* Size of the local data of cone cb: planar cones keep the tangent-plane inverse mass
 * A (3 numbers); others their whole local block (k x k), or nothing when too large. */
static size_t local_size(const LsimConeBlock *cb) {
  if (is_planar(cb)) return 3;
  const int k = (cb->normal >= 0) + cb->ndir + 1;
  return k <= LOCAL_MAX ? (size_t)k * (size_t)k : 0;
}


#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void update_cone_planar(LsimPgs *ws, const Backend *be, void *ctx,
                               const LsimConeBlock *cb, const double *A, double omega,
                               double *z) {
  if (cb->normal >= 0) scalar_update(ws, be, ctx, cb->normal, omega, z);
  const double cn = cb->normal >= 0 ? z[cb->normal] : cb->fixed_normal;
  const double R = cb->mu * (cn > 0.0 ? cn : 0.0);
  const int d = cb->ndir, b0 = cb->first_dir, L = cb->lambda;
  const double *beta = z + b0;
  double *target = ws->tmp; /* [d + 1]: new beta, then lambda */
  const double v1 = be->w_at(ctx, b0) - z[L];
  const double v2 = d == 2 ? 0.0 : be->w_at(ctx, b0 + d / 4) - z[L];
  planar_target(ws, d, R, A, v1, v2, beta, target, 0);
  /* Relaxed by omega (a convex combination stays in the cone for omega <= 1). */
  for (int k = 0; k < d; ++k) {
    const double zn = beta[k] + omega * (target[k] - beta[k]);
    be->set(ctx, b0 + k, zn > 0.0 ? zn : 0.0);
  }
  const double ln = z[L] + omega * (target[d] - z[L]);
  be->set(ctx, L, ln > 0.0 ? ln : 0.0);
}

/* Exact block update of a cone: the local LCP of its variables, the others held fixed,
 *   w_loc = M_loc z_loc + q_loc,  q_loc = w_loc(current) - M_loc z_loc(current),
 * solved by Lemke (warm started from the current active set), then relaxed by omega.
 * Returns 0, or < 0 when the local solve failed (the caller falls back). */
static int update_cone_exact(LsimPgs *ws, const Backend *be, void *ctx, const LsimConeBlock *cb,
                             const double *Mloc, double omega, double *z) {
  int v[LOCAL_MAX];
  const int k = cone_vars(cb, v);
  double q[LOCAL_MAX], zl[LOCAL_MAX];
  unsigned char guess[LOCAL_MAX];
  for (int a = 0; a < k; ++a) {
    double s = be->w_at(ctx, v[a]);
    for (int b = 0; b < k; ++b) s -= Mloc[a + b * k] * z[v[b]];
    q[a] = s;
    guess[a] = z[v[a]] > 0.0;
    zl[a] = z[v[a]]; /* Lemke's entry point: a failed local solve is discarded anyway */
  }
  LsimLcp loc = {.n = k, .M = (double *)Mloc, .q = q};
  LsimLemkeOptions lo = lsim_default_lemke_options();
  lo.tol = 1e-12;
  if (lsim_lemke_solve(ws->lemke, &loc, &lo, guess, zl, NULL) != LSIM_SOLVED) return -1;
  for (int a = 0; a < k; ++a) {
    const double znew = z[v[a]] + omega * (zl[a] - z[v[a]]);
    be->set(ctx, v[a], znew > 0.0 ? znew : 0.0);
  }
  return 0;
}

/* The solve proper, after the input checks and lsim_pgs_reserve(ws, n, ...): cone membership,
 * inverse diagonal, start, sweeps, stop test. scale is lsim_lcp_scale of the problem. */
/* Inlined into each form's entry point, so that the backend calls are direct. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int run(LsimPgs *ws, const Backend *be, void *ctx, int n, int ncones,
               const LsimConeBlock *cones, double scale, const LsimPgsOptions *opt, int warm,
               double *z, LsimPgsInfo *info) {
  double *w = ws->w;
  /* Prepare: cone membership, then the inverse diagonal, refusing zero or negative
     entries (the cone lambda rows excepted: their zero diagonal is by construction). */
  for (int i = 0; i < n; ++i) ws->block[i] = -1;
  for (int c = 0; c < ncones; ++c) {
    const LsimConeBlock *cb = &cones[c];
    if (cb->lambda < 0 || cb->lambda >= n || cb->first_dir < 0 || cb->ndir < 1 ||
        cb->first_dir + cb->ndir > n || cb->normal >= n || !(cb->mu >= 0.0))
      return lsim_pgs_finish(info, LSIM_INVALID_INPUT, 0, INFINITY);
    if (cb->normal >= 0) ws->block[cb->normal] = c;
    for (int k = 0; k < cb->ndir; ++k) ws->block[cb->first_dir + k] = c;
    ws->block[cb->lambda] = c;
  }
  for (int i = 0; i < n; ++i) {
    const int is_lambda = ws->block[i] >= 0 && cones[ws->block[i]].lambda == i;
    if (is_lambda) {
      ws->inv[i] = 0.0;
      continue;
    }
    const double d = be->diag(ctx, i);
    if (!(d > 0.0)) {
      /* No sweep can run, but the start may already solve the problem (z = 0 does when
         q >= 0): then that is the answer, after no sweep. The start is the projected
         guess (warm), then z = 0; bad_diagonal (with z = 0) when neither meets the
         target. */
      if (info && info->trace) info->trace_len = 0;
      const double target = opt->tol * scale;
      LsimResidual r;
      int tried_zero = !warm;
      if (warm) {
        for (int k = 0; k < n; ++k) z[k] = isfinite(z[k]) && z[k] > 0.0 ? z[k] : 0.0;
        tried_zero = 1;
        for (int k = 0; k < n && tried_zero; ++k) tried_zero = z[k] == 0.0;
      } else {
        memset(z, 0, (size_t)n * sizeof(double));
      }
      be->exact(ctx, w, &r);
      if (!(r.natural <= target) && !tried_zero) {
        memset(z, 0, (size_t)n * sizeof(double));
        be->exact(ctx, w, &r);
      }
      if (info) info->full = r, info->full_valid = 1;
      return lsim_pgs_finish(info, r.natural <= target ? LSIM_SOLVED : LSIM_BAD_DIAGONAL, 0,
                             r.natural);
    }
    ws->inv[i] = 1.0 / d;
  }

  /* Local Delassus blocks of the cones, for their exact block updates. */
  size_t need = 0;
  for (int c = 0; c < ncones; ++c) need += local_size(&cones[c]);
  if (need > ws->local_cap) {
    double *grown = realloc(ws->local, need * sizeof(double));
    if (!grown) return lsim_pgs_finish(info, LSIM_OUT_OF_MEMORY, 0, INFINITY);
    ws->local = grown;
    ws->local_cap = need;
  }
  if (ncones > 0 && !ws->lemke && !(ws->lemke = lsim_lemke_create()))
    return lsim_pgs_finish(info, LSIM_OUT_OF_MEMORY, 0, INFINITY);
  for (int c = 0, off = 0; c < ncones; ++c) {
    const LsimConeBlock *cb = &cones[c];
    int v[LOCAL_MAX];
    if (!local_size(cb)) continue;
    if (is_planar(cb)) {
      /* A from the friction block: T_00 = p_0'Ap_0 = A_11, T_0q = A_12, T_qq = A_22. */
      const int b0 = cb->first_dir, qd = cb->ndir == 2 ? 0 : cb->ndir / 4;
      ws->local[off] = be->entry(ctx, b0, b0);
      ws->local[off + 1] = be->entry(ctx, b0, b0 + qd);
      ws->local[off + 2] = be->entry(ctx, b0 + qd, b0 + qd);
      off += 3;
      continue;
    }
    const int k = cone_vars(cb, v);
    for (int b = 0; b < k; ++b)
      for (int a = 0; a < k; ++a) ws->local[off + a + b * k] = be->entry(ctx, v[a], v[b]);
    off += k * k;
  }

  /* Warm start: project the guess onto z >= 0; cold: z = 0. Then the state from z. */
  if (warm) {
    for (int i = 0; i < n; ++i) z[i] = isfinite(z[i]) && z[i] > 0.0 ? z[i] : 0.0;
  } else {
    memset(z, 0, (size_t)n * sizeof(double));
  }
  LsimResidual r;
  be->exact(ctx, w, &r);

  const double target = opt->tol * scale;
  const int max_sweeps = opt->max_sweeps > 0 ? opt->max_sweeps : 10000;
  const double omega = opt->omega;
  int sweeps = 0, status = LSIM_MAX_ITERATIONS;
  double natural = r.natural;
  if (natural <= target) status = LSIM_SOLVED;
  if (info && info->trace) info->trace_len = 0;

  /* Solve: sweeps until the natural residual on the maintained w meets the target. */
  while (status != LSIM_SOLVED && sweeps < max_sweeps) {
    size_t off = 0;
    int cone_seen = 0;
    for (int i = 0; i < n; ++i) {
      const int c = ws->block[i];
      if (c >= 0) {
        /* A cone block is updated once, at its first variable in index order: exactly
           (a local LCP) when small enough, else by the projected step. Cones are met in
           increasing order of their first variable, which is the order of their local
           blocks when the cones are listed in variable order (as the time step does);
           otherwise the offset is recomputed. */
        const LsimConeBlock *cb = &cones[c];
        const int first = cb->normal >= 0 && cb->normal < cb->first_dir ? cb->normal : cb->first_dir;
        if (i != first) continue;
        if (c != cone_seen) {
          off = 0;
          for (int c2 = 0; c2 < c; ++c2) off += local_size(&cones[c2]);
        }
        cone_seen = c + 1;
        const size_t sz = local_size(cb);
        if (sz && is_planar(cb))
          update_cone_planar(ws, be, ctx, cb, ws->local + off, omega, z);
        else if (!sz || update_cone_exact(ws, be, ctx, cb, ws->local + off, omega, z))
          update_cone(ws, be, ctx, cb, omega, z);
        off += sz;
        continue;
      }
      scalar_update(ws, be, ctx, i, omega, z);
    }
    ++sweeps;
    /* A fixed sweep budget (tol 0) with no trace needs no per-sweep residual. */
    if (opt->tol == 0.0 && !(info && info->trace) && sweeps < max_sweeps) continue;
    if (be->all_w) be->all_w(ctx, w);
    natural = 0.0;
    for (int i = 0; i < n; ++i) natural = fmax(natural, fabs(fmin(z[i], w[i])));
    if (lsim_pgs_after_sweep(info, sweeps, natural, z, n)) {
      status = LSIM_BREAKDOWN;
      break;
    }
    if (natural <= target) {
      /* Confirm on w recomputed from z alone (this also refreshes the maintained state,
         so rounding drift cannot turn a failure into a success); sweep on if it fails. */
      be->exact(ctx, w, &r);
      if (r.natural <= target) status = LSIM_SOLVED;
    }
  }

  /* Report the residual recomputed from z alone. */
  be->exact(ctx, w, &r);
  if (info) info->full = r, info->full_valid = 1;
  return lsim_pgs_finish(info, status, sweeps, r.natural);
}

int lsim_pgs_solve(LsimPgs *ws, const LsimLcp *lcp, const LsimPgsOptions *opt, int warm,
                   double *z, LsimPgsInfo *info) {
  const LsimPgsOptions defaults = lsim_default_pgs_options();
  if (!opt) opt = &defaults;
  if (info) info->trace_len = info->parts = info->crossing = 0, info->bz = NULL, info->w = NULL;
  const int n = lcp->n;
  if (n < 0 || lsim_pgs_check_options(opt)) return lsim_pgs_finish(info, LSIM_INVALID_INPUT, 0, INFINITY);
  if (lsim_lcp_check_finite(lcp)) return lsim_pgs_finish(info, LSIM_INVALID_INPUT, 0, INFINITY);
  if (lsim_pgs_reserve(ws, n, 0)) return lsim_pgs_finish(info, LSIM_OUT_OF_MEMORY, 0, INFINITY);
  DenseCtx ctx = {lcp, z, ws->w};
  return run(ws, &dense_backend, &ctx, n, lcp->ncones, lcp->cones, lsim_lcp_scale(lcp), opt,
             warm, z, info);
}

int lsim_pgs_run_factored(LsimPgs *ws, FactoredCtx *ctx, double scale,
                          const LsimPgsOptions *opt, int warm, double *z, LsimPgsInfo *info) {
  const LsimFactoredLcp *f = ctx->f;
  return run(ws, &factored_backend, ctx, f->n, f->ncones, f->cones, scale, opt, warm, z, info);
}
