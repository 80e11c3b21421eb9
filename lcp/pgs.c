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
 * References: Cryer, "The solution of a quadratic programming problem using systematic
 * overrelaxation", SIAM J. Control 9 (1971); Cottle, Pang, Stone, The Linear
 * Complementarity Problem (1992), sect. 5.2; M. Jean, "The non-smooth contact dynamics
 * method", CMAME 177 (1999) and Acary & Brogliato, Numerical Methods for Nonsmooth
 * Dynamical Systems (2008), ch. 13, for block Gauss-Seidel with exact local solves.
 *
 * Failure modes: a zero, negative or non-finite diagonal entry outside the cone lambda
 * rows (no division is attempted: LSIM_BAD_DIAGONAL); divergence to non-finite values
 * (LSIM_BREAKDOWN, z left finite, never NaN); slow convergence on ill-conditioned or
 * non-symmetric M (LSIM_MAX_ITERATIONS with the last iterate and its residual).
 */
#include "pgs.h"

#include <limits.h>
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "factored.h"
#include "lemke.h"
#include "team.h"

enum { LSIM_PGS_MAX_PLANAR = 64 }; /* planar cones with more directions use local Lemke */

/* Shared with factored.c (internal; see there): structural and finiteness check. */
int lsim_factored_check(const LsimFactoredLcp *f);

struct LsimPgs {
  int capacity;
  double *w;    /* [capacity] maintained w = M z + q (factored: w of the last full pass) */
  double *inv;  /* [capacity] 1 / M_ii (0 for cone lambda variables) */
  int *block;   /* [capacity] cone index of a variable, -1 when scalar */
  double *tmp;  /* [2 capacity] projection scratch */
  int capacity_m;
  double *u;    /* [capacity_m] factored form: maintained u = B z */
  /* Exact local solves of the cone blocks: their Delassus blocks, column-major, one after
     another, and a small Lemke workspace. */
  double *local;
  size_t local_cap;
  LsimLemke *lemke;
  /* Direction table of planar cones: cos and sin of 2 pi k / dir_d. */
  int dir_d;
  double dir_cos[LSIM_PGS_MAX_PLANAR + 1], dir_sin[LSIM_PGS_MAX_PLANAR + 1];
  double dir_half_c, dir_half_s; /* cos and sin of pi / dir_d */
  /* Factored fast path (see "rows with at most two column blocks" below). */
  struct FastCone *fc;
  int fc_cap;
  struct FastScalar *fs;
  int fs_cap;
  int *tasks;   /* [tasks_cap] sweep order: cone index >= 0, or -(scalar index) - 1 */
  int tasks_cap, tasks_n;
  int *rinfo;   /* [rinfo_cap] per row: blocks, offsets */
  int rinfo_cap;
  /* Parallel sweeps (options.threads > 1, see "parallel sweeps" below). */
  struct LsimTeam *team;
  int nparts;   /* 0: the natural order, one thread */
  int part[LSIM_PGS_MAX_THREADS + 1]; /* order[part[k] .. part[k + 1]): member k's part;
                                         order[part[nparts] .. tasks_n): the crossing */
  int inner[LSIM_PGS_MAX_THREADS];    /* part k: boundary order[part[k] .. inner[k]),
                                         interior order[inner[k] .. part[k + 1]) */
  int *order;   /* [order_cap] the tasks in that order */
  int order_cap;
  int *graph;   /* [graph_cap] scratch of partition() */
  int graph_cap;
  int *cone_o;  /* [2 cone_o_cap] each cone's block offsets in u (-1: none), compact for
                   partition() (written by whoever prepared the cone) */
  int cone_o_cap;
  int table_d;  /* the one direction count above 2 among the cones, whose table the
                   parallel stages share (0: none; -1: two or more, stages stay serial) */
  int threads_now; /* this solve's options.threads (1 when 0) */
  int last_W;      /* the block width of the last fast solve (0: none): the guess the
                      prepare stage builds the table at while it measures the width */
};

LsimPgsOptions lsim_default_pgs_options(void) {
  LsimPgsOptions o = {.max_sweeps = 0, .tol = 1e-10, .omega = 1.0, .threads = 1};
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
  free(ws);
}

