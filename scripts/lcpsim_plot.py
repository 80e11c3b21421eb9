#!/usr/bin/python3
"""Plot an lcpsim run: positions, velocities, energies and impulses over time.

    /usr/bin/python3 scripts/lcpsim_plot.py run.h5 -o run.png [--title TEXT]

1-D runs: one line per coordinate (positions, velocities) and the contact impulses.
2-D / 3-D runs: a row per axis (x, y (, z)) with each moving body's position (left) and
velocity (right), a rotation row (2-D: theta and omega; 3-D: the rotation angle from the
identity, 2 atan2(|(qx, qy, qz)|, qw) of the quaternions made continuous in sign, so it
runs from 0 to 2 pi without folding at pi, and the angular speed |w|), then energies
(kinetic, potential, total) and the contact impulses of each step (normal impulses summed
over the contacts only; friction as the sum of the contacts' norms). Runs with tethers get
a row of per-tether impulses and lengths, runs with joints one of per-joint impulse norms
and position errors, each series named. At most MAX_BODIES moving bodies are drawn (the
first ones, in file order); the legend says how many were left out.

Round-off: a panel whose values all agree to ROUNDOFF_REL relative (against max(1, |value|)
in the panel's SI unit) is drawn flat at their common value, rounded to 9 significant
digits (0 when they are that close to zero), and says so in the panel, instead of
magnifying the noise to full height with offset ticks.
The title is the scene's name (its "name" key), the solver, the time step and the steps;
for event-driven runs the record period, the samples and the number of events, and the
contact panel says its impulses are the persistent contacts' (impacts are in /events).
"""
import argparse
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lcpsim_load  # noqa: E402

MAX_BODIES = 10
ROUNDOFF_REL = 1e-9
plt.rcParams["axes.formatter.useoffset"] = False
# Distinct colours, and dashes that tell apart series lying on top of each other (the two
# ropes of a symmetric load) and series whose colours a colour-blind reader confuses: ten
# dashes, one per colour (with four, series 1, 5 and 9 were all solid in blue, purple and
# olive: Newton's cradle's b0 and b4, crossing in its vx panel, read alike).
DASHES = ["-", "--", "-.", ":", (0, (6, 1.5, 1, 1.5, 1, 1.5)), (0, (10, 3)),
          (0, (3, 1, 1, 1)), (0, (1, 3)), (0, (6, 2, 6, 2, 1, 2)), (0, (12, 2, 2, 2))]
plt.rcParams["axes.prop_cycle"] = (plt.cycler(color=plt.get_cmap("tab10").colors) +
                                   plt.cycler(linestyle=DASHES))


def coordinate_labels(r, kind):
    """A label per column of q (kind "q") or v ("v"): the owning body's name, with the
    coordinate index when a body has more than one."""
    n = r.parameters["n" + kind]
    labels = [f"{kind}[{i}]" for i in range(n)]
    offs, counts = r.bodies[kind + "_offset"], r.bodies["n" + kind]
    for name, o, c in zip(r.bodies.name, offs, counts):
        for j in range(int(c)):
            labels[int(o) + j] = name if c == 1 else f"{name}[{j}]"
    return labels


def step_impulses(r):
    """Per state row k = 1..N (the step r.step[k]; with a record stride the steps kept):
    the sum of the contacts' normal impulses and of their friction impulse norms (contact
    rows only: kinds 0 and 1; tether and joint rows left out)."""
    c = r.contacts
    n = len(r.time) - 1
    normal = np.zeros(n)
    friction = np.zeros(n)
    if len(c.step):
        keep = c.kind <= 1
        kept = np.asarray(r.get("step", np.arange(n + 1)))[1:]
        steps = np.searchsorted(kept, c.step[keep].astype(int)) + 1  # rows 1..N
        np.add.at(normal, steps - 1, c.normal_impulse[keep])
        np.add.at(friction, steps - 1, np.linalg.norm(c.friction_impulse[keep], axis=1))
    return normal, friction


def moving_bodies(r):
    """Indices of the bodies with coordinates (dynamic and kinematic)."""
    return [i for i, n in enumerate(r.bodies.nq) if int(n) > 0]


def scene_name(r, most=100):
    """The scene's "name", or "" when the file has no scene text or no name; cut to `most`
    characters with "..." (a title of a 10^5-character name overflowed the renderer)."""
    try:
        name = " ".join(str(json.loads(r.get("scene_text") or "{}").get("name", "")).split())
    except (ValueError, AttributeError):
        return ""
    return name if len(name) <= most else name[:most - 3] + "..."


