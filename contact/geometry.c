/* geometry.c: narrow phase (contact points of one shape pair) and bounding boxes.
 *
 * Algorithms. Every routine is a pure function of two placed shapes; it writes points
 * into a fixed manifold buffer (no allocation).
 *   - Round pairs (sphere, point, capsule segment against sphere/point) reduce to two
 *     centers with radii: the closest point on a segment (Ericson, Real-Time Collision
 *     Detection, 2005, 5.1.2) and the distance of centers.
 *   - Plane pairs test the support points of the other shape against the half-space:
 *     the 8 (2-D: 4) box corners, the 2 capsule end centers, a center.
 *   - Box-sphere/point: closest point on the box by clamping in the box frame (Ericson
 *     5.1.3); a center inside the box is pushed out through the nearest face.
 *   - Box-box, 3-D: separating axis test over the 15 axes (3 + 3 face normals, 9 edge
 *     cross products; Gottschalk, Lin, Manocha, OBBTree, SIGGRAPH 1996; Ericson 4.4.1),
 *     with a bias toward face axes (an edge axis must separate clearly better, as in ODE's
 *     dBoxBox and Bullet's btBoxBoxDetector, and not lie within ~1 degree of the face
 *     normal, which near-parallel faces would otherwise flip to), then the incident face
 *     (the face of the other box most anti-parallel to the reference normal) is clipped
 *     against the four
 *     side planes of the reference face (Sutherland-Hodgman) and the clipped vertices
 *     below the reference face within margin are kept, reduced to 4 (the deepest, the
 *     farthest from it, then the largest triangle areas on either side). Edge-edge
 *     contact gives the one point between the two support edges.
 *   - Box-box, 2-D: the same over the 4 face normals, the incident edge clipped against
 *     the reference face's two side lines, at most 2 points (Catto, Box2D Lite, 2006).
 *   - Box-capsule: the exact distance of the segment to the box when they are disjoint
 *     (minimum over the two end points clamped to the box and the segment against the 12
 *     (2-D: 4) box edges), else a separating axis test over the box faces and the segment
 *     direction crossed with the box axes. When the normal is a box face normal the
 *     segment is clipped to that face's side planes and both clipped ends are contacts
 *     (a capsule lying on a face touches at two points); otherwise one point.
 *   - Capsule-capsule: closest points of two segments (Ericson 5.1.9); nearly parallel
 *     segments whose projections overlap give the two ends of the overlap (as in
 *     Box2D v3's capsule manifold).
 *
 * Conventions. Normals point from b towards a (a moves along +normal to separate); the
 * gap is the signed distance along the normal (< 0: overlap); the point is midway
 * between the two surfaces. Internally every pair is computed in a canonical order of
 * types (plane, box, capsule, sphere, point) with the normal from the first shape to the
 * second, then flipped for the caller; two shapes of the same type are ordered by size
 * (larger first), then by position (the "up" coordinate, z in 3-D and y in 2-D, first),
 * then by orientation. So lsim_collide(a, b) and lsim_collide(b, a) give the same points,
 * gaps and features with opposite normals, exactly.
 *
 * Feature ids (stable while the same features touch; unique within one pair):
 *   - anything against a sphere or point: 0;
 *   - plane-box: the corner index, bit k set when the corner is on the -axis k side;
 *   - plane-capsule: 0 for the end at -half[0] along the axis, 1 for +half[0];
 *   - box-box 3-D, face contact: ((r * 6 + reference face) * 6 + incident face) * 64 + c,
 *     where r = 0 when the reference face belongs to the canonically first box, faces are
 *     2 * axis + (1 on the negative side), and c = 8 * l0 + l1 (l0 < l1) names the two
 *     boundary lines the clip vertex lies on: incident face edges 0..3, reference side
 *     planes 4..7 (an incident corner is two incident edges; an edge crossing a side
 *     plane is an edge and a plane; a reference corner is two planes);
 *   - box-box 3-D, edge contact: 4608 + ((i * 3 + j) * 4 + sa) * 4 + sb, i, j the edge
 *     axes of the first and second box, sa, sb the sides (2 bits) of the support edges;
 *   - box-box 2-D: ((r * 4 + reference face) * 4 + incident face) * 4 + e, e = 0, 1 for an
 *     incident vertex, 2 + p for one clipped by the reference side line p;
 *   - box-capsule: 0 for a single point; 1 + 2 * face + end for the two clipped ends of a
 *     face contact (end 0 toward the capsule's -axis end);
 *   - capsule-capsule: 0 for a single point; 1 and 2 for the ends of a parallel overlap.
 *
 * Failure modes and limits. Degenerate normals (coincident centers, a center on a
 * capsule's axis, intersecting segments) take a deterministic fallback axis (the up
 * axis, a fixed perpendicular of the segment, or the cross product of the segments), so
 * the normal is defined but arbitrary. Deep penetrations use the separating axis of least
 * penetration, which is sensible but can jump when two axes tie. The box-box separation
 * over 15 axes bounds the distance from below, so a manifold may be reported when boxes
 * are apart by slightly more than the margin corner to corner. Two identical shapes at
 * the same pose cannot be ordered, so swap symmetry does not hold for them. Same-size
 * boxes stacked exactly keep their roles (and feature ids) only while the lower one
 * stays lower. Inputs with NaN give no points (every comparison against the margin is
 * false).
 */
