#!/bin/sh
# The restitution example scenes end to end with Lemke and PGS: the bouncing ball's apexes
# (e^(2k) H), the head-on pair's Newton velocities and exact momentum, the hollow ball's
# post-impact velocities (Tedrake's matrix), and energy that never grows; Newton's cradle with
# sequential impacts (the run and lcpsim impact --sequential) and simultaneous ones.
set -e
PY=/usr/bin/python3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for solver in lemke pgs; do
  for scene in bouncing_ball balls_bounce_2d hollow_ball; do
    ./lcpsim data/$scene.json --solver $solver -o "$out/${scene}_$solver.h5" --quiet
  done
  $PY - "$out" "$solver" <<'PYEOF'
import sys
import numpy as np
sys.path.insert(0, "scripts")
import lcpsim_load

out, solver = sys.argv[1], sys.argv[2]
def fail(msg):
    print("FAIL:", solver, msg)
    sys.exit(1)
def load(name):
    r = lcpsim_load.load(f"{out}/{name}_{solver}.h5")
    if np.any(r.solver.status != 0):
        fail(f"{name}: solver failed")
    e = r.energy.kinetic + r.energy.potential
    # Energy never grows; 1e-12 J of rounding on energies of 10 J.
    if np.max(np.diff(e)) > 1e-12:
        fail(f"{name}: energy grew by {np.max(np.diff(e)):.3e} J")
    return r

# Bouncing ball, e = 0.8, H = 1 m, h = 1 ms: the first three apexes at e^(2k) H within
# one step's travel of the fall before each (h sqrt(2 g H_k-1)); at rest at the end.
r = load("bouncing_ball")
y = r.position("ball")[:, 1] - 0.1
vy = r.velocity("ball")[:, 1]
apex = [y[i] for i in range(1, len(vy)) if vy[i - 1] > 0 and vy[i] <= 0]
h, e, H = r.parameters.time_step, 0.8, 1.0
for k in range(1, 4):
    want, travel = e ** (2 * k) * H, h * np.sqrt(2 * 9.81 * e ** (2 * k - 2) * H) * k
    if abs(apex[k - 1] - want) > travel:
        fail(f"bouncing_ball: apex {k} at {apex[k - 1]:.5f} m, e^2k H = {want:.5f} (allowed {travel:.4f})")
if abs(y[-1]) > 1e-9 or abs(vy[-1]) > 1e-9:
    fail(f"bouncing_ball: not at rest at the end (height {y[-1]:.3e}, speed {vy[-1]:.3e})")

# Head-on pair: Newton's velocities (-1.6, 0.2) after the impact to 1e-12, momentum -1 N s
# at every step to 1e-13.
r = load("balls_bounce_2d")
vl, vh = r.velocity("light")[:, 0], r.velocity("heavy")[:, 0]
if np.max(np.abs(vl + 3 * vh + 1.0)) > 1e-13:
    fail("balls_bounce_2d: momentum not conserved")
if abs(vl[-1] + 1.6) > 1e-12 or abs(vh[-1] - 0.2) > 1e-12:
    fail(f"balls_bounce_2d: after the impact ({vl[-1]!r}, {vh[-1]!r}), Newton (-1.6, 0.2)")

# Hollow ball: after the first step (the impact) (0.42, 1, -1.4) to 1e-12.
r = load("hollow_ball")
got = np.array([*r.velocity("ball")[1, :2], r.angular_velocity("ball")[1]])
if np.max(np.abs(got - [0.42, 1.0, -1.4])) > 1e-12:
    fail(f"hollow_ball: post-impact {got}, Tedrake (0.42, 1, -1.4)")
print("ok:", solver, "apexes", np.round(apex[:3], 5))
PYEOF
done

# Newton's cradle (event-driven, sequential impacts): the last ball leaves at 1 m/s, the
# others rest, momentum 1 N s and energy 0.5 J to 1e-15 (round-off of order-1 values).
./lcpsim data/newtons_cradle.json -o "$out/cradle.h5" --quiet
$PY - "$out/cradle.h5" <<'PYEOF'
import sys
import numpy as np
sys.path.insert(0, "scripts")
import lcpsim_load
r = lcpsim_load.load(sys.argv[1])
v = np.array([r.velocity(f"b{i}")[:, 0] for i in range(5)])
if np.max(np.abs(v[:, -1] - [0, 0, 0, 0, 1])) > 1e-15:
    print("FAIL: newtons_cradle: leaves at", v[:, -1], "expected (0, 0, 0, 0, 1)")
    sys.exit(1)
if np.max(np.abs(v.sum(axis=0) - 1)) > 1e-15 or np.max(np.abs(r.energy.kinetic - 0.5)) > 1e-15:
    print("FAIL: newtons_cradle: momentum or energy not kept")
    sys.exit(1)
print("ok: newtons_cradle", v[:, -1])
PYEOF
# lcpsim impact on the same row: --sequential gives the cradle, every contact passing 1 N s
# on; --simultaneous moves the row as one body, (1 - 4 e) / 5 and (1 + e) / 5 with e = 1.
pairs=b0:b1,b1:b2,b2:b3,b3:b4
for law in sequential simultaneous; do
  ./lcpsim impact data/newtons_cradle.json --close $pairs --$law > "$out/impact_$law.txt"
done
$PY - "$out" <<'PYEOF'
import sys
out = sys.argv[1]
def after(law):
    lines = open(f"{out}/impact_{law}.txt").read().splitlines()
    v = [float(l.split()[1]) for l in lines if l.split()[:1] == ["after"]]
    imp = [float(l.split()[2]) for l in lines if l.startswith("contact ")]
    return v, imp
