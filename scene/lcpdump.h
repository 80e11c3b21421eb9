/* lcpdump.h: every step's LCP stored in a run or compare file, and read back.
 *
 * A dump is an HDF5 group (normally "/lcp", docs/output-format.md "LCP dumps") holding a
 * list of problems, each tagged with its step and series (a series is one trajectory: 0
 * in a run file; in an independent comparison, the solver whose trajectory produced it).
 * Per problem: M (column-major) and/or the factored form M = J B + C (J, B, C sparse, as
 * the time step hands the solvers; run files store it always, M up to a size), q, the
 * warm-start guess the solver was given, one or more solutions (columns labelled by
 * solution_label: the run's solver, or every solver of a shadow comparison), the
 * friction-cone structure, and the FNV-1a hashes of (n, M, q) and of the factored problem
 * (lcp/quality.h). Problems are variable-size, so the data are flat arrays with offsets:
 * problem p's M is M[m_offset[p] .. m_offset[p+1]-1], its q, warm and z rows are
 * offset[p] .. offset[p+1]-1, and so on. Steps without an LCP (no contact) store nothing.
 *
 * The datasets are chunked and extendable and are appended to problem by problem, so a dump
 * costs no memory beyond one problem. Numeric datasets and fixed-length strings only.
 *
 * Also here: small HDF5 writing helpers used by the compare file (cli/compare.c), with the
 * file handle as int64_t (an hid_t) so this header needs no HDF5 include.
 */
#ifndef LSIM_LCPDUMP_H
#define LSIM_LCPDUMP_H

#include <stddef.h>
#include <stdint.h>

#include "contact/step.h"
#include "lcp/factored.h"
#include "lcp/lcp.h"

/* ---- HDF5 helpers ---- */

typedef enum LsimH5Type { LSIM_H5_I32, LSIM_H5_I64, LSIM_H5_U64, LSIM_H5_F64 } LsimH5Type;

/* Creates path (truncating) with the library's error printing off; returns the file
 * handle, or < 0 with a message in err. */
int64_t lsim_h5_create(const char *path, char *err, size_t errlen);

/* The innermost description on HDF5's error stack (the call that failed; for a failed
 * write the system's reason, e.g. "file write failed: No space left on device") into
 * buf [len], "" when the stack is empty; the stack is cleared. */
void lsim_h5_error_detail(char *buf, size_t len);

/* Keeps HDF5 from closing, at the process's exit, the objects whose close failed (a file
 * whose last flush failed, e.g. on a full disk): HDF5 1.10 then crashes in H5F__close_cb.
 * Every file is closed by its owner, so nothing is lost. Call it before any other HDF5
 * call (the command does, first thing); later it does nothing. */
void lsim_h5_no_atexit(void);

/* Closes a file from lsim_h5_create. 0 or < 0. */
int lsim_h5_close(int64_t file);

/* Puts what was written to a file from lsim_h5_create on disk, HDF5's metadata included
 * (it keeps it until then), so the file reads whole as of now if its writer is killed
 * before the next flush. 0 or LSIM_IO_ERROR. */
int lsim_h5_flush(int64_t file);

/* Writes a contiguous dataset name (intermediate groups are created) of the given rank
 * (0: scalar) and C-order dims, from data in native layout of type (int, int64_t,
 * uint64_t, double), stored little endian. 0 or LSIM_IO_ERROR. */
int lsim_h5_write(int64_t file, const char *name, LsimH5Type type, int rank,
                  const uint64_t *dims, const void *data);

/* Writes count fixed-length, null-terminated strings found every stride bytes from first
 * (count < 0: one scalar string); the stored length is the longest + 1. 0 or < 0. */
int lsim_h5_write_strings(int64_t file, const char *name, const char *first, size_t stride,
                          int count);

/* A dataset [rows] (rank 1) or [rows, cols] (rank 2) whose first dimension grows as rows
 * are appended (chunks of chunk_rows rows; a path's groups are created). So a file
 * flushed between appends opens with the rows so far. */
typedef struct LsimH5Rows LsimH5Rows;
/* NULL when HDF5 refuses the dataset (name taken, file not writable) or memory fails. */
LsimH5Rows *lsim_h5_rows_create(int64_t file, const char *name, LsimH5Type type, int rank,
                                uint64_t cols, uint64_t chunk_rows);
/* The same, rank 1, of fixed-length null-terminated strings of len bytes (a row: len
 * bytes, the string and NULs after it). */
LsimH5Rows *lsim_h5_rows_create_strings(int64_t file, const char *name, size_t len,
                                        uint64_t chunk_rows);
/* Appends nrows rows (nrows * cols values in C order, native layout of type).
 * 0 or LSIM_IO_ERROR (also for r NULL). */
int lsim_h5_rows_append(LsimH5Rows *r, const void *data, uint64_t nrows);
/* Rows appended so far (0 for NULL). */
uint64_t lsim_h5_rows_count(const LsimH5Rows *r);
/* Closes the dataset; NULL does nothing. */
void lsim_h5_rows_close(LsimH5Rows *r);

