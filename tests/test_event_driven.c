/* test_event_driven.c: the event-driven integrator (hybrid/event_driven.h) against closed
 * forms: a bouncing ball's impact times, a box sliding to rest, a rope snapping taut,
 * Tedrake's hollow ball, the chattering guard, samples at exact multiples of the record
 * period, the scope errors, Newton's cradle with simultaneous and sequential impacts,
 * a box sliding on a box on the ground, and boxes landing on an edge (rocking to rest,
 * corners landing at near-equal times) and coming to rest beside another. */
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "contact/constraints.h"
#include "contact/math3.h"
#include "contact/world.h"
#include "hybrid/event_driven.h"
#include "hybrid/ode.h"
#include "lcp/lcp.h"
#include "scene/scene.h"

#define G 9.81

/* Samples kept by the callback: time, the first dynamic body's q and v (2-D: 3 each;
 * 3-D: 7 and 6). */
typedef struct Samples {
  int n, cap, off_q, off_v;
  double *t, *q, *v; /* [cap], [7 cap], [6 cap] */
  int exact;         /* every sample time was k * period exactly */
  double period;
} Samples;

static int keep(const LsimModel *m, const LsimState *st, const LsimContactSet *cs, void *user) {
  (void)cs;
  Samples *s = user;
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 1024;
    s->t = realloc(s->t, (size_t)s->cap * sizeof(double));
    s->q = realloc(s->q, (size_t)s->cap * 7 * sizeof(double));
    s->v = realloc(s->v, (size_t)s->cap * 6 * sizeof(double));
  }
  const LsimBody *b = &m->bodies[1];
  s->t[s->n] = st->time;
  memcpy(s->q + 7 * s->n, st->q + b->q_offset, (size_t)b->nq * sizeof(double));
  memcpy(s->v + 6 * s->n, st->v + b->v_offset, (size_t)b->nv * sizeof(double));
  if (st->time != st->step * s->period) s->exact = 0;
  s->n++;
  return 0;
}

static void samples_free(Samples *s) { free(s->t), free(s->q), free(s->v); }

/* Parses scene and runs it event-driven to its end, with the scene's settings. */
static int run_scene(const char *json, LsimModel *m, LsimState *st, Samples *s, LsimEventLog *log,
                     char *err, size_t errlen) {
  LsimSceneError se;
  if (lsim_scene_parse(json, "test", m, st, &se)) {
    char line[512];
    lsim_scene_error_format(&se, line, sizeof line);
    fail_msg("scene: %s", line);
  }
  memset(s, 0, sizeof *s);
  s->exact = 1;
  s->period = m->time_step;
  memset(log, 0, sizeof *log);
  LsimEventOptions o = lsim_event_options_for_model(m);
  return lsim_event_driven_run(m, st, m->time_step * m->steps, &o, keep, s, log, err, errlen);
}

static void done(LsimModel *m, LsimState *st, Samples *s, LsimEventLog *log) {
  samples_free(s);
  lsim_event_log_free(log);
  lsim_state_free(st);
  lsim_model_free(m);
}

/* A run that must succeed, and what it left. */
typedef struct Run {
  LsimModel m;
  LsimState st;
  Samples s;
  LsimEventLog log;
} Run;

static void run_ok(const char *json, Run *r) {
  char err[256] = "";
  if (run_scene(json, &r->m, &r->st, &r->s, &r->log, err, sizeof err)) fail_msg("run: %s", err);
}

static void run_free(Run *r) { done(&r->m, &r->st, &r->s, &r->log); }

static const char *ball_scene =
    "{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.01, \"duration\": 5.0,"
    " \"integrator\": \"event_driven\", \"gravity\": [0, -9.81],"
    " \"contact\": {\"restitution_threshold\": %g},"
    " \"event_driven\": {\"chatter_events\": %d},"
    " \"bodies\": [{\"name\": \"ground\", \"type\": \"static\", \"shapes\": [{\"type\": \"plane\", \"mu\": 0}]},"
    "  {\"name\": \"ball\", \"mass\": 1, \"position\": [0, 1.1], \"restitution\": 0.8,"
    "   \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.1, \"mu\": 0}]}]}";

/* Ball dropped from H = 1 m, e = 0.8: impact k at t0 (1 + 2 e (1 - e^(k-1)) / (1 - e)),
 * t0 = sqrt(2 H / g), within 1e-9 s for every impact. The approach speed of impact k is
 * sqrt(2 g H) e^(k-1), so the 29th (0.0086 m/s) is the first below the 0.01 m/s threshold:
 * 29 impacts. A gap error d shifts each later impact by about 3 d / v, which at the last
 * speeds needs d ~ 1e-12 m: CVODE's rtol 1e-12 of a 0.1 m height (measured: at most
 * 6.1e-10 s, at the 29th; with rtol 1e-10 it was 3.6e-8 s); the samples before the first impact are the
 * parabola to 1e-9 m; the bounces end (the approach speed falls below the 0.01 m/s
 * threshold) with a contact event and the ball at rest on the ground (1e-9). */
static void test_bouncing_ball(void **state) {
  (void)state;
  char json[2048];
  snprintf(json, sizeof json, ball_scene, 0.01, 20);
  Run r;
  run_ok(json, &r);
  const double e = 0.8, t0 = sqrt(2.0 / G);
  int k = 0;
  for (int i = 0; i < r.log.count; ++i) {
    if (r.log.events[i].kind != LSIM_EVENT_IMPACT) continue;
    ++k;
    const double want = t0 * (1.0 + 2.0 * e * (1.0 - pow(e, k - 1)) / (1.0 - e));
    if (fabs(r.log.events[i].t - want) > 1e-9)
      fail_msg("impact %d at %.15g s, closed form %.15g", k, r.log.events[i].t, want);
  }
  assert_int_equal(k, 29);
  assert_int_equal(r.log.events[r.log.count - 1].kind, LSIM_EVENT_CONTACT);
  assert_true(r.s.exact && r.s.n == 500);
  for (int i = 0; i < r.s.n && r.s.t[i] < t0; ++i)
    assert_true(fabs(r.s.q[7 * i + 1] - (1.1 - 0.5 * G * r.s.t[i] * r.s.t[i])) <= 1e-9);
  assert_true(fabs(r.s.q[7 * (r.s.n - 1) + 1] - 0.1) <= 1e-9 && fabs(r.s.v[6 * (r.s.n - 1) + 1]) <= 1e-9);
  run_free(&r);
}

/* The stop flag (LsimEventOptions.stop, what SIGINT raises in lcpsim): raised by the
 * 100th sample (t = 1 s), the run ends right there with LSIM_EVENT_INTERRUPTED, every
 * sample up to it delivered and no later one, the state that sample's, the log holding
 * the one impact before it (t0 = 0.4515 s; the second is at t0 (1 + 2 e) = 1.1741 s).
 * Raised before the run, it ends after the first sample. */
typedef struct Stopper {
  Samples s;
  int stop_at;
  volatile sig_atomic_t flag;
} Stopper;

static int keep_then_stop(const LsimModel *m, const LsimState *st, const LsimContactSet *cs,
                          void *user) {
  Stopper *k = user;
  keep(m, st, cs, &k->s);
  if (k->s.n == k->stop_at) k->flag = SIGINT;
  return 0;
}

static void test_stop_flag(void **state) {
  (void)state;
  char json[2048];
  snprintf(json, sizeof json, ball_scene, 0.01, 20);
  for (int pass = 0; pass < 2; ++pass) {
    LsimModel m;
    LsimState st;
    LsimSceneError se;
    assert_int_equal(lsim_scene_parse(json, "test", &m, &st, &se), 0);
    Stopper k;
    memset(&k, 0, sizeof k);
    k.s.exact = 1, k.s.period = m.time_step;
    k.stop_at = pass == 0 ? 100 : -1;
    k.flag = pass == 0 ? 0 : SIGTERM;
    LsimEventLog log;
    memset(&log, 0, sizeof log);
    LsimEventOptions o = lsim_default_event_options();
    o.stop = &k.flag;
    char err[256] = "";
    const int rc = lsim_event_driven_run(&m, &st, m.time_step * m.steps, &o, keep_then_stop, &k,
                                         &log, err, sizeof err);
    assert_int_equal(rc, LSIM_EVENT_INTERRUPTED);
    assert_non_null(strstr(err, "interrupted"));
    const int want = pass == 0 ? 100 : 1;
    assert_int_equal(k.s.n, want);
    assert_true(k.s.exact && st.time == want * m.time_step);
    assert_int_equal(log.count, pass == 0 ? 1 : 0);
    if (pass == 0) {
      assert_int_equal(log.events[0].kind, LSIM_EVENT_IMPACT);
      assert_true(fabs(log.events[0].t - sqrt(2.0 / G)) <= 1e-9);
    }
    samples_free(&k.s);
    lsim_event_log_free(&log);
    lsim_state_free(&st);
    lsim_model_free(&m);
  }
}

/* The chattering guard: with no threshold speed the bounces of an e = 0.8 ball would
 * never end (Zeno); after 10 impacts within 0.1 s the contact becomes inelastic (a
 * "persistent" event), the next impact leaves it in contact, and the run completes. */
static void test_chatter_guard(void **state) {
  (void)state;
  char json[2048];
  snprintf(json, sizeof json, ball_scene, 0.0, 10);
  Run r;
  run_ok(json, &r);
  int persistent = 0;
  for (int i = 0; i < r.log.count; ++i) persistent += r.log.events[i].kind == LSIM_EVENT_PERSISTENT;
  assert_int_equal(persistent, 1);
  assert_int_equal(r.log.events[r.log.count - 1].kind, LSIM_EVENT_CONTACT);
  assert_true(r.s.n == 500 && fabs(r.s.q[7 * (r.s.n - 1) + 1] - 0.1) <= 1e-9);
  run_free(&r);
}

/* A unit cube sliding at v0 = 2 m/s with mu = 0.4 (3-D, four corner contacts): it sticks
 * at v0 / (mu g) = 0.50968 s (one stick event per corner, within 1e-9 s) after sliding
 * v0^2 / (2 mu g) (1e-9 m), and stays (speed below 1e-9 at the end). */
static void test_slide_to_rest(void **state) {
  (void)state;
  const char *json =
      "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.01, \"duration\": 1.0,"
      " \"integrator\": \"event_driven\", \"gravity\": [0, 0, -9.81],"
      " \"bodies\": [{\"name\": \"ground\", \"type\": \"static\", \"shapes\": [{\"type\": \"plane\", \"mu\": 0.4}]},"
      "  {\"name\": \"box\", \"mass\": 1, \"position\": [0, 0, 0.5], \"velocity\": [2, 0, 0],"
      "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.5, 0.5, 0.5], \"mu\": 0.4}]}]}";
  Run r;
  run_ok(json, &r);
  const double ts = 2.0 / (0.4 * G);
  int sticks = 0;
  for (int i = 0; i < r.log.count; ++i) {
    if (r.log.events[i].kind != LSIM_EVENT_STICK) continue;
    ++sticks;
    if (fabs(r.log.events[i].t - ts) > 1e-9) fail_msg("stick at %.15g, closed form %.15g", r.log.events[i].t, ts);
  }
  assert_int_equal(sticks, 4);
  const int last = r.s.n - 1;
  assert_true(fabs(r.s.q[7 * last] - 2.0 * ts / 2.0) <= 1e-9);
  assert_true(fabs(r.s.q[7 * last + 2] - 0.5) <= 1e-9);
  for (int d = 0; d < 6; ++d) assert_true(fabs(r.s.v[6 * last + d]) <= 1e-9);
  run_free(&r);
}

/* The bob of pendulum_thrown.json flies ballistically from (0.6, -0.8) at (0.5, 3) until
 * its distance from the anchor reaches L = 1 m: the snap (an impact on the tether, then
 * a contact) at the root of |p(t)| = 1 (bisection on the closed-form path), within 1e-9
 * s; afterwards the rope stays taut: |p| = 1 within 1e-8 at every sample. */
static void test_rope_snap(void **state) {
  (void)state;
  const char *json =
      "{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.001, \"duration\": 1.0,"
      " \"integrator\": \"event_driven\", \"gravity\": [0, -9.81],"
      " \"bodies\": [{\"name\": \"anchor\", \"type\": \"static\"},"
      "  {\"name\": \"bob\", \"mass\": 1, \"position\": [0.6, -0.8], \"velocity\": [0.5, 3.0],"
      "   \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.05}]}],"
      " \"tethers\": [{\"name\": \"rope\", \"length\": 1.0, \"ends\": [{\"body\": \"bob\"}, {\"world\": [0, 0]}]}]}";
  Run r;
  run_ok(json, &r);
  /* |p(t)|^2 - 1 on the parabola: negative (slack) from just after 0 to the snap. */
  double lo = 0.1, hi = 1.0;
  for (int it = 0; it < 200; ++it) {
    const double t = 0.5 * (lo + hi), x = 0.6 + 0.5 * t, y = -0.8 + 3.0 * t - 0.5 * G * t * t;
    if (x * x + y * y < 1.0) lo = t;
    else hi = t;
  }
  assert_true(r.log.count >= 2);
  assert_int_equal(r.log.events[0].kind, LSIM_EVENT_IMPACT);
  if (fabs(r.log.events[0].t - lo) > 1e-9) fail_msg("snap at %.15g, closed form %.15g", r.log.events[0].t, lo);
  assert_int_equal(r.log.events[1].kind, LSIM_EVENT_CONTACT);
  for (int i = 0; i < r.s.n; ++i)
    if (r.s.t[i] > lo) assert_true(fabs(hypot(r.s.q[7 * i], r.s.q[7 * i + 1]) - 1.0) <= 1e-8);
  run_free(&r);
}

/* Lift-off: a ball (radius 0.1) on top of a fixed dome (radius 1), frictionless, nudged
 * at v0 = 0.5 m/s, slides down in persistent contact and leaves the dome where its normal
 * force m (g cos(th) - v^2 / R) reaches zero, R = 1.1 the path's radius and v^2 = v0^2 +
 * 2 g R (1 - cos(th)): cos(th) = 2/3 + v0^2 / (3 g R). The force root ends the segment
 * there and the contact is freed (a "liftoff" event, nothing after it). The state at the
 * event is the free flight's parabola taken back from the first sample after it (exact);
 * 1e-8: the angle from a force located to 1e-10 N over g, and CVODE at rtol 1e-10 over
 * 0.8 s (measured 1.9e-9). Its radius then is R within 1e-9 m (Baumgarte holds the gap). */
static void test_liftoff(void **state) {
  (void)state;
  const char *json =
      "{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.001, \"duration\": 1.0,"
      " \"integrator\": \"event_driven\", \"gravity\": [0, -9.81],"
      " \"bodies\": [{\"name\": \"dome\", \"type\": \"static\", \"shapes\": [{\"type\": \"sphere\", \"radius\": 1.0, \"mu\": 0}]},"
      "  {\"name\": \"ball\", \"mass\": 1, \"position\": [0, 1.1], \"velocity\": [0.5, 0],"
      "   \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.1, \"mu\": 0}]}]}";
  Run r;
  run_ok(json, &r);
  assert_int_equal(r.log.count, 2);
  assert_int_equal(r.log.events[0].kind, LSIM_EVENT_CONTACT);
  assert_int_equal(r.log.events[1].kind, LSIM_EVENT_LIFTOFF);
  const double te = r.log.events[1].t, R = 1.1, v0 = 0.5;
  int i = 0;
  while (i < r.s.n && r.s.t[i] < te) ++i;
  assert_true(i < r.s.n);
  const double d = r.s.t[i] - te, vy = r.s.v[6 * i + 1] + G * d;
  const double x = r.s.q[7 * i] - r.s.v[6 * i] * d, y = r.s.q[7 * i + 1] - vy * d + 0.5 * G * d * d;
  const double c = y / hypot(x, y), want = 2.0 / 3.0 + v0 * v0 / (3.0 * G * R);
  if (fabs(c - want) > 1e-8) fail_msg("lift-off at cos %.12f, closed form %.12f", c, want);
  assert_true(fabs(hypot(x, y) - R) <= 1e-9);
  run_free(&r);
}

/* Stick to slip: a disk (m = 1, r = 0.1, I = m r^2 / 2) at rest on ground with mu = 0.5
 * under a counter-clockwise torque growing as tau = t N m rolls to -x without slipping
 * (x' = -t^2 r / (2 (I + m r^2)), its contact point x' + r w at rest) while the friction
 * it needs, f = tau r m / (I + m r^2) = tau / (1.5 r), is inside the cone: the cone root
 * ends the segment at tau = 1.5 mu m g r, t_s = 0.73575 s (a "slip" event within 1e-9 s).
 * Then the contact point slides to +x and the ground's friction mu m g decelerates it:
 * x' = x'(t_s) - mu g (t - t_s). 1e-9 m/s: CVODE at rtol 1e-10. */
static void test_stick_to_slip(void **state) {
  (void)state;
  const char *json =
      "{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.001, \"duration\": 1.0,"
      " \"integrator\": \"event_driven\", \"gravity\": [0, -9.81],"
      " \"bodies\": [{\"name\": \"ground\", \"type\": \"static\", \"shapes\": [{\"type\": \"plane\", \"mu\": 0.5}]},"
      "  {\"name\": \"disk\", \"mass\": 1, \"inertia\": 0.005, \"position\": [0, 0.1],"
      "   \"force\": {\"table\": [[0, 0, 0, 0], [1, 0, 0, 1]]},"
      "   \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.1, \"mu\": 0.5}]}]}";
  Run r;
  run_ok(json, &r);
  const double rad = 0.1, I = 0.005, ts = 1.5 * 0.5 * G * rad;
  assert_int_equal(r.log.count, 2);
  assert_int_equal(r.log.events[0].kind, LSIM_EVENT_CONTACT);
  assert_int_equal(r.log.events[1].kind, LSIM_EVENT_SLIP);
  if (fabs(r.log.events[1].t - ts) > 1e-9) fail_msg("slip at %.15g s, closed form %.15g", r.log.events[1].t, ts);
  const double vs = -ts * ts * rad / (2.0 * (I + rad * rad));
  for (int i = 0; i < r.s.n; ++i) {
    const double t = r.s.t[i], *v = r.s.v + 6 * i, slip = v[0] + rad * v[2];
    if (t < ts) {
      assert_true(fabs(v[0] + t * t * rad / (2.0 * (I + rad * rad))) <= 1e-9);
      assert_true(fabs(slip) <= 1e-9);
    } else {
      if (fabs(v[0] - (vs - 0.5 * G * (t - ts))) > 1e-9)
        fail_msg("sliding at t = %g: x' = %.12g, closed form %.12g", t, v[0], vs - 0.5 * G * (t - ts));
      assert_true(slip > 0.0);
    }
  }
  run_free(&r);
}

/* Redundant sticking contacts under a growing load: a 2-D box (m = 1, half extents 0.5 x
 * 0.1, mu = 0.5) resting on its two bottom corners, pushed at its centre by F = 10 t N.
 * The corners' friction rows are the same row, shared by the least-norm split (F / 2 each)
 * while the normal forces shift to the front corner, so the back corner's share reaches
 * its cone first (F = 4.459 N: a "slip" event, nothing moves) and the front corner's when
 * F = mu m g (t_s = 0.4905 s, within 1e-9 s): the box then slides, x' = 5 (t^2 - t_s^2) -
 * mu g (t - t_s) (1e-9 m/s), without turning or lifting (1e-9). Before the cone roots
 * were located on a smooth split this run stopped at the first one ("a discontinuous
 * boundary function?"). */
static void test_redundant_stick_to_slip(void **state) {
  (void)state;
  const char *json =
      "{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.001, \"duration\": 1.0,"
      " \"integrator\": \"event_driven\", \"gravity\": [0, -9.81],"
      " \"bodies\": [{\"name\": \"ground\", \"type\": \"static\", \"shapes\": [{\"type\": \"plane\", \"mu\": 0.5}]},"
      "  {\"name\": \"box\", \"mass\": 1, \"position\": [0, 0.1],"
      "   \"force\": {\"table\": [[0, 0, 0, 0], [2, 20, 0, 0]]},"
      "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.5, 0.1], \"mu\": 0.5}]}]}";
  Run r;
  run_ok(json, &r);
  const double ts = 0.5 * G / 10.0;
  int slips = 0;
  double last = 0.0;
  for (int i = 0; i < r.log.count; ++i) {
    assert_true(r.log.events[i].kind == LSIM_EVENT_CONTACT || r.log.events[i].kind == LSIM_EVENT_SLIP);
    if (r.log.events[i].kind == LSIM_EVENT_SLIP) ++slips, last = r.log.events[i].t;
  }
  assert_int_equal(slips, 2);
  if (fabs(last - ts) > 1e-9) fail_msg("the box slips at %.15g s, closed form %.15g", last, ts);
  for (int i = 0; i < r.s.n; ++i) {
    const double t = r.s.t[i], *v = r.s.v + 6 * i;
    const double want = t < ts ? 0.0 : 5.0 * (t * t - ts * ts) - 0.5 * G * (t - ts);
    if (fabs(v[0] - want) > 1e-9) fail_msg("t = %g: x' = %.12g, closed form %.12g", t, v[0], want);
    assert_true(fabs(v[1]) <= 1e-9 && fabs(v[2]) <= 1e-9 && fabs(r.s.q[7 * i + 1] - 0.1) <= 1e-9);
  }
  run_free(&r);
}

