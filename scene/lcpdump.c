/* lcpdump.c: LCP dumps in HDF5 files, written and read (lcpdump.h), and HDF5 helpers. */
#include "scene/lcpdump.h"

#include <errno.h>
#include <hdf5.h>
#include <hdf5_hl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lcp/h5check.h"
#include "lcp/quality.h"
#include "scene/outfile.h"
#include "scene/record.h"

/* ---- HDF5 helpers ---- */

static void set_err(char *err, size_t errlen, const char *fmt, const char *a, const char *b) {
  if (err && errlen) snprintf(err, errlen, fmt, a, b);
}

/* Memory and file types of an LsimH5Type. */
static hid_t mem_type(LsimH5Type t) {
  switch (t) {
    case LSIM_H5_I32: return H5T_NATIVE_INT;
    case LSIM_H5_I64: return H5T_NATIVE_INT64;
    case LSIM_H5_U64: return H5T_NATIVE_UINT64;
    default: return H5T_NATIVE_DOUBLE;
  }
}
static hid_t file_type(LsimH5Type t) {
  switch (t) {
    case LSIM_H5_I32: return H5T_STD_I32LE;
    case LSIM_H5_I64: return H5T_STD_I64LE;
    case LSIM_H5_U64: return H5T_STD_U64LE;
    default: return H5T_IEEE_F64LE;
  }
}

/* Link creation list making intermediate groups; dataset creation list without times
 * (so that two identical runs write identical object headers). */
static hid_t make_lcpl(void) {
  hid_t l = H5Pcreate(H5P_LINK_CREATE);
  if (l >= 0) H5Pset_create_intermediate_group(l, 1);
  return l;
}

/* The innermost entry of the stack (n = 0 walking upward). */
static herr_t walk_innermost(unsigned n, const H5E_error2_t *e, void *data) {
  char *buf = data;
  if (n == 0 && e->desc && e->desc[0]) snprintf(buf, 512, "%s", e->desc);
  return 0;
}

void lsim_h5_error_detail(char *buf, size_t len) {
  if (!buf || !len) return;
  char desc[512] = "";
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, walk_innermost, desc);
  H5Eclear2(H5E_DEFAULT);
  /* A system call's failure: "<what> failed: time = ..., errno = 28, error message = 'No
     space left on device', ...": keep what and the message. */
  const char *m = strstr(desc, "error message = '");
  const char *f = strstr(desc, " failed");
  if (m && f && f < m) {
    m += strlen("error message = '");
    const char *e = strchr(m, '\'');
    const int wl = (int)(f - desc) + 7, ml = e ? (int)(e - m) : (int)strlen(m);
    snprintf(buf, len, "%.*s: %.*s", wl, desc, ml, m);
    return;
  }
  snprintf(buf, len, "%s", desc);
}

void lsim_h5_no_atexit(void) { H5dont_atexit(); }

int64_t lsim_h5_create(const char *path, char *err, size_t errlen) {
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  /* Metadata at flushes only (scene/record.h): a killed writer's file reads whole as of
     its last lsim_h5_flush. */
  const int64_t f = lsim_record_create_file(path, 0, 0);
  if (f < 0) set_err(err, errlen, "%s: cannot create the HDF5 file%s", path, "");
  return f < 0 ? LSIM_IO_ERROR : (int64_t)f;
}

int lsim_h5_close(int64_t file) { return H5Fclose((hid_t)file) < 0 ? LSIM_IO_ERROR : 0; }

int lsim_h5_flush(int64_t file) {
  return H5Fflush((hid_t)file, H5F_SCOPE_LOCAL) < 0 ? LSIM_IO_ERROR : 0;
}

/* Writes a dataset of file type ftype from memory type mtype. */
static int write_typed(hid_t file, const char *name, hid_t mtype, hid_t ftype, int rank,
                       const uint64_t *dims, const void *data) {
  hsize_t hd[8];
  hsize_t total = 1;
  for (int k = 0; k < rank && k < 8; ++k) total *= (hd[k] = (hsize_t)dims[k]);
  hid_t space = rank == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(rank, hd, NULL);
  hid_t lcpl = make_lcpl();
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  if (dcpl >= 0) H5Pset_obj_track_times(dcpl, 0);
  hid_t d = (space >= 0 && lcpl >= 0 && dcpl >= 0)
                ? H5Dcreate2(file, name, ftype, space, lcpl, dcpl, H5P_DEFAULT)
                : -1;
  int ok = d >= 0 && (total == 0 || H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0);
  if (d >= 0) H5Dclose(d);
  if (dcpl >= 0) H5Pclose(dcpl);
  if (lcpl >= 0) H5Pclose(lcpl);
  if (space >= 0) H5Sclose(space);
  return ok ? 0 : LSIM_IO_ERROR;
}

int lsim_h5_write(int64_t file, const char *name, LsimH5Type type, int rank,
                  const uint64_t *dims, const void *data) {
  return write_typed((hid_t)file, name, mem_type(type), file_type(type), rank, dims, data);
}

int lsim_h5_write_strings(int64_t file, const char *name, const char *first, size_t stride,
                          int count) {
  const int m = count < 0 ? 1 : count;
  size_t len = 1;
  for (int i = 0; i < m; ++i) {
    const size_t l = strlen(first + (size_t)i * stride) + 1;
    if (l > len) len = l;
  }
  /* Pack into one zero-padded buffer. */
  char *buf = calloc(m > 0 ? (size_t)m : 1, len);
  if (!buf) return LSIM_OUT_OF_MEMORY;
  for (int i = 0; i < m; ++i)
    memcpy(buf + (size_t)i * len, first + (size_t)i * stride, strlen(first + (size_t)i * stride));
  hid_t t = H5Tcopy(H5T_C_S1);
  int rc = LSIM_IO_ERROR;
  if (t >= 0 && H5Tset_size(t, len) >= 0 && H5Tset_strpad(t, H5T_STR_NULLTERM) >= 0) {
    uint64_t dim = (uint64_t)m;
    rc = write_typed((hid_t)file, name, t, t, count < 0 ? 0 : 1, &dim, buf);
  }
  if (t >= 0) H5Tclose(t);
  free(buf);
  return rc;
}

/* ---- extendable datasets ---- */

/* A dataset [rows] or [rows, cols] with an unlimited first dimension, appended to. */
typedef struct Ext {
  hid_t d;
  hid_t loc;          /* where it was made, and its name there (ext_reopen) */
  char name[32];
  hid_t mtype;
  hid_t stype;        /* > 0: the string type (mtype and the file's), owned */
  int rank;
  hsize_t cols;
  hsize_t rows;
  hsize_t chunk_rows; /* the chunk's rows (lsim_lcpdump_bytes) */
} Ext;

/* Creates the dataset with access properties dapl (H5P_DEFAULT: HDF5's 1 MB chunk cache).
 * (e zeroed, or its stype set) */
static int ext_create_typed(Ext *e, hid_t loc, const char *name, hid_t mtype, hid_t ftype,
                            int rank, hsize_t cols, hsize_t chunk_rows, hid_t dapl) {
  e->d = -1;
  e->mtype = mtype;
  e->loc = loc;
  snprintf(e->name, sizeof e->name, "%s", name);
  e->rank = rank;
  e->cols = rank == 2 ? cols : 1;
  e->chunk_rows = chunk_rows;
  hsize_t dims[2] = {0, cols}, maxd[2] = {H5S_UNLIMITED, cols}, chunk[2] = {chunk_rows, cols};
  if (rank == 2 && cols == 0) chunk[1] = 1, maxd[1] = 1, dims[1] = 0;
  hid_t space = H5Screate_simple(rank, dims, maxd);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  if (dcpl >= 0) {
    H5Pset_chunk(dcpl, rank, chunk);
    H5Pset_obj_track_times(dcpl, 0);
  }
  hid_t lcpl = make_lcpl(); /* a path's groups are created with it */
  if (space >= 0 && dcpl >= 0 && lcpl >= 0)
    e->d = H5Dcreate2(loc, name, ftype, space, lcpl, dcpl, dapl);
  if (lcpl >= 0) H5Pclose(lcpl);
  if (dcpl >= 0) H5Pclose(dcpl);
  if (space >= 0) H5Sclose(space);
  return e->d >= 0 ? 0 : LSIM_IO_ERROR;
}

