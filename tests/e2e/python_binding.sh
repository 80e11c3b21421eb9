#!/bin/sh
# The Python binding (python/lcpsim over build/liblcpsim.so) against closed forms, and the
# cart-and-wall example script reproducing Tedrake's numbers; worlds built in Python;
# checkpoints (Sim.save, Sim.restore), also of the command's run files.
set -e
export PYTHONPATH="$PWD/python" LCPSIM_LIBRARY="$PWD/build/liblcpsim.so.0"
[ -x ./lcpsim ] || { echo "./lcpsim missing: run make"; exit 1; }
# (check_python.py compares compare()'s rows with ./lcpsim compare's file)
/usr/bin/python3 tests/e2e/check_python.py
# Worlds built in Python (lcpsim.World) equal to their scenes bit for bit; bad definitions.
/usr/bin/python3 tests/e2e/check_python_build.py
# Checkpoints: a restored Sim continues the straight run to the bit; refusals.
/usr/bin/python3 tests/e2e/check_python_checkpoint.py ./lcpsim
/usr/bin/python3 examples/cart_wall.py | tail -1
