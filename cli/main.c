/* main.c: the lcpsim command. */
/* MAP_ANONYMOUS and MAP_NORESERVE (blas_threads_under_limit) are not POSIX. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/cli.h"
#include "compare/spec.h"
#include "lcp/fc_solver.h"
#include "lcp/solver.h"
#include "scene/lcpdump.h"

#ifndef LSIM_VERSION
#define LSIM_VERSION "unknown"
#endif

/* OpenBLAS (loaded with Siconos and SuiteSparse) starts its worker threads in its own
 * constructor, as many as OPENBLAS_NUM_THREADS says (else one per core less one), and each
 * worker reserves 128 MB of address space as it starts. Under an address-space limit
 * (ulimit -v, RLIMIT_AS) too small for them all (some 400 MB on this 2-core machine, n *
 * 128 MB on n cores) a worker's reservation fails and it retries for ever: the command
 * does its work, then hangs at exit joining it. lcpsim's dense kernels are too small to
 * share (two OpenBLAS threads gave nothing, docs/solvers.md), so under any such limit,
 * unless the environment sets OPENBLAS_NUM_THREADS, the command starts itself again with
 * it set to 1 (exec ends the waiting threads). The variable must be there before the
 * library's constructor runs: set from main or a pre-init function it comes too late (the
 * C library's own start resets the environment after the pre-init functions). */
enum { BLAS_BUFFER = 128 << 20 }; /* OpenBLAS's buffer per thread (Debian's build) */
static void blas_threads_under_limit(char **argv) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_AS, &rl) || rl.rlim_cur == RLIM_INFINITY) return;
  if (!getenv("OPENBLAS_NUM_THREADS") && !setenv("OPENBLAS_NUM_THREADS", "1", 0))
    execv("/proc/self/exe", argv); /* returns only on failure: then go on as started */
  /* The same retry hangs the command's own thread at its first BLAS call when the limit
     leaves no room for that one buffer either: said at the start, since it cannot be
     stopped then (not even by SIGTERM). */
  void *p = mmap(NULL, BLAS_BUFFER, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p != MAP_FAILED) {
    munmap(p, BLAS_BUFFER);
    return;
  }
  fprintf(stderr,
          "lcpsim: note: the address-space limit (ulimit -v: %llu MB) leaves no room for the "
          "%d MB buffer OpenBLAS reserves at its first call (Lemke's checks, Siconos solvers, "
          "newton's factorizations), where it would wait for ever: raise it by some %d MB "
          "for a run that uses them\n",
          (unsigned long long)(rl.rlim_cur >> 20), BLAS_BUFFER >> 20, 2 * (BLAS_BUFFER >> 20));
}

/* The strict parsers of the comparison layer (compare/spec.h). */
int lsim_cli_parse_double(const char *s, double *out) { return lsim_parse_double(s, out); }
int lsim_cli_parse_int(const char *s, int *out) { return lsim_parse_int(s, out); }

int lsim_cli_value_missing(const char *prefix, const char *opt, const char *v) {
  if (v[0] != '-' || !v[1] || (v[1] >= '0' && v[1] <= '9') || v[1] == '.') return 0;
  fprintf(stderr, "%s: %s needs a value, got the option '%s' (a file whose name starts with "
          "'-': ./%s)\n", prefix, opt, v, v);
  return 2;
}

/* The one spelling of an option with two (the short one). */
static const char *cli_canonical(const char *a) {
  if (!strcmp(a, "--output")) return "-o";
  if (!strcmp(a, "--quiet")) return "-q";
  if (!strcmp(a, "--help")) return "-h";
  return a;
}

int lsim_cli_once(const char *prefix, const char *a, const char **seen, int *nseen, int cap) {
  const char *c = cli_canonical(a);
  for (int k = 0; k < *nseen; ++k) {
    if (strcmp(cli_canonical(seen[k]), c)) continue;
    if (strcmp(seen[k], a))
      fprintf(stderr, "%s: %s is given twice (as %s, then as %s): give it once\n", prefix, a,
              seen[k], a);
    else
      fprintf(stderr, "%s: %s is given twice: give it once (a second value would silently "
              "replace the first)\n", prefix, a);
    return 2;
  }
  if (*nseen < cap) seen[(*nseen)++] = a;
  return 0;
}

