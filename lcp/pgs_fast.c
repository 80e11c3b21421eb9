/* pgs_fast.c: the factored fast path of PGS: packed tables of rows with at most two
 * contiguous column blocks, the sweep on them, the exact residual, and the factored entry
 * point (which falls back to the generic driver). Math and references: pgs.c; parallel
 * sweeps: pgs_team.c. */
#include "pgs_private.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#endif

/* ---- factored fast path: rows with at most two contiguous column blocks ----
 *
 * The time step's rows touch at most two bodies, each a contiguous run of columns of J
 * (and rows of B, same pattern). When every row of the problem is so, with one common run
 * width W (1, 3 or 6), every cone is planar (lcp.h: uniform directions) with the standard
 * couplings (C: +1 from lambda on each direction row, nothing on the normal row), the
 * sweep runs on a compact table: per cone its block offsets, number of blocks (a second
 * block is skipped when absent), the constants of its update, and pointers to its normal,
 * p_0 and p_q rows of J and B where they lie in the problem's arrays (nothing copied);
 * scalars get a packed copy of their row (zero padded; a missing block points at W zeros
 * kept after u). The iteration is the
 * one above, in the same order, with the same rules; what changes is only how u = B z is
 * kept and w read:
 *  - a planar cone's direction rows are linear in the direction (row_k = cos_k row_0 +
 *    sin_k row_q, as for its B columns), so the three rows normal, p_0, p_q give all its
 *    velocities, and a change of its betas moves u by B_0 df_1 + B_q df_2 (df = P dbeta):
 *    two columns instead of d;
 *  - the normal, p_0 and p_q products with u are taken together before the normal
 *    update; the tangential ones are then corrected by M_{t,n} dc_n (exact algebra), and
 *    u gets the three column updates in one pass.
 * Results equal the generic path's up to rounding. Anything else (other shapes, bad
 * diagonals, non-planar cones) takes the generic path. */

/* Pairs of doubles (SSE2 on x86-64) for the even block widths, where the compiler has them. */
#if defined(__GNUC__)
#define FAST_V2D 1
typedef double v2d __attribute__((vector_size(16)));
static inline v2d ld2(const double *p) {
  v2d v;
  memcpy(&v, p, sizeof v);
  return v;
}
static inline void st2(double *p, v2d v) { memcpy(p, &v, sizeof v); }
#else
#define FAST_V2D 0
#endif

static const double fast_zeros[2 * FAST_W];

/* The column blocks of row i of J (and column i of B, which must have the same pattern):
 * returns their number (0 .. 2) with offsets o and lengths len, or -1. */
static int row_blocks(const LsimFactoredLcp *f, int i, int o[2], int len[2]) {
  const int j0 = f->J_ptr[i], nj = f->J_ptr[i + 1] - j0, b0 = f->B_ptr[i];
  if (f->B_ptr[i + 1] - b0 != nj) return -1;
  if (nj == 0) return 0;
  const int *ji = f->J_idx + j0;
  if (ji != f->B_idx + b0 && memcmp(ji, f->B_idx + b0, (size_t)nj * sizeof(int))) return -1;
  /* Runs of consecutive columns: breaks counted without branching, the second run's
     start (the last break) kept. */
  int breaks = 0, at = 0;
  for (int k = 1; k < nj; ++k) {
    const int brk = ji[k] != ji[k - 1] + 1;
    breaks += brk;
    at = brk ? k : at;
  }
  if (breaks > 1) return -1;
  o[0] = ji[0];
  if (!breaks) {
    len[0] = nj;
    return 1;
  }
  len[0] = at, o[1] = ji[at], len[1] = nj - at;
  return 2;
}

/* Packs row i (nb blocks of width W, offsets o) into o_out, J, B; pad at column m.
 * 0, or -1 when a value is not finite. */
static int pack_row(const LsimFactoredLcp *f, int i, int nb, const int o[2], int W, int *o_out,
                    double *J, double *B) {
  const int j0 = f->J_ptr[i], b0 = f->B_ptr[i];
  o_out[0] = nb > 0 ? o[0] : f->m;
  o_out[1] = nb > 1 ? o[1] : f->m;
  /* The row's nb blocks are its nb * W consecutive entries; zeros after them. */
  const int len = nb * W;
  if (len == 2 * FAST_W) {
    memcpy(J, f->J_val + j0, 2 * FAST_W * sizeof(double));
    memcpy(B, f->B_val + b0, 2 * FAST_W * sizeof(double));
  } else {
    for (int k = 0; k < len; ++k) J[k] = f->J_val[j0 + k], B[k] = f->B_val[b0 + k];
    for (int k = len; k < 2 * FAST_W; ++k) J[k] = B[k] = 0.0;
  }
  /* Finite: a NaN or an infinity leaves a NaN in x - x (four independent sums). */
  double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
  for (int k = 0; k < 2 * FAST_W; k += 2) {
    a0 += J[k] - J[k], a1 += J[k + 1] - J[k + 1];
    a2 += B[k] - B[k], a3 += B[k + 1] - B[k + 1];
  }
  return (a0 + a1) + (a2 + a3) == 0.0 ? 0 : -1;
}

static double dot_packed(const double *a, const double *b, int W) {
  double s = 0.0;
  for (int k = 0; k < 2 * W; ++k) s += a[k] * b[k];
  return s;
}

/* C row i as {(col, val)}: 1 when it is exactly the single entry (col, val) ... */
static int c_row_is(const LsimFactoredLcp *f, int i, int col, double val) {
  if (!f->C_ptr) return 0;
  const int a = f->C_ptr[i], b = f->C_ptr[i + 1];
  return b - a == 1 && f->C_idx[a] == col && f->C_val[a] == val;
}
static int c_row_empty(const LsimFactoredLcp *f, int i) {
  return !f->C_ptr || f->C_ptr[i + 1] == f->C_ptr[i];
}

/* Sparse pointers present, from 0, with arrays behind any entry (that they never fall
 * is scan()'s test: the two make the pointers sound). */
static int pointers_ends(const int *ptr, const int *idx, const double *val, int n) {
  return ptr && ptr[0] == 0 && (ptr[n] == 0 || (idx && val));
}

/* Row i's runs (rinfo: number, offset, length, offset, length) with every column below m;
 * W lowered to the shortest run. 0, or -1 when the row does not fit the fast path. */
static int row_runs(const LsimFactoredLcp *f, int i, int *ri, int *W) {
  int o[2] = {0, 0}, len[2] = {0, 0};
  const int nr = row_blocks(f, i, o, len);
  if (nr < 0) return -1;
  for (int s = 0; s < nr; ++s) {
    if (o[s] < 0 || len[s] > f->m - o[s]) return -1;
    if (!*W || len[s] < *W) *W = len[s];
  }
  ri[0] = nr, ri[1] = o[0], ri[2] = len[0], ri[3] = o[1], ri[4] = len[1];
  return 0;
}

/* Row i's runs (runs) cut into blocks of width W, at most two: into blk (number, offsets).
 * 0, or -1. */
static int row_to_blocks(const int *runs, int W, int *blk) {
  int nb = 0, o[2] = {0, 0};
  for (int s = 0; s < runs[0]; ++s) {
    const int off = runs[1 + 2 * s], len = runs[2 + 2 * s];
    if (len % W) return -1;
    for (int k = 0; k < len; k += W) {
      if (nb == 2) return -1;
      o[nb++] = off + k;
    }
  }
  blk[0] = nb, blk[1] = o[0], blk[2] = o[1];
  return 0;
}

/* C row i's indices below n and its values finite. */
static int c_row_sound(const LsimFactoredLcp *f, int i) {
  if (!f->C_ptr) return 1;
  unsigned out = 0;
  double nan_acc = 0.0;
  for (int k = f->C_ptr[i]; k < f->C_ptr[i + 1]; ++k)
    out |= (unsigned)f->C_idx[k] >= (unsigned)f->n, nan_acc += f->C_val[k] - f->C_val[k];
  return !out && nan_acc == 0.0;
}

#define SAME_BLOCKS(i, j) (ri[3 * (i)] == ri[3 * (j)] && ri[3 * (i) + 1] == ri[3 * (j) + 1] && \
                           (ri[3 * (i)] < 2 || ri[3 * (i) + 2] == ri[3 * (j) + 2]))

/* The runs of cone c's rows read (normal, p_0, p_q) into runs; *W lowered to the shortest.
 * 0, or -1 when they do not fit the fast path. */
static int cone_runs(const LsimFactoredLcp *f, int c, int *runs, int *W) {
  const LsimConeBlock *cb = &f->cones[c];
  const int b0 = cb->first_dir, qd = cb->ndir == 2 ? 0 : cb->ndir / 4;
  if (row_runs(f, b0, runs + 5 * b0, W) || (qd && row_runs(f, b0 + qd, runs + 5 * (b0 + qd), W)) ||
      (cb->normal >= 0 && row_runs(f, cb->normal, runs + 5 * cb->normal, W)))
    return -1;
  return 0;
}

static int cone_entry(LsimPgs *ws, const LsimFactoredLcp *f, int c, int W, int nb, int o0,
                      int o1);

/* Cone c's table entry ws->fc[c] at block width W (its rows' blocks into ri first); 0, or
 * -1 when it does not fit the fast path. Reads the direction table, never writes it (the
 * caller has it for every d that needs it). */
