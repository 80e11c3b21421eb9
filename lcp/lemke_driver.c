/* lemke_driver.c: the complementary pivoting driver of lemke.c and lemke_sparse.c over a
 * basis representation (lemke_driver.h). The method, the tolerances below and the failure
 * modes are explained at the top of lemke.c (ANTI-CYCLING, ROBUSTNESS, VERIFICATION); the
 * two solvers differ only in how they hold B^{-1}. */
#include "lemke_driver.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Relative tolerances (see ANTI-CYCLING in lemke.c). */
#define LSIM_LEMKE_PTOL 1e-11    /* pivot: c_i > PTOL * max|c| */
#define LSIM_LEMKE_SOUND 1e-8    /* ... but rows with c_i > SOUND * max|c| block first */
#define LSIM_LEMKE_XTOL 1e-12    /* ties: basic value within XTOL * xscale of zero ... */
#define LSIM_LEMKE_ERRK 16.0     /* ... plus ERRK n eps (|B^{-1}_i| |q| + |x_i|), its rounding */
#define LSIM_LEMKE_LOOSE 1e-7    /* ... but never more than LOOSE * xscale */
#define LSIM_LEMKE_LEXTOL 1e-12  /* lexicographic comparisons, relative to the rows */
#define LSIM_LEMKE_LEXCLOSE 1e-8 /* ... decided within this of the rows after updates: refactor */
#define LSIM_LEMKE_WEAKPIV 1e-7  /* a pivot below WEAKPIV * max|c| triggers a refactorization */
#define LSIM_LEMKE_DRIFT 1e-10   /* x_B drift (relative) that halves the refactor interval */
#define LSIM_LEMKE_CLEANUPS 3    /* paths from a final basis that misses the acceptance test */

/* max(s, v) for a running maximum s (never NaN): a NaN v leaves s, as fmax does; inline
 * (fmax is a library call in these per-pivot loops). */
static inline double run_max(double s, double v) { return v > s ? v : s; }

/* max(x, 0), NaN read as 0 (fmax(x, 0.0) without the call). */
static inline double pos(double x) { return x > 0.0 ? x : 0.0; }

int lsim_lemke_grow(void **p, size_t count, size_t size) {
  void *q = realloc(*p, (count > 0 ? count : 1) * size);
  if (!q) return LSIM_OUT_OF_MEMORY;
  *p = q;
  return 0;
}

void lsim_lemke_driver_free(LsimLemkeDriver *drv) {
  if (!drv) return;
  free(drv->xb), free(drv->col), free(drv->d), free(drv->work), free(drv->work2);
  free(drv->start), free(drv->best), free(drv->run_best), free(drv->bvar), free(drv->vpos), free(drv->guess);
  free(drv->guess_kept), free(drv->basis), free(drv->tied), free(drv->in_tie);
  free(drv->rbound), free(drv->known), free(drv->is_known), free(drv->cover);
  free(drv->block_first), free(drv->block_best), free(drv->principal_first);
}

LsimLemkeOptions lsim_lemke_driver_options(const LsimLemkeOptions *opt, LsimLemkeInfo *info) {
  if (info) {
    info->status = LSIM_INVALID_INPUT;
    info->pivots = info->warm_started = info->restarts = info->trace_len = 0;
    info->block_fallback = info->principal_pivots = info->principal_solved = 0;
    info->rejected = 0;
    for (int k = 0; k < LSIM_LEMKE_STAGES; ++k) {
      info->stage_pivots[k] = -1;
      info->stage_status[k] = LSIM_INVALID_INPUT;
    }
  }
  return opt ? *opt : lsim_default_lemke_options();
}

/* Grows every vector but basis to n (no-op for sizes already seen). */
static int reserve(LsimLemkeDriver *drv, int n) {
  if (n <= drv->cap) return 0;
  const size_t un = (size_t)n;
  if (lsim_lemke_grow((void **)&drv->xb, un, sizeof(double)) ||
      lsim_lemke_grow((void **)&drv->col, un, sizeof(double)) ||
      lsim_lemke_grow((void **)&drv->d, un, sizeof(double)) ||
      lsim_lemke_grow((void **)&drv->work, un, sizeof(double)) ||
      lsim_lemke_grow((void **)&drv->work2, un, sizeof(double)) ||
      lsim_lemke_grow((void **)&drv->start, un, sizeof(double)) ||
      lsim_lemke_grow((void **)&drv->best, un, sizeof(double)) ||
      lsim_lemke_grow((void **)&drv->run_best, un, sizeof(double)) ||
      lsim_lemke_grow((void **)&drv->rbound, un, sizeof(double)) ||
      lsim_lemke_grow((void **)&drv->known, un, sizeof(int)) ||
      lsim_lemke_grow((void **)&drv->is_known, un, 1) ||
      lsim_lemke_grow((void **)&drv->cover, un, sizeof(double)) ||
      lsim_lemke_grow((void **)&drv->bvar, un, sizeof(int)) ||
      lsim_lemke_grow((void **)&drv->vpos, 2 * un + 1, sizeof(int)) ||
      lsim_lemke_grow((void **)&drv->guess, un, 1) ||
      lsim_lemke_grow((void **)&drv->guess_kept, un, 1) ||
      lsim_lemke_grow((void **)&drv->block_first, un, 1) ||
      lsim_lemke_grow((void **)&drv->block_best, un, 1) ||
      lsim_lemke_grow((void **)&drv->principal_first, un, 1) ||
      lsim_lemke_grow((void **)&drv->tied, un, sizeof(int)) ||
      lsim_lemke_grow((void **)&drv->in_tie, un, 1))
    return LSIM_OUT_OF_MEMORY;
  memset(drv->in_tie, 0, un);
  memset(drv->is_known, 0, un);
  drv->nknown = 0;
  drv->cap = n;
  return 0;
}

int lsim_lemke_driver_begin(LsimLemkeDriver *drv, int n, const double *q, double *z,
                            const unsigned char *basis_guess, int *have_start) {
  /* Workspace. */
  if (reserve(drv, n) || drv->ops->reserve(drv->ctx, n)) {
    memset(z, 0, (size_t)n * sizeof(double));
    return LSIM_OUT_OF_MEMORY;
  }
  drv->n = n;
  drv->q = q;

  /* The caller's point, kept to verify a failed result against; the guess. */
  for (int i = 0; i < n; ++i) drv->start[i] = isfinite(z[i]) && z[i] > 0.0 ? z[i] : 0.0;
  *have_start = 1;
  memset(z, 0, (size_t)n * sizeof(double));
  if (basis_guess) memcpy(drv->guess, basis_guess, (size_t)n);
  if (n <= drv->basis_cap) return 0;
  if (lsim_lemke_grow((void **)&drv->basis, (size_t)n, 1)) return LSIM_OUT_OF_MEMORY;
  drv->basis_cap = n;
  return 0;
}

void lsim_lemke_driver_guess_maps(LsimLemkeDriver *drv) {
  const int n = drv->n;
  for (int i = 0; i < n; ++i) {
    const int zb = drv->guess[i] != 0;
    drv->bvar[i] = zb ? n + i : i;
    drv->vpos[i] = zb ? -1 : i;
    drv->vpos[n + i] = zb ? i : -1;
    drv->d[i] = zb ? 0.0 : 1.0;
  }
  drv->vpos[2 * n] = -1;
}

/* max |q|, 1 when q = 0: the scale of the acceptance test (lsim_lcp_scale). */
static double qscale_of(const LsimLemkeDriver *drv) {
  double s = 0.0;
  for (int i = 0; i < drv->n; ++i) s = fmax(s, fabs(drv->q[i]));
  return s > 0.0 ? s : 1.0;
}

/* 1 when row i of B^{-1} times si is lexicographically smaller than row j times sj
 * (the first components, the ratios, are already tied); -1 when a solve failed. With close
 * != NULL, *close is set to 1 when the deciding components differ by less than
 * LSIM_LEMKE_LEXCLOSE of the rows (a decision the updated inverse's rounding may have
 * made), else left alone. */
