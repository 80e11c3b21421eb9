/* interrupt.c: SIGINT, SIGTERM and SIGHUP ask a running command (run, hybrid run,
 * compare) to stop between steps (cli/cli.h); the one handler every command shares.
 * SIGHUP (the terminal closed, an ssh connection dropped) killed a run by its default
 * action: the file stayed as PATH.<pid>.partial, up to its last flush, with no summary. */
#include <signal.h>
#include <string.h>

#include "cli/cli.h"

volatile sig_atomic_t lsim_cli_interrupted = 0;

/* The first signal only records which came; the loops check it between steps. A second
 * one (a step that runs for minutes, a user pressing Ctrl-C again) ends the process at once
 * by the signal's default action, as kill -9 would: the run's file stays as its partial
 * file, up to its last flush (docs/output-format.md, "Output files"). */
static void on_interrupt(int sig) {
  if (lsim_cli_interrupted) {
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    sigemptyset(&dfl.sa_mask);
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, NULL);
    raise(sig);
    return;
  }
  lsim_cli_interrupted = sig;
}

void lsim_cli_catch_interrupts(int on) {
  /* SIGHUP ignored when the command began (nohup) stays ignored: the run goes on. */
  static int hup_checked, hup_ignored;
  if (!hup_checked) {
    struct sigaction old;
    hup_ignored = sigaction(SIGHUP, NULL, &old) == 0 && old.sa_handler == SIG_IGN;
    hup_checked = 1;
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sigemptyset(&sa.sa_mask);
  sa.sa_handler = on ? on_interrupt : SIG_DFL;
  sa.sa_flags = SA_RESTART; /* the file's writes go on; the loop checks the flag */
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  if (!hup_ignored) sigaction(SIGHUP, &sa, NULL);
}

const char *lsim_cli_signal_name(int sig) {
  return sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "SIGINT";
}

/* As a shell reports a process the signal ended: 128 + its number. */
int lsim_cli_interrupt_status(int sig) {
  return sig == SIGTERM ? 143 : sig == SIGHUP ? 129 : 130;
}
