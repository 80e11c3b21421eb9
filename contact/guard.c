/* guard.c: the divergence guard (see guard.h). */
#include "contact/guard.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Coordinate names by dimension (as the output file's q_components / v_components). */
static const char *const q_names[3][7] = {
    {"x"}, {"x", "y", "theta"}, {"x", "y", "z", "qw", "qx", "qy", "qz"}};
static const char *const v_names[3][6] = {
    {"vx"}, {"vx", "vy", "omega"}, {"vx", "vy", "vz", "wx", "wy", "wz"}};

static int set_fault(LsimStateFault *f, int kind, int body, int contact, const char *quantity,
                     const char *component, double value, double limit, const char *key) {
  *f = (LsimStateFault){.kind = kind, .body = body, .contact = contact, .quantity = quantity,
                        .component = component, .value = value, .limit = limit,
                        .limit_key = key};
  return kind;
}

/* Euclidean norm of x [n], scaled by the largest |x_i| so that the squares neither
 * overflow (1e200 is no inf) nor underflow; NaN when an x_i is. */
static double norm(const double *x, int n) {
  double big = 0.0, s = 0.0;
  for (int i = 0; i < n; ++i)
    if (!(fabs(x[i]) <= big)) big = fabs(x[i]); /* a NaN sticks */
  if (big == 0.0 || !isfinite(big)) return big;
  for (int i = 0; i < n; ++i) s += (x[i] / big) * (x[i] / big);
  return big * sqrt(s);
}

int lsim_state_check(const LsimModel *m, const LsimState *st, const LsimContactSet *cs,
                     LsimStateFault *fault) {
  LsimStateFault local;
  if (!fault) fault = &local;
  memset(fault, 0, sizeof *fault);
  fault->body = fault->contact = -1;
  fault->quantity = fault->component = fault->limit_key = "";
  const int d = m->dimension - 1, dim = m->dimension;
  const LsimLimits *lim = &m->limits;

  /* Non-finite coordinates first, body by body. */
  for (int i = 0; i < m->nbodies; ++i) {
    const LsimBody *b = &m->bodies[i];
    for (int j = 0; j < b->nq; ++j)
      if (!isfinite(st->q[b->q_offset + j]))
        return set_fault(fault, LSIM_FAULT_NOT_FINITE, i, -1,
                         j < dim ? "position" : "orientation", q_names[d][j],
                         st->q[b->q_offset + j], 0.0, "");
    for (int j = 0; j < b->nv; ++j)
      if (!isfinite(st->v[b->v_offset + j]))
        return set_fault(fault, LSIM_FAULT_NOT_FINITE, i, -1,
                         j < dim ? "velocity" : "angular velocity", v_names[d][j],
                         st->v[b->v_offset + j], 0.0, "");
  }
  /* Non-finite impulses of the step's contact rows. */
  for (int c = 0; cs && c < cs->count; ++c) {
    const LsimContact *ct = &cs->contacts[c];
    const char *what = NULL;
    double val = 0.0;
    if (!isfinite(ct->normal_impulse)) what = "normal impulse", val = ct->normal_impulse;
    for (int j = 0; !what && j < 3; ++j)
      if (!isfinite(ct->friction_impulse[j])) what = "friction impulse", val = ct->friction_impulse[j];
    if (!what && !isfinite(ct->slip_speed)) what = "slip speed", val = ct->slip_speed;
    if (what) return set_fault(fault, LSIM_FAULT_NOT_FINITE, ct->body[0], c, what, "", val, 0.0, "");
  }
  /* Bounds: position, speed, angular speed of each moving body. */
  for (int i = 0; i < m->nbodies; ++i) {
    const LsimBody *b = &m->bodies[i];
    if (b->nq == 0) continue;
    const double *q = st->q + b->q_offset, *v = st->v + b->v_offset;
    const double p = norm(q, dim), s = norm(v, dim);
    if (p > lim->max_position)
      return set_fault(fault, LSIM_FAULT_BEYOND_LIMIT, i, -1, "position", "", p,
                       lim->max_position, "max_position");
    if (s > lim->max_speed)
      return set_fault(fault, LSIM_FAULT_BEYOND_LIMIT, i, -1, "velocity", "", s,
                       lim->max_speed, "max_speed");
    if (dim > 1) {
      const double w = dim == 2 ? fabs(v[2]) : norm(v + 3, 3);
      if (w > lim->max_angular_speed)
        return set_fault(fault, LSIM_FAULT_BEYOND_LIMIT, i, -1, "angular velocity", "", w,
                         lim->max_angular_speed, "max_angular_speed");
    }
  }
  return LSIM_FAULT_NONE;
}

void lsim_format_beyond(char *buf, size_t len, double value, double limit) {
  for (int digits = 4; digits <= 17; ++digits) {
    snprintf(buf, len, "%.*g", digits, value);
    if (!(strtod(buf, NULL) <= limit)) return;
  }
}

void lsim_state_fault_format(const LsimModel *m, int step, const LsimStateFault *f, char *buf,
                             size_t len) {
  const char *name = f->body >= 0 && f->body < m->nbodies ? m->bodies[f->body].name : "?";
  /* The inputs are finite (the scene and the API refuse others), so a value that is not
     came from the step's arithmetic leaving the double range: an inf, or a NaN an inf
     made (inf - inf, 0 * inf). Said so, and a NaN's meaningless sign left out ("-nan"). */
  const char *nonfinite = isnan(f->value) ? "NaN" : f->value > 0 ? "inf" : "-inf";
  static const char overflow[] = "not finite: an overflow, beyond the double range of 1.8e308";
  if (f->kind == LSIM_FAULT_NOT_FINITE && f->contact >= 0) {
    snprintf(buf, len, "step %d: body '%s': contact %d's %s is %s (%s)", step, name,
             f->contact, f->quantity, nonfinite, overflow);
  } else if (f->kind == LSIM_FAULT_NOT_FINITE) {
    snprintf(buf, len, "step %d: body '%s': %s %s is %s (%s)", step, name, f->quantity,
             f->component, nonfinite, overflow);
  } else if (f->kind == LSIM_FAULT_BEYOND_LIMIT) {
    const char *unit = !strcmp(f->limit_key, "max_position") ? "m"
                       : !strcmp(f->limit_key, "max_speed") ? "m/s" : "rad/s";
    /* A speed of 3.0000000000000004 rad/s read "3 rad/s, beyond ... = 3 rad/s". */
    char value[40];
    lsim_format_beyond(value, sizeof value, f->value, f->limit);
    snprintf(buf, len, "step %d: body '%s': |%s| = %s %s, beyond limits.%s = %g %s", step,
             name, f->quantity, value, unit, f->limit_key, f->limit, unit);
  } else {
    snprintf(buf, len, "step %d: no fault", step);
  }
}
