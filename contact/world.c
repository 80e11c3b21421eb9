/* world.c: model and state bookkeeping, schedules, energies. */
#include "contact/world.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "contact/math3.h"
#include "lcp/lcp.h"

LsimModel lsim_default_model(void) {
  LsimModel m;
  memset(&m, 0, sizeof m);
  m.dimension = 1;
  m.ground_normal_gravity = 9.81;
  m.time_step = 0.01;
  m.steps = 100;
  m.contact_margin = 0.0;
  m.max_correction_speed = LSIM_DEFAULT_MAX_CORRECTION_SPEED;
  m.overlap_tolerance = LSIM_DEFAULT_OVERLAP_TOLERANCE;
  m.friction_directions = 0; /* the dimension's own, set by lsim_model_finalize */
  strcpy(m.solver.name, "lemke");
  m.solver.tol = 1e-10;
  m.solver.max_iter = 0;
  m.solver.omega = 1.0;
  m.solver.warm_start = 1;
  m.solver.threads = 1;
  m.solver.islands = 1;
  m.solver.sparse_limit = 0;
  m.solver.block_start = 0;
  m.solver.principal = 0;
  m.solver.precision = 0;
  m.solver.lu_solve = 0;
  m.solver.lu_refactor = 0;
  m.restitution_threshold = 0.01;
  m.event_precision = 1e-10;
  m.event_chatter_events = 20;
  m.event_chatter_window = 0.1;
  m.event_rtol = 1e-12;
  m.event_atol = 1e-14;
  m.event_impacts = LSIM_IMPACTS_SIMULTANEOUS;
  m.limits = (LsimLimits){.max_position = 1e6, .max_speed = 1e4, .max_angular_speed = 1e6};
  m.sleep = (LsimSleep){.enabled = 0, .linear_speed = 0.01, .angular_speed = 0.02, .time = 0.5};
  return m;
}

static const char *const on_failure_names[] = {"fallback", "stop", "continue"};

int lsim_on_failure_parse(const char *word, int *policy) {
  for (int k = 0; k < 3; ++k)
    if (word && !strcmp(word, on_failure_names[k])) {
      *policy = k;
      return 0;
    }
  return -1;
}

const char *lsim_on_failure_name(int policy) {
  return policy >= 0 && policy < 3 ? on_failure_names[policy] : "?";
}

double lsim_pair_restitution(const LsimModel *model, int a, int b) {
  for (int i = 0; i < model->nrestitution_pairs; ++i) {
    const LsimRestitutionPair *p = &model->restitution_pairs[i];
    if ((p->body[0] == a && p->body[1] == b) || (p->body[0] == b && p->body[1] == a))
      return p->restitution;
  }
  const double ea = a >= 0 && a < model->nbodies ? model->bodies[a].restitution : 0.0;
  const double eb = b >= 0 && b < model->nbodies ? model->bodies[b].restitution : 0.0;
  return ea > eb ? ea : eb;
}

LsimBody lsim_default_body(void) {
  LsimBody b;
  memset(&b, 0, sizeof b);
  b.type = LSIM_BODY_DYNAMIC;
  b.shape = LSIM_SHAPE_SEGMENT;
  b.mass = 1.0;
  b.side = -1;
  b.force.width = 1;
  b.kinematic_velocity.width = 1;
  b.q_offset = b.v_offset = -1;
  b.pose[3] = 1.0; /* identity orientation for 3-D static poses */
  return b;
}

LsimShape lsim_default_shape(void) {
  LsimShape s;
  memset(&s, 0, sizeof s);
  s.type = LSIM_SHAPE_SPHERE;
  s.rot[0] = 1.0;
  s.radius = 0.5;
  s.mu = 0.5;
  return s;
}

int lsim_model_add_shape(LsimModel *model, const LsimShape *shape) {
  LsimShape *grown = realloc(model->shapes, (size_t)(model->nshapes + 1) * sizeof *grown);
  if (!grown) return LSIM_OUT_OF_MEMORY;
  model->shapes = grown;
  model->shapes[model->nshapes] = *shape;
  return model->nshapes++;
}

int lsim_model_add_body(LsimModel *model, const LsimBody *body) {
  LsimBody *grown = realloc(model->bodies, (size_t)(model->nbodies + 1) * sizeof *grown);
  if (!grown) return LSIM_OUT_OF_MEMORY;
  model->bodies = grown;
  model->bodies[model->nbodies] = *body;
  return model->nbodies++;
}

