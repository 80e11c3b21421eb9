/* test_parallel.c: the PGS sweep team (lcp/team.h) and what runs on it: parallel sweeps
 * deterministic for a team size, the step's rows, warm start and impulses on the team
 * giving the one-thread problem, stages 1 and 5-6 on the team giving the one-thread state,
 * and runs that repeat. (Split from test_factored.c, which keeps the factored LCP and its
 * single-thread PGS.)
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "contact/contact.h"
#include "contact/step.h"
#include "contact/world.h"
#include "lcp/factored.h"
#include "lcp/pgs.h"
#include "lcp/team.h"
#include "lcp/random.h"
#include "lcp/solver.h"
#include "scene/scene.h"
#include "tests/support.h"

/* The waits' sleeping side (team.h: spin at most LSIM_TEAM_SPIN_SECONDS, then a futex):
 * each pause below (20 ms, 200 times the spin bound; nanosleep, so on any machine the
 * waiter has given up spinning) puts one wait to sleep, and the run must still hand over
 * every write: members asleep between runs (woken by the next run, and by
 * lsim_team_wake), the caller asleep on a member that is late, a member asleep on a flag
 * another member stores late, and free with every member asleep. Nothing is timed. */
typedef struct SleepJob {
  LsimTeamFlag flag;
  int slow;      /* the member that pauses before its write */
  int data[8];   /* member k writes data[k]; member 0 reads the flag writer's value */
  int seen;      /* what member 0 read after the flag */
  int use_flag;
} SleepJob;

static void pause_ms(int ms) {
  struct timespec ts = {0, ms * 1000000L};
  nanosleep(&ts, NULL);
}

static void sleep_job(void *arg, int member) {
  SleepJob *j = arg;
  if (member == j->slow) pause_ms(20);
  j->data[member] = 100 + member;
  if (!j->use_flag) return;
  if (member == 1) lsim_team_flag_store(&j->flag, 1);
  if (member == 0) {
    lsim_team_flag_wait(&j->flag, 1);
    j->seen = j->data[1];
  }
}

static void test_team_sleeping_waits(void **state) {
  (void)state;
  for (int size = 2; size <= 3; ++size) {
    LsimTeam *t = NULL;
    assert_int_equal(lsim_team_create(&t, size), 0);
    for (int round = 0; round < 4; ++round) {
      SleepJob j;
      memset(&j, 0, sizeof j);
      lsim_team_flag_init(&j.flag, 0);
      j.use_flag = round >= 2;
      j.slow = round % 2 ? 0 : 1; /* the caller late (members wait), or member 1 late */
      pause_ms(20);               /* the members asleep between runs */
      if (round == 1) lsim_team_wake(t);
      lsim_team_run(t, sleep_job, &j);
      for (int k = 0; k < size; ++k) assert_int_equal(j.data[k], 100 + k);
      if (j.use_flag) assert_int_equal(j.seen, 101);
    }
    pause_ms(20);
    lsim_team_free(t); /* every member asleep: free wakes and joins them */
  }
}

/* ---- (6b) parallel sweeps ---- */

/* The team: every member runs each job exactly once, and the caller sees the members'
 * writes when lsim_team_run returns (a run per element; 3 members on 2 cores too). */
typedef struct TeamJob {
  int run;
  int hits[4];
  int last_run[4];
} TeamJob;

static void team_job(void *arg, int member) {
  TeamJob *j = arg;
  j->hits[member]++;
  j->last_run[member] = j->run;
}

static void test_team_runs_each_member_once(void **state) {
  (void)state;
  for (int size = 1; size <= 3; ++size) {
    LsimTeam *t = NULL;
    assert_int_equal(lsim_team_create(&t, size), 0);
    assert_int_equal(lsim_team_size(t), size);
    TeamJob j = {0};
    for (j.run = 0; j.run < 2000; ++j.run) {
      lsim_team_run(t, team_job, &j);
      for (int k = 0; k < size; ++k) assert_int_equal(j.last_run[k], j.run);
    }
    for (int k = 0; k < size; ++k) assert_int_equal(j.hits[k], 2000);
    lsim_team_wake(t);
    lsim_team_free(t);
  }
  LsimTeam *t = NULL;
  assert_int_equal(lsim_team_create(&t, 0), LSIM_INVALID_INPUT);
  assert_null(t);
}

/* The time step's LCP of data/pile_100.json after 100 steps (about 250 contacts, spheres
 * resting on each other and the bin), with the step's own solution. */
typedef struct PileLcp {
  LsimModel model;
  LsimState state;
  LsimStepper *stepper;
} PileLcp;

/* heavy: every other dynamic body three times as heavy (mass and inertia). */
static void pile_lcp_masses(PileLcp *p, int threads, int steps, int heavy) {
  char *text = NULL;
  LsimSceneError serr;
  assert_int_equal(lsim_scene_load("data/pile_100.json", &p->model, &p->state, &text, &serr), 0);
  free(text);
  p->model.solver.threads = threads;
  for (int b = 0, k = 0; heavy && b < p->model.nbodies; ++b) {
    LsimBody *body = &p->model.bodies[b];
    if (body->type != LSIM_BODY_DYNAMIC || k++ % 2) continue;
    body->mass *= 3.0;
    for (int e = 0; e < 9; ++e) body->inertia[e] *= 3.0;
  }
  char err[256];
  assert_int_equal(lsim_stepper_create(&p->stepper, &p->model, NULL, err, sizeof err), 0);
  for (int k = 0; k < steps; ++k) {
    LsimStepStats ss;
    lsim_step(p->stepper, &p->model, &p->state, &ss);
  }
}

static void pile_lcp(PileLcp *p, int threads, int steps) { pile_lcp_masses(p, threads, steps, 0); }

static void free_pile(PileLcp *p) {
  lsim_stepper_free(p->stepper);
  lsim_state_free(&p->state);
  lsim_model_free(&p->model);
}

/* One solve of f by a fresh workspace with T threads from z = 0: z into out; the
 * workspace returned (info's arrays point into it), the caller frees it. */
static LsimPgs *solve_kept(const LsimFactoredLcp *f, int T, double tol, int sweeps, double *out,
                           LsimPgsInfo *info) {
  LsimPgs *ws = lsim_pgs_create();
  LsimPgsOptions o = lsim_default_pgs_options();
  o.threads = T, o.tol = tol, o.max_sweeps = sweeps;
  memset(out, 0, (size_t)f->n * sizeof(double));
  memset(info, 0, sizeof *info);
  lsim_pgs_solve_factored(ws, f, &o, 0, out, info);
  return ws;
}

/* The same, the workspace freed. */
static void solve_threads(const LsimFactoredLcp *f, int T, double tol, int sweeps, double *out,
                          LsimPgsInfo *info) {
  lsim_pgs_free(solve_kept(f, T, tol, sweeps, out, info));
}

