/* start_lemke.c: measures starting bases for sparse Lemke on one dumped step (bench_exact
 * --dump, bench/flcp_file.h). A start point is made from the dumped warm guess by a cheap
 * approximate solver (newton to a loose tolerance, or PGS sweeps), mapped to the
 * complementary basis {z_i basic where z_i > w_i}, w = M z + q, and lemke_sparse solves the
 * step from that basis through the solver front as replay_lemke does from the carried one
 * (default options, warm start, whole, no iteration cap). Prints, per start: the start's
 * cost, its relative residual, how many rows its basis differs from the carried one and
 * from the step's final one, then Lemke's status, relative residual, pivots and CPU time.
 *
 * Also prints z0 along each path (11 samples, and how many pivots left it unchanged).
 *
 * usage: start_lemke FILE.flcp [--newton TOL[,MAXIT]]... [--pgs SWEEPS]... [--cover]
 *                    [--newn] [--negq] [--thresh T] [--mix T]
 *   --newton TOL[,MAXIT]: newton (tol TOL, at most MAXIT steps, no Lemke or interior point
 *   fallback) from the warm guess; --pgs K: K PGS sweeps from it; --cover: the starts that
 *   follow cover their paths by the start point (lsim_solver_set_cover_previous);
 *   --newn: the carried basis with the normal z basic on the cones whose rows all have
 *   w basic and a zero guess, where q_normal < 0; --negq: the carried basis with z_i basic where it has w_i, the guess z_i = 0 and
 *   q_i < 0 (new contacts' approaching rows among them); --thresh T: z_i basic only where
 *   also z_i > T max z; --mix T: z_i basic where
 *   z_i > T max z, w_i basic where w_i > T max z, the carried basis's choice elsewhere.
 *   LSIM_BLOCK_START=K (lemke_sparse.h) applies to every run, the carried one included.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/flcp_file.h"
#include "lcp/factored.h"
#include "lcp/newton.h"
#include "lcp/pgs.h"
#include "lcp/solver.h"

static double trace_buf[200000];

/* Lemke from basis (NULL: z > 0 of z) with z as the point; prints and returns the status;
 * final basis into fin when fin != NULL. */
static int run_lemke(LsimSolver *s, const LsimFactoredLcp *f, const double *z0,
                     const unsigned char *basis, double *z, unsigned char *fin) {
  const int n = f->n;
  memcpy(z, z0, sizeof(double) * (size_t)n);
  if (basis) lsim_solver_set_basis_guess(s, basis);
  LsimSolveStats st;
  const double t0 = lsim_flcp_cpu_now();
  const int rc = lsim_solver_solve_factored(s, f, z, &st);
  const double ms = 1e3 * (lsim_flcp_cpu_now() - t0);
  int fa, ro, co;
  lsim_solver_lemke_sparse_counts(s, &fa, &ro, &co);
  printf(" | lemke %s relative %.2e pivots %d %.0f ms z %016llx fact %d rows %d runs:",
         lsim_status_name(rc), st.residual.relative, st.iterations, ms, lsim_flcp_z_hash(z, n), fa, ro);
  const LsimLemkeInfo *li = lsim_solver_lemke_info(s);
  static const char *const stage[LSIM_LEMKE_STAGES] = {"guess", "retry", "cold",
                                                       "cold_by_pivot", "cold_loose", "dense"};
  for (int k = 0; li && k < LSIM_LEMKE_STAGES; ++k)
    if (li->stage_pivots[k] >= 0)
      printf(" %s %s %d", stage[k], lsim_status_name(li->stage_status[k]), li->stage_pivots[k]);
  const int tl = st.trace_len;
  int flat = 0;
  for (int k = 1; k < tl; ++k) flat += trace_buf[k] == trace_buf[k - 1];
  printf("\n   z0 trace (%d, %d flat):", tl, flat);
  for (int k = 0; k < 11 && tl > 0; ++k) printf(" %.2e", trace_buf[(long)(tl - 1) * k / 10]);
  printf("\n");
  if (fin) {
    int nb = 0;
    const unsigned char *b = lsim_solver_last_basis(s, &nb);
    if (b && nb == n) memcpy(fin, b, (size_t)n);
    else memset(fin, 2, (size_t)n);
  }
  return rc;
}

static int differ(const unsigned char *a, const unsigned char *b, int n) {
  int d = 0;
  for (int i = 0; i < n; ++i) d += (a[i] != 0) != (b[i] != 0);
  return d;
}

