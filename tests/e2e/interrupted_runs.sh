#!/bin/sh
# Interrupted and killed runs of the event-driven integrator and of hybrid models
# (docs/output-format.md, "Output files"; tests/e2e/output_files.sh does time stepping):
# SIGINT / SIGTERM end the run at the next sample or event, the file keeps every row
# written and says interrupted, exit 130 / 143; kill -9 leaves PATH.<pid>.partial with the
# run up to the last flush, which h5py, scripts/lcpsim_load.py and .m, lcpsim view (and
# scripts/lcpsim_hybrid_plot.py for hybrid files) read; the next run of the same -o
# mentions the leftover partial file in one stderr line. `lcpsim compare` likewise: SIGINT /
# SIGTERM stop it between steps, its file (renamed to the final name) keeping the steps
# done with /summary/run_end interrupted, exit 130 / 143, one stderr line; a killed
# comparison's leftover partial file is noted by the next comparison of that -o.
set -eu
cd "$(dirname "$0")/../.."
PY=/usr/bin/python3
out=$(mktemp -d /tmp/lsim_e2e_interrupt_XXXXXX)
trap 'rm -rf "$out"' EXIT
fail() { echo "interrupted_runs: $*" >&2; exit 1; }

# Runs long enough to be stopped: $out/ev.json, $out/hy.json (lib/long_runs.sh).
. tests/e2e/lib/long_runs.sh
long_runs "$out"

# A running run's partial file is read only while the run is stopped (stopped_when PID
# CMD...: tests/e2e/lib/stopped_when.sh).
. tests/e2e/lib/stopped_when.sh

# rows PARTIAL N: the partial file holds N samples and 3 events (flushed).
rows() {
  [ -f "$1" ] && $PY -c "
import sys, h5py
with h5py.File(sys.argv[1], 'r') as f:
    sys.exit(0 if len(f['time']) >= int(sys.argv[2]) and len(f['events/time']) >= 3 else 1)
" "$1" "$2"
}

# check FILE KIND END [REASON]: h5py reads FILE: rows finite, times strictly increasing at
# k * 0.05 s (event-driven) or increasing (hybrid), events finite and in time order, every
# table as long as its time column; /summary/run_end END (absent for "unfinished") with a
# reason starting REASON. Prints the samples.
check() {
  $PY - "$@" <<'EOF'
import sys, h5py
import numpy as np
path, kind, end = sys.argv[1:4]
with h5py.File(path, "r") as f:
    t = f["time"][:]
    n = len(t)
    assert n >= 100 and np.all(np.isfinite(t)) and np.all(np.diff(t) > 0), n
    et = f["events/time"][:]
    assert len(et) >= 3 and np.all(np.isfinite(et)) and np.all(np.diff(et) >= 0)
    assert et[-1] <= t[-1] + 0.9, (et[-1], t[-1])  # no event from beyond the rows' reach
    if kind == "ev":
        assert np.allclose(t, 0.05 * np.arange(n), rtol=0, atol=1e-9)
        for name in ("q", "v", "energy/kinetic", "energy/potential"):
            assert len(f[name]) == n and np.all(np.isfinite(f[name][:])), name
        assert len(f["solver/status"]) == n - 1 and len(f["contacts/offset"]) == n + 1
        assert f["contacts/offset"][-1] == len(f["contacts/gap"])
        for name in ("kind", "contact", "body_a", "body_b"):
            assert len(f["events/" + name]) == len(et), name
        # Restitution 1: the ball's apex stays 1 m (bottom), energy conserved to 1e-6 J.
        E = f["energy/kinetic"][:] + f["energy/potential"][:]
        assert np.max(np.abs(E - E[0])) < 1e-6, np.max(np.abs(E - E[0]))
    else:
        for name in ("state", "chart", "outputs"):
            assert len(f[name]) == n and np.all(np.isfinite(f[name][:])), name
        for name in ("from_chart", "to_chart", "boundary", "iterations", "boundary_value",
                     "state_before", "state_after"):
            assert len(f["events/" + name]) == len(et), name
            assert np.all(np.isfinite(f["events/" + name][:])), name
        assert np.allclose(f["model/initial_state"][:], [0, 1, 0.5, 0])
    if end == "unfinished":
        assert "summary" not in f
    else:
        assert f["summary/run_end"][()].decode() == end
        assert f["summary/run_end_reason"][()].decode().startswith(sys.argv[4])
        if kind == "ev":
            assert int(f["summary/steps_done"][()]) == n - 1
        else:
            assert int(f["summary/samples"][()]) == n
            assert int(f["summary/transitions"][()]) == len(et)
print(n)
EOF
}

