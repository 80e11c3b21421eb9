/* record.c: the HDF5 output of a run (docs/output-format.md).
 *
 * Every per-step quantity is a "series": a chunked dataset whose first dimension is
 * unlimited, fed through a row buffer in memory. Steps only copy into the buffers; the
 * buffers go to the file every LSIM_RECORD_FLUSH_STEPS steps or LSIM_RECORD_FLUSH_SECONDS
 * (or when the contact rows or the buffered bytes pile up) and at close, so a long run
 * makes one HDF5 write per dataset per flush; each flush ends with H5Fflush, so a process
 * killed between flushes leaves a partial file that opens with what the last flush wrote;
 * one killed inside a flush leaves that flush's rows in pieces, and /flushed_rows
 * (mark_flushed), set once a flush is in the file, says how many rows are whole (the chunk
 * indexes keep the rows of earlier flushes whole: lsim_record_index_format).
 * Errors are sticky: after the first failure every call returns it, and close reports
 * it with its message and removes the partial file.
 */
#include "scene/record.h"
#include "scene/resume.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>
#include <hdf5_hl.h>

#include "contact/constraints.h"
#include "lcp/h5check.h"
#include "lcp/lcp.h"
#include "lcp/solver.h"
#include "scene/lcpdump.h"
#include "scene/outfile.h"

#ifndef LSIM_VERSION
#define LSIM_VERSION "unknown"
#endif

#define LSIM_RECORD_FORMAT_VERSION 3 /* 3: each series says its row kind (row_kind) */
#define LSIM_RECORD_FLUSH_STEPS 256      /* step rows buffered before a flush */
#define LSIM_RECORD_FLUSH_CONTACTS 8192  /* contact rows buffered before a flush */
#define LSIM_RECORD_FLUSH_SECONDS 1.0    /* wall time between flushes at most (s) */
#define LSIM_RECORD_FLUSH_BYTES (4u << 20) /* buffered bytes before a flush (space_check) */
#define LSIM_RECORD_CHUNK_ROWS 256       /* rows per chunk of every series ... */
#define LSIM_RECORD_CHUNK_BYTES (1 << 20) /* ... fewer when that is more than 1 MiB */
#define LSIM_RECORD_TRIM_BYTES (512u << 10) /* metadata cache size that trim_cache trims */
#define LSIM_TAUT_TOL 1e-9               /* m: a tether this close to its length is taut */

/* One extendable dataset and its row buffer. */
typedef struct Series {
  hid_t dset;          /* < 0 until created */
  hid_t mtype;         /* memory type (a predefined native type, not owned) */
  size_t esize;        /* bytes per element */
  size_t cols;         /* second dimension; 0 for a 1-D dataset */
  size_t cols2;        /* third dimension (rank 3), else 0 */
  int rank;            /* 1, 2 or 3 */
  size_t width;        /* elements per buffered row: 1 (1-D), cols or cols * cols2 */
  hsize_t written;     /* rows in the file */
  size_t nbuf, cap;    /* rows buffered, capacity in rows */
  unsigned char *buf;
  const char *name;    /* dataset path, for messages */
  size_t chunk_bytes;  /* bytes of one chunk in the file (space_check) */
} Series;

enum { S_TIME, S_Q, S_V, S_KINETIC, S_POTENTIAL,
       S_STATUS, S_ITER, S_LCP_SIZE, S_NCONTACTS, S_WARM, S_RESIDUAL, S_RELRES, S_WALL,
       S_SICONOS, S_FIRST_STATUS, S_SOURCE, S_SIMD, S_GUARD, S_REFUSED, S_ADMIT,
       S_SLEEPING, /* only with sleeping on */
       S_T_LENGTH, S_T_IMPULSE, S_T_TAUT, S_J_IMPULSE, S_J_ERROR, S_J_VERROR, /* only with tethers / joints */
       S_STEP, S_FAILED, /* only with a record stride (lsim_record_set_every) above 1 */
       S_OFFSET,
       S_C_STEP, S_C_ID, S_C_KIND, S_C_A, S_C_B, S_C_GAP, S_C_POINT, S_C_NORMAL, S_C_NIMP,
       S_C_FIMP, S_C_SLIP,
       S_E_TIME, S_E_KIND, S_E_CONTACT, S_E_A, S_E_B, /* only for an event table */
       S_COUNT };

/* The /resume datasets (lsim_record_keep_memory), rewritten at each flush. */
enum { R_STEP, R_WARM_ID, R_WARM_NVAR, R_WARM_Z, R_WARM_BASIS_VALID, R_WARM_BASIS,
       R_ASLEEP, R_REST, R_GROUP, R_CACHE_ID, R_CACHE_BODY, R_CACHE_NVAR, R_CACHE_Z,
       R_LAST_TETHER, R_LAST_JOINT, R_SUMMARY, R_COUNT };

/* /resume/slotS/summary (stride above 1 only): the summary's accumulators as of the slot's
   step, which the rows kept no longer give (the steps between records are not in them). */
enum { SUM_FAILURES, SUM_BUDGET, SUM_WARNINGS, SUM_RECOVERED, SUM_MAX_RESIDUAL, SUM_SOLVER_WALL,
       SUM_MAX_PENETRATION, SUM_MAX_STRETCH, SUM_MAX_JOINT_ERROR, SUM_COUNT };

#define S_FIRST_CONTACT S_C_STEP
#define S_FIRST_EVENT S_E_TIME

struct LsimRecord {
  hid_t file;
  char *path;          /* final name */
  LsimOutFile out;     /* the partial file and where it goes (scene/outfile.h) */
  struct timespec flushed; /* when the file was last flushed */
  int nq, nv, nbodies;
  int ntethers, njoints;
  double *tether_impulse;  /* [ntethers] this step's impulses, by tether */
  double *joint_impulse;   /* [njoints * 3] this step's row impulses, by joint */
  double max_stretch;      /* max over states of tether length - length, m */
  double max_joint_error;  /* max over states of a joint's position error, m */
  Series s[S_COUNT];
  int steps;           /* steps recorded */
  size_t steps_buffered;
  int64_t ncontacts;   /* contact rows recorded (buffered or written) */
  int failures, warnings;
  size_t cache_trimmed; /* the metadata cache's size after the last trim_cache */
  int (*trim_more)(void *); /* lsim_record_trim_also: another writer's datasets, or NULL */
  void *trim_more_user;
  char space_low[LSIM_OUTFILE_PATH_MAX + 200]; /* space_check's reason, "" while room */
  int budget_steps;    /* steps that spent a fixed sweep budget (tol 0): not failures */
  int recovered;       /* steps the fallback chain recovered (first status < 0, status >= 0) */
  double max_residual, max_penetration, solver_wall;
  struct timespec t0;
  int status;          /* first error (sticky), 0 while all is well */
  char msg[LSIM_OUTFILE_MSG_MAX]; /* its message */
  LsimRunEnd end;      /* how the run ended (lsim_record_set_end) */
  char end_reason[512];
  /* lsim_record_keep_memory: the stepper whose memory each flush writes to /resume, with
     the model and the state it goes with; the memory's copy and the /resume datasets. */
  const LsimStepper *mem_stepper;
  const LsimModel *mem_model;
  const LsimState *mem_state;
  LsimStepMemory mem;
  hid_t res[2 * R_COUNT]; /* slot 0's, then slot 1's */
  int mem_slot;        /* the slot the next flush writes (0 or 1) */
  hid_t flushed_rows;  /* /flushed_rows (mark_flushed), < 0 until made */
  /* lsim_record_lcp_problems: the problems of the run's LCP dump (/lcp), written to
     /flushed_lcp_problems with each /flushed_rows; dumps_lcp 0: no dump, no mark. */
  int dumps_lcp;
  int64_t lcp_problems;
  /* lsim_record_lcp_bytes: the dump's bytes so far, at the last flush, its largest step's
     and a chunk of each of its datasets (0 without a dump). */
  double dump_bytes, dump_flushed, dump_step_peak, dump_chunks;
  hid_t flushed_lcp;   /* /flushed_lcp_problems, < 0 until made */
  /* An event-driven run's (lsim_record_events_begin): /flushed_events, the /events rows
     of the last flush that reached the file whole, written with /flushed_rows (such runs
     keep no stepper memory: each flush marks). < 0 until made. */
  hid_t flushed_events;
  int step0;           /* the step of row 0 (the state given to lsim_record_open) */
  size_t mem_bytes;    /* the last /resume's bytes (space_check) */
  int nc_peak;         /* the most contact rows of one step so far (space_check) */
  size_t events_peak;  /* the most event bytes buffered at a flush so far (space_check) */
  /* lsim_record_set_every: a row every `every` steps (and the last step). A step the
     stride skips stays in the buffers as the pending rows until the next step replaces
     them, or the close keeps them. */
  int every;           /* 1: every step */
  int pending;         /* the buffers end with a skipped step's rows */
  int pending_contacts; /* its contact rows */
  int failed_since;    /* failed steps since the last row kept, the pending step's included */
  int whole;           /* the file's head says LSIM_H5_MARK_WHOLE (mark_whole) */
};

/* Records the first error: status and "<path>: <what>[: <HDF5 detail>]". Returns status. */
static int fail(LsimRecord *r, int status, const char *what) {
  if (r->status < 0) return r->status;
  char detail[256] = "";
  lsim_h5_error_detail(detail, sizeof detail);
  if (detail[0])
    snprintf(r->msg, sizeof r->msg, "%s: %.256s: %s", r->path, what, detail);
  else
    snprintf(r->msg, sizeof r->msg, "%s: %.256s", r->path, what);
  r->status = status;
  return status;
}

/* Same, with "cannot write <name>" as the message. */
static int fail_write(LsimRecord *r, const char *name) {
  char what[160];
  snprintf(what, sizeof what, "cannot write %s", name);
  return fail(r, LSIM_IO_ERROR, what);
}

/* ---- header datasets (written once at open) ---- */

/* Link creation list that makes the intermediate groups of a path ("/a/b"). */
static hid_t make_lcpl(void) {
  hid_t l = H5Pcreate(H5P_LINK_CREATE);
  if (l >= 0 && H5Pset_create_intermediate_group(l, 1) < 0) {
    H5Pclose(l);
    return -1;
  }
  return l;
}

/* Sets the "unit" attribute (a convenience copy of the documented unit) on a dataset. */
static int set_unit(hid_t dset, const char *unit) {
  if (!unit) return 0;
  return H5LTset_attribute_string(dset, ".", "unit", unit) < 0 ? -1 : 0;
}

/* Writes a small contiguous dataset of the given rank (0: scalar) and dimensions at name,
 * data in C order. Skipped after an error. */
static void write_array(LsimRecord *r, const char *name, hid_t mtype, hid_t ftype, int rank,
                        const hsize_t *dims, const void *data, const char *unit) {
  if (r->status < 0) return;
  hsize_t total = 1;
  for (int k = 0; k < rank; ++k) total *= dims[k];
  hid_t space = rank == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(rank, dims, NULL);
  hid_t lcpl = make_lcpl();
  hid_t d = (space >= 0 && lcpl >= 0)
                ? H5Dcreate2(r->file, name, ftype, space, lcpl, H5P_DEFAULT, H5P_DEFAULT)
                : -1;
  int ok = d >= 0 &&
           (total == 0 || H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0) &&
           set_unit(d, unit) == 0;
  if (d >= 0) H5Dclose(d);
  if (lcpl >= 0) H5Pclose(lcpl);
  if (space >= 0) H5Sclose(space);
  if (!ok) fail_write(r, name);
}

/* Writes a small dataset of n elements (n < 0: scalar) at name. */
static void write_small(LsimRecord *r, const char *name, hid_t mtype, hid_t ftype, int n,
                        const void *data, const char *unit) {
  hsize_t dim = n < 0 ? 1 : (hsize_t)n;
  write_array(r, name, mtype, ftype, n < 0 ? 0 : 1, &dim, data, unit);
}

/* Writes a float64 matrix [rows, cols] (C order) at name. */
static void write_matrix(LsimRecord *r, const char *name, int rows, int cols,
                         const double *data, const char *unit) {
  hsize_t dims[2] = {(hsize_t)rows, (hsize_t)cols};
  write_array(r, name, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 2, dims, data, unit);
}

static void write_int(LsimRecord *r, const char *name, int value) {
  write_small(r, name, H5T_NATIVE_INT, H5T_STD_I32LE, -1, &value, NULL);
}

static void write_double(LsimRecord *r, const char *name, double value, const char *unit) {
  write_small(r, name, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, -1, &value, unit);
}

/* Writes n fixed-length, null-terminated strings stored every stride bytes from first
 * (n < 0: one scalar string). The string length is the longest plus 1 (at least 1). */
static void write_strings(LsimRecord *r, const char *name, const char *first, size_t stride,
                          int n) {
  if (r->status < 0) return;
  int count = n < 0 ? 1 : n;
  size_t len = 1;
  for (int i = 0; i < count; ++i) {
    size_t l = strlen(first + (size_t)i * stride) + 1;
    if (l > len) len = l;
  }
  /* Pack into one zero-padded buffer (header only; never in the step path). */
  char *buf = calloc(count > 0 ? (size_t)count : 1, len);
  if (!buf) {
    fail(r, LSIM_OUT_OF_MEMORY, "out of memory");
    return;
  }
  for (int i = 0; i < count; ++i) memcpy(buf + (size_t)i * len, first + (size_t)i * stride,
                                         strlen(first + (size_t)i * stride));
  hid_t t = H5Tcopy(H5T_C_S1);
  int ok = t >= 0 && H5Tset_size(t, len) >= 0 && H5Tset_strpad(t, H5T_STR_NULLTERM) >= 0;
  if (ok) write_small(r, name, t, t, n, buf, NULL);
  else fail_write(r, name);
  if (t >= 0) H5Tclose(t);
  free(buf);
}

