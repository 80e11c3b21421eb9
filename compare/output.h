/* output.h: writing a comparison's HDF5 file (docs/output-format.md, "Compare files");
 * private to compare/. Every writer is a no-op once o->rc is set, so a sequence of writes
 * is checked once at its end. */
#ifndef LSIM_COMPARE_OUTPUT_H
#define LSIM_COMPARE_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

#include "compare/spec.h"
#include "compare/table.h"
#include "scene/lcpdump.h"
#include "scene/outfile.h"

#define LSIM_COMPARE_FORMAT_VERSION 1
/* A comparison's rows go to the file every second, or every this many problems. */
#define LSIM_COMPARE_FLUSH_ROWS 4096

typedef struct LsimCompareOut {
  int64_t file;
  int rc;
  /* > 0 between lsim_compare_summary_begin and _link: the unlinked group that the writers
     put "/summary/NAME" into (as NAME). */
  int64_t summary;
  /* > 0 after lsim_compare_tail: an unlinked group whose objects _summary_link links at
     the root under their names (the objects made at the end: /trajectory). */
  int64_t tail;
  /* > 0 after lsim_compare_marks_open: /flushed_rows and (with a dump) /flushed_lcp_problems. */
  int64_t mark_rows, mark_lcp;
} LsimCompareOut;

void lsim_compare_w_arr(LsimCompareOut *o, const char *name, LsimH5Type type, int rank,
                        uint64_t d0, uint64_t d1, const void *data);
void lsim_compare_w_int(LsimCompareOut *o, const char *name, int v);
/* msg = "PATH: WHAT (HDF5's innermost reason, e.g. 'file write failed: No space left on
 * device')": a write to the comparison's file failed. PATH is the output as given (its
 * partial file is removed on failure: naming it named a file that was gone). */
void lsim_compare_write_failed(char *msg, size_t msglen, const char *path, const char *what);
void lsim_compare_w_dbl(LsimCompareOut *o, const char *name, double v);
void lsim_compare_w_str(LsimCompareOut *o, const char *name, const char *first, size_t stride,
                        int count);

/* The per-problem tables (/step, /time, the /problem_ hashes and sizes, the /results
 * group; independent mode also the /divergence and /energy groups, energies N + 1 rows) as
 * datasets that grow by rows, so that a file
 * flushed during a comparison opens with the rows of the problems done so far. */
#define LSIM_COMPARE_ROW_SETS 27
typedef struct LsimCompareRows {
  LsimH5Rows *d[LSIM_COMPARE_ROW_SETS]; /* NULL: not open (or not in this mode) */
  int P, independent;
  /* Sets (lsim_compare_rows_names): /problem_name, input k's path a row with the rest of
     problem k's rows (NULL: none), and the inputs (not owned). */
  LsimH5Rows *names;
  const char *const *inputs;
  size_t name_len;
  double chunk_bytes; /* a chunk of every table made (lsim_compare_room_low) */
} LsimCompareRows;

/* Creates the datasets (none written yet) for P series. Sets o->rc on failure. */
void lsim_compare_rows_open(LsimCompareRows *r, LsimCompareOut *o, int P, int independent);
/* Appends t's rows up to problem upto (exclusive; the energies up to row upto) that are not
 * written yet: rows upto - 1 and before must be final. Sets o->rc on failure. */
void lsim_compare_rows_append(LsimCompareRows *r, LsimCompareOut *o, const LsimCompareTable *t,
                              int upto);
void lsim_compare_rows_close(LsimCompareRows *r);

/* After a flush of the rows (and its mark): is there room for the next flush and the
 * close (scene/outfile.h, lsim_outfile_room_low)? The next flush may take a new chunk of
 * every table (r->chunk_bytes) and as much as the file grew since the last check (*last:
 * its size then, updated here; the rows of an LCP dump too); the close adds extra (what it
 * copies in: --trajectory's record). 1 with why (naming path and the room) when short: the
 * comparison stops there, its file closed whole; else 0. */
