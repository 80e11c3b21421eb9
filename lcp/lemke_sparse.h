/* lemke_sparse.h: Lemke's method (lemke.c) on the factored LCP M = J B + C (factored.h),
 * the basis kept as a sparse LU (UMFPACK) with product-form (eta) updates between
 * refactorizations, never forming M. Math, references and failure modes are at the top
 * of lemke_sparse.c; options, statuses and the info record are lemke.h's. */
#ifndef LSIM_LEMKE_SPARSE_H
#define LSIM_LEMKE_SPARSE_H

#include "factored.h"
#include "lemke.h"

typedef struct LsimLemkeSparse LsimLemkeSparse;

LsimLemkeSparse *lsim_lemke_sparse_create(void);
void lsim_lemke_sparse_free(LsimLemkeSparse *ws);

/* As lsim_lemke_solve (lemke.h) on the factored problem f: z on entry is the caller's point
 * (never returned worse on failure, info->rejected), basis_guess [n] or NULL (1 where z_i is
 * guessed basic). opt->max_pivots 0 = 10 (n + 1) + 100 per run. Returns info->status. */
int lsim_lemke_sparse_solve(LsimLemkeSparse *ws, const LsimFactoredLcp *f,
                            const LsimLemkeOptions *opt, const unsigned char *basis_guess,
                            double *z, LsimLemkeInfo *info);

/* on != 0: when the path from basis_guess fails, the solves that follow try the basis
 * {i : z_i > 0} of the caller's point (when it differs) before the cold runs; 0 (the
 * default): straight to the cold runs, as lemke.c. */
void lsim_lemke_sparse_set_retry_positive(LsimLemkeSparse *ws, int on);

/* on != 0: with a basis guess, only the warm paths run (from the guess, and with
 * retry_positive from {i : z_i > 0}); when they fail the solve ends with their status and
 * the caller's point, no cold runs (for a caller that has run the cold ones already).
 * 0 (the default): the cold runs follow. No effect without a guess. */
void lsim_lemke_sparse_set_warm_only(LsimLemkeSparse *ws, int on);

/* on != 0: the path from basis_guess covers with d = B x' instead of B e, x' > 0 the
 * caller's point z in that basis (basic z_i, and w = M z + q at the basic w_i, clamped at
 * 0), each shifted by its largest entry: for a guess carried from the last step, the path
 * follows the change of the problem from the last solution's values (docs/solvers.md,
 * "Sparse Lemke"). With retry_positive the retry from {z > 0} is covered likewise and,
 * when it fails too, run again with B e before the cold runs. Changes the paths, not what
 * ends them (the same tests, statuses and cold runs). 0 (the default): d = B e. */
void lsim_lemke_sparse_set_cover_previous(LsimLemkeSparse *ws, int on);

/* on = 1 (the default): the ratio test's tie bounds (a row of B^{-1} each, lemke_driver.c)
 * first try an upper bound on |B^{-1}_i| |q| carried through the exchanges, and solve for
 * the row only when that bound does not rule the tie out: the same decisions, fewer
 * transposed solves; each exchange updates only the bounds that are finite. 2: the same
 * with every exchange updating all n bounds (the reference for the update's tests: the
 * same bits). 0: every bound solves for its row (as before; for comparisons). */
void lsim_lemke_sparse_set_carry_bounds(LsimLemkeSparse *ws, int on);

/* on = 1 (the default): a ratio test examines no other row's tie (each may need a row of
 * B^{-1} for its rounding bound) where the pivot is decided without them: z0 is the
 * minimizing row or ties with it, or the terminal test takes z0 (and no refactorization
 * can follow the lexicographic rule's verdict) or ends the path. The same decisions and
 * bits, fewer transposed solves (pile_1000's last pivots meet ties of thousands of rows
 * near zero). 0: every row examined (the reference for the tests). 2: also where the
 * terminal test takes z0 and the lexicographic rule's verdict could have asked for a
 * refactorization first (then not made): the same pivots, the last bits may differ.
 * The environment variable LSIM_TIES_SHORTCUT=0|1|2 sets it at lsim_lemke_sparse_create
 * (for comparisons through the solver front), as LSIM_BOUND_SUMS=0|1 sets the next. */
