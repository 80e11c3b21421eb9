/* view.c: `lcpsim view RUN.h5 [-o run.html]`: one self-contained HTML page showing a run.
 *
 * The page (viewer/viewer.html with three.js inlined at build time by viewer/bundle.js,
 * compiled in as lsim_view_page_head / _tail) gets the file's datasets embedded as JSON
 * between the two, in script elements of their own: first {"file": NAME}, then per
 * dataset {"path": PATH, "shape": [...], "strings": [...]} or, numbers, pieces
 * {"path": PATH, "shape": [...], "offset": BYTE, "f64": BASE64} of at most 48 MB each,
 * last an element of class lcpsim-end (a page cut short lacks it). Pieces, because a
 * browser holds at most about 512 MB of text in one string: a page with all its data in
 * one element (a pile of 1000 boxes over 700 steps, 614 MB) did not open. Numbers travel
 * as little-endian float64 in base64 (exact, and a third of the size of decimal text);
 * integers are converted to float64
 * (exact up to 2^53; contact ids above that lose their low bits, which the page does not
 * need: it reads the source index from bits 16..39). Every dataset is embedded except the
 * dumped LCPs under /lcp, so run, compare and hybrid files all travel whole; the page
 * decides what to draw and says in the page what it cannot.
 */
#include <errno.h>
#include <hdf5.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "scene/outfile.h"
#include "lcp/h5check.h"

extern const char lsim_view_page_head[];
extern const char lsim_view_page_tail[];

static void view_usage(FILE *f) {
  fprintf(f,
          "usage: lcpsim view FILE.h5 [-o PAGE.html]\n"
          "  Writes one HTML page that shows the run in a browser: bodies and their shapes,\n"
          "  tethers (taut solid, slack dashed), joints, contact points with normal and\n"
          "  friction impulse arrows, a timeline (play, pause, step by step). The page holds\n"
          "  the file's data and the JavaScript it needs: it opens offline, from file://.\n"
          "  Compare files show their per-step measures (beside the reference's bodies when\n"
          "  written with lcpsim compare --trajectory), hybrid-model files their states\n"
          "  over time. PAGE.html#step=K (or #t=SECONDS) opens at that step; add\n"
          "  &contacts=0 for the page without its contact marks.\n"
          "  -o, --output FILE  the page (default: FILE's base name + .html, here)\n"
          "Exit status: 0 written, 2 bad input or unwritable output.\n");
}

/* ---- Output: base64 and JSON strings. */

