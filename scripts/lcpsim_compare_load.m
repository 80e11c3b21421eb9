function c = lcpsim_compare_load(path)
% LCPSIM_COMPARE_LOAD  Load an lcpsim compare file (docs/output-format.md, "Compare
% files") into a struct, in the orientation of Python's loader (scripts/lcpsim_compare.py).
%
%   c = lcpsim_compare_load('brick_compare.h5')
%   c.results.relative_residual(k, s)   % problem k (step k), series s, [N x P]
%   c.series.label{s}                   % cell column of series labels
%   c.parameters.mode                   % 'shadow', 'independent', 'lcp_set' or 'fc_set'
%   c.summary.success_rate(s)           % [P x 1]
%
% Rows are problems (steps, or .dat files of an LCP set), columns are series; 1-D
% datasets are columns. Integer datasets keep their class (int32, uint64 for hashes);
% use double() before arithmetic. String tables (series.label, series.start,
% series.lu_solve, series.precision, solvers.spec, solvers.name, status_legend, problem_name,
% lcp.solution_label) are cell columns.
% Matlab reads with h5info / h5read; Octave with its built-in load() (see
% scripts/lcpsim_load.m for why). A comparison written with --trajectory has the
% reference's run as c.trajectory, in lcpsim_load's orientation and with its string
% tables as cells (c.trajectory.bodies.inertia [n x 3 x 3], c.trajectory.q [N+1 x nq]).
%
% LCPs dumped by lcpsim compare --dump-lcp (docs/output-format.md, "LCP dumps"), as
% lcpsim_load's r.lcp_problem (scripts/lcpsim_lcp_problem.m, shared by both):
%   P = c.lcp_problem(k, s);           % step (problem) k's LCP as series s (0-based:
%                                      %   c.series.label{s + 1}) was handed it: P.M,
%                                      %   P.q, P.z, P.cone_*, sparse P.J, P.B, P.C
%   P.solution                         % series s's solution, P.z(:, P.column)
%   P.residual(P.solution)             % .natural = c.results.residual(k, s + 1),
%                                      % .relative = c.results.relative_residual(k, s + 1)
% The columns of P.z are P.z_label (= c.lcp.solution_label): shadow mode 'reference'
% (the driver's solution) then every series, so series s is column s + 2; LCP sets
% every series (column s + 1); independent mode 'own', the one solution of series s's
% own problem (its trajectory's). Steps without an LCP have none (an error).
%
% The partial file a killed comparison left (no /summary) is read up to its last flush that
% reached the file whole (/flushed_rows, /flushed_lcp_problems), through a copy cut to it
% (scripts/lcpsim_flushed_copy.m, which warns with what it left out); c.summary is absent.

  if nargin ~= 1 || ~ischar(path)
    error('lcpsim_compare_load: usage: c = lcpsim_compare_load(''run_compare.h5'')');
  end
  if ~exist(path, 'file')
    error('lcpsim_compare_load: %s: no such file', path);
  end
  lcpsim_refuse_not_h5('lcpsim_compare_load', path);  % a directory, a .dat problem: said in our words
  % A killed comparison's file: read through a copy cut to its last whole flush.
  [src, tmp] = lcpsim_flushed_copy(path, 'lcpsim_compare_load', 'compare');
  if exist('OCTAVE_VERSION', 'builtin')
    try
      raw = load(src);
    catch err
      remove_copy(tmp);
      lcpsim_refuse_empty('lcpsim_compare_load', path, src);  % an HDF5 file with nothing in it
      error('lcpsim_compare_load: %s: %s', path, err.message);
    end
    % Another kind of file named before its datasets are reordered (a run file's N-D
    % arrays stopped the reordering with 'transpose not defined for N-D objects').
    kind = '';
    if isfield(raw, 'file_kind') && ischar(raw.file_kind)
      kind = lcpsim_strip_nul(raw.file_kind);
    end
    if ~strcmp(kind, 'compare')
      remove_copy(tmp);
      not_compare_error(path, kind, isfield(raw, 'format_version'));
    end
    c = fix_octave(raw, '');
  else
    c = read_matlab(src, '/');
  end
  remove_copy(tmp);
  if ~isfield(c, 'file_kind') || ~strcmp(c.file_kind, 'compare')
    kind = '';
    if isfield(c, 'file_kind'), kind = c.file_kind; end
    not_compare_error(path, kind, isfield(c, 'format_version'));
  end

  % String tables as cell columns.
  c.series.label = lcpsim_cellstr(c.series.label);
  c.series.start = lcpsim_cellstr(c.series.start);
  if isfield(c.series, 'lu_solve')  % (files from before have none)
    c.series.lu_solve = lcpsim_cellstr(c.series.lu_solve);
  end
  if isfield(c.series, 'precision')  % (files from before have none)
    c.series.precision = lcpsim_cellstr(c.series.precision);
  end
  c.solvers.spec = lcpsim_cellstr(c.solvers.spec);
  c.solvers.name = lcpsim_cellstr(c.solvers.name);
  c.status_legend = lcpsim_cellstr(c.status_legend);
  if isfield(c, 'problem_name')
    c.problem_name = lcpsim_cellstr(c.problem_name);
  end
  if isfield(c, 'lcp') && isfield(c.lcp, 'solution_label')
    c.lcp.solution_label = lcpsim_cellstr(c.lcp.solution_label);
  end
  if isfield(c, 'trajectory')  % the reference's run (--trajectory), a run file's tables
    c.trajectory = lcpsim_run_tables(c.trajectory);
  end

  % The dumped LCPs, as lcpsim_load gives a run's.
  if isfield(c, 'lcp')
    base = c;
    c.lcp_problem = @(k, varargin) lcpsim_lcp_problem(base, k, varargin{:});
  end
end

function remove_copy(tmp)
  if ~isempty(tmp)
    delete(tmp);
  end
end

% ---- Octave: load() reverses dimensions: transpose every non-scalar numeric dataset;
% the 3-D ones of /trajectory (a run's [n, a, 3] as 3 x a x n, trailing singletons
% dropped) reversed as lcpsim_load does.
function s = fix_octave(s, prefix)
  names = fieldnames(s);
  for i = 1:numel(names)
    x = s.(names{i});
    if isstruct(x)
      s.(names{i}) = fix_octave(x, [prefix '/' names{i}]);
    elseif (strcmp(prefix, '/trajectory/bodies') && strcmp(names{i}, 'inertia')) || ...
           (strcmp(prefix, '/trajectory/joints') && strcmp(names{i}, 'impulse'))
      s.(names{i}) = permute(x, [3 2 1]);
    elseif ischar(x)
      s.(names{i}) = lcpsim_strip_nul(x);
    elseif ~isscalar(x)
      s.(names{i}) = x.';
    end
  end
end

% ---- Matlab: h5read gives 1-D as a column, [N, c] as c x N and [n, a, 3] as 3 x a x n.
function s = read_matlab(path, group)
  s = struct();
  info = h5info(path, group);
  for i = 1:numel(info.Datasets)
    d = info.Datasets(i);
    name = [group '/' d.Name];
    if group(end) == '/'
      name = [group d.Name];
    end
    x = h5read(path, name);
    if strcmp(d.Datatype.Class, 'H5T_STRING') && any(d.Dataspace.Size == 0)
      x = cell(0, 1);  % an empty table: cellstr would give {''}
    elseif strcmp(d.Datatype.Class, 'H5T_STRING')
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
    parts = strsplit(info.Groups(i).Name, '/');
    s.(parts{end}) = read_matlab(path, info.Groups(i).Name);
  end
end

function not_compare_error(path, kind, lcpsim_file)
  % What the file is instead, as Python's loader says it (scripts/lcpsim_compare.py).
  if ~lcpsim_file
    what = 'not an lcpsim file (no /format_version)';
  elseif isempty(kind)
    what = sprintf('a run file (lcpsim run): load it with r = lcpsim_load(''%s'')', path);
  elseif strcmp(kind, 'hybrid')
    what = sprintf('a hybrid-model run: load it with r = lcpsim_load(''%s'')', path);
  else
    what = sprintf('file_kind ''%s''', kind);
  end
  error('lcpsim_compare_load: %s: not a compare file: %s', path, what);
end
