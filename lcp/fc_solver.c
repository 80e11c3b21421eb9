/* fc_solver.c: frictional contact solvers by name (fc_solver.h): ours ("nsgs",
 * fc_nsgs.c), Siconos' fc3d / fc2d solvers, and LCP solvers on the Stewart-Trinkle
 * polyhedral LCP.
 *
 * Siconos: the problem is handed to fc3d_driver / fc2d_driver with W in Siconos'
 * sparse-block storage (3-D and fc2d_nsgs; built once per problem from our block index, no
 * zero block stored, the form Siconos' own reader gives for the sparse files) or dense
 * (the other fc2d solvers take dense W; fc2d_nsgs's dense variant stops on a velocity it
 * computes with a transposed entry, see sic_setup), q and mu copied (Siconos may scale
 * them). Every call runs
 * under the fatal-error trap of lcp/siconos_adapter.c. Survey of which solvers work and
 * why others are refused: docs/siconos-solvers.md, "Frictional contact solvers".
 *
 * Failure modes: a trapped Siconos fatal error -> LSIM_SOLVER_FAILED with its message;
 * info != 0 -> LSIM_SOLVER_FAILED, or LSIM_MAX_ITERATIONS when the iteration count reached
 * the budget (Siconos' info does not tell them apart); non-finite r -> LSIM_BREAKDOWN, r
 * zeroed; a finite r that diverged (our relative residual above
 * LSIM_SICONOS_DIVERGED_RELATIVE, lcp/siconos_adapter.h) -> LSIM_BREAKDOWN, r zeroed, the
 * message naming max |r| and the residual.
 */
#include "fc_solver.h"
#include "siconos_adapter.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "FrictionContactProblem.h"
#include "Friction_cst.h"
#include "NonSmoothDrivers.h"
#include "NumericsMatrix.h"
#include "SolverOptions.h"
#include "SparseBlockMatrix.h"
#include "fc2d_compute_error.h"
#include "fc3d_compute_error.h"

/* The Siconos frictional contact solvers offered, and those refused with the reason. */
typedef struct FcEntry {
  const char *name; /* after "siconos:" */
  int id;
  const char *refused;
} FcEntry;

static const FcEntry k_fc[] = {
    {"fc3d_nsgs", SICONOS_FRICTION_3D_NSGS, NULL},
    {"fc3d_nsgsv", SICONOS_FRICTION_3D_NSGSV,
     "calls exit(1) on sparse-block W (\"fc3d_nsgs_velocity. Not yet implemented for "
     "storageType 1\"): it would end the process"},
    {"fc3d_prox", SICONOS_FRICTION_3D_PROX, NULL},
    {"fc3d_tfp", SICONOS_FRICTION_3D_TFP, NULL},
    {"fc3d_nsn_ac", SICONOS_FRICTION_3D_NSN_AC, NULL},
    {"fc3d_nsn_ac_test", SICONOS_FRICTION_3D_NSN_AC_TEST, NULL},
    {"fc3d_nsn_fb", SICONOS_FRICTION_3D_NSN_FB, NULL},
    {"fc3d_nsn_nm", SICONOS_FRICTION_3D_NSN_NM, NULL},
    {"fc3d_dsfp", SICONOS_FRICTION_3D_DSFP, NULL},
    {"fc3d_vi_fpp", SICONOS_FRICTION_3D_VI_FPP, NULL},
    {"fc3d_vi_eg", SICONOS_FRICTION_3D_VI_EG, NULL},
    {"fc3d_fpp", SICONOS_FRICTION_3D_FPP, NULL},
    {"fc3d_eg", SICONOS_FRICTION_3D_EG, NULL},
    {"fc3d_hp", SICONOS_FRICTION_3D_HP, NULL},
    {"fc3d_pfp", SICONOS_FRICTION_3D_PFP, NULL},
    {"fc3d_admm", SICONOS_FRICTION_3D_ADMM, NULL},
    {"fc3d_aclmfp", SICONOS_FRICTION_3D_ACLMFP, NULL},
    {"fc3d_soclcp", SICONOS_FRICTION_3D_SOCLCP, NULL},
    {"fc3d_ncpglockerfbfixedpoint", SICONOS_FRICTION_3D_NCPGlockerFBFixedPoint,
     "fc3d_driver has no such solver in this build (fatal error \"Unknown solver\")"},
    {"fc3d_gams_path", SICONOS_FRICTION_3D_GAMS_PATH, "GAMS is not built in Debian's Siconos"},
    {"fc3d_gams_pathvi", SICONOS_FRICTION_3D_GAMS_PATHVI, "GAMS is not built in Debian's Siconos"},
    {"fc3d_gams_lcp_path", SICONOS_FRICTION_3D_GAMS_LCP_PATH,
     "GAMS is not built in Debian's Siconos"},
    {"fc3d_gams_lcp_pathvi", SICONOS_FRICTION_3D_GAMS_LCP_PATHVI,
     "GAMS is not built in Debian's Siconos"},
    {"fc2d_nsgs", SICONOS_FRICTION_2D_NSGS, NULL},
    {"fc2d_cpg", SICONOS_FRICTION_2D_CPG, NULL},
    {"fc2d_lemke", SICONOS_FRICTION_2D_LEMKE, NULL},
    {"fc2d_enum", SICONOS_FRICTION_2D_ENUM, NULL},
};
#define N_FC ((int)(sizeof k_fc / sizeof *k_fc))

