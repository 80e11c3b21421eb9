/* test_constraints.c: tether and joint rows (contact/constraints.h). The gap of every row
 * is checked against its definition, and its rate J v + bias against central finite
 * differences of the gap along random velocities (state and anchors moved together), in
 * 1-D, 2-D and 3-D, for body-body, body-world and moving anchors (constant velocity,
 * sinusoid, velocity table), with kinematic and static bodies among the ends. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact/constraints.h"
#include "contact/math3.h"
#include "contact/world.h"
#include "lcp/random.h"

/* Bodies: 0 dynamic, 1 dynamic, 2 kinematic, 3 static. */
static LsimModel make_model(int dim, LsimRng *rng) {
  LsimModel m = lsim_default_model();
  m.dimension = dim;
  const LsimBodyType types[4] = {LSIM_BODY_DYNAMIC, LSIM_BODY_DYNAMIC, LSIM_BODY_KINEMATIC,
                                 LSIM_BODY_STATIC};
  for (int i = 0; i < 4; ++i) {
    LsimBody b = lsim_default_body();
    snprintf(b.name, sizeof b.name, "b%d", i);
    b.type = types[i];
    for (int d = 0; d < dim; ++d) b.pose[d] = lsim_rng_range(rng, -1.0, 1.0);
    if (dim == 2) b.pose[2] = lsim_rng_range(rng, -3.0, 3.0);
    if (dim == 3) {
      double q[4];
      for (int k = 0; k < 4; ++k) q[k] = lsim_rng_normal(rng);
      lsim_quat_normalize(q);
      memcpy(b.pose + 3, q, sizeof q);
    }
    assert_true(lsim_model_add_body(&m, &b) >= 0);
  }
  assert_int_equal(lsim_model_finalize(&m), 0);
  return m;
}

static void random_state(const LsimModel *m, LsimState *st, LsimRng *rng) {
  assert_int_equal(lsim_state_init(st, m), 0);
  st->time = lsim_rng_range(rng, 0.0, 2.0);
  for (int i = 0; i < m->nbodies; ++i) {
    const LsimBody *b = &m->bodies[i];
    if (b->nq == 0) continue;
    memcpy(st->q + b->q_offset, b->pose, (size_t)b->nq * sizeof(double));
    for (int d = 0; d < b->nv; ++d) st->v[b->v_offset + d] = lsim_rng_range(rng, -2.0, 2.0);
  }
}

/* The state moved by eps along its own velocities (3-D orientations by the exponential
 * map, as the step integrates them); eps may be negative. */
static void advance(const LsimModel *m, const LsimState *from, LsimState *to, double eps) {
  memcpy(to->q, from->q, (size_t)m->nq * sizeof(double));
  memcpy(to->v, from->v, (size_t)m->nv * sizeof(double));
  to->time = from->time + eps;
  for (int i = 0; i < m->nbodies; ++i) {
    const LsimBody *b = &m->bodies[i];
    if (b->nq == 0) continue;
    double *q = to->q + b->q_offset;
    const double *v = from->v + b->v_offset;
    if (m->dimension < 3) {
      for (int d = 0; d < b->nq; ++d) q[d] += eps * v[d];
      continue;
    }
    for (int d = 0; d < 3; ++d) q[d] += eps * v[d];
    double w[3] = {v[3], v[4], v[5]}, dq[4], nq[4];
    if (eps < 0) lsim_v3_scale(w, w, -1.0);
    lsim_quat_from_rotvec(dq, w, fabs(eps));
    lsim_quat_mul(nq, dq, q + 3);
    memcpy(q + 3, nq, sizeof nq);
  }
}

/* J v of row r. */
static double row_dot(const LsimModel *m, const LsimJacRow *r, const double *v) {
  double s = 0.0;
  for (int k = 0; k < 2; ++k) {
    if (r->body[k] < 0) continue;
    const LsimBody *b = &m->bodies[r->body[k]];
    for (int d = 0; d < b->nv; ++d) s += r->j[k][d] * v[b->v_offset + d];
  }
  return s;
}

