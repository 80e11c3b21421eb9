/* compare.c: complementarity solvers compared on identical problems (compare/compare.h). */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "compare/compare.h"
#include "compare/mpi.h"
#include "compare/output.h"
#include "compare/timed.h"
#include "compare/trajectory.h"
#include "contact/step.h"
#include "contact/world.h"
#include "lcp/datfile.h"
#include "lcp/fc.h"
#include "lcp/quality.h"
#include "lcp/solver.h"
#include "scene/lcpdump.h"
#include "scene/outfile.h"
#include "scene/record.h"
#include "scene/scene.h"

/* Up to this n an LCP set's M is checked for a P-matrix by its principal minors. */
#define LSIM_COMPARE_P_MATRIX_MAX_N 12

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int ends_with(const char *s, const char *suffix) {
  const size_t a = strlen(s), b = strlen(suffix);
  return a >= b && !strcmp(s + a - b, suffix);
}

/* Default output: SCENE's base name + "_compare.h5" in the current folder. */
static void default_output(const char *scene, char *buf, size_t len) {
  const char *base = strrchr(scene, '/');
  base = base ? base + 1 : scene;
  size_t n = strlen(base);
  if (ends_with(base, ".json")) n -= 5;
  snprintf(buf, len, "%.*s_compare.h5", (int)n, base);
}

/* A solver context for spec with warm start on or off, and the impulse unit on for a
 * scene's step problems (as its run solves them) or off for an LCP set's (.dat: solved as
 * given; solver.h, impulse_unit); 0 or the status of lsim_solver_create (LSIM_UNAVAILABLE:
 * an unknown solver) with err. */
static int make_solver(LsimSolver **out, const LsimCompareSpec *sp, int warm, int unit,
                       char *err, size_t errlen) {
  LsimSolverOptions o = sp->opt;
  o.warm_start = warm;
  o.impulse_unit = unit;
  char e[256];
  const int rc = lsim_solver_create(out, sp->name, &o, e, sizeof e);
  if (rc) {
    snprintf(err, errlen, "solver '%s': %s", sp->label, e);
    return lsim_compare_status(rc, LSIM_INVALID_INPUT);
  }
  return 0;
}

int lsim_compare_status(int rc, int fallback) {
  return rc <= LSIM_MAX_ITERATIONS && rc >= LSIM_IO_ERROR ? rc : fallback;
}

/* The kind of problem file path is (lcp/fc.h), read from its first bytes; a file that is
 * not a regular one is not probed (LSIM_FILE_UNKNOWN: a scene): a pipe (a scene on
 * /dev/stdin) can be read once only, and probing it had left the scene reader an empty
 * text ("/dev/stdin:1:1: unexpected token near end of file"). */
static int input_kind(const char *path) {
  struct stat st;
  return !stat(path, &st) && S_ISREG(st.st_mode) ? lsim_problem_file_kind(path)
                                                 : LSIM_FILE_UNKNOWN;
}

int lsim_compare_output_path(const LsimCompareConfig *cfg, char *path, size_t len, char *msg,
                             size_t msglen) {
  const char *what = cfg->names.output ? cfg->names.output : "output";
  const char *out = cfg->output;
  if (out && !out[0]) {
    snprintf(msg, msglen, "%s: the output file name is empty", what);
    return LSIM_INVALID_INPUT;
  }
  /* The output named, or the default of the kind of input. */
  const int kind0 = input_kind(cfg->inputs[0]);
  if (out) {
    if (strlen(out) >= len) {
      snprintf(msg, msglen, "%s %.200s...: output path too long (at most %zu characters)", what,
               out, len - 1);
      return LSIM_INVALID_INPUT;
    }
    snprintf(path, len, "%s", out);
  } else if (kind0 == LSIM_FILE_FC_DAT || kind0 == LSIM_FILE_FCLIB) {
    snprintf(path, len, "fcset_compare.h5");
  } else if (ends_with(cfg->inputs[0], ".dat")) {
    snprintf(path, len, "lcpset_compare.h5");
  } else {
    default_output(cfg->inputs[0], path, len);
  }
  /* No input is replaced (a scene or a problem file would be lost). */
  return lsim_outfile_check_inputs(what, path, "input file", cfg->inputs, cfg->ninputs, msg,
                                   msglen);
}

/* Grows a double buffer to n entries. */
static int grow_d(double **p, int *cap, int n) {
  if (n <= *cap) return 0;
  double *q = realloc(*p, ((size_t)n + 1) * sizeof(double));
  if (!q) return -1;
  *p = q;
  *cap = n;
  return 0;
}

/* A private copy of a factored problem: its index arrays in one int buffer, its values in
 * one double buffer, its cones; f points into them. Two copies of the same problem have the
 * same layout, so they compare with memcmp. */
typedef struct FCopy {
  LsimFactoredLcp f;
  int *ib;
  double *db;
  LsimConeBlock *cb;
  size_t icap, dcap, ccap, ni, nd, nc;
} FCopy;

static void fcopy_free(FCopy *c) {
  free(c->ib), free(c->db), free(c->cb);
  memset(c, 0, sizeof *c);
}

/* dst = a deep copy of src (structurally sound, as the step builds it). 0 or -1 (memory). */
static int fcopy_set(FCopy *dst, const LsimFactoredLcp *src) {
  const int n = src->n;
  const size_t nj = n > 0 ? (size_t)src->J_ptr[n] : 0, nb = n > 0 ? (size_t)src->B_ptr[n] : 0;
  const size_t nc = src->C_ptr && n > 0 ? (size_t)src->C_ptr[n] : 0;
  const size_t ni = 2 * ((size_t)n + 1) + nj + nb + (src->C_ptr ? (size_t)n + 1 + nc : 0);
  const size_t nd = nj + nb + nc + (size_t)n, ncones = (size_t)(src->ncones > 0 ? src->ncones : 0);
  if (ni > dst->icap) {
    int *p = realloc(dst->ib, ni * sizeof(int));
    if (!p) return -1;
    dst->ib = p, dst->icap = ni;
  }
  if (nd + 1 > dst->dcap) {
    double *p = realloc(dst->db, (nd + 1) * sizeof(double));
    if (!p) return -1;
    dst->db = p, dst->dcap = nd + 1;
  }
  if (ncones + 1 > dst->ccap) {
    LsimConeBlock *p = realloc(dst->cb, (ncones + 1) * sizeof(LsimConeBlock));
    if (!p) return -1;
    dst->cb = p, dst->ccap = ncones + 1;
  }
  int *ip = dst->ib;
  double *dp = dst->db;
  LsimFactoredLcp *f = &dst->f;
  memset(f, 0, sizeof *f);
  f->n = n, f->m = src->m;
#define TAKE_I(field, count)                                                      \
  do {                                                                            \
    if (count) memcpy(ip, src->field, (count) * sizeof(int));                     \
    f->field = ip, ip += (count);                                                 \
  } while (0)
#define TAKE_D(field, count)                                                      \
  do {                                                                            \
    if (count) memcpy(dp, src->field, (count) * sizeof(double));                  \
    f->field = dp, dp += (count);                                                 \
  } while (0)
  if (n > 0) {
    TAKE_I(J_ptr, (size_t)n + 1);
    TAKE_I(J_idx, nj);
    TAKE_I(B_ptr, (size_t)n + 1);
    TAKE_I(B_idx, nb);
    if (src->C_ptr) {
      TAKE_I(C_ptr, (size_t)n + 1);
      TAKE_I(C_idx, nc);
      TAKE_D(C_val, nc);
    }
    TAKE_D(J_val, nj);
    TAKE_D(B_val, nb);
    TAKE_D(q, (size_t)n);
  }
#undef TAKE_I
#undef TAKE_D
  if (ncones) memcpy(dst->cb, src->cones, ncones * sizeof(LsimConeBlock));
  f->ncones = (int)ncones;
  f->cones = ncones ? dst->cb : NULL;
  dst->ni = (size_t)(ip - dst->ib), dst->nd = (size_t)(dp - dst->db), dst->nc = ncones;
  return 0;
}

