/* joints.c: the tethers, joints and Baumgarte factor of a scene
 * (docs/scene-format.md). */
#include "scene/parse.h"

#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lcp/lcp.h"
#include "contact/constraints.h"

/* ------------------------------------------------------------------------------------
 * Tethers and joints: "tethers": [{"name", "length", "ends": [END, END]}], "joints":
 * [{"name", "type": "pin" | "rod", "length", "ends": [END, END], "collide"}], END one of
 * {"body": NAME, "point": [...]}, {"world": [...]}, {"path": {...}}.
 * ---------------------------------------------------------------------------------- */

#define TETHER_STRETCH_TOL 1e-9 /* m: a tether may start this much beyond its length */
#define ROD_MIN_LENGTH 1e-9     /* m: a rod's shortest length and initial end distance */

/* The index of the body named name, or -1. */
static int body_by_name(const LsimModel *m, const char *name) {
  for (int i = 0; i < m->nbodies; ++i)
    if (strcmp(m->bodies[i].name, name) == 0) return i;
  return -1;
}

/* "path": {"origin", "velocity", "amplitude", "frequency", "phase"} or {"origin",
 * "table": [[t, vx(, vy(, vz))], ...]} into a (world end). */
static int parse_path(LsimParseCtx *c, const json_t *o, const char *p, LsimAnchor *a) {
  const int dim = c->dim;
  if (!json_is_object(o))
    return lsim_parse_fail(c, p, 0, "must be an object {\"origin\": [...], \"velocity\": [...], ...} or {\"origin\": [...], \"table\": [[t, v...], ...]}, got %s",
                lsim_json_type_name(o));
  static const char *const keys[] = {"origin", "velocity", "amplitude", "frequency", "phase",
                                     "table", NULL};
  if (lsim_parse_check_keys(c, o, p, keys) < 0) return LSIM_INVALID_INPUT;
  LsimMotion *mo = &a->motion;
  int rc = lsim_parse_get_vec(c, o, p, "origin", dim, mo->origin);
  if (rc < 0) return rc;
  if (rc == 0) return lsim_parse_missing(c, p, "origin", "the anchor's world position at t = 0");
  const json_t *table = json_object_get(o, "table");
  if (table) {
    /* A velocity table, read as a schedule of width dim, stored with width 3. */
    static const char *const sine[] = {"velocity", "amplitude", "frequency", "phase", NULL};
    if (lsim_parse_reject_keys(c, o, p, sine, "give either a \"table\" of velocities or \"velocity\"/\"amplitude\", not both") < 0)
      return LSIM_INVALID_INPUT;
    json_t *wrap = json_object();
    if (!wrap || json_object_set(wrap, "table", (json_t *)table) < 0) {
      json_decref(wrap);
      return LSIM_OUT_OF_MEMORY;
    }
    LsimSchedule s;
    rc = lsim_parse_schedule(c, wrap, p, dim, &s);
    json_decref(wrap);
    if (rc < 0) return rc;
    double *v3 = calloc((size_t)s.npoints * 3, sizeof *v3);
    if (!v3) {
      lsim_schedule_free(&s);
      return LSIM_OUT_OF_MEMORY;
    }
    for (int k = 0; k < s.npoints; ++k)
      for (int d = 0; d < dim; ++d) v3[3 * k + d] = s.value[(size_t)k * dim + d];
    free(s.value);
    s.value = v3;
    s.width = 3;
    mo->kind = LSIM_MOTION_TABLE;
    mo->table = s;
    return 0;
  }
  /* Constant velocity plus an optional sine (amplitude and frequency go together). */
  mo->kind = LSIM_MOTION_VELOCITY;
  if (lsim_parse_get_vec(c, o, p, "velocity", dim, mo->velocity) < 0) return LSIM_INVALID_INPUT;
  const int has_amp = lsim_parse_get_vec(c, o, p, "amplitude", dim, mo->amplitude);
  if (has_amp < 0) return has_amp;
  rc = lsim_parse_get_ranged(c, o, p, "frequency", GE0, &mo->frequency);
  if (rc < 0) return rc;
  if (has_amp && rc == 0) return lsim_parse_missing(c, p, "frequency", "the sine's frequency in Hz, with \"amplitude\"");
  if (!has_amp && rc) return lsim_parse_missing(c, p, "amplitude", "the sine's amplitude [...] in m, with \"frequency\"");
  if (lsim_parse_get_number(c, o, p, "phase", &mo->phase) < 0) return LSIM_INVALID_INPUT;
  if (!has_amp && json_object_get(o, "phase"))
    return lsim_parse_fail(c, p, 0, "\"phase\" needs \"amplitude\" and \"frequency\"");
  if (!json_object_get(o, "velocity") && !has_amp)
    return lsim_parse_fail(c, p, 0, "a path needs \"velocity\", \"amplitude\" and \"frequency\", or \"table\" (a fixed point is {\"world\": [...]})");
  return 0;
}

