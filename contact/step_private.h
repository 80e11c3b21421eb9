/* step_private.h: private to the time step (step.c: stages, warm start, impulses and the
 * run; step_lcp.c: the step's factored LCP): the stepper's workspace and the small row and
 * mass helpers both inline. Not installed. The equations are in step.h. */
#ifndef LSIM_STEP_PRIVATE_H
#define LSIM_STEP_PRIVATE_H

#include <stdint.h>

#include "contact/exact_cone.h"
#include "contact/equality.h"
#include "contact/mass.h"
#include "contact/math3.h"
#include "contact/step.h"

/* A slot of the warm-start table: an id and its index into prev_*, in use when its stamp
 * is the table's (so the table empties by a new stamp, not by a pass over it). */
typedef struct IdIndex {
  uint64_t id;
  int index;
  unsigned stamp;
} IdIndex;

/* A body's velocities (nv from v_offset), whether it is dynamic and where its
 * coordinates start (q_offset): what the assembly and the warm start's torques read per
 * row or contact, 16 bytes a body instead of the model's whole body record. */
typedef struct LsimBodyDofs {
  int nv, v_offset, dynamic, q_offset;
} LsimBodyDofs;

/* One row of the position correction (step_correct.c): the target t, J_i B_i (0: not
 * built yet, < 0: no dynamic body moves along the row), lambda, the row's LCP variable and
 * its contact's bodies (body[1] < 0: none). */
typedef struct LsimCorrectionRow {
  double target, diag, lambda;
  int var, body[2];
} LsimCorrectionRow;

