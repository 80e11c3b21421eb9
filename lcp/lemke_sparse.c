/* lemke_sparse.c: Lemke's complementary pivoting method (lemke.c) on the factored LCP
 * M = J B + C (factored.h), with the basis kept as a sparse LU factorization.
 *
 * THE METHOD
 * Exactly lemke.c's (read its header): the augmented system I w - M z - d z0 = q, cold
 * start with d = e, warm start from a guessed complementary basis with d = B e, minimum
 * ratio test with sound pivots first, lexicographic ties on the rows of [x_B, B^{-1}],
 * the terminal test while z0 is basic, cycle detection by a Zobrist hash of the basis,
 * three cold runs (plain, ties by pivot, no sound preference), final acceptance on the
 * true natural residual and verification against the caller's point. The tolerances are
 * lemke.c's. Only the linear algebra differs.
 *
 * LINEAR ALGEBRA
 * Columns of M are never stored: column j is J B(:,j) + C(:,j), formed on demand from a
 * column-wise copy of J (and of C) built once per solve; it has a few dozen entries on
 * contact problems. The basis B_0 (columns e_i for basic w_i, -M(:,j) for basic z_j, -d
 * for z0) is factored by UMFPACK; the k pivots after it are kept in product form,
 * B_k = B_0 E_1 ... E_k, E_t the identity with column r_t replaced by the entering column
 * c_t = B_{t-1}^{-1} a (stored sparse: entries below the pivot tolerance are dropped, as
 * lemke.c drops them before its rank-one update). Then
 *   FTRAN  c = B_k^{-1} a:     UMFPACK solve with B_0, then E_1^{-1}, ..., E_k^{-1};
 *   BTRAN  row i of B_k^{-1}:  e_i^T E_k^{-1} ... E_1^{-1} (only component r_t changes at
 *                              each step), then an UMFPACK solve with B_0^T.
 * The ratio test needs c in full (one FTRAN per pivot); rows of B^{-1} are needed only for
 * the rows that tie (lexicographic rule) and for their rounding bounds: one BTRAN each,
 * cached for the current basis; the rounding bounds of the tie test (a transposed solve
 * each) are computed only when the cheap part of the test does not decide. B_0 is
 * refactored every REFACTOR = 100 pivots (halved, down to 10, while the updated x_B drifts
 * from the fresh one), on a weak pivot, and when a column comes out non-finite, as in
 * lemke.c. UMFPACK's iterative refinement is off (it tripled the cost of a solve).
 * Refactoring more often was measured and dropped: every 25 pivots, or once the etas
 * pass nnz(L + U), lost 2 of the 114 steps of pile_10 that dense Lemke solves; once they
 * pass 3 nnz(L + U), one settled pile_100 step of 59 (a cold run to the pivot limit),
 * for no clear gain in time (median 114 against 111 ms CPU). The path is sensitive to
 * rounding at degenerate vertices.
 *
 * WARM START
 * As lemke.c's, plus a repair: a guessed basis that UMFPACK finds singular (redundant
 * contacts, e.g. z > 0 of a previous step mapped onto this step's contacts) loses the
 * guessed z_j on its zero pivots (w_j basic instead: still complementary) and is factored
 * again (warm_basis). Without it the guess was refused on every settled pile_100 step.
 *
 * FAILURE MODES
 * lemke.c's: LSIM_SECONDARY_RAY, LSIM_MAX_ITERATIONS, LSIM_BREAKDOWN (singular basis:
 * UMFPACK reports a singular matrix or an estimated reciprocal condition below 1e-15,
 * non-finite values, cycling, a final residual above tolerance), LSIM_INVALID_INPUT,
 * LSIM_OUT_OF_MEMORY. A failed result no better than the caller's point is rejected.
 *
 * REFERENCES
 *  C. E. Lemke, Management Science 11 (1965) 681-689.
 *  R. W. Cottle, J.-S. Pang, R. E. Stone, The Linear Complementarity Problem, 1992, 4.4, 4.9.
 *  R. J. Vanderbei, Linear Programming, ch. 8 (the product form / eta file).
 *  T. A. Davis, Algorithm 832: UMFPACK, ACM TOMS 30 (2004) 196-199.
 */
#include "lemke_sparse.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <umfpack.h>

/* lemke.c's tolerances (see its ANTI-CYCLING). */
#define PTOL 1e-11
#define SOUND 1e-8
#define RING 64
#define XTOL 1e-12
#define ERRK 16.0
#define LOOSE 1e-7
#define LEXTOL 1e-12
#define WEAKPIV 1e-7
#define DRIFT 1e-10
#define RCOND_MIN 1e-15 /* UMFPACK's estimated reciprocal condition below this: singular */
#define REFACTOR 100    /* pivots between refactorizations (eta file length) */
#define NCACHE 4        /* rows of B^{-1} cached for the current basis */

struct LsimLemkeSparse {
  int cap, capm;
  /* Column copies of J (m columns) and C (n columns). */
  int *jt_ptr, *jt_idx, *ct_ptr, *ct_idx;
  double *jt_val, *ct_val;
  size_t cap_jt, cap_ct;
  int has_c;
  /* Column of M scratch: dense accumulator, touched list, packed result. */
  double *acc;
  int *touched, *mark, mstamp;
  /* Basis B_0 in CSC and its UMFPACK factors. */
  int *Ap, *Ai;
  double *Ax;
  size_t cap_a;
  void *symbolic, *numeric;
  double control[UMFPACK_CONTROL], uinfo[UMFPACK_INFO];
  /* Eta file. */
  int neta, cap_eta;
  int *eta_r, *eta_ptr, *eta_idx;
  double *eta_piv, *eta_val;
  size_t cap_etanz;
  /* Row cache of B^{-1}. */
  double *rowc[NCACHE], rowmax[NCACHE];
  int rowpos[NCACHE];
  unsigned long rowstamp[NCACHE], serial;
  int rownext;
  /* Vectors. */
  double *xb, *col, *d, *work, *work2, *rhs, *u, *start;
  int *bvar, *vpos, *qperm;
  unsigned char *guess, *basis;
  int basis_valid;
  int retry_positive; /* lsim_lemke_sparse_set_retry_positive */
  int refactor_every, tie_by_pivot, sound;
  uint64_t hash, ring[RING];
  int ring_len, ring_pos;
  int factorizations, row_solves;
};