static int lex_less(LsimLemkeDriver *drv, int i, double si, int j, double sj, int *close) {
  const int n = drv->n;
  int ki, kj;
  double mi, mj;
  const double *bi = drv->ops->row(drv->ctx, i, &ki, &mi);
  if (!bi) return -1;
  const double *bj = drv->ops->row(drv->ctx, j, &kj, &mj);
  if (!bj) return -1;
  const double scale = fmax(mi * fabs(si), mj * fabs(sj));
  const double tol = LSIM_LEMKE_LEXTOL * scale;
  for (int k = 0; k < n; ++k) {
    const double a = bi[(size_t)k * ki] * si, b = bj[(size_t)k * kj] * sj;
    if (a < b - tol || a > b + tol) {
      if (close && fabs(a - b) <= LSIM_LEMKE_LEXCLOSE * scale) *close = 1;
      return a < b;
    }
  }
  return i > j; /* rows of a nonsingular B^{-1} never tie; stay deterministic anyway */
}

/* The rows drv->tied[0 .. nt) as lex_less orders them pairwise: the first, then each
 * next that lex_less puts before the incumbent (a row of B^{-1} each). -1 on a failed solve. */
static int lex_rows(LsimLemkeDriver *drv, const int *t, int nt, const double *c, int *close) {
  int best = t[0];
  for (int a = 1; a < nt; ++a) {
    const int i = t[a];
    const int l = lex_less(drv, i, c ? 1.0 / c[i] : 1.0, best, c ? 1.0 / c[best] : 1.0, close);
    if (l < 0) return -1;
    if (l) best = i;
  }
  return best;
}

/* Column-scan bands, relative to the scale of the scan (below): a row drops out of a tie
 * only when its entry exceeds the column's smallest by more than LEXGAP of it (the
 * deciding differences of the ties on pile_100 and pile_1000 are 1e-4 to 1 of the rows'
 * maxima); entries within LSIM_LEMKE_LEXTOL of every tied row's own known maximum are equal
 * (lex_less's tolerance is at least that); anything between goes to lex_less. */
#define LSIM_LEMKE_LEXGAP 1e-6

/* The row lex_rows returns for drv->tied[0 .. nt) (ties of the ratio test, row i scaled by
 * 1 / c_i, c the entering column; or c NULL, the first pivot's, scaled by 1), most rows
 * ruled out without their row of B^{-1}: the columns of B^{-1} are scanned in order once
 * for all the rows (ops->inv_column). Column k is e_p when w_k is basic at position p:
 * row p's entry is its scale and every other row's 0, so row p drops out, no solve.
 * Otherwise one solve gives column k for every tied row; the rows more than LEXGAP times
 * the scale (max(max |B^{-1}_:k|, the tied rows' entries seen) times the largest row
 * scale) above the column's smallest drop out, those within LSIM_LEMKE_LEXTOL of the
 * smallest tied row's known maximum stay; a difference between the two, or as many solves
 * as rows left not at hand (ops->has_row; their rows cost no more), hands the rows left to
 * lex_rows. Where the scan
 * decides, lex_less decides alike: its tolerance is LEXTOL of the rows' maxima, of which
 * the scan knows a lower bound, and the rows dropped are 1e6 tolerances apart or more
 * unless the rows' maxima exceed the scan's scale a millionfold. *close as lex_less's (set
 * only by lex_rows: the scan's own decisions are never that close). Uses work2. Returns
 * the row, or -1 when a solve failed. */
static int lex_min(LsimLemkeDriver *drv, int nt, const double *c, int *close) {
  const int n = drv->n;
  int *restrict t = drv->tied;
  unsigned char *restrict in = drv->in_tie;
  double *restrict seen = drv->work2; /* [n] max |B^{-1}_ik| seen of tied row i */
  double wmax = 0.0, smax = 0.0;
  for (int a = 0; a < nt; ++a) {
    in[t[a]] = 1;
    seen[t[a]] = 0.0;
    wmax = run_max(wmax, c ? 1.0 / c[t[a]] : 1.0);
  }
  int solves = 0, best = -2;
  for (int k = 0; k < n && nt > 1 && best == -2; ++k) {
    const int p = drv->vpos[k];
    if (p >= 0) { /* column e_p: row p drops out (its entry 1 / c_p or 1 against 0) */
      if (!in[p]) continue;
      const double wp = c ? 1.0 / c[p] : 1.0;
      if (!(wp > LSIM_LEMKE_LEXGAP * run_max(1.0, smax) * wmax)) {
        best = lex_rows(drv, t, nt, c, close);
        break;
      }
      in[p] = 0;
      int kept = 0;
      for (int a = 0; a < nt; ++a)
        if (t[a] != p) t[kept++] = t[a];
      nt = kept;
      continue;
    }
    int unsolved = nt; /* rows left that lex_rows would have to solve */
    if (drv->ops->has_row)
      for (int a = 0; a < nt; ++a) unsolved -= drv->ops->has_row(drv->ctx, t[a]);
    if (solves >= unsolved) { /* the rows left cost no more than the next solves */
      best = lex_rows(drv, t, nt, c, close);
      break;
    }
    double cm;
    ++solves;
    const double *col = drv->ops->inv_column(drv->ctx, k, &cm);
    if (!col) {
      best = -1;
      break;
    }
    double amin = INFINITY, lo = INFINITY;
    for (int a = 0; a < nt; ++a) {
      const int i = t[a];
      const double v = col[i], w = c ? 1.0 / c[i] : 1.0;
      seen[i] = run_max(seen[i], fabs(v));
      smax = run_max(smax, seen[i]);
      lo = fmin(lo, seen[i] * w);
      const double x = v * w;
      amin = x < amin ? x : amin;
    }
    const double eq = LSIM_LEMKE_LEXTOL * lo;
    const double gap = LSIM_LEMKE_LEXGAP * run_max(cm, smax) * wmax;
    int kept = 0, unsure = 0;
    for (int a = 0; a < nt && !unsure; ++a) {
      const int i = t[a];
      const double d = col[i] * (c ? 1.0 / c[i] : 1.0) - amin;
      unsure = !(d <= eq) && !(d > gap); /* NaN: unsure */
    }
    if (unsure) {
      best = lex_rows(drv, t, nt, c, close);
      break;
    }
    for (int a = 0; a < nt; ++a) {
      const int i = t[a];
      if (col[i] * (c ? 1.0 / c[i] : 1.0) - amin <= eq) t[kept++] = i;
      else in[i] = 0;
    }
    nt = kept;
  }
  if (best == -2) { /* one row left (or rows equal in every column: never, B^{-1} being
                       nonsingular; the largest index, as lex_less) */
    best = t[0];
    for (int a = 1; a < nt; ++a) best = t[a] > best ? t[a] : best;
  }
  for (int a = 0; a < nt; ++a) in[t[a]] = 0;
  return best;
}

/* The Zobrist key of variable v (splitmix64 of its index): the hash of a basis is the XOR
 * of the keys of its variables, updated in O(1) per exchange. */
static uint64_t var_key(int v) {
  uint64_t x = (uint64_t)v + 0x9E3779B97F4A7C15u;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9u;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBu;
  return x ^ (x >> 31);
}

/* The hash of the basis in bvar; empties the ring of recent bases. */
static void hash_reset(LsimLemkeDriver *drv) {
  drv->hash = 0;
  for (int i = 0; i < drv->n; ++i) drv->hash ^= var_key(drv->bvar[i]);
  drv->ring_len = drv->ring_pos = 0;
}

/* Records the current basis among the last LSIM_LEMKE_RING of this run and returns 1 when
 * it was already there twice: a third visit. (A second visit alone is no proof of a cycle
 * in floating point: permuted lcp_tobenna revisits bases and still gets out, the basic
 * values differing at rounding level; a true cycle comes round again and again.) */
static int basis_repeats(LsimLemkeDriver *drv) {
  int seen = 0;
  for (int k = 0; k < drv->ring_len; ++k) seen += drv->ring[k] == drv->hash;
  drv->ring[drv->ring_pos] = drv->hash;
  drv->ring_pos = (drv->ring_pos + 1) % LSIM_LEMKE_RING;
  if (drv->ring_len < LSIM_LEMKE_RING) ++drv->ring_len;
  return seen >= 2;
}

/* The exchange: variable v with column c = drv->col enters at position r at the level
 * theta (ops->update), then the maps and the hash. 0 or update's status
 * (LSIM_OUT_OF_MEMORY, or LSIM_BREAKDOWN where an update refactors a singular basis). */
