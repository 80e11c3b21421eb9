#!/bin/sh
# lcpsim_compare.py's line figures (performance profile, divergence) tell every series
# apart: with more series than tab20 has colours (every LCP solver of `lcpsim solvers`,
# 23), series 20, 21 and 22 took the colours of 0, 1 and 2 with the same solid line
# (lemke and siconos:pathsearch, pgs and siconos:pivot_lumod, newton and
# siconos:convexqp_pg drawn alike in the profile). Each labelled line's (colour, dash)
# must now be its own.
set -eu
PY=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
D=${LSIM_SHARED:-../shared}/data/siconos-lcp
S=$(./lcpsim solvers 2>/dev/null | grep -v '^siconos:fc' | grep -v '^nsgs' | paste -sd, -)
n=$(echo "$S" | tr ',' '\n' | wc -l)
[ "$n" -gt 20 ] || { echo "FAIL: $n LCP solvers, the case needs more than 20"; exit 1; }
./lcpsim compare "$D/lcp_deudeu.dat" "$D/lcp_trivial.dat" --solvers "$S" \
  -o "$tmp/set.h5" --quiet
# The divergence figure: an independent comparison of as many series.
./lcpsim compare data/two_blocks.json --mode independent --solvers "$S" \
  -o "$tmp/ind.h5" --quiet || true
$PY - "$tmp" <<'PYEOF'
import sys, os
sys.path.insert(0, "scripts")
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import lcpsim_compare as lc
tmp = sys.argv[1]
kept = []
orig = lc._save
def keep(fig, outdir, name, stem):
    kept.append((stem, fig))
    return orig(fig, outdir, name, stem)
lc._save = keep
for f, fig_fn in (("set.h5", lc.figure_profile), ("ind.h5", lc.figure_divergence)):
    if not os.path.exists(os.path.join(tmp, f)):
        continue
    c = lc.load(os.path.join(tmp, f))
    fig_fn(c, tmp, f[:-3])
checked = 0
for stem, fig in kept:
    for ax in fig.axes:
        seen = {}
        for line in ax.get_lines():
            lab = line.get_label()
            if lab.startswith("_"):
                continue
            key = (matplotlib.colors.to_hex(line.get_color()), line.get_linestyle())
            assert key not in seen, f"{stem}: {lab!r} drawn as {seen[key]!r}: {key}"
            seen[key] = lab
            checked += 1
assert checked > 40, checked
print(f"compare figures: {checked} labelled lines, each its own colour and dash: ok")
PYEOF

# Octave's profile (scripts/lcpsim_profile.m): tab10, so series 11 on took series 1's
# solid line; its figure is kept open (a close that does nothing, first on the path) and
# every line's (colour, dash) checked in the same way.
if command -v octave-cli > /dev/null 2>&1; then
  mkdir -p "$tmp/shim"
  printf 'function close(varargin)\nend\n' > "$tmp/shim/close.m"
  root=$PWD
  out=$(cd "$tmp" && octave-cli -H --no-window-system --eval "
    warning('off', 'all'); addpath('$root/scripts'); addpath('$tmp/shim');
    lcpsim_profile('$tmp/set.h5', '');
    f = findall(0, 'type', 'figure'); n = 0; bad = '';
    for a = reshape(findall(f, 'type', 'axes'), 1, [])
      l = findobj(a, 'type', 'line'); keys = {};
      for i = 1:numel(l)
        k = sprintf('%.3f %.3f %.3f %s', get(l(i), 'color'), get(l(i), 'linestyle'));
        if any(strcmp(keys, k)), bad = k; end
        keys{end + 1} = k; n = n + 1;
      end
    end
    printf('lines %d repeated [%s]\n', n, bad);" 2>&1 | grep '^lines' || true)
  echo "octave profile: $out"
  case "$out" in
    "lines "[2-9][0-9]" repeated []") ;;
    *) echo "FAIL: octave profile lines not each their own style: $out"; exit 1 ;;
  esac
  # Its legend (names beside the panel in their lines' colours) tells them apart too: a
  # dashed line's name ends in its dash, ' (--)' (series 11, siconos:..., read as series
  # 1, lemke: the same blue, nothing more), so no two names share (colour, dash).
  out=$(cd "$tmp" && octave-cli -H --no-window-system --eval "
    warning('off', 'all'); addpath('$root/scripts'); addpath('$tmp/shim');
    lcpsim_profile('$tmp/set.h5', '');
    f = findall(0, 'type', 'figure'); keys = {}; dup = '';
    for tx = reshape(findall(f, 'type', 'text'), 1, [])
      p = get(tx, 'position');
      if ~strcmp(get(tx, 'units'), 'normalized') || abs(p(1) - 1.03) > 1e-9, continue; end
      m = regexp(get(tx, 'string'), '\\((--|-\\.|:)\\)\$', 'match');
      if isempty(m), m = {'-'}; end
      k = sprintf('%.3f %.3f %.3f %s', get(tx, 'color'), m{1});
      if any(strcmp(keys, k)), dup = get(tx, 'string'); end
      keys{end + 1} = k;
    end
    printf('names %d repeated [%s]\\n', numel(keys), dup);" 2>&1 | grep '^names' || true)
  echo "octave profile legend: $out"
  case "$out" in
    "names "[2-9][0-9]" repeated []") ;;
    *) echo "FAIL: octave profile legend names two series alike: $out"; exit 1 ;;
  esac
fi
echo "compare_styles: ok"