/* Grows the workspace to n variables and m inner dimensions; no allocation when both fit. */
static int reserve(LsimPgs *ws, int n, int m) {
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

typedef struct FactoredCtx {
  const LsimFactoredLcp *f;
  double *z;
  double *u; /* maintained u = B z; all zero on entry to the diagonal computation */
} FactoredCtx;

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

/* A cone whose friction lives in a plane with evenly spaced directions (see lcp.h). */
static int is_planar(const LsimConeBlock *cb) {
  return cb->uniform && cb->ndir <= LSIM_PGS_MAX_PLANAR &&
         (cb->ndir == 2 || (cb->ndir >= 4 && cb->ndir % 4 == 0));
}

/* The direction table for d directions (recomputed only when d changes). */
static void direction_table(LsimPgs *ws, int d) {
  if (ws->dir_d == d) return;
  for (int k = 0; k <= d; ++k) {
    const double ang = 6.283185307179586476925 * k / d;
    ws->dir_cos[k] = cos(ang), ws->dir_sin[k] = sin(ang);
  }
  /* Exact quarter turns, as the time step builds its directions. */
  if (d % 4 == 0)
    for (int k = 0; k <= d; k += d / 4) {
      const int quarter = 4 * k / d % 4;
      ws->dir_cos[k] = quarter == 0 ? 1.0 : quarter == 2 ? -1.0 : 0.0;
      ws->dir_sin[k] = quarter == 1 ? 1.0 : quarter == 3 ? -1.0 : 0.0;
    }
  ws->dir_half_c = cos(0.5 * 6.283185307179586476925 / d);
  ws->dir_half_s = sin(0.5 * 6.283185307179586476925 / d);
  ws->dir_d = d;
}

/* Size of the local data of cone cb: planar cones keep the tangent-plane inverse mass
 * A (3 numbers); others their whole local block (k x k), or nothing when too large. */
static size_t local_size(const LsimConeBlock *cb) {
  if (is_planar(cb)) return 3;
  const int k = (cb->normal >= 0) + cb->ndir + 1;
  return k <= LOCAL_MAX ? (size_t)k * (size_t)k : 0;
}

/* The best point of the polygon edge V_k -> V_{k+1} (V = R (c, s)) for 1/2 f' A f + r' f
 * (A = (a11, a12; a12, a22)): the clamped 1-D minimum at V_k + s (V_{k+1} - V_k), s into
 * *s_out; returns the objective there. */
static inline double edge_best(double R, double c0, double s0, double c1, double s1,
                               double a11, double a12, double a22, double r1, double r2,
                               double *s_out) {
  const double v1k = R * c0, v2k = R * s0;
  const double e1 = R * c1 - v1k, e2 = R * s1 - v2k;
  const double Ae1 = a11 * e1 + a12 * e2, Ae2 = a12 * e1 + a22 * e2;
  const double gv = e1 * (a11 * v1k + a12 * v2k + r1) + e2 * (a12 * v1k + a22 * v2k + r2);
  const double curv = e1 * Ae1 + e2 * Ae2;
  double sk = curv > 0.0 ? -gv / curv : (gv < 0.0 ? 1.0 : 0.0);
  sk = sk < 0.0 ? 0.0 : sk > 1.0 ? 1.0 : sk;
  const double p1 = v1k + sk * e1, p2 = v2k + sk * e2;
  *s_out = sk;
  return 0.5 * (p1 * (a11 * p1 + a12 * p2) + p2 * (a12 * p1 + a22 * p2)) + r1 * p1 + r2 * p2;
}

/* Planar cone update, in closed form. With the directions p_k = (cos, sin)(2 pi k / d) of a
 * tangent plane, the friction block of M is T = P' A P (A the 2x2 tangent-plane inverse
 * mass; P = [p_0 .. p_{d-1}]) and, given c_n, the cone's rows are the optimality conditions
 * of the convex problem (maximum dissipation)
 *     min_f 1/2 f' A f + r' f   over the polygon conv{mu c_n p_k},   f = P beta,
 * r the tangential velocity without this cone's friction. So: the normal by the scalar
 * rule; then f exactly (the unconstrained minimum if inside the polygon, else the best
 * point of its edges, each a clamped 1-D quadratic); beta from f (the two directions
 * around it); lambda = max(0, max_k -p_k'(A f + r)), the sliding speed. d = 2 is the
 * 1-D case f in [-mu c_n, mu c_n]. A = (T_00, T_0q, T_qq), q = d/4. */
/* The closed-form target of a planar cone: given the friction bound R = mu c_n, the
 * tangent-plane inverse mass A, the tangential velocities v1, v2 (w - lambda on the rows
 * of p_0 and p_q; v2 unused when d = 2) of the current z and the current beta [d], the new
 * beta into target [d] and lambda into target[d]. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void planar_target(LsimPgs *ws, int d, double R, const double *A, double v1,
                                 double v2, const double *beta, double *target, const int pre) {
  if (d == 2) {
    /* Tangent line: f = beta_0 - beta_1, r from row 0 without friction and lambda. */
    const double a = A[0], f_old = beta[0] - beta[1];
    const double r = v1 - a * f_old;
    double f = a > 0.0 ? -r / a : (r > 0.0 ? -R : R);
    f = f > R ? R : f < -R ? -R : f;
    target[0] = f > 0.0 ? f : 0.0, target[1] = f < 0.0 ? -f : 0.0;
    target[2] = fabs(a * f + r);
    return;
  }
  if (d == 4) {
    /* The square conv{R (+-1, 0), R (0, +-1)}: the general case below with its exact
       direction table (p_k = (1,0), (0,1), (-1,0), (0,-1)) written out. */
    const double a11 = A[0], a12 = A[1], a22 = A[2];
    const double f1 = beta[0] - beta[2], f2 = beta[1] - beta[3];
    const double r1 = v1 - (a11 * f1 + a12 * f2), r2 = v2 - (a12 * f1 + a22 * f2);
    double g1 = 0.0, g2 = 0.0;
    int inside = 0, known = 0;
    if (pre) {
      /* A[3] = 1 / det (0 when A is too close to singular), from fast_prepare. */
      if (R > 0.0 && A[3] != 0.0) {
        g1 = -(a22 * r1 - a12 * r2) * A[3], g2 = -(-a12 * r1 + a11 * r2) * A[3];
        inside = fabs(g1) + fabs(g2) <= R, known = 1;
      }
    } else {
      const double det = a11 * a22 - a12 * a12;
      if (R > 0.0 && det > 1e-14 * (a11 * a22 > 0.0 ? a11 * a22 : 1.0)) {
        g1 = -(a22 * r1 - a12 * r2) / det, g2 = -(-a12 * r1 + a11 * r2) / det;
        inside = fabs(g1) + fabs(g2) <= R, known = 1;
      }
    }
    if (R <= 0.0) {
      target[0] = target[1] = target[2] = target[3] = 0.0;
      g1 = g2 = 0.0;
    } else if (inside) {
      target[0] = g1 > 0.0 ? g1 : 0.0, target[2] = g1 < 0.0 ? -g1 : 0.0;
      target[1] = g2 > 0.0 ? g2 : 0.0, target[3] = g2 < 0.0 ? -g2 : 0.0;
    } else {
      /* The best point of the square's edges V_k -> V_{k+1}. With the unconstrained
         minimum g known, only the edges whose half-plane g leaves can hold it (KKT: the
         constrained minimum x has A (g - x) = sum of l_k n_k over its active edges, l >= 0,
         so g - x has a positive component along one active edge's normal): one edge, or
         two adjacent ones; otherwise all four. Edge k's outward normal: (1, 1), (-1, 1),
         (-1, -1), (1, -1). */
      static const double cs[5] = {1.0, 0.0, -1.0, 0.0, 1.0}, sn[5] = {0.0, 1.0, 0.0, -1.0, 0.0};
      int candidates = 15;
      if (known) {
        const int violated = (g1 + g2 > R) | (-g1 + g2 > R) << 1 | (-g1 - g2 > R) << 2 |
                             (g1 - g2 > R) << 3;
        candidates = violated ? violated : 15;
      }
      double best = INFINITY, bests = 0.0;
      int bestk = 0;
      for (int k = 0; k < 4; ++k) {
        if (!(candidates >> k & 1)) continue;
        double sk;
        const double phi = edge_best(R, cs[k], sn[k], cs[k + 1], sn[k + 1], a11, a12, a22, r1, r2, &sk);
        if (phi < best) best = phi, bestk = k, bests = sk;
      }
      target[0] = target[1] = target[2] = target[3] = 0.0;
      target[bestk] = R * (1.0 - bests);
      target[(bestk + 1) & 3] += R * bests;
      g1 = target[0] - target[2], g2 = target[1] - target[3];
    }
    const double u1 = a11 * g1 + a12 * g2 + r1, u2 = a12 * g1 + a22 * g2 + r2;
    const double m1 = fabs(u1), m2 = fabs(u2);
    target[4] = m1 > m2 ? m1 : m2;
    return;
  }
  const double a11 = A[0], a12 = A[1], a22 = A[2], step = 6.283185307179586476925 / d;
  direction_table(ws, d);
  const double *cs = ws->dir_cos, *sn = ws->dir_sin;
  const double half_c = ws->dir_half_c, half_s = ws->dir_half_s;
  (void)step;
  /* Current f and the free tangential velocity r = (w - lambda) - A f on p_0 and p_q. */
  double f1 = 0.0, f2 = 0.0;
  for (int k = 0; k < d; ++k) f1 += beta[k] * cs[k], f2 += beta[k] * sn[k];
  const double r1 = v1 - (a11 * f1 + a12 * f2);
  const double r2 = v2 - (a12 * f1 + a22 * f2);
  /* The unconstrained minimum, kept if inside the polygon (inradius R cos(pi/d)). */
  const double det = a11 * a22 - a12 * a12;
  int inside = 0;
  double g1 = 0.0, g2 = 0.0;
  if (R > 0.0 && det > 1e-14 * (a11 * a22 > 0.0 ? a11 * a22 : 1.0)) {
    g1 = -(a22 * r1 - a12 * r2) / det, g2 = -(-a12 * r1 + a11 * r2) / det;
    inside = 1;
    for (int k = 0; k < d && inside; ++k) {
      /* Edge normal at angle step (k + 1/2): rotate p_k by half a step. */
      const double n1 = cs[k] * half_c - sn[k] * half_s, n2 = sn[k] * half_c + cs[k] * half_s;
      if (g1 * n1 + g2 * n2 > R * half_c) inside = 0;
    }
  }
  for (int k = 0; k < d; ++k) target[k] = 0.0;
  if (R <= 0.0) {
    g1 = g2 = 0.0;
  } else if (inside) {
    /* beta from the sector of g: g = beta_k p_k + beta_{k+1} p_{k+1}. */
    /* The sector k with g between p_k and p_{k+1} (counter-clockwise). */
    int k = 0;
    while (k < d - 1 && !(cs[k] * g2 - sn[k] * g1 >= 0.0 && g1 * sn[k + 1] - g2 * cs[k + 1] > 0.0)) ++k;
    const double c0 = cs[k], s0 = sn[k], c1 = cs[k + 1], s1 = sn[k + 1], den = c0 * s1 - s0 * c1;
    const double bk = (g1 * s1 - g2 * c1) / den, bk1 = (c0 * g2 - s0 * g1) / den;
    target[k] = bk > 0.0 ? bk : 0.0;
    target[(k + 1) % d] = bk1 > 0.0 ? bk1 : 0.0;
  } else {
    /* The best point of the polygon's edges V_k -> V_{k+1}. */
    double best = INFINITY;
    int bestk = 0;
    double bests = 0.0;
    for (int k = 0; k < d; ++k) {
      double sk;
      const double phi = edge_best(R, cs[k], sn[k], cs[k + 1], sn[k + 1], a11, a12, a22, r1, r2, &sk);
      if (phi < best) best = phi, bestk = k, bests = sk;
    }
    target[bestk] = R * (1.0 - bests);
    target[(bestk + 1) % d] += R * bests;
    g1 = g2 = 0.0;
    for (int k = 0; k < d; ++k) g1 += target[k] * cs[k], g2 += target[k] * sn[k];
  }
  /* Sliding speed: the largest tangential velocity against a direction. */
  const double u1 = a11 * g1 + a12 * g2 + r1, u2 = a12 * g1 + a22 * g2 + r2;
  double slide = 0.0;
  for (int k = 0; k < d; ++k) {
    const double uk = u1 * cs[k] + u2 * sn[k];
    if (-uk > slide) slide = -uk;
  }
  target[d] = slide;
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

