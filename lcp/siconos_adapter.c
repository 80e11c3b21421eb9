/* siconos_adapter.c: Siconos Numerics 4.4 LCP solvers, by name, made safe to call.
 *
 * What it does: maps a lower-case name to a SICONOS_LCP_* id, keeps one SolverOptions and
 * one NumericsMatrix wrapper per context (re-created only when n changes), points the
 * wrapper at OUR column-major M (no copy; the wrapper is emptied before Siconos frees it,
 * so Siconos never frees our arrays), and calls linearComplementarity_driver.
 *
 * Failure modes and how they are handled:
 *  - numerics_error / sn_fatal_error: longjmp to the external buffer set around every
 *    Siconos call (SN_SETJMP_EXTERNAL_START); reported as LSIM_SOLVER_FAILED. The message
 *    lives in numerics_error's stack frame, already dead after the jump (verified: any
 *    call made after the jump, even a lazy PLT resolution, overwrites it), so it is copied
 *    BEFORE the jump by a hook Siconos 4.4 calls from sn_fatal_error: the exported
 *    thread-local `external_fault_handler` (in no header). Whatever Siconos had allocated
 *    before the jump is lost (a small leak per trapped error).
 *  - solvers that abort, are not built or never finish: refused at create (table below).
 *  - abort() from a failed assert inside an accepted solver (pivot_lumod on
 *    lcp_tobenna.dat: "bck_drive >= 0"): a SIGABRT handler installed for the driver call
 *    siglongjmps back to it on the calling thread; LSIM_SOLVER_FAILED with a message, the
 *    options and wrapper left (leaked, state unknown) and re-created at the next call.
 *  - NSGS_SBM on dense storage calls exit(): it is given a sparse-block view instead, one
 *    1x1 block per entry of M, each block a pointer into our M (still no copy).
 *  - ENUM is exponential (2^n cases): refused at solve time above LSIM_SICONOS_ENUM_MAX_N.
 *  - info 0 with a non-finite z (NEWTONMIN, NSGS_SBM do this): LSIM_BREAKDOWN, z zeroed.
 *  - a finite z that ran away (relative natural residual above
 *    LSIM_SICONOS_DIVERGED_RELATIVE; newton_min, cpg, avi_caoferris on the test and shared
 *    files, 5e15 .. 1.5e17): LSIM_BREAKDOWN, z zeroed, the message saying `diverged` with
 *    max |z|, the residual and Siconos' info. pivot_lumod's runaway on
 *    lemke_chain20_step128 (1.2e15) ends in a trapped abort, reported as above
 *    (LSIM_SOLVER_FAILED, not judged further).
 *  - Siconos' own printing: numerics_set_verbose(0) silences the verbose output, but some
 *    solvers printf() to stdout regardless (PSOR always, "omega ... is not used"; LATIN
 *    when M is not positive definite; PIVOT, PIVOT_LUMOD, PATHSEARCH on rays;
 *    CONVEXQP_PG's warning; NEWTON_MIN, PSOR on no convergence) and others fprintf() to
 *    stderr (NEWTON_FB: "NM_LU_factorize: LU factorisation DGETRF failed" on
 *    every singular Jacobian, hundreds of lines on a 3-D stack). For every solver but
 *    Lemke and PGS (k_solvers' flag) stdout and stderr are captured for the duration of
 *    each driver call (fds 1 and 2 pointed at an unlinked temporary file of the context,
 *    read back after): nothing reaches our stdout or stderr, and the text is kept
 *    (lsim_siconos_last_output) for callers to show on request. A crash inside the call
 *    would lose its last words to that file. The capture's own time is
 *    measured and reported apart (lsim_siconos_capture_seconds); the others (Lemke, PGS:
 *    the benchmarks' peers) are called without it, since its system calls cost about
 *    0.1 us beyond what is measured (cache and TLB disturbance; measured with Lemke
 *    captured: 0.25 -> 0.34 us on lcp_CPS_1, n = 2). Should the temporary file not open, Siconos prints as before.
 *    The capture moves the process's fds and the abort trap the process's SIGABRT action,
 *    so the calls of all contexts are serialized by one mutex: threads that solve with
 *    Siconos at once take turns (two unserialized threads left stdout and stderr in a
 *    deleted file). The frictional contact drivers (lcp/fc_solver.c, through
 *    lsim_siconos_trapped) are captured the same way, their text kept for the caller
 *    (lsim_siconos_trapped_output; the frictional contact solver's message carries it, as
 *    the LCP solver's does): fc3d_tfp printed a "[Numerics][warning]" line per iteration,
 *    and an assertion's message preceded each trapped abort.
 *  - stale caches: Siconos may cache factorizations / other storages in the wrapper;
 *    they are cleared before every solve, since M may have changed in place.
 *
 * Survey (this build, Debian libsiconos-numerics 4.4.0+dfsg-2; every solver run in a
 * forked child with a 10 s alarm on the 17 dense files of shared/data/siconos-lcp plus
 * random SPD n = 5, 20, 60; tol 1e-10; "ok" = info 0 and relative natural residual < 1e-6):
 *
 *  name              id  verdict   notes
 *  lemke            200  works     17/20 ok; CPS_3 secondary ray, Pang perturbed (expected)
 *  nsgs_sbm         201  works*    *via the 1x1 sparse-block view (dense storage: exit());
 *                                  ok on SPD and data; tobenna: info 0 with NaN z
 *  pgs              202  works     ok on SPD; fails on zero/indefinite diagonals (expected)
 *  cpg              203  works     SPD stalls near 1e-9 relative (info 3) at tol 1e-10:
 *                                  use tol >= 1e-8
 *  latin            204  works     ok on SPD; prints "Matter with Cholesky..." if not PD
 *  latin_w          205  works     same as latin
 *  qp               206  REFUSED   fatal error: "ql0001 is not available" (every problem)
 *  nsqp             207  REFUSED   same fatal error as qp
 *  newton_min       208  works     ok on SPD; info 0 with NaN z on CPS_4, enum_fails, tobenna
 *  newton_fb        209  works     18/20 ok
 *  psor             210  works     like pgs
 *  rpgs             211  works     ok on SPD, data with positive diagonal
 *  path             212  REFUSED   PATH not built: info 1, z = 0 on every problem
 *  enum             213  works     exponential: timeouts at n = 26, 40, 60; n <= 18 only
 *                                  (n = 18 infeasible worst case: 3.7 s)
 *  avi_caoferris    214  works     17/20 ok
 *  pivot            215  works     17/20 ok
 *  bard             216  works     data files ok; cycles to the iteration limit on random
 *                                  SPD problems (n >= 5); needs a P-matrix with luck
 *  murty            217  works     12/20 ok, all SPD ok
 *  newton_min_fblsa 218  works     18/20 ok
 *  pathsearch       219  works     17/20 ok
 *  pivot_lumod      220  works     16/20 ok
 *  gams             221  REFUSED   fatal error: GAMS not available (every problem)
 *  convexqp_pg      222  works     ok on SPD (slow: up to 4000 iterations)
 * None of the accepted solvers modified M or q; none hung on an infeasible n = 50 problem.
 */
