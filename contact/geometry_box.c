/* geometry_box.c: the narrow phase's box pairs (box against sphere or point, box-box in
 * 3-D and 2-D, box-capsule) and the reduction of a manifold (lsim_geom_reduce). The algorithms,
 * references, conventions, feature ids and failure modes are described at the top of
 * geometry.c; each routine takes the pair in canonical order (the box first) and writes
 * into a fixed manifold buffer (no allocation).
 */
#include "contact/geometry_private.h"

/* Twice the area of the convex hull of four points projected on the plane normal to nrm:
 * the largest of the three quadrilaterals' shoelace areas and the four triangles' (a
 * point inside the triangle of the other three makes that triangle the hull). */
static double hull4_area2(const LsimContactPoint *p, const int k[4], const double nrm[3]) {
  static const int quad[3][4] = {{0, 1, 2, 3}, {0, 1, 3, 2}, {0, 2, 1, 3}};
  double best = 0.0;
  for (int o = 0; o < 3; ++o) {
    /* Shoelace as the sum of the fan's signed triangles from the first vertex. */
    double s = 0.0;
    for (int t = 1; t < 3; ++t) {
      double e1[3], e2[3], c[3];
      lsim_v3_sub(e1, p[k[quad[o][t]]].point, p[k[quad[o][0]]].point);
      lsim_v3_sub(e2, p[k[quad[o][t + 1]]].point, p[k[quad[o][0]]].point);
      lsim_v3_cross(c, e1, e2);
      s += lsim_v3_dot(c, nrm);
    }
    best = fmax(best, fabs(s));
  }
  for (int skip = 0; skip < 4; ++skip) {
    int a = skip == 0 ? 1 : 0, b = skip <= 1 ? 2 : 1, c3 = skip <= 2 ? 3 : 2;
    double e1[3], e2[3], c[3];
    lsim_v3_sub(e1, p[k[b]].point, p[k[a]].point);
    lsim_v3_sub(e2, p[k[c3]].point, p[k[a]].point);
    lsim_v3_cross(c, e1, e2);
    best = fmax(best, fabs(lsim_v3_dot(c, nrm)));
  }
  return best;
}

/* Points outside the 4-point hull by more than this fraction of the manifold's diameter
 * are kept too (lsim_geom_reduce). */
#define LSIM_REDUCE_OUTSIDE 0.02

/* Distance of point i outside the convex hull of the kept points (in the plane normal to
 * nrm; 0 inside): the largest distance beyond any edge of the hull, the hull being the
 * kept points' polygon sorted by angle around their centroid (they are in convex position
 * up to slivers, being vertices of a clipped convex polygon). */
static double outside_hull(const LsimContactPoint *p, const int *keep, int n, int i,
                           const double nrm[3]) {
  int idx[LSIM_MAX_MANIFOLD], k = 0;
  double cen[3] = {0, 0, 0}, u[3], v[3], ang[LSIM_MAX_MANIFOLD];
  for (int j = 0; j < n; ++j)
    if (keep[j]) idx[k++] = j, lsim_v3_axpy(cen, cen, 1.0, p[j].point);
  lsim_v3_scale(cen, cen, 1.0 / k);
  /* A frame (u, v) of the contact plane. */
  lsim_v3_sub(u, p[idx[0]].point, cen);
  lsim_v3_axpy(u, u, -lsim_v3_dot(u, nrm), nrm);
  if (lsim_v3_normalize(u) == 0.0) return 0.0;
  lsim_v3_cross(v, nrm, u);
  for (int a = 0; a < k; ++a) {
    double e[3];
    lsim_v3_sub(e, p[idx[a]].point, cen);
    ang[a] = atan2(lsim_v3_dot(e, v), lsim_v3_dot(e, u));
  }
  /* Insertion sort by angle (k <= 8). */
  for (int a = 1; a < k; ++a)
    for (int b = a; b > 0 && ang[b] < ang[b - 1]; --b) {
      const double t = ang[b];
      ang[b] = ang[b - 1], ang[b - 1] = t;
      const int s = idx[b];
      idx[b] = idx[b - 1], idx[b - 1] = s;
    }
  double out = 0.0;
  for (int a = 0; a < k; ++a) {
    const double *A = p[idx[a]].point, *B = p[idx[(a + 1) % k]].point;
    double e[3], w[3], c[3];
    lsim_v3_sub(e, B, A);
    lsim_v3_sub(w, p[i].point, A);
    lsim_v3_cross(c, e, w);
    const double len = lsim_v3_norm(e);
    /* Counterclockwise about nrm: a point outside this edge has a negative cross. */
    if (len > 0.0) out = fmax(out, -lsim_v3_dot(c, nrm) / len);
  }
  return out;
}

/* Reduces a manifold of more than 4 coplanar points (a clipped face, a box face's
 * corners): first the four whose convex hull (in the contact plane) has the largest area
 * among the sets that hold one of the deepest points (gap within 1e-3 of the manifold's
 * diameter of the smallest: a tilt of a milliradian across it), then every other point
 * that lies outside the kept hull by more than LSIM_REDUCE_OUTSIDE (2 %) of the diameter,
 * farthest first. The gap is affine over coplanar points, so a dropped point inside the
 * kept hull is held by the kept ones, and one within 2 % of the diameter outside it
 * nearly so: the slivers that clipping near-aligned faces leaves go, the corners of an
 * octagon (a cube yawed 45 degrees on another) stay. Before: the deepest point forced in
 * dropped a support corner for a mid-edge clip point 1e-7 m deeper (dominoes); exactly 4
 * kept dropped 4 octagon corners, and a cube tipping towards one sank 7e-4 m there for a
 * step and was pushed out, gaining 1 % of its energy. Ties keep the first set in
 * lexicographic order, so the result is a pure function of the points' order. Kept points
 * keep their order. */
