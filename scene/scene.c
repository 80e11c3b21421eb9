/* scene.c: scene.json in, world out (docs/scene-format.md): the document's top level
 * (version, dimension, time, gravity, solver, contact, friction, output), syntax errors,
 * and the public entry points. The JSON toolkit is in json.c, the bodies in bodies_1d.c
 * and bodies_nd.c, tethers and joints in joints.c.
 */
#include "scene/parse.h"
#include "lcp/h5check.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact/assembly.h"
#include "contact/constraints.h"
#include "contact/guard.h"
#include "lcp/lcp.h"
#include "lcp/pgs.h"
#include "lcp/solver.h"

/* solver.KEY, a word parse() turns into *out (unchanged when absent): 0, or the parse
 * error (naming what it takes) and LSIM_INVALID_INPUT. */
static int solver_word(LsimParseCtx *c, const json_t *v, const char *key,
                       int (*parse)(const char *, int *), int *out, const char *takes) {
  char word[16] = "", path[32];
  const int given = lsim_parse_get_string(c, v, "solver", key, word, sizeof word, 0);
  if (given < 0) return LSIM_INVALID_INPUT;
  /* An empty word is refused as any other outside the list (it was taken as the key
     absent, so the environment's setting or the default applied unsaid). */
  if (!given || !parse(word, out)) return 0;
  snprintf(path, sizeof path, "solver.%s", key);
  return lsim_parse_fail(c, path, 0, "must be %s, got \"%s\"", takes, word);
}

/* pgs's sweep arithmetic: "double" 1, "float" 2 (LsimSolverOptions.precision); 0, or -1. */
static int precision_parse(const char *word, int *precision) {
  if (!strcmp(word, "double")) *precision = 1;
  else if (!strcmp(word, "float")) *precision = 2;
  else return -1;
  return 0;
}

/* "solver": a name, or an object of settings. */
static int parse_solver(LsimParseCtx *c, const json_t *root, LsimSolverSettings *s) {
  const json_t *v = json_object_get(root, "solver");
  if (!v) return 0;
  const char *name = NULL;
  const char *npath = "solver";
  if (json_is_string(v)) {
    name = json_string_value(v);
  } else if (json_is_object(v)) {
    static const char *const keys[] = {"name", "tol", "max_iter", "omega", "warm_start", "threads",
                                       "on_failure", "sparse_limit", "block_start", "lu_solve",
                                       "lu_refactor", "principal", "precision", NULL};
    if (lsim_parse_check_keys(c, v, "solver", keys) < 0) return LSIM_INVALID_INPUT;
    const json_t *n = json_object_get(v, "name");
    if (n && !json_is_string(n)) return lsim_parse_fail(c, "solver.name", 0, "must be a string, got %s", lsim_json_type_name(n));
    if (n) { name = json_string_value(n); npath = "solver.name"; }
    /* Options, each checked against what the solvers accept. */
    if (lsim_parse_get_ranged(c, v, "solver", "tol", GE0, &s->tol) < 0) return LSIM_INVALID_INPUT;
    if (lsim_parse_get_int(c, v, "solver", "max_iter", 0, INT_MAX, &s->max_iter) < 0) return LSIM_INVALID_INPUT;
    double omega = s->omega;
    const int orc = lsim_parse_get_number(c, v, "solver", "omega", &omega);
    if (orc < 0) return orc;
    if (orc && !(omega > 0 && omega < 2))
      return lsim_parse_fail(c, "solver.omega", 0, "must be in (0, 2), got %g", omega);
    s->omega = omega;
    if (lsim_parse_get_bool(c, v, "solver", "warm_start", &s->warm_start) < 0) return LSIM_INVALID_INPUT;
    if (lsim_parse_get_int(c, v, "solver", "threads", 1, LSIM_PGS_MAX_THREADS, &s->threads) < 0)
      return LSIM_INVALID_INPUT;
    if (lsim_parse_get_int(c, v, "solver", "sparse_limit", -1, INT_MAX, &s->sparse_limit) < 0)
      return LSIM_INVALID_INPUT;
    /* lemke_sparse's own (checked against the solver below) */
    if (lsim_parse_get_int(c, v, "solver", "block_start", 0, 1000, &s->block_start) < 0)
      return LSIM_INVALID_INPUT;
    if (solver_word(c, v, "lu_solve", lsim_lu_solve_parse, &s->lu_solve,
                    "\"umfpack\", \"own\", \"klu\" or \"ft\"") < 0)
      return LSIM_INVALID_INPUT;
    if (lsim_parse_get_int(c, v, "solver", "lu_refactor", 10, 100000, &s->lu_refactor) < 0)
      return LSIM_INVALID_INPUT;
    if (lsim_parse_get_int(c, v, "solver", "principal", 0, LSIM_PRINCIPAL_MAX, &s->principal) < 0)
      return LSIM_INVALID_INPUT;
    if (solver_word(c, v, "precision", precision_parse, &s->precision, "\"double\" or \"float\"") < 0)
      return LSIM_INVALID_INPUT;
    if (solver_word(c, v, "on_failure", lsim_on_failure_parse, &s->on_failure,
                    "\"fallback\", \"stop\" or \"continue\"") < 0)
      return LSIM_INVALID_INPUT;
  } else {
    return lsim_parse_fail(c, "solver", 0, "must be a solver name or an object, got %s", lsim_json_type_name(v));
  }
  /* The name must be one lsim_solver_create knows. */
  const char *const *names = lsim_solver_names();
  for (int i = 0; name && names[i]; ++i)
    if (strcmp(names[i], name) == 0) {
      snprintf(s->name, sizeof s->name, "%s", name);
      name = NULL;
      break;
    }
  if (!name) {
    /* tol 0 (a fixed sweep budget) with a solver that has no sweeps, named or the default:
       refused at the value, as lsim_solver_create would refuse it without a place. */
    const json_t *tol = json_is_object(v) ? json_object_get(v, "tol") : NULL;
    if (tol && !(s->tol > 0) &&
        (!strcmp(s->name, "lemke") || !strcmp(s->name, "lemke_sparse") || !strcmp(s->name, "newton")))
      return lsim_parse_fail(c, "solver.tol", 0, "%s needs a tolerance > 0 (tol 0 means a fixed sweep "
                             "budget, which only iterative solvers such as pgs have)", s->name);
    /* Sparse Lemke's own settings with another solver would do nothing: refused at the key. */
    static const char *const sparse_keys[] = {"block_start", "lu_solve", "lu_refactor", "principal"};
    for (int k = 0; k < 4 && json_is_object(v) && strcmp(s->name, "lemke_sparse"); ++k)
      if (json_object_get(v, sparse_keys[k])) {
        char path[32];
        snprintf(path, sizeof path, "solver.%s", sparse_keys[k]);
        return lsim_parse_fail(c, path, 0, "is a setting of lemke_sparse only; the solver is "
                               "%s (set \"name\": \"lemke_sparse\", or remove the key)", s->name);
      }
    /* pgs's arithmetic with another solver would do nothing: refused at the key. */
    if (json_is_object(v) && json_object_get(v, "precision") && strcmp(s->name, "pgs"))
      return lsim_parse_fail(c, "solver.precision", 0, "is a setting of pgs only; the solver is "
                             "%s (set \"name\": \"pgs\", or remove the key)", s->name);
    /* "float" where the sweep stays double (no fixed budget of float rows) would do
       nothing: refused at the key. */
    if (s->precision == 2 && !lsim_solver_precision_acts(s->tol, s->max_iter))
      return lsim_parse_fail(c, "solver.precision", 0, "\"float\" acts at a fixed budget only "
                             "(tol 0 and max_iter 1 to %d); this solver has tol %g, max_iter %d, "
                             "where the sweep is double (set both, or remove the key)",
                             LSIM_PGS_FLOAT_MAX_SWEEPS, s->tol, s->max_iter);
    return 0;
  }
  if (lsim_solver_is_fc_name(name))
    return lsim_parse_fail(c, npath, 0, "\"%s\" is a frictional contact solver, not an LCP "
                           "solver: a scene's solver is an LCP solver (\"lemke\", \"pgs\", "
                           "\"newton\", \"siconos:...\"); for Coulomb's exact cone set "
                           "\"friction\": {\"cone\": \"exact\"}", name);
  if (strchr(name, '['))
    /* A spec of lcpsim compare (pgs[sweeps=20]): a scene gives the options as keys. */
    return lsim_parse_fail(c, npath, 0, "unknown solver \"%s\": options in brackets are lcpsim "
                           "compare's solver specs; a scene gives them in the solver object, e.g. "
                           "{\"name\": \"pgs\", \"tol\": 0, \"max_iter\": 20} for pgs[sweeps=20]",
                           name);
  const char *sg = lsim_json_suggest(name, names);
  if (sg) return lsim_parse_fail(c, npath, 0, "unknown solver \"%s\" (did you mean \"%s\"?)", name, sg);
  return lsim_parse_fail(c, npath, 0, "unknown solver \"%s\" (try \"lemke\" or \"pgs\"; \"lcpsim solvers\" lists them all)", name);
}

