#!/usr/bin/python3
"""early_reads.py FINAL SCENE STEPS OUT [SAVE]: for each line "CUT K" on stdin (tests/e2e/
flush_replay.py, CHECK "serve:..."), answers "ok" when every reader of run files takes the
file CUT a kill left in the run's first flushes (from its creation: ROWS early:N) as it
must, else what is wrong. Readers: `lcpsim view`, `lcpsim SCENE --resume CUT` (to STEPS
steps; SCENE "-" for an event-driven run, which --resume refuses), `lcpsim solve CUT --step
1`, `lcpsim export` (each in a process of its own), scripts/lcpsim_load.py and
scripts/lcpsim_cut.py (their main() here). None may crash (a signal, "free(): invalid pointer", an abort). A file whose head
(lcp/h5check.h, read here plainly) is not marked whole is refused by each with one line
naming the file and that it was cut before its first complete flush; a marked one reads:
lcpsim view and the loader exit 0, --resume of a time-stepping run too, and every array the
loader gives is FINAL's (the finished file's) as far as it goes. OUT: a folder for the
readers' outputs; SAVE (optional): a copy of the last cut refused. Prints, on stdin's end, "early_reads: N cuts: U refused unmarked, M read
marked" on stderr. For tests/e2e/killed_early.sh."""
import contextlib
import io
import os
import shutil
import subprocess
import sys
from types import SimpleNamespace

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "../..")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import lcpsim_cut  # noqa: E402
import lcpsim_load  # noqa: E402

final, scene, steps, out = sys.argv[1:5]
save = sys.argv[5] if len(sys.argv) > 5 else None
L = os.path.join(ROOT, "lcpsim")
CRASH = ("free(): ", "double free", "Segmentation fault", "Aborted", "core dumped",
         "AddressSanitizer", "malloc(): ", "panic:")
SKIP = {"partial", "path", "cut_note", "flushed_rows", "flushed_events", "flushed_lcp_problems"}


def flat(obj, prefix=""):
    """{path: array or value} of a loaded run (the loader's nested groups); no summary,
    no /resume (rewritten in place by every flush), no marks."""
    items = obj.items() if isinstance(obj, dict) else vars(obj).items()
    got = {}
    for k, v in items:
        if isinstance(v, (dict, SimpleNamespace)):
            got.update(flat(v, prefix + k + "/"))
        elif (not callable(v) and k not in SKIP and not (prefix + k).startswith("summary/")
              and not (prefix + k).startswith("resume/")):
            got[prefix + k] = v
    return got


def quiet_load(path):
    with contextlib.redirect_stderr(io.StringIO()):
        return flat(lcpsim_load.load(path))


done = quiet_load(final)


def run(cmd):
    """(exit status, output) of cmd; status < 0: killed by a signal."""
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       errors="replace", cwd=ROOT)
    return p.returncode, p.stdout.strip()


def in_process(main, argv):
    """(exit status, stderr) of a script's main(argv), run here (one Python for every cut;
    a loader that let HDF5 crash on a cut ends this checker, and the replay says so)."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        rc = main(argv)
    return rc, err.getvalue().strip()


def readers(cut):
    rs = [("view", [L, "view", cut, "-o", os.path.join(out, "page.html")]),
          ("lcpsim_load.py", (lcpsim_load.main, ["lcpsim_load.py", cut])),
          ("lcpsim_cut.py", (lcpsim_cut.main, ["lcpsim_cut.py", cut, os.path.join(out, "copy.h5")])),
          ("solve --step", [L, "solve", cut, "--step", "1"]),
          ("export --step", [L, "export", cut, "--step", "1", "-o", os.path.join(out, "p.dat")])]
    if scene != "-":
        rs.append(("--resume", [L, scene, "--resume", cut, "-o", os.path.join(out, "resumed.h5"),
                                "--steps", steps, "--quiet"]))
    return rs


def head_unmarked(path):
    """Whether the file's head says it was cut before its first complete flush (lcp/h5check.h),
    read here on its own: HDF5's signature at 512 after the pending mark or zeros."""
    with open(path, "rb") as f:
        head = f.read(520)
    return (len(head) == 520 and head[512:] == b"\x89HDF\r\n\x1a\n" and
            (head.startswith(b"lcpsim run file: being written\n") or not any(head[:512])))


def check(cut):
    unmarked = head_unmarked(cut)
    bad = []
    for name, cmd in readers(cut):
        rc, said = in_process(*cmd) if isinstance(cmd, tuple) else run(cmd)
        if rc < 0 or rc >= 128 or any(w in said for w in CRASH):
            bad.append("%s crashed (exit %d): %s" % (name, rc, said[-200:]))
        elif unmarked:
            lines = said.splitlines()
            if rc == 0 or len(lines) != 1 or cut not in lines[0] or \
                    "cut before its first complete flush" not in lines[0]:
                bad.append("%s on a cut before its first complete flush: exit %d: %s"
                           % (name, rc, said[-200:]))
        elif name in ("view", "lcpsim_load.py", "--resume") and rc != 0:
            bad.append("%s refused a file marked whole: exit %d: %s" % (name, rc, said[-200:]))
    if unmarked or bad:
        return bad, unmarked
    # A marked cut: the loader's arrays are the finished file's as far as they go.
    got = quiet_load(cut)
    for name, x in got.items():
        if name not in done:
            bad.append("%s: not in the finished file" % name)
            continue
        y = done[name]
        if isinstance(x, np.ndarray) and x.ndim > 0:
            y = np.asarray(y)
            if x.shape[1:] != y.shape[1:] or len(x) > len(y) or x.tobytes() != y[:len(x)].tobytes():
                bad.append("%s: rows differ from the finished file's" % name)
        elif isinstance(x, list):
            if x != y[:len(x)]:
                bad.append("%s: differs from the finished file's" % name)
        elif not (x == y or (isinstance(x, float) and np.isnan(x) and np.isnan(y))):
            bad.append("%s: %r, finished %r" % (name, x, y))
    return bad, unmarked


cuts = refused = marked = 0
for line in sys.stdin:
    cut = line.rsplit(" ", 1)[0]
    try:
        bad, unmarked = check(cut)
    except Exception as e:  # what a reader of the cut file meets
        bad, unmarked = ["%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")], False
    cuts += 1
    if save and unmarked and not bad:
        shutil.copyfile(cut, save)  # (the last cut refused: for the other readers' checks)
    refused += unmarked and not bad
    marked += not unmarked and not bad
    print("; ".join(bad[:4]).replace("\n", " ") or "ok", flush=True)
print("early_reads: %d cuts: %d refused unmarked, %d read marked" % (cuts, refused, marked),
      file=sys.stderr)
