/* step_memory.c: what a step carries over to the next besides the state (step.h,
 * LsimStepMemory): read out of a stepper after a step, and given to a new stepper so that
 * its next step is the one the first stepper would have taken.
 *
 * A step depends on the state (q, v, time, step) and on three memories of the steps
 * before it: the warm start (the last step's LCP values by contact id, and sparse Lemke's
 * final basis), and with sleeping on, the sleep counters and groups, the impulse cache of
 * sleeping groups and the tether and joint impulses last carried awake. Everything else
 * in the stepper is workspace rebuilt by every step (the broad phase's sweep order is kept
 * too, but only as the start of a sort whose result is the same from any start).
 *
 * Derived parts are rebuilt, not stored: the id tables (lsim_step_remember,
 * lsim_sleep_cache_table), each contact's first variable (its values are stored
 * concatenated in order), a sleeper's frozen coordinates (its coordinates in the state:
 * the step never touches them). Failure modes: out of memory; a memory that does not fit
 * the model (LSIM_INVALID_INPUT, the first inconsistency named).
 */
#include "contact/step_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Resizes *p to n elements of size elem (at least one). 0 or LSIM_OUT_OF_MEMORY. */
static int fit(void **p, int n, size_t elem) {
  void *q = realloc(*p, (size_t)(n > 0 ? n : 1) * elem);
  if (!q) return LSIM_OUT_OF_MEMORY;
  *p = q;
  return 0;
}

#define FIT(ptr, n)                                                                            \
  do {                                                                                         \
    if (fit((void **)&mem->ptr, (n), sizeof *mem->ptr)) return LSIM_OUT_OF_MEMORY;             \
  } while (0)

int lsim_stepper_memory_get(const LsimStepper *s, const LsimModel *m, LsimStepMemory *mem) {
  /* Warm start: the contacts in order, values concatenated. */
  const int nc = s->prev_count;
  int nz = 0;
  for (int c = 0; c < nc; ++c) nz += s->prev_nvar[c] >= 0 ? s->prev_nvar[c] : -1 - s->prev_nvar[c];
  FIT(id, nc);
  FIT(nvar, nc);
  FIT(z, nz);
  FIT(basis, nz);
  mem->basis_valid = s->prev_bvalid;
  int at = 0;
  for (int c = 0; c < nc; ++c) {
    const int k = s->prev_nvar[c] >= 0 ? s->prev_nvar[c] : -1 - s->prev_nvar[c];
    mem->id[c] = s->prev_id[c];
    mem->nvar[c] = k;
    for (int i = 0; i < k; ++i) {
      mem->z[at + i] = s->prev_z[s->prev_var[c] + i];
      mem->basis[at + i] = s->prev_bvalid ? s->prev_b[s->prev_var[c] + i] : 0;
    }
    at += k;
  }
  mem->ncontacts = nc, mem->nz = nz;

  /* Sleeping. */
  mem->sleep = s->asleep != NULL;
  mem->nbodies = mem->sleep ? m->nbodies : 0;
  mem->ncache = mem->ncache_z = mem->ntethers = mem->njoints = 0;
  if (!mem->sleep) return 0;
  const int nb = m->nbodies;
  FIT(asleep, nb);
  FIT(rest_steps, nb);
  FIT(group, nb);
  for (int i = 0; i < nb; ++i)
    mem->asleep[i] = s->asleep[i], mem->rest_steps[i] = s->rest_steps[i], mem->group[i] = s->group[i];
  const int ne = s->ncache;
  FIT(cache_id, ne);
  FIT(cache_nvar, ne);
  FIT(cache_body, 2 * ne);
  FIT(cache_z, s->cache_zlen);
  int zl = 0;
  for (int e = 0; e < ne; ++e) {
    mem->cache_id[e] = s->cache_id[e];
    mem->cache_body[2 * e] = s->cache_body[2 * e], mem->cache_body[2 * e + 1] = s->cache_body[2 * e + 1];
    mem->cache_nvar[e] = s->cache_nvar[e];
    memcpy(mem->cache_z + zl, s->cache_z + s->cache_var[e], (size_t)s->cache_nvar[e] * sizeof(double));
    zl += s->cache_nvar[e];
  }
  mem->ncache = ne, mem->ncache_z = zl;
  mem->ntethers = m->ntethers, mem->njoints = m->njoints;
  FIT(last_tether, m->ntethers);
  FIT(last_joint, 3 * m->njoints);
  for (int i = 0; i < m->ntethers; ++i) mem->last_tether[i] = s->last_tether ? s->last_tether[i] : 0.0;
  for (int i = 0; i < 3 * m->njoints; ++i) mem->last_joint[i] = s->last_joint ? s->last_joint[i] : 0.0;
  return 0;
}

