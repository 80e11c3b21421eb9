#!/usr/bin/python3
"""Render an lcpsim run (1-D, 2-D or 3-D) as frames: a PNG sequence, a GIF or an MP4.

    /usr/bin/python3 scripts/lcpsim_animate.py run.h5 -o frames/%04d.png
    /usr/bin/python3 scripts/lcpsim_animate.py run.h5 -o run.gif --every 5
    /usr/bin/python3 scripts/lcpsim_animate.py run.h5 -o run.mp4 --fps 30

The output's name chooses the format: a name with a printf field (%d, %04d) is a PNG
sequence numbered 0, 1, 2, ... (directories are created); .gif is written a frame at a
time as each is drawn, each frame with its own 256-colour palette, through Pillow (Debian
python3-pil, a dependency of python3-matplotlib), so memory stays that of one frame
however long the run; .mp4 with matplotlib's FFMpegWriter (frames piped to ffmpeg as
drawn): H.264 in yuv420p, the figure shrunk to an even width and height in pixels (by at
most one pixel), through ffmpeg on PATH (Debian ffmpeg, which scripts/install-deps
installs).

Frames are the recorded states 0, K, 2K, ... (--every K) and always the last one. Without
--every a GIF or MP4 takes the stride that plays the run in real time at its frame rate
(--fps F, else the 50 fps cap): K = ceil(1 / (F h)), h the simulated time between recorded
states, so 100 s of a run at h = 1 ms is 5000 frames at 50 fps, or 1000 with --fps 10, not
100 000 (a note on stderr says so; --every 1 draws every state); a PNG sequence takes every
state (K = 1). Every
shape is drawn at its body's pose (docs/output-format.md, /shapes): 2-D disks (with a
radius line that shows the rotation), rectangles, capsules, points, and planes as long
lines hatched on their solid side; 3-D wireframes of boxes, spheres (three great
circles), capsules, points, and planes as a grid square; 1-D segments as bars on the
line, walls hatched on their solid side. Bodies without shapes are a dot at their
origin. Tethers are lines between their ends, solid dark red while taut, dashed grey
while slack; joints dark slate lines with a ring at each end; a body's attachment points
are joined to its origin when it has no shapes (so jointed links show as sticks). Static bodies
are grey, moving ones coloured; the contact points found at the state (the next step's
contact rows; tether and joint rows left out) are red dots (smaller beyond 50 of them). The view is fixed for the whole animation: --limits, or the
extent of every non-plane shape, shapeless body and tether or joint end over the frames
plus a margin.
"""
import json
import argparse
import math
import os
import signal
import subprocess
import sys
from io import BytesIO

import matplotlib

matplotlib.use("Agg")
import matplotlib.animation as animation  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.patches import Circle, Polygon  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402
from PIL import GifImagePlugin, Image  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lcpsim_load  # noqa: E402

PLANE, SPHERE, BOX, CAPSULE, POINT = 2, 3, 4, 5, 6
STATIC = 1


def quat_matrix(q):
    """Rotation matrix of a quaternion (w, x, y, z) (normalized first)."""
    q = np.asarray(q, dtype=float)
    n = np.linalg.norm(q)
    w, x, y, z = q / n if n > 0 else (1.0, 0.0, 0.0, 0.0)
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


def rot2(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s], [s, c]])


