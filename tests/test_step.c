/* test_step.c: the time step on the exercises of the Tedrake appendix ("Multi-Body
 * Dynamics"), built by hand (no scene file), for every solver that must handle them. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact/step.h"
#include "contact/step_private.h"
#include "contact/world.h"
#include "tests/scene_stepper.h"

static const char *const solvers[] = {"lemke", "pgs", "siconos:lemke"};
enum { NSOLVERS = 3 };

static LsimModel model_with(double h, int steps) {
  LsimModel m = lsim_default_model();
  m.time_step = h;
  m.steps = steps;
  return m;
}

static int add_segment(LsimModel *m, const char *name, double mass, double width) {
  LsimBody b = lsim_default_body();
  snprintf(b.name, sizeof b.name, "%s", name);
  b.mass = mass;
  b.width = width;
  return lsim_model_add_body(m, &b);
}

static int add_wall(LsimModel *m, double x, int side) {
  LsimBody b = lsim_default_body();
  snprintf(b.name, sizeof b.name, "wall");
  b.type = LSIM_BODY_STATIC;
  b.shape = LSIM_SHAPE_HALFLINE;
  b.side = side;
  b.pose[0] = x;
  return lsim_model_add_body(m, &b);
}

/* Cart and wall (Tedrake, Example "cart and wall"): m = 1, h = 0.1, u = 0, a point cart
 * at q >= 0. The LCP q[n+1] = a + (h^2/m) f, a = q + h v + h^2 u / m, has the closed form
 * q[n+1] = max(0, a), f[n] = max(0, -a m / h^2). One step from each point of a grid of
 * (q, v) must match it to 1e-12 (a 1x1 LCP: both pivoting and one PGS sweep are exact up
 * to a few ulps of the O(10) numbers involved). The recorded impulse is h f. */
static void test_cart_wall_closed_form(void **state) {
  (void)state;
  const double h = 0.1, mass = 1.0, u = 0.0;
  for (int s = 0; s < NSOLVERS; ++s) {
    LsimModel m = model_with(h, 1);
    const int cart = add_segment(&m, "cart", mass, 0.0);
    add_wall(&m, 0.0, -1);
    assert_int_equal(lsim_model_finalize(&m), 0);
    char err[256];
    LsimStepper *st = NULL;
    assert_int_equal(lsim_stepper_create(&st, &m, solvers[s], err, sizeof err), 0);
    LsimState x;
    assert_int_equal(lsim_state_init(&x, &m), 0);
    for (int iq = 0; iq <= 10; ++iq)
      for (int iv = -10; iv <= 10; ++iv) {
        const double q0 = 0.1 * iq, v0 = 1.0 * iv;
        x.q[0] = q0;
        x.v[0] = v0;
        x.step = 0;
        x.time = 0.0;
        LsimStepStats stats;
        assert_int_equal(lsim_step(st, &m, &x, &stats), LSIM_SOLVED);
        const double a = q0 + h * v0 + h * h * u / mass;
        const double q1 = fmax(0.0, a), f = fmax(0.0, -a * mass / (h * h));
        assert_true(fabs(x.q[0] - q1) <= 1e-12);
        /* The contact (if any: it is found once the gap can close within the step). */
        const LsimContactSet *cs = lsim_stepper_contacts(st);
        double impulse = 0.0;
        for (int c = 0; c < cs->count; ++c)
          if (cs->contacts[c].body[0] == cart) impulse += cs->contacts[c].normal_impulse;
        assert_true(fabs(impulse / h - f) <= 1e-12 * fmax(1.0, f));
      }
    lsim_state_free(&x);
    lsim_stepper_free(st);
    lsim_model_free(&m);
  }
}

/* Two blocks (Tedrake, exercise "two blocks"): widths 1, masses 1, h = 1, A at -2 moving at
 * 3, B at 0 at rest. Gap = (qB - 1/2) - (qA + 1/2), gap rate vB - vA, LCP matrix
 * 1/mA + 1/mB = 2.
 *  Step 1: gap 1, free rate 0 - 3: 0 <= c _|_ 1/1 - 3 + 2c >= 0  =>  c = 1:
 *          vA = 2, vB = 1, qA = 0, qB = 1 (gap 0; A does not stop at -1: the impulse acts
 *          as soon as the gap would close within the step). Force c/h = 1.
 *  Step 2: gap 0, rate 1 - 2 = -1: c = 1/2: vA = vB = 3/2, qA = 3/2, qB = 5/2.
 *  Step 3: gap 0, rate 0: c = 0: qA = 3, qB = 4, v = 3/2 each.
 * Momentum 3 throughout; the final common velocity 3/2 is the perfectly inelastic one.
 * All numbers are dyadic: every solver must hit them to 1e-12. */
