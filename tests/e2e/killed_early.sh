#!/bin/sh
# A run killed (kill -9) inside its first flushes, from the file's creation on (the header,
# /parameters/record_every, the event table or the /resume memory, the marks, the first
# rows), leaves a file no reader of ours crashes on: each write of that window is replayed
# as a kill (tests/e2e/flush_replay.py, ROWS early:N) and each cut given to lcpsim view,
# --resume, solve / export --step, scripts/lcpsim_load.py and lcpsim_cut.py
# (tests/e2e/early_reads.py). A cut whose head is not marked whole (lcp/h5check.h: before
# the first complete flush) is refused by each with one line naming it; one marked reads,
# every row the finished file's. Before the head, of data/bouncing_ball_events.json's
# writes 0 .. 184, calls 119 and 120 left a file lcpsim_load.py crashed on ("double free
# or corruption", "free(): invalid size": HDF5 inside h5py) and h5dump -H aborted on
# 119 .. 121; the readers' refusals said anything from "writing the page failed" to "Link
# iteration failed" (docs/output-format.md, "Killed runs").
set -eu
cd "$(dirname "$0")/../.."
PY=/usr/bin/python3
L=$(pwd)/lcpsim
out=$(mktemp -d /tmp/lsim_e2e_killed_early_XXXXXX)
trap 'rm -rf "$out"' EXIT
fail() { echo "killed_early: $*" >&2; exit 1; }
. tests/e2e/trace_writes.sh
trace_writes_or_skip killed_early

# early_reads TRACE FILE ROWS SCENE STEPS WHAT: the replay of ROWS with early_reads.py.
early_reads() {
  $PY tests/e2e/flush_replay.py "$1" "$2" "$3" "$out/cut.h5" \
    "serve:$PY tests/e2e/early_reads.py '$2' '$4' $5 '$out' '$out/unmarked.h5'" > "$out/log" 2> "$out/err" ||
    fail "$6: a cut no reader may crash on or read wrongly: $(cat "$out/log" "$out/err")"
  echo "killed_early: $6: $(head -1 "$out/log") ($(sed -n 's/^early_reads: [0-9]* cuts: //p' "$out/err"))"
  grep -q "^cuts [1-9][0-9][0-9]*, failed 0$" "$out/log" || fail "$6: too few cuts: $(cat "$out/log")"
  grep -q "^early_reads: .*: [1-9][0-9]* refused unmarked, [1-9][0-9]* read marked$" "$out/err" ||
    fail "$6: no cut refused or none read: $(cat "$out/err")"
}

# The event-driven run: its creation, the flushes of its header, stride and event table,
# its first marks, its first flush of rows (256 samples) and its marks.
trace_writes "$out/etrace" "$L" data/bouncing_ball_events.json -o "$out/events.h5" --quiet ||
  fail "the traced event-driven run failed"
early_reads "$out/etrace" "$out/events.h5" early:1 - 0 "an event-driven run's first flushes"
# A time-stepping run: its creation, its first marks and the head's mark, its first flush of
# rows (256 steps; --resume of each marked cut continues it to step 300).
trace_writes "$out/btrace" "$L" data/bouncing_ball.json --steps 300 -o "$out/ball.h5" --quiet ||
  fail "the traced time-stepping run failed"
early_reads "$out/btrace" "$out/ball.h5" early:1 data/bouncing_ball.json 300 "a time-stepping run's first flushes"

# The scripts' command lines and the Octave loader on a cut refused (the last before the
# head's mark): one line each, naming the file, no HDF5 read.
f="$out/unmarked.h5"
[ -f "$f" ] || fail "no cut refused was kept"
for cmd in "$PY scripts/lcpsim_load.py" "$PY scripts/lcpsim_cut.py --if-needed" "$L view" "$L solve"; do
  st=0
  case $cmd in
    *cut.py*) $cmd "$f" "$out/copy.h5" > "$out/said" 2>&1 || st=$? ;;
    *solve) $cmd "$f" --step 1 > "$out/said" 2>&1 || st=$? ;;
    *) $cmd "$f" > "$out/said" 2>&1 || st=$? ;;
  esac
  [ "$st" -ne 0 ] && [ "$st" -lt 128 ] && [ "$(wc -l < "$out/said")" -eq 1 ] &&
    grep -q "$f: cut before its first complete flush" "$out/said" ||
    fail "$cmd on a cut before its first complete flush: exit $st: $(cat "$out/said")"
done
if command -v octave-cli > /dev/null 2>&1; then
  octave-cli -H --eval "addpath('scripts');
    try, lcpsim_load('$f'); error('read');
    catch err, assert(strcmp(err.identifier, 'lcpsim:cut_early'), err.message);
      assert(~isempty(strfind(err.message, 'cut before its first complete flush'))); end
    r = lcpsim_load('$out/ball.h5'); assert(numel(r.time) == 301);" > "$out/said" 2>&1 ||
    fail "lcpsim_load.m on a cut before its first complete flush: $(cat "$out/said")"
fi
echo "killed_early: ok"
