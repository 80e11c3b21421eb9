/* lemke_sparse.c: Lemke's complementary pivoting method (lemke.c) on the factored LCP
 * M = J B + C (factored.h), with the basis kept as a sparse LU factorization.
 *
 * THE METHOD
 * Exactly lemke.c's (read its header): the augmented system I w - M z - d z0 = q, cold
 * start with d = e, warm start from a guessed complementary basis with d = B e, minimum
 * ratio test with sound pivots first, lexicographic ties on the rows of [x_B, B^{-1}],
 * the terminal test while z0 is basic, cycle detection by a Zobrist hash of the basis,
 * three cold runs (plain, ties by pivot, no sound preference), final acceptance on the
 * true natural residual and verification against the caller's point. The tolerances are
 * lemke.c's. Only the linear algebra differs: the path is lemke_driver.c's, shared with
 * lemke.c, and this file is the basis representation it runs on (lemke_driver.h), with
 * its own settings: REFACTOR pivots between refactorizations, restored at every cold run
 * and halved by drift down to 10 (lemke.c: max(100, n), down to 20, kept across runs); the
 * first ratio test's tie bounds computed lazily (each a transposed solve); the retry of
 * the basis {i : z_i > 0} (lsim_lemke_sparse_set_retry_positive); a ratio-test tie that the
 * lexicographic rule decides by less than 1e-8 of the rows on an updated basis is decided
 * again after a refactorization (refactor_close in lemke_driver.h: on chain_20's degenerate
 * steps two components equal in exact arithmetic came out 5e-11 apart after 66 updates,
 * and the path took the other row to a secondary ray).
 *
 * LINEAR ALGEBRA
 * Columns of M are never stored: column j is J B(:,j) + C(:,j), formed on demand from a
 * column-wise copy of J (and of C) built once per solve; it has a few dozen entries on
 * contact problems. The basis B_0 (columns e_i for basic w_i, -M(:,j) for basic z_j, -d
 * for z0) is factored by UMFPACK (its z columns formed once a solve and kept for the later
 * refactorizations, rows sorted in one pass where they come ascending); the k pivots after it are kept in product form,
 * B_k = B_0 E_1 ... E_k, E_t the identity with column r_t replaced by the entering column
 * c_t = B_{t-1}^{-1} a (entries below the pivot tolerance are dropped, as lemke.c drops
 * them before its rank-one update; stored sparse, or as n contiguous values when more than
 * DENSE_ETA n remain: on a settled pile_100 every eta is 99-100 % full, B^{-1} being dense
 * where the contacts are coupled). Then
 *   FTRAN  c = B_k^{-1} a:     UMFPACK solve with B_0, then E_1^{-1}, ..., E_k^{-1}
 *                              (runs of up to 8 dense etas in one pass over c: their
 *                              pivot rows first, then every entry takes the run's
 *                              etas in order, the same bits as one eta at a time);
 *   BTRAN  row i of B_k^{-1}:  e_i^T E_k^{-1} ... E_1^{-1} (only component r_t changes at
 *                              each step, so the vector is zero outside i and the pivot
 *                              rows, and a dense eta's dot product runs over those alone),
 *                              then an UMFPACK solve with B_0^T.
 * The ratio test needs c in full (one FTRAN per pivot). The lexicographic rule scans the
 * columns of B^{-1} once for all the tied rows (lex_min in lemke_driver.c): the column of a
 * basic w_k is a unit vector (no solve), any other one FTRAN of e_k (inv_column) shared by
 * every tied row; only ties that the scan leaves unsure, or that outlast as many column
 * solves as rows, compare rows of B^{-1} (one BTRAN each, cached for the current basis). A
 * tie of a thousand identical contacts on falling pile_1000 cost a thousand BTRANs and now
 * costs none or a few FTRANs (steps 8-15: 10 607 BTRANs for 719 pivots -> 9 BTRANs and 6
 * FTRANs, the same pivots). The rounding bounds of the tie test (a BTRAN each) are
 * computed only when the cheap part of the test does not decide, and then first from an
 * upper bound on |B^{-1}_i| |q| carried through the exchanges (carry_bounds in
 * lemke_driver.h: row r of the new inverse is row r / c_r, row i is row i - c_i times that,
 * so the bounds follow by the triangle inequality; exact where a row was solved, unknown
 * after a guessed basis, and updated at an exchange on the finite ones alone, a
 * non-finite leaving row's bound making every bound unknown): a row is solved only when
 * that bound does not rule the tie out,
 * which leaves every decision as it was. On settled pile_100 steps 105 and 113-115 the
 * bounds took 3482-8111 BTRANs for 148-1001 pivots; now 746-1246 (docs/solvers.md).
 * A bound that must be solved for is summed from a transposed solve on the factors read
 * out, skipping zeros, without keeping the row (row_sum; bound_sums): a third of
 * UMFPACK's solve on pile_1000, where thousands of rows near zero need one at the end of a
 * path; and a ratio test that z0's tie or the terminal test decides alone examines no
 * other row (shortcut_ties in lemke_driver.c). Both keep every decision and bit measured. B_0 is
 * refactored every REFACTOR = 100 pivots (halved, down to 10, while the updated x_B drifts
 * from the fresh one), on a weak pivot, and when a column comes out non-finite, as in
 * lemke.c. UMFPACK's iterative refinement is off (it tripled the cost of a solve), and its
 * solves run in the workspace's own Wi / W (umfpack_di_wsolve: no malloc per solve).
 * lsim_lemke_sparse_set_own_solve (off by default) solves with L, U, P, Q and R read out
 * after each factorization instead, by columns skipping zeros: 21 % fewer instructions
 * on settled pile_100, other bits, and there longer paths on the longest steps
 * (docs/solvers.md, "B_0's solves").
 * lsim_lemke_sparse_set_ft (off by default; LSIM_LU_SOLVE=ft) keeps those factors under
 * Forrest-Tomlin updates instead of the eta file (FORREST-TOMLIN UPDATE below): spikes of
 * about 100 entries where the etas have n, but each entry an indexed scatter where the
 * dense etas stream in AVX2 runs; on settled pile_100 7.7 % more instructions than the
 * default, on falling pile_1000 (n 8922-12 600) 21-30 % less CPU (docs/solvers.md).
 * lsim_lemke_sparse_set_klu (off by default) factors and solves B_0 with KLU instead
 * (BTF, COLAMD, partial pivoting): no BLAS call, so its bits depend on no BLAS kernel, but
 * on settled pile_100 its solves cost more than UMFPACK's (no transposed solve on the
 * factors read out, L reached in full): 1.40 against 1.00 G instructions on step 110
 * (docs/solvers.md, "KLU for B_0").
 * Every 50 pivots halves FTRAN's eta work on falling pile_1000 (nnz(L + U) about 10 n,
 * every eta dense: whole process 24.3 against 26.0 s CPU on steps 0-29, side by side,
 * same pivots) but made settled pile_100 10-30 % slower (its L + U is 19 n): kept at 100
 * (docs/solvers.md). Every 200 (lsim_lemke_sparse_set_refactor, LSIM_LU_REFACTOR) took
 * 4.5 % fewer instructions on settled pile_100 steps 0-75 with the same pivots there, and
 * moved the long paths of steps 110-119: a setting for comparisons.
 * Refactoring more often was measured and dropped: every 25 pivots, or once the etas
 * pass nnz(L + U), lost 2 of the 114 steps of pile_10 that dense Lemke solves; once they
 * pass 3 nnz(L + U), one settled pile_100 step of 59 (a cold run to the pivot limit),
 * for no clear gain in time (median 114 against 111 ms CPU). The path is sensitive to
 * rounding at degenerate vertices.
 *
 * WARM START
 * As lemke.c's, plus a repair: a guessed basis that UMFPACK finds singular (redundant
 * contacts, e.g. z > 0 of a previous step mapped onto this step's contacts) loses the
 * guessed z_j on its zero pivots (w_j basic instead: still complementary) and is factored
 * again (warm). Without it the guess was refused on every settled pile_100 step.
 * With lsim_lemke_sparse_set_cover_previous the path from the guess covers with d = B x',
 * x' > 0 the caller's point in that basis (lemke_driver.c, cover_from_start) instead of
 * B e (and the retry from {z > 0} likewise, then with B e): on settled pile_100 steps
 * 61-119 22 355 -> 20 403 pivots, step 114 without its secondary ray (docs/solvers.md);
 * off by default.
 *
 * DENSE FALLBACK
 * The sparse runs' path depends on the BLAS kernel UMFPACK calls (OpenBLAS picks it by
 * CPU): on degenerate paths through badly conditioned bases (chain_20 step 128: B^{-1} to
 * 3.5e5) ties and tie sets are decided at rounding level, and the same problem is solved
 * under one kernel and ends on rays in all three runs under another (docs/solvers.md).
 * So when the sparse runs end on a ray or a breakdown (not the pivot limit, nor warm
 * paths alone) and n <= DENSE_MAX, lemke.c's cold runs follow on M formed densely: its
 * bits depend on no BLAS kernel. Their pivots count as the solve's.
 *
 * FAILURE MODES
 * lemke.c's: LSIM_SECONDARY_RAY, LSIM_MAX_ITERATIONS, LSIM_BREAKDOWN (singular basis:
 * UMFPACK reports a singular matrix or an estimated reciprocal condition below 1e-15,
 * non-finite values, cycling, a final residual above tolerance), LSIM_INVALID_INPUT,
 * LSIM_OUT_OF_MEMORY. A failed result no better than the caller's point is rejected.
 *
 * REFERENCES
 *  C. E. Lemke, Management Science 11 (1965) 681-689.
 *  R. W. Cottle, J.-S. Pang, R. E. Stone, The Linear Complementarity Problem, 1992, 4.4, 4.9.
 *  R. J. Vanderbei, Linear Programming, ch. 8 (the product form / eta file).
 *  T. A. Davis, Algorithm 832: UMFPACK, ACM TOMS 30 (2004) 196-199.
 */
#include "lemke_sparse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <umfpack.h>
#include <klu.h>

#include "blas.h"
#include "lemke_driver.h"
#include "quality.h"

#define RCOND_MIN 1e-15 /* UMFPACK's estimated reciprocal condition below this: singular */
#define REFACTOR 100    /* pivots between refactorizations (eta file length) */
#define REFACTOR_MAX 100000 /* lsim_lemke_sparse_set_refactor's largest interval */
#define NCACHE 4        /* rows of B^{-1} cached for the current basis */
#define OWN_SOLVE 0      /* B_0's solves on the factors read out (1) or UMFPACK's (0) */
#define DENSE_ETA 0.25  /* an eta with more than this fraction of n nonzeros is stored dense */
#define DENSE_MAX 2048  /* the dense fallback's largest n (M in n^2 doubles: 32 MB) */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define ETA_AVX2 1 /* FTRAN's eta runs have an AVX2 path (eta_apply_avx2) */
#else
#define ETA_AVX2 0
#endif
_Static_assert(NCACHE >= 2, "the lexicographic test holds two rows of B^{-1} at once");

