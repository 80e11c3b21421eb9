/* record.c: the HDF5 file of a hybrid model run (record.h). The header (scene, options,
 * model) is written when the file is opened; the samples and transitions go into chunked
 * datasets whose first dimension is unlimited, appended from the run's trace (hybrid/run.h)
 * as it grows: every LSIM_HREC_FLUSH_ROWS rows or LSIM_HREC_FLUSH_SECONDS of wall time,
 * each time ending with H5Fflush, so a killed run's partial file holds the run up to the
 * last flush. /summary is written at the end only: a file without it is unfinished. */
#include "hybrid/record.h"

#include <hdf5.h>
#include <hdf5_hl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "scene/outfile.h"
#include "scene/record.h"

#define LSIM_HYBRID_FORMAT_VERSION 1
#define LSIM_HREC_FLUSH_ROWS 4096     /* samples or transitions appended before a flush */
#define LSIM_HREC_FLUSH_SECONDS 1.0   /* wall time between flushes at most (s) */
#define LSIM_HREC_CHUNK_ROWS 256      /* rows per chunk */
#define LSIM_HREC_TRIM_BYTES (512u << 10) /* metadata cache size that trim_cache trims */

typedef struct Writer {
  hid_t file;
  int failed;
  char what[200];
} Writer;

/* A dataset of rank 0 (scalar), 1 or 2 at name (intermediate groups created). */
static void put(Writer *w, const char *name, hid_t mtype, hid_t ftype, int rank,
                hsize_t d0, hsize_t d1, const void *data, const char *unit) {
  if (w->failed) return;
  const hsize_t dims[2] = {d0, d1};
  hid_t space = rank == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(rank, dims, NULL);
  hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  if (lcpl >= 0) H5Pset_create_intermediate_group(lcpl, 1);
  hid_t d = space >= 0 && lcpl >= 0
                ? H5Dcreate2(w->file, name, ftype, space, lcpl, H5P_DEFAULT, H5P_DEFAULT)
                : -1;
  const hsize_t n = rank == 0 ? 1 : rank == 1 ? d0 : d0 * d1;
  int ok = d >= 0 && (n == 0 || H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0);
  if (ok && unit) ok = H5LTset_attribute_string(d, ".", "unit", unit) >= 0;
  if (d >= 0) H5Dclose(d);
  if (lcpl >= 0) H5Pclose(lcpl);
  if (space >= 0) H5Sclose(space);
  if (!ok) {
    w->failed = 1;
    snprintf(w->what, sizeof w->what, "writing %s failed", name);
  }
}

static void put_double(Writer *w, const char *name, double v, const char *unit) {
  put(w, name, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 0, 0, 0, &v, unit);
}

static void put_int(Writer *w, const char *name, long v) {
  const int x = (int)v;
  put(w, name, H5T_NATIVE_INT, H5T_STD_I32LE, 0, 0, 0, &x, NULL);
}

static void put_doubles(Writer *w, const char *name, long rows, int cols, const double *v,
                        const char *unit) {
  put(w, name, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, cols < 0 ? 1 : 2, (hsize_t)rows,
      (hsize_t)(cols < 0 ? 0 : cols), v, unit);
}

static void put_ints(Writer *w, const char *name, long rows, const int *v) {
  put(w, name, H5T_NATIVE_INT, H5T_STD_I32LE, 1, (hsize_t)rows, 0, v, NULL);
}

/* n fixed-length strings (n < 0: one scalar string s[0]). */
static void put_strings(Writer *w, const char *name, const char *const *s, int n) {
  if (w->failed) return;
  const int count = n < 0 ? 1 : n;
  size_t len = 1;
  for (int i = 0; i < count; ++i)
    if (strlen(s[i]) + 1 > len) len = strlen(s[i]) + 1;
  char *buf = calloc((size_t)(count > 0 ? count : 1), len);
  hid_t t = H5Tcopy(H5T_C_S1);
  if (!buf || t < 0 || H5Tset_size(t, len) < 0 || H5Tset_strpad(t, H5T_STR_NULLTERM) < 0) {
    w->failed = 1;
    snprintf(w->what, sizeof w->what, "writing %s failed", name);
  } else {
    for (int i = 0; i < count; ++i) memcpy(buf + (size_t)i * len, s[i], strlen(s[i]));
    put(w, name, t, t, n < 0 ? 0 : 1, (hsize_t)count, 0, buf, NULL);
  }
  if (t >= 0) H5Tclose(t);
  free(buf);
}

