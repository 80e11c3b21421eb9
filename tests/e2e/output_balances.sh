#!/bin/sh
# output_balances.sh: a reader with docs/output-format.md alone recomputes what the run
# files say of themselves, from h5py and numpy only (no lcpsim code): the 1-D contact ids'
# bodies, the impulse each row puts on its bodies (momentum and 2-D angular momentum
# balance over every step, tethers and pins included, with the other end of a pin found
# from the rows' gaps), the couplings' kinetic energy and an applied force from the scene
# text, the tethers' taut rule, /solver/lcp_size and ncontacts with joints and with a
# sleeping group, and /solver/siconos_error of Lemke and PGS.
set -eu
cd "$(dirname "$0")/../.."
PY=/usr/bin/python3
tmp=$(mktemp -d /tmp/lsim_e2e_balances_XXXXXX)
trap 'rm -rf "$tmp"' EXIT

run() { ./lcpsim "$@" --quiet || { echo "output_balances: lcpsim $* failed" >&2; exit 1; }; }
run data/two_blocks.json -o "$tmp/two_blocks.h5"
run data/cart_wall.json -o "$tmp/cart_wall.h5"
run data/coupled_carts.json -o "$tmp/coupled_carts.h5"
run data/brick_friction.json -o "$tmp/brick_friction.h5"
run data/tethered_bodies.json -o "$tmp/tethered_bodies.h5"
run data/double_pendulum.json --steps 500 -o "$tmp/double_pendulum.h5"
run data/incline_2d.json -o "$tmp/incline_lemke.h5"
run data/incline_2d.json --solver pgs -o "$tmp/incline_pgs.h5"
# The hanging box with sleep on: it falls asleep at rest, still hanging on its two ropes.
$PY -c "
import json, sys
d = json.load(open('data/hanging_box.json')); d['sleep'] = {'enabled': True}
json.dump(d, open(sys.argv[1], 'w'))" "$tmp/hanging_sleep.json"
run "$tmp/hanging_sleep.json" -o "$tmp/hanging_sleep.h5"
./lcpsim compare data/pile_10.json --solvers 'lemke,siconos:lemke' --steps 30 --trajectory \
  -o "$tmp/cmp.h5" --quiet || { echo "output_balances: lcpsim compare failed" >&2; exit 1; }
run data/pile_10.json --solver lemke --steps 30 -o "$tmp/pile_lemke.h5"
run data/pile_10.json --solver lemke --steps 30 --dump-lcp -o "$tmp/pile_dump.h5"
run data/chain_20.json --steps 150 --dump-lcp -o "$tmp/chain_dump.h5"
run data/brick_friction.json --dump-lcp -o "$tmp/brick_dump.h5"
run data/tethered_bodies.json --dump-lcp -o "$tmp/tethered_dump.h5"

$PY - "$tmp" <<'PYEOF'
import json, sys
import h5py
import numpy as np

d = sys.argv[1]
def F(name):
    return h5py.File(f"{d}/{name}.h5", "r")

def decode(ids):
    """docs/output-format.md, "Contact ids": (A, B, feature)."""
    ids = np.asarray(ids, dtype=np.uint64)
    a = (ids >> np.uint64(40)).astype(np.int64) - 1
    b = ((ids >> np.uint64(16)) & np.uint64(0xFFFFFF)).astype(np.int64) - 1
    return a, b, (ids & np.uint64(0xFFFF)).astype(np.int64)

# 1-D touching bodies: A is the right body (body_a, the normal +x into it), B the left
# one (body_b); against a wall, A the body and B the wall's body index.
for name in ("two_blocks", "cart_wall", "coupled_carts"):
    f = F(name); c = f["contacts"]
    k0 = c["kind"][:] == 0
    a, b, feat = decode(c["id"][:])
    assert np.array_equal(a[k0], c["body_a"][:][k0]) and np.array_equal(b[k0], c["body_b"][:][k0]), name
    assert np.all(feat[k0] == 0), name
    x = f["bodies/pose"][:, 0]
    q = f["q"][:]
    for r in np.flatnonzero(k0):
        ia, ib, k = c["body_a"][r], c["body_b"][r], c["step"][r]
        xa = q[k - 1, f["bodies/q_offset"][ia]]
        xb = q[k - 1, f["bodies/q_offset"][ib]] if f["bodies/nq"][ib] else x[ib]
        assert xa >= xb and c["normal"][r][0] == 1.0, (name, r, xa, xb)
