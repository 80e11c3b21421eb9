#!/bin/sh
# Bad input: each case gets one clear error line naming the place, exit status 2, and no
# output file under the final name (an existing one is left untouched). Runs the
# sanitizer build, so error paths are also checked for leaks and undefined behaviour.
set -u
bin=build/san/lcpsim
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fails=0

# expect NAME JSON_TEXT EXPECTED_FRAGMENT
expect() {
  name=$1; text=$2; want=$3
  printf '%s' "$text" > "$out/$name.json"
  $bin "$out/$name.json" -o "$out/$name.h5" --quiet 2> "$out/$name.err"
  rc=$?
  lines=$(wc -l < "$out/$name.err")
  if [ $rc -ne 2 ]; then echo "FAIL $name: exit $rc, expected 2"; fails=$((fails + 1)); fi
  if [ "$lines" -ne 1 ]; then echo "FAIL $name: $lines lines on stderr:"; cat "$out/$name.err"; fails=$((fails + 1)); fi
  if ! grep -qF -- "$want" "$out/$name.err"; then
    echo "FAIL $name: expected '$want' in: $(cat "$out/$name.err")"; fails=$((fails + 1)); fi
  if [ -e "$out/$name.h5" ] || [ -e "$out/$name.h5.partial" ]; then
    echo "FAIL $name: an output file was left behind"; fails=$((fails + 1)); fi
}

head='{"lcpsim": 1, "time_step": 0.1, "steps": 3, '
expect syntax "$head"'"bodies": [ {"mass": 1,, } ]}' "syntax.json:1:"
expect nan "$head"'"bodies": [ {"mass": NaN} ]}' "nan.json:1:"
expect type "$head"'
"bodies": [ {"mass": "heavy"} ]}' "type.json:2:22: bodies[0].mass: must be a number"
expect negmass "$head"'
"bodies": [ {"position": 0},
            {"position": 5, "mass": -1} ]}' "negmass.json:3:37: bodies[1].mass: must be > 0, got -1"
expect negwidth "$head"'"bodies": [ {"width": -0.5} ]}' "bodies[0].width"
expect overlap "$head"'"bodies": [ {"position": 0, "width": 1}, {"position": 0.5, "width": 1} ]}' "overlap"
expect zerostep '{"lcpsim": 1, "time_step": 0, "steps": 3, "bodies": [ {} ]}' "time_step"
expect negstep '{"lcpsim": 1, "time_step": -0.1, "steps": 3, "bodies": [ {} ]}' "time_step"
expect unknown "$head"'"bodies": [ {"masss": 1} ]}' "bodies[0].masss"
expect version '{"lcpsim": 7, "time_step": 0.1, "steps": 3, "bodies": [ {} ]}' "lcpsim"
expect coupling "$head"'"bodies": [ {"name": "A"} ], "couplings": [ {"bodies": ["A", "Z"], "inertia": 1} ]}' "couplings[0].bodies[1]: no body named 'Z'"
expect wallside "$head"'"bodies": [ {"position": -1} ], "walls": [ {"position": 0, "side": "left"} ]}' "bodies[0].position: 'body0'"

# A missing scene file.
$bin "$out/nothere.json" -o "$out/nothere.h5" 2> "$out/nothere.err"
rc=$?
if [ $rc -ne 2 ] || ! grep -q "nothere.json" "$out/nothere.err"; then
  echo "FAIL missing file: exit $rc: $(cat "$out/nothere.err")"; fails=$((fails + 1)); fi

# An existing output is not touched by a failing run.
echo "precious" > "$out/keep.h5"
printf '%s' "$head"'"bodies": [ {"mass": -1} ]}' > "$out/keep.json"
$bin "$out/keep.json" -o "$out/keep.h5" 2>/dev/null
if [ "$(cat "$out/keep.h5")" != "precious" ]; then echo "FAIL: existing output overwritten"; fails=$((fails + 1)); fi

# Bad command lines.
for args in "--steps 0 data/two_blocks.json" "--solver nosuch data/two_blocks.json" \
            "--solver siconos:qp data/two_blocks.json" "--bogus data/two_blocks.json" \
            "solve" "solve $out/missing.dat"; do
  # shellcheck disable=SC2086
  $bin $args -o "$out/cli.h5" > /dev/null 2> "$out/cli.err"
  rc=$?
  if [ $rc -ne 2 ] || [ ! -s "$out/cli.err" ]; then
    echo "FAIL 'lcpsim $args': exit $rc, stderr: $(cat "$out/cli.err")"; fails=$((fails + 1)); fi
  if [ -e "$out/cli.h5" ]; then echo "FAIL 'lcpsim $args' wrote a file"; fails=$((fails + 1)); fi
done

# Bad .dat files for `lcpsim solve`: a line number in the message, exit 2.
printf '3\n0\n3 3\n3 3\n1 0 0\n0 1 0\n' > "$out/trunc.dat"
printf '2\n0\n2 2\n2 2\n1 0 0 abc\n1 1\n' > "$out/text.dat"
for f in trunc text; do
  $bin solve "$out/$f.dat" > /dev/null 2> "$out/$f.err"
  rc=$?
  if [ $rc -ne 2 ] || ! grep -q "$f.dat:[0-9]" "$out/$f.err"; then
    echo "FAIL solve $f.dat: exit $rc: $(cat "$out/$f.err")"; fails=$((fails + 1)); fi
done

[ $fails -eq 0 ] && echo "ok: bad input"
[ $fails -eq 0 ]
