/* test_geometry.c: narrow phase (contact/geometry.c) against analytic configurations,
 * swap symmetry, margin filtering, bounding boxes and a random fuzz.
 *
 * Tolerances. Analytic cases use O(1) coordinates: a value built from a handful of
 * roundings (a rotation by a quaternion, a dot product, a subtraction) is exact to a few
 * ulps of 1, so 1e-12 is a loose and still meaningful bound unless a test says
 * otherwise. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "contact/contact.h"
#include "contact/geometry.h"
#include "contact/geometry_private.h"
#include "contact/math3.h"
#include "lcp/team.h"

#define TOL 1e-12
#define PI 3.14159265358979323846

static LsimShape shape(LsimShapeType type, double r, double h0, double h1, double h2) {
  LsimShape s = lsim_default_shape();
  s.type = type;
  s.radius = r;
  s.half[0] = h0, s.half[1] = h1, s.half[2] = h2;
  return s;
}

/* Pose at (x, y, z) rotated by angle about the axis (ax, ay, az). */
static LsimPose pose_aa(double x, double y, double z, double ax, double ay, double az,
                        double angle) {
  LsimPose p = {{x, y, z}, {1, 0, 0, 0}};
  double w[3] = {ax, ay, az};
  if (angle < 0.0) angle = -angle, w[0] = -w[0], w[1] = -w[1], w[2] = -w[2];
  if (angle != 0.0 && lsim_v3_normalize(w) > 0.0) lsim_quat_from_rotvec(p.q, w, angle);
  return p;
}
static LsimPose pose_at(double x, double y, double z) { return pose_aa(x, y, z, 0, 0, 1, 0); }

static int collide(const LsimShape *a, const LsimPose *pa, const LsimShape *b,
                   const LsimPose *pb, int dim, double margin, LsimContactPoint *out) {
  return lsim_collide(a, pa, b, pb, dim, margin, out, LSIM_MAX_MANIFOLD);
}

/* Index of the point within tol of (x, y, z), or -1. */
static int find_point(const LsimContactPoint *p, int n, double x, double y, double z,
                      double tol) {
  for (int i = 0; i < n; ++i)
    if (fabs(p[i].point[0] - x) <= tol && fabs(p[i].point[1] - y) <= tol &&
        fabs(p[i].point[2] - z) <= tol)
      return i;
  return -1;
}

static void assert_normal(const LsimContactPoint *p, double x, double y, double z, double tol) {
  assert_true(fabs(p->normal[0] - x) <= tol);
  assert_true(fabs(p->normal[1] - y) <= tol);
  assert_true(fabs(p->normal[2] - z) <= tol);
}

static void assert_features_distinct(const LsimContactPoint *p, int n) {
  for (int i = 0; i < n; ++i) {
    assert_true(p[i].feature >= 0 && p[i].feature <= 65535);
    for (int j = i + 1; j < n; ++j) assert_int_not_equal(p[i].feature, p[j].feature);
  }
}

/* Sphere of radius 0.5 on the ground plane at height 0.75: gap 0.25, normal +z, point
 * midway at z = 0.125 (all exact in binary; 0 tolerance would pass, 1e-15 allows one
 * rounding). On a plane tilted by 0.3 about x through (1, 2, 3): the sphere center placed
 * at o + 1.0 n + 0.7 t gives gap 0.5 to a few ulps (1e-12). */
static void test_sphere_plane(void **state) {
  (void)state;
  LsimShape plane = shape(LSIM_SHAPE_PLANE, 0, 0, 0, 0);
  LsimShape ball = shape(LSIM_SHAPE_SPHERE, 0.5, 0, 0, 0);
  LsimPose pp = pose_at(0, 0, 0), pb = pose_at(0.3, -0.2, 0.75);
  LsimContactPoint c[LSIM_MAX_MANIFOLD];
  assert_int_equal(collide(&ball, &pb, &plane, &pp, 3, 0.3, c), 1);
  assert_true(fabs(c[0].gap - 0.25) <= 1e-15);
  assert_normal(&c[0], 0, 0, 1, 0.0);
  assert_true(find_point(c, 1, 0.3, -0.2, 0.125, 1e-15) == 0);
  assert_int_equal(c[0].feature, 0);
  /* Tilted plane. */
  LsimPose pt = pose_aa(1, 2, 3, 1, 0, 0, 0.3);
  const double n[3] = {0, -sin(0.3), cos(0.3)}, t[3] = {1, 0, 0};
  LsimPose ps = pose_at(1 + 1.0 * n[0] + 0.7 * t[0], 2 + n[1], 3 + n[2]);
  assert_int_equal(collide(&ball, &ps, &plane, &pt, 3, 1.0, c), 1);
  assert_true(fabs(c[0].gap - 0.5) <= TOL);
  assert_normal(&c[0], n[0], n[1], n[2], TOL);
  assert_true(find_point(c, 1, 1.7, 2 + 0.25 * n[1], 3 + 0.25 * n[2], TOL) == 0);
}

/* Spheres r = 1 at (1, 2, 3) and r = 2 at (4, 6, 3): distance 5, gap 2, normal from b to a
 * (-0.6, -0.8, 0), point midway between (1.6, 2.8, 3) and (2.8, 4.4, 3). Coincident
 * centers: a unit fallback normal along z and gap -(ra + rb). 2-D disks the same. */
static void test_sphere_sphere(void **state) {
  (void)state;
  LsimShape a = shape(LSIM_SHAPE_SPHERE, 1, 0, 0, 0), b = shape(LSIM_SHAPE_SPHERE, 2, 0, 0, 0);
  LsimPose pa = pose_at(1, 2, 3), pb = pose_at(4, 6, 3);
  LsimContactPoint c[LSIM_MAX_MANIFOLD];
  assert_int_equal(collide(&a, &pa, &b, &pb, 3, 2.5, c), 1);
  assert_true(fabs(c[0].gap - 2.0) <= TOL);
  assert_normal(&c[0], -0.6, -0.8, 0, TOL);
  assert_true(find_point(c, 1, 2.2, 3.6, 3, TOL) == 0);
  assert_int_equal(collide(&a, &pa, &b, &pb, 3, 1.9, c), 0);
  /* Coincident centers. */
  assert_int_equal(collide(&a, &pa, &b, &pa, 3, 0.0, c), 1);
  assert_true(fabs(c[0].gap + 3.0) <= TOL);
  assert_true(fabs(fabs(c[0].normal[2]) - 1.0) <= TOL);
  /* 2-D: disks at (0, 0) and (3, 4). */
  LsimPose qa = pose_at(0, 0, 0), qb = pose_at(3, 4, 0);
  assert_int_equal(collide(&b, &qb, &a, &qa, 2, 2.5, c), 1);
  assert_true(fabs(c[0].gap - 2.0) <= TOL);
  assert_normal(&c[0], 0.6, 0.8, 0, TOL);
  assert_int_equal(collide(&a, &qa, &b, &qa, 2, 0.0, c), 1);
  assert_true(fabs(fabs(c[0].normal[1]) - 1.0) <= TOL && c[0].normal[2] == 0.0);
}

/* Box of half extents (0.6, 0.4, 0.25) resting 0.01 above the ground, yawed by 0.7:
 * exactly the 4 bottom corners, at the rotated corner positions (x, y) and z = 0.005
 * (midway), gaps 0.01; the corner feature ids have bit 2 set (the -z side). */
static void test_box_plane_yaw(void **state) {
  (void)state;
  LsimShape plane = shape(LSIM_SHAPE_PLANE, 0, 0, 0, 0);
  LsimShape box = shape(LSIM_SHAPE_BOX, 0, 0.6, 0.4, 0.25);
  const double yaw = 0.7, cx = 0.3, cy = -1.1;
  LsimPose pp = pose_at(0, 0, 0), pb = pose_aa(cx, cy, 0.26, 0, 0, 1, yaw);
  LsimContactPoint c[LSIM_MAX_MANIFOLD];
  const int n = collide(&box, &pb, &plane, &pp, 3, 0.02, c);
  assert_int_equal(n, 4);
  for (int i = 0; i < 4; ++i) {
    const double sx = (i & 1) ? -0.6 : 0.6, sy = (i & 2) ? -0.4 : 0.4;
    const double x = cx + cos(yaw) * sx - sin(yaw) * sy, y = cy + sin(yaw) * sx + cos(yaw) * sy;
    const int k = find_point(c, n, x, y, 0.005, TOL);
    assert_true(k >= 0);
    assert_true(fabs(c[k].gap - 0.01) <= TOL);
    assert_normal(&c[k], 0, 0, 1, TOL);
    assert_int_equal(c[k].feature, i | 4);
  }
}

/* The same box tilted by 0.05 about x, its lowest corners 0.001 above the ground: the two
 * -y corners have gap 0.001, the two +y ones 0.001 + 0.8 sin(0.05); a margin of 0.01
 * keeps only the lower two. */
static void test_box_plane_tilt(void **state) {
  (void)state;
  LsimShape plane = shape(LSIM_SHAPE_PLANE, 0, 0, 0, 0);
  LsimShape box = shape(LSIM_SHAPE_BOX, 0, 0.6, 0.4, 0.25);
  const double th = 0.05, zc = 0.25 * cos(th) + 0.4 * sin(th) + 0.001;
  LsimPose pp = pose_at(0, 0, 0), pb = pose_aa(0, 0, zc, 1, 0, 0, th);
  LsimContactPoint c[LSIM_MAX_MANIFOLD];
  int n = collide(&box, &pb, &plane, &pp, 3, 0.1, c);
  assert_int_equal(n, 4);
  int low = 0;
  for (int i = 0; i < n; ++i) {
    const int lower = c[i].point[1] < 0.0;
    low += lower;
    assert_true(fabs(c[i].gap - (lower ? 0.001 : 0.001 + 0.8 * sin(th))) <= TOL);
  }
  assert_int_equal(low, 2);
  n = collide(&box, &pb, &plane, &pp, 3, 0.01, c);
  assert_int_equal(n, 2);
  for (int i = 0; i < n; ++i) {
    assert_true(c[i].point[1] < 0.0);
    assert_true(fabs(c[i].gap - 0.001) <= TOL);
  }
}

/* A long thin box (2 x 0.01 x 0.01 half extents) lying flat on the ground, 0.001 above
 * it, with a margin of 0.05 (what a step at 2 m/s and h = 0.01 s can close plus slack),
 * larger than its 0.02 m thickness: all 8 corners are within the margin, and the 4 kept
 * must be the 4 bottom ones (gap 0.001), one at each end on either side, never a top
 * corner (gap 0.021): held by top corners the box rolled over as it slid sideways. Yawed
 * by 0.3 and tilted 1e-4 rad about its long axis (so the bottom corners are not all tied),
 * the 4 kept are still the bottom ones. A cube balanced on an edge at 45 degrees (corners
 * at heights 0, 0, then four at 0.5 sqrt 2 tied, two on each side; margin 1): the tie
 * lets all six compete, and the 4 kept hold an edge corner and a corner on each side of
 * the edge, so the box is caught whichever way it falls. Gaps are sums of a few products: 1e-12. */
static void test_box_plane_thin(void **state) {
  (void)state;
  LsimShape plane = shape(LSIM_SHAPE_PLANE, 0, 0, 0, 0);
  LsimShape rod = shape(LSIM_SHAPE_BOX, 0, 2.0, 0.01, 0.01);
  LsimContactPoint c[LSIM_MAX_MANIFOLD];
  LsimPose pp = pose_at(0, 0, 0), pb = pose_aa(0.2, -0.3, 0.011, 0, 0, 1, 0.3);
  int n = collide(&rod, &pb, &plane, &pp, 3, 0.05, c);
  assert_int_equal(n, 4);
  int ends = 0, sides = 0;
  for (int i = 0; i < n; ++i) {
    assert_true(fabs(c[i].gap - 0.001) <= TOL);
    assert_int_equal(c[i].feature & 4, 4); /* local -z: a bottom corner */
    ends += (c[i].feature & 1) != 0, sides += (c[i].feature & 2) != 0;
  }
  assert_int_equal(ends, 2);
  assert_int_equal(sides, 2);
  /* Tilted 1e-4 about the long axis. */
  const double th = 1e-4;
  pb = pose_aa(0, 0, 0.01 * cos(th) + 0.01 * sin(th) + 0.001, 1, 0, 0, th);
  n = collide(&rod, &pb, &plane, &pp, 3, 0.05, c);
  assert_int_equal(n, 4);
  for (int i = 0; i < n; ++i) assert_true(c[i].gap < 0.001 + 0.02 * sin(th) + TOL);
  /* A unit cube on an edge (the x axis) at 45 degrees: the faces at the edge tie, the
     first one's 4 corners count: the 2 on the edge at gap 0, 2 at 0.5 sqrt 2 on one
     side. */
  LsimShape cube = shape(LSIM_SHAPE_BOX, 0, 0.5, 0.5, 0.5);
  pb = pose_aa(0, 0, 0.5 * sqrt(2.0), 1, 0, 0, 0.25 * PI);
  n = collide(&cube, &pb, &plane, &pp, 3, 1.0, c);
  assert_int_equal(n, 4);
  int edge = 0, left = 0, right = 0;
  for (int i = 0; i < n; ++i) {
    if (fabs(c[i].gap) <= TOL) ++edge;
    else {
      assert_true(fabs(c[i].gap - 0.5 * sqrt(2.0)) <= TOL);
      if (c[i].point[1] < 0) ++left;
      else ++right;
    }
  }
  assert_int_equal(edge, 2);
  assert_true((left == 2 && right == 0) || (left == 0 && right == 2));
  /* A plate (1, 0.2, 0.005) tipped by 0.2 about y, its low edge 0.001 above the ground,
     everything within reach (margin 0.5): the 4 corners of its bottom face (local -z), two
     at each end, gaps their heights (0.001 and 0.001 + 2 sin 0.2 cos-projected: computed
     here by rotating the corners); the 4 deepest corners would be the low end's top and
     bottom ones, leaving the high end unheld. */
  LsimShape plate = shape(LSIM_SHAPE_BOX, 0, 1.0, 0.2, 0.005);
  pb = pose_aa(0, 0, 0, 0, 1, 0, 0.2);
  double zc[8], zmin = HUGE_VAL;
  for (int i = 0; i < 8; ++i) {
    const double l[3] = {(i & 1) ? -1.0 : 1.0, (i & 2) ? -0.2 : 0.2, (i & 4) ? -0.005 : 0.005};
    double w[3];
    lsim_quat_rotate(w, pb.q, l);
    zc[i] = w[2], zmin = fmin(zmin, w[2]);
  }
  pb.p[2] = 0.001 - zmin;
  n = collide(&plate, &pb, &plane, &pp, 3, 0.5, c);
  assert_int_equal(n, 4);
  ends = 0;
  for (int i = 0; i < n; ++i) {
    assert_int_equal(c[i].feature & 4, 4);
    assert_true(fabs(c[i].gap - (pb.p[2] + zc[c[i].feature])) <= TOL);
    ends += (c[i].feature & 1) != 0;
  }
  assert_int_equal(ends, 2);
}

