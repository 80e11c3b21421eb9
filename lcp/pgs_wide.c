/* pgs_wide.c: the coloured wide sweep of the PGS fast path (one thread, block width 6,
 * planar cones of 4 directions with a normal): graph colouring of the cones, their packing
 * in groups of four lanes, and one kernel (pgs_wide_kernel.h) compiled four times:
 * scalar (one lane), SSE2 (two; the x86-64 baseline), AVX2 (four) and AVX-512 (eight: two
 * groups of one colour), chosen at run time. Math and figures: pgs.c ("coloured wide
 * sweep"), docs/solvers.md.
 *
 * Colouring. Cones of one colour share no block of u that is written (a missing second
 * block reads the zero pad after u and is never written), and each has its own entries of
 * z: their updates commute, so a colour swept in any order, or four cones at once, gives
 * the iterate of the Gauss-Seidel sweep over that colour one cone at a time. The natural
 * task order is cut into windows of WIDE_WINDOW cones; in each, colours come greedily in
 * the natural order (the lowest colour free on both blocks, at most WIDE_MAX_COLOURS; a
 * cone that finds none stays with the rest, swept after all windows in the natural order
 * with the scalars and the cones of other shapes): deterministic.
 *
 * The AVX2 path runs a second build of the same four-lane source where the CPU has
 * AVX-512VL (target avx512f, avx512vl, avx512dq, 256-bit vectors only): the same
 * operations on the same lanes in the EVEX encoding, which has 32 vector registers
 * (the kernel spilled 140 of its values to the stack on 16) and mask registers for the
 * selects (one instruction where vpblendvb is three). LSIM_AVX2_EVEX=off keeps the VEX
 * build (a check: the same bits; docs/solvers.md, "Coloured wide sweep").
 *
 * Kernel. Per lane the arithmetic of fast_sweep (pgs_fast.c) for such a cone, operation
 * for operation: the three dot products with two accumulators each (even and odd
 * entries, as its pairs of doubles), the normal update, planar_target's d = 4 square
 * with every branch computed and the result selected by masks (the edge candidates and the
 * running best exactly as its loop), the relaxation, and the column updates (kept only
 * where a delta is non-zero, as fast_sweep skips them). Products of the zero rows of a
 * missing block add +0 or -0 to an accumulator that started at +0 and so is never -0:
 * no change. With double rows (a tolerance) a lane therefore computes what fast_sweep
 * computes for that cone (LSIM_SIMD=reference runs fast_sweep over the coloured order:
 * tests/test_parallel.c finds the same bits); with float rows (a fixed budget) the rows
 * are rounded once. B's rows are stored, not formed in the kernel from W per body (B =
 * W J'): measured twice, the same kernel time at 1000 bodies (a quarter less at 10 000)
 * for 27 % fewer bytes a cone, and a dumped step would need W too
 * (docs/solvers.md, "W's blocks in place of B's rows").
 * No fused multiply-add (C11 mode: no contraction; neither the AVX2 nor the AVX-512
 * target includes FMA), and IEEE arithmetic and division are exact per lane: the four
 * paths give the same bits (tests/test_parallel.c compares them). */
#include "pgs_private.h"

/* clang contracts a * b + c into an FMA by default, whatever the C mode, where a target
   has FMA (its avx512f implies it): not here, so that every path keeps the same bits. */
#if defined(__clang__)
#pragma clang fp contract(off)
#endif

#include <float.h>
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#endif
#include <limits.h>
#include <math.h>
#include <stdint.h>

/* The float rows' packing in pairs of SSE2 (the x86-64 baseline) where there is SSE2. */
#if defined(__GNUC__) && defined(__SSE2__) && (defined(__x86_64__) || defined(__i386__))
#define WIDE_SSE2_PACK 1
#else
#define WIDE_SSE2_PACK 0
#endif
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The AVX-512 kernel where the compiler can make it (x86 with GCC or clang). */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define WIDE_HAVE_AVX512 1
#else
#define WIDE_HAVE_AVX512 0
#endif

enum { WIDE_MAX_COLOURS = 64, WIDE_LANES = 4, WIDE_J = 2 * FAST_W };

/* Problems with fewer cones that fit keep the natural order. */
enum { WIDE_MIN_CONES = 16 };

/* Cones coloured together: the natural order is cut into windows of this many cones that
 * fit, each coloured on its own and swept colour by colour before the next window, so
 * that a window's blocks of u stay in the cache (one colouring of a whole large problem
 * sweeps all of u once per colour: twice slower than the natural order at 10 000 bodies). */
enum { WIDE_WINDOW = 512 };

/* How many groups ahead the kernel prefetches. */
enum { WIDE_PREFETCH = 8 };

/* Four cones of one colour, structure of arrays: entry [l] is lane l's. Their values are
 * apart, in ws->wide_rows: per group a block of the rows of J and B (normal, p_0, p_q; 12
 * entries each: Jn, J1, J2, Bn, B1, B2), then the constants (WIDE_META of them, below):
 * value (r, j, l) of row r at (r * WIDE_J + j) * WIDE_LANES + l, constant k of lane l at
 * (6 * WIDE_J + k) * WIDE_LANES + l. Doubles, or floats for a fixed budget (see pgs.c). */
typedef struct WideGroup {
  _Alignas(64) int o0[WIDE_LANES];
  int o1[WIDE_LANES];                 /* block offsets in u (m: the pad) */
  int two[WIDE_LANES];                /* the second block is written */
  int lanes;                          /* real lanes, 1 .. 4 (the rest inert) */
  int pair;                           /* 1: full, and the next group is of its colour
                                         (the AVX-512 kernel sweeps the two at once) */
} WideGroup;                          /* one cache line */

/* The lanes' variables in z (normal, first direction, lambda; -1 for an inert lane), apart
 * from the groups: the sweep with z in the groups never reads them. */
typedef struct WideIdx {
  int normal[WIDE_LANES], b0[WIDE_LANES], L[WIDE_LANES];
} WideIdx;

/* The constants per lane: 1 / M_nn, q of the normal and of p_0, p_q, the normal's column
 * on p_0 and p_q (gn1, gn2), mu, the tangent-plane inverse mass A_11, A_12, A_22 and
 * 1 / det. */
enum { WM_INV_N, WM_QN, WM_Q1, WM_Q2, WM_GN1, WM_GN2, WM_MU, WM_A11, WM_A12, WM_A22, WM_A3,
       WIDE_META };

/* The groups' value layouts: doubles (a tolerance) or floats (a fixed budget), the float
 * rows full or compact (below). */
enum { WIDE_DOUBLE, WIDE_FLOAT, WIDE_FLOAT_J, WIDE_FLOAT_JB };

/* Compact rows. A contact's row of J is [u, r_a x u] on body a and [-u, -(r_b x u)] on
 * body b (contact.c), so entries FAST_W .. FAST_W + 2 (the second block's first
 * WIDE_LIN) are the negatives of entries 0 .. 2, bit for bit; so are B's when the two
 * bodies' inverse masses are equal (B's linear parts u / m_a and -u / m_b). Where every
 * coloured cone's rows of J (normal, p_0, p_q) are so (FastCone.neg, measured as the
 * table is made), those rows store 9 of their 12 entries and the kernel negates the three
 * others (WIDE_KIND_J); where B's are so too, B's rows as well (WIDE_KIND_JB): 63 or 54
 * of the 72 values a cone instead of 72. A negation is exact (a float's is the float of
 * the negative, its double the negative of the double), so the kernel computes the same
 * bits as with the stored values. A cone with one block (the other the zero pad, never
 * written) counts as negated: the pad's entries of u are zeros, so the products there
 * are zeros of either sign, which leave every sum as it is (a sum that starts at +0 is
 * never -0), and that block's update is not written. Values per group by kind: */
