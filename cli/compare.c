/* compare.c: `lcpsim compare`: complementarity solvers compared on identical problems.
 *
 * Three modes (docs/solvers.md "Comparing solvers", docs/output-format.md "Compare files"):
 *   shadow       one reference solver drives the trajectory; every step's LCP is handed,
 *                bit for bit, to every solver twice: cold started and warm started from the
 *                driver's guess. Series: "SPEC (cold)", "SPEC (warm)" per solver.
 *   independent  every solver runs its own trajectory from the same initial state; the
 *                state difference against the reference solver's trajectory is recorded.
 *                Series: one per solver.
 *   lcp set      the arguments are Siconos .dat files: every solver, cold, on every file
 *                (no time stepping). Series: one per solver; problem k is file k.
 * Scenes: every solver gets the step's LCP in the factored form the step builds (M = J B +
 * C, lcp/factored.h) through lsim_solver_solve_factored; hashes (lsim_factored_hash) and
 * quality measures (lsim_factored_quality) are computed on that form, so M is formed only
 * inside the contexts of solvers that need it (all but "pgs"), and those are skipped,
 * recorded as skipped (status COMPARE_SKIPPED), on steps with n > --dense-limit. Dumps
 * (--dump-lcp) are dense: a step above the limit stops the run (exit 2). LCP sets are dense
 * problems: dense hash and measures, no limit.
 * Per problem and series: status, success (the common relative residual below
 * --success-tol), iterations, wall time, the quality measures of lcp/quality.h, the
 * problem hash, the distance to the reference solution. One HDF5 file, written under
 * FILE.partial and renamed when complete; a Markdown (or CSV) summary on stdout.
 *
 * Solver specs: NAME or NAME[key=value,...] with keys tol, max_iter, sweeps (= max_iter
 * with tol 0: a fixed number of sweeps), omega, warm (independent mode: 0/1). The list
 * is split at commas outside brackets.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "contact/step.h"
#include "contact/world.h"
#include "lcp/datfile.h"
#include "lcp/pgs.h"
#include "lcp/quality.h"
#include "lcp/solver.h"
#include "scene/lcpdump.h"
#include "scene/scene.h"

#define COMPARE_FORMAT_VERSION 1
#define MAX_SOLVERS 64
#define MAX_COLUMNS (2 * (MAX_SOLVERS + 1) + 1) /* series (cold, warm) + the driver */

static void compare_usage(FILE *f) {
  fprintf(f,
          "usage: lcpsim compare SCENE.json --solvers LIST [--mode shadow|independent]\n"
          "                      [--reference SPEC] [-o FILE] [--csv] [--steps N]\n"
          "                      [--success-tol X] [--dense-limit N] [--dump-lcp] [--quiet]\n"
          "       lcpsim compare FILE.dat... --solvers LIST [-o FILE] [--csv]\n"
          "                      [--success-tol X] [--dump-lcp]\n"
          "  Compares LCP solvers on identical problems; writes one HDF5 file\n"
          "  (docs/output-format.md, 'Compare files') and prints a Markdown summary.\n"
          "  --solvers LIST     comma-separated solver specs: NAME or NAME[key=value,...],\n"
          "                     keys tol, max_iter, sweeps (max_iter with tol 0), omega, threads,\n"
          "                     warm (0/1, independent mode), e.g.\n"
          "                     'lemke,pgs[sweeps=20],pgs[max_iter=500,omega=1.2],siconos:lemke'\n"
          "                     (quote the list: brackets are shell patterns)\n"
          "  --mode MODE        shadow (default): the reference drives, every solver solves\n"
          "                     each step's LCP cold and warm; independent: one trajectory\n"
          "                     per solver\n"
          "  --reference SPEC   the reference solver (default: the first of the list; added\n"
          "                     to the list if absent)\n"
          "  -o, --output FILE  output (default: SCENE_compare.h5 / lcpset_compare.h5 here)\n"
          "  --csv              summary as CSV instead of Markdown\n"
          "  --steps N          override the scene's number of steps\n"
          "  --success-tol X    success = relative natural residual <= X (default 1e-6)\n"
          "  --dense-limit N    scenes: solvers get each step's LCP in factored form (M = J B\n"
          "                     + C); those that need a dense M (all but pgs) are skipped on\n"
          "                     steps with n > N, recorded as skipped (default 4000)\n"
          "  --dump-lcp         store every LCP, warm start and solution in the file (/lcp);\n"
          "                     dumps are dense: a step with n > --dense-limit stops the run\n"
          "  --quiet            no summary on stdout\n"
          "Exit status: 0 done (solver failures are results, recorded in the file), 2 bad\n"
          "input (no file is written).\n");
}

/* ---- solver specs ---- */

typedef struct Spec {
  char label[96];           /* the spec as written, e.g. "pgs[sweeps=20]" */
  char name[48];            /* lcp/solver.h name */
  LsimSolverOptions opt;
  int warm;                 /* independent mode: -1 = the scene's setting, else 0/1 */
  int dense;                /* 1: the solver needs the dense M (every solver but "pgs",
                               which runs on the factored form) */
} Spec;

