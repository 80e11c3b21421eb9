/* solve.c: standalone problems and solver comparisons of the public API: one LCP (in
 * memory or a Siconos .dat file) through lcp/solver.h, one frictional contact problem (in
 * memory, a Siconos .dat or an FCLIB file) through lcp/fc_solver.h, and comparisons
 * through compare/. */
#include "api/api.h"

#include <limits.h>
#include <signal.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare.h"
#include "lcp/datfile.h"
#include "lcp/fc.h"
#include "lcp/fc_solver.h"
#include "lcp/solver.h"

/* The solver options of a public configuration (NULL: the defaults without warm start). */
static LsimSolverOptions options_of(const LsimSolverConfig *cfg) {
  LsimSolverConfig c = lsim_default_solver_config();
  c.warm_start = 0;
  if (cfg) c = *cfg;
  LsimSolverOptions o = lsim_default_solver_options();
  o.tol = c.tol;
  o.max_iter = c.max_iter;
  o.omega = c.omega;
  o.warm_start = c.warm_start;
  o.threads = c.threads;
  o.sparse_limit = c.sparse_limit;
  o.principal = c.principal;
  o.precision = c.precision;
  return o;
}

/* The index of the first entry of x[n] that is not finite, or -1. */
static int first_nonfinite(const double *x, int n) {
  for (int i = 0; i < n; ++i)
    if (!isfinite(x[i])) return i;
  return -1;
}

/* After a cold start made for a warm-start guess whose entry what[bad] was xbad: a solve
 * that succeeded (rc 0) becomes LSIM_WARM_START_REJECTED (also in *report_status), with
 * err saying why; any other rc is returned as it is (its failure matters more). */
static int cold_started(int rc, const char *fn, const char *what, int bad, double xbad,
                        int *report_status, char *err, size_t errlen) {
  if (rc != LSIM_SOLVED) return rc;
  if (report_status) *report_status = LSIM_WARM_START_REJECTED;
  return lsim_api_err(err, errlen, LSIM_WARM_START_REJECTED,
                      "%s: the warm start %s[%d] = %g is not finite: solved from a cold start",
                      fn, what, bad, xbad);
}

/* Solves lcp (checked) with the named solver into z; fills report. */
static int solve(const char *name, const LsimLcp *lcp, double *z, const LsimSolverConfig *cfg,
                 LsimSolveReport *report, char *err, size_t errlen) {
  char msg[512] = "";
  if (lsim_api_check_config_for(name ? name : "lemke", cfg, msg, sizeof msg) < 0)
    return lsim_api_err(err, errlen, LSIM_INVALID_INPUT, "solver options: %s", msg);
  const LsimSolverOptions o = options_of(cfg);
  LsimSolver *s = NULL;
  int rc = lsim_solver_create(&s, name ? name : "lemke", &o, msg, sizeof msg);
  if (rc < 0) return lsim_api_err(err, errlen, rc, "%s", msg);
  LsimSolveStats st;
  rc = lsim_solver_solve(s, lcp, z, &st);
  if (report) {
    report->status = rc;
    report->iterations = st.iterations;
    report->residual = st.residual.natural;
    report->relative_residual = st.residual.relative;
    report->wall_time = st.wall_time;
  }
  if (rc < 0) {
    const char *m = lsim_solver_last_message(s);
    lsim_api_err(err, errlen, rc, "%s: %s%s%s", lsim_solver_name(s), lsim_status_name(rc),
                 m[0] ? ": " : "", m);
  }
  lsim_solver_free(s);
  return rc;
}

/* What a report of a solve that did not run reads (lcpsim.h): the status, no iteration
 * count, residuals that pass no tolerance. */
static void no_solve_report(LsimSolveReport *report, int rc) {
  if (!report) return;
  report->status = rc;
  report->iterations = -1;
  report->residual = report->relative_residual = INFINITY;
  report->wall_time = 0.0;
}
static void no_fc_report(LsimFcReport *report, int rc) {
  if (!report) return;
  report->status = rc;
  report->iterations = -1;
  report->natural = report->relative = report->cone = INFINITY;
  report->dual_cone = report->complementarity = INFINITY;
  report->wall_time = 0.0;
}