enum { WIDE_KIND_FULL, WIDE_KIND_J, WIDE_KIND_JB, WIDE_LIN = 3 };
#define WIDE_ROW_SHORT(kind, r) \
  (((kind) >= WIDE_KIND_J && (r) < 3) || ((kind) == WIDE_KIND_JB && (r) >= 3))
#define WIDE_ROW_START(kind, r)                                                      \
  ((kind) == WIDE_KIND_FULL ? (r) * WIDE_J                                           \
   : (kind) == WIDE_KIND_JB ? (r) * (WIDE_J - WIDE_LIN)                              \
   : (r) < 3                ? (r) * (WIDE_J - WIDE_LIN)                              \
                            : 3 * (WIDE_J - WIDE_LIN) + ((r) - 3) * WIDE_J)
#define WIDE_VALS_OF(kind) ((WIDE_ROW_START(kind, 6) + WIDE_META) * WIDE_LANES)

/* Values per group at most: the six rows and the constants. */
enum { WIDE_VALS = WIDE_VALS_OF(WIDE_KIND_FULL) };

/* A layout's kind of rows and values per group. */
static inline int wide_kind(int layout) {
  return layout == WIDE_FLOAT_JB ? WIDE_KIND_JB : layout == WIDE_FLOAT_J ? WIDE_KIND_J : WIDE_KIND_FULL;
}
static inline int wide_vals(int layout) {
  const int kind = wide_kind(layout);
  return kind == WIDE_KIND_JB ? WIDE_VALS_OF(WIDE_KIND_JB)
         : kind == WIDE_KIND_J ? WIDE_VALS_OF(WIDE_KIND_J)
                               : WIDE_VALS_OF(WIDE_KIND_FULL);
}

/* Where entry j of row r is stored in a group of kind (in units of WIDE_LANES values), or
 * -1 when the kernel negates it from entry j - FAST_W. */
static inline int wide_at(int kind, int r, int j) {
  if (!WIDE_ROW_SHORT(kind, r)) return WIDE_ROW_START(kind, r) + j;
  if (j >= FAST_W && j < FAST_W + WIDE_LIN) return -1;
  return WIDE_ROW_START(kind, r) + (j >= FAST_W ? j - WIDE_LIN : j);
}

/* The groups' own copy of their z with float values (a fixed budget), WIDE_Z floats per
 * group: normal, beta_0 .. beta_3, lambda, each WIDE_LANES wide (z rounded to float once
 * on the way in, like the rows: far below what 20 sweeps leave). Read and written in the
 * sweep's order, one stream, instead of six scattered entries of z per cone (at 10 000
 * bodies z is 1.9 MB, and the sweep waited on those reads); z itself is brought up to
 * date when something reads it (lsim_pgs_wide_z_out). */
enum { WIDE_Z = 6 * WIDE_LANES };

void lsim_pgs_wide_free(LsimPgs *ws) {
  free(ws->wide);
  free(ws->wide_rows);
  free(ws->wide_z);
  free(ws->wide_idx);
  free(ws->wide_order);
  free(ws->wide_mask);
  free(ws->wide_uf);
}

int lsim_pgs_wide_group_z(const LsimPgs *ws) {
  return ws->wide_groups > 0 && ws->wide_layout != WIDE_DOUBLE && ws->wide_path != LSIM_PGS_SIMD_REFERENCE;
}

int lsim_pgs_wide_row_values(const LsimPgs *ws) {
  if (ws->wide_groups <= 0) return 0;
  return WIDE_ROW_START(wide_kind(ws->wide_layout), 6);
}

void lsim_pgs_wide_z_in(LsimPgs *ws, const double *z) {
  if (ws->wide_arith_f == 2)
    for (int i = 0; i < ws->wide_uf_n; ++i) ws->wide_uf[i] = (float)ws->u[i];
  for (int gi = 0; gi < ws->wide_groups; ++gi) {
    const WideGroup *g = &ws->wide[gi];
    const WideIdx *x = &ws->wide_idx[gi];
    float *gz = ws->wide_z + (size_t)gi * WIDE_Z;
    for (int l = 0; l < WIDE_LANES; ++l) {
      const int real = l < g->lanes;
      gz[l] = real ? (float)z[x->normal[l]] : 0.0f;
      for (int k = 0; k < 4; ++k) gz[(1 + k) * WIDE_LANES + l] = real ? (float)z[x->b0[l] + k] : 0.0f;
      gz[5 * WIDE_LANES + l] = real ? (float)z[x->L[l]] : 0.0f;
    }
  }
}

void lsim_pgs_wide_z_out(const LsimPgs *ws, double *z) {
  if (ws->wide_arith_f == 2)
    for (int i = 0; i < ws->wide_uf_n; ++i) ws->u[i] = ws->wide_uf[i];
  for (int gi = 0; gi < ws->wide_groups; ++gi) {
    const WideGroup *g = &ws->wide[gi];
    const WideIdx *x = &ws->wide_idx[gi];
    const float *gz = ws->wide_z + (size_t)gi * WIDE_Z;
    for (int l = 0; l < g->lanes; ++l) {
      z[x->normal[l]] = gz[l];
      for (int k = 0; k < 4; ++k) z[x->b0[l] + k] = gz[(1 + k) * WIDE_LANES + l];
      z[x->L[l]] = gz[5 * WIDE_LANES + l];
    }
  }
}

/* Whether cone c takes part: 4 directions, a normal, blocks aligned to W. */
static int wide_fits(const LsimPgs *ws, int c, int m, int W) {
  const FastCone *fc = &ws->fc[c];
  const int oa = ws->cone_o[2 * c], ob = ws->cone_o[2 * c + 1];
  return fc->d == 4 && fc->normal >= 0 && oa >= 0 && oa % W == 0 && oa < m &&
         (ob < 0 || (ob % W == 0 && ob < m));
}

/* Stores x as the layout's value type at dst; 1 when a float would not be finite. */
static inline int put_value(void *dst, size_t at, double x, int layout) {
  if (layout == WIDE_DOUBLE) {
    ((double *)dst)[at] = x;
    return 0;
  }
  ((float *)dst)[at] = (float)x;
  return !(fabs(x) <= FLT_MAX);
}

/* Lane l of group gi from cone fc (NULL: an inert lane, zero rows and constants but for
 * an identity A, both blocks on the pad, nothing written), in the layout's values. 0, or
 * -1 when a float value is not finite (a value beyond FLT_MAX). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int pack_lane(LsimPgs *ws, int gi, int l, const FastCone *fc, int m, int layout) {
  WideGroup *g = &ws->wide[gi];
  WideIdx *x = &ws->wide_idx[gi];
  const int nr = 6, vals = wide_vals(layout), kind = wide_kind(layout);
  const int len = fc ? fc->nb * FAST_W : 0;
  const double *src[6] = {NULL};
  if (fc) src[0] = fc->Jn, src[1] = fc->J1, src[2] = fc->J2, src[3] = fc->Bn, src[4] = fc->B1, src[5] = fc->B2;
  const size_t base = (size_t)gi * vals + l;
  void *v = ws->wide_rows;
  int bad = 0;
  /* The rows; entries after len (one block) are zeros. Each row into xr first, then its
     test (one for the row: every |value| <= FLT_MAX, which a NaN fails, as put_value's)
     and its values apart, loops without a branch. */
  for (int r = 0; r < nr; ++r) {
    double xr[WIDE_J];
    const double *row = xr;
    if (len == WIDE_J) {
      row = src[r];
    } else {
      memset(xr, 0, sizeof xr);
      if (len > 0) memcpy(xr, src[r], (size_t)len * sizeof(double));
    }
    if (layout == WIDE_DOUBLE) {
      double *dv = (double *)v + base + (size_t)r * WIDE_J * WIDE_LANES;
      for (int j = 0; j < WIDE_J; ++j) dv[(size_t)j * WIDE_LANES] = row[j];
      continue;
    }
    /* Floats (where there is SSE2 they are packed a group at a time, pack_group_f): the
       entries the kernel does not negate (a negated one is finite with its source). */
    float *fv = (float *)v + base;
    int ok = 1;
    for (int j = 0; j < WIDE_J; ++j) {
      const int at = wide_at(kind, r, j);
      if (at < 0) continue;
      ok &= fabs(row[j]) <= FLT_MAX;
      fv[(size_t)at * WIDE_LANES] = (float)row[j];
    }
    bad |= !ok;
  }
  /* The constants. */
  double k[WIDE_META] = {0.0};
  if (fc) {
    k[WM_INV_N] = fc->inv_n, k[WM_QN] = fc->qn, k[WM_Q1] = fc->q1, k[WM_Q2] = fc->q2;
    k[WM_GN1] = fc->gn1, k[WM_GN2] = fc->gn2, k[WM_MU] = fc->mu;
    k[WM_A11] = fc->A[0], k[WM_A12] = fc->A[1], k[WM_A22] = fc->A[2], k[WM_A3] = fc->A[3];
  } else {
    k[WM_A11] = 1.0, k[WM_A22] = 1.0, k[WM_A3] = 1.0;
  }
  for (int c = 0; c < WIDE_META; ++c)
    bad |= put_value(v, base + (size_t)(WIDE_ROW_START(kind, nr) + c) * WIDE_LANES, k[c], layout);
  if (!fc) {
    g->o0[l] = g->o1[l] = m, g->two[l] = 0;
    x->normal[l] = x->b0[l] = x->L[l] = -1;
    return bad ? -1 : 0;
  }
  g->o0[l] = fc->o[0], g->o1[l] = fc->nb > 1 ? fc->o[1] : m, g->two[l] = fc->nb > 1;
  x->normal[l] = fc->normal, x->b0[l] = fc->b0, x->L[l] = fc->L;
  return bad ? -1 : 0;
}

