/* contact.c: the contact set and contact detection.
 *
 * 1-D worlds: segments [x - w/2, x + w/2] on a line, fixed half-line walls, and ground
 * friction under a known normal load. Segments never overlap, so only neighbours in x
 * order can touch; every segment is tested against every wall.
 *
 * A contact enters the LCP as soon as its gap could close within the step: no body can
 * end a step faster than the fastest free velocity (impacts are inelastic and friction
 * dissipates), so a pair whose gap is at most margin + 2 h max|v_free| is included; the
 * phi/h term of its LCP row keeps it inactive until it actually closes, so nothing
 * tunnels however fast it moves.
 */
#include "contact/contact.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lcp/lcp.h"

void lsim_contacts_clear(LsimContactSet *set) {
  set->count = 0;
  set->nrows = 0;
}

void lsim_contacts_free(LsimContactSet *set) {
  free(set->contacts);
  free(set->rows);
  free(set->scratch);
  memset(set, 0, sizeof *set);
}

LsimContact *lsim_contacts_add(LsimContactSet *set, int nrows) {
  /* Amortized growth: steady state allocates nothing. */
  if (set->count == set->capacity) {
    int cap = set->capacity ? 2 * set->capacity : 16;
    LsimContact *c = realloc(set->contacts, (size_t)cap * sizeof *c);
    if (!c) return NULL;
    set->contacts = c;
    set->capacity = cap;
  }
  if (set->nrows + nrows > set->rows_capacity) {
    int cap = set->rows_capacity ? 2 * set->rows_capacity : 64;
    while (cap < set->nrows + nrows) cap *= 2;
    LsimJacRow *r = realloc(set->rows, (size_t)cap * sizeof *r);
    if (!r) return NULL;
    set->rows = r;
    set->rows_capacity = cap;
  }
  LsimContact *c = &set->contacts[set->count++];
  memset(c, 0, sizeof *c);
  c->first_row = set->nrows;
  c->body[0] = c->body[1] = -1;
  for (int k = 0; k < nrows; ++k) {
    LsimJacRow *r = &set->rows[set->nrows + k];
    memset(r, 0, sizeof *r);
    r->body[0] = r->body[1] = -1;
  }
  set->nrows += nrows;
  return c;
}

uint64_t lsim_contact_id(int a, int b, int feature) {
  /* Readable in the output: body a + 1 in bits 40.., body b + 1 in bits 16..39, the
     feature below. */
  return ((uint64_t)(uint32_t)(a + 1) << 40) | ((uint64_t)((uint32_t)(b + 1) & 0xFFFFFFu) << 16) |
         (uint64_t)(feature & 0xFFFF);
}

/* Features of 1-D contacts. */
enum { FEATURE_TOUCH = 0, FEATURE_GROUND = 1 };

typedef struct {
  double x;
  int body;
} Order;

static int by_position(const void *pa, const void *pb) {
  const Order *a = pa, *b = pb;
  if (a->x < b->x) return -1;
  if (a->x > b->x) return 1;
  return a->body - b->body; /* deterministic for equal centers */
}

/* Adds a frictionless normal contact on body a (against b, which may be static or -1),
 * with gap phi, normal +-x (sign), and gap rate sign*(v_a) - sign*(v_b). */
static int add_normal_1d(LsimContactSet *set, const LsimModel *m, int a, int b, double gap,
                         double sign, double point) {
  LsimContact *c = lsim_contacts_add(set, 1);
  if (!c) return LSIM_OUT_OF_MEMORY;
  c->id = lsim_contact_id(a, b, FEATURE_TOUCH);
  c->kind = LSIM_CONTACT_NORMAL;
  c->body[0] = a;
  c->body[1] = b;
  c->gap = gap;
  c->point[0] = point;
  c->normal[0] = sign;
  LsimJacRow *r = &set->rows[c->first_row];
  r->body[0] = a;
  r->j[0][0] = sign;
  if (b >= 0 && m->bodies[b].nv > 0) {
    r->body[1] = b;
    r->j[1][0] = -sign;
  }
  return 0;
}

