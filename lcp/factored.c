/* factored.c: the factored LCP M = J B + C (factored.h): w, residual, dense form, and the
 * structural check the solvers share.
 *
 * Conventions: J is CSR by rows (row i of J is J_idx/J_val[J_ptr[i] .. J_ptr[i+1]-1]),
 * B is CSC by columns (column i is B_idx/B_val[B_ptr[i] .. B_ptr[i+1]-1]), C is CSR or
 * absent (C_ptr == NULL). Indices need not be sorted; duplicates add up.
 */
#include "factored.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#if defined(__GNUC__)
typedef double lsim_v2d_ __attribute__((vector_size(16)));
typedef long long lsim_v2l_ __attribute__((vector_size(16)));
/* Lane by lane max(m, |x|) (a NaN in x is caught by the check's own test). */
static inline lsim_v2d_ vmax_abs(lsim_v2d_ m, lsim_v2d_ x) {
  const lsim_v2l_ mask = {0x7fffffffffffffffLL, 0x7fffffffffffffffLL};
  const lsim_v2d_ a = (lsim_v2d_)((lsim_v2l_)x & mask);
#if defined(__SSE2__)
  return (lsim_v2d_)_mm_max_pd((__m128d)m, (__m128d)a); /* one instruction */
#else
  const lsim_v2l_ gt = a > m;
  return (lsim_v2d_)(((lsim_v2l_)a & gt) | ((lsim_v2l_)m & ~gt));
#endif
}
#endif

/* A sparse matrix's pointers, indices below range and finite values; its values alone
 * when values_only (a pattern already checked with the same n and range). The largest
 * |value| into *vmax, and (unless values_only) the longest row into *maxlen. */
static int check_sparse(const int *ptr, const int *idx, const double *val, int n, int range,
                        int values_only, double *vmax, int *maxlen) {
  if (!ptr || ptr[0] != 0) return LSIM_INVALID_INPUT;
  if (!values_only) {
    int bad = 0, len = 0;
    for (int i = 0; i < n; ++i) {
      const int l = ptr[i + 1] - ptr[i];
      bad |= l < 0;
      len = l > len ? l : len;
    }
    if (bad) return LSIM_INVALID_INPUT;
    *maxlen = len;
  }
  const int nnz = ptr[n];
  if (nnz > 0 && (!idx || !val)) return LSIM_INVALID_INPUT;
  if (values_only) {
    double nan_acc = 0.0;
    int k = 0;
    *vmax = 0.0;
#if defined(__GNUC__)
    typedef double v2v __attribute__((vector_size(16)));
    v2v va = {0.0, 0.0}, vb = va, ma = va, mb = va;
    for (; k + 4 <= nnz; k += 4) {
      v2v x, y;
      memcpy(&x, val + k, sizeof x);
      memcpy(&y, val + k + 2, sizeof y);
      va += x - x, vb += y - y;
      ma = vmax_abs(ma, x), mb = vmax_abs(mb, y);
    }
    nan_acc = (va[0] + va[1]) + (vb[0] + vb[1]);
    *vmax = fmax(fmax(ma[0], ma[1]), fmax(mb[0], mb[1]));
#endif
    for (; k < nnz; ++k) nan_acc += val[k] - val[k], *vmax = fmax(*vmax, fabs(val[k]));
    return nan_acc != 0.0 || nan_acc != nan_acc ? LSIM_INVALID_INPUT : 0;
  }
  /* Branch-free (vectorizable): an index out of range as unsigned; a value that is not
     finite gives a NaN in val - val. */
  unsigned out = 0;
  double nan_acc = 0.0;
  int k = 0;
  *vmax = 0.0;
#if defined(__GNUC__)
  typedef unsigned v4u __attribute__((vector_size(16)));
  typedef double v2d __attribute__((vector_size(16)));
  v4u vout = {0, 0, 0, 0};
  const v4u vr = {(unsigned)range, (unsigned)range, (unsigned)range, (unsigned)range};
  v2d va = {0.0, 0.0}, vb = va, ma = va, mb = va;
  for (; k + 4 <= nnz; k += 4) {
    v4u i;
    v2d x, y;
    memcpy(&i, idx + k, sizeof i);
    memcpy(&x, val + k, sizeof x);
    memcpy(&y, val + k + 2, sizeof y);
    vout |= (v4u)(i >= vr);
    va += x - x, vb += y - y;
    ma = vmax_abs(ma, x), mb = vmax_abs(mb, y);
  }
  out = vout[0] | vout[1] | vout[2] | vout[3];
  nan_acc = (va[0] + va[1]) + (vb[0] + vb[1]);
  *vmax = fmax(fmax(ma[0], ma[1]), fmax(mb[0], mb[1]));
#endif
  for (; k < nnz; ++k) {
    out |= (unsigned)idx[k] >= (unsigned)range;
    nan_acc += val[k] - val[k];
    *vmax = fmax(*vmax, fabs(val[k]));
  }
  return out || nan_acc != 0.0 || nan_acc != nan_acc ? LSIM_INVALID_INPUT : 0;
}