/* The final residual's measures with the team (its rows by parts, then the measures over
 * equal ranges of the variables, the dot product's nonzero terms summed range after range)
 * are those of one pass over z and the returned w, bit for bit: maxima, the finite test
 * and the sum z . w in the variables' order. T = 1, 2, 3, a fixed budget and a tolerance
 * (whose stop tests measure between sweeps too). */
static void test_parallel_measures_one_pass(void **state) {
  (void)state;
  PileLcp p;
  pile_lcp(&p, 1, 100);
  const LsimFactoredLcp *f = lsim_stepper_factored(p.stepper);
  const int n = f->n;
  double *z = malloc((size_t)n * sizeof(double));
  for (int T = 1; T <= 3; ++T)
    for (int budget = 0; budget < 2; ++budget) {
      LsimPgsInfo info; /* ws kept while info.w is read */
      LsimPgs *ws = solve_kept(f, T, budget ? 0.0 : 1e-6, budget ? 20 : 100000, z, &info);
      assert_int_equal(info.parts, T > 1 ? T : 0);
      assert_true(info.full_valid);
      assert_non_null(info.w);
      double natural = 0.0, dot = 0.0, zneg = 0.0, wneg = 0.0, scale = 0.0;
      int products = 0;
      for (int i = 0; i < n; ++i) {
        const double m = z[i] < info.w[i] ? z[i] : info.w[i];
        natural = natural > fabs(m) ? natural : fabs(m);
        dot += z[i] * info.w[i];
        products += z[i] * info.w[i] != 0.0;
        zneg = -z[i] > zneg ? -z[i] : zneg;
        wneg = -info.w[i] > wneg ? -info.w[i] : wneg;
        scale = fabs(f->q[i]) > scale ? fabs(f->q[i]) : scale;
      }
      assert_true(products > n / 10 && dot != 0.0); /* a sum with many terms */
      assert_true(info.full.natural == natural);
      assert_true(info.full.complementarity == fabs(dot));
      assert_true(info.full.z_negative == zneg && info.full.w_negative == wneg);
      assert_true(info.full.relative == natural / scale);
      assert_true(info.residual == natural);
      lsim_pgs_free(ws);
    }
  free(z);
  free_pile(&p);
}

/* u = B z and w of the fast path's final residual by their definition, written out: u
 * from zero, each cone in the natural order adding B_n c_n + B_0 f_1 + B_q f_2 (f = P beta,
 * the d = 4 directions' exact quarter turns) to the entries of its rows' pattern, a cone
 * with z = 0 skipped; w's rows as sums of products in the rows' entry order from u (wu:
 * the u they are taken from), a direction's row (cos v_1 + sin v_2) + lambda + q, the
 * lambda row's C products in order. Every cone here has a normal and four directions,
 * and every variable is a cone's. */
static void residual_by_definition(const LsimFactoredLcp *f, const double *z, double *u,
                                   const double *wu, double *w) {
  static const double cs[4] = {1.0, 0.0, -1.0, 0.0}, sn[4] = {0.0, 1.0, 0.0, -1.0};
  int vars = 0;
  memset(u, 0, (size_t)f->m * sizeof(double));
  for (int c = 0; c < f->ncones; ++c) {
    const LsimConeBlock *cb = &f->cones[c];
    assert_int_equal(cb->ndir, 4);
    assert_true(cb->normal >= 0);
    vars += 6;
    const double cn = z[cb->normal], *beta = z + cb->first_dir;
    double f1 = 0.0, f2 = 0.0;
    for (int k = 0; k < 4; ++k) f1 += cs[k] * beta[k], f2 += sn[k] * beta[k];
    if (cn == 0.0 && f1 == 0.0 && f2 == 0.0) continue;
    const int pn = f->B_ptr[cb->normal], p1 = f->B_ptr[cb->first_dir];
    const int p2 = f->B_ptr[cb->first_dir + 1], len = f->B_ptr[cb->normal + 1] - pn;
    for (int e = 0; e < len; ++e)
      u[f->B_idx[pn + e]] += f->B_val[pn + e] * cn + f->B_val[p1 + e] * f1 + f->B_val[p2 + e] * f2;
  }
  assert_int_equal(vars, f->n);
  for (int c = 0; c < f->ncones; ++c) {
    const LsimConeBlock *cb = &f->cones[c];
    const int pn = f->J_ptr[cb->normal], p1 = f->J_ptr[cb->first_dir];
    const int p2 = f->J_ptr[cb->first_dir + 1], len = f->J_ptr[cb->normal + 1] - pn;
    double vn = 0.0, v1 = 0.0, v2 = 0.0;
    for (int e = 0; e < len; ++e) {
      vn += f->J_val[pn + e] * wu[f->J_idx[pn + e]];
      v1 += f->J_val[p1 + e] * wu[f->J_idx[p1 + e]];
      v2 += f->J_val[p2 + e] * wu[f->J_idx[p2 + e]];
    }
    w[cb->normal] = vn + f->q[cb->normal];
    const int b0 = cb->first_dir, L = cb->lambda;
    for (int k = 0; k < 4; ++k) w[b0 + k] = (cs[k] * v1 + sn[k] * v2) + z[L] + f->q[b0 + k];
    double s = 0.0;
    for (int k = f->C_ptr[L]; k < f->C_ptr[L + 1]; ++k) s += f->C_val[k] * z[f->C_idx[k]];
    w[L] = s + f->q[L];
  }
}

/* The final residual's u = B z (LsimPgsInfo.bz, the step's B z) and w (info.w) are, bit
 * for bit, those of their definition (residual_by_definition) on every path LSIM_SIMD
 * chooses (the residual's rows take AVX2 products where the coloured sweep runs AVX2),
 * after a fixed budget and to a tolerance, with one thread; with two, the parts scatter u
 * in their own order, and w is that of the returned u. */