/* A random anchor of the given kind: 0 body point (body given), 1 fixed world point,
 * 2 constant velocity, 3 sinusoid (plus velocity), 4 velocity table. */
static LsimAnchor make_anchor(int kind, int body, int dim, LsimRng *rng) {
  LsimAnchor a;
  memset(&a, 0, sizeof a);
  a.body = -1;
  double r3[3];
  for (int d = 0; d < 3; ++d) r3[d] = d < dim ? lsim_rng_range(rng, -0.5, 0.5) : 0.0;
  if (kind == 0) {
    a.body = body;
    memcpy(a.point, r3, sizeof r3);
    return a;
  }
  for (int d = 0; d < dim; ++d) a.motion.origin[d] = r3[d] + lsim_rng_range(rng, -2.0, 2.0);
  if (kind == 1) return a;
  if (kind <= 3) {
    a.motion.kind = LSIM_MOTION_VELOCITY;
    for (int d = 0; d < dim; ++d) a.motion.velocity[d] = lsim_rng_range(rng, -1.0, 1.0);
    if (kind == 3) {
      for (int d = 0; d < dim; ++d) a.motion.amplitude[d] = lsim_rng_range(rng, -0.3, 0.3);
      a.motion.frequency = 1.3;
      a.motion.phase = 0.4;
    }
    return a;
  }
  /* A velocity table of width 3 with 4 points over [0.1, 2.5]. */
  a.motion.kind = LSIM_MOTION_TABLE;
  LsimSchedule *s = &a.motion.table;
  s->width = 3;
  s->npoints = 4;
  s->t = malloc(4 * sizeof *s->t);
  s->value = calloc(12, sizeof *s->value);
  assert_non_null(s->t);
  assert_non_null(s->value);
  const double ts[4] = {0.1, 0.9, 1.7, 2.5};
  for (int k = 0; k < 4; ++k) {
    s->t[k] = ts[k];
    for (int d = 0; d < dim; ++d) s->value[3 * k + d] = lsim_rng_range(rng, -1.0, 1.0);
  }
  return a;
}

/* The gap of a contact recomputed from its definition (the pin: the row's axis). */
static double gap_of(const LsimModel *m, const LsimState *st, const LsimContact *c) {
  const LsimAnchor *e = c->kind == LSIM_CONTACT_TETHER ? m->tethers[c->source].end
                                                        : m->joints[c->source].end;
  double pa[3], pb[3], va[3], vb[3], d[3];
  lsim_anchor_eval(m, st, &e[0], st->time, pa, va);
  lsim_anchor_eval(m, st, &e[1], st->time, pb, vb);
  lsim_v3_sub(d, pa, pb);
  if (c->kind == LSIM_CONTACT_TETHER) return m->tethers[c->source].length - lsim_v3_norm(d);
  const LsimJoint *j = &m->joints[c->source];
  if (j->type == LSIM_JOINT_ROD) return lsim_v3_norm(d) - j->length;
  return lsim_v3_dot(d, c->normal);
}

/* Every row of the model's constraints: gap by definition, and the rate J v + bias against
 * central differences of the gap (step 1e-6: truncation ~1e-12, rounding ~1e-10). */
