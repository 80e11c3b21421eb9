% lcpsim_refuse_not_h5(who, path): stops with an error naming path when it is a directory or
% not an HDF5 file (HDF5's signature at byte 0 or after a user block of 512 * 2^k bytes),
% where Octave's load() said 'unable to find file' for a directory and 'unable to determine
% file format' for a .dat problem; returns otherwise. Shared by the loaders
% (lcpsim_load.m, lcpsim_compare_load.m), as lcpsim_load.py's refuse_not_hdf5.
function lcpsim_refuse_not_h5(who, path)
  if exist(path, 'dir') == 7
    error('%s: %s: is a directory, not a run file', who, path);
  end
  fid = fopen(path, 'r');
  if fid < 0
    return;  % (load() says why)
  end
  sig = uint8([137 72 68 70 13 10 26 10]);
  found = false;
  head = uint8(fread(fid, 64, 'uint8=>uint8'))';
  offset = 0;
  while true
    if fseek(fid, offset, 'bof') ~= 0
      break;
    end
    got = uint8(fread(fid, 8, 'uint8=>uint8'))';
    if numel(got) < 8
      break;
    end
    if isequal(got, sig)
      found = true;
      break;
    end
    offset = max(512, 2 * offset);
  end
  fclose(fid);
  if ~found
    text = ~isempty(head) && all((head >= 32 & head < 127) | head == 9 | head == 10 | head == 13);
    hint = '';
    if text
      hint = '; it is text: a Siconos .dat problem is read by lcpsim solve';
    end
    error('%s: %s: not an HDF5 file (lcpsim''s run and compare files are HDF5)%s', who, path, hint);
  end
end
