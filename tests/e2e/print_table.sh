#!/bin/sh
# `lcpsim --print` shows every coordinate of each moving body: the table's columns, read
# back, equal the file's q and v at every step, for a 1-D, a 2-D and a 3-D scene.
set -eu
PY=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for scene in cart_wall incline_2d box_stack_3d; do
  ./lcpsim "data/$scene.json" --steps 20 -o "$tmp/$scene.h5" --print > "$tmp/$scene.txt"
  $PY - "$tmp/$scene.txt" "$tmp/$scene.h5" <<'PYEOF'
import sys
import numpy as np
sys.path.insert(0, "scripts")
import lcpsim_load
r = lcpsim_load.load(sys.argv[2])
lines = open(sys.argv[1]).read().splitlines()
head = lines[0]
dim = r.parameters.dimension
qn = r.parameters.q_components
vn = r.parameters.v_components
moving = [i for i in range(len(r.bodies.name)) if r.bodies.nq[i] > 0]
# Every coordinate has a column named after it and its body.
for i in moving:
    for c in qn + vn:
        assert f"{c}[{r.bodies.name[i][:8]}]" in head, (c, r.bodies.name[i], head)
ncol = len(moving) * (len(qn) + len(vn))
for line in lines[1:]:
    if not line[:6].strip().isdigit():
        break  # the closing summary
    f = line.split()
    k = int(f[0])
    vals = np.array([float(x) for x in f[2:2 + ncol]])
    want = np.concatenate([np.concatenate([r.q[k, r.bodies.q_offset[i]:r.bodies.q_offset[i] + r.bodies.nq[i]],
                                           r.v[k, r.bodies.v_offset[i]:r.bodies.v_offset[i] + r.bodies.nv[i]]])
                           for i in moving])
    # %.9g keeps 9 significant digits: relative 5e-9 plus round-off-sized values.
    assert np.all(np.abs(vals - want) <= 5e-9 * np.abs(want) + 1e-300), (k, vals, want)
    assert k <= 20
assert k == 20, k
print(f"--print, dimension {dim}: {ncol} columns per row match the file: ok")
PYEOF
done

# A body named in UTF-8 beyond 8 characters: its column shows the first 8 characters,
# never a character cut in half (the name was cut at 8 bytes, inside 'é'), and the header
# stays valid UTF-8 with each column 16 characters wide.
printf '%s' '{"lcpsim": 1, "time_step": 0.1, "steps": 2, "bodies": [{"name": "ééééééééé", "velocity": 1}]}' > "$tmp/utf8.json"
./lcpsim "$tmp/utf8.json" --print -o "$tmp/utf8.h5" > "$tmp/utf8.txt"
$PY - "$tmp/utf8.txt" <<'PYEOF'
import sys
head = open(sys.argv[1], "rb").read().splitlines()[0].decode("utf-8")  # raises if cut
assert "    x[éééééééé] m" in head and "vx[éééééééé] m/s" in head, head
# step (6) + time (1 + 12) + two columns of 1 + 16 characters before the impulses' title
assert head.index("   contact") == 6 + 13 + 2 * 17, head
print("--print, a UTF-8 name: whole characters, aligned columns: ok")
PYEOF
