#!/bin/sh
# Ctrl-C twice. The first SIGINT asks the run to stop after its current step; when that
# step runs long (here PGS at a fixed budget of 10^8 sweeps on a stack of 10 boxes: about
# 200 s a step), a second SIGINT (or SIGTERM) ends the process at once, by the signal, as
# kill -9 would: no waiting for the step, the partial file left with what was flushed,
# which the loaders read. One signal alone still waits for the step and keeps the file
# under its name (tests/e2e/output_files.sh). The bound (30 s against a 200 s step) only
# tells "ends at once" from "waits for the step"; it measures no speed.
# The states are forced, not waited for: the first SIGINT goes once the file holds its
# header's row whole (the run stopped, as lib/stopped_when.sh does; it is then in its first
# step), the second once the first has left the pending set (lib/stopped_when.sh
# delivered). With fixed pauses (1 s, then 0.3 s) a loaded machine could leave the run
# short of its header's flush (the partial file empty), or both SIGINTs pending at once,
# which merge into one: the run then waits for its step.
set -eu
cd "$(dirname "$0")/../.."
PY=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "second_signal: $*" >&2; exit 1; }
. tests/e2e/lib/stopped_when.sh
cat > "$tmp/slow.json" <<'JSON'
{"lcpsim": 1, "dimension": 3, "time_step": 0.01, "steps": 100, "gravity": [0, 0, -9.81],
 "solver": {"name": "pgs", "tol": 0, "max_iter": 100000000},
 "bodies": [{"name": "g", "type": "static", "shapes": [{"type": "plane"}]},
            {"name": "b", "mass": 1, "position": [0, 0, 0.5],
             "shapes": [{"type": "box", "half_extents": [0.5, 0.5, 0.5]}],
             "grid": {"count": [1, 1, 10], "spacing": [1, 1, 1]}}]}
JSON
for second in INT TERM; do
  ./lcpsim "$tmp/slow.json" -o "$tmp/run.h5" --quiet 2> "$tmp/err" & p=$!
  stopped_when $p flushed "$tmp/run.h5.$p.partial" 1
  kill -INT $p
  kill -CONT $p
  delivered $p 2
  t0=$(date +%s)
  kill -$second $p
  rc=0; wait $p || rc=$?
  t1=$(date +%s)
  want=$([ $second = INT ] && echo 130 || echo 143)
  [ $rc -eq $want ] || fail "SIGINT then SIG$second: exit $rc, expected $want (the signal's own)"
  [ $((t1 - t0)) -le 30 ] || fail "SIGINT then SIG$second: ended $((t1 - t0)) s after the second signal"
  [ ! -e "$tmp/run.h5" ] || fail "SIGINT then SIG$second: the file was put in place"
  part=$(ls "$tmp"/run.h5.*.partial) || fail "SIGINT then SIG$second: no partial file"
  $PY - "$part" <<'PYEOF' || fail "SIGINT then SIG$second: the partial file does not load"
import sys
sys.path.insert(0, "scripts")
import lcpsim_load
r = lcpsim_load.load(sys.argv[1])
assert r.summary.run_end == "unfinished" and len(r.time) >= 1, r.summary
PYEOF
  rm -f "$part"
done
echo "second_signal: a second SIGINT or SIGTERM ends a long step at once, the partial file read"
