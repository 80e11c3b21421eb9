/* event_driven.h: the event-driven integrator for rigid-body scenes (scene key
 * "integrator": "event_driven"; docs/scene-format.md, "Event-driven integration").
 *
 * Between events the motion is smooth and integrated by SUNDIALS CVODE (hybrid/ode.h)
 * with the contacts in fixed modes: free (apart), persistent and sticking, persistent and
 * sliding; tethers slack or taut. The accelerations come from the manipulator equations
 * with the persistent contacts' forces solved for at every evaluation (their normal
 * accelerations, and sticking contacts' tangential ones, held at zero; sliding friction
 * -mu f_n along the slip, turning from the slide's first direction within 1e-7 m/s of
 * slip; a slide beside a sticking contact of its pair keeps that direction). Events are
 * the roots of
 *   free contact or slack tether:  its gap (psi for tethers) falling through 0  (impact;
 *     contacts by the least gap of their body pair; one left free at about rest by the
 *     last event, an impact, by its gap plus contact_tol)
 *   persistent contact or taut tether: its normal force falling through 0     (lift-off)
 *   sticking contact: mu f_n - |f_t| falling through 0                         (slip)
 *   sliding contact: the slip velocity along its first direction through 0     (stick)
 *   persistent 3-D box-box face vertex: the least of its margin inside its faces and
 *   its role (how far the separating axes are from turning the reference face; contact/
 *   geometry.h lsim_box_face_vertex) falling through 0      (a corner passes an edge)
 * located to a precision in the function's value (default 1e-10: m, N or m/s). Up to its
 * event a face vertex past its face is followed by the same formula (docs/hybrid.md,
 * "Rigid bodies: edges"); at the event the contacts are detected afresh.
 *
 * At an event the contacts are classified again at the event's state (closed: gap <=
 * contact_tol): closed contacts approaching faster than velocity_tol, with those that
 * would close within 1e-6 s (at most 1e-6 m away), go through an impact
 * LCP (velocity level, Newton's law with the pair's restitution above the model's
 * threshold speed, the polyhedral friction cone: the time step's LCP without the time
 * step, Tedrake's impact map in LCP form); then the closed contacts at rest in the normal
 * direction (after an impact: separating slower than sqrt(2 |g| contact_tol), a hop within
 * the closed band, whose rebound is removed if the contact stays: the end of a Zeno
 * accumulation of impacts) go through an acceleration-level LCP (normal accelerations >= 0 complementary
 * to the forces, the same cone for sticking contacts, sliding friction folded into the
 * normal columns) whose solution decides who stays (persistent), who lifts off, and who
 * sticks or slides (a contact at rest it slides sticks when the flow's circular cone
 * holds it; one at its cone root slides against the flow's friction there). Chattering guard (SimSect's chart counter): a contact that impacts
 * chatter_events times within chatter_window seconds is treated as inelastic (e = 0), so
 * that it becomes persistent instead of bouncing forever; the event log says so.
 *
 * Joints: their rows are persistent equalities from the start (forces free in sign, no
 * roots, Baumgarte on their position errors) and enter every impact and acceleration LCP
 * as equalities (each impulse the difference of two non-negative ones).
 *
 * Scope: 2-D and 3-D scenes of dynamic and static bodies with contacts, joints and
 * tethers on fixed anchors (no kinematic bodies, moving anchors or 1-D scenes: those are
 * errors naming the feature). The curvature term (d/dt J) v of the persistent rows is
 * taken by a central difference of the rows along the motion (1e-6 s), and the rows
 * carry Baumgarte stabilization (RBDL's default T_stab = 0.1 s) against drift.
 *
 * Failure modes: an LCP that Lemke cannot solve (Painleve-type configurations), CVODE
 * failing, more events than max_events, a sample with two bodies' free contacts more than
 * 1e-6 m inside each other ("bodies A-B interpenetrate by X m at t = T: an impact was not
 * located"), or a persistent contact detection loses that is
 * no 3-D box-box face vertex (2-D boxes, 3-D edge-edge contacts: "a persistent contact
 * vanished from detection"), or a root that jumps within a step (a 3-D contact's friction
 * turning with its slip velocity near zero slip speed: docs/hybrid.md, "Stacks"; the
 * message names the root: "root K (cone of contact ID, bodies A-B, stick)"): the run
 * stops with the error's message; the state is the last good one.
 */
