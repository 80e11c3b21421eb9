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
 *    residual above tol * scale(q) even after a fresh refactorization.
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
 * pivot limit): a rejected result is never reported as solved.
 *
 * REFERENCES
 *  C. E. Lemke, Bimatrix equilibrium points and mathematical programming, Management
 *    Science 11 (1965) 681-689.
 *  R. W. Cottle, J.-S. Pang, R. E. Stone, The Linear Complementarity Problem, Academic
 *    Press 1992, sect. 4.4 (Lemke's method) and 4.9 (degeneracy, lexicographic rule).
 *  K. G. Murty, Linear Complementarity, Linear and Nonlinear Programming, 1988, ch. 6.
 */
#include "lemke.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The O(n m) kernels below are plain column-major loops; GCC's -O2 cost model leaves them
 * scalar, so ask for its vectorizer here (about 1.7x on a pivot). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic")
#endif

/* Relative tolerances (see ANTI-CYCLING above). */
#define LSIM_LEMKE_PTOL 1e-11    /* pivot: c_i > PTOL * max|c| */
#define LSIM_LEMKE_SOUND 1e-8    /* ... but rows with c_i > SOUND * max|c| block first */
#define LSIM_LEMKE_RING 64       /* recent bases remembered to detect a cycle */
#define LSIM_LEMKE_XTOL 1e-12    /* ties: basic value within XTOL * xscale of zero ... */
#define LSIM_LEMKE_ERRK 16.0      /* ... plus ERRK n eps (|B^{-1}_i| |q| + |x_i|), its rounding */
#define LSIM_LEMKE_LOOSE 1e-7    /* ... but never more than LOOSE * xscale */
#define LSIM_LEMKE_LEXTOL 1e-12  /* lexicographic comparisons, relative to the rows */
#define LSIM_LEMKE_WEAKPIV 1e-7  /* a pivot below WEAKPIV * max|c| triggers a refactorization */
#define LSIM_LEMKE_SINGULAR 1e-13 /* LU pivot below this times max|Y|: singular */
#define LSIM_LEMKE_DRIFT 1e-10    /* x_B drift (relative) that halves the refactor interval */

struct LsimLemke {
  int cap;                /* largest n the buffers hold */
  double *binv;           /* [cap*cap] B^{-1}, column-major */
  double *lu;             /* [cap*cap] LU of the block Y on refactorization */
  double *xb;             /* [cap] basic values, by position */
  double *col;            /* [cap] entering column c = B^{-1} a */
  double *d;              /* [cap] covering vector (the z0 column is -d) */
  double *work;           /* [cap] scratch */
  double *work2;          /* [cap] scratch */
  int *bvar;              /* [cap] variable at each position: w_i = i, z_i = n+i, z0 = 2n */
  int *vpos;              /* [2cap+1] position of each variable, -1 when nonbasic */
  int *rows;              /* [cap] refactorization: rows R */
  int *cols;              /* [cap] refactorization: positions of the basic z / z0 */
  int *ipiv;              /* [cap] LU row interchanges */
  unsigned char *guess;   /* [cap] private copy of the caller's basis guess */
  double *start;          /* [cap] the caller's z on entry (non-finite and negative entries
                             set to 0): what a failed solve falls back on (VERIFICATION) */
  unsigned char *basis;   /* [cap] final complementary basis of the last solved solve */
  int basis_valid;
  int refactor_every;     /* pivots between refactorizations */
  int tie_by_pivot;       /* second run: non-degenerate ties go to the largest pivot */
  uint64_t hash;          /* Zobrist hash of the set of basic variables */
  uint64_t ring[LSIM_LEMKE_RING]; /* hashes of the last bases of this run */
  int ring_len, ring_pos;
  int sound;              /* 1: rows with sound pivots block first (not in the third run) */
};

LsimLemkeOptions lsim_default_lemke_options(void) {
  LsimLemkeOptions o = {0, 1e-10};
  return o;
}

LsimLemke *lsim_lemke_create(void) { return calloc(1, sizeof(LsimLemke)); }

void lsim_lemke_free(LsimLemke *ws) {
  if (!ws) return;
  free(ws->binv);
  free(ws->lu);
  free(ws->xb);
  free(ws->col);
  free(ws->d);
  free(ws->work);
  free(ws->work2);
  free(ws->bvar);
  free(ws->vpos);
  free(ws->rows);
  free(ws->cols);
  free(ws->ipiv);
  free(ws->guess);
  free(ws->start);
  free(ws->basis);
  free(ws);
}

const unsigned char *lsim_lemke_basis(const LsimLemke *ws) {
  return ws && ws->basis_valid ? ws->basis : NULL;
}

/* realloc that keeps *p on failure; sizes are at least 1 element. */
static int grow(void **p, size_t count, size_t size) {
  void *q = realloc(*p, (count > 0 ? count : 1) * size);
  if (!q) return LSIM_OUT_OF_MEMORY;
  *p = q;
  return 0;
}

/* Grows every buffer but basis to n (no-op for sizes already seen). basis grows separately,
 * after the guess is copied, because the guess may be lsim_lemke_basis(ws) itself. */
static int reserve(LsimLemke *ws, int n) {
  if (n <= ws->cap) return 0;
  size_t nn = (size_t)n * (size_t)n, un = (size_t)n;
  if (grow((void **)&ws->binv, nn, sizeof(double)) || grow((void **)&ws->lu, nn, sizeof(double)) ||
      grow((void **)&ws->xb, un, sizeof(double)) || grow((void **)&ws->col, un, sizeof(double)) ||
      grow((void **)&ws->d, un, sizeof(double)) || grow((void **)&ws->work, un, sizeof(double)) ||
      grow((void **)&ws->work2, un, sizeof(double)) || grow((void **)&ws->bvar, un, sizeof(int)) ||
      grow((void **)&ws->vpos, 2 * un + 1, sizeof(int)) ||
      grow((void **)&ws->rows, un, sizeof(int)) || grow((void **)&ws->cols, un, sizeof(int)) ||
      grow((void **)&ws->ipiv, un, sizeof(int)) || grow((void **)&ws->guess, un, 1) ||
      grow((void **)&ws->start, un, sizeof(double)))
    return LSIM_OUT_OF_MEMORY;
  return 0;
}

static int reserve_basis(LsimLemke *ws, int n) {
  if (n <= ws->cap) return 0;
  if (grow((void **)&ws->basis, (size_t)n, 1)) return LSIM_OUT_OF_MEMORY;
  ws->cap = n;
  return 0;
}

/* out = B^{-1} v. Columns of B^{-1} whose w is basic are unit vectors: scatter them. */
static void binv_apply(const LsimLemke *ws, int n, const double *restrict v, double *restrict out) {
  const double *restrict binv = ws->binv;
  memset(out, 0, (size_t)n * sizeof(double));
  for (int k = 0; k < n; ++k) {
    const double vk = v[k];
    if (vk == 0.0) continue;
    const int p = ws->vpos[k];
    if (p >= 0) {
      out[p] += vk;
      continue;
    }
    const double *restrict bk = binv + (size_t)k * n;
    for (int i = 0; i < n; ++i) out[i] += bk[i] * vk;
  }
}

/* The column of variable v in [I | -M | -d], restricted to row i. */
static double var_entry(const LsimLemke *ws, const LsimLcp *lcp, int v, int i) {
  const int n = lcp->n;
  if (v < n) return v == i ? 1.0 : 0.0;
  if (v < 2 * n) return -lcp->M[i + (size_t)(v - n) * n];
  return -ws->d[i];
}

/* Rebuilds B^{-1} from the basis in bvar and recomputes x_B = B^{-1} q. With R the rows whose
 * w is nonbasic and C the other basic variables (|R| = |C| = m), B^{-1} needs only the LU of
 * Y = B(R, C). Returns 0 or LSIM_BREAKDOWN when Y is singular. */
static int refactor(LsimLemke *ws, const LsimLcp *lcp) {
  const int n = lcp->n;
  int m = 0, mc = 0;
  double *restrict binv = ws->binv;

  /* Rows R (w nonbasic) and the positions of the non-identity columns C. */
  for (int k = 0; k < n; ++k)
    if (ws->vpos[k] < 0) ws->rows[m++] = k;
  for (int p = 0; p < n; ++p)
    if (ws->bvar[p] >= n) ws->cols[mc++] = p;
  if (m != mc) return LSIM_BREAKDOWN;

  /* Y = B(R, C), m x m column-major, and its LU with partial pivoting. */
  double *restrict Y = ws->lu;
  double ymax = 0.0;
  for (int s = 0; s < m; ++s)
    for (int t = 0; t < m; ++t) {
      double y = var_entry(ws, lcp, ws->bvar[ws->cols[s]], ws->rows[t]);
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
    if (ws->vpos[k] >= 0) binv[ws->vpos[k] + (size_t)k * n] = 1.0;

  /* Column k = R_t: x_C = Y^{-1} e_t, x_W = -B(W, C) x_C. */
  double *restrict x = ws->work, *restrict acc = ws->work2;
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
      const int v = ws->bvar[ws->cols[s]];
      const double *restrict a = v < 2 * n ? lcp->M + (size_t)(v - n) * n : ws->d;
      for (int i = 0; i < n; ++i) acc[i] -= a[i] * xs;
    }
    double *restrict bk = binv + (size_t)ws->rows[t] * n;
    for (int s = 0; s < m; ++s) bk[ws->cols[s]] = x[s];
    for (int i = 0; i < n; ++i)
      if (ws->vpos[i] >= 0) bk[ws->vpos[i]] = -acc[i];
  }

  /* Fresh basic values. */
  binv_apply(ws, n, lcp->q, ws->xb);
  for (int i = 0; i < n; ++i)
    if (!isfinite(ws->xb[i])) return LSIM_BREAKDOWN;
  return 0;
}

