/* test_compare.c: LCP dumps (scene/lcpdump.h) give back bit-identical problems, warm
 * starts, solutions and cone structure, with the stored hash equal to lsim_lcp_hash; a
 * dump of the stepper's problems matches the stepper; solver specs refuse options their
 * solver does not use, keys given twice and conflicting budgets, and one solver with the
 * same options written two ways (lsim_compare_spec_same); a comparison whose stop
 * flag is raised writes the steps done, marked interrupted. The compare command itself is
 * tested end to end (tests/e2e/compare.sh). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <hdf5.h>
#include <signal.h>

#include "compare/compare.h"
#include "compare/spec.h"
#include "compare/table.h"
#include "compare/timed.h"
#include "lcp/quality.h"
#include "scene/lcpdump.h"
#include "scene/scene.h"
#include "record_read.h"

static char tmpdir[64];

static int setup(void **state) {
  (void)state;
  snprintf(tmpdir, sizeof tmpdir, "/tmp/lsim_test_compare_XXXXXX");
  return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
  return system(cmd) == 0 ? 0 : -1;
}

/* A problem of size n with entries that are not round numbers, and one cone. */
static void make_problem(LsimLcp *l, LsimConeBlock *cone, int n, double seed) {
  assert_int_equal(lsim_lcp_init(l, n), 0);
  for (int k = 0; k < n * n; ++k) l->M[k] = sin(seed + 0.7 * k) / 3.0;
  for (int i = 0; i < n; ++i) l->q[i] = cos(seed * i) * 1e-3 + 1.0 / 7.0;
  *cone = (LsimConeBlock){.normal = -1, .fixed_normal = 0.1 * seed, .first_dir = 0,
                          .ndir = n - 1, .lambda = n - 1, .mu = 0.3};
  l->ncones = 1;
  l->cones = cone;
}

static void test_roundtrip(void **state) {
  (void)state;
  char path[128], err[512];
  snprintf(path, sizeof path, "%s/dump.h5", tmpdir);
  int64_t f = lsim_h5_create(path, err, sizeof err);
  assert_true(f >= 0);
  const char *labels[2] = {"first", "second solver"};
  LsimLcpDump *d = NULL;
  assert_int_equal(lsim_lcpdump_open(&d, f, "/lcp", 2, labels, 1, err, sizeof err), 0);

  /* Three problems of different sizes, steps 2, 3 (series 0 and 1) and 5; an empty one. */
  LsimLcp p[4];
  LsimConeBlock cones[4];
  double warm[4][5], za[4][5], zb[4][5];
  const int sizes[4] = {3, 5, 2, 4}, steps[4] = {2, 3, 3, 5}, series[4] = {0, 0, 1, 1};
  for (int k = 0; k < 4; ++k) {
    make_problem(&p[k], &cones[k], sizes[k], 1.0 + k);
    for (int i = 0; i < sizes[k]; ++i) {
      warm[k][i] = 0.1 * i + k;
      za[k][i] = 1.0 / (3.0 + i + k);
      zb[k][i] = -za[k][i];
    }
    const double *z[2] = {za[k], k == 2 ? NULL : zb[k]};
    assert_int_equal(lsim_lcpdump_add(d, steps[k], series[k], &p[k], warm[k], z), 0);
  }
  LsimLcp empty = {0};
  assert_int_equal(lsim_lcpdump_add(d, 4, 0, &empty, NULL, NULL), 0);
  assert_int_equal(lsim_lcpdump_close(d, err, sizeof err), 0);
  assert_int_equal(lsim_h5_close(f), 0);

  /* Read each back: bit-identical. */
  for (int k = 0; k < 4; ++k) {
    LsimDumpedLcp r;
    assert_int_equal(lsim_lcpdump_read(path, steps[k], series[k], &r, err, sizeof err), 0);
    const int n = sizes[k];
    assert_int_equal(r.lcp.n, n);
    assert_int_equal(r.nproblems, 4);
    assert_memory_equal(r.lcp.M, p[k].M, (size_t)n * n * sizeof(double));
    assert_memory_equal(r.lcp.q, p[k].q, (size_t)n * sizeof(double));
    assert_memory_equal(r.warm, warm[k], (size_t)n * sizeof(double));
    assert_memory_equal(r.z, za[k], (size_t)n * sizeof(double));
    if (k == 2) assert_true(isnan(r.z[n]));
    else assert_memory_equal(r.z + n, zb[k], (size_t)n * sizeof(double));
    assert_true(r.hash == lsim_lcp_hash(&p[k]));
    assert_true(lsim_lcp_hash(&r.lcp) == r.hash);
    assert_int_equal(r.lcp.ncones, 1);
    const LsimConeBlock *c = &r.lcp.cones[0];
    assert_int_equal(c->normal, cones[k].normal);
    assert_int_equal(c->first_dir, cones[k].first_dir);
    assert_int_equal(c->ndir, cones[k].ndir);
    assert_int_equal(c->lambda, cones[k].lambda);
    assert_true(c->mu == cones[k].mu && c->fixed_normal == cones[k].fixed_normal);
    assert_int_equal(r.nsolutions, 2);
    assert_string_equal(r.labels[1], "second solver");
    lsim_dumped_lcp_free(&r);
  }

  /* Default series (1) for step 3; a step without an LCP; a missing file. */
  LsimDumpedLcp r;
  assert_int_equal(lsim_lcpdump_read(path, 3, -1, &r, err, sizeof err), 0);
  assert_int_equal(r.lcp.n, 2);
  lsim_dumped_lcp_free(&r);
  assert_int_equal(lsim_lcpdump_read(path, 4, -1, &r, err, sizeof err), LSIM_INVALID_INPUT);
  assert_non_null(strstr(err, "step 4"));
  assert_int_equal(lsim_lcpdump_read(path, 2, 1, &r, err, sizeof err), LSIM_INVALID_INPUT);
  char missing[160];
  snprintf(missing, sizeof missing, "%s/nothere.h5", tmpdir);
  assert_int_equal(lsim_lcpdump_read(missing, 1, -1, &r, err, sizeof err), LSIM_IO_ERROR);
  for (int k = 0; k < 4; ++k) lsim_lcp_free(&p[k]);
}

