#!/bin/sh
# Output files (docs/output-format.md, "Output files"): -o never replaces anything but a
# regular file; the scene itself as -o is refused; a second run of one -o while the first
# writes is refused; SIGINT / SIGTERM keep the steps done, marked interrupted (exit 130 / 143); kill -9
# leaves PATH.<pid>.partial, which h5py, scripts/lcpsim_load.py and .m, lcpsim solve and
# lcpsim view all read.
set -e
PY=/usr/bin/python3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "output_files: $*" >&2; exit 1; }
scene=data/pile_10.json

# refused PATH WHAT: exit 2, one stderr line naming PATH and WHAT.
refused() {
  rc=0
  ./lcpsim data/two_blocks.json -o "$1" --quiet > /dev/null 2> "$out/err" || rc=$?
  [ "$rc" -eq 2 ] || fail "-o $1: exit $rc, expected 2"
  [ "$(wc -l < "$out/err")" -eq 1 ] || fail "-o $1: not one line: $(cat "$out/err")"
  grep -qF "$1" "$out/err" && grep -qF "$2" "$out/err" || fail "-o $1: $(cat "$out/err")"
}

# A directory and a FIFO: refused at once (no blocking open of the FIFO), left as they were.
mkdir "$out/dir"
refused "$out/dir" "output is a directory: refused"
[ -d "$out/dir" ] && [ -z "$(ls "$out/dir")" ] || fail "the directory changed"
mkfifo "$out/fifo"
refused "$out/fifo" "output is a FIFO (named pipe): refused"
[ -p "$out/fifo" ] || fail "the FIFO was replaced"
ln -s nowhere "$out/dangling"
refused "$out/dangling" "symbolic link to nothing"
# /dev/stdout into a pipe: a link to no path, but to a pipe, refused as one (not "a link to
# nothing"); into a file it is that file, written whole.
rc=0; ./lcpsim data/two_blocks.json -o /dev/stdout --quiet 2> "$out/err" | cat > /dev/null || true
grep -qF "/dev/stdout: output is a FIFO (named pipe): refused" "$out/err" || fail "-o /dev/stdout into a pipe: $(cat "$out/err")"
./lcpsim data/two_blocks.json -o /dev/stdout --quiet > "$out/stdout.h5" || fail "-o /dev/stdout into a file failed"
$PY -c "import h5py, sys; assert h5py.File(sys.argv[1], 'r')['summary/steps_done'][()] == 3" "$out/stdout.h5" \
  || fail "-o /dev/stdout into a file: not the run"
# Long paths are never cut short: 1100 characters (beyond any 1 KB buffer) are written
# under their own name; past the limit (4095), refused naming the limit.
long=$out/$(printf 'd%.0s/' $(seq 1 540))name_past_1k.h5
mkdir -p "$(dirname "$long")"
./lcpsim data/two_blocks.json -o "$long" --quiet || fail "-o a 1100-character path failed"
[ "$(ls "$(dirname "$long")")" = name_past_1k.h5 ] || fail "-o a long path wrote $(ls "$(dirname "$long")")"
# too_long PATH WHAT: exit 2, one stderr line ending with WHAT (the path may be shortened).
too_long() {
  rc=0
  ./lcpsim data/two_blocks.json -o "$1" --quiet > /dev/null 2> "$out/err" || rc=$?
  [ "$rc" -eq 2 ] && [ "$(wc -l < "$out/err")" -eq 1 ] && grep -qF "$2" "$out/err" \
    || fail "-o a ${#1}-character path: exit $rc: $(tail -c 300 "$out/err")"
}
too_long "$out/$(printf 'e%.0s' $(seq 1 5000))" "output path too long (5"
# A folder that does not exist, under a 2000-character path: the reason is said whole.
too_long "$out/$(printf 'n%.0s/' $(seq 1 1000))x.h5" ".partial: No such file or directory"
# The scene as its own output, by the same name or another (a link): refused, unchanged.
cp data/two_blocks.json "$out/s.json"
cp "$out/s.json" "$out/s.orig"
ln -s s.json "$out/s_link.h5"
rc=0; ./lcpsim "$out/s.json" -o "$out/s.json" --quiet 2> "$out/err" || rc=$?
[ "$rc" -eq 2 ] && grep -q -- "-o $out/s.json: is the scene file $out/s.json: refused" "$out/err" || fail "-o SCENE: exit $rc: $(cat "$out/err")"
rc=0; ./lcpsim "$out/s.json" -o "$out/s_link.h5" --quiet 2> "$out/err" || rc=$?
[ "$rc" -eq 2 ] || fail "-o a link to the scene: exit $rc"
cmp -s "$out/s.json" "$out/s.orig" || fail "the scene was touched"
[ -z "$(ls "$out" | grep partial)" ] || fail "a partial file was left: $(ls "$out")"

