/* fc.c: the frictional contact problem (fc.h): storage, block index, file kinds, the
 * FCLIB HDF5 reader, the Coulomb measures and the Stewart-Trinkle LCP. */
#include "fc.h"
#include "datfile.h"
#include "h5check.h"

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LSIM_FC_PI 3.14159265358979323846

#include <hdf5.h>

int lsim_fc_init(LsimFc *p, int dim, int nc) {
  memset(p, 0, sizeof *p);
  /* n = dim nc must be an int (nc = 2^30 in 3-D overflowed it). */
  if ((dim != 2 && dim != 3) || nc < 0 || nc > INT_MAX / dim) return LSIM_INVALID_INPUT;
  p->dim = dim;
  p->nc = nc;
  p->n = dim * nc;
  const size_t n = (size_t)p->n;
  p->W = calloc(n * n + 1, sizeof(double));
  p->q = calloc(n + 1, sizeof(double));
  p->mu = calloc((size_t)nc + 1, sizeof(double));
  if (!p->W || !p->q || !p->mu) {
    lsim_fc_free(p);
    return LSIM_OUT_OF_MEMORY;
  }
  return 0;
}

void lsim_fc_free(LsimFc *p) {
  if (!p) return;
  free(p->W), free(p->q), free(p->mu);
  free(p->bptr), free(p->bcol), free(p->bdiag), free(p->blk);
  memset(p, 0, sizeof *p);
}

/* 1 when block (bi, bj) of W has a nonzero entry. */
static int block_nonzero(const LsimFc *p, int bi, int bj) {
  const int d = p->dim, n = p->n;
  for (int j = 0; j < d; ++j)
    for (int i = 0; i < d; ++i)
      if (p->W[(size_t)(bi * d + i) + (size_t)(bj * d + j) * (size_t)n] != 0.0) return 1;
  return 0;
}

int lsim_fc_index(LsimFc *p) {
  const int nc = p->nc, d = p->dim, n = p->n;
  if (nc + 1 > p->cap_rows) {
    int *bp = realloc(p->bptr, ((size_t)nc + 1) * sizeof(int));
    if (bp) p->bptr = bp;
    int *bd = bp ? realloc(p->bdiag, ((size_t)nc + 1) * sizeof(int)) : NULL;
    if (bd) p->bdiag = bd;
    if (!bp || !bd) return LSIM_OUT_OF_MEMORY;
    p->cap_rows = nc + 1;
  }
  /* Count, then fill: row-block i lists its nonzero column blocks in increasing order. */
  int nb = 0;
  for (int bi = 0; bi < nc; ++bi)
    for (int bj = 0; bj < nc; ++bj) nb += bi == bj || block_nonzero(p, bi, bj);
  if (nb + 1 > p->cap_blocks) {
    int *bc = realloc(p->bcol, ((size_t)nb + 1) * sizeof(int));
    if (bc) p->bcol = bc;
    double *bv = bc ? realloc(p->blk, ((size_t)nb * d * d + 1) * sizeof(double)) : NULL;
    if (bv) p->blk = bv;
    if (!bc || !bv) return LSIM_OUT_OF_MEMORY;
    p->cap_blocks = nb + 1;
  }
  int b = 0;
  for (int bi = 0; bi < nc; ++bi) {
    p->bptr[bi] = b;
    for (int bj = 0; bj < nc; ++bj) {
      if (bi != bj && !block_nonzero(p, bi, bj)) continue;
      if (bi == bj) p->bdiag[bi] = b;
      p->bcol[b] = bj;
      for (int j = 0; j < d; ++j)
        for (int i = 0; i < d; ++i)
          p->blk[(size_t)b * d * d + i + j * d] =
              p->W[(size_t)(bi * d + i) + (size_t)(bj * d + j) * (size_t)n];
      ++b;
    }
  }
  p->bptr[nc] = b;
  p->nblocks = b;
  return 0;
}

