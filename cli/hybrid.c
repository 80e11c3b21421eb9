/* hybrid.c: `lcpsim SCENE.json` for a hybrid-model scene (docs/hybrid.md): run the model
 * on the event engine and write its HDF5 file. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "hybrid/record.h"
#include "scene/scene.h"
#include "hybrid/run.h"
#include "hybrid/model.h"
#include "hybrid/scene.h"
#include "scene/outfile.h"

static double seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The samples a run of final_time T at record_period p (> 0) takes: the multiples
 * k p <= T (k from 0, compared as hybrid/ode.c computes them, (double)k * p), and the
 * final state at T unless the last multiple is T. */
static long long samples_expected(double T, double p) {
  long long k = (long long)floor(T / p);
  while ((double)(k + 1) * p <= T) ++k;
  while (k > 0 && (double)k * p > T) --k;
  return k + 1 + ((double)k * p != T);
}

/* The observer of the run: the file's writer, then the progress bar (samples so far). */
typedef struct Observed {
  LsimHybridRecord *rec;
  LsimCliProgress bar;
} Observed;

static int observe(const LsimHybridTrace *tr, void *user) {
  Observed *ob = user;
  const int rc = lsim_hybrid_record_observe(tr, ob->rec);
  /* The clock read every 64 samples only (a million samples a second). */
  if (ob->bar.on && (tr->nsamples % 64 == 0 || tr->nsamples == ob->bar.total))
    lsim_cli_progress_update(&ob->bar, (int)tr->nsamples);
  return rc;
}

/* The transitions as a table: time, from -> to, boundary, and the state after. A write
   that fails (the reader gone: | head, a full disk) ends the table, said once on stderr;
   the file is already complete. */
static void print_events(const LsimHybridModel *m, const LsimHybridTrace *tr, const char *path) {
  /* A state's column as wide as its name, at least 15 (%.9g's widest: -1.23456789e-10): cut
     to 14 characters, slip's touchdown_angle was headed touchdown_angl, and a value of 15
     characters pushed the columns after it one right. */
  printf("%6s %16s  %-28s %-12s", "event", "time [s]", "chart -> chart", "boundary");
  for (int i = 0; i < m->nstates; ++i) {
    const int w = (int)strlen(m->state_names[i]);
    printf(" %*s", w > 15 ? w : 15, m->state_names[i]);
  }
  printf("\n");
  long k = 0;
  for (; k < tr->nevents && !ferror(stdout); ++k) {
    const LsimHybridChart *from = &m->charts[tr->ev_from[k]];
    char arrow[64];
    snprintf(arrow, sizeof arrow, "%s -> %s", from->name, m->charts[tr->ev_to[k]].name);
    printf("%6ld %16.10f  %-28s %-12s", k + 1, tr->ev_time[k], arrow,
           from->boundary_names[tr->ev_boundary[k]]);
    for (int i = 0; i < m->nstates; ++i) {
      const int w = (int)strlen(m->state_names[i]);
      printf(" %*.9g", w > 15 ? w : 15, tr->ev_after[k * tr->nstates + i]);
    }
    printf("\n");
  }
  int err = ferror(stdout) ? errno : 0; /* the loop's failed write's */
  if (fflush(stdout) == EOF && !err) err = errno;
  if (ferror(stdout)) {
    err = err ? err : EIO;
    fprintf(stderr, "lcpsim: note: --print: writing the table to standard output failed (%s) "
            "by event %ld of %ld: the table stops there; the run is complete in %s\n",
            strerror(err), k, tr->nevents, path);
  }
}

