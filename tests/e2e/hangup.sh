#!/bin/sh
# SIGHUP: the terminal closed or an ssh connection dropped under a running command. Its
# default action killed the run: a time-stepping pile_100 run hung up after its first
# flushes ended with exit 129 from the shell and only PATH.<pid>.partial (no summary, the
# steps since the last flush lost), and a hybrid run, an event-driven run and a comparison
# alike. Now SIGHUP stops each as SIGINT / SIGTERM do (tests/e2e/interrupted_runs.sh,
# output_files.sh): between steps, the file put in place with every step done and
# /summary/run_end interrupted, exit 129; the time-stepping run continues with --resume.
# Under nohup (SIGHUP ignored when the command begins) it stays ignored and the run goes on.
set -eu
cd "$(dirname "$0")/../.."
PY=/usr/bin/python3
out=$(mktemp -d /tmp/lsim_e2e_hangup_XXXXXX)
trap 'rm -rf "$out"' EXIT
fail() { echo "hangup: $*" >&2; exit 1; }

# Runs long enough to be stopped: $out/ev.json, $out/hy.json (lib/long_runs.sh).
. tests/e2e/lib/long_runs.sh
long_runs "$out"

# Each run is hung up stopped (SIGSTOP) once its partial file holds a whole flush past its
# first row (lib/stopped_when.sh: stopped_when, flushed): steps or samples done, whatever
# the machine's speed. (A fixed 2 s after the file appeared could find pile_100 or the box
# stack before their first step on a loaded machine: "after 0 of" steps, also right.)
. tests/e2e/lib/stopped_when.sh
# rows_flushed PARTIAL: prints its /flushed_rows (read with the run stopped).
rows_flushed() {
  HDF5_USE_FILE_LOCKING=FALSE $PY -c "
import sys, h5py
with h5py.File(sys.argv[1], 'r') as f:
    print(int(f['flushed_rows'][()]))
" "$1"
}

# hangup NAME CMD...: runs CMD -o $out/NAME.h5, hangs it up, and checks exit 129, one
# stderr line naming SIGHUP, the file in place and no partial file; /summary/run_end
# interrupted (h5py).
hangup() {
  name=$1
  shift
  f="$out/$name.h5"
  "$@" -o "$f" 2> "$out/$name.err" & p=$!
  stopped_when $p flushed "$f.$p.partial" 2
  kill -HUP $p
  kill -CONT $p
  rc=0; wait $p || rc=$?
  [ $rc -eq 129 ] || fail "$name: exit $rc, expected 129: $(head -c 600 "$out/$name.err")"
  [ "$(wc -l < "$out/$name.err")" -eq 1 ] && grep -qF "SIGHUP" "$out/$name.err" \
    || fail "$name: $(head -c 600 "$out/$name.err")"
  [ -f "$f" ] && [ -z "$(ls "$out" | grep partial)" ] || fail "$name: not put in place: $(ls "$out")"
  $PY -c "
import sys, h5py
with h5py.File(sys.argv[1], 'r') as f:
    assert f['summary/run_end'][()] == b'interrupted', f['summary/run_end'][()]
" "$f" || fail "$name: $f is not marked interrupted"
}

# The runs are started with SIGHUP at its default action (env --default-signal): a test
# started under nohup (SIGHUP ignored, which lcpsim rightly keeps) saw every run go on.
hup=
if env --default-signal=HUP true 2> /dev/null; then
  hup="env --default-signal=HUP"
elif [ $(($(printf '%d' "0x$(sed -n 's/^SigIgn:[[:space:]]*//p' /proc/$$/status)") & 1)) -eq 1 ]; then
  echo "hangup: SIGHUP is ignored here and env cannot restore it: skipped"
  exit 0
fi
hangup run $hup ./lcpsim data/pile_100.json --steps 100000 --quiet
grep -q "^lcpsim: interrupted by SIGHUP after [1-9][0-9]* of 100000 steps; $out/run.h5 holds them" "$out/run.err" \
  || fail "run: $(cat "$out/run.err")"
hangup hybrid $hup ./lcpsim "$out/hy.json" --quiet
hangup events $hup ./lcpsim "$out/ev.json" --quiet
hangup compare $hup ./lcpsim compare data/box_stack_3d.json --solvers pgs[sweeps=50],newton --steps 20000 --quiet
grep -q "^lcpsim compare: interrupted by SIGHUP after [1-9][0-9]* of 20000 steps" "$out/compare.err" \
  || fail "compare: $(cat "$out/compare.err")"
$PY -c "
import sys, h5py
with h5py.File(sys.argv[1], 'r') as f:
    k = int(f['summary/run_end_step'][()])
    assert f['summary/run_end_reason'][()].decode() == f'SIGHUP after step {k} of 20000'
" "$out/compare.h5" || fail "compare: the reason does not name SIGHUP"

# The hung-up time-stepping run continues: 20 steps past its end, exit 0.
k=$($PY -c "
import sys, h5py
with h5py.File(sys.argv[1], 'r') as f:
    print(int(f['summary/steps_done'][()]))
" "$out/run.h5")
./lcpsim data/pile_100.json --resume "$out/run.h5" --steps $((k + 20)) -o "$out/resumed.h5" --quiet \
  || fail "--resume of the hung-up run failed"

# nohup: SIGHUP ignored from the start stays ignored; SIGTERM then stops the run.
f="$out/nohup.h5"
(trap '' HUP; exec ./lcpsim data/pile_100.json --steps 100000 -o "$f" --quiet) 2> "$out/nohup.err" & p=$!
stopped_when $p flushed "$f.$p.partial" 2
m=$(rows_flushed "$f.$p.partial")
kill -HUP $p
kill -CONT $p
# (the run goes on: a further flush reaches its file; ended by SIGHUP, it never would)
stopped_when $p flushed "$f.$p.partial" $((m + 1))
kill -TERM $p
kill -CONT $p
rc=0; wait $p || rc=$?
[ $rc -eq 143 ] && grep -qF "interrupted by SIGTERM" "$out/nohup.err" \
  || fail "nohup: exit $rc: $(cat "$out/nohup.err")"
echo "hangup: time step ($k steps), hybrid, event-driven and compare runs stop whole on SIGHUP (exit 129); nohup keeps it ignored"
