#!/bin/sh
# Record stride (lcpsim SCENE --record-every K, the scene's output.record_every;
# docs/output-format.md, "Record stride"): the steps are the same whatever K, the file keeps
# those of steps 0, K, 2K, ... and the last. Checked: every row of a strided file equals the
# K = 1 file's row of the same step, bit for bit (state, energy, solver statistics, contact
# rows with their offsets, tethers and joints), on a sleeping PGS pile, a pendulum on pins
# and a rope, and a run whose solves fail (failures between rows counted in
# /solver/failed_steps and the summary); the file's size near 1/K of the rows' bytes;
# --resume from a strided file (a shorter completed run, a SIGINT file, a kill -9 partial
# file) gives the straight strided run's file; bad values and combinations refused; the
# analysis scripts (Python loader, plot and animation; Octave loader and plot) and lcpsim
# view read a strided file on its own time axis; the library's records take a stride.
set -eu
cd "$(dirname "$0")/../.."
PY=/usr/bin/python3
L=./lcpsim
out=$(mktemp -d /tmp/lsim_e2e_stride_XXXXXX)
trap 'rm -rf "$out"' EXIT
fail() { echo "record_stride: $*" >&2; exit 1; }

# The scenes of tests/e2e/resume_scenes.py: the pile of 10 boxes on PGS with sleeping and a box
# thrown onto it (wakes it at step 169), the double pendulum with box links, its tip on a
# rope, over a floor; and pile_10 on PGS with 3 sweeps at tol 1e-10: most steps fail.
$PY tests/e2e/resume_scenes.py "$out"
$PY - "$out" <<'EOF'
import json, sys
d = sys.argv[1]
s = json.load(open("data/pile_10.json"))
s["solver"] = {"name": "pgs", "tol": 1e-10, "max_iter": 3, "on_failure": "continue"}
s["steps"] = 200
json.dump(s, open(d + "/failing.json", "w"), indent=1)
EOF

# kept ONE STRIDED K: every dataset of STRIDED is ONE's rows of the steps STRIDED keeps
# (0, K, 2K, ..., the last), bit for bit; the summaries equal but for the contact rows
# and wall times; /solver/failed_steps the failed steps of ONE between rows.
kept() {
  $PY - "$@" <<'EOF' || fail "$2 is not $1 at the steps it keeps"
import sys, h5py
import numpy as np
a, b, K = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r"), int(sys.argv[3])
N = len(a["time"]) - 1
st = b["step"][:]
want = [s for s in range(N + 1) if s % K == 0]
want += [N] if N % K else []
assert st.tolist() == want, (st[:5], st[-3:], N, K)
assert b["parameters/record_every"][()] == K and a["parameters/record_every"][()] == 1
oa, ob = a["contacts/offset"][:], b["contacts/offset"][:]
rows = np.concatenate([np.arange(oa[s], oa[s + 1]) for s in st[1:]]).astype(int)
assert ob.tolist() == [0] + np.cumsum([0] + [oa[s + 1] - oa[s] for s in st[1:]]).tolist()
n = 0
def visit(name, o):
    global n
    if not isinstance(o, h5py.Dataset) or name.startswith(("resume/", "summary/", "lcp/")):
        return
    if name in ("contacts/offset", "step", "solver/failed_steps", "parameters/record_every", "scene_text",
                "flushed_rows"):
        return
    x = a[name][()]
    if name.startswith("contacts/"):
        x = x[rows]
    elif x.ndim and x.shape[0] == N + 1 and not name.startswith(("parameters/", "bodies/", "shapes/")):
        x = x[st]
    elif x.ndim and x.shape[0] == N and not name.startswith(("parameters/", "bodies/", "shapes/")):
        x = x[st[1:] - 1]
    y = o[()]
    assert x.shape == y.shape and x.dtype == y.dtype, name
    if "wall" not in name:
        assert np.asarray(x).tobytes() == np.asarray(y).tobytes(), name
    n += 1
b.visititems(visit)
assert n > 60, n
# /flushed_rows counts rows, not steps: each complete file's own /time rows
assert a["flushed_rows"][()] == N + 1 and b["flushed_rows"][()] == len(st), (b["flushed_rows"][()], len(st))
def names(f):
    out = []
    f.visititems(lambda m, o: out.append(m) if isinstance(o, h5py.Dataset) and not m.startswith("resume/") else None)
    return set(out)
assert names(b) - names(a) == {"step", "solver/failed_steps"}, names(b) ^ names(a)
assert names(a) - names(b) == set(), names(a) - names(b)
for name in a["summary"]:
    if "wall" in name or name == "total_contacts":
        continue
    assert a["summary"][name][()] == b["summary"][name][()], name
assert b["summary/total_contacts"][()] == len(rows)
# failed steps between rows: ONE's status < 0 over (st[j-1], st[j]]
s = a["solver/status"][:]
bad = np.concatenate([[0], np.cumsum(s < 0)])
assert (b["solver/failed_steps"][:] == bad[st[1:]] - bad[st[:-1]]).all()
assert b["solver/failed_steps"][:].sum() == b["summary/failures"][()] == (s < 0).sum()
EOF
}