void lsim_geom_reduce(Manifold *m) {
  if (m->n <= 4) return;
  const LsimContactPoint *p = m->p;
  const double *nrm = p[0].normal;
  const int n = m->n;
  /* The deepest class: gap within tol of the smallest. */
  double gmin = p[0].gap, diam2 = 0.0;
  for (int i = 0; i < n; ++i) {
    gmin = fmin(gmin, p[i].gap);
    for (int j = i + 1; j < n; ++j) diam2 = fmax(diam2, lsim_v3_dist2(p[i].point, p[j].point));
  }
  const double tol = 1e-3 * sqrt(diam2);
  int deep[LSIM_MAX_MANIFOLD];
  for (int i = 0; i < n; ++i) deep[i] = p[i].gap <= gmin + tol;
  /* Every 4-subset (n <= 8: at most 70) with a deepest point; the largest hull. */
  int best[4] = {0, 1, 2, 3}, k[4];
  double best_area = -1.0;
  for (k[0] = 0; k[0] < n; ++k[0])
    for (k[1] = k[0] + 1; k[1] < n; ++k[1])
      for (k[2] = k[1] + 1; k[2] < n; ++k[2])
        for (k[3] = k[2] + 1; k[3] < n; ++k[3]) {
          if (!(deep[k[0]] || deep[k[1]] || deep[k[2]] || deep[k[3]])) continue;
          const double a = hull4_area2(p, k, nrm);
          if (a > best_area) best_area = a, memcpy(best, k, sizeof best);
        }
  /* Then the dropped points that lie outside the kept hull by more than a fraction of
     the manifold's diameter, farthest first: such a point is unheld, and a body tipping
     towards it would sink there for a step. */
  int keep[LSIM_MAX_MANIFOLD] = {0};
  for (int i = 0; i < 4; ++i) keep[best[i]] = 1;
  const double far_tol = LSIM_REDUCE_OUTSIDE * sqrt(diam2);
  for (;;) {
    int add = -1;
    double worst = far_tol;
    for (int i = 0; i < n; ++i) {
      if (keep[i]) continue;
      const double d = outside_hull(p, keep, n, i, nrm);
      if (d > worst) worst = d, add = i;
    }
    if (add < 0) break;
    keep[add] = 1;
  }
  /* Compact in the original order. */
  LsimContactPoint out[LSIM_MAX_MANIFOLD];
  int kept = 0;
  for (int i = 0; i < n; ++i)
    if (keep[i]) out[kept++] = p[i];
  memcpy(m->p, out, (size_t)kept * sizeof out[0]);
  m->n = kept;
}

/* ---- Box pairs ------------------------------------------------------------------ */

/* Box against a sphere or point: closest point of the box in its frame; a center inside
 * leaves through the nearest face (ties: the lower axis, the + side). */
void lsim_geom_box_round(Manifold *m, const Placed *A, const Placed *B) {
  const int nax = m->dim;
  double l[3], q[3], n[3], sb[3], x[3];
  to_local(l, A, B->c);
  int inside = 1;
  for (int k = 0; k < 3; ++k) {
    q[k] = fmin(fmax(l[k], -A->h[k]), A->h[k]);
    if (k < nax && q[k] != l[k]) inside = 0;
  }
  if (nax == 2) q[2] = l[2] = 0.0;
  double gap, nl[3] = {0.0, 0.0, 0.0}, qw[3];
  if (!inside) {
    /* Outside: normal from the closest box point to the center. */
    double d[3];
    lsim_v3_sub(d, l, q);
    const double dist = lsim_v3_norm(d);
    gap = dist - B->r;
    if (!(gap <= m->margin)) return;
    if (dist > 1e-300) lsim_v3_scale(nl, d, 1.0 / dist);
    else inside = 1; /* on the surface to within underflow: treat as inside */
  }
  if (inside) {
    /* Inside: the face of least depth. */
    int kbest = 0;
    double depth = HUGE_VAL, s = 1.0;
    for (int k = 0; k < nax; ++k) {
      const double dk = A->h[k] - fabs(l[k]);
      if (dk < depth) depth = dk, kbest = k, s = sgn(l[k]);
    }
    nl[kbest] = s;
    q[kbest] = s * A->h[kbest];
    gap = -depth - B->r;
  }
  lsim_m3_apply(n, A->R, nl);
  to_world(qw, A, q);
  /* Midway between the box point and the sphere point c - r n. */
  lsim_v3_axpy(sb, B->c, -B->r, n);
  lsim_v3_lerp(x, qw, sb, 0.5);
  emit(m, x, n, gap, 0);
}

/* Projection radius of a box on the unit axis L. */
static inline double box_radius(const Placed *B, const double L[3]) {
  return B->h[0] * fabs(lsim_v3_dot(B->ax[0], L)) + B->h[1] * fabs(lsim_v3_dot(B->ax[1], L)) +
         B->h[2] * fabs(lsim_v3_dot(B->ax[2], L));
}

/* Edge axis k = 3 i + j of boxes A and B (d = B->c - A->c): L = a_i x b_j, its length len,
 * L / len in L, dl = d . L and the separation *s = |dl| - r_A(L) - r_B(L) along it. */
static inline void edge_axis(const Placed *A, const Placed *B, int k, const double d[3],
                             double L[3], double *len, double *dl, double *s) {
  lsim_v3_cross(L, A->ax[k / 3], B->ax[k % 3]);
  *len = lsim_v3_norm(L);
  lsim_v3_scale(L, L, 1.0 / *len);
  *dl = lsim_v3_dot(d, L);
  *s = fabs(*dl) - box_radius(A, L) - box_radius(B, L);
}

void lsim_geom_box_edge_seps_scalar(const Placed *A, const Placed *B, const double d[3],
                                    double len[LSIM_EDGE_SLOTS], double s[LSIM_EDGE_SLOTS]) {
  for (int k = 0; k < 9; ++k) {
    double L[3], dl;
    edge_axis(A, B, k, d, L, &len[k], &dl, &s[k]);
  }
  len[9] = len[8], s[9] = s[8];
}

/* The AVX form of lsim_geom_box_edge_seps: the three axes a_0 x b_j, a_1 x b_j, a_2 x b_j
 * in the lanes of one register (the fourth repeats the third), j = 0, 1, 2; each lane
 * edge_axis's products, sums and differences in its order, fabs as the sign bit cleared,
 * the square root and the division correctly rounded as the scalar ones (no fused
 * multiply-add: the target is AVX alone). The same bits as the scalar loop. */
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define EDGE_AVX 1

/* a[0] x + a[1] y + a[2] z, summed left to right as lsim_v3_dot (a broadcast). */
__attribute__((target("avx"))) static inline __m256d dot4(const __m256d a[3], __m256d x,
                                                          __m256d y, __m256d z) {
  return _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(a[0], x), _mm256_mul_pd(a[1], y)),
                       _mm256_mul_pd(a[2], z));
}

/* box_radius on the lanes' axes: h0 |p_0 . L| + h1 |p_1 . L| + h2 |p_2 . L|. */
__attribute__((target("avx"))) static inline __m256d radius4(const __m256d ax[3][3],
                                                             const __m256d h[3], __m256d x,
                                                             __m256d y, __m256d z) {
  const __m256d sign = _mm256_set1_pd(-0.0);
  __m256d r = _mm256_mul_pd(h[0], _mm256_andnot_pd(sign, dot4(ax[0], x, y, z)));
  r = _mm256_add_pd(r, _mm256_mul_pd(h[1], _mm256_andnot_pd(sign, dot4(ax[1], x, y, z))));
  return _mm256_add_pd(r, _mm256_mul_pd(h[2], _mm256_andnot_pd(sign, dot4(ax[2], x, y, z))));
}