/* 3-D friction at rest is the circle |f_t| <= mu f_n (the flow's cone roots), though the
 * acceleration LCP at events has the polyhedral cone of d = 4 directions (a square whose
 * sides are mu f_n / sqrt(2) from its centre). A box (m = 1, mu = 0.5) at rest on the
 * ground, pushed at its centre by 0.85 mu m g along the diagonal (1, 1) / sqrt(2): inside
 * the circle, outside the square. It stays at rest: position and velocity 0 to 1e-9 (the
 * force's tipping moment leaves the corners' normal forces unequal but positive), and its
 * only events are the four contacts at t = 0. Before, the LCP put the corners into
 * sliding along the square's side normal and the flow's friction mu m g along it, more
 * than the push, drove the box backwards (against the push) at 0.52 m/s^2 along x and y:
 * at t = 1 s it was at -0.26 m along both, its kinetic energy 0.27 J from nothing. */
static void test_push_inside_circle(void **state) {
  (void)state;
  const double f = 0.85 * 0.5 * G / sqrt(2.0);
  char json[1024];
  snprintf(json, sizeof json,
           "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.01, \"duration\": 1.0,"
           " \"integrator\": \"event_driven\", \"gravity\": [0, 0, -9.81],"
           " \"bodies\": [{\"name\": \"ground\", \"type\": \"static\", \"shapes\": [{\"type\": \"plane\", \"mu\": 0.5}]},"
           "  {\"name\": \"box\", \"mass\": 1, \"position\": [0, 0, 0.1], \"force\": [%.17g, %.17g, 0],"
           "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.3, 0.2, 0.1], \"mu\": 0.5}]}]}",
           f, f);
  Run r;
  run_ok(json, &r);
  assert_int_equal(r.log.count, 4);
  for (int i = 0; i < r.log.count; ++i)
    assert_true(r.log.events[i].kind == LSIM_EVENT_CONTACT && r.log.events[i].t == 0.0);
  assert_int_equal(r.s.n, 100);
  for (int i = 0; i < r.s.n; ++i) {
    const double *q = r.s.q + 7 * i, *v = r.s.v + 6 * i;
    if (fabs(q[0]) > 1e-9 || fabs(q[1]) > 1e-9 || fabs(q[2] - 0.1) > 1e-9)
      fail_msg("t = %g: the box moved to (%.12g, %.12g, %.12g)", r.s.t[i], q[0], q[1], q[2]);
    for (int d = 0; d < 6; ++d)
      if (fabs(v[d]) > 1e-9) fail_msg("t = %g: v[%d] = %.12g", r.s.t[i], d, v[d]);
  }
  run_free(&r);
}

/* A ball (m = 1, r = 0.1, I = 2/5 m r^2, mu = 0.5) on the ground pushed at its centre by
 * F = k t along u = (cos 30, sin 30) degrees (k = 10 N/s): it rolls, v = 5/14 k t^2 / m
 * along u, the friction it needs 2/7 F, until that reaches the circle mu m g at
 * t_s = 3.5 mu m g / k = 1.71675 s (a "slip" event, within 1e-9 s); then it slides along
 * u, v = v(t_s) + (k/2)(t^2 - t_s^2)/m - mu g (t - t_s), and its contact point slips along
 * u. Checked to 1e-8 m/s along u and across it (measured 6.2e-9 and 7.4e-9: CVODE at rtol
 * 1e-12 of up to 23 m/s), the slip across u to 1e-7 m/s (the flow's friction turns from
 * the slide's direction s to the slip's within slip speeds of 1e-7 m/s; measured 2.6e-8).
 * Before, the slide took its direction from the LCP's friction on the square cone, 15
 * degrees off u at a vertex (the cone root is on the circle): the ball's velocity
 * turned, 0.144 m/s across u, its slip 0.50 m/s across u. Taking the flow's friction
 * at the root and switching to the slip's direction at the first round-off slip (1e-14
 * m/s) made the friction's direction noise, and CVODE's steps fell to 1e-13 s. */
static void test_ball_slips_along_push(void **state) {
  (void)state;
  const double k = 10.0, th = atan(1.0) * 2.0 / 3.0, u[2] = {cos(th), sin(th)}, mu = 0.5, ts = 3.5 * mu * G / k;
  char json[1024];
  snprintf(json, sizeof json,
           "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.01, \"duration\": 2.5,"
           " \"integrator\": \"event_driven\", \"gravity\": [0, 0, -9.81],"
           " \"bodies\": [{\"name\": \"ground\", \"type\": \"static\", \"shapes\": [{\"type\": \"plane\", \"mu\": 0.5}]},"
           "  {\"name\": \"ball\", \"mass\": 1, \"position\": [0, 0, 0.1],"
           "   \"force\": {\"table\": [[0, 0, 0, 0, 0, 0, 0], [2.5, %.17g, %.17g, 0, 0, 0, 0]]},"
           "   \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.1, \"mu\": 0.5}]}]}",
           2.5 * k * u[0], 2.5 * k * u[1]);
  Run r;
  run_ok(json, &r);
  assert_int_equal(r.log.count, 2);
  assert_int_equal(r.log.events[1].kind, LSIM_EVENT_SLIP);
  if (fabs(r.log.events[1].t - ts) > 1e-9) fail_msg("slip at %.15g s, closed form %.15g", r.log.events[1].t, ts);
  assert_int_equal(r.s.n, 250);
  for (int i = 0; i < r.s.n; ++i) {
    const double t = r.s.t[i], *v = r.s.v + 6 * i;
    const double want = t <= ts ? 5.0 / 14.0 * k * t * t
                                : 5.0 / 14.0 * k * ts * ts + 0.5 * k * (t * t - ts * ts) - mu * G * (t - ts);
    const double along = v[0] * u[0] + v[1] * u[1], across = -v[0] * u[1] + v[1] * u[0];
    /* The contact point's velocity: v + w x (0, 0, -r). */
    const double slip[2] = {v[0] - 0.1 * v[4], v[1] + 0.1 * v[3]};
    const double slip_across = -slip[0] * u[1] + slip[1] * u[0];
    if (fabs(along - want) > 1e-8 || fabs(across) > 1e-8)
      fail_msg("t = %g: v along u %.12g (closed form %.12g), across %.3g", t, along, want, across);
    if (fabs(slip_across) > 1e-7) fail_msg("t = %g: slip across u %.3g m/s", t, slip_across);
  }
  run_free(&r);
}

/* A persistent contact detection loses stops the run naming it: a frictionless 2-D box
 * (half size 0.1 m) sliding at 1 m/s on a static box whose edge is at x = 0.5 m has its
 * front corner pass the edge at t = 0.4 s, which 2-D has no event for (docs/hybrid.md,
 * "Rigid bodies: edges"); the run stops within 1e-3 s of it, its message naming the
 * contact, its bodies (top 1, base 0) and its mode. Before, it said only "a persistent
 * contact vanished from detection", and a run among the 216 stacks of
 * scripts/event_stack_sweep.py could not say which of its contacts it was. */
static void test_vanished_named(void **state) {
  (void)state;
  const char *json =
      "{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.01, \"duration\": 1.0,"
      " \"integrator\": \"event_driven\", \"gravity\": [0, -9.81],"
      " \"bodies\": [{\"name\": \"base\", \"type\": \"static\", \"position\": [0, 0.5],"
      "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.5, 0.5], \"mu\": 0}]},"
      "  {\"name\": \"top\", \"mass\": 1, \"position\": [0, 1.1], \"velocity\": [1, 0],"
      "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.1, 0.1], \"mu\": 0}]}]}";
  LsimModel m;
  LsimState st;
  Samples s;
  LsimEventLog log;
  char err[512] = "";
  assert_int_equal(run_scene(json, &m, &st, &s, &log, err, sizeof err), LSIM_BREAKDOWN);
  double t = 0.0;
  const char *at = strstr(err, "vanished from detection at t = ");
  if (!at || sscanf(at + strlen("vanished from detection at t = "), "%lf", &t) != 1 || !strstr(err, "(contact 0x") ||
      !strstr(err, ", bodies 1-0, stick)"))
    fail_msg("message: %s", err);
  if (!(t >= 0.4 && t <= 0.401)) fail_msg("stopped at %.12g s: %s", t, err);
  done(&m, &st, &s, &log);
}

/* A contact sliding at zero slip speed beside sticking partners of its body pair: three
 * boxes (1 kg each: a 1 m cube on the ground, mu 0.3; a 0.8 m cube on it; a 0.7 m cube
 * on top thrown at 2 m/s along x, box mu 0.3). The top's friction drags the middle box,
 * whose four corners on the lower box share it by the least-norm split while the moment
 * unloads the back ones: a back corner's cone root fires at 0.02808 s and it slides at
 * zero slip (its friction mu f_n along its slide's direction s) while the other three
 * stick, so the middle box stays on the lower one. Its slip is that of the three
 * sticking corners' constraints, round-off (1e-14 m/s); with its friction's direction
 * turning towards the slip within SLIP_BLEND (1e-7 m/s) the flow's stiffness was
 * mu f_n / (m SLIP_BLEND) ~ 1e7 /s and CVODE's (Adams) steps fell to 1e-6 s with
 * hundreds of failed corrector iterations: over 0.1 s, 45676 steps (the sweep's runs of
 * such stacks crawled past 60 s). A sliding contact held by a sticking one of its pair
 * keeps its direction s, and the run takes 51 steps (bound 1000). Physics:
 * the middle box does not move on the lower one (1e-9 m), the top slides at mu g
 * deceleration on it, 2 - mu g t relative to it (1e-6 m/s: the boxes below move with
 * the ground's friction too, so along x the top's speed over the ground is not checked). */
static void test_held_slide(void **state) {
  (void)state;
  const char *json =
      "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.01, \"duration\": 0.1,"
      " \"integrator\": \"event_driven\", \"gravity\": [0, 0, -9.81],"
      " \"bodies\": [{\"name\": \"ground\", \"type\": \"static\", \"shapes\": [{\"type\": \"plane\", \"mu\": 0.3}]},"
      "  {\"name\": \"b0\", \"mass\": 1, \"position\": [0, 0, 0.5],"
      "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.5, 0.5, 0.5], \"mu\": 0.3}]},"
      "  {\"name\": \"b1\", \"mass\": 1, \"position\": [0, 0, 1.4],"
      "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.4, 0.4, 0.4], \"mu\": 0.3}]},"
      "  {\"name\": \"top\", \"mass\": 1, \"position\": [0, 0, 2.15], \"velocity\": [2, 0, 0],"
      "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.35, 0.35, 0.35], \"mu\": 0.3}]}]}";
  LsimModel m;
  LsimState st;
  Samples s;
  LsimEventLog log;
  char err[512] = "";
  if (run_scene(json, &m, &st, &s, &log, err, sizeof err)) fail_msg("run: %s", err);
  int slips = 0;
  for (int i = 0; i < log.count; ++i) slips += log.events[i].kind == LSIM_EVENT_SLIP;
  if (slips < 1) fail_msg("no slip event");
  if (log.steps > 1000) fail_msg("%ld CVODE steps over 0.1 s", log.steps);
  /* Final state: b1 on b0 where it started relative to it, top sliding relative to b1. */
  const double *q = st.q, *v = st.v;
  const LsimBody *b0 = &m.bodies[1], *b1 = &m.bodies[2], *tp = &m.bodies[3];
  for (int d = 0; d < 3; ++d) {
    const double rel = q[b1->q_offset + d] - q[b0->q_offset + d] - (d == 2 ? 0.9 : 0.0);
    if (fabs(rel) > 1e-9) fail_msg("b1 moved on b0: %.3g m along %d", rel, d);
  }
  const double vrel = v[tp->v_offset] - v[b1->v_offset], want = 2.0 - 0.3 * G * 0.1;
  if (fabs(vrel - want) > 1e-6) fail_msg("top on b1 at %.12g m/s, closed form %.12g", vrel, want);
  done(&m, &st, &s, &log);
}

/* Joints: their rows are always persistent equalities (forces free in sign, no roots) and
 * take part in every impact. A uniform rod (m = 1, L = 1, I about the pin m L^2 / 3)
 * pinned at one end to the origin, released horizontal, swings down and its tip (a sphere
 * of radius 0.01 m) strikes a frictionless wall x = -0.5 (e = 0.5) where the tip's centre
 * reaches x = -0.49, i.e. sin(th) = -sqrt(1 - 0.49^2): one degree of freedom, so the
 * impact reverses the angular velocity times e and leaves the energy (1 - e^2) m g (L/2)
 * sin(th) (E = 0 before: released at rest at the pin's height). 1e-8 J: CVODE at rtol
 * 1e-10 and Baumgarte's drift over 1.5 s (measured 3e-9); the pin holds to 1e-9 m
 * (1.5e-10). Then the chaotic double pendulum of data/double_pendulum.json, 3 s: energy
 * within 1e-8 relative of its start (measured 5e-9 over 5 s), both pins within 1e-9 m. */
static void test_joints(void **state) {
  (void)state;
  const char *rod =
      "{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.001, \"duration\": 1.5,"
      " \"integrator\": \"event_driven\", \"gravity\": [0, -9.81],"
      " \"bodies\": [{\"name\": \"wall\", \"type\": \"static\", \"position\": [-0.5, 0], \"orientation\": -1.5707963267948966,"
      "   \"shapes\": [{\"type\": \"plane\", \"mu\": 0}]},"
      "  {\"name\": \"rod\", \"mass\": 1, \"inertia\": 0.08333333333333333, \"position\": [0.5, 0], \"restitution\": 0.5,"
      "   \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.01, \"position\": [0.5, 0], \"mu\": 0}]}],"
      " \"joints\": [{\"name\": \"pin\", \"type\": \"pin\", \"ends\": [{\"body\": \"rod\", \"point\": [-0.5, 0]}, {\"world\": [0, 0]}]}]}";
  Run r;
  run_ok(rod, &r);
  assert_int_equal(r.log.count, 1);
  assert_int_equal(r.log.events[0].kind, LSIM_EVENT_IMPACT);
  const double ti = r.log.events[0].t, pe = G * 0.5 * -sqrt(1.0 - 0.49 * 0.49);
  for (int i = 0; i < r.s.n; ++i) {
    const double *q = r.s.q + 7 * i, *v = r.s.v + 6 * i;
    const double en = 0.5 * (v[0] * v[0] + v[1] * v[1]) + 0.5 * v[2] * v[2] / 12.0 + G * q[1];
    const double want = r.s.t[i] < ti ? 0.0 : (1.0 - 0.25) * pe;
    if (fabs(en - want) > 1e-8) fail_msg("t = %g: energy %.12g J, closed form %.12g", r.s.t[i], en, want);
    /* The pin: the rod's end (-0.5, 0) in the body frame at the origin. */
    const double px = q[0] - 0.5 * cos(q[2]), py = q[1] - 0.5 * sin(q[2]);
    assert_true(hypot(px, py) <= 1e-9);
  }
  run_free(&r);
  const char *dp =
      "{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.001, \"duration\": 3.0,"
      " \"integrator\": \"event_driven\", \"gravity\": [0, -9.81],"
      " \"bodies\": [{\"name\": \"upper\", \"mass\": 1, \"inertia\": 0.08333333333333333, \"position\": [0.5, 0]},"
      "  {\"name\": \"lower\", \"mass\": 1, \"inertia\": 0.08333333333333333, \"position\": [1, -0.5], \"orientation\": -1.5707963267948966}],"
      " \"joints\": [{\"name\": \"shoulder\", \"type\": \"pin\", \"ends\": [{\"body\": \"upper\", \"point\": [-0.5, 0]}, {\"world\": [0, 0]}]},"
      "  {\"name\": \"elbow\", \"type\": \"pin\", \"ends\": [{\"body\": \"lower\", \"point\": [-0.5, 0]}, {\"body\": \"upper\", \"point\": [0.5, 0]}]}]}";
  LsimModel m;
  LsimState st;
  LsimSceneError se;
  assert_int_equal(lsim_scene_parse(dp, "dp", &m, &st, &se), 0);
  const double e0 = lsim_kinetic_energy(&m, &st) + lsim_potential_energy(&m, &st);
  LsimEventOptions o = lsim_default_event_options();
  LsimEventLog log;
  memset(&log, 0, sizeof log);
  char err[256] = "";
  if (lsim_event_driven_run(&m, &st, 3.0, &o, NULL, NULL, &log, err, sizeof err)) fail_msg("run: %s", err);
  const double e1 = lsim_kinetic_energy(&m, &st) + lsim_potential_energy(&m, &st);
  if (fabs(e1 - e0) > 1e-8 * fabs(e0)) fail_msg("energy %.12g -> %.12g J", e0, e1);
  for (int j = 0; j < m.njoints; ++j) assert_true(lsim_joint_error(&m, &st, st.time, j) <= 1e-9);
  assert_true(fabs(st.time - 3.0) <= 1e-12);
  lsim_event_log_free(&log);
  lsim_state_free(&st);
  lsim_model_free(&m);
}

/* A rod (1 kg, 1 x 0.04 x 0.04 m) held at its end by a ball joint at the origin, lying
 * along x and started moving at 0.2 m/s along y without turning: 0.2 m/s off the joint.
 * The time step takes such a velocity error in its first step; the event-driven run left
 * it to Baumgarte's position term, and the rod's end drifted 7.4e-3 m from the pin and
 * the energy rose (2e-5 J a millisecond at 0.33 s). The start now projects the
 * velocities onto the joint rows (an inelastic impact of the joints, which never adds
 * kinetic energy). Closed forms: the pin's impulse has no moment about the pin and
 * gravity's is along y, so the angular momentum about the pin's z axis stays m (p x v)_z
 * = 0.5 x 0.2 = 0.1 kg m^2/s through the projection and the whole run; with the end
 * held, the rod turns about z at w_z = 0.1 / (I_zz + m 0.5^2), I_zz = (1 + 0.04^2) / 12.
 * Checked at every sample: the end within 1e-9 m of the pin and moving slower than
 * 1e-8 m/s (the joint's Baumgarte against rtol 1e-12 round-off: 1.0e-11 m and
 * 3.8e-11 m/s measured), L_z = 0.1 to 1e-9, the energy never above the first sample's by more than
 * 1e-9 J (rtol 1e-12 of 0.02 J terms); the first sample's w_z to 1e-9 of the closed form
 * (gravity has turned the rod about y by 1.5e-5 rad there, which moves w_z by 1e-10). */
