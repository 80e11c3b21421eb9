/* event_rows.c: the event-driven integrator's state, mass and forces, its contacts and
 * the rows of the persistent system (the equations are in event_driven.c's header). */
#include "hybrid/event_private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact/constraints.h"
#include "contact/math3.h"
#include "lcp/lcp.h"

/* ---- state, mass, forces ---------------------------------------------------------- */

/* st <- (t, x) with 3-D quaternions normalized. */
void lsim_ed_load(const Ed *ed, LsimState *st, double t, const double *x) {
  st->time = t;
  memcpy(st->q, x, (size_t)ed->nq * sizeof(double));
  memcpy(st->v, x + ed->nq, (size_t)ed->nv * sizeof(double));
  if (ed->m->dimension != 3) return;
  for (int i = 0; i < ed->m->nbodies; ++i) {
    const LsimBody *b = &ed->m->bodies[i];
    if (b->nq > 0) lsim_quat_normalize(st->q + b->q_offset + 3);
  }
}

/* qdot of st into out[nq]: positions move with v; 3-D quaternions by 0.5 (0, w) q. */
void lsim_ed_qdot(const Ed *ed, const LsimState *st, double *out) {
  const LsimModel *m = ed->m;
  for (int i = 0; i < m->nbodies; ++i) {
    const LsimBody *b = &m->bodies[i];
    if (b->nq == 0) continue;
    const double *v = st->v + b->v_offset;
    double *o = out + b->q_offset;
    if (m->dimension != 3) {
      for (int d = 0; d < b->nq; ++d) o[d] = v[d];
      continue;
    }
    o[0] = v[0], o[1] = v[1], o[2] = v[2];
    const double w[4] = {0.0, v[3], v[4], v[5]};
    double r[4];
    lsim_quat_mul(r, w, st->q + b->q_offset + 3);
    for (int k = 0; k < 4; ++k) o[3 + k] = 0.5 * r[k];
  }
}

/* y = W x body by body (world-frame inverse inertia at st). */
void lsim_ed_apply_w(const Ed *ed, const LsimState *st, const double *x, double *y) {
  const LsimModel *m = ed->m;
  for (int i = 0; i < m->nbodies; ++i) {
    const LsimBody *b = &m->bodies[i];
    if (b->nv == 0) continue;
    const double *xi = x + b->v_offset;
    double *yi = y + b->v_offset;
    const double im = 1.0 / b->mass;
    if (m->dimension == 2) {
      yi[0] = im * xi[0], yi[1] = im * xi[1], yi[2] = ed->Iinv[9 * i + 8] * xi[2];
      continue;
    }
    for (int d = 0; d < 3; ++d) yi[d] = im * xi[d];
    const double *quat = st->q + b->q_offset + 3;
    double xb[3], yb[3];
    lsim_quat_rotate_inv(xb, quat, xi + 3);
    lsim_m3_apply(yb, ed->Iinv + 9 * i, xb);
    lsim_quat_rotate(yi + 3, quat, yb);
  }
}

/* a_free = W (f + m g - w x I w) at st. */
void lsim_ed_free_acceleration(Ed *ed, const LsimState *st, double *a) {
  const LsimModel *m = ed->m;
  double *f = ed->w1;
  for (int i = 0; i < m->nbodies; ++i) {
    const LsimBody *b = &m->bodies[i];
    if (b->nv == 0) continue;
    double *fi = f + b->v_offset;
    for (int d = 0; d < b->nv; ++d) fi[d] = lsim_schedule_eval_component(&b->force, st->time, d);
    for (int d = 0; d < m->dimension; ++d) fi[d] += b->mass * m->gravity[d];
    if (m->dimension == 3) {
      const double *quat = st->q + b->q_offset + 3, *w = st->v + b->v_offset + 3;
      double wb[3], Iw[3], Iww[3], c[3];
      lsim_quat_rotate_inv(wb, quat, w);
      lsim_m3_apply(Iw, b->inertia, wb);
      lsim_quat_rotate(Iww, quat, Iw);
      lsim_v3_cross(c, w, Iww);
      fi[3] -= c[0], fi[4] -= c[1], fi[5] -= c[2];
    }
  }
  lsim_ed_apply_w(ed, st, f, a);
}

/* ---- contacts and rows ------------------------------------------------------------ */

/* The shapes and feature of a contact id (lsim_contact_id). */
static void id_parts(uint64_t id, int *sa, int *sb, int *feature) {
  *sa = (int)(id >> 40) - 1;
  *sb = (int)((id >> 16) & 0xFFFFFFu) - 1;
  *feature = (int)(id & 0xFFFFu);
}

