/* random.c: deterministic random LCPs (see random.h). */
#include "random.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

LsimRng lsim_rng(uint64_t seed) {
  LsimRng r = {seed ^ 0x9E3779B97F4A7C15ull};
  return r;
}

/* splitmix64 (Steele, Lea, Flood 2014). */
static uint64_t next_u64(LsimRng *rng) {
  uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double lsim_rng_uniform(LsimRng *rng) { return (double)(next_u64(rng) >> 11) * 0x1.0p-53; }

double lsim_rng_range(LsimRng *rng, double a, double b) {
  return a + (b - a) * lsim_rng_uniform(rng);
}

double lsim_rng_normal(LsimRng *rng) {
  double u1 = lsim_rng_uniform(rng), u2 = lsim_rng_uniform(rng);
  if (u1 < 1e-300) u1 = 1e-300;
  return sqrt(-2.0 * log(u1)) * cos(6.283185307179586476925 * u2);
}

/* S = A^T A / n + shift I into S (column-major, n x n). A is scratch n x n. */
static void random_spd_into(double *S, double *A, int n, double shift, LsimRng *rng) {
  for (size_t k = 0; k < (size_t)n * n; ++k) A[k] = lsim_rng_normal(rng);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i <= j; ++i) {
      double s = 0.0;
      for (int k = 0; k < n; ++k) s += A[k + (size_t)i * n] * A[k + (size_t)j * n];
      s /= n;
      S[i + (size_t)j * n] = S[j + (size_t)i * n] = s;
    }
  for (int i = 0; i < n; ++i) S[i + (size_t)i * n] += shift;
}

int lsim_lcp_random_spd(LsimLcp *lcp, int n, LsimRng *rng) {
  int rc = lsim_lcp_init(lcp, n);
  if (rc) return rc;
  double *A = malloc(((size_t)n * n + 1) * sizeof(double));
  if (!A) {
    lsim_lcp_free(lcp);
    return LSIM_OUT_OF_MEMORY;
  }
  random_spd_into(lcp->M, A, n, 0.1, rng);
  for (int i = 0; i < n; ++i) lcp->q[i] = lsim_rng_range(rng, -1.0, 1.0);
  free(A);
  return 0;
}

int lsim_lcp_random_psd(LsimLcp *lcp, int n, int rank, LsimRng *rng) {
  if (rank < 1) rank = 1;
  int rc = lsim_lcp_init(lcp, n);
  if (rc) return rc;
  double *B = malloc(((size_t)n * rank + (size_t)n) * sizeof(double));
  if (!B) {
    lsim_lcp_free(lcp);
    return LSIM_OUT_OF_MEMORY;
  }
  double *z0 = B + (size_t)n * rank;
  for (size_t k = 0; k < (size_t)n * rank; ++k) B[k] = lsim_rng_normal(rng);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i <= j; ++i) {
      double s = 0.0;
      for (int k = 0; k < rank; ++k) s += B[i + (size_t)k * n] * B[j + (size_t)k * n];
      s /= rank;
      lcp->M[i + (size_t)j * n] = lcp->M[j + (size_t)i * n] = s;
    }
  /* A complementary pair: z0_i > 0 with w0_i = 0, or z0_i = 0 with w0_i > 0. */
  for (int i = 0; i < n; ++i) z0[i] = lsim_rng_uniform(rng) < 0.5 ? lsim_rng_uniform(rng) : 0.0;
  lsim_lcp_w(lcp, z0, lcp->q); /* q = M z0 (q was zero) */
  for (int i = 0; i < n; ++i) {
    double w0 = z0[i] > 0.0 ? 0.0 : lsim_rng_uniform(rng);
    lcp->q[i] = w0 - lcp->q[i];
  }
  free(B);
  return 0;
}

int lsim_lcp_random_pmatrix(LsimLcp *lcp, int n, LsimRng *rng) {
  int rc = lsim_lcp_random_spd(lcp, n, rng);
  if (rc) return rc;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < j; ++i) {
      double k = 0.5 * lsim_rng_normal(rng);
      lcp->M[i + (size_t)j * n] += k;
      lcp->M[j + (size_t)i * n] -= k;
    }
  return 0;
}

int lsim_lcp_random_contact(LsimLcp *lcp, int nc, int d, int m, double mu, LsimRng *rng) {
  if (d < 2 || d % 2) return LSIM_INVALID_INPUT;
  const int nb = nc * d, n = nc * (d + 2);
  int rc = lsim_lcp_init(lcp, n);
  if (rc) return rc;
  /* Scratch: W (m x m), A (m x m), G = [N D] (m x (nc+nb)), WG (m x (nc+nb)), v (m). */
  const int ng = nc + nb;
  double *buf = malloc(((size_t)2 * m * m + (size_t)2 * m * ng + m) * sizeof(double));
  if (!buf) {
    lsim_lcp_free(lcp);
    return LSIM_OUT_OF_MEMORY;
  }
  double *W = buf, *A = W + (size_t)m * m, *G = A + (size_t)m * m, *WG = G + (size_t)m * ng;
  double *v = WG + (size_t)m * ng;
  random_spd_into(W, A, m, 0.1, rng);
  /* Normals N: columns 0..nc-1; friction directions: d/2 random ones and their opposites. */
  for (int c = 0; c < nc; ++c) {
    for (int r = 0; r < m; ++r) G[r + (size_t)c * m] = lsim_rng_normal(rng);
    for (int k = 0; k < d / 2; ++k) {
      double *col = G + (size_t)(nc + c * d + k) * m;
      double *opp = G + (size_t)(nc + c * d + k + d / 2) * m;
      for (int r = 0; r < m; ++r) {
        col[r] = lsim_rng_normal(rng);
        opp[r] = -col[r];
      }
    }
  }
  for (int r = 0; r < m; ++r) v[r] = lsim_rng_normal(rng);
  /* WG = W G, then the (c_n, beta) block G' W G. */
  for (int c = 0; c < ng; ++c)
    for (int r = 0; r < m; ++r) {
      double s = 0.0;
      for (int k = 0; k < m; ++k) s += W[r + (size_t)k * m] * G[k + (size_t)c * m];
      WG[r + (size_t)c * m] = s;
    }
  for (int j = 0; j < ng; ++j)
    for (int i = 0; i < ng; ++i) {
      double s = 0.0;
      for (int k = 0; k < m; ++k) s += G[k + (size_t)i * m] * WG[k + (size_t)j * m];
      lcp->M[i + (size_t)j * n] = s;
    }
  /* E, -E', mu blocks. */
  for (int c = 0; c < nc; ++c) {
    const int lam = ng + c;
    for (int k = 0; k < d; ++k) {
      const int b = nc + c * d + k;
      lcp->M[b + (size_t)lam * n] = 1.0;
      lcp->M[lam + (size_t)b * n] = -1.0;
    }
    lcp->M[lam + (size_t)c * n] = mu;
  }
  /* q: gaps phi/h >= 0 plus G'v. */
  for (int i = 0; i < ng; ++i) {
    double s = 0.0;
    for (int r = 0; r < m; ++r) s += G[r + (size_t)i * m] * v[r];
    lcp->q[i] = s;
  }
  for (int c = 0; c < nc; ++c) lcp->q[c] += lsim_rng_uniform(rng) < 0.5 ? 0.0 : lsim_rng_uniform(rng);
  free(buf);
  return 0;
}