static int finish(LsimPgsInfo *info, int status, int sweeps, double residual) {
  if (info && residual == INFINITY) info->full_valid = 0, info->bz = NULL;
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
static int after_sweep(LsimPgsInfo *info, int sweeps, double natural, double *z, int n) {
  if (info && info->trace && sweeps <= info->trace_capacity) {
    info->trace[sweeps - 1] = natural;
    info->trace_len = sweeps;
  }
  if (isfinite(natural)) return 0;
  for (int i = 0; i < n; ++i) z[i] = isfinite(z[i]) ? fmax(z[i], 0.0) : 0.0;
  return 1;
}

/* The solve proper, after the input checks and reserve(ws, n, ...): cone membership,
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
      return finish(info, LSIM_INVALID_INPUT, 0, INFINITY);
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
      if (!warm) memset(z, 0, (size_t)n * sizeof(double));
      LsimResidual r;
      be->exact(ctx, w, &r);
      return finish(info, LSIM_BAD_DIAGONAL, 0, r.natural);
    }
    ws->inv[i] = 1.0 / d;
  }

  /* Local Delassus blocks of the cones, for their exact block updates. */
  size_t need = 0;
  for (int c = 0; c < ncones; ++c) need += local_size(&cones[c]);
  if (need > ws->local_cap) {
    double *grown = realloc(ws->local, need * sizeof(double));
    if (!grown) return finish(info, LSIM_OUT_OF_MEMORY, 0, INFINITY);
    ws->local = grown;
    ws->local_cap = need;
  }
  if (ncones > 0 && !ws->lemke && !(ws->lemke = lsim_lemke_create()))
    return finish(info, LSIM_OUT_OF_MEMORY, 0, INFINITY);
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
    if (after_sweep(info, sweeps, natural, z, n)) {
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
  return finish(info, status, sweeps, r.natural);
}

static int check_options(const LsimPgsOptions *opt) {
  return opt->omega > 0.0 && opt->omega < 2.0 && opt->tol >= 0.0 && opt->threads >= 0 &&
                 opt->threads <= LSIM_PGS_MAX_THREADS
             ? 0
             : LSIM_INVALID_INPUT;
}

int lsim_pgs_solve(LsimPgs *ws, const LsimLcp *lcp, const LsimPgsOptions *opt, int warm,
                   double *z, LsimPgsInfo *info) {
  const LsimPgsOptions defaults = lsim_default_pgs_options();
  if (!opt) opt = &defaults;
  if (info) info->trace_len = info->parts = info->crossing = 0, info->bz = NULL;
  const int n = lcp->n;
  if (n < 0 || check_options(opt)) return finish(info, LSIM_INVALID_INPUT, 0, INFINITY);
  if (lsim_lcp_check_finite(lcp)) return finish(info, LSIM_INVALID_INPUT, 0, INFINITY);
  if (reserve(ws, n, 0)) return finish(info, LSIM_OUT_OF_MEMORY, 0, INFINITY);
  DenseCtx ctx = {lcp, z, ws->w};
  return run(ws, &dense_backend, &ctx, n, lcp->ncones, lcp->cones, lsim_lcp_scale(lcp), opt,
             warm, z, info);
}


/* ---- factored fast path: rows with at most two contiguous column blocks ----
 *
 * The time step's rows touch at most two bodies, each a contiguous run of columns of J
 * (and rows of B, same pattern). When every row of the problem is so, with one common run
 * width W (1, 3 or 6), every cone is planar (lcp.h: uniform directions) with the standard
 * couplings (C: +1 from lambda on each direction row, nothing on the normal row), the
 * sweep runs on a compact table: per cone its block offsets, number of blocks (a second
 * block is skipped when absent), the constants of its update, and pointers to its normal,
 * p_0 and p_q rows of J and B where they lie in the problem's arrays (nothing copied);
 * scalars get a packed copy of their row (zero padded; a missing block points at W zeros
 * kept after u). The iteration is the
 * one above, in the same order, with the same rules; what changes is only how u = B z is
 * kept and w read:
 *  - a planar cone's direction rows are linear in the direction (row_k = cos_k row_0 +
 *    sin_k row_q, as for its B columns), so the three rows normal, p_0, p_q give all its
 *    velocities, and a change of its betas moves u by B_0 df_1 + B_q df_2 (df = P dbeta):
 *    two columns instead of d;
 *  - the normal, p_0 and p_q products with u are taken together before the normal
 *    update; the tangential ones are then corrected by M_{t,n} dc_n (exact algebra), and
 *    u gets the three column updates in one pass.
 * Results equal the generic path's up to rounding. Anything else (other shapes, bad
 * diagonals, non-planar cones) takes the generic path. */

enum { FAST_W = 6 };

/* Problems with fewer tasks (cones and scalars) are swept in the natural order by one
 * thread ("parallel sweeps" below), and prepared by one. */
enum { PARALLEL_MIN_TASKS = 128 };

/* Pairs of doubles (SSE2 on x86-64) for the even block widths, where the compiler has them. */
#if defined(__GNUC__)
#define FAST_V2D 1
typedef double v2d __attribute__((vector_size(16)));
static inline v2d ld2(const double *p) {
  v2d v;
  memcpy(&v, p, sizeof v);
  return v;
}
static inline void st2(double *p, v2d v) { memcpy(p, &v, sizeof v); }
#else
#define FAST_V2D 0
#endif

typedef struct FastScalar {
  int var, o[2];
  int nb; /* blocks of the row (0 .. 2); the pad at m is read for the others, never written */
  double inv, q;
  int has_c;
  double J[2 * FAST_W], B[2 * FAST_W];
} FastScalar;

typedef struct FastCone {
  int o[2];
  int nb; /* blocks of the rows: 2, or 1 when the second is the zero pad */
  int normal, b0, d, L;
  double mu, fixed_normal, inv_n, qn, q1, q2, gn1, gn2;
  double A[4]; /* tangent-plane inverse mass (A_11, A_12, A_22) and 1 / det (0: singular) */
  /* Rows of J and columns of B of the normal, p_0 and p_q, read in place from the
     problem's arrays (nb W entries each), or fast_zeros when absent. */
  const double *Jn, *J1, *J2, *Bn, *B1, *B2;
} FastCone;

static const double fast_zeros[2 * FAST_W];

/* The column blocks of row i of J (and column i of B, which must have the same pattern):
 * returns their number (0 .. 2) with offsets o and lengths len, or -1. */
static int row_blocks(const LsimFactoredLcp *f, int i, int o[2], int len[2]) {
  const int j0 = f->J_ptr[i], nj = f->J_ptr[i + 1] - j0, b0 = f->B_ptr[i];
  if (f->B_ptr[i + 1] - b0 != nj) return -1;
  if (nj == 0) return 0;
  const int *ji = f->J_idx + j0;
  if (ji != f->B_idx + b0 && memcmp(ji, f->B_idx + b0, (size_t)nj * sizeof(int))) return -1;
  /* Runs of consecutive columns: breaks counted without branching, the second run's
     start (the last break) kept. */
  int breaks = 0, at = 0;
  for (int k = 1; k < nj; ++k) {
    const int brk = ji[k] != ji[k - 1] + 1;
    breaks += brk;
    at = brk ? k : at;
  }
  if (breaks > 1) return -1;
  o[0] = ji[0];
  if (!breaks) {
    len[0] = nj;
    return 1;
  }
  len[0] = at, o[1] = ji[at], len[1] = nj - at;
  return 2;
}

/* Packs row i (nb blocks of width W, offsets o) into o_out, J, B; pad at column m.
 * 0, or -1 when a value is not finite. */
static int pack_row(const LsimFactoredLcp *f, int i, int nb, const int o[2], int W, int *o_out,
                    double *J, double *B) {
  const int j0 = f->J_ptr[i], b0 = f->B_ptr[i];
  o_out[0] = nb > 0 ? o[0] : f->m;
  o_out[1] = nb > 1 ? o[1] : f->m;
  /* The row's nb blocks are its nb * W consecutive entries; zeros after them. */
  const int len = nb * W;
  if (len == 2 * FAST_W) {
    memcpy(J, f->J_val + j0, 2 * FAST_W * sizeof(double));
    memcpy(B, f->B_val + b0, 2 * FAST_W * sizeof(double));
  } else {
    for (int k = 0; k < len; ++k) J[k] = f->J_val[j0 + k], B[k] = f->B_val[b0 + k];
    for (int k = len; k < 2 * FAST_W; ++k) J[k] = B[k] = 0.0;
  }
  /* Finite: a NaN or an infinity leaves a NaN in x - x (four independent sums). */
  double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
  for (int k = 0; k < 2 * FAST_W; k += 2) {
    a0 += J[k] - J[k], a1 += J[k + 1] - J[k + 1];
    a2 += B[k] - B[k], a3 += B[k + 1] - B[k + 1];
  }
  return (a0 + a1) + (a2 + a3) == 0.0 ? 0 : -1;
}

static double dot_packed(const double *a, const double *b, int W) {
  double s = 0.0;
  for (int k = 0; k < 2 * W; ++k) s += a[k] * b[k];
  return s;
}

/* C row i as {(col, val)}: 1 when it is exactly the single entry (col, val) ... */
static int c_row_is(const LsimFactoredLcp *f, int i, int col, double val) {
  if (!f->C_ptr) return 0;
  const int a = f->C_ptr[i], b = f->C_ptr[i + 1];
  return b - a == 1 && f->C_idx[a] == col && f->C_val[a] == val;
}
static int c_row_empty(const LsimFactoredLcp *f, int i) {
  return !f->C_ptr || f->C_ptr[i + 1] == f->C_ptr[i];
}

/* Sparse pointers present, from 0, non-decreasing, with arrays behind any entry. */
static int pointers_sound(const int *ptr, const int *idx, const double *val, int n) {
  if (!ptr || ptr[0] != 0) return 0;
  int bad = 0;
  for (int i = 0; i < n; ++i) bad |= ptr[i + 1] < ptr[i];
  return !bad && (ptr[n] == 0 || (idx && val));
}

/* Row i's runs (rinfo: number, offset, length, offset, length) with every column below m;
 * W lowered to the shortest run. 0, or -1 when the row does not fit the fast path. */
static int row_runs(const LsimFactoredLcp *f, int i, int *ri, int *W) {
  int o[2] = {0, 0}, len[2] = {0, 0};
  const int nr = row_blocks(f, i, o, len);
  if (nr < 0) return -1;
  for (int s = 0; s < nr; ++s) {
    if (o[s] < 0 || len[s] > f->m - o[s]) return -1;
    if (!*W || len[s] < *W) *W = len[s];
  }
  ri[0] = nr, ri[1] = o[0], ri[2] = len[0], ri[3] = o[1], ri[4] = len[1];
  return 0;
}

/* Row i's runs (runs) cut into blocks of width W, at most two: into blk (number, offsets).
 * 0, or -1. */
static int row_to_blocks(const int *runs, int W, int *blk) {
  int nb = 0, o[2] = {0, 0};
  for (int s = 0; s < runs[0]; ++s) {
    const int off = runs[1 + 2 * s], len = runs[2 + 2 * s];
    if (len % W) return -1;
    for (int k = 0; k < len; k += W) {
      if (nb == 2) return -1;
      o[nb++] = off + k;
    }
  }
  blk[0] = nb, blk[1] = o[0], blk[2] = o[1];
  return 0;
}

/* C row i's indices below n and its values finite. */
static int c_row_sound(const LsimFactoredLcp *f, int i) {
  if (!f->C_ptr) return 1;
  unsigned out = 0;
  double nan_acc = 0.0;
  for (int k = f->C_ptr[i]; k < f->C_ptr[i + 1]; ++k)
    out |= (unsigned)f->C_idx[k] >= (unsigned)f->n, nan_acc += f->C_val[k] - f->C_val[k];
  return !out && nan_acc == 0.0;
}

#define SAME_BLOCKS(i, j) (ri[3 * (i)] == ri[3 * (j)] && ri[3 * (i) + 1] == ri[3 * (j) + 1] && \
                           (ri[3 * (i)] < 2 || ri[3 * (i) + 2] == ri[3 * (j) + 2]))

/* The runs of cone c's rows read (normal, p_0, p_q) into runs; *W lowered to the shortest.
 * 0, or -1 when they do not fit the fast path. */
static int cone_runs(const LsimFactoredLcp *f, int c, int *runs, int *W) {
  const LsimConeBlock *cb = &f->cones[c];
  const int b0 = cb->first_dir, qd = cb->ndir == 2 ? 0 : cb->ndir / 4;
  if (row_runs(f, b0, runs + 5 * b0, W) || (qd && row_runs(f, b0 + qd, runs + 5 * (b0 + qd), W)) ||
      (cb->normal >= 0 && row_runs(f, cb->normal, runs + 5 * cb->normal, W)))
    return -1;
  return 0;
}

/* Cone c's table entry ws->fc[c] at block width W (its rows' blocks into ri first); 0, or
 * -1 when it does not fit the fast path. Reads the direction table, never writes it (the
 * caller has it for every d that needs it). */
