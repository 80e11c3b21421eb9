/* compare.h: complementarity solvers compared on identical problems (the comparison
 * layer; `lcpsim compare` parses its arguments into an LsimCompareConfig and prints the
 * result).
 *
 * Three modes (docs/solvers.md "Comparing solvers", docs/output-format.md "Compare files"):
 *   shadow       one reference solver drives the trajectory; every step's LCP is handed,
 *                bit for bit, to every solver twice: cold started and warm started from the
 *                driver's guess. Series: "SPEC (cold)", "SPEC (warm)" per solver.
 *   independent  every solver runs its own trajectory from the same initial state; the
 *                state difference against the reference solver's trajectory is recorded.
 *                Series: one per solver.
 *   lcp set      the inputs are Siconos .dat files: every solver, cold, on every file
 *                (no time stepping). Series: one per solver; problem k is file k.
 *   fc set       the inputs are frictional contact problems (Siconos .dat, FCLIB HDF5;
 *                compare/fcset.c): every solver, cold, on every file, exact-cone solvers
 *                and LCP solvers on the polyhedral LCP (spec key d), all measured by the
 *                exact-cone Coulomb measures (lcp/fc.h).
 * Scenes: every solver gets the step's LCP in the factored form the step builds (M = J B +
 * C, lcp/factored.h) through lsim_solver_solve_factored; hashes (lsim_factored_hash) and
 * quality measures (lsim_factored_quality) are computed on that form, so M is formed only
 * inside the contexts of solvers that need it (all but "pgs", "newton" and "lemke_sparse":
 * lsim_solver_needs_dense), and those are skipped, recorded as skipped (status
 * LSIM_COMPARE_SKIPPED), on steps with n > dense_limit. Dumps (dump_lcp) hold every step's
 * factored form, and its dense M up to the limit; only a dense reference stops the run at
 * a step above it. LCP sets are dense problems: dense hash and measures, no limit.
 * Per problem and series: status, success (the common relative residual below
 * success_tol), iterations, wall time, the quality measures of lcp/quality.h, the problem
 * hash, the distance to the reference solution. One HDF5 file, written under
 * FILE.<pid>.partial (scene/outfile.h) and renamed when complete; a comparison stopped by cfg->stop writes the problems done,
 * marked interrupted (/summary/run_end, as run files).
 */
#ifndef LSIM_COMPARE_COMPARE_H
#define LSIM_COMPARE_COMPARE_H

#include <signal.h>
#include <stddef.h>

#include "compare/spec.h"
#include "compare/table.h"

/* How messages name the arguments of a comparison: the library's words (the defaults of
 * lsim_default_compare_config: "solvers", "reference", "output", "independent mode",
 * "dump_lcp", "trajectory", "dense_limit", "steps"), or the command's flags ("--solvers",
 * "-o", ...). A NULL steps (an initializer of the fields before it) reads "steps". */
typedef struct LsimCompareNames {
  const char *solvers, *reference, *output, *independent, *dump_lcp, *trajectory,
      *dense_limit, *steps;
} LsimCompareNames;

/* The default dense limit (lsim_default_compare_config). Problem files refuse another. */
#define LSIM_COMPARE_DENSE_LIMIT_DEFAULT 4000

typedef struct LsimCompareConfig {
  const char *const *inputs; /* one scene, or .dat files */
  int ninputs;
  const char *solvers;       /* the solver list (compare/spec.h) */
  const char *reference;     /* a spec; NULL: the first of the list (added if absent) */
  const char *output;        /* NULL: SCENE_compare.h5 / lcpset_compare.h5 here */
  int independent;           /* 0 shadow, 1 independent */
  int dump_lcp;              /* store every LCP, warm start and solution (/lcp) */
  int trajectory;            /* shadow mode, scenes: keep the reference's run (its states,
                                contacts and impulses, as a run file) under /trajectory */
  int steps;                 /* > 0: override the scene's number of steps (problem files,
                                which have none, refuse it) */
  int dense_limit;           /* scenes: dense solvers skipped on steps with n > this
                                (problem files refuse a value other than the default) */
  double success_tol;        /* success = relative natural residual <= this */
  int repeat;                /* each solve K times from the same start (shadow, LCP and
                                FC sets): the median time is recorded and the spread
                                (max - min) in /results/wall_time_spread; 1 = once */
  double time_limit;         /* > 0: each solve at most this many seconds, in a forked
                                child (compare/timed.h); past it the solve is recorded as
                                LSIM_COMPARE_TIMEOUT; 0: no limit */
  /* Called before problem k (done = k) and once at the end (done = total); NULL: none. */
  void (*progress)(void *arg, int done, int total);
  void *progress_arg;
  /* Called once the inputs and solvers are checked, with the output path, before any
     problem is solved (the command notes leftover partial files of it there); NULL: none. */
  void (*output_named)(void *arg, const char *path);
  void *output_named_arg;
  /* When not NULL, polled before each problem (serial runs; ignored under MPI): once it is
     nonzero the comparison stops there and writes its file with the problems done, marked
     /summary/run_end "interrupted"; its value is the signal that raised it (SIGINT,
     SIGTERM), named in /summary/run_end_reason. */
  const volatile sig_atomic_t *stop;
  LsimCompareNames names;    /* how messages name the arguments above */
} LsimCompareConfig;

