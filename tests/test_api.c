/* test_api.c: the public C API (include/lcpsim/lcpsim.h), used as a program outside the
 * library would: only that header. Physical outcomes against closed forms. */
#include <lcpsim/lcpsim.h>

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h" /* the shared data folder only: no internal header */

#include <cmocka.h>
#include <hdf5.h> /* the comparison file read back */

/* A 1-D scene: a free body (no contact ever) and the cart and wall of Tedrake's appendix. */
static const char *free_body =
    "{\"lcpsim\": 1, \"time_step\": 0.125, \"steps\": 8,\n"
    " \"bodies\": [{\"name\": \"puck\", \"position\": 0, \"velocity\": 0.5, \"mass\": 2}]}";

/* Errors name the place (file:line:column: path) and leave no simulation. */
static void test_load_errors(void **state) {
  (void)state;
  LsimSim *sim = (LsimSim *)1;
  char err[512];
  int rc = lsim_sim_load_json(&sim, "{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 3,\n"
                                    " \"bodies\": [{\"mass\": -1}]}", "mem.json", err, sizeof err);
  assert_int_equal(rc, LSIM_INVALID_INPUT);
  assert_null(sim);
  assert_string_equal(err, "mem.json:2:22: bodies[0].mass: must be > 0, got -1");
  rc = lsim_sim_load(&sim, "no/such/scene.json", err, sizeof err);
  assert_int_equal(rc, LSIM_IO_ERROR);
  assert_non_null(strstr(err, "no/such/scene.json"));
  assert_string_equal(lsim_status_name(LSIM_BREAKDOWN), "breakdown");
  /* An event-driven scene is refused rather than time stepped. */
  rc = lsim_sim_load_json(&sim, "{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.01, \"steps\": 3,\n"
                                " \"integrator\": \"event_driven\", \"gravity\": [0, -9.81],\n"
                                " \"bodies\": [{\"name\": \"b\", \"mass\": 1, \"position\": [0, 1],\n"
                                "   \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.1}]}]}",
                          NULL, err, sizeof err);
  assert_int_equal(rc, LSIM_INVALID_INPUT);
  assert_null(sim);
  assert_non_null(strstr(err, "event-driven"));
  /* So is a time-stepped scene asking for sequential impacts (the step would ignore it). */
  rc = lsim_sim_load_json(&sim, "{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.01, \"steps\": 3,\n"
                                " \"event_driven\": {\"impacts\": \"sequential\"},\n"
                                " \"bodies\": [{\"name\": \"b\", \"mass\": 1, \"position\": [0, 1],\n"
                                "   \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.1}]}]}",
                          NULL, err, sizeof err);
  assert_int_equal(rc, LSIM_INVALID_INPUT);
  assert_null(sim);
  assert_non_null(strstr(err, "sequential impacts"));
}

/* A free body under a force set through the API: v' = v + h f / m, q' = q + h v' exactly
 * (dyadic numbers: no rounding), the set force replacing the scene's, read back. */
static void test_force_and_state(void **state) {
  (void)state;
  LsimSim *sim;
  char err[512];
  assert_int_equal(lsim_sim_load_json(&sim, free_body, NULL, err, sizeof err), 0);
  assert_int_equal(lsim_sim_body_index(sim, "puck"), 0);
  assert_int_equal(lsim_sim_body_index(sim, "nobody"), -1);
  LsimBodyInfo b;
  assert_int_equal(lsim_sim_body(sim, 0, &b), 0);
  assert_string_equal(b.name, "puck");
  assert_int_equal(b.nv, 1);
  const double f = 4.0;
  assert_int_equal(lsim_sim_set_force(sim, 0, &f), 0);
  double got;
  assert_int_equal(lsim_sim_get_force(sim, 0, &got), 0);
  assert_true(got == 4.0);
  double q = 0.0, v = 0.5;
  for (int k = 0; k < 8; ++k) {
    assert_int_equal(lsim_sim_step(sim), LSIM_SOLVED);
    v += 0.125 * f / 2.0;
    q += 0.125 * v;
    assert_true(lsim_sim_q(sim)[0] == q && lsim_sim_v(sim)[0] == v);
  }
  assert_true(lsim_sim_time(sim) == 1.0);
  assert_int_equal(lsim_sim_steps_done(sim), 8);
  /* The state is the caller's to set between steps; a NaN is refused by the next step. */
  lsim_sim_v(sim)[0] = NAN;
  assert_int_equal(lsim_sim_step(sim), LSIM_INVALID_INPUT);
  assert_non_null(strstr(lsim_sim_error(sim), "v[0]"));
  /* Bad arguments: a body that is not there, a non-finite force. */
  const double bad = INFINITY;
  assert_int_equal(lsim_sim_set_force(sim, 3, &f), LSIM_INVALID_INPUT);
  assert_int_equal(lsim_sim_set_force(sim, 0, &bad), LSIM_INVALID_INPUT);
  assert_int_equal(lsim_sim_set_kinematic_velocity(sim, 0, &f), LSIM_INVALID_INPUT);
  lsim_sim_free(sim);
}

/* The controller sees the state before each step; its force acts in that step. A
 * controller that asks to stop stops the run before the step. */
typedef struct Log {
  double t[16], q[16];
  int n, stop_at;
} Log;

static int logger(LsimSim *sim, void *user) {
  Log *log = user;
  if (log->n == log->stop_at) return 7;
  log->t[log->n] = lsim_sim_time(sim);
  log->q[log->n] = lsim_sim_q(sim)[0];
  const double f = -2.0 * lsim_sim_v(sim)[0]; /* a damper: m dv/dt = -2 v */
  log->n++;
  return lsim_sim_set_force(sim, 0, &f);
}

static void test_controller(void **state) {
  (void)state;
  LsimSim *sim;
  assert_int_equal(lsim_sim_load_json(&sim, free_body, NULL, NULL, 0), 0);
  Log log = {.n = 0, .stop_at = 5};
  lsim_sim_set_controller(sim, logger, &log);
  assert_int_equal(lsim_sim_run(sim, 4), 0);
  /* Semi-implicit Euler of v' = -v (m 2, damper 2): v_{k+1} = v_k (1 - h), h = 1/8. */
  double v = 0.5, q = 0.0;
  for (int k = 0; k < 4; ++k) {
    assert_true(log.t[k] == 0.125 * k && log.q[k] == q);
    v *= 1.0 - 0.125;
    q += 0.125 * v;
  }
  assert_true(lsim_sim_v(sim)[0] == v);
  assert_int_equal(lsim_sim_step(sim), LSIM_SOLVED);
  assert_int_equal(lsim_sim_step(sim), LSIM_CONTROLLER_STOPPED);
  assert_int_equal(lsim_sim_steps_done(sim), 5);
  assert_non_null(strstr(lsim_sim_error(sim), "returning 7"));
  lsim_sim_free(sim);
}

/* A warm start with an entry that is not finite is no guess: the solve starts cold, and a
 * success says so with LSIM_WARM_START_REJECTED (the solvers read NaN as 0 and reported a
 * plain success), err naming the entry. The problem M = [2 1; 1 2], q = (-1, -1) has the
 * solution z = (1/3, 1/3); 1e-9 is above every solver's tolerance (1e-10 relative). The
 * frictional contact problem of test_solve_fc the same way: r = (1, -0.5, 0). */
