/* sim.c: simulations of the public API (include/lcpsim/lcpsim.h): loading, state, forces
 * and kinematic targets, the controller and the step, contacts, records. A thin layer over
 * scene/ (loading, records) and contact/ (the model, the state, the step): it adds no
 * physics. Nothing here prints or exits; errors go to sim->error. */
#include "api/api.h"
#include "contact/guard.h"
#include "lcp/pgs.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene/outfile.h"
#include "scene/resume.h"
#include "scene/scene.h"

int lsim_api_fail(LsimSim *sim, int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(sim->error, sizeof sim->error, fmt, ap);
  va_end(ap);
  return status;
}

int lsim_api_err(char *err, size_t errlen, int status, const char *fmt, ...) {
  if (!err || errlen == 0) return status;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  return status;
}

int lsim_api_keep_initial(LsimSim *s) {
  lsim_state_free(&s->initial);
  if (lsim_state_init(&s->initial, &s->model) < 0) return LSIM_OUT_OF_MEMORY;
  memcpy(s->initial.q, s->state.q, (size_t)s->model.nq * sizeof(double));
  memcpy(s->initial.v, s->state.v, (size_t)s->model.nv * sizeof(double));
  s->initial.time = s->state.time, s->initial.step = s->state.step;
  return 0;
}

LsimSim *lsim_api_alloc(void) {
  LsimSim *s = calloc(1, sizeof *s);
  if (s) s->model = lsim_default_model();
  return s;
}

const char *lsim_library_version(void) { return LSIM_VERSION; }

void lsim_free(void *p) { free(p); }

LsimSolverConfig lsim_default_solver_config(void) {
  const LsimSolverConfig c = {.tol = 1e-10, .max_iter = 0, .omega = 1.0, .warm_start = 1,
                              .threads = 1, .sparse_limit = 0, .principal = 0,
                              .precision = 0};
  return c;
}

int lsim_api_check_config(const LsimSolverConfig *cfg, char *msg, size_t len) {
  if (!cfg) return 0;
  /* The ranges of the header, as a scene's "solver" object has them (scene/scene.c). */
  if (!(cfg->tol >= 0.0) || !isfinite(cfg->tol))
    return lsim_api_err(msg, len, LSIM_INVALID_INPUT, "tol must be finite and >= 0, got %g", cfg->tol);
  if (cfg->max_iter < 0)
    return lsim_api_err(msg, len, LSIM_INVALID_INPUT, "max_iter must be >= 0 (0: the solver's default), got %d",
                        cfg->max_iter);
  if (!(cfg->omega > 0.0 && cfg->omega < 2.0))
    return lsim_api_err(msg, len, LSIM_INVALID_INPUT, "omega must be in (0, 2), got %g", cfg->omega);
  if (cfg->threads < 1 || cfg->threads > LSIM_PGS_MAX_THREADS)
    return lsim_api_err(msg, len, LSIM_INVALID_INPUT, "threads must be in 1 .. %d, got %d",
                        LSIM_PGS_MAX_THREADS, cfg->threads);
  if (cfg->sparse_limit < -1)
    return lsim_api_err(msg, len, LSIM_INVALID_INPUT, "sparse_limit must be >= -1 (-1: any size), got %d",
                        cfg->sparse_limit);
  if (cfg->principal < 0 || cfg->principal > LSIM_PRINCIPAL_MAX)
    return lsim_api_err(msg, len, LSIM_INVALID_INPUT, "principal must be an integer in [0, %d], got %d",
                        LSIM_PRINCIPAL_MAX, cfg->principal);
  if (cfg->precision < 0 || cfg->precision > LSIM_PRECISION_FLOAT)
    return lsim_api_err(msg, len, LSIM_INVALID_INPUT, "precision must be 0 (the environment's), "
                        "LSIM_PRECISION_DOUBLE (1) or LSIM_PRECISION_FLOAT (2), got %d", cfg->precision);
  return 0;
}

int lsim_api_check_config_for(const char *name, const LsimSolverConfig *cfg, char *msg, size_t len) {
  const int rc = lsim_api_check_config(cfg, msg, len);
  if (rc < 0 || !cfg || !name) return rc;
  /* Sparse Lemke's own setting with another solver would do nothing: refused, as a scene's
     solver.principal is (scene/scene.c). */
  if (cfg->principal != 0 && strcmp(name, "lemke_sparse"))
    return lsim_api_err(msg, len, LSIM_INVALID_INPUT, "principal is a setting of lemke_sparse only; "
                        "the solver is %s (choose \"lemke_sparse\", or leave principal 0)", name);
  /* pgs's arithmetic with another solver would do nothing: refused, as a scene's
     solver.precision is. */
  if (cfg->precision != 0 && strcmp(name, "pgs"))
    return lsim_api_err(msg, len, LSIM_INVALID_INPUT, "precision is a setting of pgs only; "
                        "the solver is %s (choose \"pgs\", or leave precision 0)", name);
  return 0;
}

void lsim_api_settings(LsimSolverSettings *s, const char *name, const LsimSolverConfig *cfg) {
  const LsimSolverConfig d = lsim_default_solver_config();
  if (!cfg) cfg = &d;
  snprintf(s->name, sizeof s->name, "%s", name);
  s->tol = cfg->tol;
  s->max_iter = cfg->max_iter;
  s->omega = cfg->omega;
  s->warm_start = cfg->warm_start;
  s->threads = cfg->threads;
  s->sparse_limit = cfg->sparse_limit;
  s->principal = cfg->principal;
  s->precision = cfg->precision;
  /* Not in the config: the environment's, as for a scene without the keys. Kept from the
     scene, they changed the pivots of a solver chosen from code where
     lsim_sim_solver_config could not show them (a scene's lu_refactor 10 went on under
     set_solver("lemke_sparse", NULL), and under "pgs" waited for a later lemke_sparse). */
  s->block_start = 0;
  s->lu_solve = LSIM_LU_DEFAULT;
  s->lu_refactor = 0;
}

