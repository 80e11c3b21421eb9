/* slip.c: the spring-loaded inverted pendulum runner of SimSect's manual (section 4).
 *
 * A point mass m at the hip on a massless leg. Flight: a projectile under g_flight.
 * Stance: the leg pivots about its toe at (footx, footy) and a radial spring of
 * potential U(q_r) pushes the mass, with q_r the leg length and theta its angle from the
 * vertical (atan2(x - footx, y - footy)):
 *   xdd = F sin(theta) / m,  ydd = F cos(theta) / m - g_stance,  F = -dU/dq_r.
 * The spring law (the manual's equation 1), for integers i >= 1, j != 0:
 *   U(q_r) = k / |i j| (-sgn(j) (q_r^j - q_0^j))^i,
 * i = 2, j = 1 the linear spring k/2 (q_r - q_0)^2, the defaults i = 1, j = -2 the air
 * spring U = k/2 (q_r^-2 - q_0^-2), F = k / q_r^3.
 * Charts in their only order: ascent -> descent (the apex: ydot falls through 0) ->
 * compression (touchdown: y - q_rt cos(td) falls through 0, the toe placed at
 * (x + q_rt sin(td), y - q_rt cos(td))) -> decompression (bottom: -qdot_r falls through
 * 0) -> ascent (liftoff: q_rl - q_r falls through 0). Touchdown-angle control, at
 * liftoff: the manual's "trivial touchdown decision" sets td to the liftoff leg angle, so
 * the next touchdown mirrors the liftoff (neutrally stable symmetric strides). Parameter
 * td_policy = 1 (an addition) keeps td fixed at td_angle instead, which gives the
 * apex return map of a fixed touchdown angle. Transitions pick the next chart from the
 * state as init_chart does (additions for degenerate hops): touchdown into decompression
 * when the leg already lengthens, liftoff into descent when ydot <= 0, an apex below
 * touchdown height straight into stance; else each chart would be entered past its own
 * boundary, which then never fires.
 * With q_rt = q_rl = q_0 and g_stance = g_flight the model is conservative: the output
 * "energy", 1/2 m v^2 + m g y + U (U in stance only), is constant.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hybrid/model.h"
#include "hybrid/ode.h"

enum { X, Y, XD, YD, FOOTX, FOOTY, TD };
enum { M_BODY, Q_RT, Q_RL, G_STANCE, G_FLIGHT, FRAMERATE, Q_0, SPR_I, SPR_J, SPR_K, TD_POLICY,
       TD_ANGLE, NPARAMS };
enum { ASCENT, DESCENT, COMPRESSION, DECOMPRESSION };

static const char *const state_names[] = {"x", "y", "xdot", "ydot", "footx", "footy",
                                          "touchdown_angle"};
/* The manual's slip_InitSystem defaults. */
static const double default_state[] = {0.0, 0.9, 1.0, 0.0, 0.0, 0.0, 0.0};
static const char *const param_names[] = {"body_mass", "q_rt", "q_rl", "g_stance", "g_flight",
                                          "framerate", "q_0", "spri", "sprj", "k",
                                          "td_policy", "td_angle"};
static const double default_params[] = {50.48, 1.0, 1.0, 10, 10, 120, 1.0, 1.0, -2.0, 1000,
                                        0.0, 0.0};
static const char *const output_names[] = {"energy", "leg_length", "leg_angle", "leg_force"};
static const char *const state_units[] = {"m", "m", "m/s", "m/s", "m", "m", "rad"};
/* k's unit depends on the spring law (N/m for the linear spring, N m^2 for the air spring). */
static const char *const param_units[] = {"kg", "m", "m", "m/s^2", "m/s^2", "1/s", "m", "", "", "",
                                          "", "rad"};
static const char *const output_units[] = {"J", "m", "rad", "N"};

static const char *const b_apex[] = {"apex"};
static const char *const b_touchdown[] = {"touchdown"};
static const char *const b_bottom[] = {"bottom"};
static const char *const b_liftoff[] = {"liftoff"};
static const LsimHybridChart charts[] = {
    {"ascent", 1, b_apex, NULL},
    {"descent", 1, b_touchdown, NULL},
    {"compression", 1, b_bottom, NULL},
    {"decompression", 1, b_liftoff, NULL},
};

