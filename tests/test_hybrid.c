/* test_hybrid.c: hybrid model runs (hybrid/run.h) of the SLIP runner and the bouncing
 * mass, against conservation laws and closed forms.
 *
 * SLIP with the manual's defaults (q_rt = q_rl = q_0, g_stance = g_flight) is
 * conservative: its energy may drift only by the integration error, which falls with the
 * tolerance. Every transition is located where its boundary function is within
 * stop_precision of zero (after the crossing), in the manual's chart order. The bouncing
 * mass's impacts and flight energies follow the closed form of the ball (see
 * hybrid/bouncing_mass.c).
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

#include <hdf5.h>
#include <hdf5_hl.h>
#include <signal.h>
#include <unistd.h>

#include "hybrid/model.h"
#include "hybrid/record.h"
#include "hybrid/run.h"

static const LsimHybridModel *model(const char *name) {
  const LsimHybridModel *m = lsim_hybrid_model_find(name);
  assert_non_null(m);
  return m;
}

static int output_index(const LsimHybridModel *m, const char *name) {
  const int k = lsim_hybrid_name_index(m->output_names, m->noutputs, name);
  assert_true(k >= 0);
  return k;
}

/* Liftoffs (decompression -> ascent) in a trace. */
static int strides(const LsimHybridTrace *tr) {
  int n = 0;
  for (long k = 0; k < tr->nevents; ++k) n += tr->ev_from[k] == 3 && tr->ev_to[k] == 0;
  return n;
}

/* max |E - E0| / E0 over the samples up to the 10th liftoff (10 strides). */
static double energy_drift(const LsimHybridModel *m, const LsimHybridTrace *tr) {
  const int e = output_index(m, "energy");
  const double e0 = tr->outputs[e];
  double t_end = 0.0;
  int lifts = 0;
  for (long k = 0; k < tr->nevents && lifts < 10; ++k)
    if (tr->ev_from[k] == 3) {
      ++lifts;
      t_end = tr->ev_time[k];
    }
  assert_int_equal(lifts, 10);
  double d = 0.0;
  for (long k = 0; k < tr->nsamples && tr->time[k] <= t_end; ++k)
    d = fmax(d, fabs(tr->outputs[k * tr->noutputs + e] - e0) / fabs(e0));
  return d;
}

static void run_slip(double rtol, double final_time, LsimHybridTrace *tr) {
  const LsimHybridModel *m = model("slip");
  LsimHybridOptions o = lsim_hybrid_default_options();
  o.rtol = rtol;
  o.final_time = final_time;
  o.record_period = 1e-3;
  char err[256];
  assert_int_equal(lsim_hybrid_run(m, m->default_params, m->default_state, -1, &o, NULL, tr, err,
                                   sizeof err), 0);
  if (tr->end != LSIM_HYBRID_COMPLETED) fprintf(stderr, "%s\n", tr->end_reason);
  assert_int_equal(tr->end, LSIM_HYBRID_COMPLETED);
}

/* Ten strides from the manual's initial state: energy kept to the tolerance, transitions
 * on their boundaries, in order. */
