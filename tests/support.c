/* support.c: helpers shared by the cmocka test programs. */
#include "support.h"

#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

const char *lsim_test_shared_path(const char *rel, char *buf, size_t len) {
  const char *root = getenv("LSIM_SHARED");
  snprintf(buf, len, "%s/%s", root && *root ? root : "../shared", rel);
  return buf;
}

double lsim_test_max_abs_diff(const double *a, const double *b, int n) {
  double m = 0.0;
  for (int i = 0; i < n; ++i) m = fmax(m, fabs(a[i] - b[i]));
  return m;
}

double lsim_test_max_abs(const double *a, int n) {
  double m = 0.0;
  for (int i = 0; i < n; ++i) m = fmax(m, fabs(a[i]));
  return m;
}

#if defined(__SANITIZE_ADDRESS__)
int lsim_test_heap_checkable(void) { return 0; }
size_t lsim_test_heap_in_use(void) { return 0; }
#else
int lsim_test_heap_checkable(void) { return 1; }
size_t lsim_test_heap_in_use(void) {
  struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}
#endif
