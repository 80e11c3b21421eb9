"""The Python binding (python/lcpsim) against closed forms: run by python_binding.sh."""
import os
import sys
import tempfile

import numpy as np

import lcpsim

fails = []


def check(cond, what):
    if not cond:
        fails.append(what)
        print("FAIL:", what)


FREE = ('{"lcpsim": 1, "time_step": 0.125, "steps": 8,'
        ' "bodies": [{"name": "puck", "position": 0, "velocity": 0.5, "mass": 2}]}')

# Errors: the library's message with file:line:column and the JSON path.
try:
    lcpsim.Sim.from_json('{"lcpsim": 1, "time_step": 0.1, "steps": 3,\n "bodies": [{"mass": -1}]}',
                         "mem.json")
    check(False, "a bad scene loads")
except lcpsim.Error as e:
    check(str(e) == "mem.json:2:22: bodies[0].mass: must be > 0, got -1", "error text: %s" % e)
    check(e.status == lcpsim.INVALID_INPUT, "error status")

# State views: no copies; what Python writes is what the next step starts from.
sim = lcpsim.Sim.from_json(FREE)
q, v = sim.q, sim.v
sim.v[0] = 1.0
check(sim.step() == lcpsim.SOLVED, "free step")
check(q[0] == 0.125 and v[0] == 1.0, "views follow the state: q %r v %r" % (q[0], v[0]))
check(not q.flags.owndata and q.ctypes.data == sim.q.ctypes.data, "q is a view")

# A Python controller: a damper f = -2 v on m = 2, h = 1/8: v_{k+1} = v_k (1 - h) exactly
# (dyadic), q_{k+1} = q_k + h v_{k+1}; the controller sees the state before each step.
sim = lcpsim.Sim.from_json(FREE)
seen = []


def damper(s):
    seen.append((s.time, s.q[0], s.v[0]))
    s.set_force("puck", [-2.0 * s.v[0]])


sim.controller = damper
sim.run(8)
qe, ve = 0.0, 0.5
for k in range(8):
    check(seen[k] == (0.125 * k, qe, ve), "controller saw %r at step %d" % (seen[k], k))
    ve *= 0.875
    qe += 0.125 * ve
check(sim.q[0] == qe and sim.v[0] == ve, "damped state %r %r vs %r %r" % (sim.q[0], sim.v[0], qe, ve))
check(np.array_equal(sim.get_force(0), [-2.0 * seen[-1][2]]), "force read back")

# A controller that raises: the step is not taken and the exception comes back.
def boom(s):
    raise RuntimeError("controller failed")


sim.controller = boom
try:
    sim.step()
    check(False, "a raising controller went unnoticed")
except RuntimeError as e:
    check(str(e) == "controller failed", "controller exception")
check(sim.steps_done == 8, "no step after a failed controller")
sim.controller = None
check(sim.step() == lcpsim.SOLVED, "step without controller")
# A controller that is not callable is refused where it is set, the previous one kept.
try:
    sim.controller = 3
    check(False, "a non-callable controller was accepted")
except TypeError as e:
    check("callable" in str(e) and sim.controller is None, "non-callable controller: %s" % e)
check(sim.step() == lcpsim.SOLVED, "step after a refused controller")
sim.close()

# Contacts of the cart and wall: ids stable, impulses the closed form f = max(0, -a/h^2) h.
sim = lcpsim.Sim.load("data/cart_wall.json")
h, ids = sim.time_step, set()
for n in range(sim.scene_steps):
    a = sim.q[0] + h * sim.v[0]
    sim.step()
    c = sim.contacts()
    ids.update(int(i) for i in c["id"])
    f = c["normal_impulse"].sum() / h
    check(abs(f - max(0.0, -a / h ** 2)) <= 1e-12 * max(1.0, f), "cart step %d: f %r" % (n, f))
check(len(ids) == 1, "one contact id: %r" % ids)
check(sim.q[0] == 0.0 and sim.v[0] == 0.0, "cart at rest on the wall")
check(sim.last_step()["status"] == 0, "last step solved")

# Solvers: set and refused; a standalone LCP.
try:
    sim.set_solver("bogus")
    check(False, "an unknown solver is accepted")
except lcpsim.Error as e:
    check(e.status == lcpsim.UNAVAILABLE, "unknown solver status")
check(sim.error != "", "the failed set_solver's message: %r" % sim.error)
sim.set_solver("pgs", tol=1e-12)
check(sim.solver == "pgs", "solver set")
check(sim.error == "", "a success clears the last failure's message: %r" % sim.error)
try:
    sim.record("")
    check(False, "an empty record path is accepted")
except lcpsim.Error as e:
    check(sim.error == str(e) and "empty" in sim.error, "error is the raised one: %r" % sim.error)
sim.step()
check(sim.error == "", "a step after a failure: %r" % sim.error)
# A failed step's message survives the queries that inspect the step (lcpsim.h).
push = lcpsim.Sim.from_json(
    '{"lcpsim": 1, "dimension": 3, "time_step": 0.01, "steps": 10, "bodies": [{"name": "ball",'
    ' "mass": 1, "force": [1e6, 0, 0], "shapes": [{"type": "sphere", "radius": 0.1}]}]}')
push.step()
try:
    push.step()
    check(False, "a runaway ball is not stopped")
except lcpsim.Error as e:
    stopped = str(e)
check(len(push.contacts()) == 0 and push.last_step() is not None, "queries after the stop")
check(push.error == stopped and "max_speed" in stopped,
      "the stop's message after contacts(): %r (raised %r)" % (push.error, stopped))
push.close()
# A fixed sweep budget (tol 0) is no failure for run(), with a Python controller too.
pile = lcpsim.Sim.load("data/pile_10.json")
pile.set_solver("pgs", tol=0.0, max_iter=50)
check(pile.solver_config()["max_iter"] == 50, "solver config read back")
pile.set_solver("newton", sparse_limit=-1)
check(pile.solver_config()["sparse_limit"] == -1, "newton's sparse_limit read back")
try:
    pile.set_solver("newton", sparse_limit=-2)
    check(False, "sparse_limit -2 is accepted")
except lcpsim.Error as e:
    check(e.status == lcpsim.INVALID_INPUT and pile.solver == "newton", "sparse_limit -2: %s" % e)
# lemke_sparse's principal pivoting phase (a scene's solver.principal): 0 by default, read
# back as set; out of [0, 1000000], with another solver or not an integer refused, the
# solver kept (principal.sh runs it against the scene key, bit for bit).
check(pile.solver_config()["principal"] == 0, "principal 0 by default")
pile.set_solver("lemke_sparse", principal=2000)
check(pile.solver_config()["principal"] == 2000, "lemke_sparse's principal read back")
for bad, words in ((-1, ["principal must be an integer in [0, 1000000], got -1"]),
                   (1000001, ["principal must be an integer in [0, 1000000], got 1000001"])):
    try:
        pile.set_solver("lemke_sparse", principal=bad)
        check(False, "principal %d is accepted" % bad)
    except lcpsim.Error as e:
        check(e.status == lcpsim.INVALID_INPUT and all(w in str(e) for w in words)
              and pile.solver_config()["principal"] == 2000, "principal %d: %s" % (bad, e))