static int detect_1d(const LsimModel *m, const LsimState *s, const double *v_free,
                     LsimContactSet *set) {
  const double h = m->time_step;
  /* Speed bound over everything that moves. */
  double vmax = 0.0;
  for (int i = 0; i < m->nbodies; ++i)
    if (m->bodies[i].nv > 0) vmax = fmax(vmax, fabs(v_free[m->bodies[i].v_offset]));
  const double reach = m->contact_margin + 2.0 * h * vmax;

  /* Moving segments in x order; neighbours may touch. */
  int nmov = 0;
  for (int i = 0; i < m->nbodies; ++i) nmov += m->bodies[i].nq > 0;
  if ((size_t)nmov * sizeof(Order) > set->scratch_bytes) {
    void *grown = realloc(set->scratch, (size_t)nmov * sizeof(Order));
    if (!grown) return LSIM_OUT_OF_MEMORY;
    set->scratch = grown;
    set->scratch_bytes = (size_t)nmov * sizeof(Order);
  }
  Order *order = set->scratch;
  int k = 0;
  for (int i = 0; i < m->nbodies; ++i)
    if (m->bodies[i].nq > 0) order[k++] = (Order){s->q[m->bodies[i].q_offset], i};
  qsort(order, (size_t)nmov, sizeof *order, by_position);

  int rc = 0;
  for (int k2 = 0; k2 + 1 < nmov && !rc; ++k2) {
    const int left = order[k2].body, right = order[k2 + 1].body;
    const LsimBody *bl = &m->bodies[left], *br = &m->bodies[right];
    if (bl->type != LSIM_BODY_DYNAMIC && br->type != LSIM_BODY_DYNAMIC) continue;
    const double left_edge = order[k2 + 1].x - 0.5 * br->width;
    const double gap = left_edge - (order[k2].x + 0.5 * bl->width);
    if (gap > reach) continue;
    /* body[0] = the right one, normal +x: gap rate = v_right - v_left. */
    rc = add_normal_1d(set, m, right, left, gap, 1.0, left_edge);
  }

  /* Every moving segment against every wall. */
  for (int w = 0; w < m->nbodies && !rc; ++w) {
    const LsimBody *wall = &m->bodies[w];
    if (wall->type != LSIM_BODY_STATIC || wall->shape != LSIM_SHAPE_HALFLINE) continue;
    const double X = wall->pose[0];
    for (int i = 0; i < m->nbodies && !rc; ++i) {
      const LsimBody *b = &m->bodies[i];
      if (b->type != LSIM_BODY_DYNAMIC) continue;
      const double x = s->q[b->q_offset];
      const double gap = wall->side < 0 ? (x - 0.5 * b->width) - X : X - (x + 0.5 * b->width);
      if (gap > reach) continue;
      rc = add_normal_1d(set, m, i, w, gap, wall->side < 0 ? 1.0 : -1.0, X);
    }
  }

  /* Ground friction under the normal load m g_n: the brick of the Tedrake appendix. */
  for (int i = 0; i < m->nbodies && !rc; ++i) {
    const LsimBody *b = &m->bodies[i];
    if (b->type != LSIM_BODY_DYNAMIC || !(b->ground_mu > 0.0)) continue;
    LsimContact *c = lsim_contacts_add(set, 2);
    if (!c) {
      rc = LSIM_OUT_OF_MEMORY;
      break;
    }
    c->id = lsim_contact_id(i, -1, FEATURE_GROUND);
    c->kind = LSIM_CONTACT_FIXED_NORMAL;
    c->body[0] = i;
    c->point[0] = s->q[b->q_offset];
    c->normal[1] = 1.0; /* perpendicular to the line: the ground's normal */
    c->mu = b->ground_mu;
    c->ndir = 2;
    c->dir[0][0] = 1.0;
    c->dir[1][0] = -1.0;
    c->normal_load = b->mass * m->ground_normal_gravity * h;
    for (int d = 0; d < 2; ++d) {
      LsimJacRow *r = &set->rows[c->first_row + d];
      r->body[0] = i;
      r->j[0][0] = c->dir[d][0];
    }
  }
  return rc;
}

int lsim_detect_contacts(const LsimModel *model, const LsimState *state, const double *v_free,
                         LsimContactSet *set) {
  lsim_contacts_clear(set);
  if (model->dimension == 1) return detect_1d(model, state, v_free, set);
  return LSIM_INVALID_INPUT;
}
