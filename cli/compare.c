/* compare.c: `lcpsim compare`: its arguments, and the summary of the comparison
 * (compare/compare.h) printed as Markdown or CSV. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "compare/compare.h"
#include "compare/mpi.h"

static void compare_usage(FILE *f) {
  fprintf(f,
          "usage: lcpsim compare SCENE.json --solvers LIST [--mode shadow|independent]\n"
          "                      [--reference SPEC] [-o FILE] [--csv] [--steps N]\n"
          "                      [--success-tol X] [--dense-limit N] [--dump-lcp] [--repeat K]\n"
          "                      [--time-limit S] [--trajectory] [--quiet]\n"
          "       lcpsim compare FILE... --solvers LIST [-o FILE] [--csv]   (LCP .dat files,\n"
          "                      or frictional contact .dat / FCLIB .hdf5 files)\n"
          "                      [--success-tol X] [--dump-lcp] [--repeat K] [--time-limit S]\n"
          "                      [--quiet]\n"
          "  Compares LCP solvers on identical problems; writes one HDF5 file\n"
          "  (docs/output-format.md, 'Compare files') and prints a Markdown summary.\n"
          "  Scenes are compared on the time step's LCPs: an event-driven scene\n"
          "  (\"integrator\": \"event_driven\") or one with Coulomb's exact cone\n"
          "  (\"friction\": {\"cone\": \"exact\"}, solved by nsgs_aa whatever the solver)\n"
          "  is refused, naming the key.\n"
          "  --solvers LIST     comma-separated solver specs: NAME or NAME[key=value,...],\n"
          "                     keys tol, max_iter, sweeps (max_iter with tol 0), omega, threads,\n"
          "                     sparse_limit (newton's sparse Lemke fallback),\n"
          "                     cover, block, lu (umfpack|own|klu|ft), refactor, principal\n"
          "                     (lemke_sparse), precision (double|float: pgs),\n"
          "                     warm (0/1, independent mode), e.g.\n"
          "                     'lemke,pgs[sweeps=20],pgs[max_iter=500,omega=1.2],siconos:lemke'\n"
          "                     (quote the list: brackets are shell patterns)\n"
          "  --mode MODE        shadow (default): the reference drives, every solver solves\n"
          "                     each step's LCP cold and warm; independent: one trajectory\n"
          "                     per solver\n"
          "  --reference SPEC   the reference solver (default: the first of the list; added\n"
          "                     to the list if absent: one the same as a listed solver with\n"
          "                     the same options, however written, is that one)\n"
          "  -o, --output FILE  output (default: SCENE_compare.h5 / lcpset_compare.h5 here)\n"
          "  --csv              summary as CSV instead of Markdown\n"
          "  --steps N          override the scene's number of steps\n"
          "  --success-tol X    success = relative natural residual <= X (default 1e-6)\n"
          "  --dense-limit N    scenes: solvers get each step's LCP in factored form (M = J B\n"
          "                     + C); those that need a dense M (all but pgs, newton and\n"
          "                     lemke_sparse: lemke and the siconos: solvers) are skipped on\n"
          "                     steps with n > N, recorded as skipped (default 4000); such a\n"
          "                     reference cannot drive those steps: exit 1 at the first one,\n"
          "                     the file keeping the steps before it (marked stopped)\n"
          "  --dump-lcp         store every LCP, warm start and solution in the file (/lcp):\n"
          "                     every step's factored form, and its dense M when n <= the\n"
          "                     dense limit (docs/output-format.md, \"LCP dumps\")\n"
          "  --repeat K         each solve K times from the same start (shadow mode and\n"
          "                     problem files; refused with --mode independent, whose\n"
          "                     trajectories step once): median time recorded, spread in\n"
          "                     wall_time_spread\n"
          "  --time-limit S     each solve at most S seconds (run in a child process);\n"
          "                     past it the solve is recorded as a timeout (a failure)\n"
          "  --trajectory       shadow mode: keep the reference's run (states, contacts,\n"
          "                     impulses; a run file's datasets) under /trajectory, so that\n"
          "                     lcpsim view draws the bodies beside the measures; the rows\n"
          "                     the run keeps (the scene's output.record_every: every K-th\n"
          "                     step, step 0 and the last), the measures every step\n"
          "  --quiet            no summary on stdout (and no progress bar; the bar is drawn\n"
          "                     on stderr only when it is a terminal)\n"
          "Solver options a solver does not use (omega or threads but for pgs, sparse_limit\n"
          "but for newton, islands but for lemke, newton, lemke_sparse, cover, block, lu\n"
          "and refactor but for lemke_sparse), a key given twice,\n"
          "sweeps beside max_iter (or a tol above 0), and a solver listed twice (also with\n"
          "the same options written otherwise) are refused as bad input.\n"
          "Exit status: 0 done (solver failures are results, recorded in the file), 1\n"
          "stopped (a dense reference above --dense-limit, or a disk or ulimit -f about to\n"
          "fill: the file keeps the steps before, marked stopped), 2 bad input (no file is\n"
          "written),\n"
          "130 / 143 / 129 interrupted by SIGINT / SIGTERM / SIGHUP: the comparison stops\n"
          "between steps\n"
          "(problems) and the file keeps those done, marked\n"
          "interrupted (/summary/run_end); a solve under way finishes first (one can\n"
          "run for hours: --time-limit bounds each), and a second signal ends the\n"
          "comparison at once, as a kill does. A killed comparison leaves PATH.<pid>.partial\n"
          "(its rows up to its last flush, once a second; no /summary); a\n"
          "new one of PATH names such leftovers in one stderr note and leaves them alone.\n");
}


/* Prints v with fmt, or "-" when it is NaN. */
static void put(FILE *f, const char *fmt, double v) {
  if (isnan(v)) fputs("-", f);
  else fprintf(f, fmt, v);
}

