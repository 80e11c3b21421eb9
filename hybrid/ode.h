/* ode.h: adaptive integration with event location (SUNDIALS CVODE underneath).
 *
 * A context integrates x' = f(t, x) from a state the caller sets, and stops at the first
 * crossing of any of its root functions g_i(t, x) in the direction asked for, located
 * to a precision in the function value (|g_i| <= event_precision at the located point,
 * as SimSect's stopPrecision), or at the end time asked for, exactly. The caller then
 * applies whatever reset map it likes and restarts from the new state. Between events
 * a sampler, if set, is called at the exact multiples k * record_period of the record
 * period (or after every internal step when the period is 0), from CVODE's dense output.
 *
 * Uses: the hybrid-model driver (hybrid/run.h: charts, boundaries, transitions) and any
 * event-driven integrator (free flight until a gap closes, impact map, restart).
 *
 *   LsimOdeOptions o = lsim_ode_default_options();
 *   LsimOde *ode;
 *   lsim_ode_create(&ode, n, flow, user, &o, err, sizeof err);
 *   lsim_ode_set_roots(ode, nroots, roots, directions, sides);
 *   lsim_ode_restart(ode, t0, x0);
 *   for (;;) {
 *     LsimOdeEvent ev;
 *     int s = lsim_ode_advance(ode, t_end, &ev);
 *     if (s == LSIM_ODE_REACHED) break;         (lsim_ode_state() is x(t_end))
 *     if (s < 0) { lsim_ode_message(ode) says why; break; }
 *     ... s == LSIM_ODE_EVENT: ev.t, ev.fired[i], lsim_ode_state() is x(ev.t);
 *     apply the reset map, maybe lsim_ode_set_roots() again, lsim_ode_restart(ode, ev.t, xnew)
 *   }
 *   lsim_ode_free(ode);
 *
 * Event location. After each internal step [a, b] every root function is evaluated at b;
 * a function whose sign changed in its direction (falling: g(a) > 0 and g(b) <= 0; rising:
 * g(a) < 0 and g(b) >= 0; either: one of the two) is bracketed and its crossing located
 * on the step's interpolating polynomial by the Illinois variant of regula falsi until
 * the located point on the requested side of the crossing has |g| <= event_precision
 * (LSIM_ODE_AFTER, the default: g already crossed, as SimSect's STOP_TYPE_RIGHT;
 * LSIM_ODE_BEFORE: g not yet crossed, STOP_TYPE_LEFT). The earliest crossing wins; every
 * function crossed by then is reported as fired. A crossing not located within
 * max_event_iterations, or whose bracket shrinks to the resolution of time with |g| still
 * above the precision, is an error (LSIM_ODE_EVENT_NOT_LOCATED): a boundary function with
 * a jump, or (the message says which) a precision finer than g resolves across a few ulps
 * of time. A function on its boundary where a segment starts (after a restart or
 * set_roots: exactly 0, or past 0 in its direction by at most event_precision, where a
 * located event leaves a state) goes the way it goes just after the start (its first
 * value off the start on the first step's polynomial at 1e-3, 1e-2, 1e-1 of the step, then
 * at its end; none, the next step decides): on through the boundary, and the event is the
 * start itself (g = 0, 0 iterations: a bouncing mass started on the floor, falling; SLIP at
 * rest at touchdown height); back to the other side of 0, and it is armed from there. A
 * function held (by default every one, at the time of the event just reported: the
 * restart after a reset map; lsim_ode_restart_holding names them) is armed only once it
 * leaves 0, so a state put on a boundary by a reset does not fire again at once. Two
 * crossings of one function within one internal step are not seen (as with any
 * step-end sign test): bound max_step when a boundary can be grazed. Likewise a reset
 * that leaves the state on the crossed side moving away too slowly to ever leave it (a
 * bouncing ball's last, tiny bounces) never re-arms a held function: the model must see
 * to such states (a resting chart, a validity check).
 *
 * Failure modes: the flow or a root function returning < 0 (reported as
 * LSIM_ODE_CALLBACK_FAILED), CVODE failing to meet the tolerance above min_step
 * (LSIM_ODE_STEP_FAILED, with CVODE's message), more events than max_events
 * (LSIM_ODE_TOO_MANY_EVENTS: chattering), more steps than max_steps in one advance.
 * Every error leaves the last good state (lsim_ode_time / lsim_ode_state) in place.
 */
#ifndef LSIM_ODE_H
#define LSIM_ODE_H

#include <stddef.h>

/* s: the shortest span from t = 0 that lsim_ode_advance integrates. CVODE's stop-time
 * test multiplies the time left by its step, a fraction of that span, and the product
 * underflows to 0 below about 1e-161 s ("tstop behind t": a bouncing mass run to 1e-161 s
 * completes, to 1e-162 s stops); a span below this floor is refused with a message saying
 * so. Equal to contact/world.h's LSIM_EVENT_TIME_FLOOR (the scenes' check;
 * tests/test_event_driven.c test_time_floors_agree). */
