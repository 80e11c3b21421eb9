/* sleep.c: bodies at rest go to sleep, in groups (model->sleep; docs/solvers.md "Islands").
 *
 * As Box2D v3 (solver sets), ODE (auto-disable) and Bullet (deactivation) do: each
 * dynamic body counts the consecutive steps over which its speeds stay at or below the
 * thresholds, |v| <= linear_speed and |omega| <= angular_speed, with no applied force and
 * nothing moving pushing it (a moving kinematic body, a moving anchor). Under gravity a
 * group must also be held from outside: some member pressed on a static, kinematic or
 * world body (a contact or taut tether with a positive impulse in the step) or jointed to
 * one; else a body thrown up would sleep at the top of its flight. After each step
 * the awake dynamic bodies are grouped by union-find over that step's contacts, tethers
 * and joints between dynamic bodies (and 1-D couplings): a group sleeps when every member
 * has been at rest for `time` (ceil(time / h) steps). A sleeping body's velocity is set
 * to zero and kept there; it is skipped by the free velocities and the integration (its
 * coordinates are not touched, to the bit) and its contacts with static bodies and with
 * other sleepers leave the LCP. Detection still runs over it, so that at the next step
 *   - a contact, tether or joint row tying a sleeper to an awake dynamic body, a moving
 *     kinematic body or a moving anchor wakes its whole group (then the free velocities
 *     and detection are redone with the group awake, and so on while groups wake);
 *   - a non-zero applied force on a sleeper, or a velocity or position set in the state
 *     from outside (a controller, the API), wakes its group at the start of the step;
 *   - lsim_stepper_wake wakes one body's group.
 * A woken group's contacts are warm started from their impulses of the step the group
 * fell asleep (a cache by contact id, kept while one of the contact's bodies sleeps).
 *
 * Cost: O(bodies + contacts) a step (a union-find with path halving), plus O(cached
 * contacts) on the steps where a group falls asleep or wakes; memory grows only with the
 * contacts of sleeping groups.
 *
 * Failure modes: out of memory for the impulse cache (the step returns it). Sleeping changes results (a resting body no longer
 * creeps by the solver's residual motion), which is why it is off by default; with it off
 * none of this runs and the step is unchanged.
 */
#include "contact/step_private.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int lsim_sleep_init(LsimStepper *s, const LsimModel *m) {
  if (!m->sleep.enabled) return 0;
  const size_t n = (size_t)m->nbodies + 1;
  s->asleep = calloc(n, 1);
  s->mark = calloc(n, 1);
  s->held = calloc(n, 1);
  s->rest_steps = calloc(n, sizeof(int));
  s->group = calloc(n, sizeof(int));
  s->group_min = calloc(n, sizeof(int));
  s->sleep_q = calloc((size_t)m->nq + 1, sizeof(double));
  if (!s->asleep || !s->mark || !s->held || !s->rest_steps || !s->group || !s->group_min ||
      !s->sleep_q)
    return LSIM_OUT_OF_MEMORY;
  /* Steps at rest before sleeping: time / h, rounded up (a tolerance keeps 0.5 / 0.01 at
     50 despite its rounding). */
  const double steps = ceil(m->sleep.time / m->time_step - 1e-9);
  s->rest_needed = steps < 1.0 ? 1 : steps > (double)INT_MAX ? INT_MAX : (int)steps;
  return 0;
}

void lsim_sleep_free(LsimStepper *s) {
  free(s->asleep), free(s->mark), free(s->held), free(s->rest_steps), free(s->group);
  free(s->group_min);
  free(s->sleep_q);
  s->sleep_q = NULL;
  free(s->cache_id), free(s->cache_body), free(s->cache_var), free(s->cache_nvar);
  free(s->cache_z), free(s->cache_table);
  s->cache_id = NULL, s->cache_body = s->cache_var = s->cache_nvar = NULL;
  s->cache_z = NULL, s->cache_table = NULL;
  s->ncache = s->cache_cap = s->cache_zlen = s->cache_zcap = s->cache_table_size = 0;
  s->asleep = s->mark = NULL;
  s->rest_steps = s->group = s->group_min = NULL;
}

