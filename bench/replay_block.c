/* replay_block.c: a contact-mode (block) method tried on one dumped step (bench_exact --dump,
 * bench/flcp_file.h), each contact's friction cone taken as one block instead of ndir
 * complementary pairs; a prototype that measures, not a solver.
 *
 * The problem is the Stewart-Trinkle LCP of uniform cones (direction k at angle 2 pi k /
 * ndir in one tangent plane, ndir a multiple of 4): per contact z_n, beta_k, lambda with
 * w_n = J_n u + q_n, w_k = J_k u + lambda + q_k, w_lambda = mu z_n - sum_k beta_k, u = B z.
 * Direction k's rows are cos(t_k) row_0 + sin(t_k) row_{ndir/4} (checked, printed), so
 * the friction is a tangential 2-vector f = sum_k beta_k d_k and the contact's reduced
 * Delassus rows are (normal, t1, t2): W = J_r B_r, 3 nc x 3 nc, dense here.
 *
 * Modes (from the dumped warm guess: lambda > t slides at its loaded direction, or on the
 * edge of two adjacent loaded ones; z_n > t else sticks; t = 1e-9 max z): sticking (f free,
 * v_t = 0, lambda = 0), sliding at vertex k (f = mu z_n d_k, lambda free; an apart contact
 * is a sliding one with z_n = 0) or sliding on the edge of directions k, k + 1 (f = mu z_n
 * d_k + s (d_{k+1} - d_k), one velocity equation (d_{k+1} - d_k) . v_t = 0). With the modes
 * fixed the free friction unknowns (2 a sticking contact, 1 an edge) are eliminated (Schur
 * complement of their block K, a Cholesky that drops a column whose pivot is below 1e-10 of
 * its diagonal: redundant corners, their unknown fixed at 0, a basis choice), and the
 * normals solve a dense LCP of nc variables (lemke.c, warm from the last pass's z_n > 0).
 * Then each cone is checked: a sticking force outside mu z_n conv(D) (its two bracketing
 * directions' sum above mu z_n (1 + 1e-10)) slides on the edge it crosses (at a vertex when
 * one share is below 1e-9); an edge split outside [0, mu z_n] goes to the vertex it passed;
 * a sliding contact whose d_k . v_t is not the least of its d_j . v_t (tolerance 1e-12
 * max|q|) turns to the least (onto the edge between when adjacent), or sticks when |v_t| is
 * below that tolerance. Repeated until no mode changes and the normals move by at most
 * 1e-10 of the largest (at most --iters passes). The result is lifted to the original z
 * (sticking and edge friction split over the two bracketing directions, a sliding contact's
 * lambda = max(0, -min_j w_j)) and judged on the ORIGINAL problem with the common residual
 * (lsim_factored_residual, relative <= 1e-10). On failure the step is solved by
 * lemke_sparse from the carried basis as replay_lemke does (its time added).
 *
 * usage: replay_block FILE.flcp... [--iters K] [--verbose] [--no-fallback] [--oracle]
 *                    [--oracle-normals] [--prox RHO] [--turn-stick] [--compare-modes]
 *                    [--max-switch K] [--wrong K]
 *   --oracle: the modes (and the first normals) from lemke_sparse's solution of the step
 *   (solved first, untimed) instead of the warm guess; --oracle-normals: the same, and the
 *   first pass takes those normals as they are (no normals' LCP): with --iters 1 a check
 *   that the exact modes pass the cone checks and lift to the original solution;
 *   --prox RHO: the normals' LCP of a pass with the proximal term rho = RHO max_i S_ii
 *   (LCP(S + rho I, q' - rho z_prev): of the hyperstatic normals those nearest the last
 *   pass's); a negative RHO: |RHO|, cut tenfold after each pass without mode changes;
 *   --turn-stick: a sliding contact whose least d_j . v_t is not its own sticks (and the
 *   cone check then picks its edge or vertex from the sticking force) instead of turning;
 *   --max-switch K: at most K mode switches a pass, the largest violations first (in
 *   velocity units: a force's excess times the contact's tangential W_tt);
 *   --wrong K: K loaded contacts of the starting modes (a fixed hash) put in another mode
 *   (sticking <-> sliding at direction 0): with --oracle, how far from the exact modes a
 *   search still finds them;
 *   --compare-modes: only the modes of the warm guess against those of lemke_sparse's
 *   solution, counted by class (no method run);
 *   BLOCK_WHERE set in the environment: the row where the lifted residual sits.
 * One line a file: n, contacts, q's deviation from the uniform mix, the outcome (solved,
 * unsolved: no settling within K passes or a residual above 1e-10, lcp_failed: the normals'
 * LCP unsolved), passes, dense Lemke pivots, final modes (sticking, vertex, edge, apart),
 * columns dropped, the last pass's mode changes, the original problem's relative residual,
 * CPU ms of the reduction and of the passes (and of the fallback).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/flcp_file.h"
#include "lcp/factored.h"
#include "lcp/lcp.h"
#include "lcp/lemke.h"
#include "lcp/solver.h"

#define PI 3.14159265358979323846

typedef struct Reduced {
  int nc, R;          /* contacts, 3 nc reduced rows */
  int *var;           /* [R] the original variable of reduced row r (normal, dir 0, dir ndir/4) */
  double *W;          /* [R * R] column-major */
  double *q;          /* [R] */
} Reduced;