for K in 7 13; do
  $L "$out/pile.json" -o "$out/p1.h5" --quiet
  $L "$out/pile.json" -o "$out/pk.h5" --quiet --record-every $K
  kept "$out/p1.h5" "$out/pk.h5" $K
done
$L "$out/jt.json" -o "$out/j1.h5" --quiet
$L "$out/jt.json" -o "$out/jk.h5" --quiet --record-every 9
kept "$out/j1.h5" "$out/jk.h5" 9
$PY -c "
import h5py, sys
f = h5py.File(sys.argv[1], 'r')
assert 'tethers/impulse' in f and 'joints/error' in f and len(f['joints/error']) == len(f['step'])
" "$out/jk.h5"
# Failures between rows: 200 steps of which most fail (3 sweeps); stride 10.
rc=0
$L "$out/failing.json" -o "$out/f1.h5" --quiet 2> /dev/null || rc=$?
[ $rc -eq 1 ] || fail "failing run: exit $rc, not 1"
rc=0
$L "$out/failing.json" -o "$out/fk.h5" --quiet --record-every 10 2> /dev/null || rc=$?
[ $rc -eq 1 ] || fail "failing strided run: exit $rc, not 1"
kept "$out/f1.h5" "$out/fk.h5" 10
$PY -c "
import h5py, sys
f = h5py.File(sys.argv[1], 'r')
assert f['summary/failures'][()] > 100, f['summary/failures'][()]
assert f['solver/failed_steps'][:].max() > 1  # failed steps the rows alone do not show
" "$out/fk.h5"
# The scene's output.record_every, and --record-every over it.
$PY -c "
import json, sys
s = json.load(open(sys.argv[1] + '/pile.json'))
s['output'] = {'record_every': 13}
json.dump(s, open(sys.argv[1] + '/pile13.json', 'w'))
s['output'] = {'record_every': 0}
json.dump(s, open(sys.argv[1] + '/pile0.json', 'w'))
" "$out"
$L "$out/pile13.json" -o "$out/ps.h5" --quiet
kept "$out/p1.h5" "$out/ps.h5" 13
$L "$out/pile13.json" -o "$out/ps.h5" --quiet --record-every 1
$PY -c "
import h5py, sys
f = h5py.File(sys.argv[1], 'r')
assert f['parameters/record_every'][()] == 1 and 'step' not in f and len(f['time']) == 301
" "$out/ps.h5"

# Size: 4000 steps of box_slide_3d; the datasets' bytes (the file's less HDF5's 1 MB
# allocation blocks) at K = 10 about a tenth of K = 1's: the rows are 401 of 4001, and
# /step and /solver/failed_steps add 8 bytes to a row of about 690 (1.2 %); bounds 0.09 ..
# 0.12 leave room for the chunks' rounding (256 rows).
$L data/box_slide_3d.json --steps 4000 -o "$out/s1.h5" --quiet
$L data/box_slide_3d.json --steps 4000 -o "$out/s10.h5" --quiet --record-every 10
$PY - "$out/s1.h5" "$out/s10.h5" <<'EOF' || fail "size"
import sys, h5py
def rows_bytes(p):
    n = 0
    def v(name, o):
        nonlocal n
        if isinstance(o, h5py.Dataset) and o.chunks:
            n += o.size * o.dtype.itemsize
    with h5py.File(p, "r") as f:
        f.visititems(v)
    return n