static int ext_create(Ext *e, hid_t loc, const char *name, LsimH5Type type, int rank,
                      hsize_t cols, hsize_t chunk_rows) {
  memset(e, 0, sizeof *e);
  return ext_create_typed(e, loc, name, mem_type(type), file_type(type), rank, cols,
                          chunk_rows, H5P_DEFAULT);
}

/* HDF5's reason for the last failed append, taken at once (the next HDF5 call clears its
 * stack; HDF5 here is serial, used from one thread). */
static char ext_why[256];

/* Appends nrows rows (nrows * cols values, C order) from data. */
static int ext_append(Ext *e, const void *data, hsize_t nrows) {
  if (nrows == 0 || e->cols == 0) {
    e->rows += nrows;
    return 0;
  }
  hsize_t size[2] = {e->rows + nrows, e->cols};
  if (H5Dset_extent(e->d, size) < 0) {
    lsim_h5_error_detail(ext_why, sizeof ext_why);
    return LSIM_IO_ERROR;
  }
  hid_t fs = H5Dget_space(e->d);
  hsize_t start[2] = {e->rows, 0}, count[2] = {nrows, e->cols};
  hid_t ms = H5Screate_simple(e->rank, count, NULL);
  int ok = fs >= 0 && ms >= 0 &&
           H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) >= 0 &&
           H5Dwrite(e->d, e->mtype, ms, fs, H5P_DEFAULT, data) >= 0;
  if (!ok) lsim_h5_error_detail(ext_why, sizeof ext_why);
  if (ms >= 0) H5Sclose(ms);
  if (fs >= 0) H5Sclose(fs);
  if (!ok) return LSIM_IO_ERROR;
  e->rows += nrows;
  return 0;
}

/* Closes the dataset and opens it again (with evict-on-close, which drops its cached
 * metadata: lsim_lcpdump_reopen). 0 or LSIM_IO_ERROR. */
static int ext_reopen(Ext *e) {
  if (e->d < 0) return 0;
  H5Dclose(e->d);
  e->d = H5Dopen2(e->loc, e->name, H5P_DEFAULT);
  return e->d >= 0 ? 0 : LSIM_IO_ERROR;
}

static void ext_close(Ext *e) {
  if (e->d >= 0) H5Dclose(e->d);
  e->d = -1;
  if (e->stype > 0) H5Tclose(e->stype);
  e->stype = 0;
}

/* The public face of Ext (lcpdump.h). */
struct LsimH5Rows {
  Ext e;
};

/* Creates r's dataset (r zeroed, or its stype set) with a chunk cache of one chunk of
 * chunk_rows rows of row_bytes each: rows are appended in order, so only the chunk being
 * filled is ever written again. HDF5's default 1 MB per dataset kept up to 16 full 64 kB
 * chunks of each of a comparison's 27 tables in memory (compare/output.c: 27 MB, reached
 * at about 3 x 10^4 steps of two solvers). Returns r, or NULL with r closed and freed. */
static LsimH5Rows *rows_create(LsimH5Rows *r, hid_t file, const char *name, hid_t mtype,
                               hid_t ftype, int rank, hsize_t cols, uint64_t chunk_rows,
                               size_t row_bytes) {
  const hsize_t rows = chunk_rows ? chunk_rows : 1;
  hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS);
  if (dapl >= 0) H5Pset_chunk_cache(dapl, 521, (size_t)rows * row_bytes, 1.0);
  const int rc = ext_create_typed(&r->e, file, name, mtype, ftype, rank, cols, rows,
                                  dapl >= 0 ? dapl : H5P_DEFAULT);
  if (dapl >= 0) H5Pclose(dapl);
  if (rc) {
    ext_close(&r->e);
    free(r);
    return NULL;
  }
  return r;
}

LsimH5Rows *lsim_h5_rows_create(int64_t file, const char *name, LsimH5Type type, int rank,
                                uint64_t cols, uint64_t chunk_rows) {
  LsimH5Rows *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  const size_t esize = type == LSIM_H5_I32 ? 4 : 8;
  return rows_create(r, (hid_t)file, name, mem_type(type), file_type(type), rank, cols,
                     chunk_rows, (size_t)(cols ? cols : 1) * esize);
}

LsimH5Rows *lsim_h5_rows_create_strings(int64_t file, const char *name, size_t len,
                                        uint64_t chunk_rows) {
  LsimH5Rows *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  const hid_t t = H5Tcopy(H5T_C_S1);
  if (t >= 0) r->e.stype = t;
  if (t < 0 || len == 0 || H5Tset_size(t, len) < 0 || H5Tset_strpad(t, H5T_STR_NULLTERM) < 0) {
    r->e.d = -1;
    ext_close(&r->e);
    free(r);
    return NULL;
  }
  return rows_create(r, (hid_t)file, name, t, t, 1, 1, chunk_rows, len);
}

int lsim_h5_rows_append(LsimH5Rows *r, const void *data, uint64_t nrows) {
  return r ? ext_append(&r->e, data, nrows) : LSIM_IO_ERROR;
}

uint64_t lsim_h5_rows_count(const LsimH5Rows *r) { return r ? r->e.rows : 0; }

void lsim_h5_rows_close(LsimH5Rows *r) {
  if (!r) return;
  ext_close(&r->e);
  free(r);
}

/* ---- writing a dump ---- */

enum { X_M, X_Q, X_WARM, X_Z, X_CN, X_CD, X_CK, X_CL, X_CMU, X_CFN, X_CU,
       /* the factored form: row (column) pointers per problem, then entries */
       X_JP, X_JI, X_JV, X_BP, X_BI, X_BV, X_CP, X_CI, X_CV,
       /* the index, appended problem by problem */
       X_STEP, X_SERIES, X_N, X_NCONES, X_HASH, X_MOFF, X_VOFF, X_COFF,
       X_DENSE, X_INNER, X_FHASH, X_POFF, X_JOFF, X_BOFF, X_CCOFF, X_COUNT };

/* The index offsets, one [nprob + 1] array each. */
enum { O_M, O_V, O_C, O_P, O_J, O_B, O_CC, O_COUNT };

struct LsimLcpDump {
  hid_t group;
  Ext x[X_COUNT];
  int nsol;
  int default_series;
  char (*labels)[64];
  /* The index, kept in memory too (a few numbers per problem). */
  int nprob, cap;
  int *step, *series, *n, *ncones, *dense, *inner;
  uint64_t *hash, *fhash;
  int64_t *off[O_COUNT];          /* [cap + 1] each */
  double *row;                    /* [row_cap * nsol] one problem's z, C order */
  size_t row_cap;
  int cone_cap;
  int *ci;                        /* [cone_cap] cone integer scratch */
  double *cd;                     /* [cone_cap] */
  int *pz;                        /* [pz_cap] n + 1 zeros (a problem without C) */
  int pz_cap;
  int status;
  char msg[512];
};

