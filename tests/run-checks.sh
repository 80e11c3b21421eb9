#!/bin/sh
# Runs the named suites and prints one closing line "check: N passed, N failed".
#   unit  the cmocka programs build/tests/test_*
#   san   the same programs built with AddressSanitizer + UBSan (build/san/tests/test_*)
#   e2e   tests/e2e/*.sh, each a script that exits 0 on success
#   fuzz  each fuzz target build/fuzz/fuzz_NAME (make fuzz-build) replays its seed corpus
#         tests/fuzz/corpus/NAME and the regression inputs tests/fuzz/regressions/NAME,
#         then fuzzes FUZZ_CHECK_SECONDS (default 3) into a scratch folder
#   valgrind  tests/valgrind.sh: Memcheck over ./lcpsim on every data/ scene and three
#         solves (make valgrind), zero errors
# Every program's own output is shown; counts come from cmocka's summary lines.
passed=0
failed=0
failures=""

run_cmocka() { # $1 = suite label, $2 = binary
  # cmocka writes its progress to stdout and its summary to stderr: keep both, in order.
  errf=$(mktemp)
  out=$("$2" 2>"$errf")
  rc=$?
  out=$(printf '%s\n%s' "$out" "$(cat "$errf")")
  rm -f "$errf"
  printf '%s\n' "$out"
  p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
  f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1)
  p=${p:-0}; f=${f:-0}
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi  # crashed or sanitizer abort
  passed=$((passed + p)); failed=$((failed + f))
  [ "$f" -ne 0 ] && failures="$failures $1:$(basename "$2")"
  return 0
}

for suite in "$@"; do
  case "$suite" in
    unit) for src in tests/test_*.c; do t=build/tests/$(basename "$src" .c)
            echo "== unit: $t"; run_cmocka unit "$t"; done ;;
    san)  for src in tests/test_*.c; do t=build/san/tests/$(basename "$src" .c)
            echo "== sanitizers: $t"; run_cmocka san "$t"; done ;;
    e2e)  for t in tests/e2e/*.sh; do [ -f "$t" ] || continue
            echo "== e2e: $t"
            if sh "$t"; then passed=$((passed + 1)); echo "ok: $t"
            else failed=$((failed + 1)); failures="$failures e2e:$(basename "$t")"; echo "FAILED: $t"; fi
          done ;;
    fuzz) for src in tests/fuzz/fuzz_*.c; do name=$(basename "$src" .c); name=${name#fuzz_}
            t=build/fuzz/fuzz_$name
            echo "== fuzz: $t"
            scratch=$(mktemp -d)
            regs=tests/fuzz/regressions/$name
            [ -d "$regs" ] || regs=
            # shellcheck disable=SC2086
            if LSAN_OPTIONS="suppressions=$(pwd)/tests/fuzz/lsan.supp:print_suppressions=0" \
               "$t" -max_total_time="${FUZZ_CHECK_SECONDS:-3}" -seed=1 -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=16384 \
                 -artifact_prefix="$scratch/" "$scratch" "tests/fuzz/corpus/$name" $regs \
                 > "$scratch.log" 2>&1; then
              passed=$((passed + 1))
              echo "ok: $t ($(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$scratch.log") runs)"
            else
              failed=$((failed + 1)); failures="$failures fuzz:$name"
              tail -40 "$scratch.log"; echo "FAILED: $t"
            fi
            rm -rf "$scratch" "$scratch.log"
          done ;;
    valgrind) echo "== valgrind: tests/valgrind.sh ./lcpsim"
          if sh tests/valgrind.sh ./lcpsim; then passed=$((passed + 1)); echo "ok: valgrind"
          else failed=$((failed + 1)); failures="$failures valgrind"; echo "FAILED: valgrind"; fi ;;
    *) echo "run-checks: unknown suite $suite" >&2; exit 2 ;;
  esac
done

[ -n "$failures" ] && echo "failed:$failures"
echo "check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