/* 1 when row i of B^{-1} times si is lexicographically smaller than row j times sj
 * (the first components, the ratios, are already tied). */
static int lex_less(const LsimLemke *ws, int n, int i, double si, int j, double sj) {
  const double *binv = ws->binv;
  double mi = 0.0, mj = 0.0;
  for (int k = 0; k < n; ++k) {
    mi = fmax(mi, fabs(binv[i + (size_t)k * n]));
    mj = fmax(mj, fabs(binv[j + (size_t)k * n]));
  }
  const double tol = LSIM_LEMKE_LEXTOL * fmax(mi * fabs(si), mj * fabs(sj));
  for (int k = 0; k < n; ++k) {
    const double a = binv[i + (size_t)k * n] * si, b = binv[j + (size_t)k * n] * sj;
    if (a < b - tol) return 1;
    if (a > b + tol) return 0;
  }
  return i > j; /* rows of a nonsingular B^{-1} never tie; stay deterministic anyway */
}

/* The Zobrist key of variable v (splitmix64 of its index): the hash of a basis is the XOR
 * of the keys of its variables, updated in O(1) per exchange. */
static uint64_t var_key(int v) {
  uint64_t x = (uint64_t)v + 0x9E3779B97F4A7C15u;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9u;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBu;
  return x ^ (x >> 31);
}