static void put_string(Writer *w, const char *name, const char *s) {
  put_strings(w, name, &s, -1);
}

/* The model, less what the run decides (initial_state, initial_chart: flush_trace). */
static void write_model(Writer *w, const LsimHybridModel *m, const double *p, const double *x0) {
  put_string(w, "/model/name", m->name);
  put_string(w, "/model/description", m->description);
  put_strings(w, "/model/state_names", m->state_names, m->nstates);
  put_strings(w, "/model/parameter_names", m->param_names, m->nparams);
  put_doubles(w, "/model/parameters", m->nparams, -1, p, NULL);
  put_doubles(w, "/model/initial_state_given", m->nstates, -1, x0, NULL);
  put_strings(w, "/model/output_names", m->output_names, m->noutputs);
  if (m->state_units) put_strings(w, "/model/state_units", m->state_units, m->nstates);
  if (m->param_units) put_strings(w, "/model/parameter_units", m->param_units, m->nparams);
  if (m->output_units && m->noutputs > 0) put_strings(w, "/model/output_units", m->output_units, m->noutputs);
  /* Charts and their boundaries, flat: chart c's are first_boundary[c] .. + n - 1. */
  const char **names = malloc((size_t)m->ncharts * sizeof *names);
  int *first = malloc((size_t)m->ncharts * 2 * sizeof *first);
  int nb = 0;
  for (int c = 0; c < m->ncharts; ++c) nb += m->charts[c].nboundaries;
  const char **bnames = malloc((size_t)(nb > 0 ? nb : 1) * sizeof *bnames);
  int *bdir = malloc((size_t)(nb > 0 ? nb : 1) * sizeof *bdir);
  if (!names || !first || !bnames || !bdir) {
    w->failed = 1;
    snprintf(w->what, sizeof w->what, "out of memory");
  } else {
    int k = 0;
    for (int c = 0; c < m->ncharts; ++c) {
      const LsimHybridChart *ch = &m->charts[c];
      names[c] = ch->name;
      first[c] = k;
      first[m->ncharts + c] = ch->nboundaries;
      for (int b = 0; b < ch->nboundaries; ++b, ++k) {
        bnames[k] = ch->boundary_names[b];
        bdir[k] = ch->direction ? ch->direction[b] : -1;
      }
    }
    put_strings(w, "/model/chart_names", names, m->ncharts);
    put_ints(w, "/model/chart_first_boundary", m->ncharts, first);
    put_ints(w, "/model/chart_nboundaries", m->ncharts, first + m->ncharts);
    put_strings(w, "/model/boundary_names", bnames, nb);
    put_ints(w, "/model/boundary_direction", nb, bdir);
  }
  free(names);
  free(first);
  free(bnames);
  free(bdir);
}

static void write_options(Writer *w, const LsimHybridOptions *o) {
  put_double(w, "/parameters/final_time", o->final_time, "s");
  put_double(w, "/parameters/rtol", o->rtol, NULL);
  put_double(w, "/parameters/atol", o->atol, NULL);
  put_double(w, "/parameters/max_step", o->max_step, "s");
  put_double(w, "/parameters/min_step", o->min_step, "s");
  put_double(w, "/parameters/stop_precision", o->stop_precision, NULL);
  put_int(w, "/parameters/max_stop_iterations", o->max_stop_iterations);
  put_int(w, "/parameters/max_chart_count", o->max_chart_count);
  put_double(w, "/parameters/record_period", o->record_period, "s");
  put_string(w, "/parameters/method", o->method == LSIM_ODE_BDF ? "bdf" : "adams");
  put_string(w, "/parameters/integrator", "SUNDIALS CVODE");
}

/* /summary, whole in the file before the root links it: the group is made unlinked, filled
 * and flushed, then linked (the root's symbol table node, one write; its name in the root's
 * name heap, in place: lsim_record_create_file). Written in the close's flush instead, the
 * link reached the file before the group's object header and link heap (HDF5 writes in
 * address order): a kill between left every reader failing on /summary ("wrong fractal heap
 * header signature"; 7 of 28 points of the close, tests/e2e/killed_flush.sh). */
