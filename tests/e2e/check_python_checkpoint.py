"""Checkpoints from Python (Sim.save, Sim.restore; C: lsim_sim_save, lsim_sim_restore): a
Sim restored from a checkpoint, or from a run file of the command, takes the straight run's
steps to the bit (q, v, every contact's id and impulses compared as bytes: the claim is
identity, no tolerance). Run by python_binding.sh from the tree's root; argv[1] the lcpsim
command."""
import os
import subprocess
import sys
import tempfile

import numpy as np

import lcpsim

LCPSIM = sys.argv[1] if len(sys.argv) > 1 else "./lcpsim"
fails = []


def check(cond, what):
    if not cond:
        fails.append(what)
        print("FAIL:", what)


def outcome(sim):
    """The step's outcome as bytes: q, v and the contacts' ids and impulses."""
    c = sim.contacts()
    return (sim.q.tobytes() + sim.v.tobytes() + c["id"].tobytes()
            + c["normal_impulse"].tobytes() + c["friction_impulse"].tobytes())


def steps(sim, n):
    out = []
    for _ in range(n):
        check(sim.step() >= 0, "a step failed: %s" % sim.error)
        out.append(outcome(sim))
    return out


def first_difference(a, b):
    return next((k + 1 for k, (x, y) in enumerate(zip(a, b)) if x != y), 0)


with open("data/pile_10.json") as f:
    PILE = f.read()
PGS = PILE.replace('"solver": "lemke",',
                   '"solver": {"name": "pgs", "tol": 1e-6, "max_iter": 200}, '
                   '"sleep": {"enabled": true, "linear_speed": 0.02, "angular_speed": 0.1, '
                   '"time": 0.1},')
assert PGS != PILE

tmp = tempfile.mkdtemp(prefix="lsim_e2e_checkpoint_")
ck = os.path.join(tmp, "c.h5")

# PGS with warm starts and sleeping (asleep from about step 45), saved at step 100, and
# Lemke (the scene's solver) saved at step 40; restored into a fresh Sim of the same scene.
for name, text, at, more in (("pgs+sleep", PGS, 100, 100), ("lemke", PILE, 40, 40)):
    ref = lcpsim.Sim.from_json(text)
    ref.run(at)
    straight = steps(ref, more)
    a = lcpsim.Sim.from_json(text)
    a.run(at)
    a.save(ck)
    b = lcpsim.Sim.from_json(text)
    qview = b.q
    b.restore(ck)
    check(b.steps_done == at and b.time == a.time, "%s: restored at step %d t %r"
          % (name, b.steps_done, b.time))
    check(qview.tobytes() == a.q.tobytes(), "%s: the view taken before shows the state" % name)
    d = first_difference(steps(b, more), straight)
    check(d == 0, "%s: the restored run leaves the straight one at step %d" % (name, d))
    # The state alone (no stepper memory) does leave it: the comparison can fail.
    c = lcpsim.Sim.from_json(text)
    c.q, c.v = a.q, a.v
    d_state = first_difference(steps(c, more), straight)
    check(d_state > 0, "%s: the state alone continues the run too" % name)
    print("%s: saved at step %d, restored: %d steps identical to the straight run; from the "
          "state alone: differs from step %d" % (name, at, more, d_state))
    # Branching: the same Sim restored twice runs the same steps twice.
    b.restore(ck)
    check(first_difference(steps(b, more), straight) == 0, "%s: a second branch differs" % name)
    for s in (ref, a, b, c):
        s.close()

# A run file of the command (killed or completed) continued in Python, to the bit.
run = os.path.join(tmp, "run.h5")
subprocess.run([LCPSIM, "data/pile_10.json", "--steps", "60", "-o", run, "--quiet"], check=True)
ref = lcpsim.Sim.load("data/pile_10.json")
ref.run(60)
at60 = outcome(ref)
straight = steps(ref, 30)
b = lcpsim.Sim.load("data/pile_10.json")
b.restore(run)
check(b.steps_done == 60 and b.q.tobytes() + b.v.tobytes() == at60[:8 * (b.q.size + b.v.size)],
      "the command's run restored at step %d" % b.steps_done)
d = first_difference(steps(b, 30), straight)
check(d == 0, "the command's run continued in Python leaves the straight run at step %d" % d)
print("lcpsim run of 60 steps restored in Python: 30 more steps identical to the straight run")