static void test_fast_residual_bits(void **state) {
  (void)state;
  PileLcp p;
  pile_lcp(&p, 1, 100);
  const LsimFactoredLcp *f = lsim_stepper_factored(p.stepper);
  const int n = f->n, m = f->m;
  double *z = malloc((size_t)n * sizeof(double)), *w = malloc((size_t)n * sizeof(double));
  double *u = malloc((size_t)m * sizeof(double));
  /* AVX2 twice: its sweep's EVEX build (where the CPU has AVX-512VL) and, with
     LSIM_AVX2_EVEX=off, its VEX build. Beside the definition, the two builds' u and w
     are compared with each other (two threads too). */
  static const char *paths[4] = {"scalar", "sse2", "avx2", "avx2"};
  static const char *evex[4] = {NULL, NULL, NULL, "off"};
  double *bz_evex[2][2], *w_evex[2][2];
  for (int k = 0; k < 4; ++k)
    for (int T = 1; T <= 2; ++T)
      for (int budget = 0; budget < 2; ++budget) {
        setenv("LSIM_SIMD", paths[k], 1);
        if (evex[k]) setenv("LSIM_AVX2_EVEX", evex[k], 1);
        LsimPgsInfo info;
        LsimPgs *ws = solve_kept(f, T, budget ? 0.0 : 1e-6, budget ? 20 : 100000, z, &info);
        unsetenv("LSIM_AVX2_EVEX");
        assert_true(info.full_valid);
        assert_non_null(info.bz);
        assert_non_null(info.w);
        assert_true(info.simd > 0);
        residual_by_definition(f, z, u, info.bz, w);
        if (T == 1) assert_memory_equal(u, info.bz, (size_t)m * sizeof(double));
        assert_memory_equal(w, info.w, (size_t)n * sizeof(double));
        if (k == 2) {
          bz_evex[T - 1][budget] = malloc((size_t)m * sizeof(double));
          w_evex[T - 1][budget] = malloc((size_t)n * sizeof(double));
          memcpy(bz_evex[T - 1][budget], info.bz, (size_t)m * sizeof(double));
          memcpy(w_evex[T - 1][budget], info.w, (size_t)n * sizeof(double));
        } else if (k == 3) {
          assert_memory_equal(bz_evex[T - 1][budget], info.bz, (size_t)m * sizeof(double));
          assert_memory_equal(w_evex[T - 1][budget], info.w, (size_t)n * sizeof(double));
          free(bz_evex[T - 1][budget]), free(w_evex[T - 1][budget]);
        }
        lsim_pgs_free(ws);
      }
  unsetenv("LSIM_SIMD");
  free(z), free(w), free(u);
  free_pile(&p);
}

/* The start's zero test with tol 0 (is the natural residual exactly 0?), made by parts on
 * the team: q >= 0 from z = 0 is a solution (no sweep), and one negative q_i anywhere
 * (first, middle, last variable) is not (the whole budget), with 1, 2 and 3 threads. */
static void test_parallel_zero_test(void **state) {
  (void)state;
  PileLcp p;
  pile_lcp(&p, 1, 100);
  LsimFactoredLcp g = *lsim_stepper_factored(p.stepper);
  const int n = g.n;
  double *q = malloc((size_t)n * sizeof(double)), *z = malloc((size_t)n * sizeof(double));
  for (int neg = -1; neg < 3; ++neg)
    for (int T = 1; T <= 3; ++T) {
      const int at = neg == 0 ? 0 : neg == 1 ? n / 2 : n - 1;
      for (int i = 0; i < n; ++i) q[i] = fabs(g.q[i]) + 1e-3;
      if (neg >= 0) q[at] = -1e-3;
      g.q = q;
      LsimPgsInfo info;
      solve_threads(&g, T, 0.0, 20, z, &info);
      assert_int_equal(info.parts, T > 1 ? T : 0);
      assert_int_equal(info.sweeps, neg < 0 ? 0 : 20);
      if (neg < 0) assert_int_equal(info.status, LSIM_SOLVED);
      g = *lsim_stepper_factored(p.stepper);
    }
  free(q), free(z);
  free_pile(&p);
}

/* With T threads the iterates are those of the order part 0, ..., part T-1, crossing:
 * the same bits on every repeat, whatever the scheduling (T = 2 and 3; 3 threads share 2
 * cores here, so members are preempted mid-sweep), and the repeats of a kept workspace
 * too. The parts cover the problem: T of them, the crossing set smaller than the whole.
 * Solved to 1e-9 both T = 1 and T = 2 reach the solution (its natural residual) in
 * comparable sweeps (Gauss-Seidel in another order: not more than twice as many). A
 * problem under the parallel threshold keeps the natural order: T = 2 equals T = 1. */
static void test_parallel_sweeps_deterministic(void **state) {
  (void)state;
  PileLcp p;
  pile_lcp(&p, 1, 100);
  const LsimFactoredLcp *f = lsim_stepper_factored(p.stepper);
  const int n = f->n;
  assert_true(f->ncones >= 128); /* the parallel path applies */
  double *z1 = malloc((size_t)n * sizeof(double)), *za = malloc((size_t)n * sizeof(double));
  double *zb = malloc((size_t)n * sizeof(double));
  LsimPgsInfo i1, ia, ib;
  solve_threads(f, 1, 0.0, 20, z1, &i1);
  assert_int_equal(i1.parts, 0);
  for (int T = 2; T <= 3; ++T) {
    solve_threads(f, T, 0.0, 20, za, &ia);
    assert_int_equal(ia.parts, T);
    assert_true(ia.crossing >= 0 && ia.crossing < f->ncones / 2);
    for (int rep = 0; rep < 5; ++rep) {
      solve_threads(f, T, 0.0, 20, zb, &ib);
      assert_memory_equal(za, zb, (size_t)n * sizeof(double));
      assert_true(ia.residual == ib.residual);
    }
    /* A kept workspace (team kept, members asleep or spinning between solves). */
    LsimPgs *ws = lsim_pgs_create();
    LsimPgsOptions o = lsim_default_pgs_options();
    o.threads = T, o.tol = 0.0, o.max_sweeps = 20;
    for (int rep = 0; rep < 3; ++rep) {
      memset(zb, 0, (size_t)n * sizeof(double));
      lsim_pgs_solve_factored(ws, f, &o, 0, zb, &ib);
      assert_memory_equal(za, zb, (size_t)n * sizeof(double));
    }
    /* Its B z, formed by parts then the crossing set: B z of the returned z (to 1e-12 of
       the largest entry, as in test_front_end). */
    double *u = malloc((size_t)(f->m + 1) * sizeof(double)), *w = malloc((size_t)n * sizeof(double));
    LsimResidual r;
    lsim_factored_residual(f, zb, u, w, &r);
    assert_non_null(ib.bz);
    assert_true(lsim_test_max_abs_diff(ib.bz, u, f->m) <= 1e-12 * lsim_test_max_abs(u, f->m));
    free(u), free(w);
    lsim_pgs_free(ws);
    /* Another order: not the natural order's iterate. */
    assert_true(memcmp(za, z1, (size_t)n * sizeof(double)) != 0);
    /* Both far from z = 0's residual after 20 sweeps (the same order of quality). */
    assert_true(ia.residual < 0.1 * i1.full.natural / i1.full.relative);
  }
  solve_threads(f, 1, 1e-6, 100000, z1, &i1);
  solve_threads(f, 2, 1e-6, 100000, za, &ia);
  printf("pile_100 LCP (n %d, %d cones): to 1e-6 in %d sweeps (1 thread), %d (2 threads, %d "
         "crossing)\n", n, f->ncones, i1.sweeps, ia.sweeps, ia.crossing);
  assert_int_equal(i1.status, LSIM_SOLVED);
  assert_int_equal(ia.status, LSIM_SOLVED);
  assert_true(ia.sweeps <= 2 * i1.sweeps && i1.sweeps <= 2 * ia.sweeps);
  free_pile(&p);

  /* Under the threshold (step 20: fewer than 128 contacts): the natural order. */
  pile_lcp(&p, 1, 20);
  f = lsim_stepper_factored(p.stepper);
  assert_true(f->ncones > 0 && f->ncones < 128);
  solve_threads(f, 1, 0.0, 20, z1, &i1);
  solve_threads(f, 2, 0.0, 20, za, &ia);
  assert_int_equal(ia.parts, 0);
  assert_memory_equal(z1, za, (size_t)f->n * sizeof(double));
  free_pile(&p);
  free(z1), free(za), free(zb);
}