/* A small box (0.5, 0.3, 0.2) yawed by 0.4 resting 0.001 above a large one (2, 1.5,
 * 0.5): exactly 4 points at the small box's bottom corners, z = 0.5005, gaps 0.001 to
 * 1e-12, normal +z towards the small box; swapping the arguments flips only normals. */
static void test_box_on_box(void **state) {
  (void)state;
  LsimShape big = shape(LSIM_SHAPE_BOX, 0, 2, 1.5, 0.5);
  LsimShape small = shape(LSIM_SHAPE_BOX, 0, 0.5, 0.3, 0.2);
  const double yaw = 0.4, cx = 0.2, cy = -0.1;
  LsimPose pbig = pose_at(0, 0, 0), psmall = pose_aa(cx, cy, 0.701, 0, 0, 1, yaw);
  LsimContactPoint c[LSIM_MAX_MANIFOLD], d[LSIM_MAX_MANIFOLD];
  const int n = collide(&small, &psmall, &big, &pbig, 3, 0.01, c);
  assert_int_equal(n, 4);
  for (int i = 0; i < 4; ++i) {
    const double sx = (i & 1) ? -0.5 : 0.5, sy = (i & 2) ? -0.3 : 0.3;
    const double x = cx + cos(yaw) * sx - sin(yaw) * sy, y = cy + sin(yaw) * sx + cos(yaw) * sy;
    const int k = find_point(c, n, x, y, 0.5005, TOL);
    assert_true(k >= 0);
    assert_true(fabs(c[k].gap - 0.001) <= TOL);
    assert_normal(&c[k], 0, 0, 1, TOL);
  }
  assert_features_distinct(c, n);
  assert_int_equal(collide(&big, &pbig, &small, &psmall, 3, 0.01, d), 4);
  for (int i = 0; i < 4; ++i) {
    assert_true(memcmp(c[i].point, d[i].point, sizeof c[i].point) == 0);
    assert_true(c[i].gap == d[i].gap && c[i].feature == d[i].feature);
    assert_normal(&d[i], 0, 0, -1, TOL);
  }
}

/* Two unit-half-width boxes (1, 1, 0.5), the upper one shifted by (1, 0.5) and sunk by
 * 0.002: the overlap is the rectangle x in [0, 1], y in [-0.5, 1]; its 4 corners are the
 * points, at z = 0.5 - 0.001, gap -0.002. Shifted by (1, 0) only (edges flush along y):
 * still exactly 4, the corners (0, +-1), (1, +-1). */
static void test_box_on_box_offset(void **state) {
  (void)state;
  LsimShape b = shape(LSIM_SHAPE_BOX, 0, 1, 1, 0.5);
  LsimPose lo = pose_at(0, 0, 0);
  LsimContactPoint c[LSIM_MAX_MANIFOLD];
  const double shift[2][2] = {{1, 0.5}, {1, 0}};
  for (int s = 0; s < 2; ++s) {
    LsimPose hi = pose_at(shift[s][0], shift[s][1], 0.998);
    const int n = collide(&b, &hi, &b, &lo, 3, 0.01, c);
    assert_int_equal(n, 4);
    const double ylo = shift[s][1] - 1.0;
    const double corners[4][2] = {{0, ylo}, {1, ylo}, {0, 1}, {1, 1}};
    for (int i = 0; i < 4; ++i) {
      const int k = find_point(c, n, corners[i][0], corners[i][1], 0.499, TOL);
      assert_true(k >= 0);
      assert_true(fabs(c[k].gap + 0.002) <= TOL);
      assert_normal(&c[k], 0, 0, 1, TOL);
    }
    assert_features_distinct(c, n);
  }
}

/* A deterministic uniform number in [0, 1) (64-bit LCG, the top 53 bits). */
static double unit_rand(uint64_t *x) {
  *x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*x >> 11) * 0x1.0p-53;
}

/* The box-box test's nine edge axes as lsim_geom_box_edge_seps gives them (three at a
 * time in AVX lanes where the CPU has AVX) equal the scalar loop's bit for bit (slot 9
 * too, a copy of slot 8): 20 000 random pairs of boxes (sizes 0.01-1, centers within 2,
 * random rotations), of which a quarter have B's rotation a tiny turn of A's (parallel
 * edges: lengths near 0) and a tenth both unrotated (lengths exactly 0, NaN directions
 * and separations); and a pair with NaN in the offset. */
static void test_box_edge_seps(void **state) {
  (void)state;
  uint64_t seed = 12345;
  for (int t = 0; t < 20000; ++t) {
    LsimShape sa = shape(LSIM_SHAPE_BOX, 0, 0.01 + unit_rand(&seed), 0.01 + unit_rand(&seed),
                         0.01 + unit_rand(&seed));
    LsimShape sb = shape(LSIM_SHAPE_BOX, 0, 0.01 + unit_rand(&seed), 0.01 + unit_rand(&seed),
                         0.01 + unit_rand(&seed));
    const int kind = t % 20;
    double ang = kind < 2 ? 0.0 : 2.0 * PI * unit_rand(&seed);
    LsimPose pa = pose_aa(2 * unit_rand(&seed) - 1, 2 * unit_rand(&seed) - 1, 2 * unit_rand(&seed) - 1,
                          unit_rand(&seed) - 0.5, unit_rand(&seed) - 0.5, unit_rand(&seed) - 0.5, ang);
    LsimPose pb = pa;
    if (kind >= 2 && kind < 7) { /* a tiny turn of A's rotation */
      const LsimPose turn = pose_aa(0, 0, 0, unit_rand(&seed) - 0.5, unit_rand(&seed) - 0.5,
                                    unit_rand(&seed) - 0.5, 1e-7 * unit_rand(&seed));
      lsim_quat_mul(pb.q, pa.q, turn.q);
    } else if (kind >= 7) {
      pb = pose_aa(0, 0, 0, unit_rand(&seed) - 0.5, unit_rand(&seed) - 0.5, unit_rand(&seed) - 0.5,
                   2.0 * PI * unit_rand(&seed));
    }
    for (int c = 0; c < 3; ++c) pb.p[c] = pa.p[c] + 2 * unit_rand(&seed) - 1;
    LsimPlaced A, B;
    lsim_shape_place(&sa, &pa, 3, &A);
    lsim_shape_place(&sb, &pb, 3, &B);
    double d[3], len[LSIM_EDGE_SLOTS], s[LSIM_EDGE_SLOTS], len0[LSIM_EDGE_SLOTS], s0[LSIM_EDGE_SLOTS];
    lsim_v3_sub(d, B.c, A.c);
    if (t == 19999) d[1] = NAN;
    lsim_geom_box_edge_seps(&A, &B, d, len, s);
    lsim_geom_box_edge_seps_scalar(&A, &B, d, len0, s0);
    if (memcmp(len, len0, sizeof len) != 0 || memcmp(s, s0, sizeof s) != 0)
      fail_msg("pair %d: the edge axes differ from the scalar loop's", t);
    if (kind < 2) assert_true(len[0] == 0.0 && s[0] != s[0]); /* a_0 x b_0 = 0 exactly */
  }
}

/* The clip keeps a polygon every side plane leaves whole as it is (clip_polygon's
 * shortcut) and cuts it where a plane crosses it: two cubes of half side 0.5, the upper
 * one 0.001 deep and shifted by (dx, dy); the points are the corners of the overlap
 * rectangle x in [dx - 0.5, 0.5], y in [-0.5, dy + 0.5] (for dx >= 0 >= dy) at z =
 * 0.4995, gap -0.001: flush (every plane keeps the face, its corners on the planes), cut
 * by the first plane (+x) alone, by the last (-y) alone, and by both; each with the
 * arguments swapped, the same points and ids (ids name faces and sides, not roles). */
static void test_box_clip_keep(void **state) {
  (void)state;
  LsimShape b = shape(LSIM_SHAPE_BOX, 0, 0.5, 0.5, 0.5);
  const LsimPose lo = pose_at(0, 0, 0);
  const double shift[4][2] = {{0, 0}, {0.25, 0}, {0, -0.25}, {0.25, -0.25}};
  for (int s = 0; s < 4; ++s) {
    const double dx = shift[s][0], dy = shift[s][1];
    const LsimPose hi = pose_at(dx, dy, 0.999);
    LsimContactPoint c[LSIM_MAX_MANIFOLD], d[LSIM_MAX_MANIFOLD];
    const int n = collide(&b, &hi, &b, &lo, 3, 0.01, c);
    assert_int_equal(n, 4);
    const double corners[4][2] = {{dx - 0.5, -0.5}, {0.5, -0.5}, {dx - 0.5, dy + 0.5},
                                  {0.5, dy + 0.5}};
    for (int i = 0; i < 4; ++i) {
      const int k = find_point(c, n, corners[i][0], corners[i][1], 0.4995, TOL);
      if (k < 0) fail_msg("shift %d: no point at (%g, %g)", s, corners[i][0], corners[i][1]);
      assert_true(fabs(c[k].gap + 0.001) <= TOL);
      assert_normal(&c[k], 0, 0, 1, TOL);
    }
    assert_features_distinct(c, n);
    assert_int_equal(collide(&b, &lo, &b, &hi, 3, 0.01, d), 4);
    for (int i = 0; i < 4; ++i) {
      int found = 0;
      for (int j = 0; j < 4; ++j)
        found |= d[j].feature == c[i].feature &&
                 memcmp(d[j].point, c[i].point, sizeof c[i].point) == 0;
      assert_true(found);
    }
  }
}

/* Edge on edge: a cube rotated 45 degrees about x (top edge along x at z = sqrt 2) under a
 * cube rotated 45 degrees about y (bottom edge along y), 0.01 apart: one point at
 * (0, 0, sqrt 2 + 0.005), gap 0.01, normal +z (1e-12: sqrt 2 from rotations). */
static void test_box_edge_edge(void **state) {
  (void)state;
  LsimShape cube = shape(LSIM_SHAPE_BOX, 0, 1, 1, 1);
  const double r2 = sqrt(2.0);
  LsimPose pa = pose_aa(0, 0, 0, 1, 0, 0, PI / 4);
  LsimPose pb = pose_aa(0, 0, 2 * r2 + 0.01, 0, 1, 0, PI / 4);
  LsimContactPoint c[LSIM_MAX_MANIFOLD];
  assert_int_equal(collide(&cube, &pb, &cube, &pa, 3, 0.05, c), 1);
  assert_true(fabs(c[0].gap - 0.01) <= TOL);
  assert_normal(&c[0], 0, 0, 1, TOL);
  assert_true(find_point(c, 1, 0, 0, r2 + 0.005, TOL) == 0);
}

/* 2-D: a rectangle (1, 0.5) sunk 0.01 into the ground line: 2 points at x = 0.3 +- 1,
 * y = -0.005, gap -0.01, normal +y. A rectangle (0.5, 0.25) 0.003 above a rectangle
 * (2, 0.5): 2 points at x = 0.4 +- 0.5, y = 0.5015, gap 0.003. */
static void test_rect_2d(void **state) {
  (void)state;
  LsimShape plane = shape(LSIM_SHAPE_PLANE, 0, 0, 0, 0), r1 = shape(LSIM_SHAPE_BOX, 0, 1, 0.5, 7);
  LsimPose pp = pose_at(0, 0, 0), p1 = pose_at(0.3, 0.49, 0);
  LsimContactPoint c[LSIM_MAX_MANIFOLD];
  int n = collide(&r1, &p1, &plane, &pp, 2, 0.05, c);
  assert_int_equal(n, 2);
  for (int i = 0; i < 2; ++i) {
    assert_true(find_point(c, n, 0.3 + (i ? -1.0 : 1.0), -0.005, 0, TOL) >= 0);
    assert_true(fabs(c[i].gap + 0.01) <= TOL);
    assert_normal(&c[i], 0, 1, 0, TOL);
  }
  LsimShape big = shape(LSIM_SHAPE_BOX, 0, 2, 0.5, 0);
  LsimShape small = shape(LSIM_SHAPE_BOX, 0, 0.5, 0.25, 0);
  LsimPose pbig = pose_at(0, 0, 0), psmall = pose_aa(0.4, 0.753, 0, 0, 0, 1, PI);
  n = collide(&small, &psmall, &big, &pbig, 2, 0.01, c);
  assert_int_equal(n, 2);
  for (int i = 0; i < 2; ++i) {
    assert_true(find_point(c, n, 0.4 + (i ? -0.5 : 0.5), 0.5015, 0, TOL) >= 0);
    assert_true(fabs(c[i].gap - 0.003) <= TOL);
    assert_normal(&c[i], 0, 1, 0, TOL);
  }
  assert_features_distinct(c, n);
}

/* Capsule (half length 0.7, radius 0.2) lying along x 0.003 above the ground: 2 points at
 * its ends x = 0.1 +- 0.7, z = 0.0015, gap 0.003. Standing upright: 1 point. */
static void test_capsule_plane(void **state) {
  (void)state;
  LsimShape plane = shape(LSIM_SHAPE_PLANE, 0, 0, 0, 0);
  LsimShape cap = shape(LSIM_SHAPE_CAPSULE, 0.2, 0.7, 0, 0);
  LsimPose pp = pose_at(0, 0, 0), pc = pose_aa(0.1, 0.2, 0.203, 0, 1, 0, PI / 2);
  LsimContactPoint c[LSIM_MAX_MANIFOLD];
  int n = collide(&cap, &pc, &plane, &pp, 3, 0.01, c);
  assert_int_equal(n, 2);
  assert_true(find_point(c, n, 0.8, 0.2, 0.0015, TOL) >= 0);
  assert_true(find_point(c, n, -0.6, 0.2, 0.0015, TOL) >= 0);
  for (int i = 0; i < n; ++i) assert_true(fabs(c[i].gap - 0.003) <= TOL);
  assert_features_distinct(c, n);
  LsimPose up = pose_at(0, 0, 0.9);
  n = collide(&cap, &up, &plane, &pp, 3, 0.01, c);
  assert_int_equal(n, 1);
  assert_true(fabs(c[0].gap) <= TOL);
}

/* Capsules crossing at right angles: a along x (r 0.1), b along y (r 0.15) 0.004 above:
 * one point at the crossing (0.2, 0, 0.102), gap 0.004, normal +z from a to b (b first). */
static void test_capsule_cross(void **state) {
  (void)state;
  LsimShape a = shape(LSIM_SHAPE_CAPSULE, 0.1, 1, 0, 0);
  LsimShape b = shape(LSIM_SHAPE_CAPSULE, 0.15, 1, 0, 0);
  LsimPose pa = pose_aa(0, 0, 0, 0, 1, 0, PI / 2), pb = pose_aa(0.2, 0.3, 0.254, 1, 0, 0, PI / 2);
  LsimContactPoint c[LSIM_MAX_MANIFOLD];
  assert_int_equal(collide(&b, &pb, &a, &pa, 3, 0.01, c), 1);
  assert_true(fabs(c[0].gap - 0.004) <= TOL);
  assert_normal(&c[0], 0, 0, 1, TOL);
  assert_true(find_point(c, 1, 0.2, 0, 0.102, TOL) == 0);
}

