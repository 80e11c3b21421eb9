/* team.c: the thread team of team.h (pthreads, C11 atomics, Linux futexes). Contract in
 * team.h.
 *
 * Every wait here spins for at most LSIM_TEAM_SPIN_SECONDS, then sleeps in the kernel on
 * the word it waits for (a futex; elsewhere than Linux it yields instead): on a machine
 * with free cores a hand-off stays a spin (sub-microsecond), and on a loaded one a member
 * whose partner is off its core gives its core away instead of burning its time slice. A
 * sleeper announces itself (a counter, sequentially consistent) before it reads the word
 * a last time, and a writer stores the word before it reads the counter: one of the two
 * sees the other, and the kernel's own compare closes the rest (futex_wait returns at once
 * when the word has already changed). */
#define _DEFAULT_SOURCE /* syscall() */
#include "team.h"

#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "lcp.h"

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
  _Alignas(64) atomic_int generation; /* bumped once per run (and by free, to end the
                                          members' waits); members sleep on it */
  atomic_int sleeping;    /* members asleep on generation */
  atomic_uint alarm;      /* bumped by lsim_team_wake */
  atomic_int quit;
  _Alignas(64) atomic_int pending; /* members 1.. still inside the current run's job;
                                       the caller sleeps on it */
  atomic_int caller_sleeping;
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

/* Sleeps while *word == expected (returns at once if it differs; may return spuriously). */
static void futex_wait(atomic_int *word, int expected) {
#if defined(__linux__)
  syscall(SYS_futex, (int *)word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
#else
  (void)word, (void)expected;
  sched_yield();
#endif
}

/* Wakes every thread asleep on word. */
static void futex_wake_all(atomic_int *word) {
#if defined(__linux__)
  syscall(SYS_futex, (int *)word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
#else
  (void)word;
#endif
}

/* The spin phase of a wait: 1 while it may go on (the clock is read every 64 spins). */
static inline int keep_spinning(int *spins, double *since) {
  cpu_relax();
  if (++*spins & 63) return 1;
  const double now = seconds();
  if (*since < 0.0) *since = now;
  return now - *since < LSIM_TEAM_SPIN_SECONDS;
}

void lsim_team_flag_init(LsimTeamFlag *f, int value) {
  atomic_init(&f->value, value);
  atomic_init(&f->sleepers, 0);
}

void lsim_team_flag_store(LsimTeamFlag *f, int value) {
  atomic_store(&f->value, value);
  if (atomic_load(&f->sleepers) > 0) futex_wake_all(&f->value);
}

void lsim_team_flag_wait(LsimTeamFlag *f, int target) {
  if (atomic_load_explicit(&f->value, memory_order_acquire) >= target) return;
  int spins = 0;
  double since = -1.0;
  while (atomic_load_explicit(&f->value, memory_order_acquire) < target)
    if (!keep_spinning(&spins, &since)) {
      atomic_fetch_add(&f->sleepers, 1);
      int v;
      while ((v = atomic_load(&f->value)) < target) futex_wait(&f->value, v);
      atomic_fetch_sub(&f->sleepers, 1);
      return;
    }
}

/* A member: wait for a new generation (spin, then sleep), run the job, report. */
static void *member_main(void *p) {
  const Member *me = p;
  LsimTeam *t = me->team;
  int seen = 0; /* the generation at create: a run posted before this thread got going is
                   still seen as new */
  for (;;) {
    int g, spins = 0;
    double since = -1.0;
    while ((g = atomic_load_explicit(&t->generation, memory_order_acquire)) == seen) {
      if (atomic_load_explicit(&t->quit, memory_order_relaxed)) return NULL;
      if (keep_spinning(&spins, &since)) continue;
      /* Asleep until the next run (or free); lsim_team_wake's alarm gets it spinning
         again (a hint: a wake that comes just before the sleep is lost, and the next run
         wakes it anyway). */
      const unsigned alarm = atomic_load(&t->alarm);
      atomic_fetch_add(&t->sleeping, 1);
      while (atomic_load(&t->generation) == seen && atomic_load(&t->alarm) == alarm &&
             !atomic_load(&t->quit))
        futex_wait(&t->generation, seen);
      atomic_fetch_sub(&t->sleeping, 1);
      spins = 0, since = -1.0;
    }
    seen = g;
    if (atomic_load(&t->quit)) return NULL;
    t->job(t->arg, me->index);
    /* The last one out wakes the caller if it sleeps. */
    if (atomic_fetch_sub(&t->pending, 1) == 1 && atomic_load(&t->caller_sleeping))
      futex_wake_all(&t->pending);
  }
}

/* Wakes the members asleep on generation, if any. */
static void wake_sleepers(LsimTeam *t) {
  if (atomic_load(&t->sleeping) > 0) futex_wake_all(&t->generation);
}

int lsim_team_create(LsimTeam **out, int size) {
  *out = NULL;
  if (size < 1) return LSIM_INVALID_INPUT;
  LsimTeam *t = calloc(1, sizeof *t);
  if (!t) return LSIM_OUT_OF_MEMORY;
  t->size = size;
  atomic_init(&t->generation, 0);
  atomic_init(&t->pending, 0);
  atomic_init(&t->sleeping, 0);
  atomic_init(&t->alarm, 0u);
  atomic_init(&t->quit, 0);
  atomic_init(&t->caller_sleeping, 0);
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
    /* quit, then a new generation: every wait ends (sleepers included) and sees quit. */
    atomic_store(&t->quit, 1);
    atomic_fetch_add(&t->generation, 1);
    futex_wake_all(&t->generation);
    for (int k = 0; k < t->started; ++k) pthread_join(t->threads[k], NULL);
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
  atomic_fetch_add(&t->generation, 1);
  wake_sleepers(t);
  job(arg, 0);
  /* Wait for the others (acquire: their writes are visible after): spin, then sleep on
     pending (a member not running gets the core). */
  int spins = 0;
  double since = -1.0;
  while (atomic_load_explicit(&t->pending, memory_order_acquire) > 0)
    if (!keep_spinning(&spins, &since)) {
      atomic_store(&t->caller_sleeping, 1);
      int v;
      while ((v = atomic_load(&t->pending)) > 0) futex_wait(&t->pending, v);
      atomic_store(&t->caller_sleeping, 0);
      break;
    }
}