static int pivot(LsimLemkeDriver *drv, int r, int v, double theta) {
  /* Row r of the new B^{-1} is row r / c_r, row i is row i - c_i times that: the bounds on
     |B^{-1}_i| |q| follow by the triangle inequality, rb_i += |c_i| rb_r / |c_r|, over the
     known rows alone: a bound outside them is non-finite and stays so (inf + x, NaN + x),
     and a finite sr means row r is known. A non-finite sr makes every bound non-finite
     (|c_i| sr is inf, or NaN where c_i = 0): the known rows are emptied, in O(known) rather
     than O(n) (all the tests read of a bound is whether it is finite and its comparisons,
     false alike for inf and NaN), so each decision is the one the update of all n rows
     makes (test_carry_bounds_lazy). */
  if (drv->carry_bounds) {
    const double *restrict c = drv->col;
    double *restrict rb = drv->rbound;
    const int *restrict kn = drv->known;
    const int nk = drv->nknown;
    const double sr = rb[r] / fabs(c[r]);
    if (drv->carry_bounds == 2) { /* the reference: all n rows */
      for (int i = 0; i < drv->n; ++i) rb[i] += fabs(c[i]) * sr;
      rb[r] = sr;
    } else if (isfinite(sr)) {
      for (int a = 0; a < nk; ++a) rb[kn[a]] += fabs(c[kn[a]]) * sr;
      rb[r] = sr;
    } else {
      for (int a = 0; a < nk; ++a) rb[kn[a]] = INFINITY, drv->is_known[kn[a]] = 0;
      drv->nknown = 0;
      rb[r] = INFINITY;
    }
  }
  drv->entering = v;
  const int st = drv->ops->update(drv->ctx, r, theta);
  if (st) return st;
  drv->vpos[drv->bvar[r]] = -1;
  drv->hash ^= var_key(drv->bvar[r]) ^ var_key(v);
  drv->bvar[r] = v;
  drv->vpos[v] = r;
  return 0;
}

/* The entering column c = B^{-1} a of variable v. Returns max|c|, or NaN when c is not
 * finite or a solve failed. A basic w_v (never entering, but stay correct) gives e_p.
 * Sets *xmax = max |x_B| (NaN ignored), the ratio test's scale (xscale), in the same pass. */
static double entering_column(LsimLemkeDriver *drv, int v, double *xmax) {
  const int n = drv->n;
  double *restrict c = drv->col;
  const double *restrict xb = drv->xb;
  double cmax = 0.0, xm = 0.0;
  if (v < n && drv->vpos[v] >= 0) {
    memset(c, 0, (size_t)n * sizeof(double));
    c[drv->vpos[v]] = 1.0;
    for (int i = 0; i < n; ++i) xm = run_max(xm, fabs(xb[i]));
    *xmax = xm;
    return 1.0;
  }
  if (drv->ops->column(drv->ctx, v)) return NAN;
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    const double a = fabs(c[i]);
    bad |= !(a <= DBL_MAX); /* inf or NaN */
    cmax = run_max(cmax, a);
    xm = run_max(xm, fabs(xb[i]));
  }
  *xmax = xm;
  return bad ? NAN : cmax;
}

/* Records z0 after a pivot into the caller's trace, and with trace_var the variables that
 * entered (drv->entering) and left at that exchange. */
static void trace_z0(const LsimLemkeDriver *drv, LsimLemkeInfo *info, int leaving) {
  if (!info || !info->trace || info->trace_len >= info->trace_capacity) return;
  const int p = drv->vpos[2 * drv->n];
  if (info->trace_var) {
    info->trace_var[2 * info->trace_len] = drv->entering;
    info->trace_var[2 * info->trace_len + 1] = leaving;
  }
  info->trace[info->trace_len++] = p >= 0 ? drv->xb[p] : 0.0;
}

/* max |x_B| with the scale of q: the unit of the tie tolerance. */
static double xscale(const LsimLemkeDriver *drv, double qscale) {
  double s = qscale;
  for (int i = 0; i < drv->n; ++i) s = run_max(s, fabs(drv->xb[i]));
  return s;
}

/* A bound on the rounding error of x_B[i] = (B^{-1} q)_i: ERRK n eps (|B^{-1}_i| |q| + |x_i|).
 * Exact ties of degenerate data show up as near-ties at this level. A failed solve gives
 * infinity (the row then ties with nothing the loose bound excludes). */
static double row_err(LsimLemkeDriver *drv, int i) {
  const int n = drv->n;
  int k1;
  double s = fabs(drv->xb[i]);
  const double *row = drv->ops->row(drv->ctx, i, &k1, NULL);
  if (!row) return INFINITY;
  double sq = 0.0;
  for (int k = 0; k < n; ++k) {
    const double a = fabs(row[(size_t)k * k1] * drv->q[k]);
    s += a, sq += a;
  }
  drv->rbound[i] = sq;
  if (!drv->is_known[i]) drv->is_known[i] = 1, drv->known[drv->nknown++] = i;
  return LSIM_LEMKE_ERRK * n * DBL_EPSILON * s;
}

/* row_err(i) for the ratio test's tie bound of a row other than the minimizing one: with
 * bound_sums and ops->row_sum, a row not at hand is summed without being kept (its row is
 * needed again only if it ties, and then it is solved as lex_min asks), else row_err. */
static double row_err_sum(LsimLemkeDriver *drv, int i) {
  double sq;
  const LsimLemkeBasisOps *ops = drv->ops;
  if (!drv->bound_sums || !ops->row_sum || (ops->has_row && ops->has_row(drv->ctx, i)) ||
      ops->row_sum(drv->ctx, i, &sq))
    return row_err(drv, i);
  drv->rbound[i] = sq;
  if (!drv->is_known[i]) drv->is_known[i] = 1, drv->known[drv->nknown++] = i;
  return LSIM_LEMKE_ERRK * drv->n * DBL_EPSILON * (fabs(drv->xb[i]) + sq);
}

/* An upper bound on row_err(i) from rbound (no solve): INFINITY when unknown. The margin
 * RBOUND_MARGIN covers the rounding of the bound's own updates and of the rows. */
#define LSIM_LEMKE_RBOUND_MARGIN 2.0
static double row_err_bound(const LsimLemkeDriver *drv, int i) {
  return LSIM_LEMKE_ERRK * drv->n * DBL_EPSILON *
         (fabs(drv->xb[i]) + LSIM_LEMKE_RBOUND_MARGIN * drv->rbound[i]);
}

/* The terminal test: does the complementary point that ends the path here pass the
 * acceptance test natural residual <= ftol? With t0 >= 0 that point is the one reached by
 * letting z0 leave now (the driving variable enters at the level t0 = x_z0 / c_z0, every
 * basic value moves to x_i - t0 c_i); with entering < 0 it is the basic point with z0 just
 * dropped. z is clamped at 0 like extract_z. The true residual decides, so a yes is honest.
 * Uses work, work2. */
static int terminal_ok(LsimLemkeDriver *drv, int entering, double t0, double ftol) {
  const int n = drv->n;
  double *restrict zc = drv->work, *restrict w = drv->work2;
  for (int i = 0; i < n; ++i) {
    const int p = drv->vpos[n + i];
    const double v = n + i == entering ? t0 : p >= 0 ? drv->xb[p] - t0 * drv->col[p] : 0.0;
    zc[i] = v > 0.0 ? v : 0.0;
  }
  LsimResidual res;
  drv->ops->residual(drv->ctx, zc, w, &res);
  return res.natural <= ftol;
}

/* The terminal test of a ratio test whose blocking row is not z0's (lemke_path): 1 when
 * z0 can leave now at the level *t0 = x_z0 / c_z0 (c_z0 > ptol, no basic value then below
 * -ftol, and that point passes terminal_ok); else 2 when z0 d is within ftol and the point
 * with z0 dropped passes; else 0. z0 must be basic. Uses work, work2. */
static int terminal_case(LsimLemkeDriver *drv, int entering, double ptol, double ftol,
                         double dmax, double *t0) {
  const int n = drv->n, pz0 = drv->vpos[2 * n];
  const double *c = drv->col, *xb = drv->xb;
  if (c[pz0] > ptol) {
    /* No basic value below -ftol at t0 (NaN values ignored, as fmin would in the least of
       them): the first value below ends the scan. */
    const double t = fmax(xb[pz0], 0.0) / c[pz0];
    int above = 1;
    for (int i = 0; i < n && above; ++i) above = !(c[i] > ptol && xb[i] - t * c[i] < -ftol);
    if (above && terminal_ok(drv, entering, t, ftol)) {
      *t0 = t;
      return 1;
    }
  }
  return xb[pz0] * dmax <= ftol && terminal_ok(drv, -1, 0.0, ftol) ? 2 : 0;
}