static int prepare_cone(LsimPgs *ws, const LsimFactoredLcp *f, int c, int W, const int *runs,
                        int *ri) {
  const LsimConeBlock *cb = &f->cones[c];
  {
    const int b0 = cb->first_dir, qd = cb->ndir == 2 ? 0 : cb->ndir / 4;
    if (row_to_blocks(runs + 5 * b0, W, ri + 3 * b0) ||
        (qd && row_to_blocks(runs + 5 * (b0 + qd), W, ri + 3 * (b0 + qd))) ||
        (cb->normal >= 0 && row_to_blocks(runs + 5 * cb->normal, W, ri + 3 * cb->normal)))
      return -1;
  }
  const int d = cb->ndir, b0 = cb->first_dir, qd = d == 2 ? 0 : d / 4, L = cb->lambda;
  /* lambda: no row of J; directions: C = +1 at lambda, the blocks of p_0's row. */
  if (f->J_ptr[L + 1] != f->J_ptr[L] || f->B_ptr[L + 1] != f->B_ptr[L] || !c_row_sound(f, L))
    return -1;
  /* p_0 and p_q's rows read, the others' pattern the same as p_0's. */
  const int j0 = f->J_ptr[b0], nj = f->J_ptr[b0 + 1] - j0, k0 = f->B_ptr[b0];
  for (int k = 0; k < d; ++k) {
    const int i = b0 + k, ji = f->J_ptr[i], ki = f->B_ptr[i];
    if (!c_row_is(f, i, L, 1.0)) return -1;
    if (k == qd) {
      if (!SAME_BLOCKS(i, b0)) return -1;
    } else if (k && (f->J_ptr[i + 1] - ji != nj || f->B_ptr[i + 1] - ki != nj ||
                     (nj && (f->J_idx[ji] != f->J_idx[j0] || f->B_idx[ki] != f->B_idx[k0])))) {
      return -1;
    }
  }
  if (cb->normal >= 0 && (!c_row_empty(f, cb->normal) || !SAME_BLOCKS(cb->normal, b0))) return -1;
  return cone_entry(ws, f, c, W, ri[3 * b0], ri[3 * b0 + 1], ri[3 * b0 + 2]);
}

/* Cone c's blocks under the problem's block promise (factored.h, block_width W): from the
 * column indices of p_0's row, nothing else checked. The runs' shortest length of its
 * rows (what row_runs would measure) lowered into *Wrun. */
static void cone_blocks_promised(const LsimFactoredLcp *f, int c, int W, int *nb, int *o0,
                                 int *o1, int *Wrun) {
  const LsimConeBlock *cb = &f->cones[c];
  const int b0 = cb->first_dir, j0 = f->J_ptr[b0], nj = f->J_ptr[b0 + 1] - j0;
  *nb = W == FAST_W ? nj / FAST_W : nj / W; /* the usual width a constant: no idiv */
  /* The columns from the producer's cone products where they are this cone's (the same
     entries of J_idx, not read again: at 10 000 bodies they had left the cache). */
  const LsimConeProducts *pr = f->cone_products ? &f->cone_products[c] : NULL;
  if (pr && W == FAST_W && nj > 0 && pr->len == nj && pr->lambda == cb->lambda &&
      cb->normal >= 0 && pr->at == f->J_ptr[cb->normal]) {
    *o0 = pr->o[0];
    *o1 = *nb > 1 ? pr->o[1] : 0;
  } else {
    *o0 = *nb > 0 ? f->J_idx[j0] : 0;
    *o1 = *nb > 1 ? f->J_idx[j0 + W] : 0;
  }
  /* Two blocks side by side in u are one run of 2 W. */
  const int run = *nb == 2 && *o1 == *o0 + W ? 2 * W : W;
  if (*nb > 0 && (!*Wrun || run < *Wrun)) *Wrun = run;
}

/* Cone c's table entry from its blocks (nb of them, at o0 and o1): the rows in place and
 * the constants. 0, or -1 when the cone does not fit the fast path. */
static int cone_entry(LsimPgs *ws, const LsimFactoredLcp *f, int c, int W, int nb, int o0,
                      int o1) {
  const LsimConeBlock *cb = &f->cones[c];
  FastCone *fc = &ws->fc[c];
  const int d = cb->ndir, b0 = cb->first_dir, qd = d == 2 ? 0 : d / 4, L = cb->lambda;
  /* The rows in place: nb blocks of W (none: the zero pad, read as one block). */
  const int len = nb * W;
  fc->nb = nb ? nb : 1;
  fc->o[0] = nb > 0 ? o0 : f->m;
  fc->o[1] = nb > 1 ? o1 : f->m;
  ws->cone_o[2 * c] = nb > 0 ? fc->o[0] : -1;
  ws->cone_o[2 * c + 1] = nb > 1 ? fc->o[1] : -1;
  fc->normal = cb->normal, fc->b0 = b0, fc->d = d, fc->L = L;
  fc->mu = cb->mu, fc->fixed_normal = cb->fixed_normal;
  fc->J1 = nb ? f->J_val + f->J_ptr[b0] : fast_zeros;
  fc->B1 = nb ? f->B_val + f->B_ptr[b0] : fast_zeros;
  fc->J2 = nb && qd ? f->J_val + f->J_ptr[b0 + qd] : fast_zeros;
  fc->B2 = nb && qd ? f->B_val + f->B_ptr[b0 + qd] : fast_zeros;
  fc->q1 = f->q[b0], fc->q2 = qd ? f->q[b0 + qd] : 0.0;
  fc->Jn = fc->Bn = fast_zeros;
  if (cb->normal >= 0 && nb) {
    const int N = cb->normal;
    fc->Jn = f->J_val + f->J_ptr[N], fc->Bn = f->B_val + f->B_ptr[N];
  }
  /* The six inner products at once: independent sums, each in dot_packed's order. Every
     entry of the six rows enters one of them (Jn, Bn in dn; J1, B1 in a0; J2, B2 in a2),
     and a NaN or an infinity anywhere leaves one not finite (times 0: NaN; else an
     infinity, or a NaN from opposite ones): their finite sum says the rows are finite
     (an overflow of finite entries is refused too). Where the producer made them as it
     wrote the rows (f->cone_products: the same sums of the same entries), they are taken
     from there, and the rows are not read here (at 10 000 bodies they had left the
     cache since). */
  const LsimConeProducts *pr = f->cone_products ? &f->cone_products[c] : NULL;
  if (pr && !(d == 4 && cb->normal >= 0 && len > 0 && pr->len == len && pr->lambda == L &&
              pr->at == f->J_ptr[cb->normal] && f->B_ptr == f->J_ptr))
    pr = NULL;
  double dot[6];
  if (pr) memcpy(dot, pr->dot, sizeof dot);
  else lsim_cone_products(fc->Jn, fc->J1, fc->J2, fc->Bn, fc->B1, fc->B2, len, dot);
  const double dn = dot[0], g1 = dot[1], g2 = dot[2], a0 = dot[3], a1 = dot[4], a2 = dot[5];
  if (!isfinite(((dn + g1) + (g2 + a0)) + (a1 + a2))) return -1;
  /* Whether the second block's first three entries of each row are the negatives of the
     first's (the wide sweep's compact rows, pgs_wide.c), while the rows are in the cache. */
  fc->neg = 0;
  if (d == 4 && cb->normal >= 0 && W == FAST_W)
    fc->neg = nb < 2 ? 3
              : pr   ? pr->neg
                     : (lsim_negated_heads(fc->Jn, fc->J1, fc->J2) == 0) |
                           (lsim_negated_heads(fc->Bn, fc->B1, fc->B2) == 0) << 1;
  if (cb->normal >= 0) {
    if (!(dn > 0.0)) return -1;
    fc->inv_n = 1.0 / dn;
    fc->qn = f->q[cb->normal];
    fc->gn1 = g1;
    fc->gn2 = qd ? g2 : 0.0;
  } else {
    fc->inv_n = fc->qn = fc->gn1 = fc->gn2 = 0.0;
  }
  fc->A[0] = a0;
  fc->A[1] = qd ? a1 : 0.0;
  fc->A[2] = qd ? a2 : 0.0;
  {
    const double a11 = fc->A[0], a12 = fc->A[1], a22 = fc->A[2], det = a11 * a22 - a12 * a12;
    fc->A[3] = det > 1e-14 * (a11 * a22 > 0.0 ? a11 * a22 : 1.0) ? 1.0 / det : 0.0;
  }
  /* The directions' diagonal M_kk = p_k' A p_k must be positive (else the generic
     path reports it). */
  if (!(fc->A[0] > 0.0)) return -1;
  if (d == 4) {
    /* The quarter turns' exact table (1, 0, -1, 0 and 0, 1, 0, -1) and finite A make
       the loop below's M_kk exactly A_11, A_22, A_11, A_22 (the products with 0 add only
       zeros): A_22 > 0 is the one test left (the loop had cost 0.5 % of a pile's step). */
    if (!(fc->A[2] > 0.0)) return -1;
  } else if (qd) {
    direction_table(ws, d);
    for (int k = 0; k < d; ++k) {
      const double ck = ws->dir_cos[k], sk = ws->dir_sin[k];
      if (!(ck * (fc->A[0] * ck + fc->A[1] * sk) + sk * (fc->A[1] * ck + fc->A[2] * sk) > 0.0))
        return -1;
    }
  }
  return 0;
}

/* fast_prepare's per-cone stages over chunks of the cones, on the team when there is one
 * (each member its own chunk; the table is the same either way). */
typedef struct PrepareJob {
  LsimPgs *ws;
  const LsimFactoredLcp *f;
  int *runs, *ri;
  int stage, W, T; /* stage 0: runs (W per member); 1: table entries at width W; 2: both,
                      the entries at the guess W; 3: entries under the block promise at
                      its width W (the runs' shortest length per member) */
  int Wm[LSIM_PGS_MAX_THREADS], bad[LSIM_PGS_MAX_THREADS];
  int entries_bad[LSIM_PGS_MAX_THREADS]; /* stage 2: an entry failed at the guess */
} PrepareJob;

