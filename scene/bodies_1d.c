/* bodies_1d.c: the bodies, walls and couplings of a 1-D scene (docs/scene-format.md,
 * "1-D scenes"): segments on a line, static half-lines, inertial couplings, and the
 * start-overlap checks that name both bodies. */
#include "scene/parse.h"

#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lcp/lcp.h"

#define OVERLAP_TOL 1e-12 /* m: overlaps at start up to this are contact, not overlap */

/* Settings that apply to all bodies unless a body overrides them. */
typedef struct Defaults {
  double ground_mu;
} Defaults;

/* Where each body came from, for checks that name two bodies. */
typedef struct Origin {
  char path[PATH_CAP];   /* "bodies[1]" or "walls[0]" */
  int named;             /* the name was given (else it is a default) */
  double velocity;       /* dynamic bodies: the initial velocity */
} Origin;

/* Names unique among bodies and walls: the first, in model order, whose name an earlier
 * one has is reported, with the earliest that has it (lsim_parse_duplicate_name). */
static int check_names(LsimParseCtx *c, const LsimModel *m, const Origin *org) {
  int i, j;
  const int rc = lsim_parse_duplicate_name(m, &i, &j);
  if (rc < 0) return rc;
  if (rc == 0) return 0;
  char p[PATH_CAP];
  if (org[i].named) lsim_json_path_key(p, org[i].path, "name");
  else snprintf(p, sizeof p, "%s", org[i].path);
  return lsim_parse_fail(c, p, 0, "name '%s' is already used by %s%s", m->bodies[i].name, org[j].path,
              org[i].named ? "" : " (give this one a \"name\")");
}

/* One entry of "bodies": a dynamic or kinematic body, into *b (schedules owned by b). */
static int parse_body(LsimParseCtx *c, const json_t *o, const char *path, size_t index,
                      const Defaults *d, LsimBody *b, Origin *org) {
  *b = lsim_default_body();
  snprintf(org->path, sizeof org->path, "%s", path);
  if (!json_is_object(o)) return lsim_parse_fail(c, path, 0, "must be an object, got %s", lsim_json_type_name(o));

  /* The type first: it decides which keys apply. */
  char type[32] = "dynamic";
  if (lsim_parse_get_string(c, o, path, "type", type, sizeof type, 0) < 0) return LSIM_INVALID_INPUT;
  int kinematic = 0;
  if (strcmp(type, "kinematic") == 0) {
    kinematic = 1;
  } else if (strcmp(type, "dynamic") != 0) {
    char p[PATH_CAP];
    lsim_json_path_key(p, path, "type");
    return lsim_parse_fail(c, p, 0, "must be \"dynamic\" or \"kinematic\", got \"%s\"%s", type,
                strcmp(type, "static") == 0 ? " (fixed bodies go in \"walls\")" : "");
  }
  static const char *const keys[] = {"name", "type", "position", "velocity", "mass",
                                     "width", "ground_mu", "force", "restitution", NULL};
  if (lsim_parse_check_keys(c, o, path, keys) < 0) return LSIM_INVALID_INPUT;
  if (kinematic) {
    static const char *const not_kin[] = {"force", "ground_mu", NULL};
    for (int i = 0; not_kin[i]; ++i) {
      if (!json_object_get(o, not_kin[i])) continue;
      char p[PATH_CAP];
      lsim_json_path_key(p, path, not_kin[i]);
      return lsim_parse_fail(c, p, 1, "does not apply to a kinematic body (its velocity is prescribed)");
    }
  }

  /* Name (default "body<index>"). */
  const int rc = lsim_parse_get_string(c, o, path, "name", b->name, sizeof b->name, 1);
  if (rc < 0) return rc;
  org->named = rc;
  if (!rc) snprintf(b->name, sizeof b->name, "body%zu", index);

  /* Geometry and inertia. */
  double x = 0.0;
  if (lsim_parse_get_number(c, o, path, "position", &x) < 0) return LSIM_INVALID_INPUT;
  if (lsim_parse_get_ranged(c, o, path, "mass", GT0, &b->mass) < 0) return LSIM_INVALID_INPUT;
  if (b->mass > LSIM_SCENE_MASS_MAX) {
    char p[PATH_CAP];
    lsim_json_path_key(p, path, "mass");
    return lsim_parse_fail(c, p, 0, "%g kg is more than %g kg, the largest mass a scene may give (products of masses overflow double precision past about 1e154)",
                           b->mass, LSIM_SCENE_MASS_MAX);
  }
  if (lsim_parse_get_ranged(c, o, path, "width", GE0, &b->width) < 0) return LSIM_INVALID_INPUT;
  b->type = kinematic ? LSIM_BODY_KINEMATIC : LSIM_BODY_DYNAMIC;
  b->shape = LSIM_SHAPE_SEGMENT;
  b->pose[0] = x;
  b->ground_mu = kinematic ? 0.0 : d->ground_mu;
  if (lsim_parse_get_ranged(c, o, path, "ground_mu", GE0, &b->ground_mu) < 0) return LSIM_INVALID_INPUT;
  if (lsim_parse_get_restitution(c, o, path, &b->restitution) < 0) return LSIM_INVALID_INPUT;

  /* Velocity: the initial value (dynamic) or the prescribed schedule (kinematic). */
  const json_t *vel = json_object_get(o, "velocity");
  char vp[PATH_CAP];
  lsim_json_path_key(vp, path, "velocity");
  if (kinematic) {
    if (vel && lsim_parse_schedule(c, vel, vp, 1, &b->kinematic_velocity) < 0)
      return LSIM_INVALID_INPUT;
  } else if (vel) {
    if (!json_is_number(vel))
      return lsim_parse_fail(c, vp, 0, "must be a number, got %s%s", lsim_json_type_name(vel),
                  json_is_object(vel) ? " (tables are for kinematic bodies)" : "");
    org->velocity = json_number_value(vel);
  }

  /* Applied force along the line. */
  const json_t *force = json_object_get(o, "force");
  if (force) {
    char fp[PATH_CAP];
    lsim_json_path_key(fp, path, "force");
    const int frc = lsim_parse_schedule(c, force, fp, 1, &b->force);
    if (frc < 0) {
      lsim_schedule_free(&b->kinematic_velocity);
      return frc;
    }
  }
  return 0;
}

