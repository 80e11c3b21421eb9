#!/usr/bin/python3
"""Load an lcpsim run file (HDF5, docs/output-format.md) into named numpy arrays.

As a module (with scripts/ on sys.path):

    import lcpsim_load
    r = lcpsim_load.load("run.h5")
    r.time, r.q, r.v                  # [N+1], [N+1, nq], [N+1, nv]; row k = after step k
    r.step                            # [N+1] the step of each row: 0..N, or with a record
                                      #   stride (--record-every K) 0, K, 2K, ..., the last
    r.energy.kinetic                  # [N+1]
    r.contacts.normal_impulse         # [K]; r.contacts.at(k) = step k's contacts
    r.solver.residual                 # [N]; row k-1 = step k
    r.parameters.time_step, r.parameters.solver_name, r.bodies.name, r.scene_text
    r.summary.failures

The names are the file's paths with "/" replaced by "." (r["q"] works too). Strings come
back as str (string arrays as lists of str), scalars as Python int / float, everything
else as numpy arrays.

Per-body helpers (2-D and 3-D; 1-D has position and velocity only); `body` is a name
or a 0-based index, static bodies included (their fixed pose, zero velocity):

    r.body_index("crate")             # 0-based index of a body name
    r.position(body)                  # [N+1, dim] x (, y (, z)) of the body origin, m
    r.orientation(body)               # 2-D: [N+1] angle theta, rad; 3-D: [N+1, 4]
                                      #   unit quaternions (qw, qx, qy, qz)
    r.velocity(body)                  # [N+1, dim] linear velocity, m/s
    r.angular_velocity(body)          # 2-D: [N+1] omega, rad/s; 3-D: [N+1, 3] world
                                      #   (wx, wy, wz), rad/s
    r.shapes_of(body)                 # 0-based indices into r.shapes.* of its shapes
    s = r.contact_series("box", "ground")   # that pair's contacts over time, one
                                      #   column per contact id (feature): s.normal_impulse
                                      #   [N, F], s.friction_impulse [N, F, 3] on "box",
                                      #   s.normal_total [N], s.active, s.gap, s.time

Tethers and joints (only in runs that have them; docs/output-format.md):

    r.tethers.name, r.tethers.length_max      # [T] names, lengths (m)
    r.tethers.length                          # [N+1, T] |p_a - p_b| at every state, m
    r.tethers.impulse, r.tethers.taut         # [N, T] impulse (N s), taut (0/1) per step
    r.joints.name, r.joints.type              # [J] names, "pin" / "rod"
    r.joints.rows, r.joints.length            # [J] rows used per joint, rod lengths
    r.joints.impulse                          # [N, J, 3] row impulses (unused rows 0)
    r.joints.error                            # [N+1, J] position error norm, m
    r.joints.velocity_error                   # [N+1, J] largest |J v + rate| of its rows, m/s
    r.tether_index("rope"), r.joint_index("hinge")   # 0-based index of a name

Hybrid-model runs (file_kind "hybrid", docs/output-format.md "Hybrid runs") load into
the same tree with their own helpers:

    r.time, r.state, r.chart, r.outputs       # [N], [N, n], [N] (0-based), [N, m]
    r.events.time, r.events.from_chart, r.events.to_chart, r.events.state_before
    r.model.state_names, r.model.parameter_names, r.model.parameters, r.model.chart_names
    r.state_of("y"), r.output("energy")       # [N] columns by name
    r.parameter("k")                          # a parameter's value
    r.chart_name(c)                           # name of chart c (0-based)

A hybrid file without /summary (the PATH.<pid>.partial of a killed run) loads too:
r.summary from its rows, run_end "unfinished", the engine's counts -1.

LCPs dumped by --dump-lcp (docs/output-format.md "LCP dumps"):

    P = r.lcp_problem(50)             # step 50's LCP: P.M [n, n], P.q, P.z, P.cone_*,
                                      #   and the factors P.J, P.B, P.C (CSR / CSC
                                      #   triplets); M formed from them when the file
                                      #   stores the factors only (P.dense False), up
                                      #   to n = 4096 (with_m=True: any n; False: never)
    P.w(z), P.matvec(z)               # M z + q and M z through the factors (no M)
    P.residual(P.z[:, 0])             # .natural max|min(z, w)|, .relative (/ max|q|)
    P.solution                        # the series' solution, P.z[:, P.column]

Compare files (lcpsim compare --dump-lcp) load too, for their dumps (their other
datasets: scripts/lcpsim_compare.py). Series s (0-based, c.series.label[s]):

    P = r.lcp_problem(k, series=s)    # the LCP series s was handed at step k
    P.residual(P.solution)            # = r.results.residual[k - 1, s] (relative_residual
                                      #   too) up to rounding
    P.z_label                         # the columns of P.z: shadow mode "reference" (the
                                      #   driver's solution), then every series (series s
                                      #   is column s + 1); LCP sets every series (column
                                      #   s); independent mode "own", the one solution of
                                      #   series s's own problem (its trajectory's)

Octave / Matlab (scripts/lcpsim_load.m) have the same helpers with 1-based indices;
lcpsim_compare_load.m gives a compare file's c.lcp_problem(k, s) (the same code:
scripts/lcpsim_lcp_problem.m).

From the command line, `/usr/bin/python3 scripts/lcpsim_load.py run.h5` prints a summary
(of a run or hybrid-model file; a compare file is refused, exit 2, with a pointer to
`scripts/lcpsim_compare.py FILE --summary`, which summarises it).
"""
import os
import sys

import h5py
import numpy as np

# A run file's head (lcp/h5check.h, docs/output-format.md "Killed runs"): a user block of
# 512 bytes before HDF5's superblock, "lcpsim run file: being written" until the writer's
# first complete flush, then "... flushed whole". A file cut before that holds HDF5
# metadata of several flushes mixed, which HDF5 itself can crash on (h5py: "free():
# invalid pointer" inside h5py.File), so it is refused on its first bytes, read plainly.
USER_BLOCK = 512
HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"
MARK_PENDING = b"lcpsim run file: being written\n"
CUT_MESSAGE = ("cut before its first complete flush (a run killed while it wrote its header "
               "and first rows; HDF5 could crash on what it holds): nothing in it can be "
               "read, run the scene again")