LsimLemkeSparse *lsim_lemke_sparse_create(void) {
  LsimLemkeSparse *ws = calloc(1, sizeof(LsimLemkeSparse));
  if (ws) {
    umfpack_di_defaults(ws->control);
    /* No iterative refinement in the solves: it tripled their cost (a product with B_0
       and a second solve each), and lemke.c's refactorization and acceptance tests guard
       the accuracy instead. */
    ws->control[UMFPACK_IRSTEP] = 0;
  }
  return ws;
}

void lsim_lemke_sparse_free(LsimLemkeSparse *ws) {
  if (!ws) return;
  if (ws->numeric) umfpack_di_free_numeric(&ws->numeric);
  if (ws->symbolic) umfpack_di_free_symbolic(&ws->symbolic);
  free(ws->jt_ptr), free(ws->jt_idx), free(ws->jt_val);
  free(ws->ct_ptr), free(ws->ct_idx), free(ws->ct_val);
  free(ws->acc), free(ws->touched), free(ws->mark);
  free(ws->Ap), free(ws->Ai), free(ws->Ax);
  free(ws->eta_r), free(ws->eta_ptr), free(ws->eta_idx), free(ws->eta_piv), free(ws->eta_val);
  for (int k = 0; k < NCACHE; ++k) free(ws->rowc[k]);
  free(ws->xb), free(ws->col), free(ws->d), free(ws->work), free(ws->work2), free(ws->rhs);
  free(ws->u), free(ws->start), free(ws->bvar), free(ws->vpos), free(ws->qperm), free(ws->guess), free(ws->basis);
  free(ws);
}

void lsim_lemke_sparse_set_retry_positive(LsimLemkeSparse *ws, int on) { ws->retry_positive = on; }

const unsigned char *lsim_lemke_sparse_basis(const LsimLemkeSparse *ws) {
  return ws && ws->basis_valid ? ws->basis : NULL;
}

void lsim_lemke_sparse_counts(const LsimLemkeSparse *ws, int *factorizations, int *row_solves) {
  if (factorizations) *factorizations = ws ? ws->factorizations : 0;
  if (row_solves) *row_solves = ws ? ws->row_solves : 0;
}

static int grow(void **p, size_t count, size_t size) {
  void *q = realloc(*p, (count > 0 ? count : 1) * size);
  if (!q) return LSIM_OUT_OF_MEMORY;
  *p = q;
  return 0;
}

/* Buffers of size n (and m); basis grows separately (the guess may alias it). */
static int reserve(LsimLemkeSparse *ws, int n, int m) {
  if (m + 1 > ws->capm) { /* capm: entries held, m + 1 */
    if (grow((void **)&ws->jt_ptr, (size_t)m + 1, sizeof(int)) ||
        grow((void **)&ws->u, (size_t)m + 1, sizeof(double)))
      return LSIM_OUT_OF_MEMORY;
    ws->capm = m + 1;
  }
  if (n <= ws->cap) return 0;
  size_t un = (size_t)n;
  if (grow((void **)&ws->ct_ptr, un + 1, sizeof(int)) ||
      grow((void **)&ws->acc, un, sizeof(double)) || grow((void **)&ws->touched, un, sizeof(int)) ||
      grow((void **)&ws->mark, un, sizeof(int)) || grow((void **)&ws->Ap, un + 1, sizeof(int)) ||
      grow((void **)&ws->xb, un, sizeof(double)) || grow((void **)&ws->col, un, sizeof(double)) ||
      grow((void **)&ws->d, un, sizeof(double)) || grow((void **)&ws->work, un, sizeof(double)) ||
      grow((void **)&ws->work2, un, sizeof(double)) || grow((void **)&ws->rhs, un, sizeof(double)) ||
      grow((void **)&ws->start, un, sizeof(double)) || grow((void **)&ws->bvar, un, sizeof(int)) || grow((void **)&ws->qperm, un, sizeof(int)) ||
      grow((void **)&ws->vpos, 2 * un + 1, sizeof(int)) || grow((void **)&ws->guess, un, 1))
    return LSIM_OUT_OF_MEMORY;
  for (int k = 0; k < NCACHE; ++k)
    if (grow((void **)&ws->rowc[k], un, sizeof(double))) return LSIM_OUT_OF_MEMORY;
  memset(ws->acc, 0, un * sizeof(double));
  memset(ws->mark, 0, un * sizeof(int));
  ws->mstamp = 0;
  return 0;
}

static int reserve_basis(LsimLemkeSparse *ws, int n) {
  if (n <= ws->cap) return 0;
  if (grow((void **)&ws->basis, (size_t)n, 1)) return LSIM_OUT_OF_MEMORY;
  ws->cap = n;
  return 0;
}

