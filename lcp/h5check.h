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

#endif