class CutFile(OSError):
    """A run file cut before its first complete flush (cut_early); its message names it."""


def save_figure(fig, path, **kw):
    """fig.savefig(path, **kw) written whole or not at all: into PATH.<pid>.partial beside
    it (the format named by PATH's extension), renamed to PATH once written. A write that
    fails (a full disk, a file size limit) removes the partial file and raises OSError, so
    no cut figure is left under PATH (savefig straight onto PATH had left a 0-byte PNG
    there). A PATH that exists and is not a regular file (/dev/stdout) is written through;
    a symbolic link's file is written (the link stays)."""
    ext = os.path.splitext(path)[1].lstrip(".").lower()
    if (os.path.exists(path) and not os.path.isfile(path)) or not (ext or "format" in kw):
        fig.savefig(path, **kw)  # (no extension: matplotlib's default format, its name)
        return
    path = os.path.realpath(path)
    tmp = f"{path}.{os.getpid()}.partial"
    try:
        fig.savefig(tmp, format=kw.pop("format", ext or None), **kw)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.remove(tmp)
        except OSError:
            pass
        raise


def cut_early(path):
    """Whether the file path is a run file cut before its first complete flush: HDF5's
    signature after the user block, which holds the pending mark or zeros (lcp/h5check.h,
    lsim_h5_head). Read with plain reads; False for any other file."""
    try:
        with open(path, "rb") as f:
            head = f.read(USER_BLOCK + 8)
    except OSError:
        return False
    return (len(head) == USER_BLOCK + 8 and head[USER_BLOCK:] == HDF5_SIGNATURE and
            head[:8] != HDF5_SIGNATURE and
            (head.startswith(MARK_PENDING) or not any(head[:USER_BLOCK])))


class NotRunFile(OSError):
    """A path that holds no HDF5 file: missing, a directory, or another kind of file. Its
    message does not repeat the path (the scripts put it first); e.path has it."""


def refuse_not_hdf5(path):
    """Raises NotRunFile when path is missing, a directory or not an HDF5 file: h5py said
    'Unable to open file (file signature not found)' for a .dat problem and, for a
    directory, quoted HDF5's whole error record."""
    if os.path.isdir(path):
        e = NotRunFile("is a directory, not a run file")
    elif not os.path.exists(path):
        e = NotRunFile("No such file or directory")
    elif h5py.is_hdf5(path):
        return
    else:
        try:
            with open(path, "rb") as f:
                head = f.read(64)
        except OSError as err:
            e = NotRunFile(err.strerror or str(err))
        else:
            text = head and all(32 <= b < 127 or b in b"\t\r\n" for b in head)
            e = NotRunFile("not an HDF5 file (lcpsim's run and compare files are HDF5)" +
                           ("; it is text: a Siconos .dat problem is read by lcpsim solve"
                            if text else ""))
    e.path = path
    raise e


def refuse_cut_early(path):
    """Raises CutFile when path is a run file cut before its first complete flush."""
    if cut_early(path):
        raise CutFile(f"{path}: {CUT_MESSAGE}")


class Group(dict):
    """A dict whose keys are also attributes (r.q is r["q"])."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name, value):
        self[name] = value

    def __dir__(self):
        return list(self.keys())


class Contacts(Group):
    """The contact rows of all steps; at(k) / rows(k) select step k's."""

    def rows(self, k):
        """The slice of rows holding step k's contacts (k = 1..N; step 0 has none). With a
        record stride only the steps kept have rows: another step is a KeyError."""
        steps = self.__dict__.get("_steps")
        if steps is not None:
            j = int(np.searchsorted(steps, k))
            if j >= len(steps) or steps[j] != k:
                raise KeyError(f"step {k} is not in the file (a row every "
                               f"{self.__dict__.get('_every', 1)} steps, and the last): "
                               "r.step lists the steps kept")
            k = j
        return self.row_slice(k)

    def row_slice(self, j):
        """The slice of contact rows of state row j's step (r.step[j]; j = 1..N rows)."""
        off = self["offset"]
        return slice(int(off[j]), int(off[j + 1]))

    def at(self, k):
        """Step k's contacts: a Group of the per-contact arrays restricted to that step."""
        sl = self.rows(k)
        return Group({name: a[sl] for name, a in self.items()
                      if name != "offset" and isinstance(a, np.ndarray)})

    def count(self, k):
        """Number of contacts of step k."""
        sl = self.rows(k)
        return sl.stop - sl.start