static void test_slip_energy_and_events(void **state) {
  (void)state;
  const LsimHybridModel *m = model("slip");
  LsimHybridTrace tr;
  /* The manual's initial state: y = 0.9 < q_rt, so the run starts in decompression. */
  run_slip(1e-4, 6.0, &tr);
  assert_int_equal(tr.initial_chart, 3);
  const int n_strides = strides(&tr);
  fprintf(stderr, "slip: %d strides in 6 s, %ld transitions, %ld steps\n", n_strides,
          tr.nevents, tr.stats.steps);
  assert_true(n_strides >= 10);
  const double drift4 = energy_drift(m, &tr);
  /* Chart order and boundary precision. */
  for (long k = 0; k < tr.nevents; ++k) {
    assert_int_equal(tr.ev_to[k], (tr.ev_from[k] + 1) % 4);
    if (k > 0) assert_int_equal(tr.ev_from[k], tr.ev_to[k - 1]);
    double g;
    assert_int_equal(m->boundary(tr.ev_time[k], tr.ev_before + k * tr.nstates, m->default_params,
                                 tr.ev_from[k], &g), 0);
    /* Located after the crossing (falling: g <= 0) within the stop precision. */
    assert_true(g <= 0.0 && g >= -1e-10);
    assert_true(tr.ev_g[k] == g);
  }
  lsim_hybrid_trace_free(&tr);

  /* The drift is the integrator's: a hundred times smaller tolerance, a far smaller
     drift. */
  run_slip(1e-6, 6.0, &tr);
  const double drift6 = energy_drift(m, &tr);
  fprintf(stderr, "slip energy drift over 6 s: %.3g at rtol 1e-4, %.3g at rtol 1e-6\n", drift4,
          drift6);
  /* The energy error is the global integration error: local errors of about rtol per
     step (some 70 steps per stride) partly cancelling over 10 strides. Measured 14 and
     10 rtol at rtol 1e-4 and 1e-6, falling in proportion to rtol; 20 rtol bounds it. */
  assert_true(drift4 <= 20 * 1e-4);
  assert_true(drift6 <= 20 * 1e-6);
  assert_true(drift6 < drift4 / 30);
  lsim_hybrid_trace_free(&tr);
}

/* The manual's touchdown control mirrors liftoff: the strides repeat (the apex height of
 * each stride equals the first, to the tolerance). */
static void test_slip_symmetric_strides(void **state) {
  (void)state;
  LsimHybridTrace tr;
  run_slip(1e-6, 6.0, &tr);
  double first = NAN;
  int apexes = 0;
  for (long k = 0; k < tr.nevents; ++k) {
    if (tr.ev_from[k] != 0) continue;  /* ascent -> descent: the apex */
    const double y = tr.ev_before[k * tr.nstates + 1];
    if (isnan(first)) first = y;
    /* The strides are neutrally stable: at rtol 1e-6 they agree to 1e-5 m. */
    assert_true(fabs(y - first) < 1e-5);
    ++apexes;
  }
  assert_true(apexes >= 10);
  lsim_hybrid_trace_free(&tr);
}

/* The chattering guard stops a run after max_chart_count transitions, keeping what was
 * done; an invalid state (the body underground) stops it too. */
static void test_slip_guards(void **state) {
  (void)state;
  const LsimHybridModel *m = model("slip");
  LsimHybridOptions o = lsim_hybrid_default_options();
  o.final_time = 3.0;
  o.max_chart_count = 10;
  LsimHybridTrace tr;
  char err[256];
  assert_int_equal(lsim_hybrid_run(m, m->default_params, m->default_state, -1, &o, NULL, &tr,
                                   err, sizeof err), 0);
  assert_int_equal(tr.end, LSIM_HYBRID_STOPPED);
  assert_int_equal(tr.nevents, 10);
  assert_non_null(strstr(tr.end_reason, "max_chart_count"));
  lsim_hybrid_trace_free(&tr);

  /* A soft spring (k = 10 N against 505 N of weight) lets the body reach the ground. */
  double p[32];
  memcpy(p, m->default_params, (size_t)m->nparams * sizeof *p);
  p[lsim_hybrid_name_index(m->param_names, m->nparams, "k")] = 10.0;
  o = lsim_hybrid_default_options();
  assert_int_equal(lsim_hybrid_run(m, p, m->default_state, -1, &o, NULL, &tr, err, sizeof err), 0);
  assert_int_equal(tr.end, LSIM_HYBRID_STOPPED);
  assert_non_null(strstr(tr.end_reason, "toppled"));
  lsim_hybrid_trace_free(&tr);

  /* Parameters out of range are refused before the run. */
  p[lsim_hybrid_name_index(m->param_names, m->nparams, "k")] = 1000.0;
  p[lsim_hybrid_name_index(m->param_names, m->nparams, "sprj")] = 0.5;
  assert_int_equal(lsim_hybrid_run(m, p, m->default_state, -1, &o, NULL, &tr, err, sizeof err), -1);
  assert_non_null(strstr(err, "sprj"));
  lsim_hybrid_trace_free(&tr);
}

