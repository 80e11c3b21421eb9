/* json.c: the scene reader's JSON toolkit: paths of values, positions of values in the
 * text, errors that name file:line:column and path, typo suggestions, typed getters and
 * schedules (docs/scene-format.md).
 *
 * jansson parses and checks the syntax (with line:column for syntax errors). jansson
 * keeps no positions per value, so for semantic errors a small scanner walks the
 * (already valid) text again, tracking the JSON path of every value, until it reaches
 * the path of the offending value; errors are rare, so positions cost nothing when the
 * scene is good. Every error names the file, line:column, JSON path and what is wrong.
 */
#include "scene/parse.h"

#include <stdarg.h>
#include <jansson.h>
#include <limits.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lcp/lcp.h"

#define KEY_CAP 256      /* decoded keys in the scanner */

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
int lsim_json_path_key(char *out, const char *parent, const char *key) {
  if (!key_is_plain(key)) return path_cat(out, parent, "[\"", key, "\"]");
  return path_cat(out, parent, parent[0] ? "." : "", key, "");
}

/* Writes parent + "[i]" into out[PATH_CAP]. Returns 0, or 1 when truncated. */
int lsim_json_path_index(char *out, const char *parent, size_t i) {
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
  int find_underflow;     /* no target: stop at the first number that reads as 0 but is
                             not (val_line, val_col, path and token set) */
  const char *token;      /* that number's text (ends at a delimiter) */
  char token_path[PATH_CAP]; /* and its path ("" when it did not fit) */
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
  return s->target && !s->truncated && strcmp(s->path, s->target) == 0;
}

/* A number token at p (valid JSON) that strtod reads as 0 while a digit of its mantissa
 * is not 0: a magnitude below the smallest double (about 4.9e-324), such as 1e-400.
 * jansson refuses such numbers past the largest double ("real number overflow") but
 * reads these as 0, which means something else in many fields (solver.tol 0: a fixed
 * budget; baumgarte 0: the default factor 1). */
static int number_underflows(const char *p) {
  if (*p != '-' && !(*p >= '0' && *p <= '9')) return 0;
  int nonzero = 0;
  for (const char *d = p; *d && !strchr("eE,]} \t\r\n", *d); ++d) nonzero |= *d >= '1' && *d <= '9';
  return nonzero && strtod(p, NULL) == 0.0;
}

static void sc_value(Scanner *s, int depth);

/* After a member's or an element's value: the path back to parent (len chars, trunc
 * undone), then past ',' (returns 1: another follows) or past close (returns 0, as when
 * the target was found or the text ends). */
static int sc_next(Scanner *s, const char *parent, size_t len, int trunc, char close) {
  s->truncated -= trunc;
  memcpy(s->path, parent, len + 1);
  if (s->done) return 0;
  sc_ws(s);
  if (*s->p == ',') { sc_adv(s); return 1; }
  if (*s->p == close) sc_adv(s);
  return 0;
}

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
    const int trunc = lsim_json_path_key(s->path, parent, key);
    s->truncated += trunc;
    if (sc_at_target(s)) { s->key_line = kl; s->key_col = kc; }
    sc_ws(s);
    if (*s->p == ':') sc_adv(s);
    sc_ws(s);
    sc_value(s, depth + 1);
    if (!sc_next(s, parent, len, trunc, '}')) return;
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
    const int trunc = lsim_json_path_index(s->path, parent, i);
    s->truncated += trunc;
    sc_value(s, depth + 1);
    if (!sc_next(s, parent, len, trunc, ']')) return;
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
      if (s->find_underflow && number_underflows(s->p)) {
        s->val_line = s->line;
        s->val_col = s->chars + 1;
        s->token = s->p;
        snprintf(s->token_path, sizeof s->token_path, "%s", s->truncated ? "" : s->path);
        s->done = 1;
        return;
      }
      while (*s->p && !strchr(",]} \t\r\n", *s->p)) sc_adv(s);
  }
}

