/* test_datfile.c: the .dat reader and writer: bit-for-bit agreement with Siconos' own
 * reader on every shared file, round trips, and clear errors on bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "LinearComplementarityProblem.h"
#include "NumericsMatrix.h"
#include "lcp/datfile.h"
#include "lcp/fc.h"
#include "lcp/lcp.h"
#include "lcp/random.h"
#include "support.h"

static char g_tmpdir[64];

/* Names of the .dat files in shared/data/siconos-lcp, sorted; returns the count. */
static int list_files(char names[][128], int max) {
  char dir[512];
  lsim_test_shared_path("data/siconos-lcp", dir, sizeof dir);
  DIR *d = opendir(dir);
  assert_non_null(d);
  int count = 0;
  struct dirent *e;
  while ((e = readdir(d)) && count < max) {
    size_t len = strlen(e->d_name);
    if (len > 4 && strcmp(e->d_name + len - 4, ".dat") == 0 && len < 128)
      snprintf(names[count++], 128, "%.127s", e->d_name);
  }
  closedir(d);
  qsort(names, (size_t)count, 128, (int (*)(const void *, const void *))strcmp);
  return count;
}

static const char *data_path(const char *name, char *buf, size_t len) {
  char rel[256];
  snprintf(rel, sizeof rel, "data/siconos-lcp/%.200s", name);
  return lsim_test_shared_path(rel, buf, len);
}

/* Reads path with Siconos and checks n, every M entry and q bit for bit against lcp. */
static void check_same_as_siconos(const char *path, const LsimLcp *lcp) {
  LinearComplementarityProblem *p = newLCP();
  linearComplementarity_newFromFilename(p, path);
  assert_int_equal(p->size, lcp->n);
  assert_int_equal(p->M->size0, lcp->n);
  assert_int_equal(p->M->size1, lcp->n);
  for (int j = 0; j < lcp->n; ++j)
    for (int i = 0; i < lcp->n; ++i) {
      double theirs = NM_get_value(p->M, i, j), ours = lcp->M[i + (size_t)j * lcp->n];
      if (memcmp(&theirs, &ours, sizeof ours) != 0)
        fprintf(stderr, "%s: M(%d,%d) ours %.17g Siconos %.17g\n", path, i, j, ours, theirs);
      assert_memory_equal(&theirs, &ours, sizeof ours);
    }
  assert_memory_equal(p->q, lcp->q, (size_t)lcp->n * sizeof(double));
  freeLinearComplementarityProblem(p);
}

static void assert_same_lcp(const LsimLcp *a, const LsimLcp *b) {
  assert_int_equal(a->n, b->n);
  assert_memory_equal(a->M, b->M, (size_t)a->n * (size_t)a->n * sizeof(double));
  assert_memory_equal(a->q, b->q, (size_t)a->n * sizeof(double));
}

/* Every shared file: our reader gives exactly Siconos' M and q. */
static void test_same_as_siconos_reader(void **state) {
  (void)state;
  char names[64][128], path[512], err[256];
  int count = list_files(names, 64);
  assert_true(count >= 20);
  for (int k = 0; k < count; ++k) {
    LsimLcp lcp;
    data_path(names[k], path, sizeof path);
    int rc = lsim_dat_read(path, &lcp, err, sizeof err);
    if (rc) fprintf(stderr, "%s\n", err);
    assert_int_equal(rc, 0);
    assert_true(lcp.n > 0);
    check_same_as_siconos(path, &lcp);
    lsim_lcp_free(&lcp);
  }
}

/* The *_block files hold the same matrices as their dense twins. */
static void test_block_twins(void **state) {
  (void)state;
  const char *twins[][2] = {{"lcp_deudeu.dat", "lcp_deudeu_block.dat"},
                            {"lcp_ortiz.dat", "lcp_ortiz_block.dat"},
                            {"lcp_trivial.dat", "lcp_trivial_block.dat"}};
  for (int k = 0; k < 3; ++k) {
    char p1[512], p2[512];
    LsimLcp a, b;
    assert_int_equal(lsim_dat_read(data_path(twins[k][0], p1, sizeof p1), &a, NULL, 0), 0);
    assert_int_equal(lsim_dat_read(data_path(twins[k][1], p2, sizeof p2), &b, NULL, 0), 0);
    assert_same_lcp(&a, &b);
    lsim_lcp_free(&a);
    lsim_lcp_free(&b);
  }
}

