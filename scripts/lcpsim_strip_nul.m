% s = lcpsim_strip_nul(s): a fixed-length string without its NUL terminator and anything
% after it (HDF5's padding); anything else unchanged. Shared by the loaders
% (lcpsim_load.m, lcpsim_compare_load.m, lcpsim_lcp_problem.m).
function s = lcpsim_strip_nul(s)
  if ischar(s) && size(s, 1) <= 1
    k = find(s == char(0), 1);
    if ~isempty(k)
      s = s(1:k-1);
    end
    if isempty(s)  % one empty string whatever its reader gave (0 x 0 or 1 x 0)
      s = '';
    end
  end
end
