/* lemke.c: Lemke's complementary pivoting method with lexicographic anti-cycling, an
 * explicit dense basis inverse updated in product form, and warm start from a guessed basis.
 *
 * THE METHOD
 * The LCP(M, q) asks for w = M z + q, z >= 0, w >= 0, z'w = 0. Lemke (1965) augments it
 * with an artificial variable z0 >= 0 and a covering vector d:
 *     I w - M z - d z0 = q,
 * so the 2n+1 variables (w, z, z0) have the columns e_i, -M_{:,j} and -d. A basis B is n of
 * these columns, its basic solution x_B = B^{-1} q. Cold start: d = e, B = I (all w basic);
 * z0 enters at the level -min_i q_i and the most negative w_r leaves, which makes the
 * almost-complementary basis feasible. Each later pivot lets in the complement of the
 * variable that just left (the "driving" variable), and the minimum-ratio test on its column
 * c = B^{-1} a picks the leaving (blocking) variable. The path ends when z0 leaves (a
 * solution) or when c has no positive entry (a secondary ray). For copositive-plus M and a
 * feasible LCP, and for P-matrices, the ray cannot happen (Cottle, Pang & Stone, Thm 4.4.13).
 *
 * Pivot count: the exchanges after the first one (z0 in, w_r out), i.e. the complementary
 * pivots: the convention of Murty's 2^n - 1 and of Siconos' ITER_DONE. Murty's example
 * lcp_exp_murty2 (n = 6) takes 63 = 2^6 - 1. (n = 1, M = 1, q = -2: z0 in, then z1 in /
 * z0 out: 1 pivot.) The trace holds z0 after every exchange, the first included.
 *
 * ANTI-CYCLING
 * On degenerate problems several rows tie in the ratio test. We break ties lexicographically
 * (Cottle, Pang & Stone, sect. 4.9): among the tied rows i pick the lexicographic minimum of
 * the rows of [x_B, B^{-1}] divided by c_i. Those rows stay lexicographically positive, the
 * augmented basic values strictly decrease lexicographically, so no basis repeats. If z0
 * is among the tied rows it leaves at once (the path is over).
 * In floating point, exact ties of degenerate data arrive as near-ties, so a row ties with
 * the minimizing row r0 when its value at the step tmin is within its rounding bound
 * 16 n eps (|B^{-1}_i| |q| + |x_i|) (plus r0's, scaled by c_i / c_r0, and 1e-12 max|x_B|;
 * never more than 1e-7 max|x_B|). A bound too tight lets rounding noise decide ties, too
 * loose lets the dropped remainders pile up; both break the lexicographic invariant and
 * make the path cycle (tested on 3000 permuted/rescaled copies of lcp_tobenna). The step
 * is tmin itself (so no basic value goes negative), and exactly zero when the leaving
 * value is at rounding level, so noise does not spread among the degenerate rows; entries
 * of c below the pivot tolerance ptol = 1e-11 max|c| are dropped as rounding noise.
 * Lexicographic comparisons use a tolerance of 1e-12 relative to the two rows compared.
 * Weak pivots: the ratio test (and the tie set) first takes only the rows with a sound
 * pivot c_i > 1e-8 max|c|; rows with ptol < c_i <= 1e-8 max|c| block only when no sound
 * row does. A row left out this way can end the step below zero by at most
 * tmin c_i <= 1e-8 tmin max|c| (the next ratio tests clamp it at 0; the final residual
 * test judges the result). Reason (tests/data/lemke_tumble_cycle.dat, n = 90): at a
 * degenerate vertex of that contact LCP, rows with x_i at rounding level (1e-16) have
 * c_i = 2e-9 max|c| (a true value: exact arithmetic on the same basis, whose condition is
 * only 1.6e3, gives the same), and the lexicographic rule, dividing those rows by c_i,
 * picks them. The next basis has condition ~1e13, its B^{-1} rows are rounding noise at the
 * level the lexicographic comparisons look at: the first cold run broke down on such a
 * basis after 34 pivots, the second cycled through 4 bases (pivots 2e-9, 7e-5, 0.3, 2e13)
 * until the pivot limit (5000, 10^6: any).
 * The preference is not free: on 1 of 300 permuted copies of lcp_tobenna (trial 60 of the
 * test) it makes the path cycle where the plain rule solves, hence the third cold run
 * below, which drops it.
 * Cycle detection: a 64-bit Zobrist hash of the basic set is updated per exchange and the
 * last 64 bases of a run are remembered; a basis seen twice before (a third visit) ends the
 * run as LSIM_BREAKDOWN at once, so a cycling run no longer spends max_pivots and the next
 * cold run, if any, follows. A second visit alone proves nothing in floating point:
 * permuted lcp_tobenna paths revisit bases with slightly different basic values and still
 * get out; a true cycle (period 4 on lemke_tumble_cycle.dat) comes round again and again.
 *
 * ROBUSTNESS ON CONTACT PROBLEMS
 * Stewart-Trinkle LCPs of resting and stacked boxes have near-duplicate rows (four nearly
 * parallel normals per face, friction directions rotated by 1e-7) and bases whose condition
 * reaches 1e7 and more. Two failures were measured, both ending on a false secondary ray:
 *  - z0 misses its exit. Where z0 should leave in a tie it stops at a residue (1e-11 of
 *    max|q|) beyond the tie tolerance, the path goes on at that level through degenerate
 *    pivots and ends on a ray. Terminal test, at every ratio test while z0 is basic: the
 *    point where z0 leaves now (if it puts no basic value below -tol max|q|), and, when
 *    z0 max|d| <= tol max|q|, the point with z0 dropped, are accepted if their true
 *    natural residual passes the acceptance test (the residual decides, so it is honest).
 *  - A near-tie decided for a tiny pivot. Two rows tie within rounding at a positive step;
 *    the lexicographic rule takes the one with c_i = 1e-7 max|c|, the next basis is nearly
 *    singular (refactorization moves x_B by 1e-7) and the path is lost. Exact rational
 *    arithmetic takes the other row and solves. So when a cold start fails (ray or
 *    breakdown) a second cold run follows in which ties at a non-degenerate step go to the
 *    largest pivot (degenerate ties keep the lexicographic rule: taking pivot size there
 *    too makes lcp_tobenna cycle). If that fails as well, a third cold run follows with
 *    the plain rules (lexicographic ties, no preference for sound pivots, see
 *    ANTI-CYCLING). Each run may use max_pivots; a run that reaches it ends the solve (no
 *    further run). info->pivots is the sum over all runs (warm path and cold runs).
 * Measured on permuted copies of the problems in tests/data (50 each): the ray-ending rate
 * fell from 285/400 to 11/400 (all 11 on lemke_stack_ray.dat: the second run also fails
 * for those orderings). With sound pivots first, cycle detection and the third run, on
 * 300 permuted (odd ones also rescaled) copies each, solved before -> after:
 * lemke_tumble_cycle 235 -> 300 (24 had run to the pivot limit), lemke_stack_ray
 * 262 -> 300, lcp_tobenna 300 -> 300, lemke_pile10_step19/26/30 290/292/289 unchanged
 * (their failures are rays, 6-10 each, and a few breakdowns).
 *
 * CLEANUP
 * The tie tolerances treat rows whose values at the step differ by up to their rounding
 * bounds as tied; the rows not chosen stay basic at their computed value (>= 0), while
 * their exact value may lie below zero by that difference. On resting piles the
 * difference is data, not rounding: tests/data/lemke_pile10_step25.dat (step 25 of
 * data/pile_10.json, n = 240; four nearly parallel normals per face, 192 of the 240 q_i
 * below 1e-9 beside max|q| = 0.098) has near-duplicate rows whose ratios differ by
 * 2.5e-12 (the tie bound there: 3.8e-12) from pivot 53 on. Its cold path ended with z0
 * leaving after 71 pivots on a basis of condition 2e3 whose exact basic solution (replayed
 * in extended precision) has w_4 = -4.9e-11, a relative residual of 5.0e-10: the
 * refactorization cannot repair that, and every later run (and solver.c's LU run) ended
 * the same way. So when a path ends with z0 leaving on a basis that fails the acceptance
 * test (after the refactorization there), Lemke's path runs again from that complementary
 * basis as from a warm start (covering vector d = B e): z0 enters at the infeasibility
 * (4.9e-11 there) and the ratio tests restore feasibility (14 pivots there, to a relative
 * residual of 9.7e-11). Up to LSIM_LEMKE_CLEANUPS = 3 such paths, each kept only while
 * the natural residual falls, within the run's max_pivots (their pivots count as the
 * run's); if they do not pass, the run ends as a breakdown with its best point, as before.
 * Where the path's own basis passes nothing changes (same bits).
 * On M: the Stewart-Trinkle matrix of that step is copositive (the velocity block of
 * (M + M')/2 is positive semidefinite, smallest eigenvalue -5e-15; the friction rows' E and
 * -E' cancel; the mu entries are >= 0) but not copositive-plus (z = e_lambda: z'Mz = 0,
 * (M + M')z = mu e_normal != 0); no ray was involved here: the path ended with z0 leaving.
 *
 * LINEAR ALGEBRA
 * We keep B^{-1} (n x n, column-major) explicitly and update it per pivot by the rank-one
 * (eta) update: row r /= c_r, row i -= c_i * row r. Only c = B^{-1} a and x_B are formed; no
 * (2n+2)-column tableau. Column k of B^{-1} is exactly the unit vector e_p while w_k is basic
 * at position p (B e_p = e_k), so products with B^{-1} and the update skip those columns: a
 * pivot costs O(n (m+1)) with m the number of basic z. Every max(100, n) pivots (halved
 * while the updated x_B drifts from the recomputed one), or when a pivot looks unreliable, B^{-1} is rebuilt from scratch: with R the rows whose w is
 * nonbasic and C the basic z (and z0), B^{-1} needs only the LU (partial pivoting) of the
 * m x m block Y = B(R, C): x_C = Y^{-1} b_R, x_W = b_W - B(W, C) x_C, cost O(m^3 + n m^2).
 *
 * WARM START
 * A guess of which z are basic gives the complementary basis [-M_{:,G} | I_{:,N}]; its inverse
 * comes from the LU of M_GG as above. If its basic solution is feasible it is the answer
 * (0 pivots). Otherwise we pivot from it with the covering vector d = B e, so that B^{-1}(-d)
 * = -e: the basic values are x_B + e z0, feasible for z0 = -min x_B, exactly as in a cold
 * start in transformed coordinates. If that run fails (ray, pivot limit, breakdown, singular
 * M_GG), a cold start follows; info->pivots counts all runs, each may use max_pivots.
 *
 * FAILURE MODES
 *  - LSIM_SECONDARY_RAY: the driving column has no entry > ptol (in both cold runs). For
 *    copositive-plus M this proves infeasibility in exact arithmetic; in floating point a
 *    nearly singular basis can still end there (see ROBUSTNESS); otherwise (e.g. bimatrix
 *    games like lcp_CPS_3) Lemke just fails.
 *  - LSIM_MAX_ITERATIONS: pivot limit (default 10 (n+1) + 100); Murty's examples need 2^n.
 *  - LSIM_BREAKDOWN: a singular basis on refactorization, non-finite values, a basis that
 *    repeats within a run (numerical cycling, see ANTI-CYCLING), or a final natural
 *    residual above tol * scale(q) even after a fresh refactorization and the cleanups
 *    (CLEANUP).
 *  - LSIM_INVALID_INPUT / LSIM_OUT_OF_MEMORY.
 * Near-singular bases lose accuracy; the periodic refactorization and the final residual
 * check bound the damage, they do not prevent it.
 *
 * VERIFICATION
 * A failed path ends on whatever basis it reached, and that basis may be garbage: on a
 * 10-domino contact LCP (n = 372; a run like data/dominoes_10.json at h = 0.01 s) the last
 * basic solution of a breakdown had a natural residual of 480 (relative 142) where z = 0
 * has 0.55, and a time step that integrated it sent the bodies to 1e110 m within ten
 * steps. So a solve that does
 * not end solved compares the natural residual of its last basic solution with that of the
 * z the caller passed in (the warm-start guess, or zeros; non-finite and negative entries
 * read as 0): if the result is not better, it is rejected and z is returned as it came in
 * (clamped), with info->rejected = 1. The status still names the failure (ray, breakdown,
 * pivot limit): a rejected result is never reported as solved. The result so judged is the
 * best end point of the solve's failed runs (smallest natural residual), not the last run's:
 * on a 1e4 kg cube resting on a 1e-2 kg one the first cold run ended within the residual's
 * rounding floor and the later runs on breakdowns worse than zero impulses
 * (lemke_driver.c, lsim_lemke_driver_solve). With LsimLemkeOptions.floor the acceptance
 * test passes a point whose every row is within its own rounding floor (docs/solvers.md,
 * "The common residual").
 *
 * REFERENCES
 *  C. E. Lemke, Bimatrix equilibrium points and mathematical programming, Management
 *    Science 11 (1965) 681-689.
 *  R. W. Cottle, J.-S. Pang, R. E. Stone, The Linear Complementarity Problem, Academic
 *    Press 1992, sect. 4.4 (Lemke's method) and 4.9 (degeneracy, lexicographic rule).
 *  K. G. Murty, Linear Complementarity, Linear and Nonlinear Programming, 1988, ch. 6.
 */