#define LSIM_COMPARE_MAX_REPEAT 101

/* Defaults: shadow mode, dense_limit 4000, success_tol 1e-6, repeat 1, the library's names,
 * nothing else set. */
LsimCompareConfig lsim_default_compare_config(void);

/* A finished comparison: the table and per-series summaries (owned). */
typedef struct LsimCompareResult {
  LsimCompareTable table;
  LsimCompareSummary *summary; /* [table.P] */
  char (*labels)[128];         /* [table.P] series labels */
  double *solver_tol;          /* [table.P] each series' own tolerance (0: a fixed budget) */
  int *solver_max_iter;        /* [table.P] its iteration budget (0: the solver's default) */
  int fc;                      /* 1: a frictional contact set (Coulomb measures) */
  int lcpset;                  /* 1: a set of LCP files */
  int independent;
  int asked;                   /* problems asked for (table.N of them were done) */
  int interrupted;             /* the stop flag's value when it ended the comparison (the
                                  signal), 0 when every problem was done */
  char stopped[512];           /* why the comparison stopped before its end (a dense
                                  reference above the dense limit, too little room left
                                  on the disk for its file), "" otherwise; the
                                  table holds the steps before it (/summary/run_end
                                  "stopped") */
  char path[1024];             /* the file written */
  char title[1400];            /* one line: input, mode, problems, reference, tolerance, file */
} LsimCompareResult;

/* Runs the comparison cfg describes and writes its file. Needs cfg->inputs and
 * cfg->solvers. 0 with *res filled (free with lsim_compare_result_free), or < 0, a status
 * of lcp/lcp.h, with a message in msg naming the argument (cfg->names) or the file:
 *   LSIM_INVALID_INPUT  bad arguments or problem files, an output that is one of the
 *                       inputs (lsim_compare_output_path), a scene that is not
 *                       time-stepped (event-driven, sequential impacts: the message
 *                       names its key); nothing is written
 *   LSIM_UNAVAILABLE    a solver unknown or not built; nothing is written
 *   LSIM_IO_ERROR       an input that cannot be read (nothing is written), or the output
 *                       that cannot be written (the partial file is removed)
 *   LSIM_OUT_OF_MEMORY
 * Solver failures are results, not errors. */
int lsim_compare_run(const LsimCompareConfig *cfg, LsimCompareResult *res, char *msg,
                     size_t msglen);

/* The file a comparison writes into path[len]: cfg->output, or by default in the current
 * folder SCENE_compare.h5 (a scene), lcpset_compare.h5 (.dat LCPs), fcset_compare.h5
 * (frictional contact problems). Needs cfg->inputs[0]. 0, or LSIM_INVALID_INPUT with msg
 * (an empty or too long name; a file that is one of cfg->inputs, which it would replace:
 * scene/outfile.h, lsim_outfile_check_inputs). Touches no file. */
int lsim_compare_output_path(const LsimCompareConfig *cfg, char *path, size_t len, char *msg,
                             size_t msglen);

/* rc when it is a status of lcp/lcp.h (LSIM_MAX_ITERATIONS .. LSIM_IO_ERROR), else
 * fallback: the status of a failed call that may return -1. */
int lsim_compare_status(int rc, int fallback);
void lsim_compare_result_free(LsimCompareResult *res);

/* The frictional contact set (compare/fcset.c), called by lsim_compare_run when the first
 * input is a frictional contact problem. Same contract (the output checked here too). */
int lsim_compare_fc_run(const LsimCompareConfig *cfg, LsimCompareResult *res, char *msg,
                        size_t msglen);

/* Moves the table, summaries and labels into res (the caller's pointers are emptied) and
 * fills its tolerances; 0, or -1 (memory: res freed). */
int lsim_compare_result_take(LsimCompareResult *res, LsimCompareTable *t,
                             LsimCompareSummary **sm, char (**labels)[128],
                             const LsimCompareSpec *specs, const int *ser_solver);

/* Fills res->solver_tol / solver_max_iter from the specs of each series. 0 or -1. */
int lsim_compare_result_tolerances(LsimCompareResult *res, const LsimCompareSpec *specs,
                                   const int *ser_solver);

#endif
