/* fc_nsgs.c: "nsgs", our exact-cone frictional contact solver: block (non-smooth)
 * Gauss-Seidel with the exact solution of each contact's local Coulomb problem.
 *
 * Math. FC(W, q, mu) (lcp/fc.h): u = W r + q, r_i in K_i, K_i* ∋ û_i ⊥ r_i. A sweep visits
 * the contacts in order; for contact i, with the others' reactions fixed at their latest
 * values, its local problem is FC(A, b, mu_i) with A = W_ii (the dim x dim diagonal block)
 * and b = q_i + sum_{j != i} W_ij r_j, and it is solved exactly: Coulomb's law has three
 * cases, tried in order:
 *   take-off   r = 0 solves it iff b_N >= 0 (then û = b + mu ||b_T|| e_N lies in K*);
 *   sticking   u = 0: r = -A^-1 b, valid iff r lies in K;
 *   sliding    u_N = 0, r_T = -mu r_N d with d = u_T / ||u_T|| the slip direction. With
 *              d = (cos t, sin t) and g(t) = (1, -mu cos t, -mu sin t), r = r_N g, u_N = 0
 *              gives r_N = -b_N / (A g)_N, and u_T = r_N (A g)_T + b_T must be a positive
 *              multiple of d: F(t) = u_T x d = 0 with u_T . d >= 0, r_N > 0. 2-D: t is 0
 *              or pi, both tried. 3-D: Newton's method on F(t) (derivative in closed
 *              form, steps of at most a quarter turn) from the slip the sticking trial
 *              points to (x_T of x = A^-1 b: exact for an isotropic block), then from
 *              the direction of the current slip (or of the current friction); when both
 *              fail, F is sampled at 64 angles and a sign change with a valid root is
 *              bisected to round-off. Where the local problem has several sliding
 *              solutions (strong normal-tangent coupling in W_ii) the one found depends
 *              on these starts; plain NSGS does not notice on the files in shared/, the
 *              Anderson-accelerated iteration does (sweep counts change, see
 *              docs/solvers.md).
 * The reaction found is the local problem's exact solution (to round-off), so a fixed
 * point of the sweep solves FC(W, q, mu).
 * Stopping: after each sweep the relative change ||r_k - r_{k-1}|| / ||r_k||; when it is
 * below tol, and every 10 sweeps in any case, the full measure (the natural-map residual
 * relative to ||q||, lsim_fc_quality) is computed and the solve stops
 * when that is <= tol.
 * Anderson acceleration ("nsgs_aa", depth m = 5): the sweep is a fixed-point map G; with
 * the last m differences of G(r_k) and of f_k = G(r_k) - r_k, the next iterate is
 * G(r_k) - dG gamma with gamma minimising ||f_k - dF gamma|| (normal equations, regularised
 * by 1e-12 of their trace), projected contact by contact on the cones K_i; the history is
 * dropped when ||f|| more than doubles. (D. G. Anderson, J. ACM 12 (1965); H. F. Walker,
 * P. Ni, SIAM J. Numer. Anal. 49 (2011).) A fixed point of the mixed iteration is a fixed
 * point of G: the same solution, reached in fewer sweeps on slowly converging problems
 * (stacks: 6260 sweeps to 1e-8 on BoxesStack1, where plain NSGS stalls near 2e-5).
 * A safeguard: a mixed iterate that is the point the sweep started from (the mixing
 * returned it while G moves it) is a stall: the history is dropped and LSIM_FC_PLAIN_RUN
 * plain sweeps follow (a 100 kg box on a 1 kg one, cold: every mixed iterate was projected
 * back onto zero impulses, relative residual 0.976 for ever where plain sweeps reach 1e-7
 * in 10 000; now 342 sweeps to 1e-10, and 522 for 1e3 kg on 1 kg). It does not fire on
 * the files in shared/ nor on 300 steps of data/dominoes_10.json with the exact cone: the
 * same sweeps and results, to the bit (docs/solvers.md).
 *
 * References: M. Jean, "The non-smooth contact dynamics method", CMAME 177 (1999);
 * V. Acary, M. Brémond, O. Huber, "On solving contact problems with Coulomb friction:
 * formulations and numerical comparisons", in Advanced Topics in Nonsmooth Dynamics,
 * Springer 2018 (NSGS and its local solvers); G. De Saxcé, Z.-Q. Feng, "The bipotential
 * method", Math. Comput. Modelling 28 (1998) (the modified velocity û).
 *
 * Failure modes:
 *  - no convergence within max_iter sweeps (Gauss-Seidel on Coulomb friction is not
 *    guaranteed to converge; large mu with strongly coupled contacts, rank-deficient W
 *    as in stacks): LSIM_MAX_ITERATIONS, r the last iterate. At large mu the sweep can
 *    cycle with every local problem solved exactly (a cube landing flat at mu = 10: 0.176
 *    for ever); the time step then runs lcp/fc_newton.c (contact/exact_cone.c);
 *  - a singular diagonal block (no sticking solution by A^-1): the sticking case is then
 *    found by a local projected fixed point r <- P_K(r - rho (A r + b + mu ||u_T|| e_N)),
 *    rho = 1 / trace(A), 200 local iterations at most;
 *  - a diagonal block with A_NN <= 0, or non-finite values: LSIM_BREAKDOWN, r zeroed.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LSIM_FC_PI 3.14159265358979323846

#include "fc.h"
#include "fc_solver.h"

#define NSGS_DEFAULT_MAX_ITER 10000
#define SAMPLES 64
/* The full measure is also computed every this many sweeps (it costs about one sweep). */
#define FULL_CHECK_EVERY 10