/* ---- series ---- */


/* The access list of a series: a chunk cache of one chunk. Rows are appended in order, so
 * only the chunk being filled is written again; HDF5's default of 1 MiB a dataset kept up to
 * 1 MiB of written chunks of every series, which trim_cache's reopening dropped only while
 * the chunk indexes filled the metadata cache (the 1.8 format's B-trees did; the 1.10
 * format's extensible arrays stay small): with --dump-lcp, box_slide_3d's peak memory grew
 * 14 MB from 10^4 to 4 x 10^4 steps (tests/e2e/long_runs.sh). The caller closes it unless
 * it is H5P_DEFAULT. */
static hid_t series_dapl(const Series *s) {
  hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS);
  if (dapl < 0) return H5P_DEFAULT;
  H5Pset_chunk_cache(dapl, 521, s->chunk_bytes, 1.0);
  return dapl;
}
/* What a row of each series is, its attribute row_kind (docs/output-format.md): readers
 * of a killed run's file cut each series by it to the last whole flush, /flushed_rows = W
 * states: "state" a row per state (W rows), "step" a row per step (W - 1), "state_offset"
 * the contact rows' offsets (W + 1), "contact" a contact row (/contacts/offset[W] rows),
 * "event" an event-driven run's event (/flushed_events of them). A series
 * without one is refused when it is made. */
static const char *const series_row_kind[S_COUNT] = {
    [S_TIME] = "state", [S_Q] = "state", [S_V] = "state", [S_KINETIC] = "state",
    [S_POTENTIAL] = "state", [S_STATUS] = "step", [S_ITER] = "step", [S_LCP_SIZE] = "step",
    [S_NCONTACTS] = "step", [S_WARM] = "step", [S_RESIDUAL] = "step", [S_RELRES] = "step",
    [S_WALL] = "step", [S_SICONOS] = "step", [S_FIRST_STATUS] = "step", [S_SOURCE] = "step",
    [S_SIMD] = "step", [S_GUARD] = "step", [S_REFUSED] = "step", [S_ADMIT] = "step",
    [S_SLEEPING] = "step", [S_T_LENGTH] = "state", [S_T_IMPULSE] = "step",
    [S_T_TAUT] = "step", [S_J_IMPULSE] = "step", [S_J_ERROR] = "state",
    [S_J_VERROR] = "state", [S_STEP] = "state", [S_FAILED] = "step",
    [S_OFFSET] = "state_offset", [S_C_STEP] = "contact", [S_C_ID] = "contact",
    [S_C_KIND] = "contact", [S_C_A] = "contact", [S_C_B] = "contact", [S_C_GAP] = "contact",
    [S_C_POINT] = "contact", [S_C_NORMAL] = "contact", [S_C_NIMP] = "contact",
    [S_C_FIMP] = "contact", [S_C_SLIP] = "contact", [S_E_TIME] = "event",
    [S_E_KIND] = "event", [S_E_CONTACT] = "event", [S_E_A] = "event", [S_E_B] = "event"};

/* Creates series k as dataset name: [0] (two_d = 0), [0, cols] or, with cols2 > 0,
 * [0, cols, cols2]; rows appended later; its unit and row kind as attributes. */
static void series_create3(LsimRecord *r, int k, const char *name, hid_t mtype, hid_t ftype,
                           int two_d, size_t cols, size_t cols2, size_t cap, const char *unit) {
  Series *s = &r->s[k];
  s->name = name;
  s->mtype = mtype;
  s->esize = H5Tget_size(mtype);
  s->rank = two_d ? (cols2 ? 3 : 2) : 1;
  s->cols = two_d ? cols : 0;
  s->cols2 = two_d ? cols2 : 0;
  s->width = two_d ? cols * (cols2 ? cols2 : 1) : 1;
  if (r->status < 0) return;
  s->buf = malloc(cap * s->width * s->esize + 1);
  if (!s->buf) {
    fail(r, LSIM_OUT_OF_MEMORY, "out of memory");
    return;
  }
  s->cap = cap;
  /* Zero-width rows (no coordinates) still need a positive chunk size: the second
   * dimension is then unlimited with chunk 1. */
  hsize_t dims[3] = {0, s->cols, s->cols2};
  hsize_t maxd[3] = {H5S_UNLIMITED, s->cols ? s->cols : H5S_UNLIMITED, s->cols2};
  /* HDF5 writes whole chunks and caches 1 MiB of them: a chunk of 256 rows of q for
     20000 bodies (286 MB) made a 1-step run's file 542 MB; rows per chunk are cut so
     that a chunk holds at most 1 MiB (at least one row). */
  const size_t row_bytes = s->width * s->esize;
  size_t rows = LSIM_RECORD_CHUNK_ROWS;
  if (row_bytes > 0 && rows * row_bytes > LSIM_RECORD_CHUNK_BYTES)
    rows = LSIM_RECORD_CHUNK_BYTES / row_bytes > 0 ? LSIM_RECORD_CHUNK_BYTES / row_bytes : 1;
  hsize_t chunk[3] = {rows, s->cols ? s->cols : 1, s->cols2};
  s->chunk_bytes = rows * (row_bytes > 0 ? row_bytes : s->esize);
  hid_t space = H5Screate_simple(s->rank, dims, maxd);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  hid_t lcpl = make_lcpl();
  int ok = space >= 0 && dcpl >= 0 && lcpl >= 0 && H5Pset_chunk(dcpl, s->rank, chunk) >= 0;
  hid_t dapl = series_dapl(s);
  s->dset = ok ? H5Dcreate2(r->file, name, ftype, space, lcpl, dcpl, dapl) : -1;
  if (s->dset < 0 || set_unit(s->dset, unit) < 0) fail_write(r, name);
  else if (!series_row_kind[k]) fail(r, LSIM_INVALID_INPUT, "record: a series without a row kind");
  else if (H5LTset_attribute_string(s->dset, ".", "row_kind", series_row_kind[k]) < 0)
    fail_write(r, name);
  if (dapl != H5P_DEFAULT) H5Pclose(dapl);
  if (lcpl >= 0) H5Pclose(lcpl);
  if (dcpl >= 0) H5Pclose(dcpl);
  if (space >= 0) H5Sclose(space);
}

static void series_create(LsimRecord *r, int k, const char *name, hid_t mtype, hid_t ftype,
                          int two_d, size_t cols, size_t cap, const char *unit) {
  series_create3(r, k, name, mtype, ftype, two_d, cols, 0, cap, unit);
}

/* Makes room for rows more buffered rows (amortized doubling). 0 or < 0. */
static int series_reserve(LsimRecord *r, Series *s, size_t rows) {
  if (s->nbuf + rows <= s->cap) return 0;
  size_t cap = s->cap ? s->cap : 16;
  while (cap < s->nbuf + rows) cap *= 2;
  unsigned char *b = realloc(s->buf, cap * s->width * s->esize + 1);
  if (!b) return fail(r, LSIM_OUT_OF_MEMORY, "out of memory");
  s->buf = b;
  s->cap = cap;
  return 0;
}

/* The next buffered row (room must have been reserved). */
static void *series_row(Series *s) {
  void *p = s->buf + s->nbuf * s->width * s->esize;
  s->nbuf++;
  return p;
}

int lsim_record_simd_reference(void) {
  const char *e = getenv("LSIM_SIMD"); /* read as lcp/pgs_wide.c's pick_path reads it */
  return e && !strcmp(e, "reference");
}

/* Appends the buffered rows to the dataset and empties the buffer. 0 or < 0. */
static int series_flush(LsimRecord *r, Series *s) {
  if (r->status < 0) return r->status;
  if (s->nbuf == 0) return 0;
  hsize_t start[3] = {s->written, 0, 0};
  hsize_t count[3] = {s->nbuf, s->cols, s->cols2};
  hsize_t total[3] = {s->written + s->nbuf, s->cols, s->cols2};
  int ok = H5Dset_extent(s->dset, total) >= 0;
  if (ok && s->width > 0) {
    hid_t fspace = H5Dget_space(s->dset);
    hid_t mspace = H5Screate_simple(s->rank, count, NULL);
    ok = fspace >= 0 && mspace >= 0 &&
         H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL) >= 0 &&
         H5Dwrite(s->dset, s->mtype, mspace, fspace, H5P_DEFAULT, s->buf) >= 0;
    if (mspace >= 0) H5Sclose(mspace);
    if (fspace >= 0) H5Sclose(fspace);
  }
  if (!ok) return fail_write(r, s->name);
  s->written += s->nbuf;
  s->nbuf = 0;
  return 0;
}

/* Keeps the metadata cache bounded. Evictions are off (lsim_record_fapl: metadata reaches
 * the file only in a flush), so the chunk indexes of the growing series stayed in memory
 * for the whole run: 790 bytes a step on pile_10 (183 MB after 2 x 10^5 steps). Right
 * after a flush, when nothing is dirty, the series are closed and opened again: the file
 * is opened with evict-on-close, so closing drops their cached metadata without writing
 * anything. Done when the cache has doubled since the last time (from 512 kB on). */
static int trim_cache(LsimRecord *r) {
  size_t max_size, min_clean, size;
  int entries;
  if (r->file < 0 || H5Fget_mdc_size(r->file, &max_size, &min_clean, &size, &entries) < 0 ||
      size <= LSIM_RECORD_TRIM_BYTES || size <= 2 * r->cache_trimmed)
    return 0;
  for (int k = 0; k < S_COUNT; ++k) {
    Series *s = &r->s[k];
    if (s->dset < 0) continue;
    H5Dclose(s->dset);
    hid_t dapl = series_dapl(s);
    s->dset = H5Dopen2(r->file, s->name, dapl);
    if (dapl != H5P_DEFAULT) H5Pclose(dapl);
    if (s->dset < 0) return fail_write(r, s->name);
  }
  /* The datasets another writer keeps open in this file (--dump-lcp's /lcp), alike. */
  if (r->trim_more && r->trim_more(r->trim_more_user) < 0)
    return fail(r, LSIM_IO_ERROR, "reopening the datasets of /lcp");
  if (H5Fget_mdc_size(r->file, &max_size, &min_clean, &size, &entries) >= 0)
    r->cache_trimmed = size;
  return 0;
}

void lsim_record_trim_also(LsimRecord *r, int (*reopen)(void *), void *user) {
  if (r) r->trim_more = reopen, r->trim_more_user = user;
}

void lsim_record_lcp_problems(LsimRecord *r, int64_t count) {
  if (r) r->dumps_lcp = 1, r->lcp_problems = count;
}

void lsim_record_lcp_bytes(LsimRecord *r, double bytes, double chunk_bytes) {
  if (!r) return;
  if (bytes - r->dump_bytes > r->dump_step_peak) r->dump_step_peak = bytes - r->dump_bytes;
  r->dump_bytes = bytes;
  r->dump_chunks = chunk_bytes;
}

/* The bytes of one buffered row of series [from, to) that exist. */
static double row_bytes(const LsimRecord *r, int from, int to) {
  double b = 0.0;
  for (int k = from; k < to; ++k)
    if (r->s[k].dset >= 0) b += (double)(r->s[k].width * r->s[k].esize);
  return b;
}

/* The bytes the buffers hold now and the LCP dump wrote since the last flush (the
 * LSIM_RECORD_FLUSH_BYTES trigger). */
static double buffered_bytes(const LsimRecord *r) {
  double b = r->dump_bytes - r->dump_flushed;
  for (int k = 0; k < S_COUNT; ++k) b += (double)(r->s[k].nbuf * r->s[k].width * r->s[k].esize);
  return b;
}

/* What the next flush may add to the file: its rows, a chunk more per series (the rows
 * start inside a chunk and end inside another, HDF5 writes whole chunks) and the stepper's
 * memory again. A flush comes after the step that reached one of the triggers: before
 * that step fewer than LSIM_RECORD_FLUSH_STEPS step rows, fewer than
 * LSIM_RECORD_FLUSH_CONTACTS contact rows (at most nc_peak a step) and fewer than
 * LSIM_RECORD_FLUSH_BYTES bytes were buffered; that step adds one step row and its
 * contacts (nc_peak: the next step's are not known yet) and the events since (events_peak).
 * The bound had been the memory and one chunk a series: a flush of contact rows (8192 of
 * them against chunks of 256) or of many steps of a scene with many bodies wrote more: on
 * pile_1000 3.28 MB against 2.18 MB, on 500 free bodies 13.5 MB (256 steps within the
 * second) against 2.13 MB, past the margin: that run failed at its second flush, its file
 * lost. An LCP dump (--dump-lcp, lsim_record_lcp_bytes) writes into the same file
 * between flushes: its bytes count toward the LSIM_RECORD_FLUSH_BYTES trigger and here as
 * a step's rows do (its largest step's bytes, dump_step_peak), with a chunk of each of its
 * datasets; left out, pile_100's flushes of 300 steps grew the file by up to 252 MB
 * against a bound of 5.9 MB. Measured against this bound: docs/output-format.md, "A disk
 * that fills". */
static double next_flush_bytes(const LsimRecord *r) {
  const double srow = row_bytes(r, 0, S_FIRST_CONTACT) + r->dump_step_peak;
  const double crow = row_bytes(r, S_FIRST_CONTACT, S_FIRST_EVENT);
  const double nc = (double)r->nc_peak;
  const double before_contacts = fmin(LSIM_RECORD_FLUSH_CONTACTS - 1.0,
                                      (LSIM_RECORD_FLUSH_STEPS - 1.0) * nc);
  /* (a dump's steps grow as a pile lands, a dense M as n^2: its peak so far does not bound
     the steps before the trigger, which the trigger alone then does) */
  const double before =
      r->dumps_lcp ? (double)LSIM_RECORD_FLUSH_BYTES
                   : fmin((double)LSIM_RECORD_FLUSH_BYTES,
                          (LSIM_RECORD_FLUSH_STEPS - 1.0) * srow + before_contacts * crow);
  double next = before + srow + nc * crow + (double)r->events_peak + (double)r->mem_bytes +
                r->dump_chunks;
  for (int k = 0; k < S_COUNT; ++k)
    if (r->s[k].dset >= 0) next += (double)r->s[k].chunk_bytes;
  return next;
}