class Run(Group):
    """The whole file, with per-body helpers (see the module docstring)."""

    def lcp_problem(self, step, series=0, with_m=None):
        """The LCP of step (1-based) dumped by --dump-lcp (/lcp), as series (0-based; a
        comparison's series, 0 in run files) was handed it, as a Group: n, m, q [n],
        warm [n], z [n, S] (labels: z_label), solution (series' own solution: z[:, column]),
        the cones (normal, first_dir, ndir, lambda, mu, fixed_normal; 0-based), the
        factors as (indptr, indices, data) triplets, J [n, m] and C [n, n] by rows and
        B [m, n] by columns (scipy's csr_matrix((data, indices, indptr), shape) and
        csc_matrix take them as they are; None for a dense-only problem), and M [n, n]: the
        stored M, else J B + C formed here (dense=False says it was not stored). with_m:
        None (default) forms M only up to n = DENSE_FORM_LIMIT (8 n^2 bytes: 134 MB at 4096)
        and leaves M None above; True forms it at any n; False neither reads nor forms it
        (but a dense-only problem's M, its only form, is read).
        Without M: P.w(z) = M z + q and P.matvec(z) = M z go through the factors
        (J (B z) + C z, never M), and P.residual(z) gives the common residual's natural
        max|min(z, w)| and relative (natural / max|q|, 1 if q = 0), as /solver records.
        Compare files (see _series_column): P.residual(P.solution) is the file's
        /results/residual[step - 1, series] (and relative_residual) up to rounding."""
        g = self["lcp"]
        stored, column = self._series_column(series)
        hit = [p for p in range(len(g["step"]))
               if g["step"][p] == step and g["series"][p] == stored]
        if not hit:
            raise KeyError(f"step {step} series {series} has no dumped LCP")
        p = hit[0]
        n = int(g["n"][p])
        vo, co = int(g["offset"][p]), int(g["cone_offset"][p])
        nc = int(g["ncones"][p])
        out = Group(step=step, series=series, n=n, q=g["q"][vo:vo + n],
                    warm=g["warm"][vo:vo + n], z=g["z"][vo:vo + n], z_label=g["solution_label"],
                    column=column)
        out.solution = out.z[:, column]
        for k in ("normal", "first_dir", "ndir", "lambda", "mu", "fixed_normal", "uniform"):
            if "cone_" + k in g:  # uniform: files from before it have none
                out["cone_" + k] = g["cone_" + k][co:co + nc]
        has_f = "m" in g and int(g["m"][p]) >= 0
        out.m = int(g["m"][p]) if has_f else -1
        out.J = out.B = out.C = None
        if has_f:
            po = int(g["ptr_offset"][p])
            for name in ("J", "B", "C"):
                ptr = np.asarray(g[name + "_ptr"][po:po + n + 1], dtype=np.int64)
                eo = int(g[name + "_offset"][p])
                out[name] = (ptr, g[name + "_idx"][eo:eo + ptr[-1]], g[name + "_val"][eo:eo + ptr[-1]])
        out.dense = "dense" not in g or bool(g["dense"][p])
        out.M = None
        if out.dense and with_m is not False:
            mo = int(g["m_offset"][p])
            out.M = g["M"][mo:mo + n * n].reshape(n, n).T  # stored column major
        elif has_f and (with_m or (with_m is None and n <= DENSE_FORM_LIMIT)):
            out.M = _form_dense(n, out.m, out.J, out.B, out.C)
        if has_f:
            out.matvec = lambda z: _factored_matvec(n, out.m, out.J, out.B, out.C, z)
        else:  # a dense-only problem: its M, read now if it was left out above
            if out.M is None:
                mo = int(g["m_offset"][p])
                out.M = g["M"][mo:mo + n * n].reshape(n, n).T
            out.matvec = lambda z: out.M @ np.asarray(z, dtype=float)
        out.w = lambda z: out.matvec(z) + out.q
        out.residual = lambda z: _residual(np.asarray(z, dtype=float), out.w(z), out.q)
        return out

    def _series_column(self, series):
        """(dumped series, z column) of a series (0-based): the /lcp/series whose problem
        series was handed, and the column of /lcp/z holding its solution
        (docs/output-format.md, "LCP dumps"). Run files: (0, 0), the solver. Compare files:
        shadow (0, series + 1), the one problem of the step, whose columns are
        "reference" (the driver's solution) then every series; LCP sets (0, series), a
        column per series; independent (series, 0), the series' own problem, its one
        column "own"."""
        s = int(series)
        if s != series or s < 0:
            raise ValueError(f"series must be a 0-based index, got {series!r}")
        if self.get("file_kind") != "compare":
            return s, 0
        nseries, mode = int(self["parameters"]["nseries"]), self["parameters"]["mode"]
        if s >= nseries:
            raise KeyError(f"series {s} out of range 0..{nseries - 1}")
        columns = {"shadow": (0, s + 1), "lcp_set": (0, s), "independent": (s, 0)}
        if mode not in columns:
            raise KeyError(f"comparison mode {mode!r} has no LCP dump")
        return columns[mode]

    def body_index(self, body):
        """0-based index of body (a name or an index)."""
        names = self["bodies"]["name"]
        if isinstance(body, str):
            try:
                return names.index(body)
            except ValueError:
                raise KeyError(f"no body named {body!r}") from None
        i = int(body)
        if not 0 <= i < len(names):
            raise IndexError(f"body index {i} out of range 0..{len(names) - 1}")
        return i

    def _dimension(self):
        return int(self["parameters"]["dimension"])

    def _coordinates(self, body, kind):
        """Body's columns of q (kind "q") or v ("v"): [N+1, per-body count]; a static
        body's fixed pose repeated (q) or zeros (v)."""
        i = self.body_index(body)
        b, dim = self["bodies"], self._dimension()
        width = {"q": (1, 3, 7), "v": (1, 3, 6)}[kind][dim - 1]
        rows = len(self["time"])
        n = int(b["n" + kind][i])
        if n > 0:
            o = int(b[kind + "_offset"][i])
            return self[kind][:, o:o + n]
        if kind == "v" or "pose" not in b:
            return np.zeros((rows, width))
        return np.tile(np.asarray(b["pose"][i, :width], dtype=float), (rows, 1))

    def position(self, body):
        """[N+1, dim]: the body origin's world position at every recorded state."""
        return self._coordinates(body, "q")[:, :self._dimension()].copy()

    def orientation(self, body):
        """2-D: [N+1] angles theta (rad); 3-D: [N+1, 4] quaternions (qw, qx, qy, qz)."""
        dim = self._dimension()
        if dim == 1:
            raise ValueError("1-D bodies have no orientation")
        q = self._coordinates(body, "q")
        return q[:, 2].copy() if dim == 2 else q[:, 3:7].copy()

    def velocity(self, body):
        """[N+1, dim]: the body origin's linear velocity."""
        return self._coordinates(body, "v")[:, :self._dimension()].copy()

    def angular_velocity(self, body):
        """2-D: [N+1] omega (rad/s); 3-D: [N+1, 3] world angular velocity."""
        dim = self._dimension()
        if dim == 1:
            raise ValueError("1-D bodies have no angular velocity")
        v = self._coordinates(body, "v")
        return v[:, 2].copy() if dim == 2 else v[:, 3:6].copy()

    def _named_index(self, group, name):
        names = self[group]["name"] if group in self else []
        try:
            return names.index(name)
        except ValueError:
            raise KeyError(f"no {group[:-1]} named {name!r}") from None

    def tether_index(self, name):
        """0-based index of the tether named name."""
        return self._named_index("tethers", name)

    def joint_index(self, name):
        """0-based index of the joint named name."""
        return self._named_index("joints", name)

    def _pair_index(self, body):
        """body_index, with None (or "ground" when no body has that name) for -1: the
        ground of 1-D friction and of anchors."""
        if body is None:
            return -1
        if isinstance(body, str) and body == "ground" and body not in self["bodies"]["name"]:
            return -1
        return self.body_index(body)

    def contact_series(self, body_a, body_b):
        """The contacts between two bodies (names or 0-based indices; None or "ground"
        for no body) over time: one column per contact id the pair ever had (each
        feature of the pair is its own contact, docs/output-format.md "Contact ids").
        Vectors are those acting on body_a as named. Returns a Group:
            step [N] 1..N, time [N] (time after the step, s)
            id [F] uint64, feature [F], shape_a [F], shape_b [F] (2-D / 3-D: the shapes
              of body_a and body_b, 0-based; -1 in 1-D)
            active [N, F] bool: the contact was in step k's LCP
            normal_impulse [N, F] N*s (0 when not active), normal_total [N] their sum
            friction_impulse [N, F, 3] N*s world vector on body_a (0 when not active)
            gap [N, F] m, point [N, F, 3] m, normal [N, F, 3] (into body_a); NaN when not
              active
        Only contact rows (kinds 0 and 1): tethers and joints are in r.tethers / r.joints."""
        a, b = self._pair_index(body_a), self._pair_index(body_b)
        c, nsteps = self["contacts"], len(self["time"]) - 1
        kept = np.asarray(self.get("step", np.arange(nsteps + 1)))[1:]
        ba, bb, kind = c["body_a"], c["body_b"], c["kind"]
        same = (ba == a) & (bb == b)
        swapped = (ba == b) & (bb == a) & ~same
        rows = np.flatnonzero((same | swapped) & (kind <= 1))
        ids = np.unique(c["id"][rows])
        col = np.searchsorted(ids, c["id"][rows])
        k = np.searchsorted(kept, c["step"][rows].astype(int))  # the row of each step
        sign = np.where(swapped[rows], -1.0, 1.0)
        nf = len(ids)
        out = Group(step=kept.copy(), time=self["time"][1:].copy(), id=ids,
                    feature=(ids & 0xFFFF).astype(int))
        swap_col = np.zeros(nf, dtype=bool)
        swap_col[col] = swapped[rows]
        first = ((ids >> 40) & 0xFFFFFF).astype(int) - 1
        second = ((ids >> 16) & 0xFFFFFF).astype(int) - 1
        shaped = self._dimension() > 1
        out.shape_a = np.where(swap_col, second, first) if shaped else np.full(nf, -1)
        out.shape_b = np.where(swap_col, first, second) if shaped else np.full(nf, -1)
        out.active = np.zeros((nsteps, nf), dtype=bool)
        out.active[k, col] = True
        out.normal_impulse = np.zeros((nsteps, nf))
        out.normal_impulse[k, col] = c["normal_impulse"][rows]
        out.normal_total = out.normal_impulse.sum(axis=1)
        out.friction_impulse = np.zeros((nsteps, nf, 3))
        out.friction_impulse[k, col] = sign[:, None] * c["friction_impulse"][rows]
        out.gap = np.full((nsteps, nf), np.nan)
        out.gap[k, col] = c["gap"][rows]
        out.point = np.full((nsteps, nf, 3), np.nan)
        out.point[k, col] = c["point"][rows]
        out.normal = np.full((nsteps, nf, 3), np.nan)
        out.normal[k, col] = sign[:, None] * c["normal"][rows]
        return out

    def shapes_of(self, body):
        """0-based indices of the body's shapes in r.shapes (empty in 1-D)."""
        i = self.body_index(body)
        b = self["bodies"]
        if "first_shape" not in b:
            return np.zeros(0, dtype=int)
        f, n = int(b["first_shape"][i]), int(b["nshapes"][i])
        return np.arange(f, f + n)


