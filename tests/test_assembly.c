/* test_assembly.c: consistent initial conditions for joints (contact/assembly.h, scene key
 * "assemble"): a double pendulum and a 3-D chain whose initial positions and velocities
 * violate their joints are projected onto them to 1e-12; an impossible set of joints is
 * an error naming the joint and the residual. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "contact/assembly.h"
#include "contact/constraints.h"
#include "contact/contact.h"
#include "lcp/lcp.h"
#include "scene/scene.h"

/* The largest |J v + bias| over the joint rows of st. */
static double joint_rate(const LsimModel *m, const LsimState *st) {
  LsimContactSet set;
  memset(&set, 0, sizeof set);
  assert_int_equal(lsim_constraint_rows(m, st, st->time, &set), 0);
  double worst = 0.0;
  for (int c = 0; c < set.count; ++c) {
    const LsimContact *ct = &set.contacts[c];
    if (ct->kind != LSIM_CONTACT_EQUALITY) continue;
    const LsimJacRow *row = &set.rows[ct->first_row];
    double jv = ct->bias;
    for (int k = 0; k < 2; ++k) {
      if (row->body[k] < 0) continue;
      const LsimBody *b = &m->bodies[row->body[k]];
      for (int d = 0; d < b->nv; ++d) jv += row->j[k][d] * st->v[b->v_offset + d];
    }
    worst = fmax(worst, fabs(jv));
  }
  lsim_contacts_free(&set);
  return worst;
}

/* Parses scene text json into m and st, the test failing with the reader's message. */
static void parse_or_fail(const char *json, LsimModel *m, LsimState *st) {
  LsimSceneError se;
  if (lsim_scene_parse(json, "test", m, st, &se)) {
    char line[512];
    lsim_scene_error_format(&se, line, sizeof line);
    fail_msg("%s", line);
  }
}

/* Loads json (assemble on) and checks every joint within 1e-12 m, every joint row's
 * velocity within 1e-12 m/s (also as lsim_joint_velocity_error reports it per joint), and
 * that the scene's initial errors were kept. Returns the first joint's initial velocity
 * error. */
static double assembled(const char *json, double min_initial) {
  LsimModel m;
  LsimState st;
  parse_or_fail(json, &m, &st);
  assert_true(m.assemble);
  double initial = 0.0;
  for (int j = 0; j < m.njoints; ++j) {
    const double e = lsim_joint_error(&m, &st, 0.0, j);
    if (e > 1e-12) fail_msg("joint '%s' error %.3g after assembly", m.joints[j].name, e);
    initial = fmax(initial, m.joints[j].initial_error);
    const double ve = lsim_joint_velocity_error(&m, &st, j);
    if (!(ve >= 0.0 && ve <= 1e-12)) fail_msg("joint '%s' velocity error %.3g after assembly", m.joints[j].name, ve);
  }
  assert_true(initial >= min_initial);
  const double rate = joint_rate(&m, &st);
  if (rate > 1e-12) fail_msg("joint velocity %.3g after assembly", rate);
  const double first = m.joints[0].initial_velocity_error;
  lsim_state_free(&st);
  lsim_model_free(&m);
  return first;
}

/* The double pendulum of data/double_pendulum.json with its lower rod moved 0.1 m off
 * the elbow and turned, and velocities that pull the pins apart. The shoulder's initial
 * velocity error is its pin point's speed component of largest size: the upper rod's end
 * (-0.5, 0) moves at v + w x r = (0.3, -0.2) + (0, -0.5) = (0.3, -0.7), so 0.7 m/s. */
static void test_double_pendulum(void **state) {
  (void)state;
  const double ve0 = assembled(
      "{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.001, \"steps\": 10, \"assemble\": true,"
      " \"gravity\": [0, -9.81],"
      " \"bodies\": [{\"name\": \"upper\", \"mass\": 1, \"inertia\": 0.0833, \"position\": [0.55, 0.02],"
      "   \"velocity\": [0.3, -0.2], \"angular_velocity\": 1.0},"
      "  {\"name\": \"lower\", \"mass\": 1, \"inertia\": 0.0833, \"position\": [1.08, -0.45],"
      "   \"orientation\": -1.4, \"velocity\": [-0.5, 0.4], \"angular_velocity\": -2.0}],"
      " \"joints\": [{\"name\": \"shoulder\", \"type\": \"pin\", \"ends\": [{\"body\": \"upper\", \"point\": [-0.5, 0]}, {\"world\": [0, 0]}]},"
      "  {\"name\": \"elbow\", \"type\": \"pin\", \"ends\": [{\"body\": \"lower\", \"point\": [-0.5, 0]}, {\"body\": \"upper\", \"point\": [0.5, 0]}]}]}",
      0.05);
  assert_true(fabs(ve0 - 0.7) <= 1e-15);
}