static void check_rows(LsimModel *m, LsimState *st) {
  LsimContactSet set;
  memset(&set, 0, sizeof set);
  assert_int_equal(lsim_constraint_rows(m, st, st->time, &set), 0);
  int expect = m->ntethers;
  for (int j = 0; j < m->njoints; ++j) expect += lsim_joint_rows(m, j);
  assert_int_equal(set.count, expect);
  LsimState sp, sm;
  assert_int_equal(lsim_state_init(&sp, m), 0);
  assert_int_equal(lsim_state_init(&sm, m), 0);
  const double eps = 1e-6;
  advance(m, st, &sp, eps);
  advance(m, st, &sm, -eps);
  for (int i = 0; i < set.count; ++i) {
    const LsimContact *c = &set.contacts[i];
    assert_int_equal(c->ndir, 0);
    const double g0 = gap_of(m, st, c);
    assert_true(fabs(c->gap - g0) <= 1e-12 * (1.0 + fabs(g0)));
    const double fd = (gap_of(m, &sp, c) - gap_of(m, &sm, c)) / (2.0 * eps);
    const double rate = row_dot(m, &set.rows[c->first_row], st->v) + c->bias;
    if (!(fabs(rate - fd) <= 1e-7 * (1.0 + fabs(fd)))) {
      fprintf(stderr, "contact %d kind %d source %d: J v + bias = %.15g, fd = %.15g\n", i,
              (int)c->kind, c->source, rate, fd);
      fail();
    }
    /* Jacobian blocks only on bodies with velocities. */
    for (int k = 0; k < 2; ++k)
      if (set.rows[c->first_row].body[k] >= 0)
        assert_true(m->bodies[set.rows[c->first_row].body[k]].nv > 0);
  }
  lsim_state_free(&sp);
  lsim_state_free(&sm);
  lsim_contacts_free(&set);
}

/* Adds every combination of end kinds as tethers and as pins and rods: end a on a
 * dynamic body; end b on the other dynamic body, the kinematic one, the static one, or a
 * world point (fixed, constant velocity, sinusoid, table); also a path anchor as end a's
 * partner on end 0 of a rod (the moving end first). */
static void build_constraints(LsimModel *m, LsimRng *rng) {
  const int dim = m->dimension;
  enum { NB = 8 };
  const int kinds[NB] = {0, 0, 0, 1, 2, 3, 4, 4};
  const int bodies[NB] = {1, 2, 3, -1, -1, -1, -1, -1};
  m->ntethers = m->njoints = 0;
  m->tethers = calloc(NB, sizeof *m->tethers);
  m->joints = calloc(3 * NB + 1, sizeof *m->joints);
  assert_non_null(m->tethers);
  assert_non_null(m->joints);
  for (int k = 0; k < NB; ++k) {
    LsimTether *t = &m->tethers[m->ntethers++];
    snprintf(t->name, sizeof t->name, "t%d", k);
    t->end[0] = make_anchor(0, 0, dim, rng);
    t->end[1] = make_anchor(kinds[k], bodies[k], dim, rng);
    t->length = lsim_rng_range(rng, 0.5, 3.0);
    for (int type = 0; type < 2; ++type) {
      LsimJoint *j = &m->joints[m->njoints++];
      snprintf(j->name, sizeof j->name, "j%d_%d", k, type);
      j->type = type == 0 ? LSIM_JOINT_PIN : LSIM_JOINT_ROD;
      j->end[0] = make_anchor(0, k % 2, dim, rng);
      j->end[1] = make_anchor(kinds[k], bodies[k] == 0 ? 1 : bodies[k], dim, rng);
      j->length = lsim_rng_range(rng, 0.5, 3.0);
    }
  }
  /* A moving path end in slot a, a body in slot b (the bias sign of end a). */
  LsimJoint *j = &m->joints[m->njoints++];
  snprintf(j->name, sizeof j->name, "path_first");
  j->type = LSIM_JOINT_ROD;
  j->end[0] = make_anchor(3, -1, dim, rng);
  j->end[1] = make_anchor(0, 1, dim, rng);
  j->length = 1.0;
}

static void check_dimension(int dim) {
  LsimRng rng = lsim_rng(1000 + (uint64_t)dim);
  for (int trial = 0; trial < 20; ++trial) {
    LsimModel m = make_model(dim, &rng);
    build_constraints(&m, &rng);
    LsimState st;
    random_state(&m, &st, &rng);
    check_rows(&m, &st);
    lsim_state_free(&st);
    lsim_model_free(&m);
  }
}

