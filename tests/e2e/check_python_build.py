"""Worlds built in Python (lcpsim.World) against the same scenes read from JSON: the same
trajectory bit for bit (q and v compared with ==, no tolerance: the two paths must build
the same model, and the step is deterministic) over 300 steps in 1-D, 2-D and 3-D, with
friction, restitution, a pin joint, a tether and a kinematic body; and bad definitions
refused with the library's message naming the field, the world going on afterwards."""
import json

import numpy as np

import lcpsim

STEPS = 300


def same_run(built, scene, label):
    """Steps both STEPS times on the same solver; every step's q and v must be equal."""
    loaded = lcpsim.Sim.from_json(json.dumps(scene), label + ".json")
    assert built.q.size == loaded.q.size and built.v.size == loaded.v.size, label
    assert [b["name"] for b in built.bodies] == [b["name"] for b in loaded.bodies], label
    for s in (built, loaded):
        s.set_solver("lemke", tol=1e-10)
    assert np.array_equal(built.q, loaded.q) and np.array_equal(built.v, loaded.v), \
        "%s: initial states differ: %s vs %s" % (label, built.q, loaded.q)
    contacts = 0
    for k in range(STEPS):
        assert built.step() == loaded.step(), "%s: step %d: statuses differ" % (label, k)
        contacts += len(built.contacts())
        if not (np.array_equal(built.q, loaded.q) and np.array_equal(built.v, loaded.v)):
            raise AssertionError("%s: step %d: q %s vs %s, v %s vs %s"
                                 % (label, k + 1, built.q, loaded.q, built.v, loaded.v))
    # Something happened: contacts were met and the state moved.
    assert contacts > 0, "%s: no contact in %d steps" % (label, STEPS)
    print("built in Python = scene from JSON, bit for bit: %s, %d steps, %d contacts"
          % (label, STEPS, contacts))


def world_2d():
    w = lcpsim.World(2, 0.01)
    w.set_gravity([0, -9.81])
    ground = w.add_body("ground", type="static")
    w.add_shape(ground, "plane", mu=0.6)
    box = w.add_body("box", mass=2.0, inertia=0.4, position=[0, 0.3], angle=0.1,
                     velocity=[1.0, 0.0, 0.5])
    w.add_shape(box, "box", half=[0.4, 0.2], mu=0.6)
    disk = w.add_body("disk", mass=1.0, inertia=0.02, position=[2, 1], velocity=[1.5, 0, 0],
                      restitution=0.5)
    w.add_shape(disk, "sphere", radius=0.2, mu=0.3)
    bob = w.add_body("bob", mass=0.5, inertia=0.01, position=[-2, 1], velocity=[1, 0, 0])
    w.add_shape(bob, lcpsim.SPHERE, radius=0.1)
    w.add_joint("pin", bob, [0, 0.5], other=-1, other_point=[-2, 1.5], name="hinge")
    w.add_joint("tether", disk, [0, 0], other=box, other_point=[0, 0], length=2.5,
                name="leash")
    pusher = w.add_body("pusher", type="kinematic", position=[4, 0.3], velocity=[-1, 0, 0])
    w.add_shape(pusher, "box", half=[0.1, 0.1], mu=0.2)
    scene = {
        "lcpsim": 1, "dimension": 2, "time_step": 0.01, "steps": STEPS, "gravity": [0, -9.81],
        "bodies": [
            {"name": "ground", "type": "static", "shapes": [{"type": "plane", "mu": 0.6}]},
            {"name": "box", "mass": 2.0, "inertia": 0.4, "position": [0, 0.3],
             "orientation": 0.1, "velocity": [1.0, 0.0], "angular_velocity": 0.5,
             "shapes": [{"type": "box", "half_extents": [0.4, 0.2], "mu": 0.6}]},
            {"name": "disk", "mass": 1.0, "inertia": 0.02, "position": [2, 1],
             "velocity": [1.5, 0], "restitution": 0.5,
             "shapes": [{"type": "sphere", "radius": 0.2, "mu": 0.3}]},
            {"name": "bob", "mass": 0.5, "inertia": 0.01, "position": [-2, 1],
             "velocity": [1, 0], "shapes": [{"type": "sphere", "radius": 0.1}]},
            {"name": "pusher", "type": "kinematic", "position": [4, 0.3], "velocity": [-1, 0],
             "shapes": [{"type": "box", "half_extents": [0.1, 0.1], "mu": 0.2}]}],
        "joints": [{"name": "hinge", "type": "pin",
                    "ends": [{"body": "bob", "point": [0, 0.5]}, {"world": [-2, 1.5]}]}],
        "tethers": [{"name": "leash", "length": 2.5,
                     "ends": [{"body": "disk", "point": [0, 0]},
                              {"body": "box", "point": [0, 0]}]}]}
    return w, scene