/* A dump of a stepper's steps holds exactly the stepper's problems and solutions: with
 * the default dense limit both forms (the dense and factored hashes of each step), with
 * limit 0 the factored form alone, read back as a problem that solve and export use: the
 * same factors, and the dense M formed from them equal to the one stored, bit for bit
 * (the same lsim_factored_to_dense the time step calls). */
static void test_stepper_dump(void **state) {
  (void)state;
  const char *scene =
      "{\"lcpsim\": 1, \"dimension\": 1, \"time_step\": 0.01, \"steps\": 20,"
      " \"ground\": {\"mu\": 0.5, \"g\": 9.81}, \"solver\": \"lemke\","
      " \"bodies\": [{\"name\": \"brick\", \"position\": 0, \"velocity\": 1, \"mass\": 1}]}";
  LsimModel model;
  LsimState st;
  LsimSceneError serr;
  assert_int_equal(lsim_scene_parse(scene, "brick", &model, &st, &serr), 0);
  char path[128], fpath[128], err[512];
  snprintf(path, sizeof path, "%s/steps.h5", tmpdir);
  snprintf(fpath, sizeof fpath, "%s/steps_factored.h5", tmpdir);
  LsimStepper *s = NULL;
  assert_int_equal(lsim_stepper_create(&s, &model, NULL, err, sizeof err), 0);
  int64_t f = lsim_h5_create(path, err, sizeof err), ff = lsim_h5_create(fpath, err, sizeof err);
  const char *label = "lemke";
  LsimLcpDump *d = NULL, *df = NULL;
  assert_int_equal(lsim_lcpdump_open(&d, f, "/lcp", 1, &label, 0, err, sizeof err), 0);
  assert_int_equal(lsim_lcpdump_open(&df, ff, "/lcp", 1, &label, 0, err, sizeof err), 0);
  uint64_t hashes[21], fhashes[21];
  double z7[8];
  int n7 = 0;
  for (int k = 1; k <= 20; ++k) {
    lsim_step(s, &model, &st, NULL);
    assert_int_equal(lsim_lcpdump_step(d, k, s, LSIM_DUMP_DENSE_LIMIT), 0);
    assert_int_equal(lsim_lcpdump_step(df, k, s, 0), 0);
    hashes[k] = lsim_lcp_hash(lsim_stepper_lcp(s));
    fhashes[k] = lsim_factored_hash(lsim_stepper_factored(s));
    if (k == 7) {
      n7 = lsim_stepper_lcp(s)->n;
      assert_true(n7 > 0 && n7 <= 8);
      memcpy(z7, lsim_stepper_solution(s), (size_t)n7 * sizeof(double));
    }
  }
  assert_int_equal(lsim_lcpdump_close(d, err, sizeof err), 0);
  assert_int_equal(lsim_lcpdump_close(df, err, sizeof err), 0);
  lsim_h5_close(f);
  lsim_h5_close(ff);
  for (int k = 1; k <= 20; ++k) {
    LsimDumpedLcp r, rf;
    assert_int_equal(lsim_lcpdump_read(path, k, -1, &r, err, sizeof err), 0);
    assert_int_equal(lsim_lcpdump_read(fpath, k, -1, &rf, err, sizeof err), 0);
    assert_true(r.hash == hashes[k]);
    assert_true(r.dense && r.factored && r.factored_hash == fhashes[k]);
    assert_true(!rf.dense && rf.factored && rf.hash == 0 && rf.factored_hash == fhashes[k]);
    assert_null(rf.lcp.M);
    assert_true(lsim_factored_hash(&r.f) == fhashes[k] && lsim_factored_hash(&rf.f) == fhashes[k]);
    if (k == 7) {
      assert_memory_equal(r.z, z7, (size_t)n7 * sizeof(double));
      assert_memory_equal(rf.z, z7, (size_t)n7 * sizeof(double));
    }
    /* The dense M formed from the factors: the stored one, bit for bit; refused above the
       limit given. */
    const int n = r.lcp.n;
    if (n > 0) {
      assert_int_equal(lsim_dumped_lcp_densify(&rf, n - 1, err, sizeof err), LSIM_INVALID_INPUT);
      assert_non_null(strstr(err, "factored only"));
      assert_int_equal(lsim_dumped_lcp_densify(&rf, n, err, sizeof err), 0);
      assert_true(rf.dense);
      assert_memory_equal(rf.lcp.M, r.lcp.M, (size_t)n * n * sizeof(double));
      assert_int_equal(lsim_dumped_lcp_densify(&r, 0, err, sizeof err), 0); /* stored: no-op */
    }
    lsim_dumped_lcp_free(&r);
    lsim_dumped_lcp_free(&rf);
  }
  lsim_stepper_free(s);
  lsim_state_free(&st);
  lsim_model_free(&model);
}

