/* equality.c: Schur-complement elimination of joint rows (see equality.h). */
#include "contact/equality.h"

#include <cholmod.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lcp/lcp.h"

struct LsimEquality {
  cholmod_common common;
  int started;
  int ne, ni, nv;
  double *lambda_free;  /* [ne] */
  double *X;            /* [ne * ni] column-major: X = A^-1 J_E B_I */
  double *scratch;      /* [nv] */
  double *dense_b;      /* [nv * ni] B_I' before sparsification */
  size_t cap_lf, cap_x, cap_s, cap_db;
};

LsimEquality *lsim_equality_create(void) {
  LsimEquality *e = calloc(1, sizeof *e);
  if (!e) return NULL;
  cholmod_start(&e->common);
  e->common.print = 0;
  e->started = 1;
  return e;
}

void lsim_equality_free(LsimEquality *e) {
  if (!e) return;
  if (e->started) cholmod_finish(&e->common);
  free(e->lambda_free);
  free(e->X);
  free(e->scratch);
  free(e->dense_b);
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

/* J row r . x (x dense over the velocities). */
static double row_dot(const int *ptr, const int *idx, const double *val, int r, const double *x) {
  double s = 0.0;
  for (int k = ptr[r]; k < ptr[r + 1]; ++k) s += val[k] * x[idx[k]];
  return s;
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

  /* A = J_E B_E, lower triangle, column by column through a dense scatter of B_E(:, j). */
  size_t nz = 0;
  cholmod_triplet *T = cholmod_allocate_triplet(ne, ne, (size_t)ne * 8 + 16, -1, CHOLMOD_REAL, c);
  if (!T) {
    snprintf(err, errlen, "out of memory");
    return LSIM_OUT_OF_MEMORY;
  }
  memset(sc, 0, (size_t)nv * sizeof(double));
  for (int j = 0; j < ne; ++j) {
    for (int k = BE_ptr[j]; k < BE_ptr[j + 1]; ++k) sc[BE_idx[k]] += BE_val[k];
    for (int i = j; i < ne; ++i) {
      const double a = row_dot(JE_ptr, JE_idx, JE_val, i, sc);
      if (a == 0.0 && i != j) continue;
      if (nz == T->nzmax && !cholmod_reallocate_triplet(2 * T->nzmax, T, c)) {
        cholmod_free_triplet(&T, c);
        snprintf(err, errlen, "out of memory");
        return LSIM_OUT_OF_MEMORY;
      }
      ((int *)T->i)[nz] = i, ((int *)T->j)[nz] = j, ((double *)T->x)[nz] = a, ++nz;
    }
    for (int k = BE_ptr[j]; k < BE_ptr[j + 1]; ++k) sc[BE_idx[k]] = 0.0;
  }
  T->nnz = nz;
  cholmod_sparse *A = cholmod_triplet_to_sparse(T, nz, c);
  cholmod_free_triplet(&T, c);
  cholmod_factor *L = A ? cholmod_analyze(A, c) : NULL;
  if (L) cholmod_factorize(A, L, c);
  cholmod_free_sparse(&A, c);
  if (!L || c->status != CHOLMOD_OK) {
    const int minor = L ? (int)L->minor : -1;
    cholmod_free_factor(&L, c);
    snprintf(err, errlen, "the joint rows are dependent (J_E W J_E' is singular at row %d of %d): "
             "a joint is redundant", minor, ne);
    return LSIM_INVALID_INPUT;
  }

  /* Right-hand sides in one dense block: column 0 is J_E v_free + b_E, then J_E B_I. */
  cholmod_dense *R = cholmod_allocate_dense(ne, (size_t)ni + 1, ne, CHOLMOD_REAL, c);
  if (!R) {
    cholmod_free_factor(&L, c);
    snprintf(err, errlen, "out of memory");
    return LSIM_OUT_OF_MEMORY;
  }
  double *r = R->x;
  for (int i = 0; i < ne; ++i) r[i] = row_dot(JE_ptr, JE_idx, JE_val, i, v_free) + bE[i];
  for (int j = 0; j < ni; ++j) {
    for (int k = BI_ptr[j]; k < BI_ptr[j + 1]; ++k) sc[(*BI_idx)[k]] += (*BI_val)[k];
    for (int i = 0; i < ne; ++i) r[i + (size_t)(j + 1) * ne] = row_dot(JE_ptr, JE_idx, JE_val, i, sc);
    for (int k = BI_ptr[j]; k < BI_ptr[j + 1]; ++k) sc[(*BI_idx)[k]] = 0.0;
  }
  cholmod_dense *S = cholmod_solve(CHOLMOD_A, L, R, c);
  cholmod_free_dense(&R, c);
  cholmod_free_factor(&L, c);
  if (!S) {
    snprintf(err, errlen, "out of memory");
    return LSIM_OUT_OF_MEMORY;
  }
  const double *s = S->x;
  for (int i = 0; i < ne; ++i) e->lambda_free[i] = -s[i];
  memcpy(e->X, s + ne, (size_t)ne * (size_t)ni * sizeof(double));
  cholmod_free_dense(&S, c);

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
