/* fuzz_dat: the Siconos .dat LCP reader (lsim_dat_read_stream) on arbitrary text; an
 * accepted problem must be square with finite data (its documented contract). */
#include <math.h>

#include "fuzz.h"
#include "lcp/datfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FILE *f = fmemopen((void *)data, size ? size : 1, "r");
  if (!f) return 0;
  if (!size) { fclose(f); return 0; }
  LsimLcp lcp;
  char err[512];
  const int rc = lsim_dat_read_stream(f, "fuzz.dat", &lcp, err, sizeof err);
  fclose(f);
  if (rc) {
    if (!err[0] || lcp.M || lcp.q) abort(); /* error: a message, nothing left allocated */
    return 0;
  }
  if (lcp.n < 0 || (lcp.n > 0 && (!lcp.M || !lcp.q))) abort(); /* n = 0 is allowed */
  for (size_t i = 0; i < (size_t)lcp.n * (size_t)lcp.n; ++i)
    if (!isfinite(lcp.M[i])) abort();
  for (int i = 0; i < lcp.n; ++i)
    if (!isfinite(lcp.q[i])) abort();
  lsim_lcp_free(&lcp);
  return 0;
}
