/* fuzz_fclib_h5: the FCLIB HDF5 frictional contact reader (lsim_fc_read on a .hdf5 file,
 * as `lcpsim solve FILE.hdf5` reads it); an accepted problem has dim 2 or 3,
 * n = dim * nc, finite W and q and mu >= 0. */
#include <hdf5.h>

#include "fc_check.h"
#include "fuzz.h"
#include "lcp/fc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = lsim_fuzz_file(data, size, ".hdf5");
  LsimFc p;
  char err[512];
  const int rc = lsim_fc_read(path, &p, err, sizeof err);
  /* Every HDF5 handle closed again, whatever happened (an open one keeps the file). */
  if (H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) != 0) abort();
  if (rc) {
    if (!err[0]) abort();
    return 0;
  }
  lsim_fuzz_check_fc(&p);
  lsim_fc_free(&p);
  return 0;
}
