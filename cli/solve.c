/* solve.c: `lcpsim solve FILE.dat`: one LCP from a Siconos .dat file, any solver; or
 * `lcpsim solve RUN.h5 --step K`: one LCP dumped by --dump-lcp (scene/lcpdump.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "lcp/datfile.h"
#include "lcp/fc.h"
#include "lcp/fc_solver.h"
#include "lcp/h5check.h"
#include "lcp/quality.h"
#include "lcp/solver.h"
#include "scene/lcpdump.h"
#include "scene/outfile.h"

static void solve_usage(FILE *f) {
  fprintf(f,
          "usage: lcpsim solve FILE.dat|FILE.hdf5 [--solver NAME] [--tol X] [--max-iter N]\n"
          "                  [--omega W] [--threads T] [--sparse-limit N] [--warm FILE]\n"
          "                  [--print-z]\n"
          "       lcpsim solve RUN.h5 --step K [--series S] [--warm-dumped] [options]\n"
          "  Solves the LCP w = M z + q, 0 <= z _|_ w >= 0 read from a Siconos .dat file,\n"
          "  or the LCP of step K dumped in a run or compare file (--dump-lcp), or a\n"
          "  frictional contact problem (Siconos .dat or FCLIB .hdf5: the kind is recognised\n"
          "  from the content and printed): u = W r + q, Coulomb's law with the exact cone.\n"
          "  --solver NAME   lemke (default), pgs, newton, lemke_sparse, or siconos:NAME\n"
          "                  ('lcpsim solvers' lists them all)\n"
          "  --tol X         tolerance on the natural residual relative to max|q| (1e-10)\n"
          "  --max-iter N    pivot or sweep limit (0: the solver's default)\n"
          "  --omega W       PGS relaxation in (0, 2) (1)\n"
          "  --threads T     PGS threads (1); its iterates depend on T: a run's dumped step\n"
          "                  is re-solved as the run solved it with the run's T\n"
          "  --sparse-limit N  newton: sparse Lemke after its own phases fail, for n > 500\n"
          "                  and n <= N (-1: any n; 0: never, the default)\n"
          "  --warm FILE     warm start from n numbers in FILE (whitespace-separated)\n"
          "  --print-z       print z (r for frictional contact), one entry per line\n"
          "  --d N           frictional contact with an LCP solver: the polyhedral cone's\n"
          "                  directions (3-D: a multiple of 4, default 8; 2-D: 2); exact-cone\n"
          "                  solvers: nsgs (default), siconos:fc3d_nsgs, ... ('lcpsim solvers')\n"
          "  --step K        run or compare file (HDF5, whatever its name): the step whose\n"
          "                  LCP to solve (1-based)\n"
          "  --series S      .h5 input of an independent comparison: whose trajectory\n"
          "  --warm-dumped   .h5 input: warm start from the dumped warm-start guess\n"
          "Exit status: 0 solved, 1 the solver did not solve, 2 bad input. With --tol 0\n"
          "the limit is a fixed budget (as in runs): reaching it (max_iterations) exits 0.\n");
}

/* The exit status of a solve, by the rule of runs (cli/run.c): with tol 0 an iterative
 * solver runs a fixed budget, and spending it (max_iterations) is its normal end, not a
 * failure; the status printed still says max_iterations, and a line says why it is not a
 * failure. */
static int solve_exit(int status, double tol) {
  if (status == LSIM_SOLVED) return 0;
  if (status == LSIM_MAX_ITERATIONS && tol == 0.0) {
    printf("fixed budget       tol 0: the limit reached is the budget spent, not a failure\n");
    return 0;
  }
  return 1;
}

