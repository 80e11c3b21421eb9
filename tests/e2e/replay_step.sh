#!/bin/sh
# bench_exact --dump DIR and bench/replay_lemke: a dumped step solved alone takes the same
# path as in the run. pile_10 driven by lemke_sparse, steps 30-59 dumped; each step's
# replay prints the status, relative residual, pivots, factorizations, transposed and
# column solves, z hash and runs that bench_exact --verbose printed for the series
# "lemke_sparse, whole, carried basis" on that step (times aside); --sides adds where the
# carried basis and the final one differ, without changing the solve. A cut file and a file
# of another kind are refused (exit 2, the path named).
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "replay_step: $*" >&2; exit 1; }
make -s build/bench/bench_exact build/bench/replay_lemke > /dev/null

build/bench/bench_exact data/pile_10.json --steps 60 --from 30 --driver lemke_sparse \
  --only carried --verbose --dump "$tmp" > /dev/null 2> "$tmp/run.txt"
# The run's lines for the series, times removed: "K status relative pivots counts z runs".
sed -n 's/^step \([0-9]*\) n [0-9]* lemke_sparse, whole, carried basis: \([a-z_]*\) relative \([^ ]*\) iterations \([0-9]*\) warm [01] [0-9.]* ms z \([0-9a-f]*\) \(.*\)$/\1 \2 \3 \4 \5 \6/p' \
  "$tmp/run.txt" > "$tmp/want.txt"
sed -n 's/^step \([0-9]*\) lemke_sparse, whole, carried basis runs: \(.*\)$/\1 \2/p' \
  "$tmp/run.txt" > "$tmp/want_runs.txt"
steps=$(wc -l < "$tmp/want.txt")
[ "$steps" -ge 20 ] || fail "only $steps solves in the run"
[ "$(ls "$tmp"/step_*.flcp | wc -l)" -eq "$steps" ] || fail "dumps and solves differ in number"

: > "$tmp/got.txt"
: > "$tmp/got_runs.txt"
for f in "$tmp"/step_*.flcp; do
  k=$(basename "$f" .flcp)
  k=${k#step_}
  line=$(build/bench/replay_lemke "$f") || true
  echo "$line" | sed -n "s/^n [0-9]*: \([a-z_]*\) relative \([^ ]*\) iterations \([0-9]*\) [0-9.]* ms z \([0-9a-f]*\) \(factorizations .*\) runs: \(.*\)$/$k \1 \2 \3 \4 \5/p" >> "$tmp/got.txt"
  echo "$line" | sed -n "s/^.* runs: \(.*\)$/$k \1/p" >> "$tmp/got_runs.txt"
done
sort -n "$tmp/want.txt" > "$tmp/a"; sort -n "$tmp/got.txt" > "$tmp/b"
diff "$tmp/a" "$tmp/b" || fail "a replayed step differs from the run (above)"
sort -n "$tmp/want_runs.txt" > "$tmp/a"; sort -n "$tmp/got_runs.txt" > "$tmp/b"
diff "$tmp/a" "$tmp/b" || fail "a replayed step's runs differ from the run's (above)"

# --sides: the same solve, and where the carried and the final basis differ. The rows of
# each kind add up to n; each way's count is the sum of its classes; a step solved with no
# pivot from the carried basis differs nowhere; some step differs somewhere; the cones that
# swapped one direction for another account for two changed direction rows each.
zero=0
some=0
for f in "$tmp"/step_*.flcp; do
  plain=$(build/bench/replay_lemke "$f" | sed 's/ [0-9.]* ms / /')
  build/bench/replay_lemke "$f" --sides > "$tmp/sides.txt" || true
  [ "$(head -1 "$tmp/sides.txt" | sed 's/ [0-9.]* ms / /')" = "$plain" ] ||
    fail "$f: --sides changed the solve"
  n=$(sed -n 's/^n \([0-9]*\):.*/\1/p' "$tmp/sides.txt")
  piv=$(sed -n 's/^n [0-9]*: .* iterations \([0-9]*\) .*/\1/p' "$tmp/sides.txt")
  # "sides KIND rows R | z->w A (z>t a1, w>t a2, degenerate a3; guess z>0 g) | w->z B (...)"
  sums=$(sed -n 's/^sides [a-z]* *rows *\([0-9]*\) | z->w *\([0-9]*\) (z>t \([0-9]*\), w>t \([0-9]*\), degenerate \([0-9]*\);.*| w->z *\([0-9]*\) (z>t \([0-9]*\), w>t \([0-9]*\), degenerate \([0-9]*\);.*$/\1 \2 \3 \4 \5 \6 \7 \8 \9/p' "$tmp/sides.txt" |
    awk '{ rows += $1; ch += $2 + $6; if ($2 != $3 + $4 + $5 || $6 != $7 + $8 + $9) bad = 1 }
         END { print rows + 0, ch + 0, bad + 0 }')
  set -- $sums
  [ "$1" = "$n" ] || fail "$f: --sides counts $1 rows of $n"
  [ "$3" = 0 ] || fail "$f: --sides classes do not add up: $(cat "$tmp/sides.txt")"
  dir=$(sed -n 's/^sides direction *rows *[0-9]* | z->w *\([0-9]*\) .*| w->z *\([0-9]*\) .*/\1 \2/p' "$tmp/sides.txt" |
    awk '{ print $1 + $2 }')
  ones=$(sed -n 's/^sides by cone: one direction out and one in \([0-9]*\) .*/\1/p' "$tmp/sides.txt")
  [ "$dir" -ge $((2 * ones)) ] || fail "$f: $ones cones swapped a direction, $dir direction rows changed"
  if [ "$piv" = 0 ]; then
    [ "$2" = 0 ] || fail "$f: solved with no pivot, yet $2 rows differ"
    zero=$((zero + 1))
  fi
  [ "$2" -gt 0 ] && some=$((some + 1))
done
[ "$zero" -gt 0 ] && [ "$some" -gt 0 ] ||
  fail "--sides: $zero steps with no pivot, $some with a difference (both expected)"

# Refused: a file cut short, and a file that is no dump.
f=$(ls "$tmp"/step_*.flcp | head -1)
head -c 100 "$f" > "$tmp/cut.flcp"
set +e
build/bench/replay_lemke "$tmp/cut.flcp" 2> "$tmp/err.txt"
rc=$?
build/bench/replay_lemke data/pile_10.json 2> "$tmp/err2.txt"
rc2=$?
set -e
[ "$rc" -eq 2 ] && grep -q "cut.flcp: not a readable dumped step" "$tmp/err.txt" ||
  fail "a cut dump: exit $rc, $(cat "$tmp/err.txt")"
[ "$rc2" -eq 2 ] && grep -q "pile_10.json: not a readable dumped step" "$tmp/err2.txt" ||
  fail "a scene file: exit $rc2, $(cat "$tmp/err2.txt")"
echo "replay_step: $steps dumped steps of pile_10 replayed with the run's path and z; --sides: $zero steps with no pivot and no difference, $some with differences"
