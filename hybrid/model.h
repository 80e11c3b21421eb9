/* model.h: a hybrid dynamical model, as SimSect defines one (docs/hybrid.md).
 *
 * The state space is covered by charts (SimSect's atlas). On chart c the state follows
 * its flow x' = f_c(t, x); the chart's patch is where all its boundary functions
 * h_{c,i}(x) are positive, and the run leaves the chart when one of them crosses zero
 * in its direction (by default falling: the state leaves the patch). The transition of
 * that boundary maps the state (a reset map, possibly the identity) and names the next
 * chart. Bookkeeping states (a foot position, a touchdown angle) are states whose flow
 * is zero and which only transitions change.
 *
 * A model is a const table of names and defaults plus these functions; p[] are its
 * parameters (nparams, defaults overridden by the scene), x[] its state (nstates).
 * Functions return 0, or < 0 to stop the run with the message they write (msg may be
 * NULL: then write nothing). Models register by name in hybrid/models.c; a model of
 * one's own is a C file in hybrid/ and a line in that table (docs/hybrid.md).
 */
#ifndef LSIM_HYBRID_MODEL_H
#define LSIM_HYBRID_MODEL_H

#include <stddef.h>

#define LSIM_HYBRID_MAX_BOUNDARIES 16   /* boundary functions per chart */

typedef struct LsimHybridChart {
  const char *name;
  int nboundaries;                          /* <= LSIM_HYBRID_MAX_BOUNDARIES */
  const char *const *boundary_names;        /* [nboundaries] */
  const int *direction;                     /* [nboundaries] LSIM_ODE_FALLING/EITHER/RISING
                                               (hybrid/ode.h); NULL: all falling */
} LsimHybridChart;

typedef struct LsimHybridModel {
  const char *name;                         /* the scene's "model" */
  const char *description;                  /* one line */
  int nstates;
  const char *const *state_names;           /* [nstates] */
  const double *default_state;              /* [nstates] */
  int nparams;
  const char *const *param_names;           /* [nparams] */
  const double *default_params;             /* [nparams] */
  int ncharts;
  const LsimHybridChart *charts;            /* [ncharts] */
  int noutputs;                             /* auxiliary functions recorded with the state */
  const char *const *output_names;          /* [noutputs] */
  const char *energy_output;                /* name of the output that is a conserved energy
                                               when the model is conservative, or NULL */
  /* Units (SI symbols, "" when dimensionless) of the states, parameters and outputs, for
     the file and the plots' axes; each may be NULL (unknown). */
  const char *const *state_units;           /* [nstates] */
  const char *const *param_units;           /* [nparams] */
  const char *const *output_units;          /* [noutputs] */

  /* Checks the parameters (ranges, combinations) before a run. Optional (NULL). */
  int (*check_params)(const double *p, char *msg, size_t len);
  /* SimSect's InitPartition: completes the initial state x (in place: bookkeeping states)
   * and picks the initial chart. *chart is -1 when the scene names none, else the
   * scene's choice, which the model may check. Required. */
  int (*init_chart)(double *x, const double *p, int *chart, char *msg, size_t len);
  /* The flow of chart c: xdot[nstates]. Required. */
  int (*flow)(double t, const double *x, const double *p, int chart, double *xdot);
  /* The boundary functions of chart c: g[charts[c].nboundaries]. Required. */
  int (*boundary)(double t, const double *x, const double *p, int chart, double *g);
  /* The transition when boundary b of chart c crossed at t in state x: writes xnew (a
   * copy of x on entry) and *next (the current chart on entry). Required. */
  int (*transition)(double t, const double *x, const double *p, int chart, int b,
                    double *xnew, int *next, char *msg, size_t len);
  /* SimSect's ValidateChart: 0 when x may be in chart c, < 0 (and a message) when the
   * run must stop (the body underground, say). Called at every sample and event.
   * Optional. */
  int (*validate)(double t, const double *x, const double *p, int chart, char *msg,
                  size_t len);
  /* Auxiliary functions: out[noutputs]. Optional when noutputs is 0. */
  int (*outputs)(double t, const double *x, const double *p, int chart, double *out);
} LsimHybridModel;

/* The registered models, in order; NULL after the last. */
const LsimHybridModel *lsim_hybrid_model_at(int i);
/* The model of that name, or NULL. */
const LsimHybridModel *lsim_hybrid_model_find(const char *name);

/* Index of a name in a list of n names, or -1. */
int lsim_hybrid_name_index(const char *const *names, int n, const char *name);

#endif
