/* pgs_wide.c: the coloured wide sweep of the PGS fast path (one thread, block width 6,
 * planar cones of 4 directions): graph colouring of the cones, their packing in groups of
 * four lanes, and the four-lane kernel, compiled for SSE2 (the x86-64 baseline) and for
 * AVX2, chosen at run time. Math: pgs.c ("coloured wide sweep").
 *
 * Colouring. Cones of one colour share no block of u that is written (a missing second
 * block reads the zero pad after u and is never written), and each has its own entries of
 * z: their updates commute, so a colour swept in any order, or four cones at once, gives
 * the iterate of the Gauss-Seidel sweep over that colour one cone at a time. The colours
 * come greedily in the natural task order (the lowest colour free on both blocks, at most
 * WIDE_MAX_COLOURS; a cone that finds none stays with the rest): deterministic.
 *
 * Kernel. Per lane the arithmetic of fast_sweep (pgs_fast.c) for such a cone, operation
 * for operation: the three dot products with two accumulators each (even and odd
 * entries, as its pairs of doubles), the normal update, planar_target's d = 4 square
 * with every branch computed and the result selected by masks (the edge candidates and the
 * running best exactly as its loop), the relaxation, and the column updates (kept only
 * where a delta is non-zero, as fast_sweep skips them). Products of the zero rows of a
 * missing block add +0 or -0 to an accumulator that started at +0 and so is never -0:
 * no change. No fused multiply-add (C11 mode: no contraction; the AVX2 target is not FMA),
 * and IEEE division and square-free arithmetic are exact per lane: the three paths give
 * the same bits, the scalar one being fast_sweep itself over the coloured order. */
#include "pgs_private.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { WIDE_MAX_COLOURS = 64, WIDE_LANES = 4, WIDE_J = 2 * FAST_W };

/* Problems with fewer cones that fit keep the natural order. */
enum { WIDE_MIN_CONES = 16 };

/* Four cones of one colour, structure of arrays: entry [j][l] is lane l's. */
typedef struct WideGroup {
  _Alignas(64) double Jn[WIDE_J][WIDE_LANES];
  double J1[WIDE_J][WIDE_LANES], J2[WIDE_J][WIDE_LANES];
  double Bn[WIDE_J][WIDE_LANES], B1[WIDE_J][WIDE_LANES], B2[WIDE_J][WIDE_LANES];
  double inv_n[WIDE_LANES], qn[WIDE_LANES], q1[WIDE_LANES], q2[WIDE_LANES];
  double gn1[WIDE_LANES], gn2[WIDE_LANES], mu[WIDE_LANES];
  double a11[WIDE_LANES], a12[WIDE_LANES], a22[WIDE_LANES], a3[WIDE_LANES];
  int o0[WIDE_LANES], o1[WIDE_LANES]; /* block offsets in u (m: the pad) */
  int two[WIDE_LANES];                /* the second block is written */
  int normal[WIDE_LANES], b0[WIDE_LANES], L[WIDE_LANES];
  int lanes;                          /* real lanes, 1 .. 4 (the rest inert) */
} WideGroup;

void lsim_pgs_wide_free(LsimPgs *ws) {
  free(ws->wide);
  free(ws->wide_order);
  free(ws->wide_mask);
}

/* Whether cone c takes part: 4 directions, a normal, blocks aligned to W. */
static int wide_fits(const LsimPgs *ws, int c, int m, int W) {
  const FastCone *fc = &ws->fc[c];
  const int oa = ws->cone_o[2 * c], ob = ws->cone_o[2 * c + 1];
  return fc->d == 4 && fc->normal >= 0 && oa >= 0 && oa % W == 0 && oa < m &&
         (ob < 0 || (ob % W == 0 && ob < m));
}

/* Lane l of group g from cone c. */
static void pack_lane(WideGroup *g, int l, const FastCone *fc, int m) {
  const int len = fc->nb * FAST_W;
  for (int j = 0; j < WIDE_J; ++j) {
    const int in = j < len;
    g->Jn[j][l] = in ? fc->Jn[j] : 0.0, g->J1[j][l] = in ? fc->J1[j] : 0.0;
    g->J2[j][l] = in ? fc->J2[j] : 0.0, g->Bn[j][l] = in ? fc->Bn[j] : 0.0;
    g->B1[j][l] = in ? fc->B1[j] : 0.0, g->B2[j][l] = in ? fc->B2[j] : 0.0;
  }
  g->inv_n[l] = fc->inv_n, g->qn[l] = fc->qn, g->q1[l] = fc->q1, g->q2[l] = fc->q2;
  g->gn1[l] = fc->gn1, g->gn2[l] = fc->gn2, g->mu[l] = fc->mu;
  g->a11[l] = fc->A[0], g->a12[l] = fc->A[1], g->a22[l] = fc->A[2], g->a3[l] = fc->A[3];
  g->o0[l] = fc->o[0], g->o1[l] = fc->nb > 1 ? fc->o[1] : m, g->two[l] = fc->nb > 1;
  g->normal[l] = fc->normal, g->b0[l] = fc->b0, g->L[l] = fc->L;
}

