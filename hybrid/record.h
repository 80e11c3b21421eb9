/* record.h: the HDF5 file of a hybrid model run (docs/output-format.md, "Hybrid runs").
 *
 * The conventions of run files (scene/record.h): numeric datasets and fixed-length
 * strings only, the scene text and every parameter as datasets, /time with one row per
 * recorded state, /summary with how the run ended; written as PATH.partial and renamed
 * when complete, so a file under its final name is always whole.
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

#endif
