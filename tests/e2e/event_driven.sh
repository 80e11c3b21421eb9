#!/bin/sh
# The event-driven example scene end to end: the run file has a row per record period at
# exact multiples of it and the /events table, read the same by the Python and Octave
# loaders; the impact times follow the closed form (1e-9 s). Also the assembled double
# pendulum (consistent initial conditions), scope and precision errors, impacts within one
# step, and starts on a boundary.
set -eu
cd "$(dirname "$0")/../.."
PY=/usr/bin/python3
tmp=$(mktemp -d /tmp/lsim_e2e_events_XXXXXX)
trap 'rm -rf "$tmp"' EXIT
./lcpsim data/bouncing_ball_events.json -o "$tmp/run.h5" --quiet
$PY - "$tmp/run.h5" > "$tmp/py.txt" <<'PYEOF'
import sys
import numpy as np
sys.path.insert(0, "scripts")
import lcpsim_load
r = lcpsim_load.load(sys.argv[1])
h = r.parameters.time_step
assert len(r.time) == 5001 and np.array_equal(r.time, np.arange(5001) * h), "rows at k h"
ev = r.events
names = [str(n) for n in ev.kind_legend]
impacts = ev.time[ev.kind == names.index("impact")]
e, t0 = 0.8, np.sqrt(2 / 9.81)
want = t0 * (1 + 2 * e * (1 - e ** np.arange(10)) / (1 - e))
assert np.max(np.abs(impacts[:10] - want)) < 1e-9, impacts[:10] - want
assert names[ev.kind[-1]] == "contact"
E = r.energy.kinetic + r.energy.potential
assert np.max(np.diff(E)) < 1e-9, np.max(np.diff(E))
for t, k in zip(ev.time, ev.kind):
    print("%.9f %d" % (t, k))
PYEOF
octave-cli -H -q --eval "addpath('scripts'); r = lcpsim_load('$tmp/run.h5'); t = r.events.time; k = r.events.kind; for i = 1:numel(t), printf('%.9f %d\n', t(i), k(i)); end" > "$tmp/oct.txt"
if ! cmp -s "$tmp/py.txt" "$tmp/oct.txt"; then
  echo "FAIL: Python and Octave read different event tables"; diff "$tmp/py.txt" "$tmp/oct.txt" | head; exit 1
fi
echo "event-driven: $(wc -l < "$tmp/py.txt") events, python and octave agree"
# The loader's summary says what the rows are: samples every record period, the solver at
# the events, the events counted by kind (it read as a time-stepping run of h = 0.001 s,
# with "0 failed steps" and "solver 0 s").
$PY scripts/lcpsim_load.py "$tmp/run.h5" > "$tmp/summary.txt"
grep -q "^event-driven (CVODE): record period 0.001 s, 5000 of 5000 periods, t = 0 .. 5 s$" "$tmp/summary.txt" \
  && grep -q "^events 30: 29 impact, 1 contact$" "$tmp/summary.txt" \
  && grep -q "^solver lemke at the events" "$tmp/summary.txt" \
  && ! grep -q "steps\|solver 0 s" "$tmp/summary.txt" \
  || { echo "FAIL: lcpsim_load.py summary of an event-driven run:"; cat "$tmp/summary.txt"; exit 1; }

# Consistent initial conditions: the assembled double pendulum's first state satisfies
# both pins to 1e-12 m (the file's /joints/error row 0), and lcpsim says what it did.
./lcpsim data/double_pendulum_assembled.json -o "$tmp/dp.h5" --steps 10 > "$tmp/dp.txt"
grep -q "assembled joint 'elbow': position error 0.02 -> .* m, velocity error 0.2 -> " "$tmp/dp.txt"
$PY -c "
import h5py, sys
e = h5py.File('$tmp/dp.h5', 'r')['joints/error'][0]
assert max(e) <= 1e-12, e
print('assembled: joint errors', max(e))
"