/* After a flush: is there room for the next one and the close (lsim_outfile_room_low)?
 * next_flush_bytes bounds the next flush; lsim_outfile_room_low asks for twice that
 * (the margin: the next step's contacts may outnumber nc_peak, pile_1000's rose by 48 %
 * from one flush to the next while it fell; a flush may start one of HDF5's 1 MiB blocks
 * of metadata, lsim_record_fapl: the +1 MB steps in the measured growth) and 4 MB for the
 * close. When the room is short, space_low says why and the caller stops the run while
 * its file can still be closed whole. */
static void space_check(LsimRecord *r) {
  if (r->space_low[0] || !r->out.partial[0]) return;
  lsim_outfile_room_low(&r->out, r->path, next_flush_bytes(r), -1.0, r->space_low,
                        sizeof r->space_low);
}

/* Writes /resume/SLOT/NAME (dataset k of the slot), a 1-D dataset of n elements (n < 0: a
 * scalar), made on first use (chunked and extendable) and resized and overwritten after. */
static void put_memory(LsimRecord *r, int k, const char *base, hid_t mtype, hid_t ftype, int n,
                       const void *data) {
  if (r->status < 0) return;
  char name[64];
  snprintf(name, sizeof name, "/resume/slot%d/%s", r->mem_slot, base);
  k += r->mem_slot * R_COUNT;
  hsize_t dim = n < 0 ? 1 : (hsize_t)n;
  int ok = 1;
  if (r->res[k] < 0) {
    hsize_t maxd = n < 0 ? 1 : H5S_UNLIMITED, chunk = 1024;
    hid_t space = n < 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &dim, &maxd);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hid_t lcpl = make_lcpl();
    ok = space >= 0 && dcpl >= 0 && lcpl >= 0 && (n < 0 || H5Pset_chunk(dcpl, 1, &chunk) >= 0);
    if (ok) r->res[k] = H5Dcreate2(r->file, name, ftype, space, lcpl, dcpl, H5P_DEFAULT);
    ok = r->res[k] >= 0;
    if (lcpl >= 0) H5Pclose(lcpl);
    if (dcpl >= 0) H5Pclose(dcpl);
    if (space >= 0) H5Sclose(space);
  } else if (n >= 0) {
    ok = H5Dset_extent(r->res[k], &dim) >= 0;
  }
  if (ok && dim > 0) ok = H5Dwrite(r->res[k], mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0;
  r->mem_bytes += (size_t)dim * H5Tget_size(ftype);
  if (!ok) fail_write(r, name);
}

/* Writes mark (LSIM_H5_MARK_LEN bytes) at the start of file's user block through HDF5's own
 * descriptor (the sec2 driver's), which HDF5 never writes there. 0 or -1. */
static int put_head(hid_t file, const char *mark) {
  int *fd = NULL;
  if (H5Fget_vfd_handle(file, H5P_DEFAULT, (void **)&fd) < 0 || !fd) return -1;
  return pwrite(*fd, mark, LSIM_H5_MARK_LEN, 0) == LSIM_H5_MARK_LEN ? 0 : -1;
}

/* A mark of whole flushes (/flushed_rows, /flushed_lcp_problems): a scalar int64 holding
 * 0 until mark_flushed writes it. Its id, or < 0 (the record failed). */
static hid_t make_mark(LsimRecord *r, const char *name) {
  const int64_t none = 0;
  hid_t d = -1, space = H5Screate(H5S_SCALAR), lcpl = make_lcpl();
  if (space >= 0 && lcpl >= 0)
    d = H5Dcreate2(r->file, name, H5T_STD_I64LE, space, lcpl, H5P_DEFAULT, H5P_DEFAULT);
  if (d < 0 || H5Dwrite(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, &none) < 0)
    fail_write(r, name);
  if (lcpl >= 0) H5Pclose(lcpl);
  if (space >= 0) H5Sclose(space);
  return d;
}

/* The marks of whole flushes this record keeps, those not made yet: /flushed_rows, with a
 * dump /flushed_lcp_problems, with an event table /flushed_events. */
static void make_marks(LsimRecord *r) {
  if (r->status == 0 && r->flushed_rows < 0) r->flushed_rows = make_mark(r, "/flushed_rows");
  if (r->status == 0 && r->dumps_lcp && r->flushed_lcp < 0)
    r->flushed_lcp = make_mark(r, "/flushed_lcp_problems");
  if (r->status == 0 && r->s[S_E_TIME].dset >= 0 && r->flushed_events < 0)
    r->flushed_events = make_mark(r, "/flushed_events");
}

/* The stepper's memory as of the last step recorded, into /resume: written only when the
 * state is that step's (a run that stopped at a step it does not record keeps the memory
 * of the last flush before). Two slots, /resume/slot0 and /resume/slot1, written in turn: a
 * process killed inside a flush, after some of its writes reached the file but before
 * HDF5's metadata did, leaves the file of the flush before, whose memory is in the slot
 * this flush did not touch (a slot overwritten in place would mix two steps' memories). */
static int write_memory(LsimRecord *r) {
  const int step = r->step0 + r->steps; /* the step of the last row */
  if (!r->mem_stepper || r->status < 0 || r->mem_state->step != step) return 0;
  LsimStepMemory *m = &r->mem;
  if (lsim_stepper_memory_get(r->mem_stepper, r->mem_model, m)) {
    fail(r, LSIM_OUT_OF_MEMORY, "out of memory");
    return 0;
  }
  const hid_t I = H5T_NATIVE_INT, FI = H5T_STD_I32LE, D = H5T_NATIVE_DOUBLE, FD = H5T_IEEE_F64LE;
  const hid_t U = H5T_NATIVE_UINT64, FU = H5T_STD_U64LE;
  /* The first write makes both slots, the same memory in each, so that no later flush
     makes an object: a flush that made one moved the file's metadata about (name heaps,
     free space), and a kill inside it left a file HDF5 crashed on (mark_whole). */
  const int slots = r->res[R_STEP] < 0 && r->res[R_COUNT + R_STEP] < 0 ? 2 : 1;
  for (int pass = 0; pass < slots; ++pass) {
    r->mem_bytes = 0;
    put_memory(r, R_STEP, "step", I, FI, -1, &step);
    put_memory(r, R_WARM_ID, "warm_id", U, FU, m->ncontacts, m->id);
    put_memory(r, R_WARM_NVAR, "warm_nvar", I, FI, m->ncontacts, m->nvar);
    put_memory(r, R_WARM_Z, "warm_z", D, FD, m->nz, m->z);
    put_memory(r, R_WARM_BASIS_VALID, "warm_basis_valid", I, FI, -1, &m->basis_valid);
    put_memory(r, R_WARM_BASIS, "warm_basis", I, FI, m->nz, m->basis);
    if (m->sleep) {
      put_memory(r, R_ASLEEP, "sleep_asleep", I, FI, m->nbodies, m->asleep);
      put_memory(r, R_REST, "sleep_rest_steps", I, FI, m->nbodies, m->rest_steps);
      put_memory(r, R_GROUP, "sleep_group", I, FI, m->nbodies, m->group);
      put_memory(r, R_CACHE_ID, "sleep_cache_id", U, FU, m->ncache, m->cache_id);
      put_memory(r, R_CACHE_BODY, "sleep_cache_body", I, FI, 2 * m->ncache, m->cache_body);
      put_memory(r, R_CACHE_NVAR, "sleep_cache_nvar", I, FI, m->ncache, m->cache_nvar);
      put_memory(r, R_CACHE_Z, "sleep_cache_z", D, FD, m->ncache_z, m->cache_z);
      put_memory(r, R_LAST_TETHER, "sleep_last_tether", D, FD, m->ntethers, m->last_tether);
      put_memory(r, R_LAST_JOINT, "sleep_last_joint", D, FD, 3 * m->njoints, m->last_joint);
    }
    if (r->every > 1) {
      double sum[SUM_COUNT];
      sum[SUM_FAILURES] = r->failures, sum[SUM_BUDGET] = r->budget_steps;
      sum[SUM_WARNINGS] = r->warnings, sum[SUM_RECOVERED] = r->recovered;
      sum[SUM_MAX_RESIDUAL] = r->max_residual, sum[SUM_SOLVER_WALL] = r->solver_wall;
      sum[SUM_MAX_PENETRATION] = r->max_penetration, sum[SUM_MAX_STRETCH] = r->max_stretch;
      sum[SUM_MAX_JOINT_ERROR] = r->max_joint_error;
      put_memory(r, R_SUMMARY, "summary", D, FD, SUM_COUNT, sum);
    }
    r->mem_slot ^= 1;
  }
  /* The marks of whole flushes, made with the first slot (0: none yet; mark_flushed). */
  make_marks(r);
  return r->status == 0;
}

/* /flushed_rows: the /time rows of the last flush that wrote the stepper's memory
 * and reached the file whole. H5Fflush writes HDF5's dirty metadata in the order of its
 * addresses, so a process killed inside it leaves some of it new and some old: a dataset's
 * header with the extent of this flush and its chunk index without the chunk of the new
 * rows (they read as 0), or /time extended and /solver/status not. This count is written
 * after that H5Fflush returned and flushed on its own (one 8-byte write, in place), so the
 * file's rows up to it are whole whenever the process dies; --resume continues from its
 * last row (scene/resume.c). */
static void mark_flushed(LsimRecord *r) {
  const int64_t rows = (int64_t)r->s[S_TIME].written;
  const int64_t events = (int64_t)r->s[S_E_TIME].written;
  if (r->status < 0 || r->flushed_rows < 0) return;
  /* The dump's problems (the events) appended so far went to the file with the same
     H5Fflush; their mark is flushed first, so that it never lags /flushed_rows (H5Fflush
     writes in the order of addresses, /flushed_rows first). */
  if (r->flushed_lcp >= 0 &&
      (H5Dwrite(r->flushed_lcp, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, &r->lcp_problems) < 0 ||
       H5Fflush(r->file, H5F_SCOPE_LOCAL) < 0)) {
    fail_write(r, "/flushed_lcp_problems");
    return;
  }
  if (r->flushed_events >= 0 &&
      (H5Dwrite(r->flushed_events, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, &events) < 0 ||
       H5Fflush(r->file, H5F_SCOPE_LOCAL) < 0)) {
    fail_write(r, "/flushed_events");
    return;
  }
  if (H5Dwrite(r->flushed_rows, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, &rows) < 0) {
    fail_write(r, "/flushed_rows");
    return;
  }
  if (H5Fflush(r->file, H5F_SCOPE_LOCAL) < 0) {
    char what[96];
    snprintf(what, sizeof what, "cannot flush the file at step %d", r->steps);
    fail(r, LSIM_IO_ERROR, what);
  }
}

/* The file's head (lcp/h5check.h) turned from LSIM_H5_MARK_PENDING to LSIM_H5_MARK_WHOLE,
 * once, after the first flush that left the file whole with every object the writer makes
 * (the flush of the first marks: lsim_record_keep_memory's, lsim_record_events_begin's; for
 * a record that keeps no marks, its first flush of steps or its close). Before it the
 * writer made objects flush after flush (/parameters/record_every, /resume, /events, the
 * marks), each moving metadata (the root's name heap, free space, B-tree nodes) that a
 * kill inside the flush left half old, half new: of the writes of
 * data/bouncing_ball_events.json's first flushes replayed as kills, 2 left files h5py
 * and lcpsim crashed on (free(): invalid pointer), and later ones "bad object header"
 * errors. A reader refuses a file whose head is not marked before HDF5 reads it; after the
 * mark, flushes only add rows, chunks and index blocks, and rewrite /resume in place.
 * The mark is written after the flush returned, in place through HDF5's descriptor (one
 * write of LSIM_H5_MARK_LEN bytes), so a file that has it has that whole flush. */
static void mark_whole(LsimRecord *r) {
  if (r->whole || r->status < 0 || r->file < 0) return;
  if (put_head(r->file, LSIM_H5_MARK_WHOLE) < 0) {
    fail(r, LSIM_IO_ERROR, "cannot write the file's head");
    return;
  }
  r->whole = 1;
}

/* Flushes every series. 0 or < 0. */
static int flush_all(LsimRecord *r) {
  for (int k = 0; k < S_COUNT; ++k)
    if (series_flush(r, &r->s[k]) < 0) return r->status;
  r->steps_buffered = 0;
  r->dump_flushed = r->dump_bytes;
  const int wrote_memory = write_memory(r);
  if (r->status < 0) return r->status;
  /* HDF5's cached metadata (dataset extents, chunk indexes) goes to the file too, so
     the file as of this flush is whole if the process dies before the next. */
  clock_gettime(CLOCK_MONOTONIC, &r->flushed);
  if (r->file >= 0 && H5Fflush(r->file, H5F_SCOPE_LOCAL) < 0) {
    /* (rows may reach the disk only here, from HDF5's caches: the step is named) */
    char what[96];
    snprintf(what, sizeof what, "cannot flush the file at step %d", r->steps);
    return fail(r, LSIM_IO_ERROR, what);
  }
  /* (an event-driven run keeps no memory: its marks follow every flush) */
  if (wrote_memory || r->flushed_events >= 0) {
    mark_flushed(r);
    if (r->flushed_rows >= 0) mark_whole(r);
  }
  if (r->status < 0) return r->status;
  return trim_cache(r);
}