/* Whether every row of J ascends (so its columns are distinct): the descents of the whole
 * index array (a loop the compiler vectorizes) all fall at row starts. */
static int rows_ascend(const LsimFactoredLcp *f) {
  const int *ptr = f->J_ptr, *idx = f->J_idx, n = f->n;
  int descents = 0, at_starts = 0;
  for (int p = 1; p < ptr[n]; ++p) descents += idx[p] <= idx[p - 1];
  for (int i = 1; i < n; ++i)
    at_starts += ptr[i] > 0 && ptr[i] < ptr[i + 1] && idx[ptr[i]] <= idx[ptr[i] - 1];
  return descents == at_starts;
}

int lsim_factored_check(const LsimFactoredLcp *f) { return lsim_factored_check_bound(f, NULL); }

int lsim_factored_check_bound(const LsimFactoredLcp *f, double *bound) {
  if (f && f->full && !(f = lsim_factored_full(f))) return LSIM_OUT_OF_MEMORY;
  if (!f || f->n < 0 || f->m < 0 || (f->n > 0 && !f->q)) return LSIM_INVALID_INPUT;
  const int n = f->n;
  /* B sharing J's arrays: its pattern is J's, checked once. */
  const int shared = f->B_ptr == f->J_ptr && f->B_idx == f->J_idx;
  double jm = 0.0, bm = 0.0, cm = 0.0;
  int jl = 0, bl = 0, cl = 0;
  if (check_sparse(f->J_ptr, f->J_idx, f->J_val, n, f->m, 0, &jm, &jl) ||
      check_sparse(f->B_ptr, f->B_idx, f->B_val, n, f->m, shared, &bm, &bl) ||
      (f->C_ptr && check_sparse(f->C_ptr, f->C_idx, f->C_val, n, n, 0, &cm, &cl)))
    return LSIM_INVALID_INPUT;
  if (shared) bl = jl;
  double nan_acc = 0.0;
  for (int i = 0; i < n; ++i) nan_acc += f->q[i] - f->q[i];
  if (nan_acc != 0.0 || nan_acc != nan_acc) return LSIM_INVALID_INPUT;
  if (f->ncones < 0 || (f->ncones > 0 && !f->cones)) return LSIM_INVALID_INPUT;
  for (int c = 0; c < f->ncones; ++c) {
    const LsimConeBlock *cb = &f->cones[c];
    if (cb->lambda < 0 || cb->lambda >= n || cb->first_dir < 0 || cb->ndir < 1 ||
        cb->first_dir + cb->ndir > n || cb->normal >= n || !(cb->mu >= 0.0))
      return LSIM_INVALID_INPUT;
  }
  if (bound) {
    /* Row i's J_p meets u[J_idx[p]], the sum of B's column i entries at that index: at
       most bl of them, one where B shares J's pattern and every row ascends. Each
       computed term and sum is within a factor (1 + 2^-53)^k of the exact one, k below
       the row's length plus two: 1.01 covers any length below 10^14. */
    *bound = lsim_factored_diag_bound(jl, shared && rows_ascend(f) ? 1 : bl, jm, bm, cl, cm);
  }
  return 0;
}