/* Parses one spec text[0..len) into s. 0, or -1 with a message in err. */
static int parse_spec(const char *text, size_t len, Spec *s, char *err, size_t errlen) {
  memset(s, 0, sizeof *s);
  s->opt = lsim_default_solver_options();
  s->warm = -1;
  if (len == 0 || len >= sizeof s->label) {
    snprintf(err, errlen, "empty or too long solver spec in the list");
    return -1;
  }
  memcpy(s->label, text, len);
  const char *open = memchr(text, '[', len);
  const size_t nlen = open ? (size_t)(open - text) : len;
  if (nlen == 0 || nlen >= sizeof s->name || memchr(text, ']', nlen)) {
    snprintf(err, errlen, "malformed solver spec '%s'", s->label);
    return -1;
  }
  memcpy(s->name, text, nlen);
  s->dense = strcmp(s->name, "pgs") != 0;
  if (!open) return 0;
  if (text[len - 1] != ']' || len - nlen < 2) {
    snprintf(err, errlen, "malformed solver spec '%s': options go in NAME[key=value,...]",
             s->label);
    return -1;
  }

  /* Options: key=value pairs between the brackets. */
  char opts[96];
  snprintf(opts, sizeof opts, "%.*s", (int)(len - nlen - 2), open + 1);
  if (!opts[0]) return 0;
  char *save = NULL;
  for (char *kv = strtok_r(opts, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(kv, '=');
    if (!eq || eq == kv || !eq[1] || strchr(kv, '[') || strchr(kv, ']')) {
      snprintf(err, errlen, "malformed solver spec '%s': '%s' is not key=value", s->label, kv);
      return -1;
    }
    *eq = '\0';
    const char *key = kv, *val = eq + 1;
    int iv;
    double dv;
    if (!strcmp(key, "tol") && !lsim_cli_parse_double(val, &dv) && dv >= 0.0) {
      s->opt.tol = dv;
    } else if ((!strcmp(key, "max_iter") || !strcmp(key, "sweeps")) &&
               !lsim_cli_parse_int(val, &iv) && iv >= 0) {
      s->opt.max_iter = iv;
      if (!strcmp(key, "sweeps")) s->opt.tol = 0.0;
    } else if (!strcmp(key, "omega") && !lsim_cli_parse_double(val, &dv) && dv > 0.0 &&
               dv < 2.0) {
      s->opt.omega = dv;
    } else if (!strcmp(key, "warm") && !lsim_cli_parse_int(val, &iv) && (iv == 0 || iv == 1)) {
      s->warm = iv;
    } else if (!strcmp(key, "threads") && !lsim_cli_parse_int(val, &iv) && iv >= 1 &&
               iv <= LSIM_PGS_MAX_THREADS) {
      s->opt.threads = iv;
    } else if (strcmp(key, "tol") && strcmp(key, "max_iter") && strcmp(key, "sweeps") &&
               strcmp(key, "omega") && strcmp(key, "warm") && strcmp(key, "threads")) {
      snprintf(err, errlen,
               "solver spec '%s': unknown option '%s' (tol, max_iter, sweeps, omega, warm, "
               "threads)",
               s->label, key);
      return -1;
    } else {
      snprintf(err, errlen, "solver spec '%s': bad value '%s' for %s", s->label, val, key);
      return -1;
    }
  }
  return 0;
}

/* Splits list at commas outside brackets into specs[*count]. 0 or -1 with err. */
static int parse_list(const char *list, Spec *specs, int *count, char *err, size_t errlen) {
  *count = 0;
  const char *start = list;
  int depth = 0;
  for (const char *p = list;; ++p) {
    if (*p == '[') ++depth;
    else if (*p == ']' && --depth < 0) break;
    if ((*p == ',' && depth == 0) || *p == '\0') {
      if (*count >= MAX_SOLVERS) {
        snprintf(err, errlen, "more than %d solvers", MAX_SOLVERS);
        return -1;
      }
      if (parse_spec(start, (size_t)(p - start), &specs[*count], err, errlen)) return -1;
      for (int j = 0; j < *count; ++j)
        if (!strcmp(specs[j].label, specs[*count].label)) {
          snprintf(err, errlen, "solver '%.95s' is listed twice", specs[j].label);
          return -1;
        }
      ++*count;
      if (*p == '\0') break;
      start = p + 1;
    }
  }
  if (depth != 0) {
    snprintf(err, errlen, "unbalanced brackets in the solver list '%s'", list);
    return -1;
  }
  return 0;
}

/* ---- per-problem, per-series results ---- */

typedef struct Table {
  int N, P;                 /* problems (steps or files), series */
  int *status, *success, *iters, *warm, *size, *nsliding, *skipped;  /* [N * P] */
  uint64_t *hash;
  double *wall, *res, *rel, *compl_, *sig, *cone, *diss, *dist, *sicerr;
  double *qdiff, *vdiff;    /* independent mode: state difference to the reference */
  double *ekin, *epot;      /* independent mode: [(N + 1) * P] */
  int *step;                /* [N] */
  double *time;             /* [N] */
  uint64_t *problem_hash;   /* [N] hash of the step's (reference) problem */
  uint64_t *problem_dense_hash; /* [N] lsim_lcp_hash of its dense form, 0 when none formed */
  int *problem_size;        /* [N] */
} Table;

static int table_alloc(Table *t, int N, int P) {
  memset(t, 0, sizeof *t);
  t->N = N;
  t->P = P;
  const size_t np = (size_t)N * P + 1, np1 = (size_t)(N + 1) * P + 1;
  int **ints[] = {&t->status, &t->success, &t->iters, &t->warm, &t->size, &t->nsliding,
                  &t->skipped};
  for (size_t k = 0; k < sizeof ints / sizeof *ints; ++k)
    if (!(*ints[k] = calloc(np, sizeof(int)))) return -1;
  double **dbl[] = {&t->wall, &t->res, &t->rel, &t->compl_, &t->sig, &t->cone,
                    &t->diss, &t->dist, &t->sicerr, &t->qdiff, &t->vdiff};
  for (size_t k = 0; k < sizeof dbl / sizeof *dbl; ++k) {
    if (!(*dbl[k] = calloc(np, sizeof(double)))) return -1;
    for (size_t i = 0; i < np; ++i) (*dbl[k])[i] = NAN;
  }
  t->hash = calloc(np, sizeof(uint64_t));
  t->ekin = calloc(np1, sizeof(double));
  t->epot = calloc(np1, sizeof(double));
  t->step = calloc((size_t)N + 1, sizeof(int));
  t->time = calloc((size_t)N + 1, sizeof(double));
  t->problem_hash = calloc((size_t)N + 1, sizeof(uint64_t));
  t->problem_size = calloc((size_t)N + 1, sizeof(int));
  t->problem_dense_hash = calloc((size_t)N + 1, sizeof(uint64_t));
  if (!t->hash || !t->ekin || !t->epot || !t->step || !t->time || !t->problem_hash ||
      !t->problem_size || !t->problem_dense_hash)
    return -1;
  for (size_t i = 0; i < np1; ++i) t->ekin[i] = t->epot[i] = NAN;
  return 0;
}

static void table_free(Table *t) {
  void *all[] = {t->status, t->success, t->iters, t->warm, t->size, t->nsliding, t->hash,
                 t->wall,   t->res,     t->rel,   t->compl_, t->sig, t->cone,  t->diss,
                 t->dist,   t->sicerr,  t->qdiff, t->vdiff, t->ekin, t->epot,  t->step,
                 t->time,   t->problem_hash, t->problem_size, t->skipped,
                 t->problem_dense_hash};
  for (size_t k = 0; k < sizeof all / sizeof *all; ++k) free(all[k]);
  memset(t, 0, sizeof *t);
}

/* Scratch shared by the solves: the quality workspace. */
typedef struct Scratch {
  double *work;
  int cap;
} Scratch;

static int scratch_grow(Scratch *s, int n) {
  if (n <= s->cap) return 0;
  double *w = realloc(s->work, ((size_t)n + 2) * sizeof(double));
  if (!w) return -1;
  s->work = w;
  s->cap = n;
  return 0;
}

/* Records one solve of problem k by series s: its stats, the quality of z, the hash. The
 * problem is the dense lcp, or (lcp NULL) the factored f, whose quality measures are then
 * computed on the factored form (lsim_factored_quality: M is never formed). */
static int record_solve(Table *t, Scratch *sc, int k, int s, const LsimLcp *lcp,
                        const LsimFactoredLcp *f, const double *z, const LsimSolveStats *st,
                        uint64_t hash, const double *zref, double success_tol) {
  const size_t i = (size_t)k * t->P + s;
  const int n = lcp ? lcp->n : f->n;
  if (scratch_grow(sc, 2 * n + (lcp ? 0 : f->m))) return -1;
  LsimQuality qm;
  if (lcp) lsim_lcp_quality(lcp, z, sc->work, -1.0, &qm);
  else lsim_factored_quality(f, z, sc->work, -1.0, &qm);
  t->status[i] = st->status;
  t->iters[i] = st->iterations;
  t->warm[i] = st->warm_started;
  t->size[i] = n;
  t->nsliding[i] = qm.nsliding;
  t->hash[i] = hash;
  t->wall[i] = st->wall_time;
  t->res[i] = qm.residual.natural;
  t->rel[i] = qm.residual.relative;
  t->compl_[i] = qm.residual.complementarity;
  t->sig[i] = qm.signorini;
  t->cone[i] = qm.cone;
  t->diss[i] = qm.dissipation;
  t->sicerr[i] = st->siconos_error;
  t->dist[i] = zref ? lsim_quality_distance(n, z, zref) : NAN;
  t->success[i] = isfinite(qm.residual.relative) && qm.residual.relative <= success_tol;
  return 0;
}

/* A step without an LCP: solved, trivially, by every series. */
static void record_empty(Table *t, int k, int s) {
  const size_t i = (size_t)k * t->P + s;
  t->status[i] = LSIM_SOLVED;
  t->success[i] = 1;
  t->iters[i] = t->warm[i] = t->size[i] = t->nsliding[i] = 0;
  t->hash[i] = 0;
  t->wall[i] = t->res[i] = t->rel[i] = t->compl_[i] = t->sig[i] = t->cone[i] = t->diss[i] = 0.0;
  t->dist[i] = 0.0;
  t->sicerr[i] = 0.0;
}

/* Status recorded for a solve that was not run: a dense solver on a problem above
 * --dense-limit (positive, so it is not a failure; /status_legend names it). */
#define COMPARE_SKIPPED 2
#define SKIPPED_TEXT "skipped (n too large for a dense solver)"

/* A solve not run: skipped[i] = 1, status COMPARE_SKIPPED, no success, lcp_size 0 (no
 * problem was handed to the solver; /problem_size has n), hash 0, measures NaN. */
static void record_skipped(Table *t, int k, int s) {
  const size_t i = (size_t)k * t->P + s;
  t->status[i] = COMPARE_SKIPPED;
  t->skipped[i] = 1;
  t->success[i] = t->iters[i] = t->warm[i] = t->size[i] = t->nsliding[i] = 0;
  t->hash[i] = 0;
  t->wall[i] = t->res[i] = t->rel[i] = t->compl_[i] = t->sig[i] = t->cone[i] = t->diss[i] = NAN;
  t->dist[i] = t->sicerr[i] = NAN;
}

/* ---- summary ---- */

typedef struct Summary {
  int problems, successes, failures, skipped;
  double success_rate;
  double median_wall, worst_wall, median_iters, median_rel, worst_rel, max_dist, max_qdiff;
  int max_iters;
} Summary;

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  if (isnan(x) || isnan(y)) return isnan(x) - isnan(y);
  return (x > y) - (x < y);
}

