#!/bin/sh
# lemke_sparse's principal pivoting phase as a solver setting (docs/solvers.md, "Principal
# pivoting before the path"): the scene key solver.principal, LSIM_PRINCIPAL, compare's
# lemke_sparse[principal=K].
# - pile_100, 20 steps on lemke_sparse without and with the key (K = 2000): every step
#   solved (status 0) to the run's tolerance (relative residual <= 1e-10) in both; the key
#   reaches the solver (the phase's solutions differ in bits from the path's); the same run
#   from LSIM_PRINCIPAL=2000 is the key's, bit for bit; /parameters/solver_principal says
#   2000, 0 without; the library (Python) loading the scene runs it too, bit for bit, and
#   so does the scene without the key given principal=2000 in code (set_solver);
# - a resume under another setting is refused, naming it and what to set; under the run's
#   it is the straight run, bit for bit;
# - --solver pgs on the scene with the key: a note naming it, no solver_principal written;
# - compare: /series/principal per series (the spec's, else LSIM_PRINCIPAL, else 0; other
#   solvers 0); principal on another solver or out of range refused.
set -eu
cd "$(dirname "$0")/../.."
PY=/usr/bin/python3
L=./lcpsim
out=$(mktemp -d /tmp/lsim_e2e_principal_XXXXXX)
trap 'rm -rf "$out"' EXIT
fail() { echo "principal: $*" >&2; exit 1; }
unset LSIM_PRINCIPAL || true

# The scenes: data/pile_100.json on lemke_sparse, without and with the key.
$PY - "$out" <<'PYEOF'
import json, sys
s = json.load(open("data/pile_100.json"))
s["solver"] = {"name": "lemke_sparse"}
json.dump(s, open(sys.argv[1] + "/off.json", "w"), indent=1)
s["solver"]["principal"] = 2000
json.dump(s, open(sys.argv[1] + "/on.json", "w"), indent=1)
PYEOF
$L "$out/off.json" --steps 20 -o "$out/off.h5" --quiet || fail "off: exit $?"
$L "$out/on.json" --steps 20 -o "$out/on.h5" --quiet || fail "on: exit $?"
LSIM_PRINCIPAL=2000 $L "$out/off.json" --steps 20 -o "$out/env.h5" --quiet || fail "env: exit $?"
$PY - "$out" <<'PYEOF' || fail "pile_100 with and without the phase"
import sys, h5py
import numpy as np
t = sys.argv[1]
f = {k: h5py.File(f"{t}/{k}.h5", "r") for k in ("off", "on", "env")}
for k, want in (("off", 0), ("on", 2000), ("env", 2000)):
    assert int(f[k]["parameters/solver_principal"][()]) == want, k
    st, rel = f[k]["solver/status"][:], f[k]["solver/relative_residual"][:]
    # every step solved, to the run's tolerance (solver_tol, 1e-10: the acceptance test)
    assert len(st) == 20 and (st == 0).all(), (k, st)
    assert (rel <= f[k]["parameters/solver_tol"][()]).all(), (k, rel.max())
# The phase solved some steps itself: other bits than the path's (steps 0-9 have the
# same solutions, few contacts); the key's run and the environment's are the same run.
assert not np.array_equal(f["off"]["v"][:], f["on"]["v"][:]), "the key changed nothing"
for d in ("q", "v", "solver/residual", "solver/iterations"):
    assert np.array_equal(f["on"][d][:], f["env"][d][:]), d
PYEOF

# The library (Python) loading the scene runs the key too: lcpsim's run, bit for bit, and
# its record says so.
PYTHONPATH=python $PY - "$out" <<'PYEOF' || fail "the library's run of the key"
import sys, h5py
import numpy as np
import lcpsim
t = sys.argv[1]
s = lcpsim.Sim.load(f"{t}/on.json")
s.record(f"{t}/api.h5")
s.run(20)
s.record_close()
a, b = h5py.File(f"{t}/api.h5", "r"), h5py.File(f"{t}/on.h5", "r")
assert int(a["parameters/solver_principal"][()]) == 2000
for d in ("q", "v", "solver/residual"):
    assert np.array_equal(a[d][:], b[d][:]), d
# The same phase chosen in code (set_solver's principal) on the scene without the key:
# the key's run, bit for bit, recorded the same way; a bad value refused, saying so.
s = lcpsim.Sim.load(f"{t}/off.json")
s.set_solver("lemke_sparse", principal=2000)
s.record(f"{t}/code.h5")
s.run(20)
s.record_close()
c = h5py.File(f"{t}/code.h5", "r")
assert int(c["parameters/solver_principal"][()]) == 2000
for d in ("q", "v", "solver/residual", "solver/iterations"):
    assert np.array_equal(c[d][:], b[d][:]), d
try:
    s.set_solver("lemke_sparse", principal=-3)
    raise AssertionError("principal -3 accepted")
except lcpsim.Error as e:
    assert "principal must be an integer in [0, 1000000], got -3" in str(e), str(e)
PYEOF