int lsim_model_finalize(LsimModel *model) {
  const int dim = model->dimension;
  if (dim < 1 || dim > 3) return LSIM_INVALID_INPUT;
  /* The cone's directions: 0 takes the dimension's default (2 in 1-D and 2-D, 4 in 3-D);
     1-D and 2-D have exactly 2 (the tangent line), 3-D an even number in [4, 16] (2 in
     3-D left the second tangent without friction: a ball slid along it freely). */
  if (model->friction_directions == 0) model->friction_directions = dim == 3 ? 4 : 2;
  const int nd = model->friction_directions;
  if (dim == 3 ? nd < 4 || nd > 16 || nd % 2 : nd != 2) return LSIM_INVALID_INPUT;
  /* Coordinates per body: 1-D x; 2-D (x, y, theta); 3-D position and quaternion, with
     linear and angular velocity. */
  const int nq_body = dim == 1 ? 1 : dim == 2 ? 3 : 7;
  const int nv_body = dim == 1 ? 1 : dim == 2 ? 3 : 6;
  int nq = 0, nv = 0;
  for (int i = 0; i < model->nbodies; ++i) {
    LsimBody *b = &model->bodies[i];
    b->first_shape = b->nshapes = 0;
    if (b->type == LSIM_BODY_STATIC) {
      b->q_offset = b->v_offset = -1;
      b->nq = b->nv = 0;
      continue;
    }
    b->q_offset = nq;
    b->v_offset = nv;
    b->nq = nq_body;
    b->nv = nv_body;
    nq += nq_body;
    nv += nv_body;
  }
  model->nq = nq;
  model->nv = nv;

  /* Shapes grouped by body, keeping their order within a body (insertion sort: stable). */
  for (int i = 1; i < model->nshapes; ++i) {
    const LsimShape s = model->shapes[i];
    if (s.body < 0 || s.body >= model->nbodies) return LSIM_INVALID_INPUT;
    int j = i - 1;
    while (j >= 0 && model->shapes[j].body > s.body) {
      model->shapes[j + 1] = model->shapes[j];
      --j;
    }
    model->shapes[j + 1] = s;
  }
  for (int k = model->nshapes - 1; k >= 0; --k) {
    LsimBody *b = &model->bodies[model->shapes[k].body];
    b->first_shape = k;
    b->nshapes++;
  }
  return 0;
}

void lsim_schedule_free(LsimSchedule *s) {
  free(s->t);
  free(s->value);
  s->t = s->value = NULL;
  s->npoints = 0;
}

void lsim_model_free(LsimModel *model) {
  if (!model) return;
  for (int i = 0; i < model->nbodies; ++i) {
    lsim_schedule_free(&model->bodies[i].force);
    lsim_schedule_free(&model->bodies[i].kinematic_velocity);
  }
  free(model->bodies);
  model->bodies = NULL;
  model->nbodies = 0;
  free(model->shapes);
  model->shapes = NULL;
  model->nshapes = 0;
  free(model->couplings);
  model->couplings = NULL;
  model->ncouplings = 0;
  free(model->restitution_pairs);
  model->restitution_pairs = NULL;
  model->nrestitution_pairs = 0;
  for (int i = 0; i < model->ntethers; ++i)
    for (int k = 0; k < 2; ++k) lsim_schedule_free(&model->tethers[i].end[k].motion.table);
  free(model->tethers);
  model->tethers = NULL;
  model->ntethers = 0;
  for (int i = 0; i < model->njoints; ++i)
    for (int k = 0; k < 2; ++k) lsim_schedule_free(&model->joints[i].end[k].motion.table);
  free(model->joints);
  model->joints = NULL;
  model->njoints = 0;
}

int lsim_state_init(LsimState *state, const LsimModel *model) {
  memset(state, 0, sizeof *state);
  state->q = calloc((size_t)model->nq + 1, sizeof(double));
  state->v = calloc((size_t)model->nv + 1, sizeof(double));
  if (!state->q || !state->v) {
    lsim_state_free(state);
    return LSIM_OUT_OF_MEMORY;
  }
  return 0;
}

void lsim_state_free(LsimState *state) {
  if (!state) return;
  free(state->q);
  free(state->v);
  state->q = state->v = NULL;
}