/* 1 when a and b (copies of the same problem) still hold the same bytes. */
static int fcopy_same(const FCopy *a, const FCopy *b) {
  return a->ni == b->ni && a->nd == b->nd && a->nc == b->nc &&
         !memcmp(a->ib, b->ib, a->ni * sizeof(int)) &&
         !memcmp(a->db, b->db, a->nd * sizeof(double)) &&
         !memcmp(a->cb, b->cb, a->nc * sizeof(LsimConeBlock));
}
/* 1 when the symmetric part (M + M') / 2 of the n x n M (column-major) is positive
 * definite (a Cholesky factorization succeeds): M is then a P-matrix. */
static int sym_part_pd(const double *M, int n, double *L) {
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) L[i + (size_t)j * n] = 0.5 * (M[i + (size_t)j * n] + M[j + (size_t)i * n]);
  for (int j = 0; j < n; ++j) {
    double d = L[j + (size_t)j * n];
    for (int k = 0; k < j; ++k) d -= L[j + (size_t)k * n] * L[j + (size_t)k * n];
    if (!(d > 0.0)) return 0;
    d = sqrt(d);
    L[j + (size_t)j * n] = d;
    for (int i = j + 1; i < n; ++i) {
      double x = L[i + (size_t)j * n];
      for (int k = 0; k < j; ++k) x -= L[i + (size_t)k * n] * L[j + (size_t)k * n];
      L[i + (size_t)j * n] = x / d;
    }
  }
  return 1;
}

/* The determinant of M's principal submatrix on the rows and columns in mask, by LU with
 * partial pivoting in A (m x m scratch), against tol times its Hadamard bound (the product
 * of its rows' norms): 1 when clearly positive. */
static int minor_positive(const double *M, int n, unsigned mask, double *A) {
  int idx[LSIM_COMPARE_P_MATRIX_MAX_N], m = 0;
  for (int i = 0; i < n; ++i)
    if (mask >> i & 1u) idx[m++] = i;
  double bound = 1.0;
  for (int r = 0; r < m; ++r) {
    double nr = 0.0;
    for (int c = 0; c < m; ++c) {
      const double v = M[idx[r] + (size_t)idx[c] * n];
      A[r + c * m] = v;
      nr += v * v;
    }
    bound *= sqrt(nr);
  }
  double det = 1.0;
  for (int k = 0; k < m; ++k) {
    int p = k;
    for (int r = k + 1; r < m; ++r)
      if (fabs(A[r + k * m]) > fabs(A[p + k * m])) p = r;
    if (A[p + k * m] == 0.0) return 0;
    if (p != k) {
      for (int c = 0; c < m; ++c) {
        const double t = A[k + c * m];
        A[k + c * m] = A[p + c * m], A[p + c * m] = t;
      }
      det = -det;
    }
    det *= A[k + k * m];
    for (int r = k + 1; r < m; ++r) {
      const double f = A[r + k * m] / A[k + k * m];
      for (int c = k + 1; c < m; ++c) A[r + c * m] -= f * A[k + c * m];
    }
  }
  return det > 1e-12 * bound;
}

/* 1 when the LCP's solution is unique for its q, so that a distance to the reference's
 * solution means something: M a P-matrix (Murty's theorem: a unique solution for every q).
 * Shown either by a positive definite symmetric part (SPD M among them; any n) or, up to
 * n = LSIM_COMPARE_P_MATRIX_MAX_N, by every principal minor positive (2^n - 1 of them).
 * Only SPD M had counted, and lcp_ortiz (its symmetric part PD) and Murty's triangular
 * P-matrices (lcp_exp_murty, lcp_exp_murty2) had no distance. 0 when not shown. */
static int unique_solution(const LsimLcp *lcp) {
  const int n = lcp->n;
  if (n <= 0) return 0;
  double *L = malloc(((size_t)n * n + 1) * sizeof(double));
  if (!L) return 0;
  int ok = sym_part_pd(lcp->M, n, L);
  for (unsigned mask = 1; !ok && n <= LSIM_COMPARE_P_MATRIX_MAX_N && mask < (1u << n); ++mask) {
    if (!minor_positive(lcp->M, n, mask, L)) break;
    if (mask == (1u << n) - 1) ok = 1;
  }
  free(L);
  return ok;
}

/* The model with the solver settings of spec sp (its own warm start when it says). */
static LsimModel spec_model(const LsimModel *model, const LsimCompareSpec *sp) {
  LsimModel m = *model;
  snprintf(m.solver.name, sizeof m.solver.name, "%s", sp->name);
  m.solver.tol = sp->opt.tol;
  m.solver.max_iter = sp->opt.max_iter;
  m.solver.omega = sp->opt.omega;
  m.solver.threads = sp->opt.threads;
  /* Sparse Lemke's settings and newton's sparse limit are the spec's too (0: the
     environment's), not the scene's: without them a lemke_sparse[lu=klu] reference drove
     the trajectory with the environment's solves while its warm series used KLU. */
  m.solver.sparse_limit = sp->opt.sparse_limit;
  m.solver.block_start = sp->opt.block_start;
  m.solver.principal = sp->opt.principal;
  m.solver.precision = sp->opt.precision; /* pgs[precision=...], else the environment's */
  m.solver.lu_solve = sp->opt.lu_solve;
  m.solver.lu_refactor = sp->opt.lu_refactor;
  /* And its islands (1, a run's, unless the spec says islands=0): with islands=0 the driver
     had solved pile_10's problems island by island while its warm series solved them
     whole, 3.6e-10 m/s apart. */
  m.solver.islands = sp->opt.islands;
  if (sp->warm >= 0) m.solver.warm_start = sp->warm;
  /* A comparison measures each solver alone: no fallback chain behind it. */
  m.solver.on_failure = LSIM_ON_FAILURE_CONTINUE;
  return m;
}

/* A stepper of model m that solves as spec sp's series do: spec_model's settings, and
 * lemke_sparse's covering vector (cover=previous), which the model does not carry: the
 * driver had covered with B e while a [cover=previous] reference's warm series used the
 * carried point. 0 or a status of lcp/lcp.h with err. */
static int spec_stepper(LsimStepper **out, const LsimModel *m, const LsimCompareSpec *sp,
                        char *err, size_t errlen) {
  const int rc = lsim_stepper_create(out, m, NULL, err, errlen);
  if (rc) return rc;
  lsim_solver_set_cover_previous(lsim_stepper_solver(*out), sp->opt.cover_previous);
  return 0;
}

/* One solve, dense or factored, as a function of one argument (compare/timed.h). */
typedef struct SolveCall {
  LsimSolver *solver;
  const LsimLcp *lcp;           /* dense, or */
  const LsimFactoredLcp *f;     /* factored */
  double *z;
  LsimSolveStats st;
} SolveCall;

static void solve_call(void *arg) {
  SolveCall *c = arg;
  memset(&c->st, 0, sizeof c->st);
  if (c->lcp) lsim_solver_solve(c->solver, c->lcp, c->z, &c->st);
  else lsim_solver_solve_factored(c->solver, c->f, c->z, &c->st);
}

/* 1 when series s has not solved yet in this process and solves in place (no time limit):
 * its first problem is then solved once untimed before the timed solves, from the same
 * start, the result discarded. A first solve pays once-per-process costs (library code
 * and data paged in, lazy initialization, workspace first grown) that differ by solver:
 * measured on lcp_mmc three times over, the first time was 2x the next for lemke and
 * siconos:lemke, 3x for newton (once 9 ms against 0.13 ms), and they fell on the first
 * problem alone. Under a time limit the child primes itself (compare/timed.h). Contexts
 * hold workspace only, so the answers are unchanged. Marks s primed. */