static void test_nonfinite_warm_start(void **state) {
  (void)state;
  const double M[4] = {2, 1, 1, 2}, q[2] = {-1, -1};
  const char *const names[] = {"lemke", "pgs", "newton", "siconos:lemke", "siconos:pgs"};
  LsimSolverConfig cfg = lsim_default_solver_config(); /* warm_start 1 */
  for (int k = 0; k < 5; ++k) {
    double z[2] = {NAN, 0.5};
    LsimSolveReport rep;
    char err[256] = "";
    assert_int_equal(lsim_solve_lcp(names[k], 2, M, q, z, &cfg, &rep, err, sizeof err),
                     LSIM_WARM_START_REJECTED);
    assert_int_equal(rep.status, LSIM_WARM_START_REJECTED);
    assert_true(fabs(z[0] - 1.0 / 3.0) <= 1e-9 && fabs(z[1] - 1.0 / 3.0) <= 1e-9);
    assert_non_null(strstr(err, "z[0] = nan is not finite: solved from a cold start"));
    /* A finite guess is a warm start as before. */
    z[0] = 0.3, z[1] = 0.3;
    assert_int_equal(lsim_solve_lcp(names[k], 2, M, q, z, &cfg, &rep, err, sizeof err), LSIM_SOLVED);
  }
  const double W[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, qf[3] = {-1, 2, 0}, mu[1] = {0.5};
  double r[3] = {1.0, INFINITY, 0.0};
  LsimFcReport frep;
  char err[256] = "";
  cfg.tol = 1e-12;
  assert_int_equal(lsim_solve_fc("nsgs", 3, 1, W, qf, mu, 0, r, &cfg, &frep, err, sizeof err),
                   LSIM_WARM_START_REJECTED);
  assert_int_equal(frep.status, LSIM_WARM_START_REJECTED);
  assert_true(fabs(r[0] - 1.0) <= 1e-9 && fabs(r[1] + 0.5) <= 1e-9 && fabs(r[2]) <= 1e-9);
  assert_non_null(strstr(err, "r[1] = inf is not finite"));
}

/* A world built in code that starts overlapping is refused as a scene is (it started, and
 * the steps pushed the bodies apart: a scene of the same bodies was refused), naming the
 * pair and the depth; within the tolerance, or allowed through lsim_sim_set_contact, it
 * starts, and an allowed overlap leaves at max_correction_speed. A disk of radius 0.5 on
 * the plane y = 0, no gravity, h = 1/64: at y = 0.375 it is 0.125 m in, its contact row
 * asks v' >= min(0.125 / h, cap) = cap, so v' = 0.5 m/s with the cap 0.5 (to the pivot's
 * round-off, 1e-12). */
static LsimSim *disk_on_floor(double y) {
  LsimSim *sim;
  assert_int_equal(lsim_sim_create(&sim, 2, 1.0 / 64, NULL, 0), 0);
  LsimBodyDef d = lsim_default_body_def();
  d.name = "floor", d.type = LSIM_STATIC;
  LsimShapeDef s = lsim_default_shape_def();
  s.type = LSIM_PLANE;
  assert_int_equal(lsim_sim_add_shape(sim, lsim_sim_add_body(sim, &d), &s), 0);
  d = lsim_default_body_def();
  d.name = "disk", d.position[1] = y;
  s = lsim_default_shape_def(); /* radius 0.5 */
  assert_true(lsim_sim_add_shape(sim, lsim_sim_add_body(sim, &d), &s) >= 0);
  return sim;
}

static void test_build_overlap(void **state) {
  (void)state;
  LsimSim *sim = disk_on_floor(0.375);
  assert_int_equal(lsim_sim_start(sim), LSIM_INVALID_INPUT);
  assert_non_null(strstr(lsim_sim_error(sim), "start: 'disk' overlaps 'floor' at the start by 0.125 m"));
  assert_null(lsim_sim_q(sim));
  LsimContactDef c = lsim_default_contact_def();
  assert_true(c.margin == 0.0 && c.max_correction_speed == 1.0 && c.overlap_tolerance == 1e-3 &&
              c.allow_initial_overlap == 0);
  c.max_correction_speed = -1.0;
  assert_int_equal(lsim_sim_set_contact(sim, &c), LSIM_INVALID_INPUT);
  assert_non_null(strstr(lsim_sim_error(sim), "max_correction_speed must be > 0"));
  c.max_correction_speed = 0.5, c.allow_initial_overlap = 1;
  assert_int_equal(lsim_sim_set_contact(sim, &c), 0);
  assert_int_equal(lsim_sim_start(sim), 0);
  assert_int_equal(lsim_sim_set_contact(sim, &c), LSIM_INVALID_INPUT); /* started */
  assert_int_equal(lsim_sim_step(sim), LSIM_SOLVED);
  /* The set cap acts (docs/scene-format.md, "Initial overlap"): the velocity row removes
     the slop s = 2e-4 m of the 0.125 m overlap (v = s / h = 0.0128 m/s, not the cap), and
     the positions alone move the disk out by the cap's 0.5 h more; 1e-12 is rounding. */
  const double h = 1.0 / 64, slop = 2e-4;
  assert_true(fabs(lsim_sim_v(sim)[1] - slop / h) <= 1e-12);
  assert_true(fabs(lsim_sim_q(sim)[1] - (0.375 + slop + 0.5 * h)) <= 1e-12);
  lsim_sim_free(sim);
  /* Within the tolerance (5e-4 m < 1e-3 m): started. */
  sim = disk_on_floor(0.4995);
  assert_int_equal(lsim_sim_start(sim), 0);
  lsim_sim_free(sim);
}

/* 1-D: a segment inside a wall, two segments overlapping and two walls crossing are refused
 * as a scene refuses them (1e-12 m: touching is contact), the first two unless allowed. */
static LsimSim *carts(double xa, double xb, double right_wall) {
  LsimSim *sim;
  assert_int_equal(lsim_sim_create(&sim, 1, 0.01, NULL, 0), 0);
  LsimBodyDef d = lsim_default_body_def();
  d.name = "A", d.position[0] = xa, d.width = 0.2;
  assert_true(lsim_sim_add_body(sim, &d) >= 0);
  d.name = "B", d.position[0] = xb;
  assert_true(lsim_sim_add_body(sim, &d) >= 0);
  d = lsim_default_body_def();
  d.name = "left", d.type = LSIM_STATIC, d.side = -1;
  assert_true(lsim_sim_add_body(sim, &d) >= 0);
  d.name = "right", d.side = 1, d.position[0] = right_wall;
  assert_true(lsim_sim_add_body(sim, &d) >= 0);
  return sim;
}

static void test_build_overlap_1d(void **state) {
  (void)state;
  struct { double xa, xb, wall; const char *msg; } cases[] = {
      {0.05, 1.0, 2.0, "start: 'A' [-0.05, 0.15] is inside wall 'left' (occupies x <= 0) by 0.05"},
      {0.5, 0.65, 2.0, "start: 'B' [0.55, 0.75] overlaps 'A' [0.4, 0.6] at the start by 0.05"},
      {0.1, 0.3, 2.0, NULL}, /* touching: A [0, 0.2], B [0.2, 0.4] */
  };
  LsimContactDef allow = lsim_default_contact_def();
  allow.allow_initial_overlap = 1;
  for (int k = 0; k < 3; ++k) {
    LsimSim *sim = carts(cases[k].xa, cases[k].xb, cases[k].wall);
    if (!cases[k].msg) {
      assert_int_equal(lsim_sim_start(sim), 0);
    } else {
      assert_int_equal(lsim_sim_start(sim), LSIM_INVALID_INPUT);
      assert_non_null(strstr(lsim_sim_error(sim), cases[k].msg));
      assert_int_equal(lsim_sim_set_contact(sim, &allow), 0);
      assert_int_equal(lsim_sim_start(sim), 0);
    }
    lsim_sim_free(sim);
  }
  /* Walls crossing: no room at all, refused even when overlaps are allowed. */
  LsimSim *sim = carts(0.5, 1.0, -0.5);
  assert_int_equal(lsim_sim_set_contact(sim, &allow), 0);
  assert_int_equal(lsim_sim_start(sim), LSIM_INVALID_INPUT);
  assert_non_null(strstr(lsim_sim_error(sim), "wall 'left' (x <= 0) overlaps wall 'right' (x >= -0.5)"));
  lsim_sim_free(sim);
}

/* A controller that steps its own simulation: refused (it took the steps the caller did
 * not ask for: one lsim_sim_step took 5 with a controller stepping 4 times, and a controller
 * always stepping recursed until the stack ran out). The outer step is taken, once. */
typedef struct Reentry {
  int calls, step_rc, run_rc;
} Reentry;

static int stepping_controller(LsimSim *sim, void *user) {
  Reentry *r = user;
  r->calls++;
  r->step_rc = lsim_sim_step(sim);
  r->run_rc = lsim_sim_run(sim, 3);
  return 0;
}

static void test_controller_reentry(void **state) {
  (void)state;
  LsimSim *sim;
  assert_int_equal(lsim_sim_load_json(&sim, free_body, NULL, NULL, 0), 0);
  Reentry r = {0, 0, 0};
  lsim_sim_set_controller(sim, stepping_controller, &r);
  assert_int_equal(lsim_sim_step(sim), LSIM_SOLVED);
  assert_int_equal(r.calls, 1);
  assert_int_equal(r.step_rc, LSIM_INVALID_INPUT);
  assert_int_equal(r.run_rc, LSIM_INVALID_INPUT);
  assert_int_equal(lsim_sim_steps_done(sim), 1);
  /* The free body: v stays 0.5, one step of h = 1/8 moves it 1/16 exactly. */
  assert_true(lsim_sim_q(sim)[0] == 0.0625);
  assert_non_null(strstr(lsim_sim_error(sim), "own controller"));
  /* Outside the controller, steps go on. */
  lsim_sim_set_controller(sim, NULL, NULL);
  assert_int_equal(lsim_sim_run(sim, 2), 0);
  assert_int_equal(lsim_sim_steps_done(sim), 3);
  lsim_sim_free(sim);
}

/* Tedrake's cart and wall through the API: each step q' = max(0, a), f = max(0, -a m / h^2)
 * with a = q + h v (u = 0); the wall contact keeps its id. 1e-12: a 1x1 LCP solved by
 * pivoting, numbers of order 1-30. */
static void test_cart_wall_contacts(void **state) {
  (void)state;
  LsimSim *sim;
  char err[512];
  assert_int_equal(lsim_sim_load(&sim, "data/cart_wall.json", err, sizeof err), 0);
  const double h = lsim_sim_time_step(sim);
  uint64_t id = 0;
  int touched = 0;
  for (int k = 0; k < lsim_sim_scene_steps(sim); ++k) {
    const double a = lsim_sim_q(sim)[0] + h * lsim_sim_v(sim)[0];
    assert_int_equal(lsim_sim_step(sim), LSIM_SOLVED);
    assert_true(fabs(lsim_sim_q(sim)[0] - fmax(0.0, a)) <= 1e-12);
    LsimContactInfo c[4];
    const int n = lsim_sim_contacts(sim, c, 4);
    assert_int_equal(n, lsim_sim_contact_count(sim));
    double f = 0.0;
    for (int j = 0; j < n; ++j) {
      if (touched) assert_true(c[j].id == id);
      id = c[j].id, touched = 1;
      f += c[j].normal_impulse / h;
    }
    assert_true(fabs(f - fmax(0.0, -a / (h * h))) <= 1e-12 * fmax(1.0, f));
  }
  assert_true(touched);
  assert_true(lsim_sim_q(sim)[0] == 0.0 && lsim_sim_v(sim)[0] == 0.0);
  LsimStepReport r;
  assert_int_equal(lsim_sim_last_step(sim, &r), 0);
  assert_int_equal(r.status, LSIM_SOLVED);
  lsim_sim_free(sim);
}

/* Solvers: an unknown one is refused and the previous kept; PGS gives the same cart. */
static void test_solvers_and_record(void **state) {
  (void)state;
  LsimSim *sim;
  assert_int_equal(lsim_sim_load(&sim, "data/cart_wall.json", NULL, 0), 0);
  assert_int_equal(lsim_sim_set_solver(sim, "no-such-solver", NULL), LSIM_UNAVAILABLE);
  assert_string_equal(lsim_sim_solver(sim), "lemke");
  LsimSolverConfig cfg = lsim_default_solver_config();
  cfg.tol = 1e-14;
  assert_int_equal(lsim_sim_set_solver(sim, "pgs", &cfg), 0);
  assert_string_equal(lsim_sim_solver(sim), "pgs");
  char path[] = "/tmp/lsim_test_api_XXXXXX";
  const int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  assert_int_equal(lsim_sim_record(sim, path), 0);
  assert_int_equal(lsim_sim_run(sim, 30), 0);
  assert_true(fabs(lsim_sim_q(sim)[0]) <= 1e-12);
  assert_int_equal(lsim_sim_record_close(sim, 1), 0);
  /* An HDF5 file behind the run file's head, marked whole by the close (the library's
     record keeps no marks: lcp/h5check.h). */
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  char head[520];
  assert_int_equal(fread(head, 1, sizeof head, f), sizeof head);
  fclose(f);
  assert_memory_equal(head + 512, "\x89HDF\r\n\x1a\n", 8);
  assert_memory_equal(head, "lcpsim run file: flushed whole\n", 31);
  remove(path);
  assert_int_equal(lsim_sim_record_close(sim, 1), LSIM_INVALID_INPUT);
  lsim_sim_free(sim);
  /* A fixed sweep budget (pile_10 at 50 sweeps, tol 0): every step ends at its budget,
     which lsim_sim_run does not take for a failure; the options read back. */
  assert_int_equal(lsim_sim_load(&sim, "data/pile_10.json", NULL, 0), 0);
  cfg.tol = 0.0, cfg.max_iter = 50;
  assert_int_equal(lsim_sim_set_solver(sim, "pgs", &cfg), 0);
  LsimSolverConfig back;
  assert_int_equal(lsim_sim_solver_config(sim, &back), 0);
  assert_true(back.tol == 0.0 && back.max_iter == 50 && back.sparse_limit == 0);
  /* newton's sparse Lemke fallback: set and read back; below -1 refused, PGS kept. */
  LsimSolverConfig nc = lsim_default_solver_config();
  nc.sparse_limit = -2;
  assert_int_equal(lsim_sim_set_solver(sim, "newton", &nc), LSIM_INVALID_INPUT);
  assert_string_equal(lsim_sim_solver(sim), "pgs");
  nc.sparse_limit = -1;
  assert_int_equal(lsim_sim_set_solver(sim, "newton", &nc), 0);
  assert_int_equal(lsim_sim_solver_config(sim, &back), 0);
  assert_int_equal(back.sparse_limit, -1);
  assert_int_equal(lsim_sim_set_solver(sim, "pgs", &cfg), 0);
  const int n = lsim_sim_scene_steps(sim);
  assert_int_equal(lsim_sim_run(sim, n), 0);
  assert_int_equal(lsim_sim_steps_done(sim), n);
  LsimStepReport last;
  lsim_sim_last_step(sim, &last);
  assert_true(last.lcp_size > 0 && last.iterations == 50);
  assert_int_equal(last.status, LSIM_MAX_ITERATIONS);
  lsim_sim_free(sim);
}

/* The divergence guard: a 1 kg ball pushed by 1e6 N at h = 0.01 s moves at v_k = 1e4 k
 * m/s; step 1 reaches the default max_speed 1e4 m/s (allowed), step 2 passes it:
 * LSIM_DIVERGED, the message naming the step, the body and the speed; lsim_sim_run stops
 * there too. */
static void test_diverged(void **state) {
  (void)state;
  static const char *const text =
      "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.01, \"steps\": 10,"
      " \"bodies\": [{\"name\": \"ball\", \"mass\": 1, \"force\": [1e6, 0, 0],"
      " \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.1}]}]}";
  LsimSim *sim;
  assert_int_equal(lsim_sim_load_json(&sim, text, "push.json", NULL, 0), 0);
  assert_int_equal(lsim_sim_step(sim), LSIM_SOLVED);
  assert_int_equal(lsim_sim_step(sim), LSIM_DIVERGED);
  assert_string_equal(lsim_sim_error(sim),
                      "step 2: body 'ball': |velocity| = 2e+04 m/s, beyond limits.max_speed = 10000 m/s");
  /* The queries that inspect the failed step leave its message (lcpsim.h, lsim_sim_error). */
  LsimContactInfo ci[2];
  LsimStepReport rep;
  double f[6];
  assert_int_equal(lsim_sim_contacts(sim, ci, 2), 0); /* a lone ball: no contact */
  assert_int_equal(lsim_sim_last_step(sim, &rep), 0);
  assert_int_equal(lsim_sim_get_force(sim, 0, f), 0);
  assert_string_equal(lsim_sim_error(sim),
                      "step 2: body 'ball': |velocity| = 2e+04 m/s, beyond limits.max_speed = 10000 m/s");
  lsim_sim_free(sim);
  assert_int_equal(lsim_sim_load_json(&sim, text, "push.json", NULL, 0), 0);
  assert_int_equal(lsim_sim_run(sim, 10), LSIM_DIVERGED);
  assert_int_equal(lsim_sim_steps_done(sim), 2);
  lsim_sim_free(sim);
}

/* A standalone LCP: M = [2 1; 1 2], q = [-5; -6] has z = (4/3, 7/3), w = 0; and
 * q = [1; -1]: z = (0, 1/2), w = (3/2, 0). Lemke and PGS; bad input is refused. */
static void test_solve_lcp(void **state) {
  (void)state;
  const double M[4] = {2, 1, 1, 2};
  const double q1[2] = {-5, -6}, q2[2] = {1, -1};
  const char *names[] = {"lemke", "pgs"};
  for (int s = 0; s < 2; ++s) {
    double z[2] = {0, 0};
    LsimSolveReport r;
    assert_int_equal(lsim_solve_lcp(names[s], 2, M, q1, z, NULL, &r, NULL, 0), LSIM_SOLVED);
    assert_true(fabs(z[0] - 4.0 / 3.0) <= 1e-9 && fabs(z[1] - 7.0 / 3.0) <= 1e-9);
    assert_true(r.residual <= 1e-9);
    assert_int_equal(lsim_solve_lcp(names[s], 2, M, q2, z, NULL, &r, NULL, 0), LSIM_SOLVED);
    assert_true(fabs(z[0]) <= 1e-12 && fabs(z[1] - 0.5) <= 1e-12);
  }
  char err[256];
  double z[2];
  const double Mbad[4] = {2, NAN, 1, 2};
  assert_int_equal(lsim_solve_lcp("lemke", 2, Mbad, q1, z, NULL, NULL, err, sizeof err),
                   LSIM_INVALID_INPUT);
  assert_int_equal(lsim_solve_lcp("nope", 2, M, q1, z, NULL, NULL, err, sizeof err), LSIM_UNAVAILABLE);
  /* A compare spec is not a name: the message says where its options go. */
  assert_int_equal(lsim_solve_lcp("pgs[sweeps=20]", 2, M, q1, z, NULL, NULL, err, sizeof err),
                   LSIM_UNAVAILABLE);
  assert_non_null(strstr(err, "options in brackets are lcpsim compare's solver specs"));
  LsimSolverConfig bad = lsim_default_solver_config();
  bad.sparse_limit = -2;
  assert_int_equal(lsim_solve_lcp("newton", 2, M, q1, z, &bad, NULL, err, sizeof err),
                   LSIM_INVALID_INPUT);
  assert_non_null(strstr(err, "sparse_limit"));
}

/* A standalone frictional contact problem: one 3-D contact, W = I, q = (-1, 2, 0), mu = 0.5.
 * The contact closes (u_N = 0 gives r_N = 1) and slides along +x: sticking would need
 * |r_T| = 2 > mu r_N, so r_T = -mu r_N e_x and r = (1, -0.5, 0), unique. Our exact-cone
 * solver and Lemke on the polyhedral cone of 4 directions (which contains e_x, so the
 * sliding reaction is exact there too) both reach it; the tolerance 1e-9 is the solvers'
 * stopping tolerance, Lemke's pivots are exact to round-off. Bad input is refused. */
static void test_solve_fc(void **state) {
  (void)state;
  const double W[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  const double q[3] = {-1, 2, 0}, mu[1] = {0.5};
  const struct { const char *name; int ndir; } cases[] = {{"nsgs", 0}, {"lemke", 4}};
  for (int c = 0; c < 2; ++c) {
    double r[3] = {0, 0, 0};
    LsimFcReport rep;
    char err[256] = "";
    LsimSolverConfig cfg = lsim_default_solver_config();
    cfg.warm_start = 0;
    cfg.tol = 1e-12;
    assert_int_equal(lsim_solve_fc(cases[c].name, 3, 1, W, q, mu, cases[c].ndir, r, &cfg, &rep,
                                   err, sizeof err), LSIM_SOLVED);
    assert_true(fabs(r[0] - 1.0) <= 1e-9 && fabs(r[1] + 0.5) <= 1e-9 && fabs(r[2]) <= 1e-9);
    assert_true(rep.relative <= 1e-9 && rep.cone <= 1e-9 && rep.complementarity <= 1e-9);
  }
  double r[3];
  char err[256];
  const double mubad[1] = {-1};
  assert_int_equal(lsim_solve_fc("nsgs", 3, 1, W, q, mubad, 0, r, NULL, NULL, err, sizeof err),
                   LSIM_INVALID_INPUT);
  assert_int_equal(lsim_solve_fc("nsgs", 4, 1, W, q, mu, 0, r, NULL, NULL, err, sizeof err),
                   LSIM_INVALID_INPUT);
  /* An unknown name is refused as unknown (LSIM_UNAVAILABLE, as lsim_solve_lcp says it),
     with or without cone directions: not called "an LCP solver", which it is not. */
  for (int ndir = 0; ndir <= 4; ndir += 4) {
    assert_int_equal(lsim_solve_fc("nope", 3, 1, W, q, mu, ndir, r, NULL, NULL, err, sizeof err),
                     LSIM_UNAVAILABLE);
    assert_non_null(strstr(err, "unknown solver 'nope'"));
  }
  /* A negative number of directions is refused by every solver, exact or polyhedral. */
  assert_int_equal(lsim_solve_fc("nsgs", 3, 1, W, q, mu, -4, r, NULL, NULL, err, sizeof err),
                   LSIM_INVALID_INPUT);
  assert_non_null(strstr(err, "d=-4"));
  assert_int_equal(lsim_solve_fc("lemke", 3, 1, W, q, mu, -4, r, NULL, NULL, err, sizeof err),
                   LSIM_INVALID_INPUT);
}

/* A frictional contact file from the shared collection through the API: the exact-cone
 * solver reaches its tolerance on the measure it reports; a missing file names itself. */
static void test_solve_fc_file(void **state) {
  (void)state;
  char path[512];
  lsim_test_shared_path("data/siconos-fc3d/Capsules-i101-404.dat", path, sizeof path);
  double *r = NULL;
  int n = 0, dim = 0;
  LsimFcReport rep;
  char err[512] = "";
  LsimSolverConfig cfg = lsim_default_solver_config();
  cfg.tol = 1e-8;
  cfg.max_iter = 20000;
  const int rc = lsim_solve_fc_file("nsgs_aa", path, 0, &cfg, &r, &n, &dim, &rep, err, sizeof err);
  if (rc) fprintf(stderr, "%s\n", err);
  assert_int_equal(rc, LSIM_SOLVED);
  assert_int_equal(dim, 3);
  assert_true(r && n > 0 && n % 3 == 0);
  assert_true(rep.relative <= 1e-8);
  lsim_free(r);
  assert_int_equal(lsim_solve_fc_file("nsgs", "/nonexistent.dat", 0, NULL, &r, &n, NULL, NULL,
                                      err, sizeof err), LSIM_IO_ERROR);
  assert_null(r);
  assert_non_null(strstr(err, "/nonexistent.dat"));
  /* A frictional contact file (.dat, FCLIB HDF5) given to lsim_solve_lcp_file is named
   * for what it is (it was read as an LCP: "storage type 3 not supported", "n: not an
   * integer: '\x89HDF'"). */
  double *z = NULL;
  assert_int_equal(lsim_solve_lcp_file("lemke", path, NULL, &z, &n, NULL, err, sizeof err),
                   LSIM_INVALID_INPUT);
  assert_null(z);
  assert_non_null(strstr(err, "a frictional contact problem (Siconos .dat), not an LCP: lsim_solve_fc_file"));
  lsim_test_shared_path("data/siconos-fc3d/Box_Stacks-i0122-82-5.hdf5", path, sizeof path);
  assert_int_equal(lsim_solve_lcp_file("lemke", path, NULL, &z, &n, NULL, err, sizeof err),
                   LSIM_INVALID_INPUT);
  assert_non_null(strstr(err, "an HDF5 file, not an LCP .dat file"));
  /* ... and an LCP file given to lsim_solve_fc_file (it was read as a frictional contact
   * problem: "lcp_CPS_1.dat:1:1: dimension 2 out of range [2, 3]" for some, a size
   * error for others). */
  lsim_test_shared_path("data/siconos-lcp/lcp_CPS_1.dat", path, sizeof path);
  double *r2 = NULL;
  assert_int_equal(lsim_solve_fc_file("nsgs", path, 0, NULL, &r2, &n, NULL, NULL, err, sizeof err),
                   LSIM_INVALID_INPUT);
  assert_null(r2);
  assert_non_null(strstr(err, "lcp_CPS_1.dat: a linear complementarity problem (Siconos .dat), not a "
                              "frictional contact problem: lsim_solve_lcp_file solves it"));
}

/* A fresh temporary file for a comparison's output: its name into out[32]. */
static void compare_output(char *out) {
  snprintf(out, 32, "/tmp/lsim_test_api_cmp_XXXXXX");
  const int fd = mkstemp(out);
  assert_true(fd >= 0);
  close(fd);
}

/* A comparison through the API: two solvers on the two-block scene, shadow mode. */
static void test_compare(void **state) {
  (void)state;
  const char *in[] = {"data/two_blocks.json"};
  char out[32];
  compare_output(out);
  LsimCompareRow rows[8];
  int n = 8;
  char err[512];
  assert_int_equal(lsim_compare(in, 1, "lemke,pgs", 0, 0, out, rows, &n, err, sizeof err), 0);
  assert_int_equal(n, 4); /* lemke and pgs, cold and warm */
  for (int s = 0; s < n; ++s) {
    assert_true(rows[s].problems > 0);
    assert_int_equal(rows[s].successes, rows[s].problems);
  }
  assert_non_null(strstr(rows[0].label, "lemke"));
  remove(out);
  n = 8;
  assert_int_equal(lsim_compare(in, 1, "lemke,bogus", 0, 0, out, rows, &n, err, sizeof err),
                   LSIM_UNAVAILABLE);
  assert_non_null(strstr(err, "bogus"));
}

/* Reads the int32 [n] dataset name of the HDF5 file path into v. */
static void read_ints(const char *path, const char *name, int *v, int n) {
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  assert_true(f >= 0);
  hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  assert_true(d >= 0);
  hid_t sp = H5Dget_space(d);
  hsize_t dim = 0;
  assert_int_equal(H5Sget_simple_extent_dims(sp, &dim, NULL), 1);
  assert_int_equal(dim, n);
  assert_true(H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
  H5Sclose(sp);
  H5Dclose(d);
  H5Fclose(f);
}

/* Runs 20 steps of pile_100 on lemke_sparse with principal (LSIM_PRINCIPAL env when env is
 * not NULL), recorded to path; its q and v (nq, nv doubles) into q and v. */
static void run_principal(int principal, const char *env, const char *path, double *q, double *v) {
  if (env) setenv("LSIM_PRINCIPAL", env, 1);
  else unsetenv("LSIM_PRINCIPAL");
  LsimSim *sim;
  assert_int_equal(lsim_sim_load(&sim, "data/pile_100.json", NULL, 0), 0);
  LsimSolverConfig cfg = lsim_default_solver_config();
  cfg.principal = principal;
  assert_int_equal(lsim_sim_set_solver(sim, "lemke_sparse", &cfg), 0);
  assert_int_equal(lsim_sim_record(sim, path), 0);
  assert_int_equal(lsim_sim_run(sim, 20), 0);
  assert_int_equal(lsim_sim_record_close(sim, 1), 0);
  memcpy(q, lsim_sim_q(sim), (size_t)lsim_sim_nq(sim) * sizeof *q);
  memcpy(v, lsim_sim_v(sim), (size_t)lsim_sim_nv(sim) * sizeof *v);
  lsim_sim_free(sim);
  unsetenv("LSIM_PRINCIPAL");
}

/* The int scalar dataset name of the HDF5 file path. */
static int read_int_scalar(const char *path, const char *name) {
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  assert_true(f >= 0);
  hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  assert_true(d >= 0);
  int x = -1;
  assert_true(H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, &x) >= 0);
  H5Dclose(d);
  H5Fclose(f);
  return x;
}

/* lemke_sparse's principal pivoting phase from code (LsimSolverConfig.principal), as a
 * scene's solver.principal: 0 by default and read back as set; out of [0, 1000000] or with
 * another solver refused with the scene key's words, the solver kept. 20 steps of
 * pile_100 with principal 2000 are those of LSIM_PRINCIPAL=2000, bit for bit, and not
 * those without the phase (tests/e2e/principal.sh: steps 10-19 differ); the record says
 * /parameters/solver_principal 2000 (0 without). A standalone LCP solves with it. */
static void test_principal_config(void **state) {
  (void)state;
  assert_int_equal(lsim_default_solver_config().principal, 0);
  LsimSim *sim;
  assert_int_equal(lsim_sim_load(&sim, "data/pile_10.json", NULL, 0), 0);
  const char *const was = lsim_sim_solver(sim);
  char name[48];
  snprintf(name, sizeof name, "%s", was);
  LsimSolverConfig cfg = lsim_default_solver_config();
  cfg.principal = -1;
  assert_int_equal(lsim_sim_set_solver(sim, "lemke_sparse", &cfg), LSIM_INVALID_INPUT);
  assert_string_equal(lsim_sim_error(sim), "set_solver: principal must be an integer in [0, 1000000], got -1");
  cfg.principal = 1000001;
  assert_int_equal(lsim_sim_set_solver(sim, "lemke_sparse", &cfg), LSIM_INVALID_INPUT);
  assert_string_equal(lsim_sim_error(sim),
                      "set_solver: principal must be an integer in [0, 1000000], got 1000001");
  cfg.principal = 20;
  assert_int_equal(lsim_sim_set_solver(sim, "pgs", &cfg), LSIM_INVALID_INPUT);
  assert_string_equal(lsim_sim_error(sim), "set_solver: principal is a setting of lemke_sparse only; "
                      "the solver is pgs (choose \"lemke_sparse\", or leave principal 0)");
  assert_string_equal(lsim_sim_solver(sim), name);
  cfg.principal = 1000000;
  assert_int_equal(lsim_sim_set_solver(sim, "lemke_sparse", &cfg), 0);
  LsimSolverConfig back;
  assert_int_equal(lsim_sim_solver_config(sim, &back), 0);
  assert_int_equal(back.principal, 1000000);
  cfg.principal = 0;
  assert_int_equal(lsim_sim_set_solver(sim, "pgs", &cfg), 0);
  assert_int_equal(lsim_sim_solver_config(sim, &back), 0);
  assert_int_equal(back.principal, 0);
  lsim_sim_free(sim);

  enum { NQ = 100 * 7 + 8, NV = 100 * 6 + 8 }; /* more than pile_100 needs */
  assert_int_equal(lsim_sim_load(&sim, "data/pile_100.json", NULL, 0), 0);
  assert_true(lsim_sim_nq(sim) <= NQ && lsim_sim_nv(sim) <= NV);
  const int nq = lsim_sim_nq(sim), nv = lsim_sim_nv(sim);
  lsim_sim_free(sim);
  static double q[3][NQ], v[3][NV];
  char path[3][40];
  for (int k = 0; k < 3; ++k) {
    snprintf(path[k], sizeof path[k], "/tmp/lsim_test_api_pp_XXXXXX");
    const int fd = mkstemp(path[k]);
    assert_true(fd >= 0);
    close(fd);
  }
  run_principal(2000, NULL, path[0], q[0], v[0]);
  run_principal(0, "2000", path[1], q[1], v[1]);
  run_principal(0, NULL, path[2], q[2], v[2]);
  assert_memory_equal(q[0], q[1], (size_t)nq * sizeof **q);
  assert_memory_equal(v[0], v[1], (size_t)nv * sizeof **v);
  assert_memory_not_equal(v[0], v[2], (size_t)nv * sizeof **v);
  assert_int_equal(read_int_scalar(path[0], "/parameters/solver_principal"), 2000);
  assert_int_equal(read_int_scalar(path[1], "/parameters/solver_principal"), 2000);
  assert_int_equal(read_int_scalar(path[2], "/parameters/solver_principal"), 0);
  for (int k = 0; k < 3; ++k) remove(path[k]);

  /* A standalone LCP (test_solve_lcp's): z = (4/3, 7/3) with the phase on; pgs refuses it. */
  const double M[4] = {2, 1, 1, 2}, qq[2] = {-5, -6};
  double z[2] = {0, 0};
  char err[256];
  cfg = lsim_default_solver_config();
  cfg.principal = 50;
  assert_int_equal(lsim_solve_lcp("lemke_sparse", 2, M, qq, z, &cfg, NULL, err, sizeof err), LSIM_SOLVED);
  assert_true(fabs(z[0] - 4.0 / 3.0) <= 1e-12 && fabs(z[1] - 7.0 / 3.0) <= 1e-12); /* pivots: round-off */
  assert_int_equal(lsim_solve_lcp("pgs", 2, M, qq, z, &cfg, NULL, err, sizeof err), LSIM_INVALID_INPUT);
  assert_string_equal(err, "solver options: principal is a setting of lemke_sparse only; the solver "
                      "is pgs (choose \"lemke_sparse\", or leave principal 0)");
}

/* The string scalar dataset name of the HDF5 file path into out[len] (fixed-length or
 * variable-length string). */
static void read_string_scalar(const char *path, const char *name, char *out, size_t len) {
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  assert_true(f >= 0);
  hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  assert_true(d >= 0);
  hid_t t = H5Dget_type(d);
  out[0] = '\0';
  if (H5Tis_variable_str(t) > 0) {
    char *s = NULL;
    assert_true(H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, &s) >= 0);
    snprintf(out, len, "%s", s ? s : "");
    H5free_memory(s);
  } else {
    const size_t n = H5Tget_size(t);
    char *buf = calloc(n + 1, 1);
    assert_non_null(buf);
    assert_true(H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
    snprintf(out, len, "%s", buf);
    free(buf);
  }
  H5Tclose(t);
  H5Dclose(d);
  H5Fclose(f);
}

/* A comparison that the caller stops (lsim_compare_stoppable): the flag read before each
 * problem. Set before the call, the comparison stops before its first problem: rows of no
 * problem, the file written and marked interrupted by the signal the flag names. Left 0,
 * the rows are lsim_compare's. (The Python binding's compare() sets it on Ctrl-C, which
 * lsim_compare ignored until the whole comparison was done.) */
static void test_compare_stoppable(void **state) {
  (void)state;
  const char *in[] = {"data/two_blocks.json"};
  char out[32], err[512], word[64];
  compare_output(out);
  LsimCompareRow rows[8], all[8];
  int n = 8, m = 8;
  volatile int stop = SIGINT;
  assert_int_equal(lsim_compare_stoppable(in, 1, "lemke,pgs", 0, 0, out, rows, &n, &stop, err,
                                          sizeof err), 0);
  assert_int_equal(n, 4);
  for (int s = 0; s < n; ++s) assert_int_equal(rows[s].problems, 0);
  read_string_scalar(out, "/summary/run_end", word, sizeof word);
  assert_string_equal(word, "interrupted");
  read_string_scalar(out, "/summary/run_end_reason", word, sizeof word);
  assert_non_null(strstr(word, "SIGINT"));
  remove(out);
  stop = 0;
  assert_int_equal(lsim_compare_stoppable(in, 1, "lemke,pgs", 0, 0, out, rows, &n, &stop, err,
                                          sizeof err), 0);
  remove(out);
  assert_int_equal(lsim_compare(in, 1, "lemke,pgs", 0, 0, out, all, &m, err, sizeof err), 0);
  remove(out);
  assert_int_equal(n, m);
  for (int s = 0; s < n; ++s) {
    assert_true(rows[s].problems > 0);
    assert_int_equal(rows[s].problems, all[s].problems);
    assert_int_equal(rows[s].successes, all[s].successes);
    assert_string_equal(rows[s].label, all[s].label);
  }
}

/* The whole text of the file at path (malloc'd, NUL-terminated); its length in *len. */
static char *whole_text(const char *path, long *len) {
  FILE *fp = fopen(path, "rb");
  assert_non_null(fp);
  assert_int_equal(fseek(fp, 0, SEEK_END), 0);
  const long n = ftell(fp);
  assert_true(n > 0);
  rewind(fp);
  char *text = malloc((size_t)n + 1);
  assert_non_null(text);
  assert_int_equal(fread(text, 1, (size_t)n, fp), (size_t)n);
  text[n] = '\0';
  fclose(fp);
  *len = n;
  return text;
}

/* pile_100's scene text with its solver object's first key preceded by extra (malloc'd). */
static char *pile_100_with(const char *extra) {
  long n;
  char *text = whole_text("data/pile_100.json", &n);
  const char *const at = "\"solver\": {";
  char *p = strstr(text, at);
  assert_non_null(p);
  p += strlen(at);
  char *out = malloc((size_t)n + strlen(extra) + 1);
  assert_non_null(out);
  snprintf(out, (size_t)n + strlen(extra) + 1, "%.*s%s%s", (int)(p - text), text, extra, p);
  free(text);
  return out;
}

/* Runs 20 steps of pile_100 (pgs, tol 0, 50 sweeps) recorded to path: with the scene text
 * json (NULL: the file's) and, when cfg is not NULL, set_solver("pgs", cfg) first; env
 * LSIM_PGS_PRECISION when not NULL. Its v (nv doubles) into v. */
static void run_precision(const char *json, const LsimSolverConfig *cfg, const char *env,
                          const char *path, double *v) {
  if (env) setenv("LSIM_PGS_PRECISION", env, 1);
  else unsetenv("LSIM_PGS_PRECISION");
  LsimSim *sim;
  if (json) assert_int_equal(lsim_sim_load_json(&sim, json, "pile_100.json", NULL, 0), 0);
  else assert_int_equal(lsim_sim_load(&sim, "data/pile_100.json", NULL, 0), 0);
  if (cfg) assert_int_equal(lsim_sim_set_solver(sim, "pgs", cfg), 0);
  assert_int_equal(lsim_sim_record(sim, path), 0);
  assert_int_equal(lsim_sim_run(sim, 20), 0);
  assert_int_equal(lsim_sim_record_close(sim, 1), 0);
  memcpy(v, lsim_sim_v(sim), (size_t)lsim_sim_nv(sim) * sizeof *v);
  lsim_sim_free(sim);
  unsetenv("LSIM_PGS_PRECISION");
}

/* pgs's sweep arithmetic from code (LsimSolverConfig.precision), as a scene's
 * solver.precision: 0 (the environment's) by default and read back as set; out of 0 .. 2
 * or with another solver refused in the scene key's words, the solver kept. 20 steps of
 * pile_100 (tol 0, 50 sweeps) with LSIM_PRECISION_FLOAT from set_solver are the scene key
 * "float"'s and LSIM_PGS_PRECISION=float's, bit for bit, and not double's; the records say
 * /parameters/solver_precision "float" ("double" for LSIM_PRECISION_DOUBLE under
 * LSIM_PGS_PRECISION=float: the config wins, as the key does). A standalone LCP solves
 * with it. */
static void test_precision_config(void **state) {
  (void)state;
  assert_int_equal(lsim_default_solver_config().precision, 0);
  LsimSim *sim;
  assert_int_equal(lsim_sim_load(&sim, "data/pile_10.json", NULL, 0), 0);
  LsimSolverConfig cfg = lsim_default_solver_config();
  cfg.tol = 0;
  cfg.max_iter = 50;
  assert_int_equal(lsim_sim_set_solver(sim, "pgs", &cfg), 0);
  cfg.precision = -1;
  assert_int_equal(lsim_sim_set_solver(sim, "pgs", &cfg), LSIM_INVALID_INPUT);
  assert_string_equal(lsim_sim_error(sim), "set_solver: precision must be 0 (the environment's), "
                      "LSIM_PRECISION_DOUBLE (1) or LSIM_PRECISION_FLOAT (2), got -1");
  cfg.precision = 3;
  assert_int_equal(lsim_sim_set_solver(sim, "pgs", &cfg), LSIM_INVALID_INPUT);
  cfg.precision = LSIM_PRECISION_FLOAT;
  cfg.tol = 1e-8;
  cfg.max_iter = 0;
  assert_int_equal(lsim_sim_set_solver(sim, "lemke", &cfg), LSIM_INVALID_INPUT);
  assert_string_equal(lsim_sim_error(sim), "set_solver: precision is a setting of pgs only; the "
                      "solver is lemke (choose \"pgs\", or leave precision 0)");
  assert_string_equal(lsim_sim_solver(sim), "pgs");
  cfg.tol = 0;
  cfg.max_iter = 50;
  assert_int_equal(lsim_sim_set_solver(sim, "pgs", &cfg), 0);
  LsimSolverConfig back;
  assert_int_equal(lsim_sim_solver_config(sim, &back), 0);
  assert_int_equal(back.precision, LSIM_PRECISION_FLOAT);
  lsim_sim_free(sim);

  enum { NV = 100 * 6 + 8 }; /* more than pile_100 needs */
  assert_int_equal(lsim_sim_load(&sim, "data/pile_100.json", NULL, 0), 0);
  assert_true(lsim_sim_nv(sim) <= NV);
  const int nv = lsim_sim_nv(sim);
  lsim_sim_free(sim);
  static double v[5][NV];
  char path[5][40];
  for (int k = 0; k < 5; ++k) {
    snprintf(path[k], sizeof path[k], "/tmp/lsim_test_api_pr_XXXXXX");
    const int fd = mkstemp(path[k]);
    assert_true(fd >= 0);
    close(fd);
  }
  char *keyed = pile_100_with("\"precision\": \"float\", ");
  cfg = lsim_default_solver_config();
  cfg.tol = 0;
  cfg.max_iter = 50;
  cfg.precision = LSIM_PRECISION_FLOAT;
  run_precision(NULL, &cfg, NULL, path[0], v[0]);  /* the config */
  run_precision(keyed, NULL, NULL, path[1], v[1]); /* the scene key */
  run_precision(NULL, NULL, "float", path[2], v[2]); /* the environment */
  run_precision(NULL, NULL, NULL, path[3], v[3]);    /* double */
  cfg.precision = LSIM_PRECISION_DOUBLE;
  run_precision(NULL, &cfg, "float", path[4], v[4]); /* double over the environment */
  free(keyed);
  assert_memory_equal(v[0], v[1], (size_t)nv * sizeof **v);
  assert_memory_equal(v[0], v[2], (size_t)nv * sizeof **v);
  assert_memory_not_equal(v[0], v[3], (size_t)nv * sizeof **v);
  assert_memory_equal(v[3], v[4], (size_t)nv * sizeof **v);
  const char *const want[5] = {"float", "float", "float", "double", "double"};
  for (int k = 0; k < 5; ++k) {
    char word[16];
    read_string_scalar(path[k], "/parameters/solver_precision", word, sizeof word);
    assert_string_equal(word, want[k]);
    remove(path[k]);
  }

  /* A standalone LCP (test_solve_lcp's) takes it at a fixed budget of 50 sweeps (the budget
     ends the solve: LSIM_MAX_ITERATIONS by design): z within 1e-5 of (4/3, 7/3), float
     rounding (6e-8 relative) and the sweeps' error (each contracts it by 1/4 on this 2 x 2)
     far below; lemke refuses it. */
  const double M[4] = {2, 1, 1, 2}, qq[2] = {-5, -6};
  double z[2] = {0, 0};
  char err[256];
  cfg.precision = LSIM_PRECISION_FLOAT;
  assert_int_equal(lsim_solve_lcp("pgs", 2, M, qq, z, &cfg, NULL, err, sizeof err), LSIM_MAX_ITERATIONS);
  assert_true(fabs(z[0] - 4.0 / 3.0) <= 1e-5 && fabs(z[1] - 7.0 / 3.0) <= 1e-5);
  cfg.tol = 1e-10;
  cfg.max_iter = 0;
  assert_int_equal(lsim_solve_lcp("lemke", 2, M, qq, z, &cfg, NULL, err, sizeof err), LSIM_INVALID_INPUT);
  assert_string_equal(err, "solver options: precision is a setting of pgs only; the solver "
                      "is lemke (choose \"pgs\", or leave precision 0)");
}

/* pile_10's scene text with its solver replaced by solver (malloc'd). */
static char *pile_10_with(const char *solver) {
  long n;
  char *text = whole_text("data/pile_10.json", &n);
  const char *const at = "\"solver\": \"lemke\"";
  char *p = strstr(text, at);
  assert_non_null(p);
  const size_t size = (size_t)n + strlen(solver) + 1;
  char *out = malloc(size);
  assert_non_null(out);
  snprintf(out, size, "%.*s\"solver\": %s%s", (int)(p - text), text, solver, p + strlen(at));
  free(text);
  return out;
}

/* Runs 30 steps of pile_10 (scene text json) after set_solver(name, NULL), recorded to
 * path; its v (nv doubles) into v. */
static void run_set_solver(const char *json, const char *name, const char *path, double *v) {
  LsimSim *sim;
  assert_int_equal(lsim_sim_load_json(&sim, json, "pile_10.json", NULL, 0), 0);
  assert_int_equal(lsim_sim_set_solver(sim, name, NULL), 0);
  assert_int_equal(lsim_sim_record(sim, path), 0);
  assert_int_equal(lsim_sim_run(sim, 30), 0);
  assert_int_equal(lsim_sim_record_close(sim, 1), 0);
  memcpy(v, lsim_sim_v(sim), (size_t)lsim_sim_nv(sim) * sizeof *v);
  lsim_sim_free(sim);
}

/* lsim_sim_set_solver replaces the scene's solver settings: those of LsimSolverConfig from
 * cfg, and lemke_sparse's block_start, lu_solve and lu_refactor, which the config does not
 * hold, back to the environment's (else built in), as principal and precision are; the
 * run's on_failure stays the scene's. A scene whose solver object gives lemke_sparse's
 * block_start 4, lu_solve "own", lu_refactor 10 and on_failure "stop", set to lemke_sparse
 * (NULL: the defaults), runs 30 steps of pile_10 as the scene without those keys does, bit
 * for bit, and records /parameters/solver_block_start 0 and solver_lu_refactor 100 as it
 * (they said 4 and 10: the scene's settings were kept where the config could not show
 * them), and solver_on_failure "stop". */
static void test_set_solver_resets_scene(void **state) {
  (void)state;
  unsetenv("LSIM_BLOCK_START");
  unsetenv("LSIM_LU_SOLVE");
  unsetenv("LSIM_LU_REFACTOR");
  char *keyed = pile_10_with("{\"name\": \"lemke_sparse\", \"block_start\": 4, \"lu_solve\": "
                             "\"own\", \"lu_refactor\": 10, \"on_failure\": \"stop\"}");
  char *plain = pile_10_with("\"lemke_sparse\"");
  enum { NV = 10 * 6 + 8 }; /* more than pile_10 needs */
  LsimSim *sim;
  assert_int_equal(lsim_sim_load_json(&sim, plain, "pile_10.json", NULL, 0), 0);
  assert_true(lsim_sim_nv(sim) <= NV);
  const int nv = lsim_sim_nv(sim);
  lsim_sim_free(sim);
  static double v[2][NV];
  char path[2][40];
  for (int k = 0; k < 2; ++k) {
    snprintf(path[k], sizeof path[k], "/tmp/lsim_test_api_ss_XXXXXX");
    const int fd = mkstemp(path[k]);
    assert_true(fd >= 0);
    close(fd);
  }
  run_set_solver(keyed, "lemke_sparse", path[0], v[0]);
  run_set_solver(plain, "lemke_sparse", path[1], v[1]);
  assert_memory_equal(v[0], v[1], (size_t)nv * sizeof **v);
  assert_int_equal(read_int_scalar(path[0], "/parameters/solver_block_start"), 0);
  assert_int_equal(read_int_scalar(path[0], "/parameters/solver_lu_refactor"),
                   read_int_scalar(path[1], "/parameters/solver_lu_refactor"));
  char a[32], b[32];
  read_string_scalar(path[0], "/parameters/solver_lu_solve", a, sizeof a);
  read_string_scalar(path[1], "/parameters/solver_lu_solve", b, sizeof b);
  assert_string_equal(a, b);
  read_string_scalar(path[0], "/parameters/solver_on_failure", a, sizeof a);
  assert_string_equal(a, "stop");
  read_string_scalar(path[1], "/parameters/solver_on_failure", a, sizeof a);
  assert_string_equal(a, "fallback");
  for (int k = 0; k < 2; ++k) remove(path[k]);
  /* Without set_solver the scene's keys are in effect (the test sees them). */
  assert_int_equal(lsim_sim_load_json(&sim, keyed, "pile_10.json", NULL, 0), 0);
  assert_int_equal(lsim_sim_record(sim, path[0]), 0);
  assert_int_equal(lsim_sim_record_close(sim, 1), 0);
  lsim_sim_free(sim);
  assert_int_equal(read_int_scalar(path[0], "/parameters/solver_block_start"), 4);
  assert_int_equal(read_int_scalar(path[0], "/parameters/solver_lu_refactor"), 10);
  remove(path[0]);
  free(keyed);
  free(plain);
}

/* The rows' budget stops and missed tolerances are the comparison file's summary
 * (/summary/budget_stops, /summary/missed_tolerance, as `lcpsim compare` prints them):
 * on 40 steps of pile_10, pgs[sweeps=3] stops at its budget and pgs[tol=1e-3] finishes
 * above the 1e-6 success tolerance, on most steps; lemke does neither. Every problem is
 * in one count at least (a budget stop that reached the tolerance is a success too). */
static void test_compare_counts(void **state) {
  (void)state;
  const char *in[] = {"data/pile_10.json"};
  char out[32];
  compare_output(out);
  LsimCompareRow rows[8];
  int n = 8;
  char err[512];
  assert_int_equal(lsim_compare(in, 1, "lemke,pgs[sweeps=3],pgs[tol=1e-3]", 0, 40, out, rows, &n,
                                err, sizeof err), 0);
  assert_int_equal(n, 6); /* each solver cold and warm */
  int problems[6], successes[6], failures[6], budget[6], missed[6];
  read_ints(out, "/summary/problems", problems, 6);
  read_ints(out, "/summary/successes", successes, 6);
  read_ints(out, "/summary/failures", failures, 6);
  read_ints(out, "/summary/budget_stops", budget, 6);
  read_ints(out, "/summary/missed_tolerance", missed, 6);
  for (int s = 0; s < 6; ++s) {
    assert_int_equal(rows[s].problems, problems[s]);
    assert_int_equal(rows[s].successes, successes[s]);
    assert_int_equal(rows[s].failures, failures[s]);
    assert_int_equal(rows[s].budget_stops, budget[s]);
    assert_int_equal(rows[s].missed, missed[s]);
    assert_true(rows[s].problems > 0);
    assert_true(rows[s].successes + rows[s].missed + rows[s].failures + rows[s].budget_stops >=
                rows[s].problems);
    assert_true(rows[s].successes + rows[s].missed + rows[s].failures <= rows[s].problems);
  }
  for (int s = 0; s < 2; ++s) { /* lemke */
    assert_int_equal(rows[s].budget_stops, 0);
    assert_int_equal(rows[s].missed, 0);
  }
  for (int s = 2; s < 4; ++s) { /* pgs[sweeps=3]: a fixed budget, never "solved" above tol */
    assert_non_null(strstr(rows[s].label, "sweeps=3"));
    assert_true(rows[s].budget_stops > rows[s].problems / 2);
    assert_int_equal(rows[s].missed, 0);
  }
  for (int s = 4; s < 6; ++s) { /* pgs[tol=1e-3]: solved by its own test, above 1e-6 */
    assert_non_null(strstr(rows[s].label, "tol=1e-3"));
    assert_true(rows[s].missed > 0);
    assert_int_equal(rows[s].budget_stops, 0);
  }
  remove(out);
}

/* A scratch folder for files a test makes: mkdtemp into dir. */
static void scratch_dir(char *dir, size_t len) {
  snprintf(dir, len, "/tmp/lsim_test_api_dir_XXXXXX");
  assert_non_null(mkdtemp(dir));
}

/* Copies the file from into to; 0 or -1. */
static int copy_file(const char *from, const char *to) {
  FILE *a = fopen(from, "rb"), *b = a ? fopen(to, "wb") : NULL;
  char buf[4096];
  size_t n;
  int rc = a && b ? 0 : -1;
  while (!rc && (n = fread(buf, 1, sizeof buf, a)) > 0)
    if (fwrite(buf, 1, n, b) != n) rc = -1;
  if (a) fclose(a);
  if (b && fclose(b)) rc = -1;
  return rc;
}

/* 1 if the two files have the same bytes. */
static int same_bytes(const char *p, const char *q) {
  FILE *a = fopen(p, "rb"), *b = fopen(q, "rb");
  int same = a && b;
  while (same) {
    const int x = fgetc(a), y = fgetc(b);
    if (x != y) same = 0;
    if (x == EOF) break;
  }
  if (a) fclose(a);
  if (b) fclose(b);
  return same;
}

/* The number of entries of dir (. and .. not counted). */
static int count_entries(const char *dir) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
  FILE *p = popen(cmd, "r");
  int n = -1;
  if (p && fscanf(p, "%d", &n) != 1) n = -1;
  if (p) pclose(p);
  return n;
}

/* Removes dir and what it holds. */
static void remove_dir(const char *dir) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  assert_int_equal(system(cmd), 0);
}

