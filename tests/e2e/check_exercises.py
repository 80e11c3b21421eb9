"""Checks lcpsim's HDF5 output of the example exercises against their exact answers.

usage: check_exercises.py SCENE_KIND FILE.h5 [FILE2.h5 ...]
  cart_wall     every step satisfies the closed form of the cart-and-wall LCP to 1e-12
  two_blocks    steps 1-3 equal the hand solution to 1e-12; momentum conserved
  brick         rest below mu m g, (u - mu m g)/m above; |friction| <= mu m g h; all files
                (one per solver) agree on v to 1e-9
Exits 1 with a message on the first mismatch.
"""
import sys

import h5py
import numpy as np


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def load(path):
    with h5py.File(path, "r") as f:
        d = {k: f[k][()] for k in ("time", "q", "v")}
        d["h"] = float(f["parameters/time_step"][()])
        d["offset"] = f["contacts/offset"][()]
        for k in ("body_a", "body_b", "normal_impulse", "friction_impulse", "gap"):
            d[k] = f["contacts/" + k][()]
        d["status"] = f["solver/status"][()]
        d["mass"] = f["bodies/mass"][()]
    if np.any(d["status"] != 0):
        fail(f"{path}: solver status {d['status']}")
    return d


def step_impulse(d, k, body, field="normal_impulse"):
    """Sum of step k's contact impulses on body (as body_a)."""
    lo, hi = d["offset"][k], d["offset"][k + 1]
    sel = np.arange(lo, hi)[d["body_a"][lo:hi] == body]
    return d[field][sel].sum(axis=0) if len(sel) else 0.0


def cart_wall(d, path):
    # Tedrake, cart and wall: a = q + h v + h^2 u / m; q' = max(0, a); f = max(0, -a m / h^2).
    # Tolerance 1e-12: a 1x1 LCP solved exactly, numbers of order 1-10.
    h, m, u = d["h"], d["mass"][0], 0.0
    for k in range(1, len(d["time"])):
        q, v = d["q"][k - 1, 0], d["v"][k - 1, 0]
        a = q + h * v + h * h * u / m
        if abs(d["q"][k, 0] - max(0.0, a)) > 1e-12:
            fail(f"{path}: step {k}: q = {d['q'][k, 0]!r}, closed form {max(0.0, a)!r}")
        f = max(0.0, -a * m / (h * h))
        got = step_impulse(d, k, 0) / h
        if abs(got - f) > 1e-12 * max(1.0, f):
            fail(f"{path}: step {k}: f = {got!r}, closed form {f!r}")
    if d["q"][-1, 0] != 0.0 or d["v"][-1, 0] != 0.0:
        fail(f"{path}: the cart should end at rest on the wall")


def two_blocks(d, path):
    # Hand solution (see tests/test_step.c): dyadic numbers, exact to 1e-12.
    qa, qb = [-2, 0, 1.5, 3], [0, 1, 2.5, 4]
    va, vb = [3, 2, 1.5, 1.5], [0, 1, 1.5, 1.5]
    c = [0, 1, 0.5, 0]
    for k in range(4):
        got = (d["q"][k, 0], d["q"][k, 1], d["v"][k, 0], d["v"][k, 1])
        want = (qa[k], qb[k], va[k], vb[k])
        if max(abs(g - w) for g, w in zip(got, want)) > 1e-12:
            fail(f"{path}: step {k}: (qA, qB, vA, vB) = {got}, exact {want}")
        if k and abs(step_impulse(d, k, 1) - c[k]) > 1e-12:
            fail(f"{path}: step {k}: impulse {step_impulse(d, k, 1)}, exact {c[k]}")
        if abs(d["v"][k, 0] + d["v"][k, 1] - 3.0) > 1e-12:
            fail(f"{path}: step {k}: momentum {d['v'][k].sum()}, expected 3")


def brick(d, path):
    # u(t) = 9.81 t / 2 (the scene's table); friction holds up to mu m g = 4.905 N.
    # Sliding: v[k] = v[k-1] + h (u(t[k-1]) - mu m g) / m. Tolerance 1e-9: the PGS
    # tolerance on impulses of order 0.05 N s.
    h, m, mu, g = d["h"], d["mass"][0], 0.5, 9.81
    v = 0.0
    for k in range(1, len(d["time"])):
        u = 9.81 * d["time"][k - 1] / 2.0
        v += h * max(0.0, u - mu * m * g) / m
        if abs(d["v"][k, 0] - v) > 1e-9:
            fail(f"{path}: step {k}: v = {d['v'][k, 0]!r}, expected {v!r}")
        fr = step_impulse(d, k, 0, "friction_impulse")
        if abs(fr[0]) > mu * m * g * h * (1 + 1e-9):
            fail(f"{path}: step {k}: friction impulse {fr[0]} beyond mu m g h")


def main():
    kind, paths = sys.argv[1], sys.argv[2:]
    runs = [load(p) for p in paths]
    for d, p in zip(runs, paths):
        {"cart_wall": cart_wall, "two_blocks": two_blocks, "brick": brick}[kind](d, p)
    for d, p in zip(runs[1:], paths[1:]):
        if np.max(np.abs(d["v"] - runs[0]["v"])) > 1e-9:
            fail(f"{p} and {paths[0]} disagree on v by {np.max(np.abs(d['v'] - runs[0]['v']))}")
    print(f"ok: {kind}: {len(paths)} runs")


main()