static int prime_first(const LsimCompareConfig *cfg, int *primed, int s) {
  if (primed[s] || cfg->time_limit > 0) return 0;
  primed[s] = 1;
  return 1;
}

LsimCompareConfig lsim_default_compare_config(void) {
  LsimCompareConfig c;
  memset(&c, 0, sizeof c);
  c.steps = -1;
  c.dense_limit = LSIM_COMPARE_DENSE_LIMIT_DEFAULT;
  c.success_tol = 1e-6;
  c.repeat = 1;
  const LsimCompareNames names = {"solvers", "reference", "output", "independent mode",
                                  "dump_lcp", "trajectory", "dense_limit", "steps"};
  c.names = names;
  return c;
}

int lsim_compare_result_take(LsimCompareResult *res, LsimCompareTable *t,
                             LsimCompareSummary **sm, char (**labels)[128],
                             const LsimCompareSpec *specs, const int *ser_solver) {
  res->table = *t;
  res->summary = *sm;
  res->labels = *labels;
  memset(t, 0, sizeof *t);
  *sm = NULL;
  *labels = NULL;
  if (lsim_compare_result_tolerances(res, specs, ser_solver)) {
    lsim_compare_result_free(res);
    return -1;
  }
  return 0;
}

int lsim_compare_result_tolerances(LsimCompareResult *res, const LsimCompareSpec *specs,
                                   const int *ser_solver) {
  const int P = res->table.P;
  res->solver_tol = calloc((size_t)P + 1, sizeof(double));
  res->solver_max_iter = calloc((size_t)P + 1, sizeof(int));
  if (!res->solver_tol || !res->solver_max_iter) return -1;
  for (int s = 0; s < P; ++s) {
    res->solver_tol[s] = specs[ser_solver[s]].opt.tol;
    res->solver_max_iter[s] = specs[ser_solver[s]].opt.max_iter;
  }
  return 0;
}

void lsim_compare_result_free(LsimCompareResult *res) {
  lsim_compare_table_free(&res->table);
  free(res->summary);
  free(res->labels);
  free(res->solver_tol);
  free(res->solver_max_iter);
  memset(res, 0, sizeof *res);
}