/* One entry of "walls": a static half-line. */
static int parse_wall(LsimParseCtx *c, const json_t *o, const char *path, size_t index, LsimBody *b,
                      Origin *org) {
  *b = lsim_default_body();
  snprintf(org->path, sizeof org->path, "%s", path);
  if (!json_is_object(o)) return lsim_parse_fail(c, path, 0, "must be an object, got %s", lsim_json_type_name(o));
  static const char *const keys[] = {"name", "position", "side", "restitution", NULL};
  if (lsim_parse_check_keys(c, o, path, keys) < 0) return LSIM_INVALID_INPUT;
  const int rc = lsim_parse_get_string(c, o, path, "name", b->name, sizeof b->name, 1);
  if (rc < 0) return rc;
  org->named = rc;
  if (!rc) snprintf(b->name, sizeof b->name, "wall%zu", index);
  double x = 0.0;
  if (lsim_parse_get_number(c, o, path, "position", &x) < 0) return LSIM_INVALID_INPUT;
  char side[16];
  const int src = lsim_parse_get_string(c, o, path, "side", side, sizeof side, 0);
  if (src < 0) return src;
  if (src == 0) return lsim_parse_missing(c, path, "side", "\"left\": occupies x <= position, \"right\": x >= position");
  if (strcmp(side, "left") != 0 && strcmp(side, "right") != 0) {
    char p[PATH_CAP];
    lsim_json_path_key(p, path, "side");
    return lsim_parse_fail(c, p, 0, "must be \"left\" (occupies x <= position) or \"right\" (x >= position), got \"%s\"", side);
  }
  /* A static body: no coordinates, no mass, no friction of its own. */
  b->type = LSIM_BODY_STATIC;
  b->shape = LSIM_SHAPE_HALFLINE;
  b->side = side[0] == 'l' ? -1 : 1;
  b->pose[0] = x;
  b->mass = 0.0;
  b->width = 0.0;
  b->ground_mu = 0.0;
  return lsim_parse_get_restitution(c, o, path, &b->restitution) < 0 ? LSIM_INVALID_INPUT : 0;
}

