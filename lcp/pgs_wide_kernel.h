/* pgs_wide_kernel.h: the coloured wide sweep's kernel, included by pgs_wide.c once per
 * instruction set and value layout with
 *   WK_V, WK_I   a vector of WK_N doubles and of WK_N 64-bit integers (GCC vector types),
 *   WK_N         lanes per vector (1: scalar, 2: SSE2, 4: AVX2), a divisor of WIDE_LANES,
 *                or 8 = 2 WIDE_LANES (AVX-512): two groups of one colour per vector, the
 *                first's lanes then the second's (a group whose pair flag is 0, a
 *                colour's last, goes alone to WK_LONE),
 *   WK_S, WK_SV  the values' storage (double or float) and its vector of WK_N,
 *   WK_GZ        1: z of the group's cones in the group's own copy (zgroups, WIDE_Z
 *                floats per group; only with float values), 0: in z by index,
 *   WK_LOAD_ROW  optional: WK_N stored values at a pointer to a WK_V (else memcpy and
 *                __builtin_convertvector, which GCC 12 splits in halves for AVX),
 *   with 8 lanes also
 *   WK_LOAD_ROW2 (p, q): WIDE_LANES stored values at p, then WIDE_LANES at q, as a WK_V,
 *   WK_GATHER    optional: u's two blocks of the lanes in (U, g, u); the lanes' own
 *                operations are loads: any way of making them gives the same bits,
 *   WK_ANY       whether some lane of a mask is set,
 *   WK_LONE      the four-lane kernel of the same layout, for a group alone,
 *   WK_KIND      the rows stored (WIDE_KIND_FULL, _J or _JB; only with float values):
 *                a compact row stores 9 of its 12 entries, and the kernel takes entries
 *                FAST_W .. FAST_W + 2 as the negatives of entries 0 .. 2 (exact: the
 *                packing stores a row so only where they are, bit for bit),
 *   WK_NAME      the function made: WK_NAME(groups, values, count, u, z, omega, zgroups),
 *   WK_ATTR      its attributes (the target),
 *   WK_E, WK_DV  optional, together: the arithmetic in WK_E (float) on WK_V, a vector of
 *                WK_N floats with WK_I of WK_N 32-bit integers; u stays double: its
 *                blocks read as WK_DV (WK_N doubles) and rounded to WK_E once, written
 *                back from WK_DV (exact). Only with float values and z in the groups.
 *   WK_U         optional: u's storage, double unless float (u's float copy, with WK_E
 *                float and no WK_DV: its blocks read and written with no conversion).
 * The same source for every set: per lane the same operations in the same order, which
 * are those of fast_sweep (pgs_fast.c) on a d = 4 cone of width 6 (see pgs_wide.c). */

#ifndef WK_U
#define WK_U double
#define WK_U_DEFAULT 1
#endif
#ifndef WK_E
#define WK_E double
#define WK_E_DEFAULT 1
#define WK_IMAX LLONG_MAX
#else
#define WK_IMAX INT_MAX
#endif
#define WK_SEL(m, a, b) ((WK_V)(((WK_I)(a) & (m)) | ((WK_I)(b) & ~(m))))
#define WK_ABS(x) ((WK_V)((WK_I)(x) & absmask))
#define WK_MAX0(x) WK_SEL((x) > zero, (x), zero)
#if WK_N == 1
#define WK_MAKE_T(T, e) ((T){e(0)})
#elif WK_N == 2
#define WK_MAKE_T(T, e) ((T){e(0), e(1)})
#elif WK_N == 4
#define WK_MAKE_T(T, e) ((T){e(0), e(1), e(2), e(3)})
#else
#define WK_MAKE_T(T, e) ((T){e(0), e(1), e(2), e(3), e(4), e(5), e(6), e(7)})
#endif
#define WK_MAKE(e) WK_MAKE_T(WK_V, e)
/* Lane L of the vector: its group (g[0], or g[1] for the second half of an 8-lane one) and
 * its place there. */
#if WK_N == 8
#define LG(L) (g[(L) / WIDE_LANES])
#define LX(L) (x[(L) / WIDE_LANES])
#define LI(L) ((L) % WIDE_LANES)
#else
#define LG(L) (g[0])
#define LX(L) (x[0])
#define LI(L) (L)
#endif

