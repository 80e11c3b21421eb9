#!/bin/sh
# tests/e2e/flush_replay.py with a serving CHECK that exits before the replay ends (a
# checker that crashed, or one that stops at the first failure): the replay ends at once
# with one line saying so and the checker's status (1 when it exited 0), no Python
# traceback. Before, the next cut's write raised BrokenPipeError with a traceback (exit 1,
# the checker's status lost). The trace is made here: five 8-byte writes of a file, the
# second and fourth at offset 0 (the superblock runs that "from:1" counts from).
set -eu
cd "$(dirname "$0")/../.."
PY=/usr/bin/python3
out=$(mktemp -d /tmp/lsim_e2e_replay_checker_XXXXXX)
trap 'rm -rf "$out"' EXIT
fail() { echo "flush_replay_checker: $*" >&2; exit 1; }
$PY - "$out" << 'PYEOF'
import sys
d = sys.argv[1]
hx = lambda b: "".join("\\x%02x" % c for c in b)
lines = ['1 openat(AT_FDCWD, "%s", O_RDWR|O_CREAT, 0644) = 3' % hx((d + "/f.h5.77.partial").encode())]
for k, off in enumerate([0, 8, 0, 16, 24, 32]):
    lines.append('1 pwrite64(3, "%s", 8, %d) = 8' % (hx(bytes([k + 1] * 8)), off))
open(d + "/trace", "w").write("\n".join(lines) + "\n")
PYEOF
# A checker answering every cut: all 5 cuts asked and answered.
$PY tests/e2e/flush_replay.py "$out/trace" "$out/f.h5" from:1 "$out/cut" \
  "serve:while read c k; do echo ok; done" > "$out/log" 2>&1 || fail "a whole replay failed: $(cat "$out/log")"
grep -qx "cuts 5, failed 0" "$out/log" || fail "a whole replay: $(cat "$out/log")"
# Checkers that end after their first answer, with status 3 and 0.
for rc in 3 0; do
  st=0
  $PY tests/e2e/flush_replay.py "$out/trace" "$out/f.h5" from:1 "$out/cut" \
    "serve:read c k; echo ok; exit $rc" > "$out/log" 2>&1 || st=$?
  want=$rc; [ "$rc" -ne 0 ] || want=1
  [ "$st" -eq "$want" ] || fail "checker exiting $rc: status $st, wanted $want: $(cat "$out/log")"
  [ "$(wc -l < "$out/log")" -eq 1 ] || fail "checker exiting $rc: not one line: $(cat "$out/log")"
  grep -q "^flush_replay: the checker exited $rc at call 2 (cut 2 of 5)" "$out/log" ||
    fail "checker exiting $rc: $(cat "$out/log")"
done
echo "flush_replay_checker: ok"
