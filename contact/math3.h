/* math3.h: small 3-D vector and quaternion helpers (header-only, static inline).
 * Vectors are double[3]; quaternions double[4] = (w, x, y, z), unit for rotations;
 * matrices double[9] row-major. */
#ifndef LSIM_MATH3_H
#define LSIM_MATH3_H

#include <math.h>

static inline void lsim_v3_set(double *r, double x, double y, double z) {
  r[0] = x, r[1] = y, r[2] = z;
}
static inline void lsim_v3_copy(double *r, const double *a) { r[0] = a[0], r[1] = a[1], r[2] = a[2]; }
static inline void lsim_v3_add(double *r, const double *a, const double *b) {
  r[0] = a[0] + b[0], r[1] = a[1] + b[1], r[2] = a[2] + b[2];
}
static inline void lsim_v3_sub(double *r, const double *a, const double *b) {
  r[0] = a[0] - b[0], r[1] = a[1] - b[1], r[2] = a[2] - b[2];
}
static inline void lsim_v3_scale(double *r, const double *a, double s) {
  r[0] = a[0] * s, r[1] = a[1] * s, r[2] = a[2] * s;
}
/* r = a + s b */
static inline void lsim_v3_axpy(double *r, const double *a, double s, const double *b) {
  r[0] = a[0] + s * b[0], r[1] = a[1] + s * b[1], r[2] = a[2] + s * b[2];
}
static inline double lsim_v3_dot(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static inline void lsim_v3_cross(double *r, const double *a, const double *b) {
  const double x = a[1] * b[2] - a[2] * b[1], y = a[2] * b[0] - a[0] * b[2],
               z = a[0] * b[1] - a[1] * b[0];
  r[0] = x, r[1] = y, r[2] = z;
}
static inline double lsim_v3_norm(const double *a) { return sqrt(lsim_v3_dot(a, a)); }
/* Normalizes a in place; returns its former length (a unchanged when 0). */
static inline double lsim_v3_normalize(double *a) {
  const double n = lsim_v3_norm(a);
  if (n > 0.0) a[0] /= n, a[1] /= n, a[2] /= n;
  return n;
}

/* The axis lsim_v3_tangents crosses with the unit vector n: 0 (x) when |n_x| < 0.57735,
 * else 1 (y). The basis jumps (turns by up to 90 degrees about n) where |n_x| crosses
 * 0.57735; lsim_v3_tangents_about keeps one axis across that. */
static inline int lsim_v3_tangent_axis(const double *n) { return fabs(n[0]) < 0.57735 ? 0 : 1; }

/* t1 = (a x n) / |a x n| with a the x (axis 0) or y (axis 1) unit vector, t2 = n x t1:
 * smooth in n while n stays away from a. */
static inline void lsim_v3_tangents_about(const double *n, int axis, double *t1, double *t2) {
  double a[3];
  if (axis == 0) lsim_v3_set(a, 1.0, 0.0, 0.0);
  else lsim_v3_set(a, 0.0, 1.0, 0.0);
  lsim_v3_cross(t1, a, n);
  lsim_v3_normalize(t1);
  lsim_v3_cross(t2, n, t1);
}

/* Two unit vectors t1, t2 completing the unit vector n to a right-handed basis
 * (t1 x t2 = n); a function of n alone, so a resting contact keeps its tangents. */
static inline void lsim_v3_tangents(const double *n, double *t1, double *t2) {
  lsim_v3_tangents_about(n, lsim_v3_tangent_axis(n), t1, t2);
}

static inline void lsim_quat_identity(double *q) { q[0] = 1.0, q[1] = q[2] = q[3] = 0.0; }

/* r = a * b (Hamilton product; r may alias neither). */
static inline void lsim_quat_mul(double *r, const double *a, const double *b) {
  r[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  r[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
  r[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
  r[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
}

static inline void lsim_quat_normalize(double *q) {
  const double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (n > 0.0) q[0] /= n, q[1] /= n, q[2] /= n, q[3] /= n;
  else lsim_quat_identity(q);
}

/* r = rotate v by unit q (r may alias v). */
static inline void lsim_quat_rotate(double *r, const double *q, const double *v) {
  /* v + 2 w (u x v) + 2 u x (u x v), u = (x, y, z) */
  const double *u = q + 1;
  double t[3], uxt[3];
  lsim_v3_cross(t, u, v);
  lsim_v3_scale(t, t, 2.0);
  lsim_v3_cross(uxt, u, t);
  r[0] = v[0] + q[0] * t[0] + uxt[0];
  r[1] = v[1] + q[0] * t[1] + uxt[1];
  r[2] = v[2] + q[0] * t[2] + uxt[2];
}

/* r = rotate v by the inverse (conjugate) of unit q. */
static inline void lsim_quat_rotate_inv(double *r, const double *q, const double *v) {
  const double c[4] = {q[0], -q[1], -q[2], -q[3]};
  lsim_quat_rotate(r, c, v);
}

/* Rotation matrix (row-major) of unit q. */
static inline void lsim_quat_to_mat(double *R, const double *q) {
  const double w = q[0], x = q[1], y = q[2], z = q[3];
  R[0] = 1 - 2 * (y * y + z * z), R[1] = 2 * (x * y - w * z), R[2] = 2 * (x * z + w * y);
  R[3] = 2 * (x * y + w * z), R[4] = 1 - 2 * (x * x + z * z), R[5] = 2 * (y * z - w * x);
  R[6] = 2 * (x * z - w * y), R[7] = 2 * (y * z + w * x), R[8] = 1 - 2 * (x * x + y * y);
}

/* Unit quaternion of a rotation by angle |w| h about w (the exponential map of w h). */
static inline void lsim_quat_from_rotvec(double *q, const double *w, double h) {
  const double angle = lsim_v3_norm(w) * h;
  if (angle < 1e-12) {
    q[0] = 1.0, q[1] = 0.5 * w[0] * h, q[2] = 0.5 * w[1] * h, q[3] = 0.5 * w[2] * h;
    lsim_quat_normalize(q);
    return;
  }
  const double s = sin(0.5 * angle) / (angle / h);
  q[0] = cos(0.5 * angle), q[1] = w[0] * s, q[2] = w[1] * s, q[3] = w[2] * s;
}

/* Rotation about z by theta as a quaternion. */
static inline void lsim_quat_from_angle_z(double *q, double theta) {
  q[0] = cos(0.5 * theta), q[1] = q[2] = 0.0, q[3] = sin(0.5 * theta);
}

/* r = A v, A row-major 3x3 (r may not alias v). */
static inline void lsim_m3_apply(double *r, const double *A, const double *v) {
  r[0] = A[0] * v[0] + A[1] * v[1] + A[2] * v[2];
  r[1] = A[3] * v[0] + A[4] * v[1] + A[5] * v[2];
  r[2] = A[6] * v[0] + A[7] * v[1] + A[8] * v[2];
}

/* r = a + t (b - a) */
static inline void lsim_v3_lerp(double *r, const double *a, const double *b, double t) {
  r[0] = a[0] + t * (b[0] - a[0]), r[1] = a[1] + t * (b[1] - a[1]), r[2] = a[2] + t * (b[2] - a[2]);
}

/* Squared distance |a - b|^2. */
static inline double lsim_v3_dist2(const double *a, const double *b) {
  const double x = a[0] - b[0], y = a[1] - b[1], z = a[2] - b[2];
  return x * x + y * y + z * z;
}

/* r = A^T v, A row-major 3x3 (r may not alias v). */
static inline void lsim_m3_apply_t(double *r, const double *A, const double *v) {
  r[0] = A[0] * v[0] + A[3] * v[1] + A[6] * v[2];
  r[1] = A[1] * v[0] + A[4] * v[1] + A[7] * v[2];
  r[2] = A[2] * v[0] + A[5] * v[1] + A[8] * v[2];
}

#endif
