/* step.c: the Stewart-Trinkle time step (see step.h for the equations).
 *
 * Stages, in order: free velocities (applied forces and gravity over h), contact
 * detection, LCP assembly from the contact rows, warm start by contact id, solve,
 * velocity and position update, store impulses on the contacts and remember them. The
 * assembly (stage 3) is in step_lcp.c; the workspace in step_private.h.
 *
 * Assembly works on Jacobian rows only and never forms the Delassus matrix itself: it
 * builds the factored LCP (lcp/factored.h) M = J B + C with J the rows over the dynamic
 * bodies' velocities (CSR), B = W J' (W = M^-1, block diagonal per body, so B has J's
 * pattern) and C the cone couplings E, -E', mu. PGS works on that form at a cost per sweep
 * proportional to its nonzeros; every other solver gets the dense M formed by the solver
 * front end. After the solve, v' = v_free + B z.
 *
 * Failure modes: a solver that does not solve still leaves a finite z; the step then
 * integrates with it and returns the solver status, so the caller can record and count
 * the failure; nothing becomes NaN.
 */
#include "contact/step_private.h"

#include "lcp/team.h"

#include "contact/constraints.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static int invert_inertias(LsimStepper *s, const LsimModel *m, char *err, size_t errlen);

/* The energy guard's judge (lcp/solver.h, ENERGY GUARD), for a step whose fallback chain met
 * no tolerance: the kinetic energy the impulses z of the LCP's variables vars (NULL: all)
 * add to the free motion, K(v_free + B z) - K(v_free) (lsim_kinetic_energy, the measure
 * of /energy/kinetic, at the step's configuration), beyond a slack of 1e-6 K(v_free) +
 * 1e-12 J. An exact solution's impulses add none but what its rows' targets ask (a
 * restitution bounce, an overlap's recovery at most the slop a step: their work is
 * -b . z); a failed solve's impulses are not trusted with that work, as a failed solve with
 * restitution is solved again inelastic (lsim_step). The slack passes the rounding of
 * the two sums (1e-16 relative) and the complementarity error of the near-solutions the
 * chain leaves (relative residuals 1e-10 .. 1e-6, docs/solvers.md): it refuses what the
 * degenerate problems of a pin with a contact beside it gave, impulses of 1e10 N*s
 * cancelling to 1e-6 and adding 0.7 J to a system of 0.07 J in a step. */
static double energy_excess(void *ctx, const double *z, const int *vars, int n) {
  LsimStepper *s = ctx;
  const LsimModel *m = s->guard_model;
  if (!m || !s->guard_state) return 0.0;
  LsimState t = *s->guard_state;
  double *v = s->guard_v;
  if (s->guard_k0 < 0.0) {
    t.v = s->v_free;
    s->guard_k0 = lsim_kinetic_energy(m, &t);
  }
  memcpy(v, s->v_free, (size_t)m->nv * sizeof(double));
  const LsimFactoredLcp *f = lsim_factored_full(&s->f); /* every column of B */
  if (!f) return INFINITY;
  for (int r = 0; r < n; ++r) {
    const int i = vars ? vars[r] : r;
    for (int k = f->B_ptr[i]; k < f->B_ptr[i + 1]; ++k) v[f->B_idx[k]] += f->B_val[k] * z[r];
  }
  t.v = v;
  const double added = lsim_kinetic_energy(m, &t) - s->guard_k0;
  return isfinite(added) ? added - (1e-6 * s->guard_k0 + 1e-12) : INFINITY;
}

int lsim_stepper_create(LsimStepper **out, const LsimModel *model, const char *solver_name,
                        char *err, size_t errlen) {
  *out = NULL;
  LsimStepper *s = calloc(1, sizeof *s);
  if (!s) {
    snprintf(err, errlen, "out of memory");
    return LSIM_OUT_OF_MEMORY;
  }
  LsimSolverOptions o = lsim_default_solver_options();
  o.tol = model->solver.tol;
  o.max_iter = model->solver.max_iter;
  o.omega = model->solver.omega;
  o.warm_start = model->solver.warm_start;
  o.threads = model->solver.threads;
  o.islands = model->solver.islands;
  o.sparse_limit = model->solver.sparse_limit;
  o.block_start = model->solver.block_start;
  o.principal = model->solver.principal;
  o.precision = model->solver.precision;
  o.lu_solve = model->solver.lu_solve;
  o.lu_refactor = model->solver.lu_refactor;
  o.fallback = model->solver.on_failure == LSIM_ON_FAILURE_FALLBACK;
  o.impulse_unit = 1; /* the step's z are impulses of these bodies (solver.h) */
  const char *name = solver_name ? solver_name : model->solver.name;
  int rc = lsim_solver_create(&s->solver, name, &o, err, errlen);
  if (rc) {
    free(s);
    return rc;
  }
  /* A failed step's impulses may not add kinetic energy (energy_excess). */
  if (o.fallback) lsim_solver_set_energy_judge(s->solver, energy_excess, s);
  s->nbodies = model->nbodies;
  s->dimension = model->dimension;
  s->team_min_contacts = LSIM_STEP_TEAM_MIN_CONTACTS;
  s->spread_warm = model->dimension == 3 && strcmp(lsim_solver_name(s->solver), "pgs") == 0;
  for (int i = 0; i < model->nbodies; ++i) s->restitution |= model->bodies[i].restitution > 0.0;
  for (int i = 0; i < model->nrestitution_pairs; ++i)
    s->restitution |= model->restitution_pairs[i].restitution > 0.0;
  s->inv_inertia_body = calloc((size_t)9 * model->nbodies + 1, sizeof(double));
  s->inv_inertia = calloc((size_t)9 * model->nbodies + 1, sizeof(double));
  if (s->inv_inertia_body && s->inv_inertia && (rc = invert_inertias(s, model, err, errlen))) {
    lsim_stepper_free(s);
    return rc;
  }
  if (model->ncouplings > 0) {
    if (model->dimension != 1) {
      snprintf(err, errlen, "inertial couplings are 1-D only");
      lsim_stepper_free(s);
      return LSIM_INVALID_INPUT;
    }
    rc = lsim_mass_factor_create(&s->mass, model, err, errlen);
    if (rc) {
      lsim_stepper_free(s);
      return rc;
    }
    s->force = calloc((size_t)model->nv + 1, sizeof(double));
  }
  s->v_free = calloc((size_t)model->nv + 1, sizeof(double));
  s->dv = calloc((size_t)model->nv + 1, sizeof(double));
  s->guard_v = calloc((size_t)model->nv + 1, sizeof(double));
  s->pc_dq = calloc((size_t)model->nv + 1, sizeof(double));
  s->pc_moved = calloc((size_t)model->nbodies + 1, 1);
  s->rot_c = calloc((size_t)3 * model->nbodies + 1, sizeof(double));
  s->rot_free = calloc((size_t)model->nbodies + 1, 1);
  s->body_contacts = calloc((size_t)model->nbodies + 1, sizeof(int));
  s->body_torque = calloc((size_t)3 * model->nbodies + 1, sizeof(double));
  s->order_depth = calloc((size_t)model->nbodies + 1, sizeof(int));
  s->order_queue = calloc((size_t)model->nbodies + 1, sizeof(int));
  s->order_start = calloc((size_t)model->nbodies + 2, sizeof(int));
  /* Inverse masses, once per run (as the inverse inertias). */
  s->inv_mass = calloc((size_t)model->nbodies + 1, sizeof(double));
  if (s->inv_mass)
    for (int i = 0; i < model->nbodies; ++i)
      if (model->bodies[i].type == LSIM_BODY_DYNAMIC) s->inv_mass[i] = 1.0 / model->bodies[i].mass;
  s->dofs = calloc((size_t)model->nbodies + 1, sizeof *s->dofs);
  if (s->dofs)
    for (int i = 0; i < model->nbodies; ++i) {
      const LsimBody *b = &model->bodies[i];
      s->dofs[i] = (LsimBodyDofs){b->nv, b->v_offset, b->type == LSIM_BODY_DYNAMIC, b->q_offset};
    }
  if (!s->v_free || !s->dv || !s->guard_v || !s->pc_dq || !s->pc_moved || !s->rot_c || !s->rot_free || !s->body_contacts || !s->body_torque ||
      !s->order_depth || !s->order_queue || !s->order_start ||
      !s->inv_inertia_body || !s->inv_inertia || !s->inv_mass || !s->dofs ||
      (s->mass && !s->force) || lsim_sleep_init(s, model)) {
    lsim_stepper_free(s);
    snprintf(err, errlen, "out of memory");
    return LSIM_OUT_OF_MEMORY;
  }
  *out = s;
  return 0;
}

void lsim_stepper_free(LsimStepper *s) {
  if (!s) return;
  lsim_solver_free(s->solver);
  lsim_exact_cone_free(&s->exact);
  lsim_contacts_free(&s->contacts);
  free(s->J_ptr), free(s->J_idx), free(s->J_val);
  lsim_factored_full_free(&s->full);
  free(s->B_ptr), free(s->B_idx), free(s->B_val);
  free(s->C_ptr), free(s->C_idx), free(s->C_val);
  free(s->q);
  free(s->z);
  free(s->guess);
  free(s->bguess);
  free(s->prev_b);
  free(s->var_row);
  free(s->cones);
  free(s->cone_prod);
  free(s->joint_error);
  free(s->dense.M), free(s->dense.q);
  free(s->tmp_ptr), free(s->tmp_idx), free(s->tmp_val);
  free(s->v_free);
  free(s->guard_v);
  free(s->dv);
  free(s->pc_dq);
  free(s->pc_moved);
  free(s->rot_c);
  free(s->rot_free);
  free(s->body_contacts);
  free(s->body_torque);
  free(s->torque_memo);
  free(s->manifolds);
  free(s->order_depth);
  free(s->order_queue);
  free(s->order_start);
  free(s->order_adj);
  free(s->order_pair);
  free(s->order_key);
  free(s->order_tmp);
  free(s->hot);
  free(s->order_count);
  free(s->pc_row);
  free(s->inv_inertia_body);
  free(s->inv_inertia);
  free(s->E_ptr), free(s->E_idx), free(s->EB_ptr), free(s->EB_idx);
  free(s->E_val), free(s->EB_val), free(s->E_rhs), free(s->E_lambda);
  free(s->inert_pre), free(s->inert_mark), free(s->v_free0), free(s->row_owner);
  free(s->admit_v), free(s->admit_floor);
  free(s->rest_contacts), free(s->rest_rows), free(s->last_tether), free(s->last_joint);
  lsim_equality_free(s->equality);
  lsim_mass_factor_free(s->mass);
  free(s->force);
  free(s->prev_id);
  free(s->prev_var);
  free(s->prev_nvar);
  free(s->prev_z);
  free(s->table);
  free(s->row_v);
  free(s->inv_mass);
  free(s->dofs);
  lsim_sleep_free(s);
  free(s);
}

const LsimContactSet *lsim_stepper_contacts(const LsimStepper *s) { return &s->contacts; }
const LsimFactoredLcp *lsim_stepper_factored_solved(const LsimStepper *s) { return &s->f; }

const LsimFactoredLcp *lsim_stepper_factored(const LsimStepper *s) {
  /* Every row (the negated directions written out where the step left them implicit;
     reserved at the assembly, so never NULL for a problem the step made). */
  return lsim_factored_full(&s->f);
}
const double *lsim_stepper_solution(const LsimStepper *s) { return s->z; }
const double *lsim_stepper_warm_guess(const LsimStepper *s) { return s->guess; }
const unsigned char *lsim_stepper_basis_guess(const LsimStepper *s) {
  return s->bguess_valid ? s->bguess : NULL;
}

/* The dense LCP of the last step: the one the solver formed, else formed here once (the
 * cache fields are mutable state behind the const accessor). */
const LsimLcp *lsim_stepper_lcp(const LsimStepper *cs) {
  LsimStepper *s = (LsimStepper *)cs;
  const LsimLcp *formed = lsim_solver_last_dense(s->solver);
  if (formed && formed->n == s->f.n) return formed;
  if (s->dense_valid) return &s->dense;
  const LsimFactoredLcp *f = lsim_factored_full(&s->f); /* every row */
  if (!f) return NULL;
  const int n = f->n, m = f->m, nnz = n > 0 ? f->J_ptr[n] : 0;
  if (n > s->dense_cap) {
    double *M = realloc(s->dense.M, (size_t)n * n * sizeof(double));
    double *q = M ? realloc(s->dense.q, (size_t)n * sizeof(double)) : NULL;
    if (M) s->dense.M = M;
    if (!M || !q) return NULL;
    s->dense.q = q;
    s->dense_cap = n;
  }
  if (m + 1 > s->tmp_cap || nnz > s->tmp_cap) {
    const int cap = (m + 1 > nnz ? m + 1 : nnz) + 16;
    int *p = realloc(s->tmp_ptr, (size_t)cap * sizeof(int));
    if (p) s->tmp_ptr = p;
    int *i = realloc(s->tmp_idx, (size_t)cap * sizeof(int));
    if (i) s->tmp_idx = i;
    double *v = realloc(s->tmp_val, (size_t)cap * sizeof(double));
    if (v) s->tmp_val = v;
    if (!p || !i || !v) return NULL;
    s->tmp_cap = cap;
  }
  s->dense.n = n;
  if (n > 0 && lsim_factored_to_dense(f, &s->dense, s->tmp_ptr, s->tmp_idx, s->tmp_val))
    return NULL;
  s->dense.ncones = f->ncones;
  s->dense.cones = f->cones;
  s->dense_valid = 1;
  return &s->dense;
}

