function info = h5info(path, group)
% Test-only shim of Matlab's h5info (tests/e2e/matlab_branch.sh) for the fields the
% loaders read: info.Datasets(i).Name, .Datatype.Class, .Dataspace.Size (Matlab's
% order: the HDF5 shape reversed; [] for a scalar), .Dataspace.Type ('scalar' or
% 'simple'); info.Groups(i).Name (full paths). The file is dumped once by
% h5_shim_dump.py (h5py).
  if nargin < 2
    group = '/';
  end
  m = h5_shim_manifest(path);
  if ~any(strcmp(m.groups, group))
    error('h5info: %s: no group %s', path, group);
  end
  info = struct('Filename', path, 'Name', group);
  ds = struct('Name', {}, 'Datatype', {}, 'Dataspace', {});
  for i = find(strcmp(m.dgroup, group))'
    d.Name = m.dname{i};
    d.Datatype = struct('Class', m.dclass{i});
    d.Dataspace = struct('Size', fliplr(m.ddims{i}), 'Type', m.dspace{i});
    ds(end + 1) = d;
  end
  info.Datasets = ds(:);
  gs = struct('Name', {});
  for i = 1:numel(m.groups)
    g = m.groups{i};
    if strcmp(g, '/')
      continue;
    end
    k = find(g == '/', 1, 'last');
    parent = g(1:k - 1);
    if isempty(parent)
      parent = '/';
    end
    if strcmp(parent, group)
      gs(end + 1).Name = g;
    end
  end
  info.Groups = gs(:);
end