/* Records the first error of the dump: "LCP dump: step K: what[: HDF5's reason]". */
static int dump_fail(LsimLcpDump *d, int status, int step, const char *what) {
  if (d->status) return d->status;
  d->status = status;
  char detail[256] = "";
  if (status == LSIM_IO_ERROR) snprintf(detail, sizeof detail, "%s", ext_why);
  ext_why[0] = '\0';
  snprintf(d->msg, sizeof d->msg, "LCP dump: step %d: %s%s%s", step, what, detail[0] ? ": " : "",
           detail);
  return status;
}

int lsim_lcpdump_reopen(void *dump) {
  LsimLcpDump *d = dump;
  if (!d || d->status) return 0;
  for (int k = 0; k < X_COUNT; ++k)
    if (ext_reopen(&d->x[k])) return dump_fail(d, LSIM_IO_ERROR, 0, "reopening a dataset");
  return 0;
}

int lsim_lcpdump_count(const LsimLcpDump *d) { return d ? d->nprob : 0; }

double lsim_lcpdump_bytes(const LsimLcpDump *d, double *chunk_bytes) {
  double b = 0.0, c = 0.0;
  for (int k = 0; d && k < X_COUNT; ++k) {
    if (d->x[k].d < 0) continue;
    const double row = (double)d->x[k].cols * (double)H5Tget_size(d->x[k].mtype);
    b += (double)d->x[k].rows * row;
    c += (double)d->x[k].chunk_rows * row;
  }
  if (chunk_bytes) *chunk_bytes = c;
  return b;
}

const char *lsim_lcpdump_error(const LsimLcpDump *d) { return d && d->status ? d->msg : ""; }

int lsim_lcpdump_open(LsimLcpDump **out, int64_t file, const char *group, int nsolutions,
                      const char *const *labels, int default_series, char *err,
                      size_t errlen) {
  *out = NULL;
  LsimLcpDump *d = calloc(1, sizeof *d);
  if (!d || nsolutions < 1 || !(d->labels = calloc((size_t)nsolutions, sizeof *d->labels))) {
    free(d);
    set_err(err, errlen, "LCP dump: %s%s", nsolutions < 1 ? "no solution columns" : "out of memory", "");
    return nsolutions < 1 ? LSIM_INVALID_INPUT : LSIM_OUT_OF_MEMORY;
  }
  d->nsol = nsolutions;
  d->default_series = default_series;
  for (int j = 0; j < nsolutions; ++j)
    snprintf(d->labels[j], sizeof d->labels[j], "%s", labels && labels[j] ? labels[j] : "");
  for (int k = 0; k < X_COUNT; ++k) d->x[k].d = -1;

  /* The group and its extendable datasets. */
  hid_t lcpl = make_lcpl();
  d->group = lcpl >= 0 ? H5Gcreate2((hid_t)file, group, lcpl, H5P_DEFAULT, H5P_DEFAULT) : -1;
  if (lcpl >= 0) H5Pclose(lcpl);
  int rc = d->group >= 0 ? 0 : LSIM_IO_ERROR;
  const hsize_t ch = 4096;
  if (!rc) rc = ext_create(&d->x[X_M], d->group, "M", LSIM_H5_F64, 1, 1, ch);
  if (!rc) rc = ext_create(&d->x[X_Q], d->group, "q", LSIM_H5_F64, 1, 1, ch);
  if (!rc) rc = ext_create(&d->x[X_WARM], d->group, "warm", LSIM_H5_F64, 1, 1, ch);
  if (!rc) rc = ext_create(&d->x[X_Z], d->group, "z", LSIM_H5_F64, 2, (hsize_t)nsolutions, 512);
  if (!rc) rc = ext_create(&d->x[X_CN], d->group, "cone_normal", LSIM_H5_I32, 1, 1, 1024);
  if (!rc) rc = ext_create(&d->x[X_CD], d->group, "cone_first_dir", LSIM_H5_I32, 1, 1, 1024);
  if (!rc) rc = ext_create(&d->x[X_CK], d->group, "cone_ndir", LSIM_H5_I32, 1, 1, 1024);
  if (!rc) rc = ext_create(&d->x[X_CL], d->group, "cone_lambda", LSIM_H5_I32, 1, 1, 1024);
  if (!rc) rc = ext_create(&d->x[X_CMU], d->group, "cone_mu", LSIM_H5_F64, 1, 1, 1024);
  if (!rc) rc = ext_create(&d->x[X_CFN], d->group, "cone_fixed_normal", LSIM_H5_F64, 1, 1, 1024);
  if (!rc) rc = ext_create(&d->x[X_CU], d->group, "cone_uniform", LSIM_H5_I32, 1, 1, 1024);
  static const char *const fnames[9] = {"J_ptr", "J_idx", "J_val", "B_ptr", "B_idx",
                                        "B_val", "C_ptr", "C_idx", "C_val"};
  for (int k = 0; k < 9 && !rc; ++k)
    rc = ext_create(&d->x[X_JP + k], d->group, fnames[k], k % 3 == 2 ? LSIM_H5_F64 : LSIM_H5_I32,
                    1, 1, 4096);
  /* The index grows with the data (after it, problem by problem), so a file whose
     writer was killed holds a readable dump of the problems its last flush wrote. */
  if (!rc) rc = ext_create(&d->x[X_STEP], d->group, "step", LSIM_H5_I32, 1, 1, 1024);
  if (!rc) rc = ext_create(&d->x[X_SERIES], d->group, "series", LSIM_H5_I32, 1, 1, 1024);
  if (!rc) rc = ext_create(&d->x[X_N], d->group, "n", LSIM_H5_I32, 1, 1, 1024);
  if (!rc) rc = ext_create(&d->x[X_NCONES], d->group, "ncones", LSIM_H5_I32, 1, 1, 1024);
  if (!rc) rc = ext_create(&d->x[X_HASH], d->group, "hash", LSIM_H5_U64, 1, 1, 1024);
  if (!rc) rc = ext_create(&d->x[X_MOFF], d->group, "m_offset", LSIM_H5_I64, 1, 1, 1024);
  if (!rc) rc = ext_create(&d->x[X_VOFF], d->group, "offset", LSIM_H5_I64, 1, 1, 1024);
  if (!rc) rc = ext_create(&d->x[X_COFF], d->group, "cone_offset", LSIM_H5_I64, 1, 1, 1024);
  if (!rc) rc = ext_create(&d->x[X_DENSE], d->group, "dense", LSIM_H5_I32, 1, 1, 1024);
  if (!rc) rc = ext_create(&d->x[X_INNER], d->group, "m", LSIM_H5_I32, 1, 1, 1024);
  if (!rc) rc = ext_create(&d->x[X_FHASH], d->group, "factored_hash", LSIM_H5_U64, 1, 1, 1024);
  if (!rc) rc = ext_create(&d->x[X_POFF], d->group, "ptr_offset", LSIM_H5_I64, 1, 1, 1024);
  if (!rc) rc = ext_create(&d->x[X_JOFF], d->group, "J_offset", LSIM_H5_I64, 1, 1, 1024);
  if (!rc) rc = ext_create(&d->x[X_BOFF], d->group, "B_offset", LSIM_H5_I64, 1, 1, 1024);
  if (!rc) rc = ext_create(&d->x[X_CCOFF], d->group, "C_offset", LSIM_H5_I64, 1, 1, 1024);
  const int64_t zero = 0;
  for (int k = X_MOFF; k <= X_COFF && !rc; ++k) rc = ext_append(&d->x[k], &zero, 1);
  for (int k = X_POFF; k <= X_CCOFF && !rc; ++k) rc = ext_append(&d->x[k], &zero, 1);
  if (!rc) rc = write_typed(d->group, "default_series", H5T_NATIVE_INT, H5T_STD_I32LE, 0, NULL,
                            &d->default_series);
  if (!rc) rc = lsim_h5_write_strings(d->group, "solution_label", d->labels[0],
                                      sizeof d->labels[0], d->nsol);
  if (rc) {
    set_err(err, errlen, "LCP dump: cannot create group %s%s", group, "");
    d->status = rc;
    lsim_lcpdump_close(d, NULL, 0);
    return rc;
  }
  *out = d;
  return 0;
}

