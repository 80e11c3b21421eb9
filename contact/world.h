/* world.h: the simulated world, split MuJoCo-style into a model (what the scene says;
 * const during a run) and a state (time, positions, velocities; the only thing the
 * step changes and the recorder writes).
 *
 * Generalized coordinates. Each body owns a slice of the flat state arrays:
 *   dimension 1: q = x,            v = xdot                 (nq = nv = 1 per body)
 *   dimension 2: q = (x, y, theta), v = (xdot, ydot, omega) (nq = nv = 3)
 *   dimension 3: q = (x, y, z, qw, qx, qy, qz), v = (vx, vy, vz, wx, wy, wz) (nq 7, nv 6)
 * Static bodies own no coordinates. Kinematic bodies own coordinates whose motion is
 * prescribed (they push others and are not pushed). The mass matrix is block diagonal
 * per body.
 *
 * Units are SI throughout: m, kg, s, N; impulses are N*s.
 */
#ifndef LSIM_WORLD_H
#define LSIM_WORLD_H

#include <stdint.h>

/* Initial overlap and its correction (LsimModel.max_correction_speed, overlap_tolerance):
 * 1 m/s moves an overlap out by 1 cm a step at h = 0.01 s (by positions: it sets nothing
 * moving), and 1 mm is above the step's round-off gaps and below any shape size the
 * examples use. */
#define LSIM_DEFAULT_MAX_CORRECTION_SPEED 1.0 /* m/s */
#define LSIM_DEFAULT_OVERLAP_TOLERANCE 1e-3   /* m */
/* The most of a penetration a step's velocity LCP removes (the rest the step's position
 * correction removes, moving positions, not velocities): 2e-4 m is above the gaps resting
 * contacts keep under an exact solver (round-off, 1e-12 m) and the 1.6e-4 m the falling
 * dominoes example reaches, so such scenes step as before, and at h = 0.01 s each
 * overlapping contact of a chain adds at most 0.02 m/s. */
#define LSIM_CORRECTION_SLOP 2e-4 /* m */

typedef enum LsimBodyType {
  LSIM_BODY_DYNAMIC = 0,
  LSIM_BODY_STATIC = 1,    /* fixed forever: walls, ground */
  LSIM_BODY_KINEMATIC = 2, /* prescribed velocity: pushes, is not pushed */
} LsimBodyType;

typedef enum LsimShapeType {
  LSIM_SHAPE_SEGMENT = 0,  /* 1-D: [x - width/2, x + width/2]; width 0 is a point */
  LSIM_SHAPE_HALFLINE = 1, /* 1-D fixed wall: occupies x <= position ("left") or
                              x >= position ("right") */
  LSIM_SHAPE_PLANE = 2,    /* 2-D/3-D half-space: solid below the plane through the shape's
                              origin with normal = the shape's local +y (2-D) / +z (3-D) */
  LSIM_SHAPE_SPHERE = 3,   /* sphere (3-D) / disk (2-D) of radius */
  LSIM_SHAPE_BOX = 4,      /* box (3-D) / rectangle (2-D) of half extents half[0..2] */
  LSIM_SHAPE_CAPSULE = 5,  /* segment of half length half[0] along the local x (2-D) / z (3-D)
                              axis, swept by radius */
  LSIM_SHAPE_POINT = 6,    /* a contact point: a zero-radius sphere */
} LsimShapeType;

/* A collision shape fixed to a body (2-D and 3-D worlds). 2-D worlds use x, y and
 * rotations about z only. */
typedef struct LsimShape {
  char name[48];
  LsimShapeType type;
  int body;             /* owner (index into the model's bodies) */
  double pos[3];        /* origin in the body frame */
  double rot[4];        /* orientation in the body frame, unit quaternion (w, x, y, z) */
  double radius;        /* sphere, disk, capsule */
  double half[3];       /* box half extents; capsule: half[0] = half length */
  double mu;            /* friction coefficient of the material; a pair uses sqrt(mu_a mu_b) */
} LsimShape;

/* A function of time with width components: constant, or a table of (t, value) pairs
 * interpolated linearly and held at the end values outside the table. A constant of width
 * 1 is `constant`; a constant vector (width > 1) has npoints = 0 and its components in
 * value[0 .. width-1] (value NULL: `constant` for component 0, zero for the others). */
typedef struct LsimSchedule {
  double constant;
  int npoints;        /* 0: constant */
  double *t;          /* [npoints] strictly increasing */
  double *value;      /* [npoints * width] row-major: value at t[k] is value[k*width ..] */
  int width;          /* components per point (1 in 1-D) */
} LsimSchedule;

