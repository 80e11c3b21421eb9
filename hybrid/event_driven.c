/* event_driven.c: the event-driven integrator (the equations, modes and scope are in
 * event_driven.h).
 *
 * The flow. With the persistent rows J (normal rows of persistent contacts and taut
 * tethers; the tangent rows t1, t2 of sticking contacts), their force directions G (= J,
 * except a sliding contact's normal column N - mu (s1 T1 + s2 T2), s the unit slip
 * direction), W = M^-1 and the free acceleration a_free = W (f + m g - w x I w):
 *   (J W G') lambda = -(J a_free + Jdot v) - 2 J v / T - phi / T^2,  a = a_free + W G' lambda
 * (the last two terms Baumgarte's, on the normal rows; T = 0.1 s). Without sliding rows
 * (G = J) the system is symmetric positive semi-definite and is solved for its least-norm
 * solution (pivoted Cholesky with the rank cut at 1e-11 of the largest diagonal): where
 * persistent rows are redundant (a box flat on the ground has 4 rows in 2-D for 3
 * velocities) the split of the forces is smooth in the state, so roots on one row's force
 * can be located. With sliding rows (A = J W G' not symmetric) the least-norm solution
 * A^+ b, from the normal equations (A'A) lambda = A'b by the same pivoted Cholesky (rank
 * cut at 1e-11 of A'A's largest diagonal: singular values of A below 3e-6 of its largest
 * count as zero), equally smooth.
 *
 * Mode decisions at an event are the acceleration LCP's, except at the borderline the
 * event itself creates: a contact whose force root (cone root) ended the segment lifts
 * off (slides), and a sliding contact at zero slip speed whose friction stays on the cone's
 * boundary keeps sliding when its slide has just started (its segment started with a slip
 * speed within velocity_tol), since there the LCP sees the change only at round-off; one
 * that slid faster is coming to rest and sticks. A contact whose cone root ended the
 * segment slides against the flow's friction there. The LCP's cone is the polyhedral one
 * of d directions, the flow's the circle: a contact at rest the LCP slides is tried
 * sticking in the flow at the event (circular_stick) and sticks when the circle holds it.
 * Sliding friction turns from the segment's direction s to the slip's within slip speeds
 * of SLIP_BLEND (event_rows.c), so that a slide starting from rest has a smooth flow.
 * Last, a persistent contact whose flow force is negative at the event, or crosses zero
 * within 1e-6 s of it, is released when it would not sink (lift_pulled): the LCP's
 * zero-force supports the flow's least-norm split pulls. An event whose projection to rest
 * (project_rest) leaves a slide slipping against s above velocity_tol is resolved again
 * from the projected velocities (resolve_event). A 3-D slide from rest has a direction
 * root: its slip parting from s by more than the polyhedral cone's half-angle (pi / d)
 * while it is below DIR_SPEED ends the segment, and resolve slides it along its slip,
 * however slow (the LCP at rest would give it s again). Force and cone roots are
 * located to FORCE_RESOLUTION (1e-6 N) at the resolution of time, the flow's force noise.
 *
 * Impact and acceleration LCPs have the layout of the time step's (contact/step.h): per
 * contact [c_n] [beta_1..d, lambda], M = rows W columns + the cone couplings, solved by
 * Lemke (on failure: a perturbed copy, then a Jacobi-scaled one; contact_lcp).
 * Impact: q_n = (1 + e) N v (e = 0 unless approaching faster than the threshold),
 * q_beta = D v; v+ = v + W (columns' z). Acceleration: q = rows a_free + rows' curvature.
 *
 * References: Pfeiffer and Glocker, "Multibody Dynamics with Unilateral Contacts" (1996)
 * for the mode-switching scheme (contact, lift-off, stick-slip); Tedrake's appendix for
 * the impact map with restitution; SimSect's manual for event location and the chart
 * counter against chattering; RBDL for Baumgarte stabilization's default time constant.
 */
#include "hybrid/event_driven.h"
#include "hybrid/event_private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact/constraints.h"
#include "contact/math3.h"
#include "hybrid/ode.h"
#include "lcp/lcp.h"

#include "lcp/lemke.h"
#include "lcp/solver.h"

static const char *const kind_names[LSIM_EVENT_KINDS] = {"impact", "contact", "liftoff",
                                                          "stick", "slip", "persistent"};

const char *lsim_event_kind_name(int kind) {
  return kind >= 0 && kind < LSIM_EVENT_KINDS ? kind_names[kind] : "unknown";
}

LsimEventOptions lsim_default_event_options(void) {
  LsimEventOptions o;
  memset(&o, 0, sizeof o);
  o.precision = 1e-10;
  o.time_precision = 1e-10;
  o.rtol = 1e-12;
  o.atol = 1e-14;
  o.max_step = 1e-2;
  o.contact_tol = 1e-8;
  o.velocity_tol = 1e-7;
  o.chatter_events = 20;
  o.chatter_window = 0.1;
  o.max_events = 1000000;
  return o;
}

LsimEventOptions lsim_event_options_for_model(const LsimModel *m) {
  LsimEventOptions o = lsim_default_event_options();
  o.precision = m->event_precision;
  o.chatter_events = m->event_chatter_events;
  o.chatter_window = m->event_chatter_window;
  o.rtol = m->event_rtol;
  o.atol = m->event_atol;
  o.sequential = m->event_impacts == LSIM_IMPACTS_SEQUENTIAL;
  return o;
}

void lsim_event_log_free(LsimEventLog *log) {
  if (!log) return;
  free(log->events);
  memset(log, 0, sizeof *log);
}

/* ---- CVODE callbacks ---------------------------------------------------------------- */

static int *idx_buf(Ed *ed) { return ed->idx; }

static int flow(double t, const double *x, double *xdot, void *user) {
  Ed *ed = user;
  /* Asked to stop: end CVODE's call at once (one call may take many internal steps: a
     bin of 48 spheres took 78 s to answer SIGTERM when only samples and events looked);
     the run then ends at the last sample delivered. */
  if (ed->o.stop && *ed->o.stop && ed->have_sample) {
    ed->interrupted = 1;
    return -1;
  }
  if (lsim_ed_evaluate(ed, t, x, idx_buf(ed))) return -1;
  lsim_ed_qdot(ed, &ed->st, xdot);
  memcpy(xdot + ed->nq, ed->a, (size_t)ed->nv * sizeof(double));
  return 0;
}

/* The smallest gap of body pair p over its FAR contacts that are not persistent
 * (FAR_MARGIN when it has none), a released contact's gap plus contact_tol unless all
 * (starting at about 0, it held its pair's root at 0, and another contact of the pair
 * closing then took it below 0 without a crossing; its own return is located at
 * -contact_tol, within the closed band). A contact that lifted off inside its partner
 * counts its gap from that depth (Cand.sink; plus contact_tol unless all): its row's
 * Baumgarte had not closed it (2e-6 to 6e-6 m in n3_g0.3_b0.6_a{0.35_v5,0.25_v3.5}_o1 of
 * scripts/event_stack_sweep.py, whose slides from rest turn and lift such contacts: the
 * sampler reported them as penetrations at 0.16 and 0.27 s). Reads ed->fset (detected at
 * the point). */
static double pair_gap(Ed *ed, int p, int all) {
  const int a = ed->pairs[2 * p], b = ed->pairs[2 * p + 1];
  double g = FAR_MARGIN;
  for (int c = 0; c < ed->fset.count; ++c) {
    const LsimContact *ct = &ed->fset.contacts[c];
    if (ct->kind != LSIM_CONTACT_NORMAL || ct->body[0] != a || ct->body[1] != b) continue;
    int persistent = 0, released = 0, named = -1;
    double sink = 0.0;
    for (int i = 0; i < ed->ncand; ++i)
      if (ed->cand[i].id == ct->id) named = i;
    /* 2-D: two rectangles with flush sides tie on the reference side, and the same corner
       comes out under either side's feature id (lsim_ed_detect renames the contacts of the
       flow, not these): the candidate of the same shapes whose point is nearest, within
       HELD_NEAR. A released corner of two bars pinned at flush end faces 100 m from the
       origin, under the other id at a gap of -8e-12 m, held the pair's root below 0 and
       sank 1.2e-6 m unseen (its release's contact_tol went to an id detection no longer
       gave). */
    for (int i = 0; named < 0 && ed->m->dimension == 2 && i < ed->ncand; ++i) {
      double best = HELD_NEAR, w[3];
      const Cand *cd = &ed->cand[i];
      if (cd->mode == JOINT || cd->id >> 16 != ct->id >> 16) continue;
      lsim_ed_world_point(ed, &ed->st, cd->body[0], cd->local, w);
      const double d = hypot(ct->point[0] - w[0], ct->point[1] - w[1]);
      if (d < best) best = d, named = i;
    }
    if (named >= 0)
      persistent = ed->cand[named].mode != FREE, sink = ed->cand[named].sink,
      released = !all && (ed->cand[named].released || sink > 0.0);
    if (persistent) continue;
    double gc = ct->gap + sink + (released ? ed->o.contact_tol : 0.0);
    /* Held by a persistent contact at its place (an edge crossing a corner leaves): no
       root. Released from it continuously: between HELD_NEAR and HELD_FAR of it, its gap
       is raised by the persistent contact's depth plus contact_tol, in full at HELD_NEAR
       and fading to nothing at HELD_FAR (lift), so a feature at the persistent contact's
       depth enters the pair's gap above 0 and crosses it where it has left. */
    int held = 0;
    double lift = 0.0;
    for (int i = 0; i < ed->ncand && !held; ++i) {
      if (ed->cand[i].mode == FREE || ed->idx[i] < 0) continue;
      const LsimContact *pc = &ed->set.contacts[ed->idx[i]];
      if (pc->body[0] != a || pc->body[1] != b) continue;
      const double d = sqrt(lsim_v3_dist2(pc->point, ct->point));
      held = d < HELD_NEAR;
      if (!held && d < HELD_FAR)
        lift = fmax(lift, (HELD_FAR - d) / (HELD_FAR - HELD_NEAR) * fmax(0.0, ed->o.contact_tol - pc->gap));
    }
    gc += lift;
    if (!held && gc < g) g = gc;
  }
  return g;
}

static int roots(double t, const double *x, double *g, void *user) {
  Ed *ed = user;
  int *idx = idx_buf(ed);
  if (lsim_ed_evaluate(ed, t, x, idx)) return -1;
  if (ed->npairs > 0 && lsim_detect_contacts(&ed->mf, &ed->st, ed->st.v, &ed->fset)) return -1;
  for (int k = 0; k < ed->nroots; ++k) {
    const int i = ed->root_cand[k];
    if (ed->root_kind[k] == R_PAIR) {
      g[k] = ed->pair_g[i] = pair_gap(ed, i, 0);
      continue;
    }
    const Cand *cd = &ed->cand[i];
    const LsimContact *ct = idx[i] >= 0 ? &ed->set.contacts[idx[i]] : NULL;
    /* The candidate's first row and its force. */
    int r = 0;
    while (r < ed->nr && ed->r_cand[r] != i) ++r;
    switch (ed->root_kind[k]) {
    case R_GAP:
      g[k] = ct ? ct->gap : FAR_MARGIN;
      break;

    case R_FORCE: /* in funit, as the cone's */
      g[k] = ed->lam[r] / ed->funit;
      break;
    case R_CONE: {
      const double ft = hypot(r + 1 < ed->nr && ed->r_cand[r + 1] == i ? ed->lam[r + 1] : 0.0,
                              r + 2 < ed->nr && ed->r_cand[r + 2] == i ? ed->lam[r + 2] : 0.0);
      g[k] = (ct->mu * ed->lam[r] - ft) / ed->funit;
      break;
    }
    case R_EDGE:   /* the face vertex's margin inside its faces' other side planes */
    case R_ROLE: { /* how far detection is from turning its reference face */
      LsimContactPoint pt;
      double margin = FAR_MARGIN, role = FAR_MARGIN;
      lsim_ed_follow(ed, &ed->st, cd, &pt, &margin, &role);
      g[k] = ed->root_kind[k] == R_EDGE ? margin : role;
      break;
    }
    case R_DIR: { /* a slide from rest whose slip stays within the cone's half-angle of s
                     (v_t . s + SLIP_BLEND / 2 > tan(pi / ndir) |v_t x s|), or is above
                     DIR_SPEED: continuous in v_t, SLIP_BLEND / 2 where the slide starts.
                     A slip going straight against s crosses at v_t . s = -SLIP_BLEND / 2,
                     before the flow's friction direction, along w = v_t + SLIP_BLEND s,
                     is undefined (w = 0). With SLIP_BLEND there the flow held the slip at
                     w = 0 (the friction's direction swinging between evaluations: a
                     stick), the root only tended to 0, and another root jumped by 0.022 N
                     (n3_g0.3_b0.6_a0.25_v2_o1 of scripts/event_stack_sweep.py, 0.373251 s). */
      double vt[2];
      lsim_ed_slip_velocity(ed, &ed->set, idx[i], ed->st.v, vt);
      const double along = vt[0] * cd->s[0] + vt[1] * cd->s[1];
      const double across = fabs(vt[0] * cd->s[1] - vt[1] * cd->s[0]);
      const double half = ct && ct->ndir >= 3 ? tan(3.14159265358979323846 / ct->ndir) : 1.0;
      g[k] = fmax(along + 0.5 * SLIP_BLEND - half * across, hypot(vt[0], vt[1]) - DIR_SPEED);
      break;
    }
    default: { /* R_SLIP */
      double vt[2];
      lsim_ed_slip_velocity(ed, &ed->set, idx[i], ed->st.v, vt);
      g[k] = vt[0] * cd->s[0] + vt[1] * cd->s[1];
    }
    }
  }
  return 0;
}

