#!/usr/bin/python3
"""Redraws the cart-and-wall figure of Tedrake's appendix ("Multi-Body Dynamics"):
q[n+1] and f[n] as functions of (q[n], v[n]) for m = 1, h = 0.1, u = 0, each point
computed by lcpsim itself (one step of a generated one-step scene per grid point).

usage: /usr/bin/python3 scripts/cart_wall_figure.py [-o cart_wall_figure.png]
           [--lcpsim ./lcpsim] [--grid 21] [--data out.npz]

--data also saves the grid and both surfaces (q_next, force) with the closed form
q[n+1] = max(0, a), f[n] = max(0, -a m / h^2), a = q + h v + h^2 u / m, for checking.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lcpsim_load  # noqa: E402

M, H, U = 1.0, 0.1, 0.0


def one_step(lcpsim, workdir, q0, v0, k):
    """Runs one lcpsim step from (q0, v0); returns q[1] and the wall force f = impulse / h."""
    scene = {
        "lcpsim": 1, "name": "cart and wall, one step", "dimension": 1,
        "time_step": H, "steps": 1, "solver": "lemke",
        "bodies": [{"name": "cart", "position": q0, "velocity": v0, "mass": M, "width": 0.0,
                    "force": U}],
        "walls": [{"name": "wall", "position": 0.0, "side": "left"}],
    }
    path = os.path.join(workdir, f"p{k}.json")
    out = os.path.join(workdir, f"p{k}.h5")
    with open(path, "w") as f:
        json.dump(scene, f)
    subprocess.run([lcpsim, path, "-o", out, "--quiet"], check=True)
    r = lcpsim_load.load(out)
    c = r.contacts.at(1)
    impulse = float(c.normal_impulse.sum()) if len(c.normal_impulse) else 0.0
    os.remove(path)
    os.remove(out)
    return r.q[1, 0], impulse / H


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--output", default="cart_wall_figure.png")
    ap.add_argument("--lcpsim", default="./lcpsim")
    ap.add_argument("--grid", type=int, default=21)
    ap.add_argument("--data")
    a = ap.parse_args(argv)

    qs = np.linspace(0.0, 1.0, a.grid)
    vs = np.linspace(-10.0, 10.0, a.grid)
    q_next = np.zeros((a.grid, a.grid))
    force = np.zeros((a.grid, a.grid))
    with tempfile.TemporaryDirectory() as tmp:
        for i, q0 in enumerate(qs):
            for j, v0 in enumerate(vs):
                q_next[i, j], force[i, j] = one_step(a.lcpsim, tmp, float(q0), float(v0),
                                                     i * a.grid + j)
    Q, V = np.meshgrid(qs, vs, indexing="ij")
    a_ = Q + H * V + H * H * U / M
    if a.data:
        np.savez(a.data, q=qs, v=vs, q_next=q_next, force=force,
                 q_next_exact=np.maximum(0.0, a_), force_exact=np.maximum(0.0, -a_ * M / H**2))

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig = plt.figure(figsize=(11, 4.5))
    for k, (Z, title) in enumerate([(q_next, "q[n+1]"), (force, "f[n]")]):
        ax = fig.add_subplot(1, 2, k + 1, projection="3d")
        ax.plot_surface(Q, V, Z, cmap="viridis", linewidth=0, antialiased=True)
        ax.set_xlabel("q[n]")
        ax.set_ylabel("v[n]")
        ax.set_title(f"{title}  (m = 1, h = 0.1, u = 0)")
    fig.suptitle("cart and wall: one semi-implicit Euler LCP step, computed by lcpsim")
    fig.tight_layout()
    fig.savefig(a.output, dpi=100)
    print(f"wrote {a.output}")


if __name__ == "__main__":
    main(sys.argv[1:])