static void put_base64(FILE *out, const unsigned char *p, size_t n) {
  static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t i = 0;
  for (; i + 3 <= n; i += 3) {
    const unsigned v = (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8 | p[i + 2];
    fputc(tab[v >> 18], out), fputc(tab[(v >> 12) & 63], out);
    fputc(tab[(v >> 6) & 63], out), fputc(tab[v & 63], out);
  }
  if (n - i == 1) {
    const unsigned v = (unsigned)p[i] << 16;
    fprintf(out, "%c%c==", tab[v >> 18], tab[(v >> 12) & 63]);
  } else if (n - i == 2) {
    const unsigned v = (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8;
    fprintf(out, "%c%c%c=", tab[v >> 18], tab[(v >> 12) & 63], tab[(v >> 6) & 63]);
  }
}

/* A JSON string of at most n bytes of s; "</" is written "<\/" so that nothing in the
   data can close the page's script element. */
static void put_json_string(FILE *out, const char *s, size_t n) {
  fputc('"', out);
  for (size_t i = 0; i < n && s[i]; ++i) {
    const unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
    else if (c == '/' && i > 0 && s[i - 1] == '<') fputs("\\/", out);
    else if (c < 0x20) fprintf(out, "\\u%04x", c);
    else fputc(c, out);
  }
  fputc('"', out);
}

/* ---- Datasets. */

/* Raw bytes per script element of numbers: 48 MB (64 MB of base64), or the environment's
   LSIM_VIEW_PIECE rounded down to a multiple of 24 (at least 24), for tests. */
static size_t piece_bytes(void) {
  const char *e = getenv("LSIM_VIEW_PIECE");
  char *end;
  const unsigned long long v = e ? strtoull(e, &end, 10) : 0;
  if (!e || end == e || *end) return (size_t)48 * 1024 * 1024;
  return v < 24 ? 24 : (size_t)(v / 24 * 24);
}

/* Opens one dataset's script element: its path and shape, the object left open. */
static void put_element(FILE *out, const char *path, int rank, const hsize_t *dims) {
  fputs("\n<script type=\"application/json\" class=\"lcpsim-ds\">{\"path\":", out);
  put_json_string(out, path, strlen(path));
  fputs(",\"shape\":[", out);
  for (int i = 0; i < rank; ++i) fprintf(out, "%s%llu", i ? "," : "", (unsigned long long)dims[i]);
  fputc(']', out);
}

typedef struct {
  FILE *out;
  int count;       /* datasets written */
  char error[512]; /* set when a dataset cannot be read */
  /* A killed comparison's (1), hybrid-model run's (2) or time-stepping run's (3) file:
     its rows read up to its marks, /flushed_rows (a hybrid run's events: /flushed_events;
     a run's contact rows: /contacts/offset[/flushed_rows], in events); 0: a whole file. */
  int cut;
  long long rows, events;
  long long left; /* rows of /step or /time past the mark, left out */
  /* A killed run's /resume slot of another step than its last whole row's (one flush
     older, or of the flush the kill cut short: it may not read), left out; "" none. */
  char stale[32];
  int row_kinds; /* a run file whose series say their row kind (format_version 3 on) */
  /* An event-driven run's (w->cut 3) /flushed_events, the /events rows kept (-1: no mark,
     every row), and the rows of /events/time past it, left out. */
  long long run_events, events_left;
} Walk;

/* A series' row kind, its attribute row_kind (format_version 3 on, scene/record.c), into
 * kind (size len); "" when it has none (a table, not a series). */
static void row_kind_of(hid_t ds, char *kind, size_t len) {
  kind[0] = '\0';
  if (H5Aexists(ds, "row_kind") <= 0) return;
  hid_t a = H5Aopen(ds, "row_kind", H5P_DEFAULT), t = a >= 0 ? H5Aget_type(a) : -1;
  hid_t mem = H5Tcopy(H5T_C_S1);
  const size_t size = t >= 0 && H5Tget_class(t) == H5T_STRING && H5Tis_variable_str(t) == 0
                          ? H5Tget_size(t) : 0;
  if (size > 0 && size < len && mem >= 0 && H5Tset_size(mem, size + 1) >= 0 &&
      H5Aread(a, mem, kind) >= 0)
    kind[size] = '\0';
  else
    kind[0] = '\0';
  if (mem >= 0) H5Tclose(mem);
  if (t >= 0) H5Tclose(t);
  if (a >= 0) H5Aclose(a);
}

/* The rows of a run file's series ds at path that its last whole flush, /flushed_rows = w
 * states, left, by the series' row kind (format_version 3 on: its attribute row_kind;
 * older files: by path): w of a row per state, w - 1 of a row per step, w + 1 of
 * /contacts/offset, /contacts/offset[w] contact rows and /flushed_events events
 * (scripts/lcpsim_load.py, _run_cut); -1: every row (a dataset of another kind). */
static long long run_rows_kept(const Walk *w, hid_t ds, const char *path) {
  char kind[32] = "";
  if (w->row_kinds) {
    row_kind_of(ds, kind, sizeof kind);
  } else {
    /* files of format_version 2 and before: the series as they were */
    static const char *state[] = {"/time", "/q", "/v", "/step", "/tethers/length", "/joints/error",
                                  "/joints/velocity_error"};
    static const char *step[] = {"/tethers/impulse", "/tethers/taut", "/joints/impulse"};
    if (!strcmp(path, "/contacts/offset")) snprintf(kind, sizeof kind, "state_offset");
    else if (!strncmp(path, "/contacts/", 10)) snprintf(kind, sizeof kind, "contact");
    else if (!strncmp(path, "/energy/", 8)) snprintf(kind, sizeof kind, "state");
    else if (!strncmp(path, "/solver/", 8)) snprintf(kind, sizeof kind, "step");
    for (size_t i = 0; i < sizeof state / sizeof *state; ++i)
      if (!strcmp(path, state[i])) snprintf(kind, sizeof kind, "state");
    for (size_t i = 0; i < sizeof step / sizeof *step; ++i)
      if (!strcmp(path, step[i])) snprintf(kind, sizeof kind, "step");
  }
  if (!strcmp(kind, "state")) return w->rows;
  if (!strcmp(kind, "step")) return w->rows - 1;
  if (!strcmp(kind, "state_offset")) return w->rows + 1;
  if (!strcmp(kind, "contact")) return w->events;
  if (!strcmp(kind, "event")) return w->run_events;
  return -1;
}

/* The rows of the dataset at path (its first dimension unlimited) that w takes: those of
 * the last flush that reached the file whole. Rows past it are of a flush the kill cut
 * short: they read as 0, or not at all ("addr overflow"; docs/output-format.md, "Killed
 * runs"). */
static hsize_t rows_kept(const Walk *w, hid_t ds, const char *path, hsize_t rows) {
  long long lim = w->rows;
  if (w->cut == 3) lim = run_rows_kept(w, ds, path);
  if (w->cut == 2 && !strncmp(path, "/events/", 8)) lim = w->events;
  else if (w->cut == 1 && !strncmp(path, "/energy/", 8)) lim = w->rows ? w->rows + 1 : 0;
  else if (w->cut == 1 && !strncmp(path, "/trajectory/", 12)) return rows; /* linked whole */
  return lim >= 0 && rows > (hsize_t)lim ? (hsize_t)lim : rows;
}

/* Writes one dataset's JSON member. 0, or -1 with w->error set. */
static int put_dataset(Walk *w, hid_t file, const char *path) {
  hid_t ds = H5Dopen2(file, path, H5P_DEFAULT);
  if (ds < 0) {
    snprintf(w->error, sizeof w->error, "%.400s: cannot open the dataset", path);
    return -1;
  }
  hid_t space = H5Dget_space(ds), type = H5Dget_type(ds);
  int rank = H5Sget_simple_extent_ndims(space);
  hsize_t dims[8] = {0}, maxdims[8] = {0};
  const H5T_class_t cls = H5Tget_class(type);
  int rc = -1;
  hid_t mspace = H5S_ALL;
  if (rank < 0 || rank > 8 || H5Sget_simple_extent_dims(space, dims, maxdims) < 0) {
    snprintf(w->error, sizeof w->error, "%.400s: unreadable shape", path);
    goto done;
  }
  /* A killed writer's rows up to its marks: the rest is not read. */
  if (w->cut && rank >= 1 && maxdims[0] == H5S_UNLIMITED) {
    const hsize_t keep = rows_kept(w, ds, path, dims[0]);
    if (keep < dims[0]) {
      if (!strcmp(path, "/step") || !strcmp(path, "/time")) w->left = (long long)(dims[0] - keep);
      if (w->cut == 3 && !strcmp(path, "/events/time")) w->events_left = (long long)(dims[0] - keep);
      dims[0] = keep;
      const hsize_t start[8] = {0};
      if (H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, dims, NULL) < 0 ||
          (mspace = H5Screate_simple(rank, dims, NULL)) < 0) {
        mspace = H5S_ALL;
        snprintf(w->error, sizeof w->error, "%.400s: cannot select its rows", path);
        goto done;
      }
    }
  }
  size_t n = 1;
  for (int i = 0; i < rank; ++i) n *= (size_t)dims[i];
  if (cls != H5T_STRING && cls != H5T_INTEGER && cls != H5T_FLOAT) {
    rc = 0; /* not a type the format uses: left out */
    goto done;
  }
  /* What HDF5 cannot read safely from a damaged file (lcp/h5check.h). */
  if (cls == H5T_STRING ? !lsim_h5_dataset_complete(ds) : !lsim_h5_numeric_dataset(ds)) {
    snprintf(w->error, sizeof w->error, "%.400s: damaged dataset", path);
    goto done;
  }
  if (cls == H5T_STRING) {
    /* Fixed-length strings only (docs/output-format.md), read with room for a NUL after
       each (a null-padded string that fills its size keeps its last character). */
    const size_t len = H5Tget_size(type) + 1;
    char *buf = H5Tis_variable_str(type) > 0 ? NULL : calloc(n ? n : 1, len);
    hid_t mem = H5Tcopy(H5T_C_S1);
    H5Tset_size(mem, len);
    if (!buf || H5Dread(ds, mem, mspace, mspace == H5S_ALL ? H5S_ALL : space, H5P_DEFAULT, buf) < 0) {
      snprintf(w->error, sizeof w->error, "%.400s: cannot read its strings", path);
      H5Tclose(mem);
      free(buf);
      goto done;
    }
    H5Tclose(mem);
    put_element(w->out, path, rank, dims);
    fputs(",\"strings\":[", w->out);
    for (size_t i = 0; i < n; ++i) {
      if (i) fputc(',', w->out);
      put_json_string(w->out, buf + i * len, len);
    }
    fputs("]}</script>", w->out);
    free(buf);
  } else {
    double *buf = malloc((n ? n : 1) * sizeof *buf);
    if (!buf || (n && H5Dread(ds, H5T_NATIVE_DOUBLE, mspace, mspace == H5S_ALL ? H5S_ALL : space,
                              H5P_DEFAULT, buf) < 0)) {
      snprintf(w->error, sizeof w->error, "%.400s: cannot read its numbers", path);
      free(buf);
      goto done;
    }
    /* Pieces of at most piece_bytes() bytes (a multiple of 24: whole base64 quads of
       whole numbers), at least one (an empty dataset has one, empty). */
    const size_t bytes = n * sizeof *buf, piece = piece_bytes();
    size_t at = 0;
    do {
      const size_t len = bytes - at < piece ? bytes - at : piece;
      put_element(w->out, path, rank, dims);
      fprintf(w->out, ",\"offset\":%zu,\"f64\":\"", at);
      put_base64(w->out, (const unsigned char *)buf + at, len);
      fputs("\"}</script>", w->out);
      at += len;
    } while (at < bytes);
    free(buf);
  }
  w->count++;
  rc = 0;
done:
  if (mspace != H5S_ALL) H5Sclose(mspace);
  H5Tclose(type);
  H5Sclose(space);
  H5Dclose(ds);
  return rc;
}

static herr_t visit(hid_t obj, const char *name, const H5O_info_t *info, void *data) {
  Walk *w = data;
  if (info->type != H5O_TYPE_DATASET) return 0;
  if (!strncmp(name, "lcp/", 4)) return 0; /* dumped LCPs: large, not drawn */
  char path[1024];
  snprintf(path, sizeof path, "/%s", name);
  if (w->stale[0] && !strncmp(path, w->stale, strlen(w->stale))) return 0;
  return put_dataset(w, obj, path) ? -1 : 0;
}

/* Element row of the 1-D dataset at name (row -1: a scalar's value) into *v. 0 or -1. */
static int read_element(hid_t file, const char *name, long long row, long long *v) {
  hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
  hid_t space = d >= 0 ? H5Dget_space(d) : -1, mem = H5Screate_simple(1, (hsize_t[]){1}, NULL);
  hsize_t n = 0;
  int ok = space >= 0 && mem >= 0;
  if (ok && row >= 0)
    ok = H5Sget_simple_extent_ndims(space) == 1 && H5Sget_simple_extent_dims(space, &n, NULL) == 1 &&
         n > (hsize_t)row &&
         H5Sselect_hyperslab(space, H5S_SELECT_SET, (hsize_t[]){(hsize_t)row}, NULL,
                             (hsize_t[]){1}, NULL) >= 0;
  else if (ok)
    ok = H5Sget_simple_extent_ndims(space) == 0;
  ok = ok && H5Dread(d, H5T_NATIVE_LLONG, row >= 0 ? mem : H5S_ALL, row >= 0 ? space : H5S_ALL,
                     H5P_DEFAULT, v) >= 0;
  if (mem >= 0) H5Sclose(mem);
  if (space >= 0) H5Sclose(space);
  if (d >= 0) H5Dclose(d);
  return ok ? 0 : -1;
}

/* A killed time-stepping run's file (no /file_kind): its mark, /flushed_rows = w >= 1
 * states, and the contact rows of those states, /contacts/offset[w] (w->cut 3); as the
 * loaders do, w < 1 (a run killed before its first flush) is taken as it is. */
static void run_marks(hid_t file, Walk *w) {
  long long v = -1, k = -1;
  hid_t d = H5Dopen2(file, "flushed_rows", H5P_DEFAULT);
  if (d < 0 || H5Dread(d, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v) < 0) v = -1;
  if (d >= 0) H5Dclose(d);
  if (v < 1 || H5Lexists(file, "contacts", H5P_DEFAULT) <= 0 ||
      H5Lexists(file, "contacts/offset", H5P_DEFAULT) <= 0)
    return;
  /* /contacts/offset[w]: the one element read (a row of the last whole flush) */
  d = H5Dopen2(file, "contacts/offset", H5P_DEFAULT);
  hid_t space = d >= 0 ? H5Dget_space(d) : -1, mem = H5Screate_simple(1, (hsize_t[]){1}, NULL);
  hsize_t n = 0;
  const int ok = space >= 0 && mem >= 0 && H5Sget_simple_extent_ndims(space) == 1 &&
                 H5Sget_simple_extent_dims(space, &n, NULL) == 1 && n > (hsize_t)v &&
                 H5Sselect_hyperslab(space, H5S_SELECT_SET, (hsize_t[]){(hsize_t)v}, NULL,
                                     (hsize_t[]){1}, NULL) >= 0 &&
                 H5Dread(d, H5T_NATIVE_LLONG, mem, space, H5P_DEFAULT, &k) >= 0;
  if (!ok) k = -1;
  if (mem >= 0) H5Sclose(mem);
  if (space >= 0) H5Sclose(space);
  if (d >= 0) H5Dclose(d);
  if (k < 0) return;
  w->cut = 3, w->rows = v, w->events = k;
  /* an event-driven run's events: up to /flushed_events (files before it: every row) */
  w->run_events = -1;
  if (H5Lexists(file, "flushed_events", H5P_DEFAULT) > 0 &&
      (read_element(file, "flushed_events", -1, &w->run_events) < 0 || w->run_events < 0))
    w->run_events = -1;
  long long version = 0;
  w->row_kinds = read_element(file, "format_version", -1, &version) == 0 && version >= 3;
  /* The step of the last whole row (/step[w - 1] with a record stride, else w - 1) and
     the /resume slot that holds it: the other slot is left out. */
  long long last = v - 1;
  if (H5Lexists(file, "step", H5P_DEFAULT) > 0 && read_element(file, "step", v - 1, &last) < 0)
    last = -1;
  int keep = -1;
  for (int s = 0; s < 2 && last >= 0; ++s) {
    char name[32];
    long long step = -1;
    snprintf(name, sizeof name, "resume/slot%d/step", s);
    if (H5Lexists(file, "resume", H5P_DEFAULT) > 0 && H5Lexists(file, name, H5P_DEFAULT) > 0 &&
        read_element(file, name, -1, &step) == 0 && step == last)
      keep = s;
  }
  if (keep >= 0) snprintf(w->stale, sizeof w->stale, "/resume/slot%d/", 1 - keep);
}

/* The marks of a killed writer's file (no /summary): a comparison's, a hybrid-model run's
 * or a time-stepping run's (run_marks); w->cut 0 otherwise. */
static void flushed_marks(hid_t file, Walk *w) {
  char kind[16] = "";
  if (H5Lexists(file, "summary", H5P_DEFAULT) > 0 || H5Lexists(file, "flushed_rows", H5P_DEFAULT) <= 0)
    return;
  if (H5Lexists(file, "file_kind", H5P_DEFAULT) <= 0) {
    if (H5Lexists(file, "time", H5P_DEFAULT) > 0) run_marks(file, w);
    return;
  }
  hid_t d = H5Dopen2(file, "file_kind", H5P_DEFAULT), t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, sizeof kind - 1);
  const int ok = d >= 0 && H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, kind) >= 0;
  H5Tclose(t);
  if (d >= 0) H5Dclose(d);
  if (!ok) return;
  const int cut = !strcmp(kind, "compare") ? 1 : !strcmp(kind, "hybrid") ? 2 : 0;
  long long v[2] = {-1, -1};
  const char *names[2] = {"flushed_rows", cut == 2 ? "flushed_events" : NULL};
  for (int k = 0; cut && k < 2 && names[k]; ++k) {
    d = H5Lexists(file, names[k], H5P_DEFAULT) > 0 ? H5Dopen2(file, names[k], H5P_DEFAULT) : -1;
    if (d < 0 || H5Dread(d, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v[k]) < 0) v[k] = -1;
    if (d >= 0) H5Dclose(d);
  }
  if (!cut || v[0] < 0 || (cut == 2 && v[1] < 0)) return;
  w->cut = cut, w->rows = v[0], w->events = v[1];
}

