#!/bin/sh
# matlab_branch.sh: the Matlab branch of the Octave/Matlab scripts, run under Octave.
# The scripts read HDF5 with h5info / h5read on Matlab and with load() on Octave
# (exist('OCTAVE_VERSION')). tests/e2e/matlab_shim/ (test only) defines h5info and h5read
# in Matlab's conventions (over an h5py dump of the file) and an exist() that answers 0 for
# 'OCTAVE_VERSION' while a global flag is set. Each file below (1-D, 2-D and 3-D runs with
# contacts, joints, tethers and LCP dumps, an event-driven and a hybrid run, a compare file,
# files without /summary as a killed run leaves) is loaded through both branches, with
# h5read's strings as a char matrix (older Matlab) and as a cell (newer): every field and
# every helper's result must be identical, class and size included (both read the same
# bytes: no tolerance). The plot scripts then draw through the Matlab branch.
set -eu
cd "$(dirname "$0")/../.."
PY=/usr/bin/python3
tmp=$(mktemp -d /tmp/lsim_e2e_matlab_XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

run() { ./lcpsim "$@" --quiet || fail "lcpsim $*"; }
run data/cart_wall.json -o "$tmp/cart_wall.h5"
run data/two_blocks.json -o "$tmp/two_blocks.h5"
run data/incline_2d.json -o "$tmp/incline_2d.h5" --steps 20
run data/box_stack_3d.json -o "$tmp/box_stack_3d.h5" --steps 10 --dump-lcp
run data/double_pendulum.json -o "$tmp/double_pendulum.h5" --steps 5 --dump-lcp
run data/tethered_bodies.json -o "$tmp/tethered.h5" --steps 30
run data/bouncing_ball_events.json -o "$tmp/events.h5" --duration 1
./lcpsim data/slip.json -o "$tmp/slip.h5" --quiet > /dev/null || fail "lcpsim data/slip.json"
./lcpsim compare data/brick_friction.json --solvers lemke,pgs --steps 20 --dump-lcp \
  -o "$tmp/compare.h5" > /dev/null || fail "lcpsim compare"
# With the reference's run (--trajectory, 3-D: /trajectory/bodies/inertia is [n, 3, 3]),
# and that run made by itself (the same numbers, docs/output-format.md).
./lcpsim compare data/box_stack_3d.json --solvers lemke,pgs --steps 5 --trajectory \
  -o "$tmp/compare_traj.h5" > /dev/null || fail "lcpsim compare --trajectory"
run data/box_stack_3d.json -o "$tmp/box_stack_5.h5" --steps 5 --solver lemke
# A killed run's file has no /summary: the loaders make one from the rows.
for f in box_stack_3d slip; do
  cp "$tmp/$f.h5" "$tmp/${f}_unfinished.h5"
  $PY -c "import h5py, sys; f = h5py.File(sys.argv[1], 'a'); del f['summary']" "$tmp/${f}_unfinished.h5"
done

cat > "$tmp/check.m" <<'MEOF'
1;  % a script file: its functions first

% Every difference of a and b (fields, classes, sizes, values; NaN equal to NaN),
% function handles skipped (their results are compared by same_helpers).
function bad = same_struct(a, b, where)
  bad = 0;
  fa = sort(fieldnames(a));
  fb = sort(fieldnames(b));
  if ~isequal(fa, fb)
    printf('%s: fields differ: %s / %s\n', where, strjoin(setdiff(fa, fb)', ','), strjoin(setdiff(fb, fa)', ','));
    bad = 1;
    return;
  end
  for i = 1:numel(fa)
    x = a.(fa{i});
    y = b.(fa{i});
    if isa(x, 'function_handle') && isa(y, 'function_handle')
      continue;
    end
    bad = bad + same_value(x, y, [where '.' fa{i}]);
  end
end

function bad = same_value(x, y, where)
  if isstruct(x) && isstruct(y) && isscalar(x) && isscalar(y)
    bad = same_struct(x, y, where);
  elseif ~strcmp(class(x), class(y)) || ~isequal(size(x), size(y)) || ~isequaln(x, y)
    printf('%s: %s %s / %s %s\n', where, class(x), mat2str(size(x)), class(y), mat2str(size(y)));
    bad = 1;
  else
    bad = 0;
  end
end

% The helpers' results on every body (and the first contact pair, the first dumped LCP,
% the hybrid model's first state and output).
function bad = same_helpers(a, b, where)
  bad = 0;
  if isfield(a, 'state_of')
    m = a.model;
    bad = bad + same_value(a.state_of(m.state_names{1}), b.state_of(m.state_names{1}), [where ' state_of']);
    bad = bad + same_value(a.output(m.output_names{1}), b.output(m.output_names{1}), [where ' output']);
    bad = bad + same_value(a.parameter(m.parameter_names{1}), b.parameter(m.parameter_names{1}), [where ' parameter']);
    return;
  end
  dim = double(a.parameters.dimension);
  for i = 1:numel(a.bodies.name)
    n = a.bodies.name{i};
    bad = bad + same_value(a.body_index(n), b.body_index(n), [where ' body_index']);
    bad = bad + same_value(a.position(n), b.position(n), [where ' position ' n]);
    bad = bad + same_value(a.velocity(i), b.velocity(i), [where ' velocity ' n]);
    bad = bad + same_value(a.shapes_of(i), b.shapes_of(i), [where ' shapes_of ' n]);
    if dim > 1
      bad = bad + same_value(a.orientation(n), b.orientation(n), [where ' orientation ' n]);
      bad = bad + same_value(a.angular_velocity(n), b.angular_velocity(n), [where ' angular_velocity ' n]);
    end
  end
  steps = numel(a.time) - 1;
  for k = unique([1 steps])
    bad = bad + same_value(a.contacts.at(k), b.contacts.at(k), sprintf('%s contacts.at(%d)', where, k));
  end
  rows = find(double(a.contacts.kind(:)) <= 1, 1);
  if ~isempty(rows)
    ba = double(a.contacts.body_a(rows)) + 1;
    bb = double(a.contacts.body_b(rows)) + 1;
    pa = a.bodies.name{ba};
    pb = 'ground';
    if bb > 0
      pb = a.bodies.name{bb};
    end
    bad = bad + same_value(a.contact_series(pa, pb), b.contact_series(pa, pb), [where ' contact_series']);
  end
  if isfield(a, 'lcp_problem') && ~isempty(a.lcp.step)
    k = double(a.lcp.step(1));
    bad = bad + same_value(a.lcp_problem(k), b.lcp_problem(k), [where ' lcp_problem']);
  end
end

addpath('scripts');
addpath('tests/e2e/matlab_shim');
global LCPSIM_SHIM_MATLAB LCPSIM_SHIM_READS LCPSIM_SHIM_STRINGS LCPSIM_SHIM_ASKED
dir_ = getenv('TMPDIR_E2E');
runs = {'cart_wall', 'two_blocks', 'incline_2d', 'box_stack_3d', 'double_pendulum', 'tethered', ...
        'events', 'slip', 'box_stack_3d_unfinished', 'slip_unfinished'};
bad = 0;
for mode = {'char', 'cell'}
  LCPSIM_SHIM_STRINGS = mode{1};
  for i = 1:numel(runs)
    f = fullfile(dir_, [runs{i} '.h5']);
    LCPSIM_SHIM_MATLAB = false;
    a = lcpsim_load(f);
    LCPSIM_SHIM_MATLAB = true;
    LCPSIM_SHIM_READS = [];
    b = lcpsim_load(f);
    LCPSIM_SHIM_MATLAB = false;
    if numel(LCPSIM_SHIM_READS) < 20
      printf('%s: the Matlab branch did not run (%d reads)\n', runs{i}, numel(LCPSIM_SHIM_READS));
      bad = bad + 1;
    end
    bad = bad + same_struct(a, b, [runs{i} ' (' mode{1} ')']);
    bad = bad + same_helpers(a, b, [runs{i} ' (' mode{1} ')']);
  end
  f = fullfile(dir_, 'compare_traj.h5');
  a = lcpsim_compare_load(f);
  LCPSIM_SHIM_MATLAB = true;
  b = lcpsim_compare_load(f);
  LCPSIM_SHIM_MATLAB = false;
  bad = bad + same_struct(a, b, ['compare --trajectory (' mode{1} ')']);
  % The reference's run is the run's: names, inertia tensors, states, bit for bit.
  r = lcpsim_load(fullfile(dir_, 'box_stack_5.h5'));
  bad = bad + same_value(a.trajectory.bodies.name, r.bodies.name, 'trajectory bodies.name');
  bad = bad + same_value(a.trajectory.bodies.inertia, r.bodies.inertia, 'trajectory bodies.inertia');
  bad = bad + same_value(a.trajectory.q, r.q, 'trajectory q');
  f = fullfile(dir_, 'compare.h5');
  a = lcpsim_compare_load(f);
  LCPSIM_SHIM_MATLAB = true;
  LCPSIM_SHIM_READS = [];
  b = lcpsim_compare_load(f);
  LCPSIM_SHIM_MATLAB = false;
  if numel(LCPSIM_SHIM_READS) < 20
    printf('compare: the Matlab branch did not run\n');
    bad = bad + 1;
  end
  bad = bad + same_struct(a, b, ['compare (' mode{1} ')']);
  for k = [1 5]
    for s = 0:numel(a.series.label) - 1
      bad = bad + same_value(a.lcp_problem(k, s), b.lcp_problem(k, s), sprintf('compare lcp_problem(%d, %d)', k, s));
    end
  end
end
if bad
  error('%d differences between the Octave and the Matlab branch', bad);
end
printf('matlab branch: %d runs and two compare files identical through both branches\n', numel(runs));
MEOF
LCPSIM_SHIM_TMP="$tmp" TMPDIR_E2E="$tmp" octave-cli -H --no-window-system "$tmp/check.m" 2> "$tmp/err" > "$tmp/out" || {
  cat "$tmp/out" "$tmp/err"; fail "the Matlab branch of the loaders differs from the Octave branch"; }
cat "$tmp/out"

# The plot scripts on data read through the loaders' Matlab branch. (Their own Matlab
# branch only skips Octave's toolkit setup: under Octave, print -dpng without it needs
# Ghostscript, which Octave's gnuplot route does not; so they keep their Octave branch.)
cat > "$tmp/plots.m" <<'MEOF'
addpath('scripts');
addpath('tests/e2e/matlab_shim');
global LCPSIM_SHIM_MATLAB LCPSIM_SHIM_READS
d = getenv('TMPDIR_E2E');
LCPSIM_SHIM_MATLAB = {'lcpsim_load', 'lcpsim_compare_load'};
for f = {'cart_wall', 'box_stack_3d', 'tethered', 'events', 'box_stack_3d_unfinished'}
  LCPSIM_SHIM_READS = [];
  lcpsim_plot(fullfile(d, [f{1} '.h5']), fullfile(d, [f{1} '_m.png']));
  if numel(LCPSIM_SHIM_READS) < 20
    error('%s: the plot did not read through the Matlab branch', f{1});
  end
end
% A hybrid-model run is refused by name, as lcpsim_plot.py refuses it.
try
  lcpsim_plot(fullfile(d, 'slip.h5'), fullfile(d, 'slip_m.png'));
  error('slip: a hybrid run was plotted');
catch err
  if isempty(strfind(err.message, 'is a hybrid-model run: scripts/lcpsim_hybrid_plot.py draws it'))
    rethrow(err);
  end
end
LCPSIM_SHIM_READS = [];
lcpsim_profile(fullfile(d, 'compare.h5'), fullfile(d, 'profile_m.png'));
if numel(LCPSIM_SHIM_READS) < 20
  error('compare: the profile did not read through the Matlab branch');
end
MEOF
LCPSIM_SHIM_TMP="$tmp" TMPDIR_E2E="$tmp" octave-cli -H --no-window-system "$tmp/plots.m" > "$tmp/out" 2> "$tmp/err" || {
  cat "$tmp/out" "$tmp/err"; fail "a plot through the Matlab branch"; }
for f in cart_wall box_stack_3d tethered events box_stack_3d_unfinished profile; do
  head -c 8 "$tmp/${f}_m.png" | od -An -c | grep -q "P   N   G" || fail "$f: no PNG"
done
echo "matlab branch: plots and profile from data read through it: ok"