void lsim_lemke_sparse_set_shortcut_ties(LsimLemkeSparse *ws, int on);

/* on = 1 (the default): the ratio test's tie bound of a row not at hand (|B^{-1}_i| |q|)
 * is summed from a transposed solve on the LU factors read out after the factorization,
 * skipping zeros, without keeping the row, instead of UMFPACK's solve (about three times
 * dearer on pile_1000). The sums agree to rounding, so do the decisions: the same paths and
 * z bits on every problem measured (docs/solvers.md). Counted among the transposed solves
 * (lsim_lemke_sparse_counts). 0: UMFPACK's rows. */
void lsim_lemke_sparse_set_bound_sums(LsimLemkeSparse *ws, int on);

/* rounds > 0: a solve with a basis guess first repairs it by up to this many rounds of
 * block principal pivoting (the more negative half of the rows with x_B < 0 exchange their
 * complementary pair, the basis factored again each round; the basis with the fewest such
 * rows kept: lemke_driver.c, block_start) and runs Lemke's path from the repaired basis;
 * when that path fails, the path from the guess as given follows (then the retry and the
 * cold runs as before). Other paths; on falling pile_1000 1.3-4.1 times fewer pivots from
 * the carried basis with 16 rounds, on settled pile_100 fewer pivots but 12 times the
 * factorizations and a slower step (docs/solvers.md). 0 (the default): off. The
 * environment variable LSIM_BLOCK_START=K sets it at lsim_lemke_sparse_create (for
 * comparisons through the solver front). */
void lsim_lemke_sparse_set_block_start(LsimLemkeSparse *ws, int rounds);

/* budget > 0: a solve with a basis guess first takes up to budget single principal pivots
 * from it (of the complementary pairs with a negative basic value, the most negative whose
 * pivot makes it feasible exchanges its variables: principal_phase in lemke_driver.c), and
 * when they end at a basis whose basic solution passes the acceptance test, that is the
 * solution (LsimLemkeInfo: principal_pivots, principal_solved); else the solve goes on
 * from the guess as given exactly as with 0 (the default): the same path, status, residual
 * and z, the phase's pivots added to the count. Falling pile_1000 (steps 22-29): the
 * phase solves each with about Lemke's pivots in 1.7-3.2 times less CPU time (pile_100's
 * steps 0-60: 22 % less); settled pile_100: it mostly stops short (docs/solvers.md,
 * "Settled pile_100, steps 101-119"). Through the solver front: lsim_solver_set_principal. */
void lsim_lemke_sparse_set_principal(LsimLemkeSparse *ws, int budget);

/* on = 1 (the default): FTRAN applies runs of up to 8 dense etas in one pass over the
 * vector, four lanes at a time where the CPU has AVX2; 2: the same runs with the build's
 * own vectors (SSE2 on x86-64); 0: one eta at a time. All three give the same bits
 * (lemke_sparse.c); 0 and 2 are there for comparisons. */
void lsim_lemke_sparse_set_eta_block(LsimLemkeSparse *ws, int on);

/* on = 1: B_0's solves (FTRAN's and BTRAN's) run on the LU factors read out of UMFPACK
 * after each factorization, column by column skipping zeros, so a sparse right-hand side
 * reaches only part of L and U (lemke_sparse.c); other bits than UMFPACK's own solve (the
 * sums go in another order), so other paths at degenerate vertices. 0: UMFPACK's solve.
 * The default is taken from the environment variable LSIM_LU_SOLVE at create ("own" 1,
 * "umfpack" 0, unset: the built-in default). 0 also turns the Forrest-Tomlin updates off
 * (lsim_lemke_sparse_set_ft: they update those factors). */
void lsim_lemke_sparse_set_own_solve(LsimLemkeSparse *ws, int on);

/* on != 0: B_0 factored and solved by KLU (SuiteSparse; BTF, AMD on each block,
 * left-looking LU) instead of UMFPACK; the eta file, the driver and every tolerance as
 * before. Other bits than UMFPACK's (other factors), so other paths at degenerate
 * vertices; own_solve has no effect with it. 0 (the default): UMFPACK. The default is
 * taken from LSIM_LU_SOLVE at create ("klu" 1). */
