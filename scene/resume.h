/* resume.h: continuing a run from its file (lcpsim SCENE.json --resume RUN.h5;
 * docs/output-format.md, "Resuming a run").
 *
 * A run file holds, besides its rows, the stepper's memory as of its last flush (/resume,
 * scene/record.h lsim_record_keep_memory): with the state of that step, everything the
 * next step depends on. These read it back and check that the file belongs to the scene:
 * the same scene text but for the keys that do not touch the trajectory, the same
 * parameters and initial state. Errors name what differs; nothing is written. The
 * library's checkpoints (lsim_sim_save / lsim_sim_restore) are written and read here too.
 */
#ifndef LSIM_RESUME_H
#define LSIM_RESUME_H

#include <stddef.h>

#include "contact/step.h"
#include "contact/world.h"

/* What a run file says of itself. */
typedef struct LsimResumeInfo {
  int steps_done;          /* N: the step of the last row taken (the steps run; a killed
                              run's file: of its last whole flush's row, /flushed_rows) */
  int rows;                /* the rows taken after row 0: N, or fewer with a record stride
                              (/time has rows + 1 + steps_cut) */
  int steps_cut;           /* rows past those in /time, of a flush the kill cut short (not
                              resumed from); 0 but in killed runs' files */
  int record_every;        /* /parameters/record_every (1 when the file has none) */
  int steps_asked;         /* /parameters/steps */
  int memory_step;         /* the step the stepper's memory is of (-1: none): of the two
                              slots /resume/slot0, /resume/slot1 the one of step steps_done, else the
                              later one */
  int memory_slot;         /* that slot (0 or 1) */
  char run_end[32];        /* /summary/run_end, or "unfinished" (a killed run's partial file) */
  char solver_name[64];    /* /parameters/solver_name ... */
  double tol, omega;
  int max_iter, threads, sparse_limit, warm_start;
  int on_failure;          /* LSIM_ON_FAILURE_*, -1 when the file does not say */
  int block_start, lu_solve, lu_refactor; /* runs of lemke_sparse, newton, lemke: the sparse
                              Lemke settings in effect (/parameters/solver_block_start,
                              _lu_solve (LSIM_LU_*), _lu_refactor); lu_refactor 0 when the
                              file does not say (another solver, a file that recorded the
                              scene's keys alone, or a newton or lemke run's from before) */
  int principal;           /* a lemke_sparse run's principal pivoting budget in effect
                              (/parameters/solver_principal), 0 when the file does not say
                              (another solver, or a run from before the setting: none ran) */
  int precision;           /* a pgs run's sweep arithmetic (/parameters/solver_precision):
                              1 "float", 0 "double" or not said (another solver, or a run
                              from before the setting: double) */
  int ties_shortcut;       /* the sparse Lemke tie shortcut in effect (LSIM_TIES_SHORTCUT,
                              /parameters/solver_ties_shortcut: 0, 1 or 2); -1 when the file
                              does not say */
  int simd_reference;      /* the run's PGS sweep ran on LSIM_SIMD=reference
                              (/parameters/solver_simd "reference"), 0 when the file says none */
  int has_lcp;             /* the run dumped its LCPs (/lcp) */
} LsimResumeInfo;

/* The sparse Lemke settings a lemke_sparse run of m takes now (m's solver keys, else the
 * environment's LSIM_BLOCK_START, LSIM_LU_SOLVE, LSIM_LU_REFACTOR, else the built-in ones:
 * lsim_lemke_sparse_effective) against those path's run recorded (info): 0, or
 * LSIM_INVALID_INPUT with err naming the first that differs, its values and the variable
 * that gives the run's ("PATH: its lemke_sparse setting lu_solve is klu, this run's umfpack
 * ..."; the continued steps would not be that run's). The same for the solvers whose
 * fallbacks run sparse Lemke, newton and lemke, on the environment's settings alone
 * (lsim_solver_sparse_settings). 0 when the run's solver (info) runs no sparse Lemke or
 * its file does not say (lu_refactor 0: files before these solvers recorded them). */
/* Sparse Lemke's tie shortcut now: the environment's LSIM_TIES_SHORTCUT (0, 1 or 2, as
 * lcp/lemke_sparse.c reads it), else 1, the built-in one. */
int lsim_resume_ties_shortcut(void);

int lsim_resume_check_sparse(const char *path, const LsimResumeInfo *info, const LsimModel *m,
                             char *err, size_t errlen);
/* A lemke_sparse run's principal pivoting budget (info->principal) against this run's: the
 * scene's solver.principal (model), else the environment's LSIM_PRINCIPAL, else 0
 * (lsim_solver_principal_setting). 0, or LSIM_INVALID_INPUT with err naming the key, both
 * values and the variable to set. */