/* ---- writing a dump ---- */

typedef struct LsimLcpDump LsimLcpDump;

/* Starts a dump in group (e.g. "/lcp") of the open HDF5 file, with nsolutions solution
 * columns named by labels [nsolutions] (copied). default_series is what readers pick
 * when asked for a step without a series. Returns 0 or < 0 with a message in err. */
int lsim_lcpdump_open(LsimLcpDump **out, int64_t file, const char *group, int nsolutions,
                      const char *const *labels, int default_series, char *err,
                      size_t errlen);

/* Appends one problem: lcp (with its cones), warm [n] (NULL: zeros), and z[j] [n] for each
 * solution column j (z NULL or z[j] NULL: NaN, "not solved"). Problems with n = 0 are
 * skipped. 0 or < 0 (sticky: later calls do nothing and return the first error). */
int lsim_lcpdump_add(LsimLcpDump *d, int step, int series, const LsimLcp *lcp,
                     const double *warm, const double *const *z);

/* Appends one problem in factored form f (with its q and cones), and its dense form too
 * when dense is not NULL (the same problem: M = J B + C); warm and z as above. 0 or < 0. */
int lsim_lcpdump_add_factored(LsimLcpDump *d, int step, int series, const LsimFactoredLcp *f,
                              const LsimLcp *dense, const double *warm, const double *const *z);

/* One call per step of a run: appends the stepper's last LCP (factored, and dense when n <=
 * dense_limit or dense_limit < 0), its warm guess and its solution as problem (step,
 * series 0). 0 or < 0. */
int lsim_lcpdump_step(LsimLcpDump *d, int step, const LsimStepper *stepper, int dense_limit);

/* Run files store the dense M of steps up to this n by default (8 n^2 bytes: 34 MB). */
#define LSIM_DUMP_DENSE_LIMIT 2048

/* The problems appended so far (0 for NULL): the rows of the dump's index. */
int lsim_lcpdump_count(const LsimLcpDump *d);

/* The bytes of data appended so far (0 for NULL), and in *chunk_bytes (unless NULL) those
 * of one chunk of each of its datasets: what the dump adds to its file, for the run's room
 * check (lsim_record_lcp_bytes). */
double lsim_lcpdump_bytes(const LsimLcpDump *d, double *chunk_bytes);

/* Closes and reopens the dump's datasets (dump is an LsimLcpDump): in a file opened with
 * evict-on-close this drops their chunk indexes from HDF5's metadata cache, which keeps
 * dirty metadata until a flush and would otherwise grow with every problem (a run's
 * dump: lsim_record_trim_also). Call right after a flush only. 0 or < 0 (the dump's
 * error). */
int lsim_lcpdump_reopen(void *dump);

/* The first error of the dump ("LCP dump: step K: ..."), "" while there is none. */
const char *lsim_lcpdump_error(const LsimLcpDump *d);

/* Writes the index, closes every HDF5 object of the dump (not the file) and frees d.
 * Returns the first error of the dump's life, with its message in err, else 0. NULL-safe. */
int lsim_lcpdump_close(LsimLcpDump *d, char *err, size_t errlen);

/* ---- reading a dump ---- */

typedef struct LsimDumpedLcp {
  LsimLcp lcp;              /* owns q, and M when dense (else M is NULL); lcp.cones points
                               at cones below */
  int dense;                /* 1: lcp.M holds the stored M */
  int factored;             /* 1: f holds the stored factored form (its arrays owned here;
                               q and cones shared with lcp) */
  LsimFactoredLcp f;
  int *f_int;               /* f's index arrays, one allocation */
  double *f_val;            /* f's values, one allocation */
  uint64_t factored_hash;   /* as stored (0: no factored form) */
  LsimConeBlock *cones;     /* [lcp.ncones] */
  double *warm;             /* [n] */
  double *z;                /* [nsolutions * n]: solution j is z + j * n */
  int nsolutions;
  char (*labels)[64];       /* [nsolutions] */
  int step, series;
  uint64_t hash;            /* as stored: of (n, M, q), 0 when M is not stored */
  int nproblems;            /* problems in the dump */
} LsimDumpedLcp;

/* Reads the problem of step (and series; < 0: the dump's default series) from the dump
 * group "/lcp" of the HDF5 file at path. Returns 0, or LSIM_IO_ERROR (file unreadable,
 * no dump in it) / LSIM_INVALID_INPUT (no such step: e.g. a step without contacts, or out
 * of range) with a one-line message in err; out is then zeroed. */
int lsim_lcpdump_read(const char *path, int step, int series, LsimDumpedLcp *out, char *err,
                      size_t errlen);

/* Forms d's dense M from its factored form when only that is stored (then d->dense is 1),
 * for n <= max_n; no-op when M is stored. 0, or < 0 with a message in err (n above
 * max_n, out of memory). */
int lsim_dumped_lcp_densify(LsimDumpedLcp *d, int max_n, char *err, size_t errlen);

/* Frees what lsim_lcpdump_read allocated. NULL-safe. */
void lsim_dumped_lcp_free(LsimDumpedLcp *d);

#endif