struct LsimFcSolver {
  char name[64];
  LsimSolverOptions opt;
  int kind;               /* 0 ours, 1 Siconos, 2 polyhedral LCP */
  int sic;                /* k_fc index */
  int ndir;
  LsimSolver *lcp_solver; /* polyhedral */
  char msg[1400];         /* the last solve's message, Siconos' printed text included */
};

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const FcEntry *find_siconos(const char *name) {
  if (strncmp(name, "siconos:", 8)) return NULL;
  for (int i = 0; i < N_FC; ++i)
    if (!strcmp(k_fc[i].name, name + 8)) return &k_fc[i];
  return NULL;
}

int lsim_fc_solver_is_exact(const char *name) {
  return !strcmp(name, "nsgs") || !strcmp(name, "nsgs_aa") || find_siconos(name) != NULL;
}

/* Built once, under pthread_once (every LCP solver's creation reads it: threads race). */
static const char *fc_names[N_FC + 3];
static char fc_names_buf[N_FC][48];
static pthread_once_t fc_names_once = PTHREAD_ONCE_INIT;

static void build_fc_names(void) {
  int k = 0;
  fc_names[k++] = "nsgs";
  fc_names[k++] = "nsgs_aa";
  for (int i = 0; i < N_FC; ++i)
    if (!k_fc[i].refused) {
      snprintf(fc_names_buf[i], sizeof fc_names_buf[i], "siconos:%s", k_fc[i].name);
      fc_names[k++] = fc_names_buf[i];
    }
  fc_names[k] = NULL;
}

const char *const *lsim_fc_solver_names(void) {
  pthread_once(&fc_names_once, build_fc_names);
  return fc_names;
}

/* 1 when name is one of lsim_solver_names (an LCP solver lsim_solver_create accepts). */
static int known_lcp_solver(const char *name) {
  for (const char *const *n = lsim_solver_names(); *n; ++n)
    if (!strcmp(*n, name)) return 1;
  return 0;
}