static void test_two_blocks_exact(void **state) {
  (void)state;
  const double qa[4] = {-2, 0, 1.5, 3}, qb[4] = {0, 1, 2.5, 4};
  const double va[4] = {3, 2, 1.5, 1.5}, vb[4] = {0, 1, 1.5, 1.5};
  const double impulse[4] = {0, 1, 0.5, 0};
  for (int s = 0; s < NSOLVERS; ++s) {
    LsimModel m = model_with(1.0, 3);
    const int A = add_segment(&m, "A", 1.0, 1.0), B = add_segment(&m, "B", 1.0, 1.0);
    assert_int_equal(lsim_model_finalize(&m), 0);
    char err[256];
    LsimStepper *st = NULL;
    assert_int_equal(lsim_stepper_create(&st, &m, solvers[s], err, sizeof err), 0);
    LsimState x;
    assert_int_equal(lsim_state_init(&x, &m), 0);
    x.q[m.bodies[A].q_offset] = -2;
    x.v[m.bodies[A].v_offset] = 3;
    x.q[m.bodies[B].q_offset] = 0;
    for (int k = 1; k <= 3; ++k) {
      assert_int_equal(lsim_step(st, &m, &x, NULL), LSIM_SOLVED);
      assert_true(fabs(x.q[m.bodies[A].q_offset] - qa[k]) <= 1e-12);
      assert_true(fabs(x.q[m.bodies[B].q_offset] - qb[k]) <= 1e-12);
      assert_true(fabs(x.v[m.bodies[A].v_offset] - va[k]) <= 1e-12);
      assert_true(fabs(x.v[m.bodies[B].v_offset] - vb[k]) <= 1e-12);
      const LsimContactSet *cs = lsim_stepper_contacts(st);
      assert_int_equal(cs->count, 1);
      assert_true(fabs(cs->contacts[0].normal_impulse - impulse[k]) <= 1e-12);
      assert_true(fabs(x.v[0] + x.v[1] - 3.0) <= 1e-12); /* momentum */
    }
    assert_true(fabs(x.time - 3.0) <= 1e-15);
    lsim_state_free(&x);
    lsim_stepper_free(st);
    lsim_model_free(&m);
  }
}

/* Brick with Coulomb friction (Tedrake, the brick LCP with slack v_abs): m = 1, mu = 0.5,
 * g = 9.81, pushed by u. Below mu m g it stays at rest exactly (the friction impulse
 * balances h u); above, it accelerates at (u - mu m g) / m: after k steps from rest,
 * v = k h (u - mu m g)/m, and the friction impulse is exactly -mu m g h. Lemke is exact;
 * PGS in the contact-block form converges to its tolerance (1e-10 relative to the
 * impulse scale), so velocities agree to 1e-9. */
static void test_brick_friction(void **state) {
  (void)state;
  const double h = 0.01, mu = 0.5, g = 9.81, mass = 1.0;
  const double pushes[2] = {0.8 * mu * mass * g, 1.5 * mu * mass * g};
  for (int s = 0; s < NSOLVERS; ++s)
    for (int p = 0; p < 2; ++p) {
      LsimModel m = model_with(h, 50);
      m.ground_normal_gravity = g;
      LsimBody b = lsim_default_body();
      b.mass = mass;
      b.width = 0.2;
      b.ground_mu = mu;
      b.force.constant = pushes[p];
      lsim_model_add_body(&m, &b);
      assert_int_equal(lsim_model_finalize(&m), 0);
      char err[256];
      LsimStepper *st = NULL;
      assert_int_equal(lsim_stepper_create(&st, &m, solvers[s], err, sizeof err), 0);
      LsimState x;
      assert_int_equal(lsim_state_init(&x, &m), 0);
      for (int k = 1; k <= 50; ++k) {
        LsimStepStats stats;
        assert_int_equal(lsim_step(st, &m, &x, &stats), LSIM_SOLVED);
        const LsimContactSet *cs = lsim_stepper_contacts(st);
        assert_int_equal(cs->count, 1);
        const double fr = cs->contacts[0].friction_impulse[0];
        /* Never beyond the cone: |friction impulse| <= mu m g h (+ solver tolerance). */
        assert_true(fabs(fr) <= mu * mass * g * h * (1 + 1e-9));
        if (p == 0) {
          assert_true(fabs(x.v[0]) <= 1e-9);
          assert_true(fabs(fr + pushes[p] * h) <= 1e-9);
        } else {
          const double v = k * h * (pushes[p] - mu * mass * g) / mass;
          assert_true(fabs(x.v[0] - v) <= 1e-9);
          assert_true(fabs(fr + mu * mass * g * h) <= 1e-9);
        }
      }
      lsim_state_free(&x);
      lsim_stepper_free(st);
      lsim_model_free(&m);
    }
}

