function x = h5read(path, name)
% Test-only shim of Matlab's h5read (tests/e2e/matlab_branch.sh), in Matlab's
% conventions: the HDF5 shape reversed (a [N, c] dataset as c x N, [n, a, 3] as
% 3 x a x n), a 1-D dataset as an N x 1 column, integers in their own class. Fixed-length
% strings as stored (NUL padded): a char matrix with one string per column (older Matlab),
% or with the global LCPSIM_SHIM_STRINGS = 'cell' a cell array of the shape (newer
% Matlab). Counts its calls in the global LCPSIM_SHIM_READS.
  global LCPSIM_SHIM_READS LCPSIM_SHIM_STRINGS
  m = h5_shim_manifest(path);
  k = find(strcmp(m.dpath, name), 1);
  if isempty(k)
    error('h5read: %s: no dataset %s', path, name);
  end
  LCPSIM_SHIM_READS = [LCPSIM_SHIM_READS 1];
  dims = fliplr(m.ddims{k});  % Matlab's shape
  if isempty(dims)
    dims = [1 1];
  elseif numel(dims) == 1
    dims = [dims 1];
  end
  fid = fopen(fullfile(m.dir, m.dfile{k}), 'r');
  if strcmp(m.dclass{k}, 'H5T_STRING')
    L = m.dstrlen(k);
    x = fread(fid, [1 Inf], 'uint8=>char');
    fclose(fid);
    x = reshape(x, [L dims]);  % one string per column
    if strcmp(m.dspace{k}, 'scalar')
      x = x(:).';
      if strcmp(LCPSIM_SHIM_STRINGS, 'cell')
        x = {x};
      end
    elseif strcmp(LCPSIM_SHIM_STRINGS, 'cell')
      c = cell(dims);
      for i = 1:numel(c)
        c{i} = x(:, i).';
      end
      x = c;
    end
    return;
  end
  p = m.dprec{k};
  x = fread(fid, Inf, [p '=>' p], 0, 'ieee-le');
  fclose(fid);
  x = reshape(x, dims);
end
