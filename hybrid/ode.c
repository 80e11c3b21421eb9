/* ode.c: adaptive integration with event location on CVODE (ode.h).
 *
 * Math. CVODE (Hindmarsh et al., SUNDIALS 6) integrates x' = f(t, x) by variable-order,
 * variable-step Adams-Moulton (non-stiff) or BDF (stiff) formulas with Newton iterations
 * on a dense difference-quotient Jacobian, controlling the local error to
 * rtol |x_i| + atol per component. We drive it one internal step at a time (CV_ONE_STEP)
 * with the end time as its stop time, so it never steps past the end. After each step
 * [a, b] the root functions are evaluated at b; a sign change in the requested
 * direction brackets a crossing, which is located on CVODE's interpolating polynomial of
 * the step (CVodeGetDky, the same polynomial CVODE's own output uses) by the Illinois
 * method (regula falsi halving the value at an end kept twice in a row: superlinear,
 * never leaving the bracket; a bisection after four in a row, for a side where g stalls
 * short of 0), to |g| <= event_precision at the point on the requested
 * side (and, with event_time_precision > 0, until the bracket is that short as well, or
 * at the resolution of time). This is SimSect's stopping iterator with its stopPrecision in the function value
 * and maxStopIterations, with a faster iteration than its midpoint subdivision.
 *
 * Failure modes: see ode.h. CVODE's own messages are captured (never printed) and
 * returned by lsim_ode_message.
 */
#include "hybrid/ode.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

struct LsimOde {
  int n;
  LsimOdeFlowFn flow;
  void *user;
  LsimOdeOptions opt;

  /* CVODE objects. */
  SUNContext sun;
  void *cv;
  N_Vector y;             /* CVODE's state (after each step: the step's end) */
  N_Vector ytmp;          /* interpolated states */
  SUNMatrix A;
  SUNLinearSolver LS;
  int cv_initialized;     /* CVodeInit done */

  /* Difference-quotient Jacobian (jac_dq): the largest perturbation of each component
     (sqrt(eps) times lsim_ode_set_scale's scale; +inf: none), and while CVODE forms a
     Jacobian, the state and flow it differences from. */
  double *dq_cap;         /* [n] */
  double *dq_y;           /* [n] copy of the unperturbed state */
  double *dq_scale;       /* [n] the scales (+inf: none) */
  const double *dq_fy;    /* CVODE's flow at dq_y; non-NULL only within jac_dq */
  int dq_capped;          /* some cap is finite */

  /* The current point: time and state (the last accepted step's end, an event, t_end). */
  double t;
  double *x;              /* [n] */
  int have_state;
  int cv_at_point;        /* CVODE's internal state is at (t, x); 0 after an event */

  /* Root functions. */
  int nroots, cap_roots;
  LsimOdeRootFn g;
  int *dir, *side, *fired;            /* [nroots] */
  int *zero;                          /* [nroots] a segment started on the boundary
                                         (on_boundary): ZERO_PENDING or ZERO_ARMED, else 0 */
  int *held;                          /* [nroots] held at 0 by lsim_ode_restart_holding */
  int hold_given;                     /* the last restart said which roots are held */
  double *ga, *gb, *gm, *gbest;       /* [nroots]: at a, at b, trial point, best event */
  double *ta;                         /* [nroots] where a ZERO_ARMED root got its sign */
  double *res;                        /* [nroots] lsim_ode_set_root_resolution's (0: none) */
  int fresh;                          /* a restart or new roots since the last advance */
  double last_event_t;                /* the time of the last event reported (NaN: none) */

  /* Samples. */
  LsimOdeSampleFn sample;
  void *sample_user;
  long long next_sample;  /* index k of the next multiple k * record_period */

  /* Step bound. */
  LsimOdeStepBoundFn bound; /* per-step bound of the step length, or NULL */
  void *bound_user;
  double cv_max_step;       /* the largest step CVODE was last given (0: none) */

  /* Bookkeeping. */
  LsimOdeStats stats;
  long rhs_base;          /* flow evaluations before the last CVodeReInit */
  int callback_status;    /* < 0 when the flow failed inside CVODE */
  double fail_t;          /* the time the last error is about (NaN: the current point) */
  char message[320];
};

LsimOdeOptions lsim_ode_default_options(void) {
  LsimOdeOptions o;
  memset(&o, 0, sizeof o);
  o.rtol = 1e-4;
  o.atol = 1e-8;
  o.max_step = 1e-2;
  o.min_step = 0.0;
  o.event_precision = 1e-10;
  o.max_event_iterations = 128;
  o.max_events = 0;
  o.max_steps = 0;
  o.method = LSIM_ODE_ADAMS;
  o.record_period = -1.0;
  return o;
}

const char *lsim_ode_status_name(int status) {
  switch (status) {
    case LSIM_ODE_REACHED: return "reached";
    case LSIM_ODE_EVENT: return "event";
    case LSIM_ODE_BAD_INPUT: return "bad_input";
    case LSIM_ODE_OUT_OF_MEMORY: return "out_of_memory";
    case LSIM_ODE_CALLBACK_FAILED: return "callback_failed";
    case LSIM_ODE_STEP_FAILED: return "step_failed";
    case LSIM_ODE_EVENT_NOT_LOCATED: return "event_not_located";
    case LSIM_ODE_TOO_MANY_EVENTS: return "too_many_events";
    case LSIM_ODE_TOO_MANY_STEPS: return "too_many_steps";
    default: return "unknown";
  }
}

