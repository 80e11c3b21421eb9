/* bench_pile.c: a pile of N boxes dropped into a bin, lcpsim against ODE in the same
 * process, same boxes, masses, friction, gravity and step.
 *
 *   lcpsim: the Stewart-Trinkle LCP, PGS at 20 sweeps (tolerance 0, warm started), d = 4;
 *           in one thread, and with a sweep team of T threads (solver.threads, default 2).
 *   ODE:    dWorldQuickStep with 20 iterations, dContactApprox1 (friction pyramid scaled by
 *           the normal force), mu 0.5, default ERP/CFM, up to 4 contacts per box pair; in
 *           one thread, and (N <= 1000) with ODE's own thread pool of T threads
 *           (dThreadingAllocateThreadPool, dWorldSetStepThreadingImplementation), so that
 *           each is compared with the other's best.
 *
 * Prints steps per second for all four and the ratios, lcpsim's deepest penetration and
 * largest residual, ODE's deepest penetration (the same way: the deepest contact that
 * detection finds before each step), and time per step against N (growth should be about
 * linear). Also Lemke's time and pivots per step at N = 10 and 100 (over fewer steps: it
 * is a dense pivoting method).
 *
 * With --sleep: instead, sleeping bodies at rest (model->sleep, contact/sleep.c) on against
 * off on one pile (N = 1000, 2000 steps unless --n / --steps say otherwise), one thread:
 * lcpsim (sleep: 0.01 m/s, 0.02 rad/s, 0.5 s) and, as the peer, ODE's auto-disable with
 * the same thresholds and time, taking turns; steps/s over the whole run and over its last
 * quarter (the pile at rest), the fraction asleep at the end, the deepest penetration.
 *
 * usage: bench_pile [--quick] [--no-lemke] [--no-ode] [--n N] [--steps S] [--threads T] [--cpu]
 *                   [--one] [--threaded] [--skip K] [--sleep] [--sleep-speeds LIN ANG]
 *                   [--step-team-min C]
 *   --sleep-speeds: --sleep with these thresholds (m/s, rad/s) instead of 0.01 and 0.02.
 *   --cpu: times are the process's CPU time (CLOCK_PROCESS_CPUTIME_ID) instead of wall
 *   time, for one-thread figures on a loaded machine (the team runs' CPU time adds up the
 *   members' spinning, so their column then means CPU spent, not time taken);
 *   --quick: N = 10, 100 only, 200 steps; --n: that size only; --steps: that many steps
 *   (every size); --no-ode: lcpsim only (profiling), ODE columns print 0; --threads: the
 *   team size of the threaded runs (2); --one: the one-thread runs alone, without the
 *   T-thread runs of lcpsim and ODE (to profile the step, e.g. perf record; and with --cpu,
 *   whose process CPU time would count ODE's pool threads), their columns then print 0 / inf
 *   / -; --threaded: the T-thread lcpsim run alone (to profile the team's run: perf
 *   record, and the threads' CPU times), the other columns "-";
 *   --skip K: every run first takes K steps untimed and uncounted (the boxes fall about
 *   0.05 m and settle in the first few tens of steps), then the S timed steps;
 *   --step-team-min C: the contact count from which the step's passes over the contacts
 *   run on the team (lsim_stepper_set_team_min_contacts; default 512, 2147483647: every
 *   pass in one thread, as before they moved; the same bits either way).
 */
#include <math.h>
#include <ode/ode.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "contact/step.h"
#include "contact/world.h"
#include "lcp/random.h"

#define HALF 0.05      /* box half side, m */
#define MASS 1.0       /* kg */
#define MU 0.5
#define H 0.01         /* s */
#define GAP 0.02       /* initial spacing between boxes, m */

static int use_cpu_clock; /* --cpu */

