/* pgs_private.h: private to the PGS solver (pgs.c front, pgs_generic.c generic driver,
 * pgs_fast.c factored fast path, pgs_team.c parallel sweeps): the workspace, the packed
 * tables of the fast path, and the planar cone kernel both drivers inline. Not installed.
 * The math, references and failure modes are at the top of pgs.c. */
#ifndef LSIM_PGS_PRIVATE_H
#define LSIM_PGS_PRIVATE_H

#include <math.h>
#include <stddef.h>

#include "factored.h"
#include "lemke.h"
#include "pgs.h"
#include "team.h"

enum { LSIM_PGS_MAX_PLANAR = 64 }; /* planar cones with more directions use local Lemke */


struct LsimPgs {
  int capacity;
  double *w;    /* [capacity] maintained w = M z + q (factored: w of the last full pass) */
  double *inv;  /* [capacity] 1 / M_ii (0 for cone lambda variables) */
  int *block;   /* [capacity] cone index of a variable, -1 when scalar */
  double *tmp;  /* [2 capacity] projection scratch (the fast path: the exact residual's
                   products z_i w_i) */
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
  int tasks_vars; /* 1: the tasks take the variables 0 .. n-1 in their order (a cone's
                     normal, directions and lambda in a run): the exact residual then
                     measures each task's variables as it writes their rows (pgs_fast.c) */
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
  int *graph;   /* [graph_cap] scratch of lsim_pgs_partition() */
  int graph_cap;
  int *cone_o;  /* [2 cone_o_cap] each cone's block offsets in u (-1: none), compact for
                   lsim_pgs_partition() (written by whoever prepared the cone) */
  int cone_o_cap;
  int table_d;  /* the one direction count above 2 among the cones, whose table the
                   parallel stages share (0: none; -1: two or more, stages stay serial) */
  int threads_now; /* this solve's options.threads (1 when 0) */
  int last_W;      /* the block width of the last fast solve (0: none): the guess the
                      prepare stage builds the table at while it measures the width */
  /* Coloured wide sweep (pgs_wide.c): groups of 4 cones of one colour, SoA. */
  struct WideGroup *wide;  /* [wide_cap] (64-byte aligned) */
  void *wide_rows;         /* their rows and constants (pgs_wide.c), room for doubles */
  int wide_layout;         /* doubles or floats (pgs_wide.c) */
  float *wide_z;           /* [wide_cap * 24] the groups' z (pgs_wide.c, float layouts) */
  struct WideIdx *wide_idx; /* [wide_cap] the groups' variables in z (pgs_wide.c) */
  int wide_cap, wide_groups; /* wide_groups 0: not used by this solve */
  int *wide_order;  /* [wide_order_cap] the sweep order: the coloured cones colour by
                       colour (wide_ncol of them), then the other tasks in the natural order */
  int wide_order_cap, wide_ncol, wide_colours;
  int wide_nranges; /* ranges swept as units: 1 (all), or 2 T + 1 with parallel parts */
  int wide_range[2 * LSIM_PGS_MAX_THREADS + 1][5]; /* groups [0, 1), rest in wide_order
                                                       [2, 3); the range's first position 4 */
  int wide_path;    /* LSIM_PGS_SIMD_SCALAR, _SSE2, _AVX2, _AVX512 or _REFERENCE */
  int wide_arith_f; /* float layouts in single precision (pgs_wide.c): 0 no, 1 four lanes
                       on u, 2 eight lanes on u's float copy (one thread, AVX2) */
  float *wide_uf;   /* [wide_uf_n] u's float copy during the sweeps (wide_arith_f 2) */
  int wide_uf_cap, wide_uf_n;
  int wide_evex;    /* 1: the AVX2 path's kernels built on AVX-512VL's encoding (pgs_wide.c) */
  unsigned long long *wide_mask; /* [wide_mask_cap] per block of u: colours used */
  int wide_mask_cap;
};

/* ---- front (pgs.c) ---- */

/* Grows the workspace to n variables and m inner dimensions; no allocation when both fit. */
int lsim_pgs_reserve(LsimPgs *ws, int n, int m);
/* Fills info (when given) with status, sweeps and residual (INFINITY: no valid measures)
 * and returns status. */
int lsim_pgs_finish(LsimPgsInfo *info, int status, int sweeps, double residual);
/* A sweep's stop-test bookkeeping, shared by the generic and the fast driver: the trace
 * entry of sweep `sweeps` (when asked for and there is room); a natural residual that is
 * not finite is divergence: z is left finite (negative and non-finite entries to 0) and 1
 * returned, for the caller to report LSIM_BREAKDOWN. */
int lsim_pgs_after_sweep(LsimPgsInfo *info, int sweeps, double natural, double *z, int n);
/* 0 when opt is valid, else LSIM_INVALID_INPUT. */
int lsim_pgs_check_options(const LsimPgsOptions *opt);

/* ---- generic driver (pgs_generic.c) ---- */

typedef struct FactoredCtx {
  const LsimFactoredLcp *f;
  double *z;
  double *u; /* maintained u = B z; all zero on entry to the diagonal computation */
} FactoredCtx;