/* Column-wise copies of J (CSR n x m -> CSC) and C (CSR n x n -> CSC). */
static int transpose(int rows, int cols, const int *ptr, const int *idx, const double *val,
                     int *tptr, int **tidx, double **tval, size_t *cap) {
  const size_t nnz = (size_t)ptr[rows];
  if (nnz > *cap) {
    if (grow((void **)tidx, nnz, sizeof(int)) || grow((void **)tval, nnz, sizeof(double)))
      return LSIM_OUT_OF_MEMORY;
    *cap = nnz;
  }
  memset(tptr, 0, ((size_t)cols + 1) * sizeof(int));
  for (size_t k = 0; k < nnz; ++k) ++tptr[idx[k] + 1];
  for (int c = 0; c < cols; ++c) tptr[c + 1] += tptr[c];
  for (int i = 0; i < rows; ++i)
    for (int k = ptr[i]; k < ptr[i + 1]; ++k) {
      const int p = tptr[idx[k]]++;
      (*tidx)[p] = i;
      (*tval)[p] = val[k];
    }
  for (int c = cols; c > 0; --c) tptr[c] = tptr[c - 1];
  tptr[0] = 0;
  return 0;
}

/* Column j of M = J B + C scattered into ws->acc (entries listed in ws->touched).
 * Returns the count; the caller reads and then clears with mcol_clear. */
static int mcol(LsimLemkeSparse *ws, const LsimFactoredLcp *f, int j) {
  int cnt = 0;
  if (++ws->mstamp == 0x7fffffff) {
    memset(ws->mark, 0, (size_t)f->n * sizeof(int));
    ws->mstamp = 1;
  }
  const int st = ws->mstamp;
  for (int kb = f->B_ptr[j]; kb < f->B_ptr[j + 1]; ++kb) {
    const int k = f->B_idx[kb];
    const double b = f->B_val[kb];
    for (int t = ws->jt_ptr[k]; t < ws->jt_ptr[k + 1]; ++t) {
      const int i = ws->jt_idx[t];
      if (ws->mark[i] != st) {
        ws->mark[i] = st;
        ws->touched[cnt++] = i;
      }
      ws->acc[i] += ws->jt_val[t] * b;
    }
  }
  if (ws->has_c)
    for (int t = ws->ct_ptr[j]; t < ws->ct_ptr[j + 1]; ++t) {
      const int i = ws->ct_idx[t];
      if (ws->mark[i] != st) {
        ws->mark[i] = st;
        ws->touched[cnt++] = i;
      }
      ws->acc[i] += ws->ct_val[t];
    }
  return cnt;
}

