/* test_ode.c: the event-location engine (hybrid/ode.h) against closed forms.
 *
 * The oscillator x'' = -x from x = 1 is cos t: its zeros are at pi/2 + k pi, falling and
 * rising in turn, and samples at multiples of a record period are cos(k T). A ball under
 * gravity flies on parabolas, which the Adams formulas (order >= 2) integrate to round-off:
 * its impact times and apex heights with restitution e follow in closed form
 * (t_1 = sqrt(2 h / g), v_k = e^k g t_1, flights 2 v_k / g, apexes e^(2k) h), so they are
 * checked to round-off and the event precision whatever the tolerance.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hybrid/ode.h"

#define PI 3.14159265358979323846

/* ------------------------------------------------------------------------------------ */
/* The oscillator: x = (position, velocity). */

static int osc_flow(double t, const double *x, double *xd, void *u) {
  (void)t;
  (void)u;
  xd[0] = x[1];
  xd[1] = -x[0];
  return 0;
}

/* g0 = g1 = position (one falling, one rising), g2 = position - 0.5 (either way). */
static int osc_roots(double t, const double *x, double *g, void *u) {
  (void)t;
  (void)u;
  g[0] = x[0];
  g[1] = x[0];
  g[2] = x[0] - 0.5;
  return 0;
}

typedef struct Samples {
  int n;
  double t[200], x[200];
} Samples;

static int keep_sample(double t, const double *x, void *u) {
  Samples *s = u;
  if (s->n < 200) {
    s->t[s->n] = t;
    s->x[s->n] = x[0];
  }
  s->n++;
  return 0;
}

/* Every zero of cos t and of cos t - 1/2 on (0, 10], in order, by the right function and
 * direction; every sample at k * 0.25 exactly. */
static void test_oscillator_events_and_samples(void **state) {
  (void)state;
  LsimOdeOptions o = lsim_ode_default_options();
  o.rtol = 1e-10;
  o.atol = 1e-12;
  o.max_step = 0.1;
  o.record_period = 0.25;
  LsimOde *ode;
  char err[256];
  assert_int_equal(lsim_ode_create(&ode, 2, osc_flow, NULL, &o, err, sizeof err), 0);
  const int dir[3] = {LSIM_ODE_FALLING, LSIM_ODE_RISING, LSIM_ODE_EITHER};
  assert_int_equal(lsim_ode_set_roots(ode, 3, osc_roots, dir, NULL), 0);
  Samples s = {0};
  lsim_ode_set_sampler(ode, keep_sample, &s);
  const double x0[2] = {1.0, 0.0};
  assert_int_equal(lsim_ode_restart(ode, 0.0, x0), 0);

  /* Expected: cos t = 1/2 at pi/3 (falling) and 5pi/3 (rising), and so on. */
  double expect[16];
  int expect_root[16], ne = 0;
  for (int k = 0; k < 4; ++k) {
    const double base = 2 * PI * k;
    const double cand[4] = {base + PI / 3, base + PI / 2, base + 3 * PI / 2, base + 5 * PI / 3};
    const int root[4] = {2, 0, 1, 2};
    for (int j = 0; j < 4; ++j)
      if (cand[j] <= 10.0) {
        expect[ne] = cand[j];
        expect_root[ne++] = root[j];
      }
  }
  int got = 0;
  for (;;) {
    LsimOdeEvent ev;
    const int st = lsim_ode_advance(ode, 10.0, &ev);
    if (st == LSIM_ODE_REACHED) break;
    assert_int_equal(st, LSIM_ODE_EVENT);
    assert_true(got < ne);
    /* rtol 1e-10 over ~10 time units: a global error of some 1e-9 in x; |x'| >= 0.86 at
       every crossing, so 1e-8 in time is ample and 1e-6 would already catch a wrong
       root. */
    assert_true(fabs(ev.t - expect[got]) < 1e-8);
    assert_int_equal(ev.root, expect_root[got]);
    assert_true(fabs(ev.g) <= 1e-10);
    /* After the crossing: the falling function is <= 0, the rising one >= 0. */
    const double *x = lsim_ode_state(ode);
    if (ev.root == 0) assert_true(x[0] <= 0.0);
    if (ev.root == 1) assert_true(x[0] >= 0.0);
    assert_true(lsim_ode_time(ode) == ev.t);
    ++got;
    assert_int_equal(lsim_ode_restart(ode, ev.t, x), 0);
  }
  assert_int_equal(got, ne);
  assert_true(lsim_ode_time(ode) == 10.0);
  /* The end state is cos 10 (global error as above). */
  assert_true(fabs(lsim_ode_state(ode)[0] - cos(10.0)) < 1e-8);
  /* Samples: 0.25, 0.5, ..., 10.0, each once, at k * 0.25 exactly, across restarts. */
  assert_int_equal(s.n, 40);
  for (int k = 0; k < 40; ++k) {
    assert_true(s.t[k] == (k + 1) * 0.25);
    assert_true(fabs(s.x[k] - cos(s.t[k])) < 1e-8);
  }
  lsim_ode_free(ode);
}