# Outside the integrator's scope (a 1-D scene) or with time-step options: exit 2, a
# message naming the cause, no file.
$PY -c "
import json
d = json.load(open('data/brick_friction.json')); d['integrator'] = 'event_driven'
json.dump(d, open('$tmp/one_d.json', 'w'))"
if ./lcpsim "$tmp/one_d.json" -o "$tmp/one_d.h5" 2> "$tmp/err.txt"; then echo "FAIL: 1-D event-driven accepted"; exit 1; fi
grep -q "2-D and 3-D scenes only" "$tmp/err.txt"
if ./lcpsim data/bouncing_ball_events.json --dump-lcp -o "$tmp/x.h5" 2> "$tmp/err.txt"; then echo "FAIL: --dump-lcp accepted"; exit 1; fi
grep -q "dump-lcp applies to the time step" "$tmp/err.txt"
test ! -e "$tmp/one_d.h5" && test ! -e "$tmp/x.h5"
echo "event-driven scope errors: ok"

# An event precision below 1e-12 (1e-15 stopped the ball at its 3rd impact): refused
# before the run, exit 2, the message at the key's line:column with the allowed range, no
# file; 1e-12 itself runs the ball through its first 3 impacts on the closed form (1e-9 s).
for p in 1e-15 1e-12; do
  $PY -c "
import json
d = json.load(open('data/bouncing_ball_events.json'))
d['duration'] = 2.0
d['event_driven'] = {'precision': $p}
json.dump(d, open('$tmp/prec_$p.json', 'w'), indent=1)"
done
rc=0
./lcpsim "$tmp/prec_1e-15.json" -o "$tmp/prec.h5" 2> "$tmp/err.txt" || rc=$?
if [ "$rc" -ne 2 ]; then echo "FAIL: precision 1e-15: exit $rc"; cat "$tmp/err.txt"; exit 1; fi
line=$(grep -n '"precision"' "$tmp/prec_1e-15.json" | cut -d: -f1)
grep -q "prec_1e-15.json:$line:[0-9]*: event_driven.precision: must be in \[1e-12, inf) .*got 1e-15" "$tmp/err.txt" ||
  { echo "FAIL: precision message"; cat "$tmp/err.txt"; exit 1; }
test ! -e "$tmp/prec.h5"
./lcpsim "$tmp/prec_1e-12.json" -o "$tmp/prec.h5" --quiet
$PY - "$tmp/prec.h5" <<'PYEOF'
import sys
import numpy as np
sys.path.insert(0, "scripts")
import lcpsim_load
ev = lcpsim_load.load(sys.argv[1]).events
names = [str(n) for n in ev.kind_legend]
impacts = ev.time[ev.kind == names.index("impact")]
e, t0 = 0.8, np.sqrt(2 / 9.81)
want = t0 * (1 + 2 * e * (1 - e ** np.arange(3)) / (1 - e))
assert len(impacts) == 3 and np.max(np.abs(impacts - want)) < 1e-9, impacts - want
PYEOF
echo "event_driven.precision: 1e-15 refused with its place and range, 1e-12 runs: ok"

# event_driven.rtol of 1 or more (CVODE takes rtol in (0, 1)): refused at its key, exit 2,
# no file. Before, the scene took it and the run stopped at t = 0 with "rtol must be in
# (0, 1)", no JSON path, exit 1 and a file of 0 samples.
$PY -c "
import json
d = json.load(open('data/bouncing_ball_events.json'))
d['event_driven'] = {'rtol': 1}
json.dump(d, open('$tmp/rtol_1.json', 'w'), indent=1)"
rc=0
./lcpsim "$tmp/rtol_1.json" -o "$tmp/rtol.h5" 2> "$tmp/err.txt" || rc=$?
if [ "$rc" -ne 2 ]; then echo "FAIL: event_driven.rtol 1: exit $rc"; cat "$tmp/err.txt"; exit 1; fi
line=$(grep -n '"rtol"' "$tmp/rtol_1.json" | cut -d: -f1)
grep -q "rtol_1.json:$line:[0-9]*: event_driven.rtol: must be > 0 and < 1, got 1" "$tmp/err.txt" ||
  { echo "FAIL: event_driven.rtol message"; cat "$tmp/err.txt"; exit 1; }