def rotation_angle(quat):
    """Angle of each unit quaternion (qw, qx, qy, qz) from the identity, in [0, 2 pi]:
    the quaternions' signs are first made continuous (q and -q are one rotation), so a
    body turning steadily passes pi without the angle folding back."""
    q = np.array(quat, dtype=float)
    if len(q) and q[0, 0] < 0:
        q[0] = -q[0]
    for k in range(1, len(q)):
        if np.dot(q[k], q[k - 1]) < 0:
            q[k] = -q[k]
    return 2.0 * np.arctan2(np.linalg.norm(q[:, 1:], axis=1), q[:, 0])


def tidy(ax, unit):
    """Round-off panels drawn flat (see the module docstring); the unit in the note."""
    ys = [ln.get_ydata() for ln in ax.get_lines() if len(ln.get_ydata())]
    ys = [np.asarray(y, dtype=float) for y in ys]
    ys = [y[np.isfinite(y)] for y in ys if np.isfinite(y).any()]
    if not ys:
        return
    lo, hi = min(y.min() for y in ys), max(y.max() for y in ys)
    mag = max(abs(lo), abs(hi))
    tol = ROUNDOFF_REL * max(1.0, mag)
    if hi - lo > tol:
        return
    level = 0.0 if mag <= tol else float(f"{(lo + hi) / 2:.9g}")
    for ln in ax.get_lines():
        ln.set_ydata(np.full(len(ln.get_ydata()), level))
    pad = max(0.1 * abs(level), 1.0 if level == 0.0 else 0.0, 1e-6)
    ax.set_ylim(level - pad, level + pad)
    what = "zero" if level == 0.0 else f"{level:.9g} {unit}".strip()
    # values all equal are no round-off ('spread 0.0e+00' had read as noise levelled)
    why = ("exactly, at every point" if hi == lo else
           f"round-off, spread {hi - lo:.1e} {unit} <= {ROUNDOFF_REL:.0e} x max(1, |value|)")
    ax.text(0.99, 0.04, f"constant: {what} ({why})".replace("  ", " "),
            transform=ax.transAxes, ha="right", va="bottom", fontsize="x-small", color="0.3")


def legend(ax, n, title=None):
    """A legend that does not cover the data: inside (best place) for up to 3 series,
    beside the panel for more."""
    if n == 0:
        return
    if n <= 3 and not title:
        ax.legend(loc="best", fontsize="small")
    else:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="x-small",
                  ncol=1 if n <= 12 else 2, title=title, title_fontsize="x-small",
                  borderaxespad=0.0)


def constraint_rows(r):
    """Rows (title, draw) for tethers and joints: each draw(left, right) fills two axes."""
    rows = []
    t = r.time
    if "tethers" in r:
        T = r.tethers

        def tethers(left, right):
            shown = T.name[:MAX_BODIES]
            note = f"first {len(shown)} of {len(T.name)}" if len(shown) < len(T.name) else None
            for i, name in enumerate(shown):
                left.plot(t[1:], T.impulse[:, i], label=name)
                line, = right.plot(t, T.length[:, i], label=name)
                right.axhline(T.length_max[i], color=line.get_color(), ls=":", lw=1)
            left.set_ylabel("tether impulse\nper step [N*s]")
            right.set_ylabel("end-to-end distance [m]\n(dotted: tether length)")
            legend(left, len(shown), note)
            legend(right, len(shown), note)
        rows.append(tethers)
    if "joints" in r:
        J = r.joints

        def joints(left, right):
            shown = J.name[:MAX_BODIES]
            note = f"first {len(shown)} of {len(J.name)}" if len(shown) < len(J.name) else None
            mixed = len(set(J.type)) > 1
            for j, name in enumerate(shown):
                left.plot(t[1:], np.linalg.norm(J.impulse[:, j, :], axis=1),
                          label=f"{name} ({J.type[j]})" if mixed else name)
                right.plot(t, J.error[:, j], label=name)
            kinds = "" if mixed else f" ({J.type[0]}s)"
            left.set_ylabel(f"joint impulse |.|{kinds}\nper step [N*s]")
            right.set_ylabel("joint position\nerror [m]")
            legend(left, len(shown), note)
            legend(right, len(shown), note)
        rows.append(joints)
    return rows


