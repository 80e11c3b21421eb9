/* contact.c: the contact set and contact detection.
 *
 * 1-D worlds: segments [x - w/2, x + w/2] on a line, fixed half-line walls, and ground
 * friction under a known normal load. Segments never overlap, so only neighbours in x
 * order can touch; every segment is tested against every wall.
 *
 * 2-D and 3-D worlds: every shape's world pose and bounding box (grown by what its body
 * can travel in the step), a sort-and-sweep broad phase on x, then the narrow phase
 * (geometry.c) on the pairs whose boxes overlap (from 64 shapes, each box meets only the
 * boxes of its bands along a second axis: the same pairs in the same order, see Bands);
 * each manifold point becomes a contact with a normal row and d friction direction rows
 * (the polyhedral cone), with the pair's mu = sqrt(mu_a mu_b). Each shape is placed (rotation matrix, axes) once per step, not
 * once per pair. Cost: O(S log S) for the first sort, about O(S) afterwards (an insertion
 * sort of the previous step's order), plus the overlapping pairs. With a thread team
 * (set->team) and at least PARALLEL_MIN_SHAPES shapes, the placing, the narrow phase and
 * the writing of contacts and rows are split over its members, with the same result.
 * Where the CPU has AVX, a 3-D contact's direction rows are written four at a time in its
 * lanes (fill_rows4_avx), each lane the scalar operations in their order: the same bits.
 *
 * 2-D / 3-D: a pair enters when its gap is at most margin + h (speed_a + speed_b) +
 * LSIM_TOUCH_REACH, each speed the body's own bound at its free velocity (raised to
 * set->speed_floor when the step detects again because its impulses sped a body past it:
 * lsim_contacts_missed, contact/step_admit.c): shapes touching to rounding (a row of balls at 0.2, 0.4,
 * 0.6000000000000001 m: gap 5.6e-17 m) are in the step even at rest, so that an impulse
 * passed along the row within the step meets them (without it, the middle ball of a
 * struck row at rest moved a whole step's travel, 6.7 mm at 0.67 m/s, into the next).
 *
 * 1-D: a contact enters the LCP as soon as its gap could close within the step: no body can
 * end a step faster than the fastest free velocity (impacts are inelastic and friction
 * dissipates), so a pair whose gap is at most margin + 2 h max|v_free| is included; the
 * phi/h term of its LCP row keeps it inactive until it actually closes, so nothing
 * tunnels however fast it moves.
 */
#include "contact/contact.h"

#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "contact/geometry.h"
#include "contact/math3.h"
#include "lcp/lcp.h"
#include "lcp/team.h"

/* The pair's friction coefficient sqrt(mu_a mu_b), mu_a, mu_b >= 0 finite. The product is
 * used as it is whenever it is a normal number (every ordinary pair: bit for bit as ever);
 * when it would overflow (both mu above about 1e154: it was inf, and every step's LCP was
 * refused as invalid input) or underflow (both below about 1e-154: it was 0, no friction),
 * sqrt(mu_a) sqrt(mu_b) instead. */
static double pair_mu(double a, double b) {
  const double p = a * b;
  if ((p >= DBL_MIN && isfinite(p)) || a == 0.0 || b == 0.0) return sqrt(p);
  return sqrt(a) * sqrt(b);
}

void lsim_contacts_clear(LsimContactSet *set) {
  set->count = 0;
  set->nrows = 0;
}

static void free_parallel(LsimContactSet *set);
static void free_pairs(LsimContactSet *set);

void lsim_contacts_free(LsimContactSet *set) {
  free(set->contacts);
  free(set->rows);
  free(set->scratch);
  free(set->bands);
  free_parallel(set);
  free_pairs(set);
  memset(set, 0, sizeof *set);
}

/* Appends a contact with nrows rows and returns it, nothing initialized but first_row
 * (the caller writes every field and every row); NULL when out of memory. */
static LsimContact *contacts_append(LsimContactSet *set, int nrows) {
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
  c->first_row = set->nrows;
  set->nrows += nrows;
  return c;
}

