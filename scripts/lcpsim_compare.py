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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lcpsim_load import _lcp_cut, refuse_cut_early, refuse_not_hdf5, save_figure  # noqa: E402


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


def _group(g, cut=None, prefix=""):
    """g's datasets and groups as namespaces; cut(path) the rows to read of the dataset at
    path (None: all; rows past them are not read)."""
    import h5py
    ns = SimpleNamespace()
    for key in sorted(g.keys()):
        obj, path = g[key], prefix + key
        if isinstance(obj, h5py.Group):
            setattr(ns, key, _group(obj, cut, path + "/"))
            continue
        rows = cut(path) if cut else None
        whole = rows is None or not obj.shape or obj.shape[0] <= rows
        setattr(ns, key, _convert(obj[()] if whole else obj[:rows]))
    return ns


def _flushed_cut(f):
    """A killed comparison's file (no /summary) read up to its last whole flush: the
    tables' rows up to /flushed_rows (the energies one more), the dumped LCPs up to
    /flushed_lcp_problems (compare/output.h). Rows past them are of a flush the kill cut
    short: they may read as 0, or not at all ("addr overflow"). Returns (cut, note):
    cut(path) the rows to read (None: a whole file), note what was left out ("" if
    nothing)."""
    if "summary" in f or "flushed_rows" not in f:
        return None, ""
    w = int(f["flushed_rows"][()])
    lcp, lcp_past = _lcp_cut(f)

    def cut(p):
        if p.startswith("lcp/"):
            return lcp.get(p[4:])
        d = f[p]
        if p.startswith("trajectory/") or d.chunks is None or not d.shape or d.maxshape[0] is not None:
            return None  # (a table of the header, or the trajectory, linked whole)
        return (w + 1 if w else 0) if p.startswith("energy/") else w
    past = []
    if "step" in f and f["step"].shape[0] > w:
        past.append("%d rows of the tables" % (f["step"].shape[0] - w))
    if lcp_past:
        past.append("%d dumped LCPs" % lcp_past)
    note = ""
    if past:
        note = ("read up to its last whole flush (/flushed_rows: %d problems): %s past it, of a "
                "flush the kill cut short, left out" % (w, " and ".join(past)))
    return cut, note


def load(path):
    """The whole compare file as nested namespaces: /results/status is c.results.status
    ([problems, series] int32), /series/label is a list of str, scalars are numbers.
    c.partial is True for the partial file of a comparison that was killed: the rows of
    the problems done up to its last flush that reached the file whole (/flushed_rows),
    no /summary; c.cut_note says what was left out of a flush the kill cut short ("" if
    nothing; said on stderr too)."""
    import h5py
    refuse_cut_early(path)  # (a run file cut early, given here: said before HDF5 reads it)
    refuse_not_hdf5(path)  # (missing, a directory, a .dat problem: said, not h5py's words)
    with h5py.File(path, "r") as f:
        kind = f["file_kind"][()].decode() if "file_kind" in f else ""
        if kind != "compare":
            what = {"hybrid": "a hybrid-model run: scripts/lcpsim_hybrid_plot.py draws it",
                    "": "a run file (lcpsim run): scripts/lcpsim_plot.py draws it"}.get(
                        kind, f"file_kind '{kind}'")
            if "format_version" not in f:
                what = "not an lcpsim file (no /format_version)"
            raise ValueError(f"{path}: not a compare file: {what}")
        cut, note = _flushed_cut(f)
        c = _group(f, cut)
    c.partial = not hasattr(c, "summary")
    c.path = path
    c.cut_note = note
    if note:
        print(f"lcpsim_compare: note: {path}: {note}", file=sys.stderr)
    return c


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


def _last_column(c):
    """(title, values [P]) of the summary's last column, as `lcpsim compare` prints it:
    frictional contact sets the worst cone violation, independent runs the largest state
    divergence, LCP sets the largest distance to the reference (unique solutions), scenes
    the largest velocity difference to the reference."""
    s, mode = c.summary, c.parameters.mode
    if mode == "fc_set":
        return "worst cone violation", getattr(s, "worst_cone_violation", None)
    if mode == "independent":
        return "max q divergence", getattr(s, "max_q_divergence", None)
    if mode == "lcp_set":
        return "max distance to reference (unique solutions)", s.max_distance
    return "max velocity difference to reference", s.max_distance


