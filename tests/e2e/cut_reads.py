#!/usr/bin/python3
"""cut_reads.py START FINAL KIND [SAVE]: for each line "CUT K" on stdin, answers one line on
stdout: "ok" when the file CUT a kill left (tests/e2e/flush_replay.py, CHECK
"serve:...") loads with the loader of its KIND (run and hybrid: scripts/lcpsim_load.py;
compare: scripts/lcpsim_compare.py) and loses nothing, else what is wrong. Loses
nothing: every array the loader gives of START (the same run's file as the calls before
the replayed ones left it) it gives of CUT too, with at least START's rows; every array
and value it gives of CUT is FINAL's (the run's finished file, loaded the same way) as
far as it goes (a run's /resume slots apart: rewritten in place by every flush). A loader that left rows of the file out (the rows past /flushed_rows, of
a flush the kill cut short) must have said so (its notice on stderr, c.cut_note or the
summary's run_end_reason). SAVE: a copy of a cut the loader left rows out of, one whose
datasets do not all read whole when possible, rows kept too (for the other readers' checks). For
tests/e2e/killed_flush.sh."""
import contextlib
import io
import os
import shutil
import sys
from types import SimpleNamespace

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../scripts"))
import lcpsim_compare  # noqa: E402
import lcpsim_load  # noqa: E402

start, final, kind = sys.argv[1:4]
save = sys.argv[4] if len(sys.argv) > 4 else None
saved = 0  # 1: a cut with rows left out saved; 2: one whose datasets do not all read; 3: and rows kept
# What a loader makes rather than reads, and the marks themselves.
SKIP = {"partial", "path", "cut_note", "flushed_rows", "flushed_events", "flushed_lcp_problems"}


def flat(obj, prefix=""):
    """{path: value} of a loaded file (the loaders' nested dicts or namespaces)."""
    items = obj.items() if isinstance(obj, dict) else vars(obj).items()
    out = {}
    for k, v in items:
        if isinstance(v, (dict, SimpleNamespace)):
            out.update(flat(v, prefix + k + "/"))
        elif (not callable(v) and k not in SKIP and not (prefix + k).startswith("summary/")
              and not (kind == "run" and (prefix + k).startswith("resume/"))):
            out[prefix + k] = v
    return out


def load(path):
    """(flat arrays, what the loader said on stderr) of path."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        if kind in ("hybrid", "run"):
            r = lcpsim_load.load(path)
            if r.get("file_kind", "run") != kind:
                raise ValueError("file_kind " + str(r.get("file_kind")))
        else:
            r = lcpsim_compare.load(path)
    return flat(r), err.getvalue()


def rows(v):
    return len(v) if isinstance(v, (list, np.ndarray)) and np.ndim(v) > 0 else None


try:
    before, _ = load(start)
except Exception:  # (START holds nothing yet: a writer that made the file only)
    before = {}
done, _ = load(final)


def reads_whole(g):
    """Whether every dataset of g reads whole (h5py, as Octave's load() reads)."""
    try:
        for obj in g.values():
            if isinstance(obj, h5py.Group):
                if not reads_whole(obj):
                    return False
            else:
                obj[()]
        return True
    except Exception:
        return False


def check(cut):
    global saved
    got, said = load(cut)
    bad = []
    with h5py.File(cut, "r") as f:
        table = "step" if kind == "compare" else "time"
        extent = f[table].shape[0] if table in f else 0
        whole = "summary" in f
        # (a hybrid run's initial state is written by its first flush: NaN before)
        first = kind != "hybrid" or whole or "flushed_rows" not in f or int(f["flushed_rows"][()]) > 0
    if extent > rows(got.get(table, [])) and "left out" not in said:
        bad.append("%d rows of /%s left out without a notice" % (extent - len(got[table]), table))
    if save and saved < 3 and extent > rows(got.get(table, [])):
        with h5py.File(cut, "r") as f:
            level = 1 if reads_whole(f) else 3 if rows(got[table]) else 2
        if level > saved:
            shutil.copy(cut, save)
            saved = level
    # A set's rows are named (/problem_name) as far as they go: the names were written
    # at the end, and a killed file's rows were "problem K" to every reader.
    if got.get("parameters/mode") in ("lcp_set", "fc_set") and rows(got.get("step", [])):
        if rows(got.get("problem_name", [])) != rows(got["step"]):
            bad.append("problem_name: %s rows, /step %d" % (rows(got.get("problem_name", [])),
                                                             rows(got["step"])))
    for name, n in ((k, rows(v)) for k, v in before.items()):
        if name not in got:
            bad.append("%s: gone" % name)
        elif n is not None and rows(got[name]) < n:
            bad.append("%s: %d rows, %d before" % (name, rows(got[name]), n))
    for name, x in got.items():
        if name not in done:
            bad.append("%s: not in the finished file" % name)
            continue
        if not first and name.startswith("model/initial_"):
            continue
        y = done[name]
        if rows(x) is None:
            if not (x == y or (isinstance(x, float) and np.isnan(x) and np.isnan(y))):
                bad.append("%s: %r, finished %r" % (name, x, y))
            continue
        if isinstance(x, list):
            if x != y[:len(x)]:
                bad.append("%s: differs from the finished file's" % name)
            continue
        x, y = np.asarray(x), np.asarray(y)
        if x.shape[1:] != y.shape[1:] or len(x) > len(y):
            bad.append("%s: shape %s, finished %s" % (name, x.shape, y.shape))
        elif x.tobytes() != y[:len(x)].tobytes():
            bad.append("%s: rows differ from the finished file's" % name)
    return "; ".join(bad[:6])


for line in sys.stdin:
    cut = line.rsplit(" ", 1)[0]
    try:
        answer = check(cut) or "ok"
    except Exception as e:  # what a reader of the cut file meets
        answer = "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")
    print(answer.replace("\n", " "), flush=True)