static int prepare_cone(LsimPgs *ws, const LsimFactoredLcp *f, int c, int W, const int *runs,
                        int *ri) {
  const LsimConeBlock *cb = &f->cones[c];
  FastCone *fc = &ws->fc[c];
  {
    const int b0 = cb->first_dir, qd = cb->ndir == 2 ? 0 : cb->ndir / 4;
    if (row_to_blocks(runs + 5 * b0, W, ri + 3 * b0) ||
        (qd && row_to_blocks(runs + 5 * (b0 + qd), W, ri + 3 * (b0 + qd))) ||
        (cb->normal >= 0 && row_to_blocks(runs + 5 * cb->normal, W, ri + 3 * cb->normal)))
      return -1;
  }
  const int d = cb->ndir, b0 = cb->first_dir, qd = d == 2 ? 0 : d / 4, L = cb->lambda;
  /* lambda: no row of J; directions: C = +1 at lambda, the blocks of p_0's row. */
  if (f->J_ptr[L + 1] != f->J_ptr[L] || f->B_ptr[L + 1] != f->B_ptr[L] || !c_row_sound(f, L))
    return -1;
  /* p_0 and p_q's rows read, the others' pattern the same as p_0's. */
  const int j0 = f->J_ptr[b0], nj = f->J_ptr[b0 + 1] - j0, k0 = f->B_ptr[b0];
  for (int k = 0; k < d; ++k) {
    const int i = b0 + k, ji = f->J_ptr[i], ki = f->B_ptr[i];
    if (!c_row_is(f, i, L, 1.0)) return -1;
    if (k == qd) {
      if (!SAME_BLOCKS(i, b0)) return -1;
    } else if (k && (f->J_ptr[i + 1] - ji != nj || f->B_ptr[i + 1] - ki != nj ||
                     (nj && (f->J_idx[ji] != f->J_idx[j0] || f->B_idx[ki] != f->B_idx[k0])))) {
      return -1;
    }
  }
  /* The rows in place: nb blocks of W (none: the zero pad, read as one block). */
  const int nb = ri[3 * b0], len = nb * W;
  fc->nb = nb ? nb : 1;
  fc->o[0] = nb > 0 ? ri[3 * b0 + 1] : f->m;
  fc->o[1] = nb > 1 ? ri[3 * b0 + 2] : f->m;
  ws->cone_o[2 * c] = nb > 0 ? fc->o[0] : -1;
  ws->cone_o[2 * c + 1] = nb > 1 ? fc->o[1] : -1;
  fc->normal = cb->normal, fc->b0 = b0, fc->d = d, fc->L = L;
  fc->mu = cb->mu, fc->fixed_normal = cb->fixed_normal;
  fc->J1 = nb ? f->J_val + f->J_ptr[b0] : fast_zeros;
  fc->B1 = nb ? f->B_val + f->B_ptr[b0] : fast_zeros;
  fc->J2 = nb && qd ? f->J_val + f->J_ptr[b0 + qd] : fast_zeros;
  fc->B2 = nb && qd ? f->B_val + f->B_ptr[b0 + qd] : fast_zeros;
  fc->q1 = f->q[b0], fc->q2 = qd ? f->q[b0 + qd] : 0.0;
  fc->Jn = fc->Bn = fast_zeros;
  if (cb->normal >= 0) {
    const int N = cb->normal;
    if (!c_row_empty(f, N) || !SAME_BLOCKS(N, b0)) return -1;
    if (nb) fc->Jn = f->J_val + f->J_ptr[N], fc->Bn = f->B_val + f->B_ptr[N];
  }
  /* The six inner products at once: independent sums, each in dot_packed's order. Every
     entry of the six rows enters one of them (Jn, Bn in dn; J1, B1 in a0; J2, B2 in a2),
     and a NaN or an infinity anywhere leaves one not finite (times 0: NaN; else an
     infinity, or a NaN from opposite ones): their finite sum says the rows are finite
     (an overflow of finite entries is refused too). */
  double dn = 0.0, g1 = 0.0, g2 = 0.0, a0 = 0.0, a1 = 0.0, a2 = 0.0;
  for (int k = 0; k < len; ++k) {
    dn += fc->Jn[k] * fc->Bn[k], g1 += fc->J1[k] * fc->Bn[k], g2 += fc->J2[k] * fc->Bn[k];
    a0 += fc->J1[k] * fc->B1[k], a1 += fc->J1[k] * fc->B2[k], a2 += fc->J2[k] * fc->B2[k];
  }
  if (!isfinite(((dn + g1) + (g2 + a0)) + (a1 + a2))) return -1;
  if (cb->normal >= 0) {
    if (!(dn > 0.0)) return -1;
    fc->inv_n = 1.0 / dn;
    fc->qn = f->q[cb->normal];
    fc->gn1 = g1;
    fc->gn2 = qd ? g2 : 0.0;
  } else {
    fc->inv_n = fc->qn = fc->gn1 = fc->gn2 = 0.0;
  }
  fc->A[0] = a0;
  fc->A[1] = qd ? a1 : 0.0;
  fc->A[2] = qd ? a2 : 0.0;
  {
    const double a11 = fc->A[0], a12 = fc->A[1], a22 = fc->A[2], det = a11 * a22 - a12 * a12;
    fc->A[3] = det > 1e-14 * (a11 * a22 > 0.0 ? a11 * a22 : 1.0) ? 1.0 / det : 0.0;
  }
  /* The directions' diagonal M_kk = p_k' A p_k must be positive (else the generic
     path reports it). */
  if (!(fc->A[0] > 0.0)) return -1;
  if (qd) {
    direction_table(ws, d);
    for (int k = 0; k < d; ++k) {
      const double ck = ws->dir_cos[k], sk = ws->dir_sin[k];
      if (!(ck * (fc->A[0] * ck + fc->A[1] * sk) + sk * (fc->A[1] * ck + fc->A[2] * sk) > 0.0))
        return -1;
    }
  }
  return 0;
}

/* fast_prepare's per-cone stages over chunks of the cones, on the team when there is one
 * (each member its own chunk; the table is the same either way). */
typedef struct PrepareJob {
  LsimPgs *ws;
  const LsimFactoredLcp *f;
  int *runs, *ri;
  int stage, W, T; /* stage 0: runs (W per member); 1: table entries at width W; 2: both,
                      the entries at the guess W */
  int Wm[LSIM_PGS_MAX_THREADS], bad[LSIM_PGS_MAX_THREADS];
  int entries_bad[LSIM_PGS_MAX_THREADS]; /* stage 2: an entry failed at the guess */
} PrepareJob;

static void prepare_chunk(void *arg, int member) {
  PrepareJob *j = arg;
  const int nc = j->f->ncones;
  const int b = (int)((long long)nc * member / j->T), e = (int)((long long)nc * (member + 1) / j->T);
  int bad = 0, W = 0;
  if (j->stage == 2) {
    /* Both at once, the entries at the guessed width j->W: each cone's runs, then (while
       they are in the cache) its entry; a cone whose entry fails is counted in bad only
       if the guess stands (the caller redoes the entries at the measured width). */
    for (int c = b; c < e && !bad; ++c) {
      bad = cone_runs(j->f, c, j->runs, &W);
      if (!bad && prepare_cone(j->ws, j->f, c, j->W, j->runs, j->ri)) j->entries_bad[member] = 1;
    }
  } else {
    for (int c = b; c < e && !bad; ++c)
      bad = j->stage == 0 ? cone_runs(j->f, c, j->runs, &W)
                          : prepare_cone(j->ws, j->f, c, j->W, j->runs, j->ri);
  }
  j->bad[member] = bad;
  j->Wm[member] = W;
}

/* Runs a stage over all cones: in chunks on the team when it serves this solve and the
 * problem is large enough, else in one chunk here. 0, or -1 when a cone did not fit. */
static int prepare_stage(PrepareJob *j, int stage) {
  LsimPgs *ws = j->ws;
  const int T = ws->threads_now;
  j->stage = stage;
  j->T = T > 1 && lsim_team_size(ws->team) == T && j->f->ncones >= PARALLEL_MIN_TASKS ? T : 1;
  if (j->T > 1) lsim_team_run(ws->team, prepare_chunk, j);
  else prepare_chunk(j, 0);
  int bad = 0;
  for (int k = 0; k < j->T; ++k) bad |= j->bad[k];
  return bad ? -1 : 0;
}

/* Builds the packed problem; returns the block width W (1, 3 or 6), or 0 when the
 * problem does not fit the fast path (then nothing is promised about ws->block, and the
 * caller runs lsim_factored_check and the generic path). It checks what it reads as it
 * goes, which is less than lsim_factored_check covers: the rows of a cone's directions
 * other than p_0 and p_q are never read (the uniform promise gives them), so only their
 * pattern is compared with p_0's. */