/* Adds *b to the model; frees its schedules when that fails. */
int lsim_parse_add_body(LsimModel *m, LsimBody *b) {
  const int rc = lsim_model_add_body(m, b);
  if (rc < 0) {
    lsim_schedule_free(&b->force);
    lsim_schedule_free(&b->kinematic_velocity);
  }
  return rc < 0 ? rc : 0;
}

/* The start-overlap error of bodies i and j (j < i) in the given pass (0: two walls;
 * 1: a body and a body or a wall), or 0 when they do not overlap. */
static int pair_error(LsimParseCtx *c, const LsimModel *m, const Origin *org, int pass, int i,
                      int j) {
  const LsimBody *a = &m->bodies[i], *b = &m->bodies[j];
  const int walls = (a->type == LSIM_BODY_STATIC) + (b->type == LSIM_BODY_STATIC);
  if ((pass == 0) != (walls == 2)) return 0;
  char p[PATH_CAP];
  if (walls == 2) {
    /* A left wall must not reach past a right wall. */
    const LsimBody *l = a->side < 0 ? a : b, *r = a->side < 0 ? b : a;
    if (a->side != b->side && l->pose[0] - r->pose[0] > OVERLAP_TOL) {
      lsim_json_path_key(p, org[i].path, "position");
      return lsim_parse_fail(c, p, 0, "wall '%s' (x <= %g) overlaps wall '%s' (x >= %g): no room between them",
                  l->name, l->pose[0], r->name, r->pose[0]);
    }
  } else if (walls == 0) {
    /* Two segments [x - w/2, x + w/2]. */
    const double alo = a->pose[0] - a->width / 2, ahi = a->pose[0] + a->width / 2;
    const double blo = b->pose[0] - b->width / 2, bhi = b->pose[0] + b->width / 2;
    const double overlap = fmin(ahi, bhi) - fmax(alo, blo);
    if (overlap > OVERLAP_TOL) {
      lsim_json_path_key(p, org[i].path, "position");
      return lsim_parse_fail(c, p, 0, "'%s' [%g, %g] overlaps '%s' (%s) [%g, %g] at the start by %g",
                  a->name, alo, ahi, b->name, org[j].path, blo, bhi, overlap);
    }
  } else {
    /* A segment and a wall: the segment must be on the free side. */
    const LsimBody *w = a->type == LSIM_BODY_STATIC ? a : b;
    const LsimBody *sg = a->type == LSIM_BODY_STATIC ? b : a;
    const int si = a->type == LSIM_BODY_STATIC ? j : i;
    const double lo = sg->pose[0] - sg->width / 2, hi = sg->pose[0] + sg->width / 2;
    const double depth = w->side < 0 ? w->pose[0] - lo : hi - w->pose[0];
    if (depth > OVERLAP_TOL) {
      lsim_json_path_key(p, org[si].path, "position");
      return lsim_parse_fail(c, p, 0, "'%s' [%g, %g] is inside wall '%s' (occupies x %s %g) by %g",
                  sg->name, lo, hi, w->name, w->side < 0 ? "<=" : ">=", w->pose[0], depth);
    }
  }
  return 0;
}

typedef struct Span {
  double lo, hi;
} Span;

static int span_cmp(const void *x, const void *y) {
  const double a = ((const Span *)x)->lo, b = ((const Span *)y)->lo;
  return (a > b) - (a < b);
}

/* 1 when bodies[0 .. k-1] hold a pair that pair_error refuses in this pass, else 0, in
 * O(k log k): pass 0 compares the rightmost left wall with the leftmost right wall; pass 1
 * sorts the segments by their left ends, each overlapping most the earlier one reaching
 * furthest right, and compares the segments' extremes with the walls'. */
