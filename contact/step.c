/* step.c: the Stewart-Trinkle time step (see step.h for the equations).
 *
 * Stages, in order: free velocities (applied forces and gravity over h), contact
 * detection, LCP assembly from the contact rows, warm start by contact id, solve,
 * velocity and position update, store impulses on the contacts and remember them.
 *
 * Assembly works on Jacobian rows only. The LCP matrix entry of two impulse variables
 * a, b is J_a W J_b^T, summed over the bodies both rows touch (W = M^-1 block diagonal);
 * a per-body list of rows makes the cost the sum over bodies of (rows per body)^2 rather
 * than (rows)^2. Cone rows add the constant blocks E, -E' and mu.
 *
 * Failure modes: a solver that does not solve still leaves a finite z; the step then
 * integrates with it and returns the solver status, so the caller can record and count
 * the failure; nothing becomes NaN.
 */
#include "contact/step.h"

#include "contact/math3.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct LsimStepper {
  LsimSolver *solver;
  LsimContactSet contacts;
  LsimLcp lcp;            /* M has room for lcp_cap^2 entries; lcp.n is this step's size */
  int lcp_cap;
  double *z;              /* [lcp_cap] solution */
  double *guess;          /* [lcp_cap] the warm-start guess handed to the solver */
  int *row_var;           /* [rows_cap] LCP variable of each Jacobian row */
  LsimConeBlock *cones;   /* [cones_cap] friction cone structure handed with the LCP */
  int cones_cap;
  int *adj_start;         /* [nbodies + 1] rows of body b: adj[adj_start[b] .. +1) */
  int *adj;               /* [2 * rows_cap] entries: row * 2 + slot */
  int rows_cap;
  double *v_free;         /* [nv] */
  double *dv;             /* [nv] W J^T z */
  /* Impulses of the previous step by contact id, for warm starts. */
  uint64_t *prev_id;      /* [prev_cap] sorted */
  int *prev_var;          /* [prev_cap] first variable of that contact in prev_z */
  int *prev_nvar;
  int prev_count, prev_cap;
  double *prev_z;         /* [prev_zcap] */
  int prev_zcap;
  int nbodies;
  int dimension;
  double *inv_inertia_body;  /* [9 * nbodies] body-frame inverse inertia (3-D), 1/I_zz (2-D) */
  double *inv_inertia;       /* [9 * nbodies] this step's world-frame inverse inertia */
};

/* Grows *p to hold n elements of size sz; no-op when it fits. */
static int grow(void **p, int *cap, int n, size_t sz) {
  if (n <= *cap) return 0;
  int c = *cap ? *cap : 16;
  while (c < n) c *= 2;
  void *q = realloc(*p, (size_t)c * sz);
  if (!q) return LSIM_OUT_OF_MEMORY;
  *p = q;
  *cap = c;
  return 0;
}

static int invert_inertias(LsimStepper *s, const LsimModel *m, char *err, size_t errlen);

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
  const char *name = solver_name ? solver_name : model->solver.name;
  int rc = lsim_solver_create(&s->solver, name, &o, err, errlen);
  if (rc) {
    free(s);
    return rc;
  }
  s->nbodies = model->nbodies;
  s->dimension = model->dimension;
  s->inv_inertia_body = calloc((size_t)9 * model->nbodies + 1, sizeof(double));
  s->inv_inertia = calloc((size_t)9 * model->nbodies + 1, sizeof(double));
  if (s->inv_inertia_body && s->inv_inertia && (rc = invert_inertias(s, model, err, errlen))) {
    lsim_stepper_free(s);
    return rc;
  }
  s->v_free = calloc((size_t)model->nv + 1, sizeof(double));
  s->dv = calloc((size_t)model->nv + 1, sizeof(double));
  s->adj_start = calloc((size_t)model->nbodies + 2, sizeof(int));
  if (!s->v_free || !s->dv || !s->adj_start || !s->inv_inertia_body || !s->inv_inertia) {
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
  lsim_contacts_free(&s->contacts);
  free(s->lcp.M);
  free(s->lcp.q);
  free(s->z);
  free(s->guess);
  free(s->row_var);
  free(s->cones);
  free(s->adj_start);
  free(s->adj);
  free(s->v_free);
  free(s->dv);
  free(s->inv_inertia_body);
  free(s->inv_inertia);
  free(s->prev_id);
  free(s->prev_var);
  free(s->prev_nvar);
  free(s->prev_z);
  free(s);
}

