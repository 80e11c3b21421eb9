/* bodies_nd.c: the bodies of a 2-D or 3-D scene (docs/scene-format.md): orientations,
 * shapes, mass properties from densities or explicit inertia, applied forces, grids of
 * copies with jitter, and unique names. */
#include "scene/parse.h"

#include <jansson.h>
#include <limits.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lcp/lcp.h"
#include "contact/contact.h"
#include "contact/math3.h"
#include "lcp/random.h"

#define QUAT_NORM_TOL 1e-6   /* a quaternion's norm must be within this of 1 */
#define SYM_TOL 1e-9         /* relative asymmetry accepted in an inertia matrix */
#define COM_TOL 1e-9         /* relative offset of the shapes' center of mass accepted */
#define MAX_COPIES 100000    /* bodies one grid may make */
#define PI 3.14159265358979323846

/* An orientation at path p: 2-D an angle about z (*theta, and q); 3-D a unit quaternion
 * [w, x, y, z] (normalized) or {"axis": [x, y, z], "angle": rad}. */
static int read_orientation(LsimParseCtx *c, const json_t *v, const char *p, double q[4], double *theta) {
  *theta = 0.0;
  if (c->dim == 2) {
    if (!json_is_number(v))
      return lsim_parse_fail(c, p, 0, "must be a number in 2-D (the angle about z, rad), got %s", lsim_json_type_name(v));
    *theta = json_number_value(v);
    lsim_quat_from_angle_z(q, *theta);
    return 0;
  }
  /* 3-D quaternion: checked to be unit, then normalized exactly. */
  if (json_is_array(v)) {
    if (json_array_size(v) != 4)
      return lsim_parse_fail(c, p, 0, "needs 4 numbers [w, x, y, z] (a unit quaternion), got %zu", json_array_size(v));
    double w[4];
    if (lsim_parse_read_vec(c, v, p, 4, w) < 0) return LSIM_INVALID_INPUT; /* size checked above */
    const double n = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2] + w[3] * w[3]);
    if (!(fabs(n - 1.0) <= QUAT_NORM_TOL))
      return lsim_parse_fail(c, p, 0, "must be a unit quaternion [w, x, y, z]: its norm is %.12g, not within %g of 1",
                  n, QUAT_NORM_TOL);
    for (int k = 0; k < 4; ++k) q[k] = w[k] / n;
    return 0;
  }
  if (!json_is_object(v))
    return lsim_parse_fail(c, p, 0, "must be a unit quaternion [w, x, y, z] or {\"axis\": [x, y, z], \"angle\": rad}, got %s",
                lsim_json_type_name(v));
  /* Axis and angle: the axis need not be unit, only nonzero. */
  static const char *const keys[] = {"axis", "angle", NULL};
  if (lsim_parse_check_keys(c, v, p, keys) < 0) return LSIM_INVALID_INPUT;
  double axis[3], angle = 0.0;
  int rc = lsim_parse_get_vec(c, v, p, "axis", 3, axis);
  if (rc < 0) return rc;
  if (rc == 0) return lsim_parse_missing(c, p, "axis", "the rotation axis [x, y, z]");
  rc = lsim_parse_get_number(c, v, p, "angle", &angle);
  if (rc < 0) return rc;
  if (rc == 0) return lsim_parse_missing(c, p, "angle", "the rotation angle, rad");
  const double big = fmax(fabs(axis[0]), fmax(fabs(axis[1]), fabs(axis[2])));
  if (!(big > 0)) {
    char ap[PATH_CAP];
    lsim_json_path_key(ap, p, "axis");
    return lsim_parse_fail(c, ap, 0, "must not be zero");
  }
  for (int k = 0; k < 3; ++k) axis[k] /= big; /* scaled first: no overflow in the norm */
  lsim_v3_normalize(axis);
  const double s = sin(0.5 * angle);
  q[0] = cos(0.5 * angle), q[1] = s * axis[0], q[2] = s * axis[1], q[3] = s * axis[2];
  return 0;
}

/* opath.key as an orientation: 1 present, 0 absent (q, theta untouched), < 0 error. */
static int get_orientation(LsimParseCtx *c, const json_t *obj, const char *opath, const char *key,
                           double q[4], double *theta) {
  const json_t *v = json_object_get(obj, key);
  if (!v) return 0;
  char p[PATH_CAP];
  lsim_json_path_key(p, opath, key);
  return read_orientation(c, v, p, q, theta) < 0 ? LSIM_INVALID_INPUT : 1;
}


static const char *const shape_types[] = {"plane", "sphere", "box", "capsule", "point", NULL};

/* Volume (3-D) or area (2-D) of a shape; planes and points have none. */
static double shape_volume(const LsimShape *s, int dim) {
  const double r = s->radius, L = s->half[0];
  switch (s->type) {
    case LSIM_SHAPE_SPHERE: return dim == 2 ? PI * r * r : 4.0 / 3.0 * PI * r * r * r;
    case LSIM_SHAPE_BOX:
      return dim == 2 ? 4.0 * s->half[0] * s->half[1] : 8.0 * s->half[0] * s->half[1] * s->half[2];
    case LSIM_SHAPE_CAPSULE:
      return dim == 2 ? 4.0 * L * r + PI * r * r : 2.0 * PI * r * r * L + 4.0 / 3.0 * PI * r * r * r;
    default: return 0.0;
  }
}

/* Inertia of a shape of mass m about its own center, in its own frame. */
static void shape_inertia(const LsimShape *s, int dim, double m, double I[9]) {
  switch (s->type) {
    case LSIM_SHAPE_SPHERE:
      if (dim == 2) lsim_inertia_disk(m, s->radius, I);
      else lsim_inertia_sphere(m, s->radius, I);
      break;
    case LSIM_SHAPE_BOX: lsim_inertia_box(m, s->half, I); break;
    case LSIM_SHAPE_CAPSULE:
      if (dim == 2) lsim_inertia_stadium(m, s->radius, s->half[0], I);
      else lsim_inertia_capsule(m, s->radius, s->half[0], I);
      break;
    default: memset(I, 0, 9 * sizeof(double));
  }
}

/* A size or moment of inertia at path p must be > 0 and a normal number, as masses are
 * (lsim_parse_check_range): a subnormal moment (1e-320 kg m^2) has no finite inverse, and
 * the first step stopped on a NaN spin. 0 or the error. */
static int positive_normal(LsimParseCtx *c, const char *p, double v) {
  if (v >= DBL_MIN) return 0;
  if (v > 0)
    return lsim_parse_fail(c, p, 0, "must be > 0 and at least %g (the smallest normal number), got %g",
                           DBL_MIN, v);
  return lsim_parse_fail(c, p, 0, "must be > 0, got %g", v);
}

