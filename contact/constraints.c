/* constraints.c: tether and joint rows (see constraints.h for the conventions). */
#include "contact/constraints.h"

#include <math.h>
#include <string.h>

#include "contact/math3.h"
#include "lcp/lcp.h"

uint64_t lsim_tether_id(int tether) { return lsim_contact_id(-2, tether, 0); }

uint64_t lsim_joint_id(int joint, int row) { return lsim_contact_id(-3, joint, row); }

int lsim_joint_rows(const LsimModel *m, int joint) {
  return m->joints[joint].type == LSIM_JOINT_PIN ? m->dimension : 1;
}

/* An anchor's world point, the body it moves with (-1: none with velocities) and the
 * lever arm from that body's origin. */
typedef struct End {
  double p[3], v[3];
  int body;       /* body with velocities (dynamic or kinematic), else -1 */
  double r[3];    /* p - body origin */
} End;

static void end_eval(const LsimModel *m, const LsimState *st, const LsimAnchor *a, double t,
                     End *e) {
  memset(e, 0, sizeof *e);
  e->body = -1;
  if (a->body < 0) {
    /* A world point, fixed or on its prescribed path. */
    lsim_motion_eval(&a->motion, t, e->p, e->v);
    for (int d = m->dimension; d < 3; ++d) e->p[d] = e->v[d] = 0.0;
    return;
  }
  /* A body point: origin + R point; its velocity v + w x r. */
  const LsimBody *b = &m->bodies[a->body];
  double o[3], q[4], pt[3] = {a->point[0], a->point[1], a->point[2]};
  for (int d = m->dimension; d < 3; ++d) pt[d] = 0.0;
  lsim_body_pose(m, st, a->body, o, q);
  if (m->dimension == 1) lsim_v3_copy(e->r, pt);
  else lsim_quat_rotate(e->r, q, pt);
  lsim_v3_add(e->p, o, e->r);
  if (b->nv == 0) return;
  e->body = a->body;
  const double *v = st->v + b->v_offset;
  double w[3] = {0.0, 0.0, 0.0}, wr[3];
  if (m->dimension == 1) {
    e->v[0] = v[0];
  } else if (m->dimension == 2) {
    e->v[0] = v[0], e->v[1] = v[1], w[2] = v[2];
  } else {
    lsim_v3_copy(e->v, v), lsim_v3_copy(w, v + 3);
  }
  lsim_v3_cross(wr, w, e->r);
  lsim_v3_add(e->v, e->v, wr);
}

void lsim_anchor_eval(const LsimModel *m, const LsimState *st, const LsimAnchor *a, double t,
                      double p[3], double v[3]) {
  End e;
  end_eval(m, st, a, t, &e);
  lsim_v3_copy(p, e.p);
  lsim_v3_copy(v, e.v);
}

/* d = p_a - p_b, its length, and the unit u (+x when p_a = p_b to rounding). */
static double direction(const End *a, const End *b, double u[3]) {
  lsim_v3_sub(u, a->p, b->p);
  const double n = lsim_v3_norm(u);
  const double scale = 1.0 + lsim_v3_norm(a->p) + lsim_v3_norm(b->p);
  if (!(n > 1e-14 * scale)) {
    lsim_v3_set(u, 1.0, 0.0, 0.0);
    return n;
  }
  lsim_v3_scale(u, u, 1.0 / n);
  return n;
}

double lsim_tether_length(const LsimModel *m, const LsimState *st, double t, int tether) {
  End a, b;
  end_eval(m, st, &m->tethers[tether].end[0], t, &a);
  end_eval(m, st, &m->tethers[tether].end[1], t, &b);
  double d[3];
  lsim_v3_sub(d, a.p, b.p);
  return lsim_v3_norm(d);
}

/* The row of normal n between ends a and b: body a +[n, r_a x n], body b -[n, r_b x n],
 * in the velocity layout of the dimension. Ends without velocities get no block. */
static void fill_row(const LsimModel *m, LsimJacRow *row, const End *a, const End *b,
                     const double n[3]) {
  const End *ends[2] = {a, b};
  for (int k = 0; k < 2; ++k) {
    row->body[k] = ends[k]->body;
    memset(row->j[k], 0, sizeof row->j[k]);
    if (ends[k]->body < 0) continue;
    const double sign = k == 0 ? 1.0 : -1.0;
    double c[3];
    lsim_v3_cross(c, ends[k]->r, n);
    if (m->dimension == 1) {
      row->j[k][0] = sign * n[0];
    } else if (m->dimension == 2) {
      row->j[k][0] = sign * n[0], row->j[k][1] = sign * n[1], row->j[k][2] = sign * c[2];
    } else {
      for (int d = 0; d < 3; ++d) row->j[k][d] = sign * n[d], row->j[k][3 + d] = sign * c[d];
    }
  }
}

/* The explicit time derivative of n . (p_a - p_b) from prescribed (world-path) ends: the
 * body ends' motion is in J v. */
static double path_rate(const LsimAnchor *ea, const End *a, const LsimAnchor *eb, const End *b,
                        const double n[3]) {
  double s = 0.0;
  if (ea->body < 0) s += lsim_v3_dot(n, a->v);
  if (eb->body < 0) s -= lsim_v3_dot(n, b->v);
  return s;
}

/* The largest |J v + bias| over joint jt's rows at the ends a, b (evaluated at one time,
 * h = 0), each row as lsim_constraint_rows_step fills it and its J v summed in the same
 * order (the bias first, then the bodies' velocities). */