double lsim_schedule_eval_component(const LsimSchedule *s, double t, int d) {
  const int w = s->width > 0 ? s->width : 1;
  if (d < 0 || d >= w) return 0.0;
  if (s->npoints == 0) {
    if (d == 0 && (w == 1 || !s->value)) return s->constant;
    return s->value ? s->value[d] : 0.0;
  }
  /* Held at the end values outside the table. */
  if (t <= s->t[0]) return s->value[d];
  if (t >= s->t[s->npoints - 1]) return s->value[(size_t)(s->npoints - 1) * w + d];
  /* Binary search for t[k] <= t < t[k+1], then linear interpolation. */
  int lo = 0, hi = s->npoints - 1;
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (s->t[mid] <= t) lo = mid;
    else hi = mid;
  }
  const double a = (t - s->t[lo]) / (s->t[hi] - s->t[lo]);
  const double v0 = s->value[(size_t)lo * w + d], v1 = s->value[(size_t)hi * w + d];
  return v0 + a * (v1 - v0);
}

double lsim_schedule_eval(const LsimSchedule *s, double t) {
  return lsim_schedule_eval_component(s, t, 0);
}

void lsim_body_pose(const LsimModel *model, const LsimState *state, int i, double p[3],
                    double q[4]) {
  const LsimBody *b = &model->bodies[i];
  const double *c = b->type == LSIM_BODY_STATIC ? b->pose : state->q + b->q_offset;
  p[0] = p[1] = p[2] = 0.0;
  lsim_quat_identity(q);
  if (model->dimension == 1) {
    p[0] = c[0];
  } else if (model->dimension == 2) {
    p[0] = c[0], p[1] = c[1];
    lsim_quat_from_angle_z(q, c[2]);
  } else {
    p[0] = c[0], p[1] = c[1], p[2] = c[2];
    q[0] = c[3], q[1] = c[4], q[2] = c[5], q[3] = c[6];
  }
}

void lsim_inertia_sphere(double m, double r, double I[9]) {
  memset(I, 0, 9 * sizeof(double));
  I[0] = I[4] = I[8] = 0.4 * m * r * r;
}

void lsim_inertia_disk(double m, double r, double I[9]) {
  memset(I, 0, 9 * sizeof(double));
  I[0] = I[4] = 0.25 * m * r * r;
  I[8] = 0.5 * m * r * r;
}

void lsim_inertia_stadium(double m, double r, double half_length, double I[9]) {
  /* Rectangle 2L x 2r plus two half disks (a disk), masses in proportion to their areas;
     a half disk's centroid is 4r / (3 pi) from its flat side. */
  const double L = half_length, ar = 4.0 * L * r, ad = 3.14159265358979323846 * r * r;
  const double mr = m * ar / (ar + ad), md = m - mr;
  memset(I, 0, 9 * sizeof(double));
  I[8] = mr * (4.0 * L * L + 4.0 * r * r) / 12.0 +
         md * (0.5 * r * r + L * L + 8.0 * L * r / (3.0 * 3.14159265358979323846));
}

void lsim_inertia_box(double m, const double half[3], double I[9]) {
  const double a2 = half[0] * half[0], b2 = half[1] * half[1], c2 = half[2] * half[2];
  memset(I, 0, 9 * sizeof(double));
  I[0] = m * (b2 + c2) / 3.0;
  I[4] = m * (a2 + c2) / 3.0;
  I[8] = m * (a2 + b2) / 3.0;
}

void lsim_inertia_capsule(double m, double r, double half_length, double I[9]) {
  /* Cylinder (length 2L) plus two hemispheres, masses in proportion to their volumes. */
  const double L = half_length, vc = 2.0 * L * r * r, vs = 4.0 / 3.0 * r * r * r;
  const double mc = m * vc / (vc + vs), ms = m - mc;
  memset(I, 0, 9 * sizeof(double));
  const double axial = 0.5 * mc * r * r + 0.4 * ms * r * r;
  /* Hemisphere centroid at 3r/8 from its flat face; parallel axis to the center. */
  const double transverse = mc * (3.0 * r * r + 4.0 * L * L) / 12.0 +
                            ms * (0.4 * r * r + L * L + 0.75 * L * r);
  I[0] = I[4] = transverse;
  I[8] = axial;
}