/* A record onto the scene file the simulation was loaded from, by its name or through a
 * link, is refused (LSIM_INVALID_INPUT, both paths named) and the scene stays as it was,
 * no partial file left; a record elsewhere still works, and a simulation loaded from a
 * text has no scene file to protect. */
static void test_record_onto_scene(void **state) {
  (void)state;
  char dir[64], scene[128], orig[128], link_[128], other[128], msg[1024];
  scratch_dir(dir, sizeof dir);
  snprintf(scene, sizeof scene, "%s/scene.json", dir);
  snprintf(orig, sizeof orig, "%s/scene.orig", dir);
  snprintf(link_, sizeof link_, "%s/link.h5", dir);
  snprintf(other, sizeof other, "%s/run.h5", dir);
  assert_int_equal(copy_file("data/two_blocks.json", scene), 0);
  assert_int_equal(copy_file(scene, orig), 0);
  assert_int_equal(symlink("scene.json", link_), 0);
  LsimSim *sim;
  assert_int_equal(lsim_sim_load(&sim, scene, NULL, 0), 0);
  assert_int_equal(lsim_sim_record(sim, scene), LSIM_INVALID_INPUT);
  snprintf(msg, sizeof msg, "%s", lsim_sim_error(sim));
  assert_non_null(strstr(msg, "output /tmp/lsim_test_api_dir_"));
  assert_non_null(strstr(msg, "is the scene file"));
  assert_non_null(strstr(msg, "scene.json: refused"));
  assert_int_equal(lsim_sim_record(sim, link_), LSIM_INVALID_INPUT);
  assert_non_null(strstr(lsim_sim_error(sim), "link.h5"));
  assert_non_null(strstr(lsim_sim_error(sim), "scene.json"));
  assert_int_equal(lsim_sim_record(sim, ""), LSIM_INVALID_INPUT);
  /* Stepping on with no record open, then freeing: nothing written. */
  assert_int_equal(lsim_sim_run(sim, 3), 0);
  assert_int_equal(lsim_sim_record_close(sim, 1), LSIM_INVALID_INPUT);
  lsim_sim_free(sim);
  assert_true(same_bytes(scene, orig));
  assert_int_equal(count_entries(dir), 3); /* scene.json, scene.orig, link.h5 */
  assert_int_equal(lsim_sim_load(&sim, scene, NULL, 0), 0); /* still a scene */
  assert_int_equal(lsim_sim_record(sim, other), 0);
  assert_int_equal(lsim_sim_run(sim, 2), 0);
  assert_int_equal(lsim_sim_record_close(sim, 1), 0);
  lsim_sim_free(sim);
  /* From a text: no scene file, so the same name is only an output. */
  FILE *f = fopen(scene, "rb");
  assert_non_null(f);
  static char text[65536];
  const size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  assert_int_equal(lsim_sim_load_json(&sim, text, "scene.json", NULL, 0), 0);
  assert_int_equal(lsim_sim_record(sim, other), 0);
  assert_int_equal(lsim_sim_record_close(sim, 0), 0);
  lsim_sim_free(sim);
  remove_dir(dir);
}