/* ---- events ------------------------------------------------------------------------- */

static int log_event(Ed *ed, double t, int kind, const Cand *cd) {
  ed->events++;
  if (!ed->log) return 0;
  LsimEventLog *log = ed->log;
  if (lsim_ed_grow((void **)&log->events, &log->capacity, log->count + 1, sizeof(LsimEvent)))
    return LSIM_OUT_OF_MEMORY;
  log->events[log->count++] = (LsimEvent){.t = t, .kind = kind, .contact = cd->id,
                                          .body = {cd->body[0], cd->body[1]}};
  return 0;
}

static Chatter *chatter(Ed *ed, uint64_t id) {
  for (int i = 0; i < ed->nchat; ++i)
    if (ed->chat[i].id == id) return &ed->chat[i];
  if (lsim_ed_grow((void **)&ed->chat, &ed->chat_cap, ed->nchat + 1, sizeof(Chatter))) return NULL;
  ed->chat[ed->nchat] = (Chatter){.id = id, .first = -HUGE_VAL};
  return &ed->chat[ed->nchat++];
}

/* The LCP over contacts list[0..k) of ed->set (time-step layout). cone[i]: with friction
 * variables; else a single normal variable whose column is G = N - mu s.T when slide[i]
 * (s in sdir[2 i]). q from u (v for impacts, a_free for accelerations) plus qadd per
 * normal (qn_add[i]) and per direction row (qd_add, NULL: none). Solution z; du = W
 * (columns' z). */
static int contact_lcp(Ed *ed, int k, const int *list, const int *cone, const int *slide,
                       const double *sdir, const double *u, const double *qn_add,
                       const double *qd_add, double *du, double **zout, int **first) {
  const int nv = ed->nv;
  int n = 0;
  int *fv = malloc(((size_t)k + 1) * sizeof(int));
  if (!fv) return LSIM_OUT_OF_MEMORY;
  for (int i = 0; i < k; ++i) {
    fv[i] = n;
    const LsimContact *ct = &ed->set.contacts[list[i]];
    n += ct->kind == LSIM_CONTACT_EQUALITY ? 2 : 1 + (cone[i] ? ct->ndir + 1 : 0);
  }
  double *rows = calloc((size_t)n * nv + 1, sizeof(double));
  double *cols = calloc((size_t)n * nv + 1, sizeof(double));
  double *z = calloc((size_t)n + 1, sizeof(double));
  LsimLcp lcp;
  memset(&lcp, 0, sizeof lcp);
  int rc = (!rows || !cols || !z) ? LSIM_OUT_OF_MEMORY : lsim_lcp_init(&lcp, n);
  /* Rows and columns of the variables (cone slacks have none). */
  for (int i = 0; !rc && i < k; ++i) {
    const LsimContact *ct = &ed->set.contacts[list[i]];
    double *r0 = rows + (size_t)fv[i] * nv, *c0 = cols + (size_t)fv[i] * nv;
    lsim_ed_dense_row(ed, &ed->set, list[i], 0, r0);
    memcpy(c0, r0, (size_t)nv * sizeof(double));
    if (ct->kind == LSIM_CONTACT_EQUALITY) {
      /* A joint row: its free impulse as the difference of two (rows +J and -J). */
      for (int d = 0; d < nv; ++d) r0[nv + d] = c0[nv + d] = -r0[d];
      continue;
    }
    if (!cone[i] && slide[i]) {
      for (int t = 0; t < lsim_ed_tangents(ed, ct); ++t) {
        lsim_ed_dense_row(ed, &ed->set, list[i], t + 1, ed->w2);
        for (int d = 0; d < nv; ++d) c0[d] -= ct->mu * sdir[2 * i + t] * ed->w2[d];
      }
    }
    if (!cone[i]) continue;
    for (int d = 0; d < ct->ndir; ++d) {
      const LsimJacRow *row = &ed->set.rows[ct->first_row + 1 + d];
      double *rd = rows + (size_t)(fv[i] + 1 + d) * nv;
      for (int s = 0; s < 2; ++s) {
        if (row->body[s] < 0) continue;
        const LsimBody *b = &ed->m->bodies[row->body[s]];
        for (int e = 0; e < b->nv; ++e) rd[b->v_offset + e] += row->j[s][e];
      }
      memcpy(cols + (size_t)(fv[i] + 1 + d) * nv, rd, (size_t)nv * sizeof(double));
    }
  }
  /* M = rows W cols' (column-major) + cone couplings; q = rows u + additions. */
  for (int c = 0; !rc && c < n; ++c) {
    lsim_ed_apply_w(ed, &ed->st, cols + (size_t)c * nv, ed->w1);
    for (int r = 0; r < n; ++r) lcp.M[(size_t)c * n + r] = lsim_ed_dot(rows + (size_t)r * nv, ed->w1, nv);
  }
  /* Impulses (forces) in units of zs: rows W cols' is W's size (1 / mass), the cone's
     couplings (1, mu) are pure numbers, and Lemke drops a column's entries below 1e-11 of
     its largest as rounding: a 2-D box of 1e-300 kg (W ~ 1e300,
     tests/data/box_drop_tiny_mass_2d.json) lost its friction cone and stuck or slid as
     round-off had it. Where the largest diagonal lies outside [2^-20, 2^20] (the couplings
     then within 1e-6 of it, mu 1e-3 still 1e2 above that tolerance) the block is scaled by
     the power of 2 zs bringing it to about 1 and the impulses come back as zs y; inside,
     nothing changes (the same pivots, the same bits). */
  double zs = 1.0, dmax = 0.0;
  for (int i = 0; !rc && i < n; ++i) dmax = fmax(dmax, lcp.M[(size_t)i * n + i]);
  if (!rc && isfinite(dmax) && dmax > 0.0 && (dmax > 0x1p20 || dmax < 0x1p-20)) {
    int e;
    frexp(dmax, &e);
    zs = ldexp(1.0, -e);
    for (size_t i = 0; i < (size_t)n * n; ++i) lcp.M[i] *= zs;
  }
  for (int i = 0; !rc && i < k; ++i) {
    const LsimContact *ct = &ed->set.contacts[list[i]];
    const int v0 = fv[i];
    lcp.q[v0] = lsim_ed_dot(rows + (size_t)v0 * nv, u, nv) + (qn_add ? qn_add[i] : 0.0);
    if (ct->kind == LSIM_CONTACT_EQUALITY) lcp.q[v0 + 1] = -lcp.q[v0];
    if (!cone[i]) continue;
    const int lam = v0 + 1 + ct->ndir;
    for (int d = 0; d < ct->ndir; ++d) {
      lcp.q[v0 + 1 + d] = lsim_ed_dot(rows + (size_t)(v0 + 1 + d) * nv, u, nv) + (qd_add ? qd_add[v0 + 1 + d] : 0.0);
      lcp.M[(size_t)lam * n + v0 + 1 + d] = 1.0;   /* beta_d row: + lambda */
      lcp.M[(size_t)(v0 + 1 + d) * n + lam] = -1.0; /* lambda row: - beta_d */
    }
    lcp.M[(size_t)v0 * n + lam] = ct->mu;           /* lambda row: mu c_n */
    lcp.q[lam] = 0.0;
  }
  /* q >= 0 up to rounding (no entry below -1e-13 max|q|): z = 0, within the accuracy
     Lemke's acceptance asks (1e-12 max|q|), without pivoting. Lemke itself skips only
     q >= 0 exactly, and on the cone's degenerate rows (a direction row at -2.7e-17 from
     a free spin's gyroscopic round-off, its lambda row 0, the normal row at +1.44) it
     ended on a secondary ray: two balls spinning about their line of approach, plastic
     with friction, stopped the run at their impact. */
  double qmax = 0.0, qmin = 0.0;
  for (int i = 0; !rc && i < n; ++i) qmax = fmax(qmax, fabs(lcp.q[i])), qmin = fmin(qmin, lcp.q[i]);
  const int trivial = !rc && isfinite(qmax) && qmin >= -1e-13 * qmax;
  if (!rc && !trivial) {
    LsimLemkeOptions lo = lsim_default_lemke_options();
    lo.tol = 1e-12;
    LsimLemkeInfo info;
    memset(&info, 0, sizeof info);
    if (lsim_lemke_solve(ed->lemke, &lcp, &lo, NULL, z, &info) != LSIM_SOLVED) {
      /* Redundant contacts at rest (a stack's corners when its slide stops: q has equal
         normal entries and exact zeros on every direction row) tie in nearly every ratio
         test, and Lemke can break down or end on a ray among them. Then a perturbation
         q_i + 1e-10 max|q| (1 - i / 2n), distinct for every variable, separates the ties,
         and its z is kept when it solves the unperturbed LCP within 1e-9 max|q|. Charnes'
         2^-(i mod 16), repeating every 16 variables, broke down on two boxes' eight
         corners at rest on the ground (48 variables, q_n -9.81, direction rows 1e-40). */
      const int status = info.status;
      LsimLcp pert;
      memset(&pert, 0, sizeof pert);
      int ok = 0;
      double *w = malloc((size_t)n * sizeof(double));
      if (w && lsim_lcp_copy(&pert, &lcp) == 0) {
        for (int i = 0; i < n; ++i) pert.q[i] += 1e-10 * qmax * (1.0 - (double)i / (2.0 * n));
        for (int i = 0; i < n; ++i) z[i] = 0.0;
        if (lsim_lemke_solve(ed->lemke, &pert, &lo, NULL, z, &info) == LSIM_SOLVED) {
          LsimResidual res;
          lsim_lcp_residual(&lcp, z, w, &res);
          ok = res.relative <= 1e-9;
        }
      }
      /* Then Lemke on the Jacobi-scaled copy D M D y + D q (D_ii = 1 / sqrt(M_ii), 1 where
         M_ii <= 0: the cone rows), z = D y, kept when z solves the LCP within Lemke's own
         acceptance, 1e-12 max|q|. The lower box of a 3-box stack tipping on its edge,
         its two ground corners sliding (their columns N - mu s T: M is not copositive-plus,
         so Lemke has no guarantee) and the middle box's four corners sticking on it
         (coplanar: rank-deficient normals; every direction row's q 0 or 1e-28): 26
         variables (n3_g0.3_b0.6_a0.35_v5_o1 of scripts/event_stack_sweep.py at 0.155567
         s) and 32 (n3_g0.3_b0.6_a0.25_v5_o1 at 0.136145 s). Both are solvable (Siconos'
         Lemke and Newton-Fischer-Burmeister solve them to 1e-15 max|q|), but Lemke on the
         data as they are broke down after 54 pivots and ended on a ray after 66, the
         perturbed copies too; the scaled copies solve in 12 and 18 pivots (residuals
         1.3e-13 and 2.9e-15 max|q|): the diagonals range over 3.4-7.5 with zeros on the
         cone rows, and the ratio tests' near-ties among the coplanar corners then break
         the other way. */
      lsim_lcp_free(&pert);
      if (!ok && w && lsim_lcp_copy(&pert, &lcp) == 0) {
        double *dsc = malloc((size_t)n * sizeof(double));
        if (dsc) {
          for (int i = 0; i < n; ++i) {
            const double d = lcp.M[(size_t)i * n + i];
            dsc[i] = d > 0.0 ? 1.0 / sqrt(d) : 1.0;
          }
          for (int c = 0; c < n; ++c)
            for (int r = 0; r < n; ++r) pert.M[(size_t)c * n + r] = dsc[r] * lcp.M[(size_t)c * n + r] * dsc[c];
          for (int i = 0; i < n; ++i) pert.q[i] = dsc[i] * lcp.q[i], z[i] = 0.0;
          if (lsim_lemke_solve(ed->lemke, &pert, &lo, NULL, z, &info) == LSIM_SOLVED) {
            for (int i = 0; i < n; ++i) z[i] *= dsc[i];
            LsimResidual res;
            lsim_lcp_residual(&lcp, z, w, &res);
            ok = res.relative <= 1e-9; /* the perturbed copy's acceptance */
          }
          free(dsc);
        }
      }
      lsim_lcp_free(&pert);
      /* Last, the project's semismooth Newton solver ("newton", with its fallback chain),
         its z kept when it solves the LCP within the perturbed copy's 1e-9 max|q|.
         data/chain_20.json event-driven (20 pinned capsules landing on the ground: 19
         joints as +-J pairs and up to 40 contacts with cones, 120 to 148 variables, every
         tie of the chain's redundant supports in the ratio tests) broke down in all three
         Lemke runs at 0.683216 s; Newton solved each such LCP to 6e-13 to 7e-13 max|q|. */
      if (!ok && w) {
        if (!ed->fallback) {
          LsimSolverOptions so = lsim_default_solver_options();
          so.tol = 1e-12;
          so.fallback = 1;
          char e2[256];
          if (lsim_solver_create(&ed->fallback, "newton", &so, e2, sizeof e2)) ed->fallback = NULL;
        }
        if (ed->fallback) {
          for (int i = 0; i < n; ++i) z[i] = 0.0;
          LsimSolveStats stt;
          lsim_solver_solve(ed->fallback, &lcp, z, &stt);
          LsimResidual res;
          lsim_lcp_residual(&lcp, z, w, &res);
          ok = res.relative <= 1e-9;
        }
      }
      free(w);
      if (!ok) {
        snprintf(ed->msg, sizeof ed->msg, "Lemke failed on the %d-variable contact LCP (%s; perturbed, scaled: %s; newton: no solution)",
                 n, lsim_status_name(status), lsim_status_name(info.status));
        rc = LSIM_BREAKDOWN;
      }
    }
  }
  if (!rc && zs != 1.0) /* back to impulses: every variable but the cones' slacks */
    for (int i = 0; i < k; ++i) {
      const LsimContact *ct = &ed->set.contacts[list[i]];
      const int nz = ct->kind == LSIM_CONTACT_EQUALITY ? 2 : 1 + (cone[i] ? ct->ndir : 0);
      for (int j = 0; j < nz; ++j) z[fv[i] + j] *= zs;
    }
  if (!rc) {
    for (int d = 0; d < nv; ++d) ed->w1[d] = 0.0;
    for (int c = 0; c < n; ++c)
      for (int d = 0; d < nv; ++d) ed->w1[d] += cols[(size_t)c * nv + d] * z[c];
    lsim_ed_apply_w(ed, &ed->st, ed->w1, du);
  }
  lsim_lcp_free(&lcp);
  free(rows);
  free(cols);
  if (rc) {
    free(z);
    free(fv);
    return rc;
  }
  *zout = z;
  *first = fv;
  return 0;
}

