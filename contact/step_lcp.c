/* step_lcp.c: stage 3 of the time step, the step's factored LCP (see step.h for the
 * equations and step.c for the stages around it).
 *
 * From the contact set's Jacobian rows: the variables of each contact, J (CSR over the
 * dynamic bodies' velocities), B = W J' with W the inverse mass (per body, or the coupled
 * mass through CHOLMOD), the cone couplings C and q; joint rows are eliminated first
 * (contact/equality.c), which changes v_free and B. Large scenes place the rows on the
 * solver's team in slices of contacts. Never forms the Delassus matrix.
 *
 * Failure modes: out of memory, or a joint elimination that fails (its message in err);
 * s->f is then not a valid problem and the step stops before the solve.
 */
#include "contact/step_private.h"

#include "lcp/team.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <stdlib.h>
#include <string.h>

/* Grows a pair of index and value arrays to hold need entries: the capacity *cap (first
 * when 0) doubles until it suffices, so a slowly growing need (a pile's contact count)
 * reallocates rarely. 0, or LSIM_OUT_OF_MEMORY with *cap unchanged. */
static int grow_pair(int **idx, double **val, int *cap, int need, int first) {
  if (need <= *cap) return 0;
  int c = *cap ? *cap : first;
  while (c < need) c *= 2;
  int *a = realloc(*idx, (size_t)c * sizeof(int));
  if (!a) return LSIM_OUT_OF_MEMORY;
  *idx = a;
  double *b = realloc(*val, (size_t)c * sizeof(double));
  if (!b) return LSIM_OUT_OF_MEMORY;
  *val = b;
  *cap = c;
  return 0;
}

/* Grows the factored LCP's arrays for n variables, nnz entries of J (and B) and nc of C. */
static int reserve_lcp(LsimStepper *s, int n, int nnz, int nc) {
  if (n + 1 > s->n_cap) {
    int cap = s->n_cap ? s->n_cap : 16;
    while (cap < n + 1) cap *= 2;
    int **ip[] = {&s->J_ptr, &s->B_ptr, &s->C_ptr, &s->var_row};
    for (int k = 0; k < 4; ++k) {
      int *p = realloc(*ip[k], (size_t)cap * sizeof(int));
      if (!p) return LSIM_OUT_OF_MEMORY;
      *ip[k] = p;
    }
    double **dp[] = {&s->q, &s->z, &s->guess, &s->row_v};
    for (int k = 0; k < 4; ++k) {
      double *p = realloc(*dp[k], (size_t)cap * sizeof(double));
      if (!p) return LSIM_OUT_OF_MEMORY;
      *dp[k] = p;
    }
    unsigned char *b = realloc(s->bguess, (size_t)cap);
    if (!b) return LSIM_OUT_OF_MEMORY;
    s->bguess = b;
    s->n_cap = cap;
  }
  if (grow_pair(&s->J_idx, &s->J_val, &s->nnz_cap, nnz, 64)) return LSIM_OUT_OF_MEMORY;
  /* B may be wider than J (coupled mass, joints): it keeps its own capacity. */
  if (grow_pair(&s->B_idx, &s->B_val, &s->b_cap, nnz, 64)) return LSIM_OUT_OF_MEMORY;
  if (grow_pair(&s->C_idx, &s->C_val, &s->c_cap, nc, 64)) return LSIM_OUT_OF_MEMORY;
  return 0;
}

/* Grows the joint-row arrays for ne rows and nnz entries. */
static int reserve_equality(LsimStepper *s, int ne, int nnz) {
  if (ne + 1 > s->e_cap) {
    int cap = s->e_cap ? s->e_cap : 16;
    while (cap < ne + 1) cap *= 2;
    int **ip[] = {&s->E_ptr, &s->EB_ptr};
    for (int k = 0; k < 2; ++k) {
      int *p = realloc(*ip[k], (size_t)cap * sizeof(int));
      if (!p) return LSIM_OUT_OF_MEMORY;
      *ip[k] = p;
    }
    double **dp[] = {&s->E_rhs, &s->E_lambda};
    for (int k = 0; k < 2; ++k) {
      double *p = realloc(*dp[k], (size_t)cap * sizeof(double));
      if (!p) return LSIM_OUT_OF_MEMORY;
      *dp[k] = p;
    }
    s->e_cap = cap;
  }
  if (grow_pair(&s->E_idx, &s->E_val, &s->e_nnz_cap, nnz, 64)) return LSIM_OUT_OF_MEMORY;
  if (nnz > s->eb_cap) {
    int *a = realloc(s->EB_idx, (size_t)nnz * sizeof(int));
    if (!a) return LSIM_OUT_OF_MEMORY;
    s->EB_idx = a;
    double *b = realloc(s->EB_val, (size_t)nnz * sizeof(double));
    if (!b) return LSIM_OUT_OF_MEMORY;
    s->EB_val = b;
    s->eb_cap = nnz;
  }
  return 0;
}

/* dst[0 .. nv-1] = src[...]: fixed-size copies for the 3-D and 2-D blocks (inlined, no
 * library call). */
static inline void copy_block(double *dst, const double *src, int nv) {
  if (nv == 6) memcpy(dst, src, 6 * sizeof(double));
  else if (nv == 3) memcpy(dst, src, 3 * sizeof(double));
  else
    for (int d = 0; d < nv; ++d) dst[d] = src[d];
}

/* The maxima of the problem's diagonal bound (lsim_factored_diag_bound, factored.h's
 * diag_bound), gathered as the rows are written: the largest |entries| of J and B (a NaN
 * passes unseen: the bound only ever rules the impulse unit out, and an unsound problem is
 * then solved as given, as when the check refuses it; an infinity makes the bound
 * infinite), J's longest row, whether some row's columns do not ascend, and C's largest
 * |entry| and longest row. */
#if defined(__SSE2__)
/* A running max of |values| in two lanes (SSE2: a 3-D body's six in three max). */
typedef __m128d MaxAbs;
static inline MaxAbs max_abs_zero(void) { return _mm_setzero_pd(); }
static inline MaxAbs max_abs(MaxAbs m, const double *a, int nv) {
  const __m128d mask = _mm_castsi128_pd(_mm_set1_epi64x(0x7fffffffffffffffLL));
  int d = 0;
  for (; d + 2 <= nv; d += 2) m = _mm_max_pd(m, _mm_and_pd(_mm_loadu_pd(a + d), mask));
  if (d < nv) m = _mm_max_pd(m, _mm_and_pd(_mm_load_sd(a + d), mask)); /* upper lane 0 */
  return m;
}
static inline double max_abs_value(MaxAbs m) {
  double v[2];
  _mm_storeu_pd(v, m);
  return v[0] > v[1] ? v[0] : v[1];
}
#else
typedef double MaxAbs;
static inline MaxAbs max_abs_zero(void) { return 0.0; }
static inline MaxAbs max_abs(MaxAbs m, const double *a, int nv) {
  for (int d = 0; d < nv; ++d) m = fabs(a[d]) > m ? fabs(a[d]) : m;
  return m;
}
static inline double max_abs_value(MaxAbs m) { return m; }
#endif

typedef struct RowStats {
  MaxAbs jm, bm; /* J's and B's, read by max_abs_value */
  double cm;
  int jl, cl, descend;
} RowStats;

/* One Jacobian row into CSR arrays at position *k (dynamic bodies' velocities only), and
 * the matching column of W J' when the mass is block diagonal (bval non-NULL; NULL when a
 * coupled mass matrix computes B afterwards; its indices into bidx unless NULL, when B
 * shares J's pattern). Returns J_row . x over all the row's bodies (kinematic ones too),
 * in row_dot's order. */