/* ---- loading ---- */

/* Makes the stepper of a loaded or built model; on failure frees sim. */
static int start_loaded(LsimSim *s, LsimSim **out, char *err, size_t errlen) {
  char msg[512] = "";
  /* The library steps in time steps; an event-driven scene would be run otherwise than it
     says. */
  /* The refusals name the scene and the key, as the reader's errors do. */
  if (s->model.integrator != LSIM_INTEGRATOR_TIME_STEPPING) {
    lsim_api_err(err, errlen, LSIM_INVALID_INPUT,
                 "%s: integrator: the scene asks for the event-driven integrator, which the "
                 "library does not run yet (the command does: lcpsim SCENE.json)",
                 s->scene_name ? s->scene_name : "<scene>");
    lsim_sim_free(s);
    return LSIM_INVALID_INPUT;
  }
  if (s->model.event_impacts == LSIM_IMPACTS_SEQUENTIAL) {
    lsim_api_err(err, errlen, LSIM_INVALID_INPUT,
                 "%s: event_driven.impacts: the scene asks for sequential impacts, which the "
                 "time step does not do: its impacts are part of its one LCP",
                 s->scene_name ? s->scene_name : "<scene>");
    lsim_sim_free(s);
    return LSIM_INVALID_INPUT;
  }
  const int rc = lsim_stepper_create(&s->stepper, &s->model, NULL, msg, sizeof msg);
  if (rc < 0) {
    lsim_api_err(err, errlen, rc, "%s", msg);
    lsim_sim_free(s);
    return rc;
  }
  if (lsim_api_keep_initial(s) < 0) {
    lsim_sim_free(s);
    return lsim_api_err(err, errlen, LSIM_OUT_OF_MEMORY, "out of memory");
  }
  s->started = 1;
  *out = s;
  return 0;
}

/* After the scene reader's rc (filled se on error): the stepper, or the error line. */
static int finish_load(LsimSim *s, int rc, const LsimSceneError *se, LsimSim **out, char *err,
                       size_t errlen) {
  if (rc < 0) {
    char line[1024];
    lsim_scene_error_format(se, line, sizeof line);
    lsim_api_err(err, errlen, rc, "%s", line);
    lsim_sim_free(s); /* the reader left an empty model and state */
    return rc;
  }
  return start_loaded(s, out, err, errlen);
}

int lsim_sim_load(LsimSim **out, const char *path, char *err, size_t errlen) {
  if (err && errlen) err[0] = '\0'; /* a success reads "" (lcpsim.h) */
  if (!out) return lsim_api_err(err, errlen, LSIM_INVALID_INPUT, "out is NULL");
  *out = NULL;
  if (!path) return lsim_api_err(err, errlen, LSIM_INVALID_INPUT, "path is NULL");
  LsimSim *s = lsim_api_alloc();
  if (!s) return lsim_api_err(err, errlen, LSIM_OUT_OF_MEMORY, "out of memory");
  /* The scene file kept, so that no record replaces it (resolved: a later chdir does not
     matter; as given when it cannot be resolved, the reader then says why). */
  s->scene_path = lsim_outfile_absolute(path);
  s->scene_name = strdup(path);
  if (!s->scene_path || !s->scene_name) {
    lsim_sim_free(s);
    return lsim_api_err(err, errlen, LSIM_OUT_OF_MEMORY, "out of memory");
  }
  LsimSceneError se;
  const int rc = lsim_scene_load(path, &s->model, &s->state, &s->scene_text, &se);
  return finish_load(s, rc, &se, out, err, errlen);
}

int lsim_sim_load_json(LsimSim **out, const char *json, const char *name, char *err,
                       size_t errlen) {
  if (err && errlen) err[0] = '\0';
  if (!out) return lsim_api_err(err, errlen, LSIM_INVALID_INPUT, "out is NULL");
  *out = NULL;
  if (!json) return lsim_api_err(err, errlen, LSIM_INVALID_INPUT, "json is NULL");
  LsimSim *s = lsim_api_alloc();
  if (s && (!(s->scene_text = strdup(json)) || !(s->scene_name = strdup(name ? name : "<scene>"))))
    lsim_sim_free(s), s = NULL;
  if (!s) return lsim_api_err(err, errlen, LSIM_OUT_OF_MEMORY, "out of memory");
  LsimSceneError se;
  const int rc = lsim_scene_parse(json, name ? name : "<scene>", &s->model, &s->state, &se);
  return finish_load(s, rc, &se, out, err, errlen);
}

void lsim_sim_free(LsimSim *sim) {
  if (!sim) return;
  if (sim->record) lsim_sim_record_close(sim, 1);
  lsim_stepper_free(sim->stepper);
  lsim_state_free(&sim->state);
  lsim_state_free(&sim->initial);
  lsim_model_free(&sim->model);
  free(sim->scene_text);
  free(sim->scene_path);
  free(sim->scene_name);
  free(sim->build);
  free(sim);
}

const char *lsim_sim_error(const LsimSim *sim) { return sim ? sim->error : "sim is NULL"; }

