/* test_checkpoint.c: lsim_sim_save / lsim_sim_restore (include/lcpsim/lcpsim.h), used as a
 * program outside the library would. A simulation restored from a checkpoint takes the
 * steps the saved one takes, to the bit: positions, velocities and contact impulses are
 * compared with memcmp, no tolerance (the claim is identity). A continuation from the state
 * alone (q, v written into a fresh simulation) is shown to differ on the same scenes, so the
 * comparisons can fail: what makes them pass is the stepper's memory in the checkpoint. */
#include <lcpsim/lcpsim.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

/* data/pile_10.json (10 boxes falling into a bin, Lemke) with its "solver" replaced by
 * solver (a JSON value) and extra top-level members (e.g. a "sleep" object); malloc'd. */
static char *pile(const char *solver, const char *extra) {
  FILE *f = fopen("data/pile_10.json", "rb");
  assert_non_null(f);
  static char text[1 << 16];
  const size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  const char *key = "\"solver\": \"lemke\",";
  char *at = strstr(text, key);
  assert_non_null(at);
  const size_t len = n + strlen(solver) + strlen(extra) + 64;
  char *out = malloc(len);
  assert_non_null(out);
  snprintf(out, len, "%.*s\"solver\": %s,%s%s", (int)(at - text), text, solver, extra,
           at + strlen(key));
  return out;
}

static LsimSim *load(const char *text) {
  LsimSim *sim = NULL;
  char err[1024];
  const int rc = lsim_sim_load_json(&sim, text, "pile.json", err, sizeof err);
  if (rc) fprintf(stderr, "%s\n", err);
  assert_int_equal(rc, 0);
  return sim;
}

static void run(LsimSim *sim, int n) {
  const int rc = lsim_sim_run(sim, n);
  if (rc) fprintf(stderr, "%s\n", lsim_sim_error(sim));
  assert_int_equal(rc, 0);
}

/* One step's outcome: q, v and the contacts with their impulses. */
typedef struct {
  int nq, nv, nc;
  double *q, *v;
  LsimContactInfo *c;
} Snap;

static Snap snap(LsimSim *sim) {
  Snap s = {lsim_sim_nq(sim), lsim_sim_nv(sim), lsim_sim_contact_count(sim), NULL, NULL, NULL};
  s.q = malloc((size_t)s.nq * sizeof(double));
  s.v = malloc((size_t)s.nv * sizeof(double));
  s.c = malloc((size_t)(s.nc + 1) * sizeof(LsimContactInfo));
  assert_true(s.q && s.v && s.c);
  memcpy(s.q, lsim_sim_q(sim), (size_t)s.nq * sizeof(double));
  memcpy(s.v, lsim_sim_v(sim), (size_t)s.nv * sizeof(double));
  memset(s.c, 0, (size_t)(s.nc + 1) * sizeof(LsimContactInfo)); /* padding compared too */
  assert_int_equal(lsim_sim_contacts(sim, s.c, s.nc), s.nc);
  return s;
}

static void snap_free(Snap *s) { free(s->q), free(s->v), free(s->c); }

/* Identical to the bit: q, v, and per contact its id and impulses. */
static int same(const Snap *a, const Snap *b) {
  if (a->nq != b->nq || a->nv != b->nv || a->nc != b->nc) return 0;
  if (memcmp(a->q, b->q, (size_t)a->nq * sizeof(double)) ||
      memcmp(a->v, b->v, (size_t)a->nv * sizeof(double)))
    return 0;
  for (int k = 0; k < a->nc; ++k)
    if (a->c[k].id != b->c[k].id ||
        memcmp(&a->c[k].normal_impulse, &b->c[k].normal_impulse, sizeof(double)) ||
        memcmp(a->c[k].friction_impulse, b->c[k].friction_impulse, 3 * sizeof(double)))
      return 0;
  return 1;
}

/* The straight run's outcomes of steps from+1 .. to. */
static Snap *straight(const char *text, int from, int to) {
  LsimSim *sim = load(text);
  run(sim, from);
  Snap *s = calloc((size_t)(to - from), sizeof *s);
  for (int k = 0; k < to - from; ++k) {
    assert_true(lsim_sim_step(sim) >= 0);
    s[k] = snap(sim);
  }
  lsim_sim_free(sim);
  return s;
}

