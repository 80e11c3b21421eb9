#!/bin/sh
# Resumed runs (lcpsim SCENE --resume RUN.h5; docs/output-format.md, "Resuming a run"):
# N steps in one run against K steps and the rest resumed from the first run's file, every
# dataset compared bit for bit (the wall times aside: they are measured): a pile on PGS
# with warm starts and sleeping (resumed while it sleeps, at the step a thrown box wakes
# it, while it settles again), Lemke and sparse Lemke piles (warm start and final basis by
# contact id), a 2-D double pendulum on pins with its tip on a rope swinging onto a floor
# (joints, a tether going taut and slack, contacts), a run resumed twice; resumed from a
# file that SIGINT interrupted, from a kill -9 partial file, which stay as they were, and
# from a run a full disk stopped;
# a copy of the scene whose "$schema" differs (resumed: it is for editors);
# refused with exit 2 and a line naming the difference: another scene, a changed mass, a
# changed solver option, a run on another PGS sweep path (LSIM_SIMD=reference), -o naming
# the run itself, an event-driven run, a hybrid model, a
# run already at its end, a run the divergence guard stopped at a step it did not record.
set -eu
cd "$(dirname "$0")/../.."
PY=/usr/bin/python3
L=./lcpsim
out=$(mktemp -d /tmp/lsim_e2e_resume_XXXXXX)
trap 'rm -rf "$out"' EXIT
fail() { echo "resume: $*" >&2; exit 1; }

# The scenes (tests/e2e/resume_scenes.py): the pile of 10 boxes on PGS with sleeping and a
# box thrown onto it; the double pendulum with box links, its tip on a rope, over a floor.
$PY tests/e2e/resume_scenes.py "$out"

# same A B: every dataset of A in B and the other way round, equal in shape, type and bits,
# but those with "wall" in their name (wall times); of /resume, the slot of the last step.
same() {
  $PY tests/e2e/same_run.py "$1" "$2" 90 || fail "$1 and $2 differ"
}

# resumed SCENE N K [OPTIONS]: N steps straight against K, then resumed to N (the options
# given to both first runs only: the resumed run takes the run's settings from its file).
resumed() {
  scene=$1 n=$2 k=$3
  shift 3
  $L "$scene" --steps "$n" -o "$out/straight.h5" --quiet "$@"
  $L "$scene" --steps "$k" -o "$out/half.h5" --quiet "$@"
  cp "$out/half.h5" "$out/half.copy"
  $L "$scene" --resume "$out/half.h5" --steps "$n" -o "$out/resumed.h5" --quiet ||
    fail "$scene: resuming at step $k of $n: exit $?"
  same "$out/straight.h5" "$out/resumed.h5"
  cmp -s "$out/half.h5" "$out/half.copy" || fail "$scene: --resume changed its input"
}

# The sleeping PGS pile: the file at step 100 holds the sleepers and the impulse cache of
# their contacts; the box wakes the pile at step 169, the step after 168.
$L "$out/pile.json" -o "$out/pile.h5" --quiet
$PY - "$out/pile.h5" <<'EOF'
import sys, h5py
import numpy as np
f = h5py.File(sys.argv[1], "r")
s = f["solver/sleeping"][:]
assert s[99] == 10 and s[167] == 10 and s[168] == 0 and s[-1] == 11, s[95:180]
assert f["solver/warm_started"][:].sum() > 20 and f["solver/iterations"][:].max() > 1
EOF
for k in 100 168 172; do resumed "$out/pile.json" 300 $k; done
$L "$out/pile.json" --steps 100 -o "$out/half.h5" --quiet
$PY -c "
import sys, h5py
f = h5py.File(sys.argv[1], 'r')
m = [f['resume'][s] for s in f['resume'] if f['resume'][s]['step'][()] == 100][0]
assert m['sleep_asleep'][:].sum() == 10
assert len(m['sleep_cache_id']) > 0  # the sleepers' contacts: their LCP rows are gone
" "$out/half.h5"

