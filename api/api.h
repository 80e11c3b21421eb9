/* api.h: private to api/: the simulation object behind include/lcpsim/lcpsim.h. */
#ifndef LSIM_API_API_H
#define LSIM_API_API_H

#include <stdarg.h>
#include <stddef.h>

#include "contact/step.h"
#include "contact/world.h"
#include "lcp/lcp.h"
#include "scene/record.h"
/* after lcp/lcp.h: the status codes come from there */
#include "lcpsim/lcpsim.h"

/* Per body of a world built in code: the initial velocity until lsim_sim_start. */
typedef struct LsimBuildBody {
  double v[6];
} LsimBuildBody;

struct LsimSim {
  LsimModel model;          /* what the scene (or the builder) says; forces and kinematic
                               velocities may be replaced through the API */
  LsimState state;
  LsimState initial;        /* the state when started (a checkpoint names its run by it) */
  LsimStepper *stepper;     /* NULL until started */
  char *scene_text;         /* the scene's text (for records), NULL when built in code */
  char *scene_path;         /* the scene file it was loaded from (absolute when it could be
                               resolved), which no record may replace; NULL when built in
                               code or loaded from a text */
  char *scene_name;         /* the scene as messages name it: the path given, or the name
                               of lsim_sim_load_json; NULL when built in code */
  int started;
  LsimController controller;
  void *controller_user;
  int in_controller;        /* 1 while the controller runs: a step from it is refused */
  LsimRecord *record;
  char *record_path;        /* the open record's path, its folder resolved (same_place) */
  int record_stopped;       /* 1 once the divergence guard marked the open record stopped:
                               it takes no further rows */
  LsimStepStats last;
  int have_last;
  LsimBuildBody *build;     /* [build_cap] the builder's initial velocities */
  int build_cap;
  char error[1024];
};

/* Clears sim->error (sim may be NULL): every function of lcpsim.h that returns a status
 * and takes a writable LsimSim * calls it first, so the message describes the last such
 * call ("" when it succeeded); the read-only queries (const LsimSim *) do not, and write
 * the message only when they fail (lcpsim.h, lsim_sim_error). */
void lsim_api_begin(const LsimSim *sim);

/* Sets sim->error from fmt and returns status. */
int lsim_api_fail(LsimSim *sim, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Writes fmt into err[errlen] (err may be NULL) and returns status. */
int lsim_api_err(char *err, size_t errlen, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Keeps the state as sim->initial (at the start). 0 or LSIM_OUT_OF_MEMORY. */
int lsim_api_keep_initial(LsimSim *sim);

/* A new zeroed simulation, or NULL. */
LsimSim *lsim_api_alloc(void);

/* Checks cfg against the ranges of lcpsim.h (tol finite >= 0, max_iter >= 0, omega in
 * (0, 2), threads 1 .. 64, sparse_limit >= -1, principal 0 .. 1000000, precision 0 .. 2); NULL is fine (the defaults). 0, or
 * LSIM_INVALID_INPUT with msg[len] naming the field and its value. */
int lsim_api_check_config(const LsimSolverConfig *cfg, char *msg, size_t len);
/* lsim_api_check_config, and principal != 0 refused unless name is "lemke_sparse" (name
 * NULL: not checked), as a scene's solver.principal with another solver is; precision != 0
 * likewise unless name is "pgs". */
int lsim_api_check_config_for(const char *name, const LsimSolverConfig *cfg, char *msg, size_t len);

/* Sets sim->error to "WHAT: no body I (the bodies are 0 .. N-1)" and returns
 * LSIM_INVALID_INPUT; sim not NULL (const: the message is no part of the simulation). */
int lsim_api_no_body(const LsimSim *sim, const char *what, int i);

/* The solver settings of cfg (NULL: defaults; checked by lsim_api_check_config) as the
 * model keeps them: every one cfg holds, and lemke_sparse's block_start, lu_solve and
 * lu_refactor, which it does not, 0 (the environment's, else built in); on_failure and
 * islands, the run's, as s had them (lsim_sim_set_solver's rule, lcpsim.h). */
void lsim_api_settings(LsimSolverSettings *s, const char *name, const LsimSolverConfig *cfg);

#endif
