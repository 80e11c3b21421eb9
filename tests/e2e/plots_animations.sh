#!/bin/sh
# The figures a paper would print (scripts/lcpsim_plot.py and .m) and the animations
# (scripts/lcpsim_animate.py), on example scenes: round-off panels flat and labelled,
# contact normals summed apart from tethers and joints (each in its own named panel), the
# scene's name in the title, a unit on every axis, a 3-D rotation angle that passes pi;
# tethers and joints drawn as lines (never as contact dots), the view fitted to shapeless
# bodies, 1-D runs animated. Octave writes the same figures without error.
set -eu
PY=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "plots_animations: $*" >&2; exit 1; }

./lcpsim data/hanging_box.json --steps 50 -o "$tmp/hanging_box.h5" --quiet
./lcpsim data/double_pendulum.json --steps 400 -o "$tmp/double_pendulum.h5" --quiet
./lcpsim data/chain_20.json --steps 200 -o "$tmp/chain_20.h5" --quiet
./lcpsim data/incline_2d.json --steps 50 -o "$tmp/incline_2d.h5" --quiet
./lcpsim data/tethered_bodies.json --steps 150 -o "$tmp/tethered_bodies.h5" --quiet
./lcpsim data/two_blocks.json -o "$tmp/two_blocks.h5" --quiet
# The whole double pendulum: its energy curves fill the panel, where matplotlib's "best"
# legend place covered the potential energy.
./lcpsim data/double_pendulum.json -o "$tmp/double_pendulum_5s.h5" --quiet

$PY - "$tmp" <<'PYEOF'
import json, math, sys
import numpy as np
sys.path.insert(0, "scripts")
import lcpsim_load, lcpsim_plot, lcpsim_animate
d = sys.argv[1]
load = lambda s: lcpsim_load.load(f"{d}/{s}.h5")

def panels(fig):
    return {a.get_ylabel(): a for a in fig.axes if a.axison}

# Every figure: the scene's name in the title, a unit in [..] on every y axis, time [s]
# under the bottom row.
for s in ("hanging_box", "double_pendulum", "chain_20", "incline_2d", "tethered_bodies",
          "two_blocks", "double_pendulum_5s"):
    r = load(s)
    fig = lcpsim_plot.plot(r, None)
    name = json.loads(r.scene_text)["name"]
    assert fig._suptitle.get_text().startswith(name), (s, fig._suptitle.get_text())
    for a in fig.axes:
        if a.axison:
            assert "[" in a.get_ylabel() and "]" in a.get_ylabel(), (s, a.get_ylabel())
    bottom = [a for a in fig.axes if a.axison and a.get_xlabel()]
    assert bottom and all(a.get_xlabel() == "time [s]" for a in bottom), s
    # No legend inside a panel covers a drawn point (as drawn, in pixels).
    fig.canvas.draw()
    for a in fig.axes:
        leg = a.get_legend()
        if leg is None or leg.get_bbox_to_anchor().bounds != a.bbox.bounds:
            continue
        box = leg.get_window_extent()
        for line in a.get_lines():
            xy = line.get_xydata()
            p = a.transData.transform(xy[np.all(np.isfinite(xy), axis=1)])
            inside = (p[:, 0] >= box.x0) & (p[:, 0] <= box.x1) & (p[:, 1] >= box.y0) & (p[:, 1] <= box.y1)
            assert not inside.any(), (s, a.get_ylabel(), line.get_label())
    lcpsim_plot.plt.close(fig)
print("titles carry the scene name, every axis a unit, legends off the data: ok")

# Round-off: the box at rest on the incline has velocities of 1e-14 m/s; their panels are
# drawn at exactly zero with a note, the positions flat at the rounded value.
r = load("incline_2d")
fig = lcpsim_plot.plot(r, None)
p = panels(fig)
for label in ("vx [m/s]", "vy [m/s]", "omega [rad/s]"):
    a = p[label]
    assert all(np.all(ln.get_ydata() == 0.0) for ln in a.get_lines()), label
    assert any("constant: zero" in t.get_text() for t in a.texts), label
    lo, hi = a.get_ylim()
    assert hi - lo >= 1.0, (label, lo, hi)  # not zoomed onto round-off
y = p["y [m]"]  # 1.1e-16 m of spread
assert any("round-off" in t.get_text() for t in y.texts) and not y.get_yaxis().get_major_formatter().get_useOffset()
x = p["x [m]"]  # the same bits at every state
assert np.ptp(r.position(0)[:, 0]) == 0.0
assert [t.get_text().endswith(" m (exactly, at every point)") for t in x.texts] == [True], x.texts
lcpsim_plot.plt.close(fig)
# A coordinate that never moves (the hanging box keeps the identity rotation at every
# state) is exactly constant, not round-off (its note read 'round-off, spread 0.0e+00').
r = load("hanging_box")
assert np.all(r.orientation(0) == [1.0, 0.0, 0.0, 0.0])
fig = lcpsim_plot.plot(r, None)
notes = [t.get_text() for t in panels(fig)["rotation angle\nfrom identity [rad]"].texts]
assert notes == ["constant: zero (exactly, at every point)"], notes
# The tethers' lengths panel says what its curves and dotted lines are.
assert "end-to-end distance [m]\n(dotted: tether length)" in panels(fig), list(panels(fig))
lcpsim_plot.plt.close(fig)
print("round-off panels flat and labelled: ok")

