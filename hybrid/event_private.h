/* event_private.h: what the event-driven integrator's files share (hybrid/event_driven.c:
 * events, CVODE callbacks, the impact map and the run; hybrid/event_rows.c: the state,
 * mass and forces, the contacts and the rows of the persistent system). Not installed:
 * the integrator's interface is hybrid/event_driven.h.
 */
#ifndef LSIM_EVENT_PRIVATE_H
#define LSIM_EVENT_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include "contact/geometry.h"
#include "hybrid/event_driven.h"
#include "lcp/lemke.h"

enum { FREE = 0, STICK = 1, SLIDE = 2, JOINT = 3 }; /* contact modes (taut tethers: STICK;
                                                  joint rows: JOINT, always persistent) */
enum { R_GAP = 0, R_FORCE = 1, R_CONE = 2, R_SLIP = 3, R_PAIR = 4, R_EDGE = 5, R_ROLE = 6, R_DIR = 7 }; /* root kinds */
#define T_STAB 0.1          /* s, Baumgarte time constant (RBDL's default) */
#define CURVATURE_DT 1e-6   /* s, central difference of the rows along the motion */
/* m: a body position's scale. Within it of the world's origin CVODE and the curvature's
   difference work as they always did (the same bits); beyond it, where round-off of the
   coordinates (eps |x|) is no longer small against the features a contact follows,
   CVODE's Jacobian perturbs a position by sqrt(eps) POSITION_SCALE, not sqrt(eps) |x|,
   its error test asks rtol POSITION_SCALE (plus round-off), not rtol |x|
   (lsim_ode_set_scale), and the curvature's step grows with |x| (event_rows.c,
   curvature_dt). */
#define POSITION_SCALE 16.0
#define CURVATURE_GROWTH 4.0    /* m: beyond POSITION_SCALE, CURVATURE_DT per this of |x| */
#define CURVATURE_DT_MAX 2.5e-4 /* s: and at most this */
/* Detection margins, m: NEAR for the contacts of the flow and of events (persistent ones
   stay within it); FAR for the pairs' gap functions (a feature appears in them at about
   this gap, so the pair's smallest gap never jumps across 0; small enough that a box's
   manifold reduction keeps every corner near the ground); ALL to list the pairs. */
#define NEAR_MARGIN 1e-4
#define FAR_MARGIN 0.05
#define ALL_MARGIN 1e12
/* m: a pair's contact that detection finds within this of one of its persistent contacts
   is held by it and is no root of the pair's gap (the edge crossings a corner leaves as
   it passes an edge appear at its place, at its gap). */
#define HELD_NEAR 1e-6
/* m: beyond HELD_NEAR and within this of a persistent contact, a feature's gap in its
   pair's root is raised by that contact's depth (plus contact_tol), fading linearly to
   nothing here (event_driven.c, pair_gap): released continuously, not at once at
   HELD_NEAR at the persistent contact's depth (a jump of the pair's gap from the next
   feature's 6e-4 m to -9e-6 m, n3_g0_b0.3_a0.35_v2_o0 of scripts/event_stack_sweep.py). */
#define HELD_FAR 2e-6
/* m: a sample whose pair has a free contact deeper than this stops the run (an impact
   not located; event_driven.c, sampler). */
#define PENETRATION_TOL 1e-6
/* N: a sample whose persistent contact pulls harder than this stops the run (event_driven.c,
   sampler): ten times FORCE_RESOLUTION, within which a force root is located. */
#define PULL_TOL (10.0 * FORCE_RESOLUTION)
/* A free contact closing at an impact joins it (one impact LCP with the closed ones) when
   its approach would close its gap within NEAR_IMPACT_TIME, s, and the gap is at most
   NEAR_IMPACT_GAP, m: a box's two corners landing 1e-8 s apart impact together, and the
   second is left open by at most 1e-6 m (its persistent row's Baumgarte closes that). */
