/* timed.c: one solve under a time limit in a forked child (compare/timed.h). */
#include "compare/timed.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Writes all of buf; 0 or -1. */
static int write_all(int fd, const void *buf, size_t len) {
  const char *p = buf;
  while (len > 0) {
    const ssize_t k = write(fd, p, len);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    p += k, len -= (size_t)k;
  }
  return 0;
}

int lsim_compare_timed(void (*fn)(void *arg), void *arg, double limit, double *out,
                       size_t nout, void *stats, size_t stats_size) {
  if (!(limit > 0.0)) {
    fn(arg);
    return 0;
  }
  int fds[2];
  if (pipe(fds)) return -1;
  fflush(NULL);
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]), close(fds[1]);
    return -1;
  }
  if (pid == 0) {
    /* child: solve once untimed from a copy of the start, then again from the start:
       the first solve takes the child's copy-on-write faults on the context's workspace
       and its first-use allocations, which inside the timed solve added 25-250 us to
       solves of a few us and reordered the solvers; the second is measured as a solve in
       place is (on a context that has solved before). Then send stats and the solution,
       and leave without atexit handlers. */
    close(fds[0]);
    double *start = malloc((nout ? nout : 1) * sizeof(double));
    if (start) {
      memcpy(start, out, nout * sizeof(double));
      fn(arg);
      memcpy(out, start, nout * sizeof(double));
      free(start);
    }
    fn(arg);
    const int ok = !write_all(fds[1], stats, stats_size) &&
                   !write_all(fds[1], out, nout * sizeof(double));
    _exit(ok ? 0 : 1);
  }
  close(fds[1]);
  /* parent: read stats and solution into a staging area until the deadline */
  const size_t total = stats_size + nout * sizeof(double);
  size_t got = 0;
  int rc = 0;
  const double deadline = now() + 2.0 * limit; /* the untimed solve and the timed one */
  char sbuf[512];
  char *stage_stats = stats_size <= sizeof sbuf ? sbuf : NULL;
  if (!stage_stats) rc = -1;
  while (!rc && got < total) {
    const double left = deadline - now();
    if (left <= 0.0) {
      rc = LSIM_COMPARE_TIMEOUT;
      break;
    }
    struct pollfd pf = {fds[0], POLLIN, 0};
    const int pr = poll(&pf, 1, (int)(left * 1000.0) + 1);
    if (pr < 0 && errno == EINTR) continue;
    if (pr < 0) {
      rc = -1;
      break;
    }
    if (pr == 0) continue; /* the deadline check above ends it */
    /* stats go to the staging buffer, the solution straight into out (kept only on
       success: a partial solution is overwritten below when rc != 0) */
    char *dst;
    size_t room;
    if (got < stats_size) dst = stage_stats + got, room = stats_size - got;
    else dst = (char *)out + (got - stats_size), room = total - got;
    const ssize_t k = read(fds[0], dst, room);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      rc = -1; /* the child died before sending everything */
      break;
    }
    got += (size_t)k;
  }
  close(fds[0]);
  if (rc) kill(pid, SIGKILL);
  int wst = 0;
  while (waitpid(pid, &wst, 0) < 0 && errno == EINTR) {
  }
  if (!rc && !(WIFEXITED(wst) && WEXITSTATUS(wst) == 0)) rc = -1;
  if (!rc) memcpy(stats, stage_stats, stats_size);
  return rc;
}