#include "contact/geometry.h"

#include <math.h>
#include <string.h>

#include "contact/math3.h"

/* Box-box: B's face replaces A's as reference only if its separation is larger by this
 * fraction of |separation| (plus a length tolerance); an edge axis replaces the faces only
 * if larger by EDGE_BIAS. Hysteresis that keeps resting manifolds from flickering. */
#define FACE_BIAS 0.02
#define EDGE_BIAS 0.05
/* An edge axis within this cosine of the chosen face normal is that face in disguise
 * (near-parallel faces, e.g. a box rocking on a box): the face manifold is kept. */
#define EDGE_FACE_COS 0.9998
/* Cross products shorter than this (sine of the angle) are parallel edges: no axis. */
#define PARALLEL_SIN 1e-6
/* Capsules whose axes make a sine below this are parallel: two-point manifold. */
#define CAPSULE_PARALLEL_SIN 1e-3
/* A closest-point normal within this of a box face normal (1 - cosine) is that face. */
#define FACE_ALIGN 1e-9

/* A shape placed in the world (geometry.h). */
typedef LsimPlaced Placed;

/* Points of one pair, in the internal convention (normal from the first shape to the
 * second). */
typedef struct Manifold {
  LsimContactPoint p[LSIM_MAX_MANIFOLD];
  int n;
  double margin;
  int dim;
} Manifold;

static double sgn(double x) { return x >= 0.0 ? 1.0 : -1.0; }
/* fmax without the library call, for tolerances: NaN arguments are ignored as fmax
 * ignores them; only the sign of a zero maximum may differ, which no comparison sees. */
static inline double max2(double a, double b) {
  if (a != a) return b;
  if (b != b) return a;
  return a > b ? a : b;
}
static double clamp01(double x) { return x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x); }

/* Appends a point when its gap is within the margin (NaN gaps are dropped). */
static void emit(Manifold *m, const double point[3], const double normal[3], double gap,
                 int feature) {
  if (!(gap <= m->margin) || m->n >= LSIM_MAX_MANIFOLD) return;
  LsimContactPoint *c = &m->p[m->n++];
  lsim_v3_copy(c->point, point);
  lsim_v3_copy(c->normal, normal);
  if (m->dim == 2) c->point[2] = 0.0, c->normal[2] = 0.0;
  c->gap = gap;
  c->feature = feature;
}

/* The up axis (3-D z, 2-D y): the fallback normal when nothing else defines one. */
static void up_axis(double n[3], int dim) {
  lsim_v3_set(n, 0.0, dim == 2 ? 1.0 : 0.0, dim == 2 ? 0.0 : 1.0);
}

/* A deterministic unit perpendicular of u (in the plane for 2-D); the up axis if u = 0. */
static void perpendicular(double n[3], const double u[3], int dim) {
  double v[3];
  lsim_v3_copy(v, u);
  if (dim == 2) v[2] = 0.0;
  if (lsim_v3_normalize(v) == 0.0) {
    up_axis(n, dim);
  } else if (dim == 2) {
    lsim_v3_set(n, -v[1], v[0], 0.0);
  } else {
    double t2[3];
    lsim_v3_tangents(v, n, t2);
  }
}

/* Places shape s at world pose ps: normalized rotation, axes, sizes. */
static void place(Placed *P, const LsimShape *s, const LsimPose *ps, int dim) {
  double q[4] = {ps->q[0], ps->q[1], ps->q[2], ps->q[3]};
  lsim_quat_normalize(q);
  lsim_quat_to_mat(P->R, q);
  for (int k = 0; k < 3; ++k)
    for (int i = 0; i < 3; ++i) P->ax[k][i] = P->R[3 * i + k];
  P->type = (int)s->type;
  lsim_v3_copy(P->c, ps->p);
  lsim_v3_copy(P->h, s->half);
  if (dim == 2) P->c[2] = 0.0, P->h[2] = 0.0;
  P->r = (s->type == LSIM_SHAPE_SPHERE || s->type == LSIM_SHAPE_CAPSULE) ? s->radius : 0.0;
}

/* World point of local coordinates l. */
static void to_world(double w[3], const Placed *P, const double l[3]) {
  lsim_m3_apply(w, P->R, l);
  lsim_v3_add(w, w, P->c);
}

