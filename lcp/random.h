/* random.h: deterministic random LCPs of known classes, for tests, benchmarks and
 * experiments. The same seed gives the same problem on every machine (splitmix64, no libc
 * rand). */
#ifndef LSIM_RANDOM_H
#define LSIM_RANDOM_H

#include <stdint.h>

#include "lcp.h"

typedef struct LsimRng {
  uint64_t state;
} LsimRng;

LsimRng lsim_rng(uint64_t seed);
double lsim_rng_uniform(LsimRng *rng);             /* [0, 1) */
double lsim_rng_range(LsimRng *rng, double a, double b); /* [a, b) */
double lsim_rng_normal(LsimRng *rng);              /* standard normal (Box-Muller) */

/* Each generator initialises lcp (lsim_lcp_init) and returns 0 or LSIM_OUT_OF_MEMORY.
 * The caller frees with lsim_lcp_free. */

/* SPD: M = A^T A / n + 0.1 I with A standard normal, q uniform in [-1, 1]. Unique z. */
int lsim_lcp_random_spd(LsimLcp *lcp, int n, LsimRng *rng);

/* Symmetric PSD of rank r < n: M = B B^T / r, B n x r normal; q = w0 - M z0 for a random
 * complementary pair z0, w0 >= 0, so the problem is solvable (w unique, z maybe not). */
int lsim_lcp_random_psd(LsimLcp *lcp, int n, int rank, LsimRng *rng);

/* Non-symmetric positive definite, hence a P-matrix: M = S + K with S SPD as above and K
 * skew-symmetric normal; q uniform in [-1, 1]. Unique z. */
int lsim_lcp_random_pmatrix(LsimLcp *lcp, int n, LsimRng *rng);

/* Stewart-Trinkle contact LCP: nc contacts, d friction directions each (d even: the
 * directions come in opposite pairs), m generalized velocities, friction coefficient mu.
 * Variables z = (c_n [nc], beta [nc*d], lambda [nc]), n = nc*(d+2):
 *   M = [ N'W N   N'W D   0  ]      q = [ phi/h + N'v ]
 *       [ D'W N   D'W D   E  ]          [ D'v         ]
 *       [ mu      -E'     0  ]          [ 0           ]
 * with W = Minv (random SPD m x m), N, D random, E block-diagonal of ones, gaps phi >= 0
 * (so the problem is feasible), v random. Copositive-plus structure; Lemke solves it. */
int lsim_lcp_random_contact(LsimLcp *lcp, int nc, int d, int m, double mu, LsimRng *rng);

#endif