#include "siconos_adapter.h"
#include "blas.h"

#include <math.h>
#include <setjmp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "LCP_Solvers.h"
#include "LinearComplementarityProblem.h"
#include "NonSmoothDrivers.h"
#include "NumericsMatrix.h"
#include "NumericsVerbose.h"
#include "SolverOptions.h"
#include "SparseBlockMatrix.h"
#include "enum_tool.h"
#include "lcp_cst.h"
#include "sn_error_handling.h"

/* Siconos 4.4, sn_error_handling.c: `tlsvar external_fault_handler_t external_fault_handler`,
 * called as handler(code, msg) by sn_fatal_error just before its longjmp. */
extern _Thread_local void (*external_fault_handler)(size_t, const char *);

/* The message of the last fatal error on this thread, copied by fault_hook. */
static _Thread_local char t_fault_msg[256];

static void fault_hook(size_t code, const char *msg) {
  (void)code;
  size_t i = 0;
  for (; msg && msg[i] && i + 1 < sizeof t_fault_msg; ++i) t_fault_msg[i] = msg[i];
  t_fault_msg[i] = '\0';
}

typedef void (*FaultHook)(size_t, const char *);

/* Installs fault_hook for one trapped call; returns the previous hook to restore. */
static FaultHook arm_hook(void) {
  FaultHook prev = external_fault_handler;
  t_fault_msg[0] = '\0';
  external_fault_handler = fault_hook;
  return prev;
}

/* After a trapped error: restores the hook, clears Siconos' stale message pointer (never
 * dereferenced: it points into a dead frame) and formats our copy into dst. */
static void take_fault(FaultHook prev, char *dst, size_t len);

/* Largest n for which ENUM is run (2^n subsets; n = 18 takes ~4 s when nothing solves). */
#define LSIM_SICONOS_ENUM_MAX_N 18

typedef struct SolverEntry {
  const char *name;
  int id;
  const char *refused; /* NULL: accepted; else why it is refused */
  int prints;          /* stdout and stderr captured around its calls (all but the
                          benchmarks' peers, Lemke and PGS, which never print) */
} SolverEntry;

/* Every Siconos LCP solver, with the survey's verdict, and whether its printing is
 * captured: stdout was seen on the 17 data files and tests/data (at default and at 2
 * iterations) for latin, newton_min, psor, pivot, pathsearch, pivot_lumod, convexqp_pg;
 * stderr on scenes for newton_fb (NM_LU_factorize's "DGETRF failed" lines);
 * every solver but Lemke and PGS is captured, so none of it reaches the terminal. */