try:
    pile.set_solver("pgs", principal=20)
    check(False, "principal with pgs is accepted")
except lcpsim.Error as e:
    check(e.status == lcpsim.INVALID_INPUT and pile.solver == "lemke_sparse" and
          "principal is a setting of lemke_sparse only; the solver is pgs" in str(e), "principal on pgs: %s" % e)
try:
    pile.set_solver("lemke_sparse", principal=2.5)
    check(False, "principal 2.5 is accepted")
except TypeError as e:
    check("principal must be an integer" in str(e), "principal 2.5: %s" % e)
z = lcpsim.solve_lcp([[2.0, 1.0], [1.0, 2.0]], [-5.0, -6.0], "lemke_sparse", principal=50)[0]
check(abs(z[0] - 4 / 3) <= 1e-12 and abs(z[1] - 7 / 3) <= 1e-12, "solve_lcp with principal: %r" % (z,))
# pgs's sweep arithmetic (a scene's solver.precision): None (the environment's) by default,
# read back as set; another word, another type or another solver refused in the scene key's
# words, the solver kept; 10 steps of pile_100 with precision="float" are the scene key's,
# bit for bit, and not double's (test_api test_precision_config: the C side).
check(pile.solver_config()["precision"] is None, "precision None by default")
pile.set_solver("pgs", tol=0.0, max_iter=50, precision="float")
check(pile.solver_config()["precision"] == "float", "pgs's precision read back")
for bad, exc, words in (("single", ValueError, 'precision must be "double" or "float", got "single"'),
                        (2, TypeError, 'precision must be "double", "float" or None, got 2')):
    try:
        pile.set_solver("pgs", tol=0.0, max_iter=50, precision=bad)
        check(False, "precision %r is accepted" % (bad,))
    except exc as e:
        check(words in str(e) and pile.solver_config()["precision"] == "float", "precision %r: %s" % (bad, e))
try:
    pile.set_solver("lemke", precision="float")
    check(False, "precision with lemke is accepted")
except lcpsim.Error as e:
    check(e.status == lcpsim.INVALID_INPUT and pile.solver == "pgs" and
          "precision is a setting of pgs only; the solver is lemke" in str(e), "precision on lemke: %s" % e)
pile.set_solver("pgs", tol=0.0, max_iter=50, precision="double")
check(pile.solver_config()["precision"] == "double", "precision double read back")
import json
_scene = json.load(open("data/pile_100.json"))
_scene["solver"]["precision"] = "float"
_runs = {}
for _k, _text, _prec in (("key", json.dumps(_scene), None), ("config", None, "float"),
                         ("double", None, "double")):
    _s = lcpsim.Sim.from_json(_text) if _text else lcpsim.Sim.load("data/pile_100.json")
    if _prec:
        _s.set_solver("pgs", tol=0.0, max_iter=50, precision=_prec)
    _s.run(10)
    _runs[_k] = np.array(_s.v)
    _s.close()
check(np.array_equal(_runs["key"], _runs["config"]), "precision=\"float\" is the scene key's run")
check(not np.array_equal(_runs["key"], _runs["double"]), "precision=\"float\" changed nothing")
pile.set_solver("pgs", tol=0.0, max_iter=50)
pile.controller = lambda s: None
pile.run(pile.scene_steps)
check(pile.last_step()["status"] == lcpsim.MAX_ITERATIONS and pile.last_step()["lcp_size"] > 0,
      "fixed budget: %r" % pile.last_step())
pile.close()
z, rep = lcpsim.solve_lcp([[2, 1], [1, 2]], [-5, -6], "lemke")
check(np.allclose(z, [4 / 3, 7 / 3], atol=1e-12, rtol=0) and rep["status"] == 0, "lcp z %r" % z)
# An exact solver at tol 0: the message speaks of the function's keywords (tol, max_iter),
# not of the command line's flags (it said "e.g. --tol 1e-10 --max-iter 0").
try:
    lcpsim.solve_lcp([[2, 1], [1, 2]], [-5, -6], "lemke", tol=0)
    check(False, "lemke at tol 0 accepted")
except lcpsim.Error as e:
    check(e.status == lcpsim.INVALID_INPUT and "lemke needs a tolerance > 0" in str(e)
          and "tol 1e-10 with max_iter 0" in str(e) and "--" not in str(e), "tol 0 message: %s" % e)
check("lemke" in lcpsim.solver_names() and "pgs" in lcpsim.solver_names(), "solver names")
# One 3-D contact, W = I, q = (-1, 2, 0), mu = 0.5: closes (r_N = 1) and slides along +x
# (sticking needs |r_T| = 2 > mu r_N), so r = (1, -0.5, 0) exactly; 1e-9 is above the
# solver's tolerance of 1e-12.
r, rep = lcpsim.solve_fc(np.eye(3), [-1, 2, 0], [0.5], "nsgs", tol=1e-12)
check(np.allclose(r, [1, -0.5, 0], atol=1e-9, rtol=0) and rep["status"] == 0
      and rep["relative"] <= 1e-9, "fc r %r %r" % (r, rep))
# The same problem from a Siconos frictionContact .dat (there was no Python call for a file:
# solve_lcp_file's message named the C function): the same r, exact and on 8 directions
# (the sliding direction -x is one of the octagon's, so r_T = -mu r_N exactly there too).
with tempfile.TemporaryDirectory() as d:
    fc = os.path.join(d, "one.dat")
    with open(fc, "w") as f:
        f.write("3\n1\n0\n3 3\n3 3\n1 0 0\n0 1 0\n0 0 1\n-1 2 0\n0.5\n")
    for spec, nd in (("nsgs", 0), ("lemke", 8)):
        r, rep = lcpsim.solve_fc_file(fc, spec, ndir=nd, tol=1e-12)
        check(np.allclose(r, [1, -0.5, 0], atol=1e-9, rtol=0) and rep["status"] == 0
              and rep["dim"] == 3, "fc file %s r %r %r" % (spec, r, rep))
    try:
        lcpsim.solve_lcp_file(fc)
        check(False, "an fc file solved as an LCP")
    except lcpsim.Error as e:
        check("solve_fc_file solves it" in str(e) and "lsim_" not in str(e), "fc file as LCP: %s" % e)
    # ... and an LCP file given to solve_fc_file (read as a frictional contact problem it
    # failed on a size: "lcp.dat:1:1: dimension 2 out of range" or the like)
    lcpf = os.path.join(d, "lcp.dat")
    with open(lcpf, "w") as f:
        f.write("2\n0\n2 2\n2 2\n2 1\n1 2\n-1 -1\n")
    try:
        lcpsim.solve_fc_file(lcpf)
        check(False, "an LCP file solved as a frictional contact problem")
    except lcpsim.Error as e:
        check("not a frictional contact problem: solve_lcp_file solves it" in str(e)
              and "lsim_" not in str(e), "LCP file as fc: %s" % e)
    try:
        lcpsim.solve_fc_file(os.path.join(d, "none.dat"))
        check(False, "a missing fc file solved")
    except lcpsim.Error as e:
        check("none.dat: cannot open" in str(e), "missing fc file: %s" % e)

