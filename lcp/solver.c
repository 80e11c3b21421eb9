/* solver.c: the solver-by-name front end. Dispatches to lemke.c, pgs.c or the Siconos
 * adapter, times the call, and computes the common residual from z alone. */
#include "solver.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lemke.h"
#include "pgs.h"
#include "siconos_adapter.h"

typedef enum { KIND_LEMKE, KIND_PGS, KIND_SICONOS } SolverKind;

struct LsimSolver {
  char name[64];
  SolverKind kind;
  LsimSolverOptions options;
  LsimLemke *lemke;
  LsimPgs *pgs;
  LsimSiconos *siconos;
  int capacity;
  double *w;              /* [capacity] residual scratch */
  unsigned char *basis;   /* [capacity] Lemke basis guess from a warm z */
  LsimSolveStats last;
  double *trace;          /* caller's per-iteration buffer, or NULL */
  int trace_capacity;
};

static const char *const own_names[] = {"lemke", "pgs", NULL};

const char *const *lsim_solver_names(void) {
  /* Own names first, then "siconos:" + each adapter name; built once. */
  static const char *names[64];
  static char storage[64][40];
  if (!names[0]) {
    int k = 0;
    for (int i = 0; own_names[i]; ++i) names[k++] = own_names[i];
    const char *const *sn = lsim_siconos_names();
    for (int i = 0; sn[i] && k < 63; ++i) {
      snprintf(storage[k], sizeof storage[k], "siconos:%s", sn[i]);
      names[k] = storage[k];
      ++k;
    }
    names[k] = NULL;
  }
  return names;
}

LsimSolverOptions lsim_default_solver_options(void) {
  LsimSolverOptions o = {.tol = 1e-10, .max_iter = 0, .omega = 1.0, .warm_start = 0};
  return o;
}

static void set_err(char *err, size_t errlen, const char *msg) {
  if (err && errlen) snprintf(err, errlen, "%s", msg);
}

int lsim_solver_create(LsimSolver **out, const char *name, const LsimSolverOptions *opt,
                       char *err, size_t errlen) {
  *out = NULL;
  const LsimSolverOptions o = opt ? *opt : lsim_default_solver_options();
  if (!(o.tol >= 0.0) || o.max_iter < 0 || !(o.omega > 0.0 && o.omega < 2.0)) {
    set_err(err, errlen, "invalid solver options: need tol >= 0, max_iter >= 0, 0 < omega < 2");
    return LSIM_INVALID_INPUT;
  }
  if (!name || strlen(name) >= sizeof(((LsimSolver *)0)->name)) {
    set_err(err, errlen, "missing or over-long solver name");
    return LSIM_UNAVAILABLE;
  }
  LsimSolver *s = calloc(1, sizeof *s);
  if (!s) {
    set_err(err, errlen, "out of memory");
    return LSIM_OUT_OF_MEMORY;
  }
  snprintf(s->name, sizeof s->name, "%s", name);
  s->options = o;

  int rc = 0;
  if (strcmp(name, "lemke") == 0) {
    s->kind = KIND_LEMKE;
    if (!(s->lemke = lsim_lemke_create())) rc = LSIM_OUT_OF_MEMORY;
  } else if (strcmp(name, "pgs") == 0) {
    s->kind = KIND_PGS;
    if (!(s->pgs = lsim_pgs_create())) rc = LSIM_OUT_OF_MEMORY;
  } else if (strncmp(name, "siconos:", 8) == 0) {
    s->kind = KIND_SICONOS;
    rc = lsim_siconos_create(&s->siconos, name + 8, err, errlen);
  } else {
    char msg[160];
    snprintf(msg, sizeof msg, "unknown solver '%s' (try lemke, pgs, siconos:lemke; "
             "'lcpsim solvers' lists all)", name);
    set_err(err, errlen, msg);
    rc = LSIM_UNAVAILABLE;
  }
  if (rc) {
    if (rc == LSIM_OUT_OF_MEMORY) set_err(err, errlen, "out of memory");
    lsim_solver_free(s);
    return rc;
  }
  *out = s;
  return 0;
}