/* Buffers one state row: time, q, v, energies. */
static int append_state(LsimRecord *r, const LsimModel *model, const LsimState *state) {
  for (int k = S_TIME; k <= S_POTENTIAL; ++k)
    if (series_reserve(r, &r->s[k], 1) < 0) return r->status;
  *(double *)series_row(&r->s[S_TIME]) = state->time;
  double *q = series_row(&r->s[S_Q]);
  if (r->nq > 0) memcpy(q, state->q, (size_t)r->nq * sizeof *q);
  double *v = series_row(&r->s[S_V]);
  if (r->nv > 0) memcpy(v, state->v, (size_t)r->nv * sizeof *v);
  *(double *)series_row(&r->s[S_KINETIC]) = lsim_kinetic_energy(model, state);
  *(double *)series_row(&r->s[S_POTENTIAL]) = lsim_potential_energy(model, state);
  /* Tether lengths and joint errors of this state. */
  if (r->ntethers > 0) {
    if (series_reserve(r, &r->s[S_T_LENGTH], 1) < 0) return r->status;
    double *len = series_row(&r->s[S_T_LENGTH]);
    for (int i = 0; i < r->ntethers; ++i) {
      len[i] = lsim_tether_length(model, state, state->time, i);
      r->max_stretch = fmax(r->max_stretch, len[i] - model->tethers[i].length);
    }
  }
  if (r->njoints > 0) {
    /* Both from one evaluation of each joint's ends (lsim_joint_errors): the velocity
       error had been a build of every constraint row per state. */
    if (series_reserve(r, &r->s[S_J_ERROR], 1) < 0 ||
        series_reserve(r, &r->s[S_J_VERROR], 1) < 0)
      return r->status;
    double *e = series_row(&r->s[S_J_ERROR]), *ev = series_row(&r->s[S_J_VERROR]);
    for (int j = 0; j < r->njoints; ++j) {
      lsim_joint_errors(model, state, state->time, j, &e[j], &ev[j]);
      r->max_joint_error = fmax(r->max_joint_error, e[j]);
    }
  }
  return 0;
}

/* Buffers one step's tether and joint rows: impulses from the step's contacts of kind
 * TETHER (by source) and EQUALITY (by source, a joint's rows in order); taut from the
 * impulse and the length of the state just buffered. */
static int append_constraints(LsimRecord *r, const LsimModel *model,
                              const LsimContactSet *contacts) {
  if (r->ntethers == 0 && r->njoints == 0) return 0;
  if (r->ntethers > 0)
    memset(r->tether_impulse, 0, (size_t)r->ntethers * sizeof *r->tether_impulse);
  if (r->njoints > 0)
    memset(r->joint_impulse, 0, (size_t)r->njoints * 3 * sizeof *r->joint_impulse);
  int last = -1, row = 0;
  for (int i = 0; contacts && i < contacts->count; ++i) {
    const LsimContact *c = &contacts->contacts[i];
    if (c->kind == LSIM_CONTACT_TETHER && c->source >= 0 && c->source < r->ntethers) {
      r->tether_impulse[c->source] = c->normal_impulse;
    } else if (c->kind == LSIM_CONTACT_EQUALITY && c->source >= 0 && c->source < r->njoints) {
      row = c->source == last ? row + 1 : 0;
      last = c->source;
      if (row < 3) r->joint_impulse[3 * c->source + row] = c->normal_impulse;
    }
  }
  if (r->ntethers > 0) {
    Series *ls = &r->s[S_T_LENGTH];
    const double *len = (const double *)(ls->buf + (ls->nbuf - 1) * ls->width * ls->esize);
    memcpy(series_row(&r->s[S_T_IMPULSE]), r->tether_impulse,
           (size_t)r->ntethers * sizeof *r->tether_impulse);
    int *taut = series_row(&r->s[S_T_TAUT]);
    for (int i = 0; i < r->ntethers; ++i)
      taut[i] = r->tether_impulse[i] > 0.0 || len[i] >= model->tethers[i].length - LSIM_TAUT_TOL;
  }
  if (r->njoints > 0)
    memcpy(series_row(&r->s[S_J_IMPULSE]), r->joint_impulse,
           (size_t)r->njoints * 3 * sizeof *r->joint_impulse);
  return 0;
}

/* Buffers one contact-offset entry. */
static int append_offset(LsimRecord *r, int64_t value) {
  if (series_reserve(r, &r->s[S_OFFSET], 1) < 0) return r->status;
  *(int64_t *)series_row(&r->s[S_OFFSET]) = value;
  return 0;
}

/* Frees r and everything it holds (closing datasets and the file). */
static void destroy(LsimRecord *r) {
  for (int k = 0; k < S_COUNT; ++k) {
    if (r->s[k].dset >= 0) H5Dclose(r->s[k].dset);
    free(r->s[k].buf);
  }
  for (int k = 0; k < 2 * R_COUNT; ++k)
    if (r->res[k] >= 0) H5Dclose(r->res[k]);
  if (r->flushed_rows >= 0) H5Dclose(r->flushed_rows);
  if (r->flushed_lcp >= 0) H5Dclose(r->flushed_lcp);
  if (r->flushed_events >= 0) H5Dclose(r->flushed_events);
  lsim_step_memory_free(&r->mem);
  if (r->file >= 0) H5Fclose(r->file);
  free(r->path);
  free(r->tether_impulse);
  free(r->joint_impulse);
  free(r);
}

/* Closes and removes the partial file, then frees r. */
static void discard(LsimRecord *r) {
  for (int k = 0; k < S_COUNT; ++k) {
    if (r->s[k].dset >= 0) H5Dclose(r->s[k].dset);
    r->s[k].dset = -1;
  }
  for (int k = 0; k < 2 * R_COUNT; ++k) {
    if (r->res[k] >= 0) H5Dclose(r->res[k]);
    r->res[k] = -1;
  }
  if (r->flushed_rows >= 0) H5Dclose(r->flushed_rows);
  if (r->flushed_lcp >= 0) H5Dclose(r->flushed_lcp);
  if (r->flushed_events >= 0) H5Dclose(r->flushed_events);
  r->flushed_rows = r->flushed_lcp = r->flushed_events = -1;
  if (r->file >= 0) H5Fclose(r->file);
  r->file = -1;
  lsim_outfile_discard(&r->out);
  destroy(r);
}

/* Copies msg into err (if given). */
static void set_err(char *err, size_t errlen, const char *msg) {
  if (err && errlen) snprintf(err, errlen, "%s", msg);
}

/* /bodies/inertia [nbodies, 3, 3] and /bodies/pose [nbodies, 7]: a static body's fixed
 * pose, a moving body's initial coordinates, in the q layout of the dimension (1-D x;
 * 2-D x, y, theta; 3-D x, y, z, qw, qx, qy, qz), unused columns 0. */
static void write_body_geometry(LsimRecord *r, const LsimModel *model,
                                const LsimState *initial) {
  if (r->status < 0) return;
  const int nb = model->nbodies;
  const int ncoord = model->dimension == 1 ? 1 : model->dimension == 2 ? 3 : 7;
  double *inertia = calloc((size_t)(nb > 0 ? nb : 1) * 9, sizeof *inertia);
  double *pose = calloc((size_t)(nb > 0 ? nb : 1) * 7, sizeof *pose);
  if (!inertia || !pose) {
    fail(r, LSIM_OUT_OF_MEMORY, "out of memory");
  } else {
    for (int i = 0; i < nb; ++i) {
      const LsimBody *b = &model->bodies[i];
      memcpy(inertia + 9 * i, b->inertia, sizeof b->inertia);
      const int moving = b->type != LSIM_BODY_STATIC && b->q_offset >= 0 &&
                         b->q_offset + ncoord <= model->nq;
      const double *c = moving ? initial->q + b->q_offset : b->pose;
      memcpy(pose + 7 * i, c, (size_t)ncoord * sizeof *pose);
    }
    hsize_t dims[3] = {(hsize_t)nb, 3, 3};
    write_array(r, "/bodies/inertia", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 3, dims, inertia,
                "kg*m^2");
    write_matrix(r, "/bodies/pose", nb, 7, pose, NULL);
  }
  free(inertia);
  free(pose);
}

/* The /shapes group: one entry per shape of model->shapes (sorted by body). */
static void write_shapes(LsimRecord *r, const LsimModel *model) {
  if (r->status < 0) return;
  const int ns = model->nshapes > 0 && model->shapes ? model->nshapes : 0;
  const size_t n = (size_t)(ns > 0 ? ns : 1);
  int *iv = malloc(n * sizeof *iv);
  double *dv = malloc(n * 4 * sizeof *dv);
  if (!iv || !dv) {
    fail(r, LSIM_OUT_OF_MEMORY, "out of memory");
    free(iv);
    free(dv);
    return;
  }
  const LsimShape *sh = model->shapes;
  if (ns > 0) write_strings(r, "/shapes/name", sh[0].name, sizeof(LsimShape), ns);
  else write_strings(r, "/shapes/name", "", 0, 0);
  for (int i = 0; i < ns; ++i) iv[i] = (int)sh[i].type;
  write_small(r, "/shapes/type", H5T_NATIVE_INT, H5T_STD_I32LE, ns, iv, NULL);
  for (int i = 0; i < ns; ++i) iv[i] = sh[i].body;
  write_small(r, "/shapes/body", H5T_NATIVE_INT, H5T_STD_I32LE, ns, iv, NULL);
  for (int i = 0; i < ns; ++i) memcpy(dv + 3 * i, sh[i].pos, sizeof sh[i].pos);
  write_matrix(r, "/shapes/position", ns, 3, dv, "m");
  for (int i = 0; i < ns; ++i) memcpy(dv + 4 * i, sh[i].rot, sizeof sh[i].rot);
  write_matrix(r, "/shapes/orientation", ns, 4, dv, NULL);
  for (int i = 0; i < ns; ++i) dv[i] = sh[i].radius;
  write_small(r, "/shapes/radius", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, ns, dv, "m");
  for (int i = 0; i < ns; ++i) memcpy(dv + 3 * i, sh[i].half, sizeof sh[i].half);
  write_matrix(r, "/shapes/half_extents", ns, 3, dv, "m");
  for (int i = 0; i < ns; ++i) dv[i] = sh[i].mu;
  write_small(r, "/shapes/mu", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, ns, dv, NULL);
  free(iv);
  free(dv);
}

/* Legends of the type codes and the names of one body's q and v components. */
static void write_legends(LsimRecord *r, int dimension) {
  static const char shape_legend[7][16] = {"0 segment", "1 halfline", "2 plane", "3 sphere",
                                           "4 box",     "5 capsule",  "6 point"};
  static const char body_legend[3][16] = {"0 dynamic", "1 static", "2 kinematic"};
  static const char q_names[3][7][8] = {{"x"},
                                        {"x", "y", "theta"},
                                        {"x", "y", "z", "qw", "qx", "qy", "qz"}};
  static const char v_names[3][6][8] = {{"vx"},
                                        {"vx", "vy", "omega"},
                                        {"vx", "vy", "vz", "wx", "wy", "wz"}};
  static const int nq_body[3] = {1, 3, 7}, nv_body[3] = {1, 3, 6};
  write_strings(r, "/parameters/shape_type_legend", shape_legend[0], sizeof shape_legend[0], 7);
  write_strings(r, "/parameters/body_type_legend", body_legend[0], sizeof body_legend[0], 3);
  const int d = dimension >= 1 && dimension <= 3 ? dimension - 1 : 0;
  write_strings(r, "/parameters/q_components", q_names[d][0], sizeof q_names[d][0],
                nq_body[d]);
  write_strings(r, "/parameters/v_components", v_names[d][0], sizeof v_names[d][0],
                nv_body[d]);
}

/* /tethers and /joints parameters (only when the model has them) and /parameters/baumgarte. */
static void write_constraint_header(LsimRecord *r, const LsimModel *model) {
  write_double(r, "/parameters/baumgarte", model->baumgarte, NULL);
  const int nt = r->ntethers, nj = r->njoints;
  if (r->status < 0 || (nt == 0 && nj == 0)) return;
  double *dv = malloc((size_t)(nt > nj ? nt : nj) * sizeof *dv);
  int *iv = malloc((size_t)(nj > 0 ? nj : 1) * sizeof *iv);
  char(*types)[4] = malloc((size_t)(nj > 0 ? nj : 1) * sizeof *types);
  if (!dv || !iv || !types) {
    fail(r, LSIM_OUT_OF_MEMORY, "out of memory");
  } else {
    if (nt > 0) {
      write_strings(r, "/tethers/name", model->tethers[0].name, sizeof(LsimTether), nt);
      for (int i = 0; i < nt; ++i) dv[i] = model->tethers[i].length;
      write_small(r, "/tethers/length_max", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, nt, dv, "m");
    }
    if (nj > 0) {
      write_strings(r, "/joints/name", model->joints[0].name, sizeof(LsimJoint), nj);
      for (int j = 0; j < nj; ++j) snprintf(types[j], sizeof types[j], "%s", model->joints[j].type == LSIM_JOINT_PIN ? "pin" : "rod");
      write_strings(r, "/joints/type", types[0], sizeof types[0], nj);
      for (int j = 0; j < nj; ++j) iv[j] = lsim_joint_rows(model, j);
      write_small(r, "/joints/rows", H5T_NATIVE_INT, H5T_STD_I32LE, nj, iv, NULL);
      for (int j = 0; j < nj; ++j) dv[j] = model->joints[j].type == LSIM_JOINT_ROD ? model->joints[j].length : 0.0;
      write_small(r, "/joints/length", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, nj, dv, "m");
      for (int j = 0; j < nj; ++j) iv[j] = !model->joints[j].no_collide;
      write_small(r, "/joints/collide", H5T_NATIVE_INT, H5T_STD_I32LE, nj, iv, NULL);
    }
  }
  free(dv);
  free(iv);
  free(types);
}