# A comparison: two solvers, cold and warm, on the two-block scene; the file is written.
with tempfile.TemporaryDirectory() as d:
    out = os.path.join(d, "cmp.h5")
    rows = lcpsim.compare("data/two_blocks.json", "lemke,pgs", output=out)
    check(len(rows) == 4 and all(r["successes"] == r["problems"] > 0 for r in rows),
          "comparison rows %r" % rows)
    check(os.path.exists(out), "compare file written")
    # Budget stops and missed tolerances, as the command's file has them on the same
    # problems (40 steps of pile_10: pgs[sweeps=3] stops at its budget, pgs[tol=1e-3]
    # finishes above the 1e-6 success tolerance; the rows had neither count).
    import subprocess
    import h5py
    solvers = "lemke,pgs[sweeps=3],pgs[tol=1e-3]"
    rows = lcpsim.compare("data/pile_10.json", solvers, steps=40, output=out)
    cli = os.path.join(d, "cli.h5")
    subprocess.run(["./lcpsim", "compare", "data/pile_10.json", "--steps", "40", "--solvers",
                    solvers, "-o", cli, "--quiet"], check=True, stdout=subprocess.DEVNULL)
    with h5py.File(cli, "r") as f:
        labels = [x.decode() for x in f["series/label"][()]]
        fig = {k: f["summary/" + k][()] for k in ("problems", "successes", "failures", "skipped",
                                                  "budget_stops", "missed_tolerance",
                                                  "worst_relative_residual")}
    check([r["label"] for r in rows] == labels, "compare labels %r, the command's %r"
          % ([r["label"] for r in rows], labels))
    for i, r in enumerate(rows):
        for key, col in (("problems", "problems"), ("successes", "successes"),
                         ("failures", "failures"), ("skipped", "skipped"),
                         ("budget_stops", "budget_stops"), ("missed", "missed_tolerance"),
                         ("worst_relative_residual", "worst_relative_residual")):
            check(r[key] == fig[col][i], "compare %s %s: %r, the command's file %r"
                  % (r["label"], key, r[key], fig[col][i]))
    check(rows[2]["budget_stops"] > 0 and rows[4]["missed"] > 0 and rows[0]["budget_stops"] ==
          rows[0]["missed"] == 0, "compare counts %r" % [(r["budget_stops"], r["missed"]) for r in rows])
    # A record from Python, read back with h5py: the rows are the states stepped.
    sim = lcpsim.Sim.load("data/two_blocks.json")
    rec = os.path.join(d, "run.h5")
    sim.record(rec)
    qs = [sim.q.copy()]
    for _ in range(3):
        sim.step()
        qs.append(sim.q.copy())
    sim.record_close()
    with h5py.File(rec, "r") as f5:
        check(np.array_equal(f5["q"][:], np.array(qs)), "record q")

# Nothing overwrites an input: a comparison onto its scene or a record onto the scene the
# simulation was loaded from raises INVALID_INPUT naming both paths, the scene untouched.
# Errors carry the header's statuses and name the argument, not the command's flags.
with tempfile.TemporaryDirectory() as d:
    scene = os.path.join(d, "scene.json")
    with open("data/two_blocks.json", "rb") as f:
        text = f.read()
    with open(scene, "wb") as f:
        f.write(text)
    try:
        lcpsim.compare(scene, "lemke", output=scene)
        check(False, "compare onto its input did not raise")
    except lcpsim.Error as e:
        check(e.status == lcpsim.INVALID_INPUT and
              "output %s: is the input file %s: refused" % (scene, scene) in str(e),
              "compare onto its input: %s" % e)
    sim = lcpsim.Sim.load(scene)
    try:
        sim.record(scene)
        check(False, "record onto the scene did not raise")
    except lcpsim.Error as e:
        check(e.status == lcpsim.INVALID_INPUT and "is the scene file" in str(e) and
              str(e).count(scene) == 2, "record onto the scene: %s" % e)
    sim.close()
    with open(scene, "rb") as f:
        check(f.read() == text, "the scene was touched")
    check(sorted(os.listdir(d)) == ["scene.json"], "files left: %r" % os.listdir(d))
    for args, status, part in [((os.path.join(d, "none.json"), "lemke"), "IO_ERROR", "none.json"),
                               ((scene, "nosuch"), "UNAVAILABLE", "'nosuch'"),
                               ((scene, "lemke[x=1]"), "INVALID_INPUT", "solvers: ")]:
        try:
            lcpsim.compare(*args, output=os.path.join(d, "c.h5"))
            check(False, "compare%r did not raise" % (args,))
        except lcpsim.Error as e:
            check(e.status == getattr(lcpsim, status) and part in str(e) and "--" not in str(e),
                  "compare%r: %s %s" % (args, e.status, e))
    try:
        lcpsim.compare(scene, "lemke", output="")
        check(False, "compare with an empty output did not raise")
    except lcpsim.Error as e:
        check(e.status == lcpsim.INVALID_INPUT and "output: the output file name is empty" in str(e),
              "empty output: %s" % e)

# The divergence guard: 1e6 N on 1 kg at h = 0.01 s gives v_k = 1e4 k m/s, beyond the
# default max_speed (1e4 m/s) at step 2: step() raises DIVERGED naming step, body, speed.
push = lcpsim.Sim.from_json('{"lcpsim": 1, "dimension": 3, "time_step": 0.01, "steps": 10,'
                            ' "bodies": [{"name": "ball", "mass": 1, "force": [1e6, 0, 0],'
                            ' "shapes": [{"type": "sphere", "radius": 0.1}]}]}', "push.json")
check(push.step() == 0, "push: step 1 solved")
try:
    push.step()
    check(False, "push: step 2 did not raise")
except lcpsim.Error as e:
    check(e.status == lcpsim.DIVERGED and "step 2: body 'ball': |velocity| = 2e+04 m/s" in str(e),
          "push: DIVERGED at step 2: %s" % e)
push.close()

# Sizes are checked before the library sees the arrays (it reads W [n n], q [n], mu [nc] and
# writes r [n] for n = dim nc): a mismatch is a ValueError naming the sizes, not a heap
# overrun.
def raises_value_error(fn, words, what):
    try:
        fn()
        check(False, "%s: accepted" % what)
    except ValueError as e:
        check(all(w in str(e) for w in words), "%s: message %r" % (what, str(e)))


raises_value_error(lambda: lcpsim.solve_fc(np.eye(3), [-1.0, 0, 0], [0.5, 0.5], "nsgs", dim=3),
                   ["q needs", "6", "got 3"], "fc: q shorter than dim * len(mu)")