/* "limits": the divergence guard's bounds (contact/guard.h), each > 0. */
static int parse_limits(LsimParseCtx *c, const json_t *root, LsimModel *m) {
  int rc;
  const json_t *l = lsim_parse_get_object(c, root, "", "limits", &rc);
  if (!l) return rc;
  static const char *const keys[] = {"max_position", "max_speed", "max_angular_speed", NULL};
  if (lsim_parse_check_keys(c, l, "limits", keys) < 0) return LSIM_INVALID_INPUT;
  if (lsim_parse_get_ranged(c, l, "limits", "max_position", GT0, &m->limits.max_position) < 0 ||
      lsim_parse_get_ranged(c, l, "limits", "max_speed", GT0, &m->limits.max_speed) < 0 ||
      lsim_parse_get_ranged(c, l, "limits", "max_angular_speed", GT0,
                            &m->limits.max_angular_speed) < 0)
    return LSIM_INVALID_INPUT;
  return 0;
}

/* "sleep": bodies at rest go to sleep (contact/sleep.c): enabled, the speeds at rest
 * (>= 0) and the time at rest before sleeping (> 0). */
static int parse_sleep(LsimParseCtx *c, const json_t *root, LsimModel *m) {
  int rc;
  const json_t *o = lsim_parse_get_object(c, root, "", "sleep", &rc);
  if (!o) return rc;
  static const char *const keys[] = {"enabled", "linear_speed", "angular_speed", "time", NULL};
  if (lsim_parse_check_keys(c, o, "sleep", keys) < 0) return LSIM_INVALID_INPUT;
  if (lsim_parse_get_bool(c, o, "sleep", "enabled", &m->sleep.enabled) < 0 ||
      lsim_parse_get_ranged(c, o, "sleep", "linear_speed", GE0, &m->sleep.linear_speed) < 0 ||
      lsim_parse_get_ranged(c, o, "sleep", "angular_speed", GE0, &m->sleep.angular_speed) < 0 ||
      lsim_parse_get_ranged(c, o, "sleep", "time", GT0, &m->sleep.time) < 0)
    return LSIM_INVALID_INPUT;
  return 0;
}

/* The initial state within the limits (a run would stop at its first step otherwise). */
static int check_initial_limits(LsimParseCtx *c, const json_t *root, const LsimModel *m,
                                const LsimState *st) {
  LsimStateFault f;
  if (lsim_state_check(m, st, NULL, &f) != LSIM_FAULT_BEYOND_LIMIT) return 0;
  const char *unit = !strcmp(f.limit_key, "max_position") ? "m"
                     : !strcmp(f.limit_key, "max_speed") ? "m/s" : "rad/s";
  char value[40]; /* the digits that show it beyond the limit */
  lsim_format_beyond(value, sizeof value, f.value, f.limit);
  const json_t *l = json_object_get(root, "limits");
  if (l && json_object_get(l, f.limit_key)) {
    char path[64];
    snprintf(path, sizeof path, "limits.%s", f.limit_key);
    return lsim_parse_fail(c, path, 0, "body '%s' starts with |%s| = %s %s, beyond this limit, %g %s",
                           m->bodies[f.body].name, f.quantity, value, unit, f.limit, unit);
  }
  /* The default limit: the place is the body's value (its object when the value comes
     from elsewhere, a grid's spacing or a default). 1-D bodies are "bodies" in order. */
  const size_t j = c->body_json ? c->body_json[f.body] : (size_t)f.body;
  const char *key = !strcmp(f.limit_key, "max_position") ? "position"
                    : !strcmp(f.limit_key, "max_speed") ? "velocity" : "angular_velocity";
  char path[PATH_CAP];
  lsim_json_path_index(path, "bodies", j);
  const json_t *bodies = json_object_get(root, "bodies");
  const json_t *body = json_array_get(bodies, j);
  if (body && json_object_get(body, key)) lsim_json_path_key(path, path, key);
  return lsim_parse_fail(c, path, 0, "body '%s' starts with |%s| = %s %s, beyond the default "
                         "limits.%s, %g %s (a scene may raise it: \"limits\": {\"%s\": ...})",
                         m->bodies[f.body].name, f.quantity, value, unit, f.limit_key, f.limit,
                         unit, f.limit_key);
}

