# lib/long_runs.sh: sourced by the e2e scripts that stop runs of the event-driven
# integrator and of hybrid models while they run (interrupted_runs.sh, hangup.sh); the
# caller sets PY (Debian's python3 with h5py).
#
# long_runs DIR: writes DIR/ev.json and DIR/hy.json, runs long enough to be interrupted
# (1e6 s of simulated time): the event-driven bouncing ball and the hybrid bouncing mass
# with restitution 1, so that they bounce (an event or transition every 0.9 s) as long as
# they run; rows every 0.05 s.
long_runs() {
  $PY - "$1" <<'PYEOF'
import json, sys
d = sys.argv[1]
s = json.load(open("data/bouncing_ball_events.json"))
s["time_step"], s["duration"] = 0.05, 1e6
s["bodies"][1]["restitution"] = 1.0
json.dump(s, open(d + "/ev.json", "w"))
s = json.load(open("data/bouncing_mass.json"))
h = s["hybrid"]
h["parameters"]["restitution"], h["final_time"], h["record_period"] = 1.0, 1e6, 0.05
h["max_chart_count"] = 1000000000
json.dump(s, open(d + "/hy.json", "w"))
PYEOF
}