int main(int argc, char **argv) {
  const char *path = NULL;
  if (argc < 2) {
    fprintf(stderr, "usage: start_lemke FILE.flcp [--newton TOL[,MAXIT]]... [--pgs SWEEPS]... "
                    "[--cover] [--newn] [--negq] [--thresh T] [--mix T]\n");
    return 2;
  }
  path = argv[1];
  LsimFlcp p;
  if (lsim_flcp_read(path, &p)) {
    fprintf(stderr, "start_lemke: %s: not a readable dumped step\n", path);
    return 2;
  }
  const int n = p.f.n, m = p.f.m;
  LsimSolverOptions o = lsim_default_solver_options();
  o.warm_start = 1, o.islands = 0, o.max_iter = 0;
  LsimSolver *s;
  char err[256];
  if (lsim_solver_create(&s, "lemke_sparse", &o, err, sizeof err)) {
    fprintf(stderr, "start_lemke: %s\n", err);
    return 2;
  }
  double *z = malloc(sizeof(double) * (size_t)n), *za = malloc(sizeof(double) * (size_t)n);
  double *w = malloc(sizeof(double) * (size_t)n), *u = malloc(sizeof(double) * (size_t)m);
  unsigned char *fin = malloc((size_t)n), *b = malloc((size_t)n);
  if (!z || !za || !w || !u || !fin || !b) return 2;

  lsim_solver_set_trace(s, trace_buf, 200000);
  /* The carried basis first: its final basis is the reference for the others. */
  printf("n %d carried:", n);
  run_lemke(s, &p.f, p.z, p.basis, z, fin);
  printf("carried basis differs from final in %d\n", p.basis ? differ(p.basis, fin, n) : -1);

  LsimNewton *nw = lsim_newton_create();
  double thresh = 0.0, mix = -1.0;
  for (int a = 2; a < argc; ++a) {
    if (!strcmp(argv[a], "--cover")) {
      lsim_solver_set_cover_previous(s, 1);
      continue;
    }
    if (!strcmp(argv[a], "--negq") && p.basis) {
      /* The carried basis with z_i basic where it has w_i and q_i < 0 at a zero guess
         (a new contact's approaching rows, among others). */
      int nb = 0;
      for (int i = 0; i < n; ++i) {
        b[i] = p.basis[i] || (p.z[i] == 0.0 && p.f.q[i] < 0.0);
        nb += b[i] != p.basis[i];
      }
      printf("carried + z_i where q_i < 0 (%d changed)", nb);
      run_lemke(s, &p.f, p.z, b, z, NULL);
      continue;
    }
    if (!strcmp(argv[a], "--newn") && p.basis) {
      /* The carried basis with the normal z basic on each cone whose rows all have w basic
         and a zero guess (new this step, or apart last step) where q_normal < 0. */
      memcpy(b, p.basis, (size_t)n);
      int nb = 0, idle = 0;
      for (int c = 0; c < p.f.ncones; ++c) {
        const LsimConeBlock *cb = &p.f.cones[c];
        if (cb->normal < 0) continue;
        int all_w = !p.basis[cb->normal] && p.z[cb->normal] == 0.0 && !p.basis[cb->lambda];
        for (int k = 0; k < cb->ndir; ++k)
          all_w &= !p.basis[cb->first_dir + k] && p.z[cb->first_dir + k] == 0.0;
        idle += all_w;
        if (all_w && p.f.q[cb->normal] < 0.0) b[cb->normal] = 1, ++nb;
      }
      printf("carried + normal z of idle approaching cones (%d of %d idle cones)", nb, idle);
      run_lemke(s, &p.f, p.z, b, z, NULL);
      continue;
    }
    if (!strcmp(argv[a], "--mix") && a + 1 < argc) {
      mix = atof(argv[++a]);
      continue;
    }
    if (!strcmp(argv[a], "--thresh") && a + 1 < argc) {
      thresh = atof(argv[++a]);
      continue;
    }
    const double t0 = lsim_flcp_cpu_now();
    char label[64];
    memcpy(za, p.z, sizeof(double) * (size_t)n);
    if (!strcmp(argv[a], "--newton") && a + 1 < argc) {
      LsimNewtonOptions no = lsim_default_newton_options();
      int maxit = 0;
      double tol = 1e-6;
      sscanf(argv[++a], "%lf,%d", &tol, &maxit);
      no.tol = tol, no.max_iter = maxit, no.dense_limit = -1, no.ipm_iter = -1;
      LsimNewtonInfo ni;
      memset(&ni, 0, sizeof ni);
      lsim_newton_solve_factored(nw, &p.f, &no, 1, za, &ni);
      snprintf(label, sizeof label, "newton %g,%d (it %d)", tol, maxit, ni.iterations);
    } else if (!strcmp(argv[a], "--pgs") && a + 1 < argc) {
      LsimPgsOptions po = lsim_default_pgs_options();
      po.max_sweeps = atoi(argv[++a]);
      po.tol = 0.0;
      LsimPgs *pg = lsim_pgs_create();
      lsim_pgs_solve_factored(pg, &p.f, &po, 1, za, NULL);
      lsim_pgs_free(pg);
      snprintf(label, sizeof label, "pgs %d", po.max_sweeps);
    } else {
      fprintf(stderr, "start_lemke: %s?\n", argv[a]);
      return 2;
    }
    const double ms = 1e3 * (lsim_flcp_cpu_now() - t0);
    LsimResidual res;
    lsim_factored_residual(&p.f, za, u, w, &res);
    lsim_factored_w(&p.f, za, u, w);
    double zmax = 0.0;
    for (int i = 0; i < n; ++i) zmax = za[i] > zmax ? za[i] : zmax;
    int nz = 0, ndeg = 0;
    for (int i = 0; i < n; ++i) {
      b[i] = za[i] > w[i] && za[i] > thresh * zmax;
      if (mix >= 0.0 && p.basis)
        b[i] = za[i] > mix * zmax ? 1 : w[i] > mix * zmax ? 0 : p.basis[i] != 0;
      nz += b[i];
      ndeg += za[i] <= 1e-9 * zmax && w[i] <= 1e-9 * zmax;
    }
    printf("[basic z %d, both below 1e-9 max z %d, m %d] ", nz, ndeg, m);
    printf("%s: %.0f ms relative %.2e, basis differs from carried %d, from final %d", label, ms,
           res.relative, p.basis ? differ(b, p.basis, n) : -1, differ(b, fin, n));
    run_lemke(s, &p.f, za, b, z, NULL);
    fflush(stdout);
  }
  lsim_newton_free(nw);
  free(z), free(za), free(w), free(u), free(fin), free(b);
  lsim_solver_free(s);
  lsim_flcp_free(&p);
  return 0;
}
