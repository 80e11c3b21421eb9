#!/bin/sh
# lcpsim view of a live partial file of a fast run (docs/output-format.md, "Resuming a
# run"): bouncing_ball.json flushes some 10^4 times a second, and a read that meets a
# flush is torn ("/contacts/id: cannot read its numbers"); view reads again, a bounded
# number of times. Before, 3 of 10 views of such a file wrote a page (exit 2 for the
# rest); here each of 8 must, each of a new run's file, its writer running throughout
# (the file grows about 17 MB/s: a view of a young file is quick; 60 s at most each).
# LCPSIM: the binary (./lcpsim).
set -e
L=${LCPSIM:-./lcpsim}
out=$(mktemp -d /tmp/live_view.XXXXXX)
p=
trap '[ -z "$p" ] || kill -9 $p 2> /dev/null; rm -rf "$out"' EXIT
fail() { echo "live_view: $*" >&2; exit 1; }

for k in 1 2 3 4 5 6 7 8; do
  $L data/bouncing_ball.json --steps 1000000000 -o "$out/X$k.h5" --quiet & p=$!
  part="$out/X$k.h5.$p.partial"
  end=$(($(date +%s) + 60))
  until [ -f "$part" ] && head -c 31 "$part" | grep -q "flushed whole"; do
    [ "$(date +%s)" -lt $end ] || fail "no whole flush in $part"
    sleep 0.1
  done
  sleep 1 # (some 10^4 rows in: a read of a few hundred ms, which meets flushes)
  rc=0; timeout 60 $L view "$part" -o "$out/page.html" > "$out/o" 2> "$out/err" || rc=$?
  [ $rc -eq 0 ] || fail "view $k of the live file: exit $rc: $(cat "$out/err")"
  grep -qF "a running lcpsim writes it now" "$out/err" || fail "view $k: no note: $(cat "$out/err")"
  # (rows past the last whole flush are of one being written, not of a kill: before, the
  # note said "of a flush the kill cut short")
  ! grep -qF "the kill cut short" "$out/err" || fail "view $k: a kill named: $(cat "$out/err")"
  [ -s "$out/page.html" ] && tail -c 200 "$out/page.html" | grep -q "</html>" \
    || fail "view $k: no whole page"
  kill -0 $p 2> /dev/null || fail "the run ended during view $k"
  kill -9 $p; wait $p 2> /dev/null || true; p=
  rm -f "$out/page.html" "$part"
done
echo "live_view: 8 of 8 views of a live partial file wrote a page"
