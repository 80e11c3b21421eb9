/* scene.h: hybrid-model scenes: a scene.json whose "hybrid" object names a registered
 * model, its parameters, initial state and chart, and the run's integrator settings
 * (docs/hybrid.md). Errors are positioned like rigid-body scenes' (scene/scene.h):
 * "file:line:column: json.path: message". */
#ifndef LSIM_HYBRID_SCENE_H
#define LSIM_HYBRID_SCENE_H

#include "hybrid/model.h"
#include "hybrid/run.h"
#include "scene/scene.h"

#define LSIM_HYBRID_MAX_VALUES 64   /* states and parameters a scene can set per model */

typedef struct LsimHybridScene {
  const LsimHybridModel *model;
  double params[LSIM_HYBRID_MAX_VALUES];    /* the model's defaults, then the scene's */
  double initial[LSIM_HYBRID_MAX_VALUES];   /* likewise for the state */
  int chart;                                /* the scene's "chart", -1: the model picks */
  LsimHybridOptions options;
  char output_file[256];                    /* "output.file", "" when none */
  int print;                                /* "output.print" */
} LsimHybridScene;

/* 1 when text is a JSON object with a "hybrid" key (a hybrid scene), else 0 (also for
 * text that is not JSON: the rigid-body loader then reports the syntax error). */
int lsim_hybrid_scene_detect(const char *text);

/* Parses and validates a hybrid scene; name is the file name used in errors. Returns 0,
 * or LSIM_INVALID_INPUT (lcp/lcp.h) with err filled. */
int lsim_hybrid_scene_parse(const char *text, const char *name, LsimHybridScene *s,
                            LsimSceneError *err);

#endif