for law, want, want_imp in [("sequential", [0, 0, 0, 0, 1], [1, 1, 1, 1]),
                            ("simultaneous", [-0.6, 0.4, 0.4, 0.4, 0.4], [1.6, 1.2, 0.8, 0.4])]:
    v, imp = after(law)
    # 9 significant digits printed: 1e-9 on order-1 values.
    if len(v) != 5 or max(abs(a - b) for a, b in zip(v, want)) > 1e-9 or \
       max(abs(a - b) for a, b in zip(imp, want_imp)) > 1e-9:
        print(f"FAIL: lcpsim impact --{law}: velocities {v}, impulses {imp}; expected {want}, {want_imp}")
        sys.exit(1)
print("ok: lcpsim impact --sequential / --simultaneous")
PYEOF

# The time step has no sequential law: a time-stepped scene asking for it is refused (exit
# 2, no file) rather than run with the simultaneous one.
$PY -c "import json, sys; d = json.load(open('data/newtons_cradle.json')); del d['integrator']
json.dump(d, open(sys.argv[1], 'w'))" "$out/cradle_ts.json"
if ./lcpsim "$out/cradle_ts.json" -o "$out/cradle_ts.h5" --quiet 2> "$out/err.txt"; then
  echo "FAIL: a time-stepped scene with event_driven.impacts sequential ran"; exit 1
fi
grep -q 'event_driven.impacts "sequential" applies to "integrator": "event_driven"' "$out/err.txt" ||
  { echo "FAIL: message: $(cat "$out/err.txt")"; exit 1; }
[ ! -e "$out/cradle_ts.h5" ] || { echo "FAIL: a file was written"; exit 1; }
echo "ok: sequential impacts refused in the time step"
# lcpsim impact takes one law: both options are refused (exit 2) with a message.
if ./lcpsim impact data/newtons_cradle.json --close b0:b1 --sequential --simultaneous 2> "$out/err.txt" > /dev/null; then
  echo "FAIL: lcpsim impact took --sequential with --simultaneous"; exit 1
fi
grep -q "exclude each other" "$out/err.txt" || { echo "FAIL: message: $(cat "$out/err.txt")"; exit 1; }
echo "ok: lcpsim impact --sequential --simultaneous refused"
# lcpsim impact with friction in 2-D: a disc (m 2, r 0.1, I = m r^2 / 2) hits a wall at
# (2, 1) m/s, e 0.5, mu 0.3: normal impulse m (1 + e) 2 = 6 N s; the slip's 1 m/s needs
# m / 3 N s (K_tt = 3 / m), under mu 6, so it sticks: friction -2/3 N s along the wall, the
# disc leaves at (-1, 2/3). The friction vector has the plane's two components (it had a
# third, always 0). Printed to 9 digits: 1e-8.
cat > "$out/wall.json" <<'JSON'
{"lcpsim": 1, "dimension": 2, "time_step": 0.001, "steps": 1,
 "bodies": [{"name": "wall", "type": "static", "position": [0.6, 0], "orientation": 1.5707963267948966,
             "shapes": [{"type": "plane", "mu": 0.3}]},
            {"name": "disc", "mass": 2, "position": [0.5, 0], "velocity": [2, 1], "restitution": 0.5,
             "shapes": [{"type": "sphere", "radius": 0.1, "mu": 0.3}]}]}
JSON
./lcpsim impact "$out/wall.json" --close disc:wall > "$out/wall.txt"
$PY - "$out/wall.txt" <<'PYEOF'
import sys
lines = open(sys.argv[1]).read().splitlines()
row = [l.split() for l in lines if l.startswith("contact ")]
after = [l.split() for l in lines if l.split()[:1] == ["after"]]
if len(row) != 1 or len(row[0]) != 5:
    print(f"FAIL: lcpsim impact, 2-D: contact row {row}: want name, normal, fx, fy"); sys.exit(1)
imp = [float(x) for x in row[0][2:]]
v = [float(x) for x in after[0][1:]]
if abs(imp[0] - 6) > 1e-8 or abs(imp[1]) > 1e-8 or abs(imp[2] + 2 / 3) > 1e-8 or \
   abs(v[0] + 1) > 1e-8 or abs(v[1] - 2 / 3) > 1e-8:
    print(f"FAIL: lcpsim impact, 2-D disc on a wall: impulses {imp}, velocity {v}"); sys.exit(1)
print("ok: lcpsim impact, 2-D friction vector")
PYEOF
# Outside the event-driven integrator's scope, refused (exit 2) naming what: a kinematic
# body's velocity was printed as -nan with exit 0.
cat > "$out/kin.json" <<'JSON'
{"lcpsim": 1, "dimension": 2, "time_step": 0.001, "steps": 1,
 "bodies": [{"name": "paddle", "type": "kinematic", "position": [0.7, 0], "velocity": [-1, 0],
             "shapes": [{"type": "box", "half_extents": [0.1, 0.5]}]},
            {"name": "disc", "mass": 2, "position": [0.5, 0], "velocity": [2, 1], "restitution": 0.5,
             "shapes": [{"type": "sphere", "radius": 0.1}]}]}
JSON
st=0
./lcpsim impact "$out/kin.json" --close disc:paddle > "$out/kin.txt" 2> "$out/err.txt" || st=$?
if [ "$st" -ne 2 ] || [ -s "$out/kin.txt" ] ||
   ! grep -q "the impact map: kinematic bodies are not supported (body 'paddle')" "$out/err.txt"; then
  echo "FAIL: lcpsim impact with a kinematic body: exit $st, $(cat "$out/kin.txt" "$out/err.txt")"; exit 1
fi
echo "ok: lcpsim impact refuses a kinematic body"
