#!/bin/sh
# compare.sh: `lcpsim compare`, LCP dumps, `solve RUN.h5 --step`, `export`, and the
# performance profile (Python and Octave) on a hand-made table.
#   - shadow mode hands bit-identical (factored) problems to every solver (hashes), the reference's
#     warm series reproduces the driver's solution, a failing solver (siconos:pgs on the
#     brick's zero-diagonal cone row) is recorded as failed and the run goes on;
#   - two identical runs write identical datasets (wall times aside), both modes;
#   - dumps re-solve to the stored solution; export writes a .dat with the same hash;
#   - a pile: dense solvers above --dense-limit are recorded as skipped, not failed; the
#     factored hash is equal across the solvers of a step;
#   - bad input: exit 2, one line, no file (specs with another solver's option, a key twice,
#     two budgets; --repeat in independent mode);
#   - the help's --dense-limit and --dump-lcp texts, and which solvers the limit skips.
# Runs the sanitizer build.
set -u
cd "$(dirname "$0")/../.."
bin=build/san/lcpsim
PY=/usr/bin/python3
tmp=$(mktemp -d /tmp/lsim_e2e_compare_XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

solvers='lemke,pgs,pgs[sweeps=10],siconos:lemke,siconos:pgs'

# Shadow runs, twice, with dumps; independent runs, twice.
for i in 1 2; do
  $bin compare data/brick_friction.json --solvers "$solvers" --steps 120 --dump-lcp \
    -o "$tmp/shadow$i.h5" > "$tmp/shadow$i.md" || fail "shadow run $i: exit $?"
  $bin compare data/brick_friction.json --mode independent --solvers "$solvers" --steps 120 \
    -o "$tmp/indep$i.h5" --csv > "$tmp/indep$i.csv" || fail "independent run $i: exit $?"
done
grep -q '^| pgs\[sweeps=10\] (warm) | 120 |' "$tmp/shadow1.md" || fail "markdown summary: $(cat "$tmp/shadow1.md")"
[ "$(head -1 "$tmp/indep1.csv" | cut -d, -f1-3)" = "series,problems,success_rate" ] || fail "csv header"
[ "$(wc -l < "$tmp/indep1.csv")" -eq 6 ] || fail "csv rows: $(cat "$tmp/indep1.csv")"

$PY - "$tmp" <<'PYEOF' || fails=$((fails + 1))
import sys
import h5py
import numpy as np
tmp = sys.argv[1]

def datasets(path):
    out = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda n, o: out.__setitem__(n, o[()]) if isinstance(o, h5py.Dataset) else None)
    return out

ok = True
def check(cond, what):
    global ok
    if not cond:
        print("FAIL:", what)
        ok = False

# Determinism: every dataset but wall times is bit-identical between two runs.
for mode in ("shadow", "indep"):
    a, b = datasets(f"{tmp}/{mode}1.h5"), datasets(f"{tmp}/{mode}2.h5")
    check(sorted(a) == sorted(b), f"{mode}: same datasets")
    for name in a:
        if "wall" in name:
            continue
        x, y = np.asarray(a[name]), np.asarray(b[name])
        same = x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes()
        check(same, f"{mode}: {name} differs between identical runs")

d = datasets(f"{tmp}/shadow1.h5")
labels = [s.decode() for s in d["series/label"]]
P = len(labels)
check(P == 10, f"10 series, got {labels}")
size = d["results/lcp_size"]
has = d["problem_size"] > 0
check(has.sum() == 120, "every brick step has an LCP")
# Identical problems: each series' hash equals the step's problem hash.
h = d["results/hash"]
check(h.dtype == np.uint64, "hash dtype")
check(np.all(h[has] == d["problem_hash"][has][:, None]), "shadow: hashes differ between solvers")
check(len(np.unique(d["problem_hash"][has])) > 100, "problem hashes distinguish the steps")
# Scenes hand solvers the factored problem: the hashes are factored ones; the dumped dense
# problems carry their dense hashes (/problem_dense_hash), in step order.
check(d["parameters/hash_form"] == b"factored", "hash form")
check(np.array_equal(d["lcp/hash"], d["problem_dense_hash"][has]), "dump hashes = dense problem hashes")
check(not np.any(d["problem_dense_hash"][has] == d["problem_hash"][has]), "dense and factored hashes differ")
check(d["results/skipped"].sum() == 0 and np.all(d["summary/skipped"] == 0), "nothing skipped")
check(np.array_equal(d["lcp/step"], d["step"][has]), "dump steps")
# The reference's warm series is the driver: distance 0 (cold Lemke may pivot differently).
ref = int(d["parameters/reference_series"])
check(labels[ref] == "lemke (warm)", f"reference series {labels[ref]}")
check(np.all(d["results/distance"][:, ref] == 0.0), "reference warm series = driver")
# siconos:pgs fails on the zero-diagonal cone row: recorded, and the run went on.
sp = [i for i, l in enumerate(labels) if l.startswith("siconos:pgs")]
st = d["results/status"]
check(np.all(st[:, sp] < 0) or (st[:, sp] < 0).sum() > 100, "siconos:pgs failures recorded")
check(np.all(d["results/success"][:, sp].sum(axis=0) < 10), "siconos:pgs not a success")
check(st.shape == (120, P), "all steps recorded")
# Fixed-sweep PGS: max_iterations is its normal status, success by the common residual.
fx = labels.index("pgs[sweeps=10] (cold)")
check(d["solvers/tol"][2] == 0.0 and d["solvers/max_iter"][2] == 10, "sweeps option")
check(np.all(d["results/iterations"][:, fx] <= 10), "sweeps limit")
# Quality measures: zero (to round-off) for lemke, on the common definitions.
lw = labels.index("lemke (cold)")
for m in ("signorini", "cone", "dissipation"):
    check(np.all(d[f"results/{m}"][:, lw] < 1e-12), f"lemke {m}")
check(d["results/dissipation"][:, sp].max() > 1e-3 or d["results/cone"][:, sp].max() > 1e-3,
      "failed siconos:pgs shows a friction violation")

# Independent: reference divergence 0, same shapes, energies.
e = datasets(f"{tmp}/indep1.h5")
check(e["parameters/mode"] == b"independent", "mode")
r = int(e["parameters/reference_series"])
check(np.all(e["divergence/q"][:, r] == 0.0), "reference divergence")
check(e["energy/kinetic"].shape == (121, 5), "energy shape")
print("compare files: ok" if ok else "compare files: FAILED")
sys.exit(0 if ok else 1)
PYEOF

# Dumps: re-solve step 60 with lemke: the stored solution back; export and re-read: same hash.
$bin solve "$tmp/shadow1.h5" --step 60 --solver lemke > "$tmp/solve.txt" || fail "solve .h5: exit $?"
grep -q "distance to stored lemke (cold): 0.000e+00" "$tmp/solve.txt" || fail "re-solve: $(cat "$tmp/solve.txt")"
hash=$(sed -n 's/.*hash \([0-9a-f]*\)).*/\1/p' "$tmp/solve.txt")
$bin export "$tmp/shadow1.h5" --step 60 -o "$tmp/s60.dat" > /dev/null || fail "export: exit $?"
$bin compare "$tmp/s60.dat" --solvers lemke -o "$tmp/s60.h5" --quiet || fail "compare .dat: exit $?"
$PY -c "import h5py,sys; h=h5py.File(sys.argv[1])['problem_hash'][0]; sys.exit(0 if '%016x' % h == sys.argv[2] else 1)" \
  "$tmp/s60.h5" "$hash" || fail "exported .dat does not read back bit-identical (hash $hash)"
