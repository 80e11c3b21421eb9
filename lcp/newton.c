/* newton.c: an exact active-set solver for the factored LCP M = J B + C: semismooth Newton
 * on the min-map with a line search (phase 1), then the proximal point method on the LCP
 * with block principal pivoting subproblems (phase 2); each step one sparse LU of the
 * active rows in augmented form (UMFPACK), never forming M; PGS for the start.
 *
 * THE METHOD
 * The LCP w = M z + q, z >= 0, w >= 0, z'w = 0 holds exactly when the min-map
 *     Phi(z) = min(z, M z + q)   (componentwise)
 * is zero. For an active set A (rows with w = 0) and its complement I (rows with z = 0)
 * the candidate point solves
 *     z_I = 0,   (M z + q)_A = 0,                                                  (1)
 * the step of block principal pivoting (Kostreva; Judice and Pires) and of the
 * semismooth Newton method on Phi. It is the solution when z_A >= 0 and w_I >= 0.
 *
 * Phase 1 (min-map Newton). The active set A = {i : w_i < z_i} of the current point
 * gives (1), solved by proximal refinement with the factors of M_AA + eps1 I (eps1 =
 * 1e-9 max|M_ii|): z_A <- z_A + (M_AA + eps1 I)^{-1} (-(M z + q)_A) converges on the
 * range of a singular M_AA and leaves the null space component of z alone. The step
 * d = z+ - z is accepted by the Armijo rule on |Phi|^2 (t = 1, 1/2, ... 1/64; w is affine
 * in z), else PGS restarts from the best point. Near a solution with the right active set
 * the step lands on it exactly, which is why falling piles are solved in a few steps.
 * Phase 1 ends after ten steps without a tenth off the best residual, or max_iter / 2.
 *
 * Why phase 2. The contact rows of a settled pile are redundant (more contacts than
 * degrees of freedom, four parallel normals under a box, opposite friction directions
 * both at w = 0 when sticking), so M_AA is singular and (1) is often inconsistent for the
 * active sets met on the way: the Newton point does not exist. The proximal point method
 * (Rockafellar) solves instead a sequence of subproblems
 *     LCP(M + eps I, q - eps c),  i.e.  wr(z) = M z + q + eps (z - c),             (2)
 * with the center c the last subproblem's solution (the start first). M + eps I has
 * nonsingular principal blocks for the monotone part of M (PSD plus the skew cone rows),
 * so each candidate point
 *     z_I = 0,   wr(z)_A = 0, i.e. (M_AA + eps I) z_A = (eps c - q)_A,                (3)
 * exists; its error against the original LCP is w_A = -eps (z - c)_A, which shrinks as
 * the centers converge (eps = 1e-3 max_i |M_ii| by default: a well conditioned
 * subproblem). A new center keeps the active set, so the factors are reused and a
 * proximal step costs back substitutions only. When two proximal steps in a row do not
 * halve the natural residual (an active system inconsistent by O(eps): the centers drift
 * along a null direction of M_AA), eps is made a hundred times smaller, down to
 * 1e-12 max|M_ii| (continuation), with new factors.
 *
 * Each subproblem by block principal pivoting (Judice and Pires): from the active set of
 * the current point, (3) is solved; the infeasible rows (z_i < 0 on A, wr_i < 0 on I,
 * beyond 1e-3 of the target) change sides all at once while their count drops; when it
 * does not, back to the active set of the fewest and one row at a time, the last
 * infeasible one (Murty's rule, finite for P-matrices), until the count drops below that.
 * After BPP_SINGLE single exchanges without, the subproblem starts again from the best
 * point with a ten times larger eps (better conditioned: the exchanges of a near-singular
 * subproblem wander), at most EPS_RAISES times. No line search: the count of infeasible
 * rows is the measure of progress.
 *
 * The linear systems (1) and (3) are never formed from M. With u = B_A z_A they read, in
 * augmented form over (u, z),
 *     [ I      -B  ] [ u ]   [ 0 ]
 *     [ J~     C~  ] [ z ] = [ r ]      row i of (J~ C~) = row i of (J C) + eps e_i' for
 *                                       i in A, e_i' (z_i = r_i) for i in I,
 * a sparse matrix of order m + n with nnz(J) + nnz(B) + nnz(C) + m + n entries whose
 * pattern does not depend on A (inactive rows keep their entries as explicit zeros), so
 * UMFPACK's symbolic analysis is made once per problem and each new active set (or eps)
 * is one numeric factorization. M is not symmetric for Stewart-Trinkle cones (the lambda
 * row holds mu and -1, the direction rows +1), hence LU with partial pivoting. Each solve
 * is refined (up to four back substitutions) on the residual of (3) computed from the
 * factored M.
 *
 * The velocity form. Every system here has rows a_i (J_i u + C_i z) + d_i z_i = r_i (a_i
 * = 1, d_i = eps on A; a_i = 0, d_i = 1 on I; the interior point's below). Where C is made
 * of small blocks (a cone's normal, directions and lambda: 6 rows for d = 4), K = diag(d)
 * + diag(a) C is block diagonal and z is eliminated: S u = B K^-1 r, S = I + B K^-1
 * diag(a) J, then z = K^-1 (r - diag(a) J u), with one refinement step on the full rows
 * (newton_schur.c). S is m x m (600 for pile_100, against m + n = 2100 for the augmented
 * matrix) and its LU costs about a third: on pile_100, 12.7 against 21.4 ms median for the
 * falling steps, 3.4 against 8 ms an interior point step. The reduction squares the spread
 * of a / d into S's condition; solved to 1e-10 on all 294 steps of pile_100: 114 through
 * S, 118 through the augmented form (the four differ at 1.8-3.3e-10). A singular block of
 * K or singular S falls back to the augmented form for that factorization;
 * velocity_form = -1 keeps the augmented form throughout. Like the interior point, only
 * above dense_limit: below it the systems and answers are those of the augmented form
 * (on pile_10 through S, a step's phase 2 ended elsewhere and Lemke's fallback from there
 * met a secondary ray).
 *
 * The interior point phase, when phase 1 fails and no dense Lemke fallback follows (n
 * above dense_limit; below it Lemke, the reference, keeps the last word as before; phase
 * 1 then gets PHASE1_FIRST steps before this phase, PHASE1_LONG where S's pattern
 * narrows). A settled pile's LCP is statically indeterminate and degenerate (hundreds of
 * pairs with z_i = w_i = 0): the active sets phase 1 meets are inconsistent, and from a
 * PGS start it wanders. A primal-dual interior
 * point method (Mehrotra's predictor-corrector, infeasible, from phase 1's best point and
 * its w shifted by 0.01 sqrt(scale) into the interior)
 * follows the central path instead, where no active set is chosen: each step solves
 *     z_i (M dz)_i + w_i dz_i = s_i - z_i r_i,   dw = M dz + r,   r = M z + q - w,
 * (a_i = z_i, d_i = w_i in the velocity form, where K = diag(w) + diag(z) C is always
 * nonsingular: w > 0 plus a skew part and a triangular mu coupling; in the augmented form
 * row i of (J C) times z_i, w_i on the diagonal), with s = -z w (predictor) and then
 * s = sigma mu e - z w - dz_aff dw_aff (corrector, sigma = (mu_aff / mu)^3), and steps to
 * 0.995 of the boundary. M is not monotone, so mu levels off (at 1e-8 to 1e-6 of the
 * start's on the hardest steps); the phase stops when mu has not halved in 8 steps, or
 * when the boundary blocks a step once mu is at round-off (below 1e-8 of its start). Its
 * point of smallest natural residual gives the crossover guess z_i (where z_i > w_i, else
 * 0): the limit's active set, from which PGS and phase 1 finish in a few steps, and then
 * phase 2 as before (with a fresh step budget).
 *
 * The start: the guess (the previous step's impulses by contact id in a run), then 20
 * PGS sweeps, kept only when they lower the natural residual (PGS need not converge on a
 * nonsymmetric M); phase 2 starts from phase 1's best point. The stop test is the common
 * natural residual max_i |min(z_i, w_i)| <= tol * scale, scale = max|q| (or 1), on w
 * recomputed from z alone, checked after every step; the best point is returned.
 *
 * REFERENCES
 * Mehrotra, "On the implementation of a primal-dual interior point method", SIAM J. Optim.
 * 2 (1992); Wright, "Primal-Dual Interior-Point Methods", SIAM (1997), ch. 8 for the LCP;
 * Kostreva, "Block pivoting methods for solving the complementarity problem", Linear
 * Algebra Appl. 21 (1978); Judice and Pires, "A block principal pivoting algorithm for
 * large-scale strictly monotone linear complementarity problems", Comput. Oper. Res. 21
 * (1994); Murty, "Note on a Bard-type scheme for solving the complementarity problem",
 * Opsearch 11 (1974), for the single exchanges; Rockafellar, "Monotone operators and the
 * proximal point algorithm", SIAM J. Control Optim. 14 (1976); Pang, "Newton's method for
 * B-differentiable equations", Math. Oper. Res. 15 (1990), for the min-map Newton method;
 * Davis, "Algorithm 832: UMFPACK V4.3", ACM TOMS 30 (2004); Stewart and Trinkle, IJNME
 * 39 (1996), for the contact LCP.
 *
 * Fallback. When phase 1 ends without a solution and n <= dense_limit (default 500),
 * phase 2 gets PHASE2_SHORT steps only, then Lemke (lemke.c) runs on
 * the dense M, warm started from the best point's active set: the answer is then
 * Lemke's, with its guarantees for copositive-plus problems. When that Lemke ends on a ray
 * or a breakdown, its LU run follows (sparse Lemke on f from the same guess, as the solver
 * front does after dense Lemke), then sparse Lemke from the caller's guess {i : z_i > 0};
 * on the dominoes these took newton's failed steps from 14 to 1 in 6009 (docs/solvers.md).
 * Above dense_limit, when
 * sparse_limit allows (off by default), sparse Lemke (lemke_sparse.c: the same method on
 * the factored problem with a sparse LU basis, M never formed) is the fallback in the same
 * way. Otherwise phase 2 gets the remaining steps and nothing follows: M is never formed.
 *
 * FAILURE MODES
 * Not globally convergent for every LCP class. Phase 1 converges from near a solution
 * whose active systems are consistent; the proximal point method of phase 2 converges
 * for monotone M, and the Stewart-Trinkle M is not monotone (the mu c_n coupling of the
 * lambda rows). Measured (docs/solvers.md, bench/bench_exact.c): every falling and
 * settling step of pile_100 (steps 0-60, n up to 1494) is solved to 1e-10; on the pile at
 * rest (steps 61-299, n ~ 1500) 7 of 239 are, the others end on LSIM_MAX_ITERATIONS
 * after max_iter (100) steps with a median relative residual of 1.2e-6 (about PGS's at
 * 1000 sweeps): the pivoting of a subproblem wanders (residual ~1e-3, the start's level),
 * or the proximal steps stall at 1e-6 to 1e-7 and the subproblems of a smaller eps are
 * too near singular for the exchanges. The solve then returns the best point (smallest
 * natural residual) with LSIM_MAX_ITERATIONS. A factorization that fails (out of memory,
 * or a structurally singular active system) gives LSIM_OUT_OF_MEMORY, or ends the phase
 * with the best point. z is always finite. Lemke (lemke.c) stays the reference with its
 * guarantees for copositive-plus problems; this solver is for size.
 */
