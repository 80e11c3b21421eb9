/* guard.h: the divergence guard. After each step a run checks that the state and the
 * step's impulses are finite and that every moving body stays within the scene's limits
 * (model->limits, contact/world.h: by default 1e6 m, 1e4 m/s and 1e6 rad/s;
 * docs/scene-format.md "limits"); the first fault stops the run before the
 * step is recorded (cli/run.c), so no NaN and no runaway state reaches the output file.
 *
 * What is checked, per moving body (dynamic or kinematic) in scene order:
 *   every coordinate of q and v finite (3-D q includes the quaternion);
 *   |origin| <= max_position (1-D |x|, 2-D / 3-D the Euclidean norm), m;
 *   |linear velocity| <= max_speed, m/s;
 *   |angular velocity| <= max_angular_speed (2-D |omega|, 3-D the norm), rad/s;
 * and per contact row of the step: normal impulse, friction impulse and slip speed finite.
 * A non-finite value is reported before any bound is; the first body (or contact) in order
 * is the one named.
 */
#ifndef LSIM_GUARD_H
#define LSIM_GUARD_H

#include <stddef.h>

#include "contact/contact.h"
#include "contact/world.h"

typedef enum {
  LSIM_FAULT_NONE = 0,
  LSIM_FAULT_NOT_FINITE = 1, /* a coordinate or impulse is NaN or infinite */
  LSIM_FAULT_BEYOND_LIMIT = 2 /* a norm beyond its limit */
} LsimFaultKind;

typedef struct LsimStateFault {
  int kind;              /* LsimFaultKind */
  int body;              /* the body (index into the model), or -1 */
  int contact;           /* the contact (index into the step's set) for impulses, or -1 */
  const char *quantity;  /* "position", "velocity", "angular velocity", "orientation",
                            "normal impulse", "friction impulse", "slip speed" */
  const char *component; /* the coordinate's name ("x", "qw", "wz", ...) when non-finite,
                            else "" */
  double value;          /* the offending value (a norm for LSIM_FAULT_BEYOND_LIMIT) */
  double limit;          /* the bound it passed (0 when non-finite) */
  const char *limit_key; /* "max_position", "max_speed", "max_angular_speed", or "" */
} LsimStateFault;

/* Checks state against model->limits, and contacts (NULL: none) for finite impulses.
 * Returns 0 when all is well, else the fault's kind (> 0) with *fault filled. */
int lsim_state_check(const LsimModel *model, const LsimState *state,
                     const LsimContactSet *contacts, LsimStateFault *fault);

/* value (> limit) as text in buf: 4 significant digits, or as many (up to 17) as it takes
 * for the text to read beyond limit (3.0000000000000004 against 3 is not "3"). */
void lsim_format_beyond(char *buf, size_t len, double value, double limit);

/* One line: "step K: body 'NAME': QUANTITY ..." naming the value and the limit. */
void lsim_state_fault_format(const LsimModel *model, int step, const LsimStateFault *fault,
                             char *buf, size_t len);

#endif