struct LsimLemkeSparse {
  LsimLemkeDriver drv;    /* the path's state: x_B, c, d, the maps, the guess, the basis */
  const LsimFactoredLcp *f; /* the problem of the current solve */
  int cap, capm;
  /* Column copies of J (m columns) and C (n columns). */
  int *jt_ptr, *jt_idx, *ct_ptr, *ct_idx;
  double *jt_val, *ct_val;
  size_t cap_jt, cap_ct;
  int has_c;
  /* Column of M scratch: dense accumulator, touched list, packed result. */
  double *acc;
  int *touched, *mark, mstamp;
  /* Basis B_0 in CSC and its UMFPACK factors. */
  int *Ap, *Ai;
  double *Ax;
  size_t cap_a;
  void *symbolic, *numeric;
  /* B_0's z columns of the current solve, as refactor stores them (-M(:,j) without its
   * zeros, rows ascending): column j at [colc_at[j], + colc_len[j]) of colc_i/colc_x when
   * colc_gen[j] == gen (gen: one per solve), so each is formed once a solve. */
  int *colc_at, *colc_len, *colc_i;
  unsigned *colc_gen, gen;
  double *colc_x;
  size_t colc_used, cap_colc;
  double control[UMFPACK_CONTROL], uinfo[UMFPACK_INFO];
  /* Eta file. */
  int neta, cap_eta;
  int *eta_r, *eta_ptr, *eta_idx; /* eta t: pivot row, entries [eta_ptr[t], eta_ptr[t + 1]) */
  unsigned char *eta_dense;       /* 1: eta t is stored dense (n values, 0 at its row) */
  double *eta_piv, *eta_val;
  size_t cap_etanz;
  /* Row cache of B^{-1}. */
  double *rowc[NCACHE], rowmax[NCACHE];
  int rowpos[NCACHE];
  unsigned long rowstamp[NCACHE], serial;
  int rownext, rowlast; /* next slot in turn; slot of the row returned last */
  /* Vectors. */
  double *rhs, *u, *icol; /* icol [cap]: a column of B^{-1} (inv_column) */
  int *qperm;
  int *swi;           /* [cap] UMFPACK's solve workspace (umfpack_di_wsolve's Wi) */
  double *sw;         /* [cap] its W: n doubles without iterative refinement (IRSTEP 0) */
  int *vpos;          /* [cap]: BTRAN's nonzero positions, ascending */
  unsigned char *vin; /* [cap]: 1 at the positions in vpos (0 between solves) */
  /* B_0's factors P R B_0 Q = L U as UMFPACK holds them (umfpack_di_get_numeric), read
   * out after each factorization for the solves of own_solve: L unit lower by columns
   * (lc_*) and by rows (lr_*), U by columns (uc_*) and by rows (ur_*), all without their
   * diagonals; udiag [n] U's diagonal, rs [n] the row scale factors (multiplied when
   * do_recip, else divided), pp / qq the permutations (P [k] = row of pivot k,
   * Q [k] = its column). Sizes: the pointers n + 1, the rest lnz / unz (capacity cap_l /
   * cap_u); gx [n] the solves' permuted vector. */
  int own_solve;      /* lsim_lemke_sparse_set_own_solve */
  int *lc_p, *lc_i, *lr_p, *lr_j, *uc_p, *uc_i, *ur_p, *ur_j, *pp, *qq;
  double *lc_x, *lr_x, *uc_x, *ur_x, *udiag, *rs, *gx;
  size_t cap_l, cap_u;
  int do_recip;
  int factorizations, row_solves, col_solves;
  int sum_solves;   /* of row_solves, those of row_sum (bound_sums) */
  int factors_read; /* 1: the factors of the current factorization are read out (get_factors) */
  double *srow;     /* [cap] row_sum's row of B^{-1} */
  int eta_block; /* FTRAN's runs of dense etas (lsim_lemke_sparse_set_eta_block) */
  /* The dense fallback (lsim_lemke_sparse_set_dense_fallback): lemke.c's workspace, M
     [n * n] column-major, z. */
  int dense_fallback;
  LsimLemke *dense;
  double *mdense, *zdense;
  size_t cap_mdense;
  int avx2;      /* 1: the CPU has AVX2 (the runs' wide path) */
  /* B_0 factored and solved by KLU instead (lsim_lemke_sparse_set_klu): its objects of the
     current factorization and its settings. */
  int klu;
  klu_symbolic *ksym;
  klu_numeric *knum;
  klu_common kc;
  /* Forrest-Tomlin updates of the factors read out (lsim_lemke_sparse_set_ft; implies
   * own_solve): U's slots (slot k: U's row and column k of the factorization, basis position
   * qq[k]) in the triangular order ft_ord [cap] (ft_rank its inverse, ft_slot [cap] the slot
   * of each basis position); a replaced slot's column is its spike, sp_at [cap] into
   * sp_i / sp_x (-1: U's own column), sp_len [cap]; entries of U deleted by an update are
   * set to 0 in place (c2r / r2c [unz]: an entry's place in U by columns and by rows).
   * Row etas R_t = I - e_{k_t} m_t^T: re_k, re_ptr [nre + 1] into re_j / re_x. ft_s [cap]
   * the entering column's spike (L^{-1} P R a after the row etas, slot-indexed) when
   * spike_ok; ft_w [cap] scratch, zero between calls. */
  int ft, capture, spike_ok, spike_var;
  int *ft_ord, *ft_rank, *ft_slot, *sp_at, *sp_len, *sp_i, *c2r, *r2c, *re_k, *re_ptr, *re_j;
  double *sp_x, *re_x, *ft_s, *ft_w;
  size_t sp_used, cap_sp, cap_c2r, re_used, cap_re;
  int nre, cap_rek;
  int ft_updates, ft_refused; /* updates made; updates refused (refactored instead) */
};

static const LsimLemkeBasisOps sparse_ops;

LsimLemkeSparse *lsim_lemke_sparse_create(void) {
  LsimLemkeSparse *ws = calloc(1, sizeof(LsimLemkeSparse));
  if (ws) {
    lsim_blas_one_thread(); /* UMFPACK's dense kernels are BLAS calls (lcp/blas.h) */
    umfpack_di_defaults(ws->control);
    /* No iterative refinement in the solves: it tripled their cost (a product with B_0
       and a second solve each), and lemke.c's refactorization and acceptance tests guard
       the accuracy instead. (lu_solve's W holds n doubles, enough only without it.) */
    ws->control[UMFPACK_IRSTEP] = 0;
    ws->drv.ops = &sparse_ops;
    ws->drv.ctx = ws;
    ws->drv.refactor_first = REFACTOR;
    const char *rf = getenv("LSIM_LU_REFACTOR"); /* for comparisons (lemke_sparse.h) */
    if (rf) {
      char *end;
      const long every = strtol(rf, &end, 10);
      if (end != rf && !*end && every >= 10 && every <= REFACTOR_MAX)
        ws->drv.refactor_first = (int)every;
    }
    ws->drv.refactor_floor = 10;
    ws->drv.refactor_reset = 1;
    ws->drv.lazy_first_tie = 1;
    ws->drv.refactor_close = 1;
    ws->drv.carry_bounds = 1;
    ws->drv.shortcut_ties = 1;
    ws->drv.bound_sums = 1;
    /* For comparisons through the solver front (lemke_sparse.h): LSIM_TIES_SHORTCUT=0|1|2,
       LSIM_BOUND_SUMS=0|1 (bench/replay_lemke, bench_exact). */
    const char *ts = getenv("LSIM_TIES_SHORTCUT"), *bs = getenv("LSIM_BOUND_SUMS");
    if (ts && ts[0] >= '0' && ts[0] <= '2' && !ts[1]) ws->drv.shortcut_ties = ts[0] - '0';
    if (bs && bs[0] >= '0' && bs[0] <= '1' && !bs[1]) ws->drv.bound_sums = bs[0] - '0';
    /* LSIM_BLOCK_START=K: K rounds of block pivoting on a caller's guess (the setter). */
    const char *bk = getenv("LSIM_BLOCK_START");
    if (bk) {
      char *end;
      const long k = strtol(bk, &end, 10);
      if (end != bk && !*end && k >= 0 && k <= 1000) ws->drv.block_rounds = (int)k;
    }
    ws->eta_block = 1;
    const char *lu = getenv("LSIM_LU_SOLVE"); /* for comparisons (lemke_sparse.h) */
    ws->own_solve = OWN_SOLVE;
    if (lu && !strcmp(lu, "own")) ws->own_solve = 1;
    if (lu && !strcmp(lu, "umfpack")) ws->own_solve = 0;
    if (lu && !strcmp(lu, "klu")) ws->klu = 1;
    if (lu && !strcmp(lu, "ft")) ws->own_solve = 1, ws->ft = 1;
    /* KLU's settings (lsim_lemke_sparse_set_klu): partial pivoting (tol 1: its default
       0.001 prefers the diagonal and left x_B drifting, 38 factorizations for UMFPACK's 10
       on settled pile_100 step 110) and COLAMD (B_0 is unsymmetric; its default AMD on
       B_0 + B_0^T gave 37 % more instructions on that step). */
    klu_defaults(&ws->kc);
    ws->kc.tol = 1.0;
    ws->kc.ordering = 1;
    ws->dense_fallback = 1;
#if ETA_AVX2
    ws->avx2 = __builtin_cpu_supports("avx2") != 0;
#endif
  }
  return ws;
}

void lsim_lemke_sparse_free(LsimLemkeSparse *ws) {
  if (!ws) return;
  if (ws->numeric) umfpack_di_free_numeric(&ws->numeric);
  if (ws->symbolic) umfpack_di_free_symbolic(&ws->symbolic);
  if (ws->knum) klu_free_numeric(&ws->knum, &ws->kc);
  if (ws->ksym) klu_free_symbolic(&ws->ksym, &ws->kc);
  lsim_lemke_driver_free(&ws->drv);
  free(ws->jt_ptr), free(ws->jt_idx), free(ws->jt_val);
  free(ws->ct_ptr), free(ws->ct_idx), free(ws->ct_val);
  free(ws->acc), free(ws->touched), free(ws->mark);
  free(ws->Ap), free(ws->Ai), free(ws->Ax);
  free(ws->colc_at), free(ws->colc_len), free(ws->colc_i), free(ws->colc_gen), free(ws->colc_x);
  free(ws->eta_r), free(ws->eta_ptr), free(ws->eta_idx), free(ws->eta_piv), free(ws->eta_val);
  free(ws->eta_dense);
  lsim_lemke_free(ws->dense);
  free(ws->mdense), free(ws->zdense);
  for (int k = 0; k < NCACHE; ++k) free(ws->rowc[k]);
  free(ws->rhs), free(ws->u), free(ws->icol), free(ws->srow), free(ws->qperm), free(ws->vpos);
  free(ws->vin);
  free(ws->swi), free(ws->sw);
  free(ws->lc_p), free(ws->lc_i), free(ws->lr_p), free(ws->lr_j), free(ws->uc_p);
  free(ws->uc_i), free(ws->ur_p), free(ws->ur_j), free(ws->pp), free(ws->qq);
  free(ws->lc_x), free(ws->lr_x), free(ws->uc_x), free(ws->ur_x), free(ws->udiag);
  free(ws->rs), free(ws->gx);
  free(ws->ft_ord), free(ws->ft_rank), free(ws->ft_slot), free(ws->sp_at), free(ws->sp_len);
  free(ws->sp_i), free(ws->sp_x), free(ws->c2r), free(ws->r2c), free(ws->re_k);
  free(ws->re_ptr), free(ws->re_j), free(ws->re_x), free(ws->ft_s), free(ws->ft_w);
  free(ws);
}

void lsim_lemke_sparse_set_retry_positive(LsimLemkeSparse *ws, int on) {
  ws->drv.retry_positive = on;
}

void lsim_lemke_sparse_set_warm_only(LsimLemkeSparse *ws, int on) { ws->drv.warm_only = on; }

void lsim_lemke_sparse_set_cover_previous(LsimLemkeSparse *ws, int on) {
  ws->drv.cover_previous = on;
}

void lsim_lemke_sparse_set_carry_bounds(LsimLemkeSparse *ws, int on) {
  ws->drv.carry_bounds = on;
}

