#!/bin/sh
# Tethers and joints end to end: the scenes of data/ (tethered_bodies, pendulum_rope,
# pendulum_thrown, hanging_box, double_pendulum, chain_20), each with Lemke and PGS,
# checked against the outcomes their descriptions promise (tests/e2e/check_tethers.py),
# plus tethered_bodies on a frictional ground under gravity (contacts and tethers in one
# LCP, which Lemke must solve).
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
echo "tethers: ok"

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