class HybridRun(Group):
    """A hybrid-model run (file_kind "hybrid")."""

    def _col(self, names, name, what):
        if name not in names:
            raise KeyError(f"no {what} named {name!r} (have {', '.join(names)})")
        return names.index(name)

    def state_of(self, name):
        return self["state"][:, self._col(self["model"]["state_names"], name, "state")]

    def output(self, name):
        return self["outputs"][:, self._col(self["model"]["output_names"], name, "output")]

    def parameter(self, name):
        m = self["model"]
        return float(m["parameters"][self._col(m["parameter_names"], name, "parameter")])

    def chart_name(self, c):
        return self["model"]["chart_names"][int(c)]


# lcp_problem forms a factored-only problem's dense M up to this n by default.
DENSE_FORM_LIMIT = 4096


def _csr_matvec(t, rows, x):
    """y = A x for A [rows, len(x)] stored by rows as (indptr, indices, data)."""
    ptr, idx, val = t
    major = np.repeat(np.arange(rows), np.diff(ptr))
    return np.bincount(major, weights=val * x[idx], minlength=rows)


def _factored_matvec(n, m, J, B, C, z):
    """M z = J (B z) + C z from the factors' triplets, M never formed."""
    z = np.asarray(z, dtype=float)
    ptr, idx, val = B  # by columns: column j's entries scale z_j
    major = np.repeat(np.arange(n), np.diff(ptr))
    u = np.bincount(idx, weights=val * z[major], minlength=m)
    return _csr_matvec(J, n, u) + _csr_matvec(C, n, z)


def _residual(z, w, q):
    """The common residual (docs/solvers.md): natural max|min(z, w)|, relative to max|q|."""
    natural = float(np.max(np.abs(np.minimum(z, w)))) if len(z) else 0.0
    scale = float(np.max(np.abs(q))) if len(q) else 0.0
    return Group(natural=natural, relative=natural / (scale if scale > 0 else 1.0))


def _form_dense(n, m, J, B, C):
    """M = J B + C from the factors' triplets (J, C by rows; B by columns)."""
    def expand(t, rows, cols, by_rows):
        ptr, idx, val = t
        a = np.zeros((rows, cols))
        major = np.repeat(np.arange(len(ptr) - 1), np.diff(ptr))
        if by_rows:
            np.add.at(a, (major, idx), val)
        else:
            np.add.at(a, (idx, major), val)
        return a
    return expand(J, n, m, True) @ expand(B, m, n, False) + expand(C, n, n, True)