__attribute__((target("avx"))) static void edge_seps_avx(const Placed *A, const Placed *B,
                                                         const double d[3], double *len,
                                                         double *s) {
  __m256d ba[3][3], bb[3][3], ha[3], hb[3], bd[3], at[3];
  for (int t = 0; t < 3; ++t) {
    for (int c = 0; c < 3; ++c) {
      ba[t][c] = _mm256_set1_pd(A->ax[t][c]);
      bb[t][c] = _mm256_set1_pd(B->ax[t][c]);
    }
    ha[t] = _mm256_set1_pd(A->h[t]), hb[t] = _mm256_set1_pd(B->h[t]);
    bd[t] = _mm256_set1_pd(d[t]);
    at[t] = _mm256_set_pd(A->ax[2][t], A->ax[2][t], A->ax[1][t], A->ax[0][t]);
  }
  const __m256d one = _mm256_set1_pd(1.0), sign = _mm256_set1_pd(-0.0);
  for (int j = 0; j < 3; ++j) {
    const __m256d *b = bb[j];
    __m256d x = _mm256_sub_pd(_mm256_mul_pd(at[1], b[2]), _mm256_mul_pd(at[2], b[1]));
    __m256d y = _mm256_sub_pd(_mm256_mul_pd(at[2], b[0]), _mm256_mul_pd(at[0], b[2]));
    __m256d z = _mm256_sub_pd(_mm256_mul_pd(at[0], b[1]), _mm256_mul_pd(at[1], b[0]));
    const __m256d n = _mm256_sqrt_pd(_mm256_add_pd(
        _mm256_add_pd(_mm256_mul_pd(x, x), _mm256_mul_pd(y, y)), _mm256_mul_pd(z, z)));
    const __m256d inv = _mm256_div_pd(one, n);
    x = _mm256_mul_pd(x, inv), y = _mm256_mul_pd(y, inv), z = _mm256_mul_pd(z, inv);
    const __m256d sep = _mm256_sub_pd(
        _mm256_sub_pd(_mm256_andnot_pd(sign, dot4(bd, x, y, z)), radius4(ba, ha, x, y, z)),
        radius4(bb, hb, x, y, z));
    double nl[4], sl[4];
    _mm256_storeu_pd(nl, n);
    _mm256_storeu_pd(sl, sep);
    for (int i = 0; i < 3; ++i) len[3 * i + j] = nl[i], s[3 * i + j] = sl[i];
  }
}
#endif

void lsim_geom_box_edge_seps(const Placed *A, const Placed *B, const double d[3],
                             double len[LSIM_EDGE_SLOTS], double s[LSIM_EDGE_SLOTS]) {
#if defined(EDGE_AVX)
  if (__builtin_cpu_supports("avx")) { /* a bit libgcc sets at start-up: no race */
    edge_seps_avx(A, B, d, len, s);
    len[9] = len[8], s[9] = s[8];
    return;
  }
#endif
  lsim_geom_box_edge_seps_scalar(A, B, d, len, s);
}

/* A vertex of the clip polygon and the two boundary lines it lies on (incident face
 * edges 0..3, reference side planes 4..7). */
typedef struct ClipVert {
  double x[3];
  int l0, l1;
} ClipVert;

enum { CLIP_CAP = 16 };

/* Sutherland-Hodgman: keeps the part of polygon in (n vertices) with dot(nrm, x) <= off;
 * a vertex within tol outside still counts as inside (so a corner lying on the plane is
 * not split by rounding), crossings are computed on the exact plane. New vertices lie on
 * the crossed edge and on the plane labelled label. Returns the count written to out, or
 * -n - 1 when every vertex is inside: the polygon is in, unchanged, and out unwritten. */
static int clip_polygon(const ClipVert *in, int n, ClipVert *out, const double nrm[3],
                        double off, double tol, int label) {
  /* Each vertex's signed distance once (it is both an edge's start and the previous
     edge's end). */
  double dist[CLIP_CAP];
  int inside = n < CLIP_CAP;
  for (int i = 0; i < n; ++i) {
    dist[i] = lsim_v3_dot(nrm, in[i].x) - off;
    inside &= dist[i] <= tol;
  }
  /* Every vertex kept and no edge crossing the plane: out would be in, vertex for vertex
     (a NaN distance is not inside, and goes the way below). */
  if (inside) return -n - 1;
  int k = 0;
  for (int i = 0; i < n && k < CLIP_CAP - 1; ++i) {
    const int inext = i + 1 < n ? i + 1 : 0;
    const ClipVert *P = &in[i], *Q = &in[inext];
    const double dp = dist[i], dq = dist[inext];
    if (dp <= tol) out[k++] = *P;
    if ((dp < -tol && dq > tol) || (dp > tol && dq < -tol)) {
      /* The edge's own line is the label the two ends share. */
      const int edge = (P->l0 == Q->l0 || P->l0 == Q->l1) ? P->l0 : P->l1;
      ClipVert *X = &out[k++];
      lsim_v3_lerp(X->x, P->x, Q->x, dp / (dp - dq));
      X->l0 = edge < label ? edge : label;
      X->l1 = edge < label ? label : edge;
    }
  }
  return k;
}

/* The feature id of a 3-D face contact's clip vertex on boundary lines l0, l1 (incident
 * face edges 0..3, reference side planes 4..7), named by the boxes' faces and the sides of
 * those faces the vertex lies on, not by which face was the reference: (face of the first
 * box * 6 + face of the second) * 256 + 16 * sides of the first + sides of the second, a
 * face's sides a 4-bit mask, bit 2 t + (1 on the negative side) for the side along the
 * face's axis + 1 + t (mod 3). Two boxes of one size resting on each other take either
 * face as the reference from step to step (their separations tie to the tilt's
 * h * angle); ids by role changed all four points' ids each time, and the warm start lost
 * them (the pile of 1000 boxes: 27 % of its contacts every step). */
static int face_feature3(int ref_second, int ref_face, int inc_face, int l0, int l1) {
  /* Incident edge i runs from corner i to corner i + 1 (su, sv in box_face3). */
  static const int inc_side[4] = {2, 1, 3, 0};
  int ref_mask = 0, inc_mask = 0;
  const int l[2] = {l0, l1};
  for (int t = 0; t < 2; ++t) {
    if (l[t] < 4) inc_mask |= 1 << inc_side[l[t]];
    else ref_mask |= 1 << (l[t] - 4);
  }
  return ref_second ? (inc_face * 6 + ref_face) * 256 + 16 * inc_mask + ref_mask
                    : (ref_face * 6 + inc_face) * 256 + 16 * ref_mask + inc_mask;
}