/* The impact of the closed contacts list[0..k) (joint rows among them, as equalities) at
 * ed->st: Newton's law with each row's coefficient erow[i] when it approaches faster than
 * the model's threshold speed (else inelastic), the friction cone where cone[i];
 * ed->st.v gets the post-impact velocities. Simultaneous (ed->o.sequential 0): one LCP
 * over all of them (Stewart 2000, sec. 5). Sequential: the contact approaching fastest
 * (below -velocity_tol) goes through its own impact LCP with the joint rows, then the
 * next, until none approaches (pairwise impacts in sequence: a row of equal balls, e = 1,
 * passes the striker's velocity on to the last one); at most LSIM_MAX_SEQUENTIAL_IMPACTS,
 * beyond which LSIM_BREAKDOWN with ed->msg. When imp is not NULL, imp[i] gets row i's
 * total normal impulse (a joint row's signed impulse) and fimp[3 i] its friction impulse
 * on body[0]. *count: the LCPs solved. */
static int impact_phase(Ed *ed, int k, const int *list, const int *cone, const double *erow,
                        double *imp, double *fimp, int *count) {
  const int nv = ed->nv;
  int *sub = malloc(((size_t)k + 1) * sizeof(int) * 3);
  double *qadd = malloc(((size_t)k + 1) * sizeof(double) * 4);
  if (!sub || !qadd) {
    free(sub), free(qadd);
    return LSIM_OUT_OF_MEMORY;
  }
  int *subcone = sub + k + 1, *zero = subcone + k + 1;
  double *vn = qadd + k + 1, *sdir = vn + k + 1; /* sdir: no sliding columns, 2 k zeros */
  for (int i = 0; i < k; ++i) zero[i] = 0;
  if (imp) {
    for (int i = 0; i < k; ++i) imp[i] = fimp[3 * i] = fimp[3 * i + 1] = fimp[3 * i + 2] = 0.0;
  }
  int rc = 0, solved = 0;
  for (;;) {
    /* The contacts' normal velocities; the sequence's next contact is the fastest
       approaching one. */
    int next = -1, joint_moves = 0;
    for (int i = 0; i < k; ++i) {
      vn[i] = 0.0;
      lsim_ed_dense_row(ed, &ed->set, list[i], 0, ed->w2);
      const double u = lsim_ed_dot(ed->w2, ed->st.v, nv);
      if (ed->set.contacts[list[i]].kind == LSIM_CONTACT_EQUALITY) {
        joint_moves |= fabs(u) > ed->o.velocity_tol;
        continue;
      }
      vn[i] = u;
      if (vn[i] < -ed->o.velocity_tol && (next < 0 || vn[i] < vn[next])) next = i;
    }
    /* Simultaneous: one LCP, approaching or not (it also projects the joint rows'
       velocities); sequential: until nothing approaches, and once for joint rows that
       move when nothing does (the joints alone). */
    if (ed->o.sequential ? next < 0 && (solved > 0 || !joint_moves) : solved > 0) break;
    if (solved >= LSIM_MAX_SEQUENTIAL_IMPACTS) {
      snprintf(ed->msg, sizeof ed->msg,
               "sequential impacts: contacts still approach after %d pairwise impacts (%g m/s)",
               solved, vn[next]);
      rc = LSIM_BREAKDOWN;
      break;
    }
    /* The rows of this LCP: all of them (simultaneous), or the next contact and the
       joint rows (in list's order). */
    int ks = 0;
    for (int i = 0; i < k; ++i) {
      const int joint = ed->set.contacts[list[i]].kind == LSIM_CONTACT_EQUALITY;
      if (ed->o.sequential && !joint && i != next) continue;
      sub[ks] = list[i], subcone[ks] = joint ? 0 : cone[i];
      qadd[ks] = !joint && vn[i] < -ed->m->restitution_threshold ? erow[i] * vn[i] : 0.0;
      sdir[2 * ks] = sdir[2 * ks + 1] = 0.0;
      ++ks;
    }
    double *z = NULL;
    int *fv = NULL;
    double *dv = ed->a;
    rc = contact_lcp(ed, ks, sub, subcone, zero, sdir, ed->st.v, qadd, NULL, dv, &z, &fv);
    if (rc) break;
    ++solved;
    for (int d = 0; d < nv; ++d) ed->st.v[d] += dv[d];
    /* Impulses back onto the rows of list. */
    for (int j = 0, i = 0; imp && j < ks; ++j, ++i) {
      while (list[i] != sub[j]) ++i;
      const LsimContact *ct = &ed->set.contacts[list[i]];
      if (ct->kind == LSIM_CONTACT_EQUALITY) {
        imp[i] += z[fv[j]] - z[fv[j] + 1];
        continue;
      }
      imp[i] += z[fv[j]];
      if (!subcone[j]) continue;
      double cs[LSIM_MAX_DIRECTIONS], sn[LSIM_MAX_DIRECTIONS];
      lsim_cone_weights(ct->ndir, cs, sn);
      for (int d = 0; d < ct->ndir; ++d)
        for (int c3 = 0; c3 < 3; ++c3)
          fimp[3 * i + c3] += z[fv[j] + 1 + d] * (cs[d] * ct->tangent[0][c3] + sn[d] * ct->tangent[1][c3]);
    }
    free(z), free(fv);
  }
  if (count) *count = solved;
  free(sub), free(qadd);
  return rc;
}

/* The candidates at the state in ed->st (ed->set detected): every contact and tether,
 * modes carried over by id (new ones free). */
static int refresh_candidates(Ed *ed) {
  Cand *old = ed->cand;
  const int nold = ed->ncand;
  Cand *fresh = calloc((size_t)ed->set.count + 1, sizeof(Cand));
  if (!fresh) return LSIM_OUT_OF_MEMORY;
  int n = 0;
  for (int c = 0; c < ed->set.count; ++c) {
    const LsimContact *ct = &ed->set.contacts[c];
    if (ct->kind != LSIM_CONTACT_NORMAL && ct->kind != LSIM_CONTACT_TETHER &&
        ct->kind != LSIM_CONTACT_EQUALITY)
      continue;
    Cand cd = {.id = ct->id, .mode = ct->kind == LSIM_CONTACT_EQUALITY ? JOINT : FREE,
               .body = {ct->body[0], ct->body[1]}};
    cd.axis = lsim_ed_tangents(ed, ct) == 2 ? lsim_v3_tangent_axis(ct->normal) : -1;
    for (int i = 0; i < nold; ++i)
      if (old[i].id == ct->id) cd = old[i];
    cd.ref = lsim_ed_face_ref(ed, &ed->st, ct, &cd.order);
    lsim_ed_local_point(ed, &ed->st, cd.body[0], ct->point, cd.local);
    fresh[n++] = cd;
  }
  free(old);
  ed->cand = fresh;
  ed->ncand = n;
  ed->cand_cap = ed->set.count + 1;
  free(ed->idx);
  ed->idx = calloc((size_t)ed->cand_cap, sizeof(int));
  return ed->idx ? 0 : LSIM_OUT_OF_MEMORY;
}

/* The slides from rest that the flow's circular cone holds stick (resolve's last stage).
 * The acceleration LCP's cone is the polyhedral one of d directions (d = 4: a square
 * whose sides are 0.71 mu f_n from its centre), the flow's the circle |f_t| <= mu f_n of
 * the cone roots. A contact at rest whose friction is inside the circle but outside the
 * polygon was put into sliding along the polygon's side normal, and the flow then slid it
 * under friction mu f_n along -s: with less pulling it than mu f_n, friction itself drove
 * it backwards (a box pushed by 0.85 mu m g along a diagonal ran the other way at 0.52
 * m/s^2), or its slip stayed at round-off (1e-12 m/s) with its friction turning with it,
 * and CVODE's steps fell to 1e-13 s (the crawls of scripts/event_stack_sweep.py). So the
 * contacts at rest that the LCP slides (cone[j], newmode SLIDE, not the cone root's own
 * contact) are tried sticking, with the other contacts in their new modes, by the flow's
 * own evaluation at the event: those whose normal force and cone margin mu f_n - |f_t|
 * exceed the precision stick; the others slide as the LCP said, and the rest are tried
 * again without them, until no contact changes. An evaluation that fails leaves the
 * LCP's modes. */
static int circular_stick(Ed *ed, double t, const double *x, int kp, const int *ci,
                          const int *cone, int *newmode, double *news) {
  const int nc = ed->ncand;
  int *oldmode = malloc(((size_t)nc + 1) * sizeof(int) * 2);
  double *olds = malloc(((size_t)nc + 1) * sizeof(double) * 2);
  if (!oldmode || !olds) {
    free(oldmode), free(olds);
    return LSIM_OUT_OF_MEMORY;
  }
  int *trial = oldmode + nc + 1, ntrial = 0;
  for (int i = 0; i < nc; ++i) trial[i] = 0;
  for (int j = 0; j < kp; ++j) {
    const int i = ci[j];
    if (!cone[j] || newmode[i] != SLIDE || ed->cand[i].fired == R_CONE) continue;
    trial[i] = 1, ++ntrial;
  }
  for (int i = 0; i < nc; ++i) {
    oldmode[i] = ed->cand[i].mode, olds[2 * i] = ed->cand[i].s[0], olds[2 * i + 1] = ed->cand[i].s[1];
    ed->cand[i].mode = trial[i] ? STICK : newmode[i];
    ed->cand[i].s[0] = news[2 * i], ed->cand[i].s[1] = news[2 * i + 1];
  }
  while (ntrial > 0) {
    if (lsim_ed_evaluate(ed, t, x, ed->idx)) {
      ed->msg[0] = '\0';
      break;
    }
    int dropped = 0;
    for (int r = 0; r < ed->nr; ++r) {
      const int i = ed->r_cand[r];
      if (ed->r_which[r] != 0 || !trial[i]) continue;
      const LsimContact *ct = &ed->set.contacts[ed->idx[i]];
      const double fn = ed->lam[r] / ed->funit; /* in funit, for the precision */
      const double f0 = (r + 1 < ed->nr && ed->r_cand[r + 1] == i ? ed->lam[r + 1] : 0.0) / ed->funit;
      const double f1 = (r + 2 < ed->nr && ed->r_cand[r + 2] == i ? ed->lam[r + 2] : 0.0) / ed->funit;
      const double ft = hypot(f0, f1);
      if (fn > ed->o.precision && ct->mu * fn - ft > ed->o.precision) continue;
      trial[i] = 0, --ntrial, ++dropped;
      ed->cand[i].mode = SLIDE;
      /* The LCP's direction (on its square cone) more than 90 degrees off the friction
         the circle could not hold: it slides against that friction, as at a cone root.
         Along the LCP's (135 degrees off in n2_g0.3_b0.6_a0.35_v3.5_o0) the slip grew
         across s, its root started at 0 and never crossed, and the friction kept along
         s did positive work (docs/hybrid.md, "Energy rises"). */
      if (fn > ed->o.precision && ft > 0.0 && -(f0 * news[2 * i] + f1 * news[2 * i + 1]) < 0.0) {
        news[2 * i] = ed->cand[i].s[0] = -f0 / ft;
        news[2 * i + 1] = ed->cand[i].s[1] = -f1 / ft;
      }
    }
    if (!dropped) {
      /* Every contact tried holds: they stick. */
      for (int i = 0; i < nc; ++i)
        if (trial[i]) newmode[i] = STICK, news[2 * i] = news[2 * i + 1] = 0.0;
      break;
    }
  }
  for (int i = 0; i < nc; ++i)
    ed->cand[i].mode = oldmode[i], ed->cand[i].s[0] = olds[2 * i], ed->cand[i].s[1] = olds[2 * i + 1];
  free(oldmode), free(olds);
  return 0;
}

