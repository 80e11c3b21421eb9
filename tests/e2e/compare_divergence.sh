#!/bin/sh
# compare_divergence.sh: lcpsim_compare.py's divergence figure (independent mode) names
# every series a reader cannot see. The 1e-18 floor draws the series that never leave the
# reference's trajectory on one line; a series whose curve is another's at every step is
# drawn under the later one. On data/brick_friction.json, siconos:enum and
# siconos:pathsearch stay within 2.2e-19 of lemke's trajectory (drawn at the floor, but
# named only when exactly 0 before), and siconos:lemke's curve is siconos:pivot's (hidden
# under it, named nowhere before). The expectations are computed here from /divergence/q.
set -eu
PY=/usr/bin/python3
tmp=$(mktemp -d /tmp/lsim_e2e_cdiv_XXXXXX)
trap 'rm -rf "$tmp"' EXIT
./lcpsim compare data/brick_friction.json --mode independent --quiet -o "$tmp/ind.h5" \
  --solvers 'lemke,pgs,siconos:lemke,siconos:pivot,siconos:enum,siconos:pathsearch,siconos:rpgs'
$PY - "$tmp" <<'PYEOF'
import os, sys
sys.path.insert(0, "scripts")
import h5py
import matplotlib
matplotlib.use("Agg")
import numpy as np
import lcpsim_compare as lc
tmp = sys.argv[1]
with h5py.File(os.path.join(tmp, "ind.h5")) as f:
    q = f["divergence/q"][()]
    labels = [x.decode() for x in f["series/label"][()]]
    ref = f["series/is_reference"][()]
kept = []
orig = lc._save
lc._save = lambda fig, outdir, name, stem: (kept.append(fig), orig(fig, outdir, name, stem))[1]
lc.figure_divergence(lc.load(os.path.join(tmp, "ind.h5")), tmp, "ind")
text = " ".join(t.get_text() for ax in kept[0].axes for t in ax.texts)
text = " ".join(text.split())
floor = 1e-18
at_floor = [labels[s] for s in range(len(labels)) if not ref[s] and not (q[:, s] > floor).any()]
hidden = []
for s in range(len(labels)):
    if ref[s] or s in at_floor or not (q[:, s] > floor).any():
        continue
    later = [t for t in range(s + 1, len(labels)) if not ref[t] and
             np.array_equal(np.maximum(q[:, s], floor), np.maximum(q[:, t], floor))]
    if later:
        hidden.append(labels[s])
bad = [l for l in at_floor + hidden if l not in text]
# the case must hold what it is about: a series at the floor but not exactly 0, and one hidden
assert any((q[:, s] > 0).any() for s in range(len(labels)) if labels[s] in at_floor), "no inexact floor series"
assert hidden, "no series hidden under another"
assert not bad, f"not named under the divergence figure: {bad}; text: {text!r}"
print(f"divergence figure: {len(at_floor)} series at the floor and {hidden} hidden, all named: ok")
PYEOF
echo "compare_divergence: ok"