/* ------------------------------------------------------------------------------------ */
/* The ball: x = (height, vertical velocity), gravity 9.81. */

typedef struct Ball {
  double g, e;
} Ball;

static int ball_flow(double t, const double *x, double *xd, void *u) {
  (void)t;
  xd[0] = x[1];
  xd[1] = -((Ball *)u)->g;
  return 0;
}

static int ball_roots(double t, const double *x, double *g, void *u) {
  (void)t;
  (void)u;
  g[0] = x[0];  /* impact: height falls through 0 */
  g[1] = x[1];  /* apex: velocity falls through 0 */
  return 0;
}

/* Impacts and apexes of a ball dropped from 1 m with e = 0.8, at the default rtol 1e-4
 * and event precision 1e-10, and at a precision of 1e-13. Before the crossing, the apex
 * function (not reset) would fire again right away, so that run watches impacts only.
 * Dropped from rest, the ball starts at its apex: the apex function is exactly 0 there and
 * falls, so the first event is that apex, at t = 0 exactly (g = 0, no iterations); the
 * restart there (the event's time) does not fire it again. */
static void run_ball(double precision, int side) {
  const int nroots = side == LSIM_ODE_AFTER ? 2 : 1;
  Ball b = {9.81, 0.8};
  LsimOdeOptions o = lsim_ode_default_options();
  o.event_precision = precision;
  LsimOde *ode;
  assert_int_equal(lsim_ode_create(&ode, 2, ball_flow, &b, &o, NULL, 0), 0);
  const int sides[2] = {side, side};
  assert_int_equal(lsim_ode_set_roots(ode, nroots, ball_roots, NULL, sides), 0);
  const double x0[2] = {1.0, 0.0};
  assert_int_equal(lsim_ode_restart(ode, 0.0, x0), 0);
  const double t1 = sqrt(2.0 / b.g);
  double t_impact = t1, v = b.g * t1, h_apex = 1.0;
  int impacts = 0, apexes = 0, start_apex = 0;
  for (;;) {
    LsimOdeEvent ev;
    const int st = lsim_ode_advance(ode, 3.0, &ev);
    if (st == LSIM_ODE_REACHED) break;
    assert_int_equal(st, LSIM_ODE_EVENT);
    double x[2];
    memcpy(x, lsim_ode_state(ode), sizeof x);
    assert_true(fabs(ev.g) <= precision);
    /* The located point is on the requested side of the crossing. */
    assert_true(side == LSIM_ODE_AFTER ? x[ev.root] <= 0.0 : x[ev.root] > 0.0);
    if (ev.root == 1 && ev.t == 0.0) {
      /* The start: exactly where the ball was put, with no search. */
      assert_true(x[0] == 1.0 && x[1] == 0.0 && ev.g == 0.0 && ev.iterations == 0);
      ++start_apex;
    } else if (ev.root == 0) {
      /* |y| <= precision at speed v: the time is within precision / v of the closed
         form, plus the parabolas' round-off (below 1e-9, see the apexes). */
      assert_true(fabs(ev.t - t_impact) <= precision / v + 1e-9);
      x[1] = -b.e * x[1];
      v *= b.e;
      ++impacts;
      if (nroots == 1) t_impact += 2.0 * v / b.g;
    } else {
      h_apex = v * v / (2.0 * b.g);
      /* The parabolas are integrated exactly but for round-off and the Newton
         iteration's residual: measured 5e-12 m and 4e-13 s. */
      assert_true(fabs(x[0] - h_apex) <= 1e-9);
      assert_true(fabs(ev.t - (t_impact + v / b.g)) <= 1e-9);
      t_impact += 2.0 * v / b.g;
      ++apexes;
    }
    assert_int_equal(lsim_ode_restart(ode, ev.t, x), 0);
  }
  /* 3 s hold impacts at 0.45, 1.17, 1.75, 2.21, 2.58, 2.88 s. */
  assert_int_equal(impacts, 6);
  assert_int_equal(apexes, nroots == 2 ? 6 : 0);
  assert_int_equal(start_apex, nroots == 2 ? 1 : 0);
  assert_true(lsim_ode_stats(ode)->max_event_g <= precision);
  lsim_ode_free(ode);
}

