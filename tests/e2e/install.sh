#!/bin/sh
# make install into a fresh prefix: the command, both libraries (soname), the header, the
# pkg-config file, the manual page, scripts and scenes; the PD pendulum example built
# against it through pkg-config (shared and static) and run: its forces at rest must
# balance the moments about the pivot; make uninstall leaves the prefix empty.
set -e
tmp=$(mktemp -d /tmp/lsim_e2e_install_XXXXXX)
trap 'rm -rf "$tmp"' EXIT
p=$tmp/prefix
make -s install PREFIX="$p" > "$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; exit 1; }
for f in bin/lcpsim lib/liblcpsim.a lib/liblcpsim.so include/lcpsim/lcpsim.h \
         lib/pkgconfig/lcpsim.pc share/man/man1/lcpsim.1 share/lcpsim/data/cart_wall.json \
         share/lcpsim/scripts/lcpsim_load.py share/lcpsim/examples/pd_pendulum.c; do
  [ -e "$p/$f" ] || { echo "missing after install: $f"; exit 1; }
done
soname=$(readelf -d "$p/lib/liblcpsim.so" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
[ "$soname" = liblcpsim.so.0 ] || { echo "soname '$soname', expected liblcpsim.so.0"; exit 1; }
# The manual page documents every command (and renders, where man is installed).
for c in $("$p/bin/lcpsim" --help | sed -n 's/^  lcpsim \([a-z][a-z]*\)\( .*\)\{0,1\}$/\1/p'); do
  grep -q "^\.SS $c\$" "$p/share/man/man1/lcpsim.1" || { echo "lcpsim.1: no section for '$c'"; exit 1; }
done
if command -v man > /dev/null; then
  man -l "$p/share/man/man1/lcpsim.1" 2>/dev/null | grep -q "^   compare" || { echo "lcpsim.1 does not render"; exit 1; }
fi
# The installed command runs an installed scene.
(cd "$tmp" && "$p/bin/lcpsim" "$p/share/lcpsim/data/two_blocks.json" -o two.h5 --quiet)
# The example, through pkg-config: shared, then static.
export PKG_CONFIG_PATH="$p/lib/pkgconfig"
ex=$p/share/lcpsim/examples/pd_pendulum.c
cc -std=c11 -Wall -Wextra -Werror $(pkg-config --cflags lcpsim) "$ex" $(pkg-config --libs lcpsim) -lm \
  -o "$tmp/pd_shared"
cc -std=c11 -Wall -Wextra -Werror $(pkg-config --cflags lcpsim) "$ex" "$p/lib/liblcpsim.a" \
  $(pkg-config --static --libs lcpsim | sed 's/-llcpsim//') -lm -o "$tmp/pd_static"
LD_LIBRARY_PATH="$p/lib" ldd "$tmp/pd_shared" | grep -q "liblcpsim.so.0 => $p/lib" ||
  { echo "the shared example does not load $p/lib/liblcpsim.so.0"; exit 1; }
LD_LIBRARY_PATH="$p/lib" "$tmp/pd_shared" > "$tmp/shared.txt"
"$tmp/pd_static" > "$tmp/static.txt"
cmp "$tmp/shared.txt" "$tmp/static.txt" || { echo "shared and static examples differ"; exit 1; }
cat "$tmp/shared.txt"
# At rest: the box against the wall, and the three forces equal. The moment balance holds
# to the joint's drift and the solver's tolerance: 1e-6 relative is far above both (the
# pin's drift at rest is below 1e-9 m) and far below any modelling error (a wrong lever
# arm or torque sign moves F by 10 % or more).
awk '/^theta/ { face = $12; wall = $16; sub(/\)/, "", wall) }
     /^push/  { p = $3; b = $8; w = $13 }
     END {
       rel = 1e-6
       if (p < 1) { print "push " p " N: the pendulum does not push"; exit 1 }
       if (face < wall - 1e-6 || face > wall + 1e-6) { print "box face " face " not at the wall " wall; exit 1 }
       if ((b - p) > rel * p || (p - b) > rel * p) { print "bob force " b " vs predicted " p; exit 1 }
       if ((w - p) > rel * p || (p - w) > rel * p) { print "wall force " w " vs predicted " p; exit 1 }
       print "install: forces balance to 1e-6 (push " p " N)" }' "$tmp/shared.txt"
# The Python binding as installed finds the installed library by itself.
PYTHONPATH="$p/share/lcpsim/python" /usr/bin/python3 "$p/share/lcpsim/examples/cart_wall.py" | tail -1
make -s uninstall PREFIX="$p" > /dev/null 2>&1
left=$(find "$p" -type f -o -type l | wc -l)
[ "$left" = 0 ] || { echo "uninstall left $left files:"; find "$p" -type f -o -type l; exit 1; }
echo "install: ok"
