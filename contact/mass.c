/* mass.c: the coupled mass matrix, through CHOLMOD (see mass.h).
 *
 * H = diag(masses of the dynamic bodies' velocities) + sum over couplings c of
 * k_c (e_a - e_b)(e_a - e_b)', assembled as the lower triangle (stype -1) and factored
 * once. Static and kinematic velocities have no mass: their rows of H are the identity
 * (they are never solved for: their B rows are dropped by the step), which keeps H
 * positive definite.
 *
 * Failure modes: H not positive definite (a zero mass, a negative coupling that wins over
 * the masses): CHOLMOD reports it through Common->status; we turn it into
 * LSIM_INVALID_INPUT with the failing column. Out of memory likewise.
 */
#include "contact/mass.h"

#include <cholmod.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lcp/blas.h"
#include "lcp/lcp.h"

struct LsimMassFactor {
  cholmod_common common;
  cholmod_factor *L;
  cholmod_dense *b, *x, *y, *e; /* right-hand side, solution, solve workspaces */
  int nv;
  double *col;                   /* [nv] one dense column of J' */
};

/* Entries of the lower triangle of H, summed by (row, column) in a triplet matrix. */
static cholmod_sparse *assemble_h(const LsimModel *m, cholmod_common *c) {
  const int nv = m->nv;
  const size_t nz = (size_t)nv + 3 * (size_t)m->ncouplings;
  cholmod_triplet *T = cholmod_allocate_triplet(nv, nv, nz, -1, CHOLMOD_REAL, c);
  if (!T) return NULL;
  int *I = T->i, *J = T->j;
  double *X = T->x;
  size_t k = 0;
  for (int i = 0; i < m->nbodies; ++i) {
    const LsimBody *b = &m->bodies[i];
    for (int d = 0; d < b->nv; ++d, ++k) {
      I[k] = J[k] = b->v_offset + d;
      X[k] = b->type == LSIM_BODY_DYNAMIC ? b->mass : 1.0;
    }
  }
  /* A coupling k (v_a - v_b)^2 / 2 between the first velocities of bodies a and b. */
  for (int c2 = 0; c2 < m->ncouplings; ++c2) {
    const LsimCoupling *cp = &m->couplings[c2];
    const int a = m->bodies[cp->body[0]].v_offset, b = m->bodies[cp->body[1]].v_offset;
    const int lo = a < b ? a : b, hi = a < b ? b : a;
    I[k] = J[k] = a, X[k++] = cp->inertia;
    I[k] = J[k] = b, X[k++] = cp->inertia;
    I[k] = hi, J[k] = lo, X[k++] = -cp->inertia;
  }
  T->nnz = k;
  cholmod_sparse *H = cholmod_triplet_to_sparse(T, k, c);
  cholmod_free_triplet(&T, c);
  return H;
}

int lsim_mass_factor_create(LsimMassFactor **out, const LsimModel *model, char *err,
                            size_t errlen) {
  *out = NULL;
  LsimMassFactor *f = calloc(1, sizeof *f);
  if (!f) {
    snprintf(err, errlen, "out of memory");
    return LSIM_OUT_OF_MEMORY;
  }
  lsim_blas_one_thread();
  cholmod_start(&f->common);
  f->common.print = 0; /* our messages, not CHOLMOD's */
  f->common.error_handler = NULL;
  f->nv = model->nv;
  cholmod_sparse *H = assemble_h(model, &f->common);
  int rc = 0;
  if (!H) {
    rc = LSIM_OUT_OF_MEMORY;
    snprintf(err, errlen, "out of memory assembling the mass matrix");
  } else {
    f->L = cholmod_analyze(H, &f->common);
    if (f->L) cholmod_factorize(H, f->L, &f->common);
    if (!f->L || f->common.status != CHOLMOD_OK) {
      rc = f->common.status == CHOLMOD_OUT_OF_MEMORY ? LSIM_OUT_OF_MEMORY : LSIM_INVALID_INPUT;
      snprintf(err, errlen, "the mass matrix is not positive definite (column %d of %d)",
               f->L ? (int)f->L->minor : -1, f->nv);
    }
    cholmod_free_sparse(&H, &f->common);
  }
  if (!rc) {
    f->b = cholmod_zeros(f->nv, 1, CHOLMOD_REAL, &f->common);
    f->col = calloc((size_t)f->nv + 1, sizeof(double));
    if (!f->b || !f->col) {
      rc = LSIM_OUT_OF_MEMORY;
      snprintf(err, errlen, "out of memory");
    }
  }
  if (rc) {
    lsim_mass_factor_free(f);
    return rc;
  }
  *out = f;
  return 0;
}

void lsim_mass_factor_free(LsimMassFactor *f) {
  if (!f) return;
  cholmod_free_factor(&f->L, &f->common);
  cholmod_free_dense(&f->b, &f->common);
  cholmod_free_dense(&f->x, &f->common);
  cholmod_free_dense(&f->y, &f->common);
  cholmod_free_dense(&f->e, &f->common);
  cholmod_finish(&f->common);
  free(f->col);
  free(f);
}

int lsim_mass_solve(LsimMassFactor *f, const double *b, double *x) {
  memcpy(f->b->x, b, (size_t)f->nv * sizeof(double));
  if (!cholmod_solve2(CHOLMOD_A, f->L, f->b, NULL, &f->x, NULL, &f->y, &f->e, &f->common))
    return LSIM_OUT_OF_MEMORY;
  memcpy(x, f->x->x, (size_t)f->nv * sizeof(double));
  return 0;
}

int lsim_mass_solve_rows(LsimMassFactor *f, int n, const int *J_ptr, const int *J_idx,
                         const double *J_val, int *B_ptr, int **B_idx, double **B_val,
                         int *cap) {
  int k = 0;
  for (int i = 0; i < n; ++i) {
    B_ptr[i] = k;
    if (J_ptr[i] == J_ptr[i + 1]) continue;
    /* One dense column of J', solved, then kept sparse. */
    memset(f->col, 0, (size_t)f->nv * sizeof(double));
    for (int p = J_ptr[i]; p < J_ptr[i + 1]; ++p) f->col[J_idx[p]] += J_val[p];
    int rc = lsim_mass_solve(f, f->col, f->col);
    if (rc) return rc;
    for (int r = 0; r < f->nv; ++r) {
      if (f->col[r] == 0.0) continue;
      if (k >= *cap) {
        const int nc = *cap ? 2 * *cap : 64;
        int *ni = realloc(*B_idx, (size_t)nc * sizeof(int));
        if (!ni) return LSIM_OUT_OF_MEMORY;
        *B_idx = ni;
        double *nvv = realloc(*B_val, (size_t)nc * sizeof(double));
        if (!nvv) return LSIM_OUT_OF_MEMORY;
        *B_val = nvv;
        *cap = nc;
      }
      (*B_idx)[k] = r, (*B_val)[k] = f->col[r], ++k;
    }
  }
  B_ptr[n] = k;
  return 0;
}
