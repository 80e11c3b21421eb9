#!/usr/bin/python3
"""Cost per step of a Python controller loop against C, on the 5-box stack (box_stack_3d).

    PYTHONPATH=python /usr/bin/python3 bench/bench_python_loop.py [--steps N]

Three ways to run the same steps, each repeated and alternated, the best of each kept:
  command     `lcpsim data/box_stack_3d.json` (load, steps, HDF5 record), per step
  C loop      Sim.run(N): the steps in the library's own loop, no Python per step
  Python      a Python loop: sim.step() with a Python controller that reads q and v of the
              top box and sets its force (a PD hold of its height: zero at rest)
  Py+record   the same Python loop recording to HDF5 as the command does (sim.record before
              the loop, record_close after, both timed): the like-for-like peer of the command
Prints each per-step time and the ratios of the Python loops to the command and to the C loop.
--cpu measures CPU time instead of wall time (this process's for the loops, the child's
for the command: resource.getrusage), for figures on a loaded machine (the machine's other
work then costs nothing here; the library runs one thread).
"""
import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import lcpsim  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--steps", type=int, default=1000)
ap.add_argument("--repeats", type=int, default=5)
ap.add_argument("--cpu", action="store_true", help="CPU time instead of wall time")
args = ap.parse_args()
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
scene = os.path.join(root, "data", "box_stack_3d.json")
N = args.steps
clock = time.process_time if args.cpu else time.perf_counter


def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def command():
    with tempfile.TemporaryDirectory() as d:
        t0, c0 = time.perf_counter(), child_cpu()
        subprocess.run([os.path.join(root, "lcpsim"), scene, "--steps", str(N), "--quiet",
                        "-o", os.path.join(d, "x.h5")], check=True)
        return ((child_cpu() - c0) if args.cpu else (time.perf_counter() - t0)) / N


def c_loop():
    sim = lcpsim.Sim.load(scene)
    t0 = clock()
    sim.run(N)
    dt = (clock() - t0) / N
    sim.close()
    return dt


def python_loop(record=False):
    sim = lcpsim.Sim.load(scene)
    tmp = tempfile.TemporaryDirectory() if record else None
    top = len(sim.bodies) - 1
    qs, vs = sim.bodies[top]["q"], sim.bodies[top]["v"]
    z0 = sim.q[qs][2]
    m, g = sim.bodies[top]["mass"], 9.81
    f = [0.0] * 6

    def hold(s):
        q, v = s.q[qs], s.v[vs]
        f[2] = 0.0 * (m * g) + 50.0 * (z0 - q[2]) - 5.0 * v[2]  # PD on the height
        s.set_force(top, f)

    sim.controller = hold
    t0 = clock()
    if record:
        sim.record(os.path.join(tmp.name, "x.h5"))
    for _ in range(N):
        sim.step()
    if record:
        sim.record_close()
    dt = (clock() - t0) / N
    sim.close()
    if tmp:
        tmp.cleanup()
    return dt


best = {"command": 1e9, "C loop": 1e9, "Python": 1e9, "Py+record": 1e9}
for _ in range(args.repeats):
    best["command"] = min(best["command"], command())
    best["C loop"] = min(best["C loop"], c_loop())
    best["Python"] = min(best["Python"], python_loop())
    best["Py+record"] = min(best["Py+record"], python_loop(record=True))
for k, v in best.items():
    print("%-9s %8.2f us per step (%s)" % (k, 1e6 * v, "CPU" if args.cpu else "wall"))
print("Python controller loop / command: %.3f" % (best["Python"] / best["command"]))
print("Python controller loop / C loop:  %.3f" % (best["Python"] / best["C loop"]))
print("Python loop recording / command:  %.3f" % (best["Py+record"] / best["command"]))
