#!/bin/sh
# Each series of a run file says what its rows are, its attribute row_kind (state, step,
# state_offset, contact, event; scene/record.c, docs/output-format.md): every dataset with
# an unlimited first dimension but the dump's (/lcp, its own mark) and the stepper's memory
# (/resume, rewritten whole) has one, and its extent is the one its kind gives. Readers of
# a killed run's file cut each series by it to /flushed_rows: a series the writer gains is
# cut with no change to the readers. Before, the kinds were two lists of paths, one in
# cli/view.c and one in scripts/lcpsim_load.py: a series with a row per state that neither
# named (here /extra/per_state) was read whole past the mark by both (and by Octave's
# lcpsim_load, through scripts/lcpsim_cut.py). Files of format_version 2 (no attribute)
# are still cut by those lists.
set -eu
cd "$(dirname "$0")/../.."
PY=/usr/bin/python3
out=$(mktemp -d /tmp/lsim_e2e_row_kinds_XXXXXX)
trap 'rm -rf "$out"' EXIT
fail() { echo "row_kinds: $*" >&2; exit 1; }

# Runs with tethers and a record stride, joints, sleeping bodies, an LCP dump, events.
$PY - data/pile_10.json "$out/sleep.json" <<'PYEOF'
import json, sys
s = json.load(open(sys.argv[1]))
s["sleep"] = {"enabled": True, "linear_speed": 0.05, "angular_speed": 0.5, "time": 0.2}
json.dump(s, open(sys.argv[2], "w"))
PYEOF
./lcpsim data/pendulum_rope.json --steps 300 --record-every 4 -o "$out/rope.h5" --quiet
./lcpsim data/double_pendulum_assembled.json --steps 300 -o "$out/joints.h5" --quiet
./lcpsim "$out/sleep.json" --steps 300 -o "$out/sleep.h5" --quiet
./lcpsim data/box_slide_3d.json --steps 300 --dump-lcp -o "$out/dump.h5" --quiet
./lcpsim data/bouncing_ball_events.json -o "$out/events.h5" --quiet

# Every series labelled, with the extent of its kind.
$PY - "$out"/rope.h5 "$out"/joints.h5 "$out"/sleep.h5 "$out"/dump.h5 "$out"/events.h5 <<'PYEOF' ||
import sys, h5py
seen = set()
for path in sys.argv[1:]:
    f = h5py.File(path, "r")
    assert int(f["format_version"][()]) == 3, path
    n = f["time"].shape[0]
    want = {"state": n, "step": n - 1, "state_offset": n + 1,
            "contact": int(f["contacts/offset"][-1]) if "contacts/offset" in f else None,
            "event": f["events/time"].shape[0] if "events/time" in f else None}
    def check(name, obj):
        if not isinstance(obj, h5py.Dataset) or name.startswith(("lcp/", "resume/")):
            return
        if not obj.shape or obj.maxshape[0] is not None:
            assert "row_kind" not in obj.attrs, (path, name)
            return
        kind = obj.attrs.get("row_kind")
        kind = kind.decode() if isinstance(kind, bytes) else kind
        assert kind in want, "%s: /%s: row_kind %r" % (path, name, kind)
        assert obj.shape[0] == want[kind], "%s: /%s: %d rows, %s gives %s" % (path, name, obj.shape[0], kind, want[kind])
        seen.add(name)
    f.visititems(check)
for name in ("solver/sleeping", "tethers/taut", "joints/impulse", "step", "solver/failed_steps", "events/time"):
    assert name in seen, name + ": no run made it"
print("row_kinds: %d series, each labelled with the extent of its kind" % len(seen))
PYEOF
  fail "a series without its row kind, or with another extent"