class Scene:
    """Body poses per state and the shapes of a loaded run."""

    def __init__(self, r):
        self.r = r
        self.dim = int(r.parameters.dimension)
        if self.dim > 1 and "shapes" not in r:
            raise ValueError("the file has no /shapes (format 1): record it again")
        nb = len(r.bodies.name)
        self.pos = [r.position(i) for i in range(nb)]        # [N+1, dim]
        self.ori = [r.orientation(i) if self.dim > 1 else None for i in range(nb)]
        self.shapes = list(range(len(r.shapes.type))) if self.dim > 1 else []
        self.shapeless = [i for i in range(nb) if self.dim > 1 and int(r.bodies.nshapes[i]) == 0]
        self.links = constraints(r, self)
        self.static = [int(t) == STATIC for t in r.bodies.type]
        cycle = plt.rcParams["axes.prop_cycle"].by_key().get("color", ["C0"])
        self.color, k = [], 0
        for i in range(nb):
            if self.static[i]:
                self.color.append("0.35")
            else:
                self.color.append(cycle[k % len(cycle)])
                k += 1

    def states(self):
        return len(self.r.time)

    def shape_pose(self, j, k):
        """World pose of shape j at state k: 2-D (center [2], angle); 3-D (center [3],
        rotation matrix)."""
        s = self.r.shapes
        b = int(s.body[j])
        lp, lq = np.asarray(s.position[j], dtype=float), np.asarray(s.orientation[j], float)
        if self.dim == 2:
            th = float(self.ori[b][k])
            c = self.pos[b][k] + rot2(th) @ lp[:2]
            return c, th + 2.0 * math.atan2(lq[3], lq[0])
        R = quat_matrix(self.ori[b][k])
        return self.pos[b][k] + R @ lp, R @ quat_matrix(lq)

    def reach(self, j, rot):
        """Half extents per axis of shape j's box in the world at rotation rot (shape_pose's:
        2-D an angle, 3-D a matrix): a sphere's radius, a box's |R| half, a capsule's
        |axis| half length plus radius; planes 0. (A bounding sphere per shape framed a bin
        of long walls twice as wide as the bin.)"""
        s = self.r.shapes
        t, rad, half = int(s.type[j]), float(s.radius[j]), np.asarray(s.half_extents[j], float)
        R = rot2(rot) if self.dim == 2 else np.asarray(rot)
        if t == SPHERE:
            return np.full(self.dim, rad)
        if t == BOX:
            return np.abs(R) @ half[:self.dim]
        if t == CAPSULE:
            return np.abs(R[:, 0]) * float(half[0]) + rad
        return np.zeros(self.dim)

    def limits(self, frames):
        """[(lo, hi)] per axis covering every non-plane shape in the frames (plane
        origins included), with a 10 % margin."""
        lo = np.full(self.dim, np.inf)
        hi = np.full(self.dim, -np.inf)

        def take(c, e=0.0):
            nonlocal lo, hi
            c = np.asarray(c, dtype=float)[:self.dim]
            if np.all(np.isfinite(c)):
                lo = np.minimum(lo, c - e)
                hi = np.maximum(hi, c + e)
        for j in self.shapes:
            for k in frames:
                c, rot = self.shape_pose(j, k)
                take(c, self.reach(j, rot))
        for i in self.shapeless:
            for k in frames:
                take(self.pos[i][k])
        for link in self.links:
            for k in frames:
                for p in link["ends"](k):
                    take(p)
        if self.dim == 1:
            b = self.r.bodies
            for i in range(len(b.name)):
                wall = int(b.type[i]) == STATIC and int(b.shape[i]) == 1
                for k in (frames if not wall else frames[:1]):
                    take(self.pos[i][k], 0.0 if wall else 0.5 * float(b.width[i]))
        if not np.all(np.isfinite(lo)):
            lo, hi = -np.ones(self.dim), np.ones(self.dim)
        span = max(float(np.max(hi - lo)), 1e-9)
        out = []
        for a in range(self.dim):
            mid, half = 0.5 * (lo[a] + hi[a]), 0.5 * (hi[a] - lo[a])
            half = max(half, 0.05 * span) + 0.1 * span
            out.append((mid - half, mid + half))
        return out


# ---- tethers and joints

TAUT, SLACK, JOINT = "#b71c1c", "0.55", "#455a64"


