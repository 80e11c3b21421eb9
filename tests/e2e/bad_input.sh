#!/bin/sh
# Bad input, table-driven: every case is one command line that must end with
#   - exit status 2,
#   - exactly one line on stderr, holding the expected fragment (which names the file and
#     the place: file:line:column and JSON path, file:line:column, or the option),
#   - no output file left: run in an empty folder with -o naming a fresh file, the folder
#     is still empty afterwards (no file, no .partial), and the inputs are untouched;
#   - no existing file touched: run again with the -o file already there (random bytes),
#     every file is byte-identical afterwards.
# Runs the sanitizer build, so error paths are also checked for leaks and undefined
# behaviour. BAD_INPUT_SHOW=1 prints every message.
set -u
bin=$(pwd)/${LSIM_BIN:-build/san/lcpsim}
# LSIM_BIN picks the binary (LSIM_BIN=lcpsim: the plain build); lcpsim itself must not see
# it: it notes every LSIM_ variable it does not read on stderr, which every case counted as
# a second line (388 failures with LSIM_BIN=lcpsim).
unset LSIM_BIN
# (make e2e-check and make check build it first; run alone, say what is missing)
if [ ! -x "$bin" ]; then
  echo "bad_input: $bin is not built: make build/san/lcpsim first, or set LSIM_BIN=lcpsim" >&2
  exit 1
fi
top=$(mktemp -d)
trap 'rm -rf "$top"' EXIT
in=$top/in       # inputs, written below
run=$top/run     # the working folder of each run (empty before the first pass)
mkdir -p "$in" "$run"
fails=0
cases=0

# Fingerprint of the inputs and the run folder: names, sizes, times, contents.
snapshot() { (cd "$top" && find in run -type f -exec ls -l --time-style=+%s.%N {} + 2>/dev/null \
               && find in run -type f -exec md5sum {} + 2>/dev/null) | sort; }

fail() { echo "FAIL $name: $*"; fails=$((fails + 1)); }

# t NAME WANT ARG...: one case; the argument @OUT stands for the output path.
t() {
  name=$1; want=$2; shift 2
  cases=$((cases + 1))
  has_out=0
  for a in "$@"; do [ "$a" = @OUT ] && has_out=1; done
  for pass in fresh existing; do
    [ $pass = existing ] && [ $has_out -eq 0 ] && break
    rm -rf "$run" && mkdir -p "$run"
    [ $pass = existing ] && head -c 333 /dev/urandom > "$run/out.h5"
    before=$(snapshot)
    # Substitute @OUT (positional parameters rebuilt in place).
    n=$#
    while [ $n -gt 0 ]; do
      a=$1; shift
      [ "$a" = @OUT ] && a=$run/out.h5
      set -- "$@" "$a"; n=$((n - 1))
    done
    (cd "$run" && "$bin" "$@" > "$top/stdout" 2> "$top/stderr")
    rc=$?
    # restore @OUT for the next pass
    n=$#
    while [ $n -gt 0 ]; do
      a=$1; shift
      [ "$a" = "$run/out.h5" ] && a=@OUT
      set -- "$@" "$a"; n=$((n - 1))
    done
    [ -n "${BAD_INPUT_SHOW:-}" ] && [ $pass = fresh ] && echo "$name: $(cat "$top/stderr")"
    lines=$(wc -l < "$top/stderr")
    [ $rc -eq 2 ] || fail "$pass: exit $rc, expected 2"
    [ "$lines" -eq 1 ] || fail "$pass: $lines lines on stderr: $(head -c 600 "$top/stderr")"
    grep -qF -- "$want" "$top/stderr" || fail "$pass: expected '$want' in: $(head -c 300 "$top/stderr")"
    [ "$(snapshot)" = "$before" ] || fail "$pass: files changed: $(ls -A "$run")"
  done
}

# S NAME WANT JSON: a scene file in/NAME.json, run as `lcpsim in/NAME.json -o @OUT`.
S() {
  printf '%s' "$3" > "$in/$1.json"
  t "$1" "$2" "$in/$1.json" -o @OUT --quiet
}
# F NAME TEXT: an input file in/NAME.
F() { printf '%b' "$2" > "$in/$1"; }