#include "lemke.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lemke_driver.h"
#include "quality.h"

/* The O(n m) kernels below are plain column-major loops; GCC's -O2 cost model leaves them
 * scalar, so ask for its vectorizer here (about 1.7x on a pivot). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic")
#endif

/* The path, the ratio test and its tolerances, the runs, acceptance and verification are
 * lemke_driver.c's (shared with lemke_sparse.c); this file holds the dense B^{-1}. */
#define LSIM_LEMKE_SINGULAR 1e-13 /* LU pivot below this times max|Y|: singular */

struct LsimLemke {
  LsimLemkeDriver drv;    /* the path's state: x_B, c, d, the maps, the guess, the basis */
  const LsimLcp *lcp;     /* the problem of the current solve */
  int cap;                /* largest n the buffers below hold */
  double *binv;           /* [cap*cap] B^{-1}, column-major */
  double *lu;             /* [cap*cap] LU of the block Y on refactorization */
  int *rows;              /* [cap] refactorization: rows R */
  int *cols;              /* [cap] refactorization: positions of the basic z / z0 */
  int *ipiv;              /* [cap] LU row interchanges */
};

LsimLemkeOptions lsim_default_lemke_options(void) {
  LsimLemkeOptions o = {0, 1e-10, 0};
  return o;
}

