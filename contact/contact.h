/* contact.h: contacts and constraint rows of one step.
 *
 * A contact is a group of LCP rows sharing a point: a normal row (non-penetration,
 * unless the normal impulse is fixed, as for 1-D ground friction under load m*g) and,
 * with friction, d direction rows of the polyhedral cone. Every row is a Jacobian over at
 * most two bodies' generalized velocities: the gap rate of a normal row is J v, the
 * tangential velocity along direction k is D_k v, and the impulse z on a row adds J^T z
 * to the generalized momenta. Contact detection produces contacts; LCP assembly reads
 * rows only, so new geometry or constraint kinds add rows, not solvers.
 */
#ifndef LSIM_CONTACT_H
#define LSIM_CONTACT_H

#include <stddef.h>
#include <stdint.h>

#include "contact/world.h"

#define LSIM_MAX_DIRECTIONS 16 /* friction directions per contact at most */
#define LSIM_MAX_BODY_DOF 6    /* generalized velocities per body at most */

typedef enum LsimContactKind {
  LSIM_CONTACT_NORMAL = 0,        /* unilateral non-penetration, optional friction */
  LSIM_CONTACT_FIXED_NORMAL = 1,  /* friction only, under a known normal impulse
                                     (1-D ground friction: m g_n h) */
  LSIM_CONTACT_TETHER = 2,        /* a tether: one unilateral row, gap = psi = slack length,
                                     frictionless */
  LSIM_CONTACT_EQUALITY = 3,      /* one bilateral (joint) row: J v' + gap / h (+ bias) = 0,
                                     impulse free in sign; eliminated before the LCP */
} LsimContactKind;

/* One Jacobian row: coefficients over the velocities of up to two bodies. body[k] < 0 or
 * a body without velocities (static) contributes nothing. */
typedef struct LsimJacRow {
  int body[2];
  double j[2][LSIM_MAX_BODY_DOF];
} LsimJacRow;

typedef struct LsimContact {
  uint64_t id;          /* stable across steps: the pair and the feature */
  LsimContactKind kind;
  int body[2];          /* the bodies (indices into the model); body[1] may be static */
  double gap;           /* phi >= 0 when apart, m */
  double point[3];      /* world contact point */
  double normal[3];     /* world unit normal, pointing from body[1] into body[0] */
  double mu;            /* friction coefficient (0: frictionless, no direction rows) */
  int ndir;             /* friction directions d (0 when mu = 0) */
  double tangent[2][3]; /* the cone's tangent basis t1, t2 (world): direction k is
                           cs[k] t1 + sn[k] t2 with lsim_cone_weights(ndir) (1-D, 2-D: t2
                           = 0, the directions t1 and -t1) */
  double normal_load;   /* FIXED_NORMAL only: the known normal impulse, N*s */
  double bias;          /* explicit time derivative of the gap (a moving anchor's d psi /
                           dt), m/s, added to the row: w = gap/h + J v' + bias */
  int source;           /* TETHER / EQUALITY: index of the tether or joint; -1 for contacts */
  int first_row;        /* rows: [normal (if kind NORMAL)] then ndir direction rows */
  int first_var;        /* LCP variables: [c_n (if NORMAL)] [beta_1..d] [lambda (if d)] */
  /* Results of the step, N*s (force = impulse / h). */
  double normal_impulse;
  double friction_impulse[3]; /* world vector on body[0] */
  double slip_speed;    /* lambda: the cone's estimate of the sliding speed, m/s */
} LsimContact;

struct LsimTeam;
struct LsimDetectTeam;
struct LsimPairTable;

