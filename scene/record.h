/* record.h: the HDF5 output of a run (docs/output-format.md).
 *
 * One file per run, written step by step into chunked, extendable datasets, readable by
 * h5py, Matlab h5read and Octave (load / ncread): numeric datasets and fixed-length
 * strings only; key parameters are datasets too. The file is written under a name of its
 * own (PATH.<pid>.partial, scene/outfile.h) and renamed to its final name on
 * lsim_record_close, so an interrupted or failed run never leaves a half-written file
 * under the final name, and only a regular file is ever replaced.
 */
#ifndef LSIM_RECORD_H
#define LSIM_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "contact/contact.h"
#include "contact/step.h"
#include "contact/world.h"

typedef struct LsimRecord LsimRecord;

/* The file access list of files written in flushes (this record, hybrid records, compare
 * files): HDF5's metadata reaches the file only at H5Fflush, so a process killed between
 * flushes leaves the file of the last one. The caller closes it (H5Pclose) unless it is
 * H5P_DEFAULT (returned when it cannot be made). An hid_t. */
int64_t lsim_record_fapl(void);

/* After H5Fcreate with lsim_record_fapl: the datasets made after it in the file (an
 * hid_t) keep their chunks in HDF5 1.10's index (an extensible array), which a kill inside
 * a flush never leaves pointing away from the chunks of earlier flushes; the file needs
 * HDF5 1.10 or later to read. 0 or LSIM_IO_ERROR. */
int lsim_record_index_format(int64_t file);

/* 1 when the environment asks PGS's coloured sweep for LSIM_SIMD=reference (lcp/pgs.h), the
 * one path whose bits differ from the others' (docs/solvers.md, "Environment"), else 0. A
 * run under it records /parameters/solver_simd "reference", and a resume must take the same
 * (scene/resume.h, lsim_resume_check_env). */
int lsim_record_simd_reference(void);

/* Creates (truncates) the HDF5 file path for a writer that flushes as it goes (run,
 * hybrid-model and compare files): lsim_record_fapl's access list (with evict-on-close
 * when evict_on_close, for writers that reopen their datasets to trim the cache), a root
 * group whose name heap holds every name the writer adds without moving and whose symbol
 * table node holds 32 names without splitting (so a kill while the close links /summary
 * leaves the root's names readable), and
 * lsim_record_index_format's chunk index. user_block (run files): the file starts with
 * a user block holding LSIM_H5_MARK_PENDING (lcp/h5check.h), which the writer turns
 * into LSIM_H5_MARK_WHOLE at its first complete flush. The file (an hid_t) or
 * LSIM_IO_ERROR. */
int64_t lsim_record_create_file(const char *path, int evict_on_close, int user_block);

/* Opens path (temporarily as PATH.<pid>.partial; a directory, FIFO, socket or block
 * device as path is refused, a character device written through: scene/outfile.h) and
 * writes the run's header: version,
 * scene text, parameters (dimension, time step, steps, body names, masses, widths,
 * solver name and options), and the initial state as row 0 of the state datasets.
 * The header and row 0 are flushed to disk at once. Returns 0 or < 0 with a message in
 * err. */
int lsim_record_open(LsimRecord **out, const char *path, const LsimModel *model,
                     const LsimState *initial, const char *scene_text,
                     const char *solver_name, char *err, size_t errlen);

/* Appends one step: the new state (time, q, v, energies), the step's contacts with their
 * impulses, and the solver statistics. Buffers and flushes in chunks. 0 or < 0. */
int lsim_record_step(LsimRecord *r, const LsimModel *model, const LsimState *state,
                     const LsimContactSet *contacts, const LsimStepStats *stats);

/* A row every `every` steps (docs/output-format.md, "Record stride"): the state, solver,
 * contact, tether and joint rows of the steps whose number is a multiple of every, and of
 * the last step (kept at close: a run's end state is always in the file); row 0 stays the
 * state given to lsim_record_open. The summary counts every step; /solver/failed_steps
 * counts the failed steps since the row before. Writes /parameters/record_every (and, for
 * every > 1, /step and /solver/failed_steps). Once, before the first step (and before
 * lsim_record_copy_steps). The steps are unchanged: the record only reads them. 0 or < 0
 * with err. */
int lsim_record_set_every(LsimRecord *r, int every, char *err, size_t errlen);

/* The open HDF5 file (an hid_t, as int64_t so this header needs no HDF5 include), for
 * modules that add groups of their own to a run file (LCP dumps, comparisons). Valid
 * until lsim_record_close. */
int64_t lsim_record_hdf5_file(const LsimRecord *r);

/* How a run ended, written at close as /summary/run_end ("completed", "stopped",
 * "interrupted"), /summary/run_end_step (the last step recorded) and
 * /summary/run_end_reason (one line; "" when completed). Until this is called a run is
 * "completed". stopped: the run itself ended early (a diverging state, a solver failure
 * under the "stop" policy); interrupted: a signal ended it. Keeps a copy of reason. */
typedef enum {
  LSIM_RUN_COMPLETED = 0,
  LSIM_RUN_STOPPED = 1,
  LSIM_RUN_INTERRUPTED = 2
} LsimRunEnd;
void lsim_record_set_end(LsimRecord *r, LsimRunEnd end, const char *reason);