/* One entry of a body's "shapes" into *s (body index left to the caller). */
static int parse_shape(LsimParseCtx *c, const json_t *o, const char *path, size_t j, LsimBodyType btype,
                       LsimShape *s) {
  *s = lsim_default_shape();
  if (!json_is_object(o)) return lsim_parse_fail(c, path, 0, "must be an object, got %s", lsim_json_type_name(o));

  /* The type decides which sizes apply. */
  char type[32];
  int rc = lsim_parse_get_string(c, o, path, "type", type, sizeof type, 0);
  if (rc < 0) return rc;
  if (rc == 0) return lsim_parse_missing(c, path, "type", "\"plane\", \"sphere\", \"box\", \"capsule\" or \"point\"");
  int t = 0;
  while (shape_types[t] && strcmp(shape_types[t], type) != 0) ++t;
  char tp[PATH_CAP];
  lsim_json_path_key(tp, path, "type");
  if (!shape_types[t]) {
    const char *sg = lsim_json_suggest(type, shape_types);
    if (sg) return lsim_parse_fail(c, tp, 0, "unknown shape type \"%s\" (did you mean \"%s\"?)", type, sg);
    const int round = strcmp(type, "disk") == 0 || strcmp(type, "circle") == 0;
    return lsim_parse_fail(c, tp, 0, "unknown shape type \"%s\" (known: plane, sphere, box, capsule, point%s)",
                type, round ? "; a disk is a \"sphere\" in 2-D" : "");
  }
  static const LsimShapeType kinds[] = {LSIM_SHAPE_PLANE, LSIM_SHAPE_SPHERE, LSIM_SHAPE_BOX,
                                        LSIM_SHAPE_CAPSULE, LSIM_SHAPE_POINT};
  s->type = kinds[t];
  static const char *const keys[] = {"type", "name", "position", "orientation", "radius",
                                     "half_extents", "half_length", "mu", NULL};
  if (lsim_parse_check_keys(c, o, path, keys) < 0) return LSIM_INVALID_INPUT;
  if (s->type == LSIM_SHAPE_PLANE && btype != LSIM_BODY_STATIC)
    return lsim_parse_fail(c, tp, 0, "a plane is unbounded: planes go on static bodies only");

  /* Sizes: the ones of this type are required and > 0, the others must be absent. */
  static const char *const sizes[] = {"radius", "half_extents", "half_length", NULL};
  const int needs[5][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 0, 1}, {0, 0, 0}};
  for (int k = 0; k < 3; ++k) {
    if (needs[t][k] || !json_object_get(o, sizes[k])) continue;
    char p[PATH_CAP];
    lsim_json_path_key(p, path, sizes[k]);
    return lsim_parse_fail(c, p, 1, "does not apply to a %s", type);
  }
  static const char *const what[] = {"m, > 0", "[a, b] (2-D) or [a, b, c] (3-D) in m, each > 0",
                                     "half the length of the axis segment, m, > 0"};
  for (int k = 0; k < 3; ++k) {
    if (!needs[t][k]) continue;
    if (!json_object_get(o, sizes[k])) return lsim_parse_missing(c, path, sizes[k], what[k]);
  }
  rc = lsim_parse_get_ranged(c, o, path, "radius", GT0, &s->radius);
  if (rc < 0) return rc;
  if (rc == 0) s->radius = 0.0;
  if (lsim_parse_get_ranged(c, o, path, "half_length", GT0, &s->half[0]) < 0) return LSIM_INVALID_INPUT;
  if (s->type == LSIM_SHAPE_BOX) {
    char hp[PATH_CAP];
    lsim_json_path_key(hp, path, "half_extents");
    if (lsim_parse_get_vec(c, o, path, "half_extents", c->dim, s->half) < 0) return LSIM_INVALID_INPUT;
    for (int k = 0; k < c->dim; ++k) {
      if (s->half[k] >= DBL_MIN) continue;
      char ep[PATH_CAP];
      lsim_json_path_index(ep, hp, (size_t)k);
      return positive_normal(c, ep, s->half[k]);
    }
  }

  /* Name, local pose, material. */
  rc = lsim_parse_get_string(c, o, path, "name", s->name, sizeof s->name, 1);
  if (rc < 0) return rc;
  if (rc == 0) snprintf(s->name, sizeof s->name, "shape%zu", j);
  if (lsim_parse_get_vec(c, o, path, "position", c->dim, s->pos) < 0) return LSIM_INVALID_INPUT;
  double theta;
  if (get_orientation(c, o, path, "orientation", s->rot, &theta) < 0) return LSIM_INVALID_INPUT;
  if (lsim_parse_get_ranged(c, o, path, "mu", GE0, &s->mu) < 0) return LSIM_INVALID_INPUT;
  return 0;
}

/* A body of a 2-D/3-D scene as the file gives it, before replication. */
typedef struct NdBody {
  LsimBody b;            /* type, name, mass, inertia, pose (x, y, theta / x, y, z, quat),
                            schedules */
  LsimShape *shapes;     /* [nshapes], body index unset */
  int nshapes;
  double v[6];           /* dynamic: initial (linear, angular) velocity, layout of v */
  int named;
  int grid;              /* "grid" given */
  int count[3];
  double spacing[3];
  double amplitude;      /* jitter */
  uint64_t seed;
} NdBody;

static void nd_body_free(NdBody *t) {
  free(t->shapes);
  t->shapes = NULL;
  lsim_schedule_free(&t->b.force);
  lsim_schedule_free(&t->b.kinematic_velocity);
}

/* A one-row schedule (t = 0) holding value[width]: a constant vector. */
static int constant_schedule(LsimSchedule *s, const double *value, int width) {
  s->width = width;
  s->npoints = 0;
  s->t = malloc(sizeof *s->t);
  s->value = malloc((size_t)width * sizeof *s->value);
  if (!s->t || !s->value) {
    lsim_schedule_free(s);
    return LSIM_OUT_OF_MEMORY;
  }
  s->t[0] = 0.0;
  memcpy(s->value, value, (size_t)width * sizeof *value);
  s->npoints = 1;
  s->constant = value[0];
  return 0;
}

/* A deep copy of a schedule. */
static int copy_schedule(LsimSchedule *dst, const LsimSchedule *src) {
  *dst = *src;
  dst->t = dst->value = NULL;
  if (src->npoints == 0) return 0;
  const size_t n = (size_t)src->npoints, w = (size_t)(src->width > 0 ? src->width : 1);
  dst->t = malloc(n * sizeof *dst->t);
  dst->value = malloc(n * w * sizeof *dst->value);
  if (!dst->t || !dst->value) {
    lsim_schedule_free(dst);
    return LSIM_OUT_OF_MEMORY;
  }
  memcpy(dst->t, src->t, n * sizeof *dst->t);
  memcpy(dst->value, src->value, n * w * sizeof *dst->value);
  return 0;
}

