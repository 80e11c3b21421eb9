/* run.c: a hybrid model run on the event engine (run.h).
 *
 * Stages per chart: set the chart's boundary functions as the engine's roots, advance
 * to the next event or the final time (samples recorded on the way), validate, apply the
 * transition of the boundary that fired, record it, restart from the new state.
 */
#include "hybrid/run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

LsimHybridOptions lsim_hybrid_default_options(void) {
  LsimHybridOptions o;
  memset(&o, 0, sizeof o);
  o.final_time = 1.0;
  o.rtol = 1e-4;
  o.atol = 1e-8;
  o.max_step = 1e-2;
  o.min_step = 0.0;
  o.stop_precision = 1e-10;
  o.max_stop_iterations = 128;
  o.max_chart_count = 128;
  o.record_period = 0.0;
  o.method = LSIM_ODE_ADAMS;
  return o;
}

typedef struct Run {
  const LsimHybridModel *m;
  const double *p;
  int chart;
  LsimHybridTrace *tr;
  const volatile sig_atomic_t *stop;
  LsimHybridObserver observe; /* told of each new row (may be NULL) */
  void *user;
  int observer_failed;      /* the observer returned < 0 */
  int observer_stop;        /* the observer asked the run to stop (LSIM_HYBRID_OBSERVE_STOP) */
  double *out;              /* [noutputs] scratch */
  int invalid;              /* validate refused a sample */
  char msg[256];
} Run;

static int run_flow(double t, const double *x, double *xd, void *u) {
  const Run *r = u;
  return r->m->flow(t, x, r->p, r->chart, xd);
}

static int run_boundary(double t, const double *x, double *g, void *u) {
  const Run *r = u;
  return r->m->boundary(t, x, r->p, r->chart, g);
}

/* Grows an array of rows of width w to hold cap rows. 0 or -1. */
static int grow(void **a, size_t elem, long cap, int w) {
  void *b = realloc(*a, (size_t)cap * (size_t)(w > 0 ? w : 1) * elem);
  if (!b) return -1;
  *a = b;
  return 0;
}

/* The rows an observer has stored dropped, but for the newest sample, which moves to
 * index 0 (the run compares with its time). */
static void drop_stored(LsimHybridTrace *tr) {
  const long last = tr->nsamples - 1 - tr->sample_base; /* its index */
  if (last > 0) {
    const size_t ns = (size_t)tr->nstates, no = (size_t)tr->noutputs;
    tr->time[0] = tr->time[last];
    tr->chart[0] = tr->chart[last];
    memmove(tr->state, tr->state + (size_t)last * ns, ns * sizeof *tr->state);
    if (no) memmove(tr->outputs, tr->outputs + (size_t)last * no, no * sizeof *tr->outputs);
  }
  if (tr->nsamples > 0) tr->sample_base = tr->nsamples - 1;
  tr->event_base = tr->nevents;
}

/* The observer told of the trace's new row: < 0 it failed, else its flags (run.h). */
static int tell_observer(Run *r) {
  if (!r->observe) return 0;
  const int o = r->observe(r->tr, r->user);
  if (o < 0) {
    r->observer_failed = 1;
    return -1;
  }
  if (o & LSIM_HYBRID_OBSERVE_STORED) drop_stored(r->tr);
  if (o & LSIM_HYBRID_OBSERVE_STOP) r->observer_stop = 1;
  return 0;
}

static int add_sample(Run *r, double t, const double *x) {
  LsimHybridTrace *tr = r->tr;
  if (tr->nsamples - tr->sample_base == tr->cap_samples) {
    const long cap = tr->cap_samples ? 2 * tr->cap_samples : 256;
    if (grow((void **)&tr->time, sizeof(double), cap, 1) ||
        grow((void **)&tr->state, sizeof(double), cap, tr->nstates) ||
        grow((void **)&tr->outputs, sizeof(double), cap, tr->noutputs) ||
        grow((void **)&tr->chart, sizeof(int), cap, 1))
      return -1;
    tr->cap_samples = cap;
  }
  const long k = tr->nsamples - tr->sample_base;
  tr->time[k] = t;
  memcpy(tr->state + k * tr->nstates, x, (size_t)tr->nstates * sizeof *x);
  tr->chart[k] = r->chart;
  if (tr->noutputs > 0 && r->m->outputs(t, x, r->p, r->chart, tr->outputs + k * tr->noutputs))
    return -1;
  tr->nsamples++;
  return tell_observer(r);
}