test ! -e "$tmp/rtol.h5" || { echo "FAIL: event_driven.rtol 1 left a file"; exit 1; }
echo "event_driven.rtol: 1 refused with its place and range: ok"

# A record period (time_step) too short for CVODE to step to the first sample: refused at
# its key, exit 2, no file (it stopped at t = 0 with CVODE's "tstop = 1e-300 is behind
# current t = 0", exit 1). --duration 1e-300 with the scene's 1 ms is refused as a count of
# steps below 1.
$PY -c "
import json
d = json.load(open('data/bouncing_ball_events.json'))
d['time_step'] = 1e-300
d['duration'] = 1e-300
json.dump(d, open('$tmp/tiny.json', 'w'), indent=1)"
rc=0
./lcpsim "$tmp/tiny.json" -o "$tmp/tiny.h5" 2> "$tmp/err.txt" || rc=$?
if [ "$rc" -ne 2 ]; then echo "FAIL: time_step 1e-300: exit $rc"; cat "$tmp/err.txt"; exit 1; fi
line=$(grep -n '"time_step"' "$tmp/tiny.json" | cut -d: -f1)
grep -q "tiny.json:$line:[0-9]*: time_step: 1e-300 s is below 1e-150 s, too short for the event-driven" "$tmp/err.txt" ||
  { echo "FAIL: time_step 1e-300 message"; cat "$tmp/err.txt"; exit 1; }
test ! -e "$tmp/tiny.h5" || { echo "FAIL: time_step 1e-300 left a file"; exit 1; }
rc=0
./lcpsim data/bouncing_ball_events.json --duration 1e-300 -o "$tmp/tiny.h5" 2> "$tmp/err.txt" || rc=$?
if [ "$rc" -ne 2 ]; then echo "FAIL: --duration 1e-300: exit $rc"; cat "$tmp/err.txt"; exit 1; fi
grep -q "^lcpsim: --duration 1e-300 gives 1e-297 steps" "$tmp/err.txt" ||
  { echo "FAIL: --duration 1e-300 message"; cat "$tmp/err.txt"; exit 1; }
echo "event-driven: a record period of 1e-300 s refused at its key: ok"

# lcpsim impact: Tedrake's hollow ball leaves at (0.42, 1, -1.4) with a normal impulse of
# 6 N s; a pair that names no body is an error (exit 2).
./lcpsim impact data/hollow_ball.json --close ball:ground > "$tmp/impact.txt"
grep -Eq "after +0.42 +1 +-1.4$" "$tmp/impact.txt"
grep -Eq "contact ball:ground +6 " "$tmp/impact.txt"
if ./lcpsim impact data/hollow_ball.json --close ball:floor 2> "$tmp/err.txt"; then echo "FAIL: unknown body accepted"; exit 1; fi
grep -q "'ball:floor' is not a pair of body names" "$tmp/err.txt"

# A double pendulum striking the ground (data/double_pendulum_impact.json): the tip's normal
# velocity is theta1' alone and H = diag(4/3, 1/3) there, so with restitution e the ground
# impulse is (1 + e) H11 * 3 = 4 (1 + e) N s, theta1' goes from -3 to 3e rad/s and the lower
# rod's velocity from (0, -3) to (0, 3e) m/s without turning; the upper rod's centre moves
# at half the elbow's speed. 1e-12: a few round-offs of the impact LCP's O(1) entries.
$PY - "$tmp" <<'PYEOF'
import json, subprocess, sys
tmp = sys.argv[1]
scene = json.load(open("data/double_pendulum_impact.json"))
for e in (0.0, 0.5):
    for b in scene["bodies"]:
        if b["name"] == "lower":
            b["restitution"] = e
    path = f"{tmp}/dp_{e}.json"
    json.dump(scene, open(path, "w"))
    out = subprocess.run(["./lcpsim", "impact", path, "--close", "lower:ground"], check=True,
                         capture_output=True, text=True).stdout.splitlines()
    after = {}
    for i, line in enumerate(out):
        if line.split()[:2] in (["upper", "before"], ["lower", "before"]):
            after[line.split()[0]] = [float(x) for x in out[i + 1].split()[1:]]
        if line.startswith("contact lower:ground"):
            impulse = float(line.split()[2])
    want = {"upper": [0, 1.5 * e, 3 * e], "lower": [0, 3 * e, 0]}
    for name in want:
        err = max(abs(a - w) for a, w in zip(after[name], want[name]))
        assert err <= 1e-12, (e, name, after[name], want[name])
    assert abs(impulse - 4 * (1 + e)) <= 1e-12, (e, impulse)