/* The error slot of a simulation reached through a const handle, written by a read-only
 * query that fails (one that succeeds leaves the message alone: lcpsim.h, lsim_sim_error).
 * The message is no part of the model or the state, and every
 * simulation is allocated writable (lsim_api_alloc), so the cast is defined. */
static LsimSim *error_slot(const LsimSim *sim) { return (LsimSim *)sim; }

void lsim_api_begin(const LsimSim *sim) {
  if (sim) error_slot(sim)->error[0] = '\0';
}

int lsim_api_no_body(const LsimSim *sim, const char *what, int i) {
  const int n = sim->model.nbodies;
  if (n == 0)
    return lsim_api_fail(error_slot(sim), LSIM_INVALID_INPUT, "%s: no body %d (the world has no body)",
                         what, i);
  return lsim_api_fail(error_slot(sim), LSIM_INVALID_INPUT, "%s: no body %d (the bodies are 0 .. %d)",
                       what, i, n - 1);
}

/* ---- the model and the state ---- */

/* A NULL sim reads as an empty world (lcpsim.h, "Conventions"). */
int lsim_sim_dimension(const LsimSim *sim) { return sim ? sim->model.dimension : 0; }
double lsim_sim_time_step(const LsimSim *sim) { return sim ? sim->model.time_step : 0.0; }
int lsim_sim_scene_steps(const LsimSim *sim) { return sim ? sim->model.steps : 0; }
int lsim_sim_body_count(const LsimSim *sim) { return sim ? sim->model.nbodies : 0; }
double lsim_sim_time(const LsimSim *sim) { return sim ? sim->state.time : 0.0; }
int lsim_sim_steps_done(const LsimSim *sim) { return sim ? sim->state.step : 0; }
int lsim_sim_nq(const LsimSim *sim) { return sim && sim->started ? sim->model.nq : 0; }
int lsim_sim_nv(const LsimSim *sim) { return sim && sim->started ? sim->model.nv : 0; }
double *lsim_sim_q(LsimSim *sim) { return sim ? sim->state.q : NULL; }
double *lsim_sim_v(LsimSim *sim) { return sim ? sim->state.v : NULL; }

int lsim_sim_body(const LsimSim *sim, int i, LsimBodyInfo *info) {
  if (!sim) return LSIM_INVALID_INPUT;
  if (i < 0 || i >= sim->model.nbodies) return lsim_api_no_body(sim, "body", i);
  if (!info) return lsim_api_fail(error_slot(sim), LSIM_INVALID_INPUT, "body: info is NULL");
  const LsimBody *b = &sim->model.bodies[i];
  info->name = b->name;
  info->type = (int)b->type;
  info->mass = b->mass;
  info->q_offset = b->q_offset, info->nq = b->nq;
  info->v_offset = b->v_offset, info->nv = b->nv;
  return 0;
}

int lsim_sim_body_index(const LsimSim *sim, const char *name) {
  if (!sim || !name) return -1;
  for (int i = 0; i < sim->model.nbodies; ++i)
    if (strcmp(sim->model.bodies[i].name, name) == 0) return i;
  return -1;
}

/* Whether the 4 entries at u are a unit quaternion to round-off (what every step writes):
 * the caller may have written any nonzero one, which the step takes as u / |u|. */
static int unit_quaternion(const double *u) {
  const double n2 = u[0] * u[0] + u[1] * u[1] + u[2] * u[2] + u[3] * u[3];
  return fabs(n2 - 1.0) <= 8.0 * DBL_EPSILON;
}

/* u / |u| in place, scaled by the largest entry first (no under- or overflow of the
 * squares); a zero u stays zero. */
static void normalize_quaternion(double *u) {
  double big = 0.0;
  for (int k = 0; k < 4; ++k) big = fmax(big, fabs(u[k]));
  if (!(big > 0.0) || !isfinite(big)) return;
  for (int k = 0; k < 4; ++k) u[k] /= big;
  const double n = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2] + u[3] * u[3]);
  for (int k = 0; k < 4; ++k) u[k] /= n;
}

/* The energy reads the rotation of each 3-D body from its quaternion, which must be a unit
 * one: a quaternion the caller wrote, (2, 2, 0, 0), gave |u|^4 times the rotational energy
 * (124.5 J for 7.5 J) until the next step normalized it. Such a state is read with its
 * quaternions normalized (a copy); a state the steps wrote is read as it is, bit for bit. */
double lsim_sim_kinetic_energy(const LsimSim *sim) {
  if (!sim || !sim->started) return 0.0;
  const LsimModel *m = &sim->model;
  int off = 0;
  if (m->dimension == 3)
    for (int i = 0; i < m->nbodies && !off; ++i)
      off = m->bodies[i].nq == 7 && !unit_quaternion(sim->state.q + m->bodies[i].q_offset + 3);
  if (!off) return lsim_kinetic_energy(m, &sim->state);
  LsimState t = sim->state;
  t.q = malloc((size_t)m->nq * sizeof *t.q);
  if (!t.q) return NAN; /* (out of memory: no figure rather than a wrong one) */
  memcpy(t.q, sim->state.q, (size_t)m->nq * sizeof *t.q);
  int zero = 0;
  for (int i = 0; i < m->nbodies; ++i)
    if (m->bodies[i].nq == 7) {
      double *u = t.q + m->bodies[i].q_offset + 3;
      normalize_quaternion(u);
      zero |= u[0] == 0.0 && u[1] == 0.0 && u[2] == 0.0 && u[3] == 0.0;
    }
  /* a zero quaternion is no orientation (the step refuses it): no energy either */
  const double e = zero ? NAN : lsim_kinetic_energy(m, &t);
  free(t.q);
  return e;
}