# Lemke and sparse Lemke (the final basis carried by contact id), the dominoes (fallback
# recoveries), the pendulum on pins and a rope (the tether taut at step 80, slack at 137,
# the lower link on the floor).
resumed data/pile_10.json 200 100
resumed data/pile_10.json 200 100 --solver lemke_sparse
$PY -c "
import sys, h5py
f = h5py.File(sys.argv[1], 'r')
assert [f['resume'][s]['warm_basis_valid'][()] for s in f['resume'] if f['resume'][s]['step'][()] == 100] == [1]
" "$out/half.h5"
resumed data/dominoes_10.json 120 61
$L "$out/jt.json" -o "$out/jt.h5" --quiet
$PY -c "
import sys, h5py
import numpy as np
f = h5py.File(sys.argv[1], 'r')
t = f['tethers/taut'][:, 0]
assert t[79] == 1 and t[136] == 0 and 20 < t.sum() < 180, t.sum()
assert (f['contacts/kind'][:] == 0).sum() > 50 and f['joints/impulse'][:].any()
" "$out/jt.h5"
resumed "$out/jt.json" 200 80
resumed "$out/jt.json" 200 137

# Resumed twice: 100 -> 150 -> 200 steps, the last file the straight run's.
$L data/pile_10.json --steps 100 -o "$out/a.h5" --quiet
$L data/pile_10.json --resume "$out/a.h5" --steps 150 -o "$out/b.h5" --quiet
$L data/pile_10.json --resume "$out/b.h5" --steps 200 -o "$out/c.h5" --quiet
$L data/pile_10.json --steps 200 -o "$out/straight.h5" --quiet
same "$out/straight.h5" "$out/c.h5"

# whole PATH N: PATH holds N steps or more, flushed whole: /flushed_rows (the rows of its
# last flush that reached the file whole) at least N + 1, those rows readable, the last at
# its time, with a stepper memory of that step; read without HDF5's file lock (the writer
# holds it).
whole() {
  [ -f "$1" ] && HDF5_USE_FILE_LOCKING=FALSE $PY -c "
import sys, h5py
with h5py.File(sys.argv[1], 'r') as f:
    n = int(f['flushed_rows'][()]) - 1
    t = f['time'][:n + 1]
    f['q'][:n + 1], f['v'][:n + 1], f['solver/status'][:n], f['contacts/offset'][:n + 2]
    steps = [f['resume'][s]['step'][()] for s in f['resume']]
    sys.exit(0 if n >= int(sys.argv[2]) and t[n] == 0.005 * n and n in steps else 1)
" "$1" "$2" 2> /dev/null
}

# refused CODE-FREE: exit 2, stderr holding TEXT, no output made.
refused() {
  want=$1
  shift
  rm -f "$out/no.h5"
  rc=0
  err=$($L "$@" 2>&1 > /dev/null) || rc=$?
  [ $rc -eq 2 ] || fail "$*: exit $rc, not 2 ($err)"
  case "$err" in *"$want"*) ;; *) fail "$*: said '$err', not '$want'" ;; esac
  [ ! -e "$out/no.h5" ] || fail "$*: wrote its output"
  ls "$out"/no.h5.*.partial > /dev/null 2>&1 && fail "$*: left a partial file"
  return 0
}