/* One END at path p into a. */
static int parse_end(LsimParseCtx *c, const LsimModel *m, const json_t *o, const char *p, LsimAnchor *a) {
  const int dim = c->dim;
  memset(a, 0, sizeof *a);
  a->body = -1;
  if (!json_is_object(o))
    return lsim_parse_fail(c, p, 0, "must be {\"body\": NAME, \"point\": [...]}, {\"world\": [...]} or {\"path\": {...}}, got %s",
                lsim_json_type_name(o));
  static const char *const keys[] = {"body", "point", "world", "path", NULL};
  if (lsim_parse_check_keys(c, o, p, keys) < 0) return LSIM_INVALID_INPUT;
  const int nkinds = (json_object_get(o, "body") != NULL) + (json_object_get(o, "world") != NULL) +
                     (json_object_get(o, "path") != NULL);
  if (nkinds != 1)
    return lsim_parse_fail(c, p, 0, "give exactly one of \"body\", \"world\" and \"path\"%s",
                nkinds ? "" : " (the end's body, fixed world point or moving path)");
  if (json_object_get(o, "body")) {
    /* A body point, in the body frame (default its origin). */
    char name[48];
    if (lsim_parse_get_string(c, o, p, "body", name, sizeof name, 1) < 0) return LSIM_INVALID_INPUT;
    a->body = body_by_name(m, name);
    if (a->body < 0) {
      char bp[PATH_CAP];
      lsim_json_path_key(bp, p, "body");
      /* A body replicated by its grid has only its copies' names (NAME_i_j(_k)). */
      char first[64];
      snprintf(first, sizeof first, "%s_0_0%s", name, dim == 3 ? "_0" : "");
      if (dim > 1 && body_by_name(m, first) >= 0)
        return lsim_parse_fail(c, bp, 0, "no body named '%s': its grid made copies named %s_i_j%s "
                               "(e.g. '%s'); name one of them", name, name, dim == 3 ? "_k" : "",
                               first);
      return lsim_parse_fail(c, bp, 0, "no body named '%s'", name);
    }
    return lsim_parse_get_vec(c, o, p, "point", dim, a->point) < 0 ? LSIM_INVALID_INPUT : 0;
  }
  if (json_object_get(o, "point")) {
    char pp[PATH_CAP];
    lsim_json_path_key(pp, p, "point");
    return lsim_parse_fail(c, pp, 1, "applies to body ends only (\"world\" is the point itself)");
  }
  if (json_object_get(o, "world")) {
    a->motion.kind = LSIM_MOTION_FIXED;
    return lsim_parse_get_vec(c, o, p, "world", dim, a->motion.origin) < 0 ? LSIM_INVALID_INPUT : 0;
  }
  char pp[PATH_CAP];
  lsim_json_path_key(pp, p, "path");
  return parse_path(c, json_object_get(o, "path"), pp, a);
}

/* "ends": [END, END] of the object at p: end 0 on a dynamic body, the ends not on one
 * body. */
static int parse_ends(LsimParseCtx *c, const LsimModel *m, const json_t *o, const char *p,
                      LsimAnchor end[2]) {
  const json_t *ends = json_object_get(o, "ends");
  if (!ends) return lsim_parse_missing(c, p, "ends", "[END, END]: the first on a dynamic body");
  char ep[PATH_CAP];
  lsim_json_path_key(ep, p, "ends");
  if (!json_is_array(ends) || json_array_size(ends) != 2)
    return json_is_array(ends)
               ? lsim_parse_fail(c, ep, 0, "must have two ends [END, END], got %zu", json_array_size(ends))
               : lsim_parse_fail(c, ep, 0, "must be an array of two ends [END, END], got %s", lsim_json_type_name(ends));
  for (int k = 0; k < 2; ++k) {
    char kp[PATH_CAP];
    lsim_json_path_index(kp, ep, (size_t)k);
    if (parse_end(c, m, json_array_get(ends, (size_t)k), kp, &end[k]) < 0) return LSIM_INVALID_INPUT;
  }
  char k0[PATH_CAP];
  lsim_json_path_index(k0, ep, 0);
  if (end[0].body < 0 || m->bodies[end[0].body].type != LSIM_BODY_DYNAMIC)
    return lsim_parse_fail(c, k0, 0, "the first end must be on a dynamic body%s",
                end[0].body >= 0 ? " (swap the ends?)" : "");
  if (end[1].body == end[0].body) {
    char k1[PATH_CAP];
    lsim_json_path_index(k1, ep, 1);
    return lsim_parse_fail(c, k1, 0, "both ends are on body '%s'", m->bodies[end[0].body].name);
  }
  return 0;
}

