#!/bin/sh
# A disk that fills during a run. A write that fails on a full disk left a file HDF5 could
# not read (a flush cut short: "wrong B-tree signature"), and the run lost every step:
# pile_10 on a 2 MB disk failed at step 424, exit 2, no file. After each flush the recorder
# now checks that the disk can take the next flush and the close; when it cannot, the run
# stops there (exit 1, /summary/run_end stopped, the reason naming the disk and the room
# left) with a whole file of every step done. Needs a tmpfs mount (root): skipped without.
set -eu
PY=/usr/bin/python3
tmp=$(mktemp -d)
mnt=$tmp/disk
mkdir "$mnt"
trap 'umount "$mnt" 2> /dev/null || true; rm -rf "$tmp"' EXIT
fail() { echo "disk_full: $*" >&2; exit 1; }
# A file size limit (ulimit -f) is a full disk for this file: the run was killed by SIGXFSZ
# (exit 153, pile_10 with 4 MB at step 300 or so, its partial file cut mid-flush), and with
# the signal ignored the failed write ended it with exit 2 and no file. The room check now
# counts the limit too: the run stops (exit 1) with a whole file of every step done; a limit
# too small for the first flush is an error naming the file (exit 2), not a kill.
rc=0
(ulimit -f 8192; exec ./lcpsim data/pile_10.json --steps 100000 -o "$tmp/lim.h5" --quiet) \
  2> "$tmp/err" || rc=$?
[ $rc -eq 1 ] || fail "ulimit -f: exit $rc, expected 1: $(cat "$tmp/err")"
grep -qF "stopped at step" "$tmp/err" && grep -qF "the file size limit" "$tmp/err" \
  || fail "ulimit -f: $(cat "$tmp/err")"
[ -z "$(ls "$tmp" | grep partial)" ] || fail "ulimit -f: a partial file was left: $(ls "$tmp")"
$PY - "$tmp/lim.h5" <<'PYEOF' || fail "ulimit -f: the file does not read whole"
import sys
sys.path.insert(0, "scripts")
import lcpsim_load
r = lcpsim_load.load(sys.argv[1])
s = r.summary
assert s.run_end == "stopped" and "file size limit" in s.run_end_reason, (s.run_end, s.run_end_reason)
n = s.steps_done
assert n > 100 and len(r.time) == n + 1 and r.contacts.offset[-1] == len(r.contacts.gap), n
print(f"disk_full: ulimit -f 8192: stopped at step {n} with its file whole")
PYEOF
rc=0
(ulimit -f 100; exec ./lcpsim data/pile_10.json --steps 1000 -o "$tmp/tiny.h5" --quiet) \
  2> "$tmp/err" || rc=$?
[ $rc -eq 2 ] && grep -qF "$tmp/tiny.h5" "$tmp/err" && grep -qF "File too large" "$tmp/err" \
  || fail "ulimit -f 100: exit $rc: $(cat "$tmp/err")"
# A hybrid model's file alike: its close after the failed header spilled HDF5's error
# stack (some 250 lines of HDF5-DIAG) before the one line that names the file.
rc=0
(ulimit -f 100; exec ./lcpsim data/slip.json -o "$tmp/slip.h5" --quiet) 2> "$tmp/err" || rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -qF "$tmp/slip.h5" "$tmp/err" \
  || fail "hybrid, ulimit -f 100: exit $rc, $(wc -l < "$tmp/err") lines: $(head -c 600 "$tmp/err")"
# A comparison alike: its message named the partial file, gone by then, and not why.
rc=0
(ulimit -f 300; exec ./lcpsim compare data/pile_10.json --solvers lemke,pgs --steps 20 \
  -o "$tmp/cmp.h5") > /dev/null 2> "$tmp/err" || rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -qF "$tmp/cmp.h5: cannot write" "$tmp/err" \
  && grep -qF "File too large" "$tmp/err" && ! grep -qF partial "$tmp/err" \
  || fail "compare, ulimit -f 300: exit $rc: $(head -c 600 "$tmp/err")"
rm -f "$tmp"/*.partial "$tmp"/*.h5
if ! mount -t tmpfs -o size=12m tmpfs "$mnt" 2> /dev/null; then
  echo "disk_full: cannot mount a tmpfs here (not root?): skipped"
  exit 0
fi
rc=0
./lcpsim data/pile_10.json --steps 100000 -o "$mnt/run.h5" --quiet 2> "$tmp/err" || rc=$?
[ $rc -eq 1 ] || fail "exit $rc, expected 1: $(cat "$tmp/err")"
[ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -qF "stopped at step" "$tmp/err" \
  && grep -qF "the disk holding $mnt/run.h5 has" "$tmp/err" || fail "$(cat "$tmp/err")"
[ -z "$(ls "$mnt" | grep partial)" ] || fail "a partial file was left: $(ls "$mnt")"
$PY - "$mnt/run.h5" <<'PYEOF' || fail "the file does not read whole"
import sys
sys.path.insert(0, "scripts")
import lcpsim_load
r = lcpsim_load.load(sys.argv[1])
s = r.summary
assert s.run_end == "stopped" and "MB left" in s.run_end_reason, (s.run_end, s.run_end_reason)
n = s.steps_done
assert n > 256 and len(r.time) == n + 1 and r.contacts.offset[-1] == len(r.contacts.gap), n
print(f"disk_full: a 12 MB disk: stopped at step {n} with its file whole")
PYEOF