static void test_ball_closed_form(void **state) {
  (void)state;
  run_ball(1e-10, LSIM_ODE_AFTER);
  run_ball(1e-13, LSIM_ODE_AFTER);
  run_ball(1e-10, LSIM_ODE_BEFORE);
}

/* A slow crossing: g(t) = 1e-9 (1 - t) (2 - t) falls through 0 at t = 1 s with slope
 * -1e-9, so |g| <= 1e-10 holds anywhere within 0.1 s after it: located to the function's
 * precision alone, the first trial point past 1 s with |g| <= 1e-10 is taken (measured
 * 1.7e-4 s late); with event_time_precision 1e-10 s the event is within 1e-10 s of t = 1
 * (the bracket). g depends on t alone (no integration error); the
 * flow is x' = 0, stepped at up to 0.1 s. */
static int slow_flow(double t, const double *x, double *xd, void *u) {
  (void)t, (void)x, (void)u;
  xd[0] = 0.0;
  return 0;
}

static int slow_root(double t, const double *x, double *g, void *u) {
  (void)x, (void)u;
  g[0] = 1e-9 * (1.0 - t) * (2.0 - t);
  return 0;
}

static void test_event_time_precision(void **state) {
  (void)state;
  for (int timed = 0; timed < 2; ++timed) {
    LsimOdeOptions o = lsim_ode_default_options();
    o.max_step = 0.1;
    o.event_time_precision = timed ? 1e-10 : 0.0;
    LsimOde *ode;
    char err[256];
    assert_int_equal(lsim_ode_create(&ode, 1, slow_flow, NULL, &o, err, sizeof err), 0);
    assert_int_equal(lsim_ode_set_roots(ode, 1, slow_root, NULL, NULL), 0);
    const double x0 = 1.0;
    assert_int_equal(lsim_ode_restart(ode, 0.0, &x0), 0);
    LsimOdeEvent ev;
    assert_int_equal(lsim_ode_advance(ode, 5.0, &ev), LSIM_ODE_EVENT);
    assert_true(ev.t >= 1.0 && fabs(ev.g) <= 1e-10);
    if (timed) assert_true(ev.t - 1.0 <= 1e-10);
    else assert_true(ev.t - 1.0 > 1e-6 && ev.t - 1.0 <= 0.1); /* |g| small long before */
    lsim_ode_free(ode);
  }
  /* A negative time precision is refused. */
  LsimOdeOptions bad = lsim_ode_default_options();
  bad.event_time_precision = -1.0;
  LsimOde *ode = NULL;
  char err[256];
  assert_true(lsim_ode_create(&ode, 1, slow_flow, NULL, &bad, err, sizeof err) < 0);
  assert_non_null(strstr(err, "event_time_precision"));
}

/* A crossing beside a floor: the boundary of a face landing flush beside a hinge (the door
 * of docs/scene-format.md, "A face landing flush with a hinge", event-driven). The pair's
 * gap is the least of its corners': the hinge's corners stay at a floor of 4.6e-14 m (their
 * r (1 - cos d) gap, held by the pins' error), the far edge's falls through 0 at 1 m/s:
 * g = min(4.6e-14, 1 - t), the crossing at t = 1. Regula falsi kept landing on the floor
 * and Illinois' halving of the far end's value did not catch up: the door stopped with
 * "not located to |g| <= 1e-10 in 128 iterations" (the far end 1.02e-9 s past the
 * crossing). Located, the event is within the precision of t = 1 on the crossed side:
 * |g| <= 1e-10 there means t - 1 <= 1e-10 (slope 1), rounding of t aside. Three CVODE
 * step bounds give three brackets. */