# SIGINT: the file marked interrupted after N steps, resumed to N + 100 and compared with
# one run of N + 100 steps.
$L "$out/pile.json" --steps 100000000 -o "$out/int.h5" --quiet &
pid=$!
# (any N will do: a short wait keeps the run of N + 100 steps short; N is 0 when the
# signal comes before the first step, which the handler, set before the file is made,
# catches too: tests/e2e/signal_at_open.sh)
i=0
until [ -f "$out/int.h5.$pid.partial" ] || [ $i -ge 600 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.2
kill -INT $pid
rc=0
wait $pid || rc=$?
[ $rc -eq 130 ] || fail "SIGINT: exit $rc, not 130"
echo "resume: SIGINT after $($PY -c "import h5py, sys; print(h5py.File(sys.argv[1], 'r')['summary/steps_done'][()])" "$out/int.h5") steps"
n=$($PY -c "
import sys, h5py
f = h5py.File(sys.argv[1], 'r')
assert f['summary/run_end'][()] == b'interrupted'
print(f['summary/steps_done'][()])
" "$out/int.h5")
cp "$out/int.h5" "$out/int.copy"
$L "$out/pile.json" --resume "$out/int.h5" --steps $((n + 100)) --quiet
$L "$out/pile.json" --steps $((n + 100)) -o "$out/straight.h5" --quiet
same "$out/straight.h5" "$out/int.resumed.h5"
cmp -s "$out/int.h5" "$out/int.copy" || fail "SIGINT: --resume changed its input"

# kill -9: PATH.<pid>.partial, without /summary, holds the steps of its last whole flush
# (/flushed_rows) and the stepper's memory of that step; resumed (default output
# PATH.resumed.h5) to 100 steps past them, as one run of as many.
$L "$out/jt.json" --steps 100000000 -o "$out/killed.h5" --quiet &
pid=$!
part="$out/killed.h5.$pid.partial"
# Stopped (SIGSTOP) where its file reads whole, then killed (a flush cut short is below,
# and at every point of one in tests/e2e/killed_flush.sh).
# The file is read only while the run is stopped: running, it flushes every 256 steps
# (a few ms here), faster than a reader opens it, so a read taken then is mostly torn (on
# a loaded machine, for a minute on end).
# (lib/stopped_when.sh: 120 s at most, naps growing from 0.2 s to 4 s, so that a run slowed
# by a loaded machine gets on between the checks; a fixed 0.2 s for 60 s before)
. tests/e2e/lib/stopped_when.sh
stopped_when $pid whole "$part" 300
kill -9 $pid
wait $pid || true
[ -f "$part" ] && [ ! -e "$out/killed.h5" ] || fail "kill -9: no partial file $part"
n=$($PY -c "
import sys, h5py
f = h5py.File(sys.argv[1], 'r')
n = int(f['flushed_rows'][()]) - 1
assert 'summary' not in f and n in [f['resume'][s]['step'][()] for s in f['resume']]
print(n)
" "$part")
cp "$part" "$out/part.copy"
msg=$($L "$out/jt.json" --resume "$part" --steps $((n + 100)))
case "$msg" in *"resuming $part (unfinished) after step $n of $((n + 100))"*) ;;
  *) fail "kill -9: resume said: $msg" ;; esac
$L "$out/jt.json" --steps $((n + 100)) -o "$out/straight.h5" --quiet
same "$out/straight.h5" "$out/killed.resumed.h5"
cmp -s "$part" "$out/part.copy" || fail "kill -9: --resume changed the partial file"

# A kill inside a flush (HDF5 writes its metadata in the order of its addresses): the
# partial file made as such a kill leaves it, from a copy of the one above: /time, /q, /v
# and /contacts/offset extended by 300 rows the flush's chunks never reached (they read
# as 0), /solver/status not, the other memory slot of step n + 300. Resumed from its last
# whole flush, step n, as one run (before /flushed_rows: refused, "/time[..] is 0" or "its
# rows disagree").
# (The copy may already hold rows past its last flush: the stop can land inside a flush,
# after the new extents reached the file and before /flushed_rows did.)
cp "$out/part.copy" "$out/torn.h5"
past=$($PY -c "
import sys, h5py
f = h5py.File(sys.argv[1], 'r+')
n = int(sys.argv[2])
for d in ('time', 'q', 'v', 'contacts/offset'):
    f[d].resize(f[d].shape[0] + 300, axis=0)
old = [s for s in f['resume'] if f['resume'][s]['step'][()] != n][0]
f['resume'][old]['step'][()] = n + 300
print(f['time'].shape[0] - (n + 1))
" "$out/torn.h5" $n)
[ "$past" -ge 300 ] || fail "kill -9 inside a flush: $past rows past the flush, not 300 or more"
msg=$($L "$out/jt.json" --resume "$out/torn.h5" --steps $((n + 100)) -o "$out/torn.resumed.h5")
case "$msg" in *"resuming $out/torn.h5 (unfinished) after step $n of $((n + 100))"*"its last whole flush ends at step $n; $past rows past it, of a flush the kill cut short, are left out"*) ;;
  *) fail "kill -9 inside a flush: resume said: $msg" ;; esac
