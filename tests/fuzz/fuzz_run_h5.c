/* fuzz_run_h5: `lcpsim solve RUN.h5 --step K` on a run file written with --dump-lcp
 * (the default series; steps 1..3). See dump_target.h. */
#include "dump_target.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const int series[] = {-1};
  return lsim_fuzz_dump(data, size, series, 1, 3);
}