/* Parallel capsules along x, both r 0.1: a (half length 1) at the origin, b (0.8) at
 * (0.6, 0, 0.202): the overlap x in [-0.2, 1] gives 2 points at z = 0.101, gap 0.002. */
static void test_capsule_parallel(void **state) {
  (void)state;
  LsimShape a = shape(LSIM_SHAPE_CAPSULE, 0.1, 1, 0, 0);
  LsimShape b = shape(LSIM_SHAPE_CAPSULE, 0.1, 0.8, 0, 0);
  LsimPose pa = pose_aa(0, 0, 0, 0, 1, 0, PI / 2), pb = pose_aa(0.6, 0, 0.202, 0, 1, 0, -PI / 2);
  LsimContactPoint c[LSIM_MAX_MANIFOLD];
  const int n = collide(&b, &pb, &a, &pa, 3, 0.01, c);
  assert_int_equal(n, 2);
  assert_true(find_point(c, n, -0.2, 0, 0.101, TOL) >= 0);
  assert_true(find_point(c, n, 1.0, 0, 0.101, TOL) >= 0);
  for (int i = 0; i < n; ++i) {
    assert_true(fabs(c[i].gap - 0.002) <= TOL);
    assert_normal(&c[i], 0, 0, 1, TOL);
  }
  assert_features_distinct(c, n);
  /* 2-D: the same pair in the plane (capsule axis local x), b 0.002 above along y. */
  LsimPose qa = pose_at(0, 0, 0), qb = pose_at(0.6, 0.202, 0);
  assert_int_equal(collide(&b, &qb, &a, &qa, 2, 0.01, c), 2);
  assert_true(find_point(c, 2, -0.2, 0.101, 0, TOL) >= 0);
  assert_true(find_point(c, 2, 1.0, 0.101, 0, TOL) >= 0);
}

/* Capsule (half length 0.4, r 0.2) lying along x on the top face of a box (1, 0.8, 0.5),
 * 0.001 above: 2 points at its ends x = 0.2 +- 0.4, z = 0.5005, gap 0.001. Longer than
 * the box (half length 2): 2 points where it leaves the face, x = +-1. Sunk so its axis is
 * inside the box (center z 0.45): still 2 points, gap -0.25, normal +z. 2-D: the same
 * on a rectangle. */
static void test_box_capsule(void **state) {
  (void)state;
  LsimShape box = shape(LSIM_SHAPE_BOX, 0, 1, 0.8, 0.5);
  LsimShape cap = shape(LSIM_SHAPE_CAPSULE, 0.2, 0.4, 0, 0);
  LsimShape lng = shape(LSIM_SHAPE_CAPSULE, 0.2, 2, 0, 0);
  LsimPose pbox = pose_at(0, 0, 0), pc = pose_aa(0.2, 0.1, 0.701, 0, 1, 0, PI / 2);
  LsimContactPoint c[LSIM_MAX_MANIFOLD];
  int n = collide(&cap, &pc, &box, &pbox, 3, 0.01, c);
  assert_int_equal(n, 2);
  assert_true(find_point(c, n, 0.6, 0.1, 0.5005, TOL) >= 0);
  assert_true(find_point(c, n, -0.2, 0.1, 0.5005, TOL) >= 0);
  for (int i = 0; i < n; ++i) {
    assert_true(fabs(c[i].gap - 0.001) <= TOL);
    assert_normal(&c[i], 0, 0, 1, TOL);
  }
  assert_features_distinct(c, n);
  n = collide(&lng, &pc, &box, &pbox, 3, 0.01, c);
  assert_int_equal(n, 2);
  assert_true(find_point(c, n, 1.0, 0.1, 0.5005, TOL) >= 0);
  assert_true(find_point(c, n, -1.0, 0.1, 0.5005, TOL) >= 0);
  LsimPose deep = pose_aa(0.2, 0.1, 0.45, 0, 1, 0, PI / 2);
  n = collide(&cap, &deep, &box, &pbox, 3, 0.01, c);
  assert_int_equal(n, 2);
  for (int i = 0; i < n; ++i) {
    assert_true(fabs(c[i].gap + 0.25) <= TOL);
    assert_normal(&c[i], 0, 0, 1, TOL);
  }
  /* Tilted by 0.2 rad about y: the lower end only within a 0.01 margin. */
  LsimPose tilt = pose_aa(0.2, 0.1, 0.701 + 0.4 * sin(0.2), 0, 1, 0, PI / 2 + 0.2);
  n = collide(&cap, &tilt, &box, &pbox, 3, 0.01, c);
  assert_int_equal(n, 1);
  assert_true(fabs(c[0].gap - 0.001) <= TOL);
  /* 2-D. */
  LsimPose q = pose_at(0.2, 1.001, 0);
  n = collide(&cap, &q, &box, &pbox, 2, 0.01, c);
  assert_int_equal(n, 2);
  assert_true(find_point(c, n, 0.6, 0.8005, 0, TOL) >= 0);
  assert_true(find_point(c, n, -0.2, 0.8005, 0, TOL) >= 0);
}

/* The whole segment is held, not only its closest point. Box (1, 0.8, 0.5) at the origin,
 * capsules of radius 0.2:
 * - pivoting on the top edge y = 0.8: a capsule (half length 0.4) tilted by a = 0.3 rad in
 *   the y-z plane, its low end beyond the edge, its axis 0.201 from the edge (gap 0.001).
 *   Margin 0.15: the closest point, and the segment's part over the top face by its two
 *   ends: the edge crossing (height zc - 0.5) and the high end (zc + 0.4 sin a - 0.5),
 *   normal +z, gaps those heights minus the radius; the low end, 0.193 from the edge, is
 *   beyond the margin. One point used to let the high end swing into the face.
 * - a roller under a box rocking on it: a capsule (half length 2, longer than the face)
 *   along y over the top face, turned by 1e-3 rad about x, its axis 0.201 above the face
 *   at y = 0: two points at the face's ends y = +-0.8, normal +z, gaps 0.001 +- 0.8 tan
 *   1e-3 (the closest points lie just past the face's border, so the old code gave one
 *   point, at whichever end was lower).
 * - capsule on capsule at a shallow angle: b (half length 0.5) tilted by 0.2 rad over a
 *   (half length 1) along x, its low end 0.001 from a: a second point for b's high end,
 *   gap 0.001 + sin 0.2, normal +z. */
static void test_capsule_segment_held(void **state) {
  (void)state;
  LsimShape box = shape(LSIM_SHAPE_BOX, 0, 1, 0.8, 0.5);
  LsimShape cap = shape(LSIM_SHAPE_CAPSULE, 0.2, 0.4, 0, 0);
  LsimPose pbox = pose_at(0, 0, 0);
  LsimContactPoint c[LSIM_MAX_MANIFOLD];
  const double a = 0.3, zc = 0.5 + 0.201 / cos(a);
  LsimPose pc = pose_aa(0, 0.8, zc, 1, 0, 0, atan2(-cos(a), -sin(a)));
  int n = collide(&cap, &pc, &box, &pbox, 3, 0.15, c);
  assert_int_equal(n, 3);
  const double g1 = zc - 0.7, g2 = zc + 0.4 * sin(a) - 0.7;
  const int i1 = find_point(c, n, 0, 0.8, 0.5 + 0.5 * g1, TOL);
  const int i2 = find_point(c, n, 0, 0.8 - 0.4 * cos(a), 0.5 + 0.5 * g2, TOL);
  assert_true(i1 >= 0 && i2 >= 0);
  assert_true(fabs(c[i1].gap - g1) <= TOL && fabs(c[i2].gap - g2) <= TOL);
  assert_normal(&c[i1], 0, 0, 1, TOL);
  assert_normal(&c[i2], 0, 0, 1, TOL);
  assert_true(fabs(c[3 - i1 - i2].gap - 0.001) <= TOL);
  assert_features_distinct(c, n);

  LsimShape roller = shape(LSIM_SHAPE_CAPSULE, 0.2, 2, 0, 0);
  const double d = 1e-3;
  LsimPose pr = pose_aa(0.3, 0, 0.701, 1, 0, 0, -(PI / 2 - d));
  n = collide(&roller, &pr, &box, &pbox, 3, 0.01, c);
  assert_int_equal(n, 2);
  for (int e = 0; e < 2; ++e) {
    const double y = e ? 0.8 : -0.8, g = 0.001 + y * tan(d);
    const int i = find_point(c, n, 0.3, y, 0.5 + 0.5 * g, 1e-9);
    assert_true(i >= 0);
    assert_true(fabs(c[i].gap - g) <= TOL);
    assert_normal(&c[i], 0, 0, 1, TOL);
  }

  LsimShape ca = shape(LSIM_SHAPE_CAPSULE, 0.1, 1, 0, 0), cb = shape(LSIM_SHAPE_CAPSULE, 0.1, 0.5, 0, 0);
  const double t = 0.2;
  LsimPose pa = pose_aa(0, 0, 0, 0, 1, 0, PI / 2);
  LsimPose pb = pose_aa(0, 0, 0.201 + 0.5 * sin(t), 0, 1, 0, atan2(cos(t), -sin(t)));
  n = collide(&cb, &pb, &ca, &pa, 3, 0.25, c);
  assert_int_equal(n, 2);
  const int lo = c[0].gap < c[1].gap ? 0 : 1;
  assert_true(fabs(c[lo].gap - 0.001) <= TOL);
  assert_true(fabs(c[1 - lo].gap - (0.001 + sin(t))) <= TOL);
  assert_normal(&c[1 - lo], 0, 0, 1, TOL);
  assert_true(find_point(c, n, -0.5 * cos(t), 0, 0.1 + 0.5 * (0.001 + sin(t)), TOL) == 1 - lo);
  assert_features_distinct(c, n);
}

/* A capsule spinning over a box's edge (a 48-body mixed pile at h = 0.01 s, step 37):
 * box (half extents 0.1), capsule (r 0.05, half length 0.05, its axis the shape's local z
 * turned onto the body's x). The normal is within the face-contact cone of the box's -y
 * face, so the segment is clipped to that face: two points at the clipped end (gaps
 * -3.4e-5 and 3.0e-4). The other end lies beyond that face and past its +z side plane
 * (beside the edge), 2.7 mm from the box, well
 * within the pair's reach (0.02 here, the pile's was 0.03 at 2-3 m/s): it needs its own
 * point, at the end's exact distance to the box minus r, normal from the box's nearest
 * point to the end center. Without it the end swung 6.8 mm into the box the next step. */
static void test_capsule_end_past_face(void **state) {
  (void)state;
  LsimShape box = shape(LSIM_SHAPE_BOX, 0, 0.1, 0.1, 0.1);
  LsimShape cap = shape(LSIM_SHAPE_CAPSULE, 0.05, 0.05, 0, 0);
  const LsimPose pb = {{-0.0439499227636248, -0.12101724704424573, 0.2995604899679001},
                       {0.9957911904473413, -0.09031161104523389, 0.001090030411669397,
                        0.015573367380979173}};
  const double qbody[4] = {0.5433568808642731, -0.8387091144071361, -0.027592817957177395,
                           -0.023852836833964348};
  const double qshape[4] = {sqrt(0.5), 0, sqrt(0.5), 0};
  LsimPose pc = {{-0.036682137595631256, -0.25109586070514556, 0.4276254479824194}, {0, 0, 0, 0}};
  lsim_quat_mul(pc.q, qbody, qshape);
  LsimContactPoint c[LSIM_MAX_MANIFOLD];
  const int n = collide(&box, &pb, &cap, &pc, 3, 0.02, c);
  /* The exact distance of each end center to the box (box frame, clamping). */
  int far = -1;
  double gfar = 0.0, nfar[3] = {0, 0, 0};
  for (int e = 0; e < 2; ++e) {
    const double a[3] = {0, 0, e ? 0.05 : -0.05};
    double w[3], d[3], P[3], q[3];
    lsim_quat_rotate(w, pc.q, a);
    for (int k = 0; k < 3; ++k) d[k] = pc.p[k] + w[k] - pb.p[k];
    lsim_quat_rotate_inv(P, pb.q, d);
    int past = 0;
    for (int k = 0; k < 3; ++k) q[k] = fmin(fmax(P[k], -0.1), 0.1), past += fabs(P[k]) > 0.1;
    if (past < 2) continue; /* the end beyond the face and past its side plane */
    double dl[3] = {P[0] - q[0], P[1] - q[1], P[2] - q[2]};
    const double de = lsim_v3_norm(dl);
    lsim_v3_scale(dl, dl, -1.0 / de); /* from the capsule towards the box */
    lsim_quat_rotate(nfar, pb.q, dl);
    gfar = de - 0.05, far = e;
  }
  assert_true(far >= 0 && gfar > 0.0 && gfar < 0.005);
  assert_int_equal(n, 3);
  int i = -1;
  for (int k = 0; k < n; ++k)
    if (fabs(c[k].gap - gfar) <= TOL) i = k;
  assert_true(i >= 0);
  assert_normal(&c[i], nfar[0], nfar[1], nfar[2], TOL);
  for (int k = 0; k < n; ++k)
    if (k != i) assert_true(c[k].gap < 0.0005);
  assert_features_distinct(c, n);
}

/* Box on a box edge to edge: a rod (half extents 0.05, 0.3, 0.03) along y, rolled by 45
 * degrees about its length and tilted by 0.3 rad in the y-z plane, its lowest edge 1 cm
 * over the top edge y = 0.3 of a box (0.4, 0.3, 0.25) whose top face is z = 0.5, the rest
 * of it over that face. Margin 0.2: the edge point (the rod's edge crossing the box's, the
 * deepest) and the rod's lower face clipped to the top face, up to its far end (gap above
 * 0.1): normal +z, each point midway between its corner and the face (z = 0.5 + gap / 2),
 * within the face. One edge point used to let that end swing into the face. */
static void test_box_edge_held(void **state) {
  (void)state;
  LsimShape table = shape(LSIM_SHAPE_BOX, 0, 0.4, 0.3, 0.25), rod = shape(LSIM_SHAPE_BOX, 0, 0.05, 0.3, 0.03);
  const double a = 0.3, r8 = PI / 8;
  const double roll[4] = {cos(r8), 0, sin(r8), 0}, tilt[4] = {cos(-0.5 * a), sin(-0.5 * a), 0, 0};
  LsimPose pt = pose_at(0, 0, 0.25), pr = pose_at(0, 0.3, 0.5 + 0.08 / sqrt(2.0) / cos(a) + 0.01);
  lsim_quat_mul(pr.q, tilt, roll);
  LsimContactPoint c[LSIM_MAX_MANIFOLD];
  const int n = collide(&rod, &pr, &table, &pt, 3, 0.2, c);
  assert_true(n >= 3);
  int edge = -1, face = 0;
  double far = 0.0;
  for (int i = 0; i < n; ++i) {
    if (c[i].feature >= 9216) {
      edge = i;
      continue;
    }
    ++face;
    assert_normal(&c[i], 0, 0, 1, TOL);
    assert_true(fabs(c[i].point[2] - (0.5 + 0.5 * c[i].gap)) <= TOL);
    assert_true(fabs(c[i].point[0]) <= 0.4 + TOL && fabs(c[i].point[1]) <= 0.3 + TOL);
    far = fmax(far, c[i].gap);
  }
  assert_true(edge >= 0 && face >= 2 && far > 0.1);
  for (int i = 0; i < n; ++i) assert_true(c[i].gap >= c[edge].gap && c[i].gap <= 0.2);
  assert_features_distinct(c, n);
}