/* Grows the index arrays to hold one more problem. */
static int grow_index(LsimLcpDump *d) {
  if (d->nprob < d->cap) return 0;
  const int c = d->cap ? 2 * d->cap : 64;
  int ok = 1;
  int **ip[] = {&d->step, &d->series, &d->n, &d->ncones, &d->dense, &d->inner};
  for (size_t k = 0; k < sizeof ip / sizeof ip[0]; ++k) {
    int *p = realloc(*ip[k], (size_t)c * sizeof(int));
    if (p) *ip[k] = p;
    ok &= p != NULL;
  }
  uint64_t **hp[] = {&d->hash, &d->fhash};
  for (int k = 0; k < 2; ++k) {
    uint64_t *p = realloc(*hp[k], (size_t)c * sizeof(uint64_t));
    if (p) *hp[k] = p;
    ok &= p != NULL;
  }
  for (int k = 0; k < O_COUNT; ++k) {
    int64_t *p = realloc(d->off[k], (size_t)(c + 1) * sizeof(int64_t));
    if (p) d->off[k] = p;
    ok &= p != NULL;
  }
  if (!ok) return LSIM_OUT_OF_MEMORY;
  if (d->cap == 0)
    for (int k = 0; k < O_COUNT; ++k) d->off[k][0] = 0;
  d->cap = c;
  return 0;
}

/* Appends one problem: the dense form lcp (NULL: none) and/or the factored form f (NULL:
 * none), with q and the cones of whichever is given (f's when both). */
static int dump_add(LsimLcpDump *d, int step, int series, const LsimLcp *lcp,
                    const LsimFactoredLcp *f, const double *warm, const double *const *z) {
  if (!d) return LSIM_INVALID_INPUT;
  if (d->status) return d->status;
  const int n = f ? f->n : lcp->n;
  const double *q = f ? f->q : lcp->q;
  const LsimConeBlock *cones = f ? f->cones : lcp->cones;
  const int nc = cones ? (f ? f->ncones : lcp->ncones) : 0;
  if (n <= 0) return 0;
  if (grow_index(d)) return dump_fail(d, LSIM_OUT_OF_MEMORY, step, "out of memory");

  /* Scratch for one problem's solutions (rows of nsol) and its cones. */
  const size_t need = (size_t)n * (size_t)d->nsol;
  if (need > d->row_cap) {
    double *r = realloc(d->row, need * sizeof(double));
    if (!r) return dump_fail(d, LSIM_OUT_OF_MEMORY, step, "out of memory");
    d->row = r;
    d->row_cap = need;
  }
  if (nc > d->cone_cap) {
    int *ci = realloc(d->ci, (size_t)nc * sizeof(int));
    if (ci) d->ci = ci;
    double *cd = realloc(d->cd, (size_t)nc * sizeof(double));
    if (cd) d->cd = cd;
    if (!ci || !cd) return dump_fail(d, LSIM_OUT_OF_MEMORY, step, "out of memory");
    d->cone_cap = nc;
  }
  if (f && !f->C_ptr && n + 1 > d->pz_cap) {
    int *pz = calloc((size_t)n + 1, sizeof(int));
    if (!pz) return dump_fail(d, LSIM_OUT_OF_MEMORY, step, "out of memory");
    free(d->pz);
    d->pz = pz, d->pz_cap = n + 1;
  }
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < d->nsol; ++j)
      d->row[(size_t)i * d->nsol + j] = z && z[j] ? z[j][i] : NAN;

  /* Data: M, q, warm, z, then the cone fields one dataset at a time, then the factors. */
  int rc = lcp ? ext_append(&d->x[X_M], lcp->M, (hsize_t)n * (hsize_t)n) : 0;
  if (!rc) rc = ext_append(&d->x[X_Q], q, (hsize_t)n);
  if (!rc && warm) rc = ext_append(&d->x[X_WARM], warm, (hsize_t)n);
  if (!rc && !warm) {
    for (int i = 0; i < n; ++i) d->row[i] = 0.0; /* reuse: zeros, then z again below */
    rc = ext_append(&d->x[X_WARM], d->row, (hsize_t)n);
    for (int i = 0; i < n && !rc; ++i)
      for (int j = 0; j < d->nsol; ++j)
        d->row[(size_t)i * d->nsol + j] = z && z[j] ? z[j][i] : NAN;
  }
  if (!rc) rc = ext_append(&d->x[X_Z], d->row, (hsize_t)n);
#define CONE_FIELD(K, buf, expr)                                          \
  if (!rc) {                                                              \
    for (int c = 0; c < nc; ++c) buf[c] = cones[c].expr;                  \
    rc = ext_append(&d->x[K], buf, (hsize_t)nc);                          \
  }
  CONE_FIELD(X_CN, d->ci, normal)
  CONE_FIELD(X_CD, d->ci, first_dir)
  CONE_FIELD(X_CK, d->ci, ndir)
  CONE_FIELD(X_CL, d->ci, lambda)
  CONE_FIELD(X_CMU, d->cd, mu)
  CONE_FIELD(X_CFN, d->cd, fixed_normal)
  CONE_FIELD(X_CU, d->ci, uniform)
#undef CONE_FIELD
  const int64_t nj = f ? f->J_ptr[n] : 0, nb = f ? f->B_ptr[n] : 0;
  const int64_t ncc = f && f->C_ptr ? f->C_ptr[n] : 0;
  if (f) {
    const int *cp = f->C_ptr ? f->C_ptr : d->pz;
    if (!rc) rc = ext_append(&d->x[X_JP], f->J_ptr, (hsize_t)n + 1);
    if (!rc) rc = ext_append(&d->x[X_JI], f->J_idx, (hsize_t)nj);
    if (!rc) rc = ext_append(&d->x[X_JV], f->J_val, (hsize_t)nj);
    if (!rc) rc = ext_append(&d->x[X_BP], f->B_ptr, (hsize_t)n + 1);
    if (!rc) rc = ext_append(&d->x[X_BI], f->B_idx, (hsize_t)nb);
    if (!rc) rc = ext_append(&d->x[X_BV], f->B_val, (hsize_t)nb);
    if (!rc) rc = ext_append(&d->x[X_CP], cp, (hsize_t)n + 1);
    if (!rc && ncc) rc = ext_append(&d->x[X_CI], f->C_idx, (hsize_t)ncc);
    if (!rc && ncc) rc = ext_append(&d->x[X_CV], f->C_val, (hsize_t)ncc);
  }
  if (rc) return dump_fail(d, rc, step, "cannot append the problem");

  /* Index entry. */
  const int p = d->nprob++;
  d->step[p] = step;
  d->series[p] = series;
  d->n[p] = n;
  d->ncones[p] = nc;
  d->dense[p] = lcp != NULL;
  d->inner[p] = f ? f->m : -1;
  d->hash[p] = lcp ? lsim_lcp_hash(lcp) : 0;
  d->fhash[p] = f ? lsim_factored_hash(f) : 0;
  const int64_t grow[O_COUNT] = {lcp ? (int64_t)n * n : 0, n, nc, f ? n + 1 : 0, nj, nb, ncc};
  for (int k = 0; k < O_COUNT; ++k) d->off[k][p + 1] = d->off[k][p] + grow[k];
  rc = ext_append(&d->x[X_STEP], &d->step[p], 1);
  if (!rc) rc = ext_append(&d->x[X_SERIES], &d->series[p], 1);
  if (!rc) rc = ext_append(&d->x[X_N], &d->n[p], 1);
  if (!rc) rc = ext_append(&d->x[X_NCONES], &d->ncones[p], 1);
  if (!rc) rc = ext_append(&d->x[X_HASH], &d->hash[p], 1);
  if (!rc) rc = ext_append(&d->x[X_DENSE], &d->dense[p], 1);
  if (!rc) rc = ext_append(&d->x[X_INNER], &d->inner[p], 1);
  if (!rc) rc = ext_append(&d->x[X_FHASH], &d->fhash[p], 1);
  /* The offsets last: a reader trusts a problem once its offsets are there. */
  static const int xo[O_COUNT] = {X_MOFF, X_VOFF, X_COFF, X_POFF, X_JOFF, X_BOFF, X_CCOFF};
  for (int k = 0; k < O_COUNT && !rc; ++k) rc = ext_append(&d->x[xo[k]], &d->off[k][p + 1], 1);
  return rc ? dump_fail(d, rc, step, "cannot append to the index") : 0;
}

