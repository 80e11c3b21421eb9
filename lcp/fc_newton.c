/* fc_newton.c: a damped semismooth Newton method on Alart and Curnier's equations of the
 * frictional contact problem FC(W, q, mu) with the exact Coulomb cone (lcp/fc.h), for
 * problems where block Gauss-Seidel does not converge (large mu).
 *
 * Math. With u = W r + q and per contact c weights rho_N, rho_T > 0, Coulomb's law is
 * Phi(r) = 0 with (P. Alart, A. Curnier, CMAME 92 (1991))
 *     Phi_N = r_N - [r_N - rho_N u_N]_+,
 *     Phi_T = r_T - P_D(R)(r_T - rho_T u_T),   R = mu [r_N - rho_N u_N]_+,
 * D(R) the disk of radius R; every zero is a solution of FC and conversely, for any
 * positive weights. Phi is piecewise smooth; a generalized Jacobian H (per contact: the
 * normal row rho_N W_N where r_N - rho_N u_N > 0, else e_N; the tangential rows rho_T W_T
 * inside the disk, E_T off a zero disk, and E_T - xi dR/dr - (R / ||x||)(I - xi xi')(E_T -
 * rho_T W_T) with x = r_T - rho_T u_T, xi = x / ||x|| when sliding) gives the step
 * H d = -Phi, solved densely (LU, partial pivoting; a singular H is shifted by a small
 * multiple of its largest entry). The step is damped by backtracking on the merit
 * 0.5 ||Phi||^2 (Armijo, halving down to 2^-30); the iterate is kept in the cones.
 * Weights: rho_N = 1 / W_NN and rho_T = w / max(W_T1T1, W_T2T2) of the contact's diagonal
 * block (2-D: W_TT), which makes the equations dimensionless per contact; w, the caller's
 * tangent weight, changes the path (not the solutions): the step after the cube lands at
 * mu = 1000 is solved from zero reactions with w = 10, not with w = 1 (5e-5 relative after
 * 200 steps).
 * The caller may cap the step's length (step_cap > 0: at most step_cap (||r|| + ||q|| /
 * max_i W_ii)): at mu = 1e6 the sliding rows carry mu in their Jacobian and the full steps
 * reach 1e10 from zero reactions (the cube's landing), the line search then cutting them
 * to 2^-28.
 * The damping: when no step length decreases the merit, the full step is taken anyway
 * (non-monotone; the best point is kept): with the monotone search alone the cube at
 * mu = 10 stopped after one step at 6.1e-2, with it it is solved in 9 steps from zero.
 * Stopping: the relative natural-map residual (lsim_fc_quality, the measure every
 * exact-cone solve is judged by) <= tol, checked after every step.
 *
 * Why it is needed: at large mu the friction of one contact moves the normal velocity of
 * the others by up to mu times their normal coupling, so the Gauss-Seidel map over the
 * contacts is not a contraction and may cycle for ever with every local problem solved
 * exactly (a cube landing flat on its four corners at mu = 10: lcp/fc_nsgs.c cycles in
 * the null space of W at a relative residual of 0.176; Siconos' fc3d_nsgs the same).
 * Newton's method treats the contacts together.
 *
 * Workspace: n x n for H and its LU, plus seven vectors of n: (n^2 + 7 n + 2 nc) doubles,
 * allocated once a call. Callers bound n (contact/exact_cone.c: LSIM_FC_NEWTON_MAX_N).
 *
 * Failure modes: a step that the line search cannot shorten into a decrease of the merit
 * (a local minimum of ||Phi|| that is not a zero, or Phi's kinks): the full step is taken
 * (above); at the iteration limit r is the best iterate, LSIM_MAX_ITERATIONS; the iteration limit:
 * the same; non-finite values: LSIM_BREAKDOWN, r the best iterate. "Best" is by the merit
 * 0.5 ||Phi||^2, not by the natural map (see lsim_fc_newton).
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fc.h"
#include "fc_solver.h"

#define NEWTON_DEFAULT_MAX_ITER 100
/* Armijo's sufficient decrease and the smallest damping tried (2^-30). */
#define ARMIJO 1e-4
#define MIN_DAMPING 9.3e-10