void lsim_step_memory_free(LsimStepMemory *mem) {
  if (!mem) return;
  free(mem->id), free(mem->nvar), free(mem->z), free(mem->basis);
  free(mem->asleep), free(mem->rest_steps), free(mem->group);
  free(mem->cache_id), free(mem->cache_body), free(mem->cache_nvar), free(mem->cache_z);
  free(mem->last_tether), free(mem->last_joint);
  memset(mem, 0, sizeof *mem);
}

/* LCP variables a contact may have at most: c_n, d directions, lambda. */
#define MAX_NVAR (LSIM_MAX_DIRECTIONS + 2)

/* The checks of lsim_stepper_memory_set, before anything changes: the first
 * inconsistency in err. */
static int check(const LsimModel *m, const LsimStepMemory *mem, char *err, size_t errlen) {
  if (mem->ncontacts < 0 || mem->nz < 0 || (mem->ncontacts > 0 && (!mem->id || !mem->nvar)) ||
      (mem->nz > 0 && !mem->z)) {
    snprintf(err, errlen, "warm start: %d contacts, %d values: inconsistent sizes", mem->ncontacts, mem->nz);
    return LSIM_INVALID_INPUT;
  }
  int nz = 0;
  for (int c = 0; c < mem->ncontacts; ++c) {
    if (mem->nvar[c] < 0 || mem->nvar[c] > MAX_NVAR) {
      snprintf(err, errlen, "warm start: contact %d has %d variables (0 .. %d)", c, mem->nvar[c], MAX_NVAR);
      return LSIM_INVALID_INPUT;
    }
    nz += mem->nvar[c];
  }
  if (nz != mem->nz) {
    snprintf(err, errlen, "warm start: the contacts have %d variables, the values are %d", nz, mem->nz);
    return LSIM_INVALID_INPUT;
  }
  if (mem->basis_valid && mem->nz > 0 && !mem->basis) {
    snprintf(err, errlen, "warm start: the final basis is missing");
    return LSIM_INVALID_INPUT;
  }
  if (mem->sleep != (m->sleep.enabled != 0)) {
    snprintf(err, errlen, "sleeping is %s in the memory, %s in the scene", mem->sleep ? "on" : "off",
             m->sleep.enabled ? "on" : "off");
    return LSIM_INVALID_INPUT;
  }
  if (!mem->sleep) return 0;
  if (mem->nbodies != m->nbodies || mem->ntethers != m->ntethers || mem->njoints != m->njoints) {
    snprintf(err, errlen, "sleeping: %d bodies, %d tethers, %d joints in the memory, %d, %d, %d in "
             "the scene", mem->nbodies, mem->ntethers, mem->njoints, m->nbodies, m->ntethers, m->njoints);
    return LSIM_INVALID_INPUT;
  }
  for (int i = 0; i < m->nbodies; ++i) {
    if (mem->asleep[i] != 0 && (mem->asleep[i] != 1 || m->bodies[i].type != LSIM_BODY_DYNAMIC)) {
      snprintf(err, errlen, "sleeping: body '%s' marked asleep (%d) but %s", m->bodies[i].name,
               mem->asleep[i], m->bodies[i].type != LSIM_BODY_DYNAMIC ? "not dynamic" : "the mark is not 0 or 1");
      return LSIM_INVALID_INPUT;
    }
    if (mem->rest_steps[i] < 0 || (mem->asleep[i] && (mem->group[i] < 0 || mem->group[i] >= m->nbodies))) {
      snprintf(err, errlen, "sleeping: body '%s': rest steps %d, group %d out of range",
               m->bodies[i].name, mem->rest_steps[i], mem->group[i]);
      return LSIM_INVALID_INPUT;
    }
  }
  int zl = 0;
  for (int e = 0; e < mem->ncache; ++e) {
    const int a = mem->cache_body[2 * e], b = mem->cache_body[2 * e + 1];
    if (a < -1 || a >= m->nbodies || b < -1 || b >= m->nbodies || mem->cache_nvar[e] <= 0 ||
        mem->cache_nvar[e] > MAX_NVAR) {
      snprintf(err, errlen, "sleeping: impulse cache entry %d: bodies %d, %d, %d variables out of "
               "range", e, a, b, mem->cache_nvar[e]);
      return LSIM_INVALID_INPUT;
    }
    zl += mem->cache_nvar[e];
  }
  if (zl != mem->ncache_z) {
    snprintf(err, errlen, "sleeping: the impulse cache's entries have %d values, it holds %d", zl,
             mem->ncache_z);
    return LSIM_INVALID_INPUT;
  }
  return 0;
}

