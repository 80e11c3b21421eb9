#!/usr/bin/python3
"""cut_reads.py START FINAL KIND: for each line "CUT K" on stdin, answers one line on
stdout: "ok" when the file CUT a kill left (tests/e2e/flush_replay.py, CHECK
"serve:...") reads as the loader of its KIND reads it (hybrid: scripts/lcpsim_load.py;
compare: scripts/lcpsim_compare.py) and loses nothing, else what is wrong. Loses nothing:
every dataset of START (the same run's file as the flush before the replayed calls left
it) is in CUT, with at least START's rows, and every dataset of CUT holds FINAL's rows
(the run's finished file) as far as it goes. Hybrid-model and compare files have no
/flushed_rows and no --resume: a user reads the partial file as it is. For
tests/e2e/killed_flush.sh."""
import os
import sys
import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../scripts"))
import lcpsim_compare  # noqa: E402
import lcpsim_load  # noqa: E402

start, final, kind = sys.argv[1:4]


def datasets(f):
    out = {}
    f.visititems(lambda n, o: out.__setitem__(n, o) if isinstance(o, h5py.Dataset) else None)
    return out


def rows(d):
    return d.shape[0] if d.shape else None


with h5py.File(start, "r") as s, h5py.File(final, "r") as fi:
    before = {n: rows(d) for n, d in datasets(s).items()}
    done = {n: np.asarray(d[()]) for n, d in datasets(fi).items()}


def check(cut):
    if kind == "hybrid":
        r = lcpsim_load.load(cut)
        if r.file_kind != "hybrid":
            return "file_kind " + str(r.file_kind)
    else:
        lcpsim_compare.load(cut)
    bad = []
    with h5py.File(cut, "r") as c:
        dc = datasets(c)
        for name, n in before.items():
            if name not in dc:
                bad.append("%s: gone" % name)
            elif n is not None and rows(dc[name]) < n:
                bad.append("%s: %d rows, %d before" % (name, rows(dc[name]), n))
        for name, d in dc.items():
            x = np.asarray(d[()])
            if name not in done:
                bad.append("%s: not in the finished file" % name)
                continue
            y = done[name]
            if x.shape and (x.shape[1:] != y.shape[1:] or len(x) > len(y)):
                bad.append("%s: shape %s, finished %s" % (name, x.shape, y.shape))
            elif x.shape and x.tobytes() != y[:len(x)].tobytes():
                bad.append("%s: rows differ from the finished file's" % name)
    return "; ".join(bad[:6])


for line in sys.stdin:
    cut = line.rsplit(" ", 1)[0]
    try:
        answer = check(cut) or "ok"
    except Exception as e:  # what a reader of the cut file meets
        answer = "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")
    print(answer.replace("\n", " "), flush=True)