/* Sets the message and returns status. */
static int fail(LsimOde *o, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(LsimOde *o, int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(o->message, sizeof o->message, fmt, ap);
  va_end(ap);
  return status;
}

/* fail() for an error about time t (a sample, a located or bracketed event). */
static int fail_at(LsimOde *o, double t, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail_at(LsimOde *o, double t, int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(o->message, sizeof o->message, fmt, ap);
  va_end(ap);
  o->fail_t = t;
  return status;
}

/* CVODE's errors land in the message instead of stderr; its warnings are dropped. */
static void on_cvode_error(int code, const char *module, const char *function, char *msg,
                           void *data) {
  (void)module;
  LsimOde *o = data;
  if (code > 0) return;
  snprintf(o->message, sizeof o->message, "CVODE %s: %s", function, msg);
}

static int rhs(realtype t, N_Vector y, N_Vector ydot, void *data) {
  LsimOde *o = data;
  double *yd = N_VGetArrayPointer(y), *fd = N_VGetArrayPointer(ydot);
  /* Within the Jacobian's difference quotients (jac_dq): the column's component j moved
     by d = inc; past its cap c the flow is taken at y + c e_j instead and extrapolated to
     y + d e_j along that chord, f(y) + (f(y + c e_j) - f(y)) d / c, so that CVODE's
     quotient (f - f(y)) / inc is the chord's slope over c. */
  int j = -1;
  double d = 0.0, c = 0.0, yj = 0.0;
  if (o->dq_fy) {
    for (int i = 0; i < o->n && j < 0; ++i)
      if (yd[i] != o->dq_y[i]) j = i;
    if (j >= 0) {
      d = yd[j] - o->dq_y[j];
      if (fabs(d) > o->dq_cap[j]) {
        yj = yd[j];
        yd[j] = o->dq_y[j] + copysign(o->dq_cap[j], d);
        c = yd[j] - o->dq_y[j];
      }
    }
  }
  const int s = o->flow(t, yd, fd, o->user);
  if (s < 0) o->callback_status = s, o->fail_t = t;
  if (c != 0.0) {
    yd[j] = yj;
    for (int i = 0; i < o->n; ++i) fd[i] = o->dq_fy[i] + (fd[i] - o->dq_fy[i]) * (d / c);
  }
  return s;
}

/* CVODE's error weights, 1 / (rtol |x_j| + atol) (its CVodeSStolerances, the same bits),
 * but for a component with a scale (lsim_ode_set_scale) beyond it, 1 / (rtol scale_j +
 * 64 eps |x_j| + atol): the local error a position is held to stops growing with its
 * distance from the origin (rtol |x| was 1e-9 m at 1000 m against 1e-12 m at 1 m, and
 * round-off-sized joint drifts grew with it), above its round-off (eps |x|) by a margin
 * so that the error test never asks for less than that. */
static int error_weights(N_Vector y, N_Vector ewt, void *data) {
  const LsimOde *o = data;
  const double *yd = N_VGetArrayPointer(y);
  double *w = N_VGetArrayPointer(ewt);
  const double rtol = o->opt.rtol, atol = o->opt.atol;
  for (int j = 0; j < o->n; ++j) {
    const double a = fabs(yd[j]), s = o->dq_scale[j];
    w[j] = 1.0 / (a <= s ? rtol * a + atol : rtol * s + 64.0 * DBL_EPSILON * a + atol);
  }
  return 0;
}

/* CVODE's own dense difference-quotient Jacobian (SUNDIALS cvode_ls.c; exported by
 * libsundials_cvode, not declared in its headers; this signature from 4.0 to 7.x). Its
 * column j perturbs x_j by inc = max(sqrt(eps) |x_j|, 1000 |h| eps n |f|_wrms / w_j), h
 * the step being attempted, which no public accessor returns during a step (hence it is
 * called, not copied). */
extern int cvLsDQJac(realtype t, N_Vector y, N_Vector fy, SUNMatrix Jac, void *cvode_mem,
                     N_Vector tmp1, N_Vector tmp2, N_Vector tmp3);

/* The Jacobian: CVODE's difference quotients, each perturbation held to its component's
 * cap by rhs. Without caps (or below them) the same bits as CVODE's own. Far from the
 * world's origin sqrt(eps) |x_j| of a position is no perturbation of the state's scale
 * (1.5e-5 m at 1000 m: a bar pushed that far into the one it touches loses the contact
 * the segment follows); its cap keeps it at sqrt(eps) scale_j. */
static int jac_dq(realtype t, N_Vector y, N_Vector fy, SUNMatrix J, void *data,
                  N_Vector tmp1, N_Vector tmp2, N_Vector tmp3) {
  LsimOde *o = data;
  if (o->dq_capped) {
    memcpy(o->dq_y, N_VGetArrayPointer(y), (size_t)o->n * sizeof *o->dq_y);
    o->dq_fy = N_VGetArrayPointer(fy);
  }
  const int s = cvLsDQJac(t, y, fy, J, o->cv, tmp1, tmp2, tmp3);
  o->dq_fy = NULL;
  return s;
}

static void free_roots(LsimOde *o) {
  free(o->dir);  /* side, fired and zero share dir's block, gb, gm, gbest ga's */
  free(o->ga);
  o->dir = o->side = o->fired = o->zero = o->held = NULL;
  o->ga = o->gb = o->gm = o->gbest = o->ta = o->res = NULL;
  o->cap_roots = 0;
}

void lsim_ode_free(LsimOde *o) {
  if (!o) return;
  if (o->cv) CVodeFree(&o->cv);
  if (o->LS) SUNLinSolFree(o->LS);
  if (o->A) SUNMatDestroy(o->A);
  if (o->y) N_VDestroy(o->y);
  if (o->ytmp) N_VDestroy(o->ytmp);
  if (o->sun) SUNContext_Free(&o->sun);
  free_roots(o);
  free(o->x);
  free(o->dq_cap);
  free(o);
}

static int options_ok(const LsimOdeOptions *p, char *err, size_t errlen) {
  const char *bad = NULL;
  if (!(p->rtol > 0.0 && p->rtol < 1.0)) bad = "rtol must be in (0, 1)";
  else if (!(p->atol > 0.0 && isfinite(p->atol))) bad = "atol must be > 0";
  else if (!(p->max_step >= 0.0 && isfinite(p->max_step))) bad = "max_step must be >= 0";
  else if (!(p->min_step >= 0.0 && isfinite(p->min_step))) bad = "min_step must be >= 0";
  else if (p->max_step > 0.0 && p->min_step > p->max_step) bad = "min_step exceeds max_step";
  else if (!(p->event_precision > 0.0 && isfinite(p->event_precision)))
    bad = "event_precision must be > 0";
  else if (p->max_event_iterations < 1) bad = "max_event_iterations must be >= 1";
  else if (!(p->event_time_precision >= 0.0)) bad = "event_time_precision must be >= 0";
  else if (p->max_events < 0 || p->max_steps < 0) bad = "max_events, max_steps must be >= 0";
  else if (p->method != LSIM_ODE_ADAMS && p->method != LSIM_ODE_BDF) bad = "unknown method";
  else if (!isfinite(p->record_period)) bad = "record_period must be finite";
  if (bad && err && errlen) snprintf(err, errlen, "%s", bad);
  return bad ? LSIM_ODE_BAD_INPUT : 0;
}

int lsim_ode_create(LsimOde **out, int n, LsimOdeFlowFn f, void *user,
                    const LsimOdeOptions *opt, char *err, size_t errlen) {
  *out = NULL;
  const LsimOdeOptions o_def = lsim_ode_default_options();
  if (!opt) opt = &o_def;
  if (n < 1 || !f) {
    if (err && errlen) snprintf(err, errlen, "need a dimension >= 1 and a flow");
    return LSIM_ODE_BAD_INPUT;
  }
  if (options_ok(opt, err, errlen)) return LSIM_ODE_BAD_INPUT;
  LsimOde *o = calloc(1, sizeof *o);
  if (!o) return LSIM_ODE_OUT_OF_MEMORY;
  o->n = n;
  o->last_event_t = NAN;
  o->fail_t = NAN;
  o->flow = f;
  o->user = user;
  o->opt = *opt;
  o->x = calloc((size_t)n, sizeof *o->x);
  o->dq_cap = malloc(3 * (size_t)n * sizeof *o->dq_cap);
  int ok = o->x && o->dq_cap && SUNContext_Create(NULL, &o->sun) == 0;
  if (ok) {
    o->dq_y = o->dq_cap + n;
    o->dq_scale = o->dq_cap + 2 * (size_t)n;
    for (int i = 0; i < n; ++i) o->dq_cap[i] = o->dq_scale[i] = INFINITY;
  }
  if (ok) {
    o->y = N_VNew_Serial(n, o->sun);
    o->ytmp = N_VNew_Serial(n, o->sun);
    o->cv = CVodeCreate(opt->method == LSIM_ODE_BDF ? CV_BDF : CV_ADAMS, o->sun);
    ok = o->y && o->ytmp && o->cv;
  }
  if (ok) {
    o->A = SUNDenseMatrix(n, n, o->sun);
    ok = o->A != NULL;
  }
  if (ok) {
    o->LS = SUNLinSol_Dense(o->y, o->A, o->sun);
    ok = o->LS != NULL;
  }
  if (ok) ok = CVodeSetErrHandlerFn(o->cv, on_cvode_error, o) == CV_SUCCESS;
  if (!ok) {
    lsim_ode_free(o);
    if (err && errlen) snprintf(err, errlen, "out of memory setting up CVODE");
    return LSIM_ODE_OUT_OF_MEMORY;
  }
  *out = o;
  return 0;
}

int lsim_ode_set_roots(LsimOde *o, int nroots, LsimOdeRootFn g, const int *direction,
                       const int *side) {
  if (nroots < 0 || (nroots > 0 && !g))
    return fail(o, LSIM_ODE_BAD_INPUT, "root functions: need nroots >= 0 and a function");
  for (int i = 0; i < nroots; ++i) {
    if (direction && (direction[i] < -1 || direction[i] > 1))
      return fail(o, LSIM_ODE_BAD_INPUT, "root %d: direction must be -1, 0 or 1", i);
    if (side && side[i] != LSIM_ODE_AFTER && side[i] != LSIM_ODE_BEFORE)
      return fail(o, LSIM_ODE_BAD_INPUT, "root %d: side must be after (0) or before (1)", i);
  }
  if (nroots > o->cap_roots) {
    free_roots(o);
    const size_t k = (size_t)nroots;
    o->dir = malloc(5 * k * sizeof *o->dir);
    o->ga = malloc(6 * k * sizeof *o->ga);
    if (!o->dir || !o->ga) {
      free_roots(o);
      return fail(o, LSIM_ODE_OUT_OF_MEMORY, "out of memory");
    }
    o->side = o->dir + k;
    o->fired = o->dir + 2 * k;
    o->zero = o->dir + 3 * k;
    o->held = o->dir + 4 * k;
    o->gb = o->ga + k;
    o->gm = o->ga + 2 * k;
    o->gbest = o->ga + 3 * k;
    o->ta = o->ga + 4 * k;
    o->res = o->ga + 5 * k;
    o->cap_roots = nroots;
  }
  o->nroots = nroots;
  o->g = g;
  for (int i = 0; i < nroots; ++i) {
    o->dir[i] = direction ? direction[i] : LSIM_ODE_FALLING;
    o->side[i] = side ? side[i] : LSIM_ODE_AFTER;
    o->fired[i] = 0;
    o->zero[i] = 0;
    o->held[i] = 0;
    o->res[i] = 0.0;
  }
  /* New functions start a new segment from the current point. */
  o->cv_at_point = 0;
  o->fresh = 1;
  o->hold_given = 0;
  return 0;
}

int lsim_ode_set_root_resolution(LsimOde *o, const double *res) {
  for (int i = 0; res && i < o->nroots; ++i)
    if (!(res[i] >= 0.0 && isfinite(res[i])))
      return fail(o, LSIM_ODE_BAD_INPUT, "root %d: resolution %g must be finite and >= 0", i, res[i]);
  for (int i = 0; i < o->nroots; ++i) o->res[i] = res ? res[i] : 0.0;
  return 0;
}

static int set_tolerances(LsimOde *o);

int lsim_ode_set_scale(LsimOde *o, const double *scale) {
  for (int i = 0; scale && i < o->n; ++i)
    if (!(scale[i] >= 0.0) || isnan(scale[i]))
      return fail(o, LSIM_ODE_BAD_INPUT, "x[%d]: scale %g must be >= 0", i, scale[i]);
  o->dq_capped = 0;
  for (int i = 0; i < o->n; ++i) {
    o->dq_scale[i] = scale && scale[i] > 0.0 ? scale[i] : INFINITY;
    const double c = sqrt(DBL_EPSILON) * o->dq_scale[i];
    o->dq_cap[i] = c;
    o->dq_capped |= c < INFINITY;
  }
  if (o->cv_initialized && set_tolerances(o) != CV_SUCCESS)
    return fail(o, LSIM_ODE_STEP_FAILED, "CVODE tolerances refused");
  return 0;
}

void lsim_ode_set_sampler(LsimOde *o, LsimOdeSampleFn fn, void *user) {
  o->sample = fn;
  o->sample_user = user;
}

void lsim_ode_set_step_bound(LsimOde *o, LsimOdeStepBoundFn fn, void *user) {
  o->bound = fn;
  o->bound_user = user;
}

/* The first sample index k with k * period > t. */
static long long first_sample_after(double t, double period) {
  long long k = (long long)floor(t / period);
  while ((double)k * period <= t) ++k;
  while (k > 0 && (double)(k - 1) * period > t) --k;
  return k;
}

/* Flow evaluations so far (CVODE counts from its last (re)initialisation). */
static void update_counts(LsimOde *o) {
  if (!o->cv_initialized) return;
  long nfe = 0, nfels = 0;
  CVodeGetNumRhsEvals(o->cv, &nfe);
  CVodeGetNumLinRhsEvals(o->cv, &nfels);
  o->stats.rhs_evals = o->rhs_base + nfe + nfels;
}

/* CVODE's tolerances: rtol and atol, through error_weights where a scale is set. */
static int set_tolerances(LsimOde *o) {
  return o->dq_capped ? CVodeWFtolerances(o->cv, error_weights)
                      : CVodeSStolerances(o->cv, o->opt.rtol, o->opt.atol);
}

/* Puts CVODE at (t, x): init the first time, reinit afterwards. */
static int cvode_start(LsimOde *o) {
  memcpy(N_VGetArrayPointer(o->y), o->x, (size_t)o->n * sizeof *o->x);
  int flag;
  if (!o->cv_initialized) {
    flag = CVodeInit(o->cv, rhs, o->t, o->y);
    if (flag == CV_SUCCESS) flag = CVodeSetUserData(o->cv, o);
    if (flag == CV_SUCCESS) flag = set_tolerances(o);
    if (flag == CV_SUCCESS) flag = CVodeSetLinearSolver(o->cv, o->LS, o->A);
    if (flag == CV_SUCCESS) flag = CVodeSetJacFn(o->cv, jac_dq);
    if (flag == CV_SUCCESS && o->opt.max_step > 0.0) flag = CVodeSetMaxStep(o->cv, o->opt.max_step);
    o->cv_max_step = o->opt.max_step;
    if (flag == CV_SUCCESS && o->opt.min_step > 0.0) flag = CVodeSetMinStep(o->cv, o->opt.min_step);
    /* One step per call: the step count is ours (max_steps). */
    if (flag == CV_SUCCESS) flag = CVodeSetMaxNumSteps(o->cv, 1000000);
    if (flag != CV_SUCCESS) return fail(o, LSIM_ODE_STEP_FAILED, "CVODE setup failed (%d)", flag);
    o->cv_initialized = 1;
  } else {
    update_counts(o);
    o->rhs_base = o->stats.rhs_evals;
    flag = CVodeReInit(o->cv, o->t, o->y);
    if (flag != CV_SUCCESS) return fail(o, LSIM_ODE_STEP_FAILED, "CVODE restart failed (%d)", flag);
  }
  o->cv_at_point = 1;
  if (o->opt.record_period > 0.0) o->next_sample = first_sample_after(o->t, o->opt.record_period);
  return 0;
}

static int restart_at(LsimOde *o, double t, const double *x);

int lsim_ode_restart(LsimOde *o, double t, const double *x) {
  o->hold_given = 0;
  return restart_at(o, t, x);
}

int lsim_ode_restart_holding(LsimOde *o, double t, const double *x, const int *held) {
  for (int i = 0; i < o->nroots; ++i) o->held[i] = held && held[i] != 0;
  o->hold_given = 1;
  return restart_at(o, t, x);
}

/* The point (t, x), a new segment from it. */
static int restart_at(LsimOde *o, double t, const double *x) {
  if (!isfinite(t)) return fail(o, LSIM_ODE_BAD_INPUT, "restart: time is not finite");
  for (int i = 0; i < o->n; ++i)
    if (!isfinite(x[i])) return fail(o, LSIM_ODE_BAD_INPUT, "restart: x[%d] = %g", i, x[i]);
  o->t = t;
  memcpy(o->x, x, (size_t)o->n * sizeof *x);
  o->have_state = 1;
  o->fresh = 1;
  o->stats.restarts++;
  o->message[0] = '\0';
  o->fail_t = NAN;
  return cvode_start(o);
}

/* Root values at (t, x) into g. 0 or LSIM_ODE_CALLBACK_FAILED. */
static int eval_roots(LsimOde *o, double t, const double *x, double *g) {
  o->stats.root_evals++;
  const int s = o->g(t, x, g, o->user);
  if (s < 0) return fail_at(o, t, LSIM_ODE_CALLBACK_FAILED, "root function failed (%d) at t = %.17g", s, t);
  for (int i = 0; i < o->nroots; ++i)
    if (isnan(g[i]))
      return fail_at(o, t, LSIM_ODE_CALLBACK_FAILED, "root function %d is NaN at t = %.17g", i, t);
  return 0;
}

/* 1 when g (from g0 at the segment's start) has crossed in direction d. */
static int crossed(int d, double g0, double g) {
  if (d <= 0 && g0 > 0.0 && g <= 0.0) return 1;
  if (d >= 0 && g0 < 0.0 && g >= 0.0) return 1;
  return 0;
}

/* A root function on its boundary where a segment starts: pending until a step shows which
 * way it leaves, then armed from where it did (or fired where it still was). */
enum { ZERO_PENDING = 1, ZERO_ARMED = 2 };

/* A start value g0 on the boundary: exactly 0, or on the side direction d watches for
 * within the precision (where a located event leaves it: a reset into a new chart may
 * leave a state there, a rounding away from 0). */
static int on_boundary(int d, double g0, double prec) {
  return g0 == 0.0 || (d < 0 && g0 < 0.0 && g0 >= -prec) || (d > 0 && g0 > 0.0 && g0 <= prec);
}

/* Where g, from g0 on the boundary, went: 1 through it on the side direction d watches
 * (beyond g0 and 0), -1 to the other side of 0, 0 not yet (still g0, or back towards 0). */
static int leaves_boundary(int d, double g0, double g) {
  if ((d <= 0 && g < 0.0 && g < g0) || (d >= 0 && g > 0.0 && g > g0)) return 1;
  if ((d < 0 && g > 0.0) || (d > 0 && g < 0.0)) return -1;
  return 0;
}

/* The state at t within the last step, into ytmp; its root values into o->gm. */
static int state_and_roots_at(LsimOde *o, double t) {
  const int flag = CVodeGetDky(o->cv, t, 0, o->ytmp);
  if (flag != CV_SUCCESS)
    return fail_at(o, t, LSIM_ODE_STEP_FAILED, "interpolation at t = %.17g failed (%d)", t, flag);
  return eval_roots(o, t, N_VGetArrayPointer(o->ytmp), o->gm);
}

/* Locates root i's crossing in [a, b] (g_i(a) = fa, g_i(b) = fb, crossed at b) to the
 * precision on its side. On success *t_out is the located point, *g_out g_i there, and
 * o->gm holds every root's value there. */
static int locate(LsimOde *o, int i, double a, double fa, double b, double fb, double *t_out,
                  double *g_out, int *iters) {
  const double prec = o->opt.event_precision;
  const int d = o->dir[i], before = o->side[i] == LSIM_ODE_BEFORE;
  const double g_start = fa;
  const double slope = (fb - fa) / (b - a);   /* the step's mean rate of g */
  double va = fa, vb = fb;        /* Illinois' (possibly halved) end values */
  int kept = 0;                   /* -1: a kept last time, +1: b kept */
  int run = 0;                    /* iterations in a row that kept that end */
  double t_res = NAN;             /* the last point on the requested side within res[i] */
  for (int it = 0;; ++it) {
    /* Converged on the requested side (and, when asked, within a bracket that short). */
    const double ts = before ? a : b, gs = before ? fa : fb;
    const double tprec = o->opt.event_time_precision;
    const double twidth = fmax(tprec, 8.0 * DBL_EPSILON * fmax(fabs(a), fabs(b)));
    if (fabs(gs) <= prec && (!(tprec > 0.0) || b - a <= twidth || gs == 0.0)) {
      *iters = it;
      *g_out = gs;
      *t_out = ts;
      return state_and_roots_at(o, ts);
    }
    if (it >= o->opt.max_event_iterations)
      return fail_at(o, b, LSIM_ODE_EVENT_NOT_LOCATED,
                  "root %d: crossing in [%.17g, %.17g] not located to |g| <= %g in %d "
                  "iterations (|g| = %g): a discontinuous boundary function?",
                  i, a, b, prec, it, fabs(gs));
    /* At the resolution of time within the function's own resolution: located as well
       as the function allows (lsim_ode_set_root_resolution). */
    if (b - a <= 4.0 * DBL_EPSILON * fmax(fabs(a), fabs(b)) && fabs(gs) <= o->res[i]) {
      *iters = it;
      *g_out = gs;
      *t_out = ts;
      return state_and_roots_at(o, ts);
    }
    /* A function whose evaluation is noisier than its resolution at the resolution of
       time (a force split among redundant rows by the normal equations: values jumping
       by 2.7e-8 N within 1e-12 s, n3_g0_b0.3_a0.35_v3.5_o1 of scripts/
       event_stack_sweep.py at 0.312273 s) ends on a point farther from 0 than earlier
       ones on the same side: the last of those within the resolution is located as
       well as the function allows. A jump larger than the resolution has none. */
    if (b - a <= 4.0 * DBL_EPSILON * fmax(fabs(a), fabs(b)) && !isnan(t_res)) {
      const int s = state_and_roots_at(o, t_res);
      if (s) return s;
      *iters = it;
      *g_out = o->gm[i];
      *t_out = t_res;
      return 0;
    }
    /* At the resolution of time: g moving smoothly by more than the precision across
       the bracket (no more than 16 times the step's mean rate would) means the precision
       is finer than double precision resolves here; a larger change, a jump. */
    if (b - a <= 4.0 * DBL_EPSILON * fmax(fabs(a), fabs(b)) &&
        fabs(fb - fa) <= 16.0 * fabs(slope) * (b - a))
      return fail_at(o, b, LSIM_ODE_EVENT_NOT_LOCATED,
                  "root %d: the crossing at t = %.17g, bracketed to the resolution of time "
                  "(%.3g s), has |g| = %g > %g: g moves by %g across that bracket, so the "
                  "precision is finer than double precision resolves at this time and rate",
                  i, b, b - a, fabs(gs), prec, fabs(fb - fa));
    if (b - a <= 4.0 * DBL_EPSILON * fmax(fabs(a), fabs(b)))
      return fail_at(o, b, LSIM_ODE_EVENT_NOT_LOCATED,
                  "root %d: the bracket at t = %.17g shrank to the resolution of time with "
                  "|g| = %g > %g: a discontinuous boundary function?",
                  i, b, fabs(gs), prec);
    /* Regula falsi on the Illinois values; bisection when it would leave the bracket, or
       after four iterations in a row have kept the same end. Illinois halves the kept
       end's value once an iteration, which does not catch up with a side where g stays
       at a small floor short of 0: a face landing flush beside a hinge, where the hinge's
       corners hold the pair's gap at 4.6e-14 while the far edge's crosses 0 at slope
       -1 m/s, moved the far end about 3.5 times closer per 20 iterations and was not
       located in 128. */
    double m = (a * vb - b * va) / (vb - va);
    if (!(m > a && m < b) || run >= 4) m = 0.5 * (a + b);
    const int s = state_and_roots_at(o, m);
    if (s) return s;
    const double gm = o->gm[i];
    if (crossed(d, g_start, gm) != before && fabs(gm) <= o->res[i]) t_res = m;
    if (crossed(d, g_start, gm)) {
      b = m;
      fb = vb = gm;
      if (kept == -1) va *= 0.5;
      run = kept == -1 ? run + 1 : 1;
      kept = -1;
    } else {
      a = m;
      fa = va = gm;
      if (kept == 1) vb *= 0.5;
      run = kept == 1 ? run + 1 : 1;
      kept = 1;
    }
  }
}

/* Samples at the multiples of the period in (t_from, t_to] (or at t_to with period 0),
 * interpolated within the last step. */
static int emit_samples(LsimOde *o, double t_to, const double *x_to) {
  if (!o->sample || o->opt.record_period < 0.0) return 0;
  if (o->opt.record_period == 0.0) {
    o->stats.samples++;
    if (o->sample(t_to, x_to, o->sample_user) < 0)
      return fail_at(o, t_to, LSIM_ODE_CALLBACK_FAILED, "sampler failed at t = %.17g", t_to);
    return 0;
  }
  for (;;) {
    const double ts = (double)o->next_sample * o->opt.record_period;
    if (ts > t_to) return 0;
    const double *xs = x_to;
    if (ts != t_to) {
      const int flag = CVodeGetDky(o->cv, ts, 0, o->ytmp);
      if (flag != CV_SUCCESS)
        return fail_at(o, ts, LSIM_ODE_STEP_FAILED, "interpolation at t = %.17g failed (%d)", ts, flag);
      xs = N_VGetArrayPointer(o->ytmp);
    }
    o->stats.samples++;
    if (o->sample(ts, xs, o->sample_user) < 0)
      return fail_at(o, ts, LSIM_ODE_CALLBACK_FAILED, "sampler failed at t = %.17g", ts);
    o->next_sample++;
  }
}

/* Checks the step [a, b] for crossings; fills ev and moves the point to the event when
 * there is one. Returns LSIM_ODE_EVENT, 0 (none) or an error. */
/* 1 when root i, armed within the step at ta (ZERO_ARMED), may have crossed by t. */
static int armed_by(const LsimOde *o, int i, double t) {
  return o->zero[i] != ZERO_ARMED || o->ta[i] < t;
}

static int find_event(LsimOde *o, double a, double b, LsimOdeEvent *ev) {
  int best = -1, best_iters = 0;
  double t_best = b, g_best = 0.0;
  for (int i = 0; i < o->nroots; ++i) {
    if (!crossed(o->dir[i], o->ga[i], o->gb[i])) continue;
    double hi = b, ghi = o->gb[i];
    if (best >= 0) {
      /* Only a crossing before the best one so far matters (and after the root's arming). */
      if (!armed_by(o, i, t_best) || !crossed(o->dir[i], o->ga[i], o->gbest[i])) continue;
      hi = t_best;
      ghi = o->gbest[i];
    }
    double t_i = hi, g_i = ghi;
    int it_i = 0;
    /* A function that started at 0 is bracketed from where it got its sign. */
    const double lo = o->zero[i] == ZERO_ARMED ? o->ta[i] : a;
    const int s = locate(o, i, lo, o->ga[i], hi, ghi, &t_i, &g_i, &it_i);
    if (s) return s;
    best = i;
    t_best = t_i;
    g_best = g_i;
    best_iters += it_i;
    memcpy(o->gbest, o->gm, (size_t)o->nroots * sizeof *o->gm);
  }
  if (best < 0) return 0;
  if (o->opt.max_events > 0 && o->stats.events >= o->opt.max_events)
    return fail_at(o, t_best, LSIM_ODE_TOO_MANY_EVENTS, "more than %ld events by t = %.17g (chattering?)",
                   o->opt.max_events, t_best);
  /* The last located point is the best one: ytmp holds its state. */
  memcpy(o->x, N_VGetArrayPointer(o->ytmp), (size_t)o->n * sizeof *o->x);
  for (int j = 0; j < o->nroots; ++j)
    o->fired[j] = j == best || (armed_by(o, j, t_best) && crossed(o->dir[j], o->ga[j], o->gbest[j]));
  /* The point moves to the event (state already in o->x); CVODE is past it. */
  o->t = t_best;
  o->last_event_t = t_best;
  o->cv_at_point = 0;
  o->stats.events++;
  if (best_iters > o->stats.max_event_iterations) o->stats.max_event_iterations = best_iters;
  if (fabs(g_best) > o->stats.max_event_g) o->stats.max_event_g = fabs(g_best);
  ev->t = t_best;
  ev->root = best;
  ev->fired = o->fired;
  ev->g = g_best;
  ev->iterations = best_iters;
  return LSIM_ODE_EVENT;
}

/* After a step [a, b] (g at b in o->gb) the functions on their boundary at a since the
 * segment's start (ZERO_PENDING, start value in o->ga) go the way their first value off
 * the start goes, on the step's interpolating polynomial at a + f (b - a), f = 1e-3, 1e-2,
 * 1e-1 (the segment's first step only, so that a function at rest on its boundary, a
 * persistent contact's zero force, costs nothing more later), then at b. A function
 * leaving at first order shows at the first point; one leaving at second order, or whose
 * offset from a large constant (y - 1 at y = 1) is below the round-off there, at a later
 * one. One going on through the boundary went through it at a: the event is there, g = 0,
 * 0 iterations. One going back to the other side of 0 is armed from that point; one that
 * has not moved stays pending into the next step. Returns LSIM_ODE_EVENT with ev filled
 * (the point stays at a), 0 or an error. */
static int zero_starts(LsimOde *o, double a, double b, int first, LsimOdeEvent *ev) {
  static const double frac[3] = {1e-3, 1e-2, 1e-1};
  int best = -1, left = 0;
  for (int i = 0; i < o->nroots; ++i) {
    o->fired[i] = 0;
    left += o->zero[i] == ZERO_PENDING;
  }
  for (int k = first ? 0 : 3; k < 4 && left > 0; ++k) {
    const double ts = k < 3 ? a + frac[k] * (b - a) : b;
    const double *g = o->gb;
    if (k < 3) {
      if (!(ts > a && ts < b)) continue;
      const int s = state_and_roots_at(o, ts);
      if (s) return s;
      g = o->gm;
    }
    for (int i = 0; i < o->nroots; ++i) {
      if (o->zero[i] != ZERO_PENDING || o->fired[i]) continue;
      const int way = leaves_boundary(o->dir[i], o->ga[i], g[i]);
      if (way == 0) continue;
      --left;
      if (way > 0) {
        o->fired[i] = 1;
        if (best < 0 || i < best) best = i;
      } else {
        o->ga[i] = g[i];
        o->ta[i] = ts;
        o->zero[i] = ZERO_ARMED;
      }
    }
  }
  if (best < 0) return 0;
  if (o->opt.max_events > 0 && o->stats.events >= o->opt.max_events)
    return fail_at(o, a, LSIM_ODE_TOO_MANY_EVENTS, "more than %ld events by t = %.17g (chattering?)",
                   o->opt.max_events, a);
  /* The event is the step's start: o->t and o->x are still there; CVODE is past it. */
  o->last_event_t = a;
  o->cv_at_point = 0;
  o->stats.events++;
  ev->t = a;
  ev->root = best;
  ev->fired = o->fired;
  ev->g = 0.0;
  ev->iterations = 0;
  return LSIM_ODE_EVENT;
}

int lsim_ode_advance(LsimOde *o, double t_end, LsimOdeEvent *ev) {
  o->message[0] = '\0';
  o->fail_t = NAN;
  if (!o->have_state) return fail(o, LSIM_ODE_BAD_INPUT, "advance: no state (restart first)");
  if (!(t_end >= o->t)) return fail(o, LSIM_ODE_BAD_INPUT, "advance: t_end %.17g is before t = %.17g", t_end, o->t);
  /* An end within round-off of the current time is reached where we are. */
  if (t_end - o->t <= 64.0 * DBL_EPSILON * fmax(fabs(t_end), 1e-300)) {
    o->t = t_end;
    return LSIM_ODE_REACHED;
  }
  /* A span too short for CVODE to step (LSIM_ODE_TIME_FLOOR), named, not CVODE's "tstop
     behind t" (the round-off test above covers every span at |t| above 1e-136 s). */
  if (t_end - o->t < LSIM_ODE_TIME_FLOOR)
    return fail(o, LSIM_ODE_BAD_INPUT, "advance: the span from t = %.17g to %.17g is below %g s, too short "
                "for CVODE to step", o->t, t_end, LSIM_ODE_TIME_FLOOR);
  if (!o->cv_at_point) {
    const int s = cvode_start(o);
    if (s) return s;
  }
  int s = CVodeSetStopTime(o->cv, t_end);
  if (s != CV_SUCCESS) return fail(o, LSIM_ODE_STEP_FAILED, "CVODE stop time (%d)", s);
  if (o->nroots > 0 && (s = eval_roots(o, o->t, o->x, o->ga))) return s;
  /* Functions on their boundary at a new segment's start: the way they leave it decides
     after the first step that shows it (zero_starts). Not those held at 0 (armed once they leave
     it): a reset that leaves the state on the boundary just crossed must not fire it
     again at once. The caller names them (lsim_ode_restart_holding); else, at the time
     of the event just reported, every function is held. */
  int pending = 0;
  const int at_event = o->t == o->last_event_t;
  for (int i = 0; i < o->nroots; ++i) {
    const int held = o->hold_given ? o->held[i] : at_event;
    o->zero[i] = o->fresh && !held && on_boundary(o->dir[i], o->ga[i], o->opt.event_precision)
                     ? ZERO_PENDING : 0;
    pending += o->zero[i] != 0;
  }
  o->fresh = 0;

  long steps = 0;
  for (;;) {
    if (o->opt.max_steps > 0 && steps >= o->opt.max_steps) {
      update_counts(o);
      return fail(o, LSIM_ODE_TOO_MANY_STEPS, "more than %ld steps from t = %.17g", o->opt.max_steps, o->t);
    }
    const double a = o->t;
    realtype tret = a;
    o->callback_status = 0;
    /* The caller's bound on this step (a root's gap over its closing speed), with the
       options' largest step (0: none). CVODE applies a new largest step from the step
       after the one it has planned, so this step is cut by a stop time as well. */
    double stop = t_end;
    if (o->bound) {
      double hmax = o->opt.max_step;
      const double hb = o->bound(a, o->x, o->bound_user);
      if (hb > 0.0 && isfinite(hb)) {
        hmax = fmax(hmax > 0.0 ? fmin(hmax, hb) : hb, o->opt.min_step);
        stop = fmin(t_end, a + hmax);
      }
      if (hmax != o->cv_max_step) {
        if ((s = CVodeSetMaxStep(o->cv, hmax)) != CV_SUCCESS)
          return fail(o, LSIM_ODE_STEP_FAILED, "CVODE max step (%d)", s);
        o->cv_max_step = hmax;
      }
      if ((s = CVodeSetStopTime(o->cv, stop)) != CV_SUCCESS)
        return fail(o, LSIM_ODE_STEP_FAILED, "CVODE stop time (%d)", s);
    }
    const int flag = CVode(o->cv, t_end, o->y, &tret, CV_ONE_STEP);
    if (flag < 0) {
      update_counts(o);
      if (o->callback_status < 0 || flag == CV_RHSFUNC_FAIL)
        return fail(o, LSIM_ODE_CALLBACK_FAILED, "the flow failed (%d) at t = %.17g",
                    o->callback_status, isnan(o->fail_t) ? a : o->fail_t);
      if (!o->message[0]) snprintf(o->message, sizeof o->message, "CVODE failed (%d)", flag);
      return LSIM_ODE_STEP_FAILED;
    }
    ++steps;
    o->stats.steps++;
    const double b = tret;
    const double *xb = N_VGetArrayPointer(o->y);
    /* Events in [a, b]. */
    if (o->nroots > 0) {
      if ((s = eval_roots(o, b, xb, o->gb))) return s;
      if (pending) {
        s = zero_starts(o, a, b, steps == 1, ev);
        if (s == LSIM_ODE_EVENT) {
          update_counts(o);
          return LSIM_ODE_EVENT;
        }
        if (s) return s;
      }
      s = find_event(o, a, b, ev);
      if (s == LSIM_ODE_EVENT) {
        update_counts(o);
        return (s = emit_samples(o, o->t, o->x)) ? s : LSIM_ODE_EVENT;
      }
      if (s) return s;
      memcpy(o->ga, o->gb, (size_t)o->nroots * sizeof *o->ga);
      /* Armed roots are ordinary from here; pending ones (not moved) try the next step. */
      pending = 0;
      for (int i = 0; i < o->nroots; ++i) {
        if (o->zero[i] == ZERO_ARMED) o->zero[i] = 0;
        pending += o->zero[i] == ZERO_PENDING;
      }
    }
    if ((s = emit_samples(o, b, xb))) return s;
    o->t = b;
    memcpy(o->x, xb, (size_t)o->n * sizeof *o->x);
    if ((flag == CV_TSTOP_RETURN && stop == t_end) || b >= t_end) {
      o->t = t_end;
      update_counts(o);
      return LSIM_ODE_REACHED;
    }
  }
}

double lsim_ode_time(const LsimOde *o) { return o->t; }
const double *lsim_ode_state(const LsimOde *o) { return o->x; }
int lsim_ode_dimension(const LsimOde *o) { return o->n; }
const LsimOdeStats *lsim_ode_stats(const LsimOde *o) { return &o->stats; }
const LsimOdeOptions *lsim_ode_options(const LsimOde *o) { return &o->opt; }
const char *lsim_ode_message(const LsimOde *o) { return o->message; }
double lsim_ode_failure_time(const LsimOde *o) { return isnan(o->fail_t) ? o->t : o->fail_t; }
