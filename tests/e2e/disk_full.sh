#!/bin/sh
# A disk that fills during a run. A write that fails on a full disk left a file HDF5 could
# not read (a flush cut short: "wrong B-tree signature"), and the run lost every step:
# pile_10 on a 2 MB disk failed at step 424, exit 2, no file. After each flush the recorder
# now checks that the disk can take the next flush and the close; when it cannot, the run
# stops there (exit 1, /summary/run_end stopped, the reason naming the disk and the room
# left) with a whole file of every step done. Needs a tmpfs mount (root): skipped without.
set -eu
PY=/usr/bin/python3
tmp=$(mktemp -d)
mnt=$tmp/disk
mkdir "$mnt"
trap 'umount "$mnt" 2> /dev/null || true; rm -rf "$tmp"' EXIT
fail() { echo "disk_full: $*" >&2; exit 1; }
# A file size limit (ulimit -f) is a full disk for this file: the run was killed by SIGXFSZ
# (exit 153, pile_10 with 4 MB at step 300 or so, its partial file cut mid-flush), and with
# the signal ignored the failed write ended it with exit 2 and no file. The room check now
# counts the limit too: the run stops (exit 1) with a whole file of every step done; a limit
# too small for the first flush is an error naming the file (exit 2), not a kill.
# stopped_whole FILE REASON LEAST: FILE is a run stopped for REASON (a part of
# /summary/run_end_reason) whose file reads whole, with more than LEAST steps.
stopped_whole() {
  $PY - "$@" <<'PYEOF' || fail "$1: the file does not read whole"
import sys
sys.path.insert(0, "scripts")
import lcpsim_load
path, reason, least = sys.argv[1], sys.argv[2], int(sys.argv[3])
r = lcpsim_load.load(path)
s = r.summary
assert s.run_end == "stopped" and reason in s.run_end_reason, (s.run_end, s.run_end_reason)
n = s.steps_done
assert n > least and len(r.time) == n + 1 and r.contacts.offset[-1] == len(r.contacts.gap), n
print(f"disk_full: {reason}: stopped at step {n} with its file whole")
PYEOF
}
rc=0
(ulimit -f 8192; exec ./lcpsim data/pile_10.json --steps 100000 -o "$tmp/lim.h5" --quiet) \
  2> "$tmp/err" || rc=$?
[ $rc -eq 1 ] || fail "ulimit -f: exit $rc, expected 1: $(cat "$tmp/err")"
grep -qF "stopped at step" "$tmp/err" && grep -qF "the file size limit" "$tmp/err" \
  || fail "ulimit -f: $(cat "$tmp/err")"
[ -z "$(ls "$tmp" | grep partial)" ] || fail "ulimit -f: a partial file was left: $(ls "$tmp")"
# The readers' outputs on a disk that fills (the file size limit stands for it, 10 kB
# here): lcpsim view names the page and the reason, the figures of lcpsim_plot.py,
# lcpsim_hybrid_plot.py and Octave's lcpsim_plot.m and the animations of lcpsim_animate.py
# fail with one message, as do scripts/plot_scaling.py and cart_wall_figure.py, and none
# leaves a cut file under its name or a partial one.
# Before: view said "RUN: writing the page failed" (the input named, no reason); the
# Python plots left a 0-byte PNG under its name (exit 1); Octave left one too and returned
# without an error; a GIF stayed cut under its name ("[Errno 27] File too large", the file
# not named), an MP4 ended in a traceback.
./lcpsim data/bouncing_ball.json --steps 300 -o "$tmp/small.h5" --quiet
./lcpsim data/bouncing_mass.json -o "$tmp/hyb.h5" --quiet
mkdir "$tmp/figs"
readers_fail() {  # readers_fail WANT COMMAND...: under the limit, COMMAND exits non-zero,
  want=$1          # says WANT, and leaves nothing in $tmp/figs
  shift
  rc=0
  (ulimit -f 20; exec "$@") > "$tmp/err" 2>&1 || rc=$?
  [ $rc -ne 0 ] && grep -qF "$want" "$tmp/err" || fail "$*: exit $rc: $(cat "$tmp/err")"
  [ -z "$(ls "$tmp/figs")" ] || fail "$*: left $(ls "$tmp/figs")"
}
readers_fail "lcpsim view: $tmp/figs/run.html: cannot write the page (File too large): nothing written" \
  ./lcpsim view "$tmp/small.h5" -o "$tmp/figs/run.html"
