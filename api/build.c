/* build.c: a world built in code through the public API (lsim_sim_create, add_body,
 * add_shape, add_joint, set_contact, start): the same model and checks as a scene's,
 * without JSON. */
#include "api/api.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact/constraints.h"
#include "contact/contact.h"
#include "contact/math3.h"

#define STRETCH_TOL 1e-9 /* m: a tether may start this much beyond its length (as scenes) */

/* A quantity that must be > 0 (divided by, or a size): a normal number, as the scene reader
 * has it (scene/json.c): a subnormal mass (1e-320) has no finite inverse, and the first step
 * diverged. NaN is not. */
static int positive(double x) { return x >= DBL_MIN; }

/* What to add to "must be > 0, got %g" for x: why a subnormal x is refused, else "". */
static const char *subnormal_note(double x) {
  return x > 0.0 && x < DBL_MIN ? " (at least 2.2250738585072014e-308, the smallest normal number)" : "";
}

LsimBodyDef lsim_default_body_def(void) {
  LsimBodyDef d;
  memset(&d, 0, sizeof d);
  d.type = LSIM_DYNAMIC;
  d.mass = 1.0;
  d.inertia[0] = d.inertia[1] = d.inertia[2] = 1.0;
  d.quaternion[0] = 1.0;
  return d;
}

/* The model's shape defaults (lsim_default_shape), as a definition. */
LsimShapeDef lsim_default_shape_def(void) {
  const LsimShape s = lsim_default_shape();
  LsimShapeDef d;
  memset(&d, 0, sizeof d);
  d.type = (int)s.type;
  memcpy(d.position, s.pos, sizeof d.position);
  memcpy(d.quaternion, s.rot, sizeof d.quaternion);
  d.radius = s.radius;
  memcpy(d.half, s.half, sizeof d.half);
  d.mu = s.mu;
  return d;
}

int lsim_sim_create(LsimSim **out, int dimension, double h, char *err, size_t errlen) {
  if (err && errlen) err[0] = '\0'; /* a success reads "" (lcpsim.h) */
  if (!out) return lsim_api_err(err, errlen, LSIM_INVALID_INPUT, "out is NULL");
  *out = NULL;
  if (dimension < 1 || dimension > 3)
    return lsim_api_err(err, errlen, LSIM_INVALID_INPUT, "dimension must be 1, 2 or 3, got %d", dimension);
  if (!positive(h) || !isfinite(h))
    return lsim_api_err(err, errlen, LSIM_INVALID_INPUT, "the time step must be > 0, got %g%s", h, subnormal_note(h));
  LsimSim *s = lsim_api_alloc();
  if (!s) return lsim_api_err(err, errlen, LSIM_OUT_OF_MEMORY, "out of memory");
  s->model.dimension = dimension;
  s->model.time_step = h;
  s->model.friction_directions = dimension == 3 ? 4 : 2;
  *out = s;
  return 0;
}

/* Not started yet, or an error naming what. */
static int building(LsimSim *sim, const char *what) {
  lsim_api_begin(sim);
  if (!sim) return LSIM_INVALID_INPUT;
  if (sim->started)
    return lsim_api_fail(sim, LSIM_INVALID_INPUT, "%s: the world is started; add before lsim_sim_start", what);
  return 0;
}

static int all_finite(const double *x, int n) {
  for (int i = 0; i < n; ++i)
    if (!isfinite(x[i])) return 0;
  return 1;
}

int lsim_sim_set_gravity(LsimSim *sim, const double *g) {
  const int rc = building(sim, "set_gravity");
  if (rc < 0) return rc;
  if (!g || !all_finite(g, sim->model.dimension))
    return lsim_api_fail(sim, LSIM_INVALID_INPUT, "set_gravity: needs %d finite numbers", sim->model.dimension);
  memset(sim->model.gravity, 0, sizeof sim->model.gravity);
  memcpy(sim->model.gravity, g, (size_t)sim->model.dimension * sizeof *g);
  return 0;
}

/* An orientation key of another dimension (the 2-D angle outside 2-D, a 3-D quaternion
 * outside 3-D) that would be ignored: its name, or NULL. The defaults (angle 0, quaternion
 * (1, 0, 0, 0)) and an all-zero quaternion (a zeroed definition) are no key. */
