#!/bin/sh
# record_readers.sh: the analysis scripts read the recorder's file correctly.
# build/tests/test_record --write-sample writes the sample run of tests/test_record.c
# (2 bodies, 3 steps, exact dyadic values); the Python and Octave loaders must return the
# same numbers in the same orientation, and both plot scripts must write a PNG.
# build/tests/test_record_nd --write-sample-2d / -3d write the 2-D and 3-D samples (every
# body type and shape kind): both loaders' per-body helpers, shapes and inertia give the
# same numbers (a dump of each compared byte for byte), both plot scripts write PNGs, and
# lcpsim_animate.py writes PNG sequences, GIFs and MP4s (read back with ffprobe) with the
# expected number of frames.
set -eu
cd "$(dirname "$0")/../.."
PY=/usr/bin/python3
tmp=$(mktemp -d /tmp/lsim_e2e_readers_XXXXXX)
trap 'rm -rf "$tmp"' EXIT

make -s build/tests/test_record build/tests/test_record_nd >/dev/null
build/tests/test_record --write-sample "$tmp/run.h5"

# Python: module use, exact values, contact slicing, command-line summary, plot.
$PY - "$tmp/run.h5" <<'PYEOF'
import sys
sys.path.insert(0, "scripts")
import numpy as np
import lcpsim_load
r = lcpsim_load.load(sys.argv[1])
assert r.format_version == 3
assert r.scene_text == '{\n  "bodies": ["left", "right-block"]\n}\n', repr(r.scene_text)
assert r.bodies.name == ["left", "right-block"], r.bodies.name
assert r.parameters.solver_name == "pgs" and r.parameters.time_step == 0.25
assert r.parameters.nq == 2 and r.parameters.steps == 3
assert r.q.shape == (4, 2) and r.v.shape == (4, 2) and r.time.shape == (4,)
assert np.array_equal(r.time, [0, 0.25, 0.5, 0.75])
assert np.array_equal(r.q, [[0, 2], [0.25, 1.75], [0.5, 1.5], [0.625, 1.375]])
assert np.array_equal(r.v[:, 1], [-1, -1, -0.5, -0.5])
assert np.array_equal(r.energy.kinetic, [2.5, 2.5, 0.625, 0.625])
assert np.array_equal(r.energy.potential, [6, 5.75, 5.5, 5.375])
c = r.contacts
assert np.array_equal(c.offset, [0, 0, 0, 2, 3])
assert c.point.shape == (3, 3) and c.friction_impulse.shape == (3, 3)
assert c.id.dtype == np.uint64 and int(c.id[0]) == 0x8000000000000001 and c.id[1] == 42
assert c.count(1) == 0 and c.count(2) == 2 and c.count(3) == 1
s2 = c.at(2)
assert np.array_equal(s2.normal_impulse, [1.5, 0.25])
assert np.array_equal(s2.friction_impulse[1], [-0.125, 0, 0])
assert np.array_equal(s2.body_b, [1, -1])
assert np.array_equal(c.at(3).gap, [0.0625])
assert np.array_equal(r.solver.status, [0, 0, -1])
assert np.array_equal(r.solver.residual, [0, 2.0**-40, 0.5])
assert r.solver.status_legend[9] == "0 solved"
assert r.summary.failures == 1 and r.summary.total_contacts == 3
assert r.summary.max_penetration == 0.125 and r.summary.steps_done == 3
print("python loader: ok")
PYEOF
$PY scripts/lcpsim_load.py "$tmp/run.h5" > "$tmp/summary.txt"
grep -q "3 of 3 steps" "$tmp/summary.txt"
grep -q "1 failed steps" "$tmp/summary.txt"
$PY scripts/lcpsim_plot.py "$tmp/run.h5" -o "$tmp/py.png"
head -c 8 "$tmp/py.png" | od -An -c | grep -q "P   N   G"

# Octave: the same numbers, rows = steps, and r.q(2,1) equal to h5py's q[1, 0].
pyq=$($PY -c "import h5py,sys; print(repr(float(h5py.File(sys.argv[1],'r')['q'][1,0])))" \
      "$tmp/run.h5")