a, b = rows_bytes(sys.argv[1]), rows_bytes(sys.argv[2])
print(f"record_stride: box_slide_3d 4000 steps: row bytes {a} at K = 1, {b} at K = 10 "
      f"(ratio {b / a:.4f})")
assert 0.09 < b / a < 0.12, b / a
EOF

# --resume from a strided file: a completed shorter run (its last step, 503, not a
# multiple of 7: that row gives way, its failures carry over), resumed to 1000, is the
# straight strided run's file; so are a SIGINT file and a kill -9 partial file.
# same A B: every dataset equal but the wall times; of /resume, the slot of the last step.
same() {
  $PY tests/e2e/same_run.py "$1" "$2" 90 || fail "$1 and $2 differ"
}
$L data/pile_10.json --steps 1000 -o "$out/straight.h5" --quiet --record-every 7
$L data/pile_10.json --steps 503 -o "$out/p503.h5" --quiet --record-every 7
cp "$out/p503.h5" "$out/p503.copy"
$L data/pile_10.json --resume "$out/p503.h5" --steps 1000 -o "$out/res.h5" --quiet
same "$out/straight.h5" "$out/res.h5"
cmp -s "$out/p503.h5" "$out/p503.copy" || fail "--resume changed its input"
# failures carried over the row that gave way: the failing pile, 95 of 200 steps, K = 10
rc=0
$L "$out/failing.json" --steps 95 -o "$out/f95.h5" --quiet --record-every 10 2> /dev/null || rc=$?
rc=0
$L "$out/failing.json" --resume "$out/f95.h5" --steps 200 -o "$out/fres.h5" --quiet 2> /dev/null || rc=$?
[ $rc -eq 1 ] || fail "failing resumed run: exit $rc, not 1"
same "$out/fk.h5" "$out/fres.h5"
# Another stride on resume: refused, naming both.
rc=0
msg=$($L data/pile_10.json --resume "$out/p503.h5" --steps 1000 -o "$out/x.h5" --record-every 5 2>&1) || rc=$?
[ $rc -eq 2 ] || fail "--record-every 5 on a K = 7 run: exit $rc"
case "$msg" in *"--record-every 5 differs from the run's 7"*) ;; *) fail "said: $msg" ;; esac