static void prepare_chunk(void *arg, int member) {
  PrepareJob *j = arg;
  const int nc = j->f->ncones;
  const int b = (int)((long long)nc * member / j->T), e = (int)((long long)nc * (member + 1) / j->T);
  int bad = 0, W = 0;
  if (j->stage == 3) {
    for (int c = b; c < e && !bad; ++c) {
      int nb, o0, o1;
      cone_blocks_promised(j->f, c, j->W, &nb, &o0, &o1, &W);
      bad = cone_entry(j->ws, j->f, c, j->W, nb, o0, o1);
    }
  } else if (j->stage == 2) {
    /* Both at once, the entries at the guessed width j->W: each cone's runs, then (while
       they are in the cache) its entry; a cone whose entry fails is counted in bad only
       if the guess stands (the caller redoes the entries at the measured width). */
    for (int c = b; c < e && !bad; ++c) {
      bad = cone_runs(j->f, c, j->runs, &W);
      if (!bad && prepare_cone(j->ws, j->f, c, j->W, j->runs, j->ri)) j->entries_bad[member] = 1;
    }
  } else {
    for (int c = b; c < e && !bad; ++c)
      bad = j->stage == 0 ? cone_runs(j->f, c, j->runs, &W)
                          : prepare_cone(j->ws, j->f, c, j->W, j->runs, j->ri);
  }
  j->bad[member] = bad;
  j->Wm[member] = W;
}

/* Runs a stage over all cones: in chunks on the team when it serves this solve and the
 * problem is large enough, else in one chunk here. 0, or -1 when a cone did not fit. */
static int prepare_stage(PrepareJob *j, int stage) {
  LsimPgs *ws = j->ws;
  const int T = ws->threads_now;
  j->stage = stage;
  j->T = T > 1 && lsim_team_size(ws->team) == T && j->f->ncones >= PARALLEL_MIN_TASKS ? T : 1;
  if (j->T > 1) lsim_team_run(ws->team, prepare_chunk, j);
  else prepare_chunk(j, 0);
  int bad = 0;
  for (int k = 0; k < j->T; ++k) bad |= j->bad[k];
  return bad ? -1 : 0;
}

/* The solve's first scans over the variables: max |q_i| (the residual's scale; a NaN
 * skipped), whether some q_i is not finite, and whether the pointers of J, B and C fall
 * somewhere. Each member takes an equal range of the variables; the maxima and the flags
 * combine the same in any order, so the result is that of one pass. */
typedef struct ScanJob {
  const LsimFactoredLcp *f;
  int T;
  double scale[LSIM_PGS_MAX_THREADS];
  int bad[LSIM_PGS_MAX_THREADS]; /* a falling pointer or a q_i not finite */
} ScanJob;

static void scan_range(void *arg, int member) {
  ScanJob *j = arg;
  const LsimFactoredLcp *f = j->f;
  const int n = f->n;
  const int b = (int)((long long)n * member / j->T), e = (int)((long long)n * (member + 1) / j->T);
  /* Four maxima side by side (a maximum is the same in any grouping: one chain of
     dependent comparisons cost four cycles a variable). */
  double s4[4] = {0.0, 0.0, 0.0, 0.0};
  int bad = 0, i = b;
#if defined(__SSE2__)
  /* In SSE2 pairs, lanes (0, 1) and (2, 3): maxpd(a, s) is a > s ? a : s (s when a is a
     NaN), each lane's sequence the scalar loop's; not finite is |q| > DBL_MAX unordered. */
  {
    const __m128d sign = _mm_set1_pd(-0.0), big = _mm_set1_pd(DBL_MAX);
    __m128d s01 = _mm_setzero_pd(), s23 = _mm_setzero_pd(), nf = _mm_setzero_pd();
    for (; i + 4 <= e; i += 4) {
      const __m128d a = _mm_andnot_pd(sign, _mm_loadu_pd(f->q + i));
      const __m128d c = _mm_andnot_pd(sign, _mm_loadu_pd(f->q + i + 2));
      s01 = _mm_max_pd(a, s01), s23 = _mm_max_pd(c, s23);
      nf = _mm_or_pd(nf, _mm_or_pd(_mm_cmpnle_pd(a, big), _mm_cmpnle_pd(c, big)));
    }
    _mm_storeu_pd(s4, s01), _mm_storeu_pd(s4 + 2, s23);
    bad |= _mm_movemask_pd(nf) != 0;
  }
#else
  for (; i + 4 <= e; i += 4)
    for (int l = 0; l < 4; ++l) {
      const double a = fabs(f->q[i + l]);
      s4[l] = a > s4[l] ? a : s4[l];
      bad |= !isfinite(f->q[i + l]);
    }
#endif
  for (; i < e; ++i) {
    const double a = fabs(f->q[i]);
    s4[0] = a > s4[0] ? a : s4[0];
    bad |= !isfinite(f->q[i]);
  }
  double scale = 0.0;
  for (int l = 0; l < 4; ++l) scale = s4[l] > scale ? s4[l] : scale;
  if (f->J_ptr)
    for (i = b; i < e; ++i) bad |= f->J_ptr[i + 1] < f->J_ptr[i];
  if (f->B_ptr && f->B_ptr != f->J_ptr)
    for (i = b; i < e; ++i) bad |= f->B_ptr[i + 1] < f->B_ptr[i];
  if (f->C_ptr)
    for (i = b; i < e; ++i) bad |= f->C_ptr[i + 1] < f->C_ptr[i];
  j->scale[member] = scale, j->bad[member] = bad;
}

/* The scans above on the team when it serves this solve and the problem is large enough
 * (as prepare_stage), else in this thread; *scale = max |q_i|, returns the flag. */
static int scan(LsimPgs *ws, const LsimFactoredLcp *f, double *scale) {
  const int T = ws->threads_now;
  ScanJob j = {.f = f};
  j.T = T > 1 && lsim_team_size(ws->team) == T && f->ncones >= PARALLEL_MIN_TASKS ? T : 1;
  if (j.T > 1) lsim_team_run(ws->team, scan_range, &j);
  else scan_range(&j, 0);
  double s = 0.0;
  int bad = 0;
  for (int k = 0; k < j.T; ++k) s = j.scale[k] > s ? j.scale[k] : s, bad |= j.bad[k];
  *scale = s;
  return bad;
}

/* Builds the packed problem; returns the block width W (1, 3 or 6), or 0 when the
 * problem does not fit the fast path (then nothing is promised about ws->block, and the
 * caller runs lsim_factored_check and the generic path). It checks what it reads as it
 * goes, which is less than lsim_factored_check covers: the rows of a cone's directions
 * other than p_0 and p_q are never read (the uniform promise gives them), so only their
 * pattern is compared with p_0's. */
