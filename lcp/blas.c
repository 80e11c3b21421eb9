/* blas.c: see blas.h. OpenBLAS' thread count, set once through a weak reference. */
#include "blas.h"

#include <pthread.h>

/* Defined by OpenBLAS (pulled in by Siconos Numerics); NULL when no OpenBLAS is loaded. */
extern void openblas_set_num_threads(int num_threads) __attribute__((weak));

static void set_one_thread(void) {
  if (openblas_set_num_threads) openblas_set_num_threads(1);
}

/* Once per process, under pthread_once: solvers made in different threads call this. */
void lsim_blas_one_thread(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, set_one_thread);
}