/* The reduced Delassus matrix from J's rows and B's columns of the three variables a cone.
 * Returns the largest relative deviation of a direction's row of q from the cos/sin mix of
 * the two kept ones (the uniform-cone assumption on q; J and B are taken as stated). */
static int reduce(const LsimFactoredLcp *f, Reduced *r, double *qdev) {
  const int nc = f->ncones, R = 3 * nc, m = f->m;
  r->nc = nc, r->R = R;
  r->var = malloc(sizeof(int) * (size_t)R);
  r->W = calloc((size_t)R * (size_t)R, sizeof(double));
  r->q = malloc(sizeof(double) * (size_t)R);
  if (!r->var || !r->W || !r->q) return -1;
  double qs = 0.0, dev = 0.0;
  for (int i = 0; i < f->n; ++i) qs = fmax(qs, fabs(f->q[i]));
  for (int c = 0; c < nc; ++c) {
    const LsimConeBlock *b = &f->cones[c];
    if (b->normal < 0 || !b->uniform || b->ndir % 4 || b->lambda < 0) return -2;
    r->var[3 * c] = b->normal, r->var[3 * c + 1] = b->first_dir;
    r->var[3 * c + 2] = b->first_dir + b->ndir / 4;
    for (int k = 0; k < b->ndir; ++k) {
      const double t = 2.0 * PI * k / b->ndir;
      const double mix = cos(t) * f->q[b->first_dir] + sin(t) * f->q[b->first_dir + b->ndir / 4];
      dev = fmax(dev, fabs(mix - f->q[b->first_dir + k]) / (qs > 0 ? qs : 1.0));
    }
  }
  *qdev = dev;
  for (int s = 0; s < R; ++s) r->q[s] = f->q[r->var[s]];
  /* J_r transposed: for each column of J the reduced rows that touch it */
  int *cp = calloc((size_t)m + 1, sizeof(int)), *ci = NULL, *pos = NULL;
  double *cv = NULL;
  int nnz = 0;
  for (int s = 0; s < R; ++s) nnz += f->J_ptr[r->var[s] + 1] - f->J_ptr[r->var[s]];
  ci = malloc(sizeof(int) * (size_t)(nnz + 1)), cv = malloc(sizeof(double) * (size_t)(nnz + 1));
  pos = malloc(sizeof(int) * (size_t)(m + 1));
  if (!cp || !ci || !cv || !pos) {
    free(cp), free(ci), free(cv), free(pos);
    return -1;
  }
  for (int s = 0; s < R; ++s)
    for (int e = f->J_ptr[r->var[s]]; e < f->J_ptr[r->var[s] + 1]; ++e) ++cp[f->J_idx[e] + 1];
  for (int j = 0; j < m; ++j) cp[j + 1] += cp[j];
  memcpy(pos, cp, sizeof(int) * (size_t)m);
  for (int s = 0; s < R; ++s)
    for (int e = f->J_ptr[r->var[s]]; e < f->J_ptr[r->var[s] + 1]; ++e) {
      const int at = pos[f->J_idx[e]]++;
      ci[at] = s, cv[at] = f->J_val[e];
    }
  /* W[:, s] = J_r B[:, var s], by B's column entries */
  for (int s = 0; s < R; ++s) {
    double *col = r->W + (size_t)s * (size_t)R;
    const int v = r->var[s];
    for (int e = f->B_ptr[v]; e < f->B_ptr[v + 1]; ++e) {
      const int j = f->B_idx[e];
      const double bv = f->B_val[e];
      for (int t = cp[j]; t < cp[j + 1]; ++t) col[ci[t]] += cv[t] * bv;
    }
  }
  free(cp), free(ci), free(cv), free(pos);
  return 0;
}

typedef struct Stats {
  int iters, pivots, sticking, vertex, edge, apart, dropped, changes_last, lemke_fail;
} Stats;

/* Mode codes: -1 sticking, k in [0, nd) sliding at vertex k, nd + k sliding on the edge of
 * directions k and k + 1 (mod nd). A contact's free friction unknowns (Schur-eliminated):
 * sticking two (t1, t2), edge one (along d_{k+1} - d_k), vertex none; the base friction
 * mu z_n d_k (vertex and edge) goes into its normal's column. */
static int base_dir(int md, int nd) { return md < 0 ? -1 : md % nd; }

/* The mode method on r (modes [nc]). x [R] returns the reduced impulses (normal, f1, f2 a
 * contact). 0 when the modes settled. */