#include "newton.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <umfpack.h>

#include "blas.h"
#include "lemke.h"
#include "lemke_sparse.h"
#include "newton_schur.h"
#include "pgs.h"
#include "quality.h"

/* Single (Murty) exchanges without fewer infeasible rows before a subproblem starts again
 * from the best point with a ten times larger eps, at most EPS_RAISES times. */
enum { BPP_SINGLE = 10, EPS_RAISES = 3 };

/* The interior point phase's default step limit, and the steps over which its duality
 * measure must halve (else it has levelled off). */
enum { IPM_ITER = 60, IPM_STALL = 8 };
/* A step shorter than IPM_BLOCKED of the direction once mu is below IPM_ROUNDOFF of its
 * first value ends the phase: the point is at round-off and the boundary blocks it (on
 * pile_1000's falling steps mu falls to about 1e-10 of its start, then the steps are 1e-14
 * to 2e-3 long until the IPM_STALL test ends the phase four to seven steps later). Earlier
 * on the path a blocked step is not the end: it takes the blocking pair 200 times closer
 * to 0 and the next direction differs; settled pile_100 steps go on to solve after one. */
#define IPM_BLOCKED 1e-3
#define IPM_ROUNDOFF 1e-8
#define IPM_SHIFT 0.01 /* the start's shift into the interior, times sqrt(max|q|) */

/* Phase 1's steps before the interior point (falling piles are solved in 4, at most 23,
 * on pile_100; the settled pile's steps that phase 1 cannot solve cost 8 ms each), and
 * PHASE1_LONG when S's pattern narrows to the active cones (newton_schur.h): phase 1's
 * factorizations then cost a fraction of the interior point's, which keeps every cone
 * (pile_1000's 34 falling steps: newton's time 9.9 -> 5.0 s, and 33 of them under 0.4 s
 * instead of 1-1.5 s, 16 steps 5.2 s). */
enum { PHASE1_FIRST = 10, PHASE1_LONG = 22 };

/* The default dense_limit (the Lemke fallback forms the dense M; above a few hundred
 * variables its pivots can take minutes: 355 s on a settled pile_100 step, n = 1482), and
 * phase 2's steps when that fallback follows. */
enum { DENSE_LIMIT = 500, PHASE2_SHORT = 20 };


struct LsimNewton {
  int cap_n, cap_m, cap_nz, cap_a;
  double *w, *zn, *wn, *zbest, *zsave;   /* [cap_n] */
  double *wrn, *center;                  /* [cap_n] regularized w of zn, proximal center */
  double *iz, *iw, *ir, *idz, *idw;      /* [cap_n] interior point: z, w, M z + q - w, steps */
  unsigned char *active, *abest;         /* [cap_n] 1 for i in A; the A of fewest
                                            infeasible rows in the subproblem */
  unsigned char *start;                  /* [cap_n] the caller's guess {i : z_i > 0} */
  double *u;                             /* [cap_m] B z */
  double *rhs, *x;                       /* [cap_a] augmented right side, solution */
  int *Ap;                               /* [cap_a] augmented matrix, CSC column pointers */
  int *Ti, *Tj, *Ai, *Map;               /* [cap_nz] triplets, row indices, triplet -> Ax */
  double *Tx, *Ax;                       /* [cap_nz] */
  void *symbolic, *numeric;
  double control[UMFPACK_CONTROL], uinfo[UMFPACK_INFO];
  LsimPgs *pgs;
  LsimSchur *schur;   /* the systems on the velocities (newton_schur.h) */
  int schur_ok;       /* 1 when this problem's analysis for it succeeded */
  int use_schur;      /* 1 when the last factors are S's (solves go through it) */
  int singular;       /* this solve's factorizations found singular (LsimNewtonInfo) */
  double *sa, *sd;    /* [cap_n] S's row scalings a and diagonal d of the last factors */
  /* The Lemke fallback: the dense problem, J transposed for forming it, the basis guess. */
  LsimLemke *lemke;
  LsimLemkeSparse *lemke_sparse; /* the fallback above dense_limit */
  LsimLcp dense;
  size_t cap_dense;
  int *jt_ptr, *jt_idx;
  double *jt_val;
  int cap_jt_m, cap_jt_nz;
  unsigned char *guess;
  unsigned char *sguess;  /* [cap_guess] the sparse fallback's basis guess */
  size_t cap_guess;
};

LsimNewtonOptions lsim_default_newton_options(void) {
  LsimNewtonOptions o = {.tol = 1e-10, .max_iter = 0, .pgs_sweeps = -1, .reg = 0.0,
                         .dense_limit = 0, .ipm_iter = 0, .velocity_form = 0,
                         .sparse_limit = 0};
  return o;
}

LsimNewton *lsim_newton_create(void) {
  LsimNewton *ws = calloc(1, sizeof *ws);
  if (!ws) return NULL;
  if (!(ws->pgs = lsim_pgs_create())) {
    free(ws);
    return NULL;
  }
  umfpack_di_defaults(ws->control);
  ws->control[UMFPACK_IRSTEP] = 0; /* the proximal loop refines in the LCP's own terms */
  lsim_blas_one_thread();
  return ws;
}

