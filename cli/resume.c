/* resume.c: `lcpsim SCENE.json --resume RUN.h5`: the checks and settings of a continued run
 * (scene/resume.h reads the file; cli/run.c runs the steps). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "contact/world.h"
#include "scene/outfile.h"
#include "scene/resume.h"

void lsim_cli_reading_live(const char *prog, const char *path) {
  if (!lsim_outfile_being_written(path)) return;
  setenv("HDF5_USE_FILE_LOCKING", "FALSE", 1); /* read at each H5Fopen (HDF5 1.10.7 on) */
  fprintf(stderr, "%s: note: %s: a running lcpsim writes it now: read as of its last flush "
            "(a read that meets its next flush may fail: read again, or stop the run first)\n",
            prog, path);
}

int lsim_cli_resume_output(const char *run, char *buf, size_t len) {
  /* RUN.<pid>.partial -> RUN; then .h5 off; then .resumed.h5 on. */
  size_t k = strlen(run);
  const char *suffix = ".partial";
  const size_t ls = strlen(suffix);
  if (k > ls && !strcmp(run + k - ls, suffix)) {
    size_t j = k - ls;
    while (j > 0 && run[j - 1] >= '0' && run[j - 1] <= '9') --j;
    if (j < k - ls && j > 1 && run[j - 1] == '.') k = j - 1;
  }
  if (k > 3 && !strncmp(run + k - 3, ".h5", 3)) k -= 3;
  const int n = snprintf(buf, len, "%.*s.resumed.h5", (int)k, run);
  if (n >= 0 && (size_t)n < len) return 0;
  fprintf(stderr, "lcpsim: --resume %.200s...: output path too long\n", run);
  return 2;
}

/* One setting given on the command line against the run's: an error line when they differ. */
static int differs(const char *run, const char *option, const char *mine, const char *theirs) {
  if (!strcmp(mine, theirs)) return 0;
  fprintf(stderr, "lcpsim: %s %s differs from the run's %s in %s: a continued run takes the run's "
          "settings (leave %s out)\n", option, mine, theirs, run, option);
  return 2;
}

int lsim_cli_resume_setup(const char *run, const char *scene_path, const char *text,
                          LsimModel *model, const char **solver_name, const LsimCliGiven *given,
                          LsimResumeInfo *info) {
  char msg[2048];
  char *run_text = NULL;
  if (model->integrator != LSIM_INTEGRATOR_TIME_STEPPING) {
    fprintf(stderr, "lcpsim: %s: \"integrator\": \"event_driven\": an event-driven run cannot be "
            "resumed (the integrator's state between samples is not in the file); run it again "
            "with a longer duration\n", scene_path);
    return 2;
  }
  if (lsim_resume_read_info(run, info, &run_text, msg, sizeof msg)) {
    fprintf(stderr, "lcpsim: --resume %s\n", msg);
    return 2;
  }
  int rc = lsim_resume_compare_scenes(text, scene_path, run_text, run, msg, sizeof msg);
  free(run_text);
  if (rc) {
    fprintf(stderr, "lcpsim: %s\n", msg);
    return 2;
  }
  if (info->has_lcp || given->dump_lcp) {
    fprintf(stderr, "lcpsim: --resume %s: %s: a continued run does not dump LCPs (run the steps "
            "wanted with --dump-lcp from the start)\n", run,
            info->has_lcp ? "the run dumped its LCPs (/lcp)" : "--dump-lcp");
    return 2;
  }
  /* The run's solver settings, which the command line may repeat but not change. */
  char mine[64], theirs[64];
  const LsimSolverSettings *so = &model->solver;
  if (!model->friction_exact) {
    const char *name = *solver_name ? *solver_name : so->name;
    if (given->solver && differs(run, "--solver", name, info->solver_name)) return 2;
    if (strcmp(name, info->solver_name)) *solver_name = info->solver_name;
  }
#define SETTING(flag, opt, fmt, field, value)                                                  \
  if (given->flag) {                                                                           \
    snprintf(mine, sizeof mine, fmt, so->field);                                               \
    snprintf(theirs, sizeof theirs, fmt, value);                                               \
    if (differs(run, opt, mine, theirs)) return 2;                                             \
  }                                                                                            \
  model->solver.field = value;
  SETTING(tol, "--tol", "%.17g", tol, info->tol)
  SETTING(max_iter, "--max-iter", "%d", max_iter, info->max_iter)
  SETTING(omega, "--omega", "%.17g", omega, info->omega)
  SETTING(threads, "--threads", "%d", threads, info->threads)
  SETTING(sparse_limit, "--sparse-limit", "%d", sparse_limit, info->sparse_limit)
  if (info->on_failure >= 0) {
    if (given->on_failure && differs(run, "--on-failure", lsim_on_failure_name(so->on_failure),
                                     lsim_on_failure_name(info->on_failure)))
      return 2;
    model->solver.on_failure = info->on_failure;
  }
#undef SETTING
  /* Sparse Lemke's settings in effect: the scene's keys are the run's (the same scene),
     but an environment's LSIM_LU_SOLVE, LSIM_LU_REFACTOR or LSIM_BLOCK_START may differ. */
  if (lsim_resume_check_sparse(run, info, model, msg, sizeof msg) ||
      lsim_resume_check_principal(run, info, model, msg, sizeof msg) ||
      lsim_resume_check_precision(run, info, model, msg, sizeof msg) ||
      lsim_resume_check_env(run, info, msg, sizeof msg)) {
    fprintf(stderr, "lcpsim: --resume %s\n", msg);
    return 2;
  }
  if (info->warm_start != so->warm_start) {
    fprintf(stderr, "lcpsim: --resume %s: its solver_warm_start is %d, the scene's %d: the run is "
            "not of this scene\n", run, info->warm_start, so->warm_start);
    return 2;
  }
  /* The run's end: --steps / --duration, else the steps the run asked for. */
  if (!given->steps) model->steps = info->steps_asked;
  if (model->steps <= info->steps_done) {
    if (given->steps)
      fprintf(stderr, "lcpsim: --resume %s: --steps / --duration end the run at step %d, and it "
              "holds %d steps already (%s): give a later end (the steps of the whole run)\n",
              run, model->steps, info->steps_done, info->run_end);
    else
      fprintf(stderr, "lcpsim: --resume %s: the run holds the %d steps it asked for (%s): give "
              "its new end with --steps N or --duration T (N > %d: the steps of the whole "
              "run)\n", run, info->steps_done, info->run_end, info->steps_done);
    return 2;
  }
  return 0;
}
