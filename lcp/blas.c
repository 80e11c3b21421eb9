/* blas.c: see blas.h. OpenBLAS' thread count, set once through a weak reference. */
#include "blas.h"

/* Defined by OpenBLAS (pulled in by Siconos Numerics); NULL when no OpenBLAS is loaded. */
extern void openblas_set_num_threads(int num_threads) __attribute__((weak));

void lsim_blas_one_thread(void) {
  static int done;
  if (done) return;
  if (openblas_set_num_threads) openblas_set_num_threads(1);
  done = 1;
}