struct LsimStepper {
  LsimSolver *solver;
  LsimExactCone exact; /* "cone": "exact": its workspace (contact/exact_cone.h) */
  LsimContactSet contacts;
  /* The factored LCP of the step: M = J B + C, q; arrays grown on demand. */
  LsimFactoredLcp f;
  /* f's negated directions implicit (f.full = &full: PGS where B shares J's pattern, the
     fast path reading p_0 and p_q alone), the whole rows made in full on demand
     (lsim_factored_full; lsim_stepper_factored gives them to every other reader). */
  int implicit_neg;
  LsimFactoredFull full;
  int n_cap, nnz_cap, c_cap;
  int *J_ptr, *J_idx, *B_ptr, *B_idx, *C_ptr, *C_idx; /* [n_cap + 1] / [nnz_cap] / [c_cap] */
  double *J_val, *B_val, *C_val, *q;
  double *z;              /* [n_cap] solution */
  double *row_v;          /* [n_cap] J_i v_free of each variable's row (all its bodies) */
  double *guess;          /* [n_cap] the warm-start guess handed to the solver */
  unsigned char *bguess;  /* [n_cap] Lemke basis guess: the last step's final basis by id */
  int slices;             /* > 0: the last assembly's contacts were cut into this many
                             slices on the solver's team (no joint rows), slice k holding
                             contacts slice_first[k] .. slice_first[k + 1] */
  int slice_first[LSIM_PGS_MAX_THREADS + 1];
  int *var_row;           /* [n_cap] Jacobian row of each variable, -1 for lambdas, -2 - v
                             for a direction whose row is the exact negative of variable
                             v's (the second half of an even cone) */
  LsimConeBlock *cones;   /* [cones_cap] friction cone structure handed with the LCP */
  int cones_cap;
  LsimConeProducts *cone_prod; /* [cone_prod_cap] each cone's products (factored.h), made
                                  as the rows are written */
  int cone_prod_cap;
  double *joint_error;    /* [joint_error_cap >= 3 njoints] each joint's position error
                             vector e this step (m, world): its rows' gaps along their
                             normals (a pin's: the world axes; a rod's: along the rod) */
  int joint_error_cap;
  /* Dense copy of the last LCP, formed on request (lsim_stepper_lcp) when the solver did
     not form one itself; mutable cache behind a const accessor. */
  LsimLcp dense;
  int dense_cap, dense_valid;
  int *tmp_ptr, *tmp_idx;
  double *tmp_val;
  int tmp_cap;
  double *v_free;         /* [nv] */
  double *dv;             /* [nv] B z */
  /* Impulses of the previous step by contact id, for warm starts. */
  uint64_t *prev_id;      /* [prev_cap] in that step's contact order */
  int *prev_var;          /* [prev_cap] first variable of that contact in prev_z */
  int *prev_nvar;
  int prev_count, prev_cap;
  double *prev_z;         /* [prev_zcap] */
  int prev_zcap;
  unsigned char *prev_b;  /* [prev_bcap] the final basis parallel to prev_z (sparse Lemke) */
  int prev_bcap;
  int prev_bvalid;        /* prev_b holds the previous step's final basis */
  int spread_warm;        /* the solver is "pgs": warm_spread_manifolds after the warm start */
  int *body_contacts;     /* [nbodies] warm_spread_manifolds: each body's contacts this step */
  int body_contacts_now;  /* body_contacts counts this step's contacts (set at the count,
                             cleared at the step's start) */
  double *body_torque;    /* [3 nbodies] warm_spread_manifolds: the torque of each body's
                             warm started contacts about its centre of mass (N m s) */
  double *torque_memo;    /* [6 count] warm_spread_manifolds: each contact's torques on its
                             two bodies as last added (add_torques) */
  int torque_memo_cap;
  struct LsimManifoldRef *manifolds; /* [manifolds_cap] warm_spread_manifolds: the order */
  int manifolds_cap;
  /* sweep_order (PGS in 3-D): each body's depth in the contact graph and the BFS queue
     [nbodies], its neighbours' start [nbodies + 1]; the neighbours [2 count], the
     contacts' bodies [2 count] (read once from the 216 B records), the contacts' keys
     and the reordered contacts [count]. */
  int *order_depth, *order_queue, *order_start;
  int *order_adj, order_adj_cap;
  int *order_pair, order_pair_cap;
  int *order_key, order_key_cap;
  LsimContact *order_tmp;
  int order_tmp_cap;
  /* [count] the fields of each contact that the passes after the numbering read,
     written by number_range with first_var (LsimContactHot). */
  struct LsimContactHot *hot;
  int hot_cap;
  int team_min_contacts;   /* lsim_stepper_set_team_min_contacts */
  int *order_count, order_count_cap; /* [T (maxdepth + 1)] the team's counts per key and
                                        member, then each member's first position */
  int bguess_valid;       /* bguess was handed to the solver at the last step */
  const unsigned char *final_b; /* this step's final basis (the solver's), or NULL */
  IdIndex *table;         /* [table_size] open addressing by id: index into prev_* */
  int table_size;         /* a power of two >= 2 prev_count, or 0 */
  unsigned table_stamp;   /* the stamp of the slots in use (never 0) */
  /* B's own capacity: its pattern is J's with a block-diagonal mass, wider with a coupled
     one or after eliminating joint rows. */
  int b_cap;
  /* Joint (equality) rows, eliminated before the LCP (contact/equality.c). */
  int e_cap, e_nnz_cap;
  int *E_ptr, *E_idx, *EB_ptr, *EB_idx; /* J_E (CSR) and B_E = W J_E' (CSC) */
  double *E_val, *EB_val, *E_rhs, *E_lambda;
  int eb_cap;
  int ne;
  /* [inert_cap] per LCP variable, J_i W J_i' before the joints' elimination (normal rows
     of contacts; 0 elsewhere), against which lsim_step finds the contacts the joints hold
     (lsim_step_inert_contacts). */
  double *inert_pre;
  int inert_cap;
  unsigned char *inert_mark; /* [inert_mark_cap] per contact: held open by the joints */
  int inert_mark_cap;
  int *row_owner;            /* [row_owner_cap] per row: the contact it starts, or -1
                                (drop_marked_contacts) */
  int row_owner_cap;
  double *v_free0;           /* [nv] v_free before the joints' elimination (which changes
                                it), for an assembly made again */
  /* Tether and joint rows of sleeping groups, dropped from this step's LCP and put back
     into the contact set after the step with the impulses they last carried awake
     (last_tether [ntethers], last_joint [3 njoints], by joint row). */
  LsimContact *rest_contacts;
  LsimJacRow *rest_rows;
  int nrest, rest_cap, rest_rows_cap;
  double *last_tether, *last_joint;
  LsimEquality *equality;
  LsimMassFactor *mass;   /* coupled mass matrix (model couplings), or NULL */
  /* Stage 6b, the position correction (step_correct.c): its rows (packed, so its sweeps
     read neither the contacts nor the model); the displacement [nv], zero between steps;
     per body, whether the displacement moved it. */
  LsimCorrectionRow *pc_row;
  int pc_row_cap;
  double *pc_dq;
  unsigned char *pc_moved; /* [nbodies] zero between steps */
  char last_error[256];   /* why the last step failed before its solve, "" if it did not */
  double *force;          /* [nv] generalized forces, coupled-mass path */
  int nbodies;
  int dimension;
  double *inv_inertia_body;  /* [9 * nbodies] body-frame inverse inertia (3-D), 1/I_zz (2-D) */
  double *inv_inertia;       /* [9 * nbodies] this step's world-frame inverse inertia */
  double *inv_mass;          /* [nbodies] 1 / mass of dynamic bodies, 0 otherwise */
  double *rot_c;             /* [3 * nbodies] 3-D: the gyroscopic change of w in v_free
                                (body-frame midpoint), which stage 6 replaces by the Lie
                                midpoint's for bodies without rows (step.c, rotation_step) */
  unsigned char *rot_free;   /* [nbodies] 1: the body has no contact, tether or joint row
                                this step (set before stage 6) */
  LsimBodyDofs *dofs;        /* [nbodies] velocities and kind, packed for the assembly */
  int restitution;           /* some body or pair of the model has restitution > 0 */
  const double *v_pre;       /* [nv] the step's starting velocities (restitution rows) */
  /* The energy guard's judge (step.c, energy_excess): this step's model and state, the
     free velocities' kinetic energy (once a step, when first judged) and v_free + B z. */
  const LsimModel *guard_model;
  const LsimState *guard_state;
  double guard_k0;           /* J; < 0: not yet measured this step */
  double *guard_v;           /* [nv] */
  /* Sleeping (model->sleep.enabled; all NULL when off, contact/sleep.c). */
  unsigned char *asleep;     /* [nbodies] 1: sleeping (v zero, q frozen, no LCP rows) */
  int *rest_steps;           /* [nbodies] consecutive steps at rest */
  int *group;                /* [nbodies] union-find parent, then a sleeper's group (root) */
  int *group_min;            /* [nbodies] per root: the fewest rest steps of its members */
  unsigned char *mark;       /* [nbodies] per root: group to wake */
  unsigned char *held;       /* [nbodies] per body, then per root: held from outside the
                                group (under gravity only a held group may sleep) */
  double *sleep_q;           /* [nq] a sleeper's coordinates when it fell asleep */
  /* The impulses of sleeping groups' contacts as of the step they fell asleep, by id: the
     warm start of a woken group's contacts (kept while one of the contact's bodies
     sleeps). */
  uint64_t *cache_id;        /* [cache_cap] */
  int *cache_body;           /* [2 cache_cap] the contact's bodies */
  int *cache_var, *cache_nvar; /* [cache_cap] its first value in cache_z, its count */
  double *cache_z;           /* [cache_zcap] */
  int ncache, cache_cap, cache_zlen, cache_zcap, cache_dirty;
  IdIndex *cache_table;      /* [cache_table_size] open addressing by id */
  int cache_table_size;
  int rest_needed;           /* steps at rest before a group sleeps */
  int nasleep;
  /* The admission check (contact/step_admit.c): the step's end velocities and the speed
     floor of its detection re-runs, allocated when first needed. */
  double *admit_v;           /* [nv] v' = v_free + B z */
  double *admit_floor;       /* [nbodies] zeroed at each step's first check */
};