octq=$(octave-cli -H --no-init-file --eval \
       "addpath('scripts'); r = lcpsim_load('$tmp/run.h5'); printf('%.17g\n', r.q(2,1))")
echo "q[1,0]: h5py $pyq, octave $octq"
[ "$($PY -c "print(float('$pyq') == float('$octq'))")" = True ]

octave-cli -H --no-init-file --eval "
addpath('scripts');
r = lcpsim_load('$tmp/run.h5');
assert(r.format_version == 3);
assert(strcmp(r.scene_text, sprintf('{\n  \"bodies\": [\"left\", \"right-block\"]\n}\n')));
assert(isequal(r.bodies.name, {'left'; 'right-block'}));
assert(strcmp(r.parameters.solver_name, 'pgs') && r.parameters.time_step == 0.25);
assert(isequal(size(r.time), [4 1]) && isequal(size(r.q), [4 2]) && isequal(size(r.v), [4 2]));
assert(isequal(r.time, [0; 0.25; 0.5; 0.75]));
assert(isequal(r.q, [0 2; 0.25 1.75; 0.5 1.5; 0.625 1.375]));
assert(isequal(r.v(:, 1), [1; 1; 0.5; 0.5]));
assert(isequal(r.energy.kinetic, [2.5; 2.5; 0.625; 0.625]));
assert(isequal(r.energy.potential, [6; 5.75; 5.5; 5.375]));
c = r.contacts;
assert(isequal(double(c.offset), [0; 0; 0; 2; 3]));
assert(isequal(size(c.point), [3 3]) && isequal(size(c.gap), [3 1]));
assert(isa(c.id, 'uint64') && c.id(1) == bitshift(uint64(1), 63) + 1 && c.id(2) == 42);
assert(isempty(c.rows(1)) && isequal(c.rows(2), [1 2]) && isequal(c.rows(3), 3));
s2 = c.at(2);
assert(isequal(s2.normal_impulse, [1.5; 0.25]));
assert(isequal(s2.friction_impulse(2, :), [-0.125 0 0]));
assert(isequal(double(s2.body_b), [1; -1]));
assert(isequal(c.at(3).gap, 0.0625));
assert(isequal(double(r.solver.status), [0; 0; -1]));
assert(isequal(r.solver.residual, [0; 2^-40; 0.5]));
assert(strcmp(r.solver.status_legend{10}, '0 solved'));
assert(r.summary.failures == 1 && r.summary.total_contacts == 3);
assert(r.summary.max_penetration == 0.125 && r.summary.steps_done == 3);
lcpsim_plot('$tmp/run.h5', '$tmp/oct.png');
disp('octave loader: ok');
"
head -c 8 "$tmp/oct.png" | od -An -c | grep -q "P   N   G"
octave-cli -H --no-init-file --eval "
addpath('scripts');
r = lcpsim_load('$tmp/run.h5');
assert(isequal(r.position('right-block'), [2; 1.75; 1.5; 1.375]));
assert(isequal(r.velocity(1), [1; 1; 0.5; 0.5]));
assert(isempty(r.shapes_of(1)) && isempty(r.shapes.name) && isequal(size(r.shapes.position), [0 3]));
assert(isequal(size(r.bodies.inertia), [2 3 3]));
" >/dev/null

# ---- 2-D and 3-D samples
build/tests/test_record_nd --write-sample-2d "$tmp/run2.h5"
build/tests/test_record_nd --write-sample-3d "$tmp/run3.h5"

