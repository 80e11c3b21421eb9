/* islands.c: the connected components of a factored LCP's coupling (islands.h), by
 * union-find over the n variables and the m inner indices, and the extraction of one
 * component as a factored LCP of its own. */
#include "islands.h"

#include <stdlib.h>
#include <string.h>

struct LsimIslands {
  int count;
  int cap_n, cap_m, cap_c, cap_nz;
  int *parent;    /* [cap_n + cap_m] union-find forest: variables, then inner indices */
  int *label;     /* [cap_n + cap_m] island of a root, -1 unlabelled */
  int *island;    /* [cap_n] island of each variable */
  int *start;     /* [cap_n + 1] first position in order of each island */
  int *order;     /* [cap_n] variables grouped by island, increasing inside each */
  int *local;     /* [cap_n] position of a variable inside its island */
  int *cstart;    /* [cap_n + 1] first position in corder of each island's cones */
  int *corder;    /* [cap_c] cones grouped by island */
  int *mlocal;    /* [cap_m] local inner index during an extract, -1 otherwise */
  int *mused;     /* [cap_m] inner indices given a local number by the current extract */
  /* The extracted sub-problem. */
  int *Jp, *Bp, *Cp;           /* [cap_n + 1] */
  int *Ji, *Bi, *Ci;           /* [cap_nz] */
  double *Jv, *Bv, *Cv;        /* [cap_nz] */
  double *q;                   /* [cap_n] */
  LsimConeBlock *cones;        /* [cap_c] */
};

LsimIslands *lsim_islands_create(void) { return calloc(1, sizeof(LsimIslands)); }

void lsim_islands_free(LsimIslands *is) {
  if (!is) return;
  free(is->parent), free(is->label), free(is->island), free(is->start), free(is->order);
  free(is->local), free(is->cstart), free(is->corder), free(is->mlocal), free(is->mused);
  free(is->Jp), free(is->Bp), free(is->Cp), free(is->Ji), free(is->Bi), free(is->Ci);
  free(is->Jv), free(is->Bv), free(is->Cv), free(is->q), free(is->cones);
  free(is);
}

static int grow(void **p, size_t elem, int n) {
  void *np = realloc(*p, (size_t)(n > 0 ? n : 1) * elem);
  if (!np) return LSIM_OUT_OF_MEMORY;
  *p = np;
  return 0;
}

/* Capacity for n variables, m inner indices, nc cones and nz entries per matrix. */
static int reserve(LsimIslands *is, int n, int m, int nc, int nz) {
  if (n + 1 > is->cap_n || m > is->cap_m) {
    const int cn = n + 1 > is->cap_n ? n + 1 : is->cap_n, cm = m > is->cap_m ? m : is->cap_m;
    if (grow((void **)&is->parent, sizeof(int), cn + cm) || grow((void **)&is->label, sizeof(int), cn + cm) ||
        grow((void **)&is->island, sizeof(int), cn) || grow((void **)&is->start, sizeof(int), cn + 1) ||
        grow((void **)&is->order, sizeof(int), cn) || grow((void **)&is->local, sizeof(int), cn) ||
        grow((void **)&is->cstart, sizeof(int), cn + 1) || grow((void **)&is->Jp, sizeof(int), cn + 1) ||
        grow((void **)&is->Bp, sizeof(int), cn + 1) || grow((void **)&is->Cp, sizeof(int), cn + 1) ||
        grow((void **)&is->q, sizeof(double), cn) || grow((void **)&is->mlocal, sizeof(int), cm) ||
        grow((void **)&is->mused, sizeof(int), cm))
      return LSIM_OUT_OF_MEMORY;
    is->cap_n = cn, is->cap_m = cm;
    for (int k = 0; k < cm; ++k) is->mlocal[k] = -1;
  }
  if (nc > is->cap_c) {
    if (grow((void **)&is->corder, sizeof(int), nc) || grow((void **)&is->cones, sizeof(LsimConeBlock), nc))
      return LSIM_OUT_OF_MEMORY;
    is->cap_c = nc;
  }
  if (nz > is->cap_nz) {
    if (grow((void **)&is->Ji, sizeof(int), nz) || grow((void **)&is->Bi, sizeof(int), nz) ||
        grow((void **)&is->Ci, sizeof(int), nz) || grow((void **)&is->Jv, sizeof(double), nz) ||
        grow((void **)&is->Bv, sizeof(double), nz) || grow((void **)&is->Cv, sizeof(double), nz))
      return LSIM_OUT_OF_MEMORY;
    is->cap_nz = nz;
  }
  return 0;
}

static int root(int *parent, int x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]]; /* path halving */
  return x;
}

static void unite(int *parent, int a, int b) {
  a = root(parent, a), b = root(parent, b);
  if (a < b) parent[b] = a;
  else if (b < a) parent[a] = b;
}