/* The file access of a record (record.h). Two things keep a killed run's file whole:
 * - HDF5's metadata cache keeps its dirty entries (dataset extents, chunk indexes) until
 *   H5Fflush instead of evicting them at any time, so the file's metadata changes only
 *   inside a flush;
 * - inside a flush the superblock, with the end of allocated space (EOA), is written last,
 *   after chunk indexes that may point to space allocated since the last flush. Space is
 *   taken in blocks of 1 MB for metadata and for raw data (HDF5's default: 2 kB), so the
 *   EOA a flush writes already covers what the next flushes allocate, but for the flush
 *   that starts a new block.
 * Measured on a fast event-driven run (a flush every few ms) killed with SIGKILL at random
 * times: 7 of 60 partial files did not read whole before ("addr overflow": a chunk past
 * the EOA), 2 of 40 with the first change alone, 1 of 160 with both and 256 kB blocks, 0
 * of 100 with 1 MB. The price: up to about 1 MB of allocated space a file leaves unused
 * (a 20-step pile_10 run: 431 kB -> 1.4 MB). */
int64_t lsim_record_fapl(void) {
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl < 0) return H5P_DEFAULT;
  H5AC_cache_config_t mdc;
  memset(&mdc, 0, sizeof mdc);
  mdc.version = H5AC__CURR_CACHE_CONFIG_VERSION;
  if (H5Pget_mdc_config(fapl, &mdc) < 0) return fapl;
  mdc.evictions_enabled = 0; /* which needs the cache's automatic resizing off */
  mdc.incr_mode = H5C_incr__off;
  mdc.flash_incr_mode = H5C_flash_incr__off;
  mdc.decr_mode = H5C_decr__off;
  H5Pset_mdc_config(fapl, &mdc);
  H5Pset_meta_block_size(fapl, 1 << 20);
  H5Pset_small_data_block_size(fapl, 1 << 20);
  return fapl;
}

/* The chunk index of the datasets made after this (record.h): HDF5 1.10's extensible
 * array, in place of the 1.8 format's v1 B-tree. A v1 B-tree node that fills (64 chunks)
 * splits: its root moves, and a kill inside the flush that writes the split (HDF5 writes
 * metadata in the order of its addresses) left the root an inner node over children not
 * yet written, and every row of the dataset unreadable ("wrong B-tree signature"). An
 * extensible array never moves or rewrites the entries it holds: it adds blocks, and
 * points to them from blocks already written, so a kill at any point leaves the chunks of
 * earlier flushes where the file says. Measured with a kill before each write of the flush
 * that splits (tests/e2e/killed_flush.sh): 3 of 70 files refused by --resume before, 0 of
 * 71 after. Only the datasets' format moves to 1.10: the superblock stays that of 1.8
 * (version 0), which a 1.10 superblock (version 3) is not: it records the file open for
 * writing, and a killed run's file then opened nowhere but with h5clear (HDF5 1.10, netCDF
 * 4.9, h5py: "file is already open for write"). */
int lsim_record_index_format(int64_t file) {
  return H5Fset_libver_bounds((hid_t)file, H5F_LIBVER_V110, H5F_LIBVER_V110) < 0 ? LSIM_IO_ERROR : 0;
}

int64_t lsim_record_create_file(const char *path, int evict_on_close, int user_block) {
  const hid_t fapl = (hid_t)lsim_record_fapl();
  if (fapl != H5P_DEFAULT && evict_on_close) H5Pset_evict_on_close(fapl, 1);
  /* The root group's name heap made large enough for every name the writer adds: linking
     /summary at the close moved a full heap, and a kill between the heap's new address
     and its new block reaching the file left every root name unreadable ("written by
     lcpsim (unknown)"); in place, the name is in the file before the entry that names it.
     Measured with a kill after each write of the last flush and the close
     (tests/e2e/killed_flush.sh): run files 2 of 110 refused before, 0 of 108 after; in
     hybrid-model and compare files "bad heap free list" at 1 of 29 and 2 of 104 points of
     the close before, none after. */
  hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
  if (fcpl >= 0) H5Pset_local_heap_size_hint(fcpl, 4096);
  /* Its symbol table node (HDF5's default: 8 names) made to hold 32: linking /problem_name
     and /summary at the close of a frictional contact set's comparison (19 root names)
     split a full node, and the B-tree's new entry reached the file before the new node
     ("bad symbol table node signature" at 5 of 7 points of the close); with room, a name
     goes into its node in place (groups made later are of the newer kind, without them). */
  if (fcpl >= 0) H5Pset_sym_k(fcpl, 0, 16);
  /* A run file's head (lcp/h5check.h): HDF5 leaves the user block to us. */
  if (fcpl >= 0 && user_block) H5Pset_userblock(fcpl, LSIM_H5_USER_BLOCK);
  hid_t file = -1;
  H5E_BEGIN_TRY { file = H5Fcreate(path, H5F_ACC_TRUNC, fcpl >= 0 ? fcpl : H5P_DEFAULT, fapl); }
  H5E_END_TRY;
  if (fcpl >= 0) H5Pclose(fcpl);
  if (fapl != H5P_DEFAULT) H5Pclose(fapl);
  if (file >= 0 && lsim_record_index_format(file) < 0) {
    H5Fclose(file);
    file = -1;
  }
  if (file >= 0 && user_block && put_head(file, LSIM_H5_MARK_PENDING) < 0) {
    H5Fclose(file);
    file = -1;
  }
  return file < 0 ? LSIM_IO_ERROR : (int64_t)file;
}

int lsim_record_open(LsimRecord **out, const char *path, const LsimModel *model,
                     const LsimState *initial, const char *scene_text,
                     const char *solver_name, char *err, size_t errlen) {
  if (out) *out = NULL;
  if (!out || !path || !model || !initial || model->nq < 0 || model->nv < 0 ||
      model->nbodies < 0 || (model->nbodies > 0 && !model->bodies)) {
    set_err(err, errlen, "record: invalid arguments");
    return LSIM_INVALID_INPUT;
  }
  /* HDF5's own error printing is replaced by our messages. */
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);

  LsimRecord *r = calloc(1, sizeof *r);
  size_t plen = strlen(path);
  if (r) {
    r->file = -1;
    for (int k = 0; k < S_COUNT; ++k) r->s[k].dset = -1;
    for (int k = 0; k < 2 * R_COUNT; ++k) r->res[k] = -1;
    r->flushed_rows = r->flushed_lcp = r->flushed_events = -1;
    r->path = malloc(plen + 1);
  }
  if (!r || !r->path) {
    set_err(err, errlen, "record: out of memory");
    if (r) destroy(r);
    return LSIM_OUT_OF_MEMORY;
  }
  memcpy(r->path, path, plen + 1);
  r->nq = model->nq;
  r->nv = model->nv;
  r->nbodies = model->nbodies;
  r->step0 = initial->step;
  r->every = 1;
  r->ntethers = model->ntethers > 0 && model->tethers ? model->ntethers : 0;
  r->njoints = model->njoints > 0 && model->joints ? model->njoints : 0;
  r->tether_impulse = calloc((size_t)r->ntethers + 1, sizeof *r->tether_impulse);
  r->joint_impulse = calloc((size_t)r->njoints * 3 + 1, sizeof *r->joint_impulse);
  if (!r->tether_impulse || !r->joint_impulse) {
    set_err(err, errlen, "record: out of memory");
    destroy(r);
    return LSIM_OUT_OF_MEMORY;
  }
  clock_gettime(CLOCK_MONOTONIC, &r->t0);

  /* Create the file under its own partial name (only a regular file is ever replaced;
     the system's reason when it cannot be made). */
  const int orc = lsim_outfile_begin(&r->out, path, r->msg, sizeof r->msg);
  if (orc) {
    set_err(err, errlen, r->msg);
    destroy(r);
    return orc;
  }
  r->file = (hid_t)lsim_record_create_file(r->out.partial, 1, 1); /* (evictions: trim_cache) */
  if (r->file < 0) {
    char what[4400];
    snprintf(what, sizeof what, "cannot create HDF5 file %s", r->out.partial);
    fail(r, LSIM_IO_ERROR, what);
    goto failed;
  }

  /* Version, scene text. */
  int fv = LSIM_RECORD_FORMAT_VERSION;
  write_small(r, "/format_version", H5T_NATIVE_INT, H5T_STD_I32LE, -1, &fv, NULL);
  write_strings(r, "/lcpsim_version", LSIM_VERSION, 0, -1);
  write_strings(r, "/scene_text", scene_text ? scene_text : "", 0, -1);

  /* Parameters. */
  write_int(r, "/parameters/dimension", model->dimension);
  write_double(r, "/parameters/time_step", model->time_step, "s");
  write_int(r, "/parameters/steps", model->steps);
  write_int(r, "/parameters/nbodies", model->nbodies);
  write_int(r, "/parameters/nq", model->nq);
  write_int(r, "/parameters/nv", model->nv);
  write_small(r, "/parameters/gravity", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 3, model->gravity,
              "m/s^2");
  write_double(r, "/parameters/ground_normal_gravity", model->ground_normal_gravity, "m/s^2");
  write_double(r, "/parameters/contact_margin", model->contact_margin, "m");
  write_double(r, "/parameters/max_correction_speed", model->max_correction_speed, "m/s");
  write_int(r, "/parameters/friction_directions", model->friction_directions);
  write_strings(r, "/parameters/solver_name",
                solver_name && solver_name[0] ? solver_name : model->solver.name, 0, -1);
  write_double(r, "/parameters/solver_tol", model->solver.tol, NULL);
  write_int(r, "/parameters/solver_max_iter", model->solver.max_iter);
  write_double(r, "/parameters/solver_omega", model->solver.omega, NULL);
  write_int(r, "/parameters/solver_warm_start", model->solver.warm_start);
  write_int(r, "/parameters/solver_threads", model->solver.threads);
  write_int(r, "/parameters/solver_sparse_limit", model->solver.sparse_limit);
  write_strings(r, "/parameters/solver_on_failure", lsim_on_failure_name(model->solver.on_failure), 0, -1);
  /* Sparse Lemke's settings, with the solvers that run it (lemke_sparse, and newton's
     fallback and lemke's LU run: lsim_solver_sparse_settings; other files unchanged):
     those in effect, the scene's solver keys (lemke_sparse) else the environment's
     (LSIM_BLOCK_START, LSIM_LU_SOLVE, LSIM_LU_REFACTOR) else the built-in ones, which a
     resumed run must take again (scene/resume.h). (The scene's 0 / "default" were recorded
     before, which left an environment's setting unknown; newton and lemke runs recorded
     none, so a resume under other settings took other pivots silently.) */
  LsimSolverOptions o = lsim_default_solver_options();
  o.block_start = model->solver.block_start;
  o.lu_solve = model->solver.lu_solve;
  o.lu_refactor = model->solver.lu_refactor;
  int block = 0, lu = 0, every = 0;
  const int sparse = lsim_solver_sparse_settings(
      solver_name && solver_name[0] ? solver_name : model->solver.name, &o, &block, &lu, &every);
  if (sparse < 0) {
    fail(r, LSIM_OUT_OF_MEMORY, "out of memory"); /* o is the validated scene's */
    goto failed;
  }
  if (sparse) {
    write_int(r, "/parameters/solver_block_start", block);
    write_strings(r, "/parameters/solver_lu_solve", lsim_lu_solve_name(lu), 0, -1);
    write_int(r, "/parameters/solver_lu_refactor", every);
    /* LSIM_TIES_SHORTCUT, which changes sparse Lemke's pivots (docs/solvers.md) */
    write_int(r, "/parameters/solver_ties_shortcut", lsim_resume_ties_shortcut());
  }
  /* lemke_sparse's principal pivoting budget in effect (the scene's solver.principal, else
     LSIM_PRINCIPAL, else 0): other bits where the phase solves, so a resumed run must take
     it again (scene/resume.h). Other solvers: none written. */
  o.principal = model->solver.principal;
  const int principal = lsim_solver_principal_setting(
      solver_name && solver_name[0] ? solver_name : model->solver.name, &o);
  if (principal >= 0) write_int(r, "/parameters/solver_principal", principal);
  /* pgs's sweep arithmetic in effect (the scene's solver.precision, else
     LSIM_PGS_PRECISION, else double): other bits in single precision, so a resumed run
     must take it again (scene/resume.h). Other solvers: none written. */
  o.precision = model->solver.precision;
  o.tol = model->solver.tol, o.max_iter = model->solver.max_iter; /* where it acts */
  const int precision = lsim_solver_precision_setting(
      solver_name && solver_name[0] ? solver_name : model->solver.name, &o);
  if (precision >= 0)
    write_strings(r, "/parameters/solver_precision", precision ? "float" : "double", 0, -1);
  /* PGS's coloured sweep on LSIM_SIMD=reference, whose bits are not the other paths':
     recorded so that a resumed run takes it again (other files unchanged). */
  if (lsim_record_simd_reference()) write_strings(r, "/parameters/solver_simd", "reference", 0, -1);
  if (model->dimension == 3) {
    /* How free 3-D bodies turn (the scene's "rotation"; contact/step.c, rotation_step). */
    write_strings(r, "/parameters/rotation",
                  model->rotation == LSIM_ROTATION_BODY_MIDPOINT ? "body_midpoint" : "lie_midpoint", 0, -1);
  }
  if (model->sleep.enabled) {
    /* Sleeping (contact/sleep.c): its settings, only when on (files without it unchanged). */
    write_double(r, "/parameters/sleep_linear_speed", model->sleep.linear_speed, "m/s");
    write_double(r, "/parameters/sleep_angular_speed", model->sleep.angular_speed, "rad/s");
    write_double(r, "/parameters/sleep_time", model->sleep.time, "s");
  }

  /* Bodies: one entry per body, gathered into small arrays (header only). */
  int nb = model->nbodies;
  int *iv = malloc((size_t)(nb > 0 ? nb : 1) * sizeof *iv);
  double *dv = malloc((size_t)(nb > 0 ? nb : 1) * sizeof *dv);
  if (!iv || !dv) fail(r, LSIM_OUT_OF_MEMORY, "out of memory");
  if (nb > 0) write_strings(r, "/bodies/name", model->bodies[0].name, sizeof(LsimBody), nb);
  else write_strings(r, "/bodies/name", "", 0, 0);
