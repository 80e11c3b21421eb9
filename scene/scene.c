/* scene.c: scene.json in, world out (docs/scene-format.md).
 *
 * jansson parses and checks the syntax (with line:column for syntax errors). jansson
 * keeps no positions per value, so for semantic errors a small scanner walks the
 * (already valid) text again, tracking the JSON path of every value, until it reaches
 * the path of the offending value; errors are rare, so positions cost nothing when the
 * scene is good. Every error names the file, line:column, JSON path and what is wrong.
 */
#include "scene/scene.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact/constraints.h"
#include "contact/math3.h"
#include "lcp/lcp.h"
#include "lcp/random.h"
#include "lcp/pgs.h"
#include "lcp/solver.h"

#define PATH_CAP 512     /* internal JSON paths; err->path keeps the first 127 chars */
#define KEY_CAP 256      /* decoded keys in the scanner */
#define OVERLAP_TOL 1e-12 /* m: overlaps at start up to this are contact, not overlap */

/* ------------------------------------------------------------------------------------
 * JSON paths: "bodies[0].force.table[2][0]"; keys that are not plain identifiers are
 * written ["like this"] so that a path names one value.
 * ---------------------------------------------------------------------------------- */

static int key_is_plain(const char *k) {
  if (!*k) return 0;
  for (const char *p = k; *p; ++p) {
    const char c = *p;
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
          c == '_' || c == '$'))
      return 0;
  }
  return 1;
}

/* out[PATH_CAP] = parent + a + b + c (parent may be out itself). Returns 0, or 1 when
 * truncated. */
static int path_cat(char *out, const char *parent, const char *a, const char *b,
                    const char *c) {
  size_t n = strlen(parent);
  int trunc = n >= PATH_CAP;
  if (trunc) n = PATH_CAP - 1;
  memmove(out, parent, n);
  const char *parts[3] = {a, b, c};
  for (int i = 0; i < 3; ++i) {
    const size_t k = strlen(parts[i]), room = PATH_CAP - 1 - n;
    trunc |= k > room;
    memcpy(out + n, parts[i], k > room ? room : k);
    n += k > room ? room : k;
  }
  out[n] = '\0';
  return trunc;
}

/* Writes parent + key into out[PATH_CAP]. Returns 0, or 1 when truncated. */
static int path_key(char *out, const char *parent, const char *key) {
  if (!key_is_plain(key)) return path_cat(out, parent, "[\"", key, "\"]");
  return path_cat(out, parent, parent[0] ? "." : "", key, "");
}

/* Writes parent + "[i]" into out[PATH_CAP]. Returns 0, or 1 when truncated. */
static int path_index(char *out, const char *parent, size_t i) {
  char num[32];
  snprintf(num, sizeof num, "[%zu]", i);
  return path_cat(out, parent, num, "", "");
}

/* Cuts the last component off path (in place); "" stays "". */
static void path_parent(char *path) {
  size_t n = strlen(path);
  if (n == 0) return;
  if (path[n - 1] == ']') {
    /* An index [i] or a quoted key ["..."]. */
    char *open = NULL;
    if (n >= 2 && path[n - 2] == '"') {
      for (char *p = path + n - 3; p >= path; --p)
        if (p[0] == '[' && p[1] == '"') { open = p; break; }
    } else {
      open = strrchr(path, '[');
    }
    if (open) { *open = '\0'; return; }
  }
  char *dot = strrchr(path, '.');
  if (dot) *dot = '\0';
  else path[0] = '\0';
}

/* ------------------------------------------------------------------------------------
 * Position scanner. Walks valid JSON text keeping the path of the current value and
 * stops at the target path. Lines and columns are 1-based; columns count characters
 * (UTF-8 sequences count once), as jansson's do.
 * ---------------------------------------------------------------------------------- */

typedef struct Scanner {
  const char *p;
  int line, chars;        /* chars: characters before p on its line */
  const char *target;
  char path[PATH_CAP];
  int truncated;          /* > 0 while the current path did not fit */
  int done;
  int key_line, key_col;  /* the target's key, when the target is an object member */
  int val_line, val_col;
} Scanner;

static void sc_adv(Scanner *s) {
  const unsigned char c = (unsigned char)*s->p;
  if (!c) return;
  s->p++;
  if (c == '\n') {
    s->line++;
    s->chars = 0;
  } else if ((c & 0xC0) != 0x80) {
    s->chars++;
  }
}

static void sc_ws(Scanner *s) {
  while (*s->p == ' ' || *s->p == '\t' || *s->p == '\r' || *s->p == '\n') sc_adv(s);
}

static int hex4(const char *p, unsigned *out) {
  unsigned v = 0;
  for (int i = 0; i < 4; ++i) {
    const char c = p[i];
    v <<= 4;
    if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
    else return -1;
  }
  *out = v;
  return 0;
}

