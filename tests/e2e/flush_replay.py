#!/usr/bin/python3
"""flush_replay.py TRACE FILE ROWS CUT CHECK: the files a kill -9 leaves at each point of one flush.

TRACE is `strace -f -xx -s 2000000 -e trace=openat,pwrite64,pwritev,write,ftruncate` of a
run writing FILE (the run's partial file, FILE.<pid>.partial, is what the trace writes).
The run's file grows only by those calls; a process killed by SIGKILL leaves it as the
calls it completed made it (the kernel's page cache holds them), so the file after the
first k calls is what a kill before call k + 1 leaves. The flush is the one that ends when
/flushed_rows (record.c, mark_flushed: an 8-byte write in place) goes from ROWS - 256 to
ROWS; ROWS 0: the run's last flush and its close (from the call after the last
/flushed_rows write of the flush before to the run's last call); ROWS close:N, for files
without /flushed_rows (hybrid-model and compare files): from the call after the N-th last
run of superblock writes (offset 0; H5Fflush writes the superblock last, H5Fclose too) to
the run's last call, so close:2 is the close and close:3 the last flush and the close;
ROWS from:N: from the call after the N-th run of superblock writes (from the start: from:1
is every write after the header's flush, each flush of rows and the close) to the last.
ROWS early:N: from the file's first write (its creation) to the one before the (N + 1)-th
value past 0 of /flushed_rows: the file's first flushes, the writes of its first N marks
and of the user block's mark after them (lcp/h5check.h); early:0 to the write after the
first mark's (the head's mark); CUT.start is then empty.
Also writes the file as the calls before the first replayed one left it to CUT.start.
For every call K of it
(from the call after the previous /flushed_rows write to that of ROWS, both included)
writes the file as the calls up to K left it to CUT
and runs `sh -c CHECK sh CUT.K K` on a copy of it, CUT.K, two CHECKs at a time (or asks
a CHECK "serve:COMMAND", below); prints "cuts N, failed M" and each failure's output, and
exits 1 if any failed.
"""
import io
import os
import re
import shutil
import struct
import subprocess
import sys

trace, target, rows, cut, check = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]


def unhex(s):
    """A -xx string ("\\x2f\\x74...") as bytes."""
    return bytes.fromhex(s.replace("\\x", ""))


STR = r'"((?:\\x[0-9a-f]{2})*)"'
open_re = re.compile(r"^\d+\s+openat\([^,]+, " + STR + r", [^)]*\)\s+= (\d+)")
pwrite_re = re.compile(r"^\d+\s+pwrite64\((\d+), " + STR + r", (\d+), (\d+)\)\s+= (-?\d+)")
trunc_re = re.compile(r"^\d+\s+ftruncate\((\d+), (\d+)\)\s+= 0")
other_re = re.compile(r"^\d+\s+(pwritev|write|ftruncate)\((\d+),")

fds = set()
calls = []  # (offset, data) of the partial file, in order; data None: truncated to offset
for line in open(trace):
    m = open_re.match(line)
    if m:
        path = unhex(m.group(1)).decode()
        # (TARGET.<pid>.partial alone: not a file of its own beside it, such as a
        # comparison's TARGET.<pid>.partial.trajectory.<pid>.partial)
        if re.fullmatch(re.escape(target) + r"\.\d+\.partial", path):
            fds.add(int(m.group(2)))
        continue
    m = pwrite_re.match(line)
    if m and int(m.group(1)) in fds:
        data = unhex(m.group(2))
        assert int(m.group(5)) == len(data) == int(m.group(3)), line[:200]
        calls.append((int(m.group(4)), data))
        continue
    m = trunc_re.match(line)
    if m and int(m.group(1)) in fds:
        calls.append((int(m.group(2)), None))
        continue
    m = other_re.match(line)
    # (the record writes with pwrite64 alone: anything else would be left out here)
    assert not (m and int(m.group(2)) in fds), "unexpected call on the file: " + line[:200]
    assert "unfinished" not in line or "pwrite64" not in line, line[:200]
assert fds and calls, "no writes of %s.<pid>.partial in %s" % (target, trace)

# /flushed_rows: the one 8-byte place written with ROWS - 256 and then ROWS.
marks = {}
close = int(rows[6:]) if rows.startswith("close:") else 0
after = int(rows[5:]) if rows.startswith("from:") else 0
early = int(rows[6:]) + 1 if rows.startswith("early:") else 0
rows = 0 if close or after or early else int(rows)
for k, (off, data) in enumerate(calls):
    if data is not None and len(data) == 8:
        marks.setdefault(off, []).append((struct.unpack("<q", data)[0], k))
if early:
    # the place written most often with growing values: /flushed_rows; from the file's
    # first write to the one before its early-th value past 0
    # (early:0: to the write after its first value past 0, the head's mark)
    place = max(marks, key=lambda o: len(set(x for x, _ in marks[o])))
    seen = []
    for x, k in marks[place]:
        if x > 0 and x not in seen:
            seen.append(x)
            if len(seen) == early:
                last = k - 1 if early > 1 else k + 1
                break
    else:
        raise AssertionError("fewer than %d /flushed_rows values past 0" % early)
    first = -1