/* put_row's part for one body bi of nv velocities (a constant where the caller can make
 * it one: the 3-D blocks' loops then unrolled); *dot accumulates in the same order. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void put_body(const LsimStepper *s, int bi, const double *jr, const int nv, int off,
                            int dynamic, int *kk, double *dot, int *idx, double *val, int *bidx,
                            double *bval, const double *x, MaxAbs *jm, MaxAbs *bm) {
  for (int d = 0; d < nv; ++d) *dot += jr[d] * x[off + d];
  if (!dynamic) return;
  for (int d = 0; d < nv; ++d) idx[*kk + d] = off + d;
  copy_block(val + *kk, jr, nv);
  *jm = max_abs(*jm, jr, nv);
#if defined(__SSE2__)
  if (bval && nv == 6 && s->dimension == 3) {
    /* A 3-D body's column of B in SSE2 pairs, apply_inverse_mass_dynamic's products in
       its order (a pair's lanes each the scalar product; the angular part's sums scalar),
       stored and measured from the registers: no copy through a scratch block (whose
       16-byte loads had each waited on two 8-byte stores). */
    const double im = s->inv_mass[bi], *A = s->inv_inertia + 9 * bi;
    const double a0 = A[0] * jr[3] + A[1] * jr[4] + A[2] * jr[5];
    const double a1 = A[3] * jr[3] + A[4] * jr[4] + A[5] * jr[5];
    const double a2 = A[6] * jr[3] + A[7] * jr[4] + A[8] * jr[5];
    const __m128d b01 = _mm_mul_pd(_mm_loadu_pd(jr), _mm_set1_pd(im));
    const __m128d b23 = _mm_unpacklo_pd(_mm_mul_sd(_mm_load_sd(jr + 2), _mm_set_sd(im)),
                                        _mm_set_sd(a0));
    const __m128d b45 = _mm_unpacklo_pd(_mm_set_sd(a1), _mm_set_sd(a2));
    double *y = bval + *kk;
    _mm_storeu_pd(y, b01), _mm_storeu_pd(y + 2, b23), _mm_storeu_pd(y + 4, b45);
    const __m128d mask = _mm_castsi128_pd(_mm_set1_epi64x(0x7fffffffffffffffLL));
    MaxAbs m = *bm;
    m = _mm_max_pd(m, _mm_and_pd(b01, mask));
    m = _mm_max_pd(m, _mm_and_pd(b23, mask));
    *bm = _mm_max_pd(m, _mm_and_pd(b45, mask));
    if (bidx)
      for (int d = 0; d < 6; ++d) bidx[*kk + d] = off + d;
    *kk += nv;
    return;
  }
#endif
  if (bval) {
    double wj[LSIM_MAX_BODY_DOF];
    apply_inverse_mass_dynamic(s, bi, jr, wj);
    copy_block(bval + *kk, wj, nv);
    *bm = max_abs(*bm, bval + *kk, nv);
    if (bidx)
      for (int d = 0; d < nv; ++d) bidx[*kk + d] = off + d;
  }
  *kk += nv;
}

/* Inlined into its callers: the call per row, its arguments and saved registers had cost
   19 M of the pile of 1000 boxes' 4.5 G instructions over 100 steps. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline double put_row_dofs(const LsimStepper *s, const LsimJacRow *row,
                                   const LsimBodyDofs *bdv, int *k, int *idx, double *val,
                                   int *bidx, double *bval, const double *x, RowStats *st) {
  double dot = 0.0;
  int kk = *k; /* a local index: the stores below cannot alias it */
  int next = 0, descend = 0; /* the row's columns ascend while each body's block starts at
                                or after the one before it ends */
  MaxAbs jm = st->jm, bm = st->bm; /* locals: the stores into the arrays cannot alias them */
  for (int slot = 0; slot < 2; ++slot) {
    const int bi = row->body[slot];
    if (bi < 0) continue;
    const LsimBodyDofs bd = bdv[slot];
    if (bd.dynamic) {
      descend |= bd.v_offset < next;
      next = bd.v_offset + bd.nv;
    }
    /* 3-D bodies (6 velocities) apart: their loops unrolled (generic, the dot product and
       index loops had taken a third of put_row on a pile of boxes). */
    if (bd.nv == 6)
      put_body(s, bi, row->j[slot], 6, bd.v_offset, bd.dynamic, &kk, &dot, idx, val, bidx, bval, x, &jm, &bm);
    else
      put_body(s, bi, row->j[slot], bd.nv, bd.v_offset, bd.dynamic, &kk, &dot, idx, val, bidx, bval, x, &jm, &bm);
  }
  st->jm = jm, st->bm = bm, st->descend |= descend;
  st->jl = kk - *k > st->jl ? kk - *k : st->jl;
  *k = kk;
  return dot;
}

/* put_row_dofs with bdv[slot] = s->dofs[row->body[slot]] (read only where body >= 0). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline double put_row(const LsimStepper *s, const LsimModel *m, const LsimJacRow *row, int *k,
                             int *idx, double *val, int *bidx, double *bval, const double *x,
                             RowStats *st) {
  (void)m;
  LsimBodyDofs bdv[2] = {{0, 0, 0, 0}, {0, 0, 0, 0}};
  for (int slot = 0; slot < 2; ++slot)
    if (row->body[slot] >= 0) bdv[slot] = s->dofs[row->body[slot]];
  return put_row_dofs(s, row, bdv, k, idx, val, bidx, bval, x, st);
}

/* dst[0 .. len-1] = -src[...], the two disjoint (a source row ends before its copy). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void neg_copy(double *restrict dst, const double *restrict src, const int len) {
  for (int t = 0; t < len; ++t) dst[t] = -src[t];
}

/* Problems from this many variables write their rows on the solver's team (when it has
 * one: "pgs" with threads > 1), each member the slice of the variables it will prepare
 * and sweep, so those rows are in its cache (measured on the pile of 1000 boxes, 2
 * threads: step min 4.44-4.53 -> 4.26-4.42 ms, the solve's share included). */
enum { PARALLEL_MIN_VARS = 512 };

/* How many variables ahead rows_range asks for a row (two 3-D contacts). */
enum { ROWS_PREFETCH = 12, ROWS_PREFETCH_BODIES = 6, ROWS_PREFETCH_STORE = 96 };

/* How many contacts ahead cq_range asks for a contact's record. */
enum { CQ_PREFETCH = 6 };

/* Cone c's products (factored.h) where B shares J's pattern and the cone is the usual 3-D
 * one (normal, 4 directions, lambda at variables L - 5 .. L, the first direction's row
 * and the normal's just written, J_ptr up to L): the PGS table's sums, made while the
 * rows are in the cache; else len 0 (the table reads the rows). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void cone_products_at(LsimStepper *s, int c, int L, int shared) {
  LsimConeProducts *pr = &s->cone_prod[c];
  const LsimConeBlock *cb = &s->cones[c];
  pr->len = 0, pr->neg = 0;
  if (!shared || cb->lambda != L || cb->ndir != 4 || cb->normal != L - 5 || cb->first_dir != L - 4)
    return;
  const int *p = s->J_ptr;
  const int len = p[L - 3] - p[L - 4]; /* the first direction's row, as the table's */
  if (len <= 0) return;
  const double *J = s->J_val, *B = s->B_val;
  lsim_cone_products(J + p[L - 5], J + p[L - 4], J + p[L - 3], B + p[L - 5], B + p[L - 4],
                     B + p[L - 3], len, pr->dot);
  if (len == 12)
    pr->neg = (lsim_negated_heads(J + p[L - 5], J + p[L - 4], J + p[L - 3]) == 0) |
              (lsim_negated_heads(B + p[L - 5], B + p[L - 4], B + p[L - 3]) == 0) << 1;
  pr->len = len, pr->lambda = L, pr->at = p[L - 5];
  pr->o[0] = s->J_idx[p[L - 4]], pr->o[1] = len > 6 ? s->J_idx[p[L - 4] + 6] : 0;
}

