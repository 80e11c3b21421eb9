/* mpi.c: comparisons over MPI ranks (compare/mpi.h). */
#include "compare/mpi.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

static int g_rank = 0, g_size = 1, g_started = 0;

int lsim_mpi_start(void) {
  if (g_started) return g_size;
  if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMIX_RANK")) return 1;
  int flag = 0;
  MPI_Initialized(&flag);
  if (!flag && MPI_Init(NULL, NULL) != MPI_SUCCESS) return 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  g_started = 1;
  return g_size;
}

int lsim_mpi_rank(void) { return g_rank; }
int lsim_mpi_size(void) { return g_size; }
int lsim_mpi_owns(int k) { return k % g_size == g_rank; }

/* Waits for every rank without spinning: a rank done with its problems would otherwise
 * poll inside the next collective at full speed (Open MPI's default), taking a core from
 * the ranks still solving (two ranks on a 2-core machine: the serial run was faster).
 * A non-blocking barrier tested every millisecond, sleeping in between. */
static void wait_quietly(void) {
  MPI_Request req;
  if (MPI_Ibarrier(MPI_COMM_WORLD, &req) != MPI_SUCCESS) return;
  const struct timespec pause = {0, 1000000};
  int done = 0;
  while (MPI_Test(&req, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done)
    nanosleep(&pause, NULL);
}

int lsim_mpi_max_int(int v) {
  if (g_size == 1) return v;
  wait_quietly();
  int out = v;
  MPI_Allreduce(&v, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return out;
}

/* Zeroes the rows of a [rows * width] array this rank does not own, then sums onto 0. */
static int merge(void *a, MPI_Datatype type, size_t elem, int rows, int width) {
  if (!a || rows <= 0) return 0;
  char *p = a;
  for (int k = 0; k < rows; ++k)
    if (!lsim_mpi_owns(k)) memset(p + (size_t)k * width * elem, 0, (size_t)width * elem);
  const int count = rows * width;
  const int rc = g_rank == 0 ? MPI_Reduce(MPI_IN_PLACE, a, count, type, MPI_SUM, 0, MPI_COMM_WORLD)
                             : MPI_Reduce(a, NULL, count, type, MPI_SUM, 0, MPI_COMM_WORLD);
  return rc == MPI_SUCCESS ? 0 : -1;
}

int lsim_mpi_merge_table(LsimCompareTable *t) {
  if (g_size == 1) return 0;
  const int N = t->N, P = t->P;
  int *ints[] = {t->status, t->success, t->iters, t->warm, t->size, t->nsliding, t->skipped};
  double *dbl[] = {t->wall, t->res, t->rel, t->compl_, t->sig, t->cone, t->diss,
                   t->dist, t->sicerr, t->qdiff, t->vdiff, t->spread};
  int rc = 0;
  for (size_t k = 0; k < sizeof ints / sizeof *ints; ++k)
    rc |= merge(ints[k], MPI_INT, sizeof(int), N, P);
  for (size_t k = 0; k < sizeof dbl / sizeof *dbl; ++k)
    rc |= merge(dbl[k], MPI_DOUBLE, sizeof(double), N, P);
  rc |= merge(t->hash, MPI_UINT64_T, sizeof(uint64_t), N, P);
  rc |= merge(t->step, MPI_INT, sizeof(int), N, 1);
  rc |= merge(t->time, MPI_DOUBLE, sizeof(double), N, 1);
  rc |= merge(t->problem_hash, MPI_UINT64_T, sizeof(uint64_t), N, 1);
  rc |= merge(t->problem_dense_hash, MPI_UINT64_T, sizeof(uint64_t), N, 1);
  rc |= merge(t->problem_size, MPI_INT, sizeof(int), N, 1);
  return rc ? -1 : 0;
}

int lsim_mpi_merge_doubles(double *a, int rows, int width) {
  return g_size == 1 ? 0 : merge(a, MPI_DOUBLE, sizeof(double), rows, width);
}

int lsim_mpi_merge_ints(int *a, int rows, int width) {
  return g_size == 1 ? 0 : merge(a, MPI_INT, sizeof(int), rows, width);
}

void lsim_mpi_finish(void) {
  if (g_started) MPI_Finalize();
  g_started = 0;
}