LsimContact *lsim_contacts_add(LsimContactSet *set, int nrows) {
  LsimContact *c = contacts_append(set, nrows);
  if (!c) return NULL;
  /* Everything zero, no bodies, no source; rows likewise. */
  const int first = c->first_row;
  memset(c, 0, sizeof *c);
  c->first_row = first;
  c->body[0] = c->body[1] = -1;
  c->source = -1;
  for (int k = 0; k < nrows; ++k) {
    LsimJacRow *r = &set->rows[first + k];
    memset(r, 0, sizeof *r);
    r->body[0] = r->body[1] = -1;
  }
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


int lsim_pair_collides(const LsimModel *m, int a, int b) {
  for (int j = 0; j < m->njoints; ++j) {
    const LsimJoint *jt = &m->joints[j];
    if (jt->no_collide && ((jt->end[0].body == a && jt->end[1].body == b) ||
                           (jt->end[0].body == b && jt->end[1].body == a)))
      return 0;
  }
  return 1;
}

/* How deep the body-frame point p lies inside shape s of a dim-D body (m): positive
 * inside (its distance to the boundary for spheres, capsules and planes; the least of
 * the per-axis distances for boxes), 0 on the boundary, negative outside; a point shape
 * has no inside (-|p - its point|). */
static double point_depth(const LsimShape *s, int dim, const double p[3]) {
  double d[3], x[3];
  lsim_v3_sub(d, p, s->pos);
  lsim_quat_rotate_inv(x, s->rot, d);
  if (dim == 2) x[2] = 0.0;
  const int up = dim == 2 ? 1 : 2; /* a plane's normal, a 3-D capsule's axis */
  switch (s->type) {
    case LSIM_SHAPE_SPHERE: return s->radius - lsim_v3_norm(x);
    case LSIM_SHAPE_BOX: {
      double depth = fmin(s->half[0] - fabs(x[0]), s->half[1] - fabs(x[1]));
      return dim == 3 ? fmin(depth, s->half[2] - fabs(x[2])) : depth;
    }
    case LSIM_SHAPE_CAPSULE: {
      const int ax = dim == 2 ? 0 : 2;
      x[ax] -= fmax(-s->half[0], fmin(s->half[0], x[ax]));
      return s->radius - lsim_v3_norm(x);
    }
    case LSIM_SHAPE_PLANE: return -x[up];
    default: return -lsim_v3_norm(x);
  }
}

/* Whether pin jt, joining the bodies of shapes sa and sb (2-D, 3-D), holds a point inside
 * both shapes: each end's point in its own body's shape (on the boundary counts, to
 * LSIM_TOUCH_REACH), deeper than LSIM_TOUCH_REACH in at least one. The two shapes then
 * overlap whatever the pin's angle (a convex shape meets every neighbourhood of a point of
 * its boundary in a set with an interior): their contact can never open. */
static int pin_inside_both(const LsimModel *m, const LsimJoint *jt, int sa, int sb) {
  const LsimShape *A = &m->shapes[sa], *B = &m->shapes[sb];
  if (jt->type != LSIM_JOINT_PIN) return 0;
  const int ka = jt->end[0].body == A->body ? 0 : 1;
  if (jt->end[ka].body != A->body || jt->end[1 - ka].body != B->body) return 0;
  const double da = point_depth(A, m->dimension, jt->end[ka].point);
  const double db = point_depth(B, m->dimension, jt->end[1 - ka].point);
  return fmin(da, db) >= -LSIM_TOUCH_REACH && fmax(da, db) > LSIM_TOUCH_REACH;
}

int lsim_shapes_collide(const LsimModel *m, int sa, int sb) {
  const int a = m->shapes[sa].body, b = m->shapes[sb].body;
  if (a == b) return 0;
  for (int j = 0; j < m->njoints; ++j) {
    const LsimJoint *jt = &m->joints[j];
    const int joins = (jt->end[0].body == a && jt->end[1].body == b) ||
                      (jt->end[0].body == b && jt->end[1].body == a);
    if (joins && (jt->no_collide || pin_inside_both(m, jt, sa, sb))) return 0;
  }
  return 1;
}

/* ---- the pair table ----
 *
 * The bodies that joints join, as pairs (lo, hi) sorted, each with whether one of its
 * joints has no_collide and its joints, pins and rods (joint indices ascending): detection
 * looks a candidate pair up by bisection, O(log J), instead of scanning the joints for it;
 * the step's assembly finds a contact's joints there (lsim_contacts_pair_joints). The
 * table is the set's, built at the first detection and again only when a joint's type,
 * bodies or no_collide change (key: those four numbers per joint, compared each
 * detection, O(J)); the pins' points are read from the model at each look-up. */
typedef struct PairEntry {
  int lo, hi;            /* body indices, lo < hi */
  int no_collide;        /* some joint of the pair has no_collide */
  int first, count;      /* the pair's pins and rods: joint[first .. first + count) */
} PairEntry;

struct LsimPairTable {
  int njoints;
  int *key;              /* [4 * njoints]: type, end bodies, no_collide per joint */
  int nentries;
  PairEntry *entry;      /* [nentries] sorted by (lo, hi) */
  int *joint;            /* [pins and rods of the pairs] joint indices */
  int *order;            /* [3 * njoints] build workspace: (lo, hi, joint) per joined pair */
  int cap_joints;
};

static void free_pairs(LsimContactSet *set) {
  struct LsimPairTable *t = set->pairs;
  if (!t) return;
  free(t->key), free(t->entry), free(t->joint), free(t->order);
  free(t);
  set->pairs = NULL;
}

static int by_pair(const void *pa, const void *pb) {
  const int *a = pa, *b = pb;
  for (int k = 0; k < 3; ++k)
    if (a[k] != b[k]) return (a[k] > b[k]) - (a[k] < b[k]);
  return 0;
}

/* The set's pair table for m's joints, built when it is not (NULL: out of memory). */
static const struct LsimPairTable *pair_table(LsimContactSet *set, const LsimModel *m) {
  struct LsimPairTable *t = set->pairs;
  const int J = m->njoints;
  if (!t && !(t = set->pairs = calloc(1, sizeof *t))) return NULL;
  int same = t->key && t->njoints == J;
  for (int j = 0; j < J && same; ++j) {
    const LsimJoint *jt = &m->joints[j];
    const int *k = t->key + 4 * (size_t)j;
    same = k[0] == (int)jt->type && k[1] == jt->end[0].body && k[2] == jt->end[1].body &&
           k[3] == jt->no_collide;
  }
  if (same) return t;
  if (J > t->cap_joints) {
    const size_t n = (size_t)J;
    int *key = realloc(t->key, 4 * n * sizeof(int)), *pin = key ? realloc(t->joint, n * sizeof(int)) : NULL;
    if (key) t->key = key;
    if (pin) t->joint = pin;
    int *order = pin ? realloc(t->order, 3 * n * sizeof(int)) : NULL;
    if (order) t->order = order;
    PairEntry *entry = order ? realloc(t->entry, n * sizeof(PairEntry)) : NULL;
    if (!entry) {
      free_pairs(set);
      return NULL;
    }
    t->entry = entry;
    t->cap_joints = J;
  }
  /* The key, then the joined pairs sorted (ties by joint: pins ascending in a pair). */
  int np = 0;
  for (int j = 0; j < J; ++j) {
    const LsimJoint *jt = &m->joints[j];
    int *k = t->key + 4 * (size_t)j;
    k[0] = (int)jt->type, k[1] = jt->end[0].body, k[2] = jt->end[1].body, k[3] = jt->no_collide;
    const int a = jt->end[0].body, b = jt->end[1].body;
    if (a < 0 || b < 0 || a == b) continue;
    int *o = t->order + 3 * (size_t)np++;
    o[0] = a < b ? a : b, o[1] = a < b ? b : a, o[2] = j;
  }
  t->njoints = J;
  qsort(t->order, (size_t)np, 3 * sizeof(int), by_pair);
  /* One entry per joined pair. */
  int ne = 0, nj = 0;
  for (int k = 0; k < np;) {
    const int lo = t->order[3 * k], hi = t->order[3 * k + 1];
    PairEntry e = {lo, hi, 0, nj, 0};
    for (; k < np && t->order[3 * k] == lo && t->order[3 * k + 1] == hi; ++k) {
      const LsimJoint *jt = &m->joints[t->order[3 * k + 2]];
      e.no_collide |= jt->no_collide != 0;
      t->joint[nj++] = t->order[3 * k + 2], e.count++;
    }
    t->entry[ne++] = e;
  }
  t->nentries = ne;
  return t;
}

/* The entry of bodies a and b, or NULL: bisection over the sorted pairs. */
static const PairEntry *pair_find(const struct LsimPairTable *t, int a, int b) {
  const int lo = a < b ? a : b, hi = a < b ? b : a;
  int l = 0, r = t->nentries;
  while (l < r) {
    const int mid = l + (r - l) / 2;
    const PairEntry *e = &t->entry[mid];
    if (e->lo < lo || (e->lo == lo && e->hi < hi)) l = mid + 1;
    else r = mid;
  }
  return l < t->nentries && t->entry[l].lo == lo && t->entry[l].hi == hi ? &t->entry[l] : NULL;
}

/* lsim_shapes_collide through the table (shapes sa and sb of different bodies). */
static int table_shapes_collide(const struct LsimPairTable *t, const LsimModel *m, int sa,
                                int sb) {
  const PairEntry *e = pair_find(t, m->shapes[sa].body, m->shapes[sb].body);
  if (!e) return 1;
  if (e->no_collide) return 0;
  for (int k = e->first; k < e->first + e->count; ++k)
    if (pin_inside_both(m, &m->joints[t->joint[k]], sa, sb)) return 0;
  return 1;
}

int lsim_contacts_shapes_collide(LsimContactSet *set, const LsimModel *m, int sa, int sb) {
  if (m->shapes[sa].body == m->shapes[sb].body) return 0;
  const struct LsimPairTable *t = pair_table(set, m);
  if (!t) return LSIM_OUT_OF_MEMORY;
  return table_shapes_collide(t, m, sa, sb);
}

int lsim_contacts_pair_joints(const LsimContactSet *set, const LsimModel *m, int a, int b,
                              const int **joints) {
  *joints = NULL;
  if (!m->njoints || !set->pairs || a < 0 || b < 0 || a == b) return 0;
  const PairEntry *e = pair_find(set->pairs, a, b);
  if (!e) return 0;
  *joints = set->pairs->joint + e->first;
  return e->count;
}

/* lsim_pair_collides through the table (1-D: the bodies are the shapes). */
static int table_bodies_collide(const struct LsimPairTable *t, int a, int b) {
  const PairEntry *e = pair_find(t, a, b);
  return !(e && e->no_collide);
}

static int detect_1d(const LsimModel *m, const LsimState *s, const double *v_free,
                     LsimContactSet *set) {
  const double h = m->time_step;
  /* The joined pairs (none without joints). */
  const struct LsimPairTable *pairs = m->njoints ? pair_table(set, m) : NULL;
  if (m->njoints && !pairs) return LSIM_OUT_OF_MEMORY;
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
    if (pairs && !table_bodies_collide(pairs, left, right)) continue;
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
      if (b->type != LSIM_BODY_DYNAMIC || (pairs && !table_bodies_collide(pairs, i, w))) continue;
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
    c->tangent[0][0] = 1.0; /* the directions +x and -x */
    c->normal_load = b->mass * m->ground_normal_gravity * h;
    for (int d = 0; d < 2; ++d) {
      LsimJacRow *r = &set->rows[c->first_row + d];
      r->body[0] = i;
      r->j[0][0] = d == 0 ? 1.0 : -1.0;
    }
  }
  return rc;
}

/* Per-shape record: the body pose, the placed shape, its box and speed bound. */
typedef struct {
  double body_p[3];  /* the body origin (lever arms start there) */
  LsimPlaced placed;
  double lo[3], hi[3];
  double speed;   /* bound on the speed of any point of its body in this step, m/s */
  double mu;      /* the shape's friction coefficient, clamped at 0 */
  int body;       /* its body */
  int moves;      /* its body has velocities (nv > 0) */
  int dynamic;    /* its body is dynamic */
  int still;      /* its body is static or asleep (set->asleep) */
} ShapeBox;

/* A box's y and z extents in sweep order, packed for the sweep's sequential reads (its x
 * extent is in separate arrays). */
typedef struct {
  double lo1, hi1, lo2, hi2;
} SweepBox;

/* A box's shape, body and kind in sweep order (the pair filter's reads, without the
 * shapes' and boxes' cache lines). */
enum { TAG_DYNAMIC = 1, TAG_STILL = 2 };
typedef struct {
  int shape, body, kind;
} SweepTag;

/* Grows the set's scratch to hold bytes (the content is kept). */
static int reserve_scratch(LsimContactSet *set, size_t bytes) {
  if (bytes <= set->scratch_bytes) return 0;
  void *grown = realloc(set->scratch, bytes);
  if (!grown) return LSIM_OUT_OF_MEMORY;
  set->scratch = grown;
  set->scratch_bytes = bytes;
  return 0;
}

/* Largest distance from the body origin to any point of its shape s (0 for planes, which
 * only static bodies carry). */
static double shape_reach(const LsimShape *s) {
  const double d = lsim_v3_norm(s->pos);
  switch (s->type) {
    case LSIM_SHAPE_SPHERE: return d + s->radius;
    case LSIM_SHAPE_BOX: return d + lsim_v3_norm(s->half);
    case LSIM_SHAPE_CAPSULE: return d + s->half[0] + s->radius;
    default: return d;
  }
}