void lsim_solver_free(LsimSolver *s) {
  if (!s) return;
  lsim_lemke_free(s->lemke);
  lsim_pgs_free(s->pgs);
  lsim_siconos_free(s->siconos);
  free(s->w);
  free(s->basis);
  free(s);
}

void lsim_solver_set_trace(LsimSolver *s, double *trace, int capacity) {
  s->trace = capacity > 0 ? trace : NULL;
  s->trace_capacity = trace ? capacity : 0;
}

const LsimSolveStats *lsim_solver_last_stats(const LsimSolver *s) { return &s->last; }
const char *lsim_solver_name(const LsimSolver *s) { return s->name; }
const LsimSolverOptions *lsim_solver_options(const LsimSolver *s) { return &s->options; }

static int reserve(LsimSolver *s, int n) {
  if (n <= s->capacity) return 0;
  double *w = realloc(s->w, (size_t)n * sizeof(double));
  if (!w) return LSIM_OUT_OF_MEMORY;
  s->w = w;
  unsigned char *b = realloc(s->basis, (size_t)n);
  if (!b) return LSIM_OUT_OF_MEMORY;
  s->basis = b;
  s->capacity = n;
  return 0;
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int lsim_solver_solve(LsimSolver *s, const LsimLcp *lcp, double *z, LsimSolveStats *stats) {
  LsimSolveStats st;
  memset(&st, 0, sizeof st);
  const int n = lcp->n;
  int status = 0;
  if (n < 0 || reserve(s, n > 0 ? n : 1)) status = n < 0 ? LSIM_INVALID_INPUT : LSIM_OUT_OF_MEMORY;
  const LsimSolverOptions *o = &s->options;

  double t0 = now_seconds();
  if (status) {
    /* nothing to run */
  } else if (s->kind == KIND_LEMKE) {
    LsimLemkeOptions lo = lsim_default_lemke_options();
    lo.max_pivots = o->max_iter;
    lo.tol = o->tol;
    const unsigned char *guess = NULL;
    if (o->warm_start) {
      for (int i = 0; i < n; ++i) s->basis[i] = z[i] > 0.0;
      guess = s->basis;
    }
    LsimLemkeInfo li = {.trace = s->trace, .trace_capacity = s->trace_capacity};
    status = lsim_lemke_solve(s->lemke, lcp, &lo, guess, z, &li);
    st.iterations = li.pivots;
    st.warm_started = li.warm_started;
    st.trace_len = li.trace_len;
  } else if (s->kind == KIND_PGS) {
    LsimPgsOptions po = lsim_default_pgs_options();
    po.max_sweeps = o->max_iter;
    po.tol = o->tol;
    po.omega = o->omega;
    LsimPgsInfo pi = {.trace = s->trace, .trace_capacity = s->trace_capacity};
    status = lsim_pgs_solve(s->pgs, lcp, &po, o->warm_start, z, &pi);
    st.iterations = pi.sweeps;
    st.warm_started = o->warm_start;
    st.trace_len = pi.trace_len;
  } else {
    if (!o->warm_start) memset(z, 0, (size_t)n * sizeof(double));
    status = lsim_siconos_solve(s->siconos, lcp, o->tol, o->max_iter, o->warm_start, z,
                                &st.iterations);
    st.warm_started = o->warm_start;
  }
  st.wall_time = now_seconds() - t0;

  /* The common measures, from z alone, for every solver. */
  if (n > 0 && s->w) {
    for (int i = 0; i < n; ++i)
      if (!isfinite(z[i])) z[i] = 0.0, status = status ? status : LSIM_BREAKDOWN;
    lsim_lcp_residual(lcp, z, s->w, &st.residual);
    st.siconos_error = lsim_siconos_error(lcp, z, s->w);
  }
  st.status = status;
  s->last = st;
  if (stats) *stats = st;
  return status;
}
