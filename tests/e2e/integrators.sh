#!/bin/sh
# Time stepping against event-driven integration (scripts/integrators_compare.py --quick:
# three time steps per scene): the event-driven errors are below 1e-9 (apex in m, stop and
# snap times in s); the time step's apex error falls with h at first order (a fitted slope
# of 0.8 .. 1.3) and stays within one step's
# travel h sqrt(2 g H); its stop and snap times are within a step (h) of the closed form.
set -eu
cd "$(dirname "$0")/../.."
PY=/usr/bin/python3
tmp=$(mktemp -d /tmp/lsim_e2e_integrators_XXXXXX)
trap 'rm -rf "$tmp"' EXIT
$PY scripts/integrators_compare.py --quick -o "$tmp" > /dev/null
$PY - "$tmp/integrators.csv" <<'PYEOF'
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)
for scene in ("ball", "box", "rope"):
    ts = [(float(r["h"]), abs(float(r["error"]))) for r in rows if r["scene"] == scene and r["integrator"] == "time_stepping"]
    ed = [abs(float(r["error"])) for r in rows if r["scene"] == scene and r["integrator"] == "event_driven"]
    if not ed or ed[0] > 1e-9:
        fail(f"{scene}: event-driven error {ed}")
    for h, e in ts:
        bound = h * math.sqrt(2 * 9.81) if scene == "ball" else h
        if e > bound:
            fail(f"{scene}: time-stepping error {e:.3e} at h = {h} above {bound:.3e}")
    if scene == "ball" and not all(a[1] > b[1] for a, b in zip(ts, ts[1:])):
        fail(f"ball: apex error does not fall with h: {ts}")
    # First order: the slope of log |error| against log h (measured 1.08 on these three
    # steps; 0.8 .. 1.3 leaves room for where the bounce falls within a step).
    if scene == "ball":
        lh = [math.log(h) for h, _ in ts]
        le = [math.log(e) for _, e in ts]
        mh, me = sum(lh) / len(lh), sum(le) / len(le)
        slope = sum((x - mh) * (y - me) for x, y in zip(lh, le)) / sum((x - mh) ** 2 for x in lh)
        if not 0.8 < slope < 1.3:
            fail(f"ball: apex error slope {slope:.2f} against h, not first order")
print("integrators: event-driven below 1e-9, time stepping within a step")
PYEOF
test -s "$tmp/integrators.png"
# --steps out of range: a last line naming it (argparse's usage above), exit 2, no table (--steps 0 ended in a
# ZeroDivisionError, abc in a ValueError traceback, one step in numpy's poorly conditioned
# fit, 0.5,0.7 in an IndexError: no bounce seen).
for case in "0|--steps: every time step must be a finite number > 0, got 0" \
            "abc|--steps: need a comma-separated list of time steps in s, got 'abc'" \
            "0.01|--steps: need two different time steps at least" \
            "0.5,0.7|bouncing_ball.json at h = 0.5 s: no bounce within the run's 1.2 s"; do
  steps=${case%%|*}; want=${case#*|}
  rc=0
  $PY scripts/integrators_compare.py --steps "$steps" -o "$tmp/bad" > /dev/null 2> "$tmp/err" || rc=$?
  [ $rc -eq 2 ] && tail -n 1 "$tmp/err" | grep -qF -- "$want" && ! grep -q Traceback "$tmp/err" \
    && [ ! -e "$tmp/bad/integrators.csv" ] \
    || { echo "FAIL: integrators_compare.py --steps $steps: exit $rc: $(tail -n 1 "$tmp/err")"; exit 1; }
done
echo "integrators: bad --steps refused"