#if WIDE_SSE2_PACK
/* The finite test of the float packing. The rule: a group packs as floats when every value
 * it stores has |x| <= FLT_MAX as a double (false for a NaN). Tested on the floats
 * instead, |f| < FLT_MAX (strict; false for a NaN or an infinity), four lanes an
 * instruction where the doubles took two: rounding is monotone and FLT_MAX a float, so
 * a double with |x| >= FLT_MAX rounds to |f| >= FLT_MAX, and a group whose floats all
 * pass has every |x| < FLT_MAX. A group with a float that fails (a NaN, an infinity,
 * FLT_MAX itself) has its doubles tested by the rule (pack_group_exact): the same
 * verdict as the rule's every time. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline __m128 pack_test_f(__m128 ok, __m128 f) {
  return _mm_and_ps(ok, _mm_cmplt_ps(_mm_andnot_ps(_mm_set1_ps(-0.0f), f), _mm_set1_ps(FLT_MAX)));
}

/* One block of a row in four lanes (p0 .. p3, one lane's FAST_W entries each): its entries
 * from j0 stored as floats at dst (entry j at dst + j * WIDE_LANES), each value's four
 * lanes converted in pairs (cvtpd2ps rounds as cvtsd2ss does) and stored together; *okf
 * as pack_test_f. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void pack_block_f(const double *p0, const double *p1, const double *p2,
                                const double *p3, int j0, float *dst, __m128 *okf) {
  __m128 ok = *okf;
#pragma GCC unroll 6
  for (int j = j0; j < FAST_W; ++j) {
    const __m128d a = _mm_set_pd(p1[j], p0[j]), b = _mm_set_pd(p3[j], p2[j]);
    const __m128 f = _mm_movelh_ps(_mm_cvtpd_ps(a), _mm_cvtpd_ps(b));
    ok = pack_test_f(ok, f);
    _mm_storeu_ps(dst + (size_t)j * WIDE_LANES, f);
  }
  *okf = ok;
}

/* The rule of pack_test_f on the doubles of a group (lo, hi: each row's blocks per lane as
 * pack_group_f has them; kc: the lanes' constants): 1 when some stored value has
 * |x| > FLT_MAX or is a NaN. Run only where a float failed the quick test. */
static int pack_group_exact(const double *const lo[6][WIDE_LANES], const double *const hi[6][WIDE_LANES],
                            const FastCone *const kc[WIDE_LANES], int kind) {
  int ok = 1;
  for (int r = 0; r < 6; ++r)
    for (int l = 0; l < WIDE_LANES; ++l)
      for (int j = 0; j < FAST_W; ++j) {
        ok &= fabs(lo[r][l][j]) <= FLT_MAX;
        if (!(WIDE_ROW_SHORT(kind, r) && j < WIDE_LIN)) ok &= fabs(hi[r][l][j]) <= FLT_MAX;
      }
  for (int l = 0; l < WIDE_LANES; ++l) {
    const FastCone *c = kc[l];
    const double k[WIDE_META] = {c->inv_n, c->qn, c->q1, c->q2, c->gn1, c->gn2, c->mu,
                                 c->A[0], c->A[1], c->A[2], c->A[3]};
    for (int q = 0; q < WIDE_META; ++q) ok &= fabs(k[q]) <= FLT_MAX;
  }
  return !ok;
}

/* Group gi's four lanes at once in floats (fc[l] NULL: an inert lane, as pack_lane's):
 * each value of the four lanes converted and stored as one vector of four floats (one
 * store where pack_lane stores one float in four), the same floats and the same test.
 * 0, or -1 when a float value is not finite. Inlined with the layout a constant (a copy
 * each: the rows' loops then have fixed places). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int pack_group_f(LsimPgs *ws, int gi, const FastCone *const fc[WIDE_LANES], int m,
                               int layout) {
  static const double zeros[WIDE_J];
  WideGroup *g = &ws->wide[gi];
  WideIdx *x = &ws->wide_idx[gi];
  const int kind = wide_kind(layout);
  float *fv = (float *)ws->wide_rows + (size_t)gi * wide_vals(layout);
  /* Each row's two blocks apart: lo its first FAST_W entries, hi its second (the zeros
     after a row of one block, or an inert lane's, read in place: no padded copy). */
  const double *lo[6][WIDE_LANES], *hi[6][WIDE_LANES];
  for (int l = 0; l < WIDE_LANES; ++l) {
    const FastCone *c = fc[l];
    if (!c) {
      for (int r = 0; r < 6; ++r) lo[r][l] = hi[r][l] = zeros;
      continue;
    }
    const double *rows[6] = {c->Jn, c->J1, c->J2, c->Bn, c->B1, c->B2};
    const int two = c->nb * FAST_W == WIDE_J;
    for (int r = 0; r < 6; ++r) lo[r][l] = rows[r], hi[r][l] = two ? rows[r] + FAST_W : zeros;
  }
  /* The rows (pack_block_f): every |value| <= FLT_MAX (false for a NaN). The entries the
     kernel negates are not stored (finite with their sources). */
  __m128 okf = _mm_castsi128_ps(_mm_set1_epi32(-1));
#pragma GCC unroll 6
  for (int r = 0; r < 6; ++r) {
    /* The row's stored entries in turn (wide_at's places): the first block's FAST_W, then
       the second block's from entry 0, or from WIDE_LIN in a compact row; two loops of
       fixed counts (one loop with the skip inside was not unrolled: a test per entry). */
    float *dst = fv + (size_t)WIDE_ROW_START(kind, r) * WIDE_LANES;
    const int skip = WIDE_ROW_SHORT(kind, r) ? WIDE_LIN : 0;
    pack_block_f(lo[r][0], lo[r][1], lo[r][2], lo[r][3], 0, dst, &okf);
    pack_block_f(hi[r][0], hi[r][1], hi[r][2], hi[r][3], skip,
                 dst + (size_t)(FAST_W - skip) * WIDE_LANES, &okf);
  }
  /* The constants as pack_lane makes them (an inert lane's from inert_cone: zeros, an
     identity A), four lanes a store as the rows. */
  static const FastCone inert_cone = {.A = {1.0, 0.0, 1.0, 1.0}};
  const FastCone *kc[WIDE_LANES];
  for (int l = 0; l < WIDE_LANES; ++l) kc[l] = fc[l] ? fc[l] : &inert_cone;
  float *kdst = fv + (size_t)WIDE_ROW_START(kind, 6) * WIDE_LANES;