int lsim_fc_solver_create(LsimFcSolver **out, const char *name, const LsimSolverOptions *opt,
                          int ndir, char *err, size_t errlen) {
  *out = NULL;
  if (ndir < 0) {
    snprintf(err, errlen, "the cone's directions must be >= 0 (0: the exact cone), got d=%d", ndir);
    return LSIM_INVALID_INPUT;
  }
  LsimFcSolver *s = calloc(1, sizeof *s);
  if (!s) return LSIM_OUT_OF_MEMORY;
  snprintf(s->name, sizeof s->name, "%s", name);
  s->opt = opt ? *opt : lsim_default_solver_options();
  s->ndir = ndir;
  const FcEntry *e = find_siconos(name);
  if (!strcmp(name, "nsgs") || !strcmp(name, "nsgs_aa")) {
    s->kind = 0;
  } else if (e) {
    if (e->refused) {
      snprintf(err, errlen, "%s is unavailable: %s", name, e->refused);
      free(s);
      return LSIM_UNAVAILABLE;
    }
    s->kind = 1;
    s->sic = (int)(e - k_fc);
  } else if (!strncmp(name, "siconos:fc", 10)) {
    snprintf(err, errlen, "unknown frictional contact solver '%s' (lcpsim solvers)", name);
    free(s);
    return LSIM_UNAVAILABLE;
  } else {
    /* an LCP solver on the polyhedral LCP; a name no solver has is said so first */
    if (!known_lcp_solver(name)) {
      snprintf(err, errlen, "unknown solver '%s' (exact cone: nsgs, nsgs_aa, siconos:fc3d_NAME, "
               "siconos:fc2d_NAME; polyhedral cone, d > 0: an LCP solver such as lemke or pgs; "
               "'lcpsim solvers' lists all)", name);
      free(s);
      return LSIM_UNAVAILABLE;
    }
    if (ndir == 0) {
      snprintf(err, errlen, "'%s' is an LCP solver: give the polyhedral cone's directions "
               "(d=4, 8, ...) or choose an exact-cone solver (nsgs, siconos:fc3d_nsgs, ...)",
               name);
      free(s);
      return LSIM_INVALID_INPUT;
    }
    s->kind = 2;
    const int rc = lsim_solver_create(&s->lcp_solver, name, &s->opt, err, errlen);
    if (rc) {
      free(s);
      return rc;
    }
  }
  if (s->kind != 2 && ndir > 0) {
    snprintf(err, errlen, "%s uses the exact cone: d=%d does not apply", name, ndir);
    free(s);
    return LSIM_INVALID_INPUT;
  }
  *out = s;
  return 0;
}

void lsim_fc_solver_free(LsimFcSolver *s) {
  if (!s) return;
  lsim_solver_free(s->lcp_solver);
  free(s);
}

const char *lsim_fc_solver_last_message(const LsimFcSolver *s) { return s ? s->msg : ""; }

/* ---- Siconos ---- */

/* A Siconos problem holding copies of p's data: W sparse-block (3-D) or dense (2-D). */
typedef struct SicCall {
  FrictionContactProblem *prob;
  SolverOptions *opt;
  int id, dim;
  double *r, *u;
  int info;
  double error;
  const LsimFc *p;
} SicCall;

/* Builds W as a Siconos NumericsMatrix: dense, or sparse-block when sbm (from the nonzero
 * entries of our blocks, through Siconos' triplet and compressed-column forms). */
static NumericsMatrix *siconos_matrix(const LsimFc *p, int sparse_block) {
  const int d = p->dim, n = p->n, dd = d * d;
  if (!sparse_block) {
    NumericsMatrix *dense = NM_create(NM_DENSE, n, n);
    memcpy(dense->matrix0, p->W, (size_t)n * (size_t)n * sizeof(double));
    return dense;
  }
  NumericsMatrix *sp = NM_create(NM_SPARSE, n, n);
  NM_triplet_alloc(sp, (CS_INT)p->nblocks * dd);
  sp->matrix2->origin = NSM_TRIPLET;
  for (int c = 0; c < p->nc; ++c)
    for (int b = p->bptr[c]; b < p->bptr[c + 1]; ++b)
      for (int j = 0; j < d; ++j)
        for (int i = 0; i < d; ++i) {
          const double v = p->blk[(size_t)b * dd + i + j * d];
          if (v != 0.0 || (b == p->bdiag[c] && i == j)) NM_entry(sp, c * d + i, p->bcol[b] * d + j, v);
        }
  NumericsMatrix *sbm = NM_create(NM_SPARSE_BLOCK, n, n);
  SBM_from_csparse(d, NM_csc(sp), sbm->matrix1);
  NM_clear(sp);
  free(sp);
  return sbm;
}