/* An inert lane: zero rows and constants, both blocks on the pad, nothing written. */
static void pack_inert(WideGroup *g, int l, int m) {
  for (int j = 0; j < WIDE_J; ++j)
    g->Jn[j][l] = g->J1[j][l] = g->J2[j][l] = g->Bn[j][l] = g->B1[j][l] = g->B2[j][l] = 0.0;
  g->inv_n[l] = g->qn[l] = g->q1[l] = g->q2[l] = g->gn1[l] = g->gn2[l] = g->mu[l] = 0.0;
  g->a11[l] = 1.0, g->a12[l] = 0.0, g->a22[l] = 1.0, g->a3[l] = 1.0;
  g->o0[l] = g->o1[l] = m, g->two[l] = 0;
  g->normal[l] = g->b0[l] = g->L[l] = -1;
}

static int pick_path(void) {
  const char *e = getenv("LSIM_SIMD");
  int want = LSIM_PGS_SIMD_AVX2;
  if (e && !strcmp(e, "scalar")) want = LSIM_PGS_SIMD_SCALAR;
  else if (e && !strcmp(e, "sse2")) want = LSIM_PGS_SIMD_SSE2;
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  if (want == LSIM_PGS_SIMD_AVX2 && !__builtin_cpu_supports("avx2")) want = LSIM_PGS_SIMD_SSE2;
#else
  if (want == LSIM_PGS_SIMD_AVX2) want = LSIM_PGS_SIMD_SSE2;
#endif
  return want;
}

int lsim_pgs_colour(LsimPgs *ws, const LsimFactoredLcp *f, int W) {
  ws->wide_groups = 0, ws->wide_ncol = 0, ws->wide_colours = 0;
  const int nt = ws->tasks_n, m = f->m, nblk = m / FAST_W;
  if (W != FAST_W || ws->nparts || f->ncones < WIDE_MIN_CONES) return 0;
  int nfit = 0;
  for (int t = 0; t < nt; ++t) nfit += ws->tasks[t] >= 0 && wide_fits(ws, ws->tasks[t], m, W);
  if (nfit < WIDE_MIN_CONES) return 0;
  /* Scratch: each task's colour (-1: the rest) in wide_order's second half. */
  if (lsim_grow((void **)&ws->wide_order, &ws->wide_order_cap, 2 * nt, sizeof(int)) ||
      lsim_grow((void **)&ws->wide_mask, &ws->wide_mask_cap, nblk, sizeof(unsigned long long)))
    return LSIM_OUT_OF_MEMORY;
  int *colour = ws->wide_order + nt;
  unsigned long long *mask = ws->wide_mask;
  memset(mask, 0, (size_t)nblk * sizeof *mask);
  int count[WIDE_MAX_COLOURS] = {0}, ncol = 0;
  for (int t = 0; t < nt; ++t) {
    const int c = ws->tasks[t];
    colour[t] = -1;
    if (c < 0 || !wide_fits(ws, c, m, W)) continue;
    const int a = ws->cone_o[2 * c] / W, b = ws->cone_o[2 * c + 1] >= 0 ? ws->cone_o[2 * c + 1] / W : -1;
    const unsigned long long used = mask[a] | (b >= 0 ? mask[b] : 0ULL);
    if (used == ~0ULL) continue;
    const int k = __builtin_ctzll(~used);
    mask[a] |= 1ULL << k;
    if (b >= 0) mask[b] |= 1ULL << k;
    colour[t] = k, count[k]++;
    ncol = k + 1 > ncol ? k + 1 : ncol;
  }
  /* Groups: colour after colour, ceil(count / 4) each. */
  int groups = 0;
  for (int k = 0; k < ncol; ++k) groups += (count[k] + WIDE_LANES - 1) / WIDE_LANES;
  if (groups > ws->wide_cap) {
    void *p = NULL;
    if (posix_memalign(&p, 64, (size_t)groups * sizeof(WideGroup))) return LSIM_OUT_OF_MEMORY;
    free(ws->wide);
    ws->wide = p, ws->wide_cap = groups;
  }
  /* Each colour's first position in the order and first group. */
  int pos[WIDE_MAX_COLOURS], grp[WIDE_MAX_COLOURS];
  for (int k = 0, p = 0, g = 0; k < ncol; ++k) {
    pos[k] = p, grp[k] = g;
    p += count[k], g += (count[k] + WIDE_LANES - 1) / WIDE_LANES;
  }
  int ncoloured = 0;
  for (int k = 0; k < ncol; ++k) ncoloured += count[k];
  int rest = ncoloured;
  for (int t = 0; t < nt; ++t) {
    const int k = colour[t];
    if (k < 0) {
      ws->wide_order[rest++] = ws->tasks[t];
      continue;
    }
    ws->wide_order[pos[k]++] = ws->tasks[t];
  }
  /* Pack the groups from the coloured order (each colour's cones, four by four). */
  for (int k = 0, p = 0; k < ncol; ++k) {
    for (int s = 0; s < count[k]; s += WIDE_LANES) {
      WideGroup *g = &ws->wide[grp[k] + s / WIDE_LANES];
      const int lanes = count[k] - s < WIDE_LANES ? count[k] - s : WIDE_LANES;
      g->lanes = lanes;
      for (int l = 0; l < WIDE_LANES; ++l) {
        if (l < lanes) pack_lane(g, l, &ws->fc[ws->wide_order[p + s + l]], m);
        else pack_inert(g, l, m);
      }
    }
    p += count[k];
  }
  ws->wide_groups = groups, ws->wide_ncol = ncoloured, ws->wide_colours = ncol;
  ws->wide_path = pick_path();
  return 0;
}