int lsim_cli_positional(const char *prefix, const char *help, const char *what, const char *a,
                        const char **path) {
  const char *eq = a[0] == '-' && a[1] == '-' ? strchr(a, '=') : NULL;
  if (eq) {
    /* --name=value: the value is the next argument here; said, with the spelling. */
    fprintf(stderr, "%s: unknown option '%s' (an option's value is the next argument: "
            "%.*s %s; see %s)\n", prefix, a, (int)(eq - a), a, eq + 1, help);
    return 2;
  }
  if (a[0] == '-' && a[1]) {
    fprintf(stderr, "%s: unknown option '%s' (see %s)\n", prefix, a, help);
    return 2;
  }
  if (*path) {
    fprintf(stderr, "%s: one %s only, got '%s' and '%s'\n", prefix, what, *path, a);
    return 2;
  }
  *path = a;
  return 0;
}

static void usage(FILE *f) {
  fprintf(f,
          "lcpsim %s: time-stepping rigid-body contact simulation with complementarity solvers\n"
          "\n"
          "usage:\n"
          "  lcpsim SCENE.json [options]       simulate a scene, write SCENE.h5 (same as 'run')\n"
          "  lcpsim run SCENE.json [options]\n"
          "  lcpsim solve FILE [options]       solve one LCP (Siconos .dat) or frictional\n"
          "                                    contact problem (Siconos .dat, FCLIB .hdf5)\n"
          "  lcpsim solve RUN.h5 --step K      re-solve a dumped LCP (--dump-lcp)\n"
          "  lcpsim compare SCENE.json --solvers LIST   compare solvers on identical problems\n"
          "  lcpsim export RUN.h5 --step K     write a dumped LCP as a Siconos .dat file\n"
          "  lcpsim view RUN.h5 [-o PAGE.html] a page that shows the run in a browser\n"
          "  lcpsim impact SCENE.json --close A:B   impulses if the named contacts close now\n"
          "  lcpsim solvers                    list the solver names\n"
          "  lcpsim models [NAME]              list the hybrid models (docs/hybrid.md)\n"
          "  lcpsim --help | --version\n"
          "\n"
          "'lcpsim COMMAND --help' describes a command's options.\n"
          "\n"
          "environment:\n"
          "  LSIM_SIMD=avx512|avx2|sse2|scalar|reference   the code path of PGS's coloured sweep\n"
          "                                    (default: avx2 where the CPU has it, else sse2;\n"
          "                                    avx512, asked for, where the CPU has it; avx512,\n"
          "                                    avx2, sse2 and scalar give the same bits; reference,\n"
          "                                    a check, reads the rows as doubles, docs/solvers.md)\n"
          "  LSIM_PGS_PRECISION=double|float  PGS's sweep arithmetic at a fixed budget of at most\n"
          "                                    100 sweeps, where a scene's solver.precision is not\n"
          "                                    set (default double; float: other bits, recorded)\n"
          "  LSIM_WIDE_ROWS, LSIM_AVX2_EVEX, LSIM_LU_SOLVE, LSIM_LU_REFACTOR, LSIM_BLOCK_START,\n"
          "  LSIM_PRINCIPAL, LSIM_TIES_SHORTCUT, LSIM_BOUND_SUMS\n"
          "                                    checks and comparisons of the sweep (its rows, the\n"
          "                                    AVX2 path's two builds) and of sparse Lemke\n"
          "                                    (docs/solvers.md, \"Environment\");\n"
          "                                    a value lcpsim does not know is refused (exit 2)\n"
          "  LSIM_VIEW_PIECE=N                 a test hook: 'lcpsim view' splits its numbers into\n"
          "                                    pieces of N bytes (rounded down to a multiple of\n"
          "                                    24, at least 24) instead of 48 MB; the same page\n",
          LSIM_VERSION);
}

/* The LSIM_* variables the library reads (lcp/pgs_wide.c, lcp/lemke_sparse.c; cli/view.c's
 * LSIM_VIEW_PIECE, a test hook, listed as such in --help and docs/solvers.md)
 * take a value they do not know as unset; lcpsim refuses such a value instead, so that a
 * comparison never runs silently on the default. words: the accepted values, "|" apart;
 * else an integer in [lo, hi]. Test-only names (LSIM_KERNEL_*, LSIM_SHARED) are not read
 * by lcpsim and pass; any other LSIM_ name gets a note (a misspelt one would do nothing). */