const LsimContactSet *lsim_stepper_contacts(const LsimStepper *s) { return &s->contacts; }
const LsimLcp *lsim_stepper_lcp(const LsimStepper *s) { return &s->lcp; }
const double *lsim_stepper_solution(const LsimStepper *s) { return s->z; }
const double *lsim_stepper_warm_guess(const LsimStepper *s) { return s->guess; }
LsimSolver *lsim_stepper_solver(LsimStepper *s) { return s->solver; }

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
    const double *I = b->inertia;
    const double c0 = I[4] * I[8] - I[5] * I[7], c1 = I[5] * I[6] - I[3] * I[8],
                 c2 = I[3] * I[7] - I[4] * I[6];
    const double det = I[0] * c0 + I[1] * c1 + I[2] * c2;
    if (!(det > 0.0) || !(I[0] > 0.0)) {
      snprintf(err, errlen, "body '%s': inertia tensor is not positive definite", b->name);
      return LSIM_INVALID_INPUT;
    }
    inv[0] = c0 / det, inv[3] = c1 / det, inv[6] = c2 / det;
    inv[1] = (I[2] * I[7] - I[1] * I[8]) / det, inv[4] = (I[0] * I[8] - I[2] * I[6]) / det;
    inv[7] = (I[1] * I[6] - I[0] * I[7]) / det;
    inv[2] = (I[1] * I[5] - I[2] * I[4]) / det, inv[5] = (I[2] * I[3] - I[0] * I[5]) / det;
    inv[8] = (I[0] * I[4] - I[1] * I[3]) / det;
  }
  return 0;
}