def _value(ds, rows=None):
    """A dataset's value: str for fixed-length strings (a list of str for a string
    array), int / float for scalars, numpy arrays otherwise; rows: its first rows alone
    (what lies past them is not read)."""
    a = ds[()] if rows is None or not ds.shape or ds.shape[0] <= rows else ds[:rows]
    if ds.dtype.kind == "S":
        if np.ndim(a) == 0:
            return a.decode("utf-8", "replace")
        return [x.decode("utf-8", "replace") for x in a]
    if np.ndim(a) == 0:
        return a.item()
    return a


def _group(g, cls=Group, cut=None, prefix=""):
    """g's datasets and groups; cut(path) the rows to read of the dataset at path (None:
    all; -1: the dataset left out)."""
    out = cls()
    for name, obj in g.items():
        if isinstance(obj, h5py.Group):
            out[name] = _group(obj, Contacts if name == "contacts" else Group, cut,
                               prefix + name + "/")
        else:
            rows = cut(prefix + name) if cut else None
            if rows is None or rows >= 0:  # (-1: left out)
                out[name] = _value(obj, rows)
    return out


# The dump's index (a row per problem) and its offsets (a row more), and which offset
# bounds each data array (scene/lcpdump.c).
_LCP_INDEX = ("step", "series", "n", "ncones", "hash", "dense", "m", "factored_hash")
_LCP_DATA = {"m_offset": ("M",), "offset": ("q", "warm", "z"),
             "cone_offset": ("cone_normal", "cone_first_dir", "cone_ndir", "cone_lambda",
                             "cone_mu", "cone_fixed_normal", "cone_uniform"),
             "ptr_offset": ("J_ptr", "B_ptr", "C_ptr"), "J_offset": ("J_idx", "J_val"),
             "B_offset": ("B_idx", "B_val"), "C_offset": ("C_idx", "C_val")}


def _lcp_cut(f):
    """The dumped LCPs (/lcp, --dump-lcp) of a killed run's or comparison's file (no
    /summary) up to its mark /flushed_lcp_problems = n, the problems of its last whole
    flush: n rows of the index, n + 1 of the offsets, and of each data array the rows its
    offset gives at n. Returns ({name in /lcp: rows to read}, problems past the mark);
    ({}, 0) for a whole file, or one without a dump or without the mark (files written
    before it: read whole)."""
    if "summary" in f or "lcp" not in f or "flushed_lcp_problems" not in f:
        return {}, 0
    n = int(f["flushed_lcp_problems"][()])
    lcp = {}
    for name in _LCP_INDEX:
        lcp[name] = n
    for off, data in _LCP_DATA.items():
        lcp[off] = n + 1
        end = int(f["lcp/" + off][n]) if off in f["lcp"] and f["lcp/" + off].shape[0] > n else 0
        for name in data:
            lcp[name] = end
    return lcp, max(0, f["lcp/step"].shape[0] - n) if "step" in f["lcp"] else 0


def _hybrid_cut(f):
    """A killed hybrid run's file (no /summary) read up to its last whole flush: the rows
    of /time, /state, /chart, /outputs up to /flushed_rows, of /events/* up to
    /flushed_events (hybrid/record.c). Rows past them are of a flush the kill cut short:
    they may read as 0, or not at all ("addr overflow"). None: a whole file. Returns
    (cut, note): cut(path) the rows to read, note what was left out ("" if nothing)."""
    if "summary" in f or "flushed_rows" not in f or "flushed_events" not in f:
        return None, ""
    w, e = int(f["flushed_rows"][()]), int(f["flushed_events"][()])

    def cut(p):
        if p.startswith("events/"):
            return e
        return w if p in ("time", "state", "chart", "outputs") else None
    past = [(p, f[p].shape[0] - cut(p)) for p in ("time", "events/time")
            if p in f and f[p].shape and f[p].shape[0] > cut(p)]
    note = ""
    if past:
        note = ("read up to its last whole flush (/flushed_rows %d samples, /flushed_events %d "
                "transitions): %s past it, of a flush not whole (still being written, or cut short "
                "by a kill), left out" % (w, e, " and ".join("%d rows of /%s" % (n, p)
                                                             for p, n in past)))
    return cut, note


def _budget_steps(r, status):
    """Steps that spent a fixed sweep budget: solver tol 0 and status -1 max_iterations
    (the step's normal end, not a failure)."""
    tol = r.parameters.get("solver_tol", None) if "parameters" in r else None
    return int(np.sum(status == -1)) if tol == 0.0 else 0


def _budget_sweeps(r):
    """The sweeps a fixed-budget step spent (max_iter 0 asks for the solver's default)."""
    st = np.asarray(r.solver.status)
    return int(np.max(r.solver.iterations[st == -1])) if np.any(st == -1) else 0


def _unfinished_summary(r):
    """The summary of a run file without one (the .partial of a run killed before it
    closed the file): the figures /summary would hold, from the rows the last flush
    wrote, with run_end "unfinished"."""
    status = np.asarray(r.solver.status) if "solver" in r else np.zeros(0)
    residual = np.asarray(r.solver.residual) if "solver" in r else np.zeros(0)
    c = r.get("contacts", Group())
    gap, kind = np.asarray(c.get("gap", [])), np.asarray(c.get("kind", []))
    pen = -gap[(kind != 2) & (kind != 3)] if len(gap) else np.zeros(0)  # not tethers, joints
    first = np.asarray(r.solver.first_status) if "solver" in r else np.zeros(0)
    budget = _budget_steps(r, status)
    n = int(r.step[-1]) if "step" in r else len(r.time) - 1
    failures = int(np.sum(status < 0)) - budget
    if "failed_steps" in r.get("solver", {}):
        # A record stride: the rows count the failed steps between them (the other
        # figures are of the steps kept only).
        failures = int(np.sum(r.solver.failed_steps))
    extra = {}
    if "tethers" in r and "length" in r.tethers:
        # the maxima over the states kept of the stretch and joint error, as /summary has
        # them (summary() names them: a partial file with tethers had failed there)
        stretch = np.asarray(r.tethers.length) - np.asarray(r.tethers.length_max)
        extra["max_tether_stretch"] = float(max(0.0, np.max(stretch))) if stretch.size else 0.0
    if "joints" in r and "error" in r.joints:
        e = np.asarray(r.joints.error)
        extra["max_joint_error"] = float(np.max(e)) if e.size else 0.0
    return Group(**extra, steps_done=n, failures=failures,
                 budget_steps=budget, warnings=int(np.sum(status > 0)),
                 recovered=int(np.sum((first < 0) & (status >= 0))),
                 max_residual=float(np.max(residual)) if len(residual) else 0.0,
                 total_contacts=len(gap),
                 max_penetration=float(max(0.0, np.max(pen))) if len(pen) else 0.0,
                 solver_wall_time=float(np.sum(r.solver.wall_time)) if "solver" in r else 0.0,
                 wall_time_total=float("nan"), run_end="unfinished", run_end_step=n,
                 run_end_reason="the file has no summary: its writer ended without closing it "
                                "(killed); it holds the steps up to the last flush")