/* Phi(r) into phi [n]; u = W r + q into u [n]. With H non-NULL, also the generalized
 * Jacobian (column-major n x n). */
static void ac_eval(const LsimFc *p, const double *rhoN, const double *rhoT, const double *r,
                    double *u, double *phi, double *H) {
  const int d = p->dim, n = p->n;
  for (int i = 0; i < n; ++i) u[i] = p->q[i];
  for (int j = 0; j < n; ++j) {
    const double x = r[j];
    if (x == 0.0) continue;
    const double *col = p->W + (size_t)j * n;
    for (int i = 0; i < n; ++i) u[i] += col[i] * x;
  }
  if (H) memset(H, 0, (size_t)n * n * sizeof(double));
  for (int c = 0; c < p->nc; ++c) {
    const int iN = c * d;
    const double rn = rhoN[c], rt = rhoT[c], mu = p->mu[c];
    const double pn = r[iN] - rn * u[iN];
    const double R = mu * fmax(pn, 0.0);
    /* normal row */
    phi[iN] = r[iN] - fmax(pn, 0.0);
    if (H) {
      if (pn > 0.0)
        for (int j = 0; j < n; ++j) H[iN + (size_t)j * n] = rn * p->W[iN + (size_t)j * n];
      else
        H[iN + (size_t)iN * n] = 1.0;
    }
    /* tangential rows */
    double x[2] = {0, 0};
    const int nt = d - 1;
    for (int k = 0; k < nt; ++k) x[k] = r[iN + 1 + k] - rt * u[iN + 1 + k];
    const double nx = nt == 2 ? hypot(x[0], x[1]) : fabs(x[0]);
    if (nx <= R) {
      /* sticking: Phi_T = rho_T u_T */
      for (int k = 0; k < nt; ++k) {
        phi[iN + 1 + k] = rt * u[iN + 1 + k];
        if (H)
          for (int j = 0; j < n; ++j)
            H[iN + 1 + k + (size_t)j * n] = rt * p->W[iN + 1 + k + (size_t)j * n];
      }
    } else if (R <= 0.0) {
      /* no normal force: Phi_T = r_T */
      for (int k = 0; k < nt; ++k) {
        phi[iN + 1 + k] = r[iN + 1 + k];
        if (H) H[iN + 1 + k + (size_t)(iN + 1 + k) * n] = 1.0;
      }
    } else {
      /* sliding: Phi_T = r_T - R xi */
      const double xi[2] = {x[0] / nx, nt == 2 ? x[1] / nx : 0.0}, s = R / nx;
      for (int k = 0; k < nt; ++k) phi[iN + 1 + k] = r[iN + 1 + k] - R * xi[k];
      if (!H) continue;
      for (int k = 0; k < nt; ++k) {
        const int row = iN + 1 + k;
        for (int j = 0; j < n; ++j) {
          /* dx_l/dr_j = E_T - rho_T W_T; dR/dr_j = mu (e_N - rho_N W_N) */
          double dR = mu * ((j == iN ? 1.0 : 0.0) - rn * p->W[iN + (size_t)j * n]);
          double proj = 0.0; /* ((I - xi xi') dx/dr_j)_k */
          double dx[2];
          for (int l = 0; l < nt; ++l)
            dx[l] = (j == iN + 1 + l ? 1.0 : 0.0) - rt * p->W[iN + 1 + l + (size_t)j * n];
          const double xd = xi[0] * dx[0] + (nt == 2 ? xi[1] * dx[1] : 0.0);
          proj = dx[k] - xi[k] * xd;
          H[row + (size_t)j * n] = (j == row ? 1.0 : 0.0) - xi[k] * dR - s * proj;
        }
      }
    }
  }
}