/* The first step (1-based after from) where sim, stepped on, leaves the straight run ref;
 * 0 when none of the to - from steps does. */
static int first_difference(LsimSim *sim, const Snap *ref, int from, int to) {
  for (int k = 0; k < to - from; ++k) {
    assert_true(lsim_sim_step(sim) >= 0);
    Snap s = snap(sim);
    const int ok = same(&s, &ref[k]);
    snap_free(&s);
    if (!ok) return k + 1;
  }
  return 0;
}

static void path_of(char *buf, size_t len, const char *name) {
  snprintf(buf, len, "/tmp/lsim_test_checkpoint_%d_%s.h5", (int)getpid(), name);
}

/* Saved after `from` steps, restored into a fresh simulation of the same scene, continued
 * to `to`: the straight run's steps, to the bit; and a fresh simulation given only the
 * state (q, v, no memory) leaves it (returns the step it leaves at, 0: never). */
static int check_continuation(const char *text, int from, int to) {
  Snap *ref = straight(text, from, to);
  char path[256], err[1024];
  path_of(path, sizeof path, "c");
  LsimSim *a = load(text);
  run(a, from);
  if (lsim_sim_save(a, path)) fprintf(stderr, "%s\n", lsim_sim_error(a));
  assert_string_equal(lsim_sim_error(a), "");
  assert_string_equal(lsim_sim_error(a), "");
  LsimSim *b = load(text);
  double *q = lsim_sim_q(b);
  const int rc = lsim_sim_restore(b, path);
  if (rc) fprintf(stderr, "%s\n", lsim_sim_error(b));
  assert_int_equal(rc, 0);
  assert_ptr_equal(lsim_sim_q(b), q); /* the arrays keep their address */
  assert_int_equal(lsim_sim_steps_done(b), from);
  assert_memory_equal(&(double){lsim_sim_time(b)}, &(double){lsim_sim_time(a)}, sizeof(double));
  assert_int_equal(lsim_sim_contact_count(b), 0); /* no last step until the next */
  assert_int_equal(first_difference(b, ref, from, to), 0);
  /* The same from the state alone. */
  LsimSim *c = load(text);
  memcpy(lsim_sim_q(c), lsim_sim_q(a), (size_t)lsim_sim_nq(a) * sizeof(double));
  memcpy(lsim_sim_v(c), lsim_sim_v(a), (size_t)lsim_sim_nv(a) * sizeof(double));
  const int state_only = first_difference(c, ref, from, to);
  for (int k = 0; k < to - from; ++k) snap_free(&ref[k]);
  free(ref);
  lsim_sim_free(a), lsim_sim_free(b), lsim_sim_free(c);
  (void)err;
  unlink(path);
  return state_only;
}

/* PGS (tol 1e-6: the warm start changes the sweeps, hence the bits) with sleeping on, as
 * tests/test_resume.c: saved while the pile settles (step 30, warm starts) and once it
 * sleeps (step 100: sleep counters, the impulse cache of sleeping groups). */
static void test_pgs_pile_warm_start_and_sleep(void **unused) {
  (void)unused;
  char *text = pile("{\"name\": \"pgs\", \"tol\": 1e-6, \"max_iter\": 200}",
                    " \"sleep\": {\"enabled\": true, \"linear_speed\": 0.02, "
                    "\"angular_speed\": 0.1, \"time\": 0.1},");
  const int d30 = check_continuation(text, 30, 130);
  const int d100 = check_continuation(text, 100, 200);
  fprintf(stderr, "pgs: the state alone leaves the run at step %d after 30, %d after 100\n", d30, d100);
  assert_true(d30 > 0);
  assert_true(d100 > 0);
  /* The pile does sleep by step 100: no LCP left (static bodies and sleepers leave it). */
  LsimSim *s = load(text);
  run(s, 100);
  LsimStepReport r;
  assert_int_equal(lsim_sim_last_step(s, &r), 0);
  assert_int_equal(r.lcp_size, 0);
  lsim_sim_free(s);
  free(text);
}