static int fast_prepare(LsimPgs *ws, const LsimFactoredLcp *f, int scan_bad) {
  const int n = f->n;
  /* scan_bad (scan()): a pointer falls or some q_i is not finite. */
  if (scan_bad || !pointers_ends(f->J_ptr, f->J_idx, f->J_val, n) ||
      !pointers_ends(f->B_ptr, f->B_idx, f->B_val, n) ||
      (f->C_ptr && !pointers_ends(f->C_ptr, f->C_idx, f->C_val, n)) || f->ncones < 0 ||
      (f->ncones > 0 && !f->cones))
    return 0;
  if (lsim_grow((void **)&ws->rinfo, &ws->rinfo_cap, 8 * n + 8, sizeof(int))) return 0;
  int *runs = ws->rinfo, *ri = ws->rinfo + 5 * n + 5;
  /* Cone membership, each variable in at most one cone; planar cones in range only. */
  for (int i = 0; i < n; ++i) ws->block[i] = -1;
  int nscalar = n, sorted = 1, last_first = -1;
  for (int c = 0; c < f->ncones; ++c) {
    const LsimConeBlock *cb = &f->cones[c];
    if (!is_planar(cb) || cb->lambda < 0 || cb->lambda >= n || cb->first_dir < 0 ||
        cb->first_dir > n - cb->ndir || cb->normal >= n || !(cb->mu >= 0.0) ||
        !isfinite(cb->mu) || !isfinite(cb->fixed_normal))
      return 0;
    /* Whether the cones come in the order of their first variables (the sweep's). */
    const int first = cb->normal >= 0 && cb->normal < cb->first_dir ? cb->normal : cb->first_dir;
    sorted &= first > last_first, last_first = first;
    if (cb->normal >= 0) {
      if (ws->block[cb->normal] >= 0) return 0;
      ws->block[cb->normal] = c, --nscalar;
    }
    int *bk = ws->block + cb->first_dir;
    if (cb->ndir == 4) {
      /* The time step's cones: the four tested at once (each -1 or a cone: their and is
         not negative when one is taken), then written. */
      if ((bk[0] & bk[1] & bk[2] & bk[3]) >= 0) return 0;
      bk[0] = bk[1] = bk[2] = bk[3] = c, nscalar -= 4;
    } else {
      for (int d = 0; d < cb->ndir; ++d) {
        if (bk[d] >= 0) return 0;
        bk[d] = c, --nscalar;
      }
    }
    if (ws->block[cb->lambda] >= 0) return 0;
    ws->block[cb->lambda] = c, --nscalar;
  }
  /* The runs of the rows read (scalars; a cone's normal, p_0 and p_q); the common block
     width W is the shortest run (two bodies adjacent in u make one run of 2 W). */
  int W = 0, Ws = 0;
  for (int i = 0; i < n && nscalar > 0; ++i) /* (nothing to do without scalars) */
    if (ws->block[i] < 0 && (row_runs(f, i, runs + 5 * i, &Ws) || !c_row_sound(f, i))) return 0;
  if (lsim_grow((void **)&ws->fc, &ws->fc_cap, f->ncones, sizeof(FastCone)) ||
      lsim_grow((void **)&ws->cone_o, &ws->cone_o_cap, 2 * f->ncones, sizeof(int)) ||
      lsim_grow((void **)&ws->tasks, &ws->tasks_cap, n, sizeof(int)) ||
      lsim_grow((void **)&ws->fs, &ws->fs_cap, nscalar, sizeof(FastScalar)))
    return 0;
  /* Cones: the direction table made here for the one d > 2 that needs it (cones of two
     such counts: this thread alone, which remakes the table as needed). */
  ws->table_d = 0;
  for (int c = 0; c < f->ncones && ws->table_d >= 0; ++c) {
    const int d = f->cones[c].ndir;
    if (d != 2 && d != ws->table_d) ws->table_d = ws->table_d ? -1 : d;
  }
  if (ws->table_d > 0) direction_table(ws, ws->table_d);
  /* Under the block promise (factored.h): the entries at its width in one pass, each
     cone's blocks read from p_0's row and nothing else checked; used when the width the
     runs give (the shortest of all, as below) is the promised one, else the general way. */
  PrepareJob job = {.ws = ws, .f = f, .runs = runs, .ri = ri, .W = f->block_width};
  int entries_done = 0;
  if (ws->table_d >= 0 && (job.W == 1 || job.W == 3 || job.W == 6) && f->B_ptr == f->J_ptr &&
      f->B_idx == f->J_idx) {
    W = Ws;
    if (!prepare_stage(&job, 3)) {
      for (int k = 0; k < job.T; ++k)
        if (job.Wm[k] && (!W || job.Wm[k] < W)) W = job.Wm[k];
      entries_done = W == job.W;
    }
    if (!entries_done) W = 0;
  }
  /* The cones' runs (the width W is the shortest of all), and their table entries at W:
     in one pass at the last solve's width when there is one (the runs and entries of a
     cone while its rows are in the cache), redone at the measured width should it differ. */
  job.W = ws->last_W;
  const int guess = !entries_done && ws->table_d >= 0 && (job.W == 1 || job.W == 3 || job.W == 6);
  if (guess) memset(job.entries_bad, 0, sizeof job.entries_bad);
  if (!entries_done) {
    W = Ws;
    if (prepare_stage(&job, guess ? 2 : 0)) return 0;
    for (int k = 0; k < job.T; ++k)
      if (job.Wm[k] && (!W || job.Wm[k] < W)) W = job.Wm[k];
  }
  if (W != 1 && W != 3 && W != 6) return 0;
  if (!entries_done) entries_done = guess && W == job.W;
  if (entries_done)
    for (int k = 0; k < job.T; ++k)
      if (job.entries_bad[k]) return 0;
  job.W = W;
  for (int i = 0; i < n && nscalar > 0; ++i)
    if (ws->block[i] < 0 && row_to_blocks(runs + 5 * i, W, ri + 3 * i)) return 0;
  if (ws->table_d < 0) {
    for (int c = 0; c < f->ncones; ++c) {
      if (f->cones[c].ndir > 2) direction_table(ws, f->cones[c].ndir);
      if (prepare_cone(ws, f, c, W, runs, ri)) return 0;
    }
  } else if (!entries_done && prepare_stage(&job, 1)) {
    return 0;
  }
  ws->last_W = W;
#undef SAME_BLOCKS
  /* Scalars, and the sweep order (a cone at its first variable, as run() does): without
     scalars and with the cones in that order already, the cones' own order. */
  int nt = 0, ns = 0;
  if (nscalar == 0 && sorted)
    for (; nt < f->ncones; ++nt) ws->tasks[nt] = nt;
  for (int i = 0; i < n && !(nscalar == 0 && sorted); ++i) {
    const int c = ws->block[i];
    if (c >= 0) {
      const LsimConeBlock *cb = &f->cones[c];
      const int first = cb->normal >= 0 && cb->normal < cb->first_dir ? cb->normal : cb->first_dir;
      if (i == first) ws->tasks[nt++] = c;
      continue;
    }
    const int o[2] = {ri[3 * i + 1], ri[3 * i + 2]};
    FastScalar *sc = &ws->fs[ns];
    sc->var = i;
    if (pack_row(f, i, ri[3 * i], o, W, sc->o, sc->J, sc->B)) return 0;
    sc->nb = ri[3 * i];
    double dg = dot_packed(sc->J, sc->B, W);
    sc->has_c = !c_row_empty(f, i);
    if (sc->has_c)
      for (int k = f->C_ptr[i]; k < f->C_ptr[i + 1]; ++k)
        if (f->C_idx[k] == i) dg += f->C_val[k];
    if (!(dg > 0.0)) return 0;
    sc->inv = 1.0 / dg;
    sc->q = f->q[i];
    ws->tasks[nt++] = -(ns++) - 1;
  }
  ws->tasks_n = nt;
  /* Whether the tasks take the variables in order, each its own in a run. */
  int next = 0;
  for (int t = 0; t < nt && next >= 0; ++t) {
    const int task = ws->tasks[t];
    if (task < 0) {
      next = ws->fs[-task - 1].var == next ? next + 1 : -1;
      continue;
    }
    const LsimConeBlock *cb = &f->cones[task];
    const int first = cb->normal >= 0 ? cb->normal : cb->first_dir;
    next = first == next && (cb->normal < 0 || cb->first_dir == cb->normal + 1) &&
                   cb->lambda == cb->first_dir + cb->ndir
               ? cb->lambda + 1
               : -1;
  }
  ws->tasks_vars = next == n;
  /* The pad after u (missing blocks read zeros there). */
  for (int k = 0; k < FAST_W; ++k) ws->u[f->m + k] = 0.0;
  return W;
}

/* How many tasks ahead the sweep prefetches the blocks of u (best of 2, 4, 8, 16). */
enum { SWEEP_PREFETCH = 8 };

/* The blocks of u of the cone SWEEP_PREFETCH tasks after t, asked for now: in parallel
 * sweeps a body's block may come from the other core's cache (measured: 5-10 % off the
 * two-thread solve; no change in one thread). */
static inline void prefetch_ahead(const LsimPgs *ws, const double *u, const int *order, int t,
                                  int end) {
#if defined(__GNUC__)
  if (t + SWEEP_PREFETCH < end && order[t + SWEEP_PREFETCH] >= 0) {
    const FastCone *ahead = &ws->fc[order[t + SWEEP_PREFETCH]];
    __builtin_prefetch(u + ahead->o[0]);
    __builtin_prefetch(u + ahead->o[1]);
  }
#else
  (void)ws, (void)u, (void)order, (void)t, (void)end;
#endif
}

/* One sweep of the fast path, block width W (a constant after inlining). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void fast_sweep(LsimPgs *ws, const LsimFactoredLcp *f, double *z, double omega,
                              const int W, const int *order, int begin, int end) {
  double *u = ws->u;
  double target[LSIM_PGS_MAX_PLANAR + 1];
  for (int t = begin; t < end; ++t) {
    const int task = order[t];
    prefetch_ahead(ws, u, order, t, end);
    if (task < 0) {
      const FastScalar *sc = &ws->fs[-task - 1];
      double *u0 = u + sc->o[0], *u1 = u + sc->o[1];
      double w = 0.0;
      for (int j = 0; j < W; ++j) w += sc->J[j] * u0[j];
      for (int j = 0; j < W; ++j) w += sc->J[W + j] * u1[j];
      if (sc->has_c)
        for (int k = f->C_ptr[sc->var]; k < f->C_ptr[sc->var + 1]; ++k) w += f->C_val[k] * z[f->C_idx[k]];
      w += sc->q;
      const double zo = z[sc->var];
      double zn = zo - omega * w * sc->inv;
      zn = zn > 0.0 ? zn : 0.0;
      const double delta = zn - zo;
      if (delta == 0.0) continue;
      z[sc->var] = zn;
      if (sc->nb > 0)
        for (int j = 0; j < W; ++j) u0[j] += sc->B[j] * delta;
      if (sc->nb > 1)
        for (int j = 0; j < W; ++j) u1[j] += sc->B[W + j] * delta;
      continue;
    }
    const FastCone *c = &ws->fc[task];
    double *u0 = u + c->o[0], *u1 = u + c->o[1];
    double vn = 0.0, v1 = 0.0, v2 = 0.0;
#if FAST_V2D
    if (W % 2 == 0) {
      v2d an = {0.0, 0.0}, a1 = an, a2 = an;
      for (int j = 0; j < W; j += 2) {
        const v2d x = ld2(u0 + j);
        an += ld2(c->Jn + j) * x, a1 += ld2(c->J1 + j) * x, a2 += ld2(c->J2 + j) * x;
      }
      if (c->nb > 1)
        for (int j = 0; j < W; j += 2) {
          const v2d x = ld2(u1 + j);
          an += ld2(c->Jn + W + j) * x, a1 += ld2(c->J1 + W + j) * x, a2 += ld2(c->J2 + W + j) * x;
        }
      vn = an[0] + an[1], v1 = a1[0] + a1[1], v2 = a2[0] + a2[1];
    } else
#endif
    {
      for (int j = 0; j < W; ++j) {
        vn += c->Jn[j] * u0[j], v1 += c->J1[j] * u0[j], v2 += c->J2[j] * u0[j];
      }
      if (c->nb > 1)
        for (int j = 0; j < W; ++j) {
          vn += c->Jn[W + j] * u1[j], v1 += c->J1[W + j] * u1[j], v2 += c->J2[W + j] * u1[j];
        }
    }
    v1 += c->q1, v2 += c->q2;
    double dn = 0.0, cn = c->fixed_normal;
    if (c->normal >= 0) {
      const double zo = z[c->normal];
      double zn = zo - omega * (vn + c->qn) * c->inv_n;
      zn = zn > 0.0 ? zn : 0.0;
      z[c->normal] = zn;
      dn = zn - zo;
      cn = zn;
      v1 += c->gn1 * dn, v2 += c->gn2 * dn;
    }
    const double R = c->mu * (cn > 0.0 ? cn : 0.0);
    const int d = c->d, L = c->L;
    double *beta = z + c->b0;
    planar_target(ws, d, R, c->A, v1, v2, beta, target, 1);
    double df1 = 0.0, df2 = 0.0;
    if (d == 2) {
      double b[2];
      for (int k = 0; k < 2; ++k) {
        const double zn = beta[k] + omega * (target[k] - beta[k]);
        b[k] = zn > 0.0 ? zn : 0.0;
      }
      df1 = (b[0] - beta[0]) - (b[1] - beta[1]);
      beta[0] = b[0], beta[1] = b[1];
    } else if (d == 4) {
      double b[4];
      for (int k = 0; k < 4; ++k) {
        const double zn = beta[k] + omega * (target[k] - beta[k]);
        b[k] = zn > 0.0 ? zn : 0.0;
      }
      df1 = (b[0] - beta[0]) - (b[2] - beta[2]), df2 = (b[1] - beta[1]) - (b[3] - beta[3]);
      for (int k = 0; k < 4; ++k) beta[k] = b[k];
    } else {
      direction_table(ws, d);
      const double *cs = ws->dir_cos, *sn = ws->dir_sin;
      for (int k = 0; k < d; ++k) {
        double zn = beta[k] + omega * (target[k] - beta[k]);
        zn = zn > 0.0 ? zn : 0.0;
        const double dk = zn - beta[k];
        beta[k] = zn;
        df1 += cs[k] * dk, df2 += sn[k] * dk;
      }
    }
    const double ln = z[L] + omega * (target[d] - z[L]);
    z[L] = ln > 0.0 ? ln : 0.0;
    if (dn == 0.0 && df1 == 0.0 && df2 == 0.0) continue;
#if FAST_V2D
    if (W % 2 == 0) {
      const v2d xn = {dn, dn}, x1 = {df1, df1}, x2 = {df2, df2};
      for (int j = 0; j < W; j += 2)
        st2(u0 + j, ld2(u0 + j) + ld2(c->Bn + j) * xn + ld2(c->B1 + j) * x1 + ld2(c->B2 + j) * x2);
      if (c->nb > 1)
        for (int j = 0; j < W; j += 2)
          st2(u1 + j, ld2(u1 + j) + ld2(c->Bn + W + j) * xn + ld2(c->B1 + W + j) * x1 +
                          ld2(c->B2 + W + j) * x2);
      continue;
    }
#endif
    for (int j = 0; j < W; ++j) u0[j] += c->Bn[j] * dn + c->B1[j] * df1 + c->B2[j] * df2;
    if (c->nb > 1)
      for (int j = 0; j < W; ++j)
        u1[j] += c->Bn[W + j] * dn + c->B1[W + j] * df1 + c->B2[W + j] * df2;
  }
}

/* Tasks order[begin .. end) swept, block width W. */
void lsim_pgs_fast_sweep_range(LsimPgs *ws, const LsimFactoredLcp *f, double *z, double omega,
                             int W, const int *order, int begin, int end) {
  if (W == 6) fast_sweep(ws, f, z, omega, 6, order, begin, end);
  else if (W == 3) fast_sweep(ws, f, z, omega, 3, order, begin, end);
  else fast_sweep(ws, f, z, omega, 1, order, begin, end);
}

