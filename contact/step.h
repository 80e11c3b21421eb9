/* step.h: the Stewart-Trinkle time step (semi-implicit Euler, impulse-velocity form).
 *
 *   M (v' - v) = h f_ext + N c_n + D beta,          q' = q + h v'
 *   0 <= c_n    _|_  phi/h + N' v'          >= 0    (non-penetration)
 *   0 <= beta   _|_  lambda e + D' v'       >= 0    (friction directions)
 *   0 <= lambda _|_  mu c_n - e' beta       >= 0    (friction cone)
 *
 * With v_free = v + h M^-1 f_ext and W = M^-1, v' = v_free + W (N c_n + D beta), giving
 * one LCP in z = (c_n, beta, lambda) per contact (variables grouped per contact):
 *   M_lcp = [ N'WN  N'WD  0 ;  D'WN  D'WD  E ;  mu  -E'  0 ],
 *   q_lcp = [ phi/h + N'v_free ;  D'v_free ;  0 ]  (+ mu c_fixed for fixed normals).
 * Contacts are matched across steps by id to warm start the solver.
 *
 * Restitution (Newton's law inside the same LCP): a contact whose pair has a coefficient
 * of restitution e > 0 (lsim_pair_restitution), approaching at v_n = N'v < -threshold at
 * the start of the step, and whose gap the step would close, gets
 *   q_n = min((1 + e) v_n, phi/h + N'v_free)
 * so that N'v' >= -e v_n + (N'v_free - N'v): the pre-impact normal velocity reversed by e,
 * with the step's applied forces on top (contact/step.c, restitution_q).
 */
#ifndef LSIM_STEP_H
#define LSIM_STEP_H

#include <stddef.h>

#include "contact/contact.h"
#include "contact/world.h"
#include "lcp/factored.h"
#include "lcp/lcp.h"
#include "lcp/solver.h"

typedef struct LsimStepStats {
  int status;           /* LsimStatus of the solve (LSIM_SOLVED when there was no LCP) */
  int iterations;       /* pivots or sweeps */
  int lcp_size;         /* n of the LCP (0: no contact) */
  int ncontacts;        /* contacts the step reports (lsim_stepper_contacts): its LCP's,
                           joint rows and sleeping groups' resting tether and joint rows */
  int warm_started;
  double residual;      /* natural residual of the step's LCP (rows mix units: m/s for
                           gap and direction rows, N*s for cone rows) */
  double relative_residual;
  double wall_time;     /* solver call, s (the admission check's re-runs: every solve) */
  double siconos_error;
  int first_status;     /* the chosen solver's own status (status differs when the
                           fallback chain recovered the step: lcp/solver.h, FALLBACK, or
                           when a step with restitution whose LCP had no solution was
                           solved again with gap rows only: contact/step.c) */
  int source;           /* LsimSolutionSource: what produced the impulses integrated */
  int sleeping;         /* dynamic bodies asleep after the step (model->sleep; 0 when off) */
  int simd;             /* the PGS coloured sweep's instruction set (LSIM_PGS_SIMD_*), 0
                           when it did not run (another solver, too few cones) */
  int guard;            /* the energy guard on a failed step (LsimSolveStats.guard): 0 not
                           judged, 1 the smallest residual kept, 2 refused for adding
                           kinetic energy and another result integrated */
  double refused_energy; /* J: kinetic energy the refused result would have added beyond
                            the guard's slack (0 when none) */
  /* The admission check (2-D, 3-D; contact/step_admit.c, docs/solvers.md "Contacts left
     out by the admission bound"): */
  int admit_fast;       /* bodies that ended the step faster than the speed bound their
                           contacts were admitted with */
  int admit_reruns;     /* times the step was detected and solved again because a contact
                           left out closed at the end velocities (0 .. 3) */
  int admit_missed;     /* left-out points that still close after the last re-run (0 but
                           when the re-runs did not settle it: the step is kept) */
} LsimStepStats;

typedef struct LsimStepper LsimStepper;

/* Creates a stepper for model: the solver named by model->solver (or solver_name if not
 * NULL), its workspace, the contact set. Returns 0 or < 0 with a message in err. */
int lsim_stepper_create(LsimStepper **out, const LsimModel *model, const char *solver_name,
                        char *err, size_t errlen);
void lsim_stepper_free(LsimStepper *s);

/* Advances state by one step of model->time_step. The state is advanced even when the
 * solver fails (with its last finite iterate), and the failure is the return value and
 * stats->status. */
int lsim_step(LsimStepper *s, const LsimModel *model, LsimState *state, LsimStepStats *stats);

/* The contacts of the last step, with their impulses. */
const LsimContactSet *lsim_stepper_contacts(const LsimStepper *s);

/* The LCP of the last step (dense), its solution z [lcp->n], and the warm-start guess
 * the solver was given (the previous step's impulses matched by contact id; zeros for new
 * contacts; "pgs" in 3-D: a manifold of 4 or more points from its net normal impulse
 * spread evenly, tilted by the moment its friction needs). Valid until the next step. Shadow solvers and LCP dumps read these. */