int lsim_lcpdump_add(LsimLcpDump *d, int step, int series, const LsimLcp *lcp,
                     const double *warm, const double *const *z) {
  return dump_add(d, step, series, lcp, NULL, warm, z);
}

int lsim_lcpdump_add_factored(LsimLcpDump *d, int step, int series, const LsimFactoredLcp *f,
                              const LsimLcp *dense, const double *warm, const double *const *z) {
  return f ? dump_add(d, step, series, dense, f, warm, z) : LSIM_INVALID_INPUT;
}

int lsim_lcpdump_step(LsimLcpDump *d, int step, const LsimStepper *stepper, int dense_limit) {
  if (!d) return LSIM_INVALID_INPUT;
  if (d->status) return d->status;
  const double *z = lsim_stepper_solution(stepper);
  const LsimFactoredLcp *f = lsim_stepper_factored(stepper);
  if (!f || f->n <= 0) return 0;
  /* The dense form too up to the limit (when it cannot be allocated: the factors alone). */
  const LsimLcp *lcp = dense_limit < 0 || f->n <= dense_limit ? lsim_stepper_lcp(stepper) : NULL;
  return dump_add(d, step, 0, lcp, f, lsim_stepper_warm_guess(stepper), &z);
}

int lsim_lcpdump_close(LsimLcpDump *d, char *err, size_t errlen) {
  if (!d) return 0;
  /* Close the datasets and the group; free. */
  for (int k = 0; k < X_COUNT; ++k) ext_close(&d->x[k]);
  if (d->group >= 0) H5Gclose(d->group);
  const int status = d->status;
  if (status && err && errlen) snprintf(err, errlen, "%s", d->msg);
  free(d->labels);
  free(d->step);
  free(d->series);
  free(d->n);
  free(d->ncones);
  free(d->dense);
  free(d->inner);
  free(d->hash);
  free(d->fhash);
  for (int k = 0; k < O_COUNT; ++k) free(d->off[k]);
  free(d->row);
  free(d->ci);
  free(d->cd);
  free(d->pz);
  free(d);
  return status;
}

/* ---- reading a dump ---- */

/* Largest n read back (a dense M of 32768^2 doubles is 8 GiB), as for .dat files. */
#define LSIM_DUMP_MAX_N 32768
/* Problems in one dump (the index is read whole): 2^24, beyond any run's steps x series. */
#define LSIM_DUMP_MAX_PROBLEMS (1L << 24)
/* Stored solutions per problem: a compare file holds two per solver (cold and warm). */
#define LSIM_DUMP_MAX_SOLUTIONS 1024

/* Reads a 1-D dataset of at most cap elements, or its first `first` elements when it has
 * more (first >= 0: what lies past them is not read); returns the length read or < 0. */
static long read_head(hid_t g, const char *name, hid_t mtype, void *buf, long cap, long first) {
  hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
  if (d < 0) return -1;
  hid_t s = H5Dget_space(d);
  hssize_t len = s >= 0 ? H5Sget_simple_extent_npoints(s) : -1;
  const int head = first >= 0 && len > first && s >= 0 && H5Sget_simple_extent_ndims(s) == 1;
  if (head) len = first;
  long rc = -1;
  if (len >= 0 && (!buf || (len <= cap && lsim_h5_numeric_dataset(d)))) {
    hsize_t st = 0, cnt = (hsize_t)len;
    hid_t ms = head && len > 0 ? H5Screate_simple(1, &cnt, NULL) : H5S_ALL;
    const int ok = !buf || len == 0 ||
                   (ms >= 0 && (!head || H5Sselect_hyperslab(s, H5S_SELECT_SET, &st, NULL, &cnt,
                                                             NULL) >= 0) &&
                    H5Dread(d, mtype, ms, head ? s : H5S_ALL, H5P_DEFAULT, buf) >= 0);
    if (head && len > 0 && ms >= 0) H5Sclose(ms);
    rc = ok ? (long)len : -1;
  }
  if (s >= 0) H5Sclose(s);
  H5Dclose(d);
  return rc;
}

/* Reads a whole 1-D dataset of at most cap elements; returns its length or < 0. */
static long read_1d(hid_t g, const char *name, hid_t mtype, void *buf, long cap) {
  return read_head(g, name, mtype, buf, cap, -1);
}

/* Reads rows [start, start + count) of a dataset [rows] (cols 1) or [rows, cols] into buf,
 * which holds count * cols elements; a dataset of another width is damage, never read. */
static int read_rows(hid_t g, const char *name, hid_t mtype, hsize_t start, hsize_t count,
                     hsize_t cols, void *buf) {
  if (count == 0) return 0;
  hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
  if (d < 0) return -1;
  hid_t fs = H5Dget_space(d);
  int rank = fs >= 0 ? H5Sget_simple_extent_ndims(fs) : -1;
  hsize_t dims[2] = {0, 1};
  int ok = lsim_h5_numeric_dataset(d) && rank >= 1 && rank <= 2 &&
           H5Sget_simple_extent_dims(fs, dims, NULL) >= 0 &&
           (rank == 2 ? dims[1] == cols : cols == 1) && start <= dims[0] &&
           count <= dims[0] - start;
  hsize_t st[2] = {start, 0}, cnt[2] = {count, rank == 2 ? dims[1] : 1};
  hid_t ms = ok ? H5Screate_simple(rank, cnt, NULL) : -1;
  ok = ok && ms >= 0 && H5Sselect_hyperslab(fs, H5S_SELECT_SET, st, NULL, cnt, NULL) >= 0 &&
       H5Dread(d, mtype, ms, fs, H5P_DEFAULT, buf) >= 0;
  if (ms >= 0) H5Sclose(ms);
  if (fs >= 0) H5Sclose(fs);
  H5Dclose(d);
  return ok ? 0 : -1;
}

void lsim_dumped_lcp_free(LsimDumpedLcp *d) {
  if (!d) return;
  lsim_lcp_free(&d->lcp);
  free(d->f_int);
  free(d->f_val);
  free(d->cones);
  free(d->warm);
  free(d->z);
  free(d->labels);
  memset(d, 0, sizeof *d);
}

