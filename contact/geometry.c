/* geometry.c: narrow phase (contact points of one shape pair) and bounding boxes. The box
 * pairs are in geometry_box.c, the shared helpers in geometry_private.h.
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
 *     cross products, three at a time in AVX lanes where the CPU has AVX, with the scalar
 *     loop's bits: lsim_geom_box_edge_seps; Gottschalk, Lin, Manocha, OBBTree, SIGGRAPH
 *     1996; Ericson 4.4.1),
 *     with a bias toward face axes (an edge axis must separate clearly better, as in ODE's
 *     dBoxBox and Bullet's btBoxBoxDetector, and not lie within ~1 degree of the face
 *     normal, which near-parallel faces would otherwise flip to), then the incident face
 *     (the face of the other box most anti-parallel to the reference normal) is clipped
 *     against the four
 *     side planes of the reference face (Sutherland-Hodgman) and the clipped vertices
 *     below the reference face within margin are kept, reduced (lsim_geom_reduce: the
 *     largest hull among the 4-point sets that hold one of the deepest points, then the
 *     points clearly outside it); when none is within margin, the incident corner nearest
 *     the reference face. Edge-edge contact gives the one point between the two support
 *     edges and, within the margin, the best face's clipped points no deeper than the
 *     edge axis's separation (as Jolt clips the supporting faces whatever the axis: a
 *     rod pivoting on an edge swings its far end onto the face within a step).
 *   - Box-box, 2-D: the same over the 4 face normals, the incident edge clipped against
 *     the reference face's two side lines, at most 2 points (Catto, Box2D Lite, 2006).
 *   - Box-capsule: the exact distance of the segment to the box when they are disjoint
 *     (minimum over the two end points clamped to the box and the segment against the 12
 *     (2-D: 4) box edges), else a separating axis test over the box faces and the segment
 *     direction crossed with the box axes. When the normal is a box face normal (or, for
 *     a segment within ~1 degree of parallel to the face, within ~1 degree of it) the
 *     segment is clipped to that face's side planes and both clipped ends are contacts
 *     (a capsule lying on a face touches at two points, as in Box2D v3's capsule
 *     manifolds), and a segment end past those side planes is one more, at its distance
 *     to the box, within the margin (a capsule spinning over the face's border swings
 *     that end into the box within a step); otherwise the closest point and, when
 *     disjoint, the rest of the segment: the two ends of its part over each face, at
 *     their heights over the face, and each end beside an edge or corner, at its
 *     distance to the box (all within the margin: a capsule pivoting on an edge swings
 *     its far end onto the face within a step, which one point left free to sink).
 *   - Capsule-capsule: closest points of two segments (Ericson 5.1.9); nearly parallel
 *     segments whose projections overlap give the two ends of the overlap (as in
 *     Box2D v3's capsule manifold); otherwise the closest point and each segment end
 *     within the margin of the other segment, at its distance to it.
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
 *   - box-box 3-D, face contact: (fa * 6 + fb) * 256 + 16 * sa + sb, fa, fb the faces of
 *     the canonically first and second box (2 * axis + (1 on the negative side)) and sa,
 *     sb the sides of those faces the clip vertex lies on (4-bit masks, bit 2 t + (1 on
 *     the negative side) for the side along the face's axis + 1 + t (mod 3)): a corner of
 *     one face is two sides of it, an edge crossing an edge one side of each. Whichever
 *     face is the reference, the same corner gets the same id;
 *   - box-box 3-D, edge contact: 9216 + ((i * 3 + j) * 4 + sa) * 4 + sb, i, j the edge
 *     axes of the first and second box, sa, sb the sides (2 bits) of the support edges;
 *   - box-box 2-D: ((r * 4 + reference face) * 4 + incident face) * 4 + e, e = 0, 1 for an
 *     incident vertex, 2 + p for one clipped by the reference side line p;
 *   - box-capsule: 0 for the closest point; 1 + 2 * face + end for the two clipped ends
 *     of the segment's part over a face (end 0 toward the capsule's -axis end); 13 + end
 *     for a capsule end beside an edge or corner, or past a contact face's side planes;
 *   - capsule-capsule: 0 for the closest point; 1 and 2 for the ends of a parallel
 *     overlap; 3 + end for an end of the first capsule, 5 + end for one of the second.
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
 * stays lower; side by side at one height, round-off of a height swaps them
 * (lsim_collide_fragile), and the time step's detection then keeps a persistent
 * pair's order by the step before's contact ids (lsim_collide_placed_order). Inputs
 * with NaN give no points (every comparison against the margin is false).
 */
