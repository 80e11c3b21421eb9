"""Checks lcpsim runs of the tether and joint scenes (data/tethered_bodies.json,
pendulum_rope.json, pendulum_thrown.json, hanging_box.json, double_pendulum.json,
chain_20.json) against the outcomes their descriptions promise.

usage: check_tethers.py CASE LEMKE.h5 PGS.h5
Exits 1 with a message on the first mismatch. Tolerances are justified where they are used.

The rope bound used throughout: a velocity-level step makes a taut rope's rate zero,
psi/h + G'v' + d psi/dt = 0, so the ends' separation moves tangentially; a straight step
of relative velocity w over a rope of length L then leaves it longer by at most the chord
term (h |w|)^2 / (2 L), and a body turning by h omega moves its end off the straight line
by |r| (h omega)^2 / 2 more. The next step's psi/h term takes that back: it never adds up.
"""
import json
import sys

import numpy as np

sys.path.insert(0, "scripts")
import lcpsim_load  # noqa: E402

G = 9.81


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def solved(r, path):
    bad = r.solver.status != 0
    if np.any(bad):
        fail(f"{path}: solver status {set(r.solver.status[bad].tolist())} on {bad.sum()} steps")


def rotate(r, i, point):
    """Body i's point (body frame) turned into the world frame at every state: [N+1, 3]."""
    dim = int(r.parameters.dimension)
    p = np.zeros(3)
    p[:dim] = point
    if dim == 1:
        return np.tile(p, (len(r.time), 1))
    if dim == 2:
        th = r.orientation(i)
        c, s = np.cos(th), np.sin(th)
        return np.stack([c * p[0] - s * p[1], s * p[0] + c * p[1], 0 * th], axis=1)
    q = r.orientation(i)
    w, u = q[:, :1], q[:, 1:]
    t = 2 * np.cross(u, np.tile(p, (len(q), 1)))
    return p + w * t + np.cross(u, t)


def end_motion(r, end):
    """World position, velocity [N+1, 3] of a tether / joint END of the scene text, and
    the lever-arm turn bound |r| omega^2 (per state) of a body end."""
    n, dim = len(r.time), int(r.parameters.dimension)
    pad = lambda a: np.concatenate([np.asarray(a, float), np.zeros(3 - len(a))])
    if "world" in end:
        return np.tile(pad(end["world"]), (n, 1)), np.zeros((n, 3)), np.zeros(n)
    if "path" in end:
        pth = end["path"]
        if "velocity" not in pth or "amplitude" in pth or "table" in pth:
            raise ValueError("the checks use constant-velocity paths only")
        v = pad(pth["velocity"])
        return pad(pth["origin"]) + np.outer(r.time, v), np.tile(v, (n, 1)), np.zeros(n)
    i = r.body_index(end["body"])
    arm = rotate(r, i, end.get("point", [0] * dim))
    pos = np.zeros((n, 3))
    pos[:, :dim] = r.position(i)
    vel = np.zeros((n, 3))
    vel[:, :dim] = r.velocity(i)
    if dim == 1:
        return pos + arm, vel, np.zeros(n)
    om = np.zeros((n, 3))
    if dim == 2:
        om[:, 2] = r.angular_velocity(i)
    else:
        om[:, :] = r.angular_velocity(i)
    wn = np.linalg.norm(om, axis=1)
    return pos + arm, vel + np.cross(om, arm), np.linalg.norm(arm, axis=1) * wn * wn


def scene(r):
    return json.loads(r.scene_text)