/* The value of every component of s at time t into out[width]. */
static void schedule_row(const LsimSchedule *s, double t, double *out) {
  const int w = s->width > 0 ? s->width : 1;
  if (s->npoints == 0) {
    for (int k = 0; k < w; ++k) out[k] = s->constant;
    return;
  }
  /* Held outside the table, linear inside (as lsim_schedule_eval). */
  int lo = 0, hi = 0;
  if (t >= s->t[s->npoints - 1]) {
    lo = hi = s->npoints - 1;
  } else if (t > s->t[0]) {
    while (hi < s->npoints - 1 && s->t[hi] <= t) ++hi;
    lo = hi - 1;
  }
  const double a = hi == lo ? 0.0 : (t - s->t[lo]) / (s->t[hi] - s->t[lo]);
  for (int k = 0; k < w; ++k) {
    const double v0 = s->value[(size_t)lo * w + k], v1 = s->value[(size_t)hi * w + k];
    out[k] = v0 + a * (v1 - v0);
  }
}

/* Cholesky test: the symmetric 3x3 A is positive definite. */
static int spd3(const double *A) {
  if (!(A[0] > 0)) return 0;
  const double l00 = sqrt(A[0]), l10 = A[3] / l00, l20 = A[6] / l00;
  const double d1 = A[4] - l10 * l10;
  if (!(d1 > 0)) return 0;
  const double l11 = sqrt(d1), l21 = (A[7] - l20 * l10) / l11;
  return A[8] - l20 * l20 - l21 * l21 > 0;
}

/* The eigenvalues of the symmetric 3x3 A, largest first (the trigonometric closed form:
 * O. K. Smith, "Eigenvalues of a symmetric 3x3 matrix", CACM 4(4), 1961). */
static void sym3_eigenvalues(const double *A, double e[3]) {
  const double p1 = A[1] * A[1] + A[2] * A[2] + A[5] * A[5];
  const double q = (A[0] + A[4] + A[8]) / 3.0;
  const double p2 = (A[0] - q) * (A[0] - q) + (A[4] - q) * (A[4] - q) + (A[8] - q) * (A[8] - q) + 2.0 * p1;
  if (!(p2 > 0)) {
    e[0] = e[1] = e[2] = q;
    return;
  }
  const double p = sqrt(p2 / 6.0);
  double B[9];
  for (int k = 0; k < 9; ++k) B[k] = (A[k] - (k % 4 == 0 ? q : 0.0)) / p;
  double r = 0.5 * (B[0] * (B[4] * B[8] - B[5] * B[7]) - B[1] * (B[3] * B[8] - B[5] * B[6]) +
                    B[2] * (B[3] * B[7] - B[4] * B[6]));
  r = r < -1.0 ? -1.0 : r > 1.0 ? 1.0 : r;
  const double phi = acos(r) / 3.0;
  e[0] = q + 2.0 * p * cos(phi);
  e[2] = q + 2.0 * p * cos(phi + 2.0 * PI / 3.0);
  e[1] = 3.0 * q - e[0] - e[2];
}

/* An explicit "inertia": 2-D I_zz > 0; 3-D [Ixx, Iyy, Izz] > 0 or a symmetric positive
 * definite 3x3 matrix (rows), its diagonal > 0; every moment at least DBL_MIN. */
static int parse_inertia(LsimParseCtx *c, const json_t *v, const char *p, double I[9]) {
  memset(I, 0, 9 * sizeof(double));
  if (c->dim == 2) {
    if (!json_is_number(v))
      return lsim_parse_fail(c, p, 0, "must be a number in 2-D (I_zz, kg m^2), got %s", lsim_json_type_name(v));
    I[8] = json_number_value(v);
    return positive_normal(c, p, I[8]);
  }
  /* Principal moments [Ixx, Iyy, Izz]. */
  if (json_is_array(v) && !json_is_array(json_array_get(v, 0))) {
    double d[3];
    if (lsim_parse_read_vec(c, v, p, 3, d) < 0) return LSIM_INVALID_INPUT;
    for (int k = 0; k < 3; ++k) {
      if (d[k] >= DBL_MIN) continue;
      char ep[PATH_CAP];
      lsim_json_path_index(ep, p, (size_t)k);
      return positive_normal(c, ep, d[k]);
    }
    const int bad = lsim_inertia_triangle_violation(d);
    if (bad) {
      static const char *const axis[] = {"Ixx", "Iyy", "Izz"};
      char ep[PATH_CAP];
      lsim_json_path_index(ep, p, (size_t)(bad - 1));
      return lsim_parse_fail(c, ep, 0, "%s = %g is more than the sum of the other two moments, %g: no "
                             "mass distribution has such moments (each is at most the sum of the "
                             "other two; equal for a flat body)",
                             axis[bad - 1], d[bad - 1], d[0] + d[1] + d[2] - d[bad - 1]);
    }
    I[0] = d[0], I[4] = d[1], I[8] = d[2];
    return 0;
  }
  /* A full matrix: three rows of three, symmetric, positive definite. */
  if (!json_is_array(v) || json_array_size(v) != 3)
    return lsim_parse_fail(c, p, 0, "must be [Ixx, Iyy, Izz] or a 3x3 matrix [[..], [..], [..]] in 3-D, got %s",
                json_is_array(v) ? "an array of another size" : lsim_json_type_name(v));
  double scale = 0.0;
  for (size_t r = 0; r < 3; ++r) {
    char rp[PATH_CAP];
    lsim_json_path_index(rp, p, r);
    const json_t *row = json_array_get(v, r);
    if (!json_is_array(row)) return lsim_parse_fail(c, rp, 0, "must be a row of 3 numbers, got %s", lsim_json_type_name(row));
    if (lsim_parse_read_vec(c, row, rp, 3, I + 3 * r) < 0) return LSIM_INVALID_INPUT;
    for (int k = 0; k < 3; ++k) scale = fmax(scale, fabs(I[3 * r + (size_t)k]));
  }
  for (int r = 0; r < 3; ++r)
    for (int k = 0; k < r; ++k) {
      if (fabs(I[3 * r + k] - I[3 * k + r]) <= SYM_TOL * scale) continue;
      char ep[PATH_CAP];
      lsim_json_path_index(ep, p, (size_t)r);
      lsim_json_path_index(ep, ep, (size_t)k);
      return lsim_parse_fail(c, ep, 0, "must equal [%d][%d] (an inertia matrix is symmetric): %g vs %g", k, r,
                  I[3 * r + k], I[3 * k + r]);
    }
  for (int k = 0; k < 3; ++k) {
    if (I[4 * k] >= DBL_MIN) continue;
    char ep[PATH_CAP];
    lsim_json_path_index(ep, p, (size_t)k);
    lsim_json_path_index(ep, ep, (size_t)k);
    return positive_normal(c, ep, I[4 * k]);
  }
  /* Exactly symmetric from here on. */
  for (int r = 0; r < 3; ++r)
    for (int k = 0; k < r; ++k) I[3 * r + k] = I[3 * k + r] = 0.5 * (I[3 * r + k] + I[3 * k + r]);
  if (!spd3(I)) return lsim_parse_fail(c, p, 0, "must be positive definite (an inertia tensor is)");
  double e[3];
  sym3_eigenvalues(I, e);
  if (lsim_inertia_triangle_violation(e))
    return lsim_parse_fail(c, p, 0, "its principal moments %g, %g, %g break the triangle inequality: "
                           "%g is more than the sum of the other two, which no mass distribution "
                           "has (equal for a flat body)", e[0], e[1], e[2], e[0]);
  return 0;
}