/* Two simulations of one process recording to one path: the second record is refused
 * (LSIM_INVALID_INPUT, the message naming the path and the other simulation), under any
 * name of the path (here through "/./"), since its close would replace the first's file;
 * a checkpoint onto another simulation's open record is refused likewise. The path is free
 * again once the first record closes (its file whole, no partial file left). */
static void test_record_path_shared(void **state) {
  (void)state;
  char dir[64], path[128], alias[128];
  scratch_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/same.h5", dir);
  snprintf(alias, sizeof alias, "%s/./same.h5", dir);
  LsimSim *a, *b;
  assert_int_equal(lsim_sim_load(&a, "data/two_blocks.json", NULL, 0), 0);
  assert_int_equal(lsim_sim_load(&b, "data/two_blocks.json", NULL, 0), 0);
  assert_int_equal(lsim_sim_record(a, path), 0);
  assert_int_equal(lsim_sim_record(b, alias), LSIM_INVALID_INPUT);
  assert_non_null(strstr(lsim_sim_error(b), alias));
  assert_non_null(strstr(lsim_sim_error(b), "another simulation in this process is recording to it"));
  assert_int_equal(lsim_sim_save(b, path), LSIM_INVALID_INPUT);
  assert_non_null(strstr(lsim_sim_error(b), path));
  assert_non_null(strstr(lsim_sim_error(b), "another simulation in this process is recording to it"));
  /* b has no record open: its steps go nowhere, a's 5 steps to the file. */
  assert_int_equal(lsim_sim_record_close(b, 1), LSIM_INVALID_INPUT);
  assert_int_equal(lsim_sim_run(a, 5), 0);
  assert_int_equal(lsim_sim_run(b, 7), 0);
  assert_int_equal(lsim_sim_record_close(a, 1), 0);
  assert_int_equal(access(path, F_OK), 0);
  assert_int_equal(count_entries(dir), 1); /* same.h5, no partial file */
  /* Closed: the path is free for b, and a's checkpoint onto b's open record is refused. */
  assert_int_equal(lsim_sim_record(b, path), 0);
  assert_int_equal(lsim_sim_save(a, alias), LSIM_INVALID_INPUT);
  assert_non_null(strstr(lsim_sim_error(a), "another simulation in this process is recording to it"));
  /* Freeing b closes its record and frees the path. */
  lsim_sim_free(b);
  assert_int_equal(lsim_sim_record(a, path), 0);
  assert_int_equal(lsim_sim_record_close(a, 0), 0);
  lsim_sim_free(a);
  remove_dir(dir);
}

/* A Siconos frictional contact solver prints nothing to the process's stdout or stderr:
 * fc3d_tfp on W = diag(-1, 1, 1) prints a "[Numerics][warning]" line per iteration and
 * fc3d_nsgs on it fails an assertion (glibc prints it before the abort the library
 * traps); both go to the capture the LCP adapter uses. fds 1 and 2 are pointed at a file
 * around the calls, which must stay empty; the statuses are those the solvers report.
 * What they printed is in their failure messages (as an LCP solver's is), bounded: the
 * first lines, at most 1023 bytes of them with " ..." when cut short. */
