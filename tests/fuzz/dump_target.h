/* dump_target.h: the body of the two HDF5 dump targets (fuzz_run_h5, fuzz_compare_h5):
 * the input is written to a temporary .h5 file and read as `lcpsim solve FILE.h5 --step K
 * [--series S]` reads it (lsim_lcpdump_read); an accepted problem must be consistent
 * (cone blocks inside 0..n-1, finite data) and is then measured and solved as the
 * command does, so that nothing the reader lets through can break a solver. */
#include <math.h>

#include <hdf5.h>

#include "fuzz.h"
#include "lcp/quality.h"
#include "lcp/solver.h"
#include "scene/lcpdump.h"

static void lsim_fuzz_check_dump(const LsimDumpedLcp *d) {
  const LsimLcp *l = &d->lcp;
  /* A problem is dense (M finite), factored (structurally sound), or both. */
  if (l->n < 0 || (l->n > 0 && !l->q) || d->nsolutions < 0 || (!d->dense && !d->factored)) abort();
  if (d->dense && ((l->n > 0 && !l->M) || lsim_lcp_check_finite(l))) abort();
  if (!d->dense && l->M) abort();
  if (d->factored && (d->f.n != l->n || d->f.q != l->q || lsim_factored_check(&d->f))) abort();
  for (int c = 0; c < l->ncones; ++c) {
    const LsimConeBlock *b = &l->cones[c];
    if (b->normal < -1 || b->normal >= l->n || b->lambda < 0 || b->lambda >= l->n ||
        b->ndir < 0 || b->first_dir < 0 || b->first_dir + b->ndir > l->n)
      abort();
  }
  const size_t m = d->factored ? (size_t)d->f.m : 0;
  double *z = calloc((size_t)l->n + 1, sizeof(double));
  double *work = calloc(2 * (size_t)l->n + m + 1, sizeof(double));
  if (!z || !work) abort();
  memcpy(z, d->warm, (size_t)l->n * sizeof(double));
  LsimQuality qm;
  if (d->dense) lsim_lcp_quality(l, z, work, -1.0, &qm);
  else lsim_factored_quality(&d->f, z, work, -1.0, &qm);
  for (int j = 0; j < d->nsolutions; ++j)
    (void)lsim_quality_distance(l->n, z, d->z + (size_t)j * l->n);
  if (l->n <= 64) {
    static const char *const names[] = {"lemke", "pgs"};
    for (int s = 0; s < 2; ++s) {
      LsimSolverOptions opt = lsim_default_solver_options();
      opt.max_iter = 50;
      LsimSolver *solver = NULL;
      char err[256];
      if (lsim_solver_create(&solver, names[s], &opt, err, sizeof err)) abort();
      LsimSolveStats st;
      memset(z, 0, (size_t)l->n * sizeof(double));
      if (d->dense) (void)lsim_solver_solve(solver, l, z, &st);
      else (void)lsim_solver_solve_factored(solver, &d->f, z, &st);
      lsim_solver_free(solver);
    }
  }
  free(z);
  free(work);
}

/* Reads steps 1..nsteps of each series in series[0..nseries-1] (-1: the default). */
static int lsim_fuzz_dump(const uint8_t *data, size_t size, const int *series, int nseries,
                          int nsteps) {
  const char *path = lsim_fuzz_file(data, size, ".h5");
  for (int s = 0; s < nseries; ++s)
    for (int k = 1; k <= nsteps; ++k) {
      LsimDumpedLcp d;
      char err[1024];
      const int rc = lsim_lcpdump_read(path, k, series[s], &d, err, sizeof err);
      /* Every HDF5 handle closed again, whatever happened (an open one keeps the file). */
      if (H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) != 0) abort();
      if (rc) {
        if (!err[0] || d.lcp.M || d.z || d.cones) abort();
        continue;
      }
      lsim_fuzz_check_dump(&d);
      lsim_dumped_lcp_free(&d);
    }
  return 0;
}