# ---- scene files: JSON syntax ----
h='{"lcpsim": 1, "time_step": 0.1, "steps": 3, '
S syntax "syntax.json:1:" "$h"'"bodies": [ {"mass": 1,, } ]}'
S nan "nan.json:1:" "$h"'"bodies": [ {"mass": NaN} ]}'
S empty "empty.json:" ''
S trailing "trailing.json:1:" "$h"'"bodies": [ {} ]} extra'
S huge_number "huge_number.json:1:" "$h"'"bodies": [ {"mass": 1e999} ]}'
# An integer literal of 30 digits: at its first digit, with what to write instead.
S huge_integer "huge_integer.json:1:66: too big integer (beyond 9223372036854775807; a real number that large takes an exponent" "$h"'"bodies": [ {"mass": 123456789012345678901234567890} ]}'
S duplicate_key "duplicate_key.json:1:" "$h"'"bodies": [ {"mass": 1, "mass": 2} ]}'
S bad_utf8 "bad_utf8.json:1:" "$h"'"name": "'"$(printf '\377')"'", "bodies": [ {} ]}'
S not_object "not_object.json:1:1:" '[1, 2, 3]'
# A \u0000 escape in a string: said in the scene's words (it named jansson's JSON_ALLOW_NUL).
# A tether or joint end naming a body its grid replicated: the copies' names said (it was
# only "no body named 'b'").
S grid_end "grid_end.json:1:237: tethers[0].ends[0].body: no body named 'b': its grid made copies named b_i_j (e.g. 'b_0_0'); name one of them" '{"lcpsim": 1, "dimension": 2, "time_step": 0.01, "steps": 3, "bodies": [{"name": "b", "mass": 1, "shapes": [{"type": "sphere", "radius": 0.1}], "grid": {"count": [3, 1], "spacing": [1, 1]}}], "tethers": [{"length": 1, "ends": [{"body": "b"}, {"world": [0, 0]}]}]}'
S grid_end_3d "grid_end_3d.json:1:244: joints[0].ends[0].body: no body named 'b': its grid made copies named b_i_j_k (e.g. 'b_0_0_0')" '{"lcpsim": 1, "dimension": 3, "time_step": 0.01, "steps": 3, "bodies": [{"name": "b", "mass": 1, "shapes": [{"type": "sphere", "radius": 0.1}], "grid": {"count": [1, 1, 2], "spacing": [1, 1, 1]}}], "joints": [{"type": "pin", "ends": [{"body": "b"}, {"world": [0, 0, 0]}]}]}'
S nul_escape 'nul_escape.json:1:66: a string holds \u0000 (the NUL character), which names and other strings of a scene cannot hold near' "$h"'"bodies": [ {"name": "a\u0000b"} ]}'
S bom "bom.json:1:1: the file starts with a UTF-8 byte order mark (bytes EF BB BF)" "$(printf '\357\273\277')$h"'"bodies": [ {} ]}'
# ---- scene files: top level ----
S version "version.json:1:12: lcpsim" '{"lcpsim": 7, "time_step": 0.1, "steps": 3, "bodies": [ {} ]}'
S no_version "no_version.json:1:1: lcpsim" '{"time_step": 0.1, "steps": 3, "bodies": [ {} ]}'
S zerostep "zerostep.json:1:28: time_step" '{"lcpsim": 1, "time_step": 0, "steps": 3, "bodies": [ {} ]}'
S negstep "negstep.json:1:28: time_step" '{"lcpsim": 1, "time_step": -0.1, "steps": 3, "bodies": [ {} ]}'
S step_string "step_string.json:1:28: time_step" '{"lcpsim": 1, "time_step": "0.1", "steps": 3, "bodies": [ {} ]}'
S no_step "no_step.json:1:1: time_step" '{"lcpsim": 1, "steps": 3, "bodies": [ {} ]}'
S no_steps "no_steps.json:1:1:" '{"lcpsim": 1, "time_step": 0.1, "bodies": [ {} ]}'
S steps_zero "steps_zero.json:1:42: steps" '{"lcpsim": 1, "time_step": 0.1, "steps": 0, "bodies": [ {} ]}'
S steps_frac "steps_frac.json:1:42: steps" '{"lcpsim": 1, "time_step": 0.1, "steps": 2.5, "bodies": [ {} ]}'
S steps_huge "steps_huge.json:1:42: too big integer" '{"lcpsim": 1, "time_step": 0.1, "steps": 99999999999999999999, "bodies": [ {} ]}'
S duration_frac "duration_frac.json:1:45: duration" '{"lcpsim": 1, "time_step": 0.3, "duration": 1, "bodies": [ {} ]}'
# Steps of 1e308 s: the end time overflows (the run wrote t = inf into /time, exit 0).
S time_inf "time_inf.json:1:28: time_step: 2 steps of 1e+308 s end at a time that is not finite" '{"lcpsim": 1, "time_step": 1e308, "steps": 2, "bodies": [ {} ]}'
# A number below the smallest double: read as 0 without a word, which made solver.tol 1e-400
# a fixed budget of sweeps (exit 0) and time_step 1e-400 "must be > 0, got 0".
S tol_underflow "tol_underflow.json:1:78: solver.tol: real number underflow near '1e-400'" '{"lcpsim": 1, "time_step": 0.1, "steps": 3, "solver": {"name": "pgs", "tol": 1e-400}, "bodies": [ {} ]}'
S dimension "dimension.json:1:58: dimension: must be 1, 2 or 3" "$h"'"dimension": 4, "bodies": [ {} ]}'
S unknown_top "unknown_top.json:1:45: gravitty: unknown key (did you mean 'gravity'?)" "$h"'"gravitty": 1, "bodies": [ {} ]}'
# No close key: every top-level key listed, whole (the list was cut at 200 bytes, ending
# in "as" for "assemble" and leaving out limits and sleep).
S unknown_list "unknown_list.json:1:45: xyzzy: unknown key (known keys here: \$schema, lcpsim, name, description, dimension, time_step, steps, duration, gravity, ground, solver, contact, bodies, walls, couplings, tethers, joints, baumgarte, baumgarte_time, output, integrator, event_driven, assemble, limits, sleep)" "$h"'"xyzzy": 1, "bodies": [ {} ]}'
S no_bodies "no_bodies.json:1:" "$h"'"bodies": []}'
S bodies_object "bodies_object.json:1:55: bodies: must be an array" "$h"'"bodies": {}}'
S body_number "body_number.json:1:57: bodies[0]: must be an object" "$h"'"bodies": [ 3 ]}'
S baumgarte "baumgarte.json:1:58: baumgarte: must be in [0, 1]" "$h"'"baumgarte": 2, "bodies": [ {} ]}'
S integrator "integrator.json:1:59: integrator: must be" "$h"'"integrator": "rk4", "bodies": [ {} ]}'
# Event-driven settings in a time-stepping scene: refused at the key (they were ignored).
S event_driven_unused "event_driven_unused.json:1:45: event_driven: settings of the event-driven integrator (\"rtol\"), but this scene runs the time step" "$h"'"event_driven": {"rtol": 1e-10}, "bodies": [ {} ]}'
S output_file "output_file.json:1:" "$h"'"output": {"file": ""}, "bodies": [ {} ]}'
S output_key "output_key.json:1:" "$h"'"output": {"fil": "x.h5"}, "bodies": [ {} ]}'
# The scene's output.file naming the scene itself (no -o): refused at that value's place.
F output_self.json "$h"'"output": {"file": "output_self.json"}, "bodies": [ {} ]}'
t output_self "output_self.json:1:64: output.file: names the scene file itself: refused" "$in/output_self.json" --quiet
F output_self_hybrid.json '{"lcpsim": 1, "hybrid": {"model": "bouncing_mass"}, "output": {"file": "output_self_hybrid.json"}}'
t output_self_hybrid "output_self_hybrid.json:1:72: output.file: names the scene file itself" "$in/output_self_hybrid.json" --quiet
# Hybrid scenes: more samples than a run may have steps (1e-300 s never advanced time,
# writing GBs of samples at t = 0); --duration likewise.
S hybrid_period "hybrid_period.json:1:86: hybrid.record_period: final_time 1 s / record_period 1e-300 s gives 1e+300 samples; at most 2147483647" \
  '{"lcpsim": 1, "hybrid": {"model": "bouncing_mass", "final_time": 1, "record_period": 1e-300}}'