/* Local problem of one contact. */
typedef struct Local {
  int dim;
  double A[9];    /* column-major dim x dim */
  double Ainv[9];
  int invertible;
  double mu;
} Local;

/* Inverse of the dim x dim block; 0 when singular (relative pivot below 1e-14). */
static int invert(int d, const double *A, double *X) {
  if (d == 2) {
    const double det = A[0] * A[3] - A[2] * A[1];
    const double sc = fabs(A[0] * A[3]) + fabs(A[2] * A[1]);
    if (!(fabs(det) > 1e-14 * sc)) return 0;
    X[0] = A[3] / det, X[1] = -A[1] / det, X[2] = -A[2] / det, X[3] = A[0] / det;
    return 1;
  }
#define a(i, j) A[(i) + 3 * (j)]
  const double c00 = a(1, 1) * a(2, 2) - a(1, 2) * a(2, 1);
  const double c01 = a(1, 2) * a(2, 0) - a(1, 0) * a(2, 2);
  const double c02 = a(1, 0) * a(2, 1) - a(1, 1) * a(2, 0);
  const double det = a(0, 0) * c00 + a(0, 1) * c01 + a(0, 2) * c02;
  double sc = 0.0;
  for (int k = 0; k < 9; ++k) sc = fmax(sc, fabs(A[k]));
  if (!(fabs(det) > 1e-14 * sc * sc * sc)) return 0;
  const double inv = 1.0 / det;
  X[0 + 3 * 0] = c00 * inv;
  X[1 + 3 * 0] = c01 * inv;
  X[2 + 3 * 0] = c02 * inv;
  X[0 + 3 * 1] = (a(0, 2) * a(2, 1) - a(0, 1) * a(2, 2)) * inv;
  X[1 + 3 * 1] = (a(0, 0) * a(2, 2) - a(0, 2) * a(2, 0)) * inv;
  X[2 + 3 * 1] = (a(0, 1) * a(2, 0) - a(0, 0) * a(2, 1)) * inv;
  X[0 + 3 * 2] = (a(0, 1) * a(1, 2) - a(0, 2) * a(1, 1)) * inv;
  X[1 + 3 * 2] = (a(0, 2) * a(1, 0) - a(0, 0) * a(1, 2)) * inv;
  X[2 + 3 * 2] = (a(0, 0) * a(1, 1) - a(0, 1) * a(1, 0)) * inv;
#undef a
  return 1;
}

/* y = A x (dim). */
static void mv(int d, const double *A, const double *x, double *y) {
  for (int i = 0; i < d; ++i) {
    double s = 0.0;
    for (int j = 0; j < d; ++j) s += A[i + j * d] * x[j];
    y[i] = s;
  }
}

/* The sliding equation at angle t (3-D): F, its derivative, lambda = u_T . d, r_N. 0 when
 * (A g)_N <= 0 (no sliding solution there). */