int lsim_cli_hybrid(const char *scene_path, const char *text, const char *out_path,
                    double duration, const char *duration_text, int print, int quiet) {
  LsimHybridScene s;
  LsimSceneError serr;
  char msg[LSIM_OUTFILE_MSG_MAX];
  if (lsim_hybrid_scene_parse(text, scene_path, &s, &serr)) {
    lsim_scene_error_format(&serr, msg, sizeof msg);
    fprintf(stderr, "lcpsim: %s\n", msg);
    return 2;
  }
  if (duration > 0.0) s.options.final_time = duration;
  if (duration > 0.0 && duration < LSIM_ODE_TIME_FLOOR) {
    fprintf(stderr, "lcpsim: --duration %s s is below %g s, too short for CVODE to step (a hybrid run "
            "of %s)\n", duration_text, LSIM_ODE_TIME_FLOOR, scene_path);
    return 2;
  }
  if (duration > 0.0 && s.options.record_period > 0 &&
      duration / s.options.record_period > LSIM_HYBRID_MAX_SAMPLES) {
    char ps[32];
    fprintf(stderr, "lcpsim: --duration %s s with %s's record_period %s s gives %.3g samples; "
            "at most %d\n", duration_text, scene_path,
            lsim_format_exact(s.options.record_period, ps, sizeof ps),
            duration / s.options.record_period, LSIM_HYBRID_MAX_SAMPLES);
    return 2;
  }
  print = print || s.print;
  char path[LSIM_OUTFILE_PATH_MAX];
  if (lsim_cli_output_path(scene_path, out_path, s.output_file, path, sizeof path)) {
    return 2;
  }
  /* The scene is no output (scene/outfile.h: the check the library's records make too). */
  char same[LSIM_OUTFILE_PATH_MAX + 256];
  if (lsim_outfile_check_inputs(out_path ? "-o" : "output", path, "scene file", &scene_path, 1,
                                same, sizeof same)) {
    lsim_cli_output_refused(scene_path, text, out_path, same);
    return 2;
  }
  /* The file opened before the run (scene/outfile.h: a bad output refused now, not after
     it) and written as the run goes, so a killed run leaves its partial file. */
  LsimHybridRecord *rec = NULL;
  /* SIGINT / SIGTERM / SIGHUP caught from before the file exists (cli/run.c): one that
     comes while its header is written stops the run before its first sample. */
  lsim_cli_catch_interrupts(1);
  if (lsim_hybrid_record_open(&rec, path, s.model, s.params, s.initial, &s.options, text, msg,
                              sizeof msg)) {
    lsim_cli_catch_interrupts(0);
    fprintf(stderr, "lcpsim: %s\n", msg);
    return 2;
  }
  lsim_cli_note_leftovers(path); /* killed runs' partial files (ours has a live pid) */
  /* The rows leave memory once in the file (a long run's memory stays flat), unless
     --print needs the transitions at the end. */
  lsim_hybrid_record_release_rows(rec, !print);

  /* The run, interruptible (SIGINT, SIGTERM, SIGHUP); the file keeps what was done. The progress
     bar counts samples (on a terminal, as time-stepping runs; none with a record_period
     of 0, a sample per integration step, whose count is not known beforehand), redrawn
     every half second (not every 50 samples: a million a second here). */
  const double t0 = seconds();
  const long long expected = s.options.record_period > 0
                                 ? samples_expected(s.options.final_time, s.options.record_period)
                                 : 0;
  Observed ob = {.rec = rec,
                 .bar = {.on = !quiet && !print && isatty(fileno(stderr)) && expected > 0 &&
                               expected <= LSIM_HYBRID_MAX_SAMPLES,
                         .total = (int)(expected <= LSIM_HYBRID_MAX_SAMPLES ? expected : 0),
                         .unit = "samples", .every = -1, .t0 = lsim_cli_now()}};
  LsimHybridTrace tr;
  const int rc = lsim_hybrid_run_observed(s.model, s.params, s.initial, s.chart, &s.options,
                                          &lsim_cli_interrupted, observe, &ob, &tr, msg,
                                          sizeof msg);
  /* The signals stay caught until the file is closed (cli/run.c): one that comes after
     the run, while the file is closed, is noted, not the default action that killed the
     process there and left PATH.<pid>.partial of a finished run. */
  lsim_cli_progress_end(&ob.bar);
  if (rc) {
    /* A run that could not start (bad parameters or initial state) leaves no file; one
       whose file failed says why. */
    char werr[LSIM_OUTFILE_MSG_MAX] = "";
    if (lsim_hybrid_record_close(rec, &tr, 0.0, 0, werr, sizeof werr))
      fprintf(stderr, "lcpsim: %s\n", werr);
    else
      fprintf(stderr, "lcpsim: %s: %s\n", scene_path, msg);
    lsim_hybrid_trace_free(&tr);
    return 2;
  }
  /* A run its file stopped (too little room left on the disk for more: hybrid/record.h)
     says why, as a time-stepping run's does: the file and the room. */
  if (tr.end == LSIM_HYBRID_STOPPED && *lsim_hybrid_record_space_low(rec))
    snprintf(tr.end_reason, sizeof tr.end_reason, "t = %.9g s: %s",
             tr.time[tr.nsamples - 1 - tr.sample_base], lsim_hybrid_record_space_low(rec));
  /* An interrupted run's reason names the signal, as a time-stepping run's does. */
  if (tr.end == LSIM_HYBRID_INTERRUPTED) {
    char why[sizeof tr.end_reason];
    snprintf(why, sizeof why, "%s", tr.end_reason);
    snprintf(tr.end_reason, sizeof tr.end_reason, "%s: %.300s",
             lsim_cli_signal_name(lsim_cli_interrupted), why);
  }
  if (lsim_hybrid_record_close(rec, &tr, seconds() - t0, 1, msg, sizeof msg)) {
    fprintf(stderr, "lcpsim: %s\n", msg);
    lsim_hybrid_trace_free(&tr);
    return 2;
  }
  lsim_cli_catch_interrupts(0);
  if (lsim_cli_interrupted && tr.end != LSIM_HYBRID_INTERRUPTED)
    fprintf(stderr, "lcpsim: %s came after the last sample, while %s was closed: the run is "
            "complete and the file whole\n", lsim_cli_signal_name(lsim_cli_interrupted), path);
  /* A table piped into a reader that stops early (| head) must not end the command with
     SIGPIPE (exit 141): writes to a closed pipe fail (EPIPE) instead, and the table stops
     there (print_events), as a time-stepping run's does (cli/run.c). */
  if (print) {
    signal(SIGPIPE, SIG_IGN);
    print_events(s.model, &tr, path);
  }
  int code = 0;
  if (tr.end == LSIM_HYBRID_STOPPED) {
    fprintf(stderr, "lcpsim: %s: the run stopped: %s; %s holds it up to there\n", scene_path,
            tr.end_reason, path);
    code = 1;
  } else if (tr.end == LSIM_HYBRID_INTERRUPTED) {
    fprintf(stderr, "lcpsim: %s; %s holds the run up to there (/summary/run_end: "
            "interrupted)\n", tr.end_reason, path);
    code = lsim_cli_interrupt_status(lsim_cli_interrupted);
  }
  if (!quiet)
    printf("%s: hybrid model %s, %.6g s in %ld chart transitions, %ld integration steps, "
           "%ld samples, max |boundary| at events %.2e, %.3f s -> %s\n",
           scene_path, s.model->name, tr.time[tr.nsamples - 1 - tr.sample_base], tr.nevents, tr.stats.steps,
           tr.nsamples, tr.stats.max_event_g, seconds() - t0, path);
  lsim_hybrid_trace_free(&tr);
  return code;
}

