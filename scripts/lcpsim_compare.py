#!/usr/bin/python3
"""Compare files of `lcpsim compare` (docs/output-format.md, "Compare files"): loader,
performance profiles and figures.

    import lcpsim_compare as lc
    c = lc.load("brick_compare.h5")
    c.results.relative_residual[k, s]     # problem k (step k+1), series s
    c.series.label[s]
    taus, rho = lc.performance_profile(c.results.wall_time, ok=c.results.success == 1)

Command line:
    lcpsim_compare.py FILE.h5 [-o OUTDIR] [--name NAME] [--summary] [--outcomes]
writes OUTDIR/NAME_profile.{png,pdf}, NAME_iterations.{png,pdf}, NAME_size.{png,pdf}
(and NAME_divergence for independent runs); --summary prints the per-series table,
--outcomes the per-problem status table (LCP sets).
Needs Debian's /usr/bin/python3 (h5py, numpy, matplotlib).
"""
import argparse
import os
import sys
from types import SimpleNamespace

import numpy as np


def _convert(v):
    """A dataset's value as Python: strings decoded, string arrays as lists, scalars as
    Python numbers, arrays as numpy arrays."""
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, np.ndarray) and v.dtype.kind == "S":
        return [x.decode("utf-8", "replace") for x in v.tolist()]
    if isinstance(v, np.ndarray) and v.shape == ():
        return v.item()
    if isinstance(v, np.generic):
        return v.item()
    return v


def _group(g):
    import h5py
    ns = SimpleNamespace()
    for key in sorted(g.keys()):
        obj = g[key]
        setattr(ns, key, _group(obj) if isinstance(obj, h5py.Group) else _convert(obj[()]))
    return ns


def load(path):
    """The whole compare file as nested namespaces: /results/status is c.results.status
    ([problems, series] int32), /series/label is a list of str, scalars are numbers."""
    import h5py
    with h5py.File(path, "r") as f:
        kind = f["file_kind"][()].decode() if "file_kind" in f else ""
        if kind != "compare":
            raise ValueError(f"{path}: not a compare file (file_kind '{kind}')")
        return _group(f)


def performance_profile(cost, ok=None, taus=None):
    """Dolan-More performance profile.

    cost [problems, solvers]: e.g. wall time; ok [problems, solvers] (bool): which solves
    count as solved (others get ratio inf). For each problem p with at least one success,
    r[p, s] = cost[p, s] / min over successful s' of cost[p, s']; rho_s(tau) = the fraction
    of all problems (those nobody solved included) with r[p, s] <= tau.
    Returns (taus, rho [len(taus), solvers], ratios [problems, solvers]). Costs <= 0 are
    taken as the smallest positive cost of the problem (or 1 if none)."""
    cost = np.asarray(cost, dtype=float)
    P, S = cost.shape
    ok = np.ones_like(cost, dtype=bool) if ok is None else np.asarray(ok, dtype=bool)
    ok = ok & np.isfinite(cost)
    ratios = np.full((P, S), np.inf)
    for p in range(P):
        if not ok[p].any():
            continue
        c = cost[p].copy()
        pos = c[ok[p] & (c > 0)]
        floor = pos.min() if pos.size else 1.0
        c = np.where(c > 0, c, floor)
        best = c[ok[p]].min()
        ratios[p, ok[p]] = c[ok[p]] / best
    if taus is None:
        finite = ratios[np.isfinite(ratios)]
        top = max(2.0, float(finite.max()) * 1.05) if finite.size else 2.0
        taus = np.unique(np.concatenate([[1.0], np.sort(finite), [top]]))
    taus = np.asarray(taus, dtype=float)
    rho = np.array([[np.count_nonzero(ratios[:, s] <= t) / P if P else 0.0 for s in range(S)]
                    for t in taus])
    return taus, rho, ratios


def problems_with_lcp(c):
    """Row indices of the problems that had an LCP (steps without contacts are left out)."""
    return np.nonzero(np.asarray(c.problem_size) > 0)[0]


