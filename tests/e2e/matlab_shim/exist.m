function r = exist(name, varargin)
% Test-only shim (tests/e2e/matlab_branch.sh): exist('OCTAVE_VERSION', ...) answers 0,
% as Matlab does, while the global LCPSIM_SHIM_MATLAB is true (or, a cell of function
% names, when asked from one of them), so that the scripts take their Matlab branch under
% Octave; every other question goes to the built-in. Counts the answers in the global
% LCPSIM_SHIM_ASKED.
  global LCPSIM_SHIM_MATLAB LCPSIM_SHIM_ASKED
  if ischar(name) && strcmp(name, 'OCTAVE_VERSION') && ~isempty(LCPSIM_SHIM_MATLAB)
    force = isequal(LCPSIM_SHIM_MATLAB, true);
    if iscell(LCPSIM_SHIM_MATLAB)
      s = dbstack();
      force = numel(s) >= 2 && any(strcmp(s(2).name, LCPSIM_SHIM_MATLAB));
    end
    if force
      LCPSIM_SHIM_ASKED = [LCPSIM_SHIM_ASKED 1];
      r = 0;
      return;
    end
  end
  r = builtin('exist', name, varargin{:});
end