static const LsimLemkeBasisOps dense_ops;

LsimLemke *lsim_lemke_create(void) {
  LsimLemke *ws = calloc(1, sizeof(LsimLemke));
  if (ws) {
    ws->drv.ops = &dense_ops;
    ws->drv.ctx = ws;
    ws->drv.refactor_floor = 20;
  }
  return ws;
}

void lsim_lemke_free(LsimLemke *ws) {
  if (!ws) return;
  lsim_lemke_driver_free(&ws->drv);
  free(ws->binv);
  free(ws->lu);
  free(ws->rows);
  free(ws->cols);
  free(ws->ipiv);
  free(ws);
}

const unsigned char *lsim_lemke_basis(const LsimLemke *ws) {
  return ws && ws->drv.basis_valid ? ws->drv.basis : NULL;
}

/* Grows B^{-1}'s buffers to n (no-op for sizes already seen). */
static int reserve(void *ctx, int n) {
  LsimLemke *ws = ctx;
  if (n <= ws->cap) return 0;
  size_t nn = (size_t)n * (size_t)n, un = (size_t)n;
  if (lsim_lemke_grow((void **)&ws->binv, nn, sizeof(double)) ||
      lsim_lemke_grow((void **)&ws->lu, nn, sizeof(double)) ||
      lsim_lemke_grow((void **)&ws->rows, un, sizeof(int)) ||
      lsim_lemke_grow((void **)&ws->cols, un, sizeof(int)) ||
      lsim_lemke_grow((void **)&ws->ipiv, un, sizeof(int)))
    return LSIM_OUT_OF_MEMORY;
  ws->cap = n;
  return 0;
}

