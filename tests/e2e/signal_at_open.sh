#!/bin/sh
# A signal that comes while the output file is made: SIGINT, SIGTERM or SIGHUP delivered
# (strace's signal injection) at the file's first write, its header's, after
# PATH.<pid>.partial exists. Each run (time-stepping, continued with --resume,
# event-driven, a hybrid model, a comparison) stops as a signal between steps stops it:
# exit 128 + the signal, the file put in place marked interrupted, no partial file; the
# time-stepping run then continues with --resume as one run. Before, the run and hybrid
# commands caught the signals only once the file was made: the signal's default action
# killed them there, leaving PATH.<pid>.partial with no summary (exit 130 from the shell
# all the same), and tests that signalled a run as soon as its partial file appeared
# (tests/e2e/resume.sh, record_stride.sh) failed when a loaded machine was slow to begin.
set -eu
cd "$(dirname "$0")/../.."
PY=/usr/bin/python3
L=${LSIM:-$(pwd)/lcpsim}
# (LSIM=build/san/lcpsim: LeakSanitizer cannot run under ptrace; ASan and UBSan do)
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
out=$(mktemp -d /tmp/lsim_e2e_signal_at_open_XXXXXX)
trap 'rm -rf "$out"' EXIT
fail() { echo "signal_at_open: $*" >&2; exit 1; }
if ! strace -f -o /dev/null -e trace=pwrite64 -e inject=pwrite64:signal=INT:when=1 true 2> /dev/null; then
  echo "signal_at_open: strace cannot inject signals here (none, too old, or ptrace refused): skipped"
  exit 0
fi

# in_place NAME SIG WHERE RUN_END: $out/NAME.h5 put in place (no partial file left), its
# /summary/run_end RUN_END (SIG delivered at the file's WHERE, for the messages).
in_place() {
  [ -f "$out/$1.h5" ] && [ -z "$(ls "$out" | grep partial)" ] \
    || fail "$1 SIG$2 at the file's $3: not put in place (killed there): $(ls "$out")"
  $PY -c "
import sys, h5py
with h5py.File(sys.argv[1], 'r') as f:
    assert f['summary/run_end'][()] == sys.argv[2].encode(), f['summary/run_end'][()]
" "$out/$1.h5" "$4" || fail "$1 SIG$2 at the file's $3: $out/$1.h5 is not marked $4"
}

# at_open NAME SIG WANT CMD...: runs CMD -o $out/NAME.h5 with SIG delivered at its first
# pwrite64 (the first write of the file: nothing is written before it is made), and checks
# exit WANT, the file in place, no partial file and /summary/run_end interrupted.
at_open() {
  name=$1 sig=$2 want=$3
  shift 3
  f="$out/$name.h5"
  rc=0
  strace -f -o /dev/null -e trace=pwrite64 -e inject=pwrite64:signal=$sig:when=1 \
    "$@" -o "$f" --quiet 2> "$out/$name.err" || rc=$?
  [ $rc -eq "$want" ] || fail "$name SIG$sig: exit $rc, not $want: $(head -c 600 "$out/$name.err")"
  in_place "$name" "$sig" "first write" interrupted
  grep -qF "SIG$sig" "$out/$name.err" || fail "$name SIG$sig: $(head -c 600 "$out/$name.err")"
}

at_open run INT 130 "$L" data/pile_10.json --steps 200
grep -qF "interrupted by SIGINT after 0 of 200 steps" "$out/run.err" || fail "run: $(cat "$out/run.err")"
# (continued from its one row, as one run of 100 steps: the same /q)
"$L" data/pile_10.json --resume "$out/run.h5" --steps 100 -o "$out/run100.h5" --quiet \
  || fail "--resume of the run interrupted at its file's first write failed"
"$L" data/pile_10.json --steps 100 -o "$out/straight.h5" --quiet
$PY -c "
import sys, h5py, numpy as np
a, b = (h5py.File(p, 'r') for p in sys.argv[1:3])
assert a['q'].shape == b['q'].shape and np.array_equal(a['q'][()], b['q'][()])
" "$out/run100.h5" "$out/straight.h5" || fail "the run continued from step 0 is not one run of 100 steps"
# A continued run: the signal at its new file's first write (before the rows are copied).
at_open resumed TERM 143 "$L" data/pile_10.json --resume "$out/run100.h5" --steps 150
grep -qF "interrupted by SIGTERM after 100 of 150 steps" "$out/resumed.err" || fail "resumed: $(cat "$out/resumed.err")"
# (SIGHUP at its default action when the run starts: under nohup lcpsim keeps it ignored;
# where env cannot restore it, SIGTERM)
if env --default-signal=HUP true 2> /dev/null; then
  at_open events HUP 129 env --default-signal=HUP "$L" data/bouncing_ball_events.json
else
  at_open events TERM 143 "$L" data/bouncing_ball_events.json
fi
at_open hybrid INT 130 "$L" data/bouncing_mass.json
at_open compare TERM 143 "$L" compare data/pile_10.json --solvers lemke,pgs --steps 20

# A signal while the finished file is closed: delivered at the close() that precedes the
# rename of PATH.<pid>.partial to PATH (the file's own close, every step written; the
# count taken from a first run under strace). The default action had killed the process
# there (exit 130, no message), leaving the partial file of a complete run, up to its
# last flush; now the run ends as it would have, its file in place and whole, and a line
# says the signal came after the last step.
at_close() {
  name=$1 sig=$2 want=$3
  shift 3
  f="$out/$name.h5"
  strace -f -o "$out/$name.trace" -e trace=close,rename "$@" -o "$f" --quiet 2> /dev/null ||
    fail "$name: the run under strace failed"
  n=$(awk '/rename\(/ { print k; exit } /close\(/ { k++ }' "$out/$name.trace")
  [ -n "$n" ] || fail "$name: no rename in $(tail -3 "$out/$name.trace")"
  rm -f "$f"
  rc=0
  strace -f -o /dev/null -e trace=close -e inject=close:signal=$sig:when=$n \
    "$@" -o "$f" --quiet 2> "$out/$name.err" || rc=$?
  [ $rc -eq "$want" ] || fail "$name SIG$sig at the close: exit $rc, not $want: $(head -c 600 "$out/$name.err")"
  in_place "$name" "$sig" close completed
  grep -qF "SIG$sig came after the last" "$out/$name.err" || fail "$name SIG$sig at the close: $(head -c 600 "$out/$name.err")"
}
at_close run_close INT 0 "$L" data/pile_10.json --steps 30
at_close events_close TERM 0 "$L" data/bouncing_ball_events.json
at_close hybrid_close INT 0 "$L" data/bouncing_mass.json
echo "signal_at_open: SIGINT / SIGTERM / SIGHUP at the file's first write stop the run, its continuation, event-driven and hybrid runs and a comparison whole; at the file's close they leave it whole and in place"