/* Mass and inertia of a dynamic body from "mass" or "density", "inertia" and its shapes. */
static int mass_properties(LsimParseCtx *c, const json_t *o, const char *path, NdBody *t) {
  LsimBody *b = &t->b;
  const int dim = c->dim;
  const int has_mass = json_object_get(o, "mass") != NULL;
  const int has_density = json_object_get(o, "density") != NULL;
  if (has_mass && has_density) {
    char p[PATH_CAP];
    lsim_json_path_key(p, path, "density");
    return lsim_parse_fail(c, p, 1, "give either \"mass\" or \"density\", not both");
  }
  if (!has_mass && !has_density)
    return lsim_parse_missing(c, path, "mass", dim == 2 ? "\"mass\" (kg) or \"density\" (kg/m^2) of a dynamic body"
                                             : "\"mass\" (kg) or \"density\" (kg/m^3) of a dynamic body");

  /* Total volume (area in 2-D) of the shapes; points and planes have none. */
  double volume = 0.0, scale = 0.0;
  for (int k = 0; k < t->nshapes; ++k) {
    const LsimShape *s = &t->shapes[k];
    volume += shape_volume(s, dim);
    const double ext = s->radius + fmax(s->half[0], fmax(s->half[1], s->half[2]));
    scale = fmax(scale, lsim_v3_norm(s->pos) + ext);
  }
  if (has_mass) {
    if (lsim_parse_get_ranged(c, o, path, "mass", GT0, &b->mass) < 0) return LSIM_INVALID_INPUT;
  } else {
    double rho = 0.0;
    if (lsim_parse_get_ranged(c, o, path, "density", GT0, &rho) < 0) return LSIM_INVALID_INPUT;
    char p[PATH_CAP];
    lsim_json_path_key(p, path, "density");
    if (!(volume > 0))
      return lsim_parse_fail(c, p, 0, "the body's shapes have no %s to weigh (points carry none): give \"mass\"",
                  dim == 2 ? "area" : "volume");
    b->mass = rho * volume;
    if (!isfinite(b->mass) || !(b->mass > 0))
      return lsim_parse_fail(c, p, 0, "gives a mass of %g kg (density %g times %s %g)", b->mass, rho,
                  dim == 2 ? "area" : "volume", volume);
  }

  /* At most LSIM_SCENE_MASS_MAX, given or from the density. */
  if (b->mass > LSIM_SCENE_MASS_MAX) {
    char p[PATH_CAP];
    lsim_json_path_key(p, path, has_mass ? "mass" : "density");
    return lsim_parse_fail(c, p, 0, "%s%g kg%s more than %g kg, the largest mass a scene may give (products of masses and inertias overflow double precision past about 1e154)",
                           has_mass ? "" : "gives a mass of ", b->mass, has_mass ? " is" : ",",
                           LSIM_SCENE_MASS_MAX);
  }

  /* Explicit inertia, taken as given (its entries at most LSIM_SCENE_MASS_MAX). */
  const json_t *iv = json_object_get(o, "inertia");
  if (iv) {
    char p[PATH_CAP];
    lsim_json_path_key(p, path, "inertia");
    const int rc = parse_inertia(c, iv, p, b->inertia);
    if (rc) return rc;
    double imax = 0.0;
    for (int k = 0; k < 9; ++k) imax = fmax(imax, fabs(b->inertia[k]));
    if (imax > LSIM_SCENE_MASS_MAX)
      return lsim_parse_fail(c, p, 0, "has an entry of %g kg m^2, more than %g, the largest a scene may give (products of inertias overflow double precision past about 1e154)",
                             imax, LSIM_SCENE_MASS_MAX);
    return 0;
  }
  if (!(volume > 0))
    return lsim_parse_missing(c, path, "inertia", "the body's shapes have no volume to compute it from: points carry no mass");

  /* Computed: shape masses in proportion to volume, parallel axes about the body origin,
     which must be the shapes' center of mass. */
  double com[3] = {0.0, 0.0, 0.0}, I[9] = {0};
  for (int k = 0; k < t->nshapes; ++k) {
    const LsimShape *s = &t->shapes[k];
    const double mk = b->mass * shape_volume(s, dim) / volume;
    if (mk == 0.0) continue;
    lsim_v3_axpy(com, com, mk / b->mass, s->pos);
    double Ik[9], R[9], RI[9];
    shape_inertia(s, dim, mk, Ik);
    lsim_quat_to_mat(R, s->rot);
    /* R Ik R' + mk (|p|^2 E - p p'). */
    for (int r = 0; r < 3; ++r)
      for (int q = 0; q < 3; ++q)
        RI[3 * r + q] = R[3 * r] * Ik[q] + R[3 * r + 1] * Ik[3 + q] + R[3 * r + 2] * Ik[6 + q];
    const double p2 = lsim_v3_dot(s->pos, s->pos);
    for (int r = 0; r < 3; ++r)
      for (int q = 0; q < 3; ++q) {
        const double rot = RI[3 * r] * R[3 * q] + RI[3 * r + 1] * R[3 * q + 1] + RI[3 * r + 2] * R[3 * q + 2];
        I[3 * r + q] += rot + mk * ((r == q ? p2 : 0.0) - s->pos[r] * s->pos[q]);
      }
  }
  if (lsim_v3_norm(com) > COM_TOL * scale) {
    char p[PATH_CAP];
    lsim_json_path_key(p, path, "shapes");
    if (dim == 2)
      return lsim_parse_fail(c, p, 0, "their center of mass is at [%g, %g], not at the body origin: place the shapes around it, or give \"inertia\"",
                  com[0], com[1]);
    return lsim_parse_fail(c, p, 0, "their center of mass is at [%g, %g, %g], not at the body origin: place the shapes around it, or give \"inertia\"",
                com[0], com[1], com[2]);
  }
  /* 2-D keeps I_zz only. */
  if (dim == 2) {
    const double izz = I[8];
    memset(I, 0, sizeof I);
    I[8] = izz;
  }
  for (int k = 0; k < 9; ++k)
    if (!isfinite(I[k])) return lsim_parse_fail(c, path, 0, "the computed inertia is not finite (sizes too large)");
  double imax = 0.0;
  for (int k = 0; k < 9; ++k) imax = fmax(imax, fabs(I[k]));
  if (imax > LSIM_SCENE_MASS_MAX) {
    char p[PATH_CAP];
    lsim_json_path_key(p, path, has_mass ? "mass" : "density");
    return lsim_parse_fail(c, p, 0, "gives an inertia entry of %g kg m^2 with these shapes, more than %g, the largest a scene may give (products of inertias overflow double precision past about 1e154)",
                           imax, LSIM_SCENE_MASS_MAX);
  }
  memcpy(b->inertia, I, sizeof I);
  return 0;
}