static const SolverEntry k_solvers[] = {
    {"lemke", SICONOS_LCP_LEMKE, NULL, 0},
    {"nsgs_sbm", SICONOS_LCP_NSGS_SBM, NULL, 1},
    {"pgs", SICONOS_LCP_PGS, NULL, 0},
    {"cpg", SICONOS_LCP_CPG, NULL, 1},
    {"latin", SICONOS_LCP_LATIN, NULL, 1},
    {"latin_w", SICONOS_LCP_LATIN_W, NULL, 1},
    {"qp", SICONOS_LCP_QP, "aborts in this build (fatal error: ql0001 is not available)", 1},
    {"nsqp", SICONOS_LCP_NSQP, "aborts in this build (fatal error: ql0001 is not available)", 1},
    {"newton_min", SICONOS_LCP_NEWTONMIN, NULL, 1},
    {"newton_fb", SICONOS_LCP_NEWTON_FB_FBLSA, NULL, 1},
    {"psor", SICONOS_LCP_PSOR, NULL, 1},
    {"rpgs", SICONOS_LCP_RPGS, NULL, 1},
    {"path", SICONOS_LCP_PATH, "not built in this Siconos (PATH missing: fails on every problem)",
     1},
    {"enum", SICONOS_LCP_ENUM, NULL, 1},
    {"avi_caoferris", SICONOS_LCP_AVI_CAOFERRIS, NULL, 1},
    {"pivot", SICONOS_LCP_PIVOT, NULL, 1},
    {"bard", SICONOS_LCP_BARD, NULL, 1},
    {"murty", SICONOS_LCP_MURTY, NULL, 1},
    {"newton_min_fblsa", SICONOS_LCP_NEWTON_MIN_FBLSA, NULL, 1},
    {"pathsearch", SICONOS_LCP_PATHSEARCH, NULL, 1},
    {"pivot_lumod", SICONOS_LCP_PIVOT_LUMOD, NULL, 1},
    {"gams", SICONOS_LCP_GAMS, "aborts in this build (fatal error: GAMS is not available)", 1},
    {"convexqp_pg", SICONOS_LCP_CONVEXQP_PG, NULL, 1},
};
#define N_SOLVERS ((int)(sizeof k_solvers / sizeof k_solvers[0]))

/* Accepted names (k_solvers without the refused ones), NULL-terminated. */
static const char *const k_names[] = {
    "lemke", "nsgs_sbm", "pgs", "cpg", "latin", "latin_w", "newton_min", "newton_fb", "psor",
    "rpgs", "enum", "avi_caoferris", "pivot", "bard", "murty", "newton_min_fblsa",
    "pathsearch", "pivot_lumod", "convexqp_pg", NULL};

struct LsimSiconos {
  int id;
  char name[32];
  int n;                     /* size the options and wrappers are built for; -1: none */
  SolverOptions *opt;        /* Siconos-owned */
  int default_max_iter;      /* iparam[MAX_ITER] as solver_options_create set it */
  NumericsMatrix *mat;       /* Siconos-allocated wrapper; matrix0/matrix1 are ours */
  SparseBlockStructuredMatrix sbm; /* NSGS_SBM only: 1x1 blocks pointing into M */
  double *w;                 /* [n] Siconos' w output, scratch */
  char last_error[256];
  int prints;                /* k_solvers' flag: capture stdout and stderr around calls */
  int capture_fd;            /* unlinked temporary file for Siconos' output; -1: none yet */
  char last_output[1024];    /* what Siconos printed during the last solve (printable) */
  double capture_seconds;    /* time spent redirecting and reading the output, last solve */
};

const char *const *lsim_siconos_names(void) { return k_names; }

static void set_err(char *err, size_t errlen, const char *msg) {
  if (err && errlen) snprintf(err, errlen, "%s", msg);
}

/* Copies a Siconos message: printable characters only, one line, bounded. */
static void copy_message(char *dst, size_t len, const char *prefix, const char *src) {
  size_t k = (size_t)snprintf(dst, len, "%s", prefix);
  if (k >= len) return;
  for (size_t i = 0; src && src[i] && i < 200 && k + 1 < len; ++i) {
    char c = src[i];
    if (c == '\n' || c == '\t') c = ' ';
    if (c < 32 || c > 126) continue;
    dst[k++] = c;
  }
  while (k > 0 && dst[k - 1] == ' ') --k;
  dst[k] = '\0';
}

/* Allocates a context for table entry i (no refusal check). */
static int create_entry(LsimSiconos **out, int i, char *err, size_t errlen) {
  LsimSiconos *s = calloc(1, sizeof *s);
  if (!s) {
    set_err(err, errlen, "out of memory");
    return LSIM_OUT_OF_MEMORY;
  }
  s->id = k_solvers[i].id;
  snprintf(s->name, sizeof s->name, "%s", k_solvers[i].name);
  s->n = -1;
  s->capture_fd = -1;
  s->prints = k_solvers[i].prints;
  /* Siconos prints progress when verbose; keep it quiet. Its BLAS runs in one thread. */
  numerics_set_verbose(0);
  lsim_blas_one_thread();
  *out = s;
  return 0;
}

static void take_fault(FaultHook prev, char *dst, size_t len) {
  external_fault_handler = prev;
  (void)sn_fatal_error_msg();
  copy_message(dst, len, "siconos: ", t_fault_msg[0] ? t_fault_msg : "fatal error (no message)");
}

/* Serializes lsim_siconos_solve's capture and trapped call (process-wide state). */
static pthread_mutex_t g_call_lock = PTHREAD_MUTEX_INITIALIZER;

/* The capture of Siconos' stdout and stderr (defined below, with lsim_siconos_solve). */
#define LSIM_CAPTURE_MAX 1024
static int capture_begin(int *capture_fd, int prints, int saved[2]);
static void capture_end(int capture_fd, char *out, size_t outsize, const int saved[2]);
/* lsim_siconos_trapped's capture file (under g_call_lock; -1: none yet) and where the
 * text the calling thread's last call printed is read back to (kept from the terminal;
 * lsim_siconos_trapped_output hands it to the caller for its failure messages). */
static int g_trap_capture_fd = -1;
static _Thread_local char t_trap_output[LSIM_CAPTURE_MAX];

/* abort() inside a driver call (a failed assert in Siconos): the handler jumps back to
 * the call's frame on the calling thread, so the process survives and the solve fails. */
static _Thread_local sigjmp_buf *abort_jump;
static void on_abort(int sig) {
  (void)sig;
  if (abort_jump) siglongjmp(*abort_jump, 1);
}

