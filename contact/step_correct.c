/* step_correct.c: stage 6b of the time step, the position correction of deep overlaps
 * (post-stabilisation, Cline & Pai, "Post-stabilization for rigid body simulation with
 * contact and constraints", ICRA 2003).
 *
 * The velocity LCP of the step asks each normal row J v' >= -max(gap, -s) / h: it removes
 * at most the slop s = min(LSIM_CORRECTION_SLOP, max_correction_speed h) of a penetration
 * per step (step_lcp.c, cq_range). What is deeper is removed here, by moving positions,
 * never velocities: with g = gap + h J v' the contact's gap after the step (linearised),
 * the normal rows of the step's contacts (no friction, the step's Jacobian J and B = W J',
 * so a joint elimination's B keeps joints in place) solve
 *
 *   0 <= lambda  _|_  J B lambda - t >= 0,      dq = B lambda,
 *   t = min(-s - g, max_correction_speed h)   when g < -s   (deep: shrink it),
 *   t = min(0, -g)                            otherwise     (never close nor deepen it),
 *
 * and dq (generalized displacement: translations, rotation vectors) is added to the
 * positions of awake dynamic bodies. A deep contact's overlap thus shrinks by
 * max_correction_speed h a step (or to s at once when less is left) whatever the chain
 * above it, and no body's velocity changes: the correction adds potential energy (the
 * lift it takes to separate the bodies), never kinetic energy.
 *
 * Solver: projected Gauss-Seidel on the rows, from lambda = 0, until no update changes a
 * row's w by more than 0.1 s (what is left, under the slop, the next step's velocity row
 * takes), or LSIM_CORRECTION_SWEEPS sweeps. An unfinished solve leaves some overlap,
 * which the next step sees again: it cannot add speed. Rows that cannot act (target met
 * at rest, bodies unmoved) are skipped, and a row's J_i B_i is built on its first visit,
 * so the cost follows the deep contacts' reach.
 * With joints, dq is linearised along them: it is scaled by alpha <= 1 so that no body
 * turns by more than sqrt(2 s / R) (R its reach), which keeps each body's part of the
 * joint error it leaves within s; a contact the joints nearly hold would else ask for radians (two boxes pinned
 * with overlapping ends turned 2.5 rad in a step and gained 1361 J in the next).
 * Failure modes: none reported; a non-finite displacement (a NaN in the step's rows) is
 * not applied. A contact the joints keep shut is never separated: it is corrected again
 * every step (a pin point inside both shapes: detection drops that pair,
 * lsim_shapes_collide; other cases: "collide": false is the remedy).
 */
#include <math.h>
#include <string.h>

#include "contact/step_private.h"
#include "lcp/lcp.h"
#include "lcp/solver.h"
#include "lcp/team.h"

/* w_i = J_i . x over row i's entries. */
static double j_dot(const LsimFactoredLcp *f, int i, const double *x) {
  double w = 0.0;
  for (int k = f->J_ptr[i]; k < f->J_ptr[i + 1]; ++k) w += f->J_val[k] * x[f->J_idx[k]];
  return w;
}

/* Whether row i's indices in J are distinct: at most two runs of consecutive indices
   (a row's bodies' velocity blocks, as the assembly writes them) that do not overlap.
   Other rows answer 0 (then the general sum below serves). */
static int j_row_distinct(const LsimFactoredLcp *f, int i) {
  const int a = f->J_ptr[i], e = f->J_ptr[i + 1];
  int run[2][2], nrun = 0; /* [first, end) of each run */
  for (int k = a; k < e;) {
    int l = k + 1;
    while (l < e && f->J_idx[l] == f->J_idx[l - 1] + 1) ++l;
    if (nrun == 2) return 0;
    run[nrun][0] = f->J_idx[k], run[nrun][1] = f->J_idx[l - 1] + 1, ++nrun;
    k = l;
  }
  return nrun < 2 || run[0][1] <= run[1][0] || run[1][1] <= run[0][0];
}