static inline int zero_min(double zi, double wi) {
  return isfinite(zi) && isfinite(wi) && (zi < wi ? zi : wi) == 0.0;
}

/* How many tasks ahead the residual's passes ask for a cone's table entry (184 B; at
 * 10 000 bodies the table comes from memory in each of the three passes). Asking for its
 * rows too (288 B of J or B) gained nothing measurable at 10 000 bodies, for instructions
 * at every size (docs/solvers.md, "The final residual's passes"). */
enum { EXACT_PREFETCH = 16 };

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void exact_prefetch(const LsimPgs *ws, const int *order, int t, int end) {
#if defined(__GNUC__)
  if (t + EXACT_PREFETCH < end && order[t + EXACT_PREFETCH] >= 0) {
    const char *e = (const char *)&ws->fc[order[t + EXACT_PREFETCH]];
    __builtin_prefetch(e), __builtin_prefetch(e + 64), __builtin_prefetch(e + 128);
    __builtin_prefetch(e + sizeof(FastCone) - 1);
  }
#else
  (void)ws, (void)order, (void)t, (void)end;
#endif
}

/* The measures of the common residual (lcp.h) over variables taken in order: max
 * |min(z_i, w_i)|, max -z_i, max -w_i (from +0, strict, so +0 stays +0), whether all are
 * finite, and the dot product z'w summed in that order (or, in measure_range, its
 * non-zero products listed in order, nprod of them). */
typedef struct Measures {
  double natural, zneg, wneg, dot;
  int finite, nprod;
} Measures;

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void measure_one(Measures *r, double zi, double wi) {
  r->finite &= isfinite(zi) && isfinite(wi);
  const double m = zi < wi ? zi : wi;
  r->natural = r->natural > fabs(m) ? r->natural : fabs(m);
  r->dot += zi * wi;
  r->zneg = -zi > r->zneg ? -zi : r->zneg;
  r->wneg = -wi > r->wneg ? -wi : r->wneg;
}

/* Pairs of variables measured at once where there is SSE2 (a cone of four directions and
 * a normal: three pairs), lane by lane the operations of measure_one: min, max and the
 * products as its comparisons and products; the maxima kept per lane and combined at the
 * end (a maximum of values that are never -0 or NaN is the same in any order; a NaN or
 * infinity anywhere sets every measure to INFINITY); finiteness as x - x (+0, or NaN for
 * an infinity or NaN) summed; the products added to the dot product one by one, in
 * order. */
#if defined(__GNUC__) && defined(__SSE2__)
#define EXACT_PAIRS 1
typedef struct MeasuresV {
  __m128d natural, zneg, wneg, fin;
} MeasuresV;

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void measure_pair(Measures *r, MeasuresV *v, __m128d zv, __m128d wv) {
  const __m128d sign = _mm_set1_pd(-0.0);
  v->fin = _mm_add_pd(v->fin, _mm_add_pd(_mm_sub_pd(zv, zv), _mm_sub_pd(wv, wv)));
  v->natural = _mm_max_pd(v->natural, _mm_andnot_pd(sign, _mm_min_pd(zv, wv)));
  v->zneg = _mm_max_pd(_mm_xor_pd(zv, sign), v->zneg);
  v->wneg = _mm_max_pd(_mm_xor_pd(wv, sign), v->wneg);
  const __m128d p = _mm_mul_pd(zv, wv);
  r->dot += _mm_cvtsd_f64(p);
  r->dot += _mm_cvtsd_f64(_mm_unpackhi_pd(p, p));
}

/* The lanes' measures into r. */
static inline void measure_lanes(Measures *r, const MeasuresV *v) {
  double a[2], b[2], c[2], d[2];
  _mm_storeu_pd(a, v->natural), _mm_storeu_pd(b, v->zneg), _mm_storeu_pd(c, v->wneg);
  _mm_storeu_pd(d, v->fin);
  for (int l = 0; l < 2; ++l) {
    r->natural = r->natural > a[l] ? r->natural : a[l];
    r->zneg = b[l] > r->zneg ? b[l] : r->zneg;
    r->wneg = c[l] > r->wneg ? c[l] : r->wneg;
    r->finite &= d[l] == 0.0;
  }
}
#else
#define EXACT_PAIRS 0
#endif

/* A cone's three products with u (normal, p_0, p_q; block width 6) in the four lanes of
 * AVX2 vectors, one row a lane (the fourth a copy of the third): each block's products of
 * four and of two entries formed at once and transposed, then added to the lanes' sums one
 * entry after another, so that each lane's sum is the scalar loop's, operation for
 * operation (no FMA: the target has none, and C11 contracts nothing). Used where the
 * coloured sweep runs AVX2 (or AVX-512), which LSIM_SIMD chooses. */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define EXACT_AVX2 1
__attribute__((target("avx2"))) static inline void cone_dots_avx2(const FastCone *c,
                                                                   const double *u, double v[3]) {
  __m256d acc = _mm256_setzero_pd();
  for (int b = 0; b < c->nb; ++b) {
    const double *jn = c->Jn + 6 * b, *j1 = c->J1 + 6 * b, *j2 = c->J2 + 6 * b, *x = u + c->o[b];
    const __m256d x4 = _mm256_loadu_pd(x);
    const __m256d pn = _mm256_mul_pd(_mm256_loadu_pd(jn), x4);
    const __m256d p1 = _mm256_mul_pd(_mm256_loadu_pd(j1), x4);
    const __m256d p2 = _mm256_mul_pd(_mm256_loadu_pd(j2), x4);
    const __m256d t0 = _mm256_unpacklo_pd(pn, p1), t1 = _mm256_unpackhi_pd(pn, p1);
    const __m256d t2 = _mm256_unpacklo_pd(p2, p2), t3 = _mm256_unpackhi_pd(p2, p2);
    acc = _mm256_add_pd(acc, _mm256_permute2f128_pd(t0, t2, 0x20)); /* entry 0 */
    acc = _mm256_add_pd(acc, _mm256_permute2f128_pd(t1, t3, 0x20)); /* 1 */
    acc = _mm256_add_pd(acc, _mm256_permute2f128_pd(t0, t2, 0x31)); /* 2 */
    acc = _mm256_add_pd(acc, _mm256_permute2f128_pd(t1, t3, 0x31)); /* 3 */
    const __m128d x2 = _mm_loadu_pd(x + 4);
    const __m128d qn = _mm_mul_pd(_mm_loadu_pd(jn + 4), x2);
    const __m128d q1 = _mm_mul_pd(_mm_loadu_pd(j1 + 4), x2);
    const __m128d q2 = _mm_mul_pd(_mm_loadu_pd(j2 + 4), x2);
    acc = _mm256_add_pd(acc, _mm256_set_m128d(_mm_unpacklo_pd(q2, q2), _mm_unpacklo_pd(qn, q1)));
    acc = _mm256_add_pd(acc, _mm256_set_m128d(_mm_unpackhi_pd(q2, q2), _mm_unpackhi_pd(qn, q1)));
  }
  double a[4];
  _mm256_storeu_pd(a, acc);
  v[0] = a[0], v[1] = a[1], v[2] = a[2];
}
#else
#define EXACT_AVX2 0
#endif

/* w = J u + C z + q on the packed problem, u the state in ws->u (a cone's direction rows
 * from its p_0 and p_q rows). With stop: stops at the first row whose min(z, w) is not
 * exactly 0 (returns 1). With ms (ws->tasks_vars: the tasks take the variables in their
 * order): each task's variables measured into *ms as its rows are written. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int fast_rows_w_stop(LsimPgs *ws, const LsimFactoredLcp *f, const double *z,
                                   double *w, const int W, const int stop, Measures *ms,
                                   const int avx2, const int *order, int begin, int end) {
  (void)avx2; /* (no AVX2 path off x86) */
  const double *u = ws->u;