def constraints(r, sc):
    """Tethers and joints: dicts of kind ("tether" / "joint"), name, ends(k) -> [p_a, p_b]
    (3-vectors, world) and, for tethers, taut(k). Ends come from the scene's text (body
    points, world points, paths with velocity and amplitude); without it, or for a path
    given as a table, from the file's rows: step k + 1's row was evaluated at state k."""
    try:
        scene = json.loads(r.get("scene_text") or "{}")
    except ValueError:
        scene = {}
    names = r.bodies.name
    time = r.time

    def end_function(end):
        v3 = lambda a: np.r_[np.asarray(a, dtype=float), np.zeros(3)][:3]  # noqa: E731
        if "body" in end and end["body"] in names:
            i = names.index(end["body"])
            pt = v3(end.get("point", [0.0]))
            arms.setdefault(i, []).append(pt)

            def body_end(k):
                p = v3(sc.pos[i][k])
                if sc.dim == 2:
                    R = np.eye(3)
                    R[:2, :2] = rot2(float(sc.ori[i][k]))
                    return p + R @ pt
                if sc.dim == 3:
                    return p + quat_matrix(sc.ori[i][k]) @ pt
                return p + pt
            return body_end
        if "world" in end:
            w = v3(end["world"])
            return lambda k: w
        path = end.get("path")
        if isinstance(path, dict) and "table" not in path:
            o, v = v3(path.get("origin", [0.0])), v3(path.get("velocity", [0.0]))
            a = v3(path.get("amplitude", [0.0]))
            f, ph = float(path.get("frequency", 0.0)), float(path.get("phase", 0.0))
            return lambda k: o + v * time[k] + a * (math.sin(2 * math.pi * f * time[k] + ph)
                                                    - math.sin(ph))
        return None

    def row_ends(kind, index, length_of):
        c = r.contacts

        def ends(k):
            sl = c.row_slice(state_contact_row(r, k))
            for j in range(sl.start, sl.stop):
                if int(c.kind[j]) == kind and ((int(c.id[j]) >> 16) & 0xFFFFFF) - 1 == index:
                    p, n = np.asarray(c.point[j]), np.asarray(c.normal[j])
                    return [p, p + n * length_of(float(c.gap[j]))]
            return []
        return ends

    arms = {}
    out = []
    for kind, group, code in (("tether", "tethers", 2), ("joint", "joints", 3)):
        if group not in r:
            continue
        spec = scene.get(group, []) if isinstance(scene, dict) else []
        for i, name in enumerate(r[group].name):
            e = [end_function(x) for x in spec[i]["ends"]] if i < len(spec) else [None]
            if len(e) == 2 and all(e):
                ends = (lambda e0, e1: lambda k: [e0(k), e1(k)])(*e)
            elif kind == "tether":
                L = float(r.tethers.length_max[i])
                ends = row_ends(code, i, lambda gap, L=L: L - gap)
            else:
                L = float(r.joints.length[i])
                ends = row_ends(code, i, lambda gap, L=L: -(gap + L))
            link = {"kind": kind, "name": name, "ends": ends}
            if kind == "tether":
                T = r.tethers
                link["taut"] = (lambda i: lambda k: bool(T.taut[k - 1, i]) if k > 0 else
                                T.length[0, i] >= T.length_max[i] - 1e-9)(i)
            out.append(link)
    sc.arms = arms
    return out


def draw_links(ax, sc, k):
    """Tethers, joints, arms and shapeless bodies at state k (2-D: x, y; 3-D: x, y, z)."""
    d = max(sc.dim, 2)
    for i, pts in sc.arms.items():
        if i not in sc.shapeless:
            continue  # a body with shapes shows itself
        for pt in pts:
            a = np.r_[np.asarray(sc.pos[i][k], dtype=float), np.zeros(3)][:3]
            if sc.dim == 2:
                R = np.eye(3)
                R[:2, :2] = rot2(float(sc.ori[i][k]))
            elif sc.dim == 3:
                R = quat_matrix(sc.ori[i][k])
            else:
                R = np.eye(3)
            b = a + R @ pt
            ax.plot(*[[a[j], b[j]] for j in range(d)], color=sc.color[i], lw=2.5,
                    solid_capstyle="round", zorder=3)
    for i in sc.shapeless:
        p = sc.pos[i][k]
        ax.plot(*[[p[j]] for j in range(d)], "o", color=sc.color[i], ms=6, zorder=4)
    for link in sc.links:
        e = link["ends"](k)
        if len(e) < 2:
            continue
        xs = [[e[0][j], e[1][j]] for j in range(d)]
        if link["kind"] == "tether":
            taut = link["taut"](k)
            ax.plot(*xs, color=TAUT if taut else SLACK, ls="-" if taut else "--",
                    lw=1.6 if taut else 1.0, zorder=4)
        else:
            ax.plot(*xs, color=JOINT, lw=1.4, zorder=4)
            ax.plot(*[[e[0][j], e[1][j]] for j in range(d)], "o", mfc="white", mec=JOINT,
                    ms=5, zorder=5)


# ---- 1-D drawing