/* Local coordinates of world point w. */
static void to_local(double l[3], const Placed *P, const double w[3]) {
  double d[3];
  lsim_v3_sub(d, w, P->c);
  lsim_m3_apply_t(l, P->R, d);
}

/* Capsule axis (3-D local z, 2-D local x) and its end centers. */
static const double *capsule_axis(const Placed *P, int dim) { return P->ax[dim == 2 ? 0 : 2]; }
static void capsule_ends(const Placed *P, int dim, double e0[3], double e1[3]) {
  const double *u = capsule_axis(P, dim);
  lsim_v3_axpy(e0, P->c, -P->h[0], u);
  lsim_v3_axpy(e1, P->c, P->h[0], u);
}

/* Plane normal (3-D local z, 2-D local y). */
static const double *plane_normal(const Placed *P, int dim) { return P->ax[dim == 2 ? 1 : 2]; }

/* Closest points c1 = p1 + s (q1 - p1), c2 = p2 + t (q2 - p2) of two segments (Ericson
 * 5.1.9); degenerate (zero-length) segments are points. */
static void closest_segments(const double p1[3], const double q1[3], const double p2[3],
                             const double q2[3], double *s_out, double *t_out, double c1[3],
                             double c2[3]) {
  double d1[3], d2[3], r[3];
  lsim_v3_sub(d1, q1, p1);
  lsim_v3_sub(d2, q2, p2);
  lsim_v3_sub(r, p1, p2);
  const double a = lsim_v3_dot(d1, d1), e = lsim_v3_dot(d2, d2), f = lsim_v3_dot(d2, r);
  double s = 0.0, t = 0.0;
  if (a <= 0.0 && e <= 0.0) {
    s = t = 0.0;
  } else if (a <= 0.0) {
    t = clamp01(f / e);
  } else {
    const double c = lsim_v3_dot(d1, r);
    if (e <= 0.0) {
      s = clamp01(-c / a);
    } else {
      /* General case; parallel segments (denominator ~ 0) start from s = 0. */
      const double b = lsim_v3_dot(d1, d2), denom = a * e - b * b;
      s = denom > 1e-14 * a * e ? clamp01((b * f - c * e) / denom) : 0.0;
      t = (b * s + f) / e;
      if (t < 0.0) t = 0.0, s = clamp01(-c / a);
      else if (t > 1.0) t = 1.0, s = clamp01((b - c) / a);
    }
  }
  lsim_v3_axpy(c1, p1, s, d1);
  lsim_v3_axpy(c2, p2, t, d2);
  *s_out = s, *t_out = t;
}

/* Keeps at most 4 of the manifold's points: the deepest, the farthest from it, the
 * largest triangle on one side of their line and the largest on the other (or the one
 * adding the most area when all lie on one side). Kept points keep their order. */
static void reduce4(Manifold *m) {
  if (m->n <= 4) return;
  const LsimContactPoint *p = m->p;
  const double *nrm = p[0].normal;
  int keep[4] = {0, -1, -1, -1};
  /* Deepest. */
  for (int i = 1; i < m->n; ++i)
    if (p[i].gap < p[keep[0]].gap) keep[0] = i;
  /* Farthest from it. */
  double best = -1.0;
  for (int i = 0; i < m->n; ++i) {
    const double d2 = lsim_v3_dist2(p[i].point, p[keep[0]].point);
    if (i != keep[0] && d2 > best) best = d2, keep[1] = i;
  }
  /* Signed triangle areas against the line keep[0]-keep[1]. */
  double area[LSIM_MAX_MANIFOLD], e01[3];
  lsim_v3_sub(e01, p[keep[1]].point, p[keep[0]].point);
  for (int i = 0; i < m->n; ++i) {
    double e[3], c[3];
    lsim_v3_sub(e, p[i].point, p[keep[0]].point);
    lsim_v3_cross(c, e01, e);
    area[i] = lsim_v3_dot(c, nrm);
  }
  best = -1.0;
  for (int i = 0; i < m->n; ++i)
    if (i != keep[0] && i != keep[1] && fabs(area[i]) > best) best = fabs(area[i]), keep[2] = i;
  /* The largest on the other side, else the one farthest from the chosen triangle's
     sides. */
  const double side = sgn(area[keep[2]]);
  best = 0.0;
  for (int i = 0; i < m->n; ++i)
    if (i != keep[0] && i != keep[1] && i != keep[2] && -side * area[i] > best)
      best = -side * area[i], keep[3] = i;
  if (keep[3] < 0) {
    best = -1.0;
    for (int i = 0; i < m->n; ++i) {
      if (i == keep[0] || i == keep[1] || i == keep[2]) continue;
      double extra = 0.0;
      for (int s = 0; s < 2; ++s) {
        double e1[3], e2[3], c[3];
        lsim_v3_sub(e1, p[keep[s]].point, p[keep[2]].point);
        lsim_v3_sub(e2, p[i].point, p[keep[2]].point);
        lsim_v3_cross(c, e1, e2);
        extra = fmax(extra, fabs(lsim_v3_dot(c, nrm)));
      }
      if (extra > best) best = extra, keep[3] = i;
    }
  }
  /* Compact in the original order. */
  LsimContactPoint out[4];
  int k = 0;
  for (int i = 0; i < m->n; ++i)
    if (i == keep[0] || i == keep[1] || i == keep[2] || i == keep[3]) out[k++] = p[i];
  memcpy(m->p, out, (size_t)k * sizeof out[0]);
  m->n = k;
}