S hybrid_final "hybrid_final.json:1:" '{"lcpsim": 1, "hybrid": {"model": "bouncing_mass", "final_time": 1e300, "record_period": 0.5}}'
F hybrid_ok.json '{"lcpsim": 1, "hybrid": {"model": "bouncing_mass", "record_period": 0.01}}'
t hybrid_duration "--duration 1e8 s with $in/hybrid_ok.json's record_period 0.01 s gives 1e+10 samples" "$in/hybrid_ok.json" --duration 1e8 -o @OUT
# ---- scene files: solver ----
S solver_name "solver_name.json:1:55: solver: unknown solver \"nosuch\"" "$h"'"solver": "nosuch", "bodies": [ {} ]}'
S solver_fc "solver_fc.json:1:55: solver: \"nsgs\" is a frictional contact solver, not an LCP solver" "$h"'"solver": "nsgs", "bodies": [ {} ]}'
S solver_tol "solver_tol.json:1:" "$h"'"solver": {"name": "pgs", "tol": -1}, "bodies": [ {} ]}'
S tiny_mass "bodies[0].mass: must be > 0 and at least 2.22507e-308" "$h"'"bodies": [ {"mass": 1e-320} ]}'
# tol 0 with a solver that has no sweeps (named, or the default lemke): refused at the value
# (the message had no line:column: the solver's creation found it after the parse).
S solver_tol0 "solver_tol0.json:1:80: solver.tol: lemke needs a tolerance > 0" "$h"'"solver": {"name": "lemke", "tol": 0}, "bodies": [ {} ]}'
S solver_tol0_default "solver_tol0_default.json:1:63: solver.tol: lemke needs a tolerance > 0" "$h"'"solver": {"tol": 0}, "bodies": [ {} ]}'
S solver_omega "solver_omega.json:1:" "$h"'"solver": {"name": "pgs", "omega": 2.5}, "bodies": [ {} ]}'
S solver_threads "solver_threads.json:1:" "$h"'"solver": {"name": "pgs", "threads": 0}, "bodies": [ {} ]}'
S solver_maxiter "solver_maxiter.json:1:" "$h"'"solver": {"name": "pgs", "max_iter": -5}, "bodies": [ {} ]}'
S solver_sparse "solver_sparse.json:1:" "$h"'"solver": {"name": "newton", "sparse_limit": -4}, "bodies": [ {} ]}'
# Sparse Lemke's settings (block_start, lu_solve, lu_refactor, principal): ranges and names at the
# value, and refused with another solver, where they would do nothing.
S solver_lu_solve 'solver_lu_solve.json:1:92: solver.lu_solve: must be "umfpack", "own", "klu" or "ft", got "KLU"' "$h"'"solver": {"name": "lemke_sparse", "lu_solve": "KLU"}, "bodies": [ {} ]}'
S solver_lu_refactor "solver_lu_refactor.json:1:95: solver.lu_refactor: must be an integer in [10, 100000], got 5" "$h"'"solver": {"name": "lemke_sparse", "lu_refactor": 5}, "bodies": [ {} ]}'
S solver_block_start "solver_block_start.json:1:95: solver.block_start: must be an integer in [0, 1000], got 2000" "$h"'"solver": {"name": "lemke_sparse", "block_start": 2000}, "bodies": [ {} ]}'
S solver_principal "solver_principal.json:1:93: solver.principal: must be an integer in [0, 1000000], got 2000000" "$h"'"solver": {"name": "lemke_sparse", "principal": 2000000}, "bodies": [ {} ]}'
S solver_principal_other "solver_principal_other.json:1:84: solver.principal: is a setting of lemke_sparse only; the solver is pgs" "$h"'"solver": {"name": "pgs", "principal": 20}, "bodies": [ {} ]}'
S solver_lu_other "solver_lu_other.json:1:83: solver.lu_solve: is a setting of lemke_sparse only; the solver is pgs" "$h"'"solver": {"name": "pgs", "lu_solve": "klu"}, "bodies": [ {} ]}'
# pgs's sweep arithmetic: a word of two, and pgs's alone.
S solver_precision 'solver_precision.json:1:84: solver.precision: must be "double" or "float", got "single"' "$h"'"solver": {"name": "pgs", "precision": "single"}, "bodies": [ {} ]}'
S solver_precision_other "solver_precision_other.json:1:99: solver.precision: is a setting of pgs only; the solver is lemke" "$h"'"solver": {"name": "lemke", "tol": 1e-8, "precision": "float"}, "bodies": [ {} ]}'
# ---- scene files: 1-D bodies, walls, couplings ----
S type "type.json:2:22: bodies[0].mass: must be a number" "$h"'
"bodies": [ {"mass": "heavy"} ]}'
S negmass "negmass.json:3:37: bodies[1].mass: must be > 0, got -1" "$h"'
"bodies": [ {"position": 0},
            {"position": 5, "mass": -1} ]}'
