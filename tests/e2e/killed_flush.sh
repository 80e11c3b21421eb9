#!/bin/sh
# A run killed (kill -9) at any point of the flush where its chunk indexes first grow past
# 64 chunks (16385 rows; docs/output-format.md, "Killed runs") leaves a file that
# --resume continues, to the rows of one run, bit for bit. The run's writes to its file
# are traced (strace); the file as the writes up to each one of that flush left it is what
# a kill right after that write leaves (a killed process's completed writes stay in the
# page cache), and each is resumed (tests/e2e/flush_replay.py). With the 1.8 format's
# v1 B-tree chunk index, 3 of the flush's 70 writes left /q unreadable ("cannot read row 0
# of /q", exit 2: the index's root split, written before its new children). The same for
# every write of the run's last flush and its close.
set -eu
cd "$(dirname "$0")/../.."
PY=/usr/bin/python3
L=$(pwd)/lcpsim
scene=$(pwd)/data/bouncing_ball.json
out=$(mktemp -d /tmp/lsim_e2e_killed_flush_XXXXXX)
trap 'rm -rf "$out"' EXIT
fail() { echo "killed_flush: $*" >&2; exit 1; }
. tests/e2e/trace_writes.sh
trace_writes_or_skip killed_flush

# 16640 steps (65 flushes of 256): the flush of step 16384 writes the 65th chunk of every
# state series (/time, /q, /v, /energy/*, /solver/*). h = 1 ms: the ball rests from 3.9 s.
trace_writes "$out/trace" \
  "$L" "$scene" --steps 16640 -o "$out/run.h5" --quiet || fail "the traced run failed"
"$L" "$scene" --steps 16700 -o "$out/straight.h5" --quiet


# Each cut: resumed from its last whole flush (/flushed_rows: step 16128, or 16384 once
# the flush's mark is written) to step 16700, equal to the straight run (same_run.py
# --serve: one Python reads the straight run once and checks every cut, two at a time).
check="serve:$PY tests/e2e/same_run.py --serve '$out/straight.h5' 60 '$out' '$L' '$scene' --steps 16700"
$PY tests/e2e/flush_replay.py "$out/trace" "$out/run.h5" 16385 "$out/cut.h5" "$check" > "$out/log" ||
  fail "a kill inside the flush of step 16384 left a file not resumed as one run: $(cat "$out/log")"
echo "killed_flush: flush of step 16384: $(head -1 "$out/log")"
grep -q "^cuts [1-9][0-9], failed 0$" "$out/log" || fail "too few cuts: $(cat "$out/log")"
# The last flush and the close (/summary linked into the root group: a kill where the
# root's name heap had moved left every root name unreadable, 2 of 110 files refused,
# "written by lcpsim (unknown)"; a file the close finished resumes as a completed run).
$PY tests/e2e/flush_replay.py "$out/trace" "$out/run.h5" 0 "$out/cut.h5" "$check" > "$out/log" ||
  fail "a kill inside the close left a file not resumed as one run: $(cat "$out/log")"
echo "killed_flush: last flush and close: $(head -1 "$out/log")"
grep -q "^cuts [1-9][0-9][0-9]*, failed 0$" "$out/log" || fail "too few cuts: $(cat "$out/log")"

# Hybrid-model files and comparison files have their marks too (/flushed_rows; a hybrid
# run's /flushed_events, a comparison's /flushed_lcp_problems with --dump-lcp), and their
# loaders read up to them, saying what they left out. Every write after the header's
# flush (a hybrid run's first flush, with its initial state, its flush of 4096 rows, its
# last rows' flush and the close; a comparison's flushes of 4096 rows and its close, with
# /summary, /problem_name and /trajectory linked after the flush that wrote them) leaves a
# file the loader of its kind reads, losing no row of an earlier flush, every row equal to
# the finished file's, and saying when it left rows out (tests/e2e/cut_reads.py). Before
# the marks, 21 of 201 points of that hybrid run unreadable or reading zeros (9 in the
# first flush, 6 and 6 in the flushes of rows), and 233 of 265 points of a 12000-step
# comparison's (whose header came only with its one flush of rows: "addr overflow",
# "no /format_version").
trace_writes "$out/htrace" \
  "$L" data/bouncing_mass.json -o "$out/hybrid.h5" --quiet || fail "the traced hybrid run failed"
