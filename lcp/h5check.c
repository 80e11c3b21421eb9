/* h5check.c: see h5check.h. */
#include "lcp/h5check.h"

#include <stdio.h>
#include <string.h>

int lsim_h5_numeric_dataset(hid_t d) {
  /* The stored type: a number of at most 8 bytes. */
  hid_t t = H5Dget_type(d);
  if (t < 0) return 0;
  const H5T_class_t cl = H5Tget_class(t);
  const size_t size = H5Tget_size(t);
  H5Tclose(t);
  if ((cl != H5T_INTEGER && cl != H5T_FLOAT) || size < 1 || size > 8) return 0;
  return lsim_h5_dataset_complete(d);
}

int lsim_h5_dataset_complete(hid_t d) {
  hid_t t = H5Dget_type(d);
  if (t < 0) return 0;
  const size_t size = H5Tget_size(t);
  H5Tclose(t);
  if (size < 1) return 0;
  /* A compact dataset carries its data in its header: all of it must be there. */
  hid_t dcpl = H5Dget_create_plist(d);
  if (dcpl < 0) return 0;
  const H5D_layout_t layout = H5Pget_layout(dcpl);
  H5Pclose(dcpl);
  if (layout < 0) return 0;
  if (layout == H5D_COMPACT) {
    hid_t s = H5Dget_space(d);
    const hssize_t npoints = s >= 0 ? H5Sget_simple_extent_npoints(s) : -1;
    if (s >= 0) H5Sclose(s);
    if (npoints < 0 || H5Dget_storage_size(d) < (hsize_t)npoints * size) return 0;
  }
  return 1;
}

int lsim_h5_head(const char *path) {
  static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  unsigned char head[LSIM_H5_USER_BLOCK + 8];
  FILE *f = path ? fopen(path, "rb") : NULL;
  if (!f) return LSIM_H5_HEAD_OTHER;
  const size_t got = fread(head, 1, sizeof head, f);
  fclose(f);
  if (got >= 8 && !memcmp(head, sig, 8)) return LSIM_H5_HEAD_PLAIN;
  if (got < sizeof head || memcmp(head + LSIM_H5_USER_BLOCK, sig, 8)) return LSIM_H5_HEAD_OTHER;
  if (!memcmp(head, LSIM_H5_MARK_PENDING, LSIM_H5_MARK_LEN)) return LSIM_H5_HEAD_CUT;
  size_t k = 0;
  while (k < LSIM_H5_USER_BLOCK && !head[k]) ++k;
  return k == LSIM_H5_USER_BLOCK ? LSIM_H5_HEAD_CUT : LSIM_H5_HEAD_WHOLE;
}
