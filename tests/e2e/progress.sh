#!/bin/sh
# The progress bar of `lcpsim SCENE.json` on a terminal (run under script(1), which gives
# it one): none for a run shorter than half a second; a run longer than that shows it
# whatever its step count (it needed 200 steps), redrawn at least every 50 steps or half a
# second (a slow scene's 50 steps took minutes between redraws), ending at N/N. Off the
# terminal (a pipe, --quiet, --print) never.
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "progress: $*" >&2; exit 1; }
command -v script > /dev/null || { echo "progress: no script(1), skipped"; exit 0; }
bin=$(pwd)/lcpsim

# bars FILE: the bar lines drawn (carriage returns split them).
bars() { tr '\r' '\n' < "$1" | grep -E '^\[#* *\] [0-9]+/[0-9]+ steps, [0-9.]+ s$' || true; }

script -qc "$bin data/two_blocks.json -o $tmp/short.h5" /dev/null > "$tmp/short.txt"
[ -z "$(bars "$tmp/short.txt")" ] || fail "a 3-step run drew a bar: $(bars "$tmp/short.txt")"

# 120 steps of the 1000-sphere pile at PGS's 50 sweeps: about a second here.
script -qc "$bin data/pile_1000.json --steps 120 -o $tmp/pile.h5" /dev/null > "$tmp/pile.txt"
elapsed=$(sed -n 's/.* \([0-9.]*\) s (solver .*/\1/p' "$tmp/pile.txt" | tail -1)
[ -n "$elapsed" ] || fail "no summary line: $(cat "$tmp/pile.txt")"
bars "$tmp/pile.txt" > "$tmp/pile.bars"
/usr/bin/python3 - "$tmp/pile.bars" "$elapsed" <<'PYEOF'
import re, sys
lines = open(sys.argv[1]).read().split("\n")[:-1]
elapsed = float(sys.argv[2])
rows = [tuple(map(float, re.search(r"\] (\d+)/(\d+) steps, ([0-9.]+) s", l).groups())) for l in lines]
if elapsed < 0.6:  # too fast a machine to show one: nothing to check but that
    assert not rows or rows[-1][:2] == (120, 120), rows
    print(f"progress: the pile ran in {elapsed} s, under the bar's half second")
    sys.exit(0)
assert rows and rows[-1][:2] == (120, 120), rows
assert all(t >= 0.5 for _, _, t in rows), rows
# Each redraw within 50 steps or half a second (plus one step's time) of the previous.
step = elapsed / 120
for (k0, _, t0), (k1, _, t1) in zip(rows, rows[1:]):
    assert k1 - k0 <= 50 or t1 - t0 <= 0.5 + step + 0.1, (k0, t0, k1, t1)
print(f"progress: {len(rows)} redraws over {elapsed} s, ending 120/120")
PYEOF

# Off a terminal: nothing on stderr but the summary.
"$bin" data/pile_1000.json --steps 120 -o "$tmp/pipe.h5" 2> "$tmp/pipe.err" > /dev/null
[ ! -s "$tmp/pipe.err" ] || fail "a bar off the terminal: $(cat "$tmp/pipe.err")"
script -qc "$bin data/pile_1000.json --steps 120 --quiet -o $tmp/q.h5" /dev/null > "$tmp/q.txt"
[ -z "$(bars "$tmp/q.txt")" ] || fail "--quiet drew a bar"
echo "progress: ok"