static void test_joint_velocity_error_at_start(void **state) {
  (void)state;
  const char *json =
      "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.001, \"duration\": 1.0,"
      " \"integrator\": \"event_driven\", \"gravity\": [0, 0, -9.81],"
      " \"bodies\": [{\"name\": \"wall\", \"type\": \"static\", \"position\": [-3, 0, 0],"
      "   \"orientation\": {\"axis\": [0, 1, 0], \"angle\": 1.5707963267948966}, \"shapes\": [{\"type\": \"plane\", \"mu\": 0}]},"
      "  {\"name\": \"rod\", \"mass\": 1, \"position\": [0.5, 0, 0], \"velocity\": [0, 0.2, 0],"
      "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.5, 0.02, 0.02], \"mu\": 0}]}],"
      " \"joints\": [{\"name\": \"pin\", \"type\": \"pin\", \"ends\": [{\"body\": \"rod\", \"point\": [-0.5, 0, 0]}, {\"world\": [0, 0, 0]}]}]}";
  Run r;
  run_ok(json, &r);
  const double ixx = 2.0 * 0.04 * 0.04 / 12.0, iyy = (1.0 + 0.04 * 0.04) / 12.0, izz = iyy;
  const double body_i[3] = {ixx, iyy, izz};
  assert_true(r.s.n > 100);
  if (fabs(r.s.v[5] - 0.1 / (izz + 0.25)) > 1e-9) fail_msg("w_z %.12g rad/s, closed form %.12g", r.s.v[5], 0.1 / (izz + 0.25));
  double e_first = 0.0;
  for (int i = 0; i < r.s.n; ++i) {
    const double *q = r.s.q + 7 * i, *v = r.s.v + 6 * i;
    const double qw = q[3], qx = q[4], qy = q[5], qz = q[6];
    const double rm[9] = {1.0 - 2.0 * (qy * qy + qz * qz), 2.0 * (qx * qy - qw * qz), 2.0 * (qx * qz + qw * qy),
                          2.0 * (qx * qy + qw * qz), 1.0 - 2.0 * (qx * qx + qz * qz), 2.0 * (qy * qz - qw * qx),
                          2.0 * (qx * qz - qw * qy), 2.0 * (qy * qz + qw * qx), 1.0 - 2.0 * (qx * qx + qy * qy)};
    /* The end: p + R (-0.5, 0, 0); its velocity v + w x (R (-0.5, 0, 0)). */
    const double rr[3] = {-0.5 * rm[0], -0.5 * rm[3], -0.5 * rm[6]};
    const double end = sqrt(pow(q[0] + rr[0], 2) + pow(q[1] + rr[1], 2) + pow(q[2] + rr[2], 2));
    const double ve[3] = {v[0] + v[4] * rr[2] - v[5] * rr[1], v[1] + v[5] * rr[0] - v[3] * rr[2],
                          v[2] + v[3] * rr[1] - v[4] * rr[0]};
    if (end > 1e-9) fail_msg("t = %g: the rod's end %.3g m from the pin", r.s.t[i], end);
    if (sqrt(ve[0] * ve[0] + ve[1] * ve[1] + ve[2] * ve[2]) > 1e-8)
      fail_msg("t = %g: the rod's end moves at (%.3g, %.3g, %.3g) m/s", r.s.t[i], ve[0], ve[1], ve[2]);
    /* R diag(I) R^T w: the energy and the angular momentum. */
    double wb[3], lw[3];
    for (int c = 0; c < 3; ++c) wb[c] = body_i[c] * (rm[c] * v[3] + rm[3 + c] * v[4] + rm[6 + c] * v[5]);
    for (int c = 0; c < 3; ++c) lw[c] = rm[3 * c] * wb[0] + rm[3 * c + 1] * wb[1] + rm[3 * c + 2] * wb[2];
    const double lz = lw[2] + q[0] * v[1] - q[1] * v[0];
    if (fabs(lz - 0.1) > 1e-9) fail_msg("t = %g: L_z %.12g kg m^2/s, 0.1 at the start", r.s.t[i], lz);
    const double en = 0.5 * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) +
                      0.5 * (lw[0] * v[3] + lw[1] * v[4] + lw[2] * v[5]) + G * q[2];
    if (i == 0) e_first = en;
    if (en > e_first + 1e-9) fail_msg("t = %g: energy %.12g J above the first sample's %.12g", r.s.t[i], en, e_first);
  }
  assert_true(e_first < 0.5 * 0.2 * 0.2); /* the projection took energy out */
  run_free(&r);
}

/* The box of data/incline_3d.json (1 kg, 0.5 x 0.4 x 0.25 m) resting on a plane tilted
 * 0.3 rad about (cos 0.4, sin 0.4, 0), so that the slope lies off the contacts' tangent
 * axes, both mu = tan 0.3 +- 1e-3. A static split exists above tan 0.3 (each corner's
 * friction tan 0.3 f_n up the slope), and below it the box slides without turning,
 * g (sin 0.3 - mu cos 0.3) t^2 / 2 down the slope. The flow split the redundant sticking
 * friction by least norm, whatever the corners' normal forces: the least loaded
 * corner's share left its circle, circular_stick slid it, then the next, and the box
 * turned about its one sticking corner (0.27 m and 0.25 rad in 1 s, at tan + 1e-3 and
 * at tan - 1e-3 alike). Checked over 1 s: sticking, the box's centre within 1e-9 m of
 * its start (0 measured); sliding, within 1e-7 m of the closed form (3.9e-8 m measured,
 * across the slope: a slide from rest takes its friction along v_t + SLIP_BLEND s, s the
 * LCP's direction, so the box drifts sideways at below SLIP_BLEND = 1e-7 m/s); the
 * orientation within 1e-9 of the start (1e-16 and 6e-14 measured). */
static void test_incline_off_axes(void **state) {
  (void)state;
  const double a = 0.3, g = G;
  const double nrm[3] = {sin(0.4) * sin(a), -cos(0.4) * sin(a), cos(a)};
  for (int slide = 0; slide < 2; ++slide) {
    const double mu = tan(a) + (slide ? -1e-3 : 1e-3);
    char json[2048];
    snprintf(json, sizeof json,
             "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.01, \"duration\": 1.0,"
             " \"integrator\": \"event_driven\", \"gravity\": [0, 0, -9.81],"
             " \"bodies\": [{\"name\": \"incline\", \"type\": \"static\","
             "   \"orientation\": {\"axis\": [0.9210609940028851, 0.3894183423086505, 0], \"angle\": 0.3},"
             "   \"shapes\": [{\"type\": \"plane\", \"mu\": %.17g}]},"
             "  {\"name\": \"box\", \"mass\": 1, \"position\": [%.17g, %.17g, %.17g],"
             "   \"orientation\": {\"axis\": [0.9210609940028851, 0.3894183423086505, 0], \"angle\": 0.3},"
             "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.25, 0.2, 0.125], \"mu\": %.17g}]}]}",
             mu, 0.125 * nrm[0], 0.125 * nrm[1], 0.125 * nrm[2], mu);
    Run r;
    run_ok(json, &r);
    /* Down the slope: (cos a n - e_z) / sin a. */
    const double down[3] = {cos(a) * nrm[0] / sin(a), cos(a) * nrm[1] / sin(a), (cos(a) * nrm[2] - 1.0) / sin(a)};
    const double acc = slide ? g * (sin(a) - mu * cos(a)) : 0.0;
    assert_true(r.s.n == 100);
    for (int i = 0; i < r.s.n; ++i) {
      const double *q = r.s.q + 7 * i, *q0 = r.s.q;
      const double d = 0.5 * acc * r.s.t[i] * r.s.t[i];
      double err = 0.0, turn = 0.0;
      for (int c = 0; c < 3; ++c) err = fmax(err, fabs(q[c] - (0.125 * nrm[c] + d * down[c])));
      for (int c = 3; c < 7; ++c) turn = fmax(turn, fabs(q[c] - q0[c]));
      if (err > (slide ? 1e-7 : 1e-9) || turn > 1e-9)
        fail_msg("mu = tan 0.3 %s 1e-3, t = %g: centre %.3g m off the closed form, orientation %.3g off",
                 slide ? "-" : "+", r.s.t[i], err, turn);
    }
    run_free(&r);
  }
}

/* Tedrake's hollow ball (m = 2, r = 0.3, I = 2/3 m r^2), touching the ground at t = 0
 * moving at (1.5, -2, 4) without gravity, mu = 10, e = 0.5: the impact LCP gives the
 * appendix's post-impact velocities (0.42, 1, -1.4) to 1e-12, and the first sample (the
 * ball then flies freely) has them. */
static void test_hollow_ball(void **state) {
  (void)state;
  const char *json =
      "{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.01, \"steps\": 5,"
      " \"integrator\": \"event_driven\","
      " \"bodies\": [{\"name\": \"ground\", \"type\": \"static\", \"shapes\": [{\"type\": \"plane\", \"mu\": 10}]},"
      "  {\"name\": \"ball\", \"mass\": 2, \"inertia\": 0.12, \"position\": [0, 0.3], \"velocity\": [1.5, -2],"
      "   \"angular_velocity\": 4, \"restitution\": 0.5, \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.3, \"mu\": 10}]}]}";
  Run r;
  run_ok(json, &r);
  assert_true(r.log.count >= 1 && r.log.events[0].kind == LSIM_EVENT_IMPACT && r.log.events[0].t == 0.0);
  const double want[3] = {0.42, 1.0, -1.4};
  for (int d = 0; d < 3; ++d)
    if (fabs(r.s.v[d] - want[d]) > 1e-12) fail_msg("v[%d] = %.15g, Tedrake %.15g", d, r.s.v[d], want[d]);
  run_free(&r);
}

/* Scenes outside the integrator's scope are errors that name what is not supported. */
static void test_scope(void **state) {
  (void)state;
  const char *one_d =
      "{\"lcpsim\": 1, \"dimension\": 1, \"time_step\": 0.01, \"steps\": 5, \"integrator\": \"event_driven\","
      " \"bodies\": [{\"position\": 1}]}";
  LsimModel m;
  LsimState st;
  Samples s;
  LsimEventLog log;
  char err[256] = "";
  assert_int_equal(run_scene(one_d, &m, &st, &s, &log, err, sizeof err), LSIM_INVALID_INPUT);
  assert_non_null(strstr(err, "1-D"));
  done(&m, &st, &s, &log);
  LsimSceneError se;
  const char *bad = "{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.01, \"steps\": 5, \"integrator\": \"euler\","
                    " \"bodies\": [{\"mass\": 1}]}";
  assert_true(lsim_scene_parse(bad, "bad", &m, &st, &se) < 0);
  assert_string_equal(se.path, "integrator");
}

/* An error about an event quotes the event's time, not the start of the step that found
 * it. A ball (r 0.1 m, no gravity) 2 mm from a wall, closing at 100 m/s, run from
 * t0 = 1e6 s: the impact is at t0 + 2e-5 s, where one ulp of time (1.2e-10 s) moves the
 * gap by 1.2e-8 m, so no representable time puts it within the default precision 1e-10 m
 * of 0 but by chance (1 in 100; not here): the run stops, st at the last good state
 * before the impact (CVODE's first step, 8e-7 s). The message names t0 + 2e-5 to its 12
 * digits (1e-6 s) and says the precision is finer than double precision resolves
 * there. A precision below LSIM_EVENT_PRECISION_FLOOR is refused before the run. */
static void test_failure_time(void **state) {
  (void)state;
  const char *json =
      "{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.01, \"steps\": 20,"
      " \"integrator\": \"event_driven\", \"gravity\": [0, 0],"
      " \"bodies\": [{\"name\": \"wall\", \"type\": \"static\", \"position\": [1, 0],"
      "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.05, 1], \"mu\": 0}]},"
      "  {\"name\": \"ball\", \"mass\": 1, \"position\": [0.848, 0], \"velocity\": [100, 0], \"restitution\": 1,"
      "   \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.1, \"mu\": 0}]}]}";
  LsimModel m;
  LsimState st;
  LsimSceneError se;
  assert_int_equal(lsim_scene_parse(json, "wall", &m, &st, &se), 0);
  const double t0 = 1e6, t_impact = t0 + 2e-5;
  st.time = t0;
  st.step = (int)lround(t0 / m.time_step);
  LsimEventOptions o = lsim_event_options_for_model(&m);
  char err[512] = "";
  assert_int_equal(lsim_event_driven_run(&m, &st, t0 + 0.2, &o, NULL, NULL, NULL, err, sizeof err),
                   LSIM_BREAKDOWN);
  const char *at = strstr(err, "event-driven run at t = ");
  assert_non_null(at);
  const double t_msg = strtod(at + strlen("event-driven run at t = "), NULL);
  if (fabs(t_msg - t_impact) > 1e-6) fail_msg("quoted t = %.17g, impact at %.17g: %s", t_msg, t_impact, err);
  assert_non_null(strstr(err, "finer than double precision"));
  /* The root said as what it is: the gap of the pair ball (body 1) - wall (body 0). */
  assert_non_null(strstr(err, "root 0 (pair gap of bodies 1-0): "));
  assert_true(st.time < t_impact);
  fprintf(stderr, "failure at the impact: %s (last good state at t0 + %.3g s)\n", err, st.time - t0);
  /* Below the floor: refused, nothing run. */
  o.precision = 1e-15;
  st.time = t0;
  assert_int_equal(lsim_event_driven_run(&m, &st, t0 + 0.2, &o, NULL, NULL, NULL, err, sizeof err),
                   LSIM_INVALID_INPUT);
  assert_non_null(strstr(err, "precision 1e-15: must be in [1e-12, inf)"));
  assert_true(st.time == t0);
  lsim_state_free(&st);
  lsim_model_free(&m);
}

/* lsim_impact_map outside the integrator's scope is refused, naming what (before: a
 * kinematic body's velocity came out NaN, a rod dragged by an anchor moving at 1 m/s got
 * no impulse and the ball no velocity along it, and a 1-D scene was "a body's inertia is
 * singular"; all but the last with status 0). */
static void test_impact_map_scope(void **state) {
  (void)state;
  const char *scenes[3] = {
      "{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 1,"
      " \"bodies\": [{\"name\": \"cart\", \"position\": 1, \"velocity\": -3}],"
      " \"walls\": [{\"name\": \"wall\", \"position\": 0, \"side\": \"left\"}]}",
      "{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.01, \"steps\": 1,"
      " \"bodies\": [{\"name\": \"lift\", \"type\": \"kinematic\", \"velocity\": [0, 0.5],"
      "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [1, 0.1]}]},"
      "  {\"name\": \"box\", \"mass\": 1, \"position\": [0, 0.35], \"velocity\": [0, 0.5],"
      "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.25, 0.25]}]}]}",
      "{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.01, \"steps\": 1,"
      " \"bodies\": [{\"name\": \"ground\", \"type\": \"static\", \"shapes\": [{\"type\": \"plane\"}]},"
      "  {\"name\": \"ball\", \"mass\": 1, \"position\": [0, 0.1], \"velocity\": [0, -1],"
      "   \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.1}]}],"
      " \"joints\": [{\"name\": \"pull\", \"type\": \"rod\", \"length\": 1, \"ends\": [{\"body\": \"ball\"},"
      "   {\"path\": {\"origin\": [1, 0.1], \"velocity\": [1, 0]}}]}]}"};
  const char *want[3] = {"the impact map: 2-D and 3-D scenes only (this one is 1-D)",
                         "the impact map: kinematic bodies are not supported (body 'lift')",
                         "the impact map: moving anchors are not supported (joint 'pull')"};
  const int pairs[3][2] = {{0, 1}, {1, 0}, {1, 0}};
  for (int k = 0; k < 3; ++k) {
    LsimModel m;
    LsimState st;
    LsimSceneError se;
    LsimContactSet out;
    memset(&out, 0, sizeof out);
    double vp[8] = {0};
    char err[256] = "";
    assert_int_equal(lsim_scene_parse(scenes[k], "scope", &m, &st, &se), 0);
    assert_int_equal(lsim_impact_map(&m, &st, 1, pairs[k], vp, &out, err, sizeof err),
                     LSIM_INVALID_INPUT);
    if (strcmp(err, want[k])) fail_msg("scene %d: '%s', expected '%s'", k, err, want[k]);
    lsim_contacts_free(&out);
    lsim_state_free(&st);
    lsim_model_free(&m);
  }
}

/* The impact map of a named set of contacts (RBDL's constraint impulses, as an LCP).
 * Tedrake's hollow ball: the appendix's matrix to 1e-12 and the normal impulse
 * m (1 + e) |zdot| = 6 N s. A double pendulum (pins at the shoulder and the elbow, the
 * lower rod's tip a contact point with e = 0.3, mu = 0.8) whose tip hits the ground while
 * both rods swing: after the impact the tip's normal velocity is -e times before and its
 * tangential one 0 (sticking), both pins' velocities are 0 (1e-12), linear momentum
 * changes by the ground's and the shoulder's impulses (1e-12), and energy does not grow. */
static void test_impact_map(void **state) {
  (void)state;
  const char *ball =
      "{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.01, \"steps\": 1,"
      " \"bodies\": [{\"name\": \"ground\", \"type\": \"static\", \"shapes\": [{\"type\": \"plane\", \"mu\": 10}]},"
      "  {\"name\": \"ball\", \"mass\": 2, \"inertia\": 0.12, \"position\": [0, 0.3], \"velocity\": [1.5, -2],"
      "   \"angular_velocity\": 4, \"restitution\": 0.5, \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.3, \"mu\": 10}]}]}";
  const char *pendulum =
      "{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.001, \"steps\": 1, \"gravity\": [0, -9.81],"
      " \"bodies\": [{\"name\": \"ground\", \"type\": \"static\", \"position\": [0, -1.2], \"shapes\": [{\"type\": \"plane\", \"mu\": 0.8}]},"
      "  {\"name\": \"upper\", \"mass\": 1, \"inertia\": 0.0833, \"position\": [0.5, 0], \"angular_velocity\": -1.5, \"velocity\": [0, -0.75]},"
      "  {\"name\": \"lower\", \"mass\": 1, \"inertia\": 0.0833, \"position\": [1, -0.5], \"orientation\": -1.5707963267948966,"
      "   \"velocity\": [0.4, -1.5], \"angular_velocity\": 0.8, \"restitution\": 0.3,"
      "   \"shapes\": [{\"type\": \"point\", \"position\": [0.5, 0], \"mu\": 0.8}]}],"
      " \"joints\": [{\"name\": \"shoulder\", \"type\": \"pin\", \"ends\": [{\"body\": \"upper\", \"point\": [-0.5, 0]}, {\"world\": [0, 0]}]},"
      "  {\"name\": \"elbow\", \"type\": \"pin\", \"ends\": [{\"body\": \"lower\", \"point\": [-0.5, 0]}, {\"body\": \"upper\", \"point\": [0.5, 0]}]}]}";
  LsimModel m;
  LsimState st;
  LsimSceneError se;
  LsimContactSet out;
  memset(&out, 0, sizeof out);
  double vp[9];
  char err[256];
  assert_int_equal(lsim_scene_parse(ball, "ball", &m, &st, &se), 0);
  const int pair[2] = {1, 0};
  if (lsim_impact_map(&m, &st, 1, pair, vp, &out, err, sizeof err)) fail_msg("%s", err);
  const double want[3] = {0.42, 1.0, -1.4};
  for (int d = 0; d < 3; ++d) assert_true(fabs(vp[d] - want[d]) <= 1e-12);
  assert_int_equal(out.count, 1);
  assert_true(fabs(out.contacts[0].normal_impulse - 6.0) <= 1e-12);
  lsim_state_free(&st);
  lsim_model_free(&m);

  assert_int_equal(lsim_scene_parse(pendulum, "pendulum", &m, &st, &se), 0);
  const int tip[2] = {2, 0};
  if (lsim_impact_map(&m, &st, 1, tip, vp, &out, err, sizeof err)) fail_msg("%s", err);
  /* The tip (lower's local (0.5, 0), at (1, -1)): velocity v + w x r, r = (0, -0.5). */
  const double *u = st.v + m.bodies[2].v_offset, *w = vp + m.bodies[2].v_offset;
  const double tip_before[2] = {u[0] + 0.5 * u[2], u[1]}, tip_after[2] = {w[0] + 0.5 * w[2], w[1]};
  assert_true(fabs(tip_after[1] + 0.3 * tip_before[1]) <= 1e-12 && fabs(tip_after[0]) <= 1e-12);
  /* Pin velocities after (the state's joint rows at vp). */
  LsimState after;
  assert_int_equal(lsim_state_init(&after, &m), 0);
  memcpy(after.q, st.q, (size_t)m.nq * sizeof(double));
  memcpy(after.v, vp, (size_t)m.nv * sizeof(double));
  LsimContactSet rows;
  memset(&rows, 0, sizeof rows);
  assert_int_equal(lsim_constraint_rows(&m, &after, 0.0, &rows), 0);
  for (int c = 0; c < rows.count; ++c) {
    const LsimJacRow *r = &rows.rows[rows.contacts[c].first_row];
    double jv = 0.0;
    for (int k = 0; k < 2; ++k)
      for (int d = 0; r->body[k] >= 0 && d < 3; ++d) jv += r->j[k][d] * vp[m.bodies[r->body[k]].v_offset + d];
    assert_true(fabs(jv) <= 1e-12);
  }
  /* Momentum: the sum of m dv equals the ground's impulse plus the shoulder's (rows along
     the world axes on upper). */
  double dp[2] = {0.0, 0.0}, ext[2] = {0.0, 0.0};
  for (int b = 1; b <= 2; ++b)
    for (int d = 0; d < 2; ++d) dp[d] += vp[m.bodies[b].v_offset + d] - st.v[m.bodies[b].v_offset + d];
  int shoulder_row = 0;
  for (int c = 0; c < out.count; ++c) {
    const LsimContact *ct = &out.contacts[c];
    if (ct->kind == LSIM_CONTACT_EQUALITY && ct->source == 0) ext[shoulder_row++] += ct->normal_impulse;
    if (ct->kind == LSIM_CONTACT_NORMAL)
      for (int d = 0; d < 2; ++d) ext[d] += ct->normal_impulse * ct->normal[d] * (ct->body[0] == 2 ? 1 : -1) +
                                            ct->friction_impulse[d] * (ct->body[0] == 2 ? 1 : -1);
  }
  for (int d = 0; d < 2; ++d)
    if (fabs(dp[d] - ext[d]) > 1e-12) fail_msg("momentum %d: %.15g vs impulses %.15g", d, dp[d], ext[d]);
  assert_true(lsim_kinetic_energy(&m, &after) <= lsim_kinetic_energy(&m, &st));
  lsim_contacts_free(&rows);
  lsim_contacts_free(&out);
  lsim_state_free(&after);
  lsim_state_free(&st);
  lsim_model_free(&m);
}

