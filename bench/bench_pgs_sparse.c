/* bench_pgs_sparse.c: the factored PGS (M = J B + C never formed, lcp/factored.h) against
 * the dense PGS on the dense M of the same problem, per sweep.
 *
 * Problems: contact-structured and sparse, as a 3-D scene would give: nb bodies with 6
 * generalized velocities and a random SPD inverse mass block each, nc = nb contacts, each
 * between a body and the ground (30 %) or between two bodies, with a normal row and
 * d = 4 friction directions (2 random ones and their opposites) in J (6 or 12 nonzeros
 * per row), B = W J', C the Stewart-Trinkle cone couplings, q = J v + gaps >= 0;
 * variables contact by contact (c_n, beta_1..4, lambda): n = 6 nc.
 *
 * Both run through the solver front end ("pgs": lsim_solver_solve_factored on the
 * factored form, lsim_solver_solve on the dense form from lsim_factored_to_dense), a
 * fixed 20 sweeps with tolerance 0 from z = 0, so both do the same iteration; the time is
 * the solver call alone (stats.wall_time), median over repetitions after one untimed
 * solve that sizes the workspaces. The dense form is formed only up to n = 4000
 * (M is 128 MB there). Prints a Markdown table; "ns per nnz" is the factored time per
 * sweep over nnz(J) + nnz(B) + nnz(C), which stays flat when the cost is linear in nnz.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lcp/factored.h"
#include "lcp/random.h"
#include "lcp/solver.h"

typedef struct Problem {
  LsimFactoredLcp f;
  int *J_ptr, *J_idx, *B_ptr, *B_idx, *C_ptr, *C_idx;
  double *J_val, *B_val, *C_val, *q;
  LsimConeBlock *cones;
} Problem;

enum { DOF = 6, NDIR = 4, ROWS = NDIR + 1, PER = NDIR + 2 };

static void *xmalloc(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  if (!p) {
    fprintf(stderr, "bench: out of memory\n");
    exit(1);
  }
  return p;
}

static void make_problem(Problem *p, int nc, double mu, LsimRng *rng) {
  memset(p, 0, sizeof *p);
  const int nb = nc, m = nb * DOF, n = nc * PER, maxnz = nc * ROWS * 2 * DOF;
  double *W = xmalloc((size_t)nb * DOF * DOF * sizeof(double)), A[DOF * DOF];
  for (int b = 0; b < nb; ++b) {
    for (int k = 0; k < DOF * DOF; ++k) A[k] = lsim_rng_normal(rng);
    double *Wb = W + (size_t)b * DOF * DOF;
    for (int i = 0; i < DOF; ++i)
      for (int j = 0; j < DOF; ++j) {
        double s = 0.0;
        for (int k = 0; k < DOF; ++k) s += A[k + i * DOF] * A[k + j * DOF];
        Wb[i + j * DOF] = s / DOF + (i == j ? 0.5 : 0.0);
      }
  }
  p->J_ptr = xmalloc(((size_t)n + 1) * sizeof(int));
  p->B_ptr = xmalloc(((size_t)n + 1) * sizeof(int));
  p->C_ptr = xmalloc(((size_t)n + 1) * sizeof(int));
  p->J_idx = xmalloc((size_t)maxnz * sizeof(int));
  p->B_idx = xmalloc((size_t)maxnz * sizeof(int));
  p->J_val = xmalloc((size_t)maxnz * sizeof(double));
  p->B_val = xmalloc((size_t)maxnz * sizeof(double));
  p->C_idx = xmalloc((size_t)nc * (2 * NDIR + 1) * sizeof(int));
  p->C_val = xmalloc((size_t)nc * (2 * NDIR + 1) * sizeof(double));
  p->q = calloc((size_t)n, sizeof(double));
  p->cones = xmalloc((size_t)nc * sizeof(LsimConeBlock));
  double *v = xmalloc((size_t)m * sizeof(double));
  for (int k = 0; k < m; ++k) v[k] = lsim_rng_normal(rng);
  int nz = 0, cz = 0;
  p->J_ptr[0] = p->B_ptr[0] = p->C_ptr[0] = 0;
  for (int c = 0; c < nc; ++c) {
    int body[2] = {(int)(lsim_rng_uniform(rng) * nb), -1};
    if (nb > 1 && lsim_rng_uniform(rng) < 0.7) {
      body[1] = (int)(lsim_rng_uniform(rng) * (nb - 1));
      if (body[1] >= body[0]) ++body[1];
    }
    double rows[ROWS][2][DOF];
    for (int r = 0; r < ROWS; ++r)
      for (int s = 0; s < 2; ++s)
        for (int k = 0; k < DOF; ++k)
          rows[r][s][k] = r > NDIR / 2 ? -rows[r - NDIR / 2][s][k]
                                      : (s ? -1.0 : 1.0) * lsim_rng_normal(rng);
    const int first = c * PER, L = first + PER - 1;
    for (int r = 0; r < ROWS; ++r) {
      const int i = first + r;
      for (int s = 0; s < 2; ++s) {
        const int b = body[s];
        if (b < 0) continue;
        const double *Wb = W + (size_t)b * DOF * DOF;
        for (int k = 0; k < DOF; ++k) {
          double bs = 0.0;
          for (int t = 0; t < DOF; ++t) bs += Wb[k + t * DOF] * rows[r][s][t];
          p->J_idx[nz] = p->B_idx[nz] = b * DOF + k;
          p->J_val[nz] = rows[r][s][k];
          p->B_val[nz] = bs;
          p->q[i] += rows[r][s][k] * v[b * DOF + k];
          ++nz;
        }
      }
      p->J_ptr[i + 1] = p->B_ptr[i + 1] = nz;
      if (r > 0) { /* direction row: + lambda */
        p->C_idx[cz] = L;
        p->C_val[cz++] = 1.0;
      }
      p->C_ptr[i + 1] = cz;
    }
    if (lsim_rng_uniform(rng) < 0.5) p->q[first] += lsim_rng_uniform(rng);
    /* lambda row: mu c_n - sum beta; no J row, empty B column. */
    p->C_idx[cz] = first;
    p->C_val[cz++] = mu;
    for (int k = 0; k < NDIR; ++k) {
      p->C_idx[cz] = first + 1 + k;
      p->C_val[cz++] = -1.0;
    }
    p->J_ptr[L + 1] = p->B_ptr[L + 1] = nz;
    p->C_ptr[L + 1] = cz;
    LsimConeBlock cb = {.normal = first, .fixed_normal = 0.0, .first_dir = first + 1,
                        .ndir = NDIR, .lambda = L, .mu = mu};
    p->cones[c] = cb;
  }
  LsimFactoredLcp f = {.n = n, .m = m, .J_ptr = p->J_ptr, .J_idx = p->J_idx, .J_val = p->J_val,
                       .B_ptr = p->B_ptr, .B_idx = p->B_idx, .B_val = p->B_val,
                       .C_ptr = p->C_ptr, .C_idx = p->C_idx, .C_val = p->C_val, .q = p->q,
                       .ncones = nc, .cones = p->cones};
  p->f = f;
  free(W);
  free(v);
}