/* A standalone call starts with an empty message and a report of nothing done, so that a
 * success reads "" and an early refusal leaves no figures of an earlier call. */
static void begin_standalone(char *err, size_t errlen) {
  if (err && errlen) err[0] = '\0';
}

static int solve_lcp_checked(const char *solver, int n, const double *M, const double *q,
                             double *z, const LsimSolverConfig *cfg, LsimSolveReport *report,
                             char *err, size_t errlen) {
  if (n < 0 || (n > 0 && (!M || !q || !z)))
    return lsim_api_err(err, errlen, LSIM_INVALID_INPUT, "solve_lcp: needs n >= 0 and M, q, z");
  /* An empty problem may come with NULL arrays: the solvers get a real (unused) one, since
     they copy and clear n entries with memcpy/memset, which take no NULL even for 0. */
  double none[1] = {0.0};
  if (n == 0) M = q = z = none;
  /* The solver's interface takes a problem it does not change: no copy of M or q. */
  const LsimLcp lcp = {.n = n, .M = (double *)M, .q = (double *)q, .ncones = 0, .cones = NULL};
  if (lsim_lcp_check_finite(&lcp))
    return lsim_api_err(err, errlen, LSIM_INVALID_INPUT, "solve_lcp: M or q has a value that is not finite");
  /* A warm start with a value that is not finite is no guess: a cold start, said so by the
     status (the solvers read such an entry as 0 and reported a plain success). */
  const int bad = cfg && cfg->warm_start ? first_nonfinite(z, n) : -1;
  if (bad < 0) return solve(solver, &lcp, z, cfg, report, err, errlen);
  const double zbad = z[bad];
  LsimSolverConfig cold = *cfg;
  cold.warm_start = 0;
  memset(z, 0, (size_t)n * sizeof *z);
  const int rc = solve(solver, &lcp, z, &cold, report, err, errlen);
  return cold_started(rc, "solve_lcp", "z", bad, zbad, report ? &report->status : NULL, err, errlen);
}

int lsim_solve_lcp(const char *solver, int n, const double *M, const double *q, double *z,
                   const LsimSolverConfig *cfg, LsimSolveReport *report, char *err,
                   size_t errlen) {
  begin_standalone(err, errlen);
  no_solve_report(report, LSIM_INVALID_INPUT);
  const int rc = solve_lcp_checked(solver, n, M, q, z, cfg, report, err, errlen);
  if (report) report->status = rc;
  return rc;
}

static int solve_lcp_file(const char *solver, const char *path, const LsimSolverConfig *cfg,
                          double **z_out, int *n_out, LsimSolveReport *report, char *err,
                          size_t errlen) {
  if (!z_out || !n_out || !path)
    return lsim_api_err(err, errlen, LSIM_INVALID_INPUT, "solve_lcp_file: needs path, z_out and n_out");
  *z_out = NULL;
  *n_out = 0;
  /* A file of another kind named as such: a frictional contact file was read as an LCP
     ("FC3D_Example1.dat:2:1: storage type 3 not supported"), an HDF5 file too ("run.h5:1:1: n:
     not an integer: '\x89HDF'"). */
  const int kind = lsim_problem_file_kind(path);
  if (kind == LSIM_FILE_FC_DAT)
    return lsim_api_err(err, errlen, LSIM_INVALID_INPUT,
                        "%s: a frictional contact problem (Siconos .dat), not an LCP: "
                        "lsim_solve_fc_file solves it", path);
  if (kind == LSIM_FILE_FCLIB)
    return lsim_api_err(err, errlen, LSIM_INVALID_INPUT,
                        "%s: an HDF5 file, not an LCP .dat file (an FCLIB frictional contact "
                        "problem: lsim_solve_fc_file; a run's dumped LCP: lcpsim solve RUN.h5 "
                        "--step K)", path);
  LsimLcp lcp;
  char msg[512] = "";
  int rc = lsim_dat_read(path, &lcp, msg, sizeof msg);
  if (rc < 0) return lsim_api_err(err, errlen, rc, "%s", msg);
  double *z = calloc((size_t)lcp.n + 1, sizeof *z);
  if (!z) {
    lsim_lcp_free(&lcp);
    return lsim_api_err(err, errlen, LSIM_OUT_OF_MEMORY, "out of memory");
  }
  LsimSolverConfig c = lsim_default_solver_config();
  c.warm_start = 0;
  if (cfg) c = *cfg, c.warm_start = 0; /* nothing to start from: z is zero */
  rc = solve(solver, &lcp, z, &c, report, err, errlen);
  if (rc == LSIM_INVALID_INPUT || rc == LSIM_UNAVAILABLE || rc == LSIM_OUT_OF_MEMORY) {
    free(z);
  } else {
    *z_out = z;
    *n_out = lcp.n;
  }
  lsim_lcp_free(&lcp);
  return rc;
}

