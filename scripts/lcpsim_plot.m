function lcpsim_plot(path, out)
% LCPSIM_PLOT  Plot an lcpsim run: positions, velocities, energies and contact impulses.
%
%   lcpsim_plot('run.h5', 'run.png')
%
% The same figure as scripts/lcpsim_plot.py, written as a PNG without showing a window.
% 1-D runs: one line per coordinate and the contact impulses. 2-D / 3-D runs: a row per
% axis with each moving body's position (left) and velocity (right), a rotation row
% (2-D: theta, omega; 3-D: rotation angle 2 acos|qw| and angular speed |w|), energies
% and contact impulses; at most 10 moving bodies (the first ones), as the title says.
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

  if r.parameters.dimension ~= 1
    f = figure('visible', 'off', 'position', [0 0 1100 250 * (r.parameters.dimension + 2)]);
    cleanup = onCleanup(@() close(f));
    plot_nd(r);
    print(f, device, out);
    return;
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

  n = numel(t) - 1;
  [normal, friction] = step_impulses(r);
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

% Per step k = 1..N: the sum of normal impulses and of friction impulse norms.
function [normal, friction] = step_impulses(r)
  n = numel(r.time) - 1;
  normal = zeros(n, 1);
  friction = zeros(n, 1);
  c = r.contacts;
  for i = 1:numel(c.step)
    k = double(c.step(i));
    normal(k) = normal(k) + c.normal_impulse(i);
    friction(k) = friction(k) + norm(c.friction_impulse(i, :));
  end
end

% The 2-D / 3-D figure: rows x, y (, z), rotation, energy / impulses; two columns.
function plot_nd(r)
  max_bodies = 10;
  dim = double(r.parameters.dimension);
  t = double(r.time);
  rows = dim + 2;
  moving = find(double(r.bodies.nq) > 0);
  shown = moving(1:min(numel(moving), max_bodies));
  names = r.bodies.name(shown);
  nshown = numel(shown);
  P = cell(1, nshown);
  V = cell(1, nshown);
  A = cell(1, nshown);
  W = cell(1, nshown);
  for j = 1:nshown
    P{j} = r.position(shown(j));
    V{j} = r.velocity(shown(j));
    if dim == 2
      A{j} = r.orientation(shown(j));
      W{j} = r.angular_velocity(shown(j));
    else
      quat = r.orientation(shown(j));         % no chained indexing: Matlab too
      qw = min(abs(quat(:, 1)), 1);
      A{j} = 2 * acos(qw);
      W{j} = sqrt(sum(r.angular_velocity(shown(j)) .^ 2, 2));
    end
  end
  axes_names = 'xyz';
  tl = [t(1) max(t(end), t(1) + eps)];
  for a = 1:dim + 1
    for side = 1:2
      subplot(rows, 2, 2 * (a - 1) + side);
      hold on;
      for j = 1:nshown
        if a <= dim && side == 1
          y = P{j}(:, a);
        elseif a <= dim
          y = V{j}(:, a);
        elseif side == 1
          y = A{j};
        else
          y = W{j};
        end
        plot(t, y);
      end
      hold off;
      if a <= dim && side == 1
        ylabel(sprintf('%s [m]', axes_names(a)));
      elseif a <= dim
        ylabel(sprintf('v%s [m/s]', axes_names(a)));
      elseif dim == 2
        ylabel(ifelse_str(side == 1, 'theta [rad]', 'omega [rad/s]'));
      else
        ylabel(ifelse_str(side == 1, 'rotation angle [rad]', '|w| [rad/s]'));
      end
      xlim(tl);
      grid on;
      if a == 1 && side == 1
        if nshown > 0
          legend(names, 'location', 'best');
        end
        if nshown < numel(moving)
          title(sprintf('positions (first %d of %d moving bodies)', nshown, numel(moving)));
        else
          title('positions');
        end
      elseif a == 1
        title(sprintf('velocities: lcpsim %d-D run, %s, h = %g s, %d steps', dim, ...
                      r.parameters.solver_name, r.parameters.time_step, numel(t) - 1));
      end
    end
  end
  subplot(rows, 2, 2 * rows - 1);
  ke = double(r.energy.kinetic);
  pe = double(r.energy.potential);
  plot(t, ke, t, pe, t, ke + pe, 'k');
  legend({'kinetic', 'potential', 'total'}, 'location', 'best');
  ylabel('energy [J]');
  xlabel('time [s]');
  xlim(tl);
  grid on;
  subplot(rows, 2, 2 * rows);
  [normal, friction] = step_impulses(r);
  plot(t(2:end), normal, t(2:end), friction);
  legend({'normal (sum)', 'friction (sum of norms)'}, 'location', 'best');
  ylabel('impulse per step [N*s]');
  xlabel('time [s]');
  xlim(tl);
  grid on;
end

function s = ifelse_str(c, a, b)
  if c
    s = a;
  else
    s = b;
  end
end