print("1-D contact ids: A the right body (body_a), B the left one or the wall: ok")

# /bodies' 1-D fields: walls are the bodies of shape 1 (width 0); every other body has side
# -1, which means nothing there; 2-D / 3-D bodies have shape 0, side -1, width and
# ground_mu 0.
for name in ("two_blocks", "cart_wall", "coupled_carts", "tethered_bodies", "incline_lemke"):
    B = F(name)["bodies"]
    wall = B["shape"][:] == 1
    assert np.all(B["side"][:][~wall] == -1) and np.all(B["width"][:][wall] == 0), name
    if F(name)["parameters/dimension"][()] > 1:
        assert not wall.any() and np.all(B["width"][:] == 0) and np.all(B["ground_mu"][:] == 0), name
print("/bodies shape, side, width of walls and of 2-D bodies: ok")

def row_impulses(f):
    """Each row's impulse on body_a: normal_impulse * normal + friction_impulse."""
    c = f["contacts"]
    return c["normal_impulse"][:][:, None] * c["normal"][:] + c["friction_impulse"][:]

def momentum_residual(f, H=None, applied=None):
    """max over steps and bodies of |H dv - h m g - h F - sum of the rows' impulses|
    (body_a gets a row's impulse, body_b its opposite; 1-D: x components, a fixed-normal
    row's friction alone)."""
    dim = int(f["parameters/dimension"][()]); h = f["parameters/time_step"][()]
    g = f["parameters/gravity"][:]; v = f["v"][:]; N = len(v) - 1
    B = f["bodies"]; c = f["contacts"]; step = c["step"][:]
    nl = 1 if dim == 1 else dim
    imp = row_impulses(f)
    if dim == 1:
        imp = np.where((c["kind"][:] == 1)[:, None], c["friction_impulse"][:], imp)
    P = np.zeros((N, v.shape[1]))
    lin = []
    for i in range(len(B["mass"])):
        if B["type"][i] != 0:
            continue
        o = B["v_offset"][i]
        lin += list(range(o, o + nl))
        for side, sgn in ((c["body_a"][:] == i, 1.0), (c["body_b"][:] == i, -1.0)):
            np.add.at(P[:, o:o + nl], step[side] - 1, sgn * imp[side, :nl])
        P[:, o:o + nl] += h * B["mass"][i] * g[:nl]
        if applied is not None:
            P[:, o] += h * applied(f["time"][:-1])
    dv = v[1:] - v[:-1]
    mass = np.zeros(v.shape[1])
    for i in range(len(B["mass"])):
        if B["type"][i] == 0:
            mass[B["v_offset"][i]:B["v_offset"][i] + nl] = B["mass"][i]
    Hdv = dv @ H if H is not None else dv * mass
    return float(np.max(np.abs(Hdv[:, lin] - P[:, lin])))

def other_end(f):
    """Each row's point on body_b: contacts share their point; a tether's and a rod's
    impulse lies along their line (any point on it will do); a pin's other end is the
    point minus the sum over the pin's rows of gap * normal."""
    c = f["contacts"]; pb = c["point"][:].copy()
    if "joints" not in f:
        return pb
    kind, step, gap, nrm = c["kind"][:], c["step"][:], c["gap"][:], c["normal"][:]
    _, src, _ = decode(c["id"][:])
    err = {}
    for r in np.flatnonzero(kind == 3):
        err[(step[r], src[r])] = err.get((step[r], src[r]), 0.0) + gap[r] * nrm[r]
    for r in np.flatnonzero(kind == 3):
        if f["joints/type"][src[r]] == b"pin":
            pb[r] = pb[r] - err[(step[r], src[r])]
    return pb