static int floor_root(double t, const double *x, double *g, void *u) {
  (void)x, (void)u;
  g[0] = fmin(4.6e-14, 1.0 - t);
  return 0;
}

static void test_event_beside_a_floor(void **state) {
  (void)state;
  const double bounds[3] = {0.1, 0.0137, 1e-3};
  for (int k = 0; k < 3; ++k) {
    LsimOdeOptions o = lsim_ode_default_options();
    o.max_step = bounds[k];
    LsimOde *ode;
    char err[256];
    assert_int_equal(lsim_ode_create(&ode, 1, slow_flow, NULL, &o, err, sizeof err), 0);
    assert_int_equal(lsim_ode_set_roots(ode, 1, floor_root, NULL, NULL), 0);
    const double x0 = 1.0;
    assert_int_equal(lsim_ode_restart(ode, 0.0, &x0), 0);
    LsimOdeEvent ev;
    const int st = lsim_ode_advance(ode, 5.0, &ev);
    if (st != LSIM_ODE_EVENT) print_message("max_step %g: %s\n", o.max_step, lsim_ode_message(ode));
    assert_int_equal(st, LSIM_ODE_EVENT);
    assert_true(ev.t >= 1.0 && ev.t - 1.0 <= 1e-10 + 1e-15 && fabs(ev.g) <= 1e-10);
    lsim_ode_free(ode);
  }
}

/* A root function exactly 0 where a segment starts. The ball on the floor (y = 0)
 * falling at 1 m/s: the impact is the start itself, t = 0 exactly, g = 0, no iterations.
 * Restarted there with no reset (the event's time), it is not fired again: y stays
 * below 0 and is never armed. Restarted on the floor at another time (t = 0.3 s), it
 * fires there. lsim_ode_restart_holding says which are held whatever the time. A start
 * within the precision below the floor counts as on it. Thrown up from the floor at v (1 m/s, and 1 mm/s, whose flight of 0.2 ms
 * ends within CVODE's first steps), it is armed just after the start and its impact
 * comes at 2 v / g, to the event precision over the speed plus the parabolas' round-off
 * (1e-9 s, as in test_ball_closed_form). */