typedef struct {
  const char *name, *words;
  long lo, hi;
} EnvVar;

static const EnvVar env_vars[] = {
    {"LSIM_SIMD", "avx512|avx2|sse2|scalar|reference", 0, 0},
    {"LSIM_WIDE_ROWS", "full", 0, 0},
    {"LSIM_PGS_PRECISION", "double|float", 0, 0},
    {"LSIM_AVX2_EVEX", "off", 0, 0},
    {"LSIM_TIES_SHORTCUT", "0|1|2", 0, 0},
    {"LSIM_BOUND_SUMS", "0|1", 0, 0},
    {"LSIM_LU_SOLVE", "own|umfpack|klu|ft", 0, 0},
    {"LSIM_LU_REFACTOR", NULL, 10, 100000},
    {"LSIM_BLOCK_START", NULL, 0, 1000},
    {"LSIM_PRINCIPAL", NULL, 0, LSIM_PRINCIPAL_MAX},
    {"LSIM_VIEW_PIECE", NULL, 0, LONG_MAX},
};

/* 1 when v is one of words ("a|b|c"). */
static int env_word(const char *v, const char *words) {
  const size_t n = strlen(v);
  for (const char *w = words; *w;) {
    const char *bar = strchr(w, '|');
    const size_t len = bar ? (size_t)(bar - w) : strlen(w);
    if (len == n && !strncmp(w, v, n)) return 1;
    if (!bar) break;
    w = bar + 1;
  }
  return 0;
}

/* 0, or 2 with one line on stderr naming the variable, its value and what it takes. */
static int check_environment(void) {
  extern char **environ;
  for (char **e = environ; e && *e; ++e) {
    if (strncmp(*e, "LSIM_", 5)) continue;
    const char *eq = strchr(*e, '=');
    const size_t len = eq ? (size_t)(eq - *e) : strlen(*e);
    const char *v = eq ? eq + 1 : "";
    const EnvVar *var = NULL;
    for (size_t k = 0; k < sizeof env_vars / sizeof *env_vars; ++k)
      if (strlen(env_vars[k].name) == len && !strncmp(*e, env_vars[k].name, len)) var = &env_vars[k];
    if (!var) {
      if (!strncmp(*e, "LSIM_KERNEL_", 12) || (len == 11 && !strncmp(*e, "LSIM_SHARED", 11)))
        continue;
      fprintf(stderr, "lcpsim: note: environment %.*s is not a variable lcpsim reads (it reads",
              (int)len, *e);
      for (size_t k = 0; k < sizeof env_vars / sizeof *env_vars; ++k)
        fprintf(stderr, "%s%s", k ? ", " : " ", env_vars[k].name);
      fprintf(stderr, ")\n");
      continue;
    }
    if (!*v) continue; /* set empty: unset */
    if (var->words) {
      if (env_word(v, var->words)) continue;
      fprintf(stderr, "lcpsim: environment %s='%s': expected ", var->name, v);
      for (const char *w = var->words; *w; ++w) {
        if (*w != '|') fputc(*w, stderr);
        else fputs(strchr(w + 1, '|') ? ", " : " or ", stderr);
      }
      fputc('\n', stderr);
      return 2;
    }
    char *end;
    errno = 0;
    const long x = strtol(v, &end, 10);
    if (end != v && !*end && !errno && x >= var->lo && x <= var->hi) continue;
    if (var->hi == LONG_MAX)
      fprintf(stderr, "lcpsim: environment %s='%s': expected an integer of at least %ld\n", var->name,
              v, var->lo);
    else
      fprintf(stderr, "lcpsim: environment %s='%s': expected an integer from %ld to %ld\n", var->name,
              v, var->lo, var->hi);
    return 2;
  }
  return 0;
}

void lsim_cli_note_unused(const char *cmd, const char *solver, int omega_given,
                          int threads_given, int sparse_limit_given) {
  const int pgs = !strcmp(solver, "pgs"), newton = !strcmp(solver, "newton");
  const struct { int given, used; const char *option, *owner; } o[] = {
      {omega_given, pgs, "--omega", "pgs"},
      {threads_given, pgs, "--threads", "pgs"},
      {sparse_limit_given, newton, "--sparse-limit", "newton"},
  };
  for (size_t k = 0; k < sizeof o / sizeof o[0]; ++k)
    if (o[k].given && !o[k].used)
      fprintf(stderr, "%s: note: %s is an option of %s only; %s does not use it\n", cmd,
              o[k].option, o[k].owner, solver);
}