# A killed run's file, made from the rope run's: no /summary, /flushed_rows 21 of its 76
# states, and series the readers know nothing of (as a series added to the writer alone).
mk_killed() {
  $PY - "$1" "$2" "$3" <<'PYEOF'
import shutil, sys, h5py, numpy as np
src, dst, version = sys.argv[1], sys.argv[2], int(sys.argv[3])
shutil.copy(src, dst)
f = h5py.File(dst, "a")
del f["summary"]
f["flushed_rows"][()] = 21
n, k = f["time"].shape[0], int(f["contacts/offset"][-1])
for name, rows, kind in (("per_state", n, "state"), ("per_step", n - 1, "step"), ("per_contact", k, "contact")):
    d = f.create_dataset("extra/" + name, data=np.arange(rows, dtype=float), maxshape=(None,), chunks=(64,))
    d.attrs["row_kind"] = np.bytes_(kind)
if version == 2:  # a file of before the attribute: none, and its version says so
    f["format_version"][()] = 2
    def strip(name, obj):
        if isinstance(obj, h5py.Dataset) and "row_kind" in obj.attrs:
            del obj.attrs["row_kind"]
    f.visititems(strip)
PYEOF
}
mk_killed "$out/rope.h5" "$out/killed.h5" 3
# (and one killed between two flushes: its marks cover every row)
$PY -c "import shutil, sys, h5py; shutil.copy(sys.argv[1], sys.argv[2]); f = h5py.File(sys.argv[2], 'a'); del f['summary']" \
  "$out/rope.h5" "$out/covered.h5"
mk_killed "$out/rope.h5" "$out/killed2.h5" 2
./lcpsim view "$out/killed.h5" -o "$out/killed.html" > /dev/null 2>&1 || fail "lcpsim view refused the killed file"
./lcpsim view "$out/killed2.h5" -o "$out/killed2.html" > /dev/null 2>&1 || fail "lcpsim view refused the format 2 file"
$PY - "$out" <<'PYEOF' || fail "the readers did not cut every series to /flushed_rows"
import contextlib, io, re, sys, h5py
sys.path.insert(0, "scripts")
import lcpsim_load
out = sys.argv[1]
for name, version in (("killed", 3), ("killed2", 2)):
    f = h5py.File("%s/%s.h5" % (out, name), "r")
    w, k = 21, int(f["contacts/offset"][21])
    want = {"time": w, "q": w, "step": w, "energy/kinetic": w, "tethers/length": w,
            "solver/status": w - 1, "solver/failed_steps": w - 1, "tethers/impulse": w - 1,
            "tethers/taut": w - 1, "contacts/offset": w + 1, "contacts/gap": k}
    if version == 3:  # a series only the file knows the kind of
        want.update({"extra/per_state": w, "extra/per_step": w - 1, "extra/per_contact": k})
    with contextlib.redirect_stderr(io.StringIO()):
        r = lcpsim_load.load("%s/%s.h5" % (out, name))
    page = open("%s/%s.html" % (out, name)).read()
    for p, n in want.items():
        a, b = p.split("/") if "/" in p else (p, None)
        got = len(r[a][b] if b else r[a])
        assert got == n, "%s: lcpsim_load.py: /%s: %d rows, not %d" % (name, p, got, n)
        m = re.search(r'"path":"/%s","shape":\[([0-9]+)' % p, page)
        assert m and int(m.group(1)) == n, "%s: lcpsim view: /%s: %s rows, not %d" % (name, p, m and m.group(1), n)
print("row_kinds: killed files cut by both readers, format 3 by the attribute, format 2 by the lists")
PYEOF
if command -v octave-cli > /dev/null 2>&1; then
  octave-cli -H --eval "addpath('scripts'); warning('off', 'all');
    r = lcpsim_load('$out/killed.h5');
    assert(numel(r.time) == 21 && numel(r.extra.per_state) == 21 && numel(r.extra.per_step) == 20);
    assert(numel(r.extra.per_contact) == double(r.contacts.offset(22)));" > "$out/err" 2>&1 ||
    fail "Octave's lcpsim_load on the killed file: $(cat "$out/err")"
  # A killed file whose marks cover every row is read as it is, not copied through Python
  # (scripts/lcpsim_cut.py --if-needed); before, every killed file was copied.
  octave-cli -H --eval "addpath('scripts'); warning('off', 'all');
    [src, tmp] = lcpsim_flushed_copy('$out/covered.h5', 'test', 'run');
    assert(isempty(tmp) && strcmp(src, '$out/covered.h5'));
    r = lcpsim_load('$out/covered.h5'); h = lcpsim_load('$out/rope.h5');
    assert(strcmp(r.summary.run_end, 'unfinished') && isequal(r.q, h.q) && isequal(r.solver.status, h.solver.status));
    [src, tmp] = lcpsim_flushed_copy('$out/killed.h5', 'test', 'run');
    assert(~isempty(tmp) && strcmp(src, tmp)); delete(tmp);" > "$out/err" 2>&1 ||
    fail "Octave's lcpsim_flushed_copy on a file its marks cover: $(cat "$out/err")"
fi
echo "row_kinds: ok"