static void write_summary(Writer *w, const LsimHybridTrace *tr, double wall) {
  static const char *const ends[] = {"completed", "stopped", "interrupted"};
  if (w->failed) return;
  Writer g = {H5Gcreate_anon(w->file, H5P_DEFAULT, H5P_DEFAULT), 0, ""};
  if (g.file < 0) {
    w->failed = 1;
    snprintf(w->what, sizeof w->what, "writing /summary failed");
    return;
  }
  put_int(&g, "samples", tr->nsamples);
  put_int(&g, "transitions", tr->nevents);
  put_double(&g, "end_time", tr->nsamples ? tr->time[tr->nsamples - 1 - tr->sample_base] : 0.0, "s");
  put_int(&g, "integration_steps", tr->stats.steps);
  put_int(&g, "flow_evaluations", tr->stats.rhs_evals);
  put_int(&g, "boundary_evaluations", tr->stats.root_evals);
  put_int(&g, "max_stop_iterations_used", tr->stats.max_event_iterations);
  put_double(&g, "max_boundary_value", tr->stats.max_event_g, NULL);
  put_double(&g, "wall_time_total", wall, "s");
  put_string(&g, "run_end", ends[tr->end]);
  put_string(&g, "run_end_reason", tr->end_reason);
  if (!g.failed && (H5Fflush(w->file, H5F_SCOPE_LOCAL) < 0 ||
                    H5Olink(g.file, w->file, "summary", H5P_DEFAULT, H5P_DEFAULT) < 0))
    snprintf(g.what, sizeof g.what, "writing /summary failed"), g.failed = 1;
  H5Gclose(g.file);
  if (g.failed) {
    w->failed = 1;
    snprintf(w->what, sizeof w->what, "/summary: %.180s", g.what);
  }
}

/* The appended tables: samples first (their rows counted by nsamples), then transitions. */
enum { T_TIME, T_STATE, T_CHART, T_OUTPUTS,
       T_EV_TIME, T_EV_FROM, T_EV_TO, T_EV_BOUNDARY, T_EV_ITER, T_EV_G, T_EV_BEFORE, T_EV_AFTER,
       T_COUNT };
#define T_FIRST_EVENT T_EV_TIME

typedef struct Table {
  hid_t dset;         /* < 0 until made */
  hid_t mtype;        /* native memory type (predefined, not owned) */
  int cols;           /* -1: a 1-D dataset */
  const char *name;
} Table;

struct LsimHybridRecord {
  Writer w;
  LsimOutFile out;
  char path[LSIM_OUTFILE_PATH_MAX]; /* the final name, for messages */
  Table t[T_COUNT];
  long samples_written, events_written;
  int model_done;             /* /model/initial_state and initial_chart written */
  int release;                /* the observer lets the trace drop the rows written */
  size_t cache_trimmed;       /* the metadata cache's size after the last trim_cache */
  struct timespec flushed;
  /* /model/initial_state and initial_chart (made with the header, NaN and -1 until the
     first flush), /flushed_rows and /flushed_events (mark_flushed); < 0 until made */
  hid_t initial_state, initial_chart, mark_rows, mark_events;
  char space_low[LSIM_OUTFILE_PATH_MAX + 200]; /* room_check's reason, "" while room */
  /* The run's end, for the most the rest of it can write (room_check): final_time, the
     record period (0: a sample every integration step, rows not known ahead) and the
     transitions at most (0: no bound). */
  double final_time, record_period;
  long max_events;
};

