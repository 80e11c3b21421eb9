#!/bin/sh
# The Python binding (python/lcpsim over build/liblcpsim.so) against closed forms, and the
# cart-and-wall example script reproducing Tedrake's numbers.
set -e
export PYTHONPATH="$PWD/python" LCPSIM_LIBRARY="$PWD/build/liblcpsim.so.0"
/usr/bin/python3 tests/e2e/check_python.py
/usr/bin/python3 examples/cart_wall.py | tail -1
