"""The example scenes' stated answers against their closed forms (tests/e2e/example_answers.sh).

usage: check_answers.py DIR   (DIR holds the runs the script made)
"""
import math
import sys

import numpy as np

sys.path.insert(0, "scripts")
import lcpsim_load  # noqa: E402

G = 9.81


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def load(d, name):
    r = lcpsim_load.load(f"{d}/{name}.h5")
    if (r.solver.status < 0).any():
        fail(f"{name}: a step failed")
    return r


def slide(r, name, decel, direction, tol):
    """Semi-implicit Euler under a constant deceleration a along `direction` from v0 = 2
    m/s: v_k = v0 - k a h while positive, then 0 (friction holds), so the box stops in step
    N + 1, N = floor(v0 / (a h)), having slid h (N v0 - a h N (N + 1) / 2), to tol in
    speed and distance (given by the caller)."""
    v0, h = 2.0, r.parameters.time_step
    n = math.floor(v0 / (decel * h))
    d = h * (n * v0 - decel * h * n * (n + 1) / 2)
    p = r.position("box")[:, :2]
    v = r.velocity("box")[:, :2]
    u = np.asarray(direction) / np.linalg.norm(direction)
    speed = v @ u
    want = np.maximum(v0 - np.arange(len(v)) * decel * h, 0.0)
    want[n + 1:] = 0.0
    if np.abs(speed - want).max() > tol:
        k = int(np.argmax(np.abs(speed - want)))
        fail(f"{name}: step {k}: speed {speed[k]!r}, discrete closed form {want[k]!r}")
    if np.abs(v - speed[:, None] * u).max() > tol:
        fail(f"{name}: the box leaves its direction of motion")
    got = (p[-1] - p[0]) @ u
    if abs(got - d) > tol:
        fail(f"{name}: slid {got!r} m, discrete closed form {d!r} m")
    print(f"{name}: stops in step {n + 1} (t = {(n + 1) * h:.2f} s) after {got:.6f} m "
          f"(closed form of the continuous problem {v0 * v0 / (2 * decel):.4f} m)")


def carts(r):
    """M = [[1.5, -0.5], [-0.5, 3.5]], no force: v constant (-2, 0) until A reaches the wall
    (q_A = 0.1, its half width, at step 20); then one impulse p = 2 / 0.7 = 20/7 N s
    (M^-1 e_A = (0.7, 0.1)) gives (0, 2/7) m/s; B moves on at 2/7. 1e-12: a 1 x 1 LCP on a
    CHOLMOD factor of numbers of order 1."""
    h = r.parameters.time_step
    v, q = r.v, r.q
    if np.abs(v[:21] - [-2.0, 0.0]).max() > 1e-12:
        fail(f"coupled_carts: the velocities change before the impact: {v[:21]}")
    if np.abs(v[21:] - [0.0, 2.0 / 7.0]).max() > 1e-12:
        fail(f"coupled_carts: after the impact v = {v[21]}, expected (0, 2/7)")
    imp = np.array([r.contacts.at(k).normal_impulse.sum() for k in range(1, len(r.time))])
    if abs(imp[20] - 20.0 / 7.0) > 1e-12 or np.abs(np.delete(imp, 20)).max() > 1e-12:
        fail(f"coupled_carts: wall impulses {imp[18:23]}, expected 20/7 in step 21 only")
    qb = 3.0 + 2.0 / 7.0 * (len(r.time) - 1 - 20) * h
    if abs(q[-1, 1] - qb) > 1e-12 or abs(q[-1, 0] - 0.1) > 1e-12:
        fail(f"coupled_carts: final positions {q[-1]}, expected (0.1, {qb})")
    mom = v[:, 0] * 1.0 + v[:, 1] * 3.0
    if abs(mom[0] + 2.0) > 1e-12 or abs(mom[-1] - 6.0 / 7.0) > 1e-12:
        fail(f"coupled_carts: momentum {mom[0]} -> {mom[-1]}, expected -2 -> 6/7")
    print(f"coupled_carts: wall impulse {imp[20]:.15f} N s (20/7), then v = (0, {v[-1, 1]:.15f}) (2/7)")


def hanging(r, name, tol):
    """Each rope's impulse m g h sqrt(1.16) / 2 = 0.105657 N s (the rope's direction (0.4, 0,
    1) / sqrt(1.16) carries half the weight), in every step."""
    h = r.parameters.time_step
    want = 2.0 * G * h * math.sqrt(1.16) / 2.0
    err = np.abs(r.tethers.impulse - want).max() / want
    if err > tol:
        fail(f"{name}: rope impulses {r.tethers.impulse[0]} N s, m g h sqrt(1.16) / 2 = {want!r} ({err:.1e})")
    print(f"{name}: each rope {r.tethers.impulse[0, 0]:.6f} N s = m g h sqrt(1.16) / 2 to {err:.1e}")


