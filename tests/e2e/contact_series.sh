#!/bin/sh
# The per-contact time series helpers (lcpsim_load.py / .m contact_series) on runs with
# known impulses: a box sliding on the ground (3-D, four corner contacts) and the 1-D
# brick under ground friction. Python and Octave give the same numbers.
set -eu
PY=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

./lcpsim data/box_slide_3d.json -o "$tmp/slide.h5" --quiet
./lcpsim data/brick_friction.json -o "$tmp/brick.h5" --quiet

$PY - "$tmp" <<'PYEOF'
import sys
import numpy as np
sys.path.insert(0, "scripts")
import lcpsim_load
d = sys.argv[1]
r = lcpsim_load.load(d + "/slide.h5")
h, g, mu, m = r.parameters.time_step, 9.81, 0.4, 1.0
s = r.contact_series("box", "ground")
# The box's four bottom corners: plane-box features are the corner index with bit 2 set
# for the -z corners (contact/geometry.c), the box is shape 1, the ground shape 0.
assert sorted(s.feature) == [4, 5, 6, 7], s.feature
assert np.all(s.shape_a == 1) and np.all(s.shape_b == 0), (s.shape_a, s.shape_b)
assert s.normal_impulse.shape == (len(r.time) - 1, 4) and np.all(s.step == np.arange(1, 101))
# The box stays on the ground: the normal impulses carry its weight, m g h per step
# (1e-10 relative: four corners carry three degrees of freedom, a degenerate LCP whose
# pivots lose a few digits; 2.7e-12 measured).
assert np.allclose(s.normal_total, m * g * h, rtol=1e-10, atol=0), s.normal_total
# Sliding along +x until v0 / (mu g) = 0.5097 s: the friction on the box is -mu N along x.
slide = s.time < 0.5
fx = s.friction_impulse[:, :, 0].sum(axis=1)
assert np.allclose(fx[slide], -mu * m * g * h, rtol=1e-10, atol=0), fx[slide]
assert np.all(np.abs(s.friction_impulse[:, :, 1:]) <= 1e-15)
# The other order gives the impulses on the ground: the same normals, opposite friction.
t = r.contact_series("ground", "box")
assert np.array_equal(t.normal_impulse, s.normal_impulse)
assert np.array_equal(t.friction_impulse, -s.friction_impulse)
assert np.all(t.shape_a == 0) and np.all(t.shape_b == 1)
# Every contact row of the run is in the series (the scene has this pair only).
assert np.isclose(s.normal_impulse.sum(), r.contacts.normal_impulse.sum(), rtol=1e-14)
assert np.all(s.active.sum(axis=1) == np.diff(r.contacts.offset)[1:])
assert not np.isnan(s.gap[s.active]).any() and np.isnan(s.gap[~s.active]).all()
np.savetxt(d + "/slide.py.txt", np.column_stack([s.normal_total, fx]), "%.17g")

# 1-D: ground friction is a fixed-normal contact with no second body (None / "ground").
r = lcpsim_load.load(d + "/brick.h5")
b = r.contact_series("brick", None)
assert list(b.feature) == [1] and list(b.shape_a) == [-1], (b.feature, b.shape_a)
assert np.allclose(b.normal_impulse[:, 0], 1.0 * 9.81 * r.parameters.time_step, rtol=1e-14)
# The push u(t) = 9.81 t / 2 N: static friction holds it, impulse -u h, up to 1 s.
u = 9.81 * (r.time[:-1]) / 2.0
held = r.time[1:] <= 1.0
assert np.allclose(b.friction_impulse[held, 0, 0], -u[held] * r.parameters.time_step,
                   rtol=1e-9, atol=1e-15), b.friction_impulse[held, 0, 0]
assert np.array_equal(r.contact_series("brick", "ground").normal_impulse, b.normal_impulse)
print("python contact_series: ok")
PYEOF

octave-cli -H --no-window-system --eval "
  addpath('scripts');
  r = lcpsim_load('$tmp/slide.h5');
  s = r.contact_series('box', 'ground');
  assert(isequal(sort(s.feature'), [4 5 6 7]) && all(s.shape_a == 2) && all(s.shape_b == 1));
  t = r.contact_series(1, 'box');
  assert(isequal(t.friction_impulse, -s.friction_impulse));
  fid = fopen('$tmp/slide.m.txt', 'w');
  fprintf(fid, '%.17g %.17g\n', [s.normal_total, sum(s.friction_impulse(:, :, 1), 2)]');
  fclose(fid);" > /dev/null
$PY - "$tmp" <<'PYEOF'
import sys
import numpy as np
d = sys.argv[1]
a, b = np.loadtxt(d + "/slide.py.txt"), np.loadtxt(d + "/slide.m.txt")
# Same rows summed in a possibly different order: 1e-15 relative.
assert a.shape == b.shape and np.allclose(a, b, rtol=1e-15, atol=1e-18), np.abs(a - b).max()
print("octave contact_series matches python: ok")
PYEOF
