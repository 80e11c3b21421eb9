#!/bin/sh
# bench/replay_block (the contact-mode prototype) on dumped steps of pile_100 driven by
# lemke_sparse, steps 61-65 (settled: 72-84 sticking, 23-40 vertex-sliding and 27-36
# edge-sliding contacts at the solution; pile_10's settled steps have no sliding one): the
# reduction to (normal, t1, t2) rows a contact is exact (q's
# direction rows the uniform mix of two of them to 1e-15 of max |q|); with the modes and
# normals of lemke_sparse's own solution (--oracle-normals --iters 1) the lifted z solves
# the original problem to 1e-10 on every step (measured 3.5e-13 to 5.1e-12: the reduction,
# the Schur elimination and the lift, sliding lambdas included, are right); in
# the default run every step ends solved, by the method (relative <= 1e-10 on the original
# problem) or by the fallback; a file of another kind is refused (exit 2, the path named).
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "replay_block: $*" >&2; exit 1; }
make -s build/bench/bench_exact build/bench/replay_block > /dev/null

build/bench/bench_exact data/pile_100.json --steps 66 --from 61 --driver lemke_sparse \
  --only carried --dump "$tmp" > /dev/null 2>&1
files=$(ls "$tmp"/step_*.flcp)
nfiles=$(echo "$files" | wc -l)
[ "$nfiles" -eq 5 ] || fail "$nfiles dumped steps, not 5"

# shellcheck disable=SC2086
build/bench/replay_block $files --oracle-normals --no-fallback --iters 1 > "$tmp/oracle.txt"
[ "$(grep -c ' n [0-9]* contacts ' "$tmp/oracle.txt")" = "$nfiles" ] || fail "a step without its line"
# q's deviation from the uniform mix: rounding alone (a few ulps of max |q|)
awk '{ for (i = 1; i < NF; ++i) if ($i == "qdev") { d = $(i + 1); sub(":", "", d);
       if (d + 0 > 1e-15) bad = 1 } } END { exit bad }' "$tmp/oracle.txt" ||
  fail "a direction row of q is not the uniform mix: $(cat "$tmp/oracle.txt")"
# the lifted residual of the exact modes and normals
good=$(awk '{ for (i = 1; i < NF; ++i) if ($i == "relative" && $(i + 1) + 0 <= 1e-10) ++g }
            END { print g + 0 }' "$tmp/oracle.txt")
[ "$good" -eq "$nfiles" ] ||
  fail "the exact modes lift to a solution on $good of $nfiles steps: $(cat "$tmp/oracle.txt")"

# shellcheck disable=SC2086
build/bench/replay_block $files > "$tmp/run.txt"
while read -r line; do
  case "$line" in
    *": solved "*) rel=$(echo "$line" | sed -n 's/.* relative \([^ ]*\) reduce .*/\1/p')
                   awk -v r="$rel" 'BEGIN { exit !(r + 0 <= 1e-10) }' ||
                     fail "solved above 1e-10: $line" ;;
    *"fallback solved "*) ;;
    *) fail "a step unsolved: $line" ;;
  esac
done < "$tmp/run.txt"
[ "$(wc -l < "$tmp/run.txt")" -eq "$nfiles" ] || fail "lines and steps differ in number"

# a file of another kind is refused
printf 'not a dump' > "$tmp/bad.flcp"
if build/bench/replay_block "$tmp/bad.flcp" > /dev/null 2> "$tmp/err.txt"; then
  fail "a bad file accepted"
fi
grep -q "bad.flcp" "$tmp/err.txt" || fail "the refusal does not name the file"
echo "replay_block: ok ($nfiles steps, exact modes lifted to a solution on $good)"