/* An extendable dataset [0] (cols < 0) or [0, cols], chunked by rows. */
static void table_make(LsimHybridRecord *h, int k, const char *name, hid_t mtype, hid_t ftype,
                       int cols, const char *unit) {
  Table *t = &h->t[k];
  t->name = name, t->mtype = mtype, t->cols = cols;
  if (h->w.failed) return;
  const int rank = cols < 0 ? 1 : 2;
  /* Zero-width rows (a model without outputs) still need a positive chunk size. */
  hsize_t dims[2] = {0, (hsize_t)(cols > 0 ? cols : 0)};
  hsize_t maxd[2] = {H5S_UNLIMITED, cols > 0 ? (hsize_t)cols : H5S_UNLIMITED};
  hsize_t chunk[2] = {LSIM_HREC_CHUNK_ROWS, cols > 0 ? (hsize_t)cols : 1};
  hid_t space = H5Screate_simple(rank, dims, maxd);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  int ok = space >= 0 && dcpl >= 0 && lcpl >= 0 && H5Pset_chunk(dcpl, rank, chunk) >= 0 &&
           H5Pset_create_intermediate_group(lcpl, 1) >= 0;
  t->dset = ok ? H5Dcreate2(h->w.file, name, ftype, space, lcpl, dcpl, H5P_DEFAULT) : -1;
  if (t->dset < 0 || (unit && H5LTset_attribute_string(t->dset, ".", "unit", unit) < 0)) {
    h->w.failed = 1;
    snprintf(h->w.what, sizeof h->w.what, "writing %s failed", name);
  }
  if (lcpl >= 0) H5Pclose(lcpl);
  if (dcpl >= 0) H5Pclose(dcpl);
  if (space >= 0) H5Sclose(space);
}

/* Appends rows [from, to) of data (rows of max(cols, 1) elements) to table k. */
/* Appends rows from .. to - 1 of a table whose rows from base on are in data. */
static void table_append(LsimHybridRecord *h, int k, const void *data, long base, long from,
                         long to) {
  Table *t = &h->t[k];
  if (h->w.failed || to <= from) return;
  const int rank = t->cols < 0 ? 1 : 2;
  const size_t width = t->cols < 0 ? 1 : (size_t)t->cols;
  hsize_t start[2] = {(hsize_t)from, 0};
  hsize_t count[2] = {(hsize_t)(to - from), width};
  hsize_t total[2] = {(hsize_t)to, width};
  int ok = H5Dset_extent(t->dset, total) >= 0;
  if (ok && width > 0) {
    const unsigned char *p = (const unsigned char *)data + (size_t)(from - base) * width * H5Tget_size(t->mtype);
    hid_t fspace = H5Dget_space(t->dset);
    hid_t mspace = H5Screate_simple(rank, count, NULL);
    ok = fspace >= 0 && mspace >= 0 &&
         H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL) >= 0 &&
         H5Dwrite(t->dset, t->mtype, mspace, fspace, H5P_DEFAULT, p) >= 0;
    if (mspace >= 0) H5Sclose(mspace);
    if (fspace >= 0) H5Sclose(fspace);
  }
  if (!ok) {
    h->w.failed = 1;
    snprintf(h->w.what, sizeof h->w.what, "writing %s failed", t->name);
  }
}

/* Keeps the metadata cache bounded, as scene/record.c's trim_cache does for run files:
 * metadata reaches the file only in a flush (lsim_record_fapl), so the chunk indexes of
 * the growing tables stayed in memory for the whole run (bouncing_mass.json: 5.5 bytes a
 * sample, 140 MB resident after 2 x 10^7 samples). Right after a flush, nothing dirty, the
 * tables are closed and opened again: with evict-on-close (lsim_hybrid_record_open)
 * closing drops their cached metadata without writing anything. Done when the cache has
 * doubled since the last time (from 512 kB on). */
static void trim_cache(LsimHybridRecord *h) {
  size_t max_size, min_clean, size;
  int entries;
  if (h->w.failed || H5Fget_mdc_size(h->w.file, &max_size, &min_clean, &size, &entries) < 0 ||
      size <= LSIM_HREC_TRIM_BYTES || size <= 2 * h->cache_trimmed)
    return;
  for (int k = 0; k < T_COUNT; ++k) {
    Table *t = &h->t[k];
    if (t->dset < 0) continue;
    H5Dclose(t->dset);
    t->dset = H5Dopen2(h->w.file, t->name, H5P_DEFAULT);
    if (t->dset < 0) {
      h->w.failed = 1;
      snprintf(h->w.what, sizeof h->w.what, "reopening %s failed", t->name);
      return;
    }
  }
  if (H5Fget_mdc_size(h->w.file, &max_size, &min_clean, &size, &entries) >= 0)
    h->cache_trimmed = size;
}