/* Shape s placed at st. */
static void place_at(const Ed *ed, const LsimState *st, int s, LsimPlaced *P) {
  const LsimShape *sh = &ed->m->shapes[s];
  LsimPose bp;
  lsim_body_pose(ed->m, st, sh->body, bp.p, bp.q);
  const LsimPose pose = lsim_shape_world_pose(sh, &bp);
  lsim_shape_place(sh, &pose, 3, P);
}

void lsim_ed_local_point(const Ed *ed, const LsimState *st, int body, const double w[3], double l[3]) {
  double p[3], q[4], d[3];
  if (body < 0) { /* the world */
    lsim_v3_copy(l, w);
    return;
  }
  lsim_body_pose(ed->m, st, body, p, q);
  lsim_v3_sub(d, w, p);
  lsim_quat_rotate_inv(l, q, d);
}

void lsim_ed_world_point(const Ed *ed, const LsimState *st, int body, const double l[3], double w[3]) {
  double p[3], q[4], d[3];
  if (body < 0) {
    lsim_v3_copy(w, l);
    return;
  }
  lsim_body_pose(ed->m, st, body, p, q);
  lsim_quat_rotate(d, q, l);
  lsim_v3_add(w, p, d);
}

int lsim_ed_face_ref(const Ed *ed, const LsimState *st, const LsimContact *ct, int *order) {
  *order = -1;
  if (ed->m->dimension != 3 || ct->kind != LSIM_CONTACT_NORMAL) return -1;
  int sa, sb, f;
  id_parts(ct->id, &sa, &sb, &f);
  if (sa < 0 || sb < 0 || sa >= ed->m->nshapes || sb >= ed->m->nshapes) return -1;
  LsimPlaced A, B;
  place_at(ed, st, sa, &A);
  place_at(ed, st, sb, &B);
  int ref = -1;
  LsimContactPoint pt;
  double margin, role;
  if (lsim_box_face_vertex_ordered(&A, &B, f, order, &ref, &pt, &margin, &role)) {
    *order = -1;
    return -1;
  }
  return ref;
}

int lsim_ed_follow(const Ed *ed, const LsimState *st, const Cand *cd, LsimContactPoint *pt,
                   double *margin, double *role) {
  if (cd->ref < 0) return -1;
  int sa, sb, f, ref = cd->ref, order = cd->order;
  id_parts(cd->id, &sa, &sb, &f);
  LsimPlaced A, B;
  place_at(ed, st, sa, &A);
  place_at(ed, st, sb, &B);
  return lsim_box_face_vertex_ordered(&A, &B, f, &order, &ref, pt, margin, role);
}

/* Contact c of set in the tangent basis about axis (lsim_v3_tangents_about) when detection
 * gave it the other one: its tangents and direction rows turned about its normal. A
 * direction row is linear in its direction u = cs_k t1 + sn_k t2, so the rows of t1 and t2
 * are sum_k cs_k row_k and sum_k sn_k row_k times 2 / d (d >= 3 directions evenly spread),
 * and the new rows their combinations. Detection's basis jumps by up to 90 degrees where
 * the normal's |n_x| crosses 0.57735 (a box tipped by 35.3 degrees about y): the slip of a
 * sliding contact in it, and so its slip root v_t . s, jumped (by 0.0546 m/s in
 * n3_g0.3_b0.3_a0.25_v2_o1 of scripts/event_stack_sweep.py at 0.530151 s), and its
 * friction along s turned with the basis. */
static void keep_tangents(const Ed *ed, LsimContactSet *set, int c, int axis) {
  LsimContact *ct = &set->contacts[c];
  const int nd = ct->ndir;
  if (lsim_ed_tangents(ed, ct) != 2 || nd < 3 || nd > LSIM_MAX_DIRECTIONS ||
      lsim_v3_tangent_axis(ct->normal) == axis)
    return;
  double t1[3], t2[3], cs[LSIM_MAX_DIRECTIONS], sn[LSIM_MAX_DIRECTIONS];
  lsim_v3_tangents_about(ct->normal, axis, t1, t2);
  const double ca = lsim_v3_dot(t1, ct->tangent[0]), sa = lsim_v3_dot(t1, ct->tangent[1]);
  lsim_cone_weights(nd, cs, sn);
  LsimJacRow r1, r2, *rows = &set->rows[ct->first_row + 1];
  r1 = r2 = rows[0];
  for (int k = 0; k < 2; ++k)
    for (int d = 0; d < LSIM_MAX_BODY_DOF; ++d) {
      double a = 0.0, b = 0.0;
      for (int q = 0; q < nd; ++q) a += cs[q] * rows[q].j[k][d], b += sn[q] * rows[q].j[k][d];
      r1.j[k][d] = 2.0 * a / nd, r2.j[k][d] = 2.0 * b / nd;
    }
  for (int q = 0; q < nd; ++q) {
    /* u_q' = cs t1' + sn t2' with t1' = ca t1 + sa t2, t2' = -sa t1 + ca t2. */
    const double a = cs[q] * ca - sn[q] * sa, b = cs[q] * sa + sn[q] * ca;
    for (int k = 0; k < 2; ++k)
      for (int d = 0; d < LSIM_MAX_BODY_DOF; ++d) rows[q].j[k][d] = a * r1.j[k][d] + b * r2.j[k][d];
  }
  lsim_v3_copy(ct->tangent[0], t1);
  lsim_v3_copy(ct->tangent[1], t2);
}