/* Reads exactly n finite numbers from path into z; errors name line:column and the entry. */
static int read_warm(const char *path, int n, double *z) {
  /* An HDF5 file given by mistake (a run file's head is text: lcp/h5check.h). */
  if (lsim_h5_head(path) != LSIM_H5_HEAD_OTHER) {
    fprintf(stderr, "lcpsim: %s: an HDF5 file (not text: a binary file), not a warm start of "
            "%d numbers\n", path, n);
    return -1;
  }
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "lcpsim: %s: cannot open: %s\n", path, strerror(errno));
    return -1;
  }
  /* line:col of the next character (columns count characters, as the .dat reader's) and
     of the last token's start and end */
  int count = 0, line = 1, col = 1, tline = 1, tcol = 1, ecol = 1, c;
  char tok[128];
  for (;;) {
    /* Whitespace, counting lines; then one token (longer ones are refused, not split). */
    while ((c = getc(f)) != EOF && (c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
                                    c == '\v' || c == '\f')) {
      col = c == '\n' ? 1 : col + 1;
      line += c == '\n';
    }
    if (c == EOF) break;
    size_t len = 0;
    tline = line, tcol = col;
    for (; c != EOF && !(c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
                         c == '\f'); c = getc(f)) {
      if (len < sizeof tok) tok[len++] = (char)c;
      col += (c & 0xC0) != 0x80;
    }
    ecol = col;
    if (c != EOF) ungetc(c, f);
    if (len == sizeof tok) {
      fprintf(stderr, "lcpsim: %s:%d:%d: entry %d: number longer than %zu characters\n", path,
              tline, tcol, count + 1, sizeof tok - 1);
      fclose(f);
      return -1;
    }
    tok[len] = '\0';
    char *end;
    double v = strtod(tok, &end);
    if (*end || !isfinite(v)) {
      /* Bytes that are no text are not echoed (a binary file given by mistake). */
      int text = 1;
      for (size_t k = 0; k < len; ++k) text &= tok[k] >= 0x20 && tok[k] < 0x7f;
      fprintf(stderr, "lcpsim: %s:%d:%d: entry %d: not a finite number: %s%s%s\n", path, tline,
              tcol, count + 1, text ? "'" : "", text ? tok : "(not text: a binary file?)",
              text ? "'" : "");
      fclose(f);
      return -1;
    }
    if (count == n) {
      fprintf(stderr, "lcpsim: %s:%d:%d: entry %d: more than the %d numbers of the warm start "
              "(n = %d)\n", path, tline, tcol, count + 1, n, n);
      fclose(f);
      return -1;
    }
    z[count++] = v;
  }
  const int bad = ferror(f), bad_errno = errno;
  fclose(f);
  if (bad) {
    fprintf(stderr, "lcpsim: %s: read error: %s\n", path, strerror(bad_errno));
    return -1;
  }
  if (count != n) {
    /* the file ends just after its last number (1:1 when it has none) */
    fprintf(stderr, "lcpsim: %s:%d:%d: expected %d numbers for the warm start (n = %d), file "
            "ends after %d\n", path, tline, ecol, n, n, count);
    return -1;
  }
  return 0;
}

/* What the report says of a warm start: given and used, or given and not used (an
 * all-zero guess is a cold start; Siconos' pivoting solvers read no guess; Lemke keeps
 * its warm path only when it ends the solve). */
static const char *warm_note(int given, int used) {
  if (!given) return "";
  return used ? " (warm start)"
              : " (warm start given, not used: a zero guess, or the solver started cold)";
}

/* The report's iteration line: "n/a" when the solver gives no count (negative: siconos:
 * nsgs_sbm, lcp/solver.h), never a 0 it did not report. */
static void print_iterations(int iterations) {
  if (iterations < 0) printf("iterations         n/a (the solver reports no count)\n");
  else printf("iterations         %d\n", iterations);
}

/* A frictional contact problem: solved with the exact cone, or as the Stewart-Trinkle LCP
 * of a polyhedral cone (an LCP solver with ndir directions); the same Coulomb measures. */