void lsim_stepper_set_team_min_contacts(LsimStepper *s, int count) {
  s->team_min_contacts = count > 1 ? count : 1;
}

LsimSolver *lsim_stepper_solver(LsimStepper *s) { return s->solver; }
const char *lsim_stepper_last_error(const LsimStepper *s) { return s->last_error; }

/* Body-frame inverse inertias, once per run: a 3x3 inverse (3-D; the inertia must be
 * symmetric positive definite) or 1/I_zz (2-D). */
static int invert_inertias(LsimStepper *s, const LsimModel *m, char *err, size_t errlen) {
  for (int i = 0; i < m->nbodies; ++i) {
    const LsimBody *b = &m->bodies[i];
    double *inv = s->inv_inertia_body + 9 * i;
    if (b->type != LSIM_BODY_DYNAMIC || m->dimension == 1) continue;
    if (m->dimension == 2) {
      if (!(b->inertia[8] > 0.0)) {
        snprintf(err, errlen, "body '%s': moment of inertia must be > 0", b->name);
        return LSIM_INVALID_INPUT;
      }
      inv[8] = 1.0 / b->inertia[8];
      continue;
    }
    /* Inverted as I / s with s = max |I_ij|, then divided by s: the cofactors are products
       of two entries and det of three, which overflowed past |I| ~ 1e154 (a sphere of
       mass 1e300: det = inf, inverse NaN, the first step's spin NaN) and underflowed
       below 1e-103 (det 0: refused as not positive definite). */
    double s_ = 0.0;
    for (int k = 0; k < 9; ++k) s_ = fmax(s_, fabs(b->inertia[k]));
    double I[9];
    for (int k = 0; k < 9; ++k) I[k] = s_ > 0.0 ? b->inertia[k] / s_ : 0.0;
    const double c0 = I[4] * I[8] - I[5] * I[7], c1 = I[5] * I[6] - I[3] * I[8],
                 c2 = I[3] * I[7] - I[4] * I[6];
    const double det = I[0] * c0 + I[1] * c1 + I[2] * c2;
    if (!(det > 0.0) || !(I[0] > 0.0) || !isfinite(s_)) {
      snprintf(err, errlen, "body '%s': inertia tensor is not positive definite", b->name);
      return LSIM_INVALID_INPUT;
    }
    const double ds = det * s_;
    inv[0] = c0 / ds, inv[3] = c1 / ds, inv[6] = c2 / ds;
    inv[1] = (I[2] * I[7] - I[1] * I[8]) / ds, inv[4] = (I[0] * I[8] - I[2] * I[6]) / ds;
    inv[7] = (I[1] * I[6] - I[0] * I[7]) / ds;
    inv[2] = (I[1] * I[5] - I[2] * I[4]) / ds, inv[5] = (I[2] * I[3] - I[0] * I[5]) / ds;
    inv[8] = (I[0] * I[4] - I[1] * I[3]) / ds;
  }
  return 0;
}

/* World-frame inverse inertias of this step: R I^-1 R' (3-D). */
static void prepare_inertias(LsimStepper *s, const LsimModel *m, const LsimState *st, int b0,
                             int b1) {
  if (m->dimension != 3) {
    memcpy(s->inv_inertia + 9 * b0, s->inv_inertia_body + 9 * b0, (size_t)9 * (b1 - b0) * sizeof(double));
    return;
  }
  for (int i = b0; i < b1; ++i) {
    const LsimBody *b = &m->bodies[i];
    if (b->type != LSIM_BODY_DYNAMIC) continue;
    double R[9], RA[9];
    lsim_quat_to_mat(R, st->q + b->q_offset + 3);
    const double *A = s->inv_inertia_body + 9 * i;
    double *W = s->inv_inertia + 9 * i;
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c)
        RA[3 * r + c] = R[3 * r] * A[c] + R[3 * r + 1] * A[3 + c] + R[3 * r + 2] * A[6 + c];
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c)
        W[3 * r + c] = RA[3 * r] * R[3 * c] + RA[3 * r + 1] * R[3 * c + 1] + RA[3 * r + 2] * R[3 * c + 2];
  }
}

/* x = J^-1 b for a 3 x 3 J (row-major) by cofactors: 0, or -1 (x unset) when det J is 0
 * or not finite. */
static int solve3_cofactors(const double J[9], const double b[3], double x[3]) {
  const double c00 = J[4] * J[8] - J[5] * J[7], c01 = J[5] * J[6] - J[3] * J[8],
               c02 = J[3] * J[7] - J[4] * J[6];
  const double det = J[0] * c00 + J[1] * c01 + J[2] * c02;
  if (!(fabs(det) > 0.0) || !isfinite(det)) return -1;
  const double inv[9] = {c00, J[2] * J[7] - J[1] * J[8], J[1] * J[5] - J[2] * J[4],
                         c01, J[0] * J[8] - J[2] * J[6], J[2] * J[3] - J[0] * J[5],
                         c02, J[1] * J[6] - J[0] * J[7], J[0] * J[4] - J[1] * J[3]};
  lsim_m3_apply(x, inv, b);
  lsim_v3_scale(x, x, 1.0 / det);
  return 0;
}

/* The gyroscopic torque of a free body over a step: the implicit midpoint rule on Euler's
 * equations in the body frame, I (w' - w) + h m x (I m) = 0 with m = (w + w') / 2, solved
 * by Newton's method from w' = w (Jacobian I + (h / 2) (skew(m) I - skew(I m)); implicit
 * gyroscopic steps as in E. Catto, "Numerical Methods", GDC 2015, and Bullet's
 * computeGyroscopicImpulseImplicit_Body, which use backward Euler), returned as the world
 * torque R I (w' - w) / h that gives that change over the step, and the change R (w' - w)
 * itself (dw_world). Dotting the equation with
 * m and with I m shows that the midpoint rule keeps the kinetic energy w.I w / 2 and |I w|
 * exactly (quadratic invariants); backward Euler would dissipate them (40 % of the energy
 * in 10 s at h = 0.05 s near the intermediate axis), and the explicit torque -w x (I w)
 * fed energy in (1.2 % in 10 s at h = 0.001 s, twice the energy at h = 0.05 s). Newton
 * stops when it changes w' by less than 1e-15 |w| (4 iterations at most; 2 .. 3 are
 * typical); a singular Jacobian (h |w| large against 1) keeps the last iterate. */
static void gyroscopic_torque(double tau[3], double dw_world[3], const double I[9],
                              const double quat[4], const double w_world[3], double h) {
  double w[3], x[3], Iw[3], d[3];
  lsim_quat_rotate_inv(w, quat, w_world);
  lsim_m3_apply(Iw, I, w);
  const double wn = lsim_v3_norm(w);
  lsim_v3_copy(x, w);
  for (int it = 0; it < 4 && wn > 0.0; ++it) {
    double mid[3], Ix[3], Im[3], c[3], F[3], J[9];
    for (int r = 0; r < 3; ++r) mid[r] = 0.5 * (x[r] + w[r]);
    lsim_m3_apply(Ix, I, x);
    lsim_m3_apply(Im, I, mid);
    lsim_v3_cross(c, mid, Im);
    for (int r = 0; r < 3; ++r) F[r] = Ix[r] - Iw[r] + h * c[r];
    /* J = I + (h / 2) (skew(m) I - skew(I m)). */
    const double sm[9] = {0, -mid[2], mid[1], mid[2], 0, -mid[0], -mid[1], mid[0], 0};
    const double sI[9] = {0, -Im[2], Im[1], Im[2], 0, -Im[0], -Im[1], Im[0], 0};
    for (int r = 0; r < 3; ++r)
      for (int k = 0; k < 3; ++k) {
        double a = 0.0;
        for (int j = 0; j < 3; ++j) a += sm[3 * r + j] * I[3 * j + k];
        J[3 * r + k] = I[3 * r + k] + 0.5 * h * (a - sI[3 * r + k]);
      }
    /* d = J^-1 F by cofactors. */
    if (solve3_cofactors(J, F, d)) break;
    lsim_v3_sub(x, x, d);
    if (lsim_v3_norm(d) <= 1e-15 * wn) break;
  }
  /* tau = R I (x - w) / h; the change of velocity it makes, R (x - w). */
  double dw[3], Idw[3];
  lsim_v3_sub(dw, x, w);
  lsim_m3_apply(Idw, I, dw);
  lsim_quat_rotate(tau, quat, Idw);
  lsim_v3_scale(tau, tau, 1.0 / h);
  lsim_quat_rotate(dw_world, quat, dw);
}

/* The Lie midpoint step of a free body's spin (the default, LSIM_ROTATION_LIE_MIDPOINT),
 * for a 3-D body that no contact, tether or joint row touches at this step: in the body
 * frame of the step's start, with L = I w,
 *   I m = (L + exp(-h m) L) / 2,    R' = R exp(h m),    L' = exp(-h m) L (body frame at end),
 * the implicit midpoint rule of Euler's equations written with the rotation exp(-h m)
 * instead of its Cayley approximation (the Lie-Poisson midpoint; J. C. Simo and K. K. Wong,
 * "Unconditionally stable algorithms for rigid body dynamics that exactly preserve energy
 * and momentum", IJNME 31, 1991). The world momentum R' L' = R L is kept exactly (the two
 * rotations undo each other), |L| too, and the energy: L'.I^-1 L' / 2 - L.I^-1 L / 2 =
 * (L' - L).m = 0, since m.exp(-h m) L = (exp(h m) m).L = m.L. It is second order, and exact
 * for a spin about a principal axis (m = w). The body-frame midpoint (gyroscopic_torque
 * above, what bodies with rows get) keeps |L| and the energy, but turns by h w' rather than
 * h m: a free body's world L turned by about (h / 2) |w' - w| a step (first order): up to
 * 1.0e-3 rad in 10 s at h = 0.005 s near the major axis (tests/test_physics.c,
 * test_free_spin_momentum). It cannot serve bodies with rows, whose orientation turns by
 * h w' (the rows' velocities): the end velocity R exp(h m) x belongs to R exp(h m), and
 * given to a body turned otherwise it raised the energy of a rod spinning onto a box's
 * edge by 4e-4 J in a step (test_spinning_rod_on_edge).
 * Newton's method from m = w (Jacobian I - (h / 2) [L']x J_l(-h m), J_l the left Jacobian
 * of the rotation), until it changes m by less than 1e-15 |w| (8 iterations at most; a
 * singular Jacobian keeps the last iterate, which still keeps L: any m does). Returned in
 * the world frame: the end angular velocity w_end = R exp(h m) x,
 * x = I^-1 L' (so that I_world(R') w_end = R L), and m. */
static void rotation_step(double w_end[3], double m_world[3], const double I[9],
                          const double Iinv[9], const double quat[4], const double w_world[3],
                          double h) {
  double w[3], L[3], m[3], Lp[3], qm[4];
  lsim_quat_rotate_inv(w, quat, w_world);
  lsim_m3_apply(L, I, w);
  const double wn = lsim_v3_norm(w);
  lsim_v3_copy(m, w);
  lsim_v3_copy(Lp, L);
  for (int it = 0; it < 8 && wn > 0.0; ++it) {
    /* L' = exp(-h m) L; G = I m - (L + L') / 2. */
    double Im[3], G[3], d[3];
    const double mneg[3] = {-m[0], -m[1], -m[2]}; /* from_rotvec wants h > 0 */
    lsim_quat_from_rotvec(qm, mneg, h);
    lsim_quat_rotate(Lp, qm, L);
    lsim_m3_apply(Im, I, m);
    for (int r = 0; r < 3; ++r) G[r] = Im[r] - 0.5 * (L[r] + Lp[r]);
    /* J_l(p), p = -h m: I + a [p]x + b [p]x^2, a = (1 - cos t) / t^2, b = (t - sin t) / t^3
       (series below t = 1e-3: their next terms are below 1e-16). */
    const double p[3] = {-h * m[0], -h * m[1], -h * m[2]}, t2 = lsim_v3_dot(p, p), t = sqrt(t2);
    const double a = t < 1e-3 ? 0.5 - t2 / 24.0 : (1.0 - cos(t)) / t2;
    const double b = t < 1e-3 ? 1.0 / 6.0 - t2 / 120.0 : (t - sin(t)) / (t2 * t);
    const double P[9] = {0, -p[2], p[1], p[2], 0, -p[0], -p[1], p[0], 0};
    double Jl[9], J[9];
    for (int r = 0; r < 3; ++r)
      for (int k = 0; k < 3; ++k) {
        double pp = 0.0;
        for (int j = 0; j < 3; ++j) pp += P[3 * r + j] * P[3 * j + k];
        Jl[3 * r + k] = (r == k) + a * P[3 * r + k] + b * pp;
      }
    /* J = I - (h / 2) [L']x J_l. */
    const double S[9] = {0, -Lp[2], Lp[1], Lp[2], 0, -Lp[0], -Lp[1], Lp[0], 0};
    for (int r = 0; r < 3; ++r)
      for (int k = 0; k < 3; ++k) {
        double sj = 0.0;
        for (int j = 0; j < 3; ++j) sj += S[3 * r + j] * Jl[3 * j + k];
        J[3 * r + k] = I[3 * r + k] - 0.5 * h * sj;
      }
    /* d = J^-1 G by cofactors. */
    if (solve3_cofactors(J, G, d)) break;
    lsim_v3_sub(m, m, d);
    if (lsim_v3_norm(d) <= 1e-15 * wn) break;
  }
  /* L' at the final m, x = I^-1 L', its world value R exp(h m) x; m in the world. */
  double x[3], ex[3];
  const double mneg[3] = {-m[0], -m[1], -m[2]};
  lsim_quat_from_rotvec(qm, mneg, h);
  lsim_quat_rotate(Lp, qm, L);
  lsim_m3_apply(x, Iinv, Lp);
  lsim_quat_from_rotvec(qm, m, h);
  lsim_quat_rotate(ex, qm, x);
  lsim_quat_rotate(w_end, quat, ex);
  lsim_quat_rotate(m_world, quat, m);
}

