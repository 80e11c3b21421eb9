/* assembly.h: consistent initial conditions for joints (RBDL's CalcAssemblyQ and
 * CalcAssemblyQDot with unit weights).
 *
 * Positions: Gauss-Newton on the joint rows' position errors phi(q) (contact/constraints.h:
 * pin rows d . e_k, rod rows |d| - length): each iteration moves the state by the
 * least-norm velocity-space step dv = -J' (J J' + eps I)^-1 phi (eps = 1e-14 max diag J J',
 * so dependent rows do not stop it), applied as positions += dv (3-D orientations rotated
 * by the rotation vector of dv's angular part), until max |phi| <= tol or max_iter
 * iterations. Velocities: the least-norm change that makes the joint rows' velocities
 * (J v + bias) zero, v -= J' (J J' + eps I)^-1 (J v + bias). Static bodies and world
 * anchors do not move.
 */
#ifndef LSIM_ASSEMBLY_H
#define LSIM_ASSEMBLY_H

#include <stddef.h>

#include "contact/world.h"

/* Assembles st (at time st->time) onto model's joints. error_before[njoints] (may be NULL)
 * gets each joint's position error (lsim_joint_error) before. Returns 0, with every row's
 * |phi| <= tol; LSIM_MAX_ITERATIONS when max_iter iterations did not reach tol (err names
 * the joint with the largest error and its value; st holds the last iterate);
 * LSIM_OUT_OF_MEMORY. */
int lsim_assemble(const LsimModel *model, LsimState *st, double tol, int max_iter,
                  double *error_before, char *err, size_t errlen);

/* The rate of joint j's position error at st: the largest |J v + bias| over its rows (m/s;
 * bias: a moving anchor's rate), what the velocity projection makes zero
 * (lsim_joint_errors at st->time). */
double lsim_joint_velocity_error(const LsimModel *model, const LsimState *st, int joint);

#endif