static void free_factors(LsimNewton *ws) {
  if (ws->numeric) umfpack_di_free_numeric(&ws->numeric);
  if (ws->symbolic) umfpack_di_free_symbolic(&ws->symbolic);
  ws->numeric = ws->symbolic = NULL;
}

void lsim_newton_free(LsimNewton *ws) {
  if (!ws) return;
  free_factors(ws);
  lsim_pgs_free(ws->pgs);
  lsim_schur_free(ws->schur);
  lsim_lemke_free(ws->lemke);
  lsim_lemke_sparse_free(ws->lemke_sparse);
  free(ws->dense.M), free(ws->dense.q), free(ws->jt_ptr), free(ws->jt_idx), free(ws->jt_val);
  free(ws->guess);
  free(ws->sguess);
  free(ws->w), free(ws->zn), free(ws->wn), free(ws->zbest), free(ws->zsave);
  free(ws->wrn), free(ws->center);
  free(ws->iz), free(ws->iw), free(ws->ir), free(ws->idz), free(ws->idw);
  free(ws->sa), free(ws->sd);
  free(ws->active), free(ws->abest), free(ws->start), free(ws->u), free(ws->rhs), free(ws->x);
  free(ws->Ap);
  free(ws->Ti), free(ws->Tj), free(ws->Ai), free(ws->Map), free(ws->Tx), free(ws->Ax);
  free(ws);
}

/* Grows the workspace for n variables, m inner dimensions and nz augmented entries. */
static int reserve(LsimNewton *ws, int n, int m, int nz) {
  int cap = ws->cap_n;
  double **dn[] = {&ws->w, &ws->zn, &ws->wn, &ws->zbest, &ws->zsave,
                   &ws->wrn, &ws->center, &ws->iz, &ws->iw, &ws->ir, &ws->idz, &ws->idw,
                   &ws->sa, &ws->sd};
  if (n > ws->cap_n) {
    for (size_t k = 0; k < sizeof dn / sizeof dn[0]; ++k) {
      cap = ws->cap_n;
      if (lsim_grow((void **)dn[k], &cap, n, sizeof(double))) return LSIM_OUT_OF_MEMORY;
    }
    cap = ws->cap_n;
    if (lsim_grow((void **)&ws->active, &cap, n, 1)) return LSIM_OUT_OF_MEMORY;
    cap = ws->cap_n;
    if (lsim_grow((void **)&ws->abest, &cap, n, 1)) return LSIM_OUT_OF_MEMORY;
    cap = ws->cap_n;
    if (lsim_grow((void **)&ws->start, &cap, n, 1)) return LSIM_OUT_OF_MEMORY;
    ws->cap_n = cap;
  }
  if (m + 1 > ws->cap_m) {
    cap = ws->cap_m;
    if (lsim_grow((void **)&ws->u, &cap, m + 1, sizeof(double))) return LSIM_OUT_OF_MEMORY;
    ws->cap_m = cap;
  }
  /* The augmented vectors: m + n + 1 entries. */
  if (m + n + 1 > ws->cap_a) {
    const size_t na = (size_t)(m + n + 1);
    double *rhs = realloc(ws->rhs, na * sizeof(double));
    if (!rhs) return LSIM_OUT_OF_MEMORY;
    ws->rhs = rhs;
    double *x = realloc(ws->x, na * sizeof(double));
    if (!x) return LSIM_OUT_OF_MEMORY;
    ws->x = x;
    int *ap = realloc(ws->Ap, na * sizeof(int));
    if (!ap) return LSIM_OUT_OF_MEMORY;
    ws->Ap = ap;
    ws->cap_a = m + n + 1;
  }
  if (nz > ws->cap_nz) {
    int **iv[] = {&ws->Ti, &ws->Tj, &ws->Ai, &ws->Map};
    double **dv[] = {&ws->Tx, &ws->Ax};
    for (int k = 0; k < 4; ++k) {
      cap = ws->cap_nz;
      if (lsim_grow((void **)iv[k], &cap, nz, sizeof(int))) return LSIM_OUT_OF_MEMORY;
    }
    for (int k = 0; k < 2; ++k) {
      cap = ws->cap_nz;
      if (lsim_grow((void **)dv[k], &cap, nz, sizeof(double))) return LSIM_OUT_OF_MEMORY;
    }
    ws->cap_nz = cap;
  }
  return 0;
}

/* The augmented triplets in a fixed order: identity of u, rows of J, columns of -B, rows
 * of C, the diagonal of the z block. With values (tx != NULL) for the active set of
 * ws->active and regularisation eps; else the pattern (ti, tj). Returns the count. */
static int triplets(const LsimNewton *ws, const LsimFactoredLcp *f, int *ti, int *tj,
                    double *tx, double eps) {
  const int n = f->n, m = f->m;
  const unsigned char *act = ws->active;
  int k = 0;
  for (int j = 0; j < m; ++j, ++k) {
    if (tx) tx[k] = 1.0;
    else ti[k] = j, tj[k] = j;
  }
  for (int i = 0; i < n; ++i)
    for (int p = f->J_ptr[i]; p < f->J_ptr[i + 1]; ++p, ++k) {
      if (tx) tx[k] = act[i] ? f->J_val[p] : 0.0;
      else ti[k] = m + i, tj[k] = f->J_idx[p];
    }
  for (int i = 0; i < n; ++i)
    for (int p = f->B_ptr[i]; p < f->B_ptr[i + 1]; ++p, ++k) {
      if (tx) tx[k] = -f->B_val[p];
      else ti[k] = f->B_idx[p], tj[k] = m + i;
    }
  for (int i = 0; f->C_ptr && i < n; ++i)
    for (int p = f->C_ptr[i]; p < f->C_ptr[i + 1]; ++p, ++k) {
      if (tx) tx[k] = act[i] ? f->C_val[p] : 0.0;
      else ti[k] = m + i, tj[k] = m + f->C_idx[p];
    }
  for (int i = 0; i < n; ++i, ++k) {
    if (tx) tx[k] = act[i] ? eps : 1.0;
    else ti[k] = m + i, tj[k] = m + i;
  }
  return k;
}

/* max_i |M_ii| with M_ii = J_i . B(:, i) + C_ii (u [m] scratch, left zero). */
static double max_diagonal(const LsimFactoredLcp *f, double *u) {
  double dmax = 0.0;
  for (int i = 0; i < f->n; ++i) dmax = fmax(dmax, fabs(lsim_factored_diagonal_entry(f, i, u)));
  return dmax;
}

/* |Phi|^2 and max |Phi| of (z, w). */
static double merit(const double *z, const double *w, int n, double *natural) {
  double s = 0.0, mx = 0.0;
  for (int i = 0; i < n; ++i) {
    const double p = fmin(z[i], w[i]);
    s += p * p;
    mx = fmax(mx, fabs(p));
  }
  if (natural) *natural = mx;
  return s;
}

/* Numeric LU of the augmented matrix whose triplet values are in ws->Tx. */
static int numeric(LsimNewton *ws, const LsimFactoredLcp *f, int nz) {
  const int na = f->m + f->n;
  memset(ws->Ax, 0, (size_t)ws->Ap[na] * sizeof(double));
  for (int k = 0; k < nz; ++k) ws->Ax[ws->Map[k]] += ws->Tx[k];
  if (ws->numeric) umfpack_di_free_numeric(&ws->numeric);
  const int rc = umfpack_di_numeric(ws->Ap, ws->Ai, ws->Ax, ws->symbolic, &ws->numeric,
                                    ws->control, ws->uinfo);
  if (rc == UMFPACK_ERROR_out_of_memory) return LSIM_OUT_OF_MEMORY;
  if (rc != UMFPACK_OK) return LSIM_BREAKDOWN; /* includes a singular matrix */
  return 0;
}

static void ipm_values(const LsimFactoredLcp *f, const double *z, const double *w, double *tx);

/* The factors of the rows a_i (J_i u + C_i z) + d_i z_i (a, d in ws->sa, ws->sd): S's
 * when this problem has them (newton_schur.h) and they are not singular, else the
 * augmented matrix's: the interior point's rows (ipm), or the active set's with eps. */