typedef struct LsimBody {
  char name[48];
  LsimBodyType type;
  LsimShapeType shape;  /* 1-D worlds: SEGMENT or HALFLINE; 2-D/3-D use shapes[] */
  double mass;          /* kg, > 0 for dynamic bodies */
  double inertia[9];    /* 2-D/3-D: inertia tensor about the center of mass in the body
                           frame, row-major, kg m^2 (2-D uses inertia[8] = I_zz) */
  double width;         /* 1-D segment width, >= 0 */
  int side;             /* half-line: -1 occupies x <= position (a "left" wall), +1 x >= */
  double ground_mu;     /* 1-D: Coulomb friction with the ground under normal load m*g_n;
                           0 = frictionless */
  double pose[7];       /* static bodies: their fixed pose: 1-D pose[0] = x; 2-D
                           (x, y, theta); 3-D (x, y, z, qw, qx, qy, qz) */
  LsimSchedule force;   /* applied generalized force: 1-D f; 2-D (fx, fy, torque);
                           3-D (fx, fy, fz, tx, ty, tz), world frame, N and N m */
  LsimSchedule kinematic_velocity; /* kinematic bodies: prescribed velocity, same layout
                                      as v */
  double restitution;   /* coefficient of restitution e in [0, 1] of the body's material; a
                           pair uses the larger of its two bodies' (lsim_pair_restitution) */
  int first_shape, nshapes; /* 2-D/3-D: this body's shapes in model->shapes (by finalize) */
  int q_offset, v_offset; /* slices of LsimState.q / v; -1 for static bodies */
  int nq, nv;
} LsimBody;

/* An inertial coupling of two bodies' first velocities: kinetic energy
 * inertia (v_a - v_b)^2 / 2 (e.g. two carts linked by a rack and pinion through a
 * flywheel of moment J and radius r: inertia = J / r^2). With couplings the mass matrix is
 * no longer block diagonal: the step factors it with CHOLMOD (contact/mass.h). 1-D. */
typedef struct LsimCoupling {
  int body[2];
  double inertia;     /* kg (a mass: the coupling's inertia over its lever arm squared) */
} LsimCoupling;

/* Prescribed motion of a point (a moving tether anchor): its world position is
 *   p(t) = origin + velocity t + amplitude sin(2 pi frequency t + phase)    (kind MOTION_SINE
 *   adds the sine to the constant velocity), or origin + integral of a velocity table. */
typedef enum LsimMotionKind {
  LSIM_MOTION_FIXED = 0,     /* p(t) = origin */
  LSIM_MOTION_VELOCITY = 1,  /* constant velocity (plus the sine when amplitude != 0) */
  LSIM_MOTION_TABLE = 2,     /* velocity table (width 3), integrated exactly (piecewise linear) */
} LsimMotionKind;

typedef struct LsimMotion {
  LsimMotionKind kind;
  double origin[3];
  double velocity[3];
  double amplitude[3];
  double frequency;          /* Hz */
  double phase;              /* rad */
  LsimSchedule table;        /* TABLE: world velocity, width 3 */
} LsimMotion;

/* World position and velocity of a prescribed motion at time t. */
void lsim_motion_eval(const LsimMotion *m, double t, double p[3], double v[3]);

/* One end of a tether or joint: a point fixed on a body (body >= 0, point in the body
 * frame), a fixed world point (body = -1, motion FIXED, origin), or a point moving on a
 * prescribed path (body = -1, motion). */
typedef struct LsimAnchor {
  int body;
  double point[3];           /* body frame, when body >= 0 */
  LsimMotion motion;         /* body = -1 */
} LsimAnchor;

/* A tether (rope): unilateral distance constraint psi = length - |p_a - p_b| >= 0 with
 * impulse >= 0, zero when slack (Trinkle's tethered bodies). */
typedef struct LsimTether {
  char name[48];
  LsimAnchor end[2];         /* end[0] must be on a dynamic body */
  double length;             /* m, > 0 */
} LsimTether;

/* Bilateral joints (equality rows): a pin (the two points coincide: 2 rows in 2-D, 3 in
 * 3-D (a ball joint), 1 in 1-D) or a rod (fixed distance |p_a - p_b| = length: 1 row). */
typedef enum LsimJointType { LSIM_JOINT_PIN = 0, LSIM_JOINT_ROD = 1 } LsimJointType;

