/* bouncing_mass.c: a point mass bouncing on the floor y = 0 with restitution.
 *
 * Flight: a projectile, xdd = 0, ydd = -g. Impact (y falls through 0): the normal
 * velocity reverses and shrinks by the coefficient of restitution e, ydot+ = -e ydot-,
 * and the state is put on the floor (y = 0) so the located event's precision does not
 * accumulate; ydot- is the speed at the floor, sqrt(ydot^2 + 2 g y) from the located
 * point (at most the event precision below it), which keeps the flight's energy: the
 * located point's own speed is slightly larger, and with it each impact added energy, so
 * that below rest_speed ~ sqrt(g precision / (1 - e)) (4.5e-5 m/s by default) the bounces
 * reached a fixed point instead of the Zeno time and went on past it. A rebound slower than rest_speed would take ever shorter flights (the
 * Zeno accumulation at t_1 (1 + e) / (1 - e) when dropped from rest): the mass then
 * comes to rest on the floor, sliding at its horizontal speed, in the chart "rest".
 * Closed form from a drop at height h with no vertical speed: impacts at
 * t_1 = sqrt(2 h / g), then every 2 v_k / g with v_k = e^k g t_1, apexes e^(2k) h.
 */
#include <math.h>
#include <stdio.h>

#include "hybrid/model.h"

enum { X, Y, XD, YD };
enum { MASS, GRAVITY, RESTITUTION, REST_SPEED, NPARAMS };
enum { FLIGHT, REST };

static const char *const state_names[] = {"x", "y", "xdot", "ydot"};
static const double default_state[] = {0.0, 1.0, 0.0, 0.0};
static const char *const param_names[] = {"mass", "gravity", "restitution", "rest_speed"};
static const double default_params[] = {1.0, 9.81, 0.8, 1e-3};
static const char *const output_names[] = {"energy"};
static const char *const state_units[] = {"m", "m", "m/s", "m/s"};
static const char *const param_units[] = {"kg", "m/s^2", "", "m/s"};
static const char *const output_units[] = {"J"};

static const char *const b_impact[] = {"impact"};
static const LsimHybridChart charts[] = {
    {"flight", 1, b_impact, NULL},
    {"rest", 0, NULL, NULL},
};

static int check_params(const double *p, char *msg, size_t len) {
  const char *bad = NULL;
  if (!(p[MASS] > 0)) bad = "mass must be > 0";
  else if (!(p[GRAVITY] > 0)) bad = "gravity must be > 0 (downwards, m/s^2)";
  else if (!(p[RESTITUTION] >= 0 && p[RESTITUTION] <= 1)) bad = "restitution must be in [0, 1]";
  else if (!(p[REST_SPEED] > 0)) bad = "rest_speed must be > 0";
  if (bad && msg) snprintf(msg, len, "%s", bad);
  return bad ? -1 : 0;
}

static int init_chart(double *x, const double *p, int *chart, char *msg, size_t len) {
  (void)p;
  if (x[Y] < 0) {
    if (msg) snprintf(msg, len, "y = %g: the mass starts below the floor", x[Y]);
    return -1;
  }
  const int c = (x[Y] == 0 && x[YD] == 0) ? REST : FLIGHT;
  if (*chart == REST && c != REST) {
    if (msg) snprintf(msg, len, "the chart rest needs y = 0 and ydot = 0");
    return -1;
  }
  if (*chart < 0) *chart = c;
  return 0;
}

static int flow(double t, const double *x, const double *p, int chart, double *xd) {
  (void)t;
  xd[X] = x[XD];
  xd[Y] = chart == FLIGHT ? x[YD] : 0.0;
  xd[XD] = 0.0;
  xd[YD] = chart == FLIGHT ? -p[GRAVITY] : 0.0;
  return 0;
}

static int boundary(double t, const double *x, const double *p, int chart, double *g) {
  (void)t;
  (void)p;
  if (chart == FLIGHT) g[0] = x[Y];
  return 0;
}

static int transition(double t, const double *x, const double *p, int chart, int b,
                      double *xn, int *next, char *msg, size_t len) {
  (void)t;
  (void)chart;
  (void)b;
  (void)msg;
  (void)len;
  xn[Y] = 0.0;
  xn[YD] = p[RESTITUTION] * sqrt(fmax(0.0, x[YD] * x[YD] + 2.0 * p[GRAVITY] * x[Y]));
  if (xn[YD] < p[REST_SPEED]) {
    xn[YD] = 0.0;
    *next = REST;
  }
  return 0;
}

/* The event leaves the mass at most the event precision below the floor; a mass further
 * down has passed through it. */
static int validate(double t, const double *x, const double *p, int chart, char *msg,
                    size_t len) {
  (void)p;
  (void)chart;
  if (x[Y] >= -1e-6) return 0;
  if (msg) snprintf(msg, len, "the mass passed through the floor: y = %.6g m at t = %.9g s", x[Y], t);
  return -1;
}

static int outputs(double t, const double *x, const double *p, int chart, double *out) {
  (void)t;
  (void)chart;
  out[0] = 0.5 * p[MASS] * (x[XD] * x[XD] + x[YD] * x[YD]) + p[MASS] * p[GRAVITY] * x[Y];
  return 0;
}

const LsimHybridModel lsim_hybrid_bouncing_mass = {
    .name = "bouncing_mass",
    .description = "a point mass bouncing on the floor y = 0 with restitution",
    .nstates = 4,
    .state_names = state_names,
    .default_state = default_state,
    .nparams = NPARAMS,
    .param_names = param_names,
    .default_params = default_params,
    .ncharts = 2,
    .charts = charts,
    .noutputs = 1,
    .output_names = output_names,
    .energy_output = NULL,   /* conserved only with restitution 1 */
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
