/* bench_memory.c: resident memory over a long run. A small scene (default
 * data/box_slide_3d.json: a box sliding to rest on the ground, four frictional contacts
 * every step, Lemke) is stepped 10^6 times through the public API; the process's resident
 * set (VmRSS) and its peak (VmHWM), from /proc/self/status, are printed after the first
 * step (the workspaces are sized then) and at every tenth of the run. The first tenth also
 * pages in code and data first used after step 1 (contacts that close later, stdio
 * buffers): the steady growth is that from the first tenth to the end. Flat means that
 * growth is a page or two at most: the step keeps nothing per step.
 * With --record FILE.h5 every step is also appended to an HDF5 record (docs/output-format.md),
 * so the writer's buffers are measured too (the file grows; memory must not).
 *
 * usage: bench_memory [--steps N] [--scene FILE.json] [--record FILE.h5]
 * Exit status 0 whatever the figures (a benchmark, not a test); 2 on bad arguments or a
 * scene that does not load, 1 when a step fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "include/lcpsim/lcpsim.h"

/* VmRSS and VmHWM in kB, or -1 when /proc is not there. */
static void memory_kb(long *rss, long *hwm) {
  *rss = *hwm = -1;
  FILE *f = fopen("/proc/self/status", "r");
  if (!f) return;
  char line[256];
  while (fgets(line, sizeof line, f)) {
    if (!strncmp(line, "VmRSS:", 6)) *rss = strtol(line + 6, NULL, 10);
    if (!strncmp(line, "VmHWM:", 6)) *hwm = strtol(line + 6, NULL, 10);
  }
  fclose(f);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  long steps = 1000000;
  const char *scene = "data/box_slide_3d.json", *record = NULL;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--steps") && i + 1 < argc) steps = strtol(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--scene") && i + 1 < argc) scene = argv[++i];
    else if (!strcmp(argv[i], "--record") && i + 1 < argc) record = argv[++i];
    else {
      fprintf(stderr, "usage: bench_memory [--steps N] [--scene FILE.json] [--record FILE.h5]\n");
      return 2;
    }
  }
  if (steps < 10) {
    fprintf(stderr, "bench_memory: --steps must be >= 10\n");
    return 2;
  }
  char err[1024];
  LsimSim *sim = NULL;
  if (lsim_sim_load(&sim, scene, err, sizeof err)) {
    fprintf(stderr, "bench_memory: %s\n", err);
    return 2;
  }
  if (record && lsim_sim_record(sim, record)) {
    fprintf(stderr, "bench_memory: %s\n", lsim_sim_error(sim));
    lsim_sim_free(sim);
    return 2;
  }

  /* The first step sizes the workspaces: the baseline is taken after it. */
  long failures = 0;
  if (lsim_sim_step(sim) < 0) ++failures;
  long rss0, hwm0;
  memory_kb(&rss0, &hwm0);
  printf("bench_memory: %s, %ld steps, solver %s%s%s\n", scene, steps, lsim_sim_solver(sim),
         record ? ", recording to " : "", record ? record : "");
  printf("%10s %12s %12s %12s %10s\n", "step", "VmRSS kB", "VmHWM kB", "RSS - start", "us/step");
  printf("%10d %12ld %12ld %12ld %10s\n", 1, rss0, hwm0, 0L, "");
  const double t0 = now();
  double tlast = t0;
  long last = 1, rss_tenth = -1;
  for (long k = 2; k <= steps; ++k) {
    const int rc = lsim_sim_step(sim);
    if (rc < 0) ++failures;
    if (rc == LSIM_IO_ERROR) break;
    if (k % (steps / 10) == 0 || k == steps) {
      long rss, hwm;
      memory_kb(&rss, &hwm);
      if (rss_tenth < 0) rss_tenth = rss;
      const double t = now();
      printf("%10ld %12ld %12ld %12ld %10.2f\n", k, rss, hwm, rss - rss0,
             1e6 * (t - tlast) / (double)(k - last));
      fflush(stdout);
      tlast = t;
      last = k;
    }
  }
  long rss1, hwm1;
  memory_kb(&rss1, &hwm1);
  const double total = now() - t0;
  const long steady = steps - steps / 10;
  printf("VmRSS after step 1: %ld kB, at step %ld: %ld kB, at the end: %ld kB; growth over the "
         "last %ld steps %+ld kB (%.3g bytes per step); peak VmHWM %ld kB; %.1f s, %.2f "
         "us/step; %ld failed steps\n",
         rss0, steps / 10, rss_tenth, rss1, steady, rss1 - rss_tenth,
         1024.0 * (double)(rss1 - rss_tenth) / (double)steady, hwm1, total,
         1e6 * total / (double)steps, failures);
  if (record) lsim_sim_record_close(sim, 1);
  lsim_sim_free(sim);
  return failures ? 1 : 0;
}