const char *lsim_format_exact(double x, char *buf, size_t len) {
  for (int digits = 15; digits <= 17; ++digits) {
    snprintf(buf, len, "%.*g", digits, x);
    if (strtod(buf, NULL) == x) break;
  }
  return buf;
}

/* Time: "time_step" and exactly one of "steps" and "duration". */
static int parse_time(LsimParseCtx *c, const json_t *root, LsimModel *m) {
  double h;
  int rc = lsim_parse_get_number(c, root, "", "time_step", &h);
  if (rc < 0) return rc;
  if (rc == 0) return lsim_parse_missing(c, "", "time_step", "the step h in s");
  if (lsim_parse_check_range(c, "", "time_step", h, GT0) < 0) return LSIM_INVALID_INPUT;
  m->time_step = h;
  const json_t *steps = json_object_get(root, "steps"), *dur = json_object_get(root, "duration");
  if (steps && dur)
    return lsim_parse_fail(c, "duration", 1, "give either \"steps\" or \"duration\", not both");
  if (!steps && !dur)
    return lsim_parse_fail(c, "", 0, "one of \"steps\" (a count) or \"duration\" (s) is required");
  if (steps) {
    if (lsim_parse_get_int(c, root, "", "steps", 1, INT_MAX, &m->steps) < 0) return LSIM_INVALID_INPUT;
    /* The end time must be finite (steps of 1e308 s wrote t = inf). */
    if (!isfinite(h * (double)m->steps))
      return lsim_parse_fail(c, "time_step", 0, "%d steps of %g s end at a time that is not finite", m->steps, h);
    return 0;
  }
  /* duration -> steps = round(duration / h), which must be (nearly) exact. */
  double T;
  if (lsim_parse_get_number(c, root, "", "duration", &T) < 0) return LSIM_INVALID_INPUT;
  if (lsim_parse_check_range(c, "", "duration", T, GT0) < 0) return LSIM_INVALID_INPUT;
  const double r = T / h, n = round(r);
  if (n < 1 || n > INT_MAX) {
    char hs[32];
    return lsim_parse_fail(c, "duration", 0, "gives %.17g steps of %s s; must be between 1 and %d", r,
                           lsim_format_exact(h, hs, sizeof hs), INT_MAX);
  }
  if (fabs(r - n) > 1e-9 * n) {
    /* T and h to the digits that are theirs (%g named 1.0000001 s as 1 s) */
    char ts[32], hs[32];
    return lsim_parse_fail(c, "duration", 0, "%s s is not a whole number of time steps of %s s (%.12g steps)",
                           lsim_format_exact(T, ts, sizeof ts), lsim_format_exact(h, hs, sizeof hs), r);
  }
  m->steps = (int)n;
  return 0;
}

/* "friction": the polyhedral cone of 2-D/3-D contacts (1-D: the two directions of the
 * line). */
static int parse_friction(LsimParseCtx *c, const json_t *root, LsimModel *m) {
  m->friction_directions = c->dim == 3 ? 4 : 2;
  int rc;
  const json_t *f = lsim_parse_get_object(c, root, "", "friction", &rc);
  if (!f) return rc;
  static const char *const keys[] = {"directions", "cone", NULL};
  if (lsim_parse_check_keys(c, f, "friction", keys) < 0) return LSIM_INVALID_INPUT;
  char cone[16] = "polyhedral";
  if (lsim_parse_get_string(c, f, "friction", "cone", cone, sizeof cone, 0) < 0)
    return LSIM_INVALID_INPUT;
  if (strcmp(cone, "polyhedral") && strcmp(cone, "exact"))
    return lsim_parse_fail(c, "friction.cone", 0, "\"polyhedral\" or \"exact\", got \"%s\"", cone);
  m->friction_exact = !strcmp(cone, "exact");
  int d = m->friction_directions;
  if (lsim_parse_get_int(c, f, "friction", "directions", INT_MIN, INT_MAX, &d) < 0) return LSIM_INVALID_INPUT;
  if (c->dim == 2 && d != 2)
    return lsim_parse_fail(c, "friction.directions", 0, "must be 2 in 2-D (the two directions of the tangent), got %d", d);
  if (c->dim == 3 && (d < 4 || d > 16 || d % 2))
    return lsim_parse_fail(c, "friction.directions", 0, "must be even, from 4 to 16, in 3-D, got %d", d);
  if (m->friction_exact && c->dim == 3 && d % 4)
    return lsim_parse_fail(c, "friction.directions", 0, "must be a multiple of 4 with the exact "
                           "cone (the contact frame uses the directions at 0 and 90 degrees), "
                           "got %d", d);
  m->friction_directions = d;
  return 0;
}

/* "rotation": how the 3-D time step turns spinning bodies (contact/step.c, rotation_step). */
static int parse_rotation(LsimParseCtx *c, const json_t *root, LsimModel *m) {
  if (!json_object_get(root, "rotation")) return 0;
  if (c->dim != 3)
    return lsim_parse_fail(c, "rotation", 1, "applies to 3-D scenes only (a %d-D body turns about "
                           "one axis, with no gyroscopic term)", c->dim);
  if (m->integrator != LSIM_INTEGRATOR_TIME_STEPPING)
    return lsim_parse_fail(c, "rotation", 1, "applies to the time-stepping integrator only (this "
                           "scene is event-driven)");
  char name[32] = "lie_midpoint";
  if (lsim_parse_get_string(c, root, "", "rotation", name, sizeof name, 0) < 0) return LSIM_INVALID_INPUT;
  if (strcmp(name, "lie_midpoint") == 0) m->rotation = LSIM_ROTATION_LIE_MIDPOINT;
  else if (strcmp(name, "body_midpoint") == 0) m->rotation = LSIM_ROTATION_BODY_MIDPOINT;
  else
    return lsim_parse_fail(c, "rotation", 0, "must be \"lie_midpoint\" or \"body_midpoint\", got \"%s\"", name);
  return 0;
}