def _unfinished_hybrid_summary(r):
    """The summary of a hybrid run file without one (the .partial of a killed run): what
    the rows the last flush wrote tell; the engine's counts are unknown (-1, NaN)."""
    ev = r.get("events", Group())
    g = np.abs(np.asarray(ev.get("boundary_value", [])))
    iters = np.asarray(ev.get("iterations", []))
    n = len(r.time)
    return Group(samples=n, transitions=len(np.asarray(ev.get("time", []))),
                 end_time=float(r.time[-1]) if n else 0.0, integration_steps=-1,
                 flow_evaluations=-1, boundary_evaluations=-1,
                 max_stop_iterations_used=int(np.max(iters)) if len(iters) else 0,
                 max_boundary_value=float(np.max(g)) if len(g) else 0.0,
                 wall_time_total=float("nan"), run_end="unfinished",
                 run_end_reason="the file has no summary: its writer ended without closing it "
                                "(killed); it holds the run up to the last flush")


# The series of a time-stepping run file by row kind, for files of format_version 2 and
# before: a row per state (/time's rows), a row per step (one fewer). Later files say it
# on each series, its attribute row_kind (scene/record.c), which _row_kinds reads.
_STATE_ROWS = ("time", "q", "v", "step", "energy/", "tethers/length", "joints/error",
               "joints/velocity_error")
_STEP_ROWS = ("solver/", "tethers/impulse", "tethers/taut", "joints/impulse")


def _listed_kind(path):
    """A format 2 file's row kind of path: "state", "step", "state_offset", "contact" or
    None (a table of the run: bodies, parameters, legends)."""
    if path == "contacts/offset":
        return "state_offset"
    if path.startswith("contacts/"):
        return "contact"
    for kind, paths in (("state", _STATE_ROWS), ("step", _STEP_ROWS)):
        if any(path == p or (p.endswith("/") and path.startswith(p)) for p in paths):
            return None if path.endswith("_legend") else kind
    return None


def _row_kinds(f):
    """{path: row kind} of the series of the run file f (h5py.File): what each series'
    attribute row_kind says (format_version 3 on; a dataset without it is no series), or,
    in older files, what _listed_kind gives of every dataset. /lcp and /resume apart (cut
    by their own marks)."""
    new = "format_version" in f and int(f["format_version"][()]) >= 3
    kinds = {}

    def visit(g, prefix):
        for name, obj in g.items():
            path = prefix + name
            if path in ("lcp", "resume"):
                continue
            if isinstance(obj, h5py.Group):
                visit(obj, path + "/")
                continue
            if new:
                k = obj.attrs.get("row_kind")
                k = k.decode() if isinstance(k, bytes) else k
            else:
                k = _listed_kind(path)
            if k:
                kinds[path] = k
    visit(f, "")
    return kinds


def _run_cut(f):
    """A killed time-stepping run's file (no /file_kind, no /summary) read up to its last
    whole flush, /flushed_rows = w states (scene/record.c), each series by its row kind
    (_row_kinds): w rows of the series with a row per state, w - 1 of those with a row per
    step, w + 1 of /contacts/offset and /contacts/offset[w] of the contact rows, and an
    event-driven run's /events/* up to /flushed_events. Rows past them are of a flush the kill cut
    short: they may read as 0, or not at all, and are not read. (None, ""): not such a
    file, or w < 1 (killed before its first flush: taken as it is). The dumped LCPs (/lcp)
    up to /flushed_lcp_problems (_lcp_cut); of the two /resume slots the one of the last
    whole row's step alone (cut -1: the other slot's datasets left out). Returns (cut,
    note) as _hybrid_cut does."""
    if ("file_kind" in f or "summary" in f or "flushed_rows" not in f or "time" not in f
            or "contacts/offset" not in f):
        return None, ""
    w = int(f["flushed_rows"][()])
    off = f["contacts/offset"]
    if w < 1 or off.ndim != 1 or off.shape[0] <= w:
        return None, ""
    k = int(off[w])
    # An event-driven run's events: up to /flushed_events (files written before it had no
    # mark: read whole).
    e = int(f["flushed_events"][()]) if "flushed_events" in f else None
    lcp, lcp_past = _lcp_cut(f)
    kinds = _row_kinds(f)
    # The /resume slot of the last whole row's step: the other is one flush older, or of
    # the flush the kill cut short (its datasets may not read at all): left out.
    last = int(f["step"][w - 1]) if "step" in f and f["step"].shape[0] >= w else w - 1
    keep = None
    for s in (0, 1):
        try:
            if int(f["resume/slot%d/step" % s][()]) == last:
                keep = "resume/slot%d/" % s
        except (KeyError, OSError, ValueError, TypeError):
            pass

    def cut(p):
        if keep and p.startswith("resume/slot") and not p.startswith(keep):
            return -1
        if p.startswith("lcp/"):
            return lcp.get(p[4:])
        return {"state": w, "step": w - 1, "state_offset": w + 1, "contact": k,
                "event": e}.get(kinds.get(p))
    past = ["%d rows of /time" % (f["time"].shape[0] - w)] if f["time"].shape and f["time"].shape[0] > w else []
    if e is not None and "events/time" in f and f["events/time"].shape[0] > e:
        past.append("%d rows of /events/time (/flushed_events %d)" % (f["events/time"].shape[0] - e, e))
    if lcp_past:
        past.append("%d dumped LCPs (/flushed_lcp_problems %d)" % (lcp_past, lcp["step"]))
    note = ""
    if past:
        note = ("read up to its last whole flush (/flushed_rows %d states): %s past it, of a "
                "flush not whole (still being written, or cut short by a kill), left out" %
                (w, " and ".join(past)))
    return cut, note


