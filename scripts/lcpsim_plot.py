#!/usr/bin/python3
"""Plot an lcpsim run: positions, velocities and contact impulses over time.

    /usr/bin/python3 scripts/lcpsim_plot.py run.h5 -o run.png
"""
import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lcpsim_load  # noqa: E402


def coordinate_labels(r, kind):
    """A label per column of q (kind "q") or v ("v"): the owning body's name, with the
    coordinate index when a body has more than one."""
    n = r.parameters["n" + kind]
    labels = [f"{kind}[{i}]" for i in range(n)]
    offs, counts = r.bodies[kind + "_offset"], r.bodies["n" + kind]
    for name, o, c in zip(r.bodies.name, offs, counts):
        for j in range(int(c)):
            labels[int(o) + j] = name if c == 1 else f"{name}[{j}]"
    return labels


def step_impulses(r):
    """Per step k = 1..N: the sum of normal impulses and of friction impulse norms."""
    c = r.contacts
    n = len(r.time) - 1
    normal = np.zeros(n)
    friction = np.zeros(n)
    if len(c.step):
        steps = c.step.astype(int)
        np.add.at(normal, steps - 1, c.normal_impulse)
        np.add.at(friction, steps - 1, np.linalg.norm(c.friction_impulse, axis=1))
    return normal, friction


def plot(r, out, title=None):
    fig, ax = plt.subplots(3, 1, sharex=True, figsize=(8, 9))
    t = r.time
    one_d = r.parameters.dimension == 1
    for kind, a, unit in (("q", ax[0], "position [m]" if one_d else "position"),
                          ("v", ax[1], "velocity [m/s]" if one_d else "velocity")):
        data = r[kind]
        for i, label in enumerate(coordinate_labels(r, kind)):
            a.plot(t, data[:, i], label=label)
        a.set_ylabel(unit)
        if data.shape[1]:
            a.legend(loc="best", fontsize="small")
        a.grid(True, alpha=0.3)
    normal, friction = step_impulses(r)
    ax[2].plot(t[1:], normal, label="normal (sum)")
    ax[2].plot(t[1:], friction, label="friction (sum of norms)")
    ax[2].set_ylabel("impulse per step [N*s]")
    ax[2].set_xlabel("time [s]")
    ax[2].legend(loc="best", fontsize="small")
    ax[2].grid(True, alpha=0.3)
    fig.suptitle(title or f"lcpsim run: {r.parameters.solver_name}, h = "
                 f"{r.parameters.time_step:g} s, {len(t) - 1} steps")
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("run", help="run file (.h5)")
    ap.add_argument("-o", "--output", help="PNG to write (default: RUN with .png)")
    ap.add_argument("--title")
    a = ap.parse_args(argv[1:])
    out = a.output or os.path.splitext(a.run)[0] + ".png"
    try:
        r = lcpsim_load.load(a.run)
    except (OSError, KeyError) as e:
        print(f"lcpsim_plot: {a.run}: {e}", file=sys.stderr)
        return 1
    plot(r, out, a.title)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