def draw_1d(ax, sc, k, lim):
    """Segments as bars on the line, points as dots, walls hatched on their solid side."""
    b = sc.r.bodies
    span = lim[0][1] - lim[0][0]
    height = 0.08 * span
    ax.axhline(0.0, color="0.3", lw=1)
    for i in range(len(b.name)):
        x = float(sc.pos[i][k][0])
        w = float(b.width[i])
        if int(b.type[i]) == STATIC and int(b.shape[i]) == 1:  # a wall
            side = int(b.side[i])
            far = x + side * 2 * span
            ax.add_patch(Polygon([[x, -0.5 * height], [far, -0.5 * height], [far, 2 * height],
                                  [x, 2 * height]], closed=True, fill=False, hatch="///",
                                 edgecolor="0.35", lw=0))
            ax.plot([x, x], [-0.5 * height, 2 * height], color="0.35", lw=1.5)
        elif w > 0:
            ax.add_patch(Polygon([[x - w / 2, 0], [x + w / 2, 0], [x + w / 2, height],
                                  [x - w / 2, height]], closed=True, facecolor=sc.color[i],
                                 edgecolor="k", alpha=0.7, lw=1))
            ax.text(x, 1.15 * height, b.name[i], ha="center", va="bottom", fontsize=8)
        else:
            ax.plot([x], [0], "o", color=sc.color[i], ms=7)
            ax.text(x, 0.4 * height, b.name[i], ha="center", va="bottom", fontsize=8)
    draw_links(ax, sc, k)
    pts = contact_points(sc.r, k)
    if len(pts):
        ax.plot(pts[:, 0], np.zeros(len(pts)), "o", color="red", ms=4, zorder=5)
    ax.set_xlim(*lim[0])
    ax.set_ylim(-0.1 * span, 0.25 * span)  # the line has no y: room for the bars only
    ax.set_yticks([])
    ax.set_xlabel("x [m]")


# ---- 2-D drawing

def draw_2d(ax, sc, k, lim):
    span = max(lim[0][1] - lim[0][0], lim[1][1] - lim[1][0])
    s = sc.r.shapes
    for j in sc.shapes:
        t, b = int(s.type[j]), int(s.body[j])
        col = sc.color[b]
        c, a = sc.shape_pose(j, k)
        rad, half = float(s.radius[j]), np.asarray(s.half_extents[j], dtype=float)
        R = rot2(a)
        if t == SPHERE:
            ax.add_patch(Circle(c, rad, facecolor=col, edgecolor="k", alpha=0.45, lw=1))
            ax.add_patch(Circle(c, rad, fill=False, edgecolor="k", lw=1))
            e = c + R @ np.array([rad, 0.0])
            ax.plot([c[0], e[0]], [c[1], e[1]], color="k", lw=1)
        elif t == BOX:
            corners = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * half[:2]
            ax.add_patch(Polygon(c + corners @ R.T, closed=True, facecolor=col,
                                 edgecolor="k", alpha=0.6, lw=1))
        elif t == CAPSULE:
            L = float(half[0])
            u = np.linspace(-math.pi / 2, math.pi / 2, 13)
            right = np.c_[L + rad * np.cos(u), rad * np.sin(u)]
            left = np.c_[-L - rad * np.cos(u), -rad * np.sin(u)]
            ax.add_patch(Polygon(c + np.vstack([right, left]) @ R.T, closed=True,
                                 facecolor=col, edgecolor="k", alpha=0.6, lw=1))
            e = c + R @ np.array([L, 0.0])
            ax.plot([c[0], e[0]], [c[1], e[1]], color="k", lw=0.8)
        elif t == PLANE:
            tangent, normal = R @ np.array([1.0, 0.0]), R @ np.array([0.0, 1.0])
            far, depth = 20.0 * span, 0.04 * span
            p0, p1 = c - far * tangent, c + far * tangent
            ax.add_patch(Polygon([p0, p1, p1 - depth * normal, p0 - depth * normal],
                                 closed=True, fill=False, hatch="///", edgecolor=col, lw=0))
            ax.plot([p0[0], p1[0]], [p0[1], p1[1]], color=col, lw=1.5)
        elif t == POINT:
            ax.plot([c[0]], [c[1]], "o", color=col, ms=3)
    draw_links(ax, sc, k)
    pts = contact_points(sc.r, k)
    if len(pts):
        ax.plot(pts[:, 0], pts[:, 1], "o", color="red", ms=np.sqrt(dot_area(len(pts), 9.0)),
                zorder=5)
    ax.set_xlim(*lim[0])
    ax.set_ylim(*lim[1])
    ax.set_aspect("equal", adjustable="box")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")


# ---- 3-D drawing

def circle_pts(n=24):
    u = np.linspace(0, 2 * math.pi, n + 1)
    return np.cos(u), np.sin(u)