/* Angular kinetic energy 1/2 w' I_world w with I_world = R I_body R'. */
static double rotational_energy(const LsimBody *b, const double *quat, const double *w) {
  double wb[3], Iw[3];
  lsim_quat_rotate_inv(wb, quat, w);
  lsim_m3_apply(Iw, b->inertia, wb);
  return 0.5 * lsim_v3_dot(wb, Iw);
}

double lsim_kinetic_energy(const LsimModel *model, const LsimState *state) {
  double e = 0.0;
  for (int i = 0; i < model->nbodies; ++i) {
    const LsimBody *b = &model->bodies[i];
    if (b->type != LSIM_BODY_DYNAMIC) continue;
    const double *v = state->v + b->v_offset;
    if (model->dimension == 1) {
      e += 0.5 * b->mass * v[0] * v[0];
      /* plus the couplings' share, below */
    } else if (model->dimension == 2) {
      e += 0.5 * b->mass * (v[0] * v[0] + v[1] * v[1]) + 0.5 * b->inertia[8] * v[2] * v[2];
    } else {
      e += 0.5 * b->mass * lsim_v3_dot(v, v) +
           rotational_energy(b, state->q + b->q_offset + 3, v + 3);
    }
  }
  for (int c = 0; c < model->ncouplings; ++c) {
    const LsimCoupling *cp = &model->couplings[c];
    const double dv = state->v[model->bodies[cp->body[0]].v_offset] -
                      state->v[model->bodies[cp->body[1]].v_offset];
    e += 0.5 * cp->inertia * dv * dv;
  }
  return e;
}

double lsim_potential_energy(const LsimModel *model, const LsimState *state) {
  double e = 0.0;
  const int dim = model->dimension;
  for (int i = 0; i < model->nbodies; ++i) {
    const LsimBody *b = &model->bodies[i];
    if (b->type != LSIM_BODY_DYNAMIC) continue;
    const double *x = state->q + b->q_offset;
    for (int k = 0; k < dim; ++k) e -= b->mass * model->gravity[k] * x[k];
  }
  return e;
}

void lsim_motion_eval(const LsimMotion *m, double t, double p[3], double v[3]) {
  for (int d = 0; d < 3; ++d) p[d] = m->origin[d], v[d] = 0.0;
  if (m->kind == LSIM_MOTION_VELOCITY) {
    const double w = 6.283185307179586476925 * m->frequency, s = sin(w * t + m->phase),
                 s0 = sin(m->phase), c = cos(w * t + m->phase);
    for (int d = 0; d < 3; ++d) {
      /* The sine is relative to its value at t = 0, so p(0) = origin. */
      p[d] += m->velocity[d] * t + m->amplitude[d] * (s - s0);
      v[d] = m->velocity[d] + m->amplitude[d] * w * c;
    }
  } else if (m->kind == LSIM_MOTION_TABLE) {
    /* Exact integral of the piecewise-linear velocity (held outside the table). */
    const LsimSchedule *s = &m->table;
    for (int d = 0; d < 3; ++d) v[d] = lsim_schedule_eval_component(s, t, d);
    if (s->npoints == 0) {
      for (int d = 0; d < 3; ++d) p[d] += v[d] * t;
      return;
    }
    double t0 = 0.0;
    for (int d = 0; d < 3; ++d) p[d] += lsim_schedule_eval_component(s, 0.0, d) * fmin(t, fmax(s->t[0], 0.0));
    t0 = fmax(s->t[0], 0.0);
    for (int k = 0; k + 1 < s->npoints && t0 < t; ++k) {
      const double a = fmax(s->t[k], t0), b = fmin(s->t[k + 1], t);
      if (b <= a) continue;
      for (int d = 0; d < 3; ++d)
        p[d] += 0.5 * (lsim_schedule_eval_component(s, a, d) + lsim_schedule_eval_component(s, b, d)) * (b - a);
      t0 = b;
    }
    if (t > t0)
      for (int d = 0; d < 3; ++d) p[d] += lsim_schedule_eval_component(s, t, d) * (t - t0);
  }
}

int lsim_inertia_triangle_violation(const double d[3]) {
  const double sum = d[0] + d[1] + d[2];
  for (int k = 0; k < 3; ++k)
    if (d[k] - (sum - d[k]) > LSIM_INERTIA_TRIANGLE_TOL * sum) return k + 1;
  return 0;
}