raises_value_error(lambda: lcpsim.solve_fc(np.eye(6), [-1.0, 0, 0], [0.5], "nsgs", dim=2),
                   ["q needs", "2", "got 3"], "fc: q longer than dim * len(mu)")
raises_value_error(lambda: lcpsim.solve_fc(np.eye(2), [-1.0, 0, 0], [0.5], "nsgs"),
                   ["W must be 3 x 3", "(2, 2)"], "fc: W too small")
raises_value_error(lambda: lcpsim.solve_fc(np.eye(9).reshape(-1)[:9], [-1.0, 0, 0], [0.5]),
                   ["W must be 3 x 3"], "fc: W flat")
raises_value_error(lambda: lcpsim.solve_fc(np.eye(3), [-1.0, 0, 0], [0.5], r0=[0, 0]),
                   ["r0 needs 3"], "fc: r0 short")
raises_value_error(lambda: lcpsim.solve_fc(np.eye(4), [-1.0, 0, 0, 0], [0.5, 0.5], dim=4),
                   ["dim must be 2 or 3"], "fc: dim 4")
raises_value_error(lambda: lcpsim.solve_lcp(np.eye(3), [-1.0, -1.0], "lemke"),
                   ["M must be 2 x 2", "(3, 3)"], "lcp: M too large")
raises_value_error(lambda: lcpsim.solve_lcp([2.0, 1, 1, 2], [-1.0, -1.0], "lemke"),
                   ["M must be 2 x 2"], "lcp: M flat")
raises_value_error(lambda: lcpsim.solve_lcp(np.eye(2), [-1.0, -1.0], z0=[1.0]),
                   ["z0 needs 2"], "lcp: z0 short")
raises_value_error(lambda: lcpsim.solve_lcp(np.eye(2), [[-1.0, -1.0]]),
                   ["q must be a vector"], "lcp: q a matrix")
r, rep = lcpsim.solve_fc(np.eye(4), [-1.0, 0, -1.0, 0], [0.5, 0.5], "nsgs", dim=2, tol=1e-12)
check(np.allclose(r, [1, 0, 1, 0], atol=1e-9) and rep["status"] == 0, "fc: two 2-D contacts %r" % r)
check(lcpsim.status_name(lcpsim.CONTROLLER_STOPPED) == "controller_stopped"
      and lcpsim.status_name(lcpsim.DIVERGED) == "diverged", "status names of the step")

# A bad body index is named with the valid range, before the size of the values is looked at.
sim = lcpsim.Sim.load("data/two_blocks.json")
for call, name in ((lambda: sim.get_force(5), "get_force"), (lambda: sim.set_force(5, [1.0]), "set_force"),
                   (lambda: sim.set_force(-1, [1.0]), "set_force"),
                   (lambda: sim.set_kinematic_velocity(9, [1.0]), "set_kinematic_velocity")):
    try:
        call()
        check(False, "%s: a bad body index is accepted" % name)
    except lcpsim.Error as e:
        check(e.status == lcpsim.INVALID_INPUT and str(e).startswith(name + ": no body ")
              and "(the bodies are 0 .. 1)" in str(e), "%s: bad index message %r" % (name, str(e)))
sim.close()

# Views keep the simulation alive: a view outlives its Sim (the Sim freed, others allocated
# and stepped over its memory), and still reads the state (two_blocks: q = (-2, 0)).
import gc
q0 = lcpsim.Sim.load("data/two_blocks.json").q
v0 = lcpsim.Sim.load("data/two_blocks.json").v[:1]
gc.collect()
others = [lcpsim.Sim.load("data/two_blocks.json") for _ in range(20)]
for o in others:
    o.q[:] = 123.0
    o.run(2)
check(np.array_equal(q0, [-2.0, 0.0]), "a view outliving its Sim reads %r" % q0)
check(v0.shape == (1,) and np.isfinite(v0).all(), "a slice outliving its Sim reads %r" % v0)
q0[1] = 0.5  # writable still
check(q0[1] == 0.5, "the outliving view is writable")
try:
    q0[0] = np.nan
    check(False, "the outliving view takes a NaN")
except ValueError as e:
    check("q[0] is not finite" in str(e) and q0[0] == -2.0, "outliving view, NaN: %r" % str(e))
del others, q0, v0

# A closed Sim raises lcpsim.Error from every method and property (it never hands the
# library a NULL); views taken before stay readable, with the state at close. Its record
# is finished at close() even while a view is alive.
with tempfile.TemporaryDirectory() as d:
    rec = os.path.join(d, "closed.h5")
    sim = lcpsim.Sim.load("data/two_blocks.json")
    sim.record(rec)
    sim.step()
    qv, at_close = sim.q, sim.q.copy()
    sim.close()
    sim.close()  # twice is fine
    check(os.path.exists(rec) and not os.path.exists(rec + ".partial"), "record finished by close()")
    check(np.array_equal(qv, at_close), "a view after close() reads the state at close")
    uses = {
        "time": lambda: sim.time, "dimension": lambda: sim.dimension,
        "time_step": lambda: sim.time_step, "scene_steps": lambda: sim.scene_steps,
        "steps_done": lambda: sim.steps_done, "kinetic_energy": lambda: sim.kinetic_energy,
        "potential_energy": lambda: sim.potential_energy, "solver": lambda: sim.solver,
        "q": lambda: sim.q, "v": lambda: sim.v, "step": sim.step, "run": lambda: sim.run(2),
        "last_step": sim.last_step, "contacts": sim.contacts,
        "set_solver": lambda: sim.set_solver("pgs"), "solver_config": sim.solver_config,
        "record": lambda: sim.record(os.path.join(d, "again.h5")),
        "record_close": sim.record_close, "set_force": lambda: sim.set_force(1, [1.0]),
        "get_force": lambda: sim.get_force(1), "body_pose": lambda: sim.body_pose(1),
        "set_kinematic_velocity": lambda: sim.set_kinematic_velocity(0, [1.0]),
        "body_index": lambda: sim.body_index("left"),
        "controller": lambda: setattr(sim, "controller", lambda s: None),
        "set q": lambda: setattr(sim, "q", [0.0, 0.0]),
    }
    for name, use in uses.items():
        try:
            use()
            check(False, "closed Sim: %s does not raise" % name)
        except lcpsim.Error as e:
            check("closed" in str(e), "closed Sim: %s raises %r" % (name, str(e)))
    with lcpsim.Sim.load("data/two_blocks.json") as sim:
        sim.step()
    try:
        sim.time
        check(False, "the with block left the Sim open")
    except lcpsim.Error:
        pass

# A Sim dropped with its controller installed is freed at once, as one without: the
# controller holds the Sim weakly (a closure over the Sim made a reference cycle, and the
# library's world, all its memory, waited for the cyclic collector). Counted with the
# collector off: the Sim object itself is gone when its last reference goes.
import weakref
gc.collect()
gc.disable()
try:
    sim = lcpsim.Sim.load("data/pile_10.json")
    sim.controller = lambda s: s.set_force(1, [0.0] * 6)
    sim.step()
    ref, hd_ref = weakref.ref(sim), weakref.ref(sim._hd)
    del sim
    check(ref() is None and hd_ref() is None,
          "a Sim with a controller outlives its last reference (freed only by the collector)")
