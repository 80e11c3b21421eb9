/* mpi.h: comparisons over MPI ranks (`mpirun -np K lcpsim compare ...`).
 *
 * A step of a shadow comparison belongs to rank k mod K. The files of an LCP set and the
 * (file, solver) cells of a frictional contact set are handed out on demand
 * (lsim_mpi_share_*): a rank done with one takes the next nobody has taken, from
 * a counter on rank 0 (an RMA window, MPI_Fetch_and_op), so a few costly files among many
 * cheap ones do not leave the other ranks idle. Every rank reads every input and runs the
 * same code; a rank solves only the problems it owns (in shadow mode every rank still steps the reference trajectory, which the steps
 * need, and hands the series only its own steps); the table rows are then summed onto rank
 * 0, whose rows of other ranks are zero, and rank 0 alone writes the file and prints. The
 * file is the serial run's, timings apart (every solve is the same deterministic code on
 * the same data). MPI is initialised only when the process was started by mpirun
 * (OMPI_COMM_WORLD_SIZE or PMIX_RANK in the environment): a plain `lcpsim` never touches
 * it. Independent mode and --dump-lcp run serially (refused under mpirun with K > 1).
 */
#ifndef LSIM_COMPARE_MPI_H
#define LSIM_COMPARE_MPI_H

#include "compare/table.h"

/* Initialises MPI when started by mpirun; returns the number of ranks (1 otherwise). */
int lsim_mpi_start(void);
/* This process's rank (0 when not under MPI) and the number of ranks (1). */
int lsim_mpi_rank(void);
int lsim_mpi_size(void);
/* 1 when this rank owns problem k: k mod K, or (after lsim_mpi_share_begin) the problems
 * it took. */
int lsim_mpi_owns(int k);
/* On-demand sharing of the n x width cells (problem k, series s) as items k * width + s
 * (collective: every rank calls begin and end). lsim_mpi_share_next: the next item this
 * rank is to compute, increasing, >= n * width when none is left (serially 0, 1, 2, ...);
 * call it once before the loop and again after each item, so a rank holds one at a time.
 * end frees the counter; the ownership stays for the merge (arrays [n * width]: by cell;
 * others by the row's first cell). */
void lsim_mpi_share_begin(int n, int width);
int lsim_mpi_share_next(void);
void lsim_mpi_share_end(void);
/* The largest of v over the ranks (v itself when not under MPI): ranks agree on errors. */
int lsim_mpi_max_int(int v);
/* Sums every per-problem array of t over the ranks onto rank 0, after zeroing the rows
 * this rank does not own (rows it owns are left as they are). 0 or -1. */
int lsim_mpi_merge_table(LsimCompareTable *t);
/* The same for one extra [rows * width] array of doubles or ints. 0 or -1. */
int lsim_mpi_merge_doubles(double *a, int rows, int width);
int lsim_mpi_merge_ints(int *a, int rows, int width);
void lsim_mpi_finish(void);

#endif
