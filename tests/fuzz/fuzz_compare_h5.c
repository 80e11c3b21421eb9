/* fuzz_compare_h5: the dump of a compare file (lcpsim compare --dump-lcp), read per
 * series as `lcpsim solve CMP.h5 --step K --series S` and `lcpsim export` do (series -1,
 * 0, 1; steps 1..2). See dump_target.h. */
#include "dump_target.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const int series[] = {-1, 0, 1};
  return lsim_fuzz_dump(data, size, series, 3, 2);
}