def angular_residual_2d(f):
    """max |I (omega_k - omega_{k-1}) - sum (p - x_{k-1}) x impulse|, p the row's point
    on the body."""
    B = f["bodies"]; q = f["q"][:]; v = f["v"][:]; N = len(q) - 1
    c = f["contacts"]; step = c["step"][:]; imp = row_impulses(f)
    pa, pb = c["point"][:], other_end(f)
    worst = 0.0
    for i in range(len(B["mass"])):
        if B["type"][i] != 0:
            continue
        o, vo = B["q_offset"][i], B["v_offset"][i]
        L = np.zeros(N)
        for side, pts, sgn in ((c["body_a"][:] == i, pa, 1.0), (c["body_b"][:] == i, pb, -1.0)):
            r = pts[side, :2] - q[step[side] - 1, o:o + 2]
            np.add.at(L, step[side] - 1, sgn * (r[:, 0] * imp[side, 1] - r[:, 1] * imp[side, 0]))
        worst = max(worst, float(np.max(np.abs(B["inertia"][i, 2, 2] * (v[1:, vo + 2] - v[:-1, vo + 2]) - L))))
    return worst

# Momentum: every step's change is gravity's and the rows' impulses, to round-off of the
# impulses (1e-15 N*s against impulses up to 1 N*s).
for name in ("two_blocks", "cart_wall", "tethered_bodies", "double_pendulum", "incline_lemke"):
    res = momentum_residual(F(name))
    assert res < 1e-14, (name, res)
# 2-D angular momentum, tethers (tethered_bodies: ropes between points off the centres)
# and pins (double_pendulum: the other end from the rows' gaps) included; round-off of
# torques of 1 N*s * 1 m.
for name in ("tethered_bodies", "double_pendulum", "incline_lemke"):
    res = angular_residual_2d(F(name))
    assert res < 1e-14, (name, res)
# A tether's normal points from body_a's end toward body_b's (the pull on body_a).
f = F("tethered_bodies"); c = f["contacts"]
t = c["kind"][:] == 2
assert np.all(c["normal_impulse"][:][t] >= 0)
print("momentum and 2-D angular momentum from the rows' impulses: ok")

# Couplings (1-D): kinetic energy 1/2 v' H v and momentum H dv, H = diag(m) + k (e_A -
# e_B)(e_A - e_B)' from the scene text's "couplings".
f = F("coupled_carts")
scene = json.loads(f["scene_text"][()].decode())
names = [n.decode() for n in f["bodies/name"][:]]
H = np.diag([f["bodies/mass"][i] for i in range(len(names)) if f["bodies/type"][i] == 0])
for cp in scene["couplings"]:
    e = np.zeros(len(H))
    e[f["bodies/v_offset"][names.index(cp["bodies"][0])]] = 1.0
    e[f["bodies/v_offset"][names.index(cp["bodies"][1])]] = -1.0
    H += cp["inertia"] * np.outer(e, e)
v = f["v"][:]
ke = 0.5 * np.einsum("ki,ij,kj->k", v, H, v)
assert np.max(np.abs(ke - f["energy/kinetic"][:])) < 1e-14 * max(1.0, ke.max())
res = momentum_residual(f, H=H)
assert res < 1e-14, res
# An applied force (1-D "force" table, linear between rows) acts over a step at its value
# at the step's start.
f = F("brick_friction")
table = np.array(json.loads(f["scene_text"][()].decode())["bodies"][0]["force"]["table"])
res = momentum_residual(f, applied=lambda t: np.interp(t, table[:, 0], table[:, 1]))
assert res < 1e-14, res
print("couplings' kinetic energy and momentum, an applied force: ok")

# /tethers/taut: 1 when the step's impulse > 0 or the length after it is at least
# length_max - 1e-9 m; tethered_bodies has slack-free steps of zero impulse whose rope is
# beyond its length (the doubled rope: link_b carries the load, link_a stretched taut).
T = F("tethered_bodies")["tethers"]
imp, L, Lm, taut = T["impulse"][:], T["length"][1:], T["length_max"][:], T["taut"][:]
assert np.array_equal(taut.astype(bool), (imp > 0) | (L >= Lm - 1e-9))
assert np.any((imp == 0) & (L > Lm + 1e-9) & (taut == 1))
print("tethers' taut rule: ok")

# Joints are eliminated before the LCP: the double pendulum has no LCP (lcp_size 0) but
# its 4 pin rows in every step, as ncontacts says. A sleeping group: the step's rows in
# /contacts (the resting ropes) are the ones ncontacts counts.
f = F("double_pendulum")
assert np.all(f["solver/lcp_size"][:] == 0) and np.all(f["solver/ncontacts"][:] == 4)
for name in ("double_pendulum", "hanging_sleep", "tethered_bodies"):
    f = F(name)
    assert np.array_equal(np.diff(f["contacts/offset"][:])[1:], f["solver/ncontacts"][:]), name