def bouncing(r):
    """Impacts (the vertical velocity turning up) no later than t_k + h (a time-stepped
    flight is at most one step longer than the closed form's, and loses height, so its
    impacts come earlier); the ball at rest on the ground from before t_0 (1 + e) / (1 - e);
    the first three apexes within their step's travel of e^2k H (tests/e2e/restitution.sh
    checks them too)."""
    e, H, h = 0.8, 1.0, r.parameters.time_step
    t0 = math.sqrt(2 * H / G)
    t, vy = r.time, r.velocity("ball")[:, -1]
    y = r.position("ball")[:, -1] - 0.1
    hits = [t[k] for k in range(1, len(t)) if vy[k - 1] < 0 < vy[k]]
    tk = [t0 * (1 + 2 * e * (1 - e ** (k - 1)) / (1 - e)) for k in range(1, len(hits) + 1)]
    late = max(a - b for a, b in zip(hits, tk))
    if late > h + 1e-12:
        fail(f"bouncing_ball: an impact {late:.4f} s after its closed-form time")
    rest = next(k for k in range(len(t)) if np.all(np.abs(vy[k:]) < 1e-12) and np.all(np.abs(y[k:]) < 1e-9))
    if t[rest] > t0 * (1 + e) / (1 - e):
        fail(f"bouncing_ball: at rest only from {t[rest]} s")
    print(f"bouncing_ball: {len(hits)} impacts, at most {max(late, 0):.4f} s late, "
          f"the last {tk[-1] - hits[-1]:.3f} s early; at rest from {t[rest]:.3f} s "
          f"(closed form {t0 * (1 + e) / (1 - e):.3f} s)")


def slip(r):
    """The energy at the start: m v^2 / 2 + m g y + U with the air spring U = k/2 (q^-2 -
    q_0^-2), q = y (the leg vertical): 596.8439506 J, to round-off (1e-12 relative)."""
    m, g, k, q0 = 50.48, 10.0, 1000.0, 1.0
    y, v = 0.9, 1.0
    want = m * v * v / 2 + m * g * y + k / 2 * (y ** -2 - q0 ** -2)
    got = r.output("energy")[0]
    if abs(got - want) > 1e-12 * want:
        fail(f"slip: energy {got!r} J at the start, closed form {want!r}")
    print(f"slip: initial energy {got:.7f} J")


def bouncing_mass(r):
    """The hybrid model: the rebound after impact k is e^k v_1 (v_1 = sqrt(2 g h)), so the
    mass rests after the first impact whose rebound is below rest_speed: K = ceil(log(
    rest_speed / v_1) / log e) = 38 impacts; the flights between are 2 e^k v_1 / g, 0.7224 s
    after the first, 0.23 ms before the last. Each impact time is located to 1e-8 s plus
    the stop precision 1e-10 m over the speed (tests/e2e/hybrid.sh's bound): a flight, the
    difference of two, to twice that."""
    g, e, rest = r.parameter("gravity"), r.parameter("restitution"), r.parameter("rest_speed")
    v1 = math.sqrt(2 * g * 1.0)
    n = math.ceil(math.log(rest / v1) / math.log(e))
    t = np.asarray(r.events.time)
    if len(t) != n:
        fail(f"bouncing_mass: {len(t)} impacts, closed form {n}")
    gaps = np.diff(t)
    k = np.arange(1, n)
    want = 2 * e ** k * v1 / g
    tol = 2e-8 + 1e-10 / (e ** (k - 1) * v1) + 1e-10 / (e ** k * v1)
    if np.any(np.abs(gaps - want) > tol):
        fail(f"bouncing_mass: flights {gaps[[0, -1]]}, closed form {want[[0, -1]]}")
    print(f"bouncing_mass: {n} impacts, flights {gaps[0]:.4f} s .. {gaps[-1] * 1e3:.3f} ms")


def main():
    d = sys.argv[1]
    # Along x: 1e-12, sums of 51 steps of numbers of order 1. At 45 degrees the four corner
    # contacts' friction rows are redundant, a degenerate problem the solvers (NSGS on the
    # exact cone, Lemke on the 4-direction LCP) solve to their tolerance 1e-10 relative to
    # max|q| (order 0.1 m/s): 1e-10 on speeds and distance.
    slide(load(d, "box_slide_3d"), "box_slide_3d", 0.4 * G, [1.0, 0.0], 1e-12)
    slide(load(d, "box_slide_45_exact"), "box_slide_45_exact", 0.4 * G, [1.0, 1.0], 1e-10)
    slide(load(d, "box_slide_45_poly"), "box_slide_45 (4 directions)", 0.4 * G / math.sqrt(2), [1.0, 1.0], 1e-10)
    carts(load(d, "coupled_carts"))
    # Lemke solves the two independent rope rows exactly (1e-12); PGS to its tolerance (1e-9).
    hanging(load(d, "hanging_box"), "hanging_box", 1e-12)
    hanging(load(d, "hanging_box_pgs"), "hanging_box (pgs)", 1e-9)
    bouncing(load(d, "bouncing_ball"))
    slip(lcpsim_load.load(f"{d}/slip.h5"))
    bouncing_mass(lcpsim_load.load(f"{d}/bouncing_mass.h5"))


main()