# Contact normals only: nonnegative on the chain (joints would make it negative), and
# equal to the sum of the kind 0 rows.
r = load("chain_20")
normal, friction = lcpsim_plot.step_impulses(r)
assert np.all(normal >= 0) and normal.max() > 0, normal.min()
keep = r.contacts.kind == 0
assert np.isclose(normal.sum(), r.contacts.normal_impulse[keep].sum(), rtol=1e-12)
assert np.any(r.contacts.normal_impulse[r.contacts.kind == 3] < 0)  # the rows left out
# Double pendulum: no contacts, its joints' impulses and position error in named panels.
r = load("double_pendulum")
fig = lcpsim_plot.plot(r, None)
p = panels(fig)
assert any(t.get_text() == "no contacts in this run" for t in p["contact impulse\nper step [N*s]"].texts)
err = p["joint position\nerror [m]"]
assert [ln.get_label() for ln in err.get_lines()] == r.joints.name
assert np.allclose(err.get_lines()[1].get_ydata(), r.joints.error[:, 1], rtol=0, atol=0)
lcpsim_plot.plt.close(fig)
# Hanging box: per-rope impulses, each rope named (the two are equal: dashes tell apart).
r = load("hanging_box")
fig = lcpsim_plot.plot(r, None)
a = panels(fig)["tether impulse\nper step [N*s]"]
lines = a.get_lines()
assert [ln.get_label() for ln in lines] == ["left", "right"]
assert lines[0].get_linestyle() != lines[1].get_linestyle()
assert np.allclose(lines[0].get_ydata(), 2 * 9.81 * 0.01 * math.sqrt(1.16) / 2, rtol=1e-9)
lcpsim_plot.plt.close(fig)
print("contact normals apart; tethers and joints in named panels: ok")

# The rotation angle of a body spinning at 1 rad/s about z runs through pi to 2 pi.
th = np.linspace(0, 6.0, 61)
q = np.c_[np.cos(th / 2), 0 * th, 0 * th, np.sin(th / 2)]
q[::2] *= -1  # q and -q are one rotation: the file may hold either
assert np.allclose(lcpsim_plot.rotation_angle(q), th, atol=1e-12)
print("rotation angle passes pi: ok")

# Animations: tethers and joints are lines, not contact dots; their ends are the file's.
r = load("tethered_bodies")
sc = lcpsim_animate.Scene(r)
for k in (0, 60, 150):
    for i, link in enumerate(sc.links):
        a, b = link["ends"](k)
        assert abs(np.linalg.norm(a - b) - r.tethers.length[k, i]) <= 1e-12, (k, i)
assert len(lcpsim_animate.contact_points(r, 60)) == 0  # tether rows are not contacts
fig, ax = lcpsim_animate.plt.subplots()
lim = sc.limits([0, 150])
lcpsim_animate.draw_2d(ax, sc, 150, lim)
styles = {(ln.get_color(), ln.get_linestyle()) for ln in ax.get_lines()}
taut = [bool(r.tethers.taut[149, i]) for i in range(3)]
if any(taut):
    assert (lcpsim_animate.TAUT, "-") in styles, styles
if not all(taut):
    assert (lcpsim_animate.SLACK, "--") in styles, styles
lcpsim_animate.plt.close(fig)
# The double pendulum has no shapes: the view still holds its bodies and joint ends.
r = load("double_pendulum")
sc = lcpsim_animate.Scene(r)
frames = list(range(0, 401, 50))
lim = sc.limits(frames)
for k in frames:
    pts = [r.position(i)[k] for i in range(2)] + [e[:2] for l in sc.links for e in l["ends"](k)]
    for pnt in pts:
        assert all(lo <= pnt[a] <= hi for a, (lo, hi) in enumerate(lim)), (k, pnt, lim)
for i, link in enumerate(sc.links):  # pin ends apart by the file's joint error
    a, b = link["ends"](400)
    assert abs(np.linalg.norm(a - b) - r.joints.error[400, i]) <= 1e-12
assert len(lcpsim_animate.contact_points(r, 10)) == 0
print("animation: tethers and joints as lines, view fitted to shapeless bodies: ok")
PYEOF

# A pile's contact dots leave its bodies visible, and the view frames the bin: the settled
# pile_100's last frame drawn red on under 15 % of its coloured pixels. 8-point dots on its
# ~400 contacts covered 59 % of them and hid most spheres, in a view of -2 .. 2 m for a bin
# of 1.45 m (each wall framed by its bounding sphere); the view fitted to the walls' boxes,
# 28 %; the dots also shrunk beyond 50 of them (the dots' total ink kept), 8 %.
./lcpsim data/pile_100.json -o "$tmp/pile_100.h5" --quiet
mkdir "$tmp/pile_frames"
$PY scripts/lcpsim_animate.py "$tmp/pile_100.h5" -o "$tmp/pile_frames/%04d.png" --every 300 > /dev/null
$PY - "$tmp/pile_frames/0001.png" <<'PYEOF'
import sys
import matplotlib.image as mpimg
a = mpimg.imread(sys.argv[1])[:, :, :3]
red = (a[:, :, 0] > 0.9) & (a[:, :, 1] < 0.2) & (a[:, :, 2] < 0.2)
coloured = a.max(axis=2) - a.min(axis=2) > 0.3  # not grey or white
share = red.sum() / coloured.sum()
assert share < 0.15, "contact dots on %.0f %% of the coloured pixels" % (100 * share)
print("pile animation: contact dots on %.0f %% of the coloured pixels, the spheres visible: ok"
      % (100 * share))
