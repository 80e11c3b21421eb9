#!/usr/bin/python3
"""CPU time per step against the number of bodies: lcpsim's PGS (20 sweeps, one thread and a
team of T) and ODE's QuickStep (20 iterations) on piles of boxes from N = 10 to 100 000
(build/bench/bench_pile, every size in one process each, the runs taking turns), and the
exact solver (newton) on the sphere piles data/pile_{10,100,1000}.json
(build/bench/bench_exact). Fits the log-log slope of time per step against N and draws
the figure.

usage: scripts/bench_scaling.py [--sizes 10,100,...] [--steps S] [--out DIR] [--no-exact]
Writes DIR/scaling.png, DIR/scaling.pdf and DIR/README.md (default DIR out/scaling).
"""
import argparse
import os
import re
import subprocess
import sys

import numpy as np

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


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
            ms1, mst = (float(x) for x in cells[8].split(","))
            ode = 1e3 / float(cells[4]) if float(cells[4]) > 0 else float("nan")
            return n, ms1, mst, ode
    sys.exit("bench_scaling: no result row in bench_pile's output:\n" + out)


def slope(ns, ts):
    """Least-squares slope of log t against log N."""
    x, y = np.log(np.asarray(ns, float)), np.log(np.asarray(ts, float))
    return float(np.polyfit(x, y, 1)[0])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10,30,100,300,1000,3000,10000,30000,100000")
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--out", default="out/scaling")
    ap.add_argument("--no-exact", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    sizes = [int(s) for s in a.sizes.split(",")]
    load = os.getloadavg()[0]

    rows = []
    for n in sizes:
        r = pile_row(run(["build/bench/bench_pile", "--n", str(n), "--steps", str(a.steps),
                          "--no-lemke", "--cpu"]))
        rows.append(r)
        print("N = %d: PGS %.3f ms/step (1 thread), %.3f (team), ODE %.3f" % r, flush=True)
    ns = [r[0] for r in rows]
    big = [i for i, n in enumerate(ns) if n >= 100]
    s1 = slope([ns[i] for i in big], [rows[i][1] for i in big])
    st = slope([ns[i] for i in big], [rows[i][2] for i in big])
    so = slope([ns[i] for i in big], [rows[i][3] for i in big])

    exact = []
    if not a.no_exact:
        for n in (10, 100, 1000):
            out = run(["build/bench/bench_exact", "data/pile_%d.json" % n, "--steps", "40",
                       "--no-lemke"])
            m = re.search(r"n up to (\d+)", out)
            for line in out.splitlines():
                cells = [c.strip() for c in line.strip().strip("|").split("|")]
                if cells and cells[0] == "newton, islands":
                    exact.append((n, int(m.group(1)), float(cells[4]), int(cells[2]),
                                  int(cells[1])))
            print("pile_%d: newton median %.2f ms/step, %d of %d steps solved to 1e-10"
                  % (n, exact[-1][2], exact[-1][3], exact[-1][4]), flush=True)
    se = slope([e[0] for e in exact], [e[2] for e in exact]) if len(exact) > 1 else float("nan")

    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    ax.loglog(ns, [r[1] for r in rows], "o-", label="lcpsim step, PGS 20 sweeps, 1 thread (slope %.2f)" % s1)
    ax.loglog(ns, [r[3] for r in rows], "^--", label="ODE QuickStep, 20 iterations (slope %.2f)" % so)
    if exact:
        ax.loglog([e[0] for e in exact], [e[2] for e in exact], "D-",
                  label="lcpsim newton (exact), sphere piles, median (slope %.2f)" % se)
    ref = np.array([ns[0], ns[-1]], float)
    ax.loglog(ref, rows[big[0]][1] * ref / ns[big[0]], ":", color="gray", label="slope 1")
    ax.set_xlabel("bodies N")
    ax.set_ylabel("CPU time per step [ms]")
    ax.set_title("Time per step against pile size (load average %.1f, 2 cores)" % load,
                 fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7.5, loc="upper left")
    fig.tight_layout()
    for ext in ("png", "pdf"):
        fig.savefig(os.path.join(a.out, "scaling." + ext), dpi=130)

    with open(os.path.join(a.out, "README.md"), "w") as f:
        f.write("# Time per step against N\n\n")
        f.write("Boxes in a bin (bench/bench_pile --cpu, %d steps each, the process's CPU time, "
                "load average %.1f at the start on 2 cores). Log-log slopes over N >= 100: the "
                "whole step (detection, assembly, PGS, update), 1 thread, %.2f; ODE %.2f (lcpsim "
                "with a team of 2: %.2f, CPU time of both members, spinning included).\n\n"
                % (a.steps, load, s1, so, st))
        f.write("| N | lcpsim ms/step, 1 thread | lcpsim, 2 threads (CPU of both) "
                "| ODE ms/step |\n|---:|---:|---:|---:|\n")
        for r in rows:
            f.write("| %d | %.3f | %.3f | %.3f |\n" % r)
        if exact:
            f.write("\nExact solver (newton, islands, warm started; bench/bench_exact, first 40 "
                    "steps of data/pile_N.json): slope %.2f.\n\n| N | n up to | median ms/step "
                    "| solved to 1e-10 |\n|---:|---:|---:|---:|\n" % se)
            for e in exact:
                f.write("| %d | %d | %.2f | %d of %d |\n" % e)
        f.write("\n![](scaling.png)\n")
    print(open(os.path.join(a.out, "README.md")).read())


if __name__ == "__main__":
    main()
