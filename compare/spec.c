/* spec.c: solver specs of a comparison (compare/spec.h). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/spec.h"
#include "lcp/pgs.h"

int lsim_parse_double(const char *s, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || *end || errno || !isfinite(v)) return -1;
  *out = v;
  return 0;
}

int lsim_parse_int(const char *s, int *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (end == s || *end || errno || v < INT_MIN || v > INT_MAX) return -1;
  *out = (int)v;
  return 0;
}

/* Parses one spec text[0..len) into s. 0, or -1 with a message in err. */
int lsim_compare_parse_spec(const char *text, size_t len, LsimCompareSpec *s, char *err,
                            size_t errlen) {
  memset(s, 0, sizeof *s);
  s->opt = lsim_default_solver_options();
  /* Islands as a run's time step solves (LsimSolverSettings.islands, 1): a reference drives
     the trajectory with them, so its series solve as its run alone does (with 0 the driver
     had solved pile_10 island by island and its warm series whole, 3.6e-10 m/s apart).
     LCP sets are dense problems, which no solver splits. */
  s->opt.islands = 1;
  s->warm = -1;
  s->ndir = -1;
  if (len == 0 || len >= sizeof s->label) {
    snprintf(err, errlen, "empty or too long solver spec in the list");
    return -1;
  }
  memcpy(s->label, text, len);
  const char *open = memchr(text, '[', len);
  const size_t nlen = open ? (size_t)(open - text) : len;
  if (nlen == 0 || nlen >= sizeof s->name || memchr(text, ']', nlen)) {
    snprintf(err, errlen, "malformed solver spec '%s'", s->label);
    return -1;
  }
  memcpy(s->name, text, nlen);
  s->dense = lsim_solver_needs_dense(s->name);
  if (!open) return 0;
  if (text[len - 1] != ']' || len - nlen < 2) {
    snprintf(err, errlen, "malformed solver spec '%s': options go in NAME[key=value,...]",
             s->label);
    return -1;
  }

  /* Options: key=value pairs between the brackets; each key's value text is kept for the
     checks after the loop. */
  static const char *const keys[] = {"tol", "max_iter", "sweeps", "omega", "warm",
                                     "threads", "d", "islands", "sparse_limit", "cover",
                                     "block", "lu", "refactor", "principal", "precision"};
  enum { NKEYS = sizeof keys / sizeof *keys };
  const char *given[NKEYS] = {0};
  char opts[96];
  snprintf(opts, sizeof opts, "%.*s", (int)(len - nlen - 2), open + 1);
  if (!opts[0]) return 0;
  char *save = NULL;
  for (char *kv = strtok_r(opts, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
    /* Spaces around a key and its value ("tol = 1e-10, sweeps = 5") are not part of them. */
    while (isspace((unsigned char)*kv)) ++kv;
    for (char *end = kv + strlen(kv); end > kv && isspace((unsigned char)end[-1]);) *--end = '\0';
    char *eq = strchr(kv, '=');
    if (!eq || eq == kv || !eq[1] || strchr(kv, '[') || strchr(kv, ']')) {
      snprintf(err, errlen, "malformed solver spec '%s': '%s' is not key=value", s->label, kv);
      return -1;
    }
    *eq = '\0';
    for (char *end = eq; end > kv && isspace((unsigned char)end[-1]);) *--end = '\0';
    const char *key = kv, *val = eq + 1;
    while (isspace((unsigned char)*val)) ++val;
    int which = -1;
    for (int j = 0; j < NKEYS; ++j)
      if (!strcmp(key, keys[j])) which = j;
    if (which < 0) {
      snprintf(err, errlen,
               "solver spec '%s': unknown option '%s' (tol, max_iter, sweeps, omega, warm, "
               "threads, d, islands, sparse_limit, cover, block, lu, refactor, principal, "
               "precision)",
               s->label, key);
      return -1;
    }
    /* One value per key: a second one would silently win. */
    if (given[which]) {
      snprintf(err, errlen, "solver spec '%s': %s is given twice (%s and %s)", s->label, key,
               given[which], val);
      return -1;
    }
    given[which] = val;
    int iv;
    double dv;
    if (!strcmp(key, "tol") && !lsim_parse_double(val, &dv) && dv >= 0.0) {
      s->opt.tol = dv;
    } else if ((!strcmp(key, "max_iter") || !strcmp(key, "sweeps")) &&
               !lsim_parse_int(val, &iv) && iv >= 0) {
      s->opt.max_iter = iv;
    } else if (!strcmp(key, "omega") && !lsim_parse_double(val, &dv) && dv > 0.0 &&
               dv < 2.0) {
      s->opt.omega = dv;
    } else if (!strcmp(key, "warm") && !lsim_parse_int(val, &iv) && (iv == 0 || iv == 1)) {
      s->warm = iv;
    } else if (!strcmp(key, "d") && !lsim_parse_int(val, &iv) && iv >= 2 && iv <= 64) {
      s->ndir = iv;
    } else if (!strcmp(key, "threads") && !lsim_parse_int(val, &iv) && iv >= 1 &&
               iv <= LSIM_PGS_MAX_THREADS) {
      s->opt.threads = iv;
    } else if (!strcmp(key, "islands") && !lsim_parse_int(val, &iv) && (iv == 0 || iv == 1)) {
      s->opt.islands = iv;
    } else if (!strcmp(key, "sparse_limit") && !lsim_parse_int(val, &iv) && iv >= -1) {
      s->opt.sparse_limit = iv;
    } else if (!strcmp(key, "cover") && (!strcmp(val, "previous") || !strcmp(val, "ones"))) {
      /* The warm path's covering vector: the previous values (d = B x') or B e. */
      s->opt.cover_previous = !strcmp(val, "previous");
    } else if (!strcmp(key, "block") && !lsim_parse_int(val, &iv) && iv >= 0 && iv <= 1000) {
      s->opt.block_start = iv; /* rounds of block pivoting before the path */
    } else if (!strcmp(key, "lu") && !lsim_lu_solve_parse(val, &iv)) {
      s->opt.lu_solve = iv; /* B_0's solves: UMFPACK's, ours on its factors, or KLU */
    } else if (!strcmp(key, "refactor") && !lsim_parse_int(val, &iv) && iv >= 10 &&
               iv <= 100000) {
      s->opt.lu_refactor = iv; /* pivots between refactorizations of B_0 */
    } else if (!strcmp(key, "principal") && !lsim_parse_int(val, &iv) && iv >= 0 &&
               iv <= LSIM_PRINCIPAL_MAX) {
      s->opt.principal = iv; /* principal pivots from the guess before the path */
    } else if (!strcmp(key, "precision") && (!strcmp(val, "double") || !strcmp(val, "float"))) {
      s->opt.precision = !strcmp(val, "float") ? 2 : 1; /* pgs's sweep arithmetic */
    } else {
      /* What the key takes said (omega=2 said only "bad value '2' for omega"), in the
         words of the scene's solver keys ("principal must be an integer in [0, 1000000],
         got -1", scene/json.c, api/sim.c): a number as given, other text quoted. */
      char need[48];
      snprintf(need, sizeof need, "%s",
               !strcmp(key, "tol")            ? "a number >= 0"
               : !strcmp(key, "omega")        ? "a number in (0, 2)"
               : !strcmp(key, "d")            ? "an integer in [2, 64]"
               : !strcmp(key, "sparse_limit") ? "an integer >= -1"
               : !strcmp(key, "sweeps")       ? "an integer >= 1"
               : !strcmp(key, "cover")        ? "previous or ones"
               : !strcmp(key, "block")        ? "an integer in [0, 1000]"
               : !strcmp(key, "lu")           ? "umfpack, own, klu or ft"
               : !strcmp(key, "refactor")     ? "an integer in [10, 100000]"
               : !strcmp(key, "precision")    ? "double or float"
               : !strcmp(key, "warm") || !strcmp(key, "islands") ? "0 or 1"
                                              : "an integer >= 0");
      if (!strcmp(key, "threads"))
        snprintf(need, sizeof need, "an integer in [1, %d]", LSIM_PGS_MAX_THREADS);
      if (!strcmp(key, "principal"))
        snprintf(need, sizeof need, "an integer in [0, %d]", LSIM_PRINCIPAL_MAX);
      const int number = !lsim_parse_double(val, &dv);
      snprintf(err, errlen, "solver spec '%s': %s must be %s, got %s%s%s", s->label, key, need,
               number ? "" : "'", val, number ? "" : "'");
      return -1;
    }
  }

  /* Budgets: sweeps=K is max_iter=K with tol 0, so it takes neither of those besides. */
  const char *sweeps = given[2];
  if (sweeps && given[1]) {
    snprintf(err, errlen, "solver spec '%s': max_iter=%s and sweeps=%s are two iteration "
             "budgets: give one (sweeps=K is max_iter=K with tol 0)", s->label, given[1], sweeps);
    return -1;
  }
  if (sweeps && given[0] && s->opt.tol > 0.0) {
    snprintf(err, errlen, "solver spec '%s': tol=%s and sweeps=%s conflict: sweeps=K runs a "
             "fixed budget with tol 0 (give max_iter=K for a budget with a tolerance)",
             s->label, given[0], sweeps);
    return -1;
  }
  /* sweeps=0 would be max_iter 0, the solver's default budget (10000 for pgs), which the
     table then named "budget 0 sweeps". */
  if (sweeps && s->opt.max_iter == 0) {
    snprintf(err, errlen, "solver spec '%s': sweeps=%s: a fixed budget needs at least one "
             "sweep (sweeps=K runs exactly K; tol=0 alone runs the solver's default budget)",
             s->label, sweeps);
    return -1;
  }
  if (sweeps) s->opt.tol = 0.0;

  /* Options of some solvers only: another solver given one is refused, as an unknown
     key is (lcpsim run notes the same options on its command line). */
  const int pgs = !strcmp(s->name, "pgs"), newton = !strcmp(s->name, "newton");
  const int islands = !strcmp(s->name, "lemke") || newton || !strcmp(s->name, "lemke_sparse");
  const struct { const char *value, *key, *owner; int used; } own[] = {
      {given[3], "omega", "pgs", pgs},
      {given[5], "threads", "pgs", pgs},
      {given[8], "sparse_limit", "newton", newton},
      {given[7], "islands", "lemke, newton and lemke_sparse", islands},
      {given[9], "cover", "lemke_sparse", !strcmp(s->name, "lemke_sparse")},
      {given[10], "block", "lemke_sparse", !strcmp(s->name, "lemke_sparse")},
      {given[11], "lu", "lemke_sparse", !strcmp(s->name, "lemke_sparse")},
      {given[12], "refactor", "lemke_sparse", !strcmp(s->name, "lemke_sparse")},
      {given[13], "principal", "lemke_sparse", !strcmp(s->name, "lemke_sparse")},
      {given[14], "precision", "pgs", pgs},
  };
  for (size_t j = 0; j < sizeof own / sizeof *own; ++j)
    if (own[j].value && !own[j].used) {
      snprintf(err, errlen, "solver spec '%s': %s is an option of %s only; %s does not use it",
               s->label, own[j].key, own[j].owner, s->name);
      return -1;
    }
  return 0;
}

int lsim_compare_spec_same(const LsimCompareSpec *a, const LsimCompareSpec *b) {
  const LsimSolverOptions *x = &a->opt, *y = &b->opt;
  return !strcmp(a->name, b->name) && x->tol == y->tol && x->max_iter == y->max_iter &&
         x->omega == y->omega && x->threads == y->threads && x->islands == y->islands &&
         x->sparse_limit == y->sparse_limit && x->cover_previous == y->cover_previous &&
         x->block_start == y->block_start && x->lu_solve == y->lu_solve &&
         x->lu_refactor == y->lu_refactor && x->principal == y->principal &&
         x->precision == y->precision &&
         a->warm == b->warm && a->ndir == b->ndir;
}

/* Splits list at commas outside brackets into specs[*count]. 0 or -1 with err. */
int lsim_compare_parse_list(const char *list, LsimCompareSpec *specs, int *count, char *err,
                            size_t errlen) {
  *count = 0;
  const char *start = list;
  int depth = 0;
  for (const char *p = list;; ++p) {
    if (*p == '[') ++depth;
    else if (*p == ']' && --depth < 0) break;
    if ((*p == ',' && depth == 0) || *p == '\0') {
      if (*count >= LSIM_COMPARE_MAX_SOLVERS) {
        snprintf(err, errlen, "more than %d solvers", LSIM_COMPARE_MAX_SOLVERS);
        return -1;
      }
      /* Spaces around a spec ("lemke, pgs", as one writes a list) are not part of it. */
      const char *b = start, *e = p;
      while (b < e && isspace((unsigned char)*b)) ++b;
      while (e > b && isspace((unsigned char)e[-1])) --e;
      if (lsim_compare_parse_spec(b, (size_t)(e - b), &specs[*count], err, errlen))
        return -1;
      for (int j = 0; j < *count; ++j)
        if (!strcmp(specs[j].label, specs[*count].label)) {
          snprintf(err, errlen, "solver '%.95s' is listed twice", specs[j].label);
          return -1;
        } else if (lsim_compare_spec_same(&specs[j], &specs[*count])) {
          /* Two spellings of one solver: two series of the same numbers under two names. */
          snprintf(err, errlen, "solver '%.95s' is '%.95s' again (the same solver with the "
                   "same options): list it once", specs[*count].label, specs[j].label);
          return -1;
        }
      ++*count;
      if (*p == '\0') break;
      start = p + 1;
    }
  }
  if (depth != 0) {
    snprintf(err, errlen, "unbalanced brackets in the solver list '%s'", list);
    return -1;
  }
  return 0;
}