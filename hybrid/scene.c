/* scene.c: hybrid-model scenes (scene.h, docs/hybrid.md). jansson parses; positions of
 * bad values and the error text come from the scene loader (lsim_scene_verror). */
#include "hybrid/scene.h"

#include <float.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lcp/lcp.h"

typedef struct Ctx {
  const char *text;
  const char *name;
  LsimSceneError *err;
} Ctx;

/* Fills the error for the value at path (its key when at_key); returns LSIM_INVALID_INPUT. */
static int fail(Ctx *c, const char *path, int at_key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(Ctx *c, const char *path, int at_key, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int rc = lsim_scene_verror(c->err, c->text, c->name, path, at_key, fmt, ap);
  va_end(ap);
  return rc;
}

/* Appends ", " (unless buf is empty) and word to buf[cap], truncating. */
static void append(char *buf, size_t cap, const char *word) {
  const size_t n = strlen(buf);
  if (n + 1 < cap) snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", word);
}

/* p[cap] = a + "." + b (truncated when too long). */
static void join(char *p, size_t cap, const char *a, const char *b) {
  if (snprintf(p, cap, "%s.%s", a, b) >= (int)cap) p[cap - 1] = '\0';
}

static const char *type_of(const json_t *v) {
  if (json_is_object(v)) return "an object";
  if (json_is_array(v)) return "an array";
  if (json_is_string(v)) return "a string";
  if (json_is_number(v)) return "a number";
  if (json_is_boolean(v)) return "a boolean";
  return "null";
}

/* Every key of obj must be in allowed (NULL-terminated) or in names[n]. */
static int check_keys(Ctx *c, const json_t *obj, const char *opath,
                      const char *const *allowed, const char *const *names, int n,
                      const char *what) {
  const char *key;
  json_t *v;
  json_object_foreach((json_t *)obj, key, v) {
    int ok = 0;
    for (int i = 0; allowed && allowed[i] && !ok; ++i) ok = !strcmp(key, allowed[i]);
    for (int i = 0; i < n && !ok; ++i) ok = !strcmp(key, names[i]);
    if (ok) continue;
    char p[300], list[600] = "";
    if (snprintf(p, sizeof p, "%s%s%s", opath, opath[0] ? "." : "", key) >= (int)sizeof p)
      return fail(c, opath, 0, "a key is too long");
    for (int i = 0; allowed && allowed[i]; ++i) append(list, sizeof list, allowed[i]);
    for (int i = 0; i < n; ++i) append(list, sizeof list, names[i]);
    return fail(c, p, 1, "unknown %s (known: %s)", what, list);
  }
  return 0;
}

/* A number at obj.key into *out when present (lo < v, v <= hi); 0 absent, 1 set, < 0. */
static int get_number(Ctx *c, const json_t *obj, const char *opath, const char *key,
                      double lo, int lo_open, double hi, double *out) {
  const json_t *v = json_object_get(obj, key);
  if (!v) return 0;
  char p[200];
  join(p, sizeof p, opath, key);
  if (!json_is_number(v)) return fail(c, p, 0, "must be a number, got %s", type_of(v));
  const double x = json_number_value(v);
  if (!isfinite(x) || (lo_open ? !(x > lo) : !(x >= lo)) || !(x <= hi))
    return fail(c, p, 0, "must be %s %g%s, got %g", lo_open ? ">" : ">=", lo,
                isinf(hi) ? "" : (hi == 1.0 ? " and < 1" : ""), x);
  *out = x;
  return 1;
}

static int get_count(Ctx *c, const json_t *obj, const char *opath, const char *key, int lo,
                     int *out) {
  const json_t *v = json_object_get(obj, key);
  if (!v) return 0;
  char p[200];
  join(p, sizeof p, opath, key);
  const double x = json_is_number(v) ? json_number_value(v) : NAN;
  if (!(x == floor(x) && x >= lo && x <= 1e9))
    return fail(c, p, 0, "must be an integer >= %d, got %s", lo,
                json_is_number(v) ? "a fraction or out of range" : type_of(v));
  *out = (int)x;
  return 1;
}

/* "parameters" or "initial": an object of numbers named by the model. */
static int get_values(Ctx *c, const json_t *h, const char *key, const char *const *names,
                      int n, double *out, const char *what) {
  const json_t *o = json_object_get(h, key);
  if (!o) return 0;
  char p[200];
  join(p, sizeof p, "hybrid", key);
  if (!json_is_object(o)) return fail(c, p, 0, "must be an object of %ss, got %s", what, type_of(o));
  if (check_keys(c, o, p, NULL, names, n, what) < 0) return LSIM_INVALID_INPUT;
  for (int i = 0; i < n; ++i) {
    const int rc = get_number(c, o, p, names[i], -INFINITY, 0, INFINITY, &out[i]);
    if (rc < 0) return rc;
  }
  return 0;
}

static int parse_options(Ctx *c, const json_t *h, LsimHybridOptions *o) {
  int rc;
  if ((rc = get_number(c, h, "hybrid", "final_time", 0, 1, INFINITY, &o->final_time)) < 0 ||
      (rc = get_number(c, h, "hybrid", "rtol", 0, 1, 1.0, &o->rtol)) < 0 ||
      (rc = get_number(c, h, "hybrid", "atol", 0, 1, INFINITY, &o->atol)) < 0 ||
      (rc = get_number(c, h, "hybrid", "max_step", 0, 0, INFINITY, &o->max_step)) < 0 ||
      (rc = get_number(c, h, "hybrid", "min_step", 0, 0, INFINITY, &o->min_step)) < 0 ||
      (rc = get_number(c, h, "hybrid", "stop_precision", 0, 1, INFINITY, &o->stop_precision)) < 0 ||
      (rc = get_number(c, h, "hybrid", "record_period", 0, 0, INFINITY, &o->record_period)) < 0 ||
      (rc = get_count(c, h, "hybrid", "max_stop_iterations", 1, &o->max_stop_iterations)) < 0 ||
      (rc = get_count(c, h, "hybrid", "max_chart_count", 0, &o->max_chart_count)) < 0)
    return rc;
  if (o->rtol >= 1.0) return fail(c, "hybrid.rtol", 0, "must be < 1, got %g", o->rtol);
  /* A span CVODE can step (hybrid/ode.h): it stopped with "tstop behind t" below 1e-161 s. */
  if (o->final_time < LSIM_ODE_TIME_FLOOR)
    return fail(c, "hybrid.final_time", 0, "%g s is below %g s, too short for CVODE to step",
                o->final_time, LSIM_ODE_TIME_FLOOR);
  /* Samples at multiples of the period: at most as many as a run has steps (1e-300 s
     over 1 s never ended, writing GBs of samples at t = 0). */
  if (o->record_period > 0 && o->final_time / o->record_period > LSIM_HYBRID_MAX_SAMPLES)
    return fail(c, json_object_get(h, "record_period") ? "hybrid.record_period" : "hybrid.final_time",
                0, "final_time %g s / record_period %g s gives %.3g samples; at most %d",
                o->final_time, o->record_period, fmin(o->final_time / o->record_period, DBL_MAX),
                LSIM_HYBRID_MAX_SAMPLES);
  if (o->max_step > 0 && o->min_step > o->max_step)
    return fail(c, "hybrid.min_step", 0, "exceeds max_step (%g > %g)", o->min_step, o->max_step);
  const json_t *m = json_object_get(h, "method");
  if (m) {
    const char *s = json_is_string(m) ? json_string_value(m) : "";
    if (!strcmp(s, "adams")) o->method = LSIM_ODE_ADAMS;
    else if (!strcmp(s, "bdf")) o->method = LSIM_ODE_BDF;
    else return fail(c, "hybrid.method", 0, "must be \"adams\" (non-stiff) or \"bdf\" (stiff)");
  }
  return 0;
}

static int parse_output(Ctx *c, const json_t *root, LsimHybridScene *s) {
  const json_t *o = json_object_get(root, "output");
  if (!o) return 0;
  if (!json_is_object(o)) return fail(c, "output", 0, "must be an object, got %s", type_of(o));
  static const char *const keys[] = {"file", "print", NULL};
  if (check_keys(c, o, "output", keys, NULL, 0, "key") < 0) return LSIM_INVALID_INPUT;
  const json_t *f = json_object_get(o, "file");
  if (f) {
    if (!json_is_string(f) || !json_string_value(f)[0])
      return fail(c, "output.file", 0, "must be a non-empty string");
    if (strlen(json_string_value(f)) >= sizeof s->output_file)
      return fail(c, "output.file", 0, "is too long");
    snprintf(s->output_file, sizeof s->output_file, "%s", json_string_value(f));
  }
  const json_t *pr = json_object_get(o, "print");
  if (pr) {
    if (!json_is_boolean(pr)) return fail(c, "output.print", 0, "must be true or false");
    s->print = json_is_true(pr);
  }
  return 0;
}

static int parse_root(Ctx *c, const json_t *root, LsimHybridScene *s) {
  if (!json_is_object(root)) return fail(c, "", 0, "a scene is a JSON object {...}");
  static const char *const top[] = {"$schema", "lcpsim", "name", "description", "hybrid",
                                    "output", NULL};
  if (check_keys(c, root, "", top, NULL, 0, "key (a hybrid scene has no bodies)") < 0)
    return LSIM_INVALID_INPUT;
  const json_t *ver = json_object_get(root, "lcpsim");
  if (!ver) return fail(c, "", 0, "missing \"lcpsim\": the format version, \"lcpsim\": 1");
  if (!json_is_integer(ver) || json_integer_value(ver) != 1)
    return fail(c, "lcpsim", 0, "unsupported format version (this lcpsim reads version 1)");
  const json_t *h = json_object_get(root, "hybrid");
  if (!json_is_object(h)) return fail(c, "hybrid", 0, "must be an object, got %s", type_of(h));
  static const char *const keys[] = {"model", "parameters", "initial", "chart", "final_time",
                                     "rtol", "atol", "max_step", "min_step", "stop_precision",
                                     "max_stop_iterations", "max_chart_count", "record_period",
                                     "method", NULL};
  if (check_keys(c, h, "hybrid", keys, NULL, 0, "key") < 0) return LSIM_INVALID_INPUT;

  /* The model and its defaults. */
  const json_t *mn = json_object_get(h, "model");
  if (!mn) return fail(c, "hybrid", 0, "missing \"model\": the hybrid model's name");
  if (!json_is_string(mn)) return fail(c, "hybrid.model", 0, "must be a string, got %s", type_of(mn));
  const LsimHybridModel *m = lsim_hybrid_model_find(json_string_value(mn));
  if (!m) {
    char list[300] = "";
    for (int i = 0; lsim_hybrid_model_at(i); ++i)
      append(list, sizeof list, lsim_hybrid_model_at(i)->name);
    return fail(c, "hybrid.model", 0, "unknown model '%s' (models: %s)", json_string_value(mn), list);
  }
  if (m->nstates > LSIM_HYBRID_MAX_VALUES || m->nparams > LSIM_HYBRID_MAX_VALUES)
    return fail(c, "hybrid.model", 0, "model '%s' has more than %d states or parameters",
                m->name, LSIM_HYBRID_MAX_VALUES);
  s->model = m;
  memcpy(s->params, m->default_params, (size_t)m->nparams * sizeof *s->params);
  memcpy(s->initial, m->default_state, (size_t)m->nstates * sizeof *s->initial);
  s->chart = -1;
  s->options = lsim_hybrid_default_options();

  int rc;
  if ((rc = get_values(c, h, "parameters", m->param_names, m->nparams, s->params, "parameter")) < 0 ||
      (rc = get_values(c, h, "initial", m->state_names, m->nstates, s->initial, "state")) < 0)
    return rc;
  if (m->check_params) {
    char msg[200];
    if (m->check_params(s->params, msg, sizeof msg)) {
      /* The parameter the message opens with, where the scene gives it, named with its value
         (said 'hybrid.parameters: mass must be > 0' at the object) */
      const json_t *given = json_object_get(h, "parameters");
      const size_t len = strcspn(msg, " ,");
      const int one = msg[len] == ' '; /* (a list of names: the object) */
      for (int i = 0; given && one && i < m->nparams; ++i) {
        if (strlen(m->param_names[i]) != len || strncmp(msg, m->param_names[i], len) ||
            !json_object_get(given, m->param_names[i]))
          continue;
        char path[160];
        join(path, sizeof path, "hybrid.parameters", m->param_names[i]);
        return fail(c, path, 0, "%s, got %g", msg, s->params[i]);
      }
      return fail(c, given ? "hybrid.parameters" : "hybrid.model", 0, "%s", msg);
    }
  }
  const json_t *ch = json_object_get(h, "chart");
  if (ch) {
    const char *cn = json_is_string(ch) ? json_string_value(ch) : "";
    for (int i = 0; i < m->ncharts; ++i)
      if (!strcmp(cn, m->charts[i].name)) s->chart = i;
    if (s->chart < 0) {
      char list[300] = "";
      for (int i = 0; i < m->ncharts; ++i) append(list, sizeof list, m->charts[i].name);
      return fail(c, "hybrid.chart", 0, "must name a chart of %s (%s)", m->name, list);
    }
  }
  /* The model must accept the initial state and chart as the run will. */
  double x[LSIM_HYBRID_MAX_VALUES];
  memcpy(x, s->initial, (size_t)m->nstates * sizeof *x);
  int chart = s->chart;
  char msg[200] = "";
  const char *where = ch ? "hybrid.chart" : json_object_get(h, "initial") ? "hybrid.initial" : "hybrid";
  if (m->init_chart(x, s->params, &chart, msg, sizeof msg) ||
      (m->validate && m->validate(0.0, x, s->params, chart, msg, sizeof msg)))
    return fail(c, where, 0, "%s", msg[0] ? msg : "no chart for the initial state");
  if ((rc = parse_options(c, h, &s->options)) < 0) return rc;
  return parse_output(c, root, s);
}

int lsim_hybrid_scene_detect(const char *text) {
  json_t *root = json_loads(text, JSON_DECODE_ANY, NULL);
  const int yes = root && json_is_object(root) && json_object_get(root, "hybrid");
  json_decref(root);
  return yes;
}

int lsim_hybrid_scene_parse(const char *text, const char *name, LsimHybridScene *s,
                            LsimSceneError *err) {
  memset(s, 0, sizeof *s);
  Ctx c = {text, name, err};
  json_error_t je;
  json_t *root = json_loads(text, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);
  if (!root) {
    memset(err, 0, sizeof *err);
    snprintf(err->file, sizeof err->file, "%s", name ? name : "<scene>");
    err->line = je.line;
    err->column = je.column;
    snprintf(err->message, sizeof err->message, "%s", je.text);
    return LSIM_INVALID_INPUT;
  }
  if (lsim_scene_check_underflow(err, text, name)) {
    json_decref(root);
    return LSIM_INVALID_INPUT;
  }
  const int rc = parse_root(&c, root, s);
  json_decref(root);
  return rc < 0 ? LSIM_INVALID_INPUT : 0;
}