/* The hash of the basis in bvar; empties the ring of recent bases. */
static void hash_reset(LsimLemke *ws, int n) {
  ws->hash = 0;
  for (int i = 0; i < n; ++i) ws->hash ^= var_key(ws->bvar[i]);
  ws->ring_len = ws->ring_pos = 0;
}

/* Records the current basis among the last LSIM_LEMKE_RING of this run and returns 1 when
 * it was already there twice: a third visit. (A second visit alone is no proof of a cycle
 * in floating point: permuted lcp_tobenna revisits bases and still gets out, the basic
 * values differing at rounding level; a true cycle comes round again and again.) */
static int basis_repeats(LsimLemke *ws) {
  int seen = 0;
  for (int k = 0; k < ws->ring_len; ++k) seen += ws->ring[k] == ws->hash;
  ws->ring[ws->ring_pos] = ws->hash;
  ws->ring_pos = (ws->ring_pos + 1) % LSIM_LEMKE_RING;
  if (ws->ring_len < LSIM_LEMKE_RING) ++ws->ring_len;
  return seen >= 2;
}

/* The exchange: the variable v with column c = ws->col enters at position r at the level
 * theta. Updates B^{-1} (rank one, skipping columns with a zero in row r), x_B, the maps. */
static void pivot(LsimLemke *ws, int n, int r, int v, double theta) {
  double *restrict binv = ws->binv, *restrict c = ws->col, *restrict xb = ws->xb;
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
  ws->vpos[ws->bvar[r]] = -1;
  ws->hash ^= var_key(ws->bvar[r]) ^ var_key(v);
  ws->bvar[r] = v;
  ws->vpos[v] = r;
}