PYEOF

# A run that stopped at its first step (falling at 0.99 m/s, past limits.max_speed 1 m/s
# after its first step: the guard stops it): the figure says how the run ended in its
# title, and its one state shows as markers (the panels were empty, the title read as a
# whole run's); an interrupted run's title says so.
cat > "$tmp/stopped.json" <<'JSON'
{"lcpsim": 1, "time_step": 0.01, "steps": 3, "dimension": 3, "gravity": [0, 0, -9.81],
 "limits": {"max_speed": 1},
 "bodies": [{"name": "b", "mass": 1, "position": [0, 0, 5], "velocity": [0, 0, -0.99],
             "shapes": [{"type": "sphere", "radius": 1}]}]}
JSON
rc=0; ./lcpsim "$tmp/stopped.json" -o "$tmp/stopped.h5" --quiet 2> /dev/null || rc=$?
[ $rc -eq 1 ] || { echo "plots_animations: the stopped run exited $rc" >&2; exit 1; }
$PY - "$tmp/stopped.h5" <<'PYEOF'
import sys
sys.path.insert(0, "scripts")
import lcpsim_load, lcpsim_plot
r = lcpsim_load.load(sys.argv[1])
fig = lcpsim_plot.plot(r, None)
title = fig._suptitle.get_text()
assert "stopped after 0 of 3 steps: step 1: body 'b'" in title, title
lines = [l for a in fig.axes for l in a.get_lines() if len(l.get_xdata()) == 1]
assert lines and all(l.get_marker() not in ("None", "", None) for l in lines), \
    [l.get_marker() for l in lines]
r.summary.run_end, r.summary.run_end_reason = "interrupted", "SIGINT after step 0 of 3"
assert "interrupted after 0 of 3 steps: SIGINT" in lcpsim_plot.title_of(r, None)
print("a stopped run's figure: its end in the title, its one state as markers: ok")
PYEOF
octave-cli -H --no-window-system --eval "addpath('scripts'); lcpsim_plot('$tmp/stopped.h5', '$tmp/stopped_m.png');" > /dev/null
head -c 8 "$tmp/stopped_m.png" | od -An -c | grep -q "P   N   G"

# A run whose solves failed (PGS held to 2 sweeps, failures integrated): the title says how
# many steps failed and the first (it read as a clean run), its third line clear of the
# top panels (a third title line overlapped their titles).
rc=0; ./lcpsim data/box_stack_3d.json --steps 30 --solver pgs --max-iter 2 --on-failure continue \
  -o "$tmp/failed.h5" --quiet 2> /dev/null || rc=$?
[ $rc -eq 1 ] || { echo "plots_animations: the failing run exited $rc" >&2; exit 1; }
$PY - "$tmp/failed.h5" <<'PYEOF'
import sys
sys.path.insert(0, "scripts")
import lcpsim_load, lcpsim_plot
r = lcpsim_load.load(sys.argv[1])
fig = lcpsim_plot.plot(r, None)
title = fig._suptitle.get_text()
assert title.endswith("\n30 of 30 steps failed (solver status < 0), the first: step 1, ending at "
                      "t = 0.01 s; red ticks on the time axes"), title
# Each failed step is a red tick on every panel's time axis, at the time its step ended
# (the title alone had said that steps failed, not where).
import numpy as np
k = lcpsim_plot.failed_steps(r)
assert list(k) == list(range(1, 31)), k
for a in fig.axes:
    ticks = [c for c in a.collections if c.get_color().tolist() == [[1.0, 0.0, 0.0, 1.0]]]
    assert len(ticks) == 1, (a.get_ylabel(), len(ticks))
    xs = sorted(seg[0][0] for seg in ticks[0].get_segments())
    assert np.array_equal(xs, r.time[1:31]), (a.get_ylabel(), xs[:3])
inv = fig.transFigure.inverted()
bottom = fig._suptitle.get_window_extent().transformed(inv).y0
tops = [a.get_tightbbox().transformed(inv).y1 for a in fig.axes]
assert max(tops) < bottom, (max(tops), bottom)
lims = [a.get_ylim() for a in fig.axes]
r.summary.failures = 0
assert "failed" not in lcpsim_plot.title_of(r, None)
r.solver.status[:] = 0  # a clean run: no tick
fig = lcpsim_plot.plot(r, None)
assert not any(c.get_color().tolist() == [[1.0, 0.0, 0.0, 1.0]] for a in fig.axes for c in a.collections)
# the ticks leave the panels' scales alone (drawn as vlines, their axes fractions had
# counted as data: the dominoes' y panel of +-2 mm grew to 5 cm)
# (panels with a legend inside left out: its room above the data follows the title's height)
same = [(a.get_ylim(), lim) for a, lim in zip(fig.axes, lims) if a.get_legend() is None]
assert len(same) >= 6 and all(x == y for x, y in same), same
print("failed steps named in the title, clear of the panels: ok")
PYEOF
octave-cli -H --no-window-system --eval "addpath('scripts'); lcpsim_plot('$tmp/failed.h5', '$tmp/failed_m.png');" > /dev/null
head -c 8 "$tmp/failed_m.png" | od -An -c | grep -q "P   N   G"
# Octave's figure too: the failed steps as pure red ticks (no series is drawn in pure
# red), none on a clean run's; its title on lines of their own, clear of the figure's
# edges (on one line a failed run's title ran past both edges).
octave-cli -H --no-window-system --eval "addpath('scripts'); lcpsim_plot('$tmp/incline_2d.h5', '$tmp/clean_m.png');" > /dev/null
$PY - "$tmp/failed_m.png" "$tmp/clean_m.png" <<'PYEOF'
import sys
import matplotlib.image as mi
import numpy as np
def red(path):
    a = mi.imread(path)[:, :, :3]
    return int(np.sum((a[:, :, 0] > 0.95) & (a[:, :, 1] < 0.05) & (a[:, :, 2] < 0.05)))
