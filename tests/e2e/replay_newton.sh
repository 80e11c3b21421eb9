#!/bin/sh
# bench_exact --dump DIR and bench/replay_newton: a dumped step solved alone by newton takes
# the run's path. pile_100 driven by PGS, steps 60-67 dumped (settling: some solved by phase
# 1, some by way of the interior point, one failing); each replay prints the status,
# relative residual, iterations, z hash and stage residuals that bench_exact --verbose
# printed for the series "newton, whole" on that step (times aside). --trace (newton
# called directly, no solver front) gives the same z; --ipm-iter K bounds its interior
# point steps; --sizes' island sizes add up to n (--reps 0: those alone). A cut file is refused (exit 2, named).
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "replay_newton: $*" >&2; exit 1; }
make -s build/bench/bench_exact build/bench/replay_newton > /dev/null

build/bench/bench_exact data/pile_100.json --steps 68 --from 60 --no-lemke --no-pgs \
  --only "newton, whole" --verbose --dump "$tmp" > /dev/null 2> "$tmp/run.txt"
# The run's lines, times removed: "K status relative iterations z" and "K stages".
sed -n 's/^step \([0-9]*\) n [0-9]* newton, whole: \([a-z_]*\) relative \([^ ]*\) iterations \([0-9]*\) warm 1 [0-9.]* ms z \([0-9a-f]*\)$/\1 \2 \3 \4 \5/p' \
  "$tmp/run.txt" > "$tmp/want.txt"
sed -n 's/^step \([0-9]*\) newton, whole stages: \(start [^ ]* phase1 [^ ]* ipm [^ ]* phase2 [^ ]*\) .*$/\1 \2/p' \
  "$tmp/run.txt" > "$tmp/want_stages.txt"
steps=$(wc -l < "$tmp/want.txt")
[ "$steps" -eq 8 ] || fail "$steps newton solves in the run, 8 expected"
[ "$(wc -l < "$tmp/want_stages.txt")" -eq 8 ] || fail "stage lines missing from the run"
[ "$(ls "$tmp"/step_*.flcp | wc -l)" -eq "$steps" ] || fail "dumps and solves differ in number"

: > "$tmp/got.txt"
: > "$tmp/got_stages.txt"
ipm=0
for f in "$tmp"/step_*.flcp; do
  k=$(basename "$f" .flcp)
  k=${k#step_}
  build/bench/replay_newton "$f" --sizes > "$tmp/out.txt" || true
  sed -n "s/^n [0-9]* m [0-9]*: \([a-z_]*\) relative \([^ ]*\) iterations \([0-9]*\) [0-9.]* ms z \([0-9a-f]*\)$/$k \1 \2 \3 \4/p" \
    "$tmp/out.txt" >> "$tmp/got.txt"
  sed -n "s/^stages: \(start [^ ]* phase1 [^ ]* ipm [^ ]* phase2 [^ ]*\) .*$/$k \1/p" \
    "$tmp/out.txt" >> "$tmp/got_stages.txt"
  # The islands: their sizes (all listed below 13) add up to n.
  n=$(sed -n 's/^islands [0-9]* of n = \([0-9]*\):.*/\1/p' "$tmp/out.txt")
  sum=$(sed -n 's/^islands \([0-9]*\) of n = [0-9]*: \(.*\)$/\1 \2/p' "$tmp/out.txt" |
    awk '{ s = 0; for (i = 2; i <= NF; ++i) s += $i; print ($1 <= 12 ? s : -1) }')
  [ "$sum" = "$n" ] || fail "$f: island sizes add up to $sum of n = $n"
  # --reps 0: the islands alone, no solve.
  build/bench/replay_newton "$f" --sizes --reps 0 > "$tmp/only.txt" ||
    fail "$f: --reps 0 exits non-zero"
  [ "$(cat "$tmp/only.txt")" = "$(grep '^islands' "$tmp/out.txt")" ] ||
    fail "$f: --reps 0 printed $(cat "$tmp/only.txt")"
  # newton called directly: the same z as through the front.
  zf=$(sed -n 's/^n .* z \([0-9a-f]*\)$/\1/p' "$tmp/out.txt")
  build/bench/replay_newton "$f" --trace > "$tmp/tr.txt" || true
  zt=$(sed -n 's/^n .* z \([0-9a-f]*\)$/\1/p' "$tmp/tr.txt")
  [ -n "$zf" ] && [ "$zf" = "$zt" ] || fail "$f: z $zt directly, $zf through the front"
  grep -q '^trace: [0-9]' "$tmp/tr.txt" || fail "$f: no trace"
  # --ipm-iter 2 bounds the interior point's steps.
  steps_ipm=$(sed -n 's/^stages: .* ipm_steps \([0-9]*\) .*/\1/p' "$tmp/tr.txt")
  if [ "$steps_ipm" -gt 2 ]; then
    ipm=$((ipm + 1))
    build/bench/replay_newton "$f" --trace --ipm-iter 2 > "$tmp/tr2.txt" || true
    s2=$(sed -n 's/^stages: .* ipm_steps \([0-9]*\) .*/\1/p' "$tmp/tr2.txt")
    [ "$s2" -le 2 ] || fail "$f: --ipm-iter 2 took $s2 interior point steps"
  fi
done
sort -n "$tmp/want.txt" > "$tmp/a"; sort -n "$tmp/got.txt" > "$tmp/b"
diff "$tmp/a" "$tmp/b" || fail "a replayed step differs from the run (above)"
sort -n "$tmp/want_stages.txt" > "$tmp/a"; sort -n "$tmp/got_stages.txt" > "$tmp/b"
diff "$tmp/a" "$tmp/b" || fail "a replayed step's stages differ from the run's (above)"
[ "$ipm" -gt 0 ] || fail "no step reached the interior point"

# Refused: a file cut short.
f=$(ls "$tmp"/step_*.flcp | head -1)
head -c 100 "$f" > "$tmp/cut.flcp"
set +e
build/bench/replay_newton "$tmp/cut.flcp" 2> "$tmp/err.txt"
rc=$?
set -e
[ "$rc" -eq 2 ] && grep -q "cut.flcp: not a readable dumped step" "$tmp/err.txt" ||
  fail "a cut dump: exit $rc, $(cat "$tmp/err.txt")"
echo "replay_newton: $steps dumped steps of pile_100 replayed with the run's path, z and stages; $ipm through the interior point"