#define WIDE_PACK_CONST(q, field)                                                     \
  do {                                                                                \
    const __m128d a = _mm_set_pd(kc[1]->field, kc[0]->field);                       \
    const __m128d b = _mm_set_pd(kc[3]->field, kc[2]->field);                       \
    const __m128 f = _mm_movelh_ps(_mm_cvtpd_ps(a), _mm_cvtpd_ps(b));                 \
    okf = pack_test_f(okf, f);                                                        \
    _mm_storeu_ps(kdst + (q) * WIDE_LANES, f);                                        \
  } while (0)
  WIDE_PACK_CONST(WM_INV_N, inv_n);
  WIDE_PACK_CONST(WM_QN, qn);
  WIDE_PACK_CONST(WM_Q1, q1);
  WIDE_PACK_CONST(WM_Q2, q2);
  WIDE_PACK_CONST(WM_GN1, gn1);
  WIDE_PACK_CONST(WM_GN2, gn2);
  WIDE_PACK_CONST(WM_MU, mu);
  WIDE_PACK_CONST(WM_A11, A[0]);
  WIDE_PACK_CONST(WM_A12, A[1]);
  WIDE_PACK_CONST(WM_A22, A[2]);
  WIDE_PACK_CONST(WM_A3, A[3]);
#undef WIDE_PACK_CONST
  _Static_assert(WIDE_META == 11, "the constants packed above");
  const int bad = _mm_movemask_ps(okf) != 15 && pack_group_exact(lo, hi, kc, kind);
  /* The lanes' blocks and variables. */
  for (int l = 0; l < WIDE_LANES; ++l) {
    const FastCone *c = fc[l];
    if (!c) {
      g->o0[l] = g->o1[l] = m, g->two[l] = 0;
      x->normal[l] = x->b0[l] = x->L[l] = -1;
      continue;
    }
    g->o0[l] = c->o[0], g->o1[l] = c->nb > 1 ? c->o[1] : m, g->two[l] = c->nb > 1;
    x->normal[l] = c->normal, x->b0[l] = c->b0, x->L[l] = c->L;
  }
  return bad ? -1 : 0;
}
#endif

/* Whether the AVX2 path runs its EVEX build: the CPU has AVX-512F, VL and DQ, and
 * LSIM_AVX2_EVEX is not "off". */
static int pick_evex(void) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  const char *e = getenv("LSIM_AVX2_EVEX");
  if (e && !strcmp(e, "off")) return 0;
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512dq");
#else
  return 0;
#endif
}