/* fn(arg) under the error trap: numerics_error (a Siconos fatal error) and abort() (a
 * failed assert) jump back here instead of ending the process. Returns 0 (*ret = fn's
 * value), -1 for a trapped fatal error (its message in err) or -2 for an abort (err
 * untouched: the caller says what was aborted). No local is modified between setjmp and
 * longjmp; the SIGABRT action is the process's, so callers hold g_call_lock or run one
 * call at a time. */
static int trap_call(int (*fn)(void *), void *arg, int *ret, char *err, size_t errlen) {
  FaultHook prev = arm_hook();
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_abort;
  sigemptyset(&sa.sa_mask);
  sigjmp_buf jb;
  sigaction(SIGABRT, &sa, &old);
  if (sigsetjmp(jb, 1)) {
    abort_jump = NULL;
    sigaction(SIGABRT, &old, NULL);
    SN_SETJMP_EXTERNAL_STOP;
    external_fault_handler = prev;
    return -2;
  }
  abort_jump = &jb;
  if (SN_SETJMP_EXTERNAL_START) {
    abort_jump = NULL;
    sigaction(SIGABRT, &old, NULL);
    take_fault(prev, err, errlen);
    return -1;
  }
  *ret = fn(arg);
  SN_SETJMP_EXTERNAL_STOP;
  abort_jump = NULL;
  sigaction(SIGABRT, &old, NULL);
  external_fault_handler = prev;
  return 0;
}

int lsim_siconos_trapped(int (*fn)(void *), void *arg, int *ret, char *err, size_t errlen) {
  numerics_set_verbose(0);
  lsim_blas_one_thread();
  /* One trapped call at a time in the process (the SIGABRT action is the process's), and
     an abort() inside fn (a failed assert in Siconos: fc3d_nsgs on a W with a diagonal
     entry <= 0) jumps back here instead of ending the process, as in call_trapped. */
  pthread_mutex_lock(&g_call_lock);
  /* Siconos' printing during fn goes to the capture file, as in lsim_siconos_solve. */
  int saved[2];
  capture_begin(&g_trap_capture_fd, 1, saved);
  const int rc = trap_call(fn, arg, ret, err, errlen);
  capture_end(g_trap_capture_fd, t_trap_output, sizeof t_trap_output, saved);
  pthread_mutex_unlock(&g_call_lock);
  if (rc == -2)
    copy_message(err, errlen, "siconos: ", "aborted inside Siconos (an internal assertion failed)");
  return rc;
}

const char *lsim_siconos_trapped_output(void) { return t_trap_output; }

int lsim_siconos_create(LsimSiconos **out, const char *name, char *err, size_t errlen) {
  *out = NULL;
  if (!name) name = "";
  char msg[200];
  for (int i = 0; i < N_SOLVERS; ++i) {
    if (strcmp(k_solvers[i].name, name) != 0) continue;
    if (k_solvers[i].refused) {
      snprintf(msg, sizeof msg, "siconos:%s is unavailable: %s", name, k_solvers[i].refused);
      set_err(err, errlen, msg);
      return LSIM_UNAVAILABLE;
    }
    return create_entry(out, i, err, errlen);
  }
  snprintf(msg, sizeof msg, "siconos:%.60s: unknown Siconos LCP solver", name);
  set_err(err, errlen, msg);
  return LSIM_UNAVAILABLE;
}

int lsim_siconos_create_id(LsimSiconos **out, int solver_id, char *err, size_t errlen) {
  *out = NULL;
  for (int i = 0; i < N_SOLVERS; ++i)
    if (k_solvers[i].id == solver_id) return create_entry(out, i, err, errlen);
  char msg[100];
  snprintf(msg, sizeof msg, "siconos: %d is not a Siconos LCP solver id", solver_id);
  set_err(err, errlen, msg);
  return LSIM_UNAVAILABLE;
}

/* Frees the sparse-block view's arrays (ours) and its diagonal cache (Siconos'). */
static void free_sbm(LsimSiconos *s) {
  free(s->sbm.block);
  free(s->sbm.blocksize0);
  free(s->sbm.blocksize1);
  free(s->sbm.index1_data);
  free(s->sbm.index2_data);
  free(s->sbm.diagonal_blocks);
  memset(&s->sbm, 0, sizeof s->sbm);
}

/* Empties the wrapper of our arrays, then lets Siconos free what it added. */
static void free_wrapper(LsimSiconos *s) {
  if (s->mat) {
    s->mat->matrix0 = NULL;
    s->mat->matrix1 = NULL;
    NM_free(s->mat);
    s->mat = NULL;
  }
}

/* Collects o's internal solver options, recursively, into list (grown as needed). */
static int gather_internal(SolverOptions *o, SolverOptions ***list, size_t *len, size_t *cap) {
  for (size_t i = 0; o->internalSolvers && i < o->numberOfInternalSolvers; ++i) {
    SolverOptions *child = o->internalSolvers[i];
    if (!child) continue;
    if (*len == *cap) {
      size_t ncap = *cap ? 2 * *cap : 4;
      SolverOptions **grown = realloc(*list, ncap * sizeof *grown);
      if (!grown) return -1;
      *list = grown;
      *cap = ncap;
    }
    (*list)[(*len)++] = child;
    if (gather_internal(child, list, len, cap)) return -1;
  }
  return 0;
}

