#!/bin/sh
# The 2-D and 3-D example scenes end to end, each with Lemke and PGS (and Siconos' Lemke
# on the small ones), checked against their analytic outcomes (tests/e2e/check_rigid.py).
set -e
PY=/usr/bin/python3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# run SCENE SOLVER: writes $out/SCENE_SOLVER.h5 and echoes its path (a run whose solver
# failed still writes its file; the checker reads the statuses).
run() {
  f="$out/$(basename "$1" .json)_$(echo "$2" | tr ':[]=,' '_____').h5"
  ./lcpsim "$1" --solver "$2" -o "$f" --quiet > /dev/null || true
  echo "$f"
}

for dim in 2 3; do
  # At rest (the scene: tan 0.3 < mu 0.5), and sliding (a copy with mu 0.2 < tan 0.3).
  $PY -c "import json,sys; d=json.load(open('data/incline_${dim}d.json'))
for b in d['bodies']:
    for s in b.get('shapes', []): s['mu'] = 0.2
json.dump(d, open('$out/incline_${dim}d_slide.json', 'w'))"
  a=$(run data/incline_${dim}d.json lemke); b=$(run data/incline_${dim}d.json pgs)
  $PY tests/e2e/check_rigid.py incline:$dim:0.5 "$a" "$b"
  a=$(run "$out/incline_${dim}d_slide.json" lemke); b=$(run "$out/incline_${dim}d_slide.json" pgs)
  $PY tests/e2e/check_rigid.py incline:$dim:0.2 "$a" "$b"
  a=$(run data/balls_collide_${dim}d.json lemke); b=$(run data/balls_collide_${dim}d.json pgs)
  c=$(run data/balls_collide_${dim}d.json siconos:lemke)
  $PY tests/e2e/check_rigid.py collide "$a" "$b" "$c"
done
a=$(run data/box_slide_3d.json lemke); b=$(run data/box_slide_3d.json pgs)
$PY tests/e2e/check_rigid.py slide "$a" "$b"
a=$(run data/ball_roll_3d.json lemke); b=$(run data/ball_roll_3d.json pgs)
$PY tests/e2e/check_rigid.py roll "$a" "$b"
a=$(run data/box_stack_3d.json lemke); b=$(run data/box_stack_3d.json pgs)
$PY tests/e2e/check_rigid.py stack "$a" "$b"

# Piles in a bin: 10 boxes (Lemke, exact; PGS to tolerance), 100 and 1000 spheres (PGS at
# a fixed budget of 20 sweeps, as engines run it). Bodies stay in the bin.
a=$(run data/pile_10.json lemke)
b="$out/pile_10_pgs.h5"; ./lcpsim data/pile_10.json --solver pgs -o "$b" --quiet > /dev/null || true
$PY tests/e2e/check_rigid.py pile:0.35 "$a" "$b"
for n in 100:0.725 1000:1.35; do
  f="$out/pile_${n%%:*}.h5"
  ./lcpsim data/pile_${n%%:*}.json --solver pgs --tol 0 --max-iter 20 --steps 150 -o "$f" --quiet > /dev/null
  $PY tests/e2e/check_rigid.py pile:${n#*:} "$f"
done

# The 1000-sphere pile with two sweep threads (--threads 2): in the bin like the one-thread
# run, and twice the same file (trajectories and impulses bit for bit: the sweep order
# depends on the thread count only), which records its thread count.
for k in 1 2; do
  ./lcpsim data/pile_1000.json --solver pgs --tol 0 --max-iter 20 --steps 150 --threads 2 \
    -o "$out/pile_1000_t2_$k.h5" --quiet > /dev/null
done
$PY tests/e2e/check_rigid.py pile:1.35 "$out/pile_1000_t2_1.h5"
$PY - "$out/pile_1000_t2_1.h5" "$out/pile_1000_t2_2.h5" <<'PYEOF'
import sys
import h5py
import numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
assert int(a["/parameters/solver_threads"][()]) == 2, "solver_threads not recorded"
for name in ("q", "v", "contacts/normal_impulse", "solver/residual", "solver/iterations"):
    assert name in a, name
    assert np.array_equal(np.array(a[name]), np.array(b[name]), equal_nan=True), name + " differs"
print("pile_1000 --threads 2: two runs equal (q, v, impulses, residuals)")
PYEOF