assert red(sys.argv[1]) > 100 and red(sys.argv[2]) == 0, (red(sys.argv[1]), red(sys.argv[2]))
a = mi.imread(sys.argv[1])[:, :, :3]
band = a[:60].min(axis=2) < 0.5  # dark title text in the top 60 pixels
cols = np.flatnonzero(band.any(axis=0))
assert cols.size and cols[0] > 20 and cols[-1] < a.shape[1] - 20, (cols[:1], cols[-1:], a.shape)
print("Octave: failed steps as red ticks, the title within the figure: ok")
PYEOF

# Octave's panels leave 5 % of the data's span above and below it, as matplotlib's do: a
# series at the data's edge (a body resting at x = -1 while another moves up to 1, an
# impulse or energy at 0) lay on the panel's frame, hidden by it (17 such lines in a 3-D
# run of five bodies). The figure is kept open (close() shadowed) and every series
# checked against its panel's limits; the markers that span a panel on purpose (failed
# steps' ticks, impact times, a tether's length) are not series.
mkdir -p "$tmp/keep_open"
printf 'function close(varargin)\nend\n' > "$tmp/keep_open/close.m"
for run in incline_2d failed; do
  octave-cli -H --no-window-system --eval "addpath('scripts'); addpath('$tmp/keep_open');
    lcpsim_plot('$tmp/$run.h5', '$tmp/edge_m.png'); n = 0; bad = 0;
    for a = findall(0, 'type', 'axes')'
      yl = get(a, 'ylim');
      for l = findall(a, 'type', 'line')'
        y = get(l, 'ydata'); y = y(isfinite(y));
        if numel(y) < 3 || max(y) == min(y) || strcmp(get(l, 'tag'), 'failed_step'); continue; end
        n = n + 1;
        if min(y) <= yl(1) || max(y) >= yl(2)
          bad = bad + 1;
          printf('on the frame: %s [%g %g], limits [%g %g]\n', get(get(a, 'ylabel'), 'string'), min(y), max(y), yl(1), yl(2));
        end
      end
    end
    printf('series %d, on the frame %d\n', n, bad);" > "$tmp/oct_edge.txt" 2>&1
  grep -q "^series [1-9][0-9]*, on the frame 0$" "$tmp/oct_edge.txt" ||
    { echo "plots_animations: Octave's $run figure: $(cat "$tmp/oct_edge.txt")" >&2; exit 1; }
done
echo "Octave: no series on a panel's frame: ok"

# An event-driven run's impacts: dotted lines at their times in the contact panel, which
# keeps the scale of its persistent contacts' impulses (0.0098 N*s a period at rest).
./lcpsim data/bouncing_ball_events.json -o "$tmp/events.h5" --quiet
$PY - "$tmp/events.h5" <<'PYEOF'
import sys
import numpy as np
sys.path.insert(0, "scripts")
import lcpsim_load, lcpsim_plot
r = lcpsim_load.load(sys.argv[1])
fig = lcpsim_plot.plot(r, None)
c = [a for a in fig.axes if a.get_ylabel() == "contact impulse\nper period [N*s]"][0]
kinds = [str(k) for k in r.events.kind_legend]
t_imp = np.asarray(r.events.time)[np.asarray(r.events.kind) == kinds.index("impact")]
assert len(t_imp) == 29, len(t_imp)
marks = [col for col in c.collections if len(col.get_segments()) == len(t_imp)]
assert len(marks) == 1 and np.array_equal([s[0][0] for s in marks[0].get_segments()], t_imp)
assert any("the 29 impacts (dotted) are in /events" in t.get_text() for t in c.texts)
assert c.get_ylim()[1] < 0.02, c.get_ylim()
print("event-driven: impacts dotted at their times, the panel's scale kept: ok")
PYEOF

# A scene named in 20000 characters (on two lines): every figure's title holds it on one
# line cut to 100 characters (the renderer overflowed on the whole name: exit 1).
$PY -c "
import json, sys
json.dump({'lcpsim': 1, 'name': 'n' * 10000 + '\\n' + 'm' * 10000, 'time_step': 0.1, 'steps': 3,
           'bodies': [{}]}, open(sys.argv[1], 'w'))" "$tmp/long_name.json"