/* The bouncing mass dropped from 1 m with e = 0.8: impacts at the closed-form times, the
 * flight energy m g e^(2k) h, at rest after the rebounds fall below rest_speed. */
static void test_bouncing_mass_closed_form(void **state) {
  (void)state;
  const LsimHybridModel *m = model("bouncing_mass");
  LsimHybridOptions o = lsim_hybrid_default_options();
  o.final_time = 8.0;
  o.record_period = 0.01;
  o.max_chart_count = 1000;
  o.atol = 1e-12;
  LsimHybridTrace tr;
  char err[256];
  double x0[4] = {0.0, 1.0, 0.5, 0.0};
  assert_int_equal(lsim_hybrid_run(m, m->default_params, x0, -1, &o, NULL, &tr, err, sizeof err), 0);
  assert_int_equal(tr.end, LSIM_HYBRID_COMPLETED);
  const double g = 9.81, e = 0.8, h = 1.0;
  const double t1 = sqrt(2 * h / g);
  double t_impact = t1, v = g * t1;
  /* Rebounds until e^k v_1 < 1e-3 m/s: k = ceil(log(1e-3 / v_1) / log e). */
  const int expected = (int)ceil(log(1e-3 / v) / log(e));
  assert_int_equal(tr.nevents, expected);
  /* With atol 1e-12 the parabolas come out to round-off (relative speed errors 1e-14)
     while the apexes are above some centimetres; as the apexes v^2 / (2 g) shrink
     towards atol's scale (4e-7 m at the last rebound) the error control lets the
     relative error grow, to 1.3e-6 in speed at an apex of 1.6e-7 m, and 3.4e-9 s in
     time (plus the event precision 1e-10 m over the impact speed: 7e-8 s at the last,
     1.4 mm/s). The bounds (1e-6 plus atol over the apex, relative; 1e-8 s plus
     1e-10 / v; in speed, g times that time twice over) fail on any wrong impact or
     rebound law. */
  for (long k = 0; k < tr.nevents; ++k) {
    assert_true(fabs(tr.ev_time[k] - t_impact) <= 1e-8 + 1e-10 / v);
    v *= e;
    const double vy = tr.ev_after[k * 4 + 3];
    const double apex = v * v / (2 * g);
    const double located = g * 1e-10 / (v / e);  /* g dt of the event's time error */
    if (k + 1 < tr.nevents) assert_true(fabs(vy - v) <= (1e-6 + 1e-12 / apex) * v + 2 * located);
    t_impact += 2 * v / g;
  }
  assert_int_equal(tr.ev_to[tr.nevents - 1], 1);  /* rest */
  /* Flight k's energy is m g e^(2k) h at its apex plus the sliding 1/2 m 0.5^2 (the
     samples between impacts k and k+1; m = 1). */
  long ev = 0;
  for (long s = 0; s < tr.nsamples; ++s) {
    while (ev < tr.nevents && tr.ev_time[ev] < tr.time[s]) ++ev;
    if (tr.chart[s] != 0) continue;
    const double apex = h * pow(e, 2.0 * (double)ev);
    if (apex < 1e-2) continue;  /* where the parabolas are round-off exact, as above */
    assert_true(fabs(tr.outputs[s] - (g * apex + 0.5 * 0.5 * 0.5)) <= 1e-10 * g);
  }
  /* At rest: on the floor, sliding at 0.5 m/s. */
  const double *xf = tr.state + (tr.nsamples - 1) * 4;
  assert_true(tr.time[tr.nsamples - 1] == 8.0);
  assert_true(xf[1] == 0.0 && xf[3] == 0.0);
  assert_true(fabs(xf[0] - 0.5 * 8.0) < 1e-9);
  /* Samples at exact multiples of the period: row k (k >= 1) at k * 0.01. */
  for (long s = 1; s < tr.nsamples; ++s) assert_true(tr.time[s] == (double)s * 0.01);
  lsim_hybrid_trace_free(&tr);
}