/* A manifold in warm_spread_manifolds' order (contact/step.c): contacts [c, e), the
 * height of the body it holds up (+inf: none). */
typedef struct LsimManifoldRef {
  double height;
  double fr[3]; /* its friction at rest (rest_friction) when it holds a body up */
  int c, e;
} LsimManifoldRef;

/* a[0 .. n), in contact order (c rising) and with no NaN height, sorted higher first
 * (then in contact order) by a stable LSD radix sort on the height's bits through tmp[0
 * .. n): the order of the merge sort (and of qsort with that order) it replaced. */
void lsim_sort_manifolds(LsimManifoldRef *a, LsimManifoldRef *tmp, int n);

/* Sleeping (contact/sleep.c). lsim_sleep_init allocates when the model enables it (0 or
 * LSIM_OUT_OF_MEMORY); lsim_sleep_wake_inputs wakes, at the start of a step, the groups of
 * sleepers with an applied force, or a velocity or position set from outside; lsim_sleep_wake_contacts
 * wakes the groups that this step's contacts and constraint rows tie to something moving
 * (an awake dynamic body, a moving kinematic body or anchor) and returns how many bodies
 * woke; lsim_sleep_drop_contacts removes the contacts with no awake dynamic body;
 * lsim_sleep_update, after integration, counts rest steps and puts groups to sleep, keeping
 * their contacts' impulses for when they wake (0 or LSIM_OUT_OF_MEMORY). */