static int sic_setup(void *arg) {
  SicCall *c = arg;
  const LsimFc *p = c->p;
  double *q = malloc(((size_t)p->n + 1) * sizeof(double));
  double *mu = malloc(((size_t)p->nc + 1) * sizeof(double));
  memcpy(q, p->q, (size_t)p->n * sizeof(double));
  memcpy(mu, p->mu, (size_t)p->nc * sizeof(double));
  /* Sparse-block for every 3-D solver and for fc2d_nsgs. fc2d_nsgs on dense W runs Siconos'
     dense variant, which computes a sliding contact's u_T with W_nt where W_tn belongs and
     stops on ||q + W r - u|| / ||q||: on a non-symmetric W that test never passes (it
     stalled at 1.9e-6 on FC2D_SliderCrankLagrangian00000 while r was exact to 8.6e-16)
     and u is returned wrong. Its sparse-block variant solves the same local problems with
     the right entries and stops on Siconos' own error (fc2d_compute_error). The other fc2d
     solvers take dense W. */
  const int sbm = p->dim == 3 || c->id == SICONOS_FRICTION_2D_NSGS;
  c->prob = frictionContactProblem_new_with_data(p->dim, p->nc, siconos_matrix(p, sbm), q, mu);
  c->opt = solver_options_create(c->id);
  return 0;
}

static int sic_solve(void *arg) {
  SicCall *c = arg;
  c->opt->iparam[SICONOS_IPARAM_ITER_DONE] = 0;
  c->info = c->dim == 3 ? fc3d_driver(c->prob, c->r, c->u, c->opt)
                        : fc2d_driver(c->prob, c->r, c->u, c->opt);
  return 0;
}

static int sic_error(void *arg) {
  SicCall *c = arg;
  double nq = 0.0;
  for (int k = 0; k < c->p->n; ++k) nq += c->p->q[k] * c->p->q[k];
  nq = sqrt(nq);
  if (c->dim == 3)
    fc3d_compute_error(c->prob, c->r, c->u, 1e-300, c->opt, nq, &c->error);
  else
    fc2d_compute_error(c->prob, c->r, c->u, 1e-300, nq, &c->error);
  return 0;
}

static int sic_free(void *arg) {
  SicCall *c = arg;
  lsim_siconos_options_free(c->opt); /* the structs too (the LCP adapter's way) */
  if (c->prob) frictionContactProblem_free(c->prob);
  c->opt = NULL;
  c->prob = NULL;
  return 0;
}

/* Appends what Siconos printed during a call (lsim_siconos_trapped_output) to the message,
 * as the LCP solver's message has it (lsim_solver_last_message): "ERROR; printed: TEXT",
 * TEXT bounded (1023 bytes, " ..." when cut short), the message cut to its buffer. */
static void add_printed(LsimFcSolver *s, const char *printed) {
  if (!*printed) return;
  const size_t k = strlen(s->msg);
  if (k + 16 < sizeof s->msg)
    snprintf(s->msg + k, sizeof s->msg - k, "%sprinted: %s", k ? "; " : "", printed);
}