int lsim_stepper_sleeping(const LsimStepper *s, const unsigned char **flags) {
  if (flags) *flags = s->asleep;
  return s->nasleep;
}

/* Wakes every sleeper whose group is marked, clears the marks; returns how many woke. */
static int wake_marked(LsimStepper *s) {
  int woke = 0;
  for (int i = 0; i < s->nbodies; ++i)
    if (s->asleep[i] && s->mark[s->group[i]]) s->asleep[i] = 0, s->rest_steps[i] = 0, ++woke;
  for (int i = 0; i < s->nbodies; ++i) s->mark[i] = 0;
  s->nasleep -= woke;
  s->cache_dirty |= woke > 0; /* their cached impulses go after this step's warm start */
  return woke;
}

void lsim_stepper_wake(LsimStepper *s, int body) {
  if (!s->asleep || body < 0 || body >= s->nbodies || !s->asleep[body]) return;
  s->mark[s->group[body]] = 1;
  (void)wake_marked(s);
}

/* Whether body b has an applied force at time t (any component non-zero). */
static int has_force(const LsimBody *b, double t) {
  for (int d = 0; d < b->nv; ++d)
    if (lsim_schedule_eval_component(&b->force, t, d) != 0.0) return 1;
  return 0;
}

/* Whether velocity slice v of nv components is not all zero. */
static int moving(const double *v, int nv) {
  for (int d = 0; d < nv; ++d)
    if (v[d] != 0.0) return 1;
  return 0;
}

int lsim_sleep_wake_inputs(LsimStepper *s, const LsimModel *m, const LsimState *st) {
  if (s->nasleep == 0) return 0;
  int any = 0;
  for (int i = 0; i < m->nbodies; ++i) {
    if (!s->asleep[i]) continue;
    const LsimBody *b = &m->bodies[i];
    const int moved = memcmp(st->q + b->q_offset, s->sleep_q + b->q_offset, (size_t)b->nq * sizeof(double)) != 0;
    if (moved || moving(st->v + b->v_offset, b->nv) || has_force(b, st->time)) s->mark[s->group[i]] = 1, any = 1;
  }
  return any ? wake_marked(s) : 0;
}

/* Whether body o (may be < 0: the world) moves this step as seen from a sleeper touching
 * it: an awake dynamic body, or a kinematic one with a non-zero prescribed velocity
 * (v_free holds it). */
static int pushes(const LsimStepper *s, const LsimModel *m, int o) {
  if (o < 0) return 0;
  const LsimBody *b = &m->bodies[o];
  if (b->type == LSIM_BODY_DYNAMIC) return !s->asleep[o];
  if (b->type == LSIM_BODY_KINEMATIC) return moving(s->v_free + b->v_offset, b->nv);
  return 0;
}

int lsim_sleep_wake_contacts(LsimStepper *s, const LsimModel *m) {
  if (s->nasleep == 0) return 0;
  const LsimContactSet *set = &s->contacts;
  int any = 0;
  for (int c = 0; c < set->count; ++c) {
    const LsimContact *ct = &set->contacts[c];
    for (int k = 0; k < 2; ++k) {
      const int x = ct->body[k], o = ct->body[1 - k];
      if (x < 0 || !s->asleep[x]) continue;
      /* A moving anchor's row has a non-zero bias (its d psi / dt). */
      if (pushes(s, m, o) || ct->bias != 0.0) s->mark[s->group[x]] = 1, any = 1;
    }
  }
  return any ? wake_marked(s) : 0;
}

/* Whether body i is dynamic and awake. */
static int awake_dynamic(const LsimStepper *s, const LsimModel *m, int i) {
  return i >= 0 && m->bodies[i].type == LSIM_BODY_DYNAMIC && !s->asleep[i];
}

