/* fuzz.h: shared by the libFuzzer targets tests/fuzz/fuzz_*.c (make fuzz, docs/fuzzing.md).
 * Readers that take a path get the input through a temporary file, rewritten per input. */
#ifndef LSIM_FUZZ_H
#define LSIM_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* As in a release build, an allocation too large for the machine returns NULL (a damaged
 * HDF5 file can make the library ask for exabytes; it handles NULL) instead of stopping the
 * sanitizer; the targets' own allocations are bounded by their readers' checks, and any
 * allocation above -malloc_limit_mb is still reported. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }

/* The temporary file of this process (created once, removed at exit), holding data; the
 * readers tell the kinds apart by content, so suffix only names the file. */
static char lsim_fuzz_path[64];

static void lsim_fuzz_unlink(void) {
  if (lsim_fuzz_path[0]) unlink(lsim_fuzz_path);
}

static inline const char *lsim_fuzz_file(const uint8_t *data, size_t size, const char *suffix) {
  if (!lsim_fuzz_path[0]) {
    /* Memory-backed when there is /dev/shm: one file write per input. */
    const char *dir = getenv("LSIM_FUZZ_TMPDIR");
    if (!dir || !*dir) dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
    snprintf(lsim_fuzz_path, sizeof lsim_fuzz_path, "%.32s/lsimfuzz_%.8s_XXXXXX",
             dir && *dir ? dir : "/tmp", suffix + (*suffix == '.'));
    const int fd = mkstemp(lsim_fuzz_path);
    if (fd < 0) abort();
    close(fd);
    atexit(lsim_fuzz_unlink);
  }
  FILE *f = fopen(lsim_fuzz_path, "wb");
  if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f)) abort();
  return lsim_fuzz_path;
}

/* A NUL-terminated copy of the input (text readers). */
static inline char *lsim_fuzz_text(const uint8_t *data, size_t size) {
  char *s = malloc(size + 1);
  if (!s) abort();
  memcpy(s, data, size);
  s[size] = '\0';
  return s;
}

#endif
