#!/bin/sh
# The example exercises end to end, each with Lemke, PGS and Siconos' Lemke on the same
# scene, checked against their exact answers from the HDF5 output.
set -e
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for scene in cart_wall two_blocks brick_friction; do
  files=""
  for solver in lemke pgs siconos:lemke; do
    f="$out/${scene}_$(echo "$solver" | tr : _).h5"
    ./lcpsim "data/$scene.json" --solver "$solver" -o "$f" --quiet
    files="$files $f"
  done
  kind=$scene; [ "$scene" = brick_friction ] && kind=brick
  /usr/bin/python3 tests/e2e/check_exercises.py "$kind" $files
done
