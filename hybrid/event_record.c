/* event_record.c: an event-driven run written to a run file: the samples at the record
 * period as the time step's rows (same layout, so every script reads both integrators),
 * and the event table, appended as the run goes and flushed with the rows. */
#include "hybrid/event_driven.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact/guard.h"
#include "lcp/lcp.h"

typedef struct RecordJob {
  LsimRecord *rec;
  const LsimEventLog *log;
  int events_written;  /* log entries already appended to the file's event table */
  int samples;
  int failed;
  int diverged;        /* the divergence guard stopped the run: why in msg */
  int room_low;        /* the disk has too little room for more (lsim_record_space_low) */
  char msg[320];
  void (*on_sample)(int samples, void *user); /* the options' hook, or NULL */
  void *on_sample_user;
} RecordJob;

/* Appends the events logged since the last call to the file's table. 0 or < 0. */
static int append_events(RecordJob *job) {
  for (; job->events_written < job->log->count; ++job->events_written) {
    const LsimEvent *e = &job->log->events[job->events_written];
    if (lsim_record_event(job->rec, e->t, e->kind, e->contact, e->body[0], e->body[1]))
      return -1;
  }
  return 0;
}

static int record_sample(const LsimModel *m, const LsimState *st, const LsimContactSet *contacts,
                         void *user) {
  RecordJob *job = user;
  LsimStepStats stats;
  memset(&stats, 0, sizeof stats);
  stats.status = LSIM_SOLVED;
  stats.ncontacts = contacts->count;
  /* Divergence guard (contact/guard.h): a bad sample is not recorded, the run stops. */
  LsimStateFault fault;
  if (lsim_state_check(m, st, contacts, &fault)) {
    lsim_state_fault_format(m, st->step, &fault, job->msg, sizeof job->msg);
    job->diverged = 1;
    return -1;
  }
  /* The events up to this sample first: a flush the sample triggers takes them along. */
  if (append_events(job) || lsim_record_step(job->rec, m, st, contacts, &stats)) {
    job->failed = 1;
    return -1;
  }
  job->samples++;
  if (job->on_sample) job->on_sample(job->samples, job->on_sample_user);
  /* A flush that left too little room for the next and the close: the run stops at this
     sample, its file closed whole (as a time-stepping run's: cli/run.c). */
  if (*lsim_record_space_low(job->rec)) {
    job->room_low = 1;
    return -1;
  }
  return 0;
}

int lsim_event_driven_record(const LsimModel *m, LsimState *st, const LsimEventOptions *opt,
                             LsimRecord *rec, int *samples, long *events, char *err,
                             size_t errlen) {
  LsimEventLog log;
  memset(&log, 0, sizeof log);
  RecordJob job = {.rec = rec, .log = &log};
  LsimEventOptions o = opt ? *opt : lsim_default_event_options();
  o.record_period = m->time_step;
  job.on_sample = o.on_sample, job.on_sample_user = o.on_sample_user;
  const double t_end = m->time_step * m->steps;
  /* The event table's datasets, made before the run and filled as it goes. */
  const char *names[LSIM_EVENT_KINDS];
  for (int k = 0; k < LSIM_EVENT_KINDS; ++k) names[k] = lsim_event_kind_name(k);
  int rc = lsim_record_events_begin(rec, "event_driven", names, LSIM_EVENT_KINDS, err, errlen);
  if (rc) return rc;
  rc = lsim_event_driven_run(m, st, t_end, &o, record_sample, &job, &log, err, errlen);
  if (job.failed && rc >= 0) rc = LSIM_IO_ERROR;
  if (job.failed) snprintf(err, errlen, "writing sample %d failed", job.samples + 1);
  if (job.diverged) {
    rc = LSIM_BREAKDOWN;
    snprintf(err, errlen, "%s", job.msg);
  }
  if (job.room_low) {
    rc = LSIM_EVENT_STOPPED;
    snprintf(err, errlen, "%s", lsim_record_space_low(rec));
  }
  /* The events after the last sample, also after a failure (what happened up to it). */
  if (!job.failed && append_events(&job) && rc >= 0) {
    rc = LSIM_IO_ERROR;
    snprintf(err, errlen, "writing event %d failed", job.events_written + 1);
  }
  if (samples) *samples = job.samples;
  if (events) *events = log.count;
  lsim_event_log_free(&log);
  return rc;
}