def _cut_to_flushed(r, kinds):
    """A killed run's file (no /summary) taken up to its last whole flush: /flushed_rows
    states (scene/record.c), each series by its row kind (kinds: _row_kinds of the file).
    Rows past it in an extent are of a flush the kill cut short, and may read as 0
    (docs/output-format.md, "Killed runs")."""
    w = int(r.flushed_rows)
    if w < 1:
        return
    e = int(r.flushed_events) if "flushed_events" in r else None
    offset = np.asarray(r.contacts.offset) if "contacts" in r and "offset" in r.contacts else None
    for prefix, g in [("", r)] + [(k + "/", v) for k, v in r.items() if isinstance(v, Group)]:
        for name in list(g):
            path, a = prefix + name, g[name]
            if not isinstance(a, np.ndarray) or a.ndim == 0:
                continue
            kind = kinds.get(path)
            if kind == "state_offset":
                g[name] = a[:w + 1]
            elif kind == "contact":
                if offset is not None and len(offset) > w:
                    g[name] = a[:int(offset[w])]
            elif kind == "state":
                g[name] = a[:w]
            elif kind == "step":
                g[name] = a[:w - 1]
            elif kind == "event" and e is not None:
                g[name] = a[:e]


def load(path):
    """Reads the whole file into a Group (see the module docstring). A run file without
    /summary (the PATH.<pid>.partial of a killed run) loads too, with r.summary made from
    its rows and r.summary.run_end "unfinished". A run file cut before its first complete
    flush raises CutFile (an OSError) before HDF5 reads it; a missing path, a directory or
    a file that is not HDF5, NotRunFile (an OSError)."""
    refuse_cut_early(path)
    refuse_not_hdf5(path)
    with h5py.File(path, "r") as f:
        if "format_version" not in f or "lcpsim_version" not in f:
            # Another program's HDF5 file: said, not a traceback from deep in the loader.
            raise OSError(f"not an lcpsim file (no /format_version and /lcpsim_version; it "
                          f"holds {', '.join(sorted(f.keys()))[:200] or 'nothing'})")
        hybrid = "file_kind" in f and _value(f["file_kind"]) == "hybrid"
        cut, note = _hybrid_cut(f) if hybrid else _run_cut(f)
        kinds = {} if hybrid or "summary" in f else _row_kinds(f)
        r = _group(f, HybridRun if hybrid else Run, cut)
    if note:
        # A notice, as --resume gives for a run file: the file was cut.
        print(f"lcpsim_load: note: {path}: {note}", file=sys.stderr)
    if not hybrid and "summary" not in r and "flushed_rows" in r and "time" in r:
        _cut_to_flushed(r, kinds)
    if not hybrid and "time" in r and r.get("file_kind") != "compare":
        # The step of each state row: /step with a record stride, else 0, 1, 2, ...
        if "step" not in r:
            r.step = np.arange(len(r.time))
        elif isinstance(r.get("contacts"), Contacts):
            r.contacts.__dict__["_steps"] = np.asarray(r.step)
            r.contacts.__dict__["_every"] = r.parameters.get("record_every", 1)
    if "summary" not in r:
        r.summary = _unfinished_hybrid_summary(r) if hybrid else _unfinished_summary(r)
        if note:
            r.summary.run_end_reason += "; " + note
    elif not hybrid and "budget_steps" not in r.summary and "solver" in r:
        # Files written before /summary/budget_steps counted fixed-budget steps as failures.
        budget = _budget_steps(r, np.asarray(r.solver.status))
        r.summary.budget_steps = budget
        r.summary.failures -= budget
    return r


# The datasets every figure of a rigid-body run reads (lcpsim_plot.py, lcpsim_animate.py).
RUN_DATASETS = ("time", "q", "v", "parameters/dimension", "parameters/time_step",
                "parameters/steps", "parameters/solver_name", "parameters/nq",
                "parameters/nv", "bodies/name", "bodies/nq", "bodies/nv", "bodies/q_offset",
                "bodies/v_offset", "contacts/offset", "contacts/step", "contacts/kind",
                "contacts/normal_impulse", "contacts/friction_impulse", "energy/kinetic",
                "energy/potential")


def run_problem(r, need=RUN_DATASETS):
    """Why loaded file r is not a rigid-body run a figure script can draw, or None: a
    compare file or a hybrid-model run (the script that draws it named), or the first
    dataset of `need` it lacks, by its path (a traceback naming 'energy' had been all a
    script said of a file without /energy)."""
    if r.get("file_kind") == "compare":
        return "is a compare file (lcpsim compare): scripts/lcpsim_compare.py draws it"
    if isinstance(r, HybridRun):
        return "is a hybrid-model run: scripts/lcpsim_hybrid_plot.py draws it"
    for path in need:
        g, parts = r, path.split("/")
        for i, part in enumerate(parts):
            if not isinstance(g, dict) or part not in g:
                return (f"has no /{'/'.join(parts[:i + 1])}: not a whole run file "
                        "(docs/output-format.md)")
            g = g[part]
    return None


