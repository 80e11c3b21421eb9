function lcpsim_plot(path, out)
% LCPSIM_PLOT  Plot an lcpsim run: positions, velocities, energies and impulses.
%
%   lcpsim_plot('run.h5', 'run.png')
%
% The same figure as scripts/lcpsim_plot.py, written as a PNG without showing a window.
% 1-D runs: one line per coordinate and the contact impulses. 2-D / 3-D runs: a row per
% axis with each moving body's position (left) and velocity (right), a rotation row
% (2-D: theta, omega; 3-D: the rotation angle from the identity, 2 atan2(|(qx,qy,qz)|, qw)
% of the quaternions made continuous in sign, so it passes pi without folding, and the
% angular speed |w|), energies and the contact impulses of each step (contact normals
% only); runs with tethers get a row of per-tether impulses and lengths, runs with joints
% one of per-joint impulse norms and position errors. At most 10 moving bodies (the first
% ones), as the legend says. The title is the scene's name, solver, time step and steps
% (event-driven runs: the record period, samples and events; the contact panel notes that
% impacts are in /events).
% Round-off: a panel whose values all agree to 1e-9 x max(1, |value|) (SI units) is drawn
% flat at their common value (0 when that close to zero) and says so in the panel.
% Names are shown as written (no TeX), legends sit beside the panels, series have
% distinct colours and dashes.
% Headless Octave (octave-cli) plots through gnuplot (Debian: gnuplot-nox) and needs
% Octave's default font (Debian: fonts-freefont-otf); the PNG is then made by gnuplot's
% pngcairo terminal, so Ghostscript is not needed.

  if nargin < 1 || nargin > 2 || ~ischar(path)
    error('lcpsim_plot: usage: lcpsim_plot(''run.h5'', ''out.png'')');
  end
  if nargin < 2
    [d, n] = fileparts(path);
    out = fullfile(d, [n '.png']);
  end
  check_output(out);
  r = lcpsim_load(path);
  if isfield(r, 'file_kind') && strcmp(r.file_kind, 'hybrid')  % as lcpsim_plot.py says
    error(['lcpsim_plot: %s is a hybrid-model run: scripts/lcpsim_hybrid_plot.py draws it ' ...
           '(here: r.state_of(name), r.output(name) over r.time)'], path);
  end
  check_datasets(r, path);
  octave = exist('OCTAVE_VERSION', 'builtin') ~= 0;

  % A toolkit that can draw off screen.
  device = '-dpng';
  if octave
    % Octave's notes (gnuplot toolkit discouraged, Ghostscript missing) are not the
    % user's concern here.
    w = warning('off', 'all');
    restore = onCleanup(@() warning(w));
    kits = available_graphics_toolkits();
    if isempty(kits)
      error(['lcpsim_plot: Octave has no graphics toolkit here; install gnuplot ' ...
             '(Debian: gnuplot-nox)']);
    end
    if isempty(getenv('DISPLAY')) && any(strcmp(kits, 'gnuplot'))
      graphics_toolkit('gnuplot');
    end
    if strcmp(graphics_toolkit(), 'gnuplot')
      device = '-dpngcairo';
    end
  end

  panels = build_panels(r);
  rows = size(panels, 1);
  cols = size(panels, 2);
  % Each column: 85 px of margin, 385 px of axes and the legend's room beside them, as wide
  % as the longest legend line needs (150 px at least); a fixed 150 px cut names of more
  % than about 24 characters at the figure's edge or wrote them over the next column.
  legend_px = legend_room_px(panels);
  width = (470 + legend_px) * cols;
  tlines = title_of(r);
  height = 210 * rows + 70 + 18 * (numel(tlines) - 1);
  f = figure('visible', 'off', 'position', [0 0 width height]);
  cleanup = onCleanup(@() close(f));
  set(f, 'defaulttextinterpreter', 'none');
  t = double(r.time);
  tl = [t(1) t(end)];
  if t(end) <= t(1)
    tl = t(1) + [-0.05 0.05];  % one state (a run stopped at its first step): as matplotlib
  end
  % A fixed grid: per column the axes, then room for the legend beside them (so legends
  % never cover data and every panel of a column has the same width); margins in pixels.
  left = 85 / width;
  legend_room = legend_px / width;
  top = (45 + 18 * (numel(tlines) - 1)) / height;
  bottom = 45 / height;
  rowh = (1 - top - bottom) / rows;
  failed = failed_steps(r);
  for i = 1:rows
    for j = 1:cols
      p = panels{i, j};
      if isempty(p)
        continue;
      end
      pos = [(j - 1) / cols + left, 1 - top - i * rowh + 35 / height, ...
             1 / cols - left - legend_room, rowh - 58 / height];
      ax = axes('position', pos);
      draw_panel(p, tl, pos);
      mark_failed(t, failed);
      mark_times(p.marks);
      set(ax, 'position', pos);
      if i == rows || isempty(panels{i + 1, j})
        xlabel('time [s]', 'interpreter', 'none');
      end
    end
  end
  axes('position', [0 1 - top 1 top], 'visible', 'off');
  for k = 1:numel(tlines)  % one text per line (a cell of lines broke gnuplot's text)
    text(0.5, 1 - (k - 0.5) / numel(tlines), tlines{k}, 'interpreter', 'none', ...
         'horizontalalignment', 'center', 'fontweight', 'bold', 'fontsize', 11);
  end
  % Written whole or not at all: into OUT.<unique>.partial, checked to end with the PNG's
  % IEND chunk, then renamed (gnuplot's PNG on a full disk left a 0-byte OUT, and the
  % call returned without a word).
  if octave && exist(out, 'file') == 2
    out = canonicalize_file_name(out);  % a symbolic link's file is written, the link stays
  end
  [~, unique] = fileparts(tempname());  % Octave's and Matlab's alike (no getpid in Matlab)
  tmp = sprintf('%s.%s.partial', out, unique);
  print(f, device, tmp);
  if ~png_whole(tmp)
    if exist(tmp, 'file') == 2
      delete(tmp);
    end
    error(['lcpsim_plot: %s: cannot write: the figure came out cut short (a full disk, ' ...
           'a file size limit?); nothing written'], out);
  end
  [ok, msg] = movefile(tmp, out, 'f');
  if ~ok
    delete(tmp);
    error('lcpsim_plot: %s: cannot write: %s', out, msg);
  end
end

% The PNG file path is whole: it ends with the IEND chunk (length 0, type, CRC).
function ok = png_whole(path)
  ok = false;
  fid = fopen(path, 'r');
  if fid < 0
    return;
  end
  fseek(fid, 0, 'eof');
  n = ftell(fid);
  if n >= 20
    fseek(fid, -12, 'eof');
    tail = fread(fid, 12, 'uint8=>uint8')';
    ok = isequal(tail, uint8([0 0 0 0 73 69 78 68 174 66 96 130]));
  end
  fclose(fid);
end

% The panels, a rows x cols cell of structs: x, ys (cell), labels (cell), ylabel, unit,
% note (legend title), empty text (shown when there is nothing to draw).
function P = build_panels(r)
  dim = double(r.parameters.dimension);
  t = double(r.time);
  ts = t(2:end);
  extra = constraint_panels(r);
  if dim == 1
    labels_q = coordinate_labels(r, 'q');
    labels_v = coordinate_labels(r, 'v');
    q = double(r.q);
    v = double(r.v);
    P = cell(3 + size(extra, 1), 1 + (size(extra, 1) > 0));
    P{1, 1} = panel(t, num2cell(q, 1), labels_q, 'position [m]', 'm');
    P{2, 1} = panel(t, num2cell(v, 1), labels_v, 'velocity [m/s]', 'm/s');
    P{3, 1} = contact_panel(r, ts);
    for k = 1:size(extra, 1)
      P{3 + k, 1} = extra{k, 1};
      P{3 + k, 2} = extra{k, 2};
    end
    return;
  end
  max_bodies = 10;
  moving = find(double(r.bodies.nq) > 0);
  shown = moving(1:min(numel(moving), max_bodies));
  names = r.bodies.name(shown);
  n = numel(shown);
  pos = cell(dim, n);
  vel = cell(dim, n);
  ang = cell(1, n);
  spd = cell(1, n);
  for j = 1:n
    p = r.position(shown(j));
    w = r.velocity(shown(j));
    for a = 1:dim
      pos{a, j} = p(:, a);
      vel{a, j} = w(:, a);
    end
    if dim == 2
      ang{j} = r.orientation(shown(j));
      spd{j} = r.angular_velocity(shown(j));
    else
      ang{j} = rotation_angle(r.orientation(shown(j)));
      spd{j} = sqrt(sum(r.angular_velocity(shown(j)) .^ 2, 2));
    end
  end
  note = '';
  if n < numel(moving)
    note = sprintf('first %d of %d', n, numel(moving));
  end
  P = cell(dim + 2 + size(extra, 1), 2);
  axes_names = 'xyz';
  for a = 1:dim
    P{a, 1} = panel(t, pos(a, :), names, sprintf('%s [m]', axes_names(a)), 'm');
    P{a, 2} = panel(t, vel(a, :), names, sprintf('v%s [m/s]', axes_names(a)), 'm/s');
  end
  if dim == 2
    P{dim + 1, 1} = panel(t, ang, names, 'theta [rad]', 'rad');
    P{dim + 1, 2} = panel(t, spd, names, 'omega [rad/s]', 'rad/s');
  else
    P{dim + 1, 1} = panel(t, ang, names, 'rotation angle [rad]', 'rad');
    P{dim + 1, 2} = panel(t, spd, names, '|w| [rad/s]', 'rad/s');
  end
  for a = 1:dim + 1
    P{a, 1}.legend = false;  % one legend per row, beside the velocities
    P{a, 2}.note = note;
  end
  ke = double(r.energy.kinetic(:));
  pe = double(r.energy.potential(:));
  P{dim + 2, 1} = panel(t, {ke, pe, ke + pe}, {'kinetic', 'potential', 'total'}, ...
                        'energy [J]', 'J');
  P{dim + 2, 2} = contact_panel(r, ts);
  for k = 1:size(extra, 1)
    P{dim + 2 + k, 1} = extra{k, 1};
    P{dim + 2 + k, 2} = extra{k, 2};
  end
end

function p = panel(x, ys, labels, ylab, unit)
  p = struct('x', x(:), 'ys', {ys}, 'labels', {labels}, 'ylabel', {ylab}, 'unit', unit, ...
             'note', '', 'empty', '', 'legend', true, 'dotted', [], 'marks', []);
end

% Contact normals and friction per step (kinds 0 and 1 only).
function p = contact_panel(r, ts)
  c = r.contacts;
  keep = double(c.kind(:)) <= 1;
  n = numel(ts);
  normal = zeros(n, 1);
  friction = zeros(n, 1);
  [~, k] = ismember(double(c.step(keep)), r.step(2:end));  % rows (the steps kept)
  if ~isempty(k)
    normal = accumarray(k(:), c.normal_impulse(keep), [n 1]);
    friction = accumarray(k(:), sqrt(sum(c.friction_impulse(keep, :) .^ 2, 2)), [n 1]);
  end
  p = panel(ts, {normal, friction}, {'contact normals (sum)', 'friction (sum of norms)'}, ...
            'contact impulse/step [N*s]', 'N*s');
  if event_driven(r)
    % Persistent contacts' forces times the record period; impacts are in /events.
    p.ylabel = 'contact impulse/period [N*s]';
    imp = double(r.events.kind(:)) == find(strcmp(cellstr(r.events.kind_legend), 'impact')) - 1;
    p.note = sprintf('%d impact%s (dotted): /events', sum(imp), plural(sum(imp)));
    p.marks = double(r.events.time(imp));  % their times drawn (the panel showed nothing)
  end
  if ~any(keep)
    p.ys = {};
    p.empty = 'no contacts in this run';
    if isfield(r, 'file_kind') && strcmp(r.file_kind, 'checkpoint')
      p.empty = 'a checkpoint holds no step''s contacts';
    elseif numel(r.time) <= 1  % a run killed before its first flush: no step, no contacts
      p.empty = 'no step recorded: no contacts to show';
    end
  end
end

% Rows of two panels for tethers (impulses, lengths) and joints (impulse norms, errors).
function E = constraint_panels(r)
  E = cell(0, 2);
  t = double(r.time);
  ts = t(2:end);
  most = 10;  % series per panel, as for bodies
  if isfield(r, 'tethers')
    T = r.tethers;
    nt = min(numel(T.name), most);
    imp = num2cell(double(T.impulse(:, 1:nt)), 1);
    len = num2cell(double(T.length(:, 1:nt)), 1);
    a = panel(ts, imp, T.name(1:nt), 'tether impulse/step [N*s]', 'N*s');
    b = panel(t, len, T.name(1:nt), 'end-to-end distance [m]', 'm');
    b.dotted = double(T.length_max(1:nt))';
    b.note = 'dotted: tether length';
    if nt < numel(T.name)
      a.note = sprintf('first %d of %d', nt, numel(T.name));
      b.note = sprintf('%s; first %d of %d', b.note, nt, numel(T.name));
    end
    E(end + 1, :) = {a, b};
  end
  if isfield(r, 'joints')
    J = r.joints;
    nj = min(numel(J.name), most);
    imp = cell(1, nj);
    labels = cell(1, nj);
    for j = 1:nj
      imp{j} = sqrt(sum(reshape(double(J.impulse(:, j, :)), [], 3) .^ 2, 2));
      labels{j} = sprintf('%s (%s)', J.name{j}, J.type{j});
    end
    a = panel(ts, imp, labels, 'joint impulse/step [N*s]', 'N*s');
    b = panel(t, num2cell(double(J.error(:, 1:nj)), 1), J.name(1:nj), ...
              'joint position error [m]', 'm');
    if nj < numel(J.name)
      a.note = sprintf('first %d of %d', nj, numel(J.name));
      b.note = a.note;
    end
    E(end + 1, :) = {a, b};
  end
end

% The legend room beside the panels, in pixels: the longest line a panel's legend writes
% (a name with its dash and marker, or the note) at fontsize 8, about 6.2 px a character (DejaVu
% Sans through gnuplot's pngcairo: 5.5 px on average, wide letters more), and 24 px of
% margin; at least 150 px.
function px = legend_room_px(P)
  longest = 0;
  for k = 1:numel(P)
    p = P{k};
    if isempty(p) || ~p.legend || isempty(p.ys)
      continue;
    end
    for j = 1:numel(p.labels)
      longest = max(longest, numel(p.labels{j}) + numel(style_name(j)));  % ' (-- o)'
    end
    longest = max(longest, numel(p.note));
  end
  px = max(150, ceil(24 + 6.2 * longest));
end

function s = plural(n)
  s = '';
  if n ~= 1
    s = 's';
  end
end

% Distinct colours (matplotlib's tab10) and dashes that tell apart series lying on top
% of each other; from the 5th series on a marker too (m, '' for none), as gnuplot has 4
% dashes: series 1, 5 and 9 were solid in blue, purple and olive, which a colour-blind
% reader confuses (scripts/lcpsim_plot.py has 10 dashes).
function [c, s, m] = style(k)
  tab10 = [31 119 180; 255 127 14; 44 160 44; 214 39 40; 148 103 189; 140 86 75; ...
           227 119 194; 127 127 127; 188 189 34; 23 190 207] / 255;
  dashes = {'-', '--', '-.', ':'};
  markers = {'', 'o', 's'};
  c = tab10(mod(k - 1, 10) + 1, :);
  s = dashes{mod(k - 1, 4) + 1};
  m = markers{mod(floor(mod(k - 1, 10) / 4), 3) + 1};
end

% The legend's note of series k's style: its dash and marker, '' for a solid line.
function t = style_name(k)
  [~, s, m] = style(k);
  parts = {};
  if ~strcmp(s, '-')
    parts{end + 1} = s;
  end
  if ~isempty(m)
    parts{end + 1} = m;
  end
  t = '';
  if ~isempty(parts)
    t = [' (' strjoin(parts, ' ') ')'];
  end
end

function draw_panel(p, tl, pos)
  ys = p.ys;
  % Round-off: all values within 1e-9 x max(1, |value|) of each other are drawn flat.
  vals = [];
  for k = 1:numel(ys)
    v = ys{k}(:);
    vals = [vals; v(isfinite(v))]; %#ok<AGROW>
  end
  flat = '';
  if ~isempty(vals)
    lo = min(vals);
    hi = max(vals);
    mag = max(abs(lo), abs(hi));
    tol = 1e-9 * max(1, mag);
    if hi - lo <= tol
      level = 0;
      if mag > tol
        level = str2double(sprintf('%.9g', (lo + hi) / 2));
      end
      for k = 1:numel(ys)
        ys{k} = level * ones(size(ys{k}));
      end
      if level == 0
        what = 'zero';
      else
        what = sprintf('%.9g %s', level, p.unit);
      end
      flat = sprintf('constant: %s (round-off, spread %.1e %s <= 1e-9 x max(1, |value|))', ...
                     what, hi - lo, p.unit);
      if hi == lo  % values all equal are no round-off ('spread 0.0e+00' read as noise)
        flat = sprintf('constant: %s (exactly, at every point)', what);
      end
      pad = max([0.1 * abs(level), (level == 0) * 1, 1e-6]);
    end
  end
  hold on;
  h = zeros(1, numel(ys));
  for k = 1:numel(ys)
    [c, s, m] = style(k);
    h(k) = plot(p.x, ys{k}, 'color', c, 'linestyle', s, 'linewidth', 1.2);
    if numel(p.x) < 3
      set(h(k), 'marker', 'o');  % a line of one or two points shows nothing
    elseif ~isempty(m)  % about 10 markers along the line, apart from the next series'
      n = numel(p.x);
      at = unique(min(n, max(1, round(linspace(1, n, 11) + (k - 1) * n / 110))));
      y = ys{k};
      plot(p.x(at), y(at), 'color', c, 'linestyle', 'none', 'marker', m, 'markersize', 4);
    end
    if ~isempty(p.dotted)
      plot(tl, p.dotted(k) * [1 1], 'color', c, 'linestyle', ':');
    end
  end
  hold off;
  xlim(tl);
  if isempty(flat) && isempty(p.empty) && ~isempty(vals)
    % 5 % of the span beyond the data, as matplotlib's margins (lcpsim_plot.py): Octave's
    % limits end at the data's nice round edges, and a series there (a body resting at
    % x = -1 while another moves up to 1, an impulse or energy at 0) lay on the frame.
    ends = [vals; p.dotted(:)];
    lo = min(ends);
    hi = max(ends);
    if hi > lo
      ylim([lo - 0.05 * (hi - lo), hi + 0.05 * (hi - lo)]);
    end
  end
  if ~isempty(flat)
    ylim([level - pad, level + pad]);
    text(tl(1) + 0.01 * (tl(2) - tl(1)), level - 0.8 * pad, flat, 'interpreter', 'none', ...
         'fontsize', 7);
  end
  if ~isempty(p.empty)
    text(mean(tl), 0.5, p.empty, 'horizontalalignment', 'center', 'interpreter', 'none');
    ylim([0 1]);
  end
  ylabel(p.ylabel, 'interpreter', 'none');
  grid on;
  if p.legend && ~isempty(ys)
    % The legend: each name in its series' colour (and dash) beside the panel, never
    % over the data.
    rowh = min(0.14, 0.95 / max(numel(ys) + ~isempty(p.note), 1));
    for k = 1:numel(ys)
      c = style(k);
      text(1.02, 1 - rowh * (k - 0.5), [p.labels{k} style_name(k)], ...
           'units', 'normalized', 'color', c, 'interpreter', 'none', 'fontsize', 8);
    end
    if ~isempty(p.note)
      text(1.02, 1 - rowh * (numel(ys) + 0.5), p.note, 'units', 'normalized', ...
           'interpreter', 'none', 'fontsize', 8);
    end
  end
end

% Rotation angle of unit quaternions (qw qx qy qz) from the identity, in [0, 2 pi], the
% signs made continuous first.
function a = rotation_angle(q)
  q = double(q);
  if ~isempty(q) && q(1, 1) < 0
    q(1, :) = -q(1, :);
  end
  for k = 2:size(q, 1)
    if q(k, :) * q(k - 1, :)' < 0
      q(k, :) = -q(k, :);
    end
  end
  a = 2 * atan2(sqrt(sum(q(:, 2:4) .^ 2, 2)), q(:, 1));
end

% The figure file must be a PNG in a folder that exists, and no HDF5 file: print wrote a
% PNG over whatever out named (lcpsim_plot('run.h5', 'run.h5') replaced the run), added
% .png to a name without it, and failed deep inside on a missing folder.
function check_output(out)
  [d, ~, e] = fileparts(out);
  if exist(out, 'dir') == 7
    error('lcpsim_plot: %s is a folder: give a file name such as run.png', out);
  end
  if ~strcmpi(e, '.png')
    error('lcpsim_plot: %s: the figure is a PNG: give a name ending in .png', out);
  end
  if ~isempty(d) && exist(d, 'dir') ~= 7
    error('lcpsim_plot: %s: no folder %s', out, d);
  end
  if exist(out, 'file') == 2
    fid = fopen(out, 'r');
    if fid >= 0
      % HDF5's signature at byte 0, or after a run file's 512-byte head (lcp/h5check.h)
      head = fread(fid, 520, 'uint8=>uint8')';
      fclose(fid);
      sig = uint8([137 72 68 70 13 10 26 10]);
      if (numel(head) >= 8 && isequal(head(1:8), sig)) || ...
         (numel(head) == 520 && isequal(head(513:520), sig))
        error('lcpsim_plot: %s is an HDF5 file (a run?): refused (it would be replaced)', out);
      end
    end
  end
end

function s = title_of(r)
  name = '';
  try
    sc = jsondecode(r.scene_text);
    if isfield(sc, 'name')
      name = sc.name;
    end
  catch
    name = '';
  end
  if isempty(name)
    name = 'lcpsim run';
  end
  name = strtrim(regexprep(name, '\s+', ' '));  % one line, at most 100 characters
  if numel(name) > 100
    name = [name(1:97) '...'];
  end
  % One line each: the name, the run, how it ended, its failed steps (on one line the
  % title of a failed run ran past both edges of the figure).
  if isfield(r, 'file_kind') && strcmp(r.file_kind, 'checkpoint')
    % A checkpoint (lsim_sim_save) is one state, not a run of no steps.
    s = {name, sprintf('%d-D, solver %s, h = %g s, checkpoint: the state after step %d (t = %g s), no steps', ...
                       double(r.parameters.dimension), r.parameters.solver_name, ...
                       double(r.parameters.time_step), double(r.checkpoint.step), double(r.time(1)))};
    return;
  end
  if event_driven(r)
    s = {name, sprintf('%d-D, event-driven (CVODE; %s at events), record period %g s, %d periods, %d events', ...
                       double(r.parameters.dimension), r.parameters.solver_name, ...
                       double(r.parameters.time_step), numel(r.time) - 1, numel(r.events.time))};
    notes = {run_end_note(r)};
  else
    s = {name, sprintf('%d-D, solver %s, h = %g s, %d steps%s', ...
                       double(r.parameters.dimension), r.parameters.solver_name, ...
                       double(r.parameters.time_step), r.step(end), stride_note(r))};
    notes = {run_end_note(r), failure_note(r)};
  end
  for i = 1:numel(notes)
    if ~isempty(notes{i})
      s{end + 1} = regexprep(notes{i}, '^; ', '');
    end
  end
end

% '' when no step failed; else how many did and the first (a run whose failed solves were
% integrated must not read as a clean one): '; 19 of 500 steps failed (solver status < 0),
% the first: step 118, ending at t = 0.236 s'. Fixed-budget steps (tol 0) are not failures.
function s = failure_note(r)
  s = '';
  if ~isfield(r, 'summary') || ~isfield(r.summary, 'failures') || double(r.summary.failures) <= 0 ...
     || ~isfield(r, 'solver')
    return;
  end
  s = sprintf('; %d of %d steps failed (solver status < 0)', double(r.summary.failures), r.step(end));
  first = failed_steps(r);
  if ~isempty(first) && isfield(r.solver, 'failed_steps')
    % A record stride: the first row that counts one (the step itself may be earlier).
    s = [s sprintf(', the first by step %d (t = %g s); red ticks on the time axes at the rows counting them', ...
                   r.step(first(1) + 1), r.time(first(1) + 1))];
  elseif ~isempty(first)
    s = [s sprintf(', the first: step %d, ending at t = %g s; red ticks on the time axes', ...
                   first(1), r.time(first(1) + 1))];
  end
end

% ' (recorded every K)' for a run file with a record stride, else ''.
function s = stride_note(r)
  s = '';
  if isfield(r.parameters, 'record_every') && double(r.parameters.record_every) > 1
    s = sprintf(' (recorded every %d)', double(r.parameters.record_every));
  end
end

% The state rows k (1..N, r.time(k + 1)) whose step failed: status < 0, a fixed sweep
% budget spent (tol 0, status -1) not counted, as lcpsim run counts them; with a record
% stride the rows that count a failed step since the row before (/solver/failed_steps).
function k = failed_steps(r)
  k = [];
  if ~isfield(r, 'solver') || ~isfield(r.solver, 'status')
    return;
  end
  if isfield(r.solver, 'failed_steps')
    k = find(double(r.solver.failed_steps(:)) > 0);
    return;
  end
  st = double(r.solver.status(:));
  budget = isfield(r.parameters, 'solver_tol') && double(r.parameters.solver_tol) == 0;
  k = find(st < 0 & ~(budget & st == -1));
end

% Grey dotted lines across the current panel at times x (an event-driven run's impacts).
function mark_times(x)
  if isempty(x)
    return;
  end
  yl = ylim();
  x = x(:).';
  hold on;
  plot([x; x], repmat(yl(:), 1, numel(x)), ':', 'color', [0.55 0.55 0.55], 'linewidth', 0.8);
  hold off;
  ylim(yl);
end

% Red ticks along the bottom of the current panel at the states the failed steps ended in
% (the title alone had said that steps failed, not where).
function mark_failed(t, k)
  if isempty(k)
    return;
  end
  yl = ylim();
  x = t(k + 1);
  x = x(:).';
  hold on;
  plot([x; x], repmat(yl(1) + [0; 0.05] * (yl(2) - yl(1)), 1, numel(x)), '-', ...
       'color', [1 0 0], 'linewidth', 1.2, 'tag', 'failed_step');
  hold off;
  ylim(yl);
end

% '' for a completed run; else how it ended (a stopped run's figure must not read as a
% whole one): '; stopped after 0 of 3 steps: <reason>', '; unfinished: ...'.
function s = run_end_note(r)
  s = '';
  if ~isfield(r, 'summary') || ~isfield(r.summary, 'run_end') || strcmp(r.summary.run_end, 'completed')
    return;
  end
  n = r.step(end);
  steps = double(r.parameters.steps);
  if strcmp(r.summary.run_end, 'unfinished')
    s = sprintf('; unfinished: the writer was killed; %d of %d steps', n, steps);
    return;
  end
  why = '';
  if isfield(r.summary, 'run_end_reason')
    why = r.summary.run_end_reason;
  end
  if numel(why) > 90
    why = [why(1:87) '...'];
  end
  s = sprintf('; %s after %d of %d steps', r.summary.run_end, n, steps);
  if ~isempty(why)
    s = [s ': ' why];
  end
end

% An event-driven run (docs/output-format.md, /events).
function yes = event_driven(r)
  yes = isfield(r.parameters, 'integrator') && strcmp(r.parameters.integrator, 'event_driven') ...
        && isfield(r, 'events');
end

% A label per column of q or v: the owning body's name (with the coordinate index when
% the body has more than one).
function labels = coordinate_labels(r, kind)
  n = double(r.parameters.(['n' kind]));
  labels = cell(1, n);
  for i = 1:n
    labels{i} = sprintf('%s[%d]', kind, i - 1);
  end
  offs = double(r.bodies.([kind '_offset']));
  counts = double(r.bodies.(['n' kind]));
  for b = 1:numel(r.bodies.name)
    for j = 1:counts(b)
      if counts(b) == 1
        labels{offs(b) + j} = r.bodies.name{b};
      else
        labels{offs(b) + j} = sprintf('%s[%d]', r.bodies.name{b}, j - 1);
      end
    end
  end
end

% The datasets the figure reads, as lcpsim_plot.py's (lcpsim_load.RUN_DATASETS): a file
% without one is named with its path (it had stopped on "structure has no member
% 'energy'" from inside the panels).
function check_datasets(r, path)
  need = {'time', 'q', 'v', 'parameters/dimension', 'parameters/time_step', ...
          'parameters/steps', 'parameters/solver_name', 'parameters/nq', 'parameters/nv', ...
          'bodies/name', 'bodies/nq', 'bodies/nv', 'bodies/q_offset', 'bodies/v_offset', ...
          'contacts/offset', 'contacts/step', 'contacts/kind', 'contacts/normal_impulse', ...
          'contacts/friction_impulse', 'energy/kinetic', 'energy/potential'};
  for i = 1:numel(need)
    parts = strsplit(need{i}, '/');
    g = r;
    for j = 1:numel(parts)
      if ~isstruct(g) || ~isfield(g, parts{j})
        error('lcpsim_plot: %s has no /%s: not a whole run file (docs/output-format.md)', ...
              path, strjoin(parts(1:j), '/'));
      end
      g = g.(parts{j});
    end
  end
end