# Resume: the run's setting recorded, another refused naming it, the run's taken.
refused() {
  want=$1; shift
  if "$L" "$@" > "$out/refused.txt" 2>&1; then fail "not refused: $*"; fi
  grep -qF -- "$want" "$out/refused.txt" || { cat "$out/refused.txt" >&2; fail "refusal does not say: $want"; }
}
LSIM_PRINCIPAL=2000 $L "$out/off.json" --steps 12 -o "$out/part.h5" --quiet || fail "part: exit $?"
refused "part.h5: its lemke_sparse setting principal is 2000, this run's 0 (the scene's solver.principal, else the environment's LSIM_PRINCIPAL, else 0)" \
  "$out/off.json" --resume "$out/part.h5" --steps 20 -o "$out/no.h5"
refused "take its setting (LSIM_PRINCIPAL=2000)" \
  "$out/off.json" --resume "$out/part.h5" --steps 20 -o "$out/no.h5"
[ ! -e "$out/no.h5" ] || fail "a refused resume left its output"
LSIM_PRINCIPAL=2000 $L "$out/off.json" --resume "$out/part.h5" --steps 20 -o "$out/resumed.h5" \
  --quiet || fail "resume under the run's setting: exit $?"
$PY - "$out/env.h5" "$out/resumed.h5" <<'PYEOF' || fail "resumed run is not the straight run"
import sys
sys.path.insert(0, "tests/e2e")
from same_run import differ, load
d = differ(load(sys.argv[1]), load(sys.argv[2]), 90)
assert d == [], d
PYEOF

# --solver naming another solver: the key does nothing there, said on stderr.
$L "$out/on.json" --solver pgs --steps 2 -o "$out/pgs.h5" --quiet 2> "$out/pgs.err" ||
  fail "pgs: exit $?"
grep -q "note: the scene's solver.principal is a setting of lemke_sparse; pgs does not use it" \
  "$out/pgs.err" || fail "no note for the key under --solver pgs"
$PY -c "
import h5py, sys
assert 'solver_principal' not in h5py.File(sys.argv[1], 'r')['parameters']
" "$out/pgs.h5" || fail "pgs run records a principal setting"

# compare: the setting per series.
$L compare data/pile_10.json --steps 40 --quiet \
  --solvers 'lemke_sparse[principal=400],lemke_sparse,pgs' -o "$out/cmp.h5" ||
  fail "compare: exit $?"
LSIM_PRINCIPAL=30 $L compare data/pile_10.json --steps 40 --quiet \
  --solvers 'lemke_sparse[principal=400],lemke_sparse,pgs' -o "$out/cmp_env.h5" ||
  fail "compare under LSIM_PRINCIPAL: exit $?"
$PY - "$out" <<'PYEOF' || fail "compare's /series/principal"
import sys
sys.path.insert(0, "scripts")
import lcpsim_compare
t = sys.argv[1]
for name, plain in (("cmp", 0), ("cmp_env", 30)):
    c = lcpsim_compare.load(f"{t}/{name}.h5")
    want = {"lemke_sparse[principal=400]": 400, "lemke_sparse": plain, "pgs": 0}
    assert len(c.series.label) == 6, c.series.label
    for s, label in enumerate(c.series.label):
        got = int(c.series.principal[s])
        assert got == want[label.rsplit(" (", 1)[0]], (name, label, got)
PYEOF
if command -v octave-cli > /dev/null; then
  got=$(cd scripts && timeout 120 octave-cli -H --eval "c = lcpsim_compare_load('$out/cmp_env.h5');
    printf('%d\n', isequal(double(c.series.principal'), [400 400 30 30 0 0]));" 2>/dev/null | tail -1)
  [ "$got" = "1" ] || fail "octave loader: /series/principal: '$got'"
fi
for spec in 'pgs[principal=4]' 'lemke_sparse[principal=-1]' 'lemke_sparse[principal=1000001]'; do
  if $L compare data/pile_10.json --steps 2 --quiet --solvers "$spec" -o "$out/bad.h5" \
       2> "$out/bad.err"; then fail "$spec: not refused"; fi
  grep -Eq "principal is an option of lemke_sparse only; pgs does not use it|principal must be an integer in \[0, 1000000\], got -?[0-9]+$" \
    "$out/bad.err" || fail "$spec: refusal does not name principal"
done
# One wording for a principal out of range: the scene key's, set_solver's (above) and
# compare's (it said "bad value '-1' for principal (an integer from 0 to 1000000)").
sed 's/"principal": 2000/"principal": -1/' "$out/on.json" > "$out/neg.json"
if $L "$out/neg.json" --steps 2 -o "$out/neg.h5" 2> "$out/neg.err"; then fail "principal -1: not refused"; fi
$L compare data/pile_10.json --steps 2 --quiet --solvers 'lemke_sparse[principal=-1]' \
  -o "$out/bad.h5" 2> "$out/bad.err" && fail "compare principal=-1: not refused"
for f in neg bad; do
  grep -qF "principal: must be an integer in [0, 1000000], got -1" "$out/$f.err" ||
    grep -qF "principal must be an integer in [0, 1000000], got -1" "$out/$f.err" ||
    fail "$f: not the scene key's words: $(cat "$out/$f.err")"
done
echo "principal: ok"