/* Writes lcp in the given form, reads it back with ours (identical) and with Siconos
 * (identical). */
static void round_trip(const LsimLcp *lcp, int sparse, int bs) {
  char path[512], err[256];
  snprintf(path, sizeof path, "%s/rt.dat", g_tmpdir);
  int rc = lsim_dat_write(path, lcp, sparse, bs, err, sizeof err);
  if (rc) fprintf(stderr, "%s\n", err);
  assert_int_equal(rc, 0);
  LsimLcp back;
  rc = lsim_dat_read(path, &back, err, sizeof err);
  if (rc) fprintf(stderr, "%s\n", err);
  assert_int_equal(rc, 0);
  assert_same_lcp(lcp, &back);
  if (lcp->n > 0) check_same_as_siconos(path, &back);
  lsim_lcp_free(&back);
  unlink(path);
}

/* Every shared file, dense and sparse-block with every block size dividing n. */
static void test_round_trip_shared(void **state) {
  (void)state;
  char names[64][128], path[512];
  int count = list_files(names, 64);
  for (int k = 0; k < count; ++k) {
    LsimLcp lcp;
    assert_int_equal(lsim_dat_read(data_path(names[k], path, sizeof path), &lcp, NULL, 0), 0);
    round_trip(&lcp, 0, 0);
    for (int bs = 1; bs <= lcp.n; ++bs)
      if (lcp.n % bs == 0) round_trip(&lcp, 1, bs);
    lsim_lcp_free(&lcp);
  }
}

/* Doubles that need all 17 digits, tiny and huge magnitudes, -0.0, zero blocks, and an
 * all-zero M (sparse-block with nbblocks 0). */
static void test_round_trip_hard_values(void **state) {
  (void)state;
  LsimRng rng = lsim_rng(11);
  LsimLcp lcp;
  assert_int_equal(lsim_lcp_random_pmatrix(&lcp, 6, &rng), 0);
  lcp.M[0] = 0.1;
  lcp.M[1] = 1e-300;
  lcp.M[2] = -1.7976931348623157e308;
  lcp.M[3] = 4.9406564584124654e-324; /* smallest subnormal */
  lcp.M[4] = -0.0;
  lcp.q[0] = 1.0 / 3.0;
  /* Zero the top-right 3x3 block (rows 0-2, columns 3-5): omitted when bs = 3. */
  for (int j = 3; j < 6; ++j)
    for (int i = 0; i < 3; ++i) lcp.M[i + j * 6] = 0.0;
  round_trip(&lcp, 0, 0);
  round_trip(&lcp, 1, 1);
  round_trip(&lcp, 1, 2);
  round_trip(&lcp, 1, 3);
  round_trip(&lcp, 1, 6);
  /* All-zero M. */
  memset(lcp.M, 0, 36 * sizeof(double));
  round_trip(&lcp, 1, 3);
  round_trip(&lcp, 0, 0);
  lsim_lcp_free(&lcp);
  /* n = 0 round-trips through our reader (Siconos is not asked). */
  LsimLcp empty;
  assert_int_equal(lsim_lcp_init(&empty, 0), 0);
  round_trip(&empty, 0, 0);
  lsim_lcp_free(&empty);
}