def summary_rows(c):
    """Per series: label, problems, success rate, budget stops, failures, skipped, the
    solver's tolerance (or 'budget N sweeps'), median / worst wall time, median / max
    iterations, median / worst relative residual, the last column (_last_column), and
    (last, index 14) the solves that missed the success tolerance though finished by their
    own status: the values stored in /summary, the columns `lcpsim compare` prints. Counts
    are over every problem with an LCP, the other aggregates over the solves that did not
    fail."""
    if getattr(c, "partial", False):
        rows = len(c.step) if hasattr(c, "step") else 0
        raise ValueError(f"{getattr(c, 'path', 'the file')}: a comparison killed before its end "
                         f"({rows} problems written, no /summary); its rows are in c.results")
    s = c.summary
    _, last = _last_column(c)
    P = len(c.series.label)
    last = np.full(P, np.nan) if last is None else np.asarray(last, dtype=float)
    missed = getattr(s, "missed_tolerance", None)
    if missed is None:  # a file written before /summary/missed_tolerance: from /results
        st, ok = np.asarray(c.results.status), np.asarray(c.results.success)
        missed = ((np.asarray(c.results.lcp_size) > 0) & (st >= 0) & (ok == 0)).sum(axis=0)
    rows = []
    for i in range(P):
        j = int(c.series.solver[i])
        tol, budget = float(c.solvers.tol[j]), int(c.solvers.max_iter[j])
        rows.append((c.series.label[i], int(s.problems[i]), float(s.success_rate[i]),
                     int(s.budget_stops[i]), int(s.failures[i]), int(s.skipped[i]),
                     f"{tol:.0e}" if tol > 0 else f"budget {budget} sweeps" if budget > 0
                     else "budget: the solver's default",
                     float(s.median_wall_time[i]), float(s.worst_wall_time[i]),
                     float(s.median_iterations[i]), int(s.max_iterations[i]),
                     float(s.median_relative_residual[i]),
                     float(s.worst_relative_residual[i]), float(last[i]), int(missed[i])))
    return rows


def _iters(r):
    """Median and max iterations of a summary row: '-' when every solve failed, 'n/a' when
    the solver gives no count (max -1, lcp/solver.h: siconos:nsgs_sbm), as lcpsim compare
    prints them."""
    if r[1] <= r[4]:
        return f"{'-' if np.isnan(r[9]) else format(r[9], '.6g')} | -"
    if r[10] < 0:
        return "n/a | n/a"
    return f"{'-' if np.isnan(r[9]) else format(r[9], '.6g')} | {r[10]}"


