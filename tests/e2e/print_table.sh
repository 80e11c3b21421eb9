#!/bin/sh
# `lcpsim --print` shows every coordinate of each moving body: the table's columns, read
# back, equal the file's q and v at every step, for a 1-D, a 2-D and a 3-D scene.
set -eu
PY=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for scene in cart_wall incline_2d box_stack_3d; do
  ./lcpsim "data/$scene.json" --steps 20 -o "$tmp/$scene.h5" --print > "$tmp/$scene.txt"
  $PY - "$tmp/$scene.txt" "$tmp/$scene.h5" <<'PYEOF'
import sys
import numpy as np
sys.path.insert(0, "scripts")
import lcpsim_load
r = lcpsim_load.load(sys.argv[2])
lines = open(sys.argv[1]).read().splitlines()
head = lines[0]
dim = r.parameters.dimension
qn = r.parameters.q_components
vn = r.parameters.v_components
moving = [i for i in range(len(r.bodies.name)) if r.bodies.nq[i] > 0]
# Every coordinate has a column named after it and its body.
for i in moving:
    for c in qn + vn:
        assert f"{c}[{r.bodies.name[i]}]" in head, (c, r.bodies.name[i], head)
# Each column's name is its own: box_stack_3d's grid copies box_0_0_0 .. box_0_0_4 were all
# cut to box_0_0_ (the first 8 characters of a name), five columns for each of x .. wz.
import re
cols = re.findall(r"\S+\[[^\]]*\]", head)
assert len(cols) == len(set(cols)) == len(moving) * (len(qn) + len(vn)), cols
# Every value ends where its column's name ends (columns as wide as their names).
ends = [m.end() for m in re.finditer(r"\S+\[[^\]]*\](?: [^\s\[]+)?(?= |$)", head)][:len(cols)]
ncol = len(moving) * (len(qn) + len(vn))
for line in lines[1:]:
    if not line[:6].strip().isdigit():
        break  # the closing summary
    f = line.split()
    k = int(f[0])
    vals = np.array([float(x) for x in f[2:2 + ncol]])
    vends = [m.end() for m in re.finditer(r"\S+", line)][2:2 + ncol]
    assert vends == ends, (k, vends, ends)
    want = np.concatenate([np.concatenate([r.q[k, r.bodies.q_offset[i]:r.bodies.q_offset[i] + r.bodies.nq[i]],
                                           r.v[k, r.bodies.v_offset[i]:r.bodies.v_offset[i] + r.bodies.nv[i]]])
                           for i in moving])
    # %.9g keeps 9 significant digits: relative 5e-9 plus round-off-sized values.
    assert np.all(np.abs(vals - want) <= 5e-9 * np.abs(want) + 1e-300), (k, vals, want)
    assert k <= 20
assert k == 20, k
print(f"--print, dimension {dim}: {ncol} columns per row match the file: ok")
PYEOF
done

# Tethers and joints are named, their world ends called the world (there is no ground in
# 2-D / 3-D), a pin's components on one entry; their first step's impulses against the
# closed forms, to the 9 digits printed (5e-9 relative): each of hanging_box's ropes
# m g h sqrt(1.16) / 2; the double pendulum released from rest (upper rod horizontal, the
# lower one hanging; m = 1 kg, l = 1 m, I = m l^2 / 12) needs shoulder (0, 5/16 m g h) and
# elbow (0, -1/8 m g h) on the lower rod, from M v' = M v + h f + J' lambda, J v' = 0.
./lcpsim data/hanging_box.json --steps 1 -o "$tmp/hb.h5" --print > "$tmp/hb.txt"
./lcpsim data/double_pendulum.json --steps 1 -o "$tmp/dp.h5" --print > "$tmp/dp.txt"
$PY - "$tmp/hb.txt" "$tmp/dp.txt" <<'PYEOF'
import math, re, sys
hb, dp = (open(p).read().splitlines()[2] for p in sys.argv[1:3])
def close(got, want):
    assert abs(float(got) - want) <= 5e-9 * abs(want) + 1e-12, (got, want)