double lsim_sim_potential_energy(const LsimSim *sim) {
  return sim && sim->started ? lsim_potential_energy(&sim->model, &sim->state) : 0.0;
}

int lsim_sim_body_pose(const LsimSim *sim, int i, double p[3], double quat[4]) {
  if (!sim) return LSIM_INVALID_INPUT;
  if (!sim->started)
    return lsim_api_fail(error_slot(sim), LSIM_INVALID_INPUT, "body_pose: the simulation is not started");
  if (i < 0 || i >= sim->model.nbodies) return lsim_api_no_body(sim, "body_pose", i);
  if (!p || !quat) return lsim_api_fail(error_slot(sim), LSIM_INVALID_INPUT, "body_pose: p or quat is NULL");
  lsim_body_pose(&sim->model, &sim->state, i, p, quat);
  /* a quaternion the caller wrote: the unit one the step takes (u / |u|); a zero one is
   * no orientation (the step refuses it) */
  if (!unit_quaternion(quat)) normalize_quaternion(quat);
  if (quat[0] == 0.0 && quat[1] == 0.0 && quat[2] == 0.0 && quat[3] == 0.0)
    return lsim_api_fail(error_slot(sim), LSIM_INVALID_INPUT,
                         "body_pose: body %d ('%s'): its quaternion q[%d .. %d] is zero", i,
                         sim->model.bodies[i].name, sim->model.bodies[i].q_offset + 3,
                         sim->model.bodies[i].q_offset + 6);
  return 0;
}

/* ---- forces and kinematic targets ---- */

/* Replaces *s by the constant vector x[n]; reuses its memory when it already is one. */
static int set_constant(LsimSchedule *s, const double *x, int n) {
  if (!(s->npoints == 0 && s->width == n && (n == 1 || s->value))) {
    double *value = n > 1 ? malloc((size_t)n * sizeof *value) : NULL;
    if (n > 1 && !value) return LSIM_OUT_OF_MEMORY;
    lsim_schedule_free(s);
    s->npoints = 0;
    s->t = NULL;
    s->value = value;
    s->width = n;
  }
  if (n > 1) memcpy(s->value, x, (size_t)n * sizeof *x);
  s->constant = x[0];
  return 0;
}

/* Body i of the wanted type with every entry of x[nv] finite, or an error. */
static int check_body(LsimSim *sim, int i, LsimBodyType type, const double *x,
                      const char *what) {
  lsim_api_begin(sim);
  if (!sim) return LSIM_INVALID_INPUT;
  if (!sim->started) return lsim_api_fail(sim, LSIM_INVALID_INPUT, "%s: the simulation is not started", what);
  if (i < 0 || i >= sim->model.nbodies) return lsim_api_no_body(sim, what, i);
  const LsimBody *b = &sim->model.bodies[i];
  if (b->type != type)
    return lsim_api_fail(sim, LSIM_INVALID_INPUT, "%s: body %d ('%s') is not a %s body", what, i,
                         b->name, type == LSIM_BODY_DYNAMIC ? "dynamic" : "kinematic");
  if (!x) return lsim_api_fail(sim, LSIM_INVALID_INPUT, "%s: the values are NULL", what);
  for (int d = 0; d < b->nv; ++d)
    if (!isfinite(x[d]))
      return lsim_api_fail(sim, LSIM_INVALID_INPUT, "%s: component %d for '%s' is not finite",
                           what, d, b->name);
  return 0;
}

/* Replaces body's force (dynamic) or prescribed velocity (kinematic) by the constant x. */
static int set_schedule(LsimSim *sim, int body, LsimBodyType type, const double *x,
                        const char *what) {
  const int rc = check_body(sim, body, type, x, what);
  if (rc < 0) return rc;
  LsimBody *b = &sim->model.bodies[body];
  LsimSchedule *s = type == LSIM_BODY_DYNAMIC ? &b->force : &b->kinematic_velocity;
  if (set_constant(s, x, b->nv) < 0) return lsim_api_fail(sim, LSIM_OUT_OF_MEMORY, "%s: out of memory", what);
  /* A kinematic body's velocity is the prescribed one from now on (the step prescribes it
     too, at mid-step). */
  if (type == LSIM_BODY_KINEMATIC) memcpy(sim->state.v + b->v_offset, x, (size_t)b->nv * sizeof *x);
  return 0;
}

int lsim_sim_set_force(LsimSim *sim, int body, const double *f) {
  return set_schedule(sim, body, LSIM_BODY_DYNAMIC, f, "set_force");
}

int lsim_sim_set_kinematic_velocity(LsimSim *sim, int body, const double *v) {
  return set_schedule(sim, body, LSIM_BODY_KINEMATIC, v, "set_kinematic_velocity");
}

int lsim_sim_get_force(const LsimSim *sim, int body, double *f) {
  if (!sim) return LSIM_INVALID_INPUT;
  if (body < 0 || body >= sim->model.nbodies) return lsim_api_no_body(sim, "get_force", body);
  if (!f) return lsim_api_fail(error_slot(sim), LSIM_INVALID_INPUT, "get_force: f is NULL");
  const LsimBody *b = &sim->model.bodies[body];
  for (int d = 0; d < b->nv; ++d)
    f[d] = lsim_schedule_eval_component(&b->force, sim->state.time, d);
  return 0;
}