def run_end_note(r):
    """"" for a completed run; else how it ended, for the title (a stopped run's figure
    must not read as a whole one): "stopped at step 1: <reason>", "interrupted ...",
    "unfinished (killed) ..."."""
    s = r.summary
    end = s.get("run_end", "completed")
    if end == "completed":
        return ""
    n = int(s.get("run_end_step", len(r.time) - 1))
    if end == "unfinished":
        return f"\nunfinished: the writer was killed; {n} of {int(r.parameters.steps)} steps"
    why = str(s.get("run_end_reason", ""))
    why = why if len(why) <= 90 else why[:87] + "..."
    return f"\n{end} after {n} of {int(r.parameters.steps)} steps" + (f": {why}" if why else "")


def failed_steps(r):
    """The state rows k (1..N) whose step failed: status < 0, a fixed sweep budget spent
    (tol 0, status -1) not counted, as lcpsim run counts them; with a record stride the rows
    that count a failed step since the row before (/solver/failed_steps > 0)."""
    if "solver" not in r:
        return np.zeros(0, dtype=int)
    if "failed_steps" in r.solver:
        return np.flatnonzero(np.asarray(r.solver.failed_steps) > 0) + 1
    status = np.asarray(r.solver.status)
    bad = (status < 0) & ~((status == -1) & (r.parameters.get("solver_tol", 1.0) == 0.0))
    return np.flatnonzero(bad) + 1


FAILED_COLOR = "red"


def mark_failed(r, ax):
    """Red ticks along the time axis of every panel at the states the failed steps ended
    in (the title alone had said that steps failed, not where)."""
    k = failed_steps(r)
    if not len(k):
        return
    for a in ax.flat:
        if a.axison:
            time_marks(a, r.time[k], 0.0, 0.05, color=FAILED_COLOR, lw=1.2, zorder=5)


def time_marks(a, times, y0, y1, **style):
    """Vertical marks at `times` from y0 to y1 in axes fractions, leaving the panel's data
    limits alone (vlines had counted the fractions as data: a 4 mm panel grew to 5 cm)."""
    from matplotlib.collections import LineCollection
    segs = [[(x, y0), (x, y1)] for x in np.asarray(times, dtype=float)]
    a.add_collection(LineCollection(segs, transform=a.get_xaxis_transform(), **style),
                     autolim=False)


def failure_note(r):
    """"" when no step failed; else how many did and the first, for the title (a run whose
    failed solves were integrated must not read as a clean one): "\n19 of 500 steps failed
    (solver status < 0), the first: step 118, ending at t = 0.236 s". Fixed-budget steps (tol 0)
    are not failures (/summary/budget_steps)."""
    failed = int(r.summary.get("failures", 0))
    if failed <= 0 or "solver" not in r:
        return ""
    k = failed_steps(r)
    first = int(k[0]) if len(k) else 0
    steps = int(r.summary.get("steps_done", len(r.time) - 1))
    if first and "failed_steps" in r.solver:
        # A record stride: the first row that counts one (the step itself may be earlier).
        where = (f", the first by step {int(r.step[first])} (t = {r.time[first]:g} s); red ticks "
                 "on the time axes at the rows counting them")
    else:
        where = (f", the first: step {first}, ending at t = {r.time[first]:g} s; red ticks on the "
                 "time axes" if first else "")
    return f"\n{failed} of {steps} steps failed (solver status < 0){where}"


def title_of(r, title):
    if title:
        return title
    name = scene_name(r) or "lcpsim run"
    if event_driven(r):
        return (f"{name}\n{int(r.parameters.dimension)}-D, event-driven (CVODE; {r.parameters.solver_name} "
                f"at events), record period {r.parameters.time_step:g} s, {len(r.time) - 1} periods, "
                f"{len(r.events.time)} events" + run_end_note(r))
    if str(getattr(r, "file_kind", "")) == "checkpoint":
        # A checkpoint (lsim_sim_save) is one state, not a run of no steps.
        return (f"{name}\n{int(r.parameters.dimension)}-D, solver {r.parameters.solver_name}, "
                f"h = {r.parameters.time_step:g} s, checkpoint: the state after step "
                f"{int(r.checkpoint['step'])} (t = {float(r.time[0]):g} s), no steps")
    every = int(r.parameters.get("record_every", 1))
    steps = int(r.summary.get("steps_done", len(r.time) - 1))
    return (f"{name}\n{int(r.parameters.dimension)}-D, solver {r.parameters.solver_name}, "
            f"h = {r.parameters.time_step:g} s, {steps} steps" +
            (f" (recorded every {every})" if every > 1 else "") + run_end_note(r) +
            failure_note(r))