def rope_checks(r, path):
    """Every tether: never longer than its length beyond the step's chord term (relative
    velocity and turns of the state after the step, x 1.5 for the second-order terms
    neglected, + 1e-9 m); zero impulse whenever it is slack after the step by more than
    that; impulses >= 0. Returns the bounds [N, T]."""
    h = r.parameters.time_step
    t = r.tethers
    bounds = np.zeros_like(t.impulse)
    for i, tt in enumerate(scene(r)["tethers"]):
        (pa, va, ka), (pb, vb, kb) = (end_motion(r, e) for e in tt["ends"])
        L = t.length_max[i]
        if np.max(np.abs(np.linalg.norm(pa - pb, axis=1) - t.length[:, i])) > 1e-9:
            fail(f"{path}: {tt['name']}: recorded length differs from the ends' distance")
        w = np.linalg.norm(va - vb, axis=1)
        b = 1.5 * ((h * w) ** 2 / (2 * L) + h * h * (ka + kb) / 2) + 1e-9
        bounds[:, i] = np.maximum(b[1:], b[:-1])
        stretch = t.length[1:, i] - L
        k = np.argmax(stretch - bounds[:, i])
        if stretch[k] > bounds[k, i]:
            fail(f"{path}: {tt['name']} longer than its length by {stretch[k]:.3e} m after step {k + 1} "
                 f"(bound {bounds[k, i]:.3e})")
        slack = L - t.length[1:, i] > bounds[:, i]
        if np.any(t.impulse[slack, i] > 1e-9):
            k = np.argmax(np.where(slack, t.impulse[:, i], 0))
            fail(f"{path}: {tt['name']} slack after step {k + 1} with impulse {t.impulse[k, i]:.3e}")
        if t.impulse[:, i].min() < -1e-12:
            fail(f"{path}: {tt['name']} negative impulse {t.impulse[:, i].min():.3e}")
    return bounds


def tethered(runs):
    """File 003: ropes within bounds, slack ropes carry nothing; velocities unique (Lemke =
    PGS to 1e-6 m/s: PGS stops at its tolerance), tow's impulse and the doubled rope's
    total unique (1e-6 N s), the split between link_a and link_b free (it is reported);
    the bodies' momentum changes only by tow's impulse (the links are internal, 1e-9;
    without contacts). The same on a frictional ground (contacts and tethers in one LCP)."""
    for path, r in runs:
        solved(r, path)
        rope_checks(r, path)
        t = r.tethers
        tow, la, lb = (r.tether_index(n) for n in ("tow", "link_a", "link_b"))
        if t.impulse[:, tow].max() <= 0 or (t.impulse[:, la] + t.impulse[:, lb]).max() <= 0:
            fail(f"{path}: a rope never pulled")
        if np.any(r.contacts.kind == 0):
            continue  # on a ground: friction and gravity change the momentum too
        m = {b["name"]: b["mass"] for b in scene(r)["bodies"]}
        mom = m["A"] * r.velocity("A") + m["B"] * r.velocity("B")
        for k in range(1, len(r.time)):
            c = r.contacts.at(k)
            rows = np.where(c.kind == 2)[0]
            dp = c.normal[rows[tow], :2] * c.normal_impulse[rows[tow]]
            if np.max(np.abs(mom[k] - mom[k - 1] - dp)) > 1e-9:
                fail(f"{path}: step {k}: momentum changed by {mom[k] - mom[k - 1]}, tow gave {dp}")
    (pa, a), (pb, b) = runs
    dv = np.abs(a.v - b.v).max()
    if dv > 1e-6:
        fail(f"{pa} vs {pb}: velocities differ by {dv:.3e} m/s")
    ta, tb = a.tethers, b.tethers
    tow, la, lb = (a.tether_index(n) for n in ("tow", "link_a", "link_b"))
    d_tow = np.abs(ta.impulse[:, tow] - tb.impulse[:, tow]).max()
    d_sum = np.abs(ta.impulse[:, la] + ta.impulse[:, lb] - tb.impulse[:, la] - tb.impulse[:, lb]).max()
    if d_tow > 1e-6 or d_sum > 1e-6:
        fail(f"tow impulses differ by {d_tow:.3e}, link totals by {d_sum:.3e} N s")
    split = np.abs(ta.impulse[:, la] - tb.impulse[:, la]).max()
    print(f"tethered: velocities agree to {dv:.1e} m/s; link_a's share differs by up to {split:.3f} N s "
          "(impulses not unique, as file 003 says)")