static int any_overlap(const LsimModel *m, int k, int pass, Span *sp) {
  double left = -INFINITY, right = INFINITY, lo = INFINITY, hi = -INFINITY;
  int n = 0;
  for (int i = 0; i < k; ++i) {
    const LsimBody *b = &m->bodies[i];
    if (b->type == LSIM_BODY_STATIC) {
      if (b->side < 0) left = fmax(left, b->pose[0]);
      else right = fmin(right, b->pose[0]);
      continue;
    }
    sp[n].lo = b->pose[0] - b->width / 2, sp[n].hi = b->pose[0] + b->width / 2;
    lo = fmin(lo, sp[n].lo), hi = fmax(hi, sp[n].hi);
    ++n;
  }
  if (pass == 0) return left - right > OVERLAP_TOL;
  if (left - lo > OVERLAP_TOL || hi - right > OVERLAP_TOL) return 1;
  qsort(sp, (size_t)n, sizeof *sp, span_cmp);
  double reach = -INFINITY;
  for (int i = 0; i < n; ++i) {
    if (i > 0 && fmin(sp[i].hi, reach) - sp[i].lo > OVERLAP_TOL) return 1;
    reach = fmax(reach, sp[i].hi);
  }
  return 0;
}

/* Start overlaps: walls with walls first (no room between them is the root cause of
 * everything else), then bodies with each other and with walls. The error names the pair
 * (i, j < i) with the least i, then the least j, as comparing every pair in that order
 * would, but in O(n log^2 n): the least i is the least k - 1 for which bodies[0 .. k-1]
 * hold an overlap (a bisection, any_overlap each time), then j is sought below it (a
 * scene of 20000 bodies took a minute pair by pair). */
static int check_overlaps(LsimParseCtx *c, const LsimModel *m, const Origin *org) {
  const int n = m->nbodies;
  Span *sp = malloc(((size_t)n + 1) * sizeof *sp);
  if (!sp) return LSIM_OUT_OF_MEMORY;
  int rc = 0;
  for (int pass = 0; pass < 2 && rc == 0; ++pass) {
    if (pass == 1 && m->allow_initial_overlap) break; /* "allow_initial_overlap" */
    if (!any_overlap(m, n, pass, sp)) continue;
    int good = 1, bad = n; /* bodies[0 .. good-1] hold none, bodies[0 .. bad-1] one */
    while (bad - good > 1) {
      const int mid = good + (bad - good) / 2;
      if (any_overlap(m, mid, pass, sp)) bad = mid;
      else good = mid;
    }
    const int i = bad - 1;
    for (int j = 0; j < i && rc == 0; ++j) rc = pair_error(c, m, org, pass, i, j);
  }
  free(sp);
  return rc;
}


/* "couplings" (1-D): [{"bodies": ["A", "B"], "inertia": k}], inertial couplings of two
 * dynamic bodies, kinetic energy k (v_A - v_B)^2 / 2; the step then factors the coupled
 * mass matrix with CHOLMOD. */
