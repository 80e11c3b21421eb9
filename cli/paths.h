/* paths.h: checks on the command's output paths (cli/paths.c). */
#ifndef LSIM_CLI_PATHS_H
#define LSIM_CLI_PATHS_H

/* 1 when both paths exist and name the same file (same device and inode: also through
 * links and different spellings), else 0. An output equal to an input is refused. */
int lsim_cli_same_file(const char *a, const char *b);

#endif