void lsim_sleep_drop_contacts(LsimStepper *s, const LsimModel *m) {
  s->nrest = 0;
  if (s->nasleep == 0) return;
  LsimContactSet *set = &s->contacts;
  /* Compaction in order: a kept contact and its rows move down (rows are contiguous per
     contact, in contact order). */
  int kept = 0, nrows = 0;
  for (int c = 0; c < set->count; ++c) {
    const LsimContact *ct = &set->contacts[c];
    const int r0 = ct->first_row;
    const int r1 = c + 1 < set->count ? set->contacts[c + 1].first_row : set->nrows;
    if (!awake_dynamic(s, m, ct->body[0]) && !awake_dynamic(s, m, ct->body[1])) {
      /* A sleeping group's tether and joint rows are kept aside (lsim_step reports them). */
      if ((ct->kind == LSIM_CONTACT_TETHER || ct->kind == LSIM_CONTACT_EQUALITY) &&
          !lsim_grow((void **)&s->rest_contacts, &s->rest_cap, s->nrest + 1, sizeof(LsimContact)) &&
          !lsim_grow((void **)&s->rest_rows, &s->rest_rows_cap, s->nrest + 1, sizeof(LsimJacRow))) {
        s->rest_contacts[s->nrest] = *ct;
        s->rest_rows[s->nrest++] = set->rows[r0];
      }
      continue;
    }
    if (nrows != r0)
      for (int r = r0; r < r1; ++r) set->rows[nrows + r - r0] = set->rows[r];
    if (kept != c) set->contacts[kept] = *ct;
    set->contacts[kept].first_row = nrows;
    nrows += r1 - r0;
    ++kept;
  }
  set->count = kept;
  set->nrows = nrows;
}

/* ---- the impulse cache ---- */