/* A row of n balls (r 0.1, 1 kg, restitution e) along x, gap apart, the first at 1 m/s,
 * no gravity; event_driven.impacts as given ("" for the default). */
static void cradle_scene(char *json, size_t len, int dim, int n, double e, double gap, const char *impacts) {
  int k = snprintf(json, len,
                   "{\"lcpsim\": 1, \"dimension\": %d, \"time_step\": 0.01, \"steps\": 2,"
                   " \"integrator\": \"event_driven\", \"gravity\": %s%s%s%s \"bodies\": [",
                   dim, dim == 2 ? "[0, 0]," : "[0, 0, 0],", impacts[0] ? " \"event_driven\": {\"impacts\": \"" : "",
                   impacts, impacts[0] ? "\"}," : "");
  for (int i = 0; i < n; ++i)
    k += snprintf(json + k, len - (size_t)k,
                  "%s{\"name\": \"b%d\", \"mass\": 1, \"position\": [%.17g, 0%s], \"velocity\": [%d, 0%s],"
                  " \"restitution\": %g, \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.1, \"mu\": 0.3}]}",
                  i ? ", " : "", i, i * (0.2 + gap), dim == 3 ? ", 0" : "", i == 0, dim == 3 ? ", 0" : "", e);
  snprintf(json + k, len - (size_t)k, "]}");
}

/* The balls' x velocities after the cradle's impact: the event-driven run's end (run 1) or
 * lsim_impact_map with every neighbouring pair closing (run 0). */
static void cradle_velocities(const char *json, int run, int n, double *vx) {
  LsimModel m;
  LsimState st;
  if (run) {
    Samples s;
    LsimEventLog log;
    char err[256] = "";
    if (run_scene(json, &m, &st, &s, &log, err, sizeof err)) fail_msg("run: %s", err);
    for (int i = 0; i < n; ++i) vx[i] = st.v[m.bodies[i].v_offset];
    done(&m, &st, &s, &log);
    return;
  }
  LsimSceneError se;
  assert_int_equal(lsim_scene_parse(json, "cradle", &m, &st, &se), 0);
  int pairs[32];
  for (int i = 0; i + 1 < n; ++i) pairs[2 * i] = i, pairs[2 * i + 1] = i + 1;
  double vp[64];
  LsimContactSet out;
  memset(&out, 0, sizeof out);
  char err[256];
  if (lsim_impact_map(&m, &st, n - 1, pairs, vp, &out, err, sizeof err)) fail_msg("%s", err);
  for (int i = 0; i < n; ++i) vx[i] = vp[m.bodies[i].v_offset];
  /* Each contact's impulse (summed over the sequence) is the momentum it passed on: ball
     i's change is P_(i-1) - P_i, to round-off. */
  for (int i = 0; i < n; ++i) {
    const double in = i > 0 ? out.contacts[i - 1].normal_impulse : 0.0;
    const double outp = i + 1 < n ? out.contacts[i].normal_impulse : 0.0;
    if (fabs(vx[i] - (i == 0) - (in - outp)) > 1e-12)
      fail_msg("ball %d: dv %.17g, impulses %.17g - %.17g", i, vx[i] - (i == 0), in, outp);
  }
  lsim_contacts_free(&out);
  lsim_state_free(&st);
  lsim_model_free(&m);
}

/* Newton's cradle: n equal balls in a row, the first striking the others at 1 m/s.
 * Simultaneous impacts (the default): one LCP over all closed contacts, Newton's law on
 * the struck one, the touching ones at rest (not approaching) inelastic, so the row moves
 * as one body: the striker leaves at (1 - (n-1) e) / n, the others at (1 + e) / n
 * (5 balls: e = 1: -0.6 and 0.4, energy kept; e = 0.5: -0.2 and 0.3). Balls 5e-9 m apart
 * (closed, gap <= 1e-8 m) are the same single impact (3 balls: -1/3, 2/3, 2/3); 2e-8 m
 * apart they are separate events, one after the other (0, 0, 1).
 * Sequential (event_driven.impacts "sequential"): pairwise impacts, the fastest
 * approaching contact first, until none approaches: e = 1 passes the velocity on ball by
 * ball, the last leaves at 1 m/s and the others rest; e = 0.5, 3 balls: (0-1) gives
 * (0.25, 0.75, 0), (1-2) (0.25, 0.1875, 0.5625), (0-1) again, approaching at 0.0625 m/s
 * (above the 0.01 threshold), (0.203125, 0.234375, 0.5625), exact binary fractions;
 * e = 0 tends to the common velocity 1/n, stopping when no contact approaches faster
 * than 1e-7 m/s (so each ball within (n-1) 1e-7 of it). In 2-D and 3-D, by the run and
 * by lsim_impact_map; momentum to round-off (1e-15 on 1 N s) throughout. */
static void test_cradle(void **state) {
  (void)state;
  typedef struct {
    int n;
    double e, gap;
    const char *impacts;
    double first, rest, last, tol;
  } Case;
  const Case cases[] = {
      {5, 1.0, 0.0, "", -0.6, 0.4, 0.4, 1e-12},
      {5, 0.5, 0.0, "simultaneous", -0.2, 0.3, 0.3, 1e-12},
      {3, 1.0, 5e-9, "", -1.0 / 3, 2.0 / 3, 2.0 / 3, 1e-12},
      {5, 1.0, 0.0, "sequential", 0.0, 0.0, 1.0, 1e-15},
      {5, 1.0, 5e-9, "sequential", 0.0, 0.0, 1.0, 1e-15},
      {3, 0.5, 0.0, "sequential", 0.203125, 0.234375, 0.5625, 1e-15},
      {5, 0.0, 0.0, "sequential", 0.2, 0.2, 0.2, 4e-7},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    const Case *k = &cases[c];
    for (int dim = 2; dim <= 3; ++dim)
      for (int run = 0; run <= 1; ++run) {
        char json[4096];
        cradle_scene(json, sizeof json, dim, k->n, k->e, k->gap, k->impacts);
        double vx[8], p = 0.0, energy = 0.0;
        cradle_velocities(json, run, k->n, vx);
        for (int i = 0; i < k->n; ++i) {
          const double want = i == 0 ? k->first : i == k->n - 1 ? k->last : k->rest;
          if (fabs(vx[i] - want) > k->tol)
            fail_msg("case %zu %dD %s: ball %d at %.17g m/s, expected %.17g", c, dim,
                     run ? "run" : "impact map", i, vx[i], want);
          p += vx[i], energy += 0.5 * vx[i] * vx[i];
        }
        if (fabs(p - 1.0) > 1e-15 || energy > 0.5 + 1e-15)
          fail_msg("case %zu %dD: momentum %.17g, energy %.17g J", c, dim, p, energy);
      }
  }
  /* 2e-8 m apart (not closed together): separate events whatever the option. */
  for (int seq = 0; seq <= 1; ++seq) {
    char json[4096];
    cradle_scene(json, sizeof json, 2, 3, 1.0, 2e-8, seq ? "sequential" : "");
    double vx[3];
    cradle_velocities(json, 1, 3, vx);
    for (int i = 0; i < 3; ++i) assert_true(fabs(vx[i] - (i == 2)) <= 1e-15);
  }
  /* The option is a closed list. */
  char json[4096];
  cradle_scene(json, sizeof json, 2, 2, 1.0, 0.0, "pairwise");
  LsimModel m;
  LsimState st;
  LsimSceneError se;
  assert_int_not_equal(lsim_scene_parse(json, "cradle", &m, &st, &se), 0);
  char msg[512];
  lsim_scene_error_format(&se, msg, sizeof msg);
  assert_non_null(strstr(msg, "event_driven.impacts"));
}

/* A 2-D box (1 m x 0.2 m, 1 kg) landing flat at 1 m/s on frictionless ground, through
 * lsim_impact_map. Simultaneous: both corners in one LCP, (0, e, 0) to 1e-12. Sequential:
 * the corners one at a time, so the box turns (the caveat docs/scene-format.md states:
 * e = 0.5 leaves (0, 0.346, 0.066), 0.060 J): each pairwise frictionless impact with
 * e <= 1 loses (1 - e^2) u_n^2 / (2 K_nn), so the energy never rises above the start's
 * 0.5 J (1e-15); e = 0 ends at rest within 1e-7 m/s, the velocity tolerance. */
static void test_flat_landing(void **state) {
  (void)state;
  const double I = (0.25 + 0.01) / 3;
  for (int seq = 0; seq <= 1; ++seq)
    for (int k = 0; k < 3; ++k) {
      const double e = 0.5 * k;
      char json[2048];
      snprintf(json, sizeof json,
               "{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.01, \"steps\": 1, \"gravity\": [0, 0],"
               " \"event_driven\": {\"impacts\": \"%s\"},"
               " \"bodies\": [{\"name\": \"ground\", \"type\": \"static\", \"shapes\": [{\"type\": \"plane\", \"mu\": 0}]},"
               "  {\"name\": \"box\", \"mass\": 1, \"position\": [0, 0.1], \"velocity\": [0, -1], \"restitution\": %g,"
               "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.5, 0.1], \"mu\": 0}]}]}",
               seq ? "sequential" : "simultaneous", e);
      LsimModel m;
      LsimState st;
      LsimSceneError se;
      assert_int_equal(lsim_scene_parse(json, "box", &m, &st, &se), 0);
      const int pair[2] = {1, 0};
      double vp[3];
      LsimContactSet out;
      memset(&out, 0, sizeof out);
      char err[256];
      if (lsim_impact_map(&m, &st, 1, pair, vp, &out, err, sizeof err)) fail_msg("%s", err);
      const double energy = 0.5 * (vp[0] * vp[0] + vp[1] * vp[1]) + 0.5 * I * vp[2] * vp[2];
      if (!seq) {
        if (fabs(vp[0]) > 1e-12 || fabs(vp[1] - e) > 1e-12 || fabs(vp[2]) > 1e-12)
          fail_msg("simultaneous e %g: (%g, %g, %g), expected (0, e, 0)", e, vp[0], vp[1], vp[2]);
      } else {
        if (energy > 0.5 + 1e-15) fail_msg("sequential e %g: energy %.17g J above 0.5", e, energy);
        if (k == 0 && (fabs(vp[1]) > 1e-7 || fabs(vp[2]) > 2e-7)) fail_msg("e 0: not at rest (%g, %g)", vp[1], vp[2]);
        if (k == 1 && !(fabs(vp[2]) > 0.01)) fail_msg("e 0.5: no turn (w %g)", vp[2]);
      }
      lsim_contacts_free(&out);
      lsim_state_free(&st);
      lsim_model_free(&m);
    }
}

/* Two 3-D balls (r 0.1; A 1 kg at (1, 0, 0) m/s spinning at 3 rad/s about x, B 2 kg at
 * (-0.5, 0, 0) m/s), their line of centres 0.1 m off the x axis in y, touching at t = 0,
 * mu 0.3, e = 0: a plastic impact, the contact sticking (I = 2/5 m r^2: P_n = -u_n /
 * (1/mA + 1/mB), P_t = -u_t / (1/mA + 1/mB + r^2/IA + r^2/IB), |P_t| = 0.168 P_n,
 * inside the 4-direction cone of mu = 0.3 (|P_t| <= mu P_n / sqrt 2)). Then the contact
 * goes through the acceleration LCP, whose direction rows are round-off (-2.7e-17: the
 * free spin's gyroscopic term) beside a normal row of +1.44 (the balls part): until the
 * event-driven contact LCP took such a q as z = 0 (q >= 0 up to rounding), Lemke ended
 * on a secondary ray and the run stopped at t = 0. Now it runs; the velocities after the
 * impact (the end state's: nothing acts after it) are the closed form to 1e-12 (one
 * Lemke solve on order-1 values). */
static void test_spinning_pair(void **state) {
  (void)state;
  const double R = 0.1, mA = 1.0, mB = 2.0, IA = 0.4 * mA * R * R, IB = 0.4 * mB * R * R, off = 0.1;
  const double dx = sqrt(4 * R * R - off * off), n[3] = {dx / (2 * R), off / (2 * R), 0.0};
  const double vA[3] = {1, 0, 0}, wA[3] = {3, 0, 0}, vB[3] = {-0.5, 0, 0};
  /* Contact velocity of B relative to A: vB - (vA + wA x R n). */
  const double wxn[3] = {wA[1] * n[2] - wA[2] * n[1], wA[2] * n[0] - wA[0] * n[2], wA[0] * n[1] - wA[1] * n[0]};
  double u[3], un = 0.0;
  for (int d = 0; d < 3; ++d) u[d] = vB[d] - vA[d] - R * wxn[d], un += u[d] * n[d];
  const double pn = -un / (1 / mA + 1 / mB), kt = 1 / mA + 1 / mB + R * R / IA + R * R / IB;
  double P[3], pt2 = 0.0;
  for (int d = 0; d < 3; ++d) P[d] = pn * n[d] - (u[d] - un * n[d]) / kt, pt2 += pow((u[d] - un * n[d]) / kt, 2);
  assert_true(sqrt(pt2) <= 0.3 * pn);
  /* A gets -P at R n, B gets P at -R n: torques R n x (-P) and (-R n) x P, equal. */
  const double tq[3] = {-R * (n[1] * P[2] - n[2] * P[1]), -R * (n[2] * P[0] - n[0] * P[2]), -R * (n[0] * P[1] - n[1] * P[0])};
  const double want[12] = {vA[0] - P[0] / mA, vA[1] - P[1] / mA, vA[2] - P[2] / mA,
                           wA[0] + tq[0] / IA, wA[1] + tq[1] / IA, wA[2] + tq[2] / IA,
                           vB[0] + P[0] / mB, vB[1] + P[1] / mB, vB[2] + P[2] / mB,
                           tq[0] / IB, tq[1] / IB, tq[2] / IB};
  char json[2048];
  snprintf(json, sizeof json,
           "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.01, \"steps\": 1, \"gravity\": [0, 0, 0],"
           " \"integrator\": \"event_driven\", \"bodies\": ["
           "{\"name\": \"A\", \"mass\": 1, \"inertia\": [%.17g, %.17g, %.17g], \"position\": [%.17g, %.17g, 0],"
           " \"velocity\": [1, 0, 0], \"angular_velocity\": [3, 0, 0],"
           " \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.1, \"mu\": 0.3}]},"
           "{\"name\": \"B\", \"mass\": 2, \"inertia\": [%.17g, %.17g, %.17g], \"position\": [0, 0, 0],"
           " \"velocity\": [-0.5, 0, 0], \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.1, \"mu\": 0.3}]}]}",
           IA, IA, IA, -2 * R * n[0], -2 * R * n[1], IB, IB, IB);
  Run r;
  run_ok(json, &r);
  /* After the impact no force acts (the balls part): the end state has its velocities. */
  for (int d = 0; d < 12; ++d)
    if (fabs(r.st.v[d] - want[d]) > 1e-12) fail_msg("v[%d] = %.17g, expected %.17g", d, r.st.v[d], want[d]);
  run_free(&r);
}

/* Both boxes' samples of a stack (bodies 1 and 2: q 7 each, v 6 each); fmin: the least
 * normal force (N) of a persistent contact over the samples (0 when none is negative), tfmin
 * its time. */
typedef struct StackSamples {
  int n, cap;
  double t[128], q[128][2][7], v[128][2][6];
  double fmin, tfmin;
} StackSamples;

static int keep_stack(const LsimModel *m, const LsimState *st, const LsimContactSet *cs, void *user) {
  StackSamples *s = user;
  if (s->n == s->cap) return -1;
  s->t[s->n] = st->time;
  for (int c = 0; c < cs->count; ++c)
    if (cs->contacts[c].normal_impulse / m->time_step < s->fmin)
      s->fmin = cs->contacts[c].normal_impulse / m->time_step, s->tfmin = st->time;
  for (int k = 0; k < 2; ++k) {
    const LsimBody *b = &m->bodies[1 + k];
    memcpy(s->q[s->n][k], st->q + b->q_offset, 7 * sizeof(double));
    memcpy(s->v[s->n][k], st->v + b->v_offset, 6 * sizeof(double));
  }
  s->n++;
  return 0;
}

/* Runs the stack scene json event-driven to t_end (s; at most 1.28); returns its samples
 * (t = 0.01 ... t_end;
 * free()) and fills *log (lsim_event_log_free). A failed run fails the test with its
 * message. */
static StackSamples *run_stack(const char *json, double t_end, LsimEventLog *log) {
  LsimModel m;
  LsimState st;
  LsimSceneError se;
  assert_int_equal(lsim_scene_parse(json, "stack", &m, &st, &se), 0);
  StackSamples *s = calloc(1, sizeof *s);
  assert_non_null(s);
  s->cap = 128;
  LsimEventOptions o = lsim_event_options_for_model(&m);
  char err[512] = "";
  if (lsim_event_driven_run(&m, &st, t_end, &o, keep_stack, s, log, err, sizeof err)) fail_msg("%s", err);
  assert_int_equal(s->n, (int)lround(t_end / 0.01));
  lsim_state_free(&st);
  lsim_model_free(&m);
  return s;
}

/* A box sliding on a box on the ground (3-D; 1 kg each, the top one 0.5 m, the lower 1 m
 * wide, boxes' mu 0.5, so the pair's mu1 = 0.5; the top one at v0 = (1, 0.5, 0), u = v0 /
 * |v0|). Four coplanar corners per face make the persistent system redundant, and with the
 * top's sliding rows it is not symmetric.
 * Frictionless ground: the top decelerates at mu1 g along u, the lower one accelerates at
 * mu1 m1 g / m2 = mu1 g, until they stick at t_s = |v0| / (2 mu1 g) = 0.11397 s and move on
 * together at v0 / 2 (momentum).
 * Ground mu 0.3 (pair mu_g = sqrt(0.3 0.5) = 0.387): the ground holds the lower box
 * (mu_g (m1 + m2) g = 7.6 N > mu1 m1 g = 4.9 N), the top one stops at |v0| / (mu1 g) =
 * 0.22794 s, |v0|^2 / (2 mu1 g) = 0.1274 m on. Before the persistent forces were split by
 * least norm with sliding rows, this run stopped at t = 0.174 s ("the bracket ... shrank to
 * the resolution of time": a ground corner's force jumped by 1e-4 N between evaluations
 * 1e-16 s apart). Velocities and positions to 1e-9 (CVODE at rtol 1e-12 and the stick
 * event located to 1e-10 s, where a velocity error of mu1 g 1e-10 = 5e-10 m/s arises;
 * measured: velocities 1.9e-15 m/s, positions 2.2e-13 m, stick times 4.2e-16 s), no
 * rotation, no sinking (1e-9; measured 2e-15).
 * Ground mu 0.02 (mu_g = 0.1, 2 mu_g g = 1.96 N < 4.9 N), the top at (1, -0.3): the lower
 * box slides too, at (mu1 - 2 mu_g) g, they stick at t_s = 0.13303 s, then slide together
 * at mu_g g to rest at t_s + v_c / (mu_g g) = 0.53213 s. Before Charnes' perturbation of
 * the acceleration LCP's ties, Lemke broke down there (48 variables: 8 corners at rest,
 * q = -9.81 on the four ground normals, exact zeros on every direction row). To 1e-6:
 * an error of 2e-7 m/s (and 4e-7 rad/s of spin) arises in the first 0.01 s, as the
 * ground corners start to slide, and stays (measured 2.0e-7 m/s, 3.8e-8 m, the stick
 * 1.2e-8 s and the stop 4.9e-8 s late). */