static void test_rows_1d(void **state) {
  (void)state;
  check_dimension(1);
}

static void test_rows_2d(void **state) {
  (void)state;
  check_dimension(2);
}

static void test_rows_3d(void **state) {
  (void)state;
  check_dimension(3);
}

/* A tether between two 2-D bodies with known geometry: psi, normal, Jacobian by hand,
 * ids, sources and kinds; a static end and a world end carry no Jacobian block. */
static void test_tether_by_hand(void **state) {
  (void)state;
  LsimRng rng = lsim_rng(7);
  LsimModel m = make_model(2, &rng);
  LsimState st;
  random_state(&m, &st, &rng);
  /* Body 0 at (0, 0), angle 0; body 1 at (3, 4), angle pi/2. */
  double *q0 = st.q + m.bodies[0].q_offset, *q1 = st.q + m.bodies[1].q_offset;
  q0[0] = 0.0, q0[1] = 0.0, q0[2] = 0.0;
  q1[0] = 3.0, q1[1] = 4.0, q1[2] = 1.5707963267948966;
  m.tethers = calloc(2, sizeof *m.tethers);
  assert_non_null(m.tethers);
  m.ntethers = 2;
  /* Tether 0: body 0's point (1, 0) to body 1's point (1, 0) (world (3, 5)). */
  m.tethers[0].end[0].body = 0, m.tethers[0].end[0].point[0] = 1.0;
  m.tethers[0].end[1].body = 1, m.tethers[0].end[1].point[0] = 1.0;
  m.tethers[0].length = 6.0;
  /* Tether 1: body 0's origin to the static body and the world: world point (0, 2). */
  m.tethers[1].end[0].body = 0;
  m.tethers[1].end[1].body = -1, m.tethers[1].end[1].motion.origin[1] = 2.0;
  m.tethers[1].length = 2.0;
  LsimContactSet set;
  memset(&set, 0, sizeof set);
  assert_int_equal(lsim_constraint_rows(&m, &st, st.time, &set), 0);
  assert_int_equal(set.count, 2);
  const LsimContact *c = &set.contacts[0];
  /* d = (1, 0) - (3, 5) = (-2, -5), |d| = sqrt(29), n = -u = (2, 5)/sqrt(29). */
  const double L = sqrt(29.0), nx = 2.0 / L, ny = 5.0 / L;
  assert_int_equal(c->kind, LSIM_CONTACT_TETHER);
  assert_int_equal(c->source, 0);
  assert_true(c->id == lsim_tether_id(0));
  assert_true(fabs(c->gap - (6.0 - L)) < 1e-14);
  assert_true(fabs(c->normal[0] - nx) < 1e-15 && fabs(c->normal[1] - ny) < 1e-15);
  assert_true(fabs(c->point[0] - 1.0) < 1e-15 && fabs(c->point[1]) < 1e-15);
  const LsimJacRow *r = &set.rows[c->first_row];
  /* Body 0: [n, (r x n)_z], r = (1, 0): (r x n)_z = ny. Body 1: -[n, (r x n)_z] with
     r = (0, 1) (the point (1, 0) turned by pi/2): (r x n)_z = -nx. */
  assert_int_equal(r->body[0], 0);
  assert_int_equal(r->body[1], 1);
  assert_true(fabs(r->j[0][0] - nx) < 1e-15 && fabs(r->j[0][1] - ny) < 1e-15);
  assert_true(fabs(r->j[0][2] - ny) < 1e-15);
  assert_true(fabs(r->j[1][0] + nx) < 1e-15 && fabs(r->j[1][1] + ny) < 1e-15);
  assert_true(fabs(r->j[1][2] - nx) < 1e-15);
  assert_true(c->bias == 0.0);
  /* Tether 1 is taut (psi = 0) with a single block. */
  c = &set.contacts[1];
  r = &set.rows[c->first_row];
  assert_true(fabs(c->gap) < 1e-15);
  assert_int_equal(r->body[1], -1);
  assert_int_equal(c->body[1], -1);
  assert_true(c->id != set.contacts[0].id);
  assert_true(fabs(lsim_tether_length(&m, &st, st.time, 1) - 2.0) < 1e-15);
  lsim_contacts_free(&set);
  lsim_state_free(&st);
  lsim_model_free(&m);
}