/* The entering column c = B^{-1} a of variable v (a = e_v, -M_{:,j} or -d). Returns max|c|,
 * or NaN when c is not finite. */
static double entering_column(LsimLemke *ws, const LsimLcp *lcp, int v) {
  const int n = lcp->n;
  double *restrict c = ws->col;
  if (v < n) {
    const int p = ws->vpos[v]; /* never basic here, but stay correct */
    if (p >= 0) {
      memset(c, 0, (size_t)n * sizeof(double));
      c[p] = 1.0;
    } else {
      memcpy(c, ws->binv + (size_t)v * n, (size_t)n * sizeof(double));
    }
  } else {
    binv_apply(ws, n, v < 2 * n ? lcp->M + (size_t)(v - n) * n : ws->d, c);
    for (int i = 0; i < n; ++i) c[i] = -c[i];
  }
  double cmax = 0.0;
  for (int i = 0; i < n; ++i) {
    if (!isfinite(c[i])) return NAN;
    cmax = fmax(cmax, fabs(c[i]));
  }
  return cmax;
}

/* Records z0 after a pivot into the caller's trace. */
static void trace_z0(const LsimLemke *ws, int n, LsimLemkeInfo *info) {
  if (!info || !info->trace || info->trace_len >= info->trace_capacity) return;
  const int p = ws->vpos[2 * n];
  info->trace[info->trace_len++] = p >= 0 ? ws->xb[p] : 0.0;
}

/* max |x_B| with the scale of q: the unit of the tie tolerance. */
static double xscale(const LsimLemke *ws, int n, double qscale) {
  double s = qscale;
  for (int i = 0; i < n; ++i) s = fmax(s, fabs(ws->xb[i]));
  return s;
}

/* A bound on the rounding error of x_B[i] = (B^{-1} q)_i: ERRK n eps (|B^{-1}_i| |q| + |x_i|).
 * Exact ties of degenerate data show up as near-ties at this level. O(n), strided. */
static double row_err(const LsimLemke *ws, const LsimLcp *lcp, int i) {
  const int n = lcp->n;
  double s = fabs(ws->xb[i]);
  for (int k = 0; k < n; ++k) s += fabs(ws->binv[i + (size_t)k * n] * lcp->q[k]);
  return LSIM_LEMKE_ERRK * n * DBL_EPSILON * s;
}

/* The terminal test: does the complementary point that ends the path here pass the
 * acceptance test natural residual <= ftol? With t0 >= 0 that point is the one reached by
 * letting z0 leave now (the driving variable enters at the level t0 = x_z0 / c_z0, every
 * basic value moves to x_i - t0 c_i); with entering < 0 it is the basic point with z0 just
 * dropped. z is clamped at 0 like extract_z. The true residual decides, so a yes is honest.
 * Uses work, work2: O(n^2). */
static int terminal_ok(LsimLemke *ws, const LsimLcp *lcp, int entering, double t0, double ftol) {
  const int n = lcp->n;
  double *restrict zc = ws->work, *restrict w = ws->work2;
  for (int i = 0; i < n; ++i) {
    const int p = ws->vpos[n + i];
    const double v = n + i == entering ? t0 : p >= 0 ? ws->xb[p] - t0 * ws->col[p] : 0.0;
    zc[i] = v > 0.0 ? v : 0.0;
  }
  LsimResidual res;
  lsim_lcp_residual(lcp, zc, w, &res);
  return res.natural <= ftol;
}

/* Lemke's path from the complementary basis in ws (B^{-1}, x_B with a negative entry, d
 * with B^{-1} d = e). Adds its pivots to *pivots. Returns LSIM_SOLVED (z0 left; x_B is the
 * complementary solution), LSIM_SECONDARY_RAY, LSIM_MAX_ITERATIONS or LSIM_BREAKDOWN. */
