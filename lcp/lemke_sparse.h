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

/* on = 1 (the default): the ratio test's tie bounds (a row of B^{-1} each, lemke_driver.c)
 * first try an upper bound on |B^{-1}_i| |q| carried through the exchanges, and solve for
 * the row only when that bound does not rule the tie out: the same decisions, fewer
 * transposed solves; each exchange updates only the bounds that are finite. 2: the same
 * with every exchange updating all n bounds (the reference for the update's tests: the
 * same bits). 0: every bound solves for its row (as before; for comparisons). */
void lsim_lemke_sparse_set_carry_bounds(LsimLemkeSparse *ws, int on);

/* on = 1 (the default): FTRAN applies runs of up to 8 dense etas in one pass over the
 * vector, four lanes at a time where the CPU has AVX2; 2: the same runs with the build's
 * own vectors (SSE2 on x86-64); 0: one eta at a time. All three give the same bits
 * (lemke_sparse.c); 0 and 2 are there for comparisons. */
void lsim_lemke_sparse_set_eta_block(LsimLemkeSparse *ws, int on);

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
