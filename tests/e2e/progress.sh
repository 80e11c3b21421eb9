#!/bin/sh
# The progress bar of `lcpsim SCENE.json` on a terminal (run under script(1), which gives
# it one): none for a run shorter than half a second; a run longer than that shows it
# whatever its step count (it needed 200 steps), redrawn at least every 50 steps or half a
# second (a slow scene's 50 steps took minutes between redraws), ending at N/N, each
# redraw with the time left at this invocation's rate: elapsed x (N - k) / (k - k0), k0 the
# steps done when it began (0; a resumed run's steps before). Event-driven runs show one
# too, counting samples (they drew none: 10^5 samples, seconds, without a sign), and
# hybrid-model runs alike. Off the terminal (a pipe, --quiet, --print) never.
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "progress: $*" >&2; exit 1; }
command -v script > /dev/null || { echo "progress: no script(1), skipped"; exit 0; }
bin=$(pwd)/lcpsim

# bars FILE: the bar lines drawn (carriage returns split them).
bars() {
  tr '\r' '\n' < "$1" | grep -E '^\[#* *\] [0-9]+/[0-9]+ (steps|samples), [0-9.]+ s, [0-9:]+ left *$' || true
}
# check_left FILE.bars K0 WHAT: every redraw's time left is elapsed x (N - k) / (k - k0)
# to the display's rounding (elapsed to 0.05 s, the time left to 0.5 s).
check_left() {
  /usr/bin/python3 - "$1" "$2" "$3" <<'PYEOF'
import re, sys
k0 = int(sys.argv[2])
rows = [l for l in open(sys.argv[1]).read().split("\n") if l]
assert rows, f"{sys.argv[3]}: no bar drawn"
for l in rows:
    k, n, t, left = re.search(r"\] (\d+)/(\d+) \w+, ([0-9.]+) s, ([0-9:]+) left", l).groups()
    k, n, t = int(k), int(n), float(t)
    secs = 0
    for part in left.split(":"): secs = 60 * secs + int(part)
    want = t * (n - k) / (k - k0)
    tol = 0.05 * (n - k) / (k - k0) + 0.5 + 1e-9
    assert abs(secs - want) <= tol, (sys.argv[3], l, want, tol)
PYEOF
}

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
rows = [tuple(map(float, re.search(r"\] (\d+)/(\d+) steps, ([0-9.]+) s,", l).groups())) for l in lines]
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
[ ! -s "$tmp/pile.bars" ] || check_left "$tmp/pile.bars" 0 pile || fail "the pile's time left"

# A resumed run: 10^4 steps of the sliding box, then on to 4 x 10^4 (about 3 s here); the
# rate counts the resumed part only.
"$bin" data/box_slide_3d.json --steps 10000 -o "$tmp/first.h5" --quiet
script -qc "$bin data/box_slide_3d.json --resume $tmp/first.h5 --steps 40000 -o $tmp/res.h5" \
  /dev/null > "$tmp/res.txt"
bars "$tmp/res.txt" > "$tmp/res.bars"
if [ -s "$tmp/res.bars" ]; then
  check_left "$tmp/res.bars" 10000 resumed || fail "the resumed run's time left"
  tail -1 "$tmp/res.bars" | grep -q '] 40000/40000 steps, .* 0:00 left' \
    || fail "the resumed run's bar ends at $(tail -1 "$tmp/res.bars")"
  # At most ten redraws a second (plus the first and the last): 50 of these steps take
  # about 4 ms, and the bar was redrawn every 50 (some 250 times a second).
  res=$(sed -n 's/.* \([0-9.]*\) s (solver .*/\1/p' "$tmp/res.txt" | tail -1)
  [ "$(wc -l < "$tmp/res.bars")" -le $(echo "10 * $res + 3" | bc | cut -d. -f1) ] \
    || fail "the resumed run's bar was redrawn $(wc -l < "$tmp/res.bars") times in $res s"
fi

# An event-driven run: 10^5 samples of the bouncing ball (about 2.5 s here).
script -qc "$bin data/bouncing_ball_events.json --duration 100 -o $tmp/ev.h5" /dev/null \
  > "$tmp/ev.txt"
bars "$tmp/ev.txt" > "$tmp/ev.bars"
grep -q "event-driven, 100000 samples" "$tmp/ev.txt" || fail "the event-driven run: $(cat "$tmp/ev.txt")"
# (under 0.6 s, as the pile's and the hybrid run's checks: the time printed runs to the
# file's close, past the last sample, so a run of 0.5x s may have drawn none)
if grep -q "samples of 0.001 s, 30 events, samples in 0\.[0-5]" "$tmp/ev.txt"; then
  echo "progress: the event-driven run took under 0.6 s: no bar to check"
else
  check_left "$tmp/ev.bars" 0 event-driven || fail "the event-driven run's bar"
  tail -1 "$tmp/ev.bars" | grep -q '] 100000/100000 samples, .* 0:00 left' \
    || fail "the event-driven bar ends at $(tail -1 "$tmp/ev.bars")"
fi

# A hybrid-model run: 2 x 10^6 samples of the bouncing mass (about 1.5 s here), counted
# against the final time's samples, final_time / record_period + 1 (it drew none: 20000 s
# ran 31 s without a sign). Redrawn every half second, not every 50 samples (a million a
# second: the redraws doubled the run's time).
script -qc "$bin data/bouncing_mass.json --duration 2000 -o $tmp/hy.h5" /dev/null > "$tmp/hy.txt"
bars "$tmp/hy.txt" > "$tmp/hy.bars"
grep -q "hybrid model bouncing_mass, 2000 s in .* 2000001 samples" "$tmp/hy.txt" \
  || fail "the hybrid run: $(cat "$tmp/hy.txt")"