/* Median of v[0..n) (sorted in place); NaN when n = 0. */
static double median(double *v, int n) {
  if (n == 0) return NAN;
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* max that propagates NaN as "worst" only when all are NaN. */
static double maxf(double a, double b) { return isnan(a) ? b : isnan(b) ? a : fmax(a, b); }

/* Summary of series s over the problems with an LCP (size > 0). */
static void summarize(const Table *t, int s, double *buf, Summary *out) {
  memset(out, 0, sizeof *out);
  out->median_wall = out->worst_wall = out->median_iters = out->median_rel = NAN;
  out->worst_rel = out->max_dist = out->max_qdiff = NAN;
  int m = 0;
  for (int k = 0; k < t->N; ++k) {
    const size_t i = (size_t)k * t->P + s;
    out->max_qdiff = maxf(out->max_qdiff, t->qdiff[i]);
    out->skipped += t->skipped[i];
    if (t->size[i] <= 0) continue;
    ++out->problems;
    out->successes += t->success[i];
    out->failures += t->status[i] < 0;
    out->worst_wall = maxf(out->worst_wall, t->wall[i]);
    out->worst_rel = maxf(out->worst_rel, t->rel[i]);
    out->max_dist = maxf(out->max_dist, t->dist[i]);
    if (t->iters[i] > out->max_iters) out->max_iters = t->iters[i];
    buf[m++] = t->wall[i];
  }
  out->success_rate = out->problems ? (double)out->successes / out->problems : NAN;
  out->median_wall = median(buf, m);
  m = 0;
  for (int k = 0; k < t->N; ++k)
    if (t->size[(size_t)k * t->P + s] > 0) buf[m++] = t->iters[(size_t)k * t->P + s];
  out->median_iters = median(buf, m);
  m = 0;
  for (int k = 0; k < t->N; ++k)
    if (t->size[(size_t)k * t->P + s] > 0) buf[m++] = t->rel[(size_t)k * t->P + s];
  out->median_rel = median(buf, m);
}

/* Prints v with fmt, or "-" when it is NaN. */
static void put(FILE *f, const char *fmt, double v) {
  if (isnan(v)) fputs("-", f);
  else fprintf(f, fmt, v);
}

static void print_summary(FILE *f, const Table *t, const Summary *sm, char (*labels)[128],
                          int mode_independent, int csv, const char *title) {
  const char *last = mode_independent ? "max q divergence" : "max distance to reference";
  if (csv) {
    fprintf(f, "series,problems,success_rate,failures,skipped,median_time_us,worst_time_us,"
               "median_iterations,max_iterations,median_rel_residual,worst_rel_residual,%s\n",
            mode_independent ? "max_q_divergence" : "max_distance_to_reference");
  } else {
    fprintf(f, "%s\n\n", title);
    fprintf(f, "| solver | problems | success | failures | skipped | median time [us] | worst time [us] "
               "| median iter. | max iter. | median rel. residual | worst rel. residual | %s |\n",
            last);
    fprintf(f, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  }
  const char *sep = csv ? "," : " | ";
  for (int s = 0; s < t->P; ++s) {
    const Summary *x = &sm[s];
    if (csv) fprintf(f, "\"%s\"", labels[s]);
    else fprintf(f, "| %s", labels[s]);
    fprintf(f, "%s%d%s", sep, x->problems, sep);
    if (csv) put(f, "%.6g", x->success_rate);
    else put(f, "%.1f%%", 100.0 * x->success_rate);
    fprintf(f, "%s%d%s%d%s", sep, x->failures, sep, x->skipped, sep);
    put(f, "%.3g", 1e6 * x->median_wall);
    fputs(sep, f);
    put(f, "%.3g", 1e6 * x->worst_wall);
    fputs(sep, f);
    put(f, "%.4g", x->median_iters);
    fprintf(f, "%s%d%s", sep, x->max_iters, sep);
    put(f, "%.2e", x->median_rel);
    fputs(sep, f);
    put(f, "%.2e", x->worst_rel);
    fputs(sep, f);
    put(f, "%.2e", mode_independent ? x->max_qdiff : x->max_dist);
    fputs(csv ? "\n" : " |\n", f);
  }
}

/* ---- the file ---- */

typedef struct Out {
  int64_t file;
  int rc;
} Out;

static void w_arr(Out *o, const char *name, LsimH5Type type, int rank, uint64_t d0, uint64_t d1,
                  const void *data) {
  if (o->rc) return;
  uint64_t dims[2] = {d0, d1};
  o->rc = lsim_h5_write(o->file, name, type, rank, dims, data);
}
static void w_int(Out *o, const char *name, int v) { w_arr(o, name, LSIM_H5_I32, 0, 0, 0, &v); }
static void w_dbl(Out *o, const char *name, double v) { w_arr(o, name, LSIM_H5_F64, 0, 0, 0, &v); }
static void w_str(Out *o, const char *name, const char *first, size_t stride, int count) {
  if (!o->rc) o->rc = lsim_h5_write_strings(o->file, name, first, stride, count);
}

/* Writes the tables, the solver and series descriptions and the summary. */
static void write_results(Out *o, const Table *t, const Summary *sm, const Spec *specs,
                          int nspecs, char (*labels)[128], const int *ser_solver,
                          char (*ser_start)[8], int reference_series, int independent) {
  const uint64_t N = (uint64_t)t->N, P = (uint64_t)t->P, S = (uint64_t)nspecs;
  w_arr(o, "/step", LSIM_H5_I32, 1, N, 0, t->step);
  w_arr(o, "/time", LSIM_H5_F64, 1, N, 0, t->time);
  w_arr(o, "/problem_hash", LSIM_H5_U64, 1, N, 0, t->problem_hash);
  w_arr(o, "/problem_size", LSIM_H5_I32, 1, N, 0, t->problem_size);
  w_arr(o, "/problem_dense_hash", LSIM_H5_U64, 1, N, 0, t->problem_dense_hash);

  /* Solvers and series. */
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
  w_str(o, "/solvers/spec", speclabels[0], sizeof speclabels[0], nspecs);
  w_str(o, "/solvers/name", names[0], sizeof names[0], nspecs);
  w_arr(o, "/solvers/tol", LSIM_H5_F64, 1, S, 0, tol);
  w_arr(o, "/solvers/max_iter", LSIM_H5_I32, 1, S, 0, maxit);
  w_arr(o, "/solvers/omega", LSIM_H5_F64, 1, S, 0, omega);
  w_arr(o, "/solvers/warm_start", LSIM_H5_I32, 1, S, 0, warm);
  w_arr(o, "/solvers/threads", LSIM_H5_I32, 1, S, 0, threads);
  free(threads);
  free(names);
  free(speclabels);
  free(tol);
  free(omega);
  free(maxit);
  free(warm);
  w_str(o, "/series/label", labels[0], sizeof labels[0], t->P);
  w_arr(o, "/series/solver", LSIM_H5_I32, 1, P, 0, ser_solver);
  w_str(o, "/series/start", ser_start[0], sizeof ser_start[0], t->P);
  int *isref = calloc(P + 1, sizeof(int));
  if (!isref) o->rc = o->rc ? o->rc : -1;
  else if (reference_series >= 0) isref[reference_series] = 1;
  w_arr(o, "/series/is_reference", LSIM_H5_I32, 1, P, 0, isref);
  free(isref);

  /* Per problem and series. */
  w_arr(o, "/results/status", LSIM_H5_I32, 2, N, P, t->status);
  w_arr(o, "/results/success", LSIM_H5_I32, 2, N, P, t->success);
  w_arr(o, "/results/iterations", LSIM_H5_I32, 2, N, P, t->iters);
  w_arr(o, "/results/warm_started", LSIM_H5_I32, 2, N, P, t->warm);
  w_arr(o, "/results/lcp_size", LSIM_H5_I32, 2, N, P, t->size);
  w_arr(o, "/results/sliding_contacts", LSIM_H5_I32, 2, N, P, t->nsliding);
  w_arr(o, "/results/skipped", LSIM_H5_I32, 2, N, P, t->skipped);
  w_arr(o, "/results/hash", LSIM_H5_U64, 2, N, P, t->hash);
  w_arr(o, "/results/wall_time", LSIM_H5_F64, 2, N, P, t->wall);
  w_arr(o, "/results/residual", LSIM_H5_F64, 2, N, P, t->res);
  w_arr(o, "/results/relative_residual", LSIM_H5_F64, 2, N, P, t->rel);
  w_arr(o, "/results/complementarity", LSIM_H5_F64, 2, N, P, t->compl_);
  w_arr(o, "/results/signorini", LSIM_H5_F64, 2, N, P, t->sig);
  w_arr(o, "/results/cone", LSIM_H5_F64, 2, N, P, t->cone);
  w_arr(o, "/results/dissipation", LSIM_H5_F64, 2, N, P, t->diss);
  w_arr(o, "/results/distance", LSIM_H5_F64, 2, N, P, t->dist);
  w_arr(o, "/results/siconos_error", LSIM_H5_F64, 2, N, P, t->sicerr);
  if (independent) {
    w_arr(o, "/divergence/q", LSIM_H5_F64, 2, N, P, t->qdiff);
    w_arr(o, "/divergence/v", LSIM_H5_F64, 2, N, P, t->vdiff);
    w_arr(o, "/energy/kinetic", LSIM_H5_F64, 2, N + 1, P, t->ekin);
    w_arr(o, "/energy/potential", LSIM_H5_F64, 2, N + 1, P, t->epot);
  }

  /* Summary per series. */
  double *v[9];
  int *iv[5];
  for (int j = 0; j < 9; ++j) v[j] = calloc(P + 1, sizeof(double));
  for (int j = 0; j < 5; ++j) iv[j] = calloc(P + 1, sizeof(int));
  int ok = 1;
  for (int j = 0; j < 9; ++j) ok = ok && v[j];
  for (int j = 0; j < 5; ++j) ok = ok && iv[j];
  if (!ok) o->rc = o->rc ? o->rc : -1;
  for (uint64_t s = 0; ok && s < P; ++s) {
    iv[0][s] = sm[s].problems;
    iv[1][s] = sm[s].successes;
    iv[2][s] = sm[s].failures;
    iv[3][s] = sm[s].max_iters;
    iv[4][s] = sm[s].skipped;
    v[0][s] = sm[s].success_rate;
    v[1][s] = sm[s].median_wall;
    v[2][s] = sm[s].worst_wall;
    v[3][s] = sm[s].median_iters;
    v[4][s] = sm[s].median_rel;
    v[5][s] = sm[s].worst_rel;
    v[6][s] = sm[s].max_dist;
    v[7][s] = sm[s].max_qdiff;
  }
  w_arr(o, "/summary/problems", LSIM_H5_I32, 1, P, 0, iv[0]);
  w_arr(o, "/summary/successes", LSIM_H5_I32, 1, P, 0, iv[1]);
  w_arr(o, "/summary/failures", LSIM_H5_I32, 1, P, 0, iv[2]);
  w_arr(o, "/summary/max_iterations", LSIM_H5_I32, 1, P, 0, iv[3]);
  w_arr(o, "/summary/skipped", LSIM_H5_I32, 1, P, 0, iv[4]);
  w_arr(o, "/summary/success_rate", LSIM_H5_F64, 1, P, 0, v[0]);
  w_arr(o, "/summary/median_wall_time", LSIM_H5_F64, 1, P, 0, v[1]);
  w_arr(o, "/summary/worst_wall_time", LSIM_H5_F64, 1, P, 0, v[2]);
  w_arr(o, "/summary/median_iterations", LSIM_H5_F64, 1, P, 0, v[3]);
  w_arr(o, "/summary/median_relative_residual", LSIM_H5_F64, 1, P, 0, v[4]);
  w_arr(o, "/summary/worst_relative_residual", LSIM_H5_F64, 1, P, 0, v[5]);
  w_arr(o, "/summary/max_distance", LSIM_H5_F64, 1, P, 0, v[6]);
  if (independent) w_arr(o, "/summary/max_q_divergence", LSIM_H5_F64, 1, P, 0, v[7]);
  for (int j = 0; j < 9; ++j) free(v[j]);
  for (int j = 0; j < 5; ++j) free(iv[j]);
}

/* The status legend "code name" for -9..1, as in run files, then the compare-only
 * COMPARE_SKIPPED. */
static void write_legend(Out *o) {
  char legend[12][64];
  for (int c = -9; c <= 1; ++c) snprintf(legend[c + 9], sizeof legend[0], "%d %s", c, lsim_status_name(c));
  snprintf(legend[11], sizeof legend[0], "%d %s", COMPARE_SKIPPED, SKIPPED_TEXT);
  w_str(o, "/status_legend", legend[0], sizeof legend[0], 12);
}

/* ---- helpers ---- */

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int ends_with(const char *s, const char *suffix) {
  const size_t a = strlen(s), b = strlen(suffix);
  return a >= b && !strcmp(s + a - b, suffix);
}

/* Default output: SCENE's base name + "_compare.h5" in the current folder. */
static void default_output(const char *scene, char *buf, size_t len) {
  const char *base = strrchr(scene, '/');
  base = base ? base + 1 : scene;
  size_t n = strlen(base);
  if (ends_with(base, ".json")) n -= 5;
  snprintf(buf, len, "%.*s_compare.h5", (int)n, base);
}

/* A solver context for spec with warm start on or off; 0 or -1 with err. */
static int make_solver(LsimSolver **out, const Spec *sp, int warm, char *err, size_t errlen) {
  LsimSolverOptions o = sp->opt;
  o.warm_start = warm;
  char e[256];
  if (lsim_solver_create(out, sp->name, &o, e, sizeof e)) {
    snprintf(err, errlen, "solver '%s': %s", sp->label, e);
    return -1;
  }
  return 0;
}

/* Grows a double buffer to n entries. */
static int grow_d(double **p, int *cap, int n) {
  if (n <= *cap) return 0;
  double *q = realloc(*p, ((size_t)n + 1) * sizeof(double));
  if (!q) return -1;
  *p = q;
  *cap = n;
  return 0;
}

/* A private copy of a factored problem: its index arrays in one int buffer, its values in
 * one double buffer, its cones; f points into them. Two copies of the same problem have the
 * same layout, so they compare with memcmp. */
typedef struct FCopy {
  LsimFactoredLcp f;
  int *ib;
  double *db;
  LsimConeBlock *cb;
  size_t icap, dcap, ccap, ni, nd, nc;
} FCopy;

static void fcopy_free(FCopy *c) {
  free(c->ib), free(c->db), free(c->cb);
  memset(c, 0, sizeof *c);
}

/* dst = a deep copy of src (structurally sound, as the step builds it). 0 or -1 (memory). */
static int fcopy_set(FCopy *dst, const LsimFactoredLcp *src) {
  const int n = src->n;
  const size_t nj = n > 0 ? (size_t)src->J_ptr[n] : 0, nb = n > 0 ? (size_t)src->B_ptr[n] : 0;
  const size_t nc = src->C_ptr && n > 0 ? (size_t)src->C_ptr[n] : 0;
  const size_t ni = 2 * ((size_t)n + 1) + nj + nb + (src->C_ptr ? (size_t)n + 1 + nc : 0);
  const size_t nd = nj + nb + nc + (size_t)n, ncones = (size_t)(src->ncones > 0 ? src->ncones : 0);
  if (ni > dst->icap) {
    int *p = realloc(dst->ib, ni * sizeof(int));
    if (!p) return -1;
    dst->ib = p, dst->icap = ni;
  }
  if (nd + 1 > dst->dcap) {
    double *p = realloc(dst->db, (nd + 1) * sizeof(double));
    if (!p) return -1;
    dst->db = p, dst->dcap = nd + 1;
  }
  if (ncones + 1 > dst->ccap) {
    LsimConeBlock *p = realloc(dst->cb, (ncones + 1) * sizeof(LsimConeBlock));
    if (!p) return -1;
    dst->cb = p, dst->ccap = ncones + 1;
  }
  int *ip = dst->ib;
  double *dp = dst->db;
  LsimFactoredLcp *f = &dst->f;
  memset(f, 0, sizeof *f);
  f->n = n, f->m = src->m;
#define TAKE_I(field, count)                                                      \
  do {                                                                            \
    if (count) memcpy(ip, src->field, (count) * sizeof(int));                     \
    f->field = ip, ip += (count);                                                 \
  } while (0)
#define TAKE_D(field, count)                                                      \
  do {                                                                            \
    if (count) memcpy(dp, src->field, (count) * sizeof(double));                  \
    f->field = dp, dp += (count);                                                 \
  } while (0)
  if (n > 0) {
    TAKE_I(J_ptr, (size_t)n + 1);
    TAKE_I(J_idx, nj);
    TAKE_I(B_ptr, (size_t)n + 1);
    TAKE_I(B_idx, nb);
    if (src->C_ptr) {
      TAKE_I(C_ptr, (size_t)n + 1);
      TAKE_I(C_idx, nc);
      TAKE_D(C_val, nc);
    }
    TAKE_D(J_val, nj);
    TAKE_D(B_val, nb);
    TAKE_D(q, (size_t)n);
  }
#undef TAKE_I
#undef TAKE_D
  if (ncones) memcpy(dst->cb, src->cones, ncones * sizeof(LsimConeBlock));
  f->ncones = (int)ncones;
  f->cones = ncones ? dst->cb : NULL;
  dst->ni = (size_t)(ip - dst->ib), dst->nd = (size_t)(dp - dst->db), dst->nc = ncones;
  return 0;
}

/* 1 when a and b (copies of the same problem) still hold the same bytes. */
static int fcopy_same(const FCopy *a, const FCopy *b) {
  return a->ni == b->ni && a->nd == b->nd && a->nc == b->nc &&
         !memcmp(a->ib, b->ib, a->ni * sizeof(int)) &&
         !memcmp(a->db, b->db, a->nd * sizeof(double)) &&
         !memcmp(a->cb, b->cb, a->nc * sizeof(LsimConeBlock));
}

/* ---- the command ---- */

int lsim_cli_compare(int argc, char **argv) {
  const char *out_path = NULL, *list = NULL, *ref_text = NULL, *mode_text = "shadow";
  const char *inputs[4096];
  int ninputs = 0, csv = 0, quiet = 0, dump = 0, steps_override = -1, dense_limit = 4000;
  double success_tol = 1e-6;
  char err[1024];

  /* Arguments. */
  for (int i = 0; i < argc; ++i) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      compare_usage(stdout);
      return 0;
    } else if (!strcmp(a, "--csv")) {
      csv = 1;
    } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
      quiet = 1;
    } else if (!strcmp(a, "--dump-lcp")) {
      dump = 1;
    } else if (!strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "--solvers") ||
               !strcmp(a, "--mode") || !strcmp(a, "--reference") || !strcmp(a, "--steps") ||
               !strcmp(a, "--success-tol") || !strcmp(a, "--dense-limit")) {
      if (i + 1 >= argc) {
        fprintf(stderr, "lcpsim compare: %s needs a value\n", a);
        return 2;
      }
      const char *v = argv[++i];
      if (!strcmp(a, "-o") || !strcmp(a, "--output")) out_path = v;
      else if (!strcmp(a, "--solvers")) list = v;
      else if (!strcmp(a, "--mode")) mode_text = v;
      else if (!strcmp(a, "--reference")) ref_text = v;
      else if (!strcmp(a, "--dense-limit")) {
        if (lsim_cli_parse_int(v, &dense_limit) || dense_limit < 0) {
          fprintf(stderr, "lcpsim compare: --dense-limit: need an integer >= 0, got '%s'\n", v);
          return 2;
        }
      } else if (!strcmp(a, "--steps")) {
        if (lsim_cli_parse_int(v, &steps_override) || steps_override < 1) {
          fprintf(stderr, "lcpsim compare: --steps: need an integer >= 1, got '%s'\n", v);
          return 2;
        }
      } else if (lsim_cli_parse_double(v, &success_tol) || !(success_tol >= 0.0)) {
        fprintf(stderr, "lcpsim compare: --success-tol: need a number >= 0, got '%s'\n", v);
        return 2;
      }
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "lcpsim compare: unknown option '%s' (see lcpsim compare --help)\n", a);
      return 2;
    } else if (ninputs < (int)(sizeof inputs / sizeof *inputs)) {
      inputs[ninputs++] = a;
    } else {
      fprintf(stderr, "lcpsim compare: too many input files\n");
      return 2;
    }
  }
  if (!ninputs || !list) {
    if (ninputs && !list) fprintf(stderr, "lcpsim compare: --solvers LIST is required\n");
    else compare_usage(stderr);
    return 2;
  }
  const int lcpset = ends_with(inputs[0], ".dat");
  int independent = 0;
  if (!strcmp(mode_text, "independent")) independent = 1;
  else if (strcmp(mode_text, "shadow")) {
    fprintf(stderr, "lcpsim compare: --mode: shadow or independent, got '%s'\n", mode_text);
    return 2;
  }
  if (lcpset && independent) {
    fprintf(stderr, "lcpsim compare: .dat problems have no trajectory: --mode independent "
                    "needs a scene\n");
    return 2;
  }
  if (!lcpset && ninputs > 1) {
    fprintf(stderr, "lcpsim compare: one scene only, got '%s' and '%s'\n", inputs[0], inputs[1]);
    return 2;
  }
  for (int i = 0; lcpset && i < ninputs; ++i)
    if (!ends_with(inputs[i], ".dat")) {
      fprintf(stderr, "lcpsim compare: '%s': give .dat files or one scene, not both\n", inputs[i]);
      return 2;
    }

  /* Solver list and reference: every solver is created once here to validate it. */
  static Spec specs[MAX_SOLVERS + 1];
  int nspecs = 0;
  if (parse_list(list, specs, &nspecs, err, sizeof err)) {
    fprintf(stderr, "lcpsim compare: --solvers: %s\n", err);
    return 2;
  }
  int ref = 0;
  if (ref_text) {
    ref = -1;
    for (int j = 0; j < nspecs; ++j)
      if (!strcmp(specs[j].label, ref_text)) ref = j;
    if (ref < 0) {
      Spec r;
      if (parse_spec(ref_text, strlen(ref_text), &r, err, sizeof err)) {
        fprintf(stderr, "lcpsim compare: --reference: %s\n", err);
        return 2;
      }
      memmove(specs + 1, specs, (size_t)nspecs * sizeof *specs);
      specs[0] = r;
      ++nspecs;
      ref = 0;
    }
  }
  for (int j = 0; j < nspecs; ++j) {
    LsimSolver *probe = NULL;
    if (make_solver(&probe, &specs[j], 0, err, sizeof err)) {
      fprintf(stderr, "lcpsim compare: %s\n", err);
      return 2;
    }
    lsim_solver_free(probe);
  }

  /* Problems: the scene, or every .dat file (all read now: bad input stops before any
     output). */
  LsimModel model;
  LsimState state0;
  memset(&model, 0, sizeof model);
  memset(&state0, 0, sizeof state0);
  char *scene_text = NULL;
  LsimLcp *dats = NULL;
  int N = 0;
  if (lcpset) {
    dats = calloc((size_t)ninputs, sizeof *dats);
    if (!dats) {
      fprintf(stderr, "lcpsim compare: out of memory\n");
      return 2;
    }
    for (int i = 0; i < ninputs; ++i)
      if (lsim_dat_read(inputs[i], &dats[i], err, sizeof err)) {
        fprintf(stderr, "lcpsim compare: %s\n", err);
        for (int j = 0; j < i; ++j) lsim_lcp_free(&dats[j]);
        free(dats);
        return 2;
      }
    N = ninputs;
  } else {
    LsimSceneError serr;
    if (lsim_scene_load(inputs[0], &model, &state0, &scene_text, &serr)) {
      lsim_scene_error_format(&serr, err, sizeof err);
      fprintf(stderr, "lcpsim compare: %s\n", err);
      return 2;
    }
    if (steps_override > 0) model.steps = steps_override;
    N = model.steps;
  }

  /* Series: shadow: (solver, cold) and (solver, warm); otherwise one per solver. */
  const int P = (!lcpset && !independent) ? 2 * nspecs : nspecs;
  char (*labels)[128] = calloc((size_t)P + 1, sizeof *labels);
  char (*starts)[8] = calloc((size_t)P + 1, sizeof *starts);
  int *ser_solver = calloc((size_t)P + 1, sizeof(int));
  LsimSolver **ctx = calloc((size_t)P + 1, sizeof *ctx);
  LsimStepper **steppers = calloc((size_t)P + 1, sizeof *steppers);
  LsimState *states = calloc((size_t)P + 1, sizeof *states);
  double **zs = calloc((size_t)P + 1, sizeof *zs);
  int *zcap = calloc((size_t)P + 1, sizeof(int));
  double *sumbuf = calloc((size_t)N + 1, sizeof(double));
  Summary *sm = calloc((size_t)P + 1, sizeof *sm);
  Table t;
  memset(&t, 0, sizeof t);
  int exit_code = 0;
  LsimStepper *driver = NULL;
  Scratch sc = {NULL, 0};
  FCopy pristine, work; /* the step's factored problem: kept, and handed to the solvers */
  memset(&pristine, 0, sizeof pristine);
  memset(&work, 0, sizeof work);
  int *stopped = calloc((size_t)P + 1, sizeof(int)); /* independent: trajectory stopped */
  double *zref = NULL;
  int zref_cap = 0;
  int reference_series = -1;
  if (!labels || !starts || !ser_solver || !ctx || !steppers || !states || !zs || !zcap ||
      !sumbuf || !sm || !stopped || table_alloc(&t, N, P)) {
    fprintf(stderr, "lcpsim compare: out of memory\n");
    exit_code = 2;
    goto cleanup;
  }
  for (int j = 0, s = 0; j < nspecs; ++j) {
    const int reps = P == 2 * nspecs ? 2 : 1;
    for (int r = 0; r < reps; ++r, ++s) {
      ser_solver[s] = j;
      if (reps == 2) {
        snprintf(labels[s], sizeof labels[s], "%.95s (%s)", specs[j].label, r ? "warm" : "cold");
        snprintf(starts[s], sizeof starts[s], "%s", r ? "warm" : "cold");
      } else {
        snprintf(labels[s], sizeof labels[s], "%.95s", specs[j].label);
        snprintf(starts[s], sizeof starts[s], "%s", lcpset ? "cold" : "own");
      }
      if (j == ref && (reps == 1 || r == 1)) reference_series = s;
    }
  }

  /* Contexts: solvers (shadow, lcp set) or steppers (independent), and the driver. */
  for (int s = 0; s < P && !exit_code; ++s) {
    const Spec *sp = &specs[ser_solver[s]];
    if (!independent) {
      if (make_solver(&ctx[s], sp, !strcmp(starts[s], "warm"), err, sizeof err)) exit_code = 2;
      continue;
    }
    LsimModel m = model;
    snprintf(m.solver.name, sizeof m.solver.name, "%s", sp->name);
    m.solver.tol = sp->opt.tol;
    m.solver.max_iter = sp->opt.max_iter;
    m.solver.omega = sp->opt.omega;
    m.solver.threads = sp->opt.threads;
    if (sp->warm >= 0) m.solver.warm_start = sp->warm;
    specs[ser_solver[s]].opt.warm_start = m.solver.warm_start;
    if (lsim_stepper_create(&steppers[s], &m, NULL, err, sizeof err) ||
        lsim_state_init(&states[s], &model)) {
      exit_code = 2;
      break;
    }
    memcpy(states[s].q, state0.q, (size_t)model.nq * sizeof(double));
    memcpy(states[s].v, state0.v, (size_t)model.nv * sizeof(double));
    states[s].time = state0.time;
    states[s].step = state0.step;
  }
  if (!exit_code && !lcpset && !independent) {
    LsimModel m = model;
    const Spec *sp = &specs[ref];
    snprintf(m.solver.name, sizeof m.solver.name, "%s", sp->name);
    m.solver.tol = sp->opt.tol;
    m.solver.max_iter = sp->opt.max_iter;
    m.solver.omega = sp->opt.omega;
    m.solver.threads = sp->opt.threads;
    if (sp->warm >= 0) m.solver.warm_start = sp->warm;
    for (int j = 0; j < nspecs; ++j) specs[j].opt.warm_start = -1; /* both, as series */
    specs[ref].opt.warm_start = m.solver.warm_start;
    if (lsim_stepper_create(&driver, &m, NULL, err, sizeof err)) exit_code = 2;
  }
  if (exit_code) {
    fprintf(stderr, "lcpsim compare: %s\n", err);
    goto cleanup;
  }

  /* The output file, under a temporary name. */
  char path[1024], partial[1100];
  if (out_path) snprintf(path, sizeof path, "%s", out_path);
  else if (lcpset) snprintf(path, sizeof path, "lcpset_compare.h5");
  else default_output(inputs[0], path, sizeof path);
  snprintf(partial, sizeof partial, "%s.partial", path);
  Out o = {-1, 0};
  o.file = lsim_h5_create(partial, err, sizeof err);
  if (o.file < 0) {
    fprintf(stderr, "lcpsim compare: %s\n", err);
    exit_code = 2;
    goto cleanup;
  }
  const double t_start = now_seconds();

  /* Header and parameters. */
  const char *mode_name = lcpset ? "lcp_set" : independent ? "independent" : "shadow";
  w_int(&o, "/format_version", COMPARE_FORMAT_VERSION);
  w_str(&o, "/file_kind", "compare", 0, -1);
  w_str(&o, "/lcpsim_version", LSIM_VERSION, 0, -1);
  w_str(&o, "/scene_text", scene_text ? scene_text : "", 0, -1);
  w_str(&o, "/parameters/mode", mode_name, 0, -1);
  w_str(&o, "/parameters/input", inputs[0], 0, -1);
  w_str(&o, "/parameters/reference", specs[ref].label, 0, -1);
  w_int(&o, "/parameters/reference_solver", ref);
  w_int(&o, "/parameters/reference_series", reference_series);
  w_dbl(&o, "/parameters/success_tol", success_tol);
  w_dbl(&o, "/parameters/slide_tol_factor", 1e-8);
  w_int(&o, "/parameters/steps", N);
  w_dbl(&o, "/parameters/time_step", lcpset ? 0.0 : model.time_step);
  w_int(&o, "/parameters/dimension", lcpset ? 0 : model.dimension);
  w_int(&o, "/parameters/nsolvers", nspecs);
  w_int(&o, "/parameters/nseries", P);
  w_int(&o, "/parameters/dump_lcp", dump);
  w_int(&o, "/parameters/dense_limit", lcpset ? -1 : dense_limit);
  /* Which hash /problem_hash and /results/hash hold: scenes hand solvers the factored
     problem (lsim_factored_hash); LCP sets the dense one (lsim_lcp_hash). */
  w_str(&o, "/parameters/hash_form", lcpset ? "dense" : "factored", 0, -1);
  write_legend(&o);
  if (lcpset) {
    char (*pn)[256] = calloc((size_t)N + 1, sizeof *pn);
    if (!pn) o.rc = -1;
    for (int k = 0; pn && k < N; ++k) snprintf(pn[k], sizeof pn[k], "%s", inputs[k]);
    if (pn) w_str(&o, "/problem_name", pn[0], sizeof pn[0], N);
    free(pn);
  }
  LsimLcpDump *dumper = NULL;
  if (!o.rc && dump) {
    const char *dl[MAX_COLUMNS];
    int nd = 0;
    if (independent) dl[nd++] = "own";
    else {
      if (!lcpset) dl[nd++] = "reference";
      for (int s = 0; s < P; ++s) dl[nd++] = labels[s];
    }
    if (lsim_lcpdump_open(&dumper, o.file, "/lcp", nd, dl,
                          independent ? reference_series : 0, err, sizeof err))
      o.rc = -1;
  }
  if (o.rc) {
    fprintf(stderr, "lcpsim compare: %s: cannot write the header\n", partial);
    exit_code = 2;
  }

  /* The problems. */
  for (int k = 0; k < N && !exit_code; ++k) {
    t.step[k] = k + 1;
    if (lcpset) {
      /* Problem k: file k, every series cold, the reference's solution first. */
      const LsimLcp *lcp = &dats[k];
      const int n = lcp->n;
      t.time[k] = 0.0;
      t.problem_hash[k] = t.problem_dense_hash[k] = lsim_lcp_hash(lcp);
      t.problem_size[k] = n;
      if (grow_d(&zref, &zref_cap, n)) goto oom;
      for (int s = 0; s < P; ++s)
        if (grow_d(&zs[s], &zcap[s], n)) goto oom;
      int order[MAX_SOLVERS + 1], no = 0;
      order[no++] = reference_series;
      for (int s = 0; s < P; ++s)
        if (s != reference_series) order[no++] = s;
      for (int oi = 0; oi < no; ++oi) {
        const int s = order[oi];
        LsimSolveStats st;
        memset(&st, 0, sizeof st);
        memset(zs[s], 0, (size_t)n * sizeof(double));
        const uint64_t hs = lsim_lcp_hash(lcp); /* what this solver is handed */
        lsim_solver_solve(ctx[s], lcp, zs[s], &st);
        if (s == reference_series) memcpy(zref, zs[s], (size_t)n * sizeof(double));
        if (record_solve(&t, &sc, k, s, lcp, NULL, zs[s], &st, hs, zref, success_tol))
          goto oom;
      }
      if (dumper) {
        const double *cols[MAX_COLUMNS];
        for (int s = 0; s < P; ++s) cols[s] = zs[s];
        lsim_lcpdump_add(dumper, k + 1, 0, lcp, NULL, cols);
      }
      continue;
    }

    if (independent) {
      /* Every series steps its own trajectory; measures and hashes on the factored form.
         A dense solver's trajectory stops after its first step with n > --dense-limit (the
         size is known only once the step has built its LCP); its later steps are skipped. */
      for (int s = 0; s < P; ++s) {
        if (k == 0) {
          t.ekin[s] = lsim_kinetic_energy(&model, &states[s]);
          t.epot[s] = lsim_potential_energy(&model, &states[s]);
        }
        if (stopped[s]) {
          record_skipped(&t, k, s);
          continue;
        }
        LsimStepStats st;
        const int rc = lsim_step(steppers[s], &model, &states[s], &st);
        if (rc == LSIM_OUT_OF_MEMORY || rc == LSIM_INVALID_INPUT) {
          fprintf(stderr, "lcpsim compare: %s: step %d: %s\n", labels[s], k + 1,
                  lsim_status_name(rc));
          exit_code = 2;
          break;
        }
        const LsimFactoredLcp *fl = lsim_stepper_factored(steppers[s]);
        const double *z = lsim_stepper_solution(steppers[s]);
        t.ekin[(size_t)(k + 1) * P + s] = lsim_kinetic_energy(&model, &states[s]);
        t.epot[(size_t)(k + 1) * P + s] = lsim_potential_energy(&model, &states[s]);
        if (fl->n == 0) {
          record_empty(&t, k, s);
          continue;
        }
        if (fl->n > dense_limit && (dump || (s == reference_series && specs[ref].dense))) {
          fprintf(stderr, "lcpsim compare: %s: step %d: n = %d > --dense-limit %d: %s\n",
                  labels[s], k + 1, fl->n, dense_limit,
                  dump ? "--dump-lcp stores dense problems; drop it or raise --dense-limit"
                       : "the reference needs the dense M; choose a PGS reference "
                         "(--reference 'pgs[...]') or raise --dense-limit");
          exit_code = 2;
          break;
        }
        if (fl->n > dense_limit && specs[ser_solver[s]].dense) stopped[s] = 1;
        LsimSolveStats ss;
        memset(&ss, 0, sizeof ss);
        ss.status = st.status;
        ss.iterations = st.iterations;
        ss.warm_started = st.warm_started;
        ss.wall_time = st.wall_time;
        ss.siconos_error = st.siconos_error;
        if (record_solve(&t, &sc, k, s, NULL, fl, z, &ss, lsim_factored_hash(fl), NULL,
                         success_tol))
          goto oom;
        if (dumper) {
          const LsimLcp *dl = lsim_stepper_lcp(steppers[s]);
          if (!dl) goto oom;
          lsim_lcpdump_add(dumper, k + 1, s, dl, lsim_stepper_warm_guess(steppers[s]), &z);
          if (s == reference_series) t.problem_dense_hash[k] = lsim_lcp_hash(dl);
        }
      }
      if (exit_code) break;
      /* State difference to the reference trajectory (NaN once a trajectory stopped). */
      const LsimState *r = &states[reference_series];
      t.time[k] = r->time;
      t.problem_size[k] = lsim_stepper_factored(steppers[reference_series])->n;
      t.problem_hash[k] = t.hash[(size_t)k * P + reference_series];
      for (int s = 0; s < P; ++s) {
        const int gone = t.skipped[(size_t)k * P + s];
        t.qdiff[(size_t)k * P + s] = gone ? NAN : lsim_quality_distance(model.nq, states[s].q, r->q);
        t.vdiff[(size_t)k * P + s] = gone ? NAN : lsim_quality_distance(model.nv, states[s].v, r->v);
        if (gone) t.ekin[(size_t)(k + 1) * P + s] = t.epot[(size_t)(k + 1) * P + s] = NAN;
      }
      continue;
    }

    /* Shadow: the driver steps; its factored LCP goes, bit for bit, to every series
       through lsim_solver_solve_factored ("pgs" solves it as it is; the others form the
       dense M inside their context, and are skipped when n > --dense-limit). */
    LsimStepStats dst;
    const int rc = lsim_step(driver, &model, &state0, &dst);
    if (rc == LSIM_OUT_OF_MEMORY || rc == LSIM_INVALID_INPUT) {
      fprintf(stderr, "lcpsim compare: reference %s: step %d: %s\n", specs[ref].label, k + 1,
              lsim_status_name(rc));
      exit_code = 2;
      break;
    }
    t.time[k] = state0.time;
    const LsimFactoredLcp *fl = lsim_stepper_factored(driver);
    const int n = fl->n;
    t.problem_size[k] = n;
    if (n == 0) {
      for (int s = 0; s < P; ++s) record_empty(&t, k, s);
      continue;
    }
    if (n > dense_limit && (dump || specs[ref].dense)) {
      fprintf(stderr, "lcpsim compare: step %d: n = %d > --dense-limit %d: %s\n", k + 1, n,
              dense_limit,
              specs[ref].dense ? "the reference drives the trajectory and needs the dense M; "
                                 "choose a PGS reference (--reference 'pgs[...]') or raise "
                                 "--dense-limit"
                               : "--dump-lcp stores dense problems; drop it or raise "
                                 "--dense-limit");
      exit_code = 2;
      break;
    }
    /* A private copy (pristine) and the copy handed to solvers (work). */
    if (fcopy_set(&pristine, fl) || fcopy_set(&work, fl)) goto oom;
    const uint64_t h = lsim_factored_hash(&pristine.f);
    t.problem_hash[k] = h;
    const double *guess = lsim_stepper_warm_guess(driver);
    const double *zd = lsim_stepper_solution(driver);
    for (int s = 0; s < P; ++s) {
      if (grow_d(&zs[s], &zcap[s], n)) goto oom;
      if (n > dense_limit && specs[ser_solver[s]].dense) {
        record_skipped(&t, k, s);
        for (int i = 0; i < n; ++i) zs[s][i] = NAN; /* dumps: not solved */
        continue;
      }
      /* Restore the problem if a previous solver touched it; then its hash is h. */
      uint64_t hs = h;
      if (!fcopy_same(&work, &pristine)) {
        if (fcopy_set(&work, &pristine.f)) goto oom;
        hs = lsim_factored_hash(&work.f);
      }
      if (!strcmp(starts[s], "warm")) memcpy(zs[s], guess, (size_t)n * sizeof(double));
      else memset(zs[s], 0, (size_t)n * sizeof(double));
      LsimSolveStats st;
      memset(&st, 0, sizeof st);
      lsim_solver_solve_factored(ctx[s], &work.f, zs[s], &st);
      if (record_solve(&t, &sc, k, s, NULL, &pristine.f, zs[s], &st, hs, zd, success_tol))
        goto oom;
    }
    if (dumper) {
      /* The dense form (n <= --dense-limit here), as the driver's step formed it. */
      const LsimLcp *dl = lsim_stepper_lcp(driver);
      if (!dl) goto oom;
      t.problem_dense_hash[k] = lsim_lcp_hash(dl);
      const double *cols[MAX_COLUMNS];
      cols[0] = zd;
      for (int s = 0; s < P; ++s) cols[s + 1] = zs[s];
      lsim_lcpdump_add(dumper, k + 1, 0, dl, guess, cols);
    }
    continue;
  oom:
    fprintf(stderr, "lcpsim compare: out of memory\n");
    exit_code = 2;
  }

  /* Results, summary, close and rename. */
  if (!exit_code) {
    for (int s = 0; s < P; ++s) summarize(&t, s, sumbuf, &sm[s]);
    write_results(&o, &t, sm, specs, nspecs, labels, ser_solver, starts, reference_series,
                  independent);
    w_dbl(&o, "/summary/total_wall_time", now_seconds() - t_start);
  }
  if (dumper && lsim_lcpdump_close(dumper, err, sizeof err) && !exit_code) {
    fprintf(stderr, "lcpsim compare: %s: %s\n", partial, err);
    exit_code = 2;
  }
  if (!exit_code && o.rc) {
    fprintf(stderr, "lcpsim compare: %s: cannot write the results\n", partial);
    exit_code = 2;
  }
  if (lsim_h5_close(o.file) && !exit_code) {
    fprintf(stderr, "lcpsim compare: %s: cannot close the file\n", partial);
    exit_code = 2;
  }
  if (!exit_code && rename(partial, path)) {
    fprintf(stderr, "lcpsim compare: cannot rename %s to %s: %s\n", partial, path,
            strerror(errno));
    exit_code = 2;
  }
  if (exit_code) unlink(partial);
  if (!exit_code && !quiet) {
    char title[1400];
    snprintf(title, sizeof title, "%s: %s mode, %d %s, reference %s, success = relative "
             "residual <= %g -> %s", lcpset ? "LCP set" : inputs[0], mode_name, N,
             lcpset ? "problems" : "steps", specs[ref].label, success_tol, path);
    print_summary(stdout, &t, sm, labels, independent, csv, title);
  }

cleanup:
  for (int s = 0; s < P; ++s) {
    if (ctx) lsim_solver_free(ctx[s]);
    if (steppers) lsim_stepper_free(steppers[s]);
    if (states) lsim_state_free(&states[s]);
    if (zs) free(zs[s]);
  }
  lsim_stepper_free(driver);
  fcopy_free(&pristine);
  fcopy_free(&work);
  free(stopped);
  free(zref);
  free(sc.work);
  table_free(&t);
  free(labels);
  free(starts);
  free(ser_solver);
  free(ctx);
  free(steppers);
  free(states);
  free(zs);
  free(zcap);
  free(sumbuf);
  free(sm);
  for (int i = 0; dats && i < N; ++i) lsim_lcp_free(&dats[i]);
  free(dats);
  free(scene_text);
  if (!lcpset) {
    lsim_state_free(&state0);
    lsim_model_free(&model);
  }
  return exit_code;
}