def draw_3d(ax, sc, k, lim):
    span = max(hi - lo for lo, hi in lim)
    s = sc.r.shapes
    cu, su = circle_pts()
    for j in sc.shapes:
        t, b = int(s.type[j]), int(s.body[j])
        col = sc.color[b]
        c, R = sc.shape_pose(j, k)
        rad, half = float(s.radius[j]), np.asarray(s.half_extents[j], dtype=float)

        def line(p, **kw):
            w = c + np.asarray(p) @ R.T
            ax.plot(w[:, 0], w[:, 1], w[:, 2], color=kw.get("color", col),
                    lw=kw.get("lw", 1.0))

        if t == SPHERE:
            z = np.zeros_like(cu)
            for p in (np.c_[cu, su, z], np.c_[z, cu, su], np.c_[su, z, cu]):
                line(rad * p)
        elif t == BOX:
            sgn = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)])
            v = sgn * half
            for a in range(8):
                for bb in range(a + 1, 8):
                    if np.sum(sgn[a] != sgn[bb]) == 1:
                        line(v[[a, bb]])
        elif t == CAPSULE:
            L = float(half[0])
            z = np.zeros_like(cu)
            for h in (-L, L):
                line(np.c_[rad * cu, rad * su, z + h])
            for ang in (0, math.pi / 2, math.pi, 3 * math.pi / 2):
                x, y = rad * math.cos(ang), rad * math.sin(ang)
                line([[x, y, -L], [x, y, L]])
            u = np.linspace(0, math.pi, 13)
            for h, sign in ((L, 1), (-L, -1)):
                line(np.c_[rad * np.cos(u), 0 * u, h + sign * rad * np.sin(u)])
                line(np.c_[0 * u, rad * np.cos(u), h + sign * rad * np.sin(u)])
        elif t == PLANE:
            # A grid square in the plane, centered on the view center's projection and
            # clipped to the view box (mplot3d does not clip).
            center = np.array([0.5 * (lo + hi) for lo, hi in lim])
            ex, ey, n = R[:, 0], R[:, 1], R[:, 2]
            o = center - np.dot(center - c, n) * n
            g = np.linspace(-span, span, 17)
            for gv in g:
                for a_dir, b_dir in ((ex, ey), (ey, ex)):
                    p = clip_segment(o + gv * a_dir + g[0] * b_dir,
                                     o + gv * a_dir + g[-1] * b_dir, lim)
                    if p is not None:
                        ax.plot(p[:, 0], p[:, 1], p[:, 2], color=col, lw=0.6, alpha=0.6)
        elif t == POINT:
            ax.scatter([c[0]], [c[1]], [c[2]], color=col, s=6)
    draw_links(ax, sc, k)
    pts = contact_points(sc.r, k)
    if len(pts):
        ax.scatter(pts[:, 0], pts[:, 1], pts[:, 2], color="red", s=dot_area(len(pts), 8.0),
                   depthshade=False)
    ax.grid(False)  # the panes' grid would hide the ground's
    ax.set_xlim(*lim[0])
    ax.set_ylim(*lim[1])
    ax.set_zlim(*lim[2])
    try:
        ax.set_box_aspect([hi - lo for lo, hi in lim])
    except AttributeError:  # matplotlib < 3.3
        pass
    # Ticks in proportion to each axis' length in the box: a short axis (the dominoes'
    # 0.4 m of y beside 1.1 m of x) with as many ticks as a long one had its labels
    # printed over each other.
    ext = [hi - lo for lo, hi in lim]
    for axis, e in zip((ax.xaxis, ax.yaxis, ax.zaxis), ext):
        axis.set_major_locator(MaxNLocator(nbins=max(2, int(round(6 * e / max(ext)))),
                                           steps=[1, 2, 2.5, 5, 10]))
    # labels set off from the tick labels (at mplot3d's default the dominoes' 'x [m]' lay
    # over the tick label '0.4')
    ax.set_xlabel("x [m]", labelpad=14)
    ax.set_ylabel("y [m]", labelpad=14)
    ax.set_zlabel("z [m]", labelpad=14)


def text_extent(fig, ax):
    """The union, in figure fractions, of what a 3-D axes draws: its panes and tight box,
    title, axis labels and tick labels within the limits (mplot3d's own tight box leaves
    the z label out)."""
    from matplotlib.transforms import Bbox
    fig.canvas.draw()
    rend = fig.canvas.get_renderer()
    texts = [ax.title, ax.xaxis.label, ax.yaxis.label, ax.zaxis.label]
    for axis, (lo, hi) in zip((ax.xaxis, ax.yaxis, ax.zaxis),
                              (ax.get_xlim(), ax.get_ylim(), ax.get_zlim())):
        # ticks beyond the limits are not drawn, their labels' places are meaningless
        texts += [t.label1 for t in axis.get_major_ticks()
                  if t.label1.get_visible() and t.label1.get_text() and lo <= t.get_loc() <= hi]
    boxes = [t.get_window_extent(rend) for t in texts if t.get_text()] + [ax.get_tightbbox(rend)]
    return Bbox.union(boxes).transformed(fig.transFigure.inverted())