/* out = B^{-1} v. Columns of B^{-1} whose w is basic are unit vectors: scatter them. */
static void binv_apply(const LsimLemke *ws, int n, const double *restrict v, double *restrict out) {
  const double *restrict binv = ws->binv;
  const int *vpos = ws->drv.vpos;
  memset(out, 0, (size_t)n * sizeof(double));
  for (int k = 0; k < n; ++k) {
    const double vk = v[k];
    if (vk == 0.0) continue;
    const int p = vpos[k];
    if (p >= 0) {
      out[p] += vk;
      continue;
    }
    const double *restrict bk = binv + (size_t)k * n;
    for (int i = 0; i < n; ++i) out[i] += bk[i] * vk;
  }
}

/* The column of variable v in [I | -M | -d], restricted to row i. */
static double var_entry(const LsimLemke *ws, int v, int i) {
  const int n = ws->lcp->n;
  if (v < n) return v == i ? 1.0 : 0.0;
  if (v < 2 * n) return -ws->lcp->M[i + (size_t)(v - n) * n];
  return -ws->drv.d[i];
}

/* Rebuilds B^{-1} from the basis in bvar and recomputes x_B = B^{-1} q. With R the rows whose
 * w is nonbasic and C the other basic variables (|R| = |C| = m), B^{-1} needs only the LU of
 * Y = B(R, C). Returns 0 or LSIM_BREAKDOWN when Y is singular. */