/* Lemke (the scene's) and sparse Lemke (its final basis is the next step's start). */
static void test_lemke_pile(void **unused) {
  (void)unused;
  char *text = pile("\"lemke\"", "");
  const int d = check_continuation(text, 40, 100);
  free(text);
  text = pile("\"lemke_sparse\"", "");
  const int ds = check_continuation(text, 40, 100);
  free(text);
  fprintf(stderr, "lemke: the state alone leaves the run at step %d; lemke_sparse: %d\n", d, ds);
  assert_true(d > 0);
  assert_true(ds > 0);
}


/* A 2-D world built in code: two disks dropped on a plane, one with a sideways push (x0
 * shifts the upper disk: another world of the same parameters and bodies). */
static LsimSim *built_with(double x0, double mass, double radius) {
  LsimSim *sim = NULL;
  char err[512];
  assert_int_equal(lsim_sim_create(&sim, 2, 0.01, err, sizeof err), 0);
  assert_int_equal(lsim_sim_set_gravity(sim, (double[]){0, -9.81}), 0);
  LsimBodyDef g = lsim_default_body_def();
  g.name = "ground", g.type = LSIM_STATIC;
  const int ground = lsim_sim_add_body(sim, &g);
  LsimShapeDef plane = lsim_default_shape_def();
  plane.type = LSIM_PLANE;
  assert_int_equal(lsim_sim_add_shape(sim, ground, &plane), 0);
  for (int i = 0; i < 2; ++i) {
    LsimBodyDef b = lsim_default_body_def();
    b.name = i ? "upper" : "lower";
    b.inertia[2] = 0.125;
    b.mass = i ? mass : 1.0;
    b.position[0] = i ? x0 : 0.0, b.position[1] = 0.6 + 1.1 * i;
    b.velocity[0] = i ? 0.3 : 0.0;
    const int k = lsim_sim_add_body(sim, &b);
    assert_true(k >= 0);
    LsimShapeDef disk = lsim_default_shape_def(); /* radius 0.5, mu 0.5 */
    disk.radius = i ? radius : 0.5;
    assert_true(lsim_sim_add_shape(sim, k, &disk) >= 0);
  }
  assert_int_equal(lsim_sim_start(sim), 0);
  return sim;
}

static LsimSim *built(double x0) { return built_with(x0, 1.0, 0.5); }

/* A world built in code continues to the bit too; branching from one checkpoint twice in
 * the same simulation gives the same steps twice; saving does not touch the run. */
static void test_built_world_and_branching(void **unused) {
  (void)unused;
  char path[256];
  path_of(path, sizeof path, "b");
  LsimSim *ref = built(0.2);
  run(ref, 150);
  Snap end = snap(ref);
  LsimSim *a = built(0.2);
  run(a, 60);
  assert_int_equal(lsim_sim_save(a, path), 0);
  run(a, 90);
  Snap a_end = snap(a);
  assert_true(same(&a_end, &end)); /* the save left the run alone */
  LsimSim *b = built(0.2);
  for (int branch = 0; branch < 2; ++branch) {
    assert_int_equal(lsim_sim_restore(b, path), 0);
    assert_int_equal(lsim_sim_steps_done(b), 60);
    run(b, 90);
    Snap b_end = snap(b);
    assert_true(same(&b_end, &end));
    snap_free(&b_end);
  }
  /* The disks did touch: the last step has contacts with impulses. */
  assert_true(end.nc >= 2);
  assert_true(end.c[0].normal_impulse > 0.0);
  snap_free(&end), snap_free(&a_end);
  lsim_sim_free(ref), lsim_sim_free(a), lsim_sim_free(b);
  unlink(path);
}

static int restore_in_controller(LsimSim *sim, void *user) {
  int *rc = user;
  *rc = lsim_sim_restore(sim, "/nonexistent.h5");
  return 0;
}