/* solver_options_delete (4.4) frees the contents of an options tree but not the structs
 * themselves (top level nor internal solvers): free those afterwards. */
void lsim_siconos_options_free(SolverOptions *o) {
  if (!o) return;
  SolverOptions **list = NULL;
  size_t len = 0, cap = 0;
  int ok = gather_internal(o, &list, &len, &cap) == 0;
  solver_options_delete(o);
  /* On allocation failure the internal structs leak rather than risk a bad free. */
  if (ok)
    for (size_t i = 0; i < len; ++i) free(list[i]);
  free(list);
  free(o);
}

/* Releases everything sized for the current n. */
static void release_sized(LsimSiconos *s) {
  free_wrapper(s);
  free_sbm(s);
  lsim_siconos_options_free(s->opt);
  s->opt = NULL;
  free(s->w);
  s->w = NULL;
  s->n = -1;
}

void lsim_siconos_free(LsimSiconos *s) {
  if (!s) return;
  release_sized(s);
  if (s->capture_fd >= 0) close(s->capture_fd);
  free(s);
}

const char *lsim_siconos_last_error(const LsimSiconos *s) { return s ? s->last_error : ""; }

const char *lsim_siconos_last_output(const LsimSiconos *s) { return s ? s->last_output : ""; }

double lsim_siconos_capture_seconds(const LsimSiconos *s) { return s ? s->capture_seconds : 0.0; }

/* Builds the n x n view of 1x1 blocks, row by row, all n*n entries (zeros included: the
 * structure then depends on n only). Block pointers are set per solve. */
static int build_sbm(LsimSiconos *s, int n) {
  size_t nn = (size_t)n * (size_t)n;
  SparseBlockStructuredMatrix *b = &s->sbm;
  memset(b, 0, sizeof *b);
  b->block = malloc((nn ? nn : 1) * sizeof *b->block);
  b->blocksize0 = malloc((size_t)(n ? n : 1) * sizeof *b->blocksize0);
  b->blocksize1 = malloc((size_t)(n ? n : 1) * sizeof *b->blocksize1);
  b->index1_data = malloc((size_t)(n + 1) * sizeof *b->index1_data);
  b->index2_data = malloc((nn ? nn : 1) * sizeof *b->index2_data);
  if (!b->block || !b->blocksize0 || !b->blocksize1 || !b->index1_data || !b->index2_data)
    return LSIM_OUT_OF_MEMORY;
  b->nbblocks = (unsigned)nn;
  b->blocknumber0 = b->blocknumber1 = (unsigned)n;
  b->filled1 = (size_t)n + 1;
  b->filled2 = nn;
  for (int i = 0; i < n; ++i) b->blocksize0[i] = b->blocksize1[i] = (unsigned)(i + 1);
  for (int i = 0; i <= n; ++i) b->index1_data[i] = (size_t)i * (size_t)n;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) b->index2_data[(size_t)i * n + j] = (size_t)j;
  return 0;
}

/* (Re)creates options, wrapper and scratch for size n. */
static int prepare_size(LsimSiconos *s, int n) {
  if (s->n == n) return 0;
  release_sized(s);
  s->w = malloc((size_t)(n ? n : 1) * sizeof(double));
  if (!s->w) return LSIM_OUT_OF_MEMORY;
  if (s->id == SICONOS_LCP_NSGS_SBM && build_sbm(s, n)) {
    release_sized(s);
    return LSIM_OUT_OF_MEMORY;
  }
  /* Option and matrix creation may themselves raise a Siconos fatal error. */
  FaultHook prev = arm_hook();
  if (SN_SETJMP_EXTERNAL_START) {
    take_fault(prev, s->last_error, sizeof s->last_error);
    release_sized(s);
    return LSIM_SOLVER_FAILED;
  }
  s->opt = solver_options_create(s->id);
  s->mat = NM_new();
  SN_SETJMP_EXTERNAL_STOP;
  external_fault_handler = prev;
  if (!s->opt || !s->mat) {
    release_sized(s);
    return LSIM_OUT_OF_MEMORY;
  }
  s->default_max_iter = s->opt->iparam[SICONOS_IPARAM_MAX_ITER];
  s->n = n;
  return 0;
}

/* Points the wrapper at lcp->M, after dropping anything Siconos cached in it. */
static void attach_matrix(LsimSiconos *s, const LsimLcp *lcp) {
  NumericsMatrix *m = s->mat;
  const int n = lcp->n;
  m->matrix0 = NULL;
  m->matrix1 = NULL;
  NM_clear_not_dense(m);
  if (s->id == SICONOS_LCP_NSGS_SBM) {
    /* Row-major block order; block (i, j) is the single entry M[i + j*n]. */
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        s->sbm.block[(size_t)i * n + j] = lcp->M + i + (size_t)j * n;
    free(s->sbm.diagonal_blocks);
    s->sbm.diagonal_blocks = NULL;
    m->storageType = NM_SPARSE_BLOCK;
    m->matrix1 = &s->sbm;
  } else {
    m->storageType = NM_DENSE;
    m->matrix0 = lcp->M;
  }
  m->size0 = m->size1 = n;
}

static double seconds_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Points stdout and stderr (fds 1 and 2) at the context's capture file, opened on first
 * use (TMPDIR or /tmp, unlinked at once). Returns 0 with the saved descriptors in
 * saved[2], or -1 when not capturing (then Siconos prints as it would). Our own pending
 * output is flushed first. */
