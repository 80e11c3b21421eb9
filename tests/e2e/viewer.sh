#!/bin/sh
# lcpsim view in a real browser (Debian's headless Chromium driven by tests/e2e/browse.js,
# no network: every host name fails to resolve): pages of a 3-D, a 2-D (tethers, a moving
# anchor) and a 1-D run open at the step their URL names and report the file's body
# coordinates and tether ends; the 3-D screenshot is not blank; a file without trajectory
# and a damaged page say so in the page.
set -eu
PY=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

./lcpsim data/box_stack_3d.json --steps 60 -o "$tmp/stack.h5" --quiet
./lcpsim data/tethered_bodies.json --steps 150 -o "$tmp/tethers.h5" --quiet
./lcpsim data/cart_wall.json -o "$tmp/cart.h5" --quiet
./lcpsim compare data/incline_2d.json --solvers lemke,pgs --steps 20 -o "$tmp/cmp.h5" > /dev/null
# A comparison that keeps its reference's run (--trajectory), and that run made alone.
./lcpsim compare data/incline_2d.json --solvers lemke,pgs --steps 20 --trajectory -o "$tmp/cmpt.h5" > /dev/null
./lcpsim data/incline_2d.json --solver lemke --steps 20 -o "$tmp/ref.h5" --quiet
./lcpsim compare data/incline_2d.json --solvers lemke,pgs --mode independent --steps 20 -o "$tmp/cmpi.h5" > /dev/null
# Failed solves: PGS held to 5 sweeps misses the success tolerance (1e-6) at all 20 steps
# cold and at 1 warm; Lemke at none.
./lcpsim compare data/incline_2d.json --solvers 'lemke,pgs[max_iter=5]' --steps 20 -o "$tmp/cmpf.h5" > /dev/null
# A rod drawn from its joints and its tip (a point shape) alone.
./lcpsim data/double_pendulum_impact.json -o "$tmp/dpi.h5" --quiet
# A chain of thin links (2 cm) in a scene 3 m wide.
./lcpsim data/chain_20.json --steps 100 -o "$tmp/chain.h5" --quiet
# A link pinned at one end only (the double pendulum's lower rod: a uniform rod).
./lcpsim data/double_pendulum.json --steps 300 -o "$tmp/dp.h5" --quiet
# Steps whose solve failed: one PGS sweep to 1e-15 on the pile of 10 boxes without the
# fallback chain (52 of 60 steps fail, the first at step 9; under the default policy the
# chain's results now meet the rounding floor on every step: docs/solvers.md).
rc=0; ./lcpsim data/pile_10.json --solver pgs --max-iter 1 --tol 1e-15 --steps 60 --on-failure continue \
  -o "$tmp/fail.h5" > /dev/null 2>&1 || rc=$?
[ $rc -eq 1 ] || { echo "FAIL: a run with failed steps exits $rc, not 1"; exit 1; }
# A fixed budget (tol 0: two PGS sweeps a step): max_iterations is the budget spent, not
# a failure (lcpsim says "0 solver failures").
./lcpsim data/box_stack_3d.json --solver pgs --tol 0 --max-iter 2 --steps 10 -o "$tmp/budget.h5" --quiet
# An event-driven run: its events (impacts of the bouncing ball).
./lcpsim data/bouncing_ball_events.json --steps 1500 -o "$tmp/events.h5" --quiet
# A box on the ground seen from close by (the grid passes behind the camera).
./lcpsim data/box_slide_3d.json -o "$tmp/slide.h5" --quiet
# Numbers travel in pieces (a browser holds at most about 512 MB of text in one string;
# 48 MB pieces by default): here of 240 bytes (30 numbers), so that every check below
# reads datasets put back together from many pieces.
for run in stack tethers cart cmp cmpt ref dpi fail cmpi budget events slide dp chain cmpf; do
  LSIM_VIEW_PIECE=240 ./lcpsim view "$tmp/$run.h5" -o "$tmp/$run.html" > /dev/null
  # Self-contained: no element loads anything from elsewhere.
  if grep -Eq '<(script|link|img|iframe)[^>]+(src|href)=' "$tmp/$run.html"; then
    echo "FAIL: $run.html loads a resource"; exit 1
  fi
done
# The stack's /q (61 states of 5 boxes x 7 coordinates, 8 bytes each) in 72 pieces.
n=$(grep -c '^<script type="application/json" class="lcpsim-ds">{"path":"/q",' "$tmp/stack.html")
[ "$n" -eq $(( (61 * 35 * 8 + 239) / 240 )) ] || { echo "FAIL: /q of the stack in $n pieces"; exit 1; }
# Broken input: a file without a trajectory, a damaged page (its numbers cut short).
$PY - "$tmp/stack.h5" "$tmp/noq.h5" <<'PYEOF'
import sys, h5py
with h5py.File(sys.argv[1], "r") as src, h5py.File(sys.argv[2], "w") as dst:
    for k in src:
        if k != "q":
            src.copy(k, dst)
PYEOF
./lcpsim view "$tmp/noq.h5" -o "$tmp/noq.html" > /dev/null
# A comparison of a set of problem files (no time: problems 1..3).
./lcpsim compare tests/data/lemke_pile10_step19.dat tests/data/lemke_pile10_step26.dat \
  tests/data/lemke_pile10_step30.dat --solvers lemke,pgs -o "$tmp/set.h5" > /dev/null
