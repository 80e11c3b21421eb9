/* cli.h: the lcpsim command's subcommands and argument helpers. */
#ifndef LSIM_CLI_H
#define LSIM_CLI_H

/* Each subcommand takes the arguments after its name; returns the process exit status:
 * 0 success, 1 a solver did not solve, 2 bad input or usage. */
int lsim_cli_solve(int argc, char **argv);
int lsim_cli_run(int argc, char **argv);
int lsim_cli_compare(int argc, char **argv);
int lsim_cli_export(int argc, char **argv);
int lsim_cli_view(int argc, char **argv);
int lsim_cli_impact(int argc, char **argv);

/* Strict parsers: the whole string must be a number (finite for doubles). 0 or -1. */
int lsim_cli_parse_double(const char *s, double *out);
int lsim_cli_parse_int(const char *s, int *out);

#endif
