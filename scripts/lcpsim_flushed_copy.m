function [src, tmp] = lcpsim_flushed_copy(path, who, want)
% LCPSIM_FLUSHED_COPY  The file to read for path: path itself, or, for the file a killed
% writer of a kind in want left ('compare', 'hybrid', or 'run': a time-stepping run, no
% /file_kind; one or a cell array of them) (no /summary, with its marks /flushed_rows
% ..., a run's at least 1), a
% copy cut to its last whole flush made by scripts/lcpsim_cut.py (tmp: remove it after
% reading; '' when none). No copy is made when the marks cover the whole file (a kill
% between two flushes: nothing past them; lcpsim_cut.py --if-needed): path is read. The rows past the marks are of a flush the kill cut short: they
% read as 0, or not at all ("addr overflow"), and Octave's load() reads every dataset
% whole (docs/output-format.md, "Killed runs"). What was left out is said in a warning
% (identifier lcpsim:cut) of who (the loader's name).
  src = path;
  tmp = '';
  % A run file cut before its first complete flush (its head, the first 512 bytes before
  % HDF5's superblock, not marked whole; lcp/h5check.h): refused on those bytes, read
  % plainly, before HDF5 reads the file (what it holds can crash HDF5, and Octave with it).
  fid = fopen(path, 'r');
  if fid >= 0
    head = fread(fid, 520, 'uint8=>uint8')';
    fclose(fid);
    sig = uint8([137 72 68 70 13 10 26 10]);
    pending = uint8('lcpsim run file: being written');
    if numel(head) == 520 && isequal(head(513:520), sig) && ~isequal(head(1:8), sig) && ...
       (isequal(head(1:numel(pending)), pending) || ~any(head(1:512)))
      error('lcpsim:cut_early', ['%s: %s: cut before its first complete flush (a run killed ' ...
            'while it wrote its header and first rows; HDF5 could crash on what it holds): ' ...
            'nothing in it can be read, run the scene again'], who, path);
    end
  end
  if exist('OCTAVE_VERSION', 'builtin')
    try
      probe = load(path, 'summary', 'flushed_rows', 'file_kind');
    catch
      return;  % the loader's own read says what is wrong
    end
    names = fieldnames(probe);
    kind = 'run';
    if isfield(probe, 'file_kind')
      kind = lcpsim_strip_nul(probe.file_kind);
    end
    flushed = 0;
    if isfield(probe, 'flushed_rows')
      flushed = double(probe.flushed_rows);
    end
  else
    info = h5info(path, '/');
    names = [{info.Datasets.Name}, cellfun(@(g) g(2:end), {info.Groups.Name}, 'UniformOutput', false)];
    kind = 'run';
    if any(strcmp(names, 'file_kind'))
      kind = h5read(path, '/file_kind');
      if iscell(kind)
        kind = kind{1};
      end
      kind = lcpsim_strip_nul(kind(:).');
    end
    flushed = 0;
    if any(strcmp(names, 'flushed_rows'))
      flushed = double(h5read(path, '/flushed_rows'));
    end
  end
  % (a run killed before its first flush, /flushed_rows 0, is read as it is)
  if any(strcmp(names, 'summary')) || ~any(strcmp(names, 'flushed_rows')) || ...
     ~any(strcmp(kind, cellstr(want))) || (strcmp(kind, 'run') && flushed < 1)
    return;
  end
  tmp = [tempname() '.h5'];
  python = '/usr/bin/python3';
  if ~exist(python, 'file')
    python = 'python3';
  end
  script = fullfile(fileparts(mfilename('fullpath')), 'lcpsim_cut.py');
  q = @(s) ['''' strrep(s, '''', '''\''''') ''''];
  % (--if-needed: no copy when nothing lies past the marks, exit status 3: path is read)
  [status, out] = system([python ' ' q(script) ' --if-needed ' q(path) ' ' q(tmp) ' 2>&1']);
  if status == 3
    tmp = '';
    return;
  end
  if status ~= 0
    if exist(tmp, 'file')
      delete(tmp);
    end
    error('%s: %s: a killed writer''s file: cannot cut it to its last whole flush: %s', ...
          who, path, strtrim(out));
  end
  src = tmp;
  note = strtrim(out);
  if ~isempty(note)
    warning('lcpsim:cut', '%s: note: %s: %s', who, path, note);
  end
end
