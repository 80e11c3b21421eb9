/* run.c: `lcpsim SCENE.json`: simulate a scene and record it to HDF5. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "contact/assembly.h"
#include "contact/constraints.h"
#include "contact/guard.h"
#include "contact/step.h"
#include "contact/world.h"
#include "hybrid/scene.h"
#include "lcp/pgs.h"
#include "lcp/solver.h"
#include "scene/lcpdump.h"
#include "scene/outfile.h"
#include "scene/record.h"
#include "scene/resume.h"
#include "hybrid/event_driven.h"
#include "scene/scene.h"

static void run_usage(FILE *f) {
  fprintf(f,
          "usage: lcpsim [run] SCENE.json [-o FILE] [--solver NAME] [--steps N]\n"
          "                    [--duration T] [--tol X] [--max-iter N] [--omega W]\n"
          "                    [--threads T] [--on-failure P] [--sparse-limit N]\n"
          "                    [--print] [--quiet]\n"
          "                    [--dump-lcp] [--dump-dense-limit N] [--solver-output]\n"
          "                    [--resume RUN.h5] [--record-every K]\n"
          "  Simulates the scene and writes an HDF5 file (docs/output-format.md).\n"
          "  -o, --output FILE  output file (default: the scene's output.file, relative to\n"
          "                     the scene's folder (the current one for a piped scene),\n"
          "                     else SCENE's base name with .h5 in the current folder)\n"
          "  --solver NAME      override the scene's solver (lcpsim solvers lists them)\n"
          "  --steps N          override the number of steps\n"
          "  --duration T       override the duration (steps = T / time_step)\n"
          "  --tol X            override the solver tolerance (relative natural residual)\n"
          "  --max-iter N       override the pivot / sweep limit (0: the solver's default;\n"
          "                     PGS with --tol 0 --max-iter 20 runs exactly 20 sweeps)\n"
          "  --omega W          override the PGS relaxation, in (0, 2)\n"
          "  --threads T        override the PGS sweep team size, 1 .. 64 (results depend on\n"
          "                     T, never on the machine or the run; docs/solvers.md)\n"
          "  --on-failure P     what a failed solve leads to (overrides solver.on_failure):\n"
          "                     fallback (default: the chain of docs/solvers.md, \"Failure\n"
          "                     policy\", keeps the best result), stop (end the run there,\n"
          "                     keeping the steps before it), continue (integrate the\n"
          "                     failed result); every step records its solver and residual\n"
          "  --sparse-limit N   newton: sparse Lemke after its own phases fail on a problem\n"
          "                     of n > 500 variables, when n <= N (-1: any n; 0: never, the\n"
          "                     default); exact on more steps, at seconds a step\n"
          "  --print            print a table per step: every coordinate of q and v of each\n"
          "                     moving body (columns x[NAME] m, ...), and the contact\n"
          "                     impulses; a reader that stops early (| head) ends the table,\n"
          "                     not the run\n"
          "  --quiet            no progress bar (steps done, time, time left), no summary\n"
          "  --dump-lcp         store every step's LCP in the file (/lcp; lcpsim solve and\n"
          "                     lcpsim export read them): the factored form M = J B + C,\n"
          "                     and the dense M of steps with n <= the dense limit\n"
          "  --dump-dense-limit N  that limit (default 2048; 0: factored forms only; -1:\n"
          "                     every step's dense M too, 8 n^2 bytes a step)\n"
          "  --solver-output    show what Siconos solvers print (their stdout and stderr,\n"
          "                     captured and otherwise dropped), one stderr line per step\n"
          "  --record-every K   keep every K-th step in the file (and step 0 and the last\n"
          "                     step; overrides output.record_every): the steps are the same\n"
          "                     whatever K, the file about 1/K the size; failed steps between\n"
          "                     rows are counted in /solver/failed_steps and the summary\n"
          "                     (docs/output-format.md, \"Record stride\")\n"
          "  --resume RUN.h5    continue the run of this scene that RUN.h5 holds (interrupted,\n"
          "                     killed: RUN.h5.<pid>.partial, stopped by a full disk, or\n"
          "                     completed) from its last step, to --steps N / --duration T of\n"
          "                     the whole run (default: the steps the run asked for): the same\n"
          "                     steps, to the bit, as one run to that end. Writes every step\n"
          "                     to -o (default RUN.resumed.h5); RUN.h5 is only read. The run's\n"
          "                     solver settings apply (options may repeat them, not change\n"
          "                     them); a scene or file that differs is refused, naming the\n"
          "                     difference. Time-stepping runs only (docs/output-format.md,\n"
          "                     \"Resuming a run\")\n"
          "A scene with a \"hybrid\" object runs a hybrid model (docs/hybrid.md; lcpsim models\n"
          "lists them): of these options -o, --duration, --print and --quiet apply.\n"
          "Exit status: 0 success, 1 a solver failed on some step (the file says where) or\n"
          "the run stopped (a non-finite or runaway state, the scene's \"limits\", or a\n"
          "failure under --on-failure stop; the file keeps the steps before it), 2 bad\n"
          "input, 130 / 143 / 129 interrupted by SIGINT / SIGTERM / SIGHUP (the steps done\n"
          "are kept in the file, marked interrupted; a second signal ends the run at once,\n"
          "mid-step, as a kill would; under nohup SIGHUP is ignored). -o never replaces\n"
          "anything but a regular file: a directory, FIFO or block device is refused, a\n"
          "character device (/dev/null) written through; the scene itself is refused as -o,\n"
          "and so is a PATH another run is writing now (docs/output-format.md).\n"
          "A killed run leaves PATH.<pid>.partial (readable, up to its last flush); a new\n"
          "run of PATH names such leftovers in one stderr note and leaves them alone.\n");
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Fills err for the value at path in the scene text (lsim_scene_verror). */
static void scene_error(LsimSceneError *err, const char *text, const char *scene,
                        const char *path, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void scene_error(LsimSceneError *err, const char *text, const char *scene,
                        const char *path, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  lsim_scene_verror(err, text, scene, path, 0, fmt, ap);
  va_end(ap);
}

/* The output path: -o as given, else the scene's output.file (joined with the scene's
 * folder unless absolute), else the scene's base name with .h5 in the current folder.
 * A path that does not fit buf is refused (one stderr line, 2), never cut short. */
int lsim_cli_output_path(const char *scene, const char *out_path, const char *scene_file,
                         char *buf, size_t len) {
  int n;
  if (out_path) {
    n = snprintf(buf, len, "%s", out_path);
  } else if (scene_file && scene_file[0]) {
    /* A scene read from a pipe (/dev/stdin, <(...)) has no folder of its own: its relative
       output.file is taken from the current folder, not from /dev or /proc. */
    struct stat st;
    const char *slash = strrchr(scene, '/');
    if (stat(scene, &st) != 0 || !S_ISREG(st.st_mode)) slash = NULL;
    if (scene_file[0] == '/' || !slash) n = snprintf(buf, len, "%s", scene_file);
    else n = snprintf(buf, len, "%.*s/%s", (int)(slash - scene), scene, scene_file);
  } else {
    const char *base = strrchr(scene, '/');
    base = base ? base + 1 : scene;
    size_t k = strlen(base);
    if (k > 5 && strcmp(base + k - 5, ".json") == 0) k -= 5;
    n = snprintf(buf, len, "%.*s.h5", (int)k, base);
  }
  if (n >= 0 && (size_t)n < len) return 0;
  fprintf(stderr, "lcpsim: %s%.200s...: output path too long (%d characters, at most %zu)\n",
          out_path ? "-o " : "", out_path ? out_path : buf, n, len - 1);
  return 2;
}

void lsim_cli_output_refused(const char *scene, const char *text, const char *out_path,
                             const char *msg) {
  if (out_path) {
    fprintf(stderr, "lcpsim: %s\n", msg);
    return;
  }
  /* The scene's output.file: the place in the scene is named, as for any bad value. */
  LsimSceneError err;
  char line[LSIM_OUTFILE_PATH_MAX + 1024];
  scene_error(&err, text, scene, "output.file", "names the scene file itself: refused (it would "
              "be replaced)");
  lsim_scene_error_format(&err, line, sizeof line);
  fprintf(stderr, "lcpsim: %s\n", line);
}

void lsim_cli_note_leftovers(const char *path) {
  char first[LSIM_OUTFILE_PATH_MAX + 64];
  const int n = lsim_outfile_leftovers(path, first, sizeof first);
  if (n == 1)
    fprintf(stderr, "lcpsim: note: %s is left from an earlier run of this output that did not "
            "finish; it is kept as it is (docs/output-format.md, \"Output files\")\n", first);
  else if (n > 1)
    fprintf(stderr, "lcpsim: note: %s and %d more %s.<pid>.partial are left from earlier runs "
            "of this output that did not finish; they are kept as they are "
            "(docs/output-format.md, \"Output files\")\n", first, n - 1, path);
}

/* Names and units of one body's q and v columns, by dimension (contact/world.h). */
static const char *const q_names[3][7] = {
    {"x"}, {"x", "y", "theta"}, {"x", "y", "z", "qw", "qx", "qy", "qz"}};
static const char *const v_names[3][6] = {
    {"vx"}, {"vx", "vy", "omega"}, {"vx", "vy", "vz", "wx", "wy", "wz"}};
static const char *const q_units[3][7] = {
    {"m"}, {"m", "m", "rad"}, {"m", "m", "m", "", "", "", ""}};
static const char *const v_units[3][6] = {
    {"m/s"}, {"m/s", "m/s", "rad/s"}, {"m/s", "m/s", "m/s", "rad/s", "rad/s", "rad/s"}};


/* The width of a printed column, name[body] unit: at least 16, and wide enough for the
   body's whole name (terminal columns, not bytes, so that UTF-8 names are not misaligned); the
   header and every row use it, so the columns stay aligned. Names cut to 8 characters made
   grid copies' columns alike (box_stack_3d's five boxes all printed as box_0_0_). */
static int column_width(const char *body, const char *name, const char *unit) {
  const int w = lsim_cli_text_columns(name) + 2 + lsim_cli_text_columns(body) +
                (unit[0] ? 1 + lsim_cli_text_columns(unit) : 0);
  return w > 16 ? w : 16;
}

static void print_column_names(const char *body, int n, const char *const *names,
                               const char *const *units) {
  for (int j = 0; j < n; ++j) {
    /* name[body] unit, right-aligned in its column. */
    const int pad = column_width(body, names[j], units[j]) -
                    (lsim_cli_text_columns(names[j]) + 2 + lsim_cli_text_columns(body) +
                     (units[j][0] ? 1 + lsim_cli_text_columns(units[j]) : 0));
    printf(" %*s%s[%s]%s%s", pad, "", names[j], body, units[j][0] ? " " : "", units[j]);
  }
}

/* After a row of --print: 0 while standard output takes the table; 1 once a write to it
   failed (its reader gone, a full disk), which is said once on stderr: the run goes on. */
static int table_lost(int step, const char *path) {
  const int err = errno;
  if (!ferror(stdout)) return 0;
  fprintf(stderr, "lcpsim: note: --print: writing the table to standard output failed (%s) "
          "by step %d: the table stops there; the run goes on into %s\n",
          strerror(err ? err : EIO), step, path);
  return 1;
}

/* One column per coordinate of every moving body: all of q (position, then angle or
   quaternion), then all of v. */
static void print_header(const LsimModel *m) {
  const int d = m->dimension - 1;
  printf("%6s %12s", "step", "time [s]");
  for (int i = 0; i < m->nbodies; ++i) {
    const LsimBody *b = &m->bodies[i];
    if (b->nq == 0) continue;
    print_column_names(b->name, b->nq, q_names[d], q_units[d]);
    print_column_names(b->name, b->nv, v_names[d], v_units[d]);
  }
  printf("   contact impulses [N*s]: normal (; friction%s)\n",
         m->dimension > 1 ? " vector, world" : "");
}

static void print_row(const LsimModel *m, const LsimState *s, const LsimContactSet *cs) {
  printf("%6d %12.6g", s->step, s->time);
  for (int i = 0; i < m->nbodies; ++i) {
    const LsimBody *b = &m->bodies[i];
    if (b->nq == 0) continue;
    const int d = m->dimension - 1;
    for (int j = 0; j < b->nq; ++j)
      printf(" %*.9g", column_width(b->name, q_names[d][j], q_units[d][j]), s->q[b->q_offset + j]);
    for (int j = 0; j < b->nv; ++j)
      printf(" %*.9g", column_width(b->name, v_names[d][j], v_units[d][j]), s->v[b->v_offset + j]);
  }
  printf("  ");
  for (int c = 0; cs && c < cs->count; ++c) {
    const LsimContact *ct = &cs->contacts[c];
    const char *a = m->bodies[ct->body[0]].name;
    /* Without a second body: the 1-D ground (friction rows), else the world (a tether's or a
       joint's fixed or moving end); tethers and joints are named. */
    const int bound = ct->kind == LSIM_CONTACT_TETHER || ct->kind == LSIM_CONTACT_EQUALITY;
    const char *b = ct->body[1] >= 0 ? m->bodies[ct->body[1]].name : bound ? "world" : "ground";
    if (bound && ct->source >= 0) {
      /* A joint's rows (a pin's components) follow one another: one entry. */
      const int tether = ct->kind == LSIM_CONTACT_TETHER;
      printf(" %s|%s (%s %s): %.9g", a, b, tether ? "tether" : "joint",
             tether ? m->tethers[ct->source].name : m->joints[ct->source].name, ct->normal_impulse);
      while (!tether && c + 1 < cs->count && cs->contacts[c + 1].kind == LSIM_CONTACT_EQUALITY &&
             cs->contacts[c + 1].source == ct->source)
        printf(" %.9g", cs->contacts[++c].normal_impulse);
      continue;
    }
    if (ct->kind == LSIM_CONTACT_FIXED_NORMAL) {
      printf(" %s|%s: friction %.9g", a, b, ct->friction_impulse[0]);
      continue;
    }
    printf(" %s|%s: %.9g", a, b, ct->normal_impulse);
    if (ct->ndir <= 0) continue;
    /* 1-D friction is along the line; 2-D / 3-D it is a world vector (x, y (, z)). */
    const int nf = m->dimension == 1 ? 1 : m->dimension;
    printf(";");
    for (int j = 0; j < nf; ++j) printf(" %.9g", ct->friction_impulse[j]);
  }
  printf("\n");
}

/* lsim_event_driven_record's sample hook: the samples taken so far. */
static void progress_sample(int samples, void *user) {
  LsimCliProgress *p = user;
  lsim_cli_progress_update(p, p->first + samples);
}

/* The solver that solves the steps: the scene's, or with "cone": "exact" the exact-cone
 * solver whatever the scene's solver says (docs/scene-format.md, "contact"). */
static const char *step_solver_name(const LsimModel *m, LsimStepper *stepper) {
  return m->friction_exact ? "nsgs_aa" : lsim_solver_name(lsim_stepper_solver(stepper));
}

int lsim_cli_run(int argc, char **argv) {
  const char *scene_path = NULL, *out_path = NULL, *solver_name = NULL, *resume_path = NULL;
  int steps_override = -1, print = 0, quiet = 0, dump_lcp = 0, solver_output = 0;
  double duration = -1.0, tol_override = -1.0, omega_override = -1.0;
  const char *duration_text = NULL; /* --duration as given, for its messages */
  int max_iter_override = -1, threads_override = -1, on_failure_override = -1;
  int sparse_limit_override = -2, dump_dense_limit = LSIM_DUMP_DENSE_LIMIT, dense_limit_given = 0;
  int record_every = 0; /* --record-every; 0: not given */

  /* Arguments. */
  const char *seen[64]; /* options met (lsim_cli_once) */
  int nseen = 0;
  for (int i = 0; i < argc; ++i) {
    const char *a = argv[i];
    if (a[0] == '-' && a[1] && lsim_cli_once("lcpsim", a, seen, &nseen, 64)) return 2;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      run_usage(stdout);
      return 0;
    } else if (!strcmp(a, "--print")) {
      print = 1;
    } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
      quiet = 1;
    } else if (!strcmp(a, "--dump-lcp")) {
      dump_lcp = 1;
    } else if (!strcmp(a, "--solver-output")) {
      solver_output = 1;
    } else if (!strcmp(a, "--tol") || !strcmp(a, "--max-iter") || !strcmp(a, "--omega") ||
               !strcmp(a, "--threads") || !strcmp(a, "--sparse-limit") ||
               !strcmp(a, "--dump-dense-limit")) {
      if (i + 1 >= argc) {
        fprintf(stderr, "lcpsim: %s needs a value\n", a);
        return 2;
      }
      const char *v = argv[++i];
      if (!strcmp(a, "--tol")) {
        if (lsim_cli_parse_double(v, &tol_override) || !(tol_override >= 0.0)) {
          fprintf(stderr, "lcpsim: --tol: need a finite number >= 0 (in double range), got '%s'\n", v);
          return 2;
        }
      } else if (!strcmp(a, "--omega")) {
        if (lsim_cli_parse_double(v, &omega_override) ||
            !(omega_override > 0.0 && omega_override < 2.0)) {
          fprintf(stderr, "lcpsim: --omega: need a number in (0, 2) (in double range), got '%s'\n", v);
          return 2;
        }
      } else if (!strcmp(a, "--threads")) {
        if (lsim_cli_parse_int(v, &threads_override) || threads_override < 1 ||
            threads_override > LSIM_PGS_MAX_THREADS) {
          fprintf(stderr, "lcpsim: --threads: need an integer in [1, %d], got '%s'\n",
                  LSIM_PGS_MAX_THREADS, v);
          return 2;
        }
      } else if (!strcmp(a, "--sparse-limit")) {
        if (lsim_cli_parse_int(v, &sparse_limit_override) || sparse_limit_override < -1) {
          fprintf(stderr, "lcpsim: --sparse-limit: need an integer from -1 to 2147483647, got '%s'\n", v);
          return 2;
        }
      } else if (!strcmp(a, "--dump-dense-limit")) {
        if (lsim_cli_parse_int(v, &dump_dense_limit) || dump_dense_limit < -1) {
          fprintf(stderr, "lcpsim: --dump-dense-limit: need an integer from -1 to 2147483647, got '%s'\n", v);
          return 2;
        }
        dense_limit_given = 1;
      } else if (lsim_cli_parse_int(v, &max_iter_override) || max_iter_override < 0) {
        fprintf(stderr, "lcpsim: --max-iter: need an integer from 0 to 2147483647, got '%s'\n", v);
        return 2;
      }
    } else if (!strcmp(a, "--on-failure")) {
      if (i + 1 >= argc) {
        fprintf(stderr, "lcpsim: %s needs a value\n", a);
        return 2;
      }
      const char *v = argv[++i];
      if (lsim_on_failure_parse(v, &on_failure_override)) {
        fprintf(stderr, "lcpsim: --on-failure: need fallback, stop or continue, got '%s'\n", v);
        return 2;
      }
    } else if (!strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "--solver") ||
               !strcmp(a, "--steps") || !strcmp(a, "--duration") || !strcmp(a, "--resume") ||
               !strcmp(a, "--record-every")) {
      if (i + 1 >= argc) {
        fprintf(stderr, "lcpsim: %s needs a value\n", a);
        return 2;
      }
      const char *v = argv[++i];
      /* ("--solver -o x.h5" said "one scene only, got 'SCENE' and 'x.h5'") */
      if (lsim_cli_value_missing("lcpsim", a, v)) return 2;
      if (!strcmp(a, "-o") || !strcmp(a, "--output")) out_path = v;
      else if (!strcmp(a, "--resume")) resume_path = v;
      else if (!strcmp(a, "--solver")) solver_name = v;
      else if (!strcmp(a, "--record-every")) {
        if (lsim_cli_parse_int(v, &record_every) || record_every < 1) {
          fprintf(stderr, "lcpsim: --record-every: need an integer from 1 to 2147483647, got '%s'\n", v);
          return 2;
        }
      }
      else if (!strcmp(a, "--steps")) {
        if (lsim_cli_parse_int(v, &steps_override) || steps_override < 1) {
          fprintf(stderr, "lcpsim: --steps: need an integer from 1 to 2147483647, got '%s'\n", v);
          return 2;
        }
      } else if (lsim_cli_parse_double(v, &duration) || !(duration > 0.0)) {
        fprintf(stderr, "lcpsim: --duration: need a finite number > 0 (in double range), got '%s'\n", v);
        return 2;
      } else {
        duration_text = v;
      }
    } else if (lsim_cli_positional("lcpsim", "lcpsim run --help", "scene", a, &scene_path)) {
      return 2;
    }
  }
  if (!scene_path) {
    run_usage(stderr);
    return 2;
  }
  if (steps_override > 0 && duration > 0.0) {
    fprintf(stderr, "lcpsim: give --steps or --duration, not both\n");
    return 2;
  }
  if (dense_limit_given && !dump_lcp)
    fprintf(stderr, "lcpsim: note: --dump-dense-limit is an option of --dump-lcp only; this "
            "run stores no LCPs\n");

  /* The scene's text, read once (a pipe such as /dev/stdin gives it only once). */
  LsimModel model;
  LsimState state;
  char *text = NULL;
  size_t text_len = 0;
  LsimSceneError serr;
  char msg[LSIM_OUTFILE_MSG_MAX];
  if (lsim_scene_read_text(scene_path, &text, &text_len, &serr)) {
    lsim_scene_error_format(&serr, msg, sizeof msg);
    /* "-", the usual name of standard input, names a file here: say where stdin is. */
    fprintf(stderr, "lcpsim: %s%s\n", msg,
            strcmp(scene_path, "-") ? "" : " (a scene on standard input: lcpsim /dev/stdin)");
    return 2;
  }
  /* A hybrid-model scene runs on the event engine (cli/hybrid.c). */
  char *htext = text;
  if (lsim_hybrid_scene_detect(htext)) {
    int code = 2;
    if (resume_path)
      fprintf(stderr, "lcpsim: %s is a hybrid-model scene: --resume applies to time-stepping runs "
              "only (a hybrid run's integrator state is not in its file); run the model again "
              "with a longer --duration\n", scene_path);
    else if (solver_name || steps_override > 0 || tol_override >= 0.0 || omega_override > 0.0 ||
        max_iter_override >= 0 || threads_override > 0 || on_failure_override >= 0 ||
        sparse_limit_override >= -1 || dump_lcp || dense_limit_given || solver_output ||
        record_every > 0)
      fprintf(stderr, "lcpsim: %s is a hybrid-model scene: of the run options only -o, "
              "--duration, --print and --quiet apply\n", scene_path);
    else
      code = lsim_cli_hybrid(scene_path, htext, out_path, duration, duration_text, print, quiet);
    free(htext);
    return code;
  }

  /* Scene. */
  if (lsim_scene_parse_text(text, text_len, scene_path, &model, &state, &serr)) {
    lsim_scene_error_format(&serr, msg, sizeof msg);
    fprintf(stderr, "lcpsim: %s\n", msg);
    free(text);
    return 2;
  }
  LsimSceneOutput sout;
  memset(&sout, 0, sizeof sout);
  lsim_scene_output(text, scene_path, &sout, NULL);
  print = print || sout.print;
  const int every_given = record_every > 0;
  if (!every_given) record_every = sout.record_every > 0 ? sout.record_every : 1;
  /* Consistent initial conditions ("assemble"): each joint's error before and after. */
  for (int j = 0; model.assemble && !quiet && j < model.njoints; ++j)
    printf("%s: assembled joint '%s': position error %.3g -> %.3g m, velocity error %.3g -> %.3g m/s\n",
           scene_path, model.joints[j].name, model.joints[j].initial_error,
           lsim_joint_error(&model, &state, state.time, j), model.joints[j].initial_velocity_error,
           lsim_joint_velocity_error(&model, &state, j));
  /* Without "assemble", a joint that starts off its constraint (beyond 1e-9 m or m/s) is
     left to the step's drift correction: say so, once per joint. */
  for (int j = 0; !model.assemble && j < model.njoints; ++j) {
    const LsimJoint *jt = &model.joints[j];
    if (!(jt->initial_error > 1e-9 || jt->initial_velocity_error > 1e-9)) continue;
    if (model.integrator == LSIM_INTEGRATOR_EVENT_DRIVEN) {
      /* The event-driven start projects the velocities onto the joints (an inelastic
         impact of the joint rows); the flow's Baumgarte term takes the position error. */
      fprintf(stderr, "lcpsim: note: joint '%s' starts %.3g m, %.3g m/s off its constraint; the "
              "start takes the velocity error at once (an inelastic impact of the joints) and the "
              "flow the position error (Baumgarte, T = 0.1 s), \"assemble\": true would project "
              "the initial state onto the joints first\n",
              jt->name, jt->initial_error, jt->initial_velocity_error);
      continue;
    }
    fprintf(stderr, "lcpsim: note: joint '%s' starts %.3g m, %.3g m/s off its constraint; the "
            "first step takes the velocity error at once and the position error by the drift "
            "correction (c = %g: %s), \"assemble\": true would project the initial state onto "
            "the joints first\n",
            jt->name, jt->initial_error, jt->initial_velocity_error,
            model.baumgarte > 0.0 ? model.baumgarte : 1.0,
            model.baumgarte > 0.0 && model.baumgarte < 1.0 ? "a fraction c per step" : "in one step");
  }
  if (steps_override > 0) model.steps = steps_override;
  if (tol_override >= 0.0) model.solver.tol = tol_override;
  if (max_iter_override >= 0) model.solver.max_iter = max_iter_override;
  if (omega_override > 0.0) model.solver.omega = omega_override;
  if (threads_override > 0) model.solver.threads = threads_override;
  if (on_failure_override >= 0) model.solver.on_failure = on_failure_override;
  if (sparse_limit_override >= -1) model.solver.sparse_limit = sparse_limit_override;
  if (duration > 0.0) {
    const double k = duration / model.time_step;
    /* A step count an int holds first (llround of 1e10 or more was called "not whole"). */
    /* The duration as given and the time step to its own digits: %g named
       --duration 1.0000001 as 1, "not a whole number of steps of 0.005 s". */
    char hs[32];
    lsim_format_exact(model.time_step, hs, sizeof hs);
    if (!(k >= 0.5 && k < INT_MAX + 0.5)) {
      fprintf(stderr, "lcpsim: --duration %s gives %.17g steps of %s s; must be between 1 and %d\n",
              duration_text, k, hs, INT_MAX);
      free(text);
      lsim_state_free(&state);
      lsim_model_free(&model);
      return 2;
    }
    model.steps = (int)llround(k);
    if (model.steps < 1 || fabs(k - model.steps) > 1e-9 * fmax(1.0, k)) {
      fprintf(stderr, "lcpsim: --duration %s is not a whole number of steps of %s s (%.17g steps)\n",
              duration_text, hs, k);
      free(text);
      lsim_state_free(&state);
      lsim_model_free(&model);
      return 2;
    }
  }
  /* --resume: the run's file checked against the scene, its settings taken. */
  LsimResumeInfo rinfo;
  memset(&rinfo, 0, sizeof rinfo);
  if (resume_path) {
    const LsimCliGiven given = {solver_name != NULL, tol_override >= 0.0, max_iter_override >= 0,
                                omega_override > 0.0, threads_override > 0,
                                sparse_limit_override >= -1, on_failure_override >= 0,
                                steps_override > 0 || duration > 0.0, dump_lcp};
    if (lsim_cli_resume_setup(resume_path, scene_path, text, &model, &solver_name, &given, &rinfo)) {
      free(text);
      lsim_state_free(&state);
      lsim_model_free(&model);
      return 2;
    }
    /* The run's stride, as its solver settings: its rows and the new ones are one file's. */
    if (every_given && record_every != rinfo.record_every) {
      fprintf(stderr, "lcpsim: --record-every %d differs from the run's %d in %s: a continued "
              "run takes the run's settings (leave --record-every out)\n", record_every,
              rinfo.record_every, resume_path);
      free(text);
      lsim_state_free(&state);
      lsim_model_free(&model);
      return 2;
    }
    record_every = rinfo.record_every;
  }
  /* The run's end time must be finite (steps of 1e308 s reached t = inf in /time). */
  if (!isfinite(model.time_step * (double)model.steps)) {
    fprintf(stderr, "lcpsim: %s: %d steps of %g s end at a time that is not finite\n", scene_path,
            model.steps, model.time_step);
    free(text);
    lsim_state_free(&state);
    lsim_model_free(&model);
    return 2;
  }
  char path[LSIM_OUTFILE_PATH_MAX];
  if (resume_path && !out_path ? lsim_cli_resume_output(resume_path, path, sizeof path)
                               : lsim_cli_output_path(scene_path, out_path, sout.file, path, sizeof path)) {
    free(text);
    lsim_state_free(&state);
    lsim_model_free(&model);
    return 2;
  }
  /* The scene is no output (scene/outfile.h: the check the library's records make too). */
  char same[LSIM_OUTFILE_PATH_MAX + 256];
  /* Nor is the run continued (--resume): it is only read. */
  int refused = lsim_outfile_check_inputs(out_path ? "-o" : "output", path, "scene file",
                                          &scene_path, 1, same, sizeof same);
  if (refused)
    lsim_cli_output_refused(scene_path, text, out_path, same);
  else if (resume_path && (refused = lsim_outfile_check_inputs(out_path ? "-o" : "output", path,
                                                               "run continued (--resume)",
                                                               &resume_path, 1, same, sizeof same)))
    fprintf(stderr, "lcpsim: %s\n", same);
  if (refused) {
    free(text);
    lsim_state_free(&state);
    lsim_model_free(&model);
    return 2;
  }

  /* --resume: the state after the run's last step (state) and the stepper's memory; the
     initial state (init) stays row 0 of the file. */
  LsimState init;
  LsimStepMemory mem;
  memset(&init, 0, sizeof init);
  memset(&mem, 0, sizeof mem);
  if (resume_path) {
    int rc = lsim_state_init(&init, &model);
    if (!rc) {
      memcpy(init.q, state.q, (size_t)model.nq * sizeof(double));
      memcpy(init.v, state.v, (size_t)model.nv * sizeof(double));
      init.time = state.time, init.step = state.step;
      rc = lsim_resume_read_state(resume_path, &rinfo, &model, &state, &mem, msg, sizeof msg);
    } else {
      snprintf(msg, sizeof msg, "out of memory");
    }
    if (rc) {
      fprintf(stderr, "lcpsim: --resume %s\n", msg);
      lsim_step_memory_free(&mem);
      lsim_state_free(&init);
      free(text);
      lsim_state_free(&state);
      lsim_model_free(&model);
      return 2;
    }
  }

  /* The first solver option given (an event-driven run refuses them). */
  const char *event_solver_option =
      solver_name && !resume_path ? "--solver"
      : tol_override >= 0.0 ? "--tol"
      : max_iter_override >= 0 ? "--max-iter"
      : omega_override > 0.0 ? "--omega"
      : threads_override > 0 ? "--threads"
      : on_failure_override >= 0 ? "--on-failure"
      : sparse_limit_override >= -1 ? "--sparse-limit"
      : solver_output ? "--solver-output" : NULL;

  /* SIGINT / SIGTERM / SIGHUP are caught from before the output file exists to the end of
     the steps: one that comes while the file is made (its header written, a resumed run's
     rows copied) stops the run before its first step, the file marked interrupted; the
     default action had killed it there, leaving PATH.<pid>.partial. */
  lsim_cli_catch_interrupts(1);

  /* Stepper and recorder. */
  int exit_code = 0;
  LsimStepper *stepper = NULL;
  LsimRecord *rec = NULL;
  LsimLcpDump *dump = NULL;
  if (model.integrator == LSIM_INTEGRATOR_EVENT_DRIVEN && lsim_event_driven_check(&model, msg, sizeof msg)) {
    fprintf(stderr, "lcpsim: %s: %s\n", scene_path, msg);
    exit_code = 2;
  } else if (model.integrator != LSIM_INTEGRATOR_EVENT_DRIVEN && model.event_impacts == LSIM_IMPACTS_SEQUENTIAL) {
    /* The time step resolves its impacts in its one LCP: running the scene would ignore
       the sequential law it asks for. */
    fprintf(stderr,
            "lcpsim: %s: event_driven.impacts \"sequential\" applies to \"integrator\": \"event_driven\" "
            "(and lcpsim impact), not to the time step, whose impacts are part of its one LCP\n",
            scene_path);
    exit_code = 2;
  } else if (model.integrator == LSIM_INTEGRATOR_EVENT_DRIVEN && record_every > 1) {
    if (every_given) {
      fprintf(stderr, "lcpsim: %s: --record-every %d applies to the time step; \"integrator\": "
              "\"event_driven\" records at every multiple of its time_step (the record period): "
              "make time_step %d times longer instead\n", scene_path, record_every, record_every);
    } else {
      /* The scene's key: its place named (file:line:column), as for any bad value. */
      LsimSceneError err;
      char line[2048];
      scene_error(&err, text, scene_path, "output.record_every", "%d applies to the time step; "
                  "\"integrator\": \"event_driven\" records at every multiple of its time_step "
                  "(the record period): make time_step %d times longer instead", record_every,
                  record_every);
      lsim_scene_error_format(&err, line, sizeof line);
      fprintf(stderr, "lcpsim: %s\n", line);
    }
    exit_code = 2;
  } else if (model.integrator == LSIM_INTEGRATOR_EVENT_DRIVEN && (dump_lcp || print)) {
    fprintf(stderr, "lcpsim: %s: %s applies to the time step, not to \"integrator\": \"event_driven\"\n",
            scene_path, dump_lcp ? "--dump-lcp" : "--print (or \"output.print\")");
    exit_code = 2;
  } else if (model.integrator == LSIM_INTEGRATOR_EVENT_DRIVEN && event_solver_option) {
    /* The event-driven integrator solves its impact and contact-force LCPs itself: a
       solver option was ignored, and the file's /parameters named that solver. */
    fprintf(stderr, "lcpsim: %s: %s applies to the time step's solver, not to \"integrator\": "
            "\"event_driven\" (its impact and contact-force problems have their own solver)\n",
            scene_path, event_solver_option);
    exit_code = 2;
  } else if (lsim_stepper_create(&stepper, &model, solver_name, msg, sizeof msg)) {
    fprintf(stderr, "lcpsim: %s: solver: %s\n", scene_path, msg);
    exit_code = 2;
  } else if (resume_path && lsim_stepper_memory_set(stepper, &model, &state, &mem, msg, sizeof msg)) {
    fprintf(stderr, "lcpsim: --resume %s: /resume: %s\n", resume_path, msg);
    exit_code = 2;
  } else if (lsim_record_open(&rec, path, &model, resume_path ? &init : &state, text,
                              step_solver_name(&model, stepper), msg, sizeof msg)) {
    fprintf(stderr, "lcpsim: %s\n", msg);
    exit_code = 2;
  } else if (lsim_record_set_every(rec, record_every, msg, sizeof msg)) {
    fprintf(stderr, "lcpsim: %s\n", msg);
    exit_code = 2;
  } else if (resume_path &&
             lsim_record_copy_steps(rec, resume_path, rinfo.steps_done, &model, msg, sizeof msg)) {
    fprintf(stderr, "lcpsim: --resume %s: %s\n", resume_path, msg);
    exit_code = 2;
  } else if (dump_lcp) {
    const char *label = step_solver_name(&model, stepper);
    if (lsim_lcpdump_open(&dump, lsim_record_hdf5_file(rec), "/lcp", 1, &label, 0, msg,
                          sizeof msg)) {
      fprintf(stderr, "lcpsim: %s: %s\n", path, msg);
      exit_code = 2;
    } else {
      /* The dump's chunk indexes leave memory with the record's (a long run's RSS flat). */
      lsim_record_trim_also(rec, lsim_lcpdump_reopen, dump);
      lsim_record_lcp_problems(rec, 0); /* /flushed_lcp_problems beside /flushed_rows */
    }
  }

  /* Time-stepping runs keep the stepper's memory in the file at each flush (/resume), so
     that they can be continued. */
  if (!exit_code && model.integrator == LSIM_INTEGRATOR_TIME_STEPPING)
    lsim_record_keep_memory(rec, stepper, &model, &state);
  lsim_step_memory_free(&mem);
  lsim_state_free(&init);
  if (!exit_code && resume_path && !quiet) {
    printf("%s: resuming %s (%s) after step %d of %d -> %s\n", scene_path, resume_path,
           rinfo.run_end, rinfo.steps_done, model.steps, path);
    if (rinfo.steps_cut > 0)
      printf("%s: (its last whole flush ends at step %d; %d rows past it, of a flush the kill cut "
             "short, are left out)\n", scene_path, rinfo.steps_done, rinfo.steps_cut);
  }
  /* Partial files of this output left by killed runs: a note (ours has a live pid). */
  if (!exit_code) lsim_cli_note_leftovers(path);
  /* Options given that the solver does not use: a note each. */
  if (!exit_code)
    lsim_cli_note_unused("lcpsim", lsim_solver_name(lsim_stepper_solver(stepper)),
                         omega_override > 0.0, threads_override > 0, sparse_limit_override >= -1);
  /* The scene's solver keys of that kind: the same note, naming the key. */
  if (!exit_code && model.integrator == LSIM_INTEGRATOR_TIME_STEPPING)
    lsim_cli_note_scene_unused(scene_path, text, lsim_solver_name(lsim_stepper_solver(stepper)),
                               omega_override > 0.0, threads_override > 0,
                               sparse_limit_override >= -1);
  /* The scene's sparse Lemke settings under --solver naming another solver: a note. */
  if (!exit_code &&
      (model.solver.block_start || model.solver.lu_solve || model.solver.lu_refactor) &&
      strcmp(lsim_solver_name(lsim_stepper_solver(stepper)), "lemke_sparse"))
    fprintf(stderr, "lcpsim: note: the scene's solver.block_start, lu_solve and lu_refactor "
            "are settings of lemke_sparse; %s does not use them\n",
            lsim_solver_name(lsim_stepper_solver(stepper)));
  if (!exit_code && model.solver.principal > 0 &&
      strcmp(lsim_solver_name(lsim_stepper_solver(stepper)), "lemke_sparse"))
    fprintf(stderr, "lcpsim: note: the scene's solver.principal is a setting of lemke_sparse; "
            "%s does not use it\n", lsim_solver_name(lsim_stepper_solver(stepper)));

  /* Steps. */
  int failures = 0, first_failure = 0, done = rinfo.steps_done, first_fail_status = 0;
  int worst_fail_step = 0;
  double worst_fail_rel = -1.0;
  long long total_contacts = 0; /* this invocation's: past 2^31 on long runs of piles (the
                                   file's /summary/total_contacts is 64-bit too) */
  int budget_steps = 0, budget_sweeps = 0; /* the sweeps spent (max_iter 0: the default) */
  double max_budget_rel = 0.0;
  int dump_failed = 0, dump_warned = 0; /* --dump-lcp: its append failed; the size said */
  int stopped = 0; /* the run ended itself early (a diverging state, a failure under
                      on_failure "stop"): that step is not recorded */
  int recovered = 0; /* steps whose failed solve the fallback chain recovered */
  int floor_steps = 0; /* solved steps above the tolerance, within the rounding floor */
  double floor_max = 0.0; /* their largest relative residual */
  int guard_refused = 0;  /* failed steps whose smallest residual the energy guard refused */
  int admit_steps = 0, admit_reruns = 0, admit_left = 0; /* the admission check's re-runs
                      (steps, re-runs) and steps it left with a closing contact out */
  double refused_max = 0; /* J: the most such a result would have added */
  char stop_reason[512] = "";
  double max_residual = 0.0, solver_time = 0.0;
  const double t0 = now_seconds();
  /* The progress bar: on a terminal only (lsim_cli_progress_update). */
  LsimCliProgress bar = {.on = !quiet && !print && isatty(fileno(stderr)), .first = done,
                         .total = model.steps, .t0 = t0,
                         .unit = model.integrator == LSIM_INTEGRATOR_EVENT_DRIVEN ? "samples" : "steps",
                         /* event-driven: on the half second only (tens of thousands of
                            samples a second would redraw it hundreds of times a second) */
                         .every = model.integrator == LSIM_INTEGRATOR_EVENT_DRIVEN ? -1 : 0};
  /* Event-driven scenes: hybrid/event_driven.h writes the same rows, and an event table. */
  const int event_driven = model.integrator == LSIM_INTEGRATOR_EVENT_DRIVEN;
  long events = 0;
  /* The signal that ended the steps (0: none). The signals stay caught until the file is
     closed: one that comes after the steps, while the file is closed (its last rows
     flushed, renamed), is only noted (the default action killed the process there, with
     every step done, leaving PATH.<pid>.partial up to its last flush). */
  int stop_signal = 0;
  if (!exit_code && event_driven) {
    LsimEventOptions eo = lsim_event_options_for_model(&model);
    /* SIGINT / SIGTERM: the run ends at once, at its last sample */
    eo.stop = &lsim_cli_interrupted;
    eo.on_sample = progress_sample, eo.on_sample_user = &bar;
    lsim_cli_catch_interrupts(1);
    const int erc =
        lsim_event_driven_record(&model, &state, &eo, rec, &done, &events, msg, sizeof msg);
    lsim_cli_progress_end(&bar);
    if (erc == LSIM_EVENT_INTERRUPTED) {
      stop_signal = lsim_cli_interrupted;
      char why[96];
      snprintf(why, sizeof why, "%s after step %d of %d",
               lsim_cli_signal_name(lsim_cli_interrupted), done, model.steps);
      lsim_record_set_end(rec, LSIM_RUN_INTERRUPTED, why);
    } else if (erc == LSIM_EVENT_STOPPED) {
      /* A disk about to fill: stopped at the last sample, the file closed whole. */
      snprintf(stop_reason, sizeof stop_reason, "sample %d: %s", done, lsim_record_space_low(rec));
      lsim_record_set_end(rec, LSIM_RUN_STOPPED, stop_reason);
      stopped = 1;
    } else if (erc) {
      fprintf(stderr, "lcpsim: %s: %s\n", scene_path, msg);
      lsim_record_set_end(rec, LSIM_RUN_STOPPED, msg);
      failures = 1, first_failure = done + 1, first_fail_status = LSIM_BREAKDOWN;
    }
  }
  if (!exit_code && !event_driven) {
    lsim_cli_catch_interrupts(1);
    if (print) {
      /* A table piped into a reader that stops early (| head) must not end the run, whose
         file is what it is for: writes to a closed pipe fail (EPIPE) instead of raising
         SIGPIPE, and the table stops there (table_lost). */
      signal(SIGPIPE, SIG_IGN);
      print_header(&model);
      print_row(&model, &state, NULL);
      if (table_lost(done, path)) print = 0;
    }
    for (int k = done; k < model.steps && !lsim_cli_interrupted; ++k) {
      LsimStepStats st;
      const int status = lsim_step(stepper, &model, &state, &st);
      if (status == LSIM_OUT_OF_MEMORY || status == LSIM_INVALID_INPUT) {
        const char *why = lsim_stepper_last_error(stepper);
        lsim_cli_progress_end(&bar); /* a message starts on a line of its own, not on the bar's */
        fprintf(stderr, "lcpsim: step %d: %s%s%s\n", k + 1, lsim_status_name(status),
                why && *why ? ": " : "", why ? why : "");
        exit_code = 2;
        break;
      }
      /* With tol 0 an iterative solver runs a fixed budget: spending it is its normal
         end (the status still says max_iterations), not a failure. */
      const int budget_spent = status == LSIM_MAX_ITERATIONS && model.solver.tol == 0.0;
      const int failed = status != LSIM_SOLVED && !budget_spent;
      /* Failure policy "stop": the run ends at the failed step, which is not recorded (its
         state was integrated from the failed result). */
      if (failed && model.solver.on_failure == LSIM_ON_FAILURE_STOP) {
        snprintf(stop_reason, sizeof stop_reason,
                 "step %d: solver %s failed (%s, relative residual %.3g) under on_failure "
                 "\"stop\"", k + 1, step_solver_name(&model, stepper),
                 lsim_status_name(status), st.relative_residual);
        lsim_record_set_end(rec, LSIM_RUN_STOPPED, stop_reason);
        stopped = 1;
        break;
      }
      const LsimContactSet *cs = lsim_stepper_contacts(stepper);
      /* Divergence guard (contact/guard.h): a non-finite or runaway state ends the run
         here, before the step is recorded. */
      LsimStateFault fault;
      if (lsim_state_check(&model, &state, cs, &fault)) {
        lsim_state_fault_format(&model, k + 1, &fault, stop_reason, sizeof stop_reason);
        lsim_record_set_end(rec, LSIM_RUN_STOPPED, stop_reason);
        stopped = 1;
        break;
      }
      if (budget_spent) {
        /* Fixed-budget steps: not failures, but the summary line says how far they got. */
        ++budget_steps;
        max_budget_rel = fmax(max_budget_rel, st.relative_residual);
        budget_sweeps = st.iterations > budget_sweeps ? st.iterations : budget_sweeps;
      }
      if (failed) {
        /* The summary line names the first failed step and that step's status, and the
           worst relative residual a failed step integrated (and where): 0.5 means the
           step moved the bodies as if half their contacts' impulses were missing. */
        if (!failures) first_failure = k + 1, first_fail_status = status;
        ++failures;
        if (!(st.relative_residual <= worst_fail_rel))
          worst_fail_rel = st.relative_residual, worst_fail_step = k + 1;
      }
      /* Siconos' own printing, captured: shown only on request. */
      const char *said = solver_output ? lsim_solver_last_output(lsim_stepper_solver(stepper)) : "";
      if (*said) {
        lsim_cli_progress_end(&bar);
        fprintf(stderr, "lcpsim: step %d: %s printed: %s\n", k + 1,
                lsim_solver_name(lsim_stepper_solver(stepper)), said);
      }
      recovered += st.first_status < 0 && st.status >= 0;
      /* Accepted at the rounding floor of w = M z + q (docs/solvers.md, "The common
         residual"): solved, but above the tolerance asked for. */
      if (st.status >= 0 && model.solver.tol > 0.0 && st.relative_residual > model.solver.tol)
        floor_steps++, floor_max = fmax(floor_max, st.relative_residual);
      if (st.guard == 2) guard_refused++, refused_max = fmax(refused_max, st.refused_energy);
      admit_steps += st.admit_reruns > 0, admit_reruns += st.admit_reruns;
      admit_left += st.admit_missed > 0;
      total_contacts += (long long)st.ncontacts;
      max_residual = fmax(max_residual, st.residual);
      solver_time += st.wall_time;
      /* The dump first: when it fails the run stops there, the file keeping the steps
         before it (both its rows and its dump); the reason names the step and the cause. */
      if (dump && lsim_lcpdump_step(dump, k + 1, stepper, dump_dense_limit)) {
        snprintf(stop_reason, sizeof stop_reason, "%s", lsim_lcpdump_error(dump));
        lsim_record_set_end(rec, LSIM_RUN_STOPPED, stop_reason);
        dump_failed = stopped = 1;
        break;
      }
      if (dump) {
        double chunks;
        const double bytes = lsim_lcpdump_bytes(dump, &chunks);
        lsim_record_lcp_problems(rec, lsim_lcpdump_count(dump));
        lsim_record_lcp_bytes(rec, bytes, chunks);
      }
      if (dump && !dump_warned) {
        /* A dense M of a GB or more a step: said once, since it fills disks fast. */
        const LsimFactoredLcp *fl = lsim_stepper_factored(stepper);
        const int dense = fl && (dump_dense_limit < 0 || fl->n <= dump_dense_limit);
        const double gb = dense ? (double)fl->n * (double)fl->n * 8e-9 : 0.0;
        if (gb >= 1.0) {
          lsim_cli_progress_end(&bar);
          fprintf(stderr, "lcpsim: %s: --dump-lcp stores each step's dense M: %.2g GB at step "
                  "%d (n = %d)\n", path, gb, k + 1, fl->n);
          dump_warned = 1;
        }
      }
      if (lsim_record_step(rec, &model, &state, cs, &st)) {
        lsim_cli_progress_end(&bar);
        fprintf(stderr, "lcpsim: writing step %d failed: %s\n", k + 1, lsim_record_error(rec));
        exit_code = 2;
        break;
      }
      done = k + 1;
      if (print) {
        print_row(&model, &state, cs);
        if (table_lost(done, path)) print = 0;
      }
      /* A disk about to fill: the run stops while its file can be closed whole. */
      if (*lsim_record_space_low(rec)) {
        snprintf(stop_reason, sizeof stop_reason, "step %d: %s", done, lsim_record_space_low(rec));
        lsim_record_set_end(rec, LSIM_RUN_STOPPED, stop_reason);
        stopped = 1;
        break;
      }

      lsim_cli_progress_update(&bar, done);
    }
    stop_signal = lsim_cli_interrupted;
    if (stop_signal && rec) {
      char why[96];
      snprintf(why, sizeof why, "%s after step %d of %d",
               lsim_cli_signal_name(lsim_cli_interrupted), done, model.steps);
      lsim_record_set_end(rec, LSIM_RUN_INTERRUPTED, why);
    }
  }
  lsim_cli_progress_end(&bar);
  const double elapsed = now_seconds() - t0;

  /* Close: the file is kept whenever its steps are consistent (failures included). */
  if (dump) lsim_record_trim_also(rec, NULL, NULL); /* the dump is closed first */
  if (dump && lsim_lcpdump_close(dump, msg, sizeof msg) && !exit_code && !dump_failed) {
    fprintf(stderr, "lcpsim: %s: %s\n", path, msg);
    exit_code = 2;
  }
  if (rec && lsim_record_close(rec, exit_code == 0, msg, sizeof msg)) {
    /* A failed dump's reason first (the summary's "stopped at" line, which would say it,
       is not reached). */
    if (dump_failed) fprintf(stderr, "lcpsim: %s: %s\n", path, stop_reason);
    fprintf(stderr, "lcpsim: %s\n", msg);
    exit_code = 2;
  }
  lsim_cli_catch_interrupts(0);
  /* A signal after the steps: the run had ended and its file is whole; said, not hidden. */
  if (lsim_cli_interrupted && !stop_signal && !exit_code)
    fprintf(stderr, "lcpsim: %s came after the last %s, while %s was closed: the run is "
            "complete and the file whole\n", lsim_cli_signal_name(lsim_cli_interrupted),
            event_driven ? "sample" : "step", path);

  /* Summary and exit status. */
  if (!exit_code) {
    if (failures && event_driven) {
      fprintf(stderr, "lcpsim: the event-driven run stopped after %d samples; %s holds them\n",
              done, path);
      exit_code = 1;
    } else if (failures) {
      /* A continued run counts its own steps, as the summary line does (the file's
         /summary/failures counts the whole run's). */
      char span[64] = "";
      if (resume_path) snprintf(span, sizeof span, " (%d .. %d)", rinfo.steps_done + 1, done);
      char worst[96] = "";
      if (worst_fail_step > 0)
        snprintf(worst, sizeof worst, ", relative residual up to %.3g (step %d)",
                 worst_fail_rel, worst_fail_step);
      fprintf(stderr,
              "lcpsim: solver %s failed on %d of %d steps%s (first at step %d: %s)%s; "
              "see /solver/status in %s\n",
              step_solver_name(&model, stepper), failures, done - rinfo.steps_done, span,
              first_failure, lsim_status_name(first_fail_status), worst, path);
      exit_code = 1;
    }
    if (stopped) {
      fprintf(stderr, "lcpsim: %s: stopped at %s; %s keeps every %s before it (%d)\n",
              scene_path, stop_reason, path, event_driven ? "sample" : "step", done);
      exit_code = 1;
    }
    if (stop_signal) {
      fprintf(stderr, "lcpsim: interrupted by %s after %d of %d %s; %s holds them "
              "(/summary/run_end: interrupted)\n", lsim_cli_signal_name(stop_signal),
              done, model.steps, event_driven ? "samples" : "steps", path);
      exit_code = lsim_cli_interrupt_status(stop_signal);
    }
    if (!quiet && event_driven)
      fprintf(stdout, "%s: event-driven, %d samples of %g s, %ld event%s, samples in %.3f s -> %s\n",
              scene_path, done, model.time_step, events, events == 1 ? "" : "s", elapsed, path);
    else if (!quiet) {
      /* Steps that spent a fixed sweep budget (tol 0) are not failures; the line says how
         many and the worst relative residual they reached (/summary/failures counts them,
         their status being max_iterations). */
      char budget[256] = "", resumed[64] = "";
      /* A continued run counts its own steps (the file holds the run's before them). */
      if (resume_path) snprintf(resumed, sizeof resumed, " (%d .. %d)", rinfo.steps_done + 1, done);
      if (budget_steps)
        snprintf(budget, sizeof budget, "; %d steps at the fixed budget of %d sweeps, relative "
                 "residual up to %.3g", budget_steps, budget_sweeps, max_budget_rel);
      /* Failed steps whose best residual would have added kinetic energy (docs/solvers.md,
         "Energy guard"). */
      if (guard_refused) {
        const size_t used = strlen(budget);
        snprintf(budget + used, sizeof budget - used, "; %d failed results refused for "
                 "adding kinetic energy (up to %.3g J)", guard_refused, refused_max);
      }
      /* Steps detected and solved again for a contact the admission bound left out
         (docs/solvers.md, "Contacts left out by the admission bound"). */
      if (admit_steps) {
        const size_t used = strlen(budget);
        snprintf(budget + used, sizeof budget - used, "; %d steps solved again for contacts "
                 "left out (%d re-runs%s)", admit_steps, admit_reruns,
                 admit_left ? ", some still left out: see /solver/admission_reruns" : "");
      }
      /* Steps whose result is as exact as double precision allows but not as the
         tolerance asked: solved, and said so with the worst of them. */
      if (floor_steps) {
        const size_t used = strlen(budget);
        snprintf(budget + used, sizeof budget - used, "; %d steps solved at the rounding "
                 "floor, above the tolerance %.3g (relative residual up to %.3g)", floor_steps,
                 model.solver.tol, floor_max);
      }
      /* A record stride: which steps the file keeps. */
      char stride_note[96] = "";
      if (record_every > 1)
        snprintf(stride_note, sizeof stride_note, " (a row every %d steps and the last)",
                 record_every);
      fprintf(stdout,
              "%s: %d steps%s of %g s with %s, %lld contacts, max residual %.3e N*s, "
              "%d solver failures (%d more recovered by the fallback)%s, steps in %.3f s "
              "(solver %.3f s) -> %s%s\n",
              scene_path, done - rinfo.steps_done, resumed, model.time_step,
              step_solver_name(&model, stepper),
              total_contacts, max_residual, failures, recovered, budget, elapsed, solver_time,
              path, stride_note);
    }
  }
  lsim_stepper_free(stepper);
  free(text);
  lsim_state_free(&state);
  lsim_model_free(&model);
  return exit_code;
}
