#!/usr/bin/python3
"""The cart and the wall of Tedrake's appendix ("Multi-Body Dynamics", the time-stepping
LCP example: m = 1, h = 0.1, u = 0), reproduced from Python with lcpsim.

    PYTHONPATH=python /usr/bin/python3 examples/cart_wall.py [--plot cart_wall.png]

A cart (a point of mass m) starts at q = 1 m moving at v = -3 m/s toward a wall that
occupies q <= 0. Semi-implicit Euler with the contact force f[n] gives the LCP
    q[n+1] = [q[n] + h v[n] + (h^2/m) u[n]] + (h^2/m) f[n],
    q[n+1] >= 0,  f[n] >= 0,  q[n+1] f[n] = 0,
whose solution is, with a = q[n] + h v[n] + (h^2/m) u[n]:
    q[n+1] = max(0, a),   f[n] = max(0, -a m / h^2),   v[n+1] = v[n] + (h/m)(u[n] + f[n]).

Notebook style: the "# %%" lines split it into cells (Jupyter through jupytext, VS Code,
Spyder); run top to bottom it is an ordinary script.
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import lcpsim  # noqa: E402

# In the source tree and installed (PREFIX/share/lcpsim/{examples,data,python}) alike.
here = os.path.dirname(os.path.abspath(__file__))
scene = os.path.join(here, "..", "data", "cart_wall.json")

ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
ap.add_argument("--scene", default=scene)
ap.add_argument("--plot", help="write a figure of q, v and f against time (PNG or PDF)")
args = ap.parse_args()

# %% 1. The simulation, stepped from Python; the controller applies u[n] = 0 (Tedrake's
#    case) and logs the state the step starts from.
sim = lcpsim.Sim.load(args.scene)
m, h = sim.bodies[0]["mass"], sim.time_step
log = []


def controller(s):
    s.set_force("cart", [0.0])
    log.append((s.time, s.q[0], s.v[0]))


sim.controller = controller
rows = []
for n in range(sim.scene_steps):
    status = sim.step()
    f = sum(c["normal_impulse"] for c in sim.contacts()) / h
    rows.append((n, log[n][1], log[n][2], sim.q[0], sim.v[0], f, status))

# %% 2. The same LCP solved on its own (lcpsim.solve_lcp, Lemke), step by step from the
#    simulated state: w = q[n+1] = a + (h^2/m) z, z = f[n].
# 3. The closed form. All three must agree to round-off.
print(" n    q[n]     v[n]    q[n+1]   v[n+1]    f[n] (sim)  f[n] (LCP)  f[n] (exact)")
worst = 0.0
for n, q, v, q1, v1, f, status in rows:
    a = q + h * v
    z, rep = lcpsim.solve_lcp([[h * h / m]], [a], "lemke")
    q_exact, f_exact = max(0.0, a), max(0.0, -a * m / (h * h))
    v_exact = v + h / m * f_exact
    worst = max(worst, abs(q1 - q_exact), abs(v1 - v_exact), abs(f - f_exact) / max(1.0, f_exact),
                abs(z[0] - f_exact) / max(1.0, f_exact))
    if n < 8:
        print("%2d  %7.4f  %7.4f  %7.4f  %7.4f  %10.6f  %10.6f  %10.6f" %
              (n, q, v, q1, v1, f, z[0], f_exact))
print("... %d steps; largest difference from the closed form: %.3g" % (len(rows), worst))

# %% The exact trajectory of the appendix example: the wall is met in step 3 (a = -0.2) and
# the cart stops there, f = 20 N then 10 N; at rest on the wall afterwards.
expect = [(1.0, -3.0), (0.7, -3.0), (0.4, -3.0), (0.1, -3.0), (0.0, -1.0), (0.0, 0.0)]
traj = [(q, v) for _, q, v, _, _, _, _ in rows[:6]]
ok = worst <= 1e-12 and all(abs(a - b) <= 1e-12 and abs(c - d) <= 1e-12
                           for (a, c), (b, d) in zip(traj, expect))
ok = ok and abs(rows[3][5] - 20.0) <= 1e-12 and abs(rows[4][5] - 10.0) <= 1e-12
print("cart and wall: %s" % ("matches Tedrake's example to 1e-12" if ok else "MISMATCH"))

# %% The figure (--plot).
if args.plot:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    t = np.array([r[0] for r in rows]) * h
    fig, ax = plt.subplots(3, 1, figsize=(6, 6), sharex=True)
    ax[0].step(np.r_[t, t[-1] + h], np.r_[[r[1] for r in rows], rows[-1][3]], where="post")
    ax[0].set_ylabel("q [m]")
    ax[1].step(np.r_[t, t[-1] + h], np.r_[[r[2] for r in rows], rows[-1][4]], where="post")
    ax[1].set_ylabel("v [m/s]")
    ax[2].bar(t, [r[5] for r in rows], width=0.6 * h, align="edge")
    ax[2].set_ylabel("f[n] [N]")
    ax[2].set_xlabel("t [s]")
    fig.suptitle("Cart and wall (m = 1 kg, h = 0.1 s, u = 0), simulated by lcpsim")
    fig.tight_layout()
    fig.savefig(args.plot, dpi=120)
    print("figure: %s" % args.plot)
sys.exit(0 if ok else 1)