def world_3d():
    w = lcpsim.World(3, 0.01)
    w.set_gravity([0, 0, -9.81])
    w.set_contact(margin=0.01)
    ground = w.add_body("ground", type="static")
    w.add_shape(ground, "plane", mu=0.4)
    box = w.add_body("box", mass=1.0, inertia=[1 / 6, 1 / 6, 1 / 6], position=[0, 0, 0.5],
                     velocity=[2, 0, 0, 0, 0, 0])
    w.add_shape(box, "box", half=[0.5, 0.5, 0.5], mu=0.4)
    ball = w.add_body("ball", mass=2.0, inertia=[0.08, 0.08, 0.08], position=[3, 0.2, 1.0],
                      quaternion=[0.6, 0, 0, 0.8], velocity=[-1, 0, 0, 0, 3, 0],
                      restitution=0.3)
    w.add_shape(ball, "sphere", radius=0.5, mu=0.4)
    scene = {
        "lcpsim": 1, "dimension": 3, "time_step": 0.01, "steps": STEPS,
        "gravity": [0, 0, -9.81], "contact": {"margin": 0.01},
        "bodies": [
            {"name": "ground", "type": "static", "shapes": [{"type": "plane", "mu": 0.4}]},
            {"name": "box", "mass": 1.0, "inertia": [1 / 6, 1 / 6, 1 / 6],
             "position": [0, 0, 0.5], "velocity": [2, 0, 0],
             "shapes": [{"type": "box", "half_extents": [0.5, 0.5, 0.5], "mu": 0.4}]},
            {"name": "ball", "mass": 2.0, "inertia": [0.08, 0.08, 0.08],
             "position": [3, 0.2, 1.0], "orientation": [0.6, 0, 0, 0.8],
             "velocity": [-1, 0, 0], "angular_velocity": [0, 3, 0], "restitution": 0.3,
             "shapes": [{"type": "sphere", "radius": 0.5, "mu": 0.4}]}]}
    return w, scene


def world_1d():
    w = lcpsim.World(1, 0.01)
    w.set_gravity([-9.81])
    w.add_body("A", mass=1.0, position=0.5, velocity=-2.0, width=0.2, ground_mu=0.1,
               restitution=0.8)
    w.add_body("B", mass=3.0, position=3.0, velocity=-1.0, width=0.2, ground_mu=0.2)
    w.add_body("wall", type="static", position=0.0, side=-1)
    scene = {
        "lcpsim": 1, "dimension": 1, "time_step": 0.01, "steps": STEPS, "gravity": -9.81,
        "bodies": [
            {"name": "A", "mass": 1.0, "position": 0.5, "velocity": -2.0, "width": 0.2,
             "ground_mu": 0.1, "restitution": 0.8},
            {"name": "B", "mass": 3.0, "position": 3.0, "velocity": -1.0, "width": 0.2,
             "ground_mu": 0.2}],
        "walls": [{"name": "wall", "position": 0.0, "side": "left"}]}
    return w, scene


def refused(fn, kind, *words):
    """fn() raises kind with a message holding every word."""
    try:
        fn()
    except kind as e:
        msg = str(e)
        for wd in words:
            assert wd in msg, "message %r lacks %r" % (msg, wd)
        return msg
    raise AssertionError("not refused: expected %s with %s" % (kind.__name__, words))