#define BODY_INTS(field, name)                                                    \
  if (r->status == 0) {                                                           \
    for (int i = 0; i < nb; ++i) iv[i] = (int)model->bodies[i].field;             \
    write_small(r, name, H5T_NATIVE_INT, H5T_STD_I32LE, nb, iv, NULL);            \
  }
#define BODY_DOUBLES(field, name, unit)                                           \
  if (r->status == 0) {                                                           \
    for (int i = 0; i < nb; ++i) dv[i] = model->bodies[i].field;                  \
    write_small(r, name, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, nb, dv, unit);        \
  }
  BODY_INTS(type, "/bodies/type")
  BODY_INTS(shape, "/bodies/shape")
  BODY_DOUBLES(mass, "/bodies/mass", "kg")
  BODY_DOUBLES(width, "/bodies/width", "m")
  BODY_DOUBLES(ground_mu, "/bodies/ground_mu", NULL)
  BODY_INTS(side, "/bodies/side")
  BODY_INTS(q_offset, "/bodies/q_offset")
  BODY_INTS(v_offset, "/bodies/v_offset")
  BODY_INTS(nq, "/bodies/nq")
  BODY_INTS(nv, "/bodies/nv")
  BODY_INTS(first_shape, "/bodies/first_shape")
  BODY_INTS(nshapes, "/bodies/nshapes")
#undef BODY_INTS
#undef BODY_DOUBLES
  free(iv);
  free(dv);
  write_body_geometry(r, model, initial);
  write_shapes(r, model);
  write_legends(r, model->dimension);
  write_constraint_header(r, model);

  /* Status legend: "code name" for every LsimStatus code. */
  char legend[11][32];
  for (int c = -9; c <= 1; ++c)
    snprintf(legend[c + 9], sizeof legend[0], "%d %s", c, lsim_status_name(c));
  write_strings(r, "/solver/status_legend", legend[0], sizeof legend[0], 11);
  /* Source legend: "code name" of what produced each step's impulses (lcp/solver.h). */
  char sources[LSIM_SOURCE_COUNT][32];
  for (int c = 0; c < LSIM_SOURCE_COUNT; ++c)
    snprintf(sources[c], sizeof sources[0], "%d %s", c, lsim_source_name(c));
  write_strings(r, "/solver/source_legend", sources[0], sizeof sources[0], LSIM_SOURCE_COUNT);
  /* SIMD legend: "code name" of the instruction set the PGS sweep ran on (lcp/pgs.h). */
  static const char simd_legend[6][16] = {"0 none", "1 scalar", "2 sse2", "3 avx2", "4 reference", "5 avx512"};
  write_strings(r, "/solver/simd_legend", simd_legend[0], sizeof simd_legend[0], 6);

  /* The series: state rows, solver rows, contact offsets, contact rows. */
  size_t cs = LSIM_RECORD_FLUSH_STEPS + 2;
  hid_t D = H5T_NATIVE_DOUBLE, FD = H5T_IEEE_F64LE, I = H5T_NATIVE_INT, FI = H5T_STD_I32LE;
  series_create(r, S_TIME, "/time", D, FD, 0, 0, cs, "s");
  series_create(r, S_Q, "/q", D, FD, 1, (size_t)r->nq, cs, NULL);
  series_create(r, S_V, "/v", D, FD, 1, (size_t)r->nv, cs, NULL);
  series_create(r, S_KINETIC, "/energy/kinetic", D, FD, 0, 0, cs, "J");
  series_create(r, S_POTENTIAL, "/energy/potential", D, FD, 0, 0, cs, "J");
  series_create(r, S_STATUS, "/solver/status", I, FI, 0, 0, cs, NULL);
  series_create(r, S_ITER, "/solver/iterations", I, FI, 0, 0, cs, NULL);
  series_create(r, S_LCP_SIZE, "/solver/lcp_size", I, FI, 0, 0, cs, NULL);
  series_create(r, S_NCONTACTS, "/solver/ncontacts", I, FI, 0, 0, cs, NULL);
  series_create(r, S_WARM, "/solver/warm_started", I, FI, 0, 0, cs, NULL);
  series_create(r, S_RESIDUAL, "/solver/residual", D, FD, 0, 0, cs, "N*s");
  series_create(r, S_RELRES, "/solver/relative_residual", D, FD, 0, 0, cs, NULL);
  series_create(r, S_WALL, "/solver/wall_time", D, FD, 0, 0, cs, "s");
  series_create(r, S_SICONOS, "/solver/siconos_error", D, FD, 0, 0, cs, NULL);
  series_create(r, S_FIRST_STATUS, "/solver/first_status", I, FI, 0, 0, cs, NULL);
  series_create(r, S_SOURCE, "/solver/source", I, FI, 0, 0, cs, NULL);
  series_create(r, S_SIMD, "/solver/simd", I, FI, 0, 0, cs, NULL);
  series_create(r, S_GUARD, "/solver/energy_guard", I, FI, 0, 0, cs, NULL);
  series_create(r, S_REFUSED, "/solver/refused_energy", D, FD, 0, 0, cs, "J");
  series_create(r, S_ADMIT, "/solver/admission_reruns", I, FI, 0, 0, cs, NULL);
  if (model->sleep.enabled) series_create(r, S_SLEEPING, "/solver/sleeping", I, FI, 0, 0, cs, NULL);
  if (r->ntethers > 0) {
    const size_t nt = (size_t)r->ntethers;
    series_create(r, S_T_LENGTH, "/tethers/length", D, FD, 1, nt, cs, "m");
    series_create(r, S_T_IMPULSE, "/tethers/impulse", D, FD, 1, nt, cs, "N*s");
    series_create(r, S_T_TAUT, "/tethers/taut", I, FI, 1, nt, cs, NULL);
  }
  if (r->njoints > 0) {
    series_create3(r, S_J_IMPULSE, "/joints/impulse", D, FD, 1, (size_t)r->njoints, 3, cs, "N*s");
    series_create(r, S_J_ERROR, "/joints/error", D, FD, 1, (size_t)r->njoints, cs, "m");
    series_create(r, S_J_VERROR, "/joints/velocity_error", D, FD, 1, (size_t)r->njoints, cs, "m/s");
  }
  series_create(r, S_OFFSET, "/contacts/offset", H5T_NATIVE_INT64, H5T_STD_I64LE, 0, 0, cs,
                NULL);
  size_t cc = 256;
  series_create(r, S_C_STEP, "/contacts/step", I, FI, 0, 0, cc, NULL);
  series_create(r, S_C_ID, "/contacts/id", H5T_NATIVE_UINT64, H5T_STD_U64LE, 0, 0, cc, NULL);
  series_create(r, S_C_KIND, "/contacts/kind", I, FI, 0, 0, cc, NULL);
  series_create(r, S_C_A, "/contacts/body_a", I, FI, 0, 0, cc, NULL);
  series_create(r, S_C_B, "/contacts/body_b", I, FI, 0, 0, cc, NULL);
  series_create(r, S_C_GAP, "/contacts/gap", D, FD, 0, 0, cc, "m");
  series_create(r, S_C_POINT, "/contacts/point", D, FD, 1, 3, cc, "m");
  series_create(r, S_C_NORMAL, "/contacts/normal", D, FD, 1, 3, cc, NULL);
  series_create(r, S_C_NIMP, "/contacts/normal_impulse", D, FD, 0, 0, cc, "N*s");
  series_create(r, S_C_FIMP, "/contacts/friction_impulse", D, FD, 1, 3, cc, "N*s");
  series_create(r, S_C_SLIP, "/contacts/slip_speed", D, FD, 0, 0, cc, "m/s");

  /* Row 0: the initial state; offsets 0 and 0 (step 0 has no contacts). */
  if (r->status == 0) append_state(r, model, initial);
  if (r->status == 0) append_offset(r, 0);
  if (r->status == 0) append_offset(r, 0);
  /* Header and row 0 on disk at once: a killed run's partial file opens. */
  if (r->status == 0) flush_all(r);
  if (r->status < 0) goto failed;
  *out = r;
  return 0;

failed:;
  int status = r->status;
  set_err(err, errlen, r->msg);
  discard(r);
  return status;
}

int lsim_record_step(LsimRecord *r, const LsimModel *model, const LsimState *state,
                     const LsimContactSet *contacts, const LsimStepStats *stats) {
  if (!r) return LSIM_INVALID_INPUT;
  if (r->status < 0) return r->status;
  if (!model || !state || model->nq != r->nq || model->nv != r->nv ||
      (model->tethers ? model->ntethers : 0) != r->ntethers ||
      (model->joints ? model->njoints : 0) != r->njoints)
    return fail(r, LSIM_INVALID_INPUT, "record_step: model or state does not match the file");
  int nc = contacts ? contacts->count : 0;
  int step = r->steps + 1;

  /* The step before, when the stride skipped it, gives way to this one. */
  if (r->pending) {
    for (int k = 0; k < S_FIRST_EVENT; ++k)
      if (r->s[k].dset >= 0) r->s[k].nbuf -= k >= S_FIRST_CONTACT ? (size_t)r->pending_contacts : 1;
    r->ncontacts -= r->pending_contacts;
    r->pending = 0;
  }

  /* Make room first, so that a failure leaves no half-appended step. */
  for (int k = 0; k < S_FIRST_EVENT; ++k)
    if (r->s[k].dset >= 0 &&
        series_reserve(r, &r->s[k], k >= S_FIRST_CONTACT ? (size_t)nc : 1) < 0)
      return r->status;

  /* State row k. */
  append_state(r, model, state);

  /* Solver statistics row k-1 (zeros when none were given). */
  LsimStepStats zero;
  memset(&zero, 0, sizeof zero);
  const LsimStepStats *st = stats ? stats : &zero;
  *(int *)series_row(&r->s[S_STATUS]) = st->status;
  *(int *)series_row(&r->s[S_ITER]) = st->iterations;
  *(int *)series_row(&r->s[S_LCP_SIZE]) = st->lcp_size;
  *(int *)series_row(&r->s[S_NCONTACTS]) = st->ncontacts;
  *(int *)series_row(&r->s[S_WARM]) = st->warm_started;
  *(double *)series_row(&r->s[S_RESIDUAL]) = st->residual;
  *(double *)series_row(&r->s[S_RELRES]) = st->relative_residual;
  *(double *)series_row(&r->s[S_WALL]) = st->wall_time;
  *(double *)series_row(&r->s[S_SICONOS]) = st->siconos_error;
  *(int *)series_row(&r->s[S_FIRST_STATUS]) = st->first_status;
  *(int *)series_row(&r->s[S_SOURCE]) = st->source;
  *(int *)series_row(&r->s[S_SIMD]) = st->simd;
  *(int *)series_row(&r->s[S_GUARD]) = st->guard;
  *(double *)series_row(&r->s[S_REFUSED]) = st->refused_energy;
  *(int *)series_row(&r->s[S_ADMIT]) = st->admit_reruns;
  if (r->s[S_SLEEPING].dset >= 0) *(int *)series_row(&r->s[S_SLEEPING]) = st->sleeping;
  append_constraints(r, model, contacts);
  /* With a stride: the row's step, and the failed steps since the row before (this one's
     included: a failure between rows is counted in the next). */
  const int failed = st->status < 0 && !(st->status == LSIM_MAX_ITERATIONS && model->solver.tol == 0.0);
  r->failed_since += failed;
  if (r->s[S_STEP].dset >= 0) {
    *(int *)series_row(&r->s[S_STEP]) = r->step0 + step;
    *(int *)series_row(&r->s[S_FAILED]) = r->failed_since;
  }

  /* Contact rows and the offset where the next step's contacts start. */
  for (int i = 0; i < nc; ++i) {
    const LsimContact *c = &contacts->contacts[i];
    *(int *)series_row(&r->s[S_C_STEP]) = step;
    *(uint64_t *)series_row(&r->s[S_C_ID]) = c->id;
    *(int *)series_row(&r->s[S_C_KIND]) = (int)c->kind;
    *(int *)series_row(&r->s[S_C_A]) = c->body[0];
    *(int *)series_row(&r->s[S_C_B]) = c->body[1];
    *(double *)series_row(&r->s[S_C_GAP]) = c->gap;
    memcpy(series_row(&r->s[S_C_POINT]), c->point, sizeof c->point);
    memcpy(series_row(&r->s[S_C_NORMAL]), c->normal, sizeof c->normal);
    *(double *)series_row(&r->s[S_C_NIMP]) = c->normal_impulse;
    memcpy(series_row(&r->s[S_C_FIMP]), c->friction_impulse, sizeof c->friction_impulse);
    *(double *)series_row(&r->s[S_C_SLIP]) = c->slip_speed;
    const int constraint = c->kind == LSIM_CONTACT_TETHER || c->kind == LSIM_CONTACT_EQUALITY;
    if (!constraint && -c->gap > r->max_penetration) r->max_penetration = -c->gap;
  }
  r->ncontacts += nc;
  *(int64_t *)series_row(&r->s[S_OFFSET]) = r->ncontacts;
  if (nc > r->nc_peak) r->nc_peak = nc;

  /* Summary accumulators. */
  /* With tol 0 an iterative solver runs a fixed budget: its end (max_iterations) is the
     step's normal end, not a failure (as the command's summary line counts it). */
  if (st->status == LSIM_MAX_ITERATIONS && model->solver.tol == 0.0) r->budget_steps++;
  else if (st->status < 0) r->failures++;
  if (st->status > 0) r->warnings++;
  if (st->first_status < 0 && st->status >= 0) r->recovered++;
  if (st->residual > r->max_residual || isnan(st->residual)) r->max_residual = st->residual;
  r->solver_wall += st->wall_time;
  r->steps = step;

  /* A step the stride skips stays pending (the close keeps the last one); a step kept
     starts the count of failures again. Flushes come only after a step kept, so that the
     file's last row is the step of its /resume memory. */
  if ((r->step0 + step) % r->every != 0) {
    r->pending = 1;
    r->pending_contacts = nc;
    return 0;
  }
  r->failed_since = 0;

  /* Flush every LSIM_RECORD_FLUSH_STEPS steps or LSIM_RECORD_FLUSH_SECONDS, whichever
     comes first, or sooner when contact rows or the buffers' bytes pile up (a bound on
     what a flush writes: next_flush_bytes). */
  r->steps_buffered++;
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  const double since = (double)(now.tv_sec - r->flushed.tv_sec) +
                       1e-9 * (double)(now.tv_nsec - r->flushed.tv_nsec);
  if (r->steps_buffered >= LSIM_RECORD_FLUSH_STEPS ||
      r->s[S_C_STEP].nbuf >= LSIM_RECORD_FLUSH_CONTACTS || since >= LSIM_RECORD_FLUSH_SECONDS ||
      buffered_bytes(r) >= LSIM_RECORD_FLUSH_BYTES) {
    const double events = (double)(r->s[S_E_TIME].nbuf) * row_bytes(r, S_FIRST_EVENT, S_COUNT);
    if (events > (double)r->events_peak) r->events_peak = (size_t)events;
    const int rc = flush_all(r);
    /* (a record that keeps no marks, the library's: whole from its first flush of steps) */
    if (rc == 0 && r->flushed_rows < 0) mark_whole(r);
    if (rc == 0) space_check(r);
    return r->status;
  }
  return 0;
}