void lsim_lemke_sparse_set_klu(LsimLemkeSparse *ws, int on);

/* on != 0: the basis kept as B_0's LU factors read out (own_solve, which this turns on)
 * with Forrest-Tomlin updates (a spike column in U and a row eta a pivot) instead of the
 * product-form eta file: a solve costs about one pass over L and U however many pivots
 * since the factorization, and an update whose new diagonal disagrees with the pivot is
 * refused (the basis factored afresh). Other bits than the eta file's, so other paths at
 * degenerate vertices (docs/solvers.md, "Forrest-Tomlin"). 0 (the default): the eta file.
 * No effect with klu. The default is taken from LSIM_LU_SOLVE at create ("ft" 1). */
void lsim_lemke_sparse_set_ft(LsimLemkeSparse *ws, int on);

/* The Forrest-Tomlin updates made and refused (the basis factored instead) since create. */
void lsim_lemke_sparse_ft_counts(const LsimLemkeSparse *ws, int *updates, int *refused);

/* Pivots between refactorizations of B_0 (the eta file's length; the drift rule still
 * halves it within a solve down to 10, and a cold run starts again from it): every in
 * 10 .. 100000, 100 by default. Other refactorization points round otherwise, so other
 * paths at degenerate vertices (docs/solvers.md: 200 took 4.5 % fewer instructions on
 * settled pile_100 steps 0-75, the same pivots there, other paths on steps 110-119).
 * 0, or LSIM_INVALID_INPUT (the interval unchanged). The default is taken from the
 * environment variable LSIM_LU_REFACTOR at create (an integer in that range; anything else
 * is ignored). */
int lsim_lemke_sparse_set_refactor(LsimLemkeSparse *ws, int every);

/* The settings the workspace's solves take now (its environment's as created, or the
 * setters'): rounds of block pivoting, KLU (1) or UMFPACK (0), with UMFPACK our solves on
 * its factors (own_solve 1) or its own (0), Forrest-Tomlin updates of those factors (ft 1,
 * with own_solve 1) or the eta file (0), pivots between refactorizations. */
void lsim_lemke_sparse_get_settings(const LsimLemkeSparse *ws, int *block_rounds, int *klu,
                                    int *own_solve, int *ft, int *refactor);

/* For its test: with B_0 of the last factorization of the last solve (ws holds it until
 * the next solve), x_umfpack = B_0^{-1} b by UMFPACK's solve and x_own by the factors read
 * out (own_solve), B_0^{-T} b when transposed; res[0], res[1] the largest entry of
 * |b - B_0 x| of each and res[2] the largest of |B_0| |x_own| + |b|. b, x_umfpack, x_own
 * [n], distinct. 0, LSIM_INVALID_INPUT (no factorization), LSIM_BREAKDOWN or
 * LSIM_OUT_OF_MEMORY. */
int lsim_lemke_sparse_test_solves(LsimLemkeSparse *ws, int transposed, const double *b,
                                  double *x_umfpack, double *x_own, double res[3]);

/* on != 0 (the default): when the sparse runs end on a ray or a breakdown (not the pivot
 * limit; not with warm_only and a guess) and n <= 2048, lemke.c's cold runs follow on M
 * formed densely, whose bits no BLAS kernel changes (DENSE FALLBACK in lemke_sparse.c);
 * 0: the sparse runs alone (for comparisons). */
void lsim_lemke_sparse_set_dense_fallback(LsimLemkeSparse *ws, int on);

/* The final complementary basis of the last solved solve, [n]; NULL before any. */
const unsigned char *lsim_lemke_sparse_basis(const LsimLemkeSparse *ws);

/* Refactorizations (sparse LUs), transposed solves (rows of B^{-1}) and solves for columns
 * of B^{-1} (the lexicographic rule's, beside the entering columns) of the last solve; each
 * pointer may be NULL. */
void lsim_lemke_sparse_counts(const LsimLemkeSparse *ws, int *factorizations, int *row_solves,
                              int *column_solves);

/* Sorts cnt distinct ints ascending in place (the row indices of a column of the basis
 * before UMFPACK): as qsort would, in one pass when already ascending, by insertion when
 * short. Exposed for its test. */
void lsim_lemke_sparse_sort_rows(int *t, int cnt);

#endif