$bin solve "$tmp/shadow1.h5" --step 200 --solver lemke > /dev/null 2> "$tmp/err.txt"
[ $? -eq 2 ] && grep -q "step 200" "$tmp/err.txt" || fail "solve of a missing step: $(cat "$tmp/err.txt")"

# A plain run with --dump-lcp: steps without contacts have none; solve with warm start.
# (The optimised build: under UBSan, contact/step.c's remember() passes a NULL prev_z to
# memcpy with n = 0 on contact-free steps, which the step's owner is fixing.)
./lcpsim data/cart_wall.json --dump-lcp -o "$tmp/cart.h5" --quiet || fail "run --dump-lcp: exit $?"
first=$($PY -c "import h5py,sys; print(h5py.File(sys.argv[1])['lcp/step'][0])" "$tmp/cart.h5")
$bin solve "$tmp/cart.h5" --step "$first" --solver pgs --warm-dumped > "$tmp/cart.txt" || fail "solve cart step $first"
grep -q "status *solved" "$tmp/cart.txt" || fail "cart re-solve: $(cat "$tmp/cart.txt")"
$bin solve "$tmp/cart.h5" --step 1 > /dev/null 2>&1
[ $? -eq 2 ] || [ "$first" -eq 1 ] || fail "step without contact should be exit 2"

# A dense reference above the dense limit stops the comparison at that step (pile_10:
# step 9, n = 48 > 30) with exit 1; the file keeps steps 1..8, marked stopped, in shadow
# and independent mode and in the kept trajectory (before: exit 2 and no file).
for mode in shadow independent; do
  $bin compare data/pile_10.json --steps 60 --dense-limit 30 --mode $mode --solvers lemke,pgs \
    -o "$tmp/stop_$mode.h5" --quiet 2> "$tmp/stop_$mode.err"
  rc=$?
  [ $rc -eq 1 ] || fail "dense reference above the limit ($mode): exit $rc, not 1"
  grep -q "stopped at .*step 9: n = 48 > --dense-limit 30.*holds the 8 steps before it" "$tmp/stop_$mode.err" ||
    fail "dense reference above the limit ($mode): $(cat "$tmp/stop_$mode.err")"
done
$bin compare data/pile_10.json --steps 60 --dense-limit 30 --solvers lemke,pgs --trajectory \
  -o "$tmp/stop_traj.h5" --quiet 2> /dev/null
$PY - "$tmp" <<'PYEOF' || fail "a stopped comparison's file"
import sys, h5py
tmp = sys.argv[1]
for n in ("shadow", "independent", "traj"):
    with h5py.File(f"{tmp}/stop_{n}.h5", "r") as f:
        assert f["summary/run_end"][()] == b"stopped", (n, f["summary/run_end"][()])
        assert f["summary/run_end_step"][()] == 8 and f["results/status"].shape[0] == 8, n
        assert b"step 9: n = 48" in f["summary/run_end_reason"][()], n
        if n == "traj":
            assert f["trajectory/time"].shape == (9,), f["trajectory/time"].shape
            assert f["trajectory/summary/run_end"][()] == b"stopped"
PYEOF

# Factored problems: a pile of 10 spheres (n up to 240), with a dense limit of 30 so that
# Lemke runs on the first steps only and is recorded as skipped on the others; the
# factored hash is the same for every solver of a step; quality on the factored form.
$bin compare data/pile_10.json --steps 60 --dense-limit 30 \
  --solvers 'pgs[max_iter=300],lemke,pgs[sweeps=10],siconos:lemke' -o "$tmp/pile.h5" \
  > "$tmp/pile.md" || fail "pile_10 shadow: exit $?"
grep -q '^| lemke (cold) | [0-9]* | [0-9.]*% | 0 | 0 | 0 | [1-9][0-9]* |' "$tmp/pile.md" || fail "pile summary: $(cat "$tmp/pile.md")"
$bin compare data/pile_10.json --steps 60 --dense-limit 30 --mode independent \
  --solvers 'pgs[max_iter=300],lemke' -o "$tmp/pile_ind.h5" --quiet || fail "pile_10 independent: exit $?"
$PY - "$tmp" <<'PYEOF' || fails=$((fails + 1))
import sys
import h5py
import numpy as np
sys.path.insert(0, "scripts")
import lcpsim_compare as lc
tmp = sys.argv[1]
ok = True
def check(cond, what):
    global ok
    if not cond:
        print("FAIL:", what)
        ok = False
with h5py.File(f"{tmp}/pile.h5", "r") as f:
    labels = [s.decode() for s in f["series/label"][()]]
    n = f["problem_size"][()]
    h, ph = f["results/hash"][()], f["problem_hash"][()]
    sk, st = f["results/skipped"][()], f["results/status"][()]
    size = f["results/lcp_size"][()]
    legend = [s.decode() for s in f["status_legend"][()]]
    check(f["parameters/hash_form"][()] == b"factored", "hash form")
    check(int(f["parameters/dense_limit"][()]) == 30, "dense limit stored")
    has = n > 0
    big = n > 30
    check(big.sum() > 20 and (has & ~big).sum() > 0, f"pile sizes {n}")
    dense = [i for i, l in enumerate(labels) if "lemke" in l]
    fact = [i for i, l in enumerate(labels) if l.startswith("pgs")]
    # Dense solvers: skipped exactly on the steps above the limit, never failed there.
    for s in dense:
        check(np.array_equal(sk[:, s] == 1, big), f"{labels[s]}: skipped = n > limit")
        check(np.all(st[big, s] == 2) and np.all(size[big, s] == 0), f"{labels[s]}: skipped status")
        check(np.all(np.isnan(f["results/relative_residual"][()][big, s])), "skipped: no residual")
        check(np.all(f["results/success"][()][has & ~big, s] == 1), f"{labels[s]} solves small steps")
    check(not sk[:, fact].any(), "pgs never skipped")
    check("2 skipped (n too large for a dense solver)" in legend, f"legend {legend}")
    # Every solver that ran on a step was handed the same bytes: its hash is the step's.
    ran = has[:, None] & (sk == 0)
    check(np.all((h == ph[:, None])[ran]), "factored hash differs between solvers of a step")
    check(np.all(h[sk == 1] == 0), "skipped: hash 0")
    check(len(np.unique(ph[has])) == has.sum(), "factored hashes distinguish the steps")
    # Lemke on the small steps: exact, so its factored quality measures vanish.
    for m in ("signorini", "cone", "dissipation"):
        v = f[f"results/{m}"][()][has & ~big][:, dense]
        check(np.all(v < 1e-9), f"lemke {m} {v.max()}")
    summ = f["summary/skipped"][()]
    check(all(summ[s] == big.sum() for s in dense) and all(summ[s] == 0 for s in fact),
          f"summary skipped {summ}")
    check(np.all(f["summary/problems"][()][dense] == (has & ~big).sum()), "problems exclude skipped")