int lsim_ed_detect(Ed *ed, const LsimState *st, LsimContactSet *set, int follow) {
  int rc = lsim_detect_contacts(&ed->mm, st, st->v, set);
  for (int i = 0; !rc && follow && i < ed->ncand; ++i) {
    const Cand *cd = &ed->cand[i];
    if (cd->mode == JOINT || cd->ref < 0) continue;
    /* Detected with the reference face it had at the last event: kept. With the other
       (past the root on its role, up to the located point), followed from its face. In
       the other canonical order of the pair (two equal boxes at one height, whose order
       round-off of a height turns) the id's feature names another vertex: followed in
       its own order. */
    const int c = lsim_ed_find(set, cd->id);
    int order = -1;
    if (c >= 0 && lsim_ed_face_ref(ed, st, &set->contacts[c], &order) == cd->ref && order == cd->order)
      continue;
    if (c >= 0) set->contacts[c].id = 0; /* superseded (no contact has id 0) */
    LsimContactPoint pt;
    double margin, role;
    int sa, sb, f;
    id_parts(cd->id, &sa, &sb, &f);
    if (lsim_ed_follow(ed, st, cd, &pt, &margin, &role) == 0)
      rc = lsim_contacts_add_point(set, ed->m, st, sa, sb, &pt);
  }
  /* 2-D: a persistent contact whose id detection no longer gives, renamed. Two rectangles
     with flush sides (blocks pinned at the middle of their end faces) tie on which side is
     the reference (lsim_geom_box_box2's separating axes): a rotation of round-off flips
     it, and the same corner touching comes out under the other side's feature id (a run
     of tests/data/pinned_boxes_rope.json stopped at t = 2.2e-16 s). The contact of the
     same shapes nearest to the candidate's point (Cand.local), within the 1e-6 m that holds
     a feature to its persistent contact, and named by no other candidate, takes its id. */
  for (int i = 0; !rc && ed->m->dimension == 2 && i < ed->ncand; ++i) {
    const Cand *cd = &ed->cand[i];
    if (cd->mode == JOINT || lsim_ed_find(set, cd->id) >= 0) continue;
    double p[3], best = HELD_NEAR;
    lsim_ed_world_point(ed, st, cd->body[0], cd->local, p);
    int pick = -1;
    for (int c = 0; c < set->count; ++c) {
      const LsimContact *ct = &set->contacts[c];
      if (ct->kind != LSIM_CONTACT_NORMAL || ct->id >> 16 != cd->id >> 16) continue;
      int named = 0;
      for (int k = 0; k < ed->ncand && !named; ++k) named = ed->cand[k].id == ct->id;
      const double d = hypot(ct->point[0] - p[0], ct->point[1] - p[1]);
      if (!named && d < best) best = d, pick = c;
    }
    if (pick >= 0) set->contacts[pick].id = cd->id;
  }
  /* The candidates' tangent bases kept (Cand.axis). */
  for (int i = 0; !rc && i < ed->ncand; ++i) {
    if (ed->cand[i].axis < 0) continue;
    const int c = lsim_ed_find(set, ed->cand[i].id);
    if (c >= 0) keep_tangents(ed, set, c, ed->cand[i].axis);
  }
  if (!rc) rc = lsim_constraint_rows(&ed->mm, st, st->time, set);
  return rc;
}

int lsim_ed_find(const LsimContactSet *set, uint64_t id) {
  for (int i = 0; i < set->count; ++i)
    if (set->contacts[i].id == id) return i;
  return -1;
}

/* The dense row (nv) of contact c's row: which 0 normal, 1 t1 (direction 0), 2 t2 (the
 * direction a quarter turn on). */
void lsim_ed_dense_row(const Ed *ed, const LsimContactSet *set, int c, int which, double *out) {
  const LsimContact *ct = &set->contacts[c];
  const int r = which == 0 ? ct->first_row : ct->first_row + 1 + (which == 2 ? ct->ndir / 4 : 0);
  const LsimJacRow *row = &set->rows[r];
  memset(out, 0, (size_t)ed->nv * sizeof(double));
  for (int k = 0; k < 2; ++k) {
    if (row->body[k] < 0) continue;
    const LsimBody *b = &ed->m->bodies[row->body[k]];
    for (int d = 0; d < b->nv; ++d) out[b->v_offset + d] += row->j[k][d];
  }
}