static int slide_eval(const Local *L, const double *b, double t, double *F, double *dF,
                      double *lam, double *rn) {
  const double c = cos(t), s = sin(t), m = L->mu;
  const double g[3] = {1.0, -m * c, -m * s}, gp[3] = {0.0, m * s, -m * c};
  double h[3] = {0, 0, 0}, hp[3] = {0, 0, 0};
  mv(3, L->A, g, h);
  mv(3, L->A, gp, hp);
  if (!(h[0] > 0.0)) return 0;
  const double r = -b[0] / h[0], rp = b[0] * hp[0] / (h[0] * h[0]);
  const double ux = r * h[1] + b[1], uy = r * h[2] + b[2];
  const double uxp = rp * h[1] + r * hp[1], uyp = rp * h[2] + r * hp[2];
  *F = ux * s - uy * c;
  if (dF) *dF = uxp * s + ux * c - uyp * c + uy * s;
  *lam = ux * c + uy * s;
  *rn = r;
  return 1;
}

/* Sets r to the sliding reaction at angle t. */
static void slide_set(const Local *L, double t, double rn, double *r) {
  r[0] = rn;
  r[1] = -L->mu * rn * cos(t);
  r[2] = -L->mu * rn * sin(t);
}

/* Newton's method on F(t) from t0, steps limited to a quarter turn (a full step from a
 * poor start jumps to the root at the opposite slip, where u_T . d < 0). 1 and r set when
 * it ends on a valid root, or 0. */
static int slide_newton(const Local *L, const double *b, double t0, double scale, double maxstep,
                        double *r) {
  double t = t0, F, dF, lam, rn;
  for (int it = 0; it < 30; ++it) {
    if (!slide_eval(L, b, t, &F, &dF, &lam, &rn) || dF == 0.0) break;
    const double step = fmax(-maxstep, fmin(maxstep, F / dF));
    t -= step;
    if (fabs(step) < 1e-15 || fabs(F) < 1e-15 * scale) {
      if (slide_eval(L, b, t, &F, NULL, &lam, &rn) && lam >= 0.0 && rn > 0.0 &&
          fabs(F) <= 1e-10 * scale) {
        slide_set(L, t, rn, r);
        return 1;
      }
      break;
    }
  }
  return 0;
}

/* 3-D sliding case: Newton from t1 (the slip the sticking trial points to; the current
 * slip when there is no trial), then from t0 (the current slip), then bracketing. 1 and r
 * set, or 0. */
static int slide3(const Local *L, const double *b, double t0, double t1, double *r) {
  double F, lam, rn;
  const double scale = fabs(b[0]) + fabs(b[1]) + fabs(b[2]) + DBL_MIN;
  if (slide_newton(L, b, t1, scale, 0.25 * LSIM_FC_PI, r)) return 1;
  if (slide_newton(L, b, t0, scale, 0.25 * LSIM_FC_PI, r)) return 1;
  /* Bracketing: sign changes of F among SAMPLES angles, bisected. */
  double tprev = 0.0, Fprev = 0.0;
  int have = 0;
  for (int k = 0; k <= SAMPLES; ++k) {
    const double tk = 2.0 * LSIM_FC_PI * k / SAMPLES;
    double Fk;
    if (!slide_eval(L, b, tk, &Fk, NULL, &lam, &rn)) {
      have = 0;
      continue;
    }
    if (have && ((Fprev <= 0.0 && Fk >= 0.0) || (Fprev >= 0.0 && Fk <= 0.0))) {
      double lo = tprev, hi = tk, Flo = Fprev;
      for (int it = 0; it < 100 && hi - lo > 1e-16; ++it) {
        const double mid = 0.5 * (lo + hi);
        double Fm;
        if (!slide_eval(L, b, mid, &Fm, NULL, &lam, &rn)) break;
        if ((Fm <= 0.0) == (Flo <= 0.0)) lo = mid, Flo = Fm;
        else hi = mid;
      }
      const double tm = 0.5 * (lo + hi);
      if (slide_eval(L, b, tm, &F, NULL, &lam, &rn) && lam >= 0.0 && rn > 0.0) {
        slide_set(L, tm, rn, r);
        return 1;
      }
    }
    tprev = tk, Fprev = Fk, have = 1;
  }
  return 0;
}