def refused(sim, path, words, status=lcpsim.INVALID_INPUT):
    try:
        sim.restore(path)
        check(False, "restore of %s not refused" % path)
    except lcpsim.Error as e:
        check(e.status == status and all(w in str(e) for w in words),
              "refusal of %s: %s (wanted %s)" % (path, e, words))
        print("refused:", e)


# What cannot be restored: an event-driven run, a hybrid-model run, another solver's run,
# another scene's checkpoint; the Sim is left as it was.
ed = os.path.join(tmp, "ed.h5")
subprocess.run([LCPSIM, "data/bouncing_ball_events.json", "--duration", "0.05", "-o", ed,
                "--quiet"], check=True)
ball = lcpsim.Sim.load("data/bouncing_ball.json")
refused(ball, ed, ["an event-driven run", "cannot be resumed"])
slip = os.path.join(tmp, "slip.h5")
subprocess.run([LCPSIM, "data/slip.json", "--duration", "0.01", "-o", slip, "--quiet"], check=True)
refused(ball, slip, ["a hybrid-model run"])
check(ball.steps_done == 0, "a refused restore moved the Sim")
pgs_run = os.path.join(tmp, "pgs.h5")
subprocess.run([LCPSIM, "data/pile_10.json", "--steps", "5", "--solver", "pgs", "-o", pgs_run,
                "--quiet"], check=True)
refused(b, pgs_run, ["its solver is pgs, the simulation's lemke", "lsim_sim_set_solver"])
b.set_solver("pgs")
b.restore(pgs_run)
check(b.steps_done == 5, "the pgs run restored once the solver is chosen")
refused(ball, ck, ["the run is not of this scene"])
refused(ball, os.path.join(tmp, "none.h5"), ["cannot open"], lcpsim.IO_ERROR)
# Damaged checkpoints: a stored impulse or a state entry that is not finite, a time that is
# not (before: a NaN warm start was restored and taken as the solver's guess; a NaN state
# restored, then refused by every step).
import h5py  # noqa: E402
good = lcpsim.Sim.from_json(PILE)
good.run(50)
good.save(ck)
for what, path, words in (("warm_z", "/resume/slot%d/warm_z", ["warm_z[0] is nan", "damaged"]),
                          ("q", "/q", ["the state it holds is nan at body 'box_0_0_0', q column 0"]),
                          ("time", "/time", ["its time (/time[0]) is inf"])):
    bad = os.path.join(tmp, "bad_%s.h5" % what)
    with open(ck, "rb") as f, open(bad, "wb") as g:
        g.write(f.read())
    with h5py.File(bad, "r+") as f:
        for slot in ((0, 1) if "%d" in path else (None,)):
            d = f[path % slot if slot is not None else path]
            a = d[()]
            if what == "q":
                a[0, 0] = np.nan
            else:
                a.flat[0] = np.inf if what == "time" else np.nan
            d[...] = a
    fresh = lcpsim.Sim.from_json(PILE)
    refused(fresh, bad, words)
    check(fresh.steps_done == 0, "a damaged checkpoint moved the Sim")
# The scene file is no checkpoint.
scene = os.path.join(tmp, "scene.json")
with open(scene, "w") as f:
    f.write(PILE)
s = lcpsim.Sim.load(scene)
try:
    s.save(scene)
    check(False, "save over the scene file not refused")
except lcpsim.Error as e:
    check(e.status == lcpsim.INVALID_INPUT and "scene file" in str(e), "save over the scene: %s" % e)
with open(scene) as f:
    check(f.read() == PILE, "the scene file was touched")
# The command does not resume a checkpoint: it says what the file is.
r = subprocess.run([LCPSIM, "data/pile_10.json", "--resume", ck, "-o", os.path.join(tmp, "x.h5")],
                   capture_output=True, text=True)
check(r.returncode == 2 and "a checkpoint of the library" in r.stderr,
      "lcpsim --resume CHECKPOINT: exit %d, %s" % (r.returncode, r.stderr.strip()))

for f in os.listdir(tmp):
    os.remove(os.path.join(tmp, f))
os.rmdir(tmp)
if fails:
    print("%d failure(s)" % len(fails))
    sys.exit(1)
print("check_python_checkpoint: ok")