typedef struct LsimJoint {
  char name[48];
  LsimJointType type;
  LsimAnchor end[2];         /* end[0] on a dynamic body; end[1] on a body or the world */
  double length;             /* rod */
  int no_collide;            /* 1: the two ends' bodies get no contacts with each other (scene
                                key "collide": false); 0 (default): they collide as any pair,
                                but for shapes a pin joins at a point inside both
                                (lsim_shapes_collide, contact/contact.h) */
  double initial_error;      /* m: the scene's initial position error (lsim_joint_error),
                                before assembly when the model assembles */
  double initial_velocity_error; /* m/s: the same for its rate (lsim_joint_velocity_error) */
} LsimJoint;

/* Solver settings as the scene gives them; names are lcp/solver.h names. */
typedef struct LsimSolverSettings {
  char name[48];
  double tol;
  int max_iter;
  double omega;
  int warm_start;     /* warm start each step from the previous step's impulses */
  int threads;        /* PGS sweep team size (lcp/pgs.h); 1 = this thread alone */
  int islands;        /* lemke, newton: solve separate body groups one by one (default 1) */
  int on_failure;     /* LSIM_ON_FAILURE_*: what a step whose solve failed leads to */
  int sparse_limit;   /* newton: sparse Lemke after its own phases fail, n <= this (-1 any
                         n, 0 never: the default); LsimSolverOptions.sparse_limit */
  int block_start;    /* lemke_sparse: rounds of block pivoting (0 .. 1000; 0: the
                         environment's); LsimSolverOptions.block_start */
  int lu_solve;       /* lemke_sparse: LSIM_LU_* (lcp/solver.h; 0: the environment's) */
  int lu_refactor;    /* lemke_sparse: refactorization interval, 10 .. 100000 (0: the
                         environment's, else 100) */
  int principal;      /* lemke_sparse: principal pivots before Lemke's path from a basis
                         guess (0 .. LSIM_PRINCIPAL_MAX; 0: the environment's
                         LSIM_PRINCIPAL); LsimSolverOptions.principal */
  int precision;      /* pgs: the sweep's arithmetic at a fixed budget, 1 double, 2 single
                         (0: the environment's LSIM_PGS_PRECISION, else double);
                         LsimSolverOptions.precision */
} LsimSolverSettings;

/* What a failed solve leads to (docs/solvers.md, "Failure policy"): fallback (default) tries
 * the documented chain of other solvers and keeps the best result; stop ends the run at
 * that step; continue integrates the failed result and records it. */
enum { LSIM_ON_FAILURE_FALLBACK = 0, LSIM_ON_FAILURE_STOP = 1, LSIM_ON_FAILURE_CONTINUE = 2 };

/* "fallback", "stop", "continue" to LSIM_ON_FAILURE_* in *policy: 0, or -1 for another
 * word (*policy unchanged). lsim_on_failure_name is the inverse ("?" out of range). */
int lsim_on_failure_parse(const char *word, int *policy);
const char *lsim_on_failure_name(int policy);

/* Bounds on the state a run may reach (contact/guard.h): beyond one, or with a
 * non-finite value anywhere, the run stops at that step. */
typedef struct LsimLimits {
  double max_position;      /* m: |body origin| (default 1e6) */
  double max_speed;         /* m/s: |linear velocity| (default 1e4) */
  double max_angular_speed; /* rad/s: |angular velocity|, 2-D and 3-D (default 1e6) */
} LsimLimits;

/* Sleeping (contact/sleep.c, docs/solvers.md "Islands"): a dynamic body whose linear and
 * angular speeds stay at or below the thresholds for `time` seconds is at rest; a group of
 * bodies touching each other (contacts, tethers, joints, couplings between dynamic bodies)
 * whose members are all at rest sleeps together: velocities zero, positions frozen, no
 * integration, no LCP rows, until something awake touches it or an input acts on it. Off
 * by default: it changes results (a sleeping body no longer creeps). */
typedef struct LsimSleep {
  int enabled;          /* 0 (default) or 1 */
  double linear_speed;  /* m/s: |v| at rest at most this (default 0.01) */
  double angular_speed; /* rad/s: |omega| at rest at most this (default 0.02; 1-D: none) */
  double time;          /* s: at rest this long before sleeping (default 0.5) */
} LsimSleep;

/* A coefficient of restitution for one pair of bodies, overriding the pair rule. */
typedef struct LsimRestitutionPair {
  int body[2];
  double restitution;
} LsimRestitutionPair;

/* The smallest event-driven precision (|g| at a located event, m for gaps). An event is
 * bracketed down to 4 ulps of time at best, across which a gap closing at v moves by
 * 4 * 2.2e-16 t v: 8.9e-13 m at t v = 1000 m (10 m/s at t = 100 s), above the gap's own
 * round-off at coordinates up to 1 km (2.2e-13 m). Below this floor a precision cannot be
 * met at such an impact and the run stops there (1e-15 stopped a ball at its 3rd impact,
 * t = 1.75 s at 2.8 m/s); the scene refuses it. */