double lsim_factored_diag_bound(int jl, int terms, double jm, double bm, int cl, double cm) {
  return 1.01 * ((double)jl * terms * jm * bm + (double)cl * cm);
}

void lsim_factored_w(const LsimFactoredLcp *f, const double *z, double *u, double *w) {
  const int n = f->n;
  /* Every row (the copy is reserved by its producer; without it w is NaN, never a value
     from the stored rows alone). */
  if (f->full && !(f = lsim_factored_full(f))) {
    for (int i = 0; i < n; ++i) w[i] = NAN;
    return;
  }
  /* u = B z, column by column. */
  if (f->m > 0) memset(u, 0, (size_t)f->m * sizeof(double));
  for (int j = 0; j < n; ++j) {
    const double zj = z[j];
    if (zj == 0.0) continue;
    for (int k = f->B_ptr[j]; k < f->B_ptr[j + 1]; ++k) u[f->B_idx[k]] += f->B_val[k] * zj;
  }
  /* w = J u + C z + q, row by row. */
  for (int i = 0; i < n; ++i) {
    double s = 0.0;
    for (int k = f->J_ptr[i]; k < f->J_ptr[i + 1]; ++k) s += f->J_val[k] * u[f->J_idx[k]];
    if (f->C_ptr)
      for (int k = f->C_ptr[i]; k < f->C_ptr[i + 1]; ++k) s += f->C_val[k] * z[f->C_idx[k]];
    w[i] = s + f->q[i];
  }
}

static double factored_scale(const LsimFactoredLcp *f) {
  double s = 0.0;
  for (int i = 0; i < f->n; ++i) s = fmax(s, fabs(f->q[i]));
  return s > 0.0 ? s : 1.0;
}

double lsim_factored_diagonal_entry(const LsimFactoredLcp *f, int i, double *u) {
  if (f->full && !(f = lsim_factored_full(f))) return NAN;
  for (int p = f->B_ptr[i]; p < f->B_ptr[i + 1]; ++p) u[f->B_idx[p]] += f->B_val[p];
  double d = 0.0;
  for (int p = f->J_ptr[i]; p < f->J_ptr[i + 1]; ++p) d += f->J_val[p] * u[f->J_idx[p]];
  for (int p = f->B_ptr[i]; p < f->B_ptr[i + 1]; ++p) u[f->B_idx[p]] = 0.0;
  if (f->C_ptr)
    for (int p = f->C_ptr[i]; p < f->C_ptr[i + 1]; ++p)
      if (f->C_idx[p] == i) d += f->C_val[p];
  return d;
}

void lsim_factored_diagonal(const LsimFactoredLcp *f, double *d, double *u) {
  const int n = f->n;
  if (f->full && !(f = lsim_factored_full(f))) {
    for (int i = 0; i < n; ++i) d[i] = NAN;
    return;
  }
  if (f->B_ptr != f->J_ptr || f->B_idx != f->J_idx) {
    for (int i = 0; i < n; ++i) d[i] = lsim_factored_diagonal_entry(f, i, u);
    return;
  }
  /* B shares J's pattern: where row i's indices ascend (so are distinct), u[J_idx[p]]
     would be 0 + B_val[p], so M_ii is the sum of J_val[p] B_val[p] in the same order, the
     same bits (the scatter turning a -0 into +0 only moves the sign of a zero term, and a
     sum from +0 never is -0), without the scatter; other rows by the scatter. */
  const int *ptr = f->J_ptr, *idx = f->J_idx;
  const double *jv = f->J_val, *bv = f->B_val;
  /* Whether every row ascends, tested at once; else row by row. */
  const int all_ascend = rows_ascend(f);
  for (int i = 0; i < n; ++i) {
    const int p0 = ptr[i], p1 = ptr[i + 1];
    double s = 0.0;
    int ascending = 1;
    if (!all_ascend)
      for (int p = p0 + 1; p < p1; ++p) ascending &= idx[p] > idx[p - 1];
    if (!ascending) {
      d[i] = lsim_factored_diagonal_entry(f, i, u);
      continue;
    }
    for (int p = p0; p < p1; ++p) s += jv[p] * bv[p];
    if (f->C_ptr)
      for (int p = f->C_ptr[i]; p < f->C_ptr[i + 1]; ++p)
        if (f->C_idx[p] == i) s += f->C_val[p];
    d[i] = s;
  }
}