const char *lsim_record_space_low(const LsimRecord *r) { return r ? r->space_low : ""; }

double lsim_record_file_bytes(const LsimRecord *r) { return r ? lsim_outfile_size(&r->out) : -1.0; }

int64_t lsim_record_hdf5_file(const LsimRecord *r) { return (int64_t)r->file; }

void lsim_record_set_end(LsimRecord *r, LsimRunEnd end, const char *reason) {
  if (!r) return;
  r->end = end;
  snprintf(r->end_reason, sizeof r->end_reason, "%s", reason ? reason : "");
}

const char *lsim_record_error(const LsimRecord *r) { return r && r->status < 0 ? r->msg : ""; }

int lsim_record_close(LsimRecord *r, int keep, char *err, size_t errlen) {
  if (!r) return 0;
  if (!keep) {
    discard(r);
    return 0;
  }
  flush_all(r); /* a pending step too: the last step is always in the file */
  r->pending = 0;

  /* Summary. */
  struct timespec t1;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double elapsed = (double)(t1.tv_sec - r->t0.tv_sec) +
                   1e-9 * (double)(t1.tv_nsec - r->t0.tv_nsec);
  int64_t total = r->ncontacts;
  /* /summary made unlinked, filled, flushed, and only then linked into the root (the
     close then adds the link alone, in the root's name heap in place): written in the
     close, its link could reach the file before the group's object header, and a kill
     between left every reader of the file failing on /summary ("bad object header version
     number", "wrong fractal heap header signature", "addr overflow": 7 of the 67 writes of
     a 700-step run's last flush and close, tests/e2e/killed_flush.sh). The datasets are
     made in the group (r->file stands for it while they are written). */
  const hid_t file = r->file;
  const hid_t group = r->status == 0 ? H5Gcreate_anon(file, H5P_DEFAULT, H5P_DEFAULT) : -1;
  if (r->status == 0 && group < 0) fail_write(r, "/summary");
  if (group >= 0) r->file = group;
  write_int(r, "steps_done", r->steps);
  write_int(r, "failures", r->failures);
  write_int(r, "budget_steps", r->budget_steps);
  write_int(r, "warnings", r->warnings);
  write_int(r, "recovered", r->recovered);
  write_double(r, "max_residual", r->max_residual, "N*s");
  write_small(r, "total_contacts", H5T_NATIVE_INT64, H5T_STD_I64LE, -1, &total, NULL);
  write_double(r, "max_penetration", r->max_penetration, "m");
  if (r->ntethers > 0) write_double(r, "max_tether_stretch", r->max_stretch, "m");
  if (r->njoints > 0) write_double(r, "max_joint_error", r->max_joint_error, "m");
  write_double(r, "solver_wall_time", r->solver_wall, "s");
  write_double(r, "wall_time_total", elapsed, "s");
  static const char *const end_names[] = {"completed", "stopped", "interrupted"};
  write_strings(r, "run_end", end_names[r->end], 0, -1);
  write_int(r, "run_end_step", r->steps);
  write_strings(r, "run_end_reason", r->end_reason, 0, -1);

  r->file = file;
  if (group >= 0) {
    if (r->status == 0 && H5Fflush(file, H5F_SCOPE_LOCAL) < 0) fail_write(r, "/summary");
    /* (a record not marked whole yet is whole as of this flush; the link is one write) */
    mark_whole(r);
    if (r->status == 0 && H5Olink(group, file, "summary", H5P_DEFAULT, H5P_DEFAULT) < 0)
      fail_write(r, "/summary");
    H5Gclose(group);
  }

  /* Close every dataset, then the file; rename only a complete file. */
  for (int k = 0; k < S_COUNT; ++k) {
    if (r->s[k].dset >= 0 && H5Dclose(r->s[k].dset) < 0) fail_write(r, r->s[k].name);
    r->s[k].dset = -1;
  }
  for (int k = 0; k < 2 * R_COUNT; ++k) {
    if (r->res[k] >= 0 && H5Dclose(r->res[k]) < 0) fail_write(r, "/resume");
    r->res[k] = -1;
  }
  if (r->flushed_rows >= 0 && H5Dclose(r->flushed_rows) < 0) fail_write(r, "/flushed_rows");
  if (r->flushed_lcp >= 0 && H5Dclose(r->flushed_lcp) < 0) fail_write(r, "/flushed_lcp_problems");
  if (r->flushed_events >= 0 && H5Dclose(r->flushed_events) < 0) fail_write(r, "/flushed_events");
  r->flushed_rows = r->flushed_lcp = r->flushed_events = -1;
  if (r->file >= 0 && H5Fclose(r->file) < 0) fail(r, LSIM_IO_ERROR, "cannot close the file");
  r->file = -1;
  /* Put in place: rename over a regular file (atomic), or write through to a device. */
  int committed = 1;
  if (r->status == 0) {
    char what[sizeof r->msg];
    if (lsim_outfile_commit(&r->out, what, sizeof what) < 0) {
      snprintf(r->msg, sizeof r->msg, "%s", what);
      r->status = LSIM_IO_ERROR;
      committed = 0; /* a whole file that could not be put in place is kept */
    }
  }
  int status = r->status;
  if (status < 0) set_err(err, errlen, r->msg);
  if (status < 0 && committed) discard(r);
  else destroy(r);
  return status;
}

int lsim_record_events_begin(LsimRecord *r, const char *integrator,
                             const char *const *kind_names, int nkinds, char *err,
                             size_t errlen) {
  if (!r) return LSIM_INVALID_INPUT;
  if (r->s[S_E_TIME].dset >= 0) {
    snprintf(err, errlen, "%s: the event table exists already", r->path);
    return LSIM_INVALID_INPUT;
  }
  char names[16][16];
  memset(names, 0, sizeof names);
  for (int k = 0; k < nkinds && k < 16; ++k) snprintf(names[k], sizeof names[k], "%s", kind_names[k]);
  write_strings(r, "/parameters/integrator", integrator, 0, -1);
  write_strings(r, "/events/kind_legend", names[0], sizeof names[0], nkinds < 16 ? nkinds : 16);
  /* Extendable like the steps' series: flushed with them, so a killed run keeps its
     events up to the last flush. */
  series_create(r, S_E_TIME, "/events/time", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 0, 0, 64, "s");
  series_create(r, S_E_KIND, "/events/kind", H5T_NATIVE_INT, H5T_STD_I32LE, 0, 0, 64, NULL);
  series_create(r, S_E_CONTACT, "/events/contact", H5T_NATIVE_UINT64, H5T_STD_U64LE, 0, 0, 64,
                NULL);
  series_create(r, S_E_A, "/events/body_a", H5T_NATIVE_INT, H5T_STD_I32LE, 0, 0, 64, NULL);
  series_create(r, S_E_B, "/events/body_b", H5T_NATIVE_INT, H5T_STD_I32LE, 0, 0, 64, NULL);
  /* Its marks of whole flushes, as a time-stepping run's (mark_flushed), from this flush. */
  make_marks(r);
  if (r->status == 0) flush_all(r);
  if (r->status < 0) {
    snprintf(err, errlen, "%s", r->msg);
    return r->status;
  }
  return 0;
}

int lsim_record_event(LsimRecord *r, double t, int kind, uint64_t contact, int body_a,
                      int body_b) {
  if (!r) return LSIM_INVALID_INPUT;
  if (r->status < 0) return r->status;
  if (r->s[S_E_TIME].dset < 0)
    return fail(r, LSIM_INVALID_INPUT, "record_event: no event table (lsim_record_events_begin)");
  for (int k = S_FIRST_EVENT; k < S_COUNT; ++k)
    if (series_reserve(r, &r->s[k], 1) < 0) return r->status;
  *(double *)series_row(&r->s[S_E_TIME]) = t;
  *(int *)series_row(&r->s[S_E_KIND]) = kind;
  *(uint64_t *)series_row(&r->s[S_E_CONTACT]) = contact;
  *(int *)series_row(&r->s[S_E_A]) = body_a;
  *(int *)series_row(&r->s[S_E_B]) = body_b;
  return 0;
}

int lsim_record_events(LsimRecord *r, const char *integrator, int n, const double *t,
                       const int *kind, const uint64_t *contact, const int *body_a,
                       const int *body_b, const char *const *kind_names, int nkinds,
                       char *err, size_t errlen) {
  int rc = lsim_record_events_begin(r, integrator, kind_names, nkinds, err, errlen);
  for (int i = 0; !rc && i < n; ++i)
    rc = lsim_record_event(r, t[i], kind[i], contact[i], body_a[i], body_b[i]);
  if (rc < 0 && r && r->status < 0) snprintf(err, errlen, "%s", r->msg);
  return rc;
}

void lsim_record_keep_memory(LsimRecord *r, const LsimStepper *stepper, const LsimModel *model,
                             const LsimState *state) {
  if (!r) return;
  r->mem_stepper = stepper;
  r->mem_model = model;
  r->mem_state = state;
  /* At once: a run killed before its first flush of steps can be continued from its
     start. */
  if (r->status == 0) flush_all(r);
}

int lsim_record_set_every(LsimRecord *r, int every, char *err, size_t errlen) {
  if (!r) return LSIM_INVALID_INPUT;
  if (r->status < 0) {
    set_err(err, errlen, r->msg);
    return r->status;
  }
  if (every < 1 || r->steps != 0 || r->s[S_STEP].dset >= 0 || r->s[S_E_TIME].dset >= 0) {
    snprintf(err, errlen, "%s: record_every %d: %s", r->path, every,
             every < 1 ? "need an integer >= 1" : "set once, before the first step");
    return LSIM_INVALID_INPUT;
  }
  r->every = every;
  write_int(r, "/parameters/record_every", every);
  if (every > 1) {
    /* Row 0's step: the state the record was opened with. */
    const size_t cs = LSIM_RECORD_FLUSH_STEPS + 2;
    series_create(r, S_STEP, "/step", H5T_NATIVE_INT, H5T_STD_I32LE, 0, 0, cs, NULL);
    series_create(r, S_FAILED, "/solver/failed_steps", H5T_NATIVE_INT, H5T_STD_I32LE, 0, 0, cs,
                  NULL);
    if (r->status == 0 && series_reserve(r, &r->s[S_STEP], 1) == 0)
      *(int *)series_row(&r->s[S_STEP]) = r->step0;
  }
  if (r->status == 0) flush_all(r);
  if (r->status < 0) {
    set_err(err, errlen, r->msg);
    return r->status;
  }
  return 0;
}

/* Reads rows [from, from + count) of the dataset name of src (rank 1 .. 3, trailing
 * dimensions those of s) into buf as s's memory type. 0 or < 0 (r's error). */
static int read_rows(LsimRecord *r, hid_t src, const Series *s, const char *name, hsize_t from,
                     size_t count, void *buf) {
  if (count == 0) return 0;
  hid_t d = H5Dopen2(src, name, H5P_DEFAULT);
  hid_t fspace = d >= 0 ? H5Dget_space(d) : -1;
  hsize_t dims[3] = {0, 0, 0};
  const int rank = fspace >= 0 ? H5Sget_simple_extent_ndims(fspace) : -1;
  int ok = rank == s->rank && H5Sget_simple_extent_dims(fspace, dims, NULL) == rank &&
           (rank < 2 || dims[1] == s->cols) && (rank < 3 || dims[2] == s->cols2) &&
           from + count <= dims[0];
  if (ok && s->width > 0) {
    hsize_t start[3] = {from, 0, 0}, cnt[3] = {count, s->cols, s->cols2};
    hid_t mspace = H5Screate_simple(s->rank, cnt, NULL);
    ok = mspace >= 0 && H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, cnt, NULL) >= 0 &&
         H5Dread(d, s->mtype, mspace, fspace, H5P_DEFAULT, buf) >= 0;
    if (mspace >= 0) H5Sclose(mspace);
  }
  if (fspace >= 0) H5Sclose(fspace);
  if (d >= 0) H5Dclose(d);
  if (ok) return 0;
  char what[200];
  snprintf(what, sizeof what, "cannot read rows %llu .. %llu of %s from the run continued",
           (unsigned long long)from, (unsigned long long)(from + count - 1), name);
  return fail(r, LSIM_IO_ERROR, what);
}