/* Writes text to a temp file, reads it, expects rc and a message containing want. */
static void expect_error(const char *text, int want_rc, const char *want) {
  char path[512], err[256] = "";
  snprintf(path, sizeof path, "%s/bad.dat", g_tmpdir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  LsimLcp lcp;
  memset(&lcp, 0x5a, sizeof lcp);
  int rc = lsim_dat_read(path, &lcp, err, sizeof err);
  unlink(path);
  if (rc != want_rc || !strstr(err, want))
    fprintf(stderr, "input %.40s...: rc %d, message '%s', wanted '%s'\n", text, rc, err, want);
  assert_int_equal(rc, want_rc);
  assert_non_null(strstr(err, want));
  assert_non_null(strstr(err, path));
  assert_null(strchr(err, '\n'));
  /* On error the problem is left freed and zeroed. */
  assert_null(lcp.M);
  assert_null(lcp.q);
  assert_int_equal(lcp.n, 0);
}

static void test_bad_input(void **state) {
  (void)state;
  const int BAD = LSIM_INVALID_INPUT;
  /* Every message names path:line:column: a bad token's first character; "file ends" just
     after the last token, where more was expected. Columns count characters (UTF-8 text
     before a token counts once per character) and a tab is one. */
  expect_error("2\n0\n2 2\n2 2\n1 0\n0\t\t1e\n-1 -1\n", BAD, ":6:4: not a number: '1e'");
  expect_error("2\n2\n2 2\n\xC3\xA9\xC3\xA9 nnz: x,\n", BAD, ":4:9: sparse matrix: bad nnz 'x,'");
  /* Truncated: 9 of 16 entries, file ends on line 5. */
  expect_error("4\n0\n4 4\n4 4\n1 2 3 4 5 6 7 8 9\n", BAD,
               ":5:18: expected 16 matrix entries, file ends after 9");
  expect_error("2\n0\n2 2\n2 2\n1 2\n3 4\n5\n", BAD, ":7:2: expected 2 entries of q, file ends after 1");
  expect_error("4\n0\n3 3\n", BAD, ":3:1: size0 3 does not match n 4");
  expect_error("4\n0\n4 5\n", BAD, ":3:3: size1 5 does not match n 4");
  expect_error("2\n0\n2 2\n2 3\n", BAD, ":4:3: size1 3 does not match n 2");
  expect_error("2\n0\n2 2\n2 2\n1 abc\n3 4\n5 6\n", BAD, ":5:3: not a number: 'abc'");
  expect_error("2\n0\n2 2\n2 2\n1 2.5x\n3 4\n5 6\n", BAD, ":5:3: not a number: '2.5x'");
  expect_error("2\n0\n2 2\n2 2\n1 nan\n3 4\n5 6\n", BAD, ":5:3: NaN or Inf in M");
  expect_error("2\n0\n2 2\n2 2\n1 2\n3 4\n5 -inf\n", BAD, ":7:3: NaN or Inf in q");
  /* A finite number beyond the doubles: named as written, not as an Inf. */
  expect_error("2\n0\n2 2\n2 2\n1 1e999\n3 4\n5 6\n", BAD,
               ":5:3: '1e999' in M is beyond the range of a double");
  expect_error("2\n0\n2 2\n2 2\n1 2\n3 4\n5 -1e400\n", BAD,
               ":7:3: '-1e400' in q is beyond the range of a double");
  expect_error("", BAD, ":1:1: empty file");
  expect_error("  \n\n \n", BAD, ":1:1: empty file");
  expect_error("x\n", BAD, ":1:1: n: not an integer: 'x'");
  expect_error("-3\n", BAD, ":1:1: n -3 out of range");
  /* Bytes that are no printable text are quoted as \xNN; a byte order mark is named. */
  expect_error("\xEF\xBB\xBF" "2\n0\n2 2\n2 2\n1 0\n0 1\n-1 -1\n", BAD,
               ":1:1: the file starts with a UTF-8 byte order mark (bytes EF BB BF)");
  expect_error("\x7F" "ELF\x02\x01\n", BAD, ":1:1: n: not an integer: '\\x7FELF\\x02\\x01'");
  expect_error("2\n0\n2 2\n2 2\n1 \x01\xFF\n", BAD, ":5:3: not a number: '\\x01\\xFF'");
  /* More numbers than n needs (a 3 x 3 problem under n = 2); a comment after q is fine. */
  expect_error("2\n0\n2 2\n2 2\n1 0\n0 1\n-1 -1\n5 6 7\n", BAD,
               ":8:1: a number ('5') follows the 2 entries of q: more numbers than n = 2 needs");
  expect_error("2\n0\n2 2\n2 2\n1 0 0\n0 1 0\n0 0 1\n-1 -1 -1\n", BAD,
               ":7:1: a number ('0') follows the 2 entries of q");
  expect_error("99999999999999999999\n", BAD, ":1:1: n 99999999999999999999 out of range [0, 32768]");
  expect_error("2\n0\n-99999999999999999999 2\n", BAD,
               ":3:1: size0: integer out of range: '-99999999999999999999'");
  expect_error("2\n", BAD, ":1:2: expected storage type, file ends");
  expect_error("2\n3\n2 2\n", BAD, ":2:1: storage type 3 not supported");
  expect_error("2\n2\n2 2\nno header\n", BAD, ":4:10: sparse matrix: no 'nnz:' header");
  expect_error("2\n0\n2.5 2\n", BAD, ":3:1: size0: not an integer: '2.5'");
  /* Sparse-block structure errors. */
  expect_error("2\n1\n2 2\n1\n1 1\n3\n2\n", BAD, ":6:1: row block size 3: must increase");
  expect_error("2\n1\n2 2\n1\n1 1\n2\n2\n2 1\n0 1\n0\n1\n2 1 1 2\n-5 -6\n", BAD,
               ":11:1: block number 1, expected 0");
  expect_error("2\n1\n2 2\n1\n1 1\n2\n2\n2 1\n0 1\n3\n", BAD,
               ":10:1: block-column index 3 out of range");
  expect_error("2\n1\n2 2\n1\n1 1\n2\n2\n2 1\n0 1\n0\n0\n2 1 nan 2\n-5 -6\n", BAD,
               ":12:5: NaN or Inf in M");
  expect_error("2\n1\n2 2\n1\n1 1\n2\n2\n2 1\n0 1\n0\n0\n2 1\n", BAD,
               ":12:4: expected 4 values of block 0, file ends after 2");
  expect_error("2\n1\n2 2\n1\n1 1\n2\n2\n2 1\n0 1\n0\n0\n1.00000000000000000000000000000000000 1 1 2\n1 1\n",
               BAD, ":12:1: number longer than 32 characters");
}

/* Missing file, directory, unwritable path, bad writer arguments. */
static void test_io_errors(void **state) {
  (void)state;
  char err[256] = "";
  LsimLcp lcp;
  assert_int_equal(lsim_dat_read("/nonexistent/lcp.dat", &lcp, err, sizeof err), LSIM_IO_ERROR);
  assert_non_null(strstr(err, "/nonexistent/lcp.dat: cannot open"));
  assert_null(lcp.M);
  err[0] = '\0';
  int rc = lsim_dat_read(g_tmpdir, &lcp, err, sizeof err);
  assert_true(rc == LSIM_IO_ERROR || rc == LSIM_INVALID_INPUT);
  assert_true(strlen(err) > 0);
  /* NULL err buffers are allowed. */
  assert_int_equal(lsim_dat_read("/nonexistent/lcp.dat", &lcp, NULL, 0), LSIM_IO_ERROR);

  LsimRng rng = lsim_rng(3);
  assert_int_equal(lsim_lcp_random_spd(&lcp, 4, &rng), 0);
  assert_int_equal(lsim_dat_write("/nonexistent/dir/x.dat", &lcp, 0, 0, err, sizeof err),
                   LSIM_IO_ERROR);
  assert_non_null(strstr(err, "cannot open for writing"));
  char path[512];
  snprintf(path, sizeof path, "%s/w.dat", g_tmpdir);
  assert_int_equal(lsim_dat_write(path, &lcp, 1, 3, err, sizeof err), LSIM_INVALID_INPUT);
  assert_non_null(strstr(err, "does not divide"));
  assert_int_equal(lsim_dat_write(path, &lcp, 1, 0, err, sizeof err), LSIM_INVALID_INPUT);
  lcp.q[2] = NAN;
  assert_int_equal(lsim_dat_write(path, &lcp, 0, 0, err, sizeof err), LSIM_INVALID_INPUT);
  assert_non_null(strstr(err, "NaN or Inf"));
  unlink(path);
  lsim_lcp_free(&lcp);
}

/* The stream entry point names the stream in messages. */
static void test_stream(void **state) {
  (void)state;
  FILE *f = tmpfile();
  assert_non_null(f);
  fputs("1\n0\n1 1\n1 1\n2\n-3\n trailing comment is ignored\n", f);
  rewind(f);
  LsimLcp lcp;
  char err[256];
  assert_int_equal(lsim_dat_read_stream(f, "mem", &lcp, err, sizeof err), 0);
  assert_int_equal(lcp.n, 1);
  assert_true(lcp.M[0] == 2.0 && lcp.q[0] == -3.0);
  lsim_lcp_free(&lcp);
  fclose(f);
  f = tmpfile();
  assert_non_null(f);
  fputs("1\n0\n1 1\n1 1\nzz", f);
  rewind(f);
  assert_int_equal(lsim_dat_read_stream(f, "mem", &lcp, err, sizeof err), LSIM_INVALID_INPUT);
  assert_non_null(strstr(err, "mem:5:1: not a number: 'zz'"));
  fclose(f);
}

/* Every shared Siconos mixed LCP file is refused as one, on line 1, its kind recognised
 * (deudeu and Rectangular, n = m = 1, once read as a 1 x 1 LCP with M = 0); an LCP of
 * n = 1 in sparse-block storage with nbblocks 0 (the same first tokens) still reads. */
static void test_mlcp_refused(void **state) {
  (void)state;
  char dir[512], path[1024], err[512];
  lsim_test_shared_path("data/siconos-mlcp", dir, sizeof dir);
  DIR *d = opendir(dir);
  assert_non_null(d);
  int count = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    const size_t len = strlen(e->d_name);
    if (len < 4 || strcmp(e->d_name + len - 4, ".dat")) continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    LsimLcp lcp;
    assert_int_equal(lsim_dat_read(path, &lcp, err, sizeof err), LSIM_INVALID_INPUT);
    assert_null(lcp.M);
    char want[1100];
    snprintf(want, sizeof want, "%s:1:1: a mixed linear complementarity problem (Siconos MLCP", path);
    if (!strstr(err, want)) fprintf(stderr, "%s\n", err);
    assert_non_null(strstr(err, want));
    assert_int_equal(lsim_problem_file_kind(path), LSIM_FILE_MLCP);
    ++count;
  }
  closedir(d);
  assert_int_equal(count, 18);
  FILE *f = tmpfile();
  assert_non_null(f);
  fputs("1\n1\n1 1\n0\n-2\n", f);
  rewind(f);
  LsimLcp lcp;
  assert_int_equal(lsim_dat_read_stream(f, "mem", &lcp, err, sizeof err), 0);
  assert_true(lcp.n == 1 && lcp.M[0] == 0.0 && lcp.q[0] == -2.0);
  lsim_lcp_free(&lcp);
  fclose(f);
}