/* Solves H x = b in place (b becomes x), H overwritten by its LU with partial pivoting.
 * 0, or -1 when a pivot is zero. */
static int lu_solve(int n, double *H, double *b) {
  for (int k = 0; k < n; ++k) {
    int piv = k;
    double big = fabs(H[k + (size_t)k * n]);
    for (int i = k + 1; i < n; ++i)
      if (fabs(H[i + (size_t)k * n]) > big) big = fabs(H[i + (size_t)k * n]), piv = i;
    if (!(big > 0.0)) return -1;
    if (piv != k) {
      for (int j = 0; j < n; ++j) {
        const double t = H[k + (size_t)j * n];
        H[k + (size_t)j * n] = H[piv + (size_t)j * n], H[piv + (size_t)j * n] = t;
      }
      const double t = b[k];
      b[k] = b[piv], b[piv] = t;
    }
    const double inv = 1.0 / H[k + (size_t)k * n];
    for (int i = k + 1; i < n; ++i) H[i + (size_t)k * n] *= inv;
    for (int j = k + 1; j < n; ++j) {
      const double hkj = H[k + (size_t)j * n];
      if (hkj == 0.0) continue;
      for (int i = k + 1; i < n; ++i) H[i + (size_t)j * n] -= H[i + (size_t)k * n] * hkj;
    }
    for (int i = k + 1; i < n; ++i) b[i] -= H[i + (size_t)k * n] * b[k];
  }
  for (int k = n - 1; k >= 0; --k) {
    double s = b[k];
    for (int j = k + 1; j < n; ++j) s -= H[k + (size_t)j * n] * b[j];
    b[k] = s / H[k + (size_t)k * n];
  }
  return 0;
}

static double norm2(int n, const double *x) {
  double s = 0.0;
  for (int i = 0; i < n; ++i) s += x[i] * x[i];
  return s;
}

