#!/usr/bin/python3
"""make_pile.py: writes a 3-D "pile" scene for lcpsim: N boxes or spheres, replicated
with "grid" (and a deterministic "jitter") above a square bin of static boxes on a
ground plane; they fall and settle into a pile.

  scripts/make_pile.py N [--shape sphere|box|capsule|mixed] [--size S] [--gap G] [--jitter A]
                         [--seed K] [--clearance C] [--wall-height H] [--density RHO]
                         [--mu MU] [--time-step h] [--duration T] [-o FILE]

The N bodies form a grid of nx * ny * nz = N copies (the most cube-like factorization,
its largest factor upwards), spacing 2 S + G, the lowest layer G above the ground. The
bin's inner half width is half the grid's larger horizontal extent plus C; its walls are
H high (default 1.5 times the height of the pile spread flat, at least 4 S). The jitter
(default 0.4 G) keeps neighbours apart (it moves each copy by at most A < G / 2 along
each axis). The committed data/pile_10.json, pile_100.json and pile_1000.json are

  scripts/make_pile.py 10 --shape box -o data/pile_10.json
  scripts/make_pile.py 100 -o data/pile_100.json
  scripts/make_pile.py 1000 -o data/pile_1000.json

Standard library only; the output is the same on every machine.
"""
import argparse
import math
import json
import sys