/* A 3-D chain of two boxes on ball joints and a rod, displaced and spinning. */
static void test_chain_3d(void **state) {
  (void)state;
  assembled(
      "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.001, \"steps\": 10, \"assemble\": true,"
      " \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"position\": [0.6, 0.1, -0.05], \"angular_velocity\": [1, 2, 0.5],"
      "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.5, 0.1, 0.1]}]},"
      "  {\"name\": \"b\", \"mass\": 2, \"position\": [1.5, -0.1, 0.1], \"orientation\": {\"axis\": [0, 0, 1], \"angle\": 0.3},"
      "   \"velocity\": [0, 1, 0], \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.5, 0.1, 0.1]}]}],"
      " \"joints\": [{\"name\": \"root\", \"type\": \"pin\", \"ends\": [{\"body\": \"a\", \"point\": [-0.5, 0, 0]}, {\"world\": [0, 0, 0]}]},"
      "  {\"name\": \"link\", \"type\": \"rod\", \"length\": 0.05, \"ends\": [{\"body\": \"b\", \"point\": [-0.5, 0, 0]}, {\"body\": \"a\", \"point\": [0.5, 0, 0]}]}]}",
      0.05);
}

/* One body pinned at the same point to two world points 1 m apart cannot be assembled:
 * the error names a joint and its residual (about 0.5 m: the least-squares compromise). */
static void test_impossible(void **state) {
  (void)state;
  const char *json =
      "{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.001, \"steps\": 10, \"assemble\": true,"
      " \"bodies\": [{\"name\": \"bar\", \"mass\": 1, \"inertia\": 0.1}],"
      " \"joints\": [{\"name\": \"left\", \"type\": \"pin\", \"ends\": [{\"body\": \"bar\"}, {\"world\": [0, 0]}]},"
      "  {\"name\": \"right\", \"type\": \"pin\", \"ends\": [{\"body\": \"bar\"}, {\"world\": [1, 0]}]}]}";
  LsimModel m;
  LsimState st;
  LsimSceneError se;
  assert_true(lsim_scene_parse(json, "test", &m, &st, &se) < 0);
  assert_string_equal(se.path, "assemble");
  if (!strstr(se.message, "joint 'left'") && !strstr(se.message, "joint 'right'"))
    fail_msg("message names no joint: %s", se.message);
  assert_non_null(strstr(se.message, "0.5"));
}

/* lsim_joint_errors against what it replaces: per joint, the position error of
 * lsim_joint_error and the largest |J v + bias| of the joint's rows from
 * lsim_constraint_rows (every row built), the same bits (the same formulas in the same
 * order; any difference is a fault), at a time t > 0 where the moving anchor's path
 * contributes its rate. Pins and rods in 2-D and 3-D, world, static, moving and body ends. */
static void same_as_rows(const char *json, double t) {
  LsimModel m;
  LsimState st;
  parse_or_fail(json, &m, &st);
  st.time = t;
  LsimContactSet set;
  memset(&set, 0, sizeof set);
  assert_int_equal(lsim_constraint_rows(&m, &st, st.time, &set), 0);
  assert_true(m.njoints >= 3);
  for (int j = 0; j < m.njoints; ++j) {
    double worst = 0.0;
    int rows = 0;
    for (int c = 0; c < set.count; ++c) {
      const LsimContact *ct = &set.contacts[c];
      if (ct->kind != LSIM_CONTACT_EQUALITY || ct->source != j) continue;
      const LsimJacRow *row = &set.rows[ct->first_row];
      double jv = ct->bias;
      for (int k = 0; k < 2; ++k) {
        if (row->body[k] < 0) continue;
        const LsimBody *b = &m.bodies[row->body[k]];
        for (int d = 0; d < b->nv; ++d) jv += row->j[k][d] * st.v[b->v_offset + d];
      }
      worst = fmax(worst, fabs(jv));
      ++rows;
    }
    assert_int_equal(rows, lsim_joint_rows(&m, j));
    double pe = -1.0, ve = -1.0;
    lsim_joint_errors(&m, &st, st.time, j, &pe, &ve);
    const double pe0 = lsim_joint_error(&m, &st, st.time, j);
    if (memcmp(&pe, &pe0, sizeof pe) || memcmp(&ve, &worst, sizeof ve))
      fail_msg("joint '%s': errors %.17g m, %.17g m/s; from the rows %.17g m, %.17g m/s",
               m.joints[j].name, pe, ve, pe0, worst);
    /* A scene off its joints: the velocity error is not the trivial 0. */
    assert_true(ve > 0.0);
  }
  lsim_contacts_free(&set);
  lsim_state_free(&st);
  lsim_model_free(&m);
}

