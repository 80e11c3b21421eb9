/* equality.c: Schur-complement elimination of joint rows (see equality.h).
 *
 * A = J_E B_E keeps its structural pattern (entries where a row of J_E and a column of B_E
 * share a velocity, whatever their values), so CHOLMOD's symbolic analysis is done once
 * and redone only when that pattern changes; each step refactorizes numerically into the
 * same factor. CHOLMOD still allocates inside the factorization (its permuted copy of A)
 * and the solve (its output and workspace) each step: small (ne x ne, ne x (ni + 1)), but
 * not yet the preallocated workspace of the rest of the step. */
#include "contact/equality.h"

#include <cholmod.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lcp/blas.h"
#include "lcp/lcp.h"

enum { RHS_BLOCK = 8 }; /* right-hand sides per solve */

struct LsimEquality {
  cholmod_common common;
  int started;
  int ne, ni, nv;
  double *lambda_free;  /* [ne] */
  double *X;            /* [ne * ni] column-major: X = A^-1 J_E B_I */
  double *scratch;      /* [nv] */
  double *dense_b;      /* [nv * ni] B_I' before sparsification */
  size_t cap_lf, cap_x, cap_s, cap_db, cap_ai_x, cap_sol;
  /* A's structural pattern (lower triangle, CSC) as built this step, and the CHOLMOD
     matrix and factor that hold the last one analysed. */
  int *Ap, *Ai;
  double *Ax;
  size_t cap_ap, cap_ai;
  /* J_E's pattern by velocity (the rows touching each velocity, ascending) [nv + 1] and
     [nnz(J_E)], and the rows touching one column of B_E (a stamp per row [ne], the list
     [ne]): A's pattern in O(nnz) instead of testing every pair of rows. */
  int *vt_ptr, *vt_idx, *mark, *cand;
  size_t cap_vp, cap_vi, cap_mark, cap_cand;
  cholmod_sparse *A;
  cholmod_factor *L;
  /* One block of right-hand sides and of solutions [ne * RHS_BLOCK], and the solver's
     workspace (CHOLMOD's, sized once). */
  double *rhs, *sol;
  size_t cap_rhs;
  cholmod_dense *Y, *E;
  /* Dependent rows: A's least-norm solve, dense (pivoted_factor): G = P L [ne * rank]
     (column-major) and the Cholesky factor of G'G [rank * rank]; rank < ne when rows are
     redundant. */
  double *dA, *dG, *dK, *dy;
  size_t cap_da, cap_dg, cap_dk, cap_dy;
  int *perm;
  size_t cap_perm;
  int dense, rank;
};

LsimEquality *lsim_equality_create(void) {
  LsimEquality *e = calloc(1, sizeof *e);
  if (!e) return NULL;
  lsim_blas_one_thread();
  cholmod_start(&e->common);
  e->common.print = 0;
  e->started = 1;
  return e;
}

void lsim_equality_free(LsimEquality *e) {
  if (!e) return;
  if (e->started) {
    cholmod_free_sparse(&e->A, &e->common);
    cholmod_free_factor(&e->L, &e->common);
    cholmod_free_dense(&e->Y, &e->common);
    cholmod_free_dense(&e->E, &e->common);
    cholmod_finish(&e->common);
  }
  free(e->Ap), free(e->Ai), free(e->Ax);
  free(e->vt_ptr), free(e->vt_idx), free(e->mark), free(e->cand);
  free(e->rhs), free(e->sol);
  free(e->lambda_free);
  free(e->X);
  free(e->scratch);
  free(e->dense_b);
  free(e->dA), free(e->dG), free(e->dK), free(e->dy), free(e->perm);
  free(e);
}

/* Grows a double array to n entries. */
static int reserve(double **p, size_t *cap, size_t n) {
  if (n <= *cap) return 0;
  double *q = realloc(*p, (n ? n : 1) * sizeof(double));
  if (!q) return LSIM_OUT_OF_MEMORY;
  *p = q;
  *cap = n;
  return 0;
}