static int solve_fc(const char *path, int kind, const char *solver_name, LsimSolverOptions opt,
                    int ndir, const char *warm_path, int print_z, const int given[3]) {
  char err[1024];
  LsimFc p;
  if (lsim_fc_read(path, &p, err, sizeof err)) {
    fprintf(stderr, "lcpsim: %s\n", err);
    return 2;
  }
  const int exact = lsim_fc_solver_is_exact(solver_name);
  /* --d is the polyhedral cone's: an exact-cone solver would ignore it silently. */
  if (exact && ndir > 0) {
    fprintf(stderr, "lcpsim solve: --d %d: %s uses the exact cone; --d is for an LCP solver "
            "on the polyhedral cone (lemke, pgs, ...)\n", ndir, solver_name);
    lsim_fc_free(&p);
    return 2;
  }
  if (!exact && ndir < 0) ndir = p.dim == 2 ? 2 : 8;
  lsim_cli_note_unused("lcpsim solve", solver_name, given[0], given[1], given[2]);
  LsimFcSolver *solver = NULL;
  double *r = calloc(2 * (size_t)p.n + 2, sizeof(double));
  int rc = 2;
  if (!r) {
    fprintf(stderr, "lcpsim: out of memory\n");
    goto done;
  }
  if (warm_path) {
    if (read_warm(warm_path, p.n, r)) goto done;
    opt.warm_start = 1;
  }
  if (lsim_fc_solver_create(&solver, solver_name, &opt, exact ? 0 : ndir, err, sizeof err)) {
    fprintf(stderr, "lcpsim: solver %s: %s\n", solver_name, err);
    goto done;
  }
  LsimFcStats st;
  const int status = lsim_fc_solver_solve(solver, &p, r, r + p.n, &st);
  /* A solver that does not take this problem (a 2-D solver on a 3-D problem, d not a
     multiple of 4 in 3-D) is bad input: said on stderr, exit 2, no report. */
  if (status == LSIM_INVALID_INPUT) {
    fprintf(stderr, "lcpsim solve: %s: %s\n", path, lsim_fc_solver_last_message(solver));
    goto done;
  }
  printf("problem            %s (%s, dimension %d, %d contacts, n = %d)\n", path,
         lsim_problem_file_kind_name(kind), p.dim, p.nc, p.n);
  if (exact)
    printf("solver             %s (exact cone)%s\n", solver_name,
           warm_note(opt.warm_start, st.warm_started));
  else
    printf("solver             %s on the polyhedral LCP, d = %d (n = %d)%s\n", solver_name,
           ndir, p.nc * (ndir + 2), warm_note(opt.warm_start, st.warm_started));
  printf("status             %s\n", lsim_status_name(status));
  print_iterations(st.iterations);
  printf("natural map        %.3e (relative to ||q||: %.3e)\n", st.quality.natural,
         st.quality.relative);
  printf("cone violation     %.3e\n", st.quality.cone);
  printf("dual cone viol.    %.3e\n", st.quality.dual_cone);
  printf("complementarity    %.3e\n", st.quality.complementarity);
  printf("sliding contacts   %d\n", st.quality.nsliding);
  if (!exact) printf("lcp residual       %.3e (relative)\n", st.lcp_relative);
  if (st.siconos_error >= 0.0) printf("siconos error      %.3e\n", st.siconos_error);
  printf("wall time          %.6f s\n", st.wall_time);
  const char *message = lsim_fc_solver_last_message(solver);
  if (*message) printf("message            %s\n", message);
  rc = solve_exit(status, opt.tol);
  if (print_z)
    for (int i = 0; i < p.n; ++i) printf("r[%d] = %.17g\n", i, r[i]);
done:
  lsim_fc_solver_free(solver);
  free(r);
  lsim_fc_free(&p);
  return rc;
}

