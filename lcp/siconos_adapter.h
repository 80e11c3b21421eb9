/* siconos_adapter.h: Siconos Numerics LCP solvers by name, made safe to call.
 *
 * Names are Siconos' solvers without the "siconos:" prefix ("lemke", "pgs", "enum",
 * "newton_fb", "newton_min", "psor", "rpgs", "pivot", "pivot_lumod", "bard", "murty",
 * "pathsearch", "cpg", "latin", "latin_w", "avi_caoferris", "nsgs_sbm", "convexqp_pg",
 * "newton_min_fblsa" ... whichever work here). Solvers that abort or are not built in the
 * Debian package (QP, NSQP, GAMS, PATH) are refused at create time with a message.
 * numerics_error / sn_fatal_error is trapped (setjmp) so it never kills the process;
 * the iteration counter is reset before each call.
 */
#ifndef LSIM_SICONOS_ADAPTER_H
#define LSIM_SICONOS_ADAPTER_H

#include <stddef.h>

#include "lcp.h"

typedef struct LsimSiconos LsimSiconos;

/* A Siconos solver's finite answer whose relative natural residual (ours: lcp.h's
 * `relative` for an LCP, lsim_fc_quality's for a frictional contact problem) exceeds this
 * has diverged, whatever Siconos' info says: status LSIM_BREAKDOWN, z (r) zeroed, the
 * message giving max |z| (|r|), the residual and Siconos' info. The zero answer's relative
 * residual is at most 1 for an LCP and 1 + max mu for a frictional contact problem
 * (F(0) = -P_K(-u^), ||u^|| <= (1 + mu) ||q||); the largest budget stop or failure that
 * did not run away, on the test and shared files at tol 1e-8 and 1000 iterations, is
 * 6.5e2 for the LCP solvers (convexqp_pg on tests/data/lcp_zero_row.dat) and 4.2e3 for
 * the frictional contact ones (fc3d_dsfp on OneObject); the runaways are 1.2e15 .. 1.5e17
 * (LCP: newton_min, cpg, avi_caoferris, pivot_lumod) and 1.2e28 .. 1.2e137 (fc3d_dsfp),
 * docs/siconos-solvers.md. */
#define LSIM_SICONOS_DIVERGED_RELATIVE 1e6

/* Creates the context for Siconos solver `name` (no prefix). Returns 0, or
 * LSIM_UNAVAILABLE with a one-line reason in err (unknown, not built, known to abort). */
int lsim_siconos_create(LsimSiconos **out, const char *name, char *err, size_t errlen);
void lsim_siconos_free(LsimSiconos *s);

/* Like lsim_siconos_create, but by Siconos id (SICONOS_LCP_*, 200..222) and WITHOUT the
 * refusal list: for tests and experiments (a refused solver's fatal error is still
 * trapped at solve time). LSIM_UNAVAILABLE for an id outside the LCP range. */
int lsim_siconos_create_id(LsimSiconos **out, int solver_id, char *err, size_t errlen);

/* An iteration count Siconos does not give (siconos:nsgs_sbm: its sweep count is lost
 * inside Siconos 4.4, siconos_adapter.c): a negative count, never 0. */
enum { LSIM_SICONOS_NO_COUNT = -1 };

/* Solves lcp with tolerance tol (Siconos' own error measure) and at most max_iter
 * iterations (0: Siconos' default). z [n]: warm start guess in when warm (solvers that
 * accept one), solution out. *iterations gets Siconos' iteration count (siconos:enum: the
 * index sets enumerated, each one linear solve; LSIM_SICONOS_NO_COUNT when Siconos gives
 * none, as siconos:nsgs_sbm unless q >= 0). Returns LSIM_SOLVED when Siconos reports success, LSIM_MAX_ITERATIONS when it
 * reports failure with its iteration count at the budget (a budget stop, as ours),
 * LSIM_SOLVER_FAILED when it reports failure otherwise or a trapped fatal error (message
 * kept, see lsim_siconos_last_error),
 * LSIM_BREAKDOWN when z comes back non-finite or ran away (relative natural residual above
 * LSIM_SICONOS_DIVERGED_RELATIVE), LSIM_OUT_OF_MEMORY. z is always finite on return (reset
 * to 0 if the solver left non-finite values or ran away). */
int lsim_siconos_solve(LsimSiconos *s, const LsimLcp *lcp, double tol, int max_iter, int warm,
                       double *z, int *iterations);

/* Message of the last trapped Siconos error, "" if none. */
const char *lsim_siconos_last_error(const LsimSiconos *s);

/* What Siconos printed to stdout during the last solve, captured (it never reaches our
 * stdout): printable characters, lines joined by " | ", at most 1023 bytes; "" if
 * nothing. Capturing points fd 1 elsewhere for the duration of the call, so no other
 * thread should print to stdout meanwhile. */
const char *lsim_siconos_last_output(const LsimSiconos *s);

/* Seconds the last solve spent on that capture (redirecting stdout and reading it back),
 * for timings that should be Siconos' alone. */
double lsim_siconos_capture_seconds(const LsimSiconos *s);

/* Siconos' relative error of z (lcp_compute_error with its default scaling), for
 * reference beside our own residual. w [n] is scratch. Returns -1 if it cannot say. */
double lsim_siconos_error(const LsimLcp *lcp, const double *z, double *w);

/* Calls *ret = fn(arg) under Siconos' fatal-error and abort trap (verbosity off, BLAS in
 * one thread; one such call at a time in the process), for other Siconos drivers
 * (frictional contact, lcp/fc_solver.c). 0, or -1 when a fatal error was trapped, -2 when
 * an abort() was (a failed assert inside Siconos: the structures fn worked on are in an
 * unknown state, not to be freed), its message in err (what Siconos allocated is lost).
 * What Siconos prints meanwhile to stdout or stderr is captured (lsim_siconos_solve's
 * capture) and does not reach the process's streams. */
int lsim_siconos_trapped(int (*fn)(void *), void *arg, int *ret, char *err, size_t errlen);

/* What Siconos printed (stdout and stderr) during the calling thread's last
 * lsim_siconos_trapped call, as lsim_siconos_last_output gives it (printable characters,
 * lines joined by " | ", at most 1023 bytes, " ..." when cut short); "" if nothing. Valid
 * until that thread's next trapped call. */
const char *lsim_siconos_trapped_output(void);

/* Frees a Siconos options tree whole (NULL does nothing): solver_options_delete (4.4)
 * frees its contents but not the structs themselves, top level and internal solvers. */
struct SolverOptions;
void lsim_siconos_options_free(struct SolverOptions *o);

/* NULL-terminated list of accepted names (without prefix). */
const char *const *lsim_siconos_names(void);

#endif