static void test_fc_siconos_quiet(void **state) {
  (void)state;
  char path[] = "/tmp/lsim_test_api_fc_out_XXXXXX";
  const int fd = mkstemp(path);
  assert_true(fd >= 0);
  unlink(path);
  fflush(stdout);
  fflush(stderr);
  const int saved1 = dup(1), saved2 = dup(2);
  assert_true(saved1 >= 0 && saved2 >= 0);
  assert_true(dup2(fd, 1) >= 0 && dup2(fd, 2) >= 0);
  const double W[9] = {-1, 0, 0, 0, 1, 0, 0, 0, 1};
  const double q[3] = {-1, 0.3, 0}, mu[1] = {0.5};
  double r[3] = {0, 0, 0};
  char err[2048] = "", tfp_err[2048] = "";
  const int tfp = lsim_solve_fc("siconos:fc3d_tfp", 3, 1, W, q, mu, 0, r, NULL, NULL, tfp_err,
                                sizeof tfp_err);
  double r2[3] = {0, 0, 0};
  const int nsgs = lsim_solve_fc("siconos:fc3d_nsgs", 3, 1, W, q, mu, 0, r2, NULL, NULL, err, sizeof err);
  fflush(stdout);
  fflush(stderr);
  dup2(saved1, 1), dup2(saved2, 2);
  close(saved1), close(saved2);
  const off_t printed = lseek(fd, 0, SEEK_END);
  close(fd);
  assert_int_equal(tfp, LSIM_MAX_ITERATIONS);
  assert_int_equal(nsgs, LSIM_SOLVER_FAILED);
  assert_non_null(strstr(err, "aborted inside Siconos"));
  assert_int_equal(printed, 0);
  /* The assertion's text follows the abort's message; tfp's warnings follow its info,
     the first of its 400 lines only (" ..." at the end: cut short at 1023 bytes). */
  const char *said = strstr(err, "aborted inside Siconos (an internal assertion failed); printed: ");
  assert_non_null(said);
  assert_non_null(strstr(said, "Assertion"));
  said = strstr(tfp_err, "siconos info 1; printed: [Numerics][warning]");
  assert_non_null(said);
  const size_t len = strlen(said + strlen("siconos info 1; printed: "));
  assert_true(len <= 1023 && len > 900);
  assert_string_equal(tfp_err + strlen(tfp_err) - 4, " ...");
}

/* A comparison whose output is one of its inputs (a scene, a .dat file; by its name or
 * through a link) is refused before anything is read or written: LSIM_INVALID_INPUT, the
 * message naming the argument "output" (no command flag) and both paths, the input
 * untouched and no file left. */
static void test_compare_output_is_input(void **state) {
  (void)state;
  char dir[64], scene[128], orig[128], link_[128], dat[128], dat_orig[128], err[1024];
  scratch_dir(dir, sizeof dir);
  snprintf(scene, sizeof scene, "%s/scene.json", dir);
  snprintf(orig, sizeof orig, "%s/scene.orig", dir);
  snprintf(link_, sizeof link_, "%s/link.h5", dir);
  snprintf(dat, sizeof dat, "%s/p.dat", dir);
  snprintf(dat_orig, sizeof dat_orig, "%s/p.orig", dir);
  assert_int_equal(copy_file("data/two_blocks.json", scene), 0);
  assert_int_equal(copy_file(scene, orig), 0);
  assert_int_equal(copy_file("tests/data/lemke_pile10_step19.dat", dat), 0);
  assert_int_equal(copy_file(dat, dat_orig), 0);
  assert_int_equal(symlink("scene.json", link_), 0);
  LsimCompareRow rows[8];
  int n = 8;
  const char *in[] = {scene};
  assert_int_equal(lsim_compare(in, 1, "lemke", 0, 0, scene, rows, &n, err, sizeof err),
                   LSIM_INVALID_INPUT);
  char want[512];
  snprintf(want, sizeof want, "output %s: is the input file %s: refused", scene, scene);
  assert_non_null(strstr(err, want));
  assert_null(strstr(err, "-o"));
  assert_int_equal(n, 8); /* rows untouched */
  assert_int_equal(lsim_compare(in, 1, "lemke", 1, 0, link_, rows, &n, err, sizeof err),
                   LSIM_INVALID_INPUT);
  assert_non_null(strstr(err, "link.h5"));
  const char *dats[] = {dat};
  assert_int_equal(lsim_compare(dats, 1, "lemke", 0, 0, dat, rows, &n, err, sizeof err),
                   LSIM_INVALID_INPUT);
  assert_non_null(strstr(err, "p.dat: is the input file"));
  assert_true(same_bytes(scene, orig));
  assert_true(same_bytes(dat, dat_orig));
  assert_int_equal(count_entries(dir), 5);
  remove_dir(dir);
}

/* lsim_compare's statuses are those of the header (a missing input: LSIM_IO_ERROR; an
 * unknown solver: LSIM_UNAVAILABLE; a malformed list: LSIM_INVALID_INPUT), and its
 * messages name the thing (the file, the solver, the argument "solvers"), never a flag
 * of the command. */
static void test_compare_errors(void **state) {
  (void)state;
  LsimCompareRow rows[8];
  int n = 8;
  char err[1024];
  const char *missing[] = {"/nonexistent/scene.json"};
  assert_int_equal(lsim_compare(missing, 1, "lemke", 0, 0, "/tmp/x_never.h5", rows, &n, err,
                                sizeof err), LSIM_IO_ERROR);
  assert_non_null(strstr(err, "/nonexistent/scene.json"));
  const char *missing_dat[] = {"/nonexistent/p.dat"};
  assert_int_equal(lsim_compare(missing_dat, 1, "lemke", 0, 0, "/tmp/x_never.h5", rows, &n,
                                err, sizeof err), LSIM_IO_ERROR);
  assert_non_null(strstr(err, "/nonexistent/p.dat"));
  const char *in[] = {"data/two_blocks.json"};
  assert_int_equal(lsim_compare(in, 1, "nosuch", 0, 0, "/tmp/x_never.h5", rows, &n, err,
                                sizeof err), LSIM_UNAVAILABLE);
  assert_non_null(strstr(err, "'nosuch'"));
  assert_null(strstr(err, "--"));
  assert_int_equal(lsim_compare(in, 1, "lemke[bogus=1]", 0, 0, "/tmp/x_never.h5", rows, &n,
                                err, sizeof err), LSIM_INVALID_INPUT);
  assert_non_null(strstr(err, "compare: solvers: "));
  assert_null(strstr(err, "--"));
  assert_int_equal(lsim_compare(in, 1, "lemke", 0, 0, "", rows, &n, err, sizeof err),
                   LSIM_INVALID_INPUT);
  assert_non_null(strstr(err, "output: the output file name is empty"));
  const char *dats[] = {"tests/data/lemke_pile10_step19.dat"};
  assert_int_equal(lsim_compare(dats, 1, "lemke", 1, 0, "/tmp/x_never.h5", rows, &n, err,
                                sizeof err), LSIM_INVALID_INPUT);
  assert_non_null(strstr(err, "independent mode needs a scene"));
  assert_null(strstr(err, "--"));
  /* A NULL among the inputs is refused by its index (it reached stat(NULL): a segfault). */
  const char *holes[] = {"data/two_blocks.json", NULL};
  assert_int_equal(lsim_compare(holes, 2, "lemke", 0, 0, "/tmp/x_never.h5", rows, &n, err,
                                sizeof err), LSIM_INVALID_INPUT);
  assert_non_null(strstr(err, "compare: inputs[1] is NULL"));
  assert_int_equal(lsim_compare(holes + 1, 1, "lemke", 0, 0, "/tmp/x_never.h5", rows, &n, err,
                                sizeof err), LSIM_INVALID_INPUT);
  assert_non_null(strstr(err, "compare: inputs[0] is NULL"));
  /* A negative step count is refused (it ran the scene's steps, as 0 does). */
  assert_int_equal(lsim_compare(in, 1, "lemke", 0, -3, "/tmp/x_never.h5", rows, &n, err,
                                sizeof err), LSIM_INVALID_INPUT);
  assert_non_null(strstr(err, "compare: steps must be >= 0 (0: the scene's), got -3"));
  /* rows NULL with room claimed (*nrows 4), or a negative *nrows, is refused before the
   * comparison runs (it ran and returned 0, the rows nowhere); rows NULL with *nrows 0
   * counts the series without a row. */
  int four = 4, neg = -3;
  assert_int_equal(lsim_compare(in, 1, "lemke", 0, 0, "/tmp/x_never.h5", NULL, &four, err,
                                sizeof err), LSIM_INVALID_INPUT);
  assert_non_null(strstr(err, "compare: rows is NULL (*nrows 4)"));
  assert_int_equal(lsim_compare(in, 1, "lemke", 0, 0, "/tmp/x_never.h5", rows, &neg, err,
                                sizeof err), LSIM_INVALID_INPUT);
  assert_non_null(strstr(err, "compare: *nrows (the capacity of rows) must be >= 0, got -3"));
  assert_int_equal(access("/tmp/x_never.h5", F_OK), -1);
}

/* A start that fails once the state is made (a tether stretched at start) leaves the world
 * not started: q and v NULL, nq and nv 0, the builder still open; a second start fails the
 * same way without leaking the first one's state (the sanitizer build checks), and the
 * simulation frees cleanly. */
static void test_start_fails(void **state) {
  (void)state;
  LsimSim *sim;
  char err[256];
  assert_int_equal(lsim_sim_create(&sim, 2, 0.01, err, sizeof err), 0);
  LsimBodyDef d = lsim_default_body_def();
  d.name = "ball", d.position[1] = 0.5;
  const int ball = lsim_sim_add_body(sim, &d);
  LsimShapeDef s = lsim_default_shape_def();
  assert_true(lsim_sim_add_shape(sim, ball, &s) >= 0);
  LsimJointDef j;
  memset(&j, 0, sizeof j);
  j.type = LSIM_TETHER, j.body[0] = ball, j.body[1] = -1, j.length = 0.1;
  j.point[1][1] = 5.0; /* 4.5 m away */
  assert_true(lsim_sim_add_joint(sim, &j) >= 0);
  for (int attempt = 0; attempt < 2; ++attempt) {
    assert_int_equal(lsim_sim_start(sim), LSIM_INVALID_INPUT);
    assert_non_null(strstr(lsim_sim_error(sim), "starts stretched"));
    assert_null(lsim_sim_q(sim));
    assert_null(lsim_sim_v(sim));
    assert_int_equal(lsim_sim_nq(sim), 0);
    assert_int_equal(lsim_sim_nv(sim), 0);
    assert_int_equal(lsim_sim_step(sim), LSIM_INVALID_INPUT);
    /* Still building: another body is accepted. */
    d = lsim_default_body_def();
    d.position[0] = 3.0 + attempt;
    assert_true(lsim_sim_add_body(sim, &d) >= 0);
  }
  lsim_sim_free(sim);
}

/* LsimJointDef.no_collide: two disks (r 0.5) 0.5 m apart, so they overlap by 0.5 m,
 * pinned at (0.25, 0.6), outside both. With no_collide = 0 (zeroed def, the default) the
 * start refuses the overlap as a scene would; with 1 the pair has no contacts: the start
 * accepts it and a step has the pin's two rows alone. Pinned at their midpoint (0.25, 0),
 * inside both disks, they have no contacts with no_collide = 0 either (their contact could
 * never open: lsim_shapes_collide). A tether takes no no_collide. */
static void test_joint_no_collide(void **state) {
  (void)state;
  for (int v = 0; v < 3; ++v) {
    const int off = v == 1, inside = v == 2;
    LsimSim *sim;
    char err[256];
    assert_int_equal(lsim_sim_create(&sim, 2, 0.01, err, sizeof err), 0);
    LsimBodyDef d = lsim_default_body_def();
    LsimShapeDef s = lsim_default_shape_def();
    d.name = "a";
    const int a = lsim_sim_add_body(sim, &d);
    assert_true(lsim_sim_add_shape(sim, a, &s) >= 0);
    d.name = "b", d.position[0] = 0.5;
    const int b = lsim_sim_add_body(sim, &d);
    assert_true(lsim_sim_add_shape(sim, b, &s) >= 0);
    LsimJointDef j;
    memset(&j, 0, sizeof j);
    j.type = LSIM_TETHER, j.body[0] = a, j.body[1] = b, j.length = 1.0, j.no_collide = 1;
    assert_int_equal(lsim_sim_add_joint(sim, &j), LSIM_INVALID_INPUT);
    assert_non_null(strstr(lsim_sim_error(sim), "no_collide applies to pins and rods"));
    j.type = LSIM_PIN, j.length = 0.0, j.no_collide = off;
    j.point[0][0] = 0.25, j.point[1][0] = -0.25;
    j.point[0][1] = j.point[1][1] = inside ? 0.0 : 0.6;
    assert_int_equal(lsim_sim_add_joint(sim, &j), 0);
    if (!off && !inside) {
      assert_int_equal(lsim_sim_start(sim), LSIM_INVALID_INPUT);
      assert_non_null(strstr(lsim_sim_error(sim), "overlaps"));
    } else {
      assert_int_equal(lsim_sim_start(sim), 0);
      assert_int_equal(lsim_sim_step(sim), 0);
      LsimContactInfo c[8];
      const int n = lsim_sim_contacts(sim, c, 8);
      assert_int_equal(n, 2); /* the pin's x and y rows, nothing else */
      for (int k = 0; k < n; ++k) assert_int_equal(c[k].kind, LSIM_CONTACT_EQUALITY);
    }
    lsim_sim_free(sim);
  }
}

/* A world in code: a 2-D disk dropped on a plane comes to rest on it (gap 0 to the
 * solver's tolerance) with the contact carrying m g h per step. */
static void test_build(void **state) {
  (void)state;
  LsimSim *sim;
  char err[256];
  assert_int_equal(lsim_sim_create(&sim, 4, 0.01, err, sizeof err), LSIM_INVALID_INPUT);
  assert_int_equal(lsim_sim_create(&sim, 2, 0.01, err, sizeof err), 0);
  const double g[2] = {0.0, -9.81};
  assert_int_equal(lsim_sim_set_gravity(sim, g), 0);
  assert_int_equal(lsim_sim_step(sim), LSIM_INVALID_INPUT); /* not started */
  LsimBodyDef d = lsim_default_body_def();
  d.name = "floor", d.type = LSIM_STATIC;
  const int floor_ = lsim_sim_add_body(sim, &d);
  LsimShapeDef s = lsim_default_shape_def();
  s.type = LSIM_PLANE;
  assert_int_equal(lsim_sim_add_shape(sim, floor_, &s), 0);
  d = lsim_default_body_def();
  d.name = "disk", d.mass = 2.0, d.inertia[2] = 0.25, d.position[1] = 0.6;
  const int disk = lsim_sim_add_body(sim, &d);
  assert_int_equal(lsim_sim_add_body(sim, &d), LSIM_INVALID_INPUT); /* name taken */
  s.type = LSIM_SPHERE, s.radius = 0.5;
  assert_true(lsim_sim_add_shape(sim, disk, &s) >= 0);
  s.type = LSIM_PLANE;
  assert_int_equal(lsim_sim_add_shape(sim, disk, &s), LSIM_INVALID_INPUT); /* planes: static */
  assert_int_equal(lsim_sim_start(sim), 0);
  assert_int_equal(lsim_sim_nq(sim), 3);
  assert_int_equal(lsim_sim_run(sim, 200), 0);
  LsimBodyInfo b;
  lsim_sim_body(sim, disk, &b);
  assert_true(fabs(lsim_sim_q(sim)[b.q_offset + 1] - 0.5) <= 1e-9);
  LsimContactInfo c[4];
  const int n = lsim_sim_contacts(sim, c, 4);
  double p = 0.0;
  for (int k = 0; k < n; ++k) p += c[k].normal_impulse;
  assert_true(fabs(p - 2.0 * 9.81 * 0.01) <= 1e-9);
  lsim_sim_free(sim);
}

/* Every status code of the header has its own name (none falls to "unknown_status"). */
static void test_status_names(void **state) {
  (void)state;
  const int codes[] = {LSIM_SOLVED,          LSIM_MAX_ITERATIONS, LSIM_SECONDARY_RAY,
                       LSIM_BREAKDOWN,       LSIM_BAD_DIAGONAL,   LSIM_SOLVER_FAILED,
                       LSIM_INVALID_INPUT,   LSIM_OUT_OF_MEMORY,  LSIM_UNAVAILABLE,
                       LSIM_IO_ERROR,        LSIM_WARM_START_REJECTED,
                       LSIM_CONTROLLER_STOPPED, LSIM_DIVERGED};
  const int n = (int)(sizeof codes / sizeof *codes);
  for (int i = 0; i < n; ++i) {
    assert_string_not_equal(lsim_status_name(codes[i]), "unknown_status");
    for (int j = 0; j < i; ++j)
      assert_string_not_equal(lsim_status_name(codes[i]), lsim_status_name(codes[j]));
  }
  assert_string_equal(lsim_status_name(LSIM_CONTROLLER_STOPPED), "controller_stopped");
  assert_string_equal(lsim_status_name(LSIM_DIVERGED), "diverged");
  assert_string_equal(lsim_status_name(12345), "unknown_status");
}

/* A NULL simulation: every function refuses it as the header says (a status function
 * LSIM_INVALID_INPUT, a query 0 or NULL), none crashes. */
