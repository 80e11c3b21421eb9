function [taus, rho, ratios] = lcpsim_profile(varargin)
% LCPSIM_PROFILE  Dolan-More performance profiles of lcpsim solver comparisons.
%
%   [taus, rho, ratios] = lcpsim_profile(cost, ok)
%       cost [problems x solvers] (e.g. wall times), ok [problems x solvers] logical
%       (successful solves; default all finite costs). r(p, s) = cost(p, s) / the best
%       successful cost of problem p (Inf when s failed or nobody solved p);
%       rho(t, s) = fraction of ALL problems with r(p, s) <= taus(t). taus are the
%       distinct finite ratios, 1 first. Costs <= 0 count as the problem's smallest
%       positive cost. The same definition as performance_profile in
%       scripts/lcpsim_compare.py.
%   lcpsim_profile('run_compare.h5', 'profile.png')
%       plots the wall-time profiles of a compare file (cold and warm panels in shadow
%       mode), success as the file defines it (/results/success), problems without an
%       LCP left out; writes the image (PNG, or PDF by extension) when a name is given.

  if nargin >= 1 && ischar(varargin{1})
    plot_file(varargin{:});
    taus = []; rho = []; ratios = [];
    return
  end
  cost = double(varargin{1});
  if nargin >= 2
    ok = logical(varargin{2});
  else
    ok = true(size(cost));
  end
  [taus, rho, ratios] = profile(cost, ok);
end

function [taus, rho, ratios] = profile(cost, ok)
  [P, S] = size(cost);
  ok = ok & isfinite(cost);
  ratios = inf(P, S);
  for p = 1:P
    if ~any(ok(p, :))
      continue
    end
    c = cost(p, :);
    pos = c(ok(p, :) & c > 0);
    if isempty(pos)
      floor_ = 1;
    else
      floor_ = min(pos);
    end
    c(c <= 0) = floor_;
    best = min(c(ok(p, :)));
    ratios(p, ok(p, :)) = c(ok(p, :)) / best;
  end
  finite = ratios(isfinite(ratios));
  if isempty(finite)
    top = 2;
  else
    top = max(2, max(finite) * 1.05);
  end
  taus = unique([1; sort(finite(:)); top]);
  rho = zeros(numel(taus), S);
  for t = 1:numel(taus)
    rho(t, :) = sum(ratios <= taus(t), 1) / max(P, 1);
  end
end

function plot_file(path, out)
  c = lcpsim_compare_load(path);
  % Off-screen drawing: Octave without a display plots through gnuplot (gnuplot-nox),
  % whose cairo terminals need no Ghostscript.
  png = '-dpng';
  pdf = '-dpdf';
  if exist('OCTAVE_VERSION', 'builtin')
    w = warning('off', 'all');
    restore = onCleanup(@() warning(w));
    kits = available_graphics_toolkits();
    if isempty(getenv('DISPLAY')) && any(strcmp(kits, 'gnuplot'))
      graphics_toolkit('gnuplot');
    end
    if strcmp(graphics_toolkit(), 'gnuplot')
      png = '-dpngcairo';
      pdf = '-dpdfcairo';
    end
  end
  rows = find(double(c.problem_size) > 0);
  if strcmp(c.parameters.mode, 'shadow')
    groups = {'cold', 'warm'};
  else
    groups = {''};
  end
  fig = figure('visible', 'off', 'position', [0 0 550 * numel(groups) 450]);
  for g = 1:numel(groups)
    if isempty(groups{g})
      ser = 1:numel(c.series.label);
    else
      ser = find(strcmp(c.series.start, groups{g}))';
    end
    [taus, rho] = profile(c.results.wall_time(rows, ser), c.results.success(rows, ser) == 1);
    subplot(1, numel(groups), g);
    h = stairs(taus, rho);
    set(gca, 'xscale', 'log');
    ylim([-0.02 1.02]);
    xlabel('tau (time within a factor tau of the best)');
    ylabel('fraction of problems solved');
    title(sprintf('performance profile, %s start', groups{g}), 'interpreter', 'none');
    labels = regexprep(c.series.label(ser), ' \((cold|warm)\)$', '');
    if g == numel(groups)
      legend(h, labels, 'location', 'southeast', 'interpreter', 'none');
    end
  end
  if nargin >= 2 && ~isempty(out)
    if numel(out) > 4 && strcmpi(out(end-3:end), '.pdf')
      print(fig, pdf, out);
    else
      print(fig, png, out);
    end
  end
  close(fig);
end