/* The generic driver on the factored form (ctx->u all zero), after the input checks and
 * lsim_pgs_reserve: what lsim_pgs_solve_factored falls back to off the fast path. */
int lsim_pgs_run_factored(LsimPgs *ws, FactoredCtx *ctx, double scale,
                          const LsimPgsOptions *opt, int warm, double *z, LsimPgsInfo *info);

/* ---- cone helpers shared by both drivers (inlined where they are used) ---- */

/* A cone whose friction lives in a plane with evenly spaced directions (see lcp.h). */
static inline int is_planar(const LsimConeBlock *cb) {
  return cb->uniform && cb->ndir <= LSIM_PGS_MAX_PLANAR &&
         (cb->ndir == 2 || (cb->ndir >= 4 && cb->ndir % 4 == 0));
}

/* The direction table for d directions (recomputed only when d changes). */
#if defined(__GNUC__)
__attribute__((unused))
#endif
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

/* ---- factored fast path (pgs_fast.c) and its parallel sweeps (pgs_team.c) ---- */

enum { FAST_W = 6 };

/* The largest fixed budget (sweeps at tol 0) swept on float rows. Their error (M, q and
   z rounded to float, about 1e-7 relative) sits far below what such budgets leave: the
   relative residuals of float and double rows differ by 0.06 % (box_stack_3d step 2)
   and 0.15 % (pile_100 step 59) after 100 sweeps, by 1.5 % after 500, while 10 000
   sweeps end at 5e-5 on floats against 5e-14 on doubles. docs/solvers.md. */

/* Problems with fewer tasks (cones and scalars) are swept in the natural order by one
 * thread ("parallel sweeps" below), and prepared by one. */
enum { PARALLEL_MIN_TASKS = 128 };


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
  int neg; /* d = 4 cones of width FAST_W: bit 0 when the rows Jn, J1 and J2 each have
              entries FAST_W .. FAST_W + 2 equal to the negatives of entries 0 .. 2, bit by
              bit (or one block: nothing there is read); bit 1 the same of Bn, B1, B2
              (pgs_wide.c then stores those entries once: "compact rows") */
  /* Rows of J and columns of B of the normal, p_0 and p_q, read in place from the
     problem's arrays (nb W entries each), or fast_zeros when absent. */
  const double *Jn, *J1, *J2, *Bn, *B1, *B2;
} FastCone;

/* Tasks order[begin .. end) swept, block width W (pgs_fast.c). */
void lsim_pgs_fast_sweep_range(LsimPgs *ws, const LsimFactoredLcp *f, double *z, double omega,
                               int W, const int *order, int begin, int end);
/* Sets ws->nparts, ws->part, ws->inner and ws->order for T members (nparts 0: natural
 * order); 0 or LSIM_OUT_OF_MEMORY (pgs_team.c). */
int lsim_pgs_partition(LsimPgs *ws, const LsimFactoredLcp *f, int W, int T);
/* Whether this solve's parts run on the team (else one thread does all). */
int lsim_pgs_team_on(const LsimPgs *ws);
/* sweeps sweeps of the parts: on the team in one hand-off, or in this thread in the same
 * order. */
void lsim_pgs_sweep_batch(LsimPgs *ws, const LsimFactoredLcp *f, double *z, double omega,
                          int W, int sweeps);
/* Colours the cone tasks (W = 6; with parallel parts each range of them on its own) and
 * packs the groups, their rows as floats
 * when single (and every value fits); sets ws->wide_groups (0: the problem keeps the
 * natural order). 0 or LSIM_OUT_OF_MEMORY (pgs_wide.c). */
int lsim_pgs_colour(LsimPgs *ws, const LsimFactoredLcp *f, int W, int single, int precision);
/* Range r of the coloured order (0: all tasks; with parallel parts 2k boundary k, 2k + 1
 * interior k, 2T the crossing set): its groups on the chosen path, then its rest. */
void lsim_pgs_wide_sweep_range(LsimPgs *ws, const LsimFactoredLcp *f, double *z, double omega,
                               int r);
/* Frees the coloured sweep's arrays. */
void lsim_pgs_wide_free(LsimPgs *ws);
/* Whether the coloured cones' z lives in the groups during the sweeps (float values, a
 * fixed budget, not the reference path): then lsim_pgs_wide_z_in copies z into the groups
 * before the first sweep, and lsim_pgs_wide_z_out copies them back into z before anything
 * else reads z (other entries of z are the sweep's own throughout). */
int lsim_pgs_wide_group_z(const LsimPgs *ws);
/* The values of J's and B's rows the groups store a cone (72, or 63 and 54 with compact
 * float rows); 0 without groups. */
int lsim_pgs_wide_row_values(const LsimPgs *ws);
void lsim_pgs_wide_z_in(LsimPgs *ws, const double *z);
void lsim_pgs_wide_z_out(const LsimPgs *ws, double *z);
/* One sweep: the natural order, or the parts' order. */
void lsim_pgs_sweep_all(LsimPgs *ws, const LsimFactoredLcp *f, double *z, double omega, int W);

#endif