/* World-frame inverse inertias of this step: R I^-1 R' (3-D). */
static void prepare_inertias(LsimStepper *s, const LsimModel *m, const LsimState *st) {
  if (m->dimension != 3) {
    memcpy(s->inv_inertia, s->inv_inertia_body, (size_t)9 * m->nbodies * sizeof(double));
    return;
  }
  for (int i = 0; i < m->nbodies; ++i) {
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

/* y = W_b x for body b's velocity block (W = inverse mass, world frame); zero for
 * non-dynamic bodies. */
static void apply_inverse_mass(const LsimStepper *s, int bi, const LsimBody *b, const double *x,
                               double *y) {
  if (b->type != LSIM_BODY_DYNAMIC) {
    for (int k = 0; k < b->nv; ++k) y[k] = 0.0;
    return;
  }
  const double im = 1.0 / b->mass;
  if (s->dimension == 1) {
    y[0] = x[0] * im;
  } else if (s->dimension == 2) {
    y[0] = x[0] * im, y[1] = x[1] * im;
    y[2] = x[2] * s->inv_inertia[9 * bi + 8];
  } else {
    y[0] = x[0] * im, y[1] = x[1] * im, y[2] = x[2] * im;
    lsim_m3_apply(y + 3, s->inv_inertia + 9 * bi, x + 3);
  }
}

/* Number of LCP variables of a contact: [c_n] [beta_1..d lambda]. */
static int contact_nvar(const LsimContact *c) {
  return (c->kind == LSIM_CONTACT_NORMAL ? 1 : 0) + (c->ndir > 0 ? c->ndir + 1 : 0);
}

/* J_row . x over the row's bodies, x a generalized velocity vector. */
static double row_dot(const LsimModel *m, const LsimJacRow *r, const double *x) {
  double s = 0.0;
  for (int k = 0; k < 2; ++k) {
    if (r->body[k] < 0) continue;
    const LsimBody *b = &m->bodies[r->body[k]];
    for (int d = 0; d < b->nv; ++d) s += r->j[k][d] * x[b->v_offset + d];
  }
  return s;
}

/* Stage 1: free velocities v_free = v + h W (f + m g - gyroscopic) (dynamic), prescribed
 * (kinematic). The gyroscopic torque -w x (I w) is taken explicitly, at the start of the
 * step. */
static void prepare_free_velocities(LsimStepper *s, const LsimModel *m, const LsimState *st) {
  const double h = m->time_step, t = st->time;
  const int dim = m->dimension;
  double f[LSIM_MAX_BODY_DOF], wf[LSIM_MAX_BODY_DOF];
  for (int i = 0; i < m->nbodies; ++i) {
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
    for (int d = 0; d < b->nv; ++d) f[d] = lsim_schedule_eval_component(&b->force, t, d);
    for (int d = 0; d < dim; ++d) f[d] += b->mass * m->gravity[d];
    if (dim == 3) {
      /* Gyroscopic torque -w x (I_world w), I_world w = R I_body R' w. */
      double wb[3], Iw[3], Iww[3], c[3];
      const double *quat = st->q + b->q_offset + 3;
      lsim_quat_rotate_inv(wb, quat, v + 3);
      lsim_m3_apply(Iw, b->inertia, wb);
      lsim_quat_rotate(Iww, quat, Iw);
      lsim_v3_cross(c, v + 3, Iww);
      f[3] -= c[0], f[4] -= c[1], f[5] -= c[2];
    }
    apply_inverse_mass(s, i, b, f, wf);
    for (int d = 0; d < b->nv; ++d) vf[d] = v[d] + h * wf[d];
  }
}

/* Stage 3: variables, body-row adjacency, then M and q of the LCP. */
static int assemble(LsimStepper *s, const LsimModel *m) {
  LsimContactSet *set = &s->contacts;
  const double h = m->time_step;
  int n = 0;
  for (int c = 0; c < set->count; ++c) {
    set->contacts[c].first_var = n;
    n += contact_nvar(&set->contacts[c]);
  }
  /* Workspace for this size (kept across steps). */
  int cap = s->lcp_cap;
  if (n > cap) {
    int newcap = cap ? cap : 16;
    while (newcap < n) newcap *= 2;
    double *M = realloc(s->lcp.M, (size_t)newcap * newcap * sizeof(double));
    if (!M) return LSIM_OUT_OF_MEMORY;
    s->lcp.M = M;
    double *q = realloc(s->lcp.q, (size_t)newcap * sizeof(double));
    if (!q) return LSIM_OUT_OF_MEMORY;
    s->lcp.q = q;
    double *z = realloc(s->z, (size_t)newcap * sizeof(double));
    if (!z) return LSIM_OUT_OF_MEMORY;
    s->z = z;
    double *g = realloc(s->guess, (size_t)newcap * sizeof(double));
    if (!g) return LSIM_OUT_OF_MEMORY;
    s->guess = g;
    s->lcp_cap = newcap;
  }
  int rows_cap = s->rows_cap;
  if (grow((void **)&s->row_var, &rows_cap, set->nrows, sizeof(int))) return LSIM_OUT_OF_MEMORY;
  if (rows_cap != s->rows_cap || !s->adj) {
    int *adj = realloc(s->adj, (size_t)2 * rows_cap * sizeof(int));
    if (!adj) return LSIM_OUT_OF_MEMORY;
    s->adj = adj;
    s->rows_cap = rows_cap;
  }
  if (grow((void **)&s->cones, &s->cones_cap, set->count, sizeof(LsimConeBlock)))
    return LSIM_OUT_OF_MEMORY;
  s->lcp.n = n;
  s->lcp.ncones = 0;
  s->lcp.cones = s->cones;
  if (n == 0) return 0;
  double *M = s->lcp.M, *q = s->lcp.q;
  memset(M, 0, (size_t)n * n * sizeof(double));

  /* Row -> variable; cone blocks E, -E', mu; q of every row. */
  for (int c = 0; c < set->count; ++c) {
    const LsimContact *ct = &set->contacts[c];
    int var = ct->first_var, row = ct->first_row;
    int normal_var = -1;
    if (ct->kind == LSIM_CONTACT_NORMAL) {
      normal_var = var;
      s->row_var[row] = var;
      q[var] = ct->gap / h + row_dot(m, &set->rows[row], s->v_free);
      ++var, ++row;
    }
    if (ct->ndir > 0) {
      const int lambda = var + ct->ndir;
      for (int d = 0; d < ct->ndir; ++d, ++var, ++row) {
        s->row_var[row] = var;
        q[var] = row_dot(m, &set->rows[row], s->v_free);
        M[var + (size_t)lambda * n] = 1.0;  /* E */
        M[lambda + (size_t)var * n] = -1.0; /* -E' */
      }
      if (normal_var >= 0) {
        M[lambda + (size_t)normal_var * n] = ct->mu;
        q[lambda] = 0.0;
      } else {
        q[lambda] = ct->mu * ct->normal_load;
      }
      s->cones[s->lcp.ncones++] = (LsimConeBlock){.normal = normal_var,
                                                  .fixed_normal = ct->normal_load,
                                                  .first_dir = lambda - ct->ndir,
                                                  .ndir = ct->ndir,
                                                  .lambda = lambda,
                                                  .mu = ct->mu};
    }
  }

  /* Body -> rows adjacency (counting sort). */
  const int nb = m->nbodies;
  memset(s->adj_start, 0, (size_t)(nb + 2) * sizeof(int));
  for (int r = 0; r < set->nrows; ++r)
    for (int k = 0; k < 2; ++k) {
      const int b = set->rows[r].body[k];
      if (b >= 0 && m->bodies[b].type == LSIM_BODY_DYNAMIC) s->adj_start[b + 2]++;
    }
  for (int b = 0; b < nb; ++b) s->adj_start[b + 2] += s->adj_start[b + 1];
  for (int r = 0; r < set->nrows; ++r)
    for (int k = 0; k < 2; ++k) {
      const int b = set->rows[r].body[k];
      if (b >= 0 && m->bodies[b].type == LSIM_BODY_DYNAMIC) s->adj[s->adj_start[b + 1]++] = 2 * r + k;
    }

  /* M += J W J' per body, over the pairs of rows that touch it. */
  double wj[LSIM_MAX_BODY_DOF];
  for (int b = 0; b < nb; ++b) {
    const LsimBody *body = &m->bodies[b];
    for (int ia = s->adj_start[b]; ia < s->adj_start[b + 1]; ++ia) {
      const int ra = s->adj[ia] / 2, ka = s->adj[ia] % 2;
      apply_inverse_mass(s, b, body, set->rows[ra].j[ka], wj);
      const int va = s->row_var[ra];
      for (int ib = s->adj_start[b]; ib < s->adj_start[b + 1]; ++ib) {
        const int rb = s->adj[ib] / 2, kb = s->adj[ib] % 2;
        double dot = 0.0;
        for (int d = 0; d < body->nv; ++d) dot += set->rows[rb].j[kb][d] * wj[d];
        M[s->row_var[rb] + (size_t)va * n] += dot;
      }
    }
  }
  return 0;
}

/* Stage 4: warm start z from the previous step's impulses, matched by contact id. */
static void warm_start(LsimStepper *s) {
  const LsimContactSet *set = &s->contacts;
  memset(s->z, 0, (size_t)s->lcp.n * sizeof(double));
  for (int c = 0; c < set->count; ++c) {
    const LsimContact *ct = &set->contacts[c];
    int lo = 0, hi = s->prev_count - 1;
    while (lo <= hi) {
      const int mid = (lo + hi) / 2;
      if (s->prev_id[mid] == ct->id) {
        if (s->prev_nvar[mid] == contact_nvar(ct))
          memcpy(s->z + ct->first_var, s->prev_z + s->prev_var[mid],
                 (size_t)s->prev_nvar[mid] * sizeof(double));
        break;
      }
      if (s->prev_id[mid] < ct->id) lo = mid + 1;
      else hi = mid - 1;
    }
  }
}

/* Stage 7: remember this step's impulses by id (sorted) for the next warm start. */
static int remember(LsimStepper *s) {
  const LsimContactSet *set = &s->contacts;
  int cap = s->prev_cap;
  if (grow((void **)&s->prev_id, &cap, set->count, sizeof(uint64_t))) return LSIM_OUT_OF_MEMORY;
  if (cap != s->prev_cap) {
    int *pv = realloc(s->prev_var, (size_t)cap * sizeof(int));
    if (!pv) return LSIM_OUT_OF_MEMORY;
    s->prev_var = pv;
    int *pn = realloc(s->prev_nvar, (size_t)cap * sizeof(int));
    if (!pn) return LSIM_OUT_OF_MEMORY;
    s->prev_nvar = pn;
    s->prev_cap = cap;
  }
  if (grow((void **)&s->prev_z, &s->prev_zcap, s->lcp.n, sizeof(double))) return LSIM_OUT_OF_MEMORY;
  memcpy(s->prev_z, s->z, (size_t)s->lcp.n * sizeof(double));
  /* (id, contact index) pairs, sorted by id. */
  for (int c = 0; c < set->count; ++c) {
    s->prev_id[c] = set->contacts[c].id;
    s->prev_var[c] = c;
  }
  /* Insertion sort: contacts arrive nearly sorted by id from detection. */
  for (int i = 1; i < set->count; ++i) {
    const uint64_t id = s->prev_id[i];
    const int idx = s->prev_var[i];
    int j = i - 1;
    while (j >= 0 && s->prev_id[j] > id) {
      s->prev_id[j + 1] = s->prev_id[j];
      s->prev_var[j + 1] = s->prev_var[j];
      --j;
    }
    s->prev_id[j + 1] = id;
    s->prev_var[j + 1] = idx;
  }
  for (int i = 0; i < set->count; ++i) {
    const LsimContact *ct = &set->contacts[s->prev_var[i]];
    s->prev_var[i] = ct->first_var;
    s->prev_nvar[i] = contact_nvar(ct);
  }
  s->prev_count = set->count;
  return 0;
}

int lsim_step(LsimStepper *s, const LsimModel *m, LsimState *st, LsimStepStats *stats) {
  LsimStepStats local;
  if (!stats) stats = &local;
  memset(stats, 0, sizeof *stats);
  const double h = m->time_step;

  /* Stage 1-2: free velocities, contacts. */
  prepare_inertias(s, m, st);
  prepare_free_velocities(s, m, st);
  int rc = lsim_detect_contacts(m, st, s->v_free, &s->contacts);
  if (!rc) rc = assemble(s, m);
  if (rc) {
    stats->status = rc;
    return rc;
  }
  LsimContactSet *set = &s->contacts;
  const int n = s->lcp.n;
  stats->lcp_size = n;
  stats->ncontacts = set->count;

  /* Stage 3-4: warm start and solve. */
  int status = LSIM_SOLVED;
  if (n > 0) {
    warm_start(s);
    memcpy(s->guess, s->z, (size_t)n * sizeof(double));
    LsimSolveStats ss;
    memset(&ss, 0, sizeof ss);
    status = lsim_solver_solve(s->solver, &s->lcp, s->z, &ss);
    stats->iterations = ss.iterations;
    stats->warm_started = ss.warm_started;
    stats->residual = ss.residual.natural;
    stats->relative_residual = ss.residual.relative;
    stats->wall_time = ss.wall_time;
    stats->siconos_error = ss.siconos_error;
  }
  stats->status = status;

  /* Stage 5: v' = v_free + W J' z; kinematic bodies keep their prescribed velocity. */
  memset(s->dv, 0, (size_t)m->nv * sizeof(double));
  double *gen = s->dv;
  for (int r = 0; r < set->nrows; ++r) {
    const double p = s->z[s->row_var[r]];
    if (p == 0.0) continue;
    const LsimJacRow *row = &set->rows[r];
    for (int k = 0; k < 2; ++k) {
      if (row->body[k] < 0) continue;
      const LsimBody *b = &m->bodies[row->body[k]];
      if (b->type != LSIM_BODY_DYNAMIC) continue;
      for (int d = 0; d < b->nv; ++d) gen[b->v_offset + d] += row->j[k][d] * p;
    }
  }
  double wg[LSIM_MAX_BODY_DOF];
  for (int i = 0; i < m->nbodies; ++i) {
    const LsimBody *b = &m->bodies[i];
    if (b->nv == 0) continue;
    apply_inverse_mass(s, i, b, gen + b->v_offset, wg);
    for (int d = 0; d < b->nv; ++d) st->v[b->v_offset + d] = s->v_free[b->v_offset + d] + wg[d];
  }

  /* Stage 6: q' = q + h v' (semi-implicit Euler); 3-D orientations rotate by the
     exponential map of h w' and are renormalized. */
  for (int i = 0; i < m->nbodies; ++i) {
    const LsimBody *b = &m->bodies[i];
    if (b->nq == 0) continue;
    double *q = st->q + b->q_offset;
    const double *v = st->v + b->v_offset;
    if (m->dimension < 3) {
      for (int d = 0; d < b->nq; ++d) q[d] += h * v[d];
      continue;
    }
    for (int d = 0; d < 3; ++d) q[d] += h * v[d];
    double dq[4], nq[4];
    lsim_quat_from_rotvec(dq, v + 3, h);
    lsim_quat_mul(nq, dq, q + 3);
    lsim_quat_normalize(nq);
    memcpy(q + 3, nq, sizeof nq);
  }
  st->step += 1;
  st->time = m->time_step * st->step;

  /* Stage 7: impulses on the contacts, remembered by id. */
  for (int c = 0; c < set->count; ++c) {
    LsimContact *ct = &set->contacts[c];
    int var = ct->first_var;
    ct->normal_impulse = ct->kind == LSIM_CONTACT_NORMAL ? s->z[var++] : ct->normal_load;
    ct->friction_impulse[0] = ct->friction_impulse[1] = ct->friction_impulse[2] = 0.0;
    for (int d = 0; d < ct->ndir; ++d, ++var)
      for (int k = 0; k < 3; ++k) ct->friction_impulse[k] += s->z[var] * ct->dir[d][k];
    ct->slip_speed = ct->ndir > 0 ? s->z[var] : 0.0;
  }
  rc = remember(s);
  if (rc) {
    stats->status = rc;
    return rc;
  }
  return status;
}