static int pick_path(void) {
  const char *e = getenv("LSIM_SIMD");
  /* AVX2 unless asked: the AVX-512 path, at most 3 % faster a step at 1000 bodies, was
     4 % slower at 10 000 (docs/solvers.md, "Eight lanes"). */
  int want = LSIM_PGS_SIMD_AVX2;
  if (e && !strcmp(e, "scalar")) want = LSIM_PGS_SIMD_SCALAR;
  else if (e && !strcmp(e, "reference")) want = LSIM_PGS_SIMD_REFERENCE;
  else if (e && !strcmp(e, "sse2")) want = LSIM_PGS_SIMD_SSE2;
  else if (e && !strcmp(e, "avx512")) want = LSIM_PGS_SIMD_AVX512;
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  if (want == LSIM_PGS_SIMD_AVX512 &&
      !(WIDE_HAVE_AVX512 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")))
    want = LSIM_PGS_SIMD_AVX2;
  if (want == LSIM_PGS_SIMD_AVX2 && !__builtin_cpu_supports("avx2")) want = LSIM_PGS_SIMD_SSE2;
#else
  if (want == LSIM_PGS_SIMD_AVX512 || want == LSIM_PGS_SIMD_AVX2) want = LSIM_PGS_SIMD_SSE2;
#endif
  return want;
}

/* The end of the window that starts at position tb: WIDE_WINDOW cones that fit
 * (colour[t] != -1) or the end e of its range. */
static int window_end(const int *colour, int tb, int e) {
  int nf = 0, te = tb;
  for (; te < e && nf < WIDE_WINDOW; ++te) nf += colour[te] != -1;
  return te;
}

/* How many cones ahead the float packing asks for a cone's table entry, and for the rows
 * that entry points to (read then: the entry has come by). */
enum { PACK_AHEAD_ENTRY = 32, PACK_AHEAD_ROWS = 16 };

/* The packing's reads ahead: the table entry of the cone at wide_order position t +
 * PACK_AHEAD_ENTRY and the six rows of the one at t + PACK_AHEAD_ROWS, each while before
 * end (the window's last coloured position). The window's cones are packed colour by
 * colour, a permutation of the order the table and the rows were written in, so each
 * cone's entry and rows were a miss the hardware does not foresee (at 10 000 bodies the
 * entry's first loads and the rows' had most of pack_range's samples). */
#if defined(__GNUC__)
/* Inlined always: a call of it alone (loads and prefetches, no stores) GCC takes for a pure
   function's and drops. */
__attribute__((always_inline))
#endif
static inline void pack_prefetch(const LsimPgs *ws, int t, int end) {
#if defined(__GNUC__)
  if (t + PACK_AHEAD_ENTRY < end) {
    const char *e = (const char *)&ws->fc[ws->wide_order[t + PACK_AHEAD_ENTRY]];
    __builtin_prefetch(e), __builtin_prefetch(e + 64), __builtin_prefetch(e + 128);
    __builtin_prefetch(e + sizeof(FastCone) - 1);
  }
  if (t + PACK_AHEAD_ROWS < end) {
    const FastCone *c = &ws->fc[ws->wide_order[t + PACK_AHEAD_ROWS]];
    const size_t last = (size_t)c->nb * FAST_W * sizeof(double) - 1;
    const double *rows[6] = {c->Jn, c->J1, c->J2, c->Bn, c->B1, c->B2};
    for (int r = 0; r < 6; ++r)
      __builtin_prefetch(rows[r]), __builtin_prefetch((const char *)rows[r] + last);
  }
#else
  (void)ws, (void)t, (void)end;
#endif
}

/* Range r (positions [tb0, te0) of src, its groups from gi): the order and the groups,
 * window by window: a window's colours in turn, each colour's cones in the natural order,
 * four by four; the range's rest after its windows. 1 when a float value is not finite. */
static int pack_range(LsimPgs *ws, const int *src, const int *colour, int tb0, int te0, int gi,
                      int r, int m, int layout) {
  int bad = 0, nc = 0;
  for (int t = tb0; t < te0; ++t) nc += colour[t] >= 0;
  int p = tb0, rest = tb0 + nc;
  ws->wide_range[r][0] = gi, ws->wide_range[r][2] = rest, ws->wide_range[r][3] = te0;
  ws->wide_range[r][4] = tb0;
  for (int tb = tb0; tb < te0;) {
    const int te = window_end(colour, tb, te0);
    int count[WIDE_MAX_COLOURS] = {0}, pos[WIDE_MAX_COLOURS], first[WIDE_MAX_COLOURS];
    int grp[WIDE_MAX_COLOURS];
    for (int t = tb; t < te; ++t)
      if (colour[t] >= 0) count[colour[t]]++;
    for (int k = 0, q = p, g = gi; k < WIDE_MAX_COLOURS; ++k) {
      pos[k] = first[k] = q, grp[k] = g;
      q += count[k], g += (count[k] + WIDE_LANES - 1) / WIDE_LANES;
    }
    /* Each cone to its place, in the natural order; floats (with SSE2) are packed group
       by group below, four lanes a store (one lane at a time, one float in four, the
       packing had cost 6.6 % of a pile's step's cycles). */
    const int by_group = WIDE_SSE2_PACK && layout != WIDE_DOUBLE;
    for (int t = tb; t < te; ++t) {
      const int k = colour[t];
      if (k < 0) {
        ws->wide_order[rest++] = src[t];
        continue;
      }
      const int rank = pos[k] - first[k];
      ws->wide_order[pos[k]++] = src[t];
      if (by_group) continue;
      const int gl = grp[k] + rank / WIDE_LANES, ll = rank % WIDE_LANES;
      /* The layout a constant for the compiler (one copy of pack_lane each). */
      if (layout == WIDE_DOUBLE) bad |= pack_lane(ws, gl, ll, &ws->fc[src[t]], m, WIDE_DOUBLE);
      else bad |= pack_lane(ws, gl, ll, &ws->fc[src[t]], m, layout);
    }
    /* Lane counts; the last group of a colour padded with inert lanes. */
    const int coloured_end = pos[WIDE_MAX_COLOURS - 1];
    for (int k = 0; k < WIDE_MAX_COLOURS; ++k) {
      for (int s = 0; s < count[k]; s += WIDE_LANES) {
        const int lanes = count[k] - s < WIDE_LANES ? count[k] - s : WIDE_LANES;
        ws->wide[gi].lanes = lanes;
        /* Pairs from the colour's first group: 0-1, 2-3, ...; an odd last one alone. */
        ws->wide[gi].pair = s % (2 * WIDE_LANES) == 0 && s + WIDE_LANES < count[k];
#if WIDE_SSE2_PACK
        if (by_group) {
          for (int l = 0; l < WIDE_LANES; ++l) pack_prefetch(ws, first[k] + s + l, coloured_end);
          const FastCone *fc[WIDE_LANES];
          for (int l = 0; l < WIDE_LANES; ++l)
            fc[l] = l < lanes ? &ws->fc[ws->wide_order[first[k] + s + l]] : NULL;
          bad |= layout == WIDE_FLOAT_JB ? pack_group_f(ws, gi, fc, m, WIDE_FLOAT_JB)
                 : layout == WIDE_FLOAT_J ? pack_group_f(ws, gi, fc, m, WIDE_FLOAT_J)
                                          : pack_group_f(ws, gi, fc, m, WIDE_FLOAT);
          ++gi;
          continue;
        }
#endif
        for (int l = lanes; l < WIDE_LANES; ++l) pack_lane(ws, gi, l, NULL, m, layout);
        ++gi;
      }
      p += count[k];
    }
    tb = te;
  }
  ws->wide_range[r][1] = gi;
  return bad != 0;
}

/* The packing on the team: member k packs ranges 2k and 2k + 1, member 0 also 2T. */
typedef struct PackJob {
  LsimPgs *ws;
  const int *src, *colour, *rb, *re, *g0;
  int m, layout, nr;
  int bad[LSIM_PGS_MAX_THREADS];
} PackJob;

static void pack_part(void *arg, int member) {
  PackJob *j = arg;
  int bad = 0;
  if (2 * member + 1 >= j->nr - 1) return; /* a member without a part (none today) */
  for (int r = 2 * member; r <= 2 * member + 1; ++r)
    bad |= pack_range(j->ws, j->src, j->colour, j->rb[r], j->re[r], j->g0[r], r, j->m, j->layout);
  if (member == 0)
    bad |= pack_range(j->ws, j->src, j->colour, j->rb[j->nr - 1], j->re[j->nr - 1], j->g0[j->nr - 1],
                      j->nr - 1, j->m, j->layout);
  j->bad[member] = bad;
}

/* One range's colours (positions [b, e) of src): whether each cone fits (colour -1: does
 * not fit, -2: fits but found no free colour; both stay with the rest of the range),
 * then window by window the first colour free on both its blocks (mask: per block of u,
 * all zero before and after). Counts into *cnt. Every call passes W = FAST_W, a constant
 * (lsim_pgs_colour runs at that width alone): a W known only at run time had cost six
 * integer divisions a cone. */
typedef struct ColourCount {
  int nfit, neg, groups, ncoloured, ncol;
} ColourCount;

static void colour_range(const LsimPgs *ws, const int *src, int *colour, int b, int e, int m,
                         int W, unsigned long long *mask, ColourCount *cnt) {
  int nfit = 0, neg = 3, groups = 0, ncoloured = 0, ncol = 0;
  for (int t = b; t < e; ++t) {
    const int c = src[t], fits = c >= 0 && wide_fits(ws, c, m, W);
    colour[t] = fits ? -2 : -1;
    nfit += fits;
    if (fits) neg &= ws->fc[c].neg;
  }
  /* Colours, window by window (the masks cleared after each). */
  for (int tb = b; tb < e;) {
    const int te = window_end(colour, tb, e);
    int count[WIDE_MAX_COLOURS] = {0};
    for (int t = tb; t < te; ++t) {
      if (colour[t] == -1) continue;
      const int c = src[t];
      const int a = ws->cone_o[2 * c] / W, bb = ws->cone_o[2 * c + 1] >= 0 ? ws->cone_o[2 * c + 1] / W : a;
      const unsigned long long used = mask[a] | mask[bb];
      if (used == ~0ULL) continue;
      const int k = __builtin_ctzll(~used);
      mask[a] |= 1ULL << k, mask[bb] |= 1ULL << k;
      colour[t] = k, count[k]++;
    }
    for (int k = 0; k < WIDE_MAX_COLOURS; ++k) {
      groups += (count[k] + WIDE_LANES - 1) / WIDE_LANES, ncoloured += count[k];
      if (count[k]) ncol = k + 1 > ncol ? k + 1 : ncol;
    }
    for (int t = tb; t < te; ++t) {
      if (colour[t] == -1) continue;
      const int c = src[t];
      mask[ws->cone_o[2 * c] / W] = 0;
      if (ws->cone_o[2 * c + 1] >= 0) mask[ws->cone_o[2 * c + 1] / W] = 0;
    }
    tb = te;
  }
  *cnt = (ColourCount){nfit, neg, groups, ncoloured, ncol};
}

/* The colouring on the team: member k colours ranges 2k and 2k + 1 with masks of its own,
 * member 0 also the crossing set 2T (a range's colours depend on that range alone, so
 * the same colours as one thread's). */
typedef struct ColourJob {
  const LsimPgs *ws;
  const int *src, *rb, *re;
  int *colour;
  int m, W, nr, nblk;
  unsigned long long *mask; /* [nblk] per member */
  ColourCount cnt[2 * LSIM_PGS_MAX_THREADS + 1];
} ColourJob;

static void colour_part(void *arg, int member) {
  ColourJob *j = arg;
  unsigned long long *mask = j->mask + (size_t)member * j->nblk;
  if (2 * member + 1 >= j->nr - 1) return; /* a member without a part (none today) */
  for (int r = 2 * member; r <= 2 * member + 1; ++r)
    colour_range(j->ws, j->src, j->colour, j->rb[r], j->re[r], j->m, FAST_W, mask, &j->cnt[r]);
  if (member == 0)
    colour_range(j->ws, j->src, j->colour, j->rb[j->nr - 1], j->re[j->nr - 1], j->m, FAST_W, mask,
                 &j->cnt[j->nr - 1]);
}

int lsim_pgs_colour(LsimPgs *ws, const LsimFactoredLcp *f, int W, int single, int precision) {
  ws->wide_groups = 0, ws->wide_ncol = 0, ws->wide_colours = 0, ws->wide_nranges = 0;
  const int nt = ws->tasks_n, m = f->m, nblk = m / FAST_W;
  if (W != FAST_W || f->ncones < WIDE_MIN_CONES) return 0;
  /* The ranges swept as units: with parallel parts, boundary k (range 2k), interior k
     (2k + 1) and the crossing set (2T) of ws->order; else all tasks in the natural order. */
  const int *src = ws->nparts ? ws->order : ws->tasks;
  int rb[2 * LSIM_PGS_MAX_THREADS + 1], re[2 * LSIM_PGS_MAX_THREADS + 1], nr = 1;
  rb[0] = 0, re[0] = nt;
  if (ws->nparts) {
    const int T = ws->nparts;
    for (int k = 0; k < T; ++k) {
      rb[2 * k] = ws->part[k], re[2 * k] = ws->inner[k];
      rb[2 * k + 1] = ws->inner[k], re[2 * k + 1] = ws->part[k + 1];
    }
    rb[2 * T] = ws->part[T], re[2 * T] = nt, nr = 2 * T + 1;
  }
  /* Scratch: each position's colour in wide_order's second half; a mask per block of u
     for each member colouring. */
  const int team = ws->nparts && lsim_pgs_team_on(ws), nmask = team ? ws->nparts : 1;
  if (lsim_grow((void **)&ws->wide_order, &ws->wide_order_cap, 2 * nt, sizeof(int)) ||
      (long long)nblk * nmask > INT_MAX ||
      lsim_grow((void **)&ws->wide_mask, &ws->wide_mask_cap, nblk * nmask, sizeof(unsigned long long)))
    return LSIM_OUT_OF_MEMORY;
  ColourJob cj = {ws, src, rb, re, ws->wide_order + nt, m, W, nr, nblk, ws->wide_mask, {{0}}};
  memset(cj.mask, 0, (size_t)nblk * nmask * sizeof *cj.mask);
  if (team) lsim_team_run(ws->team, colour_part, &cj);
  else
    for (int r = 0; r < nr; ++r) colour_range(ws, src, cj.colour, rb[r], re[r], m, FAST_W, cj.mask, &cj.cnt[r]);
  /* The counts in range order; each range's first group. */
  int *colour = cj.colour;
  int nfit = 0, neg = 3, groups = 0, ncol = 0, ncoloured = 0, g0[2 * LSIM_PGS_MAX_THREADS + 1];
  for (int r = 0; r < nr; ++r) {
    const ColourCount *c = &cj.cnt[r];
    nfit += c->nfit, neg &= c->neg, g0[r] = groups, groups += c->groups;
    ncoloured += c->ncoloured, ncol = c->ncol > ncol ? c->ncol : ncol;
  }
  if (nfit < WIDE_MIN_CONES) return 0;
  if (groups > ws->wide_cap) {
    void *p = NULL, *rw = NULL, *gz = NULL, *ix = NULL;
    if (posix_memalign(&p, 64, (size_t)groups * sizeof(WideGroup))) return LSIM_OUT_OF_MEMORY;
    if (posix_memalign(&rw, 64, (size_t)groups * WIDE_VALS * sizeof(double)) ||
        posix_memalign(&gz, 64, (size_t)groups * WIDE_Z * sizeof(float)) ||
        posix_memalign(&ix, 64, (size_t)groups * sizeof(WideIdx))) {
      free(p), free(rw), free(gz);
      return LSIM_OUT_OF_MEMORY;
    }
    free(ws->wide), free(ws->wide_rows), free(ws->wide_z), free(ws->wide_idx);
    ws->wide = p, ws->wide_rows = rw, ws->wide_z = gz, ws->wide_idx = ix, ws->wide_cap = groups;
  }
  /* The layout: floats for a fixed budget, their rows compact where every cone's are
     negated (LSIM_WIDE_ROWS=full keeps them whole: a check); doubles for a tolerance. */
  const char *rows_env = getenv("LSIM_WIDE_ROWS");
  if (rows_env && !strcmp(rows_env, "full")) neg = 0;
  int layout = !single ? WIDE_DOUBLE : neg == 3 ? WIDE_FLOAT_JB : neg & 1 ? WIDE_FLOAT_J : WIDE_FLOAT;
  /* The order and the groups, range by range (with a team, each member its part's two
     ranges, member 0 the crossing set too: disjoint positions and groups, so the same
     result). Floats only when every value stays finite (else packed again as doubles). */
  PackJob job = {ws, src, colour, rb, re, g0, m, layout, nr, {0}};
  for (int pass = 0; pass < 2; ++pass) {
    int bad = 0;
    if (ws->nparts && lsim_pgs_team_on(ws)) {
      lsim_team_run(ws->team, pack_part, &job);
      for (int k = 0; k < ws->nparts; ++k) bad |= job.bad[k];
    } else {
      for (int r = 0; r < nr; ++r) bad |= pack_range(ws, src, colour, rb[r], re[r], g0[r], r, m, job.layout);
    }
    if (!(bad && job.layout != WIDE_DOUBLE)) break;
    job.layout = WIDE_DOUBLE;
  }
  layout = job.layout;
  ws->wide_groups = groups, ws->wide_ncol = ncoloured, ws->wide_colours = ncol;
  ws->wide_nranges = nr;
  ws->wide_path = pick_path();
  ws->wide_evex = ws->wide_path == LSIM_PGS_SIMD_AVX2 && pick_evex();
  ws->wide_layout = layout;
  /* Single precision (float values only; not on the reference path, a check of the double
     kernel): eight lanes on u's float copy where there is AVX2 and one thread, else four
     lanes on u (the same bits). */
  ws->wide_arith_f = layout == WIDE_DOUBLE || !precision || ws->wide_path == LSIM_PGS_SIMD_REFERENCE ? 0 : 1;
  if (ws->wide_arith_f && !ws->nparts && WIDE_HAVE_AVX512 &&
      (ws->wide_path == LSIM_PGS_SIMD_AVX2 || ws->wide_path == LSIM_PGS_SIMD_AVX512))
    ws->wide_arith_f = 2;
  if (ws->wide_arith_f == 2 &&
      lsim_grow((void **)&ws->wide_uf, &ws->wide_uf_cap, m + FAST_W, sizeof(float)))
    return LSIM_OUT_OF_MEMORY;
  ws->wide_uf_n = m + FAST_W;
  return 0;
}

/* ---- the four-lane kernel ---- */

/* The vectors are passed only between inlined static functions: no ABI is involved (the
   warning is emitted at the end of the file, so it is off for all of it). */
#pragma GCC diagnostic ignored "-Wpsabi"

/* What an inert lane reads for its z. */
static const double wide_pad[FAST_W];

typedef double v1d __attribute__((vector_size(8)));
typedef long long v1i __attribute__((vector_size(8)));
typedef float v1f __attribute__((vector_size(4)));
typedef double v2d __attribute__((vector_size(16)));
typedef long long v2i __attribute__((vector_size(16)));
typedef float v2f __attribute__((vector_size(8)));
typedef double v4d __attribute__((vector_size(32)));
typedef long long v4i __attribute__((vector_size(32)));
typedef float v4f __attribute__((vector_size(16)));
typedef double v8d __attribute__((vector_size(64)));
typedef long long v8i __attribute__((vector_size(64)));
typedef float v8f __attribute__((vector_size(32)));
typedef int v1si __attribute__((vector_size(4)));
typedef int v4si __attribute__((vector_size(16)));
typedef int v8si __attribute__((vector_size(32)));

/* The kernel for N lanes at a time and values stored as S: scalar (one lane, which GCC
   makes plain double arithmetic), SSE2 (two; the x86-64 baseline), AVX2 (four; products
   and sums apart, not FMA); each for the layouts: _d doubles, z by index; _f, _fj, _fjb
   floats (rows full, J's compact, J's and B's compact), z in the groups. The float
   kernels of one path differ only in WK_KIND; pgs_wide_set.h makes a path's four. */
#define WK_V v1d
#define WK_I v1i
#define WK_N 1
#define WK_ATTR
#define WS_DV v1d
#define WS_FV v1f
#define WS_PATH wide_scalar
#include "pgs_wide_set.h"

#define WK_V v2d
#define WK_I v2i
#define WK_N 2
#define WK_ATTR
#define WS_DV v2d
#define WS_FV v2f
#define WS_PATH wide_sse2
#include "pgs_wide_set.h"

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define WK_V v4d
#define WK_I v4i
#define WK_N 4
#define WK_ATTR __attribute__((target("avx2")))
#define WS_DV v4d
#define WS_FV v4f
#define WS_PATH wide_avx2
#define WS_LOAD_ROW(p) ((v4d)_mm256_cvtps_pd(_mm_loadu_ps(p)))
#include "pgs_wide_set.h"
#define WIDE_HAVE_AVX2 1
#else
#define WIDE_HAVE_AVX2 0
#endif

/* The AVX2 path's EVEX build: the four-lane source again for CPUs with AVX-512VL, 256-bit
   vectors only (prefer-vector-width keeps GCC's own vectorization off 512 bits). The same
   operations, so the same bits (no FMA in these targets either); 32 vector registers
   instead of 16 and mask registers for the selects: measured, docs/solvers.md. GCC's
   scheduling before register allocation (off by default on x86, where 16 registers make
   it spill) is asked for here, where 32 leave it room: the solve 3-4 % faster again. It
   moves instructions, not operations: the same bits. */
/* The EVEX builds' target: AVX-512VL with 256-bit vectors and GCC's early scheduling
   (clang has neither the vector-width key of the target nor the optimize attribute). */
#if defined(__clang__)
#define WIDE_EVEX_ATTR __attribute__((target("avx2,avx512f,avx512vl,avx512dq")))
#else
#define WIDE_EVEX_ATTR                                                                   \
  __attribute__((target("avx2,avx512f,avx512vl,avx512dq,prefer-vector-width=256"),           \
                 optimize("schedule-insns")))
#endif
#if WIDE_HAVE_AVX2 && WIDE_HAVE_AVX512
#define WK_V v4d
#define WK_I v4i
#define WK_N 4
#define WK_ATTR WIDE_EVEX_ATTR
#define WS_DV v4d
#define WS_FV v4f
#define WS_PATH wide_evex
#define WS_LOAD_ROW(p) ((v4d)_mm256_cvtps_pd(_mm_loadu_ps(p)))
#include "pgs_wide_set.h"
#define WIDE_HAVE_EVEX 1
#else
#define WIDE_HAVE_EVEX 0
#endif

/* Single-precision arithmetic (float layouts; u stays double, rounded to float as its
   blocks come in): four float lanes a vector on SSE2, AVX2 and its EVEX build, one on
   the scalar path. The same operations per lane on every path, so the same bits. */
#define WS_ARITH_F 1
#define WK_V v1f
#define WK_I v1si
#define WK_N 1
#define WK_ATTR
#define WS_DV v1d
#define WS_FV v1f
#define WS_PATH wide_scalar_s
#include "pgs_wide_set.h"

#define WS_ARITH_F 1
#define WK_V v4f
#define WK_I v4si
#define WK_N 4
#define WK_ATTR
#define WS_DV v4d
#define WS_FV v4f
#define WS_PATH wide_sse2_s
#include "pgs_wide_set.h"

#if WIDE_HAVE_AVX2
#define WS_ARITH_F 1
#define WK_V v4f
#define WK_I v4si
#define WK_N 4
#define WK_ATTR __attribute__((target("avx2")))
#define WS_DV v4d
#define WS_FV v4f
#define WS_PATH wide_avx2_s
#include "pgs_wide_set.h"
#endif

#if WIDE_HAVE_EVEX
#define WS_ARITH_F 1
#define WK_V v4f
#define WK_I v4si
#define WK_N 4
#define WK_ATTR WIDE_EVEX_ATTR
#define WS_DV v4d
#define WS_FV v4f
#define WS_PATH wide_evex_s
#include "pgs_wide_set.h"
#endif

/* u's float copy gathered eight lanes at a time (vgatherdps; the same loads). */
#define WIDE_G8(NAME, ATTR)                                                                     \
  ATTR __attribute__((always_inline)) static inline void NAME(v8f U[WIDE_J], const WideGroup *g, \
                                                             const float *u) {                  \
    const __m256i i0 = _mm256_inserti128_si256(                                                 \
        _mm256_castsi128_si256(_mm_load_si128((const __m128i *)g[0].o0)),                       \
        _mm_load_si128((const __m128i *)g[1].o0), 1);                                           \
    const __m256i i1 = _mm256_inserti128_si256(                                                 \
        _mm256_castsi128_si256(_mm_load_si128((const __m128i *)g[0].o1)),                       \
        _mm_load_si128((const __m128i *)g[1].o1), 1);                                           \
    for (int j = 0; j < FAST_W; ++j) {                                                          \
      U[j] = (v8f)_mm256_i32gather_ps(u + j, i0, 4);                                            \
      U[FAST_W + j] = (v8f)_mm256_i32gather_ps(u + j, i1, 4);                                   \
    }                                                                                           \
  }
/* The same with u's float copy (LSIM_PGS_ARITH=float-u, float8-u; one thread): u's blocks
   read and written as floats, no conversion in the kernel. */
#if WIDE_HAVE_AVX2
#define WS_ARITH_F 1
#define WS_UF 1
#define WK_V v4f
#define WK_I v4si
#define WK_N 4
#define WK_ATTR __attribute__((target("avx2")))
#define WS_DV v4d
#define WS_FV v4f
#define WS_PATH wide_avx2_u
#include "pgs_wide_set.h"
WIDE_G8(wide_g8_avx2, __attribute__((target("avx2"))))
#define W8_UF 1
#define W8_GATHER(U, g, u) wide_g8_avx2(U, g, u)
#define W8_ATTR __attribute__((target("avx2")))
#define W8_PATH wide_avx2_8u
#define W8_LONE wide_avx2_u
#include "pgs_wide_set8.h"
#endif
#if WIDE_HAVE_EVEX
#define WS_ARITH_F 1
#define WS_UF 1
#define WK_V v4f
#define WK_I v4si
#define WK_N 4
#define WK_ATTR WIDE_EVEX_ATTR
#define WS_DV v4d
#define WS_FV v4f
#define WS_PATH wide_evex_u
#include "pgs_wide_set.h"
WIDE_G8(wide_g8_evex, __attribute__((target("avx2,avx512f,avx512vl,avx512dq"))))
#define W8_GATHER(U, g, u) wide_g8_evex(U, g, u)
#define W8_UF 1
#define W8_ATTR WIDE_EVEX_ATTR
#define W8_PATH wide_evex8_u
#define W8_LONE wide_evex_u
#include "pgs_wide_set8.h"
#endif

/* AVX-512: eight lanes, two groups of one colour (WideGroup.pair) per vector; u's blocks
   read by gathers (the same loads as lane by lane) and written lane by lane (masked
   scatters, or transposes and masked stores, were slower: docs/solvers.md). */
#if WIDE_HAVE_AVX512
#define WIDE_AVX512_TARGET __attribute__((target("avx512f,avx512dq")))
#define WIDE_AVX512_INLINE WIDE_AVX512_TARGET __attribute__((always_inline)) static inline

/* Lane offsets of the two groups' o0 (or o1, at word k) as eight 32-bit indices. */
WIDE_AVX512_INLINE __m256i wide512_index(const WideGroup *g, size_t k) {
  const __m128i a = _mm_load_si128((const __m128i *)((const int *)&g[0] + k));
  const __m128i b = _mm_load_si128((const __m128i *)((const int *)&g[1] + k));
  return _mm256_inserti128_si256(_mm256_castsi128_si256(a), b, 1);
}

WIDE_AVX512_INLINE void wide512_gather(v8d U[WIDE_J], const WideGroup *g, const double *u) {
  const __m256i i0 = wide512_index(g, offsetof(WideGroup, o0) / sizeof(int));
  const __m256i i1 = wide512_index(g, offsetof(WideGroup, o1) / sizeof(int));
  for (int j = 0; j < FAST_W; ++j) {
    U[j] = (v8d)_mm512_i32gather_pd(i0, u + j, 8);
    U[FAST_W + j] = (v8d)_mm512_i32gather_pd(i1, u + j, 8);
  }
}

_Static_assert(WIDE_LANES == 4, "the 8-lane kernel takes two groups a vector");
#define WK_V v8d
#define WK_I v8i
#define WK_N 8
#define WK_ATTR WIDE_AVX512_TARGET
#define WK_GATHER(U, g, u) wide512_gather(U, g, u)
#define WK_ANY(m) (_mm512_test_epi64_mask((__m512i)(m), (__m512i)(m)) != 0)
#define WK_S double
#define WK_SV v8d
#define WK_GZ 0
#define WK_KIND WIDE_KIND_FULL
#define WK_NAME wide_avx512_d
#define WK_LONE wide_avx2_d
#define WK_LOAD_ROW2(p, q) \
  ((v8d)_mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_loadu_pd(p)), _mm256_loadu_pd(q), 1))