/* The coloured wide sweep (one thread): its four paths (LSIM_SIMD scalar, sse2, avx2,
 * avx512) give the same bits on the pile_100 LCP, 20 sweeps from z = 0 and solved to 1e-8
 * with omega 1.3 from a warm start (the same sweeps too), and with two threads (parts).
 * The scalar path updates one cone at a time, the others two, four or eight (two groups of
 * a colour; a colour's odd last group alone, on the four-lane kernel) at once: equal bits
 * also say that no two cones of a group or pair share a block of u. On a CPU without
 * AVX-512 the avx512 request runs avx2, without AVX2 both run sse2 (info.simd says which
 * ran), and the test still compares every path the CPU has; unset, it runs AVX2 (else
 * SSE2). Solved to 1e-6 the coloured order converges as the natural one does. */
/* Single precision (LsimPgsOptions.precision 1, a fixed budget of float rows): every path
 * gives the same bits, one thread (eight lanes on u's float copy where there is AVX2, with
 * AVX2's VEX and EVEX builds; four lanes on scalar and SSE2) and two (four lanes on u);
 * the reference path stays the double kernel's check. Its iterate is not double
 * arithmetic's (other bits) but near it: the 20-sweep relative residual of the pile_100
 * LCP (natural) within 1e-3 of it relatively (float rounding, about 6e-8 an operation, far below
 * what 20 sweeps leave: 0.02), and u = B z of the returned z is formed in double. */
static void solve_prec(const LsimFactoredLcp *f, int T, int precision, double *out, LsimPgsInfo *info) {
  LsimPgs *ws = lsim_pgs_create();
  LsimPgsOptions o = lsim_default_pgs_options();
  o.threads = T, o.tol = 0.0, o.max_sweeps = 20, o.precision = precision;
  memset(out, 0, (size_t)f->n * sizeof(double));
  memset(info, 0, sizeof *info);
  lsim_pgs_solve_factored(ws, f, &o, 0, out, info);
  lsim_pgs_free(ws);
}

static void test_wide_single_precision_paths_identical(void **state) {
  (void)state;
  PileLcp p;
  pile_lcp(&p, 1, 100);
  const LsimFactoredLcp *f = lsim_stepper_factored(p.stepper);
  const int n = f->n;
  double *zd = malloc((size_t)n * sizeof(double)), *z0 = malloc((size_t)n * sizeof(double));
  double *z = malloc((size_t)n * sizeof(double)), *z2 = malloc((size_t)n * sizeof(double));
  double *z20 = malloc((size_t)n * sizeof(double));
  LsimPgsInfo id, i0, i, i2;
  unsetenv("LSIM_SIMD");
  solve_prec(f, 1, 0, zd, &id);
  solve_prec(f, 1, 1, z0, &i0);
  solve_prec(f, 2, 1, z20, &i2);
  assert_int_equal(i2.parts, 2);
  /* Other bits than double arithmetic's, near it. */
  assert_memory_not_equal(zd, z0, (size_t)n * sizeof(double));
  assert_true(fabs(i0.residual - id.residual) <= 1e-3 * id.residual);
  static const char *paths[] = {"scalar", "sse2", "avx2", "avx512"};
  for (int k = 0; k < 4; ++k)
    for (int evex = 0; evex < 2; ++evex) {
      setenv("LSIM_SIMD", paths[k], 1);
      if (evex) setenv("LSIM_AVX2_EVEX", "off", 1);
      else unsetenv("LSIM_AVX2_EVEX");
      solve_prec(f, 1, 1, z, &i);
      assert_memory_equal(z, z0, (size_t)n * sizeof(double));
      solve_prec(f, 2, 1, z2, &i2);
      assert_memory_equal(z2, z20, (size_t)n * sizeof(double));
    }
  unsetenv("LSIM_AVX2_EVEX");
  /* The reference path: double arithmetic whatever the setting. */
  setenv("LSIM_SIMD", "reference", 1);
  double *zr = malloc((size_t)n * sizeof(double)), *zr1 = malloc((size_t)n * sizeof(double));
  solve_prec(f, 1, 0, zr, &i);
  solve_prec(f, 1, 1, zr1, &i);
  assert_int_equal(i.simd, LSIM_PGS_SIMD_REFERENCE);
  assert_memory_equal(zr, zr1, (size_t)n * sizeof(double));
  unsetenv("LSIM_SIMD");
  free(zd), free(z0), free(z), free(z2), free(z20), free(zr), free(zr1);
  free_pile(&p);
}