/* Point shapes: 0.3 above the ground (gap 0.3, point at z 0.15); beside a unit box (gap
 * 0.5, normal +x), inside it near the +x face (gap -0.1), off its corner (gap sqrt 2);
 * point-point (gap = distance 5, no radius). */
static void test_point_pairs(void **state) {
  (void)state;
  LsimShape plane = shape(LSIM_SHAPE_PLANE, 0, 0, 0, 0), pt = shape(LSIM_SHAPE_POINT, 0.5, 0, 0, 0);
  LsimShape box = shape(LSIM_SHAPE_BOX, 0, 1, 1, 1);
  LsimPose o = pose_at(0, 0, 0), p = pose_at(1, 2, 0.3);
  LsimContactPoint c[LSIM_MAX_MANIFOLD];
  assert_int_equal(collide(&pt, &p, &plane, &o, 3, 0.5, c), 1);
  assert_true(fabs(c[0].gap - 0.3) <= TOL);
  assert_true(find_point(c, 1, 1, 2, 0.15, TOL) == 0);
  const double where[3][3] = {{1.5, 0.2, 0.3}, {0.9, 0, 0}, {2, 2, 0}};
  const double gaps[3] = {0.5, -0.1, sqrt(2.0)};
  const double nx[3] = {1, 1, sqrt(0.5)}, ny[3] = {0, 0, sqrt(0.5)};
  for (int i = 0; i < 3; ++i) {
    LsimPose q = pose_at(where[i][0], where[i][1], where[i][2]);
    assert_int_equal(collide(&pt, &q, &box, &o, 3, 2.0, c), 1);
    assert_true(fabs(c[0].gap - gaps[i]) <= TOL);
    assert_normal(&c[0], nx[i], ny[i], 0, TOL);
  }
  LsimPose q1 = pose_at(3, 4, 0);
  assert_int_equal(collide(&pt, &q1, &pt, &o, 3, 6.0, c), 1);
  assert_true(fabs(c[0].gap - 5.0) <= TOL);
  assert_true(find_point(c, 1, 1.5, 2, 0, TOL) == 0);
  /* Capsule-point: 0.5 beside the axis of a capsule of radius 0.2: gap 0.3. */
  LsimShape cap = shape(LSIM_SHAPE_CAPSULE, 0.2, 1, 0, 0);
  LsimPose side = pose_at(0.5, 0, 0.4);
  assert_int_equal(collide(&pt, &side, &cap, &o, 3, 1.0, c), 1);
  assert_true(fabs(c[0].gap - 0.3) <= TOL);
  assert_normal(&c[0], 1, 0, 0, TOL);
}

/* Margin filtering: a sphere 1e-9 beyond the margin gives nothing, 1e-9 inside gives its
 * point (1e-9 is far above the rounding of O(1) values, far below any geometry). */
static void test_margin_filter(void **state) {
  (void)state;
  LsimShape plane = shape(LSIM_SHAPE_PLANE, 0, 0, 0, 0);
  LsimShape ball = shape(LSIM_SHAPE_SPHERE, 0.5, 0, 0, 0);
  LsimShape box = shape(LSIM_SHAPE_BOX, 0, 0.6, 0.4, 0.25);
  LsimPose pp = pose_at(0, 0, 0);
  LsimContactPoint c[LSIM_MAX_MANIFOLD];
  const double margin = 0.01;
  LsimPose out = pose_at(0, 0, 0.5 + margin + 1e-9), in = pose_at(0, 0, 0.5 + margin - 1e-9);
  assert_int_equal(collide(&ball, &out, &plane, &pp, 3, margin, c), 0);
  assert_int_equal(collide(&ball, &in, &plane, &pp, 3, margin, c), 1);
  assert_int_equal(collide(&ball, &out, &ball, &pp, 3, 0.5 + margin, c), 1);
  /* A box whose +x corners are beyond the margin and -x corners within it. */
  const double th = 0.02, zc = 0.25 * cos(th) + 0.6 * sin(th);
  LsimPose tilt = pose_aa(0, 0, zc, 0, 1, 0, th);
  const int n = collide(&box, &tilt, &plane, &pp, 3, margin, c);
  assert_int_equal(n, 2);
  for (int i = 0; i < n; ++i) assert_true(c[i].gap <= margin);
  /* max limits the count (the deepest kept). */
  assert_int_equal(lsim_collide(&box, &tilt, &plane, &pp, 3, 1.0, c, 1), 1);
  assert_true(fabs(c[0].gap) <= TOL);
}

/* Random generator (splitmix64) for the property tests. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static double urand(void) {
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return (double)(z >> 11) / 9007199254740992.0;
}
static double urange(double lo, double hi) { return lo + (hi - lo) * urand(); }

static const LsimShapeType all_types[5] = {LSIM_SHAPE_PLANE, LSIM_SHAPE_SPHERE, LSIM_SHAPE_BOX,
                                           LSIM_SHAPE_CAPSULE, LSIM_SHAPE_POINT};

static LsimShape random_shape(LsimShapeType t) {
  return shape(t, urange(0.05, 0.6), urange(0.05, 0.8), urange(0.05, 0.8), urange(0.05, 0.8));
}

/* A random pose within a cube of half width spread; 2-D: in the plane, about z. Planes
 * sit lower with an upward-ish normal so that things rest on them. */
static LsimPose random_pose(int dim, double spread) {
  LsimPose p = {{urange(-spread, spread), urange(-spread, spread), 0}, {1, 0, 0, 0}};
  if (dim == 2) {
    lsim_quat_from_angle_z(p.q, urange(-PI, PI));
  } else {
    p.p[2] = urange(-spread, spread);
    for (int k = 0; k < 4; ++k) p.q[k] = urange(-1, 1);
    lsim_quat_normalize(p.q);
  }
  return p;
}

/* Distance from world point x to the solid of shape s (a box or a capsule) at pose p:
 * exact (clamping in the box frame, the nearest point of the capsule's segment); < 0
 * inside. */
static double solid_distance(const LsimShape *s, const LsimPose *p, int dim, const double x[3]) {
  double R[9], l[3], d[3], q[4] = {p->q[0], p->q[1], p->q[2], p->q[3]};
  lsim_quat_normalize(q);
  lsim_quat_to_mat(R, q);
  lsim_v3_sub(d, x, p->p);
  if (dim == 2) d[2] = 0.0;
  lsim_m3_apply_t(l, R, d);
  if (s->type == LSIM_SHAPE_CAPSULE) {
    const int ax = dim == 2 ? 0 : 2;
    l[ax] -= fmin(fmax(l[ax], -s->half[0]), s->half[0]);
    return lsim_v3_norm(l) - s->radius;
  }
  double out = 0.0, in = HUGE_VAL;
  for (int k = 0; k < dim; ++k) {
    const double e = fabs(l[k]) - s->half[k];
    if (e > 0.0) out += e * e;
    in = fmin(in, -e);
  }
  return out > 0.0 ? sqrt(out) : -in;
}

/* Every point of a capsule against a box or a capsule (random sizes and poses, 2-D and
 * 3-D, apart but within the margin) is a true distance of parts of the two shapes: its gap
 * is never below the shapes' distance, and the nearest point's gap is that distance. The
 * distance by brute force: 4001 samples along the capsule's segment, each point's exact
 * distance to the other solid, minus the radius; the distance is 1-Lipschitz along the
 * segment, so the samples' minimum is within half a spacing of it. */
static void test_capsule_points_valid(void **state) {
  (void)state;
  const double margin = 0.3;
  int checked = 0;
  for (int dim = 2; dim <= 3; ++dim)
    for (int trial = 0; trial < 3000; ++trial) {
      LsimShape a = random_shape(LSIM_SHAPE_CAPSULE);
      LsimShape b = random_shape(trial % 2 ? LSIM_SHAPE_BOX : LSIM_SHAPE_CAPSULE);
      LsimPose pa = random_pose(dim, 0.9), pb = random_pose(dim, 0.9);
      LsimContactPoint c[LSIM_MAX_MANIFOLD];
      const int n = collide(&a, &pa, &b, &pb, dim, margin, c);
      if (n == 0) continue;
      double R[9], q[4] = {pa.q[0], pa.q[1], pa.q[2], pa.q[3]}, u[3] = {0, 0, 0}, lu[3] = {0, 0, 0};
      lsim_quat_normalize(q);
      lsim_quat_to_mat(R, q);
      lu[dim == 2 ? 0 : 2] = 1.0;
      lsim_m3_apply(u, R, lu);
      enum { K = 4001 };
      double dist = HUGE_VAL;
      for (int i = 0; i < K; ++i) {
        double x[3];
        lsim_v3_axpy(x, pa.p, a.half[0] * (2.0 * i / (K - 1) - 1.0), u);
        if (dim == 2) x[2] = 0.0;
        dist = fmin(dist, solid_distance(&b, &pb, dim, x) - a.radius);
      }
      const double tol = a.half[0] / (K - 1) + 1e-9;
      if (!(dist > tol)) continue; /* overlapping: gaps are depths along an axis */
      double nearest = HUGE_VAL;
      for (int i = 0; i < n; ++i) {
        if (c[i].gap < dist - tol)
          fprintf(stderr, "dim %d b %d point %d gap %.12g below the distance %.12g\n", dim,
                  b.type, c[i].feature, c[i].gap, dist);
        assert_true(c[i].gap >= dist - tol);
        nearest = fmin(nearest, c[i].gap);
      }
      if (!(nearest <= dist + tol)) {
        fprintf(stderr, "dim %d b %d n %d nearest %.12g distance %.12g:", dim, b.type, n, nearest, dist);
        for (int i = 0; i < n; ++i) fprintf(stderr, " f%d %.9g", c[i].feature, c[i].gap);
        fprintf(stderr, "\n");
      }
      assert_true(nearest <= dist + tol);
      ++checked;
    }
  assert_true(checked > 500);
}

/* Swap symmetry for every pair of types in 2-D and 3-D: lsim_collide(b, a) equals
 * lsim_collide(a, b) with negated normals, bit for bit (the pair is computed in one
 * canonical order either way, so no tolerance). Every pair except plane-plane must give
 * contacts in some of the trials. */
static void test_swap_symmetry(void **state) {
  (void)state;
  for (int dim = 2; dim <= 3; ++dim) {
    for (int ta = 0; ta < 5; ++ta) {
      for (int tb = 0; tb < 5; ++tb) {
        int total = 0;
        for (int trial = 0; trial < 300; ++trial) {
          LsimShape a = random_shape(all_types[ta]), b = random_shape(all_types[tb]);
          LsimPose pa = random_pose(dim, 0.6), pb = random_pose(dim, 0.6);
          if (trial % 3 == 0) pb = pa; /* coincident poses: degenerate fallbacks */
          LsimContactPoint c[LSIM_MAX_MANIFOLD], d[LSIM_MAX_MANIFOLD];
          const int n = collide(&a, &pa, &b, &pb, dim, 0.2, c);
          const int m = collide(&b, &pb, &a, &pa, dim, 0.2, d);
          if (ta == tb && trial % 3 == 0 && a.radius == b.radius) continue;
          assert_int_equal(n, m);
          total += n;
          for (int i = 0; i < n; ++i) {
            assert_true(memcmp(c[i].point, d[i].point, sizeof c[i].point) == 0);
            assert_true(c[i].gap == d[i].gap);
            assert_int_equal(c[i].feature, d[i].feature);
            for (int k = 0; k < 3; ++k) assert_true(c[i].normal[k] == -d[i].normal[k]);
          }
        }
        if (ta == 0 && tb == 0) assert_int_equal(total, 0);
        else assert_true(total > 0);
      }
    }
  }
}

/* AABB analytic values: ground plane (z <= 0) has hi[2] = margin, everything else
 * unbounded; a tilted plane is unbounded; a sphere is center +- (r + margin); a box
 * yawed by 0.3 has x half extent 0.6 cos + 0.4 sin; a capsule along x reaches
 * half + r; 2-D boxes have z range 0. */
static void test_aabb_values(void **state) {
  (void)state;
  double lo[3], hi[3];
  const double m = 0.01;
  LsimShape plane = shape(LSIM_SHAPE_PLANE, 0, 0, 0, 0);
  LsimPose o = pose_at(0, 0, 0);
  lsim_shape_aabb(&plane, &o, 3, m, lo, hi);
  assert_true(hi[2] == m && lo[2] == -HUGE_VAL && lo[0] == -HUGE_VAL && hi[0] == HUGE_VAL);
  assert_true(lo[1] == -HUGE_VAL && hi[1] == HUGE_VAL);
  LsimPose flip = pose_aa(0, 0, 2, 1, 0, 0, PI); /* normal -z: solid above z = 2 */
  lsim_shape_aabb(&plane, &flip, 3, m, lo, hi);
  assert_true(fabs(lo[2] - (2 - m)) <= TOL && hi[2] == HUGE_VAL);
  LsimPose tilted = pose_aa(0, 0, 0, 1, 0, 0, 0.3);
  lsim_shape_aabb(&plane, &tilted, 3, m, lo, hi);
  for (int k = 0; k < 3; ++k) assert_true(lo[k] == -HUGE_VAL && hi[k] == HUGE_VAL);
  lsim_shape_aabb(&plane, &o, 2, m, lo, hi); /* 2-D ground line y <= 0 */
  assert_true(hi[1] == m && lo[1] == -HUGE_VAL && lo[2] == 0.0 && hi[2] == 0.0);
  LsimShape ball = shape(LSIM_SHAPE_SPHERE, 0.5, 0, 0, 0);
  LsimPose p = pose_at(1, 2, 3);
  lsim_shape_aabb(&ball, &p, 3, m, lo, hi);
  assert_true(fabs(lo[0] - 0.49) <= TOL && fabs(hi[2] - 3.51) <= TOL);
  LsimShape box = shape(LSIM_SHAPE_BOX, 0, 0.6, 0.4, 0.25);
  LsimPose yaw = pose_aa(1, 2, 3, 0, 0, 1, 0.3);
  lsim_shape_aabb(&box, &yaw, 3, 0.0, lo, hi);
  assert_true(fabs(hi[0] - (1 + 0.6 * cos(0.3) + 0.4 * sin(0.3))) <= TOL);
  assert_true(fabs(hi[1] - (2 + 0.6 * sin(0.3) + 0.4 * cos(0.3))) <= TOL);
  assert_true(fabs(hi[2] - 3.25) <= TOL);
  lsim_shape_aabb(&box, &yaw, 2, 0.0, lo, hi);
  assert_true(lo[2] == 0.0 && hi[2] == 0.0);
  LsimShape cap = shape(LSIM_SHAPE_CAPSULE, 0.2, 0.7, 0, 0);
  LsimPose along_x = pose_aa(0, 0, 0, 0, 1, 0, PI / 2);
  lsim_shape_aabb(&cap, &along_x, 3, 0.0, lo, hi);
  assert_true(fabs(hi[0] - 0.9) <= TOL && fabs(hi[1] - 0.2) <= TOL && fabs(hi[2] - 0.2) <= TOL);
}