./lcpsim "$tmp/long_name.json" -o "$tmp/long_name.h5" --quiet
$PY scripts/lcpsim_plot.py "$tmp/long_name.h5" -o "$tmp/long_name.png"
$PY scripts/lcpsim_animate.py "$tmp/long_name.h5" -o "$tmp/long_name_frames/%02d.png" --dpi 40 > /dev/null
$PY - "$tmp/long_name.h5" <<'PYEOF'
import sys
sys.path.insert(0, "scripts")
import lcpsim_load, lcpsim_plot
first = lcpsim_plot.title_of(lcpsim_load.load(sys.argv[1]), None).split("\n")[0]
assert len(first) == 100 and first.endswith("...") and "\n" not in first, first
print("a 20000-character scene name: titles of 100 characters: ok")
PYEOF
octave-cli -H --no-window-system --eval "addpath('scripts'); lcpsim_plot('$tmp/long_name.h5', '$tmp/long_name_m.png');" > /dev/null

# 3-D animation of the dominoes (1.1 m of x, 0.4 m of y, 0.45 m of z in the box): tick
# labels of no axis overlap (the short axes had as many ticks as x, printed over each
# other), and each axis keeps at least 2 ticks.
./lcpsim data/dominoes_10.json --steps 20 -o "$tmp/dominoes.h5" --quiet
$PY - "$tmp/dominoes.h5" <<'PYEOF'
import sys
sys.path.insert(0, "scripts")
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import lcpsim_load, lcpsim_animate
r = lcpsim_load.load(sys.argv[1])
sc = lcpsim_animate.Scene(r)
lim = sc.limits([0, 20])
fig = plt.figure(figsize=(6, 6), dpi=100)
ax = fig.add_subplot(111, projection="3d")
lcpsim_animate.draw_3d(ax, sc, 20, lim)
fig.canvas.draw()
rend = fig.canvas.get_renderer()
for name, axis, (lo, hi) in zip("xyz", (ax.xaxis, ax.yaxis, ax.zaxis), lim):
    labels = [t.label1 for t in axis.get_major_ticks()
              if t.label1.get_visible() and t.label1.get_text() and lo <= t.get_loc() <= hi]
    boxes = [l.get_window_extent(rend) for l in labels]
    assert len(boxes) >= 2, (name, len(boxes))
    for a, b in zip(boxes, boxes[1:]):
        assert not a.overlaps(b), (name, [l.get_text() for l in labels])
print("3-D animation: tick labels of x, y, z apart: ok")
PYEOF

# The frames as written (lcpsim_animate.render, 6 inches at 100 dpi) of the dominoes and
# of the rolling ball (3 m of x): no ink in the image's outer 4 pixels (the dominoes' z
# label was cut at the right edge, the ball's panes at the left one), and no axis label
# over a tick label (the dominoes' 'x [m]' lay over '0.4').
./lcpsim data/ball_roll_3d.json --steps 20 -o "$tmp/ball_roll.h5" --quiet
for run in dominoes ball_roll; do
$PY - "$tmp/$run.h5" "$tmp/$run" <<'PYEOF' || fail "3-D frames of $run: cut at an edge or labels over ticks"
import sys
import numpy as np
from PIL import Image
sys.path.insert(0, "scripts")
import lcpsim_load, lcpsim_animate
plt = lcpsim_animate.plt
plt.close = lambda *a: None  # the frames' figure kept to read its texts
r = lcpsim_load.load(sys.argv[1])
assert lcpsim_animate.render(r, sys.argv[2] + "%d.png", every=10 ** 6, dpi=100) == 2
fig = plt.figure(plt.get_fignums()[-1])
ax = fig.axes[0]
rend = fig.canvas.get_renderer()
for k in (0, 1):
    a = np.asarray(Image.open(sys.argv[2] + f"{k}.png").convert("L")).astype(int)
    edges = [int((a[:, :4] < 128).sum()), int((a[:, -4:] < 128).sum()),
             int((a[:4] < 128).sum()), int((a[-4:] < 128).sum())]
    assert edges == [0, 0, 0, 0], (k, edges)  # left, right, top, bottom
for axis, (lo, hi) in zip((ax.xaxis, ax.yaxis, ax.zaxis), (ax.get_xlim(), ax.get_ylim(), ax.get_zlim())):
    lab = axis.label.get_window_extent(rend)
    for t in axis.get_major_ticks():
        if t.label1.get_visible() and t.label1.get_text() and lo <= t.get_loc() <= hi:
            assert not lab.overlaps(t.label1.get_window_extent(rend)), (axis.label.get_text(), t.label1.get_text())
print(f"3-D frames of {sys.argv[1].split('/')[-1]}: within the image, labels clear of the ticks: ok")
PYEOF
done

# 1-D animation, and both plot scripts on every run (PNG written, Octave without error).
$PY scripts/lcpsim_animate.py "$tmp/two_blocks.h5" -o "$tmp/one_d/%02d.png" --dpi 40 > /dev/null
[ -s "$tmp/one_d/00.png" ] && [ -s "$tmp/one_d/03.png" ]
for s in hanging_box double_pendulum incline_2d two_blocks; do
  $PY scripts/lcpsim_plot.py "$tmp/$s.h5" -o "$tmp/${s}_py.png"
  head -c 8 "$tmp/${s}_py.png" | od -An -c | grep -q "P   N   G"
done
octave-cli -H --no-window-system --eval "
  addpath('scripts');
  for s = {'hanging_box', 'double_pendulum', 'two_blocks'}
    lcpsim_plot(['$tmp/' s{1} '.h5'], ['$tmp/' s{1} '_m.png']);
  end" > /dev/null
for s in hanging_box double_pendulum two_blocks; do
  head -c 8 "$tmp/${s}_m.png" | od -An -c | grep -q "P   N   G"