/* Stage 1: free velocities v_free = v + h W (f + m g + gyroscopic) (dynamic), prescribed
 * (kinematic). The gyroscopic torque is implicit (gyroscopic_torque above; stage 6 turns
 * bodies without rows by rotation_step instead). */
static void prepare_free_velocities(LsimStepper *s, const LsimModel *m, const LsimState *st,
                                    int b0, int b1) {
  const double h = m->time_step, t = st->time;
  const int dim = m->dimension;
  double f[LSIM_MAX_BODY_DOF], wf[LSIM_MAX_BODY_DOF];
  for (int i = b0; i < b1; ++i) {
    const LsimBody *b = &m->bodies[i];
    if (b->nv == 0) continue;
    double *vf = s->v_free + b->v_offset;
    const double *v = st->v + b->v_offset;
    if (b->type == LSIM_BODY_KINEMATIC) {
      /* The prescribed velocity at mid-step: positions are then exact for velocity
         tables that are linear within the step. */
      for (int d = 0; d < b->nv; ++d) vf[d] = lsim_schedule_eval_component(&b->kinematic_velocity, t + 0.5 * h, d);
      continue;
    }
    if (s->asleep && s->asleep[i]) {
      /* Asleep (contact/sleep.c): no motion, no forces. */
      for (int d = 0; d < b->nv; ++d) vf[d] = 0.0;
      if (s->mass)
        for (int d = 0; d < b->nv; ++d) s->force[b->v_offset + d] = 0.0;
      continue;
    }
    if (b->force.npoints == 0 && !b->force.value) {
      /* A constant force without a table (every body of a pile): what
         lsim_schedule_eval_component gives, the constant for component 0 and 0 for the
         rest, without a call per component (6 a 3-D body, 7 M of 2.5 G instructions over
         60 steps of 1000 boxes). */
      f[0] = b->force.constant;
      for (int d = 1; d < b->nv; ++d) f[d] = 0.0;
    } else {
      for (int d = 0; d < b->nv; ++d) f[d] = lsim_schedule_eval_component(&b->force, t, d);
    }
    for (int d = 0; d < dim; ++d) f[d] += b->mass * m->gravity[d];
    if (dim == 3) {
      /* Gyroscopic term, implicit in the body frame, as a torque over the step; the
         change it makes kept for stage 6 (rotation_step). */
      double tau[3];
      gyroscopic_torque(tau, s->rot_c + 3 * i, b->inertia, st->q + b->q_offset + 3, v + 3, h);
      f[3] += tau[0], f[4] += tau[1], f[5] += tau[2];
    }
    if (s->mass) {
      /* Coupled mass: collect the forces, solve H dv = h f for all at once below. */
      for (int d = 0; d < b->nv; ++d) s->force[b->v_offset + d] = h * f[d], vf[d] = v[d];
      continue;
    }
    apply_inverse_mass(s, i, b, f, wf);
    for (int d = 0; d < b->nv; ++d) vf[d] = v[d] + h * wf[d];
  }
}

/* The coupled mass's part of stage 1, after prepare_free_velocities over all bodies. */
static void couple_free_velocities(LsimStepper *s, const LsimModel *m) {
  {
    /* v_free = v + H^-1 h f over the dynamic velocities (static ones carry nothing,
       kinematic ones keep their prescribed values: their rows of H are the identity and
       their forces zero, so the solve leaves them unchanged in dv). */
    for (int i = 0; i < m->nbodies; ++i) {
      const LsimBody *b = &m->bodies[i];
      if (b->type == LSIM_BODY_KINEMATIC)
        for (int d = 0; d < b->nv; ++d) s->force[b->v_offset + d] = 0.0;
    }
    lsim_mass_solve(s->mass, s->force, s->dv);
    for (int i = 0; i < m->nbodies; ++i) {
      const LsimBody *b = &m->bodies[i];
      if (b->type != LSIM_BODY_DYNAMIC) continue;
      if (s->asleep && s->asleep[i]) continue; /* stays still (its group holds no awake body) */
      for (int d = 0; d < b->nv; ++d) s->v_free[b->v_offset + d] += s->dv[b->v_offset + d];
    }
  }
}

