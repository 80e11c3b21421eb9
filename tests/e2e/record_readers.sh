#!/bin/sh
# record_readers.sh: the analysis scripts read the recorder's file correctly.
# build/tests/test_record --write-sample writes the sample run of tests/test_record.c
# (2 bodies, 3 steps, exact dyadic values); the Python and Octave loaders must return the
# same numbers in the same orientation, and both plot scripts must write a PNG.
set -eu
cd "$(dirname "$0")/../.."
PY=/usr/bin/python3
tmp=$(mktemp -d /tmp/lsim_e2e_readers_XXXXXX)
trap 'rm -rf "$tmp"' EXIT

make -s build/tests/test_record >/dev/null
build/tests/test_record --write-sample "$tmp/run.h5"

# Python: module use, exact values, contact slicing, command-line summary, plot.
$PY - "$tmp/run.h5" <<'PYEOF'
import sys
sys.path.insert(0, "scripts")
import numpy as np
import lcpsim_load
r = lcpsim_load.load(sys.argv[1])
assert r.format_version == 2
assert r.scene_text == '{\n  "bodies": ["left", "right-block"]\n}\n', repr(r.scene_text)
assert r.bodies.name == ["left", "right-block"], r.bodies.name
assert r.parameters.solver_name == "pgs" and r.parameters.time_step == 0.25
assert r.parameters.nq == 2 and r.parameters.steps == 3
assert r.q.shape == (4, 2) and r.v.shape == (4, 2) and r.time.shape == (4,)
assert np.array_equal(r.time, [0, 0.25, 0.5, 0.75])
assert np.array_equal(r.q, [[0, 2], [0.25, 1.75], [0.5, 1.5], [0.625, 1.375]])
assert np.array_equal(r.v[:, 1], [-1, -1, -0.5, -0.5])
assert np.array_equal(r.energy.kinetic, [2.5, 2.5, 0.625, 0.625])
assert np.array_equal(r.energy.potential, [6, 5.75, 5.5, 5.375])
c = r.contacts
assert np.array_equal(c.offset, [0, 0, 0, 2, 3])
assert c.point.shape == (3, 3) and c.friction_impulse.shape == (3, 3)
assert c.id.dtype == np.uint64 and int(c.id[0]) == 0x8000000000000001 and c.id[1] == 42
assert c.count(1) == 0 and c.count(2) == 2 and c.count(3) == 1
s2 = c.at(2)
assert np.array_equal(s2.normal_impulse, [1.5, 0.25])
assert np.array_equal(s2.friction_impulse[1], [-0.125, 0, 0])
assert np.array_equal(s2.body_b, [1, -1])
assert np.array_equal(c.at(3).gap, [0.0625])
assert np.array_equal(r.solver.status, [0, 0, -1])
assert np.array_equal(r.solver.residual, [0, 2.0**-40, 0.5])
assert r.solver.status_legend[9] == "0 solved"
assert r.summary.failures == 1 and r.summary.total_contacts == 3
assert r.summary.max_penetration == 0.125 and r.summary.steps_done == 3
print("python loader: ok")
PYEOF
$PY scripts/lcpsim_load.py "$tmp/run.h5" > "$tmp/summary.txt"
grep -q "3 of 3 steps" "$tmp/summary.txt"
grep -q "1 failed steps" "$tmp/summary.txt"
$PY scripts/lcpsim_plot.py "$tmp/run.h5" -o "$tmp/py.png"
head -c 8 "$tmp/py.png" | od -An -c | grep -q "P   N   G"

# Octave: the same numbers, rows = steps, and r.q(2,1) equal to h5py's q[1, 0].
pyq=$($PY -c "import h5py,sys; print(repr(float(h5py.File(sys.argv[1],'r')['q'][1,0])))" \
      "$tmp/run.h5")
octq=$(octave-cli -H --no-init-file --eval \
       "addpath('scripts'); r = lcpsim_load('$tmp/run.h5'); printf('%.17g\n', r.q(2,1))")
echo "q[1,0]: h5py $pyq, octave $octq"
[ "$($PY -c "print(float('$pyq') == float('$octq'))")" = True ]

octave-cli -H --no-init-file --eval "
addpath('scripts');
r = lcpsim_load('$tmp/run.h5');
assert(r.format_version == 2);
assert(strcmp(r.scene_text, sprintf('{\n  \"bodies\": [\"left\", \"right-block\"]\n}\n')));
assert(isequal(r.bodies.name, {'left'; 'right-block'}));
assert(strcmp(r.parameters.solver_name, 'pgs') && r.parameters.time_step == 0.25);
assert(isequal(size(r.time), [4 1]) && isequal(size(r.q), [4 2]) && isequal(size(r.v), [4 2]));
assert(isequal(r.time, [0; 0.25; 0.5; 0.75]));
assert(isequal(r.q, [0 2; 0.25 1.75; 0.5 1.5; 0.625 1.375]));
assert(isequal(r.v(:, 1), [1; 1; 0.5; 0.5]));
assert(isequal(r.energy.kinetic, [2.5; 2.5; 0.625; 0.625]));
assert(isequal(r.energy.potential, [6; 5.75; 5.5; 5.375]));
c = r.contacts;
assert(isequal(double(c.offset), [0; 0; 0; 2; 3]));
assert(isequal(size(c.point), [3 3]) && isequal(size(c.gap), [3 1]));
assert(isa(c.id, 'uint64') && c.id(1) == bitshift(uint64(1), 63) + 1 && c.id(2) == 42);
assert(isempty(c.rows(1)) && isequal(c.rows(2), [1 2]) && isequal(c.rows(3), 3));
s2 = c.at(2);
assert(isequal(s2.normal_impulse, [1.5; 0.25]));
assert(isequal(s2.friction_impulse(2, :), [-0.125 0 0]));
assert(isequal(double(s2.body_b), [1; -1]));
assert(isequal(c.at(3).gap, 0.0625));
assert(isequal(double(r.solver.status), [0; 0; -1]));
assert(isequal(r.solver.residual, [0; 2^-40; 0.5]));
assert(strcmp(r.solver.status_legend{10}, '0 solved'));
assert(r.summary.failures == 1 && r.summary.total_contacts == 3);
assert(r.summary.max_penetration == 0.125 && r.summary.steps_done == 3);
lcpsim_plot('$tmp/run.h5', '$tmp/oct.png');
disp('octave loader: ok');
"
head -c 8 "$tmp/oct.png" | od -An -c | grep -q "P   N   G"
echo "record_readers: ok"