# whole PARTIAL KIND N: the partial file reads as check has it (unfinished), N rows or more.
whole() {
  [ -f "$1" ] && wn=$(check "$1" $2 unfinished) && [ "$wn" -ge "$3" ]
}

# loaders FILE END: the Python and Octave loaders read FILE, with summary.run_end END.
loaders() {
  $PY - "$1" "$2" > "$out/py.txt" <<'EOF' || fail "lcpsim_load.py cannot read $1: $(cat "$out/py.txt")"
import sys
import numpy as np
sys.path.insert(0, "scripts")
import lcpsim_load
r = lcpsim_load.load(sys.argv[1])
assert r.summary.run_end == sys.argv[2], r.summary.run_end
assert np.all(np.diff(r.time) > 0) and np.all(np.isfinite(r.time))
print(lcpsim_load.summary(r))
EOF
  octave-cli -H --no-gui --eval "addpath('scripts'); r = lcpsim_load('$1'); \
    assert(strcmp(r.summary.run_end, '$2')); assert(all(diff(r.time) > 0)); \
    printf('%d\n', numel(r.time));" > "$out/oct.txt" 2>&1 \
    || fail "lcpsim_load.m cannot read $1: $(cat "$out/oct.txt")"
}

summary=""
for kind in ev hy; do
  # SIGINT and SIGTERM: the rows kept under the final name, marked interrupted.
  for sig in INT TERM; do
    f="$out/$kind-$sig.h5"
    ./lcpsim "$out/$kind.json" -o "$f" --quiet 2> "$out/err" & p=$!
    stopped_when $p rows "$f.$p.partial" 300
    kill -$sig $p
    kill -CONT $p
    rc=0; wait $p || rc=$?
    want=130; [ $sig = TERM ] && want=143
    [ "$rc" -eq $want ] || fail "$kind SIG$sig: exit $rc, expected $want: $(cat "$out/err")"
    [ "$(wc -l < "$out/err")" -eq 1 ] || fail "$kind SIG$sig: not one line: $(cat "$out/err")"
    if [ $kind = ev ]; then
      grep -q "interrupted by SIG$sig after [0-9]* of 20000000 samples; $f holds them (/summary/run_end: interrupted)" "$out/err" \
        || fail "ev SIG$sig: $(cat "$out/err")"
      reason="SIG$sig after step "
    else
      grep -q "SIG$sig: interrupted at t = [0-9.]* s; $f holds the run up to there (/summary/run_end: interrupted)" "$out/err" \
        || fail "hy SIG$sig: $(cat "$out/err")"
      reason="SIG$sig: interrupted at t = "
    fi
    n=$(check "$f" $kind interrupted "$reason") || fail "$kind SIG$sig: $f: $n"
    loaders "$f" interrupted
    ./lcpsim view "$f" -o "$out/$kind-$sig.html" > /dev/null && [ -s "$out/$kind-$sig.html" ] \
      || fail "$kind SIG$sig: lcpsim view failed"
    if [ $kind = hy ]; then
      $PY scripts/lcpsim_hybrid_plot.py "$f" -o "$out/hy-$sig.png" && [ -s "$out/hy-$sig.png" ] \
        || fail "hybrid plot of $f failed"
    fi
    summary="$summary $kind/SIG$sig $n rows;"
  done
  [ -z "$(ls "$out" | grep partial)" ] || fail "$kind: an interrupted run left a partial file"

  # kill -9: the partial file stays, with the run up to the last flush, and reads. Killed
  # while stopped where it reads whole (600 rows or more): a kill inside a flush can leave
  # its rows in pieces (docs/output-format.md, "Killed runs"), which is not checked here.
  f="$out/$kind-k.h5"
  ./lcpsim "$out/$kind.json" -o "$f" --quiet & p=$!
  part="$f.$p.partial"
  stopped_when $p whole "$part" $kind 600
  kill -9 $p
  wait $p || true
  [ -f "$part" ] && [ ! -e "$f" ] || fail "$kind kill -9: expected $part alone"
  n=$(check "$part" $kind unfinished) || fail "$kind kill -9: $part: $n"
  [ "$n" -ge 600 ] || fail "$kind kill -9: $n rows, fewer than seen before the kill"
  loaders "$part" unfinished
  ./lcpsim view "$part" -o "$out/$kind.html" > /dev/null || fail "$kind kill -9: lcpsim view failed"
  [ -s "$out/$kind.html" ] || fail "$kind kill -9: no page"
  if [ $kind = hy ]; then
    $PY scripts/lcpsim_hybrid_plot.py "$part" -o "$out/hy.png" || fail "hybrid plot of $part failed"
    [ -s "$out/hy.png" ] || fail "no hybrid plot"
  fi
  summary="$summary $kind/kill-9 $n rows;"

  # The next run of that -o: one note naming the leftover, which stays as it was.
  cksum "$part" > "$out/sum1"
  ./lcpsim "$out/$kind.json" -o "$f" --duration 2 --quiet 2> "$out/err" || fail "$kind rerun failed"
  [ "$(wc -l < "$out/err")" -eq 1 ] && grep -qF "lcpsim: note: $part is left from an earlier run of this output that did not finish" "$out/err" \
    || fail "$kind rerun: $(cat "$out/err")"
  cksum "$part" | cmp -s - "$out/sum1" || fail "$kind rerun touched $part"
  [ -f "$f" ] || fail "$kind rerun: no $f"
  rm -f "$part"