int lsim_islands_find(LsimIslands *is, const LsimFactoredLcp *f) {
  if (f->full && !(f = lsim_factored_full(f))) return LSIM_OUT_OF_MEMORY; /* every row */
  const int n = f->n, m = f->m;
  int nz = f->J_ptr[n] > f->B_ptr[n] ? f->J_ptr[n] : f->B_ptr[n];
  if (f->C_ptr && f->C_ptr[n] > nz) nz = f->C_ptr[n];
  if (reserve(is, n, m, f->ncones, nz)) return LSIM_OUT_OF_MEMORY;
  /* Union of each variable with its inner indices (node n + k) and its C couplings. */
  int *parent = is->parent;
  for (int x = 0; x < n + m; ++x) parent[x] = x, is->label[x] = -1;
  for (int i = 0; i < n; ++i) {
    for (int p = f->J_ptr[i]; p < f->J_ptr[i + 1]; ++p) unite(parent, i, n + f->J_idx[p]);
    for (int p = f->B_ptr[i]; p < f->B_ptr[i + 1]; ++p) unite(parent, i, n + f->B_idx[p]);
    if (f->C_ptr)
      for (int p = f->C_ptr[i]; p < f->C_ptr[i + 1]; ++p) unite(parent, i, f->C_idx[p]);
  }
  /* A cone's variables belong together whatever C holds. */
  for (int c = 0; c < f->ncones; ++c) {
    const LsimConeBlock *cb = &f->cones[c];
    if (cb->normal >= 0) unite(parent, cb->lambda, cb->normal);
    for (int d = 0; d < cb->ndir; ++d) unite(parent, cb->lambda, cb->first_dir + d);
  }
  /* Labels in order of first variable; then a stable counting sort of the variables. */
  int count = 0;
  for (int i = 0; i < n; ++i) {
    const int r = root(parent, i);
    if (is->label[r] < 0) is->label[r] = count++;
    is->island[i] = is->label[r];
  }
  memset(is->start, 0, (size_t)(count + 1) * sizeof(int));
  for (int i = 0; i < n; ++i) ++is->start[is->island[i] + 1];
  for (int k = 0; k < count; ++k) is->start[k + 1] += is->start[k];
  for (int i = 0; i < n; ++i) {
    const int pos = is->start[is->island[i]]++;
    is->order[pos] = i;
  }
  for (int k = count; k > 0; --k) is->start[k] = is->start[k - 1];
  is->start[0] = 0;
  for (int k = 0; k < count; ++k)
    for (int p = is->start[k]; p < is->start[k + 1]; ++p) is->local[is->order[p]] = p - is->start[k];
  /* The cones by island (a cone's variables are coupled through C: one island). */
  memset(is->cstart, 0, (size_t)(count + 1) * sizeof(int));
  for (int c = 0; c < f->ncones; ++c) ++is->cstart[is->island[f->cones[c].lambda] + 1];
  for (int k = 0; k < count; ++k) is->cstart[k + 1] += is->cstart[k];
  for (int c = 0; c < f->ncones; ++c) is->corder[is->cstart[is->island[f->cones[c].lambda]]++] = c;
  for (int k = count; k > 0; --k) is->cstart[k] = is->cstart[k - 1];
  is->cstart[0] = 0;
  is->count = count;
  return count;
}

int lsim_islands_size(const LsimIslands *is, int k) { return is->start[k + 1] - is->start[k]; }

int lsim_islands_extract(LsimIslands *is, const LsimFactoredLcp *f, int k, LsimFactoredLcp *sub,
                         const int **vars) {
  if (f->full && !(f = lsim_factored_full(f))) return LSIM_OUT_OF_MEMORY; /* every row */
  const int *v = is->order + is->start[k], nk = lsim_islands_size(is, k);
  int mk = 0, nj = 0, nb = 0, nc = 0;
  is->Jp[0] = is->Bp[0] = is->Cp[0] = 0;
  for (int r = 0; r < nk; ++r) {
    const int i = v[r];
    /* Rows of J and columns of B, inner indices numbered in order of first use. */
    for (int p = f->J_ptr[i]; p < f->J_ptr[i + 1]; ++p) {
      const int g = f->J_idx[p];
      if (is->mlocal[g] < 0) is->mused[mk] = g, is->mlocal[g] = mk++;
      is->Ji[nj] = is->mlocal[g], is->Jv[nj++] = f->J_val[p];
    }
    for (int p = f->B_ptr[i]; p < f->B_ptr[i + 1]; ++p) {
      const int g = f->B_idx[p];
      if (is->mlocal[g] < 0) is->mused[mk] = g, is->mlocal[g] = mk++;
      is->Bi[nb] = is->mlocal[g], is->Bv[nb++] = f->B_val[p];
    }
    if (f->C_ptr)
      for (int p = f->C_ptr[i]; p < f->C_ptr[i + 1]; ++p)
        is->Ci[nc] = is->local[f->C_idx[p]], is->Cv[nc++] = f->C_val[p];
    is->Jp[r + 1] = nj, is->Bp[r + 1] = nb, is->Cp[r + 1] = nc;
    is->q[r] = f->q[i];
  }
  for (int t = 0; t < mk; ++t) is->mlocal[is->mused[t]] = -1; /* ready for the next */
  /* The island's cones, their variables renumbered (consecutive stay consecutive). */
  const int c0 = is->cstart[k], c1 = is->cstart[k + 1];
  for (int c = c0; c < c1; ++c) {
    LsimConeBlock cb = f->cones[is->corder[c]];
    cb.normal = cb.normal >= 0 ? is->local[cb.normal] : -1;
    cb.first_dir = is->local[cb.first_dir];
    cb.lambda = is->local[cb.lambda];
    is->cones[c - c0] = cb;
  }
  *sub = (LsimFactoredLcp){.n = nk, .m = mk, .J_ptr = is->Jp, .J_idx = is->Ji, .J_val = is->Jv,
                           .B_ptr = is->Bp, .B_idx = is->Bi, .B_val = is->Bv,
                           .C_ptr = f->C_ptr ? is->Cp : NULL, .C_idx = is->Ci, .C_val = is->Cv,
                           .q = is->q, .ncones = c1 - c0, .cones = is->cones};
  if (vars) *vars = v;
  return 0;
}