/* U(q) and dU/dq of the manual's spring law. */
static double spring_potential(double q, const double *p) {
  const double i = p[SPR_I], j = p[SPR_J];
  const double s = -(j > 0 ? 1.0 : -1.0) * (pow(q, j) - pow(p[Q_0], j));
  return p[SPR_K] / fabs(i * j) * pow(s, i);
}

static double spring_derivative(double q, const double *p) {
  const double i = p[SPR_I], j = p[SPR_J], k = p[SPR_K];
  if (i == 2 && j == 1) return k * (q - p[Q_0]);
  return k * i / (fabs(i) * fabs(j)) * pow(-(pow(q, j) - pow(p[Q_0], j)) * j / fabs(j), i - 1) *
         (-fabs(j) * pow(q, j - 1));
}

static int stance(int chart) { return chart == COMPRESSION || chart == DECOMPRESSION; }

static int check_params(const double *p, char *msg, size_t len) {
  const char *bad = NULL;
  if (!(p[M_BODY] > 0)) bad = "body_mass must be > 0";
  else if (!(p[Q_RT] > 0) || !(p[Q_RL] > 0) || !(p[Q_0] > 0)) bad = "q_rt, q_rl, q_0 must be > 0";
  else if (p[SPR_I] != floor(p[SPR_I]) || p[SPR_I] < 1)
    bad = "spri must be an integer >= 1 (the spring law's power P_i)";
  else if (p[SPR_J] != floor(p[SPR_J]) || p[SPR_J] == 0)
    bad = "sprj must be a non-zero integer (the spring law's power P_j)";
  else if (!(p[SPR_K] >= 0)) bad = "k must be >= 0";
  else if (p[TD_POLICY] != 0 && p[TD_POLICY] != 1)
    bad = "td_policy must be 0 (the liftoff angle, as the manual) or 1 (fixed td_angle)";
  else if (!(fabs(p[TD_ANGLE]) < 1.5707963267948966)) bad = "td_angle must be in (-pi/2, pi/2)";
  if (bad && msg) snprintf(msg, len, "%s", bad);
  return bad ? -1 : 0;
}

/* The leg from toe to hip: length, angle from the vertical, rate of the length. */
static void leg(const double *x, double *q, double *theta, double *qdot) {
  const double lx = x[X] - x[FOOTX], ly = x[Y] - x[FOOTY];
  *q = sqrt(lx * lx + ly * ly);
  *theta = atan2(lx, ly);
  *qdot = (lx * x[XD] + ly * x[YD]) / *q;
}

/* The manual's slip_InitPartition: touching the ground with a leg of length q_rt at the
 * touchdown angle means stance, with the toe on the ground below the leg (then the sign
 * of the leg's rate picks compression or decompression); otherwise flight, ascent or
 * descent by the sign of ydot. Its stance branch computes the leg's rate from the body
 * position; here the leg vector from the toe (the same when the toe is below the body). */
static int init_chart(double *x, const double *p, int *chart, char *msg, size_t len) {
  int c;
  if (x[Y] - p[Q_RT] * cos(x[TD]) < 0) {
    x[FOOTX] = x[X] + x[Y] * tan(x[TD]);
    x[FOOTY] = 0.0;
    double q, th, qd;
    leg(x, &q, &th, &qd);
    c = qd < 0 ? COMPRESSION : DECOMPRESSION;
  } else {
    c = x[YD] > 0 ? ASCENT : DESCENT;
  }
  if (*chart >= 0 && *chart != c) {
    if (msg)
      snprintf(msg, len, "the initial state is in chart %s, not %s (SLIP picks its chart "
               "from the state)", charts[c].name, charts[*chart].name);
    return -1;
  }
  *chart = c;
  return 0;
}

static int flow(double t, const double *x, const double *p, int chart, double *xd) {
  (void)t;
  xd[X] = x[XD];
  xd[Y] = x[YD];
  xd[FOOTX] = xd[FOOTY] = xd[TD] = 0.0;
  if (!stance(chart)) {
    xd[XD] = 0.0;
    xd[YD] = -p[G_FLIGHT];
    return 0;
  }
  double q, theta, qd;
  leg(x, &q, &theta, &qd);
  if (!(q > 0)) return 1;   /* the hip on the toe: ask for a smaller step */
  const double force = -spring_derivative(q, p);
  xd[XD] = force * sin(theta) / p[M_BODY];
  xd[YD] = force * cos(theta) / p[M_BODY] - p[G_STANCE];
  return 0;
}