done
echo "1-D animation, Python and Octave figures written: ok"

# A GIF's memory does not grow with its frames: they are written as they are drawn.
# matplotlib's PillowWriter held each frame as RGBA until the end (5000 frames of the
# bouncing ball: 2.5 GB within 3 minutes). Here 13 frames of 1200 x 1200 pixels (dpi 200),
# 5.8 MB each: held, they took 84 MB above a 2-frame warm-up run's peak; written as drawn,
# 6 MB. Bound 30 MB: under half of what 12 held frames take (69 MB), above the warm-up's
# one-frame buffers and the allocator's slack. The frames are the states drawn, to the
# GIF's 256 colours a frame (PNG frames of the same states: mean difference 1 of 255).
./lcpsim data/bouncing_ball.json --steps 400 -o "$tmp/ball.h5" --quiet
$PY - "$tmp" <<'PYEOF'
import resource, sys
import numpy as np
from PIL import Image
sys.path.insert(0, "scripts")
import lcpsim_load, lcpsim_animate
d = sys.argv[1]
r = lcpsim_load.load(f"{d}/ball.h5")
peak = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # MB (Linux: KiB)
assert lcpsim_animate.render(r, f"{d}/warm.gif", every=10 ** 6, dpi=200) == 2
base = peak()
n = lcpsim_animate.render(r, f"{d}/ball.gif", every=36, dpi=200)  # states 0, 36, ..., 396, 400
grow = peak() - base
assert n == 13 and grow < 30.0, (n, grow)
lcpsim_animate.render(r, f"{d}/ends%d.png", every=10 ** 6, dpi=200)  # states 0 and 400
g = Image.open(f"{d}/ball.gif")
# Real time: a frame each 36 steps of 1 ms, 36 ms, stored in hundredths of a second: 40 ms;
# loop 0 (for ever).
assert g.n_frames == 13 and g.info["duration"] == 40 and g.info["loop"] == 0, (g.n_frames, g.info)
for i, frame in ((0, 0), (1, 12)):
    g.seek(frame)
    a = np.asarray(g.convert("RGB")).astype(int)
    b = np.asarray(Image.open(f"{d}/ends{i}.png").convert("RGB")).astype(int)
    # 256 colours a frame: anti-aliased edges move by a few levels; 3 of 255 on average
    # would be a wrong frame or palette (measured: 1.0).
    assert a.shape == b.shape == (1200, 1200, 3) and np.abs(a - b).mean() < 3.0, (frame, np.abs(a - b).mean())
print(f"GIF written frame by frame: peak memory {grow:.1f} MB above a 2-frame run for 13 frames, "
      "frames as drawn: ok")
PYEOF
# Frames closer than 0.02 s of the run (--every 4 at 1 ms: 250 a second) play slower than
# real time at the 50 fps cap: a note names the factor (5) and the stride that plays in real
# time (20); frames 0.02 s apart (--every 20) play at 50 fps with no note.
$PY scripts/lcpsim_animate.py "$tmp/ball.h5" -o "$tmp/slow.gif" --every 4 --dpi 20 2> "$tmp/slow.err" ||
  fail "animate --every 4: $(cat "$tmp/slow.err")"
grep -q "^lcpsim_animate: note: 101 frames at 50 fps play 5 times slower than the run; --every 20 plays in real time$" "$tmp/slow.err" ||
  fail "slow GIF note: $(cat "$tmp/slow.err")"
$PY scripts/lcpsim_animate.py "$tmp/ball.h5" -o "$tmp/real.gif" --every 20 --dpi 20 2> "$tmp/real.err" ||
  fail "animate --every 20: $(cat "$tmp/real.err")"
[ ! -s "$tmp/real.err" ] || fail "real-time GIF: $(cat "$tmp/real.err")"
# Without --every a GIF or MP4 takes the stride that plays in real time at its frame rate:
# the 400 steps of 1 ms at 50 fps one state in 20 (21 frames, 20 ms each), asked for 10 fps
# one in 100 (5 frames, 100 ms each), each with a note; a PNG sequence every state. Every
# state was drawn (401 frames, 20 times slower than the run at 50 fps, 100 times at 10 fps;
# a run of 10 000 steps took over 5 minutes).
$PY scripts/lcpsim_animate.py "$tmp/ball.h5" -o "$tmp/auto.gif" --dpi 20 2> "$tmp/auto.err" ||
  fail "animate, default stride: $(cat "$tmp/auto.err")"
grep -q "^lcpsim_animate: note: 21 frames, one state in 20 of 401 (real time at 50 fps); --every 1 draws them all$" "$tmp/auto.err" ||
  fail "default stride note: $(cat "$tmp/auto.err")"
$PY scripts/lcpsim_animate.py "$tmp/ball.h5" -o "$tmp/auto10.gif" --fps 10 --dpi 20 2> "$tmp/auto10.err" ||
  fail "animate --fps 10: $(cat "$tmp/auto10.err")"
$PY scripts/lcpsim_animate.py "$tmp/ball.h5" -o "$tmp/all/%03d.png" --dpi 10 > /dev/null 2>&1 ||
  fail "animate, PNG sequence"
