/* solve.c: standalone problems and solver comparisons of the public API: one LCP (in
 * memory or a Siconos .dat file) through lcp/solver.h, and comparisons through compare/. */
#include "api/api.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare.h"
#include "lcp/datfile.h"
#include "lcp/solver.h"

/* Solves lcp (checked) with the named solver into z; fills report. */
static int solve(const char *name, const LsimLcp *lcp, double *z, const LsimSolverConfig *cfg,
                 LsimSolveReport *report, char *err, size_t errlen) {
  LsimSolverConfig c = lsim_default_solver_config();
  c.warm_start = 0;
  if (cfg) c = *cfg;
  LsimSolverOptions o = lsim_default_solver_options();
  o.tol = c.tol;
  o.max_iter = c.max_iter;
  o.omega = c.omega;
  o.warm_start = c.warm_start;
  o.threads = c.threads > 0 ? c.threads : 1;
  LsimSolver *s = NULL;
  char msg[512] = "";
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

int lsim_solve_lcp(const char *solver, int n, const double *M, const double *q, double *z,
                   const LsimSolverConfig *cfg, LsimSolveReport *report, char *err,
                   size_t errlen) {
  if (n < 0 || (n > 0 && (!M || !q || !z)))
    return lsim_api_err(err, errlen, LSIM_INVALID_INPUT, "solve_lcp: needs n >= 0 and M, q, z");
  /* The solver's interface takes a problem it does not change: no copy of M or q. */
  const LsimLcp lcp = {.n = n, .M = (double *)M, .q = (double *)q, .ncones = 0, .cones = NULL};
  if (lsim_lcp_check_finite(&lcp))
    return lsim_api_err(err, errlen, LSIM_INVALID_INPUT, "solve_lcp: M or q has a value that is not finite");
  return solve(solver, &lcp, z, cfg, report, err, errlen);
}

int lsim_solve_lcp_file(const char *solver, const char *path, const LsimSolverConfig *cfg,
                        double **z_out, int *n_out, LsimSolveReport *report, char *err,
                        size_t errlen) {
  if (!z_out || !n_out || !path)
    return lsim_api_err(err, errlen, LSIM_INVALID_INPUT, "solve_lcp_file: needs path, z_out and n_out");
  *z_out = NULL;
  *n_out = 0;
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

int lsim_compare(const char *const *inputs, int ninputs, const char *solvers, int independent,
                 int steps, const char *output, LsimCompareRow *rows, int *nrows, char *err,
                 size_t errlen) {
  if (!inputs || ninputs < 1 || !solvers || !nrows)
    return lsim_api_err(err, errlen, LSIM_INVALID_INPUT, "compare: needs inputs, solvers and nrows");
  LsimCompareConfig cfg = lsim_default_compare_config();
  cfg.inputs = inputs;
  cfg.ninputs = ninputs;
  cfg.solvers = solvers;
  cfg.output = output;
  cfg.independent = independent != 0;
  cfg.steps = steps > 0 ? steps : 0;
  LsimCompareResult res;
  char msg[1024] = "";
  if (lsim_compare_run(&cfg, &res, msg, sizeof msg) < 0)
    return lsim_api_err(err, errlen, LSIM_INVALID_INPUT, "compare: %s", msg);
  const int P = res.table.P, m = rows && *nrows < P ? *nrows : P;
  for (int s = 0; rows && s < m; ++s) {
    const LsimCompareSummary *sm = &res.summary[s];
    LsimCompareRow *r = &rows[s];
    snprintf(r->label, sizeof r->label, "%s", res.labels[s]);
    r->problems = sm->problems, r->successes = sm->successes;
    r->failures = sm->failures, r->skipped = sm->skipped;
    r->success_rate = sm->success_rate;
    r->median_wall = sm->median_wall;
    r->median_iterations = sm->median_iters;
    r->worst_relative_residual = sm->worst_rel;
  }
  *nrows = P;
  lsim_compare_result_free(&res);
  return 0;
}