int lsim_dumped_lcp_densify(LsimDumpedLcp *d, int max_n, char *err, size_t errlen) {
  if (d->dense) return 0;
  const int n = d->lcp.n, m = d->f.m, nnz = d->f.J_ptr[n];
  if (n > max_n) {
    if (err && errlen)
      snprintf(err, errlen, "step %d is stored factored only (n = %d): its dense M would be "
               "%.3g GB (the dense limit here is n = %d)", d->step, n, 8e-9 * n * (double)n, max_n);
    return LSIM_INVALID_INPUT;
  }
  /* M's room, and J's transpose as the workspace lsim_factored_to_dense needs. */
  double *M = calloc((size_t)n * (size_t)n + 1, sizeof(double));
  int *tp = malloc(((size_t)m + 1) * sizeof(int)), *ti = malloc(((size_t)nnz + 1) * sizeof(int));
  double *tv = malloc(((size_t)nnz + 1) * sizeof(double));
  double *q = malloc(((size_t)n + 1) * sizeof(double)); /* a copy of q, dropped */
  int rc = M && tp && ti && tv && q ? 0 : LSIM_OUT_OF_MEMORY;
  if (!rc) {
    LsimLcp dense = {.n = n, .M = M, .q = q, .ncones = d->lcp.ncones, .cones = d->lcp.cones};
    rc = lsim_factored_to_dense(&d->f, &dense, tp, ti, tv);
  }
  free(tp), free(ti), free(tv), free(q);
  if (rc) {
    free(M);
    if (err && errlen) snprintf(err, errlen, "step %d: %s", d->step, rc == LSIM_OUT_OF_MEMORY ?
                                "out of memory for the dense M" : "cannot form the dense M");
    return rc;
  }
  d->lcp.M = M;
  d->dense = 1;
  return 0;
}

/* Largest entries of a factored form read back (2^28 doubles: 2 GiB), and largest n and
 * inner dimension m of one stored without M (2^24: 134 MB a vector; m is a stored number,
 * not backed by data, and solvers allocate vectors of it). */
#define LSIM_DUMP_MAX_NNZ (1L << 28)
#define LSIM_DUMP_MAX_FACTORED_N (1L << 24)

/* Reads problem p's factored form (n variables, inner dimension m; offsets foff: pointers,
 * J, B and C entries) into out->f, its arrays in out->f_int and out->f_val, q shared with
 * out->lcp (read before). Its structure is checked by the caller once the cones are in.
 * 0, or 1 when the stored form is damaged (or too large to read). */
static int read_factored(hid_t g, long p, int n, int m, int64_t *const foff[4],
                         LsimDumpedLcp *out) {
  int64_t cnt[4];
  for (int k = 0; k < 4; ++k) {
    cnt[k] = foff[k][p + 1] - foff[k][p];
    if (foff[k][p] < 0 || cnt[k] < 0 || cnt[k] > LSIM_DUMP_MAX_NNZ) return 1;
  }
  if (cnt[0] != n + 1 || m > LSIM_DUMP_MAX_FACTORED_N) return 1;
  const int64_t nj = cnt[1], nb = cnt[2], nc = cnt[3];
  out->f_int = malloc(((size_t)(3 * (n + 1)) + (size_t)(nj + nb + nc) + 1) * sizeof(int));
  out->f_val = malloc(((size_t)(nj + nb + nc) + 1) * sizeof(double));
  if (!out->f_int || !out->f_val) return 1;
  int *jp = out->f_int, *bp = jp + n + 1, *cp = bp + n + 1, *ji = cp + n + 1, *bi = ji + nj;
  int *ci = bi + nb;
  double *jv = out->f_val, *bv = jv + nj, *cv = bv + nb;
  const hsize_t po = (hsize_t)foff[0][p];
  int bad = read_rows(g, "J_ptr", H5T_NATIVE_INT, po, (hsize_t)n + 1, 1, jp) ||
            read_rows(g, "B_ptr", H5T_NATIVE_INT, po, (hsize_t)n + 1, 1, bp) ||
            read_rows(g, "C_ptr", H5T_NATIVE_INT, po, (hsize_t)n + 1, 1, cp) ||
            read_rows(g, "J_idx", H5T_NATIVE_INT, (hsize_t)foff[1][p], (hsize_t)nj, 1, ji) ||
            read_rows(g, "J_val", H5T_NATIVE_DOUBLE, (hsize_t)foff[1][p], (hsize_t)nj, 1, jv) ||
            read_rows(g, "B_idx", H5T_NATIVE_INT, (hsize_t)foff[2][p], (hsize_t)nb, 1, bi) ||
            read_rows(g, "B_val", H5T_NATIVE_DOUBLE, (hsize_t)foff[2][p], (hsize_t)nb, 1, bv) ||
            read_rows(g, "C_idx", H5T_NATIVE_INT, (hsize_t)foff[3][p], (hsize_t)nc, 1, ci) ||
            read_rows(g, "C_val", H5T_NATIVE_DOUBLE, (hsize_t)foff[3][p], (hsize_t)nc, 1, cv);
  /* The pointers must end where the entries do (lsim_factored_check does the rest). */
  bad = bad || jp[n] != nj || bp[n] != nb || cp[n] != nc;
  out->f = (LsimFactoredLcp){.n = n, .m = m, .J_ptr = jp, .J_idx = ji, .J_val = jv,
                             .B_ptr = bp, .B_idx = bi, .B_val = bv, .C_ptr = cp, .C_idx = ci,
                             .C_val = cv, .q = out->lcp.q};
  return bad;
}