S negwidth "negwidth.json:1:" "$h"'"bodies": [ {"width": -0.5} ]}'
S overlap "overlap" "$h"'"bodies": [ {"position": 0, "width": 1}, {"position": 0.5, "width": 1} ]}'
S unknown "bodies[0].masss" "$h"'"bodies": [ {"masss": 1} ]}'
S restitution "restitution.json:1:" "$h"'"bodies": [ {"restitution": 1.5} ]}'
S same_name "same_name.json:1:" "$h"'"bodies": [ {"name": "A"}, {"name": "A", "position": 3} ]}'
S long_name "long_name.json:1:" "$h"'"bodies": [ {"name": "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghij"} ]}'
S kinematic_force "kinematic_force.json:1:" "$h"'"bodies": [ {"position": 5}, {"type": "kinematic", "force": 1} ]}'
S no_dynamic "no_dynamic.json:1:" "$h"'"bodies": [ {"type": "kinematic"} ]}'
S coupling "couplings[0].bodies[1]: no body named 'Z'" "$h"'"bodies": [ {"name": "A"} ], "couplings": [ {"bodies": ["A", "Z"], "inertia": 1} ]}'
S wallside "bodies[0].position: 'body0'" "$h"'"bodies": [ {"position": -1} ], "walls": [ {"position": 0, "side": "left"} ]}'
S wall_noside "wall_noside.json:1:" "$h"'"bodies": [ {"position": 1} ], "walls": [ {"position": 0} ]}'
# ---- scene files: 2-D and 3-D ----
h3='{"lcpsim": 1, "time_step": 0.01, "steps": 3, "dimension": 3, "gravity": [0, 0, -9.81], '
S gravity_len "gravity_len.json:1:" '{"lcpsim": 1, "time_step": 0.01, "steps": 3, "dimension": 3, "gravity": [0, -9.81], "bodies": [ {"mass": 1} ]}'
# 1-D couplings in 3-D: named as 1-D only (it said "unknown key").
S couplings_3d "couplings_3d.json:1:88: couplings: applies to 1-D scenes only" "$h3"'"couplings": [], "bodies": [ {"mass": 1, "inertia": [1, 1, 1]} ]}'
S walls_3d "walls_3d.json:1:" "$h3"'"walls": [ {"side": "left"} ], "bodies": [ {"mass": 1} ]}'
S shape_type "shape_type.json:1:" "$h3"'"bodies": [ {"mass": 1, "shapes": [ {"type": "cone"} ]} ]}'
S radius_zero "radius_zero.json:1:" "$h3"'"bodies": [ {"mass": 1, "shapes": [ {"type": "sphere", "radius": 0} ]} ]}'
S half_extents "half_extents.json:1:" "$h3"'"bodies": [ {"mass": 1, "shapes": [ {"type": "box", "half_extents": [1, -1, 1]} ]} ]}'
S plane_dynamic "plane_dynamic.json:1:" "$h3"'"bodies": [ {"mass": 1, "shapes": [ {"type": "plane"} ]} ]}'
S mass_density "mass_density.json:1:" "$h3"'"bodies": [ {"mass": 1, "density": 2, "shapes": [ {"type": "sphere", "radius": 1} ]} ]}'
S quaternion "quaternion.json:1:" "$h3"'"bodies": [ {"mass": 1, "orientation": [0, 0, 0, 0], "shapes": [ {"type": "sphere", "radius": 1} ]} ]}'
S inertia "inertia.json:1:" "$h3"'"bodies": [ {"mass": 1, "inertia": [1, -1, 1], "shapes": [ {"type": "sphere", "radius": 1} ]} ]}'
# Moments no mass distribution has (Izz > Ixx + Iyy; a matrix whose principal moments are
# 4, 1, 1): refused at the value, the moment named (both were accepted and run).
S inertia_triangle "inertia_triangle.json:1:130: bodies[0].inertia[2]: Izz = 5 is more than the sum of the other two moments, 2: no mass distribution" "$h3"'"bodies": [ {"mass": 1, "inertia": [1, 1, 5], "shapes": [ {"type": "sphere", "radius": 1} ]} ]}'
S inertia_triangle_matrix "inertia_triangle_matrix.json:1:123: bodies[0].inertia: its principal moments 4, 1, 1 break the triangle inequality" "$h3"'"bodies": [ {"mass": 1, "inertia": [[1, 0, 0], [0, 2.5, 1.5], [0, 1.5, 2.5]], "shapes": [ {"type": "sphere", "radius": 1} ]} ]}'
S position_len "position_len.json:1:" "$h3"'"bodies": [ {"mass": 1, "position": [0, 0], "shapes": [ {"type": "sphere", "radius": 1} ]} ]}'
S directions "directions.json:1:" "$h3"'"friction": {"directions": 5}, "bodies": [ {"mass": 1, "shapes": [ {"type": "sphere", "radius": 1} ]} ]}'
# Two unit cubes overlapping by 2 mm at their 4 corner contacts: one pair, named alone
# (the count of pairs appears only when several pairs overlap).
S box_overlap "'b1' overlaps 'b2' (bodies[2]) at the start by 0.002 m (more than contact.overlap_tolerance 0.001 m): move" "$h3"'"bodies": [ {"name": "ground", "type": "static", "shapes": [ {"type": "plane"} ]}, {"name": "b1", "mass": 1, "position": [0, 0, 0.5], "shapes": [ {"type": "box", "half_extents": [0.5, 0.5, 0.5]} ]}, {"name": "b2", "mass": 1, "position": [0.1, 0, 1.498], "shapes": [ {"type": "box", "half_extents": [0.5, 0.5, 0.5]} ]} ]}'
# A body starting beyond a limit by less than 4 digits show: the value with the digits that
# do (it read "|position| = 1 m, beyond this limit, 1 m").
S limit_digits "limit_digits.json:1:115: limits.max_position: body 'b' starts with |position| = 1.0000000001 m, beyond this limit, 1 m" "$h3"'"limits": {"max_position": 1}, "bodies": [ {"name": "b", "mass": 1, "inertia": [1, 1, 1], "position": [1.0000000001, 0, 0]} ]}'
S grid_zero "grid_zero.json:1:" "$h3"'"bodies": [ {"mass": 1, "shapes": [ {"type": "sphere", "radius": 1} ], "grid": {"count": [0, 1, 1], "spacing": [3, 3, 3]}} ]}'
S margin "margin.json:1:" "$h3"'"contact": {"margin": -1}, "bodies": [ {"mass": 1, "shapes": [ {"type": "sphere", "radius": 1} ]} ]}'
S joint_body "joint_body.json:1:" "$h3"'"bodies": [ {"name": "A", "mass": 1, "shapes": [ {"type": "sphere", "radius": 1} ]} ], "joints": [ {"type": "pin", "ends": [ {"body": "Z", "point": [0, 0, 0]}, {"world": [0, 0, 0]} ]} ]}'
S tether_length "tether_length.json:1:" "$h3"'"bodies": [ {"name": "A", "mass": 1, "shapes": [ {"type": "sphere", "radius": 1} ]} ], "tethers": [ {"length": -1, "ends": [ {"body": "A", "point": [0, 0, 0]}, {"world": [0, 0, 5]} ]} ]}'
S pair_body "pair_body.json:1:" "$h3"'"contact": {"restitution_pairs": [ {"bodies": ["A", "Q"], "restitution": 0.5} ]}, "bodies": [ {"name": "A", "mass": 1, "shapes": [ {"type": "sphere", "radius": 1} ]} ]}'

