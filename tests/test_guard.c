/* test_guard.c: the divergence guard (contact/guard.h) and the scene's "limits"
 * (scene/scene.c): which faults it finds, in which order, what it names, and how the
 * scene sets and checks the bounds. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact/contact.h"
#include "contact/guard.h"
#include "contact/world.h"
#include "lcp/lcp.h"
#include "scene/scene.h"

/* A 3-D scene: a static ground and two balls, at rest, 1 m apart; limits as given. */
static void load3(const char *limits, LsimModel *m, LsimState *s) {
  char text[1024];
  snprintf(text, sizeof text,
           "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.01, \"steps\": 10,%s\n"
           " \"bodies\": [\n"
           "  {\"name\": \"ground\", \"type\": \"static\", \"shapes\": [{\"type\": \"plane\"}]},\n"
           "  {\"name\": \"a\", \"mass\": 1, \"position\": [0, 0, 1],"
           " \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.1}]},\n"
           "  {\"name\": \"b\", \"mass\": 1, \"position\": [1, 0, 1],"
           " \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.1}]}]}\n",
           limits);
  LsimSceneError err;
  const int rc = lsim_scene_parse(text, "guard.json", m, s, &err);
  if (rc) print_error("%s: %s\n", err.path, err.message);
  assert_int_equal(rc, 0);
}

/* Defaults: 1e6 m, 1e4 m/s, 1e6 rad/s; a state at rest within them passes. */
static void test_defaults_pass(void **state) {
  (void)state;
  LsimModel m;
  LsimState s;
  load3("", &m, &s);
  assert_true(m.limits.max_position == 1e6);
  assert_true(m.limits.max_speed == 1e4);
  assert_true(m.limits.max_angular_speed == 1e6);
  LsimStateFault f;
  assert_int_equal(lsim_state_check(&m, &s, NULL, &f), LSIM_FAULT_NONE);
  assert_int_equal(f.body, -1);
  lsim_state_free(&s);
  lsim_model_free(&m);
}

/* Non-finite coordinates: named by body, quantity and component; the first body in
 * order wins, and a non-finite value is reported before an earlier body's bound. */
static void test_not_finite(void **state) {
  (void)state;
  LsimModel m;
  LsimState s;
  load3("", &m, &s);
  const LsimBody *a = &m.bodies[1], *b = &m.bodies[2];
  LsimStateFault f;
  s.v[b->v_offset + 4] = NAN; /* b's wy */
  assert_int_equal(lsim_state_check(&m, &s, NULL, &f), LSIM_FAULT_NOT_FINITE);
  assert_int_equal(f.body, 2);
  assert_string_equal(f.quantity, "angular velocity");
  assert_string_equal(f.component, "wy");
  s.q[a->q_offset + 0] = 2e6; /* a beyond max_position: b's NaN still comes first */
  assert_int_equal(lsim_state_check(&m, &s, NULL, &f), LSIM_FAULT_NOT_FINITE);
  assert_int_equal(f.body, 2);
  s.q[a->q_offset + 3] = INFINITY; /* a's qw: now a is first */
  assert_int_equal(lsim_state_check(&m, &s, NULL, &f), LSIM_FAULT_NOT_FINITE);
  assert_int_equal(f.body, 1);
  assert_string_equal(f.quantity, "orientation");
  assert_string_equal(f.component, "qw");
  char line[256];
  lsim_state_fault_format(&m, 7, &f, line, sizeof line);
  assert_string_equal(line, "step 7: body 'a': orientation qw is inf (not finite: an overflow, "
                            "beyond the double range of 1.8e308)");
  /* A NaN (inf - inf of an overflowed step) is named as one, without the sign printf gives
     it: it read "angular velocity wy is -nan (not finite)". */
  s.q[a->q_offset + 3] = 1.0;
  s.v[b->v_offset + 4] = -NAN;
  assert_int_equal(lsim_state_check(&m, &s, NULL, &f), LSIM_FAULT_NOT_FINITE);
  lsim_state_fault_format(&m, 3, &f, line, sizeof line);
  assert_string_equal(line, "step 3: body 'b': angular velocity wy is NaN (not finite: an overflow, "
                            "beyond the double range of 1.8e308)");
  lsim_state_free(&s);
  lsim_model_free(&m);
}

