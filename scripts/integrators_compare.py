#!/usr/bin/python3
"""Time stepping against event-driven integration on three scenes with closed forms.

usage: integrators_compare.py [-o DIR] [--lcpsim PATH] [--steps H1,H2,...] [--quick]

Runs each scene with "integrator": "time_stepping" at every time step h of the list and
with "integrator": "event_driven" (record period 1 ms), measures one quantity per scene
and compares it with its closed form:

Time steps h default to values that do not divide the measured times.

  bouncing ball (data/bouncing_ball.json, e = 0.8, H = 1 m): the first apex after the
      bounce, e^2 H = 0.64 m. Time stepping: the highest recorded height after the
      bounce; event-driven: y + vy^2 / (2 g) at a sample after the bounce (free flight).
  box sliding to rest (data/box_slide_3d.json, v0 = 2 m/s, mu = 0.4): the stop time
      v0 / (mu g). Time stepping: the end of the first step whose speed is below 1e-9
      m/s; event-driven: the time of the first "stick" event.
  rope snapping taut (data/pendulum_thrown.json): the time the ballistic path reaches
      the rope's length (a root of |p(t)| = L, found by bisection). Time stepping: the
      end of the first step with a tether impulse; event-driven: the first impact event.

Writes DIR/integrators.md (the table and the fitted order of the apex error),
DIR/integrators.csv and DIR/integrators.png (error against h, log-log, with a first-order
reference line and the fitted slope; the event-driven errors at the record period, their
values written beside them). docs/figures/integrators.png is this figure. Time stepping's errors fall linearly with h; event-driven errors are set
by the event precision (1e-10) and CVODE's tolerance, whatever the record period.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import lcpsim_load  # noqa: E402

G = 9.81


def snap_time():
    """Root of |p(t)| = 1 on the ballistic path of pendulum_thrown.json."""
    lo, hi = 0.1, 1.0
    for _ in range(200):
        t = 0.5 * (lo + hi)
        x, y = 0.6 + 0.5 * t, -0.8 + 3.0 * t - 0.5 * G * t * t
        lo, hi = (t, hi) if x * x + y * y < 1.0 else (lo, t)
    return lo


SCENES = [
    {"key": "ball", "file": "bouncing_ball.json", "duration": 1.2,
     "what": "first apex after the bounce (m)", "exact": 0.64},
    {"key": "box", "file": "box_slide_3d.json", "duration": 0.6,
     "what": "stop time (s)", "exact": 2.0 / (0.4 * G)},
    {"key": "rope", "file": "pendulum_thrown.json", "duration": 0.6,
     "what": "snap time (s)", "exact": snap_time()},
]


def run(lcpsim, root, scene, integrator, h, tmp):
    with open(os.path.join(root, "data", scene["file"])) as f:
        d = json.load(f)
    d.pop("duration", None)
    d["time_step"] = h
    d["steps"] = int(np.ceil(scene["duration"] / h - 1e-9))
    d["integrator"] = integrator
    base = os.path.join(tmp, f"{scene['key']}_{integrator}_{h:g}")
    with open(base + ".json", "w") as f:
        json.dump(d, f)
    subprocess.run([lcpsim, base + ".json", "-o", base + ".h5", "--quiet"], check=True)
    return lcpsim_load.load(base + ".h5")


def first_event(r, kind):
    names = [str(n) for n in r.events.kind_legend]
    t = r.events.time[r.events.kind == names.index(kind)]
    return float(t[0])


def measure(scene, r, integrator):
    """The scene's quantity from run r."""
    key = scene["key"]
    if key == "ball":
        y = r.position("ball")[:, 1] - 0.1
        vy = r.velocity("ball")[:, 1]
        up = np.nonzero((vy[:-1] < 0) & (vy[1:] > 0))[0]
        if not len(up):
            raise ValueError("no bounce within the run's %g s" % scene["duration"])
        k = up[0] + 1  # first row after the bounce
        if integrator == "event_driven":
            return float(y[k] + vy[k] ** 2 / (2 * G))
        down = np.nonzero(vy[k:] <= 0)[0]
        end = k + down[0] if len(down) else len(y)
        return float(np.max(y[k:end + 1]))
    if key == "box":
        if integrator == "event_driven":
            return first_event(r, "stick")
        speed = np.linalg.norm(r.velocity("box"), axis=1)
        stop = np.nonzero(speed < 1e-9)[0]
        if not len(stop):
            raise ValueError("the box does not stop within the run's %g s" % scene["duration"])
        return float(r.time[stop[0]])
    if integrator == "event_driven":
        return first_event(r, "impact")
    imp = r.tethers.impulse[:, 0]
    snap = np.nonzero(imp > 0)[0]
    if not len(snap):
        raise ValueError("the rope does not snap taut within the run's %g s" % scene["duration"])
    return float(r.time[1:][snap[0]])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-o", default="out/integrators")
    ap.add_argument("--lcpsim", default=os.path.join(HERE, "..", "lcpsim"))
    # Steps that do not divide the measured times: the time step's stop and snap times
    # are ends of steps, so commensurate steps would all land on the same multiple.
    ap.add_argument("--steps", default="0.0097,0.0051,0.0023,0.0011,0.00053,0.00021,0.0001")
    ap.add_argument("--quick", action="store_true", help="three steps only (tests)")
    a = ap.parse_args()
    # Each h a number > 0, two different ones at least (the fitted slope needs two):
    # "--steps 0" ended in a ZeroDivisionError, "--steps abc" in a ValueError traceback.
    try:
        hs = [float(x) for x in a.steps.split(",")]
    except ValueError:
        ap.error("--steps: need a comma-separated list of time steps in s, got '%s'" % a.steps)
    bad = [h for h in hs if not (np.isfinite(h) and h > 0)]
    if bad:
        ap.error("--steps: every time step must be a finite number > 0, got %g" % bad[0])
    if len(set(hs)) < 2:
        ap.error("--steps: need two different time steps at least (the fitted slope), got '%s'"
                 % a.steps)
    if a.quick:
        hs = [0.0097, 0.0011, 0.00021]
    root = os.path.join(HERE, "..")
    os.makedirs(a.o, exist_ok=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for sc in SCENES:
            for h in hs:
                r = run(a.lcpsim, root, sc, "time_stepping", h, tmp)
                try:
                    v = measure(sc, r, "time_stepping")
                except ValueError as e:
                    print("integrators_compare: %s at h = %g s: %s (take a smaller --steps)"
                          % (sc["file"], h, e), file=sys.stderr)
                    sys.exit(2)
                rows.append((sc["key"], "time_stepping", h, v, v - sc["exact"]))
            r = run(a.lcpsim, root, sc, "event_driven", 0.001, tmp)
            v = measure(sc, r, "event_driven")
            rows.append((sc["key"], "event_driven", 0.001, v, v - sc["exact"]))
    with open(os.path.join(a.o, "integrators.csv"), "w") as f:
        f.write("scene,integrator,h,value,error\n")
        for row in rows:
            f.write("%s,%s,%g,%.15g,%.3e\n" % row)
    with open(os.path.join(a.o, "integrators.md"), "w") as f:
        f.write("| scene | quantity | closed form | integrator | h (s) | value | error |\n|---|---|---|---|---|---|---|\n")
        for sc in SCENES:
            for row in rows:
                if row[0] == sc["key"]:
                    f.write("| %s | %s | %.12g | %s | %g | %.12g | %.2e |\n"
                            % (sc["file"], sc["what"], sc["exact"], row[1], row[2], row[3], row[4]))
        # The order of the time step's apex error: the slope of log |error| against log h.
        ball = [(row[2], abs(row[4])) for row in rows if row[0] == "ball" and row[1] == "time_stepping"]
        slope = np.polyfit(np.log([b[0] for b in ball]), np.log([b[1] for b in ball]), 1)[0]
        f.write("\nFitted slope of log |apex error| against log h (time stepping): %.2f\n" % slope)
    print(open(os.path.join(a.o, "integrators.md")).read())
    figure(rows, os.path.join(a.o, "integrators.png"))
    return rows


def figure(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.6))
    floor = 1e-13
    units = {"ball": "m", "box": "s", "rope": "s"}
    for ax, sc in zip(axes, SCENES):
        ts = [(h, abs(e)) for k, i, h, _, e in rows if k == sc["key"] and i == "time_stepping"]
        ed = [(h, abs(e)) for k, i, h, _, e in rows if k == sc["key"] and i == "event_driven"]
        h = np.array([p[0] for p in ts])
        err = np.array([p[1] for p in ts])
        ax.loglog(h, err, "o-", color="C0", label="time stepping")
        # First order: a line of slope 1 through the ball's first point and the fitted
        # slope of its apex errors; for stop and snap times (ends of steps) the bound h.
        if sc["key"] == "ball":
            slope = np.polyfit(np.log(h), np.log(err), 1)[0]
            ax.loglog(h, err[0] * h / h[0], "k:", label="slope 1 (first order)")
            ax.text(0.04, 0.62, "fitted slope %.2f" % slope, transform=ax.transAxes, fontsize=9)
        else:
            ax.loglog(h, h, "k--", lw=1, label="bound h (time stepping ends on a step)")
        # The event-driven run does not depend on h: its error at its record period, with
        # the value written beside it (0 drawn at the floor).
        for he, ee in ed:
            ax.loglog([he], [max(ee, floor)], "s", color="C3", ms=8,
                      label="event-driven (record period 1 ms)")
            # below the floor: drawn at it, and said so (box_slide_3d's 2.2e-16 s sat at
            # 1e-13 on the axis under a label of 2.2e-16)
            txt = ("%.1e %s" % (ee, units[sc["key"]])) if ee > 0 else "0"
            if ee < floor:
                txt += " (drawn at %.0e)" % floor
            ax.annotate(txt, (he, max(ee, floor)), xytext=(8, 6), textcoords="offset points",
                        fontsize=8, color="C3")
        ax.set_ylim(floor / 3, None)
        ax.set_xlabel("time step h [s]")
        ax.set_ylabel("|error| [%s]" % units[sc["key"]])
        ax.set_title("%s: %s\nclosed form %.6g %s" % (sc["file"].replace(".json", ""), sc["what"].rsplit(" (", 1)[0],
                                                     sc["exact"], units[sc["key"]]), fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
    # One legend under the panels, off the data.
    handles, labels = [], []
    for ax in axes:
        for hd, lb in zip(*ax.get_legend_handles_labels()):
            if lb not in labels:
                handles.append(hd), labels.append(lb)
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=9, frameon=False)
    fig.suptitle("Time stepping against event-driven integration: errors against the closed forms")
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    try:
        lcpsim_load.save_figure(fig, path, dpi=110)
    except OSError as e:  # (a full disk: nothing cut left under the name)
        sys.exit(f"integrators_compare: {path}: cannot write: {e.strerror or e}")


if __name__ == "__main__":
    main()