static int modes_solve(const LsimFactoredLcp *f, const Reduced *r, int *mode, double *x,
                       int max_iter, int verbose, int keep_first, double prox, int turn_stick, int max_switch, Stats *st) {
  const int prox_decay = prox < 0.0; /* a negative prox: |prox|, cut tenfold a pass without changes */
  prox = fabs(prox);
  const int nc = r->nc, R = r->R, S = 2 * nc + 1;
  const double *W = r->W;
  double qs = 0.0;
  for (int i = 0; i < f->n; ++i) qs = fmax(qs, fabs(f->q[i]));
  const double vtol = 1e-12 * (qs > 0 ? qs : 1.0);
  int *fc = malloc(sizeof(int) * (size_t)S);                    /* free unknowns' contact */
  double *fa = malloc(sizeof(double) * (size_t)S * 2);          /* their (a1, a2) */
  double *E = malloc(sizeof(double) * (size_t)S * (size_t)R);   /* W e_i, column per unknown */
  double *A = malloc(sizeof(double) * (size_t)R * (size_t)nc);  /* effective normal columns */
  double *L = malloc(sizeof(double) * (size_t)S * (size_t)S);
  double *X = malloc(sizeof(double) * (size_t)S * (size_t)nc);
  double *Y = malloc(sizeof(double) * (size_t)S * (size_t)nc);
  double *g = malloc(sizeof(double) * (size_t)S), *sv = malloc(sizeof(double) * (size_t)S);
  double *zn = calloc((size_t)nc, sizeof(double)), *v = malloc(sizeof(double) * (size_t)R);
  double *zprev = calloc((size_t)nc, sizeof(double)), *viol = malloc(sizeof(double) * (size_t)nc);
  int *nmode = malloc(sizeof(int) * (size_t)nc);
  unsigned char *bg = malloc((size_t)nc);
  LsimLcp lcp = {0};
  LsimLemke *lw = lsim_lemke_create();
  int rc = -1;
  if (!zprev || !viol || !nmode || !fc || !fa || !E || !A || !L || !X || !Y || !g || !sv || !zn || !v || !bg || !lw ||
      lsim_lcp_init(&lcp, nc))
    goto done;
  for (int c = 0; c < nc; ++c) zn[c] = x[3 * c];
  memset(st, 0, sizeof *st);
  for (int it = 0; it < max_iter; ++it) {
    st->iters = it + 1;
    /* effective normal columns: W e_n, plus mu W (d_k) for a sliding contact */
    for (int c = 0; c < nc; ++c) {
      double *a = A + (size_t)c * (size_t)R;
      memcpy(a, W + (size_t)(3 * c) * (size_t)R, sizeof(double) * (size_t)R);
      const int k = base_dir(mode[c], f->cones[c].ndir);
      if (k >= 0) {
        const LsimConeBlock *b = &f->cones[c];
        const double t = 2.0 * PI * k / b->ndir;
        const double c1 = b->mu * cos(t), s1 = b->mu * sin(t);
        const double *w1 = W + (size_t)(3 * c + 1) * (size_t)R, *w2 = w1 + R;
        for (int i = 0; i < R; ++i) a[i] += c1 * w1[i] + s1 * w2[i];
      }
    }
    /* the free friction unknowns and their columns W e_i */
    int nf = 0;
    for (int c = 0; c < nc; ++c) {
      const int nd = f->cones[c].ndir;
      if (mode[c] < 0) {
        fc[nf] = c, fa[2 * nf] = 1.0, fa[2 * nf + 1] = 0.0, ++nf;
        fc[nf] = c, fa[2 * nf] = 0.0, fa[2 * nf + 1] = 1.0, ++nf;
      } else if (mode[c] >= nd) {
        const int k = mode[c] - nd;
        const double ta = 2.0 * PI * k / nd, tb = 2.0 * PI * (k + 1) / nd;
        fc[nf] = c, fa[2 * nf] = cos(tb) - cos(ta), fa[2 * nf + 1] = sin(tb) - sin(ta), ++nf;
      }
    }
    for (int i = 0; i < nf; ++i) {
      double *e = E + (size_t)i * (size_t)R;
      const double *w1 = W + (size_t)(3 * fc[i] + 1) * (size_t)R, *w2 = w1 + R;
      const double a1 = fa[2 * i], a2 = fa[2 * i + 1];
      for (int k = 0; k < R; ++k) e[k] = a1 * w1[k] + a2 * w2[k];
    }
#define EROW(i, vec) (fa[2 * (i)] * (vec)[3 * fc[i] + 1] + fa[2 * (i) + 1] * (vec)[3 * fc[i] + 2])
    /* Cholesky of K = E^T W E, row by row, dropping dependent rows (kept: fr) */
    int F = 0, dropped = 0;
    int *fr = malloc(sizeof(int) * (size_t)S);
    if (!fr) goto done;
    for (int i = 0; i < nf; ++i) {
      const double *ei = E + (size_t)i * (size_t)R;
      double *l = L + (size_t)F * (size_t)S;
      for (int j = 0; j < F; ++j) {
        double a = EROW(fr[j], ei);
        const double *lj = L + (size_t)j * (size_t)S;
        for (int k = 0; k < j; ++k) a -= l[k] * lj[k];
        l[j] = a / lj[j];
      }
      const double kii = EROW(i, ei);
      double d = kii;
      for (int k = 0; k < F; ++k) d -= l[k] * l[k];
      if (d <= 1e-10 * kii) {
        ++dropped;
        continue;
      }
      l[F] = sqrt(d);
      fr[F++] = i;
    }
    /* X = L^{-1} W_FN, Y = L^{-1} A_FN, g = L^{-1} q_F (forward solves) */
    for (int c = 0; c < nc; ++c) {
      double *xc = X + (size_t)c * (size_t)S, *yc = Y + (size_t)c * (size_t)S;
      const double *wn = W + (size_t)(3 * c) * (size_t)R, *a = A + (size_t)c * (size_t)R;
      for (int i = 0; i < F; ++i) {
        const double *li = L + (size_t)i * (size_t)S;
        double sx = EROW(fr[i], wn), sy = EROW(fr[i], a);
        for (int k = 0; k < i; ++k) sx -= li[k] * xc[k], sy -= li[k] * yc[k];
        xc[i] = sx / li[i], yc[i] = sy / li[i];
      }
    }
    for (int i = 0; i < F; ++i) {
      const double *li = L + (size_t)i * (size_t)S;
      double sg = EROW(fr[i], r->q);
      for (int k = 0; k < i; ++k) sg -= li[k] * g[k];
      g[i] = sg / li[i];
    }
    /* the normals' LCP: S = A_NN - X^T Y, q' = q_N - X^T g */
    for (int c = 0; c < nc; ++c) {
      const double *yc = Y + (size_t)c * (size_t)S, *a = A + (size_t)c * (size_t)R;
      for (int i = 0; i < nc; ++i) {
        const double *xi = X + (size_t)i * (size_t)S;
        double s = a[3 * i];
        for (int k = 0; k < F; ++k) s -= xi[k] * yc[k];
        lcp.M[(size_t)c * (size_t)nc + i] = s;
      }
      const double *xc = X + (size_t)c * (size_t)S;
      double s = r->q[3 * c];
      for (int k = 0; k < F; ++k) s -= xc[k] * g[k];
      lcp.q[c] = s;
      bg[c] = zn[c] > 0.0;
    }
    /* proximal term (prox > 0): LCP(S + rho I, q' - rho z_prev), rho = prox max_i S_ii: of
       the normals that solve the pass's LCP, those nearest the last pass's where S is
       singular (the hyperstatic normals), and a regular matrix where S is PSD */
    double rho = 0.0;
    if (prox > 0.0) {
      for (int c = 0; c < nc; ++c) rho = fmax(rho, lcp.M[(size_t)c * (size_t)nc + c]);
      rho *= prox;
      for (int c = 0; c < nc; ++c) {
        lcp.M[(size_t)c * (size_t)nc + c] += rho;
        lcp.q[c] -= rho * zn[c];
        zprev[c] = zn[c];
      }
    }
    LsimLemkeOptions lo = lsim_default_lemke_options();
    LsimLemkeInfo li = {0};
    /* keep_first: the first iteration takes the given normals as they are (the oracle's
       check of the modes alone) */
    if (it == 0 && keep_first && verbose) { /* the given normals on the normals' LCP */
      double nat = 0.0, qm = 0.0, wneg = 0.0;
      int loaded = 0;
      for (int i = 0; i < nc; ++i) {
        double wi = lcp.q[i];
        for (int c = 0; c < nc; ++c) wi += lcp.M[(size_t)c * (size_t)nc + i] * zn[c];
        nat = fmax(nat, fabs(fmin(zn[i], wi))), qm = fmax(qm, fabs(lcp.q[i]));
        wneg = fmin(wneg, wi), loaded += zn[i] > 0.0;
      }
      double *zt = malloc(sizeof(double) * (size_t)nc);
      LsimLemkeInfo lt = {0};
      int lst = -1;
      double dz = 0.0;
      if (zt) {
        memcpy(zt, zn, sizeof(double) * (size_t)nc);
        lst = lsim_lemke_solve(lw, &lcp, &lo, bg, zt, &lt);
        for (int i = 0; i < nc; ++i) dz = fmax(dz, fabs(zt[i] - zn[i]));
      }
      printf("  given normals on the normals' LCP: natural %.2e (max|q'| %.2e, min w %.2e), "
             "loaded %d; Lemke from them %s %d pivots, max |dz| %.2e\n", nat, qm, wneg, loaded,
             lst >= 0 ? lsim_status_name(lst) : "-", lt.pivots, dz);
      free(zt);
    }
    const int ls = it == 0 && keep_first ? LSIM_SOLVED : lsim_lemke_solve(lw, &lcp, &lo, bg, zn, &li);
    st->pivots += li.pivots;
    st->dropped = dropped;
    if (ls != LSIM_SOLVED) {
      st->lemke_fail = 1;
      if (verbose) printf("  iter %d: normals' LCP %s after %d pivots\n", it + 1,
                          lsim_status_name(ls), li.pivots);
      free(fr);
      goto done;
    }
    /* the free friction: s = -L^{-T} (Y z_n + g), dropped unknowns 0 */
    for (int i = 0; i < F; ++i) {
      double s = g[i];
      for (int c = 0; c < nc; ++c) s += Y[(size_t)c * (size_t)S + i] * zn[c];
      sv[i] = s;
    }
    for (int i = F - 1; i >= 0; --i) {
      double s = sv[i];
      for (int k = i + 1; k < F; ++k) s -= L[(size_t)k * (size_t)S + i] * sv[k];
      sv[i] = s / L[(size_t)i * (size_t)S + i];
    }
    /* reduced impulses: normals, base friction, free friction */
    memset(x, 0, sizeof(double) * (size_t)R);
    for (int c = 0; c < nc; ++c) {
      x[3 * c] = zn[c];
      const int k = base_dir(mode[c], f->cones[c].ndir);
      if (k >= 0) {
        const LsimConeBlock *b = &f->cones[c];
        const double t = 2.0 * PI * k / b->ndir;
        x[3 * c + 1] = b->mu * zn[c] * cos(t), x[3 * c + 2] = b->mu * zn[c] * sin(t);
      }
    }
    double *es = g; /* the edge unknowns' values, by contact (g is free now) */
    for (int c = 0; c < nc && c < S; ++c) es[c] = 0.0;
    for (int i = 0; i < F; ++i) {
      const int c = fc[fr[i]];
      x[3 * c + 1] -= sv[i] * fa[2 * fr[i]], x[3 * c + 2] -= sv[i] * fa[2 * fr[i] + 1];
      if (mode[c] >= f->cones[c].ndir) es[c] = -sv[i];
    }
    free(fr);
#undef EROW
    /* reduced velocities v = W x + q */
    memcpy(v, r->q, sizeof(double) * (size_t)R);
    for (int s = 0; s < R; ++s) {
      if (x[s] == 0.0) continue;
      const double *col = W + (size_t)s * (size_t)R;
      for (int i = 0; i < R; ++i) v[i] += col[i] * x[s];
    }
    /* the cones' checks and switches */
    int changes = 0, to_slide = 0, to_stick = 0, turn = 0, to_vertex = 0;
    st->sticking = st->vertex = st->edge = st->apart = 0;
    for (int c = 0; c < nc; ++c) {
      const LsimConeBlock *b = &f->cones[c];
      const int nd = b->ndir;
      const double dth = 2.0 * PI / nd;
      const int md = mode[c];
      const double dtt = W[(size_t)(3 * c + 1) * R + 3 * c + 1]; /* force -> velocity scale */
      double vi = 0.0;
      if (md < 0) {
        const double f1 = x[3 * c + 1], f2 = x[3 * c + 2];
        double ph = atan2(f2, f1);
        if (ph < 0) ph += 2.0 * PI;
        const int k = (int)(ph / dth) % nd;
        const double ta = k * dth, tb = (k + 1) * dth;
        const double det = sin(tb - ta);
        const double ba = (f1 * sin(tb) - f2 * cos(tb)) / det, bb = (f2 * cos(ta) - f1 * sin(ta)) / det;
        if (ba + bb > b->mu * zn[c] * (1.0 + 1e-10)) {
          /* outside: slide on the edge it crosses, or at a vertex when one share is ~0 */
          const double tot = ba + bb;
          vi = (tot - b->mu * zn[c]) * dtt;
          mode[c] = ba <= 1e-9 * tot ? (k + 1) % nd : bb <= 1e-9 * tot ? k : nd + k;
          ++changes, ++to_slide;
        }
      } else if (md >= nd && (es[c] < -1e-12 * b->mu * zn[c] ||
                              es[c] > b->mu * zn[c] * (1.0 + 1e-12))) {
        /* edge split outside [0, mu z_n] (also at z_n = 0): the vertex it passed */
        vi = (es[c] < 0 ? -es[c] : es[c] - b->mu * zn[c]) * dtt;
        mode[c] = es[c] < 0 ? md - nd : (md - nd + 1) % nd, ++changes, ++to_vertex;
      } else if (zn[c] > 0.0) {
        const double v1 = v[3 * c + 1], v2 = v[3 * c + 2];
        int best = 0;
        double gmin = INFINITY;
        for (int j = 0; j < nd; ++j) {
          const double gj = v1 * cos(j * dth) + v2 * sin(j * dth);
          if (gj < gmin) gmin = gj, best = j;
        }
        const int k = md % nd;
        const double gk = v1 * cos(k * dth) + v2 * sin(k * dth);
        if (gk > gmin + vtol) {
          vi = gk - gmin;
          if (turn_stick || hypot(v1, v2) <= vtol) mode[c] = -1, ++to_stick;
          else if (md < nd && (best == (k + 1) % nd || (best + 1) % nd == k))
            mode[c] = nd + (best == (k + 1) % nd ? k : best); /* onto the edge toward best */
          else mode[c] = best;
          ++changes, ++turn;
        }
      }
      nmode[c] = mode[c], viol[c] = mode[c] != md ? vi : -1.0;
      mode[c] = md;
    }
    /* at most max_switch switches a pass, the largest violations first (0: all) */
    int limit = max_switch > 0 && changes > max_switch ? max_switch : changes;
    for (int done_sw = 0; done_sw < limit; ++done_sw) {
      int wc = -1;
      for (int c = 0; c < nc; ++c)
        if (viol[c] >= 0.0 && (wc < 0 || viol[c] > viol[wc])) wc = c;
      if (wc < 0) break;
      mode[wc] = nmode[wc], viol[wc] = -1.0;
    }
    for (int c = 0; c < nc; ++c) {
      const int nd = f->cones[c].ndir;
      st->sticking += mode[c] < 0, st->apart += mode[c] >= 0 && zn[c] <= 0.0;
      st->vertex += mode[c] >= 0 && mode[c] < nd && zn[c] > 0.0;
      st->edge += mode[c] >= nd && zn[c] > 0.0;
    }
    st->changes_last = changes;
    if (verbose)
      printf("  iter %d: free friction %d kept %d dropped, normals' LCP %d pivots; changes %d "
             "(to sliding %d, to sticking %d, turned %d, edge to vertex %d); sticking %d vertex %d "
             "edge %d apart %d\n",
             it + 1, F, dropped, li.pivots, changes, to_slide, to_stick, turn, to_vertex,
             st->sticking, st->vertex, st->edge, st->apart);
    double dz = 0.0, zmax = 0.0;
    for (int c = 0; c < nc && prox > 0.0; ++c)
      dz = fmax(dz, fabs(zn[c] - zprev[c])), zmax = fmax(zmax, zn[c]);
    if (verbose && prox > 0.0) printf("  iter %d: max |z_n - last| %.2e of max z_n %.2e\n", it + 1, dz, zmax);
    if (!changes && prox_decay) prox = fmax(prox * 0.1, 1e-10); /* the modes held: a nearer step */
    if (!changes && dz <= 1e-10 * zmax) { /* the original residual judges */
      rc = 0;
      break;
    }
  }
done:
  lsim_lemke_free(lw);
  lsim_lcp_free(&lcp);
  free(fc), free(fa), free(E), free(A), free(L), free(X), free(Y), free(g), free(sv), free(zn),
      free(v), free(bg), free(zprev), free(viol), free(nmode);
  return rc;
}