/* The scene's place (path, in its text) with a message: LSIM_INVALID_INPUT. */
static int scene_refused(LsimSceneError *err, const char *text, const char *name,
                         const char *path, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int scene_refused(LsimSceneError *err, const char *text, const char *name,
                         const char *path, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int rc = lsim_scene_verror(err, text, name, path, 0, fmt, ap);
  va_end(ap);
  return rc;
}

/* 0 when the scene runs on the time step, whose LCPs a comparison solves; else
 * LSIM_INVALID_INPUT with err at the key that says otherwise. The event-driven integrator
 * resolves its impacts with its own Lemke (hybrid/event_driven.c), no solver chosen, on
 * problems of another kind (impact LCPs at located events): stepping such a scene in time
 * instead would compare solvers on problems the scene never produces. Sequential impacts
 * are the event-driven law; the time step would ignore them (lcpsim refuses them too).
 * Coulomb's exact cone ("friction": {"cone": "exact"}) has every step solved by nsgs_aa
 * whatever the solver (contact/exact_cone.h): the reference's trajectory was nsgs_aa's
 * (its own series 8e-3 m/s from it on data/box_slide_45_exact.json) and in independent
 * mode every series was nsgs_aa's trajectory, reported as lemke's, pgs's, ... */
static int time_stepped(const LsimModel *model, const char *text, const char *name,
                        LsimSceneError *err) {
  if (model->integrator == LSIM_INTEGRATOR_EVENT_DRIVEN)
    return scene_refused(err, text, name, "integrator",
                         "\"event_driven\": a comparison hands the time step's LCPs to its "
                         "solvers, and the event-driven integrator resolves its impacts with "
                         "its own Lemke (no solver to choose); to compare solvers on this "
                         "scene's bodies, give \"integrator\": \"time_stepping\" (time_step "
                         "is then the step)");
  if (model->event_impacts == LSIM_IMPACTS_SEQUENTIAL)
    return scene_refused(err, text, name, "event_driven.impacts",
                         "\"sequential\" applies to \"integrator\": \"event_driven\" (and "
                         "lcpsim impact), not to the time step, whose impacts are part of its "
                         "one LCP");
  if (model->friction_exact)
    return scene_refused(err, text, name, "friction.cone",
                         "\"exact\": every step of this scene is solved by nsgs_aa on "
                         "Coulomb's exact cone, whatever the solver, so its steps cannot "
                         "compare LCP solvers; give \"cone\": \"polyhedral\" to compare "
                         "them on the scene's Stewart-Trinkle LCPs (exact-cone solvers "
                         "compare on frictional contact files: docs/solvers.md)");
  return 0;
}

int lsim_compare_run(const LsimCompareConfig *cfg, LsimCompareResult *res, char *msg,
                     size_t msglen) {
  const char *const *inputs = cfg->inputs;
  const int ninputs = cfg->ninputs, independent = cfg->independent, dump = cfg->dump_lcp;
  const int steps_override = cfg->steps, dense_limit = cfg->dense_limit;
  const double success_tol = cfg->success_tol;
  const char *list = cfg->solvers, *ref_text = cfg->reference;
  const LsimCompareNames *nm = &cfg->names;
  const int repeat = cfg->repeat > 1 ? (cfg->repeat < LSIM_COMPARE_MAX_REPEAT ? cfg->repeat
                                                                               : LSIM_COMPARE_MAX_REPEAT)
                                     : 1;
  double times[LSIM_COMPARE_MAX_REPEAT];
  char err[1024];
  memset(res, 0, sizeof *res);
  if (msglen) msg[0] = '\0';
  /* The output first: one of the inputs is refused before anything else is read. */
  char path[1024];
  int bad = lsim_compare_output_path(cfg, path, sizeof path, msg, msglen);
  if (bad) return bad;
  const int kind0 = input_kind(inputs[0]);
  const int lcpset = ends_with(inputs[0], ".dat");
  if (cfg->trajectory && (independent || lcpset || kind0 == LSIM_FILE_FC_DAT ||
                          kind0 == LSIM_FILE_FCLIB)) {
    snprintf(msg, msglen, "%s keeps the reference's run of a scene in shadow mode (%s%s)",
             nm->trajectory, independent ? nm->independent : "problem files have no trajectory",
             independent ? " has one trajectory per solver" : "");
    return LSIM_INVALID_INPUT;
  }
  /* Problem files have no steps and are dense or exact-cone problems: a number of steps
     or a dense limit given for them would be ignored, so they are refused. */
  if ((lcpset || kind0 == LSIM_FILE_FC_DAT || kind0 == LSIM_FILE_FCLIB) &&
      (steps_override > 0 || dense_limit != LSIM_COMPARE_DENSE_LIMIT_DEFAULT)) {
    snprintf(msg, msglen, "%s: problem files have no %s (every file is one problem, solved "
             "whole); it is for scenes",
             steps_override > 0 ? (nm->steps ? nm->steps : "steps") : nm->dense_limit,
             steps_override > 0 ? "steps" : "dense limit");
    return LSIM_INVALID_INPUT;
  }
  if (kind0 == LSIM_FILE_FC_DAT || kind0 == LSIM_FILE_FCLIB)
    return lsim_compare_fc_run(cfg, res, msg, msglen);
  if (lsim_mpi_size() > 1 && (independent || dump)) {
    snprintf(msg, msglen, "%s runs serially: start it without mpirun (or with one rank)",
             independent ? nm->independent : nm->dump_lcp);
    return LSIM_INVALID_INPUT;
  }
  if (lcpset && independent) {
    snprintf(msg, msglen, ".dat problems have no trajectory: %s needs a scene",
             nm->independent);
    return LSIM_INVALID_INPUT;
  }
  if (!lcpset && ninputs > 1) {
    snprintf(msg, msglen, "one scene only, got '%s' and '%s'", inputs[0], inputs[1]);
    return LSIM_INVALID_INPUT;
  }
  for (int i = 0; lcpset && i < ninputs; ++i) {
    /* A frictional contact file in an LCP set is named as such (read as an LCP it failed
       on a size: "FrictionContact3D_1c.dat:4:1: size0 0 does not match n 3"), as an LCP
       file in a frictional contact set is (fcset.c). */
    const int kind = input_kind(inputs[i]);
    if (kind == LSIM_FILE_FC_DAT || kind == LSIM_FILE_FCLIB) {
      snprintf(msg, msglen, "'%s': %s, not a linear complementarity problem: an LCP set takes "
               "LCP .dat files only (a frictional contact set, frictional contact files only)",
               inputs[i], lsim_problem_file_kind_name(kind));
      return LSIM_INVALID_INPUT;
    }
    if (!ends_with(inputs[i], ".dat")) {
      snprintf(msg, msglen, "'%s': give .dat files or one scene, not both", inputs[i]);
      return LSIM_INVALID_INPUT;
    }
  }

  /* Solver list and reference: every solver is created once here to validate it. */
  static LsimCompareSpec specs[LSIM_COMPARE_MAX_SOLVERS + 1];
  int nspecs = 0;
  if (lsim_compare_parse_list(list, specs, &nspecs, err, sizeof err)) {
    snprintf(msg, msglen, "%s: %s", nm->solvers, err);
    return LSIM_INVALID_INPUT;
  }
  /* Keys this kind of comparison would ignore are mistakes: warm (independent mode only:
     shadow mode runs a cold and a warm series of each solver, LCP sets solve cold) and d
     (frictional contact sets only). */
  for (int j = 0; j < nspecs; ++j) {
    const char *why = specs[j].warm >= 0 && !independent
                          ? (lcpset ? "warm: LCP sets are solved cold"
                                    : "warm: shadow mode runs a cold and a warm series of "
                                      "every solver; the key is for independent mode")
                      : specs[j].ndir > 0 ? "d: only frictional contact sets use it"
                                          : NULL;
    if (why) {
      snprintf(msg, msglen, "%s: '%s': %s", nm->solvers, specs[j].label, why);
      return LSIM_INVALID_INPUT;
    }
  }
  int ref = 0;
  if (ref_text) {
    ref = -1;
    for (int j = 0; j < nspecs; ++j)
      if (!strcmp(specs[j].label, ref_text)) ref = j;
    LsimCompareSpec r;
    if (ref < 0 && lsim_compare_parse_spec(ref_text, strlen(ref_text), &r, err, sizeof err)) {
      snprintf(msg, msglen, "%s: %s", nm->reference, err);
      return LSIM_INVALID_INPUT;
    }
    /* The reference written otherwise than in the list ("lemke[tol=1e-10]" for "lemke")
       is that solver, not a second series of it. */
    for (int j = 0; j < nspecs && ref < 0; ++j)
      if (lsim_compare_spec_same(&specs[j], &r)) ref = j;
    if (ref < 0) {
      memmove(specs + 1, specs, (size_t)nspecs * sizeof *specs);
      specs[0] = r;
      ++nspecs;
      ref = 0;
    }
  }
  for (int j = 0; j < nspecs; ++j) {
    LsimSolver *probe = NULL;
    if ((bad = make_solver(&probe, &specs[j], 0, 0, err, sizeof err))) {
      snprintf(msg, msglen, "%s", err);
      return bad;
    }
    lsim_solver_free(probe);
  }

  /* Problems: the scene, or every .dat file (all read now: bad input stops before any
     output). */
  LsimModel model;
  LsimState state0;
  memset(&model, 0, sizeof model);
  memset(&state0, 0, sizeof state0);
  char *scene_text = NULL;
  LsimLcp *dats = NULL;
  int N = 0;
  if (lcpset) {
    dats = calloc((size_t)ninputs, sizeof *dats);
    if (!dats) {
      snprintf(msg, msglen, "out of memory");
      return LSIM_OUT_OF_MEMORY;
    }
    for (int i = 0; i < ninputs; ++i)
      if ((bad = lsim_dat_read(inputs[i], &dats[i], err, sizeof err))) {
        snprintf(msg, msglen, "%s", err);
        for (int j = 0; j < i; ++j) lsim_lcp_free(&dats[j]);
        free(dats);
        return lsim_compare_status(bad, LSIM_INVALID_INPUT);
      }
    N = ninputs;
  } else {
    LsimSceneError serr;
    if ((bad = lsim_scene_load(inputs[0], &model, &state0, &scene_text, &serr))) {
      lsim_scene_error_format(&serr, err, sizeof err);
      snprintf(msg, msglen, "%s", err);
      return lsim_compare_status(bad, LSIM_INVALID_INPUT);
    }
    /* The comparison hands the time step's LCPs to the solvers: a scene the time step does
       not run as written is refused where it says so (lcpsim runs it; cli/run.c). */
    if ((bad = time_stepped(&model, scene_text, inputs[0], &serr))) {
      lsim_scene_error_format(&serr, msg, msglen);
      free(scene_text);
      lsim_state_free(&state0);
      lsim_model_free(&model);
      return bad;
    }
    if (steps_override > 0) model.steps = steps_override;
    N = model.steps;
  }

  /* Series: shadow: (solver, cold) and (solver, warm); otherwise one per solver. */
  const int P = (!lcpset && !independent) ? 2 * nspecs : nspecs;
  char (*labels)[128] = calloc((size_t)P + 1, sizeof *labels);
  char (*starts)[8] = calloc((size_t)P + 1, sizeof *starts);
  int *ser_solver = calloc((size_t)P + 1, sizeof(int));
  LsimSolver **ctx = calloc((size_t)P + 1, sizeof *ctx);
  LsimStepper **steppers = calloc((size_t)P + 1, sizeof *steppers);
  LsimState *states = calloc((size_t)P + 1, sizeof *states);
  double **zs = calloc((size_t)P + 1, sizeof *zs);
  int *zcap = calloc((size_t)P + 1, sizeof(int));
  double *sumbuf = calloc((size_t)N + 1, sizeof(double));
  LsimCompareSummary *sm = calloc((size_t)P + 1, sizeof *sm);
  LsimCompareTable t;
  memset(&t, 0, sizeof t);
  LsimCompareRows rows; /* t's datasets, grown as problems are done */
  memset(&rows, 0, sizeof rows);
  int exit_code = 0; /* 0, or the failure's status negated (> 0: the MPI maximum keeps it) */
  LsimStepper *driver = NULL;
  LsimCompareScratch sc = {NULL, 0};
  FCopy pristine, work; /* the step's factored problem: kept, and handed to the solvers */
  memset(&pristine, 0, sizeof pristine);
  memset(&work, 0, sizeof work);
  int *stopped = calloc((size_t)P + 1, sizeof(int)); /* independent: trajectory stopped */
  /* Series s has solved once, untimed, in this process (prime_first). */
  int *primed = calloc((size_t)P + 1, sizeof(int));
  double *zref = NULL;
  int zref_cap = 0;
  int reference_series = -1;
  if (!labels || !starts || !ser_solver || !ctx || !steppers || !states || !zs || !zcap ||
      !sumbuf || !sm || !stopped || !primed || lsim_compare_table_alloc(&t, N, P, independent)) {
    snprintf(msg, msglen, "out of memory");
    exit_code = -LSIM_OUT_OF_MEMORY;
    goto cleanup;
  }
  for (int j = 0, s = 0; j < nspecs; ++j) {
    const int reps = P == 2 * nspecs ? 2 : 1;
    for (int r = 0; r < reps; ++r, ++s) {
      ser_solver[s] = j;
      if (reps == 2) {
        snprintf(labels[s], sizeof labels[s], "%.95s (%s)", specs[j].label, r ? "warm" : "cold");
        snprintf(starts[s], sizeof starts[s], "%s", r ? "warm" : "cold");
      } else {
        snprintf(labels[s], sizeof labels[s], "%.95s", specs[j].label);
        snprintf(starts[s], sizeof starts[s], "%s", lcpset ? "cold" : "own");
      }
      if (j == ref && (reps == 1 || r == 1)) reference_series = s;
    }
  }

  /* Contexts: solvers (shadow, lcp set) or steppers (independent), and the driver. */
  for (int s = 0; s < P && !exit_code; ++s) {
    const LsimCompareSpec *sp = &specs[ser_solver[s]];
    if (!independent) {
      exit_code = -make_solver(&ctx[s], sp, !strcmp(starts[s], "warm"), !lcpset, err, sizeof err);
      continue;
    }
    LsimModel m = spec_model(&model, sp);
    specs[ser_solver[s]].opt.warm_start = m.solver.warm_start;
    if ((bad = spec_stepper(&steppers[s], &m, sp, err, sizeof err)) ||
        (bad = lsim_state_init(&states[s], &model))) {
      exit_code = -lsim_compare_status(bad, LSIM_INVALID_INPUT);
      break;
    }
    memcpy(states[s].q, state0.q, (size_t)model.nq * sizeof(double));
    memcpy(states[s].v, state0.v, (size_t)model.nv * sizeof(double));
    states[s].time = state0.time;
    states[s].step = state0.step;
  }
  if (!exit_code && !lcpset && !independent) {
    LsimModel m = spec_model(&model, &specs[ref]);
    for (int j = 0; j < nspecs; ++j) specs[j].opt.warm_start = -1; /* both, as series */
    specs[ref].opt.warm_start = m.solver.warm_start;
    if ((bad = spec_stepper(&driver, &m, &specs[ref], err, sizeof err)))
      exit_code = -lsim_compare_status(bad, LSIM_INVALID_INPUT);
  }
  if (exit_code) {
    snprintf(msg, msglen, "%s", err);
    goto cleanup;
  }

  /* The output file (path, checked above), under a temporary name. */
  char partial[LSIM_OUTFILE_PATH_MAX + 64];
  /* Under MPI every rank runs the same code; ranks other than 0 write a scratch file of
     their own, unlinked once open (compare/mpi.h). */
  const int root = lsim_mpi_rank() == 0;
  /* Rank 0's file: under a partial name of its own, only a regular file replaced
     (scene/outfile.h). */
  LsimOutFile of;
  memset(&of, 0, sizeof of);
  if (root && (bad = lsim_outfile_begin(&of, path, err, sizeof err))) {
    snprintf(msg, msglen, "%s", err);
    exit_code = -lsim_compare_status(bad, LSIM_IO_ERROR);
    lsim_mpi_max_int(exit_code);
    goto cleanup;
  }
  if (root && cfg->output_named) cfg->output_named(cfg->output_named_arg, path);
  if (root) snprintf(partial, sizeof partial, "%s", of.partial);
  else snprintf(partial, sizeof partial, "%s.rank%d.partial", path, lsim_mpi_rank());
  LsimCompareOut o = {.file = -1};
  o.file = lsim_h5_create(partial, err, sizeof err);
  /* A rank's scratch file is written through its open handle alone: its name goes at
     once, so that a job ended by a signal or a kill (mpirun's SIGTERM, then SIGKILL, to
     the ranks left when one dies) leaves none behind. */
  if (!root && o.file >= 0) unlink(partial);
  if (o.file < 0) {
    snprintf(msg, msglen, "%s", err);
    exit_code = -LSIM_IO_ERROR;
    lsim_mpi_max_int(exit_code); /* the others learn of it after their header */
    goto cleanup;
  }
  const double t_start = now_seconds();

  /* Header and parameters. */
  const char *mode_name = lcpset ? "lcp_set" : independent ? "independent" : "shadow";
  lsim_compare_w_int(&o, "/format_version", LSIM_COMPARE_FORMAT_VERSION);
  lsim_compare_w_str(&o, "/file_kind", "compare", 0, -1);
  lsim_compare_w_str(&o, "/lcpsim_version", LSIM_VERSION, 0, -1);
  lsim_compare_w_str(&o, "/scene_text", scene_text ? scene_text : "", 0, -1);
  lsim_compare_w_str(&o, "/parameters/mode", mode_name, 0, -1);
  lsim_compare_w_str(&o, "/parameters/input", inputs[0], 0, -1);
  lsim_compare_w_str(&o, "/parameters/reference", specs[ref].label, 0, -1);
  lsim_compare_w_int(&o, "/parameters/reference_solver", ref);
  lsim_compare_w_int(&o, "/parameters/reference_series", reference_series);
  lsim_compare_w_dbl(&o, "/parameters/success_tol", success_tol);
  lsim_compare_w_dbl(&o, "/parameters/slide_tol_factor", 1e-8);
  lsim_compare_w_int(&o, "/parameters/steps", N);
  lsim_compare_w_dbl(&o, "/parameters/time_step", lcpset ? 0.0 : model.time_step);
  lsim_compare_w_int(&o, "/parameters/dimension", lcpset ? 0 : model.dimension);
  lsim_compare_w_int(&o, "/parameters/nsolvers", nspecs);
  lsim_compare_w_int(&o, "/parameters/nseries", P);
  lsim_compare_w_int(&o, "/parameters/dump_lcp", dump);
  lsim_compare_w_int(&o, "/parameters/dense_limit", lcpset ? -1 : dense_limit);
  /* Which hash /problem_hash and /results/hash hold: scenes hand solvers the factored
     problem (lsim_factored_hash); LCP sets the dense one (lsim_lcp_hash). */
  lsim_compare_w_str(&o, "/parameters/hash_form", lcpset ? "dense" : "factored", 0, -1);
  lsim_compare_w_int(&o, "/parameters/repeat", independent ? 1 : repeat);
  lsim_compare_w_dbl(&o, "/parameters/time_limit", cfg->time_limit > 0 ? cfg->time_limit : 0.0);
  lsim_compare_write_legend(&o);
  LsimLcpDump *dumper = NULL;
  if (!o.rc && dump) {
    const char *dl[LSIM_COMPARE_MAX_COLUMNS];
    int nd = 0;
    if (independent) dl[nd++] = "own";
    else {
      if (!lcpset) dl[nd++] = "reference";
      for (int s = 0; s < P; ++s) dl[nd++] = labels[s];
    }
    if (lsim_lcpdump_open(&dumper, o.file, "/lcp", nd, dl,
                          independent ? reference_series : 0, err, sizeof err))
      o.rc = -1;
  }
  lsim_compare_write_series(&o, P, specs, nspecs, labels, ser_solver, starts,
                            reference_series);
  lsim_compare_rows_open(&rows, &o, P, independent);
  if (lcpset) lsim_compare_rows_names(&rows, &o, inputs, N); /* the files, one a row */
  /* The marks of whole flushes, and the header on disk at once: before, nothing reached
     the file until the first flush of rows, a second in, and a kill inside that flush
     left the header's links in pieces too. */
  lsim_compare_marks_open(&o, dump);
  if (!o.rc && lsim_h5_flush(o.file)) o.rc = -1;
  if (o.rc) {
    lsim_compare_write_failed(msg, msglen, path, "cannot write the header");
    exit_code = -LSIM_IO_ERROR;
  }
  /* The file's size at the last room check (lsim_compare_room_low): the header's. */
  double room_last = root ? lsim_outfile_size(&of) : 0.0;
  /* --trajectory: the driver's run recorded beside the file, copied in at the end (rank
     0; every rank steps the driver). */
  LsimRecord *traj = NULL;
  LsimModel traj_model;
  char traj_path[LSIM_OUTFILE_PATH_MAX + 80];
  snprintf(traj_path, sizeof traj_path, "%s.trajectory", partial);
  if (!exit_code && cfg->trajectory && !lcpset && !independent && root) {
    traj_model = spec_model(&model, &specs[ref]);
    /* The scene's output.record_every, as lcpsim SCENE writes it (every K-th step, step 0
       and the last); it kept every step whatever the scene said. */
    LsimSceneOutput sout;
    memset(&sout, 0, sizeof sout);
    lsim_scene_output(scene_text, inputs[0], &sout, NULL);
    if ((bad = lsim_record_open(&traj, traj_path, &traj_model, &state0, scene_text,
                               specs[ref].label, err, sizeof err)) ||
        (bad = lsim_record_set_every(traj, sout.record_every > 0 ? sout.record_every : 1, err,
                                     sizeof err))) {
      snprintf(msg, msglen, "%s: %s", nm->trajectory, err);
      exit_code = -lsim_compare_status(bad, LSIM_IO_ERROR);
    }
  }
  exit_code = lsim_mpi_max_int(exit_code);
  if (exit_code && !msg[0]) snprintf(msg, msglen, "another rank could not write its header");

  /* The problems: an LCP set's files handed out on demand over MPI ranks, a scene's steps
     by k mod K (compare/mpi.h). A serial comparison stops before problem k once cfg->stop
     is raised (done = k; stop_sig the signal). */
  const volatile sig_atomic_t *stop = lsim_mpi_size() > 1 ? NULL : cfg->stop;
  int done = N, stop_sig = 0;
  char ref_stop[512] = ""; /* why the comparison stopped before its end (done = the step) */
  lsim_mpi_share_begin(lcpset ? N : 0, 1);
  int mine = lcpset ? lsim_mpi_share_next() : -1, claim_due = 0;
  double flushed = now_seconds();
  int flushed_k = 0;
  for (int k = 0; k < N && !exit_code && !ref_stop[0]; ++k) {
    if (stop && *stop) {
      done = k, stop_sig = *stop;
      break;
    }
    /* Once a second (or every LSIM_COMPARE_FLUSH_ROWS problems) the file goes to disk
       with the tables' rows of the problems done and the dumped LCPs so far, then the
       marks of what that flush left whole: a killed comparison's partial file then opens
       with them, as a killed run's does (the summary comes at the end). Under MPI the
       rows are gathered at the end only (the marks stay 0 until then). */
    if (now_seconds() - flushed >= 1.0 || k - flushed_k >= LSIM_COMPARE_FLUSH_ROWS) {
      if (lsim_mpi_size() == 1) lsim_compare_rows_append(&rows, &o, &t, k);
      if (lsim_h5_flush(o.file)) o.rc = -1;
      lsim_compare_mark(&o, lsim_h5_rows_count(rows.d[0]), (uint64_t)lsim_lcpdump_count(dumper));
      flushed = now_seconds(), flushed_k = k;
      /* Then the room for the next flush and the close (which copies --trajectory's
         record in): too little, and the comparison stops here, its file whole with the
         rows of the problems done (a write that failed later left no file). Under MPI
         the rows reach the file at the end only: no check. */
      char why[400]; /* cut to fit the reason (ref_stop, /summary/run_end_reason) */
      if (root && lsim_mpi_size() == 1 && !o.rc &&
          lsim_compare_room_low(&of, path, &rows,
                                traj ? fmax(0.0, lsim_record_file_bytes(traj)) : 0.0,
                                &room_last, why, sizeof why)) {
        snprintf(ref_stop, sizeof ref_stop, "%s %d: %s", lcpset ? "problem" : "step", k + 1, why);
        done = k;
        break;
      }
    }
    /* The trajectory's record short of room alike (its own check, scene/record.h): it
       holds steps 1 .. k. */
    if (traj && *lsim_record_space_low(traj)) {
      snprintf(ref_stop, sizeof ref_stop, "step %d: %s: %s", k + 1, nm->trajectory,
               lsim_record_space_low(traj));
      done = k;
      break;
    }
    if (cfg->progress) cfg->progress(cfg->progress_arg, k, N);
    t.step[k] = k + 1;
    if (lcpset) {
      if (claim_due) mine = lsim_mpi_share_next(), claim_due = 0; /* the last one is done */
      if (k != mine) continue; /* another rank's problem */
      claim_due = 1;
      /* Problem k: file k, every series cold, the reference's solution first. */
      const LsimLcp *lcp = &dats[k];
      const int n = lcp->n;
      t.time[k] = 0.0;
      t.problem_hash[k] = t.problem_dense_hash[k] = lsim_lcp_hash(lcp);
      /* A distance to the reference means something only when the solution is unique:
         M a P-matrix (unique_solution). */
      const int unique = unique_solution(lcp);
      t.problem_size[k] = n;
      if (grow_d(&zref, &zref_cap, n)) goto oom;
      for (int s = 0; s < P; ++s)
        if (grow_d(&zs[s], &zcap[s], n)) goto oom;
      int order[LSIM_COMPARE_MAX_SOLVERS + 1], no = 0;
      order[no++] = reference_series;
      for (int s = 0; s < P; ++s)
        if (s != reference_series) order[no++] = s;
      int ref_ok = 1; /* the reference finished and did not fail: distances to it mean
                         something */
      for (int oi = 0; oi < no; ++oi) {
        const int s = order[oi];
        LsimSolveStats st;
        memset(&st, 0, sizeof st);
        memset(zs[s], 0, (size_t)n * sizeof(double));
        const uint64_t hs = lsim_lcp_hash(lcp); /* what this solver is handed */
        int unfinished = 0;
        /* A series' first solve in this process is preceded by an untimed one (rep -1). */
        for (int rep = -prime_first(cfg, primed, s); rep < repeat && !unfinished; ++rep) {
          memset(zs[s], 0, (size_t)n * sizeof(double));
          SolveCall call = {ctx[s], lcp, NULL, zs[s], {0}};
          if (rep < 0) {
            solve_call(&call);
            continue;
          }
          unfinished = lsim_compare_timed(solve_call, &call, cfg->time_limit, zs[s],
                                          (size_t)n, &call.st, sizeof call.st);
          st = call.st;
          times[rep] = st.wall_time;
        }
        if (unfinished) {
          memset(zs[s], 0, (size_t)n * sizeof(double));
          if (s == reference_series) ref_ok = 0;
          lsim_compare_record_unfinished(&t, k, s, unfinished == LSIM_COMPARE_TIMEOUT
                                                       ? LSIM_COMPARE_TIMEOUT : LSIM_SOLVER_FAILED,
                                         n, hs, cfg->time_limit);
          continue;
        }
        st.wall_time = lsim_compare_time_stats(times, repeat, &t.spread[(size_t)k * P + s]);
        if (s == reference_series) memcpy(zref, zs[s], (size_t)n * sizeof(double));
        /* A reference that failed leaves no solution to measure distances to. */
        if (s == reference_series && lsim_compare_is_failure(st.status)) ref_ok = 0;
        if (lsim_compare_record_solve(&t, &sc, k, s, lcp, NULL, zs[s], &st, hs,
                                      unique && ref_ok ? zref : NULL, success_tol))
          goto oom;
      }
      if (dumper) {
        const double *cols[LSIM_COMPARE_MAX_COLUMNS];
        for (int s = 0; s < P; ++s) cols[s] = zs[s];
        lsim_lcpdump_add(dumper, k + 1, 0, lcp, NULL, cols);
      }
      continue;
    }

    if (independent) {
      /* Every series steps its own trajectory; measures and hashes on the factored form.
         A dense solver's trajectory stops after its first step with n > --dense-limit (the
         size is known only once the step has built its LCP); its later steps are skipped. */
      for (int s = 0; s < P; ++s) {
        if (k == 0) {
          t.ekin[s] = lsim_kinetic_energy(&model, &states[s]);
          t.epot[s] = lsim_potential_energy(&model, &states[s]);
        }
        if (stopped[s]) {
          lsim_compare_record_skipped(&t, k, s);
          continue;
        }
        LsimStepStats st;
        const int rc = lsim_step(steppers[s], &model, &states[s], &st);
        if (rc == LSIM_OUT_OF_MEMORY || rc == LSIM_INVALID_INPUT) {
          snprintf(msg, msglen, "%s: step %d: %s", labels[s], k + 1,
                  lsim_status_name(rc));
          exit_code = -rc;
          break;
        }
        const LsimFactoredLcp *fl = lsim_stepper_factored(steppers[s]);
        const double *z = lsim_stepper_solution(steppers[s]);
        t.ekin[(size_t)(k + 1) * P + s] = lsim_kinetic_energy(&model, &states[s]);
        t.epot[(size_t)(k + 1) * P + s] = lsim_potential_energy(&model, &states[s]);
        if (fl->n == 0) {
          lsim_compare_record_empty(&t, k, s);
          continue;
        }
        if (fl->n > dense_limit && s == reference_series && specs[ref].dense) {
          /* The comparison stops here; the file keeps the steps before it. */
          snprintf(ref_stop, sizeof ref_stop, "%s: step %d: n = %d > %s %d: the reference "
                   "needs the dense M; choose a PGS reference (%s 'pgs[...]') or raise %s",
                   labels[s], k + 1, fl->n, nm->dense_limit, dense_limit, nm->reference,
                   nm->dense_limit);
          done = k;
          break;
        }
        if (fl->n > dense_limit && specs[ser_solver[s]].dense) stopped[s] = 1;
        LsimSolveStats ss;
        memset(&ss, 0, sizeof ss);
        ss.status = st.status;
        ss.iterations = st.iterations;
        ss.warm_started = st.warm_started;
        ss.wall_time = st.wall_time;
        ss.siconos_error = st.siconos_error;
        if (lsim_compare_record_solve(&t, &sc, k, s, NULL, fl, z, &ss, lsim_factored_hash(fl), NULL,
                         success_tol))
          goto oom;
        if (dumper) {
          /* The factored form, and the dense one up to --dense-limit. */
          const LsimLcp *dl = fl->n <= dense_limit ? lsim_stepper_lcp(steppers[s]) : NULL;
          if (fl->n <= dense_limit && !dl) goto oom;
          lsim_lcpdump_add_factored(dumper, k + 1, s, fl, dl, lsim_stepper_warm_guess(steppers[s]), &z);
          if (s == reference_series && dl) t.problem_dense_hash[k] = lsim_lcp_hash(dl);
        }
      }
      if (exit_code || ref_stop[0]) break;
      /* State difference to the reference trajectory (NaN once a trajectory stopped). */
      const LsimState *r = &states[reference_series];
      t.time[k] = r->time;
      t.problem_size[k] = lsim_stepper_factored(steppers[reference_series])->n;
      t.problem_hash[k] = t.hash[(size_t)k * P + reference_series];
      for (int s = 0; s < P; ++s) {
        const int gone = t.skipped[(size_t)k * P + s];
        t.qdiff[(size_t)k * P + s] =
            gone ? NAN : lsim_quality_distance(model.nq, states[s].q, r->q);
        t.vdiff[(size_t)k * P + s] =
            gone ? NAN : lsim_quality_distance(model.nv, states[s].v, r->v);
        if (gone) t.ekin[(size_t)(k + 1) * P + s] = t.epot[(size_t)(k + 1) * P + s] = NAN;
      }
      continue;
    }

    /* Shadow: the driver steps; its factored LCP goes, bit for bit, to every series
       through lsim_solver_solve_factored ("pgs" solves it as it is; the others form the
       dense M inside their context, and are skipped when n > --dense-limit). */
    LsimStepStats dst;
    const int rc = lsim_step(driver, &model, &state0, &dst);
    /* A step the comparison stops at (below: a dense reference above the dense limit) is
       not recorded in the trajectory either, which keeps the table's steps. */
    const int ref_too_big = rc != LSIM_OUT_OF_MEMORY && rc != LSIM_INVALID_INPUT &&
                            lsim_stepper_factored(driver)->n > dense_limit && specs[ref].dense;
    if (traj && rc != LSIM_OUT_OF_MEMORY && rc != LSIM_INVALID_INPUT && !ref_too_big &&
        lsim_record_step(traj, &traj_model, &state0, lsim_stepper_contacts(driver), &dst)) {
      snprintf(msg, msglen, "%s: cannot write %s", nm->trajectory, traj_path);
      exit_code = -LSIM_IO_ERROR;
      break;
    }
    if (rc == LSIM_OUT_OF_MEMORY || rc == LSIM_INVALID_INPUT) {
      snprintf(msg, msglen, "reference %s: step %d: %s", specs[ref].label, k + 1,
              lsim_status_name(rc));
      exit_code = -rc;
      break;
    }
    t.time[k] = state0.time;
    const LsimFactoredLcp *fl = lsim_stepper_factored(driver);
    const int n = fl->n;
    t.problem_size[k] = n;
    if (n == 0) {
      for (int s = 0; s < P; ++s) lsim_compare_record_empty(&t, k, s);
      continue;
    }
    if (n > dense_limit && specs[ref].dense) {
      /* The comparison stops here; the file keeps the steps before it. */
      snprintf(ref_stop, sizeof ref_stop, "step %d: n = %d > %s %d: the reference drives the "
               "trajectory and needs the dense M; choose a PGS reference (%s 'pgs[...]') or "
               "raise %s", k + 1, n, nm->dense_limit, dense_limit, nm->reference,
               nm->dense_limit);
      done = k;
      break;
    }
    if (!lsim_mpi_owns(k)) continue; /* another rank's step: the driver stepped, no series */
    /* A private copy (pristine) and the copy handed to solvers (work). */
    if (fcopy_set(&pristine, fl) || fcopy_set(&work, fl)) goto oom;
    const uint64_t h = lsim_factored_hash(&pristine.f);
    t.problem_hash[k] = h;
    const double *guess = lsim_stepper_warm_guess(driver);
    const double *zd = lsim_stepper_solution(driver);
    for (int s = 0; s < P; ++s) {
      if (grow_d(&zs[s], &zcap[s], n)) goto oom;
      if (n > dense_limit && specs[ser_solver[s]].dense) {
        lsim_compare_record_skipped(&t, k, s);
        for (int i = 0; i < n; ++i) zs[s][i] = NAN; /* dumps: not solved */
        continue;
      }
      /* --repeat K: K solves from the same start; the last one's z is recorded, the
         median time and the spread of the K. */
      LsimSolveStats st;
      uint64_t hs = h;
      int unfinished = 0;
      /* A series' first solve in this process is preceded by an untimed one (rep -1). */
      for (int rep = -prime_first(cfg, primed, s); rep < repeat; ++rep) {
        /* Restore the problem if a previous solve touched it; then its hash is h. */
        hs = h;
        if (!fcopy_same(&work, &pristine)) {
          if (fcopy_set(&work, &pristine.f)) goto oom;
          hs = lsim_factored_hash(&work.f);
        }
        /* A warm series starts as the driver's solve did: its z guess, and the carried
           Lemke basis the driver was given (used by lemke_sparse, ignored by the others;
           without it a lemke_sparse reference's warm series was not the driver's solve). */
        const int warm = !strcmp(starts[s], "warm");
        if (warm) memcpy(zs[s], guess, (size_t)n * sizeof(double));
        else memset(zs[s], 0, (size_t)n * sizeof(double));
        lsim_solver_set_basis_guess(ctx[s], warm ? lsim_stepper_basis_guess(driver) : NULL);
        SolveCall call = {ctx[s], NULL, &work.f, zs[s], {0}};
        if (rep < 0) {
          solve_call(&call);
          continue;
        }
        unfinished = lsim_compare_timed(solve_call, &call, cfg->time_limit, zs[s], (size_t)n,
                                        &call.st, sizeof call.st);
        st = call.st;
        times[rep] = st.wall_time;
        if (unfinished) break;
      }
      if (unfinished) {
        for (int i = 0; i < n; ++i) zs[s][i] = NAN; /* dumps: not solved */
        lsim_compare_record_unfinished(&t, k, s, unfinished == LSIM_COMPARE_TIMEOUT
                                                     ? LSIM_COMPARE_TIMEOUT : LSIM_SOLVER_FAILED,
                                       n, hs, cfg->time_limit);
        continue;
      }
      st.wall_time = lsim_compare_time_stats(times, repeat, &t.spread[(size_t)k * P + s]);
      if (lsim_compare_record_solve(&t, &sc, k, s, NULL, &pristine.f, zs[s], &st, hs,
                                    lsim_compare_is_failure(dst.status) ? NULL : zd,
                                    success_tol))
        goto oom;
    }
    if (dumper) {
      /* The factored form, and the dense one up to --dense-limit, as the driver's step
         formed it. */
      const LsimLcp *dl = n <= dense_limit ? lsim_stepper_lcp(driver) : NULL;
      if (n <= dense_limit && !dl) goto oom;
      if (dl) t.problem_dense_hash[k] = lsim_lcp_hash(dl);
      const double *cols[LSIM_COMPARE_MAX_COLUMNS];
      cols[0] = zd;
      for (int s = 0; s < P; ++s) cols[s + 1] = zs[s];
      lsim_lcpdump_add_factored(dumper, k + 1, 0, &pristine.f, dl, guess, cols);
    }
    continue;
  oom:
    snprintf(msg, msglen, "out of memory");
    exit_code = -LSIM_OUT_OF_MEMORY;
  }

  lsim_mpi_share_end();
  if (cfg->progress && !exit_code && !stop_sig) cfg->progress(cfg->progress_arg, N, N);
  /* Interrupted: the tables keep the rows of the problems done (row-major, so the first
     done rows), and the trajectory says it ended there. */
  t.N = done;
  if (traj && stop_sig) {
    char why[128];
    lsim_compare_end_reason(why, sizeof why, done, N, stop_sig, "step");
    lsim_record_set_end(traj, LSIM_RUN_INTERRUPTED, why);
  } else if (traj && ref_stop[0]) {
    lsim_record_set_end(traj, LSIM_RUN_STOPPED, ref_stop);
  }

  /* Results (rows of every rank gathered on rank 0), summary, close and rename. */
  exit_code = lsim_mpi_max_int(exit_code);
  if (exit_code && !msg[0]) snprintf(msg, msglen, "another rank failed");
  if (!exit_code && lsim_mpi_merge_table(&t)) {
    snprintf(msg, msglen, "MPI: cannot gather the results");
    exit_code = -LSIM_IO_ERROR;
  }
  /* The dumped LCPs' last rows go with the last rows' flush; the trajectory (in the tail,
     unlinked) too, linked with /summary after it. */
  const int nlcp = lsim_lcpdump_count(dumper);
  if (dumper && lsim_lcpdump_close(dumper, err, sizeof err) && !exit_code) {
    snprintf(msg, msglen, "%s: %s", partial, err);
    exit_code = -LSIM_IO_ERROR;
  }
  if (traj) {
    /* The record renamed to traj_path on close, copied under /trajectory, removed. */
    if (lsim_record_close(traj, !exit_code, err, sizeof err) && !exit_code) {
      snprintf(msg, msglen, "%s: %s", nm->trajectory, err);
      exit_code = -LSIM_IO_ERROR;
    }
    traj = NULL;
    if (!exit_code && lsim_compare_trajectory_copy(lsim_compare_tail(&o), traj_path, err, sizeof err)) {
      snprintf(msg, msglen, "%s: %s", nm->trajectory, err);
      exit_code = -LSIM_IO_ERROR;
    }
    unlink(traj_path);
  }
  if (!exit_code) {
    /* The last rows in a flush of their own, as the ones during the comparison; then
       /summary, made unlinked, flushed and linked (lsim_compare_summary_link), so that
       the close writes the link alone. */
    lsim_compare_rows_append(&rows, &o, &t, t.N);
    if (!o.rc && lsim_h5_flush(o.file)) o.rc = -1;
    lsim_compare_mark(&o, (uint64_t)t.N, (uint64_t)nlcp);
    for (int s = 0; s < P; ++s) lsim_compare_summarize(&t, s, sumbuf, &sm[s]);
    lsim_compare_summary_begin(&o);
    lsim_compare_write_results(&o, &rows, &t, sm, independent);
    lsim_compare_w_dbl(&o, "/summary/total_wall_time", now_seconds() - t_start);
    lsim_compare_write_end(&o, done, N, stop_sig, lcpset ? "problem" : "step", ref_stop);
    lsim_compare_summary_link(&o);
  }
  if (!exit_code && o.rc) {
    lsim_compare_write_failed(msg, msglen, path, "cannot write the results");
    exit_code = -LSIM_IO_ERROR;
  }
  lsim_compare_rows_close(&rows);
  lsim_compare_marks_close(&o);
  if (lsim_h5_close(o.file) && !exit_code) {
    lsim_compare_write_failed(msg, msglen, path, "cannot close the file");
    exit_code = -LSIM_IO_ERROR;
  }
  if (!exit_code && root && (bad = lsim_outfile_commit(&of, err, sizeof err))) {
    snprintf(msg, msglen, "%s", err);
    exit_code = -lsim_compare_status(bad, LSIM_IO_ERROR);
  } else if (exit_code && root) {
    unlink(partial);
  }
  if (!exit_code) {
    char count[64];
    if (stop_sig || ref_stop[0])
      snprintf(count, sizeof count, "%d of %d %s (%s)", done, N, lcpset ? "problems" : "steps",
               stop_sig ? "interrupted" : "stopped");
    else snprintf(count, sizeof count, "%d %s", N, lcpset ? "problems" : "steps");
    snprintf(res->title, sizeof res->title, "%s: %s mode, %s, reference %s, success = "
             "relative residual <= %g -> %s", lcpset ? "LCP set" : inputs[0], mode_name, count,
             specs[ref].label, success_tol, path);
    res->asked = N;
    res->interrupted = stop_sig;
    snprintf(res->stopped, sizeof res->stopped, "%s", ref_stop);
    snprintf(res->path, sizeof res->path, "%s", path);
    /* The table, summaries and labels pass to the result. */
    res->independent = independent;
    res->lcpset = lcpset;
    if (lsim_compare_result_take(res, &t, &sm, &labels, specs, ser_solver)) {
      snprintf(msg, msglen, "out of memory");
      exit_code = -LSIM_OUT_OF_MEMORY;
    }
  }

cleanup:
  lsim_compare_rows_close(&rows);
  for (int s = 0; s < P; ++s) {
    if (ctx) lsim_solver_free(ctx[s]);
    if (steppers) lsim_stepper_free(steppers[s]);
    if (states) lsim_state_free(&states[s]);
    if (zs) free(zs[s]);
  }
  lsim_stepper_free(driver);
  fcopy_free(&pristine);
  fcopy_free(&work);
  free(stopped);
  free(primed);
  free(zref);
  free(sc.work);
  lsim_compare_table_free(&t);
  free(labels);
  free(starts);
  free(ser_solver);
  free(ctx);
  free(steppers);
  free(states);
  free(zs);
  free(zcap);
  free(sumbuf);
  free(sm);
  for (int i = 0; dats && i < N; ++i) lsim_lcp_free(&dats[i]);
  free(dats);
  free(scene_text);
  if (!lcpset) {
    lsim_state_free(&state0);
    lsim_model_free(&model);
  }
  return -exit_code;
}