# ---- scene file, command line ----
F ok.json '{"lcpsim": 1, "time_step": 0.1, "steps": 3, "bodies": [ {"mass": 1} ]}'
t missing_scene "nothere.json" "$in/nothere.json" -o @OUT
t scene_dir "in:" "$in" -o @OUT
t steps_opt "--steps" "$in/ok.json" --steps 0 -o @OUT
t steps_neg "--steps" "$in/ok.json" --steps -3 -o @OUT
t steps_text "--steps" "$in/ok.json" --steps abc -o @OUT
t steps_big "--steps: need an integer from 1 to 2147483647, got '99999999999'" "$in/ok.json" --steps 99999999999 -o @OUT
export LSIM_SIMD=avx1024; t simd_env "LSIM_SIMD" "$in/ok.json" -o @OUT; unset LSIM_SIMD
# The library takes a value of its LSIM_* variables it does not know as unset (the
# default ran silently, a comparison of nothing); lcpsim refuses it, naming what it takes.
export LSIM_LU_SOLVE=KLU; t lu_solve_env "LSIM_LU_SOLVE='KLU': expected own, umfpack, klu or ft" "$in/ok.json" -o @OUT; unset LSIM_LU_SOLVE
export LSIM_LU_REFACTOR=5; t lu_refactor_env "LSIM_LU_REFACTOR='5': expected an integer from 10 to 100000" "$in/ok.json" -o @OUT; unset LSIM_LU_REFACTOR
export LSIM_BLOCK_START=x; t block_start_env "LSIM_BLOCK_START='x': expected an integer from 0 to 1000" "$in/ok.json" -o @OUT; unset LSIM_BLOCK_START
export LSIM_PRINCIPAL=x; t principal_env "LSIM_PRINCIPAL='x': expected an integer from 0 to 1000000" "$in/ok.json" -o @OUT; unset LSIM_PRINCIPAL
export LSIM_TIES_SHORTCUT=3; t ties_env "LSIM_TIES_SHORTCUT='3': expected 0, 1 or 2" "$in/ok.json" -o @OUT; unset LSIM_TIES_SHORTCUT
export LSIM_BOUND_SUMS=yes; t bound_sums_env "LSIM_BOUND_SUMS='yes': expected 0 or 1" "$in/ok.json" -o @OUT; unset LSIM_BOUND_SUMS
export LSIM_WIDE_ROWS=compact; t wide_rows_env "LSIM_WIDE_ROWS='compact': expected full" "$in/ok.json" -o @OUT; unset LSIM_WIDE_ROWS
export LSIM_AVX2_EVEX=on; t avx2_evex_env "LSIM_AVX2_EVEX='on': expected off" "$in/ok.json" -o @OUT; unset LSIM_AVX2_EVEX
export LSIM_PGS_PRECISION=single; t pgs_precision_env "LSIM_PGS_PRECISION='single': expected double or float" "$in/ok.json" -o @OUT; unset LSIM_PGS_PRECISION
t tol_opt "--tol" "$in/ok.json" --tol -1 -o @OUT
t tol_nan "--tol" "$in/ok.json" --tol nan -o @OUT
# "-" is a file name here, not standard input: the message says where stdin is.
t dash_scene "-: cannot read: No such file or directory (a scene on standard input: lcpsim /dev/stdin)" - -o @OUT
# 1e-400 is not 0 but reads as 0 (strtod's underflow): "need a number >= 0, got '1e-400'"
# named a condition the value meets; the range is what it misses.
t tol_underflow_opt "--tol: need a finite number >= 0 (in double range), got '1e-400'" "$in/ok.json" --tol 1e-400 -o @OUT
t omega_underflow_opt "--omega: need a number in (0, 2) (in double range), got '1e-400'" "$in/ok.json" --solver pgs --omega 1e-400 -o @OUT
t newton_tol0 "newton needs a tolerance > 0" "$in/ok.json" --solver newton --tol 0 -o @OUT
t maxiter_opt "--max-iter" "$in/ok.json" --max-iter -1 -o @OUT
t omega_opt "--omega" "$in/ok.json" --omega 2 -o @OUT
t out_empty "-o: the output file name is empty" "$in/ok.json" -o ""
t compare_out_empty "-o: the output file name is empty" compare "$in/ok.json" --solvers lemke -o ""
t threads_opt "--threads" "$in/ok.json" --threads 65 -o @OUT
t sparse_opt "--sparse-limit" "$in/ok.json" --sparse-limit -2 -o @OUT
t dump_dense_opt "--dump-dense-limit" "$in/ok.json" --dump-lcp --dump-dense-limit -2 -o @OUT
t dump_dense_text "--dump-dense-limit" "$in/ok.json" --dump-lcp --dump-dense-limit many -o @OUT
t solve_sparse_opt "--sparse-limit" solve tests/data/lemke_pile10_step26.dat --solver newton --sparse-limit x
# A scene given to solve is named as one (it was read as an LCP: "ok.json:1: n: not an
# integer: '{'").
t solve_scene "ok.json: a JSON text (a scene? 'lcpsim $in/ok.json' runs it), not a problem file" solve "$in/ok.json"
t duration_opt "--duration" "$in/ok.json" --duration 0 -o @OUT
# More steps than an int holds: said so (it was "not a whole number of steps").
t duration_many "--duration 1e9 gives 10000000000 steps of 0.1 s; must be between 1 and 2147483647" "$in/ok.json" --duration 1e9 -o @OUT
# The duration as given (%g had named it 1: "--duration 1 is not a whole number of steps").
t duration_digits "--duration 1.0000001 is not a whole number of steps of 0.1 s (10.000000999999999 steps)" "$in/ok.json" --duration 1.0000001 -o @OUT
F step_third.json '{"lcpsim": 1, "time_step": 0.0033333333333333335, "steps": 3, "bodies": [ {"mass": 1} ]}'
t duration_step_digits "--duration 1.001 is not a whole number of steps of 0.0033333333333333335 s" "$in/step_third.json" --duration 1.001 -o @OUT
F huge_step.json '{"lcpsim": 1, "time_step": 1e307, "steps": 3, "bodies": [ {"mass": 1} ]}'
t steps_time_inf "huge_step.json: 100 steps of 1e+307 s end at a time that is not finite" "$in/huge_step.json" --steps 100 -o @OUT
t solver_opt "nosuch" "$in/ok.json" --solver nosuch -o @OUT
t solver_opt_fc "'siconos:fc3d_nsgs' is a frictional contact solver" "$in/ok.json" --solver siconos:fc3d_nsgs -o @OUT
t solver_qp "siconos:qp" "$in/ok.json" --solver siconos:qp -o @OUT
t bogus_opt "--bogus" "$in/ok.json" --bogus -o @OUT
t opt_equals "unknown option '--steps=2' (an option's value is the next argument: --steps 2;" "$in/ok.json" --steps=2 -o @OUT
t two_scenes "two_blocks.json" "$in/ok.json" "$(pwd)/data/two_blocks.json" -o @OUT
t steps_missing "--steps" "$in/ok.json" -o @OUT --steps