/* "integrator" (a name) and "event_driven" (its settings). */
static int parse_integrator(LsimParseCtx *c, const json_t *root, LsimModel *m) {
  char name[32] = "time_stepping";
  if (lsim_parse_get_string(c, root, "", "integrator", name, sizeof name, 0) < 0) return LSIM_INVALID_INPUT;
  if (strcmp(name, "event_driven") == 0) m->integrator = LSIM_INTEGRATOR_EVENT_DRIVEN;
  else if (strcmp(name, "time_stepping") != 0)
    return lsim_parse_fail(c, "integrator", 0, "must be \"time_stepping\" or \"event_driven\", got \"%s\"", name);
  /* The first sample at t = time_step: a span CVODE can step (contact/world.h). */
  if (m->integrator == LSIM_INTEGRATOR_EVENT_DRIVEN && !(m->time_step >= LSIM_EVENT_TIME_FLOOR))
    return lsim_parse_fail(c, "time_step", 0, "%g s is below %g s, too short for the event-driven "
                           "integrator's first sample (CVODE cannot step a shorter span)",
                           m->time_step, LSIM_EVENT_TIME_FLOOR);
  int rc;
  const json_t *e = lsim_parse_get_object(c, root, "", "event_driven", &rc);
  if (!e) return rc;
  /* Settings of an integrator the scene does not use would be ignored: refused. The
     impact law ("impacts") is read by `lcpsim impact` in any scene; a time-stepped run that
     asks for sequential impacts is refused where the run starts (api/sim.c). */
  if (m->integrator != LSIM_INTEGRATOR_EVENT_DRIVEN) {
    const char *key;
    const json_t *val;
    json_object_foreach((json_t *)e, key, val) {
      (void)val;
      if (strcmp(key, "impacts") != 0)
        return lsim_parse_fail(c, "event_driven", 1, "settings of the event-driven integrator (\"%s\"), "
                               "but this scene runs the time step (\"integrator\" is \"time_stepping\"): "
                               "set \"integrator\": \"event_driven\" or remove them", key);
    }
  }
  static const char *const keys[] = {"precision", "chatter_events", "chatter_window", "rtol", "atol", "impacts", NULL};
  if (lsim_parse_check_keys(c, e, "event_driven", keys) < 0) return LSIM_INVALID_INPUT;
  /* The precision has a floor (contact/world.h says why). */
  const int has_prec = lsim_parse_get_ranged(c, e, "event_driven", "precision", GT0, &m->event_precision);
  if (has_prec < 0) return LSIM_INVALID_INPUT;
  if (has_prec > 0 && !(m->event_precision >= LSIM_EVENT_PRECISION_FLOOR && isfinite(m->event_precision)))
    return lsim_parse_fail(c, "event_driven.precision", 0,
                           "must be in [%g, inf) (|g| at a located event, m for gaps: below %g "
                           "double precision cannot place a gap closing at m/s, and the run "
                           "would stop at an impact), got %g",
                           LSIM_EVENT_PRECISION_FLOOR, LSIM_EVENT_PRECISION_FLOOR, m->event_precision);
  if (lsim_parse_get_int(c, e, "event_driven", "chatter_events", 2, 1000000, &m->event_chatter_events) < 0 ||
      lsim_parse_get_ranged(c, e, "event_driven", "chatter_window", GT0, &m->event_chatter_window) < 0 ||
      lsim_parse_get_ranged(c, e, "event_driven", "rtol", GT0, &m->event_rtol) < 0 ||
      lsim_parse_get_ranged(c, e, "event_driven", "atol", GT0, &m->event_atol) < 0)
    return LSIM_INVALID_INPUT;
  /* CVODE takes a relative tolerance in (0, 1) (hybrid/ode.c); refused here at its key. */
  if (json_object_get(e, "rtol") && !(m->event_rtol < 1.0))
    return lsim_parse_fail(c, "event_driven.rtol", 0, "must be > 0 and < 1, got %g", m->event_rtol);
  /* How an impact's closed contacts are resolved: one LCP, or pair by pair. */
  char law[32] = "simultaneous";
  if (lsim_parse_get_string(c, e, "event_driven", "impacts", law, sizeof law, 0) < 0) return LSIM_INVALID_INPUT;
  if (strcmp(law, "sequential") == 0) m->event_impacts = LSIM_IMPACTS_SEQUENTIAL;
  else if (strcmp(law, "simultaneous") != 0)
    return lsim_parse_fail(c, "event_driven.impacts", 0, "must be \"simultaneous\" or \"sequential\", got \"%s\"", law);
  return 0;
}

/* "assemble": project the initial state onto the joints (contact/assembly.h: tolerance
 * 1e-12 m, at most 100 iterations); every joint's initial error is kept either way. */
static int parse_assemble(LsimParseCtx *c, const json_t *root, LsimModel *m, LsimState *st) {
  for (int j = 0; j < m->njoints; ++j)
    lsim_joint_errors(m, st, st->time, j, &m->joints[j].initial_error,
                      &m->joints[j].initial_velocity_error);
  if (lsim_parse_get_bool(c, root, "", "assemble", &m->assemble) < 0) return LSIM_INVALID_INPUT;
  if (!m->assemble) return 0;
  char msg[200];
  const int rc = lsim_assemble(m, st, 1e-12, 100, NULL, msg, sizeof msg);
  if (rc == LSIM_OUT_OF_MEMORY) return rc;
  return rc ? lsim_parse_fail(c, "assemble", 1, "%s", msg) : 0;
}

/* "contact.restitution_pairs": [{"bodies": [A, B], "restitution": e}, ...], overriding the
 * pair rule for those pairs (after the bodies: it names them). */