/* The summary table: per series, success at the stated tolerance, solves that missed it though
 * finished by their own status, stops at the budget and failures apart (each problem in one
 * count, a budget stop that succeeded in two), the solver's own tolerance beside. */
static void print_summary(FILE *f, const LsimCompareResult *r, int csv) {
  const LsimCompareTable *t = &r->table;
  const char *last = r->fc ? "worst cone violation"
                     : r->independent ? "max q divergence"
                     : r->lcpset ? "max distance to reference (unique solutions)"
                                 : "max velocity difference to reference";
  if (csv) {
    fprintf(f, "series,problems,success_rate,missed_tolerance,budget_stops,failures,skipped,solver_tol,"
               "median_time_us,worst_time_us,median_iterations,max_iterations,"
               "median_rel_residual,worst_rel_residual,%s\n",
            r->fc ? "worst_cone_violation"
            : r->independent ? "max_q_divergence"
            : r->lcpset ? "max_distance_to_reference" : "max_velocity_difference");
  } else {
    fprintf(f, "%s\n\n", r->title);
    fprintf(f,
            "| solver | problems | success | missed tol. | stopped at budget | failed | skipped | solver tol "
            "| median time [us] | worst time [us] | median iter. | max iter. | median rel. "
            "residual | worst rel. residual | %s |\n",
            last);
    fprintf(f, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  }
  const char *sep = csv ? "," : " | ";
  for (int s = 0; s < t->P; ++s) {
    const LsimCompareSummary *x = &r->summary[s];
    if (csv) fprintf(f, "\"%s\"", r->labels[s]);
    else fprintf(f, "| %s", r->labels[s]);
    fprintf(f, "%s%d%s", sep, x->problems, sep);
    if (csv) put(f, "%.6g", x->success_rate);
    else put(f, "%.1f%%", 100.0 * x->success_rate);
    fprintf(f, "%s%d%s%d%s%d%s%d%s", sep, x->missed, sep, x->budget, sep, x->failures, sep,
            x->skipped, sep);
    if (r->solver_tol[s] > 0.0) fprintf(f, "%.0e", r->solver_tol[s]);
    else if (r->solver_max_iter[s] > 0)
      fprintf(f, csv ? "budget %d" : "budget %d sweeps", r->solver_max_iter[s]);
    else fputs(csv ? "budget default" : "budget: the solver's default", f); /* tol=0 alone */
    fputs(sep, f);
    put(f, "%.3g", 1e6 * x->median_wall);
    fputs(sep, f);
    put(f, "%.3g", 1e6 * x->worst_wall);
    fputs(sep, f);
    if (x->problems > x->failures && x->max_iters < 0) fputs("n/a", f);
    else put(f, "%.6g", x->median_iters);
    /* "-" when no solve counts (every one failed), as the other aggregates' NaN */
    if (x->problems > x->failures && x->max_iters >= 0) fprintf(f, "%s%d%s", sep, x->max_iters, sep);
    else if (x->problems > x->failures) fprintf(f, "%sn/a%s", sep, sep); /* no count given */
    else fprintf(f, "%s-%s", sep, sep);
    put(f, "%.2e", x->median_rel);
    fputs(sep, f);
    put(f, "%.2e", x->worst_rel);
    fputs(sep, f);
    put(f, "%.2e", r->fc ? x->worst_cone : r->independent ? x->max_qdiff : x->max_dist);
    fputs(csv ? "\n" : " |\n", f);
  }
  if (!csv)
    fprintf(f, "\nTimes, iterations, residuals and the last column are over the solves that did "
               "not fail (a budget stop counts); failed solves are counted, their time to fail "
               "is /summary/median_failure_wall_time. Missed tol.: solves that finished "
               "(solved by their own status) above the success tolerance.\n");
}

/* A progress bar on stderr (only when it is a terminal). */
static void progress_bar(void *arg, int done, int total) {
  (void)arg;
  const int width = 40, fill = total > 0 ? (int)((long)width * done / total) : width;
  char bar[64];
  for (int i = 0; i < width; ++i) bar[i] = i < fill ? '#' : '.';
  bar[width] = '\0';
  fprintf(stderr, "\rcompare [%s] %d/%d", bar, done, total);
  if (done >= total) fputc('\n', stderr);
  fflush(stderr);
}

/* The output path is known: a note on its leftover partial files (cli/run.c). */
static void note_leftovers(void *arg, const char *path) {
  (void)arg;
  lsim_cli_note_leftovers(path);
}

int lsim_cli_compare(int argc, char **argv) {
  const char *out_path = NULL, *list = NULL, *ref_text = NULL, *mode_text = "shadow";
  const char *inputs[4096];
  int ninputs = 0, csv = 0, quiet = 0, dump = 0, trajectory = 0, steps_override = -1,
      dense_limit = LSIM_COMPARE_DENSE_LIMIT_DEFAULT;
  int repeat = 1;
  double time_limit = 0.0;
  double success_tol = 1e-6;
  char err[1024];

  /* Arguments. */
  const char *seen[64]; /* options met (lsim_cli_once) */
  int nseen = 0;
  for (int i = 0; i < argc; ++i) {
    const char *a = argv[i];
    if (a[0] == '-' && a[1] && lsim_cli_once("lcpsim compare", a, seen, &nseen, 64)) return 2;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      compare_usage(stdout);
      return 0;
    } else if (!strcmp(a, "--csv")) {
      csv = 1;
    } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
      quiet = 1;
    } else if (!strcmp(a, "--dump-lcp")) {
      dump = 1;
    } else if (!strcmp(a, "--trajectory")) {
      trajectory = 1;
    } else if (!strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "--solvers") ||
               !strcmp(a, "--mode") || !strcmp(a, "--reference") || !strcmp(a, "--steps") ||
               !strcmp(a, "--success-tol") || !strcmp(a, "--dense-limit") ||
               !strcmp(a, "--repeat") || !strcmp(a, "--time-limit")) {
      if (i + 1 >= argc) {
        fprintf(stderr, "lcpsim compare: %s needs a value\n", a);
        return 2;
      }
      const char *v = argv[++i];
      if (lsim_cli_value_missing("lcpsim compare", a, v)) return 2;
      if (!strcmp(a, "-o") || !strcmp(a, "--output")) out_path = v;
      else if (!strcmp(a, "--solvers")) list = v;
      else if (!strcmp(a, "--mode")) mode_text = v;
      else if (!strcmp(a, "--reference")) ref_text = v;
      else if (!strcmp(a, "--time-limit")) {
        if (lsim_cli_parse_double(v, &time_limit) || !(time_limit > 0.0)) {
          fprintf(stderr, "lcpsim compare: --time-limit: need a number of seconds > 0, got "
                  "'%s'\n", v);
          return 2;
        }
      } else if (!strcmp(a, "--repeat")) {
        if (lsim_cli_parse_int(v, &repeat) || repeat < 1 || repeat > LSIM_COMPARE_MAX_REPEAT) {
          fprintf(stderr, "lcpsim compare: --repeat: need an integer from 1 to %d, got '%s'\n",
                  LSIM_COMPARE_MAX_REPEAT, v);
          return 2;
        }
      } else if (!strcmp(a, "--dense-limit")) {
        if (lsim_parse_int(v, &dense_limit) || dense_limit < 0) {
          fprintf(stderr, "lcpsim compare: --dense-limit: need an integer >= 0, got '%s'\n", v);
          return 2;
        }
      } else if (!strcmp(a, "--steps")) {
        if (lsim_parse_int(v, &steps_override) || steps_override < 1) {
          fprintf(stderr, "lcpsim compare: --steps: need an integer >= 1, got '%s'\n", v);
          return 2;
        }
      } else if (lsim_parse_double(v, &success_tol) || !(success_tol >= 0.0)) {
        fprintf(stderr, "lcpsim compare: --success-tol: need a finite number >= 0 (in double range), got '%s'\n", v);
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
    else fprintf(stderr, "lcpsim compare: no SCENE.json or problem files given (see lcpsim compare --help)\n");
    return 2;
  }
  int independent = 0;
  if (!strcmp(mode_text, "independent")) independent = 1;
  else if (strcmp(mode_text, "shadow")) {
    fprintf(stderr, "lcpsim compare: --mode: shadow or independent, got '%s'\n", mode_text);
    return 2;
  }
  /* Independent trajectories step each solver once per step: nothing to repeat from the
     same start (the file would say repeat 1). */
  if (independent && repeat > 1) {
    fprintf(stderr, "lcpsim compare: --repeat %d: --mode independent solves each step once "
            "(a trajectory goes on from it); --repeat applies to shadow mode and problem "
            "files\n", repeat);
    return 2;
  }

  /* The comparison. */
  LsimCompareConfig cfg = lsim_default_compare_config();
  cfg.inputs = inputs;
  cfg.ninputs = ninputs;
  cfg.solvers = list;
  cfg.reference = ref_text;
  cfg.output = out_path;
  cfg.independent = independent;
  cfg.dump_lcp = dump;
  cfg.trajectory = trajectory;
  cfg.steps = steps_override;
  cfg.dense_limit = dense_limit;
  cfg.success_tol = success_tol;
  cfg.repeat = repeat;
  cfg.time_limit = time_limit;
  /* Messages name the command's flags (an output that is an input: "-o PATH: is the input
     file ...", refused by the comparison itself before anything is read). */
  const LsimCompareNames flags = {"--solvers", "--reference", "-o", "--mode independent",
                                  "--dump-lcp", "--trajectory", "--dense-limit", "--steps"};
  cfg.names = flags;
  if (!quiet && isatty(STDERR_FILENO)) cfg.progress = progress_bar;
  /* Leftover partial files of the output: the note lcpsim run gives (cli/run.c). */
  cfg.output_named = note_leftovers;
  /* Under mpirun the problems are shared out over the ranks; rank 0 writes and prints. */
  lsim_mpi_start();
  const int root = lsim_mpi_rank() == 0;
  if (!root) cfg.progress = NULL;
  /* SIGINT / SIGTERM stop a serial comparison between problems (cli/interrupt.c); under
     mpirun (several ranks) they end the job as mpirun decides. */
  const int serial = lsim_mpi_size() == 1;
  if (serial) {
    cfg.stop = &lsim_cli_interrupted;
    lsim_cli_catch_interrupts(1);
  }
  LsimCompareResult res;
  const int rc = lsim_compare_run(&cfg, &res, err, sizeof err);
  if (serial) lsim_cli_catch_interrupts(0);
  int code = rc ? 2 : 0;
  if (rc) {
    if (root) fprintf(stderr, "lcpsim compare: %s\n", err);
  } else {
    if (!quiet && root) print_summary(stdout, &res, csv);
    /* A scene whose steps had no LCP (nothing in contact over them): every row of the
       table empty, said in words rather than by dashes alone. */
    int solved = 0;
    for (int s = 0; s < res.table.P; ++s) solved += res.summary[s].problems + res.summary[s].skipped;
    if (root && !solved && !res.lcpset && !res.fc && res.table.N > 0)
      fprintf(stderr, "lcpsim compare: note: none of the %d steps had an LCP (no contact or "
              "tether row active): no solver was compared; give more --steps or a scene whose "
              "bodies touch\n", res.table.N);
    /* Interrupted: one line saying where, the file holding the problems done (from rank
       0, which writes that file: under mpirun every rank had printed it). */
    if (res.interrupted) {
      const char *what = res.lcpset || res.fc ? "problems" : "steps";
      if (cfg.progress) fputc('\n', stderr);
      if (root)
        fprintf(stderr, "lcpsim compare: interrupted by %s after %d of %d %s; %s holds them "
                "(/summary/run_end: interrupted)\n", lsim_cli_signal_name(res.interrupted),
                res.table.N, res.asked, what, res.path);
      code = lsim_cli_interrupt_status(res.interrupted);
    } else if (res.stopped[0]) {
      /* Stopped (a dense reference above the dense limit, a disk about to fill): the
         reason, the file holding the problems before it (rank 0's line alone, as above). */
      if (cfg.progress) fputc('\n', stderr);
      if (root)
        fprintf(stderr, "lcpsim compare: stopped at %s; %s holds the %d %s before it "
                "(/summary/run_end: stopped)\n", res.stopped, res.path, res.table.N,
                res.lcpset || res.fc ? "problems" : "steps");
      code = 1;
    }
    lsim_compare_result_free(&res);
  }
  lsim_mpi_finish();
  return code;
}