/* Solves the checked problem p with the named solver into r; fills report. */
static int solve_fc(const char *name, const LsimFc *p, int ndir, double *r,
                    const LsimSolverConfig *cfg, LsimFcReport *report, char *err,
                    size_t errlen) {
  char msg[512] = "";
  if (lsim_api_check_config_for(name ? name : "nsgs", cfg, msg, sizeof msg) < 0)
    return lsim_api_err(err, errlen, LSIM_INVALID_INPUT, "solver options: %s", msg);
  const LsimSolverOptions o = options_of(cfg);
  LsimFcSolver *s = NULL;
  int rc = lsim_fc_solver_create(&s, name ? name : "nsgs", &o, ndir, msg, sizeof msg);
  if (rc < 0) return lsim_api_err(err, errlen, rc, "%s", msg);
  double *u = malloc(((size_t)p->n + 1) * sizeof *u);
  if (!u) {
    lsim_fc_solver_free(s);
    return lsim_api_err(err, errlen, LSIM_OUT_OF_MEMORY, "out of memory");
  }
  LsimFcStats st;
  rc = lsim_fc_solver_solve(s, p, r, u, &st);
  if (report) {
    report->status = rc;
    report->iterations = st.iterations;
    report->natural = st.quality.natural;
    report->relative = st.quality.relative;
    report->cone = st.quality.cone;
    report->dual_cone = st.quality.dual_cone;
    report->complementarity = st.quality.complementarity;
    report->wall_time = st.wall_time;
  }
  if (rc < 0) {
    const char *m = lsim_fc_solver_last_message(s);
    lsim_api_err(err, errlen, rc, "%s: %s%s%s", name ? name : "nsgs", lsim_status_name(rc),
                 m[0] ? ": " : "", m);
  }
  free(u);
  lsim_fc_solver_free(s);
  return rc;
}

int lsim_solve_lcp_file(const char *solver, const char *path, const LsimSolverConfig *cfg,
                        double **z_out, int *n_out, LsimSolveReport *report, char *err,
                        size_t errlen) {
  begin_standalone(err, errlen);
  no_solve_report(report, LSIM_INVALID_INPUT);
  const int rc = solve_lcp_file(solver, path, cfg, z_out, n_out, report, err, errlen);
  if (report) report->status = rc;
  return rc;
}