/* ---- the four-lane kernel ---- */

/* The vectors are passed only between inlined static functions: no ABI is involved (the
   warning is emitted at the end of the file, so it is off for all of it). */
#pragma GCC diagnostic ignored "-Wpsabi"

typedef double v4d __attribute__((vector_size(32)));
typedef long long v4i __attribute__((vector_size(32)));

#define WIDE_INLINE static inline __attribute__((always_inline))

WIDE_INLINE v4d ld4(const double *p) {
  v4d v;
  memcpy(&v, p, sizeof v);
  return v;
}
WIDE_INLINE v4d sel(v4i m, v4d a, v4d b) { return (v4d)(((v4i)a & m) | ((v4i)b & ~m)); }
WIDE_INLINE v4d vabs(v4d x) {
  const v4i keep = {LLONG_MAX, LLONG_MAX, LLONG_MAX, LLONG_MAX};
  return (v4d)((v4i)x & keep);
}
WIDE_INLINE v4d max0(v4d x) {
  const v4d zero = {0.0, 0.0, 0.0, 0.0};
  return sel(x > zero, x, zero);
}

/* edge_best (pgs_private.h) on four lanes, the edge from (c0, s0) to (c1, s1): the
 * objective into *phi, the edge parameter returned (inputs by pointer: no vector ABI). */
typedef struct EdgeIn {
  v4d R, a11, a12, a22, r1, r2;
} EdgeIn;

WIDE_INLINE v4d edge4(const EdgeIn *in, double c0, double s0, double c1, double s1, v4d *phi) {
  const v4d R = in->R, a11 = in->a11, a12 = in->a12, a22 = in->a22, r1 = in->r1, r2 = in->r2;
  const v4d zero = {0.0, 0.0, 0.0, 0.0}, one = {1.0, 1.0, 1.0, 1.0}, half = {0.5, 0.5, 0.5, 0.5};
  const v4d v1k = R * c0, v2k = R * s0;
  const v4d e1 = R * c1 - v1k, e2 = R * s1 - v2k;
  const v4d Ae1 = a11 * e1 + a12 * e2, Ae2 = a12 * e1 + a22 * e2;
  const v4d gv = e1 * (a11 * v1k + a12 * v2k + r1) + e2 * (a12 * v1k + a22 * v2k + r2);
  const v4d curv = e1 * Ae1 + e2 * Ae2;
  v4d sk = sel(curv > zero, -gv / curv, sel(gv < zero, one, zero));
  sk = sel(sk < zero, zero, sel(sk > one, one, sk));
  const v4d p1 = v1k + sk * e1, p2 = v2k + sk * e2;
  *phi = half * (p1 * (a11 * p1 + a12 * p2) + p2 * (a12 * p1 + a22 * p2)) + r1 * p1 + r2 * p2;
  return sk;
}

