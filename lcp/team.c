/* team.c: the thread team of team.h (pthreads, C11 atomics). Contract in team.h. */
#include "team.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "lcp.h"

/* How long a member spins without work before it sleeps (between solves), seconds. */
#define IDLE_SPIN_SECONDS 5e-3

struct LsimTeam;

typedef struct Member {
  struct LsimTeam *team;
  int index;
} Member;

struct LsimTeam {
  int size;
  pthread_t *threads; /* [size - 1] */
  Member *members;    /* [size - 1] */
  int started;        /* threads running */
  LsimTeamJob job;
  void *arg;
  atomic_uint generation; /* bumped once per run */
  atomic_int pending;     /* members 1.. still inside the current run's job */
  atomic_int sleeping;    /* members blocked on cv */
  atomic_uint alarm;      /* bumped by lsim_team_wake */
  atomic_int quit;
  pthread_mutex_t mu;
  pthread_cond_t cv;
};

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

static double seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A member: wait for a new generation (spin, then sleep), run the job, report. */
static void *member_main(void *p) {
  const Member *me = p;
  LsimTeam *t = me->team;
  unsigned seen = 0; /* the generation at create: a run posted before this thread got
                       going is still seen as new */
  for (;;) {
    unsigned g;
    double idle_since = -1.0;
    int spins = 0;
    while ((g = atomic_load_explicit(&t->generation, memory_order_acquire)) == seen) {
      if (atomic_load_explicit(&t->quit, memory_order_relaxed)) return NULL;
      cpu_relax();
      if (++spins & 255) continue;
      /* Every 256 spins: check the clock, sleep when idle for too long. */
      const double now = seconds();
      if (idle_since < 0.0) idle_since = now;
      if (now - idle_since < IDLE_SPIN_SECONDS) continue;
      pthread_mutex_lock(&t->mu);
      const unsigned alarm = atomic_load(&t->alarm);
      atomic_fetch_add(&t->sleeping, 1);
      while (atomic_load(&t->generation) == seen && atomic_load(&t->alarm) == alarm &&
             !atomic_load(&t->quit))
        pthread_cond_wait(&t->cv, &t->mu);
      atomic_fetch_sub(&t->sleeping, 1);
      pthread_mutex_unlock(&t->mu);
      idle_since = -1.0;
    }
    seen = g;
    if (atomic_load(&t->quit)) return NULL;
    t->job(t->arg, me->index);
    atomic_fetch_sub_explicit(&t->pending, 1, memory_order_release);
  }
}

/* Wakes the sleepers, if any (the seq_cst order of generation/alarm and sleeping makes a
 * member that is about to sleep see the new value instead). */
static void wake_sleepers(LsimTeam *t) {
  if (atomic_load(&t->sleeping) == 0) return;
  pthread_mutex_lock(&t->mu);
  pthread_cond_broadcast(&t->cv);
  pthread_mutex_unlock(&t->mu);
}

int lsim_team_create(LsimTeam **out, int size) {
  *out = NULL;
  if (size < 1) return LSIM_INVALID_INPUT;
  LsimTeam *t = calloc(1, sizeof *t);
  if (!t) return LSIM_OUT_OF_MEMORY;
  t->size = size;
  atomic_init(&t->generation, 0u);
  atomic_init(&t->pending, 0);
  atomic_init(&t->sleeping, 0);
  atomic_init(&t->alarm, 0u);
  atomic_init(&t->quit, 0);
  if (size == 1) {
    *out = t;
    return 0;
  }
  t->threads = calloc((size_t)size - 1, sizeof *t->threads);
  t->members = calloc((size_t)size - 1, sizeof *t->members);
  if (!t->threads || !t->members) {
    free(t->threads);
    free(t->members);
    free(t);
    return LSIM_OUT_OF_MEMORY;
  }
  pthread_mutex_init(&t->mu, NULL);
  pthread_cond_init(&t->cv, NULL);
  for (int k = 1; k < size; ++k) {
    t->members[k - 1] = (Member){t, k};
    if (pthread_create(&t->threads[k - 1], NULL, member_main, &t->members[k - 1])) break;
    t->started++;
  }
  if (t->started != size - 1) {
    lsim_team_free(t);
    return LSIM_UNAVAILABLE;
  }
  *out = t;
  return 0;
}

void lsim_team_free(LsimTeam *t) {
  if (!t) return;
  if (t->size > 1) {
    atomic_store(&t->quit, 1);
    pthread_mutex_lock(&t->mu);
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
    for (int k = 0; k < t->started; ++k) pthread_join(t->threads[k], NULL);
    pthread_cond_destroy(&t->cv);
    pthread_mutex_destroy(&t->mu);
  }
  free(t->threads);
  free(t->members);
  free(t);
}

int lsim_team_size(const LsimTeam *t) { return t ? t->size : 1; }

void lsim_team_wake(LsimTeam *t) {
  if (!t || t->size == 1) return;
  atomic_fetch_add(&t->alarm, 1u);
  wake_sleepers(t);
}

void lsim_team_run(LsimTeam *t, LsimTeamJob job, void *arg) {
  if (t->size == 1) {
    job(arg, 0);
    return;
  }
  /* Publish the job, then the generation (release): members read job and arg after it. */
  t->job = job;
  t->arg = arg;
  atomic_store_explicit(&t->pending, t->size - 1, memory_order_relaxed);
  atomic_fetch_add(&t->generation, 1u);
  wake_sleepers(t);
  job(arg, 0);
  /* Wait for the others (acquire: their writes are visible after); yield now and then in
     case a member is not running. */
  int spins = 0;
  while (atomic_load_explicit(&t->pending, memory_order_acquire) > 0) {
    cpu_relax();
    if ((++spins & 4095) == 0) sched_yield();
  }
}
