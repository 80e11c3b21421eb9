#!/usr/bin/python3
"""Remakes the seed corpus of the fuzz targets (tests/fuzz/corpus/NAME), from the
repository root: small text files are copied from data/, tests/data and ../shared/data;
HDF5 seeds are made by ./lcpsim (run and compare files with --dump-lcp) and rewritten
compact: only the groups a reader looks at, every dataset contiguous and unfiltered, so
that a mutated byte is a mutated number or size rather than a broken chunk index."""
import glob
import os
import shutil
import subprocess
import sys
import tempfile

import h5py

ROOT = os.getcwd()
SHARED = os.environ.get("LSIM_SHARED", "../shared")
OUT = os.path.join(ROOT, "tests", "fuzz", "corpus")


def copy_small(target, patterns, limit):
    """Copies the files matching patterns up to limit bytes into corpus/target."""
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    for pat in patterns:
        for f in sorted(glob.glob(pat)):
            if os.path.getsize(f) <= limit and not f.endswith("schema.json"):
                shutil.copy(f, os.path.join(d, os.path.basename(f)))


def compact(src, dst, groups):
    """Writes the named groups of src into dst: contiguous datasets, attributes kept."""
    with h5py.File(src, "r") as fi, h5py.File(dst, "w", libver="earliest") as fo:
        def copy_attrs(a, b):
            for k, v in a.attrs.items():
                b.attrs[k] = v

        def visit(name, obj):
            if isinstance(obj, h5py.Group):
                copy_attrs(obj, fo.require_group(name))
            else:
                ds = fo.create_dataset(name, data=obj[()], dtype=obj.dtype)
                copy_attrs(obj, ds)

        for g in groups:
            if g in fi:
                obj = fi[g]
                if isinstance(obj, h5py.Group):
                    copy_attrs(obj, fo.require_group(g))
                    obj.visititems(lambda n, o, g=g: visit(g + "/" + n, o))
                else:
                    visit(g, obj)
        copy_attrs(fi, fo)


def lcpsim(*args):
    subprocess.run(["./lcpsim", *args, "--quiet"], check=True, stdout=subprocess.DEVNULL)


def main():
    copy_small("scene", ["data/*.json"], 2100)
    for big in ("pile_100.json", "pile_1000.json"):  # 100 and 1000 bodies: slow to load
        os.remove(os.path.join(OUT, "scene", big))
    copy_small("hybrid", ["data/slip.json", "data/bouncing_mass.json"], 4000)
    copy_small("dat", [SHARED + "/data/siconos-lcp/*.dat"], 5000)
    copy_small("fc_dat", [SHARED + "/data/siconos-fc3d/*.dat"], 6000)
    with tempfile.TemporaryDirectory() as tmp:
        for name, scene, steps, extra in [
                ("two_blocks", "data/two_blocks.json", "3", []),
                ("box_slide_3d", "data/box_slide_3d.json", "2", []),
                ("balls_2d", "data/balls_collide_2d.json", "3", []),
                # factored forms only (no M stored)
                ("box_slide_3d_factored", "data/box_slide_3d.json", "2",
                 ["--dump-dense-limit", "0"])]:
            run = os.path.join(tmp, name + ".h5")
            lcpsim(scene, "--steps", steps, "--dump-lcp", *extra, "-o", run)
            os.makedirs(os.path.join(OUT, "run_h5"), exist_ok=True)
            compact(run, os.path.join(OUT, "run_h5", name + ".h5"), ["/lcp"])
        for name, scene, mode, solvers, extra in [
                ("two_blocks", "data/two_blocks.json", "shadow", "lemke,pgs", []),
                ("box_slide_3d", "data/box_slide_3d.json", "independent", "lemke,pgs", []),
                # factored forms only (n = 24 above the dense limit; Lemke skipped)
                ("box_slide_3d_factored", "data/box_slide_3d.json", "independent", "pgs,lemke",
                 ["--dense-limit", "10"])]:
            cmp = os.path.join(tmp, name + "_compare.h5")
            lcpsim("compare", scene, "--solvers", solvers, "--mode", mode, "--steps", "2",
                   "--dump-lcp", *extra, "-o", cmp)
            os.makedirs(os.path.join(OUT, "compare_h5"), exist_ok=True)
            compact(cmp, os.path.join(OUT, "compare_h5", name + ".h5"), ["/lcp"])
    os.makedirs(os.path.join(OUT, "fclib_h5"), exist_ok=True)
    src = SHARED + "/data/siconos-fc3d/Box_Stacks-i0122-82-5.hdf5"
    compact(src, os.path.join(OUT, "fclib_h5", "Box_Stacks.hdf5"), ["/"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