def event_driven(r):
    """An event-driven run (docs/output-format.md, /events)."""
    return str(getattr(r.parameters, "integrator", "")) == "event_driven"


def contact_panel(r, c):
    t = r.time
    c.set_ylabel("contact impulse\nper step [N*s]")
    if not np.any(r.contacts.kind <= 1):
        # a file of no step (a run killed before its first flush) says so: 'no contacts in
        # this run' read as if the dominoes, standing on the ground, touched nothing
        empty = ("a checkpoint holds no step's contacts"
                 if str(getattr(r, "file_kind", "")) == "checkpoint" else
                 "no step recorded: no contacts to show" if len(t) <= 1 else
                 "no contacts in this run")
        c.text(0.5, 0.5, empty, transform=c.transAxes, ha="center", va="center")
        return
    normal, friction = step_impulses(r)
    c.plot(t[1:], normal, label="contact normals (sum)")
    c.plot(t[1:], friction, label="friction (sum of norms)")
    if event_driven(r):
        # Persistent contacts' forces times the record period; impacts are instants, listed
        # in /events, and their impulses are not in these sums.
        kinds = [str(k) for k in r.events.kind_legend]
        imp = (np.asarray(r.events.kind) == kinds.index("impact")) if "impact" in kinds else \
            np.zeros(len(r.events.time), dtype=bool)
        n_imp = int(np.sum(imp))
        c.set_ylabel("contact impulse\nper period [N*s]")
        # the impacts' times drawn (the panel had shown nothing until the ball came to rest)
        time_marks(c, np.asarray(r.events.time)[imp], 0.0, 1.0, color="0.55", ls=":", lw=0.8,
                   zorder=0)
        impacts = "the 1 impact (dotted) is" if n_imp == 1 else f"the {n_imp} impacts (dotted) are"
        c.text(0.02, 0.5, f"persistent contacts only:\n{impacts} in /events",
               transform=c.transAxes, ha="left", va="center", fontsize="x-small", color="0.3",
               gid="events_note")
    c.legend(loc="best", fontsize="small")


def clear_inside_legends(fig, ax):
    """A legend inside a panel ("best" place) that still covers a data point (panels full of
    curves, e.g. double_pendulum's energies) moves to the panel's top right corner over
    headroom added above the data, so that nothing is hidden."""
    fig.canvas.draw()
    for a in ax.flat:
        leg = a.get_legend()
        if leg is None or leg.get_bbox_to_anchor().bounds != a.bbox.bounds:
            continue  # none, or beside the panel
        box = leg.get_window_extent().padded(2)
        covered = False
        for line in a.get_lines():
            xy = line.get_xydata()
            xy = xy[np.all(np.isfinite(xy), axis=1)]
            if len(xy):
                p = a.transData.transform(xy)
                covered |= bool(np.any((p[:, 0] >= box.x0) & (p[:, 0] <= box.x1) &
                                       (p[:, 1] >= box.y0) & (p[:, 1] <= box.y1)))
        if not covered:
            continue
        # The data keep the lower part of the panel, the legend the band above them.
        frac = min(0.6, (leg.get_window_extent().height + 8) / a.bbox.height)
        lo, hi = a.get_ylim()
        a.set_ylim(lo, lo + (hi - lo) / (1.0 - frac))
        leg._loc = 1  # upper right (Legend.set_loc is matplotlib >= 3.8 only)


def covers_data(a, box):
    """True when the pixel box holds a point of a line of panel a, or of a line's segment
    between two points (sampled 8 times: a flat line's points may all lie outside)."""
    for line in a.get_lines():
        xy = line.get_xydata()
        xy = xy[np.all(np.isfinite(xy), axis=1)]
        if not len(xy):
            continue
        p = a.transData.transform(xy)
        if len(p) > 1:
            f = np.linspace(0.0, 1.0, 9)[:, None, None]
            p = (p[:-1] + f * (p[1:] - p[:-1])).reshape(-1, 2)
        if np.any((p[:, 0] >= box.x0) & (p[:, 0] <= box.x1) &
                  (p[:, 1] >= box.y0) & (p[:, 1] <= box.y1)):
            return True
    return False