#define LSIM_ODE_TIME_FLOOR 1e-150

/* Statuses of lsim_ode_advance and friends: 0 ok, > 0 where it stopped, < 0 an error. */
typedef enum LsimOdeStatus {
  LSIM_ODE_REACHED = 0,               /* the end time was reached */
  LSIM_ODE_EVENT = 1,                 /* a root function crossed: see the LsimOdeEvent */
  LSIM_ODE_BAD_INPUT = -1,            /* sizes, options, non-finite state, no state set */
  LSIM_ODE_OUT_OF_MEMORY = -2,
  LSIM_ODE_CALLBACK_FAILED = -3,      /* the flow or a root function returned < 0 */
  LSIM_ODE_STEP_FAILED = -4,          /* CVODE could not take a step (message says why) */
  LSIM_ODE_EVENT_NOT_LOCATED = -5,    /* a crossing not located to the precision */
  LSIM_ODE_TOO_MANY_EVENTS = -6,      /* more than max_events events (chattering) */
  LSIM_ODE_TOO_MANY_STEPS = -7        /* more than max_steps internal steps in one advance */
} LsimOdeStatus;

/* The name of a status ("reached", "event", "bad_input", ...). */
const char *lsim_ode_status_name(int status);

/* Directions of a root function's crossing that count as an event. */
enum { LSIM_ODE_FALLING = -1, LSIM_ODE_EITHER = 0, LSIM_ODE_RISING = 1 };
/* Which side of the crossing the located event lies on. */
enum { LSIM_ODE_AFTER = 0, LSIM_ODE_BEFORE = 1 };
/* Multistep methods. */
enum { LSIM_ODE_ADAMS = 0, LSIM_ODE_BDF = 1 };

typedef struct LsimOdeOptions {
  double rtol;              /* relative tolerance of the local error, default 1e-4 */
  double atol;              /* absolute tolerance, default 1e-8 */
  double max_step;          /* s, default 1e-2 (0: none) */
  double min_step;          /* s, default 0 (SimSect's minTimeStep 1e-15 is below any
                               step CVODE takes at t > 1e-3 anyway) */
  double event_precision;   /* |g| at the located event, default 1e-10 */
  double event_time_precision; /* s: also the bracket around the crossing at most this
                               wide, so the event time is within it (0: off, the default,
                               SimSect's rule in the function value alone) */
  int max_event_iterations; /* default 128 */
  long max_events;          /* events before LSIM_ODE_TOO_MANY_EVENTS, 0: no limit
                               (default 0) */
  long max_steps;           /* internal steps per advance, 0: no limit (default 0) */
  int method;               /* LSIM_ODE_ADAMS (default; non-stiff) or LSIM_ODE_BDF */
  double record_period;     /* s: samples at multiples of it; 0: after every internal
                               step; < 0: no samples (default -1) */
} LsimOdeOptions;

LsimOdeOptions lsim_ode_default_options(void);

/* x' = f(t, x): writes xdot[n]. Returns 0; > 0 asks CVODE to retry with a smaller step
 * (the state is outside where f is defined); < 0 stops the integration. */
typedef int (*LsimOdeFlowFn)(double t, const double *x, double *xdot, void *user);
/* g(t, x): writes g[nroots]. 0, or < 0 to stop the integration. */
typedef int (*LsimOdeRootFn)(double t, const double *x, double *g, void *user);
/* A sample at time t (a multiple of the record period, or the end of an internal step).
 * 0, or < 0 to stop the integration (reported as LSIM_ODE_CALLBACK_FAILED). */
typedef int (*LsimOdeSampleFn)(double t, const double *x, void *user);
/* The largest step allowed from (t, x), s (> 0; +inf or NaN: options.max_step alone). */
typedef double (*LsimOdeStepBoundFn)(double t, const double *x, void *user);

typedef struct LsimOdeEvent {
  double t;                 /* time of the located event */
  int root;                 /* the root function that fired first (lowest index on ties) */
  const int *fired;         /* [nroots] 1 for every function crossed by t (owned by the
                               context; valid until the next advance or set_roots) */
  double g;                 /* g_root at the located point, |g| <= event_precision */
  int iterations;           /* root-finding iterations spent on the event */
} LsimOdeEvent;

typedef struct LsimOdeStats {
  long steps;               /* internal steps taken */
  long rhs_evals;           /* evaluations of the flow (CVODE's, Jacobian ones included) */
  long root_evals;          /* evaluations of the root functions */
  long events;              /* events reported */
  long restarts;            /* lsim_ode_restart calls */
  long samples;             /* sampler calls */
  int max_event_iterations; /* the most root-finding iterations one event needed */
  double max_event_g;       /* the largest |g| at a located event */
} LsimOdeStats;

typedef struct LsimOde LsimOde;

/* A context for states of dimension n >= 1 with flow f (user is passed back). Options
 * are copied (NULL: defaults). Returns 0, or < 0 with a message in err. */