double lsim_body_reach(const LsimModel *m, int b) {
  const LsimBody *body = &m->bodies[b];
  double reach = 0.0;
  for (int k = body->first_shape; k < body->first_shape + body->nshapes; ++k)
    reach = fmax(reach, shape_reach(&m->shapes[k]));
  return reach;
}

double lsim_body_speed_bound(const LsimModel *m, int b, const double *v) {
  const LsimBody *body = &m->bodies[b];
  if (body->nv <= 0) return 0.0;
  const int dim = m->dimension;
  const double *vb = v + body->v_offset;
  const double lin = dim == 2 ? hypot(vb[0], vb[1]) : lsim_v3_norm(vb);
  const double ang = dim == 2 ? fabs(vb[2]) : lsim_v3_norm(vb + 3);
  double reach = 0.0;
  for (int k = body->first_shape; k < body->first_shape + body->nshapes; ++k)
    reach = fmax(reach, shape_reach(&m->shapes[k]));
  return lin + ang * reach;
}

double lsim_body_half_thickness(const LsimModel *m, int b) {
  const LsimBody *body = &m->bodies[b];
  double w = INFINITY;
  for (int k = body->first_shape; k < body->first_shape + body->nshapes; ++k) {
    const LsimShape *s = &m->shapes[k];
    switch (s->type) {
      case LSIM_SHAPE_SPHERE:
      case LSIM_SHAPE_CAPSULE: w = fmin(w, s->radius); break;
      case LSIM_SHAPE_BOX: {
        double hmin = fmin(s->half[0], s->half[1]);
        if (m->dimension == 3) hmin = fmin(hmin, s->half[2]);
        w = fmin(w, hmin);
        break;
      }
      case LSIM_SHAPE_PLANE: break;
      default: w = 0.0; /* a point */
    }
  }
  return w;
}

/* One body's block of a Jacobian row of direction u = (u0, u1, u2) with lever arm r:
 * sign [u, r x u] (2-D: [u_x, u_y, (r x u)_z], the rest zero). The direction comes by
 * value, so a direction just computed is not reloaded from the contact. */
static inline void jac_block(double *j, int dim, double sign, const double *r, double u0,
                             double u1, double u2) {
  const double c0 = r[1] * u2 - r[2] * u1, c1 = r[2] * u0 - r[0] * u2,
               c2 = r[0] * u1 - r[1] * u0;
  if (dim == 2) {
    j[0] = sign * u0, j[1] = sign * u1, j[2] = sign * c2;
    j[3] = j[4] = j[5] = 0.0;
  } else {
    j[0] = sign * u0, j[1] = sign * u1, j[2] = sign * u2;
    j[3] = sign * c0, j[4] = sign * c1, j[5] = sign * c2;
  }
}

/* The lever arms of a contact for its pair of bodies: r[k] = x - p_k for the bodies with
 * velocities (has[k]); computed once per contact, not once per row. */
typedef struct Arms {
  int body[2];
  int has[2];
  double r[2][3];
} Arms;

/* One Jacobian row of direction u at the contact's point: body a gets [u, r_a x u], body
 * b the opposite (its velocity enters with a minus sign); every other entry is zero. */
