/* output.c: a comparison's HDF5 file (compare/output.h). */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "compare/output.h"
#include "lcp/solver.h"

/* Where name goes: "/summary/NAME" into the unlinked summary group while one is open. */
static int64_t summary_loc(const LsimCompareOut *o, const char **name) {
  if (o->summary <= 0 || strncmp(*name, "/summary/", 9) != 0) return o->file;
  *name += 9;
  return o->summary;
}

void lsim_compare_w_arr(LsimCompareOut *o, const char *name, LsimH5Type type, int rank, uint64_t d0,
                        uint64_t d1, const void *data) {
  if (o->rc) return;
  uint64_t dims[2] = {d0, d1};
  const int64_t loc = summary_loc(o, &name);
  o->rc = lsim_h5_write(loc, name, type, rank, dims, data);
}
void lsim_compare_w_int(LsimCompareOut *o, const char *name, int v) {
  lsim_compare_w_arr(o, name, LSIM_H5_I32, 0, 0, 0, &v);
}
void lsim_compare_w_dbl(LsimCompareOut *o, const char *name, double v) {
  lsim_compare_w_arr(o, name, LSIM_H5_F64, 0, 0, 0, &v);
}
void lsim_compare_w_str(LsimCompareOut *o, const char *name, const char *first, size_t stride,
                        int count) {
  if (o->rc) return;
  const int64_t loc = summary_loc(o, &name);
  o->rc = lsim_h5_write_strings(loc, name, first, stride, count);
}

/* ---- The per-problem tables, by rows ---- */

/* Each table: its dataset, type, shape ([N] or [N, P]; energies [N + 1, P]) and whether
 * only independent mode has it. */
typedef struct RowSet {
  const char *name;
  LsimH5Type type;
  int per_series, energy, independent_only;
} RowSet;

static const RowSet kRowSets[LSIM_COMPARE_ROW_SETS] = {
    {"/step", LSIM_H5_I32, 0, 0, 0},
    {"/time", LSIM_H5_F64, 0, 0, 0},
    {"/problem_hash", LSIM_H5_U64, 0, 0, 0},
    {"/problem_size", LSIM_H5_I32, 0, 0, 0},
    {"/problem_dense_hash", LSIM_H5_U64, 0, 0, 0},
    {"/results/status", LSIM_H5_I32, 1, 0, 0},
    {"/results/success", LSIM_H5_I32, 1, 0, 0},
    {"/results/iterations", LSIM_H5_I32, 1, 0, 0},
    {"/results/warm_started", LSIM_H5_I32, 1, 0, 0},
    {"/results/lcp_size", LSIM_H5_I32, 1, 0, 0},
    {"/results/sliding_contacts", LSIM_H5_I32, 1, 0, 0},
    {"/results/skipped", LSIM_H5_I32, 1, 0, 0},
    {"/results/hash", LSIM_H5_U64, 1, 0, 0},
    {"/results/wall_time", LSIM_H5_F64, 1, 0, 0},
    {"/results/wall_time_spread", LSIM_H5_F64, 1, 0, 0},
    {"/results/residual", LSIM_H5_F64, 1, 0, 0},
    {"/results/relative_residual", LSIM_H5_F64, 1, 0, 0},
    {"/results/complementarity", LSIM_H5_F64, 1, 0, 0},
    {"/results/signorini", LSIM_H5_F64, 1, 0, 0},
    {"/results/cone", LSIM_H5_F64, 1, 0, 0},
    {"/results/dissipation", LSIM_H5_F64, 1, 0, 0},
    {"/results/distance", LSIM_H5_F64, 1, 0, 0},
    {"/results/siconos_error", LSIM_H5_F64, 1, 0, 0},
    {"/divergence/q", LSIM_H5_F64, 1, 0, 1},
    {"/divergence/v", LSIM_H5_F64, 1, 0, 1},
    {"/energy/kinetic", LSIM_H5_F64, 1, 1, 1},
    {"/energy/potential", LSIM_H5_F64, 1, 1, 1},
};

/* Table i's first element in t (kRowSets' order). */
static const void *row_data(const LsimCompareTable *t, int i) {
  const void *d[LSIM_COMPARE_ROW_SETS] = {
      t->step, t->time, t->problem_hash, t->problem_size, t->problem_dense_hash,
      t->status, t->success, t->iters, t->warm, t->size, t->nsliding, t->skipped, t->hash,
      t->wall, t->spread, t->res, t->rel, t->compl_, t->sig, t->cone, t->diss, t->dist,
      t->sicerr, t->qdiff, t->vdiff, t->ekin, t->epot};
  return d[i];
}