finally:
    gc.enable()

# Arguments of the wrong kind are refused with a message, never converted with a loss: a
# body index that is not an integer (1.5 was body 1), complex arrays (the imaginary part was
# dropped with only a warning), a matrix for a force vector, a solver option beyond C's int
# (2**32 + 5 sweeps were 5), a name where an index goes, a float cone count (a ctypes
# ArgumentError); solver None is the library's default, as NULL is in C.
sim = lcpsim.Sim.load("data/box_stack_3d.json")
def raises(fn, kinds, words, what):
    try:
        fn()
        check(False, "%s: accepted" % what)
    except kinds as e:
        check(all(w in str(e) for w in words), "%s: message %r" % (what, str(e)))
    except Exception as e:
        check(False, "%s: %s %r" % (what, type(e).__name__, str(e)))


raises(lambda: sim.set_force(1.5, [0.0] * 6), TypeError, ["body", "1.5"], "body index 1.5")
raises(lambda: sim.get_force("1"), KeyError, ["'1'"], "body name '1'")
# An unknown name is named with the call and the bodies (it was KeyError: '1', the name
# alone), as an Error (INVALID_INPUT) that is still a KeyError.
for what, fn in (("get_force", lambda: sim.get_force("nope")),
                 ("body_pose", lambda: sim.body_pose("nope")),
                 ("set_force", lambda: sim.set_force("nope", [0.0] * 6)),
                 ("set_kinematic_velocity", lambda: sim.set_kinematic_velocity("nope", [0.0] * 6))):
    raises(fn, lcpsim.Error, [what, "no body named 'nope'", "bodies", "'ground'"],
           "%s of an unknown body name" % what)
    raises(fn, KeyError, ["nope"], "%s of an unknown body name, as a KeyError" % what)
raises(lambda: sim.body_index(3), TypeError, ["name", "3"], "body_index(3)")
raises(lambda: sim.set_force(1, np.zeros((2, 3))), (lcpsim.Error, ValueError), ["set_force", "vector"],
       "force as a 2 x 3 matrix")
raises(lambda: sim.set_force(1, np.zeros(6) + 1j), TypeError, ["complex"], "complex force")
raises(lambda: lcpsim.solve_lcp(np.eye(2) + 0j, [-1.0, -1.0]), TypeError, ["complex", "M"], "complex M")
# A masked array's masked entries were taken as their hidden values (the mask ignored);
# refused now, naming the argument and the count. Unmasked ones are their values.
mq = np.ma.masked_array([-1.0, 99.0], mask=[False, True])
raises(lambda: lcpsim.solve_lcp(np.eye(2), mq), TypeError, ["q:", "1 masked entries"], "masked q")
raises(lambda: sim.set_force(1, np.ma.masked_array(np.zeros(6), mask=[1, 0, 0, 0, 0, 0])), TypeError,
       ["masked"], "masked force")
z = lcpsim.solve_lcp(np.eye(2), np.ma.masked_array([-1.0, -2.0]))[0]
check(abs(z[0] - 1.0) <= 1e-15 and abs(z[1] - 2.0) <= 1e-15, "unmasked masked array q: %r" % (z,))
raises(lambda: lcpsim.solve_lcp(np.eye(2), [-1.0, -1.0], "pgs", max_iter=2 ** 32 + 5), ValueError,
       ["max_iter", str(2 ** 32 + 5)], "max_iter beyond int")
raises(lambda: lcpsim.solve_fc(np.eye(3), [-1.0, 0, 0], [0.5], "lemke", ndir=4.5), TypeError,
       ["ndir", "4.5"], "ndir 4.5")
check(sim.set_force(np.int64(1), [0.0] * 6) is None, "a numpy integer is an index")
# The state assigned whole: a scalar was broadcast to every coordinate (sim.q = 5 set the
# quaternions to (5, 5, 5, 5)), a wrong size gave numpy's message without the attribute;
# both are refused naming it and its shape, and so are NaN and a zero quaternion, the
# state untouched. A non-unit quaternion is the orientation u / |u|: body_pose and the
# kinetic energy read it so (body 1 of box_stack_3d at rest turned 90 degrees about z,
# written (2, 0, 0, 2): pose (1, 0, 0, 1) / sqrt 2 to round-off).
q0, v0 = sim.q.copy(), sim.v.copy()
nq, nv = sim.q.size, sim.v.size
for name, bad, kind, words in [
        ("q", 5, ValueError, ["q: needs %d numbers (shape (%d,))" % (nq, nq), "a scalar"]),
        ("q", [1.0, 2.0], ValueError, ["q: needs %d numbers" % nq, "got shape (2,)"]),
        ("q", np.zeros((nq, 1)), ValueError, ["q: needs", "got shape (%d, 1)" % nq]),
        ("q", "abc", TypeError, ["q: needs %d real numbers" % nq]),
        ("q", q0 + 1j, TypeError, ["q:", "complex"]),
        ("v", 0.0, ValueError, ["v: needs %d numbers (shape (%d,))" % (nv, nv), "a scalar"]),
        ("v", np.zeros(nv + 1), ValueError, ["v: needs %d numbers" % nv, "(%d,)" % (nv + 1)]),
        ("v", np.where(np.arange(nv) == 2, np.nan, 0.0), ValueError, ["v[2] is not finite"]),
        ("q", np.where(np.arange(nq) == 3, np.inf, q0), ValueError, ["q[3] is not finite"])]:
    raises(lambda: setattr(sim, name, bad), kind, words, "sim.%s = %r" % (name, bad))
    check(np.array_equal(sim.q, q0) and np.array_equal(sim.v, v0),
          "sim.%s = %r changed the state" % (name, bad))
b1 = sim.bodies[1]["q"]
zq = q0.copy()
zq[b1.start + 3:b1.stop] = 0.0
raises(lambda: setattr(sim, "q", zq), ValueError,
       ["q: body 1", "its quaternion q[%d .. %d] is zero" % (b1.start + 3, b1.stop - 1)],
       "zero quaternion")
check(np.array_equal(sim.q, q0), "a zero quaternion changed the state")
tq = q0.copy()
tq[b1.start + 3:b1.stop] = [2.0, 0.0, 0.0, 2.0]
sim.q = tq
check(np.array_equal(sim.q, tq), "sim.q = a valid state: not copied")
_, u = sim.body_pose(1)
check(np.allclose(u, [0.5 ** 0.5, 0, 0, 0.5 ** 0.5], rtol=0, atol=2e-16),
      "pose of the quaternion (2, 0, 0, 2): %r" % (u,))