/* A scalar or [n] dataset made with the header and written in place later (its value
 * until then: fill), so that no flush after the header's links a new object: HDF5 writes
 * a flush's metadata in address order, and a link could reach the file before the
 * object it names. */
static hid_t put_later(Writer *w, const char *name, hid_t mtype, hid_t ftype, int rank,
                       hsize_t n, const void *init) {
  if (w->failed) return -1;
  hid_t space = rank ? H5Screate_simple(1, &n, NULL) : H5Screate(H5S_SCALAR);
  hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  if (lcpl >= 0) H5Pset_create_intermediate_group(lcpl, 1);
  hid_t d = space >= 0 && lcpl >= 0
                ? H5Dcreate2(w->file, name, ftype, space, lcpl, H5P_DEFAULT, H5P_DEFAULT)
                : -1;
  const int ok = d >= 0 && ((rank && !n) || H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, init) >= 0);
  if (lcpl >= 0) H5Pclose(lcpl);
  if (space >= 0) H5Sclose(space);
  if (!ok) {
    if (d >= 0) H5Dclose(d);
    w->failed = 1;
    snprintf(w->what, sizeof w->what, "writing %s failed", name);
    return -1;
  }
  return d;
}

/* Writes the whole of dataset d (from put_later) in place. */
static void put_now(Writer *w, hid_t d, hid_t mtype, const void *data, const char *name) {
  if (w->failed) return;
  if (d < 0 || H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) {
    w->failed = 1;
    snprintf(w->what, sizeof w->what, "writing %s failed", name);
  }
}

/* /flushed_rows and /flushed_events: the rows of /time and of /events/time that the flush
 * just done left in the file, written after its H5Fflush returned and flushed on their
 * own (an 8-byte write in place each), as run files' /flushed_rows (scene/record.c): a
 * kill inside a flush leaves datasets whose extent counts rows not yet in the file (read
 * as 0, or "addr overflow": 6 of 71 points of a flush of bouncing_mass.json's rows,
 * tests/e2e/killed_flush.sh); the readers take the rows up to these. */
static void mark_flushed(LsimHybridRecord *h, long samples, long events) {
  const int64_t v[2] = {samples, events};
  put_now(&h->w, h->mark_rows, H5T_NATIVE_INT64, &v[0], "/flushed_rows");
  put_now(&h->w, h->mark_events, H5T_NATIVE_INT64, &v[1], "/flushed_events");
  if (!h->w.failed && H5Fflush(h->w.file, H5F_SCOPE_LOCAL) < 0) {
    h->w.failed = 1;
    snprintf(h->w.what, sizeof h->w.what, "cannot flush the file");
  }
}

/* The trace's rows not yet in the file, then H5Fflush (the file whole as of now), then the
 * marks of what it holds whole. */
static void flush_trace(LsimHybridRecord *h, const LsimHybridTrace *tr) {
  if (h->w.failed) return;
  H5E_BEGIN_TRY {
    if (!h->model_done && tr->initial_state) {
      put_now(&h->w, h->initial_state, H5T_NATIVE_DOUBLE, tr->initial_state, "/model/initial_state");
      put_now(&h->w, h->initial_chart, H5T_NATIVE_INT, &tr->initial_chart, "/model/initial_chart");
      h->model_done = 1;
    }
    const long s0 = h->samples_written, s1 = tr->nsamples;
    table_append(h, T_TIME, tr->time, tr->sample_base, s0, s1);
    table_append(h, T_STATE, tr->state, tr->sample_base, s0, s1);
    table_append(h, T_CHART, tr->chart, tr->sample_base, s0, s1);
    table_append(h, T_OUTPUTS, tr->outputs, tr->sample_base, s0, s1);
    const long e0 = h->events_written, e1 = tr->nevents;
    table_append(h, T_EV_TIME, tr->ev_time, tr->event_base, e0, e1);
    table_append(h, T_EV_FROM, tr->ev_from, tr->event_base, e0, e1);
    table_append(h, T_EV_TO, tr->ev_to, tr->event_base, e0, e1);
    table_append(h, T_EV_BOUNDARY, tr->ev_boundary, tr->event_base, e0, e1);
    table_append(h, T_EV_ITER, tr->ev_iterations, tr->event_base, e0, e1);
    table_append(h, T_EV_G, tr->ev_g, tr->event_base, e0, e1);
    table_append(h, T_EV_BEFORE, tr->ev_before, tr->event_base, e0, e1);
    table_append(h, T_EV_AFTER, tr->ev_after, tr->event_base, e0, e1);
    if (!h->w.failed && H5Fflush(h->w.file, H5F_SCOPE_LOCAL) < 0) {
      h->w.failed = 1;
      snprintf(h->w.what, sizeof h->w.what, "cannot flush the file");
    }
    if (!h->w.failed) mark_flushed(h, s1, e1);
  }
  H5E_END_TRY;
  if (!h->w.failed) h->samples_written = tr->nsamples, h->events_written = tr->nevents;
  H5E_BEGIN_TRY { trim_cache(h); }
  H5E_END_TRY;
  clock_gettime(CLOCK_MONOTONIC, &h->flushed);
}

