/* event_record.c: an event-driven run written to a run file: the samples at the record
 * period as the time step's rows (same layout, so every script reads both integrators),
 * then the event table. */
#include "hybrid/event_driven.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact/guard.h"
#include "lcp/lcp.h"

typedef struct RecordJob {
  LsimRecord *rec;
  int samples;
  int failed;
  int diverged;        /* the divergence guard stopped the run: why in msg */
  char msg[320];
} RecordJob;

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
  if (lsim_record_step(job->rec, m, st, contacts, &stats)) {
    job->failed = 1;
    return -1;
  }
  job->samples++;
  return 0;
}

int lsim_event_driven_record(const LsimModel *m, LsimState *st, const LsimEventOptions *opt,
                             LsimRecord *rec, int *samples, long *events, char *err,
                             size_t errlen) {
  RecordJob job = {.rec = rec};
  LsimEventLog log;
  memset(&log, 0, sizeof log);
  LsimEventOptions o = opt ? *opt : lsim_default_event_options();
  o.record_period = m->time_step;
  const double t_end = m->time_step * m->steps;
  int rc = lsim_event_driven_run(m, st, t_end, &o, record_sample, &job, &log, err, errlen);
  if (job.failed && !rc) rc = LSIM_IO_ERROR;
  if (job.failed) snprintf(err, errlen, "writing sample %d failed", job.samples + 1);
  if (job.diverged) {
    rc = LSIM_BREAKDOWN;
    snprintf(err, errlen, "%s", job.msg);
  }
  /* The event table, also after a failure (what happened up to it). */
  const int n = log.count;
  double *t = malloc(((size_t)n + 1) * sizeof(double));
  int *kind = malloc(((size_t)n + 1) * 3 * sizeof(int));
  uint64_t *id = malloc(((size_t)n + 1) * sizeof(uint64_t));
  if (!t || !kind || !id) {
    if (!rc) rc = LSIM_OUT_OF_MEMORY, snprintf(err, errlen, "out of memory");
  } else {
    int *ba = kind + n + 1, *bb = ba + n + 1;
    for (int i = 0; i < n; ++i) {
      t[i] = log.events[i].t, kind[i] = log.events[i].kind, id[i] = log.events[i].contact;
      ba[i] = log.events[i].body[0], bb[i] = log.events[i].body[1];
    }
    const char *names[LSIM_EVENT_KINDS];
    for (int k = 0; k < LSIM_EVENT_KINDS; ++k) names[k] = lsim_event_kind_name(k);
    char werr[256];
    if (lsim_record_events(rec, "event_driven", n, t, kind, id, ba, bb, names, LSIM_EVENT_KINDS,
                           werr, sizeof werr) &&
        !rc) {
      rc = LSIM_IO_ERROR;
      snprintf(err, errlen, "%s", werr);
    }
  }
  free(t), free(kind), free(id);
  if (samples) *samples = job.samples;
  if (events) *events = n;
  lsim_event_log_free(&log);
  return rc;
}