# ---- .dat files (lcpsim solve): file:line:column ----
F trunc.dat '3\n0\n3 3\n3 3\n1 0 0\n0 1 0\n'
F text.dat '2\n0\n2 2\n2 2\n1 0 0 abc\n1 1\n'
F nan_q.dat '1\n0\n1 1\n1 1\n2\nnan\n'
F size.dat '2\n0\n3 3\n'
F storage.dat '2\n7\n2 2\n'
F empty.dat ''
F negn.dat '-4\n0\n'
F block.dat '2\n1\n2 2\n1\n1 1\n2\n2\n2 1\n0 1\n0\n5\n1 0 0 1\n1 1\n'
F fc_mu.dat '3\n1\n0\n3 3\n3 3\n1 0 0\n0 1 0\n0 0 1\n1 2 3\n-0.5\n'
F fc_dim.dat '4\n1\n0\n4 4\n'
t dat_missing "missing.dat" solve "$in/missing.dat"
t dat_trunc "trunc.dat:6:6: expected 9 matrix entries, file ends after 6" solve "$in/trunc.dat"
t dat_text "text.dat:5:7: not a number: 'abc'" solve "$in/text.dat"
t dat_nan "nan_q.dat:6:1: NaN or Inf in q" solve "$in/nan_q.dat"
t dat_size "size.dat:3:1: size0 3 does not match n 2" solve "$in/size.dat"
t dat_storage "storage.dat:2:1:" solve "$in/storage.dat"
t dat_empty "empty.dat:1:1:" solve "$in/empty.dat"
t dat_negn "negn.dat:1:1:" solve "$in/negn.dat"
t dat_block "block.dat:11:1: block number 5, expected 0" solve "$in/block.dat"
t fc_mu "fc_mu.dat:10:1: mu of contact 0 is negative" solve "$in/fc_mu.dat"
t fc_dim "fc_dim.dat:3:1: size0 0 does not match n 4" solve "$in/fc_dim.dat"
# Siconos mixed LCP files: named as such (n = m = 1 once read silently as a 1 x 1 LCP).
mlcp=$(pwd)/../shared/data/siconos-mlcp
t mlcp_solve "deudeu_mlcp.dat:1:1: a mixed linear complementarity problem (Siconos MLCP .dat: 1 equality and 1 complementarity rows), not supported" solve "$mlcp/deudeu_mlcp.dat"
t mlcp_solve_big "Buck2_mlcp.dat:1:1: a mixed linear complementarity problem (Siconos MLCP .dat: 20 equality and 12" solve "$mlcp/Buck2_mlcp.dat"
t mlcp_compare "Rectangular_mlcp.dat:1:1: a mixed linear complementarity problem" compare "$mlcp/Rectangular_mlcp.dat" --solvers lemke -o @OUT
# ---- solve / export / view / compare / impact command lines ----
t solve_none "lcpsim solve: no problem file" solve
t no_args "lcpsim: no scene or command" 
t export_none "lcpsim export: no RUN.h5" export
t view_none "lcpsim view: no FILE.h5" view
t compare_none "lcpsim compare: no SCENE.json" compare
t impact_none "lcpsim impact: no SCENE.json" impact
# solvers takes no argument: one was ignored and the list printed, exit 0 (--bogus, and
# --help, which printed the list instead of the command's help).
t solvers_arg "lcpsim solvers: unexpected argument '--bogus'" solvers --bogus
t solvers_two "lcpsim solvers: unexpected argument 'lemke'" solvers lemke
t solve_tol "--tol" solve "$in/trunc.dat" --tol -1
t solve_tol_inf "--tol: need a finite number >= 0 (in double range), got 'inf'" solve "$in/trunc.dat" --tol inf
t solve_solver "nosuch" solve "$(pwd)/../shared/data/siconos-lcp/lcp_CPS_1.dat" --solver nosuch
t solve_two "trunc.dat" solve "$in/trunc.dat" "$in/text.dat"
t solve_step_dat "--step" solve "$in/trunc.dat" --step 2
F fake.h5 'not an HDF5 file\n'
t solve_h5_nostep "--step" solve "$in/fake.h5"
t solve_h5_fake "fake.h5" solve "$in/fake.h5" --step 1
t export_fake "fake.h5" export "$in/fake.h5" --step 1 -o @OUT
t view_fake "fake.h5" view "$in/fake.h5" -o @OUT
# HDF5 files lcpsim did not write, or the empty root a run killed before its header's flush
# leaves: refused (a page that said so only in the browser, exit 0)
/usr/bin/python3 -c "import h5py; h5py.File('$in/empty.h5', 'w').close(); h5py.File('$in/other.h5', 'w')['x'] = 1"
t view_empty "empty.h5: not an lcpsim file (no /format_version and /lcpsim_version): it holds nothing" view "$in/empty.h5" -o @OUT
t view_other "other.h5: not an lcpsim file (no /format_version and /lcpsim_version)" view "$in/other.h5" -o @OUT
t view_missing "gone.h5: cannot open: No such file or directory" view "$in/gone.h5" -o @OUT
t view_dir "$in: is a directory (a run or compare file of lcpsim is a file)" view "$in" -o @OUT
t compare_solver "nosuch" compare "$in/ok.json" --solvers lemke,nosuch -o @OUT
# An option given twice (the second value silently won: -o a.h5 -o b.h5 wrote b.h5 only).
t twice_o "lcpsim: -o is given twice" "$in/ok.json" -o @OUT -o @OUT
t twice_output "lcpsim: -o is given twice (as --output, then as -o)" "$in/ok.json" --output @OUT -o @OUT
t twice_steps "lcpsim: --steps is given twice" "$in/ok.json" --steps 3 --steps 5 -o @OUT
t twice_compare "lcpsim compare: --solvers is given twice" compare "$in/ok.json" --solvers lemke --solvers pgs -o @OUT
t twice_solve "lcpsim solve: --solver is given twice" solve "$mlcp/Rectangular_mlcp.dat" --solver lemke --solver pgs
t twice_impact "lcpsim impact: --close is given twice" impact "$in/ok.json" --close 0:1 --close 1:0
t twice_view "lcpsim view: --output is given twice (as -o, then as --output)" view "$in/ok.json" -o @OUT --output @OUT
t compare_nosolvers "--solvers" compare "$in/ok.json" -o @OUT
t compare_dat "trunc.dat:6:6:" compare "$in/trunc.dat" --solvers lemke -o @OUT
t impact_close "--close" impact "$in/ok.json" --close A:Z
t impact_twice "lcpsim impact: --close: 'lower:ground' is named twice" impact "$(pwd)/data/double_pendulum_impact.json" --close ground:lower,lower:ground
# an empty list (printed the state unchanged, exit 0)
t impact_empty "lcpsim impact: --close needs a list of pairs A:B, got ''" impact "$(pwd)/data/double_pendulum_impact.json" --close ''
t impact_self "lcpsim impact: --close: 'lower:lower' pairs a body with itself" impact "$(pwd)/data/double_pendulum_impact.json" --close lower:lower
# ---- HDF5 inputs: run files with and without a dump ----
"$bin" data/two_blocks.json --steps 3 --dump-lcp --quiet -o "$in/run.h5" || echo "FAIL: cannot make run.h5"
"$bin" data/two_blocks.json --steps 2 --quiet -o "$in/plain.h5" || echo "FAIL: cannot make plain.h5"
t h5_step "run.h5: step 99 has no LCP (3 steps have one, from 1 to 3; the nearest is 3;" solve "$in/run.h5" --step 99
t h5_missing "gone.h5: cannot open: No such file or directory" solve "$in/gone.h5" --step 1
t export_missing "gone.h5: cannot open: No such file or directory" export "$in/gone.h5" --step 1 -o @OUT
t solve_threads "--threads: need an integer in 1..64, got '0'" solve "$in/run.h5" --step 1 --threads 0
t h5_step0 "--step" solve "$in/run.h5" --step 0
t h5_nodump "plain.h5: no LCP dump" solve "$in/plain.h5" --step 1
# The series the step has are named (a run's one problem a step is series 0).
t h5_series "run.h5: step 1 has no LCP of series 5 (it has series 0)" solve "$in/run.h5" --step 1 --series 5
t export_step "run.h5: step 99 has no LCP" export "$in/run.h5" --step 99 -o @OUT
t export_series "run.h5: step 1 has no LCP of series 4 (it has series 0)" export "$in/run.h5" --step 1 --series 4 -o @OUT
t warm_binary "run.h5: an HDF5 file (not text: a binary file), not a warm start of 2 numbers" solve "$(pwd)/../shared/data/siconos-lcp/lcp_CPS_1.dat" --warm "$in/run.h5"
# Warm starts for lcp_CPS_1 (n = 2): the line and the entry named.
cps1=$(pwd)/../shared/data/siconos-lcp/lcp_CPS_1.dat
F warm3.txt '0.5\n\n0.5 1\n'
F warmtext.txt '0.5\n0.5x\n'
F warmshort.txt '0.5\n\n'
t warm_extra "warm3.txt:3:5: entry 3: more than the 2 numbers of the warm start (n = 2)" solve "$cps1" --warm "$in/warm3.txt"
t warm_text "warmtext.txt:2:1: entry 2: not a finite number: '0.5x'" solve "$cps1" --warm "$in/warmtext.txt"
t warm_short "warmshort.txt:1:4: expected 2 numbers for the warm start (n = 2), file ends after 1" solve "$cps1" --warm "$in/warmshort.txt"
t warm_dir "$in: read error: Is a directory" solve "$cps1" --warm "$in"
F warm4.txt '1 2 3\n4\n'
t warm_fc "warm4.txt:2:1: entry 4: more than the 3 numbers of the warm start (n = 3)" solve "$(pwd)/../shared/data/siconos-fc3d/FrictionContact3D_1c.dat" --warm "$in/warm4.txt"
# FCLIB files with a group missing or a bad mu: the dataset named.
/usr/bin/python3 - "$(pwd)/../shared/data/siconos-fc3d/Box_Stacks-i0122-82-5.hdf5" "$in" <<'PY' || echo "FAIL: cannot make FCLIB inputs"
import sys, shutil, h5py, numpy as np
src, d = sys.argv[1], sys.argv[2]
for name, edit in (("noH", lambda f: f.__delitem__("fclib_global/H")),
                   ("nanmu", lambda f: f["fclib_global/vectors/mu"].__setitem__(0, np.nan))):
    shutil.copy(src, d + "/" + name + ".hdf5")
    with h5py.File(d + "/" + name + ".hdf5", "r+") as f:
        edit(f)