/* Row r's first value in a group (in units of WIDE_LANES values), whether it is compact,
 * and where entry j of it is stored (not for a compact row's entries FAST_W .. FAST_W + 2). */
#define WK_RS(r) WIDE_ROW_START(WK_KIND, r)
#define WK_SHORT(r) WIDE_ROW_SHORT(WK_KIND, r)
#define WK_COL(r, j) (WK_SHORT(r) && (j) >= FAST_W ? (j) - WIDE_LIN : (j))

WK_ATTR static void WK_NAME(const WideGroup *groups, const WideIdx *idx, const void *rows_v,
                            int ng, void *u_v, double *z, double omega_s, float *zgroups) {
  WK_U *u = u_v;
  const WK_S *rows_all = rows_v;
  enum { VALS = WIDE_VALS_OF(WK_KIND) };
  (void)zgroups, (void)z, (void)idx;
  const WK_V zero = {0}, one = zero + (WK_E)1, half = zero + (WK_E)0.5, inf = zero + (WK_E)INFINITY;
  const WK_V omega = zero + (WK_E)omega_s;
  const WK_I absmask = (WK_I){0} + WK_IMAX;
  static const WK_E cs[5] = {1, 0, -1, 0, 1}, sn[5] = {0, 1, 0, -1, 0};
  for (int gi = 0, step = 1; gi < ng; gi += step) {
    const WideGroup *g = groups + gi;
    const WK_S *rows = rows_all + (size_t)gi * VALS;
#if WK_N == 8
    /* Two groups a vector (the first full, the second of the same colour), or one alone. */
    step = g->pair ? 2 : 1;
    const int nreal = g->pair ? WIDE_LANES + g[1].lanes : g->lanes;
#else
    const int nreal = g->lanes;
#endif
    /* The groups WIDE_PREFETCH ahead asked for now (a group is 0.8 to 2.7 kB: at 10 000
       bodies the groups come from memory, and the sweep waited on them). */
    for (int s = 0; s < step; ++s)
      if (gi + s + WIDE_PREFETCH < ng) {
        const char *ahead = (const char *)(groups + gi + s + WIDE_PREFETCH);
        for (size_t b = 0; b < sizeof(WideGroup); b += 64) __builtin_prefetch(ahead + b);
        const char *ahead_rows = (const char *)(rows + (s + WIDE_PREFETCH) * VALS);
        /* Unrolled: one instruction a line (the loop had cost four, 11 % of the sweep). */
#pragma GCC unroll 48
        for (size_t b = 0; b < VALS * sizeof(WK_S); b += 64) __builtin_prefetch(ahead_rows + b);
      }
#if WK_N == 8
    if (step == 1) {
      WK_LONE(g, idx + gi, rows, 1, u, z, omega_s, zgroups + (size_t)gi * WIDE_Z);
      continue;
    }
#endif
    for (int h = 0; h < WIDE_LANES; h += WK_N) {
      if (h >= nreal) break; /* only inert lanes left */
#if WK_N == 8
#define AT(i) WK_LOAD_ROW2(rows + (i) * WIDE_LANES, rows + VALS + (i) * WIDE_LANES)
#define AT_F(p) WK_LOAD_ROW2((p), (p) + WIDE_Z)
#elif defined(WK_LOAD_ROW)
#define AT(i) WK_LOAD_ROW(rows + (i) * WIDE_LANES + h)
#define AT_F(p) WK_LOAD_ROW(p)
#else
#define AT(i) ({ WK_SV s_; memcpy(&s_, rows + (i) * WIDE_LANES + h, sizeof s_); \
                 __builtin_convertvector(s_, WK_V); })
#define AT_F(p) ({ WK_SV s_; memcpy(&s_, (p), sizeof s_); __builtin_convertvector(s_, WK_V); })
#endif
/* Entry j of row r: a compact row's entries FAST_W .. FAST_W + 2 negated from 0 .. 2 (a
   negation is exact: -(float) converted is -(double) of it, the stored row's value). */
#define ROW(r, j)                                                                            \
  (WK_SHORT(r) && (j) >= FAST_W && (j) < FAST_W + WIDE_LIN ? -AT(WK_RS(r) + (j) - FAST_W)   \
                                                            : AT(WK_RS(r) + WK_COL(r, j)))
#define LD(k) AT(WK_RS(6) + (k))
      /* u's two blocks, lane by lane (inert lanes: the pad after u). */
      WK_V U[WIDE_J], zs[6];
#ifdef WK_GATHER
      WK_GATHER(U, g, u);
#else
      const WK_U *pu0[WK_N], *pu1[WK_N];
      for (int l = 0; l < WK_N; ++l)
        pu0[l] = u + LG(h + l).o0[LI(h + l)], pu1[l] = u + LG(h + l).o1[LI(h + l)];
      for (int j = 0; j < FAST_W; ++j) {
#define P0(l) pu0[l][j]
#define P1(l) pu1[l][j]
#ifdef WK_DV
        /* Doubles in, rounded to WK_E a vector at a time. */
        const WK_DV d0 = WK_MAKE_T(WK_DV, P0), d1 = WK_MAKE_T(WK_DV, P1);
        U[j] = __builtin_convertvector(d0, WK_V), U[FAST_W + j] = __builtin_convertvector(d1, WK_V);
#else
        U[j] = WK_MAKE(P0), U[FAST_W + j] = WK_MAKE(P1);
#endif
#undef P0
#undef P1
      }
#endif
#if WK_GZ
      /* z (normal, beta, lambda) from the group's own copy, floats (inert lanes: zeros,
         kept). */
      float *gz = zgroups + (size_t)gi * WIDE_Z + h;
      for (int k = 0; k < 6; ++k) zs[k] = AT_F(gz + k * WIDE_LANES);
#else
      /* z (normal, beta, lambda), lane by lane (inert lanes: zeros). */
      const WideIdx *x = idx + gi;
      const double *pn[WK_N], *pb[WK_N], *pl[WK_N];
      for (int l = 0; l < WK_N; ++l) {
        const int real = h + l < nreal;
        pn[l] = real ? z + LX(h + l).normal[LI(h + l)] : wide_pad;
        pb[l] = real ? z + LX(h + l).b0[LI(h + l)] : wide_pad;
        pl[l] = real ? z + LX(h + l).L[LI(h + l)] : wide_pad;
      }
#define PN(l) pn[l][0]
#define PL(l) pl[l][0]
      zs[0] = WK_MAKE(PN), zs[5] = WK_MAKE(PL);
#undef PN
#undef PL
      for (int k = 0; k < 4; ++k) {
#define PB(l) pb[l][k]
        zs[1 + k] = WK_MAKE(PB);
#undef PB
      }
#endif
      /* The three dot products, even and odd entries apart (fast_sweep's pairs). */
      WK_V en = zero, on = zero, e1 = zero, o1 = zero, e2 = zero, o2 = zero;
#pragma GCC unroll 12
      for (int j = 0; j < WIDE_J; j += 2) {
        en = en + ROW(0, j) * U[j], on = on + ROW(0, j + 1) * U[j + 1];
        e1 = e1 + ROW(1, j) * U[j], o1 = o1 + ROW(1, j + 1) * U[j + 1];
        e2 = e2 + ROW(2, j) * U[j], o2 = o2 + ROW(2, j + 1) * U[j + 1];
      }
      const WK_V vn = en + on;
      WK_V v1 = e1 + o1, v2 = e2 + o2;
      v1 = v1 + LD(WM_Q1), v2 = v2 + LD(WM_Q2);
      /* The normal. */
      const WK_V zo = zs[0];
      const WK_V zn = WK_MAX0(zo - omega * (vn + LD(WM_QN)) * LD(WM_INV_N));
      const WK_V dn = zn - zo;
      v1 = v1 + LD(WM_GN1) * dn, v2 = v2 + LD(WM_GN2) * dn;
      const WK_V R = LD(WM_MU) * WK_MAX0(zn);
      /* planar_target, d = 4, with the precomputed 1 / det. */
      const WK_V a11 = LD(WM_A11), a12 = LD(WM_A12), a22 = LD(WM_A22), a3 = LD(WM_A3);
      const WK_V b0 = zs[1], b1 = zs[2], b2 = zs[3], b3 = zs[4];
      const WK_V f1 = b0 - b2, f2 = b1 - b3;
      const WK_V r1 = v1 - (a11 * f1 + a12 * f2), r2 = v2 - (a12 * f1 + a22 * f2);
      const WK_I known = (R > zero) & (a3 != zero);
      const WK_V g1 = WK_SEL(known, -(a22 * r1 - a12 * r2) * a3, zero);
      const WK_V g2 = WK_SEL(known, -(-a12 * r1 + a11 * r2) * a3, zero);
      const WK_I inside = known & (WK_ABS(g1) + WK_ABS(g2) <= R);
      const WK_I iszero = R <= zero;
      WK_V t[4] = {zero, zero, zero, zero}, eg1 = zero, eg2 = zero;
      const WK_I edge = ~(iszero | inside);
#ifdef WK_ANY
      const int any_edge = WK_ANY(edge);
#else
      long long any_edge = 0;
      for (int l = 0; l < WK_N; ++l) any_edge |= edge[l];
#endif
      if (any_edge) {
        /* Some lane on the square's boundary: every edge (edge_best), the candidates and
           the running best as planar_target's loop takes them (the index kept as a
           double: SSE2 has no 64-bit integer compare). */
        const WK_I viol0 = g1 + g2 > R, viol1 = -g1 + g2 > R, viol2 = -g1 - g2 > R;
        const WK_I viol3 = g1 - g2 > R;
        const WK_I narrow = known & (viol0 | viol1 | viol2 | viol3);
        const WK_I cand[4] = {viol0 | ~narrow, viol1 | ~narrow, viol2 | ~narrow, viol3 | ~narrow};
        WK_V best = inf, bests = zero, bestk = zero;
        for (int k = 0; k < 4; ++k) {
          /* An edge no boundary lane has among its candidates is never taken: skipped. */
          const WK_I wanted = cand[k] & edge;
#ifdef WK_ANY
          if (!WK_ANY(wanted)) continue;
#else
          long long any_wanted = 0;
          for (int l = 0; l < WK_N; ++l) any_wanted |= wanted[l];
          if (!any_wanted) continue;
#endif
          const WK_E c0 = cs[k], s0 = sn[k], c1 = cs[k + 1], s1 = sn[k + 1];
          const WK_V v1k = R * c0, v2k = R * s0;
          const WK_V ex = R * c1 - v1k, ey = R * s1 - v2k;
          const WK_V Ae1 = a11 * ex + a12 * ey, Ae2 = a12 * ex + a22 * ey;
          const WK_V gv = ex * (a11 * v1k + a12 * v2k + r1) + ey * (a12 * v1k + a22 * v2k + r2);
          const WK_V curv = ex * Ae1 + ey * Ae2;
          WK_V sk = WK_SEL(curv > zero, -gv / curv, WK_SEL(gv < zero, one, zero));
          sk = WK_SEL(sk < zero, zero, WK_SEL(sk > one, one, sk));
          const WK_V p1 = v1k + sk * ex, p2 = v2k + sk * ey;
          const WK_V phi =
              half * (p1 * (a11 * p1 + a12 * p2) + p2 * (a12 * p1 + a22 * p2)) + r1 * p1 + r2 * p2;
          const WK_I take = cand[k] & (phi < best);
          best = WK_SEL(take, phi, best), bests = WK_SEL(take, sk, bests);
          bestk = WK_SEL(take, zero + (WK_E)k, bestk);
        }
        const WK_V on_k = R * (one - bests), on_next = zero + R * bests;
        for (int k = 0; k < 4; ++k)
          t[k] = WK_SEL(bestk == zero + (WK_E)k, on_k,
                        WK_SEL(bestk == zero + (WK_E)((k + 3) & 3), on_next, zero));
        eg1 = t[0] - t[2], eg2 = t[1] - t[3];
      }
      /* Inside: the targets of g; zero: none. */
      const WK_V ti[4] = {WK_SEL(g1 > zero, g1, zero), WK_SEL(g2 > zero, g2, zero),
                          WK_SEL(g1 < zero, -g1, zero), WK_SEL(g2 < zero, -g2, zero)};
      for (int k = 0; k < 4; ++k) t[k] = WK_SEL(iszero, zero, WK_SEL(inside, ti[k], t[k]));
      const WK_V G1 = WK_SEL(iszero, zero, WK_SEL(inside, g1, eg1));
      const WK_V G2 = WK_SEL(iszero, zero, WK_SEL(inside, g2, eg2));
      const WK_V u1 = a11 * G1 + a12 * G2 + r1, u2 = a12 * G1 + a22 * G2 + r2;
      const WK_V m1 = WK_ABS(u1), m2 = WK_ABS(u2);
      const WK_V t4 = WK_SEL(m1 > m2, m1, m2);
      /* Relaxation. */
      const WK_V nb0 = WK_MAX0(b0 + omega * (t[0] - b0)), nb1 = WK_MAX0(b1 + omega * (t[1] - b1));
      const WK_V nb2 = WK_MAX0(b2 + omega * (t[2] - b2)), nb3 = WK_MAX0(b3 + omega * (t[3] - b3));
      const WK_V df1 = (nb0 - b0) - (nb2 - b2), df2 = (nb1 - b1) - (nb3 - b3);
      const WK_V zl = zs[5];
      const WK_V nl = WK_MAX0(zl + omega * (t4 - zl));
      /* u's columns, where a delta is non-zero. */
      const WK_I still = (dn == zero) & (df1 == zero) & (df2 == zero);
#pragma GCC unroll 12
      for (int j = 0; j < WIDE_J; ++j)
        U[j] = WK_SEL(still, U[j], U[j] + ROW(3, j) * dn + ROW(4, j) * df1 + ROW(5, j) * df2);
      /* Scatter the real lanes' u (and z, unless the group keeps it). */
#if WK_GZ
      const WK_V zout[6] = {zn, nb0, nb1, nb2, nb3, nl};
      for (int k = 0; k < 6; ++k) {
        const WK_SV zf = __builtin_convertvector(zout[k], WK_SV);
#if WK_N == 8
        memcpy(gz + k * WIDE_LANES, &zf, sizeof zf / 2);
        memcpy(gz + WIDE_Z + k * WIDE_LANES, (const char *)&zf + sizeof zf / 2, sizeof zf / 2);
#else
        memcpy(gz + k * WIDE_LANES, &zf, sizeof zf);
#endif
      }
#endif
#ifdef WK_DV
      /* Back to doubles (exact), a vector at a time. */
      WK_DV Uo[WIDE_J];
      for (int j = 0; j < WIDE_J; ++j) Uo[j] = __builtin_convertvector(U[j], WK_DV);
#define U Uo
#endif
      for (int l = 0; l < WK_N && h + l < nreal; ++l) {
        WK_U *q0 = u + LG(h + l).o0[LI(h + l)];
        for (int j = 0; j < FAST_W; ++j) q0[j] = U[j][l];
        if (LG(h + l).two[LI(h + l)]) {
          WK_U *q1 = u + LG(h + l).o1[LI(h + l)];
          for (int j = 0; j < FAST_W; ++j) q1[j] = U[FAST_W + j][l];
        }
#if !WK_GZ
        z[LX(h + l).normal[LI(h + l)]] = zn[l];
        double *beta = z + LX(h + l).b0[LI(h + l)];
        beta[0] = nb0[l], beta[1] = nb1[l], beta[2] = nb2[l], beta[3] = nb3[l];
        z[LX(h + l).L[LI(h + l)]] = nl[l];
#endif
      }
#undef U
#undef AT
#undef AT_F
#undef LD
#undef ROW
    }
  }
}

#ifdef WK_U_DEFAULT
#undef WK_U
#undef WK_U_DEFAULT
#endif
#ifdef WK_E_DEFAULT
#undef WK_E
#undef WK_E_DEFAULT
#endif
#undef WK_IMAX
#undef WK_SEL
#undef WK_ABS
#undef WK_MAX0
#undef WK_MAKE
#undef WK_MAKE_T
#undef LG
#undef LX
#undef LI
#undef WK_RS
#undef WK_SHORT
#undef WK_COL
