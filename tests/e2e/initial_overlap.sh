#!/bin/sh
# Initial overlap (docs/scene-format.md, "contact"): a ball 0.3 m inside the ground is
# refused with one line naming the file, the place, both bodies and the depth (exit 2, no
# file); allowed, it is pushed out at contact.max_correction_speed (1 m/s by default, not
# the 30 m/s of the full 0.3 m / 0.01 s correction), which the file's velocities show.
set -e
PY=/usr/bin/python3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "initial_overlap: $*" >&2; exit 1; }

scene() { # $1 = file, $2 = extra "contact" members
  cat > "$1" <<EOT
{"lcpsim": 1, "dimension": 3, "time_step": 0.01, "steps": 100,
 "gravity": [0, 0, -9.81], "contact": {$2},
 "bodies": [{"name": "ground", "type": "static", "shapes": [{"type": "plane"}]},
  {"name": "ball", "mass": 1, "position": [0, 0, 0.2],
   "shapes": [{"type": "sphere", "radius": 0.5}]}]}
EOT
}

scene "$out/ball.json" ""
rc=0; ./lcpsim "$out/ball.json" -o "$out/ball.h5" --quiet 2> "$out/err" || rc=$?
[ "$rc" -eq 2 ] || fail "exit $rc, expected 2"
[ "$(wc -l < "$out/err")" -eq 1 ] || fail "not one line: $(cat "$out/err")"
grep -qF "lcpsim: $out/ball.json:4:" "$out/err" || fail "no file:line: $(cat "$out/err")"
grep -qF "bodies[1].position: 'ball' overlaps 'ground' (bodies[0]) at the start by 0.3 m" "$out/err" \
  || fail "$(cat "$out/err")"
grep -qF '"allow_initial_overlap": true' "$out/err" || fail "the way out is not named: $(cat "$out/err")"
[ -z "$(ls "$out" | grep h5)" ] || fail "a file was left: $(ls "$out")"

scene "$out/allowed.json" '"allow_initial_overlap": true'
./lcpsim "$out/allowed.json" -o "$out/allowed.h5" --quiet || fail "the allowed scene did not run"
$PY - "$out/allowed.h5" <<'EOT' || fail "the ball left faster than 1 m/s"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    vz = f["v"][:, 2]
    # 1 m/s exactly while it overlaps (Lemke's rounding: 1e-12); slower after, under gravity.
    assert abs(vz[1] - 1.0) <= 1e-12 and vz.max() <= 1.0 + 1e-12, vz.max()
    print("initial_overlap: refused with one line; allowed: first step vz = %.15g m/s, max %.15g" % (vz[1], vz.max()))
EOT

# A column of 10 balls (r 0.1 m, 1 kg) each 5 cm into the next, the lowest touching the
# ground: every overlapping contact separates at the cap, so the speeds add up the column:
# ball k (k = 0 the lowest) leaves at exactly k m/s, the top one at 9 m/s, not 1 m/s.
# The cap bounds each contact's separation speed, not a body's (docs/scene-format.md).
cat > "$out/column.json" <<EOT
{"lcpsim": 1, "dimension": 3, "time_step": 0.01, "steps": 3,
 "gravity": [0, 0, -9.81], "contact": {"allow_initial_overlap": true},
 "bodies": [{"name": "ground", "type": "static", "shapes": [{"type": "plane"}]},
  {"name": "ball", "mass": 1, "position": [0, 0, 0.1],
   "shapes": [{"type": "sphere", "radius": 0.1}], "grid": {"count": [1, 1, 10], "spacing": [1, 1, 0.15]}}]}
EOT
./lcpsim "$out/column.json" -o "$out/column.h5" --quiet || fail "the column did not run"
$PY - "$out/column.h5" <<'EOT' || fail "the column's speeds are not k m/s"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    vz = f["v"][1, 2::6]
    # Lemke solves the step exactly: speeds k m/s to rounding (1e-12 per contact, 10 contacts).
    for k, v in enumerate(vz):
        assert abs(v - k) <= 1e-10, (k, v)
    print("initial_overlap: a column of 10 overlapping balls leaves at 0, 1, ..., %.12g m/s" % vz[-1])
EOT