double lsim_ed_dot(const double *a, const double *b, int n) {
  double s = 0.0;
  for (int i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

/* Tangent directions of a contact in this world: 2 in 3-D, 1 in 2-D, 0 without friction. */
int lsim_ed_tangents(const Ed *ed, const LsimContact *ct) {
  if (ct->kind != LSIM_CONTACT_NORMAL || ct->ndir == 0 || ct->mu <= 0.0) return 0;
  return ed->m->dimension == 3 ? 2 : 1;
}

/* Tangential velocity (t1, t2 components) of contact c at st. */
void lsim_ed_slip_velocity(Ed *ed, const LsimContactSet *set, int c, const double *v, double vt[2]) {
  vt[0] = vt[1] = 0.0;
  const int nt = lsim_ed_tangents(ed, &set->contacts[c]);
  for (int k = 0; k < nt; ++k) {
    lsim_ed_dense_row(ed, set, c, k + 1, ed->w2);
    vt[k] = lsim_ed_dot(ed->w2, v, ed->nv);
  }
}

int lsim_ed_grow(void **p, int *cap, int n, size_t elem) { return lsim_grow(p, cap, n, elem); }

int lsim_ed_slide_held(const Ed *ed, const Cand *cd) {
  for (int k = 0; k < ed->ncand; ++k)
    if (ed->cand[k].mode == STICK && ed->cand[k].body[0] == cd->body[0] && ed->cand[k].body[1] == cd->body[1])
      return 1;
  return 0;
}

/* The persistent rows of the current candidates (their indices in set in idx). */
int lsim_ed_build_rows(Ed *ed, const LsimContactSet *set, const int *idx) {
  int nr = 0;
  for (int i = 0; i < ed->ncand; ++i) {
    if (ed->cand[i].mode == FREE) continue;
    nr += 1 + (ed->cand[i].mode == STICK ? lsim_ed_tangents(ed, &set->contacts[idx[i]]) : 0);
  }
  if (nr > ed->r_cap) {
    const int cap = 2 * nr;
    int *rc_ = realloc(ed->r_cand, (size_t)cap * sizeof(int));
    if (rc_) ed->r_cand = rc_;
    int *rw = realloc(ed->r_which, (size_t)cap * sizeof(int));
    if (rw) ed->r_which = rw;
    double *p[6];
    const size_t sz[6] = {(size_t)cap * ed->nv, (size_t)cap * ed->nv, (size_t)cap * cap, (size_t)cap,
                          (size_t)cap, (size_t)cap};
    double **dst[6] = {&ed->J, &ed->G, &ed->A, &ed->b, &ed->lam, &ed->jdv};
    int ok = rc_ && rw;
    for (int k = 0; k < 6; ++k) {
      p[k] = realloc(*dst[k], sz[k] * sizeof(double));
      if (p[k]) *dst[k] = p[k];
      else ok = 0;
    }
    if (!ok) return LSIM_OUT_OF_MEMORY;
    ed->r_cap = cap;
  }
  ed->nr = 0;
  for (int i = 0; i < ed->ncand; ++i) {
    const Cand *cd = &ed->cand[i];
    if (cd->mode == FREE) continue;
    const int c = idx[i];
    const LsimContact *ct = &set->contacts[c];
    const int r0 = ed->nr;
    ed->r_cand[r0] = i, ed->r_which[r0] = 0;
    double *J = ed->J + (size_t)r0 * ed->nv, *G = ed->G + (size_t)r0 * ed->nv;
    lsim_ed_dense_row(ed, set, c, 0, J);
    memcpy(G, J, (size_t)ed->nv * sizeof(double));
    ed->nr++;
    if (cd->mode == SLIDE) {
      /* Friction -mu f_n along the current slip v_t while it goes the segment's way s,
         blended with s below slip speeds of SLIP_BLEND: along v_t + SLIP_BLEND s (the
         segment's direction once that turns against s, past the stick event, so the
         flow stays smooth up to it). Along v_t alone, a slide starting from rest took
         its friction's direction from slip velocities of round-off (1e-14 m/s), and
         CVODE's steps fell to 1e-13 s. */
      double vt[2], s[2] = {cd->s[0], cd->s[1]};
      lsim_ed_slip_velocity(ed, set, c, ed->st.v, vt);
      /* Held by a sticking contact of its pair (a redundant support sliding at zero slip
         beside sticking partners): its slip is their constraints' round-off, and it keeps
         s (turning with that slip, the flow's stiffness was mu f_n / (m SLIP_BLEND), and
         CVODE's steps fell to 1e-6 s). */
      const int held = lsim_ed_slide_held(ed, cd);
      const double w0 = vt[0] + SLIP_BLEND * s[0], w1 = vt[1] + SLIP_BLEND * s[1], wn = hypot(w0, w1);
      if (!held && w0 * s[0] + w1 * s[1] > 0.0) s[0] = w0 / wn, s[1] = w1 / wn;
      for (int k = 0; k < lsim_ed_tangents(ed, ct); ++k) {
        lsim_ed_dense_row(ed, set, c, k + 1, ed->w2);
        for (int d = 0; d < ed->nv; ++d) G[d] -= ct->mu * s[k] * ed->w2[d];
      }
    } else {
      for (int k = 0; k < lsim_ed_tangents(ed, ct); ++k) {
        const int r = ed->nr++;
        ed->r_cand[r] = i, ed->r_which[r] = k + 1;
        lsim_ed_dense_row(ed, set, c, k + 1, ed->J + (size_t)r * ed->nv);
        memcpy(ed->G + (size_t)r * ed->nv, ed->J + (size_t)r * ed->nv, (size_t)ed->nv * sizeof(double));
      }
    }
  }
  return 0;
}

/* The curvature's difference step. A row's value at each point carries the round-off of
 * the world coordinates it is computed from (lever arms, contact points: eps |x| |v|),
 * which the difference divides by its step: at 1000 m with CURVATURE_DT, 1e-7 m/s^2, and
 * two corners of flush end faces pinned beside them then disagreed with the pin by 1.3e-7
 * m/s^2 (one event's LCP had no solution: both corners closing with the pin held); the
 * flow's noise made CVODE's error test fail at every few steps (the 3-D hinge of
 * test_flush_hinge_3d_runs moved 100 m took 5 times the steps it takes at the origin).
 * Within POSITION_SCALE of the origin (every body position), CURVATURE_DT, two points:
 * the same bits. Beyond it, CURVATURE_DT per CURVATURE_GROWTH of the largest |x| (at most
 * CURVATURE_DT_MAX), so that the round-off divided stays about what it is at 4 m, and four
 * points (an error of (|qdot| dt)^4 instead of (|qdot| dt)^2: with two points and the step
 * grown so, the corners' and the pin's differences parted by 3.7e-7 m/s^2 at 1000 m).
 * The cap: at 5e-4 s (2000 m) a corner followed from its last event was no longer
 * detected at the outer points of a bar turning at 5 rad/s. */
static double curvature_dt(const Ed *ed, const LsimState *st) {
  double xmax = 0.0;
  for (int b = 0; b < ed->m->nbodies; ++b) {
    const LsimBody *bd = &ed->m->bodies[b];
    if (bd->q_offset < 0) continue;
    for (int k = 0; k < ed->m->dimension && k < bd->nq; ++k) xmax = fmax(xmax, fabs(st->q[bd->q_offset + k]));
  }
  return xmax > POSITION_SCALE ? fmin(CURVATURE_DT * (xmax / CURVATURE_GROWTH), CURVATURE_DT_MAX) : CURVATURE_DT;
}

/* Jdot v of rows (cand[r], which[r]), r < nr, at st by a central difference of the rows
 * along the motion: (J(q + dt qdot) v - J(q - dt qdot) v) / (2 dt), into out[nr]. */
int lsim_ed_curvature(Ed *ed, const LsimState *st, int nr, const int *rcand, const int *rwhich,
                     double *out) {
  if (nr <= 0) return 0;
  double *qd = malloc((size_t)ed->nq * sizeof(double) + 1);
  if (!qd) return LSIM_OUT_OF_MEMORY;
  lsim_ed_qdot(ed, st, qd);
  for (int i = 0; i < nr; ++i) out[i] = 0.0;
  const double dt = curvature_dt(ed, st);
  /* Near the origin the two points -dt, dt; beyond POSITION_SCALE the four -2, -1, 1, 2
     (times dt, weights 1, -8, 8, -1 over 12 dt: curvature_dt). */
  static const int at4[4] = {-2, -1, 1, 2};
  static const double w4[4] = {1.0, -8.0, 8.0, -1.0};
  const int far = dt > CURVATURE_DT, np = far ? 4 : 2;
  for (int p = 0; p < np; ++p) {
    const int side = far ? at4[p] : 2 * p - 1;
    ed->pst.time = st->time;
    for (int k = 0; k < ed->nq; ++k) ed->pst.q[k] = st->q[k] + side * dt * qd[k];
    memcpy(ed->pst.v, st->v, (size_t)ed->nv * sizeof(double));
    int rc = lsim_ed_detect(ed, &ed->pst, &ed->pset, 1);
    for (int i = 0; !rc && i < nr; ++i) {
      const int c = lsim_ed_find(&ed->pset, ed->cand[rcand[i]].id);
      if (c < 0) {
        const Cand *cd = &ed->cand[rcand[i]];
        snprintf(ed->msg, sizeof ed->msg,
                 "a persistent contact vanished from detection %.3g s %s t = %.12g (contact %#llx, bodies %d-%d, %s)",
                 fabs(side * dt), side < 0 ? "before" : "after", st->time, (unsigned long long)cd->id, cd->body[0],
                 cd->body[1], cd->mode == SLIDE ? "slide" : cd->mode == STICK ? "stick" : "joint");
        rc = LSIM_BREAKDOWN;
        break;
      }
      lsim_ed_dense_row(ed, &ed->pset, c, rwhich[i], ed->w2);
      if (far)
        out[i] += w4[p] * lsim_ed_dot(ed->w2, st->v, ed->nv) / (12.0 * dt);
      else
        out[i] += side * lsim_ed_dot(ed->w2, st->v, ed->nv) / (2.0 * dt);
    }
    if (rc) {
      free(qd);
      return rc;
    }
  }
  free(qd);
  return 0;
}

int lsim_ed_psd_solve(double *A, double *x, int n, double *work) {
  double *L = work, *M = work + (size_t)n * n, *y = M + (size_t)n * n;
  int *pm = (int *)(void *)(y + n); /* n ints in the last n doubles */
  double dmax = 0.0;
  for (int i = 0; i < n; ++i) pm[i] = i, dmax = fmax(dmax, A[i * n + i]);
  if (!(dmax > 0.0)) {
    for (int i = 0; i < n; ++i) x[i] = 0.0;
    return 0;
  }
  /* Outer-product Cholesky with diagonal pivoting on the lower triangle of A. */
  const double tol = 1e-11 * dmax;
  memset(L, 0, (size_t)n * n * sizeof(double));
  int r = 0;
  for (; r < n; ++r) {
    int p = r;
    for (int i = r + 1; i < n; ++i)
      if (A[i * n + i] > A[p * n + p]) p = i;
    if (!(A[p * n + p] > tol)) break;
    if (p != r) {
      /* Symmetric swap of r and p in A (full storage) and in L's finished columns. */
      for (int j = 0; j < n; ++j) {
        double t = A[r * n + j];
        A[r * n + j] = A[p * n + j], A[p * n + j] = t;
      }
      for (int i = 0; i < n; ++i) {
        double t = A[i * n + r];
        A[i * n + r] = A[i * n + p], A[i * n + p] = t;
      }
      for (int j = 0; j < r; ++j) {
        double t = L[r * n + j];
        L[r * n + j] = L[p * n + j], L[p * n + j] = t;
      }
      const int t = pm[r];
      pm[r] = pm[p], pm[p] = t;
    }
    const double d = sqrt(A[r * n + r]);
    L[r * n + r] = d;
    for (int i = r + 1; i < n; ++i) L[i * n + r] = A[i * n + r] / d;
    for (int i = r + 1; i < n; ++i)
      for (int j = r + 1; j < n; ++j) A[i * n + j] -= L[i * n + r] * L[j * n + r];
  }
  /* y = B' b with B's row pm[i] = L's row i; M = B'B = L'L (r x r). */
  for (int k = 0; k < r; ++k) {
    double s = 0.0;
    for (int i = 0; i < n; ++i) s += L[i * n + k] * x[pm[i]];
    y[k] = s;
    for (int l = 0; l <= k; ++l) {
      double m = 0.0;
      for (int i = 0; i < n; ++i) m += L[i * n + k] * L[i * n + l];
      M[k * n + l] = M[l * n + k] = m;
    }
  }
  /* w = M^-1 M^-1 y by Cholesky of M (in place, lower), then x = B w. */
  for (int j = 0; j < r; ++j) {
    double s = M[j * n + j];
    for (int k = 0; k < j; ++k) s -= M[j * n + k] * M[j * n + k];
    if (!(s > 0.0)) return LSIM_BREAKDOWN;
    M[j * n + j] = sqrt(s);
    for (int i = j + 1; i < r; ++i) {
      double t = M[i * n + j];
      for (int k = 0; k < j; ++k) t -= M[i * n + k] * M[j * n + k];
      M[i * n + j] = t / M[j * n + j];
    }
  }
  for (int pass = 0; pass < 2; ++pass) {
    for (int i = 0; i < r; ++i) {
      double t = y[i];
      for (int k = 0; k < i; ++k) t -= M[i * n + k] * y[k];
      y[i] = t / M[i * n + i];
    }
    for (int i = r - 1; i >= 0; --i) {
      double t = y[i];
      for (int k = i + 1; k < r; ++k) t -= M[k * n + i] * y[k];
      y[i] = t / M[i * n + i];
    }
  }
  double *out = A; /* A's first row holds the result before the copy back */
  for (int i = 0; i < n; ++i) {
    double s = 0.0;
    for (int k = 0; k < r; ++k) s += L[i * n + k] * y[k];
    out[pm[i]] = s;
  }
  memcpy(x, out, (size_t)n * sizeof(double));
  return 0;
}

/* The smooth phase at (t, x): contacts, persistent forces lam[nr] and accelerations
 * a[nv]; idx[ncand] gets each candidate's index in ed->set (-1: not found). */
int lsim_ed_evaluate(Ed *ed, double t, const double *x, int *idx) {
  lsim_ed_load(ed, &ed->st, t, x);
  int rc = lsim_ed_detect(ed, &ed->st, &ed->set, 1);
  if (rc) return rc;
  for (int i = 0; i < ed->ncand; ++i) {
    idx[i] = lsim_ed_find(&ed->set, ed->cand[i].id);
    if (idx[i] < 0 && ed->cand[i].mode != FREE) {
      const Cand *cd = &ed->cand[i];
      snprintf(ed->msg, sizeof ed->msg,
               "a persistent contact vanished from detection at t = %.12g (contact %#llx, bodies %d-%d, %s)",
               t, (unsigned long long)cd->id, cd->body[0], cd->body[1],
               cd->mode == SLIDE ? "slide" : cd->mode == STICK ? "stick" : "joint");
      return LSIM_BREAKDOWN;
    }
  }
  lsim_ed_free_acceleration(ed, &ed->st, ed->a_free);
  memcpy(ed->a, ed->a_free, (size_t)ed->nv * sizeof(double));
  if ((rc = lsim_ed_build_rows(ed, &ed->set, idx))) return rc;
  const int nr = ed->nr, nv = ed->nv;
  if (nr <= 0) return 0;
  if ((rc = lsim_ed_curvature(ed, &ed->st, nr, ed->r_cand, ed->r_which, ed->jdv))) return rc;
  /* A = J W G', b = -(J a_free + Jdot v) - Baumgarte. Symmetric (G = J) unless a row
     carries sliding friction. */
  int symmetric = 1;
  for (int r = 0; r < nr; ++r) symmetric &= ed->cand[ed->r_cand[r]].mode != SLIDE;
  for (int c = 0; c < nr; ++c) {
    lsim_ed_apply_w(ed, &ed->st, ed->G + (size_t)c * nv, ed->w1);
    for (int r = 0; r < nr; ++r) ed->A[r * nr + c] = lsim_ed_dot(ed->J + (size_t)r * nv, ed->w1, nv);
  }
  for (int r = 0; r < nr; ++r) {
    const double *J = ed->J + (size_t)r * nv;
    const double jv = lsim_ed_dot(J, ed->st.v, nv);
    ed->b[r] = -(lsim_ed_dot(J, ed->a_free, nv) + ed->jdv[r]) - 2.0 * jv / T_STAB;
    if (ed->r_which[r] == 0) ed->b[r] -= ed->set.contacts[idx[ed->r_cand[r]]].gap / (T_STAB * T_STAB);
  }
  /* A and b scaled by the power of 4 nearest 1 / max|A_rr| (exact: every value of the solves
     below is then scaled by a power of 2, the same bits where nothing under- or overflows).
     A's entries are W's, 1 / mass: a 2-D box of 1e-300 kg (tests/data/box_drop_tiny_mass_2d.json)
     has A ~ 1e300, and the least-norm solve's B (B'B)^-2 B' b divides b ~ 10 m/s^2 by about
     1e600 (1e-450: zero), the normal equations' A'A overflow; its persistent corner then
     carried no force and the box fell through the ground unseen. */
  double amax = 0.0;
  for (int r = 0; r < nr; ++r) amax = fmax(amax, fabs(ed->A[r * nr + r]));
  if (amax > 0.0 && isfinite(amax)) {
    int e;
    frexp(amax, &e);
    const double sc = ldexp(1.0, -2 * (e / 2));
    for (int r = 0; r < nr; ++r) {
      ed->b[r] *= sc;
      for (int c = 0; c < nr; ++c) ed->A[r * nr + c] *= sc;
    }
  }
  /* Redundant rows (a box's corners) share their forces by the least-norm split, which is
     smooth in the state (the force and cone roots are located on it). With sliding rows A
     is not symmetric: the least-norm solution A^+ b, from the normal equations
     (A'A) lam = A'b by the same pivoted Cholesky. (An elimination of A + 1e-12 max|diag| I
     split the redundant rows by round-off amplified 1e12 times: a box's corner forces
     jumped by 1e-4 N between evaluations 1e-16 s apart, and a force root could not be
     located.) */
  if (lsim_ed_grow((void **)&ed->work, &ed->work_cap, 3 * nr * nr + 2 * nr, sizeof(double)))
    return LSIM_OUT_OF_MEMORY;
  if (symmetric) {
    memcpy(ed->lam, ed->b, (size_t)nr * sizeof(double));
  } else {
    double *C = ed->work + 2 * (size_t)nr * nr + 2 * (size_t)nr; /* [nr nr] A'A */
    for (int i = 0; i < nr; ++i) {
      double s = 0.0;
      for (int r = 0; r < nr; ++r) s += ed->A[r * nr + i] * ed->b[r];
      ed->lam[i] = s;
      for (int j = 0; j <= i; ++j) {
        double m = 0.0;
        for (int r = 0; r < nr; ++r) m += ed->A[r * nr + i] * ed->A[r * nr + j];
        C[i * nr + j] = C[j * nr + i] = m;
      }
    }
    memcpy(ed->A, C, (size_t)nr * nr * sizeof(double));
  }
  /* Sticking friction rows weighted (below): A kept for the second solve. */
  int weighted = 0;
  for (int r = 0; symmetric && r < nr; ++r)
    weighted |= ed->r_which[r] != 0 && ed->cand[ed->r_cand[r]].mode == STICK &&
                ed->set.contacts[idx[ed->r_cand[r]]].kind == LSIM_CONTACT_NORMAL;
  if (weighted && lsim_ed_grow((void **)&ed->work, &ed->work_cap, 4 * nr * nr + 4 * nr, sizeof(double)))
    return LSIM_OUT_OF_MEMORY;
  double *A0 = ed->work + 3 * (size_t)nr * nr + 2 * (size_t)nr, *dw = A0 + (size_t)nr * nr;
  if (weighted) memcpy(A0, ed->A, (size_t)nr * nr * sizeof(double));
  if (lsim_ed_psd_solve(ed->A, ed->lam, nr, ed->work)) {
    snprintf(ed->msg, sizeof ed->msg, "singular contact system at t = %.12g", t);
    return LSIM_BREAKDOWN;
  }
  if (weighted) {
    /* The least-norm split gives redundant sticking contacts friction regardless of
       their normal forces, so a lightly loaded corner's share could leave its circle
       while a split inside every circle existed (a box sticking on an incline pivoted
       about one corner). Again with each sticking friction row r scaled by
       D_r = sqrt(mu f_n / mean): lam = D (D A D)^+ D b, the split least in
       sum |f_t|^2 / (mu f_n) (friction in proportion to mu f_n where the wrench allows),
       smooth in the state as f_n is. */
    double mean = 0.0;
    int nw = 0;
    for (int r = 0; r < nr; ++r) {
      const int i = ed->r_cand[r];
      dw[r] = -1.0; /* unweighted */
      if (ed->r_which[r] == 0 || ed->cand[i].mode != STICK || ed->set.contacts[idx[i]].kind != LSIM_CONTACT_NORMAL)
        continue;
      dw[r] = fmax(ed->set.contacts[idx[i]].mu * ed->lam[r - ed->r_which[r]], 0.0);
      mean += dw[r], ++nw;
    }
    mean = nw > 0 ? mean / nw : 0.0;
    if (mean > 0.0) {
      for (int r = 0; r < nr; ++r) dw[r] = dw[r] < 0.0 ? 1.0 : sqrt(fmax(dw[r], 1e-3 * mean) / mean);
      for (int r = 0; r < nr; ++r) {
        ed->lam[r] = dw[r] * ed->b[r];
        for (int c = 0; c < nr; ++c) ed->A[r * nr + c] = dw[r] * A0[r * nr + c] * dw[c];
      }
      if (lsim_ed_psd_solve(ed->A, ed->lam, nr, ed->work)) {
        snprintf(ed->msg, sizeof ed->msg, "singular contact system at t = %.12g", t);
        return LSIM_BREAKDOWN;
      }
      for (int r = 0; r < nr; ++r) ed->lam[r] *= dw[r];
    }
  }
  for (int d = 0; d < nv; ++d) ed->w1[d] = 0.0;
  for (int r = 0; r < nr; ++r)
    for (int d = 0; d < nv; ++d) ed->w1[d] += ed->G[(size_t)r * nv + d] * ed->lam[r];
  lsim_ed_apply_w(ed, &ed->st, ed->w1, ed->w2);
  for (int d = 0; d < nv; ++d) ed->a[d] += ed->w2[d];
  return 0;
}

