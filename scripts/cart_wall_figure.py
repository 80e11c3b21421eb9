#!/usr/bin/python3
"""Redraws the cart-and-wall figure of Tedrake's appendix ("Multi-Body Dynamics"):
q[n+1] and f[n] as functions of (q[n], v[n]) for m = 1, h = 0.1, u = 0, each point
computed by lcpsim itself: one time step of the cart-and-wall scene per grid point, taken
in this process through lcpsim's Python binding (the state is set, one step is taken, the
next position and the wall's impulse are read back).

usage: /usr/bin/python3 scripts/cart_wall_figure.py [-o cart_wall_figure.png]
           [--grid 21] [--data out.npz] [--library PATH]

Runs from any folder: the binding is found next to this script (the source tree's
python/, or PREFIX/share/lcpsim/python when installed), then on PYTHONPATH; the library
it loads is found as the binding says (LCPSIM_LIBRARY, the installed lib/, the source
tree's build/). --library names the shared library (liblcpsim.so.0) explicitly.

--grid N     grid points per axis (q[n] in [0, 1], v[n] in [-10, 10]); default 21
--data FILE  also saves the grid and both surfaces (q_next, force) with the closed form
             q[n+1] = max(0, a), f[n] = max(0, -a m / h^2), a = q + h v + h^2 u / m
"""
import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lcpsim_load  # noqa: E402 (save_figure: written whole or not at all)

M, H, U = 1.0, 0.1, 0.0

SCENE = {
    "lcpsim": 1, "name": "cart and wall, one step", "dimension": 1,
    "time_step": H, "steps": 1, "solver": "lemke",
    "bodies": [{"name": "cart", "position": 0.5, "velocity": 0.0, "mass": M, "width": 0.0,
                "force": U}],
    "walls": [{"name": "wall", "position": 0.0, "side": "left"}],
}


def import_binding(library):
    """The lcpsim package: beside this script (source tree or install), else on the path."""
    if library:
        os.environ["LCPSIM_LIBRARY"] = os.path.abspath(library)
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(here, "..", "python"))
    try:
        import lcpsim
    except (ImportError, OSError) as e:
        sys.exit(f"cart_wall_figure.py: cannot load lcpsim's Python binding ({e}); "
                 "build it with 'make lib', or name the library with --library")
    return lcpsim


def one_step(sim, q0, v0):
    """One lcpsim step from (q0, v0); returns q[1] and the wall force f = impulse / h."""
    sim.q[0] = q0
    sim.v[0] = v0
    status = sim.step()
    if status != 0:
        sys.exit(f"cart_wall_figure.py: the step from q = {q0}, v = {v0} failed (status {status})")
    impulse = float(sim.contacts()["normal_impulse"].sum())
    return float(sim.q[0]), impulse / H


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\nusage:")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-o", "--output", default="cart_wall_figure.png",
                    help="the figure (PNG) to write; default cart_wall_figure.png in the "
                         "current folder")
    ap.add_argument("--library", help="path of liblcpsim.so.0 (default: found by the binding: "
                    "LCPSIM_LIBRARY, the installed lib/, the source tree's build/)")
    ap.add_argument("--grid", type=int, default=21,
                    help="grid points per axis, q[n] in [0, 1] m and v[n] in [-10, 10] m/s "
                         "(default 21: 441 steps)")
    ap.add_argument("--data", metavar="FILE.npz",
                    help="also save the grid, both surfaces and their closed forms "
                         "q[n+1] = max(0, a), f[n] = max(0, -a m / h^2), a = q + h v + h^2 u / m")
    a = ap.parse_args(argv)
    if a.grid < 2:
        ap.error("--grid needs at least 2 points")
    lcpsim = import_binding(a.library)

    qs = np.linspace(0.0, 1.0, a.grid)
    vs = np.linspace(-10.0, 10.0, a.grid)
    q_next = np.zeros((a.grid, a.grid))
    force = np.zeros((a.grid, a.grid))
    with lcpsim.Sim.from_json(json.dumps(SCENE), "cart_wall_figure") as sim:
        for i, q0 in enumerate(qs):
            for j, v0 in enumerate(vs):
                q_next[i, j], force[i, j] = one_step(sim, float(q0), float(v0))
    Q, V = np.meshgrid(qs, vs, indexing="ij")
    a_ = Q + H * V + H * H * U / M
    if a.data:
        np.savez(a.data, q=qs, v=vs, q_next=q_next, force=force,
                 q_next_exact=np.maximum(0.0, a_), force_exact=np.maximum(0.0, -a_ * M / H**2))

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig = plt.figure(figsize=(11, 4.8))
    panels = [(q_next, "q[n+1]", "q[n+1] [m]"), (force, "f[n]", "f[n] [N]")]
    for k, (Z, title, zlabel) in enumerate(panels):
        ax = fig.add_subplot(1, 2, k + 1, projection="3d")
        ax.plot_surface(Q, V, Z, cmap="viridis", linewidth=0, antialiased=True)
        ax.set_xlabel("q[n] [m]")
        ax.set_ylabel("v[n] [m/s]")
        ax.set_yticks([-10, -5, 0, 5, 10])
        ax.set_zlabel(zlabel, labelpad=8)
        ax.set_box_aspect(None, zoom=0.88)  # room for the z label inside the panel
        ax.set_title(f"{title}  (m = 1 kg, h = 0.1 s, u = 0 N)")
    fig.suptitle("cart and wall: one semi-implicit Euler LCP step, computed by lcpsim")
    # Fixed margins (tight_layout would draw the 3-D panels once more: 0.4 s of the run).
    fig.subplots_adjust(left=0.03, right=0.95, bottom=0.06, top=0.86, wspace=0.12)
    try:
        lcpsim_load.save_figure(fig, a.output, dpi=100)
    except OSError as e:  # (a full disk: nothing cut left under the name)
        sys.exit(f"cart_wall_figure: {a.output}: cannot write: {e.strerror or e}")
    print(f"wrote {a.output}")


if __name__ == "__main__":
    main(sys.argv[1:])