w = 2.0 * 9.81 * 0.01 * math.sqrt(1.16) / 2.0
for rope in ("left", "right"):
    m = re.search(r" box\|world \(tether %s\): (\S+)" % rope, hb)
    assert m, hb
    close(m.group(1), w)
mgh = 9.81 * 0.001
m = re.search(r" upper\|world \(joint shoulder\): (\S+) (\S+)", dp)
assert m, dp
close(m.group(1), 0.0), close(m.group(2), 5.0 / 16.0 * mgh)
m = re.search(r" lower\|upper \(joint elbow\): (\S+) (\S+)", dp)
assert m, dp
close(m.group(1), 0.0), close(m.group(2), -mgh / 8.0)
assert "ground" not in hb + dp, "a world end called the ground"
print("--print names tethers and joints; first impulses match the closed forms: ok")
PYEOF

# A body named in UTF-8 beyond 8 characters: its columns show the whole name, never a
# character cut in half (the name was cut at 8 bytes, inside 'é'), and the header stays
# valid UTF-8, each column as wide as its name, at least 16 characters.
printf '%s' '{"lcpsim": 1, "time_step": 0.1, "steps": 2, "bodies": [{"name": "ééééééééé", "velocity": 1}]}' > "$tmp/utf8.json"
./lcpsim "$tmp/utf8.json" --print -o "$tmp/utf8.h5" > "$tmp/utf8.txt"
$PY - "$tmp/utf8.txt" <<'PYEOF'
import sys
lines = open(sys.argv[1], "rb").read().decode("utf-8").splitlines()  # raises if cut
head = lines[0]
assert "  x[ééééééééé] m" in head and " vx[ééééééééé] m/s" in head, head
# step (6) + time (1 + 12) + x (1 + 16) + vx (1 + 17: its name's length) before the title
assert head.index("   contact") == 6 + 13 + 17 + 18, head
# the rows' values end under their names (step 1: x = 0.1, v = 1)
import re
assert [m.end() for m in re.finditer(r"\S+", lines[2])] == [6, 6 + 13, 6 + 13 + 17, 6 + 13 + 17 + 18], lines[2]
print("--print, a UTF-8 name: whole characters, aligned columns: ok")
PYEOF

# Names a terminal shows wider or narrower than their code points: a wide CJK character
# (two columns), a combining accent (none), an emoji (two), beside an ASCII name and one
# long enough to widen its columns past 16. Every value must end in the terminal column
# where its column's name ends: code points counted as columns put the header of x[箱] m
# one column right of its numbers (and x[café] one left).
$PY - "$tmp/wide.json" <<'PYEOF'
import json, sys
names = ["箱", "cafe\u0301", "\U0001F4E6x", "plain", "\u7bb1\u5b50\u306e\u4e2d\u306e\u7403"]
json.dump({"lcpsim": 1, "time_step": 0.1, "steps": 2,
           "bodies": [{"name": n, "position": 2.0 * i, "velocity": 1, "width": 0.1}
                      for i, n in enumerate(names)]}, open(sys.argv[1], "w"), ensure_ascii=False)
PYEOF
./lcpsim "$tmp/wide.json" --print -o "$tmp/wide.h5" > "$tmp/wide.txt"
$PY - "$tmp/wide.txt" <<'PYEOF'
import re, sys, unicodedata
def columns(s):
    # a terminal's columns: East Asian wide / fullwidth 2, combining marks 0, else 1
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
               for c in s)
lines = open(sys.argv[1], "rb").read().decode("utf-8").splitlines()
head = lines[0]
cols = [(m.start(), m.end()) for m in re.finditer(r"\S+\[[^\]]*\](?: [^\s\[]+)?(?= |$)", head)]
assert len(cols) == 10, (len(cols), head)
ends = [columns(head[:e]) for _, e in cols]
widths = [columns(head[s:e]) for s, e in cols]
assert widths[8] > 16 and widths[9] > 16, widths  # the long name widens its columns
for line in lines[1:4]:
    vends = [columns(line[:m.end()]) for m in re.finditer(r"\S+", line)][2:12]
    assert vends == ends, (line, vends, ends)
