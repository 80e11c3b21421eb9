/* cli.h: the lcpsim command's subcommands and argument helpers. */
#ifndef LSIM_CLI_H
#define LSIM_CLI_H

#include <signal.h>
#include <stddef.h>

/* Each subcommand takes the arguments after its name; returns the process exit status:
 * 0 success, 1 a solver did not solve, 2 bad input or usage. */
int lsim_cli_solve(int argc, char **argv);
int lsim_cli_run(int argc, char **argv);
int lsim_cli_compare(int argc, char **argv);
int lsim_cli_export(int argc, char **argv);
int lsim_cli_view(int argc, char **argv);
int lsim_cli_impact(int argc, char **argv);

/* The progress bar of `lcpsim SCENE.json` (stderr, a terminal only; cli/progress.c): steps
 * (or samples) done of the run's total, the wall time of this invocation and the time left
 * at its rate so far. The rate counts only the steps this invocation took (a resumed run
 * starts at the run's steps done, first): remaining steps x elapsed / steps taken. Drawn
 * from half a second into the run (a short run shows none), redrawn every half second or 50
 * steps, at most ten times a second (a fast scene's 50 steps take a millisecond: 800
 * redraws a second) (a slow scene's steps, seconds each, left it unchanged for minutes when it waited
 * for 50 steps; one of fewer than 200 steps had none at all), and once more at the last
 * step. A line shorter than the one before is padded with blanks over it. Set on (whether
 * to draw), first, total, unit and t0 (lsim_cli_now()), every when not 50; the rest zero. */
typedef struct LsimCliProgress {
  int on, shown, first, total, width; /* first: steps done when this invocation began */
  const char *unit;                   /* "steps", or "samples" (event-driven, hybrid) */
  int every;                          /* redrawn at each multiple of this many (0: 50; < 0:
                                         on the half second only: a hybrid model's 10^6
                                         samples a second, drawn every 50, took as long as
                                         its run) */
  double t0, last;                    /* wall clock at the start (s), elapsed at the last draw */
} LsimCliProgress;

/* Terminal columns of UTF-8 text s (cli/text.c): 0 for a combining mark, 2 for a wide
 * character (East Asian wide and fullwidth, emoji), else 1 per code point (a byte that is
 * not valid UTF-8 counts 1, as a terminal shows it), from a fixed table, whatever the
 * locale. Tables padded by bytes or code points put a name with one wide character (x[箱] m)
 * a column off its numbers. */
int lsim_cli_text_columns(const char *s);
/* Prints s on stdout, then blanks up to width terminal columns (none when s is wider). */
void lsim_cli_print_left(const char *s, int width);

/* The monotonic clock, in seconds. */
double lsim_cli_now(void);
/* Redraws the bar at done steps when it is due. */
void lsim_cli_progress_update(LsimCliProgress *p, int done);
/* Ends the bar's line (when one was drawn). */
void lsim_cli_progress_end(LsimCliProgress *p);

/* `lcpsim SCENE.json` for a hybrid-model scene (cli/hybrid.c): text is the scene's text;
 * out_path NULL for the default, duration <= 0 for the scene's final time, duration_text
 * the --duration argument as given (its messages name it so; NULL when not given). */
int lsim_cli_hybrid(const char *scene_path, const char *text, const char *out_path,
                    double duration, const char *duration_text, int print, int quiet);

/* `lcpsim models [NAME]`: the hybrid models, or one model's states, parameters with
 * their defaults, charts and boundaries (cli/hybrid.c). */
int lsim_cli_models(int argc, char **argv);

/* A run's output path into buf[len]: out_path (-o) as given, else scene_file (the scene's
 * output.file, "" or NULL for none) joined with the scene's folder unless absolute, else
 * SCENE's base name with .h5 in the current folder. 0, or 2 (the exit status) after one
 * stderr line when the path does not fit: never cut short. */
int lsim_cli_output_path(const char *scene, const char *out_path, const char *scene_file,
                         char *buf, size_t len);
/* The scene as its own output refused (msg from lsim_outfile_check_inputs): with -o
 * (out_path) msg as it is, else at the scene's output.file, file:line:column (text is the
 * scene's text). One stderr line. */
void lsim_cli_output_refused(const char *scene, const char *text, const char *out_path,
                             const char *msg);
/* One stderr line when partial files of output path are left from runs that ended
 * without closing them (scene/outfile.h, lsim_outfile_leftovers): a note, not an error. */
void lsim_cli_note_leftovers(const char *path);

/* One stderr note (not an error) for each solver option given on the command line that
 * the solver does not use: --omega and --threads are pgs's, --sparse-limit is newton's
 * (docs/solvers.md, "Names and options"). cmd prefixes the line ("lcpsim", "lcpsim solve"). */
void lsim_cli_note_unused(const char *cmd, const char *solver, int omega_given,
                          int threads_given, int sparse_limit_given);