int lsim_resume_check_principal(const char *path, const LsimResumeInfo *info,
                                const LsimModel *model, char *err, size_t errlen);

/* A pgs run's sweep arithmetic (info->precision) against this run's: the scene's
 * solver.precision (model), else the environment's LSIM_PGS_PRECISION, else double
 * (lsim_solver_precision_setting). 0, or LSIM_INVALID_INPUT with err naming the key, both
 * values and the variable to set. */
int lsim_resume_check_precision(const char *path, const LsimResumeInfo *info,
                                const LsimModel *model, char *err, size_t errlen);

/* The environment's sweep path against the run's (info->simd_reference): 0 when both are,
 * or are not, LSIM_SIMD=reference (the other paths give the same bits), else
 * LSIM_INVALID_INPUT with err saying which ("PATH: its run took PGS's sweep on
 * LSIM_SIMD=reference, this run the default paths: ..."): the continued steps would not be
 * that run's. */
int lsim_resume_check_env(const char *path, const LsimResumeInfo *info, char *err, size_t errlen);

/* Reads what run_path says of itself into info and its scene text (*scene_text,
 * malloc'd, the caller frees). Refuses (LSIM_INVALID_INPUT, err) what is not a
 * time-stepping run file: a hybrid-model file, an event-driven run, a compare file, a file
 * with inconsistent row counts; LSIM_IO_ERROR when it does not open. */
int lsim_resume_read_info(const char *run_path, LsimResumeInfo *info, char **scene_text,
                          char *err, size_t errlen);

/* Compares the scene text (of scene_path) with the run's (run_path's /scene_text) as JSON:
 * equal numbers, strings, arrays and objects, but for the top-level keys that do not
 * touch the trajectory (steps, duration, output, name, description, $schema). 0, or
 * LSIM_INVALID_INPUT with the first difference in err ("SCENE:LINE:COL: PATH: ... here,
 * ... in RUN's scene"). */
int lsim_resume_compare_scenes(const char *text, const char *scene_path, const char *run_text,
                               const char *run_path, char *err, size_t errlen);

/* Checks model (settings applied) and its initial state against run_path's parameters,
 * bodies and row 0 (bit for bit), then reads the state after step info->steps_done into
 * state (time, step, q, v) and the stepper's memory into mem. 0, or LSIM_INVALID_INPUT /
 * LSIM_IO_ERROR / LSIM_OUT_OF_MEMORY with err naming what differs or is missing. */
int lsim_resume_read_state(const char *run_path, const LsimResumeInfo *info,
                           const LsimModel *model, LsimState *state, LsimStepMemory *mem,
                           char *err, size_t errlen);

/* Checkpoints of the library (lsim_sim_save; docs/output-format.md, "Checkpoints of the
 * library"): a run file of no steps whose row 0 is state st (time, q, v), with /file_kind
 * "checkpoint", /checkpoint/step, /checkpoint/initial_q [1, nq] and initial_v [1, nv] (the
 * initial state of the run st comes from), and stepper's memory of that step in /resume
 * (lsim_record_keep_memory: both slots). Written under
 * path.<pid>.partial and renamed when whole (an older checkpoint at path stays until then).
 * solver_name is what /parameters/solver_name says. 0, or < 0 with err. */
int lsim_checkpoint_write(const char *path, const LsimModel *m, const LsimState *st,
                          const LsimState *initial, const LsimStepper *stepper,
                          const char *scene_text, const char *solver_name, char *err,
                          size_t errlen);

/* Reads a checkpoint, or a time-stepping run file of the command with /resume (as --resume
 * does: its last step), for model m with scene text text (NULL: a world built in code;
 * scene_name places a difference in it), solver solver_name (with m->solver's options) and
 * initial state initial: the file must be of the same world (scene text as JSON but for the
 * keys that do not touch the trajectory, parameters, initial state to the bit), the same
 * lcpsim version and the same solver settings. Then the state it holds goes into st (q, v
 * allocated for m) and the stepper's memory into mem. 0, or LSIM_INVALID_INPUT /
 * LSIM_IO_ERROR / LSIM_OUT_OF_MEMORY with err naming the first difference; hybrid-model,
 * event-driven and compare files are refused by what they are. st may be written on error. */
int lsim_checkpoint_read(const char *path, const LsimModel *m, const char *text,
                         const char *scene_name, const char *solver_name,
                         const LsimState *initial, LsimState *st, LsimStepMemory *mem,
                         char *err, size_t errlen);

#endif