/* "force" (and "torque") of a dynamic body: vectors or a table of width nv. */
static int parse_force_nd(LsimParseCtx *c, const json_t *o, const char *path, LsimBody *b) {
  const int dim = c->dim, nv = dim == 2 ? 3 : 6, nt = dim == 2 ? 1 : 3;
  const json_t *force = json_object_get(o, "force"), *torque = json_object_get(o, "torque");
  b->force.width = nv;
  char fp[PATH_CAP], tp[PATH_CAP];
  lsim_json_path_key(fp, path, "force");
  lsim_json_path_key(tp, path, "torque");
  /* A table carries the torque in its columns. */
  if (force && json_is_object(force)) {
    if (torque)
      return lsim_parse_fail(c, tp, 1, "give the torque as the last %d column%s of the force table", nt, nt > 1 ? "s" : "");
    return lsim_parse_schedule(c, force, fp, nv, &b->force);
  }
  if (!force && !torque) return 0;
  double row[6] = {0};
  if (force && !json_is_array(force))
    return lsim_parse_fail(c, fp, 0, "must be [fx, %s] (N) or {\"table\": [[t, %s], ...]}, got %s",
                dim == 2 ? "fy" : "fy, fz", dim == 2 ? "fx, fy, torque" : "fx, fy, fz, tx, ty, tz",
                lsim_json_type_name(force));
  if (force && lsim_parse_read_vec(c, force, fp, dim, row) < 0) return LSIM_INVALID_INPUT;
  if (dim == 2 && torque && !json_is_number(torque))
    return lsim_parse_fail(c, tp, 0, "must be a number in 2-D (N m about z), got %s", lsim_json_type_name(torque));
  if (dim == 2 && torque) row[2] = json_number_value(torque);
  if (dim == 3 && torque && lsim_parse_read_vec(c, torque, tp, 3, row + 3) < 0) return LSIM_INVALID_INPUT;
  return constant_schedule(&b->force, row, nv);
}

/* "grid": count, spacing, jitter. */
static int parse_grid(LsimParseCtx *c, const json_t *o, const char *path, NdBody *t) {
  int rc;
  const json_t *g = lsim_parse_get_object(c, o, path, "grid", &rc);
  if (!g) return rc;
  char gp[PATH_CAP], cp[PATH_CAP];
  lsim_json_path_key(gp, path, "grid");
  lsim_json_path_key(cp, gp, "count");
  static const char *const keys[] = {"count", "spacing", "jitter", NULL};
  if (lsim_parse_check_keys(c, g, gp, keys) < 0) return LSIM_INVALID_INPUT;
  t->grid = 1;
  /* Counts: integers >= 1, product at most MAX_COPIES. */
  double cnt[3] = {1, 1, 1};
  rc = lsim_parse_get_vec(c, g, gp, "count", c->dim, cnt);
  if (rc < 0) return rc;
  if (rc == 0) return lsim_parse_missing(c, gp, "count", c->dim == 2 ? "copies along x and y: [nx, ny]" : "copies along x, y and z: [nx, ny, nz]");
  double total = 1.0;
  for (int k = 0; k < c->dim; ++k) {
    if (!(cnt[k] >= 1 && cnt[k] == floor(cnt[k]) && cnt[k] <= MAX_COPIES)) {
      char ep[PATH_CAP];
      lsim_json_path_index(ep, cp, (size_t)k);
      return lsim_parse_fail(c, ep, 0, "must be an integer in [1, %d], got %.17g", MAX_COPIES, cnt[k]);
    }
    t->count[k] = (int)cnt[k];
    total *= cnt[k];
  }
  if (total > MAX_COPIES) return lsim_parse_fail(c, cp, 0, "makes %.0f copies; at most %d", total, MAX_COPIES);
  /* Spacing: > 0 along the axes with more than one copy. */
  rc = lsim_parse_get_vec(c, g, gp, "spacing", c->dim, t->spacing);
  if (rc < 0) return rc;
  if (rc == 0) return lsim_parse_missing(c, gp, "spacing", "distances between neighbouring copies, m");
  char sp[PATH_CAP];
  lsim_json_path_key(sp, gp, "spacing");
  for (int k = 0; k < c->dim; ++k) {
    if (t->count[k] == 1 || t->spacing[k] > 0) continue;
    char ep[PATH_CAP];
    lsim_json_path_index(ep, sp, (size_t)k);
    return lsim_parse_fail(c, ep, 0, "must be > 0 (%d copies along this axis), got %g", t->count[k], t->spacing[k]);
  }
  /* Jitter: amplitude >= 0, seed an integer in [0, 2^53]. */
  const json_t *j = lsim_parse_get_object(c, g, gp, "jitter", &rc);
  if (!j) return rc;
  char jp[PATH_CAP];
  lsim_json_path_key(jp, gp, "jitter");
  static const char *const jkeys[] = {"amplitude", "seed", NULL};
  if (lsim_parse_check_keys(c, j, jp, jkeys) < 0) return LSIM_INVALID_INPUT;
  rc = lsim_parse_get_ranged(c, j, jp, "amplitude", GE0, &t->amplitude);
  if (rc < 0) return rc;
  if (rc == 0) return lsim_parse_missing(c, jp, "amplitude", "the largest offset along each axis, m");
  double seed = 0.0;
  if (lsim_parse_get_number(c, j, jp, "seed", &seed) < 0) return LSIM_INVALID_INPUT;
  /* An integer as written is checked as an integer: 2^53 + 1 read as a double is 2^53,
     which passed, giving seed 2^53's positions. */
  const json_t *sv = json_object_get(j, "seed");
  const int int_ok = !sv || !json_is_integer(sv) ||
                     (json_integer_value(sv) >= 0 && json_integer_value(sv) <= ((json_int_t)1 << 53));
  if (!int_ok || !(seed >= 0 && seed <= 9007199254740992.0 && seed == floor(seed))) {
    char ep[PATH_CAP];
    lsim_json_path_key(ep, jp, "seed");
    if (sv && json_is_integer(sv))
      return lsim_parse_fail(c, ep, 0, "must be an integer in [0, 2^53], got %" JSON_INTEGER_FORMAT,
                             json_integer_value(sv));
    return lsim_parse_fail(c, ep, 0, "must be an integer in [0, 2^53], got %.17g", seed);
  }
  t->seed = (uint64_t)seed;
  return 0;
}