def fit_3d(fig, ax, margin=0.01):
    """Moves and scales a 3-D axes until its title, labels and tick labels lie within the
    figure, `margin` (a fraction of it) from each edge: a box of fixed aspect fills the
    axes' width, its z label beyond it (the dominoes' 'z [m]' was cut at the right edge of
    a 6-inch frame). Labels move with the box, hence a few rounds."""
    for _ in range(4):
        pos, ext = ax.get_position(), text_extent(fig, ax)
        if (ext.x0 >= margin and ext.y0 >= margin and ext.x1 <= 1 - margin
                and ext.y1 <= 1 - margin):
            return
        # the overhang of the texts past the axes on each side, kept; the axes take the rest
        left, right = pos.x0 - ext.x0, ext.x1 - pos.x1
        low, high = pos.y0 - ext.y0, ext.y1 - pos.y1
        ax.set_position([margin + left, margin + low, 1 - 2 * margin - left - right,
                         1 - 2 * margin - low - high])


def clip_segment(p0, p1, lim):
    """The part of segment p0-p1 inside the box lim [(lo, hi)] per axis ([2, dim]), or
    None (Liang-Barsky)."""
    t0, t1 = 0.0, 1.0
    d = p1 - p0
    for a, (lo, hi) in enumerate(lim):
        # Inside along axis a: pk * t <= qk for both (pk, qk).
        for pk, qk in ((-d[a], p0[a] - lo), (d[a], hi - p0[a])):
            if pk == 0:
                if qk < 0:
                    return None
            elif pk < 0:
                t0 = max(t0, qk / pk)
            else:
                t1 = min(t1, qk / pk)
    if t0 > t1:
        return None
    return np.array([p0 + t0 * d, p0 + t1 * d])


def state_contact_row(r, k):
    """The state row whose contact rows state k shows: row k + 1's, step k + 1 (detected at
    its start, at state k; the last state shows the last step's). With a record stride step
    r.step[k] + 1 is not in the file: row k's own, step r.step[k] (detected one step before
    the state drawn; state 0 shows the first row's)."""
    n = len(r.time) - 1
    j = k if int(r.parameters.get("record_every", 1)) > 1 else k + 1
    return min(max(j, 1), n)


def dot_area(n, area):
    """Marker area (points^2) of n contact dots: area up to 50 dots, then shrunk as 50 / n
    (the dots' total ink kept), down to 1: a pile's hundreds of contacts hid its bodies."""
    return max(1.0, area * min(1.0, 50.0 / max(n, 1)))


def contact_points(r, k):
    """Contact points found at state k (state_contact_row), contacts only; [n, 3]."""
    if len(r.time) < 2 or "point" not in r.contacts:
        return np.zeros((0, 3))
    rows = r.contacts.row_slice(state_contact_row(r, k))
    return r.contacts.point[rows][r.contacts.kind[rows] <= 1]


# ---- output

class StreamingGifWriter(animation.AbstractMovieWriter):
    """A GIF written frame by frame as it is grabbed, each frame with its own 256-colour
    palette (fast octree, as PillowWriter's frames got): the file grows, the memory does
    not. matplotlib's PillowWriter kept every frame as an RGBA image until the end (1.44 MB
    a frame at 600 x 600 pixels: 2.5 GB within 3 minutes on a 5000-state run). Uses
    Pillow's GifImagePlugin.getheader and getdata, its API for writing a GIF a frame at a
    time."""

    def setup(self, fig, outfile, dpi=None):
        super().setup(fig, outfile, dpi=dpi)
        self._file = open(outfile, "wb")
        self._frames = 0
        self._ms = max(10, int(round(1000.0 / self.fps / 10.0)) * 10)  # GIF counts 1/100 s

    def grab_frame(self, **savefig_kwargs):
        buf = BytesIO()
        self.fig.savefig(buf, **{**savefig_kwargs, "format": "rgba", "dpi": self.dpi})
        rgba = Image.frombuffer("RGBA", self.frame_size, buf.getbuffer(), "raw", "RGBA", 0, 1)
        im = rgba.convert("RGB").quantize(colors=256, method=Image.Quantize.FASTOCTREE)
        if self._frames == 0:
            header, _ = GifImagePlugin.getheader(im, None, {"loop": 0, "duration": self._ms})
            self._file.write(b"".join(header))
        for chunk in GifImagePlugin.getdata(im, (0, 0), duration=self._ms,
                                            include_color_table=True):
            self._file.write(chunk)
        self._frames += 1

    def finish(self):
        self._file.write(b";")  # the GIF trailer
        self._file.close()