/* 3-D face contact: face k of reference box Rb (ref_second: Rb is the second box of the
 * pair) against the most anti-parallel face of incident box I. */
static void box_face3(Manifold *m, const Placed *Rb, const Placed *I, int k, int ref_second) {
  double d[3], nR[3], fc[3], rc[3], normal[3];
  lsim_v3_sub(d, I->c, Rb->c);
  const double s = sgn(lsim_v3_dot(d, Rb->ax[k]));
  lsim_v3_scale(nR, Rb->ax[k], s);
  /* Incident face: the face of I whose outward normal is most opposite to nR. */
  int j = 0;
  double best = -1.0;
  for (int jj = 0; jj < 3; ++jj) {
    const double a = fabs(lsim_v3_dot(nR, I->ax[jj]));
    if (a > best) best = a, j = jj;
  }
  const double si = lsim_v3_dot(nR, I->ax[j]) > 0.0 ? -1.0 : 1.0;
  const int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
  lsim_v3_axpy(fc, I->c, si * I->h[j], I->ax[j]);
  /* Its corners in cyclic order; corner i lies on edges i - 1 and i. */
  static const double su[4] = {1, -1, -1, 1}, sv[4] = {1, 1, -1, -1};
  ClipVert buf[2][CLIP_CAP];
  int n = 4, cur = 0;
  for (int i = 0; i < 4; ++i) {
    double x[3];
    lsim_v3_axpy(x, fc, su[i] * I->h[j1], I->ax[j1]);
    lsim_v3_axpy(buf[0][i].x, x, sv[i] * I->h[j2], I->ax[j2]);
    buf[0][i].l0 = i == 0 ? 0 : i - 1;
    buf[0][i].l1 = i == 0 ? 3 : i;
  }
  ClipVert corner[4]; /* the face's corners, kept for the fallback below */
  memcpy(corner, buf[0], sizeof corner);
  /* Clip against the reference face's four side planes. */
  const double tol = 1e-12 * (1.0 + max2(Rb->h[0], max2(Rb->h[1], Rb->h[2])) +
                              max2(fabs(Rb->c[0]), max2(fabs(Rb->c[1]), fabs(Rb->c[2]))));
  for (int p = 0; p < 4 && n > 0; ++p) {
    const int axis = (k + 1 + p / 2) % 3;
    double pn[3];
    lsim_v3_scale(pn, Rb->ax[axis], (p % 2) ? -1.0 : 1.0);
    const double off = lsim_v3_dot(pn, Rb->c) + Rb->h[axis];
    const int kept = clip_polygon(buf[cur], n, buf[1 - cur], pn, off, tol, 4 + p);
    if (kept >= 0) n = kept, cur = 1 - cur; /* else the polygon stays in buf[cur] */
  }
  /* Keep vertices below the reference face within margin; the point is midway between
     the vertex and its projection on the face. */
  lsim_v3_axpy(rc, Rb->c, Rb->h[k], nR);
  lsim_v3_scale(normal, nR, ref_second ? -1.0 : 1.0);
  const int ref_face = 2 * k + (s < 0.0), inc_face = 2 * j + (si < 0.0);
  for (int i = 0; i < n; ++i) {
    double e[3], x[3];
    lsim_v3_sub(e, buf[cur][i].x, rc);
    const double gap = lsim_v3_dot(e, nR);
    lsim_v3_axpy(x, buf[cur][i].x, -0.5 * gap, nR);
    emit(m, x, normal, gap,
         face_feature3(ref_second, ref_face, inc_face, buf[cur][i].l0, buf[cur][i].l1));
  }
  /* Nothing left within the margin (the incident face's low corner lies just outside a
     side plane, and clipping cut away the part of the face in reach): one point at the
     corner nearest to the reference face's rectangle, with the gap of the deepest corner.
     That is the face axis's separation, a lower bound of the distance, so the pair is held
     from the step it comes within reach (without it a falling box passed the corner of a
     static one and was found 2 cm deep a step later). */
  if (m->n == 0) {
    int near = 0;
    double glow = HUGE_VAL, dnear = HUGE_VAL;
    for (int i = 0; i < 4; ++i) {
      double e[3], r[3];
      lsim_v3_sub(e, corner[i].x, rc);
      const double g = lsim_v3_dot(e, nR);
      lsim_v3_sub(r, corner[i].x, Rb->c);
      double d2 = g * g;
      for (int t = 1; t <= 2; ++t) {
        const int a = (k + t) % 3;
        const double out = fabs(lsim_v3_dot(r, Rb->ax[a])) - Rb->h[a];
        if (out > 0.0) d2 += out * out;
      }
      glow = fmin(glow, g);
      if (d2 < dnear) dnear = d2, near = i;
    }
    double x[3];
    lsim_v3_axpy(x, corner[near].x, -0.5 * glow, nR);
    emit(m, x, normal, glow,
         face_feature3(ref_second, ref_face, inc_face, corner[near].l0, corner[near].l1));
  }
  lsim_geom_reduce(m);
}

/* 3-D edge-edge contact: edge axis i of A and j of B along the unit axis L (from A to B),
 * separation sep: one point between the two support edges. */
static void box_edge3(Manifold *m, const Placed *A, const Placed *B, int i, int j,
                      const double L[3], double sep) {
  double ca[3], cb[3], a0[3], a1[3], b0[3], b1[3], pa[3], pb[3], x[3];
  int sa = 0, sb = 0;
  lsim_v3_copy(ca, A->c);
  lsim_v3_copy(cb, B->c);
  /* The edge of A farthest along L and the edge of B farthest along -L. */
  for (int t = 1; t <= 2; ++t) {
    const int ka = (i + t) % 3, kb = (j + t) % 3;
    const double ga = sgn(lsim_v3_dot(L, A->ax[ka])), gb = -sgn(lsim_v3_dot(L, B->ax[kb]));
    lsim_v3_axpy(ca, ca, ga * A->h[ka], A->ax[ka]);
    lsim_v3_axpy(cb, cb, gb * B->h[kb], B->ax[kb]);
    sa |= (ga < 0.0) << (t - 1);
    sb |= (gb < 0.0) << (t - 1);
  }
  lsim_v3_axpy(a0, ca, -A->h[i], A->ax[i]);
  lsim_v3_axpy(a1, ca, A->h[i], A->ax[i]);
  lsim_v3_axpy(b0, cb, -B->h[j], B->ax[j]);
  lsim_v3_axpy(b1, cb, B->h[j], B->ax[j]);
  double s, t;
  closest_segments(a0, a1, b0, b1, &s, &t, pa, pb);
  lsim_v3_lerp(x, pa, pb, 0.5);
  emit(m, x, L, sep, 9216 + ((i * 3 + j) * 4 + sa) * 4 + sb);
}