#define LSIM_EVENT_PRECISION_FLOOR 1e-12

/* s: the shortest event-driven record period (time_step), hybrid/ode.h's
 * LSIM_ODE_TIME_FLOOR: CVODE cannot step a shorter span from t = 0 (its stop-time test
 * underflows), so the first sample could not be reached; the scene refuses it. */
#define LSIM_EVENT_TIME_FLOOR 1e-150

typedef struct LsimModel {
  int dimension;      /* 1, 2 or 3 */
  double gravity[3];  /* along the generalized axes; 1-D uses gravity[0] */
  double ground_normal_gravity; /* 1-D: g_n of the normal load m*g_n for ground friction */
  double time_step;   /* h, s */
  int steps;          /* number of steps to run */
  double contact_margin; /* contacts within this gap (plus what the step can close) are
                            put in the LCP; m */
  double max_correction_speed; /* m/s: a penetration deeper than the slop
                                  (LSIM_CORRECTION_SLOP) shrinks by this times h a step,
                                  by positions (contact/step_correct.c); default 1; +inf:
                                  at once */
  double overlap_tolerance;    /* m: scenes are refused when bodies start overlapping by
                                  more (default 1e-3; 2-D and 3-D) ... */
  int allow_initial_overlap;   /* ... unless this is 1 (default 0) */
  int friction_directions; /* d of the polyhedral cone: 1-D ground friction and 2-D: 2;
                              3-D: default 4, even, at most LSIM_MAX_DIRECTIONS; 0 (the
                              default model's) takes the dimension's default at
                              lsim_model_finalize, which refuses other values */
  int friction_exact;  /* 1: the step solves its contacts with Coulomb's exact cone
                          (contact/exact_cone.h); 0: the polyhedral cone of d directions */
  int rotation;        /* LSIM_ROTATION_*: how the step turns 3-D bodies' spin (contact/step.c,
                          rotation_step): the Lie midpoint (default; a body without contact,
                          tether or joint keeps its world angular momentum, |L| and energy)
                          or the body-frame midpoint of earlier versions (|L| and energy,
                          not the direction of L) */
  LsimSolverSettings solver;
  int nbodies;
  LsimBody *bodies;   /* [nbodies] */
  int nshapes;
  LsimShape *shapes;  /* [nshapes], sorted by body by lsim_model_finalize */
  int ncouplings;
  LsimCoupling *couplings; /* [ncouplings] inertial couplings (1-D); none: block diagonal */
  int ntethers;
  LsimTether *tethers;     /* [ntethers] */
  int njoints;
  LsimJoint *joints;       /* [njoints] */
  double baumgarte;        /* joint drift correction factor c in (0, 1]: the joint rows ask
                              for J v' = -c error / h; 0 (default) means c = 1, the
                              velocity-level step's own phi / h term; a scene's
                              "baumgarte_time" T gives h / T */
  int nq, nv;         /* sizes of the state arrays */
  double restitution_threshold; /* m/s: contacts approaching slower than this are
                                   inelastic whatever their restitution (default 0.01) */
  int nrestitution_pairs;
  LsimRestitutionPair *restitution_pairs; /* [nrestitution_pairs] per-pair overrides */
  int integrator;          /* LSIM_INTEGRATOR_*: the time step (default) or the event-driven
                              integrator of hybrid/event_driven.h (time_step is then the
                              record period) */
  double event_precision;  /* event-driven: |g| at located events, default 1e-10, at least
                              LSIM_EVENT_PRECISION_FLOOR */
  int event_chatter_events;     /* event-driven: impacts within the window that make a
                                   contact inelastic, default 20 */
  double event_chatter_window;  /* s, default 0.1 */
  double event_rtol, event_atol;  /* event-driven: CVODE tolerances, default 1e-12, 1e-14 */
  int event_impacts;       /* LSIM_IMPACTS_*: how the event-driven integrator and
                              lsim_impact_map resolve the closed contacts of an impact: in one
                              LCP (simultaneous, default) or pair by pair in sequence */
  int assemble;            /* the initial state was projected onto the joints
                              (contact/assembly.h) */
  LsimLimits limits;       /* the divergence guard's bounds (contact/guard.h) */
  LsimSleep sleep;         /* sleeping bodies at rest (off by default) */
} LsimModel;

