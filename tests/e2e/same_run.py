"""same_run.py A B LEAST: the run files A and B hold the same datasets, equal in shape,
type and bits, but the wall times (a strided slot's summary: its solver_wall_time); of
/resume, the slot of the last step in each (which slot it is depends on the flushes).
More than LEAST datasets compared (every run dataset). Exit 0 when equal, else the
differing names on stderr and exit 1. For tests/e2e/resume.sh, killed_flush.sh and
record_stride.sh (a resumed run against the straight one)."""
import sys, h5py
import numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
least = int(sys.argv[3])
def names(f):
    out = []
    f.visititems(lambda n, o: out.append(n) if isinstance(o, h5py.Dataset) else None)
    return set(out)
# /resume: the slot of the last step in each (which slot it is depends on the flushes)
def last(f):
    # the last step: a strided file's /step names its rows' steps, else row k is step k
    n = f["step"][-1] if "step" in f else len(f["time"]) - 1
    return [s for s in f["resume"] if f["resume"][s]["step"][()] == n][0]
sa, sb = last(a), last(b)
na = {n.replace("resume/%s/" % sa, "resume/last/") for n in names(a) if not n.startswith("resume/") or n.startswith("resume/%s/" % sa)}
nb = {n.replace("resume/%s/" % sb, "resume/last/") for n in names(b) if not n.startswith("resume/") or n.startswith("resume/%s/" % sb)}
bad = sorted(na ^ nb)
n = 0
for name in sorted(na & nb):
    x = np.asarray(a[name.replace("resume/last/", "resume/%s/" % sa)][()])
    y = np.asarray(b[name.replace("resume/last/", "resume/%s/" % sb)][()])
    if name == "resume/last/summary":  # its solver_wall_time apart (strided files)
        x, y = np.delete(x, 5), np.delete(y, 5)
    elif "wall" in name:
        continue
    if x.shape != y.shape or x.dtype != y.dtype or x.tobytes() != y.tobytes():
        bad.append(name)
    n += 1
if bad:
    print("differ:", bad[:10], file=sys.stderr)
    sys.exit(1)
assert n > least, n  # every run dataset compared
