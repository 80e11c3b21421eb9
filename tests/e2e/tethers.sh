#!/bin/sh
# Tethers and joints end to end: the scenes of data/ (tethered_bodies, pendulum_rope,
# pendulum_thrown, hanging_box, double_pendulum, chain_20), each with Lemke and PGS,
# checked against the outcomes their descriptions promise (tests/e2e/check_tethers.py),
# plus tethered_bodies on a frictional ground under gravity (contacts and tethers in one
# LCP, which Lemke must solve); the note on joints that start off their constraints; a
# double pendulum's impact impulses against RBDL's KKT system (reference file 004).
set -e
PY=/usr/bin/python3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# run SCENE SOLVER [OPTIONS]: writes $out/SCENE_SOLVER.h5 and echoes its path (a run
# whose solver failed still writes its file; the checker reads the statuses).
run() {
  f="$out/$(basename "$1" .json)_$2.h5"
  s=$1 solver=$2
  shift 2
  ./lcpsim "$s" --solver "$solver" -o "$f" --quiet "$@" > /dev/null || true
  echo "$f"
}

for c in tethered:tethered_bodies pendulum:pendulum_rope thrown:pendulum_thrown \
         hanging:hanging_box double:double_pendulum chain:chain_20; do
  scene=data/${c#*:}.json
  $PY tests/e2e/check_tethers.py "${c%%:*}" "$(run "$scene" lemke)" "$(run "$scene" pgs)"
done

# On the ground: gravity, a plane under both disks (mu 0.5), the anchor at their height.
# PGS to a tight tolerance (1e-13): with friction cones its velocities are only as close
# to Lemke's as its stopping test makes them.
$PY -c "
import json
d = json.load(open('data/tethered_bodies.json'))
d['gravity'] = [0, -9.81]
d['bodies'].insert(0, {'name': 'ground', 'type': 'static', 'position': [0, -0.4],
                       'shapes': [{'type': 'plane', 'mu': 0.5}]})
for b in d['bodies'][1:]:
    b['position'][1] = -0.3
    b['shapes'][0]['mu'] = 0.5
d['tethers'][0]['ends'][1]['path']['origin'] = [0, -0.3]
json.dump(d, open('$out/tethered_ground.json', 'w'))"
$PY tests/e2e/check_tethers.py tethered "$(run "$out/tethered_ground.json" lemke)" \
    "$(run "$out/tethered_ground.json" pgs --tol 1e-13)"

# A joint that starts off its constraint without "assemble": lcpsim says so (the step's
# drift correction takes it back, 0.01 m in one step at c = 1, as a velocity of 10 m/s),
# and says nothing for the consistent example scenes.
cat > "$out/off.json" <<'JSON'
{"lcpsim": 1, "dimension": 2, "time_step": 0.001, "steps": 3, "gravity": [0, 0],
 "bodies": [{"name": "bar", "mass": 1, "inertia": 0.08333333333333333, "position": [0.51, 0]}],
 "joints": [{"name": "pin", "type": "pin", "ends": [{"body": "bar", "point": [-0.5, 0]}, {"world": [0, 0]}]}]}
JSON
./lcpsim "$out/off.json" -o "$out/off.h5" > /dev/null 2> "$out/off.txt"
grep -q "note: joint 'pin' starts 0.01 m, 0 m/s off its constraint" "$out/off.txt" || {
  echo "FAIL: no note for a joint starting off its constraint:"; cat "$out/off.txt"; exit 1; }
for s in double_pendulum chain_20 double_pendulum_impact; do
  ./lcpsim data/$s.json -o "$out/$s.h5" --steps 1 > /dev/null 2> "$out/$s.txt"
  if grep -q "off its constraint" "$out/$s.txt"; then echo "FAIL: note for $s:"; cat "$out/$s.txt"; exit 1; fi
done
echo "tethers: inconsistent joints noted"

# RBDL's impact impulses (reference file 004, ComputeConstraintImpulsesDirect): a double
# pendulum in a general pose whose lower tip hits a frictionless floor (e = 0): lcpsim
# impact against the KKT system [M G'; G 0] [v+; -P] = [M v-; 0] of the two pins (world
# axes) and the tip's normal, in maximal coordinates; printed to 9 digits, so 1e-8.
$PY - "$out" <<'PYEOF'
import json, subprocess, sys
import numpy as np
out = sys.argv[1]
th1, th2, w1, w2 = -0.3, -1.2, -2.0, 1.5
e1, e2 = np.array([np.cos(th1), np.sin(th1)]), np.array([np.cos(th2), np.sin(th2)])
perp = lambda e: np.array([-e[1], e[0]])
c1, c2, tip = 0.5 * e1, e1 + 0.5 * e2, e1 + e2
v1, v2 = w1 * 0.5 * perp(e1), w1 * perp(e1) + w2 * 0.5 * perp(e2)
scene = {"lcpsim": 1, "dimension": 2, "time_step": 0.001, "steps": 1, "gravity": [0, 0],
         "bodies": [{"name": "ground", "type": "static", "position": [0, tip[1]], "shapes": [{"type": "plane", "mu": 0.0}]},
                    {"name": "upper", "mass": 1.0, "inertia": 1 / 12, "position": list(c1), "orientation": th1,
                     "velocity": list(v1), "angular_velocity": w1},
                    {"name": "lower", "mass": 1.0, "inertia": 1 / 12, "position": list(c2), "orientation": th2,
                     "velocity": list(v2), "angular_velocity": w2,
                     "shapes": [{"type": "point", "position": [0.5, 0], "mu": 0.0}]}],
         "joints": [{"name": "shoulder", "type": "pin", "ends": [{"body": "upper", "point": [-0.5, 0]}, {"world": [0, 0]}]},
                    {"name": "elbow", "type": "pin", "ends": [{"body": "lower", "point": [-0.5, 0]}, {"body": "upper", "point": [0.5, 0]}]}]}
json.dump(scene, open(out + "/dpi.json", "w"))
def row(body, r, axis):
    g = np.zeros(6); g[3 * body:3 * body + 2] = axis; g[3 * body + 2] = np.cross(r, axis); return g
X, Y = np.array([1.0, 0]), np.array([0, 1.0])
G = np.array([row(0, -0.5 * e1, X), row(0, -0.5 * e1, Y),
              row(1, -0.5 * e2, X) - row(0, 0.5 * e1, X), row(1, -0.5 * e2, Y) - row(0, 0.5 * e1, Y),
              row(1, 0.5 * e2, Y)])
M = np.diag([1, 1, 1 / 12, 1, 1, 1 / 12])
vm = np.r_[v1, w1, v2, w2]
sol = np.linalg.solve(np.block([[M, G.T], [G, np.zeros((5, 5))]]), np.r_[M @ vm, np.zeros(5)])
vp, P = sol[:6], -sol[6:]  # P: impulses on the first end's body
txt = subprocess.run(["./lcpsim", "impact", out + "/dpi.json", "--close", "lower:ground"],
                     capture_output=True, text=True, check=True).stdout
lines = txt.splitlines()
after = [np.array(l.split()[-3:], float) for l in lines if " after " in l]
got = {}
for l in lines:
    for key in ("contact lower:ground", "joint shoulder (x)", "joint shoulder (y)", "joint elbow (x)", "joint elbow (y)"):
        if l.startswith(key):
            got[key] = float(l[len(key):].split()[0])
want = dict(zip(["joint shoulder (x)", "joint shoulder (y)", "joint elbow (x)", "joint elbow (y)", "contact lower:ground"], P))
assert len(got) == 5, txt
err = max(max(abs(got[k] - want[k]) for k in want), np.abs(np.r_[after[0], after[1]] - vp).max())
assert err < 1e-8, (got, want, after, vp)
print("tethers: impact impulses of a double pendulum = the KKT system's to %.1e" % err)
PYEOF
echo "tethers: ok"