with h5py.File(f"{tmp}/pile_ind.h5", "r") as f:
    labels = [s.decode() for s in f["series/label"][()]]
    sk = f["results/skipped"][()]
    lw = labels.index("lemke")
    first = np.argmax(f["results/lcp_size"][()][:, lw] > 30)
    check(first > 0 and np.all(sk[first + 1:, lw] == 1) and not sk[:first + 1, lw].any(),
          "independent: lemke's trajectory stops after its first step above the limit")
    check(np.all(np.isnan(f["divergence/q"][()][first + 1:, lw])), "stopped: divergence NaN")
    check(not sk[:, labels.index("pgs[max_iter=300]")].any(), "independent: pgs runs on")
c = lc.load(f"{tmp}/pile.h5")
lc.figures(c, f"{tmp}/pilefig", "pile")
print("factored compare: ok" if ok else "factored compare: FAILED")
sys.exit(0 if ok else 1)
PYEOF
# Factored dumps. A comparison with --dump-lcp stores every step's factored form and the
# dense M up to --dense-limit; a run stores the dense M up to --dump-dense-limit (0: never).
# (Lemke beside: skipped above the limit, its z columns NaN there; the loaders below.)
$bin compare data/pile_10.json --steps 60 --dense-limit 30 --solvers 'pgs,lemke' --dump-lcp \
  -o "$tmp/pdump.h5" > /dev/null 2> "$tmp/pdump.err" || fail "compare dump above the dense limit: $(cat "$tmp/pdump.err")"
./lcpsim data/pile_10.json --steps 60 --dump-lcp -o "$tmp/fd_dense.h5" --quiet || fail "run dump: exit $?"
$bin data/pile_10.json --steps 60 --dump-lcp --dump-dense-limit 0 -o "$tmp/fd_fact.h5" --quiet \
  || fail "run factored dump: exit $?"
$bin data/pile_10.json --steps 5 --dump-dense-limit 0 -o "$tmp/fd_none.h5" --quiet 2> "$tmp/fd_none.err"
grep -q "dump-dense-limit is an option of --dump-lcp only" "$tmp/fd_none.err" || fail "limit without a dump: no note"
$PY - "$tmp" <<'PYEOF' || fail "factored dumps"
import sys
import h5py
import numpy as np
tmp = sys.argv[1]
bad = []
def check(cond, what):
    if not cond:
        bad.append(what)