/* World pose: a shape at (1, 0, 0) rotated 90 degrees about z on a body at (0, 0, 1)
 * rotated 90 degrees about z: world position (0, 1, 1), rotation 180 degrees about z. */
static void test_world_pose(void **state) {
  (void)state;
  LsimShape s = lsim_default_shape();
  s.pos[0] = 1;
  lsim_quat_from_angle_z(s.rot, PI / 2);
  LsimPose body = pose_aa(0, 0, 1, 0, 0, 1, PI / 2);
  LsimPose w = lsim_shape_world_pose(&s, &body);
  assert_true(fabs(w.p[0]) <= TOL && fabs(w.p[1] - 1) <= TOL && fabs(w.p[2] - 1) <= TOL);
  assert_true(fabs(w.q[0]) <= TOL && fabs(fabs(w.q[3]) - 1) <= TOL);
}

/* Every contact point lies within both shapes' AABBs grown by the margin, for random
 * poses of every pair whose points all have gap >= -margin (a point is midway between the
 * surfaces, so within |gap| / 2 of each; deeper overlaps can put it outside the smaller
 * shape's box, e.g. a sphere sunk far below a plane). The slack 1e-9 covers rounding. */
static void test_aabb_contains_points(void **state) {
  (void)state;
  const double margin = 0.1;
  int checked = 0;
  for (int dim = 2; dim <= 3; ++dim) {
    for (int trial = 0; trial < 20000; ++trial) {
      LsimShape a = random_shape(all_types[trial % 5]);
      LsimShape b = random_shape(all_types[(trial / 5) % 5]);
      LsimPose pa = random_pose(dim, 0.8), pb = random_pose(dim, 0.8);
      LsimContactPoint c[LSIM_MAX_MANIFOLD];
      const int n = collide(&a, &pa, &b, &pb, dim, margin, c);
      int shallow = 1;
      for (int i = 0; i < n; ++i) shallow &= c[i].gap >= -margin;
      if (!shallow) continue;
      double la[3], ha[3], lb[3], hb[3];
      lsim_shape_aabb(&a, &pa, dim, margin, la, ha);
      lsim_shape_aabb(&b, &pb, dim, margin, lb, hb);
      for (int i = 0; i < n; ++i) {
        for (int k = 0; k < 3; ++k) {
          const double x = c[i].point[k];
          if (!(x >= la[k] - 1e-9 && x <= ha[k] + 1e-9 && x >= lb[k] - 1e-9 && x <= hb[k] + 1e-9))
            fprintf(stderr, "dim %d types %d %d axis %d point %g a [%g %g] b [%g %g] gap %g\n",
                    dim, a.type, b.type, k, x, la[k], ha[k], lb[k], hb[k], c[i].gap);
          assert_true(c[i].point[k] >= la[k] - 1e-9 && c[i].point[k] <= ha[k] + 1e-9);
          assert_true(c[i].point[k] >= lb[k] - 1e-9 && c[i].point[k] <= hb[k] + 1e-9);
        }
        ++checked;
      }
    }
  }
  assert_true(checked > 1000);
}

/* Signed distance from x to shape s at pose p by brute force: the nearest of a grid of
 * surface samples (boxes, spacing 2 h / G per face, error at most one spacing), of dense
 * samples along a capsule's axis (error <= spacing), or exact for planes and spheres. *tol
 * gets the error bound. */
enum { G = 48 };
static double brute_distance(const LsimShape *s, const LsimPose *p, int dim, const double x[3],
                             double *tol) {
  double R[9], l[3], d[3], q[4] = {p->q[0], p->q[1], p->q[2], p->q[3]};
  lsim_quat_to_mat(R, q);
  lsim_v3_sub(d, x, p->p);
  lsim_m3_apply_t(l, R, d);
  *tol = 1e-12;
  switch (s->type) {
    case LSIM_SHAPE_PLANE: return dim == 2 ? l[1] : l[2];
    case LSIM_SHAPE_SPHERE: return lsim_v3_norm(d) - s->radius;
    case LSIM_SHAPE_POINT: return lsim_v3_norm(d);
    case LSIM_SHAPE_CAPSULE: {
      const int ax = dim == 2 ? 0 : 2;
      double best = HUGE_VAL;
      for (int i = 0; i <= 4 * G; ++i) {
        double e[3] = {l[0], l[1], l[2]};
        e[ax] -= s->half[0] * (2.0 * i / (4 * G) - 1.0);
        best = fmin(best, lsim_v3_norm(e));
      }
      *tol = 2.0 * s->half[0] / (4 * G) + 1e-12;
      return best - s->radius;
    }
    case LSIM_SHAPE_BOX: {
      const double h[3] = {s->half[0], s->half[1], dim == 2 ? 0.0 : s->half[2]};
      if (dim == 2) l[2] = 0.0;
      double best = HUGE_VAL, spacing = 0.0;
      int inside = 1;
      for (int k = 0; k < dim; ++k) inside &= fabs(l[k]) <= h[k];
      for (int k = 0; k < dim; ++k) {
        const int a1 = (k + 1) % dim, a2 = (k + 2) % dim;
        spacing = fmax(spacing, 2.0 * fmax(h[a1], h[a2]) / G);
        for (int sgn = -1; sgn <= 1; sgn += 2)
          for (int i = 0; i <= G; ++i)
            for (int j = 0; j <= (dim == 3 ? G : 0); ++j) {
              double y[3] = {0, 0, 0};
              y[k] = sgn * h[k];
              y[a1] = h[a1] * (2.0 * i / G - 1.0);
              if (dim == 3) y[a2] = h[a2] * (2.0 * j / G - 1.0);
              best = fmin(best, sqrt(lsim_v3_dist2(y, l)));
            }
      }
      *tol = spacing + 1e-12;
      return inside ? -best : best;
    }
    default: return HUGE_VAL;
  }
}

/* Random fuzz over every pair in 2-D and 3-D: no NaN, unit normals (|n| - 1 within 1e-12,
 * a few roundings), gaps within the margin, at most LSIM_MAX_MANIFOLD points, features in
 * range; sphere/point pairs: the gap agrees with the brute-force signed distance of the
 * center minus the radius (to the sampling bound), and no point means that distance is
 * beyond the margin. Poses include coincident and near-coincident ones. */
static void test_fuzz(void **state) {
  (void)state;
  const double margin = 0.05;
  int compared = 0;
  for (int dim = 2; dim <= 3; ++dim) {
    for (int trial = 0; trial < 6000; ++trial) {
      LsimShape a = random_shape(all_types[trial % 5]);
      LsimShape b = random_shape(all_types[(trial / 5) % 5]);
      LsimPose pa = random_pose(dim, 0.7), pb = random_pose(dim, 0.7);
      if (trial % 11 == 0) pb = pa;
      if (trial % 13 == 0) pb.p[0] = pa.p[0] + 1e-13, pb.p[1] = pa.p[1], pb.p[2] = pa.p[2];
      LsimContactPoint c[LSIM_MAX_MANIFOLD];
      const int n = collide(&a, &pa, &b, &pb, dim, margin, c);
      assert_true(n >= 0 && n <= LSIM_MAX_MANIFOLD);
      for (int i = 0; i < n; ++i) {
        for (int k = 0; k < 3; ++k)
          assert_true(isfinite(c[i].point[k]) && isfinite(c[i].normal[k]));
        assert_true(isfinite(c[i].gap) && c[i].gap <= margin);
        assert_true(fabs(lsim_v3_norm(c[i].normal) - 1.0) <= 1e-12);
        assert_true(c[i].feature >= 0 && c[i].feature <= 65535);
        if (dim == 2) assert_true(c[i].normal[2] == 0.0 && c[i].point[2] == 0.0);
      }
      /* Sphere/point against anything: compare with brute force. */
      const int round_b = b.type == LSIM_SHAPE_SPHERE || b.type == LSIM_SHAPE_POINT;
      if (!round_b) continue;
      double x[3] = {pb.p[0], pb.p[1], dim == 2 ? 0.0 : pb.p[2]}, tol;
      const double rb = b.type == LSIM_SHAPE_SPHERE ? b.radius : 0.0;
      LsimPose pa2 = pa;
      if (dim == 2) pa2.p[2] = 0.0;
      const double dist = brute_distance(&a, &pa2, dim, x, &tol) - rb;
      if (n == 0) {
        assert_true(dist > margin - tol);
      } else {
        assert_int_equal(n, 1);
        if (fabs(c[0].gap - dist) > tol)
          fprintf(stderr, "dim %d types %d %d gap %.15g brute %.15g tol %g\n", dim, a.type,
                  b.type, c[0].gap, dist, tol);
        assert_true(fabs(c[0].gap - dist) <= tol);
        ++compared;
      }
    }
  }
  assert_true(compared > 500);
}

/* Feature ids of a resting manifold do not change under a small perturbation (a box on a
 * box and a box on the ground, jittered by 1e-6 in position and 1e-5 rad). */
static void test_feature_stability(void **state) {
  (void)state;
  LsimShape big = shape(LSIM_SHAPE_BOX, 0, 2, 1.5, 0.5);
  LsimShape small = shape(LSIM_SHAPE_BOX, 0, 0.5, 0.3, 0.2);
  LsimShape plane = shape(LSIM_SHAPE_PLANE, 0, 0, 0, 0);
  LsimPose pbig = pose_at(0, 0, 0), pg = pose_at(0, 0, 0.4995);
  LsimContactPoint c0[LSIM_MAX_MANIFOLD], c[LSIM_MAX_MANIFOLD];
  LsimPose base = pose_aa(0.2, -0.1, 0.6995, 0, 0, 1, 0.4);
  const int n0 = collide(&small, &base, &big, &pbig, 3, 0.01, c0);
  assert_int_equal(n0, 4);
  for (int trial = 0; trial < 200; ++trial) {
    LsimPose p = pose_aa(0.2 + urange(-1e-6, 1e-6), -0.1 + urange(-1e-6, 1e-6),
                         0.6995 + urange(-1e-6, 1e-6), urange(-1e-5, 1e-5),
                         urange(-1e-5, 1e-5), 1, 0.4 + urange(-1e-5, 1e-5));
    assert_int_equal(collide(&small, &p, &big, &pbig, 3, 0.01, c), 4);
    for (int i = 0; i < 4; ++i) assert_int_equal(c[i].feature, c0[i].feature);
    assert_int_equal(collide(&small, &p, &plane, &pg, 3, 0.01, c), 4);
    for (int i = 0; i < 4; ++i) assert_int_equal(c[i].feature, 4 + i);
  }
}

/* Two cubes of one size (half width 0.1), the upper one shifted by (0.02, -0.01), sunk by
 * 1e-5 and tilted by theta about a horizontal axis: the overlap rectangle's 4 corners
 * are the points. Tilted one way the lower box's face is the reference (normal exactly
 * +z), the other way the upper box's (normal its tilted axis): separations that tie to
 * h * theta, as two resting boxes of a tower trade them from step to step. The ids name
 * the same corners either way (before: 1857, 1860, 1871, 1895 for one role, 4499, 4501,
 * 4510, 4526 for the other, and the warm start lost all four points at every change). */
static void test_feature_role_independent(void **state) {
  (void)state;
  LsimShape cube = shape(LSIM_SHAPE_BOX, 0, 0.1, 0.1, 0.1);
  LsimPose lo = pose_at(0, 0, 0);
  LsimContactPoint c0[LSIM_MAX_MANIFOLD], c[LSIM_MAX_MANIFOLD];
  /* The lower box's role: theta = 0. */
  LsimPose hi0 = pose_at(0.02, -0.01, 0.19999);
  assert_int_equal(collide(&cube, &hi0, &cube, &lo, 3, 0.01, c0), 4);
  int roles[2] = {0, 0};
  for (int t = -4; t <= 4; ++t) {
    const double theta = 5e-4 * t;
    LsimPose hi = pose_aa(0.02, -0.01, 0.19999, cos(0.3), sin(0.3), 0, theta);
    const int n = collide(&cube, &hi, &cube, &lo, 3, 0.01, c);
    assert_int_equal(n, 4);
    /* Which face is the reference: the lower box's normal is exactly +z. */
    roles[c[0].normal[0] != 0.0 || c[0].normal[1] != 0.0] = 1;
    for (int i = 0; i < 4; ++i) {
      /* The same corner (x, y within the tilt's shift, h theta = 2e-4 m at most) has
         the same id. */
      int k = -1;
      for (int j = 0; j < 4; ++j)
        if (fabs(c[i].point[0] - c0[j].point[0]) <= 1e-3 && fabs(c[i].point[1] - c0[j].point[1]) <= 1e-3)
          k = j;
      assert_true(k >= 0);
      assert_int_equal(c[i].feature, c0[k].feature);
    }
  }
  assert_true(roles[0] && roles[1]); /* both reference faces were taken */
}

/* Near-parallel faces: a box tilted by 1e-3 rad about a random horizontal axis and yawed,
 * its lowest corner 5e-4 above a larger box: a face manifold of exactly 4 points at the
 * bottom corners (x, y to 1e-12), normal +z (the
 * lower box's face is the reference), each gap the corner's height above the face
 * (rounding of O(1) values: 1e-12). On a box of the same footprint, aligned, the corners
 * overhang by ~1e-4 and are clipped: still 4 points, normal +z, gaps between the lowest
 * and the highest corner's. 2-D: a rectangle tilted by 1e-3 on a rectangle gives
 * 2 points with the corners' heights. */
