/* scene_stepper.h: a scene file stepped by an exact solver, for the tests that check a
 * solver on the time step's own problems (test_newton, test_lemke_sparse). Header only:
 * it needs the scene and contact layers, which not every test program links. */
#ifndef LSIM_TEST_SCENE_STEPPER_H
#define LSIM_TEST_SCENE_STEPPER_H

#include <stdio.h>
#include <stdlib.h>

#include "contact/step.h"
#include "scene/scene.h"

typedef struct {
  LsimModel model;
  LsimState st;
  LsimStepper *stepper;
  char *text;
} SceneStepper;

/* Loads path and makes its stepper with solver `solver` at tolerance tol, no iteration
 * cap, warm started; 0, or -1 with the reason on stderr (the caller asserts). */
static inline int scene_stepper_open(SceneStepper *t, const char *path, const char *solver,
                                     double tol) {
  LsimSceneError serr;
  t->text = NULL, t->stepper = NULL;
  if (lsim_scene_load(path, &t->model, &t->st, &t->text, &serr)) {
    fprintf(stderr, "%s: cannot load\n", path);
    return -1;
  }
  snprintf(t->model.solver.name, sizeof t->model.solver.name, "%s", solver);
  t->model.solver.tol = tol;
  t->model.solver.max_iter = 0;
  t->model.solver.warm_start = 1;
  char err[256];
  if (lsim_stepper_create(&t->stepper, &t->model, NULL, err, sizeof err)) {
    fprintf(stderr, "%s: %s\n", path, err);
    return -1;
  }
  return 0;
}

static inline void scene_stepper_close(SceneStepper *t) {
  lsim_stepper_free(t->stepper);
  lsim_model_free(&t->model);
  lsim_state_free(&t->st);
  free(t->text);
}

#endif
