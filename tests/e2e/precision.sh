#!/bin/sh
# PGS's sweep arithmetic as a solver setting (docs/solvers.md, "Single-precision
# arithmetic"): the scene key solver.precision, LSIM_PGS_PRECISION.
# - pile_100 (pgs, tol 0, 50 sweeps), 30 steps in double, with the key "float" and with
#   LSIM_PGS_PRECISION=float: /parameters/solver_precision says "double", "float",
#   "float"; single precision gives other bits than double, the key's run and the
#   environment's are the same run bit for bit; every step's relative residual within
#   1e-3 of double's relatively plus 1e-6 (float rounding is about 6e-8 of the problem's
#   scale an operation: the floor the float rows already have, docs/solvers.md; the steps
#   here leave 0 to 4e-4);
# - the same with --threads 2 in the scene: the key's and the environment's runs equal;
# - a resume under another setting is refused (exit 2), naming it and what to set; under
#   the run's it is the straight run, bit for bit;
# - a bad LSIM_PGS_PRECISION is refused (exit 2);
# - compare's pgs[precision=float]: the environment's series bit for bit, /series/precision.
set -eu
cd "$(dirname "$0")/../.."
PY=/usr/bin/python3
L=./lcpsim
out=$(mktemp -d /tmp/lsim_e2e_precision_XXXXXX)
trap 'rm -rf "$out"' EXIT
fail() { echo "precision: $*" >&2; exit 1; }
unset LSIM_PGS_PRECISION || true

$PY - "$out" <<'PYEOF'
import json, sys
s = json.load(open("data/pile_100.json"))
json.dump(s, open(sys.argv[1] + "/d.json", "w"), indent=1)
s["solver"]["precision"] = "float"
json.dump(s, open(sys.argv[1] + "/f.json", "w"), indent=1)
s["solver"]["threads"] = 2
json.dump(s, open(sys.argv[1] + "/f2.json", "w"), indent=1)
del s["solver"]["precision"]
json.dump(s, open(sys.argv[1] + "/d2.json", "w"), indent=1)
PYEOF
$L "$out/d.json" --steps 30 -o "$out/d.h5" --quiet || fail "double: exit $?"
$L "$out/f.json" --steps 30 -o "$out/f.h5" --quiet || fail "key: exit $?"
LSIM_PGS_PRECISION=float $L "$out/d.json" --steps 30 -o "$out/e.h5" --quiet || fail "env: exit $?"
$L "$out/f2.json" --steps 30 -o "$out/f2.h5" --quiet || fail "key, 2 threads: exit $?"
LSIM_PGS_PRECISION=float $L "$out/d2.json" --steps 30 -o "$out/e2.h5" --quiet || fail "env, 2 threads: exit $?"
$PY - "$out" <<'PYEOF' || fail "pile_100 in double and single precision"
import sys, h5py
import numpy as np
t = sys.argv[1]
f = {k: h5py.File(f"{t}/{k}.h5", "r") for k in ("d", "f", "e", "f2", "e2")}
def word(k):
    w = f[k]["parameters/solver_precision"][()]
    return w.decode() if isinstance(w, bytes) else str(w)
for k, want in (("d", "double"), ("f", "float"), ("e", "float"), ("f2", "float"), ("e2", "float")):
    assert word(k) == want, (k, word(k))
assert not np.array_equal(f["d"]["v"][:], f["f"]["v"][:]), "the key changed nothing"
for a, b in (("f", "e"), ("f2", "e2")):
    for d in ("q", "v", "solver/residual", "solver/relative_residual"):
        assert np.array_equal(f[a][d][:], f[b][d][:]), (a, b, d)
rd, rf = f["d"]["solver/relative_residual"][:], f["f"]["solver/relative_residual"][:]
assert (np.abs(rf - rd) <= 1e-3 * rd + 1e-6).all(), np.abs(rf - rd).max()
PYEOF

# Resume: a run of the scene without the key under LSIM_PGS_PRECISION=float; resumed in
# double it is refused, under the run's setting it is the straight run, bit for bit.
LSIM_PGS_PRECISION=float $L "$out/d.json" --steps 15 -o "$out/half.h5" --quiet || fail "half: exit $?"
set +e
$L "$out/d.json" --steps 30 --resume "$out/half.h5" -o "$out/r1.h5" --quiet 2> "$out/err"
rc=$?
set -e
[ $rc -eq 2 ] || fail "resume in double: exit $rc"
grep -q "its pgs setting precision is float, this run's double" "$out/err" || fail "resume message: $(cat "$out/err")"
grep -q "LSIM_PGS_PRECISION=float" "$out/err" || fail "resume message names no setting: $(cat "$out/err")"
LSIM_PGS_PRECISION=float $L "$out/d.json" --steps 30 --resume "$out/half.h5" -o "$out/r2.h5" --quiet ||
  fail "resume: exit $?"
$PY - "$out" <<'PYEOF' || fail "the resumed run is not the straight one"
import sys, h5py
import numpy as np
t = sys.argv[1]
a, b = h5py.File(f"{t}/r2.h5", "r"), h5py.File(f"{t}/e.h5", "r")
for d in ("q", "v"):
    assert np.array_equal(a[d][:], b[d][:]), d
PYEOF

set +e
LSIM_PGS_PRECISION=single $L "$out/d.json" --steps 1 -o "$out/x.h5" --quiet 2> "$out/err"
rc=$?
set -e
[ $rc -eq 2 ] || fail "LSIM_PGS_PRECISION=single: exit $rc"
grep -q "expected double or float" "$out/err" || fail "env message: $(cat "$out/err")"
# compare: pgs[precision=float] as a series (lemke first, the driver: the same problems in
# every file). Its series are LSIM_PGS_PRECISION=float's pgs[sweeps=50] bit for bit and not
# double's; /series/precision says each series' setting in effect ("" for lemke);
# precision=double wins over the environment's float.
$L compare data/pile_100.json --steps 12 --quiet -o "$out/c1.h5" \
  --solvers 'lemke,pgs[sweeps=50],pgs[sweeps=50,precision=float]' || fail "compare: exit $?"
LSIM_PGS_PRECISION=float $L compare data/pile_100.json --steps 12 --quiet -o "$out/c2.h5" \
  --solvers 'lemke,pgs[sweeps=50],pgs[sweeps=50,precision=double]' || fail "compare, env: exit $?"
$PY - "$out" <<'PYEOF' || fail "compare's precision series"
import sys, h5py
import numpy as np
t = sys.argv[1]
a, b = h5py.File(f"{t}/c1.h5", "r"), h5py.File(f"{t}/c2.h5", "r")
words = lambda f: [w.decode() for w in f["series/precision"][:]]
assert words(a) == ["", "", "double", "double", "float", "float"], words(a)
assert words(b) == ["", "", "float", "float", "double", "double"], words(b)
for d in ("residual", "relative_residual", "iterations", "hash"):
    ra, rb = a["results/" + d][:], b["results/" + d][:]
    assert np.array_equal(ra[:, 4:6], rb[:, 2:4]), ("float", d)   # key = environment
    assert np.array_equal(ra[:, 2:4], rb[:, 4:6]), ("double", d)  # the key wins
r = a["results/residual"][:]
assert not np.array_equal(r[:, 2:4], r[:, 4:6]), "precision=float changed nothing"
PYEOF
echo "precision: ok"