# Known values through the Python helpers.
$PY - "$tmp/run2.h5" "$tmp/run3.h5" <<'PYEOF2'
import sys
sys.path.insert(0, "scripts")
import numpy as np
import lcpsim_load
r2, r3 = lcpsim_load.load(sys.argv[1]), lcpsim_load.load(sys.argv[2])
assert r3.format_version == 3 and r3.parameters.dimension == 3
assert r3.bodies.name == ["ground", "crate", "ball", "pusher"]
assert r3.shapes.name == ["floor", "crate_box", "crate_handle", "ball_shell", "pusher_tip"]
assert list(r3.shapes_of("crate")) == [1, 2] and list(r3.shapes_of(0)) == [0]
assert r3.bodies.inertia.shape == (4, 3, 3) and r3.bodies.pose.shape == (4, 7)
assert r3.bodies.inertia[2, 1, 1] == 0.025 and r3.bodies.inertia[2, 0, 1] == 0
assert r3.bodies.inertia[1, 0, 1] == r3.bodies.inertia[1, 1, 0] == -0.0078125
assert np.array_equal(r3.position("crate")[:, 0], [0, 0.25, 0.5, 0.75, 1])
assert np.array_equal(r3.orientation("crate")[4], [0.5, 0.5, 0.5, 0.5])
assert np.array_equal(r3.orientation("crate")[1], [0.8, 0, 0, 0.6])
assert r3.position("ground").shape == (5, 3) and not r3.position("ground").any()
assert np.array_equal(r3.orientation("ground"), np.tile([1, 0, 0, 0], (5, 1)))
assert np.array_equal(r3.velocity("ball")[3], [0, 0, -2])
assert np.array_equal(r3.angular_velocity("crate")[0], [0, 0, 1.5])
assert r3.parameters.q_components == ["x", "y", "z", "qw", "qx", "qy", "qz"]
assert r3.parameters.shape_type_legend[4] == "4 box"
assert r3.parameters.body_type_legend[1] == "1 static"
assert np.array_equal(r3.contacts.at(2).point[0], [1, 0.5, 0])
assert r2.parameters.dimension == 2 and r2.position("disk").shape == (5, 2)
assert np.array_equal(r2.orientation("disk"), [0, -0.5, -1, -1.5, -2])
assert np.array_equal(r2.position("walls"), np.zeros((5, 2)))
assert np.array_equal(r2.orientation("walls"), np.zeros(5))
assert r2.bodies.pose[0, 3] == 0 and r2.bodies.inertia[2, 2, 2] == 0.03125
assert r2.angular_velocity("disk")[0] == -8 and r2.velocity("plank")[2, 1] == -1
assert r2.shapes.name[r2.shapes_of("walls")[1]] == "right_wall"
assert np.array_equal(r2.shapes.orientation[1], [2**-0.5, 0, 0, 2**-0.5])
try:
    lcpsim_load.load(sys.argv[1]).position("nobody")
    raise SystemExit("an unknown body name was accepted")
except KeyError:
    pass
print("python helpers on the 2-D and 3-D samples: ok")
PYEOF2
$PY scripts/lcpsim_load.py "$tmp/run3.h5" > "$tmp/summary3.txt"
grep -q "shapes 5: 1 plane, 1 box, 1 capsule, 1 sphere, 1 point" "$tmp/summary3.txt"

# The same numbers from both loaders: a dump of every helper, the shapes and the inertia.
$PY - "$tmp/run2.h5" "$tmp/run3.h5" <<'PYEOF2'
import sys
sys.path.insert(0, "scripts")
import numpy as np
import lcpsim_load

def dump(path, out):
    r = lcpsim_load.load(path)
    lines = []
    def put(label, a):
        a = np.asarray(a, dtype=float).ravel()
        lines.append(label + "".join(" %.17g" % x for x in a))
    put("dimension", r.parameters.dimension)
    lines.append("q_components " + " ".join(r.parameters.q_components))
    lines.append("v_components " + " ".join(r.parameters.v_components))
    for i, name in enumerate(r.bodies.name):
        put(f"{name} position", r.position(name))
        put(f"{name} orientation", r.orientation(i))
        put(f"{name} velocity", r.velocity(name))
        put(f"{name} angular_velocity", r.angular_velocity(i))
        put(f"{name} inertia", r.bodies.inertia[i])
        put(f"{name} pose", r.bodies.pose[i])
        lines.append(f"{name} shapes " + " ".join(r.shapes.name[j] for j in r.shapes_of(i)))
    s = r.shapes
    for j, name in enumerate(s.name):
        for field in ("type", "body", "position", "orientation", "radius", "half_extents",
                      "mu"):
            put(f"shape {name} {field}", s[field][j])
    put("contacts point", r.contacts.point)
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")

for p in sys.argv[1:]:
    dump(p, p + ".py.txt")