void lsim_compare_rows_open(LsimCompareRows *r, LsimCompareOut *o, int P, int independent) {
  memset(r, 0, sizeof *r);
  r->P = P;
  r->independent = independent;
  for (int i = 0; i < LSIM_COMPARE_ROW_SETS && !o->rc; ++i) {
    const RowSet *s = &kRowSets[i];
    if (s->independent_only && !independent) continue;
    /* Chunks of about 64 kB, at least 16 rows. */
    const uint64_t width = s->per_series ? (uint64_t)P : 1;
    const uint64_t chunk = width * 8 >= 4096 ? 16 : 65536 / (width * 8);
    r->d[i] = lsim_h5_rows_create(o->file, s->name, s->type, s->per_series ? 2 : 1, width, chunk);
    if (!r->d[i]) o->rc = -1;
    r->chunk_bytes += (double)(chunk * width * (s->type == LSIM_H5_I32 ? 4 : 8));
  }
}

int lsim_compare_room_low(const LsimOutFile *of, const char *path, const LsimCompareRows *r,
                          double extra, double *last, char *why, size_t whylen) {
  const double size = lsim_outfile_size(of);
  const double grew = size > *last ? size - *last : 0.0;
  if (size >= 0) *last = size;
  return lsim_outfile_room_low(of, path, r->chunk_bytes + grew + extra, -1.0, why, whylen);
}

void lsim_compare_rows_names(LsimCompareRows *r, LsimCompareOut *o, const char *const *inputs,
                             int n) {
  if (o->rc) return;
  size_t len = 1;
  for (int k = 0; k < n; ++k) {
    const size_t l = strlen(inputs[k]) + 1;
    if (l > len) len = l;
  }
  if (len > 256) len = 256;
  r->inputs = inputs, r->name_len = len;
  r->names = lsim_h5_rows_create_strings(o->file, "/problem_name", len, 65536 / len);
  if (!r->names) o->rc = -1;
  r->chunk_bytes += (double)(65536 / len * len);
}

/* The names of problems [have, upto) appended (one buffer, each name cut to its row). */
static void names_append(LsimCompareRows *r, LsimCompareOut *o, int upto) {
  const uint64_t have = lsim_h5_rows_count(r->names);
  if (!r->names || (uint64_t)upto <= have) return;
  const size_t m = (size_t)upto - (size_t)have, len = r->name_len;
  char *buf = calloc(m, len);
  if (!buf) {
    o->rc = -1;
    return;
  }
  for (size_t k = 0; k < m; ++k) {
    const char *name = r->inputs[have + k];
    const size_t l = strlen(name);
    memcpy(buf + k * len, name, l < len ? l : len - 1);
  }
  if (lsim_h5_rows_append(r->names, buf, m)) o->rc = -1;
  free(buf);
}

void lsim_compare_rows_append(LsimCompareRows *r, LsimCompareOut *o, const LsimCompareTable *t,
                              int upto) {
  if (!o->rc && r->names) names_append(r, o, upto);
  for (int i = 0; i < LSIM_COMPARE_ROW_SETS && !o->rc; ++i) {
    if (!r->d[i]) continue;
    const RowSet *s = &kRowSets[i];
    /* Rows wanted: problems [0, upto); energies rows [0, upto] (row 0 the start). */
    const uint64_t want = s->energy ? (upto > 0 ? (uint64_t)upto + 1 : 0) : (uint64_t)upto;
    const uint64_t have = lsim_h5_rows_count(r->d[i]);
    if (want <= have) continue;
    const uint64_t width = s->per_series ? (uint64_t)r->P : 1;
    const size_t esize = s->type == LSIM_H5_I32 ? sizeof(int) : 8;
    const char *base = row_data(t, i);
    if (lsim_h5_rows_append(r->d[i], base + have * width * esize, want - have)) o->rc = -1;
  }
}

void lsim_compare_rows_close(LsimCompareRows *r) {
  for (int i = 0; i < LSIM_COMPARE_ROW_SETS; ++i) {
    lsim_h5_rows_close(r->d[i]);
    r->d[i] = NULL;
  }
  lsim_h5_rows_close(r->names);
  r->names = NULL;
}