hy=$(sed -n 's/.* \([0-9.]*\) s -> .*/\1/p' "$tmp/hy.txt")
if [ "$(echo "$hy < 0.6" | bc)" = 1 ]; then
  echo "progress: the hybrid run took $hy s: no bar to check"
else
  check_left "$tmp/hy.bars" 0 hybrid || fail "the hybrid run's bar"
  tail -1 "$tmp/hy.bars" | grep -q '] 2000001/2000001 samples, .* 0:00 left' \
    || fail "the hybrid bar ends at $(tail -1 "$tmp/hy.bars")"
  [ "$(wc -l < "$tmp/hy.bars")" -le $(echo "2 * $hy + 3" | bc | cut -d. -f1) ] \
    || fail "the hybrid bar was redrawn $(wc -l < "$tmp/hy.bars") times in $hy s"
fi
"$bin" data/bouncing_mass.json --duration 2000 -o "$tmp/hyp.h5" 2> "$tmp/hyp.err" > /dev/null
[ ! -s "$tmp/hyp.err" ] || fail "a hybrid bar off the terminal: $(cat "$tmp/hyp.err")"

# Off a terminal: nothing on stderr but the summary.
"$bin" data/pile_1000.json --steps 120 -o "$tmp/pipe.h5" 2> "$tmp/pipe.err" > /dev/null
[ ! -s "$tmp/pipe.err" ] || fail "a bar off the terminal: $(cat "$tmp/pipe.err")"
script -qc "$bin data/pile_1000.json --steps 120 --quiet -o $tmp/q.h5" /dev/null > "$tmp/q.txt"
[ -z "$(bars "$tmp/q.txt")" ] || fail "--quiet drew a bar"
# A line printed during the run (--solver-output: siconos:newton_fb's singular Jacobians on
# pile_100, every step from step 8) starts a line of its own, not on the bar's (before: after
# the bar's "left" and its padding); the bar is drawn again below it. The bar first shows
# after 0.5 s: pile_10's lines (steps 9-27) came within its first 0.5 s on a quick machine,
# so no bar preceded them and the check failed; pile_100's steps 28-34 take about 2 of this
# run's 3 s, each with its line.
script -qc "$bin data/pile_100.json --solver siconos:newton_fb --steps 34 --solver-output -o $tmp/so.h5" \
  /dev/null > "$tmp/so.txt" || true
/usr/bin/python3 - "$tmp/so.txt" <<'PYEOF' || fail "a line printed during the run shares the bar's line"
import re, sys
t = open(sys.argv[1], "rb").read().decode("utf8", "replace")
at = [m.start() for m in re.finditer("lcpsim: step [0-9]+: siconos:newton_fb printed", t)]
bar = t.find(" left")
assert at and 0 <= bar < at[-1], (len(at), bar)  # a bar drawn before a line: the check sees one
bad = [i for i in at if i > 0 and t[i - 1] != "\n"]
assert not bad, repr(t[bad[0] - 80:bad[0] + 40])
PYEOF
# The summary line's figures are the file's, with their units: the max residual as
# /summary/max_residual [N*s] (it had no unit), the time named as the steps' ("steps in",
# within the file's wall_time_total, which adds the setup and the output: a bare "1.284 s"
# beside the file's 1.365 s read as a disagreement).
$bin data/box_stack_3d.json --steps 100 -o "$tmp/sum.h5" > "$tmp/sum.txt"
$bin data/bouncing_ball_events.json --steps 500 -o "$tmp/sum_ev.h5" > "$tmp/sum_ev.txt"
/usr/bin/python3 - "$tmp" <<'PYEOF' || fail "the summary line and the file disagree"
import re, sys
import h5py
d = sys.argv[1]
line = open(f"{d}/sum.txt").read()
m = re.search(r"max residual ([0-9.e+-]+) N\*s, .*, steps in ([0-9.]+) s \(solver ([0-9.]+) s\)", line)
assert m, line
with h5py.File(f"{d}/sum.h5", "r") as f:
    s = f["summary"]
    unit = s["max_residual"].attrs["unit"]
    assert (unit.decode() if isinstance(unit, bytes) else unit) == "N*s", unit
    assert float(m.group(1)) == float(f"{s['max_residual'][()]:.3e}"), (m.group(1), s["max_residual"][()])
    # printed to 1 ms: the steps' time within the file's total, the solver's the file's
    assert float(m.group(2)) <= s["wall_time_total"][()] + 5e-4, (m.group(2), s["wall_time_total"][()])
    assert abs(float(m.group(3)) - s["solver_wall_time"][()]) <= 5e-4, (m.group(3), s["solver_wall_time"][()])
line = open(f"{d}/sum_ev.txt").read()
m = re.search(r"event-driven, 500 samples of 0.001 s, [0-9]+ events?, samples in ([0-9.]+) s -> ", line)
assert m, line
with h5py.File(f"{d}/sum_ev.h5", "r") as f:
    assert float(m.group(1)) <= f["summary/wall_time_total"][()] + 5e-4
PYEOF
echo "progress: ok"