/* n = 32768 under a 1 GB address-space limit: M (8.6 GB) cannot be had, and the error
 * says why (n and the size), just after the size that asked for it. In a child process, as the
 * limit stays; not under AddressSanitizer, whose shadow memory needs more than the limit. */
static void test_out_of_memory_says_size(void **state) {
  (void)state;
#if defined(__SANITIZE_ADDRESS__)
  skip();
#else
  const pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    struct rlimit rl = {1UL << 30, 1UL << 30};
    if (setrlimit(RLIMIT_AS, &rl)) _exit(3);
    FILE *f = tmpfile();
    if (!f) _exit(4);
    fputs("32768\n0\n32768 32768\n32768 32768\n1 2\n", f);
    rewind(f);
    LsimLcp lcp;
    char err[256];
    const int rc = lsim_dat_read_stream(f, "big", &lcp, err, sizeof err);
    _exit(rc == LSIM_OUT_OF_MEMORY &&
                  strstr(err, "big:3:12: out of memory for n = 32768 (M is stored dense: 8.59 GB)")
              ? 0
              : 1);
  }
  int wst = 0;
  assert_int_equal(waitpid(pid, &wst, 0), pid);
  assert_true(WIFEXITED(wst));
  assert_int_equal(WEXITSTATUS(wst), 0);
#endif
}

static int setup(void **state) {
  (void)state;
  snprintf(g_tmpdir, sizeof g_tmpdir, "/tmp/lsim_datfile_XXXXXX");
  return mkdtemp(g_tmpdir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  return rmdir(g_tmpdir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_same_as_siconos_reader),
      cmocka_unit_test(test_block_twins),
      cmocka_unit_test(test_round_trip_shared),
      cmocka_unit_test(test_round_trip_hard_values),
      cmocka_unit_test(test_bad_input),
      cmocka_unit_test(test_io_errors),
      cmocka_unit_test(test_stream),
      cmocka_unit_test(test_mlcp_refused),
      cmocka_unit_test(test_out_of_memory_says_size),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