/* ---- The solvers and series (known at the start) ---- */

void lsim_compare_write_series(LsimCompareOut *o, int nseries, const LsimCompareSpec *specs,
                               int nspecs, char (*labels)[128], const int *ser_solver,
                               char (*ser_start)[8], int reference_series) {
  const uint64_t P = (uint64_t)nseries, S = (uint64_t)nspecs;
  /* The solvers (one per spec), then the series (one or two per solver). */
  char (*names)[48] = calloc(S + 1, sizeof *names);
  char (*speclabels)[96] = calloc(S + 1, sizeof *speclabels);
  double *tol = calloc(S + 1, sizeof(double)), *omega = calloc(S + 1, sizeof(double));
  int *maxit = calloc(S + 1, sizeof(int)), *warm = calloc(S + 1, sizeof(int));
  int *threads = calloc(S + 1, sizeof(int));
  if (!names || !speclabels || !tol || !omega || !maxit || !warm || !threads)
    o->rc = o->rc ? o->rc : -1;
  for (int j = 0; !o->rc && j < nspecs; ++j) {
    memcpy(names[j], specs[j].name, sizeof names[j]);
    memcpy(speclabels[j], specs[j].label, sizeof speclabels[j]);
    tol[j] = specs[j].opt.tol;
    omega[j] = specs[j].opt.omega;
    maxit[j] = specs[j].opt.max_iter;
    warm[j] = specs[j].opt.warm_start;
    threads[j] = specs[j].opt.threads;
  }
  lsim_compare_w_str(o, "/solvers/spec", speclabels[0], sizeof speclabels[0], nspecs);
  lsim_compare_w_str(o, "/solvers/name", names[0], sizeof names[0], nspecs);
  lsim_compare_w_arr(o, "/solvers/tol", LSIM_H5_F64, 1, S, 0, tol);
  lsim_compare_w_arr(o, "/solvers/max_iter", LSIM_H5_I32, 1, S, 0, maxit);
  lsim_compare_w_arr(o, "/solvers/omega", LSIM_H5_F64, 1, S, 0, omega);
  lsim_compare_w_arr(o, "/solvers/warm_start", LSIM_H5_I32, 1, S, 0, warm);
  lsim_compare_w_arr(o, "/solvers/threads", LSIM_H5_I32, 1, S, 0, threads);
  free(threads);
  free(names);
  free(speclabels);
  free(tol);
  free(omega);
  free(maxit);
  free(warm);
  lsim_compare_w_str(o, "/series/label", labels[0], sizeof labels[0], nseries);
  lsim_compare_w_arr(o, "/series/solver", LSIM_H5_I32, 1, P, 0, ser_solver);
  lsim_compare_w_str(o, "/series/start", ser_start[0], sizeof ser_start[0], nseries);
  int *isref = calloc(P + 1, sizeof(int));
  if (!isref) o->rc = o->rc ? o->rc : -1;
  else if (reference_series >= 0) isref[reference_series] = 1;
  lsim_compare_w_arr(o, "/series/is_reference", LSIM_H5_I32, 1, P, 0, isref);
  free(isref);
  /* Sparse Lemke's settings in effect for the series whose solver runs it (lemke_sparse:
     the spec's block, lu, refactor else the environment's; newton's fallback and lemke's
     LU run: the environment's alone; lsim_solver_sparse_settings), as a run file's
     /parameters/solver_lu_solve: other settings give other pivots and bits. Other series:
     0, "", 0. (Before, only a lemke_sparse spec's own keys were in the file, through its
     label; an environment's setting was nowhere.) */
  int *block = calloc(P + 1, sizeof(int)), *every = calloc(P + 1, sizeof(int));
  char (*lu)[16] = calloc(P + 1, sizeof *lu);
  if (!block || !every || !lu) o->rc = o->rc ? o->rc : -1;
  for (int s = 0; !o->rc && s < nseries; ++s) {
    const LsimCompareSpec *sp = &specs[ser_solver[s]];
    int b = 0, l = 0, e = 0;
    const int sparse = lsim_solver_sparse_settings(sp->name, &sp->opt, &b, &l, &e);
    if (sparse < 0) o->rc = -1; /* out of memory (the spec's values were validated) */
    else if (sparse) {
      block[s] = b;
      every[s] = e;
      snprintf(lu[s], sizeof lu[s], "%s", lsim_lu_solve_name(l));
    }
  }
  lsim_compare_w_arr(o, "/series/block_start", LSIM_H5_I32, 1, P, 0, block);
  lsim_compare_w_str(o, "/series/lu_solve", lu ? lu[0] : "", sizeof *lu, nseries);
  lsim_compare_w_arr(o, "/series/lu_refactor", LSIM_H5_I32, 1, P, 0, every);
  /* lemke_sparse's principal pivoting budget in effect (the spec's principal=K, else
     LSIM_PRINCIPAL, else 0), as a run file's /parameters/solver_principal; other series 0. */
  for (int s = 0; block && s < nseries; ++s) {
    const LsimCompareSpec *sp = &specs[ser_solver[s]];
    const int k = lsim_solver_principal_setting(sp->name, &sp->opt);
    block[s] = k > 0 ? k : 0;
  }
  lsim_compare_w_arr(o, "/series/principal", LSIM_H5_I32, 1, P, 0, block);
  /* pgs's sweep arithmetic in effect (the spec's precision=..., else LSIM_PGS_PRECISION,
     else double), as a run file's /parameters/solver_precision; other series "". */
  for (int s = 0; lu && s < nseries; ++s) {
    const LsimCompareSpec *sp = &specs[ser_solver[s]];
    const int k = lsim_solver_precision_setting(sp->name, &sp->opt);
    snprintf(lu[s], sizeof lu[s], "%s", k < 0 ? "" : k ? "float" : "double");
  }
  lsim_compare_w_str(o, "/series/precision", lu ? lu[0] : "", sizeof *lu, nseries);
  free(block);
  free(every);
  free(lu);
}