#include "pgs_wide_kernel.h"
#undef WK_LOAD_ROW2
#undef WK_LONE
#undef WK_S
#undef WK_SV
#undef WK_NAME
#undef WK_GZ
#define WK_S float
#define WK_SV v8f
#define WK_GZ 1
#define WK_LOAD_ROW2(p, q)                                                                   \
  ((v8d)_mm512_cvtps_pd(                                                                     \
      _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(p)), _mm_loadu_ps(q), 1)))
#define WK_NAME wide_avx512_f
#define WK_LONE wide_avx2_f
#include "pgs_wide_kernel.h"
#undef WK_NAME
#undef WK_LONE
#undef WK_KIND
#define WK_KIND WIDE_KIND_J
#define WK_NAME wide_avx512_fj
#define WK_LONE wide_avx2_fj
#include "pgs_wide_kernel.h"
#undef WK_NAME
#undef WK_LONE
#undef WK_KIND
#define WK_KIND WIDE_KIND_JB
#define WK_NAME wide_avx512_fjb
#define WK_LONE wide_avx2_fjb
#include "pgs_wide_kernel.h"
#undef WK_NAME
#undef WK_LONE
#undef WK_KIND
#undef WK_LOAD_ROW2
#undef WK_GZ
#undef WK_S
#undef WK_SV
#undef WK_V
#undef WK_I
#undef WK_N
#undef WK_ATTR
#undef WK_GATHER
#undef WK_ANY
#endif

