/* test_islands.c: islands of factored LCPs (lcp/islands.h) and the exact solvers that
 * solve them one by one (lsim_solver_solve_factored with options.islands). */
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
#include "lcp/islands.h"
#include "lcp/random.h"
#include "lcp/solver.h"
#include "scene/scene.h"
#include "tests/support.h"

/* A block-diagonal factored problem of three random SPD blocks (sizes 5, 8, 12) in
 * interleaved variable order: J = I (row i uses inner index i), B = M's columns, so each
 * block is coupled only inside itself. Owns its arrays. */
typedef struct Blocks {
  int n;
  int Jp[26], Ji[25], Bp[26], Bi[25 * 25];
  double Jv[25], Bv[25 * 25], q[25];
  int block[25];
} Blocks;

static void make_blocks(Blocks *b) {
  static const int sizes[3] = {5, 8, 12};
  LsimLcp lcp[3];
  int count[3] = {0, 0, 0}, var_of[3][12];
  b->n = 25;
  /* Variable i belongs to block i % 3 while that block has room, else the next one. */
  for (int i = 0, k = 0; i < b->n; ++i) {
    while (count[k % 3] == sizes[k % 3]) ++k;
    const int blk = k % 3;
    b->block[i] = blk;
    var_of[blk][count[blk]++] = i;
    ++k;
  }
  for (int k = 0; k < 3; ++k) {
    LsimRng rng = lsim_rng(777u + (unsigned)k);
    assert_int_equal(lsim_lcp_random_spd(&lcp[k], sizes[k], &rng), 0);
  }
  int nb = 0;
  b->Bp[0] = 0;
  for (int i = 0; i < b->n; ++i) {
    const int blk = b->block[i], sz = sizes[blk];
    int li = 0;
    while (var_of[blk][li] != i) ++li;
    b->Jp[i] = i, b->Ji[i] = i, b->Jv[i] = 1.0;
    for (int r = 0; r < sz; ++r) b->Bi[nb] = var_of[blk][r], b->Bv[nb++] = lcp[blk].M[r + li * sz];
    b->Bp[i + 1] = nb;
    b->q[i] = lcp[blk].q[li];
  }
  b->Jp[b->n] = b->n;
  for (int k = 0; k < 3; ++k) lsim_lcp_free(&lcp[k]);
}

static LsimFactoredLcp blocks_lcp(const Blocks *b) {
  return (LsimFactoredLcp){.n = b->n, .m = b->n, .J_ptr = b->Jp, .J_idx = b->Ji, .J_val = b->Jv,
                           .B_ptr = b->Bp, .B_idx = b->Bi, .B_val = b->Bv, .q = b->q};
}

/* Three blocks are found, each with its own variables in order, and the sub-problem of
 * an island gives the same w as the whole problem on its variables (z random). */
static void test_find_and_extract(void **state) {
  (void)state;
  Blocks b;
  make_blocks(&b);
  const LsimFactoredLcp f = blocks_lcp(&b);
  LsimIslands *is = lsim_islands_create();
  assert_int_equal(lsim_islands_find(is, &f), 3);
  double z[25], u[25], w[25];
  LsimRng rng = lsim_rng(5);
  for (int i = 0; i < 25; ++i) z[i] = lsim_rng_uniform(&rng);
  lsim_factored_w(&f, z, u, w);
  int total = 0;
  for (int k = 0; k < 3; ++k) {
    LsimFactoredLcp sub;
    const int *vars;
    assert_int_equal(lsim_islands_extract(is, &f, k, &sub, &vars), 0);
    assert_int_equal(sub.n, lsim_islands_size(is, k));
    double zs[25], us[25], ws[25];
    for (int r = 0; r < sub.n; ++r) {
      assert_int_equal(b.block[vars[r]], b.block[vars[0]]);
      if (r) assert_true(vars[r] > vars[r - 1]);
      zs[r] = z[vars[r]];
    }
    assert_int_equal(sub.m, sub.n); /* its own inner indices only */
    lsim_factored_w(&sub, zs, us, ws);
    /* The same products summed in the same order: bit-identical. */
    for (int r = 0; r < sub.n; ++r) assert_true(ws[r] == w[vars[r]]);
    total += sub.n;
  }
  assert_int_equal(total, 25);
  lsim_islands_free(is);
}