#define NEAR_IMPACT_TIME 1e-6
#define NEAR_IMPACT_GAP 1e-6
/* m/s: a sliding contact's friction turns from its segment's direction s to its slip's
   within slip speeds of about this (along v_t + SLIP_BLEND s; event_rows.c): a slide
   starting from rest has a smooth flow. The velocity_tol default, the speed below which
   a contact counts as at rest. */
#define SLIP_BLEND 1e-7
/* m/s: a 3-D slide that starts from rest (within velocity_tol: its direction s is the
   acceleration LCP's, on the polyhedral cone, not its slip's) has a direction root
   (R_DIR, event_driven.c, roots): it fires when its slip parts from s by more than the
   cone's half-angle pi / ndir while the slip is below DIR_SPEED. From there on the flow's
   friction, along v_t + SLIP_BLEND s, is within SLIP_BLEND / DIR_SPEED = 0.1 rad of the
   slip's direction, and the slip, within the half-angle of s there (v_t . s above 7e-7
   m/s, so its slip root is armed), turning across s fires its slip root. 1e-4 m/s also
   fired on slips turning smoothly at 8.8e-5 m/s (n3_g0.05_b0.3_a0.35_v3.5_o1 of
   scripts/event_stack_sweep.py at 0.1929 s), and that complete run then stopped on a
   force root jumping by 19.7 N at a role event. */
#define DIR_SPEED 1e-6

/* N: how finely the flow resolves a persistent contact's force (its force and cone roots'
   lsim_ode_set_root_resolution). The least-norm split (with sliding rows from the normal
   equations, whose condition is A's squared) moved a contact's force by 1.8e-10 to
   6.1e-10 N when the state was perturbed by 2e-16 of itself (n3_g0.05_b0.3_a0.35_v5_o1 of
   scripts/event_stack_sweep.py at 0.1796 s, 26 rows, forces up to 10 N), so a force root
   asked for the precision, 1e-10 N, stopped that run on a bracket at the resolution of
   time with |g| = 1.95e-10 N, located as well as the force allows. Such a root is
   accepted within FORCE_RESOLUTION; its located point is the same. Noise measured since,
   as the span of a force's values within a bracket of a few 1e-16 s at the resolution of
   time (the smooth rates move it by 1e-12 N there): 2.7e-8 N (n3_g0_b0.3_a0.35_v3.5_o1 at
   0.312273 s), 1.8e-8 N (n3_g0.3_b0.6_a0.25_v2_o1 at 0.3732518 s, eight sliding
   contacts), 2.2e-8 N (a cone root, n3_g0.3_b0.6_a0.35_v2_o1 at 0.271510 s) and 6.9e-8 N
   (a force root of that run at 0.582867 s, on another trajectory); 1e-8 N stopped all
   four. 1e-6 N is 14 times the largest, and a force of 1e-6 N left at a liftoff moves
   nothing a sample shows (1e-8 N s over a 0.01 s sample on 1 kg bodies). */
#define FORCE_RESOLUTION 1e-6

/* A candidate contact (or tether) of the current segment. */
typedef struct Cand {
  uint64_t id;
  int mode;
  int body[2];
  double s[2];      /* SLIDE: unit slip direction in the tangent basis (t1, t2) */
  int fired;        /* R_FORCE, R_CONE or R_DIR when that root of this candidate ended the
                       segment */
  double ft[2];     /* fired R_CONE: its friction (t1, t2) in the flow's sticking solution
                       at the event, on the circle mu f_n (resolve slides it against it) */
  double v_start;   /* SLIDE: its slip speed where the segment started (set_roots): above
                       velocity_tol, a slide at rest at an event is coming to rest (resolve) */
  int released;     /* a free contact that was closed at the last event, an impact, and
                       left it no faster than v_rest (resolve): its pair's gap root takes
                       its gap plus contact_tol (event_driven.c, pair_gap) */
  double sink;      /* m: a contact that lifted off deeper than contact_tol inside its
                       partner (a persistent row's Baumgarte had not closed it): that depth,
                       lowered to its depth at later events while it stays free, 0 once
                       it is persistent again. Its pair's gap root (plus contact_tol) and
                       the sampler's penetration check count its gap from there
                       (event_driven.c, pair_gap) */
  int axis;         /* a 3-D contact with friction: the axis of its tangent basis
                       (lsim_v3_tangent_axis of its normal when it became a candidate), kept
                       while it stays one, so that its basis, its rows and s (in that basis)
                       turn smoothly with its normal (lsim_ed_detect); -1 any other */
  int ref;          /* a 3-D box-box face vertex (lsim_box_face_vertex): its reference face
                       on the id's first shape (0) or second (1); -1 any other contact */
  int order;        /* with ref >= 0: the pair's canonical order when it became a candidate
                       or its event (lsim_box_face_vertex_ordered), in which its id's
                       feature names the vertex */
  double local[3];  /* a contact's point in body[0]'s frame when it became a candidate or
                       its event: a 2-D persistent contact that detection names otherwise
                       (lsim_ed_detect) is found again by it */
} Cand;