static void test_zero_start(void **state) {
  (void)state;
  Ball b = {9.81, 0.8};
  LsimOdeOptions o = lsim_ode_default_options();
  o.atol = 1e-14;  /* the 1 mm/s flight rises 5e-8 m: atol 1e-8 would be its scale */
  LsimOde *ode;
  assert_int_equal(lsim_ode_create(&ode, 2, ball_flow, &b, &o, NULL, 0), 0);
  assert_int_equal(lsim_ode_set_roots(ode, 1, ball_roots, NULL, NULL), 0);
  const double down[2] = {0.0, -1.0};
  assert_int_equal(lsim_ode_restart(ode, 0.0, down), 0);
  LsimOdeEvent ev;
  assert_int_equal(lsim_ode_advance(ode, 0.5, &ev), LSIM_ODE_EVENT);
  assert_true(ev.t == 0.0 && ev.root == 0 && ev.fired[0] == 1 && ev.g == 0.0 && ev.iterations == 0);
  assert_true(lsim_ode_time(ode) == 0.0);
  assert_memory_equal(lsim_ode_state(ode), down, sizeof down);
  /* The guard: the same state at the event's time does not fire again. */
  assert_int_equal(lsim_ode_restart(ode, ev.t, down), 0);
  assert_int_equal(lsim_ode_advance(ode, 0.25, &ev), LSIM_ODE_REACHED);
  assert_true(lsim_ode_state(ode)[0] < -0.25);
  /* Elsewhere in time it does. */
  assert_int_equal(lsim_ode_restart(ode, 0.3, down), 0);
  assert_int_equal(lsim_ode_advance(ode, 0.5, &ev), LSIM_ODE_EVENT);
  assert_true(ev.t == 0.3 && ev.g == 0.0);
  assert_int_equal(lsim_ode_stats(ode)->events, 2);
  /* Held at the event's time by the caller: as the default there. */
  const int hold[1] = {1};
  assert_int_equal(lsim_ode_restart_holding(ode, 0.3, down, hold), 0);
  assert_int_equal(lsim_ode_advance(ode, 0.4, &ev), LSIM_ODE_REACHED);
  /* Held or not as the caller says: not held, the same state at the event's time fires. */
  const int none[1] = {0};
  assert_int_equal(lsim_ode_restart_holding(ode, 0.3, down, none), 0);
  assert_int_equal(lsim_ode_advance(ode, 0.5, &ev), LSIM_ODE_EVENT);
  assert_true(ev.t == 0.3 && ev.g == 0.0);
  /* Within the precision (1e-10) on the crossed side counts as on the boundary (where a
     located event leaves a state): falling on, it fires at the start; rising, it is armed
     once positive and falls back at 2 v / g. Beyond the precision it is a start past the
     boundary, never armed. */
  const double just_below[2] = {-5e-11, -1.0}, rising[2] = {-5e-11, 1.0}, below[2] = {-2e-10, -1.0};
  assert_int_equal(lsim_ode_restart(ode, 0.5, just_below), 0);
  assert_int_equal(lsim_ode_advance(ode, 0.6, &ev), LSIM_ODE_EVENT);
  assert_true(ev.t == 0.5 && ev.g == 0.0);
  assert_int_equal(lsim_ode_restart(ode, 0.6, rising), 0);
  assert_int_equal(lsim_ode_advance(ode, 1.0, &ev), LSIM_ODE_EVENT);
  assert_true(fabs(ev.t - (0.6 + 2.0 / b.g)) <= 1e-10 + 1e-9);
  assert_int_equal(lsim_ode_restart(ode, 0.6, below), 0);
  assert_int_equal(lsim_ode_advance(ode, 0.7, &ev), LSIM_ODE_REACHED);
  /* Thrown up from the floor: armed just after the start, the impact at 2 v / g. */
  const double speeds[2] = {1.0, 1e-3};
  for (int k = 0; k < 2; ++k) {
    const double up[2] = {0.0, speeds[k]};
    assert_int_equal(lsim_ode_restart(ode, 1.0, up), 0);
    assert_int_equal(lsim_ode_advance(ode, 2.0, &ev), LSIM_ODE_EVENT);
    const double expected = 1.0 + 2.0 * speeds[k] / b.g;
    assert_true(fabs(ev.t - expected) <= 1e-10 / speeds[k] + 1e-9);
    assert_true(lsim_ode_state(ode)[0] <= 0.0 && fabs(ev.g) <= 1e-10 && ev.iterations > 0);
  }
  lsim_ode_free(ode);
}

/* A ball with e = 0.5 bounces infinitely often before t = 3 t_1: the event guard stops
 * it with an error, at the last good state, before the accumulation point. */
static void test_chattering_guard(void **state) {
  (void)state;
  Ball b = {9.81, 0.5};
  LsimOdeOptions o = lsim_ode_default_options();
  o.max_events = 10;
  LsimOde *ode;
  assert_int_equal(lsim_ode_create(&ode, 2, ball_flow, &b, &o, NULL, 0), 0);
  assert_int_equal(lsim_ode_set_roots(ode, 1, ball_roots, NULL, NULL), 0);
  const double x0[2] = {1.0, 0.0};
  assert_int_equal(lsim_ode_restart(ode, 0.0, x0), 0);
  int events = 0, st;
  for (;;) {
    LsimOdeEvent ev;
    st = lsim_ode_advance(ode, 10.0, &ev);
    if (st != LSIM_ODE_EVENT) break;
    double x[2];
    memcpy(x, lsim_ode_state(ode), sizeof x);
    x[1] = -b.e * x[1];
    ++events;
    assert_int_equal(lsim_ode_restart(ode, ev.t, x), 0);
  }
  assert_int_equal(st, LSIM_ODE_TOO_MANY_EVENTS);
  assert_int_equal(events, 10);
  assert_true(lsim_ode_time(ode) < 3.0 * sqrt(2.0 / b.g));
  assert_non_null(strstr(lsim_ode_message(ode), "more than 10 events"));
  lsim_ode_free(ode);
}

/* A boundary function with a jump cannot be located to a precision: an error naming it,
 * not a silent event. */
static int jump_root(double t, const double *x, double *g, void *u) {
  (void)t;
  (void)u;
  g[0] = x[0] > 0.5 ? 1.0 : -1.0;
  return 0;
}