#if EXACT_PAIRS
  MeasuresV mv[1] = {{_mm_setzero_pd(), _mm_setzero_pd(), _mm_setzero_pd(), _mm_setzero_pd()}};
#endif
  for (int t = begin; t < end; ++t) {
    const int task = order[t];
    exact_prefetch(ws, order, t, end);
    if (task < 0) {
      const FastScalar *sc = &ws->fs[-task - 1];
      double s = 0.0;
      for (int j = 0; j < W; ++j) s += sc->J[j] * u[sc->o[0] + j];
      for (int j = 0; j < W; ++j) s += sc->J[W + j] * u[sc->o[1] + j];
      if (sc->has_c)
        for (int k = f->C_ptr[sc->var]; k < f->C_ptr[sc->var + 1]; ++k) s += f->C_val[k] * z[f->C_idx[k]];
      w[sc->var] = s + sc->q;
      if (stop && !zero_min(z[sc->var], w[sc->var])) return 1;
      if (ms) measure_one(ms, z[sc->var], w[sc->var]);
      continue;
    }
    const FastCone *c = &ws->fc[task];
    const double *u0 = u + c->o[0], *u1 = u + c->o[1];
    double vn = 0.0, v1 = 0.0, v2 = 0.0;
#if EXACT_AVX2
    if (avx2 && W == 6) {
      double v[3];
      cone_dots_avx2(c, u, v);
      vn = v[0], v1 = v[1], v2 = v[2];
    } else
#endif
    {
      for (int j = 0; j < W; ++j) vn += c->Jn[j] * u0[j], v1 += c->J1[j] * u0[j], v2 += c->J2[j] * u0[j];
      if (c->nb > 1)
        for (int j = 0; j < W; ++j)
          vn += c->Jn[W + j] * u1[j], v1 += c->J1[W + j] * u1[j], v2 += c->J2[W + j] * u1[j];
    }
    const double wn = vn + c->qn;
    if (c->normal >= 0) w[c->normal] = wn;
    const int d = c->d, b0 = c->b0, L = c->L;
    const double zl = z[L];
#if FAST_V2D
    v2d wd0 = {0.0, 0.0}, wd1 = wd0;
#endif
    if (d == 2) {
      w[b0] = v1 + zl + f->q[b0];
      w[b0 + 1] = -v1 + zl + f->q[b0 + 1];
    } else {
      direction_table(ws, d);
      const double *cs = ws->dir_cos, *sn = ws->dir_sin;
#if FAST_V2D
      if (d == 4) {
        /* Two directions a pair: each lane the scalar expression below. */
        const v2d a1 = {v1, v1}, a2 = {v2, v2}, l = {zl, zl};
        wd0 = ((ld2(cs) * a1 + ld2(sn) * a2) + l) + ld2(f->q + b0);
        wd1 = ((ld2(cs + 2) * a1 + ld2(sn + 2) * a2) + l) + ld2(f->q + b0 + 2);
        st2(w + b0, wd0), st2(w + b0 + 2, wd1);
      } else
#endif
        for (int k = 0; k < d; ++k) w[b0 + k] = (cs[k] * v1 + sn[k] * v2) + zl + f->q[b0 + k];
    }
    double s = 0.0;
    const int k0 = f->C_ptr[L], nk = f->C_ptr[L + 1] - k0;
    const double *cv = f->C_val + k0;
    const int *ci = f->C_idx + k0;
    if (nk == 5) /* mu on the normal, -1 on each of four directions: the loop unrolled */
      s = ((((s + cv[0] * z[ci[0]]) + cv[1] * z[ci[1]]) + cv[2] * z[ci[2]]) + cv[3] * z[ci[3]]) +
          cv[4] * z[ci[4]];
    else
      for (int k = 0; k < nk; ++k) s += cv[k] * z[ci[k]];
    const double wl = s + f->q[L];
    w[L] = wl;
    if (stop) {
      if (!zero_min(zl, wl)) return 1;
      if (c->normal >= 0 && !zero_min(z[c->normal], wn)) return 1;
      for (int k = 0; k < d; ++k)
        if (!zero_min(z[b0 + k], w[b0 + k])) return 1;
    }
    if (!ms) continue;
#if EXACT_PAIRS && FAST_V2D
    if (d == 4 && c->normal >= 0) {
      /* normal, beta_0 .. beta_3, lambda: three pairs (tasks_vars: in a run). */
      const double *zc = z + c->normal;
      const __m128d w0 = (__m128d)wd0, w1 = (__m128d)wd1;
      measure_pair(ms, mv, _mm_loadu_pd(zc), _mm_unpacklo_pd(_mm_set1_pd(wn), w0));
      measure_pair(ms, mv, _mm_loadu_pd(zc + 2), _mm_shuffle_pd(w0, w1, 1));
      measure_pair(ms, mv, _mm_loadu_pd(zc + 4), _mm_shuffle_pd(w1, _mm_set1_pd(wl), 1));
      continue;
    }
#endif
    if (c->normal >= 0) measure_one(ms, z[c->normal], wn);
    for (int k = 0; k < d; ++k) measure_one(ms, z[b0 + k], w[b0 + k]);
    measure_one(ms, zl, wl);
  }
#if EXACT_PAIRS
  if (ms) measure_lanes(ms, mv);
#endif
  return 0;
}

/* Whether the rows take cone_dots_avx2: block width 6, and the coloured sweep on AVX2 or
 * AVX-512 (so the CPU has AVX2 and LSIM_SIMD did not ask for less). */
#if EXACT_AVX2
static int exact_avx2(const LsimPgs *ws, int W) {
  return W == 6 && ws->wide_groups > 0 &&
         (ws->wide_path == LSIM_PGS_SIMD_AVX2 || ws->wide_path == LSIM_PGS_SIMD_AVX512);
}

/* The rows pass (with the measures when ms) at block width 6 with cone_dots_avx2. VEX
 * only: built a second time like the sweep's EVEX kernels (pgs_wide.c), it and the
 * scatter below were measured no faster (docs/solvers.md, "The final residual's EVEX
 * build"). */
__attribute__((target("avx2"))) static void rows_avx2(LsimPgs *ws, const LsimFactoredLcp *f,
                                                      const double *z, double *w, Measures *ms,
                                                      const int *order, int begin, int end) {
  if (ms) (void)fast_rows_w_stop(ws, f, z, w, 6, 0, ms, 1, order, begin, end);
  else (void)fast_rows_w_stop(ws, f, z, w, 6, 0, NULL, 1, order, begin, end);
}
#endif

/* w on the rows of tasks order[begin .. end). */
static void rows_range(LsimPgs *ws, const LsimFactoredLcp *f, const double *z, double *w, int W,
                       const int *order, int begin, int end) {
#if EXACT_AVX2
  if (exact_avx2(ws, W)) {
    rows_avx2(ws, f, z, w, NULL, order, begin, end);
    return;
  }
#endif
  if (W == 6) (void)fast_rows_w_stop(ws, f, z, w, 6, 0, NULL, 0, order, begin, end);
  else if (W == 3) (void)fast_rows_w_stop(ws, f, z, w, 3, 0, NULL, 0, order, begin, end);
  else (void)fast_rows_w_stop(ws, f, z, w, 1, 0, NULL, 0, order, begin, end);
}

#if EXACT_AVX2
/* u[0 .. 5] += Bn cn + B1 f1 + B2 f2 in AVX2 lanes (four entries, then two), each lane
 * fast_scatter's scalar expression. */
__attribute__((target("avx2"))) static inline void scatter_block_avx2(double *u, const double *bn,
                                                                      const double *b1,
                                                                      const double *b2, double cn,
                                                                      double f1, double f2) {
  const __m256d xn = _mm256_set1_pd(cn), x1 = _mm256_set1_pd(f1), x2 = _mm256_set1_pd(f2);
  const __m256d a = _mm256_add_pd(_mm256_mul_pd(_mm256_loadu_pd(bn), xn),
                                  _mm256_mul_pd(_mm256_loadu_pd(b1), x1));
  _mm256_storeu_pd(u, _mm256_add_pd(_mm256_loadu_pd(u),
                                    _mm256_add_pd(a, _mm256_mul_pd(_mm256_loadu_pd(b2), x2))));
  const __m128d yn = _mm256_castpd256_pd128(xn), y1 = _mm256_castpd256_pd128(x1);
  const __m128d y2 = _mm256_castpd256_pd128(x2);
  const __m128d b = _mm_add_pd(_mm_mul_pd(_mm_loadu_pd(bn + 4), yn), _mm_mul_pd(_mm_loadu_pd(b1 + 4), y1));
  _mm_storeu_pd(u + 4, _mm_add_pd(_mm_loadu_pd(u + 4), _mm_add_pd(b, _mm_mul_pd(_mm_loadu_pd(b2 + 4), y2))));
}
#endif

