/* record.h: the HDF5 file of a hybrid model run (docs/output-format.md, "Hybrid runs").
 *
 * The conventions of run files (scene/record.h): numeric datasets and fixed-length
 * strings only, the scene text and every parameter as datasets, /time with one row per
 * recorded state, /summary with how the run ended; written as PATH.<pid>.partial and
 * renamed when complete, so a file under its final name is always whole. The samples and
 * transitions are appended as the run goes (chunked, extendable datasets) and flushed
 * every 4096 rows or 1 s of wall time with H5Fflush; /summary comes at the end, so the
 * partial file of a killed run opens with the run up to its last flush and no /summary.
 */
#ifndef LSIM_HYBRID_RECORD_H
#define LSIM_HYBRID_RECORD_H

#include <stddef.h>

#include "hybrid/model.h"
#include "hybrid/run.h"

/* Writes the run: model m with parameters p, the scene's initial state x0 (before the
 * model completed it), the options, the trace, the scene text (may be NULL) and the wall
 * time. Returns 0, or < 0 with a message in err (no file is left then). */
int lsim_hybrid_write(const char *path, const LsimHybridModel *m, const double *p,
                      const double *x0, const LsimHybridOptions *opt,
                      const LsimHybridTrace *tr, const char *scene_text, double wall_time,
                      char *err, size_t errlen);

/* The same file written as the run goes:
 *   _open: checks path and makes its partial file (scene/outfile.h), writes the header
 *     (scene text, options, model), makes the empty tables, flushes. 0, or < 0 with err
 *     (nothing left).
 *   _update (or _observe, its LsimHybridObserver form for lsim_hybrid_run_observed, with
 *     the record as user): appends the trace's new rows when a flush is due (the first
 *     call at once, with /model/initial_state), then checks the room left for the next
 *     flush and the close (lsim_hybrid_record_space_low). 0, or < 0 (the message comes at
 *     close). _observe adds LSIM_HYBRID_OBSERVE_STOP once the room is short: the run
 *     stops there (LSIM_HYBRID_STOPPED) and the close still fits.
 *   _close: keep = 1 appends the rest, writes /summary, closes and renames to path;
 *     keep = 0 (a run that failed to start) removes the partial file. Frees h. 0 or < 0
 *     with err (no file is left then). */
typedef struct LsimHybridRecord LsimHybridRecord;
int lsim_hybrid_record_open(LsimHybridRecord **h, const char *path, const LsimHybridModel *m,
                            const double *p, const double *x0, const LsimHybridOptions *opt,
                            const char *scene_text, char *err, size_t errlen);
int lsim_hybrid_record_update(LsimHybridRecord *h, const LsimHybridTrace *tr);
int lsim_hybrid_record_observe(const LsimHybridTrace *tr, void *record);
/* on = 1: _observe returns 1 after each flush, so that lsim_hybrid_run_observed drops the
 * rows written from its trace (hybrid/run.h): a run of any length then holds at most a
 * flush's rows in memory, and the trace at the end has its newest sample only (its
 * counts and stats whole). 0 (the default): the trace keeps every row. */
void lsim_hybrid_record_release_rows(LsimHybridRecord *h, int on);
/* "" while the disk holding the file (or the file size limit, ulimit -f) has room for the
 * next flush and the close (scene/outfile.h, lsim_outfile_room_low); after a flush that
 * left too little, why (naming the file and the room): the run should stop and close the
 * file, whole. */
const char *lsim_hybrid_record_space_low(const LsimHybridRecord *h);
int lsim_hybrid_record_close(LsimHybridRecord *h, const LsimHybridTrace *tr, double wall_time,
                             int keep, char *err, size_t errlen);

#endif