static int refactor(void *ctx) {
  LsimLemke *ws = ctx;
  LsimLemkeDriver *drv = &ws->drv;
  const LsimLcp *lcp = ws->lcp;
  const int n = lcp->n;
  int m = 0, mc = 0;
  double *restrict binv = ws->binv;

  /* Rows R (w nonbasic) and the positions of the non-identity columns C. */
  for (int k = 0; k < n; ++k)
    if (drv->vpos[k] < 0) ws->rows[m++] = k;
  for (int p = 0; p < n; ++p)
    if (drv->bvar[p] >= n) ws->cols[mc++] = p;
  if (m != mc) return LSIM_BREAKDOWN;

  /* Y = B(R, C), m x m column-major, and its LU with partial pivoting. */
  double *restrict Y = ws->lu;
  double ymax = 0.0;
  for (int s = 0; s < m; ++s)
    for (int t = 0; t < m; ++t) {
      double y = var_entry(ws, drv->bvar[ws->cols[s]], ws->rows[t]);
      Y[t + (size_t)s * m] = y;
      ymax = fmax(ymax, fabs(y));
    }
  for (int k = 0; k < m; ++k) {
    double *restrict yk = Y + (size_t)k * m;
    int piv = k;
    for (int i = k + 1; i < m; ++i)
      if (fabs(yk[i]) > fabs(yk[piv])) piv = i;
    ws->ipiv[k] = piv;
    if (!(fabs(yk[piv]) > LSIM_LEMKE_SINGULAR * ymax)) return LSIM_BREAKDOWN;
    if (piv != k)
      for (int j = 0; j < m; ++j) {
        double t = Y[k + (size_t)j * m];
        Y[k + (size_t)j * m] = Y[piv + (size_t)j * m];
        Y[piv + (size_t)j * m] = t;
      }
    const double inv = 1.0 / yk[k];
    for (int i = k + 1; i < m; ++i) yk[i] *= inv;
    for (int j = k + 1; j < m; ++j) {
      double *restrict yj = Y + (size_t)j * m;
      const double f = yj[k];
      if (f == 0.0) continue;
      for (int i = k + 1; i < m; ++i) yj[i] -= yk[i] * f;
    }
  }

  /* Unit columns for the basic w. */
  memset(binv, 0, (size_t)n * (size_t)n * sizeof(double));
  for (int k = 0; k < n; ++k)
    if (drv->vpos[k] >= 0) binv[drv->vpos[k] + (size_t)k * n] = 1.0;

  /* Column k = R_t: x_C = Y^{-1} e_t, x_W = -B(W, C) x_C. */
  double *restrict x = drv->work, *restrict acc = drv->work2;
  for (int t = 0; t < m; ++t) {
    memset(x, 0, (size_t)m * sizeof(double));
    x[t] = 1.0;
    for (int k = 0; k < m; ++k) { /* P, then L (unit lower) */
      const int pk = ws->ipiv[k];
      if (pk != k) {
        double tmp = x[k];
        x[k] = x[pk];
        x[pk] = tmp;
      }
    }
    for (int k = 0; k < m; ++k) {
      const double xk = x[k];
      if (xk == 0.0) continue;
      const double *restrict yk = Y + (size_t)k * m;
      for (int i = k + 1; i < m; ++i) x[i] -= yk[i] * xk;
    }
    for (int k = m - 1; k >= 0; --k) { /* U */
      const double *restrict yk = Y + (size_t)k * m;
      x[k] /= yk[k];
      const double xk = x[k];
      if (xk == 0.0) continue;
      for (int i = 0; i < k; ++i) x[i] -= yk[i] * xk;
    }
    /* acc = B(:, C) x_C, accumulated over full columns (contiguous). */
    memset(acc, 0, (size_t)n * sizeof(double));
    for (int s = 0; s < m; ++s) {
      const double xs = x[s];
      if (xs == 0.0) continue;
      const int v = drv->bvar[ws->cols[s]];
      const double *restrict a = v < 2 * n ? lcp->M + (size_t)(v - n) * n : drv->d;
      for (int i = 0; i < n; ++i) acc[i] -= a[i] * xs;
    }
    double *restrict bk = binv + (size_t)ws->rows[t] * n;
    for (int s = 0; s < m; ++s) bk[ws->cols[s]] = x[s];
    for (int i = 0; i < n; ++i)
      if (drv->vpos[i] >= 0) bk[drv->vpos[i]] = -acc[i];
  }

  /* Fresh basic values. */
  binv_apply(ws, n, lcp->q, drv->xb);
  for (int i = 0; i < n; ++i)
    if (!isfinite(drv->xb[i])) return LSIM_BREAKDOWN;
  return 0;
}