/* J_i B_i without scratch: for each entry of J's row, the sum of B's column entries of
   the same coordinate (in B's order, as a scatter into zeros would add them). Rows hold
   a few entries (up to 12), so the double loop is short. When B shares J's pattern and
   the row's indices are distinct (the usual rows), each sum is the one entry at the same
   position: w = sum_k J_k B_k, the same bits (0 + b = b but for the sign of a zero, and
   w, from +0, cannot tell a zero's sign). */
static double j_b_diagonal(const LsimFactoredLcp *f, int i) {
  double w = 0.0;
  if (f->B_ptr == f->J_ptr && f->B_idx == f->J_idx && j_row_distinct(f, i)) {
    for (int k = f->J_ptr[i]; k < f->J_ptr[i + 1]; ++k) w += f->J_val[k] * f->B_val[k];
    return w;
  }
  for (int k = f->J_ptr[i]; k < f->J_ptr[i + 1]; ++k) {
    double x = 0.0;
    for (int l = f->B_ptr[i]; l < f->B_ptr[i + 1]; ++l)
      if (f->B_idx[l] == f->J_idx[k]) x += f->B_val[l];
    w += f->J_val[k] * x;
  }
  return w;
}

/* J_row . v as row_dot (step_private.h) adds it, the bodies' velocities read from the
   stepper's packed table rather than the model's body records. */
static double row_dot_packed(const LsimStepper *s, const LsimJacRow *r, const double *x) {
  double w = 0.0;
  for (int k = 0; k < 2; ++k) {
    if (r->body[k] < 0) continue;
    const LsimBodyDofs bd = s->dofs[r->body[k]];
    const double *j = r->j[k], *xb = x + bd.v_offset;
    if (bd.nv == 6) { /* a 3-D body: the same sum in the same order, unrolled */
      w += j[0] * xb[0], w += j[1] * xb[1], w += j[2] * xb[2];
      w += j[3] * xb[3], w += j[4] * xb[4], w += j[5] * xb[5];
    } else {
      for (int d = 0; d < bd.nv; ++d) w += j[d] * xb[d];
    }
  }
  return w;
}

double lsim_correction_slop(const LsimModel *m) {
  const double cap = m->max_correction_speed * m->time_step;
  return cap < LSIM_CORRECTION_SLOP ? cap : LSIM_CORRECTION_SLOP;
}

/* At most this many members share the row pass below (on the solver's team from
   s->team_min_contacts contacts). */
enum { MAX_ROWS_PARTS = 64 };

/* How many contacts ahead the row pass asks for a contact's normal row. */
enum { CORRECT_PREFETCH = 4 };

/* The row pass of contacts [0, count), member k of T the range [count k / T,
   count (k + 1) / T): its rows written in order from pc_row + (the range's first
   contact), their number and how many are deep. */
typedef struct RowsJob {
  LsimStepper *s;
  const double *v;
  double h, slop, step_max;
  int count, T;
  int nrows[MAX_ROWS_PARTS], deep[MAX_ROWS_PARTS];
} RowsJob;