def series_groups(c):
    """[(title, [series indices])]: cold and warm panels in shadow mode, one otherwise."""
    start = c.series.start
    if c.parameters.mode == "shadow":
        return [("cold start", [s for s, x in enumerate(start) if x == "cold"]),
                ("warm start", [s for s, x in enumerate(start) if x == "warm"])]
    return [("", list(range(len(start))))]


def summary_rows(c):
    """Per series: label, problems, success rate, failures, median / worst wall time, median /
    max iterations, median / worst relative residual (the values stored in /summary)."""
    s = c.summary
    return [(c.series.label[i], int(s.problems[i]), float(s.success_rate[i]),
             int(s.failures[i]), float(s.median_wall_time[i]), float(s.worst_wall_time[i]),
             float(s.median_iterations[i]), int(s.max_iterations[i]),
             float(s.median_relative_residual[i]), float(s.worst_relative_residual[i]))
            for i in range(len(c.series.label))]


def markdown_summary(c):
    out = ["| solver | problems | success | failures | median time [us] | worst time [us] | "
           "median iter. | max iter. | median rel. residual | worst rel. residual |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in summary_rows(c):
        out.append(f"| {r[0]} | {r[1]} | {100 * r[2]:.1f}% | {r[3]} | {1e6 * r[4]:.3g} | "
                   f"{1e6 * r[5]:.3g} | {r[6]:.4g} | {r[7]} | {r[8]:.2e} | {r[9]:.2e} |")
    return "\n".join(out)


def _status_names(c):
    names = {}
    for item in c.status_legend:
        code, name = item.split(" ", 1)
        names[int(code)] = name
    return names


def markdown_outcomes(c):
    """Problems x series table: 'ok' (success), else the solver's status name (or
    'inaccurate' when the solver claimed success but the residual is above the threshold),
    with the problem size. Meant for LCP sets."""
    names = _status_names(c)
    labels = c.series.label
    pname = getattr(c, "problem_name", None) or [f"step {k}" for k in c.step]
    out = ["| problem | n | " + " | ".join(labels) + " |",
           "|---|---:|" + "---|" * len(labels)]
    for k in range(len(pname)):
        cells = []
        for s in range(len(labels)):
            st = int(c.results.status[k, s])
            if c.results.success[k, s]:
                cells.append("ok")
            elif st == 0:
                cells.append("inaccurate")
            else:
                cells.append(names.get(st, str(st)))
        out.append(f"| {os.path.basename(pname[k])} | {int(c.problem_size[k])} | "
                   + " | ".join(cells) + " |")
    return "\n".join(out)


# ---- figures ----

def _save(fig, outdir, name, stem):
    paths = []
    for ext in ("png", "pdf"):
        p = os.path.join(outdir, f"{name}_{stem}.{ext}")
        fig.savefig(p, dpi=150, bbox_inches="tight")
        paths.append(p)
    return paths


def _legend(ax, n, **kw):
    """A legend inside the axes for a few lines, outside on the right for many."""
    if n > 8:
        ax.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1.0), **kw)
    else:
        ax.legend(fontsize=7, loc="lower right" if "ncol" not in kw else "best", **kw)


def _label(c, s):
    """Series label without its (cold) / (warm) suffix: panels say which."""
    return c.series.label[s].replace(" (cold)", "").replace(" (warm)", "")


def _styles(n):
    import matplotlib.pyplot as plt
    cmap = plt.get_cmap("tab20" if n > 10 else "tab10")
    marks = "os^vD<>xP*h"
    return [(cmap(i % cmap.N), marks[i % len(marks)]) for i in range(n)]


def figure_profile(c, outdir, name):
    """Performance profiles of wall time, success as defined by the file's success_tol."""
    import matplotlib.pyplot as plt
    rows = problems_with_lcp(c)
    groups = series_groups(c)
    fig, axes = plt.subplots(1, len(groups), figsize=(6.5 * len(groups), 4.5), squeeze=False)
    for ax, (title, ser) in zip(axes[0], groups):
        cost = c.results.wall_time[np.ix_(rows, ser)]
        ok = c.results.success[np.ix_(rows, ser)] == 1
        taus, rho, _ = performance_profile(cost, ok)
        for j, (col, mk) in zip(range(len(ser)), _styles(len(ser))):
            label = _label(c, ser[j])
            ax.step(taus, rho[:, j], where="post", color=col, label=label)
        ax.set_xscale("log")
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel(r"$\tau$ (time within a factor $\tau$ of the best)")
        ax.set_ylabel(r"fraction of problems solved")
        ax.set_title(f"{name}: performance profile" + (f", {title}" if title else ""))
        ax.grid(True, which="both", alpha=0.3)
        if ax is axes[0][-1]:
            _legend(ax, len(ser))
    return _save(fig, outdir, name, "profile")