/* Projected fixed point on the local problem (singular A or no case found). */
static void local_projection(const Local *L, const double *b, double *r) {
  const int d = L->dim;
  double tr = 0.0;
  for (int k = 0; k < d; ++k) tr += L->A[k + k * d];
  const double rho = tr > 0.0 ? 1.0 / tr : 1.0;
  for (int it = 0; it < 200; ++it) {
    double u[3] = {0, 0, 0}, x[3] = {0, 0, 0};
    mv(d, L->A, r, u);
    for (int k = 0; k < d; ++k) u[k] += b[k];
    const double ut = d == 3 ? hypot(u[1], u[2]) : fabs(u[1]);
    u[0] += L->mu * ut;
    double change = 0.0, size = 0.0;
    for (int k = 0; k < d; ++k) x[k] = r[k] - rho * u[k];
    lsim_fc_project_cone(d, L->mu, x);
    for (int k = 0; k < d; ++k) {
      change += (x[k] - r[k]) * (x[k] - r[k]);
      size += x[k] * x[k];
      r[k] = x[k];
    }
    if (change <= 1e-32 * (size + DBL_MIN)) break;
  }
}

/* The exact solution of FC(A, b, mu) into r (r holds the current value on entry, used
 * to start the sliding search). */
static void local_solve(const Local *L, const double *b, double *r) {
  const int d = L->dim;
  const double m = L->mu;
  /* take-off */
  if (b[0] >= 0.0) {
    r[0] = r[1] = 0.0;
    if (d == 3) r[2] = 0.0;
    return;
  }
  /* frictionless */
  if (m == 0.0) {
    r[0] = -b[0] / L->A[0];
    r[1] = 0.0;
    if (d == 3) r[2] = 0.0;
    return;
  }
  /* sticking */
  double x[3] = {0.0, 0.0, 0.0};
  if (L->invertible) {
    mv(d, L->Ainv, b, x);
    const double xt = d == 3 ? hypot(x[1], x[2]) : fabs(x[1]);
    if (-x[0] >= 0.0 && xt <= -m * x[0]) {
      for (int k = 0; k < d; ++k) r[k] = -x[k];
      return;
    }
  }
  /* sliding */
  if (d == 2) {
    for (int sgn = 1; sgn >= -1; sgn -= 2) {
      const double g[2] = {1.0, -m * sgn};
      double h[2];
      mv(2, L->A, g, h);
      if (!(h[0] > 0.0)) continue;
      const double rn = -b[0] / h[0], ut = rn * h[1] + b[1];
      if (sgn * ut >= 0.0) {
        r[0] = rn;
        r[1] = -m * sgn * rn;
        return;
      }
    }
  } else {
    /* start from the current slip direction, else from the friction's opposite */
    double u[3] = {0, 0, 0};
    mv(3, L->A, r, u);
    for (int k = 0; k < 3; ++k) u[k] += b[k];
    double t0;
    if (hypot(u[1], u[2]) > 0.0) t0 = atan2(u[2], u[1]);
    else if (hypot(r[1], r[2]) > 0.0) t0 = atan2(-r[2], -r[1]);
    else t0 = atan2(b[2], b[1]);
    /* the sticking trial r = -x left the cone: its friction -x_T opposes a slip along x_T */
    const double t1 = L->invertible && hypot(x[1], x[2]) > 0.0 ? atan2(x[2], x[1]) : t0;
    if (slide3(L, b, t0, t1, r)) return;
  }
  local_projection(L, b, r);
}

/* One sweep over the contacts, in place on r. Returns ||r_new - r_old||^2 in *change and
 * ||r_new||^2 in *size. */
static void sweep(const LsimFc *p, const Local *loc, double *r, double *change, double *size) {
  const int d = p->dim, dd = d * d;
  double ch = 0.0, sz = 0.0;
  for (int c = 0; c < p->nc; ++c) {
    /* b = q_c + sum_{j != c} W_cj r_j */
    double b[3] = {p->q[c * d], p->q[c * d + 1], d == 3 ? p->q[c * d + 2] : 0.0};
    for (int bb = p->bptr[c]; bb < p->bptr[c + 1]; ++bb) {
      const int j = p->bcol[bb];
      if (j == c) continue;
      const double *B = p->blk + (size_t)bb * dd, *rj = r + j * d;
      for (int jj = 0; jj < d; ++jj) {
        const double x = rj[jj];
        if (x == 0.0) continue;
        for (int ii = 0; ii < d; ++ii) b[ii] += B[ii + jj * d] * x;
      }
    }
    double *rc = r + c * d;
    const double old[3] = {rc[0], rc[1], d == 3 ? rc[2] : 0.0};
    local_solve(&loc[c], b, rc);
    for (int k = 0; k < d; ++k) {
      ch += (rc[k] - old[k]) * (rc[k] - old[k]);
      sz += rc[k] * rc[k];
    }
  }
  *change = ch;
  *size = sz;
}

/* Solves the m x m symmetric system A x = b (Gaussian elimination with partial pivoting,
 * A and b overwritten). 0, or -1 when singular. */