def clear_notes(fig, ax):
    """The event-driven contact panel's note (left, mid-height) moves to the first place
    of the left column (top, bottom) or of the right one where it covers no data and
    meets no legend or other note: over a flat panel it lay across the line at 0
    (Newton's cradle)."""
    fig.canvas.draw()
    for a in ax.flat:
        for t in a.texts:
            if t.get_gid() != "events_note":
                continue
            leg = a.get_legend()
            others = [o.get_window_extent() for o in a.texts if o is not t]  # round-off notes
            for x, y, ha, va in ((0.02, 0.5, "left", "center"), (0.02, 0.97, "left", "top"),
                                 (0.02, 0.03, "left", "bottom"), (0.98, 0.5, "right", "center"),
                                 (0.98, 0.03, "right", "bottom"), (0.5, 0.97, "center", "top")):
                t.set_position((x, y))
                t.set_ha(ha)
                t.set_va(va)
                box = t.get_window_extent().padded(2)
                if not covers_data(a, box) and (leg is None or
                                                not box.overlaps(leg.get_window_extent())) \
                        and not any(box.overlaps(o) for o in others):
                    break


def finish(fig, ax, out, units, r):
    """Grid, round-off and time labels; writes out (PNG) and closes the figure, or returns
    the figure when out is None."""
    for a, unit in zip(ax.flat, units):
        a.grid(True, alpha=0.3)
        tidy(a, unit)
    for a in ax[-1]:
        a.set_xlabel("time [s]")
    mark_failed(r, ax)
    # Room above the panels for every line of the title (a third line, a stopped run's or
    # the failed steps', overlapped the top panels' titles).
    fig.tight_layout()
    if fig._suptitle is not None:
        fig.canvas.draw()
        inv = fig.transFigure.inverted()
        title_y0 = fig._suptitle.get_window_extent().transformed(inv).y0
        panels_y1 = max(a.get_tightbbox().transformed(inv).y1 for a in ax.flat)
        overlap = panels_y1 - title_y0 + 0.05 / fig.get_figheight()  # 0.05 inch apart
        if overlap > 0:
            fig.subplots_adjust(top=fig.subplotpars.top - overlap)
    clear_inside_legends(fig, ax)
    clear_notes(fig, ax)
    if out is None:
        return fig
    # legends beside panels included
    lcpsim_load.save_figure(fig, out, dpi=100, bbox_inches="tight")
    plt.close(fig)
    return None


def plot_nd(r, out, title=None):
    """The 2-D / 3-D figure (see the module docstring)."""
    dim = int(r.parameters.dimension)
    t = r.time
    moving = moving_bodies(r)
    shown = moving[:MAX_BODIES]
    extra = constraint_rows(r)
    rows = dim + 2 + len(extra)
    fig, ax = plt.subplots(rows, 2, sharex=True, figsize=(12, 2.3 * rows + 0.6), squeeze=False)
    axis_names = "xyz"
    for i in shown:
        name = r.bodies.name[i]
        p, v = r.position(i), r.velocity(i)
        for a in range(dim):
            ax[a, 0].plot(t, p[:, a], label=name)
            ax[a, 1].plot(t, v[:, a], label=name)
        if dim == 2:
            angle, speed = r.orientation(i), r.angular_velocity(i)
        else:
            angle = rotation_angle(r.orientation(i))
            speed = np.linalg.norm(r.angular_velocity(i), axis=1)
        ax[dim, 0].plot(t, angle, label=name)
        ax[dim, 1].plot(t, speed, label=name)
    units = []
    for a in range(dim):
        ax[a, 0].set_ylabel(f"{axis_names[a]} [m]")
        ax[a, 1].set_ylabel(f"v{axis_names[a]} [m/s]")
        units += ["m", "m/s"]
    if dim == 2:
        ax[dim, 0].set_ylabel("theta [rad]")
        ax[dim, 1].set_ylabel("omega [rad/s]")
    else:
        ax[dim, 0].set_ylabel("rotation angle\nfrom identity [rad]")
        ax[dim, 1].set_ylabel("|w| [rad/s]")
    units += ["rad", "rad/s"]
    ax[0, 0].set_title("positions")
    ax[0, 1].set_title("velocities")
    if shown:
        note = (f"first {len(shown)} of {len(moving)}" if len(shown) < len(moving) else None)
        legend(ax[0, 1], len(shown), note)
    else:
        ax[0, 0].text(0.5, 0.5, "no moving bodies", transform=ax[0, 0].transAxes,
                      ha="center", va="center")

    e = ax[dim + 1, 0]
    e.plot(t, r.energy.kinetic, label="kinetic")
    e.plot(t, r.energy.potential, label="potential")
    e.plot(t, r.energy.kinetic + r.energy.potential, label="total", color="k", lw=1)
    e.set_ylabel("energy [J]")
    e.legend(loc="best", fontsize="small")
    contact_panel(r, ax[dim + 1, 1])
    units += ["J", "N*s"]
    for k, draw in enumerate(extra):
        draw(ax[dim + 2 + k, 0], ax[dim + 2 + k, 1])
    units += ["N*s", "m"] * len(extra)
    fig.suptitle(title_of(r, title))
    return finish(fig, ax, out, units, r)


