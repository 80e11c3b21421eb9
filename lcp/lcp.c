/* lcp.c: the LCP problem type, status names and the common residual. */
#include "lcp.h"
/* The public declaration too: lsim_status_name is part of the library's API (LSIM_API: exported
 * from the shared library). */
#include "lcpsim/lcpsim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *lsim_status_name(int status) {
  switch (status) {
    case LSIM_SOLVED: return "solved";
    case LSIM_MAX_ITERATIONS: return "max_iterations";
    case LSIM_SECONDARY_RAY: return "secondary_ray";
    case LSIM_BREAKDOWN: return "breakdown";
    case LSIM_BAD_DIAGONAL: return "bad_diagonal";
    case LSIM_SOLVER_FAILED: return "solver_failed";
    case LSIM_INVALID_INPUT: return "invalid_input";
    case LSIM_OUT_OF_MEMORY: return "out_of_memory";
    case LSIM_UNAVAILABLE: return "unavailable";
    case LSIM_IO_ERROR: return "io_error";
    case LSIM_WARM_START_REJECTED: return "warm_start_rejected";
    case LSIM_CONTROLLER_STOPPED: return "controller_stopped";
    case LSIM_DIVERGED: return "diverged";
    default: return "unknown_status";
  }
}

int lsim_grow(void **p, int *cap, int n, size_t elem) {
  if (n <= *cap) return 0;
  int c = *cap ? *cap : 16;
  while (c < n) c *= 2;
  void *q = realloc(*p, (size_t)c * elem);
  if (!q) return LSIM_OUT_OF_MEMORY;
  *p = q;
  *cap = c;
  return 0;
}

int lsim_lcp_init(LsimLcp *lcp, int n) {
  memset(lcp, 0, sizeof *lcp);
  if (n < 0) return LSIM_INVALID_INPUT;
  size_t nn = (size_t)n * (size_t)n;
  lcp->M = calloc(nn > 0 ? nn : 1, sizeof(double));
  lcp->q = calloc(n > 0 ? (size_t)n : 1, sizeof(double));
  if (!lcp->M || !lcp->q) {
    lsim_lcp_free(lcp);
    return LSIM_OUT_OF_MEMORY;
  }
  lcp->n = n;
  return 0;
}

void lsim_lcp_free(LsimLcp *lcp) {
  if (!lcp) return;
  free(lcp->M);
  free(lcp->q);
  memset(lcp, 0, sizeof *lcp);
}

int lsim_lcp_copy(LsimLcp *dst, const LsimLcp *src) {
  int rc = lsim_lcp_init(dst, src->n);
  if (rc) return rc;
  memcpy(dst->M, src->M, (size_t)src->n * (size_t)src->n * sizeof(double));
  memcpy(dst->q, src->q, (size_t)src->n * sizeof(double));
  dst->ncones = src->ncones;
  dst->cones = src->cones;
  return 0;
}

int lsim_lcp_check_finite(const LsimLcp *lcp) {
  size_t nn = (size_t)lcp->n * (size_t)lcp->n;
  for (size_t k = 0; k < nn; ++k)
    if (!isfinite(lcp->M[k])) return LSIM_INVALID_INPUT;
  for (int i = 0; i < lcp->n; ++i)
    if (!isfinite(lcp->q[i])) return LSIM_INVALID_INPUT;
  return 0;
}

double lsim_lcp_scale(const LsimLcp *lcp) {
  double s = 0.0;
  for (int i = 0; i < lcp->n; ++i) s = fmax(s, fabs(lcp->q[i]));
  return s > 0.0 ? s : 1.0;
}

void lsim_lcp_w(const LsimLcp *lcp, const double *z, double *w) {
  const int n = lcp->n;
  if (n <= 0) return; /* the empty LCP: w may be NULL */
  memcpy(w, lcp->q, (size_t)n * sizeof(double));
  /* Column sweep: contiguous in the column-major layout. */
  for (int j = 0; j < n; ++j) {
    const double zj = z[j];
    if (zj == 0.0) continue;
    const double *col = lcp->M + (size_t)j * (size_t)n;
    for (int i = 0; i < n; ++i) w[i] += col[i] * zj;
  }
}

void lsim_residual_of(const double *z, const double *w, int n, double scale, LsimResidual *res) {
  double natural = 0.0, dot = 0.0, zneg = 0.0, wneg = 0.0;
  int finite = 1;
  for (int i = 0; i < n; ++i) {
    if (!isfinite(z[i]) || !isfinite(w[i])) finite = 0;
    natural = fmax(natural, fabs(fmin(z[i], w[i])));
    dot += z[i] * w[i];
    /* Strict comparisons: z_i = +0 gives -z_i = -0, which fmax may return (printed
       "-0.000e+00"); these keep +0. */
    if (-z[i] > zneg) zneg = -z[i];
    if (-w[i] > wneg) wneg = -w[i];
  }
  /* A non-finite iterate is the worst possible answer, never a silent NaN. */
  if (!finite) natural = dot = zneg = wneg = INFINITY;
  res->natural = natural;
  res->complementarity = fabs(dot);
  res->z_negative = zneg;
  res->w_negative = wneg;
  res->relative = natural / scale;
}

void lsim_lcp_residual(const LsimLcp *lcp, const double *z, double *w, LsimResidual *res) {
  lsim_lcp_w(lcp, z, w);
  lsim_residual_of(z, w, lcp->n, lsim_lcp_scale(lcp), res);
}