static int small_solve(int m, double *A, double *b) {
  for (int k = 0; k < m; ++k) {
    int piv = k;
    for (int i = k + 1; i < m; ++i)
      if (fabs(A[i * m + k]) > fabs(A[piv * m + k])) piv = i;
    if (!(fabs(A[piv * m + k]) > 0.0)) return -1;
    if (piv != k) {
      for (int j = 0; j < m; ++j) {
        const double t = A[k * m + j];
        A[k * m + j] = A[piv * m + j], A[piv * m + j] = t;
      }
      const double t = b[k];
      b[k] = b[piv], b[piv] = t;
    }
    for (int i = k + 1; i < m; ++i) {
      const double f = A[i * m + k] / A[k * m + k];
      for (int j = k; j < m; ++j) A[i * m + j] -= f * A[k * m + j];
      b[i] -= f * b[k];
    }
  }
  for (int k = m - 1; k >= 0; --k) {
    double s = b[k];
    for (int j = k + 1; j < m; ++j) s -= A[k * m + j] * b[j];
    b[k] = s / A[k * m + k];
  }
  return 0;
}

int lsim_fc_nsgs_ex(const LsimFc *p, double tol, int max_iter, int warm, int depth, double *r,
                    int *iterations) {
  const int d = p->dim, nc = p->nc, n = p->n, dd = d * d;
  *iterations = 0;
  if (max_iter <= 0) max_iter = NSGS_DEFAULT_MAX_ITER;
  if (depth > LSIM_FC_ANDERSON_MAX) depth = LSIM_FC_ANDERSON_MAX;
  if (!warm) memset(r, 0, (size_t)n * sizeof(double));
  for (int k = 0; k < n; ++k)
    if (!isfinite(r[k])) memset(r, 0, (size_t)n * sizeof(double));
  /* workspace: local problems; Anderson: g, f, previous g and f, depth columns of dG, dF */
  const size_t nn = (size_t)n + 1;
  Local *loc = malloc(((size_t)nc + 1) * sizeof *loc);
  double *ws = depth > 0 ? malloc((5 + 2 * (size_t)depth) * nn * sizeof(double)) : NULL;
  if (!loc || (depth > 0 && !ws)) {
    free(loc), free(ws);
    return LSIM_OUT_OF_MEMORY;
  }
  /* prepare: the diagonal blocks and their inverses */
  for (int c = 0; c < nc; ++c) {
    Local *L = &loc[c];
    L->dim = d;
    L->mu = p->mu[c];
    memcpy(L->A, p->blk + (size_t)p->bdiag[c] * dd, (size_t)dd * sizeof(double));
    L->invertible = invert(d, L->A, L->Ainv);
    if (!(L->A[0] > 0.0) && p->q[c * d] < 0.0) {
      /* no normal stiffness where a contact would need to push */
      free(loc), free(ws);
      memset(r, 0, (size_t)n * sizeof(double));
      return LSIM_BREAKDOWN;
    }
  }
  double *g = ws, *f = ws + nn, *gp = ws + 2 * nn, *fp = ws + 3 * nn;
  double *dG = ws ? ws + 4 * nn : NULL, *dF = ws ? ws + (4 + (size_t)depth) * nn : NULL;
  /* Anderson: the iterate of smallest full measure so far (the accelerated iterates are
     not monotone: on BoxesStack1 9.1e-9 after 6260 sweeps, 1.1e-5 after 10 000), returned
     when the budget ends first. */
  double *best = ws ? ws + (4 + 2 * (size_t)depth) * nn : NULL, best_rel = INFINITY;
  int hist = 0, head = 0; /* columns stored, next column to overwrite */
  double prev_res = INFINITY;
  int plain_left = 0; /* plain sweeps left after a stall */
  int status = LSIM_MAX_ITERATIONS;
  LsimFcQuality qm;
  for (int it = 1; it <= max_iter; ++it) {
    double change, size;
    if (depth <= 0) {
      sweep(p, loc, r, &change, &size);
    } else {
      /* g = G(r), f = g - r */
      memcpy(g, r, (size_t)n * sizeof(double));
      sweep(p, loc, g, &change, &size);
      for (int k = 0; k < n; ++k) f[k] = g[k] - r[k];
      const double res = sqrt(change);
      /* plain sweeps after a stall (below) */
      const int plain = plain_left > 0;
      if (plain) --plain_left;
      if (it > 1) {
        /* new history column: dG = g - gp, dF = f - fp; restart when the residual grew */
        if (res > 2.0 * prev_res) hist = 0;
        double *cg = dG + (size_t)head * nn, *cf = dF + (size_t)head * nn;
        for (int k = 0; k < n; ++k) cg[k] = g[k] - gp[k], cf[k] = f[k] - fp[k];
        head = (head + 1) % depth;
        if (hist < depth) ++hist;
      }
      prev_res = res;
      memcpy(gp, g, (size_t)n * sizeof(double));
      memcpy(fp, f, (size_t)n * sizeof(double));
      /* gamma = argmin ||f - dF gamma||, r = g - dG gamma, projected on the cones */
      int mixed = 0;
      if (hist > 0 && !plain) {
        double A[LSIM_FC_ANDERSON_MAX * LSIM_FC_ANDERSON_MAX], bv[LSIM_FC_ANDERSON_MAX];
        double tr = 0.0;
        for (int a = 0; a < hist; ++a) {
          const double *fa = dF + (size_t)a * nn;
          double sb = 0.0;
          for (int k = 0; k < n; ++k) sb += fa[k] * f[k];
          bv[a] = sb;
          for (int b2 = 0; b2 <= a; ++b2) {
            const double *fb = dF + (size_t)b2 * nn;
            double s2 = 0.0;
            for (int k = 0; k < n; ++k) s2 += fa[k] * fb[k];
            A[a * hist + b2] = A[b2 * hist + a] = s2;
          }
          tr += A[a * hist + a];
        }
        for (int a = 0; a < hist; ++a) A[a * hist + a] += 1e-12 * tr + DBL_MIN;
        if (!small_solve(hist, A, bv)) {
          for (int k = 0; k < n; ++k) {
            double s2 = g[k];
            for (int a = 0; a < hist; ++a) s2 -= dG[(size_t)a * nn + k] * bv[a];
            r[k] = s2;
          }
          for (int c = 0; c < nc; ++c) lsim_fc_project_cone(d, p->mu[c], r + c * d);
          mixed = 1;
          /* The mixing stalled when it returns the point it started from (r_k = g - f)
             while the sweep moves it: a 100 kg box on a 1 kg one, cold, every mixed
             iterate was projected back onto zero impulses (sweep change 8.7e-2 for ever,
             relative residual 0.976, where plain sweeps reach 1e-7). The history is
             dropped and plain sweeps follow from this sweep's G(r). */
          double move = 0.0, fbig = 0.0;
          for (int k = 0; k < n; ++k)
            move = fmax(move, fabs(r[k] - (g[k] - f[k]))), fbig = fmax(fbig, fabs(f[k]));
          if (move <= 1e-12 * fbig && fbig > 0.0)
            mixed = 0, hist = 0, plain_left = LSIM_FC_PLAIN_RUN - 1;
        }
      }
      if (!mixed) memcpy(r, g, (size_t)n * sizeof(double));
    }
    *iterations = it;
    if (!isfinite(change) || !isfinite(size)) {
      status = LSIM_BREAKDOWN;
      memset(r, 0, (size_t)n * sizeof(double));
      break;
    }
    /* light test, then the full measure */
    if (change <= tol * tol * fmax(size, DBL_MIN) || it % FULL_CHECK_EVERY == 0 ||
        it == max_iter) {
      lsim_fc_quality(p, r, NULL, &qm);
      if (qm.relative <= tol) {
        status = LSIM_SOLVED;
        break;
      }
      if (best && qm.relative < best_rel) {
        best_rel = qm.relative;
        memcpy(best, r, (size_t)n * sizeof(double));
      }
      if (depth > 0 && !isfinite(qm.relative)) {
        status = LSIM_BREAKDOWN;
        memset(r, 0, (size_t)n * sizeof(double));
        break;
      }
    }
  }
  /* The budget ended first: the best iterate seen (Anderson; plain NSGS keeps its last,
     Siconos' iterate at the same count). */
  if (status == LSIM_MAX_ITERATIONS && best && best_rel < INFINITY && best_rel < qm.relative)
    memcpy(r, best, (size_t)n * sizeof(double));
  free(loc);
  free(ws);
  return status;
}

int lsim_fc_nsgs(const LsimFc *p, double tol, int max_iter, int warm, double *r,
                 int *iterations) {
  return lsim_fc_nsgs_ex(p, tol, max_iter, warm, 0, r, iterations);
}