def markdown_summary(c):
    """The summary table `lcpsim compare` prints, from the file."""
    rows = summary_rows(c)  # a partial file (no /summary) raises here, with its message
    title, _ = _last_column(c)
    out = ["| solver | problems | success | missed tol. | stopped at budget | failed | skipped | solver tol | "
           "median time [us] | worst time [us] | median iter. | max iter. | median rel. "
           f"residual | worst rel. residual | {title} |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    def g(x, fmt):
        return "-" if np.isnan(x) else format(x, fmt)
    for r in rows:
        rate = "-" if np.isnan(r[2]) else f"{100 * r[2]:.1f}%"  # "-": no problem ("-%" before)
        out.append(f"| {r[0]} | {r[1]} | {rate} | {r[14]} | {r[3]} | {r[4]} | {r[5]} | "
                   f"{r[6]} | {g(1e6 * r[7], '.3g')} | {g(1e6 * r[8], '.3g')} | "
                   f"{_iters(r)} | {g(r[11], '.2e')} | "
                   f"{g(r[12], '.2e')} | "
                   f"{g(r[13], '.2e')} |")
    out.append("")
    out.append("Times, iterations, residuals and the last column are over the solves that did "
               "not fail (a budget stop counts); failed solves are counted, their time to fail "
               "is /summary/median_failure_wall_time. Missed tol.: solves that finished "
               "(solved by their own status) above the success tolerance.")
    return "\n".join(out)


def _status_names(c):
    names = {}
    for item in c.status_legend:
        code, name = item.split(" ", 1)
        names[int(code)] = name
    return names


def markdown_outcomes(c):
    """Problems x series table: 'ok' (success), else the solver's status name (or
    'inaccurate' when the solver claimed success but the residual is above the threshold;
    frictional contact sets: 'residual X', the exact-cone residual, which for a polyhedral
    LCP solved is its cone's approximation error), with the problem size. Meant for sets."""
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
            elif st == 0 and c.parameters.mode == "fc_set":
                # the solver's own problem solved (a polyhedral LCP: its cone's error), the
                # exact-cone residual above the threshold: say how far
                cells.append(f"residual {c.results.relative_residual[k, s]:.1e}")
            elif st == 0:
                cells.append("inaccurate")
            else:
                cells.append(names.get(st, str(st)))
        out.append(f"| {os.path.basename(pname[k])} | {int(c.problem_size[k])} | "
                   + " | ".join(cells) + " |")
    return "\n".join(out)


# ---- figures ----

def readable_log_ticks(ax):
    """A logarithmic axis spanning about a decade or less has one labelled tick or none:
    2 and 5 x 10^k are then labelled too (the size figure's failed-solve panels read
    '10^-1' alone; its size axis of pile_10, n = 21 .. 277, read '10^2' alone)."""
    from matplotlib.ticker import LogFormatterSciNotation, LogLocator
    for axis, lim, scale in ((ax.yaxis, ax.get_ylim(), ax.get_yscale()),
                             (ax.xaxis, ax.get_xlim(), ax.get_xscale())):
        lo, hi = sorted(lim)
        # a y axis without lines has no scale to read (the empty failed-solve panels); an
        # x axis is read under its column's lowest panel, whatever that panel holds
        if scale != "log" or lo <= 0 or (axis is ax.yaxis and not ax.get_lines()):
            continue
        if sum(lo <= t <= hi for t in axis.get_majorticklocs()) >= 2:
            continue
        axis.set_minor_locator(LogLocator(subs=(2.0, 5.0)))
        axis.set_minor_formatter(LogFormatterSciNotation(labelOnlyBase=False,
                                                         minor_thresholds=(np.inf, np.inf)))


def _save(fig, outdir, name, stem):
    for ax in fig.axes:
        readable_log_ticks(ax)
    paths = []
    for ext in ("png", "pdf"):
        p = os.path.join(outdir, f"{name}_{stem}.{ext}")
        save_figure(fig, p, dpi=150, bbox_inches="tight")
        paths.append(p)
    return paths


def _legend(ax, n, **kw):
    """A legend inside the axes for a few lines, outside on the right for many."""
    if n > 8:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), **kw)
    else:
        ax.legend(fontsize=7, loc="lower right" if "ncol" not in kw else "best", **kw)


def _label(c, s):
    """Series label without its (cold) / (warm) suffix: panels say which."""
    return c.series.label[s].replace(" (cold)", "").replace(" (warm)", "")