/* The persistent contacts the flow pulls lift off (resolve's last stage). The acceleration
 * LCP keeps a redundant support with zero force (its normal acceleration zero too: Lemke's
 * vertex), but the flow splits redundant forces by least norm, not as that vertex does,
 * and may give it a force that is zero or negative at the event and falls from there.
 * Its force root, starting at or below 0 (held there: the restart after an event), then
 * never crosses, and a sliding contact's friction -mu lam s with lam < 0 does positive
 * work (n2_g0.05_b0.3_a0.25_v2_o0 of scripts/event_stack_sweep.py: a contact admitted
 * at 0.642160704 s, -6.6e-11 N at the next event 4e-10 s on, -0.302 N by 0.6485 s, the
 * energy up 3.9e-5 J). So, with the new modes, the flow is evaluated at the event and at a
 * step PULL_PROBE along it: a persistent contact whose force is below -precision at the
 * event, or falls below -precision by the probe (its force crosses 0 within PULL_PROBE:
 * two contacts admitted at 3.9e-10 and 1.0e-10 N, falling at 34 N/s, crossed 1e-11 s
 * later where their split resolved no finer than the precision), is released, the one
 * pulled hardest first, then the rest evaluated again without it, until none is pulled
 * (releasing a force of at most its rate times PULL_PROBE that early moves the velocities
 * by less than that force times PULL_PROBE over the mass). A contact is released
 * only when its normal acceleration in the flow without it is not negative beyond
 * PULL_SINK of the free acceleration's scale: released, it separates or rolls on at zero
 * gap; one that would sink stays (the run then stops at its force root's jump, a
 * penetration or, pulling, at a sample: not silently). After a release the contacts kept
 * are tried again (without it they may no longer sink). PULL_SINK was 1e-9, a decision
 * made on round-off: n3_g0_b0.3_a0.35_v2_o0 of scripts/event_stack_sweep.py admitted two
 * sliding contacts of its top box at 0.692184 s, both pulled; 0x30000040548 released would
 * sink at 1.28e-9 m/s^2 and was kept, its partner was released, and it then pulled up to
 * -2.49 N until 0.8818 s, its friction adding 0.19 J. Sinking at 1e-6 m/s^2 takes 0.14 s
 * to go contact_tol (1e-8 m) deep and 1.4 s to go PENETRATION_TOL, where the sampler
 * stops the run. Every resolve decides the same way at the same
 * state, so a contact released here is not admitted again at once (the LCP's zero-force
 * rule alone admitted it again: liftoff and contact alternated at one time). An
 * evaluation that fails leaves the modes as they are. */
#define PULL_PROBE 1e-6 /* s: a falling force of 1e-4 N/s moves by the precision (1e-10 N) */
#define PULL_SINK 1e-6  /* of the free acceleration's scale (m/s^2 at 1): a released contact's
                           sinking that keeps it */
static int lift_pulled(Ed *ed, double t, const double *x, int *newmode, const double *news, int *closed) {
  const int nc = ed->ncand, nv = ed->nv, nq = ed->nq;
  int *oldmode = malloc(((size_t)nc + 1) * sizeof(int) * 2);
  double *dbl = malloc(((size_t)nc * 4 + 2 * (size_t)ed->n + 1) * sizeof(double));
  if (!oldmode || !dbl) {
    free(oldmode), free(dbl);
    return LSIM_OUT_OF_MEMORY;
  }
  int *tried = oldmode + nc + 1;
  double *olds = dbl, *lam0 = olds + 2 * (size_t)nc, *lam1 = lam0 + nc, *xp = lam1 + nc;
  for (int i = 0; i < nc; ++i) {
    oldmode[i] = ed->cand[i].mode, olds[2 * i] = ed->cand[i].s[0], olds[2 * i + 1] = ed->cand[i].s[1];
    ed->cand[i].mode = newmode[i], ed->cand[i].s[0] = news[2 * i], ed->cand[i].s[1] = news[2 * i + 1];
    tried[i] = 0;
  }
  const double prec = ed->o.precision;
  for (int iter = 0; iter < nc * (nc + 1); ++iter) {
    /* The normal forces at the event and at the probe. */
    for (int i = 0; i < nc; ++i) lam0[i] = lam1[i] = HUGE_VAL;
    if (lsim_ed_evaluate(ed, t, x, ed->idx)) break;
    for (int r = 0; r < ed->nr; ++r)
      if (ed->r_which[r] == 0) lam0[ed->r_cand[r]] = ed->lam[r] / ed->funit; /* funit */
    lsim_ed_qdot(ed, &ed->st, xp + ed->n);
    for (int k = 0; k < nq; ++k) xp[k] = x[k] + PULL_PROBE * xp[ed->n + k];
    for (int d = 0; d < nv; ++d) xp[nq + d] = x[nq + d] + PULL_PROBE * ed->a[d];
    if (lsim_ed_evaluate(ed, t + PULL_PROBE, xp, ed->idx)) break;
    for (int r = 0; r < ed->nr; ++r)
      if (ed->r_which[r] == 0) lam1[ed->r_cand[r]] = ed->lam[r] / ed->funit;
    /* The contact pulled hardest. */
    int pick = -1;
    for (int i = 0; i < nc; ++i) {
      const Cand *cd = &ed->cand[i];
      if (tried[i] || (cd->mode != STICK && cd->mode != SLIDE) || ed->idx[i] < 0 ||
          ed->set.contacts[ed->idx[i]].kind != LSIM_CONTACT_NORMAL)
        continue;
      const int pulled = lam0[i] < -prec || (lam1[i] < -prec && lam1[i] < lam0[i]);
      if (pulled && (pick < 0 || lam1[i] < lam1[pick])) pick = i;
    }
    if (pick < 0) break;
    tried[pick] = 1;
    /* Released: its normal acceleration without it. */
    const int keep = ed->cand[pick].mode;
    ed->cand[pick].mode = FREE;
    if (lsim_ed_evaluate(ed, t, x, ed->idx)) {
      ed->cand[pick].mode = keep;
      break;
    }
    const int c = ed->idx[pick], zero = 0;
    double jd = 0.0;
    if (c < 0 || lsim_ed_curvature(ed, &ed->st, 1, &pick, &zero, &jd)) {
      ed->cand[pick].mode = keep;
      break;
    }
    lsim_ed_dense_row(ed, &ed->set, c, 0, ed->w2);
    const double acc_n = lsim_ed_dot(ed->w2, ed->a, nv) + jd;
    const double scale = 1.0 + fabs(lsim_ed_dot(ed->w2, ed->a_free, nv));
    if (acc_n < -PULL_SINK * scale) ed->cand[pick].mode = keep;
    else {
      /* Released: those kept before are tried again without it. */
      newmode[pick] = FREE;
      if (oldmode[pick] == FREE) closed[pick] = 2; /* admitted at zero force, pulled: grazing */
      for (int i = 0; i < nc; ++i) tried[i] = 0;
    }
  }
  ed->msg[0] = '\0';
  for (int i = 0; i < nc; ++i)
    ed->cand[i].mode = oldmode[i], ed->cand[i].s[0] = olds[2 * i], ed->cand[i].s[1] = olds[2 * i + 1];
  free(oldmode), free(dbl);
  /* The event's contacts again (the stages after this one read them). */
  lsim_ed_load(ed, &ed->st, t, x);
  return lsim_ed_detect(ed, &ed->st, &ed->set, 0);
}

/* The velocities at ed->st projected onto the persistent rows' rest, J v = 0 (normal rows
 * of persistent contacts and taut tethers, sticking contacts' tangent rows, joint rows),
 * when a persistent contact's normal velocity exceeds velocity_tol (a rebound below
 * v_rest kept: resolve). The projection is W-orthogonal (v+ = v + W J' lambda,
 * J W J' lambda = -J v, least-norm): the impulse of a plastic impact on those rows, which
 * never adds kinetic energy. Without it the row's Baumgarte term would carry the rebound
 * (4e-4 m/s) up to a gap of 1.6e-5 m before closing it. x's velocities are updated. */
static int project_rest(Ed *ed, double *x) {
  const int nv = ed->nv;
  int nrow = 0, slow = 0;
  for (int i = 0; i < ed->ncand; ++i) {
    const Cand *cd = &ed->cand[i];
    if (cd->mode == FREE) continue;
    const int c = lsim_ed_find(&ed->set, cd->id);
    if (c < 0) continue;
    nrow += 1 + (cd->mode == STICK ? lsim_ed_tangents(ed, &ed->set.contacts[c]) : 0);
    if (ed->set.contacts[c].kind != LSIM_CONTACT_NORMAL) continue;
    lsim_ed_dense_row(ed, &ed->set, c, 0, ed->w2);
    slow += lsim_ed_dot(ed->w2, ed->st.v, nv) > ed->o.velocity_tol;
  }
  if (!slow) return 0;
  double *J = malloc(((size_t)nrow * nv + 1) * sizeof(double));
  double *WJ = malloc(((size_t)nrow * nv + 1) * sizeof(double));
  double *A = malloc(((size_t)nrow * nrow + 1) * sizeof(double));
  double *lam = malloc(((size_t)nrow + 1) * sizeof(double));
  double *work = malloc((2 * (size_t)nrow * nrow + 2 * (size_t)nrow + 1) * sizeof(double));
  int rc = (!J || !WJ || !A || !lam || !work) ? LSIM_OUT_OF_MEMORY : 0;
  int r = 0;
  for (int i = 0; !rc && i < ed->ncand; ++i) {
    const Cand *cd = &ed->cand[i];
    const int c = cd->mode == FREE ? -1 : lsim_ed_find(&ed->set, cd->id);
    if (c < 0) continue;
    const int nt = cd->mode == STICK ? lsim_ed_tangents(ed, &ed->set.contacts[c]) : 0;
    for (int w = 0; w <= nt; ++w, ++r) lsim_ed_dense_row(ed, &ed->set, c, w, J + (size_t)r * nv);
  }
  for (int a = 0; !rc && a < nrow; ++a) {
    lsim_ed_apply_w(ed, &ed->st, J + (size_t)a * nv, WJ + (size_t)a * nv);
    lam[a] = -lsim_ed_dot(J + (size_t)a * nv, ed->st.v, nv);
  }
  for (int a = 0; !rc && a < nrow; ++a)
    for (int b = 0; b < nrow; ++b) A[(size_t)a * nrow + b] = lsim_ed_dot(J + (size_t)a * nv, WJ + (size_t)b * nv, nv);
  if (!rc && lsim_ed_psd_solve(A, lam, nrow, work)) {
    snprintf(ed->msg, sizeof ed->msg, "singular rows projecting a rebound below v_rest to rest");
    rc = LSIM_BREAKDOWN;
  }
  for (int a = 0; !rc && a < nrow; ++a)
    for (int d = 0; d < nv; ++d) ed->st.v[d] += WJ[(size_t)a * nv + d] * lam[a];
  if (!rc) memcpy(x + ed->nq, ed->st.v, (size_t)nv * sizeof(double));
  free(J), free(WJ), free(A), free(lam), free(work);
  return rc;
}