static double joint_rate_error(const LsimModel *m, const LsimState *st, int joint, const End *a,
                               const End *b) {
  const LsimJoint *jt = &m->joints[joint];
  double worst = 0.0;
  for (int k = 0; k < lsim_joint_rows(m, joint); ++k) {
    double n[3] = {0.0, 0.0, 0.0};
    if (jt->type == LSIM_JOINT_PIN) n[k] = 1.0;
    else (void)direction(a, b, n);
    LsimJacRow row;
    fill_row(m, &row, a, b, n);
    double jv = path_rate(&jt->end[0], a, &jt->end[1], b, n);
    for (int e = 0; e < 2; ++e) {
      if (row.body[e] < 0) continue;
      const LsimBody *bd = &m->bodies[row.body[e]];
      for (int d = 0; d < bd->nv; ++d) jv += row.j[e][d] * st->v[bd->v_offset + d];
    }
    worst = fmax(worst, fabs(jv));
  }
  return worst;
}

void lsim_joint_errors(const LsimModel *m, const LsimState *st, double t, int joint,
                       double *position, double *velocity) {
  const LsimJoint *jt = &m->joints[joint];
  End a, b;
  end_eval(m, st, &jt->end[0], t, &a);
  end_eval(m, st, &jt->end[1], t, &b);
  double d[3];
  lsim_v3_sub(d, a.p, b.p);
  const double n = lsim_v3_norm(d);
  if (position) *position = jt->type == LSIM_JOINT_PIN ? n : fabs(n - jt->length);
  if (velocity) *velocity = joint_rate_error(m, st, joint, &a, &b);
}

double lsim_joint_error(const LsimModel *m, const LsimState *st, double t, int joint) {
  double e;
  lsim_joint_errors(m, st, t, joint, &e, NULL);
  return e;
}

/* Appends one constraint contact of one row and fills what every kind shares. */
static LsimContact *add_row(LsimContactSet *set, LsimContactKind kind, uint64_t id, int source,
                            const LsimAnchor *ea, const LsimAnchor *eb, const End *a) {
  LsimContact *c = lsim_contacts_add(set, 1);
  if (!c) return NULL;
  c->id = id;
  c->kind = kind;
  c->source = source;
  c->body[0] = ea->body;
  c->body[1] = eb->body;
  lsim_v3_copy(c->point, a->p);
  c->mu = 0.0;
  c->ndir = 0;
  return c;
}

/* end_eval, with a prescribed end's velocity replaced by its mean over [t, t + h] when
 * h > 0: (p(t + h) - p(t)) / h, so that a step's gap rate carries the path's exact
 * displacement (a body on a taut rope behind an accelerating anchor keeps the rope's length
 * to round-off; the rate at t left it a h^2 / 2 long every step). */
static void end_eval_over(const LsimModel *m, const LsimState *st, const LsimAnchor *a,
                          double t, double h, End *e) {
  end_eval(m, st, a, t, e);
  if (a->body >= 0 || !(h > 0.0)) return;
  double p1[3], v1[3];
  lsim_motion_eval(&a->motion, t + h, p1, v1);
  for (int d = 0; d < m->dimension; ++d) e->v[d] = (p1[d] - e->p[d]) / h;
}

int lsim_constraint_rows(const LsimModel *m, const LsimState *st, double t,
                         LsimContactSet *set) {
  return lsim_constraint_rows_step(m, st, t, 0.0, set);
}

int lsim_constraint_rows_step(const LsimModel *m, const LsimState *st, double t, double h,
                              LsimContactSet *set) {
  /* Tethers: psi = L - |d|, n = -u; psi rate = n . (v_pa - v_pb). */
  for (int i = 0; i < m->ntethers; ++i) {
    const LsimTether *tt = &m->tethers[i];
    End a, b;
    end_eval_over(m, st, &tt->end[0], t, h, &a);
    end_eval_over(m, st, &tt->end[1], t, h, &b);
    double u[3], n[3];
    const double len = direction(&a, &b, u);
    lsim_v3_scale(n, u, -1.0);
    LsimContact *c = add_row(set, LSIM_CONTACT_TETHER, lsim_tether_id(i), i, &tt->end[0],
                             &tt->end[1], &a);
    if (!c) return LSIM_OUT_OF_MEMORY;
    c->gap = tt->length - len;
    lsim_v3_copy(c->normal, n);
    c->bias = path_rate(&tt->end[0], &a, &tt->end[1], &b, n);
    fill_row(m, &set->rows[c->first_row], &a, &b, n);
  }

  /* Joints: pin rows along the world axes (gap = d . e_k), rod one row along u
     (gap = |d| - length). */
  for (int j = 0; j < m->njoints; ++j) {
    const LsimJoint *jt = &m->joints[j];
    End a, b;
    end_eval_over(m, st, &jt->end[0], t, h, &a);
    end_eval_over(m, st, &jt->end[1], t, h, &b);
    double d[3];
    lsim_v3_sub(d, a.p, b.p);
    const int nrows = lsim_joint_rows(m, j);
    for (int k = 0; k < nrows; ++k) {
      double n[3] = {0.0, 0.0, 0.0};
      double gap;
      if (jt->type == LSIM_JOINT_PIN) {
        n[k] = 1.0;
        gap = d[k];
      } else {
        gap = direction(&a, &b, n) - jt->length;
      }
      LsimContact *c = add_row(set, LSIM_CONTACT_EQUALITY, lsim_joint_id(j, k), j, &jt->end[0],
                               &jt->end[1], &a);
      if (!c) return LSIM_OUT_OF_MEMORY;
      c->gap = gap;
      lsim_v3_copy(c->normal, n);
      c->bias = path_rate(&jt->end[0], &a, &jt->end[1], &b, n);
      fill_row(m, &set->rows[c->first_row], &a, &b, n);
    }
  }
  return 0;
}