/* The original z from the reduced impulses x and the modes, with its common residual. */
static void lift(const LsimFactoredLcp *f, const Reduced *r, const int *mode, const double *x,
                 double *z, double *u, double *w, LsimResidual *res) {
  memset(z, 0, sizeof(double) * (size_t)f->n);
  for (int c = 0; c < r->nc; ++c) {
    const LsimConeBlock *b = &f->cones[c];
    const int nd = b->ndir;
    const double dth = 2.0 * PI / nd, zn = x[3 * c];
    z[b->normal] = zn;
    if (mode[c] >= 0 && mode[c] < nd) {
      z[b->first_dir + mode[c]] = b->mu * zn;
      continue;
    }
    const double f1 = x[3 * c + 1], f2 = x[3 * c + 2];
    if (f1 == 0.0 && f2 == 0.0) continue;
    double ph = atan2(f2, f1);
    if (ph < 0) ph += 2.0 * PI;
    const int k = (int)(ph / dth) % nd;
    const double ta = k * dth, tb = (k + 1) * dth, det = sin(tb - ta);
    z[b->first_dir + k] = fmax(0.0, (f1 * sin(tb) - f2 * cos(tb)) / det);
    z[b->first_dir + (k + 1) % nd] = fmax(0.0, (f2 * cos(ta) - f1 * sin(ta)) / det);
  }
  /* lambda of a sliding contact: the least direction's w brought to 0 */
  lsim_factored_w(f, z, u, w);
  for (int c = 0; c < r->nc; ++c) {
    const LsimConeBlock *b = &f->cones[c];
    if (mode[c] < 0) continue;
    double wmin = INFINITY;
    for (int k = 0; k < b->ndir; ++k) wmin = fmin(wmin, w[b->first_dir + k]);
    z[b->lambda] = fmax(0.0, -wmin);
  }
  lsim_factored_residual(f, z, u, w, res);
  if (getenv("BLOCK_WHERE")) { /* where the residual sits: row kind, contact, mode */
    int worst = 0;
    for (int i = 0; i < f->n; ++i)
      if (fabs(fmin(z[i], w[i])) > fabs(fmin(z[worst], w[worst]))) worst = i;
    for (int c = 0; c < r->nc; ++c) {
      const LsimConeBlock *b = &f->cones[c];
      const int kind = worst == b->normal ? 0 : worst == b->lambda ? 2
                     : worst >= b->first_dir && worst < b->first_dir + b->ndir ? 1 : -1;
      if (kind >= 0)
        printf("  worst row %d kind %d contact %d mode %d z %.3e w %.3e z_n %.3e lambda %.3e\n",
               worst, kind, c, mode[c], z[worst], w[worst], z[b->normal], z[b->lambda]);
    }
  }
}