static int factor_rows(LsimNewton *ws, const LsimFactoredLcp *f, int nz, int ipm, double eps) {
  if (ws->schur_ok) {
    const int rc = lsim_schur_factor(ws->schur, f, ws->sa, ws->sd);
    if (rc != LSIM_BREAKDOWN) return ws->use_schur = !rc, rc;
    ++ws->singular;
  }
  ws->use_schur = 0;
  if (ipm) ipm_values(f, ws->sa, ws->sd, ws->Tx);
  else triplets(ws, f, NULL, NULL, ws->Tx, eps);
  const int rc = numeric(ws, f, nz);
  ws->singular += rc == LSIM_BREAKDOWN;
  return rc;
}

/* The factors for the active set in ws->active and regularisation eps: a_i = 1, d_i = eps
 * on A; a_i = 0, d_i = 1 (z_i = r_i) on I. */
static int factor(LsimNewton *ws, const LsimFactoredLcp *f, int nz, double eps) {
  for (int i = 0; i < f->n; ++i)
    ws->sa[i] = ws->active[i] ? 1.0 : 0.0, ws->sd[i] = ws->active[i] ? eps : 1.0;
  return factor_rows(ws, f, nz, 0, eps);
}

/* x [m + n] from rhs [m + n] (its first m entries 0) with the last factors; through S only
 * x's last n entries (z) are set. Returns 0 or LSIM_BREAKDOWN. */
static int lin_solve(LsimNewton *ws, const LsimFactoredLcp *f) {
  const int m = f->m;
  if (ws->use_schur)
    return lsim_schur_solve(ws->schur, f, ws->sa, ws->sd, ws->rhs + m, ws->x + m);
  return umfpack_di_solve(UMFPACK_A, ws->Ap, ws->Ai, ws->Ax, ws->x, ws->rhs, ws->numeric,
                          ws->control, ws->uinfo) == UMFPACK_OK ? 0 : LSIM_BREAKDOWN;
}

/* The point (3) of the subproblem (2) for the active set ws->active: zn_I = 0 and
 * wr(zn)_A = 0, wr(z) = M z + q + eps (z - c), from zn_A = z_A by a solve and up to four
 * refinement solves with the factors of M_AA + eps I. wn = M zn + q, wrn = wr(zn).
 * Returns 0, or LSIM_BREAKDOWN when a solve fails or gives non-finite values. */
static int newton_point(LsimNewton *ws, const LsimFactoredLcp *f, const double *z,
                        double eps, double target, int *refinements) {
  const int n = f->n, m = f->m;
  const double *c = ws->center;
  for (int i = 0; i < n; ++i) ws->zn[i] = ws->active[i] ? z[i] : 0.0;
  double prev = INFINITY;
  for (int r = 0;; ++r) {
    lsim_factored_w(f, ws->zn, ws->u, ws->wn);
    double ra = 0.0;
    for (int i = 0; i < n; ++i) {
      ws->wrn[i] = ws->wn[i] + eps * (ws->zn[i] - c[i]);
      if (ws->active[i]) ra = fmax(ra, fabs(ws->wrn[i]));
    }
    if (!(ra < INFINITY)) return LSIM_BREAKDOWN;
    /* Worse than before the last correction (round-off of the solve): take it back. */
    if (ra > prev) {
      for (int i = 0; i < n; ++i)
        if (ws->active[i]) ws->zn[i] -= ws->x[m + i];
      lsim_factored_w(f, ws->zn, ws->u, ws->wn);
      for (int i = 0; i < n; ++i) ws->wrn[i] = ws->wn[i] + eps * (ws->zn[i] - c[i]);
      break;
    }
    /* At round-off of the target, or no longer improving much. */
    if (ra <= 1e-3 * target || ra > 0.5 * prev || r == 4) break;
    prev = ra;
    memset(ws->rhs, 0, (size_t)m * sizeof(double));
    for (int i = 0; i < n; ++i) ws->rhs[m + i] = ws->active[i] ? -ws->wrn[i] : 0.0;
    ++*refinements;
    if (lin_solve(ws, f)) return LSIM_BREAKDOWN;
    for (int i = 0; i < n; ++i)
      if (ws->active[i]) ws->zn[i] += ws->x[m + i];
  }
  return 0;
}

/* PGS sweeps from z (warm); z is kept when PGS refuses the problem (a zero diagonal
 * outside a cone: *usable = 0). */
static void pgs_phase(LsimNewton *ws, const LsimFactoredLcp *f, double tol, int sweeps,
                      double *z, int *usable, LsimNewtonInfo *info) {
  if (!*usable || sweeps <= 0) return;
  memcpy(ws->zsave, z, (size_t)f->n * sizeof(double));
  LsimPgsOptions po = lsim_default_pgs_options();
  po.max_sweeps = sweeps;
  po.tol = tol;
  LsimPgsInfo pi;
  memset(&pi, 0, sizeof pi);
  const int st = lsim_pgs_solve_factored(ws->pgs, f, &po, 1, z, &pi);
  info->sweeps += pi.sweeps;
  if (st != LSIM_SOLVED && st != LSIM_MAX_ITERATIONS) {
    memcpy(z, ws->zsave, (size_t)f->n * sizeof(double));
    *usable = 0;
  }
}

/* PGS sweeps from z, whose natural residual is nat, kept only when they lower it (PGS need
 * not converge on a nonsymmetric M; save [n] keeps the point meanwhile). Leaves ws->w = w
 * of the returned z; returns its natural residual. */
static double pgs_if_better(LsimNewton *ws, const LsimFactoredLcp *f, double tol, int sweeps,
                            double nat, double *save, double *z, int *usable,
                            LsimNewtonInfo *info) {
  const int n = f->n;
  const double nat0 = nat;
  memcpy(save, z, (size_t)n * sizeof(double));
  pgs_phase(ws, f, tol, sweeps, z, usable, info);
  lsim_factored_w(f, z, ws->u, ws->w);
  merit(z, ws->w, n, &nat);
  if (!(nat <= nat0)) {
    memcpy(z, save, (size_t)n * sizeof(double));
    lsim_factored_w(f, z, ws->u, ws->w);
    merit(z, ws->w, n, &nat);
  }
  return nat;
}

/* Phase 1: the min-map Newton point (1) from z by proximal refinement with the factors of
 * M_AA + eps I (eps tiny: converges on the range of a singular M_AA), leaving the null
 * space component of z alone; zn_I = 0, wn its w. Returns 0, or LSIM_BREAKDOWN when a
 * solve fails or gives non-finite values. */
static int refined_point(LsimNewton *ws, const LsimFactoredLcp *f, const double *z,
                         double target, int *refinements) {
  const int n = f->n, m = f->m;
  for (int i = 0; i < n; ++i) ws->zn[i] = ws->active[i] ? z[i] : 0.0;
  double prev = INFINITY;
  for (int r = 0; r < 30; ++r) {
    lsim_factored_w(f, ws->zn, ws->u, ws->wn);
    double ra = 0.0;
    for (int i = 0; i < n; ++i)
      if (ws->active[i]) ra = fmax(ra, fabs(ws->wn[i]));
    if (!(ra < INFINITY)) return LSIM_BREAKDOWN;
    /* Stalled (the active system is inconsistent): take back the last update, which went
       mostly into the null space; done at round-off: stop. */
    if (ra > 0.5 * prev) {
      for (int i = 0; i < n; ++i)
        if (ws->active[i]) ws->zn[i] -= ws->x[m + i];
      lsim_factored_w(f, ws->zn, ws->u, ws->wn);
      break;
    }
    if (ra <= 0.01 * target) break;
    prev = ra;
    memset(ws->rhs, 0, (size_t)m * sizeof(double));
    for (int i = 0; i < n; ++i) ws->rhs[m + i] = ws->active[i] ? -ws->wn[i] : 0.0;
    ++*refinements;
    if (lin_solve(ws, f)) return LSIM_BREAKDOWN;
    for (int i = 0; i < n; ++i)
      if (ws->active[i]) ws->zn[i] += ws->x[m + i];
  }
  return 0;
}

/* Phase 1: semismooth Newton on the min-map with an Armijo line search on |min(z, w)|^2
 * (w is affine in z), PGS restarts from the best point when no step decreases it, and
 * the end after ten steps without a tenth off the best residual or max_iter steps. z and
 * ws->w hold the last point, ws->zbest the best; returns LSIM_SOLVED, LSIM_MAX_ITERATIONS
 * or LSIM_OUT_OF_MEMORY. */