same "$out/straight.h5" "$out/torn.resumed.h5"
# The loader reads such a file up to its last whole flush too (it read the 300 rows past
# it, their times 0).
$PY - "$out/torn.h5" $n <<'EOF' || fail "kill -9 inside a flush: the Python loader read past /flushed_rows"
import sys
import numpy as np
sys.path.insert(0, "scripts")
import lcpsim_load
r, n = lcpsim_load.load(sys.argv[1]), int(sys.argv[2])
assert len(r.time) == len(r.q) == n + 1 and len(r.solver.status) == n, (len(r.time), n)
assert len(r.contacts.offset) == n + 2 and len(r.contacts.gap) == r.contacts.offset[-1]
assert np.all(np.diff(r.time) > 0) and r.summary.steps_done == n
EOF
(cd scripts && octave-cli -H --eval "r = lcpsim_load('$out/torn.h5'); n = $n;
  assert(numel(r.time) == n + 1 && size(r.q, 1) == n + 1 && numel(r.solver.status) == n);
  assert(numel(r.contacts.offset) == n + 2 && numel(r.contacts.gap) == double(r.contacts.offset(end)));
  assert(all(diff(r.time) > 0) && r.summary.steps_done == n);") > /dev/null 2>&1 \
  || fail "kill -9 inside a flush: the Octave loader read past /flushed_rows"
# Fewer rows than its last whole flush, or none whole: a damaged file, refused (exit 2).
# (/flushed_rows set 2 past the rows /time holds: the copy may hold rows past its last
# flush, so n + 2 can be within them.)
cp "$out/part.copy" "$out/short.h5"
claimed=$($PY -c "
import sys, h5py
f = h5py.File(sys.argv[1], 'r+')
f['flushed_rows'][()] = f['time'].shape[0] + 2
print(f['flushed_rows'][()])
" "$out/short.h5")
refused "are fewer than its last whole flush left (/flushed_rows: $claimed states): a damaged file" "$out/jt.json" --resume "$out/short.h5" --steps $((n + 100)) -o "$out/no.h5"
$PY -c "
import sys, h5py
h5py.File(sys.argv[1], 'r+')['flushed_rows'][()] = 0
" "$out/short.h5"
refused "killed before its first flush reached the file whole (/flushed_rows is 0)" "$out/jt.json" --resume "$out/short.h5" --steps $((n + 100)) -o "$out/no.h5"
# Killed before even the header's flush: the file holds HDF5's empty root group alone
# (said 'not a run file of lcpsim (no /time, ...)' of a file lcpsim made).
$PY -c "import sys, h5py; h5py.File(sys.argv[1], 'w').close()" "$out/empty.h5.123.partial"
refused "holds nothing (an HDF5 file with an empty root group: a run killed before its first flush, the header's, reached the file)" "$out/jt.json" --resume "$out/empty.h5.123.partial" --steps $((n + 100)) -o "$out/no.h5"

# A full disk (a 12 MB tmpfs; skipped where none can be mounted): the run stops at step N
# with its file whole (exit 1, stopped); resumed onto another disk to N + 100 steps, as one
# run of as many.
mnt=$out/disk
mkdir "$mnt"
if mount -t tmpfs -o size=12m tmpfs "$mnt" 2> /dev/null; then
  rc=0
  $L data/pile_10.json --steps 100000 -o "$mnt/full.h5" --quiet 2> /dev/null || rc=$?
  [ $rc -eq 1 ] || { umount "$mnt"; fail "full disk: exit $rc, not 1"; }
  n=$($PY -c "
import sys, h5py
f = h5py.File(sys.argv[1], 'r')
n = f['summary/steps_done'][()]
assert f['summary/run_end'][()] == b'stopped' and n in [f['resume'][s]['step'][()] for s in f['resume']]
print(n)
" "$mnt/full.h5") || { umount "$mnt"; fail "full disk: the file is not resumable"; }
  $L data/pile_10.json --resume "$mnt/full.h5" --steps $((n + 100)) -o "$out/full.resumed.h5" --quiet ||
    { umount "$mnt"; fail "full disk: resuming failed"; }
  umount "$mnt"
  $L data/pile_10.json --steps $((n + 100)) -o "$out/straight.h5" --quiet
  same "$out/straight.h5" "$out/full.resumed.h5"
else
  echo "resume: cannot mount a tmpfs here (not root?): the full disk case skipped"
fi

$L data/pile_10.json --steps 50 -o "$out/p.h5" --quiet
cp "$out/p.h5" "$out/p.copy"
# Another scene; the same scene with one mass changed (its place named, file:line:col).
refused "dominoes_10.json:7:16: time_step: 0.005 here, 0.01 in the run's scene ($out/p.h5): the run is not of this scene" data/dominoes_10.json --resume "$out/p.h5" --steps 60 -o "$out/no.h5"
$PY -c "
import json
s = json.load(open('data/pile_10.json'))
s['bodies'][1]['density'] = 501
json.dump(s, open('$out/heavier.json', 'w'), indent=1)
"
refused "heavier.json:" "$out/heavier.json" --resume "$out/p.h5" --steps 60 -o "$out/no.h5"
refused "bodies[1].density: 501 here, 500 in the run's scene" "$out/heavier.json" --resume "$out/p.h5" --steps 60 -o "$out/no.h5"
# "$schema" names the schema for editors and is ignored (docs/scene-format.md): a copy of
# the scene whose "$schema" points elsewhere (moved to another folder) or has none is
# the same scene, and resumes to the straight run's steps (before: refused, "the run's
# scene gives "$schema": ..., this one does not").
$PY -c "
import json
s = json.load(open('data/pile_10.json'))
s['\$schema'] = '../data/scene.schema.json'
json.dump(s, open('$out/schema.json', 'w'), indent=1)
del s['\$schema']
json.dump(s, open('$out/noschema.json', 'w'))
"
$L data/pile_10.json --steps 60 -o "$out/p60.h5" --quiet
for sc in schema noschema; do
  $L "$out/$sc.json" --resume "$out/p.h5" --steps 60 -o "$out/$sc.h5" --quiet ||
    fail "$sc.json: resume refused (its \$schema differs)"
  $PY -c "
import sys
sys.path.insert(0, 'tests/e2e')
from same_run import differ, load
# the same steps, to the bit; the file keeps the scene text it was given
d = differ(load(sys.argv[1]), load(sys.argv[2]), 90)
assert d in ([], ['scene_text']), d
" "$out/p60.h5" "$out/$sc.h5" || fail "$sc.json: resumed steps differ"
done
# A solver option the run did not use; the run as its own output; no new end given.
refused "--tol 1e-08 differs from the run's 1e-10" data/pile_10.json --resume "$out/p.h5" --tol 1e-8 --steps 60 -o "$out/no.h5"
# Sparse Lemke's settings in effect (the environment's here) are recorded and a resume
# under others is refused, naming the setting (before: continued silently with other
# solves); under the same ones the resumed run is the straight run, bit for bit.
LSIM_LU_SOLVE=klu LSIM_LU_REFACTOR=50 $L data/pile_10.json --solver lemke_sparse --steps 30 \
  -o "$out/ls.h5" --quiet
LSIM_LU_SOLVE=klu LSIM_LU_REFACTOR=50 $L data/pile_10.json --solver lemke_sparse --steps 60 \
  -o "$out/ls_straight.h5" --quiet
$PY -c "
import h5py, sys
p = h5py.File(sys.argv[1], 'r')['parameters']
assert (p['solver_lu_solve'][()], p['solver_lu_refactor'][()], p['solver_block_start'][()]) == (b'klu', 50, 0), list(p)
" "$out/ls.h5" || fail "sparse Lemke settings in effect not recorded"
refused "ls.h5: its lemke_sparse setting lu_solve is klu, this run's umfpack (the scene's solver.lu_solve, else the environment's LSIM_LU_SOLVE, else the built-in one): the continued steps would not be the run's; take its setting (LSIM_LU_SOLVE=klu)" \
  data/pile_10.json --resume "$out/ls.h5" --steps 60 -o "$out/no.h5"
export LSIM_LU_SOLVE=klu
refused "its lemke_sparse setting lu_refactor is 50, this run's 100" \
  data/pile_10.json --resume "$out/ls.h5" --steps 60 -o "$out/no.h5"
export LSIM_LU_REFACTOR=50 LSIM_BLOCK_START=4
refused "its lemke_sparse setting block_start is 0, this run's 4" \
  data/pile_10.json --resume "$out/ls.h5" --steps 60 -o "$out/no.h5"
unset LSIM_BLOCK_START
$L data/pile_10.json --resume "$out/ls.h5" --steps 60 -o "$out/ls_resumed.h5" --quiet ||
  fail "resume under the run's sparse Lemke settings"
unset LSIM_LU_SOLVE LSIM_LU_REFACTOR
same "$out/ls_straight.h5" "$out/ls_resumed.h5"
# newton's sparse Lemke fallback and lemke's LU run (after a failed dense run) read the
# same environment: their runs record it too and a resume under another is refused (before:
# neither recorded it; pile_100 on newton with --max-iter 2 --sparse-limit -1, 30 steps,
# resumed to 60 under LSIM_LU_SOLVE=own, was taken and its /q was the own run's, not the
# run's); under the same ones the resumed run is the straight run, bit for bit.
for s in newton lemke; do
  LSIM_LU_SOLVE=klu $L data/pile_10.json --solver $s --steps 30 -o "$out/fb_$s.h5" --quiet
  LSIM_LU_SOLVE=klu $L data/pile_10.json --solver $s --steps 40 -o "$out/fb_${s}_straight.h5" --quiet
  $PY -c "
import h5py, sys
p = h5py.File(sys.argv[1], 'r')['parameters']
assert (p['solver_lu_solve'][()], p['solver_lu_refactor'][()], p['solver_block_start'][()]) == (b'klu', 100, 0), list(p)
" "$out/fb_$s.h5" || fail "$s: sparse Lemke settings in effect not recorded"
  refused "fb_$s.h5: its $s run's sparse Lemke setting lu_solve is klu, this run's umfpack (the environment's LSIM_LU_SOLVE, else the built-in one;" \
    data/pile_10.json --resume "$out/fb_$s.h5" --steps 40 -o "$out/no.h5"
  LSIM_LU_SOLVE=klu LSIM_BLOCK_START=2 $L data/pile_10.json --resume "$out/fb_$s.h5" --steps 40 \
    -o "$out/no.h5" > /dev/null 2>&1 && fail "$s: resumed under LSIM_BLOCK_START=2"
  LSIM_LU_SOLVE=klu $L data/pile_10.json --resume "$out/fb_$s.h5" --steps 40 \
    -o "$out/fb_${s}_resumed.h5" --quiet || fail "$s: resume under the run's sparse Lemke settings"
  same "$out/fb_${s}_straight.h5" "$out/fb_${s}_resumed.h5"
done
# PGS's coloured sweep on LSIM_SIMD=reference, the one sweep path whose bits differ from
# the others' (docs/solvers.md, "Environment"): the run records it and a resume on another
# path is refused, both ways (before: pile_100 run 60 steps under it and resumed to 90
# without it was taken, its /q 2.7e-6 m off the straight run's); the other paths give the
# same bits, so a resume on sse2 of a run on the default path is taken, bit for bit.
export LSIM_SIMD=reference
$L data/pile_100.json --steps 60 -o "$out/simd_ref.h5" --quiet
$L data/pile_100.json --steps 90 -o "$out/simd_ref_straight.h5" --quiet
unset LSIM_SIMD
$PY -c "
import h5py, sys
p = h5py.File(sys.argv[1], 'r')['parameters']
assert p['solver_simd'][()] == b'reference', list(p)
" "$out/simd_ref.h5" || fail "LSIM_SIMD=reference not recorded"
refused "simd_ref.h5: its run took PGS's sweep on LSIM_SIMD=reference, this run the default paths:" \
  data/pile_100.json --resume "$out/simd_ref.h5" --steps 90 -o "$out/no.h5"
$L data/pile_100.json --steps 60 -o "$out/simd.h5" --quiet
$L data/pile_100.json --steps 90 -o "$out/simd_straight.h5" --quiet
export LSIM_SIMD=reference
refused "simd.h5: its run took PGS's sweep on the default paths, this run LSIM_SIMD=reference:" \
  data/pile_100.json --resume "$out/simd.h5" --steps 90 -o "$out/no.h5"
$L data/pile_100.json --resume "$out/simd_ref.h5" --steps 90 -o "$out/simd_ref_resumed.h5" \
  --quiet || fail "resume under the run's LSIM_SIMD=reference"
same "$out/simd_ref_straight.h5" "$out/simd_ref_resumed.h5"
export LSIM_SIMD=sse2
$L data/pile_100.json --resume "$out/simd.h5" --steps 90 -o "$out/simd_resumed.h5" --quiet ||
  fail "resume of a run on the default path under LSIM_SIMD=sse2"
unset LSIM_SIMD
$PY -c "
import sys
sys.path.insert(0, 'tests/e2e')
from same_run import differ, load
# every dataset the same bits but /solver/simd, which says the path each step ran on
d = differ(load(sys.argv[1]), load(sys.argv[2]), 90)
assert d == ['solver/simd'], d
" "$out/simd_straight.h5" "$out/simd_resumed.h5" || fail "resumed on sse2: not the straight run's bits"
# A persistent pair keeps its order by the previous step's contact ids (contact.c,
# keep_order), which the resumed stepper rebuilds from the file's memory: a row of 10 equal
# boxes, whose neighbours' order round-off swaps from step 79 on, resumed at step 85 is the
# straight run, bit for bit.
$PY -c "
import json
s = {'lcpsim': 1, 'dimension': 3, 'time_step': 0.01, 'steps': 100, 'gravity': [0, 0, -9.81],
     'bodies': [{'name': 'ground', 'type': 'static', 'shapes': [{'type': 'plane', 'mu': 0.5}]},
                {'name': 'box', 'mass': 1.0, 'position': [0, 0, 0.1],
                 'shapes': [{'type': 'box', 'half_extents': [0.1, 0.1, 0.1], 'mu': 0.5}],
                 'grid': {'count': [10, 1, 1], 'spacing': [0.2, 0.2, 0.2]}}]}
json.dump(s, open('$out/row.json', 'w'), indent=1)
"
$L "$out/row.json" -o "$out/row_straight.h5" --quiet
$L "$out/row.json" --steps 85 -o "$out/row_half.h5" --quiet
$L "$out/row.json" --resume "$out/row_half.h5" --steps 100 -o "$out/row_resumed.h5" --quiet || fail "row: resume"
same "$out/row_straight.h5" "$out/row_resumed.h5"
refused "is the run continued (--resume) $out/p.h5: refused (it would be replaced)" data/pile_10.json --resume "$out/p.h5" --steps 60 -o "$out/p.h5"
refused "the run holds the 50 steps it asked for (completed)" data/pile_10.json --resume "$out/p.h5" -o "$out/no.h5"
# An event-driven run; a hybrid-model scene; a file that is no run file.
$L data/bouncing_ball_events.json --duration 0.5 -o "$out/ev.h5" --quiet
refused "an event-driven run" data/bouncing_ball_events.json --resume "$out/ev.h5" -o "$out/no.h5"
refused "--resume applies to time-stepping runs only" data/slip.json --resume "$out/p.h5" -o "$out/no.h5"
refused "cannot open as an HDF5 file" data/pile_10.json --resume data/pile_10.json --steps 60 -o "$out/no.h5"
# A run the divergence guard stopped at a step it did not record (306: the ball passes
# limits.max_speed 3 m/s): its memory is of its last flush (step 256), not of step 305.
$PY -c "
import json
s = json.load(open('data/bouncing_ball.json'))
s['limits'] = {'max_speed': 3}
json.dump(s, open('$out/guard.json', 'w'))
"
$L "$out/guard.json" -o "$out/guard.h5" --quiet 2> /dev/null && fail "the guard did not stop the ball"
refused "its stepper memory (/resume) is of step 256, its rows end at step 305" "$out/guard.json" --resume "$out/guard.h5" --steps 400 -o "$out/no.h5"
cmp -s "$out/p.h5" "$out/p.copy" || fail "a refused --resume changed its input"
# A run file written before /joints/velocity_error (the dataset removed from a copy): the
# resumed file computes the copied steps' velocity errors from their states, equal to one
# run's to round-off (1e-12 m/s).
$L data/double_pendulum.json -o "$out/vfull.h5" --steps 60 --quiet
$L data/double_pendulum.json -o "$out/vhalf.h5" --steps 30 --quiet
$PY -c "
import h5py; f = h5py.File('$out/vhalf.h5', 'a'); del f['joints/velocity_error']"
$L data/double_pendulum.json --resume "$out/vhalf.h5" --steps 60 -o "$out/vres.h5" --quiet
$PY -c "
import h5py, numpy as np
a = h5py.File('$out/vfull.h5', 'r')['joints/velocity_error'][:]
b = h5py.File('$out/vres.h5', 'r')['joints/velocity_error'][:]
assert a.shape == b.shape == (61, 2), (a.shape, b.shape)
assert np.abs(a - b).max() <= 1e-12 and a[1:].max() > 0, (np.abs(a - b).max(), a.max())
" || fail "velocity errors of a file without /joints/velocity_error"
# A run file written before the energy guard's series (both removed from a copy): the
# resumed file has them, 0 (not judged) for the copied steps, and its other series equal
# one run's.
$PY -c "
import h5py; f = h5py.File('$out/vhalf.h5', 'a'); del f['solver/energy_guard']; del f['solver/refused_energy']"
$L data/double_pendulum.json --resume "$out/vhalf.h5" --steps 60 -o "$out/gres.h5" --quiet ||
  fail "resuming a file without /solver/energy_guard"
$PY -c "
import h5py, numpy as np
a, b = h5py.File('$out/vfull.h5', 'r'), h5py.File('$out/gres.h5', 'r')
for n in ('solver/energy_guard', 'solver/refused_energy'):
    assert b[n].shape == (60,) and not b[n][:].any(), (n, b[n][:])
assert np.array_equal(a['q'][:], b['q'][:])
" || fail "the energy guard's series of a file written before them"
# A continued run's failure line counts the steps it ran, as its summary line does: the
# pinned boxes on Lemke at a tolerance no rounding meets (--tol 1e-300, the resumed run's
# setting too) fail on most steps with contacts; continued after step 10, the line names
# steps 11 .. 200, their failures and the first of them, as /solver/status has them.
$L tests/data/pinned_boxes_rope.json --tol 1e-300 -o "$out/fa.h5" --steps 10 --quiet 2> /dev/null && fail "pinned boxes: no failure"
set +e
$L tests/data/pinned_boxes_rope.json --tol 1e-300 --resume "$out/fa.h5" -o "$out/fb.h5" --steps 200 --quiet 2> "$out/fb.err"
rc=$?
set -e
[ $rc -eq 1 ] || fail "pinned boxes continued: exit $rc, not 1"
$PY -c "
import h5py, numpy as np, re
s = h5py.File('$out/fb.h5', 'r')['solver/status'][10:]
bad = np.nonzero(s < 0)[0]
err = open('$out/fb.err').read()
m = re.search(r'failed on (\d+) of (\d+) steps \(11 \.\. 200\) \(first at step (\d+):', err)
assert m and len(bad) > 0, err
assert (int(m[1]), int(m[2]), int(m[3])) == (len(bad), 190, bad[0] + 11), (m.groups(), len(bad), bad[0] + 11)
" || fail "a continued run's failure line"
echo "resume: ok"