static void rows_slice(void *arg, int member) {
  RowsJob *j = arg;
  const LsimStepper *s = j->s;
  const LsimContactSet *set = &s->contacts;
  const LsimFactoredLcp *f = &s->f;
  const int c0 = (int)((long long)j->count * member / j->T);
  const int c1 = (int)((long long)j->count * (member + 1) / j->T);
  const double h = j->h, slop = j->slop, step_max = j->step_max;
  LsimCorrectionRow *rows = s->pc_row + c0;
  int nrows = 0, deep = 0;
  for (int c = c0; c < c1; ++c) {
    const LsimContactHot *ct = &s->hot[c]; /* kind, gap, bodies, first_row, first_var */
#if defined(__GNUC__)
    /* The normal row CORRECT_PREFETCH contacts on, asked for now: the contacts are in the
       sweep's order, their rows in detection's, a miss the hardware does not foresee (the
       row's first load had a third of this pass's samples at 10 000 bodies). */
    if (c + CORRECT_PREFETCH < c1) {
      const char *ahead = (const char *)&set->rows[s->hot[c + CORRECT_PREFETCH].first_row];
      __builtin_prefetch(ahead), __builtin_prefetch(ahead + 64);
      __builtin_prefetch(ahead + sizeof(LsimJacRow) - 1);
    }
#endif
    if (ct->kind != LSIM_CONTACT_NORMAL) continue;
    const double g = ct->gap + h * row_dot_packed(s, &set->rows[ct->first_row], j->v);
    if (!isfinite(g)) continue;
    LsimCorrectionRow *r = rows + nrows;
    r->diag = 0.0, r->lambda = 0.0;
    if (g < -slop) {
      /* A deep row counts only if some dynamic body moves along it. */
      const double d = j_b_diagonal(f, ct->first_var);
      if (!(d > 0.0)) continue;
      const double need = -slop - g;
      r->target = need < step_max ? need : step_max;
      r->diag = d;
      ++deep;
    } else {
      r->target = g < 0.0 ? 0.0 : -g;
    }
    r->var = ct->first_var, r->body[0] = ct->body[0], r->body[1] = ct->body[1];
    ++nrows;
  }
  j->nrows[member] = nrows, j->deep[member] = deep;
}