def figure_iterations(c, outdir, name):
    """Iterations and relative residual per step, per series."""
    import matplotlib.pyplot as plt
    groups = series_groups(c)
    sets = ("lcp_set", "fc_set")
    x = np.asarray(c.time) if c.parameters.mode not in sets else np.arange(1, len(c.step) + 1)
    xl = "time [s]" if c.parameters.mode not in sets else "problem"
    fig, axes = plt.subplots(2, len(groups), figsize=(6.5 * len(groups), 7), squeeze=False,
                             sharex=True)
    for g, (title, ser) in enumerate(groups):
        for s, (col, mk) in zip(ser, _styles(len(ser))):
            size = c.results.lcp_size[:, s]
            m = size > 0
            lab = _label(c, s)
            # sets: problems are categories, points only (no line across skipped ones)
            ls = "none" if c.parameters.mode in sets else "-"
            axes[0][g].plot(x[m], c.results.iterations[m, s], mk, ms=3, color=col, label=lab,
                            linestyle=ls, lw=0.7)
            res = np.maximum(c.results.relative_residual[m, s], 1e-18)
            axes[1][g].semilogy(x[m], res, mk, ms=3, color=col, label=lab, linestyle=ls, lw=0.7)
        axes[1][g].axhline(c.parameters.success_tol, color="k", ls=":", lw=1,
                           label="success threshold")
        axes[0][g].set_ylabel("iterations / pivots")
        axes[1][g].set_ylabel("rel. natural-map residual\n(exact cone, 1e-18 floor)"
                              if c.parameters.mode == "fc_set"
                              else "relative natural residual (1e-18 floor)")
        axes[1][g].set_xlabel(xl)
        axes[0][g].set_title(f"{name}" + (f", {title}" if title else ""))
        if g == len(groups) - 1:
            _legend(axes[0][g], len(ser), ncol=1)
        for a in (axes[0][g], axes[1][g]):
            a.grid(True, alpha=0.3)
    return _save(fig, outdir, name, "iterations")


def _failed(c, s):
    """Rows where series s failed: a status < 0 other than max_iterations (-1), or a timeout."""
    st = np.asarray(c.results.status[:, s])
    return (st < 0) & (st != -1)


def figure_size(c, outdir, name):
    """Wall time per solve against the problem size; failed solves drawn apart (lower row:
    a failure's time is the time to fail, not to solve)."""
    import matplotlib.pyplot as plt
    groups = series_groups(c)
    fig, axes = plt.subplots(2, len(groups), figsize=(6.5 * len(groups), 7.5), squeeze=False,
                             sharex="col", gridspec_kw={"height_ratios": [3, 1.4]})
    for g, (title, ser) in enumerate(groups):
        ax, axf = axes[0][g], axes[1][g]
        nfail = 0
        for j, (s, (col, mk)) in enumerate(zip(ser, _styles(len(ser)))):
            size = c.results.lcp_size[:, s]
            fail = _failed(c, s)
            m = (size > 0) & ~fail
            jitter = 1.0 + 0.015 * (j - len(ser) / 2)
            ax.loglog(size[m] * jitter, np.maximum(c.results.wall_time[m, s], 1e-9), mk, ms=3,
                      color=col, label=_label(c, s), alpha=0.7, linestyle="none")
            mf = (size > 0) & fail
            nfail += int(mf.sum())
            if mf.any():
                axf.loglog(size[mf] * jitter, np.maximum(c.results.wall_time[mf, s], 1e-9), mk,
                           ms=4, mfc="none", color=col, label=_label(c, s), linestyle="none")
        ax.set_ylabel("wall time per solve [s]")
        ax.set_title(f"{name}: time against size" + (f", {title}" if title else ""))
        axf.set_ylabel("failed solves:\ntime to fail [s]")
        axf.set_xlabel("problem size n")
        if not nfail:
            axf.text(0.5, 0.5, "no failed solve", transform=axf.transAxes, ha="center",
                     va="center", fontsize=8)
        for a in (ax, axf):
            a.grid(True, which="both", alpha=0.3)
        if g == len(groups) - 1:
            _legend(ax, len(ser), ncol=1)
    return _save(fig, outdir, name, "size")