static void test_wide_sweep_paths_identical(void **state) {
  (void)state;
  PileLcp p;
  pile_lcp(&p, 1, 100);
  const LsimFactoredLcp *f = lsim_stepper_factored(p.stepper);
  const int n = f->n;
  enum { NP = 4 };
  static const char *paths[NP] = {"scalar", "sse2", "avx2", "avx512"};
  const int avx2 = __builtin_cpu_supports("avx2");
  const int avx512 = avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
  const int widest = avx512 ? LSIM_PGS_SIMD_AVX512 : avx2 ? LSIM_PGS_SIMD_AVX2 : LSIM_PGS_SIMD_SSE2;
  const int expect[NP] = {LSIM_PGS_SIMD_SCALAR, LSIM_PGS_SIMD_SSE2,
                          avx2 ? LSIM_PGS_SIMD_AVX2 : LSIM_PGS_SIMD_SSE2, widest};
  /* Unset: AVX2 where the CPU has it (AVX-512 only when asked, docs/solvers.md). */
  const int dflt = avx2 ? LSIM_PGS_SIMD_AVX2 : LSIM_PGS_SIMD_SSE2;
  printf("wide sweep paths compared: scalar, sse2%s%s\n", avx2 ? ", avx2" : "",
         avx512 ? ", avx512" : "");
  double *z[NP], *zw[NP], *z2[NP];
  LsimPgsInfo info[NP], infow[NP], info2[NP];
  for (int k = 0; k < NP; ++k) {
    setenv("LSIM_SIMD", paths[k], 1);
    z[k] = malloc((size_t)n * sizeof(double)), zw[k] = malloc((size_t)n * sizeof(double));
    solve_threads(f, 1, 0.0, 20, z[k], &info[k]);
    assert_int_equal(info[k].simd, expect[k]);
    assert_true(info[k].colours >= 2);
    /* Two threads: each range of the parts coloured on its own, the same on every path. */
    z2[k] = malloc((size_t)n * sizeof(double));
    solve_threads(f, 2, 0.0, 20, z2[k], &info2[k]);
    assert_int_equal(info2[k].parts, 2);
    assert_int_equal(info2[k].simd, expect[k]);
    /* Warm start from the 20-sweep iterate, omega 1.3, to 1e-8. */
    LsimPgs *ws = lsim_pgs_create();
    LsimPgsOptions o = lsim_default_pgs_options();
    o.tol = 1e-8, o.omega = 1.3, o.max_sweeps = 100000;
    memcpy(zw[k], z[0], (size_t)n * sizeof(double));
    memset(&infow[k], 0, sizeof infow[k]);
    lsim_pgs_solve_factored(ws, f, &o, 1, zw[k], &infow[k]);
    lsim_pgs_free(ws);
    assert_int_equal(infow[k].status, LSIM_SOLVED);
  }
  /* The reference (fast_sweep over the coloured order, one cone at a time, rows as
     doubles) against the kernel with double rows (a tolerance): the same bits. */
  {
    setenv("LSIM_SIMD", "reference", 1);
    double *zr = malloc((size_t)n * sizeof(double));
    LsimPgs *ws = lsim_pgs_create();
    LsimPgsOptions o = lsim_default_pgs_options();
    o.tol = 1e-8, o.omega = 1.3, o.max_sweeps = 100000;
    memcpy(zr, z[0], (size_t)n * sizeof(double));
    LsimPgsInfo ir;
    memset(&ir, 0, sizeof ir);
    lsim_pgs_solve_factored(ws, f, &o, 1, zr, &ir);
    lsim_pgs_free(ws);
    assert_int_equal(ir.simd, LSIM_PGS_SIMD_REFERENCE);
    assert_memory_equal(zr, zw[0], (size_t)n * sizeof(double));
    assert_int_equal(ir.sweeps, infow[0].sweeps);
    free(zr);
  }
  unsetenv("LSIM_SIMD");
  {
    double *zd = malloc((size_t)n * sizeof(double));
    LsimPgsInfo id;
    solve_threads(f, 1, 0.0, 20, zd, &id);
    assert_int_equal(id.simd, dflt);
    assert_memory_equal(z[0], zd, (size_t)n * sizeof(double));
    free(zd);
  }
  /* The AVX2 path's two builds (pgs_wide.c): on a CPU with AVX-512VL the runs above took
     the EVEX one; LSIM_AVX2_EVEX=off takes the VEX one, which must give the same bits
     (one and two threads, float rows at 20 sweeps and double rows to 1e-8). Without
     AVX-512VL both runs take the VEX build. */
  if (avx2) {
    setenv("LSIM_SIMD", "avx2", 1);
    setenv("LSIM_AVX2_EVEX", "off", 1);
    double *zv = malloc((size_t)n * sizeof(double)), *zv2 = malloc((size_t)n * sizeof(double));
    double *zvw = malloc((size_t)n * sizeof(double));
    LsimPgsInfo iv, iv2, ivw;
    solve_threads(f, 1, 0.0, 20, zv, &iv);
    solve_threads(f, 2, 0.0, 20, zv2, &iv2);
    assert_int_equal(iv.simd, LSIM_PGS_SIMD_AVX2);
    assert_memory_equal(z[0], zv, (size_t)n * sizeof(double));
    assert_true(info[0].residual == iv.residual);
    assert_memory_equal(z2[0], zv2, (size_t)n * sizeof(double));
    LsimPgs *ws = lsim_pgs_create();
    LsimPgsOptions o = lsim_default_pgs_options();
    o.tol = 1e-8, o.omega = 1.3, o.max_sweeps = 100000;
    memcpy(zvw, z[0], (size_t)n * sizeof(double));
    memset(&ivw, 0, sizeof ivw);
    lsim_pgs_solve_factored(ws, f, &o, 1, zvw, &ivw);
    lsim_pgs_free(ws);
    assert_memory_equal(zw[0], zvw, (size_t)n * sizeof(double));
    assert_int_equal(infow[0].sweeps, ivw.sweeps);
    unsetenv("LSIM_AVX2_EVEX");
    unsetenv("LSIM_SIMD");
    free(zv), free(zv2), free(zvw);
  }
  for (int k = 1; k < NP; ++k) {
    assert_memory_equal(z[0], z[k], (size_t)n * sizeof(double));
    assert_true(info[0].residual == info[k].residual);
    assert_memory_equal(zw[0], zw[k], (size_t)n * sizeof(double));
    assert_memory_equal(z2[0], z2[k], (size_t)n * sizeof(double));
    assert_int_equal(infow[0].sweeps, infow[k].sweeps);
  }
  printf("pile_100 LCP: %d colours; 20 sweeps: natural residual %.3g on every path; to 1e-8 "
         "(omega 1.3, warm): %d sweeps\n", info[0].colours, info[0].residual, infow[0].sweeps);
  for (int k = 0; k < NP; ++k) free(z[k]), free(zw[k]), free(z2[k]);
  free_pile(&p);
}

/* Compact rows (pgs_wide.c): where every coloured cone's rows of J (normal, p_0, p_q) have
 * entries 6-8 (the second block's linear part) equal to the negatives of entries 0-2, bit
 * for bit, the float groups store 9 of their 12 entries and the kernel negates the rest;
 * where B's rows are so too (the two bodies' inverse masses equal), B's as well. The
 * pile_100 LCP (spheres of one mass; the bin's contacts have one block): 54 values a cone
 * instead of 72; every other sphere three times as heavy: 63 (J's rows alone); one entry
 * of J changed in its last bit: 72. On each, every path with one and two threads gives
 * the bits of the full rows (LSIM_WIDE_ROWS=full), and the same residual. */
static void test_wide_compact_rows_same_bits(void **state) {
  (void)state;
  static const char *paths[] = {"scalar", "sse2", "avx2", "avx512"};
  static const int expect[3] = {54, 63, 72};
  for (int variant = 0; variant < 3; ++variant) {
    PileLcp p;
    pile_lcp_masses(&p, 1, 100, variant == 1);
    const LsimFactoredLcp *f0 = lsim_stepper_factored(p.stepper);
    LsimFactoredLcp g = *f0;
    const int n = g.n;
    double *jv = NULL;
    if (variant == 2) {
      /* The normal row of the first cone with two blocks: entry 6 moved by one ulp. */
      const int nnz = g.J_ptr[n];
      jv = malloc((size_t)nnz * sizeof(double));
      memcpy(jv, g.J_val, (size_t)nnz * sizeof(double));
      int changed = 0;
      for (int c = 0; c < g.ncones && !changed; ++c) {
        const int N = g.cones[c].normal;
        if (N < 0 || g.J_ptr[N + 1] - g.J_ptr[N] != 12) continue;
        double *e = jv + g.J_ptr[N] + 6;
        *e = nextafter(*e, INFINITY), changed = 1;
      }
      assert_true(changed);
      g.J_val = jv, g.diag_bound = 0.0, g.cone_products = NULL;
    }
    double *za = malloc((size_t)n * sizeof(double)), *zb = malloc((size_t)n * sizeof(double));
    for (int T = 1; T <= 2; ++T)
      for (int k = 0; k < 4; ++k) {
        LsimPgsInfo ia, ib;
        setenv("LSIM_SIMD", paths[k], 1);
        unsetenv("LSIM_WIDE_ROWS");
        solve_threads(&g, T, 0.0, 20, za, &ia);
        setenv("LSIM_WIDE_ROWS", "full", 1);
        solve_threads(&g, T, 0.0, 20, zb, &ib);
        assert_true(ia.colours >= 2);
        assert_int_equal(ia.row_values, expect[variant]);
        assert_int_equal(ib.row_values, 72);
        assert_int_equal(ia.simd, ib.simd);
        assert_memory_equal(za, zb, (size_t)n * sizeof(double));
        assert_true(ia.residual == ib.residual);
      }
    unsetenv("LSIM_SIMD");
    unsetenv("LSIM_WIDE_ROWS");
    /* A tolerance keeps double rows, whole. */
    LsimPgsInfo id;
    solve_threads(&g, 1, 1e-6, 100000, za, &id);
    assert_int_equal(id.row_values, 72);
    free(za), free(zb), free(jv);
    free_pile(&p);
  }
}