/* Resolves the event at (t, x): impacts, then the modes. x is updated (velocities). */
static int resolve(Ed *ed, double t, double *x) {
  lsim_ed_load(ed, &ed->st, t, x);
  int rc = lsim_ed_detect(ed, &ed->st, &ed->set, 0);
  if (!rc) rc = refresh_candidates(ed);
  if (rc) return rc;
  const int nc = ed->ncand, nv = ed->nv;
  int *list = malloc(((size_t)nc + 1) * sizeof(int) * 4);
  double *dbl = malloc(((size_t)nc + 1) * sizeof(double) * 4);
  if (!list || !dbl) {
    free(list);
    free(dbl);
    return LSIM_OUT_OF_MEMORY;
  }
  int *cone = list + nc + 1, *slide = cone + nc + 1, *ci = slide + nc + 1;
  double *qadd = dbl, *sdir = dbl + nc + 1;
  double *z = NULL;
  int *fv = NULL;

  /* Impact: the closed contacts, if any approaches, or if a joint row moves (a start off
     the joints' velocity constraint: the time step takes it in its first step; left to
     Baumgarte's position term, a rod started 0.2 m/s off its pin drifted 7e-3 m from it
     and gained energy). */
  int k = 0, approaching = 0, joint_moves = 0;
  for (int i = 0; i < nc; ++i) {
    const int c = lsim_ed_find(&ed->set, ed->cand[i].id);
    const LsimContact *ct = &ed->set.contacts[c];
    if (ed->cand[i].mode == JOINT) {
      /* Joint rows take part in every impact as equalities (their velocities stay zero). */
      list[k] = c, ci[k] = i, cone[k] = 0, slide[k] = 0, qadd[k] = 0.0;
      ++k;
      lsim_ed_dense_row(ed, &ed->set, c, 0, ed->w2);
      if (fabs(lsim_ed_dot(ed->w2, ed->st.v, nv)) > ed->o.velocity_tol) joint_moves = 1;
      continue;
    }
    lsim_ed_dense_row(ed, &ed->set, c, 0, ed->w2);
    const double vn = lsim_ed_dot(ed->w2, ed->st.v, nv);
    /* Closed, or closing within NEAR_IMPACT_TIME (and NEAR_IMPACT_GAP) at this event's
       impact: one impact LCP for both. Impacted apart, a box's second corner landing
       3e-8 m behind the first was left approaching at 2.8 m/s after the first's impact,
       and the pair's gap root, held at the first's 0, never saw it close. */
    const int near = vn < -ed->o.velocity_tol && ct->gap <= fmin(NEAR_IMPACT_GAP, -vn * NEAR_IMPACT_TIME);
    if (ct->gap > ed->o.contact_tol && !near) continue;
    list[k] = c, ci[k] = i, cone[k] = lsim_ed_tangents(ed, ct) > 0, slide[k] = 0;
    double e = ct->kind == LSIM_CONTACT_TETHER ? 0.0 : lsim_pair_restitution(ed->m, ct->body[0], ct->body[1]);
    if (vn < -ed->o.velocity_tol) {
      ++approaching;
      Chatter *ch = chatter(ed, ct->id);
      if (!ch) rc = LSIM_OUT_OF_MEMORY;
      else {
        if (t - ch->first > ed->o.chatter_window) ch->first = t, ch->count = 0;
        if (++ch->count >= ed->o.chatter_events && !ch->inelastic && e > 0.0) {
          ch->inelastic = 1;
          if (!rc) rc = log_event(ed, t, LSIM_EVENT_PERSISTENT, &ed->cand[i]);
        }
        if (ch->inelastic) e = 0.0;
      }
      if (!rc) rc = log_event(ed, t, LSIM_EVENT_IMPACT, &ed->cand[i]);
    }
    qadd[k] = e; /* the row's coefficient (impact_phase applies the threshold speed) */
    ++k;
  }
  if (!rc && (approaching > 0 || joint_moves)) {
    rc = impact_phase(ed, k, list, cone, qadd, NULL, NULL, NULL);
    if (!rc) memcpy(x + ed->nq, ed->st.v, (size_t)nv * sizeof(double));
  }

  /* The closed contacts (those that stay free are released: resolve's end). */
  int *closed = calloc((size_t)nc + 1, sizeof(int));
  if (!closed) rc = LSIM_OUT_OF_MEMORY;
  for (int j = 0; !rc && j < k; ++j) closed[ci[j]] = 1;
  for (int i = 0; i < nc; ++i) ed->cand[i].released = 0;

  /* Modes: the closed contacts at rest in the normal direction, by the acceleration LCP.
     At rest: separating no faster than velocity_tol, or after an impact than v_rest, the
     speed that lifts a contact by contact_tol under gravity (sqrt(2 |g| contact_tol),
     4.4e-4 m/s at the defaults). A slower rebound stays within the closed band: a box rocking
     on two corners (e = 0, Housner's block) impacts them in turn at geometrically
     shrinking intervals, 3.8e-3 s down to 3.3e-7 s, until the rebound's flight was
     below what an event can locate and the box sank through the ground; the LCP now
     keeps such a contact (its rebound then removed: project_rest) or lets it lift off
     with a positive normal acceleration. */
  const double v_rest = approaching > 0 ? fmax(ed->o.velocity_tol, sqrt(2.0 * lsim_v3_norm(ed->m->gravity) * ed->o.contact_tol))
                                         : ed->o.velocity_tol;
  int kp = 0;
  for (int j = 0; !rc && j < k; ++j) {
    const int c = list[j];
    const LsimContact *ct = &ed->set.contacts[c];
    lsim_ed_dense_row(ed, &ed->set, c, 0, ed->w2);
    const double vn = lsim_ed_dot(ed->w2, ed->st.v, nv);
    if (vn > v_rest && ed->cand[ci[j]].mode != JOINT) continue; /* separating: free */
    double vt[2];
    lsim_ed_slip_velocity(ed, &ed->set, c, ed->st.v, vt);
    const double sp = hypot(vt[0], vt[1]);
    list[kp] = c, ci[kp] = ci[j];
    /* A slide whose direction root ended the segment slides along its slip, however
       slow (at rest, the LCP's cone would give it the direction it left again). */
    const int turned = ed->cand[ci[j]].fired == R_DIR && sp > 0.0;
    cone[kp] = lsim_ed_tangents(ed, ct) > 0 && sp <= ed->o.velocity_tol && !turned;
    slide[kp] = lsim_ed_tangents(ed, ct) > 0 && (sp > ed->o.velocity_tol || turned);
    sdir[2 * kp] = slide[kp] ? vt[0] / sp : 0.0, sdir[2 * kp + 1] = slide[kp] ? vt[1] / sp : 0.0;
    ++kp;
  }
  int *newmode = calloc((size_t)nc + 1, sizeof(int));
  double *news = calloc(2 * (size_t)nc + 2, sizeof(double));
  if (!newmode || !news) rc = LSIM_OUT_OF_MEMORY;
  if (!rc && kp > 0) {
    /* q = rows a_free + curvature (+ Baumgarte on the normal rows, as in the flow). */
    lsim_ed_free_acceleration(ed, &ed->st, ed->a_free);
    int nrow = 0;
    for (int j = 0; j < kp; ++j) nrow += 1 + (cone[j] ? ed->set.contacts[list[j]].ndir + 1 : 0);
    int *rcand = malloc((size_t)nrow * sizeof(int) + 1), *rwhich = malloc((size_t)nrow * sizeof(int) + 1);
    double *jd = calloc((size_t)nrow + 1, sizeof(double));
    if (!rcand || !rwhich || !jd) rc = LSIM_OUT_OF_MEMORY;
    /* Curvature of the normal rows (the direction rows' is taken as zero: contacts at
       rest in the tangent plane). */
    for (int j = 0; !rc && j < kp; ++j) rcand[j] = ci[j], rwhich[j] = 0;
    if (!rc) rc = lsim_ed_curvature(ed, &ed->st, kp, rcand, rwhich, jd);
    for (int j = 0; !rc && j < kp; ++j) {
      lsim_ed_dense_row(ed, &ed->set, list[j], 0, ed->w2);
      const double vn = lsim_ed_dot(ed->w2, ed->st.v, nv);
      /* A rebound below v_rest counts as rest (project_rest removes it if it stays). */
      qadd[j] = jd[j] + 2.0 * (vn > ed->o.velocity_tol ? 0.0 : vn) / T_STAB +
                ed->set.contacts[list[j]].gap / (T_STAB * T_STAB);
    }
    free(rcand), free(rwhich), free(jd);
    double *acc = malloc((size_t)nv * sizeof(double) + 1);
    if (!rc && !acc) rc = LSIM_OUT_OF_MEMORY;
    if (!rc) rc = contact_lcp(ed, kp, list, cone, slide, sdir, ed->a_free, qadd, NULL, acc, &z, &fv);
    if (!rc) {
      for (int d = 0; d < nv; ++d) acc[d] += ed->a_free[d];
      /* Forces above a relative 1e-9 of the largest keep their contacts. */
      double fmax_ = 0.0;
      for (int j = 0; j < kp; ++j)
        if (ed->cand[ci[j]].mode != JOINT) fmax_ = fmax(fmax_, z[fv[j]]);
      for (int j = 0; j < kp; ++j) {
        const int i = ci[j];
        if (ed->cand[i].mode == JOINT) {
          newmode[i] = JOINT;
          continue;
        }
        /* Lifts off when its force is zero and its normal acceleration positive (a
           redundant support with zero force in Lemke's vertex solution stays). */
        lsim_ed_dense_row(ed, &ed->set, list[j], 0, ed->w2);
        const double acc_n = lsim_ed_dot(ed->w2, acc, nv) + qadd[j], scale = 1.0 + fabs(lsim_ed_dot(ed->w2, ed->a_free, nv));
        /* A contact whose force root ended the segment lifts off with zero force: its
           normal acceleration grows from 0 there (the force crossed zero smoothly), so
           at the located point it is only round-off above zero. So does one whose force is
           within the precision of zero there (the LCP's force too): with every force that
           small, a relative test cannot tell them from zero. */
        const int forced = ed->cand[i].fired;
        if (forced == R_FORCE && !(z[fv[j]] / ed->funit > ed->o.precision)) continue;
        if (!(z[fv[j]] > 1e-9 * fmax_ && fmax_ > 0.0) && (acc_n > 1e-9 * scale || forced == R_FORCE)) {
          if (acc_n <= PULL_SINK * scale) closed[i] = 2; /* free by a hair: grazing (below) */
          continue;
        }
        if (slide[j]) {
          newmode[i] = SLIDE, news[2 * i] = sdir[2 * j], news[2 * i + 1] = sdir[2 * j + 1];
          continue;
        }
        newmode[i] = STICK;
        if (!cone[j]) continue;
        /* A contact whose cone root ended the segment slides against the flow's friction
           there (on the circle mu f_n the root locates), not the LCP's: that lies on the
           polygon of d directions (d = 4: a square), and its side normals or vertices
           are up to 45 degrees off. */
        const double *cft = ed->cand[i].ft, cfn = hypot(cft[0], cft[1]);
        if (forced == R_CONE && cfn > 0.0) {
          newmode[i] = SLIDE, news[2 * i] = -cft[0] / cfn, news[2 * i + 1] = -cft[1] / cfn;
          continue;
        }
        /* Sticking unless the cone's slack (the slip acceleration) is positive. */
        const LsimContact *ct = &ed->set.contacts[list[j]];
        const double slack = z[fv[j] + 1 + ct->ndir];
        if (slack > 1e-9 * (1.0 + fabs(ct->mu * z[fv[j]]))) {
          double at[2];
          lsim_ed_slip_velocity(ed, &ed->set, list[j], acc, at);
          const double an = hypot(at[0], at[1]);
          if (an > 0.0) newmode[i] = SLIDE, news[2 * i] = at[0] / an, news[2 * i + 1] = at[1] / an;
        } else {
          /* The slip acceleration is zero. A contact whose cone root ended the segment
             (the friction it needs has just reached mu f_n), or one whose slide has just
             started (its segment started at a slip speed within velocity_tol) and whose
             friction stays on the cone's boundary (sum of the directions' impulses at
             mu c_n), slides against its friction force (maximal dissipation): at that
             point the LCP sees the slip only at round-off. Otherwise it sticks: a slide
             that came to rest with redundant partners (a box's four corners stopping
             together, one slip root through 0, the others within round-off of it) whose
             shared friction the LCP's vertex puts on its cone's boundary. Kept sliding,
             its friction's direction came from a slip velocity of round-off (1e-14 m/s)
             and the partners' force and cone roots jumped by 1e-5 N to 1e-4 N between
             evaluations 1e-16 s apart (tests/test_event_driven.c, test_stack_stops_together). */
          double cs[LSIM_MAX_DIRECTIONS], sn[LSIM_MAX_DIRECTIONS], ft[2] = {0.0, 0.0}, sum = 0.0;
          lsim_cone_weights(ct->ndir, cs, sn);
          for (int d = 0; d < ct->ndir; ++d) {
            const double beta = z[fv[j] + 1 + d];
            ft[0] += beta * cs[d], ft[1] += beta * sn[d], sum += beta;
          }
          const int on_boundary = sum > 0.0 && sum >= (1.0 - 1e-9) * ct->mu * z[fv[j]];
          const double fn = hypot(ft[0], ft[1]);
          if (fn > 0.0 && (forced == R_CONE || (on_boundary && ed->cand[i].mode == SLIDE &&
                                         !(ed->cand[i].v_start > ed->o.velocity_tol))))
            newmode[i] = SLIDE, news[2 * i] = -ft[0] / fn, news[2 * i + 1] = -ft[1] / fn;
        }
      }
    }
    free(acc);
    free(z), free(fv);
  }
  if (!rc) rc = circular_stick(ed, t, x, kp, ci, cone, newmode, news);
  if (!rc && kp > 0) rc = lift_pulled(ed, t, x, newmode, news, closed);
  /* Log the changes of mode. */
  for (int i = 0; !rc && i < nc; ++i) {
    Cand *cd = &ed->cand[i];
    const int was = cd->mode, now = newmode[i];
    if (was == FREE && now != FREE) rc = log_event(ed, t, LSIM_EVENT_CONTACT, cd);
    else if (was != FREE && now == FREE) rc = log_event(ed, t, LSIM_EVENT_LIFTOFF, cd);
    else if (was == SLIDE && now == STICK) rc = log_event(ed, t, LSIM_EVENT_STICK, cd);
    else if (was == STICK && now == SLIDE) rc = log_event(ed, t, LSIM_EVENT_SLIP, cd);
    cd->mode = now;
    cd->s[0] = news[2 * i], cd->s[1] = news[2 * i + 1];
    if (now == FREE && closed[i] && (approaching > 0 || (was == FREE && closed[i] == 2))) {
      /* Released after an impact at about rest (project_rest's v_rest): pair_gap. So is a
         free contact closed at rest at an event that the LCP leaves free with a normal
         acceleration within PULL_SINK of its scale (a grazing contact, lifting by
         round-off): its pair's root, at 0 and held there, did not see it sink when the
         flow's acceleration turned negative (data/chain_20.json event-driven: link17's end
         0x130000010000 on the ground, free at 0.477387 s with gap -7e-17 m and 2.8e-8
         m/s^2, 1.4e-6 m deep by 0.48 s); now it is located at -contact_tol, where the LCP
         decides again on a clear approach. Every free contact closed at rest released so
         stopped test_slide_from_rest_turns's run on a force root jump. */
      const int c = lsim_ed_find(&ed->set, cd->id);
      lsim_ed_dense_row(ed, &ed->set, c, 0, ed->w2);
      cd->released = ed->set.contacts[c].kind == LSIM_CONTACT_NORMAL && lsim_ed_dot(ed->w2, ed->st.v, nv) <= v_rest;
    }
    /* The depth of a contact that lifts off inside its partner (sink), kept while it is
       free and decreasing as it rises at later events: its pair counts its gap from
       there. */
    if (now != FREE) cd->sink = 0.0;
    else {
      const int c = lsim_ed_find(&ed->set, cd->id);
      const double depth = c >= 0 && ed->set.contacts[c].kind == LSIM_CONTACT_NORMAL ? -ed->set.contacts[c].gap : 0.0;
      cd->sink = was != FREE ? (depth > ed->o.contact_tol ? depth : 0.0) : fmin(cd->sink, fmax(depth, 0.0));
    }
    if (now == FREE) {
      Chatter *ch = chatter(ed, cd->id);
      if (ch && was != FREE) ch->inelastic = 0, ch->count = 0; /* lifted off: bounces anew */
    }
  }
  /* A kept tangent basis whose normal has turned to within 26 degrees of its axis (|n . a|
     > 0.9, where a x n shrinks) takes detection's again, s turned into it. */
  int turned_basis = 0;
  for (int i = 0; !rc && i < nc; ++i) {
    Cand *cd = &ed->cand[i];
    const int c = cd->axis >= 0 ? lsim_ed_find(&ed->set, cd->id) : -1;
    if (c < 0 || !(fabs(ed->set.contacts[c].normal[cd->axis]) > 0.9)) continue;
    const LsimContact *ct = &ed->set.contacts[c];
    double u[3], t1[3], t2[3];
    for (int d = 0; d < 3; ++d) u[d] = cd->s[0] * ct->tangent[0][d] + cd->s[1] * ct->tangent[1][d];
    cd->axis = lsim_v3_tangent_axis(ct->normal);
    lsim_v3_tangents_about(ct->normal, cd->axis, t1, t2);
    cd->s[0] = lsim_v3_dot(u, t1), cd->s[1] = lsim_v3_dot(u, t2);
    turned_basis = 1;
  }
  if (!rc && turned_basis) rc = lsim_ed_detect(ed, &ed->st, &ed->set, 0);
  if (!rc) rc = project_rest(ed, x);
  free(newmode), free(news), free(closed);
  free(list), free(dbl);
  return rc;
}