/* A block thrown at a wall from far away at high speed never penetrates: the contact is
 * found as soon as the gap can close within a step. Newton's cradle-like chain: three
 * blocks in a row hit by a fourth; momentum is conserved exactly (no wall). */
static void test_no_tunnelling_and_momentum(void **state) {
  (void)state;
  for (int s = 0; s < NSOLVERS; ++s) {
    LsimModel m = model_with(0.01, 200);
    add_segment(&m, "bullet", 1.0, 0.1);
    add_wall(&m, 0.0, +1); /* occupies x >= 0 */
    assert_int_equal(lsim_model_finalize(&m), 0);
    char err[256];
    LsimStepper *st = NULL;
    assert_int_equal(lsim_stepper_create(&st, &m, solvers[s], err, sizeof err), 0);
    LsimState x;
    assert_int_equal(lsim_state_init(&x, &m), 0);
    x.q[0] = -10.0;
    x.v[0] = 1000.0; /* 10 m per step */
    for (int k = 0; k < 200; ++k) {
      assert_int_equal(lsim_step(st, &m, &x, NULL), LSIM_SOLVED);
      /* Right edge never beyond the wall (1e-12: rounding of the O(10) positions). */
      assert_true(x.q[0] + 0.05 <= 1e-12);
    }
    assert_true(fabs(x.v[0]) <= 1e-9);
    lsim_state_free(&x);
    lsim_stepper_free(st);
    lsim_model_free(&m);

    LsimModel c = model_with(0.05, 100);
    for (int i = 0; i < 4; ++i) add_segment(&c, "b", 1.0 + i, 0.5);
    assert_int_equal(lsim_model_finalize(&c), 0);
    assert_int_equal(lsim_stepper_create(&st, &c, solvers[s], err, sizeof err), 0);
    assert_int_equal(lsim_state_init(&x, &c), 0);
    for (int i = 0; i < 4; ++i) x.q[i] = i * 0.5; /* touching in a row */
    x.q[0] = -3.0;
    x.v[0] = 5.0;
    const double p0 = 1.0 * 5.0;
    for (int k = 0; k < 100; ++k) {
      assert_int_equal(lsim_step(st, &c, &x, NULL), LSIM_SOLVED);
      double p = 0.0;
      for (int i = 0; i < 4; ++i) p += (1.0 + i) * x.v[i];
      assert_true(fabs(p - p0) <= 1e-9); /* solver tolerance on the impulses */
      for (int i = 0; i + 1 < 4; ++i) assert_true(x.q[i + 1] - x.q[i] >= 0.5 - 1e-9);
    }
    lsim_state_free(&x);
    lsim_stepper_free(st);
    lsim_model_free(&c);
  }
}

/* Two carts coupled through inertia (a flywheel between them: kinetic energy
 * k (vA - vB)^2 / 2), cart A running into a wall: the mass matrix
 *   H = [[mA + k, -k], [-k, mB + k]]
 * is factored by CHOLMOD. One step from (qA, vA) = (0.05, -2), B far away at rest: the
 * 1x1 LCP w = gap/h + vA + W_AA c gives c = -(gap/h + vA) / W_AA, and v' = v + W(:, A) c,
 * W = H^-1 computed here by hand (2x2 inverse). Exact to 1e-12; and the total momentum
 * mA vA + mB vB changes by exactly the wall impulse c (the coupling is internal). */