void lsim_factored_residual(const LsimFactoredLcp *f, const double *z, double *u, double *w,
                            LsimResidual *res) {
  /* The same measures as lsim_lcp_residual (lcp.c), on w = J B z + C z + q. */
  lsim_factored_w(f, z, u, w);
  lsim_residual_of(z, w, f->n, factored_scale(f), res);
}

int lsim_factored_to_dense(const LsimFactoredLcp *f, LsimLcp *dense, int *tmp_ptr, int *tmp_idx,
                           double *tmp_val) {
  if (f && f->full && !(f = lsim_factored_full(f))) return LSIM_OUT_OF_MEMORY;
  if (lsim_factored_check(f) || !dense || dense->n != f->n || (f->n > 0 && (!dense->M || !dense->q)))
    return LSIM_INVALID_INPUT;
  const int n = f->n, m = f->m, nnzj = f->J_ptr[n];
  /* J^T in CSR (= J in CSC): counts, prefix sums, scatter. Rows stay in increasing order
     inside each column, so the sums below run in a fixed order. */
  memset(tmp_ptr, 0, (size_t)(m + 1) * sizeof(int));
  for (int k = 0; k < nnzj; ++k) ++tmp_ptr[f->J_idx[k] + 1];
  for (int c = 0; c < m; ++c) tmp_ptr[c + 1] += tmp_ptr[c];
  for (int i = 0; i < n; ++i)
    for (int k = f->J_ptr[i]; k < f->J_ptr[i + 1]; ++k) {
      const int pos = tmp_ptr[f->J_idx[k]]++;
      tmp_idx[pos] = i;
      tmp_val[pos] = f->J_val[k];
    }
  for (int c = m; c > 0; --c) tmp_ptr[c] = tmp_ptr[c - 1]; /* undo the shift of the scatter */
  tmp_ptr[0] = 0;

  /* Column i of M: sum over the entries (k, b) of B(:, i) of b * J(:, k), then C. */
  memset(dense->M, 0, (size_t)n * (size_t)n * sizeof(double));
  for (int i = 0; i < n; ++i) {
    double *col = dense->M + (size_t)i * (size_t)n;
    for (int kb = f->B_ptr[i]; kb < f->B_ptr[i + 1]; ++kb) {
      const int k = f->B_idx[kb];
      const double b = f->B_val[kb];
      for (int p = tmp_ptr[k]; p < tmp_ptr[k + 1]; ++p) col[tmp_idx[p]] += tmp_val[p] * b;
    }
  }
  if (f->C_ptr)
    for (int r = 0; r < n; ++r)
      for (int k = f->C_ptr[r]; k < f->C_ptr[r + 1]; ++k)
        dense->M[r + (size_t)f->C_idx[k] * (size_t)n] += f->C_val[k];
  if (n > 0) memcpy(dense->q, f->q, (size_t)n * sizeof(double));
  dense->ncones = f->ncones;
  dense->cones = f->cones;
  return 0;
}

/* Row i of J: its entries the same columns as row r's (same count, same indices). */
static int same_columns(const LsimFactoredLcp *f, int i, int r) {
  const int a = f->J_ptr[i], len = f->J_ptr[i + 1] - a, b = f->J_ptr[r];
  return len == f->J_ptr[r + 1] - b && !memcmp(f->J_idx + a, f->J_idx + b, (size_t)len * sizeof(int));
}

