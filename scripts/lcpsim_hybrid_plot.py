#!/usr/bin/python3
"""Plot a hybrid-model run (docs/output-format.md, "Hybrid runs"): every state and
output over time, the background shaded by chart, and the chart sequence as a step
line with the transitions marked.

    /usr/bin/python3 scripts/lcpsim_hybrid_plot.py RUN.h5 -o run.png [--states x,y]
        [--outputs energy] [--from T0] [--to T1]
"""
import argparse
import math
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lcpsim_load  # noqa: E402
# Round-off panels drawn flat, as lcpsim_plot's; its style settings are not taken along
# (scripts importing this module keep theirs).
with matplotlib.rc_context():
    from lcpsim_plot import output_problem, tidy  # noqa: E402

COLORS = ["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3",
          "#8c8c8c", "#ccb974", "#64b5cd"]


def chart_spans(r, t0, t1):
    """(start, end, chart) of each epoch within [t0, t1], from the transitions."""
    times = [r.time[0]] + list(r.events.time) + [r.time[-1]]
    charts = [r.model.initial_chart] + list(r.events.to_chart)
    out = []
    for a, b, c in zip(times[:-1], times[1:], charts):
        if b >= t0 and a <= t1:
            out.append((max(a, t0), min(b, t1), int(c)))
    return out


def unit_of(m, kind, name):
    """The unit of a state or output from /model/state_units or output_units ("" when the
    model gives none)."""
    names = list(m.state_names if kind == "state" else m.output_names)
    units = m.get("state_units" if kind == "state" else "output_units")
    return str(units[names.index(name)]) if units is not None and name in names else ""


def scene_name(r):
    """The scene's "name", if the file keeps the scene and it has one."""
    import json
    try:
        name = json.loads(str(r.scene_text)).get("name")
    except (AttributeError, KeyError, ValueError):
        return None
    if not isinstance(name, str):
        return None
    name = " ".join(name.split())  # one line, at most 100 characters in the title
    return name if len(name) <= 100 else name[:97] + "..."


def plot(r, path, states=None, outputs=None, t0=None, t1=None):
    m = r.model
    t0 = r.time[0] if t0 is None else t0
    t1 = r.time[-1] if t1 is None else t1
    keep = (r.time >= t0) & (r.time <= t1)
    states = states or list(m.state_names)
    outputs = outputs if outputs is not None else list(m.output_names)
    rows = [("state", n) for n in states] + [("output", n) for n in outputs]
    fig, axes = plt.subplots(len(rows) + 1, 1, sharex=True,
                             figsize=(9, 1.5 * (len(rows) + 1) + 0.8))
    spans = chart_spans(r, t0, t1)
    used = sorted({c for _, _, c in spans})
    for ax, (kind, name) in zip(axes, rows):
        y = r.state_of(name) if kind == "state" else r.output(name)
        for a, b, c in spans:
            ax.axvspan(a, b, color=COLORS[c % len(COLORS)], alpha=0.12, lw=0)
        ax.plot(r.time[keep], y[keep], color="k", lw=1, ls="-")
        unit = unit_of(m, kind, name)
        ax.set_ylabel(f"{name} [{unit}]" if unit else name, rotation=0, ha="right", va="center")
        ax.grid(alpha=0.3)
        tidy(ax, unit)
    # The chart sequence, with a marker at every transition.
    ax = axes[-1]
    for a, b, c in spans:
        ax.plot([a, b], [c, c], color=COLORS[c % len(COLORS)], lw=3, ls="-", solid_capstyle="butt")
    ev = (r.events.time >= t0) & (r.events.time <= t1)
    ax.plot(r.events.time[ev], r.events.to_chart[ev], "k|", ms=10)
    ax.set_yticks(range(len(m.chart_names)))
    ax.set_yticklabels(m.chart_names)
    ax.set_ylim(-0.5, len(m.chart_names) - 0.5)
    ax.set_xlabel("time [s]")
    ax.grid(alpha=0.3)
    handles = [plt.Rectangle((0, 0), 1, 1, color=COLORS[c % len(COLORS)], alpha=0.4)
               for c in used]
    # The title on its own line, the charts' colours on the next, above the first panel.
    end = r.summary.run_end + (f": {r.summary.run_end_reason}" if r.summary.run_end_reason else "")
    fig.suptitle(f"{scene_name(r) or m.name} (model {m.name}): {r.summary.transitions} "
                 f"transitions, {end}", fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.75 / fig.get_figheight()))
    axes[0].legend(handles, [m.chart_names[c] for c in used], ncol=len(used), fontsize=8,
                   loc="lower left", bbox_to_anchor=(0, 1.02), frameon=False,
                   title="chart (background)", title_fontsize=8, alignment="left")
    lcpsim_load.save_figure(fig, path, dpi=110)
    plt.close(fig)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run")
    ap.add_argument("-o", "--output", required=True, help="figure file (.png, .pdf, .svg)")
    ap.add_argument("--states", help="comma-separated state names (default: all)")
    ap.add_argument("--outputs", help="comma-separated output names (default: all; '' none)")
    ap.add_argument("--from", dest="t0", type=float)
    ap.add_argument("--to", dest="t1", type=float)
    a = ap.parse_args(argv[1:])
    why = output_problem(a.output, a.run)
    if why:
        print(f"lcpsim_hybrid_plot: -o {a.output}: {why}", file=sys.stderr)
        return 2
    try:
        r = lcpsim_load.load(a.run)
    except (OSError, KeyError) as e:
        print(f"lcpsim_hybrid_plot: {a.run}: {e}", file=sys.stderr)
        return 1
    if not isinstance(r, lcpsim_load.HybridRun):
        print(f"lcpsim_hybrid_plot: {a.run} is not a hybrid-model run "
              "(scripts/lcpsim_plot.py draws rigid-body runs)", file=sys.stderr)
        return 1
    # The window: a range holding samples (--from 5 --to 1, or --from past the run's end,
    # ended in numpy's "number sections must be larger than 0" traceback).
    t_first, t_last = float(r.time[0]), float(r.time[-1])
    t0 = t_first if a.t0 is None else a.t0
    t1 = t_last if a.t1 is None else a.t1
    if not (math.isfinite(t0) and math.isfinite(t1) and t0 < t1):
        print(f"lcpsim_hybrid_plot: --from {t0:g} --to {t1:g}: need finite times, --from "
              f"below --to (the run has samples from {t_first:g} to {t_last:g} s)",
              file=sys.stderr)
        return 2
    if not ((r.time >= t0) & (r.time <= t1)).any():
        print(f"lcpsim_hybrid_plot: --from {t0:g} --to {t1:g}: no sample in that window (the "
              f"run has samples from {t_first:g} to {t_last:g} s)", file=sys.stderr)
        return 2
    split = lambda s: [x for x in s.split(",") if x] if s is not None else None  # noqa: E731
    try:
        plot(r, a.output, split(a.states), split(a.outputs), a.t0, a.t1)
    except KeyError as e:
        print(f"lcpsim_hybrid_plot: {e.args[0] if e.args else e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"lcpsim_hybrid_plot: {a.output}: cannot write: {e.strerror or e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