static const char *foreign_orientation(int dim, double angle, const double q[4]) {
  if (dim != 2 && angle != 0.0) return "angle";
  const int identity = q[0] == 1.0 && q[1] == 0.0 && q[2] == 0.0 && q[3] == 0.0;
  const int zero = q[0] == 0.0 && q[1] == 0.0 && q[2] == 0.0 && q[3] == 0.0;
  if (dim != 3 && !identity && !zero) return "quaternion";
  return NULL;
}

/* The quaternion q normalized into out, or NULL; else what is wrong with it (a value that
 * is not finite, or all zero). */
static const char *unit_quat(const double q[4], double out[4]) {
  if (!all_finite(q, 4)) return "the quaternion has a value that is not finite";
  const double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (!(n > 0.0) || !isfinite(n)) return "the quaternion is zero (or too small or large to normalize)";
  for (int k = 0; k < 4; ++k) out[k] = q[k] / n;
  return NULL;
}

int lsim_sim_add_body(LsimSim *sim, const LsimBodyDef *def) {
  int rc = building(sim, "add_body");
  if (rc < 0) return rc;
  LsimModel *m = &sim->model;
  const int dim = m->dimension, i = m->nbodies;
  if (!def) return lsim_api_fail(sim, LSIM_INVALID_INPUT, "add_body: def is NULL");
  if (def->type != LSIM_DYNAMIC && def->type != LSIM_STATIC && def->type != LSIM_KINEMATIC)
    return lsim_api_fail(sim, LSIM_INVALID_INPUT, "add_body %d: unknown type %d", i, def->type);
  /* The value that is not finite named, and the body (said 'add_body 0: a value is not
     finite' of a NaN mass) */
  const char *nonfinite = !all_finite(def->position, 3) ? "position"
                          : !all_finite(def->velocity, 6) ? "velocity"
                          : !isfinite(def->angle)         ? "angle"
                          : !all_finite(def->inertia, 3)  ? "inertia"
                          : !isfinite(def->width)         ? "width"
                          : !isfinite(def->mass)          ? "mass"
                                                          : NULL;
  if (nonfinite && def->name && def->name[0])
    return lsim_api_fail(sim, LSIM_INVALID_INPUT, "add_body '%.47s': %s has a value that is not finite",
                         def->name, nonfinite);
  if (nonfinite)
    return lsim_api_fail(sim, LSIM_INVALID_INPUT, "add_body %d: %s has a value that is not finite", i,
                         nonfinite);
  LsimBody b = lsim_default_body();
  if (def->name) {
    if (!def->name[0] || strlen(def->name) >= sizeof b.name)
      return lsim_api_fail(sim, LSIM_INVALID_INPUT, "add_body %d: the name must have 1 to %zu bytes", i,
                           sizeof b.name - 1);
    snprintf(b.name, sizeof b.name, "%s", def->name);
  } else {
    snprintf(b.name, sizeof b.name, "body%d", i);
  }
  if (lsim_sim_body_index(sim, b.name) >= 0)
    return lsim_api_fail(sim, LSIM_INVALID_INPUT, "add_body %d: the name '%s' is already used", i, b.name);
  b.type = (LsimBodyType)def->type;
  /* Mass and inertia: dynamic bodies only. */
  b.mass = def->type == LSIM_DYNAMIC ? def->mass : 0.0;
  if (def->type == LSIM_DYNAMIC && !positive(def->mass))
    return lsim_api_fail(sim, LSIM_INVALID_INPUT, "add_body '%s': mass must be > 0, got %g%s", b.name, def->mass,
                         subnormal_note(def->mass));
  memset(b.inertia, 0, sizeof b.inertia);
  if (def->type == LSIM_DYNAMIC && dim > 1) {
    for (int k = dim == 2 ? 2 : 0; k < 3; ++k)
      if (!positive(def->inertia[k]))
        return lsim_api_fail(sim, LSIM_INVALID_INPUT, "add_body '%s': inertia[%d] must be > 0, got %g%s", b.name, k,
                             def->inertia[k], subnormal_note(def->inertia[k]));
    /* 3-D: moments a mass distribution can have (contact/world.h). */
    const int bad = dim == 3 ? lsim_inertia_triangle_violation(def->inertia) : 0;
    if (bad)
      return lsim_api_fail(sim, LSIM_INVALID_INPUT, "add_body '%s': inertia[%d] = %g is more than the sum of "
                           "the other two moments, %g: no mass distribution has such moments", b.name, bad - 1,
                           def->inertia[bad - 1], def->inertia[0] + def->inertia[1] + def->inertia[2] - def->inertia[bad - 1]);
    if (dim == 2) b.inertia[8] = def->inertia[2];
    else b.inertia[0] = def->inertia[0], b.inertia[4] = def->inertia[1], b.inertia[8] = def->inertia[2];
  }
  /* An orientation of another dimension: refused, not ignored (the body started unrotated). */
  const char *foreign = foreign_orientation(dim, def->angle, def->quaternion);
  if (foreign)
    return lsim_api_fail(sim, LSIM_INVALID_INPUT, "add_body '%s': %s applies to %s bodies only (this world is %d-D)",
                         b.name, foreign, foreign[0] == 'a' ? "2-D" : "3-D", dim);
  if (!(def->restitution >= 0.0 && def->restitution <= 1.0))
    return lsim_api_fail(sim, LSIM_INVALID_INPUT, "add_body '%s': restitution must be in [0, 1], got %g", b.name,
                         def->restitution);
  b.restitution = def->restitution;
  /* The 1-D keys: refused where they would be ignored, as the scene reader refuses them
     (2-D/3-D: the ground is a static body with a plane shape, its friction the shapes' mu). */
  if (dim > 1 && (def->ground_mu != 0.0 || def->width != 0.0 || def->side != 0))
    return lsim_api_fail(sim, LSIM_INVALID_INPUT,
                         "add_body '%s': %s applies to 1-D bodies only (in %d-D friction with the ground is the "
                         "mu of the shapes touching, a plane on a static body: add_shape), got %g",
                         b.name, def->ground_mu != 0.0 ? "ground_mu" : def->width != 0.0 ? "width" : "side", dim,
                         def->ground_mu != 0.0 ? def->ground_mu : def->width != 0.0 ? def->width : (double)def->side);
  if (dim == 1 && def->type != LSIM_DYNAMIC && def->ground_mu != 0.0)
    return lsim_api_fail(sim, LSIM_INVALID_INPUT, "add_body '%s': ground_mu applies to dynamic bodies only, got %g",
                         b.name, def->ground_mu);
  if (dim == 1 && def->type == LSIM_STATIC && def->width != 0.0)
    return lsim_api_fail(sim, LSIM_INVALID_INPUT, "add_body '%s': a 1-D wall has no width (it is a half-line), got %g",
                         b.name, def->width);
  if (dim == 1 && def->type != LSIM_STATIC && def->side != 0)
    return lsim_api_fail(sim, LSIM_INVALID_INPUT, "add_body '%s': side applies to 1-D walls (static bodies) only, got %d",
                         b.name, def->side);
  /* Pose. */
  memset(b.pose, 0, sizeof b.pose);
  if (dim == 1) {
    b.pose[0] = def->position[0];
    if (def->type == LSIM_STATIC) {
      if (def->side != -1 && def->side != 1)
        return lsim_api_fail(sim, LSIM_INVALID_INPUT, "add_body '%s': a 1-D wall needs side -1 or +1, got %d", b.name,
                             def->side);
      b.shape = LSIM_SHAPE_HALFLINE;
      b.side = def->side;
    } else {
      if (!(def->width >= 0.0))
        return lsim_api_fail(sim, LSIM_INVALID_INPUT, "add_body '%s': width must be >= 0, got %g", b.name, def->width);
      b.shape = LSIM_SHAPE_SEGMENT;
      b.width = def->width;
      if (!(def->ground_mu >= 0.0) || !isfinite(def->ground_mu))
        return lsim_api_fail(sim, LSIM_INVALID_INPUT, "add_body '%s': ground_mu must be finite and >= 0, got %g",
                             b.name, def->ground_mu);
      b.ground_mu = def->ground_mu;
    }
  } else if (dim == 2) {
    b.pose[0] = def->position[0], b.pose[1] = def->position[1], b.pose[2] = def->angle;
  } else {
    memcpy(b.pose, def->position, 3 * sizeof(double));
    const char *bad = unit_quat(def->quaternion, b.pose + 3);
    if (bad) return lsim_api_fail(sim, LSIM_INVALID_INPUT, "add_body '%s': %s", b.name, bad);
  }
  /* Velocity: prescribed (kinematic, a constant schedule) or initial (dynamic). */
  const int nv = dim == 1 ? 1 : dim == 2 ? 3 : 6;
  if (def->type == LSIM_KINEMATIC) {
    b.kinematic_velocity.width = nv;
    b.kinematic_velocity.constant = def->velocity[0];
    if (nv > 1) {
      b.kinematic_velocity.value = malloc((size_t)nv * sizeof(double));
      if (!b.kinematic_velocity.value) return lsim_api_fail(sim, LSIM_OUT_OF_MEMORY, "out of memory");
      memcpy(b.kinematic_velocity.value, def->velocity, (size_t)nv * sizeof(double));
    }
  }
  if (i >= sim->build_cap) {
    const int cap = sim->build_cap ? 2 * sim->build_cap : 16;
    LsimBuildBody *g = realloc(sim->build, (size_t)cap * sizeof *g);
    if (!g) {
      lsim_schedule_free(&b.kinematic_velocity);
      return lsim_api_fail(sim, LSIM_OUT_OF_MEMORY, "out of memory");
    }
    sim->build = g;
    sim->build_cap = cap;
  }
  memcpy(sim->build[i].v, def->velocity, sizeof sim->build[i].v);
  rc = lsim_model_add_body(m, &b);
  if (rc < 0) {
    lsim_schedule_free(&b.kinematic_velocity);
    return lsim_api_fail(sim, rc, "add_body '%s': out of memory", b.name);
  }
  return rc;
}