int lsim_factored_blocks_hold(const LsimFactoredLcp *f) {
  if (f && f->full && !(f = lsim_factored_full(f))) return 0;
  const int W = f ? f->block_width : 0;
  if (W <= 0 || lsim_factored_check(f) || f->B_ptr != f->J_ptr || f->B_idx != f->J_idx) return 0;
  for (int c = 0; c < f->ncones; ++c) {
    const LsimConeBlock *cb = &f->cones[c];
    const int r = cb->first_dir, L = cb->lambda, a = f->J_ptr[r], len = f->J_ptr[r + 1] - a;
    /* p_0's row: 0, 1 or 2 blocks of W consecutive columns, each at a multiple of W. */
    if (len % W || len > 2 * W) return 0;
    for (int s = 0; s < len; s += W) {
      const int o = f->J_idx[a + s];
      if (o % W || o > f->m - W) return 0;
      for (int k = 1; k < W; ++k)
        if (f->J_idx[a + s + k] != o + k) return 0;
    }
    /* The normal and every direction: the same columns; C as promised. */
    if (cb->normal >= 0 && (!same_columns(f, cb->normal, r) ||
                            (f->C_ptr && f->C_ptr[cb->normal + 1] != f->C_ptr[cb->normal])))
      return 0;
    for (int k = 0; k < cb->ndir; ++k) {
      const int i = r + k;
      if (!same_columns(f, i, r) || !f->C_ptr || f->C_ptr[i + 1] - f->C_ptr[i] != 1 ||
          f->C_idx[f->C_ptr[i]] != L || f->C_val[f->C_ptr[i]] != 1.0)
        return 0;
    }
    if (f->J_ptr[L + 1] != f->J_ptr[L]) return 0;
    /* lambda's C row: indices below n and finite values, as lsim_factored_check found
       of all of C. */
  }
  return 1;
}

double lsim_factored_velocity_distance(const LsimFactoredLcp *f, const double *a,
                                       const double *b, double *du) {
  if (f->full && !(f = lsim_factored_full(f))) return NAN;
  const int m = f->m;
  memset(du, 0, (size_t)m * sizeof(double));
  /* B (a - b), column by column, skipping equal entries. */
  for (int j = 0; j < f->n; ++j) {
    const double d = a[j] - b[j];
    if (d == 0.0) continue;
    for (int e = f->B_ptr[j]; e < f->B_ptr[j + 1]; ++e) du[f->B_idx[e]] += f->B_val[e] * d;
  }
  double mx = 0.0;
  for (int e = 0; e < m; ++e) mx = fmax(mx, fabs(du[e]));
  return mx;
}

int lsim_factored_full_reserve(LsimFactoredFull *x, int n, int nnz) {
  x->made = 0;
  int cap = x->n_cap;
  if (lsim_grow((void **)&x->J_ptr, &cap, n + 1, sizeof(int))) return LSIM_OUT_OF_MEMORY;
  cap = x->n_cap;
  if (lsim_grow((void **)&x->src, &cap, n + 1, sizeof(int))) return LSIM_OUT_OF_MEMORY;
  x->n_cap = cap;
  cap = x->nnz_cap;
  if (lsim_grow((void **)&x->J_idx, &cap, nnz, sizeof(int))) return LSIM_OUT_OF_MEMORY;
  cap = x->nnz_cap;
  if (lsim_grow((void **)&x->J_val, &cap, nnz, sizeof(double))) return LSIM_OUT_OF_MEMORY;
  cap = x->nnz_cap;
  if (lsim_grow((void **)&x->B_val, &cap, nnz, sizeof(double))) return LSIM_OUT_OF_MEMORY;
  x->nnz_cap = cap;
  return 0;
}

void lsim_factored_full_free(LsimFactoredFull *x) {
  if (!x) return;
  free(x->J_ptr), free(x->src), free(x->J_idx), free(x->J_val), free(x->B_val);
  memset(x, 0, sizeof *x);
}

