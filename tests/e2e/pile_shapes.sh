#!/bin/sh
# Settling piles of every shape scripts/make_pile.py makes (sphere, box, capsule, mixed:
# 48 bodies, PGS at 50 sweeps, 3 s at h = 0.01 s, the mixed pile 5 s: it still rolls at 2 s,
# and since box-box contacts keep their ids whichever face is the reference, a capsule
# slides off it at 2.5-3.5 s with 0.6 J, at rest by 4.5 s): the run succeeds; total energy
# (kinetic + potential) never rises above the start (the bodies start apart and at rest;
# semi-implicit Euler loses m g^2 h^2 / 2 a step in flight and exact contact impulses only
# dissipate), and no step gains more than 1e-4 of the start (what the fixed sweep budget's
# inexact solve may add, relative residuals about 0.1 on boxes: measured at most 1.3e-7 on
# pile_100, 1.8e-5 on the 48 boxes here); the deepest penetration
# stays under 10 % of the size s = 0.1 m and under g h^2 + h^2 w^2 R / 2: one step's fall
# (1 mm: what the fixed sweep budget's unmet rows may let sink) plus how far a contact of a
# body turning at w can end a step inside when every feature within reach has its row
# (docs/scene-format.md, "Contact points"; w the run's fastest spin, R = 0.17 m the
# largest reach, a cube's half diagonal): 3.9 mm at the mixed pile's 18 rad/s, where a
# capsule end beside a box edge with no row sank 6.8 mm; no body's centre goes below its smallest
# half size above the ground less that depth (nothing tunnels); the pile comes to rest
# (kinetic energy at the end under 1e-3 of the largest during the fall).
set -e
PY=/usr/bin/python3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "pile_shapes: $*" >&2; exit 1; }

# Options that would write a scene lcpsim refuses (--size -1, --mu -1, --density 0), end in
# a traceback (--size 0, --time-step 0: ZeroDivisionError) or give a run other than the one
# asked for (--duration 0.015 at h = 0.01: 2 steps, 0.02 s, while the description says
# 0.015 s): refused, exit 2, the option named, no file written.
while read -r opt want; do
  rm -f "$out/bad.json"
  rc=0
  $PY scripts/make_pile.py 5 $opt -o "$out/bad.json" 2> "$out/err.txt" || rc=$?
  [ $rc -eq 2 ] || fail "make_pile.py 5 $opt: exit $rc, expected 2: $(cat "$out/err.txt")"
  grep -qF -- "$want" "$out/err.txt" || fail "make_pile.py 5 $opt: no '$want' in: $(cat "$out/err.txt")"
  [ ! -e "$out/bad.json" ] || fail "make_pile.py 5 $opt: wrote a scene"
done <<'EOF'
--size=0 --size: must be a finite number > 0, got 0.0
--size=-1 --size: must be a finite number > 0, got -1.0
--gap=-1 --gap: must be a finite number > 0
--mu=-1 --mu: must be a finite number >= 0
--mu=nan --mu: must be a finite number >= 0, got nan
--density=0 --density: must be a finite number > 0
--time-step=0 --time-step: must be a finite number > 0
--wall-height=0 --wall-height: must be a finite number > 0
--duration=0.015 --duration 0.015 is not a whole number (>= 1) of --time-step 0.01 (1.5 steps)
--sweeps=-1 --sweeps: must be >= 0
EOF
rc=0
$PY scripts/make_pile.py 0 -o "$out/bad.json" 2> /dev/null || rc=$?
[ $rc -eq 2 ] || fail "make_pile.py 0: exit $rc, expected 2"
[ ! -e "$out/bad.json" ] || fail "make_pile.py 0: wrote a scene"
# The example it made is still what it makes.
$PY scripts/make_pile.py 10 --shape box | cmp -s - data/pile_10.json || fail "pile_10.json differs"

for shape in sphere box capsule mixed; do
  duration=3
  [ $shape = mixed ] && duration=5
  $PY scripts/make_pile.py 48 --shape $shape --duration $duration -o "$out/$shape.json"
  ./lcpsim "$out/$shape.json" --quiet -o "$out/$shape.h5" || fail "$shape: the run failed"
  $PY - "$out/$shape.h5" $shape <<'EOT' || fail "$shape: see above"
import sys, h5py, numpy as np
name, shape = sys.argv[1], sys.argv[2]
with h5py.File(name, "r") as f:
    ke, pe = f["energy/kinetic"][()], f["energy/potential"][()]
    e = ke + pe
    dyn = [i for i, t in enumerate(f["bodies/type"][()]) if t == 0]
    assert len(dyn) == 48, len(dyn)
    qo = f["bodies/q_offset"][()]
    z = np.array([f["q"][:, qo[i] + 2] for i in dyn])
    pen = float(f["summary/max_penetration"][()])
    h = float(f["parameters/time_step"][()])
    vo = f["bodies/v_offset"][()]
    w = max(np.linalg.norm(f["v"][:, vo[i] + 3:vo[i] + 6], axis=1).max() for i in dyn)
    g = float(np.linalg.norm(f["parameters/gravity"][()]))
    bound = g * h * h + 0.5 * h * h * w * w * 0.1 * np.sqrt(3.0)
    # the smallest half size: capsules lie along x, radius s / 2
    low = 0.05 if shape in ("capsule", "mixed") else 0.1
    assert e.max() <= e[0], ("energy above the start", e.max() - e[0])
    assert np.diff(e).max() <= 1e-4 * e[0], ("energy gained in a step", np.diff(e).max())
    assert pen <= 0.01, ("penetration", pen)
    assert pen <= bound, ("penetration beyond a step's fall and spin", pen, bound, w)
    assert z.min() >= low - pen - 1e-12, ("below the ground", z.min())
    assert ke[-1] <= 1e-3 * ke.max(), ("not at rest", ke[-1], ke.max())
    print("pile_shapes: %-7s energy %.6g J -> %.6g J (largest step gain %.2g J), deepest "
          "penetration %.2g m (bound %.2g m), lowest centre %.4g m, kinetic energy at the end "
          "%.2g J (%.2g of its peak)" % (shape, e[0], e[-1], max(np.diff(e).max(), 0), pen,
                                         bound, z.min(), ke[-1], ke[-1] / ke.max()))
EOT
done
