/* newton_schur.c: newton's linear systems reduced to the velocities (see
 * newton_schur.h for the math). Analysis once per problem (blocks of K by union-find over
 * C's pattern, S's pattern as dense blocks over the velocities each block touches, the
 * symbolic LU); per step the blocks of K inverted (Gauss-Jordan, partial pivoting, at
 * most 16 x 16), S's values as one dense product per block, one numeric LU. S's pattern
 * covers only the blocks whose rows a couples to the velocities (a_i != 0 on a row of J):
 * an active set's inactive cones add nothing to S, and leaving them out of the pattern
 * takes their fill out of the LU. A new set of such blocks gets its pattern and symbolic
 * LU again, from NARROW_MIN_M velocities on (pile_1000's 34 falling steps, m = 6000, n up
 * to 15 516: newton's time 13.5-14.3 -> 9.8-10.5 s in all, the worst step 1.9-2.0 ->
 * 1.4-1.6 s).
 *
 * The arrays are kept and grown across problems (no allocation per step but UMFPACK's own).
 *
 * Failure modes: a block of more than 16 rows (C couples many rows: not a contact problem
 * of cones), a singular block of K or a singular S give LSIM_BREAKDOWN, and the caller
 * falls back to the augmented system. */
#include "newton_schur.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <umfpack.h>

#include "blas.h"

enum { BLOCK_MAX = 16 };
/* S's pattern narrows to the coupled blocks from this many velocities on. At m = 600
 * (pile_100) a symbolic LU per active set cost more than the fill it saved (the run's
 * newton time 3-25 % longer over three alternating runs); at m = 6000 (pile_1000's
 * falling steps) it saved a quarter. */
enum { NARROW_MIN_M = 2000 };

struct LsimSchur {
  int n, m, nblk, nt, maxu;
  int *bptr, *brow, *pos;        /* [nblk + 1], [n] rows by block, [n] row's place in it */
  int *ujp, *uj, *ubp, *ub;      /* per block: velocities of J's rows, of B's columns */
  int *kp, *tp;                  /* [nblk + 1] offsets into kinv, into the triplets */
  double *kinv;                  /* inverted blocks of K, row-major */
  int *ujpos, *ubpos;            /* [m] scratch: a velocity's place in the block's lists */
  int *Ti, *Tj, *Map, *Sp, *Si;  /* S: triplets, triplet -> CSC entry, CSC pattern */
  double *Tx, *Sx;
  double *t, *tu, *su, *v, *G, *AJ; /* scratch: [n], [m], [m], [n], [16 maxu] twice */
  double *res, *dz;                /* [n] refinement */
  int *root, *fill;                /* [n], [nblk] scratch of the analysis */
  unsigned char *kept, *want;      /* [nblk] blocks in S's pattern now, and wanted by a */
  /* Capacities (elements) of the arrays above, kept across problems (grown, never shrunk). */
  int cap_bptr, cap_brow, cap_pos, cap_ujp, cap_uj, cap_ubp, cap_ub, cap_kp, cap_tp, cap_kinv,
         cap_ujpos, cap_ubpos, cap_Ti, cap_Tj, cap_Map, cap_Sp, cap_Si, cap_Tx, cap_Sx, cap_t,
         cap_tu, cap_su, cap_v, cap_G, cap_AJ, cap_res, cap_dz, cap_root, cap_fill, cap_kept,
         cap_want;
  int narrow_min; /* S's pattern narrows from this many velocities on (NARROW_MIN_M) */
  void *sym, *num;
  double ctl[UMFPACK_CONTROL], info[UMFPACK_INFO];
};

LsimSchur *lsim_schur_create(void) {
  LsimSchur *s = calloc(1, sizeof *s);
  if (s) {
    /* S's pattern is symmetric (velocities coupled by a contact both ways): the symmetric
       strategy (AMD on S + S'), and no refinement inside UMFPACK (lsim_schur_solve refines
       on the full rows). On pile_100, 90 steps: median 26.5 -> 15.2 ms, worst 416 -> 236. */
    s->narrow_min = NARROW_MIN_M;
    lsim_blas_one_thread(); /* UMFPACK's dense kernels are BLAS calls (lcp/blas.h) */
    umfpack_di_defaults(s->ctl);
    s->ctl[UMFPACK_IRSTEP] = 0;
    s->ctl[UMFPACK_STRATEGY] = UMFPACK_STRATEGY_SYMMETRIC;
  }
  return s;
}