./lcpsim view "$tmp/set.h5" -o "$tmp/set.html" > /dev/null
# A comparison that ended early: its /summary/run_end and reason as SIGINT leaves them.
$PY - "$tmp/cmp.h5" "$tmp/cmpint.h5" <<'PYEOF'
import sys, shutil, h5py
import numpy as np
shutil.copy(sys.argv[1], sys.argv[2])
with h5py.File(sys.argv[2], "r+") as f:
    for k, v in (("run_end", "interrupted"), ("run_end_reason", "SIGINT after step 20 of 40")):
        del f["summary/" + k]
        f["summary/" + k] = np.bytes_(v)
PYEOF
./lcpsim view "$tmp/cmpint.h5" -o "$tmp/cmpint.html" > /dev/null
# A run with a time step of 1e-5 s (the cart against the wall, 30 steps).
sed 's/"time_step": 0.1/"time_step": 1e-5/' data/cart_wall.json > "$tmp/fine.json"
./lcpsim "$tmp/fine.json" -o "$tmp/fine.h5" --quiet
./lcpsim view "$tmp/fine.h5" -o "$tmp/fine.html" > /dev/null
# A killed run's file: no /summary (PATH.<pid>.partial, docs/output-format.md).
$PY - "$tmp/stack.h5" "$tmp/killed.h5" <<'PYEOF'
import sys, h5py
with h5py.File(sys.argv[1], "r") as src, h5py.File(sys.argv[2], "w") as dst:
    for k in src:
        if k != "summary":
            src.copy(k, dst)
PYEOF
./lcpsim view "$tmp/killed.h5" -o "$tmp/killed.html" > /dev/null
# A hybrid model's file in its documented layout (file_kind "hybrid": /time, /state,
# /chart, /events), written by h5py with null-padded strings that fill their size.
$PY - "$tmp/hyb.h5" <<'PYEOF'
import json, sys, h5py
import numpy as np
t = np.linspace(0.0, 2.0, 201)
with h5py.File(sys.argv[1], "w") as f:
    f["format_version"] = np.int32(1)
    f["file_kind"] = np.bytes_("hybrid")
    f["scene_text"] = np.bytes_(json.dumps({"name": "ball on a floor"}))
    f["model/name"] = np.bytes_("bouncing_ball")
    f["model/state_names"] = np.array([b"y", b"vy"])
    f["model/chart_names"] = np.array([b"flight", b"stance"])
    f["time"] = t
    f["state"] = np.c_[np.abs(np.cos(np.pi * t)), np.sin(np.pi * t)]
    f["chart"] = (t > 0.5).astype(np.int32)
    f["events/time"] = np.array([0.5])
PYEOF
./lcpsim view "$tmp/hyb.h5" -o "$tmp/hyb.html" > /dev/null
sed 's/"f64":"AAAA/"f64":"AA/' "$tmp/cart.html" > "$tmp/damaged.html"
# A page cut short (a copy that stopped at 80%: in its data, before its program).
head -c $(( $(wc -c < "$tmp/stack.html") * 8 / 10 )) "$tmp/stack.html" > "$tmp/cutpage.html"

# One browser for all pages (tests/e2e/browse.js): reports in $tmp/page.N.json, .png.
node tests/e2e/browse.js "$tmp/page" "file://$tmp/stack.html#step=37" \
  "file://$tmp/tethers.html#step=120" "file://$tmp/cart.html#t=1.5" \
  "file://$tmp/noq.html#step=3" "file://$tmp/damaged.html#step=3" "file://$tmp/cmp.html#step=9" \
  "file://$tmp/hyb.html#step=60" "file://$tmp/cmpt.html#step=9" "file://$tmp/ref.html#step=9" \
  "file://$tmp/dpi.html#step=0" "file://$tmp/fail.html#step=22" "file://$tmp/fail.html#step=3" \
  "file://$tmp/killed.html#step=5" "file://$tmp/stack.html#step=5" "file://$tmp/cmpi.html#step=9" \
  "file://$tmp/stack.html#step=37&contacts=0" "file://$tmp/budget.html#step=5" \
  "file://$tmp/events.html#t=1.174" "file://$tmp/dp.html#step=300" \
  "file://$tmp/cmpint.html#step=3" "file://$tmp/fine.html#step=7" "file://$tmp/cutpage.html#step=3" \
  "file://$tmp/cart.html#step=5|focus=#timeline|keys=ArrowRight,ArrowRight" \
  "file://$tmp/cart.html#step=5|focus=#scale|keys=ArrowRight" "file://$tmp/cart.html#step=5|focus=#play|keys=Space" \
  "file://$tmp/hyb.html#step=60|size=1200x700" "file://$tmp/cmp.html#step=9|size=700x500" \
  "file://$tmp/chain.html#step=100" "file://$tmp/set.html#step=2" "file://$tmp/cmpf.html#step=9"
# box_slide_3d in a 1280 x 800 page (the box seen from close by).
BROWSE_SIZE=1280x800 node tests/e2e/browse.js "$tmp/big" "file://$tmp/slide.html#step=49"

