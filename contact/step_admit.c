/* step_admit.c: stage 5b of the time step, the admission check.
 *
 * Detection (contact/contact.c) admits a 2-D or 3-D contact when its gap is at most
 * margin + 1e-9 m + h (s_a + s_b), s each body's speed bound at its free velocity. The
 * impulses of the step can make a body faster than that (a ball at rest struck by
 * another), and a shape beyond the bound then goes into the step's end unchecked: the
 * struck ball ends 4 mm inside the next one of a row (docs/solvers.md, "Contacts left
 * out by the admission bound"). After the solve, the bodies that end faster than their
 * bound are collided again at their end speeds; when a left-out point closes within the
 * step (gap + h J v' < 0), the step detects, assembles and solves again with those
 * bodies' bounds raised to their end speeds (set->speed_floor), at most LSIM_ADMIT_RERUNS
 * times; what still closes after the last is kept and counted (LsimStepStats).
 * A step without a body faster than its bound costs a pass over the bodies and changes
 * nothing: its contacts and results are those of detection alone, bit for bit.
 */
#include <stdlib.h>
#include <string.h>

#include "contact/step_private.h"

int lsim_step_admit(LsimStepper *s, const LsimModel *m, const double *bz, int pass, int *nfast) {
  *nfast = 0;
  if (m->dimension != 2 && m->dimension != 3) return 0;
  if (!s->admit_v) {
    s->admit_v = malloc((size_t)(m->nv > 0 ? m->nv : 1) * sizeof(double));
    s->admit_floor = calloc((size_t)m->nbodies + 1, sizeof(double));
    if (!s->admit_v || !s->admit_floor) return LSIM_OUT_OF_MEMORY;
  } else if (pass == 0) {
    memset(s->admit_floor, 0, (size_t)m->nbodies * sizeof(double));
  }
  /* v' as stage 6 integrates it (kinematic bodies: their prescribed v_free, no B rows). */
  for (int i = 0; i < m->nv; ++i) s->admit_v[i] = s->v_free[i] + (bz ? bz[i] : 0.0);
  return lsim_contacts_missed(&s->contacts, m, s->admit_v, s->admit_floor, nfast);
}