def frame_states(n_states, every):
    ks = list(range(0, n_states, every))
    if ks[-1] != n_states - 1:
        ks.append(n_states - 1)
    return ks


def real_time_every(h, fps):
    """The stride K that plays states h apart in real time at fps frames a second (at most
    fps frames per second of the run): ceil(1 / (fps h)), at least 1."""
    return max(1, int(math.ceil(1.0 / max(fps * h, 1e-300) - 1e-9)))


def render(r, out, every=1, limits=None, dpi=100, fps=None, size=6.0):
    """Writes the frames; returns their number. every None: the real-time stride for a
    GIF or MP4 (real_time_every at fps, or at the 50 fps cap), 1 for a PNG sequence."""
    sc = Scene(r)
    # simulated time between rows: h, or h K with a record stride (--record-every K)
    h = float(r.parameters.time_step) * int(r.parameters.get("record_every", 1))
    if every is None:
        every = 1 if "%" in out else real_time_every(h, 50.0 if fps is None else fps)
        if every > 1:
            n = len(frame_states(sc.states(), every))
            print(f"lcpsim_animate: note: {n} frames, one state in {every} of {sc.states()} "
                  f"(real time at {50.0 if fps is None else fps:g} fps); --every 1 draws "
                  "them all", file=sys.stderr)
    frames = frame_states(sc.states(), max(1, int(every)))
    if limits is not None:
        lim = [(limits[2 * a], limits[2 * a + 1]) for a in range(sc.dim)]
    else:
        lim = sc.limits(frames)
    if fps is None:
        fps = min(50.0, max(1.0, 1.0 / max(h * max(1, int(every)), 1e-9)))
        # Frames closer than 1/50 s of simulated time play slower than real time: said,
        # with the stride that plays in real time.
        real = 1.0 / max(h * max(1, int(every)), 1e-9)
        if real > 50.0 and "%" not in out:
            k = max(1, int(every)) * int(math.ceil(real / 50.0))
            print(f"lcpsim_animate: note: {len(frames)} frames at 50 fps play "
                  f"{real / 50.0:.3g} times slower than the run; --every {k} plays in real "
                  "time", file=sys.stderr)
    fig = plt.figure(figsize=(size, size if sc.dim > 1 else 0.45 * size))
    if sc.dim == 1:
        ax = fig.add_axes([0.05, 0.2, 0.9, 0.62])  # room for the title and x label
    else:
        ax = fig.add_subplot(111, projection="3d" if sc.dim == 3 else None)
    nsteps = sc.states() - 1
    drawer = {1: draw_1d, 2: draw_2d, 3: draw_3d}[sc.dim]
    try:
        name = " ".join(str(json.loads(r.get("scene_text") or "{}").get("name", "")).split())
    except (ValueError, AttributeError):
        name = ""
    name = name if len(name) <= 80 else name[:77] + "..."  # one line over the frame
    name = f"{name}\n" if name else ""

    fitted = []

    def draw(k):
        ax.cla()
        drawer(ax, sc, k, lim)
        ax.set_title(f"{name}t = {r.time[k]:.4g} s (step {int(r.step[k])} of "
                     f"{int(r.summary.get('steps_done', nsteps))})", fontsize=10)
        if sc.dim == 3 and not fitted:  # the limits are the same in every frame
            fit_3d(fig, ax)
            fitted.append(True)

    lower = out.lower()
    if "%" in out:
        d = os.path.dirname(out % 0)
        if d:
            os.makedirs(d, exist_ok=True)
        for i, k in enumerate(frames):
            draw(k)
            lcpsim_load.save_figure(fig, out % i, dpi=dpi)  # each frame whole or not at all
    else:
        if lower.endswith(".gif"):
            writer = StreamingGifWriter(fps=fps)
        elif lower.endswith(".mp4"):
            if not animation.writers.is_available("ffmpeg"):
                plt.close(fig)
                raise RuntimeError("MP4 needs ffmpeg on PATH (scripts/install-deps installs "
                                   "it; Debian: apt-get install ffmpeg)")
            # H.264 named here rather than taken from rcParams["animation.codec"]: for it
            # matplotlib adds -pix_fmt yuv420p (what players expect) and shrinks the figure
            # to even pixel sizes, which yuv420p needs.
            # the container named, since the file is written under a .partial name
            writer = animation.FFMpegWriter(fps=fps, codec="h264", extra_args=["-f", "mp4"])
        else:
            plt.close(fig)
            raise ValueError(f"{out}: use a .gif or .mp4 name, or a PNG pattern like "
                             "frames/%04d.png")
        # Written whole or not at all: into OUT.<pid>.partial, renamed at the end; a write
        # that fails (a full disk) removes it (a cut GIF had stayed under OUT's name).
        if os.path.exists(out) and not os.path.isfile(out):
            target = tmp = out  # a device (/dev/stdout) is written through
        else:
            target = os.path.realpath(out)  # a symbolic link's file, the link stays
            tmp = f"{target}.{os.getpid()}.partial"
        try:
            with writer.saving(fig, tmp, dpi):
                for k in frames:
                    draw(k)
                    writer.grab_frame()
            if tmp != target:
                os.replace(tmp, target)
        except BaseException:
            if tmp != target and os.path.exists(tmp):
                os.remove(tmp)
            plt.close(fig)
            raise
    plt.close(fig)
    return len(frames)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("run", help="run file (.h5) of a 1-D, 2-D or 3-D scene")
    ap.add_argument("-o", "--output", required=True,
                    help="frames/%%04d.png (PNG sequence), NAME.gif or NAME.mp4")
    ap.add_argument("--every", type=int, default=None, metavar="K",
                    help="draw every K-th recorded state (and the last); default: a GIF or "
                         "MP4 the stride that plays in real time at its frame rate "
                         "(ceil(1 / (fps h))), a PNG sequence every state")
    ap.add_argument("--limits", type=float, nargs="+", metavar="L",
                    help="view: XMIN XMAX (2-D: YMIN YMAX too; 3-D: and ZMIN ZMAX)")
    ap.add_argument("--dpi", type=float, default=100, help="dots per inch (default 100)")
    ap.add_argument("--fps", type=float,
                    help="GIF / MP4 frame rate (default: real time, 1 / (K h), within 1 "
                         "to 50; frames closer than 0.02 s of the run play slower, with a "
                         "note naming the --every that plays in real time)")
    ap.add_argument("--size", type=float, default=6.0, help="figure size in inches")
    a = ap.parse_args(argv[1:])
    if a.every is not None and a.every < 1:
        ap.error("--every must be at least 1")
    # Values that ended in a traceback (--fps 0: ZeroDivisionError), a matplotlib error
    # (--dpi 0, --size -1) or a mirrored view (--limits 1 0) are refused here.
    for opt, x in (("--fps", a.fps), ("--dpi", a.dpi), ("--size", a.size)):
        if x is not None and not (math.isfinite(x) and x > 0):
            ap.error(f"{opt} must be a finite number > 0, got {x:g}")
    if a.limits is not None:
        for k in range(0, len(a.limits) - 1, 2):
            lo, hi = a.limits[k], a.limits[k + 1]
            if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
                ap.error(f"--limits: {'XYZ'[k // 2 % 3]}MIN {lo:g} must be below "
                         f"{'XYZ'[k // 2 % 3]}MAX {hi:g}, both finite")
    if "%" not in a.output:
        folder = os.path.dirname(a.output) or "."
        if not os.path.isdir(folder):
            ap.error(f"-o {a.output}: no folder {folder}")
    try:
        r = lcpsim_load.load(a.run)
    except (OSError, KeyError) as e:
        print(f"lcpsim_animate: {a.run}: {e}", file=sys.stderr)
        return 1
    why = lcpsim_load.run_problem(r, [p for p in lcpsim_load.RUN_DATASETS
                                      if not p.startswith("energy/")])
    if why:
        print(f"lcpsim_animate: {a.run} {why}", file=sys.stderr)
        return 1
    dim = int(r.parameters.dimension)
    if a.limits is not None and len(a.limits) != 2 * dim:
        ap.error(f"--limits needs {2 * dim} numbers for a {dim}-D run")
    try:
        n = render(r, a.output, a.every, a.limits, a.dpi, a.fps, a.size)
    except OSError as e:  # the output named (it said "[Errno 27] File too large")
        print(f"lcpsim_animate: {a.output}: cannot write: {e.strerror or e}", file=sys.stderr)
        return 1
    except subprocess.CalledProcessError as e:  # ffmpeg's end (a traceback before)
        why = (f"killed by {signal.Signals(-e.returncode).name}" if e.returncode < 0
               else f"exit {e.returncode}")
        print(f"lcpsim_animate: {a.output}: cannot write: ffmpeg failed ({why})", file=sys.stderr)
        return 1
    except (ValueError, RuntimeError) as e:
        print(f"lcpsim_animate: {e}", file=sys.stderr)
        return 1
    print(f"lcpsim_animate: {n} frames -> {a.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
