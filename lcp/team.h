/* team.h: a fixed team of threads for the data-parallel stages of one solve.
 *
 * The calling thread is member 0; members 1 .. size-1 are threads the team creates once
 * and keeps. lsim_team_run hands every member the same job and returns when all of them
 * have finished it, so a job's writes are visible to the caller afterwards. Runs follow
 * each other within microseconds, so every wait (a member's for the next run, the
 * caller's for the members, a job's on an LsimTeamFlag) spins first (a round trip costs
 * about 0.2 us on two cores), for at most LSIM_TEAM_SPIN_SECONDS, then sleeps in the
 * kernel (a futex) until the awaited write wakes it: idle members cost nothing between
 * solves, and on a machine whose cores run other processes a waiting member gives its
 * core up instead of spinning while its partner waits for one. lsim_team_wake gets
 * sleeping members spinning again ahead of the next runs. Nothing here allocates after
 * create.
 *
 * Failure modes: thread creation can fail (create returns LSIM_UNAVAILABLE; the caller
 * runs serially). On a machine with fewer free cores than members, runs still complete
 * (the waits sleep) but take longer than serial ones.
 */
#ifndef LSIM_TEAM_H
#define LSIM_TEAM_H

#include <stdatomic.h>

/* How long a wait spins before it sleeps, seconds. 100 us: on a quiet machine the
 * two-thread pile runs 16 % more steps a second than with 20 us (the runs after a serial
 * stage find their member still spinning); 20 us gained 18-34 % only where other work
 * took the cores (load 10 on 2 cores; docs/solvers.md, "Two threads"). -D at build time
 * for experiments. */
#ifndef LSIM_TEAM_SPIN_SECONDS
#define LSIM_TEAM_SPIN_SECONDS 100e-6
#endif

/* A counter that jobs on the team wait on (a sweep's progress), on a cache line of its
 * own: waits spin, then sleep, as the team's own. */
typedef struct LsimTeamFlag {
  _Alignas(64) atomic_int value;
  atomic_int sleepers; /* waiters asleep on value */
} LsimTeamFlag;

void lsim_team_flag_init(LsimTeamFlag *f, int value);
/* Sets the value (sequentially consistent: the writes before it are visible to a waiter
 * that sees it) and wakes the sleeping waiters. */
void lsim_team_flag_store(LsimTeamFlag *f, int value);
/* Returns once the value is at least target (spin, then sleep). */
void lsim_team_flag_wait(LsimTeamFlag *f, int target);

typedef struct LsimTeam LsimTeam;

/* One job: called once per member, member in [0, size). */
typedef void (*LsimTeamJob)(void *arg, int member);

/* A team of size members (size >= 1; size 1 creates no thread). Returns 0, or
 * LSIM_OUT_OF_MEMORY / LSIM_UNAVAILABLE (no thread could be started), *out = NULL. */
int lsim_team_create(LsimTeam **out, int size);

/* Stops and joins the members; NULL is ignored. */
void lsim_team_free(LsimTeam *t);

int lsim_team_size(const LsimTeam *t);

/* Runs job(arg, k) on member k for every k (k = 0 on the caller) and returns when all are
 * done. Not reentrant: one run at a time, from one calling thread. */
void lsim_team_run(LsimTeam *t, LsimTeamJob job, void *arg);

/* Gets sleeping members spinning, so that the runs that follow start at once. */
void lsim_team_wake(LsimTeam *t);

#endif