void lsim_cli_note_scene_unused(const char *scene_path, const char *text, const char *solver,
                                int omega_given, int threads_given, int sparse_limit_given) {
  if (!text) return;
  json_error_t je;
  json_t *root = json_loads(text, JSON_DECODE_ANY, &je);
  const json_t *so = json_is_object(root) ? json_object_get(root, "solver") : NULL;
  if (json_is_object(so)) {
    const int pgs = !strcmp(solver, "pgs"), newton = !strcmp(solver, "newton");
    const struct { const char *key, *owner; int used, overridden; } o[] = {
        {"omega", "pgs", pgs, omega_given},
        {"threads", "pgs", pgs, threads_given},
        {"sparse_limit", "newton", newton, sparse_limit_given},
    };
    for (size_t k = 0; k < sizeof o / sizeof o[0]; ++k)
      if (json_object_get(so, o[k].key) && !o[k].used && !o[k].overridden)
        fprintf(stderr, "lcpsim: note: %s: solver.%s is an option of %s only; %s does not use "
                "it\n", scene_path, o[k].key, o[k].owner, solver);
  }
  json_decref(root);
}

int main(int argc, char **argv) {
  blas_threads_under_limit(argv);
  lsim_h5_no_atexit();
  /* A file size limit (ulimit -f) is met as a write error, not by SIGXFSZ's kill: the
   * recorder counts the limit as a full disk and stops the run with its file whole, and a
   * write past it (a first flush larger than the limit) is an error naming the file. */
  signal(SIGXFSZ, SIG_IGN);
  if (argc < 2) {
    fprintf(stderr, "lcpsim: no scene or command given (see lcpsim --help)\n");
    return 2;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
    usage(stdout);
    return 0;
  }
  if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
    printf("lcpsim %s\n", LSIM_VERSION);
    return 0;
  }
  if (check_environment()) return 2;
  if (!strcmp(cmd, "solve")) return lsim_cli_solve(argc - 2, argv + 2);
  if (!strcmp(cmd, "run")) return lsim_cli_run(argc - 2, argv + 2);
  if (!strcmp(cmd, "compare")) return lsim_cli_compare(argc - 2, argv + 2);
  if (!strcmp(cmd, "export")) return lsim_cli_export(argc - 2, argv + 2);
  if (!strcmp(cmd, "view")) return lsim_cli_view(argc - 2, argv + 2);
  if (!strcmp(cmd, "impact")) return lsim_cli_impact(argc - 2, argv + 2);
  if (!strcmp(cmd, "models")) return lsim_cli_models(argc - 2, argv + 2);
  if (!strcmp(cmd, "solvers")) {
    /* --help describes the command; any other argument is refused (it was ignored). */
    if (argc > 2) {
      const int help = argc == 3 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"));
      if (!help) {
        fprintf(stderr, "lcpsim solvers: unexpected argument '%s' (usage: lcpsim solvers)\n",
                argv[2]);
        return 2;
      }
      printf("usage: lcpsim solvers\n  Lists the solver names, one a line on stdout: the LCP "
             "solvers (a scene's \"solver\",\n  --solver, lcpsim solve FILE.dat), then the "
             "frictional contact ones (lcpsim solve\n  and compare on frictional contact files), "
             "each group under a heading on stderr.\n");
      return 0;
    }
    /* The two kinds, each under a heading on stderr (stdout: one name a line). */
    fflush(stdout);
    fprintf(stderr, "# LCP solvers (a scene's \"solver\", --solver, lcpsim solve FILE.dat):\n");
    for (const char *const *n = lsim_solver_names(); *n; ++n) printf("%s\n", *n);
    fflush(stdout);
    /* exact-cone frictional contact solvers (lcpsim solve / compare on such files) */
    fprintf(stderr, "# frictional contact solvers (exact Coulomb cone: lcpsim solve / compare "
            "on frictional contact files; not a scene's solver):\n");
    for (const char *const *n = lsim_fc_solver_names(); *n; ++n) printf("%s\n", *n);
    return 0;
  }
  /* Anything else is a scene to run (run's parser reports unknown options). */
  return lsim_cli_run(argc - 1, argv + 1);
}
