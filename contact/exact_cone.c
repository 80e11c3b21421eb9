/* exact_cone.c: the step's contact problem with Coulomb's exact cone (exact_cone.h). */
#include "contact/exact_cone.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lcp/fc_solver.h"

/* Newton's starts after a failed NSGS solve (lsim_exact_cone_solve). */
#define NEWTON_STARTS 6

void lsim_exact_cone_free(LsimExactCone *x) {
  if (!x) return;
  lsim_fc_free(&x->fc);
  free(x->r);
  memset(x, 0, sizeof *x);
}

/* The LCP variables of contact c's reaction components: normal, t1, t2 (2-D: normal, t). */
static void frame_vars(const LsimConeBlock *cb, int dim, int *v) {
  v[0] = cb->normal;
  v[1] = cb->first_dir;
  if (dim == 3) v[2] = cb->first_dir + cb->ndir / 4;
}

int lsim_exact_cone_solve(LsimExactCone *x, const LsimLcp *lcp, double tol, int max_iter,
                          int warm, double *z, LsimSolveStats *st, char *err, size_t errlen) {
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  memset(st, 0, sizeof *st);
  const int n = lcp->n, nc = lcp->ncones;
  const LsimConeBlock *cones = lcp->cones;
  /* Every variable in a cone with a normal and uniform directions; one dimension. */
  int dim = 0, covered = 0;
  for (int c = 0; c < nc; ++c) {
    const LsimConeBlock *cb = &cones[c];
    const int d = cb->ndir == 2 ? 2 : cb->ndir >= 4 && cb->ndir % 4 == 0 ? 3 : 0;
    if (cb->normal < 0 || !cb->uniform || !d || (dim && d != dim)) {
      snprintf(err, errlen, "the exact cone needs contact cones with a normal and uniform "
               "directions (2 in 2-D, a multiple of 4 in 3-D); contact block %d has ndir %d%s",
               c, cb->ndir, cb->normal < 0 ? " and a fixed normal" : "");
      return st->status = LSIM_INVALID_INPUT;
    }
    dim = d;
    covered += 2 + cb->ndir;
  }
  if (covered != n) {
    snprintf(err, errlen, "the exact cone handles contacts only: %d of the %d LCP variables "
             "are not contact cones (tethers or unilateral rows)", n - covered, n);
    return st->status = LSIM_INVALID_INPUT;
  }
  if (nc == 0) return st->status = LSIM_SOLVED;

  /* The problem: rows and columns of the frame variables. */
  /* Workspace grown on demand: steady state allocates nothing (lsim_fc_index reuses). */
  if (nc > x->cap_nc || x->fc.dim != dim) {
    lsim_fc_free(&x->fc);
    free(x->r);
    x->r = NULL;
    x->cap_nc = 0;
    if (lsim_fc_init(&x->fc, dim, nc)) return st->status = LSIM_OUT_OF_MEMORY;
    x->r = calloc(4 * (size_t)dim * nc + 2, sizeof(double));
    if (!x->r) return st->status = LSIM_OUT_OF_MEMORY;
    x->cap_nc = nc;
  }
  LsimFc *p = &x->fc;
  p->nc = nc;
  p->n = dim * nc;
  const int nf = p->n;
  for (int a = 0; a < nc; ++a) {
    int va[3];
    frame_vars(&cones[a], dim, va);
    p->mu[a] = cones[a].mu;
    for (int i = 0; i < dim; ++i) {
      p->q[a * dim + i] = lcp->q[va[i]];
      for (int b = 0; b < nc; ++b) {
        int vb[3];
        frame_vars(&cones[b], dim, vb);
        for (int j = 0; j < dim; ++j)
          p->W[(size_t)(a * dim + i) + (size_t)(b * dim + j) * nf] =
              lcp->M[(size_t)va[i] + (size_t)vb[j] * n];
      }
    }
  }
  if (lsim_fc_index(p)) return st->status = LSIM_OUT_OF_MEMORY;

  /* Warm start: the guess's reaction r = (c_n, sum_k beta_k d_k). */
  double *r = x->r, *u = x->r + nf;
  for (int c = 0; c < nc; ++c) {
    const LsimConeBlock *cb = &cones[c];
    double *rc = r + c * dim;
    rc[0] = warm ? fmax(z[cb->normal], 0.0) : 0.0;
    rc[1] = 0.0;
    if (dim == 3) rc[2] = 0.0;
    for (int k = 0; warm && k < cb->ndir; ++k) {
      const double b = z[cb->first_dir + k], a = 2.0 * 3.14159265358979323846 * k / cb->ndir;
      if (dim == 2) rc[1] += k == 0 ? b : -b;
      else rc[1] += b * cos(a), rc[2] += b * sin(a);
    }
  }
  int iters = 0;
  /* Warm started only from a non-trivial guess (some reaction entry not zero), as the LCP
     solvers report it (lcp/solver.h). */
  int started = 0;
  for (int k = 0; warm && k < nf; ++k) started |= r[k] != 0.0;
  int status = lsim_fc_nsgs_ex(p, tol, max_iter, warm, 5, r, &iters);
  LsimFcQuality qm;
  lsim_fc_quality(p, r, u, &qm);
  /* NSGS missed the tolerance: the damped Newton method on Alart and Curnier's equations,
     which treats the contacts together where the sweep cycles (large mu: lcp/fc_newton.c),
     from NSGS's point and from zero reactions, with the tangential weight 1 and 10, then
     from zero with steps capped (each changes Newton's path; NEWTON_STARTS), until one
     solves; an unsolved one's best point (by its own merit) is kept when its natural map
     is smaller than NSGS's. Only failed solves pay: a step NSGS solves is untouched.
     st->iterations counts both. */
  if (status != LSIM_SOLVED && tol > 0.0 && nf <= LSIM_FC_NEWTON_MAX_N) {
    static const struct { int from_zero; double weight, cap; } starts[NEWTON_STARTS] = {
        {0, 1.0, 0.0}, {1, 1.0, 0.0}, {0, 10.0, 0.0}, {1, 10.0, 0.0}, {1, 1.0, 1.0},
        {1, 10.0, 1.0}};
    double *rn = x->r + 2 * (size_t)nf, *r0 = x->r + 3 * (size_t)nf;
    memcpy(r0, r, (size_t)nf * sizeof(double));
    for (int k = 0; k < NEWTON_STARTS && status != LSIM_SOLVED; ++k) {
      if (starts[k].from_zero) memset(rn, 0, (size_t)nf * sizeof(double));
      else memcpy(rn, r0, (size_t)nf * sizeof(double));
      int nit = 0;
      double rel = INFINITY;
      const int ns = lsim_fc_newton(p, tol, 0, starts[k].weight, starts[k].cap, rn, &nit, &rel);
      iters += nit;
      if (ns == LSIM_SOLVED || rel < qm.relative) {
        memcpy(r, rn, (size_t)nf * sizeof(double));
        lsim_fc_quality(p, r, u, &qm);
        if (ns == LSIM_SOLVED) status = LSIM_SOLVED;
      }
    }
  }

  /* Back to the LCP variables, with the same J' z. */
  memset(z, 0, (size_t)n * sizeof(double));
  for (int c = 0; c < nc; ++c) {
    const LsimConeBlock *cb = &cones[c];
    const double *rc = r + c * dim, *uc = u + c * dim;
    const int d = cb->ndir, f = cb->first_dir;
    z[cb->normal] = rc[0];
    if (dim == 2) {
      z[f] = fmax(rc[1], 0.0);
      z[f + 1] = fmax(-rc[1], 0.0);
      z[cb->lambda] = fabs(uc[1]);
    } else {
      z[f] = fmax(rc[1], 0.0);
      z[f + d / 2] = fmax(-rc[1], 0.0);
      z[f + d / 4] = fmax(rc[2], 0.0);
      z[f + 3 * d / 4] = fmax(-rc[2], 0.0);
      z[cb->lambda] = hypot(uc[1], uc[2]);
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  st->status = status;
  st->iterations = iters;
  st->warm_started = started;
  st->wall_time = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  st->residual.natural = qm.natural;
  st->residual.relative = qm.relative;
  st->residual.complementarity = qm.complementarity;
  st->siconos_error = -1.0;
  return status;
}