static double now(void) {
  struct timespec ts;
  clock_gettime(use_cpu_clock ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The wall clock, whatever --cpu says: the solver's share of the step is its wall time
   (LsimStepStats.wall_time) over the step's wall time, one clock for both (over the CPU
   time, on a loaded machine, it had read 236 %). */
static double wall_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Grid layout: boxes per side of the bin floor and the bin's inner half width. */
static int per_side(int n) {
  int k = (int)ceil(sqrt((double)n / 4.0));
  return k < 2 ? 2 : k;
}

static double bin_half(int n) { return per_side(n) * (HALF + GAP / 2) + 0.02; }

/* Initial center of box i (deterministic jitter so the pile does not stack perfectly). */
static void box_position(int n, int i, LsimRng *rng, double p[3]) {
  const int k = per_side(n), layer = i / (k * k), r = i % (k * k);
  const double pitch = 2 * HALF + GAP, start = -bin_half(n) + 0.02 + HALF + GAP / 2;
  p[0] = start + (r % k) * pitch + lsim_rng_range(rng, -0.003, 0.003);
  p[1] = start + (r / k) * pitch + lsim_rng_range(rng, -0.003, 0.003);
  p[2] = HALF + 0.05 + layer * pitch;
}

/* ---- lcpsim ---- */

static void build_lcpsim(int n, int threads, LsimModel *m, LsimState *st) {
  *m = lsim_default_model();
  m->dimension = 3;
  m->time_step = H;
  m->gravity[2] = -9.81;
  m->friction_directions = 4;
  m->contact_margin = 0.0; /* as ODE: no margin beyond what the step can close (h * speed) */
  strcpy(m->solver.name, "pgs");
  m->solver.tol = 0.0;
  m->solver.max_iter = 20;
  m->solver.warm_start = 1;
  m->solver.threads = threads;
  for (int i = 0; i < n; ++i) {
    LsimBody b = lsim_default_body();
    snprintf(b.name, sizeof b.name, "box%d", i);
    b.mass = MASS;
    const double half[3] = {HALF, HALF, HALF};
    lsim_inertia_box(MASS, half, b.inertia);
    const int bi = lsim_model_add_body(m, &b);
    LsimShape s = lsim_default_shape();
    s.type = LSIM_SHAPE_BOX;
    s.body = bi;
    s.half[0] = s.half[1] = s.half[2] = HALF;
    s.mu = MU;
    lsim_model_add_shape(m, &s);
  }
  /* The bin: a floor plane and four walls (static boxes). */
  LsimBody bin = lsim_default_body();
  strcpy(bin.name, "bin");
  bin.type = LSIM_BODY_STATIC;
  const int bb = lsim_model_add_body(m, &bin);
  LsimShape floor = lsim_default_shape();
  floor.type = LSIM_SHAPE_PLANE;
  floor.body = bb;
  floor.mu = MU;
  lsim_model_add_shape(m, &floor);
  const double w = bin_half(n), t = 0.05, wall_h = 2.0;
  for (int k = 0; k < 4; ++k) {
    LsimShape s = lsim_default_shape();
    s.type = LSIM_SHAPE_BOX;
    s.body = bb;
    s.mu = MU;
    const int axis = k / 2, sign = k % 2 ? 1 : -1;
    s.pos[axis] = sign * (w + t);
    s.pos[2] = wall_h;
    s.half[axis] = t;
    s.half[1 - axis] = w + 2 * t;
    s.half[2] = wall_h;
    lsim_model_add_shape(m, &s);
  }
  lsim_model_finalize(m);
  lsim_state_init(st, m);
  LsimRng jitter = lsim_rng(7);
  for (int i = 0; i < n; ++i) {
    double *q = st->q + m->bodies[i].q_offset;
    box_position(n, i, &jitter, q);
    q[3] = 1.0, q[4] = q[5] = q[6] = 0.0;
  }
}

typedef struct {
  double seconds_per_step, max_penetration, max_residual, mean_iterations, mean_contacts;
  double mean_penetration; /* the mean over the steps of each step's deepest penetration, m */
  double solver_share; /* fraction of the step's wall time spent in the solver */
  int max_iterations, failures, last_failure;
} RunStats;

/* One lcpsim run, stepped in chunks (so that runs can take turns, see main). */
typedef struct {
  LsimModel m;
  LsimState st;
  LsimStepper *s;
  const char *solver;
  RunStats r;
  double total, wall_total, iters;
  int steps;
} LsimRun;

/* --step-team-min (0: the stepper's default). */
static int step_team_min;

static void lsim_run_init(LsimRun *run, int n, const char *solver, int threads, int sleep) {
  memset(run, 0, sizeof *run);
  run->solver = solver;
  build_lcpsim(n, threads, &run->m, &run->st);
  run->m.sleep.enabled = sleep; /* the default thresholds: 0.01 m/s, 0.02 rad/s, 0.5 s */
  if (strcmp(solver, "pgs")) {
    /* Pivoting solvers: solve to 1e-10, default pivot limit (not 20 sweeps at tol 0). */
    run->m.solver.tol = 1e-10;
    run->m.solver.max_iter = 0;
  }
  char err[256];
  if (lsim_stepper_create(&run->s, &run->m, solver, err, sizeof err)) {
    fprintf(stderr, "bench_pile: %s\n", err);
    exit(1);
  }
  if (step_team_min > 0) lsim_stepper_set_team_min_contacts(run->s, step_team_min);
}

/* The instruction sets lcpsim's coloured PGS sweep ran on (bit k: LSIM_PGS_SIMD k). */
static unsigned simd_seen;

static void lsim_run_steps(LsimRun *run, int count) {
  RunStats *r = &run->r;
  for (int k = 0; k < count; ++k) {
    LsimStepStats ss;
    const double t0 = now(), w0 = wall_now();
    const int status = lsim_step(run->s, &run->m, &run->st, &ss);
    run->total += now() - t0;
    run->wall_total += wall_now() - w0;
    if (status != LSIM_SOLVED && !(status == LSIM_MAX_ITERATIONS && !strcmp(run->solver, "pgs")))
      r->failures++, r->last_failure = status;
    const LsimContactSet *cs = lsim_stepper_contacts(run->s);
    double deepest = 0.0;
    for (int c = 0; c < cs->count; ++c) deepest = fmax(deepest, -cs->contacts[c].gap);
    r->max_penetration = fmax(r->max_penetration, deepest);
    r->mean_penetration += deepest;
    r->max_residual = fmax(r->max_residual, ss.residual);
    run->iters += ss.iterations;
    r->mean_contacts += ss.ncontacts;
    r->solver_share += ss.wall_time;
    if (ss.iterations > r->max_iterations) r->max_iterations = ss.iterations;
    simd_seen |= 1u << ss.simd;
  }
  run->steps += count;
}

/* Forgets the steps taken so far (--skip): times and statistics start over. */
static void lsim_run_restart(LsimRun *run) {
  memset(&run->r, 0, sizeof run->r);
  run->total = run->wall_total = 0.0, run->iters = 0.0, run->steps = 0;
}

static RunStats lsim_run_finish(LsimRun *run) {
  RunStats r = run->r;
  r.seconds_per_step = run->total / run->steps;
  r.solver_share /= run->wall_total;
  r.mean_iterations = run->iters / run->steps;
  r.mean_contacts /= run->steps;
  r.mean_penetration /= run->steps;
  lsim_stepper_free(run->s);
  lsim_state_free(&run->st);
  lsim_model_free(&run->m);
  return r;
}

/* ---- ODE ---- */

typedef struct {
  dWorldID world;
  dJointGroupID contacts;
  long ncontacts;
  double max_depth; /* deepest contact depth dCollide reported, m (lcpsim's -gap) */
  double step_depth, sum_depth; /* this step's deepest; the sum of the steps' deepest */
} OdeCtx;

static void near_callback(void *data, dGeomID a, dGeomID b) {
  OdeCtx *ctx = data;
  dBodyID ba = dGeomGetBody(a), bb = dGeomGetBody(b);
  if (!ba && !bb) return;
  dContact c[4];
  const int k = dCollide(a, b, 4, &c[0].geom, sizeof(dContact));
  for (int i = 0; i < k; ++i) {
    if (c[i].geom.depth > ctx->max_depth) ctx->max_depth = c[i].geom.depth;
    if (c[i].geom.depth > ctx->step_depth) ctx->step_depth = c[i].geom.depth;
    c[i].surface.mode = dContactApprox1;
    c[i].surface.mu = MU;
    dJointID j = dJointCreateContact(ctx->world, ctx->contacts, &c[i]);
    dJointAttach(j, ba, bb);
    ctx->ncontacts++;
  }
}

/* One ODE run, stepped in chunks; threads > 1: ODE's built-in thread pool of that size
 * serves the world's step. */
typedef struct {
  OdeCtx ctx;
  dSpaceID space;
  dThreadingImplementationID impl;
  dThreadingThreadPoolID pool;
  dBodyID *bodies; /* [nbodies] the boxes */
  int nbodies;
  double total;
  int steps;
} OdeRun;

static void ode_run_init(OdeRun *run, int n, int threads, int sleep) {
  memset(run, 0, sizeof *run);
  OdeCtx *ctx = &run->ctx;
  ctx->world = dWorldCreate();
  if (sleep) {
    /* Auto-disable with lcpsim's sleep settings: speeds (ODE compares their squares),
       0.5 s = 50 steps idle. */
    dWorldSetAutoDisableFlag(ctx->world, 1);
    dWorldSetAutoDisableLinearThreshold(ctx->world, 0.01);
    dWorldSetAutoDisableAngularThreshold(ctx->world, 0.02);
    dWorldSetAutoDisableTime(ctx->world, 0.5);
    dWorldSetAutoDisableSteps(ctx->world, 50);
  }
  run->bodies = malloc((size_t)n * sizeof *run->bodies);
  run->nbodies = n;
  dWorldSetGravity(ctx->world, 0, 0, -9.81);
  dWorldSetQuickStepNumIterations(ctx->world, 20);
  run->space = dHashSpaceCreate(0);
  ctx->contacts = dJointGroupCreate(0);
  dCreatePlane(run->space, 0, 0, 1, 0);
  const double w = bin_half(n), t = 0.05, wall_h = 2.0;
  for (int k = 0; k < 4; ++k) {
    const int axis = k / 2, sign = k % 2 ? 1 : -1;
    double half[3] = {0, 0, wall_h}, pos[3] = {0, 0, wall_h};
    pos[axis] = sign * (w + t);
    half[axis] = t;
    half[1 - axis] = w + 2 * t;
    dGeomID g = dCreateBox(run->space, 2 * half[0], 2 * half[1], 2 * half[2]);
    dGeomSetPosition(g, pos[0], pos[1], pos[2]);
  }
  LsimRng jitter = lsim_rng(7);
  for (int i = 0; i < n; ++i) {
    dBodyID b = dBodyCreate(ctx->world);
    dMass mass;
    dMassSetBoxTotal(&mass, MASS, 2 * HALF, 2 * HALF, 2 * HALF);
    dBodySetMass(b, &mass);
    run->bodies[i] = b;
    double p[3];
    box_position(n, i, &jitter, p);
    dBodySetPosition(b, p[0], p[1], p[2]);
    dGeomID g = dCreateBox(run->space, 2 * HALF, 2 * HALF, 2 * HALF);
    dGeomSetBody(g, b);
  }
  if (threads > 1) {
    run->impl = dThreadingAllocateMultiThreadedImplementation();
    run->pool = dThreadingAllocateThreadPool((unsigned)threads, 0, dAllocateFlagBasicData, NULL);
    dThreadingThreadPoolServeMultiThreadedImplementation(run->pool, run->impl);
    dWorldSetStepIslandsProcessingMaxThreadCount(ctx->world, (unsigned)threads);
    dWorldSetStepThreadingImplementation(ctx->world, dThreadingImplementationGetFunctions(run->impl),
                                         run->impl);
  }
}

static void ode_run_steps(OdeRun *run, int count) {
  for (int k = 0; k < count; ++k) {
    const double t0 = now();
    run->ctx.step_depth = 0.0;
    dSpaceCollide(run->space, &run->ctx, near_callback);
    run->ctx.sum_depth += run->ctx.step_depth;
    dWorldQuickStep(run->ctx.world, H);
    dJointGroupEmpty(run->ctx.contacts);
    run->total += now() - t0;
  }
  run->steps += count;
}

/* Forgets the steps taken so far (--skip). */
static void ode_run_restart(OdeRun *run) {
  run->ctx.ncontacts = 0, run->ctx.max_depth = 0.0, run->ctx.sum_depth = 0.0;
  run->total = 0.0, run->steps = 0;
}

/* Seconds per step; mean contacts per step into *contacts, the deepest penetration into
 * *depth, the mean over the steps of each step's deepest into *mean_depth. */
static double ode_run_finish(OdeRun *run, double *contacts, double *depth, double *mean_depth) {
  *contacts = (double)run->ctx.ncontacts / run->steps;
  *depth = run->ctx.max_depth;
  *mean_depth = run->ctx.sum_depth / run->steps;
  if (run->impl) {
    dThreadingImplementationShutdownProcessing(run->impl);
    dThreadingFreeThreadPool(run->pool);
    dWorldSetStepThreadingImplementation(run->ctx.world, NULL, NULL);
    dThreadingFreeImplementation(run->impl);
  }
  dJointGroupDestroy(run->ctx.contacts);
  dSpaceDestroy(run->space);
  dWorldDestroy(run->ctx.world);
  free(run->bodies);
  return run->total / run->steps;
}

/* Bodies of an ODE run that auto-disable has disabled. */
static int ode_disabled(const OdeRun *run) {
  int k = 0;
  for (int i = 0; i < run->nbodies; ++i) k += !dBodyIsEnabled(run->bodies[i]);
  return k;
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Bodies of an lcpsim run within the sleep thresholds now; the median and 90th percentile
 * of the linear and angular speeds to stderr. */
static int lsim_at_rest(const LsimRun *run, const char *label) {
  const int n = run->m.nbodies - 1; /* the boxes; the bin is last */
  double *lin = malloc(2 * (size_t)n * sizeof *lin), *ang = lin + n;
  int k = 0;
  for (int i = 0; i < n; ++i) {
    const double *v = run->st.v + run->m.bodies[i].v_offset;
    lin[i] = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    ang[i] = sqrt(v[3] * v[3] + v[4] * v[4] + v[5] * v[5]);
    k += lin[i] <= run->m.sleep.linear_speed && ang[i] <= run->m.sleep.angular_speed;
  }
  qsort(lin, (size_t)n, sizeof *lin, cmp_double);
  qsort(ang, (size_t)n, sizeof *ang, cmp_double);
  fprintf(stderr, "lcpsim, sleep %s, at the end: |v| median %.2e, 90 %% %.2e m/s; |omega| median %.2e, 90 %% %.2e rad/s\n",
          label, lin[n / 2], lin[9 * n / 10], ang[n / 2], ang[9 * n / 10]);
  free(lin);
  return k;
}

/* --sleep: sleeping on against off on one pile (see the file's comment). */
static void sleep_bench(int n, int steps, int ode, double lin, double ang) {
  enum { CHUNK = 50 };
  printf("## Sleeping bodies at rest: on against off, pile of %d boxes, %d steps, one thread\n\n", n, steps);
  printf("lcpsim: PGS 20 sweeps, sleep %g m/s, %g rad/s, 0.5 s; ODE: QuickStep 20 iterations, "
         "auto-disable with the same thresholds and time\n\n", lin, ang);
  printf("| engine | sleep | steps/s | steps/s, last quarter | asleep at the end | within the thresholds at the end | max penetration (m) |\n"
         "|---|---|---|---|---|---|---|\n");
  LsimRun l[2];
  OdeRun o[2];
  double tail_l[2] = {0, 0}, tail_o[2] = {0, 0};
  int tail_steps = 0;
  for (int k = 0; k < 2; ++k) {
    lsim_run_init(&l[k], n, "pgs", 1, k);
    l[k].m.sleep.linear_speed = lin, l[k].m.sleep.angular_speed = ang;
    if (ode) ode_run_init(&o[k], n, 1, k);
    if (ode && k) {
      dWorldSetAutoDisableLinearThreshold(o[k].ctx.world, lin);
      dWorldSetAutoDisableAngularThreshold(o[k].ctx.world, ang);
    }
  }
  const int tail_from = steps - steps / 4;
  for (int done = 0, chunk = 0; done < steps; done += CHUNK, ++chunk) {
    const int c = steps - done < CHUNK ? steps - done : CHUNK;
    if (done >= tail_from) tail_steps += c;
    for (int k = 0; k < 2; ++k) {
      /* Alternating order between chunks, so neither setting always runs first. */
      const int kk = chunk % 2 ? 1 - k : k;
      const double t0 = l[kk].total;
      lsim_run_steps(&l[kk], c);
      if (done >= tail_from) tail_l[kk] += l[kk].total - t0;
      if (ode) {
        const double u0 = o[kk].total;
        ode_run_steps(&o[kk], c);
        if (done >= tail_from) tail_o[kk] += o[kk].total - u0;
      }
    }
  }
  double rate[2], orate[2] = {0, 0};
  for (int k = 0; k < 2; ++k) {
    const int asleep = lsim_stepper_sleeping(l[k].s, NULL);
    const int rest = lsim_at_rest(&l[k], k ? "on" : "off");
    const RunStats r = lsim_run_finish(&l[k]);
    rate[k] = 1.0 / r.seconds_per_step;
    printf("| lcpsim | %s | %.1f | %.1f | %.1f %% | %.1f %% | %.2e |\n", k ? "on" : "off", rate[k],
           tail_steps / tail_l[k], 100.0 * asleep / n, 100.0 * rest / n, r.max_penetration);
  }
  for (int k = 0; ode && k < 2; ++k) {
    const int off = ode_disabled(&o[k]);
    double contacts, depth, unused_mean;
    orate[k] = 1.0 / ode_run_finish(&o[k], &contacts, &depth, &unused_mean);
    printf("| ODE | %s | %.1f | %.1f | %.1f %% | - | %.2e |\n", k ? "on" : "off", orate[k],
           tail_steps / tail_o[k], 100.0 * off / n, depth);
  }
  printf("\nGain (on / off), whole run: lcpsim %.2fx", rate[1] / rate[0]);
  if (ode) printf(", ODE %.2fx", orate[1] / orate[0]);
  printf("; last quarter: lcpsim %.2fx", tail_l[0] / tail_l[1]);
  if (ode) printf(", ODE %.2fx", tail_o[0] / tail_o[1]);
  printf("\n");
}

int main(int argc, char **argv) {
  int quick = 0, lemke = 1, ode = 1, only_n = 0, only_steps = 0, threads = 2, sleep = 0, one = 0;
  int skip = 0, threaded_only = 0;
  double sleep_lin = 0.01, sleep_ang = 0.02;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--quick")) quick = 1;
    else if (!strcmp(argv[i], "--no-lemke")) lemke = 0;
    else if (!strcmp(argv[i], "--no-ode")) ode = 0;
    else if (!strcmp(argv[i], "--n") && i + 1 < argc) only_n = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--steps") && i + 1 < argc) only_steps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--cpu")) use_cpu_clock = 1;
    else if (!strcmp(argv[i], "--one")) one = 1;
    else if (!strcmp(argv[i], "--threaded")) threaded_only = 1;
    else if (!strcmp(argv[i], "--skip") && i + 1 < argc) skip = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--sleep")) sleep = 1;
    else if (!strcmp(argv[i], "--step-team-min") && i + 1 < argc) step_team_min = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--sleep-speeds") && i + 2 < argc)
      sleep = 1, sleep_lin = atof(argv[i + 1]), sleep_ang = atof(argv[i + 2]), i += 2;
    else {
      fprintf(stderr, "usage: bench_pile [--quick] [--no-lemke] [--no-ode] [--n N] [--steps S] "
                      "[--threads T] [--cpu] [--one] [--threaded] [--skip K] [--sleep] "
                      "[--sleep-speeds LIN ANG] [--step-team-min C]\n");
      return 2;
    }
  }
  if (one && threaded_only) {
    fprintf(stderr, "bench_pile: --one and --threaded exclude each other\n");
    return 2;
  }
  if (threaded_only) ode = 0;
  if (threads < 2 || threads > 64) {
    fprintf(stderr, "bench_pile: --threads: need 2 .. 64\n");
    return 2;
  }
  dInitODE2(0);
  if (sleep) {
    sleep_bench(only_n > 0 ? only_n : 1000, only_steps > 0 ? only_steps : 2000, ode, sleep_lin, sleep_ang);
    dCloseODE();
    return 0;
  }
  int sizes[] = {10, 100, 1000, 10000};
  int nsizes = quick ? 2 : 4;
  if (only_n > 0) sizes[0] = only_n, nsizes = 1;
  printf("## Pile of boxes in a bin: lcpsim (PGS, 20 sweeps) vs ODE (QuickStep, 20 iterations)\n\n");
  printf("h = %g s, box side %g m, mass %g kg, mu %g; T = %d threads in the threaded runs "
         "(lcpsim: solver.threads; ODE: its thread pool, N <= 1000)\n\n",
         H, 2 * HALF, MASS, MU, threads);
  printf("| N | steps | lcpsim steps/s | lcpsim T steps/s | ODE steps/s | ODE T steps/s | "
         "lcpsim/ODE, 1 thread each | lcpsim T / best ODE | lcpsim ms/step (1, T) | "
         "us/step per body (T) | contacts/step lcpsim | contacts/step ODE | "
         "max penetration lcpsim (m) | max penetration ODE (m) | max residual lcpsim |\n"
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (int k = 0; k < nsizes; ++k) {
    const int n = sizes[k];
    const int steps = only_steps > 0 ? only_steps : quick ? 200 : n >= 10000 ? 200 : 1000;
    /* The runs take turns, CHUNK steps each, so that all of them see the same machine
       (this VM's speed drifts by 10-30 % over tens of seconds). Order: lcpsim with T
       threads first, so its idle team members have gone to sleep (after 100 us,
       lcp/team.h) long before the ODE runs. */
    enum { CHUNK = 50 };
    const int ode_threaded = ode && !one && n <= 1000; /* --one: one-thread runs only (the
                                                           pool's threads count in --cpu) */
    LsimRun l1, lt;
    OdeRun o1, ot;
    if (!one) lsim_run_init(&lt, n, "pgs", threads, 0);
    if (!threaded_only) lsim_run_init(&l1, n, "pgs", 1, 0);
    if (ode) ode_run_init(&o1, n, 1, 0);
    if (ode_threaded) ode_run_init(&ot, n, threads, 0);
    if (skip > 0) { /* untimed steps, then the counts start over */
      if (!one) lsim_run_steps(&lt, skip), lsim_run_restart(&lt);
      if (!threaded_only) lsim_run_steps(&l1, skip), lsim_run_restart(&l1);
      if (ode) ode_run_steps(&o1, skip), ode_run_restart(&o1);
      if (ode_threaded) ode_run_steps(&ot, skip), ode_run_restart(&ot);
    }
    for (int done = 0; done < steps; done += CHUNK) {
      const int c = steps - done < CHUNK ? steps - done : CHUNK;
      if (!one) lsim_run_steps(&lt, c);
      if (!threaded_only) lsim_run_steps(&l1, c);
      if (ode) ode_run_steps(&o1, c);
      if (ode_threaded) ode_run_steps(&ot, c);
    }
    const RunStats rt = one ? (RunStats){.seconds_per_step = INFINITY} : lsim_run_finish(&lt),
                   r1 = threaded_only ? rt : lsim_run_finish(&l1);
    double ode_contacts = 0.0, ode_depth = NAN, ode_depth_t = NAN, unused, ode_mean = NAN, unused_mean;
    const double ode1 = ode ? ode_run_finish(&o1, &ode_contacts, &ode_depth, &ode_mean) : INFINITY;
    const double odet = ode_threaded ? ode_run_finish(&ot, &unused, &ode_depth_t, &unused_mean) : INFINITY;
    const double ode_best = fmin(ode1, odet);
    /* Columns of runs not made (--no-ode, --one) say "-" (they had read 0, inf and nan). */
    char odet_col[32] = "-", ode1_col[32] = "-", ratio1[32] = "-", ratiot[32] = "-", ltcol[32] = "-";
    char ode_cont[32] = "-", ode_pen[32] = "-";
    if (isfinite(odet)) snprintf(odet_col, sizeof odet_col, "%.5g", 1.0 / odet);
    if (ode) {
      snprintf(ode1_col, sizeof ode1_col, "%.5g", 1.0 / ode1);
      snprintf(ratio1, sizeof ratio1, "%.2f", ode1 / r1.seconds_per_step);
      snprintf(ode_cont, sizeof ode_cont, "%.1f", ode_contacts);
      snprintf(ode_pen, sizeof ode_pen, "%.2e", fmax(ode_depth, ode_depth_t));
    }
    char ltms[32] = "-", ltbody[32] = "-";
    if (!one) {
      snprintf(ltcol, sizeof ltcol, "%.1f", 1.0 / rt.seconds_per_step);
      snprintf(ltms, sizeof ltms, "%.3f", 1e3 * rt.seconds_per_step);
      snprintf(ltbody, sizeof ltbody, "%.2f", 1e6 * rt.seconds_per_step / n);
      if (ode) snprintf(ratiot, sizeof ratiot, "%.2f", ode_best / rt.seconds_per_step);
    }
    char l1col[32] = "-", l1ms[32] = "-";
    if (!threaded_only) {
      snprintf(l1col, sizeof l1col, "%.1f", 1.0 / r1.seconds_per_step);
      snprintf(l1ms, sizeof l1ms, "%.3f", 1e3 * r1.seconds_per_step);
    }
    printf("| %d | %d | %s | %s | %s | %s | %s | %s | %s, %s | %s | %.1f | %s "
           "| %.2e | %s | %.2e |\n",
           n, steps, l1col, ltcol, ode1_col, odet_col, ratio1, ratiot, l1ms, ltms, ltbody, (one ? r1 : rt).mean_contacts, ode_cont,
           fmax(r1.max_penetration, one ? 0.0 : rt.max_penetration), ode_pen,
           fmax(r1.max_residual, one ? 0.0 : rt.max_residual));
    fprintf(stderr, "N = %d: solver share of the step's wall time %.0f %% (1 thread), %.0f %% (%d)\n", n,
            100 * r1.solver_share, 100 * rt.solver_share, threads);
    /* One thread each: the mean over the steps of the step's deepest penetration. */
    fprintf(stderr, "N = %d: mean of each step's deepest penetration (1 thread): lcpsim %.2e m, ODE %.2e m\n",
            n, r1.mean_penetration, ode_mean);
    fflush(stdout);
  }
  dCloseODE();
  /* What the sweeps ran on (the same bits on every set; the speed is this one's). */
  static const char *simd_names[6] = {"none (steps with fewer than 16 cones)", "scalar", "sse2", "avx2",
                                      "reference", "avx512"};
  printf("\nlcpsim's coloured PGS sweep ran on:");
  for (int k = 0; k < 6; ++k)
    if (simd_seen & (1u << k)) printf(" %s", simd_names[k]);
  printf(" (LSIM_SIMD=scalar|sse2|avx2|avx512 chooses)\n");
  if (!lemke || only_n > 0) return 0;
  printf("\n## Lemke on the same piles (dense pivoting; first 50 steps)\n\n");
  printf("| N | ms/step | mean pivots | max pivots | failures |\n|---|---|---|---|---|\n");
  for (int k = 0; k < 2; ++k) {
    const int n = sizes[k];
    LsimRun lr;
    lsim_run_init(&lr, n, "lemke", 1, 0); /* tol 1e-10, default pivot limit: see lsim_run_init */
    lsim_run_steps(&lr, 50);
    const RunStats r = lsim_run_finish(&lr);
    printf("| %d | %.3f | %.1f | %d | %d |\n", n, 1e3 * r.seconds_per_step, r.mean_iterations,
           r.max_iterations, r.failures);
    fflush(stdout);
  }
  return 0;
}