/* 1 when a sliding contact leaves the event at (ed->st, ed->set) slipping faster than
 * velocity_tol against its direction s (v_t . s < 0: its friction -mu f_n s does positive
 * work). project_rest moves the slip of sliding contacts freely (it holds normal rows and
 * sticking tangent rows only), so a slide the LCP started from rest along s can leave the
 * event slipping across or against s. Its slip root v_t . s then starts below 0 and never
 * crosses, and where v_t . s reaches -SLIP_BLEND the flow's friction direction turns by
 * up to 90 degrees at once (n3_g0.3_b0.6_a0.35_v5_o1 of scripts/event_stack_sweep.py at
 * 0.15697752 s: 2.56e-5 m/s with v_t . s = -2.5e-5, a ground corner's cone root jumping
 * by 1.2 N at 0.156986 s). Such an event is resolved again from the projected velocities,
 * where that contact's slip is above velocity_tol and its slide takes s along it. */
static int slides_against_slip(Ed *ed) {
  for (int i = 0; i < ed->ncand; ++i) {
    const Cand *cd = &ed->cand[i];
    if (cd->mode != SLIDE) continue;
    const int c = lsim_ed_find(&ed->set, cd->id);
    if (c < 0) continue;
    double vt[2];
    lsim_ed_slip_velocity(ed, &ed->set, c, ed->st.v, vt);
    if (hypot(vt[0], vt[1]) > ed->o.velocity_tol && vt[0] * cd->s[0] + vt[1] * cd->s[1] < 0.0) return 1;
  }
  return 0;
}

/* resolve, then again while a slide leaves the event slipping against s
 * (slides_against_slip; the second pass starts from the projected velocities, where no
 * persistent contact approaches, so it projects nothing more: two passes at most, a third
 * allowed). x is updated. */
static int resolve_event(Ed *ed, double t, double *x) {
  int rc = resolve(ed, t, x);
  for (int pass = 0; !rc && pass < 2 && slides_against_slip(ed); ++pass) rc = resolve(ed, t, x);
  return rc;
}

/* The step bound (lsim_ode_set_step_bound): a step may close no pair's gap by more than
 * that gap, or than a sixteenth of the pair's thinner half thickness (at least 1 mm) when
 * the gap is smaller, at the largest speed of the pair's points (plus what gravity adds
 * over a largest step). Roots are seen only at steps' ends: without the bound a ball went
 * through a 1 cm wall within one 10 ms step, and one grazing a sphere by 1 mm passed it. */
static double step_bound(double t, const double *x, void *user) {
  (void)t;
  Ed *ed = user;
  const LsimModel *m = ed->m;
  const double hmax = ed->o.max_step > 0.0 ? ed->o.max_step : 1e-2;
  const double dv = lsim_v3_norm(m->gravity) * hmax;
  double h = INFINITY;
  for (int p = 0; p < ed->npairs; ++p) {
    const int a = ed->pairs[2 * p], b = ed->pairs[2 * p + 1];
    const double *v = x + ed->nq;
    const double sa = lsim_body_speed_bound(m, a, v), sb = lsim_body_speed_bound(m, b, v);
    const double c = sa + sb + (m->bodies[a].nv > 0 ? dv : 0.0) + (m->bodies[b].nv > 0 ? dv : 0.0);
    if (!(c > 0.0)) continue;
    const double w = fmax(fmin(ed->thick[a], ed->thick[b]), 1e-3);
    h = fmin(h, fmax(fmax(ed->pair_g[p], 0.0), w / 16.0) / c);
  }
  return h;
}

/* ed->msg <- the engine's message, with the root it names ("root K: ...") said as what
 * it is: "root K (cone of contact ID, bodies A-B, stick): ..." (the scene's body indices;
 * the contact's mode in the segment). */
static void name_root(Ed *ed, const char *m) {
  static const char *const kinds[] = {"gap", "force", "cone", "slip", "pair", "edge", "role", "direction"};
  static const char *const modes[] = {"free", "stick", "slide", "joint"};
  int k = -1, len = 0;
  if (sscanf(m, "root %d:%n", &k, &len) != 1 || len == 0 || k < 0 || k >= ed->nroots) {
    snprintf(ed->msg, sizeof ed->msg, "%s", m);
    return;
  }
  const int kind = ed->root_kind[k], i = ed->root_cand[k];
  if (kind == R_PAIR)
    snprintf(ed->msg, sizeof ed->msg, "root %d (pair gap of bodies %d-%d):%s", k, ed->pairs[2 * i],
             ed->pairs[2 * i + 1], m + len);
  else
    snprintf(ed->msg, sizeof ed->msg, "root %d (%s of contact %#llx, bodies %d-%d, %s):%s", k,
             kinds[kind], (unsigned long long)ed->cand[i].id, ed->cand[i].body[0],
             ed->cand[i].body[1], modes[ed->cand[i].mode], m + len);
}

/* The roots of the segment from the modes. */
static int set_roots(Ed *ed, LsimOde *ode) {
  /* The body pairs that may touch: every pair ALL detection lists. */
  if (lsim_detect_contacts(&ed->ma, &ed->st, ed->st.v, &ed->fset)) return LSIM_OUT_OF_MEMORY;
  ed->npairs = 0;
  for (int c = 0; c < ed->fset.count; ++c) {
    const LsimContact *ct = &ed->fset.contacts[c];
    int seen = 0;
    for (int p = 0; p < ed->npairs && !seen; ++p)
      seen = ed->pairs[2 * p] == ct->body[0] && ed->pairs[2 * p + 1] == ct->body[1];
    if (seen || ct->kind != LSIM_CONTACT_NORMAL) continue;
    if (lsim_ed_grow((void **)&ed->pairs, &ed->pairs_cap, 2 * ed->npairs + 2, sizeof(int)) ||
        lsim_ed_grow((void **)&ed->pair_g, &ed->pair_g_cap, ed->npairs + 1, sizeof(double)))
      return LSIM_OUT_OF_MEMORY;
    ed->pairs[2 * ed->npairs] = ct->body[0], ed->pairs[2 * ed->npairs + 1] = ct->body[1];
    ed->pair_g[ed->npairs] = FAR_MARGIN; /* until the roots are evaluated */
    ed->npairs++;
  }
  const int need = 5 * ed->ncand + ed->npairs + 1;
  if (need > ed->roots_cap) {
    int *a = realloc(ed->root_cand, (size_t)need * sizeof(int));
    if (a) ed->root_cand = a;
    int *b = realloc(ed->root_kind, (size_t)need * sizeof(int));
    if (b) ed->root_kind = b;
    if (!a || !b) return LSIM_OUT_OF_MEMORY;
    ed->roots_cap = need;
  }
  int n = 0;
  int *dir = malloc((size_t)need * sizeof(int));
  if (!dir) return LSIM_OUT_OF_MEMORY;
  for (int i = 0; i < ed->ncand; ++i) {
    const Cand *cd = &ed->cand[i];
    const int c = lsim_ed_find(&ed->set, cd->id);
    const int nt = c >= 0 ? lsim_ed_tangents(ed, &ed->set.contacts[c]) : 0;
    if (cd->mode == FREE) {
      /* Tethers by their slack; contacts through their pair's root below. */
      if (c >= 0 && ed->set.contacts[c].kind == LSIM_CONTACT_TETHER)
        ed->root_cand[n] = i, ed->root_kind[n] = R_GAP, dir[n++] = LSIM_ODE_FALLING;
      continue;
    }
    if (cd->mode == JOINT) continue; /* an equality: its force is free in sign, never ends */
    ed->root_cand[n] = i, ed->root_kind[n] = R_FORCE, dir[n++] = LSIM_ODE_FALLING;
    if (cd->mode == STICK && nt > 0) ed->root_cand[n] = i, ed->root_kind[n] = R_CONE, dir[n++] = LSIM_ODE_FALLING;
    if (cd->mode == SLIDE) {
      ed->root_cand[n] = i, ed->root_kind[n] = R_SLIP, dir[n++] = LSIM_ODE_FALLING;
      double vt[2];
      lsim_ed_slip_velocity(ed, &ed->set, c, ed->st.v, vt);
      ed->cand[i].v_start = hypot(vt[0], vt[1]);
      /* A 3-D slide from rest: its direction root (R_DIR; not one its pair's sticking
         contact holds along s, whose friction never turns). */
      if (nt == 2 && ed->cand[i].v_start <= ed->o.velocity_tol && !lsim_ed_slide_held(ed, cd))
        ed->root_cand[n] = i, ed->root_kind[n] = R_DIR, dir[n++] = LSIM_ODE_FALLING;
    }
    /* A face vertex leaving its faces (a corner passing an edge), or detection turning to
       the other face as its reference (its normal by the faces' angle): the contact set
       changes. Two roots: the role sits flat at 5e-10 m while the faces lie flat, and
       its least with the margin left a kink there that regula falsi crawled past. */
    if (cd->ref >= 0) {
      ed->root_cand[n] = i, ed->root_kind[n] = R_EDGE, dir[n++] = LSIM_ODE_FALLING;
      ed->root_cand[n] = i, ed->root_kind[n] = R_ROLE, dir[n++] = LSIM_ODE_FALLING;
    }
  }
  for (int p = 0; p < ed->npairs; ++p)
    ed->root_cand[n] = p, ed->root_kind[n] = R_PAIR, dir[n++] = LSIM_ODE_FALLING;
  ed->nroots = n;
  int rc = lsim_ode_set_roots(ode, n, roots, dir, NULL);
  /* Force and cone roots resolve forces to FORCE_RESOLUTION (event_private.h). */
  double *res = malloc((size_t)n * sizeof(double) + 1);
  if (!res) rc = -1;
  for (int k = 0; !rc && k < n; ++k)
    res[k] = ed->root_kind[k] == R_FORCE || ed->root_kind[k] == R_CONE ? FORCE_RESOLUTION : 0.0;
  if (!rc) rc = lsim_ode_set_root_resolution(ode, res);
  free(res);
  free(dir);
  return rc ? LSIM_INVALID_INPUT : 0;
}