static void test_coupled_mass(void **state) {
  (void)state;
  const double mA = 1.0, mB = 3.0, k = 0.5, h = 0.1;
  for (int sv = 0; sv < NSOLVERS; ++sv) {
    LsimModel m = model_with(h, 1);
    const int A = add_segment(&m, "A", mA, 0.0), B = add_segment(&m, "B", mB, 0.0);
    add_wall(&m, 0.0, -1);
    m.couplings = calloc(1, sizeof *m.couplings);
    m.couplings[0] = (LsimCoupling){{A, B}, k};
    m.ncouplings = 1;
    assert_int_equal(lsim_model_finalize(&m), 0);
    char err[256];
    LsimStepper *st = NULL;
    assert_int_equal(lsim_stepper_create(&st, &m, solvers[sv], err, sizeof err), 0);
    LsimState x;
    assert_int_equal(lsim_state_init(&x, &m), 0);
    x.q[0] = 0.05, x.v[0] = -2.0, x.q[1] = 10.0, x.v[1] = 0.0;
    assert_int_equal(lsim_step(st, &m, &x, NULL), LSIM_SOLVED);
    const double det = (mA + k) * (mB + k) - k * k;
    const double WAA = (mB + k) / det, WBA = k / det;
    const double c = -(0.05 / h - 2.0) / WAA;
    assert_true(fabs(x.v[0] - (-2.0 + WAA * c)) <= 1e-12);
    assert_true(fabs(x.v[1] - WBA * c) <= 1e-12);
    assert_true(fabs(x.q[0]) <= 1e-12); /* stopped exactly at the wall */
    assert_true(fabs(mA * x.v[0] + mB * x.v[1] - (mA * -2.0 + c)) <= 1e-12);
    lsim_state_free(&x);
    lsim_stepper_free(st);
    lsim_model_free(&m);
  }
}

/* The manifolds' order for the warm start's spread (contact/step.c): lsim_sort_manifolds
 * (a stable LSD radix sort on the height's bits) against the merge sort it replaced,
 * copied here as the reference, and qsort with the same order (total: c distinct), on
 * lists in contact order: random heights with many ties, -0 and +0 mixed (equal, so by
 * c), negative heights, +inf (no held body), a list of one height, and the heights of a
 * pile's contacts' bodies. Every field is compared. */
static int ref_order(const void *x, const void *y) {
  const LsimManifoldRef *a = x, *b = y;
  if (a->height != b->height) return a->height > b->height ? -1 : 1;
  return (a->c > b->c) - (a->c < b->c);
}

static void ref_merge_sort(LsimManifoldRef *a, LsimManifoldRef *tmp, int n) {
  LsimManifoldRef *src = a, *dst = tmp;
  for (int w = 1; w < n; w *= 2) {
    for (int lo = 0; lo < n; lo += 2 * w) {
      const int mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      int i = lo, j = mid, k = lo;
      while (i < mid && j < hi) dst[k++] = ref_order(&src[j], &src[i]) < 0 ? src[j++] : src[i++];
      while (i < mid) dst[k++] = src[i++];
      while (j < hi) dst[k++] = src[j++];
    }
    LsimManifoldRef *t = src;
    src = dst, dst = t;
  }
  if (src != a) memcpy(a, src, (size_t)n * sizeof *a);
}

/* Sorts list [0, n) three ways and asserts the same bytes. */
static void check_manifold_sort(const LsimManifoldRef *list, int n) {
  LsimManifoldRef *a = malloc((size_t)(n > 0 ? n : 1) * sizeof *a), *b = malloc((size_t)(n > 0 ? n : 1) * sizeof *b);
  LsimManifoldRef *q = malloc((size_t)(n > 0 ? n : 1) * sizeof *q), *tmp = malloc((size_t)(n > 0 ? n : 1) * sizeof *tmp);
  assert_non_null(a), assert_non_null(b), assert_non_null(q), assert_non_null(tmp);
  memcpy(a, list, (size_t)n * sizeof *a), memcpy(b, list, (size_t)n * sizeof *b), memcpy(q, list, (size_t)n * sizeof *q);
  lsim_sort_manifolds(a, tmp, n);
  ref_merge_sort(b, tmp, n);
  if (n > 1) qsort(q, (size_t)n, sizeof *q, ref_order);
  for (int i = 0; i < n; ++i) {
    assert_int_equal(a[i].c, b[i].c), assert_int_equal(a[i].e, b[i].e);
    assert_memory_equal(&a[i], &b[i], sizeof a[i]);
    assert_memory_equal(&a[i], &q[i], sizeof a[i]);
  }
  free(a), free(b), free(q), free(tmp);
}