/* Impacts of one contact within the chatter window. */
typedef struct Chatter {
  uint64_t id;
  double first;
  int count;
  int inelastic;
} Chatter;

typedef struct Ed {
  const LsimModel *m;
  LsimModel mm, mf, ma;       /* shallow copies with the NEAR, FAR and ALL margins */
  int npairs, pairs_cap;
  int *pairs;                 /* [2 npairs] the body pairs of the segment's pair roots */
  double *pair_g;             /* [pair_g_cap] each pair root's last value (the step bound) */
  int pair_g_cap;
  double *thick;              /* [nbodies] lsim_body_half_thickness */
  LsimContactSet fset;        /* FAR detection */
  LsimEventOptions o;
  int nq, nv, n;
  LsimState st, pst;          /* the evaluation point and a perturbed one (curvature) */
  LsimContactSet set, pset;
  double *Iinv;               /* [9 nbodies] body-frame inverse inertia */
  Cand *cand;
  int ncand, cand_cap;
  int *idx;                   /* [cand_cap] each candidate's index in set (evaluate) */
  Chatter *chat;
  int nchat, chat_cap;
  /* The persistent system: rows (candidate, which: 0 normal, 1 t1, 2 t2). */
  int nr, r_cap;
  int *r_cand, *r_which;
  double *J, *G, *A, *b, *lam, *jdv; /* [r_cap nv], [r_cap nv], [r_cap^2], [r_cap] x3 */
  double *a_free, *a, *w1, *w2;      /* [nv] */
  /* Roots of the segment. */
  int nroots, roots_cap;
  int *root_cand, *root_kind;
  LsimLemke *lemke;
  struct LsimSolver *fallback; /* "newton", created at the first LCP Lemke fails on (contact_lcp) */
  LsimEventLog *log;
  long events;
  double period;
  LsimEventSampleFn sample;
  void *user;
  LsimContactSet out;         /* the sample's contacts */
  double *work;               /* [work_cap] the least-norm solve's scratch */
  int work_cap;
  double funit;              /* N: the unit of the force tolerances (precision, FORCE_RESOLUTION,
                                 PULL_TOL at a force): 1 while every dynamic body's mass lies
                                 in [2^-20, 2^20] kg, else the power of 2 nearest the lightest
                                 one's (ed_init) */
  int interrupted;            /* the stop flag was seen in the sampler or the flow */
  LsimState sampled;          /* the last sample delivered (its time, q, v) */
  int have_sample;            /* 1 once a sample was delivered */
  char msg[512];
} Ed;

/* ---- event_rows.c: state, mass, forces, contacts and rows --------------------------- */

/* st <- (t, x) with 3-D quaternions normalized. */
void lsim_ed_load(const Ed *ed, LsimState *st, double t, const double *x);

/* qdot of st into out[nq]: positions move with v; 3-D quaternions by 0.5 (0, w) q. */
void lsim_ed_qdot(const Ed *ed, const LsimState *st, double *out);

