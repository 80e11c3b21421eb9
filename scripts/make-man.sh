#!/bin/sh
# make-man.sh LCPSIM VERSION > lcpsim.1: the manual page lcpsim(1), written from the
# command's own help (lcpsim --help and lcpsim COMMAND --help), so the two cannot differ.
set -e
bin=$1
version=$2
# Escapes for troff: backslashes, and a leading dot or quote on a line.
esc() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }
cat <<HEAD
.TH LCPSIM 1 "" "lcpsim $version" "User Commands"
.SH NAME
lcpsim \\- time-stepping rigid-body contact simulation with complementarity solvers
.SH SYNOPSIS
.nf
HEAD
"$bin" --help | sed -n '/^usage:/,/^$/p' | sed -e '1d' -e '/^$/d' -e 's/^  //' | esc
cat <<'MID'
.fi
.SH DESCRIPTION
.B lcpsim
reads a scene (a JSON file describing bodies, shapes, tethers, joints and a solver) and
simulates it: each step assembles the Stewart\-Trinkle impulse\-velocity linear
complementarity problem (semi\-implicit Euler, polyhedral friction cone), hands it to a
complementarity solver chosen by name (its own Lemke and PGS, or any usable Siconos
Numerics solver), and integrates. Trajectories, impulses and per\-step solver records go
to an HDF5 file. The same solvers can be compared on identical problems, and single LCPs
solved from Siconos .dat files.
.SH COMMANDS
MID
# Every command the synopsis names (but solvers, below), each with its own help.
commands=$("$bin" --help | sed -n 's/^  lcpsim \([a-z][a-z]*\)\( .*\)\{0,1\}$/\1/p' | awk '!seen[$0]++' |
           grep -v '^solvers$')
for c in $commands; do
  echo ".SS $c"
  echo ".nf"
  "$bin" $c --help 2>&1 | esc
  echo ".fi"
done
cat <<'TAIL'
.SS solvers
Lists the solver names, one a line.
.SH EXIT STATUS
0 success; 1 a solver did not solve (on some step); 2 bad input; 130 interrupted.
.SH FILES
.TP
.I PREFIX/share/lcpsim/data
example scenes, each documented in its "description"
.TP
.I PREFIX/share/lcpsim/scripts
analysis and plotting in Python (lcpsim_load.py, lcpsim_plot.py, lcpsim_animate.py) and
Matlab/Octave (lcpsim_load.m, lcpsim_plot.m)
.TP
.I PREFIX/include/lcpsim/lcpsim.h
the C library's interface (pkg\-config lcpsim)
.SH SEE ALSO
The scene format, the output format and the solver notes are in the source tree under
docs/ (scene\-format.md, output\-format.md, solvers.md).
TAIL
