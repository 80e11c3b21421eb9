/* islands.h: the independent parts ("islands") of a factored LCP M = J B + C.
 *
 * Two variables are coupled when they share an inner index k (J(i, k) or B(k, i) nonzero:
 * in contact dynamics a generalized velocity of a moving body) or a nonzero of C. The
 * islands are the connected components of that coupling: M is block diagonal over them
 * (after a permutation), so the LCP splits into one independent LCP per island, and a
 * solver may solve them one by one. Static bodies have no generalized velocities, so two
 * piles on one ground are two islands. lcp/ knows nothing of bodies: only the sparsity
 * patterns of J, B and C are read.
 */
#ifndef LSIM_ISLANDS_H
#define LSIM_ISLANDS_H

#include "factored.h"

typedef struct LsimIslands LsimIslands;

/* A workspace that grows on demand (no allocation for sizes already seen). */
LsimIslands *lsim_islands_create(void);
void lsim_islands_free(LsimIslands *is);

/* Finds the islands of f (which must pass the factored check). Returns the count (>= 0;
 * 0 when n = 0), or LSIM_OUT_OF_MEMORY. Islands are numbered in the order of their first
 * variable; variables keep their order inside an island. Cost O(n + m + nnz). */
int lsim_islands_find(LsimIslands *is, const LsimFactoredLcp *f);

/* The sub-problem of island k of the last lsim_islands_find: its variables in their order
 * (vars [nk], global indices), inner indices renumbered 0 .. mk-1 in order of first use,
 * J, B, C, q and the cones restricted to it. Points into storage the workspace owns,
 * valid until the next extract or find. 0 or LSIM_OUT_OF_MEMORY. */
int lsim_islands_extract(LsimIslands *is, const LsimFactoredLcp *f, int k, LsimFactoredLcp *sub,
                         const int **vars);

/* The size of island k (variables). */
int lsim_islands_size(const LsimIslands *is, int k);

#endif