/* Sample at t: the state and the persistent contacts with forces times the period. */
static int sampler(double t, const double *x, void *user) {
  Ed *ed = user;
  int *idx = idx_buf(ed);
  if (lsim_ed_evaluate(ed, t, x, idx)) return -1;
  lsim_contacts_clear(&ed->out);
  for (int r = 0; r < ed->nr; ++r) {
    const int i = ed->r_cand[r];
    const LsimContact *src = &ed->set.contacts[idx[i]];
    if (ed->r_which[r] == 0) {
      LsimContact *o = lsim_contacts_add(&ed->out, 0);
      if (!o) return -1;
      const int keep = o->first_row;
      *o = *src;
      o->first_row = keep;
      o->normal_impulse = ed->lam[r] * ed->period;
      memset(o->friction_impulse, 0, sizeof o->friction_impulse);
      o->slip_speed = 0.0;
      if (ed->cand[i].mode == SLIDE) {
        /* Friction -mu f_n along the slip. */
        double vt[2];
        lsim_ed_slip_velocity(ed, &ed->set, idx[i], ed->st.v, vt);
        const double sp = hypot(vt[0], vt[1]);
        o->slip_speed = sp;
        for (int k = 0; k < 3 && sp > 0.0; ++k)
          o->friction_impulse[k] = -src->mu * o->normal_impulse *
                                   (vt[0] * src->tangent[0][k] + vt[1] * src->tangent[1][k]) / sp;
      }
    } else {
      LsimContact *o = &ed->out.contacts[ed->out.count - 1];
      for (int k = 0; k < 3; ++k)
        o->friction_impulse[k] += ed->lam[r] * ed->period * src->tangent[ed->r_which[r] - 1][k];
    }
  }
  /* A persistent contact pulling harder than PULL_TOL: its force root started at or below
     0 and never crossed, and the flow goes on with a force no contact can give (a sliding
     one's friction then does positive work). The run stops here. */
  for (int r = 0; r < ed->nr; ++r) {
    const Cand *cd = &ed->cand[ed->r_cand[r]];
    if (ed->r_which[r] != 0 || ed->lam[r] / ed->funit >= -PULL_TOL || cd->mode == JOINT ||
        ed->set.contacts[idx[ed->r_cand[r]]].kind != LSIM_CONTACT_NORMAL)
      continue;
    snprintf(ed->msg, sizeof ed->msg,
             "contact %#llx (bodies %d-%d, %s) pulls with %.3g N at t = %.12g: its force root was not seen crossing 0",
             (unsigned long long)cd->id, cd->body[0], cd->body[1], cd->mode == SLIDE ? "slide" : "stick",
             ed->lam[r], t);
    return -1;
  }
  /* A pair's free contacts more than PENETRATION_TOL inside each other: an impact was not
     located (a gap root held at 0 at an event that then went negative without crossing),
     and the samples would show one body sinking into the other. The run stops here. */
  if (ed->npairs > 0 && lsim_detect_contacts(&ed->mf, &ed->st, ed->st.v, &ed->fset) == 0)
    for (int p = 0; p < ed->npairs; ++p) {
      const double g = pair_gap(ed, p, 1);
      if (g < -PENETRATION_TOL) {
        snprintf(ed->msg, sizeof ed->msg,
                 "bodies %d-%d interpenetrate by %.3g m at t = %.12g: an impact was not located",
                 ed->pairs[2 * p], ed->pairs[2 * p + 1], -g, t);
        return -1;
      }
    }
  ed->st.step = (int)lround(t / ed->period);
  if (ed->sample && ed->sample(ed->m, &ed->st, &ed->out, ed->user)) return -1;
  /* Kept: an interrupt inside CVODE's next call ends the run here. */
  ed->sampled.time = ed->st.time, ed->sampled.step = ed->st.step;
  memcpy(ed->sampled.q, ed->st.q, (size_t)ed->nq * sizeof(double));
  memcpy(ed->sampled.v, ed->st.v, (size_t)ed->nv * sizeof(double));
  ed->have_sample = 1;
  /* Asked to stop: after this sample, which is delivered. */
  if (ed->o.stop && *ed->o.stop) {
    ed->interrupted = 1;
    return -1;
  }
  return 0;
}

/* ---- the impact map of a set of contacts ------------------------------------------- */

static int ed_init(Ed *ed, const LsimModel *m, char *err, size_t errlen);
static void ed_free(Ed *ed);
static int scope_check(const LsimModel *m, const char *what, char *err, size_t errlen);

int lsim_impact_map(const LsimModel *m, const LsimState *st, int npairs, const int *pairs,
                    double *v_plus, LsimContactSet *contacts, char *err, size_t errlen) {
  /* The impact LCP is the integrator's: outside its scope a kinematic body's velocity
     came out NaN and a moving anchor's rate was ignored (a rod dragged at 1 m/s gave
     no impulse), both with status 0. */
  int rc = scope_check(m, "the impact map", err, errlen);
  if (rc) return rc;
  Ed ed;
  rc = ed_init(&ed, m, err, errlen);
  if (rc) return rc;
  ed.o.sequential = m->event_impacts == LSIM_IMPACTS_SEQUENTIAL;
  double *x = calloc((size_t)ed.n + 1, sizeof(double));
  int *list = calloc(1, sizeof(int)), *cone = NULL;
  double *qadd = NULL, *imp = NULL;
  if (!x || !list) rc = LSIM_OUT_OF_MEMORY;
  if (!rc) {
    memcpy(x, st->q, (size_t)ed.nq * sizeof(double));
    memcpy(x + ed.nq, st->v, (size_t)ed.nv * sizeof(double));
    lsim_ed_load(&ed, &ed.st, st->time, x);
    rc = lsim_detect_contacts(&ed.ma, &ed.st, ed.st.v, &ed.set);
    if (!rc) rc = lsim_constraint_rows(&ed.ma, &ed.st, ed.st.time, &ed.set);
  }
  const int nc = ed.set.count;
  if (!rc) {
    free(list);
    list = calloc((size_t)nc + 1, sizeof(int)), cone = calloc((size_t)nc + 1, sizeof(int));
    qadd = calloc((size_t)nc + 1, sizeof(double));
    imp = calloc(4 * ((size_t)nc + 1), sizeof(double));
    if (!list || !cone || !qadd || !imp) rc = LSIM_OUT_OF_MEMORY;
  }
  /* Each pair's nearest features (within 1e-9 m of its smallest gap), then every joint row. */
  int k = 0;
  for (int p = 0; !rc && p < npairs; ++p) {
    const int a = pairs[2 * p], b = pairs[2 * p + 1];
    double gmin = HUGE_VAL;
    for (int pass = 0; pass < 2; ++pass)
      for (int c = 0; c < nc; ++c) {
        const LsimContact *ct = &ed.set.contacts[c];
        if (ct->kind != LSIM_CONTACT_NORMAL ||
            !((ct->body[0] == a && ct->body[1] == b) || (ct->body[0] == b && ct->body[1] == a)))
          continue;
        if (pass == 0) gmin = fmin(gmin, ct->gap);
        else if (ct->gap <= gmin + 1e-9) list[k++] = c;
      }
    if (gmin == HUGE_VAL) {
      snprintf(err, errlen, "bodies '%s' and '%s' have no contact features (no shapes that can touch)",
               a >= 0 ? m->bodies[a].name : "world", b >= 0 ? m->bodies[b].name : "world");
      rc = LSIM_INVALID_INPUT;
    }
  }
  for (int i = 0; !rc && i < k; ++i) {
    const LsimContact *ct = &ed.set.contacts[list[i]];
    cone[i] = lsim_ed_tangents(&ed, ct) > 0;
    qadd[i] = lsim_pair_restitution(m, ct->body[0], ct->body[1]);
  }
  for (int c = 0; !rc && c < nc; ++c)
    if (ed.set.contacts[c].kind == LSIM_CONTACT_EQUALITY) list[k] = c, cone[k] = 0, qadd[k++] = 0.0;
  double *fimp = imp ? imp + nc + 1 : NULL;
  if (!rc) {
    rc = impact_phase(&ed, k, list, cone, qadd, imp, fimp, NULL);
    if (rc && ed.msg[0]) snprintf(err, errlen, "%s", ed.msg);
  }
  if (!rc) {
    for (int d = 0; d < ed.nv; ++d) v_plus[d] = ed.st.v[d];
    /* The closing contacts and joint rows with their impulses. */
    lsim_contacts_clear(contacts);
    for (int i = 0; i < k && !rc; ++i) {
      const LsimContact *src = &ed.set.contacts[list[i]];
      LsimContact *o = lsim_contacts_add(contacts, 0);
      if (!o) {
        rc = LSIM_OUT_OF_MEMORY;
        break;
      }
      const int keep = o->first_row;
      *o = *src;
      o->first_row = keep;
      o->slip_speed = 0.0;
      o->normal_impulse = imp[i];
      for (int c3 = 0; c3 < 3; ++c3) o->friction_impulse[c3] = fimp[3 * i + c3];
    }
  }
  if (rc == LSIM_OUT_OF_MEMORY) snprintf(err, errlen, "out of memory");
  free(x), free(list), free(cone), free(qadd), free(imp);
  ed_free(&ed);
  return rc;
}

/* ---- the run ------------------------------------------------------------------------ */

/* 1 when an end of a tether or joint is a world anchor on a prescribed path. */
static int anchor_moves(const LsimAnchor end[2]) {
  for (int k = 0; k < 2; ++k)
    if (end[k].body < 0 && end[k].motion.kind != LSIM_MOTION_FIXED) return 1;
  return 0;
}

/* 0 when the model is within the scope of the event-driven integrator's impact and
 * acceleration LCPs (2-D, 3-D; no kinematic body, no moving anchor; 3-D friction in
 * multiples of 4 directions); else LSIM_INVALID_INPUT with err, "WHAT: what is not
 * supported". */
static int scope_check(const LsimModel *m, const char *what, char *err, size_t errlen) {
  if (m->dimension < 2) {
    snprintf(err, errlen, "%s: 2-D and 3-D scenes only (this one is 1-D)", what);
    return LSIM_INVALID_INPUT;
  }
  for (int i = 0; i < m->njoints; ++i)
    if (anchor_moves(m->joints[i].end)) {
      snprintf(err, errlen, "%s: moving anchors are not supported (joint '%s')", what,
               m->joints[i].name);
      return LSIM_INVALID_INPUT;
    }
  for (int i = 0; i < m->nbodies; ++i)
    if (m->bodies[i].type == LSIM_BODY_KINEMATIC) {
      snprintf(err, errlen, "%s: kinematic bodies are not supported (body '%s')", what,
               m->bodies[i].name);
      return LSIM_INVALID_INPUT;
    }
  for (int i = 0; i < m->ntethers; ++i)
    if (anchor_moves(m->tethers[i].end)) {
      snprintf(err, errlen, "%s: moving anchors are not supported (tether '%s')", what,
               m->tethers[i].name);
      return LSIM_INVALID_INPUT;
    }
  if (m->dimension == 3 && m->friction_directions % 4 != 0) {
    snprintf(err, errlen, "%s: 3-D friction needs a multiple of 4 directions (got %d)", what,
             m->friction_directions);
    return LSIM_INVALID_INPUT;
  }
  return 0;
}

int lsim_event_driven_check(const LsimModel *m, char *err, size_t errlen) {
  return scope_check(m, "integrator \"event_driven\"", err, errlen);
}

