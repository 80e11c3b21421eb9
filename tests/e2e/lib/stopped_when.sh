# lib/stopped_when.sh: sourced by the e2e scripts that read a running run's partial file
# (interrupted_runs.sh, output_files.sh); the caller defines fail MESSAGE.
#
# stopped_when PID CMD...: stops run PID (SIGSTOP) and runs CMD (without HDF5's file lock,
# which the writer holds) until it succeeds with the run stopped, naps of 0.2 s doubling to
# 4 s between tries, 120 s at most (then the run is killed and the test fails). Returns
# with the run stopped: the caller continues it (SIGCONT) or signals it. A running run
# flushes every 256 steps (a few ms), faster than a reader opens the file, and on a loaded
# machine reads taken while it ran were torn for a minute on end (tests/e2e/resume.sh).
stopped_when() {
  sw_pid=$1
  shift
  sw_end=$(($(date +%s) + 120))
  sw_nap=0.2
  while :; do
    [ "$(date +%s)" -lt $sw_end ] || { kill -9 $sw_pid 2> /dev/null; fail "$* never held while run $sw_pid was stopped"; }
    sleep $sw_nap
    kill -STOP $sw_pid 2> /dev/null || fail "run $sw_pid ended before: $*"
    (export HDF5_USE_FILE_LOCKING=FALSE; "$@") > /dev/null 2>&1 && return 0
    kill -CONT $sw_pid
    # (longer naps each time: a check takes seconds on a loaded machine, and the run
    # must get on between them)
    sw_nap=$(awk "BEGIN { print $sw_nap * 2 < 4 ? $sw_nap * 2 : 4 }")
  done
}

# flushed PARTIAL N: PARTIAL's /flushed_rows is N or more: a flush of that many rows (row 0
# the initial state; a comparison's rows are its steps) reached the file whole. For
# stopped_when: a run stopped so is past its start (its signal handlers set, steps done).
flushed() {
  [ -f "$1" ] && /usr/bin/python3 -c "
import sys, h5py
with h5py.File(sys.argv[1], 'r') as f:
    sys.exit(0 if int(f['flushed_rows'][()]) >= int(sys.argv[2]) else 1)
" "$1" "$2"
}

# delivered PID SIGNUM: returns once signal SIGNUM sent to PID is no longer pending (its
# handler has taken it), 120 s at most (/proc/PID/status, SigPnd and ShdPnd). A second
# signal sent after a first was taken is a second one; sent before, the two of one kind
# merge into one, and the run waits for its step (a loaded machine can leave a process
# off its core longer than any fixed pause).
delivered() {
  dl_end=$(($(date +%s) + 120))
  while :; do
    dl_pnd=$(awk '/^(SigPnd|ShdPnd):/ { printf "%s ", $2 }' "/proc/$1/status" 2> /dev/null) || return 0
    [ -n "$dl_pnd" ] || return 0 # (ended)
    dl_any=0
    for dl_m in $dl_pnd; do dl_any=$((dl_any | (0x$dl_m >> ($2 - 1) & 1))); done
    [ $dl_any -eq 0 ] && return 0
    [ "$(date +%s)" -lt $dl_end ] || fail "signal $2 to run $1 still pending after 120 s"
    sleep 0.05
  done
}