/* Started exactly on the floor, falling at v_0 = 2 m/s: the impact boundary y is 0 at
 * the start and falls, so the first transition is at t = 0 exactly (g = 0, the state as
 * given), rebounding at e v_0; then the closed form of the ball: impact k >= 1 at
 * sum_{j=1..k} 2 e^j v_0 / g, rebounding at e^(k+1) v_0, at rest (the 35th transition)
 * once e^(k+1) v_0 < rest_speed, before the Zeno time 2 e v_0 / (g (1 - e)) = 1.63 s. A
 * start 1e-12 m above the floor gives the same run, its first impact 1e-12 / v_0 s
 * later. */
static void test_bouncing_mass_started_on_floor(void **state) {
  (void)state;
  const LsimHybridModel *m = model("bouncing_mass");
  LsimHybridOptions o = lsim_hybrid_default_options();
  o.final_time = 2.0;
  o.record_period = 0.01;
  o.max_chart_count = 1000;
  o.atol = 1e-12;
  const double g = 9.81, e = 0.8, v0 = 2.0;
  LsimHybridTrace tr, near;
  char err[256];
  const double x0[4] = {0.0, 0.0, 0.0, -v0}, x1[4] = {0.0, 1e-12, 0.0, -v0};
  assert_int_equal(lsim_hybrid_run(m, m->default_params, x0, -1, &o, NULL, &tr, err, sizeof err), 0);
  assert_int_equal(lsim_hybrid_run(m, m->default_params, x1, -1, &o, NULL, &near, err, sizeof err), 0);
  assert_int_equal(tr.end, LSIM_HYBRID_COMPLETED);
  assert_int_equal(tr.initial_chart, 0);
  const int expected = 1 + (int)ceil(log(1e-3 / (e * v0)) / log(e));
  assert_int_equal(tr.nevents, expected);
  assert_int_equal(near.nevents, expected);
  /* The start's impact: no search, the state as given, the rebound e v_0 (sqrt(4) = 2
     and e 2 are exact in floating point). */
  assert_true(tr.ev_time[0] == 0.0 && tr.ev_g[0] == 0.0 && tr.ev_iterations[0] == 0);
  assert_memory_equal(tr.ev_before, x0, sizeof x0);
  assert_true(tr.ev_after[3] == e * v0 && tr.ev_after[1] == 0.0);
  /* The rest against the closed form, with the bounds of test_bouncing_mass_closed_form
     (same atol and event precision, speeds from 1.6 m/s down to 1 mm/s). */
  double t_impact = 0.0, v = v0;
  for (long k = 0; k < tr.nevents; ++k) {
    assert_true(fabs(tr.ev_time[k] - t_impact) <= 1e-8 + 1e-10 / v);
    v *= e;
    const double vy = tr.ev_after[k * 4 + 3];
    const double apex = v * v / (2 * g);
    const double located = g * 1e-10 / (v / e);
    if (k + 1 < tr.nevents) assert_true(fabs(vy - v) <= (1e-6 + 1e-12 / apex) * v + 2 * located);
    t_impact += 2 * v / g;
  }
  assert_int_equal(tr.ev_to[tr.nevents - 1], 1);
  /* The start 1e-12 m up: its first impact 5e-13 s later (1e-12 m at 2 m/s, located to
     1e-10 m, so within 5e-11 s), then the same impacts to the closed form's bounds plus
     that shift. */
  assert_true(near.ev_time[0] > 0.0 && near.ev_time[0] <= 1e-12 / v0 + 1e-10 / v0);
  double dt = 0.0;
  for (long k = 0; k < near.nevents; ++k) dt = fmax(dt, fabs(near.ev_time[k] - tr.ev_time[k]));
  fprintf(stderr, "bouncing mass on the floor vs 1e-12 m up: event times within %.3g s\n", dt);
  v = v0;
  for (long k = 0; k + 1 < near.nevents; ++k) {
    v *= e;
    const double apex = v * v / (2 * g);
    assert_true(fabs(near.ev_after[k * 4 + 3] - tr.ev_after[k * 4 + 3]) <=
                2 * ((1e-6 + 1e-12 / apex) * v + 2 * g * 1e-10 / (v / e)));
  }
  lsim_hybrid_trace_free(&tr);
  lsim_hybrid_trace_free(&near);

  /* At rest on the floor in the chart flight (named by the scene): y falls at second
     order, -4.9 t^2, nonzero just after the start, so the impact is at t = 0 exactly,
     rebounding at 0 < rest_speed: at rest, sliding at 0.5 m/s (x = 0.5 t to 1e-12 m at
     the end, t = 1 s). */
  const double x2[4] = {0.0, 0.0, 0.5, 0.0};
  o.final_time = 1.0;
  assert_int_equal(lsim_hybrid_run(m, m->default_params, x2, 0, &o, NULL, &tr, err, sizeof err), 0);
  assert_int_equal(tr.end, LSIM_HYBRID_COMPLETED);
  assert_int_equal(tr.nevents, 1);
  assert_true(tr.ev_time[0] == 0.0 && tr.ev_from[0] == 0 && tr.ev_to[0] == 1);
  const double *xf = tr.state + (tr.nsamples - 1) * 4;
  assert_true(xf[1] == 0.0 && xf[3] == 0.0 && fabs(xf[0] - 0.5) <= 1e-12);
  lsim_hybrid_trace_free(&tr);
}