static int minmap_phase(LsimNewton *ws, const LsimFactoredLcp *f, int nz, double eps,
                        double target, double tol, int sweeps, int max_iter, int *pgs_usable,
                        double *z, double *best, LsimNewtonInfo *info) {
  const int n = f->n;
  double nat, fz = merit(z, ws->w, n, &nat);
  int stalled = 0, steps = 0;
  while (steps < max_iter) {
    /* Active set from (z, w); one LU; the Newton point by proximal refinement. */
    for (int i = 0; i < n; ++i) ws->active[i] = ws->w[i] < z[i];
    ++steps, ++info->iterations, ++info->factorizations;
    int rc = factor(ws, f, nz, eps);
    if (!rc) rc = refined_point(ws, f, z, target, &info->refinements);
    if (rc == LSIM_OUT_OF_MEMORY) return rc;
    /* Line search along d = zn - z. */
    int accepted = 0;
    for (double t = 1.0; !rc && t >= 1.0 / 64; t *= 0.5) {
      for (int i = 0; i < n; ++i) {
        ws->x[i] = z[i] + t * (ws->zn[i] - z[i]);
        ws->rhs[i] = ws->w[i] + t * (ws->wn[i] - ws->w[i]);
      }
      double nt;
      const double ft = merit(ws->x, ws->rhs, n, &nt);
      if (ft <= (1.0 - 1e-4 * t) * fz) {
        memcpy(z, ws->x, (size_t)n * sizeof(double));
        accepted = 1;
        break;
      }
    }
    if (!accepted) {
      ++info->stalls;
      /* Restart: PGS from the best point. Without PGS there is nothing left to try. */
      if (!*pgs_usable || sweeps <= 0) break;
      memcpy(z, ws->zbest, (size_t)n * sizeof(double));
      pgs_phase(ws, f, tol, sweeps, z, pgs_usable, info);
    }
    /* w afresh from z (no drift from the affine update). */
    lsim_factored_w(f, z, ws->u, ws->w);
    fz = merit(z, ws->w, n, &nat);
    if (nat < 0.9 * *best) stalled = 0;
    else if (++stalled >= 10) break; /* ten steps without a tenth off the best: give up */
    if (nat < *best) *best = nat, memcpy(ws->zbest, z, (size_t)n * sizeof(double));
    if (info->trace && info->trace_len < info->trace_capacity)
      info->trace[info->trace_len++] = nat;
    if (nat <= target) return LSIM_SOLVED;
  }
  return LSIM_MAX_ITERATIONS;
}

/* The augmented matrix of the interior point's Newton system, in triplets' order: row i
 * of the z block is z_i (J_i, C_i) plus w_i on the diagonal (the complementarity row
 * z_i (M dz)_i + w_i dz_i, every entry bounded as z_i w_i -> 0). */
static void ipm_values(const LsimFactoredLcp *f, const double *z, const double *w, double *tx) {
  const int n = f->n, m = f->m;
  int k = 0;
  for (int j = 0; j < m; ++j) tx[k++] = 1.0;
  for (int i = 0; i < n; ++i)
    for (int p = f->J_ptr[i]; p < f->J_ptr[i + 1]; ++p) tx[k++] = z[i] * f->J_val[p];
  for (int i = 0; i < n; ++i)
    for (int p = f->B_ptr[i]; p < f->B_ptr[i + 1]; ++p) tx[k++] = -f->B_val[p];
  for (int i = 0; f->C_ptr && i < n; ++i)
    for (int p = f->C_ptr[i]; p < f->C_ptr[i + 1]; ++p) tx[k++] = z[i] * f->C_val[p];
  for (int i = 0; i < n; ++i) tx[k++] = w[i];
}

/* The largest step in [0, 1] that keeps x + a dx >= 0. */
static double max_step(const double *x, const double *dx, int n) {
  double a = 1.0;
  for (int i = 0; i < n; ++i)
    if (dx[i] < 0.0 && x[i] + a * dx[i] < 0.0) a = -x[i] / dx[i];
  return a;
}

/* One Newton direction of the interior point: dz from the augmented system with the
 * current factors and complementarity target s (z_i dw_i + w_i dz_i = s_i), dw = M dz + r.
 * Returns 0 or LSIM_BREAKDOWN. */
static int ipm_direction(LsimNewton *ws, const LsimFactoredLcp *f, const double *s) {
  const int n = f->n, m = f->m;
  memset(ws->rhs, 0, (size_t)m * sizeof(double));
  for (int i = 0; i < n; ++i) ws->rhs[m + i] = s[i] - ws->iz[i] * ws->ir[i];
  if (lin_solve(ws, f)) return LSIM_BREAKDOWN;
  memcpy(ws->idz, ws->x + m, (size_t)n * sizeof(double));
  lsim_factored_w(f, ws->idz, ws->u, ws->idw);
  for (int i = 0; i < n; ++i) {
    ws->idw[i] += ws->ir[i] - f->q[i];
    if (!isfinite(ws->idz[i]) || !isfinite(ws->idw[i])) return LSIM_BREAKDOWN;
  }
  return 0;
}

/* The interior point phase: Mehrotra's predictor-corrector on w = M z + q, z, w > 0,
 * from ws->zbest (phase 1's best point) shifted into the interior (an infeasible start),
 * at most max_it steps, until the duality measure mu = z'w / n stops halving in IPM_STALL
 * steps (on a degenerate or nonmonotone problem it levels off), falls to round-off, or the
 * boundary blocks its step once mu is below IPM_ROUNDOFF of its start.
 * Each step is one numeric LU (velocity or augmented form) and two solves. The point of
 * smallest natural residual (w from z alone) is kept in ws->center; z gets its crossover
 * guess: z_i where z_i > w_i, else 0 (the active set of the central path's limit, where
 * phase 1 lands in a few steps).
 * Returns 0, LSIM_OUT_OF_MEMORY, or LSIM_BREAKDOWN when no point had a finite natural
 * residual (z is then unchanged). A failed factorization or solve ends the phase with the
 * best point so far. */
static int ipm_phase(LsimNewton *ws, const LsimFactoredLcp *f, int nz, double scale,
                     int max_it, double *z, LsimNewtonInfo *info) {
  const int n = f->n;
  double *iz = ws->iz, *iw = ws->iw, *ir = ws->ir, *dz = ws->idz, *dw = ws->idw;
  double *s = ws->zsave, *wt = ws->wn;
  const double s0 = sqrt(scale);
  /* The start: phase 1's best point and its w, both shifted into the interior by
     IPM_SHIFT sqrt(scale) (measured on pile_100: 122 of 294 steps solved against 114 from
     z = w = sqrt(scale) e, the settled steps' median 538 against 554 ms). */
  const double shift = IPM_SHIFT * s0;
  lsim_factored_w(f, ws->zbest, ws->u, wt);
  for (int i = 0; i < n; ++i)
    iz[i] = fmax(ws->zbest[i], 0.0) + shift, iw[i] = fmax(wt[i], 0.0) + shift;
  double mu_hist[IPM_STALL], best = INFINITY, mu0 = 0.0;
  int steps = 0;
  for (int it = 0; it < max_it; ++it) {
    /* Where the point stands: w from z alone, the natural residual, r, mu. */
    lsim_factored_w(f, iz, ws->u, wt);
    double nat = 0.0, rmax = 0.0, mu = 0.0;
    for (int i = 0; i < n; ++i) {
      nat = fmax(nat, fabs(fmin(iz[i], wt[i])));
      ir[i] = wt[i] - iw[i];
      rmax = fmax(rmax, fabs(ir[i]));
      mu += iz[i] * iw[i];
    }
    mu /= n;
    if (it == 0) mu0 = mu; /* the start's, for the round-off test below */
    if (nat < best) best = nat, memcpy(ws->center, iz, (size_t)n * sizeof(double));
    if (mu <= 1e-16 * scale && rmax <= 1e-14 * scale) break;
    if (it >= IPM_STALL && mu > 0.5 * mu_hist[it % IPM_STALL]) break;
    mu_hist[it % IPM_STALL] = mu;
    /* The factors at (z, w). */
    memcpy(ws->sa, iz, (size_t)n * sizeof(double));
    memcpy(ws->sd, iw, (size_t)n * sizeof(double));
    const int rc = factor_rows(ws, f, nz, 1, 0.0);
    ++info->factorizations;
    if (rc == LSIM_OUT_OF_MEMORY) return rc;
    if (rc) break;
    /* Predictor (affine scaling, s = -z w) and the centering it suggests. */
    for (int i = 0; i < n; ++i) s[i] = -iz[i] * iw[i];
    if (ipm_direction(ws, f, s)) break;
    double a = fmin(max_step(iz, dz, n), max_step(iw, dw, n)), mu_aff = 0.0;
    for (int i = 0; i < n; ++i) mu_aff += (iz[i] + a * dz[i]) * (iw[i] + a * dw[i]);
    mu_aff /= n;
    const double ratio = fmin(fmax(mu_aff / mu, 0.0), 1.0);
    const double sigma = ratio * ratio * ratio;
    /* Corrector: centering and the predictor's second-order term. */
    for (int i = 0; i < n; ++i) s[i] = sigma * mu - iz[i] * iw[i] - dz[i] * dw[i];
    if (ipm_direction(ws, f, s)) break;
    info->refinements += 2;
    ++steps;
    /* A step short of the boundary; none at round-off ends the phase. */
    a = 0.995 * fmin(max_step(iz, dz, n), max_step(iw, dw, n));
    if (a < IPM_BLOCKED && mu < IPM_ROUNDOFF * mu0) break;
    for (int i = 0; i < n; ++i) iz[i] += a * dz[i], iw[i] += a * dw[i];
  }
  info->ipm_iterations = steps;
  if (!(best < INFINITY)) return LSIM_BREAKDOWN;
  /* The crossover guess from the best point. */
  lsim_factored_w(f, ws->center, ws->u, wt);
  for (int i = 0; i < n; ++i) z[i] = ws->center[i] > wt[i] ? ws->center[i] : 0.0;
  return 0;
}