void lsim_lemke_sparse_set_shortcut_ties(LsimLemkeSparse *ws, int on) {
  ws->drv.shortcut_ties = on;
}

void lsim_lemke_sparse_set_bound_sums(LsimLemkeSparse *ws, int on) { ws->drv.bound_sums = on; }
void lsim_lemke_sparse_set_block_start(LsimLemkeSparse *ws, int rounds) {
  ws->drv.block_rounds = rounds > 0 ? rounds : 0;
}

void lsim_lemke_sparse_set_principal(LsimLemkeSparse *ws, int budget) {
  ws->drv.principal_budget = budget > 0 ? budget : 0;
}

void lsim_lemke_sparse_set_eta_block(LsimLemkeSparse *ws, int on) { ws->eta_block = on; }

void lsim_lemke_sparse_set_own_solve(LsimLemkeSparse *ws, int on) {
  ws->own_solve = on != 0;
  if (!ws->own_solve) ws->ft = 0; /* the updates are of the own factors */
}

void lsim_lemke_sparse_set_klu(LsimLemkeSparse *ws, int on) { ws->klu = on != 0; }

void lsim_lemke_sparse_set_ft(LsimLemkeSparse *ws, int on) {
  ws->ft = on != 0;
  if (ws->ft) ws->own_solve = 1;
}

void lsim_lemke_sparse_ft_counts(const LsimLemkeSparse *ws, int *updates, int *refused) {
  if (updates) *updates = ws ? ws->ft_updates : 0;
  if (refused) *refused = ws ? ws->ft_refused : 0;
}

int lsim_lemke_sparse_set_refactor(LsimLemkeSparse *ws, int every) {
  if (!ws || every < ws->drv.refactor_floor || every > REFACTOR_MAX) return LSIM_INVALID_INPUT;
  ws->drv.refactor_first = every;
  return 0;
}

void lsim_lemke_sparse_get_settings(const LsimLemkeSparse *ws, int *block_rounds, int *klu,
                                    int *own_solve, int *ft, int *refactor) {
  *block_rounds = ws->drv.block_rounds;
  *klu = ws->klu;
  *own_solve = ws->own_solve;
  *ft = ws->ft;
  *refactor = ws->drv.refactor_first;
}

void lsim_lemke_sparse_set_dense_fallback(LsimLemkeSparse *ws, int on) {
  ws->dense_fallback = on;
}

const unsigned char *lsim_lemke_sparse_basis(const LsimLemkeSparse *ws) {
  return ws && ws->drv.basis_valid ? ws->drv.basis : NULL;
}

void lsim_lemke_sparse_counts(const LsimLemkeSparse *ws, int *factorizations, int *row_solves,
                              int *column_solves) {
  if (factorizations) *factorizations = ws ? ws->factorizations : 0;
  if (row_solves) *row_solves = ws ? ws->row_solves : 0;
  if (column_solves) *column_solves = ws ? ws->col_solves : 0;
}

/* The buffers of size n and m = f->m (the problem of the solve). */
static int reserve(void *ctx, int n) {
  LsimLemkeSparse *ws = ctx;
  const int m = ws->f->m;
  if (m + 1 > ws->capm) { /* capm: entries held, m + 1 */
    if (lsim_lemke_grow((void **)&ws->jt_ptr, (size_t)m + 1, sizeof(int)) ||
        lsim_lemke_grow((void **)&ws->u, (size_t)m + 1, sizeof(double)))
      return LSIM_OUT_OF_MEMORY;
    ws->capm = m + 1;
  }
  if (n <= ws->cap) return 0;
  size_t un = (size_t)n;
  if (lsim_lemke_grow((void **)&ws->ct_ptr, un + 1, sizeof(int)) ||
      lsim_lemke_grow((void **)&ws->acc, un, sizeof(double)) ||
      lsim_lemke_grow((void **)&ws->touched, un, sizeof(int)) ||
      lsim_lemke_grow((void **)&ws->mark, un, sizeof(int)) ||
      lsim_lemke_grow((void **)&ws->Ap, un + 1, sizeof(int)) ||
      lsim_lemke_grow((void **)&ws->colc_at, un, sizeof(int)) ||
      lsim_lemke_grow((void **)&ws->colc_len, un, sizeof(int)) ||
      lsim_lemke_grow((void **)&ws->colc_gen, un, sizeof(unsigned)) ||
      lsim_lemke_grow((void **)&ws->rhs, un, sizeof(double)) ||
      lsim_lemke_grow((void **)&ws->icol, un, sizeof(double)) ||
      lsim_lemke_grow((void **)&ws->srow, un, sizeof(double)) ||
      lsim_lemke_grow((void **)&ws->qperm, un, sizeof(int)) ||
      lsim_lemke_grow((void **)&ws->swi, un, sizeof(int)) ||
      lsim_lemke_grow((void **)&ws->sw, un, sizeof(double)) ||
      lsim_lemke_grow((void **)&ws->lc_p, un + 1, sizeof(int)) ||
      lsim_lemke_grow((void **)&ws->lr_p, un + 1, sizeof(int)) ||
      lsim_lemke_grow((void **)&ws->uc_p, un + 1, sizeof(int)) ||
      lsim_lemke_grow((void **)&ws->ur_p, un + 1, sizeof(int)) ||
      lsim_lemke_grow((void **)&ws->pp, un, sizeof(int)) ||
      lsim_lemke_grow((void **)&ws->qq, un, sizeof(int)) ||
      lsim_lemke_grow((void **)&ws->udiag, un, sizeof(double)) ||
      lsim_lemke_grow((void **)&ws->rs, un, sizeof(double)) ||
      lsim_lemke_grow((void **)&ws->gx, un, sizeof(double)) ||
      lsim_lemke_grow((void **)&ws->vpos, un, sizeof(int)) ||
      lsim_lemke_grow((void **)&ws->vin, un, 1) ||
      lsim_lemke_grow((void **)&ws->ft_ord, un, sizeof(int)) ||
      lsim_lemke_grow((void **)&ws->ft_rank, un, sizeof(int)) ||
      lsim_lemke_grow((void **)&ws->ft_slot, un, sizeof(int)) ||
      lsim_lemke_grow((void **)&ws->sp_at, un, sizeof(int)) ||
      lsim_lemke_grow((void **)&ws->sp_len, un, sizeof(int)) ||
      lsim_lemke_grow((void **)&ws->ft_s, un, sizeof(double)) ||
      lsim_lemke_grow((void **)&ws->ft_w, un, sizeof(double)))
    return LSIM_OUT_OF_MEMORY;
  memset(ws->ft_w, 0, un * sizeof(double));
  for (int k = 0; k < NCACHE; ++k)
    if (lsim_lemke_grow((void **)&ws->rowc[k], un, sizeof(double))) return LSIM_OUT_OF_MEMORY;
  memset(ws->acc, 0, un * sizeof(double));
  memset(ws->mark, 0, un * sizeof(int));
  memset(ws->vin, 0, un);
  memset(ws->colc_gen, 0, un * sizeof(unsigned));
  ws->gen = 0, ws->colc_used = 0;
  ws->mstamp = 0;
  ws->cap = n;
  return 0;
}

/* Column-wise copies of J (CSR n x m -> CSC) and C (CSR n x n -> CSC). */
static int transpose(int rows, int cols, const int *ptr, const int *idx, const double *val,
                     int *tptr, int **tidx, double **tval, size_t *cap) {
  const size_t nnz = (size_t)ptr[rows];
  if (nnz > *cap) {
    if (lsim_lemke_grow((void **)tidx, nnz, sizeof(int)) ||
        lsim_lemke_grow((void **)tval, nnz, sizeof(double)))
      return LSIM_OUT_OF_MEMORY;
    *cap = nnz;
  }
  memset(tptr, 0, ((size_t)cols + 1) * sizeof(int));
  for (size_t k = 0; k < nnz; ++k) ++tptr[idx[k] + 1];
  for (int c = 0; c < cols; ++c) tptr[c + 1] += tptr[c];
  for (int i = 0; i < rows; ++i)
    for (int k = ptr[i]; k < ptr[i + 1]; ++k) {
      const int p = tptr[idx[k]]++;
      (*tidx)[p] = i;
      (*tval)[p] = val[k];
    }
  for (int c = cols; c > 0; --c) tptr[c] = tptr[c - 1];
  tptr[0] = 0;
  return 0;
}

/* Column j of M = J B + C scattered into ws->acc (entries listed in ws->touched).
 * Returns the count; the caller reads and then clears with mcol_clear. */
static int mcol(LsimLemkeSparse *ws, const LsimFactoredLcp *f, int j) {
  int cnt = 0;
  if (++ws->mstamp == 0x7fffffff) {
    memset(ws->mark, 0, (size_t)f->n * sizeof(int));
    ws->mstamp = 1;
  }
  const int st = ws->mstamp;
  for (int kb = f->B_ptr[j]; kb < f->B_ptr[j + 1]; ++kb) {
    const int k = f->B_idx[kb];
    const double b = f->B_val[kb];
    for (int t = ws->jt_ptr[k]; t < ws->jt_ptr[k + 1]; ++t) {
      const int i = ws->jt_idx[t];
      if (ws->mark[i] != st) {
        ws->mark[i] = st;
        ws->touched[cnt++] = i;
      }
      ws->acc[i] += ws->jt_val[t] * b;
    }
  }
  if (ws->has_c)
    for (int t = ws->ct_ptr[j]; t < ws->ct_ptr[j + 1]; ++t) {
      const int i = ws->ct_idx[t];
      if (ws->mark[i] != st) {
        ws->mark[i] = st;
        ws->touched[cnt++] = i;
      }
      ws->acc[i] += ws->ct_val[t];
    }
  return cnt;
}

