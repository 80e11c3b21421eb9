/* h5check.h: a check of an HDF5 dataset before reading it, for the readers of files
 * lcpsim did not necessarily write (FCLIB problems, dumps in run and compare files).
 *
 * HDF5 1.10 trusts a damaged file's metadata in places: a stored type of gigabytes per
 * element sizes its conversion buffer, and a compact dataset whose stored data is shorter
 * than its extent (size 0) is read through a NULL pointer. Found by fuzzing
 * (docs/fuzzing.md); both are refused here before H5Dread. */
#ifndef LSIM_H5CHECK_H
#define LSIM_H5CHECK_H

#include <hdf5.h>

/* 1 when dataset d (open) stores plain numbers, integers or floats of 1 to 8 bytes, and, if
 * its layout is compact, holds the bytes of its whole extent; else 0. */
int lsim_h5_numeric_dataset(hid_t d);

/* The compact-layout part of that check alone, for datasets of any type (strings). */
int lsim_h5_dataset_complete(hid_t d);

/* The head of a run file (scene/record.c): a user block of LSIM_H5_USER_BLOCK bytes
 * before HDF5's superblock, which HDF5 never writes. The writer puts LSIM_H5_MARK_PENDING
 * there when it creates the file and LSIM_H5_MARK_WHOLE, one write in place, once the
 * file's first complete flush is in it (every object the writer makes made and flushed,
 * its marks /flushed_rows written): a kill before then leaves HDF5 metadata of several
 * flushes mixed (objects being made move others: name heaps, free space, B-trees), which
 * HDF5 can crash on (h5py: "free(): invalid pointer"; h5dump aborts), so such a file is
 * refused on this head alone, read without HDF5. */
#define LSIM_H5_USER_BLOCK 512
#define LSIM_H5_MARK_PENDING "lcpsim run file: being written\n"
#define LSIM_H5_MARK_WHOLE "lcpsim run file: flushed whole\n"
#define LSIM_H5_MARK_LEN 31 /* both marks' length */

/* What the first bytes of the file path say, read with plain reads:
 * LSIM_H5_HEAD_PLAIN   HDF5's signature at 0 (no user block: files of other writers, run
 *                      files written before the user block);
 * LSIM_H5_HEAD_WHOLE   HDF5's signature at LSIM_H5_USER_BLOCK after LSIM_H5_MARK_WHOLE,
 *                      or after a user block of another program's;
 * LSIM_H5_HEAD_CUT     the signature at LSIM_H5_USER_BLOCK after LSIM_H5_MARK_PENDING or a
 *                      block of zeros: a run file cut before its first complete flush,
 *                      not to be opened with HDF5;
 * LSIM_H5_HEAD_OTHER   none of these (not HDF5, shorter, unreadable). */
enum { LSIM_H5_HEAD_OTHER, LSIM_H5_HEAD_PLAIN, LSIM_H5_HEAD_WHOLE, LSIM_H5_HEAD_CUT };
int lsim_h5_head(const char *path);

/* The one line that refuses such a file (without a newline), for every reader. */
#define LSIM_H5_CUT_MESSAGE                                                                  \
  "cut before its first complete flush (a run killed while it wrote its header and first "  \
  "rows; HDF5 could crash on what it holds): nothing in it can be read, run the scene again"

#endif