sim.q = q0
# Writes through the views are checked as the setters are: sim.q[3] = nan or a quaternion
# zeroed element by element went through numpy into the state, refused only by the next
# step. Element, slice and fancy-index writes, in-place arithmetic (+=, np.add(..., out=))
# raise naming the coordinate and leave the state as it was, through a slice (a checked
# view too) as well; fill, copyto and reshaped views are read-only; valid writes land, also
# on a view that outlived its Sim.
qa = b1.start + 3  # body 1's quaternion w
for what, fn, kind, words in [
        ("sim.q[3] = nan", lambda: sim.q.__setitem__(3, np.nan), ValueError, ["q[3] is not finite"]),
        ("sim.v[2] = inf", lambda: sim.v.__setitem__(2, np.inf), ValueError, ["v[2] is not finite"]),
        ("sim.q[w..z] = 0", lambda: sim.q.__setitem__(slice(qa, qa + 4), 0.0), ValueError,
         ["q: body 1", "its quaternion q[%d .. %d] is zero" % (qa, qa + 3)]),
        ("sim.q[[0, 5]] = nan", lambda: sim.q.__setitem__([0, 5], [1.0, np.nan]), ValueError,
         ["q[5] is not finite"]),
        ("sim.q[mask] = nan", lambda: sim.q.__setitem__(np.arange(nq) == 4, np.nan), ValueError,
         ["q[4] is not finite"]),
        ("sim.q *= 0", lambda: sim.q.__imul__(0.0), ValueError, ["quaternion", "is zero"]),
        ("sim.v += nan", lambda: sim.v.__iadd__(np.nan), ValueError, ["v[0] is not finite"]),
        ("np.add(out=sim.q)", lambda: np.add(sim.q, np.inf, out=sim.q), ValueError,
         ["q[0] is not finite"]),
        ("sim.q[2:5][0] = nan", lambda: sim.q[2:5].__setitem__(0, np.nan), ValueError,
         ["q[2] is not finite"]),
        ("sim.q[qa - 3:qa + 4][3:] *= 0", lambda: sim.q[qa - 3:qa + 4][3:].__imul__(0.0), ValueError,
         ["q: body 1", "its quaternion q[%d .. %d] is zero" % (qa, qa + 3)]),
        ("sim.q.reshape(1, -1)[0, 0] = 1", lambda: sim.q.reshape(1, -1).__setitem__((0, 0), 1.0),
         ValueError, ["read-only"]),
        ("sim.q.fill(nan)", lambda: sim.q.fill(np.nan), ValueError, ["read-only"]),
        ("np.copyto(sim.v, nan)", lambda: np.copyto(sim.v, np.nan), ValueError, ["read-only"]),
        # ufunc.at writes in place and numpy before 1.25 skips the read-only check: these
        # wrote inf, NaN and a zero quaternion into the state unchecked
        ("np.add.at(sim.v, [0], inf)", lambda: np.add.at(sim.v, [0], np.inf), ValueError,
         ["v[0] is not finite"]),
        ("np.multiply.at(sim.v[2:5], [1], nan)", lambda: np.multiply.at(sim.v[2:5], [1], np.nan),
         ValueError, ["v[3] is not finite"]),
        ("np.multiply.at(sim.q, w..z, 0)", lambda: np.multiply.at(sim.q, np.arange(qa, qa + 4), 0.0),
         ValueError, ["q: body 1", "its quaternion q[%d .. %d] is zero" % (qa, qa + 3)]),
        ("np.add.at(sim.v.reshape(-1), [0], inf)",
         lambda: np.add.at(sim.v.reshape(-1), [0], np.inf), ValueError, ["read-only"])]:
    raises(fn, kind, words, what)
    check(np.array_equal(sim.q, q0) and np.array_equal(sim.v, v0), "%s changed the state" % what)
# The views' writeable flag cannot be set back to True (numpy allowed it on their writable
# memory, and sim.q.fill(0.0) then zeroed every quaternion, sim.q.put(3, nan) wrote a NaN,
# unchecked): refused on the view, its base, a slice, a reshape, then the writes that
# followed it refused as read-only, the state as it was.
for what, arr in (("sim.q", lambda: sim.q), ("sim.v", lambda: sim.v), ("sim.q.base", lambda: sim.q.base),
                  ("sim.q[2:9]", lambda: sim.q[2:9]), ("sim.v.reshape(-1, 1)", lambda: sim.v.reshape(-1, 1))):
    a = arr()
    raises(lambda: setattr(a.flags, "writeable", True), ValueError, ["WRITEABLE"],
           "%s.flags.writeable = True" % what)
    raises(lambda: a.fill(0.0), ValueError, ["read-only"], "%s.fill(0) after the flag" % what)
    raises(lambda: a.put(0, np.nan), ValueError, ["read-only"], "%s.put(0, nan) after the flag" % what)
    check(np.array_equal(sim.q, q0) and np.array_equal(sim.v, v0), "%s's flag changed the state" % what)
sim.q[qa:qa + 4] = [0.0, 0.0, 0.0, 3.0]  # one component at a time would pass through zero
check(sim.q[qa + 3] == 3.0 and sim.q[qa] == 0.0, "a valid slice write did not land")
sim.q[qa] = 1.0
sim.v[:] += 0.5
sim.v[2] -= 0.5
sim.v[1:4][1:] *= 2.0
np.add.at(sim.v, [5, 5], 0.25)  # a valid ufunc.at lands (twice on a repeated index)
check(sim.v[0] == v0[0] + 0.5 and sim.v[2] == 2.0 * v0[2] and sim.v[3] == 2.0 * (v0[3] + 0.5),
      "valid in-place writes did not land: %r" % sim.v[:4])
check(sim.v[5] == v0[5] + 1.0, "a valid np.add.at did not land: %r" % sim.v[5])
check(type(sim.q * 2) is np.ndarray and type(sim.q.copy()) is np.ndarray
      and type(sim.q[[1, 2]]) is np.ndarray and type(np.copy(sim.q)) is np.ndarray,
      "arithmetic, copies and fancy-indexed reads of a view are plain arrays")
check(repr(sim.q).startswith("array([") and repr(sim.v[:2]).startswith("array(["),
      "the views print as arrays: %r %r" % (sim.q, sim.v[:2]))
c = sim.q.copy()
c[0] = np.nan  # a copy is the caller's own
check(np.isnan(c[0]) and np.isfinite(sim.q[0]), "a copy of the view is not the state")
sim.q, sim.v = q0, v0
# A body of the wrong type is named as such, whatever the values' size: set_force on the
# static ground with 3 numbers said "needs 0 numbers, got 3" (its nv), set_kinematic_velocity
# on a dynamic box with 3 numbers "needs 6 numbers, got 3".
raises(lambda: sim.set_force(0, [1.0, 2.0, 3.0]), lcpsim.Error,
       ["set_force", "body 0 ('ground') is not a dynamic body"], "set_force on the static ground")
raises(lambda: sim.set_force("ground", []), lcpsim.Error,
       ["is not a dynamic body"], "set_force on the static ground, no values")