/* Box-box in 3-D: separating axes, then face clipping or an edge point. */
void lsim_geom_box_box3(Manifold *m, const Placed *A, const Placed *B) {
  double d[3];
  lsim_v3_sub(d, B->c, A->c);
  const double tol = 1e-9 * max2(max2(max2(A->h[0], A->h[1]), max2(A->h[2], B->h[0])),
                                 max2(B->h[1], B->h[2]));
  /* Face axes of A and of B: the best (largest) separation of each. The projection radii
     share C[i][j] = a_i . b_j (box_radius's products and sums, in its order). */
  double sA = -HUGE_VAL, sB = -HUGE_VAL, sE = -HUGE_VAL, LE[3] = {0, 0, 0}, C[3][3];
  int iA = 0, jB = 0, iE = -1, jE = -1;
  for (int k = 0; k < 3; ++k) {
    for (int j = 0; j < 3; ++j) C[k][j] = lsim_v3_dot(B->ax[j], A->ax[k]);
    const double rb = B->h[0] * fabs(C[k][0]) + B->h[1] * fabs(C[k][1]) + B->h[2] * fabs(C[k][2]);
    const double s = fabs(lsim_v3_dot(d, A->ax[k])) - A->h[k] - rb;
    if (!(s <= m->margin)) return;
    if (s > sA) sA = s, iA = k;
  }
  for (int k = 0; k < 3; ++k) {
    const double ra = A->h[0] * fabs(C[0][k]) + A->h[1] * fabs(C[1][k]) + A->h[2] * fabs(C[2][k]);
    const double s = fabs(lsim_v3_dot(d, B->ax[k])) - B->h[k] - ra;
    if (!(s <= m->margin)) return;
    if (s > sB) sB = s, jB = k;
  }
  /* Edge axes a_i x b_j, skipped when the edges are parallel (the faces cover them): the
     nine separations at once (lsim_geom_box_edge_seps), then taken in order; the best
     axis's unit vector computed again (the same operations: the same bits). */
  double len[LSIM_EDGE_SLOTS], sep[LSIM_EDGE_SLOTS];
  lsim_geom_box_edge_seps(A, B, d, len, sep);
  for (int k = 0; k < 9; ++k) {
    if (len[k] < PARALLEL_SIN) continue;
    if (!(sep[k] <= m->margin)) return;
    if (sep[k] > sE) sE = sep[k], iE = k / 3, jE = k % 3;
  }
  if (iE >= 0) {
    double L[3], n, dl, s;
    edge_axis(A, B, 3 * iE + jE, d, L, &n, &dl, &s);
    lsim_v3_scale(LE, L, sgn(dl));
  }
  /* Face axes win ties: B only if clearly better than A, an edge if clearly better. */
  const int ref_second = sB > sA + FACE_BIAS * fabs(sA) + tol;
  const double sF = ref_second ? sB : sA;
  const double *nF = ref_second ? B->ax[jB] : A->ax[iA];
  if (iE >= 0 && sE > sF + EDGE_BIAS * fabs(sF) + tol &&
      fabs(lsim_v3_dot(LE, nF)) < EDGE_FACE_COS) {
    box_edge3(m, A, B, iE, jE, LE, sE);
    /* And the reference face's clipped points within the margin, those no deeper than
       the edge axis's separation (a lower bound of the distance, so every true point of
       the incident face over the reference face is kept; deeper ones would be a corner
       poked through a thin box, or the clip's fallback): a thin box pivoting on the edge
       swings its far end onto the face within the step, which the one edge point let
       sink 2-4 cm at 10-30 rad/s. */
    Manifold f;
    f.n = 0, f.margin = m->margin, f.dim = m->dim;
    if (ref_second) box_face3(&f, B, A, jB, 1);
    else box_face3(&f, A, B, iA, 0);
    for (int i = 0; i < f.n; ++i)
      if (f.p[i].gap >= sE) emit(m, f.p[i].point, f.p[i].normal, f.p[i].gap, f.p[i].feature);
    return;
  }
  if (ref_second) box_face3(m, B, A, jB, 1);
  else box_face3(m, A, B, iA, 0);
}

/* 2-D face contact: side k of reference rectangle Rb against the most anti-parallel side
 * of I, clipped by Rb's two side lines. */
static void box_face2(Manifold *m, const Placed *Rb, const Placed *I, int k, int ref_second) {
  double d[3], nR[3], fc[3], rc[3], normal[3], v[2][3];
  lsim_v3_sub(d, I->c, Rb->c);
  const double s = sgn(lsim_v3_dot(d, Rb->ax[k]));
  lsim_v3_scale(nR, Rb->ax[k], s);
  const int j = fabs(lsim_v3_dot(nR, I->ax[0])) >= fabs(lsim_v3_dot(nR, I->ax[1])) ? 0 : 1;
  const double si = lsim_v3_dot(nR, I->ax[j]) > 0.0 ? -1.0 : 1.0;
  lsim_v3_axpy(fc, I->c, si * I->h[j], I->ax[j]);
  lsim_v3_axpy(v[0], fc, I->h[1 - j], I->ax[1 - j]);
  lsim_v3_axpy(v[1], fc, -I->h[1 - j], I->ax[1 - j]);
  int id[2] = {0, 1};
  /* Clip the incident side against the two side lines of the reference side. */
  /* (An end within tol outside counts as inside; crossings are on the exact line.) */
  const int kt = 1 - k;
  const double tol =
      1e-12 * (1.0 + fmax(Rb->h[0], Rb->h[1]) + fmax(fabs(Rb->c[0]), fabs(Rb->c[1])));
  for (int p = 0; p < 2; ++p) {
    double pn[3];
    lsim_v3_scale(pn, Rb->ax[kt], p ? -1.0 : 1.0);
    const double off = lsim_v3_dot(pn, Rb->c) + Rb->h[kt];
    const double d0 = lsim_v3_dot(pn, v[0]) - off, d1 = lsim_v3_dot(pn, v[1]) - off;
    if (d0 > tol && d1 > tol) return;
    if (d0 > tol && d1 < 0.0) lsim_v3_lerp(v[0], v[0], v[1], d0 / (d0 - d1)), id[0] = 2 + p;
    else if (d1 > tol && d0 < 0.0) lsim_v3_lerp(v[1], v[1], v[0], d1 / (d1 - d0)), id[1] = 2 + p;
  }
  /* Both ends below the reference side within margin. */
  lsim_v3_axpy(rc, Rb->c, Rb->h[k], nR);
  lsim_v3_scale(normal, nR, ref_second ? -1.0 : 1.0);
  const int base = ((ref_second * 4 + 2 * k + (s < 0.0)) * 4 + 2 * j + (si < 0.0)) * 4;
  for (int i = 0; i < 2; ++i) {
    double e[3], x[3];
    lsim_v3_sub(e, v[i], rc);
    const double gap = lsim_v3_dot(e, nR);
    lsim_v3_axpy(x, v[i], -0.5 * gap, nR);
    emit(m, x, normal, gap, base + id[i]);
  }
}

