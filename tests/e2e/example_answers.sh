#!/bin/sh
# example_answers.sh: the example scenes' stated answers (their descriptions, README's and
# docs/scene-format.md's tables) against the closed forms, exactly where the time step has
# a discrete closed form: the box sliding to rest (semi-implicit Euler's sum, along x and at
# 45 degrees with the exact and the 4-direction cone), the coupled carts (M^-1 of the
# impact), the hanging box's rope impulses, the bouncing ball's impacts against t_k, the
# SLIP runner's initial energy, the bouncing mass's impact count and flight times. Tolerances are given where each is checked.
set -eu
cd "$(dirname "$0")/../.."
PY=/usr/bin/python3
tmp=$(mktemp -d /tmp/lsim_e2e_answers_XXXXXX)
trap 'rm -rf "$tmp"' EXIT

for s in box_slide_3d box_slide_45_exact coupled_carts hanging_box bouncing_ball; do
  ./lcpsim data/$s.json -o "$tmp/$s.h5" --quiet || { echo "FAIL: lcpsim data/$s.json"; exit 1; }
done
./lcpsim data/hanging_box.json --solver pgs -o "$tmp/hanging_box_pgs.h5" --quiet
./lcpsim data/slip.json -o "$tmp/slip.h5" --quiet > /dev/null
./lcpsim data/bouncing_mass.json -o "$tmp/bouncing_mass.h5" --quiet > /dev/null
# The 45-degree slide with the scene's default cone (4 directions): no "friction" key.
$PY -c "import json, sys; d = json.load(open('data/box_slide_45_exact.json')); del d['friction']
json.dump(d, open(sys.argv[1], 'w'))" "$tmp/box_slide_45_poly.json"
./lcpsim "$tmp/box_slide_45_poly.json" -o "$tmp/box_slide_45_poly.h5" --quiet

$PY tests/e2e/check_answers.py "$tmp"
