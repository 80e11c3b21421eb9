function r = lcpsim_load(path)
% LCPSIM_LOAD  Load an lcpsim run file (HDF5, docs/output-format.md) into a struct.
%
%   r = lcpsim_load('run.h5')
%
% The struct mirrors the file: r.time, r.q, r.v, r.energy.kinetic, r.contacts.gap,
% r.solver.residual, r.parameters.time_step, r.bodies.name, r.scene_text, r.summary...
% The PATH.<pid>.partial a killed run leaves loads too (time-stepping, event-driven or
% hybrid): r.summary is then made from its rows, with r.summary.run_end 'unfinished'.
% with the same orientation as Python's loader (h5py): rows are steps (or contacts),
% columns are coordinates:
%   r.time [N+1 x 1], r.q [N+1 x nq], r.v [N+1 x nv]   row k+1 = state after step k
%   r.contacts.point [K x 3], r.contacts.gap [K x 1]   (all steps' contacts)
%   r.solver.residual [N x 1]                           row k = step k
% Integer datasets keep their integer class (int32, int64, uint64); mind that Octave /
% Matlab arithmetic on integers saturates and rounds (use double() before dividing).
% Strings are char row vectors; r.bodies.name, r.solver.status_legend,
% r.solver.source_legend and r.solver.simd_legend are cell columns of strings.
%
% Step k's contacts (k = 1..N; step 0 has none):
%   i = r.contacts.rows(k);          % row indices, possibly empty
%   c = r.contacts.at(k);            % struct of the per-contact arrays restricted to step k
%
% Per-body helpers (as in lcpsim_load.py, with 1-based indices); body is a name or a
% 1-based index, static bodies included (their fixed pose, zero velocity):
%   i = r.body_index('crate');       % 1-based index of a body name
%   p = r.position(body);            % [N+1 x dim] x (, y (, z)) of the body origin, m
%   a = r.orientation(body);         % 2-D: [N+1 x 1] angle theta, rad; 3-D: [N+1 x 4]
%                                    %   unit quaternions (qw, qx, qy, qz); 1-D: error
%   w = r.velocity(body);            % [N+1 x dim] linear velocity, m/s
%   o = r.angular_velocity(body);    % 2-D: [N+1 x 1] omega; 3-D: [N+1 x 3] world, rad/s
%   s = r.shapes_of(body);           % 1-based indices of its shapes in r.shapes.*
%   s = r.contact_series('box', 'ground');  % that pair's contacts over time (below)
% r.bodies.inertia is [nbodies x 3 x 3]: squeeze(r.bodies.inertia(i, :, :)) is body i's
% 3 x 3 inertia tensor. r.shapes.name and the legends are cell columns of strings.
%
% LCPs dumped by --dump-lcp (docs/output-format.md "LCP dumps"):
%   P = r.lcp_problem(50);           % step 50's LCP: P.M, P.q, P.z, P.cone_*, and the
%                                    %   factors P.J, P.B, P.C (sparse); M formed from
%                                    %   them, sparse, when only they are stored (P.dense
%                                    %   false)
%   P.w(z), P.residual(P.z(:, 1))    % M z + q; .natural max|min(z, w)|, .relative
%   P.matvec(z), P.solution          % M z (w and residual too: through the factors
%                                    %   when stored); the run's solution P.z(:, P.column)
% (scripts/lcpsim_lcp_problem.m, shared with lcpsim_compare_load). Compare files are
% refused here: lcpsim_compare_load reads them, with c.lcp_problem(k, series) for their
% dumps.
%
% Tethers and joints (only in runs that have them; docs/output-format.md):
%   r.tethers.name (cell), r.tethers.length_max [T x 1], r.tethers.length [N+1 x T],
%   r.tethers.impulse [N x T] (N s), r.tethers.taut [N x T] (int32 0/1)
%   r.joints.name, r.joints.type (cells: 'pin' / 'rod'), r.joints.rows [J x 1],
%   r.joints.length [J x 1], r.joints.impulse [N x J x 3], r.joints.error [N+1 x J],
%   r.joints.velocity_error [N+1 x J] (m/s; files written before it lack it)
%   i = r.tether_index('rope');      % 1-based index of a tether name (r.joint_index too)
%
% Hybrid-model runs (file_kind 'hybrid'): r.time [N x 1], r.state [N x n], r.chart
% [N x 1] (0-based chart codes), r.outputs, r.events.*, r.model.*, and the helpers
% r.state_of('y'), r.output('energy'), r.parameter('k'), r.chart_name(code).
%
% Matlab reads the file with h5info / h5read. Octave has no h5read, and octave-netcdf's
% ncread cannot read fixed-length strings (netCDF maps them to NC_STRING, which the
% package rejects), so on Octave the file is read with Octave's own load(), which reads
% plain HDF5 files, groups becoming structs.

  if nargin ~= 1 || ~ischar(path)
    error('lcpsim_load: usage: r = lcpsim_load(''run.h5'')');
  end
  if ~exist(path, 'file')
    error('lcpsim_load: %s: no such file', path);
  end
  lcpsim_refuse_not_h5('lcpsim_load', path);  % a directory, a .dat problem: said in our words

  % Read every dataset into a nested struct in h5py orientation (a killed run's or
  % hybrid-model run's file through a copy cut to its last whole flush, nothing past it
  % read: lcpsim_flushed_copy).
  [src, tmp] = lcpsim_flushed_copy(path, 'lcpsim_load', {'run', 'hybrid'});
  if exist('OCTAVE_VERSION', 'builtin')
    try
      raw = load(src);
    catch err
      remove_copy(tmp);
      lcpsim_refuse_empty('lcpsim_load', path, src);  % an HDF5 file with nothing in it
      error('lcpsim_load: %s: %s', path, err.message);
    end
    % A compare file is named before its datasets are reordered (its N-D arrays stopped
    % the reordering with 'transpose not defined for N-D objects').
    if isfield(raw, 'file_kind') && ischar(raw.file_kind) && ...
       strcmp(lcpsim_strip_nul(raw.file_kind), 'compare')
      compare_file_error(path);
    end
    r = fix_octave(raw, '');
  else
    r = read_matlab(src, '/');
  end
  remove_copy(tmp);

  % Another program's HDF5 file: said, not an error from deep in the loader.
  if ~isfield(r, 'format_version') || ~isfield(r, 'lcpsim_version')
    error('lcpsim_load: %s: not an lcpsim file (no /format_version and /lcpsim_version)', path);
  end

  % Compare files have their own layout and loader (which gives their LCP dumps too).
  if isfield(r, 'file_kind') && strcmp(r.file_kind, 'compare')
    compare_file_error(path);
  end

  % Hybrid-model runs have their own tables and helpers.
  if isfield(r, 'file_kind') && strcmp(r.file_kind, 'hybrid')
    if ~isfield(r, 'summary')  % a killed run's partial file
      r.summary = unfinished_hybrid_summary(r);
    end
    r = hybrid_helpers(r);
    return;
  end

  % A killed run's file (no /summary): its rows up to its last whole flush, /flushed_rows
  % states (an event-driven run's events up to /flushed_events); rows past it in an
  % extent are of a flush the kill cut short (they read as 0).
  if ~isfield(r, 'summary') && isfield(r, 'flushed_rows') && isfield(r, 'time')
    r = cut_to_flushed(r, double(r.flushed_rows));
  end
  % Cell arrays for the string tables (shared with lcpsim_compare_load's /trajectory);
  % the contact and body helpers.
  r = lcpsim_run_tables(r);
  % The step of each state row: /step with a record stride (--record-every), else 0..N.
  if isfield(r, 'step')
    r.step = double(r.step(:));
  else
    r.step = (0:numel(r.time) - 1)';
  end
  % A file without /summary (the PATH.<pid>.partial of a killed run): the summary from
  % its rows, run_end 'unfinished'.
  if ~isfield(r, 'summary')
    r.summary = unfinished_summary(r);
  elseif ~isfield(r.summary, 'budget_steps') && isfield(r, 'solver')
    % Files written before /summary/budget_steps counted fixed-budget steps as failures.
    r.summary.budget_steps = budget_steps(r, double(r.solver.status(:)));
    r.summary.failures = r.summary.failures - r.summary.budget_steps;
  end
  c = r.contacts;
  steps = r.step;
  r.contacts.rows = @(k) contact_rows(c, steps, k);
  r.contacts.at = @(k) contacts_at(c, steps, k);
  base = r;
  r.body_index = @(b) body_index(base, b);
  r.position = @(b) body_position(base, b);
  r.orientation = @(b) body_orientation(base, b);
  r.velocity = @(b) body_velocity(base, b);
  r.angular_velocity = @(b) body_angular_velocity(base, b);
  r.shapes_of = @(b) body_shapes(base, b);
  r.tether_index = @(n) named_index(base, 'tethers', n);
  r.joint_index = @(n) named_index(base, 'joints', n);
  r.contact_series = @(a, b) contact_series(base, a, b);
  if isfield(r, 'lcp')  % shared with lcpsim_compare_load (scripts/lcpsim_lcp_problem.m)
    r.lcp_problem = @(k, varargin) lcpsim_lcp_problem(base, k, varargin{:});
  end
end

function remove_copy(tmp)
  if ~isempty(tmp)
    delete(tmp);
  end
end

% Steps that spent a fixed sweep budget: solver tol 0 and status -1 max_iterations (the
% step's normal end, not a failure).
% The series of r cut to w states: a row per state (time, q, v, step, energy, tether
% lengths, joint errors), a row per step (solver, tether impulses and taut flags, joint
% impulses: w - 1), contacts/offset w + 1 and the contact rows it indexes; an
% event-driven run's events up to /flushed_events.
function r = cut_to_flushed(r, w)
  if w < 1
    return;
  end
  r = cut_fields(r, {'time', 'q', 'v', 'step'}, w);
  r = cut_group(r, 'energy', [], w);
  r = cut_group(r, 'tethers', {'length'}, w);
  r = cut_group(r, 'tethers', {'impulse', 'taut'}, w - 1);
  r = cut_group(r, 'joints', {'error', 'velocity_error'}, w);
  r = cut_group(r, 'joints', {'impulse'}, w - 1);
  r = cut_group(r, 'solver', [], w - 1);
  if isfield(r, 'contacts') && isfield(r.contacts, 'offset') && numel(r.contacts.offset) > w
    k = double(r.contacts.offset(w + 1));
    r.contacts = cut_fields(r.contacts, setdiff(fieldnames(r.contacts), {'offset'}), k);
    r.contacts = cut_fields(r.contacts, {'offset'}, w + 1);
  end
  if isfield(r, 'flushed_events')
    r = cut_group(r, 'events', [], double(r.flushed_events));
  end
end

% cut_fields on r.(group)'s fields named in names ([]: every field but the legends).
function r = cut_group(r, group, names, m)
  if ~isfield(r, group)
    return;
  end
  if isempty(names)
    names = fieldnames(r.(group));
    names = names(cellfun(@(n) isempty(regexp(n, '_legend$', 'once')), names));
  end
  r.(group) = cut_fields(r.(group), names, m);
end

% The numeric fields of s named in names, cut to their first m rows (h5py orientation:
% the row index first; a 1-D dataset is an N x 1 column). A 2-D dataset of one row (the
% one state of a run killed before its first flush of steps: q, 1 x 70) is a row, not a
% vector to cut along (it was cut to its first coordinate, 1 x 1, and the figure failed).
function s = cut_fields(s, names, m)
  for i = 1:numel(names)
    if ~isfield(s, names{i}) || ~isnumeric(s.(names{i})) && ~islogical(s.(names{i}))
      continue;
    end
    a = s.(names{i});
    if size(a, 1) > m
      idx = repmat({':'}, 1, ndims(a));
      idx{1} = 1:m;
      s.(names{i}) = a(idx{:});
    end
  end
end

function n = budget_steps(r, st)
  n = 0;
  if isfield(r, 'parameters') && isfield(r.parameters, 'solver_tol') && ...
     double(r.parameters.solver_tol) == 0
    n = sum(st == -1);
  end
end

% The summary of a run file that has none (its writer was killed before closing it):
% the figures /summary would hold, from the rows the last flush wrote.
function s = unfinished_summary(r)
  st = double(r.solver.status(:));
  res = double(r.solver.residual(:));
  gap = double(r.contacts.gap(:));
  kind = double(r.contacts.kind(:));
  pen = -gap(kind ~= 2 & kind ~= 3);  % not tethers, joints
  first = double(r.solver.first_status(:));
  s.steps_done = r.step(end);
  s.budget_steps = budget_steps(r, st);
  s.failures = sum(st < 0) - s.budget_steps;
  if isfield(r.solver, 'failed_steps')
    % A record stride: the rows count the failed steps between them (the other figures
    % are of the steps kept only).
    s.failures = sum(double(r.solver.failed_steps(:)));
  end
  s.warnings = sum(st > 0);
  s.recovered = sum(first < 0 & st >= 0);
  s.max_residual = max([0; res]);
  s.total_contacts = numel(gap);
  s.max_penetration = max([0; pen]);
  s.solver_wall_time = sum(double(r.solver.wall_time(:)));
  s.wall_time_total = NaN;
  if isfield(r, 'tethers') && isfield(r.tethers, 'length')
    % the maxima over the states kept, as /summary has them
    st = double(r.tethers.length) - repmat(double(r.tethers.length_max(:))', size(r.tethers.length, 1), 1);
    s.max_tether_stretch = max([0; st(:)]);
  end
  if isfield(r, 'joints') && isfield(r.joints, 'error')
    s.max_joint_error = max([0; double(r.joints.error(:))]);
  end
  s.run_end = 'unfinished';
  s.run_end_step = s.steps_done;
  s.run_end_reason = ['the file has no summary: its writer ended without closing it ' ...
                      '(killed); it holds the steps up to the last flush'];
end

% The summary of a hybrid run file that has none (its writer was killed): what the rows
% the last flush wrote tell; the engine's counts are unknown (-1, NaN).
function s = unfinished_hybrid_summary(r)
  g = [];
  it = [];
  nev = 0;
  if isfield(r, 'events') && isfield(r.events, 'time')
    nev = numel(r.events.time);
    g = abs(double(r.events.boundary_value(:)));
    it = double(r.events.iterations(:));
  end
  s.samples = numel(r.time);
  s.transitions = nev;
  s.end_time = 0;
  if s.samples > 0
    s.end_time = double(r.time(end));
  end
  s.integration_steps = -1;
  s.flow_evaluations = -1;
  s.boundary_evaluations = -1;
  s.max_stop_iterations_used = max([0; it]);
  s.max_boundary_value = max([0; g]);
  s.wall_time_total = NaN;
  s.run_end = 'unfinished';
  s.run_end_reason = ['the file has no summary: its writer ended without closing it ' ...
                      '(killed); it holds the run up to the last flush'];
end

% Hybrid-model runs (docs/output-format.md, "Hybrid runs"): name tables as cells and
%   r.state_of('y'), r.output('energy')   [N x 1] columns by name
%   r.parameter('k')                      a parameter's value
%   r.chart_name(c)                       name of chart code c as stored (0-based codes)
function r = hybrid_helpers(r)
  tables = {'state_names', 'parameter_names', 'chart_names', 'output_names', 'boundary_names', ...
            'state_units', 'parameter_units', 'output_units'};
  for k = 1:numel(tables)
    if isfield(r.model, tables{k})  % units: files from models that give them
      r.model.(tables{k}) = lcpsim_cellstr(r.model.(tables{k}));
    end
  end
  m = r.model;
  st = r.state;
  out = r.outputs;
  r.state_of = @(n) st(:, hybrid_index(m.state_names, n, 'state'));
  r.output = @(n) out(:, hybrid_index(m.output_names, n, 'output'));
  r.parameter = @(n) m.parameters(hybrid_index(m.parameter_names, n, 'parameter'));
  r.chart_name = @(c) m.chart_names{double(c) + 1};
end

function i = hybrid_index(names, n, what)
  i = find(strcmp(names, n), 1);
  if isempty(i)
    error('lcpsim_load: no %s named ''%s''', what, n);
  end
end

% 1-based index of the tether or joint (group) named n.
function i = named_index(r, group, n)
  i = [];
  if isfield(r, group)
    i = find(strcmp(r.(group).name, n), 1);
  end
  if isempty(i)
    error('lcpsim_load: no %s named ''%s''', group(1:end-1), n);
  end
end

function compare_file_error(path)
  error(['lcpsim_load: %s is a compare file (lcpsim compare): load it with ' ...
         'c = lcpsim_compare_load(''%s''); c.lcp_problem(k, series) gives its dumped LCPs'], ...
        path, path);
end

% ---- Octave: load() gives numeric arrays with reversed dimensions: a 1-D dataset [N]
% as a 1 x N row, a 2-D dataset [N, c] as c x N. Transposing gives h5py's orientation
% (N x 1 columns for 1-D). Strings come back as char rows (space padded).
function s = fix_octave(s, prefix)
  names = fieldnames(s);
  for i = 1:numel(names)
    x = s.(names{i});
    if isstruct(x)
      s.(names{i}) = fix_octave(x, [prefix '/' names{i}]);
    elseif (strcmp(prefix, '/bodies') && strcmp(names{i}, 'inertia')) || ...
           (strcmp(prefix, '/joints') && strcmp(names{i}, 'impulse'))
      % [n, a, 3] comes back as 3 x a x n (trailing singletons dropped): reverse it.
      s.(names{i}) = permute(x, [3 2 1]);
    elseif ischar(x)
      s.(names{i}) = lcpsim_strip_nul(x);
    elseif ~isscalar(x)
      s.(names{i}) = x.';
    end
  end
end

% ---- Matlab: h5read gives a 1-D dataset as an N x 1 column and a 2-D [N, c] dataset
% as c x N: transpose 2-D only.
function s = read_matlab(path, group)
  s = struct();
  info = h5info(path, group);
  for i = 1:numel(info.Datasets)
    d = info.Datasets(i);
    name = [group d.Name];
    if group(end) ~= '/'
      name = [group '/' d.Name];
    end
    x = h5read(path, name);
    if strcmp(d.Datatype.Class, 'H5T_STRING')
      x = matlab_string(x, d);
    elseif numel(d.Dataspace.Size) == 3
      x = permute(x, [3 2 1]);
    elseif numel(d.Dataspace.Size) == 2
      x = x.';
    elseif numel(d.Dataspace.Size) == 1
      x = x(:);
    end
    s.(d.Name) = x;
  end
  for i = 1:numel(info.Groups)
    g = info.Groups(i).Name;               % full path, e.g. '/contacts'
    parts = strsplit(g, '/');
    s.(parts{end}) = read_matlab(path, g);
  end
end

% Matlab versions return fixed-length strings as a cell, a string array or a char matrix
% (one string per column); a scalar string becomes a char row, an array a cell column.
function x = matlab_string(x, d)
  if any(d.Dataspace.Size == 0)  % an empty table (no shapes in 1-D): cellstr would give {''}
    x = cell(0, 1);
    return;
  end
  if isa(x, 'string')
    x = cellstr(x);
  end
  if ischar(x)
    if strcmp(d.Dataspace.Type, 'scalar')
      x = {x(:).'};
    else
      x = cellstr(x.');
    end
  end
  x = cellfun(@lcpsim_strip_nul, x(:), 'UniformOutput', false);
  if strcmp(d.Dataspace.Type, 'scalar')
    x = x{1};
  end
end

% Row indices (1-based) of step k's contacts; steps: r.step (with a record stride only the
% steps kept have rows: another step is an error).
function i = contact_rows(c, steps, k)
  j = find(steps == k, 1) - 1;  % the state row of step k, 0-based
  if isempty(j)
    error('lcpsim_load: step %d is not in the file (a row every few steps, and the last): r.step lists the steps kept', k);
  end
  off = double(c.offset);
  i = (off(j + 1) + 1):off(j + 2);
end

% Step k's contacts: every per-contact array restricted to its rows.
function out = contacts_at(c, steps, k)
  i = contact_rows(c, steps, k);
  out = struct();
  names = fieldnames(c);
  for j = 1:numel(names)
    x = c.(names{j});
    if strcmp(names{j}, 'offset') || ~isnumeric(x)
      continue;
    end
    out.(names{j}) = x(i, :);
  end
end

% ---- per-body helpers

% 1-based index of body (a name or a 1-based index).
function i = body_index(r, b)
  names = r.bodies.name;
  if ischar(b)
    i = find(strcmp(names, b), 1);
    if isempty(i)
      error('lcpsim_load: no body named ''%s''', b);
    end
  else
    i = double(b);
    if ~isscalar(i) || i ~= round(i) || i < 1 || i > numel(names)
      error('lcpsim_load: body index out of range 1..%d', numel(names));
    end
  end
end

% The body's columns of q (kind 'q') or v ('v'), [N+1 x per-body count]; a static
% body's fixed pose repeated (q) or zeros (v).
function x = body_coordinates(r, b, kind)
  i = body_index(r, b);
  dim = double(r.parameters.dimension);
  if strcmp(kind, 'q')
    widths = [1 3 7];
  else
    widths = [1 3 6];
  end
  width = widths(dim);
  rows = numel(r.time);
  n = double(r.bodies.(['n' kind])(i));
  if n > 0
    o = double(r.bodies.([kind '_offset'])(i));
    x = double(r.(kind)(:, o + 1:o + n));
  elseif strcmp(kind, 'v') || ~isfield(r.bodies, 'pose')
    x = zeros(rows, width);
  else
    x = repmat(double(r.bodies.pose(i, 1:width)), rows, 1);
  end
end

function p = body_position(r, b)
  q = body_coordinates(r, b, 'q');
  p = q(:, 1:double(r.parameters.dimension));
end

function a = body_orientation(r, b)
  dim = double(r.parameters.dimension);
  if dim == 1
    error('lcpsim_load: 1-D bodies have no orientation');
  end
  q = body_coordinates(r, b, 'q');
  if dim == 2
    a = q(:, 3);
  else
    a = q(:, 4:7);
  end
end

function w = body_velocity(r, b)
  v = body_coordinates(r, b, 'v');
  w = v(:, 1:double(r.parameters.dimension));
end

function w = body_angular_velocity(r, b)
  dim = double(r.parameters.dimension);
  if dim == 1
    error('lcpsim_load: 1-D bodies have no angular velocity');
  end
  v = body_coordinates(r, b, 'v');
  if dim == 2
    w = v(:, 3);
  else
    w = v(:, 4:6);
  end
end

% 1-based indices of the body's shapes in r.shapes (empty in 1-D).
function k = body_shapes(r, b)
  i = body_index(r, b);
  if ~isfield(r.bodies, 'first_shape')
    k = zeros(1, 0);
    return;
  end
  f = double(r.bodies.first_shape(i));
  k = (f + 1):(f + double(r.bodies.nshapes(i)));
end

% ---- per-contact time series

% body_index, with [] (or 'ground' when no body has that name) for -1: no body.
function i = pair_index(r, b)
  if isempty(b) || (ischar(b) && strcmp(b, 'ground') && ~any(strcmp(r.bodies.name, b)))
    i = -1;
  else
    i = body_index(r, b) - 1;
  end
end

% The contacts between bodies a and b (names or 1-based indices; [] or 'ground' for no
% body) over time, one column per contact id (feature) of the pair, vectors acting on a
% as named; as lcpsim_load.py's contact_series, with 1-based shape indices:
%   s.step [N x 1], s.time [N x 1], s.id [F x 1] (uint64), s.feature, s.shape_a,
%   s.shape_b [F x 1] (1-D: 0), s.active [N x F] (logical), s.normal_impulse [N x F]
%   (0 when not active), s.normal_total [N x 1], s.friction_impulse [N x F x 3],
%   s.gap [N x F], s.point, s.normal [N x F x 3] (NaN when not active)
% Only contact rows (kinds 0 and 1): tethers and joints are in r.tethers / r.joints.
function s = contact_series(r, a, b)
  ia = pair_index(r, a);
  ib = pair_index(r, b);
  c = r.contacts;
  n = numel(r.time) - 1;
  ba = double(c.body_a(:));
  bb = double(c.body_b(:));
  same = ba == ia & bb == ib;
  swapped = ba == ib & bb == ia & ~same;
  rows = find((same | swapped) & double(c.kind(:)) <= 1);
  ids = unique(c.id(rows));
  [~, col] = ismember(c.id(rows), ids);
  kept = r.step(2:end);
  [~, k] = ismember(double(c.step(rows)), kept);  % the row of each step
  sign = 1 - 2 * double(swapped(rows));
  nf = numel(ids);
  s.step = kept;
  s.time = double(r.time(2:end));
  s.id = ids(:);
  s.feature = double(bitand(ids(:), uint64(65535)));
  first = double(bitand(bitshift(ids(:), -40), uint64(16777215))) - 1;
  second = double(bitand(bitshift(ids(:), -16), uint64(16777215))) - 1;
  swap_col = false(nf, 1);
  swap_col(col) = swapped(rows);
  if double(r.parameters.dimension) > 1
    s.shape_a = first + 1;
    s.shape_a(swap_col) = second(swap_col) + 1;
    s.shape_b = second + 1;
    s.shape_b(swap_col) = first(swap_col) + 1;
  else
    s.shape_a = zeros(nf, 1);
    s.shape_b = zeros(nf, 1);
  end
  at = sub2ind([n, max(nf, 1)], k, col(:));
  s.active = false(n, nf);
  s.active(at) = true;
  s.normal_impulse = zeros(n, nf);
  s.normal_impulse(at) = c.normal_impulse(rows);
  s.normal_total = sum(s.normal_impulse, 2);
  s.gap = nan(n, nf);
  s.gap(at) = c.gap(rows);
  s.friction_impulse = zeros(n, nf, 3);
  s.point = nan(n, nf, 3);
  s.normal = nan(n, nf, 3);
  for d = 1:3
    f = zeros(n, nf);
    f(at) = sign .* c.friction_impulse(rows, d);
    s.friction_impulse(:, :, d) = f;
    p = nan(n, nf);
    p(at) = c.point(rows, d);
    s.point(:, :, d) = p;
    p(at) = sign .* c.normal(rows, d);
    s.normal(:, :, d) = p;
  end
end