/* Rectangle-rectangle in 2-D: separating axes over the 4 side normals, then clipping. */
void lsim_geom_box_box2(Manifold *m, const Placed *A, const Placed *B) {
  double d[3];
  lsim_v3_sub(d, B->c, A->c);
  const double tol = 1e-9 * fmax(fmax(A->h[0], A->h[1]), fmax(B->h[0], B->h[1]));
  double sA = -HUGE_VAL, sB = -HUGE_VAL;
  int iA = 0, jB = 0;
  for (int k = 0; k < 2; ++k) {
    const double s = fabs(lsim_v3_dot(d, A->ax[k])) - A->h[k] - box_radius(B, A->ax[k]);
    if (!(s <= m->margin)) return;
    if (s > sA) sA = s, iA = k;
  }
  for (int k = 0; k < 2; ++k) {
    const double s = fabs(lsim_v3_dot(d, B->ax[k])) - B->h[k] - box_radius(A, B->ax[k]);
    if (!(s <= m->margin)) return;
    if (s > sB) sB = s, jB = k;
  }
  if (sB > sA + FACE_BIAS * fabs(sA) + tol) box_face2(m, B, A, jB, 1);
  else box_face2(m, A, B, iA, 0);
}

/* The part of segment P0 + t u (box frame) within the side planes of face axis k (the
 * planes |p_j| = h_j + tol, j != k): [*ta, *tb], empty when *ta > *tb. */
static void clip_to_prism(const double P0[3], const double u[3], const double h[3], int k,
                          int nax, double tol, double *ta, double *tb) {
  *ta = 0.0, *tb = 1.0;
  for (int j = 0; j < nax && *ta <= *tb; ++j) {
    if (j == k) continue;
    if (u[j] == 0.0) {
      if (fabs(P0[j]) > h[j] + tol) *ta = 1.0, *tb = 0.0;
      continue;
    }
    double tl = (-h[j] - tol - P0[j]) / u[j], th = (h[j] + tol - P0[j]) / u[j];
    if (tl > th) { const double tt = tl; tl = th, th = tt; }
    *ta = fmax(*ta, tl), *tb = fmin(*tb, th);
  }
}

/* The ends of segment part [ta, tb] (box frame) against face (k, side s) of box A: each
 * at its height above the face, s p_k - h_k - r (the exact distance of a capsule point
 * over the face), midway between the capsule surface and the face. Feature
 * 1 + 2 * face + end. */
static void face_ends(Manifold *m, const Placed *A, const double P0[3], const double P1[3],
                      int k, double s, double r, double ta, double tb) {
  double nl[3] = {0, 0, 0}, nw[3];
  nl[k] = s;
  lsim_m3_apply(nw, A->R, nl);
  const int nend = tb > ta ? 2 : 1;
  for (int e = 0; e < nend; ++e) {
    double p[3], xw[3];
    lsim_v3_lerp(p, P0, P1, e ? tb : ta);
    const double g = s * p[k] - A->h[k] - r;
    p[k] -= s * (r + 0.5 * g);
    to_world(xw, A, p);
    emit(m, xw, nw, g, 1 + 2 * (2 * k + (s < 0.0)) + e);
  }
}

/* Capsule end P (box frame) outside box A: the point midway between the capsule surface
 * and the box's nearest point (clamping, Ericson 5.1.3), normal from that point to P, gap
 * the distance minus r (feature 13 + end). An end on or in the box (no direction) gives
 * nothing. */
static void end_point(Manifold *m, const Placed *A, const double P[3], double r,
                      double scale, int end) {
  double q[3], d[3], x[3], xw[3], nw[3];
  for (int k = 0; k < 3; ++k) q[k] = fmin(fmax(P[k], -A->h[k]), A->h[k]);
  lsim_v3_sub(d, P, q);
  const double de = lsim_v3_norm(d);
  if (!(de > 1e-12 * scale)) return;
  lsim_v3_scale(d, d, 1.0 / de);
  lsim_v3_axpy(x, P, -(r + 0.5 * (de - r)), d);
  to_world(xw, A, x);
  lsim_m3_apply(nw, A->R, d);
  emit(m, xw, nw, de - r, 13 + end);
}

/* Box a against capsule b, in the box frame. Disjoint: exact closest points of segment
 * and box; intersecting: least-penetration axis over the box faces and the segment
 * direction crossed with the box axes (2-D: the segment's normal). A face normal clips
 * the segment to that face (two points), anything else gives one point. */
