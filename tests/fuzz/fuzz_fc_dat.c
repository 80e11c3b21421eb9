/* fuzz_fc_dat: the Siconos frictionContact .dat reader (lsim_fc_dat_read, through a
 * temporary file); an accepted problem has dim 2 or 3, n = dim * nc, finite W and q and
 * mu >= 0. */
#include "fc_check.h"
#include "fuzz.h"
#include "lcp/datfile.h"
#include "lcp/fc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = lsim_fuzz_file(data, size, ".dat");
  LsimFc p;
  char err[512];
  if (lsim_fc_dat_read(path, &p, err, sizeof err)) {
    if (!err[0]) abort();
    return 0;
  }
  lsim_fuzz_check_fc(&p);
  lsim_fc_free(&p);
  return 0;
}
