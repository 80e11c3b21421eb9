/* equality.h: eliminating equality (bilateral joint) rows from the time step's mixed LCP by
 * a Schur complement, factored with CHOLMOD.
 *
 * The step's mixed problem, with W = M^-1, B_E = W J_E', B_I = W J_I':
 *     J_E v' + b_E = 0                      (joint rows, impulses lambda free in sign)
 *     0 <= z _|_ J_I v' + b_I + C z >= 0    (contact and tether rows: the LCP)
 *     v' = v_free + B_E lambda + B_I z.
 * With A = J_E B_E (symmetric positive semi-definite; definite when the joint rows are
 * independent):
 *     lambda = -A^-1 (J_E v_free + b_E) - A^-1 (J_E B_I) z = lambda_free - X z,
 * so v' = v_free' + B_I' z with v_free' = v_free + B_E lambda_free and
 * B_I' = B_I - B_E X: the same factored LCP (M = J_I B_I' + C) on the reduced problem,
 * which any LCP solver takes. A is factored by CHOLMOD each step (it depends on the
 * configuration); X has one column per LCP row.
 *
 * Dependent joint rows (redundant joints: a body pinned to the world at two points, a 3-D
 * hinge made of two ball joints on its axis) make A singular: A^-1 is then A^+, the
 * least-norm split of the impulses, from a dense pivoted Cholesky (equality.c), chosen
 * when CHOLMOD stops or its condition estimate is below 1e-10.
 *
 * Failure modes: out of memory; a dense factor that breaks down (not seen: G'G of full
 * column rank r is positive definite).
 */
#ifndef LSIM_EQUALITY_H
#define LSIM_EQUALITY_H

#include <stddef.h>

typedef struct LsimEquality LsimEquality;

LsimEquality *lsim_equality_create(void);
void lsim_equality_free(LsimEquality *e);

/* Eliminates ne equality rows (J_E CSR over nv velocities, B_E = W J_E' CSC with the same
 * layout, right-hand sides b_E [ne]) from a problem whose LCP rows are J_I (CSR, ni rows)
 * with B_I (CSC). On return v_free [nv] is v_free' and B_I is replaced by B_I' (arrays
 * grown through *BI_idx / *BI_val with capacity *cap; BI_ptr [ni + 1] rewritten). Keeps
 * lambda_free and X for lsim_equality_impulses. Returns 0, LSIM_INVALID_INPUT (the dense
 * factor broke down: message in err) or LSIM_OUT_OF_MEMORY. */
int lsim_equality_eliminate(LsimEquality *e, int nv, int ne, const int *JE_ptr,
                            const int *JE_idx, const double *JE_val, const int *BE_ptr,
                            const int *BE_idx, const double *BE_val, const double *bE,
                            double *v_free, int ni, const int *JI_ptr, const int *JI_idx,
                            const double *JI_val, int *BI_ptr, int **BI_idx, double **BI_val,
                            int *cap, char *err, size_t errlen);

/* The joint impulses of the last elimination for the LCP solution z [ni]:
 * lambda = lambda_free - X z, into lambda [ne]. */
void lsim_equality_impulses(const LsimEquality *e, const double *z, double *lambda);

#endif