def factor3(n):
    """The (a, b, c), a <= b <= c, a * b * c = n, with the smallest c / a (then c)."""
    best = None
    for a in range(1, n + 1):
        if n % a:
            continue
        for b in range(a, n // a + 1):
            if (n // a) % b:
                continue
            c = n // (a * b)
            if c < b:
                continue
            key = (c / a, c)
            if best is None or key < best[0]:
                best = (key, (a, b, c))
    return best[1]


def num(x):
    """A number as short as it round-trips (integral floats without '.0')."""
    if isinstance(x, float) and x == int(x) and abs(x) < 1e15:
        return str(int(x))
    return repr(x)


def dump(v, indent=0):
    """JSON with short objects and arrays on one line, long ones one item a line."""
    if isinstance(v, bool) or v is None:
        return json.dumps(v)
    if isinstance(v, (int, float)):
        return num(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    pad, inner = " " * indent, " " * (indent + 2)
    if isinstance(v, list):
        flat = "[" + ", ".join(dump(x) for x in v) + "]"
        if len(flat) + indent <= 120 and "\n" not in flat:
            return flat
        return "[\n" + ",\n".join(inner + dump(x, indent + 2) for x in v) + "\n" + pad + "]"
    flat = "{" + ", ".join(json.dumps(k) + ": " + dump(x) for k, x in v.items()) + "}"
    if len(flat) + indent <= 120 and "\n" not in flat:
        return flat
    items = [inner + json.dumps(k) + ": " + dump(x, indent + 2) for k, x in v.items()]
    return "{\n" + ",\n".join(items) + "\n" + pad + "}"


def pile(args):
    n = args.n
    nx, ny, nz = factor3(n)
    s, gap = args.size, args.gap
    spacing = 2 * s + gap
    jitter = 0.4 * gap if args.jitter is None else args.jitter
    if not 0 <= jitter < gap / 2:
        sys.exit("make_pile: --jitter must be in [0, gap / 2) so that copies cannot touch")
    # Bin: inner half width w, walls of half thickness t and height H on the ground z = 0.
    w = max(nx, ny) * spacing / 2 + args.clearance
    t = 0.05
    # Default height: 1.5 times the layers of a flat pile, at least 4 sizes.
    per_layer = max(1, int(w / s) ** 2)
    layers = -(-n // per_layer)
    height = args.wall_height
    if height is None:
        height = max(4 * s, round(1.5 * layers * 2 * s, 12))
    walls = []
    for name, pos, half in (("wall_x-", [-(w + t), 0, height / 2], [t, w + 2 * t, height / 2]),
                            ("wall_x+", [w + t, 0, height / 2], [t, w + 2 * t, height / 2]),
                            ("wall_y-", [0, -(w + t), height / 2], [w, t, height / 2]),
                            ("wall_y+", [0, w + t, height / 2], [w, t, height / 2])):
        walls.append({"type": "box", "name": name, "position": [round(x, 12) for x in pos],
                      "half_extents": [round(x, 12) for x in half], "mu": args.mu})
    # Each shape fits a cube of half side s: a capsule of radius s / 2 and half length s / 2
    # lies along x (its axis, local z, turned a quarter about y).
    shapes = {"sphere": {"type": "sphere", "radius": s, "mu": args.mu},
              "box": {"type": "box", "half_extents": [s, s, s], "mu": args.mu},
              "capsule": {"type": "capsule", "radius": s / 2, "half_length": s / 2,
                          "orientation": {"axis": [0, 1, 0], "angle": 1.5707963267948966},
                          "mu": args.mu}}
    first = [round(-(nx - 1) * spacing / 2, 12), round(-(ny - 1) * spacing / 2, 12),
             round(s + gap, 12)]
    what = {"sphere": "spheres of radius", "box": "cubes of half extent",
            "capsule": "capsules (radius and half length half of)",
            "mixed": "spheres, cubes and capsules (by layer) of size"}[args.shape]
    plural = {"sphere": "spheres", "box": "boxes", "capsule": "capsules", "mixed": "bodies"}
    steps = round(args.duration / args.time_step)
    # One grid of all copies; mixed: one grid per layer, sphere, box, capsule in turn.
    if args.shape != "mixed":
        grids = [{"name": args.shape, "density": args.density, "position": first,
                  "shapes": [shapes[args.shape]],
                  "grid": {"count": [nx, ny, nz], "spacing": [spacing] * 3,
                           "jitter": {"amplitude": round(jitter, 12), "seed": args.seed}}}]
    else:
        kinds = ["sphere", "box", "capsule"]
        grids = [{"name": "layer%d_%s" % (k, kinds[k % 3]), "density": args.density,
                  "position": [first[0], first[1], round(first[2] + k * spacing, 12)],
                  "shapes": [shapes[kinds[k % 3]]],
                  "grid": {"count": [nx, ny, 1], "spacing": [spacing] * 3,
                           "jitter": {"amplitude": round(jitter, 12), "seed": args.seed + k}}}
                 for k in range(nz)]
    # Lemke (exact) for small piles; PGS at a fixed sweep budget for large ones, as engines
    # run it (dense pivoting on thousands of contact variables takes seconds per step).
    sweeps = args.sweeps if args.sweeps is not None else (0 if n <= 10 else 50)
    solver = "lemke" if sweeps == 0 else {"name": "pgs", "tol": 0, "max_iter": sweeps}
    scene = {
        "$schema": "scene.schema.json",
        "lcpsim": 1,
        "name": "pile of %d %s" % (n, plural[args.shape]),
        "description": (
            "%d %s %g m (density %g kg/m^3, mu %g) start on a %d x %d x %d grid, spacing %g m, "
            "each copy moved by at most %g m per axis (deterministic jitter, seed %d), and fall "
            "under gravity into a square bin (inner width %g m, walls %g m high: static boxes "
            "on a ground plane) where they settle into a pile; %g s at h = %g s. What a test "
            "checks: the scene parses into %d dynamic bodies that never leave the bin, and the "
            "pile comes to rest (kinetic energy near 0 at the end). Solver: %s. Made by "
            "scripts/make_pile.py %d --shape %s." % (
                n, what, s, args.density, args.mu, nx, ny, nz, spacing, jitter, args.seed,
                2 * w, height, args.duration, args.time_step, n,
                "Lemke" if sweeps == 0 else "PGS at a fixed budget of %d sweeps (tol 0)" % sweeps,
                n, args.shape)),
        "dimension": 3,
        "time_step": args.time_step,
        "steps": steps,
        "gravity": [0, 0, -9.81],
        "solver": solver,
        "bodies": [
            {"name": "bin", "type": "static", "shapes": [
                {"type": "plane", "name": "ground", "mu": args.mu}] + walls},
        ] + grids,
    }
    return scene


def check_args(ap, args):
    """Refuses (exit 2, naming the option) a value that would write a scene lcpsim refuses,
    a traceback, or a run other than the one asked for (a duration rounded to whole steps
    while the description gives the duration asked)."""
    if args.n < 1:
        ap.error("N must be >= 1, got %d" % args.n)
    for opt, x, low, strict in (("--size", args.size, 0.0, True), ("--gap", args.gap, 0.0, True),
                                ("--clearance", args.clearance, 0.0, False),
                                ("--wall-height", args.wall_height, 0.0, True),
                                ("--density", args.density, 0.0, True),
                                ("--mu", args.mu, 0.0, False),
                                ("--time-step", args.time_step, 0.0, True),
                                ("--duration", args.duration, 0.0, True)):
        if x is None:
            continue
        if not math.isfinite(x) or x < low or (strict and x == low):
            ap.error("%s: must be a finite number %s %g, got %r" % (opt, ">" if strict else ">=",
                                                                   low, x))
    if args.sweeps is not None and args.sweeps < 0:
        ap.error("--sweeps: must be >= 0 (0: Lemke), got %d" % args.sweeps)
    # lcpsim's own rule for a duration: a whole number of steps to 1e-9 of the count.
    steps = args.duration / args.time_step
    if round(steps) < 1 or abs(steps - round(steps)) > 1e-9 * max(1.0, steps):
        ap.error("--duration %g is not a whole number (>= 1) of --time-step %g (%.6g steps)"
                 % (args.duration, args.time_step, steps))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("n", type=int, help="number of falling bodies")
    ap.add_argument("--shape", choices=["sphere", "box", "capsule", "mixed"], default="sphere")
    ap.add_argument("--size", type=float, default=0.1, help="radius or half extent, m")
    ap.add_argument("--gap", type=float, default=0.05, help="free space between copies, m")
    ap.add_argument("--jitter", type=float, default=None, help="jitter amplitude, m")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--clearance", type=float, default=0.1, help="bin margin around the grid, m")
    ap.add_argument("--wall-height", type=float, default=None, help="m; default from the pile")
    ap.add_argument("--density", type=float, default=500.0, help="kg/m^3")
    ap.add_argument("--mu", type=float, default=0.5)
    ap.add_argument("--time-step", type=float, default=0.01)
    ap.add_argument("--duration", type=float, default=3.0)
    ap.add_argument("--sweeps", type=int, default=None,
                    help="PGS at a fixed budget of this many sweeps (the scene's solver); "
                         "default: Lemke for up to 10 bodies, else 50 sweeps")
    ap.add_argument("-o", "--output", default="-", help="file to write; - for stdout")
    args = ap.parse_args()
    check_args(ap, args)
    text = dump(pile(args)) + "\n"
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main()
