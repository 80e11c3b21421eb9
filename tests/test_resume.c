/* test_resume.c: a stepper given another's memory (contact/step_memory.c) takes the same
 * steps to the bit; the scene comparison of --resume (scene/resume.c) names the first
 * difference. The whole command (files, signals, refusals) is tests/e2e/resume.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact/step.h"
#include "contact/world.h"
#include "scene/resume.h"
#include "scene/scene.h"

/* data/pile_10.json on PGS (tol 1e-6: the warm start changes the sweeps, hence the bits)
 * with sleeping on (the boxes settle and sleep from about step 45). */
static void load_pile(LsimModel *m, LsimState *st) {
  LsimSceneError serr;
  char *text = NULL;
  assert_int_equal(lsim_scene_load("data/pile_10.json", m, st, &text, &serr), 0);
  free(text);
  snprintf(m->solver.name, sizeof m->solver.name, "pgs");
  m->solver.tol = 1e-6;
  m->solver.max_iter = 200;
  m->sleep = (LsimSleep){1, 0.02, 0.1, 0.1};
}

static void copy_state(const LsimModel *m, const LsimState *from, LsimState *to) {
  assert_int_equal(lsim_state_init(to, m), 0);
  memcpy(to->q, from->q, (size_t)m->nq * sizeof(double));
  memcpy(to->v, from->v, (size_t)m->nv * sizeof(double));
  to->time = from->time, to->step = from->step;
}

/* Steps a and b count steps side by side; returns the first step (1-based from now) at
 * which their q, v or contact impulses differ in any bit, 0 when none does. */
static int first_difference(LsimStepper *a, LsimState *sa, LsimStepper *b, LsimState *sb,
                            const LsimModel *m, int count) {
  for (int k = 1; k <= count; ++k) {
    lsim_step(a, m, sa, NULL);
    lsim_step(b, m, sb, NULL);
    if (memcmp(sa->q, sb->q, (size_t)m->nq * sizeof(double)) ||
        memcmp(sa->v, sb->v, (size_t)m->nv * sizeof(double)))
      return k;
    const LsimContactSet *ca = lsim_stepper_contacts(a), *cb = lsim_stepper_contacts(b);
    if (ca->count != cb->count) return k;
    for (int c = 0; c < ca->count; ++c)
      if (ca->contacts[c].id != cb->contacts[c].id ||
          memcmp(&ca->contacts[c].normal_impulse, &cb->contacts[c].normal_impulse, sizeof(double)) ||
          memcmp(ca->contacts[c].friction_impulse, cb->contacts[c].friction_impulse, 3 * sizeof(double)))
        return k;
  }
  return 0;
}

/* After k steps of stepper a, a new stepper b given a's memory and state goes on as a does
 * for 150 steps, to the bit (k = 30: settling, warm starts; k = 100: asleep, the impulse
 * cache full); a new stepper given the state alone does not (the memory is what it
 * lacks). */
static void test_memory_carries_the_run(void **unused) {
  (void)unused;
  for (int split = 0; split < 2; ++split) {
    const int k = split ? 100 : 30;
    LsimModel m;
    LsimState sa, sb, sc;
    load_pile(&m, &sa);
    char err[256];
    LsimStepper *a, *b, *c;
    assert_int_equal(lsim_stepper_create(&a, &m, NULL, err, sizeof err), 0);
    for (int i = 0; i < k; ++i) lsim_step(a, &m, &sa, NULL);
    assert_int_equal(lsim_stepper_sleeping(a, NULL), split ? 10 : 0);
    LsimStepMemory mem;
    memset(&mem, 0, sizeof mem);
    assert_int_equal(lsim_stepper_memory_get(a, &m, &mem), 0);
    if (split) assert_true(mem.ncache > 0 && mem.sleep && mem.asleep[1] == 1);
    else assert_true(mem.ncontacts > 0 && mem.nz > mem.ncontacts);
    copy_state(&m, &sa, &sb);
    copy_state(&m, &sa, &sc);
    assert_int_equal(lsim_stepper_create(&b, &m, NULL, err, sizeof err), 0);
    assert_int_equal(lsim_stepper_memory_set(b, &m, &sb, &mem, err, sizeof err), 0);
    assert_int_equal(lsim_stepper_create(&c, &m, NULL, err, sizeof err), 0);
    /* c first (a would have moved on): the state alone differs within a few steps. */
    LsimState sa2;
    copy_state(&m, &sa, &sa2);
    LsimStepper *a2;
    assert_int_equal(lsim_stepper_create(&a2, &m, NULL, err, sizeof err), 0);
    assert_int_equal(lsim_stepper_memory_set(a2, &m, &sa2, &mem, err, sizeof err), 0);
    const int without = first_difference(a2, &sa2, c, &sc, &m, 150);
    assert_true(without >= 1 && without <= 5);
    assert_int_equal(first_difference(a, &sa, b, &sb, &m, 150), 0);
    lsim_step_memory_free(&mem);
    lsim_stepper_free(a), lsim_stepper_free(b), lsim_stepper_free(c), lsim_stepper_free(a2);
    lsim_state_free(&sa), lsim_state_free(&sb), lsim_state_free(&sc), lsim_state_free(&sa2);
    lsim_model_free(&m);
  }
}

