/* quality.c: solver-independent quality measures and problem hashes (quality.h). */
#include "quality.h"

#include <float.h>
#include <math.h>
#include <string.h>

double lsim_quality_slide_tol(const LsimLcp *lcp) { return 1e-8 * lsim_lcp_scale(lcp); }

/* Value of variable i of z, or 0 for an index outside the problem. */
static double var(const double *z, int n, int i) { return i >= 0 && i < n ? z[i] : 0.0; }

/* The measures beyond the residual, from z, w [n], the cone structure and slide_tol;
 * role [n] is scratch. Shared by the dense and the factored forms, so both apply the same
 * definitions to their w. */
static void cone_measures(int n, const double *z, const double *w, double *role, int ncones,
                          const LsimConeBlock *cones, double slide_tol, LsimQuality *out) {
  /* Row roles: 1 for a cone's beta and lambda rows, 0 for the normal (unilateral) rows. */
  for (int i = 0; i < n; ++i) role[i] = 0.0;
  for (int c = 0; c < ncones && cones; ++c) {
    const LsimConeBlock *b = &cones[c];
    for (int k = 0; k < b->ndir; ++k)
      if (b->first_dir + k >= 0 && b->first_dir + k < n) role[b->first_dir + k] = 1.0;
    if (b->lambda >= 0 && b->lambda < n) role[b->lambda] = 1.0;
  }

  /* Signorini over the normal rows; a NaN anywhere makes the measure +inf. */
  double sig = 0.0;
  for (int i = 0; i < n; ++i) {
    if (role[i] != 0.0) continue;
    const double v = fmax(fmax(-w[i], -z[i]), fabs(z[i] * w[i]));
    if (isnan(v) || isnan(z[i]) || isnan(w[i])) sig = INFINITY;
    else if (v > sig) sig = v;
  }
  out->signorini = sig;

  /* Cones: excess friction, and maximum dissipation when sliding. */
  double cone = 0.0, diss = 0.0;
  for (int c = 0; c < ncones && cones; ++c) {
    const LsimConeBlock *b = &cones[c];
    const double cn = b->normal >= 0 ? var(z, n, b->normal) : b->fixed_normal;
    double sum = 0.0;
    for (int k = 0; k < b->ndir; ++k) sum += var(z, n, b->first_dir + k);
    const double limit = b->mu * cn;
    double excess = fmax(0.0, sum - limit);
    if (isnan(excess)) excess = INFINITY;
    if (excess > cone) cone = excess;
    /* Sliding speed from the velocities: s = max_k (lambda - w_k). */
    const double lambda = var(z, n, b->lambda);
    double slide = 0.0;
    for (int k = 0; k < b->ndir; ++k) slide = fmax(slide, lambda - var(w, n, b->first_dir + k));
    if (!(slide > slide_tol)) continue;
    out->nsliding += 1;
    /* Mass of beta on directions not opposed to the sliding, weighted by g_k / s. */
    double off = 0.0;
    for (int k = 0; k < b->ndir; ++k) {
      const int j = b->first_dir + k;
      const double g = var(w, n, j) - lambda + slide;
      off += fmax(0.0, var(z, n, j)) * fmin(1.0, fmax(0.0, g) / slide);
    }
    double v = fmax(fmax(0.0, limit - sum), off);
    if (isnan(v)) v = INFINITY;
    if (v > diss) diss = v;
  }
  out->cone = cone;
  out->dissipation = diss;

  /* A non-finite z: every measure is +inf (the residual already did its own). */
  for (int i = 0; i < n; ++i)
    if (!isfinite(z[i])) {
      out->signorini = out->cone = out->dissipation = INFINITY;
      break;
    }
}

void lsim_lcp_quality(const LsimLcp *lcp, const double *z, double *work, double slide_tol,
                      LsimQuality *out) {
  const int n = lcp->n;
  memset(out, 0, sizeof *out);
  lsim_lcp_residual(lcp, z, work, &out->residual);
  if (slide_tol < 0.0) slide_tol = lsim_quality_slide_tol(lcp);
  cone_measures(n, z, work, work + n, lcp->ncones, lcp->cones, slide_tol, out);
}

double lsim_factored_quality_slide_tol(const LsimFactoredLcp *f) {
  double s = 0.0;
  for (int i = 0; i < f->n; ++i) s = fmax(s, fabs(f->q[i]));
  return 1e-8 * (s > 0.0 ? s : 1.0);
}

void lsim_factored_quality(const LsimFactoredLcp *f, const double *z, double *work,
                           double slide_tol, LsimQuality *out) {
  const int n = f->n;
  memset(out, 0, sizeof *out);
  /* w in work[0 .. n-1], u = B z in work[2n .. 2n+m-1]; roles in work[n .. 2n-1]. */
  lsim_factored_residual(f, z, work + 2 * (size_t)n, work, &out->residual);
  if (slide_tol < 0.0) slide_tol = lsim_factored_quality_slide_tol(f);
  cone_measures(n, z, work, work + n, f->ncones, f->cones, slide_tol, out);
}