int lsim_fc_check(const LsimFc *p, char *err, size_t errlen) {
  if ((p->dim != 2 && p->dim != 3) || p->nc < 0 || p->n != p->dim * p->nc) {
    snprintf(err, errlen, "bad sizes: dimension %d, %d contacts, n %d", p->dim, p->nc, p->n);
    return LSIM_INVALID_INPUT;
  }
  const size_t n = (size_t)p->n;
  for (size_t k = 0; k < n * n; ++k)
    if (!isfinite(p->W[k])) {
      snprintf(err, errlen, "W(%zu, %zu) is not finite", k % n, k / n);
      return LSIM_INVALID_INPUT;
    }
  for (size_t k = 0; k < n; ++k)
    if (!isfinite(p->q[k])) {
      snprintf(err, errlen, "q(%zu) is not finite", k);
      return LSIM_INVALID_INPUT;
    }
  for (int i = 0; i < p->nc; ++i)
    if (!isfinite(p->mu[i]) || p->mu[i] < 0.0) {
      snprintf(err, errlen, "mu(%d) = %g: need a finite mu >= 0", i, p->mu[i]);
      return LSIM_INVALID_INPUT;
    }
  return 0;
}

/* ---- file kinds ---- */

const char *lsim_problem_file_kind_name(int kind) {
  switch (kind) {
    case LSIM_FILE_LCP: return "linear complementarity problem (Siconos .dat)";
    case LSIM_FILE_FC_DAT: return "frictional contact problem (Siconos .dat)";
    case LSIM_FILE_FCLIB: return "frictional contact problem (FCLIB HDF5)";
    case LSIM_FILE_MLCP: return "mixed linear complementarity problem (Siconos MLCP .dat)";
    default: return "unknown";
  }
}

int lsim_problem_file_kind(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return LSIM_FILE_UNKNOWN;
  unsigned char sig[8];
  const size_t got = fread(sig, 1, sizeof sig, f);
  static const unsigned char h5sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  if (got == 8 && !memcmp(sig, h5sig, 8)) {
    fclose(f);
    return LSIM_FILE_FCLIB;
  }
  /* (an HDF5 file behind a user block: a run file of lcpsim, h5check.h) */
  if (lsim_h5_head(path) != LSIM_H5_HEAD_OTHER) {
    fclose(f);
    return LSIM_FILE_FCLIB;
  }
  /* A .dat header: five integers. LCP: n, storage (0/1), then n n (dense) or nbblocks...;
     FC: dim (2/3), nc >= 1, storage (0/1), dim*nc, dim*nc. */
  rewind(f);
  long h[5];
  int k = 0;
  char tok[64];
  while (k < 5 && fscanf(f, "%63s", tok) == 1) {
    char *end;
    errno = 0;
    const long v = strtol(tok, &end, 10);
    if (*end || errno) break;
    h[k++] = v;
  }
  fclose(f);
  if (k >= 5 && (h[0] == 2 || h[0] == 3) && h[1] >= 1 && h[2] >= 0 && h[2] <= 2 &&
      h[3] == h[0] * h[1] && h[4] == h[0] * h[1])
    return LSIM_FILE_FC_DAT;
  if (k >= 4 && lsim_dat_is_mlcp(path)) return LSIM_FILE_MLCP;
  return k >= 1 ? LSIM_FILE_LCP : LSIM_FILE_UNKNOWN;
}

/* ---- FCLIB HDF5 ---- */

/* A sparse matrix of FCLIB (CSparse layout): m x n, nz >= 0 triplets (i, p = column, x)
 * or nz = -1 compressed columns (p [n+1], i, x). */
typedef struct Sparse {
  long m, n, nz, nnz;
  int *i, *p;
  double *x;
} Sparse;

static void sparse_free(Sparse *s) {
  free(s->i), free(s->p), free(s->x);
  memset(s, 0, sizeof *s);
}

/* Reads a 1-D dataset of at most cap values (cap < 0: reads the scalar or 1-element
 * dataset into a long). Returns the count, or -1 with err. */
static long h5_read(hid_t file, const char *name, hid_t mtype, void *buf, long cap,
                    const char *path, char *err, size_t errlen) {
  if (H5Lexists(file, name, H5P_DEFAULT) <= 0) {
    snprintf(err, errlen, "%s: %s: missing", path, name);
    return -1;
  }
  hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
  if (d < 0) {
    snprintf(err, errlen, "%s: %s: cannot open", path, name);
    return -1;
  }
  hid_t sp = H5Dget_space(d);
  const hssize_t count = H5Sget_simple_extent_npoints(sp);
  long rc = -1;
  if (count < 0 || count > cap) {
    snprintf(err, errlen, "%s: %s: %lld values, expected at most %ld", path, name,
             (long long)count, cap);
  } else if (!lsim_h5_numeric_dataset(d)) { /* what HDF5 cannot read safely (h5check.h) */
    snprintf(err, errlen, "%s: %s: not stored as numbers", path, name);
  } else if (count > 0 && H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
    snprintf(err, errlen, "%s: %s: cannot read as numbers", path, name);
  } else {
    rc = (long)count;
  }
  H5Sclose(sp);
  H5Dclose(d);
  return rc;
}

