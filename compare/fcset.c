/* fcset.c: a comparison on a set of frictional contact problems (compare/compare.h, "fc
 * set"): every solver, cold, on every file; exact-cone solvers (nsgs, nsgs_aa,
 * siconos:fc3d_*, siconos:fc2d_*) and LCP solvers on the Stewart-Trinkle polyhedral LCP
 * (spec key d: directions; default 8 in 3-D; in 2-D the cone is the two tangent
 * directions, exact, whatever d says). Every solution is measured by the same exact-cone
 * Coulomb measures (lcp/fc.h), so a polyhedral cone's approximation error is the residual
 * it leaves on the exact problem.
 * Recorded per problem and series: status, success (lsim_compare_is_success at the
 * stated tolerance on the relative natural-map residual), iterations, wall time (from our
 * problem to the reaction for every solver, so Siconos' problem and options and the
 * polyhedral LCP are built inside it as our solvers' setup is; that setup part beside, in
 * /results/setup_wall_time), the
 * natural-map residual (absolute, relative: Siconos' fc3d error), cone and dual-cone
 * violations, complementarity, sliding contacts, Siconos' own error, the problem hash;
 * /results/distance is NaN (reactions are not unique in general: stacks, redundant
 * contacts). A solver made for the other dimension (siconos:fc3d_* on a 2-D problem) is
 * recorded as skipped, status LSIM_COMPARE_WRONG_DIM.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "compare/compare.h"
#include "compare/mpi.h"
#include "compare/output.h"
#include "compare/timed.h"
#include "lcp/fc.h"
#include "lcp/fc_solver.h"
#include "lcp/quality.h"
#include "scene/outfile.h"

/* Status of a solve not run because the solver is for the other dimension. */
#define LSIM_COMPARE_WRONG_DIM 3

/* A hash of the problem: W and q as an LCP view, then mu. */
static uint64_t fc_hash(const LsimFc *p) {
  LsimLcp view;
  memset(&view, 0, sizeof view);
  view.n = p->n;
  view.M = p->W;
  view.q = p->q;
  uint64_t h = lsim_lcp_hash(&view) ^ (uint64_t)p->dim;
  const unsigned char *b = (const unsigned char *)p->mu;
  for (size_t k = 0; k < (size_t)p->nc * sizeof(double); ++k) h = (h ^ b[k]) * 1099511628211ull;
  return h;
}

/* The directions a series uses on problem p: 0 for exact-cone solvers. */
static int series_ndir(const LsimCompareSpec *sp, const LsimFc *p) {
  if (lsim_fc_solver_is_exact(sp->name)) return 0;
  if (p->dim == 2) return 2;
  return sp->ndir > 0 ? sp->ndir : 8;
}

/* One solve as a function of one argument (compare/timed.h). */
typedef struct FcCall {
  LsimFcSolver *solver;
  const LsimFc *p;
  double *r;
  int status;
  LsimFcStats st;
} FcCall;

