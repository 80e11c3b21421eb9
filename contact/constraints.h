/* constraints.h: the rows of tethers and bilateral joints (contact/world.h), appended to a
 * step's contact set after contact detection.
 *
 * Every row follows the contact convention (contact/contact.h): a Jacobian over at most
 * two bodies with gap rate = J v + bias, where bias is the explicit time derivative of the
 * gap that anchors moving on prescribed paths bring (file 003's d psi / dt; in a time step
 * their mean over the step, lsim_constraint_rows_step). With
 * n = the contact's normal, body a's block is [n, r_a x n] and body b's -[n, r_b x n]
 * (2-D: [n_x, n_y, (r x n)_z]; 1-D: n_x), r the lever arm from the body origin to its end.
 *
 *   tether (kind TETHER, 1 row):   gap = psi = length - |p_a - p_b|, n = -u,
 *                                  u = (p_a - p_b) / |p_a - p_b|
 *   pin    (kind EQUALITY, dim rows, one per world axis e_k):
 *                                  gap = (p_a - p_b) . e_k, n = e_k
 *   rod    (kind EQUALITY, 1 row): gap = |p_a - p_b| - length, n = u
 *
 * Ends on static bodies or on world points contribute no Jacobian block (body -1 in the
 * row); ends on kinematic bodies contribute their block like contacts do (their velocity
 * is prescribed). When p_a = p_b, u is undefined: the +x axis is used (deterministic).
 */
#ifndef LSIM_CONSTRAINTS_H
#define LSIM_CONSTRAINTS_H

#include "contact/contact.h"
#include "contact/world.h"

/* Contact ids of the constraint rows: distinct from every contact id (contact ids have
 * body indices >= -1 in their first slot). Tether i: lsim_contact_id(-2, i, 0); joint j,
 * row k: lsim_contact_id(-3, j, k). */
uint64_t lsim_tether_id(int tether);
uint64_t lsim_joint_id(int joint, int row);

/* Number of rows joint j contributes: pin = the dimension, rod = 1. */
int lsim_joint_rows(const LsimModel *m, int joint);

/* World position p and velocity v of an anchor at time t in state st: a body point
 * (v = v_body + w x r, from st->v; static bodies have v = 0) or a prescribed point
 * (lsim_motion_eval). Components beyond the dimension are 0. */
void lsim_anchor_eval(const LsimModel *m, const LsimState *st, const LsimAnchor *a, double t,
                      double p[3], double v[3]);

/* |p_a - p_b| of tether i at time t in st, m. */
double lsim_tether_length(const LsimModel *m, const LsimState *st, double t, int tether);

/* Position error of joint j at time t in st, m: pin |p_a - p_b|; rod ||p_a - p_b| - length|. */
double lsim_joint_error(const LsimModel *m, const LsimState *st, double t, int joint);

/* Joint j's position error (lsim_joint_error) into *position and the rate of it into
 * *velocity (either may be NULL) at time t in st, from one evaluation of its ends: the
 * largest |J v + bias| over its rows as lsim_constraint_rows builds them at t (the same
 * bits), without building the other joints' and tethers' rows. Cannot fail. */
void lsim_joint_errors(const LsimModel *m, const LsimState *st, double t, int joint,
                       double *position, double *velocity);

/* Appends to set (after contact detection; nothing is cleared) one contact per tether
 * (kind TETHER, every tether every step, slack ones too: their gap / h keeps them
 * inactive) and one per joint row (kind EQUALITY), in tether order then joint order, a
 * joint's rows consecutive. Each gets id (above), source (the tether or joint index),
 * body[] (the ends' bodies, -1 for world points), gap, bias, point = p_a, normal, mu 0,
 * ndir 0. The anchors are taken at time t (normally st->time). Needs m finalized and st
 * of m. Returns 0 or LSIM_OUT_OF_MEMORY (the set then holds the rows appended so far). */
int lsim_constraint_rows(const LsimModel *m, const LsimState *st, double t,
                         LsimContactSet *set);

/* lsim_constraint_rows for a time step of length h > 0 from t: the bias of a row with a
 * prescribed end is that end's mean velocity over [t, t + h] ((p(t + h) - p(t)) / h) along
 * the row, not its velocity at t, so the row's gap after the step, gap + h (J v' + bias),
 * carries the path's exact displacement (to first order in the row's direction). h = 0:
 * the velocity at t (lsim_constraint_rows: the event-driven integrator, the assembly). */
int lsim_constraint_rows_step(const LsimModel *m, const LsimState *st, double t, double h,
                              LsimContactSet *set);

#endif