[ "$(ls "$tmp/all" | wc -l)" -eq 401 ] || fail "PNG sequence: $(ls "$tmp/all" | wc -l) frames, not 401"
$PY - "$tmp/auto.gif" "$tmp/auto10.gif" <<'PYEOF' || fail "default stride: frames"
import sys
from PIL import Image
for path, frames, ms in ((sys.argv[1], 21, 20), (sys.argv[2], 5, 100)):
    g = Image.open(path)
    assert g.n_frames == frames and g.info["duration"] == ms, (path, g.n_frames, g.info)
print("GIF without --every: one state in 20 at 50 fps, one in 100 at --fps 10, a PNG "
      "sequence every state: ok")
PYEOF

# Octave's legends beside the panels fit whatever the names: a column's legend room is as
# wide as its longest line (a fixed 150 px cut names of more than about 24 characters at
# the figure's right edge and wrote the left column's over the right column's axes), and
# an event-driven run's note on its one impact ('1 impact (dotted): /events', which ran
# off the edge). Checked in the pixels: the image's last 3 columns and its middle 3
# (between the two columns, below the title) hold no ink. Python's figure says "the 1
# impact (dotted) is in /events".
$PY -c "
import json, sys
n = ['left_wheel_of_the_experimental_cart_prototype', 'right_wheel_of_the_experimental_cart_prototyp']
json.dump({'lcpsim': 1, 'dimension': 2, 'time_step': 0.01, 'steps': 20, 'gravity': [0, -9.81],
           'bodies': [{'name': 'ground', 'type': 'static', 'shapes': [{'type': 'plane'}]},
                      {'name': n[0], 'mass': 1, 'position': [0, 0.1], 'velocity': [1, 0],
                       'shapes': [{'type': 'sphere', 'radius': 0.1}]},
                      {'name': n[1], 'mass': 1, 'position': [1, 0.1],
                       'shapes': [{'type': 'sphere', 'radius': 0.1}]}],
           'tethers': [{'name': 'rope_between_the_two_wheels_of_the_prototype', 'length': 1.2,
                        'ends': [{'body': n[0]}, {'body': n[1]}]}]}, open(sys.argv[1], 'w'))" "$tmp/names.json"
./lcpsim "$tmp/names.json" -o "$tmp/names.h5" --quiet
./lcpsim data/newtons_cradle.json -o "$tmp/cradle.h5" --quiet
octave-cli -H --no-window-system --eval "addpath('scripts');
  lcpsim_plot('$tmp/names.h5', '$tmp/names_m.png'); lcpsim_plot('$tmp/cradle.h5', '$tmp/cradle_m.png');" > /dev/null