PYEOF2
cat > "$tmp/dump_run.m" <<'MEOF'
function dump_run(path, out)
  r = lcpsim_load(path);
  fid = fopen(out, 'w');
  put(fid, 'dimension', r.parameters.dimension);
  fprintf(fid, 'q_components %s\n', strjoin(r.parameters.q_components', ' '));
  fprintf(fid, 'v_components %s\n', strjoin(r.parameters.v_components', ' '));
  for i = 1:numel(r.bodies.name)
    name = r.bodies.name{i};
    put(fid, [name ' position'], r.position(name));
    put(fid, [name ' orientation'], r.orientation(i));
    put(fid, [name ' velocity'], r.velocity(name));
    put(fid, [name ' angular_velocity'], r.angular_velocity(i));
    put(fid, [name ' inertia'], squeeze(r.bodies.inertia(i, :, :)));
    put(fid, [name ' pose'], r.bodies.pose(i, :));
    fprintf(fid, '%s shapes %s\n', name, strjoin(r.shapes.name(r.shapes_of(i))', ' '));
  end
  s = r.shapes;
  fields = {'type', 'body', 'position', 'orientation', 'radius', 'half_extents', 'mu'};
  for j = 1:numel(s.name)
    for f = 1:numel(fields)
      x = s.(fields{f});
      put(fid, ['shape ' s.name{j} ' ' fields{f}], x(j, :));
    end
  end
  put(fid, 'contacts point', r.contacts.point);
  fclose(fid);
end

% label, then the values in row-major (C) order, %.17g.
function put(fid, label, x)
  x = double(x).';
  fprintf(fid, '%s', label);
  fprintf(fid, ' %.17g', x(:));
  fprintf(fid, '\n');
end
MEOF
octave-cli -H --no-init-file --eval "
addpath('scripts'); addpath('$tmp');
dump_run('$tmp/run2.h5', '$tmp/run2.h5.m.txt');
dump_run('$tmp/run3.h5', '$tmp/run3.h5.m.txt');
lcpsim_plot('$tmp/run2.h5', '$tmp/oct2.png');
lcpsim_plot('$tmp/run3.h5', '$tmp/oct3.png');"
for d in 2 3; do
  if ! cmp -s "$tmp/run$d.h5.py.txt" "$tmp/run$d.h5.m.txt"; then
    echo "FAIL: the $d-D dumps of the Python and Octave loaders differ:"
    diff "$tmp/run$d.h5.py.txt" "$tmp/run$d.h5.m.txt" | head -20
    exit 1
  fi
  head -c 8 "$tmp/oct$d.png" | od -An -c | grep -q "P   N   G"
done
grep -q "^crate orientation 1 0 0 0 0.80000000000000004 0 0 0.59999999999999998 " \
  "$tmp/run3.h5.m.txt"
echo "2-D and 3-D: python and octave helpers agree ($(wc -l < "$tmp/run3.h5.m.txt") lines)"

# Plots and animations of the 2-D and 3-D samples: PNG and GIF magic bytes, frame counts.
is_png() { head -c 8 "$1" | od -An -c | grep -q "P   N   G"; }
for d in 2 3; do
  $PY scripts/lcpsim_plot.py "$tmp/run$d.h5" -o "$tmp/py$d.png"
  is_png "$tmp/py$d.png"
  $PY scripts/lcpsim_animate.py "$tmp/run$d.h5" -o "$tmp/frames$d/%04d.png" --dpi 40 \
    > /dev/null
  [ "$(ls "$tmp/frames$d" | wc -l)" -eq 5 ]
  for f in "$tmp/frames$d"/*.png; do is_png "$f"; done
  $PY scripts/lcpsim_animate.py "$tmp/run$d.h5" -o "$tmp/anim$d.gif" --every 3 --dpi 40 \
    > /dev/null
done
$PY scripts/lcpsim_animate.py "$tmp/run2.h5" -o "$tmp/lim/%d.png" --every 2 \
  --limits -1 3 -1 2 --dpi 30 > /dev/null
[ "$(ls "$tmp/lim" | wc -l)" -eq 3 ] && is_png "$tmp/lim/2.png"
# --every 3 over states 0..4: states 0, 3 and the last, 4.
$PY - "$tmp/anim2.gif" "$tmp/anim3.gif" <<'PYEOF2'
import sys

def gif_frames(path):
    """Counts the image descriptors of a GIF, walking its blocks (stdlib only)."""
    b = open(path, "rb").read()
    assert b[:6] in (b"GIF87a", b"GIF89a"), b[:6]
    pos = 13
    if b[10] & 0x80:
        pos += 3 << ((b[10] & 7) + 1)
    frames = 0
    def skip_sub(p):
        while b[p]:
            p += b[p] + 1
        return p + 1
    while True:
        c = b[pos]
        if c == 0x3B:
            return frames
        if c == 0x21:
            pos = skip_sub(pos + 2)
        elif c == 0x2C:
            frames += 1
            flags = b[pos + 9]
            pos += 10
            if flags & 0x80:
                pos += 3 << ((flags & 7) + 1)
            pos = skip_sub(pos + 1)
        else:
            raise ValueError(f"bad GIF block 0x{c:02x} at {pos}")

for p in sys.argv[1:]:
    n = gif_frames(p)
    assert n == 3, (p, n)
print("animations: PNG sequences and GIFs with the expected frames: ok")
PYEOF2
# MP4 (matplotlib's FFMpegWriter through ffmpeg, from scripts/install-deps), read back with
# ffprobe. The expected frame count comes from the run's recorded states n and --every K
# as in frame_states(): states 0, K, ..., K*floor((n-1)/K), and the last one if not among
# them. The 3-D one is 5 inches at 41 dpi, 205 pixels: yuv420p needs even sizes.
if ! command -v ffprobe > /dev/null; then
  echo "FAIL: no ffprobe (scripts/install-deps installs ffmpeg)"; exit 1
fi
every=3
for d in 2 3; do
  if [ $d = 2 ]; then size="--dpi 40"; else size="--size 5 --dpi 41"; fi
  states=$($PY -c 'import sys; sys.path.insert(0, "scripts"); import lcpsim_load
print(len(lcpsim_load.load(sys.argv[1]).time))' "$tmp/run$d.h5")
  expect=$(( (states - 1) / every + 1 ))
  if [ $(( (states - 1) % every )) -ne 0 ]; then expect=$((expect + 1)); fi
  # shellcheck disable=SC2086
  if ! said=$($PY scripts/lcpsim_animate.py "$tmp/run$d.h5" -o "$tmp/anim$d.mp4" \
      --every $every $size); then
    echo "FAIL: lcpsim_animate.py could not write the $d-D MP4"; exit 1
  fi
  if [ "$said" != "lcpsim_animate: $expect frames -> $tmp/anim$d.mp4" ]; then
    echo "FAIL: $d-D MP4: expected $expect frames ($states states, --every $every):"
    echo "$said"; exit 1
  fi
  if [ ! -s "$tmp/anim$d.mp4" ]; then echo "FAIL: no $d-D MP4 written"; exit 1; fi
  if ! probe=$(ffprobe -v error -select_streams v:0 -count_frames -show_entries \
      format=format_name:stream=codec_name,pix_fmt,width,height,nb_read_frames \
      -of default=noprint_wrappers=1 "$tmp/anim$d.mp4"); then
    echo "FAIL: ffprobe could not read the $d-D MP4"; exit 1
  fi
  field() { printf '%s\n' "$probe" | sed -n "s/^$1=//p"; }
  fmt=$(field format_name); codec=$(field codec_name); pix=$(field pix_fmt)
  w=$(field width); h=$(field height); n=$(field nb_read_frames)
  case ",$fmt," in *,mp4,*) mp4=yes ;; *) mp4=no ;; esac
  if [ $mp4 = no ] || [ "$codec" != h264 ] || [ "$pix" != yuv420p ] \
     || [ $(( ${w:-1} % 2 + ${h:-1} % 2 )) -ne 0 ] || [ "$n" != "$expect" ]; then
    echo "FAIL: $d-D MP4: expected mp4, h264, yuv420p, even sizes, $expect frames; ffprobe:"
    printf '%s\n' "$probe"; exit 1
  fi
  echo "mp4 $d-D: $states states, --every $every: $expect frames;" \
    "ffprobe: $codec $pix ${w}x$h, $n frames: ok"
done
# A 1-D run is animated too (tests/e2e/plots_animations.sh checks its frames).
$PY scripts/lcpsim_animate.py "$tmp/run.h5" -o "$tmp/x.gif" --dpi 30 > /dev/null
head -c 6 "$tmp/x.gif" | grep -q GIF8

# Tethers and joints (the constraint sample of tests/test_record.c): both loaders give the
# same numbers in the same orientation ([N+1, T], [N, T], [N, J, 3]) and the name helpers.
build/tests/test_record --write-sample-constraints "$tmp/tethers.h5"
$PY - "$tmp/tethers.h5" <<'PYEOF3'
import sys
sys.path.insert(0, "scripts")
import numpy as np
import lcpsim_load
r = lcpsim_load.load(sys.argv[1])
t, j = r.tethers, r.joints
assert t.name == ["ab", "up"] and np.array_equal(t.length_max, [2, 1])
assert np.array_equal(t.length, [[2, 1], [1.5, 1.0625], [1.25, 1]])
assert np.array_equal(t.impulse, [[0, 0.5], [0, 0]])
assert np.array_equal(t.taut, [[0, 1], [0, 1]])
assert j.name == ["hinge", "bar"] and j.type == ["pin", "rod"]
assert np.array_equal(j.rows, [2, 1]) and np.array_equal(j.length, [0, 2])
assert j.impulse.shape == (2, 2, 3)
assert np.array_equal(j.impulse[0], [[0.25, -0.125, 0], [0.0625, 0, 0]])
assert np.array_equal(j.impulse[1, :, 0], [0.5, -0.25])
assert np.array_equal(j.error, [[0, 0], [0.5, 0.5], [0.75, 0.75]])
assert r.tether_index("up") == 1 and r.joint_index("bar") == 1
assert r.summary.max_tether_stretch == 0.0625 and r.summary.max_joint_error == 0.75
assert r.parameters.baumgarte == 0.125
try:
    r.tether_index("nope")
    raise SystemExit("tether_index accepted an unknown name")
except KeyError:
    pass
print("python loader, tethers and joints: ok")
PYEOF3
$PY scripts/lcpsim_load.py "$tmp/tethers.h5" | grep -q "tethers 2: max stretch 0.0625 m"
# A reader that closes the pipe first (true exits at once): the summary ends quietly, no
# BrokenPipeError on stderr.
$PY scripts/lcpsim_load.py "$tmp/tethers.h5" 2> "$tmp/pipe.err" | true
[ ! -s "$tmp/pipe.err" ] || { echo "FAIL: lcpsim_load.py into a closed pipe: $(cat "$tmp/pipe.err")"; exit 1; }
octave-cli -H --no-init-file --eval "
addpath('scripts');
r = lcpsim_load('$tmp/tethers.h5');
t = r.tethers; j = r.joints;
assert(isequal(t.name, {'ab'; 'up'}) && isequal(t.length_max, [2; 1]));
assert(isequal(t.length, [2 1; 1.5 1.0625; 1.25 1]));
assert(isequal(t.impulse, [0 0.5; 0 0]) && isequal(double(t.taut), [0 1; 0 1]));
assert(isequal(j.name, {'hinge'; 'bar'}) && isequal(j.type, {'pin'; 'rod'}));
assert(isequal(double(j.rows), [2; 1]) && isequal(j.length, [0; 2]));
assert(isequal(size(j.impulse), [2 2 3]));
assert(isequal(squeeze(j.impulse(1, :, :)), [0.25 -0.125 0; 0.0625 0 0]));
assert(isequal(j.impulse(:, :, 1), [0.25 0.0625; 0.5 -0.25]));
assert(isequal(j.error, [0 0; 0.5 0.5; 0.75 0.75]));
assert(r.tether_index('up') == 2 && r.joint_index('bar') == 2);
assert(r.summary.max_tether_stretch == 0.0625 && r.parameters.baumgarte == 0.125);
disp('octave loader, tethers and joints: ok');
"
echo "record_readers: ok"