/* One entry of "bodies" in a 2-D/3-D scene into *t (the caller frees it with
 * nd_body_free, also on error). */
static int parse_body_nd(LsimParseCtx *c, const json_t *o, const char *path, size_t index, NdBody *t) {
  memset(t, 0, sizeof *t);
  t->b = lsim_default_body();
  t->count[0] = t->count[1] = t->count[2] = 1;
  const int dim = c->dim, nv = dim == 2 ? 3 : 6;
  LsimBody *b = &t->b;
  b->force.width = b->kinematic_velocity.width = nv;
  if (!json_is_object(o)) return lsim_parse_fail(c, path, 0, "must be an object, got %s", lsim_json_type_name(o));

  /* The type first: it decides which keys apply. */
  char type[32] = "dynamic";
  if (lsim_parse_get_string(c, o, path, "type", type, sizeof type, 0) < 0) return LSIM_INVALID_INPUT;
  if (strcmp(type, "dynamic") == 0) b->type = LSIM_BODY_DYNAMIC;
  else if (strcmp(type, "static") == 0) b->type = LSIM_BODY_STATIC;
  else if (strcmp(type, "kinematic") == 0) b->type = LSIM_BODY_KINEMATIC;
  else {
    char p[PATH_CAP];
    lsim_json_path_key(p, path, "type");
    return lsim_parse_fail(c, p, 0, "must be \"dynamic\", \"static\" or \"kinematic\", got \"%s\"", type);
  }
  static const char *const only1d[] = {"width", "ground_mu", NULL};
  if (lsim_parse_reject_keys(c, o, path, only1d,
                  "applies to 1-D scenes only (2-D/3-D bodies have \"shapes\", each with its \"mu\")") < 0)
    return LSIM_INVALID_INPUT;
  static const char *const keys[] = {"name", "type", "position", "orientation", "velocity",
                                     "angular_velocity", "mass", "density", "inertia", "shapes",
                                     "force", "torque", "motion", "grid", "restitution", NULL};
  if (lsim_parse_check_keys(c, o, path, keys) < 0) return LSIM_INVALID_INPUT;
  static const char *const not_static[] = {"velocity", "angular_velocity", "motion", "mass",
                                           "density", "inertia", "force", "torque", NULL};
  static const char *const not_kin[] = {"mass", "density", "inertia", "force", "torque", NULL};
  static const char *const not_dyn[] = {"motion", NULL};
  int rc = b->type == LSIM_BODY_STATIC
               ? lsim_parse_reject_keys(c, o, path, not_static, "does not apply to a static body (it never moves)")
           : b->type == LSIM_BODY_KINEMATIC
               ? lsim_parse_reject_keys(c, o, path, not_kin, "does not apply to a kinematic body (its velocity is prescribed)")
               : lsim_parse_reject_keys(c, o, path, not_dyn,
                             "applies to kinematic bodies only (a dynamic body's \"velocity\" is its initial value)");
  if (rc < 0) return rc;

  /* Name (default "body<index>") and pose. */
  rc = lsim_parse_get_string(c, o, path, "name", b->name, sizeof b->name, 1);
  if (rc < 0) return rc;
  t->named = rc;
  if (!rc) snprintf(b->name, sizeof b->name, "body%zu", index);
  double pos[3] = {0.0, 0.0, 0.0}, quat[4] = {1.0, 0.0, 0.0, 0.0}, theta = 0.0;
  if (lsim_parse_get_vec(c, o, path, "position", dim, pos) < 0) return LSIM_INVALID_INPUT;
  if (get_orientation(c, o, path, "orientation", quat, &theta) < 0) return LSIM_INVALID_INPUT;
  if (lsim_parse_get_restitution(c, o, path, &b->restitution) < 0) return LSIM_INVALID_INPUT;
  memset(b->pose, 0, sizeof b->pose);
  if (dim == 2) {
    b->pose[0] = pos[0], b->pose[1] = pos[1], b->pose[2] = theta;
  } else {
    memcpy(b->pose, pos, 3 * sizeof(double));
    memcpy(b->pose + 3, quat, 4 * sizeof(double));
  }

  /* Shapes, with names unique within the body. */
  const json_t *shapes = json_object_get(o, "shapes");
  char sp[PATH_CAP];
  lsim_json_path_key(sp, path, "shapes");
  if (shapes && !json_is_array(shapes)) return lsim_parse_fail(c, sp, 0, "must be an array, got %s", lsim_json_type_name(shapes));
  const size_t ns = shapes ? json_array_size(shapes) : 0;
  if (ns > 4096) return lsim_parse_fail(c, sp, 0, "too many shapes (%zu; at most 4096)", ns);
  t->shapes = calloc(ns + 1, sizeof *t->shapes);
  if (!t->shapes) return LSIM_OUT_OF_MEMORY;
  for (size_t k = 0; k < ns; ++k) {
    char p[PATH_CAP];
    lsim_json_path_index(p, sp, k);
    if (parse_shape(c, json_array_get(shapes, k), p, k, b->type, &t->shapes[k]) < 0) return LSIM_INVALID_INPUT;
    t->nshapes++;
    for (size_t q = 0; q < k; ++q) {
      if (strcmp(t->shapes[q].name, t->shapes[k].name) != 0) continue;
      char np[PATH_CAP];
      lsim_json_path_key(np, p, "name");
      return lsim_parse_fail(c, json_object_get(json_array_get(shapes, k), "name") ? np : p, 0,
                  "shape name '%s' is already used by %s[%zu]", t->shapes[k].name, sp, q);
    }
  }

  /* Mass properties: dynamic bodies only (the others are not pushed: mass 0). */
  if (b->type == LSIM_BODY_DYNAMIC) {
    if (mass_properties(c, o, path, t) < 0) return LSIM_INVALID_INPUT;
  } else {
    b->mass = 0.0;
  }

  /* Velocities: dynamic initial values, kinematic prescribed (a constant or "motion"). */
  const int nw = dim == 2 ? 1 : 3;
  double v[6] = {0};
  if (lsim_parse_get_vec(c, o, path, "velocity", dim, v) < 0) return LSIM_INVALID_INPUT;
  if (dim == 2) {
    if (lsim_parse_get_number(c, o, path, "angular_velocity", &v[2]) < 0) return LSIM_INVALID_INPUT;
  } else if (lsim_parse_get_vec(c, o, path, "angular_velocity", nw, v + 3) < 0) {
    return LSIM_INVALID_INPUT;
  }
  memcpy(t->v, v, sizeof v);
  if (b->type == LSIM_BODY_KINEMATIC) {
    const json_t *motion = json_object_get(o, "motion");
    if (motion) {
      static const char *const vel_keys[] = {"velocity", "angular_velocity", NULL};
      if (lsim_parse_reject_keys(c, o, path, vel_keys, "give either \"motion\" (a table) or constant velocities, not both") < 0)
        return LSIM_INVALID_INPUT;
      char mp[PATH_CAP];
      lsim_json_path_key(mp, path, "motion");
      if (!json_is_object(motion))
        return lsim_parse_fail(c, mp, 0, "must be {\"table\": [[t, %s], ...]}, got %s",
                    dim == 2 ? "vx, vy, omega" : "vx, vy, vz, wx, wy, wz", lsim_json_type_name(motion));
      if (lsim_parse_schedule(c, motion, mp, nv, &b->kinematic_velocity) < 0) return LSIM_INVALID_INPUT;
    } else if (constant_schedule(&b->kinematic_velocity, v, nv) < 0) {
      return LSIM_OUT_OF_MEMORY;
    }
    schedule_row(&b->kinematic_velocity, 0.0, t->v);
  }

  /* Applied force and torque; then replication. */
  if (b->type == LSIM_BODY_DYNAMIC && parse_force_nd(c, o, path, b) < 0) return LSIM_INVALID_INPUT;
  return parse_grid(c, o, path, t);
}