/* A constraint's "name" (default prefix + index), unique among names[0 .. i-1]. */
static int parse_constraint_name(LsimParseCtx *c, const json_t *o, const char *p, const char *prefix,
                                 size_t i, char *name, size_t stride, const char *first) {
  snprintf(name, 48, "%s%zu", prefix, i);
  if (lsim_parse_get_string(c, o, p, "name", name, 48, 1) < 0) return LSIM_INVALID_INPUT;
  for (size_t j = 0; j < i; ++j) {
    if (strcmp(first + j * stride, name) != 0) continue;
    char np[PATH_CAP];
    if (json_object_get(o, "name")) lsim_json_path_key(np, p, "name");
    else snprintf(np, sizeof np, "%s", p);
    return lsim_parse_fail(c, np, 0, "name '%s' is already used by %s[%zu]", name,
                strcmp(prefix, "tether") == 0 ? "tethers" : "joints", j);
  }
  return 0;
}

/* "tethers", "joints", "baumgarte" and "baumgarte_time" of the scene into m (bodies and the initial state
 * st already there). */
int lsim_parse_constraints(LsimParseCtx *c, const json_t *root, LsimModel *m, const LsimState *st) {
  double beta = 0.0, tstab = 0.0;
  int rc = lsim_parse_get_number(c, root, "", "baumgarte", &beta);
  if (rc < 0) return rc;
  if (rc && !(beta >= 0.0 && beta <= 1.0))
    return lsim_parse_fail(c, "baumgarte", 0,
                           "must be in [0, 1] (0, the default: c = 1, the whole error in one step), got %g", beta);
  /* "baumgarte_time": RBDL's time constant T_stab; the per-step factor c = h / T takes
     the error back as (1 - h / T)^k, e^(-t / T) to first order in h / T. */
  const int have_beta = rc;
  rc = lsim_parse_get_number(c, root, "", "baumgarte_time", &tstab);
  if (rc < 0) return rc;
  if (rc && have_beta)
    return lsim_parse_fail(c, "baumgarte_time", 0, "give \"baumgarte\" or \"baumgarte_time\", not both");
  if (rc && !(tstab >= m->time_step && isfinite(tstab)))
    return lsim_parse_fail(c, "baumgarte_time", 0,
                           "must be >= time_step %g (c = time_step / baumgarte_time <= 1), got %g",
                           m->time_step, tstab);
  if (rc) beta = m->time_step / tstab;
  m->baumgarte = beta;

  /* Tethers: length > 0, not overstretched at the start. */
  const json_t *ta = json_object_get(root, "tethers");
  if (ta && !json_is_array(ta)) return lsim_parse_fail(c, "tethers", 0, "must be an array, got %s", lsim_json_type_name(ta));
  const size_t nt = ta ? json_array_size(ta) : 0;
  if (nt > (size_t)INT_MAX / 4) return lsim_parse_fail(c, "tethers", 0, "too many tethers");
  if (nt > 0) {
    m->tethers = calloc(nt, sizeof *m->tethers);
    if (!m->tethers) return LSIM_OUT_OF_MEMORY;
    m->ntethers = (int)nt; /* zeroed entries free cleanly on error */
  }
  for (size_t i = 0; i < nt; ++i) {
    char p[PATH_CAP];
    lsim_json_path_index(p, "tethers", i);
    const json_t *o = json_array_get(ta, i);
    if (!json_is_object(o))
      return lsim_parse_fail(c, p, 0, "must be an object {\"name\", \"length\", \"ends\"}, got %s", lsim_json_type_name(o));
    static const char *const keys[] = {"name", "length", "ends", NULL};
    if (lsim_parse_check_keys(c, o, p, keys) < 0) return LSIM_INVALID_INPUT;
    LsimTether *t = &m->tethers[i];
    if (parse_constraint_name(c, o, p, "tether", i, t->name, sizeof *t, m->tethers[0].name) < 0)
      return LSIM_INVALID_INPUT;
    rc = lsim_parse_get_ranged(c, o, p, "length", GT0, &t->length);
    if (rc < 0) return rc;
    if (rc == 0) return lsim_parse_missing(c, p, "length", "the tether's length in m, > 0");
    if (parse_ends(c, m, o, p, t->end) < 0) return LSIM_INVALID_INPUT;
    const double d = lsim_tether_length(m, st, 0.0, (int)i);
    if (d > t->length + TETHER_STRETCH_TOL) {
      char lp[PATH_CAP];
      lsim_json_path_key(lp, p, "length");
      return lsim_parse_fail(c, lp, 0, "the tether would start overstretched: its ends are %.12g m apart, more than its length %g",
                  d, t->length);
    }
  }

  /* Joints: a pin takes no length; a rod's defaults to the initial distance. */
  const json_t *ja = json_object_get(root, "joints");
  if (ja && !json_is_array(ja)) return lsim_parse_fail(c, "joints", 0, "must be an array, got %s", lsim_json_type_name(ja));
  const size_t nj = ja ? json_array_size(ja) : 0;
  if (nj > (size_t)INT_MAX / 4) return lsim_parse_fail(c, "joints", 0, "too many joints");
  if (nj > 0) {
    m->joints = calloc(nj, sizeof *m->joints);
    if (!m->joints) return LSIM_OUT_OF_MEMORY;
    m->njoints = (int)nj;
  }
  for (size_t i = 0; i < nj; ++i) {
    char p[PATH_CAP];
    lsim_json_path_index(p, "joints", i);
    const json_t *o = json_array_get(ja, i);
    if (!json_is_object(o))
      return lsim_parse_fail(c, p, 0, "must be an object {\"name\", \"type\", \"ends\"}, got %s", lsim_json_type_name(o));
    static const char *const keys[] = {"name", "type", "length", "ends", "collide", NULL};
    if (lsim_parse_check_keys(c, o, p, keys) < 0) return LSIM_INVALID_INPUT;
    LsimJoint *j = &m->joints[i];
    if (parse_constraint_name(c, o, p, "joint", i, j->name, sizeof *j, m->joints[0].name) < 0)
      return LSIM_INVALID_INPUT;
    char type[16];
    rc = lsim_parse_get_string(c, o, p, "type", type, sizeof type, 0);
    if (rc == 0) return lsim_parse_missing(c, p, "type", "\"pin\" (the ends coincide) or \"rod\" (fixed distance)");
    char tp[PATH_CAP];
    lsim_json_path_key(tp, p, "type");
    if (rc < 0 || (strcmp(type, "pin") != 0 && strcmp(type, "rod") != 0))
      return rc < 0 ? rc : lsim_parse_fail(c, tp, 0, "must be \"pin\" or \"rod\", got \"%s\"%s", type,
                                strcmp(type, "ball") == 0 ? " (a 3-D ball joint is a \"pin\")" : "");
    j->type = strcmp(type, "pin") == 0 ? LSIM_JOINT_PIN : LSIM_JOINT_ROD;
    if (j->type == LSIM_JOINT_PIN && json_object_get(o, "length")) {
      char lp[PATH_CAP];
      lsim_json_path_key(lp, p, "length");
      return lsim_parse_fail(c, lp, 1, "applies to rods only (a pin joins two points)");
    }
    rc = lsim_parse_get_ranged(c, o, p, "length", GT0, &j->length);
    if (rc < 0) return rc;
    if (parse_ends(c, m, o, p, j->end) < 0) return LSIM_INVALID_INPUT;
    /* "collide" (default true): false drops every contact between the two ends' bodies. */
    int collide = 1;
    if (lsim_parse_get_bool(c, o, p, "collide", &collide) < 0) return LSIM_INVALID_INPUT;
    j->no_collide = !collide;
    if (j->type == LSIM_JOINT_ROD) {
      /* A rod holds its ends apart along the line between them: ends closer than
         ROD_MIN_LENGTH at the start, or a shorter length, leave that line to round-off
         (a rod between two coincident face midpoints bent its hinge 0.2 rad). */
      const double given = j->length;
      j->length = 0.0;
      const double d0 = lsim_joint_error(m, st, 0.0, (int)i);
      if (rc == 1 && given < ROD_MIN_LENGTH) {
        char lp[PATH_CAP];
        lsim_json_path_key(lp, p, "length");
        return lsim_parse_fail(c, lp, 0, "%g m is below %g m: a rod that short has no direction to hold (make it a \"pin\")",
                               given, ROD_MIN_LENGTH);
      }
      if (!(d0 >= ROD_MIN_LENGTH))
        return lsim_parse_fail(c, p, 0, "the rod's ends coincide at the start (%.3g m apart, below %g m: the rod's direction is undefined): start them apart (or make it a \"pin\")",
                               d0, ROD_MIN_LENGTH);
      j->length = rc == 1 ? given : d0;
    }
  }
  return 0;
}