# Wide rows: 2000 spheres (q of 14000 columns) for 2 steps. Chunks of 256 rows (28 MB of
# q) made the file 60 MB; a chunk now holds at most 1 MiB (rows cut, at least one), so the
# file is its data and HDF5's 1 MB blocks.
cat > "$out/wide.json" <<'JSON'
{"lcpsim": 1, "dimension": 3, "time_step": 0.01, "steps": 2, "gravity": [0, 0, -9.81], "solver": "pgs",
 "bodies": [{"name": "s", "mass": 1, "position": [0, 0, 1],
             "shapes": [{"type": "sphere", "radius": 0.1}],
             "grid": {"count": [20, 10, 10], "spacing": [0.3, 0.3, 0.3]}}]}
JSON
./lcpsim "$out/wide.json" -o "$out/wide.h5" --quiet || fail "the wide run failed"
$PY - "$out/wide.h5" <<'EOF' || fail "wide rows: chunks or file too large"
import os, sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    for name in ("q", "v", "time", "solver/status"):
        d = f[name]
        row = d.dtype.itemsize
        for n in d.chunks[1:]:
            row *= n
        # 256 rows, or as many as 1 MiB holds (at least one)
        assert d.chunks[0] == min(256, max(1, (1 << 20) // row)), (name, d.chunks)
    assert f["q"].shape == (3, 14000) and f["summary/steps_done"][()] == 2
assert os.path.getsize(sys.argv[1]) < 8e6, os.path.getsize(sys.argv[1])
EOF

# /dev/null is written through: exit 0, still a character device (as root too).
./lcpsim data/two_blocks.json -o /dev/null --quiet || fail "-o /dev/null failed"
[ -c /dev/null ] || fail "/dev/null is no longer a character device"

# Two runs writing one -o at once: the second is refused at its start (exit 2, one line
# naming the output and the first's partial file) and the first writes its file whole.
# Before, both ran and the last to finish replaced the other's file without a word.
# (The first is stopped (SIGSTOP) while the second starts: its 3000 steps take 0.6 s of
# CPU, and a second started later on a loaded machine found it done, and rightly ran.)
./lcpsim $scene --steps 3000 -o "$out/same.h5" --quiet & p1=$!
end=$(($(date +%s) + 60))
while [ ! -f "$out/same.h5.$p1.partial" ]; do
  [ "$(date +%s)" -lt $end ] || fail "the first run's partial file never appeared"
  sleep 0.05
done
kill -STOP $p1
rc=0
./lcpsim data/two_blocks.json -o "$out/same.h5" --quiet 2> "$out/same.err" || rc=$?
kill -CONT $p1
[ $rc -eq 2 ] && [ "$(wc -l < "$out/same.err")" -eq 1 ] \
  && grep -qF "$out/same.h5: another run is writing it now ($out/same.h5.$p1.partial): refused" "$out/same.err" \
  || fail "second concurrent run: exit $rc: $(cat "$out/same.err")"
wait $p1 || fail "first concurrent run failed"
$PY - "$out/same.h5" <<'EOF' || fail "the first run's file is not whole"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    assert len(f["time"]) == 3001 and int(f["summary/steps_done"][()]) == 3000
    assert f["summary/run_end"][()] == b"completed"
EOF
[ -z "$(ls "$out" | grep partial)" ] || fail "partial files left by the concurrent runs"
# Once the first is done, the output is replaced as usual.
./lcpsim data/two_blocks.json -o "$out/same.h5" --quiet || fail "a later run of the same -o failed"

# A running run's partial file is read only while the run is stopped (stopped_when PID
# CMD...: tests/e2e/lib/stopped_when.sh).
. tests/e2e/lib/stopped_when.sh

# rows PARTIAL N: the partial file holds N states (flushed).
rows() {
  [ -f "$1" ] && $PY -c "
import sys, h5py
with h5py.File(sys.argv[1], 'r') as f: sys.exit(0 if len(f['time']) >= int(sys.argv[2]) else 1)
" "$1" "$2"
}

# SIGINT and SIGTERM: the steps done are kept under the final name, marked interrupted.
for sig in INT TERM; do
  ./lcpsim $scene --steps 1000000 -o "$out/$sig.h5" --quiet 2> "$out/$sig.err" & p=$!
  stopped_when $p rows "$out/$sig.h5.$p.partial" 300
  kill -$sig $p
  kill -CONT $p
  rc=0; wait $p || rc=$?
  want=130; [ $sig = TERM ] && want=143
  [ "$rc" -eq $want ] || fail "SIG$sig: exit $rc, expected $want"
  grep -q "interrupted by SIG$sig after [0-9]* of 1000000 steps; $out/$sig.h5 holds them" "$out/$sig.err" \
    || fail "SIG$sig: $(cat "$out/$sig.err")"
  $PY - "$out/$sig.h5" "SIG$sig" <<'EOF' || fail "SIG$sig: the file does not say it was interrupted"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    n = int(f["summary/steps_done"][()])
    assert n >= 299 and len(f["time"]) == n + 1, n
    assert f["summary/run_end"][()] == b"interrupted"
    assert f["summary/run_end_reason"][()].decode().startswith(sys.argv[2] + " after step %d" % n)
EOF
done
[ -z "$(ls "$out" | grep partial)" ] || fail "an interrupted run left a partial file"

# kill -9 with --dump-lcp: the partial file stays, with what the last flush wrote (at most
# 256 steps or 1 s before the kill), and every reader opens it. Killed while stopped once
# its marks hold 600 steps or more (killed_reads; the stop can fall inside a flush, whose
# rows past the marks are then in pieces, docs/output-format.md, "Killed runs": the test
# asks for the last LCP up to /flushed_lcp_problems, as the readers take it).
# killed_reads PARTIAL: h5py reads it up to its last whole flush (/flushed_rows W states,
# /flushed_lcp_problems P LCPs; rows past the marks may be those of a flush the stop cut
# in two, which the readers leave out); prints the last step of its LCP dump up to P.
killed_reads() {
  $PY - "$1" <<'EOF'
import sys, h5py
import numpy as np
with h5py.File(sys.argv[1], "r") as f:
    w = int(f["flushed_rows"][()])
    p = int(f["flushed_lcp_problems"][()])
    n = w - 1
    assert n >= 599 and "summary" not in f
    assert len(f["time"]) >= w and len(f["solver/status"]) >= n
    assert len(f["contacts/offset"]) >= n + 2
    assert len(f["contacts/gap"]) >= f["contacts/offset"][n + 1]
    assert np.all(np.isfinite(f["q"][:w]))
    assert 0 < p <= len(f["lcp/step"]) and f["lcp/step"][p - 1] <= n
    print(int(f["lcp/step"][p - 1]))
EOF
}
./lcpsim $scene --steps 1000000 --dump-lcp -o "$out/k.h5" --quiet & p=$!
part="$out/k.h5.$p.partial"
stopped_when $p killed_reads "$part"
kill -9 $p
wait $p || true
[ -f "$part" ] && [ ! -e "$out/k.h5" ] || fail "kill -9: expected $part alone"
n=$(killed_reads "$part") || fail "kill -9: h5py cannot read $part"
$PY scripts/lcpsim_load.py "$part" > "$out/load.txt" || fail "kill -9: lcpsim_load.py failed"
grep -q "run end: unfinished" "$out/load.txt" || fail "kill -9: lcpsim_load.py: $(cat "$out/load.txt")"
octave-cli -H --no-gui --eval "addpath('scripts'); r = lcpsim_load('$part'); \
  assert(strcmp(r.summary.run_end, 'unfinished')); assert(numel(r.time) == r.summary.steps_done + 1); \
  printf('%d\n', r.summary.steps_done);" > "$out/oct.txt" 2>&1 || fail "kill -9: lcpsim_load.m: $(cat "$out/oct.txt")"
./lcpsim solve "$part" --step "$n" > "$out/solve.txt" || fail "kill -9: lcpsim solve --step $n: $(cat "$out/solve.txt")"
grep -q "status             solved" "$out/solve.txt" || fail "kill -9: $(cat "$out/solve.txt")"
./lcpsim view "$part" -o "$out/k.html" > /dev/null || fail "kill -9: lcpsim view failed"
[ -s "$out/k.html" ] || fail "kill -9: no page"
# The next run of that -o names the leftover in one stderr line and leaves it alone.
cksum "$part" > "$out/sum1"
./lcpsim $scene --steps 5 -o "$out/k.h5" --quiet 2> "$out/err" || fail "rerun of k.h5 failed"
[ "$(wc -l < "$out/err")" -eq 1 ] && grep -qF "lcpsim: note: $part is left from an earlier run" "$out/err" \
  || fail "rerun: $(cat "$out/err")"
cksum "$part" | cmp -s - "$out/sum1" || fail "rerun touched $part"
# A write that fails (a file size limit of 2000 kB, SIGXFSZ ignored so that write() says
# EFBIG, as on a full disk): the LCP dump names the step and the system's reason, the run
# stops there, and as the file cannot be finished either nothing is left, with exit 2 and
# no crash at exit.
rc=0
(trap '' XFSZ; ulimit -f 2000; exec ./lcpsim $scene --steps 300 --dump-lcp -o "$out/big.h5" --quiet) \
  > /dev/null 2> "$out/err" || rc=$?
[ "$rc" -eq 2 ] || fail "file size limit: exit $rc: $(cat "$out/err")"
# (the step named by the dump's append, or by the flush that writes the rows from HDF5's
# caches)
grep -qE "^lcpsim: $out/big.h5: (LCP dump: step [0-9]+: cannot append the problem|cannot flush the file at step [0-9]+): file write failed: File too large$" \
  "$out/err" || fail "file size limit: $(cat "$out/err")"
[ -z "$(ls "$out" | grep big)" ] || fail "file size limit: left $(ls "$out" | grep big)"
echo "output_files: dir/FIFO/link/scene refused, /dev/null kept, a second concurrent run refused," \
     "SIGINT 130 / SIGTERM 143 marked, kill -9 partial read ($(tail -1 "$out/oct.txt") steps, LCP of step $n)," \
     "a failed dump write named"