static int parse_restitution_pairs(LsimParseCtx *c, const json_t *root, LsimModel *m) {
  const json_t *contact = json_object_get(root, "contact");
  const json_t *arr = json_is_object(contact) ? json_object_get(contact, "restitution_pairs") : NULL;
  if (!arr) return 0;
  const char *ap = "contact.restitution_pairs";
  if (!json_is_array(arr)) return lsim_parse_fail(c, ap, 0, "must be an array of {\"bodies\": [A, B], \"restitution\": e}");
  const size_t n = json_array_size(arr);
  m->restitution_pairs = calloc(n + 1, sizeof *m->restitution_pairs);
  if (!m->restitution_pairs) return LSIM_OUT_OF_MEMORY;
  for (size_t i = 0; i < n; ++i) {
    char p[PATH_CAP], bp[PATH_CAP];
    lsim_json_path_index(p, ap, i);
    const json_t *o = json_array_get(arr, i);
    if (!json_is_object(o)) return lsim_parse_fail(c, p, 0, "must be an object, got %s", lsim_json_type_name(o));
    static const char *const keys[] = {"bodies", "restitution", NULL};
    if (lsim_parse_check_keys(c, o, p, keys) < 0) return LSIM_INVALID_INPUT;
    LsimRestitutionPair *rp = &m->restitution_pairs[i];
    const int rc = lsim_parse_get_restitution(c, o, p, &rp->restitution);
    if (rc < 0) return rc;
    if (rc == 0) return lsim_parse_missing(c, p, "restitution", "the pair's coefficient in [0, 1]");
    const json_t *b = json_object_get(o, "bodies");
    lsim_json_path_key(bp, p, "bodies");
    if (!json_is_array(b) || json_array_size(b) != 2)
      return b ? lsim_parse_fail(c, bp, 0, "must be two body names [A, B]")
               : lsim_parse_missing(c, p, "bodies", "two body names [A, B]");
    for (size_t k = 0; k < 2; ++k) {
      char np[PATH_CAP];
      lsim_json_path_index(np, bp, k);
      const char *name = json_string_value(json_array_get(b, k));
      rp->body[k] = -1;
      for (int j = 0; name && j < m->nbodies; ++j)
        if (!strcmp(m->bodies[j].name, name)) rp->body[k] = j;
      if (rp->body[k] < 0)
        return lsim_parse_fail(c, np, 0, name ? "no body is named '%s'" : "must be a body name", name);
    }
    /* A body never touches itself; a pair given twice would leave one coefficient unused. */
    if (rp->body[0] == rp->body[1]) {
      char np[PATH_CAP];
      lsim_json_path_index(np, bp, 1);
      return lsim_parse_fail(c, np, 0, "pairs '%s' with itself (a body has no contact with itself)",
                             m->bodies[rp->body[0]].name);
    }
    for (size_t j = 0; j < i; ++j) {
      const LsimRestitutionPair *q = &m->restitution_pairs[j];
      if (!((q->body[0] == rp->body[0] && q->body[1] == rp->body[1]) ||
            (q->body[0] == rp->body[1] && q->body[1] == rp->body[0])))
        continue;
      char qp[PATH_CAP];
      lsim_json_path_index(qp, ap, j);
      return lsim_parse_fail(c, bp, 0, "the pair '%s', '%s' is already given by %s (either order): "
                             "one coefficient per pair", m->bodies[rp->body[0]].name,
                             m->bodies[rp->body[1]].name, qp);
    }
    m->nrestitution_pairs = (int)i + 1;
  }
  return 0;
}

/* "output": where the CLI should write, if the scene says. */
static int parse_output(LsimParseCtx *c, const json_t *root, LsimSceneOutput *out) {
  int rc;
  const json_t *o = lsim_parse_get_object(c, root, "", "output", &rc);
  if (!o) return rc;
  static const char *const keys[] = {"file", "print", "record_every", NULL};
  if (lsim_parse_check_keys(c, o, "output", keys) < 0) return LSIM_INVALID_INPUT;
  if (lsim_parse_get_string(c, o, "output", "file", out->file, sizeof out->file, 1) < 0) return LSIM_INVALID_INPUT;
  if (lsim_parse_get_bool(c, o, "output", "print", &out->print) < 0) return LSIM_INVALID_INPUT;
  if (lsim_parse_get_int(c, o, "output", "record_every", 1, INT_MAX, &out->record_every) < 0)
    return LSIM_INVALID_INPUT;
  return 0;
}

/* The whole scene into m (bodies added; finalized), s and out. On error m may hold
 * bodies; the caller frees it. */