int lsim_ode_create(LsimOde **out, int n, LsimOdeFlowFn f, void *user,
                    const LsimOdeOptions *opt, char *err, size_t errlen);
void lsim_ode_free(LsimOde *ode);

/* The root functions from now on: nroots >= 0 (0: none), g (user as given to create),
 * direction[nroots] (LSIM_ODE_FALLING / EITHER / RISING; NULL: all falling, SimSect's
 * "the patch is where every boundary function is positive"), side[nroots]
 * (LSIM_ODE_AFTER / BEFORE; NULL: all after). Arrays are copied. Takes effect at the
 * next restart (it implies one from the current state when called after an advance).
 * 0 or < 0. */
int lsim_ode_set_roots(LsimOde *ode, int nroots, LsimOdeRootFn g, const int *direction,
                       const int *side);

/* The resolution of each root function (res[nroots], >= 0; NULL: all 0), until the next
 * lsim_ode_set_roots: the round-off of its evaluation. A crossing whose bracket shrinks
 * to the resolution of time with |g| above the event precision but within res[i] is
 * located there (as well as g can be) instead of failing as a discontinuity; when |g|
 * there is beyond res[i] (g noisier than that at this time), at the last point on the
 * requested side with |g| <= res[i] that the location visited, if any. 0 or < 0. */
int lsim_ode_set_root_resolution(LsimOde *ode, const double *res);

/* The natural scale of each component (scale[n] >= 0, 0: none; NULL: none for any), until
 * the next call: the Jacobian's difference quotients (CVODE's, for its Newton iterations)
 * perturb x_j by sqrt(eps) |x_j| (CVODE's rule, or a floor from the flow's size) and at
 * most by sqrt(eps) scale_j; the local error of x_j is held to rtol |x_j| + atol up to
 * |x_j| = scale_j and to rtol scale_j + 64 eps |x_j| + atol beyond. For a coordinate whose
 * size says nothing of the scale on which the flow changes (a position far from the
 * world's origin: sqrt(eps) |x| is 1.5e-5 m at 1000 m, past the features a contact
 * follows), the scale of that change (lsim_event_driven_run: 16 m). Within the scales
 * the Jacobian and the error weights are CVODE's own, bit for bit. 0 or < 0. */
int lsim_ode_set_scale(LsimOde *ode, const double *scale);

/* Samples at the record period (options.record_period) go to fn (NULL: none). */
void lsim_ode_set_sampler(LsimOde *ode, LsimOdeSampleFn fn, void *user);

/* Before each internal step, fn (NULL: none) bounds its length from the step's start:
 * CVODE's largest step is then min(options.max_step, fn(t, x)), never below
 * options.min_step. Roots are seen only as sign changes between steps' ends, so a root
 * function that dips below 0 and back within one step is missed; a bound that keeps each
 * step shorter than what a root can do in it (a gap over its closing speed) prevents
 * that. */
void lsim_ode_set_step_bound(LsimOde *ode, LsimOdeStepBoundFn fn, void *user);

/* Starts (or restarts, after a reset map) the integration at time t from x[n]. The next
 * sample is the first multiple of the record period after t. At the time of the event
 * just reported, every root function exactly 0 is held there (armed once it leaves 0);
 * elsewhere none is. 0 or < 0. */
int lsim_ode_restart(LsimOde *ode, double t, const double *x);
/* lsim_ode_restart, with the root functions held at 0 named: held[nroots] (set_roots'
 * functions) 1 for a function the reset may leave exactly at 0 without its firing again
 * (the boundary just crossed, when the new roots include it), 0 for one that fires at
 * once if it leaves 0 on its watched side (NULL: none held). */
int lsim_ode_restart_holding(LsimOde *ode, double t, const double *x, const int *held);

/* Integrates from the current time towards t_end > current time (t_end equal to it
 * returns at once). Returns LSIM_ODE_REACHED with the state at t_end exactly,
 * LSIM_ODE_EVENT with ev filled and the state at ev->t, or an error (< 0) with the state
 * at the last good point. After an event the next advance restarts from the event's
 * state unless the caller restarted itself. */
int lsim_ode_advance(LsimOde *ode, double t_end, LsimOdeEvent *ev);

double lsim_ode_time(const LsimOde *ode);
const double *lsim_ode_state(const LsimOde *ode);   /* [n], valid until the next call */
int lsim_ode_dimension(const LsimOde *ode);
const LsimOdeStats *lsim_ode_stats(const LsimOde *ode);
const LsimOdeOptions *lsim_ode_options(const LsimOde *ode);
/* What went wrong last (one line, "" when nothing did). */
const char *lsim_ode_message(const LsimOde *ode);
/* The time the last error is about, for messages: a crossing not located, the end of its
 * bracket (where the function has crossed); too many events, the event's time; a sampler
 * or root function that failed, its time; otherwise the current point (lsim_ode_time, the
 * last good state, which an error leaves in place). */
double lsim_ode_failure_time(const LsimOde *ode);

#endif
