#!/bin/sh
# Hybrid-model scenes end to end: data/slip.json and data/bouncing_mass.json through
# `lcpsim SCENE.json`, their HDF5 files read by the Python and Octave loaders (the same
# numbers), the physics checked from the file (SLIP energy over 10 strides, transitions
# on their boundaries to the stop precision, the ball's impact times), the plot script,
# and bad hybrid scenes refused with positioned errors and no file.
set -e
PY=/usr/bin/python3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
./lcpsim data/slip.json -o "$out/slip.h5" --quiet
./lcpsim data/bouncing_mass.json -o "$out/ball.h5" --quiet

$PY - "$out" <<'PYEOF'
import sys
import numpy as np
sys.path.insert(0, "scripts")
import lcpsim_load

out = sys.argv[1]
def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

r = lcpsim_load.load(f"{out}/slip.h5")
if r.file_kind != "hybrid" or r.summary.run_end != "completed":
    fail(f"slip: {r.file_kind} {r.summary.run_end} {r.summary.run_end_reason}")
# Samples at exact multiples of the record period (1 ms), the last at the final time.
k = np.arange(len(r.time))
if np.any(r.time != k * 0.001) or r.time[-1] != 5.0:
    fail("slip: samples are not at k * 1 ms")
# The manual's chart order, every transition on its boundary within stop_precision.
ev, p = r.events, r.parameter
if np.any(ev.to_chart != (ev.from_chart + 1) % 4):
    fail("slip: chart order")
for j in range(len(ev.time)):
    s, c = ev.state_before[j], ev.from_chart[j]
    lx, ly = s[0] - s[4], s[1] - s[5]
    q = np.hypot(lx, ly)
    g = [s[3], s[1] - p("q_rt") * np.cos(s[6]), -(lx * s[2] + ly * s[3]) / q, p("q_rl") - q][c]
    # 1e-15: this recomputation's round-off (numpy's cos, not the C library's)
    if not (-r.parameters.stop_precision <= g <= 1e-15):
        fail(f"slip: transition {j} ({r.chart_name(c)}) at boundary value {g:.3e}")
# Energy over the first 10 strides (to the 10th liftoff): within 20 rtol (test_hybrid).
t10 = ev.time[ev.from_chart == 3][9]
e = r.output("energy")[r.time <= t10]
drift = np.max(np.abs(e - e[0])) / e[0]
if drift > 20 * r.parameters.rtol:
    fail(f"slip: energy drift {drift:.3e}")
print(f"slip: {len(ev.time)} transitions, energy drift {drift:.2e} over 10 strides "
      f"(rtol {r.parameters.rtol:g})")

# The ball: impacts at the closed-form times (test_hybrid's bounds), then at rest.
b = lcpsim_load.load(f"{out}/ball.h5")
g, e, h = b.parameter("gravity"), b.parameter("restitution"), 1.0
v, t = np.sqrt(2 * g * h), np.sqrt(2 * h / g)
for j in range(len(b.events.time)):
    if abs(b.events.time[j] - t) > 1e-8 + 1e-10 / v:
        fail(f"ball: impact {j} at {b.events.time[j]!r}, closed form {t!r}")
    v *= e
    t += 2 * v / g
if b.chart_name(b.chart[-1]) != "rest" or b.state_of("y")[-1] != 0.0:
    fail("ball: not at rest at the end")
print(f"ball: {len(b.events.time)} impacts at the closed-form times, then at rest")

# Numbers for the Octave comparison.
with open(f"{out}/py.txt", "w") as f:
    f.write(f"{len(r.time)} {len(ev.time)} {r.output('energy')[-1]:.15g} "
            f"{r.state_of('x')[-1]:.15g} {r.parameter('k'):.15g} {int(r.chart[-1])}\n")
PYEOF

octave-cli -H --eval "
  addpath('scripts');
  r = lcpsim_load('$out/slip.h5');
  e = r.output('energy'); x = r.state_of('x');
  f = fopen('$out/oct.txt', 'w');
  fprintf(f, '%d %d %.15g %.15g %.15g %d\n', numel(r.time), numel(r.events.time), e(end), ...
          x(end), r.parameter('k'), r.chart(end));
  fclose(f);
  assert(strcmp(r.chart_name(r.chart(1)), 'decompression'));
  assert(isequal(size(r.events.state_before), [numel(r.events.time), 7]));
" >/dev/null
if ! cmp -s "$out/py.txt" "$out/oct.txt"; then
  echo "FAIL: Python and Octave loaders differ:"; cat "$out/py.txt" "$out/oct.txt"; exit 1
fi

$PY scripts/lcpsim_hybrid_plot.py "$out/slip.h5" -o "$out/slip.png" --to 1.5
test -s "$out/slip.png"
if $PY scripts/lcpsim_hybrid_plot.py "$out/slip.h5" -o "$out/x.png" --states nope 2>/dev/null; then
  echo "FAIL: plot accepted an unknown state"; exit 1