void lsim_geom_box_capsule(Manifold *m, const Placed *A, const Placed *B) {
  const int nax = m->dim;
  const double *h = A->h, r = B->r;
  double w0[3], w1[3], P0[3], P1[3], u[3];
  capsule_ends(B, m->dim, w0, w1);
  to_local(P0, A, w0);
  to_local(P1, A, w1);
  if (nax == 2) P0[2] = P1[2] = 0.0;
  lsim_v3_sub(u, P1, P0);

  /* Does the segment meet the box? (slab test, Ericson 5.3.3) */
  double t0 = 0.0, t1 = 1.0;
  for (int k = 0; k < nax && t0 <= t1; ++k) {
    if (u[k] == 0.0) {
      if (fabs(P0[k]) > h[k]) t0 = 1.0, t1 = 0.0;
      continue;
    }
    double ta = (-h[k] - P0[k]) / u[k], tb = (h[k] - P0[k]) / u[k];
    if (ta > tb) { const double tt = ta; ta = tb, tb = tt; }
    t0 = fmax(t0, ta), t1 = fmin(t1, tb);
  }
  const int meets = t0 <= t1;

  double n[3] = {0, 0, 0}, pseg[3] = {0, 0, 0}, gap = 0.0;
  int face_k = -1;
  const double scale = 1.0 + fmax(fmax(h[0], h[1]), fmax(h[2], B->h[0]));
  double dist = 0.0;
  if (!meets) {
    /* Disjoint: the minimum over the clamped end points and the segment against every box
       edge is the exact distance (the closest pair lies on one of these features). */
    double best = HUGE_VAL, pbox[3] = {0, 0, 0};
    for (int e = 0; e < 2; ++e) {
      const double *P = e ? P1 : P0;
      double q[3];
      for (int k = 0; k < 3; ++k) q[k] = fmin(fmax(P[k], -h[k]), h[k]);
      const double d2 = lsim_v3_dist2(P, q);
      if (d2 < best) best = d2, lsim_v3_copy(pseg, P), lsim_v3_copy(pbox, q);
    }
    for (int k = 0; k < nax; ++k) {
      const int o1 = (k + 1) % nax, o2 = (k + 2) % nax;
      const int ncomb = nax == 3 ? 4 : 2;
      for (int c = 0; c < ncomb; ++c) {
        double E0[3] = {0, 0, 0}, E1[3], cs[3], cb[3], s, t;
        E0[o1] = (c & 1) ? -h[o1] : h[o1];
        if (nax == 3) E0[o2] = (c & 2) ? -h[o2] : h[o2];
        lsim_v3_copy(E1, E0);
        E0[k] = -h[k], E1[k] = h[k];
        closest_segments(P0, P1, E0, E1, &s, &t, cs, cb);
        const double d2 = lsim_v3_dist2(cs, cb);
        if (d2 < best) best = d2, lsim_v3_copy(pseg, cs), lsim_v3_copy(pbox, cb);
      }
    }
    dist = sqrt(best);
    if (!(dist - r <= m->margin)) return;
    lsim_v3_sub(n, pseg, pbox);
    if (nax == 2) n[2] = 0.0;
    gap = dist - r;
    if (dist > 1e-12 * scale) lsim_v3_scale(n, n, 1.0 / dist);
  }
  if (meets || dist <= 1e-12 * scale) {
    /* Intersecting (or touching): axis of least penetration, face axes preferred. */
    double best = HUGE_VAL;
    int best_is_face = 0;
    const int naxes = nax == 3 ? 6 : 3;
    for (int a = 0; a < naxes; ++a) {
      double L[3] = {0, 0, 0};
      if (a < nax) {
        L[a] = 1.0;
      } else if (nax == 3) {
        double e[3] = {0, 0, 0};
        e[a - 3] = 1.0;
        lsim_v3_cross(L, u, e);
        const double len = lsim_v3_norm(L), lu = lsim_v3_norm(u);
        if (!(len > PARALLEL_SIN * lu)) continue;
        lsim_v3_scale(L, L, 1.0 / len);
      } else {
        const double lu = lsim_v3_norm(u);
        if (!(lu > 0.0)) continue;
        lsim_v3_set(L, -u[1] / lu, u[0] / lu, 0.0);
      }
      const double rb = h[0] * fabs(L[0]) + h[1] * fabs(L[1]) + h[2] * fabs(L[2]);
      const double s0 = lsim_v3_dot(L, P0), s1 = lsim_v3_dot(L, P1);
      const double up = rb - fmin(s0, s1), down = fmax(s0, s1) + rb;
      const double depth = fmin(up, down);
      const double dir = up < down ? 1.0 : (up > down ? -1.0 : sgn(s0 + s1));
      const int is_face = a < nax;
      if (is_face ? depth < best : depth < (1.0 - EDGE_BIAS) * best - 1e-12 * scale) {
        best = depth, best_is_face = is_face;
        lsim_v3_scale(n, L, dir);
        face_k = is_face ? a : -1;
      }
    }
    gap = -best - r;
    if (!(gap <= m->margin)) return;
    /* Cross axes: the segment point nearest the box's support edge (3-D) or corner (2-D)
       along n; face axes: the segment point deepest along -n. */
    if (!best_is_face) {
      int k = 0;
      for (int a = 0; a < nax; ++a)
        if (fabs(n[a]) < fabs(n[k])) k = a;
      double E0[3] = {0, 0, 0}, E1[3], cb[3], s, t;
      for (int a = 0; a < nax; ++a) E0[a] = h[a] * sgn(n[a]);
      lsim_v3_copy(E1, E0);
      if (nax == 3) E0[k] = -h[k], E1[k] = h[k];
      closest_segments(P0, P1, E0, E1, &s, &t, pseg, cb);
    } else {
      const double s0 = lsim_v3_dot(n, P0), s1 = lsim_v3_dot(n, P1);
      if (s0 < s1) lsim_v3_copy(pseg, P0);
      else if (s1 < s0) lsim_v3_copy(pseg, P1);
      else lsim_v3_lerp(pseg, P0, P1, 0.5);
    }
  } else {
    /* Disjoint: a normal along a face normal (within rounding) is a face contact; so is
       one within EDGE_FACE_COS of it when the segment lies within that angle of the face
       (a roller under a box rocking on it: the closest points lie just past the face's
       border by the tilt and went from end to end, one point at a time; Box2D v3 keeps
       two points there). The clipped ends' heights exceed the distance by a fraction
       below 1e-3 of it. */
    int kmax = 0;
    for (int k = 1; k < nax; ++k)
      if (fabs(n[k]) > fabs(n[kmax])) kmax = k;
    if (fabs(n[kmax]) >= 1.0 - FACE_ALIGN ||
        (fabs(n[kmax]) >= EDGE_FACE_COS && fabs(u[kmax]) <= EDGE_FACE_SIN * lsim_v3_norm(u)))
      face_k = kmax;
  }

  /* Face contact: clip the segment to the face's side planes; both ends are points. */
  if (face_k >= 0) {
    const int k = face_k;
    /* Exact side planes first; a segment just touching the face's border (rounding) is
       clipped by the planes pushed out by tol. */
    double ta, tb;
    clip_to_prism(P0, u, h, k, nax, 0.0, &ta, &tb);
    if (ta > tb) clip_to_prism(P0, u, h, k, nax, 1e-12 * scale, &ta, &tb);
    if (ta <= tb) {
      face_ends(m, A, P0, P1, k, sgn(n[k]), r, ta, tb);
      /* An end beyond the face's side planes (the part of the segment past a border)
         gets its own point at its distance to the box, within the margin: a capsule
         spinning over the face's edge otherwise swings that end into the box within one
         step with no row to stop it (6.8 mm in a pile at 5-10 rad/s). */
      for (int e = 0; e < 2; ++e)
        if (e ? tb < 1.0 : ta > 0.0) end_point(m, A, e ? P1 : P0, r, scale, e);
      return;
    }
  }
  /* One point: midway between the capsule surface pseg - r n and the box. */
  double x[3], xw[3], nw[3];
  lsim_v3_axpy(x, pseg, -(r + 0.5 * gap), n);
  to_world(xw, A, x);
  lsim_m3_apply(nw, A->R, n);
  emit(m, xw, nw, gap, 0);
  if (meets || dist <= 1e-12 * scale) return;
  /* Disjoint at an edge or corner: the rest of the segment is held too, within the
     margin, so a capsule pivoting on the edge does not swing its far end into the box
     within the step (one point let it sink 3 cm at 20 rad/s): the segment's part over
     each face (between its side planes) by its two ends at their heights over the face,
     and an end beside an edge or corner by its distance to the box (feature 13 + end). */
  for (int k = 0; k < nax; ++k) {
    double ta, tb;
    clip_to_prism(P0, u, h, k, nax, 0.0, &ta, &tb);
    if (ta > tb) continue;
    double pm[3];
    lsim_v3_lerp(pm, P0, P1, 0.5 * (ta + tb));
    face_ends(m, A, P0, P1, k, sgn(pm[k]), r, ta, tb);
  }
  for (int e = 0; e < 2; ++e) {
    const double *P = e ? P1 : P0;
    int outside = 0;
    for (int k = 0; k < nax; ++k) outside += fabs(P[k]) > h[k];
    if (outside < 2 || lsim_v3_dist2(P, pseg) <= 1e-24 * scale * scale) continue;
    end_point(m, A, P, r, scale, e);
  }
}

