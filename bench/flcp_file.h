/* flcp_file.h: a factored LCP (lcp/factored.h) with a warm guess and a basis guess, in a
 * raw binary file of this machine's byte order: bench_exact --dump writes one a step,
 * bench/replay_lemke reads it to solve that step alone. Not a format for exchange (the
 * .dat files of lcp/datfile.h are); header-only, for the benchmarks.
 *
 * Layout: "LSIMFLCP1\0" (10 bytes); int n, m, nnz(J), nnz(B) (-1: B shares J's ptr and
 * idx arrays, its values apart), nnz(C) (-1: C = 0), ncones, block_width, has_basis;
 * double diag_bound; then J_ptr [n + 1], J_idx, J_val; B_ptr [n + 1], B_idx (unless
 * shared), B_val; C_ptr, C_idx, C_val (when present); q [n]; cones [ncones] as structs;
 * z [n] (the warm guess); basis [n] bytes (when has_basis). */
#ifndef LSIM_BENCH_FLCP_FILE_H
#define LSIM_BENCH_FLCP_FILE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lcp/factored.h"

static const char lsim_flcp_magic[10] = "LSIMFLCP1";

/* Writes f, z [n] and basis [n] (may be NULL) to path. 0 or -1. */
static inline int lsim_flcp_write(const char *path, const LsimFactoredLcp *f, const double *z,
                                  const unsigned char *basis) {
  FILE *o = fopen(path, "wb");
  if (!o) return -1;
  const int n = f->n;
  const int shared = f->B_ptr == f->J_ptr && f->B_idx == f->J_idx;
  int hdr[8] = {n,           f->m, f->J_ptr[n], shared ? -1 : f->B_ptr[n],
                f->C_ptr ? f->C_ptr[n] : -1, f->ncones, f->block_width, basis != NULL};
  const size_t nj = (size_t)f->J_ptr[n], nb = (size_t)f->B_ptr[n];
  int bad = fwrite(lsim_flcp_magic, 1, 10, o) != 10 || fwrite(hdr, sizeof hdr, 1, o) != 1 ||
            fwrite(&f->diag_bound, sizeof(double), 1, o) != 1 ||
            fwrite(f->J_ptr, sizeof(int), (size_t)n + 1, o) != (size_t)n + 1 ||
            fwrite(f->J_idx, sizeof(int), nj, o) != nj ||
            fwrite(f->J_val, sizeof(double), nj, o) != nj;
  if (!shared)
    bad = bad || fwrite(f->B_ptr, sizeof(int), (size_t)n + 1, o) != (size_t)n + 1 ||
          fwrite(f->B_idx, sizeof(int), nb, o) != nb;
  bad = bad || fwrite(f->B_val, sizeof(double), nb, o) != nb;
  if (f->C_ptr) {
    const size_t nc = (size_t)f->C_ptr[n];
    bad = bad || fwrite(f->C_ptr, sizeof(int), (size_t)n + 1, o) != (size_t)n + 1 ||
          fwrite(f->C_idx, sizeof(int), nc, o) != nc ||
          fwrite(f->C_val, sizeof(double), nc, o) != nc;
  }
  bad = bad || fwrite(f->q, sizeof(double), (size_t)n, o) != (size_t)n ||
        (f->ncones && fwrite(f->cones, sizeof(LsimConeBlock), (size_t)f->ncones, o) !=
                          (size_t)f->ncones) ||
        fwrite(z, sizeof(double), (size_t)n, o) != (size_t)n ||
        (basis && fwrite(basis, 1, (size_t)n, o) != (size_t)n);
  return fclose(o) || bad ? -1 : 0;
}

/* One loaded file: the problem and its arrays (freed by lsim_flcp_free). */
typedef struct LsimFlcp {
  LsimFactoredLcp f;
  int *ip[5];    /* J_ptr, J_idx, B_ptr, B_idx, C_ptr / C_idx below */
  int *cp, *ci;
  double *dv[4]; /* J_val, B_val, C_val, q */
  LsimConeBlock *cones;
  double *z;
  unsigned char *basis; /* NULL when the file has none */
} LsimFlcp;