def pendulum(runs):
    """Period from the downward zero crossings of x: within 1 % of 2 pi sqrt(L/g); the rope
    always taut (impulse > 0 in every step) and within its bound; Lemke = PGS (1e-9 m)."""
    L = 1.0
    want = 2 * np.pi * np.sqrt(L / G)
    for path, r in runs:
        solved(r, path)
        rope_checks(r, path)
        if r.tethers.impulse.min() <= 0:
            fail(f"{path}: the rope went slack (impulse {r.tethers.impulse.min():.3e})")
        x, t = r.position("bob")[:, 0], r.time
        i = np.where((x[:-1] > 0) & (x[1:] <= 0))[0]
        if len(i) < 2:
            fail(f"{path}: fewer than two swings")
        tc = t[i] + (t[i + 1] - t[i]) * x[i] / (x[i] - x[i + 1])
        period = np.mean(np.diff(tc))
        if abs(period / want - 1) > 0.01:
            fail(f"{path}: period {period:.5f} s, small-angle {want:.5f} s")
        print(f"pendulum: period {period:.5f} s vs 2 pi sqrt(L/g) = {want:.5f} s ({100 * (period / want - 1):+.3f} %)")
    d = np.abs(runs[0][1].q - runs[1][1].q).max()
    if d > 1e-9:
        fail(f"Lemke and PGS differ by {d:.3e} m")


def thrown(runs):
    """Until the snap, the exact discrete ballistic path of semi-implicit Euler (1e-12 m)
    with zero impulse; the first impulse in the step whose ballistic path leaves the
    circle, within a step of the exact t = 0.5002 s; after it the rope stays within its
    bound and the radial velocity below h v^2 / L (the chord term over h, x 1.5)."""
    for path, r in runs:
        solved(r, path)
        bounds = rope_checks(r, path)
        h = r.parameters.time_step
        p, v = r.position("bob"), r.velocity("bob")
        n = len(r.time)
        bp, bv = np.zeros((n, 2)), np.zeros((n, 2))
        bp[0], bv[0] = p[0], v[0]
        for k in range(1, n):
            bv[k] = bv[k - 1] + h * np.array([0, -G])
            bp[k] = bp[k - 1] + h * bv[k]
        out = np.where(np.linalg.norm(bp, axis=1) > 1.0)[0][0]  # first state off the circle
        imp = r.tethers.impulse[:, 0]
        snap = np.argmax(imp > 0) + 1                           # the first pulling step
        if snap != out:
            fail(f"{path}: first impulse in step {snap}, the ballistic path leaves the circle in step {out}")
        if abs(r.time[snap] - 0.5002) > h:
            fail(f"{path}: snap at t = {r.time[snap]:.4f} s, expected 0.5002 s")
        if np.abs(p[:snap] - bp[:snap]).max() > 1e-12 or imp[:snap - 1].max() != 0:
            fail(f"{path}: not ballistic before the snap (off by {np.abs(p[:snap] - bp[:snap]).max():.2e} m)")
        u = p / np.linalg.norm(p, axis=1)[:, None]
        # A step's radial velocity takes back the previous step's chord: bound it with
        # the largest speed of the neighbouring states.
        radial = np.sum(v * u, axis=1)
        speed = np.linalg.norm(v, axis=1)
        for k in range(snap + 1, n):
            s = speed[max(k - 2, 0):k + 2].max()
            if abs(radial[k]) > 1.5 * h * s * s / 1.0 + 1e-9:
                fail(f"{path}: radial velocity {radial[k]:.3e} m/s at state {k} (speed {s:.3f} m/s)")
        print(f"thrown: slack until t = {r.time[snap - 1]:.3f} s, snaps taut in step {snap} "
              f"(impulse {imp[snap - 1]:.4f} N s), max stretch {r.summary.max_tether_stretch:.1e} m "
              f"(bound {bounds.max():.1e})")
    d = np.abs(runs[0][1].q - runs[1][1].q).max()
    if d > 1e-9:
        fail(f"Lemke and PGS differ by {d:.3e} m")


