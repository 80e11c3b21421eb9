#!/bin/sh
# Siconos' own printing is captured, stdout and stderr alike, and shown only on request:
# siconos:newton_fb prints "NM_LU_factorize: LU factorisation DGETRF failed ..." to stderr
# on singular Jacobians of data/pile_10.json (first at step 9). By default the run's
# stderr holds lcpsim's own lines only; with --solver-output each such step gives one
# "lcpsim: step N: siconos:newton_fb printed: ..." line.
set -e
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "solver_output: $*" >&2; exit 1; }

./lcpsim data/pile_10.json --solver siconos:newton_fb --steps 12 -o "$out/a.h5" --quiet \
  > "$out/a.out" 2> "$out/a.err" || true
[ -s "$out/a.h5" ] || fail "no output file"
grep -q DGETRF "$out/a.out" "$out/a.err" && fail "Siconos' text reached the terminal: $(grep -h DGETRF "$out/a.out" "$out/a.err" | head -1)"
grep -v '^lcpsim: ' "$out/a.err" | grep -q . && fail "stderr has lines not of lcpsim: $(grep -v '^lcpsim: ' "$out/a.err" | head -1)"

./lcpsim data/pile_10.json --solver siconos:newton_fb --steps 12 -o "$out/b.h5" --quiet \
  --solver-output > "$out/b.out" 2> "$out/b.err" || true
grep -q '^lcpsim: step [0-9]*: siconos:newton_fb printed: NM_LU_factorize: LU factorisation DGETRF failed' "$out/b.err" \
  || fail "--solver-output did not show Siconos' text"
grep -q DGETRF "$out/b.out" && fail "Siconos' text reached stdout"
# Each shown line is one of ours: nothing printed by Siconos itself.
grep -v '^lcpsim: ' "$out/b.err" | grep -q . && fail "stderr has lines not of lcpsim with --solver-output"
# Options the solver does not use: one note each on stderr, the run or solve goes on.
./lcpsim data/pile_10.json --solver lemke --omega 1.5 --threads 2 --steps 5 -o "$out/n.h5" --quiet \
  2> "$out/n.err" || fail "run with unused options failed: $(cat "$out/n.err")"
printf '%s\n' "lcpsim: note: --omega is an option of pgs only; lemke does not use it" \
  "lcpsim: note: --threads is an option of pgs only; lemke does not use it" | cmp -s - "$out/n.err" \
  || fail "unused options: $(cat "$out/n.err")"
./lcpsim data/pile_10.json --solver newton --sparse-limit 5 --omega 1.2 --steps 5 -o "$out/n.h5" \
  --quiet 2> "$out/n.err" || fail "newton run failed: $(cat "$out/n.err")"
[ "$(cat "$out/n.err")" = "lcpsim: note: --omega is an option of pgs only; newton does not use it" ] \
  || fail "newton with --sparse-limit: $(cat "$out/n.err")"
# The same keys in the scene: the same note, naming the key's JSON path, and the run goes
# on (taken silently before); a key the command line overrides is noted as the option.
/usr/bin/python3 -c "
import json, sys
s = json.load(open('data/pile_10.json'))
s['solver'] = {'name': 'lemke', 'omega': 1.2, 'threads': 2, 'sparse_limit': 5}
json.dump(s, open(sys.argv[1], 'w'))
" "$out/keys.json"
./lcpsim "$out/keys.json" --steps 5 -o "$out/n.h5" --quiet 2> "$out/n.err" \
  || fail "scene with unused keys failed: $(cat "$out/n.err")"
printf '%s\n' "lcpsim: note: $out/keys.json: solver.omega is an option of pgs only; lemke does not use it" \
  "lcpsim: note: $out/keys.json: solver.threads is an option of pgs only; lemke does not use it" \
  "lcpsim: note: $out/keys.json: solver.sparse_limit is an option of newton only; lemke does not use it" \
  | cmp -s - "$out/n.err" || fail "unused scene keys: $(cat "$out/n.err")"
./lcpsim "$out/keys.json" --solver newton --omega 1.5 --steps 5 -o "$out/n.h5" --quiet 2> "$out/n.err" \
  || fail "scene with unused keys on newton failed: $(cat "$out/n.err")"
printf '%s\n' "lcpsim: note: --omega is an option of pgs only; newton does not use it" \
  "lcpsim: note: $out/keys.json: solver.threads is an option of pgs only; newton does not use it" \
  | cmp -s - "$out/n.err" || fail "unused scene keys on newton: $(cat "$out/n.err")"
./lcpsim "$out/keys.json" --solver pgs --steps 5 -o "$out/n.h5" --quiet 2> "$out/n.err" \
  || fail "scene keys on pgs failed: $(cat "$out/n.err")"
[ "$(cat "$out/n.err")" = "lcpsim: note: $out/keys.json: solver.sparse_limit is an option of newton only; pgs does not use it" ] \
  || fail "scene keys on pgs: $(cat "$out/n.err")"
./lcpsim solve "${LSIM_SHARED:-../shared}/data/siconos-lcp/lcp_CPS_1.dat" --solver pgs --sparse-limit 5 > /dev/null \
  2> "$out/n.err" || true
[ "$(cat "$out/n.err")" = "lcpsim solve: note: --sparse-limit is an option of newton only; pgs does not use it" ] \
  || fail "solve with --sparse-limit: $(cat "$out/n.err")"
echo "solver_output: default stderr clean ($(wc -l < "$out/a.err") lcpsim lines); --solver-output: $(grep -c printed "$out/b.err") lines of Siconos text"