static int parse_scene(LsimParseCtx *c, const json_t *root, LsimModel *m, LsimState *st,
                       LsimSceneOutput *out) {
  if (!json_is_object(root))
    return lsim_parse_fail(c, "", 0, "a scene is a JSON object {...}, got %s", lsim_json_type_name(root));

  if (json_object_get(root, "hybrid"))
    return lsim_parse_fail(c, "hybrid", 1, "a hybrid-model scene: lcpsim runs it (docs/hybrid.md), "
                           "this rigid-body loader does not");
  /* Format version and dimension first: they decide what the rest means. */
  int version = 0;
  int rc = lsim_parse_get_int(c, root, "", "lcpsim", INT_MIN, INT_MAX, &version);
  if (rc < 0) return rc;
  if (rc == 0) return lsim_parse_missing(c, "", "lcpsim", "the format version: \"lcpsim\": 1");
  if (version != 1)
    return lsim_parse_fail(c, "lcpsim", 0, "unsupported format version %d (this lcpsim reads version 1)", version);
  m->dimension = 1;
  rc = lsim_parse_get_int(c, root, "", "dimension", INT_MIN, INT_MAX, &m->dimension);
  if (rc < 0) return rc;
  if (m->dimension < 1 || m->dimension > 3)
    return lsim_parse_fail(c, "dimension", 0, "must be 1, 2 or 3, got %d", m->dimension);
  const int dim = c->dim = m->dimension;

  /* Keys: 1-D as it always was; 2-D/3-D add "friction" (and reject "ground", "walls" and
     "couplings" below, with a hint). */
  static const char *const keys[] = {"$schema", "lcpsim", "name", "description", "dimension",
                                     "time_step", "steps", "duration", "gravity", "ground",
                                     "solver", "contact", "bodies", "walls", "couplings",
                                     "tethers", "joints", "baumgarte", "baumgarte_time", "output",
                                     "integrator", "event_driven", "assemble", "limits", "sleep", NULL};
  static const char *const keys_nd[] = {"$schema", "lcpsim", "name", "description", "dimension",
                                        "time_step", "steps", "duration", "gravity", "friction",
                                        "ground", "solver", "contact", "bodies", "walls", "couplings",
                                        "tethers", "joints", "baumgarte", "baumgarte_time", "output",
                                        "integrator", "event_driven", "assemble", "limits", "sleep",
                                        "rotation", NULL};
  if (dim == 1 && json_object_get(root, "friction"))
    return lsim_parse_fail(c, "friction", 1, "applies to 2-D and 3-D scenes only (1-D friction is \"ground\")");
  if (lsim_parse_check_keys(c, root, "", dim == 1 ? keys : keys_nd) < 0) return LSIM_INVALID_INPUT;
  if (dim > 1) {
    if (json_object_get(root, "ground"))
      return lsim_parse_fail(c, "ground", 1, "applies to 1-D scenes only: in %d-D the ground is a static body with a \"plane\" shape (friction from the shapes' \"mu\")", dim);
    if (json_object_get(root, "walls"))
      return lsim_parse_fail(c, "walls", 1, "applies to 1-D scenes only: in %d-D a wall is a static body with a \"plane\" or \"box\" shape", dim);
    if (json_object_get(root, "couplings"))
      return lsim_parse_fail(c, "couplings", 1, "applies to 1-D scenes only (inertial couplings of "
                             "bodies on a line): in %d-D bodies are joined by \"joints\" and \"tethers\"", dim);
  }

  /* Descriptive text: checked, not kept (the recorder keeps the whole text). */
  static const char *const texts[] = {"$schema", "name", "description", NULL};
  for (int i = 0; texts[i]; ++i) {
    const json_t *t = json_object_get(root, texts[i]);
    if (t && !json_is_string(t)) return lsim_parse_fail(c, texts[i], 0, "must be a string, got %s", lsim_json_type_name(t));
  }

  if (parse_time(c, root, m) < 0) return LSIM_INVALID_INPUT;

  /* Gravity: 1-D, an acceleration along the line; 2-D/3-D a vector (default zero). */
  if (dim == 1 && lsim_parse_get_number(c, root, "", "gravity", &m->gravity[0]) < 0) return LSIM_INVALID_INPUT;
  if (dim > 1 && lsim_parse_get_vec(c, root, "", "gravity", dim, m->gravity) < 0) return LSIM_INVALID_INPUT;

  /* Ground friction: mu for all bodies, under the normal load m g. */
  double ground_mu = 0.0;
  const json_t *ground = lsim_parse_get_object(c, root, "", "ground", &rc);
  if (rc < 0) return rc;
  if (ground) {
    static const char *const gkeys[] = {"mu", "g", NULL};
    if (lsim_parse_check_keys(c, ground, "ground", gkeys) < 0) return LSIM_INVALID_INPUT;
    if (lsim_parse_get_ranged(c, ground, "ground", "mu", GE0, &ground_mu) < 0) return LSIM_INVALID_INPUT;
    if (lsim_parse_get_ranged(c, ground, "ground", "g", GE0, &m->ground_normal_gravity) < 0) return LSIM_INVALID_INPUT;
  }

  if (parse_solver(c, root, &m->solver) < 0) return LSIM_INVALID_INPUT;
  if (parse_limits(c, root, m) < 0) return LSIM_INVALID_INPUT;
  if (parse_sleep(c, root, m) < 0) return LSIM_INVALID_INPUT;

  /* Contact detection. */
  const json_t *contact = lsim_parse_get_object(c, root, "", "contact", &rc);
  if (rc < 0) return rc;
  if (contact) {
    static const char *const ckeys[] = {"margin", "restitution_threshold", "restitution_pairs",
                                        "allow_initial_overlap", "overlap_tolerance",
                                        "max_correction_speed", NULL};
    if (lsim_parse_check_keys(c, contact, "contact", ckeys) < 0) return LSIM_INVALID_INPUT;
    if (lsim_parse_get_ranged(c, contact, "contact", "margin", GE0, &m->contact_margin) < 0) return LSIM_INVALID_INPUT;
    /* Initial overlap: refused beyond overlap_tolerance unless allowed; pushed out at
       max_correction_speed at most (docs/scene-format.md, "contact"). */
    if (lsim_parse_get_bool(c, contact, "contact", "allow_initial_overlap", &m->allow_initial_overlap) < 0 ||
        lsim_parse_get_ranged(c, contact, "contact", "overlap_tolerance", GE0, &m->overlap_tolerance) < 0 ||
        lsim_parse_get_ranged(c, contact, "contact", "max_correction_speed", GT0, &m->max_correction_speed) < 0)
      return LSIM_INVALID_INPUT;
    if (lsim_parse_get_ranged(c, contact, "contact", "restitution_threshold", GE0, &m->restitution_threshold) < 0)
      return LSIM_INVALID_INPUT;
    /* 1-D checks overlaps exactly (1e-12 m): a tolerance there was read and ignored, and
       the overlap it was meant to let pass refused without a word of it. */
    if (dim == 1 && json_object_get(contact, "overlap_tolerance"))
      return lsim_parse_fail(c, "contact.overlap_tolerance", 1, "applies to 2-D and 3-D scenes only: "
                             "1-D checks overlaps exactly (1e-12 m); \"allow_initial_overlap\": true "
                             "accepts them");
  }
  if (parse_friction(c, root, m) < 0) return LSIM_INVALID_INPUT;
  if (parse_integrator(c, root, m) < 0) return LSIM_INVALID_INPUT;
  if (m->sleep.enabled && m->integrator == LSIM_INTEGRATOR_EVENT_DRIVEN)
    return lsim_parse_fail(c, "sleep.enabled", 0, "applies to the time-stepping integrator only (this scene is event-driven)");
  if (parse_rotation(c, root, m) < 0) return LSIM_INVALID_INPUT;

  if (parse_output(c, root, out) < 0) return LSIM_INVALID_INPUT;

  /* Bodies, then walls, into the model in that order. */
  const json_t *bodies = json_object_get(root, "bodies");
  if (!bodies) return lsim_parse_missing(c, "", "bodies", "an array of bodies, at least one dynamic");
  if (!json_is_array(bodies)) return lsim_parse_fail(c, "bodies", 0, "must be an array, got %s", lsim_json_type_name(bodies));
  if (dim > 1) {
    rc = lsim_parse_bodies_nd(c, bodies, m, st);
    if (rc == 0) rc = lsim_parse_constraints(c, root, m, st);
    /* The exact cone takes contact cones only (contact/exact_cone.h): a tether's
       unilateral row would stop the run at its first step; say so here, at the tether. */
    if (rc == 0 && m->friction_exact && m->ntethers > 0)
      return lsim_parse_fail(c, "tethers[0]", 0, "a tether cannot be simulated with the exact friction "
                             "cone (friction.cone \"exact\" takes contacts only): use the "
                             "polyhedral cone, or drop the tether");
    if (rc == 0) rc = parse_restitution_pairs(c, root, m);
    if (rc == 0) rc = parse_assemble(c, root, m, st);
    return rc < 0 ? rc : lsim_parse_check_overlap_nd(c, m, st);
  }
  rc = lsim_parse_bodies_1d(c, root, bodies, ground_mu, m, st);
  if (rc == 0) rc = lsim_parse_couplings(c, json_object_get(root, "couplings"), m);
  if (rc == 0) rc = lsim_parse_constraints(c, root, m, st);
  if (rc == 0) rc = parse_restitution_pairs(c, root, m);
  if (rc == 0) rc = parse_assemble(c, root, m, st);
  return rc;
}