static void test_null_sim(void **state) {
  (void)state;
  const double x[6] = {0};
  double y[6], p[3], quat[4];
  LsimBodyInfo bi;
  LsimStepReport sr;
  LsimSolverConfig cfg;
  LsimContactInfo c[2];
  LsimBodyDef bd = lsim_default_body_def();
  LsimShapeDef sd = lsim_default_shape_def();
  LsimJointDef jd;
  memset(&jd, 0, sizeof jd);
  assert_int_equal(lsim_sim_set_gravity(NULL, x), LSIM_INVALID_INPUT);
  assert_int_equal(lsim_sim_add_body(NULL, &bd), LSIM_INVALID_INPUT);
  assert_int_equal(lsim_sim_add_shape(NULL, 0, &sd), LSIM_INVALID_INPUT);
  assert_int_equal(lsim_sim_add_joint(NULL, &jd), LSIM_INVALID_INPUT);
  assert_int_equal(lsim_sim_start(NULL), LSIM_INVALID_INPUT);
  assert_int_equal(lsim_sim_dimension(NULL), 0);
  assert_true(lsim_sim_time_step(NULL) == 0.0);
  assert_int_equal(lsim_sim_scene_steps(NULL), 0);
  assert_int_equal(lsim_sim_body_count(NULL), 0);
  assert_int_equal(lsim_sim_body(NULL, 0, &bi), LSIM_INVALID_INPUT);
  assert_int_equal(lsim_sim_body_index(NULL, "a"), -1);
  assert_true(lsim_sim_time(NULL) == 0.0);
  assert_int_equal(lsim_sim_steps_done(NULL), 0);
  assert_int_equal(lsim_sim_nq(NULL), 0);
  assert_int_equal(lsim_sim_nv(NULL), 0);
  assert_null(lsim_sim_q(NULL));
  assert_null(lsim_sim_v(NULL));
  assert_true(lsim_sim_kinetic_energy(NULL) == 0.0);
  assert_true(lsim_sim_potential_energy(NULL) == 0.0);
  assert_int_equal(lsim_sim_body_pose(NULL, 0, p, quat), LSIM_INVALID_INPUT);
  assert_int_equal(lsim_sim_set_force(NULL, 0, x), LSIM_INVALID_INPUT);
  assert_int_equal(lsim_sim_get_force(NULL, 0, y), LSIM_INVALID_INPUT);
  assert_int_equal(lsim_sim_set_kinematic_velocity(NULL, 0, x), LSIM_INVALID_INPUT);
  lsim_sim_set_controller(NULL, NULL, NULL);
  assert_int_equal(lsim_sim_step(NULL), LSIM_INVALID_INPUT);
  assert_int_equal(lsim_sim_run(NULL, 3), LSIM_INVALID_INPUT);
  assert_int_equal(lsim_sim_last_step(NULL, &sr), LSIM_INVALID_INPUT);
  assert_int_equal(lsim_sim_set_solver(NULL, "pgs", NULL), LSIM_INVALID_INPUT);
  assert_null(lsim_sim_solver(NULL));
  assert_int_equal(lsim_sim_solver_config(NULL, &cfg), LSIM_INVALID_INPUT);
  assert_int_equal(lsim_sim_contact_count(NULL), 0);
  assert_int_equal(lsim_sim_contacts(NULL, c, 2), 0);
  assert_int_equal(lsim_sim_record(NULL, "/tmp/x.h5"), LSIM_INVALID_INPUT);
  assert_int_equal(lsim_sim_record_close(NULL, 1), LSIM_INVALID_INPUT);
  assert_string_equal(lsim_sim_error(NULL), "sim is NULL");
  lsim_sim_free(NULL);
}

/* A bad body index: every getter and setter that takes one says which index and the valid
 * range in lsim_sim_error (not an empty message). */
/* lsim_sim_add_shape returns the shape's index among its body's shapes (the j of its
 * default name "shape<j>"): shapes of two bodies added in turn. It returned the index in
 * the world's list so far (0, 1, 2, 3, 4), which the start reorders by body (a's three
 * shapes, then b's two), so 1, 2 and 3 named other shapes of the started world. */
static void test_shape_index_per_body(void **state) {
  (void)state;
  LsimSim *sim;
  char err[256];
  assert_int_equal(lsim_sim_create(&sim, 2, 0.01, err, sizeof err), 0);
  LsimBodyDef d = lsim_default_body_def();
  d.inertia[2] = 0.1;
  d.position[1] = 5.0;
  const int a = lsim_sim_add_body(sim, &d);
  d.position[0] = 3.0;
  const int b = lsim_sim_add_body(sim, &d);
  LsimShapeDef s = lsim_default_shape_def();
  s.radius = 0.1;
  assert_int_equal(lsim_sim_add_shape(sim, a, &s), 0);
  assert_int_equal(lsim_sim_add_shape(sim, b, &s), 0);
  s.type = LSIM_BOX;
  s.radius = 0.0;
  s.half[0] = s.half[1] = 0.2;
  assert_int_equal(lsim_sim_add_shape(sim, a, &s), 1);
  assert_int_equal(lsim_sim_add_shape(sim, b, &s), 1);
  assert_int_equal(lsim_sim_add_shape(sim, a, &s), 2);
  assert_string_equal(lsim_sim_error(sim), "");
  assert_int_equal(lsim_sim_start(sim), 0);
  lsim_sim_free(sim);
}

static void test_bad_body_index(void **state) {
  (void)state;
  LsimSim *sim;
  char err[256];
  assert_int_equal(lsim_sim_load(&sim, "data/two_blocks.json", err, sizeof err), 0);
  const int n = lsim_sim_body_count(sim);
  char range[64];
  snprintf(range, sizeof range, "0 .. %d", n - 1);
  double f[6] = {0}, p[3], quat[4];
  LsimBodyInfo bi;
  assert_int_equal(lsim_sim_get_force(sim, 5, f), LSIM_INVALID_INPUT);
  assert_non_null(strstr(lsim_sim_error(sim), "get_force: no body 5"));
  assert_non_null(strstr(lsim_sim_error(sim), range));
  assert_int_equal(lsim_sim_body(sim, -1, &bi), LSIM_INVALID_INPUT);
  assert_non_null(strstr(lsim_sim_error(sim), "body: no body -1"));
  assert_non_null(strstr(lsim_sim_error(sim), range));
  assert_int_equal(lsim_sim_body_pose(sim, n, p, quat), LSIM_INVALID_INPUT);
  assert_non_null(strstr(lsim_sim_error(sim), "no body"));
  assert_int_equal(lsim_sim_body_pose(sim, 0, NULL, quat), LSIM_INVALID_INPUT);
  assert_non_null(strstr(lsim_sim_error(sim), "NULL"));
  assert_int_equal(lsim_sim_set_force(sim, 5, f), LSIM_INVALID_INPUT);
  assert_non_null(strstr(lsim_sim_error(sim), "set_force: no body 5"));
  assert_int_equal(lsim_sim_set_kinematic_velocity(sim, -2, f), LSIM_INVALID_INPUT);
  assert_non_null(strstr(lsim_sim_error(sim), "no body -2"));
  assert_int_equal(lsim_sim_body(sim, 0, NULL), LSIM_INVALID_INPUT);
  assert_non_null(strstr(lsim_sim_error(sim), "info is NULL"));
  lsim_sim_free(sim);
}

/* The message describes the last call that returns a status: after a failing call, a
 * successful one leaves "" (it had kept the old failure's text). Every fallible function
 * of lcpsim.h, each after a failure of another. */
static void test_error_cleared(void **state) {
  (void)state;
  LsimSim *sim;
  char err[256];
  assert_int_equal(lsim_sim_load(&sim, "data/two_blocks.json", err, sizeof err), 0);
  double f[6] = {0}, p[3], quat[4];
  LsimBodyInfo bi;
  LsimStepReport rep;
  LsimSolverConfig cfg;
  LsimContactInfo ci[4];
#define FAIL_THEN(call)                                                        \
  do {                                                                         \
    assert_int_equal(lsim_sim_get_force(sim, 99, f), LSIM_INVALID_INPUT);      \
    assert_true(lsim_sim_error(sim)[0] != '\0');                               \
    assert_true((call) >= 0);                                                  \
    assert_string_equal(lsim_sim_error(sim), "");                              \
  } while (0)
  /* A read-only query that succeeds leaves the last failure's message. */
#define FAIL_KEEP(call)                                                        \
  do {                                                                         \
    assert_int_equal(lsim_sim_get_force(sim, 99, f), LSIM_INVALID_INPUT);      \
    char before[256];                                                          \
    snprintf(before, sizeof before, "%s", lsim_sim_error(sim));                \
    assert_true(before[0] != '\0');                                            \
    assert_true((call) >= 0);                                                  \
    assert_string_equal(lsim_sim_error(sim), before);                          \
  } while (0)
  FAIL_KEEP(lsim_sim_get_force(sim, 0, f));
  FAIL_KEEP(lsim_sim_body(sim, 0, &bi));
  FAIL_KEEP(lsim_sim_body_index(sim, bi.name));
  FAIL_KEEP(lsim_sim_body_pose(sim, 0, p, quat));
  FAIL_THEN(lsim_sim_set_force(sim, 1, f));
  FAIL_THEN(lsim_sim_step(sim));
  FAIL_THEN(lsim_sim_run(sim, 2));
  FAIL_KEEP(lsim_sim_last_step(sim, &rep));
  FAIL_KEEP(lsim_sim_solver_config(sim, &cfg));
  FAIL_KEEP(lsim_sim_contacts(sim, ci, 4));
  FAIL_THEN(lsim_sim_set_solver(sim, "pgs", NULL));
  /* and the other way round: a failing set_solver, then a step */
  assert_true(lsim_sim_set_solver(sim, "no_such_solver", NULL) < 0);
  assert_true(lsim_sim_error(sim)[0] != '\0');
  assert_true(lsim_sim_step(sim) >= 0);
  assert_string_equal(lsim_sim_error(sim), "");
  /* a record: closing none fails, then opening and closing one succeed */
  char path[128];
  snprintf(path, sizeof path, "/tmp/lsim_test_api_err_%d.h5", (int)getpid());
  assert_true(lsim_sim_record_close(sim, 1) < 0);
  assert_true(lsim_sim_error(sim)[0] != '\0');
  assert_int_equal(lsim_sim_record(sim, path), 0);
  assert_string_equal(lsim_sim_error(sim), "");
  FAIL_THEN(lsim_sim_record_close(sim, 0));
#undef FAIL_THEN
#undef FAIL_KEEP
  lsim_sim_free(sim);
  /* A world in the making: add_body after a failed one. */
  assert_int_equal(lsim_sim_create(&sim, 2, 0.01, err, sizeof err), 0);
  assert_true(lsim_sim_add_body(sim, NULL) < 0);
  assert_true(lsim_sim_error(sim)[0] != '\0');
  LsimBodyDef def = lsim_default_body_def();
  assert_true(lsim_sim_add_body(sim, &def) >= 0);
  assert_string_equal(lsim_sim_error(sim), "");
  lsim_sim_free(sim);
}

/* Contacts before the first step (a built world before and after start): none, without
 * touching the stepper that is not there yet. */
static void test_contacts_before_step(void **state) {
  (void)state;
  LsimSim *sim;
  char err[256];
  assert_int_equal(lsim_sim_create(&sim, 2, 0.01, err, sizeof err), 0);
  LsimContactInfo c[4];
  assert_int_equal(lsim_sim_contact_count(sim), 0);
  assert_int_equal(lsim_sim_contacts(sim, c, 4), 0);
  LsimBodyDef d = lsim_default_body_def();
  const int b = lsim_sim_add_body(sim, &d);
  LsimShapeDef s = lsim_default_shape_def();
  assert_true(lsim_sim_add_shape(sim, b, &s) >= 0);
  assert_int_equal(lsim_sim_start(sim), 0);
  assert_int_equal(lsim_sim_contacts(sim, c, 4), 0);
  lsim_sim_free(sim);
}

/* Empty problems (n = 0, nc = 0) with NULL arrays are solved: nothing to do, nothing read
 * or written (the sanitizer build checks no NULL reaches a copy). */
static void test_empty_problems(void **state) {
  (void)state;
  char err[256] = "";
  LsimSolveReport r;
  const char *lcp_solvers[] = {"lemke", "pgs"};
  for (int s = 0; s < 2; ++s) {
    LsimSolverConfig cfg = lsim_default_solver_config();
    for (int warm = 0; warm < 2; ++warm) {
      cfg.warm_start = warm;
      assert_int_equal(lsim_solve_lcp(lcp_solvers[s], 0, NULL, NULL, NULL, &cfg, &r, err, sizeof err),
                       LSIM_SOLVED);
      assert_int_equal(r.iterations, 0);
    }
  }
  LsimFcReport fr;
  assert_int_equal(lsim_solve_fc("nsgs", 3, 0, NULL, NULL, NULL, 0, NULL, NULL, &fr, err, sizeof err),
                   LSIM_SOLVED);
  assert_int_equal(lsim_solve_fc("lemke", 2, 0, NULL, NULL, NULL, 2, NULL, NULL, &fr, err, sizeof err),
                   LSIM_SOLVED);
  /* nc = 2^30 contacts in 3-D: dim nc overflows an int; refused as input, before any
     allocation or read of the (here dummy) arrays. */
  double one = 0.0;
  assert_int_equal(lsim_solve_fc("nsgs", 3, 0x40000000, &one, &one, &one, 0, &one, NULL, &fr, err,
                                 sizeof err),
                   LSIM_INVALID_INPUT);
  assert_non_null(strstr(err, "too many"));
}

/* Solver options outside the header's ranges are refused with a message naming the field,
 * by a simulation (the previous solver kept) and by the standalone solves, as a scene's
 * "solver" object refuses them. */
