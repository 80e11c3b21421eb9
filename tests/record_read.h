/* record_read.h: reading a run file back in the recorder's tests (test_record.c,
 * test_record_nd.c) with the HDF5 C API: a temporary folder, datasets opened with their
 * rank and shape checked, whole datasets and scalars read with their type class checked,
 * fixed-length strings. Include after <cmocka.h> and <hdf5.h>. */
#ifndef LSIM_TESTS_RECORD_READ_H
#define LSIM_TESTS_RECORD_READ_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A fresh temporary directory; the caller removes it. */
static inline void temp_dir(char *buf, size_t len) {
  snprintf(buf, len, "/tmp/lsim_test_record_XXXXXX");
  assert_non_null(mkdtemp(buf));
}

static inline int exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

/* ---- readers ---- */

/* Opens dataset name and checks its rank and dimensions: [d0], [d0, d1] or, rank 3,
 * [d0, d1, d1] (d1 ignored for rank 1). */
static inline hid_t open_checked(hid_t f, const char *name, int rank, hsize_t d0, hsize_t d1) {
  hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  if (d < 0) fail_msg("missing dataset %s", name);
  hid_t sp = H5Dget_space(d);
  hsize_t dims[3] = {0, 0, 0};
  if (H5Sget_simple_extent_ndims(sp) > 3) fail_msg("%s: rank over 3", name);
  int nd = H5Sget_simple_extent_dims(sp, dims, NULL);
  H5Sclose(sp);
  if (nd != rank) fail_msg("%s: rank %d, expected %d", name, nd, rank);
  if (rank >= 1 && dims[0] != d0)
    fail_msg("%s: dim 0 is %llu, expected %llu", name, (unsigned long long)dims[0],
             (unsigned long long)d0);
  if (rank >= 2 && (dims[1] != d1 || (rank == 3 && dims[2] != d1)))
    fail_msg("%s: dim 1 is %llu, expected %llu", name, (unsigned long long)dims[1],
             (unsigned long long)d1);
  return d;
}

/* Reads a whole dataset of the given shape (rank 0: scalar) with memory type t into out,
 * checking the file type's class (integer / float). */
static inline void read_as(hid_t f, const char *name, hid_t t, int rank, hsize_t d0, hsize_t d1,
                    void *out) {
  hid_t d = open_checked(f, name, rank, d0, d1);
  hid_t ft = H5Dget_type(d);
  if (H5Tget_class(ft) != H5Tget_class(t)) fail_msg("%s: wrong type class", name);
  H5Tclose(ft);
  assert_true(H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) >= 0);
  H5Dclose(d);
}

static inline double read_scalar_d(hid_t f, const char *name) {
  double x;
  read_as(f, name, H5T_NATIVE_DOUBLE, 0, 0, 0, &x);
  return x;
}

static inline long long read_scalar_i(hid_t f, const char *name) {
  long long x;
  read_as(f, name, H5T_NATIVE_LLONG, 0, 0, 0, &x);
  return x;
}

/* Reads n fixed-length strings (n < 0: a scalar) into out[i] (each at most 255 chars). */
static inline void read_strings(hid_t f, const char *name, int n, char out[][256]) {
  hid_t d = open_checked(f, name, n < 0 ? 0 : 1, n < 0 ? 0 : (hsize_t)n, 0);
  hid_t t = H5Dget_type(d);
  assert_int_equal(H5Tget_class(t), H5T_STRING);
  if (H5Tis_variable_str(t) != 0) fail_msg("%s: variable-length string", name);
  size_t len = H5Tget_size(t);
  int count = n < 0 ? 1 : n;
  char *buf = calloc((size_t)count, len);
  assert_non_null(buf);
  assert_true(H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
  for (int i = 0; i < count; ++i) {
    size_t l = strnlen(buf + (size_t)i * len, len);
    assert_true(l < 256);
    memcpy(out[i], buf + (size_t)i * len, l);
    out[i][l] = 0;
  }
  free(buf);
  H5Tclose(t);
  H5Dclose(d);
}

#endif
