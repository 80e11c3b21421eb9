/* scene.h: scene.json in, world out. The format is documented in docs/scene-format.md
 * and described by data/scene.schema.json. */
#ifndef LSIM_SCENE_H
#define LSIM_SCENE_H

#include <stddef.h>

#include "contact/world.h"

/* Where and what went wrong, for one clear error line:
 *   "<file>:<line>:<column>: <json path>: <message>", e.g.
 *   "data/x.json:12:15: bodies[1].mass: must be > 0, got -1". */
typedef struct LsimSceneError {
  char file[256];
  int line, column;       /* 0 when unknown (e.g. file missing) */
  char path[128];         /* JSON path, "" for the whole document */
  char message[256];
} LsimSceneError;

/* Formats err as one line (no newline) into buf. */
void lsim_scene_error_format(const LsimSceneError *err, char *buf, size_t len);

/* Reads and validates a scene file. On success (0) fills model (finalized) and the
 * initial state, and *text gets a malloc'd copy of the file's text (for the output file;
 * the caller frees). On error (< 0: LSIM_IO_ERROR or LSIM_INVALID_INPUT) fills err and
 * leaves nothing allocated. */
int lsim_scene_load(const char *path, LsimModel *model, LsimState *state, char **text,
                    LsimSceneError *err);

/* The same from a string in memory; name is used as the file name in errors. */
int lsim_scene_parse(const char *json, const char *name, LsimModel *model, LsimState *state,
                     LsimSceneError *err);

#endif