# whole PATH N: PATH holds N rows or more, flushed: its last row reads, with a stepper
# memory of its step; read without HDF5's file lock (the writer holds it).
whole() {
  [ -f "$1" ] && HDF5_USE_FILE_LOCKING=FALSE $PY -c "
import sys, h5py
with h5py.File(sys.argv[1], 'r') as f:
    n = len(f['time']) - 1
    f['time'][n], f['q'][n], f['v'][n]
    s = int(f['step'][n])
    steps = [f['resume'][k]['step'][()] for k in f['resume']]
    sys.exit(0 if n >= int(sys.argv[2]) and s in steps else 1)
" "$1" "$2" 2> /dev/null
}
# SIGINT: the run ends after some step (likely not a multiple of 7, kept as the last row;
# 0 when the signal comes before the first step: tests/e2e/signal_at_open.sh);
# resumed to 100 steps more, the straight run's file of as many.
$L "$out/pile.json" --steps 100000000 -o "$out/int.h5" --quiet --record-every 7 &
pid=$!
i=0
until [ -f "$out/int.h5.$pid.partial" ] || [ $i -ge 600 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.3
kill -INT $pid
rc=0
wait $pid || rc=$?
[ $rc -eq 130 ] || fail "SIGINT: exit $rc, not 130"
n=$($PY -c "
import sys, h5py
f = h5py.File(sys.argv[1], 'r')
assert f['summary/run_end'][()] == b'interrupted' and f['step'][-1] == f['summary/steps_done'][()]
print(f['summary/steps_done'][()])
" "$out/int.h5")
echo "record_stride: SIGINT after $n steps"
$L "$out/pile.json" --resume "$out/int.h5" --steps $((n + 100)) --quiet
$L "$out/pile.json" --steps $((n + 100)) -o "$out/straight.h5" --quiet --record-every 7
same "$out/straight.h5" "$out/int.resumed.h5"
# kill -9 between flushes: the partial file's last row is a multiple of 7 with its memory.
$L "$out/jt.json" --steps 100000000 -o "$out/killed.h5" --quiet --record-every 7 &
pid=$!
part="$out/killed.h5.$pid.partial"
# The file is read only while the run is stopped (SIGSTOP): running, it flushes faster
# than a reader opens it, and on a loaded machine the reads were torn for a minute on end
# (tests/e2e/resume.sh).
# (lib/stopped_when.sh: 120 s at most, naps growing from 0.2 s to 4 s, so that a run slowed
# by a loaded machine gets on between the checks; a fixed 0.2 s for 60 s before)
. tests/e2e/lib/stopped_when.sh
stopped_when $pid whole "$part" 50
kill -9 $pid
wait $pid || true
# n: the step of the last whole flush (/flushed_rows), where --resume and the loader take
# the file up to; a stop can land inside a flush, after its rows' extents reached the file
# and before /flushed_rows did, so the last row can be past it.
n=$($PY -c "
import sys, h5py
f = h5py.File(sys.argv[1], 'r')
w = int(f['flushed_rows'][()])
assert 'summary' not in f and 0 < w <= len(f['step']) and f['step'][w - 1] % 7 == 0
print(f['step'][w - 1])
" "$part")
$L "$out/jt.json" --resume "$part" --steps $((n + 100)) -o "$out/kres.h5" --quiet
$L "$out/jt.json" --steps $((n + 100)) -o "$out/straight.h5" --quiet --record-every 7
same "$out/straight.h5" "$out/kres.h5"
echo "record_stride: kill -9 after step $n, resumed"

# Refused: a stride below 1 (option and scene key, the place named), an event-driven run.
rc=0
msg=$($L data/pile_10.json --record-every 0 -o "$out/x.h5" 2>&1) || rc=$?
[ $rc -eq 2 ] && case "$msg" in *"--record-every: need an integer from 1"*) ;; *) false ;; esac ||
  fail "--record-every 0: exit $rc, $msg"
rc=0
msg=$($L "$out/pile0.json" -o "$out/x.h5" 2>&1) || rc=$?
[ $rc -eq 2 ] && case "$msg" in *"output.record_every"*) ;; *) false ;; esac ||
  fail "output.record_every 0: exit $rc, $msg"
rc=0
msg=$($L data/bouncing_ball_events.json --record-every 2 -o "$out/x.h5" 2>&1) || rc=$?
[ $rc -eq 2 ] && case "$msg" in *"event_driven"*"record period"*) ;; *) false ;; esac ||
  fail "event-driven --record-every 2: exit $rc, $msg"
[ ! -e "$out/x.h5" ] || fail "a refused run left $out/x.h5"

# The scripts on a strided file: the loaders' time axis is /time, r.step the steps, the
# contacts of a step by its number, the pair series on the rows; plot and animation draw.
$L "$out/pile.json" -o "$out/p1.h5" --quiet
$L "$out/pile.json" -o "$out/pk.h5" --quiet --record-every 7
$PY - "$out/p1.h5" "$out/pk.h5" <<'EOF' || fail "lcpsim_load.py"
import sys
sys.path.insert(0, "scripts")
import numpy as np
import lcpsim_load
a, b = lcpsim_load.load(sys.argv[1]), lcpsim_load.load(sys.argv[2])
assert (a.step == np.arange(301)).all() and b.step[1] == 7 and b.step[-1] == 300
assert (b.time == a.time[b.step]).all() and b.time[-1] == 300 * a.parameters.time_step
assert (b.position("thrown") == a.position("thrown")[b.step]).all()
for k in (7, 168, 300):
    assert (a.contacts.at(k).normal_impulse == b.contacts.at(k).normal_impulse).all()
try:
    b.contacts.at(8)
    raise SystemExit("step 8 is not in the file")
except KeyError as e:
    assert "not in the file" in str(e)
