#!/bin/sh
# `lcpsim solve` checked from outside: for every dense LCP of shared/data/siconos-lcp and
# each of our solvers and two of Siconos', z printed with --print-z is checked with numpy
# (w = M z + q recomputed from the file, column-major as Siconos reads it): the printed
# natural residual min(z, w) and its relative value (over max|q|) agree with the recomputed
# ones to 1e-12 absolute + 1e-6 relative (M z summed in another order), "solved" is printed
# only at a relative residual within 10 tol (solver.c: Siconos' success is taken up to 10
# tol, ours stop below tol), and the exit status follows the status. Warm starts: the
# report says whether the guess was used.
set -u
D=${LSIM_SHARED:-../shared}/data/siconos-lcp
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "solve_answers: $*" >&2; exit 1; }
n=0
for f in "$D"/*.dat; do
  case $f in *_block.dat) continue ;; esac
  for s in lemke pgs newton lemke_sparse siconos:lemke siconos:pgs; do
    ./lcpsim solve "$f" --solver "$s" --print-z > "$tmp/o.txt" 2> "$tmp/e.txt"
    rc=$?
    /usr/bin/python3 - "$f" "$tmp/o.txt" "$rc" <<'PY' || fail "$(basename "$f") $s"
import re, sys
import numpy as np
path, out, rc = sys.argv[1], open(sys.argv[2]).read(), int(sys.argv[3])
t = open(path).read().split()
n = int(t[0]); assert t[1] == "0"
M = np.array([float(x) for x in t[6:6 + n * n]]).reshape(n, n).T
q = np.array([float(x) for x in t[6 + n * n:6 + n * n + n]])
z = np.array([float(v) for v in re.findall(r"^z\[\d+\] = (\S+)$", out, re.M)])
assert len(z) == n, "z has %d entries, n = %d" % (len(z), n)
status = re.search(r"^status\s+(\S+)$", out, re.M).group(1)
m = re.search(r"^natural residual\s+(\S+) \(relative to max\|q\|: (\S+)\)$", out, re.M)
nat, rel = float(m.group(1)), float(m.group(2))
w = M @ z + q
mine = np.max(np.abs(np.minimum(z, w)))
scale = np.max(np.abs(q)) or 1.0
# printed with 4 digits (%.3e): 1e-3 relative, plus rounding of M z
ok = lambda a, b: abs(a - b) <= 1e-12 + 1e-3 * max(abs(a), abs(b))
assert ok(nat, mine), "natural residual printed %g, recomputed %g" % (nat, mine)
assert ok(rel, mine / scale), "relative printed %g, recomputed %g" % (rel, mine / scale)
if status == "solved":
    assert mine / scale <= 10 * 1e-10 * (1 + 1e-3), "solved at relative %g" % (mine / scale)
    assert rc == 0, "solved but exit %d" % rc
else:
    assert rc == 1, "%s but exit %d" % (status, rc)
PY
    n=$((n + 1))
  done
done
[ $n -ge 90 ] || fail "only $n solves checked"

# Warm starts: a solver that starts from the guess says so; one that cannot (Siconos'
# pivoting Lemke) or an all-zero guess says the guess was not used.
mmc=$D/lcp_mmc.dat
./lcpsim solve "$mmc" --print-z | sed -n 's/^z\[[0-9]*\] = //p' > "$tmp/z.txt"
./lcpsim solve "$mmc" --solver pgs --warm "$tmp/z.txt" > "$tmp/w1.txt" || fail "pgs warm: exit $?"
grep -q "^solver             pgs (warm start)$" "$tmp/w1.txt" || fail "pgs warm: $(grep ^solver "$tmp/w1.txt")"
./lcpsim solve "$mmc" --solver siconos:lemke --warm "$tmp/z.txt" > "$tmp/w2.txt" || fail "siconos:lemke warm: exit $?"
grep -q "^solver             siconos:lemke (warm start given, not used" "$tmp/w2.txt" || fail "siconos:lemke warm: $(grep ^solver "$tmp/w2.txt")"
awk '{print 0}' "$tmp/z.txt" > "$tmp/zero.txt"
./lcpsim solve "$mmc" --solver pgs --warm "$tmp/zero.txt" > "$tmp/w3.txt" || fail "zero warm: exit $?"
grep -q "^solver             pgs (warm start given, not used" "$tmp/w3.txt" || fail "zero warm: $(grep ^solver "$tmp/w3.txt")"
# --solver in `lcpsim solve --help`: every LCP solver name `lcpsim solvers` lists is
# there (ours by name, Siconos' as siconos:NAME), and each is taken by solve (it did list
# lemke, pgs and siconos: only).
./lcpsim solve --help > "$tmp/help.txt" || fail "solve --help: exit $?"
./lcpsim solvers 2>&1 | awk '/^# frictional/ { exit } !/^#/' > "$tmp/names.txt"
[ -s "$tmp/names.txt" ] || fail "lcpsim solvers listed no LCP solver"
while read -r s; do
  case $s in
    siconos:*) grep -q "siconos:NAME" "$tmp/help.txt" || fail "solve --help: no siconos:NAME" ;;
    *) sed -n '/--solver NAME/,/--tol/p' "$tmp/help.txt" | grep -Eq "(^|[ ,])$s([ ,]|$)" ||
         fail "solve --help: --solver does not list $s" ;;
  esac
  ./lcpsim solve "$mmc" --solver "$s" > /dev/null 2> "$tmp/e.txt"
  [ $? -le 1 ] || fail "solve --solver $s refused: $(cat "$tmp/e.txt")"
done < "$tmp/names.txt"
echo "solve answers: $n solves checked with numpy, warm-start notes: ok"