/* The first pivot's leaving row: the lexicographically smallest row of [x_B, B^{-1}] (the
 * most negative x_B, near ties broken on B^{-1}; see lazy_first_tie in lemke_driver.h).
 * Returns the row, or -1 when a solve failed. */
static int first_leaving(LsimLemkeDriver *drv, int r, double qscale) {
  const int n = drv->n;
  const double *xb = drv->xb, xmin = xb[r];
  const double xs = xscale(drv, qscale), xtol = LSIM_LEMKE_XTOL * xs;
  const double loose = LSIM_LEMKE_LOOSE * xs;
  if (!drv->lazy_first_tie) {
    const double e0 = row_err(drv, r);
    for (int i = 0; i < n; ++i) {
      if (i == r || xb[i] > xmin + loose) continue;
      const double tol = fmin(loose, xtol + e0 + row_err(drv, i));
      if (xb[i] <= xmin + tol && lex_less(drv, i, 1.0, r, 1.0, NULL)) r = i;
    }
    return r;
  }
  double e0 = -1.0; /* row r's rounding bound, computed when first needed */
  int nt = 1;       /* with ops->inv_column: the tied rows, r first, for lex_min */
  drv->tied[0] = r;
  for (int i = 0; i < n; ++i) {
    if (i == r || xb[i] > xmin + loose) continue;
    /* Tie: xb_i - xmin <= xtol + e0 + err_i (all terms >= 0, so the bounds, each a
       row of B^{-1}, are computed only when the cheaper test does not decide). */
    const double gap = xb[i] - xmin;
    int tie = gap <= xtol;
    if (!tie) {
      if (e0 < 0.0) e0 = row_err(drv, r);
      tie = gap <= xtol + e0 || gap <= xtol + e0 + row_err(drv, i);
    }
    if (tie && drv->ops->inv_column) drv->tied[nt++] = i;
    else if (tie) {
      const int l = lex_less(drv, i, 1.0, r, 1.0, NULL);
      if (l < 0) return -1;
      if (l) r = i;
    }
  }
  return nt > 1 ? lex_min(drv, nt, NULL, NULL) : r;
}

/* The first pivot's leaving row with the covering vector d = B x' (x' = drv->cover > 0, so
 * z0's column is c = -x'): the smallest ratio x_i / x'_i, ratios within XTOL of it tied
 * and decided by the lexicographic rule on the rows scaled by 1 / x'_i (lex_min, or
 * pairwise without inv_column). Returns the row, or -1 when a solve failed. */
static int first_leaving_weighted(LsimLemkeDriver *drv) {
  const int n = drv->n;
  const double *xb = drv->xb, *x1 = drv->cover;
  int r = 0;
  for (int i = 1; i < n; ++i)
    if (xb[i] / x1[i] < xb[r] / x1[r]) r = i;
  const double rmin = xb[r] / x1[r], tol = LSIM_LEMKE_XTOL * fabs(rmin);
  int nt = 1;
  drv->tied[0] = r;
  for (int i = 0; i < n; ++i) {
    if (i == r || !(xb[i] / x1[i] - rmin <= tol)) continue;
    if (drv->ops->inv_column) drv->tied[nt++] = i;
    else {
      const int l = lex_less(drv, i, 1.0 / x1[i], r, 1.0 / x1[r], NULL);
      if (l < 0) return -1;
      if (l) r = i;
    }
  }
  return nt > 1 ? lex_min(drv, nt, x1, NULL) : r;
}

/* Lemke's path from the complementary basis in drv (x_B with a negative entry, d with
 * B^{-1} d = e). Adds its pivots to *pivots. Returns LSIM_SOLVED (z0 left; x_B is the
 * complementary solution), LSIM_SECONDARY_RAY, LSIM_MAX_ITERATIONS, LSIM_BREAKDOWN or
 * LSIM_OUT_OF_MEMORY. */