/* Lemke on the dense M formed from f, its basis guessed from the active set of z (z_i > w_i,
 * w = ws->w of z); z gets Lemke's answer when it is better. Returns Lemke's status. */
/* A fallback that did not reach the tolerance still returns its point when that is closer
 * than z (natural residual): Lemke stops on a tolerance below what rounding allows (on
 * lcp_tobenna at tol 1e-13 it ended at 1.9e-12 while newton's best point, returned, was
 * z = 0 at 1). ws->w is left as the w of neither point. */
static void keep_closer(LsimNewton *ws, const LsimFactoredLcp *f, double *z) {
  const int n = f->n;
  double nat_z, nat_n;
  for (int i = 0; i < n; ++i)
    if (!isfinite(ws->zn[i]) || ws->zn[i] < 0.0) return;
  lsim_factored_w(f, z, ws->u, ws->w);
  merit(z, ws->w, n, &nat_z);
  lsim_factored_w(f, ws->zn, ws->u, ws->w);
  merit(ws->zn, ws->w, n, &nat_n);
  if (nat_n < nat_z) memcpy(z, ws->zn, (size_t)n * sizeof(double));
}

static int lemke_fallback(LsimNewton *ws, const LsimFactoredLcp *f, double tol, double *z,
                          LsimNewtonInfo *info) {
  const int n = f->n, m = f->m, nnzj = f->J_ptr[n];
  const size_t nn = (size_t)n * (size_t)n;
  if (!ws->lemke && !(ws->lemke = lsim_lemke_create())) return LSIM_OUT_OF_MEMORY;
  if (nn > ws->cap_dense) {
    double *M = realloc(ws->dense.M, nn * sizeof(double));
    if (!M) return LSIM_OUT_OF_MEMORY;
    ws->dense.M = M;
    double *q = realloc(ws->dense.q, (size_t)n * sizeof(double));
    if (!q) return LSIM_OUT_OF_MEMORY;
    ws->dense.q = q;
    unsigned char *g = realloc(ws->guess, (size_t)n);
    if (!g) return LSIM_OUT_OF_MEMORY;
    ws->guess = g;
    ws->cap_dense = nn;
  }
  if (lsim_grow((void **)&ws->jt_ptr, &ws->cap_jt_m, m + 1, sizeof(int))) return LSIM_OUT_OF_MEMORY;
  int cap = ws->cap_jt_nz;
  if (lsim_grow((void **)&ws->jt_idx, &cap, nnzj + 1, sizeof(int)) ||
      lsim_grow((void **)&ws->jt_val, &ws->cap_jt_nz, nnzj + 1, sizeof(double)))
    return LSIM_OUT_OF_MEMORY;
  ws->dense.n = n;
  int st = lsim_factored_to_dense(f, &ws->dense, ws->jt_ptr, ws->jt_idx, ws->jt_val);
  if (st) return st;
  for (int i = 0; i < n; ++i) ws->guess[i] = z[i] > ws->w[i];
  LsimLemkeOptions lo = lsim_default_lemke_options();
  lo.tol = tol;
  LsimLemkeInfo li;
  memset(&li, 0, sizeof li);
  memcpy(ws->zn, z, (size_t)n * sizeof(double));
  st = lsim_lemke_solve(ws->lemke, &ws->dense, &lo, ws->guess, ws->zn, &li);
  info->fallback = 1;
  info->lemke_pivots = li.pivots;
  if (st == LSIM_SOLVED) {
    memcpy(z, ws->zn, (size_t)n * sizeof(double));
    return st;
  }
  keep_closer(ws, f, z);
  /* Ended on a ray or a breakdown (not at the pivot limit): the LU run, as the solver
     front runs it after dense Lemke (solver.c): the same path rules and guess with the
     basis as a sparse LU on f, whose ties the explicit inverse's rounding had decided
     wrongly (a dominoes step, n = 318: dense Lemke from newton's point failed, this run
     solves it). Its answer is kept when it solves, else when it is closer. */
  if (st != LSIM_SECONDARY_RAY && st != LSIM_BREAKDOWN) return st;
  if (!ws->lemke_sparse && !(ws->lemke_sparse = lsim_lemke_sparse_create()))
    return LSIM_OUT_OF_MEMORY;
  memcpy(ws->zn, z, (size_t)n * sizeof(double)); /* the closer point; the same guess */
  memset(&li, 0, sizeof li);
  const int lu = lsim_lemke_sparse_solve(ws->lemke_sparse, f, &lo, ws->guess, ws->zn, &li);
  info->fallback = 3;
  info->lemke_pivots += li.pivots;
  if (lu == LSIM_SOLVED) {
    memcpy(z, ws->zn, (size_t)n * sizeof(double));
    return lu;
  }
  keep_closer(ws, f, z);
  return st;
}

/* Sparse Lemke on f itself (no dense M), guessed from the active set of z as above. */
static int lemke_sparse_fallback(LsimNewton *ws, const LsimFactoredLcp *f, double tol,
                                 double *z, LsimNewtonInfo *info) {
  const int n = f->n;
  if (!ws->lemke_sparse && !(ws->lemke_sparse = lsim_lemke_sparse_create()))
    return LSIM_OUT_OF_MEMORY;
  if ((size_t)n > ws->cap_guess) {
    unsigned char *g = realloc(ws->sguess, (size_t)n);
    if (!g) return LSIM_OUT_OF_MEMORY;
    ws->sguess = g;
    ws->cap_guess = (size_t)n;
  }
  for (int i = 0; i < n; ++i) ws->sguess[i] = z[i] > ws->w[i];
  LsimLemkeOptions lo = lsim_default_lemke_options();
  lo.tol = tol;
  LsimLemkeInfo li;
  memset(&li, 0, sizeof li);
  memcpy(ws->zn, z, (size_t)n * sizeof(double));
  const int st = lsim_lemke_sparse_solve(ws->lemke_sparse, f, &lo, ws->sguess, ws->zn, &li);
  info->fallback = 2;
  info->lemke_pivots = li.pivots;
  if (st == LSIM_SOLVED) memcpy(z, ws->zn, (size_t)n * sizeof(double));
  else keep_closer(ws, f, z);
  return st;
}

/* Sparse Lemke on f from the caller's guess ws->start, z (the best point so far) the point
 * it must beat; z gets its answer when it solves, else when it is closer. A dominoes step
 * (h = 0.008 s, step 120, n = 372): Lemke from newton's best point's active set, dense
 * and its LU run, failed (2.2e-3 relative), and so did both cold (breakdown, secondary
 * ray); from the previous step's impulses sparse Lemke solves it in 245 pivots. Returns
 * its status. */
