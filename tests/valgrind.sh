#!/bin/sh
# make valgrind: Memcheck over every example scene in data/ (short runs: --steps N, default
# 5; hybrid and event-driven scenes --duration D, default 0.05 s), then over `lcpsim solve`
# on .dat files and a dumped LCP. An invalid read or write, a use of an uninitialised value,
# or a definite leak is an error; any error fails. tests/valgrind.supp holds the
# suppressions of library-internal noise (each commented).
#   usage: tests/valgrind.sh [LCPSIM]   (default ./lcpsim)
bin=${1:-./lcpsim}
steps=${VALGRIND_STEPS:-5}
duration=${VALGRIND_DURATION:-0.05}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
vg="valgrind --tool=memcheck --leak-check=full --errors-for-leak-kinds=definite
    --error-exitcode=99 --suppressions=tests/valgrind.supp --num-callers=30"
runs=0
bad=0
check() { # LABEL ARGS...: one run under Memcheck; exit 99 = Memcheck errors
  label=$1; shift
  runs=$((runs + 1))
  # shellcheck disable=SC2086
  $vg --log-file="$tmp/vg.log" "$bin" "$@" > "$tmp/out" 2>&1
  rc=$?
  errs=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$tmp/vg.log" | tail -1)
  if [ "$rc" -eq 99 ] || [ "${errs:-1}" -ne 0 ]; then
    bad=$((bad + 1))
    echo "FAIL $label: ${errs:-?} Memcheck errors (exit $rc)"
    grep -v '^==[0-9]*== *$' "$tmp/vg.log" | sed -n '/Invalid\|uninitialised\|definitely lost\|Mismatched\|Syscall/,+25p' | head -60
  else
    echo "ok   $label: 0 errors (exit $rc)"
  fi
}
for scene in data/*.json; do
  case "$scene" in *schema.json) continue ;; esac
  if grep -q '"hybrid"\|"event_driven"' "$scene"; then
    check "$scene" "$scene" --duration "$duration" -o "$tmp/run.h5" --quiet
  else
    check "$scene" "$scene" --steps "$steps" -o "$tmp/run.h5" --quiet
  fi
done
# The readers and solvers of lcpsim solve: a .dat LCP, a frictional contact .dat, a dump.
shared=${LSIM_SHARED:-../shared}
check "solve lcp_CPS_1.dat" solve "$shared/data/siconos-lcp/lcp_CPS_1.dat"
check "solve FC3D_Example1.dat" solve "$shared/data/siconos-fc3d/FC3D_Example1.dat"
"$bin" data/box_slide_3d.json --steps 3 --dump-lcp -o "$tmp/dump.h5" --quiet
check "solve dump.h5 --step 2 --solver pgs" solve "$tmp/dump.h5" --step 2 --solver pgs
echo "valgrind: $runs runs, $bad with errors"
[ "$bad" -eq 0 ]