enum { LSIM_INTEGRATOR_TIME_STEPPING = 0, LSIM_INTEGRATOR_EVENT_DRIVEN = 1 };
enum { LSIM_IMPACTS_SIMULTANEOUS = 0, LSIM_IMPACTS_SEQUENTIAL = 1 };
enum { LSIM_ROTATION_LIE_MIDPOINT = 0, LSIM_ROTATION_BODY_MIDPOINT = 1 };

typedef struct LsimState {
  double time;
  int step;           /* steps taken */
  double *q;          /* [model->nq] */
  double *v;          /* [model->nv] */
} LsimState;

/* A model with no bodies and the documented defaults (dimension 1, no gravity, h 0.01,
 * 100 steps, margin 0, solver lemke, tol 1e-10, warm start on, restitution threshold
 * 0.01 m/s). */
LsimModel lsim_default_model(void);

/* The coefficient of restitution of a contact between bodies a and b (either may be < 0:
 * the world): the pair's entry in model->restitution_pairs if there is one (in either
 * order), else the larger of the two bodies' restitution (Box2D's rule: a bouncy ball
 * bounces on any floor). */
double lsim_pair_restitution(const LsimModel *model, int a, int b);

/* Body defaults: dynamic segment, mass 1, width 0, no force, no friction. */
LsimBody lsim_default_body(void);

/* Adds a copy of body to the model (the model takes ownership of the body's schedules).
 * Returns the index or a negative status. */
int lsim_model_add_body(LsimModel *model, const LsimBody *body);

/* Adds a copy of shape (its body index already set) to the model. Returns the index or a
 * negative status. */
int lsim_model_add_shape(LsimModel *model, const LsimShape *shape);

/* A shape with the defaults: sphere of radius 0.5 at the body origin, identity rotation,
 * mu 0.5. */
LsimShape lsim_default_shape(void);

/* Assigns coordinate slices (q_offset, v_offset, nq, nv) and model->nq/nv from the body
 * types and the dimension, and sorts the shapes by body (first_shape, nshapes). Call once
 * after all bodies and shapes are added. Sets friction_directions 0 to the dimension's
 * default and refuses a value the dimension has not (LSIM_INVALID_INPUT). 0 or < 0. */
int lsim_model_finalize(LsimModel *model);

void lsim_model_free(LsimModel *model);

/* Allocates a zero state for model. 0 or LSIM_OUT_OF_MEMORY. */
int lsim_state_init(LsimState *state, const LsimModel *model);
void lsim_state_free(LsimState *state);

/* Schedule value at time t: component 0, or component d. */
double lsim_schedule_eval(const LsimSchedule *s, double t);
double lsim_schedule_eval_component(const LsimSchedule *s, double t, int d);
void lsim_schedule_free(LsimSchedule *s);

/* Energies of a state: kinetic 1/2 v' M v and gravitational potential -m g . x (of
 * dynamic bodies). */
double lsim_kinetic_energy(const LsimModel *model, const LsimState *state);
double lsim_potential_energy(const LsimModel *model, const LsimState *state);

/* World pose (p[3], unit quaternion q[4]) of body i in state: its coordinates for moving
 * bodies, its fixed pose for static ones; 1-D: p = (x, 0, 0); 2-D: rotation about z. */
void lsim_body_pose(const LsimModel *model, const LsimState *state, int i, double p[3],
                    double q[4]);

/* Inertia about the center of mass of standard solids of uniform density (body frame,
 * row-major 3x3): sphere radius r; box half extents (a, b, c); capsule (radius r, half
 * length L along z). 2-D worlds use I[8] only: disk (m r^2 / 2), rectangle (the box's
 * I[8] = m (a^2 + b^2) / 3), stadium (the 2-D capsule, axis along x). */
void lsim_inertia_sphere(double m, double r, double I[9]);
void lsim_inertia_disk(double m, double r, double I[9]);
void lsim_inertia_stadium(double m, double r, double half_length, double I[9]);
void lsim_inertia_box(double m, const double half[3], double I[9]);
void lsim_inertia_capsule(double m, double r, double half_length, double I[9]);

/* Principal moments d[3] of a real mass distribution satisfy the triangle inequality:
 * I_a = int (r^2 - x_a^2) dm, so I_b + I_c - I_a = 2 int x_a^2 dm >= 0 (equal for a body
 * flat across axis a). Returns 0 when they do (to LSIM_INERTIA_TRIANGLE_TOL of their sum,
 * the round-off of a flat body's moments), else 1 + the index of the moment too large. */
#define LSIM_INERTIA_TRIANGLE_TOL 1e-9
int lsim_inertia_triangle_violation(const double d[3]);

#endif