/* With a team (threads 2) the time step writes the rows of J and B, and C and q, in
 * slices on it: the problem is the one a single thread assembles, bit for bit (J, B, C,
 * q), from the same state of data/pile_100.json after 100 steps (about 250 contacts).
 * The warm start and the impulses, sliced too, follow their rules on the next step. */
static void test_parallel_rows_same_problem(void **state) {
  (void)state;
  PileLcp a, b;
  pile_lcp(&a, 1, 100);
  pile_lcp(&b, 2, 100); /* its solver's team made by its solves */
  assert_non_null(lsim_solver_team(lsim_stepper_solver(b.stepper)));
  assert_null(lsim_solver_team(lsim_stepper_solver(a.stepper)));
  memcpy(b.state.q, a.state.q, (size_t)a.model.nq * sizeof(double));
  memcpy(b.state.v, a.state.v, (size_t)a.model.nv * sizeof(double));
  b.state.time = a.state.time, b.state.step = a.state.step;
  LsimStepStats sa, sb;
  lsim_step(a.stepper, &a.model, &a.state, &sa);
  lsim_step(b.stepper, &b.model, &b.state, &sb);
  const LsimFactoredLcp *fa = lsim_stepper_factored(a.stepper), *fb = lsim_stepper_factored(b.stepper);
  const int n = fa->n;
  assert_int_equal(fb->n, n);
  assert_true(n >= 512); /* the slices apply */
  assert_memory_equal(fa->J_ptr, fb->J_ptr, (size_t)(n + 1) * sizeof(int));
  assert_memory_equal(fa->B_ptr, fb->B_ptr, (size_t)(n + 1) * sizeof(int));
  const int nj = fa->J_ptr[n], nc = fa->C_ptr[n];
  assert_memory_equal(fa->J_idx, fb->J_idx, (size_t)nj * sizeof(int));
  assert_memory_equal(fa->J_val, fb->J_val, (size_t)nj * sizeof(double));
  assert_memory_equal(fa->B_idx, fb->B_idx, (size_t)nj * sizeof(int));
  assert_memory_equal(fa->B_val, fb->B_val, (size_t)nj * sizeof(double));
  assert_memory_equal(fa->C_ptr, fb->C_ptr, (size_t)(n + 1) * sizeof(int));
  assert_memory_equal(fa->C_idx, fb->C_idx, (size_t)nc * sizeof(int));
  assert_memory_equal(fa->C_val, fb->C_val, (size_t)nc * sizeof(double));
  assert_memory_equal(fa->q, fb->q, (size_t)n * sizeof(double));

  /* The warm start and the impulses, also done by the slices on the team, against their
     rules: each contact starts from the previous step's z of its id (when it had the same
     number of variables), else 0; its impulses are read from the solution z. */
  const LsimContactSet *prev = lsim_stepper_contacts(b.stepper);
  const int np = prev->count, pn = fb->n;
  uint64_t *pid = malloc((size_t)np * sizeof(uint64_t));
  int *pvar = malloc((size_t)np * sizeof(int)), *pnv = malloc((size_t)np * sizeof(int));
  double *pz = malloc((size_t)pn * sizeof(double));
  for (int c = 0; c < np; ++c) {
    const LsimContact *ct = &prev->contacts[c];
    pid[c] = ct->id, pvar[c] = ct->first_var;
    pnv[c] = (ct->kind == LSIM_CONTACT_NORMAL) + (ct->ndir > 0 ? ct->ndir + 1 : 0);
  }
  memcpy(pz, lsim_stepper_solution(b.stepper), (size_t)pn * sizeof(double));
  lsim_step(b.stepper, &b.model, &b.state, &sb);
  const LsimContactSet *set = lsim_stepper_contacts(b.stepper);
  const double *guess = lsim_stepper_warm_guess(b.stepper), *z = lsim_stepper_solution(b.stepper);
  int matched = 0;
  for (int c = 0; c < set->count; ++c) {
    const LsimContact *ct = &set->contacts[c];
    const int nv = (ct->kind == LSIM_CONTACT_NORMAL) + (ct->ndir > 0 ? ct->ndir + 1 : 0);
    int p = 0;
    while (p < np && pid[p] != ct->id) ++p;
    const int from = p < np && pnv[p] == nv;
    matched += from;
    for (int v = 0; v < nv; ++v)
      assert_true(guess[ct->first_var + v] == (from ? pz[pvar[p] + v] : 0.0));
    int var = ct->first_var;
    assert_true(ct->normal_impulse == z[var++]);
    double cs[LSIM_MAX_DIRECTIONS], sn[LSIM_MAX_DIRECTIONS], fr[3] = {0.0, 0.0, 0.0};
    lsim_cone_weights(ct->ndir, cs, sn);
    for (int d = 0; d < ct->ndir; ++d, ++var)
      for (int k = 0; k < 3; ++k) fr[k] += z[var] * (cs[d] * ct->tangent[0][k] + sn[d] * ct->tangent[1][k]);
    assert_memory_equal(fr, ct->friction_impulse, sizeof fr);
    assert_true(ct->slip_speed == z[var]);
  }
  assert_true(matched > set->count / 2); /* most contacts persist from step to step */
  free(pid), free(pvar), free(pnv), free(pz);
  free_pile(&a);
  free_pile(&b);
}

/* A 3-D model under gravity with PGS on `threads` threads, a d = 4 cone and a static
 * floor (the plane z = 0, body 0): the start of the scenes below. */
static void pgs_floor_model(LsimModel *m, int threads) {
  *m = lsim_default_model();
  m->dimension = 3;
  m->gravity[2] = -9.81;
  m->friction_directions = 4;
  strcpy(m->solver.name, "pgs");
  m->solver.threads = threads;
  LsimBody ground = lsim_default_body();
  ground.type = LSIM_BODY_STATIC;
  const int g = lsim_model_add_body(m, &ground);
  LsimShape floor = lsim_default_shape();
  floor.type = LSIM_SHAPE_PLANE;
  floor.body = g;
  lsim_model_add_shape(m, &floor);
}