/* Appends code point cp as UTF-8 to buf[cap] at *n (dropped when it does not fit). */
static void put_utf8(char *buf, size_t cap, size_t *n, unsigned cp) {
  char t[4];
  size_t k;
  if (cp < 0x80) { t[0] = (char)cp; k = 1; }
  else if (cp < 0x800) { t[0] = (char)(0xC0 | (cp >> 6)); t[1] = (char)(0x80 | (cp & 0x3F)); k = 2; }
  else if (cp < 0x10000) {
    t[0] = (char)(0xE0 | (cp >> 12)); t[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    t[2] = (char)(0x80 | (cp & 0x3F)); k = 3;
  } else {
    t[0] = (char)(0xF0 | (cp >> 18)); t[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    t[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); t[3] = (char)(0x80 | (cp & 0x3F)); k = 4;
  }
  if (*n + k < cap) { memcpy(buf + *n, t, k); *n += k; }
}

/* At '"': reads a string, decoding it into out[KEY_CAP] (truncated if longer). */
static void sc_string(Scanner *s, char *out) {
  size_t n = 0;
  sc_adv(s);
  while (*s->p && *s->p != '"') {
    if (*s->p != '\\') {
      if (n + 1 < KEY_CAP) out[n++] = *s->p;
      sc_adv(s);
      continue;
    }
    /* An escape: the one-letter kinds, or \uXXXX (with surrogate pairs). */
    sc_adv(s);
    const char e = *s->p;
    unsigned cp = 0;
    if (e == 'u' && hex4(s->p + 1, &cp) == 0) {
      for (int i = 0; i < 5; ++i) sc_adv(s);
      unsigned lo;
      if (cp >= 0xD800 && cp < 0xDC00 && s->p[0] == '\\' && s->p[1] == 'u' &&
          hex4(s->p + 2, &lo) == 0 && lo >= 0xDC00 && lo < 0xE000) {
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        for (int i = 0; i < 6; ++i) sc_adv(s);
      }
      put_utf8(out, KEY_CAP, &n, cp);
      continue;
    }
    const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
    const char *hit = e ? strchr(from, e) : NULL;
    if (n + 1 < KEY_CAP) out[n++] = hit ? to[hit - from] : e;
    sc_adv(s);
  }
  out[n] = '\0';
  sc_adv(s); /* the closing quote */
}

static int sc_at_target(const Scanner *s) {
  return !s->truncated && strcmp(s->path, s->target) == 0;
}

static void sc_value(Scanner *s, int depth);

static void sc_object(Scanner *s, int depth) {
  char key[KEY_CAP];
  sc_adv(s);
  sc_ws(s);
  if (*s->p == '}') { sc_adv(s); return; }
  const size_t len = strlen(s->path);
  char parent[PATH_CAP];
  memcpy(parent, s->path, len + 1);
  while (*s->p && !s->done) {
    /* Member: key, colon, value; the key's position is kept for the target. */
    sc_ws(s);
    const int kl = s->line, kc = s->chars + 1;
    sc_string(s, key);
    const int trunc = path_key(s->path, parent, key);
    s->truncated += trunc;
    if (sc_at_target(s)) { s->key_line = kl; s->key_col = kc; }
    sc_ws(s);
    if (*s->p == ':') sc_adv(s);
    sc_ws(s);
    sc_value(s, depth + 1);
    s->truncated -= trunc;
    memcpy(s->path, parent, len + 1);
    if (s->done) return;
    sc_ws(s);
    if (*s->p == ',') { sc_adv(s); continue; }
    if (*s->p == '}') sc_adv(s);
    return;
  }
}

static void sc_array(Scanner *s, int depth) {
  sc_adv(s);
  sc_ws(s);
  if (*s->p == ']') { sc_adv(s); return; }
  const size_t len = strlen(s->path);
  char parent[PATH_CAP];
  memcpy(parent, s->path, len + 1);
  for (size_t i = 0; *s->p && !s->done; ++i) {
    /* Element i. */
    sc_ws(s);
    const int trunc = path_index(s->path, parent, i);
    s->truncated += trunc;
    sc_value(s, depth + 1);
    s->truncated -= trunc;
    memcpy(s->path, parent, len + 1);
    if (s->done) return;
    sc_ws(s);
    if (*s->p == ',') { sc_adv(s); continue; }
    if (*s->p == ']') sc_adv(s);
    return;
  }
}

static void sc_value(Scanner *s, int depth) {
  /* The target: record where its value starts and stop. */
  if (sc_at_target(s)) {
    s->val_line = s->line;
    s->val_col = s->chars + 1;
    s->done = 1;
    return;
  }
  if (depth > 4096) { s->done = 1; return; } /* deeper than jansson allows: give up */
  char scratch[KEY_CAP];
  switch (*s->p) {
    case '{': sc_object(s, depth); break;
    case '[': sc_array(s, depth); break;
    case '"': sc_string(s, scratch); break;
    default:
      while (*s->p && !strchr(",]} \t\r\n", *s->p)) sc_adv(s);
  }
}

/* Finds the position of the value at path in text (of its key, when want_key and the
 * value is an object member). A path that is not in the text (a missing key) gives the
 * position of its nearest enclosing value. */
static void locate(const char *text, const char *path, int want_key, int *line, int *col) {
  char target[PATH_CAP];
  snprintf(target, sizeof target, "%s", path);
  for (;;) {
    Scanner *s = calloc(1, sizeof *s);
    if (!s) { *line = *col = 0; return; }
    s->p = text;
    s->line = 1;
    s->target = target;
    sc_ws(s);
    sc_value(s, 0);
    const int found = s->val_line > 0;
    if (found) {
      const int use_key = want_key && s->key_line > 0;
      *line = use_key ? s->key_line : s->val_line;
      *col = use_key ? s->key_col : s->val_col;
    }
    free(s);
    if (found) return;
    if (!target[0]) { *line = *col = 0; return; }
    path_parent(target);
    want_key = 0;
  }
}

/* ------------------------------------------------------------------------------------
 * Errors
 * ---------------------------------------------------------------------------------- */

typedef struct Ctx {
  const char *text;
  const char *name;
  LsimSceneError *err;
  int dim;                /* the scene's dimension, once read */
} Ctx;

static void set_file(LsimSceneError *err, const char *name) {
  memset(err, 0, sizeof *err);
  snprintf(err->file, sizeof err->file, "%s", name ? name : "<scene>");
}

/* Fills the error for the value at path (its key when at_key) and returns
 * LSIM_INVALID_INPUT. */
static int fail(Ctx *c, const char *path, int at_key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(Ctx *c, const char *path, int at_key, const char *fmt, ...) {
  LsimSceneError *err = c->err;
  set_file(err, c->name);
  locate(c->text, path, at_key, &err->line, &err->column);
  snprintf(err->path, sizeof err->path, "%s", path);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->message, sizeof err->message, fmt, ap);
  va_end(ap);
  return LSIM_INVALID_INPUT;
}

void lsim_scene_error_format(const LsimSceneError *err, char *buf, size_t len) {
  if (!buf || len == 0) return;
  char where[300];
  if (err->line > 0) snprintf(where, sizeof where, "%s:%d:%d", err->file, err->line, err->column);
  else snprintf(where, sizeof where, "%s", err->file);
  if (err->path[0]) snprintf(buf, len, "%s: %s: %s", where, err->path, err->message);
  else snprintf(buf, len, "%s: %s", where, err->message);
}

static const char *type_name(const json_t *v) {
  switch (json_typeof(v)) {
    case JSON_OBJECT: return "object";
    case JSON_ARRAY: return "array";
    case JSON_STRING: return "string";
    case JSON_INTEGER:
    case JSON_REAL: return "number";
    case JSON_TRUE:
    case JSON_FALSE: return "boolean";
    default: return "null";
  }
}

/* Edit distance (Levenshtein) of short strings; large when either is long. */
static int edit_distance(const char *a, const char *b) {
  const size_t na = strlen(a), nb = strlen(b);
  if (na > 63 || nb > 63) return 1000;
  int row[64];
  for (size_t j = 0; j <= nb; ++j) row[j] = (int)j;
  for (size_t i = 1; i <= na; ++i) {
    int diag = row[0];
    row[0] = (int)i;
    for (size_t j = 1; j <= nb; ++j) {
      const int up = row[j];
      int best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[nb];
}

/* The closest of the NULL-terminated words to w, if close enough to be a typo. */
static const char *suggest(const char *w, const char *const *words) {
  const char *best = NULL;
  int bd = 1000;
  for (int i = 0; words[i]; ++i) {
    const int d = edit_distance(w, words[i]);
    if (d < bd) { bd = d; best = words[i]; }
  }
  const size_t n = strlen(w);
  const int limit = n <= 3 ? 1 : n <= 6 ? 2 : 3;
  return bd <= limit ? best : NULL;
}

/* "a, b, c" into buf. */
static void word_list(const char *const *words, char *buf, size_t len) {
  size_t n = 0;
  buf[0] = '\0';
  for (int i = 0; words[i] && n < len; ++i) {
    const int k = snprintf(buf + n, len - n, "%s%s", i ? ", " : "", words[i]);
    if (k < 0) break;
    n += (size_t)k;
  }
}

/* Rejects any key of obj not in allowed (the first one in the text is reported). */
static int check_keys(Ctx *c, const json_t *obj, const char *opath, const char *const *allowed) {
  const char *bad = NULL;
  int bad_line = 0, bad_col = 0;
  const char *key;
  json_t *val;
  json_object_foreach((json_t *)obj, key, val) {
    int known = 0;
    for (int i = 0; allowed[i] && !known; ++i) known = strcmp(key, allowed[i]) == 0;
    if (known) continue;
    /* Unknown: keep the one that comes first in the text. */
    char p[PATH_CAP];
    path_key(p, opath, key);
    int l, col;
    locate(c->text, p, 1, &l, &col);
    if (!bad || l < bad_line || (l == bad_line && col < bad_col)) {
      bad = key;
      bad_line = l;
      bad_col = col;
    }
  }
  if (!bad) return 0;
  char p[PATH_CAP];
  path_key(p, opath, bad);
  const char *s = suggest(bad, allowed);
  if (s) return fail(c, p, 1, "unknown key (did you mean '%s'?)", s);
  char list[200];
  word_list(allowed, list, sizeof list);
  return fail(c, p, 1, "unknown key (known keys here: %s)", list);
}

/* ------------------------------------------------------------------------------------
 * Typed getters. Each returns 1 when the key is present (and *out is set), 0 when it is
 * absent (*out untouched), < 0 on a wrong type (error filled).
 * ---------------------------------------------------------------------------------- */

static int get_number(Ctx *c, const json_t *obj, const char *opath, const char *key,
                      double *out) {
  const json_t *v = json_object_get(obj, key);
  if (!v) return 0;
  char p[PATH_CAP];
  path_key(p, opath, key);
  if (!json_is_number(v)) return fail(c, p, 0, "must be a number, got %s", type_name(v));
  *out = json_number_value(v);
  return 1;
}

/* An integer in [lo, hi]; integral reals like 30.0 are accepted. */
static int get_int(Ctx *c, const json_t *obj, const char *opath, const char *key, int lo,
                   int hi, int *out) {
  const json_t *v = json_object_get(obj, key);
  if (!v) return 0;
  char p[PATH_CAP];
  path_key(p, opath, key);
  if (!json_is_number(v)) return fail(c, p, 0, "must be an integer, got %s", type_name(v));
  const double d = json_number_value(v);
  if (d != floor(d)) return fail(c, p, 0, "must be an integer, got %g", d);
  if (d < lo || d > hi) {
    if (hi == INT_MAX) return fail(c, p, 0, "must be an integer >= %d, got %.17g", lo, d);
    return fail(c, p, 0, "must be an integer in [%d, %d], got %.17g", lo, hi, d);
  }
  *out = (int)d;
  return 1;
}

/* A string of at most cap - 1 bytes (nonempty when nonempty is set). */
static int get_string(Ctx *c, const json_t *obj, const char *opath, const char *key, char *out,
                      size_t cap, int nonempty) {
  const json_t *v = json_object_get(obj, key);
  if (!v) return 0;
  char p[PATH_CAP];
  path_key(p, opath, key);
  if (!json_is_string(v)) return fail(c, p, 0, "must be a string, got %s", type_name(v));
  const size_t n = json_string_length(v);
  if (nonempty && n == 0) return fail(c, p, 0, "must not be empty");
  if (n >= cap) return fail(c, p, 0, "must be at most %zu bytes long, got %zu", cap - 1, n);
  if (strlen(json_string_value(v)) != n) return fail(c, p, 0, "must not contain NUL");
  memcpy(out, json_string_value(v), n + 1);
  return 1;
}

static int get_bool(Ctx *c, const json_t *obj, const char *opath, const char *key, int *out) {
  const json_t *v = json_object_get(obj, key);
  if (!v) return 0;
  char p[PATH_CAP];
  path_key(p, opath, key);
  if (!json_is_boolean(v)) return fail(c, p, 0, "must be true or false, got %s", type_name(v));
  *out = json_is_true(v);
  return 1;
}

/* An object member that must be an object (or absent: returns NULL with *rc = 0). */
static const json_t *get_object(Ctx *c, const json_t *obj, const char *opath, const char *key,
                                int *rc) {
  const json_t *v = json_object_get(obj, key);
  *rc = 0;
  if (!v) return NULL;
  if (json_is_object(v)) return v;
  char p[PATH_CAP];
  path_key(p, opath, key);
  *rc = fail(c, p, 0, "must be an object, got %s", type_name(v));
  return NULL;
}

/* Range checks of a number already read from opath.key. */
enum { GT0, GE0 };
static int check_range(Ctx *c, const char *opath, const char *key, double v, int kind) {
  if (kind == GT0 ? v > 0 : v >= 0) return 0;
  char p[PATH_CAP];
  path_key(p, opath, key);
  return fail(c, p, 0, "must be %s 0, got %g", kind == GT0 ? ">" : ">=", v);
}

/* A number that, when present, must satisfy kind; *out keeps its default otherwise. */
static int get_ranged(Ctx *c, const json_t *obj, const char *opath, const char *key, int kind,
                      double *out) {
  double v;
  const int rc = get_number(c, obj, opath, key, &v);
  if (rc <= 0) return rc;
  if (check_range(c, opath, key, v, kind) < 0) return LSIM_INVALID_INPUT;
  *out = v;
  return 1;
}

/* A body's "restitution", when present: a coefficient in [0, 1]. */
static int get_restitution(Ctx *c, const json_t *obj, const char *opath, double *out) {
  double v = 0.0;
  const int rc = get_number(c, obj, opath, "restitution", &v);
  if (rc <= 0) return rc;
  if (!(v >= 0.0 && v <= 1.0)) {
    char p[PATH_CAP];
    path_key(p, opath, "restitution");
    return fail(c, p, 0, "must be in [0, 1] (0: perfectly inelastic, 1: elastic), got %g", v);
  }
  *out = v;
  return 1;
}

static int missing(Ctx *c, const char *opath, const char *key, const char *what) {
  char p[PATH_CAP];
  path_key(p, opath, key);
  return fail(c, p, 0, "required key missing (%s)", what);
}

/* ------------------------------------------------------------------------------------
 * Schedules: a number (constant) or {"table": [[t, value], ...]}.
 * ---------------------------------------------------------------------------------- */

static int parse_schedule(Ctx *c, const json_t *v, const char *path, int width,
                          LsimSchedule *s) {
  s->width = width;
  s->npoints = 0;
  s->t = s->value = NULL;
  if (json_is_number(v)) {
    s->constant = json_number_value(v);
    return 0;
  }
  if (!json_is_object(v))
    return fail(c, path, 0, "must be a number or {\"table\": [[t, value], ...]}, got %s",
                type_name(v));
  static const char *const keys[] = {"table", NULL};
  if (check_keys(c, v, path, keys) < 0) return LSIM_INVALID_INPUT;
  const json_t *table = json_object_get(v, "table");
  if (!table) return missing(c, path, "table", "rows [t, value] with t in s");
  char tp[PATH_CAP];
  path_key(tp, path, "table");
  if (!json_is_array(table)) return fail(c, tp, 0, "must be an array, got %s", type_name(table));
  const size_t n = json_array_size(table);
  if (n == 0) return fail(c, tp, 0, "must have at least one row [t, value]");
  if (n > INT_MAX / (size_t)(width + 1)) return fail(c, tp, 0, "too many rows");
  s->t = malloc(n * sizeof *s->t);
  s->value = malloc(n * (size_t)width * sizeof *s->value);
  if (!s->t || !s->value) {
    lsim_schedule_free(s);
    return LSIM_OUT_OF_MEMORY;
  }
  /* Rows: [t, v_1 .. v_width], numbers, t strictly increasing. */
  for (size_t k = 0; k < n; ++k) {
    const json_t *row = json_array_get(table, k);
    char rp[PATH_CAP];
    path_index(rp, tp, k);
    int rc = 0;
    if (!json_is_array(row) || json_array_size(row) != (size_t)width + 1) {
      rc = json_is_array(row)
               ? fail(c, rp, 0, "must be a row [t, value] of %d numbers, got %zu", width + 1,
                      json_array_size(row))
               : fail(c, rp, 0, "must be a row [t, value], got %s", type_name(row));
    }
    for (int j = 0; rc == 0 && j <= width; ++j) {
      const json_t *x = json_array_get(row, (size_t)j);
      if (json_is_number(x)) continue;
      char xp[PATH_CAP];
      path_index(xp, rp, (size_t)j);
      rc = fail(c, xp, 0, "must be a number, got %s", type_name(x));
    }
    if (rc == 0) {
      s->t[k] = json_number_value(json_array_get(row, 0));
      for (int j = 0; j < width; ++j)
        s->value[k * (size_t)width + (size_t)j] = json_number_value(json_array_get(row, (size_t)j + 1));
      if (k > 0 && !(s->t[k] > s->t[k - 1])) {
        char xp[PATH_CAP];
        path_index(xp, rp, 0);
        rc = fail(c, xp, 0, "times must increase strictly: %g after %g", s->t[k], s->t[k - 1]);
      }
    }
    if (rc < 0) {
      lsim_schedule_free(s);
      return rc;
    }
  }
  s->npoints = (int)n;
  s->constant = s->value[0];
  return 0;
}

/* ------------------------------------------------------------------------------------
 * Scene
 * ---------------------------------------------------------------------------------- */

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

/* The body's name is unique so far; i is its index in the model. */
static int check_name(Ctx *c, const LsimModel *m, const Origin *org, int i) {
  for (int j = 0; j < i; ++j) {
    if (strcmp(m->bodies[j].name, m->bodies[i].name) != 0) continue;
    char p[PATH_CAP];
    if (org[i].named) path_key(p, org[i].path, "name");
    else snprintf(p, sizeof p, "%s", org[i].path);
    return fail(c, p, 0, "name '%s' is already used by %s%s", m->bodies[i].name, org[j].path,
                org[i].named ? "" : " (give this one a \"name\")");
  }
  return 0;
}

/* One entry of "bodies": a dynamic or kinematic body, into *b (schedules owned by b). */
static int parse_body(Ctx *c, const json_t *o, const char *path, size_t index,
                      const Defaults *d, LsimBody *b, Origin *org) {
  *b = lsim_default_body();
  snprintf(org->path, sizeof org->path, "%s", path);
  if (!json_is_object(o)) return fail(c, path, 0, "must be an object, got %s", type_name(o));

  /* The type first: it decides which keys apply. */
  char type[32] = "dynamic";
  if (get_string(c, o, path, "type", type, sizeof type, 0) < 0) return LSIM_INVALID_INPUT;
  int kinematic = 0;
  if (strcmp(type, "kinematic") == 0) {
    kinematic = 1;
  } else if (strcmp(type, "dynamic") != 0) {
    char p[PATH_CAP];
    path_key(p, path, "type");
    return fail(c, p, 0, "must be \"dynamic\" or \"kinematic\", got \"%s\"%s", type,
                strcmp(type, "static") == 0 ? " (fixed bodies go in \"walls\")" : "");
  }
  static const char *const keys[] = {"name", "type", "position", "velocity", "mass",
                                     "width", "ground_mu", "force", "restitution", NULL};
  if (check_keys(c, o, path, keys) < 0) return LSIM_INVALID_INPUT;
  if (kinematic) {
    static const char *const not_kin[] = {"force", "ground_mu", NULL};
    for (int i = 0; not_kin[i]; ++i) {
      if (!json_object_get(o, not_kin[i])) continue;
      char p[PATH_CAP];
      path_key(p, path, not_kin[i]);
      return fail(c, p, 1, "does not apply to a kinematic body (its velocity is prescribed)");
    }
  }

  /* Name (default "body<index>"). */
  const int rc = get_string(c, o, path, "name", b->name, sizeof b->name, 1);
  if (rc < 0) return rc;
  org->named = rc;
  if (!rc) snprintf(b->name, sizeof b->name, "body%zu", index);

  /* Geometry and inertia. */
  double x = 0.0;
  if (get_number(c, o, path, "position", &x) < 0) return LSIM_INVALID_INPUT;
  if (get_ranged(c, o, path, "mass", GT0, &b->mass) < 0) return LSIM_INVALID_INPUT;
  if (get_ranged(c, o, path, "width", GE0, &b->width) < 0) return LSIM_INVALID_INPUT;
  b->type = kinematic ? LSIM_BODY_KINEMATIC : LSIM_BODY_DYNAMIC;
  b->shape = LSIM_SHAPE_SEGMENT;
  b->pose[0] = x;
  b->ground_mu = kinematic ? 0.0 : d->ground_mu;
  if (get_ranged(c, o, path, "ground_mu", GE0, &b->ground_mu) < 0) return LSIM_INVALID_INPUT;
  if (get_restitution(c, o, path, &b->restitution) < 0) return LSIM_INVALID_INPUT;

  /* Velocity: the initial value (dynamic) or the prescribed schedule (kinematic). */
  const json_t *vel = json_object_get(o, "velocity");
  char vp[PATH_CAP];
  path_key(vp, path, "velocity");
  if (kinematic) {
    if (vel && parse_schedule(c, vel, vp, 1, &b->kinematic_velocity) < 0)
      return LSIM_INVALID_INPUT;
  } else if (vel) {
    if (!json_is_number(vel))
      return fail(c, vp, 0, "must be a number, got %s%s", type_name(vel),
                  json_is_object(vel) ? " (tables are for kinematic bodies)" : "");
    org->velocity = json_number_value(vel);
  }

  /* Applied force along the line. */
  const json_t *force = json_object_get(o, "force");
  if (force) {
    char fp[PATH_CAP];
    path_key(fp, path, "force");
    const int frc = parse_schedule(c, force, fp, 1, &b->force);
    if (frc < 0) {
      lsim_schedule_free(&b->kinematic_velocity);
      return frc;
    }
  }
  return 0;
}

/* One entry of "walls": a static half-line. */
static int parse_wall(Ctx *c, const json_t *o, const char *path, size_t index, LsimBody *b,
                      Origin *org) {
  *b = lsim_default_body();
  snprintf(org->path, sizeof org->path, "%s", path);
  if (!json_is_object(o)) return fail(c, path, 0, "must be an object, got %s", type_name(o));
  static const char *const keys[] = {"name", "position", "side", "restitution", NULL};
  if (check_keys(c, o, path, keys) < 0) return LSIM_INVALID_INPUT;
  const int rc = get_string(c, o, path, "name", b->name, sizeof b->name, 1);
  if (rc < 0) return rc;
  org->named = rc;
  if (!rc) snprintf(b->name, sizeof b->name, "wall%zu", index);
  double x = 0.0;
  if (get_number(c, o, path, "position", &x) < 0) return LSIM_INVALID_INPUT;
  char side[16];
  const int src = get_string(c, o, path, "side", side, sizeof side, 0);
  if (src < 0) return src;
  if (src == 0) return missing(c, path, "side", "\"left\": occupies x <= position, \"right\": x >= position");
  if (strcmp(side, "left") != 0 && strcmp(side, "right") != 0) {
    char p[PATH_CAP];
    path_key(p, path, "side");
    return fail(c, p, 0, "must be \"left\" (occupies x <= position) or \"right\" (x >= position), got \"%s\"", side);
  }
  /* A static body: no coordinates, no mass, no friction of its own. */
  b->type = LSIM_BODY_STATIC;
  b->shape = LSIM_SHAPE_HALFLINE;
  b->side = side[0] == 'l' ? -1 : 1;
  b->pose[0] = x;
  b->mass = 0.0;
  b->width = 0.0;
  b->ground_mu = 0.0;
  return get_restitution(c, o, path, &b->restitution) < 0 ? LSIM_INVALID_INPUT : 0;
}

/* Adds *b to the model; frees its schedules when that fails. */
static int add_body(LsimModel *m, LsimBody *b) {
  const int rc = lsim_model_add_body(m, b);
  if (rc < 0) {
    lsim_schedule_free(&b->force);
    lsim_schedule_free(&b->kinematic_velocity);
  }
  return rc < 0 ? rc : 0;
}

/* Start overlaps: walls with walls first (no room between them is the root cause of
 * everything else), then bodies with each other and with walls. */
static int check_overlaps(Ctx *c, const LsimModel *m, const Origin *org) {
  for (int pass = 0; pass < 2; ++pass) {
    for (int i = 0; i < m->nbodies; ++i) {
      const LsimBody *a = &m->bodies[i];
      for (int j = 0; j < i; ++j) {
        const LsimBody *b = &m->bodies[j];
        const int walls = (a->type == LSIM_BODY_STATIC) + (b->type == LSIM_BODY_STATIC);
        if ((pass == 0) != (walls == 2)) continue;
        char p[PATH_CAP];
        path_key(p, org[i].path, "position");
        if (walls == 2) {
          /* A left wall must not reach past a right wall. */
          const LsimBody *l = a->side < 0 ? a : b, *r = a->side < 0 ? b : a;
          if (a->side != b->side && l->pose[0] - r->pose[0] > OVERLAP_TOL)
            return fail(c, p, 0, "wall '%s' (x <= %g) overlaps wall '%s' (x >= %g): no room between them",
                        l->name, l->pose[0], r->name, r->pose[0]);
        } else if (walls == 0) {
          /* Two segments [x - w/2, x + w/2]. */
          const double alo = a->pose[0] - a->width / 2, ahi = a->pose[0] + a->width / 2;
          const double blo = b->pose[0] - b->width / 2, bhi = b->pose[0] + b->width / 2;
          const double overlap = fmin(ahi, bhi) - fmax(alo, blo);
          if (overlap > OVERLAP_TOL)
            return fail(c, p, 0, "'%s' [%g, %g] overlaps '%s' (%s) [%g, %g] at the start by %g",
                        a->name, alo, ahi, b->name, org[j].path, blo, bhi, overlap);
        } else {
          /* A segment and a wall: the segment must be on the free side. */
          const LsimBody *w = a->type == LSIM_BODY_STATIC ? a : b;
          const LsimBody *s = a->type == LSIM_BODY_STATIC ? b : a;
          const int si = a->type == LSIM_BODY_STATIC ? j : i;
          const double lo = s->pose[0] - s->width / 2, hi = s->pose[0] + s->width / 2;
          const double depth = w->side < 0 ? w->pose[0] - lo : hi - w->pose[0];
          if (depth > OVERLAP_TOL) {
            path_key(p, org[si].path, "position");
            return fail(c, p, 0, "'%s' [%g, %g] is inside wall '%s' (occupies x %s %g) by %g",
                        s->name, lo, hi, w->name, w->side < 0 ? "<=" : ">=", w->pose[0], depth);
          }
        }
      }
    }
  }
  return 0;
}

/* ------------------------------------------------------------------------------------
 * 2-D and 3-D: vectors, orientations, shapes, mass properties, bodies and grids.
 * ---------------------------------------------------------------------------------- */

#define QUAT_NORM_TOL 1e-6   /* a quaternion's norm must be within this of 1 */
#define SYM_TOL 1e-9         /* relative asymmetry accepted in an inertia matrix */
#define COM_TOL 1e-9         /* relative offset of the shapes' center of mass accepted */
#define MAX_COPIES 100000    /* bodies one grid may make */
#define PI 3.14159265358979323846

/* The array at path p as n numbers into out. */
static int read_vec(Ctx *c, const json_t *v, const char *p, int n, double *out) {
  if (!json_is_array(v))
    return fail(c, p, 0, "must be an array of %d numbers in %d-D, got %s", n, c->dim, type_name(v));
  if (json_array_size(v) != (size_t)n)
    return fail(c, p, 0, "needs %d numbers in %d-D, got %zu", n, c->dim, json_array_size(v));
  for (int k = 0; k < n; ++k) {
    const json_t *x = json_array_get(v, (size_t)k);
    if (json_is_number(x)) { out[k] = json_number_value(x); continue; }
    char xp[PATH_CAP];
    path_index(xp, p, (size_t)k);
    return fail(c, xp, 0, "must be a number, got %s", type_name(x));
  }
  return 0;
}

/* opath.key as n numbers: 1 when present, 0 when absent, < 0 on error. */
static int get_vec(Ctx *c, const json_t *obj, const char *opath, const char *key, int n,
                   double *out) {
  const json_t *v = json_object_get(obj, key);
  if (!v) return 0;
  char p[PATH_CAP];
  path_key(p, opath, key);
  return read_vec(c, v, p, n, out) < 0 ? LSIM_INVALID_INPUT : 1;
}

/* An orientation at path p: 2-D an angle about z (*theta, and q); 3-D a unit quaternion
 * [w, x, y, z] (normalized) or {"axis": [x, y, z], "angle": rad}. */
static int read_orientation(Ctx *c, const json_t *v, const char *p, double q[4], double *theta) {
  *theta = 0.0;
  if (c->dim == 2) {
    if (!json_is_number(v))
      return fail(c, p, 0, "must be a number in 2-D (the angle about z, rad), got %s", type_name(v));
    *theta = json_number_value(v);
    lsim_quat_from_angle_z(q, *theta);
    return 0;
  }
  /* 3-D quaternion: checked to be unit, then normalized exactly. */
  if (json_is_array(v)) {
    if (json_array_size(v) != 4)
      return fail(c, p, 0, "needs 4 numbers [w, x, y, z] (a unit quaternion), got %zu", json_array_size(v));
    double w[4];
    if (read_vec(c, v, p, 4, w) < 0) return LSIM_INVALID_INPUT; /* size checked above */
    const double n = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2] + w[3] * w[3]);
    if (!(fabs(n - 1.0) <= QUAT_NORM_TOL))
      return fail(c, p, 0, "must be a unit quaternion [w, x, y, z]: its norm is %.12g, not within %g of 1",
                  n, QUAT_NORM_TOL);
    for (int k = 0; k < 4; ++k) q[k] = w[k] / n;
    return 0;
  }
  if (!json_is_object(v))
    return fail(c, p, 0, "must be a unit quaternion [w, x, y, z] or {\"axis\": [x, y, z], \"angle\": rad}, got %s",
                type_name(v));
  /* Axis and angle: the axis need not be unit, only nonzero. */
  static const char *const keys[] = {"axis", "angle", NULL};
  if (check_keys(c, v, p, keys) < 0) return LSIM_INVALID_INPUT;
  double axis[3], angle = 0.0;
  int rc = get_vec(c, v, p, "axis", 3, axis);
  if (rc < 0) return rc;
  if (rc == 0) return missing(c, p, "axis", "the rotation axis [x, y, z]");
  rc = get_number(c, v, p, "angle", &angle);
  if (rc < 0) return rc;
  if (rc == 0) return missing(c, p, "angle", "the rotation angle, rad");
  const double big = fmax(fabs(axis[0]), fmax(fabs(axis[1]), fabs(axis[2])));
  if (!(big > 0)) {
    char ap[PATH_CAP];
    path_key(ap, p, "axis");
    return fail(c, ap, 0, "must not be zero");
  }
  for (int k = 0; k < 3; ++k) axis[k] /= big; /* scaled first: no overflow in the norm */
  lsim_v3_normalize(axis);
  const double s = sin(0.5 * angle);
  q[0] = cos(0.5 * angle), q[1] = s * axis[0], q[2] = s * axis[1], q[3] = s * axis[2];
  return 0;
}

/* opath.key as an orientation: 1 present, 0 absent (q, theta untouched), < 0 error. */
static int get_orientation(Ctx *c, const json_t *obj, const char *opath, const char *key,
                           double q[4], double *theta) {
  const json_t *v = json_object_get(obj, key);
  if (!v) return 0;
  char p[PATH_CAP];
  path_key(p, opath, key);
  return read_orientation(c, v, p, q, theta) < 0 ? LSIM_INVALID_INPUT : 1;
}

/* A key that must not be there: error at the key with the reason. */
static int reject_keys(Ctx *c, const json_t *o, const char *path, const char *const *keys,
                       const char *why) {
  for (int i = 0; keys[i]; ++i) {
    if (!json_object_get(o, keys[i])) continue;
    char p[PATH_CAP];
    path_key(p, path, keys[i]);
    return fail(c, p, 1, "%s", why);
  }
  return 0;
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

/* One entry of a body's "shapes" into *s (body index left to the caller). */
static int parse_shape(Ctx *c, const json_t *o, const char *path, size_t j, LsimBodyType btype,
                       LsimShape *s) {
  *s = lsim_default_shape();
  if (!json_is_object(o)) return fail(c, path, 0, "must be an object, got %s", type_name(o));

  /* The type decides which sizes apply. */
  char type[32];
  int rc = get_string(c, o, path, "type", type, sizeof type, 0);
  if (rc < 0) return rc;
  if (rc == 0) return missing(c, path, "type", "\"plane\", \"sphere\", \"box\", \"capsule\" or \"point\"");
  int t = 0;
  while (shape_types[t] && strcmp(shape_types[t], type) != 0) ++t;
  char tp[PATH_CAP];
  path_key(tp, path, "type");
  if (!shape_types[t]) {
    const char *sg = suggest(type, shape_types);
    if (sg) return fail(c, tp, 0, "unknown shape type \"%s\" (did you mean \"%s\"?)", type, sg);
    const int round = strcmp(type, "disk") == 0 || strcmp(type, "circle") == 0;
    return fail(c, tp, 0, "unknown shape type \"%s\" (known: plane, sphere, box, capsule, point%s)",
                type, round ? "; a disk is a \"sphere\" in 2-D" : "");
  }
  static const LsimShapeType kinds[] = {LSIM_SHAPE_PLANE, LSIM_SHAPE_SPHERE, LSIM_SHAPE_BOX,
                                        LSIM_SHAPE_CAPSULE, LSIM_SHAPE_POINT};
  s->type = kinds[t];
  static const char *const keys[] = {"type", "name", "position", "orientation", "radius",
                                     "half_extents", "half_length", "mu", NULL};
  if (check_keys(c, o, path, keys) < 0) return LSIM_INVALID_INPUT;
  if (s->type == LSIM_SHAPE_PLANE && btype != LSIM_BODY_STATIC)
    return fail(c, tp, 0, "a plane is unbounded: planes go on static bodies only");

  /* Sizes: the ones of this type are required and > 0, the others must be absent. */
  static const char *const sizes[] = {"radius", "half_extents", "half_length", NULL};
  const int needs[5][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 0, 1}, {0, 0, 0}};
  for (int k = 0; k < 3; ++k) {
    if (needs[t][k] || !json_object_get(o, sizes[k])) continue;
    char p[PATH_CAP];
    path_key(p, path, sizes[k]);
    return fail(c, p, 1, "does not apply to a %s", type);
  }
  static const char *const what[] = {"m, > 0", "[a, b] (2-D) or [a, b, c] (3-D) in m, each > 0",
                                     "half the length of the axis segment, m, > 0"};
  for (int k = 0; k < 3; ++k) {
    if (!needs[t][k]) continue;
    if (!json_object_get(o, sizes[k])) return missing(c, path, sizes[k], what[k]);
  }
  rc = get_ranged(c, o, path, "radius", GT0, &s->radius);
  if (rc < 0) return rc;
  if (rc == 0) s->radius = 0.0;
  if (get_ranged(c, o, path, "half_length", GT0, &s->half[0]) < 0) return LSIM_INVALID_INPUT;
  if (s->type == LSIM_SHAPE_BOX) {
    char hp[PATH_CAP];
    path_key(hp, path, "half_extents");
    if (get_vec(c, o, path, "half_extents", c->dim, s->half) < 0) return LSIM_INVALID_INPUT;
    for (int k = 0; k < c->dim; ++k) {
      if (s->half[k] > 0) continue;
      char ep[PATH_CAP];
      path_index(ep, hp, (size_t)k);
      return fail(c, ep, 0, "must be > 0, got %g", s->half[k]);
    }
  }

  /* Name, local pose, material. */
  rc = get_string(c, o, path, "name", s->name, sizeof s->name, 1);
  if (rc < 0) return rc;
  if (rc == 0) snprintf(s->name, sizeof s->name, "shape%zu", j);
  if (get_vec(c, o, path, "position", c->dim, s->pos) < 0) return LSIM_INVALID_INPUT;
  double theta;
  if (get_orientation(c, o, path, "orientation", s->rot, &theta) < 0) return LSIM_INVALID_INPUT;
  if (get_ranged(c, o, path, "mu", GE0, &s->mu) < 0) return LSIM_INVALID_INPUT;
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

/* An explicit "inertia": 2-D I_zz > 0; 3-D [Ixx, Iyy, Izz] > 0 or a symmetric positive
 * definite 3x3 matrix (rows). */
static int parse_inertia(Ctx *c, const json_t *v, const char *p, double I[9]) {
  memset(I, 0, 9 * sizeof(double));
  if (c->dim == 2) {
    if (!json_is_number(v))
      return fail(c, p, 0, "must be a number in 2-D (I_zz, kg m^2), got %s", type_name(v));
    I[8] = json_number_value(v);
    if (!(I[8] > 0)) return fail(c, p, 0, "must be > 0, got %g", I[8]);
    return 0;
  }
  /* Principal moments [Ixx, Iyy, Izz]. */
  if (json_is_array(v) && !json_is_array(json_array_get(v, 0))) {
    double d[3];
    if (read_vec(c, v, p, 3, d) < 0) return LSIM_INVALID_INPUT;
    for (int k = 0; k < 3; ++k) {
      if (d[k] > 0) continue;
      char ep[PATH_CAP];
      path_index(ep, p, (size_t)k);
      return fail(c, ep, 0, "must be > 0, got %g", d[k]);
    }
    I[0] = d[0], I[4] = d[1], I[8] = d[2];
    return 0;
  }
  /* A full matrix: three rows of three, symmetric, positive definite. */
  if (!json_is_array(v) || json_array_size(v) != 3)
    return fail(c, p, 0, "must be [Ixx, Iyy, Izz] or a 3x3 matrix [[..], [..], [..]] in 3-D, got %s",
                json_is_array(v) ? "an array of another size" : type_name(v));
  double scale = 0.0;
  for (size_t r = 0; r < 3; ++r) {
    char rp[PATH_CAP];
    path_index(rp, p, r);
    const json_t *row = json_array_get(v, r);
    if (!json_is_array(row)) return fail(c, rp, 0, "must be a row of 3 numbers, got %s", type_name(row));
    if (read_vec(c, row, rp, 3, I + 3 * r) < 0) return LSIM_INVALID_INPUT;
    for (int k = 0; k < 3; ++k) scale = fmax(scale, fabs(I[3 * r + (size_t)k]));
  }
  for (int r = 0; r < 3; ++r)
    for (int k = 0; k < r; ++k) {
      if (fabs(I[3 * r + k] - I[3 * k + r]) <= SYM_TOL * scale) continue;
      char ep[PATH_CAP];
      path_index(ep, p, (size_t)r);
      path_index(ep, ep, (size_t)k);
      return fail(c, ep, 0, "must equal [%d][%d] (an inertia matrix is symmetric): %g vs %g", k, r,
                  I[3 * r + k], I[3 * k + r]);
    }
  /* Exactly symmetric from here on. */
  for (int r = 0; r < 3; ++r)
    for (int k = 0; k < r; ++k) I[3 * r + k] = I[3 * k + r] = 0.5 * (I[3 * r + k] + I[3 * k + r]);
  if (!spd3(I)) return fail(c, p, 0, "must be positive definite (an inertia tensor is)");
  return 0;
}

/* Mass and inertia of a dynamic body from "mass" or "density", "inertia" and its shapes. */
static int mass_properties(Ctx *c, const json_t *o, const char *path, NdBody *t) {
  LsimBody *b = &t->b;
  const int dim = c->dim;
  const int has_mass = json_object_get(o, "mass") != NULL;
  const int has_density = json_object_get(o, "density") != NULL;
  if (has_mass && has_density) {
    char p[PATH_CAP];
    path_key(p, path, "density");
    return fail(c, p, 1, "give either \"mass\" or \"density\", not both");
  }
  if (!has_mass && !has_density)
    return missing(c, path, "mass", dim == 2 ? "\"mass\" (kg) or \"density\" (kg/m^2) of a dynamic body"
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
    if (get_ranged(c, o, path, "mass", GT0, &b->mass) < 0) return LSIM_INVALID_INPUT;
  } else {
    double rho = 0.0;
    if (get_ranged(c, o, path, "density", GT0, &rho) < 0) return LSIM_INVALID_INPUT;
    char p[PATH_CAP];
    path_key(p, path, "density");
    if (!(volume > 0))
      return fail(c, p, 0, "the body's shapes have no %s to weigh (points carry none): give \"mass\"",
                  dim == 2 ? "area" : "volume");
    b->mass = rho * volume;
    if (!isfinite(b->mass) || !(b->mass > 0))
      return fail(c, p, 0, "gives a mass of %g kg (density %g times %s %g)", b->mass, rho,
                  dim == 2 ? "area" : "volume", volume);
  }

  /* Explicit inertia, taken as given. */
  const json_t *iv = json_object_get(o, "inertia");
  if (iv) {
    char p[PATH_CAP];
    path_key(p, path, "inertia");
    return parse_inertia(c, iv, p, b->inertia);
  }
  if (!(volume > 0))
    return missing(c, path, "inertia", "the body's shapes have no volume to compute it from: points carry no mass");

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
    path_key(p, path, "shapes");
    if (dim == 2)
      return fail(c, p, 0, "their center of mass is at [%g, %g], not at the body origin: place the shapes around it, or give \"inertia\"",
                  com[0], com[1]);
    return fail(c, p, 0, "their center of mass is at [%g, %g, %g], not at the body origin: place the shapes around it, or give \"inertia\"",
                com[0], com[1], com[2]);
  }
  /* 2-D keeps I_zz only. */
  if (dim == 2) {
    const double izz = I[8];
    memset(I, 0, sizeof I);
    I[8] = izz;
  }
  for (int k = 0; k < 9; ++k)
    if (!isfinite(I[k])) return fail(c, path, 0, "the computed inertia is not finite (sizes too large)");
  memcpy(b->inertia, I, sizeof I);
  return 0;
}

/* "force" (and "torque") of a dynamic body: vectors or a table of width nv. */
static int parse_force_nd(Ctx *c, const json_t *o, const char *path, LsimBody *b) {
  const int dim = c->dim, nv = dim == 2 ? 3 : 6, nt = dim == 2 ? 1 : 3;
  const json_t *force = json_object_get(o, "force"), *torque = json_object_get(o, "torque");
  b->force.width = nv;
  char fp[PATH_CAP], tp[PATH_CAP];
  path_key(fp, path, "force");
  path_key(tp, path, "torque");
  /* A table carries the torque in its columns. */
  if (force && json_is_object(force)) {
    if (torque)
      return fail(c, tp, 1, "give the torque as the last %d column%s of the force table", nt, nt > 1 ? "s" : "");
    return parse_schedule(c, force, fp, nv, &b->force);
  }
  if (!force && !torque) return 0;
  double row[6] = {0};
  if (force && !json_is_array(force))
    return fail(c, fp, 0, "must be [fx, %s] (N) or {\"table\": [[t, %s], ...]}, got %s",
                dim == 2 ? "fy" : "fy, fz", dim == 2 ? "fx, fy, torque" : "fx, fy, fz, tx, ty, tz",
                type_name(force));
  if (force && read_vec(c, force, fp, dim, row) < 0) return LSIM_INVALID_INPUT;
  if (dim == 2 && torque && !json_is_number(torque))
    return fail(c, tp, 0, "must be a number in 2-D (N m about z), got %s", type_name(torque));
  if (dim == 2 && torque) row[2] = json_number_value(torque);
  if (dim == 3 && torque && read_vec(c, torque, tp, 3, row + 3) < 0) return LSIM_INVALID_INPUT;
  return constant_schedule(&b->force, row, nv);
}

/* "grid": count, spacing, jitter. */
static int parse_grid(Ctx *c, const json_t *o, const char *path, NdBody *t) {
  int rc;
  const json_t *g = get_object(c, o, path, "grid", &rc);
  if (!g) return rc;
  char gp[PATH_CAP], cp[PATH_CAP];
  path_key(gp, path, "grid");
  path_key(cp, gp, "count");
  static const char *const keys[] = {"count", "spacing", "jitter", NULL};
  if (check_keys(c, g, gp, keys) < 0) return LSIM_INVALID_INPUT;
  t->grid = 1;
  /* Counts: integers >= 1, product at most MAX_COPIES. */
  double cnt[3] = {1, 1, 1};
  rc = get_vec(c, g, gp, "count", c->dim, cnt);
  if (rc < 0) return rc;
  if (rc == 0) return missing(c, gp, "count", c->dim == 2 ? "copies along x and y: [nx, ny]" : "copies along x, y and z: [nx, ny, nz]");
  double total = 1.0;
  for (int k = 0; k < c->dim; ++k) {
    if (!(cnt[k] >= 1 && cnt[k] == floor(cnt[k]) && cnt[k] <= MAX_COPIES)) {
      char ep[PATH_CAP];
      path_index(ep, cp, (size_t)k);
      return fail(c, ep, 0, "must be an integer in [1, %d], got %.17g", MAX_COPIES, cnt[k]);
    }
    t->count[k] = (int)cnt[k];
    total *= cnt[k];
  }
  if (total > MAX_COPIES) return fail(c, cp, 0, "makes %.0f copies; at most %d", total, MAX_COPIES);
  /* Spacing: > 0 along the axes with more than one copy. */
  rc = get_vec(c, g, gp, "spacing", c->dim, t->spacing);
  if (rc < 0) return rc;
  if (rc == 0) return missing(c, gp, "spacing", "distances between neighbouring copies, m");
  char sp[PATH_CAP];
  path_key(sp, gp, "spacing");
  for (int k = 0; k < c->dim; ++k) {
    if (t->count[k] == 1 || t->spacing[k] > 0) continue;
    char ep[PATH_CAP];
    path_index(ep, sp, (size_t)k);
    return fail(c, ep, 0, "must be > 0 (%d copies along this axis), got %g", t->count[k], t->spacing[k]);
  }
  /* Jitter: amplitude >= 0, seed an integer in [0, 2^53]. */
  const json_t *j = get_object(c, g, gp, "jitter", &rc);
  if (!j) return rc;
  char jp[PATH_CAP];
  path_key(jp, gp, "jitter");
  static const char *const jkeys[] = {"amplitude", "seed", NULL};
  if (check_keys(c, j, jp, jkeys) < 0) return LSIM_INVALID_INPUT;
  rc = get_ranged(c, j, jp, "amplitude", GE0, &t->amplitude);
  if (rc < 0) return rc;
  if (rc == 0) return missing(c, jp, "amplitude", "the largest offset along each axis, m");
  double seed = 0.0;
  if (get_number(c, j, jp, "seed", &seed) < 0) return LSIM_INVALID_INPUT;
  if (!(seed >= 0 && seed <= 9007199254740992.0 && seed == floor(seed))) {
    char ep[PATH_CAP];
    path_key(ep, jp, "seed");
    return fail(c, ep, 0, "must be an integer in [0, 2^53], got %.17g", seed);
  }
  t->seed = (uint64_t)seed;
  return 0;
}

/* One entry of "bodies" in a 2-D/3-D scene into *t (the caller frees it with
 * nd_body_free, also on error). */
static int parse_body_nd(Ctx *c, const json_t *o, const char *path, size_t index, NdBody *t) {
  memset(t, 0, sizeof *t);
  t->b = lsim_default_body();
  t->count[0] = t->count[1] = t->count[2] = 1;
  const int dim = c->dim, nv = dim == 2 ? 3 : 6;
  LsimBody *b = &t->b;
  b->force.width = b->kinematic_velocity.width = nv;
  if (!json_is_object(o)) return fail(c, path, 0, "must be an object, got %s", type_name(o));

  /* The type first: it decides which keys apply. */
  char type[32] = "dynamic";
  if (get_string(c, o, path, "type", type, sizeof type, 0) < 0) return LSIM_INVALID_INPUT;
  if (strcmp(type, "dynamic") == 0) b->type = LSIM_BODY_DYNAMIC;
  else if (strcmp(type, "static") == 0) b->type = LSIM_BODY_STATIC;
  else if (strcmp(type, "kinematic") == 0) b->type = LSIM_BODY_KINEMATIC;
  else {
    char p[PATH_CAP];
    path_key(p, path, "type");
    return fail(c, p, 0, "must be \"dynamic\", \"static\" or \"kinematic\", got \"%s\"", type);
  }
  static const char *const only1d[] = {"width", "ground_mu", NULL};
  if (reject_keys(c, o, path, only1d,
                  "applies to 1-D scenes only (2-D/3-D bodies have \"shapes\", each with its \"mu\")") < 0)
    return LSIM_INVALID_INPUT;
  static const char *const keys[] = {"name", "type", "position", "orientation", "velocity",
                                     "angular_velocity", "mass", "density", "inertia", "shapes",
                                     "force", "torque", "motion", "grid", "restitution", NULL};
  if (check_keys(c, o, path, keys) < 0) return LSIM_INVALID_INPUT;
  static const char *const not_static[] = {"velocity", "angular_velocity", "motion", "mass",
                                           "density", "inertia", "force", "torque", NULL};
  static const char *const not_kin[] = {"mass", "density", "inertia", "force", "torque", NULL};
  static const char *const not_dyn[] = {"motion", NULL};
  int rc = b->type == LSIM_BODY_STATIC
               ? reject_keys(c, o, path, not_static, "does not apply to a static body (it never moves)")
           : b->type == LSIM_BODY_KINEMATIC
               ? reject_keys(c, o, path, not_kin, "does not apply to a kinematic body (its velocity is prescribed)")
               : reject_keys(c, o, path, not_dyn,
                             "applies to kinematic bodies only (a dynamic body's \"velocity\" is its initial value)");
  if (rc < 0) return rc;

  /* Name (default "body<index>") and pose. */
  rc = get_string(c, o, path, "name", b->name, sizeof b->name, 1);
  if (rc < 0) return rc;
  t->named = rc;
  if (!rc) snprintf(b->name, sizeof b->name, "body%zu", index);
  double pos[3] = {0.0, 0.0, 0.0}, quat[4] = {1.0, 0.0, 0.0, 0.0}, theta = 0.0;
  if (get_vec(c, o, path, "position", dim, pos) < 0) return LSIM_INVALID_INPUT;
  if (get_orientation(c, o, path, "orientation", quat, &theta) < 0) return LSIM_INVALID_INPUT;
  if (get_restitution(c, o, path, &b->restitution) < 0) return LSIM_INVALID_INPUT;
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
  path_key(sp, path, "shapes");
  if (shapes && !json_is_array(shapes)) return fail(c, sp, 0, "must be an array, got %s", type_name(shapes));
  const size_t ns = shapes ? json_array_size(shapes) : 0;
  if (ns > 4096) return fail(c, sp, 0, "too many shapes (%zu; at most 4096)", ns);
  t->shapes = calloc(ns + 1, sizeof *t->shapes);
  if (!t->shapes) return LSIM_OUT_OF_MEMORY;
  for (size_t k = 0; k < ns; ++k) {
    char p[PATH_CAP];
    path_index(p, sp, k);
    if (parse_shape(c, json_array_get(shapes, k), p, k, b->type, &t->shapes[k]) < 0) return LSIM_INVALID_INPUT;
    t->nshapes++;
    for (size_t q = 0; q < k; ++q) {
      if (strcmp(t->shapes[q].name, t->shapes[k].name) != 0) continue;
      char np[PATH_CAP];
      path_key(np, p, "name");
      return fail(c, json_object_get(json_array_get(shapes, k), "name") ? np : p, 0,
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
  if (get_vec(c, o, path, "velocity", dim, v) < 0) return LSIM_INVALID_INPUT;
  if (dim == 2) {
    if (get_number(c, o, path, "angular_velocity", &v[2]) < 0) return LSIM_INVALID_INPUT;
  } else if (get_vec(c, o, path, "angular_velocity", nw, v + 3) < 0) {
    return LSIM_INVALID_INPUT;
  }
  memcpy(t->v, v, sizeof v);
  if (b->type == LSIM_BODY_KINEMATIC) {
    const json_t *motion = json_object_get(o, "motion");
    if (motion) {
      static const char *const vel_keys[] = {"velocity", "angular_velocity", NULL};
      if (reject_keys(c, o, path, vel_keys, "give either \"motion\" (a table) or constant velocities, not both") < 0)
        return LSIM_INVALID_INPUT;
      char mp[PATH_CAP];
      path_key(mp, path, "motion");
      if (!json_is_object(motion))
        return fail(c, mp, 0, "must be {\"table\": [[t, %s], ...]}, got %s",
                    dim == 2 ? "vx, vy, omega" : "vx, vy, vz, wx, wy, wz", type_name(motion));
      if (parse_schedule(c, motion, mp, nv, &b->kinematic_velocity) < 0) return LSIM_INVALID_INPUT;
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
static int add_nd_body(Ctx *c, LsimModel *m, const NdBody *t, const char *path, size_t index,
                       NdOrigin **org, size_t *org_cap) {
  const int dim = c->dim;
  const size_t copies = (size_t)t->count[0] * (size_t)t->count[1] * (size_t)t->count[2];
  if ((size_t)m->nbodies + copies > (size_t)INT_MAX / 2)
    return fail(c, path, 0, "too many bodies");
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
      if (t->named) path_key(p, path, "name");
      else snprintf(p, sizeof p, "%s", path);
      return fail(c, p, 0, "the grid copies' names (like '%s') would be longer than %zu bytes",
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
          path_key(p, path, "position");
          if (dim == 2) return fail(c, p, 0, "grid copy %d, %d lands at a position that is not finite", i, j);
          return fail(c, p, 0, "grid copy %d, %d, %d lands at a position that is not finite", i, j, k);
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
        if (rc == 0) rc = add_body(m, &b);
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

/* Names unique among all bodies (grid copies included): the first body, in model order,
 * whose name an earlier body has is reported. */
static int check_names_nd(Ctx *c, const LsimModel *m, const NdOrigin *org) {
  if (m->nbodies < 2) return 0;
  NameRef *r = malloc((size_t)m->nbodies * sizeof *r);
  if (!r) return LSIM_OUT_OF_MEMORY;
  for (int i = 0; i < m->nbodies; ++i) r[i] = (NameRef){m->bodies[i].name, i};
  qsort(r, (size_t)m->nbodies, sizeof *r, by_name);
  /* In each run of equal names the second is the earliest duplicate. */
  int bad = -1, first = -1;
  for (int k = 1; k < m->nbodies; ++k) {
    if (strcmp(r[k].name, r[k - 1].name) != 0) continue;
    if (k >= 2 && strcmp(r[k].name, r[k - 2].name) == 0) continue;
    if (bad < 0 || r[k].index < bad) { bad = r[k].index; first = r[k - 1].index; }
  }
  free(r);
  if (bad < 0) return 0;
  char p[PATH_CAP], q[PATH_CAP];
  path_index(p, "bodies", org[bad].json_index);
  path_index(q, "bodies", org[first].json_index);
  if (org[bad].named) path_key(p, p, "name");
  return fail(c, p, 0, "name '%s' is already used by %s%s", m->bodies[bad].name, q,
              org[bad].named ? "" : " (give this one a \"name\")");
}

/* "bodies" of a 2-D/3-D scene into m (finalized) and the initial state. */
static int parse_bodies_nd(Ctx *c, const json_t *bodies, LsimModel *m, LsimState *st) {
  const size_t nb = json_array_size(bodies);
  NdOrigin *org = NULL;
  size_t cap = 0;
  int rc = 0, ndynamic = 0;
  for (size_t k = 0; k < nb && rc == 0; ++k) {
    char p[PATH_CAP];
    path_index(p, "bodies", k);
    NdBody t;
    rc = parse_body_nd(c, json_array_get(bodies, k), p, k, &t);
    if (rc == 0) rc = add_nd_body(c, m, &t, p, k, &org, &cap);
    ndynamic += rc == 0 && t.b.type == LSIM_BODY_DYNAMIC;
    nd_body_free(&t);
  }
  if (rc == 0) rc = check_names_nd(c, m, org);
  if (rc == 0 && ndynamic == 0) rc = fail(c, "bodies", 0, "at least one dynamic body is required");

  /* Coordinates and the initial state: q = the pose, v = the velocities. */
  if (rc == 0) rc = lsim_model_finalize(m);
  if (rc == 0) rc = lsim_state_init(st, m);
  for (int i = 0; rc == 0 && i < m->nbodies; ++i) {
    const LsimBody *b = &m->bodies[i];
    if (b->type == LSIM_BODY_STATIC) continue;
    memcpy(st->q + b->q_offset, b->pose, (size_t)b->nq * sizeof(double));
    memcpy(st->v + b->v_offset, org[i].v, (size_t)b->nv * sizeof(double));
  }
  free(org);
  return rc;
}

/* "solver": a name, or an object of settings. */
static int parse_solver(Ctx *c, const json_t *root, LsimSolverSettings *s) {
  const json_t *v = json_object_get(root, "solver");
  if (!v) return 0;
  const char *name = NULL;
  const char *npath = "solver";
  if (json_is_string(v)) {
    name = json_string_value(v);
  } else if (json_is_object(v)) {
    static const char *const keys[] = {"name", "tol", "max_iter", "omega", "warm_start", "threads",
                                       NULL};
    if (check_keys(c, v, "solver", keys) < 0) return LSIM_INVALID_INPUT;
    const json_t *n = json_object_get(v, "name");
    if (n && !json_is_string(n)) return fail(c, "solver.name", 0, "must be a string, got %s", type_name(n));
    if (n) { name = json_string_value(n); npath = "solver.name"; }
    /* Options, each checked against what the solvers accept. */
    if (get_ranged(c, v, "solver", "tol", GE0, &s->tol) < 0) return LSIM_INVALID_INPUT;
    if (get_int(c, v, "solver", "max_iter", 0, INT_MAX, &s->max_iter) < 0) return LSIM_INVALID_INPUT;
    double omega = s->omega;
    const int orc = get_number(c, v, "solver", "omega", &omega);
    if (orc < 0) return orc;
    if (orc && !(omega > 0 && omega < 2))
      return fail(c, "solver.omega", 0, "must be in (0, 2), got %g", omega);
    s->omega = omega;
    if (get_bool(c, v, "solver", "warm_start", &s->warm_start) < 0) return LSIM_INVALID_INPUT;
    if (get_int(c, v, "solver", "threads", 1, LSIM_PGS_MAX_THREADS, &s->threads) < 0)
      return LSIM_INVALID_INPUT;
  } else {
    return fail(c, "solver", 0, "must be a solver name or an object, got %s", type_name(v));
  }
  if (!name) return 0;
  /* The name must be one lsim_solver_create knows. */
  const char *const *names = lsim_solver_names();
  for (int i = 0; names[i]; ++i)
    if (strcmp(names[i], name) == 0) {
      snprintf(s->name, sizeof s->name, "%s", name);
      return 0;
    }
  const char *sg = suggest(name, names);
  if (sg) return fail(c, npath, 0, "unknown solver \"%s\" (did you mean \"%s\"?)", name, sg);
  return fail(c, npath, 0, "unknown solver \"%s\" (try \"lemke\" or \"pgs\"; \"lcpsim solve --list\" may list more)", name);
}

/* Time: "time_step" and exactly one of "steps" and "duration". */
static int parse_time(Ctx *c, const json_t *root, LsimModel *m) {
  double h;
  int rc = get_number(c, root, "", "time_step", &h);
  if (rc < 0) return rc;
  if (rc == 0) return missing(c, "", "time_step", "the step h in s");
  if (check_range(c, "", "time_step", h, GT0) < 0) return LSIM_INVALID_INPUT;
  m->time_step = h;
  const json_t *steps = json_object_get(root, "steps"), *dur = json_object_get(root, "duration");
  if (steps && dur)
    return fail(c, "duration", 1, "give either \"steps\" or \"duration\", not both");
  if (!steps && !dur)
    return fail(c, "", 0, "one of \"steps\" (a count) or \"duration\" (s) is required");
  if (steps) return get_int(c, root, "", "steps", 1, INT_MAX, &m->steps) < 0 ? LSIM_INVALID_INPUT : 0;
  /* duration -> steps = round(duration / h), which must be (nearly) exact. */
  double T;
  if (get_number(c, root, "", "duration", &T) < 0) return LSIM_INVALID_INPUT;
  if (check_range(c, "", "duration", T, GT0) < 0) return LSIM_INVALID_INPUT;
  const double r = T / h, n = round(r);
  if (n < 1 || n > INT_MAX)
    return fail(c, "duration", 0, "gives %.17g steps of %g s; must be between 1 and %d", r, h, INT_MAX);
  if (fabs(r - n) > 1e-9 * n)
    return fail(c, "duration", 0, "%g s is not a whole number of time steps of %g s (%.12g steps)", T, h, r);
  m->steps = (int)n;
  return 0;
}

/* "friction": the polyhedral cone of 2-D/3-D contacts (1-D: the two directions of the
 * line). */
static int parse_friction(Ctx *c, const json_t *root, LsimModel *m) {
  m->friction_directions = c->dim == 3 ? 4 : 2;
  int rc;
  const json_t *f = get_object(c, root, "", "friction", &rc);
  if (!f) return rc;
  static const char *const keys[] = {"directions", NULL};
  if (check_keys(c, f, "friction", keys) < 0) return LSIM_INVALID_INPUT;
  int d = m->friction_directions;
  if (get_int(c, f, "friction", "directions", INT_MIN, INT_MAX, &d) < 0) return LSIM_INVALID_INPUT;
  if (c->dim == 2 && d != 2)
    return fail(c, "friction.directions", 0, "must be 2 in 2-D (the two directions of the tangent), got %d", d);
  if (c->dim == 3 && (d < 4 || d > 16 || d % 2))
    return fail(c, "friction.directions", 0, "must be even, from 4 to 16, in 3-D, got %d", d);
  m->friction_directions = d;
  return 0;
}

/* "output": where the CLI should write, if the scene says. */
static int parse_output(Ctx *c, const json_t *root, LsimSceneOutput *out) {
  int rc;
  const json_t *o = get_object(c, root, "", "output", &rc);
  if (!o) return rc;
  static const char *const keys[] = {"file", "print", NULL};
  if (check_keys(c, o, "output", keys) < 0) return LSIM_INVALID_INPUT;
  if (get_string(c, o, "output", "file", out->file, sizeof out->file, 1) < 0) return LSIM_INVALID_INPUT;
  if (get_bool(c, o, "output", "print", &out->print) < 0) return LSIM_INVALID_INPUT;
  return 0;
}

/* The whole scene into m (bodies added; finalized), s and out. On error m may hold
 * bodies; the caller frees it. */
/* "couplings" (1-D): [{"bodies": ["A", "B"], "inertia": k}], inertial couplings of two
 * dynamic bodies, kinetic energy k (v_A - v_B)^2 / 2; the step then factors the coupled
 * mass matrix with CHOLMOD. */
static int parse_couplings(Ctx *c, const json_t *arr, LsimModel *m) {
  if (!arr) return 0;
  if (!json_is_array(arr)) return fail(c, "couplings", 0, "must be an array, got %s", type_name(arr));
  const size_t n = json_array_size(arr);
  m->couplings = calloc(n + 1, sizeof *m->couplings);
  if (!m->couplings) return LSIM_OUT_OF_MEMORY;
  for (size_t k = 0; k < n; ++k) {
    char p[PATH_CAP], pb[PATH_CAP + 16];
    path_index(p, "couplings", k);
    const json_t *o = json_array_get(arr, k);
    if (!json_is_object(o)) return fail(c, p, 0, "must be an object {\"bodies\": [...], \"inertia\": ...}, got %s", type_name(o));
    static const char *const ckeys[] = {"bodies", "inertia", NULL};
    if (check_keys(c, o, p, ckeys) < 0) return LSIM_INVALID_INPUT;
    LsimCoupling *cp = &m->couplings[k];
    cp->inertia = -1.0;
    int rc = get_ranged(c, o, p, "inertia", GT0, &cp->inertia);
    if (rc < 0) return rc;
    if (!(cp->inertia > 0.0)) return missing(c, p, "inertia", "the coupling's inertia (kg), > 0");
    const json_t *names = json_object_get(o, "bodies");
    snprintf(pb, sizeof pb, "%s.bodies", p);
    if (!names) return missing(c, p, "bodies", "the two coupled bodies' names");
    if (!json_is_array(names) || json_array_size(names) != 2)
      return fail(c, pb, 0, "must be an array of two body names");
    for (int j = 0; j < 2; ++j) {
      char pj[PATH_CAP + 48];
      snprintf(pj, sizeof pj, "%s[%d]", pb, j);
      const json_t *nm = json_array_get(names, (size_t)j);
      if (!json_is_string(nm)) return fail(c, pj, 0, "must be a body name (string), got %s", type_name(nm));
      cp->body[j] = -1;
      for (int i = 0; i < m->nbodies; ++i)
        if (!strcmp(m->bodies[i].name, json_string_value(nm))) cp->body[j] = i;
      if (cp->body[j] < 0) return fail(c, pj, 0, "no body named '%s'", json_string_value(nm));
      if (m->bodies[cp->body[j]].type != LSIM_BODY_DYNAMIC)
        return fail(c, pj, 0, "'%s' is not a dynamic body: only dynamic bodies can be coupled", json_string_value(nm));
    }
    if (cp->body[0] == cp->body[1]) return fail(c, pb, 0, "a body cannot be coupled to itself");
    m->ncouplings = (int)k + 1;
  }
  return 0;
}

/* ------------------------------------------------------------------------------------
 * Tethers and joints: "tethers": [{"name", "length", "ends": [END, END]}], "joints":
 * [{"name", "type": "pin" | "rod", "length", "ends": [END, END]}], END one of
 * {"body": NAME, "point": [...]}, {"world": [...]}, {"path": {...}}.
 * ---------------------------------------------------------------------------------- */

#define TETHER_STRETCH_TOL 1e-9 /* m: a tether may start this much beyond its length */

/* The index of the body named name, or -1. */
static int body_by_name(const LsimModel *m, const char *name) {
  for (int i = 0; i < m->nbodies; ++i)
    if (strcmp(m->bodies[i].name, name) == 0) return i;
  return -1;
}

/* "path": {"origin", "velocity", "amplitude", "frequency", "phase"} or {"origin",
 * "table": [[t, vx(, vy(, vz))], ...]} into a (world end). */
static int parse_path(Ctx *c, const json_t *o, const char *p, LsimAnchor *a) {
  const int dim = c->dim;
  if (!json_is_object(o))
    return fail(c, p, 0, "must be an object {\"origin\": [...], \"velocity\": [...], ...} or {\"origin\": [...], \"table\": [[t, v...], ...]}, got %s",
                type_name(o));
  static const char *const keys[] = {"origin", "velocity", "amplitude", "frequency", "phase",
                                     "table", NULL};
  if (check_keys(c, o, p, keys) < 0) return LSIM_INVALID_INPUT;
  LsimMotion *mo = &a->motion;
  int rc = get_vec(c, o, p, "origin", dim, mo->origin);
  if (rc < 0) return rc;
  if (rc == 0) return missing(c, p, "origin", "the anchor's world position at t = 0");
  const json_t *table = json_object_get(o, "table");
  if (table) {
    /* A velocity table, read as a schedule of width dim, stored with width 3. */
    static const char *const sine[] = {"velocity", "amplitude", "frequency", "phase", NULL};
    if (reject_keys(c, o, p, sine, "give either a \"table\" of velocities or \"velocity\"/\"amplitude\", not both") < 0)
      return LSIM_INVALID_INPUT;
    json_t *wrap = json_object();
    if (!wrap || json_object_set(wrap, "table", (json_t *)table) < 0) {
      json_decref(wrap);
      return LSIM_OUT_OF_MEMORY;
    }
    LsimSchedule s;
    rc = parse_schedule(c, wrap, p, dim, &s);
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
  if (get_vec(c, o, p, "velocity", dim, mo->velocity) < 0) return LSIM_INVALID_INPUT;
  const int has_amp = get_vec(c, o, p, "amplitude", dim, mo->amplitude);
  if (has_amp < 0) return has_amp;
  rc = get_ranged(c, o, p, "frequency", GE0, &mo->frequency);
  if (rc < 0) return rc;
  if (has_amp && rc == 0) return missing(c, p, "frequency", "the sine's frequency in Hz, with \"amplitude\"");
  if (!has_amp && rc) return missing(c, p, "amplitude", "the sine's amplitude [...] in m, with \"frequency\"");
  if (get_number(c, o, p, "phase", &mo->phase) < 0) return LSIM_INVALID_INPUT;
  if (!has_amp && json_object_get(o, "phase"))
    return fail(c, p, 0, "\"phase\" needs \"amplitude\" and \"frequency\"");
  if (!json_object_get(o, "velocity") && !has_amp)
    return fail(c, p, 0, "a path needs \"velocity\", \"amplitude\" and \"frequency\", or \"table\" (a fixed point is {\"world\": [...]})");
  return 0;
}

/* One END at path p into a. */
static int parse_end(Ctx *c, const LsimModel *m, const json_t *o, const char *p, LsimAnchor *a) {
  const int dim = c->dim;
  memset(a, 0, sizeof *a);
  a->body = -1;
  if (!json_is_object(o))
    return fail(c, p, 0, "must be {\"body\": NAME, \"point\": [...]}, {\"world\": [...]} or {\"path\": {...}}, got %s",
                type_name(o));
  static const char *const keys[] = {"body", "point", "world", "path", NULL};
  if (check_keys(c, o, p, keys) < 0) return LSIM_INVALID_INPUT;
  const int nkinds = (json_object_get(o, "body") != NULL) + (json_object_get(o, "world") != NULL) +
                     (json_object_get(o, "path") != NULL);
  if (nkinds != 1)
    return fail(c, p, 0, "give exactly one of \"body\", \"world\" and \"path\"%s",
                nkinds ? "" : " (the end's body, fixed world point or moving path)");
  if (json_object_get(o, "body")) {
    /* A body point, in the body frame (default its origin). */
    char name[48];
    if (get_string(c, o, p, "body", name, sizeof name, 1) < 0) return LSIM_INVALID_INPUT;
    a->body = body_by_name(m, name);
    if (a->body < 0) {
      char bp[PATH_CAP];
      path_key(bp, p, "body");
      return fail(c, bp, 0, "no body named '%s'", name);
    }
    return get_vec(c, o, p, "point", dim, a->point) < 0 ? LSIM_INVALID_INPUT : 0;
  }
  if (json_object_get(o, "point")) {
    char pp[PATH_CAP];
    path_key(pp, p, "point");
    return fail(c, pp, 1, "applies to body ends only (\"world\" is the point itself)");
  }
  if (json_object_get(o, "world")) {
    a->motion.kind = LSIM_MOTION_FIXED;
    return get_vec(c, o, p, "world", dim, a->motion.origin) < 0 ? LSIM_INVALID_INPUT : 0;
  }
  char pp[PATH_CAP];
  path_key(pp, p, "path");
  return parse_path(c, json_object_get(o, "path"), pp, a);
}

/* "ends": [END, END] of the object at p: end 0 on a dynamic body, the ends not on one
 * body. */
static int parse_ends(Ctx *c, const LsimModel *m, const json_t *o, const char *p,
                      LsimAnchor end[2]) {
  const json_t *ends = json_object_get(o, "ends");
  if (!ends) return missing(c, p, "ends", "[END, END]: the first on a dynamic body");
  char ep[PATH_CAP];
  path_key(ep, p, "ends");
  if (!json_is_array(ends) || json_array_size(ends) != 2)
    return json_is_array(ends)
               ? fail(c, ep, 0, "must have two ends [END, END], got %zu", json_array_size(ends))
               : fail(c, ep, 0, "must be an array of two ends [END, END], got %s", type_name(ends));
  for (int k = 0; k < 2; ++k) {
    char kp[PATH_CAP];
    path_index(kp, ep, (size_t)k);
    if (parse_end(c, m, json_array_get(ends, (size_t)k), kp, &end[k]) < 0) return LSIM_INVALID_INPUT;
  }
  char k0[PATH_CAP];
  path_index(k0, ep, 0);
  if (end[0].body < 0 || m->bodies[end[0].body].type != LSIM_BODY_DYNAMIC)
    return fail(c, k0, 0, "the first end must be on a dynamic body%s",
                end[0].body >= 0 ? " (swap the ends?)" : "");
  if (end[1].body == end[0].body) {
    char k1[PATH_CAP];
    path_index(k1, ep, 1);
    return fail(c, k1, 0, "both ends are on body '%s'", m->bodies[end[0].body].name);
  }
  return 0;
}

/* A constraint's "name" (default prefix + index), unique among names[0 .. i-1]. */
static int parse_constraint_name(Ctx *c, const json_t *o, const char *p, const char *prefix,
                                 size_t i, char *name, size_t stride, const char *first) {
  snprintf(name, 48, "%s%zu", prefix, i);
  if (get_string(c, o, p, "name", name, 48, 1) < 0) return LSIM_INVALID_INPUT;
  for (size_t j = 0; j < i; ++j) {
    if (strcmp(first + j * stride, name) != 0) continue;
    char np[PATH_CAP];
    if (json_object_get(o, "name")) path_key(np, p, "name");
    else snprintf(np, sizeof np, "%s", p);
    return fail(c, np, 0, "name '%s' is already used by %s[%zu]", name,
                strcmp(prefix, "tether") == 0 ? "tethers" : "joints", j);
  }
  return 0;
}

/* "tethers", "joints" and "baumgarte" of the scene into m (bodies and the initial state
 * st already there). */
static int parse_constraints(Ctx *c, const json_t *root, LsimModel *m, const LsimState *st) {
  double beta = 0.0;
  int rc = get_number(c, root, "", "baumgarte", &beta);
  if (rc < 0) return rc;
  if (rc && !(beta >= 0.0 && beta <= 1.0))
    return fail(c, "baumgarte", 0, "must be in [0, 1] (0: no correction), got %g", beta);
  m->baumgarte = beta;

  /* Tethers: length > 0, not overstretched at the start. */
  const json_t *ta = json_object_get(root, "tethers");
  if (ta && !json_is_array(ta)) return fail(c, "tethers", 0, "must be an array, got %s", type_name(ta));
  const size_t nt = ta ? json_array_size(ta) : 0;
  if (nt > (size_t)INT_MAX / 4) return fail(c, "tethers", 0, "too many tethers");
  if (nt > 0) {
    m->tethers = calloc(nt, sizeof *m->tethers);
    if (!m->tethers) return LSIM_OUT_OF_MEMORY;
    m->ntethers = (int)nt; /* zeroed entries free cleanly on error */
  }
  for (size_t i = 0; i < nt; ++i) {
    char p[PATH_CAP];
    path_index(p, "tethers", i);
    const json_t *o = json_array_get(ta, i);
    if (!json_is_object(o))
      return fail(c, p, 0, "must be an object {\"name\", \"length\", \"ends\"}, got %s", type_name(o));
    static const char *const keys[] = {"name", "length", "ends", NULL};
    if (check_keys(c, o, p, keys) < 0) return LSIM_INVALID_INPUT;
    LsimTether *t = &m->tethers[i];
    if (parse_constraint_name(c, o, p, "tether", i, t->name, sizeof *t, m->tethers[0].name) < 0)
      return LSIM_INVALID_INPUT;
    rc = get_ranged(c, o, p, "length", GT0, &t->length);
    if (rc < 0) return rc;
    if (rc == 0) return missing(c, p, "length", "the tether's length in m, > 0");
    if (parse_ends(c, m, o, p, t->end) < 0) return LSIM_INVALID_INPUT;
    const double d = lsim_tether_length(m, st, 0.0, (int)i);
    if (d > t->length + TETHER_STRETCH_TOL) {
      char lp[PATH_CAP];
      path_key(lp, p, "length");
      return fail(c, lp, 0, "the tether would start overstretched: its ends are %.12g m apart, more than its length %g",
                  d, t->length);
    }
  }

  /* Joints: a pin takes no length; a rod's defaults to the initial distance. */
  const json_t *ja = json_object_get(root, "joints");
  if (ja && !json_is_array(ja)) return fail(c, "joints", 0, "must be an array, got %s", type_name(ja));
  const size_t nj = ja ? json_array_size(ja) : 0;
  if (nj > (size_t)INT_MAX / 4) return fail(c, "joints", 0, "too many joints");
  if (nj > 0) {
    m->joints = calloc(nj, sizeof *m->joints);
    if (!m->joints) return LSIM_OUT_OF_MEMORY;
    m->njoints = (int)nj;
  }
  for (size_t i = 0; i < nj; ++i) {
    char p[PATH_CAP];
    path_index(p, "joints", i);
    const json_t *o = json_array_get(ja, i);
    if (!json_is_object(o))
      return fail(c, p, 0, "must be an object {\"name\", \"type\", \"ends\"}, got %s", type_name(o));
    static const char *const keys[] = {"name", "type", "length", "ends", NULL};
    if (check_keys(c, o, p, keys) < 0) return LSIM_INVALID_INPUT;
    LsimJoint *j = &m->joints[i];
    if (parse_constraint_name(c, o, p, "joint", i, j->name, sizeof *j, m->joints[0].name) < 0)
      return LSIM_INVALID_INPUT;
    char type[16];
    rc = get_string(c, o, p, "type", type, sizeof type, 0);
    if (rc == 0) return missing(c, p, "type", "\"pin\" (the ends coincide) or \"rod\" (fixed distance)");
    char tp[PATH_CAP];
    path_key(tp, p, "type");
    if (rc < 0 || (strcmp(type, "pin") != 0 && strcmp(type, "rod") != 0))
      return rc < 0 ? rc : fail(c, tp, 0, "must be \"pin\" or \"rod\", got \"%s\"%s", type,
                                strcmp(type, "ball") == 0 ? " (a 3-D ball joint is a \"pin\")" : "");
    j->type = strcmp(type, "pin") == 0 ? LSIM_JOINT_PIN : LSIM_JOINT_ROD;
    if (j->type == LSIM_JOINT_PIN && json_object_get(o, "length")) {
      char lp[PATH_CAP];
      path_key(lp, p, "length");
      return fail(c, lp, 1, "applies to rods only (a pin joins two points)");
    }
    rc = get_ranged(c, o, p, "length", GT0, &j->length);
    if (rc < 0) return rc;
    if (parse_ends(c, m, o, p, j->end) < 0) return LSIM_INVALID_INPUT;
    if (j->type == LSIM_JOINT_ROD && rc == 0) {
      /* The rod's length: the initial distance of its ends, which must be apart. */
      j->length = 0.0;
      j->length = lsim_joint_error(m, st, 0.0, (int)i);
      if (!(j->length > 0.0))
        return fail(c, p, 0, "the rod's ends coincide at the start: give its \"length\" (or make it a \"pin\")");
    }
  }
  return 0;
}

static int parse_scene(Ctx *c, const json_t *root, LsimModel *m, LsimState *st,
                       LsimSceneOutput *out) {
  if (!json_is_object(root))
    return fail(c, "", 0, "a scene is a JSON object {...}, got %s", type_name(root));

  /* Format version and dimension first: they decide what the rest means. */
  int version = 0;
  int rc = get_int(c, root, "", "lcpsim", INT_MIN, INT_MAX, &version);
  if (rc < 0) return rc;
  if (rc == 0) return missing(c, "", "lcpsim", "the format version: \"lcpsim\": 1");
  if (version != 1)
    return fail(c, "lcpsim", 0, "unsupported format version %d (this lcpsim reads version 1)", version);
  m->dimension = 1;
  rc = get_int(c, root, "", "dimension", INT_MIN, INT_MAX, &m->dimension);
  if (rc < 0) return rc;
  if (m->dimension < 1 || m->dimension > 3)
    return fail(c, "dimension", 0, "must be 1, 2 or 3, got %d", m->dimension);
  const int dim = c->dim = m->dimension;

  /* Keys: 1-D as it always was; 2-D/3-D add "friction" (and reject "ground" and "walls"
     below, with a hint). */
  static const char *const keys[] = {"$schema", "lcpsim", "name", "description", "dimension",
                                     "time_step", "steps", "duration", "gravity", "ground",
                                     "solver", "contact", "bodies", "walls", "couplings",
                                     "tethers", "joints", "baumgarte", "output", NULL};
  static const char *const keys_nd[] = {"$schema", "lcpsim", "name", "description", "dimension",
                                        "time_step", "steps", "duration", "gravity", "friction",
                                        "ground", "solver", "contact", "bodies", "walls",
                                        "tethers", "joints", "baumgarte", "output", NULL};
  if (dim == 1 && json_object_get(root, "friction"))
    return fail(c, "friction", 1, "applies to 2-D and 3-D scenes only (1-D friction is \"ground\")");
  if (check_keys(c, root, "", dim == 1 ? keys : keys_nd) < 0) return LSIM_INVALID_INPUT;
  if (dim > 1) {
    if (json_object_get(root, "ground"))
      return fail(c, "ground", 1, "applies to 1-D scenes only: in %d-D the ground is a static body with a \"plane\" shape (friction from the shapes' \"mu\")", dim);
    if (json_object_get(root, "walls"))
      return fail(c, "walls", 1, "applies to 1-D scenes only: in %d-D a wall is a static body with a \"plane\" or \"box\" shape", dim);
  }

  /* Descriptive text: checked, not kept (the recorder keeps the whole text). */
  static const char *const texts[] = {"$schema", "name", "description", NULL};
  for (int i = 0; texts[i]; ++i) {
    const json_t *t = json_object_get(root, texts[i]);
    if (t && !json_is_string(t)) return fail(c, texts[i], 0, "must be a string, got %s", type_name(t));
  }

  if (parse_time(c, root, m) < 0) return LSIM_INVALID_INPUT;

  /* Gravity: 1-D, an acceleration along the line; 2-D/3-D a vector (default zero). */
  if (dim == 1 && get_number(c, root, "", "gravity", &m->gravity[0]) < 0) return LSIM_INVALID_INPUT;
  if (dim > 1 && get_vec(c, root, "", "gravity", dim, m->gravity) < 0) return LSIM_INVALID_INPUT;

  /* Ground friction: mu for all bodies, under the normal load m g. */
  Defaults d = {0.0};
  const json_t *ground = get_object(c, root, "", "ground", &rc);
  if (rc < 0) return rc;
  if (ground) {
    static const char *const gkeys[] = {"mu", "g", NULL};
    if (check_keys(c, ground, "ground", gkeys) < 0) return LSIM_INVALID_INPUT;
    if (get_ranged(c, ground, "ground", "mu", GE0, &d.ground_mu) < 0) return LSIM_INVALID_INPUT;
    if (get_ranged(c, ground, "ground", "g", GE0, &m->ground_normal_gravity) < 0) return LSIM_INVALID_INPUT;
  }

  if (parse_solver(c, root, &m->solver) < 0) return LSIM_INVALID_INPUT;

  /* Contact detection. */
  const json_t *contact = get_object(c, root, "", "contact", &rc);
  if (rc < 0) return rc;
  if (contact) {
    static const char *const ckeys[] = {"margin", "restitution_threshold", NULL};
    if (check_keys(c, contact, "contact", ckeys) < 0) return LSIM_INVALID_INPUT;
    if (get_ranged(c, contact, "contact", "margin", GE0, &m->contact_margin) < 0) return LSIM_INVALID_INPUT;
    if (get_ranged(c, contact, "contact", "restitution_threshold", GE0, &m->restitution_threshold) < 0)
      return LSIM_INVALID_INPUT;
  }
  if (parse_friction(c, root, m) < 0) return LSIM_INVALID_INPUT;

  if (parse_output(c, root, out) < 0) return LSIM_INVALID_INPUT;

  /* Bodies, then walls, into the model in that order. */
  const json_t *bodies = json_object_get(root, "bodies");
  if (!bodies) return missing(c, "", "bodies", "an array of bodies, at least one dynamic");
  if (!json_is_array(bodies)) return fail(c, "bodies", 0, "must be an array, got %s", type_name(bodies));
  if (dim > 1) {
    rc = parse_bodies_nd(c, bodies, m, st);
    return rc < 0 ? rc : parse_constraints(c, root, m, st);
  }
  const json_t *walls = json_object_get(root, "walls");
  if (walls && !json_is_array(walls)) return fail(c, "walls", 0, "must be an array, got %s", type_name(walls));
  const size_t nb = json_array_size(bodies), nw = walls ? json_array_size(walls) : 0;
  if (nb + nw > (size_t)INT_MAX / 2) return fail(c, "bodies", 0, "too many bodies");
  Origin *org = calloc(nb + nw + 1, sizeof *org);
  if (!org) return LSIM_OUT_OF_MEMORY;
  int ndynamic = 0;
  rc = 0;
  for (size_t k = 0; k < nb + nw && rc == 0; ++k) {
    const int is_wall = k >= nb;
    const size_t idx = is_wall ? k - nb : k;
    char p[PATH_CAP];
    path_index(p, is_wall ? "walls" : "bodies", idx);
    LsimBody b;
    Origin *o = &org[m->nbodies];
    rc = is_wall ? parse_wall(c, json_array_get(walls, idx), p, idx, &b, o)
                 : parse_body(c, json_array_get(bodies, idx), p, idx, &d, &b, o);
    if (rc < 0) break;
    ndynamic += b.type == LSIM_BODY_DYNAMIC;
    rc = add_body(m, &b);
    if (rc == 0) rc = check_name(c, m, org, m->nbodies - 1);
  }
  if (rc == 0 && ndynamic == 0)
    rc = fail(c, "bodies", 0, "at least one dynamic body is required");
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
  if (rc == 0) rc = parse_couplings(c, json_object_get(root, "couplings"), m);
  if (rc == 0) rc = parse_constraints(c, root, m, st);
  return rc;
}

/* Sets err for a jansson syntax error, pointing at the start of the offending token
 * (jansson gives its end) and saying so when the token is a NaN or an infinity. */
static void syntax_error(Ctx *c, const json_error_t *je) {
  LsimSceneError *err = c->err;
  set_file(err, c->name);
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
  snprintf(err->message, sizeof err->message, "%s%s", msg, hint);
}

/* Parses text (len bytes, NUL-terminated) into model/state/out; on error frees all. */
static int load_text(const char *text, size_t len, const char *name, LsimModel *model,
                     LsimState *state, LsimSceneOutput *out, LsimSceneError *err) {
  LsimSceneError scratch_err;
  Ctx c = {text, name, err ? err : &scratch_err, 0};
  *model = lsim_default_model();
  memset(state, 0, sizeof *state);
  memset(out, 0, sizeof *out);
  /* A NUL inside the text would hide the rest from the parser. */
  const char *nul = memchr(text, '\0', len);
  if (nul) {
    set_file(c.err, name);
    c.err->line = 1;
    for (const char *p = text; p < nul; ++p) {
      if (*p == '\n') { c.err->line++; c.err->column = 0; }
      else if (((unsigned char)*p & 0xC0) != 0x80) c.err->column++;
    }
    c.err->column++;
    snprintf(c.err->message, sizeof c.err->message, "the text contains a NUL byte");
    return LSIM_INVALID_INPUT;
  }
  json_error_t je;
  json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);
  if (!root) {
    syntax_error(&c, &je);
    return LSIM_INVALID_INPUT;
  }
  const int rc = parse_scene(&c, root, model, state, out);
  json_decref(root);
  if (rc < 0) {
    if (rc == LSIM_OUT_OF_MEMORY) {
      set_file(c.err, name);
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
    set_file(err, path);
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