static void test_near_parallel_faces(void **state) {
  (void)state;
  LsimShape big = shape(LSIM_SHAPE_BOX, 0, 2, 1.5, 0.5);
  LsimShape small = shape(LSIM_SHAPE_BOX, 0, 0.5, 0.3, 0.2);
  LsimShape same = shape(LSIM_SHAPE_BOX, 0, 0.5, 0.3, 0.5);
  LsimPose o = pose_at(0, 0, 0);
  LsimContactPoint c[LSIM_MAX_MANIFOLD];
  for (int trial = 0; trial < 200; ++trial) {
    const int flush = trial % 2; /* same footprint, aligned: corners overhang by ~1e-4 */
    const LsimShape *lower = flush ? &same : &big;
    const double phi = urange(-PI, PI), yaw = flush ? 0.0 : urange(-PI, PI);
    double q1[4], q2[4], w[3] = {cos(phi), sin(phi), 0}, z[3] = {0, 0, 1};
    lsim_quat_from_rotvec(q1, w, 1e-3);
    lsim_quat_from_rotvec(q2, z, yaw);
    const double off = flush ? 0.0 : 0.05;
    LsimPose p = {{urange(-off, off), urange(-off, off), 0}, {1, 0, 0, 0}};
    lsim_quat_mul(p.q, q1, q2);
    /* Corners relative to the center; lift so the lowest is 5e-4 above z = 0.5. */
    double corner[4][3], zmin = HUGE_VAL, zmax = -HUGE_VAL;
    for (int i = 0; i < 4; ++i) {
      const double l[3] = {(i & 1) ? -0.5 : 0.5, (i & 2) ? -0.3 : 0.3, -0.2};
      lsim_quat_rotate(corner[i], p.q, l);
      zmin = fmin(zmin, corner[i][2]), zmax = fmax(zmax, corner[i][2]);
    }
    p.p[2] = 0.5 + 5e-4 - zmin;
    const int n = collide(&small, &p, lower, &o, 3, 0.01, c);
    assert_int_equal(n, 4);
    if (flush) {
      /* Clipped at the overhang: gaps between the lowest and highest corner's. */
      for (int i = 0; i < 4; ++i) {
        assert_true(c[i].gap >= 5e-4 - TOL && c[i].gap <= 5e-4 + zmax - zmin + TOL);
        assert_normal(&c[i], 0, 0, 1, TOL);
      }
      continue;
    }
    for (int i = 0; i < 4; ++i) {
      const double x = p.p[0] + corner[i][0], y = p.p[1] + corner[i][1];
      const double g = p.p[2] + corner[i][2] - 0.5;
      const int k = find_point(c, n, x, y, 0.5 + 0.5 * g, TOL);
      assert_true(k >= 0);
      assert_true(fabs(c[k].gap - g) <= TOL);
      assert_normal(&c[k], 0, 0, 1, TOL);
    }
  }
  /* 2-D. */
  LsimShape r1 = shape(LSIM_SHAPE_BOX, 0, 2, 0.5, 0), r2 = shape(LSIM_SHAPE_BOX, 0, 0.5, 0.25, 0);
  const double th = 1e-3;
  LsimPose p2 = pose_aa(0.1, 0.5 + 0.25 * cos(th) + 0.5 * sin(th) + 5e-4, 0, 0, 0, 1, th);
  assert_int_equal(collide(&r2, &p2, &r1, &o, 2, 0.01, c), 2);
  for (int i = 0; i < 2; ++i) {
    const double sx = c[i].point[0] > 0.1 ? 0.5 : -0.5;
    const double g = p2.p[1] + sx * sin(th) - 0.25 * cos(th) - 0.5;
    assert_true(fabs(c[i].gap - g) <= TOL);
    assert_normal(&c[i], 0, 1, 0, TOL);
  }
}

/* Twice the area of the convex hull of 4 points in the xy-plane (test helper): the largest
 * of the three quadrilaterals' and four triangles' shoelace areas. */
static double hull4_xy(const LsimContactPoint *c) {
  static const int ord[3][4] = {{0, 1, 2, 3}, {0, 1, 3, 2}, {0, 2, 1, 3}};
  double best = 0.0;
  for (int o = 0; o < 3; ++o) {
    double s = 0.0;
    for (int i = 0; i < 4; ++i) {
      const double *a = c[ord[o][i]].point, *b = c[ord[o][(i + 1) % 4]].point;
      s += a[0] * b[1] - a[1] * b[0];
    }
    best = fmax(best, fabs(s));
  }
  for (int skip = 0; skip < 4; ++skip) {
    const double *v[3];
    for (int i = 0, k = 0; i < 4; ++i)
      if (i != skip) v[k++] = c[i].point;
    best = fmax(best, fabs((v[1][0] - v[0][0]) * (v[2][1] - v[0][1]) -
                           (v[1][1] - v[0][1]) * (v[2][0] - v[0][0])));
  }
  return best;
}

/* Twice the area of the intersection of two rectangles in the xy-plane (test helper, an
 * independent computation: the first rectangle's corners clipped by the second's four
 * half-planes, then the shoelace formula). Rectangle k: center c[k], half extents (hx,
 * hy), yaw[k]. */
static double overlap_xy(const double c[2][2], const double yaw[2], double hx, double hy) {
  double poly[16][2], next[16][2];
  int n = 4;
  for (int i = 0; i < 4; ++i) {
    const double sx = (i == 0 || i == 3) ? hx : -hx, sy = i < 2 ? hy : -hy;
    poly[i][0] = c[0][0] + cos(yaw[0]) * sx - sin(yaw[0]) * sy;
    poly[i][1] = c[0][1] + sin(yaw[0]) * sx + cos(yaw[0]) * sy;
  }
  for (int p = 0; p < 4; ++p) {
    /* Half-plane: u . (x - c1) <= h along the second rectangle's axes. */
    const double ang = yaw[1] + (p / 2) * PI / 2, sgn = (p % 2) ? -1.0 : 1.0;
    const double u[2] = {sgn * cos(ang), sgn * sin(ang)}, h = (p / 2) ? hy : hx;
    int k = 0;
    for (int i = 0; i < n; ++i) {
      const double *P = poly[i], *Q = poly[(i + 1) % n];
      const double dp = u[0] * (P[0] - c[1][0]) + u[1] * (P[1] - c[1][1]) - h;
      const double dq = u[0] * (Q[0] - c[1][0]) + u[1] * (Q[1] - c[1][1]) - h;
      if (dp <= 0.0) next[k][0] = P[0], next[k][1] = P[1], ++k;
      if ((dp < 0.0) != (dq < 0.0) && dp != 0.0 && dq != 0.0) {
        const double t = dp / (dp - dq);
        next[k][0] = P[0] + t * (Q[0] - P[0]), next[k][1] = P[1] + t * (Q[1] - P[1]), ++k;
      }
    }
    n = k;
    memcpy(poly, next, sizeof poly);
  }
  double s = 0.0;
  for (int i = 0; i < n; ++i)
    s += poly[i][0] * poly[(i + 1) % n][1] - poly[i][1] * poly[(i + 1) % n][0];
  return fabs(s);
}

/* The 4 points kept of a clipped face cover its support polygon. Two boxes of the same
 * footprint (half extents 1 x 0.5, as a domino lying on another), the upper one yawed by
 * up to 0.02 rad, shifted by up to 0.02 and tilted by 1e-4 rad about +x or -x, lowest
 * corner 1e-5 inside: one long edge is lowest, so which point of the clipped polygon (5 to
 * 8 vertices, near the 4 corners of a rectangle) is deepest is decided by 1e-6 m along it,
 * often a clip point in mid-edge. The 4 kept points' hull must cover at least 98 % of the
 * overlap's area: the points dropped sit in the corners' slivers (yaw and shift move a
 * corner by at most 0.04 against an overlap of about 1.9 x 0.9; the worst of the 300
 * trials keeps 98.8 %). The rule that forced the deepest point in kept as little as 75 %
 * here: a mid-edge clip point in place of a corner, as between two dominoes, where the
 * corner then sank 1e-4 m in a step and was pushed out, gaining energy. Every kept point
 * lies inside both rectangles in xy to 1e-4: the upper box's side planes are tilted by
 * 1e-4 rad, which moves them by 5e-5 at its face, 0.5 below its center. */
static void test_reduce_keeps_support(void **state) {
  (void)state;
  LsimShape b = shape(LSIM_SHAPE_BOX, 0, 1, 0.5, 0.5);
  LsimPose lo = pose_at(0, 0, 0);
  LsimContactPoint c[LSIM_MAX_MANIFOLD];
  double worst = 1.0;
  for (int trial = 0; trial < 300; ++trial) {
    const double yaw = urange(-0.02, 0.02), phi = (trial % 2) ? PI : 0.0;
    const double cx = urange(-0.02, 0.02), cy = urange(-0.02, 0.02);
    double q1[4], q2[4], w[3] = {cos(phi), sin(phi), 0}, z[3] = {0, 0, 1};
    lsim_quat_from_rotvec(q1, w, 1e-4);
    lsim_quat_from_rotvec(q2, z, yaw);
    LsimPose hi = {{cx, cy, 0}, {1, 0, 0, 0}};
    lsim_quat_mul(hi.q, q1, q2);
    double zmin = HUGE_VAL;
    for (int i = 0; i < 4; ++i) {
      const double l[3] = {(i & 1) ? -1 : 1, (i & 2) ? -0.5 : 0.5, -0.5}, *qq = hi.q;
      double x[3];
      lsim_quat_rotate(x, qq, l);
      zmin = fmin(zmin, x[2]);
    }
    hi.p[2] = 0.5 - 1e-5 - zmin;
    const int n = collide(&b, &hi, &b, &lo, 3, 0.01, c);
    assert_int_equal(n, 4);
    const double ctr[2][2] = {{cx, cy}, {0, 0}}, yaws[2] = {yaw, 0};
    const double ratio = hull4_xy(c) / overlap_xy(ctr, yaws, 1, 0.5);
    worst = fmin(worst, ratio);
    assert_true(ratio >= 0.98);
    for (int i = 0; i < 4; ++i) {
      const double *x = c[i].point;
      assert_true(fabs(x[0]) <= 1 + 1e-4 && fabs(x[1]) <= 0.5 + 1e-4);
      const double dx = x[0] - cx, dy = x[1] - cy;
      assert_true(fabs(cos(yaw) * dx + sin(yaw) * dy) <= 1 + 1e-4);
      assert_true(fabs(-sin(yaw) * dx + cos(yaw) * dy) <= 0.5 + 1e-4);
    }
  }
  print_message("reduce4: worst kept share of the overlap %.4f\n", worst);
}

/* A face clipped away: a cube of half side 0.1, 0.01 above a box's top face (half extents
 * 1, 1, 0.5) and 1e-3 beyond its +x side, so that clipping its bottom face against the
 * side planes leaves nothing. The face axis z separates best (0.01, against 1e-3 along x),
 * and the pair within the margin (0.05) must still give one point: a corner at x = 1.001,
 * gap 0.01 (the face separation, a lower bound of the true distance 0.01005), normal +z
 * (values from a few roundings of O(1) numbers: 1e-12). Before, no point: a box falling
 * past a corner was found 2 cm deep a step later. */
static void test_face_clipped_away(void **state) {
  (void)state;
  LsimShape big = shape(LSIM_SHAPE_BOX, 0, 1, 1, 0.5), cube = shape(LSIM_SHAPE_BOX, 0, 0.1, 0.1, 0.1);
  LsimPose o = pose_at(0, 0, 0), p = pose_at(1.101, 0.3, 0.61);
  LsimContactPoint c[LSIM_MAX_MANIFOLD];
  assert_int_equal(collide(&cube, &p, &big, &o, 3, 0.05, c), 1);
  assert_true(fabs(c[0].gap - 0.01) <= TOL);
  assert_normal(&c[0], 0, 0, 1, TOL);
  assert_true(fabs(c[0].point[0] - 1.001) <= TOL && fabs(c[0].point[2] - 0.505) <= TOL);
  assert_true(fabs(fabs(c[0].point[1] - 0.3) - 0.1) <= TOL);
  /* The other order: the same point, the normal flipped. */
  assert_int_equal(collide(&big, &o, &cube, &p, 3, 0.05, c), 1);
  assert_true(fabs(c[0].gap - 0.01) <= TOL);
  assert_normal(&c[0], 0, 0, -1, TOL);
  /* Beyond the margin: nothing. */
  assert_int_equal(collide(&cube, &p, &big, &o, 3, 0.005, c), 0);
}

/* Two unit cubes (half side 0.5), the upper one yawed 45 degrees and 1e-3 above: the
 * overlap is a regular octagon (circumradius R = 0.5 / cos 22.5 deg = 0.541); the largest
 * 4-point hull, every other corner, leaves the other 4 outside it by R (1 - cos 45 deg) =
 * 0.16 (against 2 % of the diameter 1.08), so all 8 are kept, each at gap 1e-3 (1e-12:
 * roundings of O(1) values), with distinct features, on the lower box's top face. */
static void test_octagon_kept(void **state) {
  (void)state;
  LsimShape cube = shape(LSIM_SHAPE_BOX, 0, 0.5, 0.5, 0.5);
  LsimPose lo = pose_at(0, 0, 0), hi = pose_aa(0, 0, 1.001, 0, 0, 1, 0.25 * PI);
  LsimContactPoint c[LSIM_MAX_MANIFOLD];
  const int n = collide(&cube, &hi, &cube, &lo, 3, 0.01, c);
  assert_int_equal(n, 8);
  for (int i = 0; i < n; ++i) {
    assert_true(fabs(c[i].gap - 1e-3) <= TOL);
    assert_normal(&c[i], 0, 0, 1, TOL);
    /* On the octagon: inside the square |x|, |y| <= 0.5 and the yawed one |x| + |y| <=
       0.5 sqrt 2, on the boundary of one of them. */
    const double x = c[i].point[0], y = c[i].point[1];
    assert_true(fabs(x) <= 0.5 + TOL && fabs(y) <= 0.5 + TOL);
    assert_true(fabs(x) + fabs(y) <= 0.5 * sqrt(2.0) + TOL);
    assert_true(fabs(fmax(fabs(x), fabs(y)) - 0.5) <= TOL ||
                fabs(fabs(x) + fabs(y) - 0.5 * sqrt(2.0)) <= TOL);
  }
  assert_features_distinct(c, n);
}

/* Deep penetrations give sensible normals: a sphere center just inside a box's +x face
 * leaves through +x; a box sunk half into another still gets +z and 4 points; a capsule
 * whose axis crosses another's (segments intersecting) gets a unit normal. */
static void test_deep_penetration(void **state) {
  (void)state;
  LsimShape box = shape(LSIM_SHAPE_BOX, 0, 1, 1, 1), ball = shape(LSIM_SHAPE_SPHERE, 0.3, 0, 0, 0);
  LsimPose o = pose_at(0, 0, 0), in = pose_at(0.8, 0.1, -0.05);
  LsimContactPoint c[LSIM_MAX_MANIFOLD];
  assert_int_equal(collide(&ball, &in, &box, &o, 3, 0.0, c), 1);
  assert_true(fabs(c[0].gap + 0.5) <= TOL);
  assert_normal(&c[0], 1, 0, 0, TOL);
  LsimShape top = shape(LSIM_SHAPE_BOX, 0, 0.5, 0.5, 0.5);
  LsimPose half = pose_aa(0.1, 0.2, 1.0, 0, 0, 1, 0.3);
  const int n = collide(&top, &half, &box, &o, 3, 0.0, c);
  assert_int_equal(n, 4);
  for (int i = 0; i < n; ++i) {
    assert_true(fabs(c[i].gap + 0.5) <= TOL);
    assert_normal(&c[i], 0, 0, 1, TOL);
  }
  LsimShape cap = shape(LSIM_SHAPE_CAPSULE, 0.1, 1, 0, 0);
  LsimPose xa = pose_aa(0, 0, 0, 0, 1, 0, PI / 2), ya = pose_aa(0, 0, 0, 1, 0, 0, PI / 2);
  assert_int_equal(collide(&cap, &xa, &cap, &ya, 3, 0.0, c), 1);
  assert_true(fabs(c[0].gap + 0.2) <= TOL);
  assert_true(fabs(fabs(c[0].normal[2]) - 1.0) <= TOL);
}

