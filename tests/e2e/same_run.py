"""same_run.py A B LEAST: the run files A and B hold the same datasets, equal in shape,
type and bits, but the wall times (a strided slot's summary: its solver_wall_time); of
/resume, the slot of the last step in each (which slot it is depends on the flushes).
More than LEAST datasets compared (every run dataset). Exit 0 when equal, else the
differing names on stderr and exit 1. For tests/e2e/resume.sh, killed_flush.sh and
record_stride.sh (a resumed run against the straight one).

same_run.py --serve STRAIGHT LEAST OUT LCPSIM ARG...: a CHECK "serve:..." of
tests/e2e/flush_replay.py (one Python for every cut, STRAIGHT read once). For each line
"CUT K" it copies CUT to OUT/cut.K.h5, answers "pending" and, two cuts at a time, runs
`LCPSIM ARG... --resume OUT/cut.K.h5 -o OUT/resumed.K.h5 --quiet` and compares the
resumed file with STRAIGHT as above. When its input ends it prints "K ok" or "K what is
wrong" for every cut, in the order of K, and exits.
"""
import os
import shutil
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import h5py
import numpy as np


def load(path):
    """The file's datasets, name -> array; /resume's slot of the last step named
    resume/last/..., the wall times left out, a strided slot's summary without its
    solver_wall_time."""
    f = h5py.File(path, "r")
    # the last step: a strided file's /step names its rows' steps, else row k is step k
    n = f["step"][-1] if "step" in f else len(f["time"]) - 1
    slot = [s for s in f["resume"] if f["resume"][s]["step"][()] == n][0]
    names = []
    f.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
    out = {}
    for name in names:
        if name.startswith("resume/") and not name.startswith("resume/%s/" % slot):
            continue
        x = np.asarray(f[name][()])
        name = name.replace("resume/%s/" % slot, "resume/last/")
        if name == "resume/last/summary":  # its solver_wall_time apart (strided files)
            x = np.delete(x, 5)
        elif "wall" in name:
            x = None  # present in both, its numbers not compared
        out[name] = x
    f.close()
    return out


def differ(a, b, least):
    """The names of the datasets of a and b (load()) that differ or are in one alone;
    AssertionError when LEAST or fewer were compared."""
    bad = sorted(set(a) ^ set(b))
    n = 0
    for name in sorted(set(a) & set(b)):
        x, y = a[name], b[name]
        if x is None or y is None:
            continue
        if x.shape != y.shape or x.dtype != y.dtype or x.tobytes() != y.tobytes():
            bad.append(name)
        n += 1
    assert n > least, n  # every run dataset compared
    return bad


def serve(straight, least, out, command):
    ref = load(straight)
    lock = threading.Lock()  # h5py: one thread in the library at a time
    room = threading.Semaphore(4)  # cuts copied and not yet checked (disk: 4 files)

    def check(cut, k):
        mine, resumed = "%s/cut.%d.h5" % (out, k), "%s/resumed.%d.h5" % (out, k)
        try:
            p = subprocess.run(command + ["--resume", mine, "-o", resumed, "--quiet"],
                               capture_output=True, text=True)
            if p.returncode != 0:
                return "exit %d: %s" % (p.returncode, (p.stdout + p.stderr).strip())
            with lock:
                bad = differ(ref, load(resumed), least)
            return "differ: %s" % bad[:10] if bad else "ok"
        except Exception as e:  # noqa: BLE001 (the cut's failure, named)
            return "%s: %s" % (type(e).__name__, e)
        finally:
            for path in (mine, resumed):
                if os.path.exists(path):
                    os.remove(path)
            room.release()

    jobs = {}
    with ThreadPoolExecutor(2) as pool:
        for line in sys.stdin:
            cut, k = line.split()
            room.acquire()
            # the cut copied before the answer: the replay changes CUT after it
            shutil.copyfile(cut, "%s/cut.%s.h5" % (out, k))
            jobs[int(k)] = pool.submit(check, cut, int(k))
            print("pending", flush=True)
        for k in sorted(jobs):
            print("%d %s" % (k, jobs[k].result().replace("\n", " ")), flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "--serve":
        serve(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5:])
        sys.exit(0)
    bad = differ(load(sys.argv[1]), load(sys.argv[2]), int(sys.argv[3]))
    if bad:
        print("differ:", bad[:10], file=sys.stderr)
        sys.exit(1)