static int cmp_int(const void *a, const void *b) {
  const int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Sorts the cnt distinct row indices t ascending (UMFPACK wants sorted rows). A column of
 * M comes from a few columns of J, each ascending, so the list is ascending or nearly:
 * one pass leaves a sorted list as it is, insertion sort orders a short one in place, and
 * qsort takes a long one (above SORT_INSERT entries: insertion sort is quadratic). Every
 * branch gives the one ascending order of the same set, so the CSC arrays are the same. */
#define SORT_INSERT 64
void lsim_lemke_sparse_sort_rows(int *t, int cnt) {
  int k = 1;
  while (k < cnt && t[k - 1] < t[k]) ++k;
  if (k >= cnt) return;
  if (cnt > SORT_INSERT) {
    qsort(t, (size_t)cnt, sizeof(int), cmp_int);
    return;
  }
  for (; k < cnt; ++k) {
    const int x = t[k];
    int p = k;
    while (p > 0 && t[p - 1] > x) {
      t[p] = t[p - 1];
      --p;
    }
    t[p] = x;
  }
}

static void mcol_clear(LsimLemkeSparse *ws, int cnt) {
  for (int k = 0; k < cnt; ++k) ws->acc[ws->touched[k]] = 0.0;
}

/* x[i] -= e_s[i] a_s for s = 0 .. na-1 in turn, every i < n, one load and store of x[i]
 * for up to 8 etas (1 <= na <= ETA_BLOCK; 5 to 7 as 4 and the rest): each x[i] takes the
 * same operations in the same order as na passes would give it, so the same bits. Compiled
 * twice: for the build's target (SSE2 on x86-64) and for AVX2 (four lanes, chosen at run
 * time where the CPU has it, lsim_lemke_sparse_set_eta_block): a product and a difference
 * are rounded alike in either (no fused multiply-add: AVX2 alone does not allow it, and
 * -std=c11 keeps contraction off). */
#define ETA_BLOCK 8
#define ETA_APPLY_BODY(self)                                                                  \
  if (na > 4 && na < 8) {                                                                     \
    self(x, e, a, 4, n);                                                                      \
    e += 4, a += 4, na -= 4;                                                                  \
  }                                                                                           \
  const double *restrict e0 = e[0], *restrict e1 = na > 1 ? e[1] : NULL,                      \
                         *restrict e2 = na > 2 ? e[2] : NULL, *restrict e3 = na > 3 ? e[3] : NULL; \
  const double a0 = a[0], a1 = na > 1 ? a[1] : 0.0, a2 = na > 2 ? a[2] : 0.0,                 \
               a3 = na > 3 ? a[3] : 0.0;                                                      \
  switch (na) {                                                                               \
  case 8: {                                                                                   \
    const double *restrict e4 = e[4], *restrict e5 = e[5], *restrict e6 = e[6],               \
                           *restrict e7 = e[7];                                               \
    const double a4 = a[4], a5 = a[5], a6 = a[6], a7 = a[7];                                  \
    for (int i = 0; i < n; ++i)                                                               \
      x[i] = x[i] - e0[i] * a0 - e1[i] * a1 - e2[i] * a2 - e3[i] * a3 - e4[i] * a4 -          \
             e5[i] * a5 - e6[i] * a6 - e7[i] * a7;                                            \
    break;                                                                                    \
  }                                                                                           \
  case 4:                                                                                     \
    for (int i = 0; i < n; ++i) x[i] = x[i] - e0[i] * a0 - e1[i] * a1 - e2[i] * a2 - e3[i] * a3; \
    break;                                                                                    \
  case 3:                                                                                     \
    for (int i = 0; i < n; ++i) x[i] = x[i] - e0[i] * a0 - e1[i] * a1 - e2[i] * a2;           \
    break;                                                                                    \
  case 2:                                                                                     \
    for (int i = 0; i < n; ++i) x[i] = x[i] - e0[i] * a0 - e1[i] * a1;                        \
    break;                                                                                    \
  default:                                                                                    \
    for (int i = 0; i < n; ++i) x[i] -= e0[i] * a0;                                           \
  }

static void eta_apply(double *restrict x, const double *const *e, const double *a, int na,
                      int n) {
  ETA_APPLY_BODY(eta_apply)
}

#if ETA_AVX2
__attribute__((target("avx2"))) static void eta_apply_avx2(double *restrict x,
                                                           const double *const *e,
                                                           const double *a, int na, int n) {
  ETA_APPLY_BODY(eta_apply_avx2)
}
#endif

/* Applies the eta file to x in place: x = E_k^{-1} ... E_1^{-1} x. Eta t sets x_r =
 * x_r / piv_t (r = r_t) and, when that is not 0, x_i -= e_t[i] x_r for i != r (a dense eta's
 * zeros change no finite x_i, so both forms give the same values). Runs of up to ETA_BLOCK
 * dense etas go through x once (eta_apply) rather than once each (on a settled pile_100
 * every eta is dense): first their pivot rows alone, in order, in a scratch (each row
 * joining it is brought up to date by the run's earlier etas, as the sequence would have
 * done), which gives each eta's x_r; then every row takes the run's etas with x_r != 0 in
 * order, and the pivot rows get their scratch values back. Every x_i sees the operations
 * of eta after eta, so the bits are those of one eta at a time (test_eta_block). */
static void eta_ftran(const LsimLemkeSparse *ws, double *restrict x) {
  const int n = ws->drv.n;
  int t = 0;
  while (t < ws->neta) {
    if (!ws->eta_dense[t] || !ws->eta_block) { /* one eta (a sparse one, or no runs) */
      const int r = ws->eta_r[t];
      const double xr = x[r] / ws->eta_piv[t];
      x[r] = xr;
      const double *restrict e = ws->eta_val + ws->eta_ptr[t];
      if (xr == 0.0) {
      } else if (ws->eta_dense[t]) {
        for (int i = 0; i < r; ++i) x[i] -= e[i] * xr;
        for (int i = r + 1; i < n; ++i) x[i] -= e[i] * xr;
      } else {
        const int *restrict idx = ws->eta_idx + ws->eta_ptr[t];
        const int len = ws->eta_ptr[t + 1] - ws->eta_ptr[t];
        for (int k = 0; k < len; ++k) x[idx[k]] -= e[k] * xr;
      }
      ++t;
      continue;
    }
    /* A run of dense etas: rr[0 .. nr) its distinct pivot rows so far, rv their values;
       ea / aa the etas with x_r != 0 and their x_r. */
    const double *ea[ETA_BLOCK] = {0};
    double aa[ETA_BLOCK] = {0}, rv[ETA_BLOCK];
    int rr[ETA_BLOCK], nr = 0, na = 0;
    for (int nb = 0; nb < ETA_BLOCK && t < ws->neta && ws->eta_dense[t]; ++nb, ++t) {
      const int r = ws->eta_r[t];
      const double *e = ws->eta_val + ws->eta_ptr[t];
      int k = 0;
      while (k < nr && rr[k] != r) ++k;
      if (k == nr) { /* x_r as the run's earlier etas leave it */
        double v = x[r];
        for (int s = 0; s < na; ++s) v -= ea[s][r] * aa[s];
        rr[nr] = r, rv[nr++] = v;
      }
      const double xr = rv[k] / ws->eta_piv[t];
      rv[k] = xr;
      if (xr == 0.0) continue;
      for (int j = 0; j < nr; ++j)
        if (j != k) rv[j] -= e[rr[j]] * xr;
      ea[na] = e, aa[na++] = xr;
    }
#if ETA_AVX2
    if (na && ws->eta_block == 1 && ws->avx2) eta_apply_avx2(x, ea, aa, na, n);
    else
#endif
      if (na) eta_apply(x, ea, aa, na, n);
    for (int j = 0; j < nr; ++j) x[rr[j]] = rv[j];
  }
}

/* x = B_0^{-1} b (sys UMFPACK_A) or B_0^{-T} b (UMFPACK_At) with UMFPACK's factors, in the
 * workspace's Wi / W: umfpack_di_wsolve is umfpack_di_solve without its malloc and free of
 * that workspace at every call (the same arithmetic, so the same bits; W needs n doubles
 * since IRSTEP is 0). UMFPACK's status. */
static int lu_solve(LsimLemkeSparse *ws, int sys, double *x, const double *b) {
  if (ws->klu) { /* KLU solves in place */
    memcpy(x, b, (size_t)ws->drv.n * sizeof(double));
    const int ok = sys == UMFPACK_A ? klu_solve(ws->ksym, ws->knum, ws->drv.n, 1, x, &ws->kc)
                                    : klu_tsolve(ws->ksym, ws->knum, ws->drv.n, 1, x, &ws->kc);
    return ok ? UMFPACK_OK : UMFPACK_ERROR_invalid_system;
  }
  return umfpack_di_wsolve(sys, ws->Ap, ws->Ai, ws->Ax, x, b, ws->numeric, ws->control,
                           ws->uinfo, ws->swi, ws->sw);
}

/* Index and value arrays of a triangle grown to need entries. 0 or LSIM_OUT_OF_MEMORY. */
static int grow_triangle(int **idx, double **val, size_t need) {
  return lsim_lemke_grow((void **)idx, need, sizeof(int)) ||
         lsim_lemke_grow((void **)val, need, sizeof(double));
}

/* The strictly triangular part of the n x n matrix (ap, ai, ax) (compressed by rows or by
 * columns) into (bp, bi, bx), the other orientation, and back into (ap, ai, ax) without the
 * diagonal. Both orientations keep their indices ascending. */
static void split_triangle(int n, int *ap, int *ai, double *ax, int *bp, int *bi, double *bx) {
  memset(bp, 0, ((size_t)n + 1) * sizeof(int));
  int nz = 0;
  for (int a = 0; a < n; ++a) {
    const int end = ap[a + 1];
    const int start = ap[a];
    ap[a] = nz;
    for (int k = start; k < end; ++k)
      if (ai[k] != a) {
        ai[nz] = ai[k], ax[nz++] = ax[k];
        ++bp[ai[k] + 1];
      }
  }
  ap[n] = nz;
  for (int b = 0; b < n; ++b) bp[b + 1] += bp[b];
  for (int a = 0; a < n; ++a)
    for (int k = ap[a]; k < ap[a + 1]; ++k) {
      const int at = bp[ai[k]]++;
      bi[at] = a, bx[at] = ax[k];
    }
  for (int b = n; b > 0; --b) bp[b] = bp[b - 1];
  bp[0] = 0;
}

/* Reads B_0's factors out of UMFPACK's numeric object (own_solve): L by rows and U by
 * columns as umfpack_di_get_numeric gives them, each turned the other way too, the
 * diagonals apart. 0, LSIM_OUT_OF_MEMORY or LSIM_BREAKDOWN. */
static int get_factors(LsimLemkeSparse *ws) {
  const int n = ws->drv.n;
  int lnz, unz, nr, nc, nzud;
  if (umfpack_di_get_lunz(&lnz, &unz, &nr, &nc, &nzud, ws->numeric) != UMFPACK_OK || nr != n ||
      nc != n)
    return LSIM_BREAKDOWN;
  if ((size_t)lnz > ws->cap_l) {
    if (grow_triangle(&ws->lc_i, &ws->lc_x, (size_t)lnz) ||
        grow_triangle(&ws->lr_j, &ws->lr_x, (size_t)lnz))
      return LSIM_OUT_OF_MEMORY;
    ws->cap_l = (size_t)lnz;
  }
  if ((size_t)unz > ws->cap_u) {
    if (grow_triangle(&ws->uc_i, &ws->uc_x, (size_t)unz) ||
        grow_triangle(&ws->ur_j, &ws->ur_x, (size_t)unz))
      return LSIM_OUT_OF_MEMORY;
    ws->cap_u = (size_t)unz;
  }
  if (umfpack_di_get_numeric(ws->lr_p, ws->lr_j, ws->lr_x, ws->uc_p, ws->uc_i, ws->uc_x, ws->pp,
                             ws->qq, ws->udiag, &ws->do_recip, ws->rs,
                             ws->numeric) != UMFPACK_OK)
    return LSIM_BREAKDOWN;
  split_triangle(n, ws->lr_p, ws->lr_j, ws->lr_x, ws->lc_p, ws->lc_i, ws->lc_x);
  split_triangle(n, ws->uc_p, ws->uc_i, ws->uc_x, ws->ur_p, ws->ur_j, ws->ur_x);
  return 0;
}

/* y[idx[p]] -= v[p] a for p < len, unrolled by four (the loop's own instructions were a
 * third of the solves'): each entry takes the same product and difference, in the same
 * order. (Running the contiguous index ranges as dense vectors was tried: 1 % of the
 * entries on pile_100, and the test cost more than it saved.) */
static inline void sub_scaled(double *restrict y, const int *restrict idx,
                              const double *restrict v, int len, double a) {
#pragma GCC unroll 4
  for (int p = 0; p < len; ++p) y[idx[p]] -= v[p] * a;
}

/* FORREST-TOMLIN UPDATE (ft; Forrest and Tomlin, Math. Programming 2 (1972) 263-278).
 * With P R B_0 Q = L U read out, the basis B_t after t exchanges is kept as
 * P R B_t Q = L R_1^{-1} ... R_t^{-1} U_t: U_t upper triangular in the order ft_ord of
 * its slots (slot k: row and column k of the factorization, basis position qq[k]). The
 * exchange at position r = qq[k] replaces column k of U by the spike s = R_t ... R_1
 * L^{-1} P R a (the entering column's FTRAN before its U solve, kept by column), moves
 * slot k to the end of the order and eliminates the entries of row k to its right by the
 * row eta R_{t+1} = I - e_k m^T, m^T = u_k^T U_sub^{-1} over the slots after k (one
 * partial transposed solve), leaving s_k - m^T s on the diagonal. The spikes are as sparse
 * as L^{-1} a (L is almost empty on contact bases), where the product form's etas
 * c = B^{-1} a are full; so a solve costs about one pass over U however many exchanges
 * were made, and the refactorization interval can be long. Deleted entries of U are set
 * to 0 in place (a column's in the rows' copy, a row's in both and in the spikes).
 * FTRAN: L, then R_1 .. R_t, then U_t in its order by columns (a spike's column from
 * sp_*). BTRAN: U_t^T in order by rows (a spike slot first gathers its column against
 * the finished entries), then R_t^T .. R_1^T, then L^T. With no exchange made the order
 * is U's own and every sum is own_solve's: the same bits. The exchange is refused (B
 * refactored instead) where the new diagonal disagrees with the old one times the pivot
 * c_r (equal in exact arithmetic: det B_{t+1} = c_r det B_t) by more than FT_TOL of it. */
#define FT_TOL 1e-9

/* Sparse entries (an index and a value array) room for need, doubled from first:
 * 0 or LSIM_OUT_OF_MEMORY (the arrays as they were). */
static int grow_entries(int **idx, double **val, size_t *cap, size_t need, size_t first) {
  if (need <= *cap) return 0;
  size_t c = *cap ? *cap : first;
  while (c < need) c *= 2;
  if (lsim_lemke_grow((void **)idx, c, sizeof(int)) || lsim_lemke_grow((void **)val, c, sizeof(double)))
    return LSIM_OUT_OF_MEMORY;
  *cap = c;
  return 0;
}

/* y_k -= m_t^T y for t = 1 .. nre (slot-indexed y). */
static void ft_row_etas(const LsimLemkeSparse *ws, double *restrict y) {
  for (int t = 0; t < ws->nre; ++t) {
    double s = y[ws->re_k[t]];
    for (int e = ws->re_ptr[t]; e < ws->re_ptr[t + 1]; ++e) s -= ws->re_x[e] * y[ws->re_j[e]];
    y[ws->re_k[t]] = s;
  }
}

/* y -= m_t y_{k_t} for t = nre .. 1: the row etas transposed, in reverse. */
static void ft_row_etas_t(const LsimLemkeSparse *ws, double *restrict y) {
  for (int t = ws->nre - 1; t >= 0; --t) {
    const double yk = y[ws->re_k[t]];
    if (yk == 0.0) continue;
    const int at = ws->re_ptr[t];
    sub_scaled(y, ws->re_j + at, ws->re_x + at, ws->re_ptr[t + 1] - at, yk);
  }
}

/* U_t^T y = b in place (slot-indexed), over the slots of rank from .. n - 1 of the order
 * (the earlier ones as they are): by rows of U (entries of deleted rows and of replaced
 * columns are 0), a spike slot first gathering its column. */
static void ft_utsolve(const LsimLemkeSparse *ws, double *restrict y, int from) {
  const int n = ws->drv.n;
  const int *restrict up = ws->ur_p, *restrict uj = ws->ur_j;
  const double *restrict ux = ws->ur_x, *restrict ud = ws->udiag;
  for (int p = from; p < n; ++p) {
    const int k = ws->ft_ord[p];
    if (ws->sp_at[k] >= 0) {
      double s = y[k];
      const int at = ws->sp_at[k], end = at + ws->sp_len[k];
      for (int e = at; e < end; ++e) s -= ws->sp_x[e] * y[ws->sp_i[e]];
      y[k] = s;
    }
    if (y[k] == 0.0) continue;
    const double yk = y[k] / ud[k];
    y[k] = yk;
    sub_scaled(y, uj + up[k], ux + up[k], up[k + 1] - up[k], yk);
  }
}

/* After a factorization: no exchange yet (U's own order, no spike, no row eta), the slot
 * of each basis position, and the place of each entry of U in its rows' copy. 0 or
 * LSIM_OUT_OF_MEMORY. */
static int ft_reset(LsimLemkeSparse *ws) {
  const int n = ws->drv.n;
  const size_t unz = (size_t)ws->uc_p[n];
  if (unz > ws->cap_c2r) {
    if (lsim_lemke_grow((void **)&ws->c2r, unz, sizeof(int)) ||
        lsim_lemke_grow((void **)&ws->r2c, unz, sizeof(int)))
      return LSIM_OUT_OF_MEMORY;
    ws->cap_c2r = unz;
  }
  for (int k = 0; k < n; ++k) {
    ws->ft_ord[k] = ws->ft_rank[k] = k;
    ws->ft_slot[ws->qq[k]] = k;
    ws->sp_at[k] = -1;
  }
  /* Rows were filled column by column (split_triangle): an entry's place in its row is
     the row's start plus the entries of that row in earlier columns. */
  int *cnt = ws->sp_len; /* scratch here; set again as spikes come */
  memset(cnt, 0, (size_t)n * sizeof(int));
  for (int j = 0; j < n; ++j)
    for (int p = ws->uc_p[j]; p < ws->uc_p[j + 1]; ++p) {
      const int i = ws->uc_i[p];
      const int q = ws->ur_p[i] + cnt[i]++;
      ws->c2r[p] = q, ws->r2c[q] = p;
    }
  ws->nre = 0, ws->re_used = 0, ws->sp_used = 0, ws->spike_ok = 0;
  return 0;
}

/* The Forrest-Tomlin exchange at basis position r with the spike of the entering column
 * (ft_s). 0, 1 when refused (the caller refactors), LSIM_OUT_OF_MEMORY. */
static int ft_exchange(LsimLemkeSparse *ws, int r, double cr) {
  const int n = ws->drv.n;
  const int k = ws->ft_slot[r];
  const double *restrict s = ws->ft_s;
  double *restrict w = ws->ft_w;
  /* m^T U_sub = u_k^T: y_k = -1 and row k scattered, then U^T over the slots after k. */
  w[k] = -1.0;
  {
    const int a = ws->ur_p[k], len = ws->ur_p[k + 1] - a;
    sub_scaled(w, ws->ur_j + a, ws->ur_x + a, len, -1.0);
  }
  const int rk = ws->ft_rank[k];
  ft_utsolve(ws, w, rk + 1);
  w[k] = 0.0;
  /* The row eta (the nonzero m_j), the new diagonal s_k - m^T s. */
  if (ws->nre + 1 >= ws->cap_rek) {
    const int c = ws->cap_rek ? 2 * ws->cap_rek : 64;
    if (lsim_lemke_grow((void **)&ws->re_k, (size_t)c, sizeof(int)) ||
        lsim_lemke_grow((void **)&ws->re_ptr, (size_t)c + 1, sizeof(int)))
      return LSIM_OUT_OF_MEMORY;
    ws->cap_rek = c;
  }
  if (grow_entries(&ws->re_j, &ws->re_x, &ws->cap_re, ws->re_used + (size_t)n, 4096))
    return LSIM_OUT_OF_MEMORY;
  size_t e = ws->re_used;
  double dk = s[k];
  for (int p = rk + 1; p < n; ++p) {
    const int j = ws->ft_ord[p];
    if (w[j] == 0.0) continue;
    dk -= w[j] * s[j];
    ws->re_j[e] = j, ws->re_x[e++] = w[j];
    w[j] = 0.0;
  }
  const double want = ws->udiag[k] * cr;
  if (!(dk != 0.0 && isfinite(dk) && fabs(dk - want) <= FT_TOL * fabs(dk))) return 1;
  /* The spike as slot k's column (its diagonal apart). */
  if (grow_entries(&ws->sp_i, &ws->sp_x, &ws->cap_sp, ws->sp_used + (size_t)n, 4096))
    return LSIM_OUT_OF_MEMORY;
  /* Row k deleted: in U (both copies) and in the earlier spikes. */
  for (int q = ws->ur_p[k]; q < ws->ur_p[k + 1]; ++q) ws->ur_x[q] = 0.0, ws->uc_x[ws->r2c[q]] = 0.0;
  for (size_t q = 0; q < ws->sp_used; ++q)
    if (ws->sp_i[q] == k) ws->sp_x[q] = 0.0;
  /* Column k replaced: U's own column deleted from the rows' copy. */
  if (ws->sp_at[k] < 0)
    for (int q = ws->uc_p[k]; q < ws->uc_p[k + 1]; ++q) ws->ur_x[ws->c2r[q]] = 0.0;
  const size_t at = ws->sp_used;
  size_t nz = at;
  for (int i = 0; i < n; ++i)
    if (i != k && s[i] != 0.0) ws->sp_i[nz] = i, ws->sp_x[nz++] = s[i];
  ws->sp_at[k] = (int)at, ws->sp_len[k] = (int)(nz - at);
  ws->sp_used = nz;
  ws->udiag[k] = dk;
  if (ws->nre == 0) ws->re_ptr[0] = 0;
  ws->re_k[ws->nre] = k;
  ws->re_ptr[++ws->nre] = (int)e;
  ws->re_used = e;
  /* Slot k to the end of the order. */
  for (int p = rk; p < n - 1; ++p) {
    ws->ft_ord[p] = ws->ft_ord[p + 1];
    ws->ft_rank[ws->ft_ord[p]] = p;
  }
  ws->ft_ord[n - 1] = k, ws->ft_rank[k] = n - 1;
  ++ws->ft_updates;
  return 0;
}

/* x = B_0^{-1} b from the factors read out (own_solve): P R B_0 Q = L U, so L U y = P R b
 * and x = Q y. Both triangles by columns, a column skipped where its entry of y is zero
 * (the right-hand sides are sparse: a column of B_0, a unit vector), so a solve costs n
 * plus the entries of L and U it reaches. x and b may not alias. */
static void own_ftran(const LsimLemkeSparse *ws, double *restrict x, const double *restrict b) {
  const int n = ws->drv.n;
  double *restrict y = ws->gx;
  const int *restrict pp = ws->pp;
  const double *restrict rs = ws->rs;
  if (ws->do_recip)
    for (int k = 0; k < n; ++k) y[k] = b[pp[k]] * rs[pp[k]];
  else
    for (int k = 0; k < n; ++k) y[k] = b[pp[k]] / rs[pp[k]];
  const int *restrict lp = ws->lc_p, *restrict li = ws->lc_i;
  const double *restrict lx = ws->lc_x;
  for (int k = 0; k < n; ++k) {
    const double yk = y[k];
    if (yk == 0.0) continue;
    sub_scaled(y, li + lp[k], lx + lp[k], lp[k + 1] - lp[k], yk);
  }
  const int *restrict up = ws->uc_p, *restrict ui = ws->uc_i;
  const double *restrict ux = ws->uc_x, *restrict ud = ws->udiag;
  if (ws->ft) { /* the row etas, the spike kept for update, U in its order */
    ft_row_etas(ws, y);
    if (ws->capture) memcpy(ws->ft_s, y, (size_t)n * sizeof(double));
    const int *restrict ord = ws->ft_ord, *restrict at = ws->sp_at;
    for (int p = n - 1; p >= 0; --p) {
      const int k = ord[p];
      if (y[k] == 0.0) continue;
      const double yk = y[k] / ud[k];
      y[k] = yk;
      if (at[k] < 0) sub_scaled(y, ui + up[k], ux + up[k], up[k + 1] - up[k], yk);
      else sub_scaled(y, ws->sp_i + at[k], ws->sp_x + at[k], ws->sp_len[k], yk);
    }
  } else {
    for (int k = n - 1; k >= 0; --k) {
      if (y[k] == 0.0) continue;
      const double yk = y[k] / ud[k];
      y[k] = yk;
      sub_scaled(y, ui + up[k], ux + up[k], up[k + 1] - up[k], yk);
    }
  }
  const int *restrict qq = ws->qq;
  for (int k = 0; k < n; ++k) x[qq[k]] = y[k];
}

/* x = B_0^{-T} b (own_solve): B_0^T = Q U^T L^T P R^{-1}, so U^T L^T v = Q^T b and
 * x = R P^T v; U^T and L^T by rows of U and L, a row skipped where its entry is zero. */
static void own_btran(const LsimLemkeSparse *ws, double *restrict x, const double *restrict b) {
  const int n = ws->drv.n;
  double *restrict y = ws->gx;
  const int *restrict qq = ws->qq;
  for (int k = 0; k < n; ++k) y[k] = b[qq[k]];
  const int *restrict up = ws->ur_p, *restrict uj = ws->ur_j;
  const double *restrict ux = ws->ur_x, *restrict ud = ws->udiag;
  if (ws->ft) {
    ft_utsolve(ws, y, 0);
    ft_row_etas_t(ws, y);
  } else {
    for (int k = 0; k < n; ++k) {
      if (y[k] == 0.0) continue;
      const double yk = y[k] / ud[k];
      y[k] = yk;
      sub_scaled(y, uj + up[k], ux + up[k], up[k + 1] - up[k], yk);
    }
  }
  const int *restrict lp = ws->lr_p, *restrict lj = ws->lr_j;
  const double *restrict lx = ws->lr_x;
  for (int k = n - 1; k >= 0; --k) {
    const double yk = y[k];
    if (yk == 0.0) continue;
    sub_scaled(y, lj + lp[k], lx + lp[k], lp[k + 1] - lp[k], yk);
  }
  const int *restrict pp = ws->pp;
  const double *restrict rs = ws->rs;
  if (ws->do_recip)
    for (int k = 0; k < n; ++k) x[pp[k]] = y[k] * rs[pp[k]];
  else
    for (int k = 0; k < n; ++k) x[pp[k]] = y[k] / rs[pp[k]];
}

int lsim_lemke_sparse_test_solves(LsimLemkeSparse *ws, int transposed, const double *b,
                                  double *x_umfpack, double *x_own, double res[3]) {
  if (!ws || ws->klu || !ws->numeric || ws->drv.n <= 0) return LSIM_INVALID_INPUT;
  const int n = ws->drv.n;
  int rc = get_factors(ws);
  if (rc) return rc;
  if (lu_solve(ws, transposed ? UMFPACK_At : UMFPACK_A, x_umfpack, b) != UMFPACK_OK)
    return LSIM_BREAKDOWN;
  (transposed ? own_btran : own_ftran)(ws, x_own, b);
  /* Residuals b - B_0 x (B_0^T x) of both, and the scale max_i (|B_0| |x| + |b|)_i. */
  double r0 = 0.0, r1 = 0.0, sc = 0.0;
  double *ra = ws->gx, *rb = ws->sw, *ab = ws->icol;
  for (int i = 0; i < n; ++i) ra[i] = rb[i] = b[i], ab[i] = fabs(b[i]);
  for (int j = 0; j < n; ++j)
    for (int p = ws->Ap[j]; p < ws->Ap[j + 1]; ++p) {
      const int i = ws->Ai[p];
      const double a = ws->Ax[p];
      if (transposed) {
        ra[j] -= a * x_umfpack[i], rb[j] -= a * x_own[i], ab[j] += fabs(a * x_own[i]);
      } else {
        ra[i] -= a * x_umfpack[j], rb[i] -= a * x_own[j], ab[i] += fabs(a * x_own[j]);
      }
    }
  for (int i = 0; i < n; ++i) {
    r0 = fmax(r0, fabs(ra[i])), r1 = fmax(r1, fabs(rb[i])), sc = fmax(sc, ab[i]);
  }
  res[0] = r0, res[1] = r1, res[2] = sc;
  return 0;
}

/* out = B^{-1} a (a in ws->rhs). 0 or LSIM_BREAKDOWN. */
static int ftran(LsimLemkeSparse *ws, double *out) {
  if (ws->own_solve && !ws->klu) own_ftran(ws, out, ws->rhs);
  else if (lu_solve(ws, UMFPACK_A, out, ws->rhs) != UMFPACK_OK) return LSIM_BREAKDOWN;
  eta_ftran(ws, out);
  return 0;
}

/* x . y over n entries when x is zero outside pos[0..np) (ascending), in four interleaved
 * partial sums (term k to sum k mod 4, the tail past the last multiple of 4 to sum 0; one
 * running sum waits on each addition's latency). The value is the same, bit for bit, as
 * that sum over all n entries, which BTRAN's dense etas took before (the terms left out
 * are zeros): the pivots did not change. */
static double dot_sparse4(const double *restrict x, const double *restrict y,
                          const int *restrict pos, int np, int n) {
  double s[4] = {0.0, 0.0, 0.0, 0.0};
  const int n4 = n & ~3;
  for (int k = 0; k < np; ++k) {
    const int p = pos[k];
    s[p < n4 ? p & 3 : 0] += x[p] * y[p];
  }
  return (s[0] + s[1]) + (s[2] + s[3]);
}

/* ws->rhs = v, v^T = e_i^T E_k^{-1} ... E_1^{-1}: the eta part of BTRAN for row i. */
static void btran_etas(LsimLemkeSparse *ws, int i) {
  const int n = ws->drv.n;
  double *v = ws->rhs;
  memset(v, 0, (size_t)n * sizeof(double));
  v[i] = 1.0;
  /* v^T = e_i^T E_k^{-1} ... E_1^{-1}: E_t^{-1} changes component r_t only, so v is
   * nonzero only at i and the pivot rows met so far (vpos, ascending, at most neta + 1).
   * A dense eta's dot product runs over those positions alone (dot_sparse4). */
  int nv = 1;
  ws->vpos[0] = i;
  ws->vin[i] = 1;
  for (int t = ws->neta - 1; t >= 0; --t) {
    const int r = ws->eta_r[t];
    const double *restrict e = ws->eta_val + ws->eta_ptr[t];
    double s = v[r];
    if (ws->eta_dense[t]) {
      s -= dot_sparse4(v, e, ws->vpos, nv, n); /* e[r] = 0 */
    } else {
      const int *restrict idx = ws->eta_idx + ws->eta_ptr[t];
      const int len = ws->eta_ptr[t + 1] - ws->eta_ptr[t];
      for (int k = 0; k < len; ++k) s -= v[idx[k]] * e[k];
    }
    v[r] = s / ws->eta_piv[t];
    if (!ws->vin[r]) { /* insert r into the ascending list */
      int k = nv++;
      for (; k > 0 && ws->vpos[k - 1] > r; --k) ws->vpos[k] = ws->vpos[k - 1];
      ws->vpos[k] = r;
      ws->vin[r] = 1;
    }
  }
  for (int k = 0; k < nv; ++k) ws->vin[ws->vpos[k]] = 0;
}

/* Row i of B^{-1} (cached for the current basis, NCACHE rows), stride 1; NULL on a failed
 * solve. Sets *rmax when rmax != NULL. */
static const double *binv_row(void *ctx, int i, int *stride, double *rmax) {
  LsimLemkeSparse *ws = ctx;
  const int n = ws->drv.n;
  *stride = 1;
  for (int k = 0; k < NCACHE; ++k)
    if (ws->rowpos[k] == i && ws->rowstamp[k] == ws->serial) {
      if (rmax) *rmax = ws->rowmax[k];
      ws->rowlast = k;
      return ws->rowc[k];
    }
  btran_etas(ws, i);
  const double *v = ws->rhs;
  /* The next slot in turn, but never the row returned last (a hit does not advance the
     turn: row j computed after a hit on row i would overwrite row i while lex_less holds
     both). */
  if (ws->rownext == ws->rowlast) ws->rownext = (ws->rownext + 1) % NCACHE;
  const int slot = ws->rownext;
  ws->rownext = (ws->rownext + 1) % NCACHE;
  ws->rowlast = slot;
  double *row = ws->rowc[slot];
  int rc = UMFPACK_OK;
  if (ws->own_solve && !ws->klu) own_btran(ws, row, v);
  else rc = lu_solve(ws, UMFPACK_At, row, v);
  ++ws->row_solves;
  if (rc != UMFPACK_OK) return NULL;
  double mx = 0.0;
  for (int k = 0; k < n; ++k) {
    const double a = fabs(row[k]);
    mx = a > mx ? a : mx; /* fmax(mx, a) without the library call */
  }
  ws->rowpos[slot] = i;
  ws->rowstamp[slot] = ws->serial;
  ws->rowmax[slot] = mx;
  if (rmax) *rmax = mx;
  return row;
}

/* *sum = |B^{-1}_i| |q| for the ratio test's tie bound (ops->row_sum, bound_sums): the
 * eta part as binv_row's, then B_0^T's solve on the factors read out (own_btran, read once
 * a factorization), which skips the rows of U^T and L^T whose entry is zero: the right-hand
 * side is sparse (i and the pivot rows) and so is much of the row (on pile_1000 steps 26-40
 * 29 % of its entries are nonzero), and the solve costs about a third of UMFPACK's
 * (docs/solvers.md). The row is not kept. Its values are UMFPACK's up to rounding
 * (test_own_solves: within 8.3e-15 of max |x|), so the sum is too: a tie decided by its
 * bound could go the other way only where the gap and the bound agree to that rounding
 * (test_bound_sums: the same z bits on 121 problems). With klu, KLU's transposed solve.
 * 0, or LSIM_BREAKDOWN / LSIM_OUT_OF_MEMORY when the factors could not be read or the solve
 * failed (the driver then solves the row). */
static int row_sum(void *ctx, int i, double *sum) {
  LsimLemkeSparse *ws = ctx;
  const int n = ws->drv.n;
  if (ws->klu) { /* KLU's transposed solve (its factors are not read out) */
    btran_etas(ws, i);
    if (lu_solve(ws, UMFPACK_At, ws->srow, ws->rhs) != UMFPACK_OK) return LSIM_BREAKDOWN;
  } else {
    if (!ws->factors_read) {
      const int rc = get_factors(ws);
      if (rc) return rc;
      ws->factors_read = 1;
    }
    btran_etas(ws, i);
    own_btran(ws, ws->srow, ws->rhs);
  }
  ++ws->row_solves, ++ws->sum_solves;
  const double *restrict row = ws->srow, *restrict q = ws->f->q;
  double s = 0.0;
  for (int k = 0; k < n; ++k) s += fabs(row[k] * q[k]);
  *sum = s;
  return 0;
}

/* 1 when row i of B^{-1} is cached for the current basis. */
static int has_row(void *ctx, int i) {
  const LsimLemkeSparse *ws = ctx;
  for (int k = 0; k < NCACHE; ++k)
    if (ws->rowpos[k] == i && ws->rowstamp[k] == ws->serial) return 1;
  return 0;
}

/* Makes sure the CSC arrays hold nnz entries. */
static int reserve_a(LsimLemkeSparse *ws, size_t nnz) {
  return grow_entries(&ws->Ai, &ws->Ax, &ws->cap_a, nnz, 1024);
}

/* Column j of B_0 (-M(:,j) without its zeros, rows ascending) from the cache, formed and
 * stored there on its first use in the solve. 0 or LSIM_OUT_OF_MEMORY. */
static int basis_mcol(LsimLemkeSparse *ws, const LsimFactoredLcp *f, int j) {
  if (ws->colc_gen[j] == ws->gen) return 0;
  const int cnt = mcol(ws, f, j);
  lsim_lemke_sparse_sort_rows(ws->touched, cnt); /* UMFPACK: sorted rows */
  const size_t need = ws->colc_used + (size_t)cnt;
  if (grow_entries(&ws->colc_i, &ws->colc_x, &ws->cap_colc, need, 4096)) {
    mcol_clear(ws, cnt);
    return LSIM_OUT_OF_MEMORY;
  }
  size_t nz = ws->colc_used;
  for (int k = 0; k < cnt; ++k) {
    const int i = ws->touched[k];
    if (ws->acc[i] == 0.0) continue;
    ws->colc_i[nz] = i;
    ws->colc_x[nz++] = -ws->acc[i];
  }
  mcol_clear(ws, cnt);
  ws->colc_at[j] = (int)ws->colc_used;
  ws->colc_len[j] = (int)(nz - ws->colc_used);
  ws->colc_used = nz;
  ws->colc_gen[j] = ws->gen;
  return 0;
}

/* B_0 (Ap, Ai, Ax) factored by UMFPACK. 0, LSIM_BREAKDOWN (singular, or the estimated
 * reciprocal condition below RCOND_MIN) or LSIM_OUT_OF_MEMORY. */
static int umf_factor_b0(LsimLemkeSparse *ws, int n) {
  if (ws->numeric) umfpack_di_free_numeric(&ws->numeric);
  if (ws->symbolic) umfpack_di_free_symbolic(&ws->symbolic);
  int rc = umfpack_di_symbolic(n, n, ws->Ap, ws->Ai, ws->Ax, &ws->symbolic, ws->control, ws->uinfo);
  if (rc == UMFPACK_ERROR_out_of_memory) return LSIM_OUT_OF_MEMORY;
  if (rc != UMFPACK_OK) return LSIM_BREAKDOWN;
  rc = umfpack_di_numeric(ws->Ap, ws->Ai, ws->Ax, ws->symbolic, &ws->numeric, ws->control,
                          ws->uinfo);
  if (rc == UMFPACK_ERROR_out_of_memory) return LSIM_OUT_OF_MEMORY;
  if (rc != UMFPACK_OK || !(ws->uinfo[UMFPACK_RCOND] >= RCOND_MIN)) return LSIM_BREAKDOWN;
  return 0;
}

/* B_0 factored by KLU (klu): its analysis (BTF, then COLAMD on each block) and its
 * left-looking factorization with partial pivoting, the crude reciprocal condition
 * min |U_kk| / max |U_kk| (UMFPACK's RCOND) against RCOND_MIN. A singular B_0 stops the
 * factorization (KLU's halt_if_singular): the repair of a guessed basis then factors it
 * with UMFPACK to find its zero pivots (warm). Same returns as umf_factor_b0. */
static int klu_factor_b0(LsimLemkeSparse *ws, int n) {
  if (ws->knum) klu_free_numeric(&ws->knum, &ws->kc);
  if (ws->ksym) klu_free_symbolic(&ws->ksym, &ws->kc);
  ws->ksym = klu_analyze(n, ws->Ap, ws->Ai, &ws->kc);
  if (!ws->ksym) return ws->kc.status == KLU_OUT_OF_MEMORY ? LSIM_OUT_OF_MEMORY : LSIM_BREAKDOWN;
  ws->knum = klu_factor(ws->Ap, ws->Ai, ws->Ax, ws->ksym, &ws->kc);
  if (!ws->knum) return ws->kc.status == KLU_OUT_OF_MEMORY ? LSIM_OUT_OF_MEMORY : LSIM_BREAKDOWN;
  if (ws->kc.status != KLU_OK || !klu_rcond(ws->ksym, ws->knum, &ws->kc) ||
      !(ws->kc.rcond >= RCOND_MIN))
    return LSIM_BREAKDOWN;
  return 0;
}

/* Factors B_0 = the basis in bvar, empties the eta file, recomputes x_B = B^{-1} q.
 * 0, LSIM_BREAKDOWN (singular) or LSIM_OUT_OF_MEMORY. */
static int refactor(void *ctx) {
  LsimLemkeSparse *ws = ctx;
  const LsimFactoredLcp *f = ws->f;
  const int n = f->n;
  const int *bvar = ws->drv.bvar;
  const double *d = ws->drv.d;
  size_t nz = 0;
  ws->neta = 0;
  ws->factors_read = 0;
  ++ws->serial;
  for (int p = 0; p < n; ++p) {
    const int v = bvar[p];
    ws->Ap[p] = (int)nz;
    if (v < n) {
      if (reserve_a(ws, nz + 1)) return LSIM_OUT_OF_MEMORY;
      ws->Ai[nz] = v;
      ws->Ax[nz++] = 1.0;
    } else if (v < 2 * n) {
      if (basis_mcol(ws, f, v - n)) return LSIM_OUT_OF_MEMORY;
      const size_t at = (size_t)ws->colc_at[v - n], len = (size_t)ws->colc_len[v - n];
      if (reserve_a(ws, nz + len)) return LSIM_OUT_OF_MEMORY;
      if (len) { /* (an empty column of an empty cache: memcpy from NULL, UBSan's error) */
        memcpy(ws->Ai + nz, ws->colc_i + at, len * sizeof(int));
        memcpy(ws->Ax + nz, ws->colc_x + at, len * sizeof(double));
      }
      nz += len;
    } else {
      if (reserve_a(ws, nz + (size_t)n)) return LSIM_OUT_OF_MEMORY;
      for (int i = 0; i < n; ++i)
        if (d[i] != 0.0) {
          ws->Ai[nz] = i;
          ws->Ax[nz++] = -d[i];
        }
    }
  }
  ws->Ap[n] = (int)nz;
  ++ws->factorizations;
  int rc = ws->klu ? klu_factor_b0(ws, n) : umf_factor_b0(ws, n);
  if (rc) return rc;
  if (ws->own_solve && !ws->klu) {
    if ((rc = get_factors(ws))) return rc;
    ws->factors_read = 1;
  }
  ws->spike_ok = 0;
  if (ws->ft && !ws->klu && (rc = ft_reset(ws))) return rc;
  memcpy(ws->rhs, f->q, (size_t)n * sizeof(double));
  if (ftran(ws, ws->drv.xb)) return LSIM_BREAKDOWN;
  for (int i = 0; i < n; ++i)
    if (!isfinite(ws->drv.xb[i])) return LSIM_BREAKDOWN;
  return 0;
}

/* ws->rhs = the column a of variable v in the augmented system (e_v, -M(:,j) or -d). */
static void ft_rhs(LsimLemkeSparse *ws, int v) {
  const int n = ws->drv.n;
  if (v < n) {
    memset(ws->rhs, 0, (size_t)n * sizeof(double));
    ws->rhs[v] = 1.0;
  } else if (v < 2 * n) {
    memset(ws->rhs, 0, (size_t)n * sizeof(double));
    const int cnt = mcol(ws, ws->f, v - n);
    for (int k = 0; k < cnt; ++k) ws->rhs[ws->touched[k]] = -ws->acc[ws->touched[k]];
    mcol_clear(ws, cnt);
  } else {
    for (int i = 0; i < n; ++i) ws->rhs[i] = -ws->drv.d[i];
  }
}

/* update's Forrest-Tomlin form (ft): x_B as the product form moves it, the factors by
 * ft_exchange; a refused exchange (or no spike of this column at hand) refactors the new
 * basis instead, x_B then afresh. 0, LSIM_OUT_OF_MEMORY or LSIM_BREAKDOWN (the new basis
 * singular). */
static int ft_update(LsimLemkeSparse *ws, int r, double theta) {
  const int n = ws->drv.n;
  const double *restrict c = ws->drv.col;
  double *restrict xb = ws->drv.xb;
  const int v = ws->drv.entering;
  int rc = 0;
  if (!ws->spike_ok || ws->spike_var != v) { /* (z0's first column, -e, is not solved for) */
    ft_rhs(ws, v);
    ws->capture = 1;
    own_ftran(ws, ws->srow, ws->rhs);
    ws->capture = 0;
  }
  rc = ft_exchange(ws, r, c[r]);
  ws->spike_ok = 0;
  ++ws->serial;
  if (rc < 0) return rc;
  if (rc == 0) {
    for (int i = 0; i < n; ++i) xb[i] = c[i] != 0.0 ? xb[i] - c[i] * theta : xb[i];
    xb[r] = theta;
    return 0;
  }
  /* Refused: the new basis (bvar as the driver will set it) factored afresh. */
  ++ws->ft_refused;
  const int old = ws->drv.bvar[r];
  ws->drv.bvar[r] = v;
  rc = refactor(ws);
  ws->drv.bvar[r] = old;
  return rc;
}

/* The exchange: the column c = drv.col enters at position r at level theta. Appends the
 * eta (c without its pivot, zeros skipped) and updates x_B. 0 or LSIM_OUT_OF_MEMORY. */
static int update(void *ctx, int r, double theta) {
  LsimLemkeSparse *ws = ctx;
  const int n = ws->drv.n;
  double *restrict c = ws->drv.col, *restrict xb = ws->drv.xb;
  const double piv = c[r];
  if (ws->ft && !ws->klu) return ft_update(ws, r, theta);
  if (ws->neta + 1 > ws->cap_eta) {
    const int ce = ws->cap_eta ? 2 * ws->cap_eta : 64;
    if (lsim_lemke_grow((void **)&ws->eta_r, (size_t)ce, sizeof(int)) ||
        lsim_lemke_grow((void **)&ws->eta_piv, (size_t)ce, sizeof(double)) ||
        lsim_lemke_grow((void **)&ws->eta_ptr, (size_t)ce + 1, sizeof(int)) ||
        lsim_lemke_grow((void **)&ws->eta_dense, (size_t)ce, 1))
      return LSIM_OUT_OF_MEMORY;
    ws->cap_eta = ce;
  }
  if (ws->neta == 0) ws->eta_ptr[0] = 0;
  size_t at = (size_t)ws->eta_ptr[ws->neta];
  if (at + (size_t)n > ws->cap_etanz) {
    size_t c2 = ws->cap_etanz ? ws->cap_etanz : 4096;
    while (c2 < at + (size_t)n) c2 *= 2;
    if (lsim_lemke_grow((void **)&ws->eta_idx, c2, sizeof(int)) ||
        lsim_lemke_grow((void **)&ws->eta_val, c2, sizeof(double)))
      return LSIM_OUT_OF_MEMORY;
    ws->cap_etanz = c2;
  }
  /* Stored dense (n values, 0 at r) above DENSE_ETA n nonzeros: contiguous loops. */
  int nnz = 0;
  for (int i = 0; i < n; ++i) nnz += c[i] != 0.0;
  nnz -= c[r] != 0.0;
  const int dense = nnz > DENSE_ETA * n;
  if (dense) { /* branch-free: c_i where nonzero, +0 elsewhere and at r; x_B moves where
                  c_i != 0 (x_r is set below) */
    double *restrict e = ws->eta_val + at;
    for (int i = 0; i < n; ++i) {
      const int nz = c[i] != 0.0;
      e[i] = nz ? c[i] : 0.0;
      xb[i] = nz ? xb[i] - c[i] * theta : xb[i];
    }
    e[r] = 0.0;
    at += (size_t)n;
  } else {
    for (int i = 0; i < n; ++i)
      if (i != r && c[i] != 0.0) {
        ws->eta_idx[at] = i;
        ws->eta_val[at++] = c[i];
        xb[i] -= c[i] * theta;
      }
  }
  ws->eta_dense[ws->neta] = (unsigned char)dense;
  ws->eta_r[ws->neta] = r;
  ws->eta_piv[ws->neta] = piv;
  ws->eta_ptr[++ws->neta] = (int)at;
  xb[r] = theta;
  ++ws->serial;
  return 0;
}

/* c = B^{-1} a for a variable v other than a basic w (a = e_v, -M(:,j) or -d): one FTRAN.
 * 0 or LSIM_BREAKDOWN. */
static int column(void *ctx, int v) {
  LsimLemkeSparse *ws = ctx;
  ws->spike_var = v;
  ft_rhs(ws, v);
  ws->capture = ws->ft; /* its spike, for the exchange (ft) */
  const int rc = ftran(ws, ws->drv.col);
  ws->capture = 0;
  ws->spike_ok = ws->ft && !rc;
  return rc;
}

/* Column k of B^{-1} for a nonbasic w_k: one FTRAN of e_k into icol. */
static const double *inv_column(void *ctx, int k, double *cmax) {
  LsimLemkeSparse *ws = ctx;
  const int n = ws->drv.n;
  memset(ws->rhs, 0, (size_t)n * sizeof(double));
  ws->rhs[k] = 1.0;
  ++ws->col_solves;
  if (ftran(ws, ws->icol)) return NULL;
  double mx = 0.0;
  for (int i = 0; i < n; ++i) {
    const double a = fabs(ws->icol[i]);
    mx = a > mx ? a : mx; /* fmax(mx, a) without the library call */
  }
  *cmax = mx;
  return ws->icol;
}

/* The all-w basis: B_0 = I factored (the driver set the maps and d = e). */
static int cold(void *ctx) { return refactor(ctx); }

/* The guessed basis: the maps, d = B e, then B_0 factored. */
static int warm_setup(LsimLemkeSparse *ws) {
  LsimLemkeDriver *drv = &ws->drv;
  const int n = drv->n;
  lsim_lemke_driver_guess_maps(drv);
  for (int j = 0; j < n; ++j) {
    if (!drv->guess[j]) continue;
    const int cnt = mcol(ws, ws->f, j);
    for (int k = 0; k < cnt; ++k) drv->d[ws->touched[k]] -= ws->acc[ws->touched[k]];
    mcol_clear(ws, cnt);
  }
  return refactor(ws);
}

/* The guessed basis: z_i at position i where guess[i], w_i elsewhere; d = B e.
 * A singular guess (redundant contacts: parallel normals, both friction directions) is
 * repaired: the guessed z_j whose column meets a pivot of U below REPAIR max|diag U| in
 * UMFPACK's factorization (column Q[k] for pivot k) are dropped from the guess (w_j
 * basic instead, so the basis stays complementary) and the basis is factored again, at
 * most REPAIR_ROUNDS times. */
#define REPAIR 1e-11
#define REPAIR_ROUNDS 6
static int warm(void *ctx) {
  LsimLemkeSparse *ws = ctx;
  const int n = ws->drv.n;
  for (int round = 0;; ++round) {
    const int st = warm_setup(ws);
    if (st != LSIM_BREAKDOWN || round == REPAIR_ROUNDS) return st;
    /* KLU stops at a zero pivot: UMFPACK factors the same B_0 for its pivots. */
    if (ws->klu && umf_factor_b0(ws, n) == LSIM_OUT_OF_MEMORY) return LSIM_OUT_OF_MEMORY;
    if (!ws->numeric) return st;
    double *dx = ws->drv.work2;
    if (umfpack_di_get_numeric(NULL, NULL, NULL, NULL, NULL, NULL, NULL, ws->qperm, dx, NULL,
                               NULL, ws->numeric) != UMFPACK_OK)
      return st;
    double dmax = 0.0;
    for (int k = 0; k < n; ++k)
      if (isfinite(dx[k])) dmax = fmax(dmax, fabs(dx[k]));
    int dropped = 0;
    for (int k = 0; k < n; ++k) {
      const int p = ws->qperm[k];
      if (!(fabs(dx[k]) > REPAIR * dmax) && ws->drv.guess[p]) ws->drv.guess[p] = 0, ++dropped;
    }
    if (!dropped) return st;
  }
}

/* The residual on the factored problem (u = B z in ws->u). */
static void residual(void *ctx, const double *z, double *w, LsimResidual *res) {
  LsimLemkeSparse *ws = ctx;
  lsim_factored_residual(ws->f, z, ws->u, w, res);
}

/* Every row within ftol or its rounding floor, on the factored problem (u = |B| |z| in
   ws->u). */
static int within_floor(void *ctx, const double *z, const double *w, double ftol) {
  LsimLemkeSparse *ws = ctx;
  return lsim_factored_rows_within_floor(ws->f, z, w, ftol, ws->u);
}

static const LsimLemkeBasisOps sparse_ops = {column, binv_row, update,   refactor,  cold,
                                             warm,   reserve,  residual, inv_column,
                                             has_row, row_sum, within_floor};

/* The dense fallback (DENSE FALLBACK above) after the sparse runs ended on status: M
 * formed column by column, lemke.c's cold runs with the solve's options. When they solve,
 * z, the basis and the status are theirs; else z and status stay the sparse runs'. Their
 * pivots are added to *pivots and recorded as LSIM_LEMKE_STAGE_DENSE. Returns the status:
 * LSIM_SOLVED, status, or LSIM_OUT_OF_MEMORY (z then as the sparse runs left it). */
static int dense_fallback(LsimLemkeSparse *ws, int status, const LsimLemkeOptions *o,
                          double *z, int *pivots, LsimLemkeInfo *info) {
  const LsimFactoredLcp *f = ws->f;
  const int n = f->n;
  const size_t nn = (size_t)n * (size_t)n;
  if (!ws->dense && !(ws->dense = lsim_lemke_create())) return LSIM_OUT_OF_MEMORY;
  if (nn > ws->cap_mdense) {
    if (lsim_lemke_grow((void **)&ws->mdense, nn, sizeof(double)) ||
        lsim_lemke_grow((void **)&ws->zdense, (size_t)n, sizeof(double)))
      return LSIM_OUT_OF_MEMORY;
    ws->cap_mdense = nn;
  }
  /* M = J B + C, column by column (mcol). */
  double *restrict mcols = ws->mdense;
  memset(mcols, 0, nn * sizeof(double));
  for (int j = 0; j < n; ++j) {
    const int cnt = mcol(ws, f, j);
    for (int k = 0; k < cnt; ++k) mcols[(size_t)j * n + ws->touched[k]] = ws->acc[ws->touched[k]];
    mcol_clear(ws, cnt);
  }
  const LsimLcp lcp = {.n = n, .M = mcols, .q = (double *)f->q, .ncones = f->ncones,
                       .cones = f->cones};
  memset(ws->zdense, 0, (size_t)n * sizeof(double));
  LsimLemkeInfo di;
  memset(&di, 0, sizeof di);
  const int ds = lsim_lemke_solve(ws->dense, &lcp, o, NULL, ws->zdense, &di);
  *pivots += di.pivots;
  if (info) {
    info->stage_status[LSIM_LEMKE_STAGE_DENSE] = ds;
    info->stage_pivots[LSIM_LEMKE_STAGE_DENSE] = di.pivots;
  }
  if (ds == LSIM_OUT_OF_MEMORY) return ds;
  if (ds != LSIM_SOLVED) return status;
  memcpy(z, ws->zdense, (size_t)n * sizeof(double));
  memcpy(ws->drv.basis, lsim_lemke_basis(ws->dense), (size_t)n);
  ws->drv.basis_valid = 1;
  return LSIM_SOLVED;
}

/* 1 when a value of f is not finite. */
static int not_finite(const LsimFactoredLcp *f) {
  for (int i = 0; i < f->n; ++i)
    if (!isfinite(f->q[i])) return 1;
  for (int k = 0; k < f->J_ptr[f->n]; ++k)
    if (!isfinite(f->J_val[k])) return 1;
  for (int k = 0; k < f->B_ptr[f->n]; ++k)
    if (!isfinite(f->B_val[k])) return 1;
  if (f->C_ptr)
    for (int k = 0; k < f->C_ptr[f->n]; ++k)
      if (!isfinite(f->C_val[k])) return 1;
  return 0;
}

int lsim_lemke_sparse_solve(LsimLemkeSparse *ws, const LsimFactoredLcp *f,
                            const LsimLemkeOptions *opt, const unsigned char *basis_guess,
                            double *z, LsimLemkeInfo *info) {
  const LsimLemkeOptions o = lsim_lemke_driver_options(opt, info);
  int pivots = 0, status, have_start = 0;
  if (ws) ws->factorizations = ws->row_solves = ws->col_solves = ws->sum_solves = 0;
  /* Every row (factored.h: a problem whose negated directions are implicit). */
  if (f && f->full && !(f = lsim_factored_full(f))) {
    status = LSIM_OUT_OF_MEMORY;
    goto out;
  }
  if (!ws || !f || f->n < 0 || f->m < 0 ||
      (f->n > 0 && (!z || !f->q || !f->J_ptr || !f->B_ptr)) || o.max_pivots < 0 ||
      !(o.tol > 0.0) || !isfinite(o.tol)) {
    status = LSIM_INVALID_INPUT;
    goto out;
  }
  const int n = f->n;
  ws->drv.basis_valid = 0;
  if (n > 0 && not_finite(f)) {
    memset(z, 0, (size_t)n * sizeof(double));
    status = LSIM_INVALID_INPUT;
    goto out;
  }
  const int max_pivots = o.max_pivots > 0 ? o.max_pivots : 10 * (n + 1) + 100;
  if (n == 0) {
    status = LSIM_SOLVED;
    goto out;
  }
  ws->f = f;
  if ((status = lsim_lemke_driver_begin(&ws->drv, n, f->q, z, basis_guess, &have_start)))
    goto out;
  /* Column copies of J and C. */
  if (transpose(n, f->m, f->J_ptr, f->J_idx, f->J_val, ws->jt_ptr, &ws->jt_idx, &ws->jt_val,
                &ws->cap_jt) ||
      (f->C_ptr && transpose(n, n, f->C_ptr, f->C_idx, f->C_val, ws->ct_ptr, &ws->ct_idx,
                             &ws->ct_val, &ws->cap_ct))) {
    status = LSIM_OUT_OF_MEMORY;
    goto out;
  }
  ws->has_c = f->C_ptr != NULL;
  if (++ws->gen == 0) { /* a new solve: B_0's cached columns are stale (gen 0: never set) */
    memset(ws->colc_gen, 0, (size_t)ws->cap * sizeof(unsigned));
    ws->gen = 1;
  }
  ws->colc_used = 0;
  for (int k = 0; k < NCACHE; ++k) ws->rowpos[k] = -1;

  /* The path (lemke_driver.c). */
  ws->drv.accept_floor = o.floor;
  status = lsim_lemke_driver_solve(&ws->drv, basis_guess != NULL, max_pivots, o.tol, z, &pivots,
                                   info);

  /* The dense fallback: after a ray or a breakdown of the cold runs (not the pivot
     limit, nor warm paths alone), on problems small enough to form M. */
  if ((status == LSIM_SECONDARY_RAY || status == LSIM_BREAKDOWN) && ws->dense_fallback &&
      n <= DENSE_MAX && !(basis_guess && ws->drv.warm_only))
    status = dense_fallback(ws, status, &o, z, &pivots, info);

out:
  return lsim_lemke_driver_end(ws ? &ws->drv : NULL, status,
                               have_start && status != LSIM_OUT_OF_MEMORY, pivots, z, info);
}