static void test_stack_slide(void **state) {
  (void)state;
  /* Ground mu, the top's initial velocity, the tolerance on velocities and positions. */
  const struct { double mu_ground, vx, vy, tol; } cases[] = {
      {0.0, 1.0, 0.5, 1e-9}, {0.3, 1.0, 0.5, 1e-9}, {0.02, 1.0, -0.3, 1e-6}};
  const double mu1 = 0.5;
  for (int c = 0; c < 3; ++c) {
    const double v0[2] = {cases[c].vx, cases[c].vy}, sp = hypot(v0[0], v0[1]);
    const double u[2] = {v0[0] / sp, v0[1] / sp}, tol = cases[c].tol;
    char json[2048];
    snprintf(json, sizeof json,
             "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.01, \"duration\": 1.0,"
             " \"gravity\": [0, 0, -9.81], \"integrator\": \"event_driven\","
             " \"bodies\": [{\"name\": \"ground\", \"type\": \"static\", \"shapes\": [{\"type\": \"plane\", \"mu\": %g}]},"
             "  {\"name\": \"low\", \"mass\": 1, \"position\": [0, 0, 0.5],"
             "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.5, 0.5, 0.5], \"mu\": 0.5}]},"
             "  {\"name\": \"top\", \"mass\": 1, \"position\": [0, 0, 1.25], \"velocity\": [%g, %g, 0],"
             "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.25, 0.25, 0.25], \"mu\": 0.5}]}]}",
             cases[c].mu_ground, v0[0], v0[1]);
    LsimEventLog log = {0};
    StackSamples *s = run_stack(json, 1.0, &log);
    assert_true(fabs(s->t[0] - 0.01) < 1e-15 && fabs(s->t[99] - 1.0) < 1e-15);
    /* The ground's pair mu and its friction on the lower box: it holds the box while the
       top's friction is within mu_g (m1 + m2) g, else it slides against it. */
    const double mu_g = sqrt(cases[c].mu_ground * 0.5), fg = mu_g * 2.0 * G, f1 = mu1 * G;
    const double a1 = f1, a2 = fg >= f1 ? 0.0 : f1 - fg; /* top's deceleration, low's acceleration */
    const double ts = sp / (a1 + a2), vc = a2 * ts;       /* stick time, common speed */
    const double te = vc == 0.0 ? ts : mu_g > 0.0 ? ts + vc / (mu_g * G) : 1e300; /* the stack stops */
    int sticks = 0;
    for (int i = 0; i < log.count; ++i)
      if (log.events[i].kind == LSIM_EVENT_STICK && log.events[i].body[0] == 1 && log.events[i].body[1] == 2) {
        ++sticks;
        if (fabs(log.events[i].t - ts) > tol) fail_msg("stick at %.15g s, closed form %.15g", log.events[i].t, ts);
      }
    assert_true(sticks >= 1);
    for (int i = 0; i < s->n; ++i) {
      const double t = s->t[i], tc = fmin(t, ts), t2 = fmax(0.0, fmin(t, te) - ts);
      /* Speeds along u, and the distances covered along u, of low (0) and top (1). */
      const double w[2] = {t > ts ? vc - mu_g * G * t2 : a2 * tc, t > ts ? vc - mu_g * G * t2 : sp - a1 * tc};
      const double x2 = vc * t2 - 0.5 * mu_g * G * t2 * t2;
      const double x[2] = {0.5 * a2 * tc * tc + x2, sp * tc - 0.5 * a1 * tc * tc + x2};
      for (int k = 0; k < 2; ++k) {
        const double *q = s->q[i][k], *v = s->v[i][k];
        for (int d = 0; d < 2; ++d) {
          if (fabs(v[d] - w[k] * u[d]) > tol)
            fail_msg("case %d, t = %g, body %d: v[%d] = %.12g, closed form %.12g", c, t, k, d, v[d], w[k] * u[d]);
          if (fabs(q[d] - x[k] * u[d]) > tol)
            fail_msg("case %d, t = %g, body %d: q[%d] = %.12g, closed form %.12g", c, t, k, d, q[d], x[k] * u[d]);
        }
        assert_true(fabs(q[2] - (k ? 1.25 : 0.5)) <= tol && fabs(v[2]) <= tol);
        for (int d = 3; d < 6; ++d) assert_true(fabs(v[d]) <= tol && fabs(q[d + 1]) <= tol);
      }
    }
    free(s);
    lsim_event_log_free(&log);
  }
}

/* A box coming to rest on another whose friction it needs there: the lower box a slab
 * (1 x 1 x 0.2 m, so that it does not tip), the top one a 0.5 m cube thrown at
 * v0 = (1.8, -0.3) m/s, 1 kg each, boxes' mu 0.5 (mu1 = 0.5), ground mu 0.02 (mu_g = 0.1).
 * As in test_stack_slide: the top decelerates at a1 = mu1 g along u = v0 / |v0|, the slab
 * accelerates at a2 = (mu1 - 2 mu_g) g, the top's four corners stop sliding on the slab
 * together at t_s = |v0| / (a1 + a2) = 0.232522 s, and the stack, at v_c = a2 t_s, slides
 * to rest at t_e = t_s + v_c / (mu_g g) = 0.930086 s. After t_s the slab's friction on the
 * top (mu_g g = 0.98 N, under its cone's 4.9 N) is shared by the four corners, and the
 * acceleration LCP's vertex solution put it on some corners' cone boundaries: those, still
 * sliding until then (at zero slip speed, their slip roots within round-off of 0), were
 * kept sliding (the rule for a slide that has just started), and the flow took their
 * friction's direction from a slip velocity of round-off: a corner's cone root jumped by
 * 8e-5 N between evaluations 1e-16 s apart and the run stopped at t = 0.3497 s. Now a
 * slide that started faster than velocity_tol (it is coming to rest) sticks there.
 * Tolerances: the slab's ground corners start to slide from rest along the friction the
 * LCP puts on its polyhedral cone, which is not quite the slip's direction: an error of
 * 9e-6 m/s (and 6.6e-6 rad/s of spin) arises in the first 0.02 s and decays (measured:
 * velocities 9.1e-6 m/s, positions 1.3e-6 m, the stick 2.0e-7 s early, the stop 8.0e-7 s
 * late, 5e-11 m/s at rest); so velocities 2e-5 m/s, positions 1e-5 m, times 2e-6 s, and at
 * rest after t_e 1e-8 m/s. */
static void test_stack_stops_together(void **state) {
  (void)state;
  const double mu1 = 0.5, mu_g = 0.1, v0[2] = {1.8, -0.3}, sp = hypot(v0[0], v0[1]);
  const double u[2] = {v0[0] / sp, v0[1] / sp};
  const double a1 = mu1 * G, a2 = (mu1 - 2.0 * mu_g) * G, ts = sp / (a1 + a2), vc = a2 * ts;
  const double te = ts + vc / (mu_g * G);
  char json[2048];
  snprintf(json, sizeof json,
           "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.01, \"duration\": 1.0,"
           " \"gravity\": [0, 0, -9.81], \"integrator\": \"event_driven\","
           " \"bodies\": [{\"name\": \"ground\", \"type\": \"static\", \"shapes\": [{\"type\": \"plane\", \"mu\": 0.02}]},"
           "  {\"name\": \"slab\", \"mass\": 1, \"position\": [0, 0, 0.1],"
           "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.5, 0.5, 0.1], \"mu\": 0.5}]},"
           "  {\"name\": \"top\", \"mass\": 1, \"position\": [0, 0, 0.45], \"velocity\": [%.17g, %.17g, 0],"
           "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.25, 0.25, 0.25], \"mu\": 0.5}]}]}",
           v0[0], v0[1]);
  LsimEventLog log = {0};
  StackSamples *s = run_stack(json, 1.0, &log);
  /* The top's four corners stick together at t_s, the slab's four at t_e; nothing else. */
  int top = 0, slab = 0;
  for (int i = 0; i < log.count; ++i) {
    const LsimEvent *ev = &log.events[i];
    if (ev->t == 0.0 && ev->kind == LSIM_EVENT_CONTACT) continue;
    if (ev->kind != LSIM_EVENT_STICK) fail_msg("unexpected %s event at %.15g s", lsim_event_kind_name(ev->kind), ev->t);
    const int on_slab = ev->body[0] == 1 && ev->body[1] == 2;
    if (fabs(ev->t - (on_slab ? ts : te)) > 2e-6)
      fail_msg("stick at %.15g s, closed form %.15g", ev->t, on_slab ? ts : te);
    on_slab ? ++top : ++slab;
  }
  assert_int_equal(top, 4);
  assert_int_equal(slab, 4);
  for (int i = 0; i < s->n; ++i) {
    const double t = s->t[i], tc = fmin(t, ts), t2 = fmax(0.0, fmin(t, te) - ts);
    const double w[2] = {t > ts ? vc - mu_g * G * t2 : a2 * tc, t > ts ? vc - mu_g * G * t2 : sp - a1 * tc};
    const double x2 = vc * t2 - 0.5 * mu_g * G * t2 * t2;
    const double x[2] = {0.5 * a2 * tc * tc + x2, sp * tc - 0.5 * a1 * tc * tc + x2};
    const double vtol = t > te ? 1e-8 : 2e-5;
    for (int k = 0; k < 2; ++k) {
      const double *q = s->q[i][k], *v = s->v[i][k];
      for (int d = 0; d < 2; ++d) {
        if (fabs(v[d] - w[k] * u[d]) > vtol)
          fail_msg("t = %g, body %d: v[%d] = %.12g, closed form %.12g", t, k, d, v[d], w[k] * u[d]);
        if (fabs(q[d] - x[k] * u[d]) > 1e-5)
          fail_msg("t = %g, body %d: q[%d] = %.12g, closed form %.12g", t, k, d, q[d], x[k] * u[d]);
      }
      assert_true(fabs(q[2] - (k ? 0.45 : 0.1)) <= 1e-5 && fabs(v[2]) <= vtol);
      for (int d = 3; d < 6; ++d) assert_true(fabs(v[d]) <= vtol && fabs(q[d + 1]) <= 1e-5);
    }
  }
  free(s);
  lsim_event_log_free(&log);
}

/* A frictionless cube of half length a = 0.25 m sliding at v0 = 1 m/s on a static cube of
 * half length 0.5 m (its top face at z = 1, its edge at x = 0.5): a corner passing an
 * edge is an event (its margin inside the supporting face's side planes as the root).
 * Closed forms: without friction the top cube slides at v0, its front corners reach the
 * edge at t1 = (0.5 - a) / v0 = 0.25 s, where the contact set becomes the two back corners
 * and the two points where the cube's side edges cross the edge ("contact" events); its
 * centre is over the edge at t2 = 0.5 / v0 = 0.5 s, where the back corners' forces reach
 * zero (moments about the edge) and they lift off. Both to 1e-9 s: t1 is located to
 * 1e-10 m of margin at 1 m/s (plus twice the clip's tolerance, 4e-12 m), t2 by the force
 * root to the time precision 1e-10 s (measured: t1 4.0e-12 s late, t2 1.1e-16 s).
 * Up to t2 the cube is at x = v0 t, z = 1.25 without rotation (1e-9). Then it tips over
 * the edge, rotating about it (w_y > 0, its centre sinking; the contact's normal turns
 * to the cube's own face at a role event 3.7e-4 s after t2) until it leaves the edge (a
 * liftoff of the two edge points together, at 0.8107 s) and falls freely: from then v_z
 * falls at g and the spin stays (1e-9). No friction, no impact: the energy stays
 * 12.7625 J to 1e-9 relative (CVODE at rtol 1e-12 over some 10^3 steps; measured
 * 5.5e-11). Before, the run stopped at t1: "a persistent contact vanished from
 * detection"; with the normal kept on the static cube's face while it tipped, the energy
 * drifted by 1.5e-3 relative; with the edge points leaving one at a time (2e-12 s apart)
 * the second came back and the cube turned about x. */
static void test_edge_tip(void **state) {
  (void)state;
  /* The top cube's velocity and the run's length: straight off the edge to past leaving
     it; obliquely (the crossings are the front corners', the side ones reach y = 0.5 only
     at 0.5 s) up to 0.2 s, while it tips. */
  const struct { double vx, vy, duration; } cases[] = {{1.0, 0.0, 1.0}, {3.0, 0.5, 0.2}};
  for (int c = 0; c < 2; ++c) {
    const double a = 0.25, v0 = cases[c].vx, vy = cases[c].vy, t1 = (0.5 - a) / v0, t2 = 0.5 / v0;
    const int leaves = c == 0;
    char json[2048];
    snprintf(json, sizeof json,
             "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.01, \"duration\": %.17g,"
             " \"gravity\": [0, 0, -9.81], \"integrator\": \"event_driven\","
             " \"bodies\": [{\"name\": \"base\", \"type\": \"static\", \"position\": [0, 0, 0.5],"
             "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.5, 0.5, 0.5], \"mu\": 0}]},"
             "  {\"name\": \"top\", \"mass\": 1, \"position\": [0, 0, %.17g], \"velocity\": [%.17g, %.17g, 0],"
             "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [%.17g, %.17g, %.17g], \"mu\": 0}]}]}",
             cases[c].duration, 1.0 + a, v0, vy, a, a, a);
    Run r;
    run_ok(json, &r);
    /* Events after the start: two contacts at t1, two liftoffs at t2, then the edge points'
       two liftoffs. */
    int contacts = 0, liftoffs = 0;
    double t_leave = leaves ? -1.0 : 1e300;
    for (int i = 0; i < r.log.count; ++i) {
      const LsimEvent *ev = &r.log.events[i];
      if (ev->t == 0.0) continue;
      if (ev->kind == LSIM_EVENT_CONTACT) {
        ++contacts;
        if (fabs(ev->t - t1) > 1e-9) fail_msg("edge crossing at %.15g s, closed form %.15g", ev->t, t1);
      } else if (ev->kind == LSIM_EVENT_LIFTOFF) {
        ++liftoffs;
        if (liftoffs <= 2 && fabs(ev->t - t2) > 1e-9) fail_msg("tipping at %.15g s, closed form %.15g", ev->t, t2);
        if (liftoffs > 2) t_leave = ev->t;
      } else {
        fail_msg("unexpected %s event at %.15g s", lsim_event_kind_name(ev->kind), ev->t);
      }
  }
    assert_int_equal(contacts, 2);
    assert_int_equal(liftoffs, leaves ? 4 : 2);
    if (leaves) assert_true(t_leave > t2 && t_leave < cases[c].duration);
    const double m = 1.0, I = m * (2 * a) * (2 * a) / 6.0; /* a cube's inertia, isotropic */
    const double e0 = 0.5 * m * (v0 * v0 + vy * vy) + m * G * (1.0 + a);
    int after = -1;
    for (int i = 0; i < r.s.n; ++i) {
      const double t = r.s.t[i], *q = r.s.q + 7 * i, *v = r.s.v + 6 * i;
      double e = m * G * q[2];
      for (int d = 0; d < 3; ++d) e += 0.5 * m * v[d] * v[d] + 0.5 * I * v[3 + d] * v[3 + d];
      if (fabs(e - e0) > 1e-9 * e0) fail_msg("t = %g: energy %.15g J, at the start %.15g", t, e, e0);
      if (t <= t2) {
        if (fabs(q[0] - v0 * t) > 1e-9 || fabs(q[1] - vy * t) > 1e-9 || fabs(q[2] - (1.0 + a)) > 1e-9 ||
            fabs(v[0] - v0) > 1e-9 || fabs(v[1] - vy) > 1e-9)
          fail_msg("t = %g: x = %.15g, y = %.15g, z = %.15g, vx = %.15g before tipping", t, q[0], q[1], q[2], v[0]);
        for (int d = 3; d < 6; ++d) assert_true(fabs(v[d]) <= 1e-9);
      } else if (t < t_leave) {
        assert_true(v[4] > 0.0 && q[2] < 1.0 + a); /* tipping forward about the edge */
      } else {
        if (after < 0) after = i;
        /* Free fall from the first sample after leaving the edge. */
        const double *v1 = r.s.v + 6 * after, dt = t - r.s.t[after];
        if (fabs(v[2] - (v1[2] - G * dt)) > 1e-9 || fabs(v[0] - v1[0]) > 1e-9 || fabs(v[4] - v1[4]) > 1e-9)
          fail_msg("t = %g: not in free fall after leaving the edge at %.15g s", t, t_leave);
      }
  }
    assert_true(leaves ? after > 0 : after < 0);
    run_free(&r);
  }
}

/* The heights of a cube's (half size a, q = position, quaternion) eight corners,
 * sorted up. */
static void cube_corner_heights(const double *q, double a, double z[8]) {
  for (int c = 0; c < 8; ++c) {
    const double p[3] = {c & 1 ? a : -a, c & 2 ? a : -a, c & 4 ? a : -a};
    double r[3];
    lsim_quat_rotate(r, q + 3, p);
    z[c] = q[2] + r[2];
  }
  for (int i = 1; i < 8; ++i)
    for (int j = i; j > 0 && z[j] < z[j - 1]; --j) {
      const double t = z[j];
      z[j] = z[j - 1], z[j - 1] = t;
    }
}

/* Kinetic plus potential energy of a cube of mass m, half size a (I = 2/3 m a^2 about
 * every axis through its centre) from its q (7) and v (6). */
static double cube_energy(const double *q, const double *v, double m, double a) {
  return 0.5 * m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) +
         0.5 * (2.0 / 3.0) * m * a * a * (v[3] * v[3] + v[4] * v[4] + v[5] * v[5]) + m * G * q[2];
}

/* A box rocking to rest on an edge (scripts/event_stack_sweep.py's
 * n2_g0.05_b0.3_a0.25_v5_o1: a 0.5 m cube thrown at (4.5, 1.5) m/s over a 1 m cube on the
 * ground, box mu 0.3, ground mu 0.05, e = 0). It falls off and lands on an edge; its two
 * corners there impact in turn (Housner's rocking block: each plastic impact about one
 * corner lifts the other at about 0.2 of its approach speed) at shrinking intervals,
 * 3.8e-3 s down to 3.3e-7 s (Zeno). The run used to stop after the last located one at
 * 0.677782 s, the lifted corner's flight (2.6e-7 m/s, 4e-15 m high) below what an event
 * locates, with the box sinking into the ground ("bodies 2-0 interpenetrate by 1.84e-05 m
 * at t = 0.68"). Now a rebound below v_rest (4.4e-4 m/s: a hop under gravity lower than
 * contact_tol, 1e-8 m) counts as rest, the box rests on the edge, tips onto its face
 * (both far corners in one impact) and slides on.
 * Second case, n2_g0_b0_a0.35_v3.5_o1 (frictionless, a 0.7 m cube at (3.15, 1.05) m/s):
 * the second corner's impact at 0.647232 s drives the first, 1.18e-8 m up and lifted at
 * rest by the first impact, down at 0.18 m/s; the pair's gap root, held at 0 by the
 * second corner (left free at rest), never saw it close and the box sank (4.7e-4 m at
 * 0.65 s). Now a contact an impact leaves free at about rest counts in its pair's root
 * with its gap plus contact_tol, and the first corner's return is an impact.
 * Checked over 1.2 s: the runs complete; no sample has a corner of the top box below the
 * ground by more than 1e-9 m (measured 8.9e-11 m: the persistent rows' drift); from
 * t_flat on the box lies on its face, its four lowest corners within 1e-9 m of the
 * ground, the others 2a above it (measured 8e-14 m and 9e-11 m); the boxes' energy never
 * rises between samples by more than 1e-8 J (friction and the plastic impacts take it
 * away; what rises is CVODE's error on ~20 J at rtol 1e-12 and the Baumgarte term closing
 * the gap, up to 1e-6 m, that a contact joining an impact leaves: measured 1.1e-14 J and
 * 3.9e-10 J). */
static void test_rocking_landing(void **state) {
  (void)state;
  const struct { double mu_ground, mu_box, a, vx, vy, t_flat; } cases[] = {
      {0.05, 0.3, 0.25, 4.5, 1.5, 0.75},
      {0.0, 0.0, 0.35, 3.15, 1.05, 1.0},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    const double a = cases[k].a;
    char json[2048];
    snprintf(json, sizeof json,
             "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.01, \"duration\": 2.0,"
             " \"integrator\": \"event_driven\", \"gravity\": [0, 0, -9.81],"
             " \"bodies\": [{\"name\": \"ground\", \"type\": \"static\", \"shapes\": [{\"type\": \"plane\", \"mu\": %g}]},"
             "  {\"name\": \"b0\", \"mass\": 1, \"position\": [0, 0, 0.5],"
             "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.5, 0.5, 0.5], \"mu\": %g}]},"
             "  {\"name\": \"top\", \"mass\": 1, \"position\": [0, 0, %.17g], \"velocity\": [%.17g, %.17g, 0],"
             "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [%g, %g, %g], \"mu\": %g}]}]}",
             cases[k].mu_ground, cases[k].mu_box, 1.0 + a, cases[k].vx, cases[k].vy, a, a, a, cases[k].mu_box);
    LsimEventLog log;
    memset(&log, 0, sizeof log);
    StackSamples *s = run_stack(json, 1.2, &log);
    double e_prev = HUGE_VAL, deepest = 0.0;
    for (int i = 0; i < s->n; ++i) {
      double z[8];
      cube_corner_heights(s->q[i][1], a, z);
      deepest = fmin(deepest, z[0]);
      const double e = cube_energy(s->q[i][0], s->v[i][0], 1.0, 0.5) + cube_energy(s->q[i][1], s->v[i][1], 1.0, a);
      if (e > e_prev + 1e-8) fail_msg("case %zu: t = %g: energy %.12g J rose by %.3g J", k, s->t[i], e, e - e_prev);
      e_prev = e;
      if (s->t[i] < cases[k].t_flat - 1e-9) continue;
      if (fabs(z[0]) > 1e-9 || fabs(z[3]) > 1e-9 || fabs(z[4] - 2 * a) > 1e-9)
        fail_msg("case %zu: t = %g: the top box is not on its face (corners at %.3g, %.3g, %.3g m)", k, s->t[i],
                 z[0], z[3], z[4]);
    }
    if (deepest < -1e-9) fail_msg("case %zu: a corner of the top box went %.3g m into the ground", k, -deepest);
    /* The landing's impacts of the top box on the ground: the rocking's, then the tip. */
    int impacts = 0;
    for (int i = 0; i < log.count; ++i)
      impacts += log.events[i].kind == LSIM_EVENT_IMPACT && log.events[i].body[0] == 2;
    if (impacts < 3) fail_msg("case %zu: %d impacts of the top box: no rocking", k, impacts);
    free(s);
    lsim_event_log_free(&log);
  }
}