int lsim_cli_solve(int argc, char **argv) {
  const char *path = NULL, *solver_name = "lemke", *warm_path = NULL;
  LsimSolverOptions opt = lsim_default_solver_options();
  int print_z = 0, step = -1, series = -1, warm_dumped = 0, ndir = -1, solver_given = 0;
  int omega_given = 0, sparse_limit_given = 0, threads_given = 0;

  /* Arguments. */
  const char *seen[64]; /* options met (lsim_cli_once) */
  int nseen = 0;
  for (int i = 0; i < argc; ++i) {
    const char *a = argv[i];
    if (a[0] == '-' && a[1] && lsim_cli_once("lcpsim solve", a, seen, &nseen, 64)) return 2;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      solve_usage(stdout);
      return 0;
    } else if (!strcmp(a, "--print-z")) {
      print_z = 1;
    } else if (!strcmp(a, "--warm-dumped")) {
      warm_dumped = 1;
    } else if (!strcmp(a, "--d")) {
      if (i + 1 >= argc || lsim_cli_parse_int(argv[i + 1], &ndir) || ndir < 2) {
        fprintf(stderr, "lcpsim solve: --d: need an integer >= 2\n");
        return 2;
      }
      ++i;
    } else if (!strcmp(a, "--step") || !strcmp(a, "--series")) {
      const int is_step = !strcmp(a, "--step");
      if (i + 1 >= argc || lsim_cli_parse_int(argv[i + 1], is_step ? &step : &series) ||
          (is_step ? step < 1 : series < 0)) {
        fprintf(stderr, "lcpsim solve: %s: need an integer >= %d\n", a, is_step ? 1 : 0);
        return 2;
      }
      ++i;
    } else if (!strcmp(a, "--solver") || !strcmp(a, "--tol") || !strcmp(a, "--max-iter") ||
               !strcmp(a, "--warm") || !strcmp(a, "--omega") || !strcmp(a, "--sparse-limit") ||
               !strcmp(a, "--threads")) {
      if (i + 1 >= argc) {
        fprintf(stderr, "lcpsim solve: %s needs a value\n", a);
        return 2;
      }
      const char *v = argv[++i];
      if (!strcmp(a, "--solver")) solver_name = v, solver_given = 1;
      else if (!strcmp(a, "--warm")) warm_path = v;
      else if (!strcmp(a, "--tol")) {
        if (lsim_cli_parse_double(v, &opt.tol) || !(opt.tol >= 0.0)) {
          fprintf(stderr, "lcpsim solve: --tol: need a finite number >= 0 (in double range), got '%s'\n", v);
          return 2;
        }
      } else if (!strcmp(a, "--omega")) {
        omega_given = 1;
        if (lsim_cli_parse_double(v, &opt.omega) || !(opt.omega > 0.0 && opt.omega < 2.0)) {
          fprintf(stderr, "lcpsim solve: --omega: need a number in (0, 2), got '%s'\n", v);
          return 2;
        }
      } else if (!strcmp(a, "--threads")) {
        threads_given = 1;
        if (lsim_cli_parse_int(v, &opt.threads) || opt.threads < 1 ||
            opt.threads > LSIM_PGS_MAX_THREADS) {
          fprintf(stderr, "lcpsim solve: --threads: need an integer in 1..%d, got '%s'\n",
                  LSIM_PGS_MAX_THREADS, v);
          return 2;
        }
      } else if (!strcmp(a, "--sparse-limit")) {
        sparse_limit_given = 1;
        if (lsim_cli_parse_int(v, &opt.sparse_limit) || opt.sparse_limit < -1) {
          fprintf(stderr, "lcpsim solve: --sparse-limit: need an integer from -1 to 2147483647, got '%s'\n", v);
          return 2;
        }
      } else if (lsim_cli_parse_int(v, &opt.max_iter) || opt.max_iter < 0) {
        fprintf(stderr, "lcpsim solve: --max-iter: need an integer from 0 to 2147483647, got '%s'\n", v);
        return 2;
      }
    } else if (lsim_cli_positional("lcpsim solve", "lcpsim solve --help", "problem file", a, &path)) {
      return 2;
    }
  }
  if (!path) {
    fprintf(stderr, "lcpsim solve: no problem file given (see lcpsim solve --help)\n");
    return 2;
  }

  /* Problem: a .dat file, or a dumped step of an HDF5 file. */
  char err[1024];
  LsimLcp lcp;
  LsimDumpedLcp dumped;
  memset(&dumped, 0, sizeof dumped);
  const size_t plen = strlen(path);
  char why[256];
  if (lsim_input_probe(path, why, sizeof why)) { /* missing, a directory: said as for .dat files */
    fprintf(stderr, "lcpsim: %s: %s\n", path, why);
    return 2;
  }
  FILE *probe = fopen(path, "rb");
  if (!probe) {
    fprintf(stderr, "lcpsim: %s: cannot open: %s\n", path, strerror(errno));
    return 2;
  }
  /* A JSON text (a scene) named as such: it was read as an LCP, "scene.json:1: n: not an
     integer: '{'". */
  int first = ' ';
  while (first == ' ' || first == '\t' || first == '\n' || first == '\r') first = fgetc(probe);
  fclose(probe);
  if (first == '{') {
    fprintf(stderr, "lcpsim solve: %s: a JSON text (a scene? 'lcpsim %s' runs it), not a "
            "problem file (a Siconos .dat, an FCLIB .hdf5, or RUN.h5 --step K)\n", path, path);
    return 2;
  }
  /* A run or compare file: NAME.h5, the PATH.<pid>.partial a killed run left, or any
     HDF5 file asked for a step (FCLIB files have none). */
  const int kind0 = lsim_problem_file_kind(path);
  const int from_h5 = (plen > 3 && !strcmp(path + plen - 3, ".h5")) ||
                      (plen > 8 && !strcmp(path + plen - 8, ".partial")) ||
                      (kind0 == LSIM_FILE_FCLIB && (step > 0 || series >= 0 || warm_dumped));
  const int kind = from_h5 ? LSIM_FILE_UNKNOWN : kind0;
  if (kind == LSIM_FILE_FC_DAT || kind == LSIM_FILE_FCLIB)
    return solve_fc(path, kind, solver_given ? solver_name : "nsgs", opt, ndir, warm_path,
                    print_z, (const int[3]){omega_given, threads_given, sparse_limit_given});
  if (ndir > 0) {
    fprintf(stderr, "lcpsim solve: --d is for frictional contact problems\n");
    return 2;
  }
  if (!from_h5 && (step > 0 || series >= 0 || warm_dumped)) {
    fprintf(stderr, "lcpsim solve: --step, --series and --warm-dumped need an .h5 file\n");
    return 2;
  }
  if (from_h5 && (step < 1 || warm_path)) {
    fprintf(stderr, "lcpsim solve: %s: %s\n", path,
            warm_path ? "--warm FILE is for .dat problems (use --warm-dumped)"
                      : "--step K is required for an .h5 file");
    return 2;
  }
  if (from_h5) {
    lsim_cli_reading_live("lcpsim solve", path);
    if (lsim_lcpdump_read(path, step, series, &dumped, err, sizeof err)) {
      fprintf(stderr, "lcpsim: %s\n", err);
      return 2;
    }
    lcp = dumped.lcp; /* shallow: dumped keeps ownership */
    /* A step's problem (a factored form: a run's or a scene comparison's) in the unit its
       run solved it in; an LCP set's (.dat) as given (solver.h, impulse_unit). */
    opt.impulse_unit = dumped.factored;
  } else if (lsim_dat_read(path, &lcp, err, sizeof err)) {
    fprintf(stderr, "lcpsim: %s\n", err);
    return 2;
  }
  double *z = calloc((size_t)lcp.n + 1, sizeof(double));
  if (!z) {
    fprintf(stderr, "lcpsim: out of memory\n");
    if (from_h5) lsim_dumped_lcp_free(&dumped);
    else lsim_lcp_free(&lcp);
    return 2;
  }
  if (warm_path) {
    if (read_warm(warm_path, lcp.n, z)) {
      free(z);
      if (from_h5) lsim_dumped_lcp_free(&dumped);
      else lsim_lcp_free(&lcp);
      return 2;
    }
    opt.warm_start = 1;
  }
  if (warm_dumped) {
    memcpy(z, dumped.warm, (size_t)lcp.n * sizeof(double));
    opt.warm_start = 1;
  }

  /* Solver. */
  LsimSolver *solver = NULL;
  if (lsim_solver_create(&solver, solver_name, &opt, err, sizeof err)) {
    fprintf(stderr, "lcpsim: solver %s: %s\n", solver_name, err);
    free(z);
    if (from_h5) lsim_dumped_lcp_free(&dumped);
    else lsim_lcp_free(&lcp);
    return 2;
  }
  lsim_cli_note_unused("lcpsim solve", lsim_solver_name(solver), omega_given, threads_given,
                       sparse_limit_given);
  LsimSolveStats st;
  memset(&st, 0, sizeof st);
  /* A dumped step is solved in the factored form when the file stores it: the problem
     the run's solver was handed (PGS takes the same path, so the same iterates). */
  const int factored = from_h5 && dumped.factored;
  int status = factored ? lsim_solver_solve_factored(solver, &dumped.f, z, &st)
                        : lsim_solver_solve(solver, &lcp, z, &st);

  /* Report. */
  if (factored && dumped.dense)
    printf("problem            %s step %d series %d (n = %d, %d cones, factored: m = %d, "
           "factored hash %016llx, hash %016llx)\n", path, step, dumped.series, lcp.n,
           lcp.ncones, dumped.f.m, (unsigned long long)dumped.factored_hash,
           (unsigned long long)dumped.hash);
  else if (factored)
    printf("problem            %s step %d series %d (n = %d, %d cones, factored: m = %d, "
           "factored hash %016llx)\n", path, step, dumped.series, lcp.n, lcp.ncones,
           dumped.f.m, (unsigned long long)dumped.factored_hash);
  else if (from_h5)
    printf("problem            %s step %d series %d (n = %d, %d cones, hash %016llx)\n", path,
           step, dumped.series, lcp.n, lcp.ncones, (unsigned long long)dumped.hash);
  else
    printf("problem            %s (%s, n = %d)\n", path,
           lsim_problem_file_kind_name(LSIM_FILE_LCP), lcp.n);
  printf("solver             %s%s\n", solver_name, warm_note(opt.warm_start, st.warm_started));
  printf("status             %s\n", lsim_status_name(status));
  print_iterations(st.iterations);
  printf("natural residual   %.3e (relative to max|q|: %.3e)\n", st.residual.natural,
         st.residual.relative);
  printf("complementarity    %.3e\n", st.residual.complementarity);
  printf("z negative         %.3e\n", st.residual.z_negative);
  printf("w negative         %.3e\n", st.residual.w_negative);
  if (st.siconos_error >= 0.0) printf("siconos error      %.3e\n", st.siconos_error);
  printf("wall time          %.6f s\n", st.wall_time);
  /* What the solver said beyond its status (Siconos' own printing, captured). */
  const char *message = lsim_solver_last_message(solver);
  if (*message) printf("message            %s\n", message);
  if (from_h5) {
    /* The quality measures and the distance to each stored solution. */
    double *work = calloc(2 * (size_t)lcp.n + (factored ? (size_t)dumped.f.m : 0) + 2, sizeof(double));
    if (work) {
      LsimQuality qm;
      if (factored) lsim_factored_quality(&dumped.f, z, work, -1.0, &qm);
      else lsim_lcp_quality(&lcp, z, work, -1.0, &qm);
      printf("signorini          %.3e\n", qm.signorini);
      printf("cone               %.3e\n", qm.cone);
      printf("dissipation        %.3e (%d sliding)\n", qm.dissipation, qm.nsliding);
    }
    for (int j = 0; j < dumped.nsolutions; ++j) {
      /* A series not solved on this step (skipped above a comparison's dense limit) is
         stored as NaN. */
      const double *zj = dumped.z + (size_t)j * lcp.n;
      int solved = 1;
      for (int i = 0; i < lcp.n; ++i) solved &= !isnan(zj[i]);
      /* Impulses, and for a factored problem the velocities they cause, max |B (z - z_j)|
         (compare's /results/distance: impulses of a contact LCP are not unique); the
         measures' scratch holds B (z - z_j). */
      double *du = factored ? work : NULL;
      if (solved && du)
        printf("distance to stored %s: %.3e (impulses), %.3e (velocities)\n", dumped.labels[j],
               lsim_quality_distance(lcp.n, z, zj),
               lsim_factored_velocity_distance(&dumped.f, z, zj, du));
      else if (solved)
        printf("distance to stored %s: %.3e\n", dumped.labels[j],
               lsim_quality_distance(lcp.n, z, zj));
      else
        printf("distance to stored %s: none (not solved on this step)\n", dumped.labels[j]);
    }
    free(work);
  }
  const int rc = solve_exit(status, opt.tol);
  if (print_z)
    for (int i = 0; i < lcp.n; ++i) printf("z[%d] = %.17g\n", i, z[i]);

  lsim_solver_free(solver);
  free(z);
  if (from_h5) lsim_dumped_lcp_free(&dumped);
  else lsim_lcp_free(&lcp);
  return rc;
}