/* The table slot of id: Fibonacci hashing into table_size (a power of two) slots. */
static inline unsigned id_slot(uint64_t id, int table_size) {
  return (unsigned)((id * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & (unsigned)(table_size - 1);
}

/* dst[0 .. n) = src[...], a contact's impulses: the usual 3-D cone (c_n, four directions,
 * lambda) at a fixed size, inlined (a library call per contact before). */
static inline void copy_vars(double *dst, const double *src, int n) {
  if (n == 6) memcpy(dst, src, 6 * sizeof(double));
  else memcpy(dst, src, (size_t)n * sizeof(double));
}

/* dst[0 .. n) = 0, as copy_vars. */
static inline void zero_vars(double *dst, int n) {
  if (n == 6) memset(dst, 0, 6 * sizeof(double));
  else memset(dst, 0, (size_t)n * sizeof(double));
}

/* 1 when id was one of the previous step's contacts (the warm start's table; the memory a
 * resumed stepper rebuilds it from: lsim_step_remember). Read-only: detection's members
 * call it at once. */
static int was_contact(const void *ctx, uint64_t id) {
  const LsimStepper *s = ctx;
  if (!s->table_size) return 0;
  for (unsigned h = id_slot(id, s->table_size);; h = (h + 1) & (unsigned)(s->table_size - 1)) {
    const IdIndex *e = &s->table[h];
    if (e->stamp != s->table_stamp) return 0;
    if (e->id == id) return 1;
  }
}

/* Contacts [c0, c1) of the warm start: each contact's variables (the contacts' variables
 * are z's, each once) from the previous step's impulses of its id, else zero. */
static void warm_range(LsimStepper *s, int c0, int c1) {
  int next = -1; /* the previous step's contact after the last one matched */
  for (int c = c0; c < c1; ++c) {
    const LsimContactHot *ct = &s->hot[c]; /* id, kind, ndir, first_var */
    const int nvar = hot_nvar(ct);
    /* The contacts keep their order from step to step (the sweep order), so the one after
       the last match usually holds this id: taken when it is its id's first contact (the
       one the table holds, prev_nvar >= 0), else the table. */
    int p = -1;
    if (s->table_size) {
      if (next >= 0 && next < s->prev_count && s->prev_id[next] == ct->id && s->prev_nvar[next] >= 0)
        p = next;
      else
        for (unsigned h = id_slot(ct->id, s->table_size);; h = (h + 1) & (unsigned)(s->table_size - 1)) {
          const IdIndex *e = &s->table[h];
          if (e->stamp != s->table_stamp) break;
          if (e->id != ct->id) continue;
          p = e->index;
          break;
        }
    }
    const int found = p >= 0;
    if (found && s->prev_nvar[p] > 0 && s->prev_nvar[p] == nvar) {
      copy_vars(s->z + ct->first_var, s->prev_z + s->prev_var[p], nvar);
      /* The final basis alike (new contacts keep w basic). */
      if (s->prev_bvalid) memcpy(s->bguess + ct->first_var, s->prev_b + s->prev_var[p], (size_t)nvar);
    } else {
      /* Zeros where nothing is copied (z is not zeroed whole first: a pass over it less). */
      zero_vars(s->z + ct->first_var, nvar);
      if (s->prev_bvalid) memset(s->bguess + ct->first_var, 0, (size_t)nvar);
    }
    if (found) next = p + 1;
    /* A woken group's contact: its impulses from when the group fell asleep. */
    const double *cached = found || !s->ncache ? NULL : lsim_sleep_cached(s, ct->id, nvar);
    if (cached) memcpy(s->z + ct->first_var, cached, (size_t)nvar * sizeof(double));
  }
}

static void warm_slice(void *arg, int member) {
  LsimStepper *s = arg;
  warm_range(s, s->slice_first[member], s->slice_first[member + 1]);
}

/* The solver's team when the last assembly cut the contacts into slices for it, else
 * NULL. */
static LsimTeam *slice_team(LsimStepper *s) {
  LsimTeam *team = s->slices > 0 ? lsim_solver_team(s->solver) : NULL;
  return team && lsim_team_size(team) == s->slices ? team : NULL;
}

/* Stage 4: warm start z from the previous step's impulses, matched by contact id (the
 * first contact of that id in the previous step when ids repeat): on the team by the
 * assembly's slices (each member's impulses land in its cache), else here. */
static void warm_start(LsimStepper *s) {
  LsimTeam *team = slice_team(s);
  if (team) {
    lsim_team_run(team, warm_slice, s);
    return;
  }
  warm_range(s, 0, s->contacts.count);
}

/* x . y in 3-D. */
static inline double dot3(const double *x, const double *y) {
  return x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
}

/* The body a manifold of normal n (from body[1] into body[0]) holds up: the dynamic one
 * when only one is, else the one above the other (n against gravity: body[0]); -1 when
 * neither (no dynamic body, or two with n across gravity). */
static int held_body(const LsimStepper *s, const LsimModel *m, const LsimContact *c0) {
  const int d0 = s->dofs[c0->body[0]].dynamic;
  const int d1 = c0->body[1] >= 0 && s->dofs[c0->body[1]].dynamic;
  const double gn = dot3(m->gravity, c0->normal);
  if (d0 && (!d1 || gn < 0.0)) return c0->body[0];
  if (d1 && (!d0 || gn > 0.0)) return c0->body[1];
  return -1;
}

/* a x b in 3-D. */
static inline void cross3(const double *a, const double *b, double *out) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

/* The impulse of contact ct on body[0] in z (N s, world): its normal impulse along the
 * normal and its friction directions' (cs, sn: the cone weights of ct->ndir). */
static void contact_impulse(const LsimContact *ct, const double *z, const double *cs, const double *sn,
                            double *out) {
  const double cn = z[ct->first_var];
  const double *t0 = ct->tangent[0], *t1 = ct->tangent[1];
#if defined(__SSE2__)
  /* x and y in the two lanes of one register, z alone: each lane does the scalar
     expression's operations in its order (the same bits, about half the instructions). */
  __m128d oxy = _mm_mul_pd(_mm_set1_pd(cn), _mm_loadu_pd(ct->normal));
  double oz = cn * ct->normal[2];
  const __m128d t0xy = _mm_loadu_pd(t0), t1xy = _mm_loadu_pd(t1);
  for (int d = 0; d < ct->ndir; ++d) {
    const double beta = z[ct->first_var + 1 + d];
    const __m128d u = _mm_add_pd(_mm_mul_pd(_mm_set1_pd(cs[d]), t0xy), _mm_mul_pd(_mm_set1_pd(sn[d]), t1xy));
    oxy = _mm_add_pd(oxy, _mm_mul_pd(_mm_set1_pd(beta), u));
    oz += beta * (cs[d] * t0[2] + sn[d] * t1[2]);
  }
  _mm_storeu_pd(out, oxy);
  out[2] = oz;
#else
  for (int j = 0; j < 3; ++j) out[j] = cn * ct->normal[j];
  for (int d = 0; d < ct->ndir; ++d) {
    const double beta = z[ct->first_var + 1 + d];
    for (int j = 0; j < 3; ++j) out[j] += beta * (cs[d] * t0[j] + sn[d] * t1[j]);
  }
#endif
}

/* The cone weights (lsim_cone_weights) of the last direction count asked for: made once
 * for all of warm_spread_manifolds' calls of add_torques (made per call, their cos and
 * sin had cost 1.3 % of a pile's step). */
typedef struct ConeWeights {
  int ndir; /* the direction count cs, sn are for; -1: none yet */
  double cs[LSIM_MAX_DIRECTIONS], sn[LSIM_MAX_DIRECTIONS];
} ConeWeights;

/* wj times the torque of impulse imp (on body[0]) at contact ct (index i) about the
 * centre of its body[j] (dynamic), added to body_torque, the torque kept in torque_memo
 * (add_torques). */
static inline void add_body_torque(LsimStepper *s, const LsimState *st, const LsimContact *ct, int i,
                                   int j, double wj, const double imp[3]) {
  const int b = ct->body[j];
  double *memo = s->torque_memo + 6 * (size_t)i;
  const double *xg = st->q + s->dofs[b].q_offset;
  double *tb = s->body_torque + 3 * b;
#if defined(__SSE2__)
  /* r = point - x_g and t = r x imp with (t_x, t_y) in the lanes of one register
     (r_y i_z - r_z i_y, r_z i_x - r_x i_z) and t_z alone: each lane the scalar
     expression's operations (the same bits). */
  const __m128d rxy = _mm_sub_pd(_mm_loadu_pd(ct->point), _mm_loadu_pd(xg));
  const __m128d ryz = _mm_sub_pd(_mm_loadu_pd(ct->point + 1), _mm_loadu_pd(xg + 1));
  /* imp's lanes as its writer stored them (a pair, then z): a load across two stores
     waits for both to reach the cache (the store-forwarding stall that had most of
     add_torques' samples). */
  const __m128d ixy = _mm_loadu_pd(imp), iyz = _mm_shuffle_pd(ixy, _mm_load_sd(imp + 2), 1);
  const __m128d rzx = _mm_shuffle_pd(ryz, rxy, 1), izx = _mm_shuffle_pd(iyz, ixy, 1);
  const __m128d txy = _mm_sub_pd(_mm_mul_pd(ryz, izx), _mm_mul_pd(rzx, iyz));
  const double r0 = ct->point[0] - xg[0], r1 = ct->point[1] - xg[1];
  const double tz = r0 * imp[1] - r1 * imp[0];
  _mm_storeu_pd(tb, _mm_add_pd(_mm_loadu_pd(tb), _mm_mul_pd(_mm_set1_pd(wj), txy)));
  tb[2] += wj * tz;
  _mm_storeu_pd(memo + 3 * j, txy);
  memo[3 * j + 2] = tz;
#else
  double r[3], t[3];
  for (int k = 0; k < 3; ++k) r[k] = ct->point[k] - xg[k];
  cross3(r, imp, t);
  for (int k = 0; k < 3; ++k) tb[k] += wj * t[k];
  memcpy(memo + 3 * j, t, sizeof t);
#endif
}

/* w times the torques of contacts [c, e) (impulses in z) about the centres of their
 * dynamic bodies, added to body_torque; with fr, each contact's friction is fr / (e - c)
 * (on body[0]) in place of z's. cw: the weights, remade here when a contact has another
 * direction count. Each contact's two torques (before w and the side's sign) are kept in
 * torque_memo [6 count] for add_memo_torques: the same products, so taking a manifold's
 * torques out again from the memo gives the bits a recomputation gives (they had been
 * computed five times a step for a manifold that holds a body up: 6.6 % of a pile's
 * step's instructions with contact_impulse). */
static void add_torques(LsimStepper *s, const LsimModel *m, const LsimState *st, int c, int e, double w,
                        const double *fr, ConeWeights *cw) {
  const LsimContact *set = s->contacts.contacts;
  /* Each point's share of the friction, the same quotient for every point (made once). */
  double frk[3] = {0.0, 0.0, 0.0};
  if (fr)
    for (int k = 0; k < 3; ++k) frk[k] = fr[k] / (e - c);
  for (int i = c; i < e; ++i) {
    const LsimContact *ct = &set[i];
    double imp[3];
    if (fr) {
#if defined(__SSE2__)
      /* x and y as one pair (stored whole: add_body_torque loads them so), z alone. */
      const double zn = s->z[ct->first_var];
      _mm_storeu_pd(imp, _mm_add_pd(_mm_mul_pd(_mm_set1_pd(zn), _mm_loadu_pd(ct->normal)),
                                    _mm_loadu_pd(frk)));
      imp[2] = zn * ct->normal[2] + frk[2];
#else
      for (int k = 0; k < 3; ++k) imp[k] = s->z[ct->first_var] * ct->normal[k] + frk[k];
#endif
    } else {
      if (ct->ndir != cw->ndir) lsim_cone_weights(ct->ndir, cw->cs, cw->sn), cw->ndir = ct->ndir;
      contact_impulse(ct, s->z, cw->cs, cw->sn, imp);
    }
    for (int j = 0; j < 2; ++j) {
      const int b = ct->body[j];
      if (b >= 0 && s->dofs[b].dynamic) add_body_torque(s, st, ct, i, j, j ? -w : w, imp);
    }
  }
}

/* add_torques of contacts [c, e) with the torques its last call on them kept (the
 * impulses and positions they came from unchanged since). */
static void add_memo_torques(LsimStepper *s, const LsimModel *m, int c, int e, double w) {
  const LsimContact *set = s->contacts.contacts;
  for (int i = c; i < e; ++i) {
    const LsimContact *ct = &set[i];
    const double *memo = s->torque_memo + 6 * (size_t)i;
    for (int j = 0; j < 2; ++j) {
      const int b = ct->body[j];
      if (b < 0 || !s->dofs[b].dynamic) continue;
      const double wj = j ? -w : w;
      double *tb = s->body_torque + 3 * b;
#if defined(__SSE2__)
      _mm_storeu_pd(tb, _mm_add_pd(_mm_loadu_pd(tb), _mm_mul_pd(_mm_set1_pd(wj), _mm_loadu_pd(memo + 3 * j))));
      tb[2] += wj * memo[3 * j + 2];
#else
      for (int k = 0; k < 3; ++k) tb[k] += wj * memo[3 * j + k];
#endif
    }
  }
}

/* The friction impulse on body[0] of a manifold of normal n and net normal impulse C
 * that holds up body held (held_body, >= 0) at rest under a load along gravity: the
 * load's part across n (C / |g^ . n| its size), within the cone (|F| <= mu C); zero when
 * n is within 1e-3 of across gravity. */
static void rest_friction(const LsimModel *m, const LsimContact *c0, int held, double C, double *fr) {
  const double g = sqrt(dot3(m->gravity, m->gravity));
  fr[0] = fr[1] = fr[2] = 0.0;
  if (!(g > 0.0) || !(C > 0.0)) return;
  double gh[3];
  for (int k = 0; k < 3; ++k) gh[k] = m->gravity[k] / g;
  const double gn = dot3(gh, c0->normal);
  if (fabs(gn) < 1e-3) return;
  const double load = C / fabs(gn), sign = held == c0->body[0] ? -1.0 : 1.0;
  for (int k = 0; k < 3; ++k) fr[k] = sign * load * (gh[k] - gn * c0->normal[k]);
  const double f = sqrt(dot3(fr, fr)), cap = c0->mu * C;
  if (f > cap)
    for (int k = 0; k < 3; ++k) fr[k] *= cap / f;
}

/* Higher first, then in contact order. */
static int manifold_order(const void *x, const void *y) {
  const LsimManifoldRef *a = x, *b = y;
  if (a->height != b->height) return a->height > b->height ? -1 : 1;
  return (a->c > b->c) - (a->c < b->c);
}

/* A height's key for lsim_sort_manifolds: ascending keys are descending heights. -0 is
   made +0 (they compare equal); the bit pattern of a non-negative double orders like its
   value as an unsigned integer, and a negative one in reverse, so flipping every bit of a
   negative one and the sign bit of the rest gives an order-preserving key, then all bits
   flipped for the descending order. */
static inline uint64_t manifold_key(double h) {
  uint64_t u;
  h += 0.0; /* -0 + 0 is +0 (round to nearest); every other value unchanged */
  memcpy(&u, &h, sizeof u);
  const uint64_t k = u >> 63 ? ~u : u | (1ull << 63);
  return ~k;
}

void lsim_sort_manifolds(LsimManifoldRef *a, LsimManifoldRef *tmp, int n) {
  if (n < 2) return;
  /* The eight bytes' counts in one pass; a byte all keys share moves nothing. */
  enum { R = 256 };
  unsigned count[8][R];
  memset(count, 0, sizeof count);
  for (int i = 0; i < n; ++i) {
    const uint64_t k = manifold_key(a[i].height);
    for (int d = 0; d < 8; ++d) ++count[d][(k >> (8 * d)) & (R - 1)];
  }
  LsimManifoldRef *src = a, *dst = tmp;
  const uint64_t k0 = manifold_key(a[0].height);
  for (int d = 0; d < 8; ++d) {
    if (count[d][(k0 >> (8 * d)) & (R - 1)] == (unsigned)n) continue;
    unsigned pos[R], sum = 0;
    for (int r = 0; r < R; ++r) pos[r] = sum, sum += count[d][r];
    for (int i = 0; i < n; ++i) dst[pos[(manifold_key(src[i].height) >> (8 * d)) & (R - 1)]++] = src[i];
    LsimManifoldRef *t = src;
    src = dst, dst = t;
  }
  if (src != a) memcpy(a, src, (size_t)n * sizeof *a);
}

/* The warm start of the normal impulses of manifold [c, e) (below): its net C spread as
 * C / k + a . d_i over its k points (d_i: point i from the centroid, in the tangent
 * plane), with the first moment sum d_i c_i = b that holds the body the manifold holds
 * up at rest: b = (r . n) F - r_t C + s (T x n)_t, with F the friction at rest
 * (rest_friction: the part of the load C carries that lies across n), r the centroid
 * from the held body's centre of mass and r_t its part in the tangent plane (the torque
 * of the friction and of the load about the centre balanced), T the torque of the held
 * body's other contacts about its centre (body_torque less this manifold's own, so the
 * moment a load above hands down is held too; zero with no other contact) and s = 1 when
 * the held body is body[0], -1 when body[1]. a is the least-squares fit (sum d_i d_i') a
 * = b, its share cut where a point's impulse would fall below zero. A held body with a
 * contact other than a point of non-penetration (a tether's, a joint's, a known load's:
 * their torque is not in z), no held body, points on a line: the even spread C / k. */
static void warm_manifold(LsimStepper *s, const LsimModel *m, const LsimState *st, int c, int e) {
  const LsimContact *set = s->contacts.contacts, *c0 = &set[c];
  const int k = e - c;
  double sum = 0.0, pc[3] = {0.0, 0.0, 0.0};
  for (int i = c; i < e; ++i) {
    sum += s->z[set[i].first_var];
    for (int j = 0; j < 3; ++j) pc[j] += set[i].point[j] / k;
  }
  const double mean = sum / k;
  const int held = held_body(s, m, c0);
  const int others = held >= 0 && s->body_contacts[held] > 0 && s->body_contacts[held] != k;
  const double *xg = held >= 0 ? st->q + s->dofs[held].q_offset : NULL;
  /* The torque of the other contacts on body[0]'s side (the caller took this manifold's
     own out of the held body's sum). */
  double tother[3] = {0.0, 0.0, 0.0};
  if (others) {
    const double sign = held == c0->body[0] ? 1.0 : -1.0;
    for (int j = 0; j < 3; ++j) tother[j] = sign * s->body_torque[3 * held + j];
  }
  for (int i = c; i < e; ++i) s->z[set[i].first_var] = mean;
  if (held < 0 || s->body_contacts[held] < 0 || !(mean > 0.0)) return;
  /* F, the friction at rest, in the first contact's tangent basis (every point shares
     the normal). */
  const double *t1 = c0->tangent[0], *t2 = c0->tangent[1];
  double fr[3];
  rest_friction(m, c0, held, sum, fr);
  const double fx = dot3(fr, t1), fy = dot3(fr, t2);
  double r[3];
  for (int j = 0; j < 3; ++j) r[j] = pc[j] - xg[j];
  const double rn = dot3(r, c0->normal);
  double bx = rn * fx, by = rn * fy;
  bx -= dot3(r, t1) * sum, by -= dot3(r, t2) * sum;
  if (others) {
    double tn[3];
    cross3(tother, c0->normal, tn);
    bx += dot3(tn, t1), by += dot3(tn, t2);
  }
  /* The fit: S a = b with S = sum d_i d_i' (2 x 2). Each point's (x, y) = (d_i . t1,
     d_i . t2) and then its a . d_i are kept for the two passes below (up to MEMO points:
     box manifolds have at most 8), the same products as computing them there again. */
  enum { MEMO = 16 };
  double px[MEMO], py[MEMO], lin_i[MEMO];
  const int memo = k <= MEMO;
  double sxx = 0.0, sxy = 0.0, syy = 0.0;
  for (int i = c; i < e; ++i) {
    double d[3];
    for (int j = 0; j < 3; ++j) d[j] = set[i].point[j] - pc[j];
    const double x = dot3(d, t1), y = dot3(d, t2);
    if (memo) px[i - c] = x, py[i - c] = y;
    sxx += x * x, sxy += x * y, syy += y * y;
  }
  const double det = sxx * syy - sxy * sxy;
  if (!(det > 1e-12 * (sxx + syy) * (sxx + syy))) return;
  const double ax = (syy * bx - sxy * by) / det, ay = (sxx * by - sxy * bx) / det;
  /* The largest share of a . d_i that keeps every impulse >= 0. */
  double scale = 1.0;
  for (int i = c; i < e; ++i) {
    double lin;
    if (memo) {
      lin = lin_i[i - c] = ax * px[i - c] + ay * py[i - c];
    } else {
      double d[3];
      for (int j = 0; j < 3; ++j) d[j] = set[i].point[j] - pc[j];
      lin = ax * dot3(d, t1) + ay * dot3(d, t2);
    }
    if (mean + scale * lin < 0.0) scale = -mean / lin;
  }
  for (int i = c; i < e; ++i) {
    double lin;
    if (memo) {
      lin = lin_i[i - c];
    } else {
      double d[3];
      for (int j = 0; j < 3; ++j) d[j] = set[i].point[j] - pc[j];
      lin = ax * dot3(d, t1) + ay * dot3(d, t2);
    }
    const double zi = mean + scale * lin;
    s->z[set[i].first_var] = zi > 0.0 ? zi : 0.0;
  }
}

/* At most this many members share warm_spread_manifolds' passes. */
enum { MAX_SPREAD_PARTS = 64 };

/* warm_spread_manifolds' sums, member k of T the bodies [nbodies k / T, nbodies (k + 1)
 * / T): each body's count of contacts (-1: one is not a point of non-penetration) and
 * the torque of its points as found, every member reading every contact in order but
 * adding to its own bodies only, so each body's sum is made in the order one thread
 * makes it (the same bits); a contact with a body in each range has its impulse made
 * by both. */
typedef struct SpreadJob {
  LsimStepper *s;
  const LsimModel *m;
  const LsimState *st;
  int T;
  double g;  /* |gravity| */
  int H;     /* manifolds holds 3 H: the merged order [0, H), the members' lists from H,
                their merge sorts' room from 2 H */
  int merge; /* 0: the sums and the lists; 1: the two lists merged (T = 2) */
  int found[MAX_SPREAD_PARTS], nan[MAX_SPREAD_PARTS]; /* each list's size, a NaN height in it */
} SpreadJob;

/* Where member k's list of manifolds starts in the lists' part: a manifold holds 4 or
   more contacts, so the manifolds that start in range k (spread_slice) fit before the
   next range's list. */
static inline int spread_list(const SpreadJob *j, int member) {
  return (int)((long long)j->s->contacts.count * member / j->T) / 4 + member;
}

/* The manifolds (four or more points, one shape pair, one normal: detection emits them
   consecutively) that start in contacts [c0, c1) (a manifold may end past c1), each with
   the height of the body it holds up (held_body; +inf: none), in contact order in out;
   returns their number, *nan set when a height is NaN. */
static int find_manifolds(const LsimStepper *s, const LsimModel *m, const LsimState *st, double g,
                          int c0, int c1, LsimManifoldRef *out, int *nan) {
  const LsimContactSet *set = &s->contacts;
  int c = c0, nman = 0;
  /* The first start at or after c0: contact c continues c - 1's manifold when both are
     points of non-penetration of one shape pair and one normal. */
  while (c > 0 && c < c1 && set->contacts[c].kind == LSIM_CONTACT_NORMAL &&
         set->contacts[c - 1].kind == LSIM_CONTACT_NORMAL &&
         set->contacts[c].id >> 16 == set->contacts[c - 1].id >> 16 &&
         memcmp(set->contacts[c].normal, set->contacts[c - 1].normal, sizeof set->contacts[c].normal) == 0)
    ++c;
  *nan = 0;
  while (c < c1) {
    const LsimContact *ct = &set->contacts[c];
    int e = c + 1;
    if (ct->kind == LSIM_CONTACT_NORMAL)
      while (e < set->count && set->contacts[e].kind == LSIM_CONTACT_NORMAL &&
             set->contacts[e].id >> 16 == ct->id >> 16 &&
             memcmp(set->contacts[e].normal, ct->normal, sizeof ct->normal) == 0)
        ++e;
    if (e - c >= 4) {
      const int held = held_body(s, m, ct);
      const double height = held < 0 || !(g > 0.0) ? INFINITY
                            : -dot3(m->gravity, st->q + s->dofs[held].q_offset) / g;
      *nan |= height != height;
      out[nman++] = (LsimManifoldRef){height, {0.0, 0.0, 0.0}, c, e};
    }
    c = e;
  }
  return nman;
}

/* The first h of the merge of a [0, na) and b [0, nb) (each in manifold_order) into out
   [0, h) from the front (back = 0), or its last h into out [-h, 0) from the back; the
   order is total (no NaN, c distinct), so the two halves make the one sorted list. */
static void merge_manifolds(const LsimManifoldRef *a, int na, const LsimManifoldRef *b, int nb,
                            LsimManifoldRef *out, int h, int back) {
  if (!back) {
    int i = 0, j = 0;
    for (int k = 0; k < h; ++k)
      out[k] = j < nb && (i == na || manifold_order(&b[j], &a[i]) < 0) ? b[j++] : a[i++];
  } else {
    int i = na - 1, j = nb - 1;
    for (int k = 1; k <= h; ++k)
      out[-k] = j >= 0 && (i < 0 || manifold_order(&b[j], &a[i]) > 0) ? b[j--] : a[i--];
  }
}

static void spread_slice(void *arg, int member) {
  SpreadJob *j = arg;
  LsimStepper *s = j->s;
  const LsimContactSet *set = &s->contacts;
  if (j->merge) {
    const LsimManifoldRef *a = s->manifolds + j->H + spread_list(j, 0), *b = s->manifolds + j->H + spread_list(j, 1);
    const int n = j->found[0] + j->found[1], h = (n + 1) / 2;
    if (member == 0) merge_manifolds(a, j->found[0], b, j->found[1], s->manifolds, h, 0);
    else merge_manifolds(a, j->found[0], b, j->found[1], s->manifolds + n, n - h, 1);
    return;
  }
  const int b0 = (int)((long long)j->m->nbodies * member / j->T);
  const int b1 = (int)((long long)j->m->nbodies * (member + 1) / j->T);
  memset(s->body_contacts + b0, 0, (size_t)(b1 - b0) * sizeof(int));
  memset(s->body_torque + 3 * (size_t)b0, 0, (size_t)3 * (b1 - b0) * sizeof(double));
  /* One pass: a body's count, or a large negative one once a contact that is not a point
     of non-penetration touches it (then -1 below). */
  ConeWeights cw = {.ndir = -1};
  for (int c = 0; c < set->count; ++c) {
    const LsimContact *ct = &set->contacts[c];
    const int own0 = ct->body[0] >= b0 && ct->body[0] < b1, own1 = ct->body[1] >= b0 && ct->body[1] < b1;
    if (!own0 && !own1) continue;
    if (ct->kind != LSIM_CONTACT_NORMAL) {
      if (own0) s->body_contacts[ct->body[0]] = INT_MIN / 2;
      if (own1) s->body_contacts[ct->body[1]] = INT_MIN / 2;
      continue;
    }
    if (own0) s->body_contacts[ct->body[0]] += 1;
    if (own1) s->body_contacts[ct->body[1]] += 1;
    if (!(own0 && s->dofs[ct->body[0]].dynamic) && !(own1 && s->dofs[ct->body[1]].dynamic)) continue;
    double imp[3];
    if (ct->ndir != cw.ndir) lsim_cone_weights(ct->ndir, cw.cs, cw.sn), cw.ndir = ct->ndir;
    contact_impulse(ct, s->z, cw.cs, cw.sn, imp);
    if (own0 && s->dofs[ct->body[0]].dynamic) add_body_torque(s, j->st, ct, c, 0, 1.0, imp);
    if (own1 && s->dofs[ct->body[1]].dynamic) add_body_torque(s, j->st, ct, c, 1, -1.0, imp);
  }
  for (int b = b0; b < b1; ++b)
    if (s->body_contacts[b] < 0) s->body_contacts[b] = -1;
  /* The manifolds that start in the member's range of the contacts, sorted. */
  const int c0 = (int)((long long)set->count * member / j->T);
  const int c1 = (int)((long long)set->count * (member + 1) / j->T);
  LsimManifoldRef *list = s->manifolds + j->H + spread_list(j, member);
  j->found[member] = find_manifolds(s, j->m, j->st, j->g, c0, c1, list, &j->nan[member]);
  if (!j->nan[member] && j->found[member] > 1) lsim_sort_manifolds(list, list + j->H, j->found[member]);
}

/* Stage 4, for PGS: the warm start of each manifold of four or more points (one shape
 * pair's consecutive contacts of one normal, as detection emits them) keeps the
 * manifold's net normal impulse of the previous step and its friction as found, and sets
 * the split of the load over the points afresh (warm_manifold): the even spread, tilted
 * by the moment that holds the body the manifold holds up at rest. Four coplanar points
 * carry a load in infinitely many ways (a rank-3 row space) and PGS leaves the part its
 * rows cannot see where it starts, so the previous split handed on from step to step
 * wandered: the load of each box of a resting tower went to one corner, then another,
 * and the boxes rocked on them and turned (a tower of 6 cubes at 50 sweeps yawed 40
 * degrees in 10 s and gained 0.6 J; a tower of 10 at 200 sweeps gained 1 J and leaned 1.3
 * degrees). Keeping the previous load's two moments as well (the least impulses with the
 * previous force and moments) still let a tower of 6 rock (0.05 J at 10 s, 14 degrees of
 * yaw, 0.16 J gained): a lagged moment feeds the rocking it comes from. The even spread
 * alone held the towers, but a load that needs a steady moment lost it each step: a cube
 * held by friction on a slope of 20 degrees crept 0.15 mm in 5 s at 20 sweeps (5e-9 m
 * with the previous split), the sweeps rebuilding the downhill points' share each step.
 * The moment is the one that balances the torques on the held body: of this manifold's
 * load and its friction at rest about its centre, and of the body's other contacts (each
 * body's sum in body_torque: the points outside manifolds as found, the manifolds that
 * hold a body up with their friction at rest, each manifold's split as spread once it
 * has been; this manifold's own part is taken out first). The manifolds go from the
 * highest held body down, so the splits above a body are this step's. The friction's
 * moment alone taken for every held body (as if it had no other contact) held a single
 * cube on the slope but made a settled pile of 48 boxes jitter (kinetic energy at 3 s
 * 4.6e-5 -> 7.9e-3 J); with only the bodies of one contact balanced, two cubes stacked
 * on the slope crept 3.3 mm in 5 s at 20 sweeps; with the friction as found in place of
 * the friction at rest, the lower faces' moments summed the lagged frictions above them
 * and a tower of 6 cubes rocked (3.3e-2 J at 10 s). */
static void warm_spread_manifolds(LsimStepper *s, const LsimModel *m, const LsimState *st) {
  const LsimContactSet *set = &s->contacts;
  /* Each body's contacts of any kind (a held body with others is not held by one face),
     -1 for a body with a contact whose torque z does not give; each body's torque. */
  if (lsim_grow((void **)&s->torque_memo, &s->torque_memo_cap, 6 * set->count, sizeof(double)))
    return; /* out of memory: the split as found */
  /* The sums, and the manifolds in each member's range of the contacts, sorted (on the
     solver's team for large sets; at most count / 4 + T of them); then the members' lists
     merged: by two members from the two ends for two, else here. A NaN height: the
     lists joined and qsort. */
  LsimTeam *team = set->count >= s->team_min_contacts ? lsim_solver_team(s->solver) : NULL;
  SpreadJob job = {.s = s, .m = m, .st = st, .T = lsim_team_size(team)};
  if (job.T > MAX_SPREAD_PARTS) job.T = 1, team = NULL;
  job.g = sqrt(dot3(m->gravity, m->gravity));
  job.H = set->count / 4 + job.T + 1;
  if (lsim_grow((void **)&s->manifolds, &s->manifolds_cap, 3 * job.H, sizeof *s->manifolds))
    return; /* out of memory: the split as found */
  if (job.T > 1) lsim_team_run(team, spread_slice, &job);
  else spread_slice(&job, 0);
  s->body_contacts_now = 1;
  ConeWeights cw = {.ndir = -1};
  /* The manifolds, ordered: those that hold no body up first, then by the height of the
     body they hold (along -gravity), highest first, so the spread a body's balance takes
     from the loads above it is already this step's. */
  int nman = 0, nan = 0;
  for (int k = 0; k < job.T; ++k) nman += job.found[k], nan |= job.nan[k];
  if (job.T == 2 && !nan && job.found[0] > 0 && job.found[1] > 0) {
    job.merge = 1;
    lsim_team_run(team, spread_slice, &job);
  } else if (!nan && job.T > 2) {
    /* A T-way merge: the least head each time. */
    int head[MAX_SPREAD_PARTS];
    for (int k = 0; k < job.T; ++k) head[k] = 0;
    for (int i = 0; i < nman; ++i) {
      int best = -1;
      for (int k = 0; k < job.T; ++k)
        if (head[k] < job.found[k] &&
            (best < 0 || manifold_order(&s->manifolds[job.H + spread_list(&job, k) + head[k]],
                                        &s->manifolds[job.H + spread_list(&job, best) + head[best]]) < 0))
          best = k;
      s->manifolds[i] = s->manifolds[job.H + spread_list(&job, best) + head[best]++];
    }
  } else {
    /* One list (or a NaN height): the lists joined in contact order. */
    for (int k = 0, at = 0; k < job.T; ++k, at += job.found[k - 1])
      memcpy(s->manifolds + at, s->manifolds + job.H + spread_list(&job, k),
             (size_t)job.found[k] * sizeof *s->manifolds);
    if (nan && nman > 1) qsort(s->manifolds, (size_t)nman, sizeof *s->manifolds, manifold_order);
  }
  /* A manifold that holds a body up counts with its friction at rest (rest_friction) in
     the sums, not the friction as found. */
  double *fr = NULL;
  for (int i = 0; i < nman; ++i) {
    const int c = s->manifolds[i].c, e = s->manifolds[i].e;
    if (s->manifolds[i].height == INFINITY) continue;
    const LsimContact *c0 = &set->contacts[c];
    double sum = 0.0, f[3];
    for (int j = c; j < e; ++j) sum += s->z[set->contacts[j].first_var];
    rest_friction(m, c0, held_body(s, m, c0), sum, f);
    add_memo_torques(s, m, c, e, -1.0);
    add_torques(s, m, st, c, e, 1.0, f, &cw);
    memcpy(s->manifolds[i].fr, f, sizeof f);
  }
  /* Each spread with the other contacts' torques: its own out of the sums, then in again
     as spread. */
  for (int i = 0; i < nman; ++i) {
    const int c = s->manifolds[i].c, e = s->manifolds[i].e;
    fr = s->manifolds[i].height == INFINITY ? NULL : s->manifolds[i].fr;
    add_memo_torques(s, m, c, e, -1.0);
    warm_manifold(s, m, st, c, e);
    add_torques(s, m, st, c, e, 1.0, fr, &cw);
  }
}

/* Stage 7: this step's impulses remembered by id for the next warm start: the contacts'
 * ids, variables and sizes in order, with z (by the slices, in impulses_range), and a hash
 * table of ids (linear probing, at most half full, so a lookup costs O(1) on average).
 * reserve_remember makes room first; remember builds the table. */
static int reserve_remember(LsimStepper *s) {
  const int count = s->contacts.count;
  int cap = s->prev_cap;
  if (lsim_grow((void **)&s->prev_id, &cap, count, sizeof(uint64_t))) return LSIM_OUT_OF_MEMORY;
  if (cap != s->prev_cap) {
    int *pv = realloc(s->prev_var, (size_t)cap * sizeof(int));
    if (!pv) return LSIM_OUT_OF_MEMORY;
    s->prev_var = pv;
    int *pn = realloc(s->prev_nvar, (size_t)cap * sizeof(int));
    if (!pn) return LSIM_OUT_OF_MEMORY;
    s->prev_nvar = pn;
    s->prev_cap = cap;
  }
  if (lsim_grow((void **)&s->prev_z, &s->prev_zcap, s->f.n, sizeof(double))) return LSIM_OUT_OF_MEMORY;
  if (s->final_b && lsim_grow((void **)&s->prev_b, &s->prev_bcap, s->f.n, 1)) return LSIM_OUT_OF_MEMORY;
  return 0;
}

/* Contact c (ct) remembered: id, first variable, size, and its part of z. */
static inline void remember_contact(LsimStepper *s, int c, const LsimContact *ct) {
  const int nvar = contact_nvar(ct);
  s->prev_id[c] = ct->id, s->prev_var[c] = ct->first_var, s->prev_nvar[c] = nvar;
  if (nvar > 0) copy_vars(s->prev_z + ct->first_var, s->z + ct->first_var, nvar);
  if (nvar > 0 && s->final_b) memcpy(s->prev_b + ct->first_var, s->final_b + ct->first_var, (size_t)nvar);
}

static int remember(LsimStepper *s, int count) {
  s->prev_count = count;
  /* The table: grown (never shrunk) to a power of two at least twice the count; a new
     stamp empties it (a wrapped one, and new memory, by a pass). */
  int size = s->table_size ? s->table_size : 16;
  while (size < 2 * count) size *= 2;
  unsigned stamp = s->table_stamp + 1;
  if (size != s->table_size) {
    IdIndex *t = realloc(s->table, (size_t)size * sizeof *t);
    if (!t) {
      s->table_size = 0;
      return LSIM_OUT_OF_MEMORY;
    }
    s->table = t, s->table_size = size;
    stamp = 0;
  }
  if (stamp == 0) {
    for (int i = 0; i < size; ++i) s->table[i].stamp = 0;
    stamp = 1;
  }
  s->table_stamp = stamp;
  for (int c = 0; c < count; ++c) {
    const uint64_t id = s->prev_id[c];
    unsigned h = id_slot(id, size);
    while (s->table[h].stamp == stamp && s->table[h].id != id) h = (h + 1) & (unsigned)(size - 1);
    if (s->table[h].stamp != stamp) s->table[h] = (IdIndex){id, c, stamp};
    else s->prev_nvar[c] = -1 - s->prev_nvar[c]; /* a repeated id: the table has its first */
  }
  return 0;
}

/* Stage 7's impulses of contacts [c0, c1) (joint rows: E_lambda from the elimination),
 * each contact remembered in the same pass (remember_contact). */
int lsim_step_remember(LsimStepper *s, int count) { return remember(s, count); }

static void impulses_range(LsimStepper *s, int c0, int c1) {
  LsimContactSet *set = &s->contacts;
  int wd = -1; /* the direction count cs, sn are for */
  double cs[LSIM_MAX_DIRECTIONS], sn[LSIM_MAX_DIRECTIONS];
  for (int c = c0; c < c1; ++c) {
    LsimContact *ct = &set->contacts[c];
    remember_contact(s, c, ct);
    int var = ct->first_var;
    if (ct->kind == LSIM_CONTACT_EQUALITY) {
      ct->normal_impulse = s->E_lambda[var];
      ct->friction_impulse[0] = ct->friction_impulse[1] = ct->friction_impulse[2] = 0.0;
      ct->slip_speed = 0.0;
      continue;
    }
    ct->normal_impulse = has_normal(ct) ? s->z[var++] : ct->normal_load;
    if (ct->ndir > 0 && ct->ndir != wd) lsim_cone_weights(wd = ct->ndir, cs, sn);
    /* Direction d as detection formed its rows: cs t1 + sn t2 (SSE2: x and y in the lanes
       of one register, each lane the scalar sum's operations: the same bits). */
    const double *t0 = ct->tangent[0], *t1 = ct->tangent[1];
#if defined(__SSE2__)
    __m128d fxy = _mm_setzero_pd();
    double fz = 0.0;
    const __m128d t0xy = _mm_loadu_pd(t0), t1xy = _mm_loadu_pd(t1);
    for (int d = 0; d < ct->ndir; ++d, ++var) {
      const double zv = s->z[var];
      const __m128d u = _mm_add_pd(_mm_mul_pd(_mm_set1_pd(cs[d]), t0xy), _mm_mul_pd(_mm_set1_pd(sn[d]), t1xy));
      fxy = _mm_add_pd(fxy, _mm_mul_pd(_mm_set1_pd(zv), u));
      fz += zv * (cs[d] * t0[2] + sn[d] * t1[2]);
    }
    _mm_storeu_pd(ct->friction_impulse, fxy);
    ct->friction_impulse[2] = fz;
#else
    ct->friction_impulse[0] = ct->friction_impulse[1] = ct->friction_impulse[2] = 0.0;
    for (int d = 0; d < ct->ndir; ++d, ++var)
      for (int k = 0; k < 3; ++k) ct->friction_impulse[k] += s->z[var] * (cs[d] * t0[k] + sn[d] * t1[k]);
#endif
    ct->slip_speed = ct->ndir > 0 ? s->z[var] : 0.0;
  }
}

static void impulses_slice(void *arg, int member) {
  LsimStepper *s = arg;
  impulses_range(s, s->slice_first[member], s->slice_first[member + 1]);
}

/* Whether a 3-D body's force schedule (width 6) applies a torque at any time. */
static int schedule_has_torque(const LsimSchedule *f) {
  if (f->width < 6 || !f->value) return 0;
  const int rows = f->npoints > 0 ? f->npoints : 1;
  for (int k = 0; k < rows; ++k)
    for (int d = 3; d < 6; ++d)
      if (f->value[k * f->width + d] != 0.0) return 1;
  return 0;
}

/* Stages 5-6 for bodies [b0, b1): v' = v_free + B z (bz), q' = q + h v' (semi-implicit
 * Euler); 3-D orientations rotate by the exponential map of h w' and are renormalized; a
 * body without contact, tether or joint row takes its spin and turn from rotation_step
 * instead (the Lie midpoint), from its spin with the applied torques' part of v_free
 * added (the world momentum then changes by h tau exactly). */
static void integrate_range(const LsimStepper *s, const LsimModel *m, LsimState *st,
                            const double *bz, int b0, int b1) {
  const double h = m->time_step;
  for (int i = b0; i < b1; ++i) {
    const LsimBody *b = &m->bodies[i];
    if (s->asleep && s->asleep[i]) continue; /* asleep: v stays zero, q untouched */
    double *v = st->v + b->v_offset, w0[3] = {0.0, 0.0, 0.0};
    if (s->rot_free[i]) lsim_v3_copy(w0, v + 3); /* the step's starting spin */
    for (int d = 0; d < b->nv; ++d) v[d] = s->v_free[b->v_offset + d] + bz[b->v_offset + d];
    if (b->nq == 0) continue;
    double *q = st->q + b->q_offset;
    if (m->dimension < 3) {
      for (int d = 0; d < b->nq; ++d) q[d] += h * v[d];
      continue;
    }
    for (int d = 0; d < 3; ++d) q[d] += h * v[d];
    double dq[4], nq[4], wr[3];
    lsim_v3_copy(wr, v + 3);
    if (s->rot_free[i]) {
      /* No row: the applied torques' spin (v_free less w and the body-frame midpoint's
         gyroscopic change: h I^-1 tau in the start's frame) is added first, then the Lie
         midpoint turns the body and its spin, so the world momentum changes by h tau
         exactly, as the linear momentum by h f (kick, then drift: semi-implicit Euler).
         Added after the Lie step, with the end's frame, it changed by I(R') I(R)^-1 h tau:
         a first-order error, 0.05 of 3.7 N m s in 10 s for a tumbling body. */
      double w_end[3], m_world[3], applied[3], wk[3];
      for (int d = 0; d < 3; ++d)
        applied[d] = s->v_free[b->v_offset + 3 + d] - w0[d] - s->rot_c[3 * i + d];
      const int torqued = schedule_has_torque(&b->force);
      for (int d = 0; d < 3; ++d) wk[d] = torqued ? w0[d] + applied[d] : w0[d];
      rotation_step(w_end, m_world, b->inertia, s->inv_inertia_body + 9 * i, q + 3, wk, h);
      /* Without torque, applied is the round-off of the midpoint's change (kept as it
         was: the same bits as before). */
      for (int d = 0; d < 3; ++d) {
        v[3 + d] = torqued ? w_end[d] : w_end[d] + applied[d];
        wr[d] = torqued ? m_world[d] : m_world[d] + applied[d];
      }
    }
    lsim_quat_from_rotvec(dq, wr, h);
    lsim_quat_mul(nq, dq, q + 3);
    lsim_quat_normalize(nq);
    memcpy(q + 3, nq, sizeof nq);
  }
}

/* sweep_order's counting sort of contacts [0, n) by key, member k of T the range
 * [n k / T, n (k + 1) / T): first (copy 0) its keys (from graph_slice's order_pair and
 * marks in order_key, not the contact records), its counts per key in row k of
 * order_count (stride nkeys + 1) and its largest key at the row's end; then (copy 1,
 * each row turned into the member's first position per key) its contacts copied to
 * order_tmp in order. */
typedef struct OrderJob {
  LsimStepper *s;
  const int *depth;
  int n, T, nkeys, copy;
} OrderJob;

static void order_slice(void *arg, int member) {
  const OrderJob *j = arg;
  LsimStepper *s = j->s;
  const LsimContact *set = s->contacts.contacts;
  const int c0 = (int)((long long)j->n * member / j->T), c1 = (int)((long long)j->n * (member + 1) / j->T);
  int *count = s->order_count + member * (j->nkeys + 1);
  if (j->copy) {
    for (int c = c0; c < c1; ++c) s->order_tmp[count[s->order_key[c]]++] = set[c];
    return;
  }
  memset(count, 0, (size_t)j->nkeys * sizeof(int));
  int maxkey = 0;
  const int *pair = s->order_pair;
  for (int c = c0; c < c1; ++c) {
    int key = 0;
    if (s->order_key[c]) /* a point of non-penetration (graph_slice's mark) */
      for (int b = 0; b < 2; ++b)
        if (pair[2 * c + b] >= 0 && j->depth[pair[2 * c + b]] > key) key = j->depth[pair[2 * c + b]];
    s->order_key[c] = key;
    count[key] += 1;
    if (key > maxkey) maxkey = key;
  }
  count[j->nkeys] = maxkey;
}

/* The contact graph's lists (order_start, order_adj: body b's neighbours in
 * adj[start[b] .. start[b + 1]), one per contact on b in contact order, the other body or
 * -1) by T members: member k counts its range of the contacts per body (its row of
 * order_count), copying each contact's bodies to order_pair and marking its points of
 * non-penetration in order_key (the passes after it read these 12 B, not the 216 B
 * record: a pass over the records less and a narrower one, 10 000 bodies' 40 000
 * contacts being 8.6 MB of records), then finds the lists' starts for its range of the bodies (the earlier
 * bodies' sums first), each row of order_count turned into that member's first place per
 * body, after the earlier ranges' entries; then it writes its contacts' entries: the
 * lists of one pass over the contacts. Flags between the three steps (done[p][k]). */
typedef struct GraphJob {
  LsimStepper *s;
  int n, nb, T;
  int sum[LSIM_PGS_MAX_THREADS]; /* entries on member k's range of the bodies */
  LsimTeamFlag done[3][LSIM_PGS_MAX_THREADS];
} GraphJob;

static void graph_wait(GraphJob *j, int step, int member) {
  if (j->T == 1) return;
  lsim_team_flag_store(&j->done[step][member], 1);
  for (int k = 0; k < j->T; ++k) lsim_team_flag_wait(&j->done[step][k], 1);
}

static void graph_slice(void *arg, int member) {
  GraphJob *j = arg;
  LsimStepper *s = j->s;
  const LsimContact *set = s->contacts.contacts;
  const int T = j->T, nb = j->nb;
  const int c0 = (int)((long long)j->n * member / T), c1 = (int)((long long)j->n * (member + 1) / T);
  const int b0 = (int)((long long)nb * member / T), b1 = (int)((long long)nb * (member + 1) / T);
  int *count = s->order_count + (size_t)member * nb, *start = s->order_start;
  memset(count, 0, (size_t)nb * sizeof(int));
  int *pair = s->order_pair;
  for (int c = c0; c < c1; ++c) {
    const int e0 = set[c].body[0], e1 = set[c].body[1];
    pair[2 * c] = e0, pair[2 * c + 1] = e1;
    s->order_key[c] = set[c].kind == LSIM_CONTACT_NORMAL;
    if (e0 >= 0) count[e0]++;
    if (e1 >= 0) count[e1]++;
  }
  graph_wait(j, 0, member);
  int sum = 0;
  for (int b = b0; b < b1; ++b)
    for (int k = 0; k < T; ++k) sum += s->order_count[(size_t)k * nb + b];
  j->sum[member] = sum;
  graph_wait(j, 1, member);
  int at = 0;
  for (int k = 0; k < member; ++k) at += j->sum[k];
  for (int b = b0; b < b1; ++b) {
    start[b] = at;
    for (int k = 0; k < T; ++k) {
      int *ck = s->order_count + (size_t)k * nb + b;
      const int here = *ck;
      *ck = at, at += here;
    }
  }
  if (member == T - 1) start[nb] = start[nb + 1] = at;
  graph_wait(j, 2, member);
  int *adj = s->order_adj;
  for (int c = c0; c < c1; ++c) {
    const int e0 = pair[2 * c], e1 = pair[2 * c + 1];
    if (e0 >= 0) adj[count[e0]++] = e1;
    if (e1 >= 0) adj[count[e1]++] = e0;
  }
}

/* Stage 2, for PGS in 3-D: the contacts reordered so that the sweep meets the bodies
 * farthest from the ground first. A body's depth is its distance in the contact graph
 * (bodies joined by a contact) from the static and kinematic bodies (0; a dynamic body
 * touching one: 1), by breadth-first search; a dynamic body no path reaches has depth 0.
 * Each point of non-penetration takes the larger depth of its bodies, and the contacts
 * are sorted by it, deepest first, in detection order within a depth (a counting sort:
 * stable, the same on every machine); a shape pair's points stay together. Tether and
 * joint rows take 0 (they keep detection's order, after the others). A scene whose
 * contacts all touch the ground, or none does, keeps detection's order.
 * Why: in detection order the pile of 1000 boxes at 50 sweeps gained kinetic energy
 * after it settled (0.47 J at 1 s, 5.4 J at 3 s); the towers' tops first, it comes to
 * rest (docs/solvers.md, "Sweep order"). Returns LSIM_OUT_OF_MEMORY or 0 (the order as
 * detected kept when room fails). */
static int sweep_order(LsimStepper *s, const LsimModel *m) {
  LsimContactSet *set = &s->contacts;
  const int n = set->count, nb = m->nbodies;
  if (n < 2) return 0;
  if (lsim_grow((void **)&s->order_adj, &s->order_adj_cap, 2 * n, sizeof(int)) ||
      lsim_grow((void **)&s->order_pair, &s->order_pair_cap, 2 * n, sizeof(int)) ||
      lsim_grow((void **)&s->order_key, &s->order_key_cap, n, sizeof(int)) ||
      lsim_grow((void **)&s->order_tmp, &s->order_tmp_cap, n, sizeof(LsimContact)))
    return LSIM_OUT_OF_MEMORY;
  int *depth = s->order_depth, *queue = s->order_queue, *start = s->order_start, *adj = s->order_adj;
  /* The graph: each dynamic body's neighbours by contact (static, kinematic and the world
     are the roots, not nodes); on the solver's team for large sets (graph_slice). */
  LsimTeam *team = n >= s->team_min_contacts ? lsim_solver_team(s->solver) : NULL;
  GraphJob graph = {.s = s, .n = n, .nb = nb, .T = lsim_team_size(team)};
  if (graph.T < 1) graph.T = 1;
  if (lsim_grow((void **)&s->order_count, &s->order_count_cap, graph.T * nb, sizeof(int)))
    return LSIM_OUT_OF_MEMORY;
  for (int k = 0; k < graph.T; ++k)
    for (int p = 0; p < 3; ++p) lsim_team_flag_init(&graph.done[p][k], 0);
  if (graph.T > 1) lsim_team_run(team, graph_slice, &graph);
  else graph_slice(&graph, 0);
  /* start[b] .. start[b + 1]: b's neighbours. Breadth-first from the roots. */
  int head = 0, tail = 0;
  for (int b = 0; b < nb; ++b) depth[b] = m->bodies[b].type == LSIM_BODY_DYNAMIC ? -1 : 0;
  for (int b = 0; b < nb; ++b) {
    if (depth[b] != -1) continue;
    for (int k = start[b]; k < start[b + 1]; ++k)
      if (adj[k] < 0 || depth[adj[k]] == 0) {
        depth[b] = 1, queue[tail++] = b;
        break;
      }
  }
  while (head < tail) {
    const int b = queue[head++];
    for (int k = start[b]; k < start[b + 1]; ++k) {
      const int o = adj[k];
      if (o >= 0 && depth[o] == -1) depth[o] = depth[b] + 1, queue[tail++] = o;
    }
  }
  /* The keys, counted per key, and the copy in the order deepest first (a stable
     counting sort): on the solver's team for large sets, each member the keys and counts
     of an equal range of the contacts, then the copy of its range after the earlier
     ranges' contacts of each key: the order one thread gives (keys are at most the BFS's
     last depth). */
  const int nkeys = (tail > 0 ? depth[queue[tail - 1]] : 0) + 1;
  OrderJob job = {s, depth, n, lsim_team_size(team), nkeys, 0};
  if (job.T < 1) job.T = 1;
  if (lsim_grow((void **)&s->order_count, &s->order_count_cap, job.T * (nkeys + 1), sizeof(int)))
    return LSIM_OUT_OF_MEMORY;
  if (job.T > 1) lsim_team_run(team, order_slice, &job);
  else order_slice(&job, 0);
  int maxkey = 0;
  for (int k = 0; k < job.T; ++k)
    if (s->order_count[k * (nkeys + 1) + nkeys] > maxkey) maxkey = s->order_count[k * (nkeys + 1) + nkeys];
  if (maxkey <= 1) return 0; /* every key 0 or 1: one of two runs at most; kept as is */
  int at = 0;
  for (int key = maxkey; key >= 0; --key)
    for (int k = 0; k < job.T; ++k) {
      int *count = s->order_count + k * (nkeys + 1);
      const int here = count[key];
      count[key] = at;
      at += here;
    }
  job.copy = 1;
  if (job.T > 1) lsim_team_run(team, order_slice, &job);
  else order_slice(&job, 0);
  /* The ordered copy becomes the set's array, the old one the next step's scratch (a copy
     back had cost 1.5 % of a pile's step). */
  LsimContact *const old = set->contacts;
  const int old_cap = set->capacity;
  set->contacts = s->order_tmp, set->capacity = s->order_tmp_cap;
  s->order_tmp = old, s->order_tmp_cap = old_cap;
  return 0;
}

/* Scenes from this many bodies run stages 1 and 5-6 on the solver's team (when it has
 * one), each member an equal share of the bodies. */
enum { PARALLEL_MIN_BODIES = 256 };

/* Stage 1 (start) or stages 5-6 (!start) of a share of the bodies. */
typedef struct BodiesJob {
  LsimStepper *s;
  const LsimModel *m;
  LsimState *st;
  const double *bz;
  int start, T;
} BodiesJob;

static void bodies_slice(void *arg, int member) {
  const BodiesJob *j = arg;
  const int b0 = (int)((long long)j->m->nbodies * member / j->T);
  const int b1 = (int)((long long)j->m->nbodies * (member + 1) / j->T);
  if (j->start) {
    prepare_inertias(j->s, j->m, j->st, b0, b1);
    prepare_free_velocities(j->s, j->m, j->st, b0, b1);
  } else {
    integrate_range(j->s, j->m, j->st, j->bz, b0, b1);
  }
}

/* Runs a bodies job on the solver's team when the scene is large enough (and the mass
 * block diagonal), else here. */
static void run_bodies(LsimStepper *s, const LsimModel *m, LsimState *st, const double *bz,
                       int start) {
  LsimTeam *team = m->nbodies >= PARALLEL_MIN_BODIES && !s->mass ? lsim_solver_team(s->solver) : NULL;
  BodiesJob job = {s, m, st, bz, start, lsim_team_size(team)};
  if (job.T > 1) lsim_team_run(team, bodies_slice, &job);
  else bodies_slice(&job, 0);
}

/* The Jacobian rows contact ct owns: its normal row (NORMAL), a tether's or joint's one
 * row, then ndir direction rows (contact.h). */
static int contact_rows(const LsimContact *ct) {
  if (ct->kind == LSIM_CONTACT_FIXED_NORMAL) return ct->ndir;
  return 1 + (ct->kind == LSIM_CONTACT_NORMAL ? ct->ndir : 0);
}

/* Removes the contacts with mark[c] = 1 from set and the friction rows of those with
 * mark[c] = 2 (which become frictionless), keeping the order of the contacts and of the
 * rows. The two orders may differ (sweep_order permutes the contacts, not the rows), so
 * the rows are compacted in their own order through a map from a contact's first row to
 * the contact (s->row_owner): taking a contact's rows to run to the next contact's first
 * row, as before, gave a negative count after a reordering and moved rows over the heap
 * (a PGS step of a 3-D scene with a held contact and a body two contacts from the ground).
 * Returns LSIM_OUT_OF_MEMORY (set untouched) or 0. */
static int drop_marked_contacts(LsimStepper *s, LsimContactSet *set, const unsigned char *mark) {
  if (lsim_grow((void **)&s->row_owner, &s->row_owner_cap, set->nrows + 1, sizeof(int)))
    return LSIM_OUT_OF_MEMORY;
  int *owner = s->row_owner;
  for (int r = 0; r < set->nrows; ++r) owner[r] = -1;
  for (int c = 0; c < set->count; ++c)
    if (contact_rows(&set->contacts[c]) > 0) owner[set->contacts[c].first_row] = c;
  /* The rows, each moved down over the dropped ones (nrows <= r: no row is overwritten
     before it is read); each kept contact's first row follows its rows. */
  int nrows = 0, left = 0;
  for (int r = 0; r < set->nrows; ++r) {
    const int c = owner[r];
    if (c >= 0) {
      const int n = contact_rows(&set->contacts[c]);
      left = mark[c] == 1 ? 0 : mark[c] == 2 ? 1 : n;
      set->contacts[c].first_row = nrows;
    }
    if (left > 0) set->rows[nrows++] = set->rows[r], --left;
  }
  /* The contacts, in their order. */
  int kept = 0;
  for (int c = 0; c < set->count; ++c) {
    if (mark[c] == 1) continue;
    if (kept != c) set->contacts[kept] = set->contacts[c];
    if (mark[c] == 2) set->contacts[kept].ndir = 0;
    ++kept;
  }
  set->count = kept;
  set->nrows = nrows;
  return 0;
}

/* The tethers and joints of sleeping groups still hold them: after the step (the LCP and
 * the warm-start memory done), their rows kept aside by lsim_sleep_drop_contacts return to
 * the contact set with the impulses they carried when last awake, so that the record shows
 * a sleeping chain's tensions rather than zeros. The impulses of the set's own tether and
 * joint rows are remembered for that, by tether and by joint row. */
static int report_resting_constraints(LsimStepper *s, const LsimModel *m) {
  if (!s->asleep || (m->ntethers == 0 && m->njoints == 0)) return 0;
  if (!s->last_tether && !(s->last_tether = calloc((size_t)m->ntethers + 1, sizeof(double))))
    return LSIM_OUT_OF_MEMORY;
  if (!s->last_joint && !(s->last_joint = calloc(3 * (size_t)m->njoints + 1, sizeof(double))))
    return LSIM_OUT_OF_MEMORY;
  LsimContactSet *set = &s->contacts;
  /* Joint rows come in order, a joint's rows one after the other. */
  int last = -1, row = 0;
  for (int c = 0; c < set->count; ++c) {
    const LsimContact *ct = &set->contacts[c];
    if (ct->kind == LSIM_CONTACT_TETHER) {
      s->last_tether[ct->source] = ct->normal_impulse;
    } else if (ct->kind == LSIM_CONTACT_EQUALITY) {
      row = ct->source == last ? row + 1 : 0, last = ct->source;
      if (row < 3) s->last_joint[3 * ct->source + row] = ct->normal_impulse;
    }
  }
  last = -1, row = 0;
  for (int r = 0; r < s->nrest; ++r) {
    const LsimContact *rc = &s->rest_contacts[r];
    LsimContact *c = lsim_contacts_add(set, 1);
    if (!c) return LSIM_OUT_OF_MEMORY;
    const int first_row = c->first_row;
    *c = *rc;
    c->first_row = first_row;
    set->rows[first_row] = s->rest_rows[r];
    if (rc->kind == LSIM_CONTACT_TETHER) {
      c->normal_impulse = s->last_tether[rc->source];
    } else {
      row = rc->source == last ? row + 1 : 0, last = rc->source;
      c->normal_impulse = row < 3 ? s->last_joint[3 * rc->source + row] : 0.0;
    }
  }
  return 0;
}

int lsim_step(LsimStepper *s, const LsimModel *m, LsimState *st, LsimStepStats *stats) {
  LsimStepStats local;
  if (!stats) stats = &local;
  /* Stage 5b's re-runs (step_admit.c) come back here, with the raised speed floor. */
  int reruns = 0, nfast = 0, missed = 0;
  double wall_before = 0.0; /* the solver time of the solves re-run */
  s->contacts.speed_floor = NULL;
again:
  memset(stats, 0, sizeof *stats);
  stats->sleeping = s->nasleep;

  /* Stage 1-2: free velocities, contacts (sleepers that an input acts on woken first). */
  if (s->asleep) (void)lsim_sleep_wake_inputs(s, m, st);
  run_bodies(s, m, st, NULL, 1);
  if (s->mass) couple_free_velocities(s, m);
  s->last_error[0] = '\0';
  s->body_contacts_now = 0;
  s->v_pre = st->v;
  s->guard_model = m, s->guard_state = st, s->guard_k0 = -1.0;
  s->contacts.team = lsim_solver_team(s->solver); /* borrowed between solves */
  s->contacts.asleep = s->asleep; /* detection skips sleepers' idle pairs (NULL: off) */
  /* a persistent pair keeps its order (its ids), by the previous step's ids */
  s->contacts.was = was_contact, s->contacts.was_ctx = s;
  int rc = lsim_detect_contacts(m, st, s->v_free, &s->contacts);
  if (!rc) rc = lsim_constraint_rows_step(m, st, st->time, m->time_step, &s->contacts);
  /* Sleeping groups tied to something moving wake: their free velocities and the
     contacts again, until no group wakes; then the contacts of sleepers alone leave. */
  while (!rc && s->asleep && lsim_sleep_wake_contacts(s, m) > 0) {
    run_bodies(s, m, st, NULL, 1);
    if (s->mass) couple_free_velocities(s, m);
    rc = lsim_detect_contacts(m, st, s->v_free, &s->contacts);
    if (!rc) rc = lsim_constraint_rows_step(m, st, st->time, m->time_step, &s->contacts);
  }
  if (!rc && s->asleep) lsim_sleep_drop_contacts(s, m);
  if (!rc && s->spread_warm && m->solver.warm_start) rc = sweep_order(s, m);
  /* The joints' elimination turns v_free into v_free' in place: kept for a second
     assembly. */
  if (!rc && m->njoints > 0) {
    if (!s->v_free0 && !(s->v_free0 = malloc((size_t)(m->nv > 0 ? m->nv : 1) * sizeof(double))))
      rc = LSIM_OUT_OF_MEMORY;
    else
      memcpy(s->v_free0, s->v_free, (size_t)m->nv * sizeof(double));
  }
  if (!rc) rc = lsim_step_assemble(s, m, s->last_error, sizeof s->last_error);
  /* Rows that the joints hold (a chain's neighbours meeting end to end at their pin) leave
     the LCP, which is assembled again: a contact held open, or a contact's friction rows
     (lsim_step_inert_contacts). Their impulses move nothing, and their rows, of zero
     diagonal after the elimination, stop PGS (bad_diagonal) and degenerate Lemke's
     pivots. */
  if (!rc && s->ne > 0 && s->contacts.count > 0) {
    if (lsim_grow((void **)&s->inert_mark, &s->inert_mark_cap, s->contacts.count, 1)) {
      rc = LSIM_OUT_OF_MEMORY;
    } else if (lsim_step_inert_contacts(s, s->inert_mark) > 0) {
      rc = drop_marked_contacts(s, &s->contacts, s->inert_mark);
      memcpy(s->v_free, s->v_free0, (size_t)m->nv * sizeof(double));
      if (!rc) rc = lsim_step_assemble(s, m, s->last_error, sizeof s->last_error);
    }
  }
  if (rc) {
    stats->status = rc;
    return rc;
  }
  LsimContactSet *set = &s->contacts;
  const int n = s->f.n;
  stats->lcp_size = n;
  stats->ncontacts = set->count;

  /* Stage 3-4: warm start and solve. */
  int status = LSIM_SOLVED;
  s->final_b = NULL;
  s->bguess_valid = 0;
  if (n > 0) {
    warm_start(s);
    if (s->spread_warm && m->solver.warm_start) warm_spread_manifolds(s, m, st);
    memcpy(s->guess, s->z, (size_t)n * sizeof(double));
    LsimSolveStats ss;
    memset(&ss, 0, sizeof ss);
    if (m->friction_exact) {
      /* Coulomb's exact cone on the LCP's contact frames (contact/exact_cone.h) */
      const LsimLcp *dl = lsim_stepper_lcp(s);
      status = dl ? lsim_exact_cone_solve(&s->exact, dl, m->solver.tol, m->solver.max_iter,
                                          m->solver.warm_start, s->z, &ss, s->last_error,
                                          sizeof s->last_error)
                  : LSIM_OUT_OF_MEMORY;
      ss.first_status = status;
    } else {
      /* Sparse Lemke starts from the last step's final basis by contact id when there is one. */
      s->bguess_valid = s->prev_bvalid;
      lsim_solver_set_basis_guess(s->solver, s->prev_bvalid ? s->bguess : NULL);
      status = lsim_solver_solve_factored(s->solver, &s->f, s->z, &ss);
      int nb = 0;
      s->final_b = lsim_solver_last_basis(s->solver, &nb);
      if (nb != n) s->final_b = NULL;
    }
    /* Newton's law can ask for what the other contacts forbid (a ball rattling between
       two walls closer than e v h: the step's restitution row sends it back faster than
       the far wall's gap row lets it move), and such an LCP has no solution. When the
       solve fails and the model has restitution, the step is solved again with every
       normal row a gap row (inelastic at this step, always feasible where the gap rows
       are): first_status keeps the failure, status is the second solve's. */
    if (status < 0 && status != LSIM_OUT_OF_MEMORY && s->restitution && !m->friction_exact) {
      const int first = ss.first_status;
      s->restitution = 0;
      if (m->njoints > 0) memcpy(s->v_free, s->v_free0, (size_t)m->nv * sizeof(double));
      int arc = lsim_step_assemble(s, m, s->last_error, sizeof s->last_error);
      s->restitution = 1;
      if (arc) {
        stats->status = arc;
        return arc;
      }
      warm_start(s);
      memset(&ss, 0, sizeof ss);
      s->guard_k0 = -1.0; /* the free velocities were made again */
      lsim_solver_set_basis_guess(s->solver, NULL);
      status = lsim_solver_solve_factored(s->solver, &s->f, s->z, &ss);
      int nb = 0;
      s->final_b = lsim_solver_last_basis(s->solver, &nb);
      if (nb != n) s->final_b = NULL;
      ss.first_status = first;
    }
    stats->first_status = ss.first_status;
    stats->source = ss.source;
    stats->guard = ss.guard;
    stats->refused_energy = ss.refused_energy;
    stats->simd = ss.simd;
    stats->iterations = ss.iterations;
    stats->warm_started = ss.warm_started;
    stats->residual = ss.residual.natural;
    stats->relative_residual = ss.residual.relative;
    stats->wall_time = ss.wall_time;
    stats->siconos_error = ss.siconos_error;
  }
  stats->status = status;

  /* Stage 5: v' = v_free + B z (B = W J'); kinematic bodies keep their prescribed
     velocity (B has no rows for them). The solver's B z when it formed one from the
     returned z (the factored PGS does, for its final residual), else formed here. */
  const double *bz = n > 0 && !m->friction_exact ? lsim_solver_last_bz(s->solver) : NULL;
  if (!bz) {
    const LsimFactoredLcp *f = lsim_factored_full(&s->f); /* every column of B */
    if (!f) {
      stats->status = LSIM_OUT_OF_MEMORY;
      return LSIM_OUT_OF_MEMORY;
    }
    memset(s->dv, 0, (size_t)m->nv * sizeof(double));
    for (int i = 0; i < n; ++i) {
      const double zi = s->z[i];
      if (zi == 0.0) continue;
      for (int k = f->B_ptr[i]; k < f->B_ptr[i + 1]; ++k) s->dv[f->B_idx[k]] += f->B_val[k] * zi;
    }
    bz = s->dv;
  }
  /* Stage 5b: a contact that detection left out and v' closes: the step again, with the
     bounds of the bodies that ended faster raised (step_admit.c). */
  missed = lsim_step_admit(s, m, bz, reruns, &nfast);
  if (missed < 0) {
    s->contacts.speed_floor = NULL;
    stats->status = missed;
    return missed;
  }
  if (missed > 0 && reruns < LSIM_ADMIT_RERUNS) {
    ++reruns;
    wall_before += stats->wall_time;
    s->contacts.speed_floor = s->admit_floor;
    goto again;
  }
  s->contacts.speed_floor = NULL;
  stats->admit_fast = nfast, stats->admit_reruns = reruns, stats->admit_missed = missed;
  stats->wall_time += wall_before;

  /* Stage 6: q' = q + h v' (semi-implicit Euler), with stage 5 body by body; 3-D bodies
     that no row touches this step turn by the Lie midpoint (rotation_step). */
  if (m->dimension == 3) {
    for (int i = 0; i < m->nbodies; ++i)
      s->rot_free[i] = m->rotation == LSIM_ROTATION_LIE_MIDPOINT && m->bodies[i].type == LSIM_BODY_DYNAMIC;
    /* The bodies some contact touches: body_contacts non-zero when the warm start counted
       them for this step's set (a pass over the contacts less, 1.3 % of a pile's step). */
    if (s->body_contacts_now) {
      for (int i = 0; i < m->nbodies; ++i)
        if (s->body_contacts[i]) s->rot_free[i] = 0;
    } else {
      for (int c = 0; c < set->count; ++c)
        for (int k = 0; k < 2; ++k)
          if (set->contacts[c].body[k] >= 0) s->rot_free[set->contacts[c].body[k]] = 0;
    }
  }
  run_bodies(s, m, st, bz, 0);
  /* Stage 6b: overlaps deeper than the slop after the step shrink by moving positions
     (step_correct.c); velocities are left as stage 5 made them. */
  if ((rc = lsim_step_correct_positions(s, m, st))) {
    stats->status = rc;
    return rc;
  }
  st->step += 1;
  st->time = m->time_step * st->step;
  if (s->asleep && (rc = lsim_sleep_update(s, m, st))) {
    stats->status = rc;
    return rc;
  }
  stats->sleeping = s->nasleep;

  /* Stage 7: impulses on the contacts (joint rows: from the elimination), remembered by
     id. */
  if (s->ne > 0) lsim_equality_impulses(s->equality, s->z, s->E_lambda);
  rc = reserve_remember(s);
  if (rc) {
    stats->status = rc;
    return rc;
  }
  LsimTeam *team = slice_team(s);
  if (team) {
    lsim_team_run(team, impulses_slice, s);
  } else {
    impulses_range(s, 0, set->count);
  }
  s->prev_bvalid = s->final_b != NULL;
  rc = remember(s, set->count);
  if (!rc) rc = report_resting_constraints(s, m);
  if (rc) {
    stats->status = rc;
    return rc;
  }
  /* The step's contacts are the rows the set reports: sleeping groups' resting tether and
     joint rows included (the record's /contacts rows and /solver/ncontacts agree). */
  stats->ncontacts = set->count;
  return status;
}