sys.path.insert(0, "scripts")
import lcpsim_load
ra, rb = lcpsim_load.load(f"{tmp}/fd_dense.h5"), lcpsim_load.load(f"{tmp}/fd_fact.h5")
with h5py.File(f"{tmp}/fd_dense.h5", "r") as a, h5py.File(f"{tmp}/fd_fact.h5", "r") as b:
    ga, gb = a["lcp"], b["lcp"]
    n = ga["n"][()]
    np_ = len(n)
    check(np_ > 0 and np.array_equal(n, gb["n"][()]), "the same problems in both runs")
    check(np.all(n <= 2048) and np.all(ga["dense"][()] == 1), "default limit: every M stored")
    check(np.all(gb["dense"][()] == 0) and gb["M"].shape[0] == 0, "limit 0: no M stored")
    check(np.all(gb["m_offset"][()] == 0), "limit 0: M offsets all 0")
    # The factors are the same bits in both files, and their hashes agree.
    for name in ("J_ptr", "J_idx", "J_val", "B_ptr", "B_idx", "B_val", "C_ptr", "C_idx", "C_val",
                 "factored_hash", "m", "q", "z"):
        check(np.array_equal(ga[name][()], gb[name][()], equal_nan=True), f"{name} differs")
    check(np.all(ga["factored_hash"][()] != 0), "factored hashes stored")
    # J B + C formed in numpy equals the stored M: each entry is a sum of at most 12
    # products of the rows of two bodies, so they agree to a few ulp of max|M|.
    for p in (0, np_ // 2, np_ - 1):
        P = ra.lcp_problem(int(ga["step"][p]))  # the stored M and the factors
        err = np.max(np.abs(lcpsim_load._form_dense(P.n, P.m, P.J, P.B, P.C) - P.M))
        check(err <= 1e-14 * np.max(np.abs(P.M)), f"problem {p}: |J B + C - M| = {err:g}")
    # The run's size: 8 n^2 bytes a step for M against some 20 n for the factors.
    check(gb["J_val"].shape[0] < ga["M"].shape[0] / 4, "the factors are much smaller than M")
# The loader's helper: the stored M, or J B + C formed from the factors (same tolerance).
Pa, Pb = ra.lcp_problem(50), rb.lcp_problem(50)
check(Pa.dense and not Pb.dense and Pa.n == Pb.n and Pb.m == 60, "lcp_problem: forms")
check(np.max(np.abs(Pa.M - Pb.M)) <= 1e-14 * np.max(np.abs(Pa.M)), "lcp_problem: M formed")
check(np.array_equal(Pa.q, Pb.q) and np.array_equal(Pa.z, Pb.z), "lcp_problem: q, z")
# M z through the factors (M never formed) against the stored M: the same sums of at
# most 12 products per entry of J B, so equal to a few ulp of max|M z|.
z = Pa.z[:, 0]
check(np.max(np.abs(Pb.matvec(z) - Pa.M @ z)) <= 1e-14 * np.max(np.abs(Pa.M @ z)), "lcp_problem: matvec")
# The residual of the run's own solution, from the factors, is the one the run recorded
# for that step (/solver): w is summed in another order, so they agree to rounding,
# some ulp of max|q| (w's terms are of that size), asserted within 1e-13 max|q|.
for k in (10, 30, 50):
    P = rb.lcp_problem(k)
    res, qs = P.residual(P.z[:, 0]), np.max(np.abs(P.q))
    check(abs(res.natural - rb.solver.residual[k - 1]) <= 1e-13 * qs, f"step {k}: natural residual")
    check(abs(res.relative - rb.solver.relative_residual[k - 1]) <= 1e-13, f"step {k}: relative residual")
# M is formed only up to DENSE_FORM_LIMIT unless asked; the helpers work without it.
lcpsim_load.DENSE_FORM_LIMIT = Pb.n - 1
Pn, Pt, Pf = rb.lcp_problem(50), rb.lcp_problem(50, with_m=True), ra.lcp_problem(50, with_m=False)
check(Pn.M is None and Pt.M is not None and Pf.M is None, "lcp_problem: with_m")
check(np.array_equal(Pn.w(z), Pb.w(z)) and Pn.residual(z) == Pb.residual(z), "lcp_problem: without M")
with h5py.File(f"{tmp}/pdump.h5", "r") as c:
    g = c["lcp"]
    n, d = g["n"][()], g["dense"][()]
    check(np.array_equal(d, (n <= 30).astype(d.dtype)), "compare: M stored exactly up to --dense-limit")
    check(np.all(g["m"][()] > 0), "compare: factored forms stored for every step")
    ph = c["problem_hash"][()]
    steps = g["step"][()]
    check(np.array_equal(ph[steps - 1], g["factored_hash"][()]), "compare: factored hash = /problem_hash")
    check(not d.all() and d.any(), "compare: both kinds of steps occur")
print("factored dumps: " + ("ok" if not bad else "FAILED: " + "; ".join(bad)))
sys.exit(1 if bad else 0)
PYEOF
# The Octave loader's helper: the same M from the factors (Octave sums the sparse product
# as the time step does here: equal to the stored M bit for bit, within 1e-14 asserted),
# kept sparse; the residual of the run's solution is the recorded one (tolerances as in
# Python above).
if command -v octave-cli > /dev/null; then
  octave-cli -H --eval "addpath('scripts'); a = lcpsim_load('$tmp/fd_dense.h5'); b = lcpsim_load('$tmp/fd_fact.h5');
    Pa = a.lcp_problem(50); Pb = b.lcp_problem(50);
    ok = Pa.dense && ~Pb.dense && issparse(Pb.M) && max(abs(Pa.M(:) - Pb.M(:))) <= 1e-14 * max(abs(Pa.M(:))) && isequal(Pa.q, Pb.q);
    res = Pb.residual(Pb.z(:, 1));
    ok = ok && abs(res.natural - b.solver.residual(50)) <= 1e-13 * max(abs(Pb.q));
    ok = ok && abs(res.relative - b.solver.relative_residual(50)) <= 1e-13;
    ok = ok && max(abs(Pb.w(Pb.z(:, 1)) - (Pa.M * Pa.z(:, 1) + Pa.q))) <= 1e-14 * max(abs(Pa.M * Pa.z(:, 1)));
    exit(~ok);" > "$tmp/fd_oct.txt" 2>&1 || fail "octave lcp_problem: $(cat "$tmp/fd_oct.txt")"
fi
# A step stored factored only: solved in that form, to what the dense form gives; exported
# as the same .dat; the quality measures printed.
$bin solve "$tmp/fd_dense.h5" --step 50 --solver lemke > "$tmp/fd_sd.txt" || fail "solve dense step"
$bin solve "$tmp/fd_fact.h5" --step 50 --solver lemke > "$tmp/fd_sf.txt" || fail "solve factored step"
grep -q "factored: m = 60, factored hash [0-9a-f]*)" "$tmp/fd_sf.txt" && grep -q "status *solved" "$tmp/fd_sf.txt" && grep -q "^signorini" "$tmp/fd_sf.txt" \
  || fail "factored solve report: $(cat "$tmp/fd_sf.txt")"
# Lemke pivots the same on both forms (the same M up to the ulps above): the same iterations.
[ "$(grep '^iterations' "$tmp/fd_sd.txt")" = "$(grep '^iterations' "$tmp/fd_sf.txt")" ] || fail "lemke iterations differ"
# PGS on a dumped step, from the dumped warm start with the run's options: the run's own
# solution, bit for bit (the factored form and the cones' layout flag are what it solved).
$bin data/pile_10.json --steps 60 --solver pgs --tol 0 --max-iter 20 --dump-lcp -o "$tmp/fd_pgs.h5" --quiet \
  || fail "pgs run dump: exit $?"
$bin solve "$tmp/fd_pgs.h5" --step 50 --solver pgs --tol 0 --max-iter 20 --warm-dumped > "$tmp/fd_pgs.txt"
grep -q "distance to stored pgs: 0.000e+00" "$tmp/fd_pgs.txt" || fail "pgs re-solve of a dump: $(cat "$tmp/fd_pgs.txt")"
# The same for a run on two threads (PGS's iterates depend on the team size: pile_100 is
# large enough for the parallel order), re-solved with --threads 2 from a copy of the file
# under another name (an HDF5 file asked for a step is a run file, whatever its name).
$bin data/pile_100.json --steps 45 --threads 2 --dump-lcp --dump-dense-limit 0 -o "$tmp/fd_t2.h5" --quiet \
  || fail "two-thread run dump: exit $?"
cp "$tmp/fd_t2.h5" "$tmp/fd_t2.hdf5"
$bin solve "$tmp/fd_t2.hdf5" --step 40 --solver pgs --tol 0 --max-iter 50 --warm-dumped --threads 2 > "$tmp/fd_t2.txt"
grep -q "distance to stored pgs: 0.000e+00" "$tmp/fd_t2.txt" || fail "two-thread re-solve: $(cat "$tmp/fd_t2.txt")"
# An exact-cone scene's steps are solved by nsgs_aa whatever solver.name says: the file,
# its dump's solution label and the summary line name it (not the scene's lemke).
$bin data/box_slide_45_exact.json --steps 10 --dump-lcp -o "$tmp/fd_ex.h5" > "$tmp/fd_ex.txt" || fail "exact-cone run"
grep -q " with nsgs_aa, " "$tmp/fd_ex.txt" || fail "exact-cone summary: $(cat "$tmp/fd_ex.txt")"
$PY -c "import h5py; f = h5py.File('$tmp/fd_ex.h5', 'r')
assert f['parameters/solver_name'][()] == b'nsgs_aa', f['parameters/solver_name'][()]
assert [x for x in f['lcp/solution_label'][()]] == [b'nsgs_aa'], f['lcp/solution_label'][()]" \
  || fail "exact-cone run: solver names in the file"
$bin export "$tmp/fd_dense.h5" --step 50 -o "$tmp/fd_d.dat" > /dev/null && $bin export "$tmp/fd_fact.h5" --step 50 -o "$tmp/fd_f.dat" > /dev/null \
  && cmp -s "$tmp/fd_d.dat" "$tmp/fd_f.dat" || fail "export of a factored step differs from the stored M"
# A dense reference cannot drive steps above the limit: the comparison stops there (exit 1,
# the steps before kept; above) and says what to change.
$bin compare data/pile_10.json --steps 60 --dense-limit 30 --solvers 'lemke,pgs' \
  -o "$tmp/pref.h5" > /dev/null 2> "$tmp/pref.err"
[ $? -eq 1 ] && grep -q "choose a PGS reference" "$tmp/pref.err" || fail "dense reference: $(cat "$tmp/pref.err")"

# LCP set: three Siconos files, one of them a failure for PGS (zero diagonal).
shared=${LSIM_SHARED:-../shared}/data/siconos-lcp
$bin compare "$shared/lcp_deudeu.dat" "$shared/lcp_CPS_2.dat" "$shared/lcp_mmc.dat" \
  --solvers 'lemke,pgs,siconos:lemke' --dump-lcp -o "$tmp/set.h5" > "$tmp/set.md" || fail "lcp set: exit $?"
$PY scripts/lcpsim_compare.py "$tmp/set.h5" --outcomes --no-figures > "$tmp/outcomes.md" || fail "outcomes"
grep -q "| lcp_CPS_2.dat | 3 | ok | bad_diagonal | ok |" "$tmp/outcomes.md" || fail "outcome table: $(cat "$tmp/outcomes.md")"
# Distances to the reference only where the solution is unique: lcp_mmc's M is symmetric
# positive definite (a distance, 0 for the reference, round-off for Siconos' Lemke); the
# CPS problems' M are not (NaN, said so in the file).
$PY - "$tmp/set.h5" <<'PYEOF' || fail "distances on the LCP set"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
names = [x.decode().rsplit("/", 1)[-1] for x in f["problem_name"][()]]
d = f["results/distance"][()]
mmc, cps = names.index("lcp_mmc.dat"), names.index("lcp_CPS_2.dat")
sys.exit(0 if d[mmc, 0] == 0.0 and d[mmc, 2] < 1e-10 and np.all(np.isnan(d[cps])) else 1)
PYEOF

# Compare dumps through the loaders: for every dumped step and every series s (not only
# 0) of the three kinds (shadow: shadow1 dense, pdump factored above the limit with
# lemke's columns NaN there; independent: box_stack_3d, whose siconos:lemke trajectory
# diverges, |z| up to 1e23; the LCP set), lcp_problem(k, s)'s P.solution is the column
# labelled as series s (docs/output-format.md, "LCP dumps") and its residual is the
# file's /results/residual and relative_residual for that step and series.
$bin compare data/box_stack_3d.json --mode independent --steps 40 --dump-lcp \
  --solvers 'lemke,pgs[sweeps=20],siconos:lemke' -o "$tmp/ind_dump.h5" > /dev/null \
  || fail "independent dump: exit $?"
$PY - "$tmp" <<'PYEOF' || fail "compare dumps through lcpsim_load.py"
import sys
import numpy as np
sys.path.insert(0, "scripts")
import lcpsim_load
tmp = sys.argv[1]
bad = []
def check(cond, what):
    if not cond and len(bad) < 10:
        bad.append(what)
for name in ("shadow1", "pdump", "ind_dump", "set"):
    r = lcpsim_load.load(f"{tmp}/{name}.h5")
    mode, labels = r.parameters.mode, r.series.label
    res, rel, size = r.results.residual, r.results.relative_residual, r.results.lcp_size
    checked = nan = 0
    for k in np.unique(r.lcp.step):
        k = int(k)
        for s in range(len(labels)):
            try:
                P = r.lcp_problem(k, series=s)
            except KeyError:
                # Only an independent series' own step without contact has no problem.
                check(mode == "independent" and size[k - 1, s] == 0, f"{name}: step {k} series {s} missing")
                continue
            want = "own" if mode == "independent" else labels[s]
            check(P.z_label[P.column] == want, f"{name}: series {s} column {P.z_label[P.column]!r}")
            check(P.n == r.problem_size[k - 1] or mode == "independent", f"{name}: step {k} n")
            got = P.residual(P.solution)
            if np.isnan(res[k - 1, s]):  # a skipped solve: its column is NaN too
                check(bool(np.all(np.isnan(P.solution))), f"{name}: step {k} series {s}: skipped, z not NaN")
                nan += 1
                continue
            # w is summed through the factors (dense M for the LCP set) in another order
            # than the comparison's: rounding, some ulp of max|q| (w's terms are of that
            # size), asserted within 1e-13 max|q|; the relative one within 1e-13.
            qs = np.max(np.abs(P.q))
            check(abs(got.natural - res[k - 1, s]) <= 1e-13 * qs,
                  f"{name}: step {k} series {s}: natural {got.natural:g} != {res[k - 1, s]:g}")
            check(abs(got.relative - rel[k - 1, s]) <= 1e-13,
                  f"{name}: step {k} series {s}: relative {got.relative:g} != {rel[k - 1, s]:g}")
            checked += s > 0
    check(checked > 0, f"{name}: no series but 0 checked")
    check(nan > 0 or name != "pdump", "pdump: no skipped lemke column met")
# A series that the file has not is refused by name.
try:
    r.lcp_problem(1, series=len(r.series.label))
    check(False, "series out of range accepted")
except KeyError as e:
    check("out of range" in str(e), f"series out of range: {e}")
print("compare dumps (python): " + ("ok" if not bad else "FAILED: " + "; ".join(bad)))
sys.exit(1 if bad else 0)
PYEOF
# The summary script refuses a compare file in one line naming lcpsim_compare.py (exit 2),
# whose suggested command prints the per-series table.
$PY scripts/lcpsim_load.py "$tmp/ind_dump.h5" > "$tmp/load_cmp.txt" 2>&1
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$tmp/load_cmp.txt")" -eq 1 ] && grep -q "lcpsim_compare.py .* --summary" "$tmp/load_cmp.txt" \
  || fail "lcpsim_load.py on a compare file: exit $rc: $(cat "$tmp/load_cmp.txt")"