static inline unsigned cache_slot(uint64_t id, int size) {
  return (unsigned)((id * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & (unsigned)(size - 1);
}

const double *lsim_sleep_cached(const LsimStepper *s, uint64_t id, int nvar) {
  if (s->ncache == 0 || nvar <= 0) return NULL;
  const int size = s->cache_table_size;
  for (unsigned h = cache_slot(id, size);; h = (h + 1) & (unsigned)(size - 1)) {
    const IdIndex *e = &s->cache_table[h];
    if (e->stamp == 0) return NULL;
    if (e->id != id) continue;
    return s->cache_nvar[e->index] == nvar ? s->cache_z + s->cache_var[e->index] : NULL;
  }
}

/* Whether body i (may be < 0) is asleep. */
/* Room for n entries in the impulse cache's per-entry arrays (id, bodies, first variable,
   count); the values (cache_z) grow apart. */
int lsim_sleep_cache_reserve(LsimStepper *s, int n) {
  int cap = s->cache_cap;
  if (lsim_grow((void **)&s->cache_id, &cap, n, sizeof(uint64_t))) return LSIM_OUT_OF_MEMORY;
  if (cap != s->cache_cap) {
    int *pb = realloc(s->cache_body, 2 * (size_t)cap * sizeof(int));
    if (pb) s->cache_body = pb;
    int *pv = realloc(s->cache_var, (size_t)cap * sizeof(int));
    if (pv) s->cache_var = pv;
    int *pn = realloc(s->cache_nvar, (size_t)cap * sizeof(int));
    if (pn) s->cache_nvar = pn;
    if (!pb || !pv || !pn) return LSIM_OUT_OF_MEMORY;
    s->cache_cap = cap;
  }
  return 0;
}

static int sleeping(const LsimStepper *s, int i) { return i >= 0 && s->asleep[i]; }

/* Drops the entries none of whose bodies sleeps (compacting), appends this step's
 * contacts of the groups that have just fallen asleep (fresh: both bodies asleep or
 * static, their z this step's solution), and rebuilds the lookup table. */
static int cache_update(LsimStepper *s, int fell_asleep) {
  if (s->cache_dirty) {
    int k = 0, zl = 0;
    for (int e = 0; e < s->ncache; ++e) {
      if (!sleeping(s, s->cache_body[2 * e]) && !sleeping(s, s->cache_body[2 * e + 1])) continue;
      const int nv = s->cache_nvar[e], from = s->cache_var[e];
      s->cache_id[k] = s->cache_id[e];
      s->cache_body[2 * k] = s->cache_body[2 * e], s->cache_body[2 * k + 1] = s->cache_body[2 * e + 1];
      memmove(s->cache_z + zl, s->cache_z + from, (size_t)nv * sizeof(double));
      s->cache_var[k] = zl, s->cache_nvar[k] = nv;
      zl += nv, ++k;
    }
    s->ncache = k, s->cache_zlen = zl;
  }
  if (fell_asleep) {
    const LsimContactSet *set = &s->contacts;
    for (int c = 0; c < set->count; ++c) {
      const LsimContact *ct = &set->contacts[c];
      const int nv = contact_nvar(ct);
      const int a = ct->body[0], b = ct->body[1];
      if (nv == 0 || !(sleeping(s, a) || sleeping(s, b))) continue;
      if (lsim_sleep_cache_reserve(s, s->ncache + 1)) return LSIM_OUT_OF_MEMORY;
      if (lsim_grow((void **)&s->cache_z, &s->cache_zcap, s->cache_zlen + nv, sizeof(double)))
        return LSIM_OUT_OF_MEMORY;
      const int e = s->ncache++;
      s->cache_id[e] = ct->id;
      s->cache_body[2 * e] = a, s->cache_body[2 * e + 1] = b;
      s->cache_var[e] = s->cache_zlen, s->cache_nvar[e] = nv;
      memcpy(s->cache_z + s->cache_zlen, s->z + ct->first_var, (size_t)nv * sizeof(double));
      s->cache_zlen += nv;
    }
  }
  if (!s->cache_dirty && !fell_asleep) return 0;
  s->cache_dirty = 0;
  return lsim_sleep_cache_table(s);
}

int lsim_sleep_cache_table(LsimStepper *s) {
  /* The table: a power of two at least twice the entries, first entry of an id wins. */
  int size = 16;
  while (size < 2 * s->ncache) size *= 2;
  if (size > s->cache_table_size) {
    IdIndex *t = realloc(s->cache_table, (size_t)size * sizeof *t);
    if (!t) return LSIM_OUT_OF_MEMORY;
    s->cache_table = t, s->cache_table_size = size;
  }
  size = s->cache_table_size;
  for (int i = 0; i < size; ++i) s->cache_table[i].stamp = 0;
  for (int e = 0; e < s->ncache; ++e) {
    unsigned h = cache_slot(s->cache_id[e], size);
    while (s->cache_table[h].stamp && s->cache_table[h].id != s->cache_id[e]) h = (h + 1) & (unsigned)(size - 1);
    if (!s->cache_table[h].stamp) s->cache_table[h] = (IdIndex){s->cache_id[e], e, 1};
  }
  return 0;
}

/* Union-find root of i with path halving. */
static int find(int *parent, int i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

static void unite(int *parent, int a, int b) {
  a = find(parent, a), b = find(parent, b);
  if (a != b) parent[a < b ? b : a] = a < b ? a : b; /* the smaller index is the root */
}

int lsim_sleep_update(LsimStepper *s, const LsimModel *m, LsimState *st) {
  const int dim = m->dimension;
  const double l2 = m->sleep.linear_speed * m->sleep.linear_speed;
  const double a2 = m->sleep.angular_speed * m->sleep.angular_speed;
  /* Rest steps of the awake dynamic bodies: linear speed over the translational
     components, angular over the rotational ones (2-D: omega; 3-D: omega's norm). */
  for (int i = 0; i < m->nbodies; ++i) {
    if (!awake_dynamic(s, m, i)) continue;
    const LsimBody *b = &m->bodies[i];
    const double *v = st->v + b->v_offset;
    const int nlin = dim == 1 ? 1 : dim;
    double lin = 0.0, ang = 0.0;
    for (int d = 0; d < nlin; ++d) lin += v[d] * v[d];
    for (int d = nlin; d < b->nv; ++d) ang += v[d] * v[d];
    const int rest = lin <= l2 && ang <= a2 && !has_force(b, st->time);
    s->rest_steps[i] = rest ? (s->rest_steps[i] < INT_MAX ? s->rest_steps[i] + 1 : INT_MAX) : 0;
    s->group[i] = i;
    s->held[i] = 0;
  }
  /* Groups: contacts and rows between awake dynamic bodies, and couplings; a body pushed
     by a moving kinematic body or anchor is not at rest. */
  const LsimContactSet *set = &s->contacts;
  for (int c = 0; c < set->count; ++c) {
    const LsimContact *ct = &set->contacts[c];
    const int a = ct->body[0], b = ct->body[1];
    const int da = awake_dynamic(s, m, a), db = awake_dynamic(s, m, b);
    if (da && db) {
      unite(s->group, a, b);
      if (ct->bias != 0.0) s->rest_steps[a] = 0;
      continue;
    }
    const int x = da ? a : db ? b : -1, o = da ? b : a;
    if (x < 0) continue;
    /* Held from outside: a joint row, or a contact or tether row that pushes or pulls in
       this step (its first variable: the normal or tether impulse), or 1-D ground
       friction under its known normal load. */
    const int v = ct->first_var;
    if (ct->kind == LSIM_CONTACT_EQUALITY || ct->kind == LSIM_CONTACT_FIXED_NORMAL ||
        (v >= 0 && v < s->f.n && s->z[v] > 0.0))
      s->held[x] = 1;
    if (ct->bias != 0.0 ||
        (o >= 0 && m->bodies[o].type == LSIM_BODY_KINEMATIC &&
         moving(st->v + m->bodies[o].v_offset, m->bodies[o].nv)))
      s->rest_steps[x] = 0;
  }
  for (int k = 0; k < m->ncouplings; ++k) {
    const int a = m->couplings[k].body[0], b = m->couplings[k].body[1];
    if (awake_dynamic(s, m, a) && awake_dynamic(s, m, b)) unite(s->group, a, b);
  }
  /* Each group's fewest rest steps and whether it is held, then the groups at rest long
     enough to sleep (under gravity: held ones only). */
  const int gravity = m->gravity[0] != 0.0 || m->gravity[1] != 0.0 || m->gravity[2] != 0.0;
  for (int i = 0; i < m->nbodies; ++i)
    if (awake_dynamic(s, m, i)) s->group_min[i] = INT_MAX;
  for (int i = 0; i < m->nbodies; ++i) {
    if (!awake_dynamic(s, m, i)) continue;
    const int r = find(s->group, i);
    if (s->rest_steps[i] < s->group_min[r]) s->group_min[r] = s->rest_steps[i];
    s->held[r] |= s->held[i]; /* per root now: some member held */
  }
  int fell = 0;
  for (int i = 0; i < m->nbodies; ++i) {
    if (!awake_dynamic(s, m, i)) continue;
    const int r = find(s->group, i);
    if (s->group_min[r] < s->rest_needed || (gravity && !s->held[r])) continue;
    ++fell;
    s->group[i] = r; /* the group a wake-up names */
    s->asleep[i] = 1;
    ++s->nasleep;
    const LsimBody *b = &m->bodies[i];
    for (int d = 0; d < b->nv; ++d) st->v[b->v_offset + d] = 0.0;
    memcpy(s->sleep_q + b->q_offset, st->q + b->q_offset, (size_t)b->nq * sizeof(double));
  }
  return cache_update(s, fell > 0);
}