/* Reads one integer (a 1-element dataset). 0 or -1 with err. */
static int h5_long(hid_t file, const char *name, long *out, const char *path, char *err,
                   size_t errlen) {
  long long v = 0;
  if (h5_read(file, name, H5T_NATIVE_LLONG, &v, 1, path, err, errlen) != 1) {
    if (!err[0]) snprintf(err, errlen, "%s: %s: expected one integer", path, name);
    return -1;
  }
  *out = (long)v;
  return 0;
}

/* Reads the sparse matrix of group g. 0 or -1 with err. */
static int h5_sparse(hid_t file, const char *g, Sparse *s, const char *path, char *err,
                     size_t errlen) {
  char name[128];
  memset(s, 0, sizeof *s);
#define LONG(field)                                                           \
  snprintf(name, sizeof name, "%s/" #field, g);                               \
  if (h5_long(file, name, &s->field, path, err, errlen)) return -1;
  LONG(m) LONG(n) LONG(nz)
#undef LONG
  if (s->m < 0 || s->n < 0 || s->m > 10000000 || s->n > 10000000 || s->nz < -1) {
    snprintf(err, errlen, "%s: %s: bad sizes m %ld, n %ld, nz %ld", path, g, s->m, s->n, s->nz);
    return -1;
  }
  long nzmax = 0;
  snprintf(name, sizeof name, "%s/nzmax", g);
  if (h5_long(file, name, &nzmax, path, err, errlen)) return -1;
  if (nzmax < 0 || nzmax > 100000000) {
    snprintf(err, errlen, "%s: %s/nzmax %ld out of range", path, g, nzmax);
    return -1;
  }
  const long np = s->nz >= 0 ? nzmax : s->n + 1;
  s->i = malloc(((size_t)nzmax + 1) * sizeof(int));
  s->p = malloc(((size_t)np + 1) * sizeof(int));
  s->x = malloc(((size_t)nzmax + 1) * sizeof(double));
  if (!s->i || !s->p || !s->x) {
    snprintf(err, errlen, "%s: out of memory", path);
    return -1;
  }
  snprintf(name, sizeof name, "%s/i", g);
  const long ni = h5_read(file, name, H5T_NATIVE_INT, s->i, nzmax, path, err, errlen);
  snprintf(name, sizeof name, "%s/p", g);
  const long npr = ni < 0 ? -1 : h5_read(file, name, H5T_NATIVE_INT, s->p, np, path, err, errlen);
  snprintf(name, sizeof name, "%s/x", g);
  const long nx =
      npr < 0 ? -1 : h5_read(file, name, H5T_NATIVE_DOUBLE, s->x, nzmax, path, err, errlen);
  if (nx < 0) return -1;
  s->nnz = s->nz >= 0 ? s->nz : (npr == s->n + 1 ? s->p[s->n] : -1);
  if (s->nnz < 0 || s->nnz > ni || s->nnz > nx || (s->nz >= 0 && s->nnz > npr)) {
    snprintf(err, errlen, "%s: %s: entry arrays shorter than the %ld entries", path, g, s->nnz);
    return -1;
  }
  /* Every index in range, every value finite; compressed columns never decrease. */
  for (long k = 0; k < s->nnz; ++k)
    if (s->i[k] < 0 || s->i[k] >= s->m || !isfinite(s->x[k]) ||
        (s->nz >= 0 && (s->p[k] < 0 || s->p[k] >= s->n))) {
      snprintf(err, errlen, "%s: %s: entry %ld: index out of range or value not finite", path,
               g, k);
      return -1;
    }
  if (s->nz < 0)
    for (long j = 0; j < s->n; ++j)
      if (s->p[j] < 0 || s->p[j] > s->p[j + 1]) {
        snprintf(err, errlen, "%s: %s/p: column pointers decrease at column %ld", path, g, j);
        return -1;
      }
  return 0;
}

/* The column of entry k of s. */
static long sparse_col(const Sparse *s, long k, long *col_cursor) {
  if (s->nz >= 0) return s->p[k];
  while (k >= s->p[*col_cursor + 1]) ++*col_cursor;
  return *col_cursor;
}

/* Reads an FCLIB local problem (W, q, mu) or global problem (M, H, f, w, mu; M diagonal:
 * W = H' M^-1 H, q = H' M^-1 f + w, from M v = H r + f, u = H' v + w). */
static int fclib_read(hid_t file, const char *path, LsimFc *p, char *err, size_t errlen) {
  const int local = H5Lexists(file, "/fclib_local", H5P_DEFAULT) > 0;
  const int global = !local && H5Lexists(file, "/fclib_global", H5P_DEFAULT) > 0;
  if (!local && !global) {
    snprintf(err, errlen, "%s: neither /fclib_local nor /fclib_global: not an FCLIB file", path);
    return LSIM_INVALID_INPUT;
  }
  const char *root = local ? "/fclib_local" : "/fclib_global";
  char name[128];
  long dim = 0;
  snprintf(name, sizeof name, "%s/spacedim", root);
  if (h5_long(file, name, &dim, path, err, errlen)) return LSIM_INVALID_INPUT;
  if (dim != 2 && dim != 3) {
    snprintf(err, errlen, "%s: %s: %ld, expected 2 or 3", path, name, dim);
    return LSIM_INVALID_INPUT;
  }
  Sparse A, H;
  memset(&A, 0, sizeof A);
  memset(&H, 0, sizeof H);
  double *vec = NULL, *w = NULL;
  int rc = LSIM_INVALID_INPUT;
  snprintf(name, sizeof name, "%s/%s", root, local ? "W" : "M");
  if (h5_sparse(file, name, &A, path, err, errlen)) goto done;
  if (A.m != A.n || A.m > 40000) {
    snprintf(err, errlen, "%s: %s: %ld x %ld, expected square (and at most 40000)", path, name,
             A.m, A.n);
    goto done;
  }
  long nr = A.m;
  if (global) {
    snprintf(name, sizeof name, "%s/H", root);
    if (h5_sparse(file, name, &H, path, err, errlen)) goto done;
    if (H.m != A.m || H.n > 40000) {
      snprintf(err, errlen, "%s: %s: %ld x %ld does not match M (%ld x %ld)", path, name, H.m,
               H.n, A.m, A.n);
      goto done;
    }
    nr = H.n;
  }
  if (nr % dim) {
    snprintf(err, errlen, "%s: %ld reaction unknowns, not a multiple of the dimension %ld", path,
             nr, dim);
    goto done;
  }
  if ((rc = lsim_fc_init(p, (int)dim, (int)(nr / dim)))) {
    snprintf(err, errlen, "%s: out of memory", path);
    goto done;
  }
  rc = LSIM_INVALID_INPUT;
  p->storage = 2;
  const size_t n = (size_t)p->n;
  snprintf(name, sizeof name, "%s/vectors/mu", root);
  if (h5_read(file, name, H5T_NATIVE_DOUBLE, p->mu, p->nc, path, err, errlen) != p->nc) {
    if (!err[0]) snprintf(err, errlen, "%s: %s: expected %d values", path, name, p->nc);
    goto done;
  }
  if (local) {
    long cur = 0;
    for (long k = 0; k < A.nnz; ++k)
      p->W[(size_t)A.i[k] + (size_t)sparse_col(&A, k, &cur) * n] += A.x[k];
    snprintf(name, sizeof name, "%s/vectors/q", root);
    if (h5_read(file, name, H5T_NATIVE_DOUBLE, p->q, p->n, path, err, errlen) != p->n) {
      if (!err[0]) snprintf(err, errlen, "%s: %s: expected %d values", path, name, p->n);
      goto done;
    }
  } else {
    /* M must be diagonal (FCLIB's collections store lumped masses). */
    const long nv = A.m;
    double *minv = calloc((size_t)nv + 1, sizeof(double));
    vec = minv;
    w = calloc(n + 1, sizeof(double));
    double *f = calloc((size_t)nv + 1, sizeof(double));
    if (!minv || !w || !f) {
      free(f);
      snprintf(err, errlen, "%s: out of memory", path);
      rc = LSIM_OUT_OF_MEMORY;
      goto done;
    }
    long cur = 0;
    for (long k = 0; k < A.nnz; ++k) {
      const long c = sparse_col(&A, k, &cur);
      if (A.x[k] == 0.0) continue;
      if (c != A.i[k]) {
        free(f);
        snprintf(err, errlen, "%s: %s/M: entry (%d, %ld) off the diagonal: only a diagonal M "
                 "is supported", path, root, A.i[k], c);
        goto done;
      }
      minv[c] += A.x[k];
    }
    for (long j = 0; j < nv; ++j) {
      if (!(minv[j] > 0.0)) {
        free(f);
        snprintf(err, errlen, "%s: %s/M: diagonal entry %ld is %g, need > 0", path, root, j,
                 minv[j]);
        goto done;
      }
      minv[j] = 1.0 / minv[j];
    }
    snprintf(name, sizeof name, "%s/vectors/f", root);
    long got = h5_read(file, name, H5T_NATIVE_DOUBLE, f, nv, path, err, errlen);
    snprintf(name, sizeof name, "%s/vectors/w", root);
    if (got == nv) got = h5_read(file, name, H5T_NATIVE_DOUBLE, w, p->n, path, err, errlen) == p->n;
    else got = 0;
    if (!got) {
      free(f);
      if (!err[0]) snprintf(err, errlen, "%s: %s/vectors: f or w of the wrong length", path, root);
      goto done;
    }
    /* Columns of H as dense vectors are too big for 12000 x 1068; go through H' by rows
       of M: W_ab = sum_v H_va minv_v H_vb. Collect H's entries per row v. */
    long *rp = calloc((size_t)nv + 2, sizeof(long));
    long *ci = malloc(((size_t)H.nnz + 1) * sizeof(long));
    double *cx = malloc(((size_t)H.nnz + 1) * sizeof(double));
    if (!rp || !ci || !cx) {
      free(rp), free(ci), free(cx), free(f);
      snprintf(err, errlen, "%s: out of memory", path);
      rc = LSIM_OUT_OF_MEMORY;
      goto done;
    }
    cur = 0;
    for (long k = 0; k < H.nnz; ++k) rp[H.i[k] + 1]++;
    for (long v = 0; v < nv; ++v) rp[v + 1] += rp[v];
    long *fill = calloc((size_t)nv + 1, sizeof(long));
    if (!fill) {
      free(rp), free(ci), free(cx), free(f);
      rc = LSIM_OUT_OF_MEMORY;
      goto done;
    }
    for (long k = 0; k < H.nnz; ++k) {
      const long v = H.i[k], c = sparse_col(&H, k, &cur);
      ci[rp[v] + fill[v]] = c;
      cx[rp[v] + fill[v]] = H.x[k];
      fill[v]++;
    }
    free(fill);
    for (long v = 0; v < nv; ++v)
      for (long a = rp[v]; a < rp[v + 1]; ++a) {
        p->q[ci[a]] += cx[a] * minv[v] * f[v];
        for (long b = rp[v]; b < rp[v + 1]; ++b)
          p->W[(size_t)ci[a] + (size_t)ci[b] * n] += cx[a] * minv[v] * cx[b];
      }
    for (size_t k = 0; k < n; ++k) p->q[k] += w[k];
    free(rp), free(ci), free(cx), free(f);
  }
  char msg[256];
  if ((rc = lsim_fc_check(p, msg, sizeof msg))) {
    /* A bad mu is named by its dataset; W and q are computed, named as such. */
    if (!strncmp(msg, "mu(", 3)) snprintf(err, errlen, "%s: %s/vectors/mu: %s", path, root, msg);
    else snprintf(err, errlen, "%s: %s", path, msg);
    goto done;
  }
  if ((rc = lsim_fc_index(p))) snprintf(err, errlen, "%s: out of memory", path);
done:
  sparse_free(&A);
  sparse_free(&H);
  free(vec);
  free(w);
  if (rc) lsim_fc_free(p);
  return rc;
}

int lsim_fc_read(const char *path, LsimFc *p, char *err, size_t errlen) {
  memset(p, 0, sizeof *p);
  if (err && errlen) err[0] = '\0';
  const int kind = lsim_problem_file_kind(path);
  if (kind != LSIM_FILE_FCLIB) return lsim_fc_dat_read(path, p, err, errlen);
  /* HDF5 prints its error stack unless told not to. */
  H5E_auto2_t func;
  void *data;
  H5Eget_auto2(H5E_DEFAULT, &func, &data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  /* (a run file cut before its first complete flush is not given to HDF5: h5check.h) */
  const int cut = lsim_h5_head(path) == LSIM_H5_HEAD_CUT;
  hid_t file = cut ? -1 : H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  int rc;
  if (cut) {
    snprintf(err, errlen, "%s: %s", path, LSIM_H5_CUT_MESSAGE);
    rc = LSIM_IO_ERROR;
  } else if (file < 0) {
    snprintf(err, errlen, "%s: cannot open as HDF5", path);
    rc = LSIM_IO_ERROR;
  } else {
    rc = fclib_read(file, path, p, err, errlen);
    H5Fclose(file);
  }
  H5Eset_auto2(H5E_DEFAULT, func, data);
  return rc;
}

/* ---- measures ---- */

void lsim_fc_project_cone(int dim, double mu, double *x) {
  const double xn = x[0];
  const double xt = dim == 3 ? hypot(x[1], x[2]) : fabs(x[1]);
  if (xt <= mu * xn) return;                 /* inside K */
  if (mu * xt <= -xn) {                      /* inside the polar cone: the apex */
    x[0] = x[1] = 0.0;
    if (dim == 3) x[2] = 0.0;
    return;
  }
  /* onto the boundary: (xn + mu xt) / (1 + mu^2) (1, mu xt_dir) */
  const double a = (xn + mu * xt) / (1.0 + mu * mu);
  x[0] = a;
  const double s = mu * a / xt;
  x[1] *= s;
  if (dim == 3) x[2] *= s;
}

/* Adds |x| to a scaled sum of squares, LAPACK's dnrm2 way: the norm is *scale sqrt(*ssq),
 * which overflows only when the norm itself does (inf for an infinite x, NaN for a NaN). */
static void ssq_add(double *scale, double *ssq, double x) {
  x = fabs(x);
  if (x == 0.0) return;
  if (*scale < x) {
    const double t = *scale / x;
    *ssq = 1.0 + *ssq * t * t;
    *scale = x;
  } else {
    const double t = x / *scale;
    *ssq += t * t;
  }
}

/* Distance of x to the cone ||x_T|| <= m x_N. */
static double cone_distance(int dim, double m, const double *x) {
  double y[3] = {x[0], x[1], dim == 3 ? x[2] : 0.0};
  lsim_fc_project_cone(dim, m, y);
  double s = 0.0;
  for (int k = 0; k < dim; ++k) s += (x[k] - y[k]) * (x[k] - y[k]);
  if (isfinite(s)) return sqrt(s);
  /* Squares past the double range: scaled sums (ssq_add), inf only for an infinite or NaN
     component (the dual cone of one contact with q of order 1e300 read inf). */
  double scale = 0.0, ssq = 0.0;
  for (int k = 0; k < dim; ++k) ssq_add(&scale, &ssq, x[k] - y[k]);
  const double norm = scale * sqrt(ssq);
  return isnan(norm) ? INFINITY : norm;
}

/* u_c = q_c + the sum over the blocks of row c of B r_j (the third entry 0 in 2-D). */
static inline void contact_u(const LsimFc *p, const double *r, int c, double uc[3]) {
  const int d = p->dim;
  uc[0] = p->q[c * d], uc[1] = p->q[c * d + 1], uc[2] = d == 3 ? p->q[c * d + 2] : 0.0;
  for (int b = p->bptr[c]; b < p->bptr[c + 1]; ++b) {
    const double *B = p->blk + (size_t)b * d * d, *rj = r + p->bcol[b] * d;
    for (int j = 0; j < d; ++j)
      for (int i = 0; i < d; ++i) uc[i] += B[i + j * d] * rj[j];
  }
}

/* The natural map's norm over every contact, by scaled sums: what lsim_fc_quality takes
 * when its plain sum of squares overflowed (the same terms, as that loop makes them). */
static double natural_scaled(const LsimFc *p, const double *r) {
  const int d = p->dim;
  double scale = 0.0, ssq = 0.0;
  for (int c = 0; c < p->nc; ++c) {
    double uc[3];
    contact_u(p, r, c, uc);
    const double *rc = r + c * d, m = p->mu[c];
    const double ut = d == 3 ? hypot(uc[1], uc[2]) : fabs(uc[1]);
    const double uh[3] = {uc[0] + m * ut, uc[1], d == 3 ? uc[2] : 0.0};
    double x[3] = {0.0, 0.0, 0.0};
    for (int k = 0; k < d; ++k) x[k] = rc[k] - uh[k];
    lsim_fc_project_cone(d, m, x);
    for (int k = 0; k < d; ++k) ssq_add(&scale, &ssq, rc[k] - x[k]);
  }
  const double norm = scale * sqrt(ssq);
  return isnan(norm) ? INFINITY : norm;
}

void lsim_fc_quality(const LsimFc *p, const double *r, double *u, LsimFcQuality *out) {
  const int d = p->dim, n = p->n;
  memset(out, 0, sizeof *out);
  double ubuf[3];
  double nat2 = 0.0, qn = 0.0;
  for (int k = 0; k < n; ++k) qn += p->q[k] * p->q[k];
  qn = sqrt(qn);
  /* ||q|| past the double range by squares (entries from about 1e154 on) is taken by
     scaled sums: plain, it was inf and every relative measure 0 (or NaN). The plain sum
     stays wherever it is finite, so the figures there keep their bits. */
  if (!isfinite(qn)) {
    double scale = 0.0, ssq = 0.0;
    for (int k = 0; k < n; ++k) ssq_add(&scale, &ssq, p->q[k]);
    qn = scale * sqrt(ssq);
  }
  for (int c = 0; c < p->nc; ++c) {
    double uc[3];
    contact_u(p, r, c, uc);
    if (u) memcpy(u + c * d, uc, (size_t)d * sizeof(double));
    const double *rc = r + c * d, m = p->mu[c];
    const double ut = d == 3 ? hypot(uc[1], uc[2]) : fabs(uc[1]);
    double uh[3] = {uc[0] + m * ut, uc[1], d == 3 ? uc[2] : 0.0};
    /* natural map: r - P_K(r - û) */
    double x[3] = {0.0, 0.0, 0.0};
    for (int k = 0; k < d; ++k) x[k] = rc[k] - uh[k];
    lsim_fc_project_cone(d, m, x);
    for (int k = 0; k < d; ++k) nat2 += (rc[k] - x[k]) * (rc[k] - x[k]);
    /* cone, dual cone (K* of mu is the cone of 1/mu; mu = 0: the half-line... û_N >= 0) */
    out->cone = fmax(out->cone, cone_distance(d, m, rc));
    const double dual = m > 0.0 ? cone_distance(d, 1.0 / m, uh) : fmax(0.0, -uh[0]);
    out->dual_cone = fmax(out->dual_cone, dual);
    double dot = 0.0;
    for (int k = 0; k < d; ++k) dot += rc[k] * uh[k];
    out->complementarity = fmax(out->complementarity, fabs(dot));
    const double rt = d == 3 ? hypot(rc[1], rc[2]) : fabs(rc[1]);
    const double scale = fmax(fabs(rc[0]), 1e-300);
    if (rc[0] > 0.0 && m > 0.0 && fabs(rt - m * rc[0]) <= 1e-8 * scale * (1.0 + m) &&
        ut > 1e-8 * (fabs(uc[0]) + ut + 1e-300))
      out->nsliding++;
    (void)ubuf;
  }
  /* A sum of squares that overflowed is taken again by scaled sums (inf only when a term
     is inf or NaN: a non-finite r or u). */
  out->natural = isfinite(nat2) ? sqrt(nat2) : natural_scaled(p, r);
  out->relative = qn > DBL_EPSILON ? out->natural / qn : out->natural;
  if (!isfinite(out->cone)) out->cone = INFINITY;
}

/* ---- Stewart-Trinkle LCP ---- */

/* Tangent direction k of ndir (unit, in the tangent plane). */
static void direction(int dim, int ndir, int k, double *t) {
  if (dim == 2) {
    t[0] = k == 0 ? 1.0 : -1.0;
    t[1] = 0.0;
    return;
  }
  const double a = 2.0 * LSIM_FC_PI * k / ndir;
  t[0] = cos(a);
  t[1] = sin(a);
  /* exact values at the quarter turns */
  if (k % (ndir / 4) == 0) {
    static const double c[4] = {1, 0, -1, 0}, s[4] = {0, 1, 0, -1};
    t[0] = c[(k / (ndir / 4)) % 4];
    t[1] = s[(k / (ndir / 4)) % 4];
  }
}

int lsim_fc_to_lcp(const LsimFc *p, int ndir, LsimLcp *lcp, LsimConeBlock **cones) {
  memset(lcp, 0, sizeof *lcp);
  *cones = NULL;
  const int d = p->dim, nc = p->nc, n = p->n;
  if (d == 2 ? ndir != 2 : (ndir < 4 || ndir % 4)) return LSIM_INVALID_INPUT;
  const int per = ndir + 2, N = nc * per;
  if (lsim_lcp_init(lcp, N)) return LSIM_OUT_OF_MEMORY;
  LsimConeBlock *cb = calloc((size_t)nc + 1, sizeof *cb);
  /* G: column a of variable a of contact c is r-space vector: normal e_N, beta_k (0, t_k),
     lambda 0. Stored per variable: its contact and its dim-vector. */
  double *g = calloc((size_t)N * d + 1, sizeof(double));
  if (!cb || !g) {
    free(cb), free(g);
    lsim_lcp_free(lcp);
    return LSIM_OUT_OF_MEMORY;
  }
  for (int c = 0; c < nc; ++c) {
    const int base = c * per;
    g[(size_t)base * d] = 1.0;
    for (int k = 0; k < ndir; ++k) {
      double t[2];
      direction(d, ndir, k, t);
      g[(size_t)(base + 1 + k) * d + 1] = t[0];
      if (d == 3) g[(size_t)(base + 1 + k) * d + 2] = t[1];
    }
    cb[c].normal = base;
    cb[c].fixed_normal = 0.0;
    cb[c].first_dir = base + 1;
    cb[c].ndir = ndir;
    cb[c].lambda = base + 1 + ndir;
    cb[c].mu = p->mu[c];
    cb[c].uniform = 1;
  }
  /* M[a, b] = g_a' W_{c(a) c(b)} g_b for a, b force variables (not lambda), by blocks. */
  for (int ci = 0; ci < nc; ++ci)
    for (int bb = p->bptr[ci]; bb < p->bptr[ci + 1]; ++bb) {
      const int cj = p->bcol[bb];
      const double *B = p->blk + (size_t)bb * d * d;
      for (int a = 0; a < ndir + 1; ++a) {
        const double *ga = g + (size_t)(ci * per + a) * d;
        for (int b = 0; b < ndir + 1; ++b) {
          const double *gb = g + (size_t)(cj * per + b) * d;
          double s = 0.0;
          for (int j = 0; j < d; ++j) {
            if (gb[j] == 0.0) continue;
            for (int i = 0; i < d; ++i) s += ga[i] * B[i + j * d] * gb[j];
          }
          lcp->M[(size_t)(ci * per + a) + (size_t)(cj * per + b) * N] = s;
        }
      }
    }
  for (int c = 0; c < nc; ++c) {
    const int base = c * per, lam = base + 1 + ndir;
    for (int k = 0; k < ndir; ++k) {
      lcp->M[(size_t)(base + 1 + k) + (size_t)lam * N] = 1.0;
      lcp->M[(size_t)lam + (size_t)(base + 1 + k) * N] = -1.0;
    }
    lcp->M[(size_t)lam + (size_t)base * N] = p->mu[c];
    for (int a = 0; a < ndir + 1; ++a) {
      const double *ga = g + (size_t)(base + a) * d;
      double s = 0.0;
      for (int i = 0; i < d; ++i) s += ga[i] * p->q[c * d + i];
      lcp->q[base + a] = s;
    }
  }
  free(g);
  (void)n;
  lcp->ncones = nc;
  lcp->cones = cb;
  *cones = cb;
  return 0;
}

void lsim_fc_reaction_from_lcp(const LsimFc *p, int ndir, const double *x, double *r) {
  const int d = p->dim, per = ndir + 2;
  for (int c = 0; c < p->nc; ++c) {
    const double *xc = x + c * per;
    double *rc = r + c * d;
    rc[0] = xc[0];
    rc[1] = 0.0;
    if (d == 3) rc[2] = 0.0;
    for (int k = 0; k < ndir; ++k) {
      double t[2];
      direction(d, ndir, k, t);
      rc[1] += xc[1 + k] * t[0];
      if (d == 3) rc[2] += xc[1 + k] * t[1];
    }
  }
}