static int fast_prepare(LsimPgs *ws, const LsimFactoredLcp *f) {
  const int n = f->n;
  if (!pointers_sound(f->J_ptr, f->J_idx, f->J_val, n) ||
      !pointers_sound(f->B_ptr, f->B_idx, f->B_val, n) ||
      (f->C_ptr && !pointers_sound(f->C_ptr, f->C_idx, f->C_val, n)) || f->ncones < 0 ||
      (f->ncones > 0 && !f->cones))
    return 0;
  double nan_acc = 0.0;
  for (int i = 0; i < n; ++i) nan_acc += f->q[i] - f->q[i];
  if (nan_acc != 0.0) return 0; /* also NaN: the comparison is then true */
  if (lsim_grow((void **)&ws->rinfo, &ws->rinfo_cap, 8 * n + 8, sizeof(int))) return 0;
  int *runs = ws->rinfo, *ri = ws->rinfo + 5 * n + 5;
  /* Cone membership, each variable in at most one cone; planar cones in range only. */
  for (int i = 0; i < n; ++i) ws->block[i] = -1;
  int nscalar = n;
  for (int c = 0; c < f->ncones; ++c) {
    const LsimConeBlock *cb = &f->cones[c];
    if (!is_planar(cb) || cb->lambda < 0 || cb->lambda >= n || cb->first_dir < 0 ||
        cb->first_dir > n - cb->ndir || cb->normal >= n || !(cb->mu >= 0.0) ||
        !isfinite(cb->mu) || !isfinite(cb->fixed_normal))
      return 0;
    if (cb->normal >= 0) {
      if (ws->block[cb->normal] >= 0) return 0;
      ws->block[cb->normal] = c, --nscalar;
    }
    for (int d = 0; d < cb->ndir; ++d) {
      if (ws->block[cb->first_dir + d] >= 0) return 0;
      ws->block[cb->first_dir + d] = c, --nscalar;
    }
    if (ws->block[cb->lambda] >= 0) return 0;
    ws->block[cb->lambda] = c, --nscalar;
  }
  /* The runs of the rows read (scalars; a cone's normal, p_0 and p_q); the common block
     width W is the shortest run (two bodies adjacent in u make one run of 2 W). */
  int W = 0;
  for (int i = 0; i < n; ++i)
    if (ws->block[i] < 0 && (row_runs(f, i, runs + 5 * i, &W) || !c_row_sound(f, i))) return 0;
  if (lsim_grow((void **)&ws->fc, &ws->fc_cap, f->ncones, sizeof(FastCone)) ||
      lsim_grow((void **)&ws->cone_o, &ws->cone_o_cap, 2 * f->ncones, sizeof(int)) ||
      lsim_grow((void **)&ws->tasks, &ws->tasks_cap, n, sizeof(int)) ||
      lsim_grow((void **)&ws->fs, &ws->fs_cap, nscalar, sizeof(FastScalar)))
    return 0;
  /* Cones: the direction table made here for the one d > 2 that needs it (cones of two
     such counts: this thread alone, which remakes the table as needed). */
  ws->table_d = 0;
  for (int c = 0; c < f->ncones && ws->table_d >= 0; ++c) {
    const int d = f->cones[c].ndir;
    if (d != 2 && d != ws->table_d) ws->table_d = ws->table_d ? -1 : d;
  }
  if (ws->table_d > 0) direction_table(ws, ws->table_d);
  /* The cones' runs (the width W is the shortest of all), and their table entries at W:
     in one pass at the last solve's width when there is one (the runs and entries of a
     cone while its rows are in the cache), redone at the measured width should it differ. */
  PrepareJob job = {.ws = ws, .f = f, .runs = runs, .ri = ri, .W = ws->last_W};
  const int guess = ws->table_d >= 0 && (job.W == 1 || job.W == 3 || job.W == 6);
  if (guess) memset(job.entries_bad, 0, sizeof job.entries_bad);
  if (prepare_stage(&job, guess ? 2 : 0)) return 0;
  for (int k = 0; k < job.T; ++k)
    if (job.Wm[k] && (!W || job.Wm[k] < W)) W = job.Wm[k];
  if (W != 1 && W != 3 && W != 6) return 0;
  int entries_done = guess && W == job.W;
  if (entries_done)
    for (int k = 0; k < job.T; ++k)
      if (job.entries_bad[k]) return 0;
  job.W = W;
  for (int i = 0; i < n; ++i)
    if (ws->block[i] < 0 && row_to_blocks(runs + 5 * i, W, ri + 3 * i)) return 0;
  if (ws->table_d < 0) {
    for (int c = 0; c < f->ncones; ++c) {
      if (f->cones[c].ndir > 2) direction_table(ws, f->cones[c].ndir);
      if (prepare_cone(ws, f, c, W, runs, ri)) return 0;
    }
  } else if (!entries_done && prepare_stage(&job, 1)) {
    return 0;
  }
  ws->last_W = W;
#undef SAME_BLOCKS
  /* Scalars, and the sweep order (a cone at its first variable, as run() does). */
  int nt = 0, ns = 0;
  for (int i = 0; i < n; ++i) {
    const int c = ws->block[i];
    if (c >= 0) {
      const LsimConeBlock *cb = &f->cones[c];
      const int first = cb->normal >= 0 && cb->normal < cb->first_dir ? cb->normal : cb->first_dir;
      if (i == first) ws->tasks[nt++] = c;
      continue;
    }
    const int o[2] = {ri[3 * i + 1], ri[3 * i + 2]};
    FastScalar *sc = &ws->fs[ns];
    sc->var = i;
    if (pack_row(f, i, ri[3 * i], o, W, sc->o, sc->J, sc->B)) return 0;
    sc->nb = ri[3 * i];
    double dg = dot_packed(sc->J, sc->B, W);
    sc->has_c = !c_row_empty(f, i);
    if (sc->has_c)
      for (int k = f->C_ptr[i]; k < f->C_ptr[i + 1]; ++k)
        if (f->C_idx[k] == i) dg += f->C_val[k];
    if (!(dg > 0.0)) return 0;
    sc->inv = 1.0 / dg;
    sc->q = f->q[i];
    ws->tasks[nt++] = -(ns++) - 1;
  }
  ws->tasks_n = nt;
  /* The pad after u (missing blocks read zeros there). */
  for (int k = 0; k < FAST_W; ++k) ws->u[f->m + k] = 0.0;
  return W;
}

/* How many tasks ahead the sweep prefetches the blocks of u (best of 2, 4, 8, 16). */
enum { SWEEP_PREFETCH = 8 };

/* The blocks of u of the cone SWEEP_PREFETCH tasks after t, asked for now: in parallel
 * sweeps a body's block may come from the other core's cache (measured: 5-10 % off the
 * two-thread solve; no change in one thread). */
static inline void prefetch_ahead(const LsimPgs *ws, const double *u, const int *order, int t,
                                  int end) {
#if defined(__GNUC__)
  if (t + SWEEP_PREFETCH < end && order[t + SWEEP_PREFETCH] >= 0) {
    const FastCone *ahead = &ws->fc[order[t + SWEEP_PREFETCH]];
    __builtin_prefetch(u + ahead->o[0]);
    __builtin_prefetch(u + ahead->o[1]);
  }
#else
  (void)ws, (void)u, (void)order, (void)t, (void)end;
#endif
}

/* One sweep of the fast path, block width W (a constant after inlining). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void fast_sweep(LsimPgs *ws, const LsimFactoredLcp *f, double *z, double omega,
                              const int W, const int *order, int begin, int end) {
  double *u = ws->u;
  double target[LSIM_PGS_MAX_PLANAR + 1];
  for (int t = begin; t < end; ++t) {
    const int task = order[t];
    prefetch_ahead(ws, u, order, t, end);
    if (task < 0) {
      const FastScalar *sc = &ws->fs[-task - 1];
      double *u0 = u + sc->o[0], *u1 = u + sc->o[1];
      double w = 0.0;
      for (int j = 0; j < W; ++j) w += sc->J[j] * u0[j];
      for (int j = 0; j < W; ++j) w += sc->J[W + j] * u1[j];
      if (sc->has_c)
        for (int k = f->C_ptr[sc->var]; k < f->C_ptr[sc->var + 1]; ++k) w += f->C_val[k] * z[f->C_idx[k]];
      w += sc->q;
      const double zo = z[sc->var];
      double zn = zo - omega * w * sc->inv;
      zn = zn > 0.0 ? zn : 0.0;
      const double delta = zn - zo;
      if (delta == 0.0) continue;
      z[sc->var] = zn;
      if (sc->nb > 0)
        for (int j = 0; j < W; ++j) u0[j] += sc->B[j] * delta;
      if (sc->nb > 1)
        for (int j = 0; j < W; ++j) u1[j] += sc->B[W + j] * delta;
      continue;
    }
    const FastCone *c = &ws->fc[task];
    double *u0 = u + c->o[0], *u1 = u + c->o[1];
    double vn = 0.0, v1 = 0.0, v2 = 0.0;
#if FAST_V2D
    if (W % 2 == 0) {
      v2d an = {0.0, 0.0}, a1 = an, a2 = an;
      for (int j = 0; j < W; j += 2) {
        const v2d x = ld2(u0 + j);
        an += ld2(c->Jn + j) * x, a1 += ld2(c->J1 + j) * x, a2 += ld2(c->J2 + j) * x;
      }
      if (c->nb > 1)
        for (int j = 0; j < W; j += 2) {
          const v2d x = ld2(u1 + j);
          an += ld2(c->Jn + W + j) * x, a1 += ld2(c->J1 + W + j) * x, a2 += ld2(c->J2 + W + j) * x;
        }
      vn = an[0] + an[1], v1 = a1[0] + a1[1], v2 = a2[0] + a2[1];
    } else
#endif
    {
      for (int j = 0; j < W; ++j) {
        vn += c->Jn[j] * u0[j], v1 += c->J1[j] * u0[j], v2 += c->J2[j] * u0[j];
      }
      if (c->nb > 1)
        for (int j = 0; j < W; ++j) {
          vn += c->Jn[W + j] * u1[j], v1 += c->J1[W + j] * u1[j], v2 += c->J2[W + j] * u1[j];
        }
    }
    v1 += c->q1, v2 += c->q2;
    double dn = 0.0, cn = c->fixed_normal;
    if (c->normal >= 0) {
      const double zo = z[c->normal];
      double zn = zo - omega * (vn + c->qn) * c->inv_n;
      zn = zn > 0.0 ? zn : 0.0;
      z[c->normal] = zn;
      dn = zn - zo;
      cn = zn;
      v1 += c->gn1 * dn, v2 += c->gn2 * dn;
    }
    const double R = c->mu * (cn > 0.0 ? cn : 0.0);
    const int d = c->d, L = c->L;
    double *beta = z + c->b0;
    planar_target(ws, d, R, c->A, v1, v2, beta, target, 1);
    double df1 = 0.0, df2 = 0.0;
    if (d == 2) {
      double b[2];
      for (int k = 0; k < 2; ++k) {
        const double zn = beta[k] + omega * (target[k] - beta[k]);
        b[k] = zn > 0.0 ? zn : 0.0;
      }
      df1 = (b[0] - beta[0]) - (b[1] - beta[1]);
      beta[0] = b[0], beta[1] = b[1];
    } else if (d == 4) {
      double b[4];
      for (int k = 0; k < 4; ++k) {
        const double zn = beta[k] + omega * (target[k] - beta[k]);
        b[k] = zn > 0.0 ? zn : 0.0;
      }
      df1 = (b[0] - beta[0]) - (b[2] - beta[2]), df2 = (b[1] - beta[1]) - (b[3] - beta[3]);
      for (int k = 0; k < 4; ++k) beta[k] = b[k];
    } else {
      direction_table(ws, d);
      const double *cs = ws->dir_cos, *sn = ws->dir_sin;
      for (int k = 0; k < d; ++k) {
        double zn = beta[k] + omega * (target[k] - beta[k]);
        zn = zn > 0.0 ? zn : 0.0;
        const double dk = zn - beta[k];
        beta[k] = zn;
        df1 += cs[k] * dk, df2 += sn[k] * dk;
      }
    }
    const double ln = z[L] + omega * (target[d] - z[L]);
    z[L] = ln > 0.0 ? ln : 0.0;
    if (dn == 0.0 && df1 == 0.0 && df2 == 0.0) continue;
#if FAST_V2D
    if (W % 2 == 0) {
      const v2d xn = {dn, dn}, x1 = {df1, df1}, x2 = {df2, df2};
      for (int j = 0; j < W; j += 2)
        st2(u0 + j, ld2(u0 + j) + ld2(c->Bn + j) * xn + ld2(c->B1 + j) * x1 + ld2(c->B2 + j) * x2);
      if (c->nb > 1)
        for (int j = 0; j < W; j += 2)
          st2(u1 + j, ld2(u1 + j) + ld2(c->Bn + W + j) * xn + ld2(c->B1 + W + j) * x1 +
                          ld2(c->B2 + W + j) * x2);
      continue;
    }
#endif
    for (int j = 0; j < W; ++j) u0[j] += c->Bn[j] * dn + c->B1[j] * df1 + c->B2[j] * df2;
    if (c->nb > 1)
      for (int j = 0; j < W; ++j)
        u1[j] += c->Bn[W + j] * dn + c->B1[W + j] * df1 + c->B2[W + j] * df2;
  }
}

/* Tasks order[begin .. end) swept, block width W. */
static void fast_sweep_range(LsimPgs *ws, const LsimFactoredLcp *f, double *z, double omega,
                             int W, const int *order, int begin, int end) {
  if (W == 6) fast_sweep(ws, f, z, omega, 6, order, begin, end);
  else if (W == 3) fast_sweep(ws, f, z, omega, 3, order, begin, end);
  else fast_sweep(ws, f, z, omega, 1, order, begin, end);
}

