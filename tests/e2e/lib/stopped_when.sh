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