$PY tests/e2e/flush_replay.py "$out/htrace" "$out/hybrid.h5" from:3 "$out/cut.h5" \
  "serve:$PY tests/e2e/cut_reads.py '$out/cut.h5.start' '$out/hybrid.h5' hybrid '$out/hcut.h5'" > "$out/log" ||
  fail "a kill inside a hybrid run's flushes left a file that does not read whole: $(cat "$out/log")"
echo "killed_flush: hybrid-model flushes and close: $(head -1 "$out/log")"
grep -q "^cuts [1-9][0-9][0-9], failed 0$" "$out/log" || fail "too few cuts: $(cat "$out/log")"

# Comparisons: a scene's steps with --dump-lcp (a flush of 4096 rows, the last rows';
# /lcp read up to /flushed_lcp_problems), a short one with --trajectory (its last rows'
# flush and close: /trajectory), and an LCP set (/problem_name).
D=${LSIM_SHARED:-../shared}/data/siconos-lcp
for opt in --dump-lcp --trajectory lcpset; do
  rm -f "$out/compare.h5"
  case $opt in
    lcpset) set -- compare "$D"/lcp_CPS_*.dat "$D"/lcp_mmc.dat --solvers lemke,pgs ;;
    --dump-lcp) set -- compare "$scene" --solvers lemke,pgs --steps 5000 $opt ;;
    *) set -- compare "$scene" --solvers lemke,pgs --steps 1000 $opt ;;
  esac
  trace_writes "$out/ctrace" \
    "$L" "$@" -o "$out/compare.h5" --quiet || fail "the traced comparison ($opt) failed"
  $PY tests/e2e/flush_replay.py "$out/ctrace" "$out/compare.h5" from:3 "$out/cut.h5" \
    "serve:$PY tests/e2e/cut_reads.py '$out/cut.h5.start' '$out/compare.h5' compare '$out/ccut$opt.h5'" > "$out/log" ||
    fail "a kill inside a comparison's flushes ($opt) left a file that does not read whole: $(cat "$out/log")"
  echo "killed_flush: comparison flushes and close ($opt): $(head -1 "$out/log")"
  grep -q "^cuts [1-9][0-9]*, failed 0$" "$out/log" || fail "no cuts: $(cat "$out/log")"
  [ "$opt" = --dump-lcp ] && cp "$out/compare.h5" "$out/compare-dump.h5"
done

# Run files alike: every write of a flush with rows past the mark (700 steps of the ball,
# the flush of its rows 257 .. 512) leaves a file scripts/lcpsim_load.py reads up to
# /flushed_rows, saying what it left out, every row the finished file's. Before it read
# the file whole and cut it after: 18 of 59 cuts failed (8 unreadable, "incorrect
# metadata checksum" of /contacts/gap past the mark; 10 cut without a notice).
# read_cuts TRACE FILE ROWS WHAT [SAVE]: every write of the flush ROWS (flush_replay.py)
# of TRACE's run writing FILE leaves a file the run loader reads (cut_reads.py; SAVE a
# cut kept); WHAT names the flush in the messages.
read_cuts() {
  $PY tests/e2e/flush_replay.py "$1" "$2" "$3" "$out/cut.h5" \
    "serve:$PY tests/e2e/cut_reads.py '$out/cut.h5.start' '$2' run ${5:+"'$5'"}" > "$out/log" ||
    fail "a kill inside $4 left a file its loader does not read whole: $(cat "$out/log")"
  echo "killed_flush: $4, read by its loader: $(head -1 "$out/log")"
  grep -q "^cuts [1-9][0-9]*, failed 0$" "$out/log" || fail "no cuts: $(cat "$out/log")"
}
trace_writes "$out/rtrace" \
  "$L" "$scene" --steps 700 -o "$out/run700.h5" --quiet || fail "the traced short run failed"
