/* datfile.c: the Siconos ".dat" LCP format (see datfile.h), read and written.
 *
 * The reader accepts exactly what Siconos 4.4's linearComplementarity_newFromFile reads
 * for well-formed files (same tokens, strtod = glibc's %le conversion, so the same
 * doubles) and refuses, with "path:LINE:COLUMN: what", what Siconos would misread silently:
 * truncation, sizes that disagree with n, text where a number belongs, NaN or Inf,
 * inconsistent block structure, a number after q (more data than n needs; text after q
 * is a comment, as Siconos' files have). Differences on purpose: Siconos only warns on a wrong
 * block number and reads a number of more than 32 characters inside a block as two
 * ("%32le"); both are errors here.
 */
#include "datfile.h"
#include "fc.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Largest n read or written: a dense M of 32768^2 doubles is already 8 GiB. */
#define LSIM_DAT_MAX_N 32768
/* Longest token kept; longer ones are reported as errors, never truncated silently. */
#define TOKEN_MAX 127

/* Whitespace-separated tokens with the line and column each starts on. Columns are
 * 1-based and count characters (a UTF-8 continuation byte adds none), as the scene
 * reader's do; a tab is one column. */
typedef struct Lexer {
  FILE *f;
  const char *name;
  int line;              /* line of the next character (1-based) */
  int col;               /* its column */
  int tok_line;          /* line of the last token (1 before any) */
  int tok_col;           /* column of its first character */
  int end_col;           /* column just after it: where "file ends" points */
  char tok[TOKEN_MAX + 1];
  size_t tok_len;        /* full length, may exceed TOKEN_MAX */
  char shown[4 * TOKEN_MAX + 1]; /* tok as messages quote it (shown()) */
  const char *mat;       /* the matrix' name in messages: "M" (LCP), "W" (frictional contact) */
  char *err;
  size_t errlen;
} Lexer;

/* Where an error points: the last token's start, just after it (the file ends where
 * more was expected), the next character (read errors), or the file's start. */
typedef enum { AT_TOKEN, AT_END, AT_HERE, AT_START } Where;