static int capture_begin(int *capture_fd, int prints, int saved[2]) {
  saved[0] = saved[1] = -1;
  if (!prints) return -1;
  if (*capture_fd < 0) {
    const char *dir = getenv("TMPDIR");
    char path[512];
    snprintf(path, sizeof path, "%s/lcpsim-siconos-XXXXXX", dir && *dir ? dir : "/tmp");
    const int fd = mkstemp(path);
    if (fd < 0) return -1;
    unlink(path);
    *capture_fd = fd;
  }
  fflush(stdout);
  fflush(stderr);
  for (int k = 0; k < 2; ++k) {
    const int fd = k == 0 ? STDOUT_FILENO : STDERR_FILENO;
    saved[k] = dup(fd);
    if (saved[k] < 0 || dup2(*capture_fd, fd) < 0) {
      /* Undo what was done: both streams print as before. */
      for (int j = 0; j <= k; ++j) {
        if (saved[j] >= 0) dup2(saved[j], j == 0 ? STDOUT_FILENO : STDERR_FILENO), close(saved[j]);
        saved[j] = -1;
      }
      return -1;
    }
  }
  return 0;
}

/* Restores stdout and stderr and keeps what was printed meanwhile (printable characters,
 * lines joined by " | ", at most sizeof last_output - 1 bytes, "..." at the end when cut
 * short); empties the capture file. */
static void capture_end(int capture_fd, char *out, size_t outsize, const int saved[2]) {
  out[0] = '\0';
  if (saved[0] < 0) return;
  fflush(stdout);
  fflush(stderr);
  dup2(saved[0], STDOUT_FILENO);
  dup2(saved[1], STDERR_FILENO);
  close(saved[0]);
  close(saved[1]);
  char raw[LSIM_CAPTURE_MAX];
  const ssize_t got = pread(capture_fd, raw, (outsize < sizeof raw ? outsize : sizeof raw) - 1, 0);
  const off_t total = lseek(capture_fd, 0, SEEK_END);
  size_t k = 0;
  ssize_t i = 0;
  for (; i < got && k + 8 < outsize; ++i) {
    const char c = raw[i];
    if (c == '\n') {
      if (k > 0 && out[k - 1] != ' ') out[k++] = ' ';
      if (k > 0) out[k++] = '|', out[k++] = ' ';
    } else if (c >= 32 && c < 127 && !(c == ' ' && (k == 0 || out[k - 1] == ' '))) {
      out[k++] = c;
    }
  }
  while (k > 0 && (out[k - 1] == ' ' || out[k - 1] == '|')) --k;
  if (k > 0 && (i < got || total > (off_t)got)) memcpy(out + k, " ...", 4), k += 4;
  out[k] = '\0';
  if (ftruncate(capture_fd, 0) == 0) lseek(capture_fd, 0, SEEK_SET);
}

/* The iteration count of the call that just ended, from Siconos' outputs (it: its
 * iparam[SICONOS_IPARAM_ITER_DONE], clamped at 0), or LSIM_SICONOS_NO_COUNT. Two solvers
 * do not set that slot (Siconos 4.4):
 *  - ENUM (lcp_enum.c) counts nothing, but enumerates the complementary index sets in
 *    order from iparam[SICONOS_LCP_IPARAM_ENUM_SEED] and writes the solution's index into
 *    iparam[SICONOS_LCP_IPARAM_ENUM_CURRENT_ENUM] (reset to -1 before the call): the cases
 *    tried (one linear solve each) are that index - seed + 1 (modulo 2^n); all 2^n when
 *    it found none; 0 when the driver returned before enumerating (q >= 0, n = 1).
 *  - NSGS_SBM (lcp_nsgs_SBM.c) writes its sweep count there, then overwrites it with its
 *    error as an int: `options[0].iparam[SICONOS_DPARAM_RESIDU] = error`, and
 *    SICONOS_DPARAM_RESIDU = SICONOS_IPARAM_ITER_DONE = 1. The count is lost (it read 0
 *    for any error below 1); not available, except when q >= 0, which the driver solves
 *    (z = 0) before any sweep: 0. */
static int iteration_count(const LsimSiconos *s, const LsimLcp *lcp, int info, int it) {
  if (s->id != SICONOS_LCP_ENUM && s->id != SICONOS_LCP_NSGS_SBM) return it;
  const int n = lcp->n;
  int trivial = 1;
  for (int i = 0; i < n && trivial; ++i) trivial = lcp->q[i] >= 0.0;
  if (s->id == SICONOS_LCP_NSGS_SBM) return trivial ? 0 : LSIM_SICONOS_NO_COUNT;
  const long long cases = 1LL << n; /* n <= LSIM_SICONOS_ENUM_MAX_N */
  const long long found = s->opt->iparam[SICONOS_LCP_IPARAM_ENUM_CURRENT_ENUM];
  const long long seed = s->opt->iparam[SICONOS_LCP_IPARAM_ENUM_SEED];
  if (found >= 0) return (int)(((found - seed) % cases + cases) % cases + 1);
  if (info == 0) return 0; /* the driver's trivial cases: nothing enumerated */
  return (int)cases;
}