/* ---- The end of a comparison ---- */

void lsim_compare_write_results(LsimCompareOut *o, LsimCompareRows *rows,
                                const LsimCompareTable *t, const LsimCompareSummary *sm,
                                int independent) {
  const uint64_t P = (uint64_t)t->P;
  /* The tables' rows not yet written (all of them through datasets of our own when the
     caller streamed none). */
  LsimCompareRows own;
  if (!rows) {
    lsim_compare_rows_open(&own, o, t->P, independent);
    rows = &own;
  }
  lsim_compare_rows_append(rows, o, t, t->N);
  if (rows == &own) lsim_compare_rows_close(&own);

  /* Summary per series. */
  double *v[10];
  int *iv[7];
  for (int j = 0; j < 10; ++j) v[j] = calloc(P + 1, sizeof(double));
  for (int j = 0; j < 7; ++j) iv[j] = calloc(P + 1, sizeof(int));
  int ok = 1;
  for (int j = 0; j < 10; ++j) ok = ok && v[j];
  for (int j = 0; j < 7; ++j) ok = ok && iv[j];
  if (!ok) o->rc = o->rc ? o->rc : -1;
  for (uint64_t s = 0; ok && s < P; ++s) {
    iv[0][s] = sm[s].problems;
    iv[1][s] = sm[s].successes;
    iv[2][s] = sm[s].failures;
    iv[3][s] = sm[s].max_iters;
    iv[4][s] = sm[s].skipped;
    iv[5][s] = sm[s].budget;
    iv[6][s] = sm[s].missed;
    v[0][s] = sm[s].success_rate;
    v[1][s] = sm[s].median_wall;
    v[2][s] = sm[s].worst_wall;
    v[3][s] = sm[s].median_iters;
    v[4][s] = sm[s].median_rel;
    v[5][s] = sm[s].worst_rel;
    v[6][s] = sm[s].max_dist;
    v[7][s] = sm[s].max_qdiff;
    v[8][s] = sm[s].median_fail_wall;
    v[9][s] = sm[s].worst_cone;
  }
  lsim_compare_w_arr(o, "/summary/problems", LSIM_H5_I32, 1, P, 0, iv[0]);
  lsim_compare_w_arr(o, "/summary/successes", LSIM_H5_I32, 1, P, 0, iv[1]);
  lsim_compare_w_arr(o, "/summary/failures", LSIM_H5_I32, 1, P, 0, iv[2]);
  lsim_compare_w_arr(o, "/summary/max_iterations", LSIM_H5_I32, 1, P, 0, iv[3]);
  lsim_compare_w_arr(o, "/summary/skipped", LSIM_H5_I32, 1, P, 0, iv[4]);
  lsim_compare_w_arr(o, "/summary/budget_stops", LSIM_H5_I32, 1, P, 0, iv[5]);
  lsim_compare_w_arr(o, "/summary/missed_tolerance", LSIM_H5_I32, 1, P, 0, iv[6]);
  lsim_compare_w_arr(o, "/summary/success_rate", LSIM_H5_F64, 1, P, 0, v[0]);
  lsim_compare_w_arr(o, "/summary/median_wall_time", LSIM_H5_F64, 1, P, 0, v[1]);
  lsim_compare_w_arr(o, "/summary/worst_wall_time", LSIM_H5_F64, 1, P, 0, v[2]);
  lsim_compare_w_arr(o, "/summary/median_iterations", LSIM_H5_F64, 1, P, 0, v[3]);
  lsim_compare_w_arr(o, "/summary/median_relative_residual", LSIM_H5_F64, 1, P, 0, v[4]);
  lsim_compare_w_arr(o, "/summary/worst_relative_residual", LSIM_H5_F64, 1, P, 0, v[5]);
  lsim_compare_w_arr(o, "/summary/max_distance", LSIM_H5_F64, 1, P, 0, v[6]);
  if (independent) lsim_compare_w_arr(o, "/summary/max_q_divergence", LSIM_H5_F64, 1, P, 0, v[7]);
  lsim_compare_w_arr(o, "/summary/median_failure_wall_time", LSIM_H5_F64, 1, P, 0, v[8]);
  lsim_compare_w_arr(o, "/summary/worst_cone_violation", LSIM_H5_F64, 1, P, 0, v[9]);
  for (int j = 0; j < 10; ++j) free(v[j]);
  for (int j = 0; j < 7; ++j) free(iv[j]);
}