const LsimLcp *lsim_stepper_lcp(const LsimStepper *s);
/* The same LCP in the factored form the step builds (M = J B + C; lcp/factored.h), every
 * row stored (full NULL: where the step left the negated directions implicit for PGS, the
 * copy with them written out). */
const LsimFactoredLcp *lsim_stepper_factored(const LsimStepper *s);
/* The same LCP as the step handed it to its solver: for PGS where B shares J's pattern the
 * negated directions implicit (factored.h, full; lsim_factored_full gives every row). */
const LsimFactoredLcp *lsim_stepper_factored_solved(const LsimStepper *s);
const double *lsim_stepper_solution(const LsimStepper *s);
const double *lsim_stepper_warm_guess(const LsimStepper *s);
/* The Lemke basis guess [n] the solver was given at the last step (1: z_i basic): the
 * previous step's final sparse Lemke basis matched by contact id, w basic for new contacts;
 * NULL when the previous step had none (another solver, a failed or split solve). */
const unsigned char *lsim_stepper_basis_guess(const LsimStepper *s);

/* Why the last step failed before its solve (dependent joint rows, ...), "" otherwise. */
const char *lsim_stepper_last_error(const LsimStepper *s);

/* Sleeping bodies (model->sleep, contact/sleep.c): the number of dynamic bodies asleep
 * after the last step, and in *flags (if not NULL) a per-body array, 1 for a sleeping body
 * (NULL when sleeping is off). */
int lsim_stepper_sleeping(const LsimStepper *s, const unsigned char **flags);

/* Wakes body's sleeping group (an input from outside the model acts on it: a controller,
 * a changed state); nothing when it is awake or sleeping is off. Setting a sleeping
 * body's velocity in the state to non-zero, or changing its position, also wakes it at the
 * next step. */
void lsim_stepper_wake(LsimStepper *s, int body);

/* The solver in use. */
LsimSolver *lsim_stepper_solver(LsimStepper *s);

/* The contact count from which the step's passes over the contacts (sweep_order's keys
 * and copy, the warm start's sums and manifolds, the position correction's rows) run on
 * the solver's team when it has one: LSIM_STEP_TEAM_MIN_CONTACTS by default; any count
 * >= 1 gives the same bits (tests lower it to take the team's path on small scenes). */
enum { LSIM_STEP_TEAM_MIN_CONTACTS = 512 };
void lsim_stepper_set_team_min_contacts(LsimStepper *s, int count);

/* What a step carries over to the next besides the state (time, step, q, v): the
 * memory a run file keeps (docs/output-format.md, "/resume") so that a run continued
 * from it takes the steps the uninterrupted run would have taken, to the bit.
 *   - warm start: the last step's contacts in order, by id, with their LCP variables'
 *     values (nvar each: [c_n] [beta_1..d lambda]; joint rows 0) and, when the solver
 *     left one (sparse Lemke), its final basis (1: z_i basic), parallel to z;
 *   - sleeping (model->sleep on): per body asleep, steps at rest, the group a sleeper fell
 *     asleep with; the impulse cache of sleeping groups' contacts by id (bodies, nvar,
 *     values); the tether and joint impulses last carried awake (ntethers, 3 njoints).
 * The arrays are owned (sized by lsim_stepper_memory_get, freed by _free); a zeroed
 * struct is an empty memory. */
typedef struct LsimStepMemory {
  int ncontacts, nz;
  uint64_t *id;          /* [ncontacts] */
  int *nvar;             /* [ncontacts] */
  double *z;             /* [nz] the contacts' values, concatenated in order */
  int basis_valid;       /* basis holds the final basis */
  int *basis;            /* [nz] 0 / 1 */
  int sleep, nbodies;    /* sleeping on; then per body: */
  int *asleep, *rest_steps, *group; /* [nbodies] */
  int ncache, ncache_z;
  uint64_t *cache_id;    /* [ncache] */
  int *cache_body;       /* [2 ncache] the contact's two bodies (-1: none) */
  int *cache_nvar;       /* [ncache] */
  double *cache_z;       /* [ncache_z] */
  int ntethers, njoints;
  double *last_tether;   /* [ntethers] */
  double *last_joint;    /* [3 njoints] */
} LsimStepMemory;

/* Copies the stepper's memory into mem (after a step, or of a new stepper: empty).
 * 0 or LSIM_OUT_OF_MEMORY. */
int lsim_stepper_memory_get(const LsimStepper *s, const LsimModel *model, LsimStepMemory *mem);

/* Makes a new stepper of model carry mem over into its next step, state being the state
 * mem goes with (sleepers' frozen coordinates are taken from it). Checks mem against the
 * model (sizes, body indices, flags); 0, or LSIM_INVALID_INPUT with a message in err,
 * LSIM_OUT_OF_MEMORY. */
int lsim_stepper_memory_set(LsimStepper *s, const LsimModel *model, const LsimState *state,
                            const LsimStepMemory *mem, char *err, size_t errlen);
void lsim_step_memory_free(LsimStepMemory *mem);

#endif