/* /joints/velocity_error rows 1 .. N of a continued run whose file lacks them: from its
 * /time, /q and /v rows, one state at a time. */
static void copy_velocity_errors(LsimRecord *r, const LsimModel *model, hid_t src, size_t N) {
  Series *s = &r->s[S_J_VERROR];
  LsimState st = {0};
  st.q = malloc((size_t)(r->nq > 0 ? r->nq : 1) * sizeof(double));
  st.v = malloc((size_t)(r->nv > 0 ? r->nv : 1) * sizeof(double));
  if (!st.q || !st.v) fail(r, LSIM_OUT_OF_MEMORY, "out of memory");
  for (size_t i = 1; r->status == 0 && i <= N; ++i) {
    if (read_rows(r, src, &r->s[S_TIME], "/time", i, 1, &st.time) < 0 ||
        (r->nq > 0 && read_rows(r, src, &r->s[S_Q], "/q", i, 1, st.q) < 0) ||
        (r->nv > 0 && read_rows(r, src, &r->s[S_V], "/v", i, 1, st.v) < 0) ||
        series_reserve(r, s, 1) < 0)
      break;
    double *ev = series_row(s);
    for (int j = 0; j < r->njoints; ++j) lsim_joint_errors(model, &st, st.time, j, NULL, &ev[j]);
    if (s->nbuf >= 4096) series_flush(r, s);
  }
  if (r->status == 0) series_flush(r, s);
  free(st.q), free(st.v);
}

/* A killed run's file (no /summary) is taken up to its last whole flush, /flushed_rows
 * rows (scene/resume.c): rows past it in an extent are a flush the kill cut short. */
static void flushed_rows_cap(hid_t src, hsize_t *rows) {
  int64_t whole = -1;
  if (H5Lexists(src, "/summary", H5P_DEFAULT) <= 0 && H5Lexists(src, "/flushed_rows", H5P_DEFAULT) > 0 &&
      H5LTread_dataset(src, "/flushed_rows", H5T_NATIVE_INT64, &whole) >= 0 && whole >= 1 &&
      (hsize_t)whole < *rows)
    *rows = (hsize_t)whole;
}

int lsim_record_copy_steps(LsimRecord *r, const char *src_path, int nsteps,
                           const LsimModel *model, char *err, size_t errlen) {
  if (!r || r->status < 0 || r->steps != 0 || nsteps < 0) {
    set_err(err, errlen, r && r->status < 0 ? r->msg : "record: copy_steps on a used record");
    return r && r->status < 0 ? r->status : LSIM_INVALID_INPUT;
  }
  /* Evict-on-close: read_rows opens a dataset per read, so the run's chunk indexes leave
     the cache after each (its default cache grew to 32 MB over a long run). */
  hid_t sfapl = H5Pcreate(H5P_FILE_ACCESS);
  if (sfapl >= 0) H5Pset_evict_on_close(sfapl, 1);
  hid_t src = H5Fopen(src_path, H5F_ACC_RDONLY, sfapl >= 0 ? sfapl : H5P_DEFAULT);
  if (sfapl >= 0) H5Pclose(sfapl);
  if (src < 0) {
    char what[LSIM_OUTFILE_PATH_MAX + 64];
    snprintf(what, sizeof what, "cannot open %s", src_path);
    fail(r, LSIM_IO_ERROR, what);
    set_err(err, errlen, r->msg);
    return r->status;
  }
  /* With a stride the rows are the steps kept; the last, step nsteps, goes when the stride
     would have skipped it (the continued run's rows are then those of one run), and the
     failures it counted carry over to the next row. The summary's accumulators over every
     step are in the /resume slot of step nsteps (the rows do not give them). */
  int src_every = 1;
  double sum[SUM_COUNT] = {0};
  if (H5Lexists(src, "/parameters/record_every", H5P_DEFAULT) > 0 &&
      H5LTread_dataset_int(src, "/parameters/record_every", &src_every) < 0)
    fail(r, LSIM_IO_ERROR, "cannot read /parameters/record_every of the run continued");
  if (r->status == 0 && src_every != r->every) {
    char what[160];
    snprintf(what, sizeof what, "the run continued has record_every %d, this record %d",
             src_every, r->every);
    fail(r, LSIM_INVALID_INPUT, what);
  }
  size_t N = (size_t)nsteps;
  if (r->status == 0 && r->every > 1) {
    hsize_t rows = 0;
    int last = -1, found = 0;
    if (H5LTget_dataset_info(src, "/step", &rows, NULL, NULL) < 0) rows = 0;
    flushed_rows_cap(src, &rows);
    if (rows < 1 || H5Lexists(src, "/solver/failed_steps", H5P_DEFAULT) <= 0) {
      fail(r, LSIM_IO_ERROR, "no /step or /solver/failed_steps in the run continued (record_every > 1)");
    } else if (read_rows(r, src, &r->s[S_STEP], "/step", rows - 1, 1, &last) == 0 && last != r->step0 + nsteps) {
      char what[160];
      snprintf(what, sizeof what, "the run continued ends at step %d (/step), not %d", last, nsteps);
      fail(r, LSIM_INVALID_INPUT, what);
    }
    N = rows - 1;
    if (r->status == 0 && N > 0 && (r->step0 + nsteps) % r->every != 0) {
      read_rows(r, src, &r->s[S_FAILED], "/solver/failed_steps", N - 1, 1, &r->failed_since);
      N--;
    }
    for (int slot = 0; r->status == 0 && slot < 2 && !found; ++slot) {
      char name[48];
      int step = -1;
      snprintf(name, sizeof name, "/resume/slot%d/step", slot);
      if (H5Lexists(src, "/resume", H5P_DEFAULT) <= 0 || H5Lexists(src, name, H5P_DEFAULT) <= 0 ||
          H5LTread_dataset_int(src, name, &step) < 0 || step != r->step0 + nsteps)
        continue;
      snprintf(name, sizeof name, "/resume/slot%d/summary", slot);
      hsize_t n = 0;
      found = H5Lexists(src, name, H5P_DEFAULT) > 0 && H5LTget_dataset_info(src, name, &n, NULL, NULL) >= 0 &&
              n == SUM_COUNT && H5LTread_dataset_double(src, name, sum) >= 0;
    }
    if (r->status == 0 && !found)
      fail(r, LSIM_IO_ERROR, "no /resume/slotS/summary of the last step in the run continued");
  }
  /* The contact rows the N rows' steps have: /contacts/offset[N + 1]. */
  int64_t K = 0;
  if (r->status == 0) read_rows(r, src, &r->s[S_OFFSET], "/contacts/offset", N + 1, 1, &K);
  if (r->status == 0 && K < 0) fail(r, LSIM_IO_ERROR, "negative /contacts/offset in the run continued");
  /* The summary's accumulators over the steps copied, as lsim_record_step keeps them, in
     blocks of 65536 steps (the whole run's rows took 24 bytes a step). */
  const size_t SB = 65536;
  int *status = malloc(SB * sizeof(int)), *first = malloc(SB * sizeof(int));
  double *res = malloc(SB * sizeof(double)), *wall = malloc(SB * sizeof(double));
  if (!status || !first || !res || !wall) fail(r, LSIM_OUT_OF_MEMORY, "out of memory");
  for (size_t at = 0; r->status == 0 && r->every == 1 && at < N; at += SB) {
    const size_t n = N - at < SB ? N - at : SB;
    read_rows(r, src, &r->s[S_STATUS], "/solver/status", at, n, status);
    read_rows(r, src, &r->s[S_FIRST_STATUS], "/solver/first_status", at, n, first);
    read_rows(r, src, &r->s[S_RESIDUAL], "/solver/residual", at, n, res);
    read_rows(r, src, &r->s[S_WALL], "/solver/wall_time", at, n, wall);
    for (size_t i = 0; r->status == 0 && i < n; ++i) {
      if (status[i] == LSIM_MAX_ITERATIONS && model->solver.tol == 0.0) r->budget_steps++;
      else if (status[i] < 0) r->failures++;
      if (status[i] > 0) r->warnings++;
      if (first[i] < 0 && status[i] >= 0) r->recovered++;
      if (res[i] > r->max_residual || isnan(res[i])) r->max_residual = res[i];
      r->solver_wall += wall[i];
    }
  }
  free(status), free(first), free(res), free(wall);
  /* Every series in blocks of at most 4 MB: state rows 1 .. N (row 0 is the scene's
     initial state, written at open), step rows 0 .. N - 1, offsets 2 .. N + 1, contact
     rows 0 .. K - 1. */
  for (int k = 0; r->status == 0 && k < S_FIRST_EVENT; ++k) {
    Series *s = &r->s[k];
    if (s->dset < 0) continue;
    const int state_row = k <= S_POTENTIAL || k == S_T_LENGTH || k == S_J_ERROR ||
                          k == S_J_VERROR || k == S_STEP;
    const size_t from = k == S_OFFSET ? 2 : state_row ? 1 : 0;
    const size_t rows = k >= S_FIRST_CONTACT ? (size_t)K : N;
    const size_t row_bytes = s->width * s->esize > 0 ? s->width * s->esize : 1;
    const size_t block = (4u << 20) / row_bytes > 0 ? (4u << 20) / row_bytes : 1;
    if (k == S_J_VERROR && H5Lexists(src, s->name, H5P_DEFAULT) <= 0) {
      /* A file written before /joints/velocity_error: computed from its states. */
      copy_velocity_errors(r, model, src, N);
      continue;
    }
    if ((k == S_GUARD || k == S_REFUSED || k == S_ADMIT) &&
        H5Lexists(src, s->name, H5P_DEFAULT) <= 0) {
      /* A file written before the energy guard (its steps were not judged) or before the
         admission check's re-runs: 0. */
      for (size_t at = 0; r->status == 0 && at < rows; at += block) {
        const size_t n = rows - at < block ? rows - at : block;
        if (series_reserve(r, s, n) < 0) break;
        memset(s->buf, 0, n * s->width * s->esize);
        s->nbuf = n;
        series_flush(r, s);
      }
      continue;
    }
    for (size_t at = 0; r->status == 0 && at < rows; at += block) {
      const size_t n = rows - at < block ? rows - at : block;
      if (series_reserve(r, s, n) < 0 || read_rows(r, src, s, s->name, from + at, n, s->buf) < 0) break;
      s->nbuf = n;
      /* The maxima over states of tether stretch and joint error. */
      for (size_t i = 0; k == S_T_LENGTH && i < n; ++i)
        for (int t = 0; t < r->ntethers; ++t)
          r->max_stretch = fmax(r->max_stretch, ((double *)s->buf)[i * s->width + t] - model->tethers[t].length);
      for (size_t i = 0; k == S_J_ERROR && i < n; ++i)
        for (int j = 0; j < r->njoints; ++j)
          r->max_joint_error = fmax(r->max_joint_error, ((double *)s->buf)[i * s->width + j]);
      series_flush(r, s);
      /* Each block's metadata to the file, then the cache trimmed: it held the chunk
         indexes of everything copied until the end. A resume killed here
         leaves a partial file whose rows disagree, which --resume refuses; RUN is intact. */
      if (r->status == 0 && H5Fflush(r->file, H5F_SCOPE_LOCAL) < 0)
        fail(r, LSIM_IO_ERROR, "cannot flush the file while copying the run continued");
      if (r->status == 0) trim_cache(r);
    }
    /* The block buffer goes (the run's steps need a few rows): each series kept its 4 MB,
       some 80 MB over a run's series. */
    if (s->nbuf == 0 && s->cap * s->width * s->esize > (64u << 10)) {
      free(s->buf);
      s->buf = NULL, s->cap = 0;
    }
  }
  /* The largest penetration over the contact rows (tether and joint rows left out). */
  for (size_t at = 0; r->status == 0 && r->every == 1 && at < (size_t)K; at += 65536) {
    const size_t n = (size_t)K - at < 65536 ? (size_t)K - at : 65536;
    int *kind = malloc(n * sizeof(int));
    double *gap = malloc(n * sizeof(double));
    if (!kind || !gap) fail(r, LSIM_OUT_OF_MEMORY, "out of memory");
    read_rows(r, src, &r->s[S_C_KIND], "/contacts/kind", at, n, kind);
    read_rows(r, src, &r->s[S_C_GAP], "/contacts/gap", at, n, gap);
    for (size_t i = 0; r->status == 0 && i < n; ++i) {
      const int constraint = kind[i] == LSIM_CONTACT_TETHER || kind[i] == LSIM_CONTACT_EQUALITY;
      if (!constraint && -gap[i] > r->max_penetration) r->max_penetration = -gap[i];
    }
    free(kind), free(gap);
  }
  H5Fclose(src);
  if (r->every > 1) {
    r->failures = (int)sum[SUM_FAILURES], r->budget_steps = (int)sum[SUM_BUDGET];
    r->warnings = (int)sum[SUM_WARNINGS], r->recovered = (int)sum[SUM_RECOVERED];
    r->max_residual = sum[SUM_MAX_RESIDUAL], r->solver_wall = sum[SUM_SOLVER_WALL];
    r->max_penetration = sum[SUM_MAX_PENETRATION], r->max_stretch = sum[SUM_MAX_STRETCH];
    r->max_joint_error = sum[SUM_MAX_JOINT_ERROR];
  }
  r->steps = nsteps;
  r->ncontacts = K;
  if (r->status == 0) flush_all(r);
  if (r->status < 0) set_err(err, errlen, r->msg);
  return r->status;
}
