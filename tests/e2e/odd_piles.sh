#!/bin/sh
# Odd piles: a field of 1000 spheres spread over huge extents (the broad phase sorts
# positions of 1e13 m); a pile on a tilted plane; 1 mm balls on a 1 m box; a 1e4 kg slab
# on 1 kg boxes (mass ratio 1:1e4).
set -e
PY=/usr/bin/python3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "odd_piles: $*" >&2; exit 1; }

$PY - "$out" <<'EOT'
import json, sys
d = sys.argv[1]
ground = {"name": "ground", "type": "static", "shapes": [{"type": "plane"}]}
def write(name, bodies, steps, solver, extra=None):
    s = {"lcpsim": 1, "dimension": 3, "time_step": 0.01, "steps": steps,
         "gravity": [0, 0, -9.81], "solver": solver, "bodies": bodies}
    s.update(extra or {})
    json.dump(s, open("%s/%s.json" % (d, name), "w"))
pgs = {"name": "pgs", "tol": 0, "max_iter": 50}
newton = {"name": "newton", "tol": 1e-10}
for name, sp in (("near", 1e4), ("far", 1e9)):
    write(name, [ground, {"name": "s", "mass": 1, "position": [0, 0, 0.15],
                          "shapes": [{"type": "sphere", "radius": 0.1}],
                          "grid": {"count": [40, 25, 1], "spacing": [sp, sp, 1]}}],
          60, pgs, {"limits": {"max_position": 1e11}})
tilt = {"name": "ground", "type": "static", "orientation": {"axis": [1, 0, 0], "angle": 0.3},
        "shapes": [{"type": "plane", "mu": 0.5}]}
write("tilt", [tilt,
               {"name": "b", "mass": 1, "position": [-1, -1, 0.8], "grid": {"count": [5, 5, 2], "spacing": [0.3, 0.3, 0.3]},
                "shapes": [{"type": "box", "half_extents": [0.1, 0.1, 0.1], "mu": 0.5}]},
               {"name": "s", "mass": 1, "position": [-1, -1, 1.5], "grid": {"count": [5, 5, 2], "spacing": [0.3, 0.3, 0.3]},
                "shapes": [{"type": "sphere", "radius": 0.1, "mu": 0.5}]}], 200, pgs)
write("sizes", [ground,
                {"name": "big", "density": 500, "position": [0, 0, 0.5], "shapes": [{"type": "box", "half_extents": [0.5, 0.5, 0.5]}]},
                {"name": "tiny", "density": 500, "position": [-0.2, -0.2, 1.002], "grid": {"count": [5, 5, 2], "spacing": [0.1, 0.1, 0.003]},
                 "shapes": [{"type": "sphere", "radius": 0.001}]}], 200, newton)
write("mass", [ground,
               {"name": "light", "mass": 1, "position": [-0.3, -0.3, 0.1], "grid": {"count": [3, 3, 1], "spacing": [0.3, 0.3, 1]},
                "shapes": [{"type": "box", "half_extents": [0.1, 0.1, 0.1]}]},
               {"name": "heavy", "mass": 1e4, "position": [0, 0, 0.3], "shapes": [{"type": "box", "half_extents": [0.5, 0.5, 0.1]}]}],
      100, newton)
EOT
for s in near far tilt sizes mass; do
  ./lcpsim "$out/$s.json" --quiet -o "$out/$s.h5" 2> "$out/$s.err" || fail "$s: the run failed: $(cat "$out/$s.err")"
done
$PY - "$out" <<'EOT' || fail "see above"
import sys, math, h5py, numpy as np
d = sys.argv[1]
def load(name):
    f = h5py.File("%s/%s.h5" % (d, name), "r")
    dyn = [i for i, t in enumerate(f["bodies/type"][()]) if t == 0]
    qo = f["bodies/q_offset"][()]
    pos = np.array([f["q"][:, qo[i]:qo[i] + 3] for i in dyn])  # [body, step, xyz]
    e = f["energy/kinetic"][()] + f["energy/potential"][()]
    return f, pos, e
# Far apart: a sphere's fall and rest do not depend on where it is, so the field spread
# over 4e10 m gives the heights and velocities of the one over 4e5 m, to the bit.
fn, pn, en = load("near"); ff, pf, ef = load("far")
assert np.array_equal(pn[:, :, 2], pf[:, :, 2]) and np.array_equal(fn["v"][()], ff["v"][()])
assert fn["contacts/gap"].shape == ff["contacts/gap"].shape
assert abs(pf[:, -1, 2] - 0.1).max() <= 1e-9, abs(pf[:, -1, 2] - 0.1).max()
# Tilted plane (normal (0, -sin 0.3, cos 0.3)): no centre nearer the plane than its half
# size less the deepest penetration; the energy never above the start.
f, p, e = load("tilt")
n = np.array([0, -math.sin(0.3), math.cos(0.3)])
pen = float(f["summary/max_penetration"][()])
assert pen <= 0.01 and (p @ n).min() >= 0.1 - pen - 1e-12, ((p @ n).min(), pen)
assert e.max() <= e[0], e.max() - e[0]
# 1 mm balls dropped by 1 mm onto a 1 m box, a second layer on the first (it rolls off
# its unstable perch onto the box): no ball's centre below 1.001 m (the box's top plus the
# radius) by more than 1e-9 m (newton's tolerance 1e-10 relative leaves nm-scale gaps),
# nothing sinks into the box or another ball, the energy never above the start.
f, p, e = load("sizes")
assert p[1:, :, 2].min() >= 1.001 - 1e-9, p[1:, :, 2].min()
assert float(f["summary/max_penetration"][()]) <= 1e-9
assert e.max() <= e[0] * (1 + 1e-12), e.max() - e[0]
# 1e4 kg slab on nine 1 kg boxes: the slab stays at its height, energy constant to 1e-10
# relative (the solver's tolerance).
f, p, e = load("mass")
assert abs(p[-1, :, 2] - 0.3).max() <= 1e-9, abs(p[-1, :, 2] - 0.3).max()
assert e.max() - e[0] <= 1e-10 * e[0] and float(f["summary/max_penetration"][()]) <= 1e-9
print("odd_piles: far field same bits as near; tilted pile lowest %.6g m from the plane "
      "(penetration %.2g m); 1 mm balls and 1:1e4 slab hold to 1e-9 m" % ((load("tilt")[1] @ n).min(), pen))
EOT