int lsim_sim_add_shape(LsimSim *sim, int body, const LsimShapeDef *def) {
  const int rc = building(sim, "add_shape");
  if (rc < 0) return rc;
  LsimModel *m = &sim->model;
  if (m->dimension == 1)
    return lsim_api_fail(sim, LSIM_INVALID_INPUT, "add_shape: 1-D bodies have no shapes (their width is the shape)");
  if (body < 0 || body >= m->nbodies) return lsim_api_no_body(sim, "add_shape", body);
  if (!def) return lsim_api_fail(sim, LSIM_INVALID_INPUT, "add_shape: def is NULL");
  const char *bn = m->bodies[body].name;
  if (def->type < LSIM_PLANE || def->type > LSIM_POINT)
    return lsim_api_fail(sim, LSIM_INVALID_INPUT, "add_shape on '%s': unknown type %d", bn, def->type);
  if (def->type == LSIM_PLANE && m->bodies[body].type != LSIM_BODY_STATIC)
    return lsim_api_fail(sim, LSIM_INVALID_INPUT, "add_shape on '%s': a plane is unbounded: planes go on static bodies only", bn);
  if (!all_finite(def->position, 3) || !all_finite(def->half, 3) || !isfinite(def->radius) ||
      !isfinite(def->angle) || !(def->mu >= 0.0) || !isfinite(def->mu))
    return lsim_api_fail(sim, LSIM_INVALID_INPUT, "add_shape on '%s': a value is not finite (or mu < 0)", bn);
  const char *foreign = foreign_orientation(m->dimension, def->angle, def->quaternion);
  if (foreign)
    return lsim_api_fail(sim, LSIM_INVALID_INPUT, "add_shape on '%s': %s applies to %s shapes only (this world is %d-D)",
                         bn, foreign, foreign[0] == 'a' ? "2-D" : "3-D", m->dimension);
  LsimShape s = lsim_default_shape();
  s.type = (LsimShapeType)def->type;
  s.body = body;
  snprintf(s.name, sizeof s.name, "shape%d", m->bodies[body].nshapes);
  memcpy(s.pos, def->position, sizeof s.pos);
  const char *bad = NULL;
  if (m->dimension == 2) s.pos[2] = 0.0, lsim_quat_from_angle_z(s.rot, def->angle);
  else bad = unit_quat(def->quaternion, s.rot);
  if (bad) return lsim_api_fail(sim, LSIM_INVALID_INPUT, "add_shape on '%s': %s", bn, bad);
  s.radius = def->type == LSIM_SPHERE || def->type == LSIM_CAPSULE ? def->radius : 0.0;
  memset(s.half, 0, sizeof s.half);
  if ((def->type == LSIM_SPHERE || def->type == LSIM_CAPSULE) && !positive(def->radius))
    return lsim_api_fail(sim, LSIM_INVALID_INPUT, "add_shape on '%s': radius must be > 0, got %g%s", bn, def->radius,
                         subnormal_note(def->radius));
  if (def->type == LSIM_CAPSULE) {
    if (!positive(def->half[0]))
      return lsim_api_fail(sim, LSIM_INVALID_INPUT, "add_shape on '%s': half[0] (half length) must be > 0, got %g%s", bn,
                           def->half[0], subnormal_note(def->half[0]));
    s.half[0] = def->half[0];
  }
  if (def->type == LSIM_BOX)
    for (int k = 0; k < m->dimension; ++k) {
      if (!positive(def->half[k]))
        return lsim_api_fail(sim, LSIM_INVALID_INPUT, "add_shape on '%s': half[%d] must be > 0, got %g%s", bn, k,
                             def->half[k], subnormal_note(def->half[k]));
      s.half[k] = def->half[k];
    }
  s.mu = def->mu;
  const int idx = lsim_model_add_shape(m, &s);
  if (idx < 0) return lsim_api_fail(sim, idx, "add_shape: out of memory");
  /* Its index among the body's shapes (the j of its default name "shape<j>"): the world's
     shape list is put in body order when it starts, so the index in the list so far
     (returned before) named another shape once shapes of two bodies were interleaved. */
  return m->bodies[body].nshapes++; /* counted for the default names; finalize recounts */
}