static void test_manifold_radix_sort(void **state) {
  (void)state;
  enum { N = 5000 };
  LsimManifoldRef *list = calloc(N, sizeof *list);
  assert_non_null(list);
  uint64_t r = 0x9e3779b97f4a7c15ull;
  /* Heights from a small pool (ties), with -0, +0, +inf, negatives, tiny and huge. */
  const double pool[] = {0.0, -0.0, INFINITY, 1.0, -1.0, 0.5, 0.5000000000000001, 2.0, -2.5, 1e-300, -1e-300, 5e-324, -5e-324, 1e300, -1e300, 3.25, 0.1, 0.1 + 1e-17};
  const int npool = (int)(sizeof pool / sizeof pool[0]);
  for (int round = 0; round < 40; ++round) {
    const int n = round < 10 ? round : 1 + (int)(r % N);
    for (int i = 0; i < n; ++i) {
      r = r * 6364136223846793005ull + 1442695040888963407ull;
      const unsigned pick = (unsigned)(r >> 33);
      double h;
      if (round % 3 == 0) h = pool[pick % npool];                          /* ties and signs */
      else if (round % 3 == 1) h = (double)(pick % 64) * 0.25 - 4.0;        /* ties, -0 absent */
      else h = ldexp((double)(r >> 11), -53) * 40.0 - 5.0;                  /* mostly distinct */
      if (pick % 17 == 0) h = (pick & 1) ? -0.0 : 0.0;
      list[i] = (LsimManifoldRef){h, {(double)i, -(double)i, 0.5 * i}, 4 * i, 4 * i + 4 + (int)(pick % 5)};
    }
    check_manifold_sort(list, n);
  }
  /* All one height (every byte shared: no pass moves), all -0 then +0 mixed. */
  for (int i = 0; i < 100; ++i) list[i] = (LsimManifoldRef){1.5, {0.0, 0.0, 0.0}, i, i + 4};
  check_manifold_sort(list, 100);
  for (int i = 0; i < 100; ++i) list[i] = (LsimManifoldRef){(i % 3) ? -0.0 : 0.0, {0.0, 0.0, 0.0}, i, i + 4};
  check_manifold_sort(list, 100);
  /* A pile's keys: after 40 steps of data/pile_100.json with PGS, each contact's height
     of its first body (+inf for a static one), in contact order, as find_manifolds forms
     its list (its heights the held bodies'). */
  SceneStepper sc;
  assert_int_equal(scene_stepper_open(&sc, "data/pile_100.json", "pgs", 1e-6), 0);
  for (int k = 0; k < 40; ++k) {
    LsimStepStats ss;
    assert_int_equal(lsim_step(sc.stepper, &sc.model, &sc.st, &ss), 0);
  }
  const LsimContactSet *set = &sc.stepper->contacts;
  assert_true(set->count > 100);
  const double g = sqrt(sc.model.gravity[0] * sc.model.gravity[0] + sc.model.gravity[1] * sc.model.gravity[1] +
                        sc.model.gravity[2] * sc.model.gravity[2]);
  int n = 0;
  LsimManifoldRef *pile = calloc((size_t)set->count, sizeof *pile);
  assert_non_null(pile);
  for (int c = 0; c < set->count; ++c) {
    const int b = set->contacts[c].body[0];
    double h = INFINITY;
    if (sc.stepper->dofs[b].dynamic) {
      const double *qb = sc.st.q + sc.stepper->dofs[b].q_offset;
      h = -(sc.model.gravity[0] * qb[0] + sc.model.gravity[1] * qb[1] + sc.model.gravity[2] * qb[2]) / g;
    }
    pile[n++] = (LsimManifoldRef){h, {0.0, 0.0, 0.0}, c, c + 1};
  }
  check_manifold_sort(pile, n);
  free(pile);
  scene_stepper_close(&sc);
  free(list);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cart_wall_closed_form),
      cmocka_unit_test(test_two_blocks_exact),
      cmocka_unit_test(test_brick_friction),
      cmocka_unit_test(test_no_tunnelling_and_momentum),
      cmocka_unit_test(test_coupled_mass),
      cmocka_unit_test(test_manifold_radix_sort),
  };
  return cmocka_run_group_tests_name("step", tests, NULL, NULL);
}
