#!/usr/bin/python3
"""lcpsim_cut.py [--if-needed] PARTIAL OUT: the run, compare or hybrid-model file a killed writer left
(PATH.<pid>.partial: no /summary), copied to OUT with its rows up to its last whole flush
(/flushed_rows; a run's contact rows up to /contacts/offset[/flushed_rows], a hybrid or
event-driven run's events up to /flushed_events, a comparison's dumped LCPs up to /flushed_lcp_problems;
docs/output-format.md, "Killed runs"), the rest as it is. Rows
past the marks are of a flush the kill cut short: they read as 0, or not at all ("addr
overflow"), and are not read. Prints what was left out (nothing when nothing was) on
stdout. The Octave / Matlab loaders read such a file through this copy
(lcpsim_flushed_copy.m): Octave's load() reads every dataset whole.
--if-needed: when the marks cover the whole file (nothing past them, and a run's /resume
slot the cut leaves out reads whole), nothing is written and the exit status is 3: read
PARTIAL as it is (a copy of a large file takes as long as reading it twice).
Exit status: 0 written, 2 not such a file (a whole file, a run killed before its first
flush, not HDF5; a run file cut before its first complete flush: one line saying so, read
without HDF5), 3 (--if-needed) not needed.
Needs Debian's /usr/bin/python3 (h5py, numpy)."""
import os
import sys

import h5py

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lcpsim_compare import _flushed_cut  # noqa: E402
from lcpsim_load import _hybrid_cut, _run_cut, refuse_cut_early  # noqa: E402


def cut_copy(src, dst):
    """Writes dst from src (above); returns the note of what was left out."""
    refuse_cut_early(src)  # (before HDF5 reads it: lcpsim_load.cut_early)
    with h5py.File(src, "r") as f:
        kind = f["file_kind"][()].decode() if "file_kind" in f else ""
        cut, note = {"compare": _flushed_cut, "hybrid": _hybrid_cut, "": _run_cut}.get(
            kind, lambda _: (None, ""))(f)
        if cut is None:
            raise ValueError(f"{src}: not the file of a killed run, comparison or hybrid-model "
                             "run with its marks (/flushed_rows, no /summary)")
        with h5py.File(dst, "w") as g:
            # (by links, as the loaders read: h5py's visititems reads every object's
            # header info, which a flush cut short can leave failing its checksum)
            def copy(src_group, prefix):
                for name, obj in src_group.items():
                    path = prefix + name
                    if isinstance(obj, h5py.Group):
                        out = g.require_group(path)
                        copy(obj, path + "/")
                    else:
                        rows = cut(path)
                        if rows == -1:  # (a run's stale /resume slot: left out)
                            continue
                        whole = rows is None or not obj.shape or obj.shape[0] <= rows
                        out = g.create_dataset(path, data=obj[()] if whole else obj[:rows],
                                               dtype=obj.dtype)
                    for k, v in obj.attrs.items():
                        out.attrs[k] = v
            copy(f, "")
    return note


def covered(src):
    """Whether the marks of src cover the whole file: no dataset has rows past what its
    mark keeps, and a run's /resume slot the cut leaves out reads whole (a kill between
    two flushes, the usual case), so that src reads whole as it is, equal to its cut copy."""
    refuse_cut_early(src)
    with h5py.File(src, "r") as f:
        kind = f["file_kind"][()].decode() if "file_kind" in f else ""
        cut, _ = {"compare": _flushed_cut, "hybrid": _hybrid_cut, "": _run_cut}.get(
            kind, lambda _: (None, ""))(f)
        if cut is None:
            return False

        def whole(group, prefix):
            for name, obj in group.items():
                path = prefix + name
                if isinstance(obj, h5py.Group):
                    if not whole(obj, path + "/"):
                        return False
                    continue
                rows = cut(path)
                if rows == -1:
                    try:
                        obj[()]
                    except OSError:
                        return False
                elif rows is not None and obj.shape and obj.shape[0] > rows:
                    return False
            return True
        try:
            return whole(f, "")
        except OSError:
            return False


def main(argv):
    if argv[1:] in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    lazy = len(argv) == 4 and argv[1] == "--if-needed"
    if lazy:
        argv = argv[:1] + argv[2:]
    if len(argv) != 3:
        print("usage: lcpsim_cut.py [--if-needed] PARTIAL OUT", file=sys.stderr)
        return 2
    try:
        if lazy and covered(argv[1]):
            return 3
        note = cut_copy(argv[1], argv[2])
    except (OSError, ValueError, KeyError) as e:
        print(f"lcpsim_cut.py: {e}", file=sys.stderr)
        return 2
    print(note)
    return 0


if __name__ == "__main__":
    # A reader that stops early (| head) ends the command quietly, not with a traceback.
    import signal
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.exit(main(sys.argv))