int lsim_sim_add_joint(LsimSim *sim, const LsimJointDef *def) {
  const int rc = building(sim, "add_joint");
  if (rc < 0) return rc;
  LsimModel *m = &sim->model;
  if (!def) return lsim_api_fail(sim, LSIM_INVALID_INPUT, "add_joint: def is NULL");
  const int tether = def->type == LSIM_TETHER;
  if (def->type != LSIM_PIN && def->type != LSIM_ROD && !tether)
    return lsim_api_fail(sim, LSIM_INVALID_INPUT, "add_joint: unknown type %d", def->type);
  const int k = tether ? m->ntethers : m->njoints;
  char name[48];
  if (def->name) {
    if (!def->name[0] || strlen(def->name) >= sizeof name)
      return lsim_api_fail(sim, LSIM_INVALID_INPUT, "add_joint: the name must have 1 to %zu bytes", sizeof name - 1);
    snprintf(name, sizeof name, "%s", def->name);
  } else {
    snprintf(name, sizeof name, "%s%d", tether ? "tether" : "joint", k);
  }
  if (def->body[0] < 0 || def->body[0] >= m->nbodies || m->bodies[def->body[0]].type != LSIM_BODY_DYNAMIC)
    return lsim_api_fail(sim, LSIM_INVALID_INPUT, "add_joint '%s': body[0] must be a dynamic body, got %d", name,
                         def->body[0]);
  if (def->body[1] < -1 || def->body[1] >= m->nbodies || def->body[1] == def->body[0])
    return lsim_api_fail(sim, LSIM_INVALID_INPUT, "add_joint '%s': body[1] must be another body or -1 (the world), got %d",
                         name, def->body[1]);
  if (!all_finite(def->point[0], 3) || !all_finite(def->point[1], 3))
    return lsim_api_fail(sim, LSIM_INVALID_INPUT, "add_joint '%s': a point is not finite", name);
  if (tether && def->no_collide)
    return lsim_api_fail(sim, LSIM_INVALID_INPUT, "add_joint '%s': no_collide applies to pins and rods, not tethers", name);
  if (def->type != LSIM_PIN && !(positive(def->length) && isfinite(def->length)))
    return lsim_api_fail(sim, LSIM_INVALID_INPUT, "add_joint '%s': length must be > 0, got %g%s", name, def->length,
                         subnormal_note(def->length));
  if (def->type == LSIM_ROD && def->length < 1e-9)
    return lsim_api_fail(sim, LSIM_INVALID_INPUT, "add_joint '%s': a rod of %g m (below 1e-9 m) has no direction to hold: use a pin",
                         name, def->length);
  for (int j = 0; j < (tether ? m->ntethers : m->njoints); ++j)
    if (strcmp(tether ? m->tethers[j].name : m->joints[j].name, name) == 0)
      return lsim_api_fail(sim, LSIM_INVALID_INPUT, "add_joint: the name '%s' is already used", name);
  LsimAnchor end[2];
  memset(end, 0, sizeof end);
  for (int e = 0; e < 2; ++e) {
    end[e].body = def->body[e];
    if (def->body[e] >= 0) {
      memcpy(end[e].point, def->point[e], sizeof end[e].point);
    } else {
      end[e].motion.kind = LSIM_MOTION_FIXED;
      memcpy(end[e].motion.origin, def->point[e], sizeof end[e].motion.origin);
    }
  }
  if (tether) {
    LsimTether *g = realloc(m->tethers, (size_t)(k + 1) * sizeof *g);
    if (!g) return lsim_api_fail(sim, LSIM_OUT_OF_MEMORY, "out of memory");
    m->tethers = g;
    memset(&g[k], 0, sizeof g[k]);
    snprintf(g[k].name, sizeof g[k].name, "%s", name);
    memcpy(g[k].end, end, sizeof end);
    g[k].length = def->length;
    m->ntethers = k + 1;
  } else {
    LsimJoint *g = realloc(m->joints, (size_t)(k + 1) * sizeof *g);
    if (!g) return lsim_api_fail(sim, LSIM_OUT_OF_MEMORY, "out of memory");
    m->joints = g;
    memset(&g[k], 0, sizeof g[k]);
    snprintf(g[k].name, sizeof g[k].name, "%s", name);
    g[k].type = def->type == LSIM_PIN ? LSIM_JOINT_PIN : LSIM_JOINT_ROD;
    memcpy(g[k].end, end, sizeof end);
    g[k].length = def->length;
    g[k].no_collide = def->no_collide != 0;
    m->njoints = k + 1;
  }
  return k;
}