static void test_discontinuous_boundary(void **state) {
  (void)state;
  LsimOde *ode;
  assert_int_equal(lsim_ode_create(&ode, 2, osc_flow, NULL, NULL, NULL, 0), 0);
  assert_int_equal(lsim_ode_set_roots(ode, 1, jump_root, NULL, NULL), 0);
  const double x0[2] = {1.0, 0.0};
  assert_int_equal(lsim_ode_restart(ode, 0.0, x0), 0);
  LsimOdeEvent ev;
  assert_int_equal(lsim_ode_advance(ode, 2.0, &ev), LSIM_ODE_EVENT_NOT_LOCATED);
  assert_non_null(strstr(lsim_ode_message(ode), "discontinuous"));
  /* The last good state is before the jump at pi/3. */
  assert_true(lsim_ode_time(ode) < PI / 3);
  lsim_ode_free(ode);
}

/* A boundary function whose evaluation jumps by 6e-10 at its crossing (round-off of a
 * force, say) is not located to the precision 1e-10 (an error, as above), but is, at
 * the resolution of time, once its resolution 1e-9 is given (lsim_ode_set_root_resolution):
 * there x - 0.5 is within that resolution (the jump 3e-10 either side). A resolution
 * below the jump (2e-10) still fails; a negative one is refused. */
static int noisy_root(double t, const double *x, double *g, void *u) {
  (void)t;
  (void)u;
  g[0] = x[0] - 0.5 + (x[0] > 0.5 ? 3e-10 : -3e-10);
  return 0;
}

static void test_root_resolution(void **state) {
  (void)state;
  const double res[3] = {0.0, 2e-10, 1e-9};
  for (int k = 0; k < 3; ++k) {
    LsimOde *ode;
    assert_int_equal(lsim_ode_create(&ode, 2, osc_flow, NULL, NULL, NULL, 0), 0);
    assert_int_equal(lsim_ode_set_roots(ode, 1, noisy_root, NULL, NULL), 0);
    const double bad = -1.0;
    assert_true(lsim_ode_set_root_resolution(ode, &bad) < 0);
    assert_int_equal(lsim_ode_set_root_resolution(ode, &res[k]), 0);
    const double x0[2] = {1.0, 0.0};
    assert_int_equal(lsim_ode_restart(ode, 0.0, x0), 0);
    LsimOdeEvent ev;
    const int s = lsim_ode_advance(ode, 2.0, &ev);
    if (k < 2) {
      assert_int_equal(s, LSIM_ODE_EVENT_NOT_LOCATED);
    } else {
      assert_int_equal(s, LSIM_ODE_EVENT);
      if (!(fabs(ev.g) <= 1e-9) || !(fabs(lsim_ode_state(ode)[0] - 0.5) <= 1e-9))
        fail_msg("located with g = %.3g, x = 0.5 %+.3g", ev.g, lsim_ode_state(ode)[0] - 0.5);
    }
    lsim_ode_free(ode);
  }
}

/* A boundary function noisier than its resolution near its crossing (a force split among
 * redundant rows, whose value moved by 2.7e-8 N within 1e-12 s about its root where the
 * resolution is 1e-8 N): x - 0.5 in steps of 1e-9 plus a deterministic noise of +-7.5e-9
 * or +-1.55e-8 picked by the bits of t, so that no value is within 5e-10 of 0 (the
 * precision, 1e-10, is never met). The bisection at the resolution of time may end on a point beyond the resolution
 * although earlier points on the crossed side were within it: the last of those is the
 * located point (|g| within the resolution, x within it plus the noise of 0.5), and a
 * resolution of 0 still fails there. */
static int noisier_root(double t, const double *x, double *g, void *u) {
  uint64_t h;
  memcpy(&h, &t, sizeof h);
  h ^= h >> 33, h *= 0xff51afd7ed558ccdULL, h ^= h >> 33, h *= 0xc4ceb9fe1a85ec53ULL, h ^= h >> 33, h += *(const uint64_t *)u;
  g[0] = 1e-9 * floor((x[0] - 0.5) / 1e-9 + 0.5) + 0.5e-9 * (2.0 * (double)(h % 28) - 27.0);
  return 0;
}