def hanging(runs):
    """Each step the ropes' impulses along their directions sum to m g h upward, with no
    horizontal component (1e-9 relative: the LCP's solution, PGS to its tolerance); both
    impulses equal (symmetry, 1e-9); the box stays put (1e-9 m)."""
    for path, r in runs:
        solved(r, path)
        rope_checks(r, path)
        sc = scene(r)
        m, h = sc["bodies"][0]["mass"], r.parameters.time_step
        total = np.zeros((len(r.time) - 1, 3))
        for k in range(1, len(r.time)):
            c = r.contacts.at(k)
            rows = c.kind == 2
            total[k - 1] = (c.normal[rows] * c.normal_impulse[rows][:, None]).sum(axis=0)
        w = m * G * h
        err = np.abs(total - [0, 0, w]).max() / w
        if err > 1e-9:
            fail(f"{path}: rope impulses minus m g h: {err:.2e} relative")
        asym = np.abs(r.tethers.impulse[:, 0] - r.tethers.impulse[:, 1]).max() / w
        drift = np.abs(r.position("box") - r.position("box")[0]).max()
        if asym > 1e-9 or drift > 1e-9:
            fail(f"{path}: asymmetry {asym:.2e}, drift {drift:.2e} m")
        print(f"hanging: impulses balance m g h to {err:.1e} (relative), each rope {r.tethers.impulse[0, 0]:.5f} N s")


def double(runs):
    """Joint errors below 1e-4 m; |E - E0| below 0.05 J; Lemke = PGS exactly (no LCP)."""
    for path, r in runs:
        solved(r, path)
        err = r.joints.error.max()
        E = r.energy.kinetic + r.energy.potential
        drift = np.abs(E - E[0]).max()
        if err > 1e-4 or drift > 0.05:
            fail(f"{path}: joint error {err:.2e} m, energy drift {drift:.3e} J")
        if np.abs(r.joints.impulse).max() == 0:
            fail(f"{path}: the joints never pushed")
        print(f"double pendulum: joint error <= {err:.1e} m, energy within {drift:.3f} J of {E[0]:.3f} J")
    if not np.array_equal(runs[0][1].q, runs[1][1].q):
        fail("Lemke and PGS differ on a problem without an LCP")


def chain(runs):
    """Every step solved; joint errors below 5e-3 m; penetration below 1e-3 m; energy never
    above its initial value (1e-9 J) and no step gaining 0.01 J; at the end every link on
    the ground (centre height = radius within 1e-3 m) and at rest (1e-3 m/s)."""
    for path, r in runs:
        solved(r, path)
        sc = scene(r)
        links = [b for b in sc["bodies"] if b.get("type", "dynamic") == "dynamic"]
        if len(links) != 20 or len(sc["joints"]) != 19:
            fail(f"{path}: expected 20 links and 19 joints")
        if not np.any(r.contacts.kind == 0) or not np.any(r.contacts.kind == 3):
            fail(f"{path}: contacts and joints were not in one problem")
        err, pen = r.joints.error.max(), r.summary.max_penetration
        E = r.energy.kinetic + r.energy.potential
        if err > 5e-3 or pen > 1e-3:
            fail(f"{path}: joint error {err:.2e} m, penetration {pen:.2e} m")
        if E.max() > E[0] + 1e-9 or np.diff(E).max() > 0.01:
            fail(f"{path}: energy above its start by {E.max() - E[0]:.2e} J, step gain {np.diff(E).max():.2e} J")
        radius = links[0]["shapes"][0]["radius"]
        y = np.array([r.position(b["name"])[-1, 1] for b in links])
        v = np.array([np.linalg.norm(r.velocity(b["name"])[-1]) for b in links])
        if np.abs(y - radius).max() > 1e-3 or v.max() > 1e-3:
            fail(f"{path}: at the end heights {y.min():.4f}..{y.max():.4f} m, speed {v.max():.2e} m/s")
        print(f"chain: joint error <= {err:.1e} m, penetration <= {pen:.1e} m, at rest on the ground")


CASES = {"tethered": tethered, "pendulum": pendulum, "thrown": thrown, "hanging": hanging,
         "double": double, "chain": chain}

if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in CASES:
        print(__doc__)
        sys.exit(2)
    CASES[sys.argv[1]]([(p, lcpsim_load.load(p)) for p in sys.argv[2:]])