LsimContactDef lsim_default_contact_def(void) {
  const LsimModel m = lsim_default_model();
  const LsimContactDef d = {.margin = m.contact_margin, .max_correction_speed = m.max_correction_speed,
                            .overlap_tolerance = m.overlap_tolerance,
                            .allow_initial_overlap = m.allow_initial_overlap};
  return d;
}

int lsim_sim_set_contact(LsimSim *sim, const LsimContactDef *def) {
  const int rc = building(sim, "set_contact");
  if (rc < 0) return rc;
  if (!def) return lsim_api_fail(sim, LSIM_INVALID_INPUT, "set_contact: def is NULL");
  /* The ranges of a scene's "contact" object (scene/scene.c). */
  if (!(def->margin >= 0.0) || !isfinite(def->margin))
    return lsim_api_fail(sim, LSIM_INVALID_INPUT, "set_contact: margin must be finite and >= 0, got %g", def->margin);
  if (!positive(def->max_correction_speed))
    return lsim_api_fail(sim, LSIM_INVALID_INPUT, "set_contact: max_correction_speed must be > 0, got %g%s",
                         def->max_correction_speed, subnormal_note(def->max_correction_speed));
  if (!(def->overlap_tolerance >= 0.0) || !isfinite(def->overlap_tolerance))
    return lsim_api_fail(sim, LSIM_INVALID_INPUT, "set_contact: overlap_tolerance must be finite and >= 0, got %g",
                         def->overlap_tolerance);
  if (def->allow_initial_overlap != 0 && def->allow_initial_overlap != 1)
    return lsim_api_fail(sim, LSIM_INVALID_INPUT, "set_contact: allow_initial_overlap must be 0 or 1, got %d",
                         def->allow_initial_overlap);
  sim->model.contact_margin = def->margin;
  sim->model.max_correction_speed = def->max_correction_speed;
  sim->model.overlap_tolerance = def->overlap_tolerance;
  sim->model.allow_initial_overlap = def->allow_initial_overlap;
  return 0;
}

