/* run.h: a hybrid model run (SimSect's trajectory iterator) on the event engine.
 *
 * From the initial state and chart, the run integrates the chart's flow (hybrid/ode.h)
 * until one of the chart's boundary functions crosses zero (located to stop_precision),
 * applies the boundary's transition, and goes on in the next chart, until final_time
 * (reached exactly), more than max_chart_count transitions (SimSect's chattering guard),
 * an invalid state (the model's validate), an integration failure, or an interrupt.
 * The trace keeps the states at the record period's exact multiples (with the initial
 * and final states) and every transition with the states before and after.
 */
#ifndef LSIM_HYBRID_RUN_H
#define LSIM_HYBRID_RUN_H

#include <signal.h>
#include <stddef.h>

#include "hybrid/model.h"
#include "hybrid/ode.h"

/* SimSect's integrator symbols (its defaults where it has them; docs/hybrid.md). */
typedef struct LsimHybridOptions {
  double final_time;        /* s, default 1 (finalTime); the run starts at t = 0 */
  double rtol;              /* default 1e-4 (tolerance) */
  double atol;              /* default 1e-8 (SimSect has a single tolerance) */
  double max_step;          /* s, default 1e-2 (maxTimeStep) */
  double min_step;          /* s, default 0 (minTimeStep 1e-15) */
  double stop_precision;    /* default 1e-10 (stopPrecision) */
  int max_stop_iterations;  /* default 128 (maxStopIter) */
  int max_chart_count;      /* default 128 (maxChartCount) */
  double record_period;     /* s, default 0: every integration step (recordPeriod) */
  int method;               /* LSIM_ODE_ADAMS (default) or LSIM_ODE_BDF */
} LsimHybridOptions;

LsimHybridOptions lsim_hybrid_default_options(void);

/* The most samples a record_period may ask for over final_time (as a run's steps). */
#define LSIM_HYBRID_MAX_SAMPLES 2147483647

/* How a run ended. */
typedef enum {
  LSIM_HYBRID_COMPLETED = 0,    /* final_time reached */
  LSIM_HYBRID_STOPPED = 1,      /* an error ended it early: see end_reason */
  LSIM_HYBRID_INTERRUPTED = 2   /* the stop flag was raised */
} LsimHybridEnd;

typedef struct LsimHybridTrace {
  int nstates, noutputs;
  /* Samples: N rows. */
  long nsamples, cap_samples;
  double *time;             /* [N] */
  double *state;            /* [N, nstates] */
  double *outputs;          /* [N, noutputs] */
  int *chart;               /* [N] */
  /* Transitions: E rows. */
  long nevents, cap_events;
  double *ev_time;          /* [E] */
  int *ev_from, *ev_to, *ev_boundary, *ev_iterations;   /* [E] */
  double *ev_g;             /* [E] the boundary function at the located point */
  double *ev_before, *ev_after;                         /* [E, nstates] */
  /* Rows held in memory: samples sample_base .. nsamples - 1, sample k at index
   * k - sample_base of the arrays above (events likewise from event_base). Both 0 unless
   * an observer has stored the rows (it returned > 0): the trace then drops them but the
   * newest sample, so that a long run's memory stays flat. */
  long sample_base, event_base;
  /* The run. */
  double *initial_state;    /* [nstates] as completed by the model's init_chart */
  int initial_chart;
  LsimHybridEnd end;
  char end_reason[320];     /* "" when completed */
  LsimOdeStats stats;       /* the engine's counts */
} LsimHybridTrace;

/* Runs model m with parameters p[nparams] from x0[nstates] in chart0 (-1: the model
 * picks). stop, when not NULL, is polled between steps (a signal handler raises it).
 * Returns 0 with the trace filled (completed, stopped or interrupted: see tr->end),
 * or < 0 (bad parameters or initial state, out of memory) with a message in err and
 * the trace empty. Free the trace with lsim_hybrid_trace_free in every case. */
int lsim_hybrid_run(const LsimHybridModel *m, const double *p, const double *x0, int chart0,
                    const LsimHybridOptions *opt, const volatile sig_atomic_t *stop,
                    LsimHybridTrace *tr, char *err, size_t errlen);

/* An observer of a run: called with the trace after each sample and each transition is
 * added to it (tr holds every row since the last it stored, and initial_state /
 * initial_chart are set); returning < 0 ends the run, which then returns < 0 with err
 * "writing the trace failed" (the observer keeps its own message); else 0 or a sum of
 * flags: LSIM_HYBRID_OBSERVE_STORED (1): it has stored every row so far: the trace drops
 * them, but for the newest sample (sample_base, event_base); LSIM_HYBRID_OBSERVE_STOP (2):
 * the run stops after this row, every row before it kept (LSIM_HYBRID_STOPPED, end_reason
 * "t = T s: stopped by its observer", T the last sample's time), unless that row was the
 * final state. A file writer (hybrid/record.h) appends the new rows to its file as
 * the run goes, and asks to stop when the disk is about to fill. */
typedef int (*LsimHybridObserver)(const LsimHybridTrace *tr, void *user);
#define LSIM_HYBRID_OBSERVE_STORED 1
#define LSIM_HYBRID_OBSERVE_STOP 2

/* lsim_hybrid_run with an observer (observe may be NULL: lsim_hybrid_run). */
int lsim_hybrid_run_observed(const LsimHybridModel *m, const double *p, const double *x0,
                             int chart0, const LsimHybridOptions *opt,
                             const volatile sig_atomic_t *stop, LsimHybridObserver observe,
                             void *user, LsimHybridTrace *tr, char *err, size_t errlen);

void lsim_hybrid_trace_free(LsimHybridTrace *tr);

#endif