/* ---- Round pairs ---------------------------------------------------------------- */

/* Two spheres (centers ca, cb, radii ra, rb; points have radius 0): normal from a to b,
 * or fallback when the centers coincide. */
static void round_round(Manifold *m, const double ca[3], double ra, const double cb[3],
                        double rb, const double fallback[3], int feature) {
  double n[3];
  lsim_v3_sub(n, cb, ca);
  if (m->dim == 2) n[2] = 0.0;
  const double dist = lsim_v3_norm(n);
  const double gap = dist - ra - rb;
  if (!(gap <= m->margin)) return;
  if (dist > 1e-300) lsim_v3_scale(n, n, 1.0 / dist);
  else lsim_v3_copy(n, fallback);
  /* Midway between the surface points ca + ra n and cb - rb n. */
  double sa[3], sb[3], x[3];
  lsim_v3_axpy(sa, ca, ra, n);
  lsim_v3_axpy(sb, cb, -rb, n);
  lsim_v3_lerp(x, sa, sb, 0.5);
  emit(m, x, n, gap, feature);
}

/* Sphere or point a against sphere or point b. */
static void collide_round_round(Manifold *m, const Placed *A, const Placed *B) {
  double up[3];
  up_axis(up, m->dim);
  round_round(m, A->c, A->r, B->c, B->r, up, 0);
}

/* Capsule a against sphere or point b: the closest point of the segment, then two
 * spheres; a center on the axis falls back to a fixed perpendicular of the axis. */
static void collide_capsule_round(Manifold *m, const Placed *A, const Placed *B) {
  double e0[3], e1[3], u[3], w[3], p[3], fb[3];
  capsule_ends(A, m->dim, e0, e1);
  lsim_v3_sub(u, e1, e0);
  lsim_v3_sub(w, B->c, e0);
  const double uu = lsim_v3_dot(u, u);
  const double t = uu > 0.0 ? clamp01(lsim_v3_dot(w, u) / uu) : 0.0;
  lsim_v3_axpy(p, e0, t, u);
  perpendicular(fb, capsule_axis(A, m->dim), m->dim);
  round_round(m, p, A->r, B->c, B->r, fb, 0);
}

/* ---- Plane pairs ---------------------------------------------------------------- */

/* Plane a (through o, normal nrm) against a sphere of radius r at x. */
static void plane_round(Manifold *m, const double o[3], const double nrm[3], const double x[3],
                        double r, int feature) {
  double d[3], pt[3];
  lsim_v3_sub(d, x, o);
  const double gap = lsim_v3_dot(d, nrm) - r;
  /* Midway between x - r n (on the sphere) and x - (gap + r) n (on the plane). */
  lsim_v3_axpy(pt, x, -(r + 0.5 * gap), nrm);
  emit(m, pt, nrm, gap, feature);
}

static void collide_plane_round(Manifold *m, const Placed *A, const Placed *B) {
  plane_round(m, A->c, plane_normal(A, m->dim), B->c, B->r, 0);
}

/* Plane against a capsule: its two end spheres. */
static void collide_plane_capsule(Manifold *m, const Placed *A, const Placed *B) {
  double e0[3], e1[3];
  capsule_ends(B, m->dim, e0, e1);
  plane_round(m, A->c, plane_normal(A, m->dim), e0, B->r, 0);
  if (B->h[0] != 0.0) plane_round(m, A->c, plane_normal(A, m->dim), e1, B->r, 1);
}

/* Plane against a box: its corners (3-D: 8, 2-D: 4), reduced to 4. */
static void collide_plane_box(Manifold *m, const Placed *A, const Placed *B) {
  const int ncorners = m->dim == 2 ? 4 : 8;
  for (int i = 0; i < ncorners; ++i) {
    double l[3], x[3];
    for (int k = 0; k < 3; ++k) l[k] = ((i >> k) & 1) ? -B->h[k] : B->h[k];
    to_world(x, B, l);
    plane_round(m, A->c, plane_normal(A, m->dim), x, 0.0, i);
  }
  reduce4(m);
}

