#!/bin/sh
# LSIM_TIES_SHORTCUT (sparse Lemke's tie shortcut, 0|1|2; docs/solvers.md, "Environment":
# it changes sparse Lemke's pivots) is recorded with the other sparse Lemke settings in
# effect (/parameters/solver_ties_shortcut) and a --resume under another is refused,
# naming it (before: not recorded, a resume under another setting taken silently, as
# LSIM_LU_SOLVE / LSIM_LU_REFACTOR / LSIM_BLOCK_START had been; tests/e2e/resume.sh).
# Under the run's own the resume goes on.
# LCPSIM: the binary (./lcpsim).
set -e
PY=/usr/bin/python3
L=${LCPSIM:-./lcpsim}
out=$(mktemp -d /tmp/resume_ties.XXXXXX)
trap 'rm -rf "$out"' EXIT
fail() { echo "resume_ties: $*" >&2; exit 1; }

unset LSIM_TIES_SHORTCUT
LSIM_TIES_SHORTCUT=2 $L data/pile_10.json --solver lemke_sparse --steps 20 -o "$out/t2.h5" --quiet
$L data/pile_10.json --solver lemke_sparse --steps 20 -o "$out/t1.h5" --quiet
$PY -c "
import h5py, sys
for f, want in ((sys.argv[1], 2), (sys.argv[2], 1)):
    p = h5py.File(f, 'r')['parameters']
    assert 'solver_ties_shortcut' in p and p['solver_ties_shortcut'][()] == want, (f, list(p))
" "$out/t2.h5" "$out/t1.h5" || fail "LSIM_TIES_SHORTCUT in effect not recorded"
# a resume under the default (1) of the run under 2: refused, one line naming it
rc=0; $L data/pile_10.json --resume "$out/t2.h5" --steps 30 -o "$out/no.h5" --quiet 2> "$out/err" || rc=$?
[ $rc -eq 2 ] || fail "resume of an LSIM_TIES_SHORTCUT=2 run under the default: exit $rc"
grep -qF "t2.h5: its lemke_sparse run's sparse Lemke tie shortcut is 2, this run's 1 (the environment's LSIM_TIES_SHORTCUT, else the built-in 1): the continued steps would not be the run's; take its setting (LSIM_TIES_SHORTCUT=2)" "$out/err" \
  || fail "refusal: $(cat "$out/err")"
[ ! -e "$out/no.h5" ] || fail "a refused resume wrote its output"
rc=0; LSIM_TIES_SHORTCUT=0 $L data/pile_10.json --resume "$out/t1.h5" --steps 30 -o "$out/no.h5" --quiet 2> "$out/err" || rc=$?
[ $rc -eq 2 ] && grep -qF "tie shortcut is 1, this run's 0" "$out/err" || fail "resume under 0 of a run under 1: exit $rc: $(cat "$out/err")"
# under the run's own: resumed
LSIM_TIES_SHORTCUT=2 $L data/pile_10.json --resume "$out/t2.h5" --steps 30 -o "$out/t2r.h5" --quiet \
  || fail "resume under the run's LSIM_TIES_SHORTCUT=2"
$L data/pile_10.json --resume "$out/t1.h5" --steps 30 -o "$out/t1r.h5" --quiet || fail "resume under the default"
echo "resume_ties: passed"
