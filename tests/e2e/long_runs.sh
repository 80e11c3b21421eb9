#!/bin/sh
# A long recorded run's memory stays flat. The recorder keeps HDF5's metadata in memory
# until each flush (scene/record.c, lsim_record_fapl: a killed run's file stays whole), and
# the chunk indexes of the growing datasets stayed there for the whole run: 790 bytes a
# step on pile_10 (183 MB at 2 x 10^5 steps). pile_10 for 10^4 and 4 x 10^4 steps: the
# peak resident memory may differ by 8 MB at most (23 MB before; 1 MB measured). The
# long run's partial file, killed after its memory was trimmed several times, still reads.
# Hybrid-model files alike (hybrid/record.c): bouncing_mass for 2 x 10^6 and 6 x 10^6
# samples, peak memory within 8 MB (5.5 bytes a sample before: 140 MB at 2 x 10^7 samples;
# 0.1 MB measured from 2 x 10^6 to 2 x 10^7).
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

# The summary line's contact count is 64-bit as the file's /summary/total_contacts (it was
# an int: past 2^31 contacts, 3.6 x 10^5 steps of pile_1000, it would have wrapped; too
# long a run for this test, which checks that the two agree).
./lcpsim data/pile_10.json --steps 2000 -o "$tmp/s.h5" > "$tmp/s.txt" || fail "pile_10 for 2000 steps"
sc=$(sed -n 's/.* \([0-9]*\) contacts, max residual.*/\1/p' "$tmp/s.txt")
$PY - "$tmp/s.h5" "$sc" <<'PYEOF' || fail "the summary line's contacts ($sc) against the file"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    assert int(sys.argv[2]) == f["summary/total_contacts"][()] > 0, f["summary/total_contacts"][()]
PYEOF
rm -f "$tmp/s.h5"

# Continuing them (--resume) copies their steps: the copy kept a 4 MB buffer per dataset,
# every chunk index of the new file (flushed at the end only) and 32 MB of the old file's
# metadata: 98.9 and 155.3 MB peak from 10^4 and 4 x 10^4 steps (box_slide_3d: 189.8 MB
# from 3 x 10^5); now blocks flushed and trimmed as copied, 51.0 and 67.2 MB (box_slide_3d:
# 69.6 MB). Within 32 MB, and the continued file holds every step.
for n in 10000 40000; do
  /usr/bin/time -f %M -o "$tmp/crss$n" ./lcpsim data/pile_10.json --resume "$tmp/r$n.h5" \
    --steps $((n + 10)) -o "$tmp/c$n.h5" --quiet || fail "resuming $n steps failed"
done
ca=$(tail -1 "$tmp/crss10000"); cb=$(tail -1 "$tmp/crss40000")
[ $((cb - ca)) -lt 32768 ] || fail "resuming: peak memory grew by $(((cb - ca) / 1024)) MB from 10^4 to 4 x 10^4 steps ($ca -> $cb kB)"
$PY - "$tmp/r40000.h5" "$tmp/c40000.h5" <<'PYEOF' || fail "the continued 4 x 10^4-step file"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as a, h5py.File(sys.argv[2], "r") as b:
    assert len(b["time"]) == 40011 and b["summary/steps_done"][()] == 40010
    for k in ("q", "v", "time", "solver/status", "contacts/normal_impulse", "contacts/offset"):
        n = len(a[k])
        assert np.array_equal(a[k][:], b[k][:n]), k
PYEOF
rm -f "$tmp"/c*.h5

# With --dump-lcp (scene/lcpdump.c) the /lcp datasets' chunk indexes stayed in memory
# (the record reopened only its own): box_slide_3d for 10^4 and 4 x 10^4 steps peaked
# 16.8 MB apart (560 bytes a step); then 6.4 MB, now 10 MB with the 1.10 format's chunk
# indexes (scene/record.c, lsim_record_index_format; 20.8 MB before the series' chunk caches
# were cut to one chunk, series_dapl), of which the dump's index, kept in memory by design
# until the close, is 96 bytes a problem (2.9 MB) and its growth by doubling.
for n in 10000 40000; do
  /usr/bin/time -f %M -o "$tmp/drss$n" ./lcpsim data/box_slide_3d.json --steps $n --dump-lcp \
    -o "$tmp/d$n.h5" --quiet || fail "$n steps with --dump-lcp failed"
done
da=$(tail -1 "$tmp/drss10000"); db=$(tail -1 "$tmp/drss40000")
[ $((db - da)) -lt 12288 ] || fail "with --dump-lcp the peak memory grew by $(((db - da) / 1024)) MB from 10^4 to 4 x 10^4 steps ($da -> $db kB)"
./lcpsim solve "$tmp/d40000.h5" --step 40000 | grep -q '^status  *solved' \
  || fail "the dumped step 40000 does not solve"
rm -f "$tmp"/d*.h5

for d in 2000 6000; do
  /usr/bin/time -f %M -o "$tmp/hrss$d" ./lcpsim data/bouncing_mass.json --duration $d \
    -o "$tmp/h$d.h5" --quiet || fail "bouncing_mass for $d s failed"