def hybrid_summary(r):
    """A few lines describing a loaded hybrid-model run."""
    p, s, m = r.parameters, r.summary, r.model
    counts = {}
    for c in r.events.to_chart:
        counts[r.chart_name(c)] = counts.get(r.chart_name(c), 0) + 1
    return "\n".join([
        f"lcpsim {r.lcpsim_version}, hybrid format {r.format_version}",
        f"model {m.name}: {len(m.state_names)} states, {len(m.parameter_names)} parameters, "
        f"charts {', '.join(m.chart_names)}",
        f"t = {r.time[0]:g} .. {r.time[-1]:g} s of {p.final_time:g}, {s.samples} samples "
        f"(record period {p.record_period:g} s), " +
        (f"{s.integration_steps} steps" if s.integration_steps >= 0 else "steps unknown"),
        f"{s.transitions} transitions into: " +
        ", ".join(f"{k} {v}" for k, v in counts.items()),
        f"rtol {p.rtol:g}, max step {p.max_step:g} s, stop precision {p.stop_precision:g}: "
        f"max |boundary| at events {s.max_boundary_value:.3g}",
        f"run end: {s.run_end}" + (f" ({s.run_end_reason})" if s.run_end_reason else ""),
    ])


def _names(names, most=8):
    """Names joined with commas; past `most`, the first few, a count and the last."""
    if len(names) <= most:
        return ", ".join(names)
    return ", ".join(names[:most - 2]) + f", ... ({len(names) - most + 1} more), {names[-1]}"


def summary(r):
    """A few lines describing a loaded run."""
    if isinstance(r, HybridRun):
        return hybrid_summary(r)
    p, s = r.parameters, r.summary
    n = len(r.time) - 1
    every = int(p.get("record_every", 1))
    event_driven = str(p.get("integrator", "")) == "event_driven"
    if event_driven:
        # Rows are samples every record period, not steps; the solver acts at events only.
        kinds = [str(k) for k in r.events.kind_legend]
        counts = {}
        for k in r.events.kind:
            name = kinds[int(k)] if 0 <= int(k) < len(kinds) else str(int(k))
            counts[name] = counts.get(name, 0) + 1
        timing = [
            f"event-driven (CVODE): record period {p.time_step:g} s, {n} of {p.steps} periods, "
            f"t = {r.time[0]:g} .. {r.time[-1]:g} s",
            f"events {len(r.events.time)}" + (": " + ", ".join(f"{v} {k}" for k, v in counts.items())
                                              if counts else ""),
            f"solver {p.solver_name} at the events (impacts, contact changes)",
        ]
    else:
        timing = [
            f"h {p.time_step:g} s, {s.steps_done} of {p.steps} steps" +
            (f" ({n + 1} rows: every {every}th step and the last)" if every > 1 else "") +
            f", t = {r.time[0]:g} .. {r.time[-1]:g} s",
            f"solver {p.solver_name}: {s.failures} failed steps, {s.warnings} warnings" +
            (f", {s.budget_steps} steps at the fixed budget of {_budget_sweeps(r)} sweeps (tol 0)"
             if s.get("budget_steps", 0) else "") + f", max residual {s.max_residual:.3g} N*s",
        ]
    lines = [
        f"lcpsim {r.lcpsim_version}, format {r.format_version}",
        f"dimension {p.dimension}, {p.nbodies} bodies ({_names(r.bodies.name)}), "
        f"nq {p.nq}, nv {p.nv}",
    ] + timing + [
        f"contacts {s.total_contacts} rows, max penetration {s.max_penetration:.3g} m",
        f"energy kinetic {r.energy.kinetic[0]:.6g} -> {r.energy.kinetic[-1]:.6g} J, "
        f"potential {r.energy.potential[0]:.6g} -> {r.energy.potential[-1]:.6g} J",
        # a file its writer did not close has no wall time ('wall time nan s' before)
        (f"wall time {s.wall_time_total:.3g} s" + ("" if event_driven else
                                                    f" (solver {s.solver_wall_time:.3g} s)")
         if np.isfinite(s.wall_time_total) else
         "wall time not recorded: the file was not closed" + ("" if event_driven else
         f"; solver {s.solver_wall_time:.3g} s over the steps it holds")),
    ]
    if s.get("run_end", "completed") != "completed":
        lines.append(f"run end: {s.run_end} at step {s.run_end_step}" +
                     (f" ({s.run_end_reason})" if s.get("run_end_reason") else ""))
    if "tethers" in r:
        t = r.tethers
        lines.append(f"tethers {len(t.name)}: max stretch {s.max_tether_stretch:.3g} m, "
                     f"taut in {int(np.sum(t.taut))} of {t.taut.size} tether-steps")
    if "joints" in r:
        lines.append(f"joints {len(r.joints.name)} ({', '.join(r.joints.type)}): "
                     f"max error {s.max_joint_error:.3g} m")
    if "shapes" in r and len(r.shapes.type):
        legend = dict(x.split(" ", 1) for x in r.parameters.get("shape_type_legend", []))
        kinds = [legend.get(str(int(t)), str(int(t))) for t in r.shapes.type]
        counts = {k: kinds.count(k) for k in dict.fromkeys(kinds)}
        lines.insert(2, f"shapes {len(kinds)}: " +
                     ", ".join(f"{n} {k}" for k, n in counts.items()))
    return "\n".join(lines)


def main(argv):
    if argv[1:] in (["-h"], ["--help"]):
        print("usage: lcpsim_load.py RUN.h5: prints a summary of the run (as a module: "
              "lcpsim_load.load(path), below)\n" + __doc__)
        return 0
    if len(argv) != 2:
        print("usage: lcpsim_load.py RUN.h5", file=sys.stderr)
        return 2
    try:
        r = load(argv[1])
    except CutFile as e:
        print(f"lcpsim_load: {e}", file=sys.stderr)
        return 1
    except (OSError, KeyError) as e:
        print(f"lcpsim_load: {argv[1]}: {e}", file=sys.stderr)
        return 1
    # Compare files have a summary of their own (per series).
    if r.get("file_kind") == "compare":
        print(f"lcpsim_load: {argv[1]} is a compare file (lcpsim compare): summarise it with "
              f"scripts/lcpsim_compare.py {argv[1]} --summary --no-figures", file=sys.stderr)
        return 2
    print(summary(r))
    return 0


if __name__ == "__main__":
    # A reader that stops early (| head, | grep -q) ends the command quietly, as for any
    # Unix tool, not with a BrokenPipeError traceback.
    import signal
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.exit(main(sys.argv))