/* SLIP started exactly at touchdown (y = q_rt, falling: the touchdown boundary is 0 and
 * falls) goes into compression at t = 0 and runs as from 1e-12 m above touchdown, where
 * it did before: the same transitions, each within 1e-7 s and its state within 1e-7 (the
 * 1e-12 m shift and the integration error at rtol 1e-8, some 1e-8 per stride over the
 * strides, carried by neutrally stable strides). */
static void test_slip_started_at_touchdown(void **state) {
  (void)state;
  const LsimHybridModel *m = model("slip");
  LsimHybridOptions o = lsim_hybrid_default_options();
  o.rtol = 1e-8;
  o.final_time = 3.0;
  o.record_period = 1e-3;
  o.max_chart_count = 1000;
  double x0[7] = {0.0, 1.0, 1.0, -1.0, 0.0, 0.0, 0.0}, x1[7];
  memcpy(x1, x0, sizeof x0);
  x1[1] = 1.0 + 1e-12;
  LsimHybridTrace tr, near;
  char err[256];
  assert_int_equal(lsim_hybrid_run(m, m->default_params, x0, -1, &o, NULL, &tr, err, sizeof err), 0);
  assert_int_equal(lsim_hybrid_run(m, m->default_params, x1, -1, &o, NULL, &near, err, sizeof err), 0);
  assert_int_equal(tr.end, LSIM_HYBRID_COMPLETED);
  assert_int_equal(near.end, LSIM_HYBRID_COMPLETED);
  assert_int_equal(tr.initial_chart, 1);  /* descent */
  assert_true(tr.ev_time[0] == 0.0 && tr.ev_from[0] == 1 && tr.ev_to[0] == 2);
  assert_true(tr.ev_after[4] == 0.0 && tr.ev_after[5] == 0.0);  /* the toe below the hip */
  assert_int_equal(tr.nevents, near.nevents);
  assert_true(strides(&tr) >= 3);
  double dt = 0.0, dx = 0.0;
  for (long k = 0; k < tr.nevents; ++k) {
    assert_int_equal(tr.ev_from[k], near.ev_from[k]);
    dt = fmax(dt, fabs(tr.ev_time[k] - near.ev_time[k]));
    for (int j = 0; j < 7; ++j)
      dx = fmax(dx, fabs(tr.ev_after[k * 7 + j] - near.ev_after[k * 7 + j]));
  }
  fprintf(stderr, "slip at touchdown vs 1e-12 m above: %ld transitions, times within %.3g s, "
          "states within %.3g\n", tr.nevents, dt, dx);
  assert_true(dt <= 1e-7 && dx <= 1e-7);
  lsim_hybrid_trace_free(&tr);
  lsim_hybrid_trace_free(&near);
}