/* The engine's sampler: records, validates, and stops the run on an interrupt. */
static int run_sample(double t, const double *x, void *u) {
  Run *r = u;
  if (add_sample(r, t, x)) return -1;
  if (r->observer_stop) return -1; /* after this sample, which is kept */
  if (r->m->validate && r->m->validate(t, x, r->p, r->chart, r->msg, sizeof r->msg)) {
    r->invalid = 1;
    return -1;
  }
  if (r->stop && *r->stop) return -1;
  return 0;
}

static int add_event(Run *r, double t, int from, int to, int b, int iters, double g,
                     const double *before, const double *after) {
  LsimHybridTrace *tr = r->tr;
  if (tr->nevents - tr->event_base == tr->cap_events) {
    const long cap = tr->cap_events ? 2 * tr->cap_events : 64;
    if (grow((void **)&tr->ev_time, sizeof(double), cap, 1) ||
        grow((void **)&tr->ev_g, sizeof(double), cap, 1) ||
        grow((void **)&tr->ev_from, sizeof(int), cap, 1) ||
        grow((void **)&tr->ev_to, sizeof(int), cap, 1) ||
        grow((void **)&tr->ev_boundary, sizeof(int), cap, 1) ||
        grow((void **)&tr->ev_iterations, sizeof(int), cap, 1) ||
        grow((void **)&tr->ev_before, sizeof(double), cap, tr->nstates) ||
        grow((void **)&tr->ev_after, sizeof(double), cap, tr->nstates))
      return -1;
    tr->cap_events = cap;
  }
  const long k = tr->nevents++ - tr->event_base;
  tr->ev_time[k] = t;
  tr->ev_from[k] = from;
  tr->ev_to[k] = to;
  tr->ev_boundary[k] = b;
  tr->ev_iterations[k] = iters;
  tr->ev_g[k] = g;
  memcpy(tr->ev_before + k * tr->nstates, before, (size_t)tr->nstates * sizeof *before);
  memcpy(tr->ev_after + k * tr->nstates, after, (size_t)tr->nstates * sizeof *after);
  return tell_observer(r);
}

void lsim_hybrid_trace_free(LsimHybridTrace *tr) {
  free(tr->time);
  free(tr->state);
  free(tr->outputs);
  free(tr->chart);
  free(tr->ev_time);
  free(tr->ev_from);
  free(tr->ev_to);
  free(tr->ev_boundary);
  free(tr->ev_iterations);
  free(tr->ev_g);
  free(tr->ev_before);
  free(tr->ev_after);
  free(tr->initial_state);
  memset(tr, 0, sizeof *tr);
}

/* Ends the run early with a reason. */
static void stopped(LsimHybridTrace *tr, LsimHybridEnd end, const char *fmt, double t,
                    const char *what) {
  tr->end = end;
  snprintf(tr->end_reason, sizeof tr->end_reason, fmt, t, what);
}

/* Ends the run as its observer asked, at the last sample. */
static void observer_stopped(LsimHybridTrace *tr) {
  stopped(tr, LSIM_HYBRID_STOPPED, "t = %.9g s: %s", tr->time[tr->nsamples - 1 - tr->sample_base],
          "stopped by its observer");
}