double lsim_lcp_unit_residual(const LsimLcp *lcp, const double *z, const double *w,
                              const unsigned char *plain) {
  const int n = lcp->n;
  const double *M = lcp->M;
  double r = 0.0;
  for (int i = 0; i < n; ++i) {
    r = fmax(r, fabs(fmin(z[i], w[i])));
    if (plain && plain[i]) continue;
    /* z_i's and w_i's multipliers into w's units. */
    const double dii = M[i + (size_t)i * n];
    double a = 1.0, b = 1.0;
    if (dii > 0.0) {
      a = dii;
    } else {
      for (int j = 0; j < n; ++j) {
        const double djj = M[j + (size_t)j * n];
        if (j != i && djj > 0.0) b = fmax(b, fmin(fabs(M[i + (size_t)j * n]), 1.0) * djj);
      }
    }
    r = fmax(r, fabs(fmin(a * z[i], b * w[i])));
  }
  return r;
}

double lsim_factored_unit_residual(const LsimFactoredLcp *f, const double *z, const double *w,
                                   const unsigned char *plain, double *d, double *u) {
  if (f->full && !(f = lsim_factored_full(f))) return INFINITY; /* every row, as w's */
  const int n = f->n;
  /* The diagonal. */
  memset(u, 0, (size_t)f->m * sizeof(double));
  lsim_factored_diagonal(f, d, u);
  /* The rows' residuals, as lsim_lcp_unit_residual's (M_ij off the diagonal of a row with
     M_ii <= 0 are C's entries: J B's rows there are empty). */
  double r = 0.0;
  for (int i = 0; i < n; ++i) {
    r = fmax(r, fabs(fmin(z[i], w[i])));
    if (plain && plain[i]) continue;
    double a = 1.0, b = 1.0;
    if (d[i] > 0.0) {
      a = d[i];
    } else if (f->C_ptr) {
      for (int p = f->C_ptr[i]; p < f->C_ptr[i + 1]; ++p)
        if (f->C_idx[p] != i && d[f->C_idx[p]] > 0.0)
          b = fmax(b, fmin(fabs(f->C_val[p]), 1.0) * d[f->C_idx[p]]);
    }
    r = fmax(r, fabs(fmin(a * z[i], b * w[i])));
  }
  return r;
}

double lsim_quality_distance(int n, const double *a, const double *b) {
  double d = 0.0;
  for (int i = 0; i < n; ++i) {
    const double v = fabs(a[i] - b[i]);
    if (!(v <= d)) d = isnan(v) ? INFINITY : v;
  }
  return d;
}

/* FNV-1a over the 8 bytes of v, least significant first (little-endian layout). */
static uint64_t fnv_u64(uint64_t h, uint64_t v, int nbytes) {
  for (int k = 0; k < nbytes; ++k) {
    h ^= (v >> (8 * k)) & 0xffu;
    h *= 0x100000001b3ull;
  }
  return h;
}

static uint64_t fnv_doubles(uint64_t h, const double *x, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    uint64_t bits;
    memcpy(&bits, &x[i], sizeof bits);
    h = fnv_u64(h, bits, 8);
  }
  return h;
}

uint64_t lsim_lcp_hash(const LsimLcp *lcp) {
  uint64_t h = 0xcbf29ce484222325ull;
  h = fnv_u64(h, (uint64_t)(uint32_t)lcp->n, 4);
  h = fnv_doubles(h, lcp->M, (size_t)lcp->n * (size_t)lcp->n);
  return fnv_doubles(h, lcp->q, (size_t)lcp->n);
}

static uint64_t fnv_ints(uint64_t h, const int *x, size_t count) {
  for (size_t i = 0; i < count; ++i) h = fnv_u64(h, (uint64_t)(uint32_t)x[i], 4);
  return h;
}

/* One sparse matrix with n pointers + 1: pointers, indices, values. */
static uint64_t fnv_sparse(uint64_t h, int n, const int *ptr, const int *idx, const double *val) {
  if (!ptr) return fnv_u64(h, 0u, 4); /* an empty problem's absent pointers: as {0} */
  const size_t nnz = n > 0 ? (size_t)ptr[n] : 0;
  h = fnv_ints(h, ptr, (size_t)n + 1);
  h = fnv_ints(h, idx, nnz);
  return fnv_doubles(h, val, nnz);
}