static int lemke_path(LsimLemke *ws, const LsimLcp *lcp, int max_pivots, double acc_tol,
                      int *pivots, LsimLemkeInfo *info) {
  const int n = lcp->n, z0 = 2 * n;
  const double qscale = lsim_lcp_scale(lcp), ftol = acc_tol * qscale;
  double *restrict xb = ws->xb, *restrict c = ws->col;
  double dmax = 0.0;
  for (int i = 0; i < n; ++i) dmax = fmax(dmax, fabs(ws->d[i]));
  int done = 0, since_refactor = 0;

  /* First pivot: z0 enters with c = -e; the lexicographically smallest row of
   * [x_B, B^{-1}] leaves (the most negative x_B, ties broken on B^{-1}). */
  if (max_pivots <= 0) return LSIM_MAX_ITERATIONS;
  int r = 0;
  for (int i = 1; i < n; ++i)
    if (xb[i] < xb[r]) r = i;
  const double xmin = xb[r];
  if (!(xmin < 0.0)) return LSIM_BREAKDOWN; /* feasible but rejected: nothing to cover */
  {
    const double xs = xscale(ws, n, qscale), xtol = LSIM_LEMKE_XTOL * xs;
    const double loose = LSIM_LEMKE_LOOSE * xs, e0 = row_err(ws, lcp, r);
    for (int i = 0; i < n; ++i) {
      if (i == r || xb[i] > xmin + loose) continue;
      const double tol = fmin(loose, xtol + e0 + row_err(ws, lcp, i));
      if (xb[i] <= xmin + tol && lex_less(ws, n, i, 1.0, r, 1.0)) r = i;
    }
  }
  for (int i = 0; i < n; ++i) c[i] = -1.0;
  int leaving = ws->bvar[r];
  pivot(ws, n, r, z0, -xmin); /* z0 = -min x_B: every x_B + z0 >= 0 (not counted) */
  trace_z0(ws, n, info);
  hash_reset(ws, n);
  (void)basis_repeats(ws);

  for (;;) {
    /* The driving variable: the complement of the one that left. */
    const int entering = leaving < n ? leaving + n : leaving - n;
    if (done >= max_pivots) return LSIM_MAX_ITERATIONS;

    /* Its column, refactoring first when due; a weak pivot below asks for one more. */
    int fresh = 0;
    if (since_refactor >= ws->refactor_every) {
      memcpy(c, xb, (size_t)n * sizeof(double));
      if (refactor(ws, lcp)) return LSIM_BREAKDOWN;
      since_refactor = 0;
      fresh = 1;
      /* Drift of the updated x_B against the fresh one: refactor more often if large. */
      double drift = 0.0;
      for (int i = 0; i < n; ++i) drift = fmax(drift, fabs(c[i] - xb[i]));
      if (drift > LSIM_LEMKE_DRIFT * xscale(ws, n, qscale) && ws->refactor_every > 20)
        ws->refactor_every /= 2;
    }
    double cmax, xtol, tmin;
    int blocking;
    for (;;) {
      cmax = entering_column(ws, lcp, entering);
      if (!isfinite(cmax) && !fresh) { /* drift: rebuild and retry once */
        if (refactor(ws, lcp)) return LSIM_BREAKDOWN;
        since_refactor = 0;
        fresh = 1;
        continue;
      }
      if (!isfinite(cmax)) return LSIM_BREAKDOWN;

      /* Minimum ratio (x_B clamped at 0) over the rows with a sound pivot c_i > ctol =
       * SOUND max|c|; only if none blocks, over the rows with c_i > ptol (see ANTI-CYCLING:
       * a pivot of 1e-9 max|c| makes the next basis nearly singular and the path cycle). */
      const double ptol = LSIM_LEMKE_PTOL * cmax;
      double ctol = ws->sound ? LSIM_LEMKE_SOUND * cmax : ptol;
      tmin = INFINITY;
      blocking = -1;
      for (int pass = 0; pass < 2 && blocking < 0; ++pass) {
        if (pass) ctol = ptol;
        for (int i = 0; i < n; ++i)
          if (c[i] > ctol) {
            const double t = fmax(xb[i], 0.0) / c[i];
            if (t < tmin) {
              tmin = t;
              blocking = i;
            }
          }
      }
      if (blocking < 0) return LSIM_SECONDARY_RAY;

      /* Ties: rows whose value at the step tmin is zero up to rounding (theirs and that of
       * the minimizing row r0). z0 wins; else the lexicographic minimum of B^{-1}_i / c_i,
       * or, in the second run (tie_by_pivot) and when the step is not degenerate, the
       * largest pivot c_i. */
      const double xs = xscale(ws, n, qscale), loose = LSIM_LEMKE_LOOSE * xs;
      const int r0 = blocking, pz0 = ws->vpos[z0];
      const double e0 = row_err(ws, lcp, r0) / c[r0];
      xtol = LSIM_LEMKE_XTOL * xs;
      int z0_tied = 0;
      const int by_pivot = ws->tie_by_pivot && xb[r0] > xtol + row_err(ws, lcp, r0);
      for (int i = 0; i < n; ++i) {
        if (i == r0 || !(c[i] > ctol)) continue;
        const double gap = fmax(xb[i], 0.0) - tmin * c[i];
        if (gap > loose || gap > fmin(loose, xtol + row_err(ws, lcp, i) + c[i] * e0)) continue;
        if (i == pz0) z0_tied = 1;
        else if (blocking == pz0) continue;
        else if (by_pivot) {
          if (c[i] > c[blocking]) blocking = i;
        } else if (lex_less(ws, n, i, 1.0 / c[i], blocking, 1.0 / c[blocking]))
          blocking = i;
      }
      if (z0_tied) blocking = pz0;

      /* Terminal test (see terminal_ok). In exact arithmetic z0 leaves the moment its ratio
       * ties with the minimum; near-duplicate rows (parallel contact normals) and nearly
       * singular bases make it miss by more than the tie tolerance, leave z0 at a residue
       * of 1e-11 and send the path on along degenerate pivots to a ray. So: z0 leaves now
       * if that moves no basic value below -ftol and the point passes the acceptance test;
       * or, with z0 d within ftol, the point with z0 dropped is tried. */
      if (blocking != pz0 && pz0 >= 0) {
        if (c[pz0] > ptol) {
          const double t0 = fmax(xb[pz0], 0.0) / c[pz0];
          double worst = 0.0;
          for (int i = 0; i < n; ++i)
            if (c[i] > ptol) worst = fmin(worst, xb[i] - t0 * c[i]);
          if (worst >= -ftol && terminal_ok(ws, lcp, entering, t0, ftol)) {
            blocking = pz0;
            tmin = t0;
          }
        }
        if (blocking != pz0 && xb[pz0] * dmax <= ftol && terminal_ok(ws, lcp, -1, 0.0, ftol))
          return LSIM_SOLVED; /* z0 stays basic; extract_z ignores it */
      }
      xtol = fmax(xtol, fmin(loose, row_err(ws, lcp, blocking)));

      /* A pivot small against the column may be rounding noise: refactor and redo. */
      if (c[blocking] < LSIM_LEMKE_WEAKPIV * cmax && !fresh && since_refactor > 0) {
        if (refactor(ws, lcp)) return LSIM_BREAKDOWN;
        since_refactor = 0;
        fresh = 1;
        continue;
      }
      break;
    }

    /* The exchange. A degenerate step (blocking value at numerical zero) is taken as
     * exactly zero, so rounding noise does not spread into the other degenerate rows. */
    leaving = ws->bvar[blocking];
    const double theta = xb[blocking] > xtol ? fmin(tmin, xb[blocking] / c[blocking]) : 0.0;
    /* Entries of c below the pivot tolerance are rounding noise of zeros: drop them. */
    for (int i = 0; i < n; ++i)
      if (fabs(c[i]) <= LSIM_LEMKE_PTOL * cmax) c[i] = 0.0;
    pivot(ws, n, blocking, entering, theta);
    ++*pivots;
    ++done;
    ++since_refactor;
    trace_z0(ws, n, info);
    if (leaving == z0) return LSIM_SOLVED;
    if (basis_repeats(ws)) return LSIM_BREAKDOWN; /* cycling: the lexicographic rule failed */
  }
}