/* SLIP at rest exactly at touchdown height (y = q_rt, ydot = 0, xdot = 1 m/s): the
 * touchdown boundary is 0 and falls at second order, so it fires at once (where y last
 * rounds to 1); the air spring
 * then pushes k / q_0^3 = 1000 N against 505 N of weight, so the runner hops off at once,
 * and again: a chattering of hops ever shorter (each chart entered as the state says: a
 * leg already lengthening decompresses, a liftoff past the apex descends, an apex below
 * touchdown height touches down). The run stops at max_chart_count within 1e-5 s (the
 * hops' sequence hangs on round-off: measured 5e-9 to 7.4e-6 s with the final time and
 * rtol), every transition with the body at touchdown height (y within 2e-10 m of 1: twice
 * the event precision, a touchdown located below it and the next hop's start) gliding at
 * xdot = 1 m/s to 1e-9 (measured 2e-11: the spring's 20 m/s^2 acts along a leg within
 * microradians of vertical, for under 1e-5 s) and x = t (1e-12 m). Before, it fell
 * through the ground. */
static void test_slip_at_rest_on_touchdown(void **state) {
  (void)state;
  const LsimHybridModel *m = model("slip");
  LsimHybridOptions o = lsim_hybrid_default_options();
  o.final_time = 1.0;
  o.record_period = 1e-3;
  o.max_chart_count = 200;
  const double x0[7] = {0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0};
  LsimHybridTrace tr;
  char err[256];
  assert_int_equal(lsim_hybrid_run(m, m->default_params, x0, -1, &o, NULL, &tr, err, sizeof err), 0);
  assert_int_equal(tr.end, LSIM_HYBRID_STOPPED);
  assert_non_null(strstr(tr.end_reason, "max_chart_count"));
  assert_int_equal(tr.nevents, 200);
  /* The first touchdown where y was last exactly 1 (y = 1 - 5 t^2 rounds to 1 up to
     t = 3.3e-9 s), with g = 0 there. */
  assert_true(tr.ev_time[0] < 3.4e-9 && tr.ev_from[0] == 1 && tr.ev_g[0] == 0.0);
  for (long k = 0; k < tr.nevents; ++k) {
    const double *xb = tr.ev_before + k * 7;
    assert_true(tr.ev_time[k] < 1e-5);
    assert_true(fabs(xb[1] - 1.0) <= 2e-10 && fabs(xb[2] - 1.0) <= 1e-9);
    assert_true(fabs(xb[0] - tr.ev_time[k]) <= 1e-12);
    if (k > 0) assert_int_equal(tr.ev_from[k], tr.ev_to[k - 1]);
  }
  lsim_hybrid_trace_free(&tr);
}

/* A run stopped by an event quotes the event's time, not the start of the step that found
 * it: the bouncing mass dropped from 1 m with max_chart_count 3 stops at its 4th impact,
 * t_1 (1 + 2 e + 2 e^2 + 2 e^3) = 2.2142719 s in closed form, quoted to 9 digits (the
 * impact itself is within 1e-8 s of the closed form, test_bouncing_mass_closed_form). */
static void test_stop_quotes_event_time(void **state) {
  (void)state;
  const LsimHybridModel *m = model("bouncing_mass");
  LsimHybridOptions o = lsim_hybrid_default_options();
  o.final_time = 8.0;
  o.record_period = 0.01;
  o.max_chart_count = 3;
  o.atol = 1e-12;
  LsimHybridTrace tr;
  char err[256];
  const double x0[4] = {0.0, 1.0, 0.0, 0.0};
  assert_int_equal(lsim_hybrid_run(m, m->default_params, x0, -1, &o, NULL, &tr, err, sizeof err), 0);
  assert_int_equal(tr.end, LSIM_HYBRID_STOPPED);
  assert_int_equal(tr.nevents, 3);
  assert_non_null(strstr(tr.end_reason, "max_chart_count"));
  const double e = 0.8, t1 = sqrt(2.0 / 9.81), t4 = t1 * (1 + 2 * e + 2 * e * e + 2 * e * e * e);
  assert_true(strncmp(tr.end_reason, "t = ", 4) == 0);
  const double quoted = strtod(tr.end_reason + 4, NULL);
  if (fabs(quoted - t4) > 2e-8) fail_msg("quoted %.10g, the 4th impact at %.10g: %s", quoted, t4, tr.end_reason);
  lsim_hybrid_trace_free(&tr);
}