/* ENUM's enumeration state. Siconos 4.4's lcp_enum (and mlcp_enum) take it from
 * enum_init, a malloc of 32 bytes, and never free it: 32 bytes lost a solve (valgrind on
 * `lcpsim solve lcp_CPS_1.dat --solver siconos:enum`). The library calls enum_init through
 * its PLT, so this definition (the same work) is the one it calls; the states made during
 * one of our driver calls are kept in the calling thread's list and freed after it. Made
 * outside our calls (by other code of the process), a state is the caller's, as before.
 * Visible (the objects are built with hidden symbols): programs linking the archive export
 * it (the Makefile's EXE_LDFLAGS), liblcpsim.so exports it beside the API (the Python
 * binding's solves are freed too; tests/e2e/library_symbols.sh). */
#define ENUM_KEEP 4
static _Thread_local int t_enum_keeping; /* inside our driver call */
static _Thread_local int t_enum_kept;
static _Thread_local EnumerationStruct *t_enum_states[ENUM_KEEP];

__attribute__((visibility("default"))) EnumerationStruct *enum_init(int M) {
  EnumerationStruct *e = malloc(sizeof *e);
  if (!e) return NULL;
  e->current = 0;
  e->counter = 0;
  e->nb_cases = enum_compute_nb_cases(M);
  e->progress = 0.0;
  if (t_enum_keeping && t_enum_kept < ENUM_KEEP) t_enum_states[t_enum_kept++] = e;
  return e;
}

/* Frees the enumeration states made since keeping began, and stops keeping. */
static void enum_states_free(void) {
  for (int k = 0; k < t_enum_kept; ++k) free(t_enum_states[k]);
  t_enum_kept = 0;
  t_enum_keeping = 0;
}

/* The driver call's arguments, for trap_call. */
typedef struct DriverCall {
  LinearComplementarityProblem *prob;
  double *z, *w;
  SolverOptions *opt;
} DriverCall;

static int driver_call(void *arg) {
  DriverCall *c = arg;
  return linearComplementarity_driver(c->prob, c->z, c->w, c->opt);
}

/* The one Siconos call, under the error trap. Returns 0, or -1 if a fatal error or an
 * abort was trapped (message in s->last_error). After an abort the options and wrapper
 * are left as they are (their state is unknown; freeing them could crash) and re-created
 * at the next call: a leak, once. */
static int call_trapped(LsimSiconos *s, LinearComplementarityProblem *prob, double *z,
                        int *info) {
  DriverCall c = {prob, z, s->w, s->opt};
  t_enum_kept = 0, t_enum_keeping = 1;
  const int rc = trap_call(driver_call, &c, info, s->last_error, sizeof s->last_error);
  enum_states_free();
  if (rc == -2) {
    snprintf(s->last_error, sizeof s->last_error,
             "siconos:%s: aborted inside Siconos (an internal assertion failed)", s->name);
    s->opt = NULL;
    s->mat = NULL;
    s->n = -1;
  }
  return rc < 0 ? -1 : 0;
}