done

# Comparisons: the 3-D box stack (an LCP at every step, 44 ms a step with newton), far
# more steps than run before the signal; factored dumps (--dense-limit 0) kept small.
cmp_args="compare data/box_stack_3d.json --solvers pgs[sweeps=50],newton --dense-limit 0 --dump-lcp --steps 20000 --quiet"
# wait_partial PARTIAL: until the comparison's partial file exists (it has begun its steps),
# at most 60 s, then 1 s more (some steps done).
wait_partial() {
  end=$(($(date +%s) + 60))
  while [ ! -f "$1" ]; do
    [ "$(date +%s)" -lt $end ] || fail "$1 never appeared"
    sleep 0.1
  done
  sleep 1
}
# cmp_killed PARTIAL: prints the dumped steps of the killed comparison's file.
cmp_killed() {
  $PY - "$1" <<'EOF'
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    import numpy as np
    assert f["file_kind"][()] == b"compare" and "summary" not in f
    steps = f["lcp/step"][()]
    assert len(steps) >= 1 and steps[0] == 1, steps
    rows = f["step"][()]
    assert (rows == np.arange(1, len(steps) + 1)).all(), (rows, steps)
    assert f["results/status"].shape == (len(rows), 4), f["results/status"].shape
    assert [x.decode() for x in f["series/label"][()]][2] == "newton (cold)"
    assert np.isfinite(f["results/relative_residual"][()]).all()
    st = f["results/status"][()]
    assert ((st >= -10) & (st <= 1)).all(), st
    print(len(steps))
EOF
}
# SIGINT and SIGTERM: sent with the comparison stopped where its file holds a step or
# more whole (stopped_when, cmp_killed), so that K >= 1 on any machine (1 s after the file
# appeared could be before its first step on a loaded one: "after 0 of", also right, but
# then no step to re-solve).
for sig in INT TERM; do
  f="$out/cmp-$sig.h5"
  ./lcpsim $cmp_args -o "$f" 2> "$out/err" & p=$!
  stopped_when $p cmp_killed "$f.$p.partial"
  kill -$sig $p
  kill -CONT $p
  rc=0; wait $p || rc=$?
  want=130; [ $sig = TERM ] && want=143
  [ "$rc" -eq $want ] || fail "compare SIG$sig: exit $rc, expected $want: $(cat "$out/err")"
  [ "$(wc -l < "$out/err")" -eq 1 ] || fail "compare SIG$sig: not one line: $(cat "$out/err")"
  grep -q "^lcpsim compare: interrupted by SIG$sig after [1-9][0-9]* of 20000 steps; $f holds them (/summary/run_end: interrupted)$" "$out/err" \
    || fail "compare SIG$sig: $(cat "$out/err")"
  [ -f "$f" ] && [ -z "$(ls "$out" | grep partial)" ] || fail "compare SIG$sig: not renamed to $f"
  # h5py reads it: every per-step dataset has the K rows the summary and stderr say, the
  # dump the problems of steps 1..K (one a step), the summary written.
  k=$($PY - "$f" $sig <<'EOF'
import sys, h5py
import numpy as np
path, sig = sys.argv[1:3]
with h5py.File(path, "r") as f:
    k = int(f["summary/run_end_step"][()])
    assert k >= 1, k
    assert f["summary/run_end"][()] == b"interrupted"
    assert f["summary/run_end_reason"][()].decode() == f"SIG{sig} after step {k} of 20000"
    assert int(f["parameters/steps"][()]) == 20000
    assert np.array_equal(f["step"][()], np.arange(1, k + 1))
    P = int(f["parameters/nseries"][()])
    for name in ("time", "problem_size", "problem_hash"):
        assert f[name].shape == (k,), name
    for name in f["results"]:
        assert f["results/" + name].shape == (k, P), name
    assert np.all(f["problem_size"][()] > 0)
    assert np.array_equal(f["lcp/step"][()], np.arange(1, k + 1))
    assert f["summary/problems"].shape == (P,) and np.all(f["summary/problems"][()] == k)
print(k)
EOF
) || fail "compare SIG$sig: $f: $k"
  # The last step kept re-solves from its dump: newton from cold gives the stored newton
  # (cold) solution bit for bit (the same problem, the same deterministic solver), solved
  # or not (exit 0 or 1: newton reaches its iteration limit on some of the stack's steps).
  rc=0; ./lcpsim solve "$f" --step "$k" --solver newton > "$out/solve.txt" 2>&1 || rc=$?
  [ $rc -le 1 ] && grep -q "^distance to stored newton (cold): 0.000e+00 (impulses), 0.000e+00 (velocities)$" "$out/solve.txt" \
    || fail "compare SIG$sig: lcpsim solve $f --step $k: exit $rc: $(cat "$out/solve.txt")"
  summary="$summary compare/SIG$sig $k steps;"
