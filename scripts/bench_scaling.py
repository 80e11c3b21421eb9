#!/usr/bin/python3
"""CPU time per step against the number of bodies: lcpsim's PGS (20 sweeps, one thread;
optionally also a team of T) and ODE's QuickStep (20 iterations) on piles of boxes from
N = 10 to 100 000 (build/bench/bench_pile --cpu, every size in one process, the runs taking
turns), and the exact solver (newton) on the sphere piles data/pile_{10,100,1000}.json
(build/bench/bench_exact). Every pile first takes --skip untimed steps (30: the boxes
fall 0.05 m and the contact count levels off within about 30 steps at every N), then the
timed steps: --steps, or by default 100 up to N = 3000, 50 at 10 000, 20 at 30 000 and 10
at 100 000. Writes the points to DIR/scaling.csv (series,N,ms_per_step), fits the
log-log slopes over N = 1000 .. 100 000 and draws the figure with scripts/plot_scaling.py
(which also takes further CSV series, e.g. another solver measured later).

usage: scripts/bench_scaling.py [--sizes 10,100,...] [--steps S] [--skip K] [--out DIR]
                                [--no-exact] [--team] [--ode-max N] [--figure PNG]
Writes DIR/scaling.csv, DIR/scaling.png, DIR/scaling.pdf and DIR/README.md (default DIR
out/scaling); --figure: the figure there instead (e.g. docs/figures/scaling.png).
"""
import argparse
import csv
import math
import os
import re
import subprocess
import sys

import numpy as np


def run(cmd, want_stderr=False):
    """Runs cmd, returns stdout (and stderr); stops the script with stderr on failure."""
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("bench_scaling: %s failed:\n%s" % (" ".join(cmd), p.stderr))
    return (p.stdout, p.stderr) if want_stderr else p.stdout


def pile_row(out):
    """The numbers of bench_pile's one table row: N, lcpsim ms/step (1, T), ODE ms/step."""
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 9 and cells[0].isdigit():
            n = int(cells[0])
            # a run not made (--one, --no-ode) prints "-"
            num = lambda x: float("nan") if x.strip() == "-" else float(x)
            ms1, mst = (num(x) for x in cells[8].split(","))
            ode = 1e3 / num(cells[4]) if num(cells[4]) > 0 else float("nan")
            return n, ms1, mst, ode
    sys.exit("bench_scaling: no result row in bench_pile's output:\n" + out)


def slope(ns, ts):
    """Least-squares slope of log t against log N."""
    x, y = np.log(np.asarray(ns, float)), np.log(np.asarray(ts, float))
    return float(np.polyfit(x, y, 1)[0])