/* Modes from a point zp: lambda > t slides at its largest direction (on the edge of two
 * adjacent loaded ones), z_n > t else sticks, an apart contact slides (f = 0 while z_n = 0);
 * t = 1e-9 max |zp|. x [3 nc] gets the normals (0 below t). */
static void init_modes(const LsimFactoredLcp *f, const double *zp, int *mode, double *x) {
  double zm = 0.0;
  for (int i = 0; i < f->n; ++i) zm = fmax(zm, fabs(zp[i]));
  const double t = 1e-9 * (zm > 0 ? zm : 1.0);
  for (int c = 0; c < f->ncones; ++c) {
    const LsimConeBlock *b = &f->cones[c];
    int kb = 0;
    for (int k = 1; k < b->ndir; ++k)
      if (zp[b->first_dir + k] > zp[b->first_dir + kb]) kb = k;
    mode[c] = zp[b->lambda] > t || zp[b->normal] <= t ? kb : -1;
    const int nd = b->ndir, kn = (kb + 1) % nd, kp = (kb + nd - 1) % nd;
    if (mode[c] >= 0 && zp[b->normal] > t) {
      if (zp[b->first_dir + kn] > t) mode[c] = nd + kb;
      else if (zp[b->first_dir + kp] > t) mode[c] = nd + kp;
    }
    x[3 * c] = zp[b->normal] > t ? zp[b->normal] : 0.0;
  }
}