print("--print, wide and combining characters in names: values under their names: ok")
PYEOF

# lcpsim impact's tables the same way: Newton's cradle with its first two balls named 箱0
# (a wide character) and cafe + U+0301 (a combining accent), the last one a name of 24
# characters: every row's "before" / "after" starts, and its velocities end, in the same
# terminal columns, and the contact rows' impulses end alike. Padded by bytes, 箱0's row stood a column
# left of the others and café1's one right; the long name pushed its row's numbers right.
$PY - "data/newtons_cradle.json" "$tmp/cradle_names.json" <<'PYEOF'
import json, sys
names = {"b0": "\u7bb10", "b1": "cafe\u0301", "b4": "the_last_ball_on_the_row"}
text = open(sys.argv[1]).read()
for old, new in names.items():
    text = text.replace('"%s"' % old, json.dumps(new, ensure_ascii=False))
open(sys.argv[2], "w").write(text)
open(sys.argv[2] + ".close", "w").write("%s:%s,%s:b2" % (names["b0"], names["b1"], names["b1"]))
PYEOF
./lcpsim impact "$tmp/cradle_names.json" --close "$(cat "$tmp/cradle_names.json.close")" > "$tmp/impact_names.txt" 2> "$tmp/impact_names.err" ||
  { echo "FAIL impact with wide names: $(cat "$tmp/impact_names.err")"; exit 1; }
$PY - "$tmp/impact_names.txt" <<'PYEOF'
import re, sys, unicodedata
def columns(s):
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
               for c in s)
lines = open(sys.argv[1], "rb").read().decode("utf-8").splitlines()
rows = [l for l in lines if re.search(r" (before|after) ", l)]
assert len(rows) == 10, lines
# the label starts, and the three velocities end, in the same columns on every row
ends = {(columns(l[:re.search(r" (before|after) ", l).start()]),) +
        tuple(columns(l[:m.end()]) for m in list(re.finditer(r"\S+", l))[-3:]) for l in rows}
assert len(ends) == 1, ends
contacts = [l for l in lines if l.startswith("contact ")]
assert len(contacts) == 2, lines
cends = {columns(l[:list(re.finditer(r"\S+", l))[-3].end()]) for l in contacts}  # the impulse (2-D: fx, fy follow)
assert len(cends) == 1, (cends, contacts)
print("lcpsim impact, wide, combining and long names: columns aligned: ok")
PYEOF
# ... and with values of 15 characters: the double pendulum striking the ground leaves at
# -1.33226763e-15 and -8.8817842e-16 m/s, which overflowed columns of 14 and pushed the
# numbers after them right. Every row's velocities and every row's impulse end alike.
./lcpsim impact data/double_pendulum_impact.json --close lower:ground > "$tmp/impact_dp.txt"
$PY - "$tmp/impact_dp.txt" <<'PYEOF'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
rows = [l for l in lines if re.search(r" (before|after) ", l)]
ends = {tuple(m.end() for m in list(re.finditer(r"\S+", l))[-3:]) for l in rows}
assert len(rows) == 4 and len(ends) == 1 and any("e-15" in l for l in rows), (ends, rows)
imp = [l for l in lines if l.startswith(("contact ", "joint "))]
iends = {list(re.finditer(r"\S+", l))[-3 if l.startswith("contact ") else -1].end() for l in imp}
assert len(imp) == 5 and len(iends) == 1, (iends, imp)
print("lcpsim impact, values of 15 characters: columns aligned: ok")
PYEOF