/* A scene of 301 boxes for the team's per-body stages: 300 boxes of unequal sides (so the
 * gyroscopic term acts) spinning apart in the air, and one resting on a floor, whose
 * contacts make every step solve a small LCP. */
static void spinning_boxes(LsimModel *m, LsimState *st, int threads) {
  pgs_floor_model(m, threads);
  LsimRng rng = lsim_rng(11);
  for (int i = 0; i <= 300; ++i) {
    LsimBody b = lsim_default_body();
    b.mass = 1.0;
    const double half[3] = {0.05 + 0.1 * lsim_rng_uniform(&rng), 0.05 + 0.1 * lsim_rng_uniform(&rng),
                            0.05 + 0.1 * lsim_rng_uniform(&rng)};
    lsim_inertia_box(b.mass, half, b.inertia);
    const int bi = lsim_model_add_body(m, &b);
    LsimShape s = lsim_default_shape();
    s.type = LSIM_SHAPE_BOX;
    s.body = bi;
    memcpy(s.half, half, sizeof half);
    lsim_model_add_shape(m, &s);
  }
  assert_int_equal(lsim_model_finalize(m), 0);
  assert_int_equal(lsim_state_init(st, m), 0);
  for (int i = 1; i < m->nbodies; ++i) {
    const LsimBody *b = &m->bodies[i];
    double *q = st->q + b->q_offset, *v = st->v + b->v_offset;
    q[3] = 1.0;
    if (i == 1) { /* on the floor */
      q[2] = m->shapes[b->first_shape].half[2];
      continue;
    }
    /* The others on a grid 1 m apart, 10 m up, spinning at up to 10 rad/s about each axis. */
    q[0] = (i % 20) * 1.0, q[1] = (i / 20) * 1.0 + 2.0, q[2] = 10.0;
    for (int k = 3; k < 6; ++k) v[k] = 20.0 * (lsim_rng_uniform(&rng) - 0.5);
  }
}

/* Stages 1 (inertias, free velocities) and 5-6 (velocity and pose updates) run on the
 * solver's team, a share of the bodies each, from 256 bodies: a run with 2 threads whose
 * LCPs are too small for the team (fewer than 128 cones: the natural order, as with one
 * thread) repeats the one-thread run bit for bit over 30 steps. */
static void test_parallel_bodies_same_state(void **state) {
  (void)state;
  LsimModel m[2];
  LsimState st[2];
  LsimStepper *stepper[2];
  for (int k = 0; k < 2; ++k) {
    spinning_boxes(&m[k], &st[k], k + 1);
    char err[256];
    assert_int_equal(lsim_stepper_create(&stepper[k], &m[k], NULL, err, sizeof err), 0);
  }
  assert_true(m[0].nbodies >= 256);
  for (int step = 0; step < 30; ++step)
    for (int k = 0; k < 2; ++k) {
      LsimStepStats ss;
      assert_int_equal(lsim_step(stepper[k], &m[k], &st[k], &ss), LSIM_SOLVED);
      assert_true(ss.ncontacts >= 1 && ss.ncontacts < 128);
    }
  assert_non_null(lsim_solver_team(lsim_stepper_solver(stepper[1]))); /* the path taken */
  assert_memory_equal(st[0].q, st[1].q, (size_t)m[0].nq * sizeof(double));
  assert_memory_equal(st[0].v, st[1].v, (size_t)m[0].nv * sizeof(double));
  for (int k = 0; k < 2; ++k) {
    lsim_stepper_free(stepper[k]);
    lsim_state_free(&st[k]);
    lsim_model_free(&m[k]);
  }
}

/* Towers of cubes (side 0.2 m) on the floor, each cube sunk 5 mm into the one below
 * (25 times the correction's slop, so the position correction has deep rows), the towers
 * 0.5 m apart; 64 contacts at most, fewer cones than PGS's parallel order needs, so the
 * solve is the one-thread solve with any team size. */
static void sunk_towers(LsimModel *m, LsimState *st, int threads) {
  enum { TOWERS = 4, HIGH = 4 };
  pgs_floor_model(m, threads);
  const double half[3] = {0.1, 0.1, 0.1};
  for (int i = 0; i < TOWERS * HIGH; ++i) {
    LsimBody b = lsim_default_body();
    b.mass = 1.0;
    lsim_inertia_box(b.mass, half, b.inertia);
    LsimShape s = lsim_default_shape();
    s.type = LSIM_SHAPE_BOX;
    s.body = lsim_model_add_body(m, &b);
    memcpy(s.half, half, sizeof half);
    lsim_model_add_shape(m, &s);
  }
  assert_int_equal(lsim_model_finalize(m), 0);
  assert_int_equal(lsim_state_init(st, m), 0);
  for (int i = 0; i < TOWERS * HIGH; ++i) {
    double *q = st->q + m->bodies[1 + i].q_offset;
    /* A small offset and turn per cube, so the towers' faces are not all alike. */
    q[0] = 0.5 * (i / HIGH) + 0.003 * (i % HIGH), q[1] = 0.002 * (i % 3);
    q[2] = 0.1 + (i % HIGH) * (0.2 - 0.005);
    q[3] = cos(0.01 * i), q[6] = sin(0.01 * i);
  }
}

/* The step's passes over the contacts on the team (sweep_order's keys and copy, the warm
 * start's sums, manifold lists and their merge, the correction's rows: the team's
 * threshold lowered to one contact) give the state of the one-thread run bit for bit, on
 * towers whose manifolds hold cubes up at four depths and whose overlaps the correction
 * removes. */