/* Row i of B^{-1}: strided in the column-major array. */
static const double *binv_row(void *ctx, int i, int *stride, double *rmax) {
  const LsimLemke *ws = ctx;
  const int n = ws->lcp->n;
  const double *row = ws->binv + i;
  *stride = n;
  if (rmax) {
    double m = 0.0;
    for (int k = 0; k < n; ++k) m = fmax(m, fabs(row[(size_t)k * n]));
    *rmax = m;
  }
  return row;
}

/* The exchange: the column c = drv.col enters at position r at the level theta. Updates
 * B^{-1} (rank one, skipping columns with a zero in row r) and x_B. */
static int update(void *ctx, int r, double theta) {
  LsimLemke *ws = ctx;
  const int n = ws->lcp->n;
  double *restrict binv = ws->binv, *restrict c = ws->drv.col, *restrict xb = ws->drv.xb;
  const double piv = c[r];
  c[r] = 0.0; /* c is now the eta vector without its pivot */
  for (int k = 0; k < n; ++k) {
    double *restrict bk = binv + (size_t)k * n;
    double br = bk[r];
    if (br == 0.0) continue;
    br /= piv;
    for (int i = 0; i < n; ++i) bk[i] -= c[i] * br;
    bk[r] = br;
  }
  for (int i = 0; i < n; ++i) xb[i] -= c[i] * theta;
  xb[r] = theta;
  c[r] = piv;
  return 0;
}

/* The entering column c = B^{-1} a of a variable v other than a basic w: a column of
 * B^{-1} for w_v, else B^{-1} applied to -M_{:,j} or -d. */
static int column(void *ctx, int v) {
  LsimLemke *ws = ctx;
  const int n = ws->lcp->n;
  double *restrict c = ws->drv.col;
  if (v < n) {
    memcpy(c, ws->binv + (size_t)v * n, (size_t)n * sizeof(double));
  } else {
    binv_apply(ws, n, v < 2 * n ? ws->lcp->M + (size_t)(v - n) * n : ws->drv.d, c);
    for (int i = 0; i < n; ++i) c[i] = -c[i];
  }
  return 0;
}

