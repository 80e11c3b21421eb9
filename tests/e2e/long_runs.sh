#!/bin/sh
# A long recorded run's memory stays flat. The recorder keeps HDF5's metadata in memory
# until each flush (scene/record.c, lsim_record_fapl: a killed run's file stays whole), and
# the chunk indexes of the growing datasets stayed there for the whole run: 790 bytes a
# step on pile_10 (183 MB at 2 x 10^5 steps). pile_10 for 10^4 and 4 x 10^4 steps: the
# peak resident memory may differ by 8 MB at most (23 MB before; 1 MB measured). The
# long run's partial file, killed after its memory was trimmed several times, still reads.
set -eu
PY=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "long_runs: $*" >&2; exit 1; }

for n in 10000 40000; do
  /usr/bin/time -f %M -o "$tmp/rss$n" ./lcpsim data/pile_10.json --steps $n -o "$tmp/r$n.h5" --quiet \
    || fail "$n steps failed"
done
a=$(tail -1 "$tmp/rss10000"); b=$(tail -1 "$tmp/rss40000")
[ $((b - a)) -lt 8192 ] || fail "peak memory grew by $(((b - a) / 1024)) MB from 10^4 to 4 x 10^4 steps ($a -> $b kB)"
$PY - "$tmp/r40000.h5" <<'PYEOF' || fail "the 4 x 10^4-step file"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    assert len(f["time"]) == 40001 and f["summary/steps_done"][()] == 40000
    assert f["contacts/offset"][-1] == f["summary/total_contacts"][()] == len(f["contacts/gap"])
PYEOF

# Killed after 15000 steps (the metadata trimmed about twice): the partial file reads.
./lcpsim data/pile_10.json --steps 1000000 -o "$tmp/k.h5" --quiet & p=$!
end=$(($(date +%s) + 120))
until HDF5_USE_FILE_LOCKING=FALSE $PY -c "
import sys, h5py
with h5py.File(sys.argv[1], 'r') as f: sys.exit(0 if len(f['time']) > 15000 else 1)
" "$tmp"/k.h5.*.partial 2> /dev/null; do
  [ "$(date +%s)" -lt $end ] || { kill -9 $p; fail "no 15000 steps in 120 s"; }
  sleep 0.5
done
kill -9 $p; wait $p 2> /dev/null || true
$PY - "$tmp"/k.h5.*.partial <<'PYEOF' || fail "the killed run's partial file does not read"
import sys
sys.path.insert(0, "scripts")
import lcpsim_load
r = lcpsim_load.load(sys.argv[1])
assert len(r.time) > 15000 and r.summary.run_end == "unfinished"
assert r.contacts.offset[-1] == len(r.contacts.gap)
PYEOF
echo "long_runs: peak $((a / 1024)) MB at 10^4 steps, $((b / 1024)) MB at 4 x 10^4; a killed run's file reads"
