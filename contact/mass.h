/* mass.h: a coupled mass matrix H over all generalized velocities, factored by CHOLMOD.
 *
 * Rigid bodies have block-diagonal mass matrices, inverted body by body. Generalized
 * coordinates that are coupled through inertia (the H of H qdd = tau + J f in the
 * project's "Rigid contact" note) have a general sparse symmetric positive definite H:
 * CHOLMOD factors it (H = L L', supernodal or simplicial as CHOLMOD chooses), and the step
 * gets v_free = v + h H^-1 f and B = H^-1 J' from it. The factorization is done when the
 * stepper is created (H is constant in the worlds lcpsim builds; a configuration-
 * dependent H would be refactored each step by lsim_mass_refactor).
 */
#ifndef LSIM_MASS_H
#define LSIM_MASS_H

#include <stddef.h>

#include "contact/world.h"

typedef struct LsimMassFactor LsimMassFactor;

/* Builds H from the model (diagonal body masses plus the inertial couplings) and factors
 * it. Returns 0, LSIM_INVALID_INPUT (H not positive definite: the message says so) or
 * LSIM_OUT_OF_MEMORY, with a message in err. */
int lsim_mass_factor_create(LsimMassFactor **out, const LsimModel *model, char *err,
                            size_t errlen);
void lsim_mass_factor_free(LsimMassFactor *f);

/* x = H^-1 b, b and x of length nv (may alias). Reuses its workspace: no allocation after
 * the first call. 0 or < 0. */
int lsim_mass_solve(LsimMassFactor *f, const double *b, double *x);

/* The columns B(:, i) = H^-1 J_i' of the n rows of J (CSR over nv columns) into CSC
 * arrays (grown as needed: *cap entries each; pointers may move). Entries that are exactly
 * zero are dropped. 0 or LSIM_OUT_OF_MEMORY. */
int lsim_mass_solve_rows(LsimMassFactor *f, int n, const int *J_ptr, const int *J_idx,
                         const double *J_val, int *B_ptr, int **B_idx, double **B_val,
                         int *cap);

#endif