/* Sets err for a jansson syntax error, pointing at the start of the offending token
 * (jansson gives its end) and saying so when the token is a NaN or an infinity. */
static void syntax_error(LsimParseCtx *c, const json_error_t *je) {
  LsimSceneError *err = c->err;
  lsim_parse_set_file(err, c->name);
  err->line = je->line;
  err->column = je->column;
  if (err->line > 0 && err->column < 1) err->column = 1; /* at the end, after a newline */
  const char *msg = je->text;
  /* The token jansson quotes ("... near 'tok'") ends at byte position; find its start. */
  const char *near = strstr(msg, " near '");
  const char *start = NULL;
  if (near && c->text) {
    const char *tok = near + 7;
    const size_t tl = strlen(tok);
    const size_t len = tl > 0 && tok[tl - 1] == '\'' ? tl - 1 : 0;
    const size_t pos = (size_t)je->position;
    if (len > 0 && pos >= len && pos <= strlen(c->text) &&
        memcmp(c->text + pos - len, tok, len) == 0 && !memchr(tok, '\n', len)) {
      start = c->text + pos - len;
      int chars = 0;
      for (size_t i = 0; i < len; ++i) chars += ((unsigned char)tok[i] & 0xC0) != 0x80;
      if (err->column - chars + 1 >= 1) err->column = err->column - chars + 1;
    }
  }
  /* Non-finite numbers are a common cause: name it. */
  const char *hint = "";
  if (start) {
    const char *s = start + (*start == '-' || *start == '+');
    if (strncmp(s, "NaN", 3) == 0 || strncmp(s, "nan", 3) == 0 || strncmp(s, "Infinity", 8) == 0 ||
        strncmp(s, "inf", 3) == 0)
      hint = " (JSON has no NaN or Infinity: numbers must be finite)";
  }
  /* A text of numbers, a Siconos problem file given for a scene: "e.dat:2:1: end of file
     expected near '0'" said nothing of what the file is. */
  if (!*hint && c->text) {
    const char *p = c->text;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') ++p;
    if (isdigit((unsigned char)*p) || *p == '-')
      hint = " (a scene is a JSON object {...} and this text starts with a number: a Siconos "
             "problem file? lcpsim solve FILE solves one)";
  }
  /* An integer literal past 64 bits (jansson reads integers as such): what to write. */
  if (!strncmp(msg, "too big integer", 15)) {
    hint = " (beyond 9223372036854775807; a real number that large takes an exponent: 1.5e30)";
    /* Past jansson's token buffer it quotes no token and points after the digits: the
       column of the first one. */
    size_t pos = (size_t)je->position;
    int digits = 0;
    if (!start && c->text && pos <= strlen(c->text))
      while (pos > 0 && (isdigit((unsigned char)c->text[pos - 1]) || c->text[pos - 1] == '-'))
        --pos, ++digits;
    if (digits > 0 && err->column - digits + 1 >= 1) err->column = err->column - digits + 1;
  }
  /* A \u0000 escape: jansson names its own flag (JSON_ALLOW_NUL), which says nothing to
     the scene's author; the strings here (names, keys) end at a NUL. */
  char nulmsg[200];
  if (!strncmp(msg, "\\u0000 is not allowed", 21)) {
    snprintf(nulmsg, sizeof nulmsg, "a string holds \\u0000 (the NUL character), which names "
             "and other strings of a scene cannot hold%s", near ? near : "");
    msg = nulmsg;
  }
  /* A UTF-8 byte order mark, which some editors write first: JSON text has none
     (RFC 8259, 8.1); its bytes as jansson quotes them say nothing, so it is named
     (strncmp: a text shorter than 3 bytes stops at its NUL). */
  if (c->text && !strncmp(c->text, "\xEF\xBB\xBF", 3) && err->line == 1 && err->column <= 2) {
    err->column = 1;
    msg = "the file starts with a UTF-8 byte order mark (bytes EF BB BF), which JSON does not "
          "allow: save it as UTF-8 without BOM";
  }
  snprintf(err->message, sizeof err->message, "%s%s", msg, hint);
}