$PY - "$tmp" <<'PYEOF'
import json, sys
import numpy as np
from PIL import Image
sys.path.insert(0, "scripts")
import lcpsim_load
d = sys.argv[1]

pages = {"stack": 0, "tethers": 1, "cart": 2, "noq": 3, "damaged": 4, "cmp": 5, "hyb": 6, "cmpt": 7,
         "ref": 8, "dpi": 9, "fail22": 10, "fail3": 11, "killed": 12, "stack5": 13, "cmpi": 14, "stack_bare": 15, "budget": 16, "events": 17, "dp": 18, "cmpint": 19, "fine": 20, "cutpage": 21, "keys_tl": 22, "keys_scale": 23, "keys_play": 24, "hyb_resized": 25, "cmp_resized": 26, "chain": 27, "set": 28, "cmpf": 29}
def report(name):
    return json.load(open(f"{d}/page.{pages[name]}.json"))
def state(name):
    rep = report(name)
    assert rep["state"], f"{name}: the page reported no state"
    s = json.loads(rep["state"])
    assert "error" not in s, f"{name}: the page says: {s['error']}"
    return s

# The page draws the file's float64 numbers unchanged (base64 in, shortest round-trip
# decimal out): positions and orientations equal the file's bit for bit.
for name, step in (("stack", 37), ("tethers", 120), ("cart", 15)):
    r = lcpsim_load.load(f"{d}/{name}.h5")
    s = state(name)
    assert s["step"] == step and s["time"] == r.time[step], (name, s["step"], s["time"])
    dim = r.parameters.dimension
    assert [b["name"] for b in s["bodies"]] == r.bodies.name
    for i, b in enumerate(s["bodies"]):
        assert np.array_equal(b["position"], r.position(i)[step]), (name, i, b, r.position(i)[step])
        if dim > 1:
            assert np.array_equal(b["orientation"], np.atleast_1d(r.orientation(i)[step])), (name, i)
    # The contacts drawn are those found at the state: step + 1's contact rows.
    rows = r.contacts.rows(step + 1)
    assert s["contact_step"] == s["contact_row"] == step + 1 and s["contacts"] == int(np.sum(r.contacts.kind[rows] <= 1)), s
    print(f"{name} ({dim}-D) at step {step}: {len(s['bodies'])} bodies and "
          f"{s['contacts']} contacts as in the file: ok")

# Tethers: the drawn ends are the rope's ends (their distance is the file's length, to
# round-off of lengths of order 1: 1e-12 m), taut or slack as the file says.
r = lcpsim_load.load(f"{d}/tethers.h5")
s = state("tethers")
for i, t in enumerate(s["tethers"]):
    a, b = np.array(t["ends"])
    assert abs(np.linalg.norm(a - b) - r.tethers.length[120, i]) <= 1e-12, (t, r.tethers.length[120])
    assert t["taut"] == bool(r.tethers.taut[119, i]), t
print("tethers: ends and taut flags as in the file: ok")
# The legend names the moving bodies (few enough to tell apart by colour) after the marks.
assert s["legend"] == ["taut tether", "slack tether"] + r.bodies.name, s["legend"]
print("tethers: legend names the bodies: ok")