/* One group: gather, update, scatter. */
WIDE_INLINE void wide_group(const WideGroup *g, double *u, double *z, double omega_s) {
  const v4d zero = {0.0, 0.0, 0.0, 0.0}, one = {1.0, 1.0, 1.0, 1.0};
  const v4d omega = {omega_s, omega_s, omega_s, omega_s};
  const double *p0[WIDE_LANES], *p1[WIDE_LANES];
  for (int l = 0; l < WIDE_LANES; ++l) p0[l] = u + g->o0[l], p1[l] = u + g->o1[l];
  /* u's two blocks, lane by lane. */
  v4d U[WIDE_J];
  for (int j = 0; j < FAST_W; ++j) {
    U[j] = (v4d){p0[0][j], p0[1][j], p0[2][j], p0[3][j]};
    U[FAST_W + j] = (v4d){p1[0][j], p1[1][j], p1[2][j], p1[3][j]};
  }
  /* z: normal, beta, lambda (inert lanes: zeros). */
  double zs[6][WIDE_LANES];
  for (int l = 0; l < WIDE_LANES; ++l) {
    if (l < g->lanes) {
      zs[0][l] = z[g->normal[l]];
      for (int k = 0; k < 4; ++k) zs[1 + k][l] = z[g->b0[l] + k];
      zs[5][l] = z[g->L[l]];
    } else {
      for (int k = 0; k < 6; ++k) zs[k][l] = 0.0;
    }
  }
  /* The three dot products, even and odd entries apart (fast_sweep's pairs). */
  v4d en = zero, on = zero, e1 = zero, o1 = zero, e2 = zero, o2 = zero;
  for (int j = 0; j < WIDE_J; j += 2) {
    en = en + ld4(g->Jn[j]) * U[j], on = on + ld4(g->Jn[j + 1]) * U[j + 1];
    e1 = e1 + ld4(g->J1[j]) * U[j], o1 = o1 + ld4(g->J1[j + 1]) * U[j + 1];
    e2 = e2 + ld4(g->J2[j]) * U[j], o2 = o2 + ld4(g->J2[j + 1]) * U[j + 1];
  }
  const v4d vn = en + on;
  v4d v1 = e1 + o1, v2 = e2 + o2;
  v1 = v1 + ld4(g->q1), v2 = v2 + ld4(g->q2);
  /* The normal. */
  const v4d zo = ld4(zs[0]);
  const v4d zn = max0(zo - omega * (vn + ld4(g->qn)) * ld4(g->inv_n));
  const v4d dn = zn - zo;
  v1 = v1 + ld4(g->gn1) * dn, v2 = v2 + ld4(g->gn2) * dn;
  const v4d R = ld4(g->mu) * max0(zn);
  /* planar_target, d = 4, with the precomputed 1 / det. */
  const v4d a11 = ld4(g->a11), a12 = ld4(g->a12), a22 = ld4(g->a22), a3 = ld4(g->a3);
  const v4d b0 = ld4(zs[1]), b1 = ld4(zs[2]), b2 = ld4(zs[3]), b3 = ld4(zs[4]);
  const v4d f1 = b0 - b2, f2 = b1 - b3;
  const v4d r1 = v1 - (a11 * f1 + a12 * f2), r2 = v2 - (a12 * f1 + a22 * f2);
  const v4i known = (R > zero) & (a3 != zero);
  const v4d g1 = sel(known, -(a22 * r1 - a12 * r2) * a3, zero);
  const v4d g2 = sel(known, -(-a12 * r1 + a11 * r2) * a3, zero);
  const v4i inside = known & (vabs(g1) + vabs(g2) <= R);
  const v4i iszero = R <= zero;
  /* The edges: candidates as planar_target picks them, every edge computed. */
  const v4i viol0 = g1 + g2 > R, viol1 = -g1 + g2 > R, viol2 = -g1 - g2 > R, viol3 = g1 - g2 > R;
  const v4i narrow = known & (viol0 | viol1 | viol2 | viol3);
  const v4i cand[4] = {viol0 | ~narrow, viol1 | ~narrow, viol2 | ~narrow, viol3 | ~narrow};
  static const double cs[5] = {1.0, 0.0, -1.0, 0.0, 1.0}, sn[5] = {0.0, 1.0, 0.0, -1.0, 0.0};
  const v4d inf = {INFINITY, INFINITY, INFINITY, INFINITY};
  v4d best = inf, bests = zero;
  v4i bestk = {0, 0, 0, 0};
  const EdgeIn ein = {R, a11, a12, a22, r1, r2};
  for (int k = 0; k < 4; ++k) {
    v4d phi;
    const v4d sk = edge4(&ein, cs[k], sn[k], cs[k + 1], sn[k + 1], &phi);
    const v4i take = cand[k] & (phi < best);
    const v4i kk = {k, k, k, k};
    best = sel(take, phi, best), bests = sel(take, sk, bests);
    bestk = (kk & take) | (bestk & ~take);
  }
  v4d t[4];
  const v4d on_k = R * (one - bests), on_next = zero + R * bests;
  for (int k = 0; k < 4; ++k) {
    const v4i kk = {k, k, k, k}, kp = {(k + 3) & 3, (k + 3) & 3, (k + 3) & 3, (k + 3) & 3};
    t[k] = sel(bestk == kk, on_k, sel(bestk == kp, on_next, zero));
  }
  const v4d eg1 = t[0] - t[2], eg2 = t[1] - t[3];
  /* Inside: the targets of g; zero: none. */
  const v4d ti[4] = {sel(g1 > zero, g1, zero), sel(g2 > zero, g2, zero),
                     sel(g1 < zero, -g1, zero), sel(g2 < zero, -g2, zero)};
  for (int k = 0; k < 4; ++k) t[k] = sel(iszero, zero, sel(inside, ti[k], t[k]));
  const v4d G1 = sel(iszero, zero, sel(inside, g1, eg1));
  const v4d G2 = sel(iszero, zero, sel(inside, g2, eg2));
  const v4d u1 = a11 * G1 + a12 * G2 + r1, u2 = a12 * G1 + a22 * G2 + r2;
  const v4d m1 = vabs(u1), m2 = vabs(u2);
  const v4d t4 = sel(m1 > m2, m1, m2);
  /* Relaxation. */
  const v4d nb0 = max0(b0 + omega * (t[0] - b0)), nb1 = max0(b1 + omega * (t[1] - b1));
  const v4d nb2 = max0(b2 + omega * (t[2] - b2)), nb3 = max0(b3 + omega * (t[3] - b3));
  const v4d df1 = (nb0 - b0) - (nb2 - b2), df2 = (nb1 - b1) - (nb3 - b3);
  const v4d zl = ld4(zs[5]);
  const v4d nl = max0(zl + omega * (t4 - zl));
  /* u's columns, where a delta is non-zero. */
  const v4i still = (dn == zero) & (df1 == zero) & (df2 == zero);
  for (int j = 0; j < WIDE_J; ++j)
    U[j] = sel(still, U[j], U[j] + ld4(g->Bn[j]) * dn + ld4(g->B1[j]) * df1 + ld4(g->B2[j]) * df2);
  /* Scatter. */
  for (int l = 0; l < g->lanes; ++l) {
    double *q0 = u + g->o0[l];
    for (int j = 0; j < FAST_W; ++j) q0[j] = U[j][l];
    if (g->two[l]) {
      double *q1 = u + g->o1[l];
      for (int j = 0; j < FAST_W; ++j) q1[j] = U[FAST_W + j][l];
    }
    z[g->normal[l]] = zn[l];
    double *beta = z + g->b0[l];
    beta[0] = nb0[l], beta[1] = nb1[l], beta[2] = nb2[l], beta[3] = nb3[l];
    z[g->L[l]] = nl[l];
  }
}