fi
# A window without samples: one line, exit 2, no figure (--from 5 --to 1 and --from past
# the end ended in numpy's "number sections must be larger than 0" traceback, exit 1);
# an unknown state's line without the KeyError's quotes.
for w in "--from 5 --to 1|--from 5 --to 1: need finite times, --from below --to (the run has samples from 0 to" \
         "--from 100|--from 100 --to " \
         "--from 0.5 --to 0.5|--from 0.5 --to 0.5: need finite" \
         "--states nope|lcpsim_hybrid_plot: no state named 'nope' (have "; do
  opts=${w%%|*}; want=${w#*|}
  set +e
  $PY scripts/lcpsim_hybrid_plot.py "$out/slip.h5" -o "$out/w.png" $opts 2> "$out/w.txt"
  rc=$?
  set -e
  case $opts in --states*) want_rc=1 ;; *) want_rc=2 ;; esac
  [ $rc -eq $want_rc ] && [ "$(wc -l < "$out/w.txt")" -eq 1 ] && grep -qF -- "$want" "$out/w.txt" \
    && [ ! -e "$out/w.png" ] || { echo "FAIL: hybrid plot $opts: exit $rc: $(cat "$out/w.txt")"; exit 1; }
done

# Bad hybrid scenes: a positioned error, exit 2, no file.
bad() { # $1 = scene text, $2 = expected error fragment
  printf '%s' "$1" > "$out/bad.json"
  set +e
  msg=$(./lcpsim "$out/bad.json" -o "$out/bad.h5" 2>&1)
  rc=$?
  set -e
  case "$msg" in *"$2"*) ;; *) echo "FAIL: expected '$2', got: $msg"; exit 1 ;; esac
  if [ $rc -ne 2 ] || [ -e "$out/bad.h5" ]; then echo "FAIL: rc $rc or a file for: $msg"; exit 1; fi
}
bad '{"lcpsim": 1, "hybrid": {"model": "slipp"}}' 'bad.json:1:35: hybrid.model: unknown model'
bad '{"lcpsim": 1, "hybrid": {"model": "slip",
  "parameters": {"kk": 3}}}' 'bad.json:2:18: hybrid.parameters.kk: unknown parameter'
bad '{"lcpsim": 1, "hybrid": {"model": "slip", "initial": {"y": -1}}}' 'hybrid.initial: the body toppled over'
bad '{"lcpsim": 1, "hybrid": {"model": "slip", "rtol": 0}}' 'hybrid.rtol: must be > 0'
bad '{"lcpsim": 1, "hybrid": {"model": "slip", "chart": "flight"}}' 'hybrid.chart: must name a chart of slip'
bad '{"lcpsim": 1, "hybrid": {"model": "bouncing_mass", "parameters": {"restitution": 2}}}' 'restitution must be in [0, 1]'
# the parameter's own place and value (said 'bad.json:2:18: hybrid.parameters: mass must be > 0')
bad '{"lcpsim": 1, "hybrid": {"model": "bouncing_mass",
  "parameters": {"gravity": 9.81, "mass": -1}}}' 'bad.json:2:43: hybrid.parameters.mass: mass must be > 0, got -1'
bad '{"lcpsim": 1, "hybrid": {"model": "slip"}, "bodies": []}' 'bodies: unknown key'

# A run the chart-count guard stops: exit 1, the file kept with the reason.
printf '%s' '{"lcpsim": 1, "hybrid": {"model": "slip", "final_time": 30}}' > "$out/long.json"
set +e
./lcpsim "$out/long.json" -o "$out/long.h5" --quiet 2>/dev/null
rc=$?
set -e
[ $rc -eq 1 ]
$PY -c "
import sys; sys.path.insert(0, 'scripts'); import lcpsim_load
r = lcpsim_load.load('$out/long.h5')
assert r.summary.run_end == 'stopped' and 'max_chart_count' in r.summary.run_end_reason
assert len(r.events.time) == 128
"
# Zeno: dropped from 1 m with e = 0.8 and rest_speed 1e-6 m/s, the bounces accumulate at
# t_Z = sqrt(2 / g) (1 + e) / (1 - e) = 4.0637128 s, where the mass comes to rest. The
# impact's speed is taken at the floor (energy kept from the located point, up to the
# event precision below it); with the located point's own speed each impact added energy
# and the bounces went on past t_Z (2000 transitions to 4.0837 s). 1e-5 s: the last
# flights (2 v / g with v near rest_speed: 2e-7 s each) and the event times' precision.
cat > "$out/zeno.json" <<'JSON'
{"lcpsim": 1, "hybrid": {"model": "bouncing_mass", "parameters": {"restitution": 0.8,
 "rest_speed": 1e-6}, "initial": {"y": 1.0}, "final_time": 5.0, "atol": 1e-12,
 "max_chart_count": 2000, "record_period": 0.01}}