/* Reads of a live file (a running lcpsim writes it) that meet its flushes: at most this
   many in all. */
enum { VIEW_TRIES = 12 };

/* Waits before try k + 1 of a live file's read: 10 ms, doubling, at most 160 ms. */
static void view_pause(int k) {
  const long ms = k < 5 ? 10L << (k - 1) : 160L;
  struct timespec t = {0, ms * 1000000L};
  nanosleep(&t, NULL);
}

/* Opens path read-only; a live file's failed open is tried again while *tries (the reads
   so far, this one counted) is under VIEW_TRIES. The handle, or < 0. */
static hid_t view_open(const char *path, int live, int *tries) {
  hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  while (file < 0 && live && *tries < VIEW_TRIES) {
    view_pause((*tries)++);
    file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  }
  return file;
}

/* Default page path: the file's base name with .html, in the current folder; returns
 * snprintf's count. */
static int default_page(const char *file, char *buf, size_t len) {
  const char *base = strrchr(file, '/');
  base = base ? base + 1 : file;
  size_t n = strlen(base);
  if (n > 3 && !strcmp(base + n - 3, ".h5")) n -= 3;
  return snprintf(buf, len, "%.*s.html", (int)n, base);
}

int lsim_cli_view(int argc, char **argv) {
  const char *path = NULL, *out_path = NULL;
  const char *seen[64]; /* options met (lsim_cli_once) */
  int nseen = 0;
  for (int i = 0; i < argc; ++i) {
    const char *a = argv[i];
    if (a[0] == '-' && a[1] && lsim_cli_once("lcpsim view", a, seen, &nseen, 64)) return 2;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      view_usage(stdout);
      return 0;
    } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
      if (i + 1 >= argc) {
        fprintf(stderr, "lcpsim view: %s needs a value\n", a);
        return 2;
      }
      out_path = argv[++i];
    } else if (lsim_cli_positional("lcpsim view", "lcpsim view --help", "file", a, &path)) {
      return 2;
    }
  }
  if (!path) {
    fprintf(stderr, "lcpsim view: no FILE.h5 given (see lcpsim view --help)\n");
    return 2;
  }

  /* The file must be HDF5; what it holds is the page's to judge. A missing file or a
     directory says so (it was "cannot open the file", "not an HDF5 file"). */
  char why[256];
  if (lsim_input_probe(path, why, sizeof why)) {
    fprintf(stderr, "lcpsim view: %s: %s%s\n", path, why,
            strncmp(why, "is a", 4) ? "" : " (a run or compare file of lcpsim is a file)");
    return 2;
  }
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  /* A run file cut before its first complete flush: refused before HDF5 reads it. */
  if (lsim_h5_head(path) == LSIM_H5_HEAD_CUT) {
    fprintf(stderr, "lcpsim view: %s: %s\n", path, LSIM_H5_CUT_MESSAGE);
    return 2;
  }
  lsim_cli_reading_live("lcpsim view", path);
  if (H5Fis_hdf5(path) <= 0) {
    fprintf(stderr, "lcpsim view: %s: not an HDF5 file (a run or compare file of lcpsim is)\n", path);
    return 2;
  }
  /* A live file (a running lcpsim writes it): a read that meets one of its flushes is torn
     (an index half written: "cannot read its numbers"); it is read again, up to VIEW_TRIES
     times, 10 ms apart and doubling to 160 ms (a fast run flushes some 10^4 times a second:
     3 of 10 single reads of bouncing_ball.json read whole). */
  const int live = lsim_outfile_being_written(path);
  int tries = 1;
  hid_t file = view_open(path, live, &tries);
  if (file < 0) {
    fprintf(stderr, "lcpsim view: %s: cannot open the HDF5 file (damaged or cut short?)\n",
            path);
    return 2;
  }
  /* An HDF5 file lcpsim did not write (or a run killed before its header's flush reached
     it: the empty root alone) is refused here, as the loaders refuse it; it made a page
     that only said so in the browser, and exit 0. */
  if (H5Lexists(file, "format_version", H5P_DEFAULT) <= 0 &&
      H5Lexists(file, "lcpsim_version", H5P_DEFAULT) <= 0) {
    H5G_info_t root;
    const int empty = H5Gget_info(file, &root) >= 0 && root.nlinks == 0;
    fprintf(stderr, "lcpsim view: %s: not an lcpsim file (no /format_version and /lcpsim_version)%s\n",
            path, empty ? ": it holds nothing (an HDF5 file with an empty root group: a run killed "
                          "before its first flush, the header's, reached the file)" : "");
    H5Fclose(file);
    return 2;
  }
  char page[LSIM_OUTFILE_PATH_MAX];
  const int pagelen = out_path ? snprintf(page, sizeof page, "%s", out_path)
                               : default_page(path, page, sizeof page);
  if (pagelen < 0 || (size_t)pagelen >= sizeof page) {
    /* Never cut short: a shorter name would be another file. */
    fprintf(stderr, "lcpsim view: %.200s...: output path too long (at most %zu characters)\n",
            page, sizeof page - 1);
    H5Fclose(file);
    return 2;
  }
  /* Under a partial name of its own; only a regular file is replaced (scene/outfile.h). */
  LsimOutFile of;
  char oerr[LSIM_OUTFILE_MSG_MAX];
  if (lsim_outfile_same(page, path)) {
    fprintf(stderr, "lcpsim view: %s: the page would replace the file it shows: refused\n", page);
    H5Fclose(file);
    return 2;
  }
  if (lsim_outfile_begin(&of, page, oerr, sizeof oerr)) {
    fprintf(stderr, "lcpsim view: %s\n", oerr);
    H5Fclose(file);
    return 2;
  }
  const char *partial = of.partial;
  FILE *out = fopen(partial, "wb");
  if (!out) {
    fprintf(stderr, "lcpsim view: %s: cannot write the page (%s)\n", page, strerror(errno));
    lsim_outfile_discard(&of);
    H5Fclose(file);
    return 2;
  }

  /* Head of the page, the data, its tail; written under PAGE.<pid>.partial, then renamed. */
  Walk w;
  herr_t rc;
  for (;;) {
    fputs(lsim_view_page_head, out);
    const char *base = strrchr(path, '/');
    fputs("{\"file\":", out);
    put_json_string(out, base ? base + 1 : path, strlen(base ? base + 1 : path));
    fputs("}</script>", out);
    w = (Walk){out, 0, "", 0, 0, 0, 0, "", 0, -1, 0};
    flushed_marks(file, &w);
    /* (the objects' basic information only: all of it reads every object header's
       messages, which a kill inside a flush can leave failing their checksum) */
    rc = H5Ovisit2(file, H5_INDEX_NAME, H5_ITER_NATIVE, visit, &w, H5O_INFO_BASIC);
    if (rc >= 0 || !live || tries >= VIEW_TRIES) break;
    /* A torn read of a live file: the page begun again, the file opened again (HDF5
       keeps what it read in its caches until it is closed). */
    H5Fclose(file);
    file = -1;
    view_pause(tries++);
    if (!(out = freopen(partial, "wb", out))) break;
    if ((file = view_open(path, live, &tries)) < 0) break;
  }
  if (!out || file < 0) {
    fprintf(stderr, "lcpsim view: %s: %s\n", path,
            !out ? "cannot write the page again after a torn read" : "cannot open the HDF5 file again");
    if (out) fclose(out);
    if (file >= 0) H5Fclose(file);
    lsim_outfile_discard(&of);
    return 2;
  }
  /* The end mark, its element closed by the tail's </script>. */
  fputs("\n<script type=\"application/json\" class=\"lcpsim-end\">{}", out);
  fputs(lsim_view_page_tail, out);
  /* A write that failed (a full disk, a file size limit) is named with its reason, at the
     page: fflush writes what is left again and sets errno, taken before anything else can
     (the message had named the input, "writing the page failed"). */
  int werr = fflush(out) || ferror(out) ? (errno ? errno : EIO) : 0;
  H5Fclose(file);
  if (fclose(out) && !werr) werr = errno ? errno : EIO;
  if (rc < 0 || werr) {
    if (werr)
      fprintf(stderr, "lcpsim view: %s: cannot write the page (%s): nothing written\n", page,
              strerror(werr));
    else if (live)
      fprintf(stderr, "lcpsim view: %s: %s (a running lcpsim writes it: %d reads met its flushes; "
              "read again, or stop the run first)\n", path,
              w.error[0] ? w.error : "reading the file failed", tries);
    else
      fprintf(stderr, "lcpsim view: %s: %s\n", path, w.error[0] ? w.error : "writing the page failed");
    lsim_outfile_discard(&of);
    return 2;
  }
  if (lsim_outfile_commit(&of, oerr, sizeof oerr)) {
    fprintf(stderr, "lcpsim view: %s\n", oerr);
    return 2;
  }
  if (w.left > 0 || w.events_left > 0) {
    char events[96] = "";
    if (w.events_left > 0)
      snprintf(events, sizeof events, "%s%lld rows of /events/time (/flushed_events %lld)",
               w.left > 0 ? " and " : "", w.events_left, w.run_events);
    char rows[64] = "";
    if (w.left > 0) snprintf(rows, sizeof rows, "%lld rows of %s", w.left, w.cut == 1 ? "/step" : "/time");
    fprintf(stderr, "lcpsim view: note: %s: read up to its last whole flush (/flushed_rows %lld): "
            "%s%s past it, of a flush not whole (still being written, or cut short by a kill), "
            "left out\n", path, w.rows, rows, events);
  }
  printf("lcpsim view: %s (%d datasets) -> %s\n", path, w.count, page);
  return 0;
}
