#!/bin/sh
# A run killed (kill -9) at any point of the flush where its chunk indexes first grow past
# 64 chunks (16385 rows; docs/output-format.md, "Killed runs") leaves a file that
# --resume continues, to the rows of one run, bit for bit. The run's writes to its file
# are traced (strace); the file as the writes up to each one of that flush left it is what
# a kill right after that write leaves (a killed process's completed writes stay in the
# page cache), and each is resumed (tests/e2e/flush_replay.py). With the 1.8 format's
# v1 B-tree chunk index, 3 of the flush's 70 writes left /q unreadable ("cannot read row 0
# of /q", exit 2: the index's root split, written before its new children). The same for
# every write of the run's last flush and its close.
set -eu
cd "$(dirname "$0")/../.."
PY=/usr/bin/python3
L=$(pwd)/lcpsim
scene=$(pwd)/data/bouncing_ball.json
out=$(mktemp -d /tmp/lsim_e2e_killed_flush_XXXXXX)
trap 'rm -rf "$out"' EXIT
fail() { echo "killed_flush: $*" >&2; exit 1; }
if ! strace -o /dev/null true 2> /dev/null; then
  echo "killed_flush: strace cannot trace here (none, or ptrace refused): skipped"
  exit 0
fi

# 16640 steps (65 flushes of 256): the flush of step 16384 writes the 65th chunk of every
# state series (/time, /q, /v, /energy/*, /solver/*). h = 1 ms: the ball rests from 3.9 s.
strace -f -o "$out/trace" -e trace=openat,pwrite64,pwritev,write,ftruncate -e signal=none \
  -xx -s 2000000 "$L" "$scene" --steps 16640 -o "$out/run.h5" --quiet || fail "the traced run failed"
"$L" "$scene" --steps 16700 -o "$out/straight.h5" --quiet


# Each cut: resumed from its last whole flush (/flushed_rows: step 16128, or 16384 once
# the flush's mark is written) to step 16700, equal to the straight run.
check="\"$L\" \"$scene\" --resume \"\$1\" --steps 16700 -o \"$out/resumed.h5\" --quiet 2>&1 &&
  $PY tests/e2e/same_run.py \"$out/straight.h5\" \"$out/resumed.h5\" 60 2>&1"
$PY tests/e2e/flush_replay.py "$out/trace" "$out/run.h5" 16385 "$out/cut.h5" "$check" > "$out/log" ||
  fail "a kill inside the flush of step 16384 left a file not resumed as one run: $(cat "$out/log")"
echo "killed_flush: flush of step 16384: $(head -1 "$out/log")"
grep -q "^cuts [1-9][0-9], failed 0$" "$out/log" || fail "too few cuts: $(cat "$out/log")"
# The last flush and the close (/summary linked into the root group: a kill where the
# root's name heap had moved left every root name unreadable, 2 of 110 files refused,
# "written by lcpsim (unknown)"; a file the close finished resumes as a completed run).
$PY tests/e2e/flush_replay.py "$out/trace" "$out/run.h5" 0 "$out/cut.h5" "$check" > "$out/log" ||
  fail "a kill inside the close left a file not resumed as one run: $(cat "$out/log")"
echo "killed_flush: last flush and close: $(head -1 "$out/log")"
grep -q "^cuts [1-9][0-9][0-9]*, failed 0$" "$out/log" || fail "too few cuts: $(cat "$out/log")"

# Hybrid-model files (no /flushed_rows, no --resume: read as they are): every write of the
# close, from the last rows' flush on (/summary made, flushed, linked; the file closed),
# leaves a file the loader reads with every row of that flush, each equal to the finished
# file's (tests/e2e/cut_reads.py). Before: 8 of 29 unreadable (the root's name heap moved:
# "bad heap free list"; /summary linked before its link heap was written: "wrong fractal
# heap header signature").
strace -f -o "$out/htrace" -e trace=openat,pwrite64,pwritev,write,ftruncate -e signal=none \
  -xx -s 2000000 "$L" data/bouncing_mass.json -o "$out/hybrid.h5" --quiet || fail "the traced hybrid run failed"
$PY tests/e2e/flush_replay.py "$out/htrace" "$out/hybrid.h5" close:3 "$out/cut.h5" \
  "serve:$PY tests/e2e/cut_reads.py '$out/cut.h5.start' '$out/hybrid.h5' hybrid" > "$out/log" ||
  fail "a kill inside a hybrid run's close left a file that does not read whole: $(cat "$out/log")"
echo "killed_flush: hybrid-model close: $(head -1 "$out/log")"
grep -q "^cuts [1-9][0-9], failed 0$" "$out/log" || fail "too few cuts: $(cat "$out/log")"

# Comparison files alike: every write of the close from the last rows' flush on (/summary
# made unlinked, flushed, linked; the file closed) leaves a file scripts/lcpsim_compare.py
# reads with every row of that flush, each equal to the finished file's. Before, /summary
# was linked in the close's one flush, before its objects reached the file: 34 of 336
# points of a 10^5-step comparison's close unreadable ("bad object header version number",
# "wrong fractal heap header signature", "incorrect metadata checksum"); 0 of 31 now.
# The same with --trajectory (the driver's run copied in with the last rows).
for opt in --quiet --trajectory; do
  rm -f "$out/compare.h5"
  strace -f -o "$out/ctrace" -e trace=openat,pwrite64,pwritev,write,ftruncate -e signal=none \
    -xx -s 2000000 "$L" compare "$scene" --solvers lemke,pgs --steps 5000 -o "$out/compare.h5" \
    --quiet $opt || fail "the traced comparison ($opt) failed"
  $PY tests/e2e/flush_replay.py "$out/ctrace" "$out/compare.h5" close:3 "$out/cut.h5" \
    "serve:$PY tests/e2e/cut_reads.py '$out/cut.h5.start' '$out/compare.h5' compare" > "$out/log" ||
    fail "a kill inside a comparison's close ($opt) left a file that does not read whole: $(cat "$out/log")"
  echo "killed_flush: comparison close ($opt): $(head -1 "$out/log")"
  grep -q "^cuts [1-9][0-9], failed 0$" "$out/log" || fail "too few cuts: $(cat "$out/log")"
done
echo "killed_flush: ok"