/* A memory that does not fit the model is refused, its first inconsistency named, and the
 * stepper left as it was. */
static void test_memory_refused(void **unused) {
  (void)unused;
  LsimModel m;
  LsimState st;
  load_pile(&m, &st);
  char err[256];
  LsimStepper *s;
  assert_int_equal(lsim_stepper_create(&s, &m, NULL, err, sizeof err), 0);
  uint64_t id = 7;
  int nvar = 40;
  double z[40] = {0};
  LsimStepMemory mem;
  memset(&mem, 0, sizeof mem);
  mem.ncontacts = 1, mem.id = &id, mem.nvar = &nvar, mem.nz = 40, mem.z = z, mem.sleep = 1;
  assert_int_equal(lsim_stepper_memory_set(s, &m, &st, &mem, err, sizeof err), LSIM_INVALID_INPUT);
  assert_non_null(strstr(err, "contact 0 has 40 variables"));
  nvar = 6, mem.nz = 5;
  assert_int_equal(lsim_stepper_memory_set(s, &m, &st, &mem, err, sizeof err), LSIM_INVALID_INPUT);
  assert_non_null(strstr(err, "the contacts have 6 variables, the values are 5"));
  mem.nz = 6, mem.sleep = 0;
  assert_int_equal(lsim_stepper_memory_set(s, &m, &st, &mem, err, sizeof err), LSIM_INVALID_INPUT);
  assert_non_null(strstr(err, "sleeping is off in the memory, on in the scene"));
  lsim_stepper_free(s);
  lsim_state_free(&st);
  lsim_model_free(&m);
}

/* Scenes compared as JSON: numbers by value, layout and the keys that do not touch the
 * trajectory ignored; the first difference named at its place in the scene. */
static void test_scene_comparison(void **unused) {
  (void)unused;
  char err[1024];
  const char *run = "{\"lcpsim\": 1, \"steps\": 10, \"name\": \"a\", \"time_step\": 0.01,\n"
                    " \"bodies\": [{\"mass\": 1.0, \"position\": 0}]}";
  /* Equal: another step count, name and layout, 1 for 1.0. */
  assert_int_equal(lsim_resume_compare_scenes("{\"lcpsim\": 1, \"steps\": 99, \"time_step\": 0.01, "
                                              "\"bodies\": [{\"mass\": 1, \"position\": 0}]}",
                                              "s.json", run, "r.h5", err, sizeof err), 0);
  /* A mass: its place, both values. */
  assert_int_equal(lsim_resume_compare_scenes("{\"lcpsim\": 1, \"steps\": 10, \"time_step\": 0.01,\n"
                                              "  \"bodies\": [{\"mass\": 2.5, \"position\": 0}]}",
                                              "s.json", run, "r.h5", err, sizeof err),
                   LSIM_INVALID_INPUT);
  assert_string_equal(err, "s.json:2:23: bodies[0].mass: 2.5 here, 1 in the run's scene (r.h5): "
                           "the run is not of this scene");
  /* A key the run's scene gives that this one leaves to its default. */
  assert_int_equal(lsim_resume_compare_scenes("{\"lcpsim\": 1, \"time_step\": 0.01, "
                                              "\"bodies\": [{\"mass\": 1}]}",
                                              "s.json", run, "r.h5", err, sizeof err),
                   LSIM_INVALID_INPUT);
  assert_non_null(strstr(err, "bodies[0]: the run's scene gives \"position\": 0, this one does not"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_memory_carries_the_run),
      cmocka_unit_test(test_memory_refused),
      cmocka_unit_test(test_scene_comparison),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
