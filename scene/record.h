/* record.h: the HDF5 output of a run (docs/output-format.md).
 *
 * One file per run, written step by step into chunked, extendable datasets, readable by
 * h5py, Matlab h5read and Octave (load / ncread): numeric datasets and fixed-length
 * strings only; key parameters are datasets too. The file is written under a temporary
 * name and renamed to its final name on lsim_record_close, so an interrupted or failed
 * run never leaves a half-written file under the final name.
 */
#ifndef LSIM_RECORD_H
#define LSIM_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "contact/contact.h"
#include "contact/step.h"
#include "contact/world.h"

typedef struct LsimRecord LsimRecord;

/* Opens path (temporarily as path + ".partial") and writes the run's header: version,
 * scene text, parameters (dimension, time step, steps, body names, masses, widths,
 * solver name and options), and the initial state as row 0 of the state datasets.
 * Returns 0 or < 0 with a message in err. */
int lsim_record_open(LsimRecord **out, const char *path, const LsimModel *model,
                     const LsimState *initial, const char *scene_text,
                     const char *solver_name, char *err, size_t errlen);

/* Appends one step: the new state (time, q, v, energies), the step's contacts with their
 * impulses, and the solver statistics. Buffers and flushes in chunks. 0 or < 0. */
int lsim_record_step(LsimRecord *r, const LsimModel *model, const LsimState *state,
                     const LsimContactSet *contacts, const LsimStepStats *stats);

/* The open HDF5 file (an hid_t, as int64_t so this header needs no HDF5 include), for
 * modules that add groups of their own to a run file (LCP dumps, comparisons). Valid
 * until lsim_record_close. */
int64_t lsim_record_hdf5_file(const LsimRecord *r);

/* Writes the summary datasets, flushes, closes and renames to the final path. With
 * keep = 0 (a run that failed before finishing its setup, say) the partial file is
 * removed instead. 0 or < 0 with a message in err. Frees r in every case. */
int lsim_record_close(LsimRecord *r, int keep, char *err, size_t errlen);

#endif
