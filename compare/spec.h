/* spec.h: solver specs of a comparison: NAME or NAME[key=value,...] with keys tol,
 * max_iter, sweeps (= max_iter with tol 0: a fixed number of sweeps), omega, threads, warm
 * (independent mode: 0/1), d (frictional contact sets: an LCP solver's polyhedral cone
 * directions), islands (default 1, as runs solve), sparse_limit, cover (lemke_sparse's warm path: previous or ones),
 * block (its rounds of block pivoting), lu (umfpack, own or klu: B_0's solves) and refactor
 * (pivots between refactorizations of B_0, 10 .. 100000), principal (its principal pivots
 * from the guess before Lemke's path, 0 .. 1000000), precision (pgs's sweep arithmetic,
 * double or float);
 * a list is split at commas outside brackets. */
#ifndef LSIM_COMPARE_SPEC_H
#define LSIM_COMPARE_SPEC_H

#include <stddef.h>

#include "lcp/solver.h"

#define LSIM_COMPARE_MAX_SOLVERS 64
/* series (cold, warm) + the driver */
#define LSIM_COMPARE_MAX_COLUMNS (2 * (LSIM_COMPARE_MAX_SOLVERS + 1) + 1)

typedef struct LsimCompareSpec {
  char label[96];           /* the spec as written, e.g. "pgs[sweeps=20]" */
  char name[48];            /* lcp/solver.h name */
  LsimSolverOptions opt;
  int warm;                 /* independent mode: -1 = the scene's setting, else 0/1 */
  int dense;                /* 1: the solver needs the dense M (every solver but "pgs",
                               "newton" and "lemke_sparse", which run on the factored form:
                               lsim_solver_needs_dense) */
  int ndir;                 /* frictional contact sets: the polyhedral cone's directions for
                               an LCP solver (key d; -1: 8 in 3-D, 2 in 2-D) */
} LsimCompareSpec;

/* Strict parsers: the whole string must be a number (finite for doubles). 0 or -1. */
int lsim_parse_double(const char *s, double *out);
int lsim_parse_int(const char *s, int *out);

/* Parses one spec text[0..len) into s. 0, or -1 with a message in err. A key may be given
 * once; sweeps (a fixed budget, tol 0) goes with neither max_iter nor a tol above 0; omega
 * threads and precision are pgs's, sparse_limit newton's, cover, block, lu, refactor and principal
 * lemke_sparse's, islands lemke's,
 * newton's and lemke_sparse's (docs/solvers.md, "Names and options"): another solver given one is
 * refused, as an unknown key is. */
int lsim_compare_parse_spec(const char *text, size_t len, LsimCompareSpec *s, char *err,
                            size_t errlen);

/* 1 when a and b are the same solver with the same options, however written (e.g.
 * "pgs" and "pgs[tol=1e-10]", "pgs[sweeps=10]" and "pgs[max_iter=10,tol=0]"), else 0. */
int lsim_compare_spec_same(const LsimCompareSpec *a, const LsimCompareSpec *b);

/* Splits list at commas outside brackets into specs[*count] (at most
 * LSIM_COMPARE_MAX_SOLVERS); a spec listed twice, as written or as the same solver with
 * the same options (lsim_compare_spec_same), is refused. 0 or -1 with err. */
int lsim_compare_parse_list(const char *list, LsimCompareSpec *specs, int *count, char *err,
                            size_t errlen);

#endif