static int boundary(double t, const double *x, const double *p, int chart, double *g) {
  (void)t;
  double q, theta, qd;
  switch (chart) {
    case ASCENT: g[0] = x[YD]; return 0;
    case DESCENT: g[0] = x[Y] - p[Q_RT] * cos(x[TD]); return 0;
    case COMPRESSION: leg(x, &q, &theta, &qd); g[0] = -qd; return 0;
    case DECOMPRESSION: leg(x, &q, &theta, &qd); g[0] = p[Q_RL] - q; return 0;
    default: return -1;
  }
}

/* Touchdown: the toe placed at the touchdown angle and leg length; compression, unless the
 * leg already lengthens (as init_chart picks: such a compression would never see its
 * bottom). */
static void touchdown(const double *x, const double *p, double *xn, int *next) {
  xn[FOOTX] = x[X] + p[Q_RT] * sin(x[TD]);
  xn[FOOTY] = x[Y] - p[Q_RT] * cos(x[TD]);
  double q, theta, qd;
  leg(xn, &q, &theta, &qd);
  *next = qd < 0 ? COMPRESSION : DECOMPRESSION;
}

static int transition(double t, const double *x, const double *p, int chart, int b,
                      double *xn, int *next, char *msg, size_t len) {
  (void)t;
  (void)b;
  switch (chart) {
    case ASCENT:
      /* Descent, unless the apex is already below touchdown height (a hop shorter than
         the event precision): then touchdown at once, which descent would never see. */
      if (x[Y] - p[Q_RT] * cos(x[TD]) < 0) touchdown(x, p, xn, next);
      else *next = DESCENT;
      return 0;
    case DESCENT:
      touchdown(x, p, xn, next);
      return 0;
    case COMPRESSION: *next = DECOMPRESSION; return 0;
    case DECOMPRESSION: {
      double q, theta, qd;
      leg(x, &q, &theta, &qd);
      xn[TD] = p[TD_POLICY] == 1 ? p[TD_ANGLE] : theta;
      /* Ascent, unless the body already falls (as init_chart picks: a liftoff past the
         apex would never see it). */
      *next = x[YD] > 0 ? ASCENT : DESCENT;
      return 0;
    }
    default:
      if (msg) snprintf(msg, len, "no chart %d", chart);
      return -1;
  }
}

/* The manual's slip_ValidateChart: the body must stay above the ground. */
static int validate(double t, const double *x, const double *p, int chart, char *msg,
                    size_t len) {
  (void)p;
  (void)chart;
  if (x[Y] >= 0) return 0;
  if (msg) snprintf(msg, len, "the body toppled over: y = %.6g m < 0 at t = %.9g s", x[Y], t);
  return -1;
}

static int outputs(double t, const double *x, const double *p, int chart, double *out) {
  (void)t;
  double q, theta, qd;
  leg(x, &q, &theta, &qd);
  const int st = stance(chart);
  const double g = st ? p[G_STANCE] : p[G_FLIGHT];
  const double ke = 0.5 * p[M_BODY] * (x[XD] * x[XD] + x[YD] * x[YD]);
  out[0] = ke + p[M_BODY] * g * x[Y] + (st ? spring_potential(q, p) : 0.0);
  out[1] = st ? q : p[Q_RT];
  out[2] = st ? theta : -x[TD];
  out[3] = st ? -spring_derivative(q, p) : 0.0;
  return 0;
}

const LsimHybridModel lsim_hybrid_slip = {
    .name = "slip",
    .description = "spring-loaded inverted pendulum runner (SimSect manual, section 4)",
    .nstates = 7,
    .state_names = state_names,
    .default_state = default_state,
    .nparams = NPARAMS,
    .param_names = param_names,
    .default_params = default_params,
    .ncharts = 4,
    .charts = charts,
    .noutputs = 4,
    .output_names = output_names,
    .energy_output = "energy",
    .state_units = state_units,
    .param_units = param_units,
    .output_units = output_units,
    .check_params = check_params,
    .init_chart = init_chart,
    .flow = flow,
    .boundary = boundary,
    .transition = transition,
    .validate = validate,
    .outputs = outputs,
};