/* What cannot be restored is refused, the message naming why, the simulation untouched. */
static void test_refusals(void **unused) {
  (void)unused;
  char path[256], other[256], scene_path[256];
  path_of(path, sizeof path, "r");
  path_of(other, sizeof other, "o");
  snprintf(scene_path, sizeof scene_path, "/tmp/lsim_test_checkpoint_%d_scene.json", (int)getpid());
  char *text = pile("{\"name\": \"pgs\", \"tol\": 1e-6, \"max_iter\": 200}", "");
  LsimSim *a = load(text);
  run(a, 20);
  assert_int_equal(lsim_sim_save(a, path), 0);

  /* Another scene: one box's density (the first difference, at its place in the scene). */
  char *heavier = strdup(text), *d = strstr(heavier, "\"density\": 500");
  assert_non_null(d);
  d[strlen("\"density\": 50")] = '1';
  LsimSim *b = load(heavier);
  const double q0 = lsim_sim_q(b)[0];
  assert_int_equal(lsim_sim_restore(b, path), LSIM_INVALID_INPUT);
  fprintf(stderr, "%s\n", lsim_sim_error(b));
  assert_non_null(strstr(lsim_sim_error(b), "density: 501 here, 500 in the run's scene"));
  assert_int_equal(lsim_sim_steps_done(b), 0);
  assert_memory_equal(&q0, lsim_sim_q(b), sizeof q0);
  lsim_sim_free(b);

  /* Another solver, or another option of the same solver. */
  b = load(text);
  assert_int_equal(lsim_sim_set_solver(b, "lemke", NULL), 0);
  assert_int_equal(lsim_sim_restore(b, path), LSIM_INVALID_INPUT);
  assert_non_null(strstr(lsim_sim_error(b), "its solver is pgs, the simulation's lemke"));
  LsimSolverConfig cfg = lsim_default_solver_config();
  cfg.tol = 1e-6, cfg.max_iter = 100;
  assert_int_equal(lsim_sim_set_solver(b, "pgs", &cfg), 0);
  assert_int_equal(lsim_sim_restore(b, path), LSIM_INVALID_INPUT);
  assert_non_null(strstr(lsim_sim_error(b), "its solver option max_iter is 200, the simulation's 100"));
  cfg.max_iter = 200;
  assert_int_equal(lsim_sim_set_solver(b, "pgs", &cfg), 0);
  assert_int_equal(lsim_sim_restore(b, path), 0); /* the same settings: restored */
  assert_int_equal(lsim_sim_steps_done(b), 20);

  /* An open record (its rows would go back in time). */
  assert_int_equal(lsim_sim_record(b, other), 0);
  assert_int_equal(lsim_sim_restore(b, path), LSIM_INVALID_INPUT);
  assert_non_null(strstr(lsim_sim_error(b), "a record is open"));
  /* A checkpoint at the open record's path, by another name, would be replaced at its close
     (before: saved, then lost when the record closed). */
  char *slash = strrchr(other, '/'), dotted[300];
  snprintf(dotted, sizeof dotted, "%.*s/./%s", (int)(slash - other), other, slash + 1);
  assert_int_equal(lsim_sim_save(b, dotted), LSIM_INVALID_INPUT);
  assert_non_null(strstr(lsim_sim_error(b), "is the open record's path"));
  run(b, 3);
  assert_int_equal(lsim_sim_record_close(b, 1), 0);
  /* A record of the library holds no stepper memory. */
  assert_int_equal(lsim_sim_restore(b, other), LSIM_INVALID_INPUT);
  assert_int_equal(lsim_sim_steps_done(b), 23);
  fprintf(stderr, "%s\n", lsim_sim_error(b));
  assert_non_null(strstr(lsim_sim_error(b), "no stepper memory (/resume)"));
  lsim_sim_free(b);

  /* A world built in code and a scene's are not the same world. */
  b = built(0.2);
  assert_int_equal(lsim_sim_restore(b, path), LSIM_INVALID_INPUT);
  assert_non_null(strstr(lsim_sim_error(b), "it holds a scene's state, the simulation is a world built in code"));
  assert_int_equal(lsim_sim_save(b, other), 0);
  LsimSim *c = built(0.25); /* same parameters and bodies, another initial state */
  assert_int_equal(lsim_sim_restore(c, other), LSIM_INVALID_INPUT);
  fprintf(stderr, "%s\n", lsim_sim_error(c));
  assert_non_null(strstr(lsim_sim_error(c), "initial state differs from the scene's at body 'upper', q column 0"));
  lsim_sim_free(c);
  /* The same initial state, another body mass or shape size: another world (before: both
     restored, the steps then of another world than the checkpoint's). */
  c = built_with(0.2, 2.0, 0.5);
  assert_int_equal(lsim_sim_restore(c, other), LSIM_INVALID_INPUT);
  assert_non_null(strstr(lsim_sim_error(c), "body 2 ('upper') is of type 0 and mass 1 in the file, of type 0 and mass 2 here"));
  lsim_sim_free(c);
  c = built_with(0.2, 1.0, 0.45);
  assert_int_equal(lsim_sim_restore(c, other), LSIM_INVALID_INPUT);
  assert_non_null(strstr(lsim_sim_error(c), "shape 2 (of body 'upper') differs in /shapes/radius"));
  lsim_sim_free(c);
  lsim_sim_free(b);

  /* Missing and unreadable files; NULL and empty paths; a NULL simulation. */
  assert_int_equal(lsim_sim_restore(a, "/nonexistent/c.h5"), LSIM_IO_ERROR);
  assert_non_null(strstr(lsim_sim_error(a), "/nonexistent/c.h5: cannot open: No such file or directory"));
  assert_int_equal(lsim_sim_restore(a, "/tmp"), LSIM_IO_ERROR); /* was "cannot open as an HDF5 file" */
  assert_non_null(strstr(lsim_sim_error(a), "/tmp: is a directory (a run file of lcpsim is a file)"));
  assert_int_equal(lsim_sim_restore(a, "data/pile_10.json"), LSIM_IO_ERROR);
  assert_int_equal(lsim_sim_save(a, "/nonexistent/c.h5"), LSIM_IO_ERROR);
  assert_int_equal(lsim_sim_save(a, NULL), LSIM_INVALID_INPUT);
  assert_int_equal(lsim_sim_restore(a, ""), LSIM_INVALID_INPUT);
  assert_int_equal(lsim_sim_save(NULL, path), LSIM_INVALID_INPUT);
  assert_int_equal(lsim_sim_restore(NULL, path), LSIM_INVALID_INPUT);
  assert_int_equal(lsim_sim_steps_done(a), 20);

  /* A state that is not finite is no checkpoint (before: written; its restore gave a state
     every step refused). */
  const double keep = lsim_sim_v(a)[4];
  lsim_sim_v(a)[4] = 0.0 / 0.0;
  assert_int_equal(lsim_sim_save(a, other), LSIM_INVALID_INPUT);
  assert_string_equal(lsim_sim_error(a), "save: v[4] is not finite: a checkpoint of this state could not be continued");
  lsim_sim_v(a)[4] = keep;

  /* From the simulation's own controller. */
  int in_rc = 1;
  lsim_sim_set_controller(a, restore_in_controller, &in_rc);
  assert_true(lsim_sim_step(a) >= 0);
  assert_int_equal(in_rc, LSIM_INVALID_INPUT);
  lsim_sim_set_controller(a, NULL, NULL);
  assert_int_equal(lsim_sim_steps_done(a), 21);

  /* Not started. */
  LsimSim *e = NULL;
  char err[256];
  assert_int_equal(lsim_sim_create(&e, 2, 0.01, err, sizeof err), 0);
  assert_int_equal(lsim_sim_save(e, path), LSIM_INVALID_INPUT);
  assert_int_equal(lsim_sim_restore(e, path), LSIM_INVALID_INPUT);
  assert_non_null(strstr(lsim_sim_error(e), "not started"));
  lsim_sim_free(e);

  /* The scene file the simulation was loaded from is no checkpoint: refused, kept. */
  FILE *f = fopen(scene_path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  char err2[512];
  assert_int_equal(lsim_sim_load(&e, scene_path, err2, sizeof err2), 0);
  assert_int_equal(lsim_sim_save(e, scene_path), LSIM_INVALID_INPUT);
  assert_non_null(strstr(lsim_sim_error(e), "scene file"));
  lsim_sim_free(e);
  assert_int_equal(lsim_sim_load(&e, scene_path, err2, sizeof err2), 0); /* still the scene */
  lsim_sim_free(e);

  lsim_sim_free(a);
  free(text), free(heavier);
  unlink(path), unlink(other), unlink(scene_path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pgs_pile_warm_start_and_sleep),
      cmocka_unit_test(test_lemke_pile),
      cmocka_unit_test(test_built_world_and_branching),
      cmocka_unit_test(test_refusals),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