void lsim_compare_end_reason(char *buf, size_t len, int done, int asked, int stop,
                             const char *what) {
  if (stop)
    snprintf(buf, len, "%s after %s %d of %d",
             stop == SIGTERM ? "SIGTERM" : stop == SIGHUP ? "SIGHUP" : "SIGINT", what, done, asked);
  else if (len)
    buf[0] = '\0';
}

void lsim_compare_write_end(LsimCompareOut *o, int done, int asked, int stop, const char *what,
                            const char *stopped) {
  char reason[512];
  if (stopped && *stopped) snprintf(reason, sizeof reason, "%s", stopped);
  else lsim_compare_end_reason(reason, sizeof reason, done, asked, stop, what);
  lsim_compare_w_str(o, "/summary/run_end",
                     stopped && *stopped ? "stopped" : stop ? "interrupted" : "completed", 0, -1);
  lsim_compare_w_int(o, "/summary/run_end_step", done);
  lsim_compare_w_str(o, "/summary/run_end_reason", reason, 0, -1);
}

void lsim_compare_marks_open(LsimCompareOut *o, int lcp) {
  const int64_t none = 0;
  for (int k = 0; k < (lcp ? 2 : 1) && !o->rc; ++k) {
    const hid_t space = H5Screate(H5S_SCALAR);
    const hid_t d = space < 0 ? -1 : H5Dcreate2((hid_t)o->file, k ? "/flushed_lcp_problems" : "/flushed_rows",
                                                H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (space >= 0) H5Sclose(space);
    if (d < 0 || H5Dwrite(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, &none) < 0) o->rc = -1;
    if (d >= 0) *(k ? &o->mark_lcp : &o->mark_rows) = (int64_t)d;
  }
}

/* Written after the flush of the rows returned: H5Fflush writes HDF5's metadata in the
 * order of its addresses, so a kill inside it leaves a dataset's extent counting rows whose
 * chunk is not yet indexed (read as 0) or lies past the end of the file's allocated space
 * ("addr overflow"); before the marks, 53 of 303 points of a comparison's last flush read
 * so (tests/e2e/killed_flush.sh). */
void lsim_compare_mark(LsimCompareOut *o, uint64_t rows, uint64_t lcp_problems) {
  if (o->rc || o->mark_rows <= 0) return;
  const int64_t v[2] = {(int64_t)rows, (int64_t)lcp_problems};
  for (int k = 0; k < 2 && !o->rc; ++k) {
    const int64_t d = k ? o->mark_lcp : o->mark_rows;
    if (d > 0 && H5Dwrite((hid_t)d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v[k]) < 0)
      o->rc = -1;
  }
  if (!o->rc && H5Fflush((hid_t)o->file, H5F_SCOPE_LOCAL) < 0) o->rc = -1;
}

int64_t lsim_compare_tail(LsimCompareOut *o) {
  if (o->rc) return -1;
  if (o->tail <= 0) {
    const hid_t g = H5Gcreate_anon((hid_t)o->file, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) {
      o->rc = -1;
      return -1;
    }
    o->tail = (int64_t)g;
  }
  return o->tail;
}


/* One object of the tail linked at the root under its name. */
static herr_t link_at_root(hid_t g, const char *name, const H5L_info_t *info, void *arg) {
  (void)info;
  const hid_t obj = H5Oopen(g, name, H5P_DEFAULT);
  const int ok = obj >= 0 && H5Olink(obj, *(const hid_t *)arg, name, H5P_DEFAULT, H5P_DEFAULT) >= 0;
  if (obj >= 0) H5Oclose(obj);
  return ok ? 0 : -1;
}

void lsim_compare_summary_begin(LsimCompareOut *o) {
  if (o->rc) return;
  const hid_t g = H5Gcreate_anon((hid_t)o->file, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0) o->rc = -1;
  else o->summary = (int64_t)g;
}

/* Written in the close's flush instead, the root's link reached the file before the
 * group's object header, link heap and datasets (HDF5 writes metadata in address order):
 * a kill between left every reader failing on /summary ("bad object header version
 * number", "wrong fractal heap header signature"; tests/e2e/killed_flush.sh). */
void lsim_compare_summary_link(LsimCompareOut *o) {
  if (o->summary <= 0) return;
  const hid_t g = (hid_t)o->summary, tail = (hid_t)o->tail, file = (hid_t)o->file;
  o->summary = o->tail = 0;
  if (!o->rc && H5Fflush(file, H5F_SCOPE_LOCAL) < 0) o->rc = -1;
  /* (the tail itself is never linked: closed, it goes, its objects stay at the root) */
  if (!o->rc && tail > 0 &&
      H5Literate(tail, H5_INDEX_NAME, H5_ITER_INC, NULL, link_at_root, (void *)&file) < 0)
    o->rc = -1;
  if (!o->rc && H5Olink(g, file, "summary", H5P_DEFAULT, H5P_DEFAULT) < 0) o->rc = -1;
  if (tail > 0 && H5Gclose(tail) < 0) o->rc = o->rc ? o->rc : -1;
  if (H5Gclose(g) < 0) o->rc = o->rc ? o->rc : -1;
}

void lsim_compare_marks_close(LsimCompareOut *o) {
  if (o->mark_rows > 0) H5Dclose((hid_t)o->mark_rows);
  if (o->mark_lcp > 0) H5Dclose((hid_t)o->mark_lcp);
  if (o->tail > 0) H5Gclose((hid_t)o->tail);
  o->mark_rows = o->mark_lcp = o->tail = 0;
}

/* The status legend "code name" for -9..1, as in run files, then the compare-only
 * LSIM_COMPARE_SKIPPED. */
void lsim_compare_write_legend(LsimCompareOut *o) {
  char legend[14][64];
  for (int c = -9; c <= 1; ++c)
    snprintf(legend[c + 9], sizeof legend[0], "%d %s", c, lsim_status_name(c));
  snprintf(legend[11], sizeof legend[0], "%d %s", LSIM_COMPARE_SKIPPED, LSIM_COMPARE_SKIPPED_TEXT);
  snprintf(legend[12], sizeof legend[0], "3 skipped (a solver for the other dimension)");
  snprintf(legend[13], sizeof legend[0], "-10 timeout (--time-limit)");
  lsim_compare_w_str(o, "/status_legend", legend[0], sizeof legend[0], 14);
}

void lsim_compare_write_failed(char *msg, size_t msglen, const char *path, const char *what) {
  char why[512] = "";
  lsim_h5_error_detail(why, sizeof why);
  if (why[0]) snprintf(msg, msglen, "%s: %s (%s)", path, what, why);
  else snprintf(msg, msglen, "%s: %s", path, what);
}