elif close or after:
    # runs of consecutive writes of the superblock (at offset 0, or after a run file's
    # user block, whose own mark at 0 is not one: lcp/h5check.h)
    runs = []
    for k, (off, data) in enumerate(calls):
        if data is not None and (data[:8] == b"\x89HDF\r\n\x1a\n" or
                                 (off == 0 and not data.startswith(b"lcpsim run file"))):
            if runs and runs[-1] == k - 1:
                runs[-1] = k
            else:
                runs.append(k)
    assert len(runs) >= max(close, after + 1), "%d superblock writes" % len(runs)
    first, last = runs[-close] if close else runs[after - 1], len(calls) - 1
elif rows == 0:
    # the place written most often with growing values: /flushed_rows
    place = [max(marks, key=lambda o: len(set(x for x, _ in marks[o])))]
    seq = marks[place[0]]
    final = seq[-1][0]
    first, last = max(k for x, k in seq if x < final), len(calls) - 1
else:
    place = [o for o, v in marks.items() if rows in [x for x, _ in v] and rows - 256 in [x for x, _ in v]]
    assert len(place) == 1, "no /flushed_rows writes of %d and %d rows" % (rows - 256, rows)
    values = dict(marks[place[0]])
    first, last = values[rows - 256], values[rows]

image = bytearray()


def put(off, data):
    if data is None:
        del image[off:]
        image.extend(b"\0" * (off - len(image)))
        return
    if len(image) < off + len(data):
        image.extend(b"\0" * (off + len(data) - len(image)))
    image[off:off + len(data)] = data


for off, data in calls[:first + 1]:
    put(off, data)
with open(cut + ".start", "wb") as f:
    f.write(image)
failed = []
pending = set()
running = []  # (K, its copy of the cut, its shell CHECK) in the order of K


def reap():
    """Waits for the first running shell CHECK; its failure noted."""
    k, mine, p = running.pop(0)
    output = p.communicate()[0]
    os.remove(mine)
    if p.returncode != 0:
        failed.append("call %d: exit %d: %s" % (k, p.returncode, output.strip()[:300]))


# CHECK "serve:COMMAND": COMMAND runs once, reads "CUT K" lines and answers each with one
# line, "ok" or what is wrong (one Python for every cut, not one each), or "pending": it
# took its own copy of CUT and, once its input ends, prints "K ok" or "K what is wrong"
# for every pending K (so that it may check cuts while the replay goes on). A COMMAND that
# ends before its input does (it crashed, or stops at its first failure) ends the replay
# at once: one line saying so, exit status its own (1 if it was 0; tests/e2e/
# flush_replay_checker.sh).
server = None
if check.startswith("serve:"):
    # (its stdin unbuffered: a write to a checker that is gone fails at once, and no
    # buffer is left to fail again when the pipe is closed at exit)
    server = subprocess.Popen(["sh", "-c", check[6:]], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, bufsize=0)
    answers = io.TextIOWrapper(io.BufferedReader(server.stdout))


def checker_gone(k):
    """The serving CHECK ended before its input did (it exited at cut K, or had gone before
    it): one line saying so, and its status as this script's (1 if it was 0). Writing
    on raised BrokenPipeError with a traceback."""
    try:
        server.stdin.close()
    except OSError:
        pass
    rc = server.wait()
    print("flush_replay: the checker exited %d at call %d (cut %d of %d); it must "
          "answer every cut: %s" % (rc, k, k - first, last - first, check[6:]))
    sys.exit(rc if rc > 0 else 1)


# CUT kept open and changed in place by each call (a whole copy per call took minutes
# for a file of megabytes and hundreds of calls).
out = open(cut, "wb")
out.write(image)
for k in range(first + 1, last + 1):
    put(*calls[k])
    off, data = calls[k]
    if data is None:
        out.truncate(len(image))
    else:
        out.seek(off)
        out.write(data)
    out.flush()
    if server:
        try:
            server.stdin.write(("%s %d\n" % (cut, k)).encode())
        except BrokenPipeError:
            checker_gone(k)
        line = answers.readline()
        if not line:
            checker_gone(k)
        answer = line.strip()
        if answer == "pending":
            pending.add(k)
        elif answer != "ok":
            failed.append("call %d: %s" % (k, answer[:300] or "the checker ended"))
        continue
    # a shell CHECK: two at a time, each on its own copy of the cut (CUT.K, removed after)
    if len(running) == 2:
        reap()
    mine = "%s.%d" % (cut, k)
    shutil.copyfile(cut, mine)
    running.append((k, mine, subprocess.Popen(["sh", "-c", check, "sh", mine, str(k)], text=True,
                                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)))
while running:
    reap()
out.close()
if server:
    server.stdin.close()
    for line in answers:
        k, answer = line.split(" ", 1)
        assert int(k) in pending, "an answer to no pending cut: " + line[:300]
        pending.remove(int(k))
        if answer.strip() != "ok":
            failed.append("call %s: %s" % (k, answer.strip()[:300]))
    failed += ["call %d: the checker ended" % k for k in sorted(pending)]
    if server.wait() != 0:
        failed.append("the checker exited %d" % server.returncode)
print("cuts %d, failed %d" % (last - first, len(failed)))
for line in failed:
    print("  " + line)
sys.exit(1 if failed else 0)