/* z from the basic values (z_i = 0 when nonbasic); clamp < 0 to 0 when clamp, and never
 * leave a non-finite value. */
static void extract_z(const LsimLemke *ws, int n, double *z, int clamp) {
  for (int i = 0; i < n; ++i) {
    const int p = ws->vpos[n + i];
    double v = p >= 0 ? ws->xb[p] : 0.0;
    if (!isfinite(v) || (clamp && v < 0.0)) v = 0.0;
    z[i] = v;
  }
}

/* Acceptance: natural residual <= tol * scale; on failure refactor once and retry. */
static int accept(LsimLemke *ws, const LsimLcp *lcp, double tol, double *z) {
  const int n = lcp->n;
  LsimResidual res;
  for (int attempt = 0; attempt < 2; ++attempt) {
    extract_z(ws, n, z, 1);
    lsim_lcp_residual(lcp, z, ws->work, &res);
    if (res.natural <= tol * lsim_lcp_scale(lcp)) return LSIM_SOLVED;
    if (attempt == 0 && refactor(ws, lcp)) break;
  }
  extract_z(ws, n, z, 0);
  return LSIM_BREAKDOWN;
}

/* After a failed solve: 1 when z's natural residual is not below the caller's point's
 * (ws->start), and then z = that point; 0 when z is kept. */