/* Degenerate directions (p_a = p_b): the rod and the tether take +x; pins have their axes;
 * joint errors and ids. */
static void test_degenerate_and_ids(void **state) {
  (void)state;
  LsimRng rng = lsim_rng(9);
  LsimModel m = make_model(3, &rng);
  LsimState st;
  random_state(&m, &st, &rng);
  double pa[3], va[3];
  LsimAnchor body0 = {.body = 0};
  lsim_anchor_eval(&m, &st, &body0, 0.0, pa, va);
  m.tethers = calloc(1, sizeof *m.tethers);
  m.joints = calloc(2, sizeof *m.joints);
  assert_non_null(m.tethers);
  assert_non_null(m.joints);
  m.ntethers = 1, m.njoints = 2;
  m.tethers[0].end[0].body = 0;
  m.tethers[0].end[1].body = -1;
  memcpy(m.tethers[0].end[1].motion.origin, pa, sizeof pa);
  m.tethers[0].length = 1.0;
  m.joints[0].type = LSIM_JOINT_ROD;
  m.joints[0].end[0] = m.tethers[0].end[0];
  m.joints[0].end[1] = m.tethers[0].end[1];
  m.joints[0].length = 0.5;
  m.joints[1].type = LSIM_JOINT_PIN;
  m.joints[1].end[0] = m.tethers[0].end[0];
  m.joints[1].end[1] = m.tethers[0].end[1];
  m.joints[1].end[1].motion.origin[2] += 0.25;
  LsimContactSet set;
  memset(&set, 0, sizeof set);
  assert_int_equal(lsim_constraint_rows(&m, &st, 0.0, &set), 0);
  assert_int_equal(set.count, 1 + 1 + 3);
  assert_true(set.contacts[0].normal[0] == -1.0); /* n = -u, u = +x */
  assert_true(set.contacts[1].normal[0] == 1.0);
  assert_true(fabs(set.contacts[1].gap + 0.5) < 1e-15);
  assert_true(fabs(set.contacts[4].gap + 0.25) < 1e-15); /* pin z row */
  assert_true(fabs(lsim_joint_error(&m, &st, 0.0, 1) - 0.25) < 1e-15);
  assert_true(fabs(lsim_joint_error(&m, &st, 0.0, 0) - 0.5) < 1e-15);
  /* Ids: distinct from each other and from contact ids of any body pair. */
  for (int i = 0; i < set.count; ++i) {
    assert_true(set.contacts[i].kind == (i == 0 ? LSIM_CONTACT_TETHER : LSIM_CONTACT_EQUALITY));
    for (int k = 0; k < i; ++k) assert_true(set.contacts[i].id != set.contacts[k].id);
    assert_true(set.contacts[i].id != lsim_contact_id(0, -1, 0));
  }
  assert_true(set.contacts[2].id == lsim_joint_id(1, 0) && set.contacts[4].id == lsim_joint_id(1, 2));
  /* Appending keeps what was there. */
  assert_int_equal(lsim_constraint_rows(&m, &st, 0.0, &set), 0);
  assert_int_equal(set.count, 10);
  lsim_contacts_free(&set);
  lsim_state_free(&st);
  lsim_model_free(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rows_1d),
      cmocka_unit_test(test_rows_2d),
      cmocka_unit_test(test_rows_3d),
      cmocka_unit_test(test_tether_by_hand),
      cmocka_unit_test(test_degenerate_and_ids),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