$PY - "$tmp" <<'PYEOF' || fail "Octave legends cut or over the axes"
import sys
import numpy as np
from PIL import Image
sys.path.insert(0, "scripts")
import lcpsim_load, lcpsim_plot
d = sys.argv[1]
for name in ("names_m", "cradle_m"):
    a = np.asarray(Image.open(f"{d}/{name}.png").convert("L")).astype(int)
    h, w = a.shape
    edge = int((a[:, -3:] < 200).sum())             # ink in the last 3 columns
    middle = int((a[70:, w // 2 - 1:w // 2 + 2] < 200).sum())  # between the columns
    assert edge == 0 and middle == 0, (name, w, edge, middle)
fig = lcpsim_plot.plot(lcpsim_load.load(f"{d}/cradle.h5"), None)
texts = [t.get_text() for a in fig.axes for t in a.texts]
assert any("the 1 impact (dotted) is in /events" in t for t in texts), texts
# The note covers no data nor another note: the cradle's contact panel is flat at 0 (its
# persistent contacts' impulses are round-off), where the note at mid-height lay across
# the line.
fig.canvas.draw()
for a in fig.axes:
    for t in a.texts:
        if t.get_gid() == "events_note":
            box = t.get_window_extent()
            assert not lcpsim_plot.covers_data(a, box), t.get_position()
            assert not any(box.overlaps(o.get_window_extent()) for o in a.texts if o is not t)
print("Octave legends of long names and the impact note within the figure, between its "
      "columns; Python's note clear of the data: ok")
PYEOF

# A checkpoint of the library (lsim_sim_save: one state, the step it was taken after in
# /checkpoint/step) is drawn as that state, not as a run of 0 steps without contacts: the
# title names the checkpoint's step and time, the contact panel says a checkpoint holds no
# step's contacts (the title said '0 steps' and the panel 'no contacts in this run' for a
# stack resting on its contacts). Octave draws it too.
PYTHONPATH=python $PY - "$tmp" <<'PYEOF' || fail "checkpoint figure"
import sys
sys.path.insert(0, "scripts")
import lcpsim, lcpsim_load, lcpsim_plot
d = sys.argv[1]
sim = lcpsim.Sim.load("data/box_stack_3d.json")
sim.run(34)
sim.save(f"{d}/ck.h5")
sim.close()
r = lcpsim_load.load(f"{d}/ck.h5")
title = lcpsim_plot.title_of(r, None)
assert "checkpoint: the state after step 34 (t = 0.34 s), no steps" in title, title
fig = lcpsim_plot.plot(r, None)
texts = [t.get_text() for a in fig.axes for t in a.texts]
assert "a checkpoint holds no step's contacts" in texts and "no contacts in this run" not in texts, texts
print("a checkpoint drawn as the state after its step: ok")
PYEOF
octave-cli -H --no-window-system --eval "addpath('scripts'); lcpsim_plot('$tmp/ck.h5', '$tmp/ck_m.png');" > /dev/null
head -c 8 "$tmp/ck_m.png" | od -An -c | grep -q "P   N   G"

# A run killed before its first flush of steps (here made by hand: a 5-step run of the
# dominoes without /summary, /flushed_rows 1): its one state drawn, the contact panel
# saying the file holds no step (it said 'no contacts in this run' of dominoes standing on
# the ground), Octave's too; lcpsim_load.py's summary says the wall time was not recorded
# (it printed 'wall time nan s').
./lcpsim data/dominoes_10.json --steps 5 -o "$tmp/d5.h5" --quiet
$PY - "$tmp/d5.h5" "$tmp/d5k.h5" <<'PYEOF' || fail "a killed run's figure"
import sys
import h5py
import numpy as np
sys.path.insert(0, "scripts")
with h5py.File(sys.argv[1], "r") as src, h5py.File(sys.argv[2], "w") as dst:
    for k in src:
        if k != "summary":
            src.copy(k, dst)
    del dst["flushed_rows"]
    dst["flushed_rows"] = np.int64(1)
import lcpsim_load, lcpsim_plot
r = lcpsim_load.load(sys.argv[2])
assert len(r.time) == 1 and r.summary.run_end == "unfinished"
fig = lcpsim_plot.plot(r, None)
texts = [t.get_text() for a in fig.axes for t in a.texts]
assert "no step recorded: no contacts to show" in texts and "no contacts in this run" not in texts, texts
print("a killed run of no step: its contact panel says so: ok")
PYEOF
$PY scripts/lcpsim_load.py "$tmp/d5k.h5" 2> /dev/null > "$tmp/d5k.txt"
grep -q "^wall time not recorded: the file was not closed; solver 0 s over the steps it holds$" "$tmp/d5k.txt" ||
  fail "a killed run's summary: $(grep wall "$tmp/d5k.txt")"
! grep -q nan "$tmp/d5k.txt" || fail "a killed run's summary prints nan: $(grep nan "$tmp/d5k.txt")"
octave-cli -H --no-window-system --eval "addpath('scripts'); addpath('$tmp/keep_open');
  lcpsim_plot('$tmp/d5k.h5', '$tmp/d5k_m.png');
  t = get(findall(0, 'type', 'text'), 'string'); t = t(~cellfun(@isempty, t));
  printf('%s\n', t{:});" 2> /dev/null > "$tmp/d5k_m.txt"
grep -q "^no step recorded: no contacts to show$" "$tmp/d5k_m.txt" ||
  fail "Octave's figure of a killed run of no step: $(grep -i contact "$tmp/d5k_m.txt")"

# Ten bodies drawn, ten dashes: in every panel of the pile of 100 (its first 10 bodies)
# no two labelled series share a dash pattern (with 4 dashes, bodies 1, 5 and 9 were solid
# in blue, purple and olive, colours a colour-blind reader confuses).
./lcpsim data/pile_100.json --steps 30 -o "$tmp/pile100.h5" --quiet
$PY - "$tmp/pile100.h5" <<'PYEOF' || fail "series alike in dash"
import sys
sys.path.insert(0, "scripts")
import lcpsim_load, lcpsim_plot
fig = lcpsim_plot.plot(lcpsim_load.load(sys.argv[1]), None)
n = 0
for a in fig.axes:
    lines = [l for l in a.get_lines() if not l.get_label().startswith("_")]
    dashes = [repr(l._unscaled_dash_pattern) for l in lines]
    assert len(set(dashes)) == len(dashes), (a.get_ylabel(), dashes)
    n = max(n, len(lines))
assert n == 10, n
print("ten series of a panel, ten dashes: ok")
PYEOF
# Octave's figure of it: 4 dashes only (gnuplot), a marker from the 5th series on, each
# series' (colour, dash, marker) its own, and its legend name says the dash and marker.
octave-cli -H --no-window-system --eval "addpath('scripts'); addpath('$tmp/keep_open');
  lcpsim_plot('$tmp/pile100.h5', '$tmp/pile100_m.png');
  for b = findall(0, 'type', 'axes')'
    if strcmp(get(get(b, 'ylabel'), 'string'), 'vx [m/s]'), a = b; end
  end
  keys = {};
  for l = findall(a, 'type', 'line')'
    k = sprintf('%.3f %.3f %.3f', get(l, 'color'));
    keys{end + 1} = sprintf('%s %s %s', k, get(l, 'linestyle'), get(l, 'marker'));
  end
  t = get(findall(a, 'type', 'text'), 'string');
  printf('%s\n', t{:});
  by = {};
  for i = 1:numel(keys)
    c = keys{i}(1:17);  % a colour's line and its markers: one series
    j = find(strcmp(by, c));
    if isempty(j), by{end + 1} = c; end
  end
  printf('series %d\n', numel(by));" 2> /dev/null > "$tmp/pile100_m.txt"
grep -q "^sphere_0_1_0 (-- o)$" "$tmp/pile100_m.txt" && grep -q "^sphere_0_0_4 (o)$" "$tmp/pile100_m.txt" &&
  grep -q "^sphere_0_0_0$" "$tmp/pile100_m.txt" && grep -q "^series 10$" "$tmp/pile100_m.txt" ||
  fail "Octave's styles of 10 series: $(cat "$tmp/pile100_m.txt")"
echo "Octave: ten series, a marker from the fifth on, named in the legend: ok"
