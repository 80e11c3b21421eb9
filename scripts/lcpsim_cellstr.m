% c = lcpsim_cellstr(x): a char matrix (one string per row) or a cell as a cell column of
% trimmed strings (NUL padding removed). Shared by the loaders (lcpsim_load.m,
% lcpsim_compare_load.m, lcpsim_lcp_problem.m).
function c = lcpsim_cellstr(x)
  if iscell(x)
    c = cellfun(@(s) deblank(lcpsim_strip_nul(s)), x(:), 'UniformOutput', false);
  elseif isempty(x)
    c = cell(0, 1);
  else
    x(x == char(0)) = ' ';
    c = cellstr(x);
    c = c(:);
  end
end