static void test_root_noisier_than_resolution(void **state) {
  (void)state;
  const double res[2] = {0.0, 1e-8};
  /* Eight noises (seeds of the hash); without the fallback to the last point within the
     resolution, seeds 1, 5 and 7 ended at |g| = 1.15e-8 to 1.45e-8. */
  for (uint64_t seed = 0; seed < 8; ++seed)
  for (int k = 0; k < 2; ++k) {
    LsimOde *ode;
    assert_int_equal(lsim_ode_create(&ode, 2, osc_flow, &seed, NULL, NULL, 0), 0);
    assert_int_equal(lsim_ode_set_roots(ode, 1, noisier_root, NULL, NULL), 0);
    assert_int_equal(lsim_ode_set_root_resolution(ode, &res[k]), 0);
    const double x0[2] = {1.0, 0.0};
    assert_int_equal(lsim_ode_restart(ode, 0.0, x0), 0);
    LsimOdeEvent ev;
    const int s = lsim_ode_advance(ode, 2.0, &ev);
    if (k == 0) {
      assert_int_equal(s, LSIM_ODE_EVENT_NOT_LOCATED);
    } else {
      if (s != LSIM_ODE_EVENT) fail_msg("seed %d: status %d: %s", (int)seed, s, lsim_ode_message(ode));
      if (!(fabs(ev.g) <= 1e-8) || !(ev.g <= 0.0) || !(fabs(lsim_ode_state(ode)[0] - 0.5) <= 2.5e-8))
        fail_msg("seed %d: located with g = %.3g, x = 0.5 %+.3g", (int)seed, ev.g, lsim_ode_state(ode)[0] - 0.5);
    }
    lsim_ode_free(ode);
  }
}

/* A flow that fails stops the run with its status; bad options are refused; the end time
 * is hit exactly; period 0 samples after every step. */
static int failing_flow(double t, const double *x, double *xd, void *u) {
  (void)u;
  if (t > 0.5) return -7;
  xd[0] = x[1];
  xd[1] = -x[0];
  return 0;
}

static void test_failures_and_end(void **state) {
  (void)state;
  LsimOde *ode;
  char err[128];
  LsimOdeOptions o = lsim_ode_default_options();
  o.rtol = 0.0;
  assert_int_equal(lsim_ode_create(&ode, 2, osc_flow, NULL, &o, err, sizeof err),
                   LSIM_ODE_BAD_INPUT);
  assert_non_null(strstr(err, "rtol"));
  assert_int_equal(lsim_ode_create(&ode, 2, failing_flow, NULL, NULL, err, sizeof err), 0);
  const double x0[2] = {1.0, 0.0};
  LsimOdeEvent ev;
  assert_int_equal(lsim_ode_advance(ode, 1.0, &ev), LSIM_ODE_BAD_INPUT); /* no state */
  assert_int_equal(lsim_ode_restart(ode, 0.0, x0), 0);
  assert_int_equal(lsim_ode_advance(ode, 1.0, &ev), LSIM_ODE_CALLBACK_FAILED);
  assert_true(lsim_ode_time(ode) <= 0.5);
  const double bad[2] = {NAN, 0.0};
  assert_int_equal(lsim_ode_restart(ode, 0.0, bad), LSIM_ODE_BAD_INPUT);
  lsim_ode_free(ode);

  o = lsim_ode_default_options();
  o.record_period = 0.0;
  assert_int_equal(lsim_ode_create(&ode, 2, osc_flow, NULL, &o, err, sizeof err), 0);
  Samples s = {0};
  lsim_ode_set_sampler(ode, keep_sample, &s);
  assert_int_equal(lsim_ode_restart(ode, 0.0, x0), 0);
  assert_int_equal(lsim_ode_advance(ode, 0.7312, &ev), LSIM_ODE_REACHED);
  assert_true(lsim_ode_time(ode) == 0.7312);
  assert_int_equal(s.n, (int)lsim_ode_stats(ode)->steps);
  assert_true(s.t[s.n - 1] == 0.7312);
  /* max_step 1e-2: at least 74 steps over 0.7312 s. */
  assert_true(s.n >= 74);
  lsim_ode_free(ode);
}

