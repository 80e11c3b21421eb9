/* solver.c: the solver-by-name front end. Dispatches to lemke.c, pgs.c or the Siconos
 * adapter, times the call, and computes the common residual from z alone. Factored
 * problems (factored.h) go to the factored PGS, or are formed densely into a buffer the
 * context owns for every other solver. */
#include "solver.h"
#include "fc_solver.h"
/* The public declaration too: lsim_solver_names is part of the library's API (LSIM_API: exported
 * from the shared library). */
#include "lcpsim/lcpsim.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "factored.h"
#include "islands.h"
#include "lemke.h"
#include "lemke_sparse.h"
#include "newton.h"
#include "pgs.h"
#include "quality.h"
#include "siconos_adapter.h"

typedef enum { KIND_LEMKE, KIND_PGS, KIND_SICONOS, KIND_NEWTON, KIND_LEMKE_SPARSE } SolverKind;

/* The solvers that work on the factored form themselves (never forming M). */
#define FACTORED_KIND(k) ((k) == KIND_NEWTON || (k) == KIND_LEMKE_SPARSE)

struct LsimSolver {
  char name[64];
  SolverKind kind;
  LsimSolverOptions options;
  LsimLemke *lemke;
  LsimPgs *pgs;
  LsimSiconos *siconos;
  LsimNewton *newton;
  LsimNewtonInfo newton_info; /* the last newton run's statistics (trace NULL) */
  int newton_info_valid;      /* 1 when a newton run made them in the last solve */
  LsimLemkeSparse *lemke_sparse;
  LsimLemkeInfo lemke_info; /* the last lemke_sparse run's statistics (trace NULL) */
  int lemke_info_valid;     /* 1 when a lemke_sparse run made them in the last solve */
  int ls_counts[3];       /* the last solve's sparse LU factorizations, rows and columns of
                             B^{-1} solved by lemke_sparse.c (its runs summed over islands,
                             and dense Lemke's LU run) */
  int *sp_ptr;            /* [capacity + 1] newton on a dense problem: zero J, B pointers */
  int *sp_cptr;           /* [capacity + 1] and M's nonzeros as C (CSR) */
  int *sp_idx;            /* [sp_nnz_cap] */
  double *sp_val;
  int sp_nnz_cap;
  int sp_cap;             /* entries of sp_ptr, sp_cptr */
  LsimIslands *islands;   /* island finder of factored problems (lemke, newton) */
  int last_islands;       /* islands of the last factored solve (1: whole) */
  double *zsub;           /* [zsub_cap] one island's z */
  int zsub_cap;
  double *zlu;            /* [zlu_cap] dense Lemke's LU run: the caller's point, then its z */
  int zlu_cap;
  int capacity;
  double *w;              /* [capacity] residual scratch */
  unsigned char *basis;   /* [capacity] Lemke basis guess from a warm z */
  const unsigned char *basis_hint; /* caller's basis guess for the next solve, or NULL */
  int cover_previous; /* lsim_solver_set_cover_previous */
  int principal;      /* lsim_solver_set_principal */
  const unsigned char *final_basis; /* final basis of the last whole sparse Lemke solve */
  int final_basis_n;
  unsigned char *isl_basis; /* [capacity] final basis gathered from the islands */
  unsigned char *sub_hint;  /* [capacity] one island's part of the basis guess */
  LsimSolveStats last;
  double *trace;          /* caller's per-iteration buffer, or NULL */
  int trace_capacity;
  /* Factored solves: the dense form and its scratch, grown on demand. */
  LsimLcp dense;          /* M [dense_capacity], q [capacity]: formed for non-PGS solvers */
  size_t dense_capacity;  /* entries of dense.M */
  int dense_q_capacity;   /* entries of dense.q */
  int dense_valid;        /* the last solve formed dense */
  const double *bz;       /* B z [m] of the last factored solve's z (the PGS workspace's), or
                             NULL */
  double capture_seconds; /* Siconos solvers: time the last call spent capturing stdout */
  int siconos_ran;        /* the last solve called the Siconos solver */
  char printed[1024];     /* what Siconos printed during the last solve, every island's */
  char message[1400];     /* lsim_solver_last_message's text, made when asked */
  char verdict[200];      /* why a success was not taken (verify_siconos, verify_units), ""
                             when it was */
  double *ud;             /* [ud_cap] verify_units' scratch (the diagonal of M) */
  int ud_cap;
  double *floor_u;        /* [floor_u_cap] the residual floor's scratch (m entries) */
  int floor_u_cap;
  unsigned char *uplain;  /* [uplain_cap] verify_units' rows judged on the plain measure */
  int uplain_cap;
  int capacity_m;
  double *u;              /* [capacity_m] residual scratch (u = B z) */
  int *jt_ptr;            /* [capacity_m + 1] J transposed, for lsim_factored_to_dense */
  int capacity_nnz;
  int *jt_idx;            /* [capacity_nnz] */
  double *jt_val;         /* [capacity_nnz] */
  /* The fallback chain (solver.h, FALLBACK): its own solvers and buffers, made on first
     use and grown on demand. */
  LsimLemke *fb_lemke;
  LsimPgs *fb_pgs;
  int fb_cap;             /* n the buffers below hold */
  double *fb_start;       /* [fb_start_cap] the point the solve started from */
  int fb_start_cap;
  double *fb_island_start; /* [fb_island_cap] one island's start (factored solvers) */
  int fb_island_cap;
  double *fb_best;        /* [fb_cap] the best candidate so far */
  double *fb_try;         /* [fb_cap] a candidate */
  double *fb_scale;       /* [fb_cap] D of the rescaled problem */
  double *fb_w;           /* [fb_cap] residual scratch */
  unsigned char *fb_basis; /* [fb_cap] a Lemke basis guess */
  LsimLcp fb_scaled;      /* M [fb_cap^2], q [fb_cap]: D M D, D q */
  /* The energy guard (solver.h, ENERGY GUARD): the caller's judge, the variables of the
     problem the chain runs on (NULL: all), and the chain's candidates kept for it. */
  LsimEnergyExcess judge;
  void *judge_ctx;
  const int *fb_vars;
  double *fb_cand;        /* [CHAIN_CANDIDATES * fb_cap] the candidates, in order */
  double fb_cres[8];      /* their residuals */
  int fb_csrc[8];         /* their sources */
  int fb_ncand;
  /* The impulse unit (UNITS below): the last solve's unit and the scaled copy of its
     problem, grown on demand. */
  double unit;            /* the last solve's impulse unit s (1: solved as given) */
  double *ucol;           /* [ucol_cap] c_i: s on impulse variables, 1 on the cones' lambda */
  int ucol_cap;
  double *udiag;          /* [udiag_cap] scratch of the diagonal (m entries, kept zero) */
  int udiag_cap;
  double *uJ, *uB, *uC, *uq; /* the scaled J, B, C values and q */
  int uJ_cap, uB_cap, uC_cap, uq_cap;
  LsimConeBlock *ucones;  /* [ucones_cap] the cones, fixed normals in the unit */
  int ucones_cap;
  LsimLcp udense;         /* M [udense_cap], q [uq_cap]: a dense problem in the unit */
  size_t udense_cap;
  double *ujudge;         /* [ujudge_cap] a candidate handed to the energy judge, physical */
  int ujudge_cap;
};


static const char *const own_names[] = {"lemke", "pgs", "newton", "lemke_sparse", NULL};

/* Own names first, then "siconos:" + each adapter name; built once, under pthread_once:
 * simulations in different threads ask for it at once (loading a scene, making a solver). */
static const char *solver_names[64];
static char solver_names_storage[64][40];
static pthread_once_t solver_names_once = PTHREAD_ONCE_INIT;

static void build_solver_names(void) {
  int k = 0;
  for (int i = 0; own_names[i]; ++i) solver_names[k++] = own_names[i];
  const char *const *sn = lsim_siconos_names();
  for (int i = 0; sn[i] && k < 63; ++i) {
    snprintf(solver_names_storage[k], sizeof solver_names_storage[k], "siconos:%s", sn[i]);
    solver_names[k] = solver_names_storage[k];
    ++k;
  }
  solver_names[k] = NULL;
}

const char *const *lsim_solver_names(void) {
  pthread_once(&solver_names_once, build_solver_names);
  return solver_names;
}

int lsim_solver_needs_dense(const char *name) {
  return strcmp(name, "pgs") != 0 && strcmp(name, "newton") != 0 &&
         strcmp(name, "lemke_sparse") != 0;
}

LsimSolverOptions lsim_default_solver_options(void) {
  LsimSolverOptions o = {.tol = 1e-10, .max_iter = 0, .omega = 1.0, .warm_start = 0,
                         .threads = 1, .islands = 0, .sparse_limit = 0, .impulse_unit = 0};
  return o;
}

int lsim_lu_solve_parse(const char *word, int *lu) {
  static const char *const names[] = {"umfpack", "own", "klu", "ft"};
  for (int k = 0; k < 4; ++k)
    if (word && !strcmp(word, names[k])) {
      *lu = LSIM_LU_UMFPACK + k;
      return 0;
    }
  return -1;
}

const char *lsim_lu_solve_name(int lu) {
  static const char *const names[] = {"default", "umfpack", "own", "klu", "ft"};
  return lu >= 0 && lu <= LSIM_LU_FT ? names[lu] : "?";
}

static void set_err(char *err, size_t errlen, const char *msg) {
  if (err && errlen) snprintf(err, errlen, "%s", msg);
}

