/* parse.h: private to scene/: the scene reader's parsing context, its JSON toolkit
 * (json.c) and the parts of the document each file reads (bodies_1d.c, bodies_nd.c,
 * joints.c), called by the top level in scene.c. Not installed. */
#ifndef LSIM_SCENE_PARSE_H
#define LSIM_SCENE_PARSE_H

#include <jansson.h>
#include <stddef.h>

#include "contact/world.h"
#include "scene/scene.h"

#define PATH_CAP 512     /* internal JSON paths; err->path keeps the first 127 chars */

/* One parse: the text (for error positions), its file name, where errors go, and the
 * scene's dimension once read. */
typedef struct LsimParseCtx {
  const char *text;
  const char *name;
  LsimSceneError *err;
  int dim;                /* the scene's dimension, once read */
  size_t *body_json;      /* 2-D / 3-D: each model body's index in "bodies" (grid copies
                             share theirs), set by lsim_parse_bodies_nd; freed by the
                             loader */
} LsimParseCtx;

/* ---- json.c: paths, positions, errors ---- */

/* Writes parent + key (parent + "[i]") into out[PATH_CAP]; keys that are not plain
 * identifiers are written ["like this"]. Returns 0, or 1 when truncated. */
int lsim_json_path_key(char *out, const char *parent, const char *key);
int lsim_json_path_index(char *out, const char *parent, size_t i);

/* "object", "array", "string", "number", "boolean" or "null". */
const char *lsim_json_type_name(const json_t *v);

/* The closest of the NULL-terminated words to w, if close enough to be a typo; else NULL. */
const char *lsim_json_suggest(const char *w, const char *const *words);

/* Clears err and names the file (name, or "<scene>"). */
void lsim_parse_set_file(LsimSceneError *err, const char *name);

/* Fills the error for the value at path (its key when at_key) with its line:column, and
 * returns LSIM_INVALID_INPUT. */
int lsim_parse_fail(LsimParseCtx *c, const char *path, int at_key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Rejects any key of obj not in allowed (the first one in the text is reported, with a
 * suggestion when it looks like a typo). 0 or LSIM_INVALID_INPUT. */
int lsim_parse_check_keys(LsimParseCtx *c, const json_t *obj, const char *opath,
                          const char *const *allowed);

/* ---- json.c: typed getters. Each returns 1 when the key is present (and *out is set), 0
 * when it is absent (*out untouched), < 0 on a wrong type (error filled). ---- */

int lsim_parse_get_number(LsimParseCtx *c, const json_t *obj, const char *opath,
                          const char *key, double *out);
/* An integer in [lo, hi]; integral reals like 30.0 are accepted. */
int lsim_parse_get_int(LsimParseCtx *c, const json_t *obj, const char *opath, const char *key,
                       int lo, int hi, int *out);
/* A string of at most cap - 1 bytes (nonempty when nonempty is set). */
int lsim_parse_get_string(LsimParseCtx *c, const json_t *obj, const char *opath,
                          const char *key, char *out, size_t cap, int nonempty);
int lsim_parse_get_bool(LsimParseCtx *c, const json_t *obj, const char *opath,
                        const char *key, int *out);
/* An object member that must be an object (or absent: returns NULL with *rc = 0). */
const json_t *lsim_parse_get_object(LsimParseCtx *c, const json_t *obj, const char *opath,
                                    const char *key, int *rc);
/* The largest mass (kg) and inertia entry (kg m^2) a scene may give or imply: the step
 * multiplies masses and inertias by one another's inverses and by velocities, and past
 * about 1e154 (the square root of the largest double) those products overflow (a sphere of
 * 1e163 kg at rest on the ground failed 40 of its first 50 steps with Lemke, secondary
 * rays). 1e150 leaves four decades for velocities, lengths and time steps. */
#define LSIM_SCENE_MASS_MAX 1e150

/* Range checks of a number already read from opath.key: GT0 (> 0) or GE0 (>= 0). */
enum { GT0, GE0 };
int lsim_parse_check_range(LsimParseCtx *c, const char *opath, const char *key, double v,
                           int kind);
/* A number that, when present, must satisfy kind; *out keeps its default otherwise. */
int lsim_parse_get_ranged(LsimParseCtx *c, const json_t *obj, const char *opath,
                          const char *key, int kind, double *out);
/* A body's "restitution", when present: a coefficient in [0, 1] (same returns). */
int lsim_parse_get_restitution(LsimParseCtx *c, const json_t *obj, const char *opath,
                               double *out);
/* Error for a required key that is absent; what says what it holds. */
int lsim_parse_missing(LsimParseCtx *c, const char *opath, const char *key, const char *what);
/* The array at path p as n numbers into out: 0 or LSIM_INVALID_INPUT. */
int lsim_parse_read_vec(LsimParseCtx *c, const json_t *v, const char *p, int n, double *out);
/* opath.key as n numbers: 1 when present, 0 when absent, < 0 on error. */
int lsim_parse_get_vec(LsimParseCtx *c, const json_t *obj, const char *opath, const char *key,
                       int n, double *out);
/* A key of keys[] that must not be there: error at the key with the reason why. */
int lsim_parse_reject_keys(LsimParseCtx *c, const json_t *o, const char *path,
                           const char *const *keys, const char *why);
/* A schedule at path: a number (constant) or {"table": [[t, value], ...]} of width values
 * per row. 0 (s owns its tables) or < 0 (nothing allocated). */
int lsim_parse_schedule(LsimParseCtx *c, const json_t *v, const char *path, int width,
                        LsimSchedule *s);

/* ---- the parts of the document ---- */

/* bodies_1d.c: "bodies" and "walls" of a 1-D scene (ground_mu the scene's default) into
 * m (finalized) and the initial state st. On error m may hold bodies; the caller frees. */
int lsim_parse_bodies_1d(LsimParseCtx *c, const json_t *root, const json_t *bodies,
                         double ground_mu, LsimModel *m, LsimState *st);
/* bodies_1d.c: adds *b to the model (1-D and 2-D/3-D); frees its schedules when that
 * fails. 0 or < 0. */
int lsim_parse_add_body(LsimModel *m, LsimBody *b);
/* bodies_1d.c: "couplings" (1-D; arr may be NULL) into m, after the bodies. */
int lsim_parse_couplings(LsimParseCtx *c, const json_t *arr, LsimModel *m);
/* bodies_nd.c: "bodies" of a 2-D/3-D scene into m (finalized) and the initial state. */
int lsim_parse_bodies_nd(LsimParseCtx *c, const json_t *bodies, LsimModel *m, LsimState *st);
/* The first body, in model order, whose name an earlier body has: *dup, with the earliest
 * body of that name in *earlier (sorted by name, O(n log n): pair by pair took minutes for
 * 10^5 bodies). 1 found, 0 none (both -1), LSIM_OUT_OF_MEMORY. */
int lsim_parse_duplicate_name(const LsimModel *m, int *dup, int *earlier);

/* 2-D / 3-D: refuses bodies that overlap in the initial state by more than
 * m->overlap_tolerance (the deepest pair named, with its depth), unless
 * m->allow_initial_overlap. 0 or LSIM_INVALID_INPUT / LSIM_OUT_OF_MEMORY. */
int lsim_parse_check_overlap_nd(LsimParseCtx *c, const LsimModel *m, const LsimState *st);
/* joints.c: "tethers", "joints" and "baumgarte" into m (bodies and st already there). */
int lsim_parse_constraints(LsimParseCtx *c, const json_t *root, LsimModel *m,
                           const LsimState *st);

#endif
