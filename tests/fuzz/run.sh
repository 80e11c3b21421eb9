#!/bin/sh
# make fuzz: runs each fuzz target (build/fuzz/fuzz_NAME) for $1 seconds on one core,
# starting from its seed corpus tests/fuzz/corpus/NAME and the regression inputs
# tests/fuzz/regressions/NAME. New inputs go to build/fuzz/corpus/NAME, crashing,
# leaking or slow inputs to build/fuzz/findings/NAME/. Prints executions per target.
# Exit 1 when a target found something.
secs=$1; shift
total=0
status=0
for bin in "$@"; do
  name=$(basename "$bin" | sed 's/^fuzz_//')
  work=build/fuzz/corpus/$name
  found=build/fuzz/findings/$name
  mkdir -p "$work" "$found"
  seeds=tests/fuzz/corpus/$name
  regs=tests/fuzz/regressions/$name
  [ -d "$regs" ] || regs=
  log=build/fuzz/$name.log
  echo "== fuzz $name: $secs s"
  export LSAN_OPTIONS="suppressions=$(pwd)/tests/fuzz/lsan.supp:print_suppressions=0"
  "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=16384 -print_final_stats=1 \
    -artifact_prefix="$found/" "$work" "$seeds" $regs > "$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(grep -E '^#[0-9]+.*cov:' "$log" | tail -1 | sed 's/.*\(cov: [0-9]*\).*\(corp: [^ ]*\).*/\1 \2/')
  echo "   executions ${execs:-?}, $cov, exit $rc"
  total=$((total + ${execs:-0}))
  if [ $rc -ne 0 ]; then
    status=1
    grep -E 'ERROR|SUMMARY|Test unit written' "$log" | head -5
  fi
done
echo "fuzz: $total executions in all"
exit $status