int lsim_parse_couplings(LsimParseCtx *c, const json_t *arr, LsimModel *m) {
  if (!arr) return 0;
  if (!json_is_array(arr)) return lsim_parse_fail(c, "couplings", 0, "must be an array, got %s", lsim_json_type_name(arr));
  const size_t n = json_array_size(arr);
  m->couplings = calloc(n + 1, sizeof *m->couplings);
  if (!m->couplings) return LSIM_OUT_OF_MEMORY;
  for (size_t k = 0; k < n; ++k) {
    char p[PATH_CAP], pb[PATH_CAP + 16];
    lsim_json_path_index(p, "couplings", k);
    const json_t *o = json_array_get(arr, k);
    if (!json_is_object(o)) return lsim_parse_fail(c, p, 0, "must be an object {\"bodies\": [...], \"inertia\": ...}, got %s", lsim_json_type_name(o));
    static const char *const ckeys[] = {"bodies", "inertia", NULL};
    if (lsim_parse_check_keys(c, o, p, ckeys) < 0) return LSIM_INVALID_INPUT;
    LsimCoupling *cp = &m->couplings[k];
    cp->inertia = -1.0;
    int rc = lsim_parse_get_ranged(c, o, p, "inertia", GT0, &cp->inertia);
    if (rc < 0) return rc;
    if (!(cp->inertia > 0.0)) return lsim_parse_missing(c, p, "inertia", "the coupling's inertia (kg), > 0");
    const json_t *names = json_object_get(o, "bodies");
    snprintf(pb, sizeof pb, "%s.bodies", p);
    if (!names) return lsim_parse_missing(c, p, "bodies", "the two coupled bodies' names");
    if (!json_is_array(names) || json_array_size(names) != 2)
      return lsim_parse_fail(c, pb, 0, "must be an array of two body names");
    for (int j = 0; j < 2; ++j) {
      char pj[PATH_CAP + 48];
      snprintf(pj, sizeof pj, "%s[%d]", pb, j);
      const json_t *nm = json_array_get(names, (size_t)j);
      if (!json_is_string(nm)) return lsim_parse_fail(c, pj, 0, "must be a body name (string), got %s", lsim_json_type_name(nm));
      cp->body[j] = -1;
      for (int i = 0; i < m->nbodies; ++i)
        if (!strcmp(m->bodies[i].name, json_string_value(nm))) cp->body[j] = i;
      if (cp->body[j] < 0) return lsim_parse_fail(c, pj, 0, "no body named '%s'", json_string_value(nm));
      if (m->bodies[cp->body[j]].type != LSIM_BODY_DYNAMIC)
        return lsim_parse_fail(c, pj, 0, "'%s' is not a dynamic body: only dynamic bodies can be coupled", json_string_value(nm));
    }
    if (cp->body[0] == cp->body[1]) return lsim_parse_fail(c, pb, 0, "a body cannot be coupled to itself");
    m->ncouplings = (int)k + 1;
  }
  return 0;
}

/* "bodies" and "walls" of a 1-D scene, in that order, into m (finalized) and the
 * initial state st: q = position, v = velocity. */
int lsim_parse_bodies_1d(LsimParseCtx *c, const json_t *root, const json_t *bodies,
                         double ground_mu, LsimModel *m, LsimState *st) {
  const Defaults d = {ground_mu};
  int rc;
  const json_t *walls = json_object_get(root, "walls");
  if (walls && !json_is_array(walls)) return lsim_parse_fail(c, "walls", 0, "must be an array, got %s", lsim_json_type_name(walls));
  const size_t nb = json_array_size(bodies), nw = walls ? json_array_size(walls) : 0;
  if (nb + nw > (size_t)INT_MAX / 2) return lsim_parse_fail(c, "bodies", 0, "too many bodies");
  Origin *org = calloc(nb + nw + 1, sizeof *org);
  if (!org) return LSIM_OUT_OF_MEMORY;
  int ndynamic = 0;
  rc = 0;
  for (size_t k = 0; k < nb + nw && rc == 0; ++k) {
    const int is_wall = k >= nb;
    const size_t idx = is_wall ? k - nb : k;
    char p[PATH_CAP];
    lsim_json_path_index(p, is_wall ? "walls" : "bodies", idx);
    LsimBody b;
    Origin *o = &org[m->nbodies];
    rc = is_wall ? parse_wall(c, json_array_get(walls, idx), p, idx, &b, o)
                 : parse_body(c, json_array_get(bodies, idx), p, idx, &d, &b, o);
    if (rc < 0) break;
    ndynamic += b.type == LSIM_BODY_DYNAMIC;
    rc = lsim_parse_add_body(m, &b);
  }
  if (rc == 0) rc = check_names(c, m, org);
  if (rc == 0 && ndynamic == 0)
    rc = lsim_parse_fail(c, "bodies", 0, "at least one dynamic body is required");
  if (rc == 0) rc = check_overlaps(c, m, org);

  /* Coordinates and the initial state: q = position, v = velocity. */
  if (rc == 0) rc = lsim_model_finalize(m);
  if (rc == 0) rc = lsim_state_init(st, m);
  for (int i = 0; rc == 0 && i < m->nbodies; ++i) {
    const LsimBody *b = &m->bodies[i];
    if (b->type == LSIM_BODY_STATIC) continue;
    st->q[b->q_offset] = b->pose[0];
    st->v[b->v_offset] = b->type == LSIM_BODY_KINEMATIC
                             ? lsim_schedule_eval(&b->kinematic_velocity, 0.0)
                             : org[i].velocity;
  }
  free(org);
  return rc;
}