static void fc_call(void *arg) {
  FcCall *c = arg;
  c->status = lsim_fc_solver_solve(c->solver, c->p, c->r, c->r + c->p->n, &c->st);
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The tables of this mode beside the comparison's (compare/output.h), by rows as those:
 * per problem ([N]) or per problem and series ([N, P]). */
#define FC_ROW_SETS 5
typedef struct FcRowSet {
  const char *name;
  LsimH5Type type;
  int per_series;
} FcRowSet;
static const FcRowSet kFcRows[FC_ROW_SETS] = {
    {"/problem_dimension", LSIM_H5_I32, 0},
    {"/problem_contacts", LSIM_H5_I32, 0},
    {"/results/dual_cone", LSIM_H5_F64, 1},
    {"/results/cone_directions", LSIM_H5_I32, 1},
    {"/results/setup_wall_time", LSIM_H5_F64, 1},
};

/* Creates them (chunks as compare/output.c's: about 64 kB, at least 16 rows), their
 * chunks' bytes added to *chunk_bytes (lsim_compare_room_low). */
static void fc_rows_open(LsimH5Rows **d, LsimCompareOut *o, int P, double *chunk_bytes) {
  for (int i = 0; i < FC_ROW_SETS && !o->rc; ++i) {
    const uint64_t width = kFcRows[i].per_series ? (uint64_t)P : 1;
    const uint64_t chunk = width * 8 >= 4096 ? 16 : 65536 / (width * 8);
    d[i] = lsim_h5_rows_create(o->file, kFcRows[i].name, kFcRows[i].type,
                               kFcRows[i].per_series ? 2 : 1, width, chunk);
    if (!d[i]) o->rc = -1;
    *chunk_bytes += (double)(chunk * width * (kFcRows[i].type == LSIM_H5_I32 ? 4 : 8));
  }
}

/* Appends the rows of problems [have, upto) of data[i] (kFcRows' order; rows up to upto
 * final). */
static void fc_rows_append(LsimH5Rows **d, LsimCompareOut *o, const void *const *data, int P,
                           int upto) {
  for (int i = 0; i < FC_ROW_SETS && !o->rc; ++i) {
    const uint64_t have = lsim_h5_rows_count(d[i]);
    if ((uint64_t)upto <= have) continue;
    const uint64_t width = kFcRows[i].per_series ? (uint64_t)P : 1;
    const size_t esize = kFcRows[i].type == LSIM_H5_I32 ? sizeof(int) : sizeof(double);
    const char *base = data[i];
    if (lsim_h5_rows_append(d[i], base + have * width * esize, (uint64_t)upto - have)) o->rc = -1;
  }
}

int lsim_compare_fc_run(const LsimCompareConfig *cfg, LsimCompareResult *res, char *msg,
                        size_t msglen) {
  const char *const *inputs = cfg->inputs;
  const int N = cfg->ninputs;
  const int repeat = cfg->repeat < 1 ? 1 : cfg->repeat > LSIM_COMPARE_MAX_REPEAT
                                               ? LSIM_COMPARE_MAX_REPEAT : cfg->repeat;
  const LsimCompareNames *nm = &cfg->names;
  char err[1024];
  memset(res, 0, sizeof *res);
  if (msglen) msg[0] = '\0';
  /* The output named now: one of the inputs is refused before anything is read. */
  char path[1024];
  int bad = lsim_compare_output_path(cfg, path, sizeof path, msg, msglen);
  if (bad) return bad;
  if (cfg->independent) {
    snprintf(msg, msglen, "frictional contact problems have no trajectory: %s needs a scene",
             nm->independent);
    return LSIM_INVALID_INPUT;
  }
  if (cfg->reference) {
    /* No distance to a reference is measured here (reactions are not unique in general);
       a reference given was silently ignored (the file named the first solver). */
    snprintf(msg, msglen, "%s: frictional contact sets have no reference (no distance is "
             "measured: reactions are not unique in general); drop it", nm->reference);
    return LSIM_INVALID_INPUT;
  }
  if (cfg->dump_lcp) {
    snprintf(msg, msglen, "%s: frictional contact sets are not dumped (the files are the "
             "problems)", nm->dump_lcp);
    return LSIM_INVALID_INPUT;
  }

  /* Solvers: each spec checked on a problem-free create. */
  LsimCompareSpec *specs = calloc(LSIM_COMPARE_MAX_SOLVERS + 2, sizeof *specs);
  if (!specs) {
    snprintf(msg, msglen, "out of memory");
    return LSIM_OUT_OF_MEMORY;
  }
  int nspecs = 0;
  if (lsim_compare_parse_list(cfg->solvers, specs, &nspecs, err, sizeof err)) {
    snprintf(msg, msglen, "%s: %s", nm->solvers, err);
    free(specs);
    return LSIM_INVALID_INPUT;
  }
  for (int j = 0; j < nspecs; ++j) {
    const int exact = lsim_fc_solver_is_exact(specs[j].name);
    if (exact && specs[j].ndir > 0) {
      snprintf(msg, msglen, "solver '%s': %s uses the exact cone, d does not apply",
               specs[j].label, specs[j].name);
      free(specs);
      return LSIM_INVALID_INPUT;
    }
    if (!exact && specs[j].ndir > 0 && specs[j].ndir % 4) {
      snprintf(msg, msglen, "solver '%s': d = %d: 3-D polyhedral cones take a multiple of 4",
               specs[j].label, specs[j].ndir);
      free(specs);
      return LSIM_INVALID_INPUT;
    }
    LsimFcSolver *probe = NULL;
    if ((bad = lsim_fc_solver_create(&probe, specs[j].name, &specs[j].opt, exact ? 0 : 8, err,
                                     sizeof err))) {
      snprintf(msg, msglen, "solver '%s': %s", specs[j].label, err);
      free(specs);
      return lsim_compare_status(bad, LSIM_INVALID_INPUT);
    }
    lsim_fc_solver_free(probe);
  }

  /* Problems: all read first, so bad input stops before any output. */
  LsimFc *probs = calloc((size_t)N + 1, sizeof *probs);
  if (!probs) {
    free(specs);
    snprintf(msg, msglen, "out of memory");
    return LSIM_OUT_OF_MEMORY;
  }
  for (int k = 0; k < N; ++k) {
    const int kind = lsim_problem_file_kind(inputs[k]);
    if (kind != LSIM_FILE_FC_DAT && kind != LSIM_FILE_FCLIB) {
      snprintf(msg, msglen, "'%s': %s, not a frictional contact problem: give frictional "
               "contact files only", inputs[k], lsim_problem_file_kind_name(kind));
      for (int j = 0; j < k; ++j) lsim_fc_free(&probs[j]);
      free(probs), free(specs);
      return LSIM_INVALID_INPUT;
    }
    if ((bad = lsim_fc_read(inputs[k], &probs[k], err, sizeof err))) {
      snprintf(msg, msglen, "%s", err);
      for (int j = 0; j < k; ++j) lsim_fc_free(&probs[j]);
      free(probs), free(specs);
      return lsim_compare_status(bad, LSIM_INVALID_INPUT);
    }
  }

  const int P = nspecs;
  int exit_code = 0; /* 0, or the failure's status negated (> 0: the MPI maximum keeps it) */
  LsimCompareTable t;
  LsimCompareSummary *sm = calloc((size_t)P + 1, sizeof *sm);
  char (*labels)[128] = calloc((size_t)P + 1, sizeof *labels);
  char (*starts)[8] = calloc((size_t)P + 1, sizeof *starts);
  int *ser_solver = calloc((size_t)P + 1, sizeof(int));
  int *ndir = calloc((size_t)N * P + 1, sizeof(int));
  double *dual = calloc((size_t)N * P + 1, sizeof(double));
  double *setup = calloc((size_t)N * P + 1, sizeof(double)); /* setup part of wall */
  int *primed = calloc((size_t)P + 1, sizeof(int)); /* series s solved once, untimed */
  double *sumbuf = calloc((size_t)N + 1, sizeof(double));
  int *dims = calloc((size_t)N + 1, sizeof(int)), *ncs = calloc((size_t)N + 1, sizeof(int));
  double *r = NULL;
  size_t rcap = 0;
  if (lsim_compare_table_alloc(&t, N, P, 0) || !sm || !labels || !starts || !ser_solver || !ndir ||
      !dual || !setup || !primed || !sumbuf || !dims || !ncs) {
    snprintf(msg, msglen, "out of memory");
    exit_code = -LSIM_OUT_OF_MEMORY;
  }
  for (int s = 0; !exit_code && s < P; ++s) {
    ser_solver[s] = s;
    snprintf(labels[s], sizeof labels[s], "%s", specs[s].label);
    snprintf(starts[s], sizeof starts[s], "cold");
  }
  for (int k = 0; !exit_code && k < N; ++k) dims[k] = probs[k].dim, ncs[k] = probs[k].nc;
  const void *const fc_data[FC_ROW_SETS] = {dims, ncs, dual, ndir, setup};

  /* The output path named (a leftover partial file of it is noted before the solves). */
  if (!exit_code && cfg->output_named && lsim_mpi_rank() == 0)
    cfg->output_named(cfg->output_named_arg, path);

  /* The file (rank 0's), under a partial name of its own (scene/outfile.h), its header on
     disk before the solves and the rows of the problems done flushed as they go, as an
     LCP set's (compare/compare.c): before, it was made and written only after the last
     solve, so a kill while solving left no file and one while writing an unreadable one
     (105 of 107 points of a 4-problem set's writes). */
  LsimOutFile of;
  memset(&of, 0, sizeof of);
  LsimCompareOut o = {.file = -1};
  LsimCompareRows rows;
  memset(&rows, 0, sizeof rows);
  LsimH5Rows *fc_rows[FC_ROW_SETS] = {NULL};
  if (!exit_code && lsim_mpi_rank() == 0) {
    bad = lsim_outfile_begin(&of, path, err, sizeof err);
    o.file = bad ? -1 : lsim_h5_create(of.partial, err, sizeof err);
    if (o.file < 0) {
      lsim_outfile_discard(&of);
      snprintf(msg, msglen, "%s", err);
      exit_code = -lsim_compare_status(bad, LSIM_IO_ERROR);
    }
  }
  if (o.file >= 0) {
    lsim_compare_w_int(&o, "/format_version", LSIM_COMPARE_FORMAT_VERSION);
    lsim_compare_w_str(&o, "/file_kind", "compare", 0, -1);
    lsim_compare_w_str(&o, "/lcpsim_version", LSIM_VERSION, 0, -1);
    lsim_compare_w_str(&o, "/scene_text", "", 0, -1);
    lsim_compare_w_str(&o, "/parameters/mode", "fc_set", 0, -1);
    lsim_compare_w_str(&o, "/parameters/input", inputs[0], 0, -1);
    lsim_compare_w_str(&o, "/parameters/reference", specs[0].label, 0, -1);
    lsim_compare_w_int(&o, "/parameters/reference_solver", 0);
    lsim_compare_w_int(&o, "/parameters/reference_series", 0);
    lsim_compare_w_dbl(&o, "/parameters/success_tol", cfg->success_tol);
    lsim_compare_w_int(&o, "/parameters/steps", N);
    lsim_compare_w_int(&o, "/parameters/nsolvers", nspecs);
    lsim_compare_w_int(&o, "/parameters/nseries", P);
    lsim_compare_w_str(&o, "/parameters/hash_form", "fc", 0, -1);
    lsim_compare_w_int(&o, "/parameters/repeat", repeat);
    lsim_compare_w_dbl(&o, "/parameters/time_limit", cfg->time_limit > 0 ? cfg->time_limit : 0.0);
    lsim_compare_write_legend(&o);
    lsim_compare_write_series(&o, P, specs, nspecs, labels, ser_solver, starts, 0);
    lsim_compare_rows_open(&rows, &o, P, 0);
    lsim_compare_rows_names(&rows, &o, inputs, N); /* the files, one a row */
    fc_rows_open(fc_rows, &o, P, &rows.chunk_bytes);
    lsim_compare_marks_open(&o, 0);
    if (!o.rc && lsim_h5_flush(o.file)) o.rc = -1;
    if (o.rc) {
      lsim_compare_write_failed(msg, msglen, path, "cannot write the header");
      exit_code = -LSIM_IO_ERROR;
    }
  }
  /* The file's size at the last room check (lsim_compare_room_low): the header's. */
  double room_last = o.file >= 0 ? lsim_outfile_size(&of) : 0.0;
  char room_stop[512] = ""; /* why the room stopped the comparison (done = the problem) */
  exit_code = lsim_mpi_max_int(exit_code);
  if (exit_code && !msg[0]) snprintf(msg, msglen, "another rank failed");

  /* The solves: problems handed out on demand over MPI ranks (compare/mpi.h). A serial
     comparison stops before problem k once cfg->stop is raised (done = k). */
  const volatile sig_atomic_t *stop = lsim_mpi_size() > 1 ? NULL : cfg->stop;
  int done = N, stop_sig = 0;
  lsim_mpi_share_begin(N, P);
  int mine = lsim_mpi_share_next(), claim_due = 0;
  double flushed = now_seconds();
  int flushed_k = 0;
  for (int k = 0; k < N && !exit_code; ++k) {
    if (stop && *stop) {
      done = k, stop_sig = *stop;
      break;
    }
    /* Once a second (or every LSIM_COMPARE_FLUSH_ROWS problems) the rows of the problems
       done go to disk, then the mark of what that flush left whole (compare/output.h).
       Under MPI the rows are gathered at the end only. */
    if (o.file >= 0 && lsim_mpi_size() == 1 &&
        (now_seconds() - flushed >= 1.0 || k - flushed_k >= LSIM_COMPARE_FLUSH_ROWS)) {
      lsim_compare_rows_append(&rows, &o, &t, k);
      fc_rows_append(fc_rows, &o, fc_data, P, k);
      if (!o.rc && lsim_h5_flush(o.file)) o.rc = -1;
      lsim_compare_mark(&o, lsim_h5_rows_count(rows.d[0]), 0);
      flushed = now_seconds(), flushed_k = k;
      /* Then the room for the next flush and the close: too little, and the comparison
         stops here, its file whole with the rows of the problems done (compare.c). */
      char why[400]; /* cut to fit the reason (ref_stop, /summary/run_end_reason) */
      if (!o.rc && lsim_compare_room_low(&of, path, &rows, 0.0, &room_last, why, sizeof why)) {
        snprintf(room_stop, sizeof room_stop, "problem %d: %s", k + 1, why);
        done = k;
        break;
      }
    }
    if (cfg->progress) cfg->progress(cfg->progress_arg, k, N);
    const LsimFc *p = &probs[k];
    t.step[k] = k + 1;
    t.time[k] = 0.0;
    t.problem_size[k] = p->n;
    t.problem_hash[k] = fc_hash(p);
    if (2 * (size_t)p->n + 2 > rcap) {
      free(r);
      rcap = 2 * (size_t)p->n + 2;
      r = calloc(rcap, sizeof(double));
      if (!r) {
        snprintf(msg, msglen, "out of memory");
        exit_code = -LSIM_OUT_OF_MEMORY;
        break;
      }
    }
    for (int s = 0; s < P; ++s) {
      const size_t i = (size_t)k * P + s;
      if (claim_due) mine = lsim_mpi_share_next(), claim_due = 0; /* the last one is done */
      if ((int)i != mine) continue; /* another rank's solve (compare/mpi.h) */
      claim_due = 1;
      const LsimCompareSpec *sp = &specs[s];
      const int nd = series_ndir(sp, p);
      ndir[i] = nd;
      LsimFcSolver *solver = NULL;
      if ((bad = lsim_fc_solver_create(&solver, sp->name, &sp->opt, nd, err, sizeof err))) {
        snprintf(msg, msglen, "solver '%s' on %s: %s", sp->label, inputs[k], err);
        exit_code = -lsim_compare_status(bad, LSIM_INVALID_INPUT);
        break;
      }
      /* A series' first solve in this process is preceded by an untimed one, on a solver
         of its own (each problem's solver is fresh, so only once-per-process costs are
         taken away: library code paged in, lazy initialization; on FC3D_Example1 the
         first siconos:fc3d_nsgs solve took 0.1 - 14 ms against 5 us for the next, nsgs
         34 us against 2 us). Under a time limit the child primes itself. */
      if (!primed[s] && !(cfg->time_limit > 0)) {
        LsimFcSolver *probe = NULL;
        primed[s] = 1;
        if (!lsim_fc_solver_create(&probe, sp->name, &sp->opt, nd, err, sizeof err)) {
          memset(r, 0, rcap * sizeof(double));
          FcCall call = {probe, p, r, 0, {0}};
          fc_call(&call);
        }
        lsim_fc_solver_free(probe);
      }
      LsimFcStats st;
      int status = 0, unfinished = 0;
      double times[LSIM_COMPARE_MAX_REPEAT], setups[LSIM_COMPARE_MAX_REPEAT], unused;
      for (int rep = 0; rep < repeat && !unfinished; ++rep) {
        memset(r, 0, rcap * sizeof(double));
        FcCall call = {solver, p, r, 0, {0}};
        unfinished = lsim_compare_timed(fc_call, &call, cfg->time_limit, r, 2 * (size_t)p->n,
                                        &call.st, sizeof call.st);
        st = call.st;
        status = st.status;
        times[rep] = st.wall_time;
        setups[rep] = st.setup_time;
      }
      if (unfinished) {
        lsim_fc_solver_free(solver);
        lsim_compare_record_unfinished(&t, k, s, unfinished == LSIM_COMPARE_TIMEOUT
                                                     ? LSIM_COMPARE_TIMEOUT : LSIM_SOLVER_FAILED,
                                       p->n, t.problem_hash[k], cfg->time_limit);
        dual[i] = setup[i] = NAN;
        continue;
      }
      /* Every solver timed from our problem to its reaction, its setup included (Siconos'
         problem and options, the polyhedral LCP); the setup's median beside (each repeat's
         setup is within its time, so the medians are too). */
      st.wall_time = lsim_compare_time_stats(times, repeat, &t.spread[i]);
      setup[i] = lsim_compare_time_stats(setups, repeat, &unused);
      const int wrong_dim = status == LSIM_INVALID_INPUT && !strncmp(sp->name, "siconos:fc", 10);
      lsim_fc_solver_free(solver);
      if (wrong_dim) {
        lsim_compare_record_skipped(&t, k, s);
        t.status[i] = LSIM_COMPARE_WRONG_DIM;
        dual[i] = setup[i] = NAN;
        continue;
      }
      t.status[i] = status;
      t.success[i] = lsim_compare_is_success(status, st.quality.relative, cfg->success_tol);
      t.iters[i] = st.iterations;
      t.warm[i] = 0;
      t.size[i] = p->n;
      t.nsliding[i] = st.quality.nsliding;
      t.hash[i] = t.problem_hash[k];
      t.wall[i] = st.wall_time;
      t.res[i] = st.quality.natural;
      t.rel[i] = st.quality.relative;
      t.compl_[i] = st.quality.complementarity;
      t.cone[i] = st.quality.cone;
      dual[i] = st.quality.dual_cone;
      t.sig[i] = t.diss[i] = t.dist[i] = NAN;
      t.sicerr[i] = st.siconos_error;
    }
  }
  lsim_mpi_share_end();

  if (cfg->progress && !exit_code && !stop_sig) cfg->progress(cfg->progress_arg, N, N);
  /* Interrupted: the tables keep the rows of the problems done (row-major: the first). */
  t.N = done;

  /* The last rows in a flush of their own (the names with them), then /summary,
     made unlinked, flushed and linked (lsim_compare_summary_link), so that the close
     writes the link alone; the file renamed to its name when whole. */
  exit_code = lsim_mpi_max_int(exit_code);
  if (exit_code && !msg[0]) snprintf(msg, msglen, "another rank failed");
  if (!exit_code && (lsim_mpi_merge_table(&t) || lsim_mpi_merge_doubles(dual, N, P) ||
                     lsim_mpi_merge_doubles(setup, N, P) ||
                     lsim_mpi_merge_ints(ndir, N, P))) {
    snprintf(msg, msglen, "MPI: cannot gather the results");
    exit_code = -LSIM_IO_ERROR;
  }
  if (!exit_code && o.file >= 0) {
    lsim_compare_rows_append(&rows, &o, &t, t.N);
    fc_rows_append(fc_rows, &o, fc_data, P, done);
    if (!o.rc && lsim_h5_flush(o.file)) o.rc = -1;
    lsim_compare_mark(&o, (uint64_t)t.N, 0);
    for (int s = 0; s < P; ++s) lsim_compare_summarize(&t, s, sumbuf, &sm[s]);
    lsim_compare_summary_begin(&o);
    lsim_compare_write_results(&o, &rows, &t, sm, 0);
    lsim_compare_write_end(&o, done, N, stop_sig, "problem", room_stop);
    lsim_compare_summary_link(&o);
    if (o.rc) {
      lsim_compare_write_failed(msg, msglen, path, "cannot write the results");
      exit_code = -LSIM_IO_ERROR;
    }
  }
  lsim_compare_rows_close(&rows);
  for (int i = 0; i < FC_ROW_SETS; ++i) lsim_h5_rows_close(fc_rows[i]);
  if (o.file >= 0) {
    lsim_compare_marks_close(&o);
    if (lsim_h5_close(o.file) && !exit_code) {
      lsim_compare_write_failed(msg, msglen, path, "cannot close the file");
      exit_code = -LSIM_IO_ERROR;
    }
    if (!exit_code && lsim_outfile_commit(&of, err, sizeof err)) {
      snprintf(msg, msglen, "%s", err);
      exit_code = -LSIM_IO_ERROR;
    } else if (exit_code) {
      lsim_outfile_discard(&of);
    }
  }
  if (!exit_code) {
    char count[64];
    if (stop_sig || room_stop[0])
      snprintf(count, sizeof count, "%d of %d problems (%s)", done, N,
               stop_sig ? "interrupted" : "stopped");
    else snprintf(count, sizeof count, "%d problems", N);
    snprintf(res->title, sizeof res->title,
             "frictional contact set: %s, %d solvers, success = relative natural-map "
             "residual (exact cone) <= %g -> %s", count, P, cfg->success_tol, path);
    res->asked = N;
    res->interrupted = stop_sig;
    snprintf(res->stopped, sizeof res->stopped, "%s", room_stop);
    snprintf(res->path, sizeof res->path, "%s", path);
    res->fc = 1;
    if (lsim_compare_result_take(res, &t, &sm, &labels, specs, ser_solver)) {
      snprintf(msg, msglen, "out of memory");
      exit_code = -LSIM_OUT_OF_MEMORY;
    }
  }
  lsim_compare_table_free(&t);
  free(sm), free(labels), free(starts), free(ser_solver), free(ndir), free(dual), free(setup);
  free(primed), free(sumbuf), free(dims), free(ncs);
  free(r);
  for (int k = 0; k < N; ++k) lsim_fc_free(&probs[k]);
  free(probs);
  free(specs);
  return -exit_code;
}