/* ---- Box pairs ------------------------------------------------------------------ */

/* Box against a sphere or point: closest point of the box in its frame; a center inside
 * leaves through the nearest face (ties: the lower axis, the + side). */
static void collide_box_round(Manifold *m, const Placed *A, const Placed *B) {
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
 * the crossed edge and on the plane labelled label. */
static int clip_polygon(const ClipVert *in, int n, ClipVert *out, const double nrm[3],
                        double off, double tol, int label) {
  /* Each vertex's signed distance once (it is both an edge's start and the previous
     edge's end). */
  double dist[CLIP_CAP];
  for (int i = 0; i < n; ++i) dist[i] = lsim_v3_dot(nrm, in[i].x) - off;
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
  /* Clip against the reference face's four side planes. */
  const double tol = 1e-12 * (1.0 + max2(Rb->h[0], max2(Rb->h[1], Rb->h[2])) +
                              max2(fabs(Rb->c[0]), max2(fabs(Rb->c[1]), fabs(Rb->c[2]))));
  for (int p = 0; p < 4 && n > 0; ++p) {
    const int axis = (k + 1 + p / 2) % 3;
    double pn[3];
    lsim_v3_scale(pn, Rb->ax[axis], (p % 2) ? -1.0 : 1.0);
    const double off = lsim_v3_dot(pn, Rb->c) + Rb->h[axis];
    n = clip_polygon(buf[cur], n, buf[1 - cur], pn, off, tol, 4 + p);
    cur = 1 - cur;
  }
  /* Keep vertices below the reference face within margin; the point is midway between
     the vertex and its projection on the face. */
  lsim_v3_axpy(rc, Rb->c, Rb->h[k], nR);
  lsim_v3_scale(normal, nR, ref_second ? -1.0 : 1.0);
  const int ref_face = 2 * k + (s < 0.0), inc_face = 2 * j + (si < 0.0);
  const int base = ((ref_second * 6 + ref_face) * 6 + inc_face) * 64;
  for (int i = 0; i < n; ++i) {
    double e[3], x[3];
    lsim_v3_sub(e, buf[cur][i].x, rc);
    const double gap = lsim_v3_dot(e, nR);
    lsim_v3_axpy(x, buf[cur][i].x, -0.5 * gap, nR);
    emit(m, x, normal, gap, base + 8 * buf[cur][i].l0 + buf[cur][i].l1);
  }
  reduce4(m);
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
  emit(m, x, L, sep, 4608 + ((i * 3 + j) * 4 + sa) * 4 + sb);
}

/* Box-box in 3-D: separating axes, then face clipping or an edge point. */
static void collide_box_box3(Manifold *m, const Placed *A, const Placed *B) {
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
  /* Edge axes a_i x b_j, skipped when the edges are parallel (the faces cover them). */
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      double L[3];
      lsim_v3_cross(L, A->ax[i], B->ax[j]);
      const double len = lsim_v3_norm(L);
      if (len < PARALLEL_SIN) continue;
      lsim_v3_scale(L, L, 1.0 / len);
      const double dl = lsim_v3_dot(d, L);
      const double s = fabs(dl) - box_radius(A, L) - box_radius(B, L);
      if (!(s <= m->margin)) return;
      if (s > sE) {
        sE = s, iE = i, jE = j;
        lsim_v3_scale(LE, L, sgn(dl));
      }
    }
  }
  /* Face axes win ties: B only if clearly better than A, an edge if clearly better. */
  const int ref_second = sB > sA + FACE_BIAS * fabs(sA) + tol;
  const double sF = ref_second ? sB : sA;
  const double *nF = ref_second ? B->ax[jB] : A->ax[iA];
  if (iE >= 0 && sE > sF + EDGE_BIAS * fabs(sF) + tol &&
      fabs(lsim_v3_dot(LE, nF)) < EDGE_FACE_COS) {
    box_edge3(m, A, B, iE, jE, LE, sE);
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
static void collide_box_box2(Manifold *m, const Placed *A, const Placed *B) {
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

/* Box a against capsule b, in the box frame. Disjoint: exact closest points of segment
 * and box; intersecting: least-penetration axis over the box faces and the segment
 * direction crossed with the box axes (2-D: the segment's normal). A face normal clips
 * the segment to that face (two points), anything else gives one point. */
static void collide_box_capsule(Manifold *m, const Placed *A, const Placed *B) {
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

  double n[3] = {0, 0, 0}, pseg[3], gap = 0.0;
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
    /* Disjoint: a normal along a face normal (within rounding) is a face contact. */
    for (int k = 0; k < nax; ++k)
      if (fabs(n[k]) >= 1.0 - FACE_ALIGN) face_k = k;
  }

  /* Face contact: clip the segment to the face's side planes; both ends are points. */
  if (face_k >= 0) {
    const int k = face_k;
    const double s = sgn(n[k]);
    /* Exact side planes first; a segment just touching the face's border (rounding) is
       clipped by the planes pushed out by tol. */
    double ta = 0.0, tb = 1.0;
    for (int pass = 0; pass < 2 && (pass == 0 || ta > tb); ++pass) {
      const double tol = pass * 1e-12 * scale;
      ta = 0.0, tb = 1.0;
      for (int j = 0; j < nax && ta <= tb; ++j) {
        if (j == k) continue;
        if (u[j] == 0.0) {
          if (fabs(P0[j]) > h[j] + tol) ta = 1.0, tb = 0.0;
          continue;
        }
        double tl = (-h[j] - tol - P0[j]) / u[j], th = (h[j] + tol - P0[j]) / u[j];
        if (tl > th) { const double tt = tl; tl = th, th = tt; }
        ta = fmax(ta, tl), tb = fmin(tb, th);
      }
    }
    if (ta <= tb) {
      double nl[3] = {0, 0, 0}, nw[3];
      nl[k] = s;
      lsim_m3_apply(nw, A->R, nl);
      const int nend = tb > ta ? 2 : 1;
      for (int e = 0; e < nend; ++e) {
        double p[3], x[3], xw[3];
        lsim_v3_lerp(p, P0, P1, e ? tb : ta);
        const double g = s * p[k] - h[k] - r;
        /* Midway between the capsule surface p - r n and the face. */
        lsim_v3_copy(x, p);
        x[k] -= s * (r + 0.5 * g);
        to_world(xw, A, x);
        emit(m, xw, nw, g, 1 + 2 * (2 * k + (s < 0.0)) + e);
      }
      return;
    }
  }
  /* One point: midway between the capsule surface pseg - r n and the box. */
  double x[3], xw[3], nw[3];
  lsim_v3_axpy(x, pseg, -(r + 0.5 * gap), n);
  to_world(xw, A, x);
  lsim_m3_apply(nw, A->R, n);
  emit(m, xw, nw, gap, 0);
}

/* ---- Capsule pairs -------------------------------------------------------------- */

/* Capsule-capsule: closest points of the segments; nearly parallel overlapping segments
 * give the two ends of the overlap along a's axis. Intersecting segments fall back to the
 * cross product of the axes (3-D) or the axis normal of least overlap (2-D). */
static void collide_capsule_capsule(Manifold *m, const Placed *A, const Placed *B) {
  const int dim = m->dim;
  double a0[3], a1[3], b0[3], b1[3], ca[3], cb[3], n[3], s, t;
  capsule_ends(A, dim, a0, a1);
  capsule_ends(B, dim, b0, b1);
  closest_segments(a0, a1, b0, b1, &s, &t, ca, cb);
  lsim_v3_sub(n, cb, ca);
  if (dim == 2) n[2] = 0.0;
  const double dist = lsim_v3_norm(n), gap = dist - A->r - B->r;
  if (!(gap <= m->margin)) return;
  double ua[3], ub[3];
  lsim_v3_sub(ua, a1, a0);
  lsim_v3_sub(ub, b1, b0);
  const double la = lsim_v3_norm(ua), lb = lsim_v3_norm(ub);
  const double scale = 1.0 + la + lb;
  if (dist > 1e-12 * scale) {
    lsim_v3_scale(n, n, 1.0 / dist);
  } else {
    /* Segments meet: a normal perpendicular to both (3-D), or to the axis of least
       overlap (2-D), pointing from a's center to b's. */
    double c[3], dc[3];
    lsim_v3_cross(c, ua, ub);
    lsim_v3_sub(dc, B->c, A->c);
    if (dim == 3 && lsim_v3_norm(c) > PARALLEL_SIN * la * lb) {
      lsim_v3_copy(n, c);
      lsim_v3_normalize(n);
    } else if (dim == 2 && la > 0.0 && lb > 0.0) {
      double na[3], nb[3];
      perpendicular(na, ua, dim);
      perpendicular(nb, ub, dim);
      /* Overlap of the other segment's projection across each axis normal. */
      const double oa = fabs(lsim_v3_dot(nb, ua)) * 0.5, ob = fabs(lsim_v3_dot(na, ub)) * 0.5;
      lsim_v3_copy(n, ob <= oa ? na : nb);
    } else {
      perpendicular(n, la > 0.0 ? ua : ub, dim);
    }
    if (lsim_v3_dot(n, dc) < 0.0) lsim_v3_scale(n, n, -1.0);
  }
  /* Nearly parallel with overlapping projections: the two ends of the overlap. */
  if (la > 0.0 && lb > 0.0) {
    double c[3];
    lsim_v3_cross(c, ua, ub);
    if (lsim_v3_norm(c) < CAPSULE_PARALLEL_SIN * la * lb) {
      double e0[3], e1[3];
      lsim_v3_sub(e0, b0, a0);
      lsim_v3_sub(e1, b1, a0);
      const double tb0 = lsim_v3_dot(e0, ua) / la, tb1 = lsim_v3_dot(e1, ua) / la;
      const double lo = fmax(0.0, fmin(tb0, tb1)), hi = fmin(la, fmax(tb0, tb1));
      if (hi - lo > 1e-9 * la && tb1 != tb0) {
        for (int e = 0; e < 2; ++e) {
          const double tau = e ? hi : lo;
          double pa[3], pb[3], d[3], sa[3], sb[3], x[3];
          lsim_v3_axpy(pa, a0, tau / la, ua);
          lsim_v3_lerp(pb, b0, b1, clamp01((tau - tb0) / (tb1 - tb0)));
          lsim_v3_sub(d, pb, pa);
          const double g = lsim_v3_dot(d, n) - A->r - B->r;
          lsim_v3_axpy(sa, pa, A->r, n);
          lsim_v3_axpy(sb, pb, -B->r, n);
          lsim_v3_lerp(x, sa, sb, 0.5);
          emit(m, x, n, g, 1 + e);
        }
        return;
      }
    }
  }
  /* One point. */
  double sa[3], sb[3], x[3];
  lsim_v3_axpy(sa, ca, A->r, n);
  lsim_v3_axpy(sb, cb, -B->r, n);
  lsim_v3_lerp(x, sa, sb, 0.5);
  emit(m, x, n, gap, 0);
}

/* ---- Dispatch ------------------------------------------------------------------- */

/* Canonical order of types: each pair routine takes the lower rank first. */
static int type_rank(int type) {
  switch (type) {
    case LSIM_SHAPE_PLANE: return 0;
    case LSIM_SHAPE_BOX: return 1;
    case LSIM_SHAPE_CAPSULE: return 2;
    case LSIM_SHAPE_SPHERE: return 3;
    case LSIM_SHAPE_POINT: return 4;
    default: return -1;
  }
}

static int cmp_double(double x, double y) { return x < y ? -1 : (x > y ? 1 : 0); }

/* Order of two shapes of one type: the larger first, then the lower along the up axis,
 * then by the other coordinates and the rotation. < 0: a first. */
static int same_type_order(const Placed *A, const Placed *B, int dim) {
  int c;
  if (A->type == LSIM_SHAPE_BOX) {
    const double va = A->h[0] * A->h[1] * (dim == 3 ? A->h[2] : 1.0);
    const double vb = B->h[0] * B->h[1] * (dim == 3 ? B->h[2] : 1.0);
    if ((c = cmp_double(vb, va))) return c;
  }
  if ((c = cmp_double(B->r, A->r))) return c;
  for (int k = 0; k < 3; ++k)
    if ((c = cmp_double(B->h[k], A->h[k]))) return c;
  if ((c = cmp_double(A->c[dim - 1], B->c[dim - 1]))) return c;
  for (int k = 0; k < 3; ++k)
    if ((c = cmp_double(A->c[k], B->c[k]))) return c;
  for (int k = 0; k < 9; ++k)
    if ((c = cmp_double(A->R[k], B->R[k]))) return c;
  return 0;
}

/* The pair in canonical order (A->type rank <= B->type rank). */
static void collide_ordered(Manifold *m, const Placed *A, const Placed *B) {
  const int ta = A->type, tb = B->type;
  const int round_b = tb == LSIM_SHAPE_SPHERE || tb == LSIM_SHAPE_POINT;
  switch (ta) {
    case LSIM_SHAPE_PLANE:
      if (tb == LSIM_SHAPE_BOX) collide_plane_box(m, A, B);
      else if (tb == LSIM_SHAPE_CAPSULE) collide_plane_capsule(m, A, B);
      else if (round_b) collide_plane_round(m, A, B);
      break; /* plane-plane: none */
    case LSIM_SHAPE_BOX:
      if (tb == LSIM_SHAPE_BOX) {
        if (m->dim == 2) collide_box_box2(m, A, B);
        else collide_box_box3(m, A, B);
      } else if (tb == LSIM_SHAPE_CAPSULE) {
        collide_box_capsule(m, A, B);
      } else if (round_b) {
        collide_box_round(m, A, B);
      }
      break;
    case LSIM_SHAPE_CAPSULE:
      if (tb == LSIM_SHAPE_CAPSULE) collide_capsule_capsule(m, A, B);
      else if (round_b) collide_capsule_round(m, A, B);
      break;
    default: collide_round_round(m, A, B); break;
  }
}

LsimPose lsim_shape_world_pose(const LsimShape *s, const LsimPose *body) {
  LsimPose w;
  double off[3];
  lsim_quat_rotate(off, body->q, s->pos);
  lsim_v3_add(w.p, body->p, off);
  lsim_quat_mul(w.q, body->q, s->rot);
  lsim_quat_normalize(w.q);
  return w;
}

void lsim_shape_place(const LsimShape *s, const LsimPose *ps, int dim, LsimPlaced *out) {
  place(out, s, ps, dim == 2 ? 2 : 3);
}

void lsim_placed_aabb(const LsimShape *s, const LsimPlaced *P, int dim, double margin,
                      double lo[3], double hi[3]) {
  double ext[3] = {0, 0, 0};
  switch (s->type) {
    case LSIM_SHAPE_SPHERE:
      ext[0] = ext[1] = ext[2] = P->r;
      break;
    case LSIM_SHAPE_BOX:
      /* |R| h: the half extents of the rotated box. */
      for (int i = 0; i < 3; ++i)
        ext[i] = fabs(P->R[3 * i]) * P->h[0] + fabs(P->R[3 * i + 1]) * P->h[1] +
                 fabs(P->R[3 * i + 2]) * P->h[2];
      break;
    case LSIM_SHAPE_CAPSULE: {
      const double *u = capsule_axis(P, dim);
      for (int i = 0; i < 3; ++i) ext[i] = fabs(u[i]) * P->h[0] + P->r;
      break;
    }
    case LSIM_SHAPE_PLANE: {
      /* Unbounded, except along an axis the normal points along: solid below the plane. */
      const double *nrm = plane_normal(P, dim);
      for (int i = 0; i < 3; ++i) lo[i] = -HUGE_VAL, hi[i] = HUGE_VAL;
      for (int k = 0; k < dim; ++k) {
        int aligned = 1;
        for (int j = 0; j < dim; ++j)
          if (j != k && fabs(nrm[j]) > 1e-14) aligned = 0;
        if (!aligned) continue;
        if (nrm[k] > 0.0) hi[k] = P->c[k] + margin;
        else if (nrm[k] < 0.0) lo[k] = P->c[k] - margin;
      }
      if (dim == 2) lo[2] = hi[2] = 0.0;
      return;
    }
    default: break;
  }
  for (int i = 0; i < 3; ++i)
    lo[i] = P->c[i] - ext[i] - margin, hi[i] = P->c[i] + ext[i] + margin;
  if (dim == 2) lo[2] = hi[2] = 0.0;
}

void lsim_shape_aabb(const LsimShape *s, const LsimPose *ps, int dim, double margin,
                     double lo[3], double hi[3]) {
  Placed P;
  place(&P, s, ps, dim == 2 ? 2 : 3);
  lsim_placed_aabb(s, &P, dim, margin, lo, hi);
}

int lsim_collide(const LsimShape *a, const LsimPose *pa, const LsimShape *b, const LsimPose *pb,
                 int dim, double margin, LsimContactPoint *out, int max) {
  if (!out || max <= 0 || (dim != 2 && dim != 3)) return 0;
  Placed A, B;
  place(&A, a, pa, dim);
  place(&B, b, pb, dim);
  return lsim_collide_placed(&A, &B, dim, margin, out, max);
}

int lsim_collide_placed(const LsimPlaced *pa, const LsimPlaced *pb, int dim, double margin,
                        LsimContactPoint *out, int max) {
  if (!out || max <= 0 || (dim != 2 && dim != 3)) return 0;
  if (max > LSIM_MAX_MANIFOLD) max = LSIM_MAX_MANIFOLD;
  const Placed *A = pa, *B = pb;
  const int ra = type_rank(A->type), rb = type_rank(B->type);
  if (ra < 0 || rb < 0) return 0;
  /* Canonical order; the internal normal points from the first shape to the second, so
     the caller's normal (from b to a) is its opposite unless the pair was swapped. */
  const int swap = ra > rb || (ra == rb && same_type_order(A, B, dim) > 0);
  Manifold m;
  m.n = 0, m.margin = margin, m.dim = dim;
  if (swap) collide_ordered(&m, B, A);
  else collide_ordered(&m, A, B);
  /* Fewer slots than points: keep the deepest (stable). */
  while (m.n > max) {
    int worst = 0;
    for (int i = 1; i < m.n; ++i)
      if (m.p[i].gap >= m.p[worst].gap) worst = i;
    memmove(&m.p[worst], &m.p[worst + 1], (size_t)(m.n - worst - 1) * sizeof m.p[0]);
    --m.n;
  }
  for (int i = 0; i < m.n; ++i) {
    out[i] = m.p[i];
    if (!swap) lsim_v3_scale(out[i].normal, out[i].normal, -1.0);
  }
  return m.n;
}
