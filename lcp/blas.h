/* blas.h: the dense BLAS that Siconos and CHOLMOD call, kept to one thread.
 *
 * Debian links Siconos Numerics against OpenBLAS, whose pthread build starts one worker per
 * core at load time. lcpsim's dense problems are small (n of a few thousand at most), so
 * the workers only compete with the PGS team for the cores (an idle worker spins), and the
 * result of a Siconos solver then depends on the machine's core count: blocked sums are
 * split differently. Measured: siconos:newton_min on lcp_CPS_4 ends in a breakdown (info 0,
 * NaN z) with one thread and in 1000 iterations without convergence with two.
 */
#ifndef LSIM_BLAS_H
#define LSIM_BLAS_H

/* Sets the BLAS in the process to one thread when it is OpenBLAS (looked up as a weak
 * symbol: with another BLAS, or none, it does nothing). Idempotent and cheap; called by
 * every context that reaches the BLAS (Siconos adapter, CHOLMOD factorizations, UMFPACK in
 * lemke_sparse and newton's Schur solves) before its first call, and by
 * lsim_siconos_error, the dgemv of every dense solve's record (a Lemke run alone had
 * computed it in threads, the same run beside a Siconos solver in one: its last digits
 * differed). Process-wide: a program embedding lcpsim that wants threaded BLAS may set it
 * back after creating its contexts. */
void lsim_blas_one_thread(void);

#endif