def _styles(n):
    import matplotlib.pyplot as plt
    marks = "os^vD<>xP*h"
    if n <= 10:
        cmap = plt.get_cmap("tab10")
        return [(cmap(i), marks[i % len(marks)]) for i in range(n)]
    # tab20 pairs a dark and a light shade of each hue: the ten dark ones first, then the
    # light ones, so that neighbouring series (lemke, pgs, ...) never share a hue
    cmap = plt.get_cmap("tab20")
    return [(cmap((2 * i + (i // 10) % 2) % 20), marks[i % len(marks)]) for i in range(n)]


def _dash(i):
    """The dash of series i's line: solid for the first 20 (tab20's colours, _styles), then
    dashed, dash-dotted and dotted for each further 20, so that a line's colour and dash
    name its series however many there are (every LCP solver, 23, gave series 20-22 the
    solid lines of series 0-2: lemke and siconos:pathsearch drawn alike)."""
    return ("-", "--", "-.", ":")[(i // 20) % 4]


def profile_panels(c):
    """[(title, rows, series)]: the problems and series of each profile panel. Shadow mode:
    cold and warm panels, over the problems that every series of the panel tried (a
    dense solver skips the steps above --dense-limit, which is no failure: the title says
    how many were left out); frictional contact sets: 3-D and 2-D problems apart (a solver
    for one dimension is skipped on the other, and a profile over both would count that as
    failing), each with the series that tried at least one of its problems."""
    rows = problems_with_lcp(c)
    skipped = np.asarray(c.results.skipped)
    if c.parameters.mode != "fc_set":
        panels = []
        for t, ser in series_groups(c):
            r = rows[(skipped[np.ix_(rows, ser)] == 0).all(axis=1)] if len(ser) else rows
            if r.size < rows.size:  # on a line of its own under the panel's title
                t = (t or "all series") + (f"\n{r.size} of {rows.size} problems "
                                           f"({rows.size - r.size} skipped by a dense solver)")
            panels.append((t, r, ser))
        return panels
    dims = np.asarray(getattr(c, "problem_dimension", np.zeros(len(c.step))))
    panels = []
    for d in (3, 2):
        r = rows[dims[rows] == d]
        if not r.size:
            continue
        ser = [s for s in range(len(c.series.label)) if (skipped[r, s] == 0).any()]
        panels.append((f"{d}-D problems ({r.size})", r, ser))
    return panels


def solving_none(c, rows, ser):
    """Labels (without cold / warm) of the series in ser that succeed on none of rows: a
    profile panel names them, their lines lying on top of each other at 0."""
    ok = np.asarray(c.results.success)[np.ix_(rows, ser)] == 1
    return [_label(c, ser[j]) for j in range(len(ser)) if not ok[:, j].any()]


def figure_profile(c, outdir, name):
    """Performance profiles of wall time, success as defined by the file's success_tol."""
    import matplotlib.pyplot as plt
    panels = profile_panels(c)
    fcset = c.parameters.mode == "fc_set"
    if fcset:  # one panel under the other, each with its own legend on the right
        fig, axes = plt.subplots(len(panels), 1, figsize=(7.5, 4.2 * len(panels)),
                                 squeeze=False)
        axes = axes.T
    else:
        fig, axes = plt.subplots(1, len(panels), figsize=(6.5 * len(panels), 4.5),
                                 squeeze=False)
    tol = c.parameters.success_tol
    for ax, (title, rows, ser) in zip(axes[0], panels):
        cost = c.results.wall_time[np.ix_(rows, ser)]
        ok = c.results.success[np.ix_(rows, ser)] == 1
        taus, rho, _ = performance_profile(cost, ok)
        styles = _styles(len(c.series.label)) if fcset else _styles(len(ser))
        for j in range(len(ser)):
            col = styles[ser[j] if fcset else j][0]
            label = _label(c, ser[j])
            if fcset and title.startswith("2-D") and c.results.cone_directions[rows, ser[j]].max() > 0:
                label += " (d = 2 in 2-D)"
            if fcset and not ok[:, j].any():  # a legend per panel: say it there
                label += " (solves none)"
            ax.step(taus, rho[:, j], where="post", color=col, label=label,
                    linestyle=_dash(ser[j] if fcset else j))
        none = solving_none(c, rows, ser)
        if none and not fcset:
            # the shared legend is the last panel's: the series that solve none of this
            # panel's problems (their lines lie on top of each other at 0) are named here
            # (under the axes, where no line can hide behind it)
            import textwrap
            ax.text(0.0, -0.16, "\n".join(textwrap.wrap(
                "at 0 (solving none of these problems): " + ", ".join(none), 75)),
                transform=ax.transAxes, ha="left", va="top", fontsize=7)
        ax.set_xscale("log")
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel(r"$\tau$ (time within a factor $\tau$ of the best)")
        ax.set_ylabel(f"fraction of problems solved\n(success: rel. residual <= {tol:g}"
                      + (", exact cone)" if fcset else ")"))
        ax.set_title(f"{name}: performance profile" + (f", {title}" if title else ""))
        ax.grid(True, which="both", alpha=0.3)
        if fcset or ax is axes[0][-1]:
            _legend(ax, 99)  # outside: profiles rise across the whole panel (inside, the
            # legend had covered pile_100's fixed-sweep PGS lines at lower right)
    if fcset:
        fig.subplots_adjust(hspace=0.35)
    return _save(fig, outdir, name, "profile")


def figure_iterations(c, outdir, name):
    """Iterations and relative residual per step, per series; failed solves hollow (what a
    failure leaves is no solution: the summaries leave them out, docs/output-format.md)."""
    import matplotlib.pyplot as plt
    groups = series_groups(c)
    sets = ("lcp_set", "fc_set")
    x = np.asarray(c.time) if c.parameters.mode not in sets else np.arange(1, len(c.step) + 1)
    xl = "time [s]" if c.parameters.mode not in sets else "problem"
    fig, axes = plt.subplots(2, len(groups), figsize=(6.5 * len(groups), 7), squeeze=False,
                             sharex=True)
    nfail_g = False
    for g, (title, ser) in enumerate(groups):
        for j, (s, (col, mk)) in enumerate(zip(ser, _styles(len(ser)))):
            size = c.results.lcp_size[:, s]
            m = size > 0
            lab = _label(c, s)
            # sets: problems are categories, points only (no line across skipped ones),
            # the series side by side within a problem's slot (they had covered each other)
            ls = "none" if c.parameters.mode in sets else "-"
            xs = x + (0.6 * ((j + 0.5) / len(ser) - 0.5) if c.parameters.mode in sets else 0.0)
            # a count the solver does not give (-1) is no point
            mi = m & (np.asarray(c.results.iterations[:, s]) >= 0)
            axes[0][g].plot(xs[mi], c.results.iterations[mi, s], mk, ms=3, color=col, label=lab,
                            linestyle=ls, lw=0.7)
            res = np.maximum(c.results.relative_residual[m, s], 1e-18)
            axes[1][g].semilogy(xs[m], res, mk, ms=3, color=col, label=lab, linestyle=ls, lw=0.7)
            mf = m & _failed(c, s)
            if mf.any():  # drawn over, hollow
                nfail_g = True
                mfi = mf & mi
                axes[0][g].plot(xs[mfi], c.results.iterations[mfi, s], mk, ms=4, color=col,
                                mfc="white", linestyle="none")
                axes[1][g].semilogy(xs[mf], np.maximum(c.results.relative_residual[mf, s], 1e-18),
                                    mk, ms=4, color=col, mfc="white", linestyle="none")
        axes[1][g].axhline(c.parameters.success_tol, color="k", ls=":", lw=1,
                           label="success threshold")
        axes[0][g].set_ylabel("iterations / pivots")
        axes[1][g].set_ylabel("rel. natural-map residual\n(exact cone, 1e-18 floor)"
                              if c.parameters.mode == "fc_set"
                              else "relative natural residual (1e-18 floor)")
        axes[1][g].set_xlabel(xl)
        names = getattr(c, "problem_name", None)
        if c.parameters.mode in sets and names and len(names) <= 40:
            # a few problems: name them (problem k is the k-th file given)
            axes[1][g].set_xticks(x)
            axes[1][g].set_xticklabels([os.path.basename(n) for n in names], rotation=60,
                                       ha="right", fontsize=7)
            axes[1][g].set_xlabel("")
        if c.parameters.mode in sets or counts_span_decades(c, ser):
            # counts from 1 to 10^4 side by side: a linear axis flattens all but the largest
            # (box_stack_3d: lemke's 15 pivots and 3 fixed sweeps lay on 0 under PGS's 5757)
            axes[0][g].set_yscale("symlog", linthresh=1)
            # 5 % of the panel above the largest count, on the panel's own scale (the
            # linear 5 % margin is 0.02 decade: pile_10's PGS counts of 5899 lay on the
            # frame), and as much below 0 (counts of 0, a warm start's, lay on the bottom
            # frame); symlog (linthresh 1) draws y > 1 at about 1 + log10(y), y in [-1, 1] linearly
            top = max(float(np.max(np.where(np.asarray(c.results.lcp_size[:, ser]) > 0,
                                            c.results.iterations[:, ser], 0))), 1.0)
            span = 1.0 + np.log10(top)
            axes[0][g].set_ylim(-0.05 * span, 10.0 ** (span * 1.05 - 1.0))
        axes[0][g].set_title(f"{name}" + (f", {title}" if title else ""))
        for a in (axes[0][g], axes[1][g]):
            a.grid(True, alpha=0.3)
    if nfail_g:  # one legend entry says what hollow markers are
        axes[0][-1].plot([], [], "o", ms=4, color="0.3", mfc="white", linestyle="none",
                         label="hollow: failed")
    # the residual panels' dotted line, in the one legend (which is the top panel's)
    axes[0][-1].plot([], [], color="k", ls=":", lw=1,
                     label=f"success threshold {c.parameters.success_tol:g} (residual)")
    # points and lines fill the panels: the legend goes outside (inside it had covered
    # the dominoes' iterations)
    _legend(axes[0][-1], 99, ncol=1)
    return _save(fig, outdir, name, "iterations")


def counts_span_decades(c, ser, decades=2):
    """True when the iteration counts of series ser that the figure draws span more than
    `decades` decades (largest over the smallest positive one): their panel is then
    logarithmic."""
    it = np.asarray(c.results.iterations[:, ser], dtype=float)
    it = it[(np.asarray(c.results.lcp_size[:, ser]) > 0) & (it > 0)]
    return bool(it.size) and it.max() > 10.0 ** decades * it.min()


def _failed(c, s):
    """Rows where series s failed: a status < 0 other than max_iterations (-1), or a timeout."""
    st = np.asarray(c.results.status[:, s])
    return (st < 0) & (st != -1)


def size_positions(sizes, nser):
    """(log_axis, place) for figure_size: place(n, j) is the x of series j's point of size
    n. Sizes that span a decade or more: a log axis, the series spread by 1.5 % each. Fewer:
    a linear axis, the series side by side within 0.6 of the smallest gap between the
    sizes (a 1.5 % spread on a log axis had drawn the series of a scene whose steps all
    have n = 120 at 116 .. 123, as if they had solved different sizes, under unreadable
    ticks)."""
    u = np.unique(np.asarray(sizes)[np.asarray(sizes) > 0])
    if u.size and u.max() >= 10 * u.min():
        return True, lambda n, j: n * (1.0 + 0.015 * (j - nser / 2))
    gap = float(np.diff(u).min()) if u.size > 1 else max(1.0, 0.2 * float(u[0]) if u.size else 1.0)
    width = 0.6 * gap
    return False, lambda n, j: n + width * ((j + 0.5) / max(nser, 1) - 0.5)


def figure_size(c, outdir, name):
    """Wall time per solve against the problem size; failed solves drawn apart (lower row:
    a failure's time is the time to fail, not to solve)."""
    import matplotlib.pyplot as plt
    groups = series_groups(c)
    fig, axes = plt.subplots(2, len(groups), figsize=(6.5 * len(groups), 7.5), squeeze=False,
                             sharex="col", gridspec_kw={"height_ratios": [3, 1.4],
                                                        "wspace": 0.3})
    for g, (title, ser) in enumerate(groups):
        ax, axf = axes[0][g], axes[1][g]
        nfail = 0
        sizes = np.asarray(c.results.lcp_size[:, ser])
        logx, place = size_positions(sizes, len(ser))
        for j, (s, (col, mk)) in enumerate(zip(ser, _styles(len(ser)))):
            size = c.results.lcp_size[:, s]
            fail = _failed(c, s)
            m = (size > 0) & ~fail
            ax.plot(place(size[m], j), np.maximum(c.results.wall_time[m, s], 1e-9), mk, ms=3,
                    color=col, label=_label(c, s), alpha=0.7, linestyle="none")
            mf = (size > 0) & fail
            nfail += int(mf.sum())
            if mf.any():
                axf.plot(place(size[mf], j), np.maximum(c.results.wall_time[mf, s], 1e-9), mk,
                         ms=4, mfc="none", color=col, label=_label(c, s), linestyle="none")
        for a in (ax, axf):
            a.set_yscale("log")
            a.set_xscale("log" if logx else "linear")
        u = np.unique(sizes[sizes > 0])
        if not logx and 0 < u.size <= 12:  # the sizes themselves as ticks
            axf.set_xticks(u)
            axf.set_xticklabels([str(int(v)) for v in u])
        ax.set_ylabel("wall time per solve [s]")
        ax.set_title(f"{name}: time against size" + (f", {title}" if title else ""))
        axf.set_ylabel("failed solves:\ntime to fail [s]")
        axf.set_xlabel("problem size n")
        if not nfail:
            axf.text(0.5, 0.5, "no failed solve", transform=axf.transAxes, ha="center",
                     va="center", fontsize=8)
            # no times: no scale (it showed an arbitrary 1 .. 10 s)
            from matplotlib.ticker import NullLocator
            axf.yaxis.set_major_locator(NullLocator())
            axf.yaxis.set_minor_locator(NullLocator())
        # solves skipped (a dense solver above --dense-limit; in frictional contact sets a
        # solver of the other dimension) have no point: say so, or a series just stops
        skipped = np.asarray(c.results.skipped)
        gone = [f"{_label(c, s)} ({int(skipped[:, s].sum())})" for s in ser
                if skipped[:, s].any()]
        if gone:
            import textwrap
            axf.text(0.0, -0.32, "\n".join(textwrap.wrap(
                "skipped, not drawn (problems): " + ", ".join(gone), 80)),
                transform=axf.transAxes, ha="left", va="top", fontsize=7)
        for a in (ax, axf):
            a.grid(True, which="both", alpha=0.3)
        if g == len(groups) - 1:
            _legend(ax, len(ser), ncol=1)
    return _save(fig, outdir, name, "size")


def figure_cone_error(c, outdir, name):
    """Frictional contact sets, problem by problem: the relative natural-map residual on
    the exact cone (upper panel) and the wall time (lower panel) of every solver, exact-cone
    solvers and polyhedral LCPs (d) alike, so a polyhedral cone's approximation error is
    read off the upper panel beside the exact solvers' residuals. Problems in order of
    size, 3-D then 2-D (where the polyhedral LCP has d = 2, the exact 2-D cone). Filled:
    the solver said solved; hollow: stopped at its iteration budget (its residual is then
    not the cone's error alone); crossed: failed. Skipped solves are not drawn."""
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    P = len(c.series.label)
    rows = problems_with_lcp(c)
    dims = np.asarray(getattr(c, "problem_dimension", np.full(len(c.step), 3)))
    size = np.asarray(c.problem_size)
    order = sorted(rows, key=lambda k: (-int(dims[k]), int(size[k])))
    names = getattr(c, "problem_name", None) or [f"problem {k + 1}" for k in c.step]
    st = np.asarray(c.results.status)
    fig, (ax, axt) = plt.subplots(2, 1, figsize=(max(8.0, 0.55 * len(order) + 3), 8.5),
                                  sharex=True, gridspec_kw={"height_ratios": [3, 2]})
    styles = _styles(P)
    for s in range(P):
        col, mk = styles[s]
        dx = 0.6 * (s - (P - 1) / 2) / max(P, 1)
        for x, k in enumerate(order):
            if c.results.skipped[k, s]:
                continue
            budget, fail = st[k, s] == -1, _failed(c, s)[k]
            face = "none" if (budget or fail) else col
            res = max(float(c.results.relative_residual[k, s]), 1e-18)
            t = max(float(c.results.wall_time[k, s]), 1e-7)
            for a, y in ((ax, res), (axt, t)):
                a.plot(x + dx, y, mk, ms=5, color=col, mfc=face, linestyle="none")
                if fail:
                    a.plot(x + dx, y, "x", ms=7, color="k", linestyle="none")
    ax.set_yscale("log")
    axt.set_yscale("log")
    ax.axhline(c.parameters.success_tol, color="k", ls=":", lw=1)
    n3 = sum(1 for k in order if dims[k] == 3)
    for a in (ax, axt):
        if 0 < n3 < len(order):
            a.axvline(n3 - 0.5, color="0.4", lw=1)
        a.grid(True, which="both", axis="y", alpha=0.3)
    if 0 < n3 < len(order):
        ax.text(n3 - 0.6, 0.98, "3-D  ", transform=ax.get_xaxis_transform(), ha="right",
                va="top", fontsize=8)
        ax.text(n3 - 0.4, 0.98, "  2-D (d = 2)", transform=ax.get_xaxis_transform(),
                ha="left", va="top", fontsize=8)
    axt.set_xticks(range(len(order)))
    axt.set_xticklabels([f"{os.path.basename(names[k])} (n={int(size[k])})" for k in order],
                        rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("relative natural-map residual,\nexact cone (1e-18 floor)")
    axt.set_ylabel("wall time per solve [s]\n(1e-7 floor)")
    ax.set_title(f"{name}: Coulomb error and time per problem")
    handles = [Line2D([], [], marker=styles[s][1], color=styles[s][0], linestyle="none",
                      label=c.series.label[s]) for s in range(P)]
    handles += [Line2D([], [], color="k", ls=":", label=f"success threshold "
                       f"{c.parameters.success_tol:g}"),
                Line2D([], [], marker="o", color="0.3", mfc="0.3", linestyle="none",
                       label="filled: solved"),
                Line2D([], [], marker="o", color="0.3", mfc="none", linestyle="none",
                       label="hollow: stopped at its budget"),
                Line2D([], [], marker="x", color="k", linestyle="none", label="crossed: failed")]
    ax.legend(handles=handles, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return _save(fig, outdir, name, "cone_error")


def divergence_unit(dimension):
    """What /divergence/q's max over the coordinates of q is in: lengths, and the 2-D
    angles (rad) or the 3-D quaternion components (unitless) of the orientations."""
    return {1: "m", 2: "m or rad", 3: "m, or quaternion component"}.get(int(dimension), "m")


def divergence_hidden(c, floor=1e-18):
    """The divergence figure's notes on series a reader cannot see: those never above the
    floor lie on top of each other there (named, with their largest divergence when not
    exactly 0: siconos:enum's 2.2e-19 on the brick had been drawn at the floor unnamed),
    and a series whose curve is another's at every step is drawn under it (on the brick,
    siconos:lemke under siconos:pivot). Returns the note lines (none: [])."""
    q = np.asarray(c.divergence.q, dtype=float)
    labels = list(c.series.label)
    at_floor = []
    groups = []  # [curve, labels]: series above the floor with the same curve, in drawing order
    for s in range(len(labels)):
        if c.series.is_reference[s]:
            continue
        col = q[:, s]
        top = np.nanmax(col) if np.isfinite(col).any() else np.nan
        if not (col > floor).any():
            at_floor.append(labels[s] if not top > 0 else f"{labels[s]} (up to {top:.2g})")
            continue
        curve = np.maximum(col, floor)
        g = next((g for g in groups if np.array_equal(g[0], curve, equal_nan=True)), None)
        if g is None:
            groups.append([curve, [labels[s]]])
        else:
            g[1].append(labels[s])
    # a later line is drawn over the earlier ones: all but the last of a group are hidden
    under = [f"{', '.join(g[1][:-1])} under {g[1][-1]}" for g in groups if len(g[1]) > 1]
    notes = []
    if at_floor:
        notes.append(f"at the floor (never more than {floor:g} from the reference's trajectory): "
                     + ", ".join(at_floor))
    if under:
        notes.append("drawn under another (the same divergence at every step): " + ", ".join(under))
    return notes


def figure_divergence(c, outdir, name):
    """Independent runs: state difference to the reference trajectory over time."""
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for s, (col, mk) in zip(range(len(c.series.label)), _styles(len(c.series.label))):
        if c.series.is_reference[s]:
            continue
        ax.semilogy(c.time, np.maximum(c.divergence.q[:, s], 1e-18), color=col,
                    label=c.series.label[s], linestyle=_dash(s))
    ax.set_xlabel("time [s]")
    ax.set_ylabel(r"$\max_i |q_i - q_i^{ref}|$" + f" [{divergence_unit(c.parameters.dimension)}]"
                  "\n(1e-18 floor)")
    ax.set_title(f"{name}: divergence from {c.parameters.reference}")
    ax.grid(True, which="both", alpha=0.3)
    # the series drawn where others hide them are named under the axes (note lines)
    notes = divergence_hidden(c)
    if notes:
        import textwrap
        ax.text(0.0, -0.14, "\n".join(l for n in notes for l in textwrap.wrap(n, 90)),
                transform=ax.transAxes, ha="left", va="top", fontsize=7)
    _legend(ax, len(c.series.label), ncol=1)
    return _save(fig, outdir, name, "divergence")


def figures(c, outdir, name):
    """Every figure of a compare file; returns the paths written: none when no problem
    had an LCP (a scene's steps with nothing in contact), where every profile would show
    every solver at 0."""
    if not np.any(np.asarray(c.problem_size) > 0):
        return []
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
    if not a.no_figures and os.path.exists(a.outdir) and not os.path.isdir(a.outdir):
        # -o names the folder of the figures (a file there had ended in FileExistsError)
        print(f"lcpsim_compare.py: -o {a.outdir}: is a file: give the folder for the "
              "figures", file=sys.stderr)
        return 2
    try:
        c = load(a.file)
    except (OSError, ValueError, KeyError) as e:
        # a missing, foreign or run file: one line naming it (it had been a traceback)
        msg = str(e) if str(e).startswith(a.file) else f"{a.file}: {e}"
        print(f"lcpsim_compare.py: {msg}", file=sys.stderr)
        return 1
    name = a.name or os.path.splitext(os.path.basename(a.file))[0]
    if a.summary:
        try:
            print(markdown_summary(c))
        except ValueError as e:
            print(f"lcpsim_compare.py: {e}", file=sys.stderr)
            return 1
    if a.outcomes:
        print(markdown_outcomes(c))
    if not a.no_figures:
        paths = figures(c, a.outdir, name)
        if not paths:
            print(f"lcpsim_compare.py: {a.file}: no problem had an LCP (nothing in contact): "
                  "no figures", file=sys.stderr)
        for p in paths:
            print(p)
    return 0


if __name__ == "__main__":
    # A reader that stops early (| head, | grep -q) ends the command quietly, as for any
    # Unix tool, not with a BrokenPipeError traceback.
    import signal
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.exit(main(sys.argv[1:]))