readers_fail "lcpsim_plot: $tmp/figs/run.png: cannot write: File too large" \
  $PY scripts/lcpsim_plot.py "$tmp/small.h5" -o "$tmp/figs/run.png"
readers_fail "lcpsim_hybrid_plot: $tmp/figs/hyb.png: cannot write: File too large" \
  $PY scripts/lcpsim_hybrid_plot.py "$tmp/hyb.h5" -o "$tmp/figs/hyb.png"
readers_fail "lcpsim_plot: $tmp/figs/run_m.png: cannot write: the figure came out cut short" \
  octave-cli -H --no-window-system --eval "addpath('scripts'); lcpsim_plot('$tmp/small.h5', '$tmp/figs/run_m.png');"
readers_fail "lcpsim_animate: $tmp/figs/run.gif: cannot write: File too large" \
  $PY scripts/lcpsim_animate.py "$tmp/small.h5" -o "$tmp/figs/run.gif" --every 30
if command -v ffmpeg > /dev/null; then
  readers_fail "lcpsim_animate: $tmp/figs/run.mp4: cannot write: ffmpeg failed (killed by SIGXFSZ)" \
    $PY scripts/lcpsim_animate.py "$tmp/small.h5" -o "$tmp/figs/run.mp4" --every 30
fi
# The figure scripts alike (before: a 0-byte PNG left under its name, and a traceback).
printf 'series,N,ms_per_step\npgs,10,1\npgs,100,9\npgs,1000,95\n' > "$tmp/scaling.csv"
readers_fail "plot_scaling: $tmp/figs/scaling.png: cannot write: File too large" \
  $PY scripts/plot_scaling.py "$tmp/scaling.csv" -o "$tmp/figs/scaling.png"
readers_fail "cart_wall_figure: $tmp/figs/cw.png: cannot write: File too large" \
  $PY scripts/cart_wall_figure.py --grid 7 -o "$tmp/figs/cw.png"
# Without the limit each is written whole.
$PY scripts/lcpsim_plot.py "$tmp/small.h5" -o "$tmp/figs/run.png"
octave-cli -H --no-window-system --eval "addpath('scripts'); lcpsim_plot('$tmp/small.h5', '$tmp/figs/run_m.png');"
[ "$(ls "$tmp/figs" | tr '\n' ' ')" = "run.png run_m.png " ] || fail "figures: $(ls "$tmp/figs")"
# An LCP dump writes into the run's file between flushes, and its rows were not in the
# room asked after a flush: pile_10 with --dump-lcp under 8.19 MB (30.7 MB) failed in the
# dump at step 34 (82), exit 2, no file. Its bytes now count (the largest step's, a chunk of
# each dataset, toward the flush trigger too): stopped (at step 24 or so, where a flush
# falls by the clock), the file and its dump whole.
rc=0
(ulimit -f 16000; exec ./lcpsim data/pile_10.json --steps 300 --dump-lcp -o "$tmp/dump.h5" --quiet) \
  2> "$tmp/err" || rc=$?