# A reader that stops early (| head) ends the table, not the run: the run went on to its
# last step with exit status 0, its file complete (SIGPIPE killed it at the first write
# after head had gone, exit 141, leaving PATH.<pid>.partial), and said so once on stderr.
{ ./lcpsim data/box_stack_3d.json --print -o "$tmp/piped.h5" 2> "$tmp/piped.err"; echo $? > "$tmp/piped.rc"; } | head -n 2 > /dev/null
test "$(cat "$tmp/piped.rc")" = 0 || { echo "FAIL --print | head: exit $(cat "$tmp/piped.rc")"; cat "$tmp/piped.err"; exit 1; }
test -f "$tmp/piped.h5" || { echo "FAIL --print | head: no $tmp/piped.h5"; ls "$tmp"; exit 1; }
grep -q "note: --print: writing the table to standard output failed (Broken pipe)" "$tmp/piped.err" ||
  { echo "FAIL --print | head: stderr"; cat "$tmp/piped.err"; exit 1; }
$PY - "$tmp/piped.h5" <<'PYEOF'
import sys
import h5py
with h5py.File(sys.argv[1], "r") as f:
    assert f["q"].shape[0] == 1001 and f["summary/run_end"][()] == b"completed", (f["q"].shape, f["summary/run_end"][()])
print("--print | head: the run goes on, its file complete: ok")
PYEOF

# A hybrid model's table of transitions names every state whole, each value ending where
# its name ends (slip's touchdown_angle was cut to touchdown_angl, 14 characters, and a
# value of 15, -3.05311332e-16, pushed the columns after it right), and its values are the
# file's states after each transition (9 digits printed: 5e-9 relative).
./lcpsim data/slip.json --print --duration 1 -o "$tmp/slip.h5" > "$tmp/slip.txt"
$PY - "$tmp/slip.txt" "$tmp/slip.h5" <<'PYEOF'
import re, sys
import numpy as np
sys.path.insert(0, "scripts")
import lcpsim_load
r = lcpsim_load.load(sys.argv[2])
names = list(r.model.state_names)
lines = open(sys.argv[1]).read().splitlines()
head = lines[0]
assert head.split()[-len(names):] == names, (head, names)
ends = [m.end() for m in re.finditer(r"\S+", head)][-len(names):]
rows = [l for l in lines[1:] if l[:6].strip().isdigit()]
assert len(rows) == len(r.events.time) > 0, (len(rows), len(r.events.time))
for k, l in enumerate(rows):
    assert [m.end() for m in re.finditer(r"\S+", l)][-len(names):] == ends, (l, ends)
    got = np.array([float(x) for x in l.split()[-len(names):]])
    want = r.events.state_after[k]
    assert np.all(np.abs(got - want) <= 5e-9 * np.abs(want) + 1e-300), (k, got, want)
print("hybrid --print: %d states named whole, values under their names, equal to the file: ok"
      % len(names))
PYEOF

# The same for a hybrid model (its table of transitions, printed after the run): the SLIP
# runner over 100 s has 801 transitions, a table of 139 kB, beyond the pipe's 64 kB, so
# the writes meet the closed pipe whatever the timing. It exited 141 (SIGPIPE), its file
# complete but its exit status saying it was killed; now 0, with one note.
{ ./lcpsim data/slip.json --print --duration 100 -o "$tmp/hpiped.h5" 2> "$tmp/hpiped.err"; echo $? > "$tmp/hpiped.rc"; } | head -n 2 > /dev/null
test "$(cat "$tmp/hpiped.rc")" = 0 || { echo "FAIL hybrid --print | head: exit $(cat "$tmp/hpiped.rc")"; cat "$tmp/hpiped.err"; exit 1; }
grep -q "note: --print: writing the table to standard output failed (Broken pipe) by event [0-9]* of 801" "$tmp/hpiped.err" ||
  { echo "FAIL hybrid --print | head: stderr"; cat "$tmp/hpiped.err"; exit 1; }
test "$(wc -l < "$tmp/hpiped.err")" = 1 || { echo "FAIL hybrid --print | head: more than one line"; cat "$tmp/hpiped.err"; exit 1; }
$PY - "$tmp/hpiped.h5" <<'PYEOF'
import sys
import h5py
with h5py.File(sys.argv[1], "r") as f:
    assert f["summary/run_end"][()] == b"completed" and f["summary/transitions"][()] == 801, \
        (f["summary/run_end"][()], f["summary/transitions"][()])
print("hybrid --print | head: exit 0, its file complete: ok")
PYEOF