/* ---- stepping ---- */

void lsim_sim_set_controller(LsimSim *sim, LsimController fn, void *user) {
  if (!sim) return;
  sim->controller = fn;
  sim->controller_user = fn ? user : NULL;
}

/* 3-D orientations the caller may have written: the step renormalizes each quaternion
 * (q / |q|), which a zero one cannot take (it became the identity, the step's rotation
 * lost, and the step said nothing), and which under- or overflows for finite ones whose
 * squares leave the doubles (1e-170: the identity again; 1e200: NaN velocities). A zero
 * quaternion is refused; an out-of-range one is scaled by its largest entry first, which
 * leaves the direction the step normalizes, and leaves every in-range quaternion (all the
 * step itself writes) untouched, bit for bit. */
static int check_quaternions(LsimSim *sim) {
  const LsimModel *m = &sim->model;
  if (m->dimension != 3) return 0;
  for (int i = 0; i < m->nbodies; ++i) {
    const LsimBody *b = &m->bodies[i];
    if (b->nq != 7) continue;
    double *u = sim->state.q + b->q_offset + 3;
    double big = 0.0, n2 = 0.0;
    for (int k = 0; k < 4; ++k) big = fmax(big, fabs(u[k])), n2 += u[k] * u[k];
    if (big == 0.0)
      return lsim_api_fail(sim, LSIM_INVALID_INPUT,
                           "step: body %d ('%s'): its quaternion q[%d .. %d] is zero (an "
                           "orientation needs a nonzero [w, x, y, z])",
                           i, b->name, b->q_offset + 3, b->q_offset + 6);
    if (!(n2 >= DBL_MIN) || !isfinite(n2))
      for (int k = 0; k < 4; ++k) u[k] /= big;
  }
  return 0;
}

int lsim_sim_step(LsimSim *sim) {
  lsim_api_begin(sim);
  if (!sim) return LSIM_INVALID_INPUT;
  if (!sim->started)
    return lsim_api_fail(sim, LSIM_INVALID_INPUT, "step: the simulation is not started (lsim_sim_start)");
  /* A step from inside the controller would take steps the caller did not ask for, each
     calling the controller again (one step() took 5 steps, or recursed without end). */
  if (sim->in_controller)
    return lsim_api_fail(sim, LSIM_INVALID_INPUT,
                         "step: called from the simulation's own controller (the controller sets "
                         "forces and the state; lsim_sim_step takes the step after it returns)");
  if (sim->controller) {
    sim->in_controller = 1;
    const int c = sim->controller(sim, sim->controller_user);
    sim->in_controller = 0;
    if (c != 0)
      return lsim_api_fail(sim, LSIM_CONTROLLER_STOPPED, "the controller stopped the run at t = %.17g (step %d), returning %d",
                           sim->state.time, sim->state.step, c);
  }
  /* A state the caller wrote must be finite: the step would spread a NaN everywhere. */
  for (int i = 0; i < sim->model.nq; ++i)
    if (!isfinite(sim->state.q[i]))
      return lsim_api_fail(sim, LSIM_INVALID_INPUT, "step: q[%d] is not finite", i);
  for (int i = 0; i < sim->model.nv; ++i)
    if (!isfinite(sim->state.v[i]))
      return lsim_api_fail(sim, LSIM_INVALID_INPUT, "step: v[%d] is not finite", i);
  const int qrc = check_quaternions(sim);
  if (qrc < 0) return qrc;
  const int status = lsim_step(sim->stepper, &sim->model, &sim->state, &sim->last);
  sim->have_last = 1;
  if (status < 0) {
    const char *why = lsim_stepper_last_error(sim->stepper);
    lsim_api_fail(sim, status, "step %d (t = %.17g): the solver '%s' reported %s%s%s",
                  sim->state.step, sim->state.time, lsim_sim_solver(sim), lsim_status_name(status),
                  why[0] ? ": " : "", why);
  }
  /* Divergence guard (contact/guard.h): the step is not recorded, the record marked. */
  LsimStateFault fault;
  if (lsim_state_check(&sim->model, &sim->state, lsim_stepper_contacts(sim->stepper), &fault)) {
    char why[320];
    lsim_state_fault_format(&sim->model, sim->state.step, &fault, why, sizeof why);
    if (sim->record && !sim->record_stopped) {
      lsim_record_set_end(sim->record, LSIM_RUN_STOPPED, why);
      sim->record_stopped = 1;
    }
    return lsim_api_fail(sim, LSIM_DIVERGED, "%s", why);
  }
  /* A record the guard stopped ends there: the steps a caller takes after LSIM_DIVERGED
     are not its rows (they were appended after the gap, under a /summary saying the run
     stopped at the last diverged step, with rows before it that read as consecutive). */
  if (sim->record && !sim->record_stopped &&
      lsim_record_step(sim->record, &sim->model, &sim->state, lsim_stepper_contacts(sim->stepper),
                       &sim->last) < 0)
    return lsim_api_fail(sim, LSIM_IO_ERROR, "step %d: writing the record failed", sim->state.step);
  return status;
}

int lsim_sim_run(LsimSim *sim, int n) {
  lsim_api_begin(sim);
  if (!sim) return LSIM_INVALID_INPUT;
  if (n < 0) return lsim_api_fail(sim, LSIM_INVALID_INPUT, "run: the number of steps must be >= 0, got %d", n);
  for (int k = 0; k < n; ++k) {
    const int rc = lsim_sim_step(sim);
    /* A fixed sweep budget (tol 0) spent is the solver's normal end. */
    const int budget_spent = rc == LSIM_MAX_ITERATIONS && sim->model.solver.tol == 0.0;
    if (rc < 0 && !budget_spent) return rc;
  }
  lsim_api_begin(sim); /* a success: no step's spent budget is an error of the run */
  return 0;
}