/* A 0.5 m cube (1 kg, mu 0.5, e = 0) dropped onto the ground tilted by 0.35 rad about an
 * axis (eps, 1, 0): with eps = 0 it lands on an edge, both corners at once; with
 * eps = 1e-7 one corner 3.5e-8 m (1.5e-8 s at 2.3 m/s) ahead of the other. Both rock to
 * rest on the edge, tip onto a face and stop there. The near-equal landing is one impact
 * LCP (a contact closing within 1e-6 s and 1e-6 m joins the impact), so it ends as the
 * equal one does: impacted one after the other, the first corner's impulse turned the box
 * about the vertical, and it came to rest turned by 0.115 rad. Checked: at 2 s every run
 * rests on a face (four corners within 1e-9 m of the ground, speeds below 1e-9), its yaw
 * that of eps = 0 to 1e-6 rad (the tilt's own share is 1e-7 rad), and the energy never
 * rises between samples by more than 1e-9 J (CVODE's error on ~4 J at rtol 1e-12; measured
 * 2.7e-14 J). */
static void test_near_equal_landing(void **state) {
  (void)state;
  double yaw[2];
  for (int k = 0; k < 2; ++k) {
    char json[1024];
    snprintf(json, sizeof json,
             "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.01, \"duration\": 2.0,"
             " \"integrator\": \"event_driven\", \"gravity\": [0, 0, -9.81],"
             " \"bodies\": [{\"name\": \"ground\", \"type\": \"static\", \"shapes\": [{\"type\": \"plane\", \"mu\": 0.5}]},"
             "  {\"name\": \"box\", \"mass\": 1, \"position\": [0, 0, 0.6], \"orientation\": {\"axis\": [%g, 1, 0], \"angle\": 0.35},"
             "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.25, 0.25, 0.25], \"mu\": 0.5}]}]}",
             k ? 1e-7 : 0.0);
    Run r;
    run_ok(json, &r);
    double e_prev = HUGE_VAL;
    for (int i = 0; i < r.s.n; ++i) {
      const double e = cube_energy(r.s.q + 7 * i, r.s.v + 6 * i, 1.0, 0.25);
      if (e > e_prev + 1e-9) fail_msg("eps %d: t = %g: energy rose by %.3g J", k, r.s.t[i], e - e_prev);
      e_prev = e;
    }
    const double *q = r.s.q + 7 * (r.s.n - 1), *v = r.s.v + 6 * (r.s.n - 1);
    double z[8];
    cube_corner_heights(q, 0.25, z);
    if (fabs(z[0]) > 1e-9 || fabs(z[3]) > 1e-9 || fabs(z[4] - 0.5) > 1e-9)
      fail_msg("eps %d: not on a face at 2 s (corners at %.3g, %.3g, %.3g m)", k, z[0], z[3], z[4]);
    for (int d = 0; d < 6; ++d)
      if (fabs(v[d]) > 1e-9) fail_msg("eps %d: not at rest at 2 s (v[%d] = %.3g)", k, d, v[d]);
    yaw[k] = 2.0 * atan2(q[6], q[3]); /* flat on a face: a turn about z alone */
    run_free(&r);
  }
  if (fabs(yaw[1] - yaw[0]) > 1e-6) fail_msg("yaw %.9g rad, %.9g with both corners at once", yaw[1], yaw[0]);
}

/* The two-box stack of scripts/event_stack_sweep.py's n2_g*_b*_a*_v*_o0 scenes (a 1 m
 * cube on the ground, ground mu mu_g; a cube of half side `half` thrown over it at `speed`
 * m/s along x, box mu mu_b, e = 0), run event-driven to t_end; fails if the energy rises
 * between samples by more than 1e-8 J (as in test_rocking_landing). */
static StackSamples *thrown_box_stack(double mu_g, double mu_b, double half, double speed,
                                      double t_end, LsimEventLog *log) {
  char json[1024];
  snprintf(json, sizeof json,
           "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.01, \"duration\": 2.0,"
           " \"integrator\": \"event_driven\", \"gravity\": [0, 0, -9.81],"
           " \"bodies\": [{\"name\": \"ground\", \"type\": \"static\", \"shapes\": [{\"type\": \"plane\", \"mu\": %.17g}]},"
           "  {\"name\": \"b0\", \"mass\": 1, \"position\": [0, 0, 0.5],"
           "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.5, 0.5, 0.5], \"mu\": %.17g}]},"
           "  {\"name\": \"top\", \"mass\": 1, \"position\": [0, 0, %.17g], \"velocity\": [%.17g, 0, 0],"
           "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [%.17g, %.17g, %.17g], \"mu\": %.17g}]}]}",
           mu_g, mu_b, 1.0 + half, speed, half, half, half, mu_b);
  memset(log, 0, sizeof *log);
  StackSamples *s = run_stack(json, t_end, log);
  double e_prev = HUGE_VAL;
  for (int i = 0; i < s->n; ++i) {
    const double e = cube_energy(s->q[i][0], s->v[i][0], 1.0, 0.5) + cube_energy(s->q[i][1], s->v[i][1], 1.0, half);
    if (e > e_prev + 1e-8) fail_msg("t = %g: energy %.12g J rose by %.3g J", s->t[i], e, e - e_prev);
    e_prev = e;
  }
  return s;
}

/* Two boxes at rest on the ground as one's slide stops (scripts/event_stack_sweep.py's
 * n2_g0.3_b0.6_a0.25_v3.5_o0: a 0.5 m cube thrown at 3.5 m/s over a 1 m cube, box mu 0.6,
 * ground mu 0.3, e = 0). The top box falls off, lands and slides on the ground until
 * 1.112911 s, where the acceleration LCP of the eight corners at rest (48 variables, q_n
 * = -9.81 on every normal, the direction rows 1e-40) broke down in Lemke, Charnes'
 * perturbation q_i + 1e-10 max|q| 2^-(i mod 16) too. With a perturbation distinct for
 * every variable it solves. Checked to 1.2 s: the run completes; at 1.2 s every velocity
 * is below 1e-9 (m/s, rad/s: measured 1.3e-11, Baumgarte settling a 1e-12 m drift) and
 * both boxes' four lowest corners are within 1e-9 m of the ground (measured 1e-12 m); the
 * energy never rises between samples by more than 1e-8 J (as in test_rocking_landing;
 * measured 6.6e-13 J). */
static void test_slide_stops_beside_box(void **state) {
  (void)state;
  LsimEventLog log;
  StackSamples *s = thrown_box_stack(0.3, 0.6, 0.25, 3.5, 1.2, &log);
  const int last = s->n - 1;
  for (int k = 0; k < 2; ++k) {
    double z[8];
    cube_corner_heights(s->q[last][k], k ? 0.25 : 0.5, z);
    if (fabs(z[0]) > 1e-9 || fabs(z[3]) > 1e-9) fail_msg("box %d: corners at %.3g and %.3g m", k, z[0], z[3]);
    for (int d = 0; d < 6; ++d)
      if (fabs(s->v[last][k][d]) > 1e-9) fail_msg("box %d not at rest: v[%d] = %.3g", k, d, s->v[last][k][d]);
  }
  free(s);
  lsim_event_log_free(&log);
}

/* Sliding friction never adds energy (scripts/event_stack_sweep.py's
 * n2_g0.3_b0.6_a0.35_v3.5_o0: a 0.7 m cube thrown at 3.5 m/s over a 1 m cube on the
 * ground, box mu 0.6, ground mu 0.3, e = 0). The top box falls off and tips over its edge
 * on the ground; at 0.640354 s one edge corner, at rest, starts to slide: the event's LCP
 * slides it and the stick trial (the circle) cannot hold it. It slid along the LCP's
 * direction, a diagonal of its square cone 135 degrees from the trial's friction; its
 * slip grew along that friction's opposite, the slip root v_t . s went from 0 straight
 * below 0 (never crossing) and the flow kept friction along s, doing positive work:
 * +2.06e-4 J between the samples at 0.76 and 0.77 s, 1.03e-3 J over 0.65-0.77 s. Now a
 * contact whose LCP direction is more than 90 degrees off the trial's friction slides
 * against that friction, as at a cone root. Checked to 0.9 s (past the next impact at
 * 0.776 s): the energy never rises between samples by more than 1e-8 J (as in
 * test_rocking_landing; measured 1.5e-13 J). */
static void test_tipping_slide_loses_energy(void **state) {
  (void)state;
  LsimEventLog log;
  StackSamples *s = thrown_box_stack(0.3, 0.6, 0.35, 3.5, 0.9, &log);
  free(s);
  lsim_event_log_free(&log);
}

/* A contact the flow pulls lifts off (scripts/event_stack_sweep.py's
 * n2_g0.05_b0.3_a0.25_v2_o0: a 0.5 m cube thrown at 2 m/s over a 1 m cube on the ground,
 * box mu 0.3, ground mu 0.05, e = 0). At 0.642160704 s the top box's two sliding corners
 * on the lower box are detected afresh; the acceleration LCP gives one of them zero force
 * and it was kept (a redundant support), but the flow's least-norm split gave it -6.6e-11
 * N at the event's restart and falling (-0.30 N by 0.6485 s): its force root, held at 0,
 * never crossed, and its sliding friction under the negative force added 3.9e-5 J between
 * the samples at 0.64 and 0.65 s. Now a persistent contact whose flow force is at or below
 * 0 and falling is released when, released, it does not sink (resolve, lift_pulled).
 * Checked to 0.8 s: no sample has a persistent contact pulling (normal force below -1e-8 N:
 * the precision 1e-10 N of a located force root, with CVODE's drift over a sample's
 * 0.01 s at rtol 1e-12 far below; measured -0.30 N before, never below 0 after), the
 * energy never rises between samples by more than 1e-8 J (thrown_box_stack; measured 3.9e-5
 * J before, no rise after), and the contact (0x20000030548) is not persistent 1e-6 s after
 * the event: admitted there and lifted off within 1e-6 s (measured 4.4e-10 s: its force
 * crossed 0 that much later), or, since a released contact may sink at up to PULL_SINK
 * (1e-6 m/s^2; test_pulled_contact_released_after_partner), released at the event and
 * never admitted (measured). */
static void test_pulled_contact_lifts(void **state) {
  (void)state;
  LsimEventLog log;
  StackSamples *s = thrown_box_stack(0.05, 0.3, 0.25, 2.0, 0.8, &log);
  if (s->fmin < -1e-8) fail_msg("a persistent contact pulls with %.3g N at t = %g", s->fmin, s->tfmin);
  int admitted = 0, lifted = 0;
  for (int i = 0; i < log.count; ++i) {
    const LsimEvent *e = &log.events[i];
    if (e->contact != 0x20000030548ull || !(e->t > 0.642160703 && e->t < 0.642161705)) continue;
    admitted |= e->kind == LSIM_EVENT_CONTACT;
    lifted |= e->kind == LSIM_EVENT_LIFTOFF;
  }
  if (admitted && !lifted) fail_msg("contact 0x20000030548 admitted at 0.642160704 s, no liftoff within 1e-6 s");
  free(s);
  lsim_event_log_free(&log);
}

/* A run of scripts/event_stack_sweep.py's stacks: the largest rise of the energy (kinetic
 * + potential) between samples and the least normal force of a persistent contact. */
typedef struct SweepRun {
  int samples, rc;
  double e_prev, rise, t_rise, fmin, t_fmin;
  double from;      /* s: rises and forces counted from this sample time on (0: all) */
  char err[512];
} SweepRun;

static int keep_sweep(const LsimModel *m, const LsimState *st, const LsimContactSet *cs, void *user) {
  SweepRun *r = user;
  const double e = lsim_kinetic_energy(m, st) + lsim_potential_energy(m, st);
  const int counted = st->time >= r->from;
  if (r->samples > 0 && counted && e - r->e_prev > r->rise) r->rise = e - r->e_prev, r->t_rise = st->time;
  r->e_prev = e;
  for (int c = 0; counted && c < cs->count; ++c)
    if (cs->contacts[c].normal_impulse / m->time_step < r->fmin)
      r->fmin = cs->contacts[c].normal_impulse / m->time_step, r->t_fmin = st->time;
  r->samples++;
  return 0;
}

/* Raised by SIGALRM from a timer on the process's CPU time (not the wall clock: a loaded
 * machine or the sanitizers' build only slow it down): a run that crawls (burning CPU with
 * no progress in time) is interrupted. */
static volatile sig_atomic_t crawl_stop;
static void on_alarm(int sig) { crawl_stop = sig; }

/* A run's stop flag raised after seconds of the process's CPU time (a crawl ends as a
 * stop, not a hung test): cpu_limit_start before the run, cpu_limit_end after it. */
static void cpu_limit_start(LsimEventOptions *o, unsigned seconds, timer_t *timer) {
  crawl_stop = 0;
  o->stop = &crawl_stop;
  signal(SIGALRM, on_alarm);
  struct sigevent ev;
  memset(&ev, 0, sizeof ev);
  ev.sigev_notify = SIGEV_SIGNAL, ev.sigev_signo = SIGALRM;
  struct itimerspec when;
  memset(&when, 0, sizeof when);
  when.it_value.tv_sec = seconds;
  assert_int_equal(timer_create(CLOCK_PROCESS_CPUTIME_ID, &ev, timer), 0);
  assert_int_equal(timer_settime(*timer, 0, &when, NULL), 0);
}

static void cpu_limit_end(timer_t timer) {
  timer_delete(timer);
  signal(SIGALRM, SIG_DFL);
}

/* The sweep's scene NB boxes (2 or 3), ground mu mg, box mu mb, top half size a, thrown at
 * speed v straight (obl 0) or along (0.9, 0.3) (obl 1), run event-driven to t_end;
 * rises of the energy and forces counted from sample time from; interrupted after cpu
 * seconds of the process's CPU time (0: never; rc LSIM_EVENT_INTERRUPTED). */
static SweepRun sweep_scene_limited(int nb, double mg, double mb, double a, double v, int obl,
                                    double t_end, double from, unsigned cpu) {
  char json[2048], mid[400] = "";
  double z = 1.0;
  if (nb == 3) {
    snprintf(mid, sizeof mid,
             "  {\"name\": \"b1\", \"mass\": 1, \"position\": [0, 0, 1.4],"
             "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.4, 0.4, 0.4], \"mu\": %.17g}]},", mb);
    z += 0.8;
  }
  snprintf(json, sizeof json,
           "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.01, \"duration\": 2.0,"
           " \"integrator\": \"event_driven\", \"gravity\": [0, 0, -9.81],"
           " \"bodies\": [{\"name\": \"ground\", \"type\": \"static\", \"shapes\": [{\"type\": \"plane\", \"mu\": %.17g}]},"
           "  {\"name\": \"b0\", \"mass\": 1, \"position\": [0, 0, 0.5],"
           "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.5, 0.5, 0.5], \"mu\": %.17g}]},%s"
           "  {\"name\": \"top\", \"mass\": 1, \"position\": [0, 0, %.17g], \"velocity\": [%.17g, %.17g, 0],"
           "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [%.17g, %.17g, %.17g], \"mu\": %.17g}]}]}",
           mg, mb, mid, z + a, obl ? 0.9 * v : v, obl ? 0.3 * v : 0.0, a, a, a, mb);
  LsimModel m;
  LsimState st;
  LsimSceneError se;
  assert_int_equal(lsim_scene_parse(json, "sweep", &m, &st, &se), 0);
  SweepRun r;
  memset(&r, 0, sizeof r);
  r.from = from;
  LsimEventOptions o = lsim_event_options_for_model(&m);
  timer_t timer;
  const int timed = cpu > 0;
  if (timed) cpu_limit_start(&o, cpu, &timer);
  r.rc = lsim_event_driven_run(&m, &st, t_end, &o, keep_sweep, &r, NULL, r.err, sizeof r.err);
  if (timed) cpu_limit_end(timer);
  lsim_state_free(&st);
  lsim_model_free(&m);
  return r;
}

static SweepRun sweep_scene(int nb, double mg, double mb, double a, double v, int obl, double t_end) {
  return sweep_scene_limited(nb, mg, mb, a, v, obl, t_end, 0.0, 0);
}

/* Contact LCPs Lemke does not solve as they are (scripts/event_stack_sweep.py's
 * n3_g0.3_b0.6_a0.35_v5_o1 and n3_g0.3_b0.6_a0.25_v5_o1: a 0.7 or 0.5 m cube thrown at
 * (4.5, 1.5) m/s over a stack of a 1 m and a 0.8 m cube, box mu 0.6, ground mu 0.3). At
 * 0.155567 s and 0.136145 s the lower box tips on its edge, its two ground corners sliding
 * (columns N - mu s T: M not copositive-plus) under the middle box's four sticking corners
 * (coplanar, degenerate ties): the 26- and 32-variable acceleration LCPs are solvable
 * (Siconos' Lemke, Newton-FB), but Lemke broke down or ended on a ray on them and on
 * their perturbed copies, and the runs stopped there. Lemke on the Jacobi-scaled copy
 * solves them (contact_lcp). Checked: each run passes its failure (to 0.1565 s and 0.14
 * s), every sample delivered, the energy never rising between samples by more than 1e-8 J
 * (CVODE's error at rtol 1e-12 on ~40 J is 1e-10 J; measured: no rise). */
static void test_scaled_lemke_retry(void **state) {
  (void)state;
  const double half[2] = {0.35, 0.25}, t_end[2] = {0.1565, 0.14};
  for (int k = 0; k < 2; ++k) {
    SweepRun r = sweep_scene(3, 0.3, 0.6, half[k], 5.0, 1, t_end[k]);
    if (r.rc) fail_msg("a = %g: %s", half[k], r.err);
    assert_int_equal(r.samples, (int)floor(t_end[k] / 0.01 + 1e-9));
    if (r.rise > 1e-8) fail_msg("a = %g: energy rose by %.3g J at %g s", half[k], r.rise, r.t_rise);
  }
}

/* A force root located as finely as the flow resolves its forces (scripts/
 * event_stack_sweep.py's n3_g0.05_b0.3_a0.35_v5_o1: a 0.7 m cube thrown at (4.5, 1.5) m/s
 * over a 1 m and a 0.8 m cube, box mu 0.3, ground mu 0.05). At 0.1796 s the top box's
 * sliding contact on the middle box lifts off; its force, the least-norm split of 26 rows
 * with sliding ones, moves by up to 6e-10 N under round-off of the state, and the root,
 * asked for 1e-10 N, stopped the run on a bracket at the resolution of time with |g| =
 * 1.95e-10 N. A force root whose bracket reaches the resolution of time within
 * FORCE_RESOLUTION = 1e-8 N is now located there. Checked to 0.3 s: the run completes,
 * every sample delivered, the energy never rising between samples by more than 1e-8 J (as
 * above; measured: no rise), no persistent contact pulling (normal force below -1e-8 N,
 * the force roots' resolution). */
static void test_force_root_resolution(void **state) {
  (void)state;
  SweepRun r = sweep_scene(3, 0.05, 0.3, 0.35, 5.0, 1, 0.3);
  if (r.rc) fail_msg("%s", r.err);
  assert_int_equal(r.samples, 30);
  if (r.rise > 1e-8) fail_msg("energy rose by %.3g J at %g s", r.rise, r.t_rise);
  if (r.fmin < -1e-8) fail_msg("a persistent contact pulls with %.3g N at %g s", r.fmin, r.t_fmin);
}

/* A slide the event's LCP starts from rest leaving the event slipping against its
 * direction (scripts/event_stack_sweep.py's n3_g0.3_b0.6_a0.35_v5_o1, as in
 * test_scaled_lemke_retry). At 0.15697752 s the top box lands on the middle one and the
 * LCP slides a corner of the middle box at rest on the lower one along s; project_rest,
 * removing the landing's rebound, holds normal rows and sticking tangent rows only, and
 * left that corner slipping at 2.56e-5 m/s with v_t . s = -2.5e-5 (friction doing
 * positive work). Its slip root started below 0 and never fired; where v_t . s reached
 * -SLIP_BLEND the flow's friction direction turned by 90 degrees at once and a ground
 * corner's cone root jumped by 1.2 N: the run stopped at 0.156986 s. The event is now
 * resolved again from the projected velocities (resolve_event), the corner sliding along
 * its slip. Checked to 0.2 s: the run completes, every sample delivered, the energy never
 * rising between samples by more than 1e-8 J (as above), no persistent contact pulling
 * beyond the force roots' resolution (1e-8 N). */
