/* export.c: `lcpsim export RUN.h5 --step K`: a dumped LCP as a Siconos .dat file. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "lcp/lcp.h"
#include "scene/outfile.h"
#include "lcp/datfile.h"
#include "scene/lcpdump.h"

/* The largest problem written as a dense .dat file (8 n^2 bytes of M: 0.5 GB). */
enum { LSIM_EXPORT_MAX_N = 8192 };

static void export_usage(FILE *f) {
  fprintf(f,
          "usage: lcpsim export RUN.h5 --step K [--series S] [-o FILE.dat]\n"
          "  Writes the LCP of step K, dumped by --dump-lcp (run or compare file), as a\n"
          "  dense Siconos .dat file (M and q; the friction-cone structure, warm start and\n"
          "  solutions are not part of the format); a step stored factored only has its M\n"
          "  formed, up to n = 8192.\n"
          "  --step K           the step (1-based; steps without contacts have no LCP)\n"
          "  --series S         independent comparisons: whose trajectory (series index,\n"
          "                     default the reference's)\n"
          "  -o, --output FILE  output (default: RUN's base name + _stepK.dat, here)\n"
          "Exit status: 0 written, 2 bad input.\n");
}

int lsim_cli_export(int argc, char **argv) {
  const char *path = NULL, *out_path = NULL;
  int step = -1, series = -1;

  /* Arguments. */
  const char *seen[64]; /* options met (lsim_cli_once) */
  int nseen = 0;
  for (int i = 0; i < argc; ++i) {
    const char *a = argv[i];
    if (a[0] == '-' && a[1] && lsim_cli_once("lcpsim export", a, seen, &nseen, 64)) return 2;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      export_usage(stdout);
      return 0;
    } else if (!strcmp(a, "--step") || !strcmp(a, "--series") || !strcmp(a, "-o") ||
               !strcmp(a, "--output")) {
      if (i + 1 >= argc) {
        fprintf(stderr, "lcpsim export: %s needs a value\n", a);
        return 2;
      }
      const char *v = argv[++i];
      if (!strcmp(a, "-o") || !strcmp(a, "--output")) out_path = v;
      else if (lsim_cli_parse_int(v, !strcmp(a, "--step") ? &step : &series) ||
               (!strcmp(a, "--step") ? step < 1 : series < 0)) {
        fprintf(stderr, "lcpsim export: %s: need an integer from %d to 2147483647, got '%s'\n", a,
                !strcmp(a, "--step") ? 1 : 0, v);
        return 2;
      }
    } else if (lsim_cli_positional("lcpsim export", "lcpsim export --help", "file", a, &path)) {
      return 2;
    }
  }
  if (!path || step < 1) {
    if (path) fprintf(stderr, "lcpsim export: --step K is required\n");
    else fprintf(stderr, "lcpsim export: no RUN.h5 given (see lcpsim export --help)\n");
    return 2;
  }

  /* Read the problem, write it. */
  char err[LSIM_OUTFILE_MSG_MAX];
  LsimDumpedLcp d;
  lsim_cli_reading_live("lcpsim export", path);
  if (lsim_lcpdump_read(path, step, series, &d, err, sizeof err)) {
    fprintf(stderr, "lcpsim export: %s\n", err);
    return 2;
  }
  /* A step stored factored only: its dense M formed, up to the size a .dat file is for. */
  if (lsim_dumped_lcp_densify(&d, LSIM_EXPORT_MAX_N, err, sizeof err)) {
    fprintf(stderr, "lcpsim export: %s: %s\n", path, err);
    lsim_dumped_lcp_free(&d);
    return 2;
  }
  char out[LSIM_OUTFILE_PATH_MAX];
  int outlen;
  if (out_path) {
    outlen = snprintf(out, sizeof out, "%s", out_path);
  } else {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (n > 3 && !strcmp(base + n - 3, ".h5")) n -= 3;
    outlen = snprintf(out, sizeof out, "%.*s_step%d.dat", (int)n, base, step);
  }
  if (outlen < 0 || (size_t)outlen >= sizeof out) {
    /* Never cut short: a shorter name would be another file. */
    fprintf(stderr, "lcpsim export: %.200s...: output path too long (at most %zu characters)\n",
            out, sizeof out - 1);
    lsim_dumped_lcp_free(&d);
    return 2;
  }
  /* Under a partial name of its own; only a regular file is replaced (scene/outfile.h). */
  LsimOutFile of;
  int rc = 0;
  if (lsim_outfile_same(out, path)) {
    snprintf(err, sizeof err, "%.900s: the output is the input file itself: refused", out);
    rc = LSIM_INVALID_INPUT;
  } else if (!(rc = lsim_outfile_begin(&of, out, err, sizeof err))) {
    rc = lsim_dat_write(of.partial, &d.lcp, 0, 1, err, sizeof err);
    if (rc) lsim_outfile_discard(&of);
    else rc = lsim_outfile_commit(&of, err, sizeof err);
  }
  if (rc) fprintf(stderr, "lcpsim export: %s\n", err);
  else printf("%s: step %d (series %d), n = %d -> %s\n", path, step, d.series, d.lcp.n, out);
  lsim_dumped_lcp_free(&d);
  return rc ? 2 : 0;
}
