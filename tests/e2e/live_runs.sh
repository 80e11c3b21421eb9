#!/bin/sh
# Runs that meet each other (docs/output-format.md, "Output files", "Resuming a run"):
# - pairs of runs of one -o started together: exactly one runs, the other is refused
#   (before, both could see the other's locked partial file and both were refused: 2 of
#   200 pairs of 60 steps on a loaded 2-core machine, 0 of 200 after; 40 pairs here,
#   which catch that rare race only now and then);
# - --resume of a live run's partial file is refused (exit 2, one line naming the file and
#   its running writer; before, it resumed from the last flush while the writer went on);
#   the same file once its writer is killed resumes;
# - lcpsim view / solve --step / export --step of a live partial file read it, with one note
#   line that a running lcpsim writes it.
# LCPSIM: the binary (./lcpsim).
set -e
PY=/usr/bin/python3
L=${LCPSIM:-./lcpsim}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "live_runs: $*" >&2; exit 1; }

# Pairs: each run of 400 steps of pile_10 takes about 0.3 s; exit 0 for one, 2 for the
# other (or 0 for both when the first ended before the second began, which a pair started
# together does not do here; counted apart and allowed).
both_refused=0 both_ran=0 pairs=${PAIRS:-40}
for k in $(seq 1 $pairs); do
  o="$out/pair$k.h5"
  $L data/pile_10.json --steps 400 -o "$o" --quiet 2> "$out/e1" & a=$!
  $L data/pile_10.json --steps 400 -o "$o" --quiet 2> "$out/e2" & b=$!
  ra=0; wait $a || ra=$?
  rb=0; wait $b || rb=$?
  case "$ra$rb" in
    02|20) ;;
    00) both_ran=$((both_ran + 1)) ;;
    22) both_refused=$((both_refused + 1)) ;;
    *) fail "pair $k: exits $ra and $rb: $(cat "$out/e1" "$out/e2")" ;;
  esac
  [ -f "$o" ] || fail "pair $k: no file"
  rm -f "$o"
done
[ -z "$(ls "$out" | grep partial)" ] || fail "pairs left partial files: $(ls "$out")"
[ $both_refused -eq 0 ] || fail "$both_refused of $pairs pairs started together were both refused"
echo "live_runs: $pairs pairs: exactly one ran in $((pairs - both_ran)), both in $both_ran (the first done first)"

# start_live PATH SCENE ARGS...: starts a live run of SCENE (ARGS more options) writing
# PATH, sets p and part, and returns once a whole flush is in its file. box_stack_3d
# settles and stays (about 5 MB/s of file); box_slide_3d with its LCPs dumped about 8 MB/s.
live=data/box_stack_3d.json
start_live() {
  o=$1; sc=$2; shift 2
  $L $sc --steps 100000000 "$@" -o "$o" --quiet & p=$!
  part="$o.$p.partial"
  end=$(($(date +%s) + 60))
  until [ -f "$part" ] && head -c 31 "$part" | grep -q "flushed whole"; do
    [ "$(date +%s)" -lt $end ] || { kill -9 $p; fail "no whole flush in $part"; }
    sleep 0.1
  done
  sleep 1
}
# resumed PART: a --resume of PART, the exit in rc. Refused, it ends by itself; resumed,
# it is stopped by SIGINT once its own partial file exists (its signals are caught from
# before then: cli/run.c); 120 s at most. (A SIGINT 1 s after the start killed it by the
# signal's default action when a loaded machine had it still reading PART: exit 130, no
# file, where a refusal or an interrupted file are the right outcomes.)
resumed() {
  rc=0
  $L $live --resume "$1" --steps 200000000 -o "$out/res.h5" --quiet 2> "$out/err" & r=$!
  rs_end=$(($(date +%s) + 120))
  while :; do
    rs_state=$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "/proc/$r/status" 2> /dev/null) || rs_state=
    [ -z "$rs_state" ] || [ "$rs_state" = Z ] && break # (ended)
    if [ -f "$out/res.h5.$r.partial" ] || [ "$(date +%s)" -ge $rs_end ]; then
      kill -INT $r 2> /dev/null || true
      break
    fi
    sleep 0.05
  done
  wait $r || rc=$?
}