/* Tasks [begin, end) of ws->tasks scattered into u: u += B z over their variables. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void fast_scatter(LsimPgs *ws, const double *z, const int W, const int avx2,
                                const int *order, int begin, int end) {
  (void)avx2; /* (no AVX2 path off x86) */
  double *u = ws->u;
  for (int t = begin; t < end; ++t) {
    const int task = order[t];
    exact_prefetch(ws, order, t, end);
    if (task < 0) {
      const FastScalar *sc = &ws->fs[-task - 1];
      const double zi = z[sc->var];
      if (zi == 0.0) continue;
      if (sc->nb > 0)
        for (int j = 0; j < W; ++j) u[sc->o[0] + j] += sc->B[j] * zi;
      if (sc->nb > 1)
        for (int j = 0; j < W; ++j) u[sc->o[1] + j] += sc->B[W + j] * zi;
      continue;
    }
    const FastCone *c = &ws->fc[task];
    const double *beta = z + c->b0;
    const double cn = c->normal >= 0 ? z[c->normal] : 0.0;
    double f1 = 0.0, f2 = 0.0;
    if (c->d == 2) {
      f1 = beta[0] - beta[1];
    } else {
#if FAST_V2D
      if (c->d == 4) {
        /* f1 in lane 0, f2 in lane 1, each the sum of the loop below with the table's
           values for d = 4 (its exact quarter turns, direction_table). */
        static const v2d cs4[4] = {{1.0, 0.0}, {0.0, 1.0}, {-1.0, 0.0}, {0.0, -1.0}};
        v2d fs = {0.0, 0.0};
        for (int k = 0; k < 4; ++k) fs += cs4[k] * (v2d){beta[k], beta[k]};
        f1 = fs[0], f2 = fs[1];
      } else
#endif
      {
        direction_table(ws, c->d);
        const double *cs = ws->dir_cos, *sn = ws->dir_sin;
        for (int k = 0; k < c->d; ++k) f1 += cs[k] * beta[k], f2 += sn[k] * beta[k];
      }
    }
    if (cn == 0.0 && f1 == 0.0 && f2 == 0.0) continue;
    double *u0 = u + c->o[0], *u1 = u + c->o[1];
#if EXACT_AVX2
    if (avx2 && W == 6) {
      scatter_block_avx2(u0, c->Bn, c->B1, c->B2, cn, f1, f2);
      if (c->nb > 1) scatter_block_avx2(u1, c->Bn + 6, c->B1 + 6, c->B2 + 6, cn, f1, f2);
      continue;
    }
#endif
#if FAST_V2D
    if (W % 2 == 0) {
      /* Pairs of entries, each lane the scalar expression below. */
      const v2d xn = {cn, cn}, x1 = {f1, f1}, x2 = {f2, f2};
      for (int j = 0; j < W; j += 2)
        st2(u0 + j, ld2(u0 + j) + (ld2(c->Bn + j) * xn + ld2(c->B1 + j) * x1 + ld2(c->B2 + j) * x2));
      if (c->nb > 1)
        for (int j = 0; j < W; j += 2)
          st2(u1 + j, ld2(u1 + j) + (ld2(c->Bn + W + j) * xn + ld2(c->B1 + W + j) * x1 +
                                     ld2(c->B2 + W + j) * x2));
      continue;
    }
#endif
    for (int j = 0; j < W; ++j) u0[j] += c->Bn[j] * cn + c->B1[j] * f1 + c->B2[j] * f2;
    if (c->nb > 1)
      for (int j = 0; j < W; ++j) u1[j] += c->Bn[W + j] * cn + c->B1[W + j] * f1 + c->B2[W + j] * f2;
  }
}

#if EXACT_AVX2
__attribute__((target("avx2"))) static void scatter_avx2(LsimPgs *ws, const double *z,
                                                         const int *order, int begin, int end) {
  fast_scatter(ws, z, 6, 1, order, begin, end);
}
#endif

/* u += B z over tasks order[begin .. end) at block width W (AVX2 as exact_avx2 says). */
static void scatter_range(LsimPgs *ws, const double *z, int W, const int *order, int begin,
                          int end) {
#if EXACT_AVX2
  if (exact_avx2(ws, W)) {
    scatter_avx2(ws, z, order, begin, end);
    return;
  }
#endif
  if (W == 6) fast_scatter(ws, z, 6, 0, order, begin, end);
  else if (W == 3) fast_scatter(ws, z, 3, 0, order, begin, end);
  else fast_scatter(ws, z, 1, 0, order, begin, end);
}

/* The measures of variables [b, e) (Measures; the products into prod[b ..], their count
 * nprod). The dot product is their sum in that order: a zero left out changes no bit of it
 * but a zero's sign, which its absolute value drops. */
static Measures measure_range(const double *z, const double *w, double *prod, int b, int e) {
  Measures r = {0.0, 0.0, 0.0, 0.0, 1, 0};
  for (int i = b; i < e; ++i) {
    if (!isfinite(z[i]) || !isfinite(w[i])) r.finite = 0;
    const double m = z[i] < w[i] ? z[i] : w[i], p = z[i] * w[i];
    r.natural = r.natural > fabs(m) ? r.natural : fabs(m);
    prod[b + r.nprod] = p, r.nprod += p != 0.0; /* (no branch to mispredict) */
    r.zneg = -z[i] > r.zneg ? -z[i] : r.zneg;
    r.wneg = -w[i] > r.wneg ? -w[i] : r.wneg;
  }
  return r;
}

/* The members' share of fast_exact: scatter of part k (u = B z), or rows of chunk k (w)
 * and then (once every member's rows are written) the measures of variables
 * [n k / T, n (k + 1) / T). */
typedef struct ExactJob {
  LsimPgs *ws;
  const LsimFactoredLcp *f;
  const double *z;
  double *w;
  int W, rows; /* 0: scatter; 1: rows and measures; 2: the zero test (fast_rows_w_stop) */
  int nonzero[LSIM_PGS_MAX_THREADS];          /* rows 2: a row of member k's not zero */
  LsimTeamFlag written[LSIM_PGS_MAX_THREADS]; /* member's rows written */
  Measures meas[LSIM_PGS_MAX_THREADS];
} ExactJob;

static void exact_part(void *arg, int member) {
  ExactJob *j = arg;
  LsimPgs *ws = j->ws;
  const int T = ws->nparts, nt = ws->tasks_n, b = ws->part[member], e = ws->part[member + 1];
  if (!j->rows) {
    scatter_range(ws, j->z, j->W, ws->order, b, e);
    return;
  }
  if (j->rows == 2) {
    /* The zero test of part k's rows, and of the crossing set's on 0: each stops at its
       first row whose min(z, w) is not exactly zero. */
    int nz = j->W == 6   ? fast_rows_w_stop(ws, j->f, j->z, j->w, 6, 1, NULL, 0, ws->order, b, e)
             : j->W == 3 ? fast_rows_w_stop(ws, j->f, j->z, j->w, 3, 1, NULL, 0, ws->order, b, e)
                         : fast_rows_w_stop(ws, j->f, j->z, j->w, 1, 1, NULL, 0, ws->order, b, e);
    if (member == 0 && !nz)
      nz = fast_rows_w_stop(ws, j->f, j->z, j->w, j->W, 1, NULL, 0, ws->order, ws->part[T], nt);
    j->nonzero[member] = nz;
    return;
  }
  /* Rows of part k on member k (its data is in its cache), the crossing set's on 0. */
  rows_range(ws, j->f, j->z, j->w, j->W, ws->order, b, e);
  if (member == 0) rows_range(ws, j->f, j->z, j->w, j->W, ws->order, ws->part[T], nt);
  lsim_team_flag_store(&j->written[member], 1);
  for (int k = 0; k < T; ++k) lsim_team_flag_wait(&j->written[k], 1);
  const int n = j->f->n;
  j->meas[member] = measure_range(j->z, j->w, ws->tmp, (int)((long long)n * member / T),
                                  (int)((long long)n * (member + 1) / T));
}

/* The common residual (lcp.h) of z from z alone on the packed problem: u = B z (a cone's
 * directions through f = P beta on its two tangent columns), then w row by row (a cone's
 * direction rows from its p_0 and p_q rows). Equal to lsim_factored_residual up to
 * rounding, at about half its cost. */
static void fast_exact(LsimPgs *ws, const LsimFactoredLcp *f, const double *z, double *w,
                       double scale, LsimResidual *res, const int W, const int zero_test) {
  double *u = ws->u;
  const int n = f->n;
  if (f->m > 0) memset(u, 0, (size_t)f->m * sizeof(double));
  /* u = B z: with parallel parts, the parts at once (disjoint blocks), then the crossing
     set; else all tasks in the natural order. */
  ExactJob job = {.ws = ws, .f = f, .z = z, .w = w, .W = W, .rows = 0};
  if (ws->nparts) {
    if (ws->table_d > 0) direction_table(ws, ws->table_d);
    if (lsim_pgs_team_on(ws)) lsim_team_run(ws->team, exact_part, &job);
    else for (int k = 0; k < ws->nparts; ++k) exact_part(&job, k);
    scatter_range(ws, z, W, ws->order, ws->part[ws->nparts], ws->tasks_n);
  } else {
    scatter_range(ws, z, W, ws->tasks, 0, ws->tasks_n);
  }
  if (zero_test) {
    /* Only whether the natural residual is 0: stops at the first row where it is not (then
       res->natural is INFINITY, the other measures unset; w is left partial). With the
       team, each member tests its part's rows (the answer is the same). */
    int nonzero = 0;
    if (lsim_pgs_team_on(ws)) {
      job.rows = 2;
      lsim_team_run(ws->team, exact_part, &job);
      for (int k = 0; k < ws->nparts; ++k) nonzero |= job.nonzero[k];
    } else {
      nonzero = fast_rows_w_stop(ws, f, z, w, W, 1, NULL, 0, ws->tasks, 0, ws->tasks_n);
    }
    res->natural = nonzero ? INFINITY : 0.0;
    return;
  }
  /* w row by row: chunks of the tasks at once (each writes its own rows), then the
     measures over equal ranges of the variables; the maxima and flags combine the same in
     any order, and the dot product sums the ranges' products in the variables' order: the
     numbers of one pass over all variables. */
  double natural = 0.0, dot = 0.0, zneg = 0.0, wneg = 0.0;
  int finite = 1;
  if (lsim_pgs_team_on(ws)) {
    const int T = ws->nparts;
    job.rows = 1;
    for (int k = 0; k < T; ++k) lsim_team_flag_init(&job.written[k], 0);
    lsim_team_run(ws->team, exact_part, &job);
    for (int k = 0; k < T; ++k) {
      const Measures *r = &job.meas[k];
      const long long at = (long long)n * k / T;
      finite &= r->finite;
      natural = natural > r->natural ? natural : r->natural;
      for (int i = 0; i < r->nprod; ++i) dot += ws->tmp[at + i];
      zneg = r->zneg > zneg ? r->zneg : zneg;
      wneg = r->wneg > wneg ? r->wneg : wneg;
    }
  } else if (ws->tasks_vars) {
    /* The tasks take the variables in order: each measured as its rows are written. */
    Measures r = {0.0, 0.0, 0.0, 0.0, 1, 0};
#if EXACT_AVX2
    if (exact_avx2(ws, W)) rows_avx2(ws, f, z, w, &r, ws->tasks, 0, ws->tasks_n);
    else
#endif
      (void)fast_rows_w_stop(ws, f, z, w, W, 0, &r, 0, ws->tasks, 0, ws->tasks_n);
    finite = r.finite, natural = r.natural, dot = r.dot, zneg = r.zneg, wneg = r.wneg;
  } else {
    rows_range(ws, f, z, w, W, ws->tasks, 0, ws->tasks_n);
    for (int i = 0; i < n; ++i) {
      if (!isfinite(z[i]) || !isfinite(w[i])) finite = 0;
      const double m = z[i] < w[i] ? z[i] : w[i];
      natural = natural > fabs(m) ? natural : fabs(m);
      dot += z[i] * w[i];
      zneg = -z[i] > zneg ? -z[i] : zneg; /* strict: +0 stays +0 (never "-0.000e+00") */
      wneg = -w[i] > wneg ? -w[i] : wneg;
    }
  }
  if (!finite) natural = dot = zneg = wneg = INFINITY;
  res->natural = natural;
  res->complementarity = fabs(dot);
  res->z_negative = zneg;
  res->w_negative = wneg;
  res->relative = natural / scale;
}