done
ha=$(tail -1 "$tmp/hrss2000"); hb=$(tail -1 "$tmp/hrss6000")
[ $((hb - ha)) -lt 8192 ] || fail "a hybrid run's peak memory grew by $(((hb - ha) / 1024)) MB from 2 x 10^6 to 6 x 10^6 samples ($ha -> $hb kB)"
$PY - "$tmp/h6000.h5" <<'PYEOF' || fail "the 6 x 10^6-sample hybrid file"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f:
    t = f["time"]
    assert len(t) == 6000001 and f["summary/samples"][()] == 6000001
    assert f["summary/run_end"][()] == b"completed" and t[-1] == 6000.0
    assert len(f["state"]) == len(t) and np.all(np.isfinite(f["state"][-1000:]))
PYEOF

# A comparison's memory (compare/): the table of results per step and series stays in
# memory by design (the medians of the summary need every value; LsimCompareResult hands
# it to callers): docs/solvers.md "Memory", 116 bytes a step and series + 40 a step, 504
# bytes a step for lemke,pgs in shadow mode (4 series; it was 632 with the independent
# mode's state differences and energies). HDF5's chunk cache, 1 MB per dataset, also kept
# up to 16 full chunks of each of the 27 tables (compare/output.c): box_slide_3d,
# lemke,pgs, 5000 and 40000 steps peaked at 27.5 and 62.6 MB (35.0 MB apart, 1 kB a
# step); now one chunk per table, 25.5 and 41.9 MB (16.0 MB apart, 480 bytes a step).
# Allowed: the table's bytes + 2 MB (before: 15 MB over; with the 632-byte table 1.8 MB over).
for n in 5000 40000; do
  /usr/bin/time -f %M -o "$tmp/mrss$n" ./lcpsim compare data/box_slide_3d.json --solvers lemke,pgs \
    --steps $n -o "$tmp/m$n.h5" > /dev/null || fail "comparing for $n steps failed"
done
ma=$(tail -1 "$tmp/mrss5000"); mb=$(tail -1 "$tmp/mrss40000")
mt=$((35000 * 504 / 1024))
[ $((mb - ma)) -lt $((mt + 2048)) ] || fail "a comparison's peak memory grew by $(((mb - ma) / 1024)) MB from 5000 to 40000 steps ($ma -> $mb kB; its table: $((mt / 1024)) MB)"
$PY - "$tmp/m40000.h5" <<'PYEOF' || fail "the 40000-step compare file"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f:
    assert f["results/status"].shape == (40000, 4) and list(f["step"][-2:]) == [39999, 40000]
    assert list(f["summary/problems"][()]) == [40000] * 4
    assert list(f["summary/successes"][()]) == [40000] * 4
PYEOF
rm -f "$tmp"/m*.h5

# Killed after 15000 steps (the metadata trimmed about twice): the partial file reads.
# It is read only while the run is stopped (SIGSTOP), and the run is killed stopped where
# it reads so: running, it flushes faster than a reader opens the file, and on a loaded
# machine the reads were torn for a minute on end (tests/e2e/resume.sh).
# (Stopped every 2 s: the run goes on 80 % of the time or more; the loader reads a killed
# run's file up to its last whole flush, /flushed_rows states.)
./lcpsim data/pile_10.json --steps 1000000 -o "$tmp/k.h5" --quiet & p=$!
end=$(($(date +%s) + 240))
while :; do
  [ "$(date +%s)" -lt $end ] || { kill -9 $p; fail "no 15000 steps flushed in 240 s"; }
  sleep 2
  kill -STOP $p
  (export HDF5_USE_FILE_LOCKING=FALSE; $PY -c "
import sys, h5py
with h5py.File(sys.argv[1], 'r') as f: sys.exit(0 if int(f['flushed_rows'][()]) > 15001 else 1)
" "$tmp/k.h5.$p.partial") 2> /dev/null && break
  kill -CONT $p
done
kill -9 $p; wait $p 2> /dev/null || true
$PY - "$tmp/k.h5.$p.partial" <<'PYEOF' || fail "the killed run's partial file does not read"
import sys
sys.path.insert(0, "scripts")
import lcpsim_load
r = lcpsim_load.load(sys.argv[1])
assert len(r.time) > 15000 and r.summary.run_end == "unfinished"
assert r.contacts.offset[-1] == len(r.contacts.gap)
PYEOF
echo "long_runs: peak $((a / 1024)) MB at 10^4 steps, $((b / 1024)) MB at 4 x 10^4; resumed $((ca / 1024)) MB, $((cb / 1024)) MB; hybrid $((ha / 1024)) MB at 2 x 10^6 samples, $((hb / 1024)) MB at 6 x 10^6; --dump-lcp $((da / 1024)) MB, $((db / 1024)) MB; compare $((ma / 1024)) MB at 5000 steps, $((mb / 1024)) MB at 40000; a killed run's file reads"
