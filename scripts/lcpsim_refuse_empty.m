% lcpsim_refuse_empty(who, path, src): after load(src) failed on the file named path, stops
% with an error in lcpsim view's words when the HDF5 file holds nothing (an empty root
% group: a run killed before its header's flush reached the file), where load() said 'value
% on right hand side of assignment is undefined'; returns otherwise (the caller reports
% load()'s own error). Shared by the loaders (lcpsim_load.m, lcpsim_compare_load.m).
function lcpsim_refuse_empty(who, path, src)
  empty = false;
  try
    empty = isempty(whos('-file', src));
  catch
  end
  if empty
    error(['%s: %s: not an lcpsim file (no /format_version and /lcpsim_version): ' ...
           'it holds nothing (an HDF5 file with an empty root group: a run killed ' ...
           'before its first flush, the header''s, reached the file)'], who, path);
  end
end
