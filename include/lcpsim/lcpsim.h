/* lcpsim.h: the public C API of lcpsim, a time-stepping rigid-body contact simulator.
 *
 *   #include <lcpsim/lcpsim.h>        cc app.c $(pkg-config --cflags --libs lcpsim)
 *
 * A simulation (LsimSim, opaque) holds a model (bodies, shapes, tethers, joints, solver
 * settings: what the scene says) and a state (time, positions q, velocities v). Each step
 * assembles the Stewart-Trinkle impulse-velocity LCP of the contacts, solves it with the
 * chosen complementarity solver and integrates (docs/solvers.md). Units are SI.
 *
 * Generalized coordinates, per body (static bodies have none):
 *   1-D q = x,                              v = xdot
 *   2-D q = (x, y, theta),                  v = (xdot, ydot, omega)
 *   3-D q = (x, y, z, qw, qx, qy, qz),      v = (vx, vy, vz, wx, wy, wz)   (world frame)
 * The state arrays are flat: body i owns q[q_offset .. q_offset + nq) and
 * v[v_offset .. v_offset + nv) (lsim_sim_body).
 *
 * Conventions of every function here:
 *  - Status codes: 0 success, < 0 error, > 0 warning (the LSIM_* values below; the text of
 *    a code is lsim_status_name). A step whose solver fails returns that solver's status
 *    and still advances the state with the solver's last finite iterate.
 *  - Errors never print and never exit. lsim_sim_error(sim) is the message of the last
 *    call on sim that returned a status and either failed or acted on sim: a call that
 *    takes a writable LsimSim * (a step, a run, a setter, a record) clears it first, so
 *    it reads "" after such a call succeeds; a read-only query, one that takes a const
 *    LsimSim * (lsim_sim_contacts, lsim_sim_last_step, lsim_sim_body and the like), writes
 *    it only when the query itself fails and otherwise leaves it alone, so that a failed
 *    step's message survives the queries that inspect the step (step, contacts, error);
 *    the functions that return a plain value, lsim_sim_time and the like, leave it alone.
 *    Functions that create a simulation write it into err[errlen] (err may be NULL; "" after a success). Messages name the place: file:line:column and the JSON path for
 *    scenes, the argument otherwise.
 *  - Ownership: the caller owns what it passes in (copied when kept); pointers returned
 *    by a simulation are owned by it and valid until the stated event (at the latest
 *    lsim_sim_free). Nothing here keeps a pointer the caller passed, except the user
 *    pointer of a controller.
 *  - A simulation is not thread safe: one thread at a time. Different simulations are
 *    independent.
 *  - A NULL simulation handle is refused, never dereferenced: functions returning a status
 *    return LSIM_INVALID_INPUT, queries return 0, 0.0 or NULL (lsim_sim_body_index -1),
 *    and lsim_sim_set_controller and lsim_sim_free do nothing.
 */