raises(lambda: sim.set_kinematic_velocity(1, [1.0, 2.0, 3.0]), lcpsim.Error,
       ["set_kinematic_velocity", "body 1 ('box_0_0_0') is not a kinematic body"],
       "set_kinematic_velocity on a dynamic box")
raises(lambda: sim.set_force(1, [1.0, 2.0, 3.0]), lcpsim.Error, ["needs 6 numbers, got 3"],
       "set_force on a dynamic box, short")
# An empty list of inputs is named as such (it said "compare: needs inputs, solvers and
# nrows", an argument of the C function a Python caller has no way to give).
raises(lambda: lcpsim.compare([], "lemke"), lcpsim.Error, ["compare: no inputs (0 given)"],
       "compare with no inputs")
with tempfile.TemporaryDirectory() as d:
    out = os.path.join(d, "cmp.h5")
    rows = lcpsim.compare("data/two_blocks.json", "lemke,pgs", output=out)
    # The solvers as a list of specs: the same rows (it ended in AttributeError 'encode').
    rows2 = lcpsim.compare("data/two_blocks.json", ["lemke", "pgs"], output=out)
    check([r["label"] for r in rows2] == [r["label"] for r in rows],
          "solvers as a list: %r" % ([r["label"] for r in rows2],))
    # Arguments of the wrong kind refused before anything runs: steps=2.7 compared 2
    # steps, independent="no" ran independent mode (a str's truth).
    for kw, words in ((dict(steps=2.7), ["compare: steps", "2.7"]),
                      (dict(independent="no"), ["compare: independent", "'no'"]),
                      (dict(), ["compare: solvers must be a str", "3"])):
        args = ("data/two_blocks.json", 3 if not kw else "lemke")
        raises(lambda: lcpsim.compare(*args, output=os.path.join(d, "bad.h5"), **kw), TypeError,
               words, "compare %r" % (kw,))
    check(not os.path.exists(os.path.join(d, "bad.h5")), "a refused comparison wrote its file")
    # Ctrl-C stops a comparison before its next problem: KeyboardInterrupt, and the file
    # written with the problems done, marked interrupted (the library's call went on to
    # its last problem, a minute here, hours in a campaign, and wrote the whole file).
    import signal
    import threading
    import time
    import h5py
    out = os.path.join(d, "cut.h5")
    threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
    t0 = time.perf_counter()
    try:
        lcpsim.compare("data/box_stack_3d.json", "pgs[sweeps=50],newton", steps=20000, output=out)
        check(False, "compare: Ctrl-C did not interrupt it (%.1f s)" % (time.perf_counter() - t0))
    except KeyboardInterrupt:
        pass
    # (20000 steps take about a minute here; the problem under way ends within ms)
    check(time.perf_counter() - t0 < 20.0, "compare: Ctrl-C took %.1f s" % (time.perf_counter() - t0))
    with h5py.File(out, "r") as f:
        end, why = f["summary/run_end"][()], f["summary/run_end_reason"][()].decode()
        problems = f["summary/problems"][()]
    check(end == b"interrupted" and why.startswith("SIGINT after step")
          and 0 < problems.max() < 20000, "compare after Ctrl-C: %r %r %r" % (end, why, problems))
# A negative step count is refused with the library's message, with or without a
# controller (run(-3) returned 0, as if it had run); run(0) takes no step.
done = sim.steps_done
raises(lambda: sim.run(-3), lcpsim.Error, ["run", "must be >= 0", "-3"], "run(-3)")
sim.controller = lambda s: False
raises(lambda: sim.run(-3), lcpsim.Error, ["run", "must be >= 0", "-3"], "run(-3) with a controller")
sim.controller = None
check(sim.run(0) == 0 and sim.steps_done == done, "run(0): %d steps, %d before" % (sim.steps_done, done))
# A string with a NUL inside is refused before the library, as Python's open() refuses it
# (C read it cut short: a record to "x.h5\0y" wrote x.h5; a body "a\0b" was "a").
nul_out = os.path.join(tempfile.mkdtemp(), "cut.h5")
raises(lambda: sim.record(nul_out + "\0.more"), ValueError, ["record", "null byte"], "record path with NUL")
check(not os.path.exists(nul_out), "a record path with NUL wrote %s" % nul_out)
raises(lambda: sim.save(nul_out + "\0"), ValueError, ["save", "null byte"], "save path with NUL")
# Copies are refused, naming what to do instead: copy.copy shared the library's handle
# (closing the copy closed the original's record and removed its controller), deepcopy and
# pickle failed in ctypes' words, leaving a half-made handle ("Exception ignored" at exit).
import copy
import pickle
for obj, name in ((sim, "Sim"), (lcpsim.World(2, 0.01), "World")):
    for fn in (copy.copy, copy.deepcopy, pickle.dumps):
        raises(lambda: fn(obj), TypeError, ["a %s cannot be copied or pickled" % name],
               "%s of a %s" % (fn.__name__, name))
# A record stride that is not an integer is refused before any file is made: 2.5 recorded
# every 2nd step, "x" left the record open (the next record() said "a record is already
# open") with int()'s message.
for bad in (2.5, "x"):
    raises(lambda: sim.record(nul_out, every=bad), TypeError, ["record: every", repr(bad)],
           "record every=%r" % (bad,))
    check(not os.path.exists(nul_out), "record every=%r made %s" % (bad, nul_out))
sim.record(nul_out, every=2)  # nothing left open by the refusals
sim.record_close(keep=False)
raises(lambda: sim.set_solver("pgs\0x"), ValueError, ["null byte"], "solver name with NUL")
# None for the solver of a Sim is refused in Python's words (it said "the name is NULL").
raises(lambda: sim.set_solver(None), TypeError, ["set_solver: the name must be a str", "None"],
       "set_solver(None)")
raises(lambda: sim.body_index("box\0"), ValueError, ["null byte"], "body_index name with NUL")
nul_w = lcpsim.World(2, 0.01)
raises(lambda: nul_w.add_body("a\0b", mass=1, inertia=1), ValueError, ["add_body", "null byte"],
       "body name with NUL")
raises(lambda: lcpsim.Sim.from_json(FREE + "\0garbage"), ValueError, ["from_json", "null byte"],
       "scene text with NUL")
z, rep = lcpsim.solve_lcp([[2.0, 1], [1, 2]], [-5.0, -6], None)
check(rep["status"] == 0 and np.allclose(z, [4 / 3, 7 / 3], atol=1e-12, rtol=0), "solver None: %r" % z)
r, rep = lcpsim.solve_fc(np.eye(3), [-1.0, 2, 0], [0.5], None, ndir=np.int32(0), tol=1e-12)
check(rep["status"] == 0 and np.allclose(r, [1, -0.5, 0], atol=1e-9, rtol=0), "fc solver None: %r" % r)
sim.close()