/* Formats "name:line:column: msg" into the error buffer; returns rc. */
static int fail(const Lexer *lx, Where at, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(const Lexer *lx, Where at, int rc, const char *fmt, ...) {
  if (!lx->err || !lx->errlen) return rc;
  const int line = at == AT_HERE ? lx->line : at == AT_START ? 1 : lx->tok_line;
  const int col = at == AT_TOKEN  ? lx->tok_col
                  : at == AT_END  ? lx->end_col
                  : at == AT_HERE ? lx->col
                                  : 1;
  int k = snprintf(lx->err, lx->errlen, "%s:%d:%d: ", lx->name, line, col);
  if (k < 0 || (size_t)k >= lx->errlen) return rc;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(lx->err + k, lx->errlen - (size_t)k, fmt, ap);
  va_end(ap);
  return rc;
}

/* The last token as messages quote it: bytes outside printable ASCII as \xNN (a binary
 * file, a UTF-8 byte order mark would otherwise print as nothing or as garbage). */
static const char *shown(Lexer *lx) {
  size_t k = 0;
  for (const unsigned char *c = (const unsigned char *)lx->tok; *c; ++c)
    if (*c >= 0x20 && *c < 0x7f) lx->shown[k++] = (char)*c;
    else k += (size_t)snprintf(lx->shown + k, sizeof lx->shown - k, "\\x%02X", *c);
  lx->shown[k] = '\0';
  return lx->shown;
}

/* Moves the position past character c. */
static void advance(Lexer *lx, int c) {
  if (c == '\n') {
    lx->line++;
    lx->col = 1;
  } else if ((c & 0xC0) != 0x80) {
    lx->col++;
  }
}

static int is_space(int c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Next token: 1 found, 0 end of file, LSIM_IO_ERROR on a read error. */
static int next_token(Lexer *lx) {
  int c;
  while ((c = getc(lx->f)) != EOF && is_space(c)) advance(lx, c);
  if (c == EOF) {
    if (ferror(lx->f))
      return fail(lx, AT_HERE, LSIM_IO_ERROR, "read error: %s", strerror(errno));
    return 0;
  }
  lx->tok_line = lx->line;
  lx->tok_col = lx->col;
  lx->tok_len = 0;
  while (c != EOF && !is_space(c)) {
    if (lx->tok_len < TOKEN_MAX) lx->tok[lx->tok_len] = (char)c;
    lx->tok_len++;
    advance(lx, c);
    c = getc(lx->f);
  }
  lx->tok[lx->tok_len < TOKEN_MAX ? lx->tok_len : TOKEN_MAX] = '\0';
  lx->end_col = lx->col;
  /* The separator that ended the token is consumed too. */
  if (c != EOF) advance(lx, c);
  if (c == EOF && ferror(lx->f))
    return fail(lx, AT_HERE, LSIM_IO_ERROR, "read error: %s", strerror(errno));
  return 1;
}

/* Reads an integer called what; "file ends" and "not an integer" are errors. */
static int read_int(Lexer *lx, const char *what, long *out) {
  int t = next_token(lx);
  if (t < 0) return t;
  if (t == 0) return fail(lx, AT_END, LSIM_INVALID_INPUT, "expected %s, file ends", what);
  if (lx->tok_len > TOKEN_MAX)
    return fail(lx, AT_TOKEN, LSIM_INVALID_INPUT, "%s: token too long: '%.20s...'", what,
                shown(lx));
  char *end;
  errno = 0;
  long v = strtol(lx->tok, &end, 10);
  if (end == lx->tok || *end != '\0')
    return fail(lx, AT_TOKEN, LSIM_INVALID_INPUT, "%s: not an integer: '%s'", what,
                shown(lx));
  if (errno == ERANGE)
    return fail(lx, AT_TOKEN, LSIM_INVALID_INPUT, "%s: integer out of range: '%s'", what,
                shown(lx));
  *out = v;
  return 0;
}

/* Reads an integer in [lo, hi]. */
static int read_int_range(Lexer *lx, const char *what, long lo, long hi, long *out) {
  int rc = read_int(lx, what, out);
  if (rc) return rc;
  if (*out < lo || *out > hi)
    return fail(lx, AT_TOKEN, LSIM_INVALID_INPUT, "%s %ld out of range [%ld, %ld]", what,
                *out, lo, hi);
  return 0;
}

/* Reads count finite doubles into dst[0], dst[stride], ... (stride 1 for contiguous);
 * maxlen > 0 limits the token length (Siconos' %32le inside blocks). */
static int read_doubles(Lexer *lx, double *dst, size_t count, const char *what,
                        const char *where, size_t maxlen) {
  for (size_t k = 0; k < count; ++k) {
    int t = next_token(lx);
    if (t < 0) return t;
    if (t == 0)
      return fail(lx, AT_END, LSIM_INVALID_INPUT, "expected %zu %s, file ends after %zu",
                  count, what, k);
    if (lx->tok_len > TOKEN_MAX || (maxlen && lx->tok_len > maxlen))
      return fail(lx, AT_TOKEN, LSIM_INVALID_INPUT,
                  "number longer than %zu characters in %s: '%.20s...'",
                  maxlen ? maxlen : (size_t)TOKEN_MAX, where, shown(lx));
    char *end;
    errno = 0;
    double v = strtod(lx->tok, &end);
    if (end == lx->tok || *end != '\0')
      return fail(lx, AT_TOKEN, LSIM_INVALID_INPUT, "not a number: '%s'", shown(lx));
    /* A finite number written beyond the doubles (1e400) named as such, not as an Inf. */
    if (isinf(v) && errno == ERANGE)
      return fail(lx, AT_TOKEN, LSIM_INVALID_INPUT, "'%s' in %s is beyond the range of a double",
                  shown(lx), where);
    if (!isfinite(v)) return fail(lx, AT_TOKEN, LSIM_INVALID_INPUT, "NaN or Inf in %s", where);
    dst[k] = v;
  }
  return 0;
}

/* Reads the cumulative block sizes: strictly increasing, the last equal to n. */
static int read_cumulative(Lexer *lx, const char *what, long count, long n, long *sizes) {
  long prev = 0;
  for (long i = 0; i < count; ++i) {
    int rc = read_int(lx, what, &sizes[i]);
    if (rc) return rc;
    if (sizes[i] <= prev || sizes[i] > n)
      return fail(lx, AT_TOKEN, LSIM_INVALID_INPUT,
                  "%s %ld: must increase and stay within n %ld", what, sizes[i], n);
    prev = sizes[i];
  }
  if (prev != n)
    return fail(lx, AT_TOKEN, LSIM_INVALID_INPUT, "last of %s is %ld, n is %ld", what, prev, n);
  return 0;
}

/* The sparse-block part (after size0 size1), scattered into the zeroed dense lcp->M. */
static int read_sparse_block(Lexer *lx, LsimLcp *lcp) {
  const long n = lcp->n;
  long nbblocks = 0, bn0 = 0, bn1 = 0, filled1 = 0, filled2 = 0;
  long *bs0 = NULL, *bs1 = NULL, *idx1 = NULL, *idx2 = NULL;
  double *vals = NULL;
  int rc = read_int_range(lx, "nbblocks", 0, n * n, &nbblocks);
  /* Siconos stops reading the matrix at nbblocks 0: M = 0, q follows. */
  if (rc || nbblocks == 0) return rc;
  if ((rc = read_int_range(lx, "blocknumber0", 1, n, &bn0))) return rc;
  if ((rc = read_int_range(lx, "blocknumber1", 1, n, &bn1))) return rc;
  bs0 = malloc((size_t)bn0 * sizeof *bs0);
  bs1 = malloc((size_t)bn1 * sizeof *bs1);
  vals = malloc((size_t)n * (size_t)n * sizeof *vals);
  if (!bs0 || !bs1 || !vals) {
    rc = fail(lx, AT_HERE, LSIM_OUT_OF_MEMORY, "out of memory");
    goto done;
  }
  if ((rc = read_cumulative(lx, "row block size", bn0, n, bs0))) goto done;
  if ((rc = read_cumulative(lx, "column block size", bn1, n, bs1))) goto done;
  if ((rc = read_int_range(lx, "filled1", 1, bn0 + 1, &filled1))) goto done;
  if ((rc = read_int_range(lx, "filled2", nbblocks, nbblocks, &filled2))) goto done;
  idx1 = malloc((size_t)filled1 * sizeof *idx1);
  idx2 = malloc((size_t)filled2 * sizeof *idx2);
  if (!idx1 || !idx2) {
    rc = fail(lx, AT_HERE, LSIM_OUT_OF_MEMORY, "out of memory");
    goto done;
  }
  /* Row pointers: start at 0, never decrease, end at filled2. */
  for (long i = 0; i < filled1; ++i) {
    if ((rc = read_int_range(lx, "block-row pointer", i ? idx1[i - 1] : 0, i ? filled2 : 0,
                             &idx1[i])))
      goto done;
  }
  if (idx1[filled1 - 1] != filled2) {
    rc = fail(lx, AT_TOKEN, LSIM_INVALID_INPUT, "last block-row pointer %ld is not filled2 %ld",
              idx1[filled1 - 1], filled2);
    goto done;
  }
  /* Column indices: in range, increasing within a row (no block given twice). */
  for (long i = 0; i < filled2; ++i)
    if ((rc = read_int_range(lx, "block-column index", 0, bn1 - 1, &idx2[i]))) goto done;
  for (long r = 0; r + 1 < filled1; ++r)
    for (long b = idx1[r] + 1; b < idx1[r + 1]; ++b)
      if (idx2[b] <= idx2[b - 1]) {
        rc = fail(lx, AT_TOKEN, LSIM_INVALID_INPUT,
                  "block-column indices of block row %ld not increasing", r);
        goto done;
      }
  /* Blocks in order: their number, then their values column-major. */
  for (long r = 0; r + 1 < filled1; ++r) {
    const long r0 = r ? bs0[r - 1] : 0, rows = bs0[r] - r0;
    for (long b = idx1[r]; b < idx1[r + 1]; ++b) {
      const long c = idx2[b], c0 = c ? bs1[c - 1] : 0, cols = bs1[c] - c0;
      long number;
      if ((rc = read_int(lx, "block number", &number))) goto done;
      if (number != b) {
        rc = fail(lx, AT_TOKEN, LSIM_INVALID_INPUT, "block number %ld, expected %ld", number, b);
        goto done;
      }
      char what[64];
      snprintf(what, sizeof what, "values of block %ld", b);
      if ((rc = read_doubles(lx, vals, (size_t)(rows * cols), what, lx->mat, 32))) goto done;
      for (long j = 0; j < cols; ++j)
        for (long i = 0; i < rows; ++i)
          lcp->M[(size_t)(r0 + i) + (size_t)(c0 + j) * (size_t)n] = vals[i + j * rows];
    }
  }
done:
  free(bs0);
  free(bs1);
  free(idx1);
  free(idx2);
  free(vals);
  return rc;
}

/* Expects the token word. */
static int expect(Lexer *lx, const char *word, const char *where) {
  int t = next_token(lx);
  if (t < 0) return t;
  if (t == 0) return fail(lx, AT_END, LSIM_INVALID_INPUT, "expected '%s' %s, file ends",
                          word, where);
  if (strcmp(lx->tok, word))
    return fail(lx, AT_TOKEN, LSIM_INVALID_INPUT, "expected '%s' %s, got '%.20s'", word,
                where, shown(lx));
  return 0;
}

/* Storage 2: a compressed-column matrix as CSparse's cs_print writes it (Siconos'
 * NM_SPARSE files): a banner, "N-by-N, nzmax: K nnz: K, 1-norm: X", then per column
 * "col j : locations a to b" and its entries "i : value". */
static int read_csparse_print(Lexer *lx, LsimLcp *lcp) {
  const long n = lcp->n;
  long nnz = -1;
  int rc, t;
  /* the banner, up to "nnz:" and its count */
  while ((t = next_token(lx)) > 0)
    if (!strcmp(lx->tok, "nnz:")) break;
  if (t < 0) return t;
  if (t == 0) return fail(lx, AT_END, LSIM_INVALID_INPUT, "sparse matrix: no 'nnz:' header");
  /* "K," */
  if ((t = next_token(lx)) <= 0)
    return t < 0 ? t : fail(lx, AT_END, LSIM_INVALID_INPUT, "sparse matrix: header ends");
  {
    char *end;
    errno = 0;
    nnz = strtol(lx->tok, &end, 10);
    if (end == lx->tok || strcmp(end, ",") || errno || nnz < 0 || nnz > n * n)
      return fail(lx, AT_TOKEN, LSIM_INVALID_INPUT, "sparse matrix: bad nnz '%s'", shown(lx));
  }
  if ((rc = expect(lx, "1-norm:", "in the sparse matrix header"))) return rc;
  if ((t = next_token(lx)) <= 0)
    return t < 0 ? t : fail(lx, AT_END, LSIM_INVALID_INPUT, "sparse matrix: header ends");
  long seen = 0;
  for (long j = 0; j < n; ++j) {
    long col, a, b;
    if ((rc = expect(lx, "col", "(a column of the sparse matrix)"))) return rc;
    if ((rc = read_int_range(lx, "column", j, j, &col))) return rc;
    if ((rc = expect(lx, ":", "after the column number"))) return rc;
    if ((rc = expect(lx, "locations", "after 'col j :'"))) return rc;
    if ((rc = read_int_range(lx, "first location", seen, seen, &a))) return rc;
    if ((rc = expect(lx, "to", "between the locations"))) return rc;
    if ((rc = read_int_range(lx, "last location", a - 1, nnz - 1, &b))) return rc;
    for (long k = a; k <= b; ++k) {
      long row;
      double v = 0.0;
      if ((rc = read_int_range(lx, "row", 0, n - 1, &row))) return rc;
      if ((rc = expect(lx, ":", "after the row number"))) return rc;
      if ((rc = read_doubles(lx, &v, 1, "matrix entry", lx->mat, 0))) return rc;
      lcp->M[(size_t)row + (size_t)j * (size_t)n] += v;
    }
    seen = b + 1;
  }
  if (seen != nnz)
    return fail(lx, AT_TOKEN, LSIM_INVALID_INPUT, "sparse matrix: %ld entries, header says %ld",
                seen, nnz);
  return 0;
}

/* The whole file; lcp is initialised once n is known. */
static int read_body(Lexer *lx, LsimLcp *lcp, long n, int *storage_out);

static int read_all(Lexer *lx, LsimLcp *lcp) {
  long n;
  int t = next_token(lx);
  if (t < 0) return t;
  if (t == 0) return fail(lx, AT_START, LSIM_INVALID_INPUT, "empty file, expected n");
  /* A UTF-8 byte order mark, which some editors write first: Siconos' reader does not
     skip it either, so it is named rather than quoted as part of n. */
  if (!strncmp(lx->tok, "\xEF\xBB\xBF", 3))
    return fail(lx, AT_TOKEN, LSIM_INVALID_INPUT,
                "the file starts with a UTF-8 byte order mark (bytes EF BB BF): save it "
                "without BOM");
  /* The first token is n (read here to tell an empty file apart). */
  {
    char *end;
    errno = 0;
    n = strtol(lx->tok, &end, 10);
    if (lx->tok_len > TOKEN_MAX || end == lx->tok || *end != '\0')
      return fail(lx, AT_TOKEN, LSIM_INVALID_INPUT, "n: not an integer: '%s'", shown(lx));
    if (errno == ERANGE || n < 0 || n > LSIM_DAT_MAX_N)
      return fail(lx, AT_TOKEN, LSIM_INVALID_INPUT, "n %s out of range [0, %d]", shown(lx),
                  LSIM_DAT_MAX_N);
  }
  int rc = read_body(lx, lcp, n, NULL);
  if (rc) return rc;
  /* Text after q is a comment (Siconos' files end with one, "Remark 4.1.14 CPS 2009");
     a number right after q means more numbers than n needs: the sizes are wrong. */
  const int after = next_token(lx);
  if (after < 0) return after;
  if (after == 1) {
    char *end;
    (void)strtod(lx->tok, &end);
    if (end != lx->tok && *end == '\0')
      return fail(lx, AT_TOKEN, LSIM_INVALID_INPUT,
                  "a number ('%s') follows the %ld entries of q: more numbers than n = %ld "
                  "needs (text after q is a comment, a number is not)", shown(lx), n, n);
  }
  return 0;
}

/* After n: the storage type, the matrix (initialising lcp) and q. *storage_out (if not
 * NULL) receives the storage type. */
static int read_body(Lexer *lx, LsimLcp *lcp, long n, int *storage_out) {
  long storage = 0, size0, size1;
  int rc = read_int(lx, "storage type", &storage);
  if (rc) return rc;
  if (storage_out) *storage_out = (int)storage;
  if (storage != 0 && storage != 1 && storage != 2)
    return fail(lx, AT_TOKEN, LSIM_INVALID_INPUT,
                "storage type %ld not supported (0 dense, 1 sparse-block, 2 sparse)", storage);
  if ((rc = read_int(lx, "size0", &size0))) return rc;
  if (size0 != n)
    return fail(lx, AT_TOKEN, LSIM_INVALID_INPUT, "size0 %ld does not match n %ld", size0, n);
  if ((rc = read_int(lx, "size1", &size1))) return rc;
  if (size1 != n)
    return fail(lx, AT_TOKEN, LSIM_INVALID_INPUT, "size1 %ld does not match n %ld", size1, n);
  if (lsim_lcp_init(lcp, (int)n))
    return fail(lx, AT_END, LSIM_OUT_OF_MEMORY,
                "out of memory for n = %ld (M is stored dense: %.3g GB)", n,
                (double)n * (double)n * 8e-9);

  if (storage == 0) {
    /* Dense: the sizes again, then M column-major. */
    if ((rc = read_int(lx, "size0", &size0))) return rc;
    if (size0 != n)
      return fail(lx, AT_TOKEN, LSIM_INVALID_INPUT, "size0 %ld does not match n %ld", size0, n);
    if ((rc = read_int(lx, "size1", &size1))) return rc;
    if (size1 != n)
      return fail(lx, AT_TOKEN, LSIM_INVALID_INPUT, "size1 %ld does not match n %ld", size1, n);
    if ((rc = read_doubles(lx, lcp->M, (size_t)n * (size_t)n, "matrix entries", lx->mat, 0)))
      return rc;
  } else if (storage == 2) {
    if ((rc = read_csparse_print(lx, lcp))) return rc;
  } else if ((rc = read_sparse_block(lx, lcp))) {
    return rc;
  }
  /* q; anything after it is ignored, as Siconos does. */
  return read_doubles(lx, lcp->q, (size_t)n, "entries of q", "q", 0);
}

/* A lexer at the start of stream f (name for errors), err cleared. */
static Lexer lexer_start(FILE *f, const char *name, char *err, size_t errlen) {
  Lexer lx;
  memset(&lx, 0, sizeof lx);
  lx.f = f;
  lx.name = name;
  lx.line = 1;
  lx.col = 1;
  lx.tok_line = 1;
  lx.tok_col = 1;
  lx.end_col = 1;
  lx.err = err;
  lx.errlen = errlen;
  lx.mat = "M";
  if (err && errlen) err[0] = '\0';
  return lx;
}

/* Opens path for reading; NULL with the reason in err when it cannot. */
static FILE *open_read(const char *path, char *err, size_t errlen) {
  FILE *f = fopen(path, "r");
  if (!f && err && errlen) snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
  return f;
}

/* Next integer token of the probe; 0 when the file ends or the token is no integer. */
static int probe_int(Lexer *lx, long *v) {
  if (next_token(lx) != 1 || lx->tok_len > TOKEN_MAX) return 0;
  char *end;
  errno = 0;
  *v = strtol(lx->tok, &end, 10);
  return end != lx->tok && *end == '\0' && errno == 0;
}

/* The header of a Siconos mixed LCP file (mixedLinearComplementarity_newFromFile):
 * "isStorageType1 isStorageType2 n m", then for storage type 1 the block rows (0, then
 * increasing to n + m), a 0/1 flag per block and the matrix' storage type (0, 1, 2).
 * "0 1 n m" with n + m >= 1 is no LCP either (an LCP of n = 0 has sizes 0). */
static int mlcp_signature(Lexer *lx, long *n, long *m) {
  long st1, st2, v;
  if (!probe_int(lx, &st1) || !probe_int(lx, &st2) || !probe_int(lx, n) || !probe_int(lx, m))
    return 0;
  if ((st1 != 0 && st1 != 1) || (st2 != 0 && st2 != 1) || !(st1 || st2) || *n < 0 || *m < 0 ||
      *n > LSIM_DAT_MAX_N || *m > LSIM_DAT_MAX_N || *n + *m < 1)
    return 0;
  if (!st1) return 1;
  long prev, blocks = 0;
  if (!probe_int(lx, &prev) || prev != 0) return 0;
  while (prev < *n + *m) {
    if (!probe_int(lx, &v) || v <= prev || v > *n + *m) return 0;
    prev = v, ++blocks;
  }
  for (long b = 0; b < blocks; ++b)
    if (!probe_int(lx, &v) || (v != 0 && v != 1)) return 0;
  return probe_int(lx, &v) && v >= 0 && v <= 2;
}

int lsim_dat_read_stream(FILE *f, const char *name, LsimLcp *lcp, char *err, size_t errlen) {
  Lexer lx = lexer_start(f, name ? name : "(stream)", err, errlen);
  memset(lcp, 0, sizeof *lcp);
  /* A mixed LCP file is named as such (a seekable stream only): read as an LCP it fails
     on a size, or for n = m = 1 reads silently as a 1 x 1 LCP of M = 0. */
  const long start = ftell(f);
  if (start >= 0) {
    long n = 0, m = 0;
    const int mlcp = mlcp_signature(&lx, &n, &m);
    if (fseek(f, start, SEEK_SET) != 0) return fail(&lx, AT_START, LSIM_IO_ERROR, "cannot seek back");
    lx = lexer_start(f, name ? name : "(stream)", err, errlen);
    if (mlcp)
      return fail(&lx, AT_START, LSIM_INVALID_INPUT,
                  "a mixed linear complementarity problem (Siconos MLCP .dat: %ld equality and "
                  "%ld complementarity rows), not supported; supported: LCP .dat, frictional "
                  "contact .dat, FCLIB .hdf5, run or compare .h5 (--step)", n, m);
  }
  int rc = read_all(&lx, lcp);
  if (rc) lsim_lcp_free(lcp);
  return rc;
}

int lsim_dat_is_mlcp(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  Lexer lx = lexer_start(f, path, NULL, 0);
  long n, m;
  const int mlcp = mlcp_signature(&lx, &n, &m);
  fclose(f);
  return mlcp;
}

int lsim_dat_read(const char *path, LsimLcp *lcp, char *err, size_t errlen) {
  memset(lcp, 0, sizeof *lcp);
  FILE *f = open_read(path, err, errlen);
  if (!f) return LSIM_IO_ERROR;
  int rc = lsim_dat_read_stream(f, path, lcp, err, errlen);
  fclose(f);
  return rc;
}

/* A frictional contact file: dim, nc, then the matrix and q as in an LCP file with n =
 * dim * nc, then mu (nc). */
static int read_fc(Lexer *lx, LsimFc *p) {
  long dim, nc;
  int rc = read_int_range(lx, "dimension", 2, 3, &dim);
  if (rc) return rc;
  if ((rc = read_int_range(lx, "number of contacts", 1, LSIM_DAT_MAX_N / dim, &nc))) return rc;
  LsimLcp body;
  memset(&body, 0, sizeof body);
  int storage = 0;
  if ((rc = read_body(lx, &body, dim * nc, &storage))) {
    lsim_lcp_free(&body);
    return rc;
  }
  if ((rc = lsim_fc_init(p, (int)dim, (int)nc))) {
    lsim_lcp_free(&body);
    return fail(lx, AT_HERE, rc, "out of memory");
  }
  memcpy(p->W, body.M, (size_t)p->n * (size_t)p->n * sizeof(double));
  memcpy(p->q, body.q, (size_t)p->n * sizeof(double));
  lsim_lcp_free(&body);
  p->storage = storage;
  if ((rc = read_doubles(lx, p->mu, (size_t)nc, "friction coefficients", "mu", 0))) return rc;
  for (long i = 0; i < nc; ++i)
    if (p->mu[i] < 0.0)
      return fail(lx, AT_TOKEN, LSIM_INVALID_INPUT, "mu of contact %ld is negative (%g)", i,
                  p->mu[i]);
  /* Anything after mu is ignored, as Siconos does (its files often end with a solver id). */
  if (lsim_fc_index(p)) return fail(lx, AT_HERE, LSIM_OUT_OF_MEMORY, "out of memory");
  return 0;
}

int lsim_fc_dat_read(const char *path, LsimFc *p, char *err, size_t errlen) {
  memset(p, 0, sizeof *p);
  FILE *f = open_read(path, err, errlen);
  if (!f) return LSIM_IO_ERROR;
  Lexer lx = lexer_start(f, path, err, errlen);
  lx.mat = "W";
  int rc = read_fc(&lx, p);
  fclose(f);
  if (rc) lsim_fc_free(p);
  return rc;
}

/* 1 if block (bi, bj) is written: diagonal blocks always (Siconos' SBM solvers need them,
 * and its reader cannot take nbblocks 0), others when an entry is not +0.0 (-0.0 kept). */
static int block_nonzero(const LsimLcp *lcp, int bs, int bi, int bj) {
  const size_t n = (size_t)lcp->n;
  if (bi == bj) return 1;
  for (int j = 0; j < bs; ++j)
    for (int i = 0; i < bs; ++i) {
      double v = lcp->M[(size_t)(bi * bs + i) + (size_t)(bj * bs + j) * n];
      if (v != 0.0 || signbit(v)) return 1;
    }
  return 0;
}

/* The sparse-block body (after "n\n1\nn n\n"): structure, then blocks. */
static void write_sparse_block(FILE *f, const LsimLcp *lcp, int bs) {
  const int n = lcp->n, nb = n / bs;
  long nbblocks = 0;
  for (int bi = 0; bi < nb; ++bi)
    for (int bj = 0; bj < nb; ++bj) nbblocks += block_nonzero(lcp, bs, bi, bj);
  fprintf(f, "%ld\n", nbblocks);
  /* Only n = 0 has no blocks; Siconos reads nothing more of the matrix after 0. */
  if (nbblocks == 0) return;
  fprintf(f, "%d\n%d\n", nb, nb);
  for (int pass = 0; pass < 2; ++pass) {
    for (int b = 0; b < nb; ++b) fprintf(f, "%d\t", (b + 1) * bs);
    fputc('\n', f);
  }
  fprintf(f, "%d\n%ld\n", nb + 1, nbblocks);
  /* Block-row pointers, then block-column indices, in row order. */
  long count = 0;
  fprintf(f, "0\t");
  for (int bi = 0; bi < nb; ++bi) {
    for (int bj = 0; bj < nb; ++bj) count += block_nonzero(lcp, bs, bi, bj);
    fprintf(f, "%ld\t", count);
  }
  fputc('\n', f);
  for (int bi = 0; bi < nb; ++bi)
    for (int bj = 0; bj < nb; ++bj)
      if (block_nonzero(lcp, bs, bi, bj)) fprintf(f, "%d\t", bj);
  fputc('\n', f);
  count = 0;
  for (int bi = 0; bi < nb; ++bi)
    for (int bj = 0; bj < nb; ++bj) {
      if (!block_nonzero(lcp, bs, bi, bj)) continue;
      fprintf(f, "%ld\n", count++);
      for (int j = 0; j < bs; ++j)
        for (int i = 0; i < bs; ++i)
          fprintf(f, "%.17g\n", lcp->M[(size_t)(bi * bs + i) + (size_t)(bj * bs + j) * (size_t)n]);
    }
}

int lsim_dat_write(const char *path, const LsimLcp *lcp, int sparse_block, int block_size,
                   char *err, size_t errlen) {
  const int n = lcp->n;
  if (n < 0 || n > LSIM_DAT_MAX_N || (n > 0 && (!lcp->M || !lcp->q))) {
    if (err && errlen) snprintf(err, errlen, "%s: invalid problem (n = %d)", path, n);
    return LSIM_INVALID_INPUT;
  }
  if (sparse_block && (block_size <= 0 || (n > 0 && n % block_size != 0))) {
    if (err && errlen)
      snprintf(err, errlen, "%s: block size %d does not divide n %d", path, block_size, n);
    return LSIM_INVALID_INPUT;
  }
  if (lsim_lcp_check_finite(lcp)) {
    if (err && errlen) snprintf(err, errlen, "%s: NaN or Inf in M or q, not written", path);
    return LSIM_INVALID_INPUT;
  }
  FILE *f = fopen(path, "w");
  if (!f) {
    if (err && errlen) snprintf(err, errlen, "%s: cannot open for writing: %s", path, strerror(errno));
    return LSIM_IO_ERROR;
  }
  /* Header, then M (dense: one column per line), then q on the last line. */
  fprintf(f, "%d\n%d\n%d\n%d\n", n, sparse_block ? 1 : 0, n, n);
  if (sparse_block) {
    write_sparse_block(f, lcp, block_size);
  } else {
    fprintf(f, "%d\t%d\n", n, n);
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < n; ++i) fprintf(f, "%.17g ", lcp->M[(size_t)i + (size_t)j * (size_t)n]);
      fputc('\n', f);
    }
  }
  for (int i = 0; i < n; ++i) fprintf(f, "%.17g ", lcp->q[i]);
  fputc('\n', f);
  int bad = ferror(f);
  if (fclose(f) != 0) bad = 1;
  if (bad) {
    if (err && errlen) snprintf(err, errlen, "%s: write error: %s", path, strerror(errno));
    return LSIM_IO_ERROR;
  }
  return 0;
}