read_cuts "$out/rtrace" "$out/run700.h5" 513 "a short run's flush" "$out/rcut.h5"
# Its last flush and close: /summary is linked once it is in the file whole. Before, it
# was written in the close, and 7 of its 67 writes left a file whose /summary link came
# before its object ("bad object header version number", "wrong fractal heap header
# signature", "addr overflow"): the loader and lcpsim view failed on it.
read_cuts "$out/rtrace" "$out/run700.h5" 0 "a short run's last flush and close"
$PY tests/e2e/flush_replay.py "$out/rtrace" "$out/run700.h5" 0 "$out/cut.h5" \
  "\"$L\" view \"\$1\" -o \"\$1.html\" > /dev/null 2>&1 && rm \"\$1.html\"" > "$out/log" ||
  fail "a kill inside a run's close left a file lcpsim view refuses: $(cat "$out/log")"

# Event-driven run files alike, their /events read up to /flushed_events: every write of
# the flush of rows 257 .. 512 of data/bouncing_ball_events.json (its first impact, at
# 0.4515 s, is in it), and of its last flush and close. Before the marks (such runs had
# none; the loader read the file whole), 256 of 952 points of its flushes after the
# sixth failed (rows reading 0 against the finished file's, "incorrect metadata checksum",
# the loader's own arrays of unequal lengths); 0 of 992 with them.
trace_writes "$out/etrace" \
  "$L" data/bouncing_ball_events.json -o "$out/events.h5" --quiet || fail "the traced event-driven run failed"
read_cuts "$out/etrace" "$out/events.h5" 513 "an event-driven run's flush" "$out/ecut.h5"
read_cuts "$out/etrace" "$out/events.h5" 0 "an event-driven run's last flush and close"
# The cut kept has the impact's event past /flushed_events: the loader leaves it out, says
# so, and gives the finished file's rows up to the marks.
$PY - "$out/ecut.h5" "$out/events.h5" <<'PYEOF' || fail "the event-driven cut kept"
import sys
sys.path.insert(0, "scripts")
import contextlib, io, h5py, numpy as np, lcpsim_load
f = h5py.File(sys.argv[1], "r")
w, e = int(f["flushed_rows"][()]), int(f["flushed_events"][()])
assert "summary" not in f and f["events/time"].shape[0] > e and f["time"].shape[0] > w, (w, e)
err = io.StringIO()
with contextlib.redirect_stderr(err):
    r = lcpsim_load.load(sys.argv[1])
h = lcpsim_load.load(sys.argv[2])
assert len(r.time) == w and len(r.events.time) == e and len(r.events.kind) == e, (len(r.time), len(r.events.time))
assert "rows of /events/time (/flushed_events %d)" % e in err.getvalue(), err.getvalue()
assert np.array_equal(r.events.time, h.events.time[:e]) and np.array_equal(r.q, h.q[:w])
PYEOF

# Run files with --dump-lcp: /lcp is read up to /flushed_lcp_problems (the dumped problems
# of the last whole flush), and of the two /resume slots only the one of the last whole
# row's step (the other may be the one the kill cut short). 700 steps of box_slide_3d (an
# LCP every step), every write of the flush of its rows 257 .. 512: before, the loader
# failed on 45 of 260 cuts (43 unreadable, "incorrect metadata checksum" or "addr
# overflow" of /resume/slot0/warm_* being rewritten, lcpsim view refused the same 43; 2
# read the 256 LCPs past the mark), and `lcpsim solve --step` of the first step past the
# mark solved it on 1 and said "damaged dump" on 44.
trace_writes "$out/dtrace" \
  "$L" data/box_slide_3d.json --steps 700 --dump-lcp -o "$out/dump.h5" --quiet ||
  fail "the traced run with --dump-lcp failed"
$PY tests/e2e/flush_replay.py "$out/dtrace" "$out/dump.h5" 513 "$out/cut.h5" \
  "serve:$PY tests/e2e/cut_reads.py '$out/cut.h5.start' '$out/dump.h5' run '$out/dcut.h5'" > "$out/log" ||
  fail "a kill inside a flush of a run with --dump-lcp left a file its loader does not read whole: $(cat "$out/log")"
echo "killed_flush: a run's flush with --dump-lcp, read by its loader: $(head -1 "$out/log")"
grep -q "^cuts [1-9][0-9][0-9], failed 0$" "$out/log" || fail "too few cuts: $(cat "$out/log")"
$PY tests/e2e/flush_replay.py "$out/dtrace" "$out/dump.h5" 513 "$out/cut.h5" \
  "\"$L\" view \"\$1\" -o \"\$1.html\" > /dev/null 2>&1 && rm \"\$1.html\"" > "$out/log" ||
  fail "a kill inside a flush of a run with --dump-lcp left a file lcpsim view refuses: $(cat "$out/log")"