/* Parses spec text; 0, or -1 with err compared to want when want is not NULL. */
static int spec(const char *text, LsimCompareSpec *s, const char *want) {
  char err[256] = "";
  const int rc = lsim_compare_parse_spec(text, strlen(text), s, err, sizeof err);
  if (want) assert_string_equal(err, want);
  return rc;
}

/* Specs: accepted options set exactly what they say; options of other solvers, a key given
 * twice and two budgets are refused with a message naming them. */
static void test_specs(void **state) {
  (void)state;
  LsimCompareSpec s;
  assert_int_equal(spec("pgs[sweeps=5]", &s, NULL), 0);
  assert_true(s.opt.tol == 0.0 && s.opt.max_iter == 5);
  assert_int_equal(spec("pgs[sweeps=5,tol=0]", &s, NULL), 0);
  assert_true(s.opt.tol == 0.0 && s.opt.max_iter == 5);
  assert_int_equal(spec("pgs[max_iter=500,omega=1.2,threads=2]", &s, NULL), 0);
  assert_true(s.opt.tol == 1e-10 && s.opt.max_iter == 500 && s.opt.omega == 1.2 &&
              s.opt.threads == 2);
  assert_int_equal(spec("newton[sparse_limit=-1,islands=1]", &s, NULL), 0);
  assert_true(s.opt.sparse_limit == -1 && s.opt.islands == 1 && !s.dense);
  assert_int_equal(spec("lemke_sparse[islands=0]", &s, NULL), 0);
  assert_true(s.opt.islands == 0 && !s.dense);
  assert_int_equal(spec("lemke", &s, NULL), 0);
  assert_true(s.opt.islands == 1); /* as a run's time step solves */
  assert_int_equal(spec("lemke[islands=1,max_iter=50]", &s, NULL), 0);
  assert_true(s.opt.islands == 1 && s.opt.max_iter == 50 && s.dense);
  assert_int_equal(spec("lemke_sparse[cover=previous]", &s, NULL), 0);
  assert_true(s.opt.cover_previous == 1 && !s.dense);
  assert_int_equal(spec("lemke_sparse[cover=ones]", &s, NULL), 0);
  assert_true(s.opt.cover_previous == 0);
  assert_int_equal(spec("lemke_sparse[block=16]", &s, NULL), 0);
  assert_true(s.opt.block_start == 16 && !s.dense);
  assert_int_equal(spec("pgs[sweeps=50,precision=float]", &s, NULL), 0);
  assert_true(s.opt.precision == 2 && s.opt.max_iter == 50 && s.opt.tol == 0.0);
  assert_int_equal(spec("pgs[precision=double]", &s, NULL), 0);
  assert_true(s.opt.precision == 1);
  assert_int_equal(spec("pgs", &s, NULL), 0);
  assert_true(s.opt.precision == 0); /* the environment's */
  assert_int_equal(spec("lemke_sparse[principal=20000]", &s, NULL), 0);
  assert_true(s.opt.principal == 20000 && s.opt.block_start == 0 && !s.dense);
  assert_int_equal(spec("lemke_sparse[lu=own,refactor=200]", &s, NULL), 0);
  assert_true(s.opt.lu_solve == LSIM_LU_OWN && s.opt.lu_refactor == 200 && !s.dense);
  assert_int_equal(spec("lemke_sparse[lu=umfpack]", &s, NULL), 0);
  assert_true(s.opt.lu_solve == LSIM_LU_UMFPACK && s.opt.lu_refactor == 0);
  assert_int_equal(spec("lemke_sparse[lu=klu,refactor=10]", &s, NULL), 0);
  assert_true(s.opt.lu_solve == LSIM_LU_KLU && s.opt.lu_refactor == 10);
  /* Refused, each with its message. */
  static const char *const refused[][2] = {
      {"lemke[omega=1.2]", "omega is an option of pgs only; lemke does not use it"},
      {"siconos:psor[threads=2]", "threads is an option of pgs only; siconos:psor does not use it"},
      {"pgs[sparse_limit=10]", "sparse_limit is an option of newton only; pgs does not use it"},
      {"pgs[principal=10]", "principal is an option of lemke_sparse only; pgs does not use it"},
      {"lemke[precision=float]", "precision is an option of pgs only; lemke does not use it"},
      {"pgs[precision=single]", "precision must be double or float, got 'single'"},
      {"lemke_sparse[principal=1000001]", "principal must be an integer in [0, 1000000], got 1000001"},
      {"pgs[islands=1]", "islands is an option of lemke, newton and lemke_sparse only; pgs does "
                         "not use it"},
      {"pgs[max_iter=10,sweeps=5]", "max_iter=10 and sweeps=5 are two iteration budgets: give "
                                    "one (sweeps=K is max_iter=K with tol 0)"},
      {"pgs[sweeps=5,tol=1e-8]", "tol=1e-8 and sweeps=5 conflict: sweeps=K runs a fixed budget "
                                 "with tol 0 (give max_iter=K for a budget with a tolerance)"},
      {"pgs[omega=1.2,omega=1.5]", "omega is given twice (1.2 and 1.5)"},
      {"lemke[cover=previous]", "cover is an option of lemke_sparse only; lemke does not use it"},
      {"lemke_sparse[cover=last]", "cover must be previous or ones, got 'last'"},
      {"lemke[block=16]", "block is an option of lemke_sparse only; lemke does not use it"},
      {"lemke_sparse[block=1001]", "block must be an integer in [0, 1000], got 1001"},
      {"lemke[lu=own]", "lu is an option of lemke_sparse only; lemke does not use it"},
      {"pgs[refactor=200]", "refactor is an option of lemke_sparse only; pgs does not use it"},
      {"lemke_sparse[lu=dense]", "lu must be umfpack, own, klu or ft, got 'dense'"},
      {"lemke_sparse[lu=1]", "lu must be umfpack, own, klu or ft, got 1"},
      {"lemke_sparse[refactor=9]", "refactor must be an integer in [10, 100000], got 9"},
      {"lemke_sparse[refactor=100001]",
       "refactor must be an integer in [10, 100000], got 100001"},
      {"lemke_sparse[refactor=1e3]", "refactor must be an integer in [10, 100000], got 1e3"},
      {"lemke_sparse[lu=own,lu=klu]", "lu is given twice (own and klu)"},
      /* max_iter 0 is the default budget (10000 sweeps for pgs), which was then labelled
         "budget 0 sweeps". */
      {"pgs[sweeps=0]", "sweeps=0: a fixed budget needs at least one sweep (sweeps=K runs "
                        "exactly K; tol=0 alone runs the solver's default budget)"},
      /* A negative budget named the bound of max_iter (">= 0"), which sweeps=0 does not
         meet either. */
      {"pgs[sweeps=-1]", "sweeps must be an integer >= 1, got -1"},
      {"pgs[max_iter=-1]", "max_iter must be an integer >= 0, got -1"},
  };
  for (size_t k = 0; k < sizeof refused / sizeof refused[0]; ++k) {
    char want[512];
    snprintf(want, sizeof want, "solver spec '%s': %s", refused[k][0], refused[k][1]);
    assert_int_equal(spec(refused[k][0], &s, want), -1);
  }
}