$PY scripts/lcpsim_compare.py "$tmp/ind_dump.h5" --summary --no-figures > "$tmp/cmp_sum.md" \
  && grep -q '^| siconos:lemke | ' "$tmp/cmp_sum.md" || fail "lcpsim_compare.py --summary: $(cat "$tmp/cmp_sum.md")"
# Octave: the same through lcpsim_compare_load's lcp_problem (scripts/lcpsim_lcp_problem.m,
# which lcpsim_load.m shares; w through the factors where stored, else the dense M:
# tolerances as in Python above); lcpsim_load refuses a compare file naming
# lcpsim_compare_load.
if command -v octave-cli > /dev/null; then
  octave-cli -H --eval "addpath('scripts'); ok = true; tmp = '$tmp';
    for f = {'shadow1', 'pdump', 'ind_dump', 'set'}
      c = lcpsim_compare_load([tmp '/' f{1} '.h5']);
      mode = c.parameters.mode; res = c.results.residual; rel = c.results.relative_residual;
      checked = 0;
      for k = unique(double(c.lcp.step))'
        for s = 0:double(c.parameters.nseries) - 1
          try
            P = c.lcp_problem(k, s);
          catch err
            % Only an independent series' own step without contact has no problem.
            if ~strcmp(mode, 'independent') || c.results.lcp_size(k, s + 1) ~= 0
              printf('%s: step %d series %d: %s\n', f{1}, k, s, err.message); ok = false;
            end
            continue;
          end
          want = c.series.label{s + 1};
          if strcmp(mode, 'independent') want = 'own'; end
          if ~strcmp(P.z_label{P.column}, want)
            printf('%s: series %d column %s\n', f{1}, s, P.z_label{P.column}); ok = false;
          end
          got = P.residual(P.solution);
          if isnan(res(k, s + 1))
            ok = ok && all(isnan(P.solution));
            continue;
          end
          if abs(got.natural - res(k, s + 1)) > 1e-13 * max(abs(P.q)) || abs(got.relative - rel(k, s + 1)) > 1e-13
            printf('%s: step %d series %d: %g %g, file %g %g\n', f{1}, k, s, got.natural, got.relative, res(k, s + 1), rel(k, s + 1));
            ok = false;
          end
          checked += s > 0;
        end
      end
      ok = ok && checked > 0;
    end
    try
      lcpsim_load([tmp '/ind_dump.h5']); ok = false;
    catch err
      ok = ok && ~isempty(strfind(err.message, 'lcpsim_compare_load'));
    end
    exit(~ok);" > "$tmp/cmp_oct.txt" 2>&1 || fail "octave compare dumps: $(cat "$tmp/cmp_oct.txt")"
fi

# Figures from the Python script.
$PY scripts/lcpsim_compare.py "$tmp/shadow1.h5" -o "$tmp/fig" --name brick > /dev/null || fail "figures"
for f in brick_profile.png brick_profile.pdf brick_iterations.png brick_size.pdf; do
  [ -s "$tmp/fig/$f" ] || fail "figure $f missing"
done