static int lemke_path(LsimLemkeDriver *drv, int max_pivots, double acc_tol, int *pivots,
                      LsimLemkeInfo *info) {
  const LsimLemkeBasisOps *ops = drv->ops;
  void *ctx = drv->ctx;
  const int n = drv->n, z0 = 2 * n;
  const double qscale = qscale_of(drv), ftol = acc_tol * qscale;
  double *xb = drv->xb, *c = drv->col;
  double dmax = 0.0;
  for (int i = 0; i < n; ++i) dmax = fmax(dmax, fabs(drv->d[i]));
  int done = 0, since_refactor = 0;
  int bound_solves = 0; /* rows of B^{-1} solved for the ratio test's bounds on this path */

  /* First pivot: z0 enters with c = -e; the lexicographically smallest row of
   * [x_B, B^{-1}] leaves (the most negative x_B, ties broken on B^{-1}). */
  if (max_pivots <= 0) return LSIM_MAX_ITERATIONS;
  int r = 0;
  for (int i = 1; i < n; ++i)
    if (xb[i] < xb[r]) r = i;
  const double xmin = xb[r];
  if (!(xmin < 0.0)) return LSIM_BREAKDOWN; /* feasible but rejected: nothing to cover */
  double theta0 = -xmin;
  if (drv->cover_weighted) {
    if ((r = first_leaving_weighted(drv)) < 0) return LSIM_BREAKDOWN;
    theta0 = -xb[r] / drv->cover[r];
    for (int i = 0; i < n; ++i) c[i] = -drv->cover[i];
  } else {
    if ((r = first_leaving(drv, r, qscale)) < 0) return LSIM_BREAKDOWN;
    for (int i = 0; i < n; ++i) c[i] = -1.0;
  }
  int leaving = drv->bvar[r];
  int st0 = pivot(drv, r, z0, theta0); /* z0 = -min x_B / x' (not counted) */
  if (st0) return st0;
  trace_z0(drv, info, leaving);
  hash_reset(drv);
  (void)basis_repeats(drv);

  for (;;) {
    /* The driving variable: the complement of the one that left. */
    const int entering = leaving < n ? leaving + n : leaving - n;
    if (done >= max_pivots) return LSIM_MAX_ITERATIONS;

    /* Its column, refactoring first when due; a weak pivot below asks for one more. */
    int fresh = 0;
    if (since_refactor >= drv->refactor_every) {
      memcpy(c, xb, (size_t)n * sizeof(double));
      const int st = ops->refactor(ctx);
      if (st) return st == LSIM_OUT_OF_MEMORY ? st : LSIM_BREAKDOWN;
      since_refactor = 0;
      fresh = 1;
      /* Drift of the updated x_B against the fresh one: refactor more often if large. */
      double drift = 0.0;
      for (int i = 0; i < n; ++i) drift = fmax(drift, fabs(c[i] - xb[i]));
      if (drift > LSIM_LEMKE_DRIFT * xscale(drv, qscale) &&
          drv->refactor_every > drv->refactor_floor)
        drv->refactor_every /= 2;
    }
    double cmax, xtol, tmin, xbmax;
    int blocking;
    for (;;) {
      cmax = entering_column(drv, entering, &xbmax);
      if (!isfinite(cmax) && !fresh) { /* drift: rebuild and retry once */
        if (ops->refactor(ctx)) return LSIM_BREAKDOWN;
        since_refactor = 0;
        fresh = 1;
        continue;
      }
      if (!isfinite(cmax)) return LSIM_BREAKDOWN;

      /* Minimum ratio (x_B clamped at 0) over the rows with a sound pivot c_i > ctol =
       * SOUND max|c|; only if none blocks, over the rows with c_i > ptol (see ANTI-CYCLING:
       * a pivot of 1e-9 max|c| makes the next basis nearly singular and the path cycle). */
      const double ptol = LSIM_LEMKE_PTOL * cmax;
      double ctol = drv->sound ? LSIM_LEMKE_SOUND * cmax : ptol;
      tmin = INFINITY;
      blocking = -1;
      for (int pass = 0; pass < 2 && blocking < 0; ++pass) {
        if (pass) ctol = ptol;
        for (int i = 0; i < n; ++i)
          if (c[i] > ctol) {
            const double t = pos(xb[i]) / c[i];
            if (t < tmin) {
              tmin = t;
              blocking = i;
            }
          }
      }
      if (blocking < 0) return LSIM_SECONDARY_RAY;

      /* Ties: rows whose value at the step tmin is zero up to rounding (theirs and that of
       * the minimizing row r0): gap <= fmin(loose, xtol + err_i + c_i e0), e0 = err_r0 /
       * c_r0, the bounds (a row of B^{-1} each) computed only when the cheaper parts do
       * not decide. z0 wins; else the lexicographic minimum of B^{-1}_i / c_i, or, in the
       * second run (tie_by_pivot) and when the step is not degenerate, the largest pivot. */
      const double xs = run_max(qscale, xbmax), loose = LSIM_LEMKE_LOOSE * xs; /* xscale */
      const int r0 = blocking, pz0 = drv->vpos[z0];
      double e0 = -1.0; /* row_err(r0) / c_r0, computed when first needed */
      xtol = LSIM_LEMKE_XTOL * xs;
      int z0_tied = 0, close = 0, nt = 1; /* nt: tied rows for lex_min, r0 first */
      drv->tied[0] = r0;
      const int by_pivot = drv->tie_by_pivot && xb[r0] > xtol + row_err(drv, r0);
      /* Where the outcome cannot depend on the other rows' ties, they are not examined
       * (their bounds are a row of B^{-1} each, and near the end of a path, where most
       * basic values are within loose of zero, hundreds of rows need one): the loop below
       * leaves blocking = z0 whenever z0 is r0 or ties, and the terminal test takes z0, or
       * ends the path, whatever the lexicographic rule chose; the rule's one other effect,
       * close, matters only where the refactorization below may follow it. Only with
       * inv_column (lex_min after the loop, so the loop itself decides nothing but ties):
       * dense Lemke's rows cost no solve. term: the terminal test's outcome once known
       * (-1 not yet; 0 neither, 1 z0 leaves at t0, 2 the point without z0). */
      int term = -1, z0_known = 0, skip = drv->shortcut_ties && pz0 >= 0 && r0 == pz0;
      double t0 = 0.0;
      if (!skip && pz0 >= 0 && ops->inv_column && drv->shortcut_ties) {
        z0_known = 1;
        const double gap = pos(xb[pz0]) - tmin * c[pz0];
        if (c[pz0] > ctol && gap <= loose) { /* z0's own tie, as the loop tests it */
          z0_tied = 1;
          if (gap > xtol) {
            if (e0 < 0.0) e0 = row_err(drv, r0) / c[r0];
            if (gap > xtol + c[pz0] * e0) {
              if (drv->carry_bounds && gap > xtol + row_err_bound(drv, pz0) + c[pz0] * e0)
                z0_tied = 0;
              else {
                ++bound_solves;
                if (gap > xtol + row_err(drv, pz0) + c[pz0] * e0) z0_tied = 0;
              }
            }
          }
        }
        if (z0_tied) skip = 1;
        else {
          term = terminal_case(drv, entering, ptol, ftol, dmax, &t0);
          skip = term == 2 || (term == 1 && (drv->shortcut_ties == 2 || fresh ||
                                             since_refactor == 0 ||
                                             c[pz0] < LSIM_LEMKE_WEAKPIV * cmax));
        }
      }
      for (int i = 0; i < n && !skip; ++i) {
        if (i == r0 || !(c[i] > ctol) || (z0_known && i == pz0)) continue;
        const double gap = pos(xb[i]) - tmin * c[i];
        if (gap > loose) continue;
        if (gap > xtol) {
          if (e0 < 0.0) e0 = row_err(drv, r0) / c[r0];
          if (gap > xtol + c[i] * e0) { /* row i's bound, carried (no solve) or solved */
            if (drv->carry_bounds && gap > xtol + row_err_bound(drv, i) + c[i] * e0) continue;
            ++bound_solves;
            if (gap > xtol + row_err_sum(drv, i) + c[i] * e0) continue;
          }
        }
        if (i == pz0) z0_tied = 1;
        else if (blocking == pz0) continue;
        else if (by_pivot) {
          if (c[i] > c[blocking]) blocking = i;
        } else if (ops->inv_column) {
          drv->tied[nt++] = i;
        } else {
          const int l = lex_less(drv, i, 1.0 / c[i], blocking, 1.0 / c[blocking],
                                 drv->refactor_close ? &close : NULL);
          if (l < 0) return LSIM_BREAKDOWN;
          if (l) blocking = i;
        }
      }
      if (z0_tied || (skip && pz0 >= 0 && r0 == pz0)) blocking = pz0;
      else if (!skip && nt > 1 &&
               (blocking = lex_min(drv, nt, c, drv->refactor_close ? &close : NULL)) < 0)
        return LSIM_BREAKDOWN;

      /* Terminal test (see terminal_ok). In exact arithmetic z0 leaves the moment its ratio
       * ties with the minimum; near-duplicate rows (parallel contact normals) and nearly
       * singular bases make it miss by more than the tie tolerance, leave z0 at a residue
       * of 1e-11 and send the path on along degenerate pivots to a ray. So: z0 leaves now
       * if that moves no basic value below -ftol and the point passes the acceptance test;
       * or, with z0 d within ftol, the point with z0 dropped is tried. */
      if (blocking != pz0 && pz0 >= 0) {
        if (term < 0) term = terminal_case(drv, entering, ptol, ftol, dmax, &t0);
        if (term == 1) {
          blocking = pz0;
          tmin = t0;
        }
        if (term == 2) return LSIM_SOLVED; /* z0 stays basic; extract_z ignores it */
      }
      /* xtol only decides below whether the step is degenerate (xb_blocking <= xtol): the
       * blocking row's bound can change that only when xtol < xb_blocking <= loose. */
      if (xb[blocking] > xtol && xb[blocking] <= loose)
        xtol = fmax(xtol, fmin(loose, row_err(drv, blocking)));

      /* A pivot small against the column may be rounding noise, and so may a tie decided
       * by a near-tie of rows of the updated B^{-1}: refactor and redo. */
      if ((c[blocking] < LSIM_LEMKE_WEAKPIV * cmax || close) && !fresh && since_refactor > 0) {
        if (ops->refactor(ctx)) return LSIM_BREAKDOWN;
        since_refactor = 0;
        fresh = 1;
        continue;
      }
      break;
    }

    /* The exchange. A degenerate step (blocking value at numerical zero) is taken as
     * exactly zero, so rounding noise does not spread into the other degenerate rows. */
    /* Once the ratio tests' bounds take more than half a solve a pivot, the leaving row's
       bound is made exact (a solve, unless the row is at hand) so that the bounds carried
       through the exchange stay finite (more than one a pivot: on settled pile_100 steps
       61-119 2838 more solves on 20 steps, none fewer; always: 448 more). */
    if (drv->carry_bounds && 2 * bound_solves > done && !isfinite(drv->rbound[blocking]))
      (void)row_err(drv, blocking);
    leaving = drv->bvar[blocking];
    const double theta = xb[blocking] > xtol ? fmin(tmin, xb[blocking] / c[blocking]) : 0.0;
    /* Entries of c below the pivot tolerance are rounding noise of zeros: drop them. */
    const double cdrop = LSIM_LEMKE_PTOL * cmax;
    for (int i = 0; i < n; ++i) c[i] = fabs(c[i]) <= cdrop ? 0.0 : c[i]; /* branch-free */
    if ((st0 = pivot(drv, blocking, entering, theta))) return st0;
    ++*pivots;
    ++done;
    ++since_refactor;
    trace_z0(drv, info, leaving);
    if (leaving == z0) return LSIM_SOLVED;
    if (basis_repeats(drv)) return LSIM_BREAKDOWN; /* cycling: the lexicographic rule failed */
  }
}

/* A guessed basis: no row bound known (row_err computes them). */
static void bounds_unknown(LsimLemkeDriver *drv) {
  for (int i = 0; i < drv->n; ++i) drv->rbound[i] = INFINITY, drv->is_known[i] = 0;
  drv->nknown = 0;
}

/* z from the basic values (z_i = 0 when nonbasic); clamp < 0 to 0 when clamp, and never
 * leave a non-finite value. */