/* ---- parallel sweeps: parts that share no block of u ----
 *
 * With T > 1 members, the tasks are split into T parts and a crossing set. The blocks of
 * u (the bodies, for the time step's rows) are ordered breadth first over the graph whose
 * edges are the two-block tasks, from a pseudo-peripheral block (the last one reached from
 * any start), component after component, so that the order runs across a pile like a
 * front; that order is cut into T ranges holding about equal numbers of tasks, and a task
 * belongs to part k when all its blocks lie in range k, to the crossing set otherwise. A
 * part's boundary is its tasks on a block the crossing set touches, the rest its
 * interior. Every sweep is the Gauss-Seidel sweep in the order boundary 0, ..., boundary
 * T-1, crossing set, interior 0, ..., interior T-1 (each in the natural order). Parts touch
 * disjoint entries of u and z, and no interior touches the crossing set's, so member k
 * sweeps its boundary, member 0 the crossing set once every boundary of that sweep is
 * done, and member k its interior meanwhile; a boundary waits only for the crossing set of
 * the sweep before (sweep_part). The numbers depend on T and the problem only, never on
 * the machine, the run or the scheduling. Tasks that read or
 * write anything outside their blocks (scalars with C couplings, cones without a block)
 * are crossing tasks. Problems below PARALLEL_MIN_TASKS tasks, with blocks not aligned to
 * W, or with cones of two different direction counts that need the direction table, keep
 * the natural order in one thread. Should the team not start, the same order is swept in
 * one thread (the same numbers). */

/* Breadth-first search from start over the blocks not yet marked tag; marks them tag,
 * writes them into queue in visiting order and returns their number. */
static int bfs(const int *ptr, const int *adj, int start, int *mark, int tag, int *queue) {
  int head = 0, tail = 0;
  queue[tail++] = start;
  mark[start] = tag;
  while (head < tail) {
    const int v = queue[head++];
    for (int k = ptr[v]; k < ptr[v + 1]; ++k)
      if (mark[adj[k]] != tag) mark[adj[k]] = tag, queue[tail++] = adj[k];
  }
  return tail;
}

/* Task's blocks of u (offset / W; -1 for none) into a, b; returns 1 when it is a crossing
 * task whatever its blocks (it reads or writes beyond them), 0 otherwise, -1 when a block
 * is not aligned to W. */
static int task_blocks(const LsimPgs *ws, int task, int m, int W, int *a, int *b) {
  int oa, ob, crossing;
  if (task < 0) {
    const FastScalar *sc = &ws->fs[-task - 1];
    oa = sc->nb > 0 && sc->o[0] < m ? sc->o[0] : -1;
    ob = sc->nb > 1 && sc->o[1] < m ? sc->o[1] : -1;
    crossing = sc->has_c;
  } else {
    /* The compact copy (a cone without blocks writes the pad: crossing). */
    oa = ws->cone_o[2 * task], ob = ws->cone_o[2 * task + 1];
    crossing = oa < 0;
  }
  /* The divisions by the constant widths (a multiply, not a divide). */
  const int qa = W == 6 ? oa / 6 : W == 3 ? oa / 3 : oa, qb = W == 6 ? ob / 6 : W == 3 ? ob / 3 : ob;
  if ((oa >= 0 && qa * W != oa) || (ob >= 0 && qb * W != ob)) return -1;
  *a = oa >= 0 ? qa : -1, *b = ob >= 0 ? qb : -1;
  return crossing;
}

/* Sets ws->nparts, ws->part, ws->inner and ws->order for T members (nparts 0: natural
 * order). */
static int partition(LsimPgs *ws, const LsimFactoredLcp *f, int W, int T) {
  ws->nparts = 0;
  const int nt = ws->tasks_n, m = f->m, nblk = W > 0 ? m / W : 0;
  /* The direction table is shared: at most one count other than 2 may need it (the
     sweeps use it for d > 4, the exact residual for d >= 4). */
  if (T < 2 || nt < PARALLEL_MIN_TASKS || nblk < 2 || ws->table_d < 0) return 0;
  /* Scratch: lo, hi, ta, tb [nt]; ptr [nblk + 1]; adj [2 nt]; mark, queue, part_of [nblk]. */
  const size_t need = (size_t)6 * nt + 4 * (size_t)nblk + 1;
  if (need > INT_MAX || lsim_grow((void **)&ws->graph, &ws->graph_cap, (int)need, sizeof(int)) ||
      lsim_grow((void **)&ws->order, &ws->order_cap, nt, sizeof(int)))
    return LSIM_OUT_OF_MEMORY;
  int *lo = ws->graph, *hi = lo + nt, *ta = hi + nt, *tb = ta + nt, *ptr = tb + nt;
  int *adj = ptr + nblk + 1, *mark = adj + 2 * nt, *queue = mark + nblk, *part_of = queue + nblk;
  /* Each task's blocks (ta, tb: block indices, -1 none), and as lo, hi (lo -2: a crossing
     task). */
  for (int t = 0; t < nt; ++t) {
    const int crossing = task_blocks(ws, ws->tasks[t], m, W, &ta[t], &tb[t]);
    if (crossing < 0) return 0;
    lo[t] = crossing ? -2 : ta[t];
    hi[t] = tb[t];
  }
  /* The block graph (CSR; an edge per two-block task, but one for a run of tasks on the
     same pair, such as a manifold's points: the repeat would follow its first entry in
     both lists, where the searches below skip it anyway, so the order is the same). */
  for (int v = 0; v <= nblk; ++v) ptr[v] = 0;
  for (int t = 0; t < nt; ++t)
    if (lo[t] >= 0 && hi[t] >= 0 && !(t > 0 && lo[t] == lo[t - 1] && hi[t] == hi[t - 1]))
      ptr[lo[t] + 1]++, ptr[hi[t] + 1]++;
  for (int v = 0; v < nblk; ++v) ptr[v + 1] += ptr[v];
  for (int v = 0; v < nblk; ++v) mark[v] = ptr[v]; /* fill positions */
  for (int t = 0; t < nt; ++t)
    if (lo[t] >= 0 && hi[t] >= 0 && !(t > 0 && lo[t] == lo[t - 1] && hi[t] == hi[t - 1]))
      adj[mark[lo[t]]++] = hi[t], adj[mark[hi[t]]++] = lo[t];
  /* Breadth-first order, component by component, each from a pseudo-peripheral block. */
  for (int v = 0; v < nblk; ++v) mark[v] = -1;
  int placed = 0;
  for (int i = 0; i < 2 * nt + nblk; ++i) {
    /* Seeds: the blocks in the order the tasks first touch them, then the untouched ones
       (so components, and the fronts within one, follow the natural order where they can:
       parts then come in long runs of it, and members rarely write one cache line). */
    const int s = i < 2 * nt ? (i & 1 ? hi[i / 2] : lo[i / 2]) : i - 2 * nt;
    if (s < 0 || mark[s] != -1) continue;
    const int k = bfs(ptr, adj, s, mark, -2, queue + placed);
    placed += bfs(ptr, adj, queue[placed + k - 1], mark, -3, queue + placed);
  }
  int *rank = mark;
  for (int i = 0; i < nblk; ++i) rank[queue[i]] = i;
  /* Tasks as rank ranges [lo, hi]; counts of the highest rank. */
  int *count = queue; /* [nblk], reused */
  for (int v = 0; v < nblk; ++v) count[v] = 0;
  int ranked = 0;
  for (int t = 0; t < nt; ++t) {
    if (lo[t] == -2) continue;
    const int ra = lo[t] >= 0 ? rank[lo[t]] : 0, rb = hi[t] >= 0 ? rank[hi[t]] : ra;
    lo[t] = ra < rb ? ra : rb, hi[t] = ra < rb ? rb : ra;
    count[hi[t]]++, ranked++;
  }
  /* Cuts at about equal shares of the tasks by highest rank: range p = [cut_p, cut_p+1). */
  int p = 0, acc = 0;
  for (int v = 0; v < nblk; ++v) {
    while (p < T - 1 && (long long)acc * T >= (long long)(p + 1) * ranked) ++p;
    part_of[v] = p;
    acc += count[v];
  }
  /* Parts numbered in the order the natural order first meets them (so part k holds
     about the k-th slice of the natural order, which member k prepared: its data is in
     that member's cache already). */
  int renum[LSIM_PGS_MAX_THREADS + 1];
  for (int k = 0; k <= T; ++k) renum[k] = -1;
  renum[T] = T;
  int next = 0;
  for (int t = 0; t < nt; ++t) {
    const int k = lo[t] == -2 || part_of[lo[t]] != part_of[hi[t]] ? T : part_of[lo[t]];
    if (renum[k] < 0) renum[k] = next++;
    hi[t] = renum[k]; /* hi now holds the task's part */
  }
  /* A part's boundary: its tasks on a block the crossing set touches. The order: each
     part's boundary then its interior (each in the natural order), then the crossing
     set; a sweep runs the boundaries, the crossing set, then the interiors (below). */
  int *crossed = mark; /* [nblk], the ranks are done with */
  for (int v = 0; v < nblk; ++v) crossed[v] = 0;
  for (int t = 0; t < nt; ++t) {
    if (hi[t] != T) continue;
    if (ta[t] >= 0) crossed[ta[t]] = 1;
    if (tb[t] >= 0) crossed[tb[t]] = 1;
  }
  int fill[2 * LSIM_PGS_MAX_THREADS + 2] = {0}; /* groups: 2k boundary, 2k + 1 interior */
  for (int t = 0; t < nt; ++t) {
    int g = 2 * T;
    if (hi[t] != T) {
      const int a = ta[t], b = tb[t];
      g = 2 * hi[t] + !((a >= 0 && crossed[a]) || (b >= 0 && crossed[b]));
    }
    fill[g + 1]++;
    lo[t] = g; /* lo now holds the task's group */
  }
  for (int g = 0; g <= 2 * T; ++g) fill[g + 1] += fill[g];
  for (int k = 0; k <= T; ++k) ws->part[k] = fill[2 * k];
  for (int k = 0; k < T; ++k) ws->inner[k] = fill[2 * k + 1];
  for (int t = 0; t < nt; ++t) ws->order[fill[lo[t]]++] = ws->tasks[t];
  ws->nparts = T;
  return 0;
}