int lsim_siconos_solve(LsimSiconos *s, const LsimLcp *lcp, double tol, int max_iter, int warm,
                       double *z, int *iterations) {
  const int n = lcp->n;
  int dummy;
  if (!iterations) iterations = &dummy;
  *iterations = 0;
  s->last_error[0] = '\0';
  s->last_output[0] = '\0';
  s->capture_seconds = 0.0;
  if (n < 0 || (n > 0 && (!lcp->M || !lcp->q || !z))) {
    snprintf(s->last_error, sizeof s->last_error, "siconos:%s: invalid problem", s->name);
    return LSIM_INVALID_INPUT;
  }
  if (n == 0) return LSIM_SOLVED;
  if (s->id == SICONOS_LCP_ENUM && n > LSIM_SICONOS_ENUM_MAX_N) {
    snprintf(s->last_error, sizeof s->last_error,
             "siconos:enum: n = %d is too large for enumeration (2^n cases; limit %d)", n,
             LSIM_SICONOS_ENUM_MAX_N);
    if (!warm) memset(z, 0, (size_t)n * sizeof *z);
    return LSIM_SOLVER_FAILED;
  }
  int rc = prepare_size(s, n);
  if (rc) {
    if (!s->last_error[0]) snprintf(s->last_error, sizeof s->last_error, "out of memory");
    return rc;
  }

  /* Fresh parameters and counters: nothing left over from the previous call. */
  s->opt->iparam[SICONOS_IPARAM_MAX_ITER] = max_iter > 0 ? max_iter : s->default_max_iter;
  s->opt->iparam[SICONOS_IPARAM_ITER_DONE] = 0;
  s->opt->dparam[SICONOS_DPARAM_TOL] = tol;
  s->opt->dparam[SICONOS_DPARAM_RESIDU] = 0.0;
  if (s->id == SICONOS_LCP_ENUM) s->opt->iparam[SICONOS_LCP_IPARAM_ENUM_CURRENT_ENUM] = -1;
  numerics_set_verbose(0);

  /* Cold start: iterative Siconos solvers read z as their initial guess. */
  if (!warm) memset(z, 0, (size_t)n * sizeof *z);
  else
    for (int i = 0; i < n; ++i)
      if (!isfinite(z[i])) z[i] = 0.0;
  memset(s->w, 0, (size_t)n * sizeof *s->w);

  /* The problem struct borrows our q; Siconos only reads it. */
  attach_matrix(s, lcp);
  LinearComplementarityProblem prob;
  prob.size = n;
  prob.M = s->mat;
  prob.q = lcp->q;
  int info = 0;
  const double c0 = seconds_now();
  /* One Siconos call at a time in the process: the capture points the process's fds 1
     and 2 elsewhere and the abort trap swaps the process's SIGABRT action, so two threads
     interleaving them would leave stdout and stderr in a deleted file. */
  pthread_mutex_lock(&g_call_lock);
  int saved[2];
  capture_begin(&s->capture_fd, s->prints, saved);
  const double c1 = seconds_now();
  int trapped = call_trapped(s, &prob, z, &info);
  const double c2 = seconds_now();
  capture_end(s->capture_fd, s->last_output, sizeof s->last_output, saved);
  pthread_mutex_unlock(&g_call_lock);
  s->capture_seconds = (c1 - c0) + (seconds_now() - c2);

  int it = s->opt ? s->opt->iparam[SICONOS_IPARAM_ITER_DONE] : 0;
  it = it > 0 ? it : 0;
  if (s->opt && !trapped) it = iteration_count(s, lcp, info, it);
  *iterations = it;
  int finite = 1;
  for (int i = 0; i < n; ++i)
    if (!isfinite(z[i])) finite = 0;
  if (!finite) memset(z, 0, (size_t)n * sizeof *z);
  if (trapped) return LSIM_SOLVER_FAILED;
  if (!finite) {
    snprintf(s->last_error, sizeof s->last_error,
             "siconos:%s: returned a non-finite z (info %d)", s->name, info);
    return LSIM_BREAKDOWN;
  }
  /* A finite z that ran away: our relative natural residual above
     LSIM_SICONOS_DIVERGED_RELATIVE (z = 0's is at most 1) is divergence, whatever Siconos'
     info says: a breakdown, with the figures, and z zeroed as for non-finite values. */
  LsimResidual res;
  lsim_lcp_residual(lcp, z, s->w, &res);
  if (!(res.relative <= LSIM_SICONOS_DIVERGED_RELATIVE)) {
    double zmax = 0.0;
    for (int i = 0; i < n; ++i) zmax = fmax(zmax, fabs(z[i]));
    snprintf(s->last_error, sizeof s->last_error,
             "siconos:%s diverged: max |z| %.3g, relative natural residual %.3g (bound %.0e) "
             "after %d iterations; siconos info %d", s->name, zmax, res.relative,
             LSIM_SICONOS_DIVERGED_RELATIVE, it, info);
    memset(z, 0, (size_t)n * sizeof *z);
    return LSIM_BREAKDOWN;
  }
  /* Siconos' info says 1 both for a breakdown and for the iteration budget: a count at the
     budget is a budget stop (LSIM_MAX_ITERATIONS), as ours are, not a failure (the
     frictional contact solvers tell them apart the same way, lcp/fc_solver.c). */
  const int budget = s->opt->iparam[SICONOS_IPARAM_MAX_ITER];
  /* NSGS_SBM's sweep loop ends only at convergence or at the budget (lcp_nsgs_SBM.c; a
     failed local solve does not end it), so its failure is a budget stop, count or not;
     ENUM has no budget (its count is of cases, and all 2^n of them end a failure). */
  const int at_budget = s->id == SICONOS_LCP_NSGS_SBM ? 1
                        : s->id == SICONOS_LCP_ENUM   ? 0
                                                      : it >= budget;
  if (info != 0 && budget > 0 && at_budget) {
    snprintf(s->last_error, sizeof s->last_error,
             "siconos:%s: stopped at its iteration budget (%d), info %d (error %.3g)", s->name,
             budget, info, s->opt->dparam[SICONOS_DPARAM_RESIDU]);
    return LSIM_MAX_ITERATIONS;
  }
  if (info != 0) {
    snprintf(s->last_error, sizeof s->last_error, "siconos:%s: info %d (error %.3g)", s->name,
             info, s->opt->dparam[SICONOS_DPARAM_RESIDU]);
    return LSIM_SOLVER_FAILED;
  }
  return LSIM_SOLVED;
}

/* lcp_compute_error on a stack wrapper around our M (NM_null: nothing allocated). */
static int compute_error_trapped(LinearComplementarityProblem *prob, double *z, double *w,
                                 double *error) {
  char ignored[8];
  FaultHook prev = arm_hook();
  if (SN_SETJMP_EXTERNAL_START) {
    take_fault(prev, ignored, sizeof ignored);
    return -1;
  }
  lcp_compute_error(prob, z, w, 1e-300, error);
  SN_SETJMP_EXTERNAL_STOP;
  external_fault_handler = prev;
  return 0;
}

double lsim_siconos_error(const LsimLcp *lcp, const double *z, double *w) {
  if (!lcp || lcp->n <= 0 || !z || !w) return -1.0;
  /* w = M z + q is a BLAS dgemv: in one thread, as every other BLAS call of ours, so that
     the error's last digits do not depend on the core count nor on whether a Siconos
     solver was made earlier in the process (lcp/blas.h). */
  lsim_blas_one_thread();
  NumericsMatrix m;
  NM_null(&m);
  m.storageType = NM_DENSE;
  m.size0 = m.size1 = lcp->n;
  m.matrix0 = lcp->M;
  LinearComplementarityProblem prob;
  prob.size = lcp->n;
  prob.M = &m;
  prob.q = lcp->q;
  double error = -1.0;
  /* Siconos' prototype is not const-correct; it only reads z. */
  int rc = compute_error_trapped(&prob, (double *)z, w, &error);
  m.matrix0 = NULL;
  NM_clear_not_dense(&m);
  if (rc || !isfinite(error) || error < 0.0) return -1.0;
  return error;
}
