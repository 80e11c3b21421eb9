#!/usr/bin/python3
"""Time per step against N, from CSV files: one line per point, `series,N,ms_per_step`
(lines starting with # are comments; a header line `series,N,ms_per_step` is allowed).
Every series is drawn on log-log axes with its least-squares log-log slope over
N = FIT_MIN .. FIT_MAX (the points in that range, at least two) in the legend, and with
reference lines of slope 1 and 1.1 through the first series' point nearest FIT_MIN.
Prints each series' slope. Series from several files are drawn together, so a series
measured later (another solver) is added with one more file.

usage: scripts/plot_scaling.py A.csv [B.csv ...] [-o FIGURE.png] [--fit-min 1000]
                              [--fit-max 100000] [--title TEXT]
Writes FIGURE.png (default docs/figures/scaling.png) and the same with .pdf.
"""
import argparse
import csv
import math
import os
import sys

import numpy as np

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lcpsim_load  # noqa: E402 (save_figure: written whole or not at all)


def read_series(paths):
    """{series: [(N, ms), ...]} in the files' order, points sorted by N."""
    out = {}
    for path in paths:
        with open(path, newline="") as f:
            for lineno, row in enumerate(csv.reader(f), 1):
                if not row or row[0].startswith("#") or row[0] == "series":
                    continue
                if len(row) != 3:
                    sys.exit("plot_scaling: %s:%d: need series,N,ms_per_step" % (path, lineno))
                try:
                    n, ms = int(row[1]), float(row[2])
                except ValueError:
                    sys.exit("plot_scaling: %s:%d: N and ms_per_step must be numbers"
                             % (path, lineno))
                if math.isfinite(ms) and ms > 0:
                    out.setdefault(row[0], []).append((n, ms))
    for pts in out.values():
        pts.sort()
    return out


def slope(pts, lo, hi):
    """Least-squares slope of log ms against log N over lo <= N <= hi (NaN: < 2 points)."""
    sel = [(n, t) for n, t in pts if lo <= n <= hi]
    if len(sel) < 2:
        return float("nan")
    x = np.log([n for n, _ in sel])
    y = np.log([t for _, t in sel])
    return float(np.polyfit(x, y, 1)[0])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv", nargs="+")
    ap.add_argument("-o", "--output", default="docs/figures/scaling.png")
    ap.add_argument("--fit-min", type=int, default=1000)
    ap.add_argument("--fit-max", type=int, default=100000)
    ap.add_argument("--title", default="Time per step against the number of bodies")
    a = ap.parse_args()
    series = read_series(a.csv)
    if not series:
        sys.exit("plot_scaling: no points in " + ", ".join(a.csv))

    fig, ax = plt.subplots(figsize=(6.4, 6.0))
    markers = ["o-", "^--", "D-", "s-.", "v-", "P--"]
    nmin = min(n for pts in series.values() for n, _ in pts)
    nmax = max(n for pts in series.values() for n, _ in pts)
    for k, (name, pts) in enumerate(series.items()):
        s = slope(pts, a.fit_min, a.fit_max)
        print("%s: slope %.3f over N = %d .. %d (%d points)"
              % (name, s, a.fit_min, a.fit_max,
                 sum(1 for n, _ in pts if a.fit_min <= n <= a.fit_max)))
        label = name + ("" if math.isnan(s) else " (slope %.2f)" % s)
        if math.isnan(s) and len(pts) > 1:
            # Too few points in the fitted range (a series that stops below it): the
            # slope of its last decade-or-so, between its last two points, said as such.
            (na, ta), (nb, tb) = sorted(pts)[-2:]
            s = math.log(tb / ta) / math.log(nb / na)
            print("%s: slope %.3f between N = %d and %d" % (name, s, na, nb))
            label = name + " (slope %.2f from N = %d to %d)" % (s, na, nb)
        ax.loglog([n for n, _ in pts], [t for _, t in pts], markers[k % len(markers)],
                  label=label, markersize=5)
    # Reference slopes through the first series at the start of the fitted range.
    first = next(iter(series.values()))
    n0, t0 = min(first, key=lambda p: abs(math.log(p[0] / a.fit_min)))
    ref = np.array([nmin, nmax], float)
    ax.loglog(ref, t0 * (ref / n0), ":", color="0.35", linewidth=1.2,
              label="slope 1, through the first series at N = %d" % n0)
    ax.loglog(ref, t0 * (ref / n0) ** 1.1, "--", color="0.55", linewidth=1.0, dashes=(6, 3),
              label="slope 1.1, the same point")
    # The fitted range as far as there are points (sizes all below --fit-min had drawn a
    # reversed span beyond the data and said 1000 .. 100000 all the same).
    lo, hi = max(a.fit_min, nmin), min(a.fit_max, nmax)
    if lo < hi:
        ax.axvspan(lo, hi, color="0.95", zorder=0)
        fitted = "slopes fitted over N = %d .. %d (shaded)" % (lo, hi)
    else:
        fitted = ("no two sizes in N = %d .. %d: each slope between\nits series' last two "
                  "points" % (a.fit_min, a.fit_max))
    ax.set_xlabel("bodies N")
    ax.set_ylabel("time per step [ms]")
    ax.set_title(a.title, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.13), frameon=False)
    ax.text(0.02, 0.97, fitted + "\nCPU time, except where the legend says wall time",
            transform=ax.transAxes, ha="left", va="top", fontsize=7.5, color="0.3")
    fig.tight_layout()
    os.makedirs(os.path.dirname(a.output) or ".", exist_ok=True)
    for out, kw in ((a.output, {"dpi": 130}), (os.path.splitext(a.output)[0] + ".pdf", {})):
        try:
            lcpsim_load.save_figure(fig, out, **kw)
        except OSError as e:  # (a full disk: nothing cut left under the name)
            sys.exit(f"plot_scaling: {out}: cannot write: {e.strerror or e}")
    print("wrote", a.output)


if __name__ == "__main__":
    main()
