#!/bin/sh
# compare_fairness.sh: `lcpsim compare` reports every solver on the same footing.
#   - warm_started: a trajectory's first step hands an all-zero guess, which is a cold start
#     for every solver (pgs, newton and siconos:rpgs had said 1, lemke 0); from step 2 the
#     warm series of the solvers that read a guess say 1, Siconos' pivoting Lemke 0, cold
#     series 0; independent trajectories alike;
#   - summaries: every aggregate of solutions (times, iterations, residuals, distances,
#     cone violations) over the solves that did not fail, recomputed here from /results;
#     siconos:cpg fails on two SPD problems with a distance larger than any of its
#     solutions', which the summary leaves out, while its budget stop counts; a reference
#     that fails gives no distance; the summary lcpsim_compare.py prints from the file is
#     the command's own, column for column;
#   - frictional contact sets: every solver is timed from our problem to its reaction, its
#     setup included (Siconos' problem and options built from ours, the polyhedral LCP
#     built and r = G x); the setup is recorded apart in /results/setup_wall_time: 0 for
#     nsgs (it reads ours), measured (> 0) for the others, never above the time, NaN where
#     skipped; with --repeat 3 too (medians). No timing threshold;
#   - budget stops: our PGS and Siconos' PGS and RPGS given 3 sweeps on lcp_mmc all stop at
#     that budget and are recorded alike (max_iterations, 3 iterations, not failures);
#     Siconos' info 1 had made its budget stops failures;
#   - the untimed first solve of each series (once-per-process costs kept out of the first
#     problem's time) leaves the answers alone: two sets in opposite orders give the same
#     rows, every dataset but the timings, LCP and frictional contact sets alike;
#   - the Octave profile (scripts/lcpsim_profile.m) draws the panels of the Python one: a
#     shadow run with solves skipped above --dense-limit (over the problems every series of
#     the panel tried) and a frictional contact set (3-D and 2-D apart), equal taus and rho
#     (it had taken every problem, counting skipped solves and the other dimension's
#     problems as failures);
#   - the size figure places the series of one size around that size on a linear axis
#     (a log axis had spread the series of n = 120 over 116 .. 123, as different sizes);
#   - a frictional contact set refuses --reference (no distance is measured; the reference
#     asked for had been ignored, the file naming the first solver), and problem files
#     refuse --steps and --dense-limit (ignored before): exit 2, one line, no file;
#   - LCP sets measure a distance wherever the solution is unique (M a P-matrix): lcp_ortiz
#     (symmetric part PD), Murty's triangular lcp_exp_murty (every principal minor
#     positive), its sparse-block twin, not only SPD M; none on lcp_CPS_1 (a line of
#     solutions) nor lcp_tobenna (n = 40, not shown).
set -u
cd "$(dirname "$0")/../.."
bin=./lcpsim
PY=/usr/bin/python3
S=${LSIM_SHARED:-../shared}/data
tmp=$(mktemp -d /tmp/lsim_e2e_fair_XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# A stack of boxes resting on the ground: an LCP from step 1, whose solution is not 0.
$bin compare data/box_stack_3d.json --steps 3 --dump-lcp --quiet -o "$tmp/shadow.h5" \
  --solvers 'lemke,pgs,newton,siconos:rpgs,lemke_sparse,siconos:lemke' || fail "shadow: exit $?"
$bin compare data/box_stack_3d.json --steps 3 --mode independent -o "$tmp/indep.h5" \
  --solvers 'lemke[warm=1],pgs[warm=1],newton[warm=1],siconos:rpgs[warm=1],lemke_sparse[warm=1],siconos:lemke[warm=1]' \
  > "$tmp/indep.md" || fail "independent: exit $?"
# LCP set: three SPD problems (unique solutions) and one (lcp_CPS_2) where siconos:cpg
# stops at its budget.
D=$S/siconos-lcp
$bin compare "$D/lcp_trivial.dat" "$D/lcp_deudeu.dat" "$D/lcp_mmc.dat" "$D/lcp_CPS_2.dat" \
  --solvers 'lemke,pgs,siconos:cpg,siconos:rpgs' -o "$tmp/set.h5" > "$tmp/set.md" || fail "set: exit $?"
$bin compare "$D/lcp_trivial.dat" "$D/lcp_mmc.dat" --reference siconos:cpg --quiet \
  --solvers 'lemke,pgs' -o "$tmp/refail.h5" || fail "set, failing reference: exit $?"
# Frictional contact set: our exact-cone solvers, Siconos', and a polyhedral LCP.
F=$S/siconos-fc3d
$bin compare "$F/FC3D_Example1.dat" "$F/Rover4396.dat" "$F/FrictionContactProblem00394.dat" \
  --solvers 'nsgs,siconos:fc3d_nsgs,siconos:fc2d_nsgs,lemke[d=4]' -o "$tmp/fc.h5" \
  > "$tmp/fc.md" || fail "fc set: exit $?"
$bin compare "$F/FC3D_Example1.dat" "$F/FrictionContactProblem00394.dat" --repeat 3 \
  --solvers 'nsgs_aa,siconos:fc3d_nsgs,siconos:fc2d_nsgs,siconos:lemke[d=8]' --quiet \
  -o "$tmp/fc3.h5" || fail "fc set, --repeat 3: exit $?"
$bin compare "$D/lcp_mmc.dat" --solvers 'pgs[max_iter=3],siconos:pgs[max_iter=3],siconos:rpgs[max_iter=3]' \
  --quiet -o "$tmp/budget.h5" || fail "budget: exit $?"
$bin compare "$D/lcp_mmc.dat" "$D/lcp_trivial.dat" "$D/lcp_CPS_3.dat" --quiet -o "$tmp/order1.h5" \
  --solvers 'lemke,pgs,newton,siconos:lemke,siconos:rpgs' || fail "order 1: exit $?"
$bin compare "$D/lcp_CPS_3.dat" "$D/lcp_trivial.dat" "$D/lcp_mmc.dat" --quiet -o "$tmp/order2.h5" \
  --solvers 'lemke,pgs,newton,siconos:lemke,siconos:rpgs' || fail "order 2: exit $?"
$bin compare "$F/Rover4396.dat" "$F/FC3D_Example1.dat" --quiet -o "$tmp/fcorder1.h5" \
  --solvers 'nsgs,siconos:fc3d_nsgs,lemke[d=4]' || fail "fc order 1: exit $?"
$bin compare "$F/FC3D_Example1.dat" "$F/Rover4396.dat" --quiet -o "$tmp/fcorder2.h5" \
  --solvers 'nsgs,siconos:fc3d_nsgs,lemke[d=4]' || fail "fc order 2: exit $?"
$bin compare data/pile_10.json --solvers 'pgs,lemke,newton' --steps 40 --dense-limit 100 \
  --quiet -o "$tmp/dl.h5" || fail "dense limit: exit $?"
refused() { # EXPECTED ARGS...: exit 2, one line on stderr naming it, no file
  want=$1; shift
  $bin compare "$@" -o "$tmp/refused.h5" > /dev/null 2> "$tmp/refused.err"
  rc=$?
  [ $rc -eq 2 ] && [ "$(wc -l < "$tmp/refused.err")" -eq 1 ] && ! ls "$tmp"/refused.h5* > /dev/null 2>&1 &&
    grep -q -- "$want" "$tmp/refused.err" || fail "compare $*: exit $rc, $(cat "$tmp/refused.err")"
}
refused "--reference: frictional contact sets have no reference" "$F/FC3D_Example1.dat" \
  --solvers 'nsgs,siconos:fc3d_nsgs' --reference siconos:fc3d_nsgs
refused "--steps: problem files have no steps" "$D/lcp_mmc.dat" --solvers lemke --steps 3
refused "--steps: problem files have no steps" "$F/FC3D_Example1.dat" --solvers nsgs --steps 3
refused "--dense-limit: problem files have no dense limit" "$D/lcp_mmc.dat" --solvers lemke --dense-limit 5
refused "--dense-limit: problem files have no dense limit" "$F/FC3D_Example1.dat" --solvers nsgs --dense-limit 5
$bin compare "$D/lcp_ortiz.dat" "$D/lcp_exp_murty.dat" "$D/lcp_ortiz_block.dat" "$D/lcp_CPS_1.dat" \
  "$D/lcp_tobenna.dat" --solvers 'lemke,siconos:lemke,newton' --quiet -o "$tmp/unique.h5" \
  || fail "unique: exit $?"
grep -q "over the solves that did not fail" "$tmp/set.md" || fail "summary note: $(cat "$tmp/set.md")"
# The summary from the file (lcpsim_compare.py --summary) is the one the command printed,
# column for column (it had no budget, skipped, tolerance nor last column), also for a
# comparison whose steps had no LCP (success '-', where the script had printed '-%').
$bin compare data/bouncing_ball.json --solvers lemke,pgs --steps 10 -o "$tmp/nolcp.h5" \
  > "$tmp/nolcp.md" 2> /dev/null || fail "no LCP: exit $?"
for r in set fc indep nolcp; do
  $PY scripts/lcpsim_compare.py "$tmp/$r.h5" --summary --no-figures > "$tmp/$r.py.md" || fail "$r: --summary"
  tail -n +3 "$tmp/$r.md" | diff - "$tmp/$r.py.md" > "$tmp/$r.diff" || fail "$r: summaries differ: $(cat "$tmp/$r.diff")"
done

$PY - "$tmp" <<'PYEOF' || fails=$((fails + 1))
import sys
import h5py
import numpy as np
tmp = sys.argv[1]
ok = True
def check(cond, what):
    global ok
    if not cond:
        print("FAIL:", what)
        ok = False

def labels(f):
    return [x.decode() for x in f["series/label"][()]]

# --- warm_started, shadow mode ---
with h5py.File(f"{tmp}/shadow.h5", "r") as f:
    lab, warm = labels(f), f["results/warm_started"][()]
    guess, off = f["lcp/warm"][()], f["lcp/offset"][()]
    check(np.all(f["problem_size"][()] > 0), "box stack: an LCP every step")
    check(not guess[off[0]:off[1]].any(), "step 1: the warm series' guess is all zero")
    check(guess[off[1]:off[2]].any(), "step 2: a non-zero guess")
    # step 1: every series cold, whatever the solver
    check(not warm[0].any(), f"step 1 warm_started {dict(zip(lab, warm[0]))}")
    for s, l in enumerate(lab):
        if l.endswith("(cold)") or l.startswith("siconos:lemke"):
            want = 0   # cold series; a pivoting Siconos solver reads no guess
        else:
            want = 1   # warm series of a solver that starts from the guess
        check(np.all(warm[1:, s] == want), f"{l}: steps 2-3 warm_started {warm[1:, s]}, want {want}")

# --- warm_started, independent mode: the same rule on each trajectory ---
with h5py.File(f"{tmp}/indep.h5", "r") as f:
    lab, warm = labels(f), f["results/warm_started"][()]
    check(not warm[0].any(), f"independent step 1: {dict(zip(lab, warm[0]))}")
    for s, l in enumerate(lab):
        want = 0 if l.startswith("siconos:lemke") else 1
        check(np.all(warm[1:, s] == want), f"independent {l}: {warm[1:, s]}")

# --- summaries: recomputed from /results over the solves that did not fail ---
def failed(st):
    return (st < 0) & (st != -1)

def recheck(path):
    with h5py.File(path, "r") as f:
        r = {k: f["results/" + k][()] for k in f["results"]}
        sm = {k: f["summary/" + k][()] for k in f["summary"]}
        lab = labels(f)
    for s, l in enumerate(lab):
        has = r["lcp_size"][:, s] > 0
        bad = has & failed(r["status"][:, s])
        good = has & ~bad
        def agg(fn, v):
            v = v[good]
            v = v[~np.isnan(v)]
            return fn(v) if v.size else np.nan
        def same(a, b):
            return (np.isnan(a) and np.isnan(b)) or a == b
        check(sm["problems"][s] == has.sum(), f"{path} {l}: problems")
        check(sm["failures"][s] == bad.sum(), f"{path} {l}: failures")
        for key, fn, col in (("median_wall_time", np.median, "wall_time"),
                             ("worst_wall_time", np.max, "wall_time"),
                             ("median_relative_residual", np.median, "relative_residual"),
                             ("worst_relative_residual", np.max, "relative_residual"),
                             ("max_distance", np.max, "distance"),
                             ("worst_cone_violation", np.max, "cone"),
                             ("median_iterations", np.median, "iterations")):
            want = agg(fn, r[col][:, s].astype(float))
            check(same(float(sm[key][s]), float(want)), f"{path} {l}: {key} {sm[key][s]} != {want}")
        mi = r["iterations"][good, s]
        check(sm["max_iterations"][s] == (mi.max() if mi.size else 0), f"{path} {l}: max_iterations")
        tf = r["wall_time"][bad, s]
        want = np.median(tf) if tf.size else np.nan
        check(same(float(sm["median_failure_wall_time"][s]), float(want)),
              f"{path} {l}: median_failure_wall_time")
    return r, sm, lab

r, sm, lab = recheck(f"{tmp}/set.h5")
c = lab.index("siconos:cpg")
st, dist = r["status"][:, c], r["distance"][:, c]
# cpg fails on lcp_trivial and lcp_deudeu (SPD: a distance is defined) with a distance
# larger than on the one it solves (lcp_mmc): the summary's largest distance is that one.
check(failed(st[0]) and failed(st[1]) and st[2] == 0, f"cpg statuses {st}")
check(np.isfinite(dist[:2]).all() and dist[:2].max() > dist[2], f"cpg distances {dist}")
check(sm["max_distance"][c] == dist[2], f"cpg max_distance {sm['max_distance'][c]} != {dist[2]}")
# on lcp_CPS_2 it stops at its budget (10 000 iterations, a Siconos info 1 that is no
# failure): that solution counts, its residual is the worst
check(st[3] == -1 and sm["worst_relative_residual"][c] == r["relative_residual"][3, c],
      f"cpg budget stop on lcp_CPS_2: status {st[3]}, worst residual {sm['worst_relative_residual'][c]}")
check(sm["budget_stops"][c] == 1 and sm["failures"][c] == 2, "cpg: 1 budget stop, 2 failures")
recheck(f"{tmp}/shadow.h5")
recheck(f"{tmp}/indep.h5")
recheck(f"{tmp}/fc.h5")

# A reference that fails (siconos:cpg on lcp_trivial, SPD) gives no distance on that
# problem; where it solves (lcp_mmc), distances are there.
with h5py.File(f"{tmp}/refail.h5", "r") as f:
    lab, st, dist = labels(f), f["results/status"][()], f["results/distance"][()]
    ref = int(f["parameters/reference_series"][()])
    check(lab[ref] == "siconos:cpg" and failed(st[0, ref]) and st[1, ref] == 0, f"reference {lab[ref]} {st[:, ref]}")
    check(np.isnan(dist[0]).all(), f"distances to a failed reference: {dist[0]}")
    check(np.isfinite(dist[1]).all() and dist[1, ref] == 0.0, f"distances on lcp_mmc: {dist[1]}")

# --- budget stops recorded alike, ours and Siconos' ---
with h5py.File(f"{tmp}/budget.h5", "r") as f:
    st, it = f["results/status"][()], f["results/iterations"][()]
    check(np.all(st == -1) and np.all(it == 3), f"budget stops: status {st}, iterations {it}")
    check(np.all(f["summary/budget_stops"][()] == 1) and np.all(f["summary/failures"][()] == 0),
          "budget stops counted as such, not as failures")

# --- answers do not depend on which problem comes first (a series' first one is primed) ---
for a, b in (("order1", "order2"), ("fcorder1", "fcorder2")):
    with h5py.File(f"{tmp}/{a}.h5", "r") as fa, h5py.File(f"{tmp}/{b}.h5", "r") as fb:
        for k in fa["results"]:
            if "wall" in k:
                continue
            x, y = fa["results/" + k][()], fb["results/" + k][()][::-1]
            same = x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes()
            check(same, f"{a}/{b}: results/{k} depends on the order")

# --- distances where the solution is unique (every solver solves these five) ---
with h5py.File(f"{tmp}/unique.h5", "r") as f:
    st, dist = f["results/status"][()], f["results/distance"][()]
    check(np.all(st == 0), f"unique: statuses {st}")
    # the three end on the same basis (distance 0); 1e-8 leaves room for rounding
    check(np.all(np.isfinite(dist[:3])) and np.all(dist[:3] <= 1e-8), f"P-matrix distances {dist[:3]}")
    check(np.all(np.isnan(dist[3:])), f"no distance without uniqueness: {dist[3:]}")

# --- frictional contact sets: setup inside the time, recorded apart ---
for name in ("fc", "fc3"):
    with h5py.File(f"{tmp}/{name}.h5", "r") as f:
        lab, st = labels(f), f["results/status"][()]
        wall, setup = f["results/wall_time"][()], f["results/setup_wall_time"][()]
        skipped = f["results/skipped"][()] == 1
    check(setup.shape == wall.shape, f"{name}: setup_wall_time shape {setup.shape}")
    check(np.isnan(setup[skipped]).all() and skipped.any(), f"{name}: NaN where skipped")
    run = ~skipped
    check(np.all(setup[run] <= wall[run]), f"{name}: setup above the time: {setup} {wall}")
    for s_, l in enumerate(lab):
        r = run[:, s_]
        if l.startswith("nsgs"):
            check(np.all(setup[r, s_] == 0.0), f"{name} {l}: reads our problem, setup {setup[r, s_]}")
        else:
            check(np.all(setup[r, s_] > 0.0), f"{name} {l}: setup not measured {setup[r, s_]}")

sys.exit(0 if ok else 1)
PYEOF

# Series positions in the size figure.
$PY - <<'PYEOF' || fail "size figure positions"
import sys
sys.path.insert(0, "scripts")
import numpy as np
import lcpsim_compare as lc
sizes = np.full((30, 5), 120)
log, place = lc.size_positions(sizes, 5)
x = np.array([place(np.array([120.0]), j)[0] for j in range(5)])
# one size: linear axis, 5 distinct places centred on 120, within 0.3 * 24 of it
assert not log and len(set(x)) == 5 and abs(x.mean() - 120) < 1e-12 and np.all(abs(x - 120) <= 7.2), x
# sizes 24 .. 240 (a decade): a log axis, each series 1.5 % from the next
log, place = lc.size_positions(np.array([[24, 48], [240, 0]]), 2)
assert log and abs(place(np.array([100.0]), 1)[0] / place(np.array([100.0]), 0)[0] - 1.0 / 0.985) < 1e-12
# sizes 24, 48, 72: linear, series within 0.6 of the gap 24
log, place = lc.size_positions(np.array([24, 48, 72]), 3)
assert not log and abs(place(np.array([48.0]), 2)[0] - place(np.array([48.0]), 0)[0] - 0.6 * 24 * 2 / 3) < 1e-12
PYEOF

# Octave's profile panels against Python's, number for number.
if command -v octave-cli > /dev/null; then
  for r in dl fc; do
    (cd scripts && timeout 120 octave-cli -H --no-gui --eval "
      [t, r] = lcpsim_profile('$tmp/$r.h5', '');
      for g = 1:numel(t)
        printf('panel %d %d %d\n', g, size(r{g}, 1), size(r{g}, 2));
        printf('%.17g\n', t{g});
        printf('%.17g\n', r{g});
      end" > "$tmp/$r.oct" 2> /dev/null) || fail "octave profile $r: exit $?"
  done
  $PY - "$tmp" <<'PYEOF' || fails=$((fails + 1))
import sys
sys.path.insert(0, "scripts")
import numpy as np
import lcpsim_compare as lc
tmp = sys.argv[1]
ok = True
for name in ("dl", "fc"):
    c = lc.load(f"{tmp}/{name}.h5")
    lines = open(f"{tmp}/{name}.oct").read().split("\n")
    panels, i = [], 0
    while i < len(lines):
        if lines[i].startswith("panel"):
            _, g, nt, ns = lines[i].split()
            nt, ns = int(nt), int(ns)
            vals = np.array([float(x) for x in lines[i + 1:i + 1 + nt + nt * ns]])
            panels.append((vals[:nt], vals[nt:].reshape(ns, nt).T))
            i += 1 + nt + nt * ns
        else:
            i += 1
    py = lc.profile_panels(c)
    if len(panels) != len(py):
        print(f"FAIL: {name}: {len(panels)} Octave panels, {len(py)} Python panels"); ok = False
        continue
    for (t_o, r_o), (title, rows, ser) in zip(panels, py):
        cost = c.results.wall_time[np.ix_(rows, ser)]
        t_p, r_p, _ = lc.performance_profile(cost, c.results.success[np.ix_(rows, ser)] == 1)
        if t_o.shape != t_p.shape or r_o.shape != r_p.shape or \
           np.max(np.abs(t_o - t_p)) > 1e-12 * np.max(t_p) or np.max(np.abs(r_o - r_p)) > 1e-12:
            print(f"FAIL: {name} '{title}': Octave and Python profiles differ"); ok = False
    if name == "dl":  # the dense solver's skipped steps leave the panels
        if not all(len(rows) < int((c.problem_size > 0).sum()) for _, rows, _ in py):
            print("FAIL: dl: no skipped steps left out"); ok = False
sys.exit(0 if ok else 1)
PYEOF
fi

[ "$fails" -eq 0 ] || { echo "compare_fairness.sh: $fails failure(s)"; exit 1; }
echo "compare_fairness.sh: ok"