start_live "$out/live.h5" $live
# With HDF5's own file locking (its default: the writer's HDF5 holds an flock, and before
# the resume said "cannot open as an HDF5 file") and without it (HDF5_USE_FILE_LOCKING=FALSE,
# as on many network disks: before, the run resumed from the last flush and wrote
# live.resumed.h5 while the first went on).
for locking in TRUE FALSE; do
  HDF5_USE_FILE_LOCKING=$locking resumed "$part"
  [ $rc -eq 2 ] && [ "$(wc -l < "$out/err")" -eq 1 ] \
    && grep -qF "lcpsim: --resume $part: a running lcpsim writes it now" "$out/err" \
    || { kill -9 $p; fail "--resume of a live partial file (HDF5 locking $locking): exit $rc: $(cat "$out/err")"; }
  [ -z "$(ls "$out" | grep '^res')" ] || { kill -9 $p; fail "--resume refused left $(ls "$out")"; }
done
# A stopped run is a live one too (its lock held): refused.
kill -STOP $p
resumed "$part"
kill -CONT $p
[ $rc -eq 2 ] || { kill -9 $p; fail "--resume of a stopped run's partial file: exit $rc"; }
# view: read, with the note (retried while a read meets a flush; then with the run
# stopped, until a try succeeds: a stop can land inside a flush, the file then in pieces
# until the run goes on, so one stopped try alone failed now and then, as
# lib/stopped_when.sh says; 120 s at most).
note="a running lcpsim writes it now: read as of its last flush"
looked() { # PROG ARGS...: the note on stderr, exit 0
  lk_end=$(($(date +%s) + 120)) lk_nap=0.2
  for try in 1 2 3 4 5 6; do
    rc=0; "$@" > "$out/o" 2> "$out/err" || rc=$?
    grep -qF "$note" "$out/err" || { kill -9 $p; fail "$*: no note: $(cat "$out/err")"; }
    [ $rc -eq 0 ] && return 0
  done
  while [ "$(date +%s)" -lt $lk_end ]; do
    sleep $lk_nap
    kill -STOP $p
    rc=0; "$@" > "$out/o" 2> "$out/err" || rc=$?
    kill -CONT $p
    grep -qF "$note" "$out/err" || { kill -9 $p; fail "$*: no note: $(cat "$out/err")"; }
    [ $rc -eq 0 ] && return 0
    lk_nap=$(awk "BEGIN { print $lk_nap * 2 < 4 ? $lk_nap * 2 : 4 }")
  done
  kill -9 $p; fail "$*: exit $rc with the run stopped, every try for 120 s: $(cat "$out/err")"
}
looked $L view "$part" -o "$out/live.html"
[ -s "$out/live.html" ] || { kill -9 $p; fail "view: no page"; }
# Killed, its partial file holds no lock: resumed as before, and read without the note.
kill -9 $p
wait $p || true
resumed "$part"
[ $rc -eq 130 ] && [ -f "$out/res.h5" ] || fail "--resume of the killed run's file: exit $rc: $(cat "$out/err")"
$L view "$part" -o "$out/dead.html" 2> "$out/err" > /dev/null || fail "view of the killed run's file: $(cat "$out/err")"
! grep -qF "$note" "$out/err" || fail "view of the killed run's file: the note: $(cat "$out/err")"

# solve / export --step of a live run's dumped LCP: read, with the note.
start_live "$out/dump.h5" data/box_slide_3d.json --dump-lcp
looked $L solve "$part" --step 2
grep -q "step 2 series 0" "$out/o" || { kill -9 $p; fail "solve: $(cat "$out/o")"; }
looked $L export "$part" --step 2 -o "$out/s2.dat"
[ -s "$out/s2.dat" ] || { kill -9 $p; fail "export: no .dat"; }
kill -9 $p
wait $p || true
echo "live_runs: passed"
