/* timed.h: one solve under a time limit (`lcpsim compare --time-limit S`).
 *
 * The solve runs in a forked child (the solvers, ours and Siconos', cannot be interrupted
 * safely in place: a signal could land inside malloc or inside Siconos with its state half
 * written); the child solves once untimed (its copy-on-write faults and first-use
 * allocations, which a solve in place does not pay) and then again from the same start,
 * and sends back the second solve's statistics and solution through a pipe. The parent
 * waits at most twice the limit (both solves): past it, the child is killed and the solve
 * is recorded as LSIM_COMPARE_TIMEOUT, z left at its start, the measures NaN. The child's work on the
 * solver context is lost, which costs nothing: contexts hold workspace only. Without a
 * limit (<= 0) the solve runs in place, as before (the comparison then primes each series
 * with one untimed solve before its first timed one: compare.c, prime_first).
 */
#ifndef LSIM_COMPARE_TIMED_H
#define LSIM_COMPARE_TIMED_H

#include <stddef.h>

/* A failure status of its own (compare files only; /status_legend names it). */
#define LSIM_COMPARE_TIMEOUT (-10)

/* Runs fn(arg) with at most limit seconds (<= 0: no limit, in place). fn fills out[0..nout)
 * (the solution) and stats[0..stats_size) bytes (the solver's statistics). Returns 0 when
 * fn ran to the end (out and stats then hold its results), LSIM_COMPARE_TIMEOUT when the
 * limit passed, or -1 when the child could not be started or died (a crash of a solver is
 * thus recorded, not fatal); in both cases stats is untouched and out may hold part of a
 * solution: the caller resets it. */
int lsim_compare_timed(void (*fn)(void *arg), void *arg, double limit, double *out,
                       size_t nout, void *stats, size_t stats_size);

#endif