static void test_slide_against_slip_resolved(void **state) {
  (void)state;
  SweepRun r = sweep_scene(3, 0.3, 0.6, 0.35, 5.0, 1, 0.2);
  if (r.rc) fail_msg("%s", r.err);
  assert_int_equal(r.samples, 20);
  if (r.rise > 1e-8) fail_msg("energy rose by %.3g J at %g s", r.rise, r.t_rise);
  if (r.fmin < -1e-8) fail_msg("a persistent contact pulls with %.3g N at %g s", r.fmin, r.t_fmin);
}

/* A force root noisier than its resolution (scripts/event_stack_sweep.py's
 * n3_g0_b0.3_a0.35_v3.5_o1: a 0.7 m cube thrown at (3.15, 1.05) m/s over a 1 m and a 0.8
 * m cube, box mu 0.3, frictionless ground). At 0.312273 s the top box's sliding contact on
 * the middle box lifts off; its force, split among redundant rows with sliding ones,
 * took values from -1.17e-8 to +1.5e-8 N within 1e-12 s of its root, and the bisection
 * ended at the resolution of time on -1.17e-8 N, beyond FORCE_RESOLUTION (1e-8 N), after
 * points on the same side at -5.3e-9, -2.8e-9 and -2.4e-9 N: the run stopped there. The
 * root is now located at the last of those (lsim_ode_set_root_resolution). Checked to
 * 0.355 s: the run completes, every sample delivered, the energy never rising between
 * samples by more than 1e-8 J (as above), no persistent contact pulling beyond 1e-8 N. */
static void test_noisy_force_root(void **state) {
  (void)state;
  SweepRun r = sweep_scene(3, 0.0, 0.3, 0.35, 3.5, 1, 0.355);
  if (r.rc) fail_msg("%s", r.err);
  assert_int_equal(r.samples, 35);
  if (r.rise > 1e-8) fail_msg("energy rose by %.3g J at %g s", r.rise, r.t_rise);
  if (r.fmin < -1e-8) fail_msg("a persistent contact pulls with %.3g N at %g s", r.fmin, r.t_fmin);
}

/* Slides from rest whose slip turns away from their direction (scripts/
 * event_stack_sweep.py's n3_g0.3_b0.6_a{0.25,0.35}_v3.5_o1: a 0.5 or 0.7 m cube thrown at
 * (3.15, 1.05) m/s over a 1 m and a 0.8 m cube, box mu 0.6, ground mu 0.3). At 0.2131752 s
 * (a = 0.25) and 0.2311989 s (0.35) the middle box's corners on the lower box start to
 * slide from rest along directions s of the acceleration LCP's polyhedral cone; their slips
 * went against s and were held at v_t = -SLIP_BLEND s, where the flow's friction direction
 * (along v_t + SLIP_BLEND s) is undefined and swung between evaluations: CVODE crawled
 * (2.1e5 evaluations in 15 s at one time, no sample after). Such a slide now has a
 * direction root that ends the segment when its slip parts from s by more than the cone's
 * half-angle, and it slides on along its slip; the contacts such slides lift off still
 * 2e-6 to 6e-6 m inside their partners count their gaps from there (a penetration at
 * 0.27 s without). Checked to 0.3 s within 60 s of CPU time
 * (about 1 s now, 5 s under the sanitizers; before, the timer interrupts the crawl): the
 * runs complete, every sample delivered, the energy never rising between samples by more
 * than 1e-8 J (CVODE's error at rtol 1e-12 on ~40 J is 1e-10 J; measured: no rise above
 * 2.3e-12 J to 2 s), no persistent contact pulling by more than 1e-7 N (a tenth of
 * FORCE_RESOLUTION, 1e-6 N, within which a force root is accepted). */
static void test_slide_from_rest_turns(void **state) {
  (void)state;
  const double half[2] = {0.25, 0.35};
  for (int k = 0; k < 2; ++k) {
    SweepRun r = sweep_scene_limited(3, 0.3, 0.6, half[k], 3.5, 1, 0.3, 0.0, 60);
    if (r.rc) fail_msg("a = %g: %s", half[k], r.err);
    assert_int_equal(r.samples, 30);
    if (r.rise > 1e-8) fail_msg("a = %g: energy rose by %.3g J at %g s", half[k], r.rise, r.t_rise);
    if (r.fmin < -1e-7) fail_msg("a = %g: a persistent contact pulls with %.3g N at %g s", half[k], r.fmin, r.t_fmin);
  }
}

/* A force root noisier than 1e-8 N (scripts/event_stack_sweep.py's
 * n3_g0.3_b0.6_a0.25_v2_o1: a 0.5 m cube thrown at (1.8, 0.6) m/s over a 1 m and a 0.8 m
 * cube, box mu 0.6, ground mu 0.3). At 0.373248 s the top box's second edge lands on the
 * middle box and eight contacts of the stack start or go on sliding within 1e-6 m/s of
 * rest. The run stopped at 0.373251 s on a force root jumping by 0.022 N, a slide from
 * rest held at v_t = -SLIP_BLEND s (test_slide_from_rest_turns); with the direction root,
 * at 0.3732518 s on a force root whose values within 2.8e-16 s of its root spanned 1.8e-8
 * N, above the 1e-8 N FORCE_RESOLUTION was then (now 1e-6 N). Checked to 0.4 s: the run
 * completes, every sample delivered, the energy never rising between samples by more than
 * 1e-8 J (as above; measured 2.6e-10 J to 2 s), no persistent contact pulling by more
 * than 1e-7 N (as above). */
static void test_stack_lands_on_slides_from_rest(void **state) {
  (void)state;
  SweepRun r = sweep_scene_limited(3, 0.3, 0.6, 0.25, 2.0, 1, 0.4, 0.0, 60);
  if (r.rc) fail_msg("%s", r.err);
  assert_int_equal(r.samples, 40);
  if (r.rise > 1e-8) fail_msg("energy rose by %.3g J at %g s", r.rise, r.t_rise);
  if (r.fmin < -1e-7) fail_msg("a persistent contact pulls with %.3g N at %g s", r.fmin, r.t_fmin);
}

/* A feature held by a persistent contact released continuously (scripts/
 * event_stack_sweep.py's n3_g0_b0.3_a0.35_v2_o0: a 0.7 m cube thrown at 2 m/s over a 1 m
 * and a 0.8 m cube, box mu 0.3, frictionless ground). From 0.9596 s the top box's corner
 * 0x20000041818 slides persistently on the lower box 9.0e-6 m inside it (Baumgarte's
 * 0.1 s has not closed it), an edge crossing 0x20000042441 at its depth beside it: held
 * (within HELD_NEAR, 1e-6 m) it is no root of the pair's gap, and where the corner's slide
 * took it past HELD_NEAR the pair's gap fell from 6.06e-4 m (the next feature) to
 * -9.0e-6 m between two evaluations: the run stopped at 0.960644 s. Now the held feature's
 * gap is raised by the persistent contact's depth (plus contact_tol), fading out between
 * HELD_NEAR and HELD_FAR; it crosses 0 there and the crossing joins the contacts; when it
 * lifts off (0.98732 s, still 6e-6 m inside) its pair's gap root counts its gap from that
 * depth (Cand.sink), not from 0 (a penetration of 6.2e-6 m reported at 0.99 s without).
 * Checked to 1.0 s: the run completes, every sample delivered; from the sample at 0.95 s
 * on the energy never rises between samples by more than 1e-8 J (as above; measured
 * 8.4e-12 J to 2 s) and no persistent contact pulls by more than 1e-7 N. Earlier,
 * before and after this change alike, a contact of the top box admitted at 0.692 s pulls
 * (-2.49 N at 0.85 s) and the energy rises by 0.19 J up to its liftoff at 0.8818 s (left:
 * docs/hybrid.md). */
static void test_held_feature_released(void **state) {
  (void)state;
  SweepRun r = sweep_scene_limited(3, 0.0, 0.3, 0.35, 2.0, 0, 1.0, 0.95, 60);
  if (r.rc) fail_msg("%s", r.err);
  assert_int_equal(r.samples, 100);
  if (r.rise > 1e-8) fail_msg("energy rose by %.3g J at %g s", r.rise, r.t_rise);
  if (r.fmin < -1e-7) fail_msg("a persistent contact pulls with %.3g N at %g s", r.fmin, r.t_fmin);
}

/* A pulled contact released once its partner is (scripts/event_stack_sweep.py's
 * n3_g0_b0.3_a0.35_v2_o0, as in test_held_feature_released). At 0.692184 s two sliding
 * contacts of the top box on the middle one are admitted with zero force, both pulled by
 * the flow; 0x30000040548, released, would sink at 1.28e-9 m/s^2, beyond the 1e-9 then
 * allowed, and was kept while its partner was released: it pulled up to -2.49 N until it
 * left at 0.8818 s and its friction added 0.19 J (0.0189 J between the samples at 0.87 and
 * 0.88 s). A released contact may now sink at up to PULL_SINK (1e-6 m/s^2, 1e-8 m in
 * 0.14 s), and those kept are tried again after a release. Checked to 0.9 s: every sample
 * delivered (a sample whose persistent contact pulls beyond 1e-5 N stops the run, as it
 * stopped this one at 0.70 s with the 1e-9), the energy never rising between samples by
 * more than 1e-8 J (as above; measured 3.3e-11 J to 2 s), no persistent contact pulling
 * by more than 1e-7 N. */
static void test_pulled_contact_released_after_partner(void **state) {
  (void)state;
  SweepRun r = sweep_scene_limited(3, 0.0, 0.3, 0.35, 2.0, 0, 0.9, 0.0, 60);
  if (r.rc) fail_msg("%s", r.err);
  assert_int_equal(r.samples, 90);
  if (r.rise > 1e-8) fail_msg("energy rose by %.3g J at %g s", r.rise, r.t_rise);
  if (r.fmin < -1e-7) fail_msg("a persistent contact pulls with %.3g N at %g s", r.fmin, r.t_fmin);
}

/* A contact's tangent basis kept across the jump of detection's (scripts/
 * event_stack_sweep.py's n3_g0.3_b0.3_a0.25_v2_o1 and n2_g0.05_b0.3_a0.25_v2_o1: a 0.5 m
 * cube thrown at (1.8, 0.6) m/s over a 1 m and a 0.8 m cube, or over the 1 m cube alone,
 * box mu 0.3, ground mu 0.3 or 0.05). The top box tips over the lower box's edge with two
 * contacts sliding on its own face; detection's tangents (lsim_v3_tangents, a function of
 * the normal) turn by 90 degrees where that face's normal passes |n_x| = 0.57735 (tipped
 * by 35.3 degrees), and with them the slip v_t and the friction's direction s, kept in the
 * segment's basis: the slip root of 0x30000041d50 jumped from 0.270 to -0.0546 m/s at
 * 0.530151 s, and in the 2-box stack a ground corner's cone root by 1.18 N at 0.826314 s
 * (the top box's friction turning with the basis): both runs stopped there, as did the
 * sweep's 6 other runs left (each with that face's |n_x| at 0.557 to 0.577 at its last
 * sample). A candidate now keeps its basis's axis (lsim_ed_detect). Checked to 0.6 s and
 * 0.9 s, past the jumps: every sample delivered, the energy never rising between samples
 * by more than 1e-8 J (CVODE's error at rtol 1e-12 on ~40 J is 1e-10 J), no persistent
 * contact pulling by more than 1e-7 N (a tenth of FORCE_RESOLUTION). */
static void test_tangent_basis_kept(void **state) {
  (void)state;
  const int nb[2] = {3, 2};
  const double mg[2] = {0.3, 0.05}, t_end[2] = {0.6, 0.9};
  for (int k = 0; k < 2; ++k) {
    SweepRun r = sweep_scene_limited(nb[k], mg[k], 0.3, 0.25, 2.0, 1, t_end[k], 0.0, 60);
    if (r.rc) fail_msg("%d boxes: %s", nb[k], r.err);
    assert_int_equal(r.samples, (int)lround(t_end[k] / 0.01));
    if (r.rise > 1e-8) fail_msg("%d boxes: energy rose by %.3g J at %g s", nb[k], r.rise, r.t_rise);
    if (r.fmin < -1e-7) fail_msg("%d boxes: a persistent contact pulls with %.3g N at %g s", nb[k], r.fmin, r.t_fmin);
  }
}

/* Two blocks hinged at the middle of their end faces (tests/data/pinned_boxes_rope.json
 * event-driven: 2-D, 0.2 x 0.01 m, 0.05 kg each, a pinned to b at (0.2, 0.1) with
 * "collide" true, a on a 0.112 m rope, a floor below). The end faces are flush, so
 * detection's choice of reference side between the two rectangles ties, and a rotation
 * of round-off flipped it: the corner touching came out under the other side's feature
 * id, and the run stopped at t = 2.2e-16 s with "a persistent contact vanished from
 * detection". Run to 0.5 s (the blocks land at 0.12 s): every sample delivered, the
 * energy never above its start by 1e-9 J (CVODE's error at rtol 1e-12 on 0.1 J is 1e-13 J;
 * measured: never above it, the largest rise between samples -8.6e-15 J), the hinge
 * locked by its corners to 1e-9 rad (measured 6.8e-12 rad: the joint's Baumgarte). */
typedef struct HingeRun {
  int samples;
  double e0, rise, bend;
} HingeRun;

static int keep_hinge(const LsimModel *m, const LsimState *st, const LsimContactSet *cs, void *user) {
  (void)cs;
  HingeRun *r = user;
  const double e = lsim_kinetic_energy(m, st) + lsim_potential_energy(m, st);
  if (r->samples++ == 0) r->e0 = e;
  r->rise = fmax(r->rise, e - r->e0);
  const double *qa = st->q + m->bodies[1].q_offset, *qb = st->q + m->bodies[2].q_offset;
  r->bend = fmax(r->bend, fabs(qa[2] - qb[2]));
  return 0;
}

/* The scenes' floor on an event-driven time step (contact/world.h) is the ODE engine's
 * (hybrid/ode.h), so a scene that passes its check is one CVODE can step. A test, not a
 * _Static_assert: a comparison of floating constants is no integer constant expression
 * for clang. */
static void test_time_floors_agree(void **state) {
  (void)state;
  assert_true(LSIM_EVENT_TIME_FLOOR == LSIM_ODE_TIME_FLOOR);
}

static void test_flush_hinge_runs(void **state) {
  (void)state;
  const char *json =
      "{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.01, \"duration\": 0.5,"
      " \"integrator\": \"event_driven\", \"gravity\": [0, -9.81],"
      " \"bodies\": [{\"name\": \"floor\", \"type\": \"static\", \"shapes\": [{\"type\": \"plane\", \"mu\": 0.5}]},"
      "  {\"name\": \"a\", \"mass\": 0.05, \"position\": [0.1, 0.1],"
      "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.1, 0.005], \"mu\": 0.5}]},"
      "  {\"name\": \"b\", \"mass\": 0.05, \"position\": [0.30000000000000004, 0.1],"
      "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.1, 0.005], \"mu\": 0.5}]}],"
      " \"tethers\": [{\"name\": \"rope\", \"length\": 0.11180339987498948,"
      "   \"ends\": [{\"body\": \"a\", \"point\": [-0.1, 0]}, {\"world\": [0.1, 0.15]}]}],"
      " \"joints\": [{\"name\": \"pin\", \"type\": \"pin\", \"collide\": true,"
      "   \"ends\": [{\"body\": \"b\", \"point\": [-0.1, 0]}, {\"body\": \"a\", \"point\": [0.1, 0]}]}]}";
  LsimModel m;
  LsimState st;
  LsimSceneError se;
  if (lsim_scene_parse(json, "test", &m, &st, &se)) fail_msg("scene: %s", se.message);
  LsimEventOptions o = lsim_event_options_for_model(&m);
  LsimEventLog log;
  memset(&log, 0, sizeof log);
  HingeRun r = {0};
  char err[256] = "";
  const int rc = lsim_event_driven_run(&m, &st, 0.5, &o, keep_hinge, &r, &log, err, sizeof err);
  if (rc) fail_msg("stopped after %d samples: %s", r.samples, err);
  assert_int_equal(r.samples, 50);
  if (r.rise > 1e-9) fail_msg("energy rose %.3g J above its start", r.rise);
  if (r.bend > 1e-9) fail_msg("the hinge bent by %.3g rad", r.bend);
  lsim_event_log_free(&log);
  lsim_state_free(&st);
  lsim_model_free(&m);
}

/* The scene json run event-driven to t_end under a 60 s CPU limit, sample(user) called at
 * each sample: lsim_event_driven_run's status, err its message, *t the time reached. */
static int run_scene_timed(const char *json, double t_end, LsimEventSampleFn sample, void *user,
                           double *t, char *err, size_t errlen) {
  LsimModel m;
  LsimState st;
  LsimSceneError se;
  if (lsim_scene_parse(json, "test", &m, &st, &se)) fail_msg("scene: %s", se.message);
  LsimEventOptions o = lsim_event_options_for_model(&m);
  timer_t timer;
  cpu_limit_start(&o, 60, &timer);
  const int rc = lsim_event_driven_run(&m, &st, t_end, &o, sample, user, NULL, err, errlen);
  cpu_limit_end(timer);
  *t = st.time;
  lsim_state_free(&st);
  lsim_model_free(&m);
  return rc;
}

/* The hinge's bend in 3-D: the angle of b's rotation relative to a's, 2 |vec(conj(qa) qb)|
 * (accurate for small angles, where 2 acos of the dot product is not). */
static int keep_hinge3(const LsimModel *m, const LsimState *st, const LsimContactSet *cs, void *user) {
  (void)cs;
  HingeRun *r = user;
  const double e = lsim_kinetic_energy(m, st) + lsim_potential_energy(m, st);
  if (r->samples++ == 0) r->e0 = e;
  r->rise = fmax(r->rise, e - r->e0);
  const double *qa = st->q + m->bodies[1].q_offset + 3, *qb = st->q + m->bodies[2].q_offset + 3;
  double v[3], c[3];
  lsim_v3_cross(c, qa + 1, qb + 1);
  for (int k = 0; k < 3; ++k) v[k] = qa[0] * qb[1 + k] - qb[0] * qa[1 + k] - c[k];
  r->bend = fmax(r->bend, 2.0 * lsim_v3_norm(v));
  return 0;
}

/* test_flush_hinge_runs in 3-D (the x-z plane): boxes 0.2 x 0.01 x 0.01 m at one height,
 * pinned at the middle of their touching end faces. Two equal boxes order by height in
 * lsim_collide, so the pair's order, and with it which vertex a face contact's feature
 * names, turned on round-off of a height: a persistent corner followed by its feature in
 * the other order was the other box's corner, 0.4 m through the boxes (gap -0.4 m), and
 * its Baumgarte term held it with 91 N where 0.61 N holds the hinge. CVODE's difference
 * quotients crossed that tie at every Jacobian: steps of 1e-16 to 1e-13 s from t = 0, no
 * sample in 60 s. Now the followed vertex keeps the order it had at its event. Run to
 * 0.2 s (the floor lands at 0.1218 s) within 60 s of the process's CPU time (about 1 s
 * plain, the sanitizers' build within it; the run before crawled at about 1e-8 s of
 * simulated time per CPU second); the energy never above its start by more than CVODE's
 * error (1e-9 J of 0.098 J), the hinge locked by its corners (1e-9 rad: 9.9e-11 over 1 s
 * measured). */
static void test_flush_hinge_3d_runs(void **state) {
  (void)state;
  const char *json =
      "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.01, \"duration\": 0.2,"
      " \"integrator\": \"event_driven\", \"gravity\": [0, 0, -9.81],"
      " \"bodies\": [{\"name\": \"floor\", \"type\": \"static\", \"shapes\": [{\"type\": \"plane\", \"mu\": 0.5}]},"
      "  {\"name\": \"a\", \"mass\": 0.05, \"position\": [0.1, 0, 0.1],"
      "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.1, 0.005, 0.005], \"mu\": 0.5}]},"
      "  {\"name\": \"b\", \"mass\": 0.05, \"position\": [0.30000000000000004, 0, 0.1],"
      "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.1, 0.005, 0.005], \"mu\": 0.5}]}],"
      " \"tethers\": [{\"name\": \"rope\", \"length\": 0.11180339987498948,"
      "   \"ends\": [{\"body\": \"a\", \"point\": [-0.1, 0, 0]}, {\"world\": [0.1, 0, 0.15]}]}],"
      " \"joints\": [{\"name\": \"pin\", \"type\": \"pin\", \"collide\": true,"
      "   \"ends\": [{\"body\": \"b\", \"point\": [-0.1, 0, 0]}, {\"body\": \"a\", \"point\": [0.1, 0, 0]}]}]}";
  HingeRun r = {0};
  char err[256] = "";
  double t;
  const int rc = run_scene_timed(json, 0.2, keep_hinge3, &r, &t, err, sizeof err);
  if (rc) fail_msg("stopped (rc %d) at t = %.3g s after %d samples: %s", rc, t, r.samples, err);
  assert_int_equal(r.samples, 20);
  if (r.rise > 1e-9) fail_msg("energy rose %.3g J above its start", r.rise);
  if (r.bend > 1e-9) fail_msg("the hinge bent by %.3g rad", r.bend);
}