/* The file written as the run goes (hybrid/record.h): an observer that forwards to the
 * record and raises the stop flag at the 2000th sample, as SIGINT does in lcpsim. The
 * run ends interrupted right there; the closed file holds exactly the trace (every
 * sample and transition, bit for bit), /model/initial_state = row 0, and /summary says
 * interrupted; the observer saw one call per row (samples + transitions). */
typedef struct Watch {
  LsimHybridRecord *rec;
  volatile sig_atomic_t stop;
  long calls;
} Watch;

static int watch(const LsimHybridTrace *tr, void *user) {
  Watch *w = user;
  w->calls++;
  if (tr->nsamples == 2000) w->stop = SIGINT;
  return lsim_hybrid_record_observe(tr, w->rec);
}

static void read_doubles(hid_t f, const char *name, hsize_t n, double *out) {
  hsize_t dims[2] = {0, 0};
  assert_true(H5LTget_dataset_info(f, name, dims, NULL, NULL) >= 0);
  assert_int_equal(dims[0], n);
  assert_true(H5LTread_dataset_double(f, name, out) >= 0);
}

static void test_written_as_it_goes(void **state) {
  (void)state;
  const LsimHybridModel *m = model("bouncing_mass");
  LsimHybridOptions o = lsim_hybrid_default_options();
  o.final_time = 100.0;
  o.record_period = 1e-3;
  o.atol = 1e-12;
  char path[64], err[512];
  snprintf(path, sizeof path, "/tmp/lsim_test_hybrid_%ld.h5", (long)getpid());
  Watch w = {0};
  assert_int_equal(lsim_hybrid_record_open(&w.rec, path, m, m->default_params, m->default_state,
                                           &o, "{}", err, sizeof err), 0);
  LsimHybridTrace tr;
  assert_int_equal(lsim_hybrid_run_observed(m, m->default_params, m->default_state, -1, &o,
                                            &w.stop, watch, &w, &tr, err, sizeof err), 0);
  assert_int_equal(tr.end, LSIM_HYBRID_INTERRUPTED);
  assert_int_equal(tr.nsamples, 2000);
  assert_int_equal(w.calls, tr.nsamples + tr.nevents);
  assert_true(tr.nevents >= 2); /* impacts at 0.4515 and 1.174 s, before t = 1.999 s */
  assert_int_equal(lsim_hybrid_record_close(w.rec, &tr, 0.0, 1, err, sizeof err), 0);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  assert_true(f >= 0);
  const long n = tr.nsamples, e = tr.nevents, ns = tr.nstates;
  double *buf = malloc((size_t)(n * ns) * sizeof *buf);
  read_doubles(f, "/time", (hsize_t)n, buf);
  assert_memory_equal(buf, tr.time, (size_t)n * sizeof *buf);
  read_doubles(f, "/state", (hsize_t)n, buf);
  assert_memory_equal(buf, tr.state, (size_t)(n * ns) * sizeof *buf);
  read_doubles(f, "/events/time", (hsize_t)e, buf);
  assert_memory_equal(buf, tr.ev_time, (size_t)e * sizeof *buf);
  read_doubles(f, "/events/state_after", (hsize_t)e, buf);
  assert_memory_equal(buf, tr.ev_after, (size_t)(e * ns) * sizeof *buf);
  read_doubles(f, "/model/initial_state", (hsize_t)ns, buf);
  assert_memory_equal(buf, tr.state, (size_t)ns * sizeof *buf);
  char end[32] = "";
  assert_true(H5LTread_dataset_string(f, "/summary/run_end", end) >= 0);
  assert_string_equal(end, "interrupted");
  int samples = 0;
  assert_true(H5LTread_dataset_int(f, "/summary/samples", &samples) >= 0);
  assert_int_equal(samples, n);
  H5Fclose(f);
  free(buf);
  unlink(path);
  lsim_hybrid_trace_free(&tr);
}