#include "contact/geometry_private.h"

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

/* Plane normal (3-D local z, 2-D local y). */
static const double *plane_normal(const Placed *P, int dim) { return P->ax[dim == 2 ? 1 : 2]; }

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

/* Plane against a box: its corners (3-D: 8, 2-D: 4) within the margin. In 3-D only the
 * corners of the face turned most towards the plane count (the first axis at a tie, as
 * for a cube balanced on an edge, whose edge corners both faces hold): that face holds
 * the deepest corner, its corners are coplanar (as lsim_geom_reduce needs), and a
 * thin box keeps its bottom corners, never a top corner that the speculative margin (what
 * the step can close) brought within reach (a 4 m x 2 cm rod sliding sideways at 2 m/s was
 * held by one bottom and three top corners and rolled; a 2 m x 1 cm plate tipping onto
 * the ground, kept by its 4 deepest corners, had both corners of its low end and none of
 * its high end, which sank 2.5 cm and bounced). Then reduced (lsim_geom_reduce). */
static void collide_plane_box(Manifold *m, const Placed *A, const Placed *B) {
  const int ncorners = m->dim == 2 ? 4 : 8;
  const double *nrm = plane_normal(A, m->dim);
  /* The face turned towards the plane: axis a, on the side where a corner's bit a is set
     (l_a < 0) when that axis points along the normal. */
  int a = 0;
  double dot = 0.0;
  for (int k = 0; k < 3; ++k) {
    const double dk = lsim_v3_dot(nrm, B->ax[k]);
    if (fabs(dk) > fabs(dot)) dot = dk, a = k;
  }
  for (int i = 0; i < ncorners; ++i) {
    if (m->dim == 3 && (((i >> a) & 1) != 0) != (dot > 0.0)) continue;
    double l[3], x[3];
    for (int k = 0; k < 3; ++k) l[k] = ((i >> k) & 1) ? -B->h[k] : B->h[k];
    to_world(x, B, l);
    plane_round(m, A->c, nrm, x, 0.0, i);
  }
  lsim_geom_reduce(m);
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
  if (!(dist > 1e-12 * scale)) return;
  /* Each end within the margin of the other segment, other than the closest point's
     (feature 3 + end of a, 5 + end of b): a capsule turning about its contact swings an
     end towards the other capsule, which one point left free to sink within the step
     (3 mm at 30 rad/s, centimetres when the ends cross). */
  const double tol2 = 1e-24 * scale * scale;
  double ends[4][3];
  lsim_v3_copy(ends[0], a0), lsim_v3_copy(ends[1], a1);
  lsim_v3_copy(ends[2], b0), lsim_v3_copy(ends[3], b1);
  for (int e = 0; e < 4; ++e) {
    const int of_a = e < 2;
    const double *pe = ends[e], *q0 = of_a ? b0 : a0, *q1 = of_a ? b1 : a1;
    if (lsim_v3_dist2(pe, of_a ? ca : cb) <= tol2) continue; /* the closest point's end */
    double w[3], uq[3], pq[3], d[3];
    lsim_v3_sub(uq, q1, q0);
    lsim_v3_sub(w, pe, q0);
    const double uu = lsim_v3_dot(uq, uq);
    lsim_v3_axpy(pq, q0, uu > 0.0 ? clamp01(lsim_v3_dot(w, uq) / uu) : 0.0, uq);
    /* From a's point to b's. */
    if (of_a) lsim_v3_sub(d, pq, pe);
    else lsim_v3_sub(d, pe, pq);
    if (dim == 2) d[2] = 0.0;
    const double de = lsim_v3_norm(d);
    if (!(de > 1e-12 * scale)) continue;
    /* An end of b nearest to an end of a: no farther than that end is from b, which
       its own point (or the closest point) holds already. */
    if (!of_a && lsim_v3_dist2(pq, lsim_v3_dist2(pq, a0) < lsim_v3_dist2(pq, a1) ? a0 : a1) <= tol2)
      continue;
    lsim_v3_scale(d, d, 1.0 / de);
    const double *pa = of_a ? pe : pq, *pb = of_a ? pq : pe;
    lsim_v3_axpy(sa, pa, A->r, d);
    lsim_v3_axpy(sb, pb, -B->r, d);
    lsim_v3_lerp(x, sa, sb, 0.5);
    emit(m, x, d, de - A->r - B->r, 3 + e);
  }
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
        if (m->dim == 2) lsim_geom_box_box2(m, A, B);
        else lsim_geom_box_box3(m, A, B);
      } else if (tb == LSIM_SHAPE_CAPSULE) {
        lsim_geom_box_capsule(m, A, B);
      } else if (round_b) {
        lsim_geom_box_round(m, A, B);
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

int lsim_collide_order(const LsimPlaced *a, const LsimPlaced *b, int dim) {
  const int ra = type_rank(a->type), rb = type_rank(b->type);
  return ra > rb || (ra == rb && same_type_order(a, b, dim) > 0);
}

int lsim_collide_fragile(const LsimPlaced *a, const LsimPlaced *b, int dim) {
  if (a->type != b->type || a->r != b->r || a->h[0] != b->h[0] || a->h[1] != b->h[1] ||
      a->h[2] != b->h[2])
    return 0;
  /* The position key that decides (same_type_order's: up, then x, y, z) within 1e-9 of
     the size: far above the round-off of poses (9.3e-15 m between two 0.2 m boxes at
     rest side by side), far below any motion a new order would stand for. */
  const double size = fmax(fmax(a->h[0], a->h[1]), fmax(a->h[2], a->r));
  const double tol = 1e-9 * size;
  const int keys[4] = {dim - 1, 0, 1, 2};
  for (int k = 0; k < 4; ++k) {
    const double d = a->c[keys[k]] - b->c[keys[k]];
    if (d != 0.0) return fabs(d) <= tol;
  }
  return 0;
}

int lsim_collide_placed(const LsimPlaced *pa, const LsimPlaced *pb, int dim, double margin,
                        LsimContactPoint *out, int max) {
  return lsim_collide_placed_order(pa, pb, dim, margin, out, max, -1);
}

int lsim_collide_placed_order(const LsimPlaced *pa, const LsimPlaced *pb, int dim, double margin,
                              LsimContactPoint *out, int max, int order) {
  if (!out || max <= 0 || (dim != 2 && dim != 3)) return 0;
  if (max > LSIM_MAX_MANIFOLD) max = LSIM_MAX_MANIFOLD;
  const Placed *A = pa, *B = pb;
  const int ra = type_rank(A->type), rb = type_rank(B->type);
  if (ra < 0 || rb < 0) return 0;
  /* Canonical order (or the caller's, for one type); the internal normal points from the
     first shape to the second, so the caller's normal (from b to a) is its opposite
     unless the pair was swapped. */
  const int swap = ra != rb || order < 0 ? ra > rb || (ra == rb && same_type_order(A, B, dim) > 0)
                                         : order != 0;
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

int lsim_box_face_vertex(const LsimPlaced *a, const LsimPlaced *b, int feature, int *ref,
                         LsimContactPoint *out, double *margin, double *role) {
  int order = -1;
  return lsim_box_face_vertex_ordered(a, b, feature, &order, ref, out, margin, role);
}

int lsim_box_face_vertex_ordered(const LsimPlaced *a, const LsimPlaced *b, int feature, int *order,
                                 int *ref, LsimContactPoint *out, double *margin, double *role) {
  if (a->type != LSIM_SHAPE_BOX || b->type != LSIM_SHAPE_BOX || feature < 0 || feature >= 9216)
    return -1;
  /* The canonical order of lsim_collide_placed (at these poses unless given). */
  if (*order < 0) *order = same_type_order(a, b, 3) > 0;
  const int swap = *order != 0;
  const Placed *A = swap ? b : a, *B = swap ? a : b;
  if (*ref < 0) {
    /* The reference face box_box3 picks at these poses: B's when the role of B's face is
       positive. */
    if (lsim_geom_face_vertex3(A, B, feature, 1, out, margin, role)) return -1;
    const int second = *role > 0.0;
    *ref = swap ? !second : second;
  }
  const int ref_second = swap ? *ref == 0 : *ref == 1;
  if (lsim_geom_face_vertex3(A, B, feature, ref_second, out, margin, role)) return -1;
  /* The caller's normal points from b towards a. */
  if (!swap) lsim_v3_scale(out->normal, out->normal, -1.0);
  return 0;
}
