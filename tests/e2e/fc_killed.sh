#!/bin/sh
# A frictional contact set's comparison killed (kill -9) at any point after its header's
# flush leaves a file that scripts/lcpsim_compare.py reads whole, up to its last whole
# flush (/flushed_rows), every value the finished file's: a 2-problem set's writes traced
# (strace) and replayed as kills (tests/e2e/flush_replay.py from:3: every write after the
# header's flush: the last rows' flush, /summary's and the close; tests/e2e/cut_reads.py).
# Before, the file was made and written only after the last solve, in the close's one
# flush: a kill while solving left no file, and 105 of 107 points of a 4-problem set's
# writes left one that did not open ("truncated file", "no /format_version"); here the
# replay found no flush after the header's. `lcpsim view` reads a cut with rows past its
# mark too, saying what it left out.
set -eu
cd "$(dirname "$0")/../.."
PY=/usr/bin/python3
L=$(pwd)/lcpsim
D=${LSIM_SHARED:-../shared}/data/siconos-fc3d
out=$(mktemp -d /tmp/lsim_e2e_fc_killed_XXXXXX)
trap 'rm -rf "$out"' EXIT
fail() { echo "fc_killed: $*" >&2; exit 1; }
. tests/e2e/trace_writes.sh
trace_writes_or_skip fc_killed

trace_writes "$out/trace" \
  "$L" compare "$D/FC3D_Example1.dat" "$D/FrictionContact3D_1c.dat" \
  --solvers 'nsgs,pgs[d=8,max_iter=200]' -o "$out/fc.h5" --quiet || fail "the traced comparison failed"
$PY tests/e2e/flush_replay.py "$out/trace" "$out/fc.h5" from:3 "$out/cut.h5" \
  "serve:$PY tests/e2e/cut_reads.py '$out/cut.h5.start' '$out/fc.h5' compare '$out/saved.h5'" \
  > "$out/log" 2>&1 || fail "a kill after the header's flush left a file that does not read whole: $(cat "$out/log")"
echo "fc_killed: a 2-problem set's writes after its header's flush: $(head -1 "$out/log")"
grep -q "^cuts [1-9][0-9]*, failed 0$" "$out/log" || fail "too few cuts: $(cat "$out/log")"

# The finished file: both problems' rows, the fc tables among them, /summary.
$PY - "$out/fc.h5" << 'EOF' || fail "the finished file"
import sys
import h5py
with h5py.File(sys.argv[1], "r") as f:
    assert "summary" in f and int(f["flushed_rows"][()]) == 2, "no summary or mark"
    for name in ("step", "results/status", "results/dual_cone", "results/cone_directions",
                 "results/setup_wall_time", "problem_dimension", "problem_contacts"):
        assert f[name].shape[0] == 2, "%s: %s" % (name, f[name].shape)
    # (nsgs on the exact cone: 0 directions; pgs on the 8-direction polyhedral LCP)
    assert f["results/cone_directions"][()].tolist() == [[0, 8], [0, 8]]
    assert [s.decode() for s in f["problem_name"][()]][1].endswith("FrictionContact3D_1c.dat")
EOF

# A cut whose rows lie past its mark (one the kill left inside the last rows' flush):
# the viewer reads it up to the mark and says so.
[ -f "$out/saved.h5" ] || fail "no cut with rows past its mark was met"
"$L" view "$out/saved.h5" -o "$out/saved.html" 2> "$out/view.err" ||
  fail "lcpsim view refused a cut file: $(cat "$out/view.err")"
grep -q "read up to its last whole flush" "$out/view.err" ||
  fail "lcpsim view read a cut file without its note: $(cat "$out/view.err")"
echo "fc_killed: ok"
