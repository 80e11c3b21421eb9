/* pgs_team.c: parallel sweeps of the PGS fast path: the partition of the tasks into
 * parts that share no block of u and a crossing set, and the team's sweeps over them
 * (results depend on the member count only). */
#include "pgs_private.h"

#include <stdalign.h>
#include <stdatomic.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- parallel sweeps: parts that share no block of u ----
 *
 * With T > 1 members, the tasks are split into T parts and a crossing set. The blocks of
 * u (the bodies, for the time step's rows) are ordered breadth first over the graph whose
 * edges are the two-block tasks, from a pseudo-peripheral block (the last one reached from
 * any start), component after component, so that the order runs across a pile like a
 * front; that order is cut into T ranges holding about equal numbers of tasks, and a task
 * belongs to part k when all its blocks lie in range k, to the crossing set otherwise. A
 * part's boundary is its tasks on a block the crossing set touches, the rest its
 * interior. Every sweep is the Gauss-Seidel sweep in the order boundary 0, ..., boundary
 * T-1, crossing set, interior 0, ..., interior T-1 (each in the natural order). Parts touch
 * disjoint entries of u and z, and no interior touches the crossing set's, so member k
 * sweeps its boundary, member 0 the crossing set once every boundary of that sweep is
 * done, and member k its interior meanwhile; a boundary waits only for the crossing set of
 * the sweep before (sweep_part). The numbers depend on T and the problem only, never on
 * the machine, the run or the scheduling. Tasks that read or
 * write anything outside their blocks (scalars with C couplings, cones without a block)
 * are crossing tasks. Problems below PARALLEL_MIN_TASKS tasks, with blocks not aligned to
 * W, or with cones of two different direction counts that need the direction table, keep
 * the natural order in one thread. Should the team not start, the same order is swept in
 * one thread (the same numbers). */

/* Breadth-first search from start over the blocks not yet marked tag; marks them tag,
 * writes them into queue in visiting order and returns their number. */
static int bfs(const int *ptr, const int *adj, int start, int *mark, int tag, int *queue) {
  int head = 0, tail = 0;
  queue[tail++] = start;
  mark[start] = tag;
  while (head < tail) {
    const int v = queue[head++];
    for (int k = ptr[v]; k < ptr[v + 1]; ++k)
      if (mark[adj[k]] != tag) mark[adj[k]] = tag, queue[tail++] = adj[k];
  }
  return tail;
}

/* Task's blocks of u (offset / W; -1 for none) into a, b; returns 1 when it is a crossing
 * task whatever its blocks (it reads or writes beyond them), 0 otherwise, -1 when a block
 * is not aligned to W. */
static int task_blocks(const LsimPgs *ws, int task, int m, int W, int *a, int *b) {
  int oa, ob, crossing;
  if (task < 0) {
    const FastScalar *sc = &ws->fs[-task - 1];
    oa = sc->nb > 0 && sc->o[0] < m ? sc->o[0] : -1;
    ob = sc->nb > 1 && sc->o[1] < m ? sc->o[1] : -1;
    crossing = sc->has_c;
  } else {
    /* The compact copy (a cone without blocks writes the pad: crossing). */
    oa = ws->cone_o[2 * task], ob = ws->cone_o[2 * task + 1];
    crossing = oa < 0;
  }
  /* The divisions by the constant widths (a multiply, not a divide). */
  const int qa = W == 6 ? oa / 6 : W == 3 ? oa / 3 : oa, qb = W == 6 ? ob / 6 : W == 3 ? ob / 3 : ob;
  if ((oa >= 0 && qa * W != oa) || (ob >= 0 && qb * W != ob)) return -1;
  *a = oa >= 0 ? qa : -1, *b = ob >= 0 ? qb : -1;
  return crossing;
}

/* The partition's last pass: each task's group (into lo[t]) and its place in ws->order,
 * group by group, the natural order within each. Member k takes the tasks
 * [nt k / M, nt (k + 1) / M): counts them per group, waits for every member's counts and
 * places its tasks after the earlier ranges' tasks of each group: the one pass's order. */
typedef struct GroupJob {
  LsimPgs *ws;
  int *lo;
  const int *hi, *ta, *tb, *crossed;
  int nt, T, M; /* M: members taking part (1: the caller alone) */
  int count[LSIM_PGS_MAX_THREADS][2 * LSIM_PGS_MAX_THREADS + 1]; /* [member][group] */
  LsimTeamFlag counted[LSIM_PGS_MAX_THREADS];                    /* member's counts made */
} GroupJob;

static void order_groups(void *arg, int member) {
  GroupJob *j = arg;
  const int T = j->T, M = j->M, G = 2 * T + 1;
  const int b = (int)((long long)j->nt * member / M), e = (int)((long long)j->nt * (member + 1) / M);
  int *lo = j->lo, *cnt = j->count[member];
  for (int g = 0; g < G; ++g) cnt[g] = 0;
  for (int t = b; t < e; ++t) {
    int g = 2 * T;
    if (j->hi[t] != T) {
      const int a = j->ta[t], bb = j->tb[t];
      g = 2 * j->hi[t] + !((a >= 0 && j->crossed[a]) || (bb >= 0 && j->crossed[bb]));
    }
    cnt[g]++;
    lo[t] = g;
  }
  if (M > 1) {
    lsim_team_flag_store(&j->counted[member], 1);
    for (int k = 0; k < M; ++k) lsim_team_flag_wait(&j->counted[k], 1);
  }
  /* This range's first place per group: the groups before it, then the earlier ranges'
     tasks of the group. */
  int fill[2 * LSIM_PGS_MAX_THREADS + 1];
  for (int g = 0, start = 0; g < G; ++g) {
    int total = 0, before = 0;
    for (int k = 0; k < M; ++k) total += j->count[k][g], before += k < member ? j->count[k][g] : 0;
    fill[g] = start + before;
    start += total;
  }
  for (int t = b; t < e; ++t) j->ws->order[fill[lo[t]]++] = j->ws->tasks[t];
}

/* Sets ws->nparts, ws->part, ws->inner and ws->order for T members (nparts 0: natural
 * order). */
int lsim_pgs_partition(LsimPgs *ws, const LsimFactoredLcp *f, int W, int T) {
  ws->nparts = 0;
  const int nt = ws->tasks_n, m = f->m, nblk = W > 0 ? m / W : 0;
  /* The direction table is shared: at most one count other than 2 may need it (the
     sweeps use it for d > 4, the exact residual for d >= 4). */
  if (T < 2 || nt < PARALLEL_MIN_TASKS || nblk < 2 || ws->table_d < 0) return 0;
  /* Scratch: lo, hi, ta, tb [nt]; ptr [nblk + 1]; adj [2 nt]; mark, queue, part_of [nblk]. */
  const size_t need = (size_t)6 * nt + 4 * (size_t)nblk + 1;
  if (need > INT_MAX || lsim_grow((void **)&ws->graph, &ws->graph_cap, (int)need, sizeof(int)) ||
      lsim_grow((void **)&ws->order, &ws->order_cap, nt, sizeof(int)))
    return LSIM_OUT_OF_MEMORY;
  int *lo = ws->graph, *hi = lo + nt, *ta = hi + nt, *tb = ta + nt, *ptr = tb + nt;
  int *adj = ptr + nblk + 1, *mark = adj + 2 * nt, *queue = mark + nblk, *part_of = queue + nblk;
  /* Each task's blocks (ta, tb: block indices, -1 none), and as lo, hi (lo -2: a crossing
     task). */
  for (int t = 0; t < nt; ++t) {
    const int crossing = task_blocks(ws, ws->tasks[t], m, W, &ta[t], &tb[t]);
    if (crossing < 0) return 0;
    lo[t] = crossing ? -2 : ta[t];
    hi[t] = tb[t];
  }
  /* The block graph (CSR; an edge per two-block task, but one for a run of tasks on the
     same pair, such as a manifold's points: the repeat would follow its first entry in
     both lists, where the searches below skip it anyway, so the order is the same). */
  for (int v = 0; v <= nblk; ++v) ptr[v] = 0;
  for (int t = 0; t < nt; ++t)
    if (lo[t] >= 0 && hi[t] >= 0 && !(t > 0 && lo[t] == lo[t - 1] && hi[t] == hi[t - 1]))
      ptr[lo[t] + 1]++, ptr[hi[t] + 1]++;
  for (int v = 0; v < nblk; ++v) ptr[v + 1] += ptr[v];
  for (int v = 0; v < nblk; ++v) mark[v] = ptr[v]; /* fill positions */
  for (int t = 0; t < nt; ++t)
    if (lo[t] >= 0 && hi[t] >= 0 && !(t > 0 && lo[t] == lo[t - 1] && hi[t] == hi[t - 1]))
      adj[mark[lo[t]]++] = hi[t], adj[mark[hi[t]]++] = lo[t];
  /* Breadth-first order, component by component, each from a pseudo-peripheral block. */
  for (int v = 0; v < nblk; ++v) mark[v] = -1;
  int placed = 0;
  for (int i = 0; i < 2 * nt + nblk; ++i) {
    /* Seeds: the blocks in the order the tasks first touch them, then the untouched ones
       (so components, and the fronts within one, follow the natural order where they can:
       parts then come in long runs of it, and members rarely write one cache line). */
    const int s = i < 2 * nt ? (i & 1 ? hi[i / 2] : lo[i / 2]) : i - 2 * nt;
    if (s < 0 || mark[s] != -1) continue;
    const int k = bfs(ptr, adj, s, mark, -2, queue + placed);
    placed += bfs(ptr, adj, queue[placed + k - 1], mark, -3, queue + placed);
  }
  int *rank = mark;
  for (int i = 0; i < nblk; ++i) rank[queue[i]] = i;
  /* Tasks as rank ranges [lo, hi]; counts of the highest rank. */
  int *count = queue; /* [nblk], reused */
  for (int v = 0; v < nblk; ++v) count[v] = 0;
  int ranked = 0;
  for (int t = 0; t < nt; ++t) {
    if (lo[t] == -2) continue;
    const int ra = lo[t] >= 0 ? rank[lo[t]] : 0, rb = hi[t] >= 0 ? rank[hi[t]] : ra;
    lo[t] = ra < rb ? ra : rb, hi[t] = ra < rb ? rb : ra;
    count[hi[t]]++, ranked++;
  }
  /* Cuts at about equal shares of the tasks by highest rank: range p = [cut_p, cut_p+1). */
  int p = 0, acc = 0;
  for (int v = 0; v < nblk; ++v) {
    while (p < T - 1 && (long long)acc * T >= (long long)(p + 1) * ranked) ++p;
    part_of[v] = p;
    acc += count[v];
  }
  /* Parts numbered in the order the natural order first meets them (so part k holds
     about the k-th slice of the natural order, which member k prepared: its data is in
     that member's cache already). */
  int renum[LSIM_PGS_MAX_THREADS + 1];
  for (int k = 0; k <= T; ++k) renum[k] = -1;
  renum[T] = T;
  int next = 0;
  for (int t = 0; t < nt; ++t) {
    const int k = lo[t] == -2 || part_of[lo[t]] != part_of[hi[t]] ? T : part_of[lo[t]];
    if (renum[k] < 0) renum[k] = next++;
    hi[t] = renum[k]; /* hi now holds the task's part */
  }
  /* A part's boundary: its tasks on a block the crossing set touches. The order: each
     part's boundary then its interior (each in the natural order), then the crossing
     set; a sweep runs the boundaries, the crossing set, then the interiors (below). */
  int *crossed = mark; /* [nblk], the ranks are done with */
  for (int v = 0; v < nblk; ++v) crossed[v] = 0;
  for (int t = 0; t < nt; ++t) {
    if (hi[t] != T) continue;
    if (ta[t] >= 0) crossed[ta[t]] = 1;
    if (tb[t] >= 0) crossed[tb[t]] = 1;
  }
  /* Each task's group and the order (groups 2k boundary, 2k + 1 interior, 2T crossing):
     on the team, each member an equal range of the tasks (order_groups). */
  GroupJob job = {.ws = ws, .lo = lo, .hi = hi, .ta = ta, .tb = tb, .crossed = crossed, .nt = nt,
                  .T = T};
  job.M = lsim_team_size(ws->team) == T ? T : 1;
  for (int k = 0; k < job.M; ++k) lsim_team_flag_init(&job.counted[k], 0);
  if (job.M > 1) lsim_team_run(ws->team, order_groups, &job);
  else order_groups(&job, 0);
  int fill[2 * LSIM_PGS_MAX_THREADS + 2] = {0}; /* groups: 2k boundary, 2k + 1 interior */
  for (int k = 0; k < job.M; ++k)
    for (int g = 0; g <= 2 * T; ++g) fill[g + 1] += job.count[k][g];
  for (int g = 0; g <= 2 * T; ++g) fill[g + 1] += fill[g];
  for (int k = 0; k <= T; ++k) ws->part[k] = fill[2 * k];
  for (int k = 0; k < T; ++k) ws->inner[k] = fill[2 * k + 1];
  ws->nparts = T;
  return 0;
}

/* Whether this solve's parts run on the team (else one thread does all). */
int lsim_pgs_team_on(const LsimPgs *ws) {
  return ws->nparts > 1 && lsim_team_size(ws->team) == ws->nparts;
}

typedef struct SweepJob {
  LsimPgs *ws;
  const LsimFactoredLcp *f;
  double *z;
  double omega;
  int W;
  int sweeps;                                  /* sweeps to run */
  LsimTeamFlag boundary[LSIM_PGS_MAX_THREADS]; /* member k's boundaries done: sweeps
                                                  finished */
  LsimTeamFlag crossing;                       /* the crossing set: sweeps finished */
} SweepJob;

/* Range r (2k boundary k, 2k + 1 interior k, 2T the crossing set) = ws->order[b, e):
 * coloured and wide when the coloured sweep is on, else in the natural order. */
static void sweep_unit(LsimPgs *ws, const LsimFactoredLcp *f, double *z, double omega, int W,
                       int r, int b, int e) {
  if (ws->wide_nranges) lsim_pgs_wide_sweep_range(ws, f, z, omega, r);
  else lsim_pgs_fast_sweep_range(ws, f, z, omega, W, ws->order, b, e);
}

/* Member k's share of the sweeps, in the order boundaries, crossing set, interiors. Its
 * boundary of sweep s waits for the crossing set of sweep s - 1 (they share blocks); the
 * crossing set (member 0) waits for every boundary of sweep s; an interior touches no
 * block of the crossing set, so it runs while the crossing set does: the same iterates
 * as that order one task at a time, with each member at most about a sweep ahead of the
 * others rather than held at a barrier every sweep. Without a crossing set nothing waits. */
static void sweep_part(void *arg, int member) {
  SweepJob *j = arg;
  LsimPgs *ws = j->ws;
  const int T = ws->nparts, crossing = ws->part[T] < ws->tasks_n;
  for (int s = 0; s < j->sweeps; ++s) {
    if (crossing && s > 0) lsim_team_flag_wait(&j->crossing, s);
    sweep_unit(ws, j->f, j->z, j->omega, j->W, 2 * member, ws->part[member], ws->inner[member]);
    if (crossing) {
      lsim_team_flag_store(&j->boundary[member], s + 1);
      if (member == 0) {
        for (int k = 1; k < T; ++k) lsim_team_flag_wait(&j->boundary[k], s + 1);
        sweep_unit(ws, j->f, j->z, j->omega, j->W, 2 * T, ws->part[T], ws->tasks_n);
        lsim_team_flag_store(&j->crossing, s + 1);
      }
    }
    sweep_unit(ws, j->f, j->z, j->omega, j->W, 2 * member + 1, ws->inner[member],
               ws->part[member + 1]);
  }
}

/* sweeps sweeps of the parts: on the team in one hand-off, or in this thread in the same
 * order (every boundary, the crossing set, every interior, sweep after sweep). */
void lsim_pgs_sweep_batch(LsimPgs *ws, const LsimFactoredLcp *f, double *z, double omega, int W,
                        int sweeps) {
  if (ws->table_d > 0) direction_table(ws, ws->table_d);
  const int T = ws->nparts;
  if (lsim_pgs_team_on(ws)) {
    SweepJob job = {.ws = ws, .f = f, .z = z, .omega = omega, .W = W, .sweeps = sweeps};
    for (int k = 0; k < T; ++k) lsim_team_flag_init(&job.boundary[k], 0);
    lsim_team_flag_init(&job.crossing, 0);
    lsim_team_run(ws->team, sweep_part, &job);
    return;
  }
  for (int s = 0; s < sweeps; ++s) {
    for (int k = 0; k < T; ++k) sweep_unit(ws, f, z, omega, W, 2 * k, ws->part[k], ws->inner[k]);
    sweep_unit(ws, f, z, omega, W, 2 * T, ws->part[T], ws->tasks_n);
    for (int k = 0; k < T; ++k)
      sweep_unit(ws, f, z, omega, W, 2 * k + 1, ws->inner[k], ws->part[k + 1]);
  }
}

/* One sweep: the natural order, or the parts' order above. */
void lsim_pgs_sweep_all(LsimPgs *ws, const LsimFactoredLcp *f, double *z, double omega, int W) {
  if (!ws->nparts) {
    if (ws->wide_nranges) lsim_pgs_wide_sweep_range(ws, f, z, omega, 0);
    else lsim_pgs_fast_sweep_range(ws, f, z, omega, W, ws->tasks, 0, ws->tasks_n);
    return;
  }
  lsim_pgs_sweep_batch(ws, f, z, omega, W, 1);
}

/* Whether min(z, w) is exactly zero with both finite (a row that keeps the natural
 * residual at 0). */