int lsim_stepper_memory_set(LsimStepper *s, const LsimModel *m, const LsimState *st,
                            const LsimStepMemory *mem, char *err, size_t errlen) {
  int rc = check(m, mem, err, errlen);
  if (rc) return rc;
  /* Warm start: ids, sizes, each contact's first value, then the id table. */
  const int nc = mem->ncontacts, nz = mem->nz;
  int cap = s->prev_cap;
  if (lsim_grow((void **)&s->prev_id, &cap, nc, sizeof(uint64_t))) goto oom;
  if (cap != s->prev_cap) {
    int *pv = realloc(s->prev_var, (size_t)cap * sizeof(int));
    if (!pv) goto oom;
    s->prev_var = pv;
    int *pn = realloc(s->prev_nvar, (size_t)cap * sizeof(int));
    if (!pn) goto oom;
    s->prev_nvar = pn;
    s->prev_cap = cap;
  }
  if (lsim_grow((void **)&s->prev_z, &s->prev_zcap, nz, sizeof(double))) goto oom;
  if (mem->basis_valid && lsim_grow((void **)&s->prev_b, &s->prev_bcap, nz, 1)) goto oom;
  int at = 0;
  for (int c = 0; c < nc; ++c) {
    s->prev_id[c] = mem->id[c], s->prev_var[c] = at, s->prev_nvar[c] = mem->nvar[c];
    for (int i = 0; i < mem->nvar[c]; ++i) {
      s->prev_z[at + i] = mem->z[at + i];
      if (mem->basis_valid) s->prev_b[at + i] = mem->basis[at + i] != 0;
    }
    at += mem->nvar[c];
  }
  s->prev_bvalid = mem->basis_valid != 0;
  if (lsim_step_remember(s, nc)) goto oom;
  if (!mem->sleep) return 0;

  /* Sleeping: flags, counters, groups; sleepers frozen where the state has them. */
  s->nasleep = 0;
  for (int i = 0; i < m->nbodies; ++i) {
    s->asleep[i] = (unsigned char)mem->asleep[i];
    s->rest_steps[i] = mem->rest_steps[i];
    s->group[i] = mem->group[i];
    s->mark[i] = 0;
    if (!s->asleep[i]) continue;
    ++s->nasleep;
    const LsimBody *b = &m->bodies[i];
    memcpy(s->sleep_q + b->q_offset, st->q + b->q_offset, (size_t)b->nq * sizeof(double));
  }
  /* The impulse cache, its values concatenated in order, and its table. */
  const int ne = mem->ncache;
  if (lsim_sleep_cache_reserve(s, ne)) goto oom;
  if (lsim_grow((void **)&s->cache_z, &s->cache_zcap, mem->ncache_z, sizeof(double))) goto oom;
  at = 0;
  for (int e = 0; e < ne; ++e) {
    s->cache_id[e] = mem->cache_id[e];
    s->cache_body[2 * e] = mem->cache_body[2 * e], s->cache_body[2 * e + 1] = mem->cache_body[2 * e + 1];
    s->cache_var[e] = at, s->cache_nvar[e] = mem->cache_nvar[e];
    memcpy(s->cache_z + at, mem->cache_z + at, (size_t)mem->cache_nvar[e] * sizeof(double));
    at += mem->cache_nvar[e];
  }
  s->ncache = ne, s->cache_zlen = at, s->cache_dirty = 0;
  if (lsim_sleep_cache_table(s)) goto oom;
  /* The impulses tethers and joints last carried awake. */
  if (m->ntethers > 0 || m->njoints > 0) {
    if (!s->last_tether && !(s->last_tether = calloc((size_t)m->ntethers + 1, sizeof(double)))) goto oom;
    if (!s->last_joint && !(s->last_joint = calloc(3 * (size_t)m->njoints + 1, sizeof(double)))) goto oom;
    if (m->ntethers > 0) memcpy(s->last_tether, mem->last_tether, (size_t)m->ntethers * sizeof(double));
    if (m->njoints > 0) memcpy(s->last_joint, mem->last_joint, 3 * (size_t)m->njoints * sizeof(double));
  }
  return 0;
oom:
  snprintf(err, errlen, "out of memory");
  return LSIM_OUT_OF_MEMORY;
}