#ifndef LSIM_EVENT_DRIVEN_H
#define LSIM_EVENT_DRIVEN_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "contact/contact.h"
#include "contact/world.h"
#include "scene/record.h"

typedef enum LsimEventKind {
  LSIM_EVENT_IMPACT = 0,     /* a gap (or a tether's slack) closed with approach speed */
  LSIM_EVENT_CONTACT = 1,    /* a contact became persistent (closed at rest, or after an
                                inelastic impact) */
  LSIM_EVENT_LIFTOFF = 2,    /* a persistent contact or taut tether let go */
  LSIM_EVENT_STICK = 3,      /* a sliding contact stopped slipping */
  LSIM_EVENT_SLIP = 4,       /* a sticking contact started to slide */
  LSIM_EVENT_PERSISTENT = 5, /* chatter guard: too many impacts in the window, e -> 0 */
  LSIM_EVENT_KINDS = 6
} LsimEventKind;

/* "impact", "contact", "liftoff", "stick", "slip", "persistent". */
const char *lsim_event_kind_name(int kind);

typedef struct LsimEventOptions {
  double precision;      /* |g| at a located event (m for gaps), default 1e-10; at least
                            LSIM_EVENT_PRECISION_FLOOR (1e-12, contact/world.h: below it
                            an impact cannot be located in double precision) */
  double time_precision; /* s: the event's time bracketed this closely too, default 1e-10
                            (slow approaches: 1e-10 m of gap alone is 1e-10 / v s) */
  double record_period;  /* s, samples at exact multiples; <= 0: the model's time_step */
  double rtol, atol;     /* CVODE tolerances, default 1e-12 and 1e-14 */
  double max_step;       /* CVODE's largest step, s, default 1e-2 */
  double contact_tol;    /* m: a contact whose gap is at most this is closed, default 1e-8 */
  double velocity_tol;   /* m/s: a closed contact approaching faster impacts, default 1e-7 */
  int chatter_events;    /* impacts of one contact within chatter_window that make it
                            inelastic, default 20 */
  double chatter_window; /* s, default 0.1 */
  int sequential;        /* 1: an impact's closed contacts go through their impact LCPs
                            one at a time, the fastest approaching first, until none
                            approaches faster than velocity_tol (at most
                            LSIM_MAX_SEQUENTIAL_IMPACTS LCPs); 0 (default): one LCP */
  long max_events;       /* the run stops with an error after this many, default 1000000 */
  const volatile sig_atomic_t *stop; /* when not NULL, polled after every sample and every
                            event and in every evaluation of the flow (a signal handler
                            raises it): the run ends cleanly at that event or at the last
                            sample delivered, returning LSIM_EVENT_INTERRUPTED; default NULL */
  void (*on_sample)(int samples, void *user); /* lsim_event_driven_record only: called
                            after each sample written with the samples written so far (a
                            progress display); default NULL */
  void *on_sample_user;
} LsimEventOptions;

/* Pairwise impacts of one sequential impact at most (a run or lsim_impact_map fails with
 * LSIM_BREAKDOWN beyond it; a row of 10 plastic balls needs about 1100). */
#define LSIM_MAX_SEQUENTIAL_IMPACTS 100000

/* lsim_event_driven_run / _record: the options' stop flag was raised; the run ended at
 * the last sample or event, everything before it delivered (a warning, > 0). */
#define LSIM_EVENT_INTERRUPTED 2
/* lsim_event_driven_record: the record's disk (or file size limit) has too little room
 * left for its next flush (lsim_record_space_low): the run ended at the sample whose flush
 * found it so, every sample and event before kept; err says why (a warning, > 0). */
#define LSIM_EVENT_STOPPED 3

LsimEventOptions lsim_default_event_options(void);

/* The defaults with the scene's event_driven settings (precision, chatter_events,
 * chatter_window, rtol, atol, sequential) taken from the model. */