#if defined(__SSE2__)
/* put_body of a dynamic body of 6 velocities in 3-D with B at J's positions (its column
 * of B as put_body's SSE2 branch makes it), the block's indices given as vectors (off ..
 * off + 3, off + 4 .. off + 5) and each value loaded once: the same stores, sum and
 * maxima in the same order. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void put_block6(const LsimStepper *s, int bi, const double *jr, const double *xv,
                              __m128i id03, __m128i id45, int k, double *dot, int *idx,
                              double *val, double *bval, MaxAbs *jm, MaxAbs *bm) {
  double d = *dot;
  d += jr[0] * xv[0], d += jr[1] * xv[1], d += jr[2] * xv[2];
  d += jr[3] * xv[3], d += jr[4] * xv[4], d += jr[5] * xv[5];
  *dot = d;
  _mm_storeu_si128((__m128i *)(idx + k), id03);
  _mm_storel_epi64((__m128i *)(idx + k + 4), id45);
  const __m128d j01 = _mm_loadu_pd(jr), j23 = _mm_loadu_pd(jr + 2), j45 = _mm_loadu_pd(jr + 4);
  _mm_storeu_pd(val + k, j01), _mm_storeu_pd(val + k + 2, j23), _mm_storeu_pd(val + k + 4, j45);
  const __m128d mask = _mm_castsi128_pd(_mm_set1_epi64x(0x7fffffffffffffffLL));
  MaxAbs m = *jm;
  m = _mm_max_pd(m, _mm_and_pd(j01, mask));
  m = _mm_max_pd(m, _mm_and_pd(j23, mask));
  *jm = _mm_max_pd(m, _mm_and_pd(j45, mask));
  const double im = s->inv_mass[bi], *A = s->inv_inertia + 9 * bi;
  const double a0 = A[0] * jr[3] + A[1] * jr[4] + A[2] * jr[5];
  const double a1 = A[3] * jr[3] + A[4] * jr[4] + A[5] * jr[5];
  const double a2 = A[6] * jr[3] + A[7] * jr[4] + A[8] * jr[5];
  const __m128d vim = _mm_set1_pd(im);
  const __m128d b01 = _mm_mul_pd(j01, vim);
  const __m128d b23 = _mm_unpacklo_pd(_mm_mul_sd(j23, vim), _mm_set_sd(a0));
  const __m128d b45 = _mm_unpacklo_pd(_mm_set_sd(a1), _mm_set_sd(a2));
  double *y = bval + k;
  _mm_storeu_pd(y, b01), _mm_storeu_pd(y + 2, b23), _mm_storeu_pd(y + 4, b45);
  m = *bm;
  m = _mm_max_pd(m, _mm_and_pd(b01, mask));
  m = _mm_max_pd(m, _mm_and_pd(b23, mask));
  *bm = _mm_max_pd(m, _mm_and_pd(b45, mask));
}
#endif

/* The places of J and B's values and J's column indices ROWS_PREFETCH_STORE entries past
 * entry k, asked for writing while they are within the rows' store (store_end). */
static inline void prefetch_store(const LsimStepper *s, int k, int store_end) {
#if defined(__GNUC__)
  if (k + ROWS_PREFETCH_STORE < store_end) {
    __builtin_prefetch(s->J_val + k + ROWS_PREFETCH_STORE, 1);
    __builtin_prefetch(s->B_val + k + ROWS_PREFETCH_STORE, 1);
    __builtin_prefetch(s->J_idx + k + ROWS_PREFETCH_STORE, 1);
  }
#else
  (void)s, (void)k, (void)store_end;
#endif
}

/* put_row_dofs of three rows of one body pair (a cone's normal and first two directions,
 * variables i .. i + 2, their J_ptr and row_v written): the pair's dofs read once, the
 * rows' order of columns and length found once (the same for the three), the maxima kept
 * in registers over the three rows; each row's stores, sum and the maxima's sequence as
 * put_row_dofs gives them row after row, so the same bits. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void put_cone3(LsimStepper *s, const LsimJacRow *rows, int i, int *k_io,
                             int store_end, RowStats *st) {
  LsimBodyDofs bdv[2] = {{0, 0, 0, 0}, {0, 0, 0, 0}};
  int next = 0, descend = 0;
  for (int slot = 0; slot < 2; ++slot) {
    const int bi = rows[0].body[slot];
    if (bi < 0) continue;
    bdv[slot] = s->dofs[bi];
    if (bdv[slot].dynamic) {
      descend |= bdv[slot].v_offset < next;
      next = bdv[slot].v_offset + bdv[slot].nv;
    }
  }
  MaxAbs jm = st->jm, bm = st->bm;
  int kk = *k_io;
  int *idx = s->J_idx;
  double *val = s->J_val, *bval = s->B_val, *row_v = s->row_v;
  const double *x = s->v_free;
  const int k0 = kk;
#if defined(__SSE2__)
  /* Every body of the pair dynamic with 6 velocities in 3-D (a pile's contacts): the
     blocks through put_block6, their indices made once for the three rows. */
  int plain = s->dimension == 3;
  for (int slot = 0; slot < 2; ++slot)
    plain &= rows[0].body[slot] < 0 || (bdv[slot].dynamic && bdv[slot].nv == 6);
  if (plain) {
    const int b0 = rows[0].body[0], b1 = rows[0].body[1];
    const int o0 = bdv[0].v_offset, o1 = bdv[1].v_offset;
    const __m128i i03a = _mm_add_epi32(_mm_set1_epi32(o0), _mm_setr_epi32(0, 1, 2, 3));
    const __m128i i45a = _mm_add_epi32(_mm_set1_epi32(o0), _mm_setr_epi32(4, 5, 0, 0));
    const __m128i i03b = _mm_add_epi32(_mm_set1_epi32(o1), _mm_setr_epi32(0, 1, 2, 3));
    const __m128i i45b = _mm_add_epi32(_mm_set1_epi32(o1), _mm_setr_epi32(4, 5, 0, 0));
    for (int t = 0; t < 3; ++t) {
      prefetch_store(s, kk, store_end);
      s->J_ptr[i + t] = kk;
      double dot = 0.0;
      if (b0 >= 0) {
        put_block6(s, b0, rows[t].j[0], x + o0, i03a, i45a, kk, &dot, idx, val, bval, &jm, &bm);
        kk += 6;
      }
      if (b1 >= 0) {
        put_block6(s, b1, rows[t].j[1], x + o1, i03b, i45b, kk, &dot, idx, val, bval, &jm, &bm);
        kk += 6;
      }
      row_v[i + t] = dot;
    }
  } else
