#!/bin/sh
# bench_exact --dump DIR and bench/replay_lemke: a dumped step solved alone takes the same
# path as in the run. pile_10 driven by lemke_sparse, steps 30-59 dumped; each step's
# replay prints the status, relative residual, pivots, factorizations, transposed and
# column solves, z hash and runs that bench_exact --verbose printed for the series
# "lemke_sparse, whole, carried basis" on that step (times aside). A cut file and a file
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
echo "replay_step: $steps dumped steps of pile_10 replayed with the run's path and z"