int lsim_sim_last_step(const LsimSim *sim, LsimStepReport *r) {
  if (!sim) return LSIM_INVALID_INPUT;
  if (!r) return lsim_api_fail(error_slot(sim), LSIM_INVALID_INPUT, "last_step: report is NULL");
  memset(r, 0, sizeof *r);
  if (!sim->have_last) return 0;
  r->status = sim->last.status;
  r->iterations = sim->last.iterations;
  r->lcp_size = sim->last.lcp_size;
  r->ncontacts = sim->last.ncontacts;
  r->residual = sim->last.residual;
  r->relative_residual = sim->last.relative_residual;
  r->wall_time = sim->last.wall_time;
  return 0;
}

/* ---- solvers ---- */

int lsim_sim_set_solver(LsimSim *sim, const char *name, const LsimSolverConfig *cfg) {
  lsim_api_begin(sim);
  if (!sim) return LSIM_INVALID_INPUT;
  if (!name) return lsim_api_fail(sim, LSIM_INVALID_INPUT, "set_solver: the name is NULL");
  if (!sim->started)
    return lsim_api_fail(sim, LSIM_INVALID_INPUT, "set_solver: the simulation is not started");
  char msg[512] = "";
  if (lsim_api_check_config_for(name, cfg, msg, sizeof msg) < 0)
    return lsim_api_fail(sim, LSIM_INVALID_INPUT, "set_solver: %s", msg);
  const LsimSolverSettings old = sim->model.solver;
  lsim_api_settings(&sim->model.solver, name, cfg);
  LsimStepper *st = NULL;
  const int rc = lsim_stepper_create(&st, &sim->model, NULL, msg, sizeof msg);
  if (rc < 0) {
    sim->model.solver = old;
    return lsim_api_fail(sim, rc, "set_solver: %s", msg);
  }
  lsim_stepper_free(sim->stepper);
  sim->stepper = st;
  sim->have_last = 0;
  return 0;
}

int lsim_sim_solver_config(const LsimSim *sim, LsimSolverConfig *cfg) {
  if (!sim) return LSIM_INVALID_INPUT;
  if (!cfg) return lsim_api_fail(error_slot(sim), LSIM_INVALID_INPUT, "solver_config: cfg is NULL");
  const LsimSolverSettings *s = &sim->model.solver;
  cfg->tol = s->tol;
  cfg->max_iter = s->max_iter;
  cfg->omega = s->omega;
  cfg->warm_start = s->warm_start;
  cfg->threads = s->threads;
  cfg->sparse_limit = s->sparse_limit;
  cfg->principal = s->principal;
  cfg->precision = s->precision;
  return 0;
}

const char *lsim_sim_solver(const LsimSim *sim) {
  if (!sim) return NULL;
  return sim->stepper ? lsim_solver_name(lsim_stepper_solver(sim->stepper)) : sim->model.solver.name;
}

/* ---- contacts ---- */

int lsim_sim_contact_count(const LsimSim *sim) {
  if (!sim || !sim->have_last) return 0;
  return lsim_stepper_contacts(sim->stepper)->count;
}

int lsim_sim_contacts(const LsimSim *sim, LsimContactInfo *out, int cap) {
  /* A NULL output with room claimed, or a negative room, is the caller's fault whether or
   * not there are contacts (it returned 0 silently, as if the step had none). */
  if (sim && cap < 0)
    return lsim_api_fail(error_slot(sim), LSIM_INVALID_INPUT, "contacts: cap must be >= 0, got %d", cap);
  if (sim && !out && cap > 0)
    return lsim_api_fail(error_slot(sim), LSIM_INVALID_INPUT, "contacts: out is NULL (cap %d)", cap);
  const int n = lsim_sim_contact_count(sim);
  /* No contact (a NULL sim, or no step yet and so maybe no stepper): nothing to read. */
  if (n == 0 || cap == 0) return 0;
  const LsimContactSet *cs = lsim_stepper_contacts(sim->stepper);
  const int m = n < cap ? n : cap;
  for (int k = 0; k < m; ++k) {
    const LsimContact *c = &cs->contacts[k];
    LsimContactInfo *o = &out[k];
    o->id = c->id;
    o->kind = (int)c->kind;
    o->body[0] = c->body[0], o->body[1] = c->body[1];
    o->gap = c->gap;
    memcpy(o->point, c->point, sizeof o->point);
    memcpy(o->normal, c->normal, sizeof o->normal);
    o->normal_impulse = c->normal_impulse;
    memcpy(o->friction_impulse, c->friction_impulse, sizeof o->friction_impulse);
    o->slip_speed = c->slip_speed;
  }
  return m;
}

/* ---- records ---- */

/* path with its folder resolved (lsim_outfile_absolute: as given when it cannot be), malloc'd: two names
 * of a file that need not exist yet compare equal when they name the same place. NULL when
 * out of memory. */
static char *same_place(const char *path) {
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  char *dir = slash ? strndup(path, (size_t)(slash - path) + (slash == path)) : strdup(".");
  char *folder = dir ? lsim_outfile_absolute(dir) : NULL;
  const size_t len = (folder ? strlen(folder) : 0) + strlen(base) + 2;
  char *out = folder ? malloc(len) : NULL;
  if (out) snprintf(out, len, "%s/%s", folder, base);
  free(folder);
  free(dir);
  return out;
}