/* Model bodies of a 2-D/3-D scene: where each came from, for the checks. */
typedef struct NdOrigin {
  size_t json_index;     /* in "bodies" */
  int named;
  double v[6];           /* initial velocity */
} NdOrigin;

/* Adds the body (or its grid copies) with its shapes to the model. */
static int add_nd_body(LsimParseCtx *c, LsimModel *m, const NdBody *t, const char *path, size_t index,
                       NdOrigin **org, size_t *org_cap) {
  const int dim = c->dim;
  const size_t copies = (size_t)t->count[0] * (size_t)t->count[1] * (size_t)t->count[2];
  if ((size_t)m->nbodies + copies > (size_t)INT_MAX / 2)
    return lsim_parse_fail(c, path, 0, "too many bodies");
  if ((size_t)m->nbodies + copies > *org_cap) {
    const size_t cap = 2 * ((size_t)m->nbodies + copies);
    NdOrigin *g = realloc(*org, cap * sizeof *g);
    if (!g) return LSIM_OUT_OF_MEMORY;
    *org = g;
    *org_cap = cap;
  }
  /* Copy names must fit: NAME_i_j(_k). */
  if (t->grid) {
    char probe[128];
    const int n = dim == 2 ? snprintf(probe, sizeof probe, "%s_%d_%d", t->b.name, t->count[0] - 1, t->count[1] - 1)
                           : snprintf(probe, sizeof probe, "%s_%d_%d_%d", t->b.name, t->count[0] - 1,
                                      t->count[1] - 1, t->count[2] - 1);
    if (n >= (int)sizeof t->b.name) {
      char p[PATH_CAP];
      if (t->named) lsim_json_path_key(p, path, "name");
      else snprintf(p, sizeof p, "%s", path);
      return lsim_parse_fail(c, p, 0, "the grid copies' names (like '%s') would be longer than %zu bytes",
                  probe, sizeof t->b.name - 1);
    }
  }
  /* Copies in the order i (x), j (y), k (z), k fastest; the jitter draws dim offsets per
     copy in that order. */
  LsimRng rng = lsim_rng(t->seed);
  for (int i = 0; i < t->count[0]; ++i)
    for (int j = 0; j < t->count[1]; ++j)
      for (int k = 0; k < t->count[2]; ++k) {
        LsimBody b = t->b;
        const int ijk[3] = {i, j, k};
        for (int a = 0; a < dim; ++a) {
          const double jit = t->amplitude > 0 ? lsim_rng_range(&rng, -t->amplitude, t->amplitude) : 0.0;
          b.pose[a] += ijk[a] * t->spacing[a] + jit;
          if (isfinite(b.pose[a])) continue;
          char p[PATH_CAP];
          lsim_json_path_key(p, path, "position");
          if (dim == 2) return lsim_parse_fail(c, p, 0, "grid copy %d, %d lands at a position that is not finite", i, j);
          return lsim_parse_fail(c, p, 0, "grid copy %d, %d, %d lands at a position that is not finite", i, j, k);
        }
        if (t->grid) {
          char full[128]; /* fits in b.name: checked above */
          if (dim == 2) snprintf(full, sizeof full, "%s_%d_%d", t->b.name, i, j);
          else snprintf(full, sizeof full, "%s_%d_%d_%d", t->b.name, i, j, k);
          memcpy(b.name, full, sizeof b.name - 1);
          b.name[sizeof b.name - 1] = '\0';
        }
        /* Each copy owns its schedules. */
        int rc = copy_schedule(&b.force, &t->b.force);
        if (rc == 0) {
          rc = copy_schedule(&b.kinematic_velocity, &t->b.kinematic_velocity);
          if (rc < 0) lsim_schedule_free(&b.force);
        }
        if (rc == 0) rc = lsim_parse_add_body(m, &b);
        if (rc < 0) return rc;
        const int bi = m->nbodies - 1;
        NdOrigin *og = &(*org)[bi];
        og->json_index = index;
        og->named = t->named;
        memcpy(og->v, t->v, sizeof og->v);
        for (int s = 0; s < t->nshapes; ++s) {
          LsimShape sh = t->shapes[s];
          sh.body = bi;
          if (lsim_model_add_shape(m, &sh) < 0) return LSIM_OUT_OF_MEMORY;
        }
      }
  return 0;
}

/* A body's name and index, ordered by name, then index. */
typedef struct NameRef {
  const char *name;
  int index;
} NameRef;
static int by_name(const void *a, const void *b) {
  const NameRef *x = a, *y = b;
  const int d = strcmp(x->name, y->name);
  return d ? d : (x->index > y->index) - (x->index < y->index);
}