int lsim_step_correct_positions(LsimStepper *s, const LsimModel *m, LsimState *st) {
  const LsimContactSet *set = &s->contacts;
  const LsimFactoredLcp *f = &s->f;
  const double h = m->time_step, slop = lsim_correction_slop(m);
  const double step_max = m->max_correction_speed * h;
  if (f->n == 0 || set->count == 0) return 0;
  if (lsim_grow((void **)&s->pc_row, &s->pc_row_cap, set->count, sizeof(LsimCorrectionRow)))
    return LSIM_OUT_OF_MEMORY;
  /* The rows, in one pass over the contacts: each normal contact's gap after the step g
     and its target t. Most steps have no contact deeper than the slop (then nothing else
     is done), and a row's J_i B_i is built only when it is deep or first visited below
     (for every contact of every step, they had been 17 % of the settled 1000-box pile's
     step). */
  LsimCorrectionRow *rows = s->pc_row;
  LsimTeam *team = set->count >= s->team_min_contacts ? lsim_solver_team(s->solver) : NULL;
  RowsJob job = {s, st->v, h, slop, step_max, set->count, lsim_team_size(team), {0}, {0}};
  if (job.T > MAX_ROWS_PARTS) job.T = 1, team = NULL;
  if (job.T > 1) lsim_team_run(team, rows_slice, &job);
  else rows_slice(&job, 0);
  /* The members' rows moved to follow each other (each was written from its range's
     first contact) when some row is deep (else they are not read). */
  int nrows = 0, deep = 0;
  for (int k = 0; k < job.T; ++k) deep += job.deep[k];
  for (int k = 0; deep > 0 && k < job.T; ++k) {
    const int c0 = (int)((long long)set->count * k / job.T);
    if (c0 != nrows) memmove(rows + nrows, rows + c0, (size_t)job.nrows[k] * sizeof *rows);
    nrows += job.nrows[k];
  }
  if (deep == 0) return 0;
  /* Projected Gauss-Seidel on 0 <= lambda _|_ J B lambda - t >= 0, dq = B lambda. A row
     whose target is met at dq = 0 (t <= 0) and whose bodies have not moved keeps
     lambda = 0: it is skipped, so a few deep contacts in a large pile cost their
     neighbourhood only. moved [nbodies]: the body's dq is non-zero (a row moves its own
     bodies only unless joints or a coupled mass spread B: then no row is skipped). */
  const int skip = s->ne == 0 && !s->mass;
  double *dq = s->pc_dq;
  unsigned char *moved = s->pc_moved;
  const double tol = 0.1 * slop;
  for (int sweep = 0; sweep < LSIM_CORRECTION_SWEEPS; ++sweep) {
    double change = 0.0;
    for (int r = 0; r < nrows; ++r) {
      LsimCorrectionRow *row = rows + r;
      if (skip && row->target <= 0.0 && row->lambda == 0.0 && !moved[row->body[0]] &&
          (row->body[1] < 0 || !moved[row->body[1]]))
        continue;
      const int i = row->var;
      /* J_i B_i on the row's first visit: most rows of a large pile are never visited. A
         row along which no dynamic body moves (<= 0) is marked and left. */
      if (row->diag == 0.0) {
        const double d = j_b_diagonal(f, i);
        row->diag = d > 0.0 ? d : -1.0;
      }
      if (row->diag < 0.0) continue;
      double lambda = row->lambda + (row->target - j_dot(f, i, dq)) / row->diag;
      if (lambda < 0.0) lambda = 0.0;
      const double dl = lambda - row->lambda;
      if (dl == 0.0) continue;
      for (int k = f->B_ptr[i]; k < f->B_ptr[i + 1]; ++k) dq[f->B_idx[k]] += f->B_val[k] * dl;
      moved[row->body[0]] = 1;
      if (row->body[1] >= 0) moved[row->body[1]] = 1;
      row->lambda = lambda;
      if (fabs(dl) * row->diag > change) change = fabs(dl) * row->diag;
    }
    if (change <= tol) break;
  }
  memset(moved, 0, (size_t)m->nbodies);
  /* With joints, dq is a linearised move along them: a body turned by theta leaves its
     joint points off by up to R theta^2 / 2 (R its reach), which the next step's joint
     rows take back as velocity (error / h). A contact the joints nearly hold (its row's
     B tiny) asks for radians. So dq is scaled by alpha <= 1 that keeps every body's turn
     within theta_max = sqrt(2 s / R): each body's part of the joint error it leaves
     stays within the slop s.
     alpha dq still deepens no row (J dq >= t with t <= 0 gives alpha J dq >= t), it only
     separates less; without joints dq is applied whole. */
  double alpha = 1.0;
  if (s->ne > 0) {
    for (int i = 0; i < m->nbodies; ++i) {
      const LsimBody *b = &m->bodies[i];
      if (b->type != LSIM_BODY_DYNAMIC || b->nv < 3) continue;
      const double *d = dq + b->v_offset;
      const double turn = m->dimension < 3 ? fabs(d[2]) : sqrt(d[3] * d[3] + d[4] * d[4] + d[5] * d[5]);
      const double reach = lsim_body_reach(m, i);
      if (!(turn > 0.0) || !(reach > 0.0)) continue;
      const double theta_max = sqrt(2.0 * slop / reach);
      if (turn * alpha > theta_max) alpha = theta_max / turn;
    }
  }
  /* dq to the positions of awake dynamic bodies (3-D: the rotation vector turns the
     orientation, as stage 6 does with h w'); dq is left zero. */
  int finite = 1;
  for (int i = 0; i < m->nv; ++i) finite = finite && isfinite(dq[i]);
  for (int i = 0; finite && i < m->nbodies; ++i) {
    const LsimBody *b = &m->bodies[i];
    if (b->type != LSIM_BODY_DYNAMIC || b->nq == 0 || (s->asleep && s->asleep[i])) continue;
    const double *d = dq + b->v_offset;
    double *q = st->q + b->q_offset;
    if (m->dimension < 3) {
      for (int k = 0; k < b->nq; ++k) q[k] += alpha * d[k];
      continue;
    }
    for (int k = 0; k < 3; ++k) q[k] += alpha * d[k];
    double rq[4], nq[4];
    lsim_quat_from_rotvec(rq, d + 3, alpha);
    lsim_quat_mul(nq, rq, q + 3);
    lsim_quat_normalize(nq);
    memcpy(q + 3, nq, sizeof nq);
  }
  memset(dq, 0, (size_t)m->nv * sizeof(double));
  return 0;
}