static int solve_fc_checked(const char *solver, int dim, int nc, const double *W,
                            const double *q, const double *mu, int ndir, double *r,
                            const LsimSolverConfig *cfg, LsimFcReport *report, char *err,
                            size_t errlen) {
  if ((dim != 2 && dim != 3) || nc < 0 || (nc > 0 && (!W || !q || !mu || !r)))
    return lsim_api_err(err, errlen, LSIM_INVALID_INPUT,
                        "solve_fc: needs dim 2 or 3, nc >= 0 and W, q, mu, r");
  if (nc > INT_MAX / dim)
    return lsim_api_err(err, errlen, LSIM_INVALID_INPUT,
                        "solve_fc: nc = %d contacts of dimension %d is too many (dim nc > %d)",
                        nc, dim, INT_MAX);
  /* An empty problem may come with a NULL r: the solvers get a real (unused) one, as for
     lsim_solve_lcp. */
  double none[1] = {0.0};
  if (nc == 0) r = none;
  /* The problem takes copies: the block index is built on them, the caller's arrays stay
   * untouched. */
  LsimFc p;
  int rc = lsim_fc_init(&p, dim, nc);
  if (rc < 0) return lsim_api_err(err, errlen, rc, "solve_fc: cannot allocate the problem");
  const size_t n = (size_t)dim * (size_t)nc;
  if (n) {
    memcpy(p.W, W, n * n * sizeof *W);
    memcpy(p.q, q, n * sizeof *q);
    memcpy(p.mu, mu, (size_t)nc * sizeof *mu);
  }
  char msg[512] = "";
  rc = lsim_fc_check(&p, msg, sizeof msg);
  if (rc < 0) {
    lsim_fc_free(&p);
    return lsim_api_err(err, errlen, rc, "solve_fc: %s", msg);
  }
  rc = lsim_fc_index(&p);
  if (rc < 0) {
    lsim_fc_free(&p);
    return lsim_api_err(err, errlen, rc, "solve_fc: out of memory");
  }
  /* A warm start that is not finite: a cold start, said so (as lsim_solve_lcp). */
  const int bad = cfg && cfg->warm_start ? first_nonfinite(r, (int)n) : -1;
  if (bad < 0) {
    rc = solve_fc(solver, &p, ndir, r, cfg, report, err, errlen);
  } else {
    const double rbad = r[bad];
    LsimSolverConfig cold = *cfg;
    cold.warm_start = 0;
    memset(r, 0, n * sizeof *r);
    rc = solve_fc(solver, &p, ndir, r, &cold, report, err, errlen);
    rc = cold_started(rc, "solve_fc", "r", bad, rbad, report ? &report->status : NULL, err, errlen);
  }
  lsim_fc_free(&p);
  return rc;
}

int lsim_solve_fc(const char *solver, int dim, int nc, const double *W, const double *q,
                  const double *mu, int ndir, double *r, const LsimSolverConfig *cfg,
                  LsimFcReport *report, char *err, size_t errlen) {
  begin_standalone(err, errlen);
  no_fc_report(report, LSIM_INVALID_INPUT);
  const int rc = solve_fc_checked(solver, dim, nc, W, q, mu, ndir, r, cfg, report, err, errlen);
  if (report) report->status = rc;
  return rc;
}

static int solve_fc_file(const char *solver, const char *path, int ndir,
                         const LsimSolverConfig *cfg, double **r_out, int *n_out, int *dim_out,
                         LsimFcReport *report, char *err, size_t errlen) {
  if (!r_out || !n_out || !path)
    return lsim_api_err(err, errlen, LSIM_INVALID_INPUT, "solve_fc_file: needs path, r_out and n_out");
  *r_out = NULL;
  *n_out = 0;
  /* An LCP file named as such, as lsim_solve_lcp_file names a frictional contact one (read
     as a frictional contact problem it failed on its first number: "lcp.dat:1:1:
     dimension 6 out of range [2, 3]"). */
  const int kind = lsim_problem_file_kind(path);
  if (kind == LSIM_FILE_LCP || kind == LSIM_FILE_MLCP)
    return lsim_api_err(err, errlen, LSIM_INVALID_INPUT,
                        "%s: a %s, not a frictional contact problem%s", path,
                        lsim_problem_file_kind_name(kind),
                        kind == LSIM_FILE_LCP ? ": lsim_solve_lcp_file solves it" : "");
  LsimFc p;
  char msg[512] = "";
  int rc = lsim_fc_read(path, &p, msg, sizeof msg);
  if (rc < 0) return lsim_api_err(err, errlen, rc, "%s", msg);
  double *r = calloc((size_t)p.n + 1, sizeof *r);
  if (!r) {
    lsim_fc_free(&p);
    return lsim_api_err(err, errlen, LSIM_OUT_OF_MEMORY, "out of memory");
  }
  LsimSolverConfig c = lsim_default_solver_config();
  if (cfg) c = *cfg;
  c.warm_start = 0; /* nothing to start from: r is zero */
  rc = solve_fc(solver, &p, ndir, r, &c, report, err, errlen);
  if (rc == LSIM_INVALID_INPUT || rc == LSIM_UNAVAILABLE || rc == LSIM_OUT_OF_MEMORY) {
    free(r);
  } else {
    *r_out = r;
    *n_out = p.n;
    if (dim_out) *dim_out = p.dim;
  }
  lsim_fc_free(&p);
  return rc;
}

