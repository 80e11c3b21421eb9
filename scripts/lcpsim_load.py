#!/usr/bin/python3
"""Load an lcpsim run file (HDF5, docs/output-format.md) into named numpy arrays.

As a module (with scripts/ on sys.path):

    import lcpsim_load
    r = lcpsim_load.load("run.h5")
    r.time, r.q, r.v                  # [N+1], [N+1, nq], [N+1, nv]; row k = after step k
    r.energy.kinetic                  # [N+1]
    r.contacts.normal_impulse         # [K]; r.contacts.at(k) = step k's contacts
    r.solver.residual                 # [N]; row k-1 = step k
    r.parameters.time_step, r.parameters.solver_name, r.bodies.name, r.scene_text
    r.summary.failures

The names are the file's paths with "/" replaced by "." (r["q"] works too). Strings come
back as str, scalars as Python int / float, everything else as numpy arrays.

From the command line, `/usr/bin/python3 scripts/lcpsim_load.py run.h5` prints a summary.
"""
import sys

import h5py
import numpy as np


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
        """The slice of rows holding step k's contacts (k = 1..N; step 0 has none)."""
        off = self["offset"]
        return slice(int(off[k]), int(off[k + 1]))

    def at(self, k):
        """Step k's contacts: a Group of the per-contact arrays restricted to that step."""
        sl = self.rows(k)
        return Group({name: a[sl] for name, a in self.items()
                      if name != "offset" and isinstance(a, np.ndarray)})

    def count(self, k):
        """Number of contacts of step k."""
        sl = self.rows(k)
        return sl.stop - sl.start


def _value(ds):
    """A dataset's value: str for fixed-length strings (a list of str for a string
    array), int / float for scalars, numpy arrays otherwise."""
    a = ds[()]
    if ds.dtype.kind == "S":
        if np.ndim(a) == 0:
            return a.decode("utf-8", "replace")
        return [x.decode("utf-8", "replace") for x in a]
    if np.ndim(a) == 0:
        return a.item()
    return a


def _group(g, cls=Group):
    out = cls()
    for name, obj in g.items():
        if isinstance(obj, h5py.Group):
            out[name] = _group(obj, Contacts if name == "contacts" else Group)
        else:
            out[name] = _value(obj)
    return out


def load(path):
    """Reads the whole file into a Group (see the module docstring)."""
    with h5py.File(path, "r") as f:
        return _group(f)


def summary(r):
    """A few lines describing a loaded run."""
    p, s = r.parameters, r.summary
    n = len(r.time) - 1
    lines = [
        f"lcpsim {r.lcpsim_version}, format {r.format_version}",
        f"dimension {p.dimension}, {p.nbodies} bodies ({', '.join(r.bodies.name)}), "
        f"nq {p.nq}, nv {p.nv}",
        f"h {p.time_step:g} s, {n} of {p.steps} steps, t = {r.time[0]:g} .. {r.time[-1]:g} s",
        f"solver {p.solver_name}: {s.failures} failed steps, {s.warnings} warnings, "
        f"max residual {s.max_residual:.3g} N*s",
        f"contacts {s.total_contacts} rows, max penetration {s.max_penetration:.3g} m",
        f"energy kinetic {r.energy.kinetic[0]:.6g} -> {r.energy.kinetic[-1]:.6g} J, "
        f"potential {r.energy.potential[0]:.6g} -> {r.energy.potential[-1]:.6g} J",
        f"wall time {s.wall_time_total:.3g} s (solver {s.solver_wall_time:.3g} s)",
    ]
    return "\n".join(lines)


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print("usage: lcpsim_load.py RUN.h5", file=sys.stderr)
        return 2
    try:
        r = load(argv[1])
    except (OSError, KeyError) as e:
        print(f"lcpsim_load: {argv[1]}: {e}", file=sys.stderr)
        return 1
    print(summary(r))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