/* 2-D / 3-D: the deepest overlap of the initial state beyond the tolerance (the contacts
 * detection finds at rest, as a scene's reader checks them: scene/bodies_nd.c), as
 * *a, *b (b -1: the world) and *depth; 1 found, 0 none, < 0 out of memory. */
static int deepest_overlap(const LsimModel *m, const LsimState *st, int *a, int *b, double *depth) {
  double *vfree = calloc((size_t)m->nv + 1, sizeof *vfree);
  LsimContactSet set;
  memset(&set, 0, sizeof set);
  int rc = vfree ? lsim_detect_contacts(m, st, vfree, &set) : LSIM_OUT_OF_MEMORY;
  free(vfree);
  int worst = -1;
  for (int k = 0; rc == 0 && k < set.count; ++k) {
    const LsimContact *c = &set.contacts[k];
    if (c->kind == LSIM_CONTACT_NORMAL && -c->gap > m->overlap_tolerance &&
        (worst < 0 || c->gap < set.contacts[worst].gap))
      worst = k;
  }
  if (rc == 0 && worst >= 0) {
    const LsimContact *c = &set.contacts[worst];
    *a = c->body[0], *b = c->body[1], *depth = -c->gap;
    /* The moving body first. */
    if (m->bodies[*a].type == LSIM_BODY_STATIC && *b >= 0) *a = c->body[1], *b = c->body[0];
    rc = 1;
  }
  lsim_contacts_free(&set);
  return rc;
}

