#!/bin/sh
# The library from two threads at once (tests/e2e/library_threads.c against
# build/liblcpsim.so): results equal to the same work alone, and Valgrind's DRD reports no
# conflicting access in lcpsim's code (the solver name tables and the BLAS thread setting,
# made on first use, were raced by the first two threads: 7 conflicts before pthread_once).
set -e
tmp=$(mktemp -d /tmp/lsim_e2e_threads_XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cc -std=c11 -pedantic -Wall -Wextra -Werror -g -Iinclude tests/e2e/library_threads.c -Lbuild -llcpsim \
  -pthread -o "$tmp/threads"
LD_LIBRARY_PATH=build "$tmp/threads"
LD_LIBRARY_PATH=build valgrind --tool=drd "$tmp/threads" > "$tmp/drd.txt" 2>&1 ||
  { cat "$tmp/drd.txt"; exit 1; }
# Conflicts at an access of lcpsim's (the top frame in liblcpsim.so or the program, or a
# string function Valgrind replaces, called from them); those inside Debian's libraries
# (Jansson's hash seed and libc's locale, set with atomics DRD does not model) are theirs.
awk '/Conflicting (load|store)/ { rep = $0; next }
     rep != "" && / at 0x/ { if ($0 !~ /\/usr\/lib\//) print rep; rep = "" }' "$tmp/drd.txt" > "$tmp/ours.txt"
if [ -s "$tmp/ours.txt" ]; then
  echo "DRD: $(wc -l < "$tmp/ours.txt") conflicting accesses in lcpsim's code:"
  cat "$tmp/ours.txt"
  exit 1
fi
echo "library_threads: ok (DRD: no conflicting access in lcpsim's code)"
