/* scene.h: scene.json in, world out. The format is documented in docs/scene-format.md
 * and described by data/scene.schema.json. */
#ifndef LSIM_SCENE_H
#define LSIM_SCENE_H

#include <stdarg.h>
#include <stddef.h>

#include "contact/world.h"

/* Where and what went wrong, for one clear error line:
 *   "<file>:<line>:<column>: <json path>: <message>", e.g.
 *   "data/x.json:12:15: bodies[1].mass: must be > 0, got -1". */
typedef struct LsimSceneError {
  char file[256];
  int line, column;       /* 0 when unknown (e.g. file missing) */
  char path[128];         /* JSON path, "" for the whole document */
  char message[512];      /* room for a list of every top-level key */
} LsimSceneError;

/* Formats err as one line (no newline) into buf. */
void lsim_scene_error_format(const LsimSceneError *err, char *buf, size_t len);

/* x in the fewest of 15 .. 17 significant digits that read back as x, into buf (len >= 32
 * holds any double): what a message names where %g's six digits would name another
 * number (a duration of 1.0000001 s as 1). Returns buf. */
const char *lsim_format_exact(double x, char *buf, size_t len);

/* Reads and validates a scene file. On success (0) fills model (finalized) and the
 * initial state, and *text gets a malloc'd copy of the file's text (for the output file;
 * the caller frees). On error (< 0: LSIM_IO_ERROR or LSIM_INVALID_INPUT) fills err and
 * leaves nothing allocated. */
int lsim_scene_load(const char *path, LsimModel *model, LsimState *state, char **text,
                    LsimSceneError *err);

/* Reads a file's whole text (NUL-terminated, malloc'd: the caller frees) and its length
 * in bytes (len may be NULL). 0, or < 0 (LSIM_IO_ERROR, LSIM_OUT_OF_MEMORY) with err
 * filled ("cannot read: ...", err may be NULL). A pipe (/dev/stdin) can be read once
 * only: parse what this returns with lsim_scene_parse_text rather than loading again. */
int lsim_scene_read_text(const char *path, char **text, size_t *len, LsimSceneError *err);

/* lsim_scene_parse of text[len] (a NUL byte inside it is an error), as read by
 * lsim_scene_read_text; name is used as the file name in errors. */
int lsim_scene_parse_text(const char *text, size_t len, const char *name, LsimModel *model,
                          LsimState *state, LsimSceneError *err);


/* Fills err for the value at path in text (its key when at_key): cleared, the file name
 * (name, or "<scene>"), its line:column, the path and the message; returns
 * LSIM_INVALID_INPUT. The scene reader's errors and other loaders' (hybrid/scene.c). */
int lsim_scene_verror(LsimSceneError *err, const char *text, const char *name,
                      const char *path, int at_key, const char *fmt, va_list ap)
    __attribute__((format(printf, 6, 0)));

/* Refuses a number of the (valid JSON) text that is not 0 but reads as 0, being smaller
 * than the smallest double (1e-400): fills err (its value's line:column and path, the
 * number as written) and returns LSIM_INVALID_INPUT; 0 when there is none. jansson refuses
 * numbers past the largest double and reads these as 0 without a word. */
int lsim_scene_check_underflow(LsimSceneError *err, const char *text, const char *name);

/* The same from a string in memory; name is used as the file name in errors. */
int lsim_scene_parse(const char *json, const char *name, LsimModel *model, LsimState *state,
                     LsimSceneError *err);

/* The scene's "output" object: what to write where, as the scene asks (the CLI may
 * override both). Not part of the model: it says nothing about the physics. */
typedef struct LsimSceneOutput {
  char file[256];         /* "output.file" as written (relative paths are the CLI's
                             business), "" when the scene names none */
  int print;              /* "output.print": 1 asks for a printed run as well; default 0 */
  int record_every;       /* "output.record_every": a file row every this many steps (and
                             the last); 0 when the scene does not say (every step) */
} LsimSceneOutput;

/* Reads the output settings of a scene text (typically the *text lsim_scene_load
 * returned). The whole scene is validated as by lsim_scene_parse, so a text this
 * accepts is a loadable scene. Returns 0 and fills out, or < 0 and fills err (which may
 * be NULL); nothing stays allocated either way. */
int lsim_scene_output(const char *json, const char *name, LsimSceneOutput *out,
                      LsimSceneError *err);

#endif