/* Writes the event table of an event-driven run (docs/output-format.md, "/events"):
 * /parameters/integrator (the integrator's name), /events/time [n] (s), /events/kind [n]
 * (an index into /events/kind_legend, the nkinds names), /events/contact [n] (the
 * contact's id), /events/body_a, /events/body_b [n]. n may be 0. 0 or < 0 with err. */
int lsim_record_events(LsimRecord *r, const char *integrator, int n, const double *t,
                       const int *kind, const uint64_t *contact, const int *body_a,
                       const int *body_b, const char *const *kind_names, int nkinds,
                       char *err, size_t errlen);

/* The same table written as the run goes: _begin writes /parameters/integrator and
 * /events/kind_legend and makes the /events datasets (extendable, 0 rows, flushed at
 * once); each lsim_record_event appends a row, buffered and flushed with the steps' rows
 * (so a killed run's partial file keeps its events up to the last flush). From _begin on,
 * each flush is followed by the marks /flushed_events (the /events rows it left whole) and
 * /flushed_rows (its /time rows), as a time-stepping run's /flushed_rows: a killed run's
 * readers read up to them. Once per file (lsim_record_events is _begin and n events).
 * 0 or < 0 (err / the record's sticky error). */
int lsim_record_events_begin(LsimRecord *r, const char *integrator,
                             const char *const *kind_names, int nkinds, char *err,
                             size_t errlen);
int lsim_record_event(LsimRecord *r, double t, int kind, uint64_t contact, int body_a,
                      int body_b);

/* Writes the summary datasets, flushes, closes and renames to the final path (a file
 * that cannot be put in place is kept under its partial name, named in err). With
 * keep = 0 (a run that failed before finishing its setup, say) the partial file is
 * removed instead. 0 or < 0 with a message in err. Frees r in every case. */
int lsim_record_close(LsimRecord *r, int keep, char *err, size_t errlen);

/* The first error of r ("<path>: <what>[: HDF5's reason]"), "" while there is none. */
const char *lsim_record_error(const LsimRecord *r);

/* "" while the disk holding the file has room; after a flush that left too little for the
 * next one and the close (a full disk would leave a file that does not read), why: the
 * caller should stop the run (lsim_record_set_end, stopped) and close the file, which
 * then still fits. */
const char *lsim_record_space_low(const LsimRecord *r);

/* The bytes of r's file so far (its partial file), or -1 when they cannot be read. */
double lsim_record_file_bytes(const LsimRecord *r);

/* Another writer appending to this file's datasets (lsim_lcpdump_reopen, --dump-lcp):
 * reopen(user) is called right after a flush whenever the record trims HDF5's metadata
 * cache (closing and reopening its datasets once the cache has doubled), so that the
 * chunk indexes of that writer's datasets leave memory too; it returns 0 or < 0 (the
 * record fails). NULL turns it off. The file is opened with evict-on-close. */
void lsim_record_trim_also(LsimRecord *r, int (*reopen)(void *), void *user);

/* An LCP dump in this file (--dump-lcp, /lcp): count is the problems it has appended so
 * far (lsim_lcpdump_count), given after each append. The first call makes the record keep
 * /flushed_lcp_problems beside /flushed_rows: the count as of the last flush that reached
 * the file whole, written with /flushed_rows (docs/output-format.md, "Killed runs"). */
void lsim_record_lcp_problems(LsimRecord *r, int64_t count);

/* The same dump's bytes appended so far and those of a chunk of each of its datasets
 * (lsim_lcpdump_bytes), given after each step's append: the dump writes into the record's
 * file, so its bytes since the last flush count toward the flush trigger of
 * LSIM_RECORD_FLUSH_BYTES and its largest step and chunks into the room the run asks for
 * after a flush (docs/output-format.md, "A disk that fills"). */
void lsim_record_lcp_bytes(LsimRecord *r, double bytes, double chunk_bytes);

/* Continuing a run (lcpsim SCENE --resume RUN.h5; docs/output-format.md, "Resuming a
 * run"). lsim_record_copy_steps copies steps 1 .. nsteps of the run file src_path (every
 * per-step and per-contact dataset, the state rows after row 0, which lsim_record_open
 * wrote from the initial state) into r, just opened for the same model, and takes them
 * into the summary as if they had been recorded here. With a stride (lsim_record_set_every,
 * set first, equal to the file's) the rows of the steps kept up to step nsteps are copied,
 * step nsteps's own row only when the stride keeps it, and the summary is taken from the
 * /resume slot of step nsteps. 0 or < 0 with err. */
int lsim_record_copy_steps(LsimRecord *r, const char *src_path, int nsteps,
                           const LsimModel *model, char *err, size_t errlen);

/* From now on each flush (every 256 steps or second, and the close) writes stepper's
 * memory (LsimStepMemory: warm start, sleeping) as of the last step recorded to /resume,
 * when state is that step's (the step of row 0, the state lsim_record_open was given,
 * plus the steps recorded; /resume/slotN/step says it): what lets the run continue to the
 * bit. After such a flush reached the file, /flushed_rows says how many /time rows it left
 * whole (a process killed inside a later flush leaves those intact). The three are
 * borrowed until lsim_record_close. */
void lsim_record_keep_memory(LsimRecord *r, const LsimStepper *stepper, const LsimModel *model,
                             const LsimState *state);

#endif