/* ------------------------------------------------------------------------------------ */
/* Scales (lsim_ode_set_scale). A body far out, x = 1000 + v t with v = 1e-3 m/s, whose
 * flow (like a contact followed by its id) is defined only within 1e-6 m of its path:
 * CVODE's difference quotients perturb x by sqrt(eps) |x| = 1.5e-5 m and the flow fails
 * at the first Jacobian; with a scale of 1 m, by 1.5e-8 m, and it runs. Within the scales
 * the Jacobian is CVODE's own: the oscillator from x = 1 with a scale of 16 on both
 * components (above |x| all along) has the bits of the run without. */
static int drift_flow(double t, const double *x, double *xd, void *u) {
  (void)u;
  if (fabs(x[0] - (1000.0 + 1e-3 * t)) > 1e-6) return -1;
  xd[0] = 1e-3;
  xd[1] = -x[1];
  return 0;
}

static void test_scale_caps_perturbation(void **state) {
  (void)state;
  for (int scaled = 0; scaled < 2; ++scaled) {
    LsimOdeOptions o = lsim_ode_default_options();
    o.rtol = 1e-12, o.atol = 1e-14;
    LsimOde *ode;
    char err[200];
    assert_int_equal(lsim_ode_create(&ode, 2, drift_flow, NULL, &o, err, sizeof err), 0);
    const double scale[2] = {1.0, 0.0};
    if (scaled) assert_int_equal(lsim_ode_set_scale(ode, scale), 0);
    const double x0[2] = {1000.0, 1.0};
    assert_int_equal(lsim_ode_restart(ode, 0.0, x0), 0);
    LsimOdeEvent ev;
    const int s = lsim_ode_advance(ode, 1.0, &ev);
    if (scaled) {
      if (s != LSIM_ODE_REACHED) fail_msg("scaled: %s (%s)", lsim_ode_status_name(s), lsim_ode_message(ode));
      /* x is linear: Adams integrates it to round-off of 1000 (1.1e-13 a step). */
      assert_true(fabs(lsim_ode_state(ode)[0] - 1000.001) < 1e-9);
      assert_true(fabs(lsim_ode_state(ode)[1] - exp(-1.0)) < 1e-9);
    } else {
      assert_int_equal(s, LSIM_ODE_CALLBACK_FAILED);
    }
    lsim_ode_free(ode);
  }
  /* The same bits within the scales. */
  double end[2][2];
  for (int scaled = 0; scaled < 2; ++scaled) {
    LsimOdeOptions o = lsim_ode_default_options();
    o.rtol = 1e-10, o.atol = 1e-12;
    LsimOde *ode;
    char err[200];
    assert_int_equal(lsim_ode_create(&ode, 2, osc_flow, NULL, &o, err, sizeof err), 0);
    const double scale[2] = {16.0, 16.0};
    if (scaled) assert_int_equal(lsim_ode_set_scale(ode, scale), 0);
    const double x0[2] = {1.0, 0.0};
    assert_int_equal(lsim_ode_restart(ode, 0.0, x0), 0);
    LsimOdeEvent ev;
    assert_int_equal(lsim_ode_advance(ode, 10.0, &ev), LSIM_ODE_REACHED);
    memcpy(end[scaled], lsim_ode_state(ode), sizeof end[scaled]);
    lsim_ode_free(ode);
  }
  assert_memory_equal(end[0], end[1], sizeof end[0]);
  const double bad[2] = {1.0, -1.0};
  LsimOde *ode;
  char err[200];
  assert_int_equal(lsim_ode_create(&ode, 2, osc_flow, NULL, NULL, err, sizeof err), 0);
  assert_int_equal(lsim_ode_set_scale(ode, bad), LSIM_ODE_BAD_INPUT);
  lsim_ode_free(ode);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_oscillator_events_and_samples),
      cmocka_unit_test(test_ball_closed_form),
      cmocka_unit_test(test_event_time_precision),
      cmocka_unit_test(test_event_beside_a_floor),
      cmocka_unit_test(test_zero_start),
      cmocka_unit_test(test_chattering_guard),
      cmocka_unit_test(test_discontinuous_boundary),
      cmocka_unit_test(test_root_resolution), cmocka_unit_test(test_root_noisier_than_resolution),
      cmocka_unit_test(test_failures_and_end), cmocka_unit_test(test_scale_caps_perturbation),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