/* Parses text (len bytes, NUL-terminated) into model/state/out; on error frees all. */
static int load_text(const char *text, size_t len, const char *name, LsimModel *model,
                     LsimState *state, LsimSceneOutput *out, LsimSceneError *err) {
  LsimSceneError scratch_err;
  LsimParseCtx c = {text, name, err ? err : &scratch_err, 0, NULL};
  *model = lsim_default_model();
  memset(state, 0, sizeof *state);
  memset(out, 0, sizeof *out);
  /* An HDF5 file given for a scene (a run, comparison or checkpoint file: lcpsim RUN.h5
     said "RUN.h5:3:1: the text contains a NUL byte"). */
  if ((len >= 8 && !memcmp(text, "\x89HDF\r\n\x1a\n", 8)) ||
      (len >= LSIM_H5_USER_BLOCK + 8 && !memcmp(text + LSIM_H5_USER_BLOCK, "\x89HDF\r\n\x1a\n", 8))) {
    lsim_parse_set_file(c.err, name);
    c.err->line = c.err->column = 1;
    snprintf(c.err->message, sizeof c.err->message,
             "an HDF5 file, not a scene (a JSON text): a run, comparison or checkpoint file "
             "of lcpsim? (lcpsim view FILE shows one)");
    return LSIM_INVALID_INPUT;
  }
  /* A NUL inside the text would hide the rest from the parser. */
  const char *nul = memchr(text, '\0', len);
  if (nul) {
    lsim_parse_set_file(c.err, name);
    c.err->line = 1;
    for (const char *p = text; p < nul; ++p) {
      if (*p == '\n') { c.err->line++; c.err->column = 0; }
      else if (((unsigned char)*p & 0xC0) != 0x80) c.err->column++;
    }
    c.err->column++;
    /* A JSON text starts with '{' or '[' after blanks; a file whose first printable byte
       is something else and that holds a NUL is binary (an executable, an image, an
       archive: "lcpsim ./lcpsim" said only "1:2: the text contains a NUL byte"). */
    const char *p = text;
    while (p < nul && isspace((unsigned char)*p)) ++p;
    if (p == nul || (*p != '{' && *p != '['))
      snprintf(c.err->message, sizeof c.err->message,
               "not a text file (a NUL byte at byte %zu): a binary file, not a scene (a JSON "
               "text)", (size_t)(nul - text) + 1);
    else
      snprintf(c.err->message, sizeof c.err->message, "the text contains a NUL byte");
    return LSIM_INVALID_INPUT;
  }
  json_error_t je;
  json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);
  if (!root) {
    syntax_error(&c, &je);
    return LSIM_INVALID_INPUT;
  }
  /* A number jansson read as 0 that is not 0 (1e-400): as an overflow, an error. */
  if (lsim_scene_check_underflow(c.err, text, name)) {
    json_decref(root);
    return LSIM_INVALID_INPUT;
  }
  int rc = parse_scene(&c, root, model, state, out);
  if (rc == 0) rc = check_initial_limits(&c, root, model, state);
  json_decref(root);
  free(c.body_json);
  if (rc < 0) {
    if (rc == LSIM_OUT_OF_MEMORY) {
      lsim_parse_set_file(c.err, name);
      snprintf(c.err->message, sizeof c.err->message, "out of memory");
    }
    lsim_state_free(state);
    lsim_model_free(model);
    memset(state, 0, sizeof *state);
    *model = lsim_default_model();
    return rc;
  }
  return 0;
}

int lsim_scene_parse(const char *json, const char *name, LsimModel *model, LsimState *state,
                     LsimSceneError *err) {
  LsimSceneOutput out;
  return load_text(json, strlen(json), name, model, state, &out, err);
}

int lsim_scene_output(const char *json, const char *name, LsimSceneOutput *out,
                      LsimSceneError *err) {
  LsimModel m;
  LsimState s;
  const int rc = load_text(json, strlen(json), name, &m, &s, out, err);
  if (rc < 0) return rc;
  lsim_state_free(&s);
  lsim_model_free(&m);
  return 0;
}

/* Reads the whole file into a NUL-terminated buffer. 0 or LSIM_IO_ERROR (errno kept). */
static int read_file(const char *path, char **buf, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return LSIM_IO_ERROR;
  size_t cap = 4096, n = 0;
  char *b = malloc(cap);
  int rc = b ? 0 : LSIM_OUT_OF_MEMORY;
  while (rc == 0) {
    /* Grow, then read the next chunk. */
    if (cap - n < 2) {
      char *g = realloc(b, cap * 2);
      if (!g) { rc = LSIM_OUT_OF_MEMORY; break; }
      b = g;
      cap *= 2;
    }
    const size_t got = fread(b + n, 1, cap - n - 1, f);
    n += got;
    if (got == 0) {
      if (ferror(f)) rc = LSIM_IO_ERROR;
      break;
    }
  }
  const int saved = errno;
  fclose(f);
  errno = saved;
  if (rc < 0) {
    free(b);
    return rc;
  }
  b[n] = '\0';
  *buf = b;
  *len = n;
  return 0;
}

int lsim_scene_read_text(const char *path, char **text, size_t *len, LsimSceneError *err) {
  size_t n = 0;
  errno = 0;
  const int rc = read_file(path, text, &n);
  if (len) *len = n;
  if (rc < 0 && err) {
    lsim_parse_set_file(err, path);
    if (rc == LSIM_IO_ERROR)
      snprintf(err->message, sizeof err->message, "cannot read: %s", strerror(errno ? errno : EIO));
    else
      snprintf(err->message, sizeof err->message, "out of memory");
  }
  return rc;
}

int lsim_scene_parse_text(const char *text, size_t len, const char *name, LsimModel *model,
                          LsimState *state, LsimSceneError *err) {
  LsimSceneOutput out;
  return load_text(text, len, name, model, state, &out, err);
}

int lsim_scene_load(const char *path, LsimModel *model, LsimState *state, char **text,
                    LsimSceneError *err) {
  LsimSceneError scratch_err;
  if (!err) err = &scratch_err;
  if (text) *text = NULL;
  *model = lsim_default_model();
  memset(state, 0, sizeof *state);
  char *buf = NULL;
  size_t len = 0;
  errno = 0;
  const int rc = read_file(path, &buf, &len);
  if (rc < 0) {
    lsim_parse_set_file(err, path);
    if (rc == LSIM_IO_ERROR)
      snprintf(err->message, sizeof err->message, "cannot read: %s", strerror(errno ? errno : EIO));
    else
      snprintf(err->message, sizeof err->message, "out of memory");
    return rc;
  }
  LsimSceneOutput out;
  const int prc = load_text(buf, len, path, model, state, &out, err);
  if (prc < 0 || !text) free(buf);
  else *text = buf;
  return prc;
}
