function lcpsim_plot(path, out)
% LCPSIM_PLOT  Plot an lcpsim run: positions, velocities and contact impulses over time.
%
%   lcpsim_plot('run.h5', 'run.png')
%
% The same figure as scripts/lcpsim_plot.py, written as a PNG without showing a window.
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
  r = lcpsim_load(path);
  octave = exist('OCTAVE_VERSION', 'builtin') ~= 0;

  % A toolkit that can draw off screen.
  device = '-dpng';
  if octave
    % Octave's notes (gnuplot toolkit discouraged, legend 'best', Ghostscript missing)
    % are not the user's concern here.
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

  f = figure('visible', 'off', 'position', [0 0 800 900]);
  cleanup = onCleanup(@() close(f));
  t = double(r.time);

  % Positions and velocities, one line per coordinate, labelled by body.
  kinds = {'q', 'v'};
  ylabels = {'position', 'velocity'};
  if r.parameters.dimension == 1
    ylabels = {'position [m]', 'velocity [m/s]'};
  end
  for p = 1:2
    subplot(3, 1, p);
    x = double(r.(kinds{p}));
    if size(x, 2) > 0
      plot(t, x);
      legend(coordinate_labels(r, kinds{p}), 'location', 'best');
    end
    ylabel(ylabels{p});
    xlim([t(1) max(t(end), t(1) + eps)]);
    grid on;
  end

  % Per step: the sum of normal impulses and of friction impulse norms.
  n = numel(t) - 1;
  normal = zeros(n, 1);
  friction = zeros(n, 1);
  c = r.contacts;
  for i = 1:numel(c.step)
    k = double(c.step(i));
    normal(k) = normal(k) + c.normal_impulse(i);
    friction(k) = friction(k) + norm(c.friction_impulse(i, :));
  end
  subplot(3, 1, 3);
  plot(t(2:end), normal, t(2:end), friction);
  legend({'normal (sum)', 'friction (sum of norms)'}, 'location', 'best');
  ylabel('impulse per step [N*s]');
  xlabel('time [s]');
  xlim([t(1) max(t(end), t(1) + eps)]);
  grid on;
  subplot(3, 1, 1);
  title(sprintf('lcpsim run: %s, h = %g s, %d steps', r.parameters.solver_name, ...
                r.parameters.time_step, n));

  print(f, device, out);
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