/* y = W x body by body (world-frame inverse inertia at st). */
void lsim_ed_apply_w(const Ed *ed, const LsimState *st, const double *x, double *y);

/* a_free = W (f + m g - w x I w) at st. */
void lsim_ed_free_acceleration(Ed *ed, const LsimState *st, double *a);

/* The contacts and rows at st into set. follow: the candidates' face vertices detection
 * no longer has (past their face's edge: a persistent one up to the event its margin's
 * root locates, or in the curvature's states 1e-6 s on either side of an event) are added
 * as lsim_ed_follow continues them, so that the flow stays smooth up to the event. */
int lsim_ed_detect(Ed *ed, const LsimState *st, LsimContactSet *set, int follow);

/* Candidate cd's face vertex at st, continued past its faces, its margin and its role
 * (lsim_box_face_vertex). 0, or -1 when cd is no face vertex. */
int lsim_ed_follow(const Ed *ed, const LsimState *st, const Cand *cd, LsimContactPoint *pt,
                   double *margin, double *role);

/* The reference face of detected contact ct when it is a 3-D box-box face vertex (0 or 1,
 * Cand.ref), else -1. */
int lsim_ed_face_ref(const Ed *ed, const LsimState *st, const LsimContact *ct, int *order);
/* World point w in body's frame (l), and back; body < 0: the world. */
void lsim_ed_local_point(const Ed *ed, const LsimState *st, int body, const double w[3], double l[3]);
void lsim_ed_world_point(const Ed *ed, const LsimState *st, int body, const double l[3], double w[3]);

int lsim_ed_find(const LsimContactSet *set, uint64_t id);

/* The dense row (nv) of contact c's row: which 0 normal, 1 t1 (direction 0), 2 t2 (the
 * direction a quarter turn on). */
void lsim_ed_dense_row(const Ed *ed, const LsimContactSet *set, int c, int which, double *out);

/* a . b over n entries. */
double lsim_ed_dot(const double *a, const double *b, int n);

/* Tangent directions of a contact in this world: 2 in 3-D, 1 in 2-D, 0 without friction. */
int lsim_ed_tangents(const Ed *ed, const LsimContact *ct);

/* Tangential velocity (t1, t2 components) of contact c at st. */
void lsim_ed_slip_velocity(Ed *ed, const LsimContactSet *set, int c, const double *v, double vt[2]);

/* Grows *p (elements of elem bytes, *cap of them) to hold n: lsim_grow. 0 or < 0. */
int lsim_ed_grow(void **p, int *cap, int n, size_t elem);

/* 1 when sliding candidate cd is held by a sticking contact of its pair: its friction
 * then stays along its s in the flow (lsim_ed_build_rows). */
int lsim_ed_slide_held(const Ed *ed, const Cand *cd);

/* The persistent rows of the current candidates (their indices in set in idx). */
int lsim_ed_build_rows(Ed *ed, const LsimContactSet *set, const int *idx);

/* Jdot v of rows (cand[r], which[r]), r < nr, at st by a central difference of the rows
 * along the motion: (J(q + dt qdot) v - J(q - dt qdot) v) / (2 dt), into out[nr]. */
int lsim_ed_curvature(Ed *ed, const LsimState *st, int nr, const int *rcand, const int *rwhich,
                     double *out);

/* x <- A^+ x, the least-norm solution of A x = b for a symmetric positive semi-definite A
 * (n x n, row-major, overwritten): Cholesky with diagonal pivoting stopped where the
 * remaining diagonal falls below 1e-11 of the largest (rank r), A = B B' with B = P' L
 * (n x r), then x = B (B'B)^-2 B' b. work: 2 n^2 + 2 n doubles. 0, or LSIM_BREAKDOWN. */
int lsim_ed_psd_solve(double *A, double *x, int n, double *work);

/* The smooth phase at (t, x): contacts, persistent forces lam[nr] and accelerations
 * a[nv]; idx[ncand] gets each candidate's index in ed->set (-1: not found). */
int lsim_ed_evaluate(Ed *ed, double t, const double *x, int *idx);

#endif