/* Grows an int array to n entries. */
static int reserve_int(int **p, size_t *cap, size_t n) {
  if (n <= *cap) return 0;
  int *q = realloc(*p, (n ? n : 1) * sizeof(int));
  if (!q) return LSIM_OUT_OF_MEMORY;
  *p = q;
  *cap = n;
  return 0;
}

/* J row r . x (x dense over the velocities). */
static int int_ascending(const void *a, const void *b) {
  const int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

static double row_dot(const int *ptr, const int *idx, const double *val, int r, const double *x) {
  double s = 0.0;
  for (int k = ptr[r]; k < ptr[r + 1]; ++k) s += val[k] * x[idx[k]];
  return s;
}

/* Redundant joint rows (a body pinned to the world at two points, a 3-D hinge made of two
 * ball joints on its axis) make A = J_E W J_E' singular, and CHOLMOD then either stops
 * (an exact zero pivot) or, when round-off leaves a pivot of 1e-17, returns impulses with
 * an arbitrary, large component in A's null space (equal and opposite on the redundant
 * rows). Such an A goes to a dense least-norm solve instead: lambda = -A^+ r, the split
 * of the impulses with the least norm (RBDL's and the event-driven integrator's choice),
 * which is smooth in the state. The rows that follow from J_I B_I are in A's range
 * (J_E W J_I' z lies in range(J_E W^1/2) = range(A)), so the reduced LCP is exact; a
 * drift term b_E outside the range (two pins that disagree) is met in least squares.
 *
 * Cholesky with diagonal pivoting stopped where the remaining diagonal falls below
 * LSIM_EQ_RANK_TOL of A's largest diagonal (rank r): A = G G', G = P L (ne x r), and
 * A^+ = G (G'G)^-2 G' (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed.,
 * sec. 10.3; the cut 1e-11 is the event-driven integrator's). Cost ne^3 / 3 a step, only
 * for such A. */
#define LSIM_EQ_RANK_TOL 1e-11
/* CHOLMOD's factor is trusted when its reciprocal condition estimate (the squared ratio of
   its smallest to largest diagonal) is above this; a factor of independent rows with mass
   ratios of 1e6 and lever arms of 1e3 stays far above it. */
#define LSIM_EQ_RCOND_MIN 1e-10

/* Factors the dense full copy dA [ne * ne] (column-major, overwritten) into e->dG (G =
 * P L), e->rank, and the Cholesky factor of G'G in e->dK. */
static int pivoted_factor(LsimEquality *e, int n) {
  double *A = e->dA, *G = e->dG, *K = e->dK;
  int *pm = e->perm;
  double dmax = 0.0;
  for (int i = 0; i < n; ++i) pm[i] = i, dmax = fmax(dmax, A[i + (size_t)i * n]);
  const double tol = LSIM_EQ_RANK_TOL * dmax;
  int r = 0;
  /* Outer-product Cholesky with diagonal pivoting; L's column k in G's column k (rows in
     pivoted order until the end). */
  for (; r < n; ++r) {
    int p = r;
    for (int i = r + 1; i < n; ++i)
      if (A[i + (size_t)i * n] > A[p + (size_t)p * n]) p = i;
    if (!(A[p + (size_t)p * n] > tol)) break;
    if (p != r) {
      for (int j = 0; j < n; ++j) {
        double t = A[r + (size_t)j * n];
        A[r + (size_t)j * n] = A[p + (size_t)j * n], A[p + (size_t)j * n] = t;
      }
      for (int i = 0; i < n; ++i) {
        double t = A[i + (size_t)r * n];
        A[i + (size_t)r * n] = A[i + (size_t)p * n], A[i + (size_t)p * n] = t;
      }
      for (int k = 0; k < r; ++k) {
        double t = G[r + (size_t)k * n];
        G[r + (size_t)k * n] = G[p + (size_t)k * n], G[p + (size_t)k * n] = t;
      }
      const int t = pm[r];
      pm[r] = pm[p], pm[p] = t;
    }
    const double d = sqrt(A[r + (size_t)r * n]);
    double *gk = G + (size_t)r * n;
    for (int i = 0; i < r; ++i) gk[i] = 0.0;
    gk[r] = d;
    for (int i = r + 1; i < n; ++i) gk[i] = A[i + (size_t)r * n] / d;
    for (int j = r + 1; j < n; ++j)
      for (int i = r + 1; i < n; ++i) A[i + (size_t)j * n] -= gk[i] * gk[j];
  }
  e->rank = r;
  /* Rows back to the original order: G(pm[i], k) = L(i, k). */
  for (int k = 0; k < r; ++k) {
    double *gk = G + (size_t)k * n, *y = e->dy;
    for (int i = 0; i < n; ++i) y[pm[i]] = gk[i];
    memcpy(gk, y, (size_t)n * sizeof(double));
  }
  /* K = chol(G'G), lower, column-major r x r. */
  for (int k = 0; k < r; ++k)
    for (int l = 0; l <= k; ++l) {
      double m = 0.0;
      for (int i = 0; i < n; ++i) m += G[i + (size_t)k * n] * G[i + (size_t)l * n];
      K[k + (size_t)l * r] = m;
    }
  for (int j = 0; j < r; ++j) {
    double sjj = K[j + (size_t)j * r];
    for (int k = 0; k < j; ++k) sjj -= K[j + (size_t)k * r] * K[j + (size_t)k * r];
    if (!(sjj > 0.0)) return LSIM_BREAKDOWN;
    K[j + (size_t)j * r] = sqrt(sjj);
    for (int i = j + 1; i < r; ++i) {
      double t = K[i + (size_t)j * r];
      for (int k = 0; k < j; ++k) t -= K[i + (size_t)k * r] * K[j + (size_t)k * r];
      K[i + (size_t)j * r] = t / K[j + (size_t)j * r];
    }
  }
  return 0;
}

/* x <- A^+ b for one right-hand side b [ne] into x [ne] (b and x may not overlap). */
static void pinv_solve(const LsimEquality *e, int n, const double *b, double *x) {
  const int r = e->rank;
  const double *G = e->dG, *K = e->dK;
  double *y = e->dy;
  /* y = G' b; y <- (K K')^-1 y twice; x = G y. */
  for (int k = 0; k < r; ++k) {
    double s = 0.0;
    for (int i = 0; i < n; ++i) s += G[i + (size_t)k * n] * b[i];
    y[k] = s;
  }
  for (int pass = 0; pass < 2; ++pass) {
    for (int i = 0; i < r; ++i) {
      double t = y[i];
      for (int k = 0; k < i; ++k) t -= K[i + (size_t)k * r] * y[k];
      y[i] = t / K[i + (size_t)i * r];
    }
    for (int i = r - 1; i >= 0; --i) {
      double t = y[i];
      for (int k = i + 1; k < r; ++k) t -= K[k + (size_t)i * r] * y[k];
      y[i] = t / K[i + (size_t)i * r];
    }
  }
  for (int i = 0; i < n; ++i) x[i] = 0.0;
  for (int k = 0; k < r; ++k)
    for (int i = 0; i < n; ++i) x[i] += G[i + (size_t)k * n] * y[k];
}

int lsim_equality_eliminate(LsimEquality *e, int nv, int ne, const int *JE_ptr,
                            const int *JE_idx, const double *JE_val, const int *BE_ptr,
                            const int *BE_idx, const double *BE_val, const double *bE,
                            double *v_free, int ni, const int *JI_ptr, const int *JI_idx,
                            const double *JI_val, int *BI_ptr, int **BI_idx, double **BI_val,
                            int *cap, char *err, size_t errlen) {
  e->ne = ne, e->ni = ni, e->nv = nv;
  if (ne == 0) return 0;
  if (reserve(&e->lambda_free, &e->cap_lf, (size_t)ne) ||
      reserve(&e->X, &e->cap_x, (size_t)ne * (size_t)(ni > 0 ? ni : 1)) ||
      reserve(&e->scratch, &e->cap_s, (size_t)nv) ||
      reserve(&e->dense_b, &e->cap_db, (size_t)nv * (size_t)(ni > 0 ? ni : 1))) {
    snprintf(err, errlen, "out of memory");
    return LSIM_OUT_OF_MEMORY;
  }
  cholmod_common *c = &e->common;
  double *sc = e->scratch;

  /* A = J_E B_E, lower triangle, column by column through a dense scatter of B_E(:, j):
     an entry wherever row i of J_E touches a velocity of column j (its value may be 0). */
  if (reserve_int(&e->Ap, &e->cap_ap, (size_t)ne + 1)) {
    snprintf(err, errlen, "out of memory");
    return LSIM_OUT_OF_MEMORY;
  }
  /* The rows of J_E by velocity (a counting sort keeps each velocity's rows ascending). */
  const int nnz_je = JE_ptr[ne];
  if (reserve_int(&e->vt_ptr, &e->cap_vp, (size_t)nv + 1) ||
      reserve_int(&e->vt_idx, &e->cap_vi, (size_t)(nnz_je > 0 ? nnz_je : 1)) ||
      reserve_int(&e->mark, &e->cap_mark, (size_t)ne) ||
      reserve_int(&e->cand, &e->cap_cand, (size_t)ne)) {
    snprintf(err, errlen, "out of memory");
    return LSIM_OUT_OF_MEMORY;
  }
  int *vp = e->vt_ptr, *vi = e->vt_idx, *mark = e->mark, *cand = e->cand;
  memset(vp, 0, ((size_t)nv + 1) * sizeof(int));
  for (int k = 0; k < nnz_je; ++k) vp[JE_idx[k] + 1]++;
  for (int v = 0; v < nv; ++v) vp[v + 1] += vp[v];
  for (int i = 0; i < ne; ++i)
    for (int k = JE_ptr[i]; k < JE_ptr[i + 1]; ++k) vi[vp[JE_idx[k]]++] = i;
  for (int v = nv; v > 0; --v) vp[v] = vp[v - 1];
  vp[0] = 0;
  for (int i = 0; i < ne; ++i) mark[i] = -1;

  size_t nz = 0;
  memset(sc, 0, (size_t)nv * sizeof(double));
  for (int j = 0; j < ne; ++j) {
    e->Ap[j] = (int)nz;
    for (int k = BE_ptr[j]; k < BE_ptr[j + 1]; ++k) sc[BE_idx[k]] += BE_val[k];
    /* Rows i >= j sharing a velocity with column j (and j itself), ascending. */
    int nc = 0;
    mark[j] = j, cand[nc++] = j;
    for (int q = BE_ptr[j]; q < BE_ptr[j + 1]; ++q)
      for (int k = vp[BE_idx[q]]; k < vp[BE_idx[q] + 1]; ++k) {
        const int i = vi[k];
        if (i > j && mark[i] != j) mark[i] = j, cand[nc++] = i;
      }
    if (nc > 32) {
      qsort(cand, (size_t)nc, sizeof *cand, int_ascending); /* a body with many joints */
    } else {
      for (int a = 1; a < nc; ++a) /* insertion sort: a few rows a column */
        for (int b = a; b > 0 && cand[b - 1] > cand[b]; --b) {
          const int t = cand[b];
          cand[b] = cand[b - 1], cand[b - 1] = t;
        }
    }
    if (reserve_int(&e->Ai, &e->cap_ai, nz + (size_t)nc) ||
        reserve(&e->Ax, &e->cap_ai_x, nz + (size_t)nc)) {
      snprintf(err, errlen, "out of memory");
      return LSIM_OUT_OF_MEMORY;
    }
    for (int c2 = 0; c2 < nc; ++c2) {
      const int i = cand[c2];
      e->Ai[nz] = i, e->Ax[nz] = row_dot(JE_ptr, JE_idx, JE_val, i, sc), ++nz;
    }
    for (int k = BE_ptr[j]; k < BE_ptr[j + 1]; ++k) sc[BE_idx[k]] = 0.0;
  }
  e->Ap[ne] = (int)nz;
  /* The symbolic analysis again only when the pattern is not the analysed one. */
  cholmod_sparse *A = e->A;
  const int same = A && (int)A->nrow == ne && ((int *)A->p)[ne] == (int)nz &&
                   !memcmp(A->p, e->Ap, ((size_t)ne + 1) * sizeof(int)) &&
                   !memcmp(A->i, e->Ai, nz * sizeof(int));
  if (!same) {
    cholmod_free_sparse(&e->A, c);
    cholmod_free_factor(&e->L, c);
    A = e->A = cholmod_allocate_sparse(ne, ne, nz, 1, 1, -1, CHOLMOD_REAL, c);
    if (!A) {
      snprintf(err, errlen, "out of memory");
      return LSIM_OUT_OF_MEMORY;
    }
    memcpy(A->p, e->Ap, ((size_t)ne + 1) * sizeof(int));
    memcpy(A->i, e->Ai, nz * sizeof(int));
  }
  memcpy(A->x, e->Ax, nz * sizeof(double));
  if (!e->L && !(e->L = cholmod_analyze(A, c))) {
    snprintf(err, errlen, "out of memory");
    return LSIM_OUT_OF_MEMORY;
  }
  cholmod_factorize(A, e->L, c);
  e->dense = c->status != CHOLMOD_OK || !(cholmod_rcond(e->L, c) > LSIM_EQ_RCOND_MIN);
  if (e->dense) {
    /* Dependent (or nearly dependent) rows: the dense least-norm solve. */
    const size_t n2 = (size_t)ne * (size_t)ne;
    if (reserve(&e->dA, &e->cap_da, n2) || reserve(&e->dG, &e->cap_dg, n2) ||
        reserve(&e->dK, &e->cap_dk, n2) || reserve(&e->dy, &e->cap_dy, (size_t)ne) ||
        reserve_int(&e->perm, &e->cap_perm, (size_t)ne)) {
      snprintf(err, errlen, "out of memory");
      return LSIM_OUT_OF_MEMORY;
    }
    memset(e->dA, 0, n2 * sizeof(double));
    for (int j = 0; j < ne; ++j)
      for (int k = e->Ap[j]; k < e->Ap[j + 1]; ++k) {
        const int i = e->Ai[k];
        e->dA[i + (size_t)j * ne] = e->dA[j + (size_t)i * ne] = e->Ax[k];
      }
    if (pivoted_factor(e, ne)) {
      snprintf(err, errlen, "the joint rows' system J_E W J_E' could not be factored "
               "(rank %d of %d)", e->rank, ne);
      return LSIM_INVALID_INPUT;
    }
  }

  /* Right-hand sides: column 0 is J_E v_free + b_E, column j + 1 is J_E B_I(:, j); solved
     RHS_BLOCK at a time. */
  const size_t blk = (size_t)ne * RHS_BLOCK;
  if (reserve(&e->rhs, &e->cap_rhs, blk) || reserve(&e->sol, &e->cap_sol, blk)) {
    snprintf(err, errlen, "out of memory");
    return LSIM_OUT_OF_MEMORY;
  }
  cholmod_dense R = {.nrow = (size_t)ne, .ncol = RHS_BLOCK, .nzmax = blk, .d = (size_t)ne,
                     .x = e->rhs, .z = NULL, .xtype = CHOLMOD_REAL, .dtype = CHOLMOD_DOUBLE};
  cholmod_dense S = R;
  S.x = e->sol;
  cholmod_dense *Sp = &S;
  for (int j0 = -1; j0 < ni; j0 += RHS_BLOCK) {
    /* Columns j0 .. j0 + RHS_BLOCK - 1 (-1: the free column); unused ones zero. */
    memset(e->rhs, 0, blk * sizeof(double));
    for (int b = 0; b < RHS_BLOCK && j0 + b < ni; ++b) {
      const int j = j0 + b;
      double *r = e->rhs + (size_t)b * ne;
      if (j < 0) {
        for (int i = 0; i < ne; ++i) r[i] = row_dot(JE_ptr, JE_idx, JE_val, i, v_free) + bE[i];
        continue;
      }
      for (int k = BI_ptr[j]; k < BI_ptr[j + 1]; ++k) sc[(*BI_idx)[k]] += (*BI_val)[k];
      for (int i = 0; i < ne; ++i) r[i] = row_dot(JE_ptr, JE_idx, JE_val, i, sc);
      for (int k = BI_ptr[j]; k < BI_ptr[j + 1]; ++k) sc[(*BI_idx)[k]] = 0.0;
    }
    if (e->dense) {
      for (int b = 0; b < RHS_BLOCK && j0 + b < ni; ++b)
        pinv_solve(e, ne, e->rhs + (size_t)b * ne, e->sol + (size_t)b * ne);
    } else if (!cholmod_solve2(CHOLMOD_A, e->L, &R, NULL, &Sp, NULL, &e->Y, &e->E, c) ||
               Sp != &S) {
      snprintf(err, errlen, "out of memory");
      return LSIM_OUT_OF_MEMORY;
    }
    for (int b = 0; b < RHS_BLOCK && j0 + b < ni; ++b) {
      const int j = j0 + b;
      const double *sol = e->sol + (size_t)b * ne;
      if (j < 0) {
        for (int i = 0; i < ne; ++i) e->lambda_free[i] = -sol[i];
      } else {
        memcpy(e->X + (size_t)j * ne, sol, (size_t)ne * sizeof(double));
      }
    }
  }

  /* v_free' = v_free + B_E lambda_free. */
  for (int i = 0; i < ne; ++i)
    for (int k = BE_ptr[i]; k < BE_ptr[i + 1]; ++k) v_free[BE_idx[k]] += BE_val[k] * e->lambda_free[i];

  /* B_I' = B_I - B_E X, dense per column, then back to CSC without exact zeros. */
  double *db = e->dense_b;
  memset(db, 0, (size_t)nv * (size_t)(ni > 0 ? ni : 1) * sizeof(double));
  for (int j = 0; j < ni; ++j) {
    double *col = db + (size_t)j * nv;
    for (int k = BI_ptr[j]; k < BI_ptr[j + 1]; ++k) col[(*BI_idx)[k]] += (*BI_val)[k];
    for (int i = 0; i < ne; ++i) {
      const double x = e->X[i + (size_t)j * ne];
      if (x == 0.0) continue;
      for (int k = BE_ptr[i]; k < BE_ptr[i + 1]; ++k) col[BE_idx[k]] -= BE_val[k] * x;
    }
  }
  int k = 0;
  for (int j = 0; j < ni; ++j) {
    BI_ptr[j] = k;
    const double *col = db + (size_t)j * nv;
    for (int row = 0; row < nv; ++row) {
      if (col[row] == 0.0) continue;
      if (k >= *cap) {
        const int ncap = *cap ? 2 * *cap : 64;
        int *ni2 = realloc(*BI_idx, (size_t)ncap * sizeof(int));
        if (!ni2) return LSIM_OUT_OF_MEMORY;
        *BI_idx = ni2;
        double *nv2 = realloc(*BI_val, (size_t)ncap * sizeof(double));
        if (!nv2) return LSIM_OUT_OF_MEMORY;
        *BI_val = nv2;
        *cap = ncap;
      }
      (*BI_idx)[k] = row, (*BI_val)[k] = col[row], ++k;
    }
  }
  BI_ptr[ni] = k;
  return 0;
}

void lsim_equality_impulses(const LsimEquality *e, const double *z, double *lambda) {
  for (int i = 0; i < e->ne; ++i) {
    double s = e->lambda_free[i];
    for (int j = 0; j < e->ni; ++j) s -= e->X[i + (size_t)j * e->ne] * z[j];
    lambda[i] = s;
  }
}