static void extract_z(const LsimLemkeDriver *drv, double *z, int clamp) {
  const int n = drv->n;
  for (int i = 0; i < n; ++i) {
    const int p = drv->vpos[n + i];
    double v = p >= 0 ? drv->xb[p] : 0.0;
    if (!isfinite(v) || (clamp && v < 0.0)) v = 0.0;
    z[i] = v;
  }
}

/* Acceptance: natural residual <= tol * scale, or with accept_floor every row within that
 * or its own rounding floor (ops->within_floor: a 1e4 kg cube on a 1e-2 kg one, the light
 * cube's rows sum impulses of 245 N s times M_ii = 400, a floor of 1e-9 against a target of
 * 9.8e-12; paths that reached such points went on through cleanups and cold runs to
 * breakdowns. Row by row, since the max over rows lent a cone row's rounding, of impulses
 * of 1e150 N s on a 1e150 kg ball, to its velocity rows); on failure refactor once and
 * retry. ops->residual leaves w = M z + q in drv->work.
 * *natural (may be NULL) gets the natural residual of the last z tried (clamped at 0). */
static int accept(LsimLemkeDriver *drv, double tol, double *z, double *natural) {
  LsimResidual res;
  res.natural = INFINITY;
  for (int attempt = 0; attempt < 2; ++attempt) {
    extract_z(drv, z, 1);
    drv->ops->residual(drv->ctx, z, drv->work, &res);
    if (natural) *natural = res.natural;
    if (res.natural <= tol * qscale_of(drv)) return LSIM_SOLVED;
    if (drv->accept_floor && drv->ops->within_floor(drv->ctx, z, drv->work, tol * qscale_of(drv)))
      return LSIM_SOLVED;
    if (attempt == 0 && drv->ops->refactor(drv->ctx)) break;
  }
  extract_z(drv, z, 0);
  return LSIM_BREAKDOWN;
}

/* The end of a path that returned status, run_start the value of *pivots when its run
 * began: a path that ended solved (z0 left) is accepted; if its complementary basis misses
 * the acceptance test (see CLEANUP in lemke.c: the tie tolerances left basic values
 * slightly negative), Lemke's path is run again from that basis with the covering vector
 * B e, up to LSIM_LEMKE_CLEANUPS times and within the run's max_pivots, each kept only
 * while it lowers the natural residual. A path that did not end solved leaves z as its
 * last basic solution. Returns the run's status: the cleanups' failures are not reported
 * (the run ends as a breakdown, z its best point). */
static int end_path(LsimLemkeDriver *drv, int status, int max_pivots, int run_start, double tol,
                    double *z, int *pivots, LsimLemkeInfo *info) {
  const int n = drv->n;
  if (status != LSIM_SOLVED) {
    extract_z(drv, z, 0);
    return status;
  }
  double best;
  status = accept(drv, tol, z, &best);
  if (status == LSIM_SOLVED) return status;
  memcpy(drv->best, z, (size_t)n * sizeof(double));
  memcpy(drv->guess_kept, drv->guess, (size_t)n); /* the cleanups' guesses replace it */
  for (int k = 0; k < LSIM_LEMKE_CLEANUPS; ++k) {
    const int left = max_pivots - (*pivots - run_start);
    if (left <= 0) break;
    for (int i = 0; i < n; ++i) drv->guess[i] = drv->vpos[n + i] >= 0;
    int st = drv->ops->warm(drv->ctx);
    bounds_unknown(drv);
    if (st == 0 && (st = lemke_path(drv, left, tol, pivots, info)) == LSIM_SOLVED) {
      double natural;
      st = accept(drv, tol, z, &natural);
      if (st != LSIM_SOLVED && natural < best) {
        best = natural;
        memcpy(drv->best, z, (size_t)n * sizeof(double));
        continue;
      }
    }
    if (st == LSIM_SOLVED || st == LSIM_OUT_OF_MEMORY) {
      memcpy(drv->guess, drv->guess_kept, (size_t)n);
      return st;
    }
    break;
  }
  memcpy(drv->guess, drv->guess_kept, (size_t)n);
  memcpy(z, drv->best, (size_t)n * sizeof(double));
  return LSIM_BREAKDOWN;
}

int lsim_lemke_driver_end(LsimLemkeDriver *drv, int status, int verify, int pivots, double *z,
                          LsimLemkeInfo *info) {
  int rejected = 0;
  if (status != LSIM_SOLVED && verify) {
    LsimResidual got, start;
    drv->ops->residual(drv->ctx, z, drv->work, &got);
    drv->ops->residual(drv->ctx, drv->start, drv->work, &start);
    if (!(got.natural < start.natural)) {
      memcpy(z, drv->start, (size_t)drv->n * sizeof(double));
      rejected = 1;
    }
  }
  if (info) {
    info->status = status;
    info->pivots = pivots;
    info->rejected = rejected;
  }
  return status;
}

/* The all-w basis: B = I, x_B = q, d = e (ops->cold makes B^{-1} and x_B). */
static int cold_basis(LsimLemkeDriver *drv) {
  const int n = drv->n;
  for (int i = 0; i < n; ++i) {
    drv->bvar[i] = i;
    drv->vpos[i] = i;
    drv->vpos[n + i] = -1;
    drv->d[i] = 1.0;
    drv->rbound[i] = fabs(drv->q[i]); /* B^{-1} = I */
    drv->known[i] = i;
    drv->is_known[i] = 1;
  }
  drv->nknown = n;
  drv->vpos[2 * n] = -1;
  return drv->ops->cold(drv->ctx);
}

/* Records the final complementary basis. */
static void save_basis(LsimLemkeDriver *drv) {
  const int n = drv->n;
  for (int i = 0; i < n; ++i) drv->basis[i] = drv->vpos[n + i] >= 0;
  drv->basis_valid = 1;
}

/* Records run stage (LSIM_LEMKE_STAGE_*) in info (may be NULL): its status and its pivots,
 * *pivots less run_start. */
static void record_stage(LsimLemkeInfo *info, int stage, int status, int run_start, int pivots) {
  if (!info) return;
  info->stage_status[stage] = status;
  info->stage_pivots[stage] = pivots - run_start;
}

/* The covering vector of a path from the guessed basis weighted by the caller's point:
 * d = B x', x' > 0 by position, so that B^{-1} d = x' (z0's column is -x'). x'_i is the
 * caller's z_i + delta where z_i is basic, max(w_i, 0) + delta where w_i is basic, w = M z + q
 * of that point (z + delta on the basic z, 0 elsewhere), delta the point's largest entry
 * (max |q| when it is 0). Lemke's path from a basis B with d follows q + z0 d down to q:
 * with d = B e it starts from every basic value raised alike; with B x' from the previous
 * step's values, rows far from their bounds there (a separating contact's large w) stay
 * basic longer (docs/solvers.md, "Sparse Lemke": fewer pivots on settled pile_100, no ray
 * on step 114). Uses work, work2. */
static void cover_from_start(LsimLemkeDriver *drv) {
  const int n = drv->n;
  double *restrict zp = drv->work, *restrict w = drv->work2, *restrict x1 = drv->cover;
  double delta = 0.0;
  for (int i = 0; i < n; ++i) delta = run_max(delta, drv->start[i]);
  if (!(delta > 0.0)) delta = qscale_of(drv);
  for (int i = 0; i < n; ++i) zp[i] = drv->vpos[n + i] >= 0 ? drv->start[i] + delta : 0.0;
  LsimResidual res;
  drv->ops->residual(drv->ctx, zp, w, &res); /* w = M zp + q */
  for (int i = 0; i < n; ++i) {
    /* Row i holds z_i or w_i (a guessed basis): d_i = [w_i basic] x'_i - (M zp)_i. */
    const int zb = drv->vpos[n + i] >= 0;
    x1[i] = zb ? zp[i] : pos(w[i]) + delta;
    drv->d[i] = (zb ? 0.0 : x1[i]) - (w[i] - drv->q[i]);
  }
  drv->cover_weighted = 1;
}