/* ---- A face contact's clip vertex, continued past its face ------------------------ */

/* Side plane `bit` of face f of box P (bit 2 t + (1 on the negative side) for the side
 * along axis (f / 2 + 1 + t) mod 3, as in face_feature3): outward unit normal pn and
 * offset, the plane pn . x = off. */
static void face_side_plane(const Placed *P, int f, int bit, double pn[3], double *off) {
  const int axis = (f / 2 + 1 + bit / 2) % 3;
  lsim_v3_scale(pn, P->ax[axis], (bit % 2) ? -1.0 : 1.0);
  *off = lsim_v3_dot(pn, P->c) + P->h[axis];
}

int lsim_geom_face_vertex3(const Placed *A, const Placed *B, int feature, int ref_second,
                           LsimContactPoint *out, double *margin, double *role) {
  if (feature < 0 || feature >= 9216) return -1;
  const int fa = feature / 256 / 6, fb = feature / 256 % 6;
  const int mask[2] = {(feature / 16) % 16, feature % 16};
  if (__builtin_popcount((unsigned)mask[0]) + __builtin_popcount((unsigned)mask[1]) != 2) return -1;
  const Placed *Rb = ref_second ? B : A, *I = ref_second ? A : B;
  const int fr = ref_second ? fb : fa, fi = ref_second ? fa : fb;
  /* The reference face's outward normal and point (box_face3's nR and rc); the incident
     face's plane, in which every clip vertex lies. */
  double nR[3], rc[3], nI[3];
  const int k = fr / 2, j = fi / 2;
  lsim_v3_scale(nR, Rb->ax[k], (fr % 2) ? -1.0 : 1.0);
  lsim_v3_axpy(rc, Rb->c, Rb->h[k], nR);
  lsim_v3_scale(nI, I->ax[j], (fi % 2) ? -1.0 : 1.0);
  /* The vertex: the incident face's plane and the two side planes its feature names. */
  double M[3][3], r[3];
  lsim_v3_copy(M[0], nI);
  r[0] = lsim_v3_dot(nI, I->c) + I->h[j];
  int row = 1;
  const Placed *box[2] = {A, B};
  const int face[2] = {fa, fb};
  for (int s = 0; s < 2; ++s)
    for (int bit = 0; bit < 4; ++bit)
      if (mask[s] & (1 << bit)) {
        face_side_plane(box[s], face[s], bit, M[row], &r[row]);
        ++row;
      }
  double c12[3], c20[3], c01[3];
  lsim_v3_cross(c12, M[1], M[2]);
  lsim_v3_cross(c20, M[2], M[0]);
  lsim_v3_cross(c01, M[0], M[1]);
  const double det = lsim_v3_dot(M[0], c12);
  if (!(fabs(det) > 1e-9)) return -1; /* the planes do not meet in one point */
  double P[3];
  for (int d = 0; d < 3; ++d) P[d] = (r[0] * c12[d] + r[1] * c20[d] + r[2] * c01[d]) / det;
  /* Gap, point and normal as box_face3 writes them. */
  double e[3];
  lsim_v3_sub(e, P, rc);
  const double gap = lsim_v3_dot(e, nR);
  lsim_v3_axpy(out->point, P, -0.5 * gap, nR);
  lsim_v3_scale(out->normal, nR, ref_second ? -1.0 : 1.0);
  out->gap = gap;
  out->feature = feature;
  /* The margin: the vertex's least distance inside the other side planes of both faces,
     plus twice the clip's tolerance (box_face3's: a vertex that far out is cut), so that
     at margin <= 0 detection has the vertex no more. */
  const double tol = 1e-12 * (1.0 + max2(Rb->h[0], max2(Rb->h[1], Rb->h[2])) +
                              max2(fabs(Rb->c[0]), max2(fabs(Rb->c[1]), fabs(Rb->c[2]))));
  double least = HUGE_VAL;
  for (int s = 0; s < 2; ++s)
    for (int bit = 0; bit < 4; ++bit) {
      if (mask[s] & (1 << bit)) continue;
      double pn[3], off;
      face_side_plane(box[s], face[s], bit, pn, &off);
      least = fmin(least, off - lsim_v3_dot(pn, P));
    }
  *margin = least + 2.0 * tol;
  /* The reference face box_box3 picks: B's when its face axes' best separation exceeds
     A's by FACE_BIAS |sA| + tol (the same products and sums). role: how far the pair is
     from turning the choice away from ref_second's face, in metres. */
  double d[3], C[3][3], sA = -HUGE_VAL, sB = -HUGE_VAL;
  lsim_v3_sub(d, B->c, A->c);
  for (int kk = 0; kk < 3; ++kk) {
    for (int jj = 0; jj < 3; ++jj) C[kk][jj] = lsim_v3_dot(B->ax[jj], A->ax[kk]);
    const double rb = B->h[0] * fabs(C[kk][0]) + B->h[1] * fabs(C[kk][1]) + B->h[2] * fabs(C[kk][2]);
    sA = fmax(sA, fabs(lsim_v3_dot(d, A->ax[kk])) - A->h[kk] - rb);
  }
  for (int kk = 0; kk < 3; ++kk) {
    const double ra = A->h[0] * fabs(C[0][kk]) + A->h[1] * fabs(C[1][kk]) + A->h[2] * fabs(C[2][kk]);
    sB = fmax(sB, fabs(lsim_v3_dot(d, B->ax[kk])) - B->h[kk] - ra);
  }
  const double ptol = 1e-9 * max2(max2(max2(A->h[0], A->h[1]), max2(A->h[2], B->h[0])),
                                  max2(B->h[1], B->h[2]));
  const double r2 = sB - (sA + FACE_BIAS * fabs(sA) + ptol);
  *role = ref_second ? r2 : -r2;
  return 0;
}