int lsim_sleep_init(LsimStepper *s, const LsimModel *m);
void lsim_sleep_free(LsimStepper *s);
int lsim_sleep_wake_inputs(LsimStepper *s, const LsimModel *m, const LsimState *st);
int lsim_sleep_wake_contacts(LsimStepper *s, const LsimModel *m);
void lsim_sleep_drop_contacts(LsimStepper *s, const LsimModel *m);
int lsim_sleep_update(LsimStepper *s, const LsimModel *m, LsimState *st);
/* The impulses a sleeping (or just woken) group's contact of this id and nvar variables
 * had when the group fell asleep, or NULL. */
const double *lsim_sleep_cached(const LsimStepper *s, uint64_t id, int nvar);

/* The most detection re-runs a step makes for contacts its admission left out
 * (lsim_step_admit). */
#define LSIM_ADMIT_RERUNS 3

/* Stage 5b (contact/step_admit.c): after the solve, whether the step's end velocities
 * v' = v_free + bz close a contact that detection left out (lsim_contacts_missed, for the
 * bodies the impulses sped past their speed bound). pass: 0 at the step's first solve (the
 * floor is zeroed), then the re-run's number. Returns the number of such points (> 0: the
 * caller detects again with s->contacts.speed_floor = s->admit_floor), *nfast the bodies
 * faster than their bound, or LSIM_OUT_OF_MEMORY. */
int lsim_step_admit(LsimStepper *s, const LsimModel *m, const double *bz, int pass, int *nfast);

/* The warm-start table (step.c) over prev_id [count], prev_var, prev_nvar as they are
 * (prev_nvar unmarked: a repeated id is marked here, the table keeping its first): what
 * each step does after its impulses, and what a stepper given a run's memory does
 * (contact/step_memory.c). 0 or LSIM_OUT_OF_MEMORY. */
int lsim_step_remember(LsimStepper *s, int count);
/* The sleep cache's lookup table over its entries as they are (sleep.c); 0 or
 * LSIM_OUT_OF_MEMORY. */
int lsim_sleep_cache_table(LsimStepper *s);
/* Room for n entries in the impulse cache (contact/sleep.c); 0 or LSIM_OUT_OF_MEMORY. */
int lsim_sleep_cache_reserve(LsimStepper *s, int n);

/* Stage 3 (step_lcp.c): the factored LCP of the step's contacts and joint rows into s->f;
 * 0, or LSIM_OUT_OF_MEMORY / a joint elimination's status with err filled. */
int lsim_step_assemble(LsimStepper *s, const LsimModel *m, char *err, size_t errlen);

/* After an assembly that eliminated joint rows, the contacts and tethers whose rows the
 * joints hold: a row's diagonal J_i B_i' has fallen to round-off (<= 1e-10 of J_i W J_i'
 * before the elimination), so no impulse of its own moves anything. mark[c] (mark
 * [count]) = 1: the normal (tether) row is held and q_i >= -1e-10 max(1, max|q|) (open,
 * or closed to rounding: its impulses are zero in a least-norm solution); 2: every
 * friction row is held (its friction impulses move nothing: a chain's neighbours touching
 * at their pin); 0 otherwise. Returns how many are marked. */