static int solve_siconos(LsimFcSolver *s, const LsimFc *p, double *r, double *u, int *iters,
                         double *sicerr, double *wall, double *setup) {
  const FcEntry *e = &k_fc[s->sic];
  const int want = !strncmp(e->name, "fc3d", 4) ? 3 : 2;
  if (p->dim != want) {
    snprintf(s->msg, sizeof s->msg, "%s solves %d-D problems, this one is %d-D", s->name, want,
             p->dim);
    return LSIM_INVALID_INPUT;
  }
  SicCall c;
  memset(&c, 0, sizeof c);
  c.id = e->id, c.dim = p->dim, c.r = r, c.u = u, c.p = p, c.error = -1.0;
  int ret = 0;
  /* Timed from our problem on, as our solvers are: Siconos' problem and options built from
     ours (setup), then the driver. */
  const double t0 = now();
  /* What Siconos printed during the setup or the driver call, kept for the message (the
     calls after them, the error and the frees, replace the thread's capture). */
  char printed[1024];
  if (lsim_siconos_trapped(sic_setup, &c, &ret, s->msg, sizeof s->msg) || !c.prob || !c.opt) {
    *wall = *setup = now() - t0;
    snprintf(printed, sizeof printed, "%s", lsim_siconos_trapped_output());
    lsim_siconos_trapped(sic_free, &c, &ret, s->msg + strlen(s->msg), 0);
    add_printed(s, printed);
    return LSIM_SOLVER_FAILED;
  }
  c.opt->dparam[SICONOS_DPARAM_TOL] = s->opt.tol;
  if (s->opt.max_iter > 0) c.opt->iparam[SICONOS_IPARAM_MAX_ITER] = s->opt.max_iter;
  if (!s->opt.warm_start) memset(r, 0, (size_t)p->n * sizeof(double));
  memset(u, 0, (size_t)p->n * sizeof(double));
  *setup = now() - t0;
  const int trapped = lsim_siconos_trapped(sic_solve, &c, &ret, s->msg, sizeof s->msg);
  snprintf(printed, sizeof printed, "%s", lsim_siconos_trapped_output());
  /* An abort inside the driver leaves its problem and options in an unknown state: they are
     not freed (a leak, once) nor read. */
  SolverOptions *opt_kept = c.opt;
  if (trapped == -2) c.prob = NULL, c.opt = NULL;
  *wall = now() - t0;
  *iters = trapped == -2 ? 0 : opt_kept->iparam[SICONOS_IPARAM_ITER_DONE];
  /* Siconos' nonsmooth Newton loop (fc3d_nonsmooth_Newton_solvers_solve, behind nsn_ac,
     nsn_fb and nsn_nm) is `while (iter++ < itermax)`: a run that spends the budget leaves
     the count at itermax + 1 (a convergence breaks out with the steps done). The steps done
     are itermax. */
  const int budget = trapped == -2 ? 0 : opt_kept->iparam[SICONOS_IPARAM_MAX_ITER];
  if (trapped != -2 && *iters == budget + 1 && c.info &&
      (c.id == SICONOS_FRICTION_3D_NSN_AC || c.id == SICONOS_FRICTION_3D_NSN_FB ||
       c.id == SICONOS_FRICTION_3D_NSN_NM))
    *iters = budget;
  int status = trapped ? LSIM_SOLVER_FAILED : c.info == 0 ? LSIM_SOLVED : LSIM_SOLVER_FAILED;
  if (!trapped && c.info) snprintf(s->msg, sizeof s->msg, "siconos info %d", c.info);
  /* Siconos says info 1 both for a breakdown and for the iteration budget: the count
     tells them apart. */
  if (!trapped && c.info && *iters >= budget) status = LSIM_MAX_ITERATIONS;
  int finite = 1;
  for (int k = 0; k < p->n; ++k) finite = finite && isfinite(r[k]);
  if (!finite) {
    memset(r, 0, (size_t)p->n * sizeof(double));
    status = LSIM_BREAKDOWN;
  }
  /* A finite iterate that ran away: our relative natural residual above
     LSIM_SICONOS_DIVERGED_RELATIVE (the zero reaction's is at most 1 + max mu) is
     divergence, whatever Siconos says (its error divides by ||r||, so a runaway r can read
     small): reported as a breakdown, with the figures, and r zeroed as for non-finite
     values. */
  if (!trapped && finite) {
    LsimFcQuality qm;
    lsim_fc_quality(p, r, NULL, &qm);
    if (!(qm.relative <= LSIM_SICONOS_DIVERGED_RELATIVE)) {
      double rmax = 0.0;
      for (int k = 0; k < p->n; ++k) rmax = fmax(rmax, fabs(r[k]));
      snprintf(s->msg, sizeof s->msg,
               "%s diverged: max |r| %.3g, relative natural residual %.3g (bound %.0e) after "
               "%d iterations; siconos info %d", s->name, rmax, qm.relative,
               LSIM_SICONOS_DIVERGED_RELATIVE, *iters, c.info);
      memset(r, 0, (size_t)p->n * sizeof(double));
      status = LSIM_BREAKDOWN;
      finite = 0; /* no Siconos error of the diverged iterate */
    }
  }
  char scratch[8];
  if (!trapped && finite && !lsim_siconos_trapped(sic_error, &c, &ret, scratch, sizeof scratch))
    *sicerr = c.error;
  /* A success is taken when Siconos' own error of the Coulomb problem, recomputed on r, is
     within 10 times the tolerance (as the LCP adapter's check, lcp/solver.c; Siconos'
     measure, not ours, which is stricter on some files: docs/siconos-solvers.md).
     fc3d_soclcp says solved on the cone complementarity problem without De Saxce's term
     and left errors of 4e-3 (Rover4396) to 0.2 on the Coulomb problem. */
  if (status == LSIM_SOLVED && c.error >= 0.0 && !(c.error <= 10.0 * s->opt.tol)) {
    snprintf(s->msg, sizeof s->msg,
             "%s reported success at a Siconos error of %.3g (tol %.3g): not taken", s->name,
             c.error, s->opt.tol);
    status = LSIM_SOLVER_FAILED;
  }
  lsim_siconos_trapped(sic_free, &c, &ret, scratch, sizeof scratch);
  add_printed(s, printed);
  return status;
}

