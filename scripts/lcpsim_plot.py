#!/usr/bin/python3
"""Plot an lcpsim run: positions, velocities, energies and contact impulses over time.

    /usr/bin/python3 scripts/lcpsim_plot.py run.h5 -o run.png

1-D runs: one line per coordinate (positions, velocities) and the contact impulses.
2-D / 3-D runs: a row per axis (x, y (, z)) with each moving body's position (left) and
velocity (right), a rotation row (2-D: theta and omega; 3-D: rotation angle from the
identity, 2 acos|qw|, and angular speed |w|), then energies (kinetic, potential, total)
and contact impulses. At most MAX_BODIES moving bodies are drawn (the
first ones, in file order); the legend says how many were left out.
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


MAX_BODIES = 10


def moving_bodies(r):
    """Indices of the bodies with coordinates (dynamic and kinematic)."""
    return [i for i, n in enumerate(r.bodies.nq) if int(n) > 0]


def plot_nd(r, out, title=None):
    """The 2-D / 3-D figure (see the module docstring)."""
    dim = int(r.parameters.dimension)
    t = r.time
    moving = moving_bodies(r)
    shown = moving[:MAX_BODIES]
    rows = dim + 2
    fig, ax = plt.subplots(rows, 2, sharex=True, figsize=(11, 2.3 * rows))
    axis_names = "xyz"
    for i in shown:
        name = r.bodies.name[i]
        p, v = r.position(i), r.velocity(i)
        for a in range(dim):
            ax[a, 0].plot(t, p[:, a], label=name)
            ax[a, 1].plot(t, v[:, a], label=name)
        if dim == 2:
            angle, speed = r.orientation(i), r.angular_velocity(i)
        else:
            qw = np.clip(np.abs(r.orientation(i)[:, 0]), 0.0, 1.0)
            angle, speed = 2.0 * np.arccos(qw), np.linalg.norm(r.angular_velocity(i), axis=1)
        ax[dim, 0].plot(t, angle, label=name)
        ax[dim, 1].plot(t, speed, label=name)
    for a in range(dim):
        ax[a, 0].set_ylabel(f"{axis_names[a]} [m]")
        ax[a, 1].set_ylabel(f"v{axis_names[a]} [m/s]")
    if dim == 2:
        ax[dim, 0].set_ylabel("theta [rad]")
        ax[dim, 1].set_ylabel("omega [rad/s]")
    else:
        ax[dim, 0].set_ylabel("rotation angle [rad]")
        ax[dim, 1].set_ylabel("|w| [rad/s]")
    ax[0, 0].set_title("positions")
    ax[0, 1].set_title("velocities")
    if shown:
        note = (f"first {len(shown)} of {len(moving)} moving bodies"
                if len(shown) < len(moving) else None)
        ax[0, 0].legend(loc="best", fontsize="x-small" if len(shown) > 5 else "small",
                        ncol=2 if len(shown) > 5 else 1, title=note, title_fontsize="x-small")
    else:
        ax[0, 0].text(0.5, 0.5, "no moving bodies", transform=ax[0, 0].transAxes,
                      ha="center", va="center")

    e = ax[rows - 1, 0]
    e.plot(t, r.energy.kinetic, label="kinetic")
    e.plot(t, r.energy.potential, label="potential")
    e.plot(t, r.energy.kinetic + r.energy.potential, label="total", color="k", lw=1)
    e.set_ylabel("energy [J]")
    e.legend(loc="best", fontsize="small")
    normal, friction = step_impulses(r)
    c = ax[rows - 1, 1]
    c.plot(t[1:], normal, label="normal (sum)")
    c.plot(t[1:], friction, label="friction (sum of norms)")
    c.set_ylabel("impulse per step [N*s]")
    c.legend(loc="best", fontsize="small")
    for a in ax.flat:
        a.grid(True, alpha=0.3)
    e.set_xlabel("time [s]")
    c.set_xlabel("time [s]")
    fig.suptitle(title or f"lcpsim {dim}-D run: {r.parameters.solver_name}, h = "
                 f"{r.parameters.time_step:g} s, {len(t) - 1} steps")
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)


def plot(r, out, title=None):
    if r.parameters.dimension != 1:
        return plot_nd(r, out, title)
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
