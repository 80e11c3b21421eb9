"""Test-only helper of tests/e2e/matlab_shim: dumps an HDF5 file for the h5info / h5read
shims, in the conventions of Matlab's functions, so that the Matlab branch of the
loaders (scripts/lcpsim_load.m, scripts/lcpsim_compare_load.m) runs under Octave.

usage: h5_shim_dump.py FILE.h5 OUTDIR

OUTDIR/manifest.txt has one line per group ("G<TAB>/path") and per dataset
("D<TAB>/group<TAB>name<TAB>class<TAB>precision<TAB>spacetype<TAB>dims<TAB>strlen<TAB>file"):
class is Matlab's Datatype.Class (H5T_FLOAT, H5T_INTEGER, H5T_STRING), precision an
Octave fread precision, spacetype 'scalar' or 'simple', dims the HDF5 (C order) shape
comma-separated, file the raw bytes in C order. Read column-major into the reversed
shape, C-order bytes give exactly what Matlab's h5read returns (dims reversed; a 1-D
dataset an N x 1 column)."""
import os
import sys

import h5py
import numpy as np

PRECISION = {"f8": "double", "f4": "single", "i1": "int8", "i2": "int16", "i4": "int32",
             "i8": "int64", "u1": "uint8", "u2": "uint16", "u4": "uint32", "u8": "uint64"}


def main():
    path, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    lines = ["G\t/"]
    count = [0]
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            full = "/" + name
            if isinstance(obj, h5py.Group):
                lines.append("G\t" + full)
                return
            group, base = full.rsplit("/", 1)
            group = group or "/"
            dt = obj.dtype
            spacetype = "scalar" if obj.shape == () else "simple"
            dims = ",".join(str(d) for d in obj.shape)
            data = obj[()]
            if dt.kind == "S":  # fixed-length strings: the bytes as stored, NUL padded
                cls, prec, strlen = "H5T_STRING", "char", dt.itemsize
                raw = np.asarray(data, dtype=dt).tobytes()
            elif dt.kind in "iuf":
                key = dt.kind + str(dt.itemsize)
                cls = "H5T_FLOAT" if dt.kind == "f" else "H5T_INTEGER"
                prec, strlen = PRECISION[key], 0
                raw = np.ascontiguousarray(data, dtype=dt.newbyteorder("<")).tobytes()
            else:
                sys.exit("h5_shim_dump: %s: datatype %s is not handled by the shim" % (full, dt))
            count[0] += 1
            fname = "d%05d.bin" % count[0]
            with open(os.path.join(out, fname), "wb") as b:
                b.write(raw)
            lines.append("\t".join(["D", group, base, cls, prec, spacetype, dims, str(strlen), fname]))
        f.visititems(visit)
    with open(os.path.join(out, "manifest.txt"), "w") as m:
        m.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
