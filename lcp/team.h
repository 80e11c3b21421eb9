/* team.h: a fixed team of threads for the data-parallel stages of one solve.
 *
 * The calling thread is member 0; members 1 .. size-1 are threads the team creates once
 * and keeps. lsim_team_run hands every member the same job and returns when all of them
 * have finished it, so a job's writes are visible to the caller afterwards. A PGS sweep
 * is one run: runs follow each other within microseconds, so members wait for the next
 * by spinning (a round trip costs about 0.2 us on two cores); after a while without work
 * (between solves) they sleep on a condition variable, and lsim_team_wake gets them
 * spinning again ahead of the next runs. Nothing here allocates after create.
 *
 * Failure modes: thread creation can fail (create returns LSIM_UNAVAILABLE; the caller
 * runs serially). On a machine with fewer free cores than members, runs still complete
 * (the waits yield the processor) but take longer than serial ones.
 */
#ifndef LSIM_TEAM_H
#define LSIM_TEAM_H

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
