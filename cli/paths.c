/* paths.c: checks on the command's output paths. */
#include "cli/paths.h"

#include <sys/stat.h>

int lsim_cli_same_file(const char *a, const char *b) {
  struct stat sa, sb;
  return a && b && stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}