/* The same note for the scene's solver.omega, solver.threads and solver.sparse_limit
 * (scene text text of scene_path) that the solver does not use, each named by its JSON
 * path ("lcpsim: note: SCENE: solver.omega is an option of pgs only; lemke does not use
 * it"); a key the command line overrides (*_given) is left to lsim_cli_note_unused. The
 * scene runs on: these keys were taken silently before, and scenes that have them stay
 * valid. */
void lsim_cli_note_scene_unused(const char *scene_path, const char *text, const char *solver,
                                int omega_given, int threads_given, int sparse_limit_given);

/* SIGINT, SIGTERM and SIGHUP (cli/interrupt.c): while caught, each only sets
 * lsim_cli_interrupted to its number, and the running command stops between steps, keeps
 * what it has done in its file (marked interrupted) and exits with
 * lsim_cli_interrupt_status (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP). catch_interrupts(1)
 * installs the handler, (0) restores the defaults. */
extern volatile sig_atomic_t lsim_cli_interrupted;
void lsim_cli_catch_interrupts(int on);
const char *lsim_cli_signal_name(int sig); /* "SIGINT", "SIGTERM" or "SIGHUP" */
int lsim_cli_interrupt_status(int sig);

/* Strict parsers: the whole string must be a number (finite for doubles). 0 or -1. */
int lsim_cli_parse_double(const char *s, double *out);
int lsim_cli_parse_int(const char *s, int *out);

/* Whether v, the word after an option that takes a name (-o, --solver, ...), is an option
 * itself ("-o", "--quiet": the value was left out) rather than a value ("-", "-1"). When
 * it is, says "<prefix>: <opt> needs a value, got the option '<v>' ..." on stderr and
 * returns 2 (the exit status); else 0. */
int lsim_cli_value_missing(const char *prefix, const char *opt, const char *v);

/* Options given twice: the first check of a command's argument loop, for every argument a
 * that starts with '-' (not "-" alone). seen[cap] holds the options met so far (*nseen of
 * them; the caller's array, empty at the loop's start); -o and --output, -q and --quiet are
 * one option. A second time says "<prefix>: <a> is given twice ..." on stderr and returns 2
 * (the exit status: a second value would silently win over the first); else records a and
 * returns 0. Past cap options nothing more is recorded. */
int lsim_cli_once(const char *prefix, const char *a, const char **seen, int *nseen, int cap);

/* The last case of a command's argument loop, for an argument a that is no known option:
 * "-x" is an unknown option, else a is the command's one positional argument (stored in
 * *path; a second one is refused). Errors go to stderr as "<prefix>: ..." pointing to
 * help; returns 0, or 2 (the exit status) after an error. */
int lsim_cli_positional(const char *prefix, const char *help, const char *what, const char *a,
                        const char **path);

/* --resume (cli/resume.c). The options given on the command line: */
typedef struct LsimCliGiven {
  int solver, tol, max_iter, omega, threads, sparse_limit, on_failure, steps, dump_lcp;
} LsimCliGiven;
struct LsimModel;
struct LsimResumeInfo;
/* Reads RUN's header (scene/resume.h) into info and checks it against the scene (text,
 * the parsed model with the command line's settings applied): the scene texts equal as
 * JSON but for steps, duration, output, name, description, $schema; a time-stepping run without
 * LCP dumps; the solver settings given equal to the run's, the others taken from the run
 * (*solver_name may point into info); model->steps the run's new end (given, else the
 * run's own), past its last step. 0, or 2 (the exit status) after one stderr line. */
int lsim_cli_resume_setup(const char *run, const char *scene_path, const char *text,
                          struct LsimModel *model, const char **solver_name,
                          const LsimCliGiven *given, struct LsimResumeInfo *info);
/* The default output of a continued run: RUN with .<pid>.partial and .h5 off and
 * .resumed.h5 on, in RUN's folder. 0, or 2 after a stderr line (too long). */
int lsim_cli_resume_output(const char *run, char *buf, size_t len);

/* For a reader (prog: "lcpsim view", ...) of path, before HDF5 opens it: when a running
 * lcpsim writes it (its partial file, locked: lsim_outfile_being_written), one stderr line
 * saying so and that it is read as of the writer's last flush, and HDF5's own file locking
 * turned off for this process (HDF5_USE_FILE_LOCKING=FALSE: the writer's HDF5 holds an
 * exclusive flock, which made every reader say "cannot open the HDF5 file (damaged or cut
 * short?)"). A look at a live run is useful, so the read goes on, cut at the flush marks
 * as a killed run's file is; a read that meets a flush may fail (HDF5 without SWMR: the
 * writer moves metadata), hence the advice to read again or stop the run. --resume
 * refuses such a file instead (lsim_resume_read_info). */
void lsim_cli_reading_live(const char *prog, const char *path);

#endif
