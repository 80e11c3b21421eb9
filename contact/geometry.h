/* geometry.h: narrow-phase collision of shape pairs in 2-D and 3-D, and bounding boxes
 * for the broad phase. Pure functions of shapes and world poses: no bodies, no state.
 *
 * A shape's world pose is its body's pose composed with the shape's local pose
 * (lsim_shape_world_pose). 2-D worlds are the z = 0 plane with rotations about z; their
 * shapes use x, y (a box's half[2] and z coordinates are ignored).
 */
#ifndef LSIM_GEOMETRY_H
#define LSIM_GEOMETRY_H

#include "contact/world.h"

#define LSIM_MAX_MANIFOLD 8 /* contact points per shape pair at most */

/* A world pose: position and unit quaternion (w, x, y, z). */
typedef struct LsimPose {
  double p[3];
  double q[4];
} LsimPose;

/* One contact point between shapes a and b. */
typedef struct LsimContactPoint {
  double point[3];   /* world point, midway between the two surfaces */
  double normal[3];  /* world unit normal, pointing from b towards a (a moves along +normal
                        to separate) */
  double gap;        /* signed distance between the surfaces along normal (< 0: overlap) */
  int feature;       /* stable id of the feature pair within this shape pair (0..65535):
                        the same physical contact keeps its feature from step to step */
} LsimContactPoint;

/* A shape placed at a world pose: what the narrow phase reads, computed once per shape
 * and step (lsim_shape_place) instead of once per pair. */
typedef struct LsimPlaced {
  int type;        /* LsimShapeType */
  double c[3];     /* world origin (2-D: c[2] = 0) */
  double R[9];     /* rotation of the normalized quaternion, row-major */
  double ax[3][3]; /* local axes in world (columns of R) */
  double h[3];     /* box half extents (2-D: h[2] = 0); capsule: h[0] = half length */
  double r;        /* sphere and capsule radius; 0 for points and the rest */
} LsimPlaced;

/* The world pose of shape s on a body at world pose body. */
LsimPose lsim_shape_world_pose(const LsimShape *s, const LsimPose *body);

/* Axis-aligned bounding box of shape s at world pose ps, grown by margin on every side.
 * Planes are unbounded (+-HUGE_VAL on the axes they extend along). dim is 2 or 3. */
void lsim_shape_aabb(const LsimShape *s, const LsimPose *ps, int dim, double margin,
                     double lo[3], double hi[3]);

/* Contact points of shapes a (at world pose pa) and b (at pb) whose gap is at most margin,
 * at most max of them (max <= LSIM_MAX_MANIFOLD), into out; returns how many. dim is 2 or
 * 3. Every pair of shape types is handled, in either order (plane-plane gives none: both
 * are static in practice). Box-box (and rectangle-rectangle) give a multi-point manifold
 * by clipping the incident face against the reference face, so a box resting on a box
 * touches at its 4 (2-D: 2) corners. */
int lsim_collide(const LsimShape *a, const LsimPose *pa, const LsimShape *b, const LsimPose *pb,
                 int dim, double margin, LsimContactPoint *out, int max);

/* Shape s placed at world pose ps (dim 2 or 3). */
void lsim_shape_place(const LsimShape *s, const LsimPose *ps, int dim, LsimPlaced *out);

/* lsim_shape_aabb of s from its placement P (the same numbers). */
void lsim_placed_aabb(const LsimShape *s, const LsimPlaced *P, int dim, double margin,
                      double lo[3], double hi[3]);

/* The canonical order lsim_collide_placed takes a and b in: 1 when b first, 0 when a. */
int lsim_collide_order(const LsimPlaced *a, const LsimPlaced *b, int dim);

/* 1 when a and b are of one type and size and the position key that orders them (the up
 * coordinate, then x, y, z) differs by at most 1e-9 of the shapes' size: round-off of a
 * pose can then swap lsim_collide_order, and with it the features the points are numbered
 * by (two equal boxes side by side at one height); else 0. */
int lsim_collide_fragile(const LsimPlaced *a, const LsimPlaced *b, int dim);

/* lsim_collide_placed with the order given: order 1 takes b first, 0 a first (for shapes
 * of one type; another pair keeps its canonical order), < 0 the canonical order. The
 * points are those of lsim_collide_placed at that order (its own points, bit for bit,
 * at the canonical one). */
int lsim_collide_placed_order(const LsimPlaced *a, const LsimPlaced *b, int dim, double margin,
                              LsimContactPoint *out, int max, int order);

/* lsim_collide on placed shapes (the same points, bit for bit). */
int lsim_collide_placed(const LsimPlaced *a, const LsimPlaced *b, int dim, double margin,
                        LsimContactPoint *out, int max);

/* A 3-D box-box face contact's clip vertex (feature, as lsim_collide gives it for boxes a
 * and b in this order) continued past the faces: the intersection of the incident face's
 * plane with the two side planes the feature names, at the boxes' poses, wherever it
 * lies. While lsim_collide keeps the vertex with the same reference face, out is its
 * point (to rounding: the same point, normal, gap and feature); beyond a side plane it is
 * the same formula, smooth in the poses, so a contact held at that feature can be
 * followed across the edge it leaves by. *ref: the reference face (whose normal is the
 * contact's), 0 a's, 1 b's; when < 0, the one lsim_collide picks at these poses (by its
 * face axes' separations; it may pick an edge axis instead, which this does not see) is
 * written. *margin: the vertex's least distance inside the faces' other side planes, plus
 * twice the clip's tolerance (1e-12 times the reference box's size and distance from the
 * origin); when it is <= 0, lsim_collide no longer has the vertex (a corner has passed an
 * edge, an edge crossing has passed a corner). *role: how far (m) the face axes'
 * separations are from turning lsim_collide's choice away from *ref's face (with its
 * hysteresis: the other face's separation must exceed this one's by 2 % plus 1e-9 of the
 * boxes' size); <= 0: it takes the other face (the normal then turns by the faces'
 * angle: a box tipping over another's edge). Returns 0, or -1 when a or b is no box or
 * the feature is no face vertex (3-D edge contacts, features of 9216 up). */
int lsim_box_face_vertex(const LsimPlaced *a, const LsimPlaced *b, int feature, int *ref,
                         LsimContactPoint *out, double *margin, double *role);

/* lsim_box_face_vertex with the pair's canonical order given: *order 1 when lsim_collide
 * takes b first (the feature's vertex and side planes are then named from b's side), 0
 * when a; when < 0, the order at these poses is written. Two boxes of one size order by
 * their height, then their other coordinates: boxes at one height (a hinge of two equal
 * boxes lying end to end) swap the order, and so a feature's meaning, on round-off of
 * the height, and a vertex followed by its feature at the other order is the other box's
 * (a corner 0.4 m away, through the other box, for two boxes 0.2 m long). */
int lsim_box_face_vertex_ordered(const LsimPlaced *a, const LsimPlaced *b, int feature, int *order,
                                 int *ref, LsimContactPoint *out, double *margin, double *role);

#endif