sa, sb = a.contact_series("thrown", "box_0_0_4"), b.contact_series("thrown", "box_0_0_4")
assert (sb.step == b.step[1:]).all() and len(sb.id) > 0
cols = np.searchsorted(sa.id, sb.id)
assert (sa.normal_impulse[b.step[1:] - 1][:, cols] == sb.normal_impulse).all()
assert "300 of 300 steps (44 rows: every 7th step and the last)" in lcpsim_load.summary(b)
EOF
HDF5_USE_FILE_LOCKING=FALSE $PY scripts/lcpsim_load.py "$part" | grep -q "run end: unfinished at step $n" ||
  fail "lcpsim_load.py on the strided partial file"
$PY scripts/lcpsim_plot.py "$out/fk.h5" -o "$out/fk.png" || fail "lcpsim_plot.py"
$PY scripts/lcpsim_animate.py "$out/pk.h5" -o "$out/fr/%03d.png" --every 10 2> /dev/null ||
  fail "lcpsim_animate.py"
[ -f "$out/fk.png" ] && [ -f "$out/fr/004.png" ] && [ ! -f "$out/fr/006.png" ] ||
  fail "figures missing"
cat > "$out/t.m" <<EOF
addpath('$(pwd)/scripts');
a = lcpsim_load('$out/p1.h5'); b = lcpsim_load('$out/pk.h5');
assert(b.step(2) == 7 && b.step(end) == 300 && numel(b.step) == 44);
assert(isequal(a.q(b.step + 1, :), b.q) && isequal(a.time(b.step + 1), b.time));
assert(isequal(a.contacts.at(168).normal_impulse, b.contacts.at(168).normal_impulse));
sa = a.contact_series('thrown', 'box_0_0_4'); sb = b.contact_series('thrown', 'box_0_0_4');
[~, cols] = ismember(sb.id, sa.id);
assert(isequal(sb.step, b.step(2:end)) && isequal(sa.normal_impulse(sb.step, cols), sb.normal_impulse));
f = lcpsim_load('$out/fk.h5');
assert(f.summary.failures == sum(double(f.solver.failed_steps)));
lcpsim_plot('$out/fk.h5', '$out/fk_oct.png');
disp('octave ok');
EOF
octave-cli -H "$out/t.m" 2>&1 | grep -q "octave ok" || fail "Octave scripts"
[ -f "$out/fk_oct.png" ] || fail "lcpsim_plot.m drew nothing"
# lcpsim view of a strided file (headless Chromium, tests/e2e/browse.js): the clock names
# the step of the state shown, #step=95 opens at the last state kept at or before it (step
# 90, row 9), the contacts drawn are its own (contact_step names the step, 90, not the
# row), the failed steps counted those of the summary.
./lcpsim view "$out/fk.h5" -o "$out/fk.html" > /dev/null
node tests/e2e/browse.js "$out/page" "file://$out/fk.html#step=95" > /dev/null 2>&1 || fail "browse.js"
$PY - "$out/page.0.json" "$out/fk.h5" <<'EOF' || fail "lcpsim view"
import json, sys, h5py
d = json.loads(json.load(open(sys.argv[1]))["state"])
n = int(h5py.File(sys.argv[2], "r")["summary/failures"][()])
assert d["step"] == 9 and d["clock"].startswith("step 90 / 200 "), d["clock"]
f = h5py.File(sys.argv[2], "r")
assert d["contact_step"] == 90 and d["contact_row"] == 9, (d["contact_step"], d["contact_row"])
o = f["contacts/offset"][:]
kind = f["contacts/kind"][o[9]:o[10]]
assert d["clock"].endswith(f"contacts {d['contacts']} (step 90)") and d["contacts"] == int((kind <= 1).sum()), d
assert d["failed_steps"] == n and f"solver failed on {n} steps" in d["outcome"], d["outcome"]
EOF
# lcpsim compare --trajectory on a scene with output.record_every 10: /trajectory keeps
# the rows the run keeps (steps 0, 10, ..., 40 and 45: 6; it kept all 46), dataset for
# dataset the run's (wall times aside, and what a comparison does not keep: tests/e2e/
# viewer.sh); lcpsim view draws state 3 (step 30) beside the chart's row of step 30.
$PY - "$out" <<'EOF'
import json, sys
s = json.load(open("data/incline_2d.json"))
s["output"] = {"record_every": 10}
json.dump(s, open(sys.argv[1] + "/incline_k10.json", "w"), indent=1)
EOF
$L compare "$out/incline_k10.json" --solvers lemke,pgs --steps 45 --trajectory \
  -o "$out/cmpt.h5" > /dev/null || fail "compare --trajectory: exit $?"