int lsim_solve_fc_file(const char *solver, const char *path, int ndir,
                       const LsimSolverConfig *cfg, double **r_out, int *n_out, int *dim_out,
                       LsimFcReport *report, char *err, size_t errlen) {
  begin_standalone(err, errlen);
  no_fc_report(report, LSIM_INVALID_INPUT);
  const int rc = solve_fc_file(solver, path, ndir, cfg, r_out, n_out, dim_out, report, err, errlen);
  if (report) report->status = rc;
  return rc;
}

/* The flag of lsim_compare_stoppable is read as the comparison's own stop flag. */
_Static_assert(sizeof(sig_atomic_t) == sizeof(int), "lsim_compare_stoppable: sig_atomic_t is not an int");

int lsim_compare(const char *const *inputs, int ninputs, const char *solvers, int independent,
                 int steps, const char *output, LsimCompareRow *rows, int *nrows, char *err,
                 size_t errlen) {
  return lsim_compare_stoppable(inputs, ninputs, solvers, independent, steps, output, rows,
                                nrows, NULL, err, errlen);
}

int lsim_compare_stoppable(const char *const *inputs, int ninputs, const char *solvers,
                           int independent, int steps, const char *output,
                           LsimCompareRow *rows, int *nrows, const volatile int *stop,
                           char *err, size_t errlen) {
  begin_standalone(err, errlen);
  /* Each missing argument named (one message for the three said "nrows" to a Python
     caller who had given an empty list of inputs, and no nrows to give). */
  if (!inputs || ninputs < 1)
    return lsim_api_err(err, errlen, LSIM_INVALID_INPUT,
                        "compare: no inputs (%d given): one scene or Siconos .dat files", ninputs);
  if (!solvers)
    return lsim_api_err(err, errlen, LSIM_INVALID_INPUT, "compare: solvers is NULL (a list such as \"lemke,pgs\")");
  if (!nrows)
    return lsim_api_err(err, errlen, LSIM_INVALID_INPUT, "compare: nrows is NULL (the capacity of rows)");
  if (*nrows < 0)
    return lsim_api_err(err, errlen, LSIM_INVALID_INPUT,
                        "compare: *nrows (the capacity of rows) must be >= 0, got %d", *nrows);
  if (!rows && *nrows > 0)
    return lsim_api_err(err, errlen, LSIM_INVALID_INPUT, "compare: rows is NULL (*nrows %d)", *nrows);
  for (int i = 0; i < ninputs; ++i)
    if (!inputs[i]) return lsim_api_err(err, errlen, LSIM_INVALID_INPUT, "compare: inputs[%d] is NULL", i);
  if (steps < 0)
    return lsim_api_err(err, errlen, LSIM_INVALID_INPUT, "compare: steps must be >= 0 (0: the scene's), got %d", steps);
  LsimCompareConfig cfg = lsim_default_compare_config();
  cfg.inputs = inputs;
  cfg.ninputs = ninputs;
  cfg.solvers = solvers;
  cfg.output = output;
  cfg.independent = independent != 0;
  cfg.steps = steps;
  cfg.stop = (const volatile sig_atomic_t *)stop;
  LsimCompareResult res;
  char msg[1024] = "";
  /* The comparison's status as it is (a missing file: LSIM_IO_ERROR, an unknown solver:
     LSIM_UNAVAILABLE); its messages name the arguments as the header does. */
  const int rc = lsim_compare_run(&cfg, &res, msg, sizeof msg);
  if (rc < 0) return lsim_api_err(err, errlen, rc, "compare: %s", msg);
  const int P = res.table.P, m = rows && *nrows < P ? *nrows : P;
  for (int s = 0; rows && s < m; ++s) {
    const LsimCompareSummary *sm = &res.summary[s];
    LsimCompareRow *r = &rows[s];
    snprintf(r->label, sizeof r->label, "%s", res.labels[s]);
    r->problems = sm->problems, r->successes = sm->successes;
    r->failures = sm->failures, r->skipped = sm->skipped;
    r->budget_stops = sm->budget, r->missed = sm->missed;
    r->success_rate = sm->success_rate;
    r->median_wall = sm->median_wall;
    r->median_iterations = sm->median_iters;
    r->worst_relative_residual = sm->worst_rel;
  }
  *nrows = P;
  lsim_compare_result_free(&res);
  return 0;
}