int lsim_scene_check_underflow(LsimSceneError *err, const char *text, const char *name) {
  Scanner *s = calloc(1, sizeof *s);
  if (!s) return 0; /* the check is skipped; the text is still read */
  s->p = text;
  s->line = 1;
  s->find_underflow = 1;
  sc_ws(s);
  sc_value(s, 0);
  int rc = 0;
  if (s->token) {
    /* The token as written, shortened if long. */
    size_t n = strcspn(s->token, ",]} \t\r\n");
    lsim_parse_set_file(err, name);
    err->line = s->val_line;
    err->column = s->val_col;
    snprintf(err->path, sizeof err->path, "%.127s", s->token_path);
    snprintf(err->message, sizeof err->message,
             "real number underflow near '%.*s%s' (not 0, but smaller than the smallest double, "
             "about 4.9e-324: it would be read as 0; write 0 if 0 is meant)",
             (int)(n > 40 ? 40 : n), s->token, n > 40 ? "..." : "");
    rc = LSIM_INVALID_INPUT;
  }
  free(s);
  return rc;
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

void lsim_parse_set_file(LsimSceneError *err, const char *name) {
  memset(err, 0, sizeof *err);
  snprintf(err->file, sizeof err->file, "%s", name ? name : "<scene>");
}

/* Fills the error for the value at path (its key when at_key) and returns
 * LSIM_INVALID_INPUT. */
int lsim_parse_fail(LsimParseCtx *c, const char *path, int at_key, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int rc = lsim_scene_verror(c->err, c->text, c->name, path, at_key, fmt, ap);
  va_end(ap);
  return rc;
}

int lsim_scene_verror(LsimSceneError *err, const char *text, const char *name,
                      const char *path, int at_key, const char *fmt, va_list ap) {
  lsim_parse_set_file(err, name);
  locate(text, path, at_key, &err->line, &err->column);
  snprintf(err->path, sizeof err->path, "%s", path);
  vsnprintf(err->message, sizeof err->message, fmt, ap);
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

const char *lsim_json_type_name(const json_t *v) {
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
const char *lsim_json_suggest(const char *w, const char *const *words) {
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
  for (int i = 0; words[i]; ++i) {
    /* Whole words only: one that does not fit (with room for ", ...") ends the list. */
    const size_t k = strlen(words[i]) + (i ? 2 : 0);
    if (n + k + 5 >= len) {
      snprintf(buf + n, len - n, "%s...", i ? ", " : "");
      return;
    }
    n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", words[i]);
  }
}

/* Rejects any key of obj not in allowed (the first one in the text is reported). */
int lsim_parse_check_keys(LsimParseCtx *c, const json_t *obj, const char *opath, const char *const *allowed) {
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
    lsim_json_path_key(p, opath, key);
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
  lsim_json_path_key(p, opath, bad);
  const char *s = lsim_json_suggest(bad, allowed);
  if (s) return lsim_parse_fail(c, p, 1, "unknown key (did you mean '%s'?)", s);
  char list[400];
  word_list(allowed, list, sizeof list);
  return lsim_parse_fail(c, p, 1, "unknown key (known keys here: %s)", list);
}

/* ------------------------------------------------------------------------------------
 * Typed getters. Each returns 1 when the key is present (and *out is set), 0 when it is
 * absent (*out untouched), < 0 on a wrong type (error filled).
 * ---------------------------------------------------------------------------------- */

int lsim_parse_get_number(LsimParseCtx *c, const json_t *obj, const char *opath, const char *key,
                          double *out) {
  const json_t *v = json_object_get(obj, key);
  if (!v) return 0;
  char p[PATH_CAP];
  lsim_json_path_key(p, opath, key);
  if (!json_is_number(v)) return lsim_parse_fail(c, p, 0, "must be a number, got %s", lsim_json_type_name(v));
  *out = json_number_value(v);
  return 1;
}

/* An integer in [lo, hi]; integral reals like 30.0 are accepted. */
int lsim_parse_get_int(LsimParseCtx *c, const json_t *obj, const char *opath, const char *key, int lo,
                       int hi, int *out) {
  const json_t *v = json_object_get(obj, key);
  if (!v) return 0;
  char p[PATH_CAP];
  lsim_json_path_key(p, opath, key);
  if (!json_is_number(v)) return lsim_parse_fail(c, p, 0, "must be an integer, got %s", lsim_json_type_name(v));
  const double d = json_number_value(v);
  if (d != floor(d)) return lsim_parse_fail(c, p, 0, "must be an integer, got %g", d);
  if (d < lo || d > hi) {
    /* (a value past INT_MAX is told the upper bound: ">= lo" alone it satisfies) */
    if (hi == INT_MAX && d < lo)
      return lsim_parse_fail(c, p, 0, "must be an integer >= %d, got %.17g", lo, d);
    return lsim_parse_fail(c, p, 0, "must be an integer in [%d, %d], got %.17g", lo, hi, d);
  }
  *out = (int)d;
  return 1;
}

/* A string of at most cap - 1 bytes (nonempty when nonempty is set). */
int lsim_parse_get_string(LsimParseCtx *c, const json_t *obj, const char *opath, const char *key, char *out,
                          size_t cap, int nonempty) {
  const json_t *v = json_object_get(obj, key);
  if (!v) return 0;
  char p[PATH_CAP];
  lsim_json_path_key(p, opath, key);
  if (!json_is_string(v)) return lsim_parse_fail(c, p, 0, "must be a string, got %s", lsim_json_type_name(v));
  const size_t n = json_string_length(v);
  if (nonempty && n == 0) return lsim_parse_fail(c, p, 0, "must not be empty");
  if (n >= cap) return lsim_parse_fail(c, p, 0, "must be at most %zu bytes long, got %zu", cap - 1, n);
  if (strlen(json_string_value(v)) != n) return lsim_parse_fail(c, p, 0, "must not contain NUL");
  memcpy(out, json_string_value(v), n + 1);
  return 1;
}

int lsim_parse_get_bool(LsimParseCtx *c, const json_t *obj, const char *opath, const char *key, int *out) {
  const json_t *v = json_object_get(obj, key);
  if (!v) return 0;
  char p[PATH_CAP];
  lsim_json_path_key(p, opath, key);
  if (!json_is_boolean(v)) return lsim_parse_fail(c, p, 0, "must be true or false, got %s", lsim_json_type_name(v));
  *out = json_is_true(v);
  return 1;
}

/* An object member that must be an object (or absent: returns NULL with *rc = 0). */
const json_t *lsim_parse_get_object(LsimParseCtx *c, const json_t *obj, const char *opath, const char *key,
                                    int *rc) {
  const json_t *v = json_object_get(obj, key);
  *rc = 0;
  if (!v) return NULL;
  if (json_is_object(v)) return v;
  char p[PATH_CAP];
  lsim_json_path_key(p, opath, key);
  *rc = lsim_parse_fail(c, p, 0, "must be an object, got %s", lsim_json_type_name(v));
  return NULL;
}

/* Range checks of a number already read from opath.key. */
int lsim_parse_check_range(LsimParseCtx *c, const char *opath, const char *key, double v, int kind) {
  /* A quantity that must be > 0 must also be a normal number: a subnormal one (a mass of
     1e-320) has no finite inverse, and the first step turned it into NaN. */
  if (kind == GT0 ? v >= DBL_MIN : v >= 0) return 0;
  char p[PATH_CAP];
  lsim_json_path_key(p, opath, key);
  if (kind == GT0 && v > 0)
    return lsim_parse_fail(c, p, 0,
                           "must be > 0 and at least %g (the smallest normal number), got %g",
                           DBL_MIN, v);
  return lsim_parse_fail(c, p, 0, "must be %s 0, got %g", kind == GT0 ? ">" : ">=", v);
}

/* A number that, when present, must satisfy kind; *out keeps its default otherwise. */
int lsim_parse_get_ranged(LsimParseCtx *c, const json_t *obj, const char *opath, const char *key, int kind,
                          double *out) {
  double v;
  const int rc = lsim_parse_get_number(c, obj, opath, key, &v);
  if (rc <= 0) return rc;
  if (lsim_parse_check_range(c, opath, key, v, kind) < 0) return LSIM_INVALID_INPUT;
  *out = v;
  return 1;
}

/* A body's "restitution", when present: a coefficient in [0, 1]. */
int lsim_parse_get_restitution(LsimParseCtx *c, const json_t *obj, const char *opath, double *out) {
  double v = 0.0;
  const int rc = lsim_parse_get_number(c, obj, opath, "restitution", &v);
  if (rc <= 0) return rc;
  if (!(v >= 0.0 && v <= 1.0)) {
    char p[PATH_CAP];
    lsim_json_path_key(p, opath, "restitution");
    return lsim_parse_fail(c, p, 0, "must be in [0, 1] (0: perfectly inelastic, 1: elastic), got %g", v);
  }
  *out = v;
  return 1;
}

int lsim_parse_missing(LsimParseCtx *c, const char *opath, const char *key, const char *what) {
  char p[PATH_CAP];
  lsim_json_path_key(p, opath, key);
  return lsim_parse_fail(c, p, 0, "required key missing (%s)", what);
}

/* ------------------------------------------------------------------------------------
 * Schedules: a number (constant) or {"table": [[t, value], ...]}.
 * ---------------------------------------------------------------------------------- */

int lsim_parse_schedule(LsimParseCtx *c, const json_t *v, const char *path, int width,
                        LsimSchedule *s) {
  s->width = width;
  s->npoints = 0;
  s->t = s->value = NULL;
  if (json_is_number(v)) {
    s->constant = json_number_value(v);
    return 0;
  }
  if (!json_is_object(v))
    return lsim_parse_fail(c, path, 0, "must be a number or {\"table\": [[t, value], ...]}, got %s",
                lsim_json_type_name(v));
  static const char *const keys[] = {"table", NULL};
  if (lsim_parse_check_keys(c, v, path, keys) < 0) return LSIM_INVALID_INPUT;
  const json_t *table = json_object_get(v, "table");
  if (!table) return lsim_parse_missing(c, path, "table", "rows [t, value] with t in s");
  char tp[PATH_CAP];
  lsim_json_path_key(tp, path, "table");
  if (!json_is_array(table)) return lsim_parse_fail(c, tp, 0, "must be an array, got %s", lsim_json_type_name(table));
  const size_t n = json_array_size(table);
  if (n == 0) return lsim_parse_fail(c, tp, 0, "must have at least one row [t, value]");
  if (n > INT_MAX / (size_t)(width + 1)) return lsim_parse_fail(c, tp, 0, "too many rows");
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
    lsim_json_path_index(rp, tp, k);
    int rc = 0;
    if (!json_is_array(row) || json_array_size(row) != (size_t)width + 1) {
      rc = json_is_array(row)
               ? lsim_parse_fail(c, rp, 0, "must be a row [t, value] of %d numbers, got %zu", width + 1,
                      json_array_size(row))
               : lsim_parse_fail(c, rp, 0, "must be a row [t, value], got %s", lsim_json_type_name(row));
    }
    for (int j = 0; rc == 0 && j <= width; ++j) {
      const json_t *x = json_array_get(row, (size_t)j);
      if (json_is_number(x)) continue;
      char xp[PATH_CAP];
      lsim_json_path_index(xp, rp, (size_t)j);
      rc = lsim_parse_fail(c, xp, 0, "must be a number, got %s", lsim_json_type_name(x));
    }
    if (rc == 0) {
      s->t[k] = json_number_value(json_array_get(row, 0));
      for (int j = 0; j < width; ++j)
        s->value[k * (size_t)width + (size_t)j] = json_number_value(json_array_get(row, (size_t)j + 1));
      if (k > 0 && !(s->t[k] > s->t[k - 1])) {
        char xp[PATH_CAP];
        lsim_json_path_index(xp, rp, 0);
        rc = lsim_parse_fail(c, xp, 0, "times must increase strictly: %g after %g", s->t[k], s->t[k - 1]);
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

/* The array at path p as n numbers into out. */
int lsim_parse_read_vec(LsimParseCtx *c, const json_t *v, const char *p, int n, double *out) {
  if (!json_is_array(v))
    return lsim_parse_fail(c, p, 0, "must be an array of %d numbers in %d-D, got %s", n, c->dim, lsim_json_type_name(v));
  if (json_array_size(v) != (size_t)n)
    return lsim_parse_fail(c, p, 0, "needs %d numbers in %d-D, got %zu", n, c->dim, json_array_size(v));
  for (int k = 0; k < n; ++k) {
    const json_t *x = json_array_get(v, (size_t)k);
    if (json_is_number(x)) { out[k] = json_number_value(x); continue; }
    char xp[PATH_CAP];
    lsim_json_path_index(xp, p, (size_t)k);
    return lsim_parse_fail(c, xp, 0, "must be a number, got %s", lsim_json_type_name(x));
  }
  return 0;
}

/* opath.key as n numbers: 1 when present, 0 when absent, < 0 on error. */
int lsim_parse_get_vec(LsimParseCtx *c, const json_t *obj, const char *opath, const char *key, int n,
                       double *out) {
  const json_t *v = json_object_get(obj, key);
  if (!v) return 0;
  char p[PATH_CAP];
  lsim_json_path_key(p, opath, key);
  return lsim_parse_read_vec(c, v, p, n, out) < 0 ? LSIM_INVALID_INPUT : 1;
}

/* A key that must not be there: error at the key with the reason. */
int lsim_parse_reject_keys(LsimParseCtx *c, const json_t *o, const char *path, const char *const *keys,
                           const char *why) {
  for (int i = 0; keys[i]; ++i) {
    if (!json_object_get(o, keys[i])) continue;
    char p[PATH_CAP];
    lsim_json_path_key(p, path, keys[i]);
    return lsim_parse_fail(c, p, 1, "%s", why);
  }
  return 0;
}
