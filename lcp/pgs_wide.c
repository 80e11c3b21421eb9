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
  for (int j = 0; j < len; ++j) {
    g->Jn[j][l] = fc->Jn[j], g->J1[j][l] = fc->J1[j], g->J2[j][l] = fc->J2[j];
    g->Bn[j][l] = fc->Bn[j], g->B1[j][l] = fc->B1[j], g->B2[j][l] = fc->B2[j];
  }
  for (int j = len; j < WIDE_J; ++j)
    g->Jn[j][l] = g->J1[j][l] = g->J2[j][l] = g->Bn[j][l] = g->B1[j][l] = g->B2[j][l] = 0.0;
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

/* What an inert lane reads for its z. */
static const double wide_pad[FAST_W];

typedef double v2d __attribute__((vector_size(16)));
typedef long long v2i __attribute__((vector_size(16)));
typedef double v4d __attribute__((vector_size(32)));
typedef long long v4i __attribute__((vector_size(32)));

/* SSE2 (the x86-64 baseline; elsewhere whatever the compiler makes of pairs): two lanes
   at a time. */
#define WK_V v2d
#define WK_I v2i
#define WK_N 2
#define WK_NAME wide_groups_sse2
#define WK_ATTR
#include "pgs_wide_kernel.h"
#undef WK_V
#undef WK_I
#undef WK_N
#undef WK_NAME
#undef WK_ATTR

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
/* AVX2: four lanes at a time (not FMA: products and sums stay apart). */
#define WK_V v4d
#define WK_I v4i
#define WK_N 4
#define WK_NAME wide_groups_avx2
#define WK_ATTR __attribute__((target("avx2")))
#include "pgs_wide_kernel.h"
#undef WK_V
#undef WK_I
#undef WK_N
#undef WK_NAME
#undef WK_ATTR
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