$L "$out/incline_k10.json" --solver lemke --steps 45 -o "$out/reft.h5" --quiet || fail "run: exit $?"
$PY - "$out/cmpt.h5" "$out/reft.h5" <<'EOF' || fail "compare --trajectory is not the strided run"
import sys, h5py, numpy as np
f, g = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
assert f["trajectory/time"].shape == g["time"].shape == (6,), (f["trajectory/time"].shape, g["time"].shape)
assert list(f["trajectory/step"][()]) == [0, 10, 20, 30, 40, 45], f["trajectory/step"][()]
names = []
g.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
for n in names:
    if "wall_time" in n or n.startswith("resume/") or n in ("parameters/solver_on_failure", "flushed_rows"):
        continue
    assert np.asarray(f["trajectory/" + n][()]).tobytes() == np.asarray(g[n][()]).tobytes(), n
EOF
./lcpsim view "$out/cmpt.h5" -o "$out/cmpt.html" > /dev/null
node tests/e2e/browse.js "$out/cpage" "file://$out/cmpt.html#step=35" > /dev/null 2>&1 || fail "browse.js (compare)"
$PY - "$out/cpage.0.json" <<'EOF' || fail "lcpsim view of compare --trajectory"
import json, sys
d = json.loads(json.load(open(sys.argv[1]))["state"])
assert d["step"] == 3 and d["plot"]["row"] == 29, (d["step"], d["plot"]["row"])
EOF
# The library (Python binding over lsim_sim_record_every): 23 steps of pile_10 kept every
# 5th, the last at the close; the rows those of a record of every step; every < 1 refused
# with the record left closed (no file); Sim.restore of a strided run file.
PYTHONPATH="$PWD/python" LCPSIM_LIBRARY="$PWD/build/liblcpsim.so.0" $PY - "$out" <<'EOF' || fail "library"
import os, sys
import h5py
import numpy as np
import lcpsim
d = sys.argv[1]
for every, name in ((1, "l1.h5"), (5, "l5.h5")):
    with lcpsim.Sim.load("data/pile_10.json") as sim:
        sim.record(os.path.join(d, name), every=every)
        sim.run(23)
        sim.record_close()
a, b = h5py.File(d + "/l1.h5", "r"), h5py.File(d + "/l5.h5", "r")
st = b["step"][:]
assert st.tolist() == [0, 5, 10, 15, 20, 23], st
assert b["parameters/record_every"][()] == 5 and "record_every" not in a["parameters"]
for n in ("time", "q", "v"):
    assert a[n][:][st].tobytes() == b[n][:].tobytes(), n
assert a["solver/iterations"][:][st[1:] - 1].tolist() == b["solver/iterations"][:].tolist()
assert b["summary/steps_done"][()] == 23
with lcpsim.Sim.load("data/pile_10.json") as sim:
    try:
        sim.record(os.path.join(d, "l0.h5"), every=0)
        raise SystemExit("every=0 accepted")
    except lcpsim.Error as e:
        assert e.status == lcpsim.INVALID_INPUT and "need an integer >= 1" in str(e), str(e)
    assert not os.path.exists(os.path.join(d, "l0.h5"))
    sim.record(os.path.join(d, "l0.h5"))  # no record was left open
    sim.record_close(keep=False)
# Sim.restore of the command's strided run (503 steps, K = 7: its last row not a multiple)
# continues as the straight run: q and v after step 1000 to the bit.
with lcpsim.Sim.load("data/pile_10.json") as sim:
    sim.run(1000)
    q, v = np.array(sim.q), np.array(sim.v)
with lcpsim.Sim.load("data/pile_10.json") as sim:
    sim.restore(os.path.join(d, "p503.h5"))
    assert sim.time == 5.03
    sim.run(497)
    assert np.array(sim.q).tobytes() == q.tobytes() and np.array(sim.v).tobytes() == v.tobytes()
EOF
echo "record_stride: ok"