/* Closes the tables and the file; 0 when all closed. Quiet: a close that cannot write (a
 * full disk, a file size limit) printed HDF5's error stack, some 250 lines, before the
 * caller's one line naming the file. */
static int close_file(LsimHybridRecord *h) {
  int ok = 1;
  hid_t *later[4] = {&h->initial_state, &h->initial_chart, &h->mark_rows, &h->mark_events};
  H5E_BEGIN_TRY {
    for (int k = 0; k < 4; ++k) {
      if (*later[k] >= 0 && H5Dclose(*later[k]) < 0) ok = 0;
      *later[k] = -1;
    }
    for (int k = 0; k < T_COUNT; ++k) {
      if (h->t[k].dset >= 0 && H5Dclose(h->t[k].dset) < 0) ok = 0;
      h->t[k].dset = -1;
    }
    if (h->w.file >= 0 && H5Fclose(h->w.file) < 0) ok = 0;
  }
  H5E_END_TRY;
  h->w.file = -1;
  return ok ? 0 : -1;
}

int lsim_hybrid_record_open(LsimHybridRecord **out, const char *path, const LsimHybridModel *m,
                            const double *p, const double *x0, const LsimHybridOptions *opt,
                            const char *scene_text, char *err, size_t errlen) {
  *out = NULL;
  LsimHybridRecord *h = calloc(1, sizeof *h);
  if (!h) {
    snprintf(err, errlen, "%s: out of memory", path);
    return -1;
  }
  for (int k = 0; k < T_COUNT; ++k) h->t[k].dset = -1;
  h->initial_state = h->initial_chart = h->mark_rows = h->mark_events = -1;
  h->w.file = -1;
  snprintf(h->path, sizeof h->path, "%s", path);
  h->final_time = opt->final_time, h->record_period = opt->record_period;
  h->max_events = opt->max_chart_count > 0 ? (long)opt->max_chart_count + 1 : 0;
  /* Under a partial name of its own; only a regular file is replaced (scene/outfile.h). */
  if (lsim_outfile_begin(&h->out, path, err, errlen)) {
    free(h);
    return -1;
  }
  /* Metadata written at flushes only (scene/record.h): a killed run's file reads whole. */
  /* (the root's names kept whole by a kill in the close, the chunk indexes by one in a
     flush; evictions for trim_cache) */
  h->w.file = (hid_t)lsim_record_create_file(h->out.partial, 1, 0);
  if (h->w.file < 0) {
    snprintf(err, errlen, "%s: cannot create the file", h->out.partial);
    lsim_outfile_discard(&h->out);
    free(h);
    return -1;
  }
  Writer *w = &h->w;
  const int n = m->nstates;
  H5E_BEGIN_TRY {
    const int version = LSIM_HYBRID_FORMAT_VERSION;
    put(w, "/format_version", H5T_NATIVE_INT, H5T_STD_I32LE, 0, 0, 0, &version, NULL);
    put_string(w, "/file_kind", "hybrid");
    put_string(w, "/lcpsim_version", LSIM_VERSION);
    put_string(w, "/scene_text", scene_text ? scene_text : "");
    write_options(w, opt);
    write_model(w, m, p, x0);
    table_make(h, T_TIME, "/time", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, -1, "s");
    table_make(h, T_STATE, "/state", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, n, NULL);
    table_make(h, T_CHART, "/chart", H5T_NATIVE_INT, H5T_STD_I32LE, -1, NULL);
    table_make(h, T_OUTPUTS, "/outputs", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, m->noutputs, NULL);
    table_make(h, T_EV_TIME, "/events/time", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, -1, "s");
    table_make(h, T_EV_FROM, "/events/from_chart", H5T_NATIVE_INT, H5T_STD_I32LE, -1, NULL);
    table_make(h, T_EV_TO, "/events/to_chart", H5T_NATIVE_INT, H5T_STD_I32LE, -1, NULL);
    table_make(h, T_EV_BOUNDARY, "/events/boundary", H5T_NATIVE_INT, H5T_STD_I32LE, -1, NULL);
    table_make(h, T_EV_ITER, "/events/iterations", H5T_NATIVE_INT, H5T_STD_I32LE, -1, NULL);
    table_make(h, T_EV_G, "/events/boundary_value", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, -1, NULL);
    table_make(h, T_EV_BEFORE, "/events/state_before", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, n,
               NULL);
    table_make(h, T_EV_AFTER, "/events/state_after", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, n, NULL);
    /* Made now, written at the first flush and after each (the marks start at 0). */
    double *nan = calloc((size_t)n + 1, sizeof *nan);
    for (int i = 0; nan && i < n; ++i) nan[i] = NAN;
    const int no_chart = -1;
    const int64_t none = 0;
    if (!nan && !w->failed) w->failed = 1, snprintf(w->what, sizeof w->what, "out of memory");
    h->initial_state = put_later(w, "/model/initial_state", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 1,
                                 (hsize_t)n, nan);
    free(nan);
    h->initial_chart = put_later(w, "/model/initial_chart", H5T_NATIVE_INT, H5T_STD_I32LE, 0, 0,
                                 &no_chart);
    h->mark_rows = put_later(w, "/flushed_rows", H5T_NATIVE_INT64, H5T_STD_I64LE, 0, 0, &none);
    h->mark_events = put_later(w, "/flushed_events", H5T_NATIVE_INT64, H5T_STD_I64LE, 0, 0, &none);
    /* The header on disk at once: a run killed from now on leaves a file that opens. */
    if (!w->failed && H5Fflush(w->file, H5F_SCOPE_LOCAL) < 0) {
      w->failed = 1;
      snprintf(w->what, sizeof w->what, "cannot flush the file");
    }
  }
  H5E_END_TRY;
  clock_gettime(CLOCK_MONOTONIC, &h->flushed);
  if (w->failed) {
    snprintf(err, errlen, "%s: %s", path, w->what);
    close_file(h);
    lsim_outfile_discard(&h->out);
    free(h);
    return -1;
  }
  *out = h;
  return 0;
}