typedef struct Span1 {
  double lo, hi;
  int body;
} Span1;

static int span1_cmp(const void *x, const void *y) {
  const Span1 *a = x, *b = y;
  return (a->lo > b->lo) - (a->lo < b->lo);
}

#define OVERLAP_1D 1e-12 /* m: a scene's 1-D tolerance (scene/bodies_1d.c): touching is contact */

/* 1-D: an overlap at the start, as a scene's reader refuses it, into msg (empty: none):
 * a left wall reaching past a right wall (always), and unless allowed a segment inside a
 * wall or two segments overlapping (sorted by their left ends, each against the earlier one
 * reaching furthest right: O(n log n)). 0, or LSIM_OUT_OF_MEMORY. */
static int overlap_1d(const LsimModel *m, char *msg, size_t len) {
  msg[0] = '\0';
  int lw = -1, rw = -1, n = 0;
  for (int i = 0; i < m->nbodies; ++i) {
    const LsimBody *b = &m->bodies[i];
    if (b->type != LSIM_BODY_STATIC) ++n;
    else if (b->side < 0 && (lw < 0 || b->pose[0] > m->bodies[lw].pose[0])) lw = i;
    else if (b->side > 0 && (rw < 0 || b->pose[0] < m->bodies[rw].pose[0])) rw = i;
  }
  if (lw >= 0 && rw >= 0 && m->bodies[lw].pose[0] - m->bodies[rw].pose[0] > OVERLAP_1D) {
    snprintf(msg, len, "wall '%s' (x <= %g) overlaps wall '%s' (x >= %g): no room between them",
             m->bodies[lw].name, m->bodies[lw].pose[0], m->bodies[rw].name, m->bodies[rw].pose[0]);
    return 0;
  }
  if (m->allow_initial_overlap || n == 0) return 0;
  Span1 *sp = malloc((size_t)n * sizeof *sp);
  if (!sp) return LSIM_OUT_OF_MEMORY;
  n = 0;
  for (int i = 0; i < m->nbodies; ++i) {
    const LsimBody *b = &m->bodies[i];
    if (b->type == LSIM_BODY_STATIC) continue;
    sp[n].lo = b->pose[0] - b->width / 2, sp[n].hi = b->pose[0] + b->width / 2, sp[n].body = i;
    const LsimBody *w = NULL;
    double depth = 0.0;
    if (lw >= 0 && m->bodies[lw].pose[0] - sp[n].lo > OVERLAP_1D) w = &m->bodies[lw], depth = w->pose[0] - sp[n].lo;
    else if (rw >= 0 && sp[n].hi - m->bodies[rw].pose[0] > OVERLAP_1D) w = &m->bodies[rw], depth = sp[n].hi - w->pose[0];
    if (w) {
      snprintf(msg, len, "'%s' [%g, %g] is inside wall '%s' (occupies x %s %g) by %g", b->name, sp[n].lo,
               sp[n].hi, w->name, w->side < 0 ? "<=" : ">=", w->pose[0], depth);
      free(sp);
      return 0;
    }
    ++n;
  }
  qsort(sp, (size_t)n, sizeof *sp, span1_cmp);
  for (int k = 1, far = 0; k < n; ++k) {
    const double overlap = fmin(sp[k].hi, sp[far].hi) - sp[k].lo;
    if (overlap > OVERLAP_1D) {
      const Span1 *a = &sp[far], *b = &sp[k];
      snprintf(msg, len, "'%s' [%g, %g] overlaps '%s' [%g, %g] at the start by %g", m->bodies[b->body].name,
               b->lo, b->hi, m->bodies[a->body].name, a->lo, a->hi, overlap);
      break;
    }
    if (sp[k].hi > sp[far].hi) far = k;
  }
  free(sp);
  return 0;
}

/* A start that failed after the state was made: the state freed and the stepper too, so
 * the world is as before the start (q and v NULL, nq 0: the builder goes on, and a later
 * start makes them anew); sim->error from fmt; returns status. */