/* One solver with the same options written two ways is the same spec (a list refuses it
 * as listed twice); another option value, another solver or another budget is not. */
static void test_specs_same(void **state) {
  (void)state;
  static const char *const same[][2] = {
      {"pgs", "pgs[tol=1e-10]"},                /* 1e-10: the default tol */
      {"pgs[sweeps=10]", "pgs[max_iter=10,tol=0]"},
      {"pgs[omega=1.2,max_iter=50]", "pgs[max_iter=50,omega=1.2]"},
      {"siconos:lemke", "siconos:lemke[tol=1e-10]"},
      {"lemke_sparse", "lemke_sparse[cover=ones]"}, /* ones: the default cover */
      {"lemke_sparse", "lemke_sparse[block=0]"},    /* 0: no rounds, the default */
      {"lemke_sparse[lu=own,refactor=200]", "lemke_sparse[refactor=200,lu=own]"},
      {"lemke", "lemke[islands=1]"}}; /* 1: islands as runs solve, the default */
  static const char *const other[][2] = {
      {"pgs", "pgs[tol=1e-8]"},       {"pgs", "pgs[omega=1.2]"},
      {"pgs", "lemke"},               {"pgs[sweeps=10]", "pgs[max_iter=10]"},
      {"lemke", "lemke[islands=0]"},  {"newton", "newton[sparse_limit=-1]"},
      {"lemke_sparse", "lemke_sparse[cover=previous]"},
      {"lemke_sparse", "lemke_sparse[block=16]"},
      /* An explicit setting is not the default: the default is the environment's. */
      {"lemke_sparse", "lemke_sparse[lu=umfpack]"},
      {"lemke_sparse", "lemke_sparse[refactor=100]"},
      {"lemke_sparse[lu=own]", "lemke_sparse[lu=klu]"},
      {"lemke_sparse[refactor=200]", "lemke_sparse[refactor=201]"},
      {"pgs[sweeps=50]", "pgs[sweeps=50,precision=float]"},
      {"pgs[sweeps=50]", "pgs[sweeps=50,precision=double]"}};
  LsimCompareSpec a, b;
  for (size_t k = 0; k < sizeof same / sizeof same[0]; ++k) {
    assert_int_equal(spec(same[k][0], &a, NULL) + spec(same[k][1], &b, NULL), 0);
    assert_true(lsim_compare_spec_same(&a, &b) && lsim_compare_spec_same(&b, &a));
    char list[128], err[256] = "", want[256];
    snprintf(list, sizeof list, "%s,%s", same[k][0], same[k][1]);
    LsimCompareSpec specs[LSIM_COMPARE_MAX_SOLVERS];
    int n = 0;
    assert_int_equal(lsim_compare_parse_list(list, specs, &n, err, sizeof err), -1);
    snprintf(want, sizeof want, "solver '%s' is '%s' again (the same solver with the same "
             "options): list it once", same[k][1], same[k][0]);
    assert_string_equal(err, want);
  }
  for (size_t k = 0; k < sizeof other / sizeof other[0]; ++k) {
    assert_int_equal(spec(other[k][0], &a, NULL) + spec(other[k][1], &b, NULL), 0);
    assert_false(lsim_compare_spec_same(&a, &b));
  }
}