/* --compare-modes: the modes of the warm guess g against those of the solution zs, counted
 * by class (a: the guess's, b: the solution's; apart = z_n <= t). */
static void compare_modes(const LsimFactoredLcp *f, const double *g, const double *zs) {
  const int nc = f->ncones;
  int *ma = malloc(sizeof(int) * (size_t)(nc + 1)), *mb = malloc(sizeof(int) * (size_t)(nc + 1));
  double *xa = malloc(sizeof(double) * (size_t)(3 * nc + 1)), *xb = malloc(sizeof(double) * (size_t)(3 * nc + 1));
  if (ma && mb && xa && xb) {
    init_modes(f, g, ma, xa), init_modes(f, zs, mb, xb);
    /* classes 0 apart, 1 sticking, 2 vertex, 3 edge */
    int cnt[4][4] = {{0}}, same = 0, turned = 0;
    for (int c = 0; c < nc; ++c) {
      const int nd = f->cones[c].ndir;
      const int ca = xa[3 * c] <= 0 ? 0 : ma[c] < 0 ? 1 : ma[c] < nd ? 2 : 3;
      const int cb = xb[3 * c] <= 0 ? 0 : mb[c] < 0 ? 1 : mb[c] < nd ? 2 : 3;
      ++cnt[ca][cb];
      same += ca == cb && (ca < 2 || ma[c] == mb[c]);
      turned += ca == cb && ca >= 2 && ma[c] != mb[c];
    }
    printf("modes guess -> solution: same %d, same class other direction %d; by class "
           "(apart, sticking, vertex, edge) rows guess, columns solution:", same, turned);
    for (int i = 0; i < 4; ++i)
      printf(" [%d %d %d %d]", cnt[i][0], cnt[i][1], cnt[i][2], cnt[i][3]);
    printf("\n");
  }
  free(ma), free(mb), free(xa), free(xb);
}