/* lsim_factored_full's work on x, the storage f->full, by the one caller at a time. */
static const LsimFactoredLcp *full_of(const LsimFactoredLcp *f, LsimFactoredFull *x) {
  const void *from[5] = {f->J_ptr, f->J_idx, f->J_val, f->B_val, f->cones};
  if (x->made && x->from_n == f->n && x->from_ncones == f->ncones &&
      !memcmp(from, x->from, sizeof from)) {
    /* The rows made already; the other fields as this caller's f has them. */
    const LsimFactoredLcp rows = x->f;
    x->f = *f;
    x->f.J_ptr = rows.J_ptr, x->f.B_ptr = rows.B_ptr, x->f.J_idx = rows.J_idx;
    x->f.B_idx = rows.B_idx, x->f.J_val = rows.J_val, x->f.B_val = rows.B_val;
    x->f.full = NULL, x->f.cone_products = NULL;
    return &x->f;
  }
  x->made = 0;
  const int n = f->n;
  /* B shares J's arrays (the only form made with implicit rows) and the room reserved. */
  if (n < 0 || n + 1 > x->n_cap || f->B_ptr != f->J_ptr || f->B_idx != f->J_idx) return NULL;
  /* Each implicit row's source: direction d - ndir / 2 of its cone, where the row is
     stored empty. */
  int *src = x->src;
  for (int i = 0; i < n; ++i) src[i] = -1;
  long long nnz = n > 0 ? f->J_ptr[n] : 0;
  for (int c = 0; c < f->ncones; ++c) {
    const LsimConeBlock *cb = &f->cones[c];
    const int d = cb->ndir, b0 = cb->first_dir;
    if (d <= 0 || d % 2 || b0 < 0 || b0 + d > n) continue;
    for (int k = d / 2; k < d; ++k) {
      const int i = b0 + k, r = i - d / 2;
      if (f->J_ptr[i + 1] != f->J_ptr[i]) continue;
      src[i] = r;
      nnz += f->J_ptr[r + 1] - f->J_ptr[r];
    }
  }
  if (nnz > x->nnz_cap) return NULL;
  /* The rows in order: a stored row copied, an implicit one its source's negated (as the
     producer writing it would: the same indices, -x of each value). */
  const int *ptr = f->J_ptr, *idx = f->J_idx;
  const double *jv = f->J_val, *bv = f->B_val;
  int k = 0;
  for (int i = 0; i < n; ++i) {
    x->J_ptr[i] = k;
    const int r = src[i];
    if (r < 0) {
      const int p0 = ptr[i], len = ptr[i + 1] - p0;
      memcpy(x->J_idx + k, idx + p0, (size_t)len * sizeof(int));
      memcpy(x->J_val + k, jv + p0, (size_t)len * sizeof(double));
      memcpy(x->B_val + k, bv + p0, (size_t)len * sizeof(double));
      k += len;
      continue;
    }
    const int p0 = ptr[r], len = ptr[r + 1] - p0;
    memcpy(x->J_idx + k, idx + p0, (size_t)len * sizeof(int));
    for (int t = 0; t < len; ++t) x->J_val[k + t] = -jv[p0 + t], x->B_val[k + t] = -bv[p0 + t];
    k += len;
  }
  if (n >= 0) x->J_ptr[n] = k;
  x->f = *f;
  x->f.J_ptr = x->f.B_ptr = x->J_ptr;
  x->f.J_idx = x->f.B_idx = x->J_idx;
  x->f.J_val = x->J_val, x->f.B_val = x->B_val;
  x->f.full = NULL, x->f.cone_products = NULL;
  memcpy(x->from, from, sizeof from);
  x->from_n = n, x->from_ncones = f->ncones;
  x->made = 1;
  return &x->f;
}

const LsimFactoredLcp *lsim_factored_full(const LsimFactoredLcp *f) {
  if (!f || !f->full) return f;
  LsimFactoredFull *x = f->full;
  /* The single-writer contract (factored.h): the copy and the fields of x->f are written
     by every call, so a second call on the same storage while one is running is a race
     (a torn copy handed to either caller); it is caught here, in every build, rather than
     left to give wrong rows; an assertion that NDEBUG does not remove. */
  if (atomic_exchange_explicit(&x->busy, 1, memory_order_acquire)) {
    fputs("lsim_factored_full: two callers at once on one problem's expanded copy (one "
          "thread at a time: lcp/factored.h)\n", stderr);
    abort();
  }
  const LsimFactoredLcp *F = full_of(f, x);
  atomic_store_explicit(&x->busy, 0, memory_order_release);
  return F;
}