# A controller that closes its Sim: the step runs to its end and the Sim is closed after it
# (the world was freed in the middle of the library's step: a segmentation fault). Run in
# a child process, so that a crash is a failure reported here.
import subprocess
child = subprocess.run([sys.executable, "-c", """
import lcpsim
sim = lcpsim.Sim.from_json('{"lcpsim": 1, "time_step": 0.125, "steps": 8, "bodies": [{"name": "puck", "position": 0, "velocity": 0.5, "mass": 2}]}')
sim.controller = lambda s: s.close()
print(sim.step())
try:
    sim.time
    print("open")
except lcpsim.Error as e:
    print(e)
"""], capture_output=True, text=True)
check(child.returncode == 0 and child.stdout.split("\n")[:2] == ["0", "the simulation is closed"],
      "a controller closing its Sim: exit %d, %r %r" % (child.returncode, child.stdout, child.stderr[-300:]))

# Ctrl-C stops a long run() between calls into the library (one call of n steps kept it
# waiting for the whole run): a SIGINT sent while the run is under way (by the library's
# entry point itself, wrapped, after its second call) raises KeyboardInterrupt before the run's
# end, with the steps taken kept and the Sim usable. In a child process (a stray SIGINT).
child = subprocess.run([sys.executable, "-c", """
import os, signal
import lcpsim
sim = lcpsim.Sim.load("data/two_blocks.json")
real, calls = lcpsim._run, []
def run_and_interrupt(h, k):
    calls.append(k)
    rc = real(h, k)
    if len(calls) == 2:
        os.kill(os.getpid(), signal.SIGINT)
    return rc
lcpsim._run = run_and_interrupt
try:
    sim.run(100000)
    print("not interrupted", sim.steps_done)
except KeyboardInterrupt:
    print("interrupted", sim.steps_done == sum(calls) < 100000, sim.step())
"""], capture_output=True, text=True)
check(child.returncode == 0 and child.stdout.strip() == "interrupted True 0",
      "Ctrl-C during run(): exit %d, %r %r" % (child.returncode, child.stdout, child.stderr[-300:]))

# Poses and scene texts: body_pose as the C API's (a 2-D body turned by theta about z is the
# quaternion (cos theta/2, 0, 0, sin theta/2), to round-off); from_json takes bytes too.
tilt = lcpsim.Sim.from_json(b'{"lcpsim": 1, "dimension": 2, "time_step": 0.01, "steps": 1,'
                            b' "bodies": [{"name": "b", "mass": 1, "inertia": 1,'
                            b' "position": [1, 2], "orientation": 0.5}]}')
p, quat = tilt.body_pose("b")
check(np.array_equal(p, [1.0, 2.0, 0.0]) and
      np.allclose(quat, [np.cos(0.25), 0, 0, np.sin(0.25)], atol=1e-15, rtol=0),
      "body_pose: %r %r" % (p, quat))
raises(lambda: tilt.body_pose(3), lcpsim.Error, ["body_pose: no body 3"], "body_pose(3)")
raises(lambda: lcpsim.Sim.from_json(None), TypeError, ["str or bytes", "NoneType"], "from_json(None)")
tilt.close()

# A warm start that is not finite: solved from a cold start, the status says so.
z, rep = lcpsim.solve_lcp([[2.0, 1], [1, 2]], [-5.0, -6], "pgs", z0=[np.nan, 1.0])
check(rep["status"] == lcpsim.WARM_START_REJECTED and np.allclose(z, [4 / 3, 7 / 3], atol=1e-9, rtol=0),
      "NaN warm start: %r %r" % (z, rep))

# warm_start is a flag: True, False, 0 or 1; another value is refused, not taken by its
# truth (warm_start="no" warm started).
for bad in ("no", 2, None):
    try:
        lcpsim.solve_lcp(np.eye(2), [-1, -1], solver="pgs", warm_start=bad)
        check(False, "warm_start=%r accepted" % (bad,))
    except TypeError as e:
        check("warm_start must be True or False" in str(e), "warm_start=%r: %s" % (bad, e))
# tol and omega are real numbers, as max_iter is an integer: a string was read by float()
# (tol="1e-8" ran; b"1" ran at tol 1), None failed with float()'s own message.
for key, bad in (("tol", "1e-8"), ("tol", b"1"), ("omega", "1.2"), ("tol", None)):
    try:
        lcpsim.solve_lcp(np.eye(2), [-1, -1], solver="pgs", **{key: bad})
        check(False, "%s=%r accepted" % (key, bad))
    except TypeError as e:
        check("%s must be a real number" % key in str(e), "%s=%r: %s" % (key, bad, e))
for good in (True, False, 0, 1, np.bool_(True)):
    z, rep = lcpsim.solve_lcp(np.eye(2), [-1, -1], solver="pgs", warm_start=good)
    check(rep["status"] == lcpsim.SOLVED and np.allclose(z, [1, 1], atol=1e-10, rtol=0),
          "warm_start=%r: %r" % (good, z))

# A record the divergence guard stopped ends there, though the caller steps on: a 1-D body
# thrown up at 5 m/s under g = -9.81 (h = 0.1, semi-implicit Euler: x_k = 0.5 k - 0.0981
# k (k + 1) / 2) passes limits.max_position = 1 m at step 4 (1.019 m), is back inside at step
# 6 and leaves again at step 12. The record holds steps 0 .. 3, their times 0.1 apart, and
# says stopped at step 4; before, steps 6 .. 11 followed step 3 in it (time 0.3 then 0.6)
# under a summary saying stopped at step 12.
import h5py
with tempfile.TemporaryDirectory() as d:
    thrown = lcpsim.Sim.from_json('{"lcpsim": 1, "time_step": 0.1, "steps": 30, "gravity": -9.81,'
                                  ' "limits": {"max_position": 1},'
                                  ' "bodies": [{"name": "p", "velocity": 5, "mass": 1}]}')
    rec = os.path.join(d, "thrown.h5")
    thrown.record(rec)
    diverged = []
    for k in range(12):
        try:
            thrown.step()
        except lcpsim.Error as e:
            check(e.status == lcpsim.DIVERGED, "thrown: %s" % e)
            diverged.append(thrown.steps_done)
    check(diverged == [4, 5, 12], "thrown: diverged at steps %r" % diverged)
    thrown.record_close()
    thrown.close()
    with h5py.File(rec, "r") as f5:
        t = f5["time"][:]
        x = f5["q"][:, 0]
        xe = [0.5 * k - 0.0981 * k * (k + 1) / 2 for k in range(4)]
        check(len(t) == 4 and np.allclose(t, [0, 0.1, 0.2, 0.3], atol=1e-12, rtol=0)
              and np.allclose(x, xe, atol=1e-12, rtol=0), "thrown: record rows %r %r" % (t, x))
        check(f5["summary/run_end"][()] == b"stopped" and f5["summary/steps_done"][()] == 3
              and f5["summary/run_end_reason"][()].startswith(b"step 4:"),
              "thrown: summary %r %r" % (f5["summary/run_end_reason"][()], f5["summary/steps_done"][()]))

print("python binding: %s" % ("ok" if not fails else "%d failures" % len(fails)))
sys.exit(1 if fails else 0)
