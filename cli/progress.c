/* progress.c: the progress bar of `lcpsim SCENE.json` (cli/cli.h, LsimCliProgress). */
#include <stdio.h>
#include <time.h>

#include "cli/cli.h"

double lsim_cli_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The time left as H:MM:SS (minutes and seconds below an hour). */
static void format_left(double s, char *buf, size_t len) {
  const long r = (long)(s + 0.5);
  if (r >= 3600) snprintf(buf, len, "%ld:%02ld:%02ld", r / 3600, r / 60 % 60, r % 60);
  else snprintf(buf, len, "%ld:%02ld", r / 60, r % 60);
}

void lsim_cli_progress_update(LsimCliProgress *p, int done) {
  if (!p->on) return;
  const double t = lsim_cli_now() - p->t0;
  const int every = p->every ? p->every : 50;
  /* Every 50 steps, but at most ten times a second: a fast scene (the bouncing ball, 4e4
     steps a second) was redrawn 800 times a second, 56 kB/s of bar on the terminal. */
  const int by_count = every > 0 && done % every == 0 && t - p->last >= 0.1;
  if (t < 0.5 || !(!p->shown || by_count || done == p->total || t - p->last >= 0.5)) return;
  const int width = 40;
  const int filled = p->total > 0 ? (int)((long long)width * done / p->total) : width;
  char left[32] = "?";
  if (done > p->first) format_left(t * (p->total - done) / (done - p->first), left, sizeof left);
  char line[160];
  const int n = snprintf(line, sizeof line, "[%.*s%*s] %d/%d %s, %.1f s, %s left", filled,
                         "########################################", width - filled, "", done,
                         p->total, p->unit, t, left);
  fprintf(stderr, "\r%s%*s", line, p->width > n ? p->width - n : 0, "");
  fflush(stderr);
  p->width = n, p->last = t, p->shown = 1;
}

void lsim_cli_progress_end(LsimCliProgress *p) {
  if (p->shown) fputc('\n', stderr);
  p->shown = 0;
}