int lsim_parse_duplicate_name(const LsimModel *m, int *dup, int *earlier) {
  *dup = *earlier = -1;
  if (m->nbodies < 2) return 0;
  NameRef *r = malloc((size_t)m->nbodies * sizeof *r);
  if (!r) return LSIM_OUT_OF_MEMORY;
  for (int i = 0; i < m->nbodies; ++i) r[i] = (NameRef){m->bodies[i].name, i};
  qsort(r, (size_t)m->nbodies, sizeof *r, by_name);
  /* In each run of equal names the second is the earliest duplicate of the first. */
  for (int k = 1; k < m->nbodies; ++k) {
    if (strcmp(r[k].name, r[k - 1].name) != 0) continue;
    if (k >= 2 && strcmp(r[k].name, r[k - 2].name) == 0) continue;
    if (*dup < 0 || r[k].index < *dup) { *dup = r[k].index; *earlier = r[k - 1].index; }
  }
  free(r);
  return *dup >= 0;
}

/* Names unique among all bodies (grid copies included): the first body, in model order,
 * whose name an earlier body has is reported. */
static int check_names_nd(LsimParseCtx *c, const LsimModel *m, const NdOrigin *org) {
  int bad, first;
  const int rc = lsim_parse_duplicate_name(m, &bad, &first);
  if (rc < 0) return rc;
  if (rc == 0) return 0;
  char p[PATH_CAP], q[PATH_CAP];
  lsim_json_path_index(p, "bodies", org[bad].json_index);
  lsim_json_path_index(q, "bodies", org[first].json_index);
  if (org[bad].named) lsim_json_path_key(p, p, "name");
  return lsim_parse_fail(c, p, 0, "name '%s' is already used by %s%s", m->bodies[bad].name, q,
              org[bad].named ? "" : " (give this one a \"name\")");
}

/* "bodies" of a 2-D/3-D scene into m (finalized) and the initial state. */
int lsim_parse_bodies_nd(LsimParseCtx *c, const json_t *bodies, LsimModel *m, LsimState *st) {
  const size_t nb = json_array_size(bodies);
  NdOrigin *org = NULL;
  size_t cap = 0;
  int rc = 0, ndynamic = 0;
  for (size_t k = 0; k < nb && rc == 0; ++k) {
    char p[PATH_CAP];
    lsim_json_path_index(p, "bodies", k);
    NdBody t;
    rc = parse_body_nd(c, json_array_get(bodies, k), p, k, &t);
    if (rc == 0) rc = add_nd_body(c, m, &t, p, k, &org, &cap);
    ndynamic += rc == 0 && t.b.type == LSIM_BODY_DYNAMIC;
    nd_body_free(&t);
  }
  if (rc == 0) rc = check_names_nd(c, m, org);
  if (rc == 0 && ndynamic == 0) rc = lsim_parse_fail(c, "bodies", 0, "at least one dynamic body is required");

  /* Coordinates and the initial state: q = the pose, v = the velocities. */
  if (rc == 0) rc = lsim_model_finalize(m);
  if (rc == 0) rc = lsim_state_init(st, m);
  for (int i = 0; rc == 0 && i < m->nbodies; ++i) {
    const LsimBody *b = &m->bodies[i];
    if (b->type == LSIM_BODY_STATIC) continue;
    memcpy(st->q + b->q_offset, b->pose, (size_t)b->nq * sizeof(double));
    memcpy(st->v + b->v_offset, org[i].v, (size_t)b->nv * sizeof(double));
  }
  /* Each body's place in "bodies", for messages after parsing (the overlap check). */
  if (rc == 0 && m->nbodies > 0) {
    c->body_json = malloc((size_t)m->nbodies * sizeof *c->body_json);
    if (!c->body_json) rc = LSIM_OUT_OF_MEMORY;
    for (int i = 0; rc == 0 && i < m->nbodies; ++i) c->body_json[i] = org[i].json_index;
  }
  free(org);
  return rc;
}

int lsim_parse_check_overlap_nd(LsimParseCtx *c, const LsimModel *m, const LsimState *st) {
  if (m->allow_initial_overlap || m->nbodies == 0) return 0;
  /* The initial state's contacts, found at rest (v_free = 0: gaps <= margin). */
  double *vfree = calloc((size_t)m->nv + 1, sizeof *vfree);
  LsimContactSet set;
  memset(&set, 0, sizeof set);
  int rc = vfree ? lsim_detect_contacts(m, st, vfree, &set) : LSIM_OUT_OF_MEMORY;
  free(vfree);
  /* The deepest overlap beyond the tolerance, and how many body pairs overlap so (a box
     on a box overlaps at up to 4 contact points: one pair). */
  int worst = -1, count = 0;
  for (int k = 0; rc == 0 && k < set.count; ++k) {
    const LsimContact *ct = &set.contacts[k];
    if (ct->kind != LSIM_CONTACT_NORMAL || !(-ct->gap > m->overlap_tolerance)) continue;
    int seen = 0;
    for (int j = 0; j < k && !seen; ++j) {
      const LsimContact *cj = &set.contacts[j];
      seen = cj->kind == LSIM_CONTACT_NORMAL && -cj->gap > m->overlap_tolerance &&
             cj->body[0] == ct->body[0] && cj->body[1] == ct->body[1];
    }
    count += !seen;
    if (worst < 0 || ct->gap < set.contacts[worst].gap) worst = k;
  }
  if (rc == 0 && worst >= 0) {
    const LsimContact *ct = &set.contacts[worst];
    /* Point at the moving body of the pair (body[0] when both move). */
    int a = ct->body[0], b = ct->body[1];
    if (m->bodies[a].type == LSIM_BODY_STATIC && b >= 0) a = ct->body[1], b = ct->body[0];
    char p[PATH_CAP], q[PATH_CAP], more[64] = "";
    lsim_json_path_index(p, "bodies", c->body_json[a]);
    lsim_json_path_key(p, p, "position");
    if (b >= 0) lsim_json_path_index(q, "bodies", c->body_json[b]);
    else snprintf(q, sizeof q, "the ground");
    if (count > 1) snprintf(more, sizeof more, "; %d pairs of bodies overlap by more", count);
    rc = lsim_parse_fail(c, p, 0,
                         "'%s' overlaps '%s' (%s) at the start by %.6g m (more than "
                         "contact.overlap_tolerance %g m%s): move them apart, or set "
                         "\"contact\": {\"allow_initial_overlap\": true} to let the step push "
                         "them out at contact.max_correction_speed (%g m/s)",
                         m->bodies[a].name, b >= 0 ? m->bodies[b].name : "ground", q, -ct->gap,
                         m->overlap_tolerance, more, m->max_correction_speed);
  }
  lsim_contacts_free(&set);
  return rc;
}