/* The kernels of one path, by layout (WIDE_DOUBLE, WIDE_FLOAT, WIDE_FLOAT_J, _JB): scalar,
   SSE2, AVX2, AVX-512, then the AVX2 path's EVEX build. */
typedef void (*WideKernel)(const WideGroup *, const WideIdx *, const void *, int, void *,
                           double *, double, float *);
static const WideKernel wide_kernels[5][4] = {
    {wide_scalar_d, wide_scalar_f, wide_scalar_fj, wide_scalar_fjb},
    {wide_sse2_d, wide_sse2_f, wide_sse2_fj, wide_sse2_fjb},
#if WIDE_HAVE_AVX2
    {wide_avx2_d, wide_avx2_f, wide_avx2_fj, wide_avx2_fjb},
#else
    {wide_sse2_d, wide_sse2_f, wide_sse2_fj, wide_sse2_fjb},
#endif
#if WIDE_HAVE_AVX512
    {wide_avx512_d, wide_avx512_f, wide_avx512_fj, wide_avx512_fjb},
#else
    {wide_sse2_d, wide_sse2_f, wide_sse2_fj, wide_sse2_fjb},
#endif
#if WIDE_HAVE_EVEX
    {wide_evex_d, wide_evex_f, wide_evex_fj, wide_evex_fjb},
#elif WIDE_HAVE_AVX2
    {wide_avx2_d, wide_avx2_f, wide_avx2_fj, wide_avx2_fjb},
#else
    {wide_sse2_d, wide_sse2_f, wide_sse2_fj, wide_sse2_fjb},
#endif
};