int lsim_compare_room_low(const LsimOutFile *of, const char *path, const LsimCompareRows *r,
                          double extra, double *last, char *why, size_t whylen);

/* Writes the solver and series descriptions (/solvers, /series) of nseries series. */
void lsim_compare_write_series(LsimCompareOut *o, int nseries, const LsimCompareSpec *specs,
                               int nspecs, char (*labels)[128], const int *ser_solver,
                               char (*ser_start)[8], int reference_series);

/* Writes the tables' rows up to t->N that rows has not written (rows NULL: all of them,
 * through datasets of its own) and the summary per series. */
void lsim_compare_write_results(LsimCompareOut *o, LsimCompareRows *rows,
                                const LsimCompareTable *t, const LsimCompareSummary *sm,
                                int independent);

/* How the comparison ended, as run files say it: /summary/run_end "completed",
 * "interrupted" (stop, the signal that stopped it, nonzero) or "stopped" (stopped, when
 * not NULL or empty: why the comparison could not go on, e.g. a dense reference above the
 * dense limit), /summary/run_end_step the problems done (the rows),
 * /summary/run_end_reason "SIGINT after step K of N" (what names a problem: "step" or
 * "problem") or the stopped reason, empty when completed. */
void lsim_compare_write_end(LsimCompareOut *o, int done, int asked, int stop, const char *what,
                            const char *stopped);
/* That reason, "SIGINT after step K of N", into buf (empty when stop is 0). */
void lsim_compare_end_reason(char *buf, size_t len, int done, int asked, int stop,
                             const char *what);

/* /summary made whole before the root links it (a kill inside the close then leaves the
 * file with it or without it, never with a link to objects not yet in the file): _begin
 * makes the group unlinked, the writers fill it, _link flushes the file and then links it
 * as /summary, and the tail's objects (lsim_compare_tail) beside it (the root's symbol
 * table node, one write). Set o->rc on failure. */
void lsim_compare_summary_begin(LsimCompareOut *o);
void lsim_compare_summary_link(LsimCompareOut *o);

/* The marks of whole flushes (docs/output-format.md, "Killed runs"), as run files have
 * /flushed_rows (scene/record.c): _open makes /flushed_rows (and, lcp nonzero,
 * /flushed_lcp_problems) with 0, before the header's flush; _mark, called right after a
 * flush of rows returned, writes the rows of /step and the problems of /lcp that flush
 * left in the file and flushes them on their own (an 8-byte write in place each), so a
 * kill inside a later flush leaves readers the rows up to them whole. Set o->rc on
 * failure. */
void lsim_compare_marks_open(LsimCompareOut *o, int lcp);
void lsim_compare_mark(LsimCompareOut *o, uint64_t rows, uint64_t lcp_problems);
/* Closes the marks' datasets (and a tail never linked); before the file's close. */
void lsim_compare_marks_close(LsimCompareOut *o);

/* The group (made unlinked on the first call) that objects made at the end are written
 * into, under the names they are to have at the root; _summary_link links each at the
 * root after the flush that put them in the file, with /summary. -1 on failure (o->rc). */
int64_t lsim_compare_tail(LsimCompareOut *o);

/* /problem_name for a set of n problem files (inputs, kept until the close: not copied):
 * made with the other tables (after lsim_compare_rows_open, before the header's flush),
 * input k's path appended with problem k's rows, so that a killed comparison's file keeps
 * the names of its rows (they were written at the end: a killed file had none). Fixed-
 * length strings of the longest path + 1 bytes, at most 256 (longer paths cut). Sets
 * o->rc on failure. */
void lsim_compare_rows_names(LsimCompareRows *r, LsimCompareOut *o, const char *const *inputs,
                             int n);

/* The status legend "code name" for -9..1, as in run files, then the compare-only
 * LSIM_COMPARE_SKIPPED. */
void lsim_compare_write_legend(LsimCompareOut *o);

#endif