static inline void fill_row(int dim, LsimJacRow *row, const Arms *arms, double u0, double u1,
                            double u2) {
  for (int k = 0; k < 2; ++k) {
    if (arms->has[k]) {
      row->body[k] = arms->body[k];
      jac_block(row->j[k], dim, k == 0 ? 1.0 : -1.0, arms->r[k], u0, u1, u2);
    } else {
      row->body[k] = -1;
      for (int d = 0; d < LSIM_MAX_BODY_DOF; ++d) row->j[k][d] = 0.0;
    }
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define ROWS_AVX 1

/* Body k's blocks of four 3-D rows (sign -1 for body b, +1 for a), the rows' directions in
 * the lanes of U0, U1, U2: each lane jac_block's products and differences in its order,
 * body b's block negated by its sign bit (jac_block's -1 * x, which compiles to the same
 * negation); the lanes transposed to rows as stored. */
__attribute__((target("avx"))) static inline void blocks4_avx(LsimJacRow *rows, int k,
                                                              const double *r, __m256d U0,
                                                              __m256d U1, __m256d U2) {
  const __m256d R0 = _mm256_set1_pd(r[0]), R1 = _mm256_set1_pd(r[1]), R2 = _mm256_set1_pd(r[2]);
  __m256d C0 = _mm256_sub_pd(_mm256_mul_pd(R1, U2), _mm256_mul_pd(R2, U1));
  __m256d C1 = _mm256_sub_pd(_mm256_mul_pd(R2, U0), _mm256_mul_pd(R0, U2));
  __m256d C2 = _mm256_sub_pd(_mm256_mul_pd(R0, U1), _mm256_mul_pd(R1, U0));
  if (k == 1) {
    const __m256d neg = _mm256_set1_pd(-0.0);
    U0 = _mm256_xor_pd(U0, neg), U1 = _mm256_xor_pd(U1, neg), U2 = _mm256_xor_pd(U2, neg);
    C0 = _mm256_xor_pd(C0, neg), C1 = _mm256_xor_pd(C1, neg), C2 = _mm256_xor_pd(C2, neg);
  }
  const __m256d t0 = _mm256_unpacklo_pd(U0, U1), t1 = _mm256_unpackhi_pd(U0, U1);
  const __m256d t2 = _mm256_unpacklo_pd(U2, C0), t3 = _mm256_unpackhi_pd(U2, C0);
  const __m256d p0 = _mm256_unpacklo_pd(C1, C2), p1 = _mm256_unpackhi_pd(C1, C2);
  _mm256_storeu_pd(&rows[0].j[k][0], _mm256_permute2f128_pd(t0, t2, 0x20));
  _mm256_storeu_pd(&rows[1].j[k][0], _mm256_permute2f128_pd(t1, t3, 0x20));
  _mm256_storeu_pd(&rows[2].j[k][0], _mm256_permute2f128_pd(t0, t2, 0x31));
  _mm256_storeu_pd(&rows[3].j[k][0], _mm256_permute2f128_pd(t1, t3, 0x31));
  _mm_storeu_pd(&rows[0].j[k][4], _mm256_castpd256_pd128(p0));
  _mm_storeu_pd(&rows[1].j[k][4], _mm256_castpd256_pd128(p1));
  _mm_storeu_pd(&rows[2].j[k][4], _mm256_extractf128_pd(p0, 1));
  _mm_storeu_pd(&rows[3].j[k][4], _mm256_extractf128_pd(p1, 1));
}

/* fill_row (3-D) of four rows, directions dir[0 .. 3]: the same bits. */
__attribute__((target("avx"))) static void fill_rows4_avx(LsimJacRow *rows, const Arms *arms,
                                                          const double (*dir)[3]) {
  const __m256d U0 = _mm256_set_pd(dir[3][0], dir[2][0], dir[1][0], dir[0][0]);
  const __m256d U1 = _mm256_set_pd(dir[3][1], dir[2][1], dir[1][1], dir[0][1]);
  const __m256d U2 = _mm256_set_pd(dir[3][2], dir[2][2], dir[1][2], dir[0][2]);
  for (int k = 0; k < 2; ++k) {
    if (arms->has[k]) {
      for (int i = 0; i < 4; ++i) rows[i].body[k] = arms->body[k];
      blocks4_avx(rows, k, arms->r[k], U0, U1, U2);
    } else {
      const __m256d zero = _mm256_setzero_pd();
      for (int i = 0; i < 4; ++i) {
        rows[i].body[k] = -1;
        _mm256_storeu_pd(&rows[i].j[k][0], zero);
        _mm_storeu_pd(&rows[i].j[k][4], _mm256_castpd256_pd128(zero));
      }
    }
  }
}
#endif

void lsim_cone_weights(int ndir, double *cs, double *sn) {
  for (int k = 0; k < ndir && k < LSIM_MAX_DIRECTIONS; ++k) {
    const double ang = 6.283185307179586476925 * k / ndir;
    double c = cos(ang), s = sin(ang);
    if (4 * k % ndir == 0) {
      const int quarter = 4 * k / ndir;
      c = quarter == 0 ? 1.0 : quarter == 2 ? -1.0 : 0.0;
      s = quarter == 1 ? 1.0 : quarter == 3 ? -1.0 : 0.0;
    }
    if (ndir % 2 == 0 && 2 * k >= ndir) c = -cs[k - ndir / 2], s = -sn[k - ndir / 2];
    cs[k] = c, sn[k] = s;
  }
}

/* A cone's direction weights (lsim_cone_weights), once per detection, and whether any
 * pair of the model can have restitution (cone_restitution). */
typedef struct Cone {
  double cs[LSIM_MAX_DIRECTIONS], sn[LSIM_MAX_DIRECTIONS];
  int restitution;
} Cone;

/* 0 when lsim_pair_restitution is > 0 for no pair of bodies: no per-pair override and no
 * body has restitution > 0 (it returns an override or the larger of the two bodies'). A
 * contact then skips the search of the overrides (the pile of 1000 boxes: 50 instructions
 * a point). */
static int cone_restitution(const LsimModel *m) {
  for (int i = 0; i < m->nrestitution_pairs; ++i)
    if (m->restitution_pairs[i].restitution > 0.0) return 1;
  for (int b = 0; b < m->nbodies; ++b)
    if (m->bodies[b].restitution > 0.0) return 1;
  return 0;
}

/* The 3-D cone directions of the last normal seen: the points of one manifold share
 * their normal, and the directions are a function of the normal alone. */
typedef struct DirCache {
  double n[3];
  int ndir;  /* -1: empty */
  double t[2][3]; /* the tangent basis of n */
  double dir[LSIM_MAX_DIRECTIONS][3];
} DirCache;

/* The contact of one manifold point between shapes sa (on body a) and sb (body b), of
 * friction coefficient mu = sqrt(mu_a mu_b); every field is written (those the kind does
 * not use are zero, as lsim_contacts_add leaves them) except the tangent basis of a
 * frictionless contact, which nothing reads. */
static inline int point_ndir(const LsimModel *m, double mu) {
  /* The exact cone builds every contact's frame from its direction rows (contact/
     exact_cone.c): a frictionless contact keeps them there, and mu = 0 holds them at
     zero (without them such a contact stopped the run at its first step). */
  return mu > 0.0 || m->friction_exact ? (m->dimension == 2 ? 2 : m->friction_directions) : 0;
}

/* Writes contact c (every field but first_row) and its 1 + point_ndir rows at rows. */
static void fill_point_contact(LsimContact *c, LsimJacRow *rows, const LsimModel *m,
                               const ShapeBox *box, const Cone *cone, DirCache *cache, int sa,
                               int sb, double mu, const LsimContactPoint *pt) {
  const int dim = m->dimension;
  const int ndir = point_ndir(m, mu);
  c->id = lsim_contact_id(sa, sb, pt->feature);
  c->kind = LSIM_CONTACT_NORMAL;
  c->body[0] = box[sa].body;
  c->body[1] = box[sb].body;
  c->gap = pt->gap;
  lsim_v3_copy(c->point, pt->point);
  lsim_v3_copy(c->normal, pt->normal);
  c->mu = mu;
  c->ndir = ndir;
  c->normal_load = 0.0;
  c->bias = 0.0;
  c->source = -1;
  c->first_var = 0;
  c->normal_impulse = 0.0;
  lsim_v3_set(c->friction_impulse, 0.0, 0.0, 0.0);
  c->slip_speed = 0.0;

  /* Lever arms from the body origins to the contact point (midway between the
     surfaces), then the normal row. */
  Arms arms;
  const int shape[2] = {sa, sb};
  for (int k = 0; k < 2; ++k) {
    arms.body[k] = box[shape[k]].body;
    arms.has[k] = box[shape[k]].moves;
    lsim_v3_sub(arms.r[k], pt->point, box[shape[k]].body_p);
  }
  const double *n = pt->normal;
  fill_row(dim, &rows[0], &arms, n[0], n[1], n[2]);
  if (ndir == 0) return;
  /* A pair with restitution: its direction rows are the slip of each body's own surface
     point, point +- gap / 2 n (a on the +n side). The step resolves such an impact whole
     at the gap it starts from (restitution_q), which then has the closed form's arms (a
     sphere's R, not R + gap / 2: a disc 7 mm off a wall, e 0.5, mu 0.3, left at 0.6818
     m/s along it for 2/3, slipping at 0.023 m/s where friction stops it). An inelastic
     pair's impact ends where the gap has closed (its gap row lets it close within the
     step), where both points agree; its rows keep the midpoint (the same bits as before:
     a chain's pin contacts keep rows the joints hold, tests/test_joint_physics.c). The
     normal row keeps the midpoint's arms in every case: the same row analytically
     (n . (w x n) = 0), and the same bits. */
  if (pt->gap != 0.0 && cone->restitution &&
      lsim_pair_restitution(m, c->body[0], c->body[1]) > 0.0)
    for (int k = 0; k < 2; ++k) {
      const double half = (k == 0 ? 0.5 : -0.5) * pt->gap;
      for (int d = 0; d < 3; ++d) arms.r[k][d] += half * n[d];
    }

  /* Cone directions and their rows: 2-D the two tangents; 3-D d unit vectors evenly
     spread about n. */
  if (dim == 2) {
    const double t0 = -n[1], t1 = n[0], t2 = 0.0;
    lsim_v3_set(c->tangent[0], t0, t1, t2);
    lsim_v3_set(c->tangent[1], 0.0, 0.0, 0.0);
    fill_row(dim, &rows[1], &arms, t0, t1, t2);
    const double s0 = t0 * -1.0, s1 = t1 * -1.0, s2 = t2 * -1.0;
    fill_row(dim, &rows[2], &arms, s0, s1, s2);
  } else {
    /* The same normal bits as the cache's: the same directions, not recomputed. */
    const int fresh = cache->ndir != ndir || memcmp(cache->n, n, sizeof cache->n) != 0;
    double t1[3], t2[3];
    if (fresh) {
      lsim_v3_tangents(n, t1, t2);
      lsim_v3_copy(cache->n, n);
      lsim_v3_copy(cache->t[0], t1);
      lsim_v3_copy(cache->t[1], t2);
      cache->ndir = ndir;
    }
    lsim_v3_copy(c->tangent[0], cache->t[0]);
    lsim_v3_copy(c->tangent[1], cache->t[1]);
    if (fresh)
      for (int k = 0; k < ndir; ++k) {
        const double cs = cone->cs[k], sn = cone->sn[k];
        lsim_v3_set(cache->dir[k], cs * t1[0] + sn * t2[0], cs * t1[1] + sn * t2[1],
                    cs * t1[2] + sn * t2[2]);
      }
    /* The rows from the cache's directions, four at a time in AVX lanes where the CPU
       has AVX (fill_rows4_avx: the same bits), the rest one by one. */
    int k = 0;
#if defined(ROWS_AVX)
    if (__builtin_cpu_supports("avx")) /* a bit libgcc sets at start-up: no race */
      for (; k + 4 <= ndir; k += 4) fill_rows4_avx(&rows[1 + k], &arms, &cache->dir[k]);
#endif
    for (; k < ndir; ++k)
      fill_row(dim, &rows[1 + k], &arms, cache->dir[k][0], cache->dir[k][1], cache->dir[k][2]);
  }
}

/* fill_point_contact on a contact appended to set. */
static int add_point_contact(LsimContactSet *set, const LsimModel *m, const ShapeBox *box,
                             const Cone *cone, DirCache *cache, int sa, int sb, double mu,
                             const LsimContactPoint *pt) {
  LsimContact *c = contacts_append(set, 1 + point_ndir(m, mu));
  if (!c) return LSIM_OUT_OF_MEMORY;
  fill_point_contact(c, &set->rows[c->first_row], m, box, cone, cache, sa, sb, mu, pt);
  return 0;
}

typedef struct {
  double key;
  int index;
} KeyIndex;

static int by_key(const void *pa, const void *pb) {
  const KeyIndex *a = pa, *b = pb;
  if (a->key < b->key) return -1;
  if (a->key > b->key) return 1;
  return a->index - b->index;
}

/* The sweep order: shapes by their low x, ties by index. The previous step's order (kept
 * at the head of the scratch) is nearly sorted, so an insertion sort from it usually
 * costs O(S); the result is the same as a full sort since (key, index) is a total order.
 * Without a valid previous order, with NaN keys (no total order) or when the insertion
 * sort moves too much, qsort as before. seen: S ints of workspace. */
static void sweep_order(const ShapeBox *box, int S, int *order, KeyIndex *keys, int *seen) {
  int valid = 1, nan = 0;
  for (int i = 0; i < S; ++i) seen[i] = 0;
  for (int i = 0; i < S && valid; ++i) {
    const int k = order[i];
    if (k < 0 || k >= S || seen[k]) valid = 0;
    else seen[k] = 1;
  }
  for (int i = 0; i < S; ++i) nan |= box[i].lo[0] != box[i].lo[0];
  int sorted = 0;
  if (valid && !nan) {
    /* Insertion sort of the previous order, with a budget of moves. */
    long budget = 8L * S + 64;
    for (int i = 0; i < S; ++i) keys[i] = (KeyIndex){box[order[i]].lo[0], order[i]};
    sorted = 1;
    for (int i = 1; i < S && sorted; ++i) {
      const KeyIndex x = keys[i];
      int j = i;
      while (j > 0 && (keys[j - 1].key > x.key ||
                       (keys[j - 1].key == x.key && keys[j - 1].index > x.index))) {
        keys[j] = keys[j - 1];
        --j;
        if (--budget < 0) {
          sorted = 0;
          break;
        }
      }
      keys[j] = x;
    }
  }
  if (!sorted) {
    for (int i = 0; i < S; ++i) keys[i] = (KeyIndex){box[i].lo[0], i};
    qsort(keys, (size_t)S, sizeof *keys, by_key);
  }
  for (int i = 0; i < S; ++i) order[i] = keys[i].index;
}

/* The second axis of the broad phase: the sweep positions cut into bands of that axis
 * (y or, in 3-D, z: whichever holds more dynamic boxes side by side), each band's list in
 * sweep order. A box is in every band its extent covers; box oi meets in each of its
 * bands the boxes after it in that list until their low x passes its high x, and keeps a
 * box that overlaps it on every axis only in the first band the two share (so once). Its
 * candidates, sorted by sweep position, are then exactly those of the sweep on x alone,
 * in the same order, while it only meets the boxes of its own bands: O(1) a box in a pile
 * instead of a whole x slab (O(sqrt N) in a square bin). */
typedef struct Bands {
  int axis, nb;           /* the band axis (1 or 2) and the number of bands */
  double origin, inv_width;
  const int *start;       /* [nb + 1]: band b holds list[start[b] .. start[b + 1]) */
  const int *list;        /* sweep positions, ascending in each band */
  const int *first, *last; /* [S]: per sweep position, its first and last band */
  const int *slot;        /* [S]: where its places in its bands start in at[] */
  const int *at;          /* its place in band first + k at at[slot + k] */
} Bands;

static int by_int(const void *pa, const void *pb) {
  const int a = *(const int *)pa, b = *(const int *)pb;
  return (a > b) - (a < b);
}

/* The band of coordinate x: monotone in x, infinities to the end bands (x is not NaN). */
static inline int band_of(const Bands *bd, double x) {
  const double t = (x - bd->origin) * bd->inv_width;
  if (!(t >= 1.0)) return 0;
  if (t >= (double)(bd->nb - 1)) return bd->nb - 1;
  return (int)t;
}

enum {
  BAND_MIN_SHAPES = 64, /* below: the sweep on x alone (as fast) */
  BAND_MIN_BANDS = 4,   /* fewer side by side: x alone */
  BAND_MAX_BANDS = 1 << 16
};

/* The bands of the sorted boxes (lox, hix, sweep in sweep order; box by shape), built in
 * set->bands; 1 when x alone is as good (few shapes, a thin scene, boxes covering more
 * than 8 bands each on average, or NaN extents, which must never separate), 0 with bd
 * filled, or LSIM_OUT_OF_MEMORY. */
static int build_bands(LsimContactSet *set, const ShapeBox *box, const double *lox,
                       const double *hix, const SweepBox *sweep, int S, int dim, Bands *bd) {
  if (S < BAND_MIN_SHAPES || set->sweep_x_only) return 1;
  for (int i = 0; i < S; ++i)
    if (lox[i] != lox[i] || hix[i] != hix[i]) return 1;
  /* The axis: the one with more dynamic boxes side by side (their span over their mean
     extent); the width: the span over that many bands. */
  double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
  double ext[3] = {0.0, 0.0, 0.0};
  int count[3] = {0, 0, 0};
  for (int i = 0; i < S; ++i) { /* both candidate axes in one pass over the boxes */
    const ShapeBox *b = &box[i];
    if (!b->dynamic) continue;
    for (int a = 1; a < dim; ++a) {
      if (!isfinite(b->lo[a]) || !isfinite(b->hi[a])) continue;
      lo[a] = fmin(lo[a], b->lo[a]), hi[a] = fmax(hi[a], b->hi[a]);
      ext[a] += b->hi[a] - b->lo[a];
      ++count[a];
    }
  }
  int axis = 0;
  double best = 0.0, lo_best = 0.0, span_best = 0.0;
  for (int a = 1; a < dim; ++a) {
    if (count[a] == 0 || !(ext[a] > 0.0)) continue;
    const double side = (hi[a] - lo[a]) / (ext[a] / count[a]);
    if (side > best) best = side, axis = a, lo_best = lo[a], span_best = hi[a] - lo[a];
  }
  if (!(best >= BAND_MIN_BANDS)) return 1;
  for (int i = 0; i < S; ++i) {
    const double l = axis == 1 ? sweep[i].lo1 : sweep[i].lo2;
    const double h = axis == 1 ? sweep[i].hi1 : sweep[i].hi2;
    if (l != l || h != h) return 1;
  }
  const int nb = best < BAND_MAX_BANDS ? (int)best : BAND_MAX_BANDS;
  bd->axis = axis, bd->nb = nb;
  bd->origin = lo_best, bd->inv_width = nb / span_best;
  /* Pass 1: each position's bands and the bands' sizes; pass 2: the lists, by position. */
  long long total = 0;
  for (int i = 0; i < S; ++i) {
    const double l = axis == 1 ? sweep[i].lo1 : sweep[i].lo2;
    const double h = axis == 1 ? sweep[i].hi1 : sweep[i].hi2;
    total += band_of(bd, h) - band_of(bd, l) + 1;
  }
  /* Boxes spanning many bands each (long rods among small boxes) would cost more memory
     than they save: x alone then. */
  if (total > 8LL * S + 4096) return 1;
  const long long ints = 3LL * S + nb + 1 + 2 * total;
  if (ints > 0x7fffffff) return 1;
  if (lsim_grow((void **)&set->bands, &set->bands_capacity, (int)ints, sizeof(int)))
    return LSIM_OUT_OF_MEMORY;
  int *first = set->bands, *last = first + S, *slot = last + S;
  int *start = slot + S, *list = start + nb + 1, *at = list + total;
  for (int b = 0; b <= nb; ++b) start[b] = 0;
  int nslot = 0;
  for (int i = 0; i < S; ++i) {
    const double l = axis == 1 ? sweep[i].lo1 : sweep[i].lo2;
    const double h = axis == 1 ? sweep[i].hi1 : sweep[i].hi2;
    first[i] = band_of(bd, l), last[i] = band_of(bd, h);
    slot[i] = nslot;
    nslot += last[i] - first[i] + 1;
    for (int b = first[i]; b <= last[i]; ++b) start[b + 1]++;
  }
  for (int b = 0; b < nb; ++b) start[b + 1] += start[b];
  /* start[b] as band b's cursor: at[] first holds absolute places, made relative once the
     cursors are shifted back to the starts. */
  for (int i = 0; i < S; ++i)
    for (int b = first[i], k = slot[i]; b <= last[i]; ++b, ++k) {
      at[k] = start[b];
      list[start[b]++] = i;
    }
  for (int b = nb; b > 0; --b) start[b] = start[b - 1];
  start[0] = 0;
  for (int i = 0; i < S; ++i)
    for (int b = first[i], k = slot[i]; b <= last[i]; ++b, ++k) at[k] -= start[b];
  bd->start = start, bd->list = list, bd->first = first, bd->last = last;
  bd->slot = slot, bd->at = at;
  return 0;
}

/* The sweep's shared data: read-only once the shapes are placed and sorted. */
typedef struct Sweep {
  const LsimModel *m;
  const LsimState *st;
  const double *v_free;
  ShapeBox *box;
  const SweepBox *sweep;
  const SweepTag *tag;
  const double *lox, *hix;
  const int *order;
  int S;
  Cone cone;
  const unsigned char *asleep; /* set->asleep */
  const Bands *bands;          /* NULL: x alone */
  const struct LsimPairTable *pairs; /* joined pairs (lsim_shapes_collide); NULL: none */
  const double *floor;         /* set->speed_floor */
  int (*was)(const void *, uint64_t); /* set->was, was_ctx: the previous step's ids */
  const void *was_ctx;
} Sweep;

/* Shapes [begin, end): poses, placements, speed bounds and boxes grown by the distance the
 * body can cover in the step. */
static void place_shapes(const Sweep *w, int begin, int end) {
  const LsimModel *m = w->m;
  const int dim = m->dimension;
  const double h = m->time_step, margin = m->contact_margin;
  ShapeBox *box = w->box;
  for (int i = begin; i < end; ++i) {
    const LsimShape *sh = &m->shapes[i];
    const LsimBody *b = &m->bodies[sh->body];
    LsimPose bp;
    lsim_body_pose(m, w->st, sh->body, bp.p, bp.q);
    lsim_v3_copy(box[i].body_p, bp.p);
    const LsimPose pose = lsim_shape_world_pose(sh, &bp);
    lsim_shape_place(sh, &pose, dim, &box[i].placed);
    box[i].speed = lsim_body_speed_bound(m, sh->body, w->v_free);
    /* The step's re-run: the floor its solve showed (a NaN bound stays NaN). */
    if (w->floor && w->floor[sh->body] > box[i].speed) box[i].speed = w->floor[sh->body];
    box[i].mu = fmax(sh->mu, 0.0);
    box[i].body = sh->body;
    box[i].moves = b->nv > 0;
    box[i].dynamic = b->type == LSIM_BODY_DYNAMIC;
    box[i].still = b->type == LSIM_BODY_STATIC || (w->asleep && w->asleep[sh->body]);
    lsim_placed_aabb(sh, &box[i].placed, dim, 0.5 * (margin + LSIM_TOUCH_REACH) + h * box[i].speed, box[i].lo, box[i].hi);
  }
}

/* A manifold point waiting for its contact (parallel detection): the ordered shape pair
 * and its mu. */
typedef struct PendingPoint {
  int a, b;
  double mu;
  LsimContactPoint pt;
} PendingPoint;

/* Where a slice of the sweep puts its manifold points: contacts appended to set, or
 * pending points (parallel detection). */
typedef struct PointSink {
  LsimContactSet *set;
  DirCache *cache;
  PendingPoint **pend;
  int *npend, *pend_cap, *nrows;
} PointSink;

/* 1 when any of the np points of shapes a, b had its id among the previous step's. */
static int any_was(const Sweep *w, int a, int b, const LsimContactPoint *pts, int np) {
  for (int k = 0; k < np; ++k)
    if (w->was(w->was_ctx, lsim_contact_id(a, b, pts[k].feature))) return 1;
  return 0;
}

/* A persistent pair keeps its order: the np points of a, b (canonical order) replaced by
 * those of the other order when round-off can swap the pair's order (lsim_collide_fragile),
 * none of the canonical points' ids was a contact the step before and some of
 * the other order's were. Two equal boxes side by side on the ground swapped order every
 * step on a height jitter of 9.3e-15 m, renumbering their four features, so their warm
 * start found none of them (a row of 10 boxes: 122 of 200 steps). The event-driven
 * integrator's rule (hybrid/event_rows.c). Returns the point count. */
static int keep_order(const Sweep *w, int a, int b, double margin, LsimContactPoint *pts, int np) {
  const int dim = w->m->dimension;
  const LsimPlaced *pa = &w->box[a].placed, *pb = &w->box[b].placed;
  if (!lsim_collide_fragile(pa, pb, dim) || any_was(w, a, b, pts, np)) return np;
  LsimContactPoint other[LSIM_MAX_MANIFOLD];
  const int no = lsim_collide_placed_order(pa, pb, dim, margin, other, LSIM_MAX_MANIFOLD,
                                           !lsim_collide_order(pa, pb, dim));
  if (no <= 0 || !any_was(w, a, b, other, no)) return np;
  memcpy(pts, other, (size_t)no * sizeof *other);
  return no;
}

/* The pairs of sweep positions [begin, end) with the boxes after them that overlap,
 * collided; each manifold point goes to sink. cand: S ints of workspace. */
static int sweep_pairs(const Sweep *w, int begin, int end, int *cand, const PointSink *sink) {
  const LsimModel *m = w->m;
  const int S = w->S, test_z = m->dimension == 3;
  const double h = m->time_step, margin = m->contact_margin;
  const ShapeBox *box = w->box;
  const SweepBox *sweep = w->sweep;
  const double *lox = w->lox, *hix = w->hix;
  const Bands *bd = w->bands;
  LsimContactPoint pts[LSIM_MAX_MANIFOLD];
  for (int oi = begin; oi < end; ++oi) {
    const SweepTag ti = w->tag[oi];
    const int i = ti.shape, dyn_i = ti.kind & TAG_DYNAMIC;
    const double hi0 = hix[oi];
    const SweepBox wi = sweep[oi];
    /* The boxes overlapping box i, in sweep order, gathered without branches (the same
       comparisons as testing them one by one; NaN extents never separate): whether y
       and z overlap is close to random, a branch on it mispredicts. */
    int nc = 0;
    if (!bd) {
      for (int oj = oi + 1; oj < S && !(lox[oj] > hi0); ++oj) {
        const SweepBox *wj = &sweep[oj];
        const int apart = (wj->lo1 > wi.hi1) | (wi.lo1 > wj->hi1) |
                          (test_z & ((wj->lo2 > wi.hi2) | (wi.lo2 > wj->hi2)));
        cand[nc] = oj;
        nc += !apart;
      }
    } else {
      /* The same test in each of box i's bands, a pair kept in the first band it shares,
         then the candidates in sweep order. */
      const int b0 = bd->first[oi], b1 = bd->last[oi];
      for (int b = b0, k = bd->slot[oi]; b <= b1; ++b, ++k) {
        const int *list = bd->list + bd->start[b], len = bd->start[b + 1] - bd->start[b];
        for (int p = bd->at[k] + 1; p < len; ++p) {
          const int oj = list[p];
          if (lox[oj] > hi0) break;
          const SweepBox *wj = &sweep[oj];
          const int apart = (wj->lo1 > wi.hi1) | (wi.lo1 > wj->hi1) |
                            (test_z & ((wj->lo2 > wi.hi2) | (wi.lo2 > wj->hi2)));
          const int fj = bd->first[oj];
          cand[nc] = oj;
          nc += !apart & ((fj > b0 ? fj : b0) == b);
        }
      }
      if (nc > 32) { /* the floor, a wall: many runs, sorted apiece */
        qsort(cand, (size_t)nc, sizeof *cand, by_int);
      } else {
        for (int x = 1; x < nc; ++x) { /* a few, in runs already sorted */
          const int v = cand[x];
          int y = x;
          for (; y > 0 && cand[y - 1] > v; --y) cand[y] = cand[y - 1];
          cand[y] = v;
        }
      }
    }
    for (int kc = 0; kc < nc; ++kc) {
      const SweepTag tj = w->tag[cand[kc]];
      if (ti.body == tj.body) continue;
      if (!((ti.kind | tj.kind) & TAG_DYNAMIC)) continue;
      if (ti.kind & tj.kind & TAG_STILL) continue; /* asleep with asleep or static */
      const int j = tj.shape, dyn_j = tj.kind & TAG_DYNAMIC;
      if (w->pairs && !table_shapes_collide(w->pairs, m, i, j)) continue;
      /* body[0] is dynamic; between two dynamic bodies the lower shape index comes first. */
      int a = i, b = j;
      if (!dyn_i || (dyn_j && j < i)) a = j, b = i;
      const double pair_margin = margin + LSIM_TOUCH_REACH + h * (box[a].speed + box[b].speed);
      int np = lsim_collide_placed(&box[a].placed, &box[b].placed, m->dimension, pair_margin,
                                   pts, LSIM_MAX_MANIFOLD);
      if (w->was && np > 0) np = keep_order(w, a, b, pair_margin, pts, np);
      /* The pair's friction coefficient, once for all its points. */
      const double mu = np > 0 ? pair_mu(box[a].mu, box[b].mu) : 0.0;
      for (int k = 0; k < np; ++k) {
        if (!sink->pend) {
          const int rc = add_point_contact(sink->set, m, box, &w->cone, sink->cache, a, b, mu,
                                           &pts[k]);
          if (rc) return rc;
          continue;
        }
        if (lsim_grow((void **)sink->pend, sink->pend_cap, *sink->npend + 1, sizeof(PendingPoint)))
          return LSIM_OUT_OF_MEMORY;
        (*sink->pend)[(*sink->npend)++] = (PendingPoint){a, b, mu, pts[k]};
        *sink->nrows += 1 + point_ndir(m, mu);
      }
    }
  }
  return 0;
}

/* ---- detection on a team ----
 *
 * Stage 1: each member places an equal share of the shapes (by index: sequential reads of
 * the state). One thread sorts. Stage 2: the sweep order, in chunks of DETECT_CHUNK
 * positions, is cut into one segment per pair of members (by their number); in a segment
 * the first member claims chunks from its front and the second from its back, one at a
 * time, until they meet, so the pair finishes together however the work is spread (the
 * floor's long run of pairs comes first in the order).
 * Each chunk is collided into its member's pending points. One thread adds up where each
 * chunk's contacts and rows start, chunk after chunk in sweep order (the one-thread
 * order); stage 3: each member writes an equal share of the contacts and their rows in
 * place (as the assembly's slices will read them), from whichever member's pending points
 * hold them. The contacts are those of one thread, in the same order, bit for bit: which
 * member collides or writes a chunk moves work between members, never the result. */

enum {
  PARALLEL_MIN_SHAPES = 256, /* below: one thread (the hand-offs cost more) */
  DETECT_CHUNK = 8           /* sweep positions a member claims at a time */
};

/* A chunk of sweep positions: who collided it, its pending points (that member's first
 * .. first + count), its rows, and where its contacts and rows go. */
typedef struct DetectChunk {
  int member, first, count, nrows;
  int first_contact, first_row;
} DetectChunk;

/* A pair of members' segment of chunks [begin, end): claimed counts them. */
typedef struct DetectSegment {
  _Alignas(64) atomic_int claimed;
  int begin, end;
} DetectSegment;

/* A member's workspace. */
typedef struct DetectMember {
  PendingPoint *pend;
  int npend, pend_cap;
  int *cand, cand_cap;
  int rc;
} DetectMember;

struct LsimDetectTeam {
  int T;
  DetectMember *member; /* [T] */
  DetectSegment *segment; /* [(T + 1) / 2] */
  DetectChunk *chunk;   /* [nchunk] */
  int nchunk, chunk_cap;
  int first_contact, ncontacts; /* the contacts the chunks hold, in the set */
};

static void free_parallel(LsimContactSet *set) {
  struct LsimDetectTeam *p = set->parallel;
  if (!p) return;
  for (int k = 0; k < p->T; ++k) free(p->member[k].pend), free(p->member[k].cand);
  free(p->member);
  free(p->segment);
  free(p->chunk);
  free(p);
  set->parallel = NULL;
}

/* The workspace for T members and S shapes, the segments cut and their counts reset. */
static int reserve_parallel(LsimContactSet *set, int T, int S) {
  struct LsimDetectTeam *p = set->parallel;
  if (p && p->T != T) free_parallel(set), p = NULL;
  if (!p) {
    if (!(p = calloc(1, sizeof *p))) return LSIM_OUT_OF_MEMORY;
    set->parallel = p;
    p->member = calloc((size_t)T, sizeof *p->member);
    p->segment = aligned_alloc(_Alignof(DetectSegment), (size_t)(T + 1) / 2 * sizeof(DetectSegment));
    if (!p->member || !p->segment) return LSIM_OUT_OF_MEMORY; /* freed with the set */
    p->T = T;
  }
  p->nchunk = (S + DETECT_CHUNK - 1) / DETECT_CHUNK;
  if (lsim_grow((void **)&p->chunk, &p->chunk_cap, p->nchunk, sizeof(DetectChunk)))
    return LSIM_OUT_OF_MEMORY;
  for (int k = 0; k < T; ++k)
    if (lsim_grow((void **)&p->member[k].cand, &p->member[k].cand_cap, S, sizeof(int)))
      return LSIM_OUT_OF_MEMORY;
  /* Segment g (members 2g and 2g + 1, the last one alone for odd T): chunks in
     proportion to its members. */
  for (int g = 0, first = 0; g < (T + 1) / 2; ++g) {
    const int members = 2 * g + 1 < T ? 2 : 1, last = first + members;
    p->segment[g].begin = (int)((long long)p->nchunk * first / T);
    p->segment[g].end = (int)((long long)p->nchunk * last / T);
    atomic_init(&p->segment[g].claimed, 0);
    first = last;
  }
  return 0;
}

typedef struct DetectJob {
  const Sweep *w;
  LsimContactSet *set;
  int stage;
} DetectJob;

/* Member k's chunks: claimed from the front of its segment (k even) or the back (k odd)
 * until the segment is used up, each collided into pending points. */
static void collide_chunks(const Sweep *w, struct LsimDetectTeam *p, int k) {
  DetectMember *me = &p->member[k];
  DetectSegment *seg = &p->segment[k / 2];
  const int size = seg->end - seg->begin, from_back = k % 2;
  int nrows = 0;
  const PointSink sink = {NULL, NULL, &me->pend, &me->npend, &me->pend_cap, &nrows};
  me->npend = 0, me->rc = 0;
  for (int mine = 0;; ++mine) {
    if (atomic_fetch_add_explicit(&seg->claimed, 1, memory_order_relaxed) >= size) return;
    const int c = from_back ? seg->end - 1 - mine : seg->begin + mine;
    DetectChunk *ch = &p->chunk[c];
    ch->member = k, ch->first = me->npend;
    nrows = 0;
    const int begin = c * DETECT_CHUNK, end = begin + DETECT_CHUNK < w->S ? begin + DETECT_CHUNK : w->S;
    me->rc = sweep_pairs(w, begin, end, me->cand, &sink);
    ch->count = me->npend - ch->first, ch->nrows = nrows;
    if (me->rc) {
      atomic_store_explicit(&seg->claimed, size, memory_order_relaxed); /* the pair stops */
      return;
    }
  }
}

static void detect_member(void *arg, int k) {
  DetectJob *job = arg;
  const Sweep *w = job->w;
  struct LsimDetectTeam *p = job->set->parallel;
  if (job->stage == 1) {
    place_shapes(w, (int)((long long)w->S * k / p->T), (int)((long long)w->S * (k + 1) / p->T));
    return;
  }
  if (job->stage == 2) {
    collide_chunks(w, p, k);
    return;
  }
  /* Stage 3: an equal share of the contacts written in place (the share of the contact
     order the assembly gives this member), from the chunks that hold them. */
  DirCache cache;
  cache.ndir = -1;
  LsimContactSet *set = job->set;
  const int c0 = p->first_contact + (int)((long long)p->ncontacts * k / p->T);
  const int c1 = p->first_contact + (int)((long long)p->ncontacts * (k + 1) / p->T);
  for (int c = 0; c < p->nchunk; ++c) {
    const DetectChunk *ch = &p->chunk[c];
    if (ch->first_contact + ch->count <= c0) continue;
    if (ch->first_contact >= c1) break;
    const PendingPoint *pend = &p->member[ch->member].pend[ch->first];
    int row = ch->first_row;
    for (int i = 0; i < ch->count && ch->first_contact + i < c1; ++i) {
      const PendingPoint *pp = &pend[i];
      const int nrows = 1 + point_ndir(w->m, pp->mu);
      if (ch->first_contact + i >= c0) {
        LsimContact *ct = &set->contacts[ch->first_contact + i];
        ct->first_row = row;
        fill_point_contact(ct, &set->rows[row], w->m, w->box, &w->cone, &cache, pp->a, pp->b,
                           pp->mu, &pp->pt);
      }
      row += nrows;
    }
  }
}

/* Room for count contacts and nrows rows in all. */
static int reserve_contacts(LsimContactSet *set, int count, int nrows) {
  if (lsim_grow((void **)&set->contacts, &set->capacity, count, sizeof(LsimContact)) ||
      lsim_grow((void **)&set->rows, &set->rows_capacity, nrows, sizeof(LsimJacRow)))
    return LSIM_OUT_OF_MEMORY;
  return 0;
}

/* The tag of the scratch's header: a 2-D or 3-D detection wrote it. */
enum { ORDER_TAG = 0x50575331 };

static int detect_23d(const LsimModel *m, const LsimState *st, const double *v_free,
                      LsimContactSet *set) {
  const int S = m->nshapes, dim = m->dimension;
  /* Scratch: a header (a tag and the shape count) and the order first, which persist to
     the next step, then the workspaces. */
  const size_t n_head = 2 + (size_t)S + (S % 2); /* even: 8-byte alignment after it */
  const size_t had = set->scratch_bytes;
  if (reserve_scratch(set, n_head * sizeof(int) +
                               (size_t)S * (sizeof(ShapeBox) + sizeof(SweepBox) +
                                            2 * sizeof(double) + sizeof(KeyIndex) +
                                            2 * sizeof(int) + sizeof(SweepTag))))
    return LSIM_OUT_OF_MEMORY;
  int *head = set->scratch, *order = head + 2;
  ShapeBox *box = (ShapeBox *)(head + n_head);
  SweepBox *sweep = (SweepBox *)(box + S);
  double *lox = (double *)(sweep + S), *hix = lox + S;
  KeyIndex *keys = (KeyIndex *)(hix + S);
  int *seen = (int *)(keys + S), *cand = seen + S;
  SweepTag *tag = (SweepTag *)(cand + S);
  if (had < n_head * sizeof(int) || head[0] != ORDER_TAG || head[1] != S)
    for (int i = 0; i < S; ++i) order[i] = -1; /* no previous order */
  head[0] = ORDER_TAG, head[1] = S;
  Sweep w = {m, st, v_free, box, sweep, tag, lox, hix, order, S, {{0}, {0}, 0}, set->asleep, NULL, NULL,
             set->speed_floor, set->was, set->was_ctx};
  if (m->njoints) {
    const struct LsimPairTable *t = pair_table(set, m);
    if (!t) return LSIM_OUT_OF_MEMORY;
    if (t->nentries) w.pairs = t;
  }
  lsim_cone_weights(dim == 3 ? m->friction_directions : 0, w.cone.cs, w.cone.sn);
  w.cone.restitution = cone_restitution(m);

  /* The team, when there is one and the scene is large enough. */
  const int T = lsim_team_size(set->team);
  const int parallel = T > 1 && S >= PARALLEL_MIN_SHAPES;
  if (parallel && reserve_parallel(set, T, S)) return LSIM_OUT_OF_MEMORY;
  DetectJob job = {&w, set, 1};

  /* Shapes placed, then the sort and sweep on x: boxes by their low x (ties by index, so
     the order and hence the contact order are deterministic). */
  if (parallel) lsim_team_run(set->team, detect_member, &job);
  else place_shapes(&w, 0, S);
  sweep_order(box, S, order, keys, seen);
  for (int i = 0; i < S; ++i) {
    const ShapeBox *bx = &box[order[i]];
    lox[i] = bx->lo[0], hix[i] = bx->hi[0];
    sweep[i] = (SweepBox){bx->lo[1], bx->hi[1], bx->lo[2], bx->hi[2]};
    tag[i] = (SweepTag){order[i], bx->body,
                        (bx->dynamic ? TAG_DYNAMIC : 0) | (bx->still ? TAG_STILL : 0)};
  }
  Bands bands;
  const int banded = build_bands(set, box, lox, hix, sweep, S, dim, &bands);
  if (banded < 0) return banded;
  if (banded == 0) w.bands = &bands;
  if (!parallel) {
    DirCache cache;
    cache.ndir = -1;
    const PointSink sink = {set, &cache, NULL, NULL, NULL, NULL};
    return sweep_pairs(&w, 0, S, cand, &sink);
  }

  /* Pending points per chunk, then the chunks' places in sweep order, then the contacts
     in place. */
  struct LsimDetectTeam *p = set->parallel;
  job.stage = 2;
  lsim_team_run(set->team, detect_member, &job);
  for (int k = 0; k < T; ++k)
    if (p->member[k].rc) return p->member[k].rc;
  int count = set->count, nrows = set->nrows;
  p->first_contact = count;
  for (int c = 0; c < p->nchunk; ++c) {
    DetectChunk *ch = &p->chunk[c];
    ch->first_contact = count, ch->first_row = nrows;
    count += ch->count, nrows += ch->nrows;
  }
  if (reserve_contacts(set, count, nrows)) return LSIM_OUT_OF_MEMORY;
  p->ncontacts = count - p->first_contact;
  job.stage = 3;
  lsim_team_run(set->team, detect_member, &job);
  set->count = count, set->nrows = nrows;
  return 0;
}

/* The velocity of body k's point p at velocities v (0 for a body without velocities):
 * v_lin + w x (p - body_p) (2-D: w about z). */
static void point_velocity(const LsimModel *m, const ShapeBox *bx, const double *v,
                           const double p[3], double out[3]) {
  const LsimBody *b = &m->bodies[bx->body];
  lsim_v3_set(out, 0.0, 0.0, 0.0);
  if (b->nv <= 0) return;
  const double *vb = v + b->v_offset;
  double r[3];
  lsim_v3_sub(r, p, bx->body_p);
  if (m->dimension == 2) {
    lsim_v3_set(out, vb[0] - vb[2] * r[1], vb[1] + vb[2] * r[0], 0.0);
  } else {
    lsim_v3_set(out, vb[0] + vb[4] * r[2] - vb[5] * r[1], vb[1] + vb[5] * r[0] - vb[3] * r[2],
                vb[2] + vb[3] * r[1] - vb[4] * r[0]);
  }
}

int lsim_contacts_missed(LsimContactSet *set, const LsimModel *m, const double *v_end,
                         double *floor, int *nfast) {
  *nfast = 0;
  const int S = m->nshapes, dim = m->dimension;
  if (dim != 2 && dim != 3) return 0;
  const size_t n_head = 2 + (size_t)S + (S % 2);
  int *head = set->scratch;
  if (!head || set->scratch_bytes < n_head * sizeof(int) || head[0] != ORDER_TAG || head[1] != S)
    return 0; /* no 2-D or 3-D detection of this model */
  /* detect_23d's layout: box, sweep, lox and hix, keys, then seen (free once the sweep is
     sorted: the fast shapes' list here). */
  ShapeBox *box = (ShapeBox *)(head + n_head);
  const double *lox = (const double *)((SweepBox *)(box + S) + S);
  int *fast = (int *)((KeyIndex *)(lox + 2 * (size_t)S) + S);
  const double h = m->time_step, margin = m->contact_margin;
  /* Bodies faster at v_end than the bound their contacts were admitted with: their bound
     at v_end to floor, their shapes listed. */
  int nf = 0;
  for (int k = 0; k < m->nbodies; ++k) {
    const LsimBody *b = &m->bodies[k];
    if (b->type != LSIM_BODY_DYNAMIC || b->nshapes <= 0) continue;
    if (set->asleep && set->asleep[k]) continue;
    const double used = box[b->first_shape].speed;
    const double s_end = lsim_body_speed_bound(m, k, v_end);
    if (!(s_end > used)) continue;
    if (s_end > floor[k]) floor[k] = s_end;
    ++*nfast;
    for (int i = b->first_shape; i < b->first_shape + b->nshapes; ++i) fast[nf++] = i;
  }
  if (nf == 0) return 0;
  const struct LsimPairTable *pairs = m->njoints ? pair_table(set, m) : NULL;
  if (m->njoints && !pairs) return LSIM_OUT_OF_MEMORY;
  LsimContactPoint pts[LSIM_MAX_MANIFOLD];
  int closing = 0;
  for (int f = 0; f < nf; ++f) {
    const int i = fast[f];
    const ShapeBox *bi = &box[i];
    const double si = fmax(bi->speed, floor[bi->body]), grow_i = h * (si - bi->speed);
    for (int j = 0; j < S; ++j) {
      const ShapeBox *bj = &box[j];
      if (bj->body == bi->body) continue;
      /* Each pair of two fast bodies' shapes once: from its lower shape. */
      const int fast_j = bj->dynamic && floor[bj->body] > bj->speed;
      if (fast_j && j < i) continue;
      const double sj = fast_j ? floor[bj->body] : bj->speed, grow = grow_i + h * (sj - bj->speed);
      /* The two boxes at the end speeds (each grown by its own share). */
      int apart = 0;
      for (int d = 0; d < dim; ++d)
        apart |= bj->lo[d] > bi->hi[d] + grow || bi->lo[d] > bj->hi[d] + grow;
      if (apart) continue;
      if (pairs && pairs->nentries && !table_shapes_collide(pairs, m, i, j)) continue;
      /* The pair in detection's order: body[0] dynamic, the lower shape first. */
      int a = i, b = j;
      if (bj->dynamic && j < i) a = j, b = i;
      const double used = margin + LSIM_TOUCH_REACH + h * (box[a].speed + box[b].speed);
      const double wide = margin + LSIM_TOUCH_REACH + h * (si + sj);
      const int np = lsim_collide_placed(&box[a].placed, &box[b].placed, dim, wide, pts,
                                         LSIM_MAX_MANIFOLD);
      /* A point beyond the margin detection used was left out: does it close at v_end? */
      for (int k = 0; k < np; ++k) {
        if (!(pts[k].gap > used)) continue;
        double va[3], vb[3];
        point_velocity(m, &box[a], v_end, pts[k].point, va);
        point_velocity(m, &box[b], v_end, pts[k].point, vb);
        const double rate = (va[0] - vb[0]) * pts[k].normal[0] + (va[1] - vb[1]) * pts[k].normal[1] +
                            (va[2] - vb[2]) * pts[k].normal[2];
        closing += pts[k].gap + h * rate < 0.0;
      }
    }
  }
  return closing;
}

int lsim_detect_contacts(const LsimModel *model, const LsimState *state, const double *v_free,
                         LsimContactSet *set) {
  lsim_contacts_clear(set);
  if (model->dimension == 1) return detect_1d(model, state, v_free, set);
  if (model->dimension == 2 || model->dimension == 3) return detect_23d(model, state, v_free, set);
  return LSIM_INVALID_INPUT;
}

int lsim_contacts_add_point(LsimContactSet *set, const LsimModel *m, const LsimState *st, int sa,
                            int sb, const LsimContactPoint *pt) {
  if (sa < 0 || sb < 0 || sa >= m->nshapes || sb >= m->nshapes) return LSIM_INVALID_INPUT;
  /* The two shapes' records as place_shapes writes them (only what the contact reads). */
  ShapeBox box[2];
  memset(box, 0, sizeof box);
  const int shape[2] = {sa, sb};
  for (int k = 0; k < 2; ++k) {
    const LsimShape *sh = &m->shapes[shape[k]];
    double q[4];
    lsim_body_pose(m, st, sh->body, box[k].body_p, q);
    box[k].mu = fmax(sh->mu, 0.0);
    box[k].body = sh->body;
    box[k].moves = m->bodies[sh->body].nv > 0;
  }
  Cone cone;
  lsim_cone_weights(m->friction_directions, cone.cs, cone.sn);
  cone.restitution = cone_restitution(m);
  DirCache cache;
  cache.ndir = -1;
  const double mu = pair_mu(box[0].mu, box[1].mu);
  const int rc = add_point_contact(set, m, box, &cone, &cache, 0, 1, mu, pt);
  if (!rc) set->contacts[set->count - 1].id = lsim_contact_id(sa, sb, pt->feature);
  return rc;
}
