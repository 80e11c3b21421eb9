#!/bin/sh
# The shared library exports exactly the functions include/lcpsim/lcpsim.h declares (its
# ABI is the header: before, 472 lsim_* symbols for 53 declarations) and enum_init (Siconos'
# function, replaced so that siconos:enum frees its state), and a program's own
# function named like one of the library's internals does not replace it inside the library
# (before, lsim_sim_body_pose called the program's lsim_body_pose).
set -e
tmp=$(mktemp -d /tmp/lsim_e2e_symbols_XXXXXX)
trap 'rm -rf "$tmp"' EXIT
lib=build/liblcpsim.so
[ -e "$lib" ] || { echo "$lib missing: run make"; exit 1; }
# The header's functions: its declarations, comments stripped (no macro expanded).
cc -fpreprocessed -dD -E -P include/lcpsim/lcpsim.h 2>/dev/null | grep -o 'lsim_[a-z0-9_]*[[:space:]]*(' |
  tr -d '( ' | sort -u > "$tmp/header.txt"
# (and enum_init: lcp/siconos_adapter.c's replacement of Siconos' own, which leaked)
nm -D --defined-only "$lib" | awk '{ print $NF }' | grep -vx enum_init | sort -u > "$tmp/exported.txt"
nm -D --defined-only "$lib" | awk '{ print $NF }' | grep -qx enum_init ||
  { echo "$lib does not export enum_init (siconos:enum leaks 32 bytes a solve)"; exit 1; }
nh=$(wc -l < "$tmp/header.txt"); ne=$(wc -l < "$tmp/exported.txt")
[ "$nh" -gt 40 ] || { echo "only $nh functions found in lcpsim.h: the extraction is broken"; exit 1; }
if ! cmp -s "$tmp/header.txt" "$tmp/exported.txt"; then
  echo "$lib exports $ne symbols, include/lcpsim/lcpsim.h declares $nh functions"
  echo "exported, not declared: $(comm -13 "$tmp/header.txt" "$tmp/exported.txt" | wc -l)" \
       "(first: $(comm -13 "$tmp/header.txt" "$tmp/exported.txt" | head -5 | tr '\n' ' '))"
  echo "declared, not exported: $(comm -23 "$tmp/header.txt" "$tmp/exported.txt" | tr '\n' ' ')"
  exit 1
fi
# The checkpoint functions (lsim_sim_save, lsim_sim_restore) are among them: a program can
# save a simulation and continue it elsewhere.
for f in lsim_sim_save lsim_sim_restore; do
  grep -qx "$f" "$tmp/exported.txt" || { echo "$lib does not export $f"; exit 1; }
done
# A program with a function of an internal's name (lsim_body_pose, which lsim_sim_body_pose
# calls inside the library) linked against the shared library: the library's pose must be
# the state's (a 3-D body: q = (x, y, z, qw, qx, qy, qz), copied exactly), and the program's
# function must not be called.
cat > "$tmp/clash.c" <<'CEOF'
#include <lcpsim/lcpsim.h>
#include <stdio.h>
static int called;
void lsim_body_pose(void);
void lsim_body_pose(void) { called = 1; }
int main(int argc, char **argv) {
  LsimSim *sim;
  char err[512];
  if (argc < 2 || lsim_sim_load(&sim, argv[1], err, sizeof err)) { puts(err); return 2; }
  double p[3] = {-1, -1, -1}, quat[4] = {-1, -1, -1, -1};
  int i = 0;
  while (i < lsim_sim_body_count(sim) && lsim_sim_dimension(sim) == 3) {
    LsimBodyInfo b;
    lsim_sim_body(sim, i, &b);
    if (b.type == LSIM_DYNAMIC) break;
    ++i;
  }
  LsimBodyInfo b;
  if (lsim_sim_body(sim, i, &b) || b.nq != 7) { puts("no dynamic 3-D body"); return 2; }
  int rc = lsim_sim_body_pose(sim, i, p, quat);
  const double *q = lsim_sim_q(sim) + b.q_offset;
  int same = rc == 0;
  for (int k = 0; k < 3; ++k) same = same && p[k] == q[k];
  for (int k = 0; k < 4; ++k) same = same && quat[k] == q[3 + k];
  printf("body %d: p (%g %g %g), state (%g %g %g); program's lsim_body_pose called: %d\n", i,
         p[0], p[1], p[2], q[0], q[1], q[2], called);
  lsim_sim_free(sim);
  return same && !called ? 0 : 1;
}
CEOF
cc -std=c11 -Wall -Wextra -Werror -Iinclude "$tmp/clash.c" -Lbuild -llcpsim -o "$tmp/clash"
LD_LIBRARY_PATH=build "$tmp/clash" data/box_slide_3d.json ||
  { echo "the library called the program's lsim_body_pose instead of its own"; exit 1; }
echo "library_symbols: ok ($ne exported = the $nh functions of lcpsim.h; internals not interposed)"