def plot(r, out, title=None):
    # A run of one state (stopped at its first step) has no line to draw: markers show it.
    with plt.rc_context({"lines.marker": "o"} if len(r.time) < 3 else {}):
        return plot_run(r, out, title)


def plot_run(r, out, title=None):
    if r.parameters.dimension != 1:
        return plot_nd(r, out, title)
    extra = constraint_rows(r)
    fig, ax = plt.subplots(3 + len(extra), 2 if extra else 1, sharex=True,
                           figsize=(12 if extra else 8, 9 + 2.5 * len(extra)), squeeze=False)
    t = r.time
    for kind, a, unit in (("q", ax[0, 0], "position [m]"), ("v", ax[1, 0], "velocity [m/s]")):
        data = r[kind]
        for i, label in enumerate(coordinate_labels(r, kind)):
            a.plot(t, data[:, i], label=label)
        a.set_ylabel(unit)
        legend(a, data.shape[1])
    contact_panel(r, ax[2, 0])
    units = ["m", "m/s", "N*s"]
    if extra:
        for k in range(3):
            ax[k, 1].axis("off")
        for k, draw in enumerate(extra):
            draw(ax[3 + k, 0], ax[3 + k, 1])
        units = [u for x in units for u in (x, "")] + ["N*s", "m"] * len(extra)
    fig.suptitle(title_of(r, title))
    return finish(fig, ax, out, units, r)


def output_problem(out, run):
    """Why figure file `out` cannot be written for input `run`, or None: a format matplotlib
    writes, named by the extension (a path without one was written as PATH.png, a folder
    -o DIR as DIR.png), a folder that exists, not the input itself."""
    ext = os.path.splitext(out)[1].lower().lstrip(".")
    kinds = plt.figure().canvas.get_supported_filetypes()
    plt.close("all")
    if os.path.isdir(out):
        return "is a folder: give a file name such as run.png"
    if ext not in kinds:
        what = f"'.{ext}' is not a figure format" if ext else "has no extension"
        return (f"{what}: give a name ending in .png, .pdf or .svg (matplotlib writes "
                f"{', '.join('.' + k for k in sorted(kinds))})")
    folder = os.path.dirname(out) or "."
    if not os.path.isdir(folder):
        return f"no folder {folder}"
    if os.path.exists(out) and os.path.exists(run) and os.path.samefile(out, run):
        return "is the input file: refused (it would be replaced)"
    return None


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("run", help="run file (.h5)")
    ap.add_argument("-o", "--output", help="PNG to write (default: RUN with .png)")
    ap.add_argument("--title", help="the figure's title (default: the scene's name, "
                                    "solver, time step and steps)")
    a = ap.parse_args(argv[1:])
    out = a.output or os.path.splitext(a.run)[0] + ".png"
    why = output_problem(out, a.run)
    if why:
        print(f"lcpsim_plot: -o {out}: {why}", file=sys.stderr)
        return 2
    try:
        r = lcpsim_load.load(a.run)
    except (OSError, KeyError) as e:
        print(f"lcpsim_plot: {a.run}: {e}", file=sys.stderr)
        return 1
    why = lcpsim_load.run_problem(r)
    if why:
        print(f"lcpsim_plot: {a.run} {why}", file=sys.stderr)
        return 1
    try:
        plot(r, out, a.title)
    except OSError as e:
        print(f"lcpsim_plot: {out}: cannot write: {e.strerror or e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