static void free_problem(Problem *p) {
  free(p->J_ptr), free(p->J_idx), free(p->J_val);
  free(p->B_ptr), free(p->B_idx), free(p->B_val);
  free(p->C_ptr), free(p->C_idx), free(p->C_val);
  free(p->q), free(p->cones);
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Median seconds per sweep over reps solves (after one untimed solve); the residual of
 * the last solve into *res. dense == NULL: the factored form. */
static double time_pgs(LsimSolver *s, const LsimFactoredLcp *f, const LsimLcp *dense, int reps,
                       double *res) {
  double *z = xmalloc((size_t)f->n * sizeof(double)), times[64];
  if (reps > 64) reps = 64;
  LsimSolveStats st;
  for (int r = -1; r < reps; ++r) {
    memset(z, 0, (size_t)f->n * sizeof(double));
    if (dense) lsim_solver_solve(s, dense, z, &st);
    else lsim_solver_solve_factored(s, f, z, &st);
    if (st.iterations != 20) {
      fprintf(stderr, "bench: %d sweeps, expected 20 (status %s)\n", st.iterations,
              lsim_status_name(st.status));
      exit(1);
    }
    if (r >= 0) times[r] = st.wall_time / st.iterations;
  }
  *res = st.residual.relative;
  free(z);
  return median(times, reps);
}

int main(int argc, char **argv) {
  const int quick = argc > 1 && !strcmp(argv[1], "--quick");
  const int ncs[] = {17, 50, 167, 334, 666, 1667, 3334};
  const int nsizes = quick ? 4 : (int)(sizeof ncs / sizeof ncs[0]);
  const int dense_max = 4000;
  LsimSolverOptions o = lsim_default_solver_options();
  o.tol = 0.0;
  o.max_iter = 20;
  LsimSolver *s = NULL;
  char err[256];
  if (lsim_solver_create(&s, "pgs", &o, err, sizeof err)) {
    fprintf(stderr, "bench: %s\n", err);
    return 1;
  }
  printf("## PGS per sweep: factored M = J B + C vs dense M (contact problems, d = 4, "
         "20 sweeps, tolerance 0, median)\n\n");
  printf("| n | m | nnz(J)+nnz(B)+nnz(C) | factored (us/sweep) | ns per nnz | dense (us/sweep) | "
         "dense/factored | residual factored | residual dense |\n"
         "|---|---|---|---|---|---|---|---|---|\n");
  for (int k = 0; k < nsizes; ++k) {
    LsimRng rng = lsim_rng(31 + ncs[k]);
    Problem p;
    make_problem(&p, ncs[k], 0.5, &rng);
    const LsimFactoredLcp *f = &p.f;
    const long nnz = (long)f->J_ptr[f->n] + f->B_ptr[f->n] + f->C_ptr[f->n];
    const int reps = f->n <= 1000 ? 41 : f->n <= 4000 ? 11 : 7;
    double rf = 0.0, rd = 0.0;
    const double tf = time_pgs(s, f, NULL, reps, &rf);
    printf("| %d | %d | %ld | %.2f | %.2f |", f->n, f->m, nnz, 1e6 * tf, 1e9 * tf / (double)nnz);
    if (f->n <= dense_max) {
      LsimLcp lcp;
      int *tp = xmalloc(((size_t)f->m + 1) * sizeof(int));
      int *ti = xmalloc((size_t)f->J_ptr[f->n] * sizeof(int));
      double *tv = xmalloc((size_t)f->J_ptr[f->n] * sizeof(double));
      if (lsim_lcp_init(&lcp, f->n) || lsim_factored_to_dense(f, &lcp, tp, ti, tv)) {
        fprintf(stderr, "bench: cannot form the dense M (n = %d)\n", f->n);
        return 1;
      }
      const double td = time_pgs(s, f, &lcp, f->n <= 1000 ? 21 : 5, &rd);
      printf(" %.2f | %.1f | %.2e | %.2e |\n", 1e6 * td, td / tf, rf, rd);
      lsim_lcp_free(&lcp);
      free(tp), free(ti), free(tv);
    } else {
      printf(" - | - | %.2e | - |\n", rf);
    }
    fflush(stdout);
    free_problem(&p);
  }
  lsim_solver_free(s);
  return 0;
}