static int cmp_int(const void *a, const void *b) {
  const int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

static void mcol_clear(LsimLemkeSparse *ws, int cnt) {
  for (int k = 0; k < cnt; ++k) ws->acc[ws->touched[k]] = 0.0;
}

/* Applies the eta file to x in place: x = E_k^{-1} ... E_1^{-1} x. */
static void eta_ftran(const LsimLemkeSparse *ws, double *restrict x) {
  for (int t = 0; t < ws->neta; ++t) {
    const int r = ws->eta_r[t];
    const double xr = x[r] / ws->eta_piv[t];
    x[r] = xr;
    if (xr == 0.0) continue;
    for (int k = ws->eta_ptr[t]; k < ws->eta_ptr[t + 1]; ++k) x[ws->eta_idx[k]] -= ws->eta_val[k] * xr;
  }
}

/* out = B^{-1} a (a in ws->rhs). 0 or LSIM_BREAKDOWN. */
static int ftran(LsimLemkeSparse *ws, double *out) {
  const int rc = umfpack_di_solve(UMFPACK_A, ws->Ap, ws->Ai, ws->Ax, out, ws->rhs, ws->numeric,
                                  ws->control, ws->uinfo);
  if (rc != UMFPACK_OK) return LSIM_BREAKDOWN;
  eta_ftran(ws, out);
  return 0;
}

/* Row i of B^{-1} (cached for the current basis); NULL on a failed solve. Sets *rmax. */
static const double *binv_row(LsimLemkeSparse *ws, int n, int i, double *rmax) {
  for (int k = 0; k < NCACHE; ++k)
    if (ws->rowpos[k] == i && ws->rowstamp[k] == ws->serial) {
      *rmax = ws->rowmax[k];
      return ws->rowc[k];
    }
  double *v = ws->rhs;
  memset(v, 0, (size_t)n * sizeof(double));
  v[i] = 1.0;
  /* v^T = e_i^T E_k^{-1} ... E_1^{-1}: E_t^{-1} changes component r_t only. */
  for (int t = ws->neta - 1; t >= 0; --t) {
    const int r = ws->eta_r[t];
    double s = v[r];
    for (int k = ws->eta_ptr[t]; k < ws->eta_ptr[t + 1]; ++k) s -= v[ws->eta_idx[k]] * ws->eta_val[k];
    v[r] = s / ws->eta_piv[t];
  }
  const int slot = ws->rownext;
  ws->rownext = (ws->rownext + 1) % NCACHE;
  double *row = ws->rowc[slot];
  const int rc = umfpack_di_solve(UMFPACK_At, ws->Ap, ws->Ai, ws->Ax, row, v, ws->numeric,
                                  ws->control, ws->uinfo);
  ++ws->row_solves;
  if (rc != UMFPACK_OK) return NULL;
  double mx = 0.0;
  for (int k = 0; k < n; ++k) mx = fmax(mx, fabs(row[k]));
  ws->rowpos[slot] = i;
  ws->rowstamp[slot] = ws->serial;
  ws->rowmax[slot] = mx;
  *rmax = mx;
  return row;
}

/* Makes sure the CSC arrays hold nnz entries. */
static int reserve_a(LsimLemkeSparse *ws, size_t nnz) {
  if (nnz <= ws->cap_a) return 0;
  size_t c = ws->cap_a ? ws->cap_a : 1024;
  while (c < nnz) c *= 2;
  if (grow((void **)&ws->Ai, c, sizeof(int)) || grow((void **)&ws->Ax, c, sizeof(double)))
    return LSIM_OUT_OF_MEMORY;
  ws->cap_a = c;
  return 0;
}

/* Factors B_0 = the basis in bvar, empties the eta file, recomputes x_B = B^{-1} q.
 * 0, LSIM_BREAKDOWN (singular) or LSIM_OUT_OF_MEMORY. */
static int refactor(LsimLemkeSparse *ws, const LsimFactoredLcp *f) {
  const int n = f->n;
  size_t nz = 0;
  ws->neta = 0;
  ++ws->serial;
  for (int p = 0; p < n; ++p) {
    const int v = ws->bvar[p];
    ws->Ap[p] = (int)nz;
    if (v < n) {
      if (reserve_a(ws, nz + 1)) return LSIM_OUT_OF_MEMORY;
      ws->Ai[nz] = v;
      ws->Ax[nz++] = 1.0;
    } else if (v < 2 * n) {
      const int cnt = mcol(ws, f, v - n);
      qsort(ws->touched, (size_t)cnt, sizeof(int), cmp_int); /* UMFPACK: sorted rows */
      if (reserve_a(ws, nz + (size_t)cnt)) {
        mcol_clear(ws, cnt);
        return LSIM_OUT_OF_MEMORY;
      }
      for (int k = 0; k < cnt; ++k) {
        const int i = ws->touched[k];
        if (ws->acc[i] == 0.0) continue;
        ws->Ai[nz] = i;
        ws->Ax[nz++] = -ws->acc[i];
      }
      mcol_clear(ws, cnt);
    } else {
      if (reserve_a(ws, nz + (size_t)n)) return LSIM_OUT_OF_MEMORY;
      for (int i = 0; i < n; ++i)
        if (ws->d[i] != 0.0) {
          ws->Ai[nz] = i;
          ws->Ax[nz++] = -ws->d[i];
        }
    }
  }
  ws->Ap[n] = (int)nz;
  if (ws->numeric) umfpack_di_free_numeric(&ws->numeric);
  if (ws->symbolic) umfpack_di_free_symbolic(&ws->symbolic);
  int rc = umfpack_di_symbolic(n, n, ws->Ap, ws->Ai, ws->Ax, &ws->symbolic, ws->control, ws->uinfo);
  if (rc == UMFPACK_ERROR_out_of_memory) return LSIM_OUT_OF_MEMORY;
  if (rc != UMFPACK_OK) return LSIM_BREAKDOWN;
  rc = umfpack_di_numeric(ws->Ap, ws->Ai, ws->Ax, ws->symbolic, &ws->numeric, ws->control,
                          ws->uinfo);
  ++ws->factorizations;
  if (rc == UMFPACK_ERROR_out_of_memory) return LSIM_OUT_OF_MEMORY;
  if (rc != UMFPACK_OK || !(ws->uinfo[UMFPACK_RCOND] >= RCOND_MIN)) return LSIM_BREAKDOWN;
  memcpy(ws->rhs, f->q, (size_t)n * sizeof(double));
  if (ftran(ws, ws->xb)) return LSIM_BREAKDOWN;
  for (int i = 0; i < n; ++i)
    if (!isfinite(ws->xb[i])) return LSIM_BREAKDOWN;
  return 0;
}

/* 1 when row i of B^{-1} times si is lexicographically smaller than row j times sj;
 * -1 when a solve failed. */
static int lex_less(LsimLemkeSparse *ws, int n, int i, double si, int j, double sj) {
  double mi, mj;
  const double *bi = binv_row(ws, n, i, &mi);
  if (!bi) return -1;
  const double *bj = binv_row(ws, n, j, &mj);
  if (!bj) return -1;
  /* bi may have been evicted by bj's fetch only if NCACHE < 2. */
  const double tol = LEXTOL * fmax(mi * fabs(si), mj * fabs(sj));
  for (int k = 0; k < n; ++k) {
    const double a = bi[k] * si, b = bj[k] * sj;
    if (a < b - tol) return 1;
    if (a > b + tol) return 0;
  }
  return i > j;
}

static uint64_t var_key(int v) {
  uint64_t x = (uint64_t)v + 0x9E3779B97F4A7C15u;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9u;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBu;
  return x ^ (x >> 31);
}

static void hash_reset(LsimLemkeSparse *ws, int n) {
  ws->hash = 0;
  for (int i = 0; i < n; ++i) ws->hash ^= var_key(ws->bvar[i]);
  ws->ring_len = ws->ring_pos = 0;
}

static int basis_repeats(LsimLemkeSparse *ws) {
  int seen = 0;
  for (int k = 0; k < ws->ring_len; ++k) seen += ws->ring[k] == ws->hash;
  ws->ring[ws->ring_pos] = ws->hash;
  ws->ring_pos = (ws->ring_pos + 1) % RING;
  if (ws->ring_len < RING) ++ws->ring_len;
  return seen >= 2;
}

/* The exchange: variable v with column c = ws->col enters at position r at level theta.
 * Appends the eta (c without its pivot, zeros skipped), updates x_B and the maps. */
static int pivot(LsimLemkeSparse *ws, int n, int r, int v, double theta) {
  double *restrict c = ws->col, *restrict xb = ws->xb;
  const double piv = c[r];
  if (ws->neta + 1 > ws->cap_eta) {
    const int ce = ws->cap_eta ? 2 * ws->cap_eta : 64;
    if (grow((void **)&ws->eta_r, (size_t)ce, sizeof(int)) ||
        grow((void **)&ws->eta_piv, (size_t)ce, sizeof(double)) ||
        grow((void **)&ws->eta_ptr, (size_t)ce + 1, sizeof(int)))
      return LSIM_OUT_OF_MEMORY;
    ws->cap_eta = ce;
  }
  if (ws->neta == 0) ws->eta_ptr[0] = 0;
  size_t at = (size_t)ws->eta_ptr[ws->neta];
  if (at + (size_t)n > ws->cap_etanz) {
    size_t c2 = ws->cap_etanz ? ws->cap_etanz : 4096;
    while (c2 < at + (size_t)n) c2 *= 2;
    if (grow((void **)&ws->eta_idx, c2, sizeof(int)) || grow((void **)&ws->eta_val, c2, sizeof(double)))
      return LSIM_OUT_OF_MEMORY;
    ws->cap_etanz = c2;
  }
  for (int i = 0; i < n; ++i)
    if (i != r && c[i] != 0.0) {
      ws->eta_idx[at] = i;
      ws->eta_val[at++] = c[i];
      xb[i] -= c[i] * theta;
    }
  ws->eta_r[ws->neta] = r;
  ws->eta_piv[ws->neta] = piv;
  ws->eta_ptr[++ws->neta] = (int)at;
  xb[r] = theta;
  ++ws->serial;
  ws->vpos[ws->bvar[r]] = -1;
  ws->hash ^= var_key(ws->bvar[r]) ^ var_key(v);
  ws->bvar[r] = v;
  ws->vpos[v] = r;
  return 0;
}

/* c = B^{-1} a for variable v (a = e_v, -M(:,j) or -d). max|c|, or NaN. */
static double entering_column(LsimLemkeSparse *ws, const LsimFactoredLcp *f, int v) {
  const int n = f->n;
  double *restrict c = ws->col;
  if (v < n && ws->vpos[v] >= 0) {
    memset(c, 0, (size_t)n * sizeof(double));
    c[ws->vpos[v]] = 1.0;
    return 1.0;
  }
  if (v < n) {
    memset(ws->rhs, 0, (size_t)n * sizeof(double));
    ws->rhs[v] = 1.0;
  } else if (v < 2 * n) {
    memset(ws->rhs, 0, (size_t)n * sizeof(double));
    const int cnt = mcol(ws, f, v - n);
    for (int k = 0; k < cnt; ++k) ws->rhs[ws->touched[k]] = -ws->acc[ws->touched[k]];
    mcol_clear(ws, cnt);
  } else {
    for (int i = 0; i < n; ++i) ws->rhs[i] = -ws->d[i];
  }
  if (ftran(ws, c)) return NAN;
  double cmax = 0.0;
  for (int i = 0; i < n; ++i) {
    if (!isfinite(c[i])) return NAN;
    cmax = fmax(cmax, fabs(c[i]));
  }
  return cmax;
}

static void trace_z0(const LsimLemkeSparse *ws, int n, LsimLemkeInfo *info) {
  if (!info || !info->trace || info->trace_len >= info->trace_capacity) return;
  const int p = ws->vpos[2 * n];
  info->trace[info->trace_len++] = p >= 0 ? ws->xb[p] : 0.0;
}

static double xscale(const LsimLemkeSparse *ws, int n, double qscale) {
  double s = qscale;
  for (int i = 0; i < n; ++i) s = fmax(s, fabs(ws->xb[i]));
  return s;
}

/* Rounding bound of x_B[i]: ERRK n eps (|B^{-1}_i| |q| + |x_i|); a failed solve gives
 * infinity (the row then ties with nothing: gap > fmin(loose, inf) is decided by loose). */
static double row_err(LsimLemkeSparse *ws, const LsimFactoredLcp *f, int i) {
  const int n = f->n;
  double mx, s = fabs(ws->xb[i]);
  const double *row = binv_row(ws, n, i, &mx);
  if (!row) return INFINITY;
  for (int k = 0; k < n; ++k) s += fabs(row[k] * f->q[k]);
  return ERRK * n * DBL_EPSILON * s;
}

static double qscale_of(const LsimFactoredLcp *f) {
  double s = 0.0;
  for (int i = 0; i < f->n; ++i) s = fmax(s, fabs(f->q[i]));
  return s > 0.0 ? s : 1.0;
}

/* lemke.c's terminal test on the factored residual. */
static int terminal_ok(LsimLemkeSparse *ws, const LsimFactoredLcp *f, int entering, double t0,
                       double ftol) {
  const int n = f->n;
  double *restrict zc = ws->work, *restrict w = ws->work2;
  for (int i = 0; i < n; ++i) {
    const int p = ws->vpos[n + i];
    const double v = n + i == entering ? t0 : p >= 0 ? ws->xb[p] - t0 * ws->col[p] : 0.0;
    zc[i] = v > 0.0 ? v : 0.0;
  }
  LsimResidual res;
  lsim_factored_residual(f, zc, ws->u, w, &res);
  return res.natural <= ftol;
}

/* Lemke's path from the basis in ws (see lemke.c's lemke_path: the same steps). */
static int lemke_path(LsimLemkeSparse *ws, const LsimFactoredLcp *f, int max_pivots,
                      double acc_tol, int *pivots, LsimLemkeInfo *info) {
  const int n = f->n, z0 = 2 * n;
  const double qscale = qscale_of(f), ftol = acc_tol * qscale;
  double *restrict xb = ws->xb, *restrict c = ws->col;
  double dmax = 0.0;
  for (int i = 0; i < n; ++i) dmax = fmax(dmax, fabs(ws->d[i]));
  int done = 0, since_refactor = 0;

  if (max_pivots <= 0) return LSIM_MAX_ITERATIONS;
  int r = 0;
  for (int i = 1; i < n; ++i)
    if (xb[i] < xb[r]) r = i;
  const double xmin = xb[r];
  if (!(xmin < 0.0)) return LSIM_BREAKDOWN;
  {
    const double xs = xscale(ws, n, qscale), xtol = XTOL * xs;
    const double loose = LOOSE * xs;
    double e0 = -1.0; /* row r's rounding bound, computed when first needed */
    for (int i = 0; i < n; ++i) {
      if (i == r || xb[i] > xmin + loose) continue;
      /* Tie: xb_i - xmin <= xtol + e0 + err_i (all terms >= 0, so the bounds, each a
         transposed solve, are computed only when the cheaper test does not decide). */
      const double gap = xb[i] - xmin;
      int tie = gap <= xtol;
      if (!tie) {
        if (e0 < 0.0) e0 = row_err(ws, f, r);
        tie = gap <= xtol + e0 || gap <= xtol + e0 + row_err(ws, f, i);
      }
      if (tie) {
        const int l = lex_less(ws, n, i, 1.0, r, 1.0);
        if (l < 0) return LSIM_BREAKDOWN;
        if (l) r = i;
      }
    }
  }
  for (int i = 0; i < n; ++i) c[i] = -1.0;
  int leaving = ws->bvar[r];
  if (pivot(ws, n, r, z0, -xmin)) return LSIM_OUT_OF_MEMORY;
  trace_z0(ws, n, info);
  hash_reset(ws, n);
  (void)basis_repeats(ws);

  for (;;) {
    const int entering = leaving < n ? leaving + n : leaving - n;
    if (done >= max_pivots) return LSIM_MAX_ITERATIONS;

    int fresh = 0;
    if (since_refactor >= ws->refactor_every) {
      memcpy(c, xb, (size_t)n * sizeof(double));
      const int st = refactor(ws, f);
      if (st) return st == LSIM_OUT_OF_MEMORY ? st : LSIM_BREAKDOWN;
      since_refactor = 0;
      fresh = 1;
      double drift = 0.0;
      for (int i = 0; i < n; ++i) drift = fmax(drift, fabs(c[i] - xb[i]));
      if (drift > DRIFT * xscale(ws, n, qscale) && ws->refactor_every > 10)
        ws->refactor_every /= 2;
    }
    double cmax, xtol, tmin;
    int blocking;
    for (;;) {
      cmax = entering_column(ws, f, entering);
      if (!isfinite(cmax) && !fresh) {
        if (refactor(ws, f)) return LSIM_BREAKDOWN;
        since_refactor = 0;
        fresh = 1;
        continue;
      }
      if (!isfinite(cmax)) return LSIM_BREAKDOWN;

      const double ptol = PTOL * cmax;
      double ctol = ws->sound ? SOUND * cmax : ptol;
      tmin = INFINITY;
      blocking = -1;
      for (int pass = 0; pass < 2 && blocking < 0; ++pass) {
        if (pass) ctol = ptol;
        for (int i = 0; i < n; ++i)
          if (c[i] > ctol) {
            const double t = fmax(xb[i], 0.0) / c[i];
            if (t < tmin) {
              tmin = t;
              blocking = i;
            }
          }
      }
      if (blocking < 0) return LSIM_SECONDARY_RAY;

      const double xs = xscale(ws, n, qscale), loose = LOOSE * xs;
      const int r0 = blocking, pz0 = ws->vpos[z0];
      double e0 = -1.0; /* row_err(r0) / c_r0, computed when first needed */
      xtol = XTOL * xs;
      int z0_tied = 0;
      const int by_pivot = ws->tie_by_pivot && xb[r0] > xtol + row_err(ws, f, r0);
      for (int i = 0; i < n; ++i) {
        if (i == r0 || !(c[i] > ctol)) continue;
        const double gap = fmax(xb[i], 0.0) - tmin * c[i];
        /* lemke.c's test gap <= fmin(loose, xtol + err_i + c_i e0), the bounds (transposed
           solves) computed only when the cheaper parts do not decide. */
        if (gap > loose) continue;
        if (gap > xtol) {
          if (e0 < 0.0) e0 = row_err(ws, f, r0) / c[r0];
          if (gap > xtol + c[i] * e0 && gap > xtol + row_err(ws, f, i) + c[i] * e0) continue;
        }
        if (i == pz0) z0_tied = 1;
        else if (blocking == pz0) continue;
        else if (by_pivot) {
          if (c[i] > c[blocking]) blocking = i;
        } else {
          const int l = lex_less(ws, n, i, 1.0 / c[i], blocking, 1.0 / c[blocking]);
          if (l < 0) return LSIM_BREAKDOWN;
          if (l) blocking = i;
        }
      }
      if (z0_tied) blocking = pz0;

      if (blocking != pz0 && pz0 >= 0) {
        if (c[pz0] > ptol) {
          const double t0 = fmax(xb[pz0], 0.0) / c[pz0];
          double worst = 0.0;
          for (int i = 0; i < n; ++i)
            if (c[i] > ptol) worst = fmin(worst, xb[i] - t0 * c[i]);
          if (worst >= -ftol && terminal_ok(ws, f, entering, t0, ftol)) {
            blocking = pz0;
            tmin = t0;
          }
        }
        if (blocking != pz0 && xb[pz0] * dmax <= ftol && terminal_ok(ws, f, -1, 0.0, ftol))
          return LSIM_SOLVED;
      }
      /* xtol only decides below whether the step is degenerate (xb_blocking <= xtol). */
      if (xb[blocking] > xtol && xb[blocking] <= loose)
        xtol = fmax(xtol, fmin(loose, row_err(ws, f, blocking)));

      if (c[blocking] < WEAKPIV * cmax && !fresh && since_refactor > 0) {
        if (refactor(ws, f)) return LSIM_BREAKDOWN;
        since_refactor = 0;
        fresh = 1;
        continue;
      }
      break;
    }

    leaving = ws->bvar[blocking];
    const double theta = xb[blocking] > xtol ? fmin(tmin, xb[blocking] / c[blocking]) : 0.0;
    for (int i = 0; i < n; ++i)
      if (fabs(c[i]) <= PTOL * cmax) c[i] = 0.0;
    if (pivot(ws, n, blocking, entering, theta)) return LSIM_OUT_OF_MEMORY;
    ++*pivots;
    ++done;
    ++since_refactor;
    trace_z0(ws, n, info);
    if (leaving == z0) return LSIM_SOLVED;
    if (basis_repeats(ws)) return LSIM_BREAKDOWN;
  }
}

static void extract_z(const LsimLemkeSparse *ws, int n, double *z, int clamp) {
  for (int i = 0; i < n; ++i) {
    const int p = ws->vpos[n + i];
    double v = p >= 0 ? ws->xb[p] : 0.0;
    if (!isfinite(v) || (clamp && v < 0.0)) v = 0.0;
    z[i] = v;
  }
}

static int accept(LsimLemkeSparse *ws, const LsimFactoredLcp *f, double tol, double *z) {
  const int n = f->n;
  LsimResidual res;
  for (int attempt = 0; attempt < 2; ++attempt) {
    extract_z(ws, n, z, 1);
    lsim_factored_residual(f, z, ws->u, ws->work, &res);
    if (res.natural <= tol * qscale_of(f)) return LSIM_SOLVED;
    if (attempt == 0 && refactor(ws, f)) break;
  }
  extract_z(ws, n, z, 0);
  return LSIM_BREAKDOWN;
}

static int verify(LsimLemkeSparse *ws, const LsimFactoredLcp *f, double *z) {
  const int n = f->n;
  LsimResidual got, start;
  lsim_factored_residual(f, z, ws->u, ws->work, &got);
  lsim_factored_residual(f, ws->start, ws->u, ws->work, &start);
  if (got.natural < start.natural) return 0;
  memcpy(z, ws->start, (size_t)n * sizeof(double));
  return 1;
}

/* The all-w basis: B = I, d = e. */
static int cold_basis(LsimLemkeSparse *ws, const LsimFactoredLcp *f) {
  const int n = f->n;
  for (int i = 0; i < n; ++i) {
    ws->bvar[i] = i;
    ws->vpos[i] = i;
    ws->vpos[n + i] = -1;
    ws->d[i] = 1.0;
  }
  ws->vpos[2 * n] = -1;
  return refactor(ws, f);
}

/* The guessed basis: z_i at position i where guess[i], w_i elsewhere; d = B e.
 * A singular guess (redundant contacts: parallel normals, both friction directions) is
 * repaired: the guessed z_j whose column meets a pivot of U below REPAIR max|diag U| in
 * UMFPACK's factorization (column Q[k] for pivot k) are dropped from the guess (w_j
 * basic instead, so the basis stays complementary) and the basis is factored again, at
 * most REPAIR_ROUNDS times. */
#define REPAIR 1e-11
#define REPAIR_ROUNDS 6
static int warm_setup(LsimLemkeSparse *ws, const LsimFactoredLcp *f);
static int warm_basis(LsimLemkeSparse *ws, const LsimFactoredLcp *f) {
  const int n = f->n;
  for (int round = 0;; ++round) {
    const int st = warm_setup(ws, f);
    if (st != LSIM_BREAKDOWN || round == REPAIR_ROUNDS || !ws->numeric) return st;
    double *dx = ws->work2;
    if (umfpack_di_get_numeric(NULL, NULL, NULL, NULL, NULL, NULL, NULL, ws->qperm, dx, NULL,
                               NULL, ws->numeric) != UMFPACK_OK)
      return st;
    double dmax = 0.0;
    for (int k = 0; k < n; ++k)
      if (isfinite(dx[k])) dmax = fmax(dmax, fabs(dx[k]));
    int dropped = 0;
    for (int k = 0; k < n; ++k) {
      const int p = ws->qperm[k];
      if (!(fabs(dx[k]) > REPAIR * dmax) && ws->guess[p]) ws->guess[p] = 0, ++dropped;
    }
    if (!dropped) return st;
  }
}

static int warm_setup(LsimLemkeSparse *ws, const LsimFactoredLcp *f) {
  const int n = f->n;
  for (int i = 0; i < n; ++i) {
    const int zb = ws->guess[i] != 0;
    ws->bvar[i] = zb ? n + i : i;
    ws->vpos[i] = zb ? -1 : i;
    ws->vpos[n + i] = zb ? i : -1;
    ws->d[i] = zb ? 0.0 : 1.0;
  }
  ws->vpos[2 * n] = -1;
  for (int j = 0; j < n; ++j) {
    if (!ws->guess[j]) continue;
    const int cnt = mcol(ws, f, j);
    for (int k = 0; k < cnt; ++k) ws->d[ws->touched[k]] -= ws->acc[ws->touched[k]];
    mcol_clear(ws, cnt);
  }
  return refactor(ws, f);
}

static void save_basis(LsimLemkeSparse *ws, int n) {
  for (int i = 0; i < n; ++i) ws->basis[i] = ws->vpos[n + i] >= 0;
  ws->basis_valid = 1;
}

/* 1 when a value of f is not finite. */
static int not_finite(const LsimFactoredLcp *f) {
  for (int i = 0; i < f->n; ++i)
    if (!isfinite(f->q[i])) return 1;
  for (int k = 0; k < f->J_ptr[f->n]; ++k)
    if (!isfinite(f->J_val[k])) return 1;
  for (int k = 0; k < f->B_ptr[f->n]; ++k)
    if (!isfinite(f->B_val[k])) return 1;
  if (f->C_ptr)
    for (int k = 0; k < f->C_ptr[f->n]; ++k)
      if (!isfinite(f->C_val[k])) return 1;
  return 0;
}

int lsim_lemke_sparse_solve(LsimLemkeSparse *ws, const LsimFactoredLcp *f,
                            const LsimLemkeOptions *opt, const unsigned char *basis_guess,
                            double *z, LsimLemkeInfo *info) {
  LsimLemkeOptions o = opt ? *opt : lsim_default_lemke_options();
  int pivots = 0, status, have_start = 0, rejected = 0;
  if (info) {
    info->status = LSIM_INVALID_INPUT;
    info->pivots = info->warm_started = info->restarts = info->trace_len = 0;
    info->rejected = 0;
  }
  if (ws) ws->factorizations = ws->row_solves = 0;
  if (!ws || !f || f->n < 0 || f->m < 0 ||
      (f->n > 0 && (!z || !f->q || !f->J_ptr || !f->B_ptr)) || o.max_pivots < 0 ||
      !(o.tol > 0.0) || !isfinite(o.tol)) {
    status = LSIM_INVALID_INPUT;
    goto out;
  }
  const int n = f->n;
  ws->basis_valid = 0;
  if (n > 0 && not_finite(f)) {
    memset(z, 0, (size_t)n * sizeof(double));
    status = LSIM_INVALID_INPUT;
    goto out;
  }
  const int max_pivots = o.max_pivots > 0 ? o.max_pivots : 10 * (n + 1) + 100;
  if (n == 0) {
    status = LSIM_SOLVED;
    goto out;
  }
  if (reserve(ws, n, f->m)) {
    memset(z, 0, (size_t)n * sizeof(double));
    status = LSIM_OUT_OF_MEMORY;
    goto out;
  }
  for (int i = 0; i < n; ++i) ws->start[i] = isfinite(z[i]) && z[i] > 0.0 ? z[i] : 0.0;
  have_start = 1;
  memset(z, 0, (size_t)n * sizeof(double));
  if (basis_guess) memcpy(ws->guess, basis_guess, (size_t)n);
  if (reserve_basis(ws, n)) {
    status = LSIM_OUT_OF_MEMORY;
    goto out;
  }
  /* Column copies of J and C. */
  if (transpose(n, f->m, f->J_ptr, f->J_idx, f->J_val, ws->jt_ptr, &ws->jt_idx, &ws->jt_val,
                &ws->cap_jt) ||
      (f->C_ptr && transpose(n, n, f->C_ptr, f->C_idx, f->C_val, ws->ct_ptr, &ws->ct_idx,
                             &ws->ct_val, &ws->cap_ct))) {
    status = LSIM_OUT_OF_MEMORY;
    goto out;
  }
  ws->has_c = f->C_ptr != NULL;
  for (int k = 0; k < NCACHE; ++k) ws->rowpos[k] = -1;
  ws->refactor_every = REFACTOR;
  ws->sound = 1;
  ws->tie_by_pivot = 0;

  int qneg = 0;
  for (int i = 0; i < n; ++i) qneg |= f->q[i] < 0.0;
  if (!qneg) {
    memset(ws->basis, 0, (size_t)n);
    ws->basis_valid = 1;
    status = LSIM_SOLVED;
    goto out;
  }

  /* The guessed basis; with retry_positive, when its path fails, {i : z_i > 0} of the
     caller's point next (when it differs), before the cold runs. */
  for (int attempt = 0; basis_guess && attempt < 1 + (ws->retry_positive != 0); ++attempt) {
    if (attempt) {
      int same = 1;
      for (int i = 0; i < n; ++i) {
        const unsigned char g = ws->start[i] > 0.0;
        same &= g == (ws->guess[i] != 0);
        ws->guess[i] = g;
      }
      if (same) break;
    }
    status = warm_basis(ws, f);
    if (status == 0) {
      const double ftol = o.tol * qscale_of(f);
      double xmin = INFINITY;
      for (int i = 0; i < n; ++i) xmin = fmin(xmin, ws->xb[i]);
      if (xmin >= -ftol && accept(ws, f, o.tol, z) == LSIM_SOLVED) status = LSIM_SOLVED;
      else if ((status = lemke_path(ws, f, max_pivots, o.tol, &pivots, info)) == LSIM_SOLVED)
        status = accept(ws, f, o.tol, z);
    }
    if (status == LSIM_OUT_OF_MEMORY) goto out;
    if (status == LSIM_SOLVED) {
      if (info) info->warm_started = 1;
      save_basis(ws, n);
      goto out;
    }
    if (info) info->restarts = 1;
  }

  for (int run = 0; run < 3; ++run) {
    ws->refactor_every = REFACTOR;
    status = cold_basis(ws, f);
    if (status == LSIM_OUT_OF_MEMORY) goto out;
    if (status) continue;
    ws->tie_by_pivot = run == 1;
    ws->sound = run < 2;
    status = lemke_path(ws, f, max_pivots, o.tol, &pivots, info);
    ws->tie_by_pivot = 0;
    ws->sound = 1;
    if (status == LSIM_SOLVED) status = accept(ws, f, o.tol, z);
    else extract_z(ws, n, z, 0);
    if (status == LSIM_SOLVED || status == LSIM_MAX_ITERATIONS || status == LSIM_OUT_OF_MEMORY)
      break;
  }
  if (status == LSIM_SOLVED) save_basis(ws, n);

out:
  if (status != LSIM_SOLVED && have_start && status != LSIM_OUT_OF_MEMORY)
    rejected = verify(ws, f, z);
  if (info) {
    info->status = status;
    info->pivots = pivots;
    info->rejected = rejected;
  }
  return status;
}