static void test_errors_same_as_rows(void **state) {
  (void)state;
  same_as_rows(
      "{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.001, \"steps\": 10,"
      " \"bodies\": [{\"name\": \"post\", \"type\": \"static\", \"position\": [2, 0], \"orientation\": 0.2},"
      "  {\"name\": \"upper\", \"mass\": 1, \"inertia\": 0.0833, \"position\": [0.55, 0.02],"
      "   \"velocity\": [0.3, -0.2], \"angular_velocity\": 1.0},"
      "  {\"name\": \"lower\", \"mass\": 1, \"inertia\": 0.0833, \"position\": [1.08, -0.45],"
      "   \"orientation\": -1.4, \"velocity\": [-0.5, 0.4], \"angular_velocity\": -2.0}],"
      " \"joints\": [{\"name\": \"shoulder\", \"type\": \"pin\", \"ends\": [{\"body\": \"upper\", \"point\": [-0.5, 0]},"
      "   {\"path\": {\"origin\": [0, 0], \"velocity\": [0.1, 0.3], \"amplitude\": [0.2, 0.1], \"frequency\": 1.5}}]},"
      "  {\"name\": \"elbow\", \"type\": \"pin\", \"ends\": [{\"body\": \"lower\", \"point\": [-0.5, 0]}, {\"body\": \"upper\", \"point\": [0.5, 0]}]},"
      "  {\"name\": \"stay\", \"type\": \"rod\", \"length\": 0.7, \"ends\": [{\"body\": \"lower\", \"point\": [0.5, 0]}, {\"body\": \"post\", \"point\": [0, 0.3]}]}]}",
      0.37);
  same_as_rows(
      "{\"lcpsim\": 1, \"dimension\": 3, \"time_step\": 0.001, \"steps\": 10,"
      " \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"position\": [0.6, 0.1, -0.05], \"angular_velocity\": [1, 2, 0.5],"
      "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.5, 0.1, 0.1]}]},"
      "  {\"name\": \"b\", \"mass\": 2, \"position\": [1.5, -0.1, 0.1], \"orientation\": {\"axis\": [0, 0, 1], \"angle\": 0.3},"
      "   \"velocity\": [0, 1, 0], \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.5, 0.1, 0.1]}]}],"
      " \"joints\": [{\"name\": \"root\", \"type\": \"pin\", \"ends\": [{\"body\": \"a\", \"point\": [-0.5, 0, 0]}, {\"world\": [0, 0, 0]}]},"
      "  {\"name\": \"link\", \"type\": \"rod\", \"length\": 0.05, \"ends\": [{\"body\": \"b\", \"point\": [-0.5, 0, 0]}, {\"body\": \"a\", \"point\": [0.5, 0, 0]}]},"
      "  {\"name\": \"tow\", \"type\": \"rod\", \"length\": 1.0, \"ends\": [{\"body\": \"b\", \"point\": [0.5, 0, 0]},"
      "   {\"path\": {\"origin\": [3, 0, 0], \"table\": [[0, 1, 0, 0.5], [1, 0, 2, 0]]}}]}]}",
      0.37);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_double_pendulum),
      cmocka_unit_test(test_chain_3d),
      cmocka_unit_test(test_impossible),
      cmocka_unit_test(test_errors_same_as_rows),
  };
  return cmocka_run_group_tests_name("assembly", tests, NULL, NULL);
}