int lsim_lcpdump_read(const char *path, int step, int series, LsimDumpedLcp *out, char *err,
                      size_t errlen) {
  memset(out, 0, sizeof *out);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  /* A file that cannot be read at all says why (a missing file, a directory: no HDF5
     matter). */
  char why[256];
  if (lsim_input_probe(path, why, sizeof why)) {
    set_err(err, errlen, "%s: %s", path, why);
    return LSIM_IO_ERROR;
  }
  /* A run file cut before its first complete flush: refused before HDF5 reads it. */
  if (lsim_h5_head(path) == LSIM_H5_HEAD_CUT) {
    set_err(err, errlen, "%s: %s", path, LSIM_H5_CUT_MESSAGE);
    return LSIM_IO_ERROR;
  }
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) {
    set_err(err, errlen, "%s: cannot open as an HDF5 file%s", path, "");
    return LSIM_IO_ERROR;
  }
  hid_t g = H5Gopen2(f, "/lcp", H5P_DEFAULT);
  int rc = 0;
  int *steps = NULL, *ser = NULL, *ns = NULL, *ncs = NULL;
  uint64_t *hashes = NULL;
  int64_t *moff = NULL, *voff = NULL, *coff = NULL;
  /* The factored form's index (files from before it have none: every problem dense). */
  int *dense = NULL, *inner = NULL;
  uint64_t *fhashes = NULL;
  int64_t *foff[4] = {NULL, NULL, NULL, NULL}; /* ptr, J, B, C offsets */
  static const char *const foff_name[4] = {"ptr_offset", "J_offset", "B_offset", "C_offset"};
  char msg[512] = "";
  if (g < 0 && (H5Lexists(f, "/fclib_global", H5P_DEFAULT) > 0 ||
                H5Lexists(f, "/fclib_local", H5P_DEFAULT) > 0)) {
    /* An FCLIB problem is one problem, not a run: it has no steps. */
    snprintf(msg, sizeof msg, "%s: an FCLIB frictional contact problem, not a run or compare "
             "file: it has no steps (lcpsim solve FILE, without --step)", path);
    rc = LSIM_INVALID_INPUT;
    goto done;
  }
  if (g < 0) {
    snprintf(msg, sizeof msg, "%s: no LCP dump in this file (run with --dump-lcp)", path);
    rc = LSIM_IO_ERROR;
    goto done;
  }

  /* The index: a killed writer's file (no /summary) up to its mark, /flushed_lcp_problems,
     the problems of its last flush that reached the file whole (docs/output-format.md,
     "Killed runs"); rows past it are of a flush the kill cut short, and are not read. */
  const long whole = read_1d(g, "step", H5T_NATIVE_INT, NULL, 0);
  int64_t mark = -1;
  if (H5Lexists(f, "/summary", H5P_DEFAULT) <= 0 &&
      H5Lexists(f, "/flushed_lcp_problems", H5P_DEFAULT) > 0 &&
      (read_1d(f, "/flushed_lcp_problems", H5T_NATIVE_INT64, &mark, 1) != 1 || mark < 0)) {
    snprintf(msg, sizeof msg, "%s: /flushed_lcp_problems: damaged (not one count >= 0)", path);
    rc = LSIM_IO_ERROR;
    goto done;
  }
  const long np = mark >= 0 && whole > mark ? (long)mark : whole;
  const long past = whole - np; /* problems past the mark, not read */
  int defser = 0;
  if (np < 0 || np > LSIM_DUMP_MAX_PROBLEMS ||
      read_1d(g, "default_series", H5T_NATIVE_INT, &defser, 1) != 1) {
    snprintf(msg, sizeof msg, "%s: /lcp: damaged dump (no index)", path);
    rc = LSIM_IO_ERROR;
    goto done;
  }
  if (series < 0) series = defser;
  steps = malloc(((size_t)np + 1) * sizeof(int));
  ser = malloc(((size_t)np + 1) * sizeof(int));
  ns = malloc(((size_t)np + 1) * sizeof(int));
  ncs = malloc(((size_t)np + 1) * sizeof(int));
  hashes = malloc(((size_t)np + 1) * sizeof(uint64_t));
  moff = malloc(((size_t)np + 1) * sizeof(int64_t));
  voff = malloc(((size_t)np + 1) * sizeof(int64_t));
  coff = malloc(((size_t)np + 1) * sizeof(int64_t));
  if (!steps || !ser || !ns || !ncs || !hashes || !moff || !voff || !coff) {
    snprintf(msg, sizeof msg, "out of memory");
    rc = LSIM_OUT_OF_MEMORY;
    goto done;
  }
  if (read_head(g, "step", H5T_NATIVE_INT, steps, np, np) != np ||
      read_head(g, "series", H5T_NATIVE_INT, ser, np, np) != np ||
      read_head(g, "n", H5T_NATIVE_INT, ns, np, np) != np ||
      read_head(g, "ncones", H5T_NATIVE_INT, ncs, np, np) != np ||
      read_head(g, "hash", H5T_NATIVE_UINT64, hashes, np, np) != np ||
      read_head(g, "m_offset", H5T_NATIVE_INT64, moff, np + 1, np + 1) != np + 1 ||
      read_head(g, "offset", H5T_NATIVE_INT64, voff, np + 1, np + 1) != np + 1 ||
      read_head(g, "cone_offset", H5T_NATIVE_INT64, coff, np + 1, np + 1) != np + 1) {
    snprintf(msg, sizeof msg, "%s: /lcp: damaged dump (index)", path);
    rc = LSIM_IO_ERROR;
    goto done;
  }
  const int has_factored = H5Lexists(g, "dense", H5P_DEFAULT) > 0;
  if (has_factored) {
    dense = malloc(((size_t)np + 1) * sizeof(int));
    inner = malloc(((size_t)np + 1) * sizeof(int));
    fhashes = malloc(((size_t)np + 1) * sizeof(uint64_t));
    int ok = dense && inner && fhashes;
    for (int k = 0; k < 4; ++k) ok &= (foff[k] = malloc(((size_t)np + 1) * sizeof(int64_t))) != NULL;
    if (!ok) {
      snprintf(msg, sizeof msg, "out of memory");
      rc = LSIM_OUT_OF_MEMORY;
      goto done;
    }
    ok = read_head(g, "dense", H5T_NATIVE_INT, dense, np, np) == np &&
         read_head(g, "m", H5T_NATIVE_INT, inner, np, np) == np &&
         read_head(g, "factored_hash", H5T_NATIVE_UINT64, fhashes, np, np) == np;
    for (int k = 0; k < 4 && ok; ++k)
      ok = read_head(g, foff_name[k], H5T_NATIVE_INT64, foff[k], np + 1, np + 1) == np + 1;
    if (!ok) {
      snprintf(msg, sizeof msg, "%s: /lcp: damaged dump (index of the factored forms)", path);
      rc = LSIM_IO_ERROR;
      goto done;
    }
  }

  /* The problem of (step, series). */
  long p = -1, nstep = 0;
  int any_step = 0, min_step = INT_MAX, max_step = 0, below = 0, above = INT_MAX, last = -1;
  for (long k = 0; k < np; ++k) {
    /* The dumped steps (each once, however many series): their count and range, and the
       nearest ones on either side of step. */
    if (steps[k] != last) ++nstep, last = steps[k];
    if (steps[k] > max_step) max_step = steps[k];
    if (steps[k] < min_step) min_step = steps[k];
    if (steps[k] < step && steps[k] > below) below = steps[k];
    if (steps[k] > step && steps[k] < above) above = steps[k];
    if (steps[k] != step) continue;
    any_step = 1;
    if (ser[k] == series) {
      p = k;
      break;
    }
  }
  if (p < 0) {
    char near[96] = "";
    if (below > 0 && above < INT_MAX)
      snprintf(near, sizeof near, "; the nearest are %d and %d", below, above);
    else if (below > 0 || above < INT_MAX)
      snprintf(near, sizeof near, "; the nearest is %d", below > 0 ? below : above);
    if (past > 0 && (np == 0 || step > max_step)) {
      /* A killed writer's file: the step may be among the problems past its mark. */
      char have[96] = "no problem";
      if (np > 0) snprintf(have, sizeof have, "steps %d to %d", min_step, max_step);
      snprintf(msg, sizeof msg, "%s: step %d is past the file's last whole flush "
               "(/flushed_lcp_problems %ld of the %ld dumped LCPs: %s): the file of a killed "
               "run (no /summary), whose LCPs past the mark are of a flush the kill cut short "
               "and are not read", path, step, np, whole, have);
    } else if (any_step) {
      /* The series the step has (a run's and a shadow comparison's one problem a step is
         series 0; an independent comparison's are each series' own). */
      char have[96] = "";
      size_t hn = 0;
      for (long k = 0; k < np && hn + 16 < sizeof have; ++k)
        if (steps[k] == step) {
          const int w = snprintf(have + hn, sizeof have - hn, "%s%d", hn ? ", " : "", ser[k]);
          if (w > 0) hn += (size_t)w;
        }
      snprintf(msg, sizeof msg, "%s: step %d has no LCP of series %d (it has series %s%s)", path,
               step, series, have, hn + 16 >= sizeof have ? ", ..." : "");
    }
    else if (np == 0)
      snprintf(msg, sizeof msg, "%s: no step has a dumped LCP (a step whose LCP is empty, with "
               "no contacts or every body asleep, stores none)", path);
    else
      snprintf(msg, sizeof msg,
               "%s: step %d has no LCP (%ld steps have one, from %d to %d%s; a step whose LCP "
               "is empty, with no contacts or every body asleep, stores none)",
               path, step, nstep, min_step, max_step, near);
    rc = LSIM_INVALID_INPUT;
    goto done;
  }

  /* Its data: sizes and offsets checked first (a damaged index must not size a buffer). */
  const int n = ns[p], nc = ncs[p];
  const long nsol_l = read_1d(g, "solution_label", H5T_NATIVE_INT, NULL, 0);
  /* (a problem stored without M may be larger: nothing of n^2 is read for it) */
  const long max_n = has_factored && !dense[p] ? LSIM_DUMP_MAX_FACTORED_N : LSIM_DUMP_MAX_N;
  if (n < 0 || n > max_n || nc < 0 || nc > n || moff[p] < 0 || voff[p] < 0 || coff[p] < 0 ||
      nsol_l > LSIM_DUMP_MAX_SOLUTIONS) {
    snprintf(msg, sizeof msg, "%s: /lcp: damaged dump (sizes of step %d)", path, step);
    rc = LSIM_IO_ERROR;
    goto done;
  }
  out->nsolutions = nsol_l > 0 ? (int)nsol_l : 0;
  out->step = step;
  out->series = series;
  out->hash = hashes[p];
  out->nproblems = (int)np;
  out->dense = has_factored ? dense[p] != 0 : 1;
  out->factored = has_factored && inner[p] >= 0;
  out->factored_hash = has_factored ? fhashes[p] : 0;
  if (!out->dense && !out->factored) {
    snprintf(msg, sizeof msg, "%s: /lcp: damaged dump (step %d stores no problem)", path, step);
    rc = LSIM_IO_ERROR;
    goto done;
  }
  if (out->dense) {
    rc = lsim_lcp_init(&out->lcp, n);
  } else {
    out->lcp.n = n;
    rc = (out->lcp.q = calloc((size_t)n + 1, sizeof(double))) ? 0 : LSIM_OUT_OF_MEMORY;
  }
  out->cones = calloc((size_t)nc + 1, sizeof(LsimConeBlock));
  out->warm = calloc((size_t)n + 1, sizeof(double));
  out->z = calloc((size_t)n * (size_t)out->nsolutions + 1, sizeof(double));
  out->labels = calloc((size_t)out->nsolutions + 1, sizeof *out->labels);
  int *ci = calloc((size_t)nc + 1, sizeof(int));
  double *cd = calloc((size_t)nc + 1, sizeof(double));
  if (rc || !out->cones || !out->warm || !out->z || !out->labels || !ci || !cd) {
    free(ci);
    free(cd);
    snprintf(msg, sizeof msg, "out of memory");
    rc = LSIM_OUT_OF_MEMORY;
    goto done;
  }
  int bad =
      (out->dense &&
       read_rows(g, "M", H5T_NATIVE_DOUBLE, (hsize_t)moff[p], (hsize_t)n * n, 1, out->lcp.M)) ||
      read_rows(g, "q", H5T_NATIVE_DOUBLE, (hsize_t)voff[p], (hsize_t)n, 1, out->lcp.q) ||
      read_rows(g, "warm", H5T_NATIVE_DOUBLE, (hsize_t)voff[p], (hsize_t)n, 1, out->warm);
  /* M and q feed a solver: NaN or Inf there is damage (stored solutions may hold anything). */
  bad = bad || (out->dense && lsim_lcp_check_finite(&out->lcp));
  if (!bad && out->factored) bad = read_factored(g, p, n, inner[p], foff, out);
  /* z is stored [rows, nsol]: read the rows, then transpose to one column per solution. */
  double *zr = calloc((size_t)n * (size_t)out->nsolutions + 1, sizeof(double));
  bad = bad || !zr ||
        (out->nsolutions > 0 && read_rows(g, "z", H5T_NATIVE_DOUBLE, (hsize_t)voff[p], (hsize_t)n,
                                          (hsize_t)out->nsolutions, zr));
  for (int i = 0; !bad && i < n; ++i)
    for (int j = 0; j < out->nsolutions; ++j)
      out->z[(size_t)j * n + i] = zr[(size_t)i * out->nsolutions + j];
  free(zr);