/* Bounds are on norms, inclusive: |(3, 4, 0)| = 5 m passes a limit of 5 m, 5.000001 m
 * does not (exact: 3-4-5); speed and angular speed alike. Limits from the scene. */
static void test_bounds(void **state) {
  (void)state;
  LsimModel m;
  LsimState s;
  load3(" \"limits\": {\"max_position\": 5, \"max_speed\": 10, \"max_angular_speed\": 100},",
        &m, &s);
  const LsimBody *b = &m.bodies[2];
  double *q = s.q + b->q_offset, *v = s.v + b->v_offset;
  LsimStateFault f;
  q[0] = 3, q[1] = 4, q[2] = 0;
  assert_int_equal(lsim_state_check(&m, &s, NULL, &f), LSIM_FAULT_NONE);
  q[0] = 3.000001;
  assert_int_equal(lsim_state_check(&m, &s, NULL, &f), LSIM_FAULT_BEYOND_LIMIT);
  assert_int_equal(f.body, 2);
  assert_string_equal(f.quantity, "position");
  assert_string_equal(f.limit_key, "max_position");
  assert_true(f.limit == 5.0 && fabs(f.value - hypot(3.000001, 4)) < 1e-12);
  q[0] = 0;
  v[0] = 6, v[1] = 0, v[2] = 8; /* |v| = 10: at the limit */
  assert_int_equal(lsim_state_check(&m, &s, NULL, &f), LSIM_FAULT_NONE);
  v[2] = 8.01;
  assert_int_equal(lsim_state_check(&m, &s, NULL, &f), LSIM_FAULT_BEYOND_LIMIT);
  assert_string_equal(f.quantity, "velocity");
  char line[256];
  lsim_state_fault_format(&m, 12, &f, line, sizeof line);
  assert_string_equal(line, "step 12: body 'b': |velocity| = 10.01 m/s, beyond limits.max_speed = 10 m/s");
  /* Beyond by round-off: the value printed with the digits that show it (it read
     "|velocity| = 10 m/s, beyond limits.max_speed = 10 m/s"). */
  v[2] = 8.000000000000002;
  assert_int_equal(lsim_state_check(&m, &s, NULL, &f), LSIM_FAULT_BEYOND_LIMIT);
  lsim_state_fault_format(&m, 12, &f, line, sizeof line);
  char want[128];
  snprintf(want, sizeof want, "step 12: body 'b': |velocity| = %.17g m/s, beyond limits.max_speed = 10 m/s",
           f.value);
  assert_true(f.value > 10.0);
  assert_string_equal(line, want);
  v[2] = 0;
  v[3] = 60, v[5] = 80.5; /* |w| = 100.3 rad/s */
  assert_int_equal(lsim_state_check(&m, &s, NULL, &f), LSIM_FAULT_BEYOND_LIMIT);
  assert_string_equal(f.quantity, "angular velocity");
  assert_string_equal(f.limit_key, "max_angular_speed");
  lsim_state_free(&s);
  lsim_model_free(&m);
}