/* Rows of x_B below -ftol. */
static int infeasible_rows(const LsimLemkeDriver *drv, double ftol) {
  int count = 0;
  for (int i = 0; i < drv->n; ++i) count += drv->xb[i] < -ftol;
  return count;
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Block principal pivoting on the guessed basis just factored (ops->warm), before Lemke's
 * path from it (Kostreva 1978; Judice and Pires 1994, "A block principal pivoting
 * algorithm for large-scale strictly monotone linear complementarity problems"). A round:
 * of the nv rows with x_B < -ftol, the most negative BLOCK_FRACTION of them (k = nv / 4,
 * at least one: the rows below the k-th smallest value, or every one when k = nv)
 * exchange their complementary pair (z_i basic for w_i, or w_i for z_i: the basis stays
 * complementary) and the basis is factored again (ops->warm, which repairs a singular one
 * by dropping guessed z_j). Up to block_rounds rounds, or until no row is below -ftol; the
 * basis with the fewest such rows is kept (the last one among equals; the guess as given
 * when no round has fewer: one more factorization when it is not the last round's). On
 * falling pile_1000 (docs/solvers.md, "Falling pile_1000, steps 26-40: a shorter path")
 * the count first rises and then falls below the guess's (step 30: 1269, then 1891,
 * 1707, ... 1286 after 7 rounds, 1198 after 16), and Lemke's path from the kept basis
 * takes 1.3-4.1 times fewer pivots than from the guess. Measured and not kept: every
 * infeasible row exchanged (the count oscillates: 804 -> 1297 -> 1242 ... on step 26; 430
 * pivots after 8 rounds), a half of them (424 pivots after 16 rounds against a quarter's
 * 318; step 36's path ended on a secondary ray), an eighth (step 36: 2853 pivots against
 * 1257), the fraction halved after a round that gains nothing (step 26: 939 rows, no round
 * better than the guess), the last round's basis instead of the fewest rows' (step 30:
 * 734 pivots against 770, but step 36's path failed after 2 pivots and the guess as given
 * took 2722). The rounds need not converge (M is not a P-matrix): they only choose the
 * path's start; the path keeps every guarantee of Lemke's method (it starts from a
 * complementary basis with d = B e as any guessed basis). A round costs a factorization.
 * Uses work. Returns 0 (the kept basis factored, x_B = B^{-1} q) or warm's status. */
#define BLOCK_FRACTION 0.25
static int block_start(LsimLemkeDriver *drv, double tol) {
  const int n = drv->n;
  const double ftol = tol * qscale_of(drv);
  int best = infeasible_rows(drv, ftol), cur = best, status = 0;
  for (int i = 0; i < n; ++i) drv->block_best[i] = drv->vpos[n + i] >= 0;
  for (int round = 0; round < drv->block_rounds && cur > 0; ++round) {
    /* The threshold: the k-th smallest of the negative values (-ftol: every one). */
    double *v = drv->work, thr = -ftol;
    int nv = 0;
    for (int i = 0; i < n; ++i)
      if (drv->xb[i] < -ftol) v[nv++] = drv->xb[i];
    const int k = (int)(BLOCK_FRACTION * nv) > 1 ? (int)(BLOCK_FRACTION * nv) : 1;
    if (k < nv) {
      qsort(v, (size_t)nv, sizeof(double), cmp_double);
      thr = v[k];
    }
    for (int i = 0; i < n; ++i) {
      const int zb = drv->vpos[n + i] >= 0;
      drv->guess[i] = (unsigned char)(drv->xb[i] < thr ? !zb : zb);
    }
    if ((status = drv->ops->warm(drv->ctx))) break;
    cur = infeasible_rows(drv, ftol);
    if (cur < best) {
      best = cur;
      for (int i = 0; i < n; ++i) drv->block_best[i] = drv->vpos[n + i] >= 0;
    }
  }
  if (status == 0 && cur == best) return 0;
  memcpy(drv->guess, drv->block_best, (size_t)n);
  return drv->ops->warm(drv->ctx);
}

/* Principal pivoting on the guessed basis just factored (ops->warm), before Lemke's path
 * (principal_budget > 0). While a complementary pair's basic value is below -ftol, the pair
 * with the most negative one exchanges its variables in one pivot: its complement enters
 * at the pair's own position, so the basis stays complementary, with no covering vector
 * and no ratio test (no tie test, no rows of B^{-1}: one FTRAN and one exchange a pivot).
 * A pair whose pivot c_p = (B^{-1} a)_p is not below -WEAKPIV max |c| is passed over until
 * the next exchange: c_p near 0 is a zero diagonal of the principal pivot (a redundant
 * contact's normal, a lambda row), c_p > 0 leaves the pair infeasible (theta = x_p / c_p
 * < 0) and the next pivot would flip it back (a 2-cycle, measured on settled pile_100).
 * Principal pivoting is finite for P-matrices (Murty 1974 with the least index; the most
 * negative value can cycle even there); M here is no P-matrix, so the phase is only a
 * cheaper way to a solution where it gets there: it stops when every infeasible pair is
 * passed over, at principal_budget pivots, at a basis met a third time (the ring of
 * lemke_path), or on a failed solve, and the caller then runs Lemke from the guess as
 * given. Measured (docs/solvers.md, "Settled pile_100, steps 101-119"): it solves the
 * falling steps of pile_100 and pile_1000 with about Lemke's pivots in 1.2-3.2 times less
 * CPU time (Lemke's ratio test takes the tie bounds' transposed solves), and stops short
 * on most settled pile_100 steps. The least index (Murty's rule) cycled within 8-73 pivots there.
 * Counts its pivots in *pivots and *done. Returns 1 when no basic value is below -ftol
 * (x_B = B^{-1} q of the basis reached, for the caller's acceptance test), 0 when it
 * stopped short, LSIM_OUT_OF_MEMORY. Uses in_tie and tied (left as found). */
static int principal_phase(LsimLemkeDriver *drv, double tol, int *pivots, int *done) {
  const int n = drv->n;
  const double ftol = tol * qscale_of(drv);
  double *restrict xb = drv->xb, *restrict c = drv->col;
  unsigned char *restrict skip = drv->in_tie; /* pairs passed over at this basis */
  int *restrict skipped = drv->tied, nskip = 0, st = 0, since_refactor = 0;
  hash_reset(drv);
  (void)basis_repeats(drv);
  *done = 0;
  for (;;) {
    /* The pair: position p holds pair p's basic variable (a guessed basis puts z_i or w_i
       at position i, and a principal pivot keeps it there). */
    int p = -1, infeasible = 0;
    double lo = -ftol;
    for (int i = 0; i < n; ++i)
      if (xb[i] < -ftol) {
        ++infeasible;
        if (!skip[i] && xb[i] < lo) lo = xb[i], p = i;
      }
    if (!infeasible) {
      st = 1;
      break;
    }
    if (p < 0 || *done >= drv->principal_budget) break;
    if (since_refactor >= drv->refactor_every) {
      if ((st = drv->ops->refactor(drv->ctx))) break;
      since_refactor = 0;
      continue; /* x_B afresh: the pair again */
    }
    const int leaving = drv->bvar[p], entering = leaving < n ? leaving + n : leaving - n;
    double xbmax;
    const double cmax = entering_column(drv, entering, &xbmax);
    if (!isfinite(cmax)) break;
    if (!(-c[p] > LSIM_LEMKE_WEAKPIV * cmax)) {
      skip[p] = 1, skipped[nskip++] = p;
      continue;
    }
    const double theta = xb[p] / c[p];
    const double cdrop = LSIM_LEMKE_PTOL * cmax; /* rounding noise of zeros, as the path */
    for (int i = 0; i < n; ++i) c[i] = fabs(c[i]) <= cdrop ? 0.0 : c[i];
    if ((st = pivot(drv, p, entering, theta))) break;
    for (int k = 0; k < nskip; ++k) skip[skipped[k]] = 0;
    nskip = 0;
    ++*pivots;
    ++*done;
    ++since_refactor;
    if (basis_repeats(drv)) break;
  }
  for (int k = 0; k < nskip; ++k) skip[skipped[k]] = 0;
  return st == LSIM_OUT_OF_MEMORY ? st : st == 1;
}

/* After a run that ended on status with its point in z: keeps z as the solve's best failed
 * point when its natural residual is the smallest so far (a later run's end does not replace
 * an earlier, better one). */
static void keep_run_best(LsimLemkeDriver *drv, int status, const double *z) {
  if (status == LSIM_SOLVED || status == LSIM_OUT_OF_MEMORY) return;
  LsimResidual res;
  drv->ops->residual(drv->ctx, z, drv->work, &res);
  if (!(res.natural < drv->run_best_res)) return;
  drv->run_best_res = res.natural;
  memcpy(drv->run_best, z, (size_t)drv->n * sizeof(double));
}

static int solve_runs(LsimLemkeDriver *drv, int have_guess, int max_pivots, double tol,
                      double *z, int *pivots, LsimLemkeInfo *info);

/* The runs (solve_runs); a solve none of whose runs succeeded returns the best of their end
 * points, not the last run's: on a 1e4 kg cube resting on a 1e-2 kg one (mass ratio 1e6,
 * tests/data/cube_1e4_on_1e-2_3d.json) the first cold run ended with z0 leaving at a
 * natural residual of 8.9e-10 (within the residual's rounding floor, 2.8e-8: the light
 * cube's rows sum impulses of 245 N s times 4000), which misses the target 9.8e-12; the
 * cleanups and the other runs ended on breakdowns whose points were worse than zero
 * impulses, so the solve returned zeros, and the heavy cube fell through the light one.
 * The status is the last run's, as before; the floor is the time step's verdict. */
int lsim_lemke_driver_solve(LsimLemkeDriver *drv, int have_guess, int max_pivots, double tol,
                            double *z, int *pivots, LsimLemkeInfo *info) {
  drv->run_best_res = INFINITY;
  const int status = solve_runs(drv, have_guess, max_pivots, tol, z, pivots, info);
  if (status != LSIM_SOLVED && status != LSIM_OUT_OF_MEMORY && drv->run_best_res < INFINITY) {
    LsimResidual res;
    drv->ops->residual(drv->ctx, z, drv->work, &res);
    if (!(res.natural <= drv->run_best_res))
      memcpy(z, drv->run_best, (size_t)drv->n * sizeof(double));
  }
  return status;
}

static int solve_runs(LsimLemkeDriver *drv, int have_guess, int max_pivots, double tol,
                      double *z, int *pivots, LsimLemkeInfo *info) {
  const int n = drv->n;
  int status = LSIM_BREAKDOWN;
  drv->refactor_every = drv->refactor_first;
  drv->sound = 1; /* the warm path and the first two cold runs */
  drv->tie_by_pivot = 0;

  /* q >= 0: z = 0 solves, nothing to pivot. */
  int qneg = 0;
  for (int i = 0; i < n; ++i) qneg |= drv->q[i] < 0.0;
  if (!qneg) {
    memset(drv->basis, 0, (size_t)n);
    drv->basis_valid = 1;
    return LSIM_SOLVED;
  }

  /* Warm start: the guessed basis directly, else Lemke's path from it; with
   * retry_positive, when that fails, {i : z_i > 0} of the caller's point next (when it
   * differs), before the cold runs. */
  const int covered_retry = drv->retry_positive && drv->cover_previous;
  int retry_start = *pivots, guess_start = *pivots;

  /* With principal_budget: principal pivots from the guess first; a basis they reach whose
     basic solution passes the acceptance test ends the solve, anything else goes on from
     the guess as given (warm restores it: the path and runs of principal_budget 0). */
  if (have_guess && drv->principal_budget > 0) {
    memcpy(drv->principal_first, drv->guess, (size_t)n);
    status = drv->ops->warm(drv->ctx);
    bounds_unknown(drv);
    int done = 0, ph = 0;
    if (status == 0) ph = principal_phase(drv, tol, pivots, &done);
    if (info) info->principal_pivots = done;
    if (ph == LSIM_OUT_OF_MEMORY || status == LSIM_OUT_OF_MEMORY) return LSIM_OUT_OF_MEMORY;
    if (ph == 1 && accept(drv, tol, z, NULL) == LSIM_SOLVED) {
      record_stage(info, LSIM_LEMKE_STAGE_GUESS, LSIM_SOLVED, guess_start, *pivots);
      if (info) info->warm_started = 1, info->principal_solved = 1;
      save_basis(drv);
      return LSIM_SOLVED;
    }
    memcpy(drv->guess, drv->principal_first, (size_t)n);
    bounds_unknown(drv);
  }
  for (int attempt = 0; have_guess && attempt < 1 + (drv->retry_positive != 0) + covered_retry;
       ++attempt) {
    if (attempt) {
      int same = 1;
      for (int i = 0; i < n; ++i) {
        const unsigned char g = drv->start[i] > 0.0;
        same &= g == (drv->guess[i] != 0);
        drv->guess[i] = g;
      }
      if (same && attempt == 1) break;
    }
    const int run_start = *pivots;
    if (attempt == 1) retry_start = run_start;
    /* With block_rounds the caller's guess is repaired by block pivoting first; when the
       path from the repaired basis fails, the guess as given runs (the same stage). */
    const int blocked = attempt == 0 && drv->block_rounds > 0;
    if (blocked) memcpy(drv->block_first, drv->guess, (size_t)n);
    for (int pass = 0; pass <= blocked; ++pass) {
      if (pass) memcpy(drv->guess, drv->block_first, (size_t)n);
      status = drv->ops->warm(drv->ctx);
      if (status == 0 && blocked && pass == 0) status = block_start(drv, tol);
      bounds_unknown(drv);
      if (status == 0) {
        const double ftol = tol * qscale_of(drv);
        double xmin = INFINITY;
        for (int i = 0; i < n; ++i) xmin = fmin(xmin, drv->xb[i]);
        if (xmin >= -ftol && accept(drv, tol, z, NULL) == LSIM_SOLVED) status = LSIM_SOLVED;
        else {
          /* With cover_previous: d = B x' from the caller's basis and in the first retry
             from {z > 0}; when that fails too, that retry again with B e. */
          if (drv->cover_previous && attempt < 2) cover_from_start(drv);
          status = lemke_path(drv, max_pivots, tol, pivots, info);
          drv->cover_weighted = 0;
          status = end_path(drv, status, max_pivots, run_start, tol, z, pivots, info);
          keep_run_best(drv, status, z);
        }
      }
      if (status == LSIM_SOLVED || status == LSIM_OUT_OF_MEMORY ||
          status == LSIM_MAX_ITERATIONS)
        break;
      if (blocked && pass == 0 && info) info->block_fallback = 1;
    }
    record_stage(info, attempt ? LSIM_LEMKE_STAGE_RETRY : LSIM_LEMKE_STAGE_GUESS, status,
                 attempt ? retry_start : guess_start, *pivots); /* the retries' pivots summed,
                 the principal phase's in the guess stage */
    if (status == LSIM_OUT_OF_MEMORY) return status;
    if (status == LSIM_SOLVED) {
      if (info) info->warm_started = 1;
      save_basis(drv);
      return status;
    }
    if (info) info->restarts = 1;
  }
  /* Warm paths only (their caller has run the cold ones already): the caller's point. */
  if (have_guess && drv->warm_only) {
    memcpy(z, drv->start, (size_t)n * sizeof(double));
    return status == LSIM_SOLVED ? LSIM_BREAKDOWN : status;
  }

  /* Cold start; if it fails (ray, breakdown, cycle), a second cold run that breaks
   * non-degenerate ties by the largest pivot, then a third without the preference for sound
   * pivots (see ROBUSTNESS and ANTI-CYCLING in lemke.c). */
  for (int run = 0; run < 3; ++run) {
    if (drv->refactor_reset) drv->refactor_every = drv->refactor_first;
    const int run_start = *pivots;
    status = cold_basis(drv);
    record_stage(info, LSIM_LEMKE_STAGE_COLD + run, status, run_start, *pivots);
    if (status == LSIM_OUT_OF_MEMORY) return status;
    if (status) continue;
    drv->tie_by_pivot = run == 1;
    drv->sound = run < 2;
    status = lemke_path(drv, max_pivots, tol, pivots, info);
    status = end_path(drv, status, max_pivots, run_start, tol, z, pivots, info);
    keep_run_best(drv, status, z);
    record_stage(info, LSIM_LEMKE_STAGE_COLD + run, status, run_start, *pivots);
    drv->tie_by_pivot = 0;
    drv->sound = 1;
    if (status == LSIM_SOLVED || status == LSIM_MAX_ITERATIONS || status == LSIM_OUT_OF_MEMORY)
      break;
  }
  if (status == LSIM_SOLVED) save_basis(drv);
  return status;
}