#define CONE_READ(name, buf, type, field)                                        \
  if (!bad) {                                                                    \
    bad = read_rows(g, name, type, (hsize_t)coff[p], (hsize_t)nc, 1, buf);       \
    for (int c = 0; !bad && c < nc; ++c) out->cones[c].field = buf[c];           \
  }
  CONE_READ("cone_normal", ci, H5T_NATIVE_INT, normal)
  CONE_READ("cone_first_dir", ci, H5T_NATIVE_INT, first_dir)
  CONE_READ("cone_ndir", ci, H5T_NATIVE_INT, ndir)
  CONE_READ("cone_lambda", ci, H5T_NATIVE_INT, lambda)
  CONE_READ("cone_mu", cd, H5T_NATIVE_DOUBLE, mu)
  CONE_READ("cone_fixed_normal", cd, H5T_NATIVE_DOUBLE, fixed_normal)
  /* The directions' layout flag (files from before it: not said, so 0) */
  if (H5Lexists(g, "cone_uniform", H5P_DEFAULT) > 0) {
    CONE_READ("cone_uniform", ci, H5T_NATIVE_INT, uniform)
  }
#undef CONE_READ
  free(ci);
  free(cd);
  /* Each cone's variables inside 0..n-1 (the solvers index with them), mu >= 0. */
  for (int c = 0; !bad && c < nc; ++c) {
    const LsimConeBlock *b = &out->cones[c];
    bad = b->normal < -1 || b->normal >= n || b->lambda < 0 || b->lambda >= n ||
          b->first_dir < 0 || b->ndir < 0 || b->first_dir > n - b->ndir || !(b->mu >= 0.0) ||
          !isfinite(b->mu) || !isfinite(b->fixed_normal) || (b->uniform != 0 && b->uniform != 1);
  }

  /* Labels: fixed-length strings, read with their own type. */
  if (!bad && out->nsolutions > 0) {
    hid_t ld = H5Dopen2(g, "solution_label", H5P_DEFAULT);
    hid_t t = ld >= 0 ? H5Dget_type(ld) : -1;
    /* fixed-length strings only (a variable-length one would be read as pointers) */
    const size_t len = t >= 0 && H5Tget_class(t) == H5T_STRING && H5Tis_variable_str(t) == 0 &&
                               lsim_h5_dataset_complete(ld)
                           ? H5Tget_size(t)
                           : 0;
    char *buf = len ? calloc((size_t)out->nsolutions, len) : NULL;
    bad = !buf || H5Dread(ld, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0;
    for (int j = 0; !bad && j < out->nsolutions; ++j)
      snprintf(out->labels[j], sizeof out->labels[j], "%.*s", (int)len, buf + (size_t)j * len);
    free(buf);
    if (t >= 0) H5Tclose(t);
    if (ld >= 0) H5Dclose(ld);
  }
  if (bad) {
    snprintf(msg, sizeof msg, "%s: /lcp: damaged dump (problem of step %d)", path, step);
    rc = LSIM_IO_ERROR;
    goto done;
  }
  out->lcp.ncones = nc;
  out->lcp.cones = nc ? out->cones : NULL;
  if (out->factored) {
    /* The factored form whole: pointers, indices against n and m, values finite, cones. */
    out->f.ncones = nc;
    out->f.cones = out->lcp.cones;
    if (lsim_factored_check(&out->f)) {
      snprintf(msg, sizeof msg, "%s: /lcp: damaged dump (factored problem of step %d)", path, step);
      rc = LSIM_IO_ERROR;
      goto done;
    }
  }

done:
  free(steps);
  free(ser);
  free(ns);
  free(ncs);
  free(hashes);
  free(moff);
  free(voff);
  free(coff);
  free(dense);
  free(inner);
  free(fhashes);
  for (int k = 0; k < 4; ++k) free(foff[k]);
  if (g >= 0) H5Gclose(g);
  H5Fclose(f);
  if (rc) {
    lsim_dumped_lcp_free(out);
    if (err && errlen) snprintf(err, errlen, "%s", msg);
  }
  return rc;
}