static void wide_groups_sse2(const WideGroup *g, int ng, double *u, double *z, double omega) {
  for (int k = 0; k < ng; ++k) wide_group(g + k, u, z, omega);
}

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
__attribute__((target("avx2"))) static void wide_groups_avx2(const WideGroup *g, int ng,
                                                              double *u, double *z,
                                                              double omega) {
  for (int k = 0; k < ng; ++k) wide_group(g + k, u, z, omega);
}
#define WIDE_HAVE_AVX2 1
#else
#define WIDE_HAVE_AVX2 0
#endif


void lsim_pgs_wide_sweep(LsimPgs *ws, const LsimFactoredLcp *f, double *z, double omega) {
  const int nt = ws->tasks_n;
  if (ws->wide_path == LSIM_PGS_SIMD_SCALAR) {
    lsim_pgs_fast_sweep_range(ws, f, z, omega, FAST_W, ws->wide_order, 0, nt);
    return;
  }
#if WIDE_HAVE_AVX2
  if (ws->wide_path == LSIM_PGS_SIMD_AVX2)
    wide_groups_avx2(ws->wide, ws->wide_groups, ws->u, z, omega);
  else
#endif
    wide_groups_sse2(ws->wide, ws->wide_groups, ws->u, z, omega);
  lsim_pgs_fast_sweep_range(ws, f, z, omega, FAST_W, ws->wide_order, ws->wide_ncol, nt);
}