# lcpsim solve / export on the cut kept: the last dumped step up to the mark is read, the
# first past it refused, naming the mark.
set -- $($PY -c "import h5py, sys; f = h5py.File(sys.argv[1], 'r'); n = int(f['flushed_lcp_problems'][()])
assert f['lcp/step'].shape[0] > n > 0, 'no cut kept with dumped LCPs past its mark'
print(int(f['lcp/step'][n - 1]), n)" "$out/dcut.h5") || fail "the cut kept: $*"
"$L" solve "$out/dcut.h5" --step "$1" > "$out/err" 2>&1 || fail "solve --step $1 (the mark's last): $(cat "$out/err")"
for cmd in solve "export -o $out/past.dat"; do
  "$L" $cmd "$out/dcut.h5" --step $(($1 + 1)) > "$out/err" 2>&1 && fail "$cmd of step $(($1 + 1)) past the mark"
  grep -q "step $(($1 + 1)) is past the file's last whole flush (/flushed_lcp_problems $2 of the" "$out/err" ||
    fail "$cmd --step $(($1 + 1)) past the mark: $(cat "$out/err")"
done

# The readers on such a cut file (kept by cut_reads.py: rows past the marks, datasets that
# do not all read whole): the Python loaders and lcpsim view say what they left out; the
# Octave loaders (through scripts/lcpsim_cut.py's copy: Octave's load() of the cut hybrid
# file gave a struct of /chart alone, no error) give the rows up to the marks, the
# finished file's, with a warning lcpsim:cut.
[ -f "$out/hcut.h5" ] && [ -f "$out/ccut--dump-lcp.h5" ] && [ -f "$out/rcut.h5" ] && [ -f "$out/ecut.h5" ] ||
  fail "no cut file with rows left out was kept"
$PY scripts/lcpsim_load.py "$out/hcut.h5" > /dev/null 2> "$out/err" && grep -q "left out" "$out/err" ||
  fail "lcpsim_load.py on a cut hybrid file: $(cat "$out/err")"
$PY -c "import sys; sys.path.insert(0, 'scripts'); import lcpsim_compare; lcpsim_compare.load(sys.argv[1])" \
  "$out/ccut--dump-lcp.h5" 2> "$out/err" && grep -q "left out" "$out/err" ||
  fail "lcpsim_compare.py on a cut compare file: $(cat "$out/err")"
# lcpsim view alike (before, on the cut files of this run: "/results/status: cannot read
# its numbers", "/events/time: cannot read its numbers", "writing the page failed", exit 2;
# on the cut run file, whose contact rows do not read whole past the mark, "/contacts/id:
# cannot read its numbers", exit 2).
for f in hcut ccut--dump-lcp rcut ecut; do
  "$L" view "$out/$f.h5" -o "$out/$f.html" > /dev/null 2> "$out/err" && grep -q "left out" "$out/err" ||
    fail "lcpsim view on a cut file: $(cat "$out/err")"
done
# The run's page holds /flushed_rows states, /flushed_rows - 1 steps' solver rows and
# /contacts/offset[/flushed_rows] contact rows, no row past them.
$PY - "$out/rcut.h5" "$out/rcut.html" <<'PYEOF' || fail "lcpsim view of the cut run file: rows past its mark"
import re, sys, h5py
f = h5py.File(sys.argv[1], "r")
w = int(f["flushed_rows"][()])
k = int(f["contacts/offset"][w])
page = open(sys.argv[2]).read()
def shape(p):
    return [int(x) for x in re.search(r'"path":"%s","shape":\[([0-9,]*)\]' % p, page).group(1).split(",")]
want = {"/time": w, "/q": w, "/energy/kinetic": w, "/solver/status": w - 1,
        "/contacts/offset": w + 1, "/contacts/gap": k}
got = {p: shape(p)[0] for p in want}
assert f["time"].shape[0] > w and got == want, (got, want)
PYEOF
# The event-driven run's page: /flushed_events events, no event past them.
$PY - "$out/ecut.h5" "$out/ecut.html" <<'PYEOF' || fail "lcpsim view of the cut event-driven file: rows past its marks"
import re, sys, h5py
f = h5py.File(sys.argv[1], "r")
w, e = int(f["flushed_rows"][()]), int(f["flushed_events"][()])
page = open(sys.argv[2]).read()
def rows(p):
    return int(re.search(r'"path":"%s","shape":\[([0-9]*)' % p, page).group(1))
got = {p: rows(p) for p in ("/time", "/events/time", "/events/kind", "/events/body_a")}
assert got == {"/time": w, "/events/time": e, "/events/kind": e, "/events/body_a": e}, got
assert f["events/time"].shape[0] > e
PYEOF
if command -v octave-cli > /dev/null 2>&1; then
  # (the cut run file: before, read whole, "not an lcpsim file (no /format_version ...)")
  octave-cli -H --eval "addpath('scripts'); warning('off', 'backtrace');
    r = lcpsim_load('$out/rcut.h5'); [~, id] = lastwarn(); h = lcpsim_load('$out/run700.h5');
    w = double(r.flushed_rows); k = double(r.contacts.offset(w + 1));
    assert(strcmp(id, 'lcpsim:cut') && w > 0 && numel(r.time) == w && numel(r.solver.status) == w - 1);
    assert(strcmp(r.summary.run_end, 'unfinished') && numel(r.contacts.gap) == k);
    assert(isequal(r.q, h.q(1:w, :)) && isequal(r.solver.residual, h.solver.residual(1:w - 1)));
    lastwarn('');
    r = lcpsim_load('$out/dcut.h5'); [~, id] = lastwarn(); h = lcpsim_load('$out/dump.h5');
    n = double(r.flushed_lcp_problems); k = double(r.lcp.step(n));
    assert(strcmp(id, 'lcpsim:cut') && n > 0 && numel(r.lcp.step) == n && numel(r.lcp.offset) == n + 1);
    P = r.lcp_problem(k); Q = h.lcp_problem(k); assert(isequal(P.q, Q.q) && isequal(P.M, Q.M));
    lastwarn('');
    r = lcpsim_load('$out/hcut.h5'); [~, id] = lastwarn(); h = lcpsim_load('$out/hybrid.h5');
    w = double(r.flushed_rows); e = double(r.flushed_events);
    assert(strcmp(id, 'lcpsim:cut') && w > 0 && numel(r.time) == w && numel(r.events.time) == e);
    assert(isequal(r.time, h.time(1:w)) && isequal(r.state, h.state(1:w, :)) && isequal(r.chart, h.chart(1:w)));
    assert(isequal(r.events.state_after, h.events.state_after(1:e, :)));
    lastwarn('');
    r = lcpsim_load('$out/ecut.h5'); [~, id] = lastwarn(); h = lcpsim_load('$out/events.h5');
    w = double(r.flushed_rows); e = double(r.flushed_events);
    assert(strcmp(id, 'lcpsim:cut') && w > 0 && numel(r.time) == w && numel(r.events.time) == e);
    assert(isequal(r.q, h.q(1:w, :)) && isequal(r.events.time, h.events.time(1:e)));
    lastwarn('');
    c = lcpsim_compare_load('$out/ccut--dump-lcp.h5'); [~, id] = lastwarn(); f = lcpsim_compare_load('$out/compare-dump.h5');
    w = double(c.flushed_rows); n = double(c.flushed_lcp_problems);
    assert(strcmp(id, 'lcpsim:cut') && ~isfield(c, 'summary') && numel(c.step) == w && numel(c.lcp.step) == n);
    assert(isequal(c.results.relative_residual, f.results.relative_residual(1:w, :)));
    assert(isequal(c.lcp.offset, f.lcp.offset(1:n + 1)) && n > 0);
    P = c.lcp_problem(double(c.lcp.step(n)), 0); Q = f.lcp_problem(double(c.lcp.step(n)), 0);
    assert(isequal(P.M, Q.M) && isequal(P.q, Q.q));" > "$out/err" 2>&1 ||
    fail "the Octave loaders on cut files: $(cat "$out/err")"
  echo "killed_flush: readers of cut files: Python and Octave loaders agree with the finished files"
fi
echo "killed_flush: ok"