static int start_fallback(LsimNewton *ws, const LsimFactoredLcp *f, double tol, double *z,
                          LsimNewtonInfo *info) {
  const int n = f->n;
  if (!ws->lemke_sparse && !(ws->lemke_sparse = lsim_lemke_sparse_create()))
    return LSIM_OUT_OF_MEMORY;
  LsimLemkeOptions lo = lsim_default_lemke_options();
  lo.tol = tol;
  LsimLemkeInfo li;
  memset(&li, 0, sizeof li);
  memcpy(ws->zn, z, (size_t)n * sizeof(double));
  /* The path from the guess alone: the cold runs, dense and sparse, have failed already. */
  lsim_lemke_sparse_set_warm_only(ws->lemke_sparse, 1);
  const int st = lsim_lemke_sparse_solve(ws->lemke_sparse, f, &lo, ws->start, ws->zn, &li);
  lsim_lemke_sparse_set_warm_only(ws->lemke_sparse, 0);
  info->fallback = 4;
  info->lemke_pivots += li.pivots;
  if (st == LSIM_SOLVED) memcpy(z, ws->zn, (size_t)n * sizeof(double));
  else keep_closer(ws, f, z);
  return st;
}

int lsim_newton_solve_factored(LsimNewton *ws, const LsimFactoredLcp *f,
                               const LsimNewtonOptions *opt, int warm, double *z,
                               LsimNewtonInfo *info) {
  LsimNewtonInfo local;
  if (!info) memset(&local, 0, sizeof local), info = &local;
  info->iterations = info->sweeps = info->restarts = info->refinements = 0;
  info->factorizations = info->single_pivots = 0;
  info->lemke_pivots = info->fallback = info->ipm_iterations = 0;
  info->stalls = info->singular = 0;
  for (int k = 0; k < 4; ++k) info->stage_residual[k] = NAN;
  ws->singular = 0;
  info->trace_len = 0;
  info->residual = INFINITY;
  /* Every row (factored.h: a problem whose negated directions are implicit). */
  if (f && f->full && !(f = lsim_factored_full(f))) return LSIM_OUT_OF_MEMORY;
  const LsimNewtonOptions o = opt ? *opt : lsim_default_newton_options();
  if (lsim_factored_check(f) || !(o.tol >= 0.0) || o.max_iter < 0 || !(o.reg >= 0.0) ||
      o.dense_limit < -1 || o.sparse_limit < -1 || o.ipm_iter < -1 || o.velocity_form < -1 ||
      o.velocity_form > 0)
    return info->status = LSIM_INVALID_INPUT;
  const int n = f->n, m = f->m;
  const int max_iter = o.max_iter ? o.max_iter : 100;
  const int sweeps = o.pgs_sweeps < 0 ? 20 : o.pgs_sweeps;
  const int nz = m + f->J_ptr[n] + f->B_ptr[n] + (f->C_ptr ? f->C_ptr[n] : 0) + n;
  if (n == 0) {
    info->residual = 0.0;
    return info->status = LSIM_SOLVED;
  }
  if (reserve(ws, n, m, nz)) return info->status = LSIM_OUT_OF_MEMORY;

  /* Start: the guess (clamped) or 0; the scale and the target. */
  double scale = 0.0;
  for (int i = 0; i < n; ++i) scale = fmax(scale, fabs(f->q[i]));
  if (scale == 0.0) scale = 1.0;
  const double target = o.tol * scale;
  for (int i = 0; i < n; ++i) z[i] = warm && z[i] > 0.0 && z[i] < INFINITY ? z[i] : 0.0;
  int have_start = 0; /* the caller's guess as a basis, for the last fallback */
  for (int i = 0; i < n; ++i) have_start |= ws->start[i] = z[i] > 0.0;
  int pgs_usable = 1;
  lsim_factored_w(f, z, ws->u, ws->w);
  double nat;
  merit(z, ws->w, n, &nat);
  if (nat > target) {
    /* PGS from the start, kept when it helps. */
    nat = pgs_if_better(ws, f, o.tol, sweeps, nat, ws->zbest, z, &pgs_usable, info);
  }
  memcpy(ws->zbest, z, (size_t)n * sizeof(double));
  double best = nat;
  info->stage_residual[0] = nat;

  /* Whether the dense Lemke fallback (the reference) follows a failure: then neither the
     interior point nor the velocity form runs, as before them. */
  const int limit = o.dense_limit ? o.dense_limit : DENSE_LIMIT;
  const int dense_fallback = o.tol > 0.0 && n <= limit;
  /* The pattern's symbolic analysis, once per problem, and the velocity form's. */
  int status = nat <= target ? LSIM_SOLVED : LSIM_MAX_ITERATIONS;
  if (status != LSIM_SOLVED) {
    free_factors(ws);
    triplets(ws, f, ws->Ti, ws->Tj, NULL, 0.0);
    const int na = m + n;
    if (umfpack_di_triplet_to_col(na, na, nz, ws->Ti, ws->Tj, NULL, ws->Ap, ws->Ai, NULL,
                                  ws->Map) != UMFPACK_OK)
      return info->status = LSIM_OUT_OF_MEMORY;
    const int rc = umfpack_di_symbolic(na, na, ws->Ap, ws->Ai, NULL, &ws->symbolic,
                                       ws->control, ws->uinfo);
    if (rc != UMFPACK_OK)
      status = rc == UMFPACK_ERROR_out_of_memory ? LSIM_OUT_OF_MEMORY : LSIM_BREAKDOWN;
    /* The systems on the velocities when C is made of small blocks (cones). */
    ws->schur_ok = 0;
    if (!dense_fallback && o.velocity_form >= 0) {
      if (!ws->schur && !(ws->schur = lsim_schur_create())) status = LSIM_OUT_OF_MEMORY;
      const int rs = ws->schur ? lsim_schur_analyse(ws->schur, f) : LSIM_OUT_OF_MEMORY;
      if (rs == LSIM_OUT_OF_MEMORY) status = LSIM_OUT_OF_MEMORY;
      ws->schur_ok = rs == 0;
    }
  }
  memset(ws->u, 0, (size_t)(m + 1) * sizeof(double));
  const double dmax = max_diagonal(f, ws->u);
  double eps = (o.reg > 0.0 ? o.reg : 1e-3) * fmax(dmax, 1e-300);
  const double eps_min = 1e-12 * fmax(dmax, 1e-300);

  /* Phase 1: min-map Newton from the start (fast where the active systems are
     consistent; with the interior point to follow, PHASE1_FIRST or PHASE1_LONG steps at
     most); phase 2 from its best point. */
  /* The interior point when no dense Lemke fallback (the reference) follows. */
  const int ipm_iter = dense_fallback ? -1 : o.ipm_iter ? o.ipm_iter : IPM_ITER;
  const int phase1_first =
      ws->schur_ok && lsim_schur_narrows(ws->schur) ? PHASE1_LONG : PHASE1_FIRST;
  if (status == LSIM_MAX_ITERATIONS) {
    status = minmap_phase(ws, f, nz, 1e-9 * fmax(dmax, 1e-300), target, o.tol, sweeps,
                          ipm_iter > 0 && phase1_first < max_iter / 2 ? phase1_first : max_iter / 2,
                          &pgs_usable, z, &best, info);
    info->stage_residual[1] = best;
    if (status == LSIM_MAX_ITERATIONS) {
      memcpy(z, ws->zbest, (size_t)n * sizeof(double));
      lsim_factored_w(f, z, ws->u, ws->w);
    }
  }
  /* Phase 1 failed: the interior point from the standard start, then phase 1 again from
     its crossover guess (PGS first, as at the start), with a fresh step budget. */
  int offset = 0;
  if (status == LSIM_MAX_ITERATIONS && ipm_iter > 0) {
    const int rc = ipm_phase(ws, f, nz, scale, ipm_iter, z, info);
    if (rc == LSIM_OUT_OF_MEMORY) status = rc;
    if (!rc) {
      offset = info->iterations;
      lsim_factored_w(f, z, ws->u, ws->w);
      merit(z, ws->w, n, &nat);
      nat = pgs_if_better(ws, f, o.tol, sweeps, nat, ws->zn, z, &pgs_usable, info);
      if (nat < best) best = nat, memcpy(ws->zbest, z, (size_t)n * sizeof(double));
      status = nat <= target ? LSIM_SOLVED
                             : minmap_phase(ws, f, nz, 1e-9 * fmax(dmax, 1e-300), target, o.tol,
                                            sweeps, max_iter / 2, &pgs_usable, z, &best, info);
      info->stage_residual[2] = best;
      if (status == LSIM_MAX_ITERATIONS) {
        memcpy(z, ws->zbest, (size_t)n * sizeof(double));
        lsim_factored_w(f, z, ws->u, ws->w);
      }
    }
  }
  /* Phase 2: proximal point on the LCP (2), each subproblem by block principal pivoting;
     PHASE2_SHORT steps only when the Lemke fallback follows. */
  const int sparse = o.tol > 0.0 && n > limit && (o.sparse_limit < 0 || n <= o.sparse_limit);
  const int fallback = dense_fallback || sparse;
  const int phase2_end = fallback && info->iterations + PHASE2_SHORT < max_iter
                             ? info->iterations + PHASE2_SHORT
                             : max_iter + offset;
  memcpy(ws->center, z, (size_t)n * sizeof(double));
  for (int i = 0; i < n; ++i) ws->active[i] = ws->w[i] < z[i];
  const double wtol = 1e-3 * target, ztol = wtol / fmax(dmax, 1e-300);
  int changed = 1, best_inf = n + 1, best_last = 0, singles = -1, stalled = 0, raises = 0;
  const int phase2_start = info->iterations;
  double last_outer = INFINITY;
  while (status == LSIM_MAX_ITERATIONS && info->iterations < phase2_end) {
    ++info->iterations;
    int rc = 0;
    if (changed) {
      rc = factor(ws, f, nz, eps);
      ++info->factorizations;
      changed = 0;
    }
    if (!rc) rc = newton_point(ws, f, z, eps, target, &info->refinements);
    if (rc) {
      status = rc == LSIM_OUT_OF_MEMORY ? rc : LSIM_MAX_ITERATIONS;
      break;
    }
    /* The point itself may already solve the original LCP. */
    double nz_nat;
    merit(ws->zn, ws->wn, n, &nz_nat);
    if (nz_nat < best) {
      best = nz_nat;
      memcpy(ws->zbest, ws->zn, (size_t)n * sizeof(double));
      if (nz_nat <= target) {
        memcpy(z, ws->zn, (size_t)n * sizeof(double));
        status = LSIM_SOLVED;
        break;
      }
    }
    /* Infeasible rows of the subproblem: z < 0 on A, wr < 0 on I. */
    int inf = 0, last = -1;
    for (int i = 0; i < n; ++i)
      if (ws->active[i] ? ws->zn[i] < -ztol : ws->wrn[i] < -wtol) ++inf, last = i;
    if (inf == 0) {
      /* The subproblem is solved: z = max(zn, 0), the next center (same A: the factors
         stay). */
      for (int i = 0; i < n; ++i) z[i] = fmax(ws->zn[i], 0.0);
      lsim_factored_w(f, z, ws->u, ws->w);
      merit(z, ws->w, n, &nat);
      /* Two proximal steps in a row without halving the residual (an active system
         inconsistent by O(eps)): a hundred times smaller eps, new factors; at the
         smallest eps, ten such steps end the solve. */
      if (nat < 0.5 * last_outer) stalled = 0;
      else if (++stalled >= 2 && eps > eps_min) {
        eps = fmax(0.01 * eps, eps_min);
        changed = 1, stalled = 0;
        ++info->restarts;
      } else if (stalled >= 10) break;
      last_outer = nat;
      if (nat < best) best = nat, memcpy(ws->zbest, z, (size_t)n * sizeof(double));
      if (info->trace && info->trace_len < info->trace_capacity)
        info->trace[info->trace_len++] = nat;
      if (nat <= target) {
        status = LSIM_SOLVED;
        break;
      }
      memcpy(ws->center, z, (size_t)n * sizeof(double));
      best_inf = n + 1, singles = -1;
      continue;
    }
    /* Block exchange while the count of infeasible rows drops; when it does not, back to
       the active set of the fewest and single exchanges of the last infeasible row
       (Murty's rule, finite for P-matrices) until the count drops below that. */
    if (inf < best_inf) {
      best_inf = inf, best_last = last, singles = -1;
      memcpy(ws->abest, ws->active, (size_t)n);
      for (int i = 0; i < n; ++i)
        if (ws->active[i] ? ws->zn[i] < -ztol : ws->wrn[i] < -wtol) ws->active[i] ^= 1;
    } else if (singles < 0) {
      singles = 0;
      memcpy(ws->active, ws->abest, (size_t)n);
      ws->active[best_last] ^= 1;
      ++info->single_pivots;
    } else if (++singles <= BPP_SINGLE) {
      ws->active[last] ^= 1;
      ++info->single_pivots;
    } else {
      /* The single exchanges made no headway either: from the best point again, with a
         ten times larger eps (a better conditioned subproblem), at most EPS_RAISES times. */
      if (++raises > EPS_RAISES) break;
      eps = fmin(10.0 * eps, dmax);
      memcpy(z, ws->zbest, (size_t)n * sizeof(double));
      memcpy(ws->center, z, (size_t)n * sizeof(double));
      lsim_factored_w(f, z, ws->u, ws->w);
      for (int i = 0; i < n; ++i) ws->active[i] = ws->w[i] < z[i];
      best_inf = n + 1, singles = -1, changed = 1, stalled = 0, last_outer = INFINITY;
      continue;
    }
    memcpy(z, ws->zn, (size_t)n * sizeof(double));
    for (int i = 0; i < n; ++i) z[i] = fmax(z[i], 0.0);
    changed = 1;
  }
  /* Return the best point; its residual from z alone. When both phases failed, Lemke on
     the dense M from the best point's active set, if small enough. */
  if (info->iterations > phase2_start) info->stage_residual[3] = best;
  info->singular = ws->singular;
  /* A solution on the natural residual must be one in w's units too
     (lsim_factored_unit_residual, to LSIM_UNIT_MARGIN times the target): else not solved,
     and the fallbacks below take over (Lemke). */
  if (status == LSIM_SOLVED) {
    lsim_factored_w(f, z, ws->u, ws->w);
    if (!(lsim_factored_unit_residual(f, z, ws->w, NULL, ws->wn, ws->u) <= LSIM_UNIT_MARGIN * target)) {
      status = LSIM_MAX_ITERATIONS;
      memcpy(ws->zbest, z, (size_t)n * sizeof(double));
    }
  }
  if (status != LSIM_SOLVED) {
    memcpy(z, ws->zbest, (size_t)n * sizeof(double));
    if (status != LSIM_OUT_OF_MEMORY && fallback) {
      lsim_factored_w(f, z, ws->u, ws->w);
      int st = sparse ? lemke_sparse_fallback(ws, f, o.tol, z, info)
                      : lemke_fallback(ws, f, o.tol, z, info);
      /* Below dense_limit, when Lemke from the best point's active set failed: sparse
         Lemke from the caller's guess {i : z_i > 0} (the previous step's impulses by
         contact id in a run), a path that can succeed where the other failed. */
      if (st != LSIM_SOLVED && st != LSIM_OUT_OF_MEMORY && !sparse && have_start)
        st = start_fallback(ws, f, o.tol, z, info);
      if (st == LSIM_SOLVED || st == LSIM_OUT_OF_MEMORY) status = st;
    }
  }
  for (int i = 0; i < n; ++i)
    if (!isfinite(z[i])) z[i] = 0.0, status = status ? status : LSIM_BREAKDOWN;
  lsim_factored_w(f, z, ws->u, ws->w);
  merit(z, ws->w, n, &info->residual);
  if (status == LSIM_SOLVED && !(info->residual <= target)) status = LSIM_MAX_ITERATIONS;
  if (status == LSIM_SOLVED &&
      !(lsim_factored_unit_residual(f, z, ws->w, NULL, ws->wn, ws->u) <= LSIM_UNIT_MARGIN * target))
    status = LSIM_MAX_ITERATIONS;
  return info->status = status;
}
