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
%   [taus, rho, titles] = lcpsim_profile('run_compare.h5', 'profile.png')
%       plots the wall-time profiles of a compare file, in the panels of
%       scripts/lcpsim_compare.py (cold and warm panels in shadow mode over the problems
%       every series of the panel tried; 3-D and 2-D panels for frictional contact sets),
%       success as the file defines it (/results/success), problems without an LCP left
%       out; writes the image (PNG, or PDF by extension) when a name is given. Returns
%       each panel's taus and rho (cells, one per panel: rho{g}(t, j) for the panel's
%       j-th series) and its title.

  if nargin >= 1 && ischar(varargin{1})
    [taus, rho, ratios] = plot_file(varargin{:});
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

function [taus, rho, titles] = plot_file(path, out)
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
  panels = profile_panels(c);
  np = numel(panels);
  taus = cell(1, np);
  rho = cell(1, np);
  titles = cell(1, np);
  % A fixed grid (as scripts/lcpsim_plot.m): per panel 85 px of margin, 480 px of axes,
  % and beside the panels that carry a legend room for it, as wide as its longest name
  % needs. Inside the axes (lower right) the legend had covered the ends of curves near 0
  % (series that solve few problems) and of slow series' curves rising at large tau.
  fc = strcmp(c.parameters.mode, 'fc_set');
  room = zeros(1, np);
  for g = 1:np
    if g == np || fc
      room(g) = legend_room_px(c.series.label(panels{g}.series));
    end
  end
  width = 565 * np + sum(room);
  fig = figure('visible', 'off', 'position', [0 0 width 450]);
  x0 = 0;
  for g = 1:np
    rows = panels{g}.rows;
    ser = panels{g}.series;
    [taus{g}, rho{g}] = profile(c.results.wall_time(rows, ser), ...
                                c.results.success(rows, ser) == 1);
    titles{g} = panels{g}.title;
    axes('position', [(x0 + 85) / width, 0.13, 460 / width, 0.78]);
    x0 = x0 + 565 + room(g);
    h = stairs(taus{g}, rho{g});
    % a solver's colour is the same in every panel (matplotlib's tab10, as the Python
    % figures; Octave's lines() repeats after 7), and its dash too: solid for the first
    % 10 solvers, then dashed, dash-dotted and dotted for each further 10 (solver 11 had
    % solver 1's solid line: every LCP solver, 23, drew 13 lines in another's style)
    cols = [31 119 180; 255 127 14; 44 160 44; 214 39 40; 148 103 189; 140 86 75; ...
            227 119 194; 127 127 127; 188 189 34; 23 190 207] / 255;
    dashes = {'-', '--', '-.', ':'};
    solver = double(c.series.solver(ser)) + 1;
    for j = 1:numel(h)
      k = solver(j) - 1;
      set(h(j), 'color', cols(mod(k, size(cols, 1)) + 1, :), 'linewidth', 1.5, ...
          'linestyle', dashes{mod(floor(k / size(cols, 1)), numel(dashes)) + 1});
    end
    set(gca, 'xscale', 'log');
    ylim([-0.02 1.02]);
    xlabel('tau (time within a factor tau of the best)');
    ylabel('fraction of problems solved');
    t = panels{g}.title;
    if isempty(t)
      t = 'performance profile';
    else
      t = ['performance profile, ' t];
    end
    % the file's base name first, as the Python figure's title
    [~, base] = fileparts(path);
    t = [base ': ' t];
    title(t, 'interpreter', 'none', 'fontsize', 10 - 2 * (numel(t) > 60));
    labels = regexprep(c.series.label(ser), ' \((cold|warm)\)$', '');
    if room(g) > 0
      % The legend beside the panel, never over a curve: each name in its series' colour,
      % and its dash when not solid (solver 11's name read as solver 1's, in the same
      % colour, with nothing to say its line was dashed), as scripts/lcpsim_plot.m's.
      rowh = min(0.07, 0.98 / max(numel(h), 1));
      for j = 1:numel(h)
        ls = get(h(j), 'linestyle');
        if ~strcmp(ls, '-')
          labels{j} = [labels{j} ' (' ls ')'];
        end
        text(1.03, 1 - rowh * (j - 0.5), labels{j}, 'units', 'normalized', ...
             'color', get(h(j), 'color'), 'interpreter', 'none', 'fontsize', 9);
      end
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

% The legend's room beside a panel, in pixels: the longest name (the start suffix
% dropped, a dash added) at fontsize 9, about 7 px a character through gnuplot's pngcairo, and 30 px of
% margin; at least 120 px.
function px = legend_room_px(labels)
  labels = regexprep(labels, ' \((cold|warm)\)$', '');
  longest = 0;
  for j = 1:numel(labels)
    % a dash named after the name (' (--)') from the 11th solver on
    longest = max(longest, numel(labels{j}) + 5 * (j > 10));
  end
  px = max(120, ceil(30 + 7 * longest));
end

% The panels of scripts/lcpsim_compare.py's profile_panels, so that both draw the same
% profiles: shadow mode cold and warm panels over the problems every series of the panel
% tried (a dense solver skips the steps above --dense-limit, which is no failure; the
% title says how many were left out); frictional contact sets 3-D and 2-D problems apart
% (a solver for one dimension is skipped on the other), each with the series that tried
% one of its problems; otherwise one panel of every series over the problems with an LCP.
function panels = profile_panels(c)
  rows = find(double(c.problem_size) > 0);
  skipped = double(c.results.skipped) ~= 0;
  panels = {};
  nser = numel(c.series.label);
  if strcmp(c.parameters.mode, 'fc_set')
    dims = double(c.problem_dimension);
    for d = [3 2]
      r = rows(dims(rows) == d);
      if isempty(r)
        continue
      end
      ser = find(any(~skipped(r, :), 1));
      panels{end + 1} = struct('title', sprintf('%d-D problems (%d)', d, numel(r)), ...
                               'rows', r, 'series', ser);
    end
    return
  end
  if strcmp(c.parameters.mode, 'shadow')
    groups = {'cold start', 'warm start'};
    sers = {find(strcmp(c.series.start, 'cold'))', find(strcmp(c.series.start, 'warm'))'};
  else
    groups = {''};
    sers = {1:nser};
  end
  for g = 1:numel(groups)
    ser = sers{g};
    r = rows(all(~skipped(rows, ser), 2));
    t = groups{g};
    if numel(r) < numel(rows)
      if isempty(t)
        t = 'all series';
      end
      % one line (gnuplot's titles take no line break), the panel's set said
      t = sprintf('%s, %d of %d problems (%d skipped by a dense solver)', t, numel(r), ...
                  numel(rows), numel(rows) - numel(r));
    end
    panels{end + 1} = struct('title', t, 'rows', r, 'series', ser);
  end
end