/* A list written with spaces ("lemke, pgs[tol = 1e-8, max_iter = 50]") is the list without
 * them: the names and option values exactly as written bare. */
static void test_list_spaces(void **state) {
  (void)state;
  LsimCompareSpec specs[LSIM_COMPARE_MAX_SOLVERS];
  int n = 0;
  char err[256] = "";
  assert_int_equal(lsim_compare_parse_list(" lemke , pgs[ tol = 1e-8 ,\tmax_iter = 50 ] ,newton",
                                           specs, &n, err, sizeof err), 0);
  assert_int_equal(n, 3);
  assert_string_equal(specs[0].name, "lemke");
  assert_string_equal(specs[0].label, "lemke");
  assert_string_equal(specs[1].name, "pgs");
  assert_true(specs[1].opt.tol == 1e-8 && specs[1].opt.max_iter == 50);
  assert_string_equal(specs[2].name, "newton");
  /* The same solver with spaces is still listed twice. */
  assert_int_equal(lsim_compare_parse_list("pgs[tol=1e-8], pgs[ tol=1e-8 ]", specs, &n, err,
                                           sizeof err), -1);
  assert_non_null(strstr(err, "again"));
}

/* Raises the stop flag (as SIGTERM's handler would) when problem 5 begins. */
static volatile sig_atomic_t stop_flag;
static void stop_at_5(void *arg, int done, int total) {
  (void)arg, (void)total;
  if (done == 5) stop_flag = SIGTERM;
}

/* A shadow comparison of a sliding brick (an LCP every step) over 20 steps, its stop flag
 * raised while step 6 runs: the file and the result hold steps 1..6 exactly, marked
 * interrupted with the reason naming the signal and the step; raised before step 1: no
 * step; never raised: all 20, completed. */
static void test_interrupted(void **state) {
  (void)state;
  char scene[128], out[128], err[512];
  snprintf(scene, sizeof scene, "%s/brick.json", tmpdir);
  snprintf(out, sizeof out, "%s/stopped.h5", tmpdir);
  FILE *f = fopen(scene, "w");
  assert_non_null(f);
  fputs("{\"lcpsim\": 1, \"dimension\": 1, \"time_step\": 0.01, \"steps\": 20,"
        " \"ground\": {\"mu\": 0.5, \"g\": 9.81}, \"solver\": \"lemke\","
        " \"bodies\": [{\"name\": \"brick\", \"position\": 0, \"velocity\": 1, \"mass\": 1}]}",
        f);
  assert_int_equal(fclose(f), 0);
  const char *inputs[] = {scene};
  LsimCompareConfig cfg = lsim_default_compare_config();
  cfg.inputs = inputs;
  cfg.ninputs = 1;
  cfg.solvers = "lemke,pgs";
  cfg.output = out;
  cfg.progress = stop_at_5;
  cfg.stop = &stop_flag;
  stop_flag = 0;
  LsimCompareResult res;
  assert_int_equal(lsim_compare_run(&cfg, &res, err, sizeof err), 0);
  assert_int_equal(res.table.N, 6);
  assert_int_equal(res.asked, 20);
  assert_int_equal(res.interrupted, SIGTERM);
  assert_int_equal(res.table.step[5], 6);
  lsim_compare_result_free(&res);

  /* The file: every per-step dataset has the 6 rows, the summary the marker. */
  hid_t h = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
  assert_true(h >= 0);
  int steps[6];
  read_as(h, "/step", H5T_NATIVE_INT, 1, 6, 0, steps);
  for (int k = 0; k < 6; ++k) assert_int_equal(steps[k], k + 1);
  int status[6 * 4];
  read_as(h, "/results/status", H5T_NATIVE_INT, 2, 6, 4, status);
  assert_int_equal(read_scalar_i(h, "/parameters/steps"), 20);
  assert_int_equal(read_scalar_i(h, "/summary/run_end_step"), 6);
  char text[1][256];
  read_strings(h, "/summary/run_end", -1, text);
  assert_string_equal(text[0], "interrupted");
  read_strings(h, "/summary/run_end_reason", -1, text);
  assert_string_equal(text[0], "SIGTERM after step 6 of 20");
  H5Fclose(h);

  /* Raised before the first step: a file of no steps, still marked. */
  cfg.progress = NULL;
  stop_flag = SIGINT;
  assert_int_equal(lsim_compare_run(&cfg, &res, err, sizeof err), 0);
  assert_int_equal(res.table.N, 0);
  assert_int_equal(res.interrupted, SIGINT);
  lsim_compare_result_free(&res);
  h = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
  assert_true(h >= 0);
  assert_int_equal(read_scalar_i(h, "/summary/run_end_step"), 0);
  read_strings(h, "/summary/run_end_reason", -1, text);
  assert_string_equal(text[0], "SIGINT after step 0 of 20");
  H5Fclose(h);

  /* Without a raised flag: every step, completed, no reason. */
  stop_flag = 0;
  assert_int_equal(lsim_compare_run(&cfg, &res, err, sizeof err), 0);
  assert_int_equal(res.table.N, 20);
  assert_int_equal(res.interrupted, 0);
  lsim_compare_result_free(&res);
  h = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
  assert_true(h >= 0);
  read_strings(h, "/summary/run_end", -1, text);
  assert_string_equal(text[0], "completed");
  read_strings(h, "/summary/run_end_reason", -1, text);
  assert_string_equal(text[0], "");
  assert_int_equal(read_scalar_i(h, "/summary/run_end_step"), 20);
  H5Fclose(h);
}