def bad_input():
    w = lcpsim.World(2, 0.01)
    E = lcpsim.Error
    refused(lambda: lcpsim.World(4, 0.01), E)
    refused(lambda: lcpsim.World(2.0, 0.01), TypeError, "dimension")
    refused(lambda: lcpsim.World(2, -0.01), E)
    refused(lambda: w.add_body("m", mass=-1), E, "'m'", "mass must be > 0")
    # a subnormal mass is refused as a scene's is (accepted before, the first step diverged)
    refused(lambda: w.add_body("m", mass=1e-320), E, "'m'", "mass must be > 0", "smallest normal number")
    refused(lambda: w.add_body("p", position=[0, 0, 0]), E, "position", "needs 2 numbers, got 3")
    refused(lambda: w.add_body("v", velocity=[1, 0]), E, "velocity", "needs 3 numbers")
    refused(lambda: w.add_body("q", quaternion=[1, 0, 0, 0]), E, "quaternion",
            "3-D worlds only")
    refused(lambda: w.add_body("g", ground_mu=0.5), E, "ground_mu", "1-D worlds only")
    refused(lambda: w.add_body("n", position=[float("nan"), 0]), E, "'n'", "position", "not finite")
    # the body and the value named (said "add_body 0: a value is not finite")
    refused(lambda: w.add_body("nm", mass=float("nan")), E, "'nm'", "mass has a value that is not finite")
    refused(lambda: w.add_body("ni", inertia=float("inf")), E, "'ni'", "inertia has a value")
    refused(lambda: w.add_body("t", type="floating"), E, "unknown type 'floating'")
    refused(lambda: w.add_body("s", mass="heavy"), TypeError, "mass")
    refused(lambda: w.add_body("z", position="ab"), TypeError, "position", "real numbers")
    refused(lambda: w.add_body("c", velocity=[1j, 0, 0]), TypeError, "velocity")
    refused(lambda: w.add_body("r", restitution=1.5), E, "restitution must be in [0, 1]")
    a = w.add_body("a", position=[0, 2])
    refused(lambda: w.add_body("a"), E, "the name 'a' is already used")
    refused(lambda: w.add_shape(a, "plane"), E, "planes go on static bodies only")
    refused(lambda: w.add_shape(a, "sphere", radius=0), E, "radius must be > 0")
    refused(lambda: w.add_shape(a, "box", half=[1, 1, 1]), E, "half", "needs 2 numbers")
    refused(lambda: w.add_joint("rod", a, [0, 0], length=0), E, "length must be > 0")
    refused(lambda: w.add_joint("hinge", a, [0, 0]), E, "unknown type 'hinge'")
    refused(lambda: w.add_joint("pin", a, [0, 0], collide=0), TypeError, "collide")
    refused(lambda: w.add_joint("tether", a, [0, 0], length=1, collide=False), E,
            "no_collide applies to pins and rods")
    refused(lambda: w.set_contact(margin=-1), E, "margin must be finite and >= 0")
    refused(lambda: w.set_contact(allow_initial_overlap=1), TypeError, "allow_initial_overlap")
    refused(lambda: w.set_gravity([0, -9.81, 0]), E, "set_gravity", "needs 2 numbers")
    # Two disks overlapping by 0.5 m: start() refuses, naming the pair; the world goes on.
    w.add_shape(a, "sphere", radius=0.5)
    b = w.add_body("b", position=[0.5, 2])
    w.add_shape(b, "sphere", radius=0.5)
    refused(w.start, E, "overlap")
    w.set_contact(allow_initial_overlap=True)
    sim = w.start()
    assert sim.q.size == 6 and sim.bodies[1]["name"] == "b"
    refused(lambda: w.add_body("late"), E, "the world is started")
    print("World: bad definitions refused with the field named; a failed start() goes on")
    # The same two disks pinned at their midpoint with collide=False: start() accepts the
    # overlap and a step has the pin's two rows alone (no contact between the disks).
    w = lcpsim.World(2, 0.01)
    a = w.add_body("a", position=[0, 2])
    w.add_shape(a, "sphere", radius=0.5)
    b = w.add_body("b", position=[0.5, 2])
    w.add_shape(b, "sphere", radius=0.5)
    w.add_joint("pin", a, [0.25, 0], other=b, other_point=[-0.25, 0], collide=False)
    sim = w.start()
    sim.step()
    kinds = [c["kind"] for c in sim.contacts()]
    assert kinds == [3, 3], kinds
    # numpy's False is False (it was refused: "collide must be True or False, got False");
    # an integer stays refused
    w = lcpsim.World(2, 0.01)
    a = w.add_body("a", position=[0, 2])
    w.add_shape(a, "sphere", radius=0.5)
    b = w.add_body("b", position=[0.5, 2])
    w.add_shape(b, "sphere", radius=0.5)
    w.add_joint("pin", a, [0.25, 0], other=b, other_point=[-0.25, 0], collide=np.False_)
    sim = w.start()
    sim.step()
    kinds = [c["kind"] for c in sim.contacts()]
    assert kinds == [3, 3], kinds
    print("World: collide=False on a pin drops the pinned pair's contacts")


for make, label in ((world_2d, "2-D"), (world_3d, "3-D"), (world_1d, "1-D")):
    w, scene = make()
    same_run(w.start(), scene, label)
bad_input()
print("python build: ok")