# The profile on a hand-made table, in Python and Octave: problems x solvers, 4 x 2.
$PY - <<'PYEOF' || fails=$((fails + 1))
import sys
sys.path.insert(0, "scripts")
import numpy as np
import lcpsim_compare as lc
cost = np.array([[1, 2], [2, 1], [1, np.nan], [3, 3]], float)
ok = np.array([[1, 1], [1, 1], [1, 0], [0, 0]], bool)
taus, rho, ratios = lc.performance_profile(cost, ok)
assert np.allclose(taus, [1, 2, 2.1]), taus
assert np.allclose(rho, [[0.5, 0.25], [0.75, 0.5], [0.75, 0.5]]), rho
assert np.array_equal(ratios[3], [np.inf, np.inf]) and ratios[0, 1] == 2
print("python profile: ok")
PYEOF
if command -v octave-cli > /dev/null; then
  out=$(cd scripts && timeout 60 octave-cli --no-gui --eval "
    [t, r] = lcpsim_profile([1 2; 2 1; 1 NaN; 3 3], logical([1 1; 1 1; 1 0; 0 0]));
    ok = isequal(size(r), [3 2]) && max(abs(t - [1; 2; 2.1])) < 1e-12 && ...
         max(max(abs(r - [0.5 0.25; 0.75 0.5; 0.75 0.5]))) < 1e-12;
    c = lcpsim_compare_load('$tmp/shadow1.h5');
    ok = ok && isequal(size(c.results.status), [120 10]) && strcmp(c.series.label{2}, 'lemke (warm)');
    printf('%d\n', ok);" 2>/dev/null | tail -1)
  [ "$out" = "1" ] && echo "octave profile and loader: ok" || fail "octave profile/loader: '$out'"
  # The drawn profile's legend lies beside the last panel, not over its curves: coloured
  # names right of the panel's frame (before, the legend sat inside at the lower right,
  # over the ends of curves near 0, and nothing coloured lay beside the frame).
  (cd scripts && timeout 120 octave-cli -H --eval "lcpsim_profile('$tmp/shadow1.h5', '$tmp/profile_m.png');" \
     > "$tmp/profile_m.txt" 2>&1) || fail "octave profile figure: $(cat "$tmp/profile_m.txt")"
  $PY - "$tmp/profile_m.png" <<'PYEOF' || fails=$((fails + 1))
import sys
import matplotlib.image as mpimg
import numpy as np
img = mpimg.imread(sys.argv[1])[:, :, :3]
H, W, _ = img.shape
dark = img.max(axis=2) < 0.7
# the panels' frames: columns holding a dark vertical line over 40 % of the height
longest = np.zeros(W, int)
for x in range(W):
    run = 0
    for v in dark[:, x]:
        run = run + 1 if v else 0
        longest[x] = max(longest[x], run)
frames = np.nonzero(longest > 0.4 * H)[0]
assert frames.size, "no panel frame found"
right = frames.max()
rows = np.nonzero(dark[:, right])[0]
coloured = (img.max(axis=2) - img.min(axis=2)) > 0.25
beside = int(coloured[rows.min():rows.max(), right + 3:].sum())
if beside < 100:
    print(f"FAIL: octave profile: no legend beside the last panel (frame at x = {right} of {W}, {beside} coloured px right of it)")
    sys.exit(1)
print("octave profile legend beside the panels: ok")
PYEOF
fi

# Bad input: exit 2, one line on stderr, no file.
bad() { # EXPECTED_FRAGMENT ARGS...
  want=$1; shift
  $bin compare "$@" -o "$tmp/bad.h5" > /dev/null 2> "$tmp/bad.err"
  rc=$?
  [ $rc -eq 2 ] || fail "compare $*: exit $rc"
  [ "$(wc -l < "$tmp/bad.err")" -eq 1 ] || fail "compare $*: stderr: $(cat "$tmp/bad.err")"
  grep -qF -- "$want" "$tmp/bad.err" || fail "compare $*: expected '$want' in $(cat "$tmp/bad.err")"
  # (the partial file is bad.h5.<pid>.partial: scene/outfile.h)
  ls "$tmp"/bad.h5* > /dev/null 2>&1 && fail "compare $*: left a file: $(ls "$tmp"/bad.h5*)"
  rm -f "$tmp"/bad.h5*
}
bad "nosuch" data/two_blocks.json --solvers 'lemke,nosuch'
bad "malformed solver spec 'pgs[sweeps=10'" data/two_blocks.json --solvers 'lemke,pgs[sweeps=10'
bad "unknown option 'speed'" data/two_blocks.json --solvers 'pgs[speed=2]'
bad "sweeps must be an integer >= 1, got 'x'" data/two_blocks.json --solvers 'pgs[sweeps=x]'
bad "sparse_limit must be an integer >= -1, got -2" data/two_blocks.json --solvers 'newton[sparse_limit=-2]'
bad "listed twice" data/two_blocks.json --solvers 'lemke,lemke'
# The same solver and options written twice otherwise (two series of the same numbers
# under two names; both ran before): refused, naming both spellings.
bad "solver 'pgs[max_iter=10,tol=0]' is 'pgs[sweeps=10]' again" data/two_blocks.json \
  --solvers 'pgs[sweeps=10],pgs[max_iter=10,tol=0]'
bad "solver 'pgs[tol=1e-10]' is 'pgs' again" data/two_blocks.json --solvers 'pgs,pgs[tol=1e-10]'
bad "missing.json" "$tmp/missing.json" --solvers lemke
bad "--mode" data/two_blocks.json --solvers lemke --mode sideways
bad "siconos:qp" data/two_blocks.json --solvers 'lemke,siconos:qp'
bad "--solvers" data/two_blocks.json
bad "--dense-limit" data/two_blocks.json --solvers lemke --dense-limit -3
# Spec options of other solvers, keys given twice and two budgets are refused, as unknown
# keys are; --repeat has nothing to repeat in independent mode.
bad "solver spec 'lemke[omega=1.2]': omega is an option of pgs only; lemke does not use it" \
  data/two_blocks.json --solvers 'lemke[omega=1.2]'
bad "solver spec 'newton[threads=2]': threads is an option of pgs only; newton does not use it" \
  data/two_blocks.json --solvers 'pgs,newton[threads=2]'
bad "solver spec 'pgs[sparse_limit=5]': sparse_limit is an option of newton only" \
  data/two_blocks.json --solvers 'pgs[sparse_limit=5]'
bad "solver spec 'pgs[max_iter=10,sweeps=5]': max_iter=10 and sweeps=5 are two iteration budgets" \
  data/two_blocks.json --solvers 'lemke,pgs[max_iter=10,sweeps=5]'
bad "tol=1e-8 and sweeps=5 conflict" data/two_blocks.json --solvers 'pgs[sweeps=5,tol=1e-8]'
bad "omega is given twice (1.2 and 1.5)" data/two_blocks.json --solvers 'pgs[omega=1.2,omega=1.5]'
bad "--reference: solver spec 'lemke[omega=1.2]': omega is an option of pgs only" \
  data/two_blocks.json --solvers pgs --reference 'lemke[omega=1.2]'
bad "--repeat 3: --mode independent solves each step once" data/two_blocks.json \
  --solvers lemke,pgs --mode independent --repeat 3
# Sparse Lemke's LU settings as spec keys: refused with another solver or a bad value,
# and on identical problems (the same reference, which drives the trajectory) the same
# pivots and residual bits as the environment's LSIM_LU_SOLVE / LSIM_LU_REFACTOR give
# plain lemke_sparse. (Before: the reference's own lu/refactor settings did not reach the
# driver, which took the environment's: the problems differed from step 14 of pile_10.)
bad "solver spec 'lemke[lu=own]': lu is an option of lemke_sparse only; lemke does not use it" \
  data/two_blocks.json --solvers 'lemke[lu=own]'
bad "solver spec 'pgs[refactor=200]': refactor is an option of lemke_sparse only" \
  data/two_blocks.json --solvers 'pgs[refactor=200]'
bad "solver spec 'lemke_sparse[lu=dense]': lu must be umfpack, own, klu or ft, got 'dense'" \
  data/two_blocks.json --solvers 'lemke_sparse[lu=dense]'
bad "solver spec 'lemke_sparse[refactor=5]': refactor must be an integer in [10, 100000], got 5" \
  data/two_blocks.json --solvers 'lemke_sparse[refactor=5]'
ref='lemke_sparse[lu=umfpack,refactor=100]'
$bin compare data/pile_10.json --steps 60 --quiet --reference "$ref" \
  --solvers 'lemke_sparse[lu=own,refactor=200],lemke_sparse[lu=klu,refactor=10]' \
  -o "$tmp/lukeys.h5" || fail "lu keys: exit $?"
LSIM_LU_SOLVE=own LSIM_LU_REFACTOR=200 $bin compare data/pile_10.json --steps 60 --quiet \
  --reference "$ref" --solvers lemke_sparse -o "$tmp/luenv1.h5" || fail "lu env 1: exit $?"
LSIM_LU_SOLVE=klu LSIM_LU_REFACTOR=10 $bin compare data/pile_10.json --steps 60 --quiet \
  --reference "$ref" --solvers lemke_sparse -o "$tmp/luenv2.h5" || fail "lu env 2: exit $?"
$PY - "$tmp" <<'PYEOF' || fail "lu spec keys against the environment"
import sys, h5py
import numpy as np
t = sys.argv[1]
a = h5py.File(f"{t}/lukeys.h5", "r")
la = [x.decode() for x in a["series/label"][()]]
for env, spec in (("luenv1", "lemke_sparse[lu=own,refactor=200]"),
                  ("luenv2", "lemke_sparse[lu=klu,refactor=10]")):
    b = h5py.File(f"{t}/{env}.h5", "r")
    lb = [x.decode() for x in b["series/label"][()]]
    assert np.array_equal(a["problem_hash"][()], b["problem_hash"][()]), f"{env}: problems differ"
    for start in ("cold", "warm"):
        i, j = la.index(f"{spec} ({start})"), lb.index(f"lemke_sparse ({start})")
        for k in ("iterations", "status", "residual"):
            x, y = a[f"results/{k}"][:, i], b[f"results/{k}"][:, j]
            assert x.tobytes() == y.tobytes(), f"{spec} {start} {k}: {x} vs {y}"
        # The setting took effect: other residual bits than the reference's series.
        r = la.index(f"lemke_sparse[lu=umfpack,refactor=100] ({start})")
        assert a["results/residual"][:, i].tobytes() != a["results/residual"][:, r].tobytes()
PYEOF
# The file records sparse Lemke's settings in effect per series (/series/lu_solve, ...):
# newton's fallback and lemke's LU run take the environment's, lemke_sparse its spec's keys
# over it, other solvers none. Before, a newton series under LSIM_LU_SOLVE=own recorded
# nothing of it (no /series/lu_solve), though other settings give other bits.
LSIM_LU_SOLVE=own LSIM_LU_REFACTOR=200 LSIM_BLOCK_START=3 $bin compare data/two_blocks.json \
  --steps 5 --quiet --solvers 'newton,lemke,lemke_sparse[lu=klu],pgs' -o "$tmp/luseries.h5" \
  || fail "lu settings per series: exit $?"
$bin compare data/two_blocks.json --steps 5 --quiet --solvers 'newton,pgs' \
  -o "$tmp/luseries0.h5" || fail "lu settings per series (no environment): exit $?"
$PY - "$tmp" <<'PYEOF' || fail "sparse Lemke's settings per series"
import sys
sys.path.insert(0, "scripts")
import lcpsim_compare
t = sys.argv[1]
c = lcpsim_compare.load(f"{t}/luseries.h5")
want = {"newton": ("own", 3, 200), "lemke": ("own", 3, 200),
        "lemke_sparse[lu=klu]": ("klu", 3, 200), "pgs": ("", 0, 0)}
assert len(c.series.label) == 8, c.series.label
for s, label in enumerate(c.series.label):
    got = (c.series.lu_solve[s], int(c.series.block_start[s]), int(c.series.lu_refactor[s]))
    assert got == want[label.rsplit(" (", 1)[0]], (label, got)
c = lcpsim_compare.load(f"{t}/luseries0.h5")  # the built-in settings without the environment
for s, label in enumerate(c.series.label):
    got = (c.series.lu_solve[s], int(c.series.block_start[s]), int(c.series.lu_refactor[s]))
    assert got == (("umfpack", 0, 100) if label.startswith("newton") else ("", 0, 0)), (label, got)
PYEOF
if command -v octave-cli > /dev/null; then
  out=$(cd scripts && timeout 120 octave-cli -H --eval "c = lcpsim_compare_load('$tmp/luseries.h5');
    ok = isequal(c.series.lu_solve', {'own','own','own','own','klu','klu','',''}) && ...
         isequal(double(c.series.lu_refactor'), [200 200 200 200 200 200 0 0]);
    printf('%d\n', ok);" 2>/dev/null | tail -1)
  [ "$out" = "1" ] || fail "octave loader: sparse Lemke's settings per series: '$out'"
fi
# The reference's warm series is the solve that drives the trajectory: distance exactly 0
# on every step with an LCP (pile_10, 60 steps). Before, the driver took the scene's
# islands (1) and no cover=previous while the series took the spec's (islands 0 by
# default): lemke_sparse's warm series was up to 3.6e-10 m/s from the driver on 40 of 54
# steps.
for ref in lemke_sparse 'lemke_sparse[cover=previous]' 'lemke_sparse[islands=0]'; do
  $bin compare data/pile_10.json --steps 60 --quiet --reference "$ref" --solvers pgs \
    -o "$tmp/refwarm.h5" || fail "reference $ref: exit $?"
  $PY - "$tmp/refwarm.h5" <<'PYEOF' || fail "reference $ref: warm series is not the driver's solve"
import sys, h5py
import numpy as np
f = h5py.File(sys.argv[1], "r")
s = int(f["parameters/reference_series"][()])
n, d = f["results/lcp_size"][:, s], f["results/distance"][:, s]
assert (n > 0).sum() == 54, (n > 0).sum()
bad = np.nonzero((n > 0) & (d != 0))[0]
assert not len(bad), f"steps {bad + 1}: distances {d[bad]}"
PYEOF
done
# A reference written otherwise than the listed solver it is ('lemke[tol=1e-10]' for
# lemke, whose default tol that is) is that solver: 4 series, not 6 (a third lemke pair).
$bin compare data/two_blocks.json --solvers lemke,pgs --reference 'lemke[tol=1e-10]' --quiet \
  -o "$tmp/refsame.h5" || fail "reference spelled otherwise: exit $?"
$PY -c "
import h5py, sys
f = h5py.File(sys.argv[1], 'r')
labels = [x.decode() for x in f['series/label']]
assert labels == ['lemke (cold)', 'lemke (warm)', 'pgs (cold)', 'pgs (warm)'], labels
assert f['parameters/reference'][()] == b'lemke' and f['parameters/reference_series'][()] == 1
" "$tmp/refsame.h5" || fail "reference spelled otherwise: series"
# A comparison whose steps have no LCP (the ball still falling at step 10) says so in one
# note, exit 0, its file written (before: a table of dashes and nothing else), shadow
# and independent alike; a comparison with LCPs has no such note.
for m in shadow independent; do
  $bin compare data/bouncing_ball.json --solvers lemke,pgs --steps 10 --mode $m --quiet \
    -o "$tmp/nolcp.h5" 2> "$tmp/nolcp.err" || fail "no LCP ($m): exit $?"
  grep -qx "lcpsim compare: note: none of the 10 steps had an LCP (no contact or tether row active): no solver was compared; give more --steps or a scene whose bodies touch" \
    "$tmp/nolcp.err" && [ "$(wc -l < "$tmp/nolcp.err")" -eq 1 ] && [ -f "$tmp/nolcp.h5" ] \
    || fail "no LCP ($m): $(cat "$tmp/nolcp.err")"
done
$bin compare data/two_blocks.json --solvers lemke,pgs --quiet -o "$tmp/lcps.h5" 2> "$tmp/lcps.err" \
  && [ ! -s "$tmp/lcps.err" ] || fail "two_blocks: $(cat "$tmp/lcps.err")"
# A scene on a pipe (/dev/stdin), as lcpsim runs one: read once, compared (it had been
# probed for a problem file first, which left the scene reader an empty text: exit 2,
# "/dev/stdin:1:1: unexpected token near end of file"); the file keeps its text.
cat data/two_blocks.json | $bin compare /dev/stdin --solvers lemke,pgs --quiet -o "$tmp/stdin.h5" \
  2> "$tmp/stdin.err" || fail "compare /dev/stdin: exit $?: $(cat "$tmp/stdin.err")"
$PY -c "
import h5py, sys
f = h5py.File(sys.argv[1], 'r')
assert f['scene_text'][()].decode() == open('data/two_blocks.json').read()
assert f['results/status'].shape == (3, 4) and (f['problem_size'][()] > 0).all()
" "$tmp/stdin.h5" || fail "compare /dev/stdin: file"
# Scenes the time step does not run as written are refused at their key: an event-driven
# scene (its impacts resolved by its own Lemke; compared before as a time-stepped scene,
# exit 0, without a word), sequential impacts on the time step (ignored before), a hybrid
# model (no LCP at all).
bad 'bouncing_ball_events.json:9:17: integrator: "event_driven": a comparison hands the time step' \
  data/bouncing_ball_events.json --solvers lemke,pgs --steps 500
bad 'newtons_cradle.json:10:17: integrator: "event_driven"' data/newtons_cradle.json \
  --solvers lemke,pgs --mode independent
$PY -c "
import json, sys
d = json.load(open('data/bouncing_ball.json')); d['event_driven'] = {'impacts': 'sequential'}
json.dump(d, open(sys.argv[1], 'w'), indent=1)" "$tmp/sequential.json"
bad 'sequential.json:' "$tmp/sequential.json" --solvers lemke
grep -qF 'event_driven.impacts: "sequential" applies to "integrator": "event_driven"' "$tmp/bad.err" \
  || fail "sequential impacts: $(cat "$tmp/bad.err")"
bad 'slip.json:6:3: hybrid: a hybrid-model scene' data/slip.json --solvers lemke
# Coulomb's exact cone: nsgs_aa solves every step whatever the solver, so the reference's
# trajectory was nsgs_aa's (lemke's own series 8.1e-3 m/s from its "reference lemke") and
# in independent mode every series was nsgs_aa's trajectory (lemke and pgs 0 % success,
# 9.9e-15 m/s apart); both modes are refused at the key.
bad 'box_slide_45_exact.json:10:41: friction.cone: "exact": every step of this scene is solved by nsgs_aa' \
  data/box_slide_45_exact.json --solvers lemke,pgs
bad 'box_slide_45_exact.json:10:41: friction.cone' data/box_slide_45_exact.json --solvers lemke,pgs \
  --mode independent

# The help says what the code does: the factored form always dumped and only a dense
# reference stopping; pgs, newton and lemke_sparse never skipped above --dense-limit, lemke
# and siconos: solvers skipped there (checked on pile_10 below); refusals and exit 130/143.
$bin compare --help > "$tmp/help.txt" || fail "compare --help: exit $?"
grep -q "dumps are dense" "$tmp/help.txt" && fail "help: --dump-lcp still says dumps are dense"
grep -q "every step's factored form, and its dense M when n <= the" "$tmp/help.txt" || fail "help: --dump-lcp"
grep -q "those that need a dense M (all but pgs, newton and" "$tmp/help.txt" \
  && grep -q "lemke_sparse: lemke and the siconos: solvers) are skipped on" "$tmp/help.txt" \
  || fail "help: --dense-limit: $(grep -A4 -- --dense-limit "$tmp/help.txt")"
# It stops there with exit 1 and keeps the steps before it (checked above); the help had
# kept the exit 2 of the time before the file was kept.
grep -q "reference cannot drive those steps: exit 1 at the first one," "$tmp/help.txt" \
  && grep -q "the file keeping the steps before it (marked stopped)" "$tmp/help.txt" \
  || fail "help: dense reference: $(grep -A1 "cannot drive" "$tmp/help.txt")"
grep -q "refused with --mode independent" "$tmp/help.txt" || fail "help: --repeat"
grep -q "130 / 143 / 129 interrupted by SIGINT / SIGTERM / SIGHUP" "$tmp/help.txt" || fail "help: exit 130 / 143 / 129"
grep -q "new one of PATH names such leftovers in one stderr note" "$tmp/help.txt" || fail "help: leftovers"
# The problem files' usage lists --time-limit, --repeat and --quiet, which work there too
# (before, only the scene's usage listed them).
for opt in "--time-limit S" "--repeat K" "--quiet"; do
  sed -n '/compare FILE\.\.\./,/^  Compares/p' "$tmp/help.txt" | grep -q -- "$opt" \
    || fail "help: the file mode's usage lacks $opt"
done
$bin compare data/pile_10.json --steps 40 --dense-limit 30 --quiet \
  --solvers 'pgs[max_iter=300],newton,lemke_sparse,lemke,siconos:lemke' -o "$tmp/skip.h5" \
  || fail "pile_10 skip classes: exit $?"
$PY - "$tmp/skip.h5" <<'PYEOF' || fail "which solvers --dense-limit skips"
import sys, h5py
import numpy as np
with h5py.File(sys.argv[1], "r") as f:
    labels = [s.decode() for s in f["series/label"][()]]
    sk, big = f["results/skipped"][()], f["problem_size"][()] > 30
    assert big.sum() > 5, big.sum()
    for s, l in enumerate(labels):
        dense = l.startswith("lemke ") or l.startswith("siconos:")
        assert np.array_equal(sk[:, s] == 1, big if dense else np.zeros_like(big)), l
PYEOF

[ $fails -eq 0 ] && echo "ok: compare"
[ $fails -eq 0 ]