static int options_check(const LsimHybridOptions *o, char *err, size_t errlen) {
  const char *bad = NULL;
  if (!(o->final_time > 0 && isfinite(o->final_time))) bad = "final_time must be > 0";
  else if (o->max_chart_count < 0) bad = "max_chart_count must be >= 0";
  else if (!(o->record_period >= 0 && isfinite(o->record_period))) bad = "record_period must be >= 0";
  if (bad) snprintf(err, errlen, "%s", bad);
  return bad ? -1 : 0;
}

int lsim_hybrid_run(const LsimHybridModel *m, const double *p, const double *x0, int chart0,
                    const LsimHybridOptions *opt, const volatile sig_atomic_t *stop,
                    LsimHybridTrace *tr, char *err, size_t errlen) {
  return lsim_hybrid_run_observed(m, p, x0, chart0, opt, stop, NULL, NULL, tr, err, errlen);
}

int lsim_hybrid_run_observed(const LsimHybridModel *m, const double *p, const double *x0,
                             int chart0, const LsimHybridOptions *opt,
                             const volatile sig_atomic_t *stop, LsimHybridObserver observe,
                             void *user, LsimHybridTrace *tr, char *err, size_t errlen) {
  memset(tr, 0, sizeof *tr);
  tr->nstates = m->nstates;
  tr->noutputs = m->noutputs;
  if (options_check(opt, err, errlen)) return -1;
  Run r = {.m = m, .p = p, .chart = chart0, .tr = tr, .stop = stop, .observe = observe,
           .user = user};
  if (m->check_params && m->check_params(p, r.msg, sizeof r.msg)) {
    snprintf(err, errlen, "parameters: %s", r.msg);
    return -1;
  }
  if (chart0 < -1 || chart0 >= m->ncharts) {
    snprintf(err, errlen, "no chart %d", chart0);
    return -1;
  }
  const size_t n = (size_t)m->nstates;
  double *x = malloc(2 * n * sizeof *x);
  tr->initial_state = malloc(n * sizeof *x);
  r.out = NULL;
  if (!x || !tr->initial_state) {
    free(x);
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  double *xn = x + n;
  memcpy(x, x0, n * sizeof *x);
  /* The model completes the state and picks the chart. */
  r.msg[0] = '\0';
  if (m->init_chart(x, p, &r.chart, r.msg, sizeof r.msg) || r.chart < 0 ||
      r.chart >= m->ncharts) {
    snprintf(err, errlen, "initial state: %s", r.msg[0] ? r.msg : "no chart for it");
    free(x);
    return -1;
  }
  if (m->validate && m->validate(0.0, x, p, r.chart, r.msg, sizeof r.msg)) {
    snprintf(err, errlen, "initial state: %s", r.msg);
    free(x);
    return -1;
  }
  memcpy(tr->initial_state, x, n * sizeof *x);
  tr->initial_chart = r.chart;

  /* The engine. */
  LsimOdeOptions oo = lsim_ode_default_options();
  oo.rtol = opt->rtol;
  oo.atol = opt->atol;
  oo.max_step = opt->max_step;
  oo.min_step = opt->min_step;
  oo.event_precision = opt->stop_precision;
  oo.max_event_iterations = opt->max_stop_iterations;
  oo.max_events = opt->max_chart_count;
  oo.method = opt->method;
  oo.record_period = opt->record_period;
  LsimOde *ode = NULL;
  if (lsim_ode_create(&ode, m->nstates, run_flow, &r, &oo, err, errlen)) {
    free(x);
    return -1;
  }
  lsim_ode_set_sampler(ode, run_sample, &r);
  int rc = 0;
  if (add_sample(&r, 0.0, x)) rc = -1;
  else if (r.observer_stop) observer_stopped(tr);
  double t = 0.0;
  int held = -1;   /* the boundary just crossed, when the chart stayed (else -1) */
  while (!rc && !r.observer_stop) {
    /* Asked to stop (polled in the sampler too): after the last transition. */
    if (stop && *stop) {
      stopped(tr, LSIM_HYBRID_INTERRUPTED, "interrupted at t = %.9g s%s", t, "");
      break;
    }
    /* The boundary just crossed, when the chart stayed, is held at 0 (a reset that left
       the state on it does not fire it again at once); the boundaries of a new chart that
       are exactly 0 and leave 0 on their watched side fire at once. */
    const LsimHybridChart *c = &m->charts[r.chart];
    int hold[LSIM_HYBRID_MAX_BOUNDARIES] = {0};
    if (held >= 0 && held < c->nboundaries) hold[held] = 1;
    if (lsim_ode_set_roots(ode, c->nboundaries, run_boundary, c->direction, NULL) ||
        lsim_ode_restart_holding(ode, t, x, hold)) {
      stopped(tr, LSIM_HYBRID_STOPPED, "t = %.9g s: %s", t, lsim_ode_message(ode));
      break;
    }
    LsimOdeEvent ev;
    const int s = lsim_ode_advance(ode, opt->final_time, &ev);
    t = lsim_ode_time(ode);
    memcpy(x, lsim_ode_state(ode), n * sizeof *x);
    if (s == LSIM_ODE_REACHED) {
      /* The final state, unless the last sample was it. */
      if (tr->time[tr->nsamples - 1 - tr->sample_base] != t && add_sample(&r, t, x)) rc = -1;
      break;
    }
    if (s < 0 && r.observer_failed) {
      rc = -1;
      break;
    }
    if (s < 0 && r.observer_stop) {
      observer_stopped(tr);
      break;
    }
    if (s < 0) {
      /* The reason quotes the time it is about (the sample refused, the transition one
         too many, the crossing not located), not the last good state's. */
      const double tf = lsim_ode_failure_time(ode);
      if (stop && *stop) stopped(tr, LSIM_HYBRID_INTERRUPTED, "interrupted at t = %.9g s%s", tf, "");
      else if (r.invalid) stopped(tr, LSIM_HYBRID_STOPPED, "t = %.9g s: invalid state: %s", tf, r.msg);
      else if (s == LSIM_ODE_TOO_MANY_EVENTS)
        stopped(tr, LSIM_HYBRID_STOPPED,
                "t = %.9g s: more chart transitions than max_chart_count (%s)", tf,
                "chattering, or raise max_chart_count");
      else stopped(tr, LSIM_HYBRID_STOPPED, "t = %.9g s: %s", tf, lsim_ode_message(ode));
      if (s == LSIM_ODE_OUT_OF_MEMORY) rc = -1;
      break;
    }
    /* An event: the transition of the boundary that fired. */
    memcpy(xn, x, n * sizeof *x);
    int next = r.chart;
    r.msg[0] = '\0';
    if (m->transition(t, x, p, r.chart, ev.root, xn, &next, r.msg, sizeof r.msg) || next < 0 ||
        next >= m->ncharts) {
      stopped(tr, LSIM_HYBRID_STOPPED, "t = %.9g s: transition failed: %s", t,
              r.msg[0] ? r.msg : "no next chart");
      break;
    }
    if (add_event(&r, t, r.chart, next, ev.root, ev.iterations, ev.g, x, xn)) {
      rc = -1;
      break;
    }
    if (r.observer_stop) {
      observer_stopped(tr);
      break;
    }
    held = next == r.chart ? ev.root : -1;
    r.chart = next;
    memcpy(x, xn, n * sizeof *x);
    if (m->validate && m->validate(t, x, p, r.chart, r.msg, sizeof r.msg)) {
      stopped(tr, LSIM_HYBRID_STOPPED, "t = %.9g s: invalid state after the transition: %s", t,
              r.msg);
      break;
    }
  }
  tr->stats = *lsim_ode_stats(ode);
  lsim_ode_free(ode);
  free(x);
  if (rc) {
    snprintf(err, errlen, "%s", r.observer_failed ? "writing the trace failed"
                                                  : "out of memory (or an output function failed)");
    lsim_hybrid_trace_free(tr);
    return -1;
  }
  return 0;
}