/* ---- polyhedral ---- */

static int solve_polyhedral(LsimFcSolver *s, const LsimFc *p, double *r, int *iters,
                            double *lcp_rel, double *wall, double *setup, int *warm_used) {
  const double t0 = now();
  LsimLcp lcp;
  LsimConeBlock *cones = NULL;
  int rc = lsim_fc_to_lcp(p, s->ndir, &lcp, &cones);
  if (rc) {
    snprintf(s->msg, sizeof s->msg, "%s", rc == LSIM_INVALID_INPUT
             ? (p->dim == 2 ? "2-D problems take d=2" : "3-D problems take d a multiple of 4")
             : "out of memory");
    *wall = *setup = now() - t0;
    return rc;
  }
  double *x = calloc((size_t)lcp.n + 1, sizeof(double));
  if (!x) {
    free(cones);
    lsim_lcp_free(&lcp);
    *wall = *setup = now() - t0;
    return LSIM_OUT_OF_MEMORY;
  }
  LsimSolveStats st;
  memset(&st, 0, sizeof st);
  const double t1 = now(); /* the LCP built */
  rc = lsim_solver_solve(s->lcp_solver, &lcp, x, &st);
  const double t2 = now();
  lsim_fc_reaction_from_lcp(p, s->ndir, x, r);
  /* Setup: building the LCP and r = G x; the solve as the LCP solver times it (its own
     measures and a Siconos solver's output capture left out, lcp/solver.h). */
  *setup = (t1 - t0) + (now() - t2);
  *wall = *setup + st.wall_time;
  *iters = st.iterations;
  *lcp_rel = st.residual.relative;
  *warm_used = 0;
  snprintf(s->msg, sizeof s->msg, "%s", lsim_solver_last_message(s->lcp_solver));
  free(x);
  free(cones);
  lsim_lcp_free(&lcp);
  return rc;
}

int lsim_fc_solver_solve(LsimFcSolver *s, const LsimFc *p, double *r, double *u,
                         LsimFcStats *stats) {
  LsimFcStats st;
  memset(&st, 0, sizeof st);
  st.siconos_error = -1.0;
  st.lcp_relative = NAN;
  s->msg[0] = '\0';
  /* Warm started only from a non-trivial guess: some entry of r not zero (lcp/solver.h). */
  int nontrivial = 0;
  for (int k = 0; s->opt.warm_start && k < p->n; ++k) nontrivial |= r[k] != 0.0 && isfinite(r[k]);
  int rc;
  if (s->kind == 0) {
    const double t0 = now();
    st.warm_started = nontrivial;
    rc = lsim_fc_nsgs_ex(p, s->opt.tol, s->opt.max_iter, s->opt.warm_start,
                         strcmp(s->name, "nsgs_aa") ? 0 : 5, r, &st.iterations);
    st.wall_time = now() - t0;
  } else if (s->kind == 1) {
    st.warm_started = nontrivial;
    rc = solve_siconos(s, p, r, u, &st.iterations, &st.siconos_error, &st.wall_time,
                       &st.setup_time);
  } else {
    rc = solve_polyhedral(s, p, r, &st.iterations, &st.lcp_relative, &st.wall_time,
                          &st.setup_time, &st.warm_started);
  }
  for (int k = 0; k < p->n; ++k)
    if (!isfinite(r[k])) {
      memset(r, 0, (size_t)p->n * sizeof(double));
      rc = LSIM_BREAKDOWN;
      break;
    }
  st.status = rc;
  lsim_fc_quality(p, r, u, &st.quality);
  if (stats) *stats = st;
  return rc;
}