print("double pendulum impact: at e = 0 and 0.5 as H = diag(4/3, 1/3) gives: ok")
PYEOF
echo "impact map: ok"

# Impacts that fall inside one step of the integrator (10 ms at most). Roots are seen only
# at steps' ends, so a step is bounded by each pair's gap over the speed of its points:
# - a ball (r 0.01 m, 2-D, e = 1) at 5 and 100 m/s towards a static wall 1 cm thick at
#   x = 1: impact at (1 - 0.005 - 0.01) / v, then -v (it went through, no event, before);
# - a ball (r 0.1 m, 3-D, e = 1, no friction) at 5 m/s passing a static sphere (r 0.1 m)
#   with its center 0.199 m off the line, 1 mm of overlap: impact where the centers are
#   0.2 m apart (x = 1 - sqrt(0.2^2 - 0.199^2)), and the reflection about that normal;
# - a ball dropped onto the ground from 1001 m (r 0.1 m, e = 0.5): impact at
#   sqrt(2 * 1001 / 9.81) (the pairs that may touch were listed within 1 km only).
# 1e-9 s and 1e-9 m/s: the event precision (1e-10 on the gap) over the closing speeds.
$PY - "$tmp" <<'PYEOF'
import json, sys
d = sys.argv[1]
def scene(name, dim, dur, grav, bodies, period):
    json.dump({"lcpsim": 1, "dimension": dim, "time_step": period, "duration": dur,
               "integrator": "event_driven", "gravity": grav, "bodies": bodies},
              open("%s/%s.json" % (d, name), "w"))
for v in (5, 100):
    scene("wall%d" % v, 2, 0.5, [0, 0], [
        {"name": "wall", "type": "static", "position": [1.0, 0],
         "shapes": [{"type": "box", "half_extents": [0.005, 1.0], "mu": 0.0}]},
        {"name": "ball", "mass": 1.0, "position": [0, 0], "velocity": [v, 0], "restitution": 1.0,
         "shapes": [{"type": "sphere", "radius": 0.01, "mu": 0.0}]}], 0.001)
scene("graze", 3, 0.6, [0, 0, 0], [
    {"name": "post", "type": "static", "position": [1.0, 0, 0],
     "shapes": [{"type": "sphere", "radius": 0.1, "mu": 0.0}]},
    {"name": "ball", "mass": 1.0, "position": [0, 0.199, 0], "velocity": [5, 0, 0],
     "restitution": 1.0, "shapes": [{"type": "sphere", "radius": 0.1, "mu": 0.0}]}], 0.001)
scene("far", 2, 20.0, [0, -9.81], [
    {"name": "ground", "type": "static", "shapes": [{"type": "plane", "mu": 0.0}]},
    {"name": "ball", "mass": 1.0, "position": [0, 1001.1], "restitution": 0.5,
     "shapes": [{"type": "sphere", "radius": 0.1, "mu": 0.0}]}], 0.01)
PYEOF
for s in wall5 wall100 graze far; do ./lcpsim "$tmp/$s.json" -o "$tmp/$s.h5" --quiet; done
$PY - "$tmp" <<'PYEOF'
import sys
import numpy as np
sys.path.insert(0, "scripts")
import lcpsim_load
d = sys.argv[1]
for v in (5, 100):
    r = lcpsim_load.load("%s/wall%d.h5" % (d, v))
    assert len(r.events.time) == 1 and abs(r.events.time[0] - 0.985 / v) < 1e-9, r.events.time
    assert abs(r.v[-1][0] + v) < 1e-9, r.v[-1]