/* The bytes HDF5 may add at the close beyond the rows: /summary's dozen small datasets go
 * into the blocks of metadata and small data already begun (a 0.01 s slip.json run's file
 * grew by 59 bytes in its close), or, when one is full, into a new one of 1 MiB
 * (lsim_record_fapl). */
#define LSIM_HREC_CLOSE_BYTES (1 << 20)

/* After a flush: is there room for the next one and the close (lsim_outfile_room_low)?
 * A flush writes at most LSIM_HREC_FLUSH_ROWS rows of each table (_update runs after each
 * row) over as many chunks and one partly filled: when the room is short, space_low says
 * why and the run stops while the file can still be closed whole (slip.json under
 * ulimit -f 1300 failed at its second flush, exit 2 and no file). Near the end, or in a
 * small run, the rest of the run is bounded too: the samples left to final_time (at the
 * record period's multiples, and the final state), the transitions left to
 * max_chart_count, a chunk more of each table, and the close; the room asked is then the
 * smaller (slip.json, 1.6 MB, stopped at its first sample under a 3 MB limit: the
 * room asked was 6.3 MB; the rest of the run is bounded by 1.76 MB). */
static void room_check(LsimHybridRecord *h, const LsimHybridTrace *tr) {
  if (h->w.failed || h->space_low[0]) return;
  double next = 0.0, sample_row = 0.0, event_row = 0.0, chunks = 0.0;
  for (int k = 0; k < T_COUNT; ++k) {
    const Table *t = &h->t[k];
    const double width = t->cols < 0 ? 1.0 : (double)t->cols;
    const double row = width * (double)H5Tget_size(t->mtype);
    next += (double)(LSIM_HREC_FLUSH_ROWS + LSIM_HREC_CHUNK_ROWS) * row;
    chunks += (double)LSIM_HREC_CHUNK_ROWS * row;
    if (k < T_FIRST_EVENT) sample_row += row;
    else event_row += row;
  }
  double rest = -1.0;
  if (h->record_period > 0.0 && h->max_events > 0 && tr->nsamples > 0) {
    /* samples at k * period after the last one written (its time t), and the final state */
    const double t = tr->time[tr->nsamples - 1 - tr->sample_base];
    const double samples = floor((h->final_time - t) / h->record_period) + 2.0;
    const double events = fmax(0.0, (double)(h->max_events - tr->nevents));
    rest = samples * sample_row + events * event_row + chunks + LSIM_HREC_CLOSE_BYTES;
  }
  lsim_outfile_room_low(&h->out, h->path, next, rest, h->space_low, sizeof h->space_low);
}