typedef struct LsimContactSet {
  int count, capacity;
  LsimContact *contacts;  /* [count] */
  int nrows, rows_capacity;
  LsimJacRow *rows;       /* [nrows] */
  void *scratch;          /* detection workspace, grown on demand */
  size_t scratch_bytes;
  /* Optional, borrowed: a thread team (lcp/team.h) that 2-D and 3-D detection splits its
     work over; the contacts are the same, in the same order, with or without it. */
  struct LsimTeam *team;
  struct LsimDetectTeam *parallel; /* the team's workspaces (owned) */
  /* Optional, borrowed: per body, 1 for a sleeping body (contact/sleep.c); 2-D and 3-D
     detection then skips the pairs of two sleeping bodies, or of a sleeping and a static
     one (nothing in them moves; the step would drop their contacts). NULL: none. */
  const unsigned char *asleep;
  /* Optional, borrowed: per body, a floor (m/s) under the speed bound with which 2-D and
     3-D detection admits its contacts: the time step's re-run for bodies its impulses sped
     past their bound (lsim_contacts_missed). NULL: none. */
  const double *speed_floor;
  /* Optional, borrowed: the previous step's contact ids (the time step's warm-start table):
     was(was_ctx, id) 1 when id was a contact. 2-D and 3-D detection then keeps the order of
     a pair whose order round-off can swap (lsim_collide_fragile: two equal boxes
     side by side at one height) when its points had ids the step before in that order and
     none in the canonical one, so a persistent pair keeps its features and ids (and its
     warm start). Read by every detection member at once. NULL: the canonical order. */
  int (*was)(const void *was_ctx, uint64_t id);
  const void *was_ctx;
  /* 1: the broad phase sweeps x alone (tests: the default, x with a second axis in bands,
     finds the same pairs in the same order). */
  int sweep_x_only;
  int *bands;             /* the bands' lists (owned), grown on demand */
  int bands_capacity;
  /* The pairs of bodies joints join, sorted (owned; contact.c): the pair filter of
     lsim_shapes_collide in O(log J) a candidate pair, rebuilt when the joints change. */
  struct LsimPairTable *pairs;
} LsimContactSet;

/* Empties the set, keeping its memory. */
void lsim_contacts_clear(LsimContactSet *set);
void lsim_contacts_free(LsimContactSet *set);

/* Appends a contact with nrows zeroed rows; returns it (first_row set) or NULL when out
 * of memory. Pointers into the set are valid until the next add. */
LsimContact *lsim_contacts_add(LsimContactSet *set, int nrows);

struct LsimContactPoint;

/* Appends the contact of manifold point pt between shapes sa and sb (in lsim_collide's
 * order: the normal points from sb towards sa) in state st, as detection writes it: id,
 * the pair's mu, the normal and direction rows (the same bits as detection's for the
 * same point). For a contact followed where detection no longer has it (the
 * event-driven integrator's contacts past a face's edge, contact/geometry.h
 * lsim_box_face_vertex). 0, LSIM_INVALID_INPUT (a shape index out of range) or
 * LSIM_OUT_OF_MEMORY. */
int lsim_contacts_add_point(LsimContactSet *set, const LsimModel *m, const LsimState *st, int sa,
                            int sb, const struct LsimContactPoint *pt);

/* The stable id of the contact between bodies a and b at feature f. */
uint64_t lsim_contact_id(int a, int b, int feature);

/* The weights of a cone's d = ndir directions (ndir <= LSIM_MAX_DIRECTIONS): direction k
 * is cs[k] t1 + sn[k] t2, at the angle 2 pi k / d, exact at the quarter turns; for even
 * d the second half is the exact negative of the first (so are their Jacobian rows, to
 * the bit: the time step's assembly relies on it). d = 2: (1, 0) and (-1, 0). */
void lsim_cone_weights(int ndir, double *cs, double *sn);

/* The farthest any point of body b's shapes lies from its center (m; 0 without shapes). */
double lsim_body_reach(const LsimModel *m, int b);

/* The largest speed of any point of body b's shapes at velocities v [nv] (2-D, 3-D): its
 * linear speed plus its angular speed times the farthest a shape point lies from its
 * center; 0 for a body without velocities. */
double lsim_body_speed_bound(const LsimModel *m, int b, const double *v);

/* Half the smallest thickness among body b's shapes (m): a sphere's or capsule's radius, a
 * box's smallest half extent, 0 for a point; +inf for a body with planes only or none. */
double lsim_body_half_thickness(const LsimModel *m, int b);

/* Gap (m) within which shapes count as touching whatever their speeds: far above the
 * rounding of placed coordinates (1e-16 relative; 1e-10 m at 1e6 m, limits.max_position)
 * and below any gap a scene means. */
#define LSIM_TOUCH_REACH 1e-9

/* The joints (pins and rods) that join bodies a and b, from set's pair table as the last
 * detection built it for m's joints: their count (0 without joints), and in *joints their
 * indices, ascending (valid until the joints change). O(log J). */