/* A scene moved X along x, run event-driven: its samples' q with X taken off the bodies'
 * x (2-D: x, y, theta per body; 3-D: x, y, z, quaternion). */
typedef struct FarRun {
  int samples, dim, nq;
  double X, q[100][14];
} FarRun;

static int keep_far(const LsimModel *m, const LsimState *st, const LsimContactSet *cs, void *user) {
  (void)cs;
  FarRun *r = user;
  if (r->samples < 100 && m->nq <= 14) {
    for (int k = 0; k < m->nq; ++k) r->q[r->samples][k] = st->q[k];
    for (int b = 0; b < m->nbodies; ++b)
      if (m->bodies[b].q_offset >= 0) r->q[r->samples][m->bodies[b].q_offset] -= r->X;
  }
  r->nq = m->nq, r->dim = m->dimension;
  r->samples++;
  return 0;
}

static void run_far(const char *json, double X, double t_end, FarRun *r) {
  memset(r, 0, sizeof *r);
  r->X = X;
  char err[256] = "";
  double t;
  const int rc = run_scene_timed(json, t_end, keep_far, r, &t, err, sizeof err);
  if (rc) fail_msg("moved %g m: stopped (rc %d) at t = %.3g s after %d samples: %s", X, rc, t, r->samples, err);
}

/* The largest differences of two runs' samples: positions (m) and orientations (2-D: rad;
 * 3-D: quaternion components, about half the angle). */
static void far_diff(const FarRun *a, const FarRun *b, double *dpos, double *drot) {
  *dpos = *drot = 0.0;
  const int per = a->dim == 2 ? 3 : 7;
  for (int i = 0; i < a->samples && i < 100; ++i)
    for (int k = 0; k < a->nq; ++k) {
      const double d = fabs(a->q[i][k] - b->q[i][k]);
      if (k % per < a->dim) *dpos = fmax(*dpos, d);
      else *drot = fmax(*drot, d);
    }
}

/* Event-driven runs far from the world's origin (docs/scene-format.md, "Far from the
 * world's origin"). Two 1 m bars (2-D, 1 kg, 0.05 m thick), the first pinned to the world
 * at its end, the second to the first at their flush end faces ("collide" true), released
 * level: the second bar's end-face corners touch the first's face beside the pin, and at
 * 0.6836 s the touching corner changes (a force root and a contact at once, round-off
 * deciding each). Moved 100 m along x the run stopped at 0.387 s, moved 1000 m at 3e-16 s
 * ("a persistent contact vanished from detection": CVODE's difference-quotient Jacobian
 * perturbed a position by 1.5e-8 |x|, moving a bar 1.5e-5 m into the other, past the 1e-6 m
 * within which a corner keeps its id); with that perturbation held to 1.5e-8 * 16 m, the
 * curvature's difference (its round-off divided by 1e-6 s) left the event's LCP at 0.6836
 * s without a solution at 1000 m, and a corner released there under the far detection's
 * other id sank unseen at 100 m. The 3-D hinge of test_flush_hinge_3d_runs moved 1000 m
 * along x ran (in 3 s of CPU, 0.5 s now). Each now runs to its end and keeps the run at
 * the origin to 1e-6 (m, rad; 3-D quaternion components). The run's own sensitivity to
 * round-off of that size (the second bar started 1e-13 m higher, the round-off of a 1000 m
 * coordinate, or turned by 1e-13 rad) is 3e-11 m and 3.4e-11 rad (CVODE's step sequence
 * changes; rtol 1e-12), but the corner change at 0.6836 s is settled by round-off either
 * way, and its other outcome ends 6.2e-8 m and 2.7e-7 rad away (measured at 2000 and 10 000
 * m, and at 100 m after a change of rounding in the contacts' rows elsewhere); 1e-6 holds
 * both outcomes, 15 times below the 1.5e-5 m the old perturbation moved a bar. Measured
 * 4.6e-11 m and 1.5e-10 rad for the bars at 100 and 1000 m on one rounding, 6.2e-8 m and
 * 2.7e-7 rad at 100 m on the other; 1e-10 m and 5e-10 for the hinge at 100 m, 9e-12 at
 * 1000 m. */
static void test_far_from_origin(void **state) {
  (void)state;
  static const char bars[] =
      "{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.01, \"duration\": 0.8,"
      " \"integrator\": \"event_driven\", \"gravity\": [0, -9.81],"
      " \"bodies\": [{\"name\": \"a\", \"mass\": 1.0, \"position\": [%.17g, 0],"
      "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.5, 0.025]}]},"
      "  {\"name\": \"b\", \"mass\": 1.0, \"position\": [%.17g, 0],"
      "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.5, 0.025]}]}],"
      " \"joints\": [{\"name\": \"shoulder\", \"type\": \"pin\","
      "   \"ends\": [{\"body\": \"a\", \"point\": [-0.5, 0]}, {\"world\": [%.17g, 0]}]},"
      "  {\"name\": \"elbow\", \"type\": \"pin\", \"collide\": true,"
      "   \"ends\": [{\"body\": \"b\", \"point\": [-0.5, 0]}, {\"body\": \"a\", \"point\": [0.5, 0]}]}]}";
  static const char hinge[] =
      "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.01, \"duration\": 0.2,"
      " \"integrator\": \"event_driven\", \"gravity\": [0, 0, -9.81],"
      " \"bodies\": [{\"name\": \"floor\", \"type\": \"static\", \"shapes\": [{\"type\": \"plane\", \"mu\": 0.5}]},"
      "  {\"name\": \"a\", \"mass\": 0.05, \"position\": [%.17g, 0, 0.1],"
      "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.1, 0.005, 0.005], \"mu\": 0.5}]},"
      "  {\"name\": \"b\", \"mass\": 0.05, \"position\": [%.17g, 0, 0.1],"
      "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.1, 0.005, 0.005], \"mu\": 0.5}]}],"
      " \"tethers\": [{\"name\": \"rope\", \"length\": 0.11180339987498948,"
      "   \"ends\": [{\"body\": \"a\", \"point\": [-0.1, 0, 0]}, {\"world\": [%.17g, 0, 0.15]}]}],"
      " \"joints\": [{\"name\": \"pin\", \"type\": \"pin\", \"collide\": true,"
      "   \"ends\": [{\"body\": \"b\", \"point\": [-0.1, 0, 0]}, {\"body\": \"a\", \"point\": [0.1, 0, 0]}]}]}";
  static FarRun ref, far;
  char json[2048];
  for (int scene = 0; scene < 2; ++scene) {
    const double Xs[2][2] = {{100.0, 1000.0}, {1000.0, -1.0}};
    const double t_end = scene == 0 ? 0.8 : 0.2;
    for (int i = -1; i < 2; ++i) {
      const double X = i < 0 ? 0.0 : Xs[scene][i];
      if (X < 0.0) break;
      if (scene == 0) snprintf(json, sizeof json, bars, X + 0.5, X + 1.5, X);
      else snprintf(json, sizeof json, hinge, X + 0.1, X + 0.30000000000000004, X + 0.1);
      run_far(json, X, t_end, i < 0 ? &ref : &far);
      if (i < 0) continue;
      assert_int_equal(far.samples, ref.samples);
      double dpos, drot;
      far_diff(&ref, &far, &dpos, &drot);
      if (dpos > 1e-6 || drot > 1e-6)
        fail_msg("%s moved %g m: %.3g m, %.3g from the run at the origin", scene ? "hinge" : "bars", X, dpos, drot);
    }
  }
}

/* A scene file run event-driven to t_end: the samples delivered (t = 0 is not one), the
 * largest energy rise between samples (from the start) and above the start, the state at
 * the end. */
typedef struct FileRun {
  int samples;
  double e0, e_prev, rise, above;
} FileRun;

static int keep_file_run(const LsimModel *m, const LsimState *st, const LsimContactSet *cs, void *user) {
  (void)cs;
  FileRun *r = user;
  const double e = lsim_kinetic_energy(m, st) + lsim_potential_energy(m, st);
  r->rise = fmax(r->rise, e - r->e_prev);
  r->above = fmax(r->above, e - r->e0);
  r->e_prev = e;
  r->samples++;
  return 0;
}

static void run_file(const char *path, double t_end, LsimModel *m, LsimState *st, FileRun *r) {
  LsimSceneError se;
  char *text = NULL;
  if (lsim_scene_load(path, m, st, &text, &se)) fail_msg("%s: %s", path, se.message);
  free(text);
  LsimEventOptions o = lsim_event_options_for_model(m);
  memset(r, 0, sizeof *r);
  r->e0 = r->e_prev = lsim_kinetic_energy(m, st) + lsim_potential_energy(m, st);
  char err[512] = "";
  const int rc = lsim_event_driven_run(m, st, t_end, &o, keep_file_run, r, NULL, err, sizeof err);
  if (rc) fail_msg("%s stopped after %d samples: %s", path, r->samples, err);
}

/* A box of 1e-300 kg (tests/data/box_drop_tiny_mass_2d.json, 2-D, 0.5 x 0.25 m, tilted
 * 0.1 rad, dropped from 0.2 m) lands as one of 1 kg does: its forces are 1e-299 N, and the
 * flow's least-norm solve underflowed them to 0 (B (B'B)^-2 B' b ~ 10 / 1e600), so its
 * persistent corner held nothing and the box fell 6.7 mm into the ground before the other
 * corner's gap root fired; with that solve scaled, every force compared with the event's
 * tolerances in N (1e-10) was "zero" and the corners took turns lifting off (416834
 * events), and Lemke dropped the contact LCP's cone couplings (1, mu) beside W ~ 1e300.
 * Before: stopped at 0.15 s ("an impact was not located"). Now, to 3 s: the box on its long
 * face (centre 0.125 m up to 1e-9 m, at rest to 1e-9 m/s), the energy never above its
 * start by more than 1e-12 of it (round-off; it is 2e-300 J), and the final state that of
 * the same box of 1 kg (the scene's path scales with the mass: positions to 1e-9 m). */
static void test_tiny_mass_lands(void **state) {
  (void)state;
  LsimModel m;
  LsimState st;
  FileRun r;
  run_file("tests/data/box_drop_tiny_mass_2d.json", 3.0, &m, &st, &r);
  assert_int_equal(r.samples, 300); /* t = 0.01 .. 3 s */
  if (r.above > 1e-12 * r.e0) fail_msg("energy %.3g J above its start %.3g J", r.above, r.e0);
  const double y = st.q[m.bodies[1].q_offset + 1], th = st.q[m.bodies[1].q_offset + 2];
  if (fabs(y - 0.125) > 1e-9) fail_msg("centre at %.12g m, not on its long face", y);
  for (int d = 0; d < 3; ++d)
    if (fabs(st.v[m.bodies[1].v_offset + d]) > 1e-9) fail_msg("v[%d] = %.3g", d, st.v[m.bodies[1].v_offset + d]);
  /* The same box of 1 kg. */
  LsimModel m1;
  LsimState s1;
  LsimSceneError se;
  char *text = NULL;
  if (lsim_scene_load("tests/data/box_drop_tiny_mass_2d.json", &m1, &s1, &text, &se)) fail_msg("%s", se.message);
  free(text);
  m1.bodies[1].mass = 1.0;
  for (int k = 0; k < 9; ++k) m1.bodies[1].inertia[k] *= 1e300;
  LsimEventOptions o = lsim_event_options_for_model(&m1);
  char err[512] = "";
  if (lsim_event_driven_run(&m1, &s1, 3.0, &o, NULL, NULL, NULL, err, sizeof err)) fail_msg("1 kg: %s", err);
  const double x1 = s1.q[m1.bodies[1].q_offset], th1 = s1.q[m1.bodies[1].q_offset + 2];
  if (fabs(st.q[m.bodies[1].q_offset] - x1) > 1e-9 || fabs(th - th1) > 1e-9)
    fail_msg("x %.12g th %.12g; 1 kg: x %.12g th %.12g", st.q[m.bodies[1].q_offset], th, x1, th1);
  lsim_state_free(&s1);
  lsim_model_free(&m1);
  lsim_state_free(&st);
  lsim_model_free(&m);
}

/* data/chain_20.json event-driven (20 pinned capsules of 0.1 kg falling onto the ground,
 * mu 0.5), to 0.7 s. Before: stopped at 0.48 s ("bodies 18-0 interpenetrate by 1.4e-06 m:
 * an impact was not located"): link17's end 0x130000010000, free, closed at rest (gap
 * -7e-17 m) at the event of 0.477387 s, was left free by the acceleration LCP on a
 * round-off acceleration (2.8e-8 m/s^2), and its pair's root, held at 0 from the event,
 * did not see it sink. Released (its pair's root from -contact_tol), it is located. Then
 * Lemke's scaled copy solved a 120-variable contact LCP to 1.7e-12 max|q| (refused above
 * 1e-12 at 0.514606 s; now 1e-9, as the perturbed copy), and every Lemke run broke down on
 * a 148-variable one at 0.683216 s, which newton solves (each of the three changes alone
 * off stops the run). Checked: every sample delivered, the energy never rising between
 * samples by more than 1e-9 J (measured 3.4e-13 J over the whole 3 s; impacts and
 * friction only take energy, CVODE's error at rtol 1e-12 on 18 J is 1e-11 J). */
static void test_chain_lands(void **state) {
  (void)state;
  LsimModel m;
  LsimState st;
  FileRun r;
  run_file("data/chain_20.json", 0.7, &m, &st, &r);
  if (r.samples < 139) fail_msg("%d samples", r.samples); /* t = 0.005 .. 0.695 s, 0.7 s */
  if (r.rise > 1e-9) fail_msg("energy rose %.3g J between samples", r.rise);
  if (r.above > 1e-9) fail_msg("energy %.3g J above its start", r.above);
  lsim_state_free(&st);
  lsim_model_free(&m);
}

/* The kept basis retaken at an event once the normal has turned near its axis. A plank
 * (4 kg, 2 x 1 x 0.1 m) hinged at one end about y by two ball joints, tilted 20 degrees,
 * falls about the hinge; a 0.1 m cube (0.1 kg) starts on it, leaves it, and lands on it
 * again after the plank has hit the ground (a plane 1.9 m below the hinge), with its top
 * face's |n_x| at 0.94. The cube's contacts on the plank, candidates from the start (their
 * basis about x), are past |n . x| = 0.9 at the plank's landing at 0.6008 s, where resolve
 * takes detection's basis (about y) for them again (seen with a print, not kept). A guard,
 * not a defect's fix: the test passes with the kept basis too (a x n is still 0.34 long
 * there). The scene is symmetric in y, so a basis turned wrongly shows as motion along y.
 * Checked to
 * 1.5 s: every sample delivered, the cube's and the plank's y within 1e-9 m of 0 (measured
 * 1.1e-11 m: the joints' round-off), the energy never rising between samples by more than
 * 1e-8 J (the impacts are plastic; CVODE's error at rtol 1e-12 on ~40 J is 1e-10 J). */
typedef struct PlankRun {
  int samples;
  double e_prev, rise, ymax;
} PlankRun;

static int keep_plank(const LsimModel *m, const LsimState *st, const LsimContactSet *cs, void *user) {
  (void)cs;
  PlankRun *r = user;
  const double e = lsim_kinetic_energy(m, st) + lsim_potential_energy(m, st);
  if (r->samples > 0) r->rise = fmax(r->rise, e - r->e_prev);
  r->e_prev = e;
  for (int b = 1; b <= 2; ++b) r->ymax = fmax(r->ymax, fabs(st->q[m->bodies[b].q_offset + 1]));
  r->samples++;
  return 0;
}

static void test_tangent_basis_retaken(void **state) {
  (void)state;
  const double th = 20.0 * 3.14159265358979323846 / 180.0, c = cos(th), sn = sin(th);
  /* Rotation about y by th: local (x, 0, z) -> (c x + sn z, 0, -sn x + c z). The hinge is
     the plank's local (-1, 0, 0) at the origin; the cube's centre its local (-0.7, 0, 0.1). */
  char json[2048];
  snprintf(json, sizeof json,
           "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.01, \"duration\": 1.5,"
           " \"integrator\": \"event_driven\", \"gravity\": [0, 0, -9.81],"
           " \"bodies\": [{\"name\": \"ground\", \"type\": \"static\", \"position\": [0, 0, -1.9],"
           "   \"shapes\": [{\"type\": \"plane\", \"mu\": 0.3}]},"
           "  {\"name\": \"plank\", \"mass\": 4, \"position\": [%.17g, 0, %.17g],"
           "   \"orientation\": {\"axis\": [0, 1, 0], \"angle\": %.17g},"
           "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [1, 0.5, 0.05], \"mu\": 0.3}]},"
           "  {\"name\": \"cube\", \"mass\": 0.1, \"position\": [%.17g, 0, %.17g],"
           "   \"orientation\": {\"axis\": [0, 1, 0], \"angle\": %.17g},"
           "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.05, 0.05, 0.05], \"mu\": 0.3}]}],"
           " \"joints\": [{\"name\": \"h1\", \"type\": \"pin\", \"ends\": [{\"body\": \"plank\", \"point\": [-1, 0.5, 0]}, {\"world\": [0, 0.5, 0]}]},"
           "  {\"name\": \"h2\", \"type\": \"pin\", \"ends\": [{\"body\": \"plank\", \"point\": [-1, -0.5, 0]}, {\"world\": [0, -0.5, 0]}]}]}",
           c, -sn, th, c + (c * -0.7 + sn * 0.1), -sn + (-sn * -0.7 + c * 0.1), th);
  LsimModel m;
  LsimState st;
  LsimSceneError se;
  assert_int_equal(lsim_scene_parse(json, "plank", &m, &st, &se), 0);
  PlankRun r;
  memset(&r, 0, sizeof r);
  LsimEventOptions o = lsim_event_options_for_model(&m);
  char err[512] = "";
  if (lsim_event_driven_run(&m, &st, 1.5, &o, keep_plank, &r, NULL, err, sizeof err)) fail_msg("%s", err);
  assert_int_equal(r.samples, 150);
  if (r.ymax > 1e-9) fail_msg("a body left the plane y = 0 by %.3g m", r.ymax);
  if (r.rise > 1e-8) fail_msg("energy rose by %.3g J", r.rise);
  lsim_state_free(&st);
  lsim_model_free(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bouncing_ball), cmocka_unit_test(test_chatter_guard),
      cmocka_unit_test(test_slide_to_rest), cmocka_unit_test(test_rope_snap), cmocka_unit_test(test_liftoff), cmocka_unit_test(test_stick_to_slip),
      cmocka_unit_test(test_redundant_stick_to_slip), cmocka_unit_test(test_joints), cmocka_unit_test(test_joint_velocity_error_at_start), cmocka_unit_test(test_incline_off_axes),
      cmocka_unit_test(test_hollow_ball),   cmocka_unit_test(test_scope),
      cmocka_unit_test(test_impact_map),   cmocka_unit_test(test_impact_map_scope),   cmocka_unit_test(test_stop_flag),
      cmocka_unit_test(test_failure_time), cmocka_unit_test(test_cradle),
      cmocka_unit_test(test_flat_landing), cmocka_unit_test(test_spinning_pair),
      cmocka_unit_test(test_stack_slide), cmocka_unit_test(test_stack_stops_together),
      cmocka_unit_test(test_edge_tip), cmocka_unit_test(test_push_inside_circle),
      cmocka_unit_test(test_ball_slips_along_push), cmocka_unit_test(test_vanished_named),
      cmocka_unit_test(test_held_slide), cmocka_unit_test(test_rocking_landing),
      cmocka_unit_test(test_near_equal_landing),
      cmocka_unit_test(test_slide_stops_beside_box), cmocka_unit_test(test_tipping_slide_loses_energy),
      cmocka_unit_test(test_pulled_contact_lifts), cmocka_unit_test(test_scaled_lemke_retry),
      cmocka_unit_test(test_force_root_resolution), cmocka_unit_test(test_slide_against_slip_resolved),
      cmocka_unit_test(test_noisy_force_root), cmocka_unit_test(test_slide_from_rest_turns),
      cmocka_unit_test(test_stack_lands_on_slides_from_rest), cmocka_unit_test(test_held_feature_released),
      cmocka_unit_test(test_pulled_contact_released_after_partner),
      cmocka_unit_test(test_tangent_basis_kept),
      cmocka_unit_test(test_tangent_basis_retaken),
      cmocka_unit_test(test_flush_hinge_runs),
      cmocka_unit_test(test_flush_hinge_3d_runs),
      cmocka_unit_test(test_far_from_origin),
      cmocka_unit_test(test_time_floors_agree),
      cmocka_unit_test(test_tiny_mass_lands),
      cmocka_unit_test(test_chain_lands),
  };
  return cmocka_run_group_tests_name("event_driven", tests, NULL, NULL);
}
