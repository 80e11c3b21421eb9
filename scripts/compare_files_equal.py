#!/usr/bin/python3
"""compare_files_equal.py A.h5 B.h5: exit 0 when two compare files (lcpsim compare) hold
the same datasets with the same values, timings apart (wall times, their spread and the
summaries of them, total wall time): a run over MPI ranks must give the serial run's
file. Also for two run files (lcpsim run): their wall times (/solver/wall_time,
/summary/solver_wall_time, /summary/wall_time_total) apart, the same scene run twice must
give the same file; their /resume groups apart too (the stepper's memory at the last flush,
and a flush comes every 256 steps or after 1 s of wall time, so its step is the clock's).
Prints the first difference otherwise."""
import sys

import h5py
import numpy as np

# wall times and what is made of them, and the settings of the timing (--repeat,
# --time-limit): a run with --repeat 5 has the answers of a run without
TIMINGS = {"results/wall_time", "results/wall_time_spread", "summary/median_wall_time",
           "summary/median_failure_wall_time", "results/setup_wall_time",
           "summary/worst_wall_time", "summary/total_wall_time", "parameters/repeat",
           "parameters/time_limit",
           # run files (lcpsim run)
           "solver/wall_time", "summary/solver_wall_time", "summary/wall_time_total"}


def datasets(f):
    out = {}
    f.visititems(lambda name, obj: out.__setitem__(name, obj[()]) if isinstance(obj, h5py.Dataset) else None)
    return out


def main(a, b):
    da, db = datasets(h5py.File(a, "r")), datasets(h5py.File(b, "r"))
    if set(da) != set(db):
        print("different datasets:", sorted(set(da) ^ set(db)))
        return 1
    for name in sorted(da):
        if name in TIMINGS or (name.startswith("trajectory/") and "wall_time" in name) \
                or name.startswith("resume/"):
            continue  # (--trajectory: the reference run's own wall times)
        x, y = np.asarray(da[name]), np.asarray(db[name])
        same = x.shape == y.shape and (np.array_equal(x, y, equal_nan=True) if x.dtype.kind == "f"
                                       else np.array_equal(x, y))
        if not same:
            print(f"{name} differs: {x!r} vs {y!r}")
            return 1
    print(f"same datasets and values, timings apart: {len(da)} datasets")
    return 0


if __name__ == "__main__":
    # A reader that stops early (| head) ends the command quietly, not with a traceback.
    import signal
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    if sys.argv[1:] in (["-h"], ["--help"]):
        print(__doc__)
        sys.exit(0)
    if len(sys.argv) != 3:
        print("usage: compare_files_equal.py A.h5 B.h5", file=sys.stderr)
        sys.exit(2)
    for path in sys.argv[1:]:
        try:
            h5py.File(path, "r").close()
        except OSError as e:
            print(f"compare_files_equal.py: {path}: not a readable HDF5 file ({e})",
                  file=sys.stderr)
            sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