uint64_t lsim_factored_hash(const LsimFactoredLcp *f) {
  if (f->full && !(f = lsim_factored_full(f))) return 0; /* the rows as stored whole */
  uint64_t h = 0xcbf29ce484222325ull;
  static const char tag[8] = {'L', 'S', 'I', 'M', 'F', 'A', 'C', 'T'};
  for (int k = 0; k < 8; ++k) h = fnv_u64(h, (uint64_t)(unsigned char)tag[k], 1);
  const int n = f->n;
  h = fnv_u64(h, (uint64_t)(uint32_t)n, 4);
  h = fnv_u64(h, (uint64_t)(uint32_t)f->m, 4);
  h = fnv_sparse(h, n, f->J_ptr, f->J_idx, f->J_val);
  h = fnv_sparse(h, n, f->B_ptr, f->B_idx, f->B_val);
  h = fnv_u64(h, f->C_ptr ? 1u : 0u, 4);
  if (f->C_ptr) h = fnv_sparse(h, n, f->C_ptr, f->C_idx, f->C_val);
  h = fnv_doubles(h, f->q, (size_t)(n > 0 ? n : 0));
  h = fnv_u64(h, (uint64_t)(uint32_t)f->ncones, 4);
  for (int c = 0; c < f->ncones && f->cones; ++c) {
    const LsimConeBlock *b = &f->cones[c];
    h = fnv_u64(h, (uint64_t)(uint32_t)b->normal, 4);
    h = fnv_doubles(h, &b->fixed_normal, 1);
    h = fnv_u64(h, (uint64_t)(uint32_t)b->first_dir, 4);
    h = fnv_u64(h, (uint64_t)(uint32_t)b->ndir, 4);
    h = fnv_u64(h, (uint64_t)(uint32_t)b->lambda, 4);
    h = fnv_doubles(h, &b->mu, 1);
    h = fnv_u64(h, (uint64_t)(uint32_t)b->uniform, 4);
  }
  return h;
}

double lsim_lcp_residual_floor(const LsimLcp *lcp, const double *z) {
  const int n = lcp->n;
  double worst = 0.0;
  for (int i = 0; i < n; ++i) {
    double r = fabs(lcp->q[i]);
    for (int j = 0; j < n; ++j) r += fabs(lcp->M[i + (size_t)j * n]) * fabs(z[j]);
    if (!(r <= DBL_MAX)) return INFINITY; /* NaN or inf */
    worst = fmax(worst, r);
  }
  return LSIM_FLOOR_K * DBL_EPSILON * worst;
}

/* Row i passes when |min(z_i, w_i)| <= max(ftol, K eps r_i), r_i = (|M| |z| + |q|)_i. */
static int row_within(double zi, double wi, double r, double ftol) {
  const double nat = fabs(fmin(zi, wi));
  return nat <= ftol || nat <= LSIM_FLOOR_K * DBL_EPSILON * r; /* NaN fails both */
}

int lsim_lcp_rows_within_floor(const LsimLcp *lcp, const double *z, const double *w,
                               double ftol) {
  const int n = lcp->n;
  for (int i = 0; i < n; ++i) {
    double r = fabs(lcp->q[i]);
    for (int j = 0; j < n; ++j) r += fabs(lcp->M[i + (size_t)j * n]) * fabs(z[j]);
    if (!row_within(z[i], w[i], r, ftol)) return 0;
  }
  return 1;
}

int lsim_factored_rows_within_floor(const LsimFactoredLcp *f, const double *z, const double *w,
                                    double ftol, double *u) {
  if (f->full && !(f = lsim_factored_full(f))) return 0;
  const int n = f->n;
  if (f->m > 0) memset(u, 0, (size_t)f->m * sizeof(double));
  for (int j = 0; j < n; ++j)
    for (int k = f->B_ptr[j]; k < f->B_ptr[j + 1]; ++k) u[f->B_idx[k]] += fabs(f->B_val[k] * z[j]);
  for (int i = 0; i < n; ++i) {
    double r = fabs(f->q[i]);
    for (int k = f->J_ptr[i]; k < f->J_ptr[i + 1]; ++k) r += fabs(f->J_val[k]) * u[f->J_idx[k]];
    if (f->C_ptr)
      for (int k = f->C_ptr[i]; k < f->C_ptr[i + 1]; ++k) r += fabs(f->C_val[k] * z[f->C_idx[k]]);
    if (!row_within(z[i], w[i], r, ftol)) return 0;
  }
  return 1;
}

double lsim_factored_residual_floor(const LsimFactoredLcp *f, const double *z, double *u) {
  if (f->full && !(f = lsim_factored_full(f))) return 0.0; /* a floor that passes nothing */
  const int n = f->n;
  /* u = |B| |z|, column by column. */
  if (f->m > 0) memset(u, 0, (size_t)f->m * sizeof(double));
  for (int j = 0; j < n; ++j)
    for (int k = f->B_ptr[j]; k < f->B_ptr[j + 1]; ++k) u[f->B_idx[k]] += fabs(f->B_val[k] * z[j]);
  /* |J| u + |C| |z| + |q|, row by row. */
  double worst = 0.0;
  for (int i = 0; i < n; ++i) {
    double r = fabs(f->q[i]);
    for (int k = f->J_ptr[i]; k < f->J_ptr[i + 1]; ++k) r += fabs(f->J_val[k]) * u[f->J_idx[k]];
    if (f->C_ptr)
      for (int k = f->C_ptr[i]; k < f->C_ptr[i + 1]; ++k) r += fabs(f->C_val[k] * z[f->C_idx[k]]);
    if (!(r <= DBL_MAX)) return INFINITY;
    worst = fmax(worst, r);
  }
  return LSIM_FLOOR_K * DBL_EPSILON * worst;
}