PY
t fclib_noH "noH.hdf5: /fclib_global/H/m: missing" solve "$in/noH.hdf5"
t fclib_step "Box_Stacks-i0122-82-5.hdf5: an FCLIB frictional contact problem, not a run or compare file: it has no steps" solve "$(pwd)/../shared/data/siconos-fc3d/Box_Stacks-i0122-82-5.hdf5" --step 1
t fclib_export "Box_Stacks-i0122-82-5.hdf5: an FCLIB frictional contact problem, not a run or compare file" export "$(pwd)/../shared/data/siconos-fc3d/Box_Stacks-i0122-82-5.hdf5" --step 1 -o @OUT
t fclib_nanmu "nanmu.hdf5: /fclib_global/vectors/mu: mu(0) = nan: need a finite mu >= 0" solve "$in/nanmu.hdf5"
# A frictional contact solver or cone that does not fit the problem's dimension: exit 2.
fc3=$(pwd)/../shared/data/siconos-fc3d/FC3D_Example1.dat
t fc_2d_solver "FC3D_Example1.dat: siconos:fc2d_nsgs solves 2-D problems, this one is 3-D" solve "$fc3" --solver siconos:fc2d_nsgs
t fc_d6 "FC3D_Example1.dat: 3-D problems take d a multiple of 4" solve "$fc3" --solver lemke --d 6
t fc_d_exact "--d 8: nsgs uses the exact cone; --d is for an LCP solver on the polyhedral cone" solve "$fc3" --solver nsgs --d 8
# A frictional contact file in an LCP set is named as such (it was read as an LCP:
# "FC3D_Example1.dat:4:1: size0 0 does not match n 3"; an FCLIB file: "give .dat files or
# one scene, not both"), as an LCP file in a frictional contact set is.
t compare_lcp_fc "FC3D_Example1.dat': frictional contact problem (Siconos .dat), not a linear complementarity problem: an LCP set takes LCP .dat files only" compare "$cps1" "$fc3" --solvers lemke -o @OUT
t compare_lcp_fclib "Box_Stacks-i0122-82-5.hdf5': frictional contact problem (FCLIB HDF5), not a linear complementarity problem" compare "$cps1" "$(pwd)/../shared/data/siconos-fc3d/Box_Stacks-i0122-82-5.hdf5" --solvers lemke -o @OUT
t compare_fc_lcp "lcp_CPS_1.dat': linear complementarity problem (Siconos .dat), not a frictional contact problem" compare "$fc3" "$cps1" --solvers nsgs -o @OUT
t compare_mode "--mode" compare "$in/ok.json" --solvers lemke --mode bogus -o @OUT
t compare_spec "'lemke[tol=-1]': tol must be a number >= 0, got -1" compare "$in/ok.json" --solvers 'lemke[tol=-1]' -o @OUT
# an option's value left out, the next option taken for it (said "one scene only, got
# 'ok.json' and '.../out.h5'")
t solver_no_value "--solver needs a value, got the option '-o'" "$in/ok.json" --solver -o @OUT
t resume_no_value "--resume needs a value, got the option '--quiet'" "$in/ok.json" --resume --quiet -o @OUT
# A missing run file was "cannot open as an HDF5 file", as if it held something else.
t resume_missing "--resume $in/gone.h5: cannot open: No such file or directory" "$in/ok.json" --resume "$in/gone.h5" -o @OUT
t resume_dir "--resume $in: is a directory (a run file of lcpsim is a file)" "$in/ok.json" --resume "$in" -o @OUT
t h5_dir "$in: is a directory" solve "$in" --step 1
t export_dir "$in: is a directory" export "$in" --step 1 -o @OUT
t compare_no_value "lcpsim compare: --solvers needs a value, got the option '-o'" compare "$in/ok.json" --solvers -o @OUT
# what the key takes said (said only "bad value '2' for omega")
t compare_omega "'pgs[omega=2]': omega must be a number in (0, 2), got 2" compare "$in/ok.json" --solvers 'pgs[omega=2]' -o @OUT
t compare_threads "threads must be an integer in [1, 64], got 0" compare "$in/ok.json" --solvers 'pgs[threads=0]' -o @OUT
t compare_key "unknown option 'bogus'" compare "$in/ok.json" --solvers 'pgs[bogus=1]' -o @OUT
t compare_repeat "--repeat" compare "$in/ok.json" --solvers lemke --repeat 0 -o @OUT
# Solver options on an event-driven scene: refused (ignored before, exit 0, while
# /parameters/solver_name recorded the solver the run did not use).
ev=$(pwd)/data/bouncing_ball_events.json
t event_solver "bouncing_ball_events.json: --solver applies to the time step's solver, not to \"integrator\": \"event_driven\"" "$ev" --solver pgs -o @OUT --quiet
t event_tol "bouncing_ball_events.json: --tol applies to the time step's solver" "$ev" --tol 1e-3 -o @OUT --quiet
t event_threads "bouncing_ball_events.json: --threads applies to the time step's solver" "$ev" --threads 2 -o @OUT --quiet
# output.record_every of an event-driven scene: its place named, file:line:column, as for
# any bad value (said "event_record_every.json: output.record_every 3 applies ...").
S event_record_every "event_record_every.json:1:269: output.record_every: 3 applies to the time step; \"integrator\": \"event_driven\" records at every multiple of its time_step" '{"lcpsim": 1, "dimension": 2, "time_step": 0.001, "duration": 0.01, "integrator": "event_driven", "bodies": [{"type": "static", "shapes": [{"type": "plane"}]}, {"mass": 1, "position": [0, 1], "shapes": [{"type": "sphere", "radius": 0.1}]}], "output": {"record_every": 3}}'
t event_record_every_cli "bouncing_ball_events.json: --record-every 3 applies to the time step" "$ev" --record-every 3 -o @OUT --quiet
t out_dir "nodir/out.h5" "$in/ok.json" -o "$run/nodir/out.h5"
t out_is_dir "$run" "$in/ok.json" -o "$run"

