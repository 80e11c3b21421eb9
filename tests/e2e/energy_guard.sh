#!/bin/sh
# The energy guard (docs/solvers.md, "Energy guard") on whole scenes whose LCPs fail by
# construction: a disk of radius 0.1 m pinned to the world 5 mm too low, starting 5 mm into
# a floor with friction 0.5 (overlap allowed). Its contact row asks the disk out of the
# floor, which the pin forbids: through the centre (arm 0) no impulse moves the contact
# point along the normal (infeasible: Lemke's secondary ray every step); 1e-5 m off the
# centre only huge impulses could, against the friction's torque, and Lemke ends on rays
# or on "solutions" refused in w's units (breakdown). Every failed step must be judged by
# the guard (/solver/energy_guard 1 or 2, never 0), the kinetic energy must never rise from
# one step to the next (the guard admits 1e-6 K + 1e-12 J, K <= 0.0025 J here: 1e-9 J bounds
# it; measured 2.4e-12 J), and the summary line must count the refusals. (The potential energy
# does rise, 6e-6 J a step: the overlap's position correction moves the disk out against
# its pin, which the guard, a judge of impulses, does not see.) Before the guard also
# judged the results refused in w's units, the off-centre disk's steps 3 and 5 read
# energy_guard 0 and its kinetic energy went from 3.5e-12 J to 2.0e-4 J in step 3.
set -e
PY=/usr/bin/python3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for arm in 0 1e-5; do
  cat > "$out/pinned_$arm.json" <<JSON
{"lcpsim": 1, "name": "disk pinned into the floor", "dimension": 2, "time_step": 0.01,
 "steps": 20, "gravity": [0, -9.81], "contact": {"allow_initial_overlap": true},
 "bodies": [
  {"name": "ground", "type": "static", "shapes": [{"type": "plane", "mu": 0.5}]},
  {"name": "disk", "mass": 1.0, "position": [0, 0.095], "angular_velocity": 1,
   "shapes": [{"type": "sphere", "radius": 0.1, "mu": 0.5}]}],
 "joints": [{"name": "axle", "type": "pin",
   "ends": [{"body": "disk", "point": [$arm, 0]}, {"world": [$arm, 0.095]}]}]}
JSON
  set +e
  ./lcpsim "$out/pinned_$arm.json" -o "$out/p.h5" > "$out/out" 2> "$out/err"
  rc=$?
  set -e
  [ $rc -eq 1 ] || { echo "FAIL: arm $arm: exit $rc, expected 1 (failed steps)"; cat "$out/err"; exit 1; }
  grep -q "solver failures" "$out/out" || { echo "FAIL: arm $arm: no failures in the summary"; cat "$out/out"; exit 1; }
  $PY - "$out/p.h5" "$arm" "$out/out" <<'PYEOF'
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
arm, line = sys.argv[2], open(sys.argv[3]).read()
s = f["solver"]
status, first, guard = s["status"][:], s["first_status"][:], s["energy_guard"][:]
K = f["energy/kinetic"][:]
failed = status < 0
ok = True
if not failed.any():
    print("FAIL: arm %s: no step failed: the scene no longer tests the guard" % arm); ok = False
unjudged = np.nonzero(failed & (guard == 0))[0]
if len(unjudged):
    print("FAIL: arm %s: failed steps %s not judged by the energy guard" % (arm, unjudged + 1)); ok = False
rise = np.diff(K).max()
if rise > 1e-9:
    print("FAIL: arm %s: the kinetic energy rose %.3g J in step %d" % (arm, rise, np.argmax(np.diff(K)) + 1)); ok = False
refused = int((guard == 2).sum())
if refused and "refused for adding kinetic energy" not in line:
    print("FAIL: arm %s: %d refusals not in the summary line: %s" % (arm, refused, line)); ok = False
unit = int((failed & (first == 0)).sum())
print("arm %s: %d of %d steps failed, %d not judged (%d refused, %d refused in w's units), largest kinetic energy rise in a step %.3g J"
      % (arm, failed.sum(), len(status), len(unjudged), refused, unit, rise))
sys.exit(0 if ok else 1)
PYEOF
done
echo "energy guard: ok"