static void fast_exact_w(LsimPgs *ws, const LsimFactoredLcp *f, const double *z, double *w,
                         double scale, LsimResidual *res, int W) {
  if (W == 6) fast_exact(ws, f, z, w, scale, res, 6, 0);
  else if (W == 3) fast_exact(ws, f, z, w, scale, res, 3, 0);
  else fast_exact(ws, f, z, w, scale, res, 1, 0);
}

/* The start's test with tol 0 (natural <= 0): whether the natural residual is exactly 0. */
static void fast_zero_test(LsimPgs *ws, const LsimFactoredLcp *f, const double *z, double *w,
                           double scale, LsimResidual *res, int W) {
  if (W == 6) fast_exact(ws, f, z, w, scale, res, 6, 1);
  else if (W == 3) fast_exact(ws, f, z, w, scale, res, 3, 1);
  else fast_exact(ws, f, z, w, scale, res, 1, 1);
}

/* The driver of run() for the fast path (prepared, width W): start, sweeps, stop test. */
static int run_fast(LsimPgs *ws, FactoredCtx *ctx, int W, double scale,
                    const LsimPgsOptions *opt, int warm, double *z, LsimPgsInfo *info) {
  const LsimFactoredLcp *f = ctx->f;
  const int n = f->n;
  double *w = ws->w;
  if (warm) {
    for (int i = 0; i < n; ++i) z[i] = isfinite(z[i]) && z[i] > 0.0 ? z[i] : 0.0;
  } else {
    memset(z, 0, (size_t)n * sizeof(double));
  }
  LsimResidual r;
  /* With tol 0 the start only asks whether natural <= 0 (the final z's measures are
     recomputed below in any case). */
  if (opt->tol == 0.0) fast_zero_test(ws, f, z, w, scale, &r, W);
  else fast_exact_w(ws, f, z, w, scale, &r, W);
  const double target = opt->tol * scale;
  const int max_sweeps = opt->max_sweeps > 0 ? opt->max_sweeps : 10000;
  const double omega = opt->omega;
  int sweeps = 0, status = LSIM_MAX_ITERATIONS;
  double natural = r.natural;
  if (natural <= target) status = LSIM_SOLVED;
  if (info && info->trace) info->trace_len = 0;
  /* The coloured cones' z in their groups during the sweeps (float values): copied in
     now, back into z before z is read. */
  const int group_z = status != LSIM_SOLVED && lsim_pgs_wide_group_z(ws);
  if (group_z) lsim_pgs_wide_z_in(ws, z);
  if (status != LSIM_SOLVED && opt->tol == 0.0 && !(info && info->trace) && ws->nparts) {
    /* A fixed budget over parts: all sweeps in one hand-off. */
    lsim_pgs_sweep_batch(ws, f, z, omega, W, max_sweeps);
    sweeps = max_sweeps;
  }
  while (status != LSIM_SOLVED && sweeps < max_sweeps) {
    lsim_pgs_sweep_all(ws, f, z, omega, W);
    ++sweeps;
    /* With tol 0 (a fixed budget) and no trace, nothing is tested between sweeps: the
       final measures below tell the rest. */
    if (opt->tol == 0.0 && !(info && info->trace)) continue;
    if (group_z) lsim_pgs_wide_z_out(ws, z);
    rows_range(ws, f, z, w, W, ws->tasks, 0, ws->tasks_n);
    /* max |min(z, w)|, a NaN in either kept (so it stops the run below). */
    natural = 0.0;
    for (int i = 0; i < n; ++i) {
      const double zi = z[i], wi = w[i], a = fabs(zi < wi || zi != zi ? zi : wi);
      natural = a > natural || a != a ? a : natural;
    }
    if (lsim_pgs_after_sweep(info, sweeps, natural, z, n)) {
      status = LSIM_BREAKDOWN;
      break;
    }
    if (natural <= target) {
      fast_exact_w(ws, f, z, w, scale, &r, W);
      if (r.natural <= target) status = LSIM_SOLVED;
    }
  }
  if (group_z) lsim_pgs_wide_z_out(ws, z);
  fast_exact_w(ws, f, z, w, scale, &r, W);
  /* A fixed budget's last iterate may be a solution (natural residual 0 with tol 0). */
  if (status == LSIM_MAX_ITERATIONS && r.natural <= target) status = LSIM_SOLVED;
  if (status != LSIM_BREAKDOWN && !isfinite(r.natural)) {
    /* Divergence the loop did not test for (a fixed budget): z made finite, measured. */
    for (int i = 0; i < n; ++i) z[i] = isfinite(z[i]) ? fmax(z[i], 0.0) : 0.0;
    status = LSIM_BREAKDOWN;
    fast_exact_w(ws, f, z, w, scale, &r, W);
  }
  if (info) info->full = r, info->full_valid = 1, info->bz = ws->u, info->w = w;
  return lsim_pgs_finish(info, status, sweeps, r.natural);
}

int lsim_pgs_solve_factored(LsimPgs *ws, const LsimFactoredLcp *f, const LsimPgsOptions *opt,
                            int warm, double *z, LsimPgsInfo *info) {
  const LsimPgsOptions defaults = lsim_default_pgs_options();
  if (!opt) opt = &defaults;
  if (info) {
    info->trace_len = info->parts = info->crossing = info->simd = info->colours = 0;
    info->row_values = 0, info->bz = NULL, info->w = NULL;
  }
  if (!f || lsim_pgs_check_options(opt) || f->n < 0 || f->m < 0 || (f->n > 0 && !f->q))
    return lsim_pgs_finish(info, LSIM_INVALID_INPUT, 0, INFINITY);
  const int n = f->n, m = f->m;
  if (lsim_pgs_reserve(ws, n, m + FAST_W)) return lsim_pgs_finish(info, LSIM_OUT_OF_MEMORY, 0, INFINITY);
  FactoredCtx ctx = {f, z, ws->u};
  /* A team of opt->threads (kept across solves; for a problem large enough to use it,
     members woken now, spinning by the time the sweeps start). Without one, the same
     parts are swept in this thread. */
  const int T = opt->threads > 1 ? opt->threads : 1;
  ws->threads_now = T;
  if (T > 1 && lsim_team_size(ws->team) != T) {
    lsim_team_free(ws->team);
    if (lsim_team_create(&ws->team, T)) ws->team = NULL;
  }
  if (T > 1 && f->ncones >= PARALLEL_MIN_TASKS) lsim_team_wake(ws->team);
  /* The residual's scale max |q_i| (a NaN is skipped here and refused below) and the
     fast path's first checks, on the team. */
  double scale;
  int scan_bad = scan(ws, f, &scale);
  /* The fast path checks what it reads; anything else is checked whole first. */
  int W = fast_prepare(ws, f, scan_bad);
  /* A problem whose negated directions are implicit (factored.h): the fast path reads p_0
     and p_q alone; where it does not take the problem, every row (the expanded copy),
     and the fast path tried again on it as on any problem. */
  if (!W && f->full) {
    if (!(f = lsim_factored_full(f))) return lsim_pgs_finish(info, LSIM_OUT_OF_MEMORY, 0, INFINITY);
    ctx.f = f;
    scan_bad = scan(ws, f, &scale);
    W = fast_prepare(ws, f, scan_bad);
  }
  if (W && lsim_pgs_partition(ws, f, W, T)) return lsim_pgs_finish(info, LSIM_OUT_OF_MEMORY, 0, INFINITY);
  /* Float rows for a small fixed budget only (tol 0, at most LSIM_PGS_FLOAT_MAX_SWEEPS):
     a tolerance is met on the true rows, and a long budget would end at the float rows'
     floor (residual 5e-5 relative after 10 000 sweeps of box_stack_3d's step 2, 5e-14
     on doubles). */
  const int single = opt->tol == 0.0 && opt->max_sweeps > 0 && opt->max_sweeps <= LSIM_PGS_FLOAT_MAX_SWEEPS;
  if (W && lsim_pgs_colour(ws, f, W, single, opt->precision)) return lsim_pgs_finish(info, LSIM_OUT_OF_MEMORY, 0, INFINITY);
  if (W && info && ws->nparts)
    info->parts = ws->nparts, info->crossing = ws->tasks_n - ws->part[ws->nparts];
  if (W && info && ws->wide_groups) {
    info->simd = ws->wide_path, info->colours = ws->wide_colours;
    info->row_values = lsim_pgs_wide_row_values(ws);
  }
  if (W) return run_fast(ws, &ctx, W, scale > 0.0 ? scale : 1.0, opt, warm, z, info);
  if (lsim_factored_check(f)) return lsim_pgs_finish(info, LSIM_INVALID_INPUT, 0, INFINITY);
  if (m > 0) memset(ws->u, 0, (size_t)m * sizeof(double)); /* factored_diag needs u = 0 */
  return lsim_pgs_run_factored(ws, &ctx, scale > 0.0 ? scale : 1.0, opt, warm, z, info);
}