/* The records open in this process, by same_place path: a second simulation recording to
 * one of them, or saving a checkpoint onto it, would have its file replaced by the first's
 * close (or replace it). A list under a mutex: simulations may live in several threads. */
typedef struct LsimOpenRecord {
  const LsimSim *owner;
  const char *path; /* owner->record_path */
  struct LsimOpenRecord *next;
} LsimOpenRecord;
static LsimOpenRecord *open_records;
static pthread_mutex_t open_records_lock = PTHREAD_MUTEX_INITIALIZER;

/* Whether a simulation other than sim records to the place here (same_place). */
static int held_by_other(const LsimSim *sim, const char *here) {
  int held = 0;
  pthread_mutex_lock(&open_records_lock);
  for (const LsimOpenRecord *r = open_records; r && !held; r = r->next)
    held = r->owner != sim && !strcmp(r->path, here);
  pthread_mutex_unlock(&open_records_lock);
  return held;
}

/* Registers sim's record at here unless another simulation holds it: 0, 1 (held) or
 * LSIM_OUT_OF_MEMORY. The check and the insertion are one critical section. */
static int claim_record_path(const LsimSim *sim, const char *here) {
  LsimOpenRecord *node = malloc(sizeof *node);
  if (!node) return LSIM_OUT_OF_MEMORY;
  int held = 0;
  pthread_mutex_lock(&open_records_lock);
  for (const LsimOpenRecord *r = open_records; r && !held; r = r->next)
    held = !strcmp(r->path, here);
  if (!held) *node = (LsimOpenRecord){sim, here, open_records}, open_records = node;
  pthread_mutex_unlock(&open_records_lock);
  if (held) free(node);
  return held;
}

/* Removes sim's entry (if any) from the open records. */
static void release_record_path(const LsimSim *sim) {
  LsimOpenRecord *gone = NULL;
  pthread_mutex_lock(&open_records_lock);
  for (LsimOpenRecord **r = &open_records; *r; r = &(*r)->next)
    if ((*r)->owner == sim) {
      gone = *r, *r = gone->next;
      break;
    }
  pthread_mutex_unlock(&open_records_lock);
  free(gone);
}

int lsim_sim_record(LsimSim *sim, const char *path) {
  lsim_api_begin(sim);
  if (!sim) return LSIM_INVALID_INPUT;
  if (!path) return lsim_api_fail(sim, LSIM_INVALID_INPUT, "record: the output path is NULL");
  if (!sim->started) return lsim_api_fail(sim, LSIM_INVALID_INPUT, "record: the simulation is not started");
  if (sim->record) return lsim_api_fail(sim, LSIM_INVALID_INPUT, "record: a record is already open");
  if (!path[0]) return lsim_api_fail(sim, LSIM_INVALID_INPUT, "record: the output path is empty");
  char msg[LSIM_OUTFILE_PATH_MAX + 512] = "";
  /* The scene file the simulation came from is no output: the record would replace it. */
  const char *scene = sim->scene_path;
  if (lsim_outfile_check_inputs("output", path, "scene file", &scene, 1, msg, sizeof msg))
    return lsim_api_fail(sim, LSIM_INVALID_INPUT, "record: %s", msg);
  /* Another simulation of this process recording there: the later close would replace
   * the earlier's file. The place is claimed before the file is made. */
  char *here = same_place(path);
  if (!here) return lsim_api_fail(sim, LSIM_OUT_OF_MEMORY, "record: out of memory");
  const int held = claim_record_path(sim, here);
  if (held) {
    free(here);
    if (held < 0) return lsim_api_fail(sim, held, "record: out of memory");
    return lsim_api_fail(sim, LSIM_INVALID_INPUT, "record: output %s: another simulation in this "
                         "process is recording to it: refused (the later close would replace "
                         "the other record)", path);
  }
  const int rc = lsim_record_open(&sim->record, path, &sim->model, &sim->state, sim->scene_text,
                                  lsim_sim_solver(sim), msg, sizeof msg);
  if (rc < 0) {
    sim->record = NULL;
    release_record_path(sim);
    free(here);
    return lsim_api_fail(sim, rc, "record: %s", msg);
  }
  free(sim->record_path);
  sim->record_path = here; /* the registry entry points at it: freed after release */
  sim->record_stopped = 0;
  return 0;
}

int lsim_sim_record_every(LsimSim *sim, int every) {
  lsim_api_begin(sim);
  if (!sim) return LSIM_INVALID_INPUT;
  if (!sim->record) return lsim_api_fail(sim, LSIM_INVALID_INPUT, "record_every: no record is open");
  char msg[LSIM_OUTFILE_PATH_MAX + 512] = "";
  const int rc = lsim_record_set_every(sim->record, every, msg, sizeof msg);
  return rc < 0 ? lsim_api_fail(sim, rc, "record_every: %s", msg) : 0;
}

int lsim_sim_record_close(LsimSim *sim, int keep) {
  lsim_api_begin(sim);
  if (!sim || !sim->record) return sim ? lsim_api_fail(sim, LSIM_INVALID_INPUT, "record_close: no record is open") : LSIM_INVALID_INPUT;
  char msg[512] = "";
  const int rc = lsim_record_close(sim->record, keep, msg, sizeof msg);
  sim->record = NULL;
  release_record_path(sim);
  free(sim->record_path);
  sim->record_path = NULL;
  return rc < 0 ? lsim_api_fail(sim, rc, "record_close: %s", msg) : 0;
}