int lsim_fc_newton(const LsimFc *p, double tol, int max_iter, double tangent_weight,
                   double step_cap, double *r, int *iterations, double *relative) {
  const int n = p->n, d = p->dim, nc = p->nc;
  *iterations = 0;
  if (max_iter <= 0) max_iter = NEWTON_DEFAULT_MAX_ITER;
  for (int k = 0; k < n; ++k)
    if (!isfinite(r[k])) return LSIM_BREAKDOWN;
  const size_t nn = (size_t)n * n;
  if (nc <= 0) return LSIM_SOLVED;
  double *H = calloc(nn + 7 * (size_t)n + 2 * (size_t)nc, sizeof(double));
  if (!H) return LSIM_OUT_OF_MEMORY;
  /* u, Phi, the step, the trial point with its u and Phi, the best point; the weights */
  double *u = H + nn, *phi = u + n, *dr = phi + n, *rt = dr + n, *ut = rt + n, *pt = ut + n;
  double *best = pt + n, *rhoN = best + n, *rhoT = rhoN + nc;
  /* dimensionless weights from the diagonal blocks */
  for (int c = 0; c < nc; ++c) {
    const size_t iN = (size_t)c * d;
    const double wn = p->W[iN + iN * n];
    double wt = p->W[(iN + 1) + (iN + 1) * n];
    if (d == 3) wt = fmax(wt, p->W[(iN + 2) + (iN + 2) * n]);
    rhoN[c] = wn > 0.0 ? 1.0 / wn : 1.0;
    rhoT[c] = (wt > 0.0 ? 1.0 / wt : rhoN[c]) * tangent_weight;
  }
  /* the scale of a step's cap: ||q|| / max_i W_ii, an impulse that stops the problem's
     velocities */
  double wmax = DBL_MIN;
  for (int i = 0; i < n; ++i) wmax = fmax(wmax, p->W[i + (size_t)i * n]);
  const double qnorm = sqrt(norm2(n, p->q));
  /* start in the cones */
  for (int c = 0; c < nc; ++c) lsim_fc_project_cone(d, p->mu[c], r + (size_t)c * d);
  LsimFcQuality qm;
  lsim_fc_quality(p, r, NULL, &qm);
  /* the best point by Newton's own merit 0.5 ||Phi||^2 (not by the natural map: at
     mu = 1e6 that scores zero reactions on a cube landing at 0.7 m/s at 1e-6 relative,
     measuring u_N through dist(û, K*), about |u_N| / mu) */
  ac_eval(p, rhoN, rhoT, r, u, phi, NULL);
  double best_theta = 0.5 * norm2(n, phi), best_rel = qm.relative;
  memcpy(best, r, (size_t)n * sizeof(double));
  int status = qm.relative <= tol ? LSIM_SOLVED : LSIM_MAX_ITERATIONS;
  for (int it = 1; it <= max_iter && status != LSIM_SOLVED; ++it) {
    ac_eval(p, rhoN, rhoT, r, u, phi, H);
    const double theta = 0.5 * norm2(n, phi);
    if (!isfinite(theta)) {
      status = LSIM_BREAKDOWN;
      break;
    }
    for (int i = 0; i < n; ++i) dr[i] = -phi[i];
    if (lu_solve(n, H, dr)) {
      /* singular generalized Jacobian: shift it */
      ac_eval(p, rhoN, rhoT, r, u, phi, H);
      double big = 0.0;
      for (size_t k = 0; k < nn; ++k) big = fmax(big, fabs(H[k]));
      for (int i = 0; i < n; ++i) H[i + (size_t)i * n] += 1e-10 * big + DBL_MIN;
      for (int i = 0; i < n; ++i) dr[i] = -phi[i];
      if (lu_solve(n, H, dr)) break;
    }
    *iterations = it;
    /* the step's length at most step_cap (||r|| + ||q|| / max_i W_ii) */
    if (step_cap > 0.0) {
      const double len = sqrt(norm2(n, dr));
      const double cap = step_cap * (sqrt(norm2(n, r)) + qnorm / wmax);
      if (len > cap)
        for (int i = 0; i < n; ++i) dr[i] *= cap / len;
    }
    /* backtracking on 0.5 ||Phi||^2: the Newton step's directional derivative is
       -||Phi||^2 where Phi is differentiable */
    double a = 1.0;
    int moved = 0;
    while (a >= MIN_DAMPING) {
      for (int i = 0; i < n; ++i) rt[i] = r[i] + a * dr[i];
      ac_eval(p, rhoN, rhoT, rt, ut, pt, NULL);
      const double th = 0.5 * norm2(n, pt);
      if (isfinite(th) && th <= (1.0 - 2.0 * ARMIJO * a) * theta) {
        moved = 1;
        break;
      }
      a *= 0.5;
    }
    if (!moved) {
      /* no decrease along the step: take the full step (non-monotone; the best point
         is kept) */
      for (int i = 0; i < n; ++i) rt[i] = r[i] + dr[i];
    }
    memcpy(r, rt, (size_t)n * sizeof(double));
    lsim_fc_quality(p, r, NULL, &qm);
    if (!moved) ac_eval(p, rhoN, rhoT, r, ut, pt, NULL);
    const double th = 0.5 * norm2(n, pt);
    if (th < best_theta) {
      best_theta = th, best_rel = qm.relative;
      memcpy(best, r, (size_t)n * sizeof(double));
    }
    if (qm.relative <= tol) status = LSIM_SOLVED;
  }
  if (status != LSIM_SOLVED) {
    memcpy(r, best, (size_t)n * sizeof(double));
    if (status != LSIM_BREAKDOWN) status = LSIM_MAX_ITERATIONS;
  } else {
    best_rel = qm.relative;
  }
  if (relative) *relative = best_rel;
  free(H);
  return status;
}
