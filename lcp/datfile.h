/* datfile.h: the Siconos ".dat" LCP file format, read and written.
 *
 * Format (as Siconos' linearComplementarity_newFromFile reads it), whitespace-separated:
 *   n
 *   storage: 0 dense, 1 sparse-block, 2 sparse (CSparse's printed form, as Siconos writes
 *     NM_SPARSE matrices: a banner, "N-by-N, nzmax: K nnz: K, 1-norm: X", then per column
 *     "col j : locations a to b" and "i : value" lines)
 *   dense:  size0 size1, size0 size1 again, size0*size1 numbers column-major, then q (n)
 *   sparse-block: nbblocks, blocknumber0 blocknumber1, cumulative row block sizes,
 *     cumulative column block sizes, filled1 filled2, block-row pointers, block-column
 *     indices, then per block its number and values (column-major), then q.
 * Text after q is ignored (a comment); a number after q is an error (more data than n
 * needs). See ../shared/data/README.md.
 */
#ifndef LSIM_DATFILE_H
#define LSIM_DATFILE_H

#include <stddef.h>
#include <stdio.h>

#include "lcp.h"

/* Reads path into lcp (initialised here; the caller frees with lsim_lcp_free).
 * Returns 0, or LSIM_IO_ERROR (cannot open) / LSIM_INVALID_INPUT (malformed: truncated,
 * wrong sizes, non-numbers, NaN or Inf) with a one-line message "path:line:column: what" (columns count characters) in err.
 * On error lcp is left freed (zeroed). */
int lsim_dat_read(const char *path, LsimLcp *lcp, char *err, size_t errlen);

/* The same from an open stream; name is used in messages. A seekable stream holding a
 * Siconos mixed LCP (MLCP) file is refused as such ("name:1:1: a mixed linear
 * complementarity problem ..."), never misread. */
int lsim_dat_read_stream(FILE *f, const char *name, LsimLcp *lcp, char *err, size_t errlen);

/* 1 if path starts like a Siconos mixed LCP .dat file (mixedLinearComplementarity_newFromFile:
 * "1 st2 n m", block rows 0 .. n+m, a 0/1 flag per block, a storage type; or "0 1 n m"). */
int lsim_dat_is_mlcp(const char *path);

/* Writes lcp to path, dense (storage 0) or sparse-block with square blocks of size
 * block_size (storage 1, block_size must divide n; all-zero off-diagonal blocks are
 * omitted, diagonal blocks always written).
 * Numbers are printed with 17 significant digits, so a read gives back the same doubles.
 * Returns 0, LSIM_IO_ERROR or LSIM_INVALID_INPUT, with a message in err. */
int lsim_dat_write(const char *path, const LsimLcp *lcp, int sparse_block, int block_size,
                   char *err, size_t errlen);

/* Reads a Siconos frictionContact .dat file (dim, nc, the matrix W as above with n = dim *
 * nc, q, then mu [nc]; nothing may follow) into p (lcp/fc.h, initialised and indexed here).
 * 0, or LSIM_IO_ERROR / LSIM_INVALID_INPUT / LSIM_OUT_OF_MEMORY with "path:line:column: what" (columns count characters);
 * p is left freed on error. */
struct LsimFc;
int lsim_fc_dat_read(const char *path, struct LsimFc *p, char *err, size_t errlen);

#endif