/* Stage 6b (step_correct.c): moves the awake dynamic bodies of contacts deeper than
 * lsim_correction_slop after the step apart, by positions only. 0 or LSIM_OUT_OF_MEMORY. */
int lsim_step_correct_positions(LsimStepper *s, const LsimModel *m, LsimState *st);
/* The most of a penetration the velocity LCP removes in a step, m:
 * min(LSIM_CORRECTION_SLOP, max_correction_speed h). */
double lsim_correction_slop(const LsimModel *m);
/* Sweeps of stage 6b's projected Gauss-Seidel at most: a bound on its work per step (a
 * chain converges slowly, as Gauss-Seidel does on a path; what is left waits a step). */
#define LSIM_CORRECTION_SWEEPS 500

int lsim_step_inert_contacts(LsimStepper *s, unsigned char *mark);

/* y = W_b x for body b's velocity block (W = inverse mass, world frame); zero for
 * non-dynamic bodies. */
static inline void apply_inverse_mass_dynamic(const LsimStepper *s, int bi, const double *x,
                                              double *y) {
  const double im = s->inv_mass[bi];
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

static inline void apply_inverse_mass(const LsimStepper *s, int bi, const LsimBody *b, const double *x,
                               double *y) {
  if (b->type != LSIM_BODY_DYNAMIC) {
    for (int k = 0; k < b->nv; ++k) y[k] = 0.0;
    return;
  }
  apply_inverse_mass_dynamic(s, bi, x, y);
}

/* Number of LCP variables of a contact: [c_n] [beta_1..d lambda]. */
static inline int contact_nvar(const LsimContact *c) {
  if (c->kind == LSIM_CONTACT_EQUALITY) return 0; /* eliminated before the LCP */
  return (c->kind == LSIM_CONTACT_NORMAL || c->kind == LSIM_CONTACT_TETHER ? 1 : 0) +
         (c->ndir > 0 ? c->ndir + 1 : 0);
}

/* Whether a contact's first variable is a unilateral normal-like row (contact, tether). */
static inline int has_normal(const LsimContact *c) {
  return c->kind == LSIM_CONTACT_NORMAL || c->kind == LSIM_CONTACT_TETHER;
}

/* A contact's fields that the passes after the numbering read (cq_range, warm_range, the
 * position correction's rows), copied from the 216 B record by number_range when it sets
 * first_var (s->hot, in the set's order; valid from each assembly until the set changes):
 * 56 B a contact where those passes each loaded three or four of the record's cache lines.
 * The same values, so the same results. */
typedef struct LsimContactHot {
  uint64_t id;
  double gap, mu, bias;
  int body[2];
  int first_row, first_var;
  short kind, ndir;
} LsimContactHot;

static inline int hot_has_normal(const LsimContactHot *c) {
  return c->kind == LSIM_CONTACT_NORMAL || c->kind == LSIM_CONTACT_TETHER;
}

static inline int hot_nvar(const LsimContactHot *c) {
  if (c->kind == LSIM_CONTACT_EQUALITY) return 0;
  return hot_has_normal(c) + (c->ndir > 0 ? c->ndir + 1 : 0);
}

/* Entries of C a contact's rows hold: one per direction (+1 at lambda), and its lambda
 * row's mu at c_n and -1 at each direction. */
static inline int contact_c_entries(const LsimContact *c) {
  return c->ndir > 0 ? 2 * c->ndir + has_normal(c) : 0;
}

/* J_row . x over the row's bodies, x a generalized velocity vector. */
static inline double row_dot(const LsimModel *m, const LsimJacRow *r, const double *x) {
  double s = 0.0;
  for (int k = 0; k < 2; ++k) {
    if (r->body[k] < 0) continue;
    const LsimBody *b = &m->bodies[r->body[k]];
    for (int d = 0; d < b->nv; ++d) s += r->j[k][d] * x[b->v_offset + d];
  }
  return s;
}

#endif