/* The reference's warm series is the driver's own solve: on pile_10 (islands: the boxes
 * apart from the pile) its distance to the solve that drives the trajectory is exactly 0
 * on every step, for each pivoting and iterative reference and the options that change a
 * solve's path (islands, lemke_sparse's covering vector). Before, the driver took the
 * scene's islands (1) and no cover=previous while the series took the spec's (0 by
 * default, and previous): lemke_sparse's warm series was up to 3.6e-10 m/s from the driver
 * from step 10 on. Now a spec's islands default to a run's (1) and the driver takes the
 * spec's islands and cover. Exact zero, no tolerance: the same solve on the same bits gives
 * the same bits. */
static void test_reference_warm_is_driver(void **state) {
  (void)state;
  static const char *const refs[] = {"lemke", "lemke_sparse", "newton", "pgs",
                                     "lemke[islands=0]", "lemke_sparse[islands=0]",
                                     "newton[islands=0]", "lemke_sparse[cover=previous]",
                                     "lemke_sparse[islands=0,cover=previous]"};
  char out[128], err[512];
  snprintf(out, sizeof out, "%s/ref.h5", tmpdir);
  const char *inputs[] = {"data/pile_10.json"};
  for (size_t r = 0; r < sizeof refs / sizeof *refs; ++r) {
    LsimCompareConfig cfg = lsim_default_compare_config();
    cfg.inputs = inputs;
    cfg.ninputs = 1;
    cfg.solvers = refs[r];
    cfg.output = out;
    cfg.steps = 40;
    LsimCompareResult res;
    assert_int_equal(lsim_compare_run(&cfg, &res, err, sizeof err), 0);
    const LsimCompareTable *t = &res.table;
    assert_int_equal(t->N, 40);
    assert_int_equal(t->P, 2); /* the reference's cold and warm series */
    assert_non_null(strstr(res.labels[1], "(warm)"));
    int solved = 0;
    for (int k = 0; k < t->N; ++k) {
      if (t->problem_size[k] == 0) continue;
      const double d = t->dist[(size_t)k * t->P + 1];
      if (d != 0.0) fail_msg("reference %s: step %d: warm series %.3g from the driver", refs[r],
                             t->step[k], d);
      ++solved;
    }
    assert_true(solved >= 30); /* pile_10: an LCP on 34 of its first 40 steps (from step 7) */
    lsim_compare_result_free(&res);
  }
}

/* The summary's aggregates of solutions leave failed solves out, the counts keep them: one
 * series over six problems, by hand: solved (wall 1, 10 iterations, rel 1e-12, distance
 * 0.5, cone 0.1), a secondary ray (wall 100, 1000 iterations, rel 0.5, distance 7, cone 9:
 * what a failure leaves), a budget stop (wall 3, 20 iterations, rel 1e-3, distance 2, cone
 * 0.2: a solution, no success), solved (wall 2, 30 iterations, rel 1e-10, distance 1, cone
 * 0.3), a timeout (wall 50 = the limit, measures NaN), and a step without an LCP. Every
 * expected value follows from these numbers exactly (medians of three: the middle one). */
