function P = lcpsim_lcp_problem(r, k, series)
% LCPSIM_LCP_PROBLEM  Step k's LCP dumped by --dump-lcp (docs/output-format.md, "LCP
% dumps"), from a run file loaded by lcpsim_load or a compare file loaded by
% lcpsim_compare_load; both loaders call it as r.lcp_problem(k, series).
%
%   P = lcpsim_lcp_problem(r, k)          % step k (1-based), series 0
%   P = lcpsim_lcp_problem(r, k, s)       % a comparison's series s (0-based, as stored)
%
% P holds n, m, q, warm, z [n x NS] (one column per label of P.z_label), the cones
% (cone_normal, cone_first_dir, ...; variable indices 0-based, as stored), J [n x m],
% B [m x n] and C [n x n] as sparse matrices ([] for a dense-only problem), and M: the
% stored one, else J * B + C formed here, sparse (P.dense false says so). P.matvec(z) is
% M z, P.w(z) M z + q (both through the factors when stored, J (B z) + C z, as in
% Python), P.residual(z) the common residual: .natural max|min(z, w)|, .relative
% (natural / max|q|, 1 if q = 0).
%
% Series s's solution is P.solution, column P.column (1-based) of P.z, whatever the
% file: run files column 1 (the solver); shadow comparisons column s + 2 (column 1 is
% 'reference', the driver's solution; the problem is shared by every series); LCP sets
% column s + 1 (shared problem); independent comparisons series s's own problem, its
% one column 'own'. P.residual(P.solution) is then the file's residual of that step and
% series (run files /solver/residual(k), compare files /results/residual(k, s + 1)) up
% to rounding.

  if nargin < 3
    series = 0;
  end
  % A path instead of a loaded file was told 'the file has no LCP dump' (isfield of a
  % string), of a file that has one.
  if ischar(r) || (exist('isstring') && isstring(r))
    error(['lcpsim_lcp_problem: takes a loaded file, not the path ''%s'': ' ...
           'r = lcpsim_load(''%s''); P = r.lcp_problem(%d) (a compare file: ' ...
           'c = lcpsim_compare_load(...); c.lcp_problem(k, series))'], char(r), char(r), k);
  end
  if ~isfield(r, 'lcp')
    error('lcpsim_lcp_problem: the file has no LCP dump (/lcp: written with --dump-lcp)');
  end
  [stored, column] = series_column(r, series);
  g = r.lcp;
  p = find(double(g.step) == k & double(g.series) == stored, 1);
  if isempty(p)
    error('lcpsim_lcp_problem: step %d series %d has no dumped LCP', k, series);
  end
  n = double(g.n(p));
  vo = double(g.offset(p));
  co = double(g.cone_offset(p));
  nc = double(g.ncones(p));
  P.step = k;
  P.series = series;
  P.n = n;
  P.q = g.q(vo + 1:vo + n);
  P.warm = g.warm(vo + 1:vo + n);
  P.z = g.z(vo + 1:vo + n, :);
  P.z_label = lcpsim_cellstr(g.solution_label);
  P.column = column;
  P.solution = P.z(:, column);
  fields = {'normal', 'first_dir', 'ndir', 'lambda', 'mu', 'fixed_normal', 'uniform'};
  for j = 1:numel(fields)
    if ~isfield(g, ['cone_' fields{j}])
      continue; % uniform: files from before it have none
    end
    x = g.(['cone_' fields{j}]);
    P.(['cone_' fields{j}]) = x(co + 1:co + nc);
  end

  % The factors (J, C by rows, B by columns), when stored.
  P.m = -1;
  P.J = [];
  P.B = [];
  P.C = [];
  if isfield(g, 'm') && double(g.m(p)) >= 0
    P.m = double(g.m(p));
    po = double(g.ptr_offset(p));
    P.J = factor_matrix(g, 'J', p, po, n, n, P.m, false);
    P.B = factor_matrix(g, 'B', p, po, n, P.m, n, true);
    P.C = factor_matrix(g, 'C', p, po, n, n, n, false);
  end
  P.dense = ~isfield(g, 'dense') || g.dense(p) ~= 0;
  if P.dense
    mo = double(g.m_offset(p));
    P.M = reshape(g.M(mo + 1:mo + n * n), n, n); % stored column major
  else
    P.M = P.J * P.B + P.C; % sparse: a few dozen entries a row (full(P.M) for a dense copy)
  end

  % M z through the factors when stored, as the recorded residuals were summed (the
  % stored M is J B + C rounded: with a diverged z, e.g. 1e23, M z from it is off by
  % rounding of |M| |z|, far above max|q|), M z + q, and the common residual (natural
  % max|min(z, w)|, relative to max|q|).
  if P.m >= 0
    J = P.J;
    B = P.B;
    C = P.C;
    P.matvec = @(z) J * (B * z) + C * z;
  else
    M = P.M;
    P.matvec = @(z) M * z;
  end
  mv = P.matvec;
  q = P.q;
  P.w = @(z) mv(z) + q;
  P.residual = @(z) lcp_residual(z, mv(z) + q, q);
end

% The dumped series holding series s's problem, and the column of z holding its
% solution (1-based): by the file's kind and comparison mode (docs/output-format.md,
% "LCP dumps": /lcp/series and /lcp/solution_label).
function [stored, column] = series_column(r, s)
  if ~isnumeric(s) || ~isscalar(s) || s ~= round(s) || s < 0
    error('lcpsim_lcp_problem: series must be a 0-based index, got %s', mat2str(s));
  end
  stored = s;
  column = 1;
  if ~isfield(r, 'file_kind') || ~strcmp(r.file_kind, 'compare')
    return; % a run file: one series (0), one column (the solver)
  end
  nseries = double(r.parameters.nseries);
  if s >= nseries
    error('lcpsim_lcp_problem: series %d out of range 0..%d', s, nseries - 1);
  end
  switch r.parameters.mode
    case 'shadow'      % one problem; columns 'reference', then every series
      stored = 0;
      column = s + 2;
    case 'lcp_set'     % one problem; a column per series
      stored = 0;
      column = s + 1;
    case 'independent' % each series' own problem; one column, 'own'
      column = 1;
    otherwise
      error('lcpsim_lcp_problem: comparison mode ''%s'' has no LCP dump', r.parameters.mode);
  end
end

function res = lcp_residual(z, w, q)
  res.natural = max([0; abs(min(z, w))]);
  s = max([0; abs(q)]);
  if s == 0
    s = 1;
  end
  res.relative = res.natural / s;
end

% One factor of problem p as a sparse matrix: J and C stored by rows, B by columns.
function A = factor_matrix(g, name, p, po, n, rows, cols, by_columns)
  ptr = double(g.([name '_ptr'])(po + 1:po + n + 1));
  eo = double(g.([name '_offset'])(p));
  idx = double(g.([name '_idx'])(eo + ptr(1) + 1:eo + ptr(end)));
  val = double(g.([name '_val'])(eo + ptr(1) + 1:eo + ptr(end)));
  major = repelem((1:n)', diff(ptr));
  if by_columns
    A = sparse(idx + 1, major, val, rows, cols);
  else
    A = sparse(major, idx + 1, val, rows, cols);
  end
end