#ifndef LCPSIM_LCPSIM_H
#define LCPSIM_LCPSIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* LSIM_API marks the functions of this header: the shared library is built with hidden
 * visibility and exports these and nothing else (its internals cannot clash with, or be
 * replaced by, a program's own functions of the same name). */
#ifndef LSIM_API
#if defined(__GNUC__) || defined(__clang__)
#define LSIM_API __attribute__((visibility("default")))
#else
#define LSIM_API
#endif
#endif

/* ---- version and status codes ---------------------------------------------------- */

#define LSIM_API_VERSION 1 /* bumped when this header changes incompatibly */

/* The library's version, "MAJOR.MINOR.PATCH". */
LSIM_API const char *lsim_library_version(void);

#ifndef LSIM_LCP_H /* (the library's own sources have the same codes from lcp/lcp.h) */
enum {
  LSIM_SOLVED = 0,            /* success; for a solve: a solution within the tolerance */
  LSIM_MAX_ITERATIONS = -1,   /* pivot or sweep limit reached before a solution */
  LSIM_SECONDARY_RAY = -2,    /* Lemke: the entering column has no blocking row */
  LSIM_BREAKDOWN = -3,        /* numerical breakdown: singular pivot, non-finite values */
  LSIM_BAD_DIAGONAL = -4,     /* PGS: a zero or negative diagonal entry of M */
  LSIM_SOLVER_FAILED = -5,    /* an external (Siconos) solver reported failure */
  LSIM_INVALID_INPUT = -6,    /* bad arguments, sizes, non-finite data, a bad scene */
  LSIM_OUT_OF_MEMORY = -7,
  LSIM_UNAVAILABLE = -8,      /* solver unknown, not built, or known to abort */
  LSIM_IO_ERROR = -9,         /* a file could not be read or written */
  LSIM_WARM_START_REJECTED = 1 /* warning: the warm start guess was not usable */
};
/* A controller asked to stop (its return value was not 0): the step was not taken. */
#define LSIM_CONTROLLER_STOPPED (-50)
/* The divergence guard stopped the run: after the step a coordinate or contact impulse was
 * not finite, or a body left the scene's "limits" (docs/scene-format.md); lsim_sim_error
 * names the step, the body and the quantity. The state is that step's; it is not
 * recorded, and an open record is marked stopped: it ends there, the steps taken after
 * it are not recorded (close it; lsim_sim_record opens a new one). */
#define LSIM_DIVERGED (-51)
#endif

/* A short lower-case name for a status ("solved", "max_iterations", ...); never NULL. */
LSIM_API const char *lsim_status_name(int status);

/* ---- solvers ------------------------------------------------------------------- */

/* NULL-terminated list of the solver names: "lemke", "pgs", "siconos:NAME", ... Static. */
LSIM_API const char *const *lsim_solver_names(void);

/* Options of a solver; lsim_default_solver_config gives tol 1e-10, max_iter 0 (the
 * solver's default), omega 1, warm_start 1, threads 1, sparse_limit 0, principal 0,
 * precision 0. A configuration
 * outside the ranges below is refused (LSIM_INVALID_INPUT, the message naming the field)
 * by every function that takes one, as a scene's "solver" object is. */
typedef struct LsimSolverConfig {
  double tol;      /* finite, >= 0; acceptance: natural residual <= tol * s, s = max_i
                      |q_i| (1 when q = 0); 0 with PGS: exactly max_iter sweeps */
  int max_iter;    /* >= 0: sweeps (iterative) or pivots (pivoting); 0 = the solver's
                      default */
  double omega;    /* PGS relaxation in (0, 2) */
  int warm_start;  /* simulations: start each step from the previous step's impulses */
  int threads;     /* PGS sweep team size, 1 .. 64 (results depend on it, never on the run) */
  int sparse_limit; /* newton: when its own phases fail on a problem of more than 500
                       variables, sparse Lemke follows from its best point if n <= this;
                       -1: any n; 0: never (the default; seconds a step on settled piles) */
  int principal;   /* lemke_sparse only (another solver: 0): up to this many principal
                      pivots from the warm start's basis guess before Lemke's path, 0 ..
                      1000000; 0 (the default): the environment's LSIM_PRINCIPAL, else none.
                      As a scene's solver.principal (docs/solvers.md) */
  int precision;   /* pgs only (another solver: 0): the coloured sweep's arithmetic at a
                      fixed budget (tol 0, max_iter 1 .. 100), LSIM_PRECISION_DOUBLE (1) or
                      LSIM_PRECISION_FLOAT (2: other bits, the same on every path); 0 (the
                      default): the environment's LSIM_PGS_PRECISION, else double. As a
                      scene's solver.precision (docs/solvers.md, "Single-precision
                      arithmetic") */
} LsimSolverConfig;
/* LsimSolverConfig.precision */
#define LSIM_PRECISION_DOUBLE 1
#define LSIM_PRECISION_FLOAT 2
/* The defaults above, by value (nothing to free). */
LSIM_API LsimSolverConfig lsim_default_solver_config(void);

/* What one solve reported. A call refused before its solve (bad arguments, an unknown
 * solver, a file that does not read) fills it too: its status, iterations -1, residuals
 * INFINITY, wall_time 0. */
typedef struct LsimSolveReport {
  int status;               /* as returned */
  int iterations;           /* pivots or sweeps (docs/solvers.md); -1: the solver gives no
                               count (siconos:nsgs_sbm), not available, never 0 */
  double residual;          /* natural residual max_i |min(z_i, w_i)|, w = M z + q from z */
  double relative_residual; /* residual / s (s as for tol) */
  double wall_time;         /* s, the solver call */
} LsimSolveReport;

/* The standalone calls below (lsim_solve_lcp, lsim_solve_lcp_file, lsim_solve_fc,
 * lsim_solve_fc_file, lsim_compare) clear err[errlen] first: after a success it reads "",
 * or the warning's message. */

/* Solves one LCP: find z >= 0 with w = M z + q >= 0, z'w = 0. M is n x n, column-major
 * (M[i + j n] = M_ij), q [n]; z [n] is the warm-start guess when cfg->warm_start, and
 * receives the solver's final iterate (the solution when the return is LSIM_SOLVED).
 * solver: a name of lsim_solver_names (NULL: "lemke"); cfg NULL: the defaults with
 * warm_start 0. report may be NULL. n = 0 is solved at once; M, q, z may then be NULL. A
 * warm start with an entry that is not finite is no guess: the solve starts cold and a
 * success returns LSIM_WARM_START_REJECTED (err says which entry). Returns the status; on LSIM_INVALID_INPUT or
 * LSIM_UNAVAILABLE err[errlen] says why and z is untouched. Never aborts, whatever the
 * solver does. Frictional contact problems: lsim_solve_fc below. */
LSIM_API int lsim_solve_lcp(const char *solver, int n, const double *M, const double *q,
                            double *z, const LsimSolverConfig *cfg, LsimSolveReport *report,
                            char *err, size_t errlen);

/* Reads a Siconos .dat LCP file and solves it as lsim_solve_lcp does. *z_out gets a
 * malloc'd solution of *n_out entries (the caller frees it with lsim_free), or NULL on
 * error. */
LSIM_API int lsim_solve_lcp_file(const char *solver, const char *path,
                                 const LsimSolverConfig *cfg, double **z_out, int *n_out,
                                 LsimSolveReport *report, char *err, size_t errlen);

/* ---- standalone frictional contact problems ------------------------------------- */

/* What one frictional contact solve reported: the Coulomb measures of the returned r with
 * the exact cone, whatever the solver (exact or polyhedral), so solutions compare alike.
 * A call refused before its solve: its status, iterations -1, measures INFINITY. */
typedef struct LsimFcReport {
  int status;             /* as returned */
  int iterations;         /* sweeps, Newton steps or pivots */
  double natural;         /* ||F(r)||_2, F_i = r_i - P_K_i(r_i - u^_i), u^ = De Saxce's u */
  double relative;        /* natural / ||q||_2: Siconos' fc3d / fc2d error */
  double cone;            /* max_i dist(r_i, K_i): how far r leaves the exact cone */
  double dual_cone;       /* max_i dist(u^_i, K_i*) */
  double complementarity; /* max_i |r_i . u^_i| */
  double wall_time;       /* s, the solver call (a polyhedral solve includes its LCP's
                             construction) */
} LsimFcReport;

/* Solves a frictional contact problem FC(W, q, mu) in the local form of Siconos and FCLIB:
 * nc contacts in dimension dim (2 or 3), n = dim nc unknowns, contact i owning entries
 * dim i .. dim i + dim - 1 (normal first); find r with u = W r + q, r_i in the Coulomb cone
 * ||r_iT|| <= mu_i r_iN and Coulomb's law between u_i and r_i. W is n x n column-major,
 * q [n], mu [nc] >= 0; r [n] is the warm start when cfg->warm_start (one with an entry
 * that is not finite: a cold start, a success then LSIM_WARM_START_REJECTED), and receives the
 * final reaction (finite always). solver: an exact-cone solver ("nsgs", "nsgs_aa",
 * "siconos:fc3d_NAME", "siconos:fc2d_NAME") with ndir = 0, or any LCP solver name of
 * lsim_solver_names with ndir > 0 cone directions (3-D: a multiple of 4; 2-D: 2), solved
 * as the Stewart-Trinkle LCP of that polyhedral cone. cfg->tol is, for exact-cone solvers,
 * on the relative natural-map residual; for polyhedral ones, the LCP solver's tolerance.
 * Returns the status; on LSIM_INVALID_INPUT or LSIM_UNAVAILABLE err[errlen] says why and r
 * is untouched. report may be NULL. nc = 0 is solved at once; W, q, mu, r may then be
 * NULL. Never aborts: a Siconos solver that fails an internal assertion (as most fc3d ones
 * do on W = 0 or a W(i,i) <= 0) returns LSIM_SOLVER_FAILED, "aborted inside Siconos". */
LSIM_API int lsim_solve_fc(const char *solver, int dim, int nc, const double *W,
                           const double *q, const double *mu, int ndir, double *r,
                           const LsimSolverConfig *cfg, LsimFcReport *report, char *err,
                           size_t errlen);

/* Reads a frictional contact problem (Siconos frictionContact .dat, dense or sparse-block,
 * or an FCLIB HDF5 local problem) and solves it as lsim_solve_fc does, from r = 0. *r_out
 * gets a malloc'd reaction of *n_out entries (free with lsim_free) and *dim_out (may be
 * NULL) the dimension, or NULL on error (err names the file and place). */
LSIM_API int lsim_solve_fc_file(const char *solver, const char *path, int ndir,
                                const LsimSolverConfig *cfg, double **r_out, int *n_out,
                                int *dim_out, LsimFcReport *report, char *err,
                                size_t errlen);

/* Frees memory this library handed out (lsim_solve_lcp_file's solution, lsim_solve_fc_file's
 * reaction). NULL is fine. */
LSIM_API void lsim_free(void *p);

/* ---- simulations: create and destroy --------------------------------------------- */

typedef struct LsimSim LsimSim;

/* Loads a scene file (docs/scene-format.md) into a new simulation at its initial state,
 * with the scene's solver (time stepping: a scene with "integrator": "event_driven" or
 * "event_driven": {"impacts": "sequential"} is refused, LSIM_INVALID_INPUT). Returns 0 and *out, or < 0 (LSIM_IO_ERROR, LSIM_INVALID_INPUT,
 * LSIM_UNAVAILABLE, LSIM_OUT_OF_MEMORY) with *out = NULL and one line in err, e.g.
 * "box.json:12:15: bodies[1].mass: must be > 0, got -1". */
LSIM_API int lsim_sim_load(LsimSim **out, const char *path, char *err, size_t errlen);

/* The same from a scene text in memory; name stands for the file in messages (NULL:
 * "<scene>"). */
LSIM_API int lsim_sim_load_json(LsimSim **out, const char *json, const char *name, char *err,
                                size_t errlen);

/* Frees the simulation; an open record is closed and kept (lsim_sim_record_close). */
LSIM_API void lsim_sim_free(LsimSim *sim);

/* The message of the simulation's last call that returns a status (or an index): what
 * went wrong, or "" when it succeeded, for the calls that act on sim (a failure followed
 * by a successful step, setter or record call reads ""); a read-only query (const
 * LsimSim *: lsim_sim_body_pose, lsim_sim_contacts, ...) that succeeds leaves the message
 * as it was (the rules above). Owned by sim, valid until its next such call. */
LSIM_API const char *lsim_sim_error(const LsimSim *sim);

/* ---- building a world in code -----------------------------------------------------
 * lsim_sim_create makes an empty world; add bodies (with shapes in 2-D/3-D), tethers and
 * joints; lsim_sim_start checks it, sets the initial state from the definitions and makes
 * the solver. Until then the stepping functions return LSIM_INVALID_INPUT. A quantity that
 * must be > 0 (h, mass, inertia, radius, half extents, length, max_correction_speed) must
 * also be at least DBL_MIN, a normal number, as in scenes: a subnormal one is refused. */

/* An empty world of dimension 1, 2 or 3 with time step h > 0, no gravity, solver "lemke"
 * (lsim_sim_set_solver changes it once started); lsim_sim_scene_steps says 100. */
LSIM_API int lsim_sim_create(LsimSim **out, int dimension, double h, char *err, size_t errlen);

/* Gravity, a vector of the world's dimension (1-D: along the line), m/s^2; copied. Before
 * lsim_sim_start only: 0, or LSIM_INVALID_INPUT (started, g NULL or not finite). */
LSIM_API int lsim_sim_set_gravity(LsimSim *sim, const double *g);

enum { LSIM_DYNAMIC = 0, LSIM_STATIC = 1, LSIM_KINEMATIC = 2 }; /* body types */

typedef struct LsimBodyDef {
  const char *name;       /* unique; NULL: "body<index>" (copied) */
  int type;               /* LSIM_DYNAMIC, LSIM_STATIC or LSIM_KINEMATIC */
  double mass;            /* kg, > 0 for dynamic bodies */
  double inertia[3];      /* 2-D: inertia[2] = I_zz; 3-D: principal (Ixx, Iyy, Izz) about
                             the center of mass in the body frame, kg m^2, > 0 (dynamic);
                             3-D: each at most the sum of the other two (any real body) */
  double position[3];     /* world position of the body's origin (its center of mass) */
  double angle;           /* 2-D orientation about z, rad (other worlds: must be 0) */
  double quaternion[4];   /* 3-D orientation (w, x, y, z), finite and not zero;
                             normalized here (other worlds: (1, 0, 0, 0) or all 0) */
  double velocity[6];     /* initial v (dynamic) or the prescribed velocity (kinematic),
                             the layout of v */
  double width;           /* 1-D dynamic or kinematic: segment width, m (0: a point);
                             walls and 2-D/3-D: must be 0 */
  int side;               /* 1-D static: -1 a wall occupying x <= position[0], +1 x >=;
                             other bodies: must be 0 */
  double ground_mu;       /* 1-D dynamic: friction with the ground under load m g, g =
                             9.81 m/s^2 (a scene's "ground" g default; not the world's
                             gravity, which acts along the line); finite, >= 0. Other bodies: must be 0 (2-D/3-D: the shapes' mu with a
                             static plane is the friction with the ground) */
  double restitution;     /* coefficient of restitution in [0, 1] */
} LsimBodyDef;
/* A dynamic body of mass 1 at the origin at rest, unit inertia, identity orientation. */
LSIM_API LsimBodyDef lsim_default_body_def(void);

/* Adds a body before lsim_sim_start (def and its name are copied); returns its index
 * (>= 0), or LSIM_INVALID_INPUT / LSIM_OUT_OF_MEMORY with lsim_sim_error naming the field. */
LSIM_API int lsim_sim_add_body(LsimSim *sim, const LsimBodyDef *def);

enum { LSIM_PLANE = 2, LSIM_SPHERE = 3, LSIM_BOX = 4, LSIM_CAPSULE = 5, LSIM_POINT = 6 };

typedef struct LsimShapeDef {
  int type;               /* LSIM_PLANE (static bodies only; normal = local +y in 2-D,
                             +z in 3-D), LSIM_SPHERE (a disk in 2-D), LSIM_BOX, LSIM_CAPSULE
                             (axis local x in 2-D, z in 3-D), LSIM_POINT */
  double position[3];     /* in the body frame */
  double angle;           /* 2-D: rotation in the body frame, rad (3-D: must be 0) */
  double quaternion[4];   /* 3-D: rotation in the body frame (w, x, y, z) (2-D: (1, 0, 0,
                             0) or all 0) */
  double radius;          /* sphere, capsule */
  double half[3];         /* box half extents; capsule: half[0] = half length */
  double mu;              /* friction coefficient; a pair uses sqrt(mu_a mu_b) */
} LsimShapeDef;
/* A sphere of radius 0.5 at the body origin, mu 0.5. */
LSIM_API LsimShapeDef lsim_default_shape_def(void);

/* Adds a shape to body (2-D and 3-D worlds) before lsim_sim_start (def copied); returns its
 * index among the body's shapes (0 for its first: the j of its default name "shape<j>", as
 * a scene's bodies[i].shapes[j]), or LSIM_INVALID_INPUT / LSIM_OUT_OF_MEMORY with
 * lsim_sim_error. */
LSIM_API int lsim_sim_add_shape(LsimSim *sim, int body, const LsimShapeDef *def);

enum { LSIM_PIN = 0, LSIM_ROD = 1, LSIM_TETHER = 2 };

/* A joint (pin: the two points coincide; rod: their distance is length) or a tether
 * (their distance is at most length). body[0] must be dynamic; body[1] = -1 is the world
 * (point[1] then a world point). Points are in the body frames. */
typedef struct LsimJointDef {
  const char *name;       /* NULL: "joint<index>" / "tether<index>" */
  int type;               /* LSIM_PIN, LSIM_ROD or LSIM_TETHER */
  int body[2];
  double point[2][3];
  double length;          /* rod: m, >= 1e-9; tether: m, > 0 */
  int no_collide;         /* pin, rod: 1 = no contacts between the two bodies (a scene's
                             "collide": false); 0 (default) = they collide as any pair,
                             but for shapes a pin joins at a point inside both (none) */
} LsimJointDef;
/* Adds a joint or tether before lsim_sim_start (def and its name copied); returns its index
 * among the joints (pin, rod) or the tethers, or LSIM_INVALID_INPUT / LSIM_OUT_OF_MEMORY
 * with lsim_sim_error (unknown type, bad body, length <= 0, name too long). */
LSIM_API int lsim_sim_add_joint(LsimSim *sim, const LsimJointDef *def);

/* Contact settings of a world built in code, as a scene's "contact" object
 * (docs/scene-format.md, "contact" and "Initial overlap"); lsim_default_contact_def gives a
 * scene's defaults, which a world has until lsim_sim_set_contact. */
typedef struct LsimContactDef {
  double margin;               /* m, >= 0: contacts within this gap enter the LCP (0) */
  double max_correction_speed; /* m/s, > 0: a penetrating contact is pushed out at most this
                                  fast (1; INFINITY: no cap) */
  double overlap_tolerance;    /* m, >= 0: 2-D/3-D bodies overlapping at the start by more
                                  are refused by lsim_sim_start (1e-3; 1-D: 1e-12 m) ... */
  int allow_initial_overlap;   /* ... unless this is 1 (0) */
} LsimContactDef;
LSIM_API LsimContactDef lsim_default_contact_def(void);

/* Sets the contact settings before lsim_sim_start (def copied). 0, or LSIM_INVALID_INPUT
 * with lsim_sim_error naming the field (or: the world is started). */
LSIM_API int lsim_sim_set_contact(LsimSim *sim, const LsimContactDef *def);

/* Checks the world (at least one dynamic body, every definition valid, no tether starting
 * stretched, no bodies overlapping unless allowed, as a scene's reader refuses them: 2-D/3-D
 * beyond the overlap tolerance, the deepest pair named; 1-D beyond 1e-12 m, walls crossing
 * each other even when allowed), sets the state from the definitions and makes the solver.
 * 0 or < 0 with lsim_sim_error; after a failure the world is as before the call (the
 * builder goes on). */
LSIM_API int lsim_sim_start(LsimSim *sim);

/* ---- the model ------------------------------------------------------------------- */

/* The world's dimension (1, 2 or 3) and time step h (s). */
LSIM_API int lsim_sim_dimension(const LsimSim *sim);
LSIM_API double lsim_sim_time_step(const LsimSim *sim);
/* The number of steps the scene asks for (its "steps" or "duration"). */
LSIM_API int lsim_sim_scene_steps(const LsimSim *sim);
/* The number of bodies, static ones included. */
LSIM_API int lsim_sim_body_count(const LsimSim *sim);

/* A body's description. */
typedef struct LsimBodyInfo {
  const char *name;       /* owned by sim */
  int type;               /* LSIM_DYNAMIC, LSIM_STATIC or LSIM_KINEMATIC */
  double mass;
  int q_offset, nq;       /* its slice of q (nq 0 and offset -1 for static bodies) */
  int v_offset, nv;       /* its slice of v */
} LsimBodyInfo;
/* Fills info for body i. 0 or LSIM_INVALID_INPUT (no such body: lsim_sim_error names the
 * index and the valid range; info NULL). */
LSIM_API int lsim_sim_body(const LsimSim *sim, int i, LsimBodyInfo *info);
/* The index of the body called name, or -1. */
LSIM_API int lsim_sim_body_index(const LsimSim *sim, const char *name);

/* ---- the state -------------------------------------------------------------------- */

/* The state's time (s) and the steps taken since the initial state. */
LSIM_API double lsim_sim_time(const LsimSim *sim);
LSIM_API int lsim_sim_steps_done(const LsimSim *sim);
/* The lengths of q and v (0 before lsim_sim_start). */
LSIM_API int lsim_sim_nq(const LsimSim *sim);
LSIM_API int lsim_sim_nv(const LsimSim *sim);

/* The state arrays q [nq] and v [nv], owned by sim and valid until lsim_sim_free (their
 * address never changes; NULL before lsim_sim_start). Between steps the caller may write
 * them (a new state: 3-D quaternions are renormalized by the next step, which refuses a
 * zero one, or any entry that is not finite, with LSIM_INVALID_INPUT and is not taken). */
LSIM_API double *lsim_sim_q(LsimSim *sim);
LSIM_API double *lsim_sim_v(LsimSim *sim);

/* Kinetic 1/2 v'Mv and gravitational potential energy of the state, J. A 3-D quaternion
 * the caller wrote is read as the step takes it, normalized (a zero one: NaN kinetic
 * energy, the state has no orientation there). */
LSIM_API double lsim_sim_kinetic_energy(const LsimSim *sim);
LSIM_API double lsim_sim_potential_energy(const LsimSim *sim);

/* The world pose of body i: position p[3] and unit quaternion quat[4] (1-D: (x, 0, 0);
 * 2-D: a rotation about z; 3-D: a quaternion the caller wrote, normalized). 0 or
 * LSIM_INVALID_INPUT with lsim_sim_error (not started, no such body, p or quat NULL, the
 * body's quaternion zero). */
LSIM_API int lsim_sim_body_pose(const LsimSim *sim, int i, double p[3], double quat[4]);

/* ---- forces and kinematic targets ----------------------------------------------------
 * A dynamic body's applied generalized force f [nv] (1-D f; 2-D (fx, fy, torque z); 3-D
 * (fx, fy, fz, tx, ty, tz), world frame, at the center of mass; N and N m), held over
 * each step with gravity added by the step. Setting it replaces what the scene gave (a
 * constant or a table) by the constant f from now on. A kinematic body's velocity [nv]
 * is prescribed: setting it replaces its schedule by the constant v from now on. The
 * values are copied. 0, or LSIM_INVALID_INPUT with lsim_sim_error (not started, no such
 * body, a body of another type, NULL or non-finite values); the schedule is then kept. */
LSIM_API int lsim_sim_set_force(LsimSim *sim, int body, const double *f);
/* The applied force of body at the current time (the scene's schedule or the value set)
 * into f [nv] (zeros for bodies without one). 0 or LSIM_INVALID_INPUT with lsim_sim_error
 * (no such body: the message names the index and the valid range; f NULL). */
LSIM_API int lsim_sim_get_force(const LsimSim *sim, int body, double *f);
LSIM_API int lsim_sim_set_kinematic_velocity(LsimSim *sim, int body, const double *v);

/* ---- stepping and controllers -------------------------------------------------------- */

/* A controller: called by lsim_sim_step with the state before each step (time t, q, v);
 * it may read anything and set forces, kinematic velocities and the state; it may not step
 * (lsim_sim_step and lsim_sim_run from it return LSIM_INVALID_INPUT) nor free the
 * simulation (lsim_sim_step is running on it). Return 0 to
 * take the step, anything else to stop (the step is not taken and lsim_sim_step returns
 * LSIM_CONTROLLER_STOPPED). user is the pointer given to lsim_sim_set_controller. */
typedef int (*LsimController)(LsimSim *sim, void *user);
/* Installs (fn != NULL) or removes (fn NULL) the controller; user is kept (not owned) and
 * handed to fn until the controller is replaced or removed. */
LSIM_API void lsim_sim_set_controller(LsimSim *sim, LsimController fn, void *user);

/* Advances the state by one time step (the controller first, when there is one), and
 * appends it to the record when one is open. Returns the solver's status (LSIM_SOLVED
 * also when there was no contact): < 0 the solver failed (the state is advanced with its
 * last finite iterate; lsim_sim_error says what), or LSIM_CONTROLLER_STOPPED, or
 * LSIM_DIVERGED (the divergence guard), or LSIM_IO_ERROR when the record could not be
 * written. */
LSIM_API int lsim_sim_step(LsimSim *sim);

/* lsim_sim_step n times (n >= 0; a negative n is refused, LSIM_INVALID_INPUT); stops at
 * the first error (< 0) and returns it, else 0. A solver run at a fixed budget (tol 0:
 * "sweeps") ends its steps with LSIM_MAX_ITERATIONS by design: that is no error here (as
 * in the command). */
LSIM_API int lsim_sim_run(LsimSim *sim, int n);

/* What the last step did. */
typedef struct LsimStepReport {
  int status;             /* the solver's status */
  int iterations;         /* pivots or sweeps; -1: the solver gives no count (siconos:
                             nsgs_sbm), not available, never 0 */
  int lcp_size;           /* LCP variables (0: none; joint rows are eliminated first) */
  int ncontacts;          /* contacts the step reports, joint rows and a sleeping group's
                             resting tether and joint rows included */
  double residual;        /* natural residual of the step's LCP */
  double relative_residual;
  double wall_time;       /* s, the solver call */
} LsimStepReport;
/* Fills report with the last step's figures (all 0 before the first step). 0, or
 * LSIM_INVALID_INPUT when sim or report is NULL (lsim_sim_error names report). */
LSIM_API int lsim_sim_last_step(const LsimSim *sim, LsimStepReport *report);

/* ---- solvers of a simulation ----------------------------------------------------------- */

/* Chooses the solver of the following steps (name of lsim_solver_names; cfg NULL: the
 * defaults). The warm start starts over. It replaces the scene's solver object: every
 * option of LsimSolverConfig is cfg's (0 for principal and precision: the environment's
 * LSIM_PRINCIPAL, LSIM_PGS_PRECISION), and lemke_sparse's block_start, lu_solve and
 * lu_refactor, which the config does not hold, are the environment's (LSIM_BLOCK_START,
 * LSIM_LU_SOLVE, LSIM_LU_REFACTOR), else built in, whatever the scene said: the steps
 * that follow depend on name, cfg and the environment alone, as a scene whose solver
 * object gives only those. The scene's on_failure (the run's failure policy, not a solver
 * option) is kept. 0, or LSIM_UNAVAILABLE / LSIM_INVALID_INPUT (the previous solver and
 * settings are kept). */
LSIM_API int lsim_sim_set_solver(LsimSim *sim, const char *name, const LsimSolverConfig *cfg);
/* The solver in use, owned by sim, valid until the next lsim_sim_set_solver (NULL for a
 * NULL sim). */
LSIM_API const char *lsim_sim_solver(const LsimSim *sim);
/* The options of the solver in use (the scene's, or the last lsim_sim_set_solver's). */
LSIM_API int lsim_sim_solver_config(const LsimSim *sim, LsimSolverConfig *cfg);

/* ---- contacts and impulses ------------------------------------------------------------ */

#ifndef LSIM_CONTACT_H /* (the library's own sources have these from contact/contact.h) */
enum {
  LSIM_CONTACT_NORMAL = 0,       /* non-penetration with optional friction */
  LSIM_CONTACT_FIXED_NORMAL = 1, /* 1-D ground friction under the known load m g h */
  LSIM_CONTACT_TETHER = 2,       /* a tether's unilateral row */
  LSIM_CONTACT_EQUALITY = 3      /* a joint row (impulse free in sign) */
};
#endif

/* One contact of the last step with its impulses (N s; divide by the time step for
 * forces). The id is stable across steps (the pair of bodies and the feature:
 * docs/output-format.md, "Contact ids"). */
typedef struct LsimContactInfo {
  uint64_t id;
  int kind;                   /* LSIM_CONTACT_* */
  int body[2];                /* body[1] may be static; -1: the world */
  double gap;                 /* m, at the start of the step: contacts >= 0 apart, < 0
                                 penetrating; tethers length - |p_0 - p_1| (>= 0 slack);
                                 joint rows the row's position error */
  double point[3];            /* world: contacts midway between the surfaces; tether and
                                 joint rows the end on body[0] */
  double normal[3];           /* world unit vector along which normal_impulse acts on
                                 body[0]: contacts from body[1] into body[0]; tethers from
                                 body[0]'s end toward body[1]'s (the rope pulls); joint
                                 rows the row's axis (pins world x, y, z; rods p_0 - p_1) */
  double normal_impulse;      /* N s (joint rows: either sign) */
  double friction_impulse[3]; /* world vector on body[0], N s */
  double slip_speed;          /* m/s, the cone's estimate of the sliding speed */
} LsimContactInfo;

/* The number of contacts of the last step (0 before the first). */
LSIM_API int lsim_sim_contact_count(const LsimSim *sim);
/* Copies up to cap contacts of the last step into out; returns how many were copied (0
 * before the first step, also before lsim_sim_start; out may be NULL when cap is 0), or
 * LSIM_INVALID_INPUT with lsim_sim_error (out NULL with cap > 0, cap < 0). */
LSIM_API int lsim_sim_contacts(const LsimSim *sim, LsimContactInfo *out, int cap);

/* ---- recording to HDF5 ---------------------------------------------------------------- */

/* Opens an HDF5 record (docs/output-format.md) at path: the current state is its first
 * row, every following step is appended. Written under path.<pid>.partial in path's folder
 * (<pid> the process id; docs/output-format.md, "Output files") and renamed to path on
 * close. 0 or < 0 with lsim_sim_error (an open record stays open). A path that is the
 * scene file the simulation was loaded from (lsim_sim_load; the same file by any name) is
 * refused with LSIM_INVALID_INPUT, the message naming both paths, and nothing is written.
 * So is a path (by any name of its folder) another simulation of this process records to
 * until that record closes, since the later close would replace the other's file: the
 * message names the path and says another simulation in this process is recording to it.
 * A record holds no stepper memory (lsim_sim_restore refuses it): checkpoints to continue
 * from are lsim_sim_save's. */
LSIM_API int lsim_sim_record(LsimSim *sim, const char *path);
/* Keeps every every-th step of the open record (the steps whose number is a multiple of
 * it, and the last step before the close), as lcpsim --record-every does
 * (docs/output-format.md, "Record stride"): the steps are the same, the file smaller; the
 * summary counts every step. Right after lsim_sim_record, before the next step (else, or
 * every < 1, LSIM_INVALID_INPUT). 0 or < 0 with lsim_sim_error. */
LSIM_API int lsim_sim_record_every(LsimSim *sim, int every);
/* Closes the record (keep 1: renamed to its path; 0: removed). 0 or < 0.
 * A file whose last writes failed (a full disk, a file size limit) cannot be closed, and
 * HDF5 1.10's exit handler then crashes on it when the process ends. A program that may
 * meet this calls H5dont_atexit() before any other HDF5 call (as the lcpsim command
 * does); the library does not, since that choice belongs to the whole process. */
LSIM_API int lsim_sim_record_close(LsimSim *sim, int keep);

/* ---- checkpoints: saving and restoring a simulation ------------------------------------
 * A checkpoint holds a started simulation's state (time, steps done, q, v) and what its
 * steps carry over to the next (the stepper's memory: the warm start by contact id, the
 * sparse Lemke basis, the sleep counters and the impulses of sleeping groups). A
 * simulation of the same world restored from it takes the steps the saved one would have
 * taken, to the bit (positions, velocities, contact impulses): to continue after a crash,
 * or to branch experiments from one state. It is a file, not a copy in memory, so that it
 * outlives the process and reads in any other (C, Python, h5py): the HDF5 layout of the
 * command's run files (docs/output-format.md, "Checkpoints of the library"). What is not
 * in it is the model: forces and kinematic velocities set through lsim_sim_set_force and
 * lsim_sim_set_kinematic_velocity, the controller, the solver; a continuation that should
 * match sets them as they were. */

/* Writes sim's checkpoint to path (HDF5; written under path.<pid>.partial in path's folder
 * and renamed when whole: a checkpoint already at path is replaced only by a whole one).
 * Needs a started simulation; the state and the simulation are unchanged. 0, or < 0 with
 * lsim_sim_error: LSIM_INVALID_INPUT (not started, a state with an entry that is not
 * finite, path NULL or empty, the scene file the simulation was loaded from, or the path of
 * its open record or of another simulation's in this process, which would replace it at
 * its close: refused, nothing written),
 * LSIM_IO_ERROR (cannot write), LSIM_OUT_OF_MEMORY. */
LSIM_API int lsim_sim_save(LsimSim *sim, const char *path);

/* Sets sim's state and stepper memory to those of the checkpoint at path (lsim_sim_save),
 * or of the last step of a time-stepping run file of the command (lcpsim SCENE.json, as
 * --resume reads it), so that the following steps are those of the run saved, to the bit.
 * The file must be of sim's world: the same scene (its text as JSON but for "steps",
 * "duration", "output", "name", "description"), or a world built in code with the same
 * parameters, bodies (type, mass), shapes and contact margin and correction speed; the
 * same initial state, to the bit; the same solver and options
 * (lsim_sim_solver, lsim_sim_solver_config: choose them first with lsim_sim_set_solver);
 * written by this version of the library. Refused with LSIM_INVALID_INPUT, the message
 * naming the first difference, and sim left as it was: another world, another solver,
 * event-driven and hybrid-model runs (their integrator's state is not in the file), run
 * files without the stepper's memory (/resume: records of lsim_sim_record, older files),
 * damaged files (a state or stored impulse that is not finite, inconsistent sizes);
 * also a sim not started, a call from sim's own controller, and an open record (its rows
 * would go back in time: close it first). LSIM_IO_ERROR: the file does not open.
 * Afterwards lsim_sim_time and lsim_sim_steps_done are the file's, the arrays of lsim_sim_q
 * and lsim_sim_v keep their address, and lsim_sim_last_step and lsim_sim_contacts report
 * nothing until the next step. */
LSIM_API int lsim_sim_restore(LsimSim *sim, const char *path);

/* ---- comparing solvers ----------------------------------------------------------------- */

/* One series of a comparison: a solver (shadow mode: cold or warm started) over every
 * problem. */
typedef struct LsimCompareRow {
  char label[128];        /* "lemke (cold)", "pgs[sweeps=20] (warm)", ... */
  int problems, successes, failures, skipped;
  int budget_stops;       /* solves stopped at their iteration budget (max_iterations: a
                             fixed sweep budget by design): not failures, successes too when
                             they reached the success tolerance (/summary/budget_stops) */
  int missed;             /* solves finished by their own status with a residual above the
                             success tolerance (1e-6): neither successes, budget stops nor
                             failures (/summary/missed_tolerance) */
  double success_rate;    /* successes / (problems - skipped) */
  double median_wall;     /* s per solve */
  double median_iterations; /* over the solves with a count; NaN when none has one */
  double worst_relative_residual;
} LsimCompareRow;

/* Compares solvers on identical problems, as `lcpsim compare` (docs/solvers.md,
 * "Comparing solvers"): inputs is one scene or Siconos .dat files; solvers a list such as
 * "lemke,pgs[sweeps=20],siconos:enum"; independent 0 (shadow: every step's LCP of the
 * first solver's run handed to all) or 1 (each solver its own trajectory); steps > 0
 * overrides the scene's (0: the scene's; < 0 refused); output the HDF5 file (NULL: INPUT_compare.h5 in the current
 * folder; written under output.<pid>.partial and renamed when complete). Fills
 * rows[0 .. min(*nrows, series)) and sets *nrows to the number of series (*nrows >= 0;
 * rows may be NULL when *nrows is 0). 0, or < 0 with err naming the argument or the file:
 *   LSIM_INVALID_INPUT  bad arguments (a malformed solver list, a NULL input, ...), a
 *                       bad scene or problem file, or an output that is one of the inputs
 *                       (the same file by any name: refused, the message naming both)
 *   LSIM_UNAVAILABLE    a solver of the list is unknown or not built
 *   LSIM_IO_ERROR       an input that cannot be read (missing), or the output that cannot
 *                       be written
 *   LSIM_OUT_OF_MEMORY
 * On an error no file is left (an output that could not be finished is removed) and no
 * input is touched. Solver failures are results. */
LSIM_API int lsim_compare(const char *const *inputs, int ninputs, const char *solvers,
                          int independent, int steps, const char *output, LsimCompareRow *rows,
                          int *nrows, char *err, size_t errlen);

/* lsim_compare that a caller can stop: *stop (not NULL) is read before each problem (a
 * scene's step, or a .dat file); once it is nonzero the comparison stops there and writes
 * its file with the problems done, /summary/run_end "interrupted" (the value, a signal
 * number such as SIGINT, named in /summary/run_end_reason), and returns 0 with the rows of
 * those problems. Another thread (a signal handler, a watchdog, the Python binding on
 * Ctrl-C) sets it; lsim_compare runs to its end, however long. Under MPI the flag is not
 * read. */
LSIM_API int lsim_compare_stoppable(const char *const *inputs, int ninputs, const char *solvers,
                                    int independent, int steps, const char *output,
                                    LsimCompareRow *rows, int *nrows,
                                    const volatile int *stop, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