/* ---- checkpoints ---- */

/* The solver name a record of sim names (the command's: the exact-cone friction model runs
 * nsgs_aa whatever the LCP solver). */
static const char *record_solver_name(const LsimSim *sim) {
  return sim->model.friction_exact ? "nsgs_aa" : lsim_sim_solver(sim);
}

int lsim_sim_save(LsimSim *sim, const char *path) {
  lsim_api_begin(sim);
  if (!sim) return LSIM_INVALID_INPUT;
  if (!path || !path[0]) return lsim_api_fail(sim, LSIM_INVALID_INPUT, "save: the path is %s", path ? "empty" : "NULL");
  if (!sim->started) return lsim_api_fail(sim, LSIM_INVALID_INPUT, "save: the simulation is not started");
  char msg[LSIM_OUTFILE_PATH_MAX + 512] = "";
  /* The scene file the simulation came from is no output (as for records). */
  const char *scene = sim->scene_path;
  if (lsim_outfile_check_inputs("checkpoint", path, "scene file", &scene, 1, msg, sizeof msg))
    return lsim_api_fail(sim, LSIM_INVALID_INPUT, "save: %s", msg);
  /* A state that is not finite (a caller's write, a diverged run) could not be continued. */
  for (int w = 0; w < 2; ++w)
    for (int i = 0; i < (w ? sim->model.nv : sim->model.nq); ++i)
      if (!isfinite(w ? sim->state.v[i] : sim->state.q[i]))
        return lsim_api_fail(sim, LSIM_INVALID_INPUT, "save: %s[%d] is not finite: a checkpoint "
                             "of this state could not be continued", w ? "v" : "q", i);
  /* Nor is an open record's path, this simulation's or another's in this process: its
   * close would replace the checkpoint. */
  char *here = same_place(path);
  if (!here) return lsim_api_fail(sim, LSIM_OUT_OF_MEMORY, "save: out of memory");
  const int own = sim->record && sim->record_path && !strcmp(here, sim->record_path);
  const int other = !own && held_by_other(sim, here);
  free(here);
  if (own)
    return lsim_api_fail(sim, LSIM_INVALID_INPUT, "save: checkpoint %s: is the open record's "
                         "path: refused (closing the record would replace it)", path);
  if (other)
    return lsim_api_fail(sim, LSIM_INVALID_INPUT, "save: checkpoint %s: another simulation in "
                         "this process is recording to it: refused (closing that record would "
                         "replace it)", path);
  const int rc = lsim_checkpoint_write(path, &sim->model, &sim->state, &sim->initial, sim->stepper,
                                       sim->scene_text, record_solver_name(sim), msg, sizeof msg);
  return rc < 0 ? lsim_api_fail(sim, rc, "save: %s", msg) : 0;
}

int lsim_sim_restore(LsimSim *sim, const char *path) {
  lsim_api_begin(sim);
  if (!sim) return LSIM_INVALID_INPUT;
  if (!path || !path[0]) return lsim_api_fail(sim, LSIM_INVALID_INPUT, "restore: the path is %s", path ? "empty" : "NULL");
  if (!sim->started) return lsim_api_fail(sim, LSIM_INVALID_INPUT, "restore: the simulation is not started");
  if (sim->in_controller)
    return lsim_api_fail(sim, LSIM_INVALID_INPUT, "restore: called from the simulation's own controller "
                         "(restore between steps)");
  /* The record's rows would go back in time. */
  if (sim->record)
    return lsim_api_fail(sim, LSIM_INVALID_INPUT, "restore: a record is open (its rows would go back "
                         "in time): close it first (lsim_sim_record_close)");
  /* Everything is read and made aside; the simulation changes only when all succeeded. */
  char msg[2048] = "";
  LsimState st;
  LsimStepMemory mem;
  LsimStepper *stepper = NULL;
  memset(&st, 0, sizeof st);
  memset(&mem, 0, sizeof mem);
  int rc = lsim_state_init(&st, &sim->model) < 0 ? LSIM_OUT_OF_MEMORY : 0;
  if (rc) snprintf(msg, sizeof msg, "out of memory");
  if (!rc)
    rc = lsim_checkpoint_read(path, &sim->model, sim->scene_text,
                              sim->scene_name ? sim->scene_name : "<scene>", record_solver_name(sim),
                              &sim->initial, &st, &mem, msg, sizeof msg);
  if (!rc) rc = lsim_stepper_create(&stepper, &sim->model, NULL, msg, sizeof msg);
  if (!rc) rc = lsim_stepper_memory_set(stepper, &sim->model, &st, &mem, msg, sizeof msg);
  lsim_step_memory_free(&mem);
  if (rc < 0 || rc > 0) {
    lsim_stepper_free(stepper);
    lsim_state_free(&st);
    return lsim_api_fail(sim, rc < 0 ? rc : LSIM_INVALID_INPUT, "restore: %s", msg);
  }
  /* The state arrays keep their address (lcpsim.h: lsim_sim_q). */
  memcpy(sim->state.q, st.q, (size_t)sim->model.nq * sizeof(double));
  memcpy(sim->state.v, st.v, (size_t)sim->model.nv * sizeof(double));
  sim->state.time = st.time, sim->state.step = st.step;
  lsim_state_free(&st);
  lsim_stepper_free(sim->stepper);
  sim->stepper = stepper;
  sim->have_last = 0;
  return 0;
}
