/* fc_check.h: what every accepted frictional contact problem satisfies, for the fuzz
 * targets of its readers (fuzz_fc_dat.c, fuzz_fclib_h5.c): dim 2 or 3, n = dim * nc,
 * finite W and q, mu >= 0. Any breach aborts, which libFuzzer reports. */
#ifndef LSIM_FUZZ_FC_CHECK_H
#define LSIM_FUZZ_FC_CHECK_H

#include <math.h>
#include <stdlib.h>

#include "lcp/fc.h"

static inline void lsim_fuzz_check_fc(const LsimFc *p) {
  if ((p->dim != 2 && p->dim != 3) || p->nc < 1 || p->n != p->dim * p->nc) abort();
  for (size_t i = 0; i < (size_t)p->n * (size_t)p->n; ++i)
    if (!isfinite(p->W[i])) abort();
  for (int i = 0; i < p->n; ++i)
    if (!isfinite(p->q[i])) abort();
  for (int c = 0; c < p->nc; ++c)
    if (!(p->mu[c] >= 0.0)) abort();
}

#endif