static void test_summary_excludes_failures(void **state) {
  (void)state;
  LsimCompareTable t;
  assert_int_equal(lsim_compare_table_alloc(&t, 6, 1, 0), 0);
  const int status[6] = {LSIM_SOLVED, LSIM_SECONDARY_RAY, LSIM_MAX_ITERATIONS, LSIM_SOLVED,
                         LSIM_COMPARE_TIMEOUT, LSIM_SOLVED};
  const double wall[6] = {1, 100, 3, 2, 50, 0}, rel[6] = {1e-12, 0.5, 1e-3, 1e-10, NAN, 0};
  const double dist[6] = {0.5, 7, 2, 1, NAN, 0}, cone[6] = {0.1, 9, 0.2, 0.3, NAN, 0};
  const int iters[6] = {10, 1000, 20, 30, 0, 0}, size[6] = {4, 4, 4, 4, 4, 0};
  for (int k = 0; k < 6; ++k) {
    t.status[k] = status[k], t.wall[k] = wall[k], t.rel[k] = rel[k], t.dist[k] = dist[k];
    t.cone[k] = cone[k], t.iters[k] = iters[k], t.size[k] = size[k];
    t.success[k] = lsim_compare_is_success(status[k], rel[k], 1e-6);
  }
  double buf[6];
  LsimCompareSummary x;
  lsim_compare_summarize(&t, 0, buf, &x);
  /* counts: every problem with an LCP */
  assert_int_equal(x.problems, 5);
  assert_int_equal(x.successes, 2);
  assert_int_equal(x.failures, 2);
  assert_int_equal(x.budget, 1);
  assert_int_equal(x.missed, 0);
  assert_true(x.success_rate == 0.4);
  /* A solve that finished (status solved) above the success tolerance: missed, so that
     successes + missed + failures + budget stops that did not succeed = problems (it was
     in no count: a polyhedral LCP solved exactly, its exact-cone residual 0.2). */
  t.rel[3] = 0.2, t.success[3] = lsim_compare_is_success(LSIM_SOLVED, 0.2, 1e-6);
  lsim_compare_summarize(&t, 0, buf, &x);
  assert_int_equal(x.successes, 1);
  assert_int_equal(x.missed, 1);
  assert_int_equal(x.successes + x.missed + x.failures + x.budget, x.problems);
  t.rel[3] = rel[3], t.success[3] = 1;
  lsim_compare_summarize(&t, 0, buf, &x);
  /* aggregates: the three solves that did not fail (1, 3, 4) */
  assert_true(x.median_wall == 2.0 && x.worst_wall == 3.0);
  assert_true(x.median_iters == 20.0 && x.max_iters == 30);
  assert_true(x.median_rel == 1e-10 && x.worst_rel == 1e-3);
  assert_true(x.max_dist == 2.0);
  assert_true(x.worst_cone == 0.3);
  /* the failed ones' time to fail, apart: the ray's 100 and the timeout's 50 */
  assert_true(x.median_fail_wall == 75.0);
  /* a series that failed everywhere: counts, and NaN aggregates (no solution) */
  for (int k = 0; k < 5; ++k) t.status[k] = LSIM_BREAKDOWN, t.success[k] = 0;
  lsim_compare_summarize(&t, 0, buf, &x);
  assert_int_equal(x.failures, 5);
  assert_true(isnan(x.median_wall) && isnan(x.worst_wall) && isnan(x.median_rel) &&
              isnan(x.worst_rel) && isnan(x.max_dist) && isnan(x.median_iters));
  assert_int_equal(x.max_iters, 0);
  /* Counts a solver does not give (-1): left out of both aggregates, and a series with
     none reads -1 and NaN, never 0. Solves 1, 3, 4 again, solve 3 without a count: median
     of (10, 30) = 20, max 30; then none with a count. */
  for (int k = 0; k < 5; ++k) t.status[k] = status[k];
  t.iters[2] = -1;
  lsim_compare_summarize(&t, 0, buf, &x);
  assert_true(x.median_iters == 20.0 && x.max_iters == 30);
  t.iters[0] = t.iters[3] = -1;
  lsim_compare_summarize(&t, 0, buf, &x);
  assert_true(isnan(x.median_iters));
  assert_int_equal(x.max_iters, -1);
  lsim_compare_table_free(&t);
}

/* A solve run under a time limit (compare/timed.h): one that ends in time gives its
 * results; one that runs past the limit is a timeout; one whose process dies (a crashing
 * solver) is -1, not the end of the comparison. Recorded, a timeout's time is the limit
 * and a died child's NaN (it was not timed; the limit had stood in for it), so the
 * median time to fail is the timeouts' alone. */
typedef struct TimedArg {
  int mode; /* 0 return at once, 1 sleep past the limit, 2 die */
  double value;
} TimedArg;

static void timed_fn(void *arg) {
  TimedArg *a = arg;
  if (a->mode == 2) _exit(3);
  if (a->mode == 1) {
    struct timespec ts = {0, 300000000}; /* 0.3 s, past 2 x the 0.05 s limit */
    nanosleep(&ts, NULL);
  }
  a->value = 42.0;
}

/* The solve that ends at once and the one that dies run under a limit of 30 s, which they
 * never reach (the call returns when the child's answer or its end comes): under 0.05 s
 * (a deadline of 0.1 s of wall time for the fork, the child's two calls and its answer) a
 * loaded machine, or the sanitizers' fork, could make either a timeout. The timeout is
 * the nanosleep past 2 x 0.05 s, certain on any machine. */
static void test_timed_outcomes(void **state) {
  (void)state;
  double out[1] = {0.0};
  TimedArg a = {0, 0.0};
  assert_int_equal(lsim_compare_timed(timed_fn, &a, 30.0, out, 1, &a, sizeof a), 0);
  assert_true(a.value == 42.0);
  a = (TimedArg){1, 0.0};
  assert_int_equal(lsim_compare_timed(timed_fn, &a, 0.05, out, 1, &a, sizeof a),
                   LSIM_COMPARE_TIMEOUT);
  a = (TimedArg){2, 0.0};
  assert_int_equal(lsim_compare_timed(timed_fn, &a, 30.0, out, 1, &a, sizeof a), -1);

  LsimCompareTable t;
  assert_int_equal(lsim_compare_table_alloc(&t, 2, 1, 0), 0);
  lsim_compare_record_unfinished(&t, 0, 0, LSIM_COMPARE_TIMEOUT, 5, 7, 0.05);
  lsim_compare_record_unfinished(&t, 1, 0, LSIM_SOLVER_FAILED, 5, 7, 0.05);
  assert_true(t.wall[0] == 0.05 && isnan(t.wall[1]));
  double buf[2];
  LsimCompareSummary x;
  lsim_compare_summarize(&t, 0, buf, &x);
  assert_int_equal(x.failures, 2);
  assert_true(x.median_fail_wall == 0.05);
  lsim_compare_table_free(&t);
}