f = F("hanging_sleep")
assert np.any(f["solver/sleeping"][:] == 1) and f["summary/total_contacts"][()] == f["solver/ncontacts"][:].sum()
print("lcp_size with joints, ncontacts with a sleeping group: ok")

# /solver/siconos_error: Siconos' error of the step's solution whatever solver made it,
# on the dense M formed for the solve; -1 where none was (PGS on the factored form).
e = F("incline_lemke")["solver/siconos_error"][:]
assert np.all(e >= 0) and np.any(e > 0) and np.all(e < 1e-10), (e.min(), e.max())
assert np.all(F("incline_pgs")["solver/siconos_error"][:] == -1.0)
print("siconos_error of Lemke and PGS steps: ok")

# /lcp: a problem's variables follow the step's /contacts rows (joint rows left out): a
# row's normal variable, then its cone's directions and lambda; a fixed-normal row its
# cone alone; a tether row one variable. The solution at a row's normal variable is the
# row's normal impulse, and the variables are used up exactly.
for name in ("pile_dump", "chain_dump", "brick_dump", "tethered_dump"):
    f = F(name); g = f["lcp"]; c = f["contacts"]; off = c["offset"][:]
    kinds = set()
    assert len(g["n"]) > 0, name
    for p in range(len(g["n"])):
        k, n, o = g["step"][p], g["n"][p], g["offset"][p]
        z = g["z"][o:o + n, 0]
        co, nc = g["cone_offset"][p], g["ncones"][p]
        cn, fd, nd, lam = (g[x][co:co + nc] for x in ("cone_normal", "cone_first_dir", "cone_ndir", "cone_lambda"))
        rows = slice(off[k], off[k + 1])
        kind, ni = c["kind"][rows], c["normal_impulse"][rows]
        var, cone = 0, 0
        for r in range(len(kind)):
            kinds.add(int(kind[r]))
            if kind[r] == 3:
                continue
            if kind[r] == 1:
                assert cn[cone] == -1 and fd[cone] == var, (name, k, r)
                var, cone = lam[cone] + 1, cone + 1
                continue
            assert z[var] == ni[r], (name, k, r, z[var], ni[r])
            if cone < nc and cn[cone] == var:
                assert fd[cone] == var + 1 and lam[cone] == var + 1 + nd[cone], (name, k, r)
                var, cone = lam[cone] + 1, cone + 1
            else:
                var += 1
        assert var == n and cone == nc, (name, k, var, n, cone, nc)
    assert kinds == {"pile_dump": {0}, "chain_dump": {0, 3}, "brick_dump": {1},
                     "tethered_dump": {2}}[name], (name, kinds)
print("/lcp variables in the order of the step's contact rows: ok")

# A comparison's /trajectory is the reference's run made alone, dataset for dataset, bit
# for bit, siconos_error included (with a Siconos solver in the list, which sets the BLAS
# to one thread, it had differed in its last digits from the run alone, whose Lemke
# computed it with OpenBLAS's threads: steps 15 and 21 of 30), but for wall times, the
# on_failure policy (a comparison runs each solver without the fallback chain: continue)
# and /resume with /flushed_rows (a comparison keeps no stepper memory: it is not resumed).
g = F("pile_lemke")
with h5py.File(f"{d}/cmp.h5", "r") as c:
    names = []
    g.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
    for n in names:
        if "wall_time" in n or n.startswith("resume/") or n in ("parameters/solver_on_failure",
                                                                "flushed_rows"):
            continue
        a, b = c["trajectory/" + n][()], g[n][()]
        assert np.asarray(a).tobytes() == np.asarray(b).tobytes(), n
print(f"compare --trajectory: {len(names)} datasets as the run alone: ok")

# The divergence figure of scripts/lcpsim_compare.py labels its axis with what q holds:
# 3-D orientations are quaternion components, not angles in rad.
sys.path.insert(0, "scripts")
import lcpsim_compare
assert lcpsim_compare.divergence_unit(1) == "m"
assert lcpsim_compare.divergence_unit(2) == "m or rad"
assert "rad" not in lcpsim_compare.divergence_unit(3) and "quaternion" in lcpsim_compare.divergence_unit(3)
print("compare divergence axis unit: ok")
PYEOF
echo "output_balances: ok"