LsimEventOptions lsim_event_options_for_model(const LsimModel *m);

typedef struct LsimEvent {
  double t;
  int kind;              /* LsimEventKind */
  uint64_t contact;      /* the contact's id (contact/contact.h; tethers lsim_tether_id) */
  int body[2];           /* its bodies */
} LsimEvent;

typedef struct LsimEventLog {
  int count, capacity;
  LsimEvent *events;     /* [count] in time order */
  long steps;            /* CVODE's internal steps over the run (lsim_event_driven_run) */
} LsimEventLog;

void lsim_event_log_free(LsimEventLog *log);

/* A sample at time st->time = k * record_period (st->step = k), with the persistent
 * contacts and taut tethers (normal_impulse and friction_impulse are the forces times the
 * record period, N s, so that sums over samples compare with the time step's impulses).
 * 0 to go on, < 0 to stop the run. */
typedef int (*LsimEventSampleFn)(const LsimModel *m, const LsimState *st,
                                 const LsimContactSet *contacts, void *user);

/* 0 when model is within the integrator's scope (above); else LSIM_INVALID_INPUT with err
 * naming what is not supported. */
int lsim_event_driven_check(const LsimModel *m, char *err, size_t errlen);

/* Integrates st (the initial state, time 0 or later) to t_end, calling sample at every
 * multiple of the record period from st->time on (the first at st->time itself is not
 * sampled: it is the caller's initial row), logging events into log (may be NULL).
 * Returns 0, LSIM_EVENT_INTERRUPTED (the stop flag, err says when), LSIM_INVALID_INPUT (a
 * scene outside the scope above, with err naming it), or another negative status with err
 * saying what failed and when; st holds the last state reached (the last sample's on
 * failure). A precision below LSIM_EVENT_PRECISION_FLOOR is LSIM_INVALID_INPUT. */
int lsim_event_driven_run(const LsimModel *m, LsimState *st, double t_end,
                          const LsimEventOptions *opt, LsimEventSampleFn sample, void *user,
                          LsimEventLog *log, char *err, size_t errlen);

/* The impact map of a set of closing contacts (RBDL's ComputeConstraintImpulses, as an
 * LCP): in state st the contacts between the body pairs pairs[2 p], pairs[2 p + 1]
 * (p < npairs; each pair's nearest features, those within 1e-9 m of its smallest gap,
 * wherever the bodies are) close at once while the model's joints hold. The impact LCP:
 * Newton's law with the pairs' restitution (above the model's threshold speed), the
 * friction cone, each joint row as an equality (J v+ = 0, its impulse free in sign). Writes
 * the post-impact velocities v_plus[nv] and, into contacts (cleared first; the rows are not
 * kept), the closing contacts and the joint rows with their impulses (normal_impulse,
 * friction_impulse). Returns 0; LSIM_INVALID_INPUT when a pair has no contact features
 * (err names the bodies) or the model is outside the integrator's scope
 * (lsim_event_driven_check: 1-D, a kinematic body, a moving anchor; err names it);
 * LSIM_BREAKDOWN when Lemke fails. */
int lsim_impact_map(const LsimModel *m, const LsimState *st, int npairs, const int *pairs,
                    double *v_plus, LsimContactSet *contacts, char *err, size_t errlen);

/* Runs model->steps record periods of model->time_step (the record period of an
 * event-driven scene) from st and writes them to rec: a row per sample as the time step
 * writes its steps (solver status 0, the persistent contacts with forces times the
 * period), and the event table (lsim_record_events_begin, each event appended with the
 * sample after it, so both are flushed together). *samples gets the rows written,
 * *events the events (either may be NULL). Returns 0, LSIM_EVENT_INTERRUPTED (opt->stop
 * raised; err says when), LSIM_EVENT_STOPPED (the disk about to fill; err says why) or < 0
 * with err (the rows and events up to the end are written). */
int lsim_event_driven_record(const LsimModel *m, LsimState *st, const LsimEventOptions *opt,
                             LsimRecord *rec, int *samples, long *events, char *err,
                             size_t errlen);

#endif