int main(int argc, char **argv) {
  int max_iter = 30, verbose = 0, fallback = 1, nfiles = 0, oracle = 0;
  double prox = 0.0;
  int turn_stick = 0, cmp = 0, max_switch = 0, wrong = 0;
  const char **files = malloc(sizeof(char *) * (size_t)argc);
  if (!files) return 2;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--iters") && i + 1 < argc) max_iter = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--verbose")) verbose = 1;
    else if (!strcmp(argv[i], "--turn-stick")) turn_stick = 1;
    else if (!strcmp(argv[i], "--compare-modes")) cmp = 1;
    else if (!strcmp(argv[i], "--wrong") && i + 1 < argc) wrong = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--max-switch") && i + 1 < argc) max_switch = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--prox") && i + 1 < argc) prox = atof(argv[++i]);
    else if (!strcmp(argv[i], "--no-fallback")) fallback = 0;
    else if (!strcmp(argv[i], "--oracle")) oracle = 1;
    else if (!strcmp(argv[i], "--oracle-normals")) oracle = 2;
    else if (argv[i][0] != '-') files[nfiles++] = argv[i];
    else {
      fprintf(stderr, "usage: replay_block FILE.flcp... [--iters K] [--verbose] [--no-fallback] "
                    "[--oracle] [--oracle-normals] [--prox RHO] [--turn-stick] [--compare-modes] [--max-switch K] [--wrong K]\n");
      free(files);
      return 2;
    }
  }
  if (!nfiles || max_iter < 1) {
    fprintf(stderr, "usage: replay_block FILE.flcp... [--iters K] [--verbose] [--no-fallback] "
                    "[--oracle] [--oracle-normals] [--prox RHO] [--turn-stick] [--compare-modes] [--max-switch K] [--wrong K]\n");
    free(files);
    return 2;
  }
  LsimSolverOptions o = lsim_default_solver_options();
  o.warm_start = 1, o.islands = 0, o.max_iter = 0;
  LsimSolver *s;
  char err[256];
  if (lsim_solver_create(&s, "lemke_sparse", &o, err, sizeof err)) {
    fprintf(stderr, "replay_block: %s\n", err);
    free(files);
    return 2;
  }
  int rc = 0;
  for (int fi = 0; fi < nfiles; ++fi) {
    LsimFlcp p;
    if (lsim_flcp_read(files[fi], &p)) {
      fprintf(stderr, "replay_block: %s: not a readable dumped step\n", files[fi]);
      rc = 2;
      break;
    }
    if (cmp) { /* lemke_sparse's solution, its modes against the guess's */
      double *zs = malloc(sizeof(double) * (size_t)p.f.n);
      LsimSolveStats ost;
      if (!zs) {
        lsim_flcp_free(&p);
        rc = 2;
        break;
      }
      memcpy(zs, p.z, sizeof(double) * (size_t)p.f.n);
      if (p.basis) lsim_solver_set_basis_guess(s, p.basis);
      lsim_solver_solve_factored(s, &p.f, zs, &ost);
      printf("%s: ", files[fi]);
      compare_modes(&p.f, p.z, zs);
      free(zs);
      lsim_flcp_free(&p);
      continue;
    }
    const LsimFactoredLcp *f = &p.f;
    const int n = f->n;
    double *z = malloc(sizeof(double) * (size_t)n), *w = malloc(sizeof(double) * (size_t)n);
    double *u = malloc(sizeof(double) * (size_t)(f->m + 1));
    Reduced r = {0};
    int *mode = malloc(sizeof(int) * (size_t)(f->ncones + 1));
    double *x = malloc(sizeof(double) * (size_t)(3 * f->ncones + 1));
    if (!z || !w || !u || !mode || !x) {
      free(z), free(w), free(u), free(mode), free(x);
      lsim_flcp_free(&p);
      rc = 2;
      break;
    }
    if (oracle) { /* the modes from lemke_sparse's solution instead of the warm guess */
      LsimSolveStats ost;
      if (p.basis) lsim_solver_set_basis_guess(s, p.basis);
      lsim_solver_solve_factored(s, f, p.z, &ost);
    }
    unsigned char *wrong_done = calloc((size_t)f->ncones + 1, 1);
    if (!wrong_done) return 2;
    const double t0 = lsim_flcp_cpu_now();
    double qdev = 0.0;
    const int rr = reduce(f, &r, &qdev);
    const double t1 = lsim_flcp_cpu_now();
    Stats st = {0};
    LsimResidual res = {0};
    int ok = 0;
    if (!rr) {
      init_modes(f, p.z, mode, x);
      /* --wrong K: K loaded contacts (picked by a fixed hash) put in another mode: a
         sticking one slides at its direction 0, a sliding one sticks */
      for (int k = 0, tries = 0; k < wrong && tries < 100 * f->ncones; ++tries) {
        unsigned long long h = (unsigned long long)(tries + 1) * 0x9E3779B97F4A7C15ull;
        h ^= h >> 29, h *= 0xBF58476D1CE4E5B9ull, h ^= h >> 32;
        const int c = (int)(h % (unsigned long long)f->ncones);
        if (x[3 * c] <= 0.0 || wrong_done[c]) continue;
        mode[c] = mode[c] < 0 ? 0 : -1, wrong_done[c] = 1, ++k;
      }
      const int settled = !modes_solve(f, &r, mode, x, max_iter, verbose, oracle > 1, prox, turn_stick, max_switch, &st);
      if (!st.lemke_fail) { /* lifted also when unsettled: its residual printed */
        lift(f, &r, mode, x, z, u, w, &res);
        ok = settled && res.relative <= 1e-10;
      }
    }
    const double t2 = lsim_flcp_cpu_now();
    double fb_ms = 0.0;
    int fb_rc = -1, fb_piv = 0;
    LsimSolveStats fst = {0};
    if (!ok && fallback) {
      memcpy(z, p.z, sizeof(double) * (size_t)n);
      if (p.basis) lsim_solver_set_basis_guess(s, p.basis);
      const double t3 = lsim_flcp_cpu_now();
      fb_rc = lsim_solver_solve_factored(s, f, z, &fst);
      fb_ms = 1e3 * (lsim_flcp_cpu_now() - t3);
      fb_piv = fst.iterations;
    }
    const char *name = strrchr(files[fi], '/');
    name = name ? name + 1 : files[fi];
    if (rr)
      printf("%s n %d: not reduced (%d)", name, n, rr);
    else
      printf("%s n %d contacts %d qdev %.1e: %s iters %d lemke_pivots %d sticking %d vertex %d "
             "edge %d apart %d dropped %d changes_last %d relative %.2e reduce %.1f ms modes %.1f ms",
             name, n, r.nc, qdev, ok ? "solved" : st.lemke_fail ? "lcp_failed" : "unsolved",
             st.iters, st.pivots, st.sticking, st.vertex, st.edge, st.apart, st.dropped, st.changes_last,
             res.relative, 1e3 * (t1 - t0), 1e3 * (t2 - t1));
    if (fb_rc >= 0 || (!ok && fallback))
      printf(" fallback %s %d pivots relative %.2e %.1f ms", lsim_status_name(fb_rc), fb_piv,
             fst.residual.relative, fb_ms);
    printf(" total %.1f ms\n", 1e3 * (t2 - t0) + fb_ms);
    fflush(stdout);
    free(z), free(w), free(u), free(mode), free(x), free(r.var), free(r.W), free(r.q);
    free(wrong_done);
    lsim_flcp_free(&p);
  }
  lsim_solver_free(s);
  free(files);
  return rc;
}