/* The all-w basis: B^{-1} = I, x_B = q. */
static int cold(void *ctx) {
  LsimLemke *ws = ctx;
  const int n = ws->lcp->n;
  memset(ws->binv, 0, (size_t)n * (size_t)n * sizeof(double));
  for (int i = 0; i < n; ++i) {
    ws->binv[i + (size_t)i * n] = 1.0;
    ws->drv.xb[i] = ws->lcp->q[i];
  }
  return 0;
}

/* The guessed basis: d = B e = sum of the basic columns (e_i for basic w_i, -M_{:,j} for
 * basic z_j), then B^{-1}. Returns 0 or LSIM_BREAKDOWN (singular M_GG). */
static int warm(void *ctx) {
  LsimLemke *ws = ctx;
  LsimLemkeDriver *drv = &ws->drv;
  const int n = ws->lcp->n;
  lsim_lemke_driver_guess_maps(drv);
  for (int j = 0; j < n; ++j) {
    if (!drv->guess[j]) continue;
    const double *mj = ws->lcp->M + (size_t)j * n;
    for (int i = 0; i < n; ++i) drv->d[i] -= mj[i];
  }
  return refactor(ws);
}

static void residual(void *ctx, const double *z, double *w, LsimResidual *res) {
  const LsimLemke *ws = ctx;
  lsim_lcp_residual(ws->lcp, z, w, res);
}

static int within_floor(void *ctx, const double *z, const double *w, double ftol) {
  const LsimLemke *ws = ctx;
  return lsim_lcp_rows_within_floor(ws->lcp, z, w, ftol);
}

static const LsimLemkeBasisOps dense_ops = {column, binv_row, update,   refactor, cold,
                                            warm,   reserve,  residual, NULL,
                                            NULL,   NULL,   within_floor};

int lsim_lemke_solve(LsimLemke *ws, const LsimLcp *lcp, const LsimLemkeOptions *opt,
                     const unsigned char *basis_guess, double *z, LsimLemkeInfo *info) {
  const LsimLemkeOptions o = lsim_lemke_driver_options(opt, info);
  int pivots = 0, status, have_start = 0;

  /* Input checks. */
  if (!ws || !lcp || lcp->n < 0 || (lcp->n > 0 && (!z || !lcp->M || !lcp->q)) ||
      o.max_pivots < 0 || !(o.tol > 0.0) || !isfinite(o.tol)) {
    status = LSIM_INVALID_INPUT;
    goto out;
  }
  const int n = lcp->n;
  ws->drv.basis_valid = 0; /* the buffer itself stays intact: the guess may point into it */
  if (lsim_lcp_check_finite(lcp)) {
    if (n > 0) memset(z, 0, (size_t)n * sizeof(double));
    status = LSIM_INVALID_INPUT;
    goto out;
  }
  const int max_pivots = o.max_pivots > 0 ? o.max_pivots : 10 * (n + 1) + 100;
  if (n == 0) { /* nothing to solve, nothing to record */
    status = LSIM_SOLVED;
    goto out;
  }

  /* Workspace, the caller's point kept to verify a failed result against (VERIFICATION). */
  ws->lcp = lcp;
  if ((status = lsim_lemke_driver_begin(&ws->drv, n, lcp->q, z, basis_guess, &have_start)))
    goto out;

  /* The path (lemke_driver.c), refactoring every max(100, n) pivots. */
  ws->drv.accept_floor = o.floor;
  ws->drv.refactor_first = n > 100 ? n : 100;
  status = lsim_lemke_driver_solve(&ws->drv, basis_guess != NULL, max_pivots, o.tol, z, &pivots,
                                   info);

out:
  /* A failed result no better than the caller's point is rejected (VERIFICATION). */
  return lsim_lemke_driver_end(ws ? &ws->drv : NULL, status, have_start, pivots, z, info);
}