static int verify(LsimLemke *ws, const LsimLcp *lcp, double *z) {
  const int n = lcp->n;
  LsimResidual got, start;
  lsim_lcp_residual(lcp, z, ws->work, &got);
  lsim_lcp_residual(lcp, ws->start, ws->work, &start);
  if (got.natural < start.natural) return 0;
  memcpy(z, ws->start, (size_t)n * sizeof(double));
  return 1;
}

/* The all-w basis: B = I, x_B = q, d = e. */
static void cold_basis(LsimLemke *ws, const LsimLcp *lcp) {
  const int n = lcp->n;
  memset(ws->binv, 0, (size_t)n * (size_t)n * sizeof(double));
  for (int i = 0; i < n; ++i) {
    ws->binv[i + (size_t)i * n] = 1.0;
    ws->bvar[i] = i;
    ws->vpos[i] = i;
    ws->vpos[n + i] = -1;
    ws->xb[i] = lcp->q[i];
    ws->d[i] = 1.0;
  }
  ws->vpos[2 * n] = -1;
}

/* The guessed basis: z_i at position i where guess[i], w_i elsewhere; d = B e.
 * Returns 0 or LSIM_BREAKDOWN (singular M_GG). */
static int warm_basis(LsimLemke *ws, const LsimLcp *lcp) {
  const int n = lcp->n;
  for (int i = 0; i < n; ++i) {
    const int zb = ws->guess[i] != 0;
    ws->bvar[i] = zb ? n + i : i;
    ws->vpos[i] = zb ? -1 : i;
    ws->vpos[n + i] = zb ? i : -1;
  }
  ws->vpos[2 * n] = -1;
  /* d = B e = sum of the basic columns: e_i for basic w_i, -M_{:,j} for basic z_j. */
  for (int i = 0; i < n; ++i) ws->d[i] = ws->guess[i] ? 0.0 : 1.0;
  for (int j = 0; j < n; ++j) {
    if (!ws->guess[j]) continue;
    const double *mj = lcp->M + (size_t)j * n;
    for (int i = 0; i < n; ++i) ws->d[i] -= mj[i];
  }
  return refactor(ws, lcp);
}

/* Records the final complementary basis. */
static void save_basis(LsimLemke *ws, int n) {
  for (int i = 0; i < n; ++i) ws->basis[i] = ws->vpos[n + i] >= 0;
  ws->basis_valid = 1;
}