[ $rc -eq 1 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -qF "the file size limit" "$tmp/err" \
  || fail "--dump-lcp, ulimit -f 16000: exit $rc: $(cat "$tmp/err")"
stopped_whole "$tmp/dump.h5" "file size limit" 0
$PY - "$tmp/dump.h5" <<'PYEOF' > "$tmp/last" || fail "--dump-lcp, ulimit -f 16000: the dump is not whole"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    steps = f["lcp/step"][:]
    n = int(f["summary/steps_done"][()])
    assert len(f["lcp/m_offset"]) == len(steps) + 1 and (len(steps) == 0 or steps[-1] <= n)
    print(int(steps[-1]) if len(steps) else 0)
PYEOF
[ "$(cat "$tmp/last")" -eq 0 ] || ./lcpsim solve "$tmp/dump.h5" --step "$(cat "$tmp/last")" > /dev/null \
  || fail "--dump-lcp, ulimit -f 16000: its last dumped step does not solve"
rm -f "$tmp/dump.h5"
stopped_whole "$tmp/lim.h5" "file size limit" 100
# The room a flush may take: the bound was one chunk of each series and the stepper's
# memory (2.13 MB here), but a flush writes every row buffered since the last: 500 free
# bodies (no contacts, 256 steps well within the flush's second) wrote 13.5 MB a flush,
# and under a limit of 25.8 MB the room check let the second flush start with 11 MB left:
# exit 2, "cannot write /v", no file. Flushes now come at 4 MiB of rows at the latest and
# the bound counts the rows a flush may hold (scene/record.c, next_flush_bytes).
$PY - 500 > "$tmp/free.json" <<'PYEOF'
import json, sys
n = int(sys.argv[1])
bodies = [{"name": f"b{i}", "mass": 1.0, "position": [3.0 * (i % 50), 3.0 * (i // 50), 0.0],
           "velocity": [0, 0, 1.0], "shapes": [{"type": "sphere", "radius": 0.1}]}
          for i in range(n)]
print(json.dumps({"lcpsim": 1, "name": f"{n} free bodies", "dimension": 3, "time_step": 0.01,
                  "steps": 1000, "gravity": [0, 0, 0], "bodies": bodies}))
PYEOF
rc=0
(ulimit -f 50400; exec ./lcpsim "$tmp/free.json" -o "$tmp/free.h5" --quiet) 2> "$tmp/err" || rc=$?
[ $rc -eq 1 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -qF "the file size limit" "$tmp/err" \
  || fail "500 free bodies, ulimit -f 50400: exit $rc: $(head -c 600 "$tmp/err")"
[ -z "$(ls "$tmp" | grep partial)" ] || fail "free bodies: a partial file was left: $(ls "$tmp")"
stopped_whole "$tmp/free.h5" "file size limit" 50
rm -f "$tmp/free.h5" "$tmp/lim.h5"
rc=0
(ulimit -f 100; exec ./lcpsim data/pile_10.json --steps 1000 -o "$tmp/tiny.h5" --quiet) \
  2> "$tmp/err" || rc=$?
[ $rc -eq 2 ] && grep -qF "$tmp/tiny.h5" "$tmp/err" && grep -qF "File too large" "$tmp/err" \
  || fail "ulimit -f 100: exit $rc: $(cat "$tmp/err")"
# A hybrid model's file alike: its close after the failed header spilled HDF5's error
# stack (some 250 lines of HDF5-DIAG) before the one line that names the file.
rc=0
(ulimit -f 100; exec ./lcpsim data/slip.json -o "$tmp/slip.h5" --quiet) 2> "$tmp/err" || rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -qF "$tmp/slip.h5" "$tmp/err" \
  || fail "hybrid, ulimit -f 100: exit $rc, $(wc -l < "$tmp/err") lines: $(head -c 600 "$tmp/err")"
# A comparison alike: its message named the partial file, gone by then, and not why.
rc=0
(ulimit -f 300; exec ./lcpsim compare data/pile_10.json --solvers lemke,pgs --steps 20 \
  -o "$tmp/cmp.h5") > /dev/null 2> "$tmp/err" || rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -qF "$tmp/cmp.h5: cannot write" "$tmp/err" \
  && grep -qF "File too large" "$tmp/err" && ! grep -qF partial "$tmp/err" \
  || fail "compare, ulimit -f 300: exit $rc: $(head -c 600 "$tmp/err")"
# Hybrid-model runs, event-driven runs and comparisons checked no room: a write that
# failed ended them with exit 2 and no file (slip.json under ulimit -f 1300 lost every
# sample; a 3000-step pile_10 comparison under ulimit -f 3000 every row: "cannot write the
# results (file write failed: File too large)"). Now each stops after the flush that left
# too little room (exit 1, /summary/run_end stopped, the reason naming the file and the
# room, one line on stderr) with a whole file whose rows are those of a run without the
# limit. limited NAME BLOCKS CMD...: runs CMD under ulimit -f BLOCKS (512-byte blocks in
# sh, as POSIX has it) into $tmp/NAME.err.
limited() {
  name=$1 lim=$2
  shift 2
  rc=0
  (ulimit -f "$lim"; exec "$@") > /dev/null 2> "$tmp/$name.err" || rc=$?
  [ $rc -eq 1 ] && [ "$(wc -l < "$tmp/$name.err")" -eq 1 ] \
    && grep -qF "the file size limit (ulimit -f) of" "$tmp/$name.err" \
    && grep -qF "$tmp/$name.h5" "$tmp/$name.err" \
    || fail "$name, ulimit -f $lim: exit $rc: $(head -c 800 "$tmp/$name.err")"
  [ -z "$(ls "$tmp" | grep partial)" ] || fail "$name: a partial file was left: $(ls "$tmp")"
}
# The SLIP runner: 100 s is 100 001 samples, an 11 MB file.
./lcpsim data/slip.json --duration 100 -o "$tmp/slip_all.h5" --quiet
limited slip 16384 ./lcpsim data/slip.json --duration 100 -o "$tmp/slip.h5" --quiet
grep -qF "data/slip.json: the run stopped: t = " "$tmp/slip.err" || fail "slip: $(cat "$tmp/slip.err")"
# The example as it is (5 s, a 1.6 MB file; bash's ulimit -f 1300, 1.33 MB): the room is
# short from its first sample on.
limited slip_1300 2600 ./lcpsim data/slip.json -o "$tmp/slip_1300.h5" --quiet
# A small run whose whole file fits: the room asked was the 4 MB floor and twice a flush
# (6.3 MB), so data/slip.json (5 s, 1.6 MB) stopped at its first sample under a 3.07 MB
# limit (exit 1). The room asked is now at most what the rest of the run can write (its
# samples and transitions left, a chunk more of each table, 1 MiB for the close): it
# completes. Under limits from 1.1 to 3.3 MB every run completes or stops whole, none
# fails a write (exit 2).
./lcpsim data/slip.json -o "$tmp/slip5_all.h5" --quiet
rc=0
(ulimit -f 6000; exec ./lcpsim data/slip.json -o "$tmp/slip5.h5" --quiet) 2> "$tmp/err" || rc=$?
[ $rc -eq 0 ] && [ ! -s "$tmp/err" ] || fail "slip.json, ulimit -f 6000: exit $rc: $(head -c 600 "$tmp/err")"
for lim in 2200 3000 3800 4600 5400 5600 5800 6400; do
  rc=0
  (ulimit -f $lim; exec ./lcpsim data/slip.json -o "$tmp/slip_$lim.h5" --quiet) 2> "$tmp/err" || rc=$?
  { [ $rc -eq 0 ] || { [ $rc -eq 1 ] && grep -qF "the file size limit" "$tmp/err"; }; } \
    || fail "slip.json, ulimit -f $lim: exit $rc: $(head -c 600 "$tmp/err")"
  [ -z "$(ls "$tmp" | grep partial)" ] || fail "slip.json, ulimit -f $lim: a partial file was left"
done
# The event-driven bouncing ball, 40 000 samples (a 12 MB file).
./lcpsim data/bouncing_ball_events.json --steps 40000 -o "$tmp/ball_all.h5" --quiet
limited ball 16384 ./lcpsim data/bouncing_ball_events.json --steps 40000 -o "$tmp/ball.h5" --quiet
grep -qF "stopped at sample" "$tmp/ball.err" && grep -qF "keeps every sample before it" "$tmp/ball.err" \
  || fail "ball: $(cat "$tmp/ball.err")"
# Comparisons of the time-stepped ball, 20 000 steps: shadow (an 11 MB file) and
# independent (7.9 MB).
for mode in shadow independent; do
  ./lcpsim compare data/bouncing_ball.json --solvers lemke,pgs --steps 20000 --mode $mode \
    -o "$tmp/cmp_${mode}_all.h5" --quiet
  lim=16384
  [ $mode = independent ] && lim=12000
  limited cmp_$mode $lim ./lcpsim compare data/bouncing_ball.json --solvers lemke,pgs \
    --steps 20000 --mode $mode -o "$tmp/cmp_$mode.h5" --quiet
  grep -qF "lcpsim compare: stopped at step" "$tmp/cmp_$mode.err" || fail "$(cat "$tmp/cmp_$mode.err")"
done
$PY - "$tmp" <<'PYEOF' || fail "the stopped files do not read whole or differ from the runs without a limit"
import sys
import numpy as np
sys.path.insert(0, "scripts")
import lcpsim_compare
import lcpsim_load
tmp = sys.argv[1]

def same(name, a, b, n):
    """a (the stopped file's rows) equals the first n rows of b, bit for bit."""
    a, b = np.asarray(a), np.asarray(b)
    assert len(a) == n and len(b) >= n, (name, len(a), len(b), n)
    assert np.array_equal(a, b[:n], equal_nan=a.dtype.kind == "f"), name  # (NaN: none)

def stopped(s):
    assert s.run_end == "stopped" and "file size limit (ulimit -f)" in s.run_end_reason, (
        s.run_end, s.run_end_reason)

# The 5 s run under 3 MB: completed, every row as the run without a limit wrote it;
# each of the limits swept: completed alike, or stopped with the rows before the stop.
full = lcpsim_load.load(f"{tmp}/slip5_all.h5")
r = lcpsim_load.load(f"{tmp}/slip5.h5")
assert r.summary.run_end == "completed" and r.summary.samples == 5001, (r.summary.run_end, r.summary.samples)
ends = []
for name in ["slip5"] + [f"slip_{lim}" for lim in (2200, 3000, 3800, 4600, 5400, 5600, 5800, 6400)]:
    r = lcpsim_load.load(f"{tmp}/{name}.h5")
    n, e = r.summary.samples, r.summary.transitions
    assert r.summary.run_end in ("completed", "stopped") and n >= 1, (name, r.summary.run_end)
    for k in ("time", "state", "chart", "outputs"):
        same(f"{name} /{k}", getattr(r, k), getattr(full, k), n)
    for k in ("time", "from_chart", "to_chart", "boundary", "state_before", "state_after"):
        same(f"{name} /events/{k}", getattr(r.events, k), getattr(full.events, k), e)
    ends.append(f"{r.summary.run_end} {n}")
assert ends[-1] == "completed 5001", ends  # (6400 blocks, 3.28 MB)
print(f"disk_full: hybrid, 5 s under 3 MB: completed; limits 1.1 to 3.3 MB: {', '.join(ends[1:])}")

# The hybrid runs: samples and transitions as the run without a limit wrote them.
full = lcpsim_load.load(f"{tmp}/slip_all.h5")
for name, least in (("slip", 4097), ("slip_1300", 1)):
    r = lcpsim_load.load(f"{tmp}/{name}.h5")
    s = r.summary
    stopped(s)
    n, e = s.samples, s.transitions
    assert n >= least and n == r.flushed_rows and e == r.flushed_events, (name, n, e)
    for k in ("time", "state", "chart", "outputs"):
        same(f"{name} /{k}", getattr(r, k), getattr(full, k), n)
    for k in ("time", "from_chart", "to_chart", "boundary", "state_before", "state_after"):
        same(f"{name} /events/{k}", getattr(r.events, k), getattr(full.events, k), e)
    print(f"disk_full: hybrid, {name}: stopped at t = {r.time[-1]:g} s with {n} samples and "
          f"{e} transitions, as the run without a limit")

# The event-driven run: the time step's rows, the contacts and the event table.
full = lcpsim_load.load(f"{tmp}/ball_all.h5")
r = lcpsim_load.load(f"{tmp}/ball.h5")
stopped(r.summary)
n = r.summary.steps_done
assert n > 256 and len(r.time) == n + 1 and r.contacts.offset[-1] == len(r.contacts.gap), n
for k in ("time", "q", "v"):
    same(f"ball /{k}", getattr(r, k), getattr(full, k), n + 1)
nc = int(r.contacts.offset[-1])
same("ball /contacts/offset", r.contacts.offset, full.contacts.offset, len(r.contacts.offset))
for k in ("step", "id", "gap", "point", "normal", "normal_impulse", "friction_impulse"):
    same(f"ball /contacts/{k}", getattr(r.contacts, k), getattr(full.contacts, k), nc)
ne = len(r.events.time)  # (the ball rests after 4.06 s: every event is before the stop)
assert ne == np.count_nonzero(np.asarray(full.events.time) <= r.time[-1]) > 0, ne
for k in ("time", "kind", "contact", "body_a", "body_b"):
    same(f"ball /events/{k}", getattr(r.events, k), getattr(full.events, k), ne)
print(f"disk_full: event-driven: stopped at sample {n} with {nc} contact rows and {ne} events, "
      "as the run without a limit")

# The comparisons: every table but the measured times.
for mode in ("shadow", "independent"):
    full = lcpsim_compare.load(f"{tmp}/cmp_{mode}_all.h5")
    c = lcpsim_compare.load(f"{tmp}/cmp_{mode}.h5")
    assert not c.partial
    stopped(c.summary)
    n = c.summary.run_end_step
    assert 0 < n < 20000 and n == c.flushed_rows, (n, c.flushed_rows)
    for k in ("step", "time", "problem_hash", "problem_size"):
        same(f"{mode} /{k}", getattr(c, k), getattr(full, k), n)
    for k, v in vars(full.results).items():
        if "wall_time" not in k:
            same(f"{mode} /results/{k}", getattr(c.results, k), v, n)
    if mode == "independent":
        for k in ("q", "v"):
            same(f"{mode} /divergence/{k}", getattr(c.divergence, k), getattr(full.divergence, k), n)
        for k in ("kinetic", "potential"):
            same(f"{mode} /energy/{k}", getattr(c.energy, k), getattr(full.energy, k), n + 1)
    print(f"disk_full: compare, {mode} mode: stopped after step {n} with its rows whole, as "
          "the comparison without a limit")
PYEOF
rm -f "$tmp"/*.partial "$tmp"/*.h5
if ! mount -t tmpfs -o size=12m tmpfs "$mnt" 2> /dev/null; then
  echo "disk_full: cannot mount a tmpfs here (not root?): skipped"
  exit 0
fi
rc=0
./lcpsim data/pile_10.json --steps 100000 -o "$mnt/run.h5" --quiet 2> "$tmp/err" || rc=$?
[ $rc -eq 1 ] || fail "exit $rc, expected 1: $(cat "$tmp/err")"
[ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -qF "stopped at step" "$tmp/err" \
  && grep -qF "the disk holding $mnt/run.h5 has" "$tmp/err" || fail "$(cat "$tmp/err")"
[ -z "$(ls "$mnt" | grep partial)" ] || fail "a partial file was left: $(ls "$mnt")"
stopped_whole "$mnt/run.h5" "MB left" 256
