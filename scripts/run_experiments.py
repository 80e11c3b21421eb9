#!/usr/bin/python3
"""Runs the solver-comparison experiments of data/experiments/*.json and writes, under
one folder (default out/experiments/), per experiment its compare file, its summary
table and its figures (PNG and PDF), and a README.md with the table of results.

    /usr/bin/python3 scripts/run_experiments.py [--out DIR] [--only NAME ...] [--lcpsim BIN]

An experiment definition (JSON):
    name, title          folder / figure prefix, and a one-line description
    scene                scene file (relative to the repository root), or
    kind: "lcp_set"      with files: a glob relative to $LSIM_SHARED/data (../shared by
                         default): every solver, cold, on every file, no time stepping
    kind: "fc_set"       the same with frictional contact files (files: a glob or a list
                         of globs); exact-cone and polyhedral (spec key d) solvers
    mode                 "shadow" (default) or "independent"
    reference            reference solver spec (default: the first solver)
    solvers              solver specs (lcpsim compare --solvers, e.g. "pgs[sweeps=20]")
    steps                optional: override the scene's number of steps
    success_tol          optional: success threshold on the relative natural residual
    dense_limit          optional: lcpsim compare --dense-limit (solvers that need the dense
                         M are skipped, and said so, on steps with more variables)
    timeout_s            optional: give up after this long (default 600 s)
    time_limit           optional: lcpsim compare --time-limit S (each solve in a forked
                         child: past S a timeout, and a solver that crashes the process is
                         recorded as failed instead of ending the experiment)
    pending              optional: a reason not to run it yet (listed as pending)
    note                 optional: a remark printed with the results
An experiment whose scene file does not exist yet is listed as "pending (scene not
available)"; one that fails or times out is listed as such; the others still run. One
whose steps had no LCP (nothing in contact) is listed as done with nothing compared: no
best solver, no figures.
Exit status: 0 when every available experiment ran, 1 otherwise.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)


def load_experiments(folder, only):
    exps = []
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        with open(path) as f:
            e = json.load(f)
        e.setdefault("name", os.path.splitext(os.path.basename(path))[0])
        if only and e["name"] not in only:
            continue
        exps.append(e)
    # LCP sets last, trajectories in file order.
    return sorted(exps, key=lambda e: e.get("kind") in ("lcp_set", "fc_set"))


def command(e, lcpsim, h5):
    """The lcpsim compare command line of experiment e, or (None, reason) if it cannot run."""
    args = [lcpsim, "compare"]
    if e.get("pending"):
        return None, f"pending ({e['pending']})"
    if e.get("kind") in ("lcp_set", "fc_set"):
        shared = os.environ.get("LSIM_SHARED", os.path.join(ROOT, "..", "shared"))
        if not os.path.isabs(shared):
            shared = os.path.join(ROOT, shared)
        globs = e["files"] if isinstance(e["files"], list) else [e["files"]]
        files = sorted(f for g in globs for f in glob.glob(os.path.join(shared, "data", g)))
        if not files:
            return None, f"pending (no files match {e['files']} under {shared}/data)"
        args += files
    else:
        scene = os.path.join(ROOT, e["scene"])
        if not os.path.exists(scene):
            return None, "pending (scene not available)"
        args += [scene, "--mode", e.get("mode", "shadow")]
        if e.get("steps"):
            args += ["--steps", str(e["steps"])]
    args += ["--solvers", ",".join(e["solvers"]), "-o", h5]
    if e.get("reference"):
        args += ["--reference", e["reference"]]
    if e.get("success_tol") is not None:
        args += ["--success-tol", repr(float(e["success_tol"]))]
    if e.get("time_limit") is not None:
        args += ["--time-limit", repr(float(e["time_limit"]))]
    if e.get("dense_limit") is not None and e.get("kind") not in ("lcp_set", "fc_set"):
        args += ["--dense-limit", str(int(e["dense_limit"]))]
    return args, None


def markdown_only(text):
    """The title and table lines of lcpsim compare's output (some Siconos solvers print
    to stdout themselves; their lines are dropped)."""
    lines = text.splitlines()
    keep = [l for l in lines if l.startswith("|")]
    title = next((l for l in lines if (" mode, " in l or "contact set:" in l) and "->" in l), "")
    return title, "\n".join(keep)


def failing_series(labels, rates):
    """The series whose success rate is below 50 %, sorted; a solver's cold and warm series
    both below it are named once without the suffix, one alone keeps its (cold) / (warm)
    (cold PGS at 10 sweeps fails where the warm one passes: not the same finding)."""
    low = {l for l, r in zip(labels, rates) if r < 0.5}
    out = set()
    for l in low:
        for a, b in ((" (cold)", " (warm)"), (" (warm)", " (cold)")):
            if l.endswith(a) and l[:-len(a)] + b in low:
                l = l[:-len(a)]
        out.add(l)
    # numbers in labels by value: pgs[sweeps=10], [sweeps=20], ..., [sweeps=200]
    return sorted(out, key=lambda l: [int(t) if t.isdigit() else t
                                      for t in re.split(r"(\d+)", l)])


# The status of an experiment that ran but whose steps had no LCP.
NO_LCP = "done: no step had an LCP (nothing in contact), nothing compared"


def run_one(e, lcpsim, outdir):
    """Runs experiment e; returns a result dict for the README."""
    import lcpsim_compare as lc
    name = e["name"]
    d = os.path.join(outdir, name)
    os.makedirs(d, exist_ok=True)
    h5 = os.path.join(d, name + ".h5")
    res = {"e": e, "status": "", "seconds": 0.0, "table": "", "figures": [], "outcomes": ""}
    args, why = command(e, lcpsim, h5)
    if args is None:
        res["status"] = why
        return res
    t0 = time.time()
    try:
        p = subprocess.run(args, capture_output=True, text=True, cwd=ROOT,
                           timeout=float(e.get("timeout_s", 600)))
    except subprocess.TimeoutExpired:
        res["status"] = f"timed out after {e.get('timeout_s', 600)} s"
        res["seconds"] = time.time() - t0
        return res
    res["seconds"] = time.time() - t0
    if p.returncode != 0:
        err = (p.stderr.strip().splitlines() or ["?"])[-1]
        res["status"] = f"failed (exit {p.returncode}: {err})"
        return res
    title, table = markdown_only(p.stdout)
    with open(os.path.join(d, "summary.md"), "w") as f:
        f.write(title + "\n\n" + table + "\n")
    res["table"] = table
    c = lc.load(h5)
    res["problems"] = int((c.problem_size > 0).sum())
    res["mode"] = c.parameters.mode
    if res["problems"] == 0:
        # No step had an LCP (nothing in contact over the steps asked): no solver was
        # compared, so no best one, no failing one, no figure (profiles of no problem drew
        # every solver at 0, "solving none", and the best was the first, at 0 %).
        res["status"] = NO_LCP
        res["best"] = res["failing"] = res["skipped"] = "-"
        return res
    res["figures"] = [os.path.relpath(p, outdir) for p in lc.figures(c, d, name)]
    if c.parameters.mode in ("lcp_set", "fc_set"):
        res["outcomes"] = lc.markdown_outcomes(c)
        with open(os.path.join(d, "outcomes.md"), "w") as f:
            f.write(res["outcomes"] + "\n")
    # Best series: the most successes over every problem with an LCP (skipped solves count
    # as not solved here), then the lowest median time. The success rates themselves are
    # over the problems each series solved (skipped ones left out).
    s = c.summary
    P = len(c.series.label)
    skipped = np.asarray(getattr(s, "skipped", np.zeros(P)), dtype=int)
    tried = np.asarray(s.problems, dtype=int) + skipped
    share = [s.successes[i] / tried[i] if tried[i] else 0.0 for i in range(P)]
    wall = [s.median_wall_time[i] if np.isfinite(s.median_wall_time[i]) else np.inf
            for i in range(P)]
    best = sorted(range(P), key=lambda i: (-share[i], wall[i]))[0]
    res["best"] = f"{c.series.label[best]}, {100 * share[best]:.0f}%"
    res["failing"] = ", ".join(failing_series(c.series.label, s.success_rate)) or "none"
    res["skipped"] = ", ".join(sorted({f"{c.series.label[i].replace(' (cold)', '').replace(' (warm)', '')}"
                                       f" ({skipped[i]} of {tried[i]})"
                                       for i in range(P) if skipped[i] > 0})) or "none"
    res["status"] = "done"
    return res


def readme(results, outdir):
    out = ["# lcpsim solver-comparison experiments", "",
           "Generated by `make experiments` (`scripts/run_experiments.py`) from the definitions",
           "in `data/experiments/`. Success = the common relative natural residual of the",
           "solution at most the experiment's threshold (1e-6 unless stated), the same test",
           "for every solver; a solver's own status is recorded beside it: `missed tol.` counts",
           "solves that finished (solved by their own status) above the threshold (a polyhedral",
           "cone's exact-cone residual, a solver asked for less), `stopped at budget`",
           "counts solves that ended at their iteration budget (fixed-sweep PGS by design; one",
           "succeeds when its answer passes), `failed` the failures (a ray, a breakdown, a",
           "Siconos error, a timeout), never successes. Times are wall times of single",
           "solves on this machine, so only their",
           "ratios mean much. Scenes hand every solver the factored LCP (M = J B + C); solvers",
           "that need the dense M (all but `pgs`, `newton` and `lemke_sparse`: `lemke` and the",
           "`siconos:` solvers) are skipped on steps with more variables than",
           "the dense limit (4000 unless stated) and said so: the `skipped` column of a table,",
           "'skipped' below (steps skipped of steps with an LCP), never counted as failures;",
           "in frictional contact sets 'skipped' counts the problems of the other dimension",
           "(a 2-D solver on 3-D files and the reverse);",
           "'best' ranks successes over every step with an LCP, then the median time;",
           "'success < 50%' names a solver alone when both its series are below, else the",
           "series (cold) or (warm).",
           "Files: docs/output-format.md, 'Compare files'.", "",
           "| experiment | input | mode | problems | status | run time | best (success) | "
           "success < 50% | skipped |", "|---|---|---|---:|---|---:|---|---|---|"]
    for r in results:
        e = r["e"]
        inp = e.get("scene") or e.get("files")
        inp = ", ".join(inp) if isinstance(inp, list) else inp
        done = r["status"] in ("done", NO_LCP)
        out.append(f"| [{e['name']}](#{e['name'].replace('_', '-')}) | `{inp}` | "
                   f"{r.get('mode', e.get('kind', e.get('mode', 'shadow')))} | "
                   f"{r.get('problems', '') if done else ''} | {r['status']} | "
                   f"{r['seconds']:.1f} s | {r.get('best', '')} | {r.get('failing', '')} | "
                   f"{r.get('skipped', '')} |")
    for r in results:
        e = r["e"]
        out += ["", f"## {e['name']}", "", e.get("title", ""), "",
                f"Solvers: `{','.join(e['solvers'])}`"
                + ("" if e.get("kind") == "fc_set"  # no reference: no distance measured
                   else f"; reference `{e.get('reference', e['solvers'][0])}`")
                + (f"; {e['steps']} steps" if e.get("steps") else "")
                + (f"; dense limit {e['dense_limit']}" if e.get("dense_limit") is not None else "")
                + ".", ""]
        if e.get("note"):
            out += [f"Note: {e['note']}.", ""]
        if r["status"] != "done":
            out.append(f"Status: {r['status']}.")
            if r["status"] == NO_LCP:
                out += ["", r["table"]]
            continue
        out += [r["table"], ""]
        if r["outcomes"]:
            out += ["Outcome per problem ('ok': success; else the solver's status, "
                    "'inaccurate' when it claimed success above the threshold):", "",
                    r["outcomes"], ""]
        pngs = [f for f in r["figures"] if f.endswith(".png")]
        out += [f"![{os.path.basename(f)}]({f})" for f in pngs]
        out.append("")
        out.append("Figures (PNG and PDF): " + ", ".join(f"`{f}`" for f in r["figures"]))
    path = os.path.join(outdir, "README.md")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    return path


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "out", "experiments"))
    ap.add_argument("--defs", default=os.path.join(ROOT, "data", "experiments"))
    ap.add_argument("--only", nargs="*", help="experiment names to run")
    ap.add_argument("--lcpsim", default=os.path.join(ROOT, "lcpsim"))
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    results = []
    for e in load_experiments(a.defs, a.only):
        print(f"== {e['name']}", flush=True)
        r = run_one(e, a.lcpsim, a.out)
        print(f"   {r['status']} ({r['seconds']:.1f} s)", flush=True)
        results.append(r)
    print(readme(results, a.out))
    bad = [r for r in results if r["status"] not in ("done", NO_LCP)
           and not r["status"].startswith("pending")]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
