/* support.h: helpers shared by the cmocka test programs. */
#ifndef LSIM_TEST_SUPPORT_H
#define LSIM_TEST_SUPPORT_H

#include <stddef.h>

/* Path of a file under the shared folder (env LSIM_SHARED, default "../shared"):
 * writes LSIM_SHARED/rel into buf and returns buf. */
const char *lsim_test_shared_path(const char *rel, char *buf, size_t len);

/* max_i |a_i - b_i| */
double lsim_test_max_abs_diff(const double *a, const double *b, int n);

/* max_i |a_i| */
double lsim_test_max_abs(const double *a, int n);

/* glibc's in-use heap bytes (mallinfo2), for "no allocation in steady state" checks; 0
 * under AddressSanitizer, which replaces malloc so mallinfo2 tells nothing there:
 * lsim_test_heap_checkable() says which. */
size_t lsim_test_heap_in_use(void);
int lsim_test_heap_checkable(void);

#endif
