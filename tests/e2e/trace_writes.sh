# trace_writes.sh: sourced by the e2e scripts that replay a traced run's writes as kills
# with tests/e2e/flush_replay.py (killed_flush.sh, fc_killed.sh). Sourcing it alone
# (run-checks runs every tests/e2e/*.sh) defines the functions and does nothing else.
#
# trace_writes_or_skip NAME: where strace cannot trace (none, or ptrace refused), says so
# as NAME and ends the calling script with 0.
# trace_writes TRACE CMD...: runs CMD under strace, TRACE recording what flush_replay.py
# replays: every open and write of every thread, whole buffers in hex.
trace_writes_or_skip() {
  if ! strace -o /dev/null true 2> /dev/null; then
    echo "$1: strace cannot trace here (none, or ptrace refused): skipped"
    exit 0
  fi
}
trace_writes() {
  tw_trace=$1
  shift
  strace -f -o "$tw_trace" -e trace=openat,pwrite64,pwritev,write,ftruncate -e signal=none \
    -xx -s 2000000 "$@"
}