/* The last problem's factors. */
static void release(LsimSchur *s) {
  if (s->num) umfpack_di_free_numeric(&s->num);
  if (s->sym) umfpack_di_free_symbolic(&s->sym);
  s->num = s->sym = NULL;
}

void lsim_schur_free(LsimSchur *s) {
  if (!s) return;
  release(s);
  void *p[] = {s->bptr, s->brow, s->pos, s->ujp, s->uj, s->ubp, s->ub, s->kp, s->tp, s->kinv,
               s->ujpos, s->ubpos, s->Ti, s->Tj, s->Map, s->Sp, s->Si, s->Tx, s->Sx, s->t, s->tu,
               s->su, s->v, s->G, s->AJ, s->res, s->dz, s->root, s->fill, s->kept, s->want};
  for (size_t k = 0; k < sizeof p / sizeof p[0]; ++k) free(p[k]);
  free(s);
}

static int find(int *root, int i) {
  while (root[i] != i) i = root[i] = root[root[i]];
  return i;
}

/* s->p holds at least count elements (lsim_grow, lcp.h; at least one). */
#define GROW(p, count) \
  (!lsim_grow((void **)&s->p, &s->cap_##p, (count) > 0 ? (int)(count) : 1, sizeof *s->p))

/* S's pattern over the blocks in s->kept (the identity, then each kept block's rows ub x
 * columns uj, from s->tp on) and its symbolic LU. */
static int pattern(LsimSchur *s) {
  const int m = s->m;
  if (s->num) umfpack_di_free_numeric(&s->num);
  if (s->sym) umfpack_di_free_symbolic(&s->sym);
  s->num = s->sym = NULL;
  long nt = m;
  for (int b = 0; b < s->nblk; ++b) {
    s->tp[b] = (int)nt;
    if (s->kept[b])
      nt += (long)(s->ujp[b + 1] - s->ujp[b]) * (s->ubp[b + 1] - s->ubp[b]);
  }
  s->tp[s->nblk] = (int)nt;
  s->nt = (int)nt;
  for (int j = 0; j < m; ++j) s->Ti[j] = s->Tj[j] = j;
  for (int b = 0; b < s->nblk; ++b) {
    if (!s->kept[b]) continue;
    int k = s->tp[b];
    for (int r = s->ubp[b]; r < s->ubp[b + 1]; ++r)
      for (int c = s->ujp[b]; c < s->ujp[b + 1]; ++c, ++k) s->Ti[k] = s->ub[r], s->Tj[k] = s->uj[c];
  }
  if (umfpack_di_triplet_to_col(m, m, s->nt, s->Ti, s->Tj, NULL, s->Sp, s->Si, NULL, s->Map) !=
      UMFPACK_OK)
    return LSIM_OUT_OF_MEMORY;
  const int rc = umfpack_di_symbolic(m, m, s->Sp, s->Si, NULL, &s->sym, s->ctl, s->info);
  if (rc == UMFPACK_ERROR_out_of_memory) return LSIM_OUT_OF_MEMORY;
  return rc == UMFPACK_OK ? 0 : LSIM_BREAKDOWN;
}

int lsim_schur_analyse(LsimSchur *s, const LsimFactoredLcp *f) {
  release(s);
  const int n = f->n, m = f->m;
  s->n = n, s->m = m;
  if (m == 0) return LSIM_BREAKDOWN; /* nothing to reduce to */
  /* Blocks: rows joined by C's entries. */
  if (!GROW(root, n)) return LSIM_OUT_OF_MEMORY;
  int *const root = s->root;
  for (int i = 0; i < n; ++i) root[i] = i;
  for (int i = 0; f->C_ptr && i < n; ++i)
    for (int p = f->C_ptr[i]; p < f->C_ptr[i + 1]; ++p) {
      const int a = find(root, i), b = find(root, f->C_idx[p]);
      if (a != b) root[a < b ? b : a] = a < b ? a : b;
    }
  /* Number the blocks by their first row; rows by block in order. */
  if (!GROW(pos, n) || !GROW(brow, n) || !GROW(bptr, n + 1)) return LSIM_OUT_OF_MEMORY;
  int nb = 0;
  for (int i = 0; i < n; ++i) {
    const int r = find(root, i);
    s->pos[i] = r == i ? nb++ : s->pos[r]; /* block number, for now */
  }
  s->nblk = nb;
  memset(s->bptr, 0, sizeof(int) * (size_t)(nb + 1));
  for (int i = 0; i < n; ++i) ++s->bptr[s->pos[i] + 1];
  for (int b = 0; b < nb; ++b) {
    if (s->bptr[b + 1] > BLOCK_MAX) return LSIM_BREAKDOWN;
    s->bptr[b + 1] += s->bptr[b];
  }
  if (!GROW(fill, nb)) return LSIM_OUT_OF_MEMORY;
  int *const fill = s->fill;
  memcpy(fill, s->bptr, sizeof(int) * (size_t)nb);
  for (int i = 0; i < n; ++i) {
    const int b = s->pos[i];
    s->brow[fill[b]] = i;
    s->pos[i] = fill[b]++ - s->bptr[b];
  }
  /* Velocities each block touches: J's columns and B's rows (unions, in first-seen order). */
  const int nnzj = f->J_ptr[n], nnzb = f->B_ptr[n];
  if (!GROW(ujp, nb + 1) || !GROW(ubp, nb + 1) || !GROW(uj, nnzj) ||
      !GROW(ub, nnzb) || !GROW(ujpos, m) || !GROW(ubpos, m) ||
      !GROW(kp, nb + 1) || !GROW(tp, nb + 1))
    return LSIM_OUT_OF_MEMORY;
  for (int j = 0; j < m; ++j) s->ujpos[j] = s->ubpos[j] = -1;
  int kj = 0, kb = 0, kk = 0;
  long nt = m; /* S's entries over every block: the arrays' size (pattern() places them) */
  s->ujp[0] = s->ubp[0] = s->kp[0] = 0;
  s->maxu = 1;
  for (int b = 0; b < nb; ++b) {
    const int first_j = kj, first_b = kb;
    for (int r = s->bptr[b]; r < s->bptr[b + 1]; ++r) {
      const int i = s->brow[r];
      for (int p = f->J_ptr[i]; p < f->J_ptr[i + 1]; ++p) {
        const int j = f->J_idx[p];
        if (s->ujpos[j] < 0) s->ujpos[j] = kj - first_j, s->uj[kj++] = j;
      }
      for (int p = f->B_ptr[i]; p < f->B_ptr[i + 1]; ++p) {
        const int j = f->B_idx[p];
        if (s->ubpos[j] < 0) s->ubpos[j] = kb - first_b, s->ub[kb++] = j;
      }
    }
    for (int k = first_j; k < kj; ++k) s->ujpos[s->uj[k]] = -1;
    for (int k = first_b; k < kb; ++k) s->ubpos[s->ub[k]] = -1;
    s->ujp[b + 1] = kj, s->ubp[b + 1] = kb;
    const int sz = s->bptr[b + 1] - s->bptr[b];
    kk += sz * sz;
    s->kp[b + 1] = kk;
    nt += (long)(kj - first_j) * (kb - first_b);
    if (nt > 0x7fffffffL) return LSIM_OUT_OF_MEMORY;
    if (kj - first_j > s->maxu) s->maxu = kj - first_j;
    if (kb - first_b > s->maxu) s->maxu = kb - first_b;
  }
  /* S's pattern over every block at first (lsim_schur_factor narrows it to the blocks
     that a couples to the velocities); symbolic LU. */
  const int mu = s->maxu;
  if (!GROW(kinv, kk) || !GROW(Ti, nt) || !GROW(Tj, nt) || !GROW(Map, nt) ||
      !GROW(Tx, nt) || !GROW(Sp, m + 1) || !GROW(Si, nt) || !GROW(Sx, nt) ||
      !GROW(t, n) || !GROW(v, n) || !GROW(res, n) || !GROW(dz, n) ||
      !GROW(tu, m) || !GROW(su, m) || !GROW(kept, nb) || !GROW(want, nb) ||
      !GROW(G, BLOCK_MAX * mu) || !GROW(AJ, BLOCK_MAX * mu))
    return LSIM_OUT_OF_MEMORY;
  memset(s->kept, 1, (size_t)nb);
  return pattern(s);
}

/* In-place inverse of the sz x sz row-major matrix A by Gauss-Jordan with partial
 * pivoting; 0, or -1 when a pivot is zero or not finite. */
static int invert(double *A, int sz) {
  int piv[BLOCK_MAX];
  for (int c = 0; c < sz; ++c) {
    int p = c;
    for (int r = c + 1; r < sz; ++r)
      if (fabs(A[r * sz + c]) > fabs(A[p * sz + c])) p = r;
    piv[c] = p;
    if (p != c)
      for (int k = 0; k < sz; ++k) {
        const double x = A[c * sz + k];
        A[c * sz + k] = A[p * sz + k], A[p * sz + k] = x;
      }
    const double d = A[c * sz + c];
    if (!(fabs(d) > 0.0) || !isfinite(d)) return -1;
    const double inv = 1.0 / d;
    A[c * sz + c] = 1.0;
    for (int k = 0; k < sz; ++k) A[c * sz + k] *= inv;
    for (int r = 0; r < sz; ++r) {
      if (r == c) continue;
      const double g = A[r * sz + c];
      if (g == 0.0) continue;
      A[r * sz + c] = 0.0;
      for (int k = 0; k < sz; ++k) A[r * sz + k] -= g * A[c * sz + k];
    }
  }
  /* Undo the row exchanges as column exchanges, last first. */
  for (int c = sz - 1; c >= 0; --c)
    if (piv[c] != c)
      for (int r = 0; r < sz; ++r) {
        const double x = A[r * sz + c];
        A[r * sz + c] = A[r * sz + piv[c]], A[r * sz + piv[c]] = x;
      }
  return 0;
}

int lsim_schur_factor(LsimSchur *s, const LsimFactoredLcp *f, const double *a, const double *d) {
  const int m = s->m;
  /* The blocks whose rows a couples to the velocities (a_i != 0 on a row of J); the
     others add nothing to S. A new set gets its own pattern and symbolic LU, from
     narrow_min velocities on (below, every block stays in the pattern). */
  int changed = 0;
  for (int b = 0; b < s->nblk; ++b) {
    unsigned char w = m < s->narrow_min;
    for (int r = s->bptr[b]; r < s->bptr[b + 1] && !w; ++r) {
      const int i = s->brow[r];
      w = a[i] != 0.0 && f->J_ptr[i + 1] > f->J_ptr[i];
    }
    s->want[b] = w;
    changed |= w != s->kept[b];
  }
  if (changed) {
    memcpy(s->kept, s->want, (size_t)s->nblk);
    const int rc = pattern(s);
    if (rc) {
      memset(s->kept, 2, (size_t)s->nblk); /* no pattern now: the next call makes one */
      return rc;
    }
  }
  for (int j = 0; j < m; ++j) s->Tx[j] = 1.0;
  for (int b = 0; b < s->nblk; ++b) {
    const int r0 = s->bptr[b], sz = s->bptr[b + 1] - r0;
    const int nj = s->ujp[b + 1] - s->ujp[b], nbr = s->ubp[b + 1] - s->ubp[b];
    const int *uj = s->uj + s->ujp[b], *ub = s->ub + s->ubp[b];
    double *K = s->kinv + s->kp[b];
    /* K's block: diag(d) + diag(a) C, inverted. */
    memset(K, 0, sizeof(double) * (size_t)(sz * sz));
    for (int p = 0; p < sz; ++p) {
      const int i = s->brow[r0 + p];
      K[p * sz + p] = d[i];
      for (int e = f->C_ptr ? f->C_ptr[i] : 0; f->C_ptr && e < f->C_ptr[i + 1]; ++e)
        K[p * sz + s->pos[f->C_idx[e]]] += a[i] * f->C_val[e];
    }
    if (invert(K, sz)) return LSIM_BREAKDOWN;
    if (!s->kept[b]) continue; /* adds nothing to S (its rows' a are 0 on J) */
    /* G = K^-1 diag(a) J over the block's velocities (sz x nj). */
    for (int k = 0; k < nj; ++k) s->ujpos[uj[k]] = k;
    for (int k = 0; k < nbr; ++k) s->ubpos[ub[k]] = k;
    double *AJ = s->AJ; /* sz x nj */
    memset(AJ, 0, sizeof(double) * (size_t)(sz * nj));
    for (int p = 0; p < sz; ++p) {
      const int i = s->brow[r0 + p];
      for (int e = f->J_ptr[i]; e < f->J_ptr[i + 1]; ++e)
        AJ[p * nj + s->ujpos[f->J_idx[e]]] += a[i] * f->J_val[e];
    }
    for (int p = 0; p < sz; ++p)
      for (int c = 0; c < nj; ++c) {
        double g = 0.0;
        for (int q = 0; q < sz; ++q) g += K[p * sz + q] * AJ[q * nj + c];
        s->G[p * nj + c] = g;
      }
    /* S's block: B (nbr x sz) G, into the triplets. */
    double *T = s->Tx + s->tp[b];
    memset(T, 0, sizeof(double) * (size_t)(nbr * nj));
    for (int p = 0; p < sz; ++p) {
      const int i = s->brow[r0 + p];
      for (int e = f->B_ptr[i]; e < f->B_ptr[i + 1]; ++e) {
        const double bv = f->B_val[e];
        double *row = T + s->ubpos[f->B_idx[e]] * nj;
        for (int c = 0; c < nj; ++c) row[c] += bv * s->G[p * nj + c];
      }
    }
    for (int k = 0; k < nj; ++k) s->ujpos[uj[k]] = -1;
    for (int k = 0; k < nbr; ++k) s->ubpos[ub[k]] = -1;
  }
  const int nnz = s->Sp[m];
  memset(s->Sx, 0, sizeof(double) * (size_t)nnz);
  for (int k = 0; k < s->nt; ++k) s->Sx[s->Map[k]] += s->Tx[k];
  for (int k = 0; k < nnz; ++k)
    if (!isfinite(s->Sx[k])) return LSIM_BREAKDOWN;
  if (s->num) umfpack_di_free_numeric(&s->num);
  const int rc = umfpack_di_numeric(s->Sp, s->Si, s->Sx, s->sym, &s->num, s->ctl, s->info);
  if (rc == UMFPACK_ERROR_out_of_memory) return LSIM_OUT_OF_MEMORY;
  return rc == UMFPACK_OK ? 0 : LSIM_BREAKDOWN;
}

void lsim_schur_narrow_from(LsimSchur *s, int m_min) { s->narrow_min = m_min; }

int lsim_schur_narrows(const LsimSchur *s) { return s->m >= s->narrow_min; }

int lsim_schur_blocks_kept(const LsimSchur *s, int *total) {
  int k = 0;
  for (int b = 0; b < s->nblk; ++b) k += s->kept[b] == 1;
  if (total) *total = s->nblk;
  return k;
}

/* y = K^-1 x blockwise (x, y [n], distinct). */
static void apply_kinv(const LsimSchur *s, const double *x, double *y) {
  for (int b = 0; b < s->nblk; ++b) {
    const int r0 = s->bptr[b], sz = s->bptr[b + 1] - r0;
    const double *K = s->kinv + s->kp[b];
    for (int p = 0; p < sz; ++p) {
      double acc = 0.0;
      for (int q = 0; q < sz; ++q) acc += K[p * sz + q] * x[s->brow[r0 + q]];
      y[s->brow[r0 + p]] = acc;
    }
  }
}

/* z from r by the reduced system once (no refinement). */
static int solve_once(LsimSchur *s, const LsimFactoredLcp *f, const double *a, const double *r,
                      double *z) {
  const int n = s->n, m = s->m;
  /* t = K^-1 r; S u = B t; z = t - K^-1 diag(a) J u. */
  apply_kinv(s, r, s->t);
  memset(s->tu, 0, sizeof(double) * (size_t)m);
  for (int i = 0; i < n; ++i)
    for (int e = f->B_ptr[i]; e < f->B_ptr[i + 1]; ++e) s->tu[f->B_idx[e]] += f->B_val[e] * s->t[i];
  if (umfpack_di_solve(UMFPACK_A, s->Sp, s->Si, s->Sx, s->su, s->tu, s->num, s->ctl, s->info) !=
      UMFPACK_OK)
    return LSIM_BREAKDOWN;
  for (int i = 0; i < n; ++i) {
    double acc = 0.0;
    for (int e = f->J_ptr[i]; e < f->J_ptr[i + 1]; ++e) acc += f->J_val[e] * s->su[f->J_idx[e]];
    s->v[i] = a[i] * acc;
  }
  apply_kinv(s, s->v, z);
  for (int i = 0; i < n; ++i) {
    z[i] = s->t[i] - z[i];
    if (!isfinite(z[i])) return LSIM_BREAKDOWN;
  }
  return 0;
}

int lsim_schur_solve(LsimSchur *s, const LsimFactoredLcp *f, const double *a, const double *d,
                     const double *r, double *z) {
  const int n = s->n;
  if (solve_once(s, f, a, r, z)) return LSIM_BREAKDOWN;
  /* One step of refinement on the full rows, recomputed through M: the reduction squares
     the spread of a / d into S's condition (five digits lost at a spread of 1e12). */
  lsim_factored_w(f, z, s->su, s->res);
  for (int i = 0; i < n; ++i) s->res[i] = r[i] - (a[i] * (s->res[i] - f->q[i]) + d[i] * z[i]);
  if (solve_once(s, f, a, s->res, s->dz)) return LSIM_BREAKDOWN;
  for (int i = 0; i < n; ++i) z[i] += s->dz[i];
  return 0;
}