static void test_parallel_step_passes_same_state(void **state) {
  (void)state;
  LsimModel m[2];
  LsimState st[2];
  LsimStepper *stepper[2];
  for (int k = 0; k < 2; ++k) {
    sunk_towers(&m[k], &st[k], k + 1);
    char err[256];
    assert_int_equal(lsim_stepper_create(&stepper[k], &m[k], NULL, err, sizeof err), 0);
  }
  lsim_stepper_set_team_min_contacts(stepper[1], 1);
  const double z0 = st[0].q[m[0].bodies[2].q_offset + 2];
  for (int step = 0; step < 60; ++step)
    for (int k = 0; k < 2; ++k) {
      LsimStepStats ss;
      assert_int_equal(lsim_step(stepper[k], &m[k], &st[k], &ss), LSIM_SOLVED);
      assert_true(ss.ncontacts >= 16 && ss.ncontacts <= 64);
    }
  assert_non_null(lsim_solver_team(lsim_stepper_solver(stepper[1]))); /* the path taken */
  /* The second cube of the first tower rose by most of its 5 mm overlap (the correction
     acted). */
  assert_true(st[0].q[m[0].bodies[2].q_offset + 2] > z0 + 0.003);
  assert_memory_equal(st[0].q, st[1].q, (size_t)m[0].nq * sizeof(double));
  assert_memory_equal(st[0].v, st[1].v, (size_t)m[0].nv * sizeof(double));
  for (int k = 0; k < 2; ++k) {
    lsim_stepper_free(stepper[k]);
    lsim_state_free(&st[k]);
    lsim_model_free(&m[k]);
  }
  /* Joint rows among the contacts (their own numbering in the assembly): data/chain_20.json
     under PGS, 100 steps. */
  for (int k = 0; k < 2; ++k) {
    char *text = NULL;
    LsimSceneError serr;
    assert_int_equal(lsim_scene_load("data/chain_20.json", &m[k], &st[k], &text, &serr), 0);
    free(text);
    strcpy(m[k].solver.name, "pgs");
    m[k].solver.threads = k + 1;
    char err[256];
    assert_int_equal(lsim_stepper_create(&stepper[k], &m[k], NULL, err, sizeof err), 0);
  }
  assert_true(m[0].njoints > 0);
  lsim_stepper_set_team_min_contacts(stepper[1], 1);
  for (int step = 0; step < 100; ++step) {
    LsimStepStats ss[2];
    for (int k = 0; k < 2; ++k) (void)lsim_step(stepper[k], &m[k], &st[k], &ss[k]);
    assert_int_equal(ss[0].status, ss[1].status);
  }
  assert_memory_equal(st[0].q, st[1].q, (size_t)m[0].nq * sizeof(double));
  assert_memory_equal(st[0].v, st[1].v, (size_t)m[0].nv * sizeof(double));
  for (int k = 0; k < 2; ++k) {
    lsim_stepper_free(stepper[k]);
    lsim_state_free(&st[k]);
    lsim_model_free(&m[k]);
  }
}

/* A whole run with threads = 2 repeats bit for bit (q and v after the 300 steps of
 * data/pile_100.json) and comes to rest like the one-thread run: all but at most two
 * spheres below 0.03 m/s in both (they hit the pile at up to 5 m/s; at rest they creep
 * by what 50 sweeps leave unsolved, 0.015-0.016 m/s here). Spins about a contact normal are not
 * compared: point contacts have no torsional friction, so a sphere keeps whatever spin
 * the impacts gave it, and a different sweep order gives different spins. */
static void test_parallel_run_repeats(void **state) {
  (void)state;
  PileLcp a, b, c;
  pile_lcp(&a, 2, 300);
  pile_lcp(&b, 2, 300);
  pile_lcp(&c, 1, 300);
  assert_int_equal(a.model.nv, b.model.nv);
  assert_memory_equal(a.state.q, b.state.q, (size_t)a.model.nq * sizeof(double));
  assert_memory_equal(a.state.v, b.state.v, (size_t)a.model.nv * sizeof(double));
  double speed_a = 0.0, speed_c = 0.0;
  int moving_a = 0, moving_c = 0;
  for (int k = 0; k < a.model.nbodies; ++k) {
    const LsimBody *bd = &a.model.bodies[k];
    if (bd->type != LSIM_BODY_DYNAMIC) continue;
    const double *va = a.state.v + bd->v_offset, *vc = c.state.v + bd->v_offset;
    const double sa = sqrt(va[0] * va[0] + va[1] * va[1] + va[2] * va[2]);
    const double sc = sqrt(vc[0] * vc[0] + vc[1] * vc[1] + vc[2] * vc[2]);
    speed_a = fmax(speed_a, sa), speed_c = fmax(speed_c, sc);
    moving_a += sa >= 0.03, moving_c += sc >= 0.03;
  }
  printf("pile_100 after 3 s: largest speed %.3g m/s (2 threads), %.3g m/s (1 thread); "
         "spheres at 0.03 m/s or more: %d, %d\n", speed_a, speed_c, moving_a, moving_c);
  /* At most 2 of the 100 spheres still moving: a sphere perched on the pile's top may roll
     off late (at step 280 single spheres move at 0.09 m/s with one thread and 0.115 m/s
     with two; with other rounding, sphere 99 at z = 0.28 m rolls off from step 250 and
     moves at 0.058 m/s at step 300), which is physics, not a failure to come to rest. */
  assert_true(moving_a <= 2 && moving_c <= 2);
  free_pile(&a), free_pile(&b), free_pile(&c);
}

/* A long fixed budget (tol 0, more than LSIM_PGS_FLOAT_MAX_SWEEPS = 100 sweeps) is swept
 * on double rows: its iterate is the reference's (fast_sweep, rows as doubles) bit for
 * bit (before, such a budget ran on float rows, whose rounding set a floor: 10 000
 * sweeps of box_stack_3d's step 2 ended at 5e-5 relative against 5e-14 on doubles).
 * 4000 sweeps of the pile_100 LCP from z = 0 leave a natural residual below a tenth of
 * 100 sweeps' (9.6e-5 against 2.9e-3: Gauss-Seidel converges, slowly, on this pile). A
 * budget of 100 keeps the float rows (not the reference's bits). */
static void test_long_budget_on_doubles(void **state) {
  (void)state;
  PileLcp p;
  pile_lcp(&p, 1, 100);
  const LsimFactoredLcp *f = lsim_stepper_factored(p.stepper);
  const int n = f->n;
  double *z = malloc((size_t)n * sizeof(double)), *zr = malloc((size_t)n * sizeof(double));
  LsimPgsInfo info, ir;
  double r100 = 0.0;
  const int budgets[2] = {100, 4000};
  for (int b = 0; b < 2; ++b) {
    unsetenv("LSIM_SIMD");
    solve_threads(f, 1, 0.0, budgets[b], z, &info);
    setenv("LSIM_SIMD", "reference", 1);
    solve_threads(f, 1, 0.0, budgets[b], zr, &ir);
    unsetenv("LSIM_SIMD");
    assert_int_equal(info.sweeps, budgets[b]);
    if (b == 0) {
      r100 = info.residual;
      assert_memory_not_equal(z, zr, (size_t)n * sizeof(double));
    } else {
      assert_memory_equal(z, zr, (size_t)n * sizeof(double));
      assert_true(info.residual < 0.1 * r100);
    }
    printf("pile_100 LCP, %d sweeps at tol 0: natural residual %.3g\n", budgets[b],
           info.residual);
  }
  free(z), free(zr);
  free_pile(&p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_team_runs_each_member_once),
      cmocka_unit_test(test_team_sleeping_waits),
      cmocka_unit_test(test_parallel_sweeps_deterministic),
      cmocka_unit_test(test_parallel_measures_one_pass),
      cmocka_unit_test(test_fast_residual_bits),
      cmocka_unit_test(test_parallel_zero_test),
      cmocka_unit_test(test_wide_sweep_paths_identical),
      cmocka_unit_test(test_wide_single_precision_paths_identical),
      cmocka_unit_test(test_wide_compact_rows_same_bits),
      cmocka_unit_test(test_long_budget_on_doubles),
      cmocka_unit_test(test_parallel_rows_same_problem),
      cmocka_unit_test(test_parallel_run_repeats),
      cmocka_unit_test(test_parallel_bodies_same_state),
      cmocka_unit_test(test_parallel_step_passes_same_state),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
