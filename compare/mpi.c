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

/* Sets handed out on demand (lsim_mpi_share_*): the problems this rank took, a counter on
   rank 0 in an RMA window, and the serial count. */
static unsigned char *g_owned = NULL; /* [items]: item i is problem i / width, series i % width */
static int g_nowned = 0, g_width = 1, g_serial_next = 0;
static MPI_Win g_win = MPI_WIN_NULL;
static int *g_counter = NULL;

int lsim_mpi_owns(int k) {
  if (g_owned) return k >= 0 && k * g_width < g_nowned && g_owned[k * g_width];
  return k % g_size == g_rank;
}

/* 1 when this rank solved cell (k, s): on-demand sharing by cells, else its row's owner. */
static int owns_cell(int k, int s, int width) {
  if (g_owned && width == g_width) return g_owned[k * g_width + s];
  return lsim_mpi_owns(k);
}

void lsim_mpi_share_begin(int n, int width) {
  g_serial_next = 0;
  free(g_owned);
  g_owned = NULL;
  g_width = width > 0 ? width : 1;
  if (g_size == 1 || n <= 0) return;
  g_owned = calloc((size_t)n * (size_t)g_width, 1);
  g_nowned = n * g_width;
  const MPI_Aint bytes = g_rank == 0 ? (MPI_Aint)sizeof(int) : 0;
  if (!g_owned || MPI_Win_allocate(bytes, (int)sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                                   &g_counter, &g_win) != MPI_SUCCESS) {
    /* no window: fall back to k mod K (every rank takes the same branch: the allocation
       is collective and fails on all) */
    free(g_owned);
    g_owned = NULL;
    g_win = MPI_WIN_NULL;
    return;
  }
  if (g_rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, g_win);
    *g_counter = 0;
    MPI_Win_unlock(0, g_win);
  }
  MPI_Barrier(MPI_COMM_WORLD); /* the counter is 0 before anyone takes from it */
}

int lsim_mpi_share_next(void) {
  if (!g_owned) {
    /* serial, or k mod K without a window: the next index this rank owns */
    while (g_size > 1 && g_serial_next % g_size != g_rank) ++g_serial_next;
    return g_serial_next++;
  }
  const int one = 1;
  int got = 0;
  MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, g_win);
  MPI_Fetch_and_op(&one, &got, MPI_INT, 0, 0, MPI_SUM, g_win);
  MPI_Win_unlock(0, g_win);
  if (got >= 0 && got < g_nowned) g_owned[got] = 1;
  return got;
}

void lsim_mpi_share_end(void) {
  if (g_win == MPI_WIN_NULL) return;
  wait_quietly();
  MPI_Win_free(&g_win);
  g_win = MPI_WIN_NULL;
  g_counter = NULL;
}

int lsim_mpi_max_int(int v) {
  if (g_size == 1) return v;
  wait_quietly();
  int out = v;
  MPI_Allreduce(&v, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return out;
}

/* Zeroes the entries of a [rows * width] array this rank did not compute, then sums onto 0. */
static int merge(void *a, MPI_Datatype type, size_t elem, int rows, int width) {
  if (!a || rows <= 0) return 0;
  char *p = a;
  for (int k = 0; k < rows; ++k)
    for (int s = 0; s < width; ++s)
      if (!owns_cell(k, s, width)) memset(p + ((size_t)k * width + s) * elem, 0, elem);
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
  /* qdiff and vdiff are NULL but in independent mode (compare/table.h). */
  for (size_t k = 0; k < sizeof dbl / sizeof *dbl; ++k)
    if (dbl[k]) rc |= merge(dbl[k], MPI_DOUBLE, sizeof(double), N, P);
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
  lsim_mpi_share_end();
  free(g_owned);
  g_owned = NULL;
  if (g_started) MPI_Finalize();
  g_started = 0;
}