r = lcpsim_load.load(d + "/graze.h5")
x = 1 - np.sqrt(0.2 ** 2 - 0.199 ** 2)
assert len(r.events.time) == 1 and abs(r.events.time[0] - x / 5) < 1e-9, r.events.time
n = np.array([x - 1, 0.199, 0]) / 0.2
want = np.array([5.0, 0, 0]) - 2 * 5.0 * n[0] * n
assert np.abs(r.v[-1][:3] - want).max() < 1e-9, (r.v[-1], want)
r = lcpsim_load.load(d + "/far.h5")
assert len(r.events.time) == 1 and abs(r.events.time[0] - np.sqrt(2 * 1001 / 9.81)) < 1e-9, r.events.time
print("impacts within one step: a 1 cm wall at 5 and 100 m/s, a 1 mm graze, a 1001 m drop: ok")
PYEOF

# Starts on a boundary: a ball (r 0.1 m, e = 0.8) put on the ground falling at 2 m/s
# impacts at t = 0 (rebound 1.6 m/s) and again at 2 * 1.6 / g; one leaving the ground at
# 2 m/s (e = 0) lands at 4 / g and stays; a bob at rest on its taut rope's circle straight
# above the anchor (slack exactly 0, nothing holding it) falls 2 m, the rope snapping taut
# at sqrt(4 / g). 1e-9 s and 1e-9 m/s: the event precision over the speeds, as above.
$PY - "$tmp" <<'PYEOF'
import json, sys
d = sys.argv[1]
def scene(name, bodies, tethers=None):
    s = {"lcpsim": 1, "dimension": 2, "time_step": 0.001, "duration": 1.0,
         "integrator": "event_driven", "gravity": [0, -9.81], "bodies": bodies}
    if tethers:
        s["tethers"] = tethers
    json.dump(s, open("%s/%s.json" % (d, name), "w"))
ground = {"name": "ground", "type": "static", "shapes": [{"type": "plane", "mu": 0.0}]}
def ball(vy, e):
    return {"name": "ball", "mass": 1.0, "position": [0, 0.1], "velocity": [0, vy], "restitution": e,
            "shapes": [{"type": "sphere", "radius": 0.1, "mu": 0.0}]}
scene("on_ground_falling", [ground, ball(-2.0, 0.8)])
scene("on_ground_leaving", [ground, ball(2.0, 0.0)])
scene("rope_above", [{"name": "bob", "mass": 1.0, "position": [0, 1.0],
                      "shapes": [{"type": "sphere", "radius": 0.05}]}],
      [{"name": "rope", "length": 1.0, "ends": [{"body": "bob"}, {"world": [0, 0]}]}])
PYEOF
for s in on_ground_falling on_ground_leaving rope_above; do ./lcpsim "$tmp/$s.json" -o "$tmp/$s.h5" --quiet; done
$PY - "$tmp" <<'PYEOF'
import sys
import numpy as np
sys.path.insert(0, "scripts")
import lcpsim_load
d, g = sys.argv[1], 9.81
def impacts(name):
    r = lcpsim_load.load("%s/%s.h5" % (d, name))
    names = [str(n) for n in r.events.kind_legend]
    return r, r.events.time[r.events.kind == names.index("impact")]
r, t = impacts("on_ground_falling")
assert t[0] == 0.0 and abs(t[1] - 2 * 1.6 / g) < 1e-9, t
assert abs(r.v[1][1] - (1.6 - g * 0.001)) < 1e-9, r.v[1]
r, t = impacts("on_ground_leaving")
assert len(t) == 1 and abs(t[0] - 4 / g) < 1e-9, t
assert abs(r.q[-1][1] - 0.1) < 1e-9 and abs(r.v[-1][1]) < 1e-9, (r.q[-1], r.v[-1])
r, t = impacts("rope_above")
assert len(t) == 1 and abs(t[0] - np.sqrt(4 / g)) < 1e-9, t
assert abs(r.q[-1][1] + 1.0) < 1e-9 and abs(r.v[-1][1]) < 1e-9, (r.q[-1], r.v[-1])
print("starts on a boundary: on the ground falling, leaving; a rope's bob at rest above: ok")
PYEOF
