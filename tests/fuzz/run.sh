#!/bin/sh
# make fuzz: runs each fuzz target (build/fuzz/fuzz_NAME) for $1 seconds on one core,
# starting from its seed corpus tests/fuzz/corpus/NAME and the regression inputs
# tests/fuzz/regressions/NAME. New inputs go to build/fuzz/corpus/NAME, crashing, leaking
# or slow inputs to build/fuzz/findings/NAME/. libFuzzer runs in fork mode (one job at a
# time) and goes on after a finding, so that one crash inside HDF5 on a damaged file does
# not end the run (docs/fuzzing.md, "Library noise"). Prints executions and findings per
# target; exit 1 when a target found something.
secs=$1; shift
total=0
status=0
export LSAN_OPTIONS="suppressions=$(pwd)/tests/fuzz/lsan.supp:print_suppressions=0"
for bin in "$@"; do
  name=$(basename "$bin" | sed 's/^fuzz_//')
  work=build/fuzz/corpus/$name
  found=build/fuzz/findings/$name
  mkdir -p "$work" "$found"
  before=$(ls "$found" | wc -l)
  seeds=tests/fuzz/corpus/$name
  regs=tests/fuzz/regressions/$name
  [ -d "$regs" ] || regs=
  log=build/fuzz/$name.log
  echo "== fuzz $name: $secs s"
  # shellcheck disable=SC2086
  "$bin" -fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1 \
    -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=16384 \
    -artifact_prefix="$found/" "$work" "$seeds" $regs > "$log" 2>&1
  execs=$(sed -n 's/^#\([0-9]*\):.*/\1/p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+:' "$log" | tail -1 | sed 's/.*\(cov: [0-9]*\).*\(corp: [0-9]*\).*/\1, \2/')
  new=$(($(ls "$found" | wc -l) - before))
  echo "   executions ${execs:-0}, $last, findings $new"
  total=$((total + ${execs:-0}))
  if [ "$new" -ne 0 ]; then
    status=1
    ls -t "$found" | head -"$new" | sed "s|^|   $found/|"
  fi
done
echo "fuzz: $total executions in all"
exit $status
