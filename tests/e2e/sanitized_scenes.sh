#!/bin/sh
# Every example scene runs under the sanitizer build (AddressSanitizer + UBSan, which abort
# on the first finding) with its own solver and with PGS, for a few steps each (enough to
# reach contacts, joints going taut and warm starts: 60 steps; the large piles fewer),
# and must end with its normal exit status (0, or 1 when a solver reported a failed step)
# and no sanitizer report.
set -u
bin=build/san/lcpsim
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fails=0
runs=0
for scene in data/*.json; do
  name=$(basename "$scene" .json)
  case $name in scene.schema) continue ;; esac
  steps=60
  case $name in pile_1000) steps=3 ;; pile_100) steps=20 ;; esac
  if grep -q '"hybrid"' "$scene"; then
    # A hybrid-model scene: no solver, no steps; its own final time.
    $bin "$scene" -o "$out/run.h5" --quiet > "$out/out.txt" 2> "$out/err.txt"
    rc=$?
    runs=$((runs + 1))
    if grep -q "runtime error\|AddressSanitizer\|LeakSanitizer" "$out/err.txt" || [ $rc -ne 0 ]; then
      echo "FAIL $name: exit $rc"; head -5 "$out/err.txt"; fails=$((fails + 1))
    fi
    rm -f "$out/run.h5"
    continue
  fi
  for solver in "" pgs; do
    # An event-driven scene takes no time-step solver (--solver is refused, exit 2): once.
    if [ -n "$solver" ] && grep -q '"integrator": *"event_driven"' "$scene"; then continue; fi
    label="$name${solver:+ ($solver)}"
    $bin "$scene" ${solver:+--solver $solver} --steps $steps -o "$out/run.h5" --quiet \
      > "$out/out.txt" 2> "$out/err.txt"
    rc=$?
    runs=$((runs + 1))
    if grep -q "runtime error\|AddressSanitizer\|LeakSanitizer" "$out/err.txt"; then
      echo "FAIL $label: sanitizer report:"; head -5 "$out/err.txt"; fails=$((fails + 1))
    elif [ $rc -ne 0 ] && [ $rc -ne 1 ]; then
      echo "FAIL $label: exit $rc"; head -3 "$out/err.txt"; fails=$((fails + 1))
    fi
    rm -f "$out/run.h5"
  done
done
echo "sanitized scenes: $runs runs, $fails failed"
[ $fails -eq 0 ]
