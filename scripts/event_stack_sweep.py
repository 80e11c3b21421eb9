#!/usr/bin/python3
"""The event-driven integrator on 216 stacks of boxes (docs/hybrid.md, "Rigid bodies: edges").

Scenes: 2 or 3 boxes of 1 kg on the ground (a 1 m cube, in 3-box stacks a 0.8 m cube on it),
the top a cube of half size 0.25 or 0.35 m thrown at 2, 3.5 or 5 m/s, straight (x) or
obliquely (0.9, 0.3), so that it slides off; ground shape mu 0, 0.05, 0.3, box shapes' mu
0, 0.3, 0.6; 2 s each, record period 0.01 s. Each scene is run by LCPSIM with a wall-time
limit and classified by why it stopped: complete, root jump: KIND (a force, cone, slip, ...
root not located: the name the run's message gives it), vanished (a persistent contact
detection lost), penetration (a sample found two bodies more than 1e-6 m inside each
other: an impact not located), pulling (a sample found a persistent contact pulling: a
force root not seen crossing 0), lemke, crawl (past the time limit), other.

usage: event_stack_sweep.py LCPSIM OUTDIR [--jobs 2] [--timeout 60] [--only NAME,...]
Writes OUTDIR/NAME.json, NAME.h5 and results.tsv (name, class, wall s, stderr); prints the
counts per class."""
import json, os, re, subprocess, sys, time, itertools
from concurrent.futures import ThreadPoolExecutor

def scenes():
    for nb, mg, mb, a, v, obl in itertools.product((2, 3), (0.0, 0.05, 0.3), (0.0, 0.3, 0.6),
                                                  (0.25, 0.35), (2.0, 3.5, 5.0), (0, 1)):
        bodies = [{"name": "ground", "type": "static", "shapes": [{"type": "plane", "mu": mg}]},
                  {"name": "b0", "mass": 1, "position": [0, 0, 0.5],
                   "shapes": [{"type": "box", "half_extents": [0.5, 0.5, 0.5], "mu": mb}]}]
        z = 1.0
        if nb == 3:
            bodies.append({"name": "b1", "mass": 1, "position": [0, 0, z + 0.4],
                           "shapes": [{"type": "box", "half_extents": [0.4, 0.4, 0.4], "mu": mb}]})
            z += 0.8
        vel = [v, 0.0, 0] if not obl else [v * 0.9, v * 0.3, 0]
        bodies.append({"name": "top", "mass": 1, "position": [0, 0, z + a], "velocity": vel,
                       "shapes": [{"type": "box", "half_extents": [a, a, a], "mu": mb}]})
        name = "n%d_g%g_b%g_a%g_v%g_o%d" % (nb, mg, mb, a, v, obl)
        yield name, {"lcpsim": 1, "name": name, "dimension": 3, "time_step": 0.01, "duration": 2.0,
                     "gravity": [0, 0, -9.81], "integrator": "event_driven", "bodies": bodies}

def classify(rc, err):
    if rc == "timeout": return "crawl (>timeout)"
    if rc == 0: return "complete"
    if "vanished from detection" in err: return "vanished"
    if "interpenetrate" in err: return "penetration"
    if " pulls with " in err: return "pulling"
    if "Lemke" in err: return "lemke"
    m = re.search(r"root \d+ \((\w+)", err)
    if m: return "root jump: " + m.group(1)
    if "root" in err and "not located" in err or "discontinuous" in err: return "root jump: ?"
    return "other: " + err.strip().splitlines()[-1][:100] if err.strip() else "other rc=%s" % rc

def run(lcpsim, out, name, sc, timeout):
    path = os.path.join(out, name + ".json")
    json.dump(sc, open(path, "w"), indent=1)
    t0 = time.time()
    try:
        p = subprocess.run([lcpsim, path, "-o", os.path.join(out, name + ".h5"), "--quiet"],
                           capture_output=True, text=True, timeout=timeout)
        rc, err = p.returncode, p.stderr
    except subprocess.TimeoutExpired:
        rc, err = "timeout", ""
    return name, rc, err, time.time() - t0

def main():
    if len(sys.argv) < 3 or sys.argv[1] in ("-h", "--help"):
        try:
            print(__doc__, flush=True)
        except BrokenPipeError:  # a reader that stops early (| head)
            sys.stdout = None
        sys.exit(0 if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help") else 2)
    lcpsim, out = sys.argv[1], sys.argv[2]
    jobs, timeout, only = 2, 60.0, None
    a = sys.argv[3:]
    for i in range(0, len(a), 2):
        if a[i] == "--jobs": jobs = int(a[i + 1])
        elif a[i] == "--timeout": timeout = float(a[i + 1])
        elif a[i] == "--only": only = set(a[i + 1].split(","))
    os.makedirs(out, exist_ok=True)
    todo = [(n, s) for n, s in scenes() if only is None or n in only]
    counts = {}
    with ThreadPoolExecutor(jobs) as ex, open(os.path.join(out, "results.tsv"), "w") as f:
        for name, rc, err, dt in ex.map(lambda ns: run(lcpsim, out, ns[0], ns[1], timeout), todo):
            c = classify(rc, err)
            counts[c] = counts.get(c, 0) + 1
            msg = err.strip().replace("\n", " | ")
            f.write("%s\t%s\t%.1f\t%s\n" % (name, c, dt, msg)); f.flush()
    print("%d runs" % len(todo))
    for c in sorted(counts, key=lambda c: -counts[c]): print("%4d  %s" % (counts[c], c))

main()