int lsim_contacts_pair_joints(const LsimContactSet *set, const LsimModel *m, int a, int b,
                              const int **joints);

/* Whether bodies a and b may have contacts: 0 when a joint with no_collide joins them (its
 * scene key "collide": false), else 1. A scan of the joints: O(njoints) a call (1-D
 * detection asks the set's sorted table instead, with the same answers). */
int lsim_pair_collides(const LsimModel *m, int a, int b);

/* Whether shapes sa and sb (2-D, 3-D; indices into m->shapes) may have contacts: 0 when
 * they are on the same body, when a joint with no_collide joins their bodies, or when a
 * pin joins them at a point inside both shapes: each end's point lies in its own body's
 * shape (its boundary included, to 1e-9 m) and deeper than 1e-9 m in at least one. Two
 * convex shapes that keep such a point in common overlap at every angle of the pin: their
 * contact could never open, and the LCP left with it after the pin's elimination asks a
 * rotation about the pin to separate them (docs/scene-format.md, "Contacts between
 * jointed bodies"). Else 1. A scan of the joints, O(njoints): the reference of detection's
 * table (lsim_contacts_shapes_collide). */
int lsim_shapes_collide(const LsimModel *m, int sa, int sb);

/* lsim_shapes_collide through set's pair table (built or rebuilt for m's joints when
 * needed): O(log J) a call, the same answers; LSIM_OUT_OF_MEMORY (< 0) when the table
 * cannot be built. */
int lsim_contacts_shapes_collide(LsimContactSet *set, const LsimModel *m, int sa, int sb);

/* Finds the contacts of the model in the given state whose gap could close within the
 * step at the free velocities v_free [nv]. 2-D, 3-D: gap <= margin + LSIM_TOUCH_REACH +
 * h (s_a + s_b), s_k body k's own speed bound at v_free (lsim_body_speed_bound: linear
 * speed plus angular speed times reach; 0 without velocities): a speed, not a closing
 * speed along the normal (a body moving sideways keeps the contacts it passes), and
 * gravity's h g counts in both bodies of a resting pair. The bound does not count what
 * the step's impulses add: a body at rest struck within the step can meet a shape beyond
 * its bound (a sphere struck at 1 m/s, a second one 1 mm beyond it: 4 mm of overlap at h
 * = 0.01 s); the time step checks its end velocities for that (lsim_contacts_missed) and
 * detects again with set->speed_floor raised (docs/solvers.md, "Contacts left out by the
 * admission bound"). A non-NULL set->speed_floor raises each body's bound to at least its
 * entry. 1-D: gap <= margin + 2 h max |v_free| over every
 * body (there no body ends a step faster). Fills set (cleared first). 1-D: neighbouring segments, segments and walls, and ground
 * friction. Pairs that a joint with no_collide joins get no contacts (lsim_pair_collides),
 * nor (2-D, 3-D) shapes that a pin joins at a point inside both (lsim_shapes_collide).
 * 2-D and 3-D scenes of 256 shapes or more run on set->team when it has more
 * than one member (the caller must not run the team meanwhile); the contacts and rows are
 * those of one thread, bit for bit. Returns 0 or LSIM_OUT_OF_MEMORY. */
int lsim_detect_contacts(const LsimModel *model, const LsimState *state, const double *v_free,
                         LsimContactSet *set);

/* After a 2-D or 3-D lsim_detect_contacts on set for m (nothing detected since; the state
 * unchanged): whether its admission left out a contact that the step's end velocities
 * v_end [nv] close. The bodies whose speed bound (lsim_body_speed_bound) at v_end exceeds
 * the one their contacts were admitted with (in *nfast; dynamic, awake bodies only) get
 * floor[body] raised to that bound (floor [nbodies], zero or an earlier floor of the
 * step; no other entry changes); their shapes alone are collided against every other
 * shape, each pair with the margin of detection at those bounds, and a manifold point
 * beyond the margin detection used (so not in the set) counts when its gap + h (its
 * normal velocity at v_end) < 0, the contact closing within the step. Returns that count
 * (0 also for 1-D or before any detection), or LSIM_OUT_OF_MEMORY. Cost: nothing but a
 * pass over the bodies without a faster body; else O(S) box tests a fast shape. */
int lsim_contacts_missed(LsimContactSet *set, const LsimModel *m, const double *v_end,
                         double *floor, int *nfast);

#endif