#endif
  for (int t = 0; t < 3; ++t) {
    prefetch_store(s, kk, store_end);
    s->J_ptr[i + t] = kk;
    double dot = 0.0;
    for (int slot = 0; slot < 2; ++slot) {
      const int bi = rows[t].body[slot];
      if (bi < 0) continue;
      const LsimBodyDofs bd = bdv[slot];
      if (bd.nv == 6)
        put_body(s, bi, rows[t].j[slot], 6, bd.v_offset, bd.dynamic, &kk, &dot, idx, val, NULL,
                 bval, x, &jm, &bm);
      else
        put_body(s, bi, rows[t].j[slot], bd.nv, bd.v_offset, bd.dynamic, &kk, &dot, idx, val,
                 NULL, bval, x, &jm, &bm);
    }
    row_v[i + t] = dot;
  }
  const int len = (kk - k0) / 3;
  st->jm = jm, st->bm = bm, st->descend |= descend;
  st->jl = len > st->jl ? len : st->jl;
  *k_io = kk;
}

/* The first cone whose lambda is at or after variable b (the cones ascend). */
static int cone_at(const LsimStepper *s, int ncones, int b) {
  int lo = 0, hi = ncones;
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    if (s->cones[mid].lambda < b) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Variables [b, e) of J and B (rows from put_row; a direction's negated row copied from
 * its source's, which has its maxima, or left empty when implicit: factored.h), from
 * position *k on; their maxima into *st; the products of the cones whose lambda is in
 * [b, e) (ncones of them in all). */
static void rows_range(LsimStepper *s, const LsimModel *m, int b, int e, int shared, int coupled,
                       int implicit, int ncones, int *k_io, RowStats *st) {
  const LsimContactSet *set = &s->contacts;
  int k = *k_io;
  int cone = cone_at(s, ncones, b);
  const int store_end = s->nnz_cap < s->b_cap ? s->nnz_cap : s->b_cap;
  (void)store_end;
  const LsimJacRow *rows = set->rows;
  const int *var_row = s->var_row;
  for (int i = b; i < e; ++i) {
    const int vr = var_row[i];
    /* The usual 3-D cone with its negated directions implicit (number_range's map: three
       stored rows of one body pair, the negatives of the second and third, a lambda): its
       six variables in one turn, each exactly as the loop below takes it (the same
       stores, sums and products in the same order, so the same bits), with the tests and
       prefetches once a cone and the pair's dofs loaded once for its three rows. */
    if (shared && implicit && !coupled && vr >= 0 && i + 5 < e && var_row[i + 5] == -1 &&
        var_row[i + 1] == vr + 1 && var_row[i + 2] == vr + 2 && var_row[i + 3] == -3 - i &&
        var_row[i + 4] == -4 - i && rows[vr + 1].body[0] == rows[vr].body[0] &&
        rows[vr + 1].body[1] == rows[vr].body[1] && rows[vr + 2].body[0] == rows[vr].body[0] &&
        rows[vr + 2].body[1] == rows[vr].body[1]) {
#if defined(__GNUC__)
      /* As the loop below asks: the rows ROWS_PREFETCH variables on (of its three
         variables), the bodies of the contact whose first row follows this lambda, and
         the places the rows ROWS_PREFETCH_STORE entries on will be written. */
      for (int t = 0; t < 3; ++t)
        if (i + t + ROWS_PREFETCH < e && var_row[i + t + ROWS_PREFETCH] >= 0) {
          const char *ahead = (const char *)&rows[var_row[i + t + ROWS_PREFETCH]];
          __builtin_prefetch(ahead), __builtin_prefetch(ahead + 64);
          __builtin_prefetch(ahead + sizeof(LsimJacRow) - 1);
        }
      if (ROWS_PREFETCH_BODIES == 6 && i + 6 < e && var_row[i + 6] >= 0) {
        const LsimJacRow *ra = &rows[var_row[i + 6]];
        for (int slot = 0; slot < 2; ++slot) {
          const int bi = ra->body[slot] >= 0 ? ra->body[slot] : 0;
          __builtin_prefetch(&s->dofs[bi]), __builtin_prefetch(s->inv_inertia + 9 * bi);
          __builtin_prefetch(s->inv_inertia + 9 * bi + 8), __builtin_prefetch(&s->inv_mass[bi]);
        }
      }
#endif
      put_cone3(s, &rows[vr], i, &k, store_end, st);
      s->J_ptr[i + 3] = k, s->row_v[i + 3] = -s->row_v[i + 1];
      s->J_ptr[i + 4] = k, s->row_v[i + 4] = -s->row_v[i + 2];
      s->J_ptr[i + 5] = k;
      if (cone < ncones) cone_products_at(s, cone++, i + 5, shared);
      i += 5;
      continue;
    }
    s->J_ptr[i] = k;
    if (!shared) s->B_ptr[i] = k;
    if (vr == -1) { /* a cone's lambda: its rows are written */
      if (cone < ncones) cone_products_at(s, cone++, i, shared);
      continue;
    }
    /* The row ROWS_PREFETCH variables on, asked for now: the contacts are in the sweep's
       order, their rows in detection's, so each contact's rows are a miss the hardware
       does not foresee (the row's first load had a fifth of this pass's samples at
       10 000 bodies). */
#if defined(__GNUC__)
    if (i + ROWS_PREFETCH < e && s->var_row[i + ROWS_PREFETCH] >= 0) {
      const char *ahead = (const char *)&set->rows[s->var_row[i + ROWS_PREFETCH]];
      __builtin_prefetch(ahead), __builtin_prefetch(ahead + 64);
      __builtin_prefetch(ahead + sizeof(LsimJacRow) - 1);
    }
    /* The bodies of the contact whose first row is ROWS_PREFETCH_BODIES variables on (its
       row asked for above earlier; the variable before it a lambda, as after each cone):
       their dofs, inverse mass and inertia, once for the contact's rows. */
    if (i + ROWS_PREFETCH_BODIES < e && s->var_row[i + ROWS_PREFETCH_BODIES] >= 0 &&
        s->var_row[i + ROWS_PREFETCH_BODIES - 1] == -1) {
      const LsimJacRow *ra = &set->rows[s->var_row[i + ROWS_PREFETCH_BODIES]];
      for (int slot = 0; slot < 2; ++slot) {
        const int bi = ra->body[slot] >= 0 ? ra->body[slot] : 0;
        __builtin_prefetch(&s->dofs[bi]), __builtin_prefetch(s->inv_inertia + 9 * bi);
        __builtin_prefetch(s->inv_inertia + 9 * bi + 8), __builtin_prefetch(&s->inv_mass[bi]);
      }
    }
    /* Where the rows ROWS_PREFETCH_STORE entries on will be written, for writing (within
       the arrays: store_end, the smaller capacity of J's and B's). */
    if (k + ROWS_PREFETCH_STORE < store_end) {
      __builtin_prefetch(s->J_val + k + ROWS_PREFETCH_STORE, 1);
      __builtin_prefetch(s->B_val + k + ROWS_PREFETCH_STORE, 1);
      __builtin_prefetch(s->J_idx + k + ROWS_PREFETCH_STORE, 1);
    }
#endif
    if (vr >= 0) {
      s->row_v[i] = put_row(s, m, &set->rows[vr], &k, s->J_idx, s->J_val,
                            shared || coupled ? NULL : s->B_idx, coupled ? NULL : s->B_val,
                            s->v_free, st);
      continue;
    }
    /* The negative of an earlier row: nothing stored where the negated directions are
       implicit (the fast path never reads them; lsim_factored_full writes them for every
       other reader), else its entries negated (B's too, at the same positions; a coupled
       mass forms B below). */
    const int src = -2 - vr;
    if (implicit) {
      s->row_v[i] = -s->row_v[src];
      continue;
    }
    const int p0 = s->J_ptr[src], len = s->J_ptr[src + 1] - p0;
    if (shared) { /* the usual case: B shares J's indices; the source ends before k */
      int *ji = s->J_idx;
      double *jv = s->J_val, *bv = s->B_val;
      if (len == 12) { /* two 3-D bodies: fixed sizes, inlined and vectorized */
        memcpy(ji + k, ji + p0, 12 * sizeof(int));
        neg_copy(jv + k, jv + p0, 12), neg_copy(bv + k, bv + p0, 12);
      } else {
        memcpy(ji + k, ji + p0, (size_t)len * sizeof(int));
        neg_copy(jv + k, jv + p0, len), neg_copy(bv + k, bv + p0, len);
      }
      k += len;
    } else {
      for (int p = p0; p < p0 + len; ++p, ++k) {
        s->J_idx[k] = s->J_idx[p], s->J_val[k] = -s->J_val[p];
        if (!coupled) s->B_val[k] = -s->B_val[p];
        if (!coupled) s->B_idx[k] = s->B_idx[p];
      }
    }
    s->row_v[i] = -s->row_v[src];
  }
  *k_io = k;
}

/* q of a normal row with restitution (Newton's law at the velocity level inside the
 * step's LCP, as Box2D's restitution bias and Stewart's velocity-level impact law, SIAM
 * Review 42(1), 2000, sec. 5): when the contact approaches faster than the threshold,
 * v_n = J v < -threshold with v the step's starting velocity, and the step would close
 * its gap (q_gap = gap / h + J v_free + bias < 0), the row asks
 *   J v' >= -e v_n + (J v_free - J v)
 * (the impact reverses the pre-impact normal velocity by e; the applied forces of the
 * step act on top, so the free-flight energy of semi-implicit Euler is not raised) as well
 * as the gap row's J v' >= -gap / h - bias: q = min((1 + e) v_n, q_gap). Otherwise, or
 * with e = 0, the gap row alone. */
static double restitution_q(const LsimStepper *s, const LsimModel *m, const LsimContact *ct,
                            const LsimJacRow *row, double q_gap) {
  if (q_gap >= 0.0) return q_gap;
  const double e = lsim_pair_restitution(m, ct->body[0], ct->body[1]);
  if (e <= 0.0) return q_gap;
  const double vn = row_dot(m, row, s->v_pre);
  if (!(vn < -m->restitution_threshold)) return q_gap;
  const double q_e = (1.0 + e) * vn;
  return q_e < q_gap ? q_e : q_gap;
}

/* C (CSR) and q of contacts [c0, c1), C's entries from position kc (their maxima into
 * *st); returns the position after them. C: beta_k row +1 at lambda; lambda row mu at c_n, -1 at each beta. q from
 * the free velocity (corrected for the joints when ne > 0, else J v_free from the rows'
 * pass): gap / h + J v_free + bias (restitution_q for impacting contacts). */
static int cq_range(LsimStepper *s, const LsimModel *m, int c0, int c1, int kc, int ne,
                    RowStats *st) {
  const LsimContactSet *set = &s->contacts;
  const double h = m->time_step, slop = lsim_correction_slop(m);
  double cm = st->cm; /* C's maxima in locals (the stores into C cannot alias them) */
  int cl = st->cl;
  for (int c = c0; c < c1; ++c) {
    /* The contact's hot fields (s->hot; the record itself only for a joint's allowance and
       restitution). */
    const LsimContactHot *ct = &s->hot[c];
#if defined(__GNUC__)
    /* The contact CQ_PREFETCH on, asked for now: the first loads of each contact's record
       had 44 % of this pass's samples at 10 000 bodies, the records' stream of 216 B each
       outrunning the hardware's. */
    if (c + CQ_PREFETCH < c1) {
      const char *ahead = (const char *)(ct + CQ_PREFETCH);
      __builtin_prefetch(ahead), __builtin_prefetch(ahead + sizeof *ct - 1);
    }
#endif
    if (ct->kind == LSIM_CONTACT_EQUALITY) continue;
    int var = ct->first_var, row = ct->first_row;
    if (hot_has_normal(ct)) {
      s->C_ptr[var] = kc;
      const double jv = ne == 0 ? s->row_v[var] : row_dot(m, &set->rows[row], s->v_free);
      /* A penetrating contact's row removes at most the slop s of its depth in a step:
         -gap / h is capped at s / h (s = min(LSIM_CORRECTION_SLOP, max_correction_speed
         h)), so an overlap cannot launch a body, nor a chain of them add their speeds;
         stage 6b moves the positions out of what is deeper (step_correct.c). Tethers keep
         the full term. */
      double gh = ct->gap / h;
      if (ct->kind == LSIM_CONTACT_NORMAL && ct->gap < -slop) gh = -slop / h;
      /* A contact between jointed bodies (a pin or a rod) may close to -(LSIM_TOUCH_REACH
         + |e x n|), e the position error of their joint (the largest of several), n the
         contact's normal. Contacts of a face on both sides of the joint's line (boxes
         hinged at their end faces, or held by a rod between their centres) make with it a
         self-stress d >= 0, M d = 0: the LCP is feasible only if q.d >= 0. The joint's
         correction closes the face as the corners' gaps do, to rounding and to the term
         the rows' linearization drops, h omega . (e x n) a contact (the joint's rows
         measure e between points e apart, the contact's at one point, normal fixed),
         either sign; |omega| h < 1 (a body turns less than a radian a step) bounds it by
         |e x n|, so q.d >= (sum d) reach / h > 0 (docs/scene-format.md, "Contacts between
         jointed bodies"). */
      if (ct->kind == LSIM_CONTACT_NORMAL) {
        const int *joints;
        const int nj = lsim_contacts_pair_joints(set, m, ct->body[0], ct->body[1], &joints);
        double allow = 0.0;
        for (int k = 0; k < nj; ++k) {
          double exn[3];
          lsim_v3_cross(exn, s->joint_error + 3 * joints[k], set->contacts[c].normal);
          allow = fmax(allow, lsim_v3_norm(exn));
        }
        if (nj) gh += (LSIM_TOUCH_REACH + allow) / h;
      }
      s->q[var] = gh + jv + ct->bias;
      if (s->restitution && ct->kind == LSIM_CONTACT_NORMAL)
        s->q[var] = restitution_q(s, m, &set->contacts[c], &set->rows[row], s->q[var]);
      ++var, ++row;
    }
    if (ct->ndir == 0) continue;
    /* Entries +-1 and mu; the lambda row the longest (ndir, and mu when there is c_n). */
    const double amu = fabs(ct->mu), cmax = hot_has_normal(ct) && amu > 1.0 ? amu : 1.0;
    cm = cmax > cm ? cmax : cm;
    cl = ct->ndir + hot_has_normal(ct) > cl ? ct->ndir + hot_has_normal(ct) : cl;
    const int lambda = var + ct->ndir;
    if (ct->ndir == 4 && ne == 0 && hot_has_normal(ct)) {
      /* The usual 3-D cone (d = 4, q from the rows' pass): the loops below unrolled, the
         same entries in the same order. */
      int *ci = s->C_idx + kc;
      double *cv = s->C_val + kc, *q = s->q + var;
      const double *rv = s->row_v + var;
      for (int d = 0; d < 4; ++d) {
        s->C_ptr[var + d] = kc + d;
        ci[d] = lambda, cv[d] = 1.0;
        q[d] = rv[d];
      }
      s->C_ptr[lambda] = kc + 4;
      ci[4] = ct->first_var, cv[4] = ct->mu;
      s->q[lambda] = 0.0;
      for (int d = 0; d < 4; ++d) ci[5 + d] = var + d, cv[5 + d] = -1.0;
      kc += 9;
      continue;
    }
    for (int d = 0; d < ct->ndir; ++d, ++var, ++row) {
      s->C_ptr[var] = kc;
      s->C_idx[kc] = lambda, s->C_val[kc++] = 1.0;
      s->q[var] = ne == 0 ? s->row_v[var] : row_dot(m, &set->rows[row], s->v_free);
    }
    s->C_ptr[lambda] = kc;
    if (hot_has_normal(ct)) {
      s->C_idx[kc] = ct->first_var, s->C_val[kc++] = ct->mu;
      s->q[lambda] = 0.0;
    } else {
      s->q[lambda] = ct->mu * set->contacts[c].normal_load;
    }
    for (int d = 0; d < ct->ndir; ++d) s->C_idx[kc] = lambda - ct->ndir + d, s->C_val[kc++] = -1.0;
  }
  st->cm = cm, st->cl = cl;
  return kc;
}

typedef struct RowsJob {
  LsimStepper *s;
  const LsimModel *m;
  int n, shared, coupled, implicit, T, ncones;
  int count;                             /* 1: count each slice's entries into start */
  int start[LSIM_PGS_MAX_THREADS];       /* member k's first entry of J (and B) */
  int cq;                                /* also C and q (no joint rows) */
  int first[LSIM_PGS_MAX_THREADS + 1];   /* member k's contacts: first[k] .. first[k + 1] */
  int kc[LSIM_PGS_MAX_THREADS];          /* and the position of their first C entry */
  RowStats st[LSIM_PGS_MAX_THREADS];     /* member k's maxima */
} RowsJob;

/* Member k's slice of the variables, cut after a lambda (a cone's last variable). */
static int rows_cut(const LsimStepper *s, int n, int k, int T) {
  int v = (int)((long long)n * k / T);
  while (v > 0 && v < n && s->var_row[v - 1] != -1) ++v;
  return v;
}

/* The entries of J (and B) of variables [b, e): a row's dynamic bodies' velocities (a
 * negated row: its source's, none when implicit). */
static int count_entries(const LsimStepper *s, const LsimModel *m, int b, int e, int implicit) {
  const LsimContactSet *set = &s->contacts;
  int k = 0;
  for (int i = b; i < e; ++i) {
    int vr = s->var_row[i];
    if (vr == -1 || (vr <= -2 && implicit)) continue;
    if (vr <= -2) vr = s->var_row[-2 - vr];
    const LsimJacRow *row = &set->rows[vr];
    int nnz = 0;
    for (int slot = 0; slot < 2; ++slot) {
      const int bi = row->body[slot];
      if (bi >= 0 && m->bodies[bi].type == LSIM_BODY_DYNAMIC) nnz += m->bodies[bi].nv;
    }
    k += nnz;
  }
  return k;
}

static void rows_slice(void *arg, int member) {
  RowsJob *j = arg;
  LsimStepper *s = j->s;
  const int b = rows_cut(s, j->n, member, j->T), e = rows_cut(s, j->n, member + 1, j->T);
  if (j->count) {
    j->start[member] = count_entries(s, j->m, b, e, j->implicit);
    return;
  }
  if (b < e) {
    int k = j->start[member];
    rows_range(s, j->m, b, e, j->shared, j->coupled, j->implicit, j->ncones, &k, &j->st[member]);
  }
  if (j->cq)
    (void)cq_range(s, j->m, j->first[member], j->first[member + 1], j->kc[member], 0, &j->st[member]);
}

/* J_i B(:, i) of LCP variable i (J's row, B's column, CSC, as they stand), through the
 * scratch s->dv [nv] (left zero). */
static double row_b_dot(LsimStepper *s, int i) {
  double *x = s->dv, d = 0.0;
  for (int k = s->B_ptr[i]; k < s->B_ptr[i + 1]; ++k) x[s->B_idx[k]] += s->B_val[k];
  for (int k = s->J_ptr[i]; k < s->J_ptr[i + 1]; ++k) d += s->J_val[k] * x[s->J_idx[k]];
  for (int k = s->B_ptr[i]; k < s->B_ptr[i + 1]; ++k) x[s->B_idx[k]] = 0.0;
  return d;
}

int lsim_step_inert_contacts(LsimStepper *s, unsigned char *mark) {
  const LsimContactSet *set = &s->contacts;
  /* A held row's w_i = q_i whatever the impulses: q_i at round-off below zero (a rope as
     long as the rod beside it: psi = 0 to rounding) is met within the solvers' own
     acceptance (natural residual 1e-10 of max|q|), anything lower is a true conflict
     (a rope shorter than a rod), left to the solver to fail on and report. */
  double qmax = 1.0;
  for (int i = 0; i < s->f.n; ++i) qmax = fmax(qmax, fabs(s->q[i]));
  const double q_floor = -1e-10 * qmax;
  int count = 0;
  for (int c = 0; c < set->count; ++c) {
    const LsimContact *ct = &set->contacts[c];
    mark[c] = 0;
    if (s->ne == 0 || (ct->kind != LSIM_CONTACT_NORMAL && ct->kind != LSIM_CONTACT_TETHER)) continue;
    /* A row is held by the joints when its reduced diagonal is round-off: 1e-10 of its
       diagonal before the elimination is far above the elimination's round-off (1e-15
       relative measured on a 100-link chain) and far below any row a joint leaves free. */
    const int i = ct->first_var;
    if (row_b_dot(s, i) <= 1e-10 * s->inert_pre[i] && s->q[i] > q_floor) {
      mark[c] = 1, ++count;
      continue;
    }
    int held = ct->ndir > 0;
    for (int d = 1; d <= ct->ndir && held; ++d)
      held = row_b_dot(s, i + d) <= 1e-10 * s->inert_pre[i + d];
    if (held) mark[c] = 2, ++count;
  }
  return count;
}

/* Stage 3's numbering of contacts [c0, c1): each contact's first variable (joint rows:
 * their own numbering), the variables' rows (var_row) and the cones, from *n_io, *ne_io
 * and *ncones_io on (advanced). */
static void number_range(LsimStepper *s, int c0, int c1, int *n_io, int *ne_io, int *ncones_io) {
  LsimContactSet *set = &s->contacts;
  int n = *n_io, ne = *ne_io, ncones = *ncones_io;
  for (int c = c0; c < c1; ++c) {
    LsimContact *ct = &set->contacts[c];
    LsimContactHot *hc = &s->hot[c];
    hc->id = ct->id, hc->gap = ct->gap, hc->mu = ct->mu, hc->bias = ct->bias;
    hc->body[0] = ct->body[0], hc->body[1] = ct->body[1], hc->first_row = ct->first_row;
    hc->kind = (short)ct->kind, hc->ndir = (short)ct->ndir;
    if (ct->kind == LSIM_CONTACT_EQUALITY) {
      ct->first_var = hc->first_var = ne++;
      continue;
    }
    ct->first_var = hc->first_var = n;
    int var = n, row = ct->first_row;
    if (ct->ndir == 4 && has_normal(ct)) {
      /* The usual 3-D cone: the general loop below unrolled, the same map (directions 2
         and 3 the negatives of 0 and 1). */
      int *vr = s->var_row + n;
      vr[0] = row, vr[1] = row + 1, vr[2] = row + 2;
      vr[3] = -2 - (n + 1), vr[4] = -2 - (n + 2), vr[5] = -1;
      s->cones[ncones++] = (LsimConeBlock){.normal = n,
                                           .fixed_normal = ct->normal_load,
                                           .first_dir = n + 1,
                                           .ndir = 4,
                                           .lambda = n + 5,
                                           .mu = ct->mu,
                                           .uniform = 1};
      n += 6;
      continue;
    }
    const int normal = has_normal(ct) ? var : -1;
    if (normal >= 0) s->var_row[var++] = row++;
    /* Detection's even cones: direction d + ndir/2 is the exact negative of d
       (lsim_cone_weights; the 2-D and ground pairs are +-t). */
    const int half = ct->ndir % 2 == 0 ? ct->ndir / 2 : ct->ndir;
    for (int d = 0; d < ct->ndir; ++d, ++row, ++var)
      s->var_row[var] = d < half ? row : -2 - (var - half);
    if (ct->ndir > 0) {
      s->var_row[var] = -1;
      s->cones[ncones++] = (LsimConeBlock){.normal = normal,
                                           .fixed_normal = ct->normal_load,
                                           .first_dir = var - ct->ndir,
                                           .ndir = ct->ndir,
                                           .lambda = var,
                                           .mu = ct->mu,
                                           .uniform = 1};
      ++var;
    }
    n = var;
  }
  *n_io = n, *ne_io = ne, *ncones_io = ncones;
}

/* number_range on the team, member k the contacts [count k / T, count (k + 1) / T):
 * first (number 0) its range's variables, joint rows and cones counted into n, ne,
 * ncones [k]; then (number 1, those turned into where the range starts) numbered. */
typedef struct NumberJob {
  LsimStepper *s;
  int T, number;
  int n[LSIM_PGS_MAX_THREADS], ne[LSIM_PGS_MAX_THREADS], ncones[LSIM_PGS_MAX_THREADS];
} NumberJob;

static void number_slice(void *arg, int member) {
  NumberJob *j = arg;
  const LsimContactSet *set = &j->s->contacts;
  const int c0 = (int)((long long)set->count * member / j->T);
  const int c1 = (int)((long long)set->count * (member + 1) / j->T);
  if (j->number) {
    number_range(j->s, c0, c1, &j->n[member], &j->ne[member], &j->ncones[member]);
    return;
  }
  int n = 0, ne = 0, ncones = 0;
  for (int c = c0; c < c1; ++c) {
    const LsimContact *ct = &set->contacts[c];
    if (ct->kind == LSIM_CONTACT_EQUALITY) {
      ++ne;
      continue;
    }
    n += contact_nvar(ct);
    ncones += ct->ndir > 0;
  }
  j->n[member] = n, j->ne[member] = ne, j->ncones[member] = ncones;
}

/* Stage 3: variables, then the factored LCP: rows of J and columns of B = W J' over the
 * dynamic bodies' velocities (W = M^-1: per body, or the coupled mass matrix through
 * CHOLMOD), the cone couplings C; joint rows are eliminated (Schur complement), which
 * changes v_free and B; then q from the (possibly corrected) free velocity. */
int lsim_step_assemble(LsimStepper *s, const LsimModel *m, char *err, size_t errlen) {
  LsimContactSet *set = &s->contacts;
  const double h = m->time_step;
  /* Room for the variables, entries and couplings at their bounds from the rows (a
     contact has at most one variable more than rows, its lambda; at most two entries of C
     per row), so that one pass over the contacts places them. */
  const int nnz = set->nrows * 2 * LSIM_MAX_BODY_DOF;
  if (reserve_lcp(s, set->nrows + set->count, nnz, 2 * set->nrows) ||
      lsim_grow((void **)&s->cones, &s->cones_cap, set->count, sizeof(LsimConeBlock)) ||
      lsim_grow((void **)&s->cone_prod, &s->cone_prod_cap, set->count, sizeof(LsimConeProducts)) ||
      lsim_grow((void **)&s->hot, &s->hot_cap, set->count, sizeof(LsimContactHot)))
    return LSIM_OUT_OF_MEMORY;

  /* Each joint's position error e (world), the sum of its rows' gaps along their normals:
     a pin's rows are the world axes, a rod's row its direction (contact/constraints.c;
     cq_range's allowance). */
  if (m->njoints) {
    if (lsim_grow((void **)&s->joint_error, &s->joint_error_cap, 3 * m->njoints, sizeof(double)))
      return LSIM_OUT_OF_MEMORY;
    for (int j = 0; j < 3 * m->njoints; ++j) s->joint_error[j] = 0.0;
    for (int c = 0; c < set->count; ++c) {
      const LsimContact *ct = &set->contacts[c];
      if (ct->kind != LSIM_CONTACT_EQUALITY) continue;
      for (int k = 0; k < 3; ++k) s->joint_error[3 * ct->source + k] += ct->normal[k] * ct->gap;
    }
  }

  /* Variables: [c_n] [beta_1..d lambda] per contact or tether; rows and cone structure
     (joint rows: their own numbering). On the solver's team for large sets: each member
     counts an equal range's variables, joint rows and cones, then numbers its range from
     where the ranges before it end (the one-thread numbers). */
  int n = 0, ne = 0, ncones = 0;
  LsimTeam *nteam = set->count >= s->team_min_contacts ? lsim_solver_team(s->solver) : NULL;
  NumberJob nj = {.s = s, .T = lsim_team_size(nteam)};
  if (nj.T > 1 && nj.T <= LSIM_PGS_MAX_THREADS) {
    lsim_team_run(nteam, number_slice, &nj);
    for (int t = 0; t < nj.T; ++t) {
      const int dn = nj.n[t], dne = nj.ne[t], dc = nj.ncones[t];
      nj.n[t] = n, nj.ne[t] = ne, nj.ncones[t] = ncones;
      n += dn, ne += dne, ncones += dc;
    }
    nj.number = 1;
    lsim_team_run(nteam, number_slice, &nj);
  } else {
    number_range(s, 0, set->count, &n, &ne, &ncones);
  }
  if (reserve_equality(s, ne, ne * 2 * LSIM_MAX_BODY_DOF)) return LSIM_OUT_OF_MEMORY;
  s->dense_valid = 0;
  s->ne = ne;

  /* J (CSR) and B (CSC): with a block-diagonal mass B = W J' has J's pattern, and shares
     J's pointer and index arrays unless joint rows are eliminated below (which widen B).
     Each row's J v_free on the way, for q. */
  const int coupled = s->mass != NULL, shared = !coupled && ne == 0;
  /* The negated directions implicit (factored.h) for PGS where B shares J's pattern: its
     fast path reads p_0 and p_q alone, so 480 B of a 3-D contact's 1.2 kB of rows are not
     written; every other reader gets them from lsim_factored_full, reserved here. */
  const int implicit = shared && !m->friction_exact && strcmp(lsim_solver_name(s->solver), "pgs") == 0;
  s->implicit_neg = implicit;
  if (implicit && lsim_factored_full_reserve(&s->full, n, nnz)) return LSIM_OUT_OF_MEMORY;
  lsim_factored_full_reset(&s->full);
  int k = 0;
  int cq_done = 0;
  RowStats st = {.jm = max_abs_zero(), .bm = max_abs_zero()};
  s->slices = 0;
  LsimTeam *team = n >= PARALLEL_MIN_VARS ? lsim_solver_team(s->solver) : NULL;
  if (team) {
    /* Slices of the variables, each cut after a cone's lambda (so a negated row and its
       source are in one slice): their entries counted, then written from where the
       slices before them end. */
    RowsJob job = {.s = s, .m = m, .n = n, .shared = shared, .coupled = coupled,
                   .implicit = implicit, .ncones = ncones,
                   .T = lsim_team_size(team), .cq = ne == 0, .count = 1};
    lsim_team_run(team, rows_slice, &job);
    for (int t = 0; t < job.T; ++t) {
      const int entries = job.start[t];
      job.start[t] = k;
      k += entries;
    }
    job.count = 0;
    if (job.cq) {
      /* Each member's contacts (those whose variables start in its slice) and where
         their C entries start. */
      int cut[LSIM_PGS_MAX_THREADS], kc = 0, member = 0;
      for (int t = 0; t < job.T; ++t) cut[t] = rows_cut(s, n, t, job.T);
      for (int c = 0; c < set->count; ++c) {
        const LsimContact *ct = &set->contacts[c];
        while (member < job.T && ct->first_var >= cut[member])
          job.first[member] = c, job.kc[member] = kc, ++member;
        kc += contact_c_entries(ct);
      }
      for (; member < job.T; ++member) job.first[member] = set->count, job.kc[member] = kc;
      job.first[job.T] = set->count;
      s->C_ptr[n] = kc;
      cq_done = 1;
      s->slices = job.T;
      memcpy(s->slice_first, job.first, (size_t)(job.T + 1) * sizeof(int));
    }
    lsim_team_run(team, rows_slice, &job);
    for (int t = 0; t < job.T; ++t) {
      const RowStats *a = &job.st[t];
      const double jm = max_abs_value(a->jm), bm = max_abs_value(a->bm);
      st.jm = max_abs(st.jm, &jm, 1), st.bm = max_abs(st.bm, &bm, 1);
      st.cm = fmax(st.cm, a->cm);
      st.jl = a->jl > st.jl ? a->jl : st.jl, st.cl = a->cl > st.cl ? a->cl : st.cl;
      st.descend |= a->descend;
    }
  } else {
    rows_range(s, m, 0, n, shared, coupled, implicit, ncones, &k, &st);
  }
  s->J_ptr[n] = k;
  if (!shared) s->B_ptr[n] = k;
  if (coupled && lsim_mass_solve_rows(s->mass, n, s->J_ptr, s->J_idx, s->J_val, s->B_ptr,
                                      &s->B_idx, &s->B_val, &s->b_cap))
    return LSIM_OUT_OF_MEMORY;

  /* Joint rows: J_E, B_E and their right-hand sides b_E = c gap / h + bias, with c the
     Baumgarte-style factor (off: 1, the velocity-level step's phi / h term). */
  if (ne > 0) {
    const double factor = m->baumgarte > 0.0 ? m->baumgarte : 1.0;
    int ke = 0;
    for (int c = 0; c < set->count; ++c) {
      const LsimContact *ct = &set->contacts[c];
      if (ct->kind != LSIM_CONTACT_EQUALITY) continue;
      const int e = ct->first_var;
      s->E_ptr[e] = s->EB_ptr[e] = ke;
      RowStats est = {.jm = max_abs_zero(), .bm = max_abs_zero()}; /* no bound with joints */
      (void)put_row(s, m, &set->rows[ct->first_row], &ke, s->E_idx, s->E_val,
                    coupled ? NULL : s->EB_idx, coupled ? NULL : s->EB_val, s->v_free, &est);
      s->E_rhs[e] = factor * ct->gap / h + ct->bias;
    }
    s->E_ptr[ne] = s->EB_ptr[ne] = ke;
    if (coupled && lsim_mass_solve_rows(s->mass, ne, s->E_ptr, s->E_idx, s->E_val, s->EB_ptr,
                                        &s->EB_idx, &s->EB_val, &s->eb_cap))
      return LSIM_OUT_OF_MEMORY;
    /* The joint rows' kinematic velocities (moving anchors, kinematic bodies) enter b_E. */
    for (int c = 0; c < set->count; ++c) {
      const LsimContact *ct = &set->contacts[c];
      if (ct->kind != LSIM_CONTACT_EQUALITY) continue;
      const LsimJacRow *row = &set->rows[ct->first_row];
      for (int slot = 0; slot < 2; ++slot) {
        const int bi = row->body[slot];
        if (bi < 0 || m->bodies[bi].type != LSIM_BODY_KINEMATIC) continue;
        for (int d = 0; d < m->bodies[bi].nv; ++d)
          s->E_rhs[ct->first_var] += row->j[slot][d] * s->v_free[m->bodies[bi].v_offset + d];
      }
    }
    /* Each contact's normal-row diagonal J_i W J_i' before the elimination, for
       lsim_step_inert_contacts. */
    if (lsim_grow((void **)&s->inert_pre, &s->inert_cap, n > 0 ? n : 1, sizeof(double)))
      return LSIM_OUT_OF_MEMORY;
    for (int i = 0; i < n; ++i) s->inert_pre[i] = 0.0;
    for (int c = 0; c < set->count; ++c) {
      const LsimContact *ct = &set->contacts[c];
      if (ct->kind != LSIM_CONTACT_NORMAL && ct->kind != LSIM_CONTACT_TETHER) continue;
      for (int v = 0; v < 1 + ct->ndir; ++v)
        s->inert_pre[ct->first_var + v] = row_b_dot(s, ct->first_var + v);
    }
    if (!s->equality && !(s->equality = lsim_equality_create())) return LSIM_OUT_OF_MEMORY;
    const int rc = lsim_equality_eliminate(s->equality, m->nv, ne, s->E_ptr, s->E_idx, s->E_val,
                                           s->EB_ptr, s->EB_idx, s->EB_val, s->E_rhs, s->v_free,
                                           n, s->J_ptr, s->J_idx, s->J_val, s->B_ptr, &s->B_idx,
                                           &s->B_val, &s->b_cap, err, errlen);
    if (rc) return rc;
  }

  /* C and q (cq_range), unless the rows' slices wrote them. */
  if (!cq_done) s->C_ptr[n] = cq_range(s, m, 0, set->count, 0, ne, &st);

  s->f = (LsimFactoredLcp){.n = n, .m = m->nv, .J_ptr = s->J_ptr, .J_idx = s->J_idx,
                           .J_val = s->J_val, .B_ptr = shared ? s->J_ptr : s->B_ptr,
                           .B_idx = shared ? s->J_idx : s->B_idx,
                           .B_val = s->B_val, .C_ptr = s->C_ptr, .C_idx = s->C_idx,
                           .C_val = s->C_val, .q = s->q, .ncones = ncones, .cones = s->cones,
                           .cone_products = shared ? s->cone_prod : NULL,
                           .full = implicit ? &s->full : NULL};
  /* The block promise (factored.h): B shares J's pattern, and every row's blocks are
     whole bodies' velocities (each dynamic body has the dimension's nv at a multiple of
     it), the same for all rows of a contact; C as cq_range writes it. */
  if (shared) s->f.block_width = m->dimension == 3 ? 6 : m->dimension == 2 ? 3 : 1;
  /* The diagonal's bound (factored.h) from the rows' maxima, where B shares J's pattern
     (its longest column is then J's longest row): what lsim_factored_check_bound finds,
     without its pass over the problem. */
  if (shared)
    s->f.diag_bound = lsim_factored_diag_bound(st.jl, st.descend ? st.jl : 1, max_abs_value(st.jm),
                                               max_abs_value(st.bm), st.cl, st.cm);
  return 0;
}