/* Body-frame inverse inertias (2-D: 1 / I_zz in slot 8). */
static int invert_inertias(Ed *ed) {
  const LsimModel *m = ed->m;
  for (int i = 0; i < m->nbodies; ++i) {
    const LsimBody *b = &m->bodies[i];
    if (b->type != LSIM_BODY_DYNAMIC) continue;
    const double *I = b->inertia;
    double *W = ed->Iinv + 9 * i;
    if (m->dimension == 2) {
      W[8] = 1.0 / I[8];
      continue;
    }
    const double det = I[0] * (I[4] * I[8] - I[5] * I[7]) - I[1] * (I[3] * I[8] - I[5] * I[6]) +
                       I[2] * (I[3] * I[7] - I[4] * I[6]);
    if (!(fabs(det) > 0.0)) return LSIM_INVALID_INPUT;
    W[0] = (I[4] * I[8] - I[5] * I[7]) / det, W[1] = (I[2] * I[7] - I[1] * I[8]) / det;
    W[2] = (I[1] * I[5] - I[2] * I[4]) / det, W[3] = (I[5] * I[6] - I[3] * I[8]) / det;
    W[4] = (I[0] * I[8] - I[2] * I[6]) / det, W[5] = (I[2] * I[3] - I[0] * I[5]) / det;
    W[6] = (I[3] * I[7] - I[4] * I[6]) / det, W[7] = (I[1] * I[6] - I[0] * I[7]) / det;
    W[8] = (I[0] * I[4] - I[1] * I[3]) / det;
  }
  return 0;
}

static void ed_free(Ed *ed) {
  lsim_solver_free(ed->fallback);
  free(ed->work);
  free(ed->pair_g);
  free(ed->thick);
  lsim_state_free(&ed->st);
  lsim_state_free(&ed->pst);
  lsim_state_free(&ed->sampled);
  lsim_contacts_free(&ed->set);
  lsim_contacts_free(&ed->pset);
  lsim_contacts_free(&ed->out);
  lsim_contacts_free(&ed->fset);
  free(ed->pairs);
  free(ed->Iinv), free(ed->cand), free(ed->idx), free(ed->chat);
  free(ed->r_cand), free(ed->r_which);
  free(ed->J), free(ed->G), free(ed->A), free(ed->b), free(ed->lam), free(ed->jdv);
  free(ed->a_free), free(ed->a), free(ed->w1), free(ed->w2);
  free(ed->root_cand), free(ed->root_kind);
  if (ed->lemke) lsim_lemke_free(ed->lemke);
}

/* The workspace of a model: detection copies, inverse inertias, scratch, Lemke. 0, or
 * < 0 with err (nothing left allocated). */
static int ed_init(Ed *ed, const LsimModel *m, char *err, size_t errlen) {
  memset(ed, 0, sizeof *ed);
  ed->m = m;
  ed->mm = *m, ed->mf = *m, ed->ma = *m;
  ed->mm.contact_margin = NEAR_MARGIN;
  ed->mf.contact_margin = FAR_MARGIN;
  ed->ma.contact_margin = ALL_MARGIN;
  ed->o = lsim_default_event_options();
  ed->period = m->time_step;
  ed->nq = m->nq, ed->nv = m->nv, ed->n = m->nq + m->nv;
  const size_t nv1 = (size_t)m->nv + 1;
  ed->Iinv = calloc(9 * (size_t)m->nbodies + 1, sizeof(double));
  ed->a_free = calloc(nv1, sizeof(double)), ed->a = calloc(nv1, sizeof(double));
  ed->w1 = calloc(nv1, sizeof(double)), ed->w2 = calloc(nv1, sizeof(double));
  ed->thick = calloc((size_t)m->nbodies + 1, sizeof(double));
  if (ed->thick && m->dimension > 1)
    for (int b = 0; b < m->nbodies; ++b) ed->thick[b] = lsim_body_half_thickness(m, b);
  ed->lemke = lsim_lemke_create();
  if (lsim_state_init(&ed->st, m) || lsim_state_init(&ed->pst, m) ||
      lsim_state_init(&ed->sampled, m) || !ed->Iinv || !ed->a_free || !ed->thick ||
      !ed->a || !ed->w1 || !ed->w2 || !ed->lemke) {
    snprintf(err, errlen, "out of memory");
    ed_free(ed);
    return LSIM_OUT_OF_MEMORY;
  }
  /* The force tolerances are set for bodies of about 1 kg (1e-10 N at an event, 1e-6 N of
     the flow's resolution): a box of 1e-300 kg (tests/data/box_drop_tiny_mass_2d.json)
     carries 1e-299 N, every force of its run was "within the precision of 0", and at each
     event its persistent corner was let off as at its force root (416834 events, the
     corners taking turns). Forces are measured in funit: the power of 2 nearest the
     lightest dynamic body's mass where some mass lies outside [2^-20, 2^20] kg, else 1 (the
     same bits). */
  double mmin = HUGE_VAL, mmax = 0.0;
  for (int b = 0; b < m->nbodies; ++b)
    if (m->bodies[b].type == LSIM_BODY_DYNAMIC)
      mmin = fmin(mmin, m->bodies[b].mass), mmax = fmax(mmax, m->bodies[b].mass);
  ed->funit = 1.0;
  if (mmax > 0.0 && (mmin < 0x1p-20 || mmax > 0x1p20)) {
    int e;
    frexp(mmin, &e);
    ed->funit = ldexp(1.0, e - 1);
  }
  if (invert_inertias(ed)) {
    snprintf(err, errlen, "a body's inertia is singular");
    ed_free(ed);
    return LSIM_INVALID_INPUT;
  }
  return 0;
}

int lsim_event_driven_run(const LsimModel *m, LsimState *st, double t_end,
                          const LsimEventOptions *opt, LsimEventSampleFn sample, void *user,
                          LsimEventLog *log, char *err, size_t errlen) {
  int rc = lsim_event_driven_check(m, err, errlen);
  if (rc) return rc;
  if (opt && !(opt->precision >= LSIM_EVENT_PRECISION_FLOOR && isfinite(opt->precision))) {
    snprintf(err, errlen, "event-driven precision %g: must be in [%g, inf) (contact/world.h)",
             opt->precision, LSIM_EVENT_PRECISION_FLOOR);
    return LSIM_INVALID_INPUT;
  }
  Ed ed;
  if ((rc = ed_init(&ed, m, err, errlen))) return rc;
  ed.o = opt ? *opt : lsim_default_event_options();
  ed.period = ed.o.record_period > 0.0 ? ed.o.record_period : m->time_step;
  ed.sample = sample, ed.user = user, ed.log = log;
  double *x = calloc((size_t)ed.n + 1, sizeof(double));
  if (!x) {
    snprintf(err, errlen, "out of memory");
    ed_free(&ed);
    return LSIM_OUT_OF_MEMORY;
  }
  memcpy(x, st->q, (size_t)ed.nq * sizeof(double));
  memcpy(x + ed.nq, st->v, (size_t)ed.nv * sizeof(double));

  LsimOdeOptions oo = lsim_ode_default_options();
  oo.rtol = ed.o.rtol, oo.atol = ed.o.atol, oo.max_step = ed.o.max_step;
  oo.event_precision = ed.o.precision;
  oo.event_time_precision = ed.o.time_precision;
  oo.record_period = ed.period;
  LsimOde *ode = NULL;
  rc = lsim_ode_create(&ode, ed.n, flow, &ed, &oo, err, errlen);
  double t = st->time, t_msg = t;
  if (!rc) {
    /* Positions' scale for CVODE (lsim_ode_set_scale): the Jacobian's perturbations at
       most sqrt(eps) POSITION_SCALE, the local error at most rtol POSITION_SCALE plus
       round-off. */
    double *scale = calloc((size_t)ed.n + 1, sizeof(double));
    if (!scale) rc = LSIM_OUT_OF_MEMORY;
    for (int b = 0; scale && b < m->nbodies; ++b) {
      const LsimBody *bd = &m->bodies[b];
      if (bd->q_offset < 0 || bd->nq <= 0) continue;
      for (int k = 0; k < m->dimension && k < bd->nq; ++k) scale[bd->q_offset + k] = POSITION_SCALE;
    }
    if (scale) lsim_ode_set_scale(ode, scale);
    free(scale);
    lsim_ode_set_sampler(ode, sampler, &ed);
    lsim_ode_set_step_bound(ode, step_bound, &ed);
    if (!rc) rc = resolve_event(&ed, t, x);
  }
  while (!rc) {
    if ((rc = set_roots(&ed, ode))) break;
    if (lsim_ode_restart(ode, t, x)) {
      rc = LSIM_INVALID_INPUT;
      snprintf(ed.msg, sizeof ed.msg, "CVODE refused the state at t = %.12g", t);
      break;
    }
    LsimOdeEvent ev;
    const int s = lsim_ode_advance(ode, t_end, &ev);
    t_msg = t = lsim_ode_time(ode);
    memcpy(x, lsim_ode_state(ode), (size_t)ed.n * sizeof(double));
    if (s == LSIM_ODE_REACHED) break;
    if (s < 0 && ed.interrupted) {
      /* The run ends at the last sample (CVODE may have stepped past it). */
      t = ed.sampled.time;
      memcpy(x, ed.sampled.q, (size_t)ed.nq * sizeof(double));
      memcpy(x + ed.nq, ed.sampled.v, (size_t)ed.nv * sizeof(double));
      rc = LSIM_EVENT_INTERRUPTED;
      break;
    }
    if (s < 0) {
      if (!ed.msg[0]) name_root(&ed, lsim_ode_message(ode));
      /* Quoted at the time the error is about (an event not located, a failed
         evaluation), not at the last good state's, which st gets. */
      t_msg = lsim_ode_failure_time(ode);
      rc = LSIM_BREAKDOWN;
      break;
    }
    /* The contacts whose force or cone root fired: resolve's borderline cases. */
    for (int k = 0; k < ed.nroots; ++k)
      if (ev.fired[k] && (ed.root_kind[k] == R_FORCE || ed.root_kind[k] == R_CONE || ed.root_kind[k] == R_DIR))
        ed.cand[ed.root_cand[k]].fired = ed.root_kind[k];
    /* And the force roots within the precision of 0 there, not yet through it: crossing at
       the same time to the event's precision (two symmetric supports of a box leaving an
       edge, 2e-12 s apart; one at a time, the second came back and the box turned). */
    if (ed.nroots > 0) {
      double *gv = malloc((size_t)ed.nroots * sizeof(double));
      if (!gv) {
        rc = LSIM_OUT_OF_MEMORY;
        break;
      }
      if (roots(t, x, gv, &ed) == 0) {
        for (int k = 0; k < ed.nroots; ++k)
          if (ed.root_kind[k] == R_FORCE && !ed.cand[ed.root_cand[k]].fired && gv[k] <= ed.o.precision)
            ed.cand[ed.root_cand[k]].fired = R_FORCE;
        /* A fired cone's friction in the flow (roots evaluated it sticking). */
        for (int r = 0; r < ed.nr; ++r) {
          Cand *cd = &ed.cand[ed.r_cand[r]];
          if (ed.r_which[r] != 0 || cd->fired != R_CONE) continue;
          cd->ft[0] = r + 1 < ed.nr && ed.r_cand[r + 1] == ed.r_cand[r] ? ed.lam[r + 1] : 0.0;
          cd->ft[1] = r + 2 < ed.nr && ed.r_cand[r + 2] == ed.r_cand[r] ? ed.lam[r + 2] : 0.0;
        }
      }
      free(gv);
    }
    rc = resolve_event(&ed, t, x);
    for (int i = 0; i < ed.ncand; ++i) ed.cand[i].fired = 0, ed.cand[i].ft[0] = ed.cand[i].ft[1] = 0.0;
    if (!rc && ed.events > ed.o.max_events) {
      snprintf(ed.msg, sizeof ed.msg, "more than %ld events (chattering?)", ed.o.max_events);
      rc = LSIM_BREAKDOWN;
    }
    /* Asked to stop: after this event, which is logged. */
    if (!rc && ed.o.stop && *ed.o.stop) rc = LSIM_EVENT_INTERRUPTED;
  }
  if (rc == LSIM_EVENT_INTERRUPTED)
    snprintf(err, errlen, "event-driven run interrupted at t = %.12g s", t);
  else if (rc && ed.msg[0]) snprintf(err, errlen, "event-driven run at t = %.12g: %s", t_msg, ed.msg);
  else if (rc && !err[0]) snprintf(err, errlen, "event-driven run at t = %.12g: %s", t_msg, lsim_status_name(rc));
  if (log && ode) log->steps = lsim_ode_stats(ode)->steps;
  /* The last state reached. */
  lsim_ed_load(&ed, st, t, x);
  st->step = (int)lround(t / ed.period);
  lsim_ode_free(ode);
  free(x);
  ed_free(&ed);
  return rc;
}
