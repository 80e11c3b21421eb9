#!/usr/bin/python3
"""Where the time of a step goes, stage by stage, on the pile of boxes: RUNS runs of
bench_pile --cpu --no-ode --no-lemke --one --n N --steps S under `perf record -e
cycles:u`; each run's CPU ms per step is split by its self time per function (grouped into
the step's stages below, the program's start-up left out), and each stage's median over
the runs is printed, with the median whole step. Several binaries (e.g. before and after
a change) take turns, so they see the same machine.

usage: scripts/profile_stages.py [--n 1000,10000] [--steps 100] [--runs 3]
                                 [--bench build/bench/bench_pile[=LABEL] ...]
Prints one markdown table per N: ms per step of each stage for each binary.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

# Stage of a function: by name (static functions of the same name in two files are told
# apart by their source file, from addr2line).
STAGES = [
    ("broad phase (place, sort, sweep)",
     r"^(place_shapes|sweep_order|by_key|sweep_pairs|build_bands|detect_23d.*|"
     r"lsim_shape_world_pose|lsim_shape_place|place|lsim_placed_aabb|lsim_body_pose|"
     r"msort.*|qsort.*|plane_round)$"),
    ("narrow phase (manifolds, contacts)",
     r"^(lsim_geom_.*|box_.*|lsim_collide.*|collide_.*|clip.*|fill_point_contact|"
     r"add_point_contact|contacts_append|point_.*|sphere_.*|capsule_.*|segment_.*)$"),
    ("free velocities + integration", r"^(bodies_slice|prepare_.*inert.*|prepare_free.*|"
     r"integrate_range|lsim_quat_.*|__sincos.*|sincos|__sin_fma|__cos_fma|"
     r"lsim_schedule_eval.*)$"),
    ("assembly J, B, C, q", r"^(put_row.*|rows_range.*@step_lcp|cq_range.*|lsim_step_assemble|"
     r"rows_slice|count_entries|reserve_lcp)$"),
    ("warm start", r"^(warm_range|warm_start|warm_slice)$"),
    ("PGS prepare", r"^(prepare_cone.*|row_runs.*|fast_prepare.*|cone_runs.*|prepare_chunk.*|cone_entry.*|cone_blocks_promised.*)$"),
    ("PGS colouring + packing", r"^(lsim_pgs_colour.*|pack_lane.*|pack_range.*|pack_part.*|window_end.*|wide_fits.*)$"),
    ("PGS sweeps", r"^(lsim_pgs_fast_sweep_range.*|fast_sweep.*|lsim_pgs_wide_sweep_range.*|"
     r"wide_(scalar|sse2|avx2)_[df].*|lsim_pgs_sweep_all.*|lsim_pgs_wide_z_(in|out))$"),
    ("PGS residual", r"^(fast_exact.*|rows_range.*@pgs_fast)$"),
    ("impulses + remembered", r"^(impulses_range|remember_range|remember|impulses_slice)$"),
]
OTHER = "copies, step and solver entry, other"
# The program's start-up (loader, scene), left out: the shares are of the rest.
STARTUP = r"^(_dl_.*|do_lookup_x|check_match|dl_main|_dl_relocate_object|strcmp|"
STARTUP += r"lsim_model_finalize|.*build_lcpsim.*|0x[0-9a-f]+)$"


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("profile_stages: %s failed:\n%s" % (" ".join(cmd), p.stderr))
    return p.stdout


def ms_per_step(out):
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 9 and cells[0].isdigit():
            return float(cells[8].split(",")[0])
    sys.exit("profile_stages: no result row:\n" + out)


def source_file(binary, addr, cache):
    key = (binary, addr)
    if key not in cache:
        out = subprocess.run(["addr2line", "-e", binary, addr], capture_output=True,
                             text=True).stdout
        cache[key] = os.path.splitext(os.path.basename(out.split(":")[0]))[0]
    return cache[key]


def profiled(binary, args, cache):
    """(CPU ms per step, {stage: fraction of the cycles}) of one run under perf."""
    with tempfile.TemporaryDirectory() as d:
        data = os.path.join(d, "perf.data")
        p = subprocess.run(["perf", "record", "-q", "-e", "cycles:u", "-F", "5000", "-o", data,
                            binary] + args, capture_output=True, text=True, check=True)
        rep = subprocess.run(["perf", "report", "-i", data, "--no-children", "--sort", "sym",
                              "-v", "--stdio"], capture_output=True, text=True).stdout
    return ms_per_step(p.stdout), shares(binary, rep, cache)


def shares(binary, rep, cache):
    """{stage: fraction of the cycles} from a perf report."""
    out = {}
    for line in rep.splitlines():
        m = re.match(r"\s*([0-9.]+)%\s+(0x[0-9a-f]+)\s+(\S)\s+\[\.\]\s+(\S+)", line)
        if not m:
            continue
        pct, addr, kind, name = float(m.group(1)), m.group(2), m.group(3), m.group(4)
        tagged = name
        if name.startswith("rows_range") and kind == "B":
            tagged = name + "@" + source_file(binary, addr, cache)
        if re.match(STARTUP, name):
            continue
        stage = OTHER
        for st, rx in STAGES:
            if re.match(rx, tagged):
                stage = st
                break
        out[stage] = out.get(stage, 0.0) + pct / 100.0
    total = sum(out.values())
    return {k: v / total for k, v in out.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", default="1000,10000")
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--bench", action="append", default=[])
    a = ap.parse_args()
    benches = []
    for b in a.bench or ["build/bench/bench_pile"]:
        path, _, label = b.partition("=")
        benches.append((path, label or path))
    cache = {}
    for n in [int(x) for x in a.n.split(",")]:
        args = ["--cpu", "--no-ode", "--no-lemke", "--one", "--n", str(n), "--steps", str(a.steps)]
        times = {b: [] for b, _ in benches}
        stage_ms = {b: {} for b, _ in benches}
        for _ in range(a.runs):
            for b, _ in benches:
                ms, split = profiled(b, args, cache)
                times[b].append(ms)
                for st in [s for s, _ in STAGES] + [OTHER]:
                    stage_ms[b].setdefault(st, []).append(ms * split.get(st, 0.0))
        med = {b: statistics.median(times[b]) for b, _ in benches}
        print("\nN = %d, %d steps from the start, median of %d runs (CPU ms per step):\n"
              % (n, a.steps, a.runs))
        print("| stage | " + " | ".join(l for _, l in benches) + " |")
        print("|---|" + "---:|" * len(benches))
        for st in [s for s, _ in STAGES] + [OTHER]:
            print("| %s | " % st + " | ".join("%.3f" % statistics.median(stage_ms[b][st])
                                             for b, _ in benches) + " |")
        print("| whole step | " + " | ".join("%.2f (%s)" % (med[b], ", ".join(
            "%.2f" % t for t in times[b])) for b, _ in benches) + " |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