/* Lemke and newton, island by island or whole: the same unique solution, and the island
 * count reported. */
static void test_solvers_same_solution(void **state) {
  (void)state;
  Blocks b;
  make_blocks(&b);
  const LsimFactoredLcp f = blocks_lcp(&b);
  static const char *names[2] = {"lemke", "newton"};
  for (int s = 0; s < 2; ++s) {
    double z[2][25];
    for (int split = 0; split < 2; ++split) {
      LsimSolverOptions o = lsim_default_solver_options();
      o.islands = split;
      LsimSolver *sv;
      char err[200];
      assert_int_equal(lsim_solver_create(&sv, names[s], &o, err, sizeof err), 0);
      memset(z[split], 0, sizeof z[split]);
      LsimSolveStats st;
      assert_int_equal(lsim_solver_solve_factored(sv, &f, z[split], &st), LSIM_SOLVED);
      assert_true(st.residual.relative <= 1e-10);
      assert_int_equal(lsim_solver_last_islands(sv), split ? 3 : 1);
      lsim_solver_free(sv);
    }
    /* Lemke's are exact basic solutions (rounding: 1e-12); newton stops once the relative
       residual is 1e-10, so its z moves by up to the condition (~1e2) times that: 1e-8. */
    const double tol = s == 0 ? 1e-12 : 1e-8;
    assert_true(lsim_test_max_abs_diff(z[0], z[1], 25) <= tol * lsim_test_max_abs(z[0], 25));
  }
}

/* A whole run: the first 14 steps of the pile of 100 spheres (falling; the first contacts
 * are with the ground and between few spheres: many islands) with Lemke island by island
 * and whole give the same states to 1e-9 (the contact LCPs of spheres have unique
 * solutions here; the two paths round differently). */
static void test_pile_run_same_states(void **state) {
  (void)state;
  double *q[2] = {NULL, NULL};
  int nq = 0, max_islands = 0;
  for (int split = 0; split < 2; ++split) {
    LsimModel model;
    LsimState st;
    char *text = NULL;
    LsimSceneError serr;
    assert_int_equal(lsim_scene_load("data/pile_100.json", &model, &st, &text, &serr), 0);
    snprintf(model.solver.name, sizeof model.solver.name, "lemke");
    model.solver.tol = 1e-10;
    model.solver.max_iter = 0;
    model.solver.warm_start = 1;
    model.solver.islands = split;
    LsimStepper *stepper;
    char err[256];
    assert_int_equal(lsim_stepper_create(&stepper, &model, NULL, err, sizeof err), 0);
    for (int k = 0; k < 14; ++k) {
      LsimStepStats ss;
      assert_int_equal(lsim_step(stepper, &model, &st, &ss), LSIM_SOLVED);
      const int isl = lsim_solver_last_islands(lsim_stepper_solver(stepper));
      if (split && isl > max_islands) max_islands = isl;
    }
    nq = model.nq;
    q[split] = malloc((size_t)nq * sizeof(double));
    memcpy(q[split], st.q, (size_t)nq * sizeof(double));
    lsim_stepper_free(stepper);
    lsim_model_free(&model);
    lsim_state_free(&st);
    free(text);
  }
  print_message("pile_100, 14 steps: up to %d islands\n", max_islands);
  assert_true(max_islands > 10);
  assert_true(lsim_test_max_abs_diff(q[0], q[1], nq) <= 1e-9);
  free(q[0]), free(q[1]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_find_and_extract),
      cmocka_unit_test(test_solvers_same_solution),
      cmocka_unit_test(test_pile_run_same_states),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