def default_steps(n):
    """Timed steps at N (fewer at large N, where a step takes up to a second)."""
    return 100 if n <= 3000 else 50 if n <= 10000 else 20 if n <= 30000 else 10


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10,30,100,300,1000,3000,10000,30000,100000")
    ap.add_argument("--steps", type=int, default=0, help="timed steps at every N (0: by N)")
    ap.add_argument("--skip", type=int, default=30)
    ap.add_argument("--out", default="out/scaling")
    ap.add_argument("--figure", default="")
    ap.add_argument("--no-exact", action="store_true")
    ap.add_argument("--team", action="store_true", help="also lcpsim with a team of 2")
    ap.add_argument("--ode-max", type=int, default=100000, help="ODE up to this N")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    sizes = [int(s) for s in a.sizes.split(",")]
    load = os.getloadavg()[0]
    pgs_name = "lcpsim, PGS 20 sweeps, 1 thread"
    team_name = "lcpsim, PGS 20 sweeps, team of 2 (CPU of both)"
    ode_name = "ODE QuickStep, 20 iterations, 1 thread"
    exact_name = "lcpsim newton (exact), sphere piles, first 40 steps, wall time"

    rows = []
    for n in sizes:
        steps = a.steps or default_steps(n)
        cmd = ["build/bench/bench_pile", "--n", str(n), "--steps", str(steps), "--skip",
               str(a.skip), "--no-lemke", "--cpu"]
        if not a.team:
            cmd.append("--one")
        if n > a.ode_max:
            cmd.append("--no-ode")
        r = pile_row(run(cmd))
        rows.append(r + (steps,))
        print("N = %d (%d steps after %d): PGS %.3f ms/step (1 thread), %.3f (team), ODE %.3f"
              % ((r[0], steps, a.skip) + r[1:]), flush=True)

    exact = []
    if not a.no_exact:
        for n in (10, 100, 1000):
            # newton's series alone (the sparse Lemke series take seconds a step on pile_1000)
            out = run(["build/bench/bench_exact", "data/pile_%d.json" % n, "--steps", "40",
                       "--no-lemke", "--no-pgs", "--only", "newton, islands"])
            m = re.search(r"n up to (\d+)", out)
            for line in out.splitlines():
                cells = [c.strip() for c in line.strip().strip("|").split("|")]
                if cells and cells[0] == "newton, islands":
                    exact.append((n, int(m.group(1)), float(cells[4]), int(cells[2]),
                                  int(cells[1])))
            print("pile_%d: newton median %.2f ms/step, %d of %d steps solved to 1e-10"
                  % (n, exact[-1][2], exact[-1][3], exact[-1][4]), flush=True)

    csv_path = os.path.join(a.out, "scaling.csv")
    points = [(pgs_name, n, ms1) for n, ms1, _, _, _ in rows]
    points += [(ode_name, n, ode) for n, _, _, ode, _ in rows if math.isfinite(ode)]
    if a.team:
        points += [(team_name, n, mst) for n, _, mst, _, _ in rows]
    points += [(exact_name, e[0], e[2]) for e in exact]
    with open(csv_path, "w", newline="") as f:
        f.write("# bench_pile --cpu --skip %d, CPU time per step, load average %.1f at the start "
                "on 2 cores\n" % (a.skip, load))
        w = csv.writer(f)
        w.writerow(["series", "N", "ms_per_step"])
        for name, n, ms in points:
            w.writerow([name, n, "%.6g" % ms])
    figure = a.figure or os.path.join(a.out, "scaling.png")
    plot = subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "plot_scaling.py"),
                           csv_path, "-o", figure,
                           "--title", "Time per step against N, pile of boxes in a bin "
                           "(load average %.1f, 2 cores)" % load],
                          capture_output=True, text=True)
    if plot.returncode != 0:
        sys.exit("bench_scaling: plot_scaling.py failed:\n" + plot.stderr)
    print(plot.stdout, end="")
    ns = [r[0] for r in rows]
    big = [i for i, n in enumerate(ns) if 1000 <= n <= 100000]
    s1 = slope([ns[i] for i in big], [rows[i][1] for i in big]) if len(big) > 1 else float("nan")
    obig = [i for i in big if math.isfinite(rows[i][3])]
    so = slope([ns[i] for i in obig], [rows[i][3] for i in obig]) if len(obig) > 1 else float("nan")
    # The exact solver's slope between consecutive piles (its points are few and the
    # sparse LU's fill makes it steepen with N: one slope over all would hide that).
    se = ", ".join("%.2f from N = %d to %d" % (math.log(b[2] / a_[2]) / math.log(b[0] / a_[0]),
                                               a_[0], b[0]) for a_, b in zip(exact, exact[1:]))

    with open(os.path.join(a.out, "README.md"), "w") as f:
        f.write("# Time per step against N\n\n")
        f.write("Boxes in a bin (bench/bench_pile --cpu: the process's CPU time; %d untimed steps, "
                "then the timed ones; load average %.1f at the start on 2 cores). Log-log slopes "
                "over N = 1000 .. 100 000: the whole step (detection, assembly, PGS, update), "
                "1 thread, %.2f; ODE %.2f.\n\n" % (a.skip, load, s1, so))
        f.write("| N | timed steps | lcpsim ms/step, 1 thread | lcpsim, team of 2 (CPU of both) "
                "| ODE ms/step |\n|---:|---:|---:|---:|---:|\n")
        for n, ms1, mst, ode, steps in rows:
            f.write("| %d | %d | %.3f | %s | %s |\n" % (n, steps, ms1,
                    "%.3f" % mst if a.team else "-", "%.3f" % ode if math.isfinite(ode) else "-"))
        if exact:
            f.write("\nExact solver (newton, islands, warm started; bench/bench_exact, first 40 "
                    "steps of data/pile_N.json, falling; wall time): slope %s.\n\n| N | n up to | median ms/step "
                    "| solved to 1e-10 |\n|---:|---:|---:|---:|\n" % se)
            for e in exact:
                f.write("| %d | %d | %.2f | %d of %d |\n" % e)
        f.write("\n![](%s)\n" % os.path.relpath(figure, a.out))
    print(open(os.path.join(a.out, "README.md")).read())


if __name__ == "__main__":
    main()