/* Whether this solve's parts run on the team (else one thread does all). */
static int team_on(const LsimPgs *ws) {
  return ws->nparts > 1 && lsim_team_size(ws->team) == ws->nparts;
}

/* A counter on a cache line of its own. */
typedef struct Flag {
  _Alignas(64) atomic_int value;
} Flag;

typedef struct SweepJob {
  LsimPgs *ws;
  const LsimFactoredLcp *f;
  double *z;
  double omega;
  int W;
  int sweeps;                          /* sweeps to run */
  Flag boundary[LSIM_PGS_MAX_THREADS]; /* member k's boundaries done: sweeps finished */
  Flag crossing;                       /* the crossing set: sweeps finished */
} SweepJob;

/* Waits until flag reaches at least value (spins; yields now and then, should a member
 * not be running). */
static void wait_flag(Flag *flag, int value) {
  int spins = 0;
  while (atomic_load_explicit(&flag->value, memory_order_acquire) < value)
    if ((++spins & 1023) == 0) sched_yield();
}

/* Member k's share of the sweeps, in the order boundaries, crossing set, interiors. Its
 * boundary of sweep s waits for the crossing set of sweep s - 1 (they share blocks); the
 * crossing set (member 0) waits for every boundary of sweep s; an interior touches no
 * block of the crossing set, so it runs while the crossing set does: the same iterates
 * as that order one task at a time, with each member at most about a sweep ahead of the
 * others rather than held at a barrier every sweep. Without a crossing set nothing waits. */
static void sweep_part(void *arg, int member) {
  SweepJob *j = arg;
  LsimPgs *ws = j->ws;
  const int T = ws->nparts, crossing = ws->part[T] < ws->tasks_n;
  for (int s = 0; s < j->sweeps; ++s) {
    if (crossing && s > 0) wait_flag(&j->crossing, s);
    fast_sweep_range(ws, j->f, j->z, j->omega, j->W, ws->order, ws->part[member], ws->inner[member]);
    if (crossing) {
      atomic_store_explicit(&j->boundary[member].value, s + 1, memory_order_release);
      if (member == 0) {
        for (int k = 1; k < T; ++k) wait_flag(&j->boundary[k], s + 1);
        fast_sweep_range(ws, j->f, j->z, j->omega, j->W, ws->order, ws->part[T], ws->tasks_n);
        atomic_store_explicit(&j->crossing.value, s + 1, memory_order_release);
      }
    }
    fast_sweep_range(ws, j->f, j->z, j->omega, j->W, ws->order, ws->inner[member],
                     ws->part[member + 1]);
  }
}

/* sweeps sweeps of the parts: on the team in one hand-off, or in this thread in the same
 * order (every boundary, the crossing set, every interior, sweep after sweep). */
static void sweep_batch(LsimPgs *ws, const LsimFactoredLcp *f, double *z, double omega, int W,
                        int sweeps) {
  if (ws->table_d > 0) direction_table(ws, ws->table_d);
  const int T = ws->nparts;
  if (team_on(ws)) {
    SweepJob job = {.ws = ws, .f = f, .z = z, .omega = omega, .W = W, .sweeps = sweeps};
    for (int k = 0; k < T; ++k) atomic_init(&job.boundary[k].value, 0);
    atomic_init(&job.crossing.value, 0);
    lsim_team_run(ws->team, sweep_part, &job);
    return;
  }
  for (int s = 0; s < sweeps; ++s) {
    for (int k = 0; k < T; ++k) fast_sweep_range(ws, f, z, omega, W, ws->order, ws->part[k], ws->inner[k]);
    fast_sweep_range(ws, f, z, omega, W, ws->order, ws->part[T], ws->tasks_n);
    for (int k = 0; k < T; ++k)
      fast_sweep_range(ws, f, z, omega, W, ws->order, ws->inner[k], ws->part[k + 1]);
  }
}

/* One sweep: the natural order, or the parts' order above. */
static void sweep_all(LsimPgs *ws, const LsimFactoredLcp *f, double *z, double omega, int W) {
  if (!ws->nparts) {
    fast_sweep_range(ws, f, z, omega, W, ws->tasks, 0, ws->tasks_n);
    return;
  }
  sweep_batch(ws, f, z, omega, W, 1);
}

/* Whether min(z, w) is exactly zero with both finite (a row that keeps the natural
 * residual at 0). */
static inline int zero_min(double zi, double wi) {
  return isfinite(zi) && isfinite(wi) && (zi < wi ? zi : wi) == 0.0;
}

/* w = J u + C z + q on the packed problem, u the state in ws->u (a cone's direction rows
 * from its p_0 and p_q rows). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int fast_rows_w_stop(LsimPgs *ws, const LsimFactoredLcp *f, const double *z,
                                   double *w, const int W, const int stop, const int *order,
                                   int begin, int end) {
  const double *u = ws->u;
  for (int t = begin; t < end; ++t) {
    const int task = order[t];
    if (task < 0) {
      const FastScalar *sc = &ws->fs[-task - 1];
      double s = 0.0;
      for (int j = 0; j < W; ++j) s += sc->J[j] * u[sc->o[0] + j];
      for (int j = 0; j < W; ++j) s += sc->J[W + j] * u[sc->o[1] + j];
      if (sc->has_c)
        for (int k = f->C_ptr[sc->var]; k < f->C_ptr[sc->var + 1]; ++k) s += f->C_val[k] * z[f->C_idx[k]];
      w[sc->var] = s + sc->q;
      if (stop && !zero_min(z[sc->var], w[sc->var])) return 1;
      continue;
    }
    const FastCone *c = &ws->fc[task];
    const double *u0 = u + c->o[0], *u1 = u + c->o[1];
    double vn = 0.0, v1 = 0.0, v2 = 0.0;
    for (int j = 0; j < W; ++j) vn += c->Jn[j] * u0[j], v1 += c->J1[j] * u0[j], v2 += c->J2[j] * u0[j];
    if (c->nb > 1)
      for (int j = 0; j < W; ++j)
        vn += c->Jn[W + j] * u1[j], v1 += c->J1[W + j] * u1[j], v2 += c->J2[W + j] * u1[j];
    if (c->normal >= 0) w[c->normal] = vn + c->qn;
    const int d = c->d, b0 = c->b0, L = c->L;
    const double zl = z[L];
    if (d == 2) {
      w[b0] = v1 + zl + f->q[b0];
      w[b0 + 1] = -v1 + zl + f->q[b0 + 1];
    } else {
      direction_table(ws, d);
      for (int k = 0; k < d; ++k)
        w[b0 + k] = (ws->dir_cos[k] * v1 + ws->dir_sin[k] * v2) + zl + f->q[b0 + k];
    }
    double s = 0.0;
    for (int k = f->C_ptr[L]; k < f->C_ptr[L + 1]; ++k) s += f->C_val[k] * z[f->C_idx[k]];
    w[L] = s + f->q[L];
    if (stop) {
      if (!zero_min(z[L], w[L])) return 1;
      if (c->normal >= 0 && !zero_min(z[c->normal], w[c->normal])) return 1;
      for (int k = 0; k < d; ++k)
        if (!zero_min(z[b0 + k], w[b0 + k])) return 1;
    }
  }
  return 0;
}

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void fast_rows_w(LsimPgs *ws, const LsimFactoredLcp *f, const double *z, double *w,
                               const int W) {
  (void)fast_rows_w_stop(ws, f, z, w, W, 0, ws->tasks, 0, ws->tasks_n);
}

/* w on the rows of tasks order[begin .. end). */
static void rows_range(LsimPgs *ws, const LsimFactoredLcp *f, const double *z, double *w, int W,
                       const int *order, int begin, int end) {
  if (W == 6) (void)fast_rows_w_stop(ws, f, z, w, 6, 0, order, begin, end);
  else if (W == 3) (void)fast_rows_w_stop(ws, f, z, w, 3, 0, order, begin, end);
  else (void)fast_rows_w_stop(ws, f, z, w, 1, 0, order, begin, end);
}

/* Tasks [begin, end) of ws->tasks scattered into u: u += B z over their variables. */
static inline void fast_scatter(LsimPgs *ws, const double *z, const int W, const int *order,
                                int begin, int end) {
  double *u = ws->u;
  for (int t = begin; t < end; ++t) {
    const int task = order[t];
    if (task < 0) {
      const FastScalar *sc = &ws->fs[-task - 1];
      const double zi = z[sc->var];
      if (zi == 0.0) continue;
      if (sc->nb > 0)
        for (int j = 0; j < W; ++j) u[sc->o[0] + j] += sc->B[j] * zi;
      if (sc->nb > 1)
        for (int j = 0; j < W; ++j) u[sc->o[1] + j] += sc->B[W + j] * zi;
      continue;
    }
    const FastCone *c = &ws->fc[task];
    const double *beta = z + c->b0;
    const double cn = c->normal >= 0 ? z[c->normal] : 0.0;
    double f1 = 0.0, f2 = 0.0;
    if (c->d == 2) {
      f1 = beta[0] - beta[1];
    } else {
      direction_table(ws, c->d);
      for (int k = 0; k < c->d; ++k) f1 += ws->dir_cos[k] * beta[k], f2 += ws->dir_sin[k] * beta[k];
    }
    if (cn == 0.0 && f1 == 0.0 && f2 == 0.0) continue;
    for (int j = 0; j < W; ++j) u[c->o[0] + j] += c->Bn[j] * cn + c->B1[j] * f1 + c->B2[j] * f2;
    if (c->nb > 1)
      for (int j = 0; j < W; ++j)
        u[c->o[1] + j] += c->Bn[W + j] * cn + c->B1[W + j] * f1 + c->B2[W + j] * f2;
  }
}

/* The members' share of fast_exact: scatter of part k (u = B z), or rows of chunk k (w). */
typedef struct ExactJob {
  LsimPgs *ws;
  const LsimFactoredLcp *f;
  const double *z;
  double *w;
  int W, rows;
} ExactJob;