/* An observer that asks the run to stop (LSIM_HYBRID_OBSERVE_STOP, as the file writer does
 * when the disk is about to fill): at the 1500th sample, or at the first transition. The
 * run ends stopped right after that row (no call after it), every row before kept, the
 * reason quoting the last sample's time; the rows are those of a run without the stop. */
typedef struct Stopper {
  long at_sample;   /* stop at this sample count (0: no) */
  int at_event;     /* stop at the first transition */
  long calls, calls_after;
} Stopper;

static int stopper(const LsimHybridTrace *tr, void *user) {
  Stopper *s = user;
  s->calls_after += s->calls > 0 && ((s->at_sample && tr->nsamples > s->at_sample) ||
                                     (s->at_event && tr->nevents > 1));
  s->calls++;
  const int stop = (s->at_sample && tr->nsamples == s->at_sample) || (s->at_event && tr->nevents == 1);
  return stop ? LSIM_HYBRID_OBSERVE_STOP : 0;
}

static void test_observer_stops(void **state) {
  (void)state;
  const LsimHybridModel *m = model("bouncing_mass");
  LsimHybridOptions o = lsim_hybrid_default_options();
  o.final_time = 5.0;
  o.record_period = 1e-3;
  char err[512];
  LsimHybridTrace all, tr;
  assert_int_equal(lsim_hybrid_run(m, m->default_params, m->default_state, -1, &o, NULL, &all,
                                   err, sizeof err), 0);
  assert_int_equal(all.end, LSIM_HYBRID_COMPLETED);
  for (int c = 0; c < 2; ++c) {
    Stopper s = {.at_sample = c ? 0 : 1500, .at_event = c};
    assert_int_equal(lsim_hybrid_run_observed(m, m->default_params, m->default_state, -1, &o,
                                              NULL, stopper, &s, &tr, err, sizeof err), 0);
    assert_int_equal(tr.end, LSIM_HYBRID_STOPPED);
    assert_int_equal(s.calls_after, 0);
    assert_int_equal(s.calls, tr.nsamples + tr.nevents);
    if (!c) assert_int_equal(tr.nsamples, 1500);
    else assert_int_equal(tr.nevents, 1);
    assert_true(tr.nsamples > 1 && tr.nsamples < all.nsamples);
    /* the samples and the transitions as the run without the stop has them */
    assert_memory_equal(tr.time, all.time, (size_t)tr.nsamples * sizeof *tr.time);
    assert_memory_equal(tr.state, all.state, (size_t)(tr.nsamples * tr.nstates) * sizeof *tr.state);
    if (tr.nevents)
      assert_memory_equal(tr.ev_after, all.ev_after, (size_t)(tr.nevents * tr.nstates) * sizeof *tr.ev_after);
    char want[96];
    snprintf(want, sizeof want, "t = %.9g s: stopped by its observer", tr.time[tr.nsamples - 1]);
    assert_string_equal(tr.end_reason, want);
    lsim_hybrid_trace_free(&tr);
  }
  lsim_hybrid_trace_free(&all);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_slip_energy_and_events),
      cmocka_unit_test(test_slip_symmetric_strides),
      cmocka_unit_test(test_slip_guards),
      cmocka_unit_test(test_bouncing_mass_closed_form),
      cmocka_unit_test(test_bouncing_mass_started_on_floor),
      cmocka_unit_test(test_slip_started_at_touchdown),
      cmocka_unit_test(test_slip_at_rest_on_touchdown),
      cmocka_unit_test(test_stop_quotes_event_time),
      cmocka_unit_test(test_written_as_it_goes),
      cmocka_unit_test(test_observer_stops),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
