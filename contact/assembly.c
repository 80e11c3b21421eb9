/* assembly.c: consistent initial conditions (the method is in assembly.h). */
#include "contact/assembly.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact/constraints.h"
#include "contact/contact.h"
#include "contact/math3.h"
#include "lcp/lcp.h"

/* Dense rows [ne x nv] of the joint rows in set, their gaps (phi) and J v + bias. */
static int joint_rows(const LsimModel *m, const LsimContactSet *set, double *J, double *phi,
                      double *rate, const double *v, int *row_joint) {
  int ne = 0;
  for (int c = 0; c < set->count; ++c) {
    const LsimContact *ct = &set->contacts[c];
    if (ct->kind != LSIM_CONTACT_EQUALITY) continue;
    double *Jr = J + (size_t)ne * m->nv;
    memset(Jr, 0, (size_t)m->nv * sizeof(double));
    const LsimJacRow *row = &set->rows[ct->first_row];
    double jv = ct->bias;
    for (int k = 0; k < 2; ++k) {
      if (row->body[k] < 0) continue;
      const LsimBody *b = &m->bodies[row->body[k]];
      for (int d = 0; d < b->nv; ++d) jv += row->j[k][d] * v[b->v_offset + d];
      if (b->type != LSIM_BODY_DYNAMIC) continue; /* kinematic and static ends stay */
      for (int d = 0; d < b->nv; ++d) Jr[b->v_offset + d] += row->j[k][d];
    }
    phi[ne] = ct->gap, rate[ne] = jv, row_joint[ne] = ct->source;
    ++ne;
  }
  return ne;
}

/* x -= J' (J J' + eps I)^-1 r over ne rows (Cholesky of the regularized Gram matrix). */
static int least_norm(const double *J, int ne, int nv, const double *r, double *x, double *A,
                      double *y) {
  double dmax = 0.0;
  for (int i = 0; i < ne; ++i)
    for (int j = 0; j <= i; ++j) {
      double s = 0.0;
      for (int d = 0; d < nv; ++d) s += J[(size_t)i * nv + d] * J[(size_t)j * nv + d];
      A[i * ne + j] = s;
      if (i == j) dmax = fmax(dmax, s);
    }
  if (dmax == 0.0) return 0; /* no movable coordinate in any row */
  for (int i = 0; i < ne; ++i) A[i * ne + i] += 1e-14 * dmax;
  for (int j = 0; j < ne; ++j) {
    double s = A[j * ne + j];
    for (int k = 0; k < j; ++k) s -= A[j * ne + k] * A[j * ne + k];
    if (!(s > 0.0)) return LSIM_BREAKDOWN;
    A[j * ne + j] = sqrt(s);
    for (int i = j + 1; i < ne; ++i) {
      double t = A[i * ne + j];
      for (int k = 0; k < j; ++k) t -= A[i * ne + k] * A[j * ne + k];
      A[i * ne + j] = t / A[j * ne + j];
    }
  }
  for (int i = 0; i < ne; ++i) {
    double t = r[i];
    for (int k = 0; k < i; ++k) t -= A[i * ne + k] * y[k];
    y[i] = t / A[i * ne + i];
  }
  for (int i = ne - 1; i >= 0; --i) {
    double t = y[i];
    for (int k = i + 1; k < ne; ++k) t -= A[k * ne + i] * y[k];
    y[i] = t / A[i * ne + i];
  }
  for (int i = 0; i < ne; ++i)
    for (int d = 0; d < nv; ++d) x[d] -= J[(size_t)i * nv + d] * y[i];
  return 0;
}

/* Moves the dynamic bodies' positions by the velocity-space step dv. */
static void displace(const LsimModel *m, LsimState *st, const double *dv) {
  for (int i = 0; i < m->nbodies; ++i) {
    const LsimBody *b = &m->bodies[i];
    if (b->type != LSIM_BODY_DYNAMIC) continue;
    double *q = st->q + b->q_offset;
    const double *d = dv + b->v_offset;
    if (m->dimension < 3) {
      for (int k = 0; k < b->nq; ++k) q[k] += d[k];
      continue;
    }
    for (int k = 0; k < 3; ++k) q[k] += d[k];
    double dq[4], nq[4];
    lsim_quat_from_rotvec(dq, d + 3, 1.0);
    lsim_quat_mul(nq, dq, q + 3);
    lsim_quat_normalize(nq);
    memcpy(q + 3, nq, sizeof nq);
  }
}

double lsim_joint_velocity_error(const LsimModel *m, const LsimState *st, int joint) {
  double e = 0.0;
  lsim_joint_errors(m, st, st->time, joint, NULL, &e);
  return e;
}

int lsim_assemble(const LsimModel *m, LsimState *st, double tol, int max_iter,
                  double *error_before, char *err, size_t errlen) {
  for (int j = 0; error_before && j < m->njoints; ++j)
    error_before[j] = lsim_joint_error(m, st, st->time, j);
  if (m->njoints == 0) return 0;
  int ne_max = 0;
  for (int j = 0; j < m->njoints; ++j) ne_max += lsim_joint_rows(m, j);
  const size_t nv = (size_t)m->nv + 1, ne = (size_t)ne_max + 1;
  double *J = malloc(ne * nv * sizeof(double)), *phi = malloc(ne * sizeof(double));
  double *rate = malloc(ne * sizeof(double)), *A = malloc(ne * ne * sizeof(double));
  double *y = malloc(ne * sizeof(double)), *dv = malloc(nv * sizeof(double));
  int *rj = malloc(ne * sizeof(int));
  LsimContactSet set;
  memset(&set, 0, sizeof set);
  int rc = J && phi && rate && A && y && dv && rj ? 0 : LSIM_OUT_OF_MEMORY;
  /* Positions: Gauss-Newton until every row is within tol. */
  int it = 0;
  double worst = 0.0;
  int worst_joint = 0;
  for (; !rc; ++it) {
    lsim_contacts_clear(&set);
    if ((rc = lsim_constraint_rows(m, st, st->time, &set))) break;
    const int n = joint_rows(m, &set, J, phi, rate, st->v, rj);
    worst = 0.0;
    for (int i = 0; i < n; ++i)
      if (fabs(phi[i]) > worst) worst = fabs(phi[i]), worst_joint = rj[i];
    if (worst <= tol) break;
    if (it == max_iter) {
      rc = LSIM_MAX_ITERATIONS;
      break;
    }
    memset(dv, 0, nv * sizeof(double));
    if (least_norm(J, n, m->nv, phi, dv, A, y)) rc = LSIM_MAX_ITERATIONS;
    else displace(m, st, dv);
  }
  if (rc == LSIM_MAX_ITERATIONS)
    snprintf(err, errlen, "joint '%s' cannot be assembled: position error %.3g m after %d iterations",
             m->joints[worst_joint].name, worst, it);
  /* Velocities: the least-norm change that makes the joint rows' velocities zero. */
  if (!rc) {
    lsim_contacts_clear(&set);
    rc = lsim_constraint_rows(m, st, st->time, &set);
    const int n = rc ? 0 : joint_rows(m, &set, J, phi, rate, st->v, rj);
    if (n > 0 && least_norm(J, n, m->nv, rate, st->v, A, y)) {
      snprintf(err, errlen, "the joints' velocity constraints are singular");
      rc = LSIM_BREAKDOWN;
    }
  }
  if (rc == LSIM_OUT_OF_MEMORY) snprintf(err, errlen, "out of memory");
  lsim_contacts_free(&set);
  free(J), free(phi), free(rate), free(A), free(y), free(dv), free(rj);
  return rc;
}