/* A contact row with a non-finite impulse stops the run too, naming its first body. */
static void test_contact_impulses(void **state) {
  (void)state;
  LsimModel m;
  LsimState s;
  load3("", &m, &s);
  LsimContact c[2];
  memset(c, 0, sizeof c);
  c[0].body[0] = 1, c[0].body[1] = 0;
  c[1].body[0] = 2, c[1].body[1] = 0;
  LsimContactSet set;
  memset(&set, 0, sizeof set);
  set.count = 2, set.contacts = c;
  LsimStateFault f;
  assert_int_equal(lsim_state_check(&m, &s, &set, &f), LSIM_FAULT_NONE);
  c[1].friction_impulse[2] = NAN;
  assert_int_equal(lsim_state_check(&m, &s, &set, &f), LSIM_FAULT_NOT_FINITE);
  assert_int_equal(f.contact, 1);
  assert_int_equal(f.body, 2);
  assert_string_equal(f.quantity, "friction impulse");
  c[0].normal_impulse = -INFINITY;
  assert_int_equal(lsim_state_check(&m, &s, &set, &f), LSIM_FAULT_NOT_FINITE);
  assert_int_equal(f.contact, 0);
  assert_string_equal(f.quantity, "normal impulse");
  lsim_state_free(&s);
  lsim_model_free(&m);
}

/* The scene's "limits": each value > 0, known keys only, and the initial state within
 * them; errors name the JSON path. */
static void test_scene_limits(void **state) {
  (void)state;
  static const struct {
    const char *text, *path, *message;
  } bad[] = {
      {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 1, \"limits\": {\"max_speed\": 0},"
       " \"bodies\": [{\"name\": \"a\"}]}",
       "limits.max_speed", "must be > 0"},
      {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 1, \"limits\": {\"max_sped\": 3},"
       " \"bodies\": [{\"name\": \"a\"}]}",
       "limits.max_sped", "did you mean 'max_speed'"},
      {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 1, \"limits\": [1],"
       " \"bodies\": [{\"name\": \"a\"}]}",
       "limits", "must be an object"},
      {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 1, \"limits\": {\"max_position\": 10},"
       " \"bodies\": [{\"name\": \"far\", \"position\": -20}]}",
       "limits.max_position", "body 'far' starts with |position| = 20 m, beyond this limit, 10 m"},
      {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 1,"
       " \"bodies\": [{\"name\": \"fast\", \"velocity\": 2e4}]}",
       "bodies[0].velocity", "body 'fast' starts with |velocity| = 2e+04 m/s, beyond the default "
       "limits.max_speed, 10000 m/s"},
      /* Norms of huge values are no inf (the squares overflowed: "= inf m"). */
      {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 1, \"dimension\": 3,"
       " \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"position\": [0, 0, 1e10], \"shapes\": [{\"type\": \"point\"}], \"inertia\": [1, 1, 1]},"
       " {\"name\": \"b\", \"mass\": 1, \"position\": [1e300, 1e300, 0], \"shapes\": [{\"type\": \"point\"}], \"inertia\": [1, 1, 1]}],"
       " \"limits\": {\"max_position\": 1e300}}",
       "limits.max_position", "body 'b' starts with |position| = 1.414e+300 m, beyond this limit"},
      /* A grid copy beyond the default: the place is the body it copies (its position
         is the grid's doing). */
      {"{\"lcpsim\": 1, \"time_step\": 0.1, \"steps\": 1, \"dimension\": 3,"
       " \"bodies\": [{\"name\": \"s\", \"mass\": 1, \"shapes\": [{\"type\": \"sphere\", \"radius\": 1}],"
       " \"grid\": {\"count\": [1, 1, 3], \"spacing\": [1, 1, 1e6]}}]}",
       "bodies[0]", "body 's_0_0_2' starts with |position| = 2e+06 m, beyond the default"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    LsimModel m;
    LsimState s;
    LsimSceneError err;
    assert_int_equal(lsim_scene_parse(bad[i].text, "limits.json", &m, &s, &err), LSIM_INVALID_INPUT);
    if (strcmp(err.path, bad[i].path) || !strstr(err.message, bad[i].message))
      print_error("case %zu: %s: %s\n", i, err.path, err.message);
    assert_string_equal(err.path, bad[i].path);
    assert_non_null(strstr(err.message, bad[i].message));
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_defaults_pass),
      cmocka_unit_test(test_not_finite),
      cmocka_unit_test(test_bounds),
      cmocka_unit_test(test_contact_impulses),
      cmocka_unit_test(test_scene_limits),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
