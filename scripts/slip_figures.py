#!/usr/bin/python3
"""The SLIP runner's figures, computed by lcpsim (docs/hybrid.md):

  slip_return_map.png  the apex return map y_{n+1} against y_n at fixed touchdown angles
                       (td_policy 1), the total energy held at that of data/slip.json
  slip_stride.png      one stride of data/slip.json, the body's path coloured by chart,
                       the leg at touchdown, bottom and liftoff

    /usr/bin/python3 scripts/slip_figures.py [--lcpsim ./lcpsim] [--out docs/figures]

Each return-map point is one lcpsim run of a scene written here: the runner starts at
the apex y_n (descent, ydot = 0, xdot from the energy) and the next ascent -> descent
transition is the apex y_{n+1}. A runner that falls (stops) or takes no stride leaves
no point.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import lcpsim_load  # noqa: E402
from lcpsim_hybrid_plot import COLORS  # noqa: E402

M, G, K = 50.48, 10.0, 1000.0          # the manual's defaults (data/slip.json)
CHARTS = ["ascent", "descent", "compression", "decompression"]


def run(lcpsim, scene, tmp, name):
    """Writes the scene, runs lcpsim on it, returns the loaded run (or None)."""
    path = os.path.join(tmp, name + ".json")
    with open(path, "w") as f:
        json.dump(scene, f)
    out = os.path.join(tmp, name + ".h5")
    p = subprocess.run([lcpsim, path, "-o", out, "--quiet"], capture_output=True, text=True)
    if p.returncode not in (0, 1):
        raise RuntimeError(f"lcpsim failed on {path}: {p.stderr.strip()}")
    return lcpsim_load.load(out)


def next_apex(lcpsim, tmp, y0, energy, angle, k):
    """The apex after one stride from the apex y0 at touchdown angle `angle`, or NaN."""
    v2 = 2 * (energy - M * G * y0) / M
    if v2 <= 0 or y0 <= np.cos(angle):
        return np.nan
    scene = {"lcpsim": 1, "name": "SLIP apex return map point",
             "hybrid": {"model": "slip",
                        "parameters": {"td_policy": 1, "td_angle": angle},
                        "initial": {"x": 0.0, "y": y0, "xdot": float(np.sqrt(v2)),
                                    "ydot": 0.0, "touchdown_angle": angle},
                        "final_time": 2.0, "max_chart_count": 8}}
    r = run(lcpsim, scene, tmp, f"map{k}")
    ev = r.events
    for j in range(len(ev.time)):
        if ev.from_chart[j] == 0 and ev.to_chart[j] == 1:   # ascent -> descent
            return float(ev.state_before[j, 1])
    return np.nan


def return_map(lcpsim, tmp, energy, out):
    angles = [0.09, 0.10, 0.1152, 0.13, 0.14]
    ys = np.linspace(1.0, 1.175, 36)
    fig, ax = plt.subplots(figsize=(6.2, 5.6))
    k = 0
    for i, a in enumerate(angles):
        nxt = []
        for y in ys:
            nxt.append(next_apex(lcpsim, tmp, y, energy, a, k))
            k += 1
        nxt = np.array(nxt)
        ax.plot(ys, nxt, "-", marker=".", ms=4, color=COLORS[i],
                label=f"touchdown angle {a:.4g} rad ({np.degrees(a):.1f} deg)")
    ax.plot(ys, ys, "k--", lw=0.8, label="y$_{n+1}$ = y$_n$")
    ax.set_xlabel("apex height y$_n$ [m]")
    ax.set_ylabel("next apex height y$_{n+1}$ [m]")
    ax.set_title(f"SLIP apex return map at E = {energy:.2f} J (m = {M} kg, k = {K:g} N m^3, "
                 "air spring)", fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    try:
        lcpsim_load.save_figure(fig, out, dpi=120)
    except OSError as e:  # (a full disk: nothing cut left under the name)
        sys.exit(f"slip_figures: {out}: cannot write: {e.strerror or e}")
    plt.close(fig)


def stride(r, out):
    """The stride from the first liftoff to the second, coloured by chart."""
    ev = r.events
    lift = [ev.time[j] for j in range(len(ev.time)) if ev.from_chart[j] == 3]
    t0, t1 = lift[0], lift[1]
    fig, ax = plt.subplots(figsize=(7.5, 6.2))
    keep = (r.time >= t0) & (r.time <= t1)
    x, y, c = r.state_of("x")[keep], r.state_of("y")[keep], r.chart[keep]
    for ch in range(4):
        sel = np.where(c == ch, y, np.nan)
        ax.plot(x, sel, lw=3.5, color=COLORS[ch], label=CHARTS[ch], solid_capstyle="butt")
    # The leg at the stride's touchdown, bottom and liftoffs; each transition labelled
    # with its boundary (the boundary named by the chart it ends).
    names = {0: "apex", 1: "touchdown", 2: "bottom", 3: "liftoff"}
    # touchdown's label above and right of its point (below and left, it had sat under the
    # first liftoff's point, as if it were that point's)
    offsets = {0: (0, 10), 1: (6, 16), 2: (8, -14), 3: (8, 4)}
    for j in range(len(ev.time)):
        if not (t0 - 1e-12 <= ev.time[j] <= t1 + 1e-12):
            continue
        f = int(ev.from_chart[j])
        s = ev.state_before[j]
        ax.plot(s[0], s[1], "ko", ms=4, zorder=3)
        if f in (1, 2, 3):
            fx, fy = (ev.state_after[j][4], ev.state_after[j][5]) if f == 1 else (s[4], s[5])
            ax.plot([fx, s[0]], [fy, s[1]], color="0.35", lw=1.2)
            ax.plot(fx, fy, "^", color="0.3", ms=7)
        first = f == 3 and ev.time[j] < t0 + 1e-9   # the first liftoff: label on the left
        ax.annotate(f"{names[f]}, t = {ev.time[j]:.4f} s", (s[0], s[1]),
                    textcoords="offset points", xytext=(-8, 4) if first else offsets[f],
                    fontsize=8,
                    ha="right" if first else "center" if f == 0 else "left")
    ax.axhline(0, color="k", lw=0.8)
    ax.set_aspect("equal")
    ax.set_xlim(-0.3, 1.05)
    ax.set_ylim(-0.05, 1.3)
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.set_title("One SLIP stride of data/slip.json (liftoff to liftoff): the body's path\n"
                 "coloured by chart, the leg (grey, toe triangle) at liftoff, touchdown and "
                 "bottom", fontsize=9)
    ax.legend(fontsize=8, ncol=2, loc="upper right")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    try:
        lcpsim_load.save_figure(fig, out, dpi=120)
    except OSError as e:  # (a full disk: nothing cut left under the name)
        sys.exit(f"slip_figures: {out}: cannot write: {e.strerror or e}")
    plt.close(fig)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lcpsim", default=os.path.join(HERE, "..", "lcpsim"))
    ap.add_argument("--out", default=os.path.join(HERE, "..", "docs", "figures"))
    ap.add_argument("--stride-only", action="store_true", help="skip the return map")
    a = ap.parse_args(argv[1:])
    os.makedirs(a.out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(HERE, "..", "data", "slip.json")) as f:
            scene = json.load(f)
        r = run(a.lcpsim, scene, tmp, "slip")
        energy = float(r.output("energy")[0])
        stride(r, os.path.join(a.out, "slip_stride.png"))
        if not a.stride_only:
            return_map(a.lcpsim, tmp, energy, os.path.join(a.out, "slip_return_map.png"))
    print(f"wrote {a.out}/slip_stride.png"
          + ("" if a.stride_only else f", {a.out}/slip_return_map.png"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