static void exact_part(void *arg, int member) {
  const ExactJob *j = arg;
  LsimPgs *ws = j->ws;
  const int T = ws->nparts, nt = ws->tasks_n, b = ws->part[member], e = ws->part[member + 1];
  if (!j->rows) {
    if (j->W == 6) fast_scatter(ws, j->z, 6, ws->order, b, e);
    else if (j->W == 3) fast_scatter(ws, j->z, 3, ws->order, b, e);
    else fast_scatter(ws, j->z, 1, ws->order, b, e);
    return;
  }
  /* Rows of part k on member k (its data is in its cache), the crossing set's on 0. */
  rows_range(ws, j->f, j->z, j->w, j->W, ws->order, b, e);
  if (member == 0) rows_range(ws, j->f, j->z, j->w, j->W, ws->order, ws->part[T], nt);
}

/* The common residual (lcp.h) of z from z alone on the packed problem: u = B z (a cone's
 * directions through f = P beta on its two tangent columns), then w row by row (a cone's
 * direction rows from its p_0 and p_q rows). Equal to lsim_factored_residual up to
 * rounding, at about half its cost. */
static void fast_exact(LsimPgs *ws, const LsimFactoredLcp *f, const double *z, double *w,
                       double scale, LsimResidual *res, const int W, const int zero_test) {
  double *u = ws->u;
  const int n = f->n;
  if (f->m > 0) memset(u, 0, (size_t)f->m * sizeof(double));
  /* u = B z: with parallel parts, the parts at once (disjoint blocks), then the crossing
     set; else all tasks in the natural order. */
  ExactJob job = {ws, f, z, w, W, 0};
  if (ws->nparts) {
    if (ws->table_d > 0) direction_table(ws, ws->table_d);
    if (team_on(ws)) lsim_team_run(ws->team, exact_part, &job);
    else for (int k = 0; k < ws->nparts; ++k) exact_part(&job, k);
    fast_scatter(ws, z, W, ws->order, ws->part[ws->nparts], ws->tasks_n);
  } else {
    fast_scatter(ws, z, W, ws->tasks, 0, ws->tasks_n);
  }
  if (zero_test) {
    /* Only whether the natural residual is 0: stops at the first row where it is not (then
       res->natural is INFINITY, the other measures unset). */
    res->natural = fast_rows_w_stop(ws, f, z, w, W, 1, ws->tasks, 0, ws->tasks_n) ? INFINITY : 0.0;
    return;
  }
  /* w row by row: chunks of the tasks at once (each writes its own rows). */
  if (team_on(ws)) {
    job.rows = 1;
    lsim_team_run(ws->team, exact_part, &job);
  } else {
    fast_rows_w(ws, f, z, w, W);
  }
  double natural = 0.0, dot = 0.0, zneg = 0.0, wneg = 0.0;
  int finite = 1;
  for (int i = 0; i < n; ++i) {
    if (!isfinite(z[i]) || !isfinite(w[i])) finite = 0;
    const double m = z[i] < w[i] ? z[i] : w[i];
    natural = natural > fabs(m) ? natural : fabs(m);
    dot += z[i] * w[i];
    zneg = zneg > -z[i] ? zneg : -z[i];
    wneg = wneg > -w[i] ? wneg : -w[i];
  }
  if (!finite) natural = dot = zneg = wneg = INFINITY;
  res->natural = natural;
  res->complementarity = fabs(dot);
  res->z_negative = zneg;
  res->w_negative = wneg;
  res->relative = natural / scale;
}

static void fast_exact_w(LsimPgs *ws, const LsimFactoredLcp *f, const double *z, double *w,
                         double scale, LsimResidual *res, int W) {
  if (W == 6) fast_exact(ws, f, z, w, scale, res, 6, 0);
  else if (W == 3) fast_exact(ws, f, z, w, scale, res, 3, 0);
  else fast_exact(ws, f, z, w, scale, res, 1, 0);
}

/* The start's test with tol 0 (natural <= 0): whether the natural residual is exactly 0. */
static void fast_zero_test(LsimPgs *ws, const LsimFactoredLcp *f, const double *z, double *w,
                           double scale, LsimResidual *res, int W) {
  if (W == 6) fast_exact(ws, f, z, w, scale, res, 6, 1);
  else if (W == 3) fast_exact(ws, f, z, w, scale, res, 3, 1);
  else fast_exact(ws, f, z, w, scale, res, 1, 1);
}

/* The driver of run() for the fast path (prepared, width W): start, sweeps, stop test. */
static int run_fast(LsimPgs *ws, FactoredCtx *ctx, int W, double scale,
                    const LsimPgsOptions *opt, int warm, double *z, LsimPgsInfo *info) {
  const LsimFactoredLcp *f = ctx->f;
  const int n = f->n;
  double *w = ws->w;
  if (warm) {
    for (int i = 0; i < n; ++i) z[i] = isfinite(z[i]) && z[i] > 0.0 ? z[i] : 0.0;
  } else {
    memset(z, 0, (size_t)n * sizeof(double));
  }
  LsimResidual r;
  /* With tol 0 the start only asks whether natural <= 0 (the final z's measures are
     recomputed below in any case). */
  if (opt->tol == 0.0) fast_zero_test(ws, f, z, w, scale, &r, W);
  else fast_exact_w(ws, f, z, w, scale, &r, W);
  const double target = opt->tol * scale;
  const int max_sweeps = opt->max_sweeps > 0 ? opt->max_sweeps : 10000;
  const double omega = opt->omega;
  int sweeps = 0, status = LSIM_MAX_ITERATIONS;
  double natural = r.natural;
  if (natural <= target) status = LSIM_SOLVED;
  if (info && info->trace) info->trace_len = 0;
  if (status != LSIM_SOLVED && opt->tol == 0.0 && !(info && info->trace) && ws->nparts) {
    /* A fixed budget over parts: all sweeps in one hand-off. */
    sweep_batch(ws, f, z, omega, W, max_sweeps);
    sweeps = max_sweeps;
  }
  while (status != LSIM_SOLVED && sweeps < max_sweeps) {
    sweep_all(ws, f, z, omega, W);
    ++sweeps;
    /* With tol 0 (a fixed budget) and no trace, nothing is tested between sweeps: the
       final measures below tell the rest. */
    if (opt->tol == 0.0 && !(info && info->trace)) continue;
    rows_range(ws, f, z, w, W, ws->tasks, 0, ws->tasks_n);
    /* max |min(z, w)|, a NaN in either kept (so it stops the run below). */
    natural = 0.0;
    for (int i = 0; i < n; ++i) {
      const double zi = z[i], wi = w[i], a = fabs(zi < wi || zi != zi ? zi : wi);
      natural = a > natural || a != a ? a : natural;
    }
    if (after_sweep(info, sweeps, natural, z, n)) {
      status = LSIM_BREAKDOWN;
      break;
    }
    if (natural <= target) {
      fast_exact_w(ws, f, z, w, scale, &r, W);
      if (r.natural <= target) status = LSIM_SOLVED;
    }
  }
  fast_exact_w(ws, f, z, w, scale, &r, W);
  /* A fixed budget's last iterate may be a solution (natural residual 0 with tol 0). */
  if (status == LSIM_MAX_ITERATIONS && r.natural <= target) status = LSIM_SOLVED;
  if (status != LSIM_BREAKDOWN && !isfinite(r.natural)) {
    /* Divergence the loop did not test for (a fixed budget): z made finite, measured. */
    for (int i = 0; i < n; ++i) z[i] = isfinite(z[i]) ? fmax(z[i], 0.0) : 0.0;
    status = LSIM_BREAKDOWN;
    fast_exact_w(ws, f, z, w, scale, &r, W);
  }
  if (info) info->full = r, info->full_valid = 1, info->bz = ws->u;
  return finish(info, status, sweeps, r.natural);
}

int lsim_pgs_solve_factored(LsimPgs *ws, const LsimFactoredLcp *f, const LsimPgsOptions *opt,
                            int warm, double *z, LsimPgsInfo *info) {
  const LsimPgsOptions defaults = lsim_default_pgs_options();
  if (!opt) opt = &defaults;
  if (info) info->trace_len = info->parts = info->crossing = 0, info->bz = NULL;
  if (!f || check_options(opt) || f->n < 0 || f->m < 0 || (f->n > 0 && !f->q))
    return finish(info, LSIM_INVALID_INPUT, 0, INFINITY);
  const int n = f->n, m = f->m;
  if (reserve(ws, n, m + FAST_W)) return finish(info, LSIM_OUT_OF_MEMORY, 0, INFINITY);
  double scale = 0.0;
  for (int i = 0; i < n; ++i) {
    const double a = fabs(f->q[i]); /* a NaN is skipped here and refused below */
    scale = a > scale ? a : scale;
  }
  FactoredCtx ctx = {f, z, ws->u};
  /* A team of opt->threads (kept across solves; for a problem large enough to use it,
     members woken now, spinning by the time the sweeps start). Without one, the same
     parts are swept in this thread. */
  const int T = opt->threads > 1 ? opt->threads : 1;
  ws->threads_now = T;
  if (T > 1 && lsim_team_size(ws->team) != T) {
    lsim_team_free(ws->team);
    if (lsim_team_create(&ws->team, T)) ws->team = NULL;
  }
  if (T > 1 && f->ncones >= PARALLEL_MIN_TASKS) lsim_team_wake(ws->team);
  /* The fast path checks what it reads; anything else is checked whole first. */
  const int W = fast_prepare(ws, f);
  if (W && partition(ws, f, W, T)) return finish(info, LSIM_OUT_OF_MEMORY, 0, INFINITY);
  if (W && info && ws->nparts)
    info->parts = ws->nparts, info->crossing = ws->tasks_n - ws->part[ws->nparts];
  if (W) return run_fast(ws, &ctx, W, scale > 0.0 ? scale : 1.0, opt, warm, z, info);
  if (lsim_factored_check(f)) return finish(info, LSIM_INVALID_INPUT, 0, INFINITY);
  if (m > 0) memset(ws->u, 0, (size_t)m * sizeof(double)); /* factored_diag needs u = 0 */
  return run(ws, &factored_backend, &ctx, n, f->ncones, f->cones, scale > 0.0 ? scale : 1.0,
             opt, warm, z, info);
}