/* A heap for detection: a static floor (plane) and a static wall box, and n dynamic bodies
 * of one shape each (spheres, boxes, capsules, points in turn) at random poses over a
 * square of half width 3 and up to 2.4 above the floor, with random velocities (the speed
 * bounds grow the boxes). */
static void heap_model(LsimModel *m, LsimState *st, int dim, int n) {
  *m = lsim_default_model();
  m->dimension = dim;
  m->friction_directions = dim == 3 ? 4 : 2;
  m->contact_margin = 0.01;
  LsimBody ground = lsim_default_body();
  ground.type = LSIM_BODY_STATIC;
  const int g = lsim_model_add_body(m, &ground);
  LsimShape floor = shape(LSIM_SHAPE_PLANE, 0, 0, 0, 0);
  floor.body = g;
  lsim_model_add_shape(m, &floor);
  LsimShape wall = shape(LSIM_SHAPE_BOX, 0, 0.1, 0.1, 0.1);
  wall.half[1] = wall.half[2] = 3.5; /* a slab x in [2.9, 3.1] */
  wall.pos[0] = 3.0;
  wall.body = g;
  lsim_model_add_shape(m, &wall);
  static const LsimShapeType kinds[4] = {LSIM_SHAPE_SPHERE, LSIM_SHAPE_BOX, LSIM_SHAPE_CAPSULE,
                                         LSIM_SHAPE_POINT};
  for (int i = 0; i < n; ++i) {
    LsimBody b = lsim_default_body();
    b.mass = 1.0;
    for (int k = 0; k < 9; k += 4) b.inertia[k] = 0.1;
    const int bi = lsim_model_add_body(m, &b);
    LsimShape s = shape(kinds[i % 4], urange(0.1, 0.3), urange(0.1, 0.3), urange(0.1, 0.3),
                        urange(0.1, 0.3));
    s.body = bi;
    s.mu = i % 7 == 0 ? 0.0 : 0.5; /* some frictionless pairs: contacts without cone rows */
    lsim_model_add_shape(m, &s);
  }
  assert_int_equal(lsim_model_finalize(m), 0);
  assert_int_equal(lsim_state_init(st, m), 0);
  for (int i = 0; i < m->nbodies; ++i) {
    const LsimBody *b = &m->bodies[i];
    if (b->nq == 0) continue;
    double *q = st->q + b->q_offset, *v = st->v + b->v_offset;
    LsimPose p = random_pose(dim, 3.0);
    p.p[dim - 1] = urange(0.0, 2.4); /* above the floor, some touching it */
    for (int k = 0; k < dim; ++k) q[k] = p.p[k];
    if (dim == 3) memcpy(q + 3, p.q, sizeof p.q);
    else q[2] = 2.0 * atan2(p.q[3], p.q[0]);
    for (int k = 0; k < b->nv; ++k) v[k] = urange(-1.0, 1.0);
  }
}

/* The contacts of a and b are the same, in the same order: every field detection writes
 * and every Jacobian row, bit for bit. */
static void assert_same_contacts(const LsimContactSet *a, const LsimContactSet *b) {
  assert_int_equal(a->count, b->count);
  assert_int_equal(a->nrows, b->nrows);
  for (int c = 0; c < a->count; ++c) {
    const LsimContact *x = &a->contacts[c], *y = &b->contacts[c];
    assert_true(x->id == y->id);
    assert_int_equal(x->kind, y->kind);
    assert_memory_equal(x->body, y->body, sizeof x->body);
    assert_memory_equal(&x->gap, &y->gap, sizeof x->gap);
    assert_memory_equal(x->point, y->point, sizeof x->point);
    assert_memory_equal(x->normal, y->normal, sizeof x->normal);
    assert_memory_equal(&x->mu, &y->mu, sizeof x->mu);
    assert_int_equal(x->ndir, y->ndir);
    if (x->ndir > 0) assert_memory_equal(x->tangent, y->tangent, sizeof x->tangent);
    assert_int_equal(x->first_row, y->first_row);
    assert_int_equal(x->source, y->source);
  }
  assert_memory_equal(a->rows, b->rows, (size_t)a->nrows * sizeof(LsimJacRow));
}

/* Detection's 3-D rows (the direction rows four at a time in AVX lanes where the CPU has
 * AVX) equal those of the scalar formula, bit for bit: for each contact of a heap of 400
 * bodies of every kind (a static floor and wall: blocks of zeros and body -1), with 3, 4,
 * 5 and 8 cone directions (none, one and two groups of four, and one left over), row 0
 * the normal and row 1 + k the direction cs_k t1 + sn_k t2 of the contact's tangents, body
 * k's block sign_k [u, r_k x u] with r_k = point - body k's origin (jac_block's products
 * and differences, in its order; sign -1 a negation). */
static void test_rows_formula(void **state) {
  (void)state;
  static const int dirs[4] = {3, 4, 5, 8};
  for (int v = 0; v < 4; ++v) {
    LsimModel m;
    LsimState st;
    heap_model(&m, &st, 3, 400);
    m.friction_directions = dirs[v];
    LsimContactSet set;
    memset(&set, 0, sizeof set);
    assert_int_equal(lsim_detect_contacts(&m, &st, st.v, &set), 0);
    assert_true(set.count > 400);
    double cs[LSIM_MAX_DIRECTIONS], sn[LSIM_MAX_DIRECTIONS];
    lsim_cone_weights(dirs[v], cs, sn);
    int checked = 0, still = 0;
    for (int c = 0; c < set.count; ++c) {
      const LsimContact *ct = &set.contacts[c];
      double r[2][3];
      int has[2];
      for (int k = 0; k < 2; ++k) {
        double p[3], q[4];
        lsim_body_pose(&m, &st, ct->body[k], p, q);
        lsim_v3_sub(r[k], ct->point, p);
        has[k] = m.bodies[ct->body[k]].nv > 0;
      }
      for (int row = 0; row <= ct->ndir; ++row) {
        double u[3];
        if (row == 0) {
          lsim_v3_copy(u, ct->normal);
        } else {
          const int k = row - 1;
          for (int d = 0; d < 3; ++d) u[d] = cs[k] * ct->tangent[0][d] + sn[k] * ct->tangent[1][d];
        }
        LsimJacRow want;
        memset(&want, 0, sizeof want);
        for (int k = 0; k < 2; ++k) {
          want.body[k] = has[k] ? ct->body[k] : -1;
          if (!has[k]) continue;
          const double *a = r[k];
          const double blk[6] = {u[0], u[1], u[2], a[1] * u[2] - a[2] * u[1],
                                 a[2] * u[0] - a[0] * u[2], a[0] * u[1] - a[1] * u[0]};
          for (int d = 0; d < 6; ++d) want.j[k][d] = k == 0 ? blk[d] : -blk[d];
        }
        const LsimJacRow *got = &set.rows[ct->first_row + row];
        assert_memory_equal(got->body, want.body, sizeof want.body);
        if (memcmp(got->j, want.j, sizeof want.j) != 0)
          fail_msg("%d directions, contact %d, row %d: not the scalar formula's", dirs[v], c, row);
        ++checked;
        still += !has[1];
      }
    }
    assert_true(checked > 4 * set.count / 2 && still > 0);
    lsim_contacts_free(&set);
    lsim_state_free(&st);
    lsim_model_free(&m);
  }
}

/* Detection split over a team finds the one-thread contacts, in the same order, bit for
 * bit: teams of 2, 3 and 4 members, each twice (the second call on the kept workspace),
 * in 2-D and 3-D, on a heap of 400 bodies (the team takes scenes of 256 shapes and more)
 * with every pair of kinds, frictionless ones, and the floor's long run of pairs at the
 * head of the sweep. Then the heap moved: the same again on the kept workspaces. */
static void test_team_detection(void **state) {
  (void)state;
  for (int dim = 2; dim <= 3; ++dim) {
    LsimModel m;
    LsimState st;
    heap_model(&m, &st, dim, 400);
    LsimTeam *team[5] = {NULL};
    LsimContactSet par[5];
    memset(par, 0, sizeof par);
    for (int T = 2; T <= 4; ++T) {
      assert_int_equal(lsim_team_create(&team[T], T), 0);
      par[T].team = team[T];
    }
    for (int move = 0; move < 2; ++move) {
      LsimContactSet one;
      memset(&one, 0, sizeof one);
      assert_int_equal(lsim_detect_contacts(&m, &st, st.v, &one), 0);
      assert_true(one.count > 400); /* a dense heap: pairs of every kind */
      for (int T = 2; T <= 4; ++T)
        for (int rep = 0; rep < 2; ++rep) {
          assert_int_equal(lsim_detect_contacts(&m, &st, st.v, &par[T]), 0);
          assert_same_contacts(&one, &par[T]);
        }
      lsim_contacts_free(&one);
      for (int i = 0; i < m.nbodies; ++i) /* the heap moves: positions by 0.05 v */
        for (int k = 0; k < dim && m.bodies[i].nq > 0; ++k)
          st.q[m.bodies[i].q_offset + k] += 0.05 * st.v[m.bodies[i].v_offset + k];
    }
    for (int T = 2; T <= 4; ++T) lsim_contacts_free(&par[T]), lsim_team_free(team[T]);
    lsim_state_free(&st);
    lsim_model_free(&m);
  }
}

/* A sphere of radius 0.1 whose centre is 0.104 over the floor plane (gap 4 mm, within the
 * margin): its contact's direction rows take the arm to the sphere's own surface point,
 * z = -0.1 from the centre, when the pair has restitution, else the midpoint's, z =
 * -0.102. The pair has it through the sphere's restitution, or through a per-pair override
 * alone (no body has any: detection's check of whether any pair can have restitution
 * must see the overrides); an override of 0 for the pair, or one for another pair, leaves
 * the midpoint. Row k of the sphere: [u, r x u] with r = (0, 0, rz), so its angular
 * part's x is -rz u_y (1e-15: the arm's one subtraction of numbers near 0.1). */
static void test_restitution_arms(void **state) {
  (void)state;
  for (int c = 0; c < 5; ++c) {
    LsimModel m = lsim_default_model();
    m.dimension = 3;
    m.friction_directions = 4;
    m.contact_margin = 0.01;
    LsimBody ground = lsim_default_body();
    ground.type = LSIM_BODY_STATIC;
    const int g = lsim_model_add_body(&m, &ground);
    LsimShape floor = shape(LSIM_SHAPE_PLANE, 0, 0, 0, 0);
    floor.body = g;
    floor.mu = 0.5;
    lsim_model_add_shape(&m, &floor);
    LsimBody ball = lsim_default_body();
    ball.mass = 1.0;
    for (int k = 0; k < 9; k += 4) ball.inertia[k] = 0.004;
    ball.restitution = c == 1 || c == 3 ? 0.5 : 0.0;
    const int b = lsim_model_add_body(&m, &ball);
    LsimShape s = shape(LSIM_SHAPE_SPHERE, 0.1, 0, 0, 0);
    s.body = b;
    s.mu = 0.5;
    lsim_model_add_shape(&m, &s);
    const int other = lsim_model_add_body(&m, &ball); /* far away, in no contact */
    LsimShape so = s;
    so.body = other;
    lsim_model_add_shape(&m, &so);
    /* c 2: an override 0.5 for the pair alone; c 3: an override 0 beside the sphere's 0.5;
       c 4: an override 0.5 for another pair only. */
    LsimRestitutionPair p = {{c == 4 ? other : b, g}, c == 3 ? 0.0 : 0.5};
    if (c >= 2) m.restitution_pairs = &p, m.nrestitution_pairs = 1;
    assert_int_equal(lsim_model_finalize(&m), 0);
    LsimState st;
    assert_int_equal(lsim_state_init(&st, &m), 0);
    st.q[m.bodies[b].q_offset + 2] = 0.104;
    st.q[m.bodies[other].q_offset + 0] = 5.0, st.q[m.bodies[other].q_offset + 2] = 3.0;
    LsimContactSet set;
    memset(&set, 0, sizeof set);
    assert_int_equal(lsim_detect_contacts(&m, &st, st.v, &set), 0);
    assert_int_equal(set.count, 1);
    const LsimContact *ct = &set.contacts[0];
    assert_true(fabs(ct->gap - 0.004) < 1e-15);
    assert_int_equal(ct->ndir, 4);
    const double rz = c == 1 || c == 2 ? -0.1 : -0.102;
    for (int k = 1; k <= ct->ndir; ++k) {
      const LsimJacRow *row = &set.rows[ct->first_row + k];
      const int side = row->body[0] == b ? 0 : 1;
      assert_int_equal(row->body[side], b);
      const double *j = row->j[side];
      const double sign = side == 0 ? 1.0 : -1.0;
      if (fabs(j[3] - sign * -rz * (sign * j[1])) > 1e-15)
        fail_msg("case %d row %d: j %.17g, arm z %.17g", c, k, j[3], rz);
    }
    lsim_contacts_free(&set);
    m.restitution_pairs = NULL, m.nrestitution_pairs = 0;
    lsim_state_free(&st);
    lsim_model_free(&m);
  }
}

/* The broad phase in bands of a second axis finds the pairs of the sweep on x alone, in
 * the same order, so the contacts are the same bit for bit: the heap of every kind in 2-D
 * and 3-D (the floor plane and the wall slab in every band, infinite extents included),
 * alone and on a team of 2, then moved; and a dense square bin of 900 boxes, several
 * layers, some touching across band edges. */