# An output that is an input: refused, the input intact (the snapshot compares contents).
t export_self "$in/run.h5: the output is the input file itself" export "$in/run.h5" --step 1 -o "$in/run.h5"
t view_self "$in/run.h5: the page would replace the file it shows" view "$in/run.h5" -o "$in/run.h5"
t compare_self "-o $in/ok.json: is the input file" compare "$in/ok.json" --solvers lemke -o "$in/ok.json"
t compare_self_dat "-o $in/trunc.dat: is the input file" compare "$in/trunc.dat" --solvers lemke -o "$in/trunc.dat"
# The help of every command: usage on stdout, exit 0 (solvers --help printed the list).
for c in run solve compare export view impact models solvers; do
  "$bin" $c --help > "$top/stdout" 2> "$top/stderr" || { name=help_$c; fail "exit $?"; }
  head -n 1 "$top/stdout" | grep -q "^usage: lcpsim \(\[\)\{0,1\}$c" ||
    { name=help_$c; fail "first line: $(head -n 1 "$top/stdout")"; }
  [ -s "$top/stderr" ] && { name=help_$c; fail "stderr: $(head -c 200 "$top/stderr")"; }
done
# A misspelt LSIM_ name did nothing: a note names what lcpsim reads; the run goes on.
rm -rf "$run" && mkdir -p "$run"
LSIM_SMID=scalar "$bin" "$in/ok.json" -o "$run/out.h5" --quiet > "$top/stdout" 2> "$top/stderr" ||
  { name=misspelt_env; fail "exit $?"; }
grep -qF "note: environment LSIM_SMID is not a variable lcpsim reads (it reads LSIM_SIMD," "$top/stderr" ||
  { name=misspelt_env; fail "stderr: $(head -c 300 "$top/stderr")"; }
[ -s "$run/out.h5" ] || { name=misspelt_env; fail "no output file"; }
# Every variable the note says lcpsim reads is in --help's environment list and in
# docs/solvers.md's Environment table (LSIM_VIEW_PIECE, a test hook, was in neither).
name=env_listed
"$bin" --help > "$top/help" 2>&1 || fail "--help: exit $?"
sed -n 's/.*(it reads \(.*\))$/\1/p' "$top/stderr" | tr -d ',' | tr ' ' '\n' | grep . > "$top/vars"
[ "$(wc -l < "$top/vars")" -ge 10 ] || fail "the note lists $(wc -l < "$top/vars") variables"
sed -n '/^### Environment/,/^## /p' docs/solvers.md > "$top/envdoc"
while read -r v; do
  grep -q "$v" "$top/help" || fail "$v not in lcpsim --help"
  grep -q "^| \`$v\` |" "$top/envdoc" || fail "$v not in docs/solvers.md's Environment table"
done < "$top/vars"
echo "bad input: $cases cases"
[ $fails -eq 0 ] && echo "ok: bad input"
[ $fails -eq 0 ]