/* The float layouts' kernels computing in float, by path (AVX-512 takes AVX2's). */
static const WideKernel wide_kernels_s[5][3] = {
    {wide_scalar_s_f, wide_scalar_s_fj, wide_scalar_s_fjb},
    {wide_sse2_s_f, wide_sse2_s_fj, wide_sse2_s_fjb},
#if WIDE_HAVE_AVX2
    {wide_avx2_s_f, wide_avx2_s_fj, wide_avx2_s_fjb},
    {wide_avx2_s_f, wide_avx2_s_fj, wide_avx2_s_fjb},
#else
    {wide_sse2_s_f, wide_sse2_s_fj, wide_sse2_s_fjb},
    {wide_sse2_s_f, wide_sse2_s_fj, wide_sse2_s_fjb},
#endif
#if WIDE_HAVE_EVEX
    {wide_evex_s_f, wide_evex_s_fj, wide_evex_s_fjb},
#elif WIDE_HAVE_AVX2
    {wide_avx2_s_f, wide_avx2_s_fj, wide_avx2_s_fjb},
#else
    {wide_sse2_s_f, wide_sse2_s_fj, wide_sse2_s_fjb},
#endif
};

void lsim_pgs_wide_sweep_range(LsimPgs *ws, const LsimFactoredLcp *f, double *z, double omega,
                               int r) {
  const int *rg = ws->wide_range[r];
  const WideGroup *g = ws->wide + rg[0];
  const int ng = rg[1] - rg[0], layout = ws->wide_layout;
  const void *rows = (const char *)ws->wide_rows +
                     (size_t)rg[0] * wide_vals(layout) * (layout == WIDE_DOUBLE ? sizeof(double) : sizeof(float));
  if (ws->wide_path == LSIM_PGS_SIMD_REFERENCE) {
    /* fast_sweep itself over the coloured order, one cone at a time (double rows). */
    lsim_pgs_fast_sweep_range(ws, f, z, omega, FAST_W, ws->wide_order, rg[4], rg[3]);
    return;
  }
  const int path = ws->wide_path == LSIM_PGS_SIMD_SCALAR   ? 0
                   : ws->wide_path == LSIM_PGS_SIMD_AVX2   ? (ws->wide_evex ? 4 : 2)
                   : ws->wide_path == LSIM_PGS_SIMD_AVX512 ? 3
                                                           : 1;
  WideKernel k = ws->wide_arith_f && layout != WIDE_DOUBLE ? wide_kernels_s[path][layout - 1]
                                                          : wide_kernels[path][layout];
#if WIDE_HAVE_AVX2
  /* Eight lanes on u's float copy (the AVX2 build, or its EVEX one). */
  static const WideKernel ku[2][3] = {
      {wide_avx2_8u_f, wide_avx2_8u_fj, wide_avx2_8u_fjb},
#if WIDE_HAVE_EVEX
      {wide_evex8_u_f, wide_evex8_u_fj, wide_evex8_u_fjb},
#else
      {wide_avx2_8u_f, wide_avx2_8u_fj, wide_avx2_8u_fjb},
#endif
  };
  if (ws->wide_arith_f == 2) {
    /* u's float copy: the kernel on it; the rest (if any) on u, brought up to date. */
    ku[path == 4][layout - 1](g, ws->wide_idx + rg[0], rows, ng, ws->wide_uf, z,
                                                     omega, ws->wide_z + (size_t)rg[0] * WIDE_Z);
    if (rg[2] < rg[3]) {
      for (int i = 0; i < f->m; ++i) ws->u[i] = ws->wide_uf[i];
      lsim_pgs_fast_sweep_range(ws, f, z, omega, FAST_W, ws->wide_order, rg[2], rg[3]);
      for (int i = 0; i < f->m; ++i) ws->wide_uf[i] = (float)ws->u[i];
    }
    return;
  }
#endif
  k(g, ws->wide_idx + rg[0], rows, ng, ws->u, z, omega,
                             ws->wide_z + (size_t)rg[0] * WIDE_Z);
  /* The range's rest, in the natural order. */
  lsim_pgs_fast_sweep_range(ws, f, z, omega, FAST_W, ws->wide_order, rg[2], rg[3]);
}