def figure_cone_error(c, outdir, name):
    """Frictional contact sets: per solver, every problem's relative natural-map residual
    on the exact cone against its time; exact-cone solvers and polyhedral LCPs (d) alike,
    so a polyhedral cone's approximation error is read off the vertical axis."""
    import matplotlib.pyplot as plt
    P = len(c.series.label)
    fig, ax = plt.subplots(figsize=(7.5, 5))
    for s, (col, mk) in zip(range(P), _styles(P)):
        m = (c.results.lcp_size[:, s] > 0) & (c.results.skipped[:, s] == 0)
        if not m.any():
            continue
        fail = _failed(c, s) & m
        ok = m & ~fail
        ax.loglog(np.maximum(c.results.wall_time[ok, s], 1e-7),
                  np.maximum(c.results.relative_residual[ok, s], 1e-18), mk, ms=4, color=col,
                  label=c.series.label[s], linestyle="none", alpha=0.8)
        if fail.any():
            ax.loglog(np.maximum(c.results.wall_time[fail, s], 1e-7),
                      np.maximum(c.results.relative_residual[fail, s], 1e-18), mk, ms=5,
                      mfc="none", color=col, linestyle="none")
    ax.axhline(c.parameters.success_tol, color="k", ls=":", lw=1, label="success threshold")
    ax.set_xlabel("wall time per solve [s]")
    ax.set_ylabel("relative natural-map residual, exact cone (1e-18 floor)")
    ax.set_title(f"{name}: Coulomb error against time (hollow: failed)")
    ax.grid(True, which="both", alpha=0.3)
    _legend(ax, P + 1, ncol=1)
    return _save(fig, outdir, name, "cone_error")


def figure_divergence(c, outdir, name):
    """Independent runs: state difference to the reference trajectory over time."""
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for s, (col, mk) in zip(range(len(c.series.label)), _styles(len(c.series.label))):
        if c.series.is_reference[s]:
            continue
        ax.semilogy(c.time, np.maximum(c.divergence.q[:, s], 1e-18), color=col,
                    label=c.series.label[s])
    ax.set_xlabel("time [s]")
    ax.set_ylabel(r"$\max_i |q_i - q_i^{ref}|$ (1e-18 floor)")
    ax.set_title(f"{name}: divergence from {c.parameters.reference}")
    ax.grid(True, which="both", alpha=0.3)
    _legend(ax, len(c.series.label), ncol=1)
    return _save(fig, outdir, name, "divergence")


def figures(c, outdir, name):
    """Every figure of a compare file; returns the paths written."""
    import matplotlib
    matplotlib.use("Agg")
    os.makedirs(outdir, exist_ok=True)
    paths = figure_profile(c, outdir, name) + figure_iterations(c, outdir, name)
    paths += figure_size(c, outdir, name)
    if c.parameters.mode == "independent":
        paths += figure_divergence(c, outdir, name)
    if c.parameters.mode == "fc_set":
        paths += figure_cone_error(c, outdir, name)
    import matplotlib.pyplot as plt
    plt.close("all")
    return paths


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file")
    ap.add_argument("-o", "--outdir", default=".")
    ap.add_argument("--name", help="figure name prefix (default: the file's base name)")
    ap.add_argument("--summary", action="store_true", help="print the summary table")
    ap.add_argument("--outcomes", action="store_true", help="print the outcome table")
    ap.add_argument("--no-figures", action="store_true")
    a = ap.parse_args(argv)
    c = load(a.file)
    name = a.name or os.path.splitext(os.path.basename(a.file))[0]
    if a.summary:
        print(markdown_summary(c))
    if a.outcomes:
        print(markdown_outcomes(c))
    if not a.no_figures:
        for p in figures(c, a.outdir, name):
            print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