int lsim_hybrid_record_update(LsimHybridRecord *h, const LsimHybridTrace *tr) {
  if (h->w.failed) return -1;
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  const double since = (double)(now.tv_sec - h->flushed.tv_sec) +
                       1e-9 * (double)(now.tv_nsec - h->flushed.tv_nsec);
  /* Row 0 at once (with the initial state); then by rows or by wall time. */
  if (!h->model_done || tr->nsamples - h->samples_written >= LSIM_HREC_FLUSH_ROWS ||
      tr->nevents - h->events_written >= LSIM_HREC_FLUSH_ROWS || since >= LSIM_HREC_FLUSH_SECONDS) {
    flush_trace(h, tr);
    room_check(h, tr);
  }
  return h->w.failed ? -1 : 0;
}

const char *lsim_hybrid_record_space_low(const LsimHybridRecord *h) {
  return h ? h->space_low : "";
}

int lsim_hybrid_record_observe(const LsimHybridTrace *tr, void *record) {
  LsimHybridRecord *h = record;
  if (lsim_hybrid_record_update(h, tr)) return -1;
  /* Every row in the file: the trace may let them go. Too little room for more: the run
     stops here. */
  const int stored = h->release && h->samples_written == tr->nsamples &&
                     h->events_written == tr->nevents;
  return (stored ? LSIM_HYBRID_OBSERVE_STORED : 0) | (h->space_low[0] ? LSIM_HYBRID_OBSERVE_STOP : 0);
}

void lsim_hybrid_record_release_rows(LsimHybridRecord *h, int on) {
  if (h) h->release = on != 0;
}

int lsim_hybrid_record_close(LsimHybridRecord *h, const LsimHybridTrace *tr, double wall_time,
                             int keep, char *err, size_t errlen) {
  if (!h) return 0;
  int rc = 0;
  if (keep) {
    flush_trace(h, tr);
    H5E_BEGIN_TRY { write_summary(&h->w, tr, wall_time); }
    H5E_END_TRY;
  }
  const int closed = close_file(h) == 0;
  if (!keep) {
    /* What went wrong with the file, if anything did (the run's failure may be it). */
    if (h->w.failed) {
      snprintf(err, errlen, "%s: %s", h->path, h->w.what);
      rc = -1;
    }
    lsim_outfile_discard(&h->out);
  } else if (h->w.failed || !closed) {
    snprintf(err, errlen, "%s: %s", h->path, h->w.failed ? h->w.what : "cannot close the file");
    lsim_outfile_discard(&h->out);
    rc = -1;
  } else if (lsim_outfile_commit(&h->out, err, errlen)) {
    rc = -1;
  }
  free(h);
  return rc;
}

int lsim_hybrid_write(const char *path, const LsimHybridModel *m, const double *p,
                      const double *x0, const LsimHybridOptions *opt,
                      const LsimHybridTrace *tr, const char *scene_text, double wall_time,
                      char *err, size_t errlen) {
  LsimHybridRecord *h = NULL;
  if (lsim_hybrid_record_open(&h, path, m, p, x0, opt, scene_text, err, errlen)) return -1;
  return lsim_hybrid_record_close(h, tr, wall_time, 1, err, errlen);
}