static inline void lsim_flcp_free(LsimFlcp *p) {
  for (int k = 0; k < 5; ++k) free(p->ip[k]);
  free(p->cp), free(p->ci);
  for (int k = 0; k < 4; ++k) free(p->dv[k]);
  free(p->cones), free(p->z), free(p->basis);
  memset(p, 0, sizeof *p);
}

static inline int lsim_flcp_rd(FILE *in, void **dst, size_t elem, size_t cnt) {
  *dst = malloc(elem * (cnt ? cnt : 1));
  return !*dst || fread(*dst, elem, cnt, in) != cnt;
}

/* Reads path into p. 0 or -1 (p then freed). */
static inline int lsim_flcp_read(const char *path, LsimFlcp *p) {
  memset(p, 0, sizeof *p);
  FILE *in = fopen(path, "rb");
  if (!in) return -1;
  char mg[10];
  int hdr[8];
  double db;
  int bad = fread(mg, 1, 10, in) != 10 || memcmp(mg, lsim_flcp_magic, 10) ||
            fread(hdr, sizeof hdr, 1, in) != 1 || fread(&db, sizeof db, 1, in) != 1;
  if (bad || hdr[0] < 0 || hdr[1] < 0 || hdr[2] < 0) {
    fclose(in);
    return -1;
  }
  const size_t n = (size_t)hdr[0], nj = (size_t)hdr[2];
  const int shared = hdr[3] < 0;
  const size_t nb = shared ? nj : (size_t)hdr[3];
  bad = lsim_flcp_rd(in, (void **)&p->ip[0], sizeof(int), n + 1) ||
        lsim_flcp_rd(in, (void **)&p->ip[1], sizeof(int), nj) ||
        lsim_flcp_rd(in, (void **)&p->dv[0], sizeof(double), nj);
  if (!bad && !shared)
    bad = lsim_flcp_rd(in, (void **)&p->ip[2], sizeof(int), n + 1) ||
          lsim_flcp_rd(in, (void **)&p->ip[3], sizeof(int), nb);
  bad = bad || lsim_flcp_rd(in, (void **)&p->dv[1], sizeof(double), nb);
  if (!bad && hdr[4] >= 0)
    bad = lsim_flcp_rd(in, (void **)&p->cp, sizeof(int), n + 1) ||
          lsim_flcp_rd(in, (void **)&p->ci, sizeof(int), (size_t)hdr[4]) ||
          lsim_flcp_rd(in, (void **)&p->dv[2], sizeof(double), (size_t)hdr[4]);
  bad = bad || lsim_flcp_rd(in, (void **)&p->dv[3], sizeof(double), n) ||
        lsim_flcp_rd(in, (void **)&p->cones, sizeof(LsimConeBlock), (size_t)hdr[5]) ||
        lsim_flcp_rd(in, (void **)&p->z, sizeof(double), n) ||
        (hdr[7] && lsim_flcp_rd(in, (void **)&p->basis, 1, n));
  fclose(in);
  if (bad) {
    lsim_flcp_free(p);
    return -1;
  }
  LsimFactoredLcp *f = &p->f;
  f->n = hdr[0], f->m = hdr[1];
  f->J_ptr = p->ip[0], f->J_idx = p->ip[1], f->J_val = p->dv[0];
  f->B_ptr = shared ? p->ip[0] : p->ip[2], f->B_idx = shared ? p->ip[1] : p->ip[3];
  f->B_val = p->dv[1];
  f->C_ptr = p->cp, f->C_idx = p->ci, f->C_val = p->dv[2];
  f->q = p->dv[3];
  f->ncones = hdr[5], f->cones = p->cones;
  f->block_width = hdr[6], f->diag_bound = db;
  return lsim_factored_check(f) ? (lsim_flcp_free(p), -1) : 0;
}

/* The process's CPU time in seconds (the benchmarks' and replays' clock). */
static inline double lsim_flcp_cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* FNV-1a of z's bytes: two solves that print the same hash returned the same bits. */
static inline unsigned long long lsim_flcp_z_hash(const double *z, int n) {
  unsigned long long h = 14695981039346656037ull;
  for (size_t b = 0; b < (size_t)n * sizeof(double); ++b)
    h = (h ^ ((const unsigned char *)z)[b]) * 1099511628211ull;
  return h;
}

#endif
