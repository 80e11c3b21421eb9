/* geometry_private.h: private to the narrow phase (geometry.c: placement, round, plane and
 * capsule pairs, dispatch, bounding boxes; geometry_box.c: the box pairs). The manifold
 * buffer, the placed shape, the tolerances and the small helpers both inline. Not
 * installed. Algorithms, conventions and feature ids are described at the top of
 * geometry.c. */
#ifndef LSIM_GEOMETRY_PRIVATE_H
#define LSIM_GEOMETRY_PRIVATE_H

#include <math.h>
#include <string.h>

#include "contact/geometry.h"
#include "contact/math3.h"

/* Box-box: B's face replaces A's as reference only if its separation is larger by this
 * fraction of |separation| (plus a length tolerance); an edge axis replaces the faces only
 * if larger by EDGE_BIAS. Hysteresis that keeps resting manifolds from flickering. */
#define FACE_BIAS 0.02
#define EDGE_BIAS 0.05
/* An edge axis within this cosine of the chosen face normal is that face in disguise
 * (near-parallel faces, e.g. a box rocking on a box): the face manifold is kept. */
#define EDGE_FACE_COS 0.9998
/* The sine of that angle: a capsule segment within it of a face is parallel to the face. */
#define EDGE_FACE_SIN 0.02
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

/* The box pairs (geometry_box.c), in canonical order: A is the box, B the other shape;
 * points go into m in the internal convention (normal from A to B). */
void lsim_geom_box_round(Manifold *m, const Placed *A, const Placed *B);
void lsim_geom_box_box3(Manifold *m, const Placed *A, const Placed *B);
void lsim_geom_box_box2(Manifold *m, const Placed *A, const Placed *B);
void lsim_geom_box_capsule(Manifold *m, const Placed *A, const Placed *B);

/* The nine edge axes of 3-D boxes A and B (d = B->c - A->c), k = 3 i + j for a_i x b_j:
 * len[k] = |a_i x b_j| and s[k] = |d . L| - r_A(L) - r_B(L) for L = (a_i x b_j) / len[k]
 * (r_P(L) = sum h_t |p_t . L|), the box-box separating axis test's figures (slot 9 repeats
 * slot 8). lsim_geom_box_edge_seps takes three axes at a time in AVX lanes where the CPU
 * has AVX, lsim_geom_box_edge_seps_scalar one at a time: the same bits. */
enum { LSIM_EDGE_SLOTS = 10 };
void lsim_geom_box_edge_seps(const Placed *A, const Placed *B, const double d[3],
                             double len[LSIM_EDGE_SLOTS], double s[LSIM_EDGE_SLOTS]);
void lsim_geom_box_edge_seps_scalar(const Placed *A, const Placed *B, const double d[3],
                                    double len[LSIM_EDGE_SLOTS], double s[LSIM_EDGE_SLOTS]);

/* The clip vertex `feature` of a 3-D box-box face contact of A and B (canonical order),
 * the reference face on B when ref_second, at the boxes' poses, continued past the faces
 * (the intersection of the incident face's plane with the vertex's two side planes, where
 * or not clipping keeps it): the point box_face3 writes while it keeps the vertex, and
 * its margin and role (lsim_box_face_vertex). 0, or -1 for a feature that is no face
 * vertex. */
int lsim_geom_face_vertex3(const Placed *A, const Placed *B, int feature, int ref_second,
                           LsimContactPoint *out, double *margin, double *role);

/* Reduces a manifold of coplanar points (geometry_box.c; plane-box and box-box faces): the
 * four with the largest hull among the sets holding one of the deepest points, then the
 * points lying clearly outside their hull (at most LSIM_MAX_MANIFOLD in all). */
void lsim_geom_reduce(Manifold *m);

static inline double sgn(double x) { return x >= 0.0 ? 1.0 : -1.0; }
/* fmax without the library call, for tolerances: NaN arguments are ignored as fmax
 * ignores them; only the sign of a zero maximum may differ, which no comparison sees. */
static inline double max2(double a, double b) {
  if (a != a) return b;
  if (b != b) return a;
  return a > b ? a : b;
}
static inline double clamp01(double x) { return x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x); }

/* Appends a point when its gap is within the margin (NaN gaps are dropped). */
static inline void emit(Manifold *m, const double point[3], const double normal[3], double gap,
                 int feature) {
  if (!(gap <= m->margin) || m->n >= LSIM_MAX_MANIFOLD) return;
  LsimContactPoint *c = &m->p[m->n++];
  lsim_v3_copy(c->point, point);
  lsim_v3_copy(c->normal, normal);
  if (m->dim == 2) c->point[2] = 0.0, c->normal[2] = 0.0;
  c->gap = gap;
  c->feature = feature;
}

/* World point of local coordinates l. */
static inline void to_world(double w[3], const Placed *P, const double l[3]) {
  lsim_m3_apply(w, P->R, l);
  lsim_v3_add(w, w, P->c);
}

/* Local coordinates of world point w. */
static inline void to_local(double l[3], const Placed *P, const double w[3]) {
  double d[3];
  lsim_v3_sub(d, w, P->c);
  lsim_m3_apply_t(l, P->R, d);
}

/* Capsule axis (3-D local z, 2-D local x) and its end centers. */
static inline const double *capsule_axis(const Placed *P, int dim) { return P->ax[dim == 2 ? 0 : 2]; }
static inline void capsule_ends(const Placed *P, int dim, double e0[3], double e1[3]) {
  const double *u = capsule_axis(P, dim);
  lsim_v3_axpy(e0, P->c, -P->h[0], u);
  lsim_v3_axpy(e1, P->c, P->h[0], u);
}

/* Closest points c1 = p1 + s (q1 - p1), c2 = p2 + t (q2 - p2) of two segments (Ericson
 * 5.1.9); degenerate (zero-length) segments are points. */
static inline void closest_segments(const double p1[3], const double q1[3], const double p2[3],
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

#endif