/* One model in full: what a scene can set. */
static void describe(const LsimHybridModel *m) {
  printf("%s: %s\nstates (\"initial\", default):\n", m->name, m->description);
  for (int i = 0; i < m->nstates; ++i)
    printf("  %-18s %g%s%s\n", m->state_names[i], m->default_state[i],
           m->state_units && m->state_units[i][0] ? " " : "", m->state_units ? m->state_units[i] : "");
  printf("parameters (\"parameters\", default):\n");
  for (int i = 0; i < m->nparams; ++i)
    printf("  %-18s %g%s%s\n", m->param_names[i], m->default_params[i],
           m->param_units && m->param_units[i][0] ? " " : "", m->param_units ? m->param_units[i] : "");
  printf("charts (\"chart\") and their boundaries:\n");
  for (int c = 0; c < m->ncharts; ++c) {
    const LsimHybridChart *ch = &m->charts[c];
    printf("  %-18s", ch->name);
    for (int b = 0; b < ch->nboundaries; ++b) printf(" %s", ch->boundary_names[b]);
    printf(ch->nboundaries ? "\n" : " (none)\n");
  }
  printf("outputs:");
  for (int i = 0; i < m->noutputs; ++i)
    printf(m->output_units && m->output_units[i][0] ? " %s [%s]" : " %s", m->output_names[i],
           m->output_units ? m->output_units[i] : "");
  printf("\n");
}

int lsim_cli_models(int argc, char **argv) {
  if (argc > 1 || (argc == 1 && (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h")))) {
    fprintf(argc > 1 ? stderr : stdout,
            "usage: lcpsim models [NAME]\n  Lists the hybrid models a scene's \"hybrid\": "
            "{\"model\": NAME} can name, or\n  one model's states, parameters (with defaults), "
            "charts and outputs.\n");
    return argc > 1 ? 2 : 0;
  }
  if (argc == 1) {
    const LsimHybridModel *m = lsim_hybrid_model_find(argv[0]);
    if (!m) {
      fprintf(stderr, "lcpsim: no hybrid model '%s' (lcpsim models lists them)\n", argv[0]);
      return 2;
    }
    describe(m);
    return 0;
  }
  for (int i = 0; lsim_hybrid_model_at(i); ++i)
    printf("%-16s %s\n", lsim_hybrid_model_at(i)->name, lsim_hybrid_model_at(i)->description);
  return 0;
}