/* Growing datasets (lsim_h5_rows_*): numbers and strings appended in batches that cross
 * chunk boundaries read back as written, chunked as asked; a name already taken and a
 * string length of 0 give NULL (nothing leaked: the sanitizer build checks). */
static void test_h5_rows(void **state) {
  (void)state;
  char path[128], err[512];
  snprintf(path, sizeof path, "%s/rows.h5", tmpdir);
  int64_t f = lsim_h5_create(path, err, sizeof err);
  assert_true(f >= 0);
  LsimH5Rows *a = lsim_h5_rows_create(f, "/g/a", LSIM_H5_I32, 2, 3, 4);
  LsimH5Rows *b = lsim_h5_rows_create(f, "/b", LSIM_H5_F64, 1, 1, 0);
  LsimH5Rows *s = lsim_h5_rows_create_strings(f, "/s", 6, 2);
  assert_non_null(a);
  assert_non_null(b);
  assert_non_null(s);
  assert_null(lsim_h5_rows_create(f, "/b", LSIM_H5_F64, 1, 1, 8));
  assert_null(lsim_h5_rows_create_strings(f, "/g/a", 6, 2));
  assert_null(lsim_h5_rows_create_strings(f, "/t", 0, 2));
  int ia[10][3];
  double xb[10];
  char sc[5][6] = {"one", "two", "three", "", "fiver"};
  for (int i = 0; i < 10; ++i) {
    for (int j = 0; j < 3; ++j) ia[i][j] = 10 * i + j - 7;
    xb[i] = 1.0 / (i + 3.0);
  }
  /* batches of 3, 6 and 1 rows: the second spans two chunks of 4 */
  assert_int_equal(lsim_h5_rows_append(a, ia[0], 3), 0);
  assert_int_equal(lsim_h5_rows_append(a, ia[3], 6), 0);
  assert_int_equal(lsim_h5_rows_append(a, ia[9], 1), 0);
  assert_int_equal(lsim_h5_rows_append(b, xb, 7), 0);
  assert_int_equal(lsim_h5_rows_append(b, xb + 7, 3), 0);
  assert_int_equal(lsim_h5_rows_append(s, sc[0], 3), 0);
  assert_int_equal(lsim_h5_rows_append(s, sc[3], 2), 0);
  assert_int_equal(lsim_h5_rows_count(a), 10);
  assert_int_equal(lsim_h5_rows_count(s), 5);
  lsim_h5_rows_close(a);
  lsim_h5_rows_close(b);
  lsim_h5_rows_close(s);
  assert_int_equal(lsim_h5_close(f), 0);

  hid_t h = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  assert_true(h >= 0);
  const char *names[3] = {"/g/a", "/b", "/s"};
  const int rank[3] = {2, 1, 1};
  const hsize_t chunk0[3] = {4, 1, 2};
  for (int k = 0; k < 3; ++k) {
    hid_t d = H5Dopen2(h, names[k], H5P_DEFAULT), sp = H5Dget_space(d), pl = H5Dget_create_plist(d);
    hsize_t dims[2] = {0, 0}, chunk[2] = {0, 0};
    assert_int_equal(H5Sget_simple_extent_dims(sp, dims, NULL), rank[k]);
    assert_int_equal(H5Pget_chunk(pl, 2, chunk), rank[k]);
    assert_int_equal(dims[0], k == 2 ? 5 : 10);
    assert_int_equal(chunk[0], chunk0[k]);
    if (k == 0) {
      int back[10][3];
      assert_int_equal(dims[1], 3);
      assert_int_equal(chunk[1], 3);
      assert_true(H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, back) >= 0);
      assert_memory_equal(back, ia, sizeof ia);
    } else if (k == 1) {
      double back[10];
      assert_true(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, back) >= 0);
      assert_memory_equal(back, xb, sizeof xb);
    } else {
      hid_t t = H5Dget_type(d);
      assert_int_equal(H5Tget_size(t), 6);
      char back[5][6];
      assert_true(H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, back) >= 0);
      for (int i = 0; i < 5; ++i) assert_string_equal(back[i], sc[i]);
      H5Tclose(t);
    }
    H5Pclose(pl);
    H5Sclose(sp);
    H5Dclose(d);
  }
  H5Fclose(h);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_roundtrip),
      cmocka_unit_test(test_stepper_dump),
      cmocka_unit_test(test_specs),
      cmocka_unit_test(test_specs_same),
      cmocka_unit_test(test_list_spaces),
      cmocka_unit_test(test_interrupted),
      cmocka_unit_test(test_reference_warm_is_driver),
      cmocka_unit_test(test_summary_excludes_failures),
      cmocka_unit_test(test_timed_outcomes),
      cmocka_unit_test(test_h5_rows),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
