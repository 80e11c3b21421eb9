/* interrupt.c: SIGINT and SIGTERM ask a running command (run, hybrid run, compare) to
 * stop between steps (cli/cli.h); the one handler every command shares. */
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
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sigemptyset(&sa.sa_mask);
  sa.sa_handler = on ? on_interrupt : SIG_DFL;
  sa.sa_flags = SA_RESTART; /* the file's writes go on; the loop checks the flag */
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

const char *lsim_cli_signal_name(int sig) { return sig == SIGTERM ? "SIGTERM" : "SIGINT"; }

int lsim_cli_interrupt_status(int sig) { return sig == SIGTERM ? 143 : 130; }