int lsim_solver_create(LsimSolver **out, const char *name, const LsimSolverOptions *opt,
                       char *err, size_t errlen) {
  *out = NULL;
  const LsimSolverOptions o = opt ? *opt : lsim_default_solver_options();
  if (!(o.tol >= 0.0) || o.max_iter < 0 || !(o.omega > 0.0 && o.omega < 2.0) || o.threads < 0 ||
      o.threads > LSIM_PGS_MAX_THREADS || o.sparse_limit < -1 || o.block_start < 0 ||
      o.block_start > 1000 || o.lu_solve < LSIM_LU_DEFAULT || o.lu_solve > LSIM_LU_FT ||
      (o.lu_refactor != 0 && (o.lu_refactor < 10 || o.lu_refactor > 100000)) ||
      o.principal < 0 || o.principal > LSIM_PRINCIPAL_MAX || o.precision < 0 || o.precision > 2) {
    set_err(err, errlen, "invalid solver options: need tol >= 0, max_iter >= 0, 0 < omega < 2, "
                         "0 <= threads <= 64, sparse_limit >= -1, 0 <= block_start <= 1000, "
                         "lu_solve one of LSIM_LU_*, lu_refactor 0 or 10 .. 100000, "
                         "0 <= principal <= 1000000, precision 0, 1 or 2");
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
  s->cover_previous = o.cover_previous != 0;

  int rc = 0;
  /* The exact solvers have no sweeps: tol 0 (a fixed sweep budget) is not theirs. */
  if ((strcmp(name, "lemke") == 0 || strcmp(name, "lemke_sparse") == 0 ||
       strcmp(name, "newton") == 0) && !(o.tol > 0.0)) {
    if (err && errlen)
      /* In the options' own names (tol, max_iter: the C structs', the Python keywords',
         the scene's solver keys), not one caller's command-line flags. */
      snprintf(err, errlen, "%s needs a tolerance > 0 (tol 0 means a fixed sweep budget, "
               "which only iterative solvers such as pgs have; e.g. tol 1e-10 with max_iter 0, "
               "the solver's default budget)",
               name);
    free(s);
    return LSIM_INVALID_INPUT;
  } else if (strcmp(name, "lemke") == 0) {
    s->kind = KIND_LEMKE;
    if (!(s->lemke = lsim_lemke_create())) rc = LSIM_OUT_OF_MEMORY;
  } else if (strcmp(name, "pgs") == 0) {
    s->kind = KIND_PGS;
    if (!(s->pgs = lsim_pgs_create())) rc = LSIM_OUT_OF_MEMORY;
  } else if (strcmp(name, "newton") == 0) {
    s->kind = KIND_NEWTON;
    if (!(s->newton = lsim_newton_create())) rc = LSIM_OUT_OF_MEMORY;
  } else if (strcmp(name, "lemke_sparse") == 0) {
    s->kind = KIND_LEMKE_SPARSE;
    if (!(s->lemke_sparse = lsim_lemke_sparse_create())) rc = LSIM_OUT_OF_MEMORY;
    /* 0 leaves the workspace's own setting (the environment's LSIM_BLOCK_START, else 0). */
    else {
      if (o.block_start > 0) lsim_lemke_sparse_set_block_start(s->lemke_sparse, o.block_start);
      /* LSIM_LU_DEFAULT and lu_refactor 0 leave the environment's settings, as block 0 */
      if (o.lu_solve != LSIM_LU_DEFAULT) {
        /* ft runs on the own solves; each setting turns the others' off */
        lsim_lemke_sparse_set_klu(s->lemke_sparse, o.lu_solve == LSIM_LU_KLU);
        if (o.lu_solve != LSIM_LU_KLU) {
          lsim_lemke_sparse_set_ft(s->lemke_sparse, o.lu_solve == LSIM_LU_FT);
          lsim_lemke_sparse_set_own_solve(s->lemke_sparse,
                                          o.lu_solve == LSIM_LU_OWN || o.lu_solve == LSIM_LU_FT);
        }
      }
      if (o.lu_refactor > 0) lsim_lemke_sparse_set_refactor(s->lemke_sparse, o.lu_refactor);
      /* principal 0 leaves the environment's LSIM_PRINCIPAL, as block 0 */
      s->principal = lsim_solver_principal_setting(name, &o);
    }
  } else if (strncmp(name, "siconos:", 8) == 0 && !lsim_solver_is_fc_name(name)) {
    s->kind = KIND_SICONOS;
    rc = lsim_siconos_create(&s->siconos, name + 8, err, errlen);
  } else {
    char msg[256];
    if (lsim_solver_is_fc_name(name))
      snprintf(msg, sizeof msg, "'%s' is a frictional contact solver (exact Coulomb cone: "
               "lcpsim solve on a frictional contact file), not an LCP solver (try lemke, pgs, "
               "newton, siconos:lemke)", name);
    else if (strchr(name, '['))
      /* A spec of lcpsim compare (pgs[sweeps=20]) where a plain name is taken. */
      snprintf(msg, sizeof msg, "unknown solver '%s': options in brackets are lcpsim compare's "
               "solver specs; here the name goes alone and the options apart (--tol, --max-iter, "
               "--omega; a scene's solver object; the API's LsimSolverConfig)", name);
    else
      snprintf(msg, sizeof msg, "unknown solver '%s' (try lemke, pgs, newton, siconos:lemke; "
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

int lsim_solver_precision_setting(const char *name, const LsimSolverOptions *o) {
  if (!name || strcmp(name, "pgs")) return -1;
  /* LSIM_PGS_PRECISION=float|double (lcpsim refuses another value; the library takes it
     as unset) */
  const char *e = getenv("LSIM_PGS_PRECISION");
  const int asked = o && o->precision > 0 ? o->precision - 1 : e && !strcmp(e, "float");
  /* Single precision acts at a fixed budget of float rows only (pgs_fast.c): elsewhere
     the sweep is double whatever was asked. */
  return asked && (!o || lsim_solver_precision_acts(o->tol, o->max_iter));
}

int lsim_solver_precision_acts(double tol, int max_iter) {
  return tol == 0.0 && max_iter >= 1 && max_iter <= LSIM_PGS_FLOAT_MAX_SWEEPS;
}

int lsim_solver_principal_setting(const char *name, const LsimSolverOptions *o) {
  if (!name || strcmp(name, "lemke_sparse")) return -1;
  if (o && o->principal > 0) return o->principal;
  /* LSIM_PRINCIPAL=K (lcpsim refuses a value out of range; the library takes it as unset) */
  const char *e = getenv("LSIM_PRINCIPAL");
  if (!e) return 0;
  char *end;
  const long k = strtol(e, &end, 10);
  return end != e && !*end && k >= 0 && k <= LSIM_PRINCIPAL_MAX ? (int)k : 0;
}

int lsim_lemke_sparse_effective(const LsimSolverOptions *o, int *block_start, int *lu_solve,
                                int *lu_refactor) {
  /* A workspace made as lsim_solver_create makes it, read back: the environment's parsing
     and the options' precedence in one place. */
  LsimSolver *s = NULL;
  const int rc = lsim_solver_create(&s, "lemke_sparse", o, NULL, 0);
  if (rc) return rc;
  int klu = 0, own = 0, ft = 0;
  lsim_lemke_sparse_get_settings(s->lemke_sparse, block_start, &klu, &own, &ft, lu_refactor);
  *lu_solve = klu ? LSIM_LU_KLU : ft ? LSIM_LU_FT : own ? LSIM_LU_OWN : LSIM_LU_UMFPACK;
  lsim_solver_free(s);
  return 0;
}

int lsim_solver_sparse_settings(const char *name, const LsimSolverOptions *o, int *block_start,
                                int *lu_solve, int *lu_refactor) {
  *block_start = *lu_solve = *lu_refactor = 0;
  if (!strcmp(name, "lemke_sparse")) {
    const int rc = lsim_lemke_sparse_effective(o, block_start, lu_solve, lu_refactor);
    return rc ? rc : 1;
  }
  if (strcmp(name, "newton") && strcmp(name, "lemke")) return 0;
  /* Their workspaces are made by lsim_lemke_sparse_create alone (newton.c, lemke_lu_run):
     the environment's settings, else the built-in ones. */
  const LsimSolverOptions plain = lsim_default_solver_options();
  const int rc = lsim_lemke_sparse_effective(&plain, block_start, lu_solve, lu_refactor);
  return rc ? rc : 1;
}

void lsim_solver_free(LsimSolver *s) {
  if (!s) return;
  lsim_lemke_free(s->lemke);
  lsim_pgs_free(s->pgs);
  lsim_siconos_free(s->siconos);
  lsim_newton_free(s->newton);
  lsim_lemke_sparse_free(s->lemke_sparse);
  lsim_islands_free(s->islands);
  free(s->zsub);
  free(s->zlu);
  free(s->sp_ptr);
  free(s->sp_cptr);
  free(s->sp_idx);
  free(s->sp_val);
  free(s->w);
  free(s->ud);
  free(s->floor_u);
  free(s->uplain);
  free(s->basis);
  free(s->isl_basis), free(s->sub_hint);
  free(s->dense.M);
  free(s->dense.q);
  free(s->u);
  free(s->jt_ptr);
  free(s->jt_idx);
  free(s->jt_val);
  lsim_lemke_free(s->fb_lemke);
  lsim_pgs_free(s->fb_pgs);
  free(s->fb_start);
  free(s->fb_island_start);
  free(s->fb_best);
  free(s->fb_try);
  free(s->fb_scale);
  free(s->fb_w);
  free(s->fb_basis);
  free(s->fb_scaled.M);
  free(s->fb_scaled.q);
  free(s->fb_cand);
  free(s->ucol), free(s->udiag), free(s->uJ), free(s->uB), free(s->uC), free(s->uq);
  free(s->ucones), free(s->udense.M), free(s->ujudge);
  free(s);
}

const char *lsim_source_name(int source) {
  static const char *const names[LSIM_SOURCE_COUNT] = {
      "solver", "lemke", "lemke_scaled", "pgs", "start", "pgs_cold", "none"};
  return source >= 0 && source < LSIM_SOURCE_COUNT ? names[source] : "unknown";
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
  b = realloc(s->isl_basis, (size_t)n);
  if (!b) return LSIM_OUT_OF_MEMORY;
  s->isl_basis = b;
  b = realloc(s->sub_hint, (size_t)n);
  if (!b) return LSIM_OUT_OF_MEMORY;
  s->sub_hint = b;
  s->capacity = n;
  return 0;
}

static LsimPgsOptions pgs_options(const LsimSolverOptions *o) {
  LsimPgsOptions po = lsim_default_pgs_options();
  po.max_sweeps = o->max_iter;
  po.tol = o->tol;
  po.omega = o->omega;
  po.threads = o->threads;
  po.precision = lsim_solver_precision_setting("pgs", o) == 1;
  return po;
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static LsimNewtonOptions newton_options(const LsimSolverOptions *o) {
  LsimNewtonOptions no = lsim_default_newton_options();
  no.tol = o->tol;
  no.max_iter = o->max_iter;
  no.sparse_limit = o->sparse_limit;
  return no;
}

/* The newton solver on the factored problem f; fills the solver's part of st. */
static int run_lemke_sparse(LsimSolver *s, const LsimFactoredLcp *f, double *z,
                            LsimSolveStats *st);

static int run_newton(LsimSolver *s, const LsimFactoredLcp *f, double *z, LsimSolveStats *st) {
  if (s->kind == KIND_LEMKE_SPARSE) return run_lemke_sparse(s, f, z, st);
  const LsimNewtonOptions no = newton_options(&s->options);
  LsimNewtonInfo ni = {.trace = s->trace, .trace_capacity = s->trace_capacity};
  const int status = lsim_newton_solve_factored(s->newton, f, &no, s->options.warm_start, z, &ni);
  s->newton_info = ni;
  s->newton_info.trace = NULL;
  s->newton_info_valid = 1;
  /* Its steps (each a factorization or solve) and the PGS sweeps of its start and restarts:
     a solve the PGS start finished did work too (never 0 then). */
  st->iterations = ni.iterations + ni.ipm_iterations + ni.sweeps;
  st->warm_started = s->options.warm_start;
  st->trace_len = ni.trace_len;
  return status;
}

/* Adds the last lsim_lemke_sparse_solve's solve counts to the solve's (ls_counts). */
static void add_sparse_counts(LsimSolver *s) {
  int c[3];
  lsim_lemke_sparse_counts(s->lemke_sparse, &c[0], &c[1], &c[2]);
  for (int k = 0; k < 3; ++k) s->ls_counts[k] += c[k];
}

/* Sparse Lemke (lemke_sparse.c) on the factored problem f, its basis guessed from z > 0
 * when warm (as lemke's); fills the solver's part of st. s->basis holds f->n. */
static int run_lemke_sparse(LsimSolver *s, const LsimFactoredLcp *f, double *z,
                            LsimSolveStats *st) {
  const LsimSolverOptions *o = &s->options;
  LsimLemkeOptions lo = lsim_default_lemke_options();
  lo.max_pivots = o->max_iter;
  lo.tol = o->tol;
  lo.floor = o->fallback && o->impulse_unit; /* a step's problem: rows within their floors */
  const unsigned char *guess = NULL;
  if (o->warm_start && s->basis_hint) {
    /* The caller's basis (lsim_solver_set_basis_guess), e.g. the last step's final one. */
    guess = s->basis_hint;
  } else if (o->warm_start) {
    /* z_i basic where z_i > 0, as lemke's (z_i > w_i, w from this step's q, was measured:
       about 1.4x the pivots on the settled pile_100). */
    for (int i = 0; i < f->n; ++i) s->basis[i] = z[i] > 0.0;
    guess = s->basis;
  } else if (f->n > 0) {
    memset(z, 0, (size_t)f->n * sizeof(double));
  }
  LsimLemkeInfo li = {.trace = s->trace, .trace_capacity = s->trace_capacity};
  /* A caller's basis that fails is followed by z > 0 before the cold runs. */
  lsim_lemke_sparse_set_retry_positive(s->lemke_sparse, guess != NULL && guess == s->basis_hint);
  /* Its path covered by the caller's point in that basis when asked (d = B x'). */
  lsim_lemke_sparse_set_cover_previous(s->lemke_sparse,
                                       s->cover_previous && guess != NULL && guess == s->basis_hint);
  /* Principal pivots from the caller's basis first when asked (off by default). */
  lsim_lemke_sparse_set_principal(s->lemke_sparse, guess != NULL ? s->principal : 0);
  const int status = lsim_lemke_sparse_solve(s->lemke_sparse, f, &lo, guess, z, &li);
  add_sparse_counts(s);
  s->lemke_info = li;
  s->lemke_info.trace = NULL;
  s->lemke_info_valid = 1;
  s->final_basis = lsim_lemke_sparse_basis(s->lemke_sparse);
  s->final_basis_n = f->n;
  st->iterations = li.pivots;
  st->warm_started = li.warm_started;
  st->trace_len = li.trace_len;
  st->rejected |= li.rejected;
  return status;
}

/* The dense lcp as a factored problem: M's nonzeros by rows as C (J, B empty, m = 0), in
 * buffers the context keeps, into *f. 0 or LSIM_OUT_OF_MEMORY. */
static int dense_as_factored(LsimSolver *s, const LsimLcp *lcp, LsimFactoredLcp *f) {
  const int n = lcp->n;
  int pcap = s->sp_cap, ccap = s->sp_cap;
  if (lsim_grow((void **)&s->sp_ptr, &pcap, n + 1, sizeof(int)) ||
      lsim_grow((void **)&s->sp_cptr, &ccap, n + 1, sizeof(int)))
    return LSIM_OUT_OF_MEMORY;
  s->sp_cap = pcap < ccap ? pcap : ccap;
  size_t nnz = 0;
  for (size_t k = 0; k < (size_t)n * (size_t)n; ++k) nnz += lcp->M[k] != 0.0;
  if (nnz > (size_t)INT_MAX / 2) return LSIM_OUT_OF_MEMORY;
  int vcap = s->sp_nnz_cap, icap = s->sp_nnz_cap;
  if (lsim_grow((void **)&s->sp_idx, &icap, (int)nnz + 1, sizeof(int)) ||
      lsim_grow((void **)&s->sp_val, &vcap, (int)nnz + 1, sizeof(double)))
    return LSIM_OUT_OF_MEMORY;
  s->sp_nnz_cap = icap < vcap ? icap : vcap;
  /* C by rows from the column-major M. */
  int k = 0;
  for (int i = 0; i < n; ++i) {
    s->sp_ptr[i] = 0;
    s->sp_cptr[i] = k;
    for (int j = 0; j < n; ++j) {
      const double v = lcp->M[i + (size_t)j * (size_t)n];
      if (v != 0.0) s->sp_idx[k] = j, s->sp_val[k++] = v;
    }
  }
  s->sp_ptr[n] = 0;
  s->sp_cptr[n] = k;
  const LsimFactoredLcp g = {.n = n, .m = 0, .J_ptr = s->sp_ptr, .B_ptr = s->sp_ptr,
                             .C_ptr = s->sp_cptr, .C_idx = s->sp_idx, .C_val = s->sp_val,
                             .q = lcp->q, .ncones = lcp->ncones, .cones = lcp->cones};
  *f = g;
  return 0;
}

/* A dense problem handed to a factored solver (newton, lemke_sparse) as C = M. */
static int run_newton_dense(LsimSolver *s, const LsimLcp *lcp, double *z, LsimSolveStats *st) {
  LsimFactoredLcp f;
  const int rc = dense_as_factored(s, lcp, &f);
  return rc ? rc : run_newton(s, &f, z, st);
}

/* Dense Lemke's last run, after its cold runs failed: the same path rules (lemke_driver.c)
 * with the basis kept as an LU factorization (lemke_sparse.c, on C = M) instead of the
 * explicit inverse updated in product form, from the caller's point zin and the same
 * guess. Same method, more accurate basis: on 60 LCPs of data/box_stack_3d.json driven by
 * PGS at 50 sweeps (n = 120, five stacked cubes, four redundant corners a face) the
 * explicit inverse broke down on 19 (ties decided on rows of B^-1 in error), the LU form
 * on 1. Returns its status; its z in s->zlu, its pivots in *pivots. */
static int lemke_lu_run(LsimSolver *s, const LsimLcp *lcp, const double *zin,
                        const unsigned char *guess, const LsimLemkeOptions *lo, int *pivots) {
  const int n = lcp->n;
  *pivots = 0;
  if (lsim_grow((void **)&s->zlu, &s->zlu_cap, n > 0 ? n : 1, sizeof(double)))
    return LSIM_OUT_OF_MEMORY;
  if (!s->lemke_sparse && !(s->lemke_sparse = lsim_lemke_sparse_create())) return LSIM_OUT_OF_MEMORY;
  LsimFactoredLcp f;
  if (dense_as_factored(s, lcp, &f)) return LSIM_OUT_OF_MEMORY;
  memcpy(s->zlu, zin, (size_t)n * sizeof(double));
  lsim_lemke_sparse_set_retry_positive(s->lemke_sparse, 0);
  lsim_lemke_sparse_set_cover_previous(s->lemke_sparse, 0);
  lsim_lemke_sparse_set_principal(s->lemke_sparse, 0);
  LsimLemkeInfo li;
  memset(&li, 0, sizeof li);
  const int status = lsim_lemke_sparse_solve(s->lemke_sparse, &f, lo, guess, s->zlu, &li);
  add_sparse_counts(s);
  *pivots = li.pivots;
  return status;
}

/* 1 for the Siconos LCP solvers that start from the z they are given: the iterative ones
 * (projected Gauss-Seidel variants, CPG, LATIN, the Newton methods, projected gradient);
 * the pivoting ones (Lemke, PIVOT, MURTY, BARD, ENUM, PATHSEARCH, AVI) build their own
 * start. */
static int siconos_reads_guess(const char *name) {
  static const char *const iterative[] = {
      "siconos:pgs", "siconos:psor", "siconos:rpgs", "siconos:nsgs_sbm", "siconos:cpg",
      "siconos:latin", "siconos:latin_w", "siconos:newton_min", "siconos:newton_fb",
      "siconos:newton_min_fblsa", "siconos:convexqp_pg", NULL};
  for (int k = 0; iterative[k]; ++k)
    if (!strcmp(name, iterative[k])) return 1;
  return 0;
}

static int run_solver(LsimSolver *s, const LsimLcp *lcp, double *z, LsimSolveStats *st);

/* ---- the fallback chain (solver.h, FALLBACK) ---- */

/* 1 when a solve that ended with status calls for the chain: a numerical failure, with a
 * tolerance to meet. */
static int chain_wanted(const LsimSolver *s, int status) {
  if (!s->options.fallback || status >= 0 || !(s->options.tol > 0.0)) return 0;
  return status != LSIM_INVALID_INPUT && status != LSIM_OUT_OF_MEMORY &&
         status != LSIM_UNAVAILABLE;
}

/* Under the fallback policy a step counts as failed only if nothing met the tolerance
 * (docs/solvers.md, "Failure policy"): a failed solve whose own result meets it anyway
 * (Lemke's verified last basis after a breakdown, on a problem above the chain's size
 * limit: a bin of 48 spheres, n = 708, relative residual 6.4e-11 at tol 1e-10) is solved;
 * first_status keeps the failure. */
static int met_anyway(const LsimSolver *s, int status, const LsimSolveStats *st) {
  return chain_wanted(s, status) && st->residual.relative <= s->options.tol ? LSIM_SOLVED
                                                                             : status;
}

/* ... or within the rounding floor of the residual itself (quality.h,
 * lsim_lcp_residual_floor): the acceptance is natural <= max(tol max|q|, floor), so a
 * result as exact as double precision allows is not a failure (a 1e6 kg cube at rest on a
 * 1 kg slab failed every step at residuals of 3.5e-11 .. 1e-10 against a target of
 * 9.8e-12, below the rounding of the cube's impulses of 4.9e4 N s). The final verdict
 * only: the solvers' own stops and the chain keep the target tol max|q| (but Lemke's on a
 * step's problem, LsimLemkeOptions.floor: row by row). floor is the
 * problem's floor at z, computed by the caller only when the plain target was missed. */
static int met_floor(const LsimSolver *s, int status, const LsimSolveStats *st, double floor) {
  return chain_wanted(s, status) && st->residual.natural <= floor ? LSIM_SOLVED : status;
}

/* 1 when the caller is to compute the floor for met_floor: a failure met_anyway kept. */
static int floor_wanted(const LsimSolver *s, int status, const LsimSolveStats *st) {
  return chain_wanted(s, status) && !(st->residual.relative <= s->options.tol) &&
         isfinite(st->residual.natural);
}

/* ... and the problem (or island) of n variables is small enough for the dense stages. */
static int chain_applies(const LsimSolver *s, int status, int n) {
  return chain_wanted(s, status) && n >= 1 && n <= LSIM_FALLBACK_MAX_N;
}

/* The start point's buffer for n variables: every solve keeps its start (no allocation
 * once the largest n has been seen). 0 or LSIM_OUT_OF_MEMORY. */
static int reserve_start(LsimSolver *s, int n) {
  int cap = s->fb_start_cap;
  if (lsim_grow((void **)&s->fb_start, &cap, n, sizeof(double))) return LSIM_OUT_OF_MEMORY;
  s->fb_start_cap = cap;
  return 0;
}

/* The candidates a chain judges at most: the solver's result, the start, three stages. */
enum { CHAIN_CANDIDATES = 5 };

/* The chain's other buffers for n variables (the rescaled M among them) and its solvers,
 * made when a chain first runs. 0 or LSIM_OUT_OF_MEMORY. */
static int reserve_chain(LsimSolver *s, int n) {
  if (!s->fb_lemke && !(s->fb_lemke = lsim_lemke_create())) return LSIM_OUT_OF_MEMORY;
  if (!s->fb_pgs && !(s->fb_pgs = lsim_pgs_create())) return LSIM_OUT_OF_MEMORY;
  if (n <= s->fb_cap) return 0;
  double **v[] = {&s->fb_best, &s->fb_try, &s->fb_scale, &s->fb_w, &s->fb_scaled.q};
  for (size_t k = 0; k < sizeof v / sizeof v[0]; ++k) {
    double *p = realloc(*v[k], (size_t)n * sizeof(double));
    if (!p) return LSIM_OUT_OF_MEMORY;
    *v[k] = p;
  }
  unsigned char *b = realloc(s->fb_basis, (size_t)n);
  if (!b) return LSIM_OUT_OF_MEMORY;
  s->fb_basis = b;
  double *M = realloc(s->fb_scaled.M, (size_t)n * (size_t)n * sizeof(double));
  if (!M) return LSIM_OUT_OF_MEMORY;
  s->fb_scaled.M = M;
  double *c = realloc(s->fb_cand, (size_t)CHAIN_CANDIDATES * (size_t)n * sizeof(double));
  if (!c) return LSIM_OUT_OF_MEMORY;
  s->fb_cand = c;
  s->fb_cap = n;
  return 0;
}

/* Keeps the start point of a solve of n variables (warm: z, else zeros) for the chain,
 * when the chain may run (any n: the factored solvers' chain works island by island);
 * else does nothing. */
static void chain_keep_start(LsimSolver *s, int n, const double *z) {
  if (!s->options.fallback || n < 1 || reserve_start(s, n)) return;
  double *st = s->fb_start;
  if (!s->options.warm_start) {
    for (int i = 0; i < n; ++i) st[i] = 0.0;
    return;
  }
  int i = 0;
#if defined(__SSE2__)
  /* In SSE2 pairs: z_i and'ed with the mask |z_i| <= DBL_MAX (z_i itself, or +0). */
  const __m128d sign = _mm_set1_pd(-0.0), big = _mm_set1_pd(DBL_MAX);
  for (; i + 2 <= n; i += 2) {
    const __m128d v = _mm_loadu_pd(z + i);
    _mm_storeu_pd(st + i, _mm_and_pd(v, _mm_cmple_pd(_mm_andnot_pd(sign, v), big)));
  }
#endif
  for (; i < n; ++i) st[i] = isfinite(z[i]) ? z[i] : 0.0;
}

/* Natural residual of z on lcp (+inf when not finite). */
static double chain_residual(const LsimSolver *s, const LsimLcp *lcp, const double *z) {
  LsimResidual r;
  lsim_lcp_residual(lcp, z, s->fb_w, &r);
  return isfinite(r.natural) ? r.natural : INFINITY;
}

/* Keeps candidate z [n] of residual r for the energy guard (when a judge is set). */
static void chain_keep(LsimSolver *s, int n, const double *z, double r, int source) {
  const int k = s->fb_ncand;
  if (!s->judge || k >= CHAIN_CANDIDATES) return;
  memcpy(s->fb_cand + (size_t)k * n, z, (size_t)n * sizeof(double));
  s->fb_cres[k] = r, s->fb_csrc[k] = source, s->fb_ncand = k + 1;
}

/* The candidate in fb_try replaces the best when its residual is smaller. */
static void chain_consider(LsimSolver *s, const LsimLcp *lcp, int source, double *best,
                           int *best_source) {
  const double r = chain_residual(s, lcp, s->fb_try);
  chain_keep(s, lcp->n, s->fb_try, r, source);
  if (!(r < *best)) return;
  *best = r;
  *best_source = source;
  memcpy(s->fb_best, s->fb_try, (size_t)lcp->n * sizeof(double));
}

/* The caller's judge of candidate z [n] (the chain's problem's variables, fb_vars), in
 * physical units whatever unit the solve ran in (UNITS below); NaN (refused) when the
 * scratch cannot be had. */
static double judge_physical(LsimSolver *s, const double *z, int n) {
  if (s->unit == 1.0) return s->judge(s->judge_ctx, z, s->fb_vars, n);
  if (lsim_grow((void **)&s->ujudge, &s->ujudge_cap, n, sizeof(double))) return NAN;
  for (int r = 0; r < n; ++r) s->ujudge[r] = z[r] * s->ucol[s->fb_vars ? s->fb_vars[r] : r];
  return s->judge(s->judge_ctx, s->ujudge, s->fb_vars, n);
}

/* The energy guard (solver.h, ENERGY GUARD) after a chain that met no tolerance: the kept
 * candidates in order of residual, the first the judge passes (excess <= 0; NaN refuses)
 * into fb_best; else PGS from zeros, else zeros. Returns the winner's source; fills
 * st->guard and st->refused_energy. */
static int chain_guard(LsimSolver *s, const LsimLcp *lcp, int source, LsimSolveStats *st) {
  const int n = lcp->n;
  const size_t bytes = (size_t)n * sizeof(double);
  int order[CHAIN_CANDIDATES];
  for (int k = 0; k < s->fb_ncand; ++k) {
    int j = k;
    for (; j > 0 && s->fb_cres[order[j - 1]] > s->fb_cres[k]; --j) order[j] = order[j - 1];
    order[j] = k;
  }
  int guard = 1;
  for (int r = 0; r < s->fb_ncand; ++r) {
    const double *z = s->fb_cand + (size_t)order[r] * n;
    const double e = judge_physical(s, z, n);
    if (e <= 0.0) {
      if (r > 0) memcpy(s->fb_best, z, bytes), source = s->fb_csrc[order[r]];
      st->guard = st->guard > guard ? st->guard : guard;
      return source;
    }
    if (r == 0) st->refused_energy += isfinite(e) ? e : DBL_MAX, guard = 2;
  }
  st->guard = 2;
  /* Nothing passed: PGS from zero impulses, then zero impulses. */
  LsimPgsOptions po = lsim_default_pgs_options();
  po.max_sweeps = LSIM_FALLBACK_SWEEPS;
  po.tol = s->options.tol;
  memset(s->fb_try, 0, bytes);
  lsim_pgs_solve(s->fb_pgs, lcp, &po, 0, s->fb_try, NULL);
  if (judge_physical(s, s->fb_try, n) <= 0.0) {
    memcpy(s->fb_best, s->fb_try, bytes);
    return LSIM_SOURCE_PGS_COLD;
  }
  memset(s->fb_best, 0, bytes);
  return LSIM_SOURCE_NONE;
}

/* Runs the chain on the dense lcp after the chosen solver returned z with status from the
 * point start [n]. Writes the winner into z and its source into st; returns LSIM_SOLVED
 * when the winner meets the tolerance, else status. */
static int run_chain(LsimSolver *s, const LsimLcp *lcp, const double *start, double *z,
                     int status, LsimSolveStats *st) {
  const int n = lcp->n;
  if (reserve_chain(s, n)) return status;
  const double ftol = s->options.tol * lsim_lcp_scale(lcp);
  const size_t bytes = (size_t)n * sizeof(double);
  /* The chosen solver's result, then the start point (ties keep the former). */
  double best = chain_residual(s, lcp, z);
  int source = st->source; /* the solver's, or its start when Lemke rejected its result */
  s->fb_ncand = 0;
  chain_keep(s, n, z, best, source);
  memcpy(s->fb_best, z, bytes);
  memcpy(s->fb_try, start, bytes);
  chain_consider(s, lcp, LSIM_SOURCE_START, &best, &source);
  LsimLemkeOptions lo = lsim_default_lemke_options();
  lo.tol = s->options.tol;
  lo.floor = s->options.impulse_unit; /* a step's problem: as the chosen Lemke (run_solver) */

  /* 1. Lemke from the best point's active set {i : z_i > w_i}. */
  if (best > ftol && s->kind != KIND_LEMKE) {
    lsim_lcp_w(lcp, s->fb_best, s->fb_w);
    for (int i = 0; i < n; ++i) s->fb_basis[i] = s->fb_best[i] > s->fb_w[i];
    memcpy(s->fb_try, s->fb_best, bytes);
    lsim_lemke_solve(s->fb_lemke, lcp, &lo, s->fb_basis, s->fb_try, NULL);
    chain_consider(s, lcp, LSIM_SOURCE_LEMKE, &best, &source);
  }
  /* 2. Lemke on D M D y + D q, D_ii = 1 / sqrt(M_ii) (1 where M_ii <= 0), z = D y. */
  if (best > ftol) {
    LsimLcp *sc = &s->fb_scaled;
    sc->n = n, sc->ncones = 0, sc->cones = NULL;
    for (int i = 0; i < n; ++i) {
      const double d = lcp->M[i + (size_t)i * n];
      s->fb_scale[i] = d > 0.0 ? 1.0 / sqrt(d) : 1.0;
    }
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        sc->M[i + (size_t)j * n] = s->fb_scale[i] * lcp->M[i + (size_t)j * n] * s->fb_scale[j];
    for (int i = 0; i < n; ++i) sc->q[i] = s->fb_scale[i] * lcp->q[i];
    memset(s->fb_try, 0, bytes);
    lsim_lemke_solve(s->fb_lemke, sc, &lo, NULL, s->fb_try, NULL);
    for (int i = 0; i < n; ++i) s->fb_try[i] *= s->fb_scale[i];
    chain_consider(s, lcp, LSIM_SOURCE_LEMKE_SCALED, &best, &source);
  }
  /* 3. PGS from the best point, at a budget. */
  if (best > ftol) {
    LsimPgsOptions po = lsim_default_pgs_options();
    po.max_sweeps = LSIM_FALLBACK_SWEEPS;
    po.tol = s->options.tol;
    memcpy(s->fb_try, s->fb_best, bytes);
    lsim_pgs_solve(s->fb_pgs, lcp, &po, 1, s->fb_try, NULL);
    chain_consider(s, lcp, LSIM_SOURCE_PGS, &best, &source);
  }
  /* 4. Failed: the energy guard. */
  if (best > ftol && s->judge) source = chain_guard(s, lcp, source, st);
  memcpy(z, s->fb_best, bytes);
  st->source = source;
  return best <= ftol ? LSIM_SOLVED : status;
}

/* Runs the solver on the dense lcp (reserve(s, n) done); fills the solver's part of st,
 * the fallback chain included. */
static int run_dense(LsimSolver *s, const LsimLcp *lcp, double *z, LsimSolveStats *st) {
  chain_keep_start(s, lcp->n, z);
  const int status = run_solver(s, lcp, z, st);
  st->first_status = status;
  st->source = st->rejected ? LSIM_SOURCE_START : LSIM_SOURCE_SOLVER;
  return chain_applies(s, status, lcp->n) && s->fb_start_cap >= lcp->n
             ? run_chain(s, lcp, s->fb_start, z, status, st)
             : status;
}

/* Runs the chosen solver alone on the dense lcp; fills the solver's part of st. */
static int run_solver(LsimSolver *s, const LsimLcp *lcp, double *z, LsimSolveStats *st) {
  const int n = lcp->n;
  const LsimSolverOptions *o = &s->options;
  int status;
  if (s->kind == KIND_LEMKE) {
    LsimLemkeOptions lo = lsim_default_lemke_options();
    lo.max_pivots = o->max_iter;
    lo.tol = o->tol;
    /* A time step's problem under the fallback policy: Lemke stops at a point whose every
       row is within its own rounding floor (docs/solvers.md, "The common residual"). */
    lo.floor = o->fallback && o->impulse_unit;
    const unsigned char *guess = NULL;
    if (o->warm_start) {
      for (int i = 0; i < n; ++i) s->basis[i] = z[i] > 0.0;
      guess = s->basis;
    } else {
      memset(z, 0, (size_t)n * sizeof(double)); /* the point a failed solve falls back on */
    }
    /* The caller's point, for the LU run should the dense runs fail (w is free until the
       measures, and has room for n). */
    double *zin = s->w;
    memcpy(zin, z, (size_t)n * sizeof(double));
    LsimLemkeInfo li = {.trace = s->trace, .trace_capacity = s->trace_capacity};
    status = lsim_lemke_solve(s->lemke, lcp, &lo, guess, z, &li);
    st->iterations = li.pivots;
    st->warm_started = li.warm_started;
    st->trace_len = li.trace_len;
    st->rejected |= li.rejected;
    /* Failed on a ray or a breakdown (not at the pivot limit, which ends a solve): the LU
       run; its result replaces the dense one only when it solved. */
    if (status == LSIM_SECONDARY_RAY || status == LSIM_BREAKDOWN) {
      int lu_pivots = 0;
      const int lu = lemke_lu_run(s, lcp, zin, guess, &lo, &lu_pivots);
      st->iterations += lu_pivots;
      if (lu == LSIM_SOLVED) {
        memcpy(z, s->zlu, (size_t)n * sizeof(double));
        status = LSIM_SOLVED;
        st->rejected = 0;
      }
    }
  } else if (s->kind == KIND_PGS) {
    LsimPgsOptions po = pgs_options(o);
    LsimPgsInfo pi = {.trace = s->trace, .trace_capacity = s->trace_capacity};
    status = lsim_pgs_solve(s->pgs, lcp, &po, o->warm_start, z, &pi);
    st->iterations = pi.sweeps;
    st->warm_started = o->warm_start;
    st->trace_len = pi.trace_len;
  } else if (FACTORED_KIND(s->kind)) {
    status = run_newton_dense(s, lcp, z, st);
  } else {
    /* Cold, or a pivoting solver (it builds its own start): z = 0, so that a failed
       pivoting solve, which leaves parts of z as they came, does not return the guess's
       entries (a warm series of siconos:lemke differed from the cold one on failures). */
    if (!o->warm_start || !siconos_reads_guess(s->name)) memset(z, 0, (size_t)n * sizeof(double));
    status = lsim_siconos_solve(s->siconos, lcp, o->tol, o->max_iter, o->warm_start, z,
                                &st->iterations);
    /* Only Siconos' iterative solvers start from z (its pivoting ones ignore it), and a
       solve that failed without one iteration did not use it either. */
    st->warm_started = o->warm_start && siconos_reads_guess(s->name) &&
                       !(status < 0 && st->iterations == 0);
    s->capture_seconds = lsim_siconos_capture_seconds(s->siconos);
    s->siconos_ran = 1;
    /* Appended: a split problem calls Siconos once per island. */
    const char *p = lsim_siconos_last_output(s->siconos);
    const size_t k = strlen(s->printed);
    if (*p && k + 4 < sizeof s->printed)
      snprintf(s->printed + k, sizeof s->printed - k, "%s%s", k ? " | " : "", p);
  }
  return status;
}

/* A success whose common residual is not finite is not taken: w = M z + q overflowed (M
 * [2 1e300; 1e300 2], q = (-1e300, -1): z = (5e299, 0) is the solution, w_2 = 5e599), so
 * the residual, +inf for a non-finite w (lcp.h), cannot verify the answer. newton said
 * solved there (its own test and the unit residual both read min(0, inf) = 0) with a
 * natural residual of inf: LSIM_BREAKDOWN now (LSIM_SOLVER_FAILED for a Siconos solver),
 * the reason kept for lsim_solver_last_message. */
static int verify_finite(LsimSolver *s, int status, const LsimSolveStats *st) {
  if (status < 0 || isfinite(st->residual.natural)) return status;
  snprintf(s->verdict, sizeof s->verdict,
           "%s ended at a point where w = M z + q is not finite (an overflow): the residual "
           "cannot verify it, not taken", s->name);
  return s->siconos_ran ? LSIM_SOLVER_FAILED : LSIM_BREAKDOWN;
}

/* A Siconos solver that reports success is checked on the common residual: its relative
 * natural residual must be within 10 times the tolerance it was given (Siconos solvers
 * stop on measures of their own, hence the factor: on incline_3d siconos:convexqp_pg ends
 * at 1.1e-10 to 1.5e-10 for tol 1e-10). Otherwise the success is not taken:
 * LSIM_SOLVER_FAILED, the reason kept for lsim_solver_last_message. Siconos' own measure
 * cannot serve: on M = 0, q = (-1, 1, -1), which has no solution, convexqp_pg returned
 * info 0 with z of order 1e16, where lcp_compute_error gives 0 (z - (z - w)_+ rounds to
 * 0) and the natural residual 1. */
static int verify_siconos(LsimSolver *s, int status, const LsimSolveStats *st) {
  if (!s->siconos_ran || status != LSIM_SOLVED) return status;
  const double tol = s->options.tol;
  if (st->residual.relative <= 10.0 * tol) return status;
  snprintf(s->verdict, sizeof s->verdict,
           "%s reported success at a relative natural residual of %.3g (tol %.3g): not taken",
           s->name, st->residual.relative, tol);
  return LSIM_SOLVER_FAILED;
}

/* A success on the natural residual must be one in w's units too: the unit residual
 * (quality.h) within LSIM_UNIT_MARGIN times the target, else it is not taken (the reason
 * kept for lsim_solver_last_message): LSIM_SOLVER_FAILED for a Siconos solver,
 * LSIM_BREAKDOWN for the pivoting ones (the precision, not the path, failed),
 * LSIM_MAX_ITERATIONS for the iterative ones. The plain residual mixes impulses and
 * velocities: Lemke "solved" every step of a 1 m cube of 1e-10 kg sliding on the ground
 * with its friction cone violated by 6.4e-11 N s (16 times its limit; 3e9 times the
 * target in w's units), and the cube, meant to slide 0.5 m on mu 0.4, went backwards and
 * rose to 0.57 m. Exactly one of lcp and f is given (w [n] = M z + q of the result). */
static int verify_units(LsimSolver *s, int status, const LsimLcp *lcp,
                        const LsimFactoredLcp *f, const double *z, const double *w) {
  const double tol = s->options.tol;
  const int n = lcp ? lcp->n : f->n;
  if (status != LSIM_SOLVED || !(tol > 0.0) || n <= 0 || !w) return status;
  double r, scale;
  /* The cones' direction rows get the plain measure: their w holds the slack lambda, which
     a pivoting solver may leave off the slip speed by more than the target in w's units
     where the impulses (what the step uses) are right (Lemke on a cube of 1e-9 kg sliding
     at 0.627 m/s: lambda 0.666 m/s, the friction at the cone's limit against the slip, 4
     of 100 steps refused when these rows were judged too). The normal rows and the cones'
     lambda rows (the friction within its cone) are judged in w's units. */
  int cap = s->ud_cap;
  if (lsim_grow((void **)&s->ud, &cap, n, sizeof(double)) ||
      lsim_grow((void **)&s->uplain, &s->uplain_cap, n, 1))
    return LSIM_OUT_OF_MEMORY;
  s->ud_cap = cap;
  const int ncones = lcp ? lcp->ncones : f->ncones;
  const LsimConeBlock *cones = lcp ? lcp->cones : f->cones;
  memset(s->uplain, 0, (size_t)n);
  for (int c = 0; c < ncones && cones; ++c)
    for (int k = 0; k < cones[c].ndir; ++k)
      if (cones[c].first_dir + k >= 0 && cones[c].first_dir + k < n) s->uplain[cones[c].first_dir + k] = 1;
  if (lcp) {
    r = lsim_lcp_unit_residual(lcp, z, w, s->uplain);
    scale = lsim_lcp_scale(lcp);
  } else {
    r = lsim_factored_unit_residual(f, z, w, s->uplain, s->ud, s->u);
    scale = 0.0; /* max |q_i|, 1 when q = 0: lsim_lcp_scale's */
    for (int i = 0; i < n; ++i) scale = fmax(scale, fabs(f->q[i]));
    if (!(scale > 0.0)) scale = 1.0;
  }
  if (r <= LSIM_UNIT_MARGIN * tol * scale) return status;
  snprintf(s->verdict, sizeof s->verdict,
           "%s solved to the natural residual, but not in w's units (unit residual %.3g times the target, above %g): not taken",
           s->name, r / (tol * scale), LSIM_UNIT_MARGIN);
  if (s->siconos_ran) return LSIM_SOLVER_FAILED;
  return s->kind == KIND_LEMKE || s->kind == KIND_LEMKE_SPARSE ? LSIM_BREAKDOWN : LSIM_MAX_ITERATIONS;
}

/* Non-finite entries of z are reset to 0 (a breakdown if nothing worse was reported). */
static int sanitize_z(double *z, int n, int status) {
#if defined(__SSE2__)
  /* Whether any is, in SSE2 pairs first (|z_i| > DBL_MAX unordered: an infinity or a NaN);
     the scalar pass below only when one is. */
  {
    const __m128d sign = _mm_set1_pd(-0.0), big = _mm_set1_pd(DBL_MAX);
    __m128d nf = _mm_setzero_pd();
    int i = 0;
    for (; i + 2 <= n; i += 2) nf = _mm_or_pd(nf, _mm_cmpnle_pd(_mm_andnot_pd(sign, _mm_loadu_pd(z + i)), big));
    int any = _mm_movemask_pd(nf) != 0;
    for (; i < n; ++i) any |= !isfinite(z[i]);
    if (!any) return status;
  }
#endif
  for (int i = 0; i < n; ++i)
    if (!isfinite(z[i])) z[i] = 0.0, status = status ? status : LSIM_BREAKDOWN;
  return status;
}

/* Non-trivial start: warm_started is reported for a solve only when the caller's guess
 * was not the cold start, i.e. some z_i > 0 (every solver projects its guess onto z >= 0:
 * PGS and newton clamp it, Lemke guesses the basis {i : z_i > 0}) or the basis guess
 * (lsim_solver_set_basis_guess) is not empty. An all-zero guess, as the first step of a
 * trajectory hands over, is a cold start whatever the solver (docs/output-format.md,
 * warm_started). */
static int guess_nontrivial(const double *z, int n, const unsigned char *basis) {
  for (int i = 0; i < n; ++i)
    if (z[i] > 0.0 && isfinite(z[i])) return 1;
  for (int i = 0; basis && i < n; ++i)
    if (basis[i]) return 1;
  return 0;
}

static int solve_dense(LsimSolver *s, const LsimLcp *lcp, double *z, LsimSolveStats *stats) {
  LsimSolveStats st;
  memset(&st, 0, sizeof st);
  s->dense_valid = 0;
  s->newton_info_valid = s->lemke_info_valid = 0;
  memset(s->ls_counts, 0, sizeof s->ls_counts);
  s->bz = NULL;
  s->basis_hint = NULL; /* a basis guess serves factored solves only */
  const int n = lcp->n;
  int status = 0;
  s->capture_seconds = 0.0, s->siconos_ran = 0, s->printed[0] = s->verdict[0] = '\0';
  const int nontrivial = s->options.warm_start && n > 0 && guess_nontrivial(z, n, NULL);
  /* Timed from here, the workspace's growth included, as the factored path and the
     Siconos adapter (its options and matrix made for a new n) are. */
  double t0 = now_seconds();
  if (n < 0 || reserve(s, n > 0 ? n : 1)) status = n < 0 ? LSIM_INVALID_INPUT : LSIM_OUT_OF_MEMORY;
  if (!status) status = run_dense(s, lcp, z, &st);
  st.wall_time = now_seconds() - t0 - s->capture_seconds;
  st.warm_started = st.warm_started && nontrivial;

  /* The common measures, from z alone, for every solver. */
  if (n > 0 && s->w) {
    status = sanitize_z(z, n, status);
    lsim_lcp_residual(lcp, z, s->w, &st.residual);
    st.siconos_error = lsim_siconos_error(lcp, z, s->w);
  }
  if (n > 0 && s->w) status = verify_finite(s, status, &st);
  status = verify_siconos(s, status, &st);
  status = met_anyway(s, status, &st);
  if (n > 0 && s->w && floor_wanted(s, status, &st))
    status = met_floor(s, status, &st, lsim_lcp_residual_floor(lcp, z));
  status = verify_units(s, status, lcp, NULL, z, n > 0 ? s->w : NULL);
  st.status = status;
  s->final_basis = NULL, s->final_basis_n = 0; /* factored solves only */
  s->last = st;
  if (stats) *stats = st;
  return status;
}

/* Grows the factored scratch: u [m], J transposed [m + 1, nnzj], and for the dense form
 * M [n * n] and q [n] when dense. No allocation when everything fits. */
static int reserve_factored(LsimSolver *s, int n, int m, int nnzj, int dense) {
  if (m + 1 > s->capacity_m) {
    double *u = realloc(s->u, (size_t)(m + 1) * sizeof(double));
    if (!u) return LSIM_OUT_OF_MEMORY;
    s->u = u;
    int *p = realloc(s->jt_ptr, (size_t)(m + 1) * sizeof(int));
    if (!p) return LSIM_OUT_OF_MEMORY;
    s->jt_ptr = p;
    s->capacity_m = m + 1;
  }
  if (!dense) return 0;
  if (nnzj > s->capacity_nnz) {
    int *idx = realloc(s->jt_idx, (size_t)nnzj * sizeof(int));
    if (!idx) return LSIM_OUT_OF_MEMORY;
    s->jt_idx = idx;
    double *val = realloc(s->jt_val, (size_t)nnzj * sizeof(double));
    if (!val) return LSIM_OUT_OF_MEMORY;
    s->jt_val = val;
    s->capacity_nnz = nnzj;
  }
  const size_t nn = (size_t)n * (size_t)n;
  if (nn > s->dense_capacity) {
    double *M = realloc(s->dense.M, nn * sizeof(double));
    if (!M) return LSIM_OUT_OF_MEMORY;
    s->dense.M = M;
    s->dense_capacity = nn;
  }
  if (n > s->dense_q_capacity) {
    double *q = realloc(s->dense.q, (size_t)n * sizeof(double));
    if (!q) return LSIM_OUT_OF_MEMORY;
    s->dense.q = q;
    s->dense_q_capacity = n;
  }
  return 0;
}

/* The worse of two statuses: an error before a warning before success (the first error
 * stays). */
static int worse_status(int a, int b) {
  if (a < 0) return a;
  if (b < 0) return b;
  return a > 0 ? a : b;
}

/* Lemke or newton on the islands of f (found by the caller, more than one), each as a
 * problem of its own, z gathered and scattered by island; fills the solver's part of st. */
static int run_islands(LsimSolver *s, const LsimFactoredLcp *f, int count, double *z,
                       LsimSolveStats *st) {
  int status = 0, warm = 1;
  /* Sparse Lemke: the caller's basis guess split by island, the final bases gathered. */
  const unsigned char *hint = s->basis_hint;
  s->basis_hint = NULL;
  int gathered = s->kind == KIND_LEMKE_SPARSE;
  if (gathered) memset(s->isl_basis, 0, (size_t)f->n);
  for (int k = 0; k < count; ++k) {
    LsimFactoredLcp sub;
    const int *vars;
    lsim_islands_extract(s->islands, f, k, &sub, &vars);
    for (int r = 0; r < sub.n; ++r) s->zsub[r] = z[vars[r]];
    LsimSolveStats is;
    memset(&is, 0, sizeof is);
    int sk;
    if (FACTORED_KIND(s->kind)) {
      chain_keep_start(s, sub.n, s->zsub);
      if (hint && s->kind == KIND_LEMKE_SPARSE) {
        for (int r = 0; r < sub.n; ++r) s->sub_hint[r] = hint[vars[r]];
        s->basis_hint = s->sub_hint;
      }
      s->final_basis = NULL;
      sk = is.first_status = run_newton(s, &sub, s->zsub, &is);
      s->basis_hint = NULL;
      if (s->final_basis && sk == LSIM_SOLVED)
        for (int r = 0; r < sub.n; ++r) s->isl_basis[vars[r]] = s->final_basis[r];
      else
        gathered = 0;
      if (chain_applies(s, sk, sub.n) && s->fb_start_cap >= sub.n &&
          !reserve_factored(s, sub.n, sub.m, sub.J_ptr[sub.n], 1)) {
        s->dense.n = sub.n;
        if (!lsim_factored_to_dense(&sub, &s->dense, s->jt_ptr, s->jt_idx, s->jt_val)) {
          s->fb_vars = vars;
          sk = run_chain(s, &s->dense, s->fb_start, s->zsub, sk, &is);
          s->fb_vars = NULL;
        }
      }
    } else if ((sk = reserve_factored(s, sub.n, sub.m, sub.J_ptr[sub.n], 1)) == 0) {
      s->dense.n = sub.n;
      sk = lsim_factored_to_dense(&sub, &s->dense, s->jt_ptr, s->jt_idx, s->jt_val);
      s->fb_vars = vars;
      if (!sk) sk = run_dense(s, &s->dense, s->zsub, &is);
      s->fb_vars = NULL;
    }
    for (int r = 0; r < sub.n; ++r) z[vars[r]] = s->zsub[r];
    st->iterations += is.iterations;
    st->rejected |= is.rejected;
    st->first_status = worse_status(st->first_status, is.first_status);
    if (is.source > st->source) st->source = is.source;
    if (is.guard > st->guard) st->guard = is.guard;
    st->refused_energy += is.refused_energy;
    warm &= is.warm_started;
    status = worse_status(status, sk);
    if (sk == LSIM_OUT_OF_MEMORY) break;
  }
  s->final_basis = gathered && status == LSIM_SOLVED ? s->isl_basis : NULL;
  s->final_basis_n = s->final_basis ? f->n : 0;
  st->warm_started = warm;
  st->trace_len = 0;
  return status;
}

/* Splits f into islands when the solver does so: the count (1 when whole), or < 0. */
static int find_islands(LsimSolver *s, const LsimFactoredLcp *f) {
  if ((s->kind != KIND_LEMKE && !FACTORED_KIND(s->kind)) || !s->options.islands || f->n < 2)
    return 1;
  if (!s->islands && !(s->islands = lsim_islands_create())) return LSIM_OUT_OF_MEMORY;
  const int count = lsim_islands_find(s->islands, f);
  if (count > 1 && lsim_grow((void **)&s->zsub, &s->zsub_cap, f->n, sizeof(double)))
    return LSIM_OUT_OF_MEMORY;
  return count;
}

/* The chain of a factored solve too large for it whole (pgs, newton without islands):
 * island by island, on each island that misses the tolerance and is small enough; the
 * others keep the solver's result. LSIM_SOLVED when every island then meets it, else
 * status. The dense form is the last island's afterwards (s->dense_valid stays 0). */
static int chain_islands(LsimSolver *s, const LsimFactoredLcp *f, double *z, int status,
                         LsimSolveStats *st) {
  if (s->fb_start_cap < f->n) return status;
  if (!s->islands && !(s->islands = lsim_islands_create())) return status;
  const int count = lsim_islands_find(s->islands, f);
  int cap = s->fb_island_cap;
  if (count < 2 || lsim_grow((void **)&s->zsub, &s->zsub_cap, f->n, sizeof(double)) ||
      lsim_grow((void **)&s->fb_island_start, &cap, f->n, sizeof(double)))
    return status;
  s->fb_island_cap = cap;
  int all = 1;
  for (int k = 0; k < count; ++k) {
    LsimFactoredLcp sub;
    const int *vars;
    lsim_islands_extract(s->islands, f, k, &sub, &vars);
    for (int r = 0; r < sub.n; ++r) s->zsub[r] = z[vars[r]];
    /* An island within the tolerance (on its own scale) keeps the solver's result. */
    LsimResidual res;
    lsim_factored_residual(&sub, s->zsub, s->u, s->w, &res);
    if (res.relative <= s->options.tol) continue;
    if (sub.n > LSIM_FALLBACK_MAX_N || reserve_factored(s, sub.n, sub.m, sub.J_ptr[sub.n], 1)) {
      all = 0;
      continue;
    }
    s->dense.n = sub.n;
    if (lsim_factored_to_dense(&sub, &s->dense, s->jt_ptr, s->jt_idx, s->jt_val)) {
      all = 0;
      continue;
    }
    for (int r = 0; r < sub.n; ++r) s->fb_island_start[r] = s->fb_start[vars[r]];
    LsimSolveStats is;
    memset(&is, 0, sizeof is);
    s->fb_vars = vars;
    const int sk = run_chain(s, &s->dense, s->fb_island_start, s->zsub, status, &is);
    s->fb_vars = NULL;
    for (int r = 0; r < sub.n; ++r) z[vars[r]] = s->zsub[r];
    if (is.source > st->source) st->source = is.source;
    if (is.guard > st->guard) st->guard = is.guard;
    st->refused_energy += is.refused_energy;
    all &= sk == LSIM_SOLVED;
  }
  s->dense_valid = 0;
  return all ? LSIM_SOLVED : status;
}

int lsim_solver_last_islands(const LsimSolver *s) { return s->last_islands; }

void lsim_solver_set_energy_judge(LsimSolver *s, LsimEnergyExcess excess, void *ctx) {
  s->judge = excess, s->judge_ctx = excess ? ctx : NULL;
}

void lsim_solver_set_basis_guess(LsimSolver *s, const unsigned char *basis) { s->basis_hint = basis; }

void lsim_solver_set_cover_previous(LsimSolver *s, int on) { s->cover_previous = on != 0; }

void lsim_solver_set_principal(LsimSolver *s, int budget) {
  s->principal = budget > 0 ? budget : 0;
}

const LsimNewtonInfo *lsim_solver_newton_info(const LsimSolver *s) {
  return s->newton_info_valid ? &s->newton_info : NULL;
}

const LsimLemkeInfo *lsim_solver_lemke_info(const LsimSolver *s) {
  return s->lemke_info_valid ? &s->lemke_info : NULL;
}

void lsim_solver_lemke_sparse_counts(const LsimSolver *s, int *factorizations, int *row_solves,
                                     int *column_solves) {
  if (factorizations) *factorizations = s->ls_counts[0];
  if (row_solves) *row_solves = s->ls_counts[1];
  if (column_solves) *column_solves = s->ls_counts[2];
}

const unsigned char *lsim_solver_last_basis(const LsimSolver *s, int *n) {
  if (n) *n = s->final_basis ? s->final_basis_n : 0;
  return s->final_basis;
}

/* A success that verify_units refused is a failure decided after the chain: the chain's
 * measure, the natural residual, had taken it, so its energy guard never judged it, and
 * the step integrated it. A disk pinned 1e-5 m off its centre into the floor (friction
 * 0.5, h = 0.01 s): Lemke's "solutions" of the nearly infeasible contact row, refused in
 * w's units (breakdown), took the kinetic energy from 3.5e-12 J to 2.0e-4 J in one step,
 * energy_guard 0 (tests/e2e/energy_guard.sh). So the guard judges the refused result and
 * the start point as it judges the chain's candidates (solver.h, ENERGY GUARD), on a
 * single-island problem within the chain's size; the status stays the failure. */
static int guard_unit_refusal(LsimSolver *s, const LsimFactoredLcp *f, double *z, int status,
                              LsimSolveStats *st) {
  const int n = f->n;
  if (!s->judge || !chain_applies(s, status, n) || s->fb_start_cap < n || reserve_chain(s, n))
    return status;
  if (!s->dense_valid) {
    if (reserve_factored(s, n, f->m, f->J_ptr[n], 1)) return status;
    s->dense.n = n;
    if (lsim_factored_to_dense(f, &s->dense, s->jt_ptr, s->jt_idx, s->jt_val)) return status;
    s->dense_valid = 1;
  }
  s->fb_vars = NULL;
  s->fb_ncand = 0;
  chain_keep(s, n, z, chain_residual(s, &s->dense, z), st->source);
  chain_keep(s, n, s->fb_start, chain_residual(s, &s->dense, s->fb_start), LSIM_SOURCE_START);
  memcpy(s->fb_best, z, (size_t)n * sizeof(double));
  st->source = chain_guard(s, &s->dense, st->source, st);
  if (memcmp(z, s->fb_best, (size_t)n * sizeof(double))) {
    memcpy(z, s->fb_best, (size_t)n * sizeof(double));
    lsim_factored_residual(f, z, s->u, s->w, &st->residual);
  }
  return status;
}

static int solve_factored(LsimSolver *s, const LsimFactoredLcp *f, double *z,
                          LsimSolveStats *stats) {
  LsimSolveStats st;
  memset(&st, 0, sizeof st);
  s->dense_valid = 0;
  s->newton_info_valid = s->lemke_info_valid = 0;
  memset(s->ls_counts, 0, sizeof s->ls_counts);
  s->bz = NULL;
  s->capture_seconds = 0.0, s->siconos_ran = 0, s->printed[0] = s->verdict[0] = '\0';
  s->final_basis = NULL, s->final_basis_n = 0;
  /* The caller's basis guess serves this solve only, and only sparse Lemke. */
  const unsigned char *hint = s->basis_hint;
  s->basis_hint = NULL;
  const int dense = s->kind != KIND_PGS && !FACTORED_KIND(s->kind);
  /* A problem whose negated directions are implicit (factored.h): PGS takes it as it
     stands (its fast path reads p_0 and p_q alone); every other solver every row. */
  if (f && f->full && s->kind != KIND_PGS) {
    const LsimFactoredLcp *g = lsim_factored_full(f);
    if (!g) {
      st.status = LSIM_OUT_OF_MEMORY;
      s->last = st;
      if (stats) *stats = st;
      return LSIM_OUT_OF_MEMORY;
    }
    f = g;
  }
  /* PGS checks its input itself; the dense path is checked here. */
  int status = dense || FACTORED_KIND(s->kind) ? lsim_factored_check(f) : (f && f->n >= 0 && f->J_ptr ? 0 : LSIM_INVALID_INPUT);
  const int invalid = status != 0;
  const int n = invalid ? 0 : f->n;
  const int nontrivial = s->options.warm_start && n > 0 &&
                         guess_nontrivial(z, n, s->kind == KIND_LEMKE_SPARSE ? hint : NULL);
  double t0 = now_seconds();
  /* Islands first: a split problem never needs the whole dense M. */
  const int islands = status ? 1 : find_islands(s, f);
  if (islands < 0) status = islands;
  s->last_islands = islands > 1 ? islands : 1;
  if (!status && (reserve(s, n > 0 ? n : 1) ||
                  reserve_factored(s, n, f->m, f->J_ptr[n], dense && islands == 1)))
    status = LSIM_OUT_OF_MEMORY;
  const int ready = status == 0;

  int invalid_pgs = 0;
  const LsimResidual *pgs_residual = NULL;
  LsimPgsInfo pi;
  memset(&pi, 0, sizeof pi);
  if (!ready) {
    /* nothing to run */
  } else if (islands > 1) {
    s->basis_hint = hint;
    status = run_islands(s, f, islands, z, &st);
  } else if (FACTORED_KIND(s->kind)) {
    chain_keep_start(s, n, z);
    s->basis_hint = hint;
    status = st.first_status = run_newton(s, f, z, &st);
    s->basis_hint = NULL;
  } else if (!dense) {
    const LsimSolverOptions *o = &s->options;
    LsimPgsOptions po = pgs_options(o);
    pi = (LsimPgsInfo){.trace = s->trace, .trace_capacity = s->trace_capacity};
    chain_keep_start(s, n, z);
    status = st.first_status = lsim_pgs_solve_factored(s->pgs, f, &po, o->warm_start, z, &pi);
    if (status == LSIM_INVALID_INPUT && !pi.full_valid) invalid_pgs = 1;
    pgs_residual = pi.full_valid ? &pi.full : NULL;
    st.iterations = pi.sweeps;
    st.warm_started = o->warm_start;
    st.trace_len = pi.trace_len;
    st.simd = pi.simd;
  } else {
    s->dense.n = n;
    status = lsim_factored_to_dense(f, &s->dense, s->jt_ptr, s->jt_idx, s->jt_val);
    if (!status) {
      s->dense_valid = 1;
      status = run_dense(s, &s->dense, z, &st);
    }
  }
  /* After PGS, every row where what follows reads them (the chain, the checks of a
     success, a residual PGS did not give), else its rows as they stand. */
  if (ready && f->full && (chain_wanted(s, status) || status == LSIM_SOLVED || !pgs_residual)) {
    const LsimFactoredLcp *g = lsim_factored_full(f);
    if (g) f = g;
    else status = LSIM_OUT_OF_MEMORY;
  }
  /* The fallback chain of the factored solvers (newton, pgs) on the dense form; the dense
     solvers ran it inside run_dense. */
  int chained = 0;
  if (ready && islands == 1 && !dense && chain_applies(s, status, n) &&
      s->fb_start_cap >= n && !reserve_factored(s, n, f->m, f->J_ptr[n], 1)) {
    s->dense.n = n;
    if (!lsim_factored_to_dense(f, &s->dense, s->jt_ptr, s->jt_idx, s->jt_val)) {
      s->dense_valid = 1;
      status = run_chain(s, &s->dense, s->fb_start, z, status, &st);
      chained = 1;
    }
  } else if (ready && islands == 1 && !dense && chain_wanted(s, status) && n > LSIM_FALLBACK_MAX_N) {
    status = chain_islands(s, f, z, status, &st);
    chained = 1;
  }
  st.wall_time = now_seconds() - t0 - s->capture_seconds;
  st.warm_started = st.warm_started && nontrivial;

  /* The common measures, from z alone, on the factored form (the scratch is there unless
     the input was refused or memory ran out). */
  if (invalid_pgs) {
    st.residual.natural = st.residual.complementarity = st.residual.relative = INFINITY;
    st.siconos_error = -1.0;
  } else if (n > 0 && ready) {
    const int before = status;
    status = sanitize_z(z, n, status);
    /* PGS already recomputed every measure from its final z; reuse it unless z had to be
       sanitized. */
    if (pgs_residual && status == before && !chained) st.residual = *pgs_residual, s->bz = pi.bz;
    else lsim_factored_residual(f, z, s->u, s->w, &st.residual);
    st.siconos_error = s->dense_valid ? lsim_siconos_error(&s->dense, z, s->w) : -1.0;
  } else if (invalid) {
    st.residual.natural = st.residual.complementarity = st.residual.relative = INFINITY;
    st.siconos_error = -1.0;
  }
  if (n > 0 && ready && !invalid_pgs) status = verify_finite(s, status, &st);
  if (!chained) status = verify_siconos(s, status, &st);
  status = met_anyway(s, status, &st);
  if (n > 0 && ready && !invalid_pgs && floor_wanted(s, status, &st) &&
      !lsim_grow((void **)&s->floor_u, &s->floor_u_cap, f->m > 0 ? f->m : 1, sizeof(double)))
    status = met_floor(s, status, &st, lsim_factored_residual_floor(f, z, s->floor_u));
  if (status == LSIM_SOLVED && n > 0 && ready && !invalid_pgs) {
    lsim_factored_w(f, z, s->u, s->w);
    status = verify_units(s, status, NULL, f, z, s->w);
    if (status != LSIM_SOLVED && islands == 1) status = guard_unit_refusal(s, f, z, status, &st);
  }
  /* A final basis only for a sparse Lemke run that solved by itself. */
  if (chained || status != LSIM_SOLVED || st.first_status != LSIM_SOLVED)
    s->final_basis = NULL, s->final_basis_n = 0;
  st.status = status;
  s->last = st;
  if (stats) *stats = st;
  return status;
}

/* ---- UNITS: the step's LCP solved in an impulse unit (docs/solvers.md, "Units") ----
 *
 * The natural residual and the solvers' pivot and stop tolerances compare z with w. In a
 * contact LCP z holds impulses (N s) on the normal, friction, tether and joint rows and a
 * slip speed (m/s) on each cone's lambda row, whose w is an impulse (mu c_n - sum beta).
 * For a body of 1e-10 kg every impulse of a step is below 1e-9 N s beside velocities of
 * 1 m/s, and Lemke and newton could not tell a solution from a wrong point (the check in
 * w's units, verify_units, then refused half the steps). So a solve runs on the problem in
 * an impulse unit s:
 *
 *     z' = D^-1 z,  w' = (D / s) w,  M' = (D / s) M D,  q' = (D / s) q,
 *
 * D = diag(c), c_i = s on the impulse variables and 1 on the cones' lambda (their rows'
 * w, impulses, are divided by s; a fixed normal impulse too), so that every pair (z_i, w_i)
 * of M' is either (impulse, velocity) in the unit or (velocity, impulse) in it. In the
 * factored form J' = (D / s) J, B' = B D, C' = (D / s) C D (J' B' + C' = M'). s = 2^-e
 * where the largest M_ii of the impulse rows is in [2^(e-1), 2^e): M' then has its largest
 * impulse diagonal in [0.5, 1), i.e. the lightest body's impulses are of the order of the
 * velocity changes they make. s is a power of two, so every scaled entry, z and B' z' = B z
 * are exact: the unit changes the solvers' tolerance decisions, not their arithmetic.
 * Light bodies only: when that M_ii is at most 2^UNIT_BAND (every scene in data/ and
 * tests/data/ but the two light ones: 0.7 to 71) s = 1 and the problem is solved as given,
 * to the bit as before. Heavy bodies (M_ii small) are never scaled: a cube of up to 1e12
 * kg was solved on every step without a unit, and in one its recorded residual (physical,
 * the large impulses' rounding) rose to 3e-3 for solves that met the tolerance. The
 * caller sees physical units only: z, B z, the residuals, the dense form
 * (lsim_solver_last_dense) and what the energy judge is given; the solver's trace (the
 * per-iteration residuals or z0) is the scaled problem's. */
#define UNIT_BAND 10

/* The unit for the largest impulse diagonal dmax (1 when none is positive or it is at
 * most 2^UNIT_BAND). */
static double unit_from(double dmax) {
  if (!(dmax > 0.0) || !isfinite(dmax)) return 1.0;
  int e;
  frexp(dmax, &e);
  if (e <= UNIT_BAND) return 1.0;
  /* Kept to 2^-1000 and above (normal numbers, their reciprocals too). */
  return ldexp(1.0, e > 1000 ? -1000 : -e);
}

/* s->ucol [n] as 0 on the cones' lambda variables, 1 elsewhere. 0 or LSIM_OUT_OF_MEMORY. */
static int unit_mark(LsimSolver *s, int n, int ncones, const LsimConeBlock *cones) {
  if (lsim_grow((void **)&s->ucol, &s->ucol_cap, n, sizeof(double))) return LSIM_OUT_OF_MEMORY;
  for (int i = 0; i < n; ++i) s->ucol[i] = 1.0;
  for (int c = 0; c < ncones && cones; ++c)
    if (cones[c].lambda >= 0 && cones[c].lambda < n) s->ucol[cones[c].lambda] = 0.0;
  return 0;
}

/* Sets s->unit from the largest d_i = M_ii over the impulse variables, and s->ucol to c.
 * The impulse variables: those s->ucol marks (not a cone's lambda) with M_ii > 0; a
 * variable with M_ii <= 0 is taken as a lambda (as lsim_lcp_unit_residual takes it), so
 * that a problem without its cone structure (a Siconos .dat file) gets the same unit. */
static void unit_set(LsimSolver *s, int n, const double *d) {
  double dmax = 0.0;
  for (int i = 0; i < n; ++i) {
    if (!(d[i] > 0.0)) s->ucol[i] = 0.0;
    if (s->ucol[i] != 0.0 && d[i] > dmax) dmax = d[i];
  }
  s->unit = unit_from(dmax);
  for (int i = 0; i < n; ++i) s->ucol[i] = s->ucol[i] != 0.0 ? s->unit : 1.0;
}

/* The cones of the scaled problem (fixed normal impulses in the unit) into s->ucones. */
static int unit_cones(LsimSolver *s, int ncones, const LsimConeBlock *cones) {
  if (ncones <= 0 || !cones) return 0;
  if (lsim_grow((void **)&s->ucones, &s->ucones_cap, ncones, sizeof(LsimConeBlock)))
    return LSIM_OUT_OF_MEMORY;
  for (int c = 0; c < ncones; ++c) {
    s->ucones[c] = cones[c];
    s->ucones[c].fixed_normal = cones[c].fixed_normal / s->unit;
  }
  return 0;
}

/* The scaled copy of the factored f (sound) into *g, in buffers s owns: chooses the unit
 * first (s->unit 1: *g untouched), without the diagonal when bound (every |M_ii|, from
 * lsim_factored_check_bound) is below 2^UNIT_BAND. 0 or LSIM_OUT_OF_MEMORY. Cost O(n + nnz). */
static int unit_factored(LsimSolver *s, const LsimFactoredLcp *f, double bound,
                         LsimFactoredLcp *g) {
  const int n = f->n, m = f->m;
  /* Every M_ii below 2^UNIT_BAND by a bound (the usual case): the unit is 1, without the
     diagonal (and without the lambdas' marks, which it would overwrite). */
  if (bound < ldexp(1.0, UNIT_BAND)) {
    if (lsim_grow((void **)&s->ucol, &s->ucol_cap, n, sizeof(double))) return LSIM_OUT_OF_MEMORY;
    for (int i = 0; i < n; ++i) s->ucol[i] = 1.0;
    s->unit = 1.0;
    return 0;
  }
  if (unit_mark(s, n, f->ncones, f->cones) || lsim_grow((void **)&s->uq, &s->uq_cap, n, sizeof(double)) ||
      lsim_grow((void **)&s->udiag, &s->udiag_cap, m > 0 ? m : 1, sizeof(double)))
    return LSIM_OUT_OF_MEMORY;
  memset(s->udiag, 0, (size_t)(m > 0 ? m : 1) * sizeof(double));
  lsim_factored_diagonal(f, s->uq, s->udiag);
  unit_set(s, n, s->uq);
  if (s->unit == 1.0) return 0;
  const int nj = f->J_ptr[n], nb = f->B_ptr[n], nc = f->C_ptr ? f->C_ptr[n] : 0;
  if (lsim_grow((void **)&s->uJ, &s->uJ_cap, nj > 0 ? nj : 1, sizeof(double)) ||
      lsim_grow((void **)&s->uB, &s->uB_cap, nb > 0 ? nb : 1, sizeof(double)) ||
      lsim_grow((void **)&s->uC, &s->uC_cap, nc > 0 ? nc : 1, sizeof(double)) ||
      unit_cones(s, f->ncones, f->cones))
    return LSIM_OUT_OF_MEMORY;
  const double *c = s->ucol, us = s->unit;
  for (int i = 0; i < n; ++i) {
    const double r = c[i] / us;
    for (int p = f->J_ptr[i]; p < f->J_ptr[i + 1]; ++p) s->uJ[p] = r * f->J_val[p];
    for (int p = f->B_ptr[i]; p < f->B_ptr[i + 1]; ++p) s->uB[p] = c[i] * f->B_val[p];
    for (int p = f->C_ptr ? f->C_ptr[i] : 0; f->C_ptr && p < f->C_ptr[i + 1]; ++p)
      s->uC[p] = r * f->C_val[p] * c[f->C_idx[p]];
    s->uq[i] = r * f->q[i];
  }
  *g = *f;
  g->J_val = s->uJ, g->B_val = s->uB, g->C_val = f->C_ptr ? s->uC : NULL, g->q = s->uq;
  g->cone_products = NULL; /* the products of f's values, not of these */
  if (f->ncones > 0 && f->cones) g->cones = s->ucones;
  return 0;
}

/* The scaled copy of the dense lcp into s->udense (its q in s->uq), as unit_factored.
 * Cost O(n^2). */
static int unit_dense(LsimSolver *s, const LsimLcp *lcp) {
  const int n = lcp->n;
  if (unit_mark(s, n, lcp->ncones, lcp->cones) || lsim_grow((void **)&s->uq, &s->uq_cap, n, sizeof(double)))
    return LSIM_OUT_OF_MEMORY;
  for (int i = 0; i < n; ++i) s->uq[i] = lcp->M[i + (size_t)i * n];
  unit_set(s, n, s->uq);
  if (s->unit == 1.0) return 0;
  const size_t nn = (size_t)n * (size_t)n;
  if (nn > s->udense_cap) {
    double *M = realloc(s->udense.M, nn * sizeof(double));
    if (!M) return LSIM_OUT_OF_MEMORY;
    s->udense.M = M, s->udense_cap = nn;
  }
  if (unit_cones(s, lcp->ncones, lcp->cones)) return LSIM_OUT_OF_MEMORY;
  const double *c = s->ucol, us = s->unit;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i)
      s->udense.M[i + (size_t)j * n] = c[i] / us * lcp->M[i + (size_t)j * n] * c[j];
  for (int i = 0; i < n; ++i) s->uq[i] = c[i] / us * lcp->q[i];
  s->udense.n = n, s->udense.q = s->uq;
  s->udense.ncones = lcp->ncones;
  s->udense.cones = lcp->ncones > 0 && lcp->cones ? s->ucones : lcp->cones;
  return 0;
}

/* The public solves: in the unit when it is not 1 (UNITS above), else as given. Where the
 * scaled copy cannot be had (out of memory) the problem is solved as given, its result
 * still judged in w's units (verify_units). */
int lsim_solver_solve(LsimSolver *s, const LsimLcp *lcp, double *z, LsimSolveStats *stats) {
  s->unit = 1.0;
  if (!s->options.impulse_unit || !lcp || lcp->n < 1 || !lcp->M || !lcp->q || unit_dense(s, lcp) ||
      s->unit == 1.0) {
    s->unit = 1.0;
    return solve_dense(s, lcp, z, stats);
  }
  const int n = lcp->n;
  for (int i = 0; i < n; ++i) z[i] /= s->ucol[i];
  LsimSolveStats st;
  int status = solve_dense(s, &s->udense, z, &st);
  for (int i = 0; i < n; ++i) z[i] *= s->ucol[i];
  /* The measures of the physical problem (w's scratch was reserved unless memory ran out). */
  if (s->w && s->capacity >= n) {
    lsim_lcp_residual(lcp, z, s->w, &st.residual);
    st.siconos_error = lsim_siconos_error(lcp, z, s->w);
  }
  s->last = st;
  if (stats) *stats = st;
  return status;
}

int lsim_solver_solve_factored(LsimSolver *s, const LsimFactoredLcp *f, double *z,
                               LsimSolveStats *stats) {
  s->unit = 1.0;
  LsimFactoredLcp g;
  double bound = INFINITY;
  /* The producer's bound (factored.h) where it rules the unit out, without the check's
     pass (an unsound f is then solved as given, as when the check refuses it); else the
     check's. */
  const int promised = f && f->diag_bound > 0.0 && f->diag_bound < ldexp(1.0, UNIT_BAND);
  if (promised) bound = f->diag_bound;
  /* Without the promise, the unit's pass and its scaled copy read every row (factored.h:
     implicit negated directions); with it the unit is 1 and f goes to the solve as is. */
  if (f && f->full && !promised) {
    const LsimFactoredLcp *full = lsim_factored_full(f);
    if (!full) {
      if (stats) memset(stats, 0, sizeof *stats), stats->status = LSIM_OUT_OF_MEMORY;
      return LSIM_OUT_OF_MEMORY;
    }
    f = full;
  }
  if (!s->options.impulse_unit || !f || f->n < 1 ||
      (!promised && lsim_factored_check_bound(f, &bound)) || unit_factored(s, f, bound, &g) ||
      s->unit == 1.0) {
    s->unit = 1.0;
    return solve_factored(s, f, z, stats);
  }
  const int n = f->n;
  const double us = s->unit;
  for (int i = 0; i < n; ++i) z[i] /= s->ucol[i];
  LsimSolveStats st;
  int status = solve_factored(s, &g, z, &st);
  for (int i = 0; i < n; ++i) z[i] *= s->ucol[i];
  /* The dense form back in physical units (exact: the factors are powers of two), the
     cones the caller's. */
  if (s->dense_valid) {
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        s->dense.M[i + (size_t)j * n] *= us / s->ucol[i] / s->ucol[j];
    for (int i = 0; i < n; ++i) s->dense.q[i] *= us / s->ucol[i];
    s->dense.cones = f->cones;
  }
  /* The measures of the physical problem (the scratch is there unless memory ran out). */
  if (status != LSIM_OUT_OF_MEMORY && s->capacity >= n && s->capacity_m >= f->m + 1) {
    lsim_factored_residual(f, z, s->u, s->w, &st.residual);
    st.siconos_error = s->dense_valid ? lsim_siconos_error(&s->dense, z, s->w) : -1.0;
  }
  s->last = st;
  if (stats) *stats = st;
  return status;
}

const LsimLcp *lsim_solver_last_dense(const LsimSolver *s) {
  return s->dense_valid ? &s->dense : NULL;
}

const double *lsim_solver_last_bz(const LsimSolver *s) { return s->bz; }

struct LsimTeam *lsim_solver_team(LsimSolver *s) {
  return s->kind == KIND_PGS ? lsim_pgs_team(s->pgs) : NULL;
}

const char *lsim_solver_last_output(const LsimSolver *s) {
  return s && s->siconos_ran ? s->printed : "";
}

const char *lsim_solver_last_message(LsimSolver *s) {
  s->message[0] = '\0';
  if (!s->siconos_ran) {
    snprintf(s->message, sizeof s->message, "%s", s->verdict);
  } else {
    const char *e = s->verdict[0] ? s->verdict : lsim_siconos_last_error(s->siconos);
    const char *p = s->printed;
    snprintf(s->message, sizeof s->message, "%s%s%s%s", e, *e && *p ? "; " : "",
             *p ? "printed: " : "", p);
  }
  return s->message;
}

int lsim_solver_is_fc_name(const char *name) {
  if (!name) return 0;
  for (const char *const *n = lsim_fc_solver_names(); *n; ++n)
    if (strcmp(*n, name) == 0) return 1;
  return 0;
}
