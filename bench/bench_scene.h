/* bench_scene.h: a scene loaded for a benchmark, or the reason on stderr. */
#ifndef LSIM_BENCH_SCENE_H
#define LSIM_BENCH_SCENE_H

#include <stdio.h>
#include <stdlib.h>

#include "scene/scene.h"

/* Loads path into model and state (the scene's text freed); 0, or 2 (the exit status)
 * after "<prog>: <file:line:column: message>" on stderr. */
static inline int bench_load_scene(const char *prog, const char *path, LsimModel *model,
                                   LsimState *state) {
  char *text = NULL, err[256];
  LsimSceneError serr;
  if (lsim_scene_load(path, model, state, &text, &serr)) {
    lsim_scene_error_format(&serr, err, sizeof err);
    fprintf(stderr, "%s: %s\n", prog, err);
    return 2;
  }
  free(text);
  return 0;
}

#endif