int lsim_lemke_solve(LsimLemke *ws, const LsimLcp *lcp, const LsimLemkeOptions *opt,
                     const unsigned char *basis_guess, double *z, LsimLemkeInfo *info) {
  LsimLemkeOptions o = opt ? *opt : lsim_default_lemke_options();
  int pivots = 0, status, have_start = 0, rejected = 0;
  if (info) {
    info->status = LSIM_INVALID_INPUT;
    info->pivots = info->warm_started = info->restarts = info->trace_len = 0;
    info->rejected = 0;
  }

  /* Input checks. */
  if (!ws || !lcp || lcp->n < 0 || (lcp->n > 0 && (!z || !lcp->M || !lcp->q)) ||
      o.max_pivots < 0 || !(o.tol > 0.0) || !isfinite(o.tol)) {
    status = LSIM_INVALID_INPUT;
    goto out;
  }
  const int n = lcp->n;
  ws->basis_valid = 0; /* the buffer itself stays intact: the guess may point into it */
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

  /* Workspace; the guess is copied before basis may move (it may alias it). */
  if (reserve(ws, n)) {
    memset(z, 0, (size_t)n * sizeof(double));
    status = LSIM_OUT_OF_MEMORY;
    goto out;
  }
  /* The caller's point, kept to verify a failed result against (VERIFICATION). */
  for (int i = 0; i < n; ++i) ws->start[i] = isfinite(z[i]) && z[i] > 0.0 ? z[i] : 0.0;
  have_start = 1;
  memset(z, 0, (size_t)n * sizeof(double));
  if (basis_guess) memcpy(ws->guess, basis_guess, (size_t)n);
  if (reserve_basis(ws, n)) {
    status = LSIM_OUT_OF_MEMORY;
    goto out;
  }
  ws->refactor_every = n > 100 ? n : 100;
  ws->sound = 1; /* the warm path and the first two cold runs */
  ws->tie_by_pivot = 0;

  /* q >= 0: z = 0 solves, nothing to pivot. */
  int qneg = 0;
  for (int i = 0; i < n; ++i) qneg |= lcp->q[i] < 0.0;
  if (!qneg) {
    memset(ws->basis, 0, (size_t)n);
    ws->basis_valid = 1;
    status = LSIM_SOLVED;
    goto out;
  }

  /* Warm start: the guessed basis directly, else Lemke's path from it. */
  if (basis_guess) {
    status = warm_basis(ws, lcp);
    if (status == 0) {
      const double ftol = o.tol * lsim_lcp_scale(lcp);
      double xmin = INFINITY;
      for (int i = 0; i < n; ++i) xmin = fmin(xmin, ws->xb[i]);
      if (xmin >= -ftol && accept(ws, lcp, o.tol, z) == LSIM_SOLVED) status = LSIM_SOLVED;
      else if ((status = lemke_path(ws, lcp, max_pivots, o.tol, &pivots, info)) == LSIM_SOLVED)
        status = accept(ws, lcp, o.tol, z);
    }
    if (status == LSIM_SOLVED) {
      if (info) info->warm_started = 1;
      save_basis(ws, n);
      goto out;
    }
    if (info) info->restarts = 1;
  }

  /* Cold start; if it fails (ray, breakdown, cycle), a second cold run that breaks
   * non-degenerate ties by the largest pivot, then a third without the preference for sound
   * pivots (see ROBUSTNESS and ANTI-CYCLING above). */
  for (int run = 0; run < 3; ++run) {
    cold_basis(ws, lcp);
    ws->tie_by_pivot = run == 1;
    ws->sound = run < 2;
    status = lemke_path(ws, lcp, max_pivots, o.tol, &pivots, info);
    ws->tie_by_pivot = 0;
    ws->sound = 1;
    if (status == LSIM_SOLVED) status = accept(ws, lcp, o.tol, z);
    else extract_z(ws, n, z, 0);
    if (status == LSIM_SOLVED || status == LSIM_MAX_ITERATIONS) break;
  }
  if (status == LSIM_SOLVED) save_basis(ws, n);

out:
  /* A failed result no better than the caller's point is rejected (VERIFICATION). */
  if (status != LSIM_SOLVED && have_start) rejected = verify(ws, lcp, z);
  if (info) {
    info->status = status;
    info->pivots = pivots;
    info->rejected = rejected;
  }
  return status;
}
