/* world.c: model and state bookkeeping, schedules, energies. */
#include "contact/world.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lcp/lcp.h"

LsimModel lsim_default_model(void) {
  LsimModel m;
  memset(&m, 0, sizeof m);
  m.dimension = 1;
  m.ground_normal_gravity = 9.81;
  m.time_step = 0.01;
  m.steps = 100;
  m.contact_margin = 0.0;
  m.friction_directions = 2;
  strcpy(m.solver.name, "lemke");
  m.solver.tol = 1e-10;
  m.solver.max_iter = 0;
  m.solver.omega = 1.0;
  m.solver.warm_start = 1;
  return m;
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
  return b;
}

int lsim_model_add_body(LsimModel *model, const LsimBody *body) {
  LsimBody *grown = realloc(model->bodies, (size_t)(model->nbodies + 1) * sizeof *grown);
  if (!grown) return LSIM_OUT_OF_MEMORY;
  model->bodies = grown;
  model->bodies[model->nbodies] = *body;
  return model->nbodies++;
}

int lsim_model_finalize(LsimModel *model) {
  if (model->dimension != 1) return LSIM_INVALID_INPUT;
  /* Coordinates per body: 1-D bodies have one. */
  const int nq_body = 1, nv_body = 1;
  int nq = 0, nv = 0;
  for (int i = 0; i < model->nbodies; ++i) {
    LsimBody *b = &model->bodies[i];
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

double lsim_schedule_eval(const LsimSchedule *s, double t) {
  if (s->npoints == 0) return s->constant;
  const int w = s->width > 0 ? s->width : 1;
  /* Held at the end values outside the table. */
  if (t <= s->t[0]) return s->value[0];
  if (t >= s->t[s->npoints - 1]) return s->value[(size_t)(s->npoints - 1) * w];
  /* Binary search for t[k] <= t < t[k+1], then linear interpolation. */
  int lo = 0, hi = s->npoints - 1;
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (s->t[mid] <= t) lo = mid;
    else hi = mid;
  }
  const double a = (t - s->t[lo]) / (s->t[hi] - s->t[lo]);
  const double v0 = s->value[(size_t)lo * w], v1 = s->value[(size_t)hi * w];
  return v0 + a * (v1 - v0);
}

double lsim_kinetic_energy(const LsimModel *model, const LsimState *state) {
  double e = 0.0;
  for (int i = 0; i < model->nbodies; ++i) {
    const LsimBody *b = &model->bodies[i];
    if (b->type != LSIM_BODY_DYNAMIC) continue;
    const double v = state->v[b->v_offset];
    e += 0.5 * b->mass * v * v;
  }
  return e;
}

double lsim_potential_energy(const LsimModel *model, const LsimState *state) {
  double e = 0.0;
  for (int i = 0; i < model->nbodies; ++i) {
    const LsimBody *b = &model->bodies[i];
    if (b->type != LSIM_BODY_DYNAMIC) continue;
    e -= b->mass * model->gravity[0] * state->q[b->q_offset];
  }
  return e;
}
