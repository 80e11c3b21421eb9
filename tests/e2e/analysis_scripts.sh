#!/bin/sh
# The analysis scripts on a file lcpsim itself produced (the cart-and-wall exercise):
# the Python and Octave loaders return the exercise's numbers, both plot scripts write a
# PNG, and the cart-wall figure script reproduces the closed form of the LCP.
set -eu
PY=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

./lcpsim data/cart_wall.json -o "$tmp/cw.h5" --quiet

# Every Python script's --help: its usage on stdout, exit 0, as the commands' (lcpsim_load.py
# and lcpsim_cut.py exited 2 with one line on stderr; compare_files_equal.py printed on
# stderr).
for s in scripts/*.py; do
  $PY "$s" --help > "$tmp/help.out" 2> "$tmp/help.err" || { echo "FAIL: $s --help: exit $?"; exit 1; }
  [ -s "$tmp/help.out" ] && [ ! -s "$tmp/help.err" ] || { echo "FAIL: $s --help: usage not on stdout"; exit 1; }
done

# Python: closed form q[n+1] = max(0, q + h v) at every step (1e-12: exact arithmetic on
# numbers of order 1), wall force from the recorded impulses, then a plot.
$PY - "$tmp/cw.h5" <<'PYEOF'
import sys
sys.path.insert(0, "scripts")
import lcpsim_load
r = lcpsim_load.load(sys.argv[1])
h = r.parameters.time_step
assert r.parameters.solver_name == "lemke" and r.bodies.name[0] == "cart"
for k in range(1, len(r.time)):
    a = r.q[k - 1, 0] + h * r.v[k - 1, 0]
    assert abs(r.q[k, 0] - max(0.0, a)) <= 1e-12, (k, r.q[k, 0], a)
    f = r.contacts.at(k).normal_impulse.sum() / h
    assert abs(f - max(0.0, -a / h**2)) <= 1e-12 * max(1.0, f), (k, f)
with open(sys.argv[1] + ".py.txt", "w") as out:
    out.write("%.17g %.17g %d\n" % (r.q[4, 0], r.contacts.normal_impulse.sum(), len(r.time)))
print("python loader on a real run: ok")
PYEOF
$PY scripts/lcpsim_plot.py "$tmp/cw.h5" -o "$tmp/cw_py.png" > /dev/null
head -c 8 "$tmp/cw_py.png" | od -An -c | grep -q "P   N   G"

# Octave: the same numbers through lcpsim_load.m, then lcpsim_plot.m.
octave-cli -H --no-window-system --eval "
  addpath('scripts');
  r = lcpsim_load('$tmp/cw.h5');
  fid = fopen('$tmp/cw.h5.m.txt', 'w');
  fprintf(fid, '%.17g %.17g %d\n', r.q(5, 1), sum(r.contacts.normal_impulse), numel(r.time));
  fclose(fid);
  lcpsim_plot('$tmp/cw.h5', '$tmp/cw_m.png');" > /dev/null
if ! cmp -s "$tmp/cw.h5.py.txt" "$tmp/cw.h5.m.txt"; then
  echo "FAIL: Octave and Python loaders disagree: $(cat "$tmp/cw.h5.py.txt") / $(cat "$tmp/cw.h5.m.txt")"
  exit 1
fi
head -c 8 "$tmp/cw_m.png" | od -An -c | grep -q "P   N   G"
echo "octave loader on a real run: ok"

# The cart-wall figure, computed by lcpsim on a 7 x 7 grid, against the closed form; run
# from another folder (the binding is found beside the script).
root=$(pwd)
(cd "$tmp" && $PY "$root/scripts/cart_wall_figure.py" --grid 7 -o fig.png --data fig.npz) > /dev/null
$PY - "$tmp/fig.npz" <<'PYEOF'
import sys
import numpy as np
d = np.load(sys.argv[1])
assert np.max(np.abs(d["q_next"] - d["q_next_exact"])) <= 1e-12
assert np.max(np.abs(d["force"] - d["force_exact"]) / np.maximum(1, d["force_exact"])) <= 1e-12
print("cart-wall figure matches the closed form: ok")
PYEOF
head -c 8 "$tmp/fig.png" | od -An -c | grep -q "P   N   G"

# Another program's HDF5 file: each script says so in one line and exits 1 (they ended
# in a traceback, AttributeError: time; Octave in an error from deep inside its loader).
$PY -c "import h5py, sys; f = h5py.File(sys.argv[1], 'w'); f['x'] = [1, 2, 3]" "$tmp/other.h5"
for s in lcpsim_load.py lcpsim_plot.py lcpsim_animate.py lcpsim_hybrid_plot.py; do
  rc=0
  if [ $s = lcpsim_load.py ]; then $PY scripts/$s "$tmp/other.h5" > /dev/null 2> "$tmp/err" || rc=$?
  else $PY scripts/$s "$tmp/other.h5" -o "$tmp/other.png" > /dev/null 2> "$tmp/err" || rc=$?; fi
  [ $rc -eq 1 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] \
    && grep -qF "other.h5: not an lcpsim file (no /format_version and /lcpsim_version; it holds x)" "$tmp/err" \
    || { echo "analysis_scripts: $s on a foreign file: exit $rc: $(cat "$tmp/err")" >&2; exit 1; }
done
octave-cli -H --no-window-system --eval "addpath('scripts'); try; lcpsim_load('$tmp/other.h5'); exit(2); \
  catch e; disp(e.message); end" > "$tmp/oct.txt" 2>&1
grep -qF "lcpsim_load: $tmp/other.h5: not an lcpsim file" "$tmp/oct.txt" \
  || { echo "analysis_scripts: lcpsim_load.m on a foreign file: $(cat "$tmp/oct.txt")" >&2; exit 1; }
echo "a foreign HDF5 file: one line from each script: ok"

# A file of another kind, a run without one of its datasets, a missing file: one line
# naming the file and what it lacks or which script draws it, exit 1 (lcpsim_plot.py and
# lcpsim_animate.py ended in 'AttributeError: bodies' on a compare file and 'energy' on a
# run without /energy, lcpsim_animate.py in 'AttributeError: dimension' on a hybrid run
# and claimed a compare file needed recording again; lcpsim_compare.py in tracebacks on
# every file not its own; lcpsim_plot.m in 'transpose not defined for N-D objects' and
# "structure has no member 'energy'").
./lcpsim compare data/cart_wall.json --solvers lemke,pgs -o "$tmp/cw_cmp.h5" --quiet
./lcpsim data/slip.json -o "$tmp/slip.h5" --quiet
cp "$tmp/cw.h5" "$tmp/noenergy.h5"
$PY -c "import h5py, sys; f = h5py.File(sys.argv[1], 'a'); del f['energy']" "$tmp/noenergy.h5"
for case in "lcpsim_plot.py|cw_cmp.h5|cw_cmp.h5 is a compare file (lcpsim compare): scripts/lcpsim_compare.py draws it" \
            "lcpsim_plot.py|noenergy.h5|noenergy.h5 has no /energy: not a whole run file" \
            "lcpsim_animate.py|cw_cmp.h5|cw_cmp.h5 is a compare file (lcpsim compare): scripts/lcpsim_compare.py draws it" \
            "lcpsim_animate.py|slip.h5|slip.h5 is a hybrid-model run: scripts/lcpsim_hybrid_plot.py draws it" \
            "lcpsim_compare.py|cw.h5|cw.h5: not a compare file: a run file (lcpsim run): scripts/lcpsim_plot.py draws it" \
            "lcpsim_compare.py|slip.h5|slip.h5: not a compare file: a hybrid-model run" \
            "lcpsim_compare.py|other.h5|other.h5: not a compare file: not an lcpsim file" \
            "lcpsim_compare.py|missing.h5|missing.h5: " ; do
  s=${case%%|*}; rest=${case#*|}; f=${rest%%|*}; want=${rest#*|}
  rc=0
  if [ $s = lcpsim_compare.py ]; then $PY scripts/$s "$tmp/$f" -o "$tmp" > /dev/null 2> "$tmp/err" || rc=$?
  else $PY scripts/$s "$tmp/$f" -o "$tmp/x.png" > /dev/null 2> "$tmp/err" || rc=$?; fi
  [ $rc -eq 1 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -qF "$want" "$tmp/err" \
    || { echo "analysis_scripts: $s on $f: exit $rc: $(cat "$tmp/err")" >&2; exit 1; }
done
octave-cli -H --no-window-system --eval "addpath('scripts');
  for f = {'cw_cmp.h5', 'noenergy.h5'}
    try; lcpsim_plot(['$tmp/' f{1}], '$tmp/x_m.png'); disp('drawn'); catch e; disp(e.message); end
  end" > "$tmp/oct.txt" 2>&1
grep -qF "lcpsim_load: $tmp/cw_cmp.h5 is a compare file (lcpsim compare)" "$tmp/oct.txt" \
  && grep -qF "lcpsim_plot: $tmp/noenergy.h5 has no /energy: not a whole run file" "$tmp/oct.txt" \
  || { echo "analysis_scripts: lcpsim_plot.m on a compare file, a run without /energy: $(cat "$tmp/oct.txt")" >&2; exit 1; }
# lcpsim_compare_load.m on a run, a hybrid run, a foreign file: what the file is (a run
# file ended in 'transpose not defined for N-D objects').
octave-cli -H --no-window-system --eval "addpath('scripts');
  for f = {'cw.h5', 'slip.h5', 'other.h5'}
    try; lcpsim_compare_load(['$tmp/' f{1}]); disp('loaded'); catch e; disp(e.message); end
  end" > "$tmp/oct.txt" 2>&1
grep -qF "lcpsim_compare_load: $tmp/cw.h5: not a compare file: a run file (lcpsim run): load it with r = lcpsim_load" "$tmp/oct.txt" \
  && grep -qF "lcpsim_compare_load: $tmp/slip.h5: not a compare file: a hybrid-model run" "$tmp/oct.txt" \
  && grep -qF "lcpsim_compare_load: $tmp/other.h5: not a compare file: not an lcpsim file" "$tmp/oct.txt" \
  || { echo "analysis_scripts: lcpsim_compare_load.m on other files: $(cat "$tmp/oct.txt")" >&2; exit 1; }
# An HDF5 file that holds nothing (a writer killed before its header's flush): said so by
# both Octave loaders, as lcpsim view says it (load() said 'value on right hand side of
# assignment is undefined').
$PY -c "import h5py, sys; h5py.File(sys.argv[1], 'w').close()" "$tmp/empty.h5"
octave-cli -H --no-window-system --eval "addpath('scripts');
  try; lcpsim_load('$tmp/empty.h5'); disp('loaded'); catch e; disp(e.message); end
  try; lcpsim_compare_load('$tmp/empty.h5'); disp('loaded'); catch e; disp(e.message); end" > "$tmp/oct.txt" 2>&1
grep -qF "lcpsim_load: $tmp/empty.h5: not an lcpsim file (no /format_version and /lcpsim_version): it holds nothing" "$tmp/oct.txt" \
  && grep -qF "lcpsim_compare_load: $tmp/empty.h5: not an lcpsim file (no /format_version and /lcpsim_version): it holds nothing" "$tmp/oct.txt" \
  || { echo "analysis_scripts: the Octave loaders on an empty HDF5 file: $(cat "$tmp/oct.txt")" >&2; exit 1; }
# lcpsim_lcp_problem.m given a path rather than a loaded file: said so, with the call to
# make (it said 'the file has no LCP dump' of a file that has one); the loaded file's
# r.lcp_problem(k) gives the step (cart_wall's first LCP is step 3's).
./lcpsim data/cart_wall.json --steps 3 --dump-lcp -o "$tmp/cw_dump.h5" --quiet
octave-cli -H --no-window-system --eval "addpath('scripts');
  try; lcpsim_lcp_problem('$tmp/cw_dump.h5', 3); disp('loaded'); catch e; disp(e.message); end
  r = lcpsim_load('$tmp/cw_dump.h5'); P = r.lcp_problem(3); printf('n %d\\n', P.n);" > "$tmp/oct.txt" 2>&1
grep -qF "lcpsim_lcp_problem: takes a loaded file, not the path '$tmp/cw_dump.h5': r = lcpsim_load('$tmp/cw_dump.h5'); P = r.lcp_problem(3)" "$tmp/oct.txt" \
  && grep -qx "n 1" "$tmp/oct.txt" \
  || { echo "analysis_scripts: lcpsim_lcp_problem.m on a path: $(cat "$tmp/oct.txt")" >&2; exit 1; }
rc=0; $PY scripts/lcpsim_compare.py "$tmp/cw_cmp.h5" -o "$tmp/cw.h5" > /dev/null 2> "$tmp/err" || rc=$?
[ $rc -eq 2 ] && grep -qF -- "-o $tmp/cw.h5: is a file: give the folder for the figures" "$tmp/err" \
  || { echo "analysis_scripts: lcpsim_compare.py -o FILE: exit $rc: $(cat "$tmp/err")" >&2; exit 1; }
echo "a compare file, a hybrid run, a run without /energy, a missing file, -o a file: one line each: ok"

# lcpsim_animate.py options out of range: refused, exit 2, naming the option, no file
# (--fps 0 ended in ZeroDivisionError; --limits 1 0 drew a mirrored view, exit 0; --dpi 0
# and --size -1 in matplotlib's words, exit 1; a missing folder in an OSError, exit 1).
for case in "--fps 0|--fps must be a finite number > 0, got 0" \
            "--fps -2|--fps must be a finite number > 0, got -2" \
            "--dpi 0|--dpi must be a finite number > 0, got 0" \
            "--size -1|--size must be a finite number > 0, got -1" \
            "--limits 1 0|--limits: XMIN 1 must be below XMAX 0, both finite" \
            "--limits nan 1|--limits: XMIN nan must be below XMAX 1, both finite" \
            "-o $tmp/nodir/a.gif|-o $tmp/nodir/a.gif: no folder $tmp/nodir"; do
  opts=${case%%|*}; want=${case#*|}
  rm -f "$tmp/anim.gif"
  rc=0; $PY scripts/lcpsim_animate.py "$tmp/cw.h5" -o "$tmp/anim.gif" $opts > /dev/null 2> "$tmp/err" || rc=$?
  [ $rc -eq 2 ] && grep -qF -- "$want" "$tmp/err" && [ ! -e "$tmp/anim.gif" ] && [ ! -e "$tmp/nodir" ] \
    || { echo "analysis_scripts: lcpsim_animate.py $opts: exit $rc: $(tail -n 1 "$tmp/err")" >&2; exit 1; }
done
echo "lcpsim_animate.py options out of range: refused: ok"

# Compare figures of counts that span decades (box_stack_3d: lemke 15 pivots, PGS 5757
# sweeps, 3 fixed sweeps): the iterations panels logarithmic (linear, lemke and the fixed
# sweeps lay on 0), the legend beside the panels (inside, it covered points); every log
# axis of the size figure with at least 2 labelled ticks (its failed-solve panels showed
# '10^-1' alone), no y label over the panel to its left.
# compare_figs.figures(FILE, DIR, STEM): the comparison FILE and its iterations and size
# figures (written in DIR), for the two checks below.
cat > "$tmp/compare_figs.py" <<'PYEOF'
import sys
sys.path.insert(0, "scripts")
import matplotlib
matplotlib.use("Agg")
import lcpsim_compare as lc
def figures(path, outdir, stem):
    c = lc.load(path)
    figs = []
    real_save = lc._save
    lc._save = lambda fig, o, name, st: (figs.append(fig), real_save(fig, o, name, st))[1]
    lc.figure_iterations(c, outdir, stem)
    lc.figure_size(c, outdir, stem)
    lc._save = real_save
    return c, figs[0], figs[1]
PYEOF
./lcpsim compare data/box_stack_3d.json --solvers 'lemke,pgs,pgs[sweeps=3]' --steps 10 \
  -o "$tmp/stack_cmp.h5" --quiet
$PY - "$tmp/stack_cmp.h5" "$tmp" <<'PYEOF'
import sys
import numpy as np
sys.path.insert(0, sys.argv[2])
from compare_figs import figures, lc
import matplotlib.pyplot as plt
c, fi, fs = figures(sys.argv[1], sys.argv[2], "stack")
it = np.asarray(c.results.iterations)
assert it.max() > 100 * it[it > 0].min(), it.max()  # the case: counts over 2 decades
top = [a for a in fi.axes if a.get_ylabel() == "iterations / pivots"]
assert len(top) == 2 and all(a.get_yscale() == "symlog" for a in top), [a.get_yscale() for a in top]
fi.canvas.draw()
leg = top[-1].get_legend()
assert leg.get_window_extent().x0 > top[-1].get_window_extent().x1, "legend inside the panel"
fs.canvas.draw()
rend = fs.canvas.get_renderer()
fig, one_decade = plt.subplots()
one_decade.semilogy([1, 2, 3], [0.02, 0.1, 0.25], "o")  # about a decade: one major tick
lc.readable_log_ticks(one_decade)
fig.canvas.draw()
for a in [one_decade] + [a for a in fs.axes if a.get_lines()]:
    lo, hi = a.get_ylim()
    ticks = [t for t in a.yaxis.get_majorticklocs() if lo <= t <= hi] + \
            [t.get_loc() for t in a.yaxis.get_minor_ticks()
             if lo <= t.get_loc() <= hi and t.label1.get_text()]
    assert len(ticks) >= 2, (a.get_ylabel(), ticks)
by_row = {}
for a in fs.axes:
    by_row.setdefault(round(a.get_position().y0, 3), []).append(a)
for row in by_row.values():
    row.sort(key=lambda a: a.get_position().x0)
    for left, right in zip(row, row[1:]):
        lab = right.yaxis.label.get_window_extent(rend)
        assert lab.x0 > left.get_window_extent(rend).x1, (right.get_ylabel(), lab.x0)
empty = [a for a in fs.axes if not a.get_lines()]  # no failed solve: no scale shown
assert empty and all(len(a.get_yticks()) == 0 for a in empty), [a.get_yticks() for a in empty]
print("compare figures: iterations on a log axis, legend beside, log ticks labelled: ok")
PYEOF

# The same figures of the pile of 10 (PGS up to 8225 sweeps, warm starts of 0): every
# point of the logarithmic iterations panels clear of their frames (the linear 5 % margin
# is 0.02 decade on that axis: the counts of 5899 lay on the top frame, the 0s on the
# bottom one), and the size axis (n = 21 .. 277, about a decade) with 2 labelled ticks or
# more ('10^2' alone).
./lcpsim compare data/pile_10.json --solvers lemke,pgs --steps 100 -o "$tmp/pile_cmp.h5" --quiet
$PY - "$tmp/pile_cmp.h5" "$tmp" <<'PYEOF'
import sys
import numpy as np
sys.path.insert(0, sys.argv[2])
from compare_figs import figures
c, fi, fs = figures(sys.argv[1], sys.argv[2], "pile")
top = [a for a in fi.axes if a.get_ylabel() == "iterations / pivots"]
assert len(top) == 2 and all(a.get_yscale() == "symlog" for a in top)
fi.canvas.draw()
for a in top:
    box = a.get_window_extent()
    ys = np.concatenate([a.transData.transform(ln.get_xydata())[:, 1] for ln in a.get_lines()
                         if len(ln.get_xdata())])
    # 1 % of the panel's height: a marker of 3 points is about 2 % of it
    room = 0.01 * box.height
    assert ys.min() >= box.y0 + room and ys.max() <= box.y1 - room, \
        (a.get_title(), ys.min() - box.y0, box.y1 - ys.max(), box.height)
fs.canvas.draw()
for a in fs.axes:
    if not a.get_xlabel():
        continue
    lo, hi = a.get_xlim()
    labelled = [t.get_loc() for t in a.xaxis.get_major_ticks() + a.xaxis.get_minor_ticks()
                if lo <= t.get_loc() <= hi and t.label1.get_visible() and t.label1.get_text()]
    assert len(labelled) >= 2, (a.get_xlabel(), lo, hi, labelled)
print("compare figures of the pile: iterations clear of the frames, sizes labelled: ok")
PYEOF

# Figure files that cannot be: one line, exit 2, before any work, nothing written (a path
# without an extension, or a folder, was written as PATH.png; the rest ended in tracebacks).
./lcpsim data/cart_wall.json -o "$tmp/cw2.h5" --quiet
mkdir "$tmp/dir"
for o in "$tmp/nofolder/x.png|no folder $tmp/nofolder" "$tmp/dir|is a folder" "$tmp/x.xyz|'.xyz' is not a figure format" \
         "$tmp/noext|has no extension" "$tmp/cw2.h5|'.h5' is not a figure format"; do
  out=${o%%|*}; want=${o#*|}
  rc=0; $PY scripts/lcpsim_plot.py "$tmp/cw2.h5" -o "$out" 2> "$tmp/err" || rc=$?
  [ $rc -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -qF -- "-o $out: $want" "$tmp/err" \
    || { echo "analysis_scripts: lcpsim_plot.py -o $out: exit $rc: $(cat "$tmp/err")" >&2; exit 1; }
done
[ ! -e "$tmp/noext.png" ] && [ ! -e "$tmp/dir.png" ] && [ -z "$(ls "$tmp/dir")" ] \
  || { echo "analysis_scripts: a refused -o wrote a figure" >&2; exit 1; }
$PY scripts/lcpsim_load.py "$tmp/cw2.h5" > /dev/null \
  || { echo "analysis_scripts: the run file was touched" >&2; exit 1; }
echo "lcpsim_plot.py: bad -o refused in one line: ok"

# lcpsim_plot.m likewise: print wrote a PNG over whatever it was given (the run itself,
# lcpsim_plot('run.h5', 'run.h5'), was replaced by its figure) and added .png to a name
# without one. Each refused with its reason, the run file unchanged.
cp "$tmp/cw2.h5" "$tmp/cw_copy.png"
sum=$(md5sum < "$tmp/cw2.h5")
for o in "$tmp/cw2.h5|the figure is a PNG" "$tmp/noext|the figure is a PNG" "$tmp/dir|is a folder" \
         "$tmp/nofolder/x.png|no folder" "$tmp/cw_copy.png|is an HDF5 file (a run?): refused"; do
  out=${o%%|*}; want=${o#*|}
  octave-cli -H --no-window-system --eval "addpath('scripts'); try; lcpsim_plot('$tmp/cw2.h5', '$out'); \
    disp('written'); catch e; disp(e.message); end" > "$tmp/oct.txt" 2>&1
  grep -qF "lcpsim_plot: $out" "$tmp/oct.txt" && grep -qF "$want" "$tmp/oct.txt" \
    || { echo "analysis_scripts: lcpsim_plot.m -o $out: $(cat "$tmp/oct.txt")" >&2; exit 1; }
done
[ "$(md5sum < "$tmp/cw2.h5")" = "$sum" ] && [ ! -e "$tmp/noext.png" ] \
  || { echo "analysis_scripts: lcpsim_plot.m wrote over a refused output" >&2; exit 1; }
echo "lcpsim_plot.m: bad outputs refused, the run file intact: ok"

# compare_files_equal.py: one argument, three, or a file that is not HDF5: usage or one
# line naming the file, exit 2 (one argument ended in an IndexError traceback)
for args in "$tmp/cw.h5" "$tmp/cw.h5 $tmp/cw.h5 $tmp/cw.h5" "$tmp/cw.h5 $tmp/missing.h5"; do
  rc=0; $PY scripts/compare_files_equal.py $args > /dev/null 2> "$tmp/err" || rc=$?
  [ $rc -eq 2 ] || { echo "compare_files_equal.py $args: exit $rc, not 2"; exit 1; }
  [ "$(wc -l < "$tmp/err")" -eq 1 ] || { echo "compare_files_equal.py $args: not one line:"; cat "$tmp/err"; exit 1; }
  if grep -q Traceback "$tmp/err"; then echo "compare_files_equal.py: traceback"; exit 1; fi
done
grep -q "missing.h5" "$tmp/err" || { echo "compare_files_equal.py: the missing file not named"; exit 1; }
$PY scripts/compare_files_equal.py "$tmp/cw.h5" "$tmp/cw.h5" > /dev/null || { echo "compare_files_equal.py: a file against itself differs"; exit 1; }
echo "compare_files_equal.py: bad arguments refused in one line: ok"

# A .dat problem and a directory given to the loaders: named in our words, one line (h5py
# said 'Unable to open file (file signature not found)' and quoted HDF5's whole error
# record for a directory; Octave's load() 'unable to determine file format' and 'unable
# to find file').
printf '2\n0\n2 2\n2 2\n2 1\n1 2\n-1 -1\n' > "$tmp/p.dat"
mkdir -p "$tmp/dir.h5"
for f in p.dat dir.h5; do
  want="not an HDF5 file (lcpsim's run and compare files are HDF5); it is text: a Siconos .dat problem is read by lcpsim solve"
  [ $f = dir.h5 ] && want="is a directory, not a run file"
  for s in lcpsim_load.py lcpsim_plot.py lcpsim_compare.py; do
    rc=0; $PY scripts/$s "$tmp/$f" > /dev/null 2> "$tmp/err" || rc=$?
    [ $rc -ne 0 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -qF "$tmp/$f: $want" "$tmp/err" ||
      { echo "FAIL: $s $f: exit $rc:"; cat "$tmp/err"; exit 1; }
  done
  for m in lcpsim_load lcpsim_compare_load; do
    octave-cli -H --no-window-system --eval "addpath('scripts'); try; $m('$tmp/$f'); exit(2); \
      catch e; if isempty(strfind(e.message, '$m: $tmp/$f: $(echo "$want" | sed "s/'/''/g")')); disp(e.message); exit(1); end; end" ||
      { echo "FAIL: $m $f"; exit 1; }
  done
done
echo "loaders on a .dat problem and a directory: named in one line: ok"

# The figure scripts write units as every other figure does, in brackets ('q[n] [m]',
# 'time step h [s]'): cart_wall_figure.py and integrators_compare.py wrote '(m)', '(s)'.
$PY - "$tmp" <<'PYEOF'
import contextlib, io, re, runpy, sys
sys.path.insert(0, "scripts")
import lcpsim_load
d = sys.argv[1]
figs = []
real = lcpsim_load.save_figure
lcpsim_load.save_figure = lambda fig, path, **kw: (figs.append(fig), real(fig, path, **kw))[1]
for argv in (["cart_wall_figure.py", "--grid", "5", "-o", f"{d}/cw_units.png"],
             ["integrators_compare.py", "--quick", "-o", f"{d}/integ"]):
    sys.argv = argv
    with contextlib.redirect_stdout(io.StringIO()):  # their tables
        runpy.run_path("scripts/" + argv[0], run_name="__main__")
labels = []
for fig in figs:
    for ax in fig.axes:
        labels += [l for l in (ax.get_xlabel(), ax.get_ylabel(),
                               ax.get_zlabel() if hasattr(ax, "get_zlabel") else "") if l]
assert len(figs) == 2 and len(labels) >= 12, (len(figs), labels)
bad = [l for l in labels if not re.search(r"\[[^\]]+\]$", l)]
assert not bad, bad
# An event-driven error under the log panels' floor (1e-13) is drawn at the floor, and its
# label says so (box_slide_3d's 2.2e-16 s sat at 1e-13 under a bare '2.2e-16 s').
notes = [t.get_text() for ax in figs[1].axes for t in ax.texts if re.match(r"^[0-9.e+-]+ [ms]", t.get_text())]
assert len(notes) == 3, notes
for t in notes:
    assert (float(t.split()[0]) < 1e-13) == ("drawn at 1e-13" in t), t
print(f"cart-wall and integrator figures: {len(labels)} axis labels, units in brackets: ok")
PYEOF