static void test_band_detection(void **state) {
  (void)state;
  for (int scene = 0; scene < 3; ++scene) {
    const int dim = scene == 0 ? 2 : 3;
    LsimModel m;
    LsimState st;
    heap_model(&m, &st, dim, scene == 2 ? 900 : 400);
    if (scene == 2) /* the boxes in a 15 x 15 x 4 lattice, 0.01 apart and jittered */
      for (int i = 0, k = 0; i < m.nbodies; ++i) {
        const LsimBody *b = &m.bodies[i];
        if (b->nq == 0) continue;
        double *q = st.q + b->q_offset;
        q[0] = 0.41 * (k % 15) + urange(-0.01, 0.01);
        q[1] = 0.41 * (k / 15 % 15) + urange(-0.01, 0.01);
        q[2] = 0.2 + 0.41 * (k / 225) + urange(-0.01, 0.01);
        ++k;
      }
    LsimTeam *team = NULL;
    assert_int_equal(lsim_team_create(&team, 2), 0);
    LsimContactSet xonly, banded, teamed;
    memset(&xonly, 0, sizeof xonly), memset(&banded, 0, sizeof banded);
    memset(&teamed, 0, sizeof teamed);
    xonly.sweep_x_only = 1;
    teamed.team = team;
    for (int move = 0; move < 2; ++move) {
      assert_int_equal(lsim_detect_contacts(&m, &st, st.v, &xonly), 0);
      assert_int_equal(lsim_detect_contacts(&m, &st, st.v, &banded), 0);
      assert_int_equal(lsim_detect_contacts(&m, &st, st.v, &teamed), 0);
      assert_true(xonly.count > 400);
      assert_null(xonly.bands);     /* x alone ... */
      assert_non_null(banded.bands); /* ... against the bands */
      assert_same_contacts(&xonly, &banded);
      assert_same_contacts(&xonly, &teamed);
      for (int i = 0; i < m.nbodies; ++i) /* the scene moves: positions by 0.05 v */
        for (int k = 0; k < dim && m.bodies[i].nq > 0; ++k)
          st.q[m.bodies[i].q_offset + k] += 0.05 * st.v[m.bodies[i].v_offset + k];
    }
    lsim_contacts_free(&xonly), lsim_contacts_free(&banded), lsim_contacts_free(&teamed);
    lsim_team_free(team);
    lsim_state_free(&st);
    lsim_model_free(&m);
  }
}

/* lsim_box_face_vertex: a cube of half size 0.25 on a cube of half size 0.5 (top face at
 * z = 1, edge at x = 0.5), slid by s along x and tilted by th about y. While lsim_collide
 * keeps a face vertex, the followed vertex is its point, normal and gap to 1e-15 (the
 * same planes, intersected instead of clipped: rounding) with margin > 0; a front corner
 * 1e-9 m past the edge (beyond the clip's tolerance, 3e-12 m here) is gone from
 * lsim_collide and its margin is -1e-9 + 2 tol < 0, to 1e-15; the role is +5e-10 m
 * (the hysteresis, 1e-9 of the larger half size) while the faces lie flat, and at a
 * tilt of 1e-7 rad about the edge lsim_collide takes the tilted cube's face, where the
 * role of the lower cube's face is negative and *ref < 0 picks the tilted one. */
static void test_face_vertex_follow(void **state) {
  (void)state;
  LsimShape base = {0}, top = {0};
  base.type = top.type = LSIM_SHAPE_BOX;
  base.half[0] = base.half[1] = base.half[2] = 0.5;
  top.half[0] = top.half[1] = top.half[2] = 0.25;
  base.rot[0] = top.rot[0] = 1.0;
  const LsimPose pb = {{0, 0, 0.5}, {1, 0, 0, 0}};
  LsimPlaced B;
  lsim_shape_place(&base, &pb, 3, &B);
  const double shifts[3] = {0.1, 0.25 - 1e-13, 0.25 + 1e-9};
  for (int k = 0; k < 3; ++k) {
    const LsimPose pt = {{shifts[k], 0, 1.25}, {1, 0, 0, 0}};
    LsimPlaced A;
    lsim_shape_place(&top, &pt, 3, &A);
    LsimContactPoint out[LSIM_MAX_MANIFOLD], f;
    const int n = lsim_collide_placed(&A, &B, 3, 1e-4, out, LSIM_MAX_MANIFOLD);
    assert_int_equal(n, 4);
    for (int i = 0; i < n; ++i) {
      int ref = -1;
      double margin, role;
      assert_int_equal(lsim_box_face_vertex(&A, &B, out[i].feature, &ref, &f, &margin, &role), 0);
      assert_true(lsim_v3_dist2(f.point, out[i].point) <= 1e-30 && fabs(f.gap - out[i].gap) <= 1e-15);
      assert_true(lsim_v3_dist2(f.normal, out[i].normal) <= 1e-30 && f.feature == out[i].feature);
      assert_true(margin > 0.0 && fabs(role - 5e-10) <= 1e-15);
    }
    if (k < 2) continue;
    /* Past the edge: the front corners (+x side of the top face's clip: features named at
       k = 0) are gone, their margins negative. */
    const LsimPose p0 = {{0.1, 0, 1.25}, {1, 0, 0, 0}};
    LsimPlaced A0;
    lsim_shape_place(&top, &p0, 3, &A0);
    LsimContactPoint o0[LSIM_MAX_MANIFOLD];
    const int n0 = lsim_collide_placed(&A0, &B, 3, 1e-4, o0, LSIM_MAX_MANIFOLD);
    int gone = 0;
    for (int i = 0; i < n0; ++i) {
      int found = 0;
      for (int j = 0; j < n; ++j) found |= out[j].feature == o0[i].feature;
      if (found) continue;
      ++gone;
      int ref = -1;
      double margin, role;
      assert_int_equal(lsim_box_face_vertex(&A, &B, o0[i].feature, &ref, &f, &margin, &role), 0);
      const double tol = 1e-12 * (1.0 + 0.5 + 0.5); /* the clip's, of the lower cube */
      if (fabs(margin - (-1e-9 + 2.0 * tol)) > 1e-15) fail_msg("margin %.17g", margin);
    }
    assert_int_equal(gone, 2);
  }
  /* Tilted by 1e-7 rad about the edge (the top cube's centre over it). */
  const double th = 1e-7;
  const LsimPose pt = {{0.5 + 0.25 * sin(th), 0, 1.0 + 0.25 * cos(th)}, {cos(th / 2), 0, sin(th / 2), 0}};
  LsimPlaced A;
  lsim_shape_place(&top, &pt, 3, &A);
  LsimContactPoint out[LSIM_MAX_MANIFOLD], f;
  const int n = lsim_collide_placed(&A, &B, 3, 1e-4, out, LSIM_MAX_MANIFOLD);
  assert_true(n >= 2);
  for (int i = 0; i < n; ++i) {
    int ref = -1, ref_b = 1;
    double margin, role, role_b;
    assert_int_equal(lsim_box_face_vertex(&A, &B, out[i].feature, &ref, &f, &margin, &role), 0);
    assert_int_equal(ref, 0); /* the tilted cube's face: its normal is the contact's */
    assert_true(lsim_v3_dist2(f.normal, out[i].normal) <= 1e-30 && role > 0.0);
    assert_int_equal(lsim_box_face_vertex(&A, &B, out[i].feature, &ref_b, &f, &margin, &role_b), 0);
    assert_true(role_b < 0.0 && fabs(role_b + role) <= 1e-15);
  }
}

/* The contacts a step admits (lsim_detect_contacts): a sphere of radius 0.1 m above a
 * ground plane, or two such spheres far above it, at h = 0.01 s; the sphere at gap g with
 * velocities v [6] (linear, angular), the second sphere (when two) at rest at gap g from
 * the first along x. Returns the number of contacts. */
/* With admit_floor[1] > 0: set.speed_floor, body 1's floor (m/s). With admit_vend: after
 * detection, lsim_contacts_missed at those end velocities of body 1 [6], its count in
 * admit_missed, its fast bodies in admit_fast and body 1's floor in admit_floor[1]. */
static double admit_floor[3];
static const double *admit_vend;
static int admit_missed, admit_fast;

static int admitted(int two, double g, const double *v, double margin) {
  LsimModel m = lsim_default_model();
  m.dimension = 3;
  m.time_step = 0.01;
  m.friction_directions = 4;
  m.contact_margin = margin;
  LsimBody ground = lsim_default_body();
  ground.type = LSIM_BODY_STATIC;
  LsimShape plane = shape(LSIM_SHAPE_PLANE, 0, 0, 0, 0);
  plane.body = lsim_model_add_body(&m, &ground);
  lsim_model_add_shape(&m, &plane);
  for (int i = 0; i < 1 + two; ++i) {
    LsimBody b = lsim_default_body();
    b.mass = 1.0;
    for (int k = 0; k < 9; k += 4) b.inertia[k] = 0.004; /* 2/5 m r^2 */
    LsimShape ball = shape(LSIM_SHAPE_SPHERE, 0.1, 0, 0, 0);
    ball.body = lsim_model_add_body(&m, &b);
    lsim_model_add_shape(&m, &ball);
  }
  assert_int_equal(lsim_model_finalize(&m), 0);
  LsimState st;
  assert_int_equal(lsim_state_init(&st, &m), 0);
  for (int i = 0; i < 1 + two; ++i) {
    double *q = st.q + m.bodies[1 + i].q_offset;
    q[0] = i * (0.2 + g);
    q[2] = two ? 5.0 : 0.1 + g; /* two: 4.9 m above the ground, far beyond any bound */
    q[3] = 1.0;
  }
  memcpy(st.v + m.bodies[1].v_offset, v, 6 * sizeof *v);
  LsimContactSet set;
  memset(&set, 0, sizeof set);
  if (admit_floor[1] > 0.0) set.speed_floor = admit_floor;
  assert_int_equal(lsim_detect_contacts(&m, &st, st.v, &set), 0);
  const int count = set.count;
  if (admit_vend) {
    memcpy(st.v + m.bodies[1].v_offset, admit_vend, 6 * sizeof *v);
    admit_missed = lsim_contacts_missed(&set, &m, st.v, admit_floor, &admit_fast);
  }
  lsim_contacts_free(&set);
  lsim_state_free(&st);
  lsim_model_free(&m);
  return count;
}

/* A contact enters the step when its gap is at most margin + 1e-9 m + h (s_a + s_b), s
 * the body's free linear speed plus its angular speed times its reach (here the radius,
 * 0.1 m): each gap 1 % inside and 1 % outside the bound (rounding is 1e-16 relative, the
 * 1e-9 m of LSIM_TOUCH_REACH is 1e-7 of the bound, neither moves the answer). Falling at
 * 1 m/s: bound 0.01 m. Moving sideways at 1 m/s: the same bound (a speed, not a closing
 * speed: this motion cannot close the gap within the step, yet the contact enters).
 * Spinning at 5 rad/s: 0.005 m. Falling at 1 m/s with margin 0.003 m: 0.013 m. Two
 * spheres, one at 2 m/s towards the other at rest: 0.02 m; the same at 2 m/s away: the
 * same 0.02 m. */
static void test_admission_bound(void **state) {
  (void)state;
  const double fall[6] = {0, 0, -1, 0, 0, 0}, side[6] = {1, 0, 0, 0, 0, 0},
               spin[6] = {0, 0, 0, 0, 5, 0}, toward[6] = {2, 0, 0, 0, 0, 0},
               away[6] = {-2, 0, 0, 0, 0, 0};
  const struct {
    int two;
    const double *v;
    double margin, bound;
  } cases[] = {{0, fall, 0.0, 0.01},  {0, side, 0.0, 0.01},   {0, spin, 0.0, 0.005},
               {0, fall, 0.003, 0.013}, {1, toward, 0.0, 0.02}, {1, away, 0.0, 0.02}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    assert_int_equal(admitted(cases[k].two, 0.99 * cases[k].bound, cases[k].v, cases[k].margin), 1);
    assert_int_equal(admitted(cases[k].two, 1.01 * cases[k].bound, cases[k].v, cases[k].margin), 0);
  }
}

/* The time step's second look (contact/step_admit.c). A ball at rest 5 mm above the
 * ground: its bound is 0, no contact. At end velocities falling at 1 m/s the gap would
 * close within the step (0.005 - 0.01 * 1 < 0): one left-out point, the ball's floor
 * raised to 1 m/s; falling at 0.4 m/s it is faster than its bound but stops short (0.005
 * - 0.004 > 0): none. Detection with that floor admits a gap 1 % inside h * 1 m/s and
 * not one 1 % outside, as test_admission_bound's fall (rounding: 1e-16 relative). */
static void test_admission_floor(void **state) {
  (void)state;
  const double rest[6] = {0}, fall[6] = {0, 0, -1, 0, 0, 0}, slow[6] = {0, 0, -0.4, 0, 0, 0};
  admit_vend = fall;
  assert_int_equal(admitted(0, 0.005, rest, 0.0), 0);
  assert_int_equal(admit_missed, 1);
  assert_int_equal(admit_fast, 1);
  assert_true(admit_floor[1] == 1.0);
  admit_floor[1] = 0.0;
  admit_vend = slow;
  assert_int_equal(admitted(0, 0.005, rest, 0.0), 0);
  assert_int_equal(admit_missed, 0);
  assert_int_equal(admit_fast, 1);
  assert_true(admit_floor[1] == 0.4);
  admit_vend = NULL;
  admit_floor[1] = 1.0;
  assert_int_equal(admitted(0, 0.99 * 0.01, rest, 0.0), 1);
  assert_int_equal(admitted(0, 1.01 * 0.01, rest, 0.0), 0);
  admit_floor[1] = 0.0;
  assert_int_equal(admitted(0, 0.99 * 0.01, rest, 0.0), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sphere_plane),        cmocka_unit_test(test_sphere_sphere),
      cmocka_unit_test(test_box_plane_yaw),       cmocka_unit_test(test_box_plane_tilt),
      cmocka_unit_test(test_box_plane_thin),
      cmocka_unit_test(test_box_on_box),          cmocka_unit_test(test_box_on_box_offset),
      cmocka_unit_test(test_box_edge_edge),       cmocka_unit_test(test_rect_2d),
      cmocka_unit_test(test_capsule_plane),       cmocka_unit_test(test_capsule_cross),
      cmocka_unit_test(test_capsule_parallel),    cmocka_unit_test(test_box_capsule),
      cmocka_unit_test(test_capsule_segment_held), cmocka_unit_test(test_capsule_end_past_face),
      cmocka_unit_test(test_capsule_points_valid),
      cmocka_unit_test(test_box_edge_held),
      cmocka_unit_test(test_point_pairs),         cmocka_unit_test(test_margin_filter),
      cmocka_unit_test(test_swap_symmetry),       cmocka_unit_test(test_aabb_values),
      cmocka_unit_test(test_world_pose),          cmocka_unit_test(test_aabb_contains_points),
      cmocka_unit_test(test_fuzz),                cmocka_unit_test(test_feature_stability),
      cmocka_unit_test(test_feature_role_independent),
      cmocka_unit_test(test_deep_penetration),    cmocka_unit_test(test_near_parallel_faces),
      cmocka_unit_test(test_reduce_keeps_support), cmocka_unit_test(test_face_clipped_away),
      cmocka_unit_test(test_octagon_kept),         cmocka_unit_test(test_face_vertex_follow),
      cmocka_unit_test(test_team_detection),     cmocka_unit_test(test_band_detection),
      cmocka_unit_test(test_restitution_arms), cmocka_unit_test(test_box_clip_keep),
      cmocka_unit_test(test_box_edge_seps), cmocka_unit_test(test_rows_formula),
      cmocka_unit_test(test_admission_bound), cmocka_unit_test(test_admission_floor),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