# The 3-D screenshot shows something: the scene area (above the bar) is not one colour.
im = np.asarray(Image.open(f"{d}/page.0.png").convert("RGB"), dtype=int)
scene = im[60:im.shape[0] - 80]
background = np.abs(scene - scene[-1, -1]).sum(axis=2) > 30
colours = len(np.unique((scene // 32).reshape(-1, 3), axis=0))
assert background.mean() > 0.02 and colours >= 8, (background.mean(), colours)
print(f"screenshot: {100 * background.mean():.1f}% of the scene drawn, {colours} colours: ok")
# The ground shows its grid wherever it shows: in each sixth of the scene area (3 x 2)
# holding 3000 pixels or more of the ground's grey (0xeeeeee), grid-line greys (0xc0 to
# 0xe2) make at least 3% of them (lines 1 px wide, 10 to 30 px apart); on the stack and
# on box_slide_3d seen from close by.
for name, png in (("stack", f"{d}/page.{pages['stack']}.png"), ("slide", f"{d}/big.0.png")):
    shot = np.asarray(Image.open(png).convert("RGB"), dtype=int)
    shot = shot[60:shot.shape[0] - 80]
    h, w = shot.shape[:2]
    for i in range(3):
        for j in range(2):
            part = shot[j * h // 2:(j + 1) * h // 2, i * w // 3:(i + 1) * w // 3]
            grey = np.abs(part - part[..., :1]).max(axis=2) < 4
            plane = int((grey & (np.abs(part[..., 0] - 0xee) < 3)).sum())
            lines = int((grey & (part[..., 0] >= 0xc0) & (part[..., 0] <= 0xe2)).sum())
            assert plane < 3000 or lines >= 0.03 * plane, (name, i, j, plane, lines)
print("ground grids drawn all over the ground: ok")

# 3-D marks behind bodies: the contact points the page finds hidden from the camera (a
# ray to them meets a box first) are drawn faint: no pixel of the 5 x 5 around their
# centre is the points' red (0xd00000, to 40 per channel), yet the page differs there
# from itself without marks (#contacts=0) by more than 20 on some channel; the others are
# drawn in full (some pixel of the 5 x 5 is that red: a point at a box corner is half in
# the box). The stack at step 37 has both (the back corners of each face).
bare = np.asarray(Image.open(f"{d}/page.{pages['stack_bare']}.png").convert("RGB"), dtype=int)
s = state("stack")
hidden, pts = s["contact_points_hidden"], s["contact_points_px"]
assert len(hidden) == len(pts) == s["contacts"] and 0 < sum(hidden) < len(hidden), s
for h, (x, y) in zip(hidden, pts):
    x, y = int(round(x)), int(round(y))
    win, was = im[y - 2:y + 3, x - 2:x + 3], bare[y - 2:y + 3, x - 2:x + 3]
    full = (np.abs(win - [0xd0, 0, 0]).max(axis=2) <= 40).any()
    assert full != h and (not h or np.abs(win - was).max() > 20), (h, x, y, win, was)
print(f"stack: {sum(hidden)} of {len(hidden)} contact points behind boxes drawn faint, the rest in full: ok")

# Broken input: the page says what is wrong, in words.
msg = report("noq")["error"]
assert "cannot show this file" in msg and "no dataset /q" in msg, msg
msg = report("damaged")["error"]
assert "cannot show this file" in msg and "damaged" in msg, msg
msg = report("cutpage")["error"]
assert "cannot show this file" in msg and "cut short" in msg, msg
print("broken input: readable messages in the page: ok")

# A compare file: its per-step measures with the timeline (rows are steps 1..N).
s = state("cmp")
assert s["kind"] == "compare" and s["step"] == 9 and abs(s["time"] - 0.09) < 1e-12, s
print("compare file: shown at its step: ok")

# Failed solves (success 0, not skipped) are hollow red rings at their steps' times, one
# per failed solve of each series, with a key; a comparison without failures has neither.
# The value read-out sits above the frame, off the curves (the page drew it over them).
import h5py
with h5py.File(f"{d}/cmpf.h5", "r") as f:
    ok, skipped, t = f["results/success"][()], f["results/skipped"][()], f["time"][()]
want = [[float(t[i]) for i in range(len(t)) if ok[i, j] == 0 and not skipped[i, j]] for j in range(ok.shape[1])]
assert [len(w) for w in want] == [0, 0, 20, 1], want  # as the run above says
p = state("cmpf")["plot"]["panels"][0]
assert p["failed"] == want and p["failed_key"] == "failed solve (success 0)", p
p = state("cmp")["plot"]["panels"][0]
assert p["failed"] == [[], [], [], []] and p["failed_key"] is None, p
# The ring's colour (#d00000, in no series' colour) is on the page with failures only.
from PIL import Image
def rings(name):
    a = np.asarray(Image.open(f"{d}/page.{pages[name]}.png").convert("RGB")).astype(int)
    return int(np.sum((a[:, :, 0] == 208) & (a[:, :, 1] == 0) & (a[:, :, 2] == 0)))
assert rings("cmpf") >= 20 and rings("cmp") == 0, (rings("cmpf"), rings("cmp"))
for name in ("cmp", "cmpf", "cmp_resized"):
    plot = state(name)["plot"]
    top = min(p["frame"][1] for p in plot["panels"])
    assert len(plot["readout"]) == 4 and all(y + h <= top for x, y, w, h in plot["readout"]), (name, plot)
print("compare file: failed solves ringed with a key, read-out off the curves: ok")

# A comparison with --trajectory: /trajectory holds the reference's run, dataset for dataset
# the run made alone with that solver (wall times aside); the page draws its bodies at the
# step as in the file, with the measures beside them.
import h5py
with h5py.File(f"{d}/cmpt.h5", "r") as f, h5py.File(f"{d}/ref.h5", "r") as g, \
     h5py.File(f"{d}/cmpt_traj.h5", "w") as out:
    names = []
    g.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
    for n in names:
        # (the comparison runs the reference without the fallback chain, as its file
        # says, and keeps no stepper memory nor its mark of whole flushes: a comparison
        # is not resumed)
        if "wall_time" in n or n.startswith("resume/") or n in ("parameters/solver_on_failure",
                                                                "flushed_rows"):
            continue
        a, b = f["trajectory/" + n][()], g[n][()]
        assert np.asarray(a).tobytes() == np.asarray(b).tobytes(), n
    for k in f["trajectory"]:
        f.copy("trajectory/" + k, out, name=k)
r = lcpsim_load.load(f"{d}/cmpt_traj.h5")
s = state("cmpt")
assert s["step"] == 9 and s["time"] == r.time[9], s
for i, b in enumerate(s["bodies"]):
    assert np.array_equal(b["position"], r.position(i)[9]), (i, b)
    assert np.array_equal(b["orientation"], np.atleast_1d(r.orientation(i)[9])), (i, b)
# Beside the chart (the right 42% of the page, from x = 900 - 10 - 378 = 512 px), the
# run's marks and bodies show left of it: the box's contact points (its lower corners)
# at x < 512.
assert s["contacts"] >= 2 and all(0 < x < 512 for x, y in s["contact_points_px"]), s["contact_points_px"]
print(f"compare file with --trajectory: {len(names)} datasets of the reference's run as made "
      "alone; bodies at the step as in the file: ok")

# A hybrid run: its states over time, the sample's state and chart as in the file.
s = state("hyb")
t = 0.01 * 60
assert s["kind"] == "hybrid" and s["step"] == 60 and s["chart"] == "stance", s
assert s["state"] == [abs(np.cos(np.pi * np.linspace(0.0, 2.0, 201)[60])),
                      np.sin(np.pi * np.linspace(0.0, 2.0, 201)[60])], s
print("hybrid run: state and chart at the sample as in the file: ok")

# Marks over bodies (2-D bodies are see-through): every contact point drawn (at the box's
# corners on the incline, half over the box) shows as a whole disk of the points' red
# (0xd00000, within 40 per channel), not half blended with the body drawn over it (at
# least 70% of pi r^2 pixels: antialiased edges lose a ring of about one pixel), and no
# body wears a mark's hue (red point, blue normal impulse, orange friction impulse).
def pixel(name, xy):
    im = np.asarray(Image.open(f"{d}/page.{pages[name]}.png").convert("RGB"), dtype=int)
    return im[int(round(xy[1])), int(round(xy[0]))]
s = state("ref")
assert s["contacts"] >= 2 and len(s["contact_points_px"]) == s["contacts"], s
im = np.asarray(Image.open(f"{d}/page.{pages['ref']}.png").convert("RGB"), dtype=int)
r = s["point_radius_px"]
assert r >= 2, s
for x, y in s["contact_points_px"]:
    x, y, w = int(round(x)), int(round(y)), int(r) + 3
    win = im[y - w:y + w + 1, x - w:x + w + 1]
    red = int((np.abs(win - [0xd0, 0, 0]).max(axis=2) <= 40).sum())
    assert red >= 0.7 * np.pi * r * r, (x, y, r, red)
marks = [(0xd0, 0, 0), (0x15, 0x65, 0xc0), (0xe6, 0x7e, 0x00)]
for b in s["bodies"]:
    if b["color"] and b["name"] != "ground":
        rgb = np.array([int(b["color"][i:i + 2], 16) for i in (1, 3, 5)])
        assert min(np.abs(rgb - m).sum() for m in marks) > 120, b
# The legend says which body an arrow acts on: the file's impulses are on body_a, whose
# side the normal points to (from body_b): on the incline, the box (body_a, the normal
# up the slope's normal, into the box).
with h5py.File(f"{d}/ref.h5", "r") as f:
    rows = slice(int(f["contacts/offset"][10]), int(f["contacts/offset"][11]))
    names = f["bodies/name"][()].astype(str)
    a, nz = names[f["contacts/body_a"][rows]], f["contacts/normal"][rows][:, 1]
assert set(a) == {"box"} and np.all(nz > 0), (a, nz)
assert s["legend"][:3] == ["contact point", "normal impulse (on the body it points into)",
                           "friction impulse (on that body)"], s["legend"]
print(f"incline_2d: {s['contacts']} contact points drawn over the box, in their own colour: ok")

# A body with a point shape only (the lower rod, its tip touching the ground) is drawn as
# a stick from its centre to its tip: the pixel halfway between them is the rod's colour
# (50 per channel: the stick is a few pixels wide, its edges antialiased).
s = state("dpi")
lower = [b for b in s["bodies"] if b["name"] == "lower"][0]
tip = s["contact_points_px"][0]
mid = [(lower["px"][0] + tip[0]) / 2, (lower["px"][1] + tip[1]) / 2]
rgb = np.array([int(lower["color"][i:i + 2], 16) for i in (1, 3, 5)])
assert np.abs(pixel("dpi", mid) - rgb).max() <= 50, (mid, pixel("dpi", mid), lower)
print("double_pendulum_impact: the lower rod drawn from its centre to its tip: ok")

# Marks keep their size on screen: the chain's contact points (on links 2 cm thick, in a
# scene 3 m wide) are disks of 4 px radius: at least 0.5 pi r^2 pixels of their red
# within 6 px of each, at most 1.6 pi r^2 at the median point (some points lie close
# together, at the links' ends). They were a hundred-fiftieth of the scene: 7 px wide.
s = state("chain")
im = np.asarray(Image.open(f"{d}/page.{pages['chain']}.png").convert("RGB"), dtype=int)
r = s["point_radius_px"]
assert r == 4 and s["contacts"] >= 10, s
reds = []
for x, y in s["contact_points_px"]:
    x, y = int(round(x)), int(round(y))
    reds.append(int((np.abs(im[y - 6:y + 7, x - 6:x + 7] - [0xd0, 0, 0]).max(axis=2) <= 40).sum()))
assert min(reds) >= 0.5 * np.pi * r * r and np.median(reds) <= 1.6 * np.pi * r * r, reds
print(f"chain_20: {s['contacts']} contact points drawn 4 px wide: ok")

# The double pendulum's lower rod is pinned at one end only; its inertia is a uniform
# rod's (m L^2 / 12 = 1/12 kg m^2 for L = 2 x 0.5 m), so it is drawn whole: a stick from
# the elbow through its centre to the free end, as far beyond (0.5 px: rounding), and
# the pixel halfway from the centre to that end is the rod's colour (to 50 per channel).
s = state("dp")
lower = [b for b in s["bodies"] if b["name"] == "lower"][0]
(ex, ey), (fx, fy) = lower["stick_ends_px"]
cx, cy = lower["px"]
assert abs(fx - (2 * cx - ex)) <= 0.5 and abs(fy - (2 * cy - ey)) <= 0.5 and np.hypot(fx - cx, fy - cy) > 20, lower
rgb = np.array([int(lower["color"][i:i + 2], 16) for i in (1, 3, 5)])
assert np.abs(pixel("dp", [(cx + fx) / 2, (cy + fy) / 2]) - rgb).max() <= 50, (lower, pixel("dp", [(cx + fx) / 2, (cy + fy) / 2]))
print("double_pendulum: the lower rod drawn whole, through its centre: ok")

# Failed steps: the page counts the file's steps with /solver/status < 0, names the first
# in the subtitle, and at state k names the status of step k + 1 (whose impulses it draws)
# when that failed; a killed run's file (no /summary) is called unfinished; a run that
# went well says nothing of either.
import h5py
with h5py.File(f"{d}/fail.h5", "r") as f:
    status = f["solver/status"][()]
    legend = {int(e.split()[0]): e.split()[1] for e in f["solver/status_legend"][()].astype(str)}
failed = np.flatnonzero(status < 0) + 1
assert 0 < len(failed) < len(status) and status[3] == 0, status
for name, k in (("fail22", 22), ("fail3", 3)):
    s = state(name)
    want = legend[int(status[k])] if status[k] < 0 else ""
    assert s["step"] == k and s["failed_steps"] == len(failed) and s["solver_status"] == want, (s["solver_status"], want)
assert f"solver failed on {len(failed)} steps (first: step {failed[0]}, {legend[int(status[failed[0] - 1])]})" in s["outcome"], s["outcome"]
# The clock tells consecutive samples apart: t = 7e-5 s is written 0.000070 (h = 1e-5 s:
# one decimal more than h's), the cart's usual 0.1 s steps with four.
assert "t = 0.000070 s" in state("fine")["clock"] and "t = 1.5000 s" in state("cart")["clock"], \
    (state("fine")["clock"], state("cart")["clock"])
# Keys as a user presses them: on the focused timeline, two steps on for two presses (the
# slider's own step and the page's were both taken: four); on the arrows' scale slider,
# the scale changes, not the step; Space on the focused play button plays (the button's
# click and the page's key both toggled: nothing happened); 600 ms at 1x are 6 steps of
# the cart's 0.1 s, so the step is past 5.
assert state("keys_tl")["hash"] == "#step=7", state("keys_tl")["hash"]  # the address follows
assert state("keys_tl")["step"] == 7 and state("keys_scale")["step"] == 5 and state("keys_play")["step"] > 5, \
    (state("keys_tl")["step"], state("keys_scale")["step"], state("keys_play")["step"])
print("keys on the focused timeline, arrow scale and play button: one action each: ok")
# A chart page resized: the chart's canvas has as many pixels as it is wide (1200 - 20
# and 700 - 20), not the old width stretched.
for name, w in (("hyb_resized", 1180), ("cmp_resized", 680)):
    assert state(name)["plot"]["canvas_px"] == [w, w], (name, state(name)["plot"]["canvas_px"])
print("chart pages redrawn at their new size: ok")
s = state("cmpint")
assert s["kind"] == "compare" and s["outcome"] == "interrupted: SIGINT after step 20 of 40", s
assert state("cmp")["outcome"] == "" and state("cmpt")["outcome"] == "", (state("cmp"), state("cmpt")["outcome"])
s = state("killed")
assert s["run_end"] == "unfinished" and s["outcome"].startswith("unfinished: 60 of 60 steps"), s["outcome"]
s = state("stack5")
assert s["run_end"] == "completed" and s["outcome"] == "" and s["failed_steps"] == 0, s
with h5py.File(f"{d}/budget.h5", "r") as f:
    assert np.all(f["solver/status"][()] == -1), f["solver/status"][()]
s = state("budget")
assert s["failed_steps"] == 0 and s["solver_status"] == "" and s["outcome"] == "", s

# Events: counted as in the file; the first sample at or after an event names it (the
# second impact, at 1.17396 s: the sample at 1.174 s, #t=1.174), no other sample does.
with h5py.File(f"{d}/events.h5", "r") as f:
    et, ek = f["events/time"][()], f["events/kind"][()]
    legend = f["events/kind_legend"][()].astype(str)
    t = f["time"][()]
s = state("events")
k = int(np.searchsorted(t, et[1]))
assert t[k - 1] < et[1] <= t[k] and legend[ek[1]] == "impact" and s["step"] == k, (s["step"], k, et[1])
assert s["events"] == len(et) >= 2 and s["events_here"] == [f"impact ball-ground at t = {et[1]:.5f} s"], s
assert s["outcome"] == "" and state("stack5")["events_here"] == [], s
print(f"events: {len(et)} counted; the second impact falls in state {k}: ok")
print(f"failed steps: {len(failed)} of {len(status)} counted, the first (step {failed[0]}) named, "
      "the shown step's status named; a killed run's file called unfinished: ok")

# Charts: the values read out at the cursor are the file's at the row shown (a compare
# file's row k - 1 is step k; beside a run, state k shows step k + 1's row, k); every
# curve lies inside its panel, off the frame (log panels: 0.03 decade at least, as drawn;
# linear: 5% of the range); panels have at least two labelled ticks, the time axis three.
with h5py.File(f"{d}/cmp.h5", "r") as f:
    rr = f["results/relative_residual"][()]
with h5py.File(f"{d}/cmpi.h5", "r") as f:
    div = f["divergence/q"][()]
    labels = f["series/label"][()].astype(str)
def same(values, row):
    return all((v is None and not np.isfinite(w)) or v == w for v, w in zip(values, row))
def check_panels(name, plot):
    assert len(plot["xticks"]) >= 3, (name, plot["xticks"])
    for p in plot["panels"]:
        room = 0.03 if p["log"] else 0.05 * (p["data_hi"] - p["data_lo"]) * 0.999
        if p["data_hi"] > p["data_lo"]:
            assert p["hi"] - p["data_hi"] >= room and p["data_lo"] - p["lo"] >= room, (name, p)
        assert len(p["ticks"]) >= 2, (name, p)
for name, row, data in (("cmp", 8, rr), ("cmpt", 9, rr), ("cmpi", 8, div)):
    plot = state(name)["plot"]
    assert plot["row"] == row and same(plot["panels"][0]["values"], data[row]), (name, plot, data[row])
    check_panels(name, plot)
p = state("cmpi")["plot"]["panels"][0]
assert p["log"] and "q - q_ref" in p["title"] and np.all(div[:, 0] == 0) and labels[0] == "lemke", p
assert "[m or rad]" in p["title"], p["title"]  # 2-D: q holds the angles too (said [m] only)
plot = state("hyb")["plot"]
assert plot["row"] == 60 and plot["panels"][0]["values"] == [state("hyb")["state"][0]], plot
check_panels("hyb", plot)
# A set of problems: its x is the problem's number (integer ticks), the clock names the
# problem shown and its size, the values are its row's.
with h5py.File(f"{d}/set.h5", "r") as f:
    rr, pn = f["results/relative_residual"][()], f["problem_name"][()].astype(str)
    n = f["problem_size"][()]
s = state("set")
assert s["plot"]["x"] == 2 and all(float(t).is_integer() for t in s["plot"]["xticks"]), s["plot"]
assert s["clock"] == f"problem 2 / 3: {pn[1]} (n = {n[1]})" and same(s["plot"]["panels"][0]["values"], rr[1]), s
print("charts: values at the cursor as in the files, curves off the frames, ticks labelled: ok")
PYEOF

if ./lcpsim view data/cart_wall.json -o "$tmp/x.html" 2> "$tmp/err"; then
  echo "FAIL: lcpsim view accepted a JSON file"; exit 1
fi
grep -q "not an HDF5 file" "$tmp/err" && [ ! -e "$tmp/x.html" ] && [ -z "$(ls "$tmp"/x.html.*partial 2> /dev/null)" ]
echo "lcpsim view on a non-HDF5 file: clear error, no page: ok"
# A run file cut short (a copy interrupted mid-way): exit 2, a message, no page.
head -c 100000 "$tmp/stack.h5" > "$tmp/cut.h5"
if ./lcpsim view "$tmp/cut.h5" -o "$tmp/cut.html" 2> "$tmp/err"; then
  echo "FAIL: lcpsim view accepted a file cut short"; exit 1
fi
grep -q "cut.h5: cannot open the HDF5 file" "$tmp/err" && [ ! -e "$tmp/cut.html" ] && [ -z "$(ls "$tmp"/cut.html.*partial 2> /dev/null)" ]
echo "lcpsim view on a file cut short: clear error, no page: ok"
# Two planes in 3-D (data/incline_3d.json with a ground 0.3 m below the slope's origin, mu
# 0.1: the box slides off the slope onto the ground within 2 s): each plane drawn in its
# own tint where the bodies are over it, outlined, and named in the legend. Before, both
# were the same grey with the same grid, the slope's centred on the scene's centre
# projected into it: the fold between them was all that told them apart.
$PY - "$tmp" <<'PYEOF'
import json, sys
s = json.load(open("data/incline_3d.json"))
s["bodies"].insert(0, {"name": "ground", "type": "static", "position": [0, 0, -0.3],
                       "shapes": [{"type": "plane", "mu": 0.1}]})
s["bodies"][1]["shapes"][0]["mu"] = s["bodies"][2]["shapes"][0]["mu"] = 0.1
s["duration"] = 2.0
json.dump(s, open(sys.argv[1] + "/ramp.json", "w"))
PYEOF
./lcpsim "$tmp/ramp.json" -o "$tmp/ramp.h5" --quiet
./lcpsim view "$tmp/ramp.h5" -o "$tmp/ramp.html" > /dev/null
node tests/e2e/browse.js "$tmp/ramp" "file://$tmp/ramp.html#step=199" "file://$tmp/stack.html#step=37"
$PY - "$tmp" <<'PYEOF'
import json, sys
import numpy as np
from PIL import Image
d = sys.argv[1]
legend = json.loads(json.load(open(f"{d}/ramp.0.json"))["state"])["legend"]
assert "ground (plane)" in legend and "incline (plane)" in legend, legend
# one plane alone (the stack's ground) is not named: the legend as before
assert not any("(plane)" in t for t in json.loads(json.load(open(f"{d}/ramp.1.json"))["state"])["legend"])
im = np.asarray(Image.open(f"{d}/ramp.0.png").convert("RGB"), dtype=int)
scene = im[90:im.shape[0] - 80]
near = lambda c, tol=6: (np.abs(scene - np.array(c)).max(axis=2) <= tol).mean()
grey, blue = near((0xee, 0xee, 0xee)), near((0xd6, 0xe6, 0xf7))
# each plane's fill covers a good part of the view (here about a third each; 10 % is
# far from either way: the lines and the box take the rest)
assert grey > 0.10 and blue > 0.10, (grey, blue)
# the slope's grid in its own colour (0xa3c0e0 lines; light ones antialiased): present
lines = near((0xa3, 0xc0, 0xe0), 24)
assert lines > 0.005, lines
print(f"two planes: ground fill {100 * grey:.0f} %, slope fill {100 * blue:.0f} %, slope lines {100 * lines:.1f} % of the view, both in the legend: ok")
PYEOF

# Impulse arrows' scale: the largest contact impulse of the run, unless it is round-off
# against the run's momentum (under 1e-6 of sqrt(2 M K), K its largest kinetic energy).
# The event-driven Newton's cradle's persistent contacts carry 3e-17 N*s (its impacts are
# in /events): they were drawn as arrows a ball long (8.7e+15 m per N*s); now as none. The
# stack keeps its scale (the weight over a step: 0.15 of the scene) and its 10 arrows.
./lcpsim data/newtons_cradle.json -o "$tmp/cradle.h5" --quiet
./lcpsim view "$tmp/cradle.h5" -o "$tmp/cradle.html" > /dev/null
node tests/e2e/browse.js "$tmp/arrows" "file://$tmp/cradle.html#step=0" "file://$tmp/stack.html#step=37"
$PY - "$tmp" "$tmp/cradle.h5" <<'PYEOF'
import json, sys
import h5py
import numpy as np
d = sys.argv[1]
cradle, stack = (json.loads(json.load(open(f"{d}/arrows.{i}.json"))["state"]) for i in (0, 1))
with h5py.File(sys.argv[2], "r") as f:
    worst = np.abs(f["contacts/normal_impulse"][:]).max()
assert 0 < worst < 1e-15, worst  # the case: round-off impulses only
assert cradle["contacts"] == 3 and cradle["arrows"] == 0, (cradle["contacts"], cradle["arrows"])
# a round-off impulse at that scale: far under a pixel of a scene 2 m wide
assert worst * cradle["arrow_scale"] < 1e-9, cradle["arrow_scale"]
assert stack["contacts"] == 20 and stack["arrows"] == 10, (stack["contacts"], stack["arrows"])
assert 2.0 < stack["arrow_scale"] < 4.0, stack["arrow_scale"]  # 3.06 m per N*s, as before
print(f"impulse arrows: round-off sets no scale (cradle {cradle['arrow_scale']:.3g} m per N*s, "
      f"no arrow), the stack's kept ({stack['arrow_scale']:.3g}): ok")
PYEOF

# A comparison's chart tells its series apart by dash as well as colour, and in the
# Python figures' colour order (blue, orange, green, red): the 4 series of a shadow
# comparison had blue, red, green and purple, all solid (red and green alike to a
# red-green colour-blind reader); each read-out starts with its line's sample.
node tests/e2e/browse.js "$tmp/styles" "file://$tmp/cmp.html#step=9"
$PY - "$tmp" <<'PYEOF'
import json, sys
d = sys.argv[1]
plot = json.loads(json.load(open(f"{d}/styles.0.json"))["state"])["plot"]
for p in plot["panels"]:
    st = [(c, tuple(dash)) for c, dash in p["series_style"]]
    assert len(st) == 4 and len(set(st)) == 4, st
    assert len({dash for c, dash in st}) == 4, st  # four dashes: no colour needed
    assert [c for c, dash in st] == ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"], st
print("comparison chart: each series its own colour and dash: ok")
PYEOF

# A hybrid run's panels carry their states' units (/model/state_units) in title and
# read-out, as lcpsim_hybrid_plot.py's axes: the SLIP runner's read 'x', 'xdot' (no unit).
./lcpsim data/slip.json -o "$tmp/slip.h5" > /dev/null
./lcpsim view "$tmp/slip.h5" -o "$tmp/slip.html" > /dev/null
node tests/e2e/browse.js "$tmp/slipv" "file://$tmp/slip.html#step=3"
$PY - "$tmp" <<'PYEOF'
import json, sys
import h5py
d = sys.argv[1]
plot = json.loads(json.load(open(f"{d}/slipv.0.json"))["state"])["plot"]
with h5py.File(f"{d}/slip.h5", "r") as f:
    names = [n.decode() for n in f["model/state_names"][:]]
    units = [u.decode() for u in f["model/state_units"][:]]
titles = [p["title"] for p in plot["panels"]]
want = [f"{n} [{u}]" if u else n for n, u in zip(names, units)][:8]
assert titles == want and "x [m]" in titles and "xdot [m/s]" in titles, (titles, want)
print(f"hybrid page: {len(titles)} panels titled with their units ({', '.join(titles[:3])}, ...): ok")
PYEOF