JSON
./lcpsim "$out/zeno.json" -o "$out/zeno.h5" --quiet
$PY -c "
import sys, numpy as np; sys.path.insert(0, 'scripts'); import lcpsim_load
r = lcpsim_load.load('$out/zeno.h5')
t = r.events.time; tz = np.sqrt(2 / 9.81) * 1.8 / 0.2
assert len(t) < 200 and abs(t[-1] - tz) < 1e-5, (len(t), t[-1], tz)
assert r.events.to_chart[-1] == 1 and r.summary.run_end == 'completed'
"
# A long run's memory stays flat: the rows leave memory once in the file. The ball
# bouncing with restitution 1, sampled every 10 ms, for 1000 s (1e5 samples) and for
# 10000 s (1e6): the trace kept every sample (about 50 bytes each: 45 MB more for the long
# run, 84 MB peak); now the peak grows by HDF5's metadata cache at most, which the writer
# trims after flushes (hybrid/record.c; tests/e2e/long_runs.sh: flat to 6 x 10^6 samples;
# 5 MB measured here). The file holds the same rows as a --print run's, which keeps
# its trace whole for the table.
for T in 1000 10000; do
  cat > "$out/long$T.json" <<JSON
{"lcpsim": 1, "hybrid": {"model": "bouncing_mass", "parameters": {"restitution": 1.0},
 "final_time": $T, "record_period": 0.01, "max_chart_count": 1000000000}}
JSON
  /usr/bin/time -f %M -o "$out/rss$T" ./lcpsim "$out/long$T.json" -o "$out/long$T.h5" --quiet
done
./lcpsim "$out/long1000.json" -o "$out/long1000p.h5" --print > /dev/null
$PY - "$out" <<'PYEOF'
import sys, h5py, numpy as np
out = sys.argv[1]
kb = [int(open(f"{out}/rss{T}").read().split()[-1]) for T in (1000, 10000)]
assert kb[1] - kb[0] < 32 * 1024, f"peak memory grew by {(kb[1] - kb[0]) / 1024:.0f} MB over 9e5 more samples"
a, b = h5py.File(f"{out}/long1000.h5", "r"), h5py.File(f"{out}/long1000p.h5", "r")
names = []
a.visit(names.append)
for n in names:
    if isinstance(a[n], h5py.Dataset) and "wall" not in n:
        assert np.array_equal(np.asarray(a[n][()]), np.asarray(b[n][()])), n
assert a["summary/samples"][()] == 100001 and len(a["time"]) == 100001 and a["time"][-1] == 1000.0
assert len(a["events/time"]) == a["summary/transitions"][()] > 1000
print(f"hybrid: a 1e6-sample run peaks {kb[1] / 1024:.0f} MB, {(kb[1] - kb[0]) / 1024:.0f} MB above a 1e5-sample one; its rows equal a whole trace's")
PYEOF
# A final time too short for CVODE to step (below 1e-150 s; its stop-time test underflows
# below about 1e-161 s): --duration and hybrid.final_time refused at their place, exit 2,
# no file. Before, the run stopped with CVODE's "tstop = 1e-300 is behind current t = 0"
# (exit 1, a file of one sample); 1e-150 s still runs.
for m in bouncing_mass slip; do
  rc=0
  ./lcpsim data/$m.json --duration 1e-300 -o "$out/tiny_$m.h5" 2> "$out/err.txt" || rc=$?
  if [ "$rc" -ne 2 ]; then echo "FAIL: $m --duration 1e-300: exit $rc"; cat "$out/err.txt"; exit 1; fi
  grep -q "^lcpsim: --duration 1e-300 s is below 1e-150 s, too short for CVODE to step" "$out/err.txt" ||
    { echo "FAIL: $m --duration 1e-300 message"; cat "$out/err.txt"; exit 1; }
  test ! -e "$out/tiny_$m.h5" || { echo "FAIL: $m --duration 1e-300 left a file"; exit 1; }
done
printf '{"lcpsim": 1, "hybrid": {"model": "bouncing_mass",\n "final_time": 1e-300}}\n' > "$out/tiny.json"
rc=0
./lcpsim "$out/tiny.json" -o "$out/tiny.h5" 2> "$out/err.txt" || rc=$?
if [ "$rc" -ne 2 ]; then echo "FAIL: final_time 1e-300: exit $rc"; cat "$out/err.txt"; exit 1; fi
grep -q "tiny.json:2:16: hybrid.final_time: 1e-300 s is below 1e-150 s" "$out/err.txt" ||
  { echo "FAIL: final_time 1e-300 message"; cat "$out/err.txt"; exit 1; }
test ! -e "$out/tiny.h5" || { echo "FAIL: final_time 1e-300 left a file"; exit 1; }
./lcpsim data/bouncing_mass.json --duration 1e-150 -o "$out/tiny_ok.h5" --quiet
echo "hybrid: a final time of 1e-300 s refused at its place, 1e-150 s runs: ok"
# The model list names what a scene can set.
./lcpsim models | grep -q '^slip '
./lcpsim models slip | grep -q '^  touchdown_angle    0 rad$'
./lcpsim models bouncing_mass | grep -q '^  rest_speed         0.001 m/s$'
if ./lcpsim models nope 2>/dev/null; then echo "FAIL: models accepted an unknown name"; exit 1; fi
echo "hybrid: ok"
