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
# The job cannot end before the kill on any machine: box_stack_3d's resting stack has its
# 20 contacts (a 120-variable LCP) from the first step on, about 8 ms of CPU a step here
# (0.78 s user for 100 steps serial), so 200 000 steps are some 1500 s of work; the same
# steps of brick_friction are some 1.7 s (0.17 s user for 20 000), and that comparison
# once ended (its file renamed whole) before the test killed it. Rank 0 is killed once
# its partial file is there and rank 1 holds its scratch file open with the name gone
# (/proc/PID/fd), the state the test is about, with no sleep: under MPI no row reaches
# rank 0's file before the end (its flushed_rows stay 0), so a flushed step never comes.
$MPI ./lcpsim compare data/box_stack_3d.json --steps 200000 --solvers lemke,pgs \
  -o "$tmp/killed.h5" --quiet > "$tmp/killed.out" 2>&1 &
job=$!
jobfail() { kill "$job" 2> /dev/null; wait "$job"; fail "$@"; } # (mpirun ends its ranks)
# rank1_unlinked PID0: a rank of the job other than PID0 holds killed.h5.rank1.partial
# open, its name gone.
rank1_unlinked() {
  for r in $(ps -o pid= --ppid "$job"); do
    [ "$r" = "$1" ] && continue
    ls -l "/proc/$r/fd" 2> /dev/null | grep -q "killed\.h5\.rank1\.partial (deleted)" && return 0
  done
  return 1
}
end=$(($(date +%s) + 120))
p=
until [ -n "$p" ] && rank1_unlinked "$p"; do
  [ "$(date +%s)" -lt $end ] || jobfail "killed: after 120 s, rank 0's partial file: '$p', files: $(ls "$tmp")"
  [ ! -e "$tmp/killed.h5" ] || jobfail "killed: the job ended before its kill: $(ls "$tmp") $(cat "$tmp/killed.out")"
  sleep 0.1
  p=$(ls "$tmp"/killed.h5.*.partial 2> /dev/null | grep -v rank | sed 's/.*killed\.h5\.\([0-9]*\)\.partial$/\1/')
done
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