done
# kill -9: the partial file stays; the next comparison of that -o notes it in one line.
# The comparison flushes its file once a second: killed after 2.5 s of steps, stopped
# where the file reads whole (cmp_killed; a kill inside a flush can leave it in pieces),
# the partial file opens with its header, the series, the tables' rows and the LCPs dumped
# up to its last flush (as many rows as dumps: every step of the stack has an LCP), no
# summary; lcpsim solve re-solves the first step, the loaders read the rows.
f="$out/cmp-k.h5"
./lcpsim $cmp_args -o "$f" & p=$!
part="$f.$p.partial"
wait_partial "$part"
sleep 1.5
stopped_when $p cmp_killed "$part"
kill -9 $p
wait $p || true
[ -f "$part" ] && [ ! -e "$f" ] || fail "compare kill -9: expected $part alone"
k=$(cmp_killed "$part") || fail "compare kill -9: $part does not open with its dumps: $k"
# (exit 0 solved, 1 not solved: either is a re-solve; 2 would be a file it cannot read)
rc=0
./lcpsim solve "$part" --step 1 --solver newton > "$out/ksolve.txt" 2>&1 || rc=$?
[ "$rc" -le 1 ] && grep -q "^problem .* step 1 series 0" "$out/ksolve.txt" \
  || fail "compare kill -9: lcpsim solve $part --step 1: exit $rc: $(cat "$out/ksolve.txt")"
# The re-solve (newton, cold: deterministic) reaches the relative residual that the row of
# step 1 holds for "newton (cold)" (printed to 4 digits: 1e-3 relative).
rel=$(sed -n 's/^natural residual .*relative to max|q|: \([^)]*\))$/\1/p' "$out/ksolve.txt")
$PY - "$part" "$rel" <<'EOF' || fail "compare kill -9: row 1 of newton (cold) is not the re-solve's $rel"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    stored = f["results/relative_residual"][0, 2]
assert abs(stored - float(sys.argv[2])) <= 1e-3 * max(stored, 1e-300), (stored, sys.argv[2])
EOF
$PY scripts/lcpsim_compare.py "$part" --summary --no-figures > /dev/null 2> "$out/err" && fail "compare kill -9: --summary of a partial file exited 0"
grep -q "a comparison killed before its end ($k problems written, no /summary)" "$out/err" \
  || fail "compare kill -9: lcpsim_compare.py --summary: $(cat "$out/err")"
./lcpsim compare data/two_blocks.json --solvers lemke -o "$f" --quiet 2> "$out/err" || fail "compare rerun failed"
[ "$(wc -l < "$out/err")" -eq 1 ] && grep -qF "lcpsim: note: $part is left from an earlier run of this output that did not finish" "$out/err" \
  || fail "compare rerun: $(cat "$out/err")"
[ -f "$f" ] && [ -f "$part" ] || fail "compare rerun: $f missing or $part removed"
# kill -9 of a comparison that keeps its reference's run (--trajectory) leaves two files,
# its own and the run's (PATH.<pid>.partial.trajectory.<pid>.partial); the next comparison
# of that -o counts both (it had named the first alone, the run's left unsaid).
f="$out/cmp-kt.h5"
./lcpsim compare data/pile_10.json --solvers lemke,pgs --steps 100000 --trajectory --quiet \
  -o "$f" & p=$!
part="$f.$p.partial"
wait_partial "$part.trajectory.$p.partial"
kill -9 $p
wait $p || true
[ -f "$part" ] && [ -f "$part.trajectory.$p.partial" ] || fail "compare --trajectory kill -9: $(ls "$out")"
./lcpsim compare data/two_blocks.json --solvers lemke -o "$f" --quiet 2> "$out/err" || fail "compare rerun failed"
[ "$(wc -l < "$out/err")" -eq 1 ] && grep -qF "lcpsim: note: $part and 1 more $f.<pid>.partial are left" "$out/err" \
  || fail "compare --trajectory rerun: $(cat "$out/err")"
echo "interrupted_runs:$summary a killed comparison's $k rows and dumped steps read; leftover partials noted"