static void test_solver_config_checked(void **state) {
  (void)state;
  LsimSim *sim;
  char err[256] = "";
  assert_int_equal(lsim_sim_load(&sim, "data/two_blocks.json", err, sizeof err), 0);
  const char *before = lsim_sim_solver(sim);
  char was[64];
  snprintf(was, sizeof was, "%s", before);
  struct { const char *field; LsimSolverConfig cfg; } bad[7];
  for (int k = 0; k < 7; ++k) bad[k].cfg = lsim_default_solver_config();
  bad[0].field = "threads", bad[0].cfg.threads = -5;
  bad[1].field = "threads", bad[1].cfg.threads = 65;
  bad[2].field = "tol", bad[2].cfg.tol = INFINITY;
  bad[3].field = "tol", bad[3].cfg.tol = NAN;
  bad[4].field = "omega", bad[4].cfg.omega = 3.0;
  bad[5].field = "max_iter", bad[5].cfg.max_iter = -1;
  bad[6].field = "threads", bad[6].cfg.threads = 0;
  const double M[1] = {1}, q[1] = {-1}, W[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, q3[3] = {-1, 0, 0};
  const double mu[1] = {0.5};
  for (int k = 0; k < 7; ++k) {
    assert_int_equal(lsim_sim_set_solver(sim, "pgs", &bad[k].cfg), LSIM_INVALID_INPUT);
    assert_non_null(strstr(lsim_sim_error(sim), bad[k].field));
    assert_string_equal(lsim_sim_solver(sim), was);
    double z[1] = {0}, r[3] = {0};
    err[0] = '\0';
    assert_int_equal(lsim_solve_lcp("pgs", 1, M, q, z, &bad[k].cfg, NULL, err, sizeof err),
                     LSIM_INVALID_INPUT);
    assert_non_null(strstr(err, bad[k].field));
    err[0] = '\0';
    assert_int_equal(lsim_solve_fc("nsgs", 3, 1, W, q3, mu, 0, r, &bad[k].cfg, NULL, err, sizeof err),
                     LSIM_INVALID_INPUT);
    assert_non_null(strstr(err, bad[k].field));
  }
  /* The bounds themselves are fine. */
  LsimSolverConfig ok = lsim_default_solver_config();
  ok.threads = 64;
  assert_int_equal(lsim_sim_set_solver(sim, "pgs", &ok), 0);
  LsimSolverConfig back;
  assert_int_equal(lsim_sim_solver_config(sim, &back), 0);
  assert_int_equal(back.threads, 64);
  lsim_sim_free(sim);
}

/* Bodies built in code: a quaternion with a NaN is named as not finite (not as zero), a
 * zero one as zero; 3-D principal moments that break the triangle inequality are refused;
 * an infinite 1-D ground_mu is refused as the scene reader refuses it. */
static void test_build_bad_values(void **state) {
  (void)state;
  LsimSim *sim;
  char err[256];
  assert_int_equal(lsim_sim_create(&sim, 3, 0.01, err, sizeof err), 0);
  LsimBodyDef d = lsim_default_body_def();
  d.quaternion[0] = NAN;
  assert_int_equal(lsim_sim_add_body(sim, &d), LSIM_INVALID_INPUT);
  assert_non_null(strstr(lsim_sim_error(sim), "quaternion has a value that is not finite"));
  d.quaternion[0] = 0.0;
  assert_int_equal(lsim_sim_add_body(sim, &d), LSIM_INVALID_INPUT);
  assert_non_null(strstr(lsim_sim_error(sim), "quaternion is zero"));
  d = lsim_default_body_def();
  const int b = lsim_sim_add_body(sim, &d);
  assert_true(b >= 0);
  LsimShapeDef s = lsim_default_shape_def();
  s.quaternion[2] = INFINITY;
  assert_int_equal(lsim_sim_add_shape(sim, b, &s), LSIM_INVALID_INPUT);
  assert_non_null(strstr(lsim_sim_error(sim), "quaternion has a value that is not finite"));
  assert_int_equal(lsim_sim_add_shape(sim, 7, &s), LSIM_INVALID_INPUT);
  assert_non_null(strstr(lsim_sim_error(sim), "add_shape: no body 7"));
  /* Principal moments no mass distribution has (Izz > Ixx + Iyy) are refused, naming the
     moment; a flat plate's (Izz = Ixx + Iyy exactly) is accepted. */
  d = lsim_default_body_def();
  d.name = "impossible", d.inertia[0] = 1.0, d.inertia[1] = 1.0, d.inertia[2] = 5.0;
  assert_int_equal(lsim_sim_add_body(sim, &d), LSIM_INVALID_INPUT);
  assert_non_null(strstr(lsim_sim_error(sim), "inertia[2] = 5 is more than the sum of the other two moments, 2"));
  d.name = "plate", d.inertia[2] = 2.0;
  assert_true(lsim_sim_add_body(sim, &d) >= 0);
  lsim_sim_free(sim);
  assert_int_equal(lsim_sim_create(&sim, 1, 0.01, err, sizeof err), 0);
  d = lsim_default_body_def();
  d.ground_mu = INFINITY;
  assert_int_equal(lsim_sim_add_body(sim, &d), LSIM_INVALID_INPUT);
  assert_non_null(strstr(lsim_sim_error(sim), "ground_mu"));
  d.ground_mu = 0.5;
  assert_true(lsim_sim_add_body(sim, &d) >= 0);
  /* A 1-D kinematic body or wall has no ground friction: refused, as the scene reader does. */
  d = lsim_default_body_def();
  d.type = LSIM_KINEMATIC;
  d.position[0] = 5.0;
  d.ground_mu = 0.5;
  assert_int_equal(lsim_sim_add_body(sim, &d), LSIM_INVALID_INPUT);
  assert_non_null(strstr(lsim_sim_error(sim), "ground_mu applies to dynamic bodies only"));
  /* A wall has no width; side is a wall's only. */
  d = lsim_default_body_def();
  d.type = LSIM_STATIC, d.side = 1, d.position[0] = 9.0, d.width = 0.5;
  assert_int_equal(lsim_sim_add_body(sim, &d), LSIM_INVALID_INPUT);
  assert_non_null(strstr(lsim_sim_error(sim), "a 1-D wall has no width"));
  d = lsim_default_body_def();
  d.side = -1, d.position[0] = 3.0;
  assert_int_equal(lsim_sim_add_body(sim, &d), LSIM_INVALID_INPUT);
  assert_non_null(strstr(lsim_sim_error(sim), "side applies to 1-D walls (static bodies) only"));
  lsim_sim_free(sim);
}

/* 2-D/3-D bodies built in code: the 1-D keys ground_mu (an infinite one included), width and
 * side are refused by name, not ignored; friction with the ground is the shapes' mu. The
 * refused body is not added (the next one gets index 0). */
static void test_build_1d_keys_refused(void **state) {
  (void)state;
  for (int dim = 2; dim <= 3; ++dim) {
    LsimSim *sim;
    char err[256];
    assert_int_equal(lsim_sim_create(&sim, dim, 0.01, err, sizeof err), 0);
    const double mus[] = {INFINITY, 0.5, NAN, -1.0};
    for (int k = 0; k < 4; ++k) {
      LsimBodyDef d = lsim_default_body_def();
      d.ground_mu = mus[k];
      assert_int_equal(lsim_sim_add_body(sim, &d), LSIM_INVALID_INPUT);
      assert_non_null(strstr(lsim_sim_error(sim), "ground_mu applies to 1-D bodies only"));
    }
    LsimBodyDef d = lsim_default_body_def();
    d.type = LSIM_STATIC;
    d.ground_mu = 0.3;
    assert_int_equal(lsim_sim_add_body(sim, &d), LSIM_INVALID_INPUT);
    assert_non_null(strstr(lsim_sim_error(sim), "ground_mu applies to 1-D bodies only"));
    d = lsim_default_body_def();
    d.width = 0.5;
    assert_int_equal(lsim_sim_add_body(sim, &d), LSIM_INVALID_INPUT);
    assert_non_null(strstr(lsim_sim_error(sim), "width applies to 1-D bodies only"));
    d = lsim_default_body_def();
    d.side = 1;
    assert_int_equal(lsim_sim_add_body(sim, &d), LSIM_INVALID_INPUT);
    assert_non_null(strstr(lsim_sim_error(sim), "side applies to 1-D bodies only"));
    d = lsim_default_body_def();
    assert_int_equal(lsim_sim_add_body(sim, &d), 0);
    lsim_sim_free(sim);
  }
}

/* A 3-D orientation written by the caller between steps. The step renormalizes it: a free
 * body spinning at w = 2 rad/s about z turns by h w = 0.25 rad a step, so from any positive
 * multiple of the identity the quaternion after one step is (cos 0.125, 0, 0, sin 0.125),
 * to round-off (1e-15: a few ulps of the exponential map's sin and cos). Multiples whose
 * squares under- or overflow (1e-170, 1e200) turn the same way; a zero quaternion cannot be
 * normalized and is refused with the step not taken (it used to become the identity
 * silently, the step's rotation lost). */
static void test_written_quaternion(void **state) {
  (void)state;
  static const char *spin =
      "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.125, \"steps\": 4,\n"
      " \"bodies\": [{\"name\": \"top\", \"mass\": 1, \"inertia\": [1, 1, 1],\n"
      "   \"angular_velocity\": [0, 0, 2]}]}";
  const double scale[4] = {1.0, 2.0, 1e-170, 1e200};
  for (int k = 0; k < 4; ++k) {
    LsimSim *sim;
    char err[256];
    assert_int_equal(lsim_sim_load_json(&sim, spin, NULL, err, sizeof err), 0);
    double *q = lsim_sim_q(sim);
    q[3] = scale[k], q[4] = q[5] = q[6] = 0.0;
    assert_int_equal(lsim_sim_step(sim), LSIM_SOLVED);
    assert_true(fabs(q[3] - cos(0.125)) <= 1e-15);
    assert_true(fabs(q[4]) <= 1e-15 && fabs(q[5]) <= 1e-15);
    assert_true(fabs(q[6] - sin(0.125)) <= 1e-15);
    lsim_sim_free(sim);
  }
  LsimSim *sim;
  char err[256];
  assert_int_equal(lsim_sim_load_json(&sim, spin, NULL, err, sizeof err), 0);
  double *q = lsim_sim_q(sim);
  q[3] = q[4] = q[5] = q[6] = 0.0;
  assert_int_equal(lsim_sim_step(sim), LSIM_INVALID_INPUT);
  assert_non_null(strstr(lsim_sim_error(sim), "body 0 ('top'): its quaternion q[3 .. 6] is zero"));
  assert_int_equal(lsim_sim_steps_done(sim), 0);
  assert_true(q[3] == 0.0 && q[6] == 0.0); /* nothing taken */
  /* Set right, the run goes on. */
  q[3] = 1.0;
  assert_int_equal(lsim_sim_step(sim), LSIM_SOLVED);
  assert_int_equal(lsim_sim_steps_done(sim), 1);
  lsim_sim_free(sim);
}

/* The queries read a quaternion the caller wrote as the step takes it, u / |u|: the
 * kinetic energy of a body of inertia diag(1, 2, 3) spinning at w = (1, 0, 0) world and
 * turned 90 degrees about z is 1/2 * 2 * 1^2 = 1 J whatever the scale of (s, 0, 0, s)
 * (it was 2 J at s = 1, |u|^4 times off at s = 2; 1e200 overflowed); body_pose gives the
 * unit quaternion (1, 0, 0, 1) / sqrt 2; a zero quaternion is refused by body_pose and has
 * no energy (NaN). Tolerance: a few roundings of a unit-size sum. */
static void test_written_quaternion_queries(void **state) {
  (void)state;
  static const char *spin =
      "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.125, \"steps\": 4,\n"
      " \"bodies\": [{\"name\": \"top\", \"mass\": 1, \"inertia\": [1, 2, 3],\n"
      "   \"angular_velocity\": [1, 0, 0]}]}";
  const double scale[4] = {1.0, 2.0, 1e-170, 1e200};
  const double r = sqrt(0.5);
  for (int k = 0; k < 4; ++k) {
    LsimSim *sim;
    char err[256];
    assert_int_equal(lsim_sim_load_json(&sim, spin, NULL, err, sizeof err), 0);
    assert_true(fabs(lsim_sim_kinetic_energy(sim) - 0.5) <= 1e-15);
    double *q = lsim_sim_q(sim);
    q[3] = scale[k], q[4] = q[5] = 0.0, q[6] = scale[k];
    assert_true(fabs(lsim_sim_kinetic_energy(sim) - 1.0) <= 1e-15);
    double p[3], u[4];
    assert_int_equal(lsim_sim_body_pose(sim, 0, p, u), 0);
    assert_true(fabs(u[0] - r) <= 2e-16 && u[1] == 0.0 && u[2] == 0.0 && fabs(u[3] - r) <= 2e-16);
    assert_true(q[3] == scale[k] && q[6] == scale[k]); /* the state itself untouched */
    q[3] = q[6] = 0.0;
    assert_true(isnan(lsim_sim_kinetic_energy(sim)));
    assert_int_equal(lsim_sim_body_pose(sim, 0, p, u), LSIM_INVALID_INPUT);
    assert_non_null(strstr(lsim_sim_error(sim), "body_pose: body 0 ('top'): its quaternion q[3 .. 6] is zero"));
    lsim_sim_free(sim);
  }
}

/* Arguments a caller gets wrong on a valid simulation: every refusal says what in
 * lsim_sim_error (a NULL output or path returned LSIM_INVALID_INPUT with "" before), and a
 * negative step count is refused (lsim_sim_run(sim, -3) returned 0, as if it had run). */
static void test_bad_arguments_named(void **state) {
  (void)state;
  LsimSim *sim;
  char err[256];
  assert_int_equal(lsim_sim_load_json(&sim, free_body, NULL, err, sizeof err), 0);
  assert_int_equal(lsim_sim_record(sim, NULL), LSIM_INVALID_INPUT);
  assert_non_null(strstr(lsim_sim_error(sim), "record: the output path is NULL"));
  assert_int_equal(lsim_sim_last_step(sim, NULL), LSIM_INVALID_INPUT);
  assert_non_null(strstr(lsim_sim_error(sim), "last_step: report is NULL"));
  assert_int_equal(lsim_sim_solver_config(sim, NULL), LSIM_INVALID_INPUT);
  assert_non_null(strstr(lsim_sim_error(sim), "solver_config: cfg is NULL"));
  assert_int_equal(lsim_sim_run(sim, -3), LSIM_INVALID_INPUT);
  assert_non_null(strstr(lsim_sim_error(sim), "run: the number of steps must be >= 0, got -3"));
  assert_int_equal(lsim_sim_steps_done(sim), 0);
  /* n = 0 is no step and no error; the state is untouched */
  assert_int_equal(lsim_sim_run(sim, 0), 0);
  assert_string_equal(lsim_sim_error(sim), "");
  assert_int_equal(lsim_sim_steps_done(sim), 0);
  /* contacts: a NULL output with room claimed, or a negative room, is refused naming the
   * argument, before a step and after one (it returned 0, as if there were no contact) */
  LsimContactInfo ci[2];
  for (int k = 0; k < 2; ++k) {
    assert_int_equal(lsim_sim_contacts(sim, NULL, 4), LSIM_INVALID_INPUT);
    assert_non_null(strstr(lsim_sim_error(sim), "contacts: out is NULL (cap 4)"));
    assert_int_equal(lsim_sim_contacts(sim, ci, -1), LSIM_INVALID_INPUT);
    assert_non_null(strstr(lsim_sim_error(sim), "contacts: cap must be >= 0, got -1"));
    assert_int_equal(lsim_sim_contacts(sim, NULL, 0), 0); /* no room asked: fine */
    assert_int_equal(lsim_sim_step(sim), 0);
  }
  lsim_sim_free(sim);
}

/* Quantities that must be > 0 and are divided by (mass, inertia, time step) or are sizes
 * (radius, half extents, lengths, the correction speed) must be normal numbers, as the scene
 * reader has them: a subnormal mass (1e-320) was accepted by add_body and the first step
 * diverged (x = -inf, LSIM_DIVERGED); each is now refused where it is given, naming it. */
static void test_build_subnormal_refused(void **state) {
  (void)state;
  const double tiny = 1e-320; /* subnormal: > 0, below DBL_MIN */
  LsimSim *sim;
  char err[256] = "";
  assert_int_equal(lsim_sim_create(&sim, 2, tiny, err, sizeof err), LSIM_INVALID_INPUT);
  assert_non_null(strstr(err, "time step must be > 0"));
  assert_non_null(strstr(err, "smallest normal number"));
  for (int dim = 1; dim <= 3; ++dim) {
    assert_int_equal(lsim_sim_create(&sim, dim, 0.01, err, sizeof err), 0);
    LsimBodyDef d = lsim_default_body_def();
    d.mass = tiny;
    assert_int_equal(lsim_sim_add_body(sim, &d), LSIM_INVALID_INPUT);
    assert_non_null(strstr(lsim_sim_error(sim), "mass must be > 0"));
    assert_non_null(strstr(lsim_sim_error(sim), "smallest normal number"));
    if (dim > 1) {
      d = lsim_default_body_def();
      d.inertia[2] = tiny;
      assert_int_equal(lsim_sim_add_body(sim, &d), LSIM_INVALID_INPUT);
      assert_non_null(strstr(lsim_sim_error(sim), "inertia[2] must be > 0"));
      assert_non_null(strstr(lsim_sim_error(sim), "smallest normal number"));
    }
    d = lsim_default_body_def();
    assert_int_equal(lsim_sim_add_body(sim, &d), 0);
    if (dim > 1) {
      LsimShapeDef s = lsim_default_shape_def();
      s.radius = tiny;
      assert_int_equal(lsim_sim_add_shape(sim, 0, &s), LSIM_INVALID_INPUT);
      assert_non_null(strstr(lsim_sim_error(sim), "radius must be > 0"));
      s = lsim_default_shape_def();
      s.type = LSIM_BOX, s.half[0] = s.half[1] = s.half[2] = 0.5, s.half[1] = tiny;
      assert_int_equal(lsim_sim_add_shape(sim, 0, &s), LSIM_INVALID_INPUT);
      assert_non_null(strstr(lsim_sim_error(sim), "half[1] must be > 0"));
      s.type = LSIM_CAPSULE, s.half[0] = tiny, s.half[1] = 0.0;
      assert_int_equal(lsim_sim_add_shape(sim, 0, &s), LSIM_INVALID_INPUT);
      assert_non_null(strstr(lsim_sim_error(sim), "half[0] (half length) must be > 0"));
    }
    LsimJointDef j;
    memset(&j, 0, sizeof j);
    j.type = LSIM_ROD, j.body[0] = 0, j.body[1] = -1, j.length = tiny;
    assert_int_equal(lsim_sim_add_joint(sim, &j), LSIM_INVALID_INPUT);
    assert_non_null(strstr(lsim_sim_error(sim), "length must be > 0"));
    assert_non_null(strstr(lsim_sim_error(sim), "smallest normal number"));
    /* A rod shorter than 1e-9 m: its direction would be round-off's. */
    j.length = 1e-12;
    assert_int_equal(lsim_sim_add_joint(sim, &j), LSIM_INVALID_INPUT);
    assert_non_null(strstr(lsim_sim_error(sim), "a rod of 1e-12 m (below 1e-9 m) has no direction to hold"));
    LsimContactDef c = lsim_default_contact_def();
    c.max_correction_speed = tiny;
    assert_int_equal(lsim_sim_set_contact(sim, &c), LSIM_INVALID_INPUT);
    assert_non_null(strstr(lsim_sim_error(sim), "max_correction_speed must be > 0"));
    /* The smallest normal number itself is a value like any other. */
    d = lsim_default_body_def();
    d.name = "light", d.mass = 2.2250738585072014e-308, d.position[0] = 5.0;
    assert_int_equal(lsim_sim_add_body(sim, &d), 1);
    lsim_sim_free(sim);
  }
}

/* A pair's friction coefficient sqrt(mu_a mu_b) of two very large (finite, accepted) mu: the
 * product overflowed to inf and every step failed, "the solver 'lemke' reported
 * invalid_input" with no reason. A unit box (m = 1, I = 1) sliding at v0 = 2 m/s on a
 * plane, both mu = 1e200 (the pair's 1e200): friction holds the leading bottom corner, and
 * the box pivots about it. Angular momentum about the corner, r = cm - corner = (-1/2, 1/2),
 * after the first step's gravity impulse m g h: omega = -(m v0 - m g h) / 2 / (I + m/2). */
static void test_huge_friction_pair(void **state) {
  (void)state;
  LsimSim *sim;
  char err[256];
  assert_int_equal(lsim_sim_create(&sim, 2, 0.01, err, sizeof err), 0);
  const double g[2] = {0.0, -9.81};
  assert_int_equal(lsim_sim_set_gravity(sim, g), 0);
  LsimBodyDef gd = lsim_default_body_def();
  gd.type = LSIM_STATIC;
  assert_int_equal(lsim_sim_add_body(sim, &gd), 0);
  LsimShapeDef pl = lsim_default_shape_def();
  pl.type = LSIM_PLANE, pl.mu = 1e200;
  assert_true(lsim_sim_add_shape(sim, 0, &pl) >= 0);
  LsimBodyDef bd = lsim_default_body_def();
  bd.position[1] = 0.5, bd.velocity[0] = 2.0;
  assert_int_equal(lsim_sim_add_body(sim, &bd), 1);
  LsimShapeDef bx = lsim_default_shape_def();
  bx.type = LSIM_BOX, bx.half[0] = bx.half[1] = 0.5, bx.mu = 1e200;
  assert_true(lsim_sim_add_shape(sim, 1, &bx) >= 0);
  assert_int_equal(lsim_sim_start(sim), 0);
  assert_int_equal(lsim_sim_step(sim), LSIM_SOLVED);
  assert_string_equal(lsim_sim_error(sim), "");
  const double *v = lsim_sim_v(sim);
  const double omega = -(2.0 - 9.81 * 0.01) / 2.0 / 1.5;
  /* 1e-9: the solve's residual (1e-11 and below) times the LCP's scale */
  assert_true(fabs(v[2] - omega) <= 1e-9);
  /* the corner (cm + (1/2, -1/2)) at rest: v + omega x (1/2, -1/2) = v + omega (1/2, 1/2) = 0 */
  assert_true(fabs(v[0] + 0.5 * v[2]) <= 1e-9 && fabs(v[1] + 0.5 * v[2]) <= 1e-9);
  assert_int_equal(lsim_sim_step(sim), LSIM_SOLVED);
  lsim_sim_free(sim);
}

/* A contact row of a tether as lcpsim.h describes it: a mass m = 3 hanging at rest on a
 * taut tether of length 1 from the world point (0, 1): kind LSIM_CONTACT_TETHER, bodies
 * (0, -1), gap = length - distance = 0, point = the end on the body (its origin), normal
 * from the body's end toward the anchor (+y: the rope pulls up), impulse m g h exactly as
 * the state stays at rest (the header had the contacts' "from body[1] into body[0]", which
 * for a tether points down). */
static void test_tether_row_described(void **state) {
  (void)state;
  LsimSim *sim;
  char err[256];
  assert_int_equal(lsim_sim_create(&sim, 2, 0.01, err, sizeof err), 0);
  const double g[2] = {0.0, -9.81};
  assert_int_equal(lsim_sim_set_gravity(sim, g), 0);
  LsimBodyDef bd = lsim_default_body_def();
  bd.mass = 3.0;
  assert_int_equal(lsim_sim_add_body(sim, &bd), 0);
  LsimJointDef j;
  memset(&j, 0, sizeof j);
  j.type = LSIM_TETHER, j.body[0] = 0, j.body[1] = -1, j.point[1][1] = 1.0, j.length = 1.0;
  assert_int_equal(lsim_sim_add_joint(sim, &j), 0);
  assert_int_equal(lsim_sim_start(sim), 0);
  assert_int_equal(lsim_sim_run(sim, 5), 0);
  LsimContactInfo c[2];
  assert_int_equal(lsim_sim_contacts(sim, c, 2), 1);
  assert_int_equal(c[0].kind, LSIM_CONTACT_TETHER);
  assert_int_equal(c[0].body[0], 0);
  assert_int_equal(c[0].body[1], -1);
  /* round-off of one step's products: 1e-12 */
  assert_true(fabs(c[0].gap) <= 1e-12);
  assert_true(fabs(c[0].point[0]) <= 1e-12 && fabs(c[0].point[1]) <= 1e-12);
  assert_true(fabs(c[0].normal[0]) <= 1e-12 && fabs(c[0].normal[1] - 1.0) <= 1e-12);
  assert_true(fabs(c[0].normal_impulse - 3.0 * 9.81 * 0.01) <= 1e-12);
  assert_true(fabs(lsim_sim_q(sim)[1]) <= 1e-12 && fabs(lsim_sim_v(sim)[1]) <= 1e-12);
  lsim_sim_free(sim);
}

/* An exact-cone Siconos solver on a W whose diagonal is not positive (a sign error of the
 * caller's): fc3d_nsgs failed an assert inside Siconos and abort() ended the process. The
 * solve now fails with a status and a message, r finite and the process alive; a next
 * solve on a good problem succeeds (the trap leaves nothing armed). */
static void test_solve_fc_siconos_abort(void **state) {
  (void)state;
  const double Wbad[9] = {-1, 0, 0, 0, 1, 0, 0, 0, 1}, Wgood[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  const double q[3] = {-1, 0, 0}, mu[1] = {0.5};
  double r[3] = {0, 0, 0};
  char err[512] = "";
  const int rc = lsim_solve_fc("siconos:fc3d_nsgs", 3, 1, Wbad, q, mu, 0, r, NULL, NULL, err, sizeof err);
  assert_true(rc < 0);
  assert_non_null(strstr(err, "aborted inside Siconos"));
  for (int k = 0; k < 3; ++k) assert_true(isfinite(r[k]));
  /* W = I, q = (-1, 0, 0): r = (1, 0, 0) (sticking, u = 0), to Siconos' tolerance 1e-10 */
  r[0] = r[1] = r[2] = 0.0;
  assert_int_equal(lsim_solve_fc("siconos:fc3d_nsgs", 3, 1, Wgood, q, mu, 0, r, NULL, NULL, err, sizeof err),
                   LSIM_SOLVED);
  assert_true(fabs(r[0] - 1.0) <= 1e-9 && fabs(r[1]) <= 1e-9 && fabs(r[2]) <= 1e-9);
}

/* An orientation key of another dimension is refused by name, not ignored (as the 1-D keys
 * are, and as the Python World does): a 3-D body or shape given an angle, a 2-D one given a
 * quaternion, were accepted and started unrotated. The defaults (angle 0, quaternion
 * (1, 0, 0, 0)) and an all-zero quaternion (a zeroed definition) are no key. */
static void test_build_orientation_keys(void **state) {
  (void)state;
  LsimSim *sim;
  char err[256];
  assert_int_equal(lsim_sim_create(&sim, 3, 0.01, err, sizeof err), 0);
  LsimBodyDef d = lsim_default_body_def();
  d.angle = 0.5;
  assert_int_equal(lsim_sim_add_body(sim, &d), LSIM_INVALID_INPUT);
  assert_non_null(strstr(lsim_sim_error(sim), "angle applies to 2-D bodies only"));
  d = lsim_default_body_def();
  assert_int_equal(lsim_sim_add_body(sim, &d), 0);
  LsimShapeDef s = lsim_default_shape_def();
  s.angle = 0.5;
  assert_int_equal(lsim_sim_add_shape(sim, 0, &s), LSIM_INVALID_INPUT);
  assert_non_null(strstr(lsim_sim_error(sim), "angle applies to 2-D shapes only"));
  lsim_sim_free(sim);
  for (int dim = 1; dim <= 2; ++dim) {
    assert_int_equal(lsim_sim_create(&sim, dim, 0.01, err, sizeof err), 0);
    d = lsim_default_body_def();
    d.quaternion[0] = cos(0.25), d.quaternion[3] = sin(0.25);
    assert_int_equal(lsim_sim_add_body(sim, &d), LSIM_INVALID_INPUT);
    assert_non_null(strstr(lsim_sim_error(sim), "quaternion applies to 3-D bodies only"));
    if (dim == 1) {
      d = lsim_default_body_def();
      d.angle = 0.5;
      assert_int_equal(lsim_sim_add_body(sim, &d), LSIM_INVALID_INPUT);
      assert_non_null(strstr(lsim_sim_error(sim), "angle applies to 2-D bodies only"));
    }
    d = lsim_default_body_def();
    d.quaternion[0] = 0.0; /* zeroed: no key */
    assert_int_equal(lsim_sim_add_body(sim, &d), 0);
    if (dim == 2) {
      s = lsim_default_shape_def();
      s.quaternion[0] = cos(0.25), s.quaternion[3] = sin(0.25);
      assert_int_equal(lsim_sim_add_shape(sim, 0, &s), LSIM_INVALID_INPUT);
      assert_non_null(strstr(lsim_sim_error(sim), "quaternion applies to 3-D shapes only"));
      s = lsim_default_shape_def();
      s.angle = 0.5;
      assert_int_equal(lsim_sim_add_shape(sim, 0, &s), 0);
    }
    lsim_sim_free(sim);
  }
}


/* The standalone calls reuse a caller's buffers: a success after a refusal reads "" in err
 * (it read the refusal before), and a call refused before any solve leaves a report of
 * nothing solved (its status, no iteration count, residuals that pass no tolerance), not
 * the previous call's figures or uninitialized memory. */
static void test_standalone_err_and_report_fresh(void **state) {
  (void)state;
  const double M[4] = {2, 1, 1, 2}, q[2] = {-1, -1};
  double z[2] = {0, 0};
  char err[256] = "";
  LsimSolveReport r;
  memset(&r, 0x5a, sizeof r); /* what a stack report holds before the first call */
  assert_int_equal(lsim_solve_lcp("nope", 2, M, q, z, NULL, &r, err, sizeof err), LSIM_UNAVAILABLE);
  assert_int_equal(r.status, LSIM_UNAVAILABLE);
  assert_int_equal(r.iterations, -1);
  assert_true(isinf(r.residual) && isinf(r.relative_residual) && r.wall_time == 0.0);
  assert_int_equal(lsim_solve_lcp("lemke", 2, M, q, z, NULL, &r, err, sizeof err), LSIM_SOLVED);
  assert_string_equal(err, ""); /* z = (1/3, 1/3), exact in two pivots */
  assert_true(fabs(z[0] - 1.0 / 3.0) <= 1e-15 && r.status == LSIM_SOLVED);
  double *zo = NULL;
  int no = 0;
  memset(&r, 0x5a, sizeof r);
  assert_int_equal(lsim_solve_lcp_file("lemke", "/nonexistent.dat", NULL, &zo, &no, &r, err,
                                       sizeof err), LSIM_IO_ERROR);
  assert_int_equal(r.status, LSIM_IO_ERROR);
  assert_int_equal(r.iterations, -1);
  const double W[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, qf[3] = {-1, 0, 0}, mubad[1] = {-1},
               mu[1] = {0.5};
  double rf[3] = {0, 0, 0};
  LsimFcReport fr;
  memset(&fr, 0x5a, sizeof fr);
  assert_int_equal(lsim_solve_fc("nsgs", 3, 1, W, qf, mubad, 0, rf, NULL, &fr, err, sizeof err),
                   LSIM_INVALID_INPUT);
  assert_int_equal(fr.status, LSIM_INVALID_INPUT);
  assert_int_equal(fr.iterations, -1);
  assert_true(isinf(fr.natural) && isinf(fr.relative) && isinf(fr.cone));
  assert_int_equal(lsim_solve_fc("nsgs", 3, 1, W, qf, mu, 0, rf, NULL, &fr, err, sizeof err),
                   LSIM_SOLVED);
  assert_string_equal(err, ""); /* r = (1, 0, 0): W = I, the contact closes, no slip */
  assert_true(fabs(rf[0] - 1.0) <= 1e-12 && fr.status == LSIM_SOLVED);
  double *ro = NULL;
  memset(&fr, 0x5a, sizeof fr);
  assert_int_equal(lsim_solve_fc_file("nsgs", "/nonexistent.dat", 0, NULL, &ro, &no, NULL, &fr,
                                      err, sizeof err), LSIM_IO_ERROR);
  assert_int_equal(fr.status, LSIM_IO_ERROR);
  assert_int_equal(fr.iterations, -1);
  /* So do the functions that create a simulation, after a refused one. */
  LsimSim *sim = NULL;
  assert_int_equal(lsim_sim_create(&sim, 4, 0.01, err, sizeof err), LSIM_INVALID_INPUT);
  assert_int_equal(lsim_sim_create(&sim, 2, 0.01, err, sizeof err), 0);
  assert_string_equal(err, "");
  lsim_sim_free(sim);
  assert_int_equal(lsim_sim_load(&sim, "/nonexistent.json", err, sizeof err), LSIM_IO_ERROR);
  assert_int_equal(lsim_sim_load(&sim, "data/two_blocks.json", err, sizeof err), 0);
  assert_string_equal(err, "");
  lsim_sim_free(sim);
  assert_int_equal(lsim_sim_load_json(&sim, "{", "x.json", err, sizeof err), LSIM_INVALID_INPUT);
  assert_int_equal(lsim_sim_load_json(&sim, free_body, "x.json", err, sizeof err), 0);
  assert_string_equal(err, "");
  lsim_sim_free(sim);
  /* A comparison that succeeds after a refused one reads "" too. */
  const char *in[] = {"data/two_blocks.json"};
  LsimCompareRow rows[2];
  int nrows = 2;
  assert_int_equal(lsim_compare(in, 1, "nope", 0, 0, "/tmp/lsim_test_fresh_cmp.h5", rows, &nrows,
                                err, sizeof err), LSIM_UNAVAILABLE);
  nrows = 2;
  assert_int_equal(lsim_compare(in, 1, "lemke", 0, 3, "/tmp/lsim_test_fresh_cmp.h5", rows, &nrows,
                                err, sizeof err), 0);
  assert_string_equal(err, "");
  unlink("/tmp/lsim_test_fresh_cmp.h5");
}

/* A scene the library does not run (the event-driven integrator, sequential impacts) is
 * refused with its name and the key, as the reader's errors name the place (before: no
 * file, no key). */
static void test_event_driven_scene_named(void **state) {
  (void)state;
  static const char *const ev =
      "{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.01, \"steps\": 5,"
      " \"integrator\": \"event_driven\", \"gravity\": [0, -9.81],"
      " \"bodies\": [{\"name\": \"ball\", \"mass\": 1, \"position\": [0, 1],"
      " \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.1}]}]}";
  LsimSim *sim = (LsimSim *)&sim;
  char err[512] = "";
  assert_int_equal(lsim_sim_load_json(&sim, ev, "ev.json", err, sizeof err), LSIM_INVALID_INPUT);
  assert_null(sim);
  assert_non_null(strstr(err, "ev.json: integrator: the scene asks for the event-driven integrator"));
  err[0] = '\0';
  assert_int_equal(lsim_sim_load(&sim, "data/newtons_cradle.json", err, sizeof err), LSIM_INVALID_INPUT);
  assert_non_null(strstr(err, "data/newtons_cradle.json: integrator: "));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_load_errors),    cmocka_unit_test(test_force_and_state),
      cmocka_unit_test(test_controller),     cmocka_unit_test(test_cart_wall_contacts),
      cmocka_unit_test(test_solvers_and_record), cmocka_unit_test(test_principal_config), cmocka_unit_test(test_precision_config), cmocka_unit_test(test_set_solver_resets_scene), cmocka_unit_test(test_record_path_shared), cmocka_unit_test(test_fc_siconos_quiet), cmocka_unit_test(test_diverged), cmocka_unit_test(test_solve_lcp),
      cmocka_unit_test(test_solve_fc),
      cmocka_unit_test(test_event_driven_scene_named),
      cmocka_unit_test(test_standalone_err_and_report_fresh),
      cmocka_unit_test(test_solve_fc_file),
      cmocka_unit_test(test_compare), cmocka_unit_test(test_compare_stoppable),
      cmocka_unit_test(test_compare_counts),
      cmocka_unit_test(test_build),
      cmocka_unit_test(test_joint_no_collide),
      cmocka_unit_test(test_status_names),   cmocka_unit_test(test_null_sim),
      cmocka_unit_test(test_bad_body_index), cmocka_unit_test(test_shape_index_per_body), cmocka_unit_test(test_error_cleared),cmocka_unit_test(test_contacts_before_step),
      cmocka_unit_test(test_empty_problems), cmocka_unit_test(test_solver_config_checked),
      cmocka_unit_test(test_build_bad_values), cmocka_unit_test(test_build_1d_keys_refused),
      cmocka_unit_test(test_record_onto_scene), cmocka_unit_test(test_compare_output_is_input),
      cmocka_unit_test(test_compare_errors), cmocka_unit_test(test_start_fails),
      cmocka_unit_test(test_written_quaternion), cmocka_unit_test(test_written_quaternion_queries), cmocka_unit_test(test_controller_reentry),
      cmocka_unit_test(test_nonfinite_warm_start), cmocka_unit_test(test_build_overlap),
      cmocka_unit_test(test_build_overlap_1d), cmocka_unit_test(test_bad_arguments_named),
      cmocka_unit_test(test_build_subnormal_refused), cmocka_unit_test(test_huge_friction_pair),
      cmocka_unit_test(test_tether_row_described), cmocka_unit_test(test_solve_fc_siconos_abort),
      cmocka_unit_test(test_build_orientation_keys),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
