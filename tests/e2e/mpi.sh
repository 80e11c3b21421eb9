#!/bin/sh
# Comparisons over MPI ranks: `mpirun -np 2 lcpsim compare ...` writes the serial run's
# file, timings apart (scripts/compare_files_equal.py), for a frictional contact set, an
# LCP set and a scene in shadow mode; modes that run serially are refused with exit 2.
set -u
S=${LSIM_SHARED:-../shared}/data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "mpi: $*" >&2; exit 1; }
# root in containers and CI: Open MPI asks for these; two ranks on any machine.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
MPI="mpirun -np 2"
EQ="/usr/bin/python3 scripts/compare_files_equal.py"

run_both() { # name, then compare arguments
  name=$1; shift
  ./lcpsim compare "$@" -o "$tmp/$name.serial.h5" --quiet || fail "$name serial: exit $?"
  $MPI ./lcpsim compare "$@" -o "$tmp/$name.mpi.h5" --quiet > "$tmp/$name.out" 2>&1 || fail "$name mpi: exit $? $(cat "$tmp/$name.out")"
  $EQ "$tmp/$name.serial.h5" "$tmp/$name.mpi.h5" > "$tmp/$name.eq" || fail "$name: $(cat "$tmp/$name.eq")"
  ls "$tmp" | grep -q "rank" && fail "$name: a rank's scratch file was left"
}
run_both fc "$S/siconos-fc3d/FC3D_Example1.dat" "$S/siconos-fc3d/Rover1039.dat" \
  "$S/siconos-fc3d/NESpheres_10_1.dat" "$S/siconos-fc3d/FrictionContactProblem00031.dat" \
  "$S/siconos-fc3d/Box_Stacks-i0122-82-5.hdf5" --solvers 'nsgs,siconos:fc3d_nsgs,lemke[d=8]'
run_both lcp $(ls "$S"/siconos-lcp/lcp_CPS_*.dat "$S"/siconos-lcp/lcp_mmc.dat 2>/dev/null) --solvers 'lemke,pgs'
run_both shadow data/brick_friction.json --steps 40 --solvers 'lemke,pgs'
run_both trajectory data/incline_2d.json --steps 20 --solvers 'lemke,pgs' --trajectory
# A job whose rank 0 is killed (kill -9; mpirun then ends rank 1) leaves rank 0's
# PATH.<pid>.partial, as a killed comparison does, and no scratch file of rank 1's: its
# name goes once the file is open (before, OUT.h5.rank1.partial stayed in the folder).
$MPI ./lcpsim compare data/brick_friction.json --steps 200000 --solvers lemke,pgs \
  -o "$tmp/killed.h5" --quiet > "$tmp/killed.out" 2>&1 &
job=$!
i=0
while [ $i -lt 300 ] && ! ls "$tmp"/killed.h5.*.partial > /dev/null 2>&1; do sleep 0.1; i=$((i + 1)); done
sleep 1 # (rank 1 past its header too: the ranks meet after their headers)
p=$(ls "$tmp"/killed.h5.*.partial 2> /dev/null | grep -v rank | sed 's/.*killed\.h5\.\([0-9]*\)\.partial$/\1/')
[ -n "$p" ] || fail "killed: rank 0's partial file did not appear: $(ls "$tmp")"
kill -9 "$p"
wait $job
ls "$tmp" | grep -q "killed.h5.$p.partial" || fail "killed: rank 0's partial file is gone: $(ls "$tmp")"
ls "$tmp" | grep -q "rank" && fail "killed: a rank's scratch file was left: $(ls "$tmp")"
# Serial-only modes are refused under two ranks, with one message.
$MPI ./lcpsim compare data/brick_friction.json --mode independent --solvers lemke,pgs \
  -o "$tmp/x.h5" > "$tmp/ind.out" 2>&1
[ $? -ne 0 ] && grep -q "runs serially" "$tmp/ind.out" || fail "independent under mpirun: $(cat "$tmp/ind.out")"
# A comparison stopped by its dense reference (pile_10: step 9, n = 48 > 30) stops on every
# rank at the same step: the file is the serial one's, and the line saying so comes once,
# from rank 0, which writes the file it names (every rank had printed it).
./lcpsim compare data/pile_10.json --steps 60 --dense-limit 30 --solvers lemke,pgs \
  -o "$tmp/stop.serial.h5" --quiet 2> /dev/null
[ $? -eq 1 ] || fail "stopped serial: exit not 1"
$MPI ./lcpsim compare data/pile_10.json --steps 60 --dense-limit 30 --solvers lemke,pgs \
  -o "$tmp/stop.mpi.h5" --quiet > "$tmp/stop.out" 2>&1
[ $? -ne 0 ] || fail "stopped under mpirun: exit 0"
$EQ "$tmp/stop.serial.h5" "$tmp/stop.mpi.h5" > "$tmp/stop.eq" || fail "stopped: $(cat "$tmp/stop.eq")"
n=$(grep -c "lcpsim compare: stopped at step 9" "$tmp/stop.out")
[ "$n" -eq 1 ] || fail "stopped under mpirun: the line came $n times: $(cat "$tmp/stop.out")"
echo "mpi: 2 ranks give the serial files (frictional contact set, LCP set, shadow scene, its --trajectory, a stopped comparison); a killed job leaves no scratch file"