static int start_failed(LsimSim *sim, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int start_failed(LsimSim *sim, int status, const char *fmt, ...) {
  lsim_stepper_free(sim->stepper);
  sim->stepper = NULL;
  lsim_state_free(&sim->state);
  memset(&sim->state, 0, sizeof sim->state);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(sim->error, sizeof sim->error, fmt, ap);
  va_end(ap);
  return status;
}

int lsim_sim_start(LsimSim *sim) {
  int rc = building(sim, "start");
  if (rc < 0) return rc;
  LsimModel *m = &sim->model;
  int ndynamic = 0;
  for (int i = 0; i < m->nbodies; ++i) {
    ndynamic += m->bodies[i].type == LSIM_BODY_DYNAMIC;
    if (m->dimension > 1 && m->bodies[i].type != LSIM_BODY_KINEMATIC && m->bodies[i].nshapes == 0 &&
        m->bodies[i].type == LSIM_BODY_STATIC)
      return lsim_api_fail(sim, LSIM_INVALID_INPUT, "start: static body '%s' has no shape", m->bodies[i].name);
  }
  if (ndynamic == 0) return lsim_api_fail(sim, LSIM_INVALID_INPUT, "start: at least one dynamic body is required");
  rc = lsim_model_finalize(m);
  if (rc == 0) rc = lsim_state_init(&sim->state, m);
  if (rc < 0) return start_failed(sim, rc, "start: %s", lsim_status_name(rc));
  /* The initial state: q from the poses, v from the definitions (kinematic: prescribed). */
  for (int i = 0; i < m->nbodies; ++i) {
    const LsimBody *b = &m->bodies[i];
    if (b->type == LSIM_BODY_STATIC) continue;
    memcpy(sim->state.q + b->q_offset, b->pose, (size_t)b->nq * sizeof(double));
    memcpy(sim->state.v + b->v_offset, sim->build[i].v, (size_t)b->nv * sizeof(double));
  }
  /* Tethers may not start stretched beyond their length. */
  for (int k = 0; k < m->ntethers; ++k) {
    const double d = lsim_tether_length(m, &sim->state, 0.0, k);
    if (d > m->tethers[k].length + STRETCH_TOL)
      return start_failed(sim, LSIM_INVALID_INPUT, "start: tether '%s' starts stretched: its ends are %.9g m apart, its length %.9g m",
                          m->tethers[k].name, d, m->tethers[k].length);
  }
  /* Bodies overlapping at the start, refused as a scene's (the steps would push them apart
     at up to max_correction_speed each contact: a pile placed overlapping gains energy). */
  if (m->dimension > 1 && !m->allow_initial_overlap) {
    int a = -1, b = -1;
    double depth = 0.0;
    rc = deepest_overlap(m, &sim->state, &a, &b, &depth);
    if (rc < 0) return start_failed(sim, rc, "start: out of memory");
    if (rc > 0)
      return start_failed(sim, LSIM_INVALID_INPUT,
                          "start: '%s' overlaps '%s' at the start by %.6g m (more than the overlap "
                          "tolerance %g m): move them apart, or allow it (lsim_sim_set_contact: "
                          "allow_initial_overlap) to let the steps push them out at "
                          "max_correction_speed (%g m/s)",
                          m->bodies[a].name, b >= 0 ? m->bodies[b].name : "the world", depth,
                          m->overlap_tolerance, m->max_correction_speed);
  }
  char msg[512] = "";
  if (m->dimension == 1) {
    if (overlap_1d(m, msg, sizeof msg) < 0) return start_failed(sim, LSIM_OUT_OF_MEMORY, "start: out of memory");
    if (msg[0])
      return start_failed(sim, LSIM_INVALID_INPUT, "start: %s%s", msg,
                          strncmp(msg, "wall", 4) == 0 ? ""
                                                       : " (lsim_sim_set_contact: allow_initial_overlap lets "
                                                         "the steps push them apart)");
  }
  rc = lsim_stepper_create(&sim->stepper, m, NULL, msg, sizeof msg);
  if (rc < 0) return start_failed(sim, rc, "start: %s", msg);
  if (lsim_api_keep_initial(sim) < 0) return start_failed(sim, LSIM_OUT_OF_MEMORY, "start: out of memory");
  sim->started = 1;
  return 0;
}
