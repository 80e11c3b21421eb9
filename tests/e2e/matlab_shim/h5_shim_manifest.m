function m = h5_shim_manifest(path)
% Test-only (tests/e2e/matlab_shim): the dump of an HDF5 file by h5_shim_dump.py, made
% once per file and kept (keyed by the path, its modification time and size), under
% $LCPSIM_SHIM_TMP (else the temporary folder).
  persistent cache
  if isempty(cache)
    cache = struct('key', {}, 'm', {});
  end
  d = dir(path);
  if isempty(d)
    error('h5_shim: %s: no such file', path);
  end
  key = sprintf('%s@%.17g@%d', path, d.datenum, d.bytes);
  for i = 1:numel(cache)
    if strcmp(cache(i).key, key)
      m = cache(i).m;
      return;
    end
  end
  here = fileparts(mfilename('fullpath'));
  base = getenv('LCPSIM_SHIM_TMP');  % the test's folder, removed with it
  if isempty(base)
    base = tempdir();
  end
  out = tempname(base);
  [st, msg] = system(sprintf('/usr/bin/python3 %s %s %s 2>&1', ...
                             fullfile(here, 'h5_shim_dump.py'), ['"' path '"'], out));
  if st ~= 0
    error('h5_shim: %s: %s', path, msg);
  end
  text = fileread(fullfile(out, 'manifest.txt'));
  lines = strsplit(strtrim(text), "\n");
  m.dir = out;
  m.groups = {};
  m.dgroup = {}; m.dname = {}; m.dpath = {}; m.dclass = {}; m.dprec = {};
  m.dspace = {}; m.ddims = {}; m.dstrlen = []; m.dfile = {};
  for i = 1:numel(lines)
    f = strsplit(lines{i}, "\t", 'CollapseDelimiters', false);
    if strcmp(f{1}, 'G')
      m.groups{end + 1, 1} = f{2};
      continue;
    end
    m.dgroup{end + 1, 1} = f{2};
    m.dname{end + 1, 1} = f{3};
    if strcmp(f{2}, '/')
      m.dpath{end + 1, 1} = ['/' f{3}];
    else
      m.dpath{end + 1, 1} = [f{2} '/' f{3}];
    end
    m.dclass{end + 1, 1} = f{4};
    m.dprec{end + 1, 1} = f{5};
    m.dspace{end + 1, 1} = f{6};
    if isempty(f{7})
      m.ddims{end + 1, 1} = [];
    else
      m.ddims{end + 1, 1} = str2double(strsplit(f{7}, ','));
    end
    m.dstrlen(end + 1, 1) = str2double(f{8});
    m.dfile{end + 1, 1} = f{9};
  end
  cache(end + 1) = struct('key', key, 'm', m);
end
