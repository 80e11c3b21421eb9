"""Checks lcpsim runs of the 2-D and 3-D example scenes against analytic outcomes.

usage: check_rigid.py CASE FILE.h5 [FILE2.h5 ...]   (one file per solver)
Exits 1 with a message on the first mismatch. Tolerances are justified where they are used.
"""
import sys

import numpy as np

sys.path.insert(0, "scripts")
import lcpsim_load  # noqa: E402

G = 9.81


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def energy(r):
    return r.energy.kinetic + r.energy.potential


def no_energy_gain(r, path, tol):
    """Total energy never grows from one step to the next by more than tol (J)."""
    gain = np.max(np.diff(energy(r))) if len(r.time) > 1 else 0.0
    if gain > tol:
        fail(f"{path}: energy grew by {gain:.3e} J in one step")


def solved(r, path, allow_budget=False):
    bad = r.solver.status != 0
    if allow_budget:
        bad &= r.solver.status != -1
    if np.any(bad):
        fail(f"{path}: solver status {set(r.solver.status[bad].tolist())} on {bad.sum()} steps")


def incline(r, path, mu, theta, dim):
    """Rest when tan(theta) < mu (speed below 1e-8: solver tolerance); else v along the
    slope = N h g (sin - mu cos) exactly for semi-implicit Euler from rest (1e-7)."""
    v = r.velocity("box")
    h = r.parameters.time_step
    speed = np.linalg.norm(v, axis=1)
    if np.tan(theta) < mu:
        if speed.max() > 1e-8:
            fail(f"{path}: the box creeps at {speed.max():.2e} m/s (tan {np.tan(theta):.3f} < mu {mu})")
    else:
        a = G * (np.sin(theta) - mu * np.cos(theta))
        k = np.arange(len(speed))
        if np.max(np.abs(speed - k * h * a)) > 1e-7:
            fail(f"{path}: slide speed off by {np.max(np.abs(speed - k * h * a)):.2e} (a = {a})")


def slide(r, path):
    """Stops after v0^2 / (2 mu g) within a step's travel v0 h; then rests."""
    x = r.position("box")[:, 0]
    v0, mu, h = 2.0, 0.4, r.parameters.time_step
    d = v0 * v0 / (2 * mu * G)
    if abs(x[-1] - x[0] - d) > v0 * h:
        fail(f"{path}: slid {x[-1] - x[0]:.4f} m, expected {d:.4f} m")
    if np.abs(r.velocity("box")[-1]).max() > 1e-8:
        fail(f"{path}: still moving at the end")


def roll(r, path):
    """Rolling without slip keeps v = 1 m/s (1e-8) and the contact point at rest (1e-8)."""
    v = r.velocity("ball")
    w = r.angular_velocity("ball")
    radius = 0.5
    if np.max(np.abs(v[:, 0] - 1.0)) > 1e-8:
        fail(f"{path}: speed changed by {np.max(np.abs(v[:, 0] - 1.0)):.2e}")
    slip = v[:, 0] - w[:, 1] * radius
    if np.max(np.abs(slip)) > 1e-8:
        fail(f"{path}: slip {np.max(np.abs(slip)):.2e} m/s")


def stack(r, path):
    """5 boxes rest for 10 s: drift below 1 mm, penetration below 1e-6 m (velocity-level
    step: gaps stay zero up to the solver tolerance), no energy gain (1e-9 J)."""
    for b in range(len(r.bodies.name)):
        if r.bodies.type[b] != 0:
            continue
        p = r.position(b)
        drift = np.max(np.linalg.norm(p - p[0], axis=1))
        if drift > 1e-3:
            fail(f"{path}: {r.bodies.name[b]} drifted {drift:.2e} m")
    if len(r.contacts.gap) and -r.contacts.gap.min() > 1e-6:
        fail(f"{path}: penetration {-r.contacts.gap.min():.2e} m")
    no_energy_gain(r, path, 1e-9)
    # The ground carries the weight of all five: 5 m g h per step (1e-8 relative).
    k = len(r.time) - 1
    c = r.contacts.at(k)
    ground = r.body_index("ground")
    load = c.normal_impulse[(c.body_b == ground) | (c.body_a == ground)].sum()
    if abs(load - 5 * 1.0 * G * r.parameters.time_step) > 1e-8 * 5 * G:
        fail(f"{path}: ground impulse {load}, expected {5 * G * r.parameters.time_step}")


def collide(r, path):
    """Head-on equal disks/balls at +-1 m/s: momentum 0 (1e-12), both at rest after the
    impact (1e-9: solver tolerance), never overlapping beyond 1e-9 m."""
    a, b = 0, 1
    va, vb = r.velocity(a), r.velocity(b)
    if np.max(np.abs(va + vb)) > 1e-12:
        fail(f"{path}: momentum {np.max(np.abs(va + vb)):.2e}")
    if np.abs(va[-1]).max() > 1e-9 or np.abs(vb[-1]).max() > 1e-9:
        fail(f"{path}: not at rest after the impact")
    dist = np.linalg.norm(r.position(b) - r.position(a), axis=1)
    if dist.min() < 1.0 - 1e-9:
        fail(f"{path}: overlap {1.0 - dist.min():.2e} m")
    no_energy_gain(r, path, 1e-12)


def pile(r, path, half_width):
    """Every body stays in the bin (inner half width), penetration below a centimetre at
    20 sweeps, and energy never grows (1e-9 J): the LCP's impacts are inelastic and a PGS
    iterate short of convergence still only removes energy here (measured: the largest
    step change is a loss)."""
    for b in range(len(r.bodies.name)):
        if r.bodies.type[b] != 0:
            continue
        p = r.position(b)
        if np.max(np.abs(p[:, :2])) > half_width or p[:, 2].min() < 0.0:
            fail(f"{path}: {r.bodies.name[b]} left the bin")
    if len(r.contacts.gap) and -r.contacts.gap.min() > 1e-2:
        fail(f"{path}: penetration {-r.contacts.gap.min():.2e} m")
    no_energy_gain(r, path, 1e-9)


def main():
    case, paths = sys.argv[1], sys.argv[2:]
    runs = [lcpsim_load.load(p) for p in paths]
    for r, p in zip(runs, paths):
        if case.startswith("incline"):
            _, dim, mu = case.split(":")
            solved(r, p)
            incline(r, p, float(mu), 0.3, int(dim))
            no_energy_gain(r, p, 1e-9)
        elif case == "slide":
            solved(r, p), slide(r, p), no_energy_gain(r, p, 1e-9)
        elif case == "roll":
            solved(r, p), roll(r, p), no_energy_gain(r, p, 1e-9)
        elif case == "stack":
            solved(r, p), stack(r, p)
        elif case == "collide":
            solved(r, p), collide(r, p)
        elif case.startswith("pile"):
            solved(r, p, allow_budget=True)
            pile(r, p, float(case.split(":")[1]))
        else:
            fail(f"unknown case {case}")
    print(f"ok: {case}: {len(paths)} runs")


main()
