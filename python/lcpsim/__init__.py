"""lcpsim: time-stepping rigid-body contact simulation, from Python.

A binding of the C library (include/lcpsim/lcpsim.h) through ctypes:

    import lcpsim
    sim = lcpsim.Sim.load("data/cart_wall.json")
    sim.q, sim.v                 # numpy views of the state (no copies; writes checked)
    sim.controller = lambda s: s.set_force(0, [1.0])   # called before every step
    sim.step()                   # one step; sim.run(n) for n
    sim.contacts()               # numpy structured array: id, kind, body, gap, point, ...
    sim.save("c.h5")             # a checkpoint; sim.restore("c.h5") continues from it, to
                                 # the bit (also in another Sim of the same scene)
    sim.body_pose("box")         # position (3,) and quaternion (w, x, y, z) (4,)
    sim.close()                  # or `with lcpsim.Sim.load(...) as sim:`
    w = lcpsim.World(2, 0.01)    # a world built in code (see World): add_body, add_shape,
    sim = w.start()              # add_joint, set_gravity, set_contact; then a Sim
    lcpsim.solve_lcp(M, q, "lemke")
    lcpsim.solve_fc(W, q, mu, "nsgs")   # a frictional contact problem (exact cone)
    lcpsim.compare(["data/two_blocks.json"], "lemke,pgs")

The library is found through LCPSIM_LIBRARY (a path), else next to this package when it
is installed (PREFIX/share/lcpsim/python -> PREFIX/lib), else in the source tree's build/.
Errors raise lcpsim.Error with the library's message (file:line:column for scenes; a body
name a Sim does not have, given to set_force, body_pose, ...: the call, the name and the
bodies, an Error that is also a KeyError, as body_index raises); arrays
of the wrong size given to solve_lcp and solve_fc raise ValueError; arguments of the wrong
kind raise TypeError (a body index that is not an integer, complex arrays, a float where a
count goes), integer options beyond a C int ValueError, and so a name, path or scene text
with a NUL inside (C would read it cut short): nothing is converted with a loss.
A solver name None is the library's default (lemke; nsgs for solve_fc). A step whose solver
fails does not raise: step() returns the status (< 0), as the C API.

The views sim.q and sim.v (and their slices) keep the library's state alive: one may outlive
its Sim (`q = lcpsim.Sim.load(p).q` is safe). After sim.close() every method and property of
the Sim raises lcpsim.Error; views taken before stay readable and writable but are detached:
they hold the state at close() and nothing steps it any more. Writes through a view
(sim.q[3] = x, sim.q[7:11] = quat, sim.v += dv, np.add(..., out=sim.v), np.add.at(sim.v, i, dv)) are checked as
`sim.q = x` is: a NaN or infinity, or a quaternion left zero, raises ValueError naming the
coordinate and leaves the state as it was (the array is read-only to numpy, down to its
buffer, so its writeable flag cannot be set back to True; fill, copyto and reshaped views of
it refuse writes; a copy is a plain array). A controller holds its Sim
weakly: a Sim dropped with one installed is freed at once, as any other.

Threads: calls into the library release the GIL, so different Sims (and solve_lcp,
solve_fc, compare) run in parallel threads; one Sim is used by one thread at a time, as the
C API says of a simulation.
"""
import ctypes as C
import numbers
import os
import signal
import threading
import time
import weakref

import numpy as np

__all__ = ["Sim", "World", "Error", "solve_lcp", "solve_lcp_file", "solve_fc", "solve_fc_file", "compare",
           "solver_names", "status_name", "version", "CONTACT_DTYPE"]

_here = os.path.dirname(os.path.abspath(__file__))


def _find_library():
    env = os.environ.get("LCPSIM_LIBRARY")
    if env:
        return env
    for cand in (os.path.join(_here, "..", "..", "..", "..", "lib", "liblcpsim.so.0"),
                 os.path.join(_here, "..", "..", "build", "liblcpsim.so.0")):
        if os.path.exists(cand):
            return os.path.normpath(cand)
    return "liblcpsim.so.0"


_lib = C.CDLL(_find_library())

# Status codes (lcpsim.h).
SOLVED, MAX_ITERATIONS, SECONDARY_RAY, BREAKDOWN, BAD_DIAGONAL = 0, -1, -2, -3, -4
SOLVER_FAILED, INVALID_INPUT, OUT_OF_MEMORY, UNAVAILABLE, IO_ERROR = -5, -6, -7, -8, -9
WARM_START_REJECTED = 1
CONTROLLER_STOPPED, DIVERGED = -50, -51
DYNAMIC, STATIC, KINEMATIC = 0, 1, 2
PLANE, SPHERE, BOX, CAPSULE, POINT = 2, 3, 4, 5, 6  # shape types (World.add_shape)
PIN, ROD, TETHER = 0, 1, 2  # joint types (World.add_joint)


class Error(Exception):
    """A library error: status (a code of lcpsim.h) and its message."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


class _NoBody(Error, KeyError):
    """A body name the simulation does not have, given to a method (set_force("nope", f)):
    an Error (INVALID_INPUT) naming the call, the name and the bodies, and a KeyError as
    body_index's. Its text is the message (KeyError's would be the name alone: "'nope'")."""

    def __str__(self):
        return self.args[0]


class _Handle:
    """Owns one LsimSim: frees it when the last holder goes (the Sim until close(), and every
    numpy view of its state, through the ctypes array under the view)."""

    def __init__(self, ptr):
        self.ptr = C.c_void_p(ptr)

    def __del__(self):
        ptr = getattr(self, "ptr", None)  # (None: never set)
        if ptr is not None and ptr.value and _free is not None:  # (None: the interpreter is shutting down)
            _free(self.ptr)
            self.ptr = C.c_void_p()


class _SolverConfig(C.Structure):
    _fields_ = [("tol", C.c_double), ("max_iter", C.c_int), ("omega", C.c_double),
                ("warm_start", C.c_int), ("threads", C.c_int),
                ("sparse_limit", C.c_int), ("principal", C.c_int), ("precision", C.c_int)]

# precision= (a scene's solver.precision): None, the environment's LSIM_PGS_PRECISION, else
# double; LsimSolverConfig.precision 0, 1, 2
_PRECISIONS = {None: 0, "double": 1, "float": 2}


def _precision(x):
    if isinstance(x, bytes):
        x = x.decode(errors="replace")
    if x is not None and not isinstance(x, str):
        raise TypeError('precision must be "double", "float" or None, got %r' % (x,))
    if x not in _PRECISIONS:
        raise ValueError('precision must be "double" or "float", got "%s"' % x)
    return _PRECISIONS[x]


class _SolveReport(C.Structure):
    _fields_ = [("status", C.c_int), ("iterations", C.c_int), ("residual", C.c_double),
                ("relative_residual", C.c_double), ("wall_time", C.c_double)]


class _FcReport(C.Structure):
    _fields_ = [("status", C.c_int), ("iterations", C.c_int), ("natural", C.c_double),
                ("relative", C.c_double), ("cone", C.c_double), ("dual_cone", C.c_double),
                ("complementarity", C.c_double), ("wall_time", C.c_double)]


class _BodyInfo(C.Structure):
    _fields_ = [("name", C.c_char_p), ("type", C.c_int), ("mass", C.c_double),
                ("q_offset", C.c_int), ("nq", C.c_int), ("v_offset", C.c_int), ("nv", C.c_int)]


class _StepReport(C.Structure):
    _fields_ = [("status", C.c_int), ("iterations", C.c_int), ("lcp_size", C.c_int),
                ("ncontacts", C.c_int), ("residual", C.c_double),
                ("relative_residual", C.c_double), ("wall_time", C.c_double)]


class _CompareRow(C.Structure):
    _fields_ = [("label", C.c_char * 128), ("problems", C.c_int), ("successes", C.c_int),
                ("failures", C.c_int), ("skipped", C.c_int), ("budget_stops", C.c_int),
                ("missed", C.c_int), ("success_rate", C.c_double),
                ("median_wall", C.c_double), ("median_iterations", C.c_double),
                ("worst_relative_residual", C.c_double)]


# The definitions of a world built in code (lcpsim.h, "building a world in code").
class _BodyDef(C.Structure):
    _fields_ = [("name", C.c_char_p), ("type", C.c_int), ("mass", C.c_double),
                ("inertia", C.c_double * 3), ("position", C.c_double * 3), ("angle", C.c_double),
                ("quaternion", C.c_double * 4), ("velocity", C.c_double * 6),
                ("width", C.c_double), ("side", C.c_int), ("ground_mu", C.c_double),
                ("restitution", C.c_double)]


class _ShapeDef(C.Structure):
    _fields_ = [("type", C.c_int), ("position", C.c_double * 3), ("angle", C.c_double),
                ("quaternion", C.c_double * 4), ("radius", C.c_double), ("half", C.c_double * 3),
                ("mu", C.c_double)]


class _JointDef(C.Structure):
    _fields_ = [("name", C.c_char_p), ("type", C.c_int), ("body", C.c_int * 2),
                ("point", (C.c_double * 3) * 2), ("length", C.c_double),
                ("no_collide", C.c_int)]


class _ContactDef(C.Structure):
    _fields_ = [("margin", C.c_double), ("max_correction_speed", C.c_double),
                ("overlap_tolerance", C.c_double), ("allow_initial_overlap", C.c_int)]


# LsimContactInfo, field for field with C's alignment: contacts are copied by the library
# straight into a numpy array of this dtype.
CONTACT_DTYPE = np.dtype([("id", np.uint64), ("kind", np.int32), ("body", np.int32, (2,)),
                          ("gap", np.float64), ("point", np.float64, (3,)),
                          ("normal", np.float64, (3,)), ("normal_impulse", np.float64),
                          ("friction_impulse", np.float64, (3,)), ("slip_speed", np.float64)],
                         align=True)

_P = C.c_void_p
_D = C.POINTER(C.c_double)
_CONTROLLER = C.CFUNCTYPE(C.c_int, _P, _P)


def _sig(name, res, *args):
    f = getattr(_lib, name)
    f.restype = res
    f.argtypes = list(args)
    return f


_status_name = _sig("lsim_status_name", C.c_char_p, C.c_int)
_version = _sig("lsim_library_version", C.c_char_p)
_solver_names = _sig("lsim_solver_names", C.POINTER(C.c_char_p))
_load = _sig("lsim_sim_load", C.c_int, C.POINTER(_P), C.c_char_p, C.c_char_p, C.c_size_t)
_load_json = _sig("lsim_sim_load_json", C.c_int, C.POINTER(_P), C.c_char_p, C.c_char_p,
                  C.c_char_p, C.c_size_t)
_free = _sig("lsim_sim_free", None, _P)
_error = _sig("lsim_sim_error", C.c_char_p, _P)
_dimension = _sig("lsim_sim_dimension", C.c_int, _P)
_time_step = _sig("lsim_sim_time_step", C.c_double, _P)
_scene_steps = _sig("lsim_sim_scene_steps", C.c_int, _P)
_body_count = _sig("lsim_sim_body_count", C.c_int, _P)
_body = _sig("lsim_sim_body", C.c_int, _P, C.c_int, C.POINTER(_BodyInfo))
_body_index = _sig("lsim_sim_body_index", C.c_int, _P, C.c_char_p)
_time = _sig("lsim_sim_time", C.c_double, _P)
_steps_done = _sig("lsim_sim_steps_done", C.c_int, _P)
_nq = _sig("lsim_sim_nq", C.c_int, _P)
_nv = _sig("lsim_sim_nv", C.c_int, _P)
_q = _sig("lsim_sim_q", _D, _P)
_v = _sig("lsim_sim_v", _D, _P)
_body_pose = _sig("lsim_sim_body_pose", C.c_int, _P, C.c_int, _D, _D)
_ekin = _sig("lsim_sim_kinetic_energy", C.c_double, _P)
_epot = _sig("lsim_sim_potential_energy", C.c_double, _P)
_set_force = _sig("lsim_sim_set_force", C.c_int, _P, C.c_int, _D)
_get_force = _sig("lsim_sim_get_force", C.c_int, _P, C.c_int, _D)
_set_kin = _sig("lsim_sim_set_kinematic_velocity", C.c_int, _P, C.c_int, _D)
_set_controller = _sig("lsim_sim_set_controller", None, _P, _CONTROLLER, _P)
_step = _sig("lsim_sim_step", C.c_int, _P)
_run = _sig("lsim_sim_run", C.c_int, _P, C.c_int)
_last_step = _sig("lsim_sim_last_step", C.c_int, _P, C.POINTER(_StepReport))
_set_solver = _sig("lsim_sim_set_solver", C.c_int, _P, C.c_char_p, C.POINTER(_SolverConfig))
_solver = _sig("lsim_sim_solver", C.c_char_p, _P)
_solver_config = _sig("lsim_sim_solver_config", C.c_int, _P, C.POINTER(_SolverConfig))
_contact_count = _sig("lsim_sim_contact_count", C.c_int, _P)
_contacts = _sig("lsim_sim_contacts", C.c_int, _P, _P, C.c_int)
_record = _sig("lsim_sim_record", C.c_int, _P, C.c_char_p)
_record_close = _sig("lsim_sim_record_close", C.c_int, _P, C.c_int)
_record_every = _sig("lsim_sim_record_every", C.c_int, _P, C.c_int)
_save = _sig("lsim_sim_save", C.c_int, _P, C.c_char_p)
_restore = _sig("lsim_sim_restore", C.c_int, _P, C.c_char_p)
_solve_lcp = _sig("lsim_solve_lcp", C.c_int, C.c_char_p, C.c_int, _D, _D, _D,
                  C.POINTER(_SolverConfig), C.POINTER(_SolveReport), C.c_char_p, C.c_size_t)
_solve_file = _sig("lsim_solve_lcp_file", C.c_int, C.c_char_p, C.c_char_p,
                   C.POINTER(_SolverConfig), C.POINTER(_D), C.POINTER(C.c_int),
                   C.POINTER(_SolveReport), C.c_char_p, C.c_size_t)
_solve_fc = _sig("lsim_solve_fc", C.c_int, C.c_char_p, C.c_int, C.c_int, _D, _D, _D, C.c_int,
                 _D, C.POINTER(_SolverConfig), C.POINTER(_FcReport), C.c_char_p, C.c_size_t)
_solve_fc_file = _sig("lsim_solve_fc_file", C.c_int, C.c_char_p, C.c_char_p, C.c_int,
                      C.POINTER(_SolverConfig), C.POINTER(_D), C.POINTER(C.c_int),
                      C.POINTER(C.c_int), C.POINTER(_FcReport), C.c_char_p, C.c_size_t)
_lib_free = _sig("lsim_free", None, _P)
_create = _sig("lsim_sim_create", C.c_int, C.POINTER(_P), C.c_int, C.c_double, C.c_char_p,
               C.c_size_t)
_set_gravity = _sig("lsim_sim_set_gravity", C.c_int, _P, _D)
_default_body_def = _sig("lsim_default_body_def", _BodyDef)
_add_body = _sig("lsim_sim_add_body", C.c_int, _P, C.POINTER(_BodyDef))
_default_shape_def = _sig("lsim_default_shape_def", _ShapeDef)
_add_shape = _sig("lsim_sim_add_shape", C.c_int, _P, C.c_int, C.POINTER(_ShapeDef))
_add_joint = _sig("lsim_sim_add_joint", C.c_int, _P, C.POINTER(_JointDef))
_default_contact_def = _sig("lsim_default_contact_def", _ContactDef)
_set_contact = _sig("lsim_sim_set_contact", C.c_int, _P, C.POINTER(_ContactDef))
_start = _sig("lsim_sim_start", C.c_int, _P)
_compare = _sig("lsim_compare_stoppable", C.c_int, C.POINTER(C.c_char_p), C.c_int, C.c_char_p,
                C.c_int, C.c_int, C.c_char_p, C.POINTER(_CompareRow), C.POINTER(C.c_int),
                C.POINTER(C.c_int), C.c_char_p, C.c_size_t)


def status_name(status):
    """The short name of a status code: "solved", "max_iterations", ..."""
    return _status_name(int(status)).decode()


def version():
    return _version().decode()


def solver_names():
    """The solver names: "lemke", "pgs", "siconos:...". """
    out, k, names = [], 0, _solver_names()
    while names[k]:
        out.append(names[k].decode())
        k += 1
    return out


def _int(x, what, lo=-2 ** 31, hi=2 ** 31 - 1):
    """x as a Python int for a C int argument: TypeError unless an integer (an int or a numpy
    integer; 4.5 is not truncated), ValueError outside [lo, hi] (ctypes would wrap it)."""
    if isinstance(x, bool) or not isinstance(x, numbers.Integral):
        raise TypeError("%s must be an integer, got %r" % (what, x))
    x = int(x)
    if not lo <= x <= hi:
        raise ValueError("%s must be in %d .. %d (a C int), got %d" % (what, lo, hi, x))
    return x


def _c(b, what):
    """bytes for a C string: one with a NUL inside is refused (ValueError, as Python's open()
    does), since C would read it cut short there (a name "a\\0b" was the body "a", a path
    "x.h5\\0y" wrote x.h5)."""
    if b"\0" in b:
        raise ValueError("%s: embedded null byte" % what)
    return b


def _path(path, what):
    """A file name for the library (str, bytes or os.PathLike), checked by _c."""
    return _c(os.fsencode(path), what)


def _name(name, what):
    """A solver name for the library: None stays None (NULL: the library's default)."""
    if name is None:
        return name
    if isinstance(name, bytes):
        return _c(name, what)
    if not isinstance(name, str):
        raise TypeError("%s must be a str, got %r" % (what, name))
    return _c(name.encode(), what)


def _flag(x, what):
    """x as 0 or 1 for a C flag: True, False, or an integer 0 or 1 (numpy's too); anything
    else is refused (TypeError), since its truth would be taken: warm_start="no" warm
    started."""
    if isinstance(x, (bool, np.bool_)) or (isinstance(x, numbers.Integral) and int(x) in (0, 1)):
        return int(bool(x))
    raise TypeError("%s must be True or False, got %r" % (what, x))


def _config(tol=1e-10, max_iter=0, omega=1.0, warm_start=True, threads=1, sparse_limit=0,
            principal=0, precision=None):
    return _SolverConfig(_number(tol, "tol"), _int(max_iter, "max_iter"), _number(omega, "omega"),
                         _flag(warm_start, "warm_start"), _int(threads, "threads"),
                         _int(sparse_limit, "sparse_limit"), _int(principal, "principal"),
                         _precision(precision))


def _real(x, what):
    """x as a float64 array; TypeError for complex values (casting would drop the imaginary
    part with only a warning) and for a masked array with masked entries (np.asarray takes
    the values under the mask, which the caller meant left out)."""
    if np.ma.isMaskedArray(x) and np.ma.getmaskarray(x).any():
        raise TypeError("%s: a masked array with %d masked entries, the library takes every "
                        "entry (fill them first, e.g. x.filled(0.0))"
                        % (what, int(np.ma.getmaskarray(x).sum())))
    a = np.asarray(x)
    if np.iscomplexobj(a):
        raise TypeError("%s: complex values, the library takes real numbers" % what)
    return np.asarray(a, dtype=np.float64)


def _doubles(x, n, what):
    a = _real(x, what)
    if a.ndim > 1:
        raise Error(INVALID_INPUT, "%s: needs a vector of %d numbers, got shape %s"
                    % (what, n, a.shape))
    a = np.ascontiguousarray(a).reshape(-1)
    if a.size != n:
        raise Error(INVALID_INPUT, "%s: needs %d numbers, got %d" % (what, n, a.size))
    return a


def _cdoubles(x, n, what):
    """x as n doubles for the library: a list or tuple of n numbers straight into a ctypes
    array (a controller's set_force each step: no numpy round trip), anything else through
    _doubles and its checks (a list ctypes refuses, complex or text, too, for the message)."""
    if type(x) in (list, tuple) and len(x) == n:
        try:
            return (C.c_double * n)(*x)
        except TypeError:
            pass
    return _doubles(x, n, what).ctypes.data_as(_D)


def _check_state(what, a, quats, names, touched=None):
    """ValueError naming the coordinate when the state values a (a float64 vector) hold a
    non-finite number, or (quats: the start of each 3-D body's quaternion [w, x, y, z] in q,
    names: those bodies' (index, name)) a zero quaternion. touched (indices into a, or None
    for all) limits the checks to the coordinates written and the quaternions they touch."""
    idx = np.arange(a.size) if touched is None else touched
    bad = idx[~np.isfinite(a[idx])]
    if bad.size:
        raise ValueError("%s[%d] is not finite (%r)" % (what, bad[0], a[bad[0]]))
    if quats.size and idx.size:
        hit = quats if touched is None else quats[np.any(
            (idx[None, :] >= quats[:, None]) & (idx[None, :] < quats[:, None] + 4), axis=1)]
        zero = hit[~np.any(a[hit[:, None] + np.arange(4)], axis=1)] if hit.size else hit
        if zero.size:
            i, name = names[int(np.flatnonzero(quats == zero[0])[0])]
            raise ValueError("%s: body %d (%r): its quaternion %s[%d .. %d] is zero (an "
                             "orientation needs a nonzero [w, x, y, z])"
                             % (what, i, name, what, zero[0], zero[0] + 3))


class _StateView(np.ndarray):
    """sim.q and sim.v: a numpy view of the library's state whose writes are checked as the
    setters are (finite numbers; for q no zero quaternion). The array itself is read-only;
    view[key] = x and in-place arithmetic (view += dx, view[2:5] *= 2, np.add(..., out=view))
    form the new values on a copy, check the coordinates written, and only then copy them
    into the state, so a refused write raises ValueError naming the coordinate and leaves
    the state as it was (element writes through numpy reached the state unchecked: a NaN or
    a zero quaternion was refused only by the next step). A slice (sim.q[2:5]) is such a
    view too; copies, arithmetic and fancy-indexed reads are plain ndarrays; other views
    (reshape, ravel, .T) are read-only. Attributes: _w, the writable numpy view of these
    coordinates; _idx, each one's index in the whole state; _ctx, (the writable view of the
    whole state, "q" or "v", quats, names as _check_state takes them). The view's memory is
    a read-only buffer at its root, so numpy refuses to set its writeable flag back to True
    (it allowed it on the writable memory, and fill, copyto or put then wrote a NaN or a zero
    quaternion into the state unchecked)."""

    def __setitem__(self, key, value):
        w = getattr(self, "_w", None)
        if w is None:  # an array derived from a view (a reshape, say): plain numpy
            return np.ndarray.__setitem__(self, key, value)
        full, what, quats, names = self._ctx
        local = np.array(w)
        local[key] = value  # numpy's indexing and broadcasting, on a copy
        new = np.array(full)
        new[self._idx] = local
        touched = np.atleast_1d(self._idx[key]).reshape(-1)
        _check_state(what, new, quats, names, touched)
        w[...] = local

    def __getitem__(self, key):
        w = getattr(self, "_w", None)
        if w is not None and (type(key) is slice or key is Ellipsis):
            # a slice: a checked view (sim.q[2:5] += dq, sim.q[2:5][0] = x)
            view = np.ndarray.__getitem__(self.view(np.ndarray), key).view(_StateView)
            view._w, view._idx, view._ctx = w[key], self._idx[key], self._ctx
            return view
        # an element, a read-only view (numpy's basic indexing of this read-only array) or
        # a copy (fancy indexing)
        return self.view(np.ndarray)[key]

    def copy(self, order="C"):
        return np.array(self.view(np.ndarray), order=order)

    def __repr__(self):  # as the plain array it was: array([...]), not _StateView([...])
        return repr(self.view(np.ndarray))

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    def __reduce__(self):  # pickles as a plain array of the values
        return self.copy().__reduce__()

    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kwargs):
        plain = tuple(x.view(np.ndarray) if isinstance(x, _StateView) else x for x in inputs)
        if method == "at" and isinstance(inputs[0], _StateView):
            # ufunc.at works in place on its first operand, and numpy before 1.25 does not
            # check that it is writable: np.add.at(sim.v, [0], inf) wrote the inf into the
            # state unchecked. It is computed on a copy and written back through the checks
            # (a read-only view derived from a state view refuses it as numpy does).
            if getattr(inputs[0], "_w", None) is None:
                raise ValueError("%s.at: the array is read-only" % ufunc.__name__)
            local = np.array(plain[0])
            ufunc.at(local, *plain[1:], **kwargs)
            inputs[0][...] = local
            return None
        if out is None:
            return getattr(ufunc, method)(*plain, **kwargs)
        # Outputs that are state views are computed into copies and written back through
        # the checks (np.add(q, dq, out=q), q += dq).
        outs = tuple(np.array(o.view(np.ndarray)) if getattr(o, "_w", None) is not None
                     else o for o in out)
        res = getattr(ufunc, method)(*plain, out=outs, **kwargs)
        for o, t in zip(out, outs):
            if t is not o:
                o[...] = t
        if len(out) == 1:
            return out[0] if outs[0] is not out[0] else res
        return tuple(o if t is not o else r for o, t, r in zip(out, outs, res))


def _state_view(hd, ptr, n, what, quats=(), names=()):
    """A checked numpy view (_StateView) of n doubles at ptr that keeps hd (the simulation)
    alive: the ctypes array under it holds hd, and the view's base is that array. quats:
    the starts of the 3-D bodies' quaternions in q, names: those bodies' (index, name)."""
    if not n:
        return np.zeros(0)
    arr = (C.c_double * n).from_address(C.cast(ptr, C.c_void_p).value)
    arr._handle = hd
    w = np.frombuffer(arr, dtype=np.float64)  # writable: the checked writes go through it
    # What the caller holds rests on a read-only buffer of the same memory: numpy then
    # refuses `view.flags.writeable = True` (on a writable base it allowed it, and
    # view.fill(0.0) zeroed the quaternions unchecked). The memoryview holds arr, so hd.
    view = np.frombuffer(memoryview(arr).toreadonly(), dtype=np.float64).view(_StateView)
    view._w, view._idx = w, np.arange(n)
    view._ctx = (w, what, np.asarray(quats, dtype=np.intp), list(names))
    return view


def _vector(x, what, n=None):
    """x as a contiguous float64 vector (a 1-D array or a scalar); ValueError naming what if
    it has more dimensions or, n given, not n entries."""
    a = np.ascontiguousarray(_real(x, what))
    if a.ndim > 1:
        raise ValueError("%s must be a vector, got shape %s" % (what, a.shape))
    a = a.reshape(-1)
    if n is not None and a.size != n:
        raise ValueError("%s needs %d entries, got %d" % (what, n, a.size))
    return a


def _matrix(x, n, what, by):
    """x as an n x n float64 matrix (n from the vector called by); ValueError naming both
    otherwise."""
    a = _real(x, what)
    if a.shape != (n, n):
        raise ValueError("%s must be %d x %d (%s has %d entries), got shape %s"
                         % (what, n, n, by, n, a.shape))
    return a



def _no_copy(what, how):
    """__copy__, __deepcopy__ and __reduce__ for a class holding a library handle: a shallow
    copy shared the handle (closing the copy closed the original's record and removed its
    controller), deepcopy and pickle failed in ctypes' words and left a half-made handle
    behind (an "Exception ignored" at exit). Refused, naming what to do instead."""
    def refuse(self, *args):
        raise TypeError("a %s cannot be copied or pickled (its state is the library's): %s"
                        % (what, how))
    return refuse, refuse, refuse


class Sim:
    """A simulation: a scene's model and its state, stepped by the library. close() (or the
    end of a with block) ends it; any use afterwards raises Error."""

    def __init__(self, handle):
        self._hd = _Handle(handle)
        self._controller = None
        self._c_controller = None
        self._exc = None
        nq, nv = _nq(self._h), _nv(self._h)
        # Views of the library's state arrays (their address never changes); each holds the
        # handle, never the Sim, so dropping the Sim still frees it once no view is left.
        self.bodies = []
        for i in range(_body_count(self._h)):
            b = _BodyInfo()
            _body(self._h, i, C.byref(b))
            self.bodies.append({"name": b.name.decode(), "type": b.type, "mass": b.mass,
                                "q": slice(b.q_offset, b.q_offset + b.nq),
                                "v": slice(b.v_offset, b.v_offset + b.nv), "nv": b.nv})
        # The 3-D bodies' quaternions (w, x, y, z at q[start .. start + 3]), for the checks.
        quat = [(i, b) for i, b in enumerate(self.bodies)
                if _dimension(self._h) == 3 and b["q"].stop - b["q"].start == 7]
        self._quats = np.array([b["q"].start + 3 for _, b in quat], dtype=np.intp)
        self._quat_names = [(i, b["name"]) for i, b in quat]
        self._q = _state_view(self._hd, _q(self._h), nq, "q", self._quats, self._quat_names)
        self._v = _state_view(self._hd, _v(self._h), nv, "v")

    @classmethod
    def load(cls, path):
        """Loads a scene file; raises Error (file:line:column: path: message) if bad."""
        h, err = _P(), C.create_string_buffer(1024)
        rc = _load(C.byref(h), _path(path, "load: path"), err, 1024)
        if rc < 0:
            raise Error(rc, err.value.decode())
        return cls(h.value)

    @classmethod
    def from_json(cls, text, name="<scene>"):
        """Loads a scene from its JSON text (str, or bytes in UTF-8)."""
        if not isinstance(text, (str, bytes)):
            raise TypeError("from_json: the scene text must be a str or bytes, got %s"
                            % type(text).__name__)
        h, err = _P(), C.create_string_buffer(1024)
        text = _c(text.encode() if isinstance(text, str) else text, "from_json: text")
        rc = _load_json(C.byref(h), text,
                        _name(name, "from_json: name"), err, 1024)
        if rc < 0:
            raise Error(rc, err.value.decode())
        return cls(h.value)

    @property
    def _h(self):
        """The library's handle; Error once closed (a NULL would reach the library)."""
        hd = getattr(self, "_hd", None)
        if hd is None:
            raise Error(INVALID_INPUT, "the simulation is closed")
        return hd.ptr

    def close(self):
        """Ends the simulation: an open record is closed (kept) now, and every later use of
        this Sim raises Error. The library frees the simulation once no view of its state
        (sim.q, sim.v) is left. Closing twice is fine."""
        hd = getattr(self, "_hd", None)
        if hd is None:
            return
        # Views taken before may still point into the state: freeing it now would leave them
        # reading freed memory (what mmap refuses with BufferError). Refusing close() would
        # make `with` blocks fail over a stray view, so the state lives on until the last
        # view goes (they then hold the state at close); what close() must do at once,
        # finishing the record file, is done here.
        _record_close(hd.ptr, 1)  # LSIM_INVALID_INPUT when no record is open: nothing to do
        _set_controller(hd.ptr, _CONTROLLER(), None)
        self._hd = self._q = self._v = None
        self._c_controller = None

    def __del__(self):
        try:
            self.close()
        except Exception:  # the interpreter shutting down: nothing left to do
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    __copy__, __deepcopy__, __reduce__ = _no_copy(
        "Sim", "Sim.save(path) and a Sim of the same scene's restore(path) branch a run")

    def _check(self, rc):
        if rc < 0:
            raise Error(rc, _error(self._h).decode())
        return rc

    # -- the model and the state
    @property
    def q(self):
        """The generalized coordinates: a numpy view of the library's state (no copy;
        writes through it are checked, _StateView); assigning copies into it (see
        _set_state). A 3-D body's quaternion
        (w, x, y, z) written here need not be a unit one: it is taken as the orientation
        u / |u| (body_pose and kinetic_energy read it so; the next step writes the unit
        one back)."""
        self._h  # Error once closed
        return self._q

    @q.setter
    def q(self, values):
        self._h
        self._set_state("q", self._q, values)

    @property
    def v(self):
        """The generalized velocities: a numpy view like q."""
        self._h
        return self._v

    @v.setter
    def v(self, values):
        self._h
        self._set_state("v", self._v, values)

    def _set_state(self, what, view, values):
        """Copies values into the state view: exactly view.size finite real numbers (a
        vector; a scalar is refused, numpy's broadcast set every coordinate to it,
        quaternions included); for q no zero quaternion (no orientation). Refused values
        raise ValueError (TypeError for complex or non-numbers) naming the attribute and
        the shape it takes, and leave the state as it was."""
        n = view.size
        try:
            a = _real(values, "%s" % what)
        except (TypeError, ValueError) as e:
            raise TypeError("%s: needs %d real numbers (shape (%d,)), got %r (%s)"
                            % (what, n, n, values, e)) from None
        if a.ndim != 1 or a.size != n:
            raise ValueError("%s: needs %d numbers (shape (%d,)), got %s"
                             % (what, n, n, "a scalar" if a.ndim == 0
                                else "shape %s" % (a.shape,)))
        if what == "q":
            _check_state("q", a, self._quats, self._quat_names)
        else:
            _check_state("v", a, np.zeros(0, dtype=np.intp), ())
        if n:
            view._w[:] = a

    dimension = property(lambda self: _dimension(self._h))
    time_step = property(lambda self: _time_step(self._h))
    scene_steps = property(lambda self: _scene_steps(self._h))
    time = property(lambda self: _time(self._h))
    steps_done = property(lambda self: _steps_done(self._h))

    @property
    def error(self):
        """The library's message for its last call on this Sim that returns a status and
        failed or acted on the Sim (what went wrong, as the Error raised said): "" after a
        step, run, setter or record call that succeeded; the queries (contacts, last_step,
        body, solver_config, ...) leave it alone unless they fail, so a failed step's
        message survives them (lcpsim.h, lsim_sim_error). Errors the binding
        raises before calling the library (a closed Sim, a body index out of range, values
        of the wrong size) are in their exception only."""
        return _error(self._h).decode()
    kinetic_energy = property(lambda self: _ekin(self._h))
    potential_energy = property(lambda self: _epot(self._h))

    def body_index(self, name):
        """The index of the body called name; KeyError if there is none."""
        if not isinstance(name, str):
            raise TypeError("body_index: the name must be a str, got %r" % (name,))
        i = _body_index(self._h, _c(name.encode(), "body_index: name"))
        if i < 0:
            raise KeyError(name)
        return i

    def _body(self, body, what):
        """The index of body (an index or a name); Error naming it when there is none (before
        its values are looked at: their size depends on the body)."""
        self._h  # Error once closed
        if type(body) is int:  # the common case first (the ABC check below costs a few us)
            i = body
        elif isinstance(body, str):
            try:
                i = self.body_index(body)
            except KeyError:
                names = [b["name"] for b in self.bodies]
                shown = ", ".join(repr(n) for n in names[:8]) + (", ..." if len(names) > 8 else "")
                raise _NoBody(INVALID_INPUT, "%s: no body named %r (the %d bodies: %s)"
                              % (what, body, len(names), shown)) from None
        elif isinstance(body, numbers.Integral) and not isinstance(body, bool):
            i = int(body)
        else:
            raise TypeError("%s: the body must be an index (int) or a name (str), got %r"
                            % (what, body))
        if not 0 <= i < len(self.bodies):
            raise Error(INVALID_INPUT, "%s: no body %d (the bodies are 0 .. %d)"
                        % (what, i, len(self.bodies) - 1) if self.bodies
                        else "%s: no body %d (the world has no body)" % (what, i))
        return i

    def _of_type(self, i, kind, setter):
        """Error with the library's message ("body 0 ('ground') is not a dynamic body") when
        body i is not of the kind setter takes, before the size of the values is looked at:
        that size is the body's own nv (0 for a static body), and "needs 0 numbers, got 3"
        named the wrong fault."""
        if self.bodies[i]["type"] != kind:
            self._check(setter(self._h, i, (C.c_double * 6)()))

    def set_force(self, body, f):
        """Replaces the applied generalized force of a dynamic body (index or name): 1-D f,
        2-D (fx, fy, torque), 3-D (fx, fy, fz, tx, ty, tz), world frame, N and N m."""
        i = self._body(body, "set_force")
        self._of_type(i, DYNAMIC, _set_force)
        self._check(_set_force(self._h, i, _cdoubles(f, self.bodies[i]["nv"], "set_force")))

    def body_pose(self, body):
        """The world pose of a body (index or name): position (3,) and unit quaternion
        (w, x, y, z) (4,), as numpy arrays (1-D: (x, 0, 0); 2-D: a rotation about z)."""
        i = self._body(body, "body_pose")
        p, quat = np.zeros(3), np.zeros(4)
        self._check(_body_pose(self._h, i, p.ctypes.data_as(_D), quat.ctypes.data_as(_D)))
        return p, quat

    def get_force(self, body):
        i = self._body(body, "get_force")
        out = np.zeros(6)
        self._check(_get_force(self._h, i, out.ctypes.data_as(_D)))
        return out[: self.bodies[i]["nv"]]

    def set_kinematic_velocity(self, body, v):
        """Prescribes a kinematic body's velocity from now on (the layout of v)."""
        i = self._body(body, "set_kinematic_velocity")
        self._of_type(i, KINEMATIC, _set_kin)
        self._check(_set_kin(self._h, i, _cdoubles(v, self.bodies[i]["nv"],
                                                   "set_kinematic_velocity")))

    # -- controllers and steps
    @property
    def controller(self):
        return self._controller

    @controller.setter
    def controller(self, fn):
        """fn(sim) is called before every step with the state before it; it may set forces,
        kinematic velocities and q, v. Returning True stops (step() raises Error with
        CONTROLLER_STOPPED); an exception stops too and is raised again by step()."""
        h = self._h  # Error once closed
        # Refused here, not at the next step (where a number set as controller stopped the
        # run with "returning 1" and a TypeError from inside the trampoline).
        if fn is not None and not callable(fn):
            raise TypeError("controller must be callable (fn(sim)) or None, got %r" % (fn,))
        self._controller = fn
        if fn is None:
            self._c_controller = None
            _set_controller(h, _CONTROLLER(), None)
            return

        # The trampoline holds the Sim weakly: a strong hold (the Sim holds the trampoline)
        # is a cycle, and a dropped Sim's world would wait for the cyclic collector.
        ref = weakref.ref(self)

        def trampoline(_sim, _user):
            me = ref()
            if me is None:  # (no step runs without its Sim)
                return 1
            try:
                return 1 if fn(me) else 0
            except BaseException as e:  # kept for step() to raise
                me._exc = e
                return 1

        self._c_controller = _CONTROLLER(trampoline)
        _set_controller(h, self._c_controller, None)

    def step(self):
        """One step. Returns the solver's status (0 solved; < 0 the solver failed, the state
        advanced with its last iterate); raises Error on input, file or controller errors
        and when the divergence guard stops the run (DIVERGED: a non-finite or runaway
        state, the scene's "limits"). A controller that closes the Sim ends it after this
        step, which runs to its end."""
        self._h  # Error once closed
        # The handle and the controller's callback are held through the call: a controller
        # that closes the Sim would otherwise free the world (and the callback running) in
        # the middle of the library's step.
        hd, cb = self._hd, self._c_controller  # noqa: F841 (cb: held only)
        rc = _step(hd.ptr)
        if self._exc is not None:
            e, self._exc = self._exc, None
            raise e
        if rc in (INVALID_INPUT, OUT_OF_MEMORY, IO_ERROR, CONTROLLER_STOPPED, DIVERGED):
            raise Error(rc, _error(hd.ptr).decode())
        return rc

    def run(self, n):
        """n >= 0 steps (a negative n raises Error); raises Error at the first step that
        fails (solver failures included; a fixed sweep budget spent, tol 0, is no
        failure). Ctrl-C (KeyboardInterrupt) stops it within a few hundredths of a second,
        the steps taken kept."""
        n = _int(n, "run: n")
        if n < 0:  # the library's refusal and message (no loop below would reach it)
            self._check(_run(self._h, n))
        if self._controller is None:
            # In chunks: Python handles signals only between calls into the library, so one
            # call of n steps kept Ctrl-C waiting for the whole run (20 s of pile_100).
            # Chunks grow from 1 step while they take under 20 ms: a negligible share of
            # calls on small scenes, a prompt interrupt on large ones.
            done, k = 0, 1
            while done < n:
                k = min(k, n - done)
                t0 = time.perf_counter()
                self._check(_run(self._h, k))
                done += k
                if time.perf_counter() - t0 < 0.02:
                    k *= 2
            return 0
        fixed = self.solver_config()["tol"] == 0.0
        for _ in range(int(n)):
            rc = self.step()
            if rc < 0 and not (fixed and rc == MAX_ITERATIONS):
                raise Error(rc, _error(self._h).decode())
        return 0

    def last_step(self):
        """What the last step did: status, iterations, lcp_size, ncontacts, residuals, time."""
        r = _StepReport()
        self._check(_last_step(self._h, C.byref(r)))
        return {k: getattr(r, k) for k, _ in _StepReport._fields_}

    # -- solvers, contacts, records
    def set_solver(self, name, **options):
        """Chooses the solver of the next steps: tol, max_iter, omega, warm_start, threads,
        sparse_limit, principal (lemke_sparse only: principal pivots before Lemke's path,
        0 .. 1000000; 0: the environment's LSIM_PRINCIPAL), precision (pgs only: "double" or
        "float", the sweep's arithmetic at a fixed budget; None: the environment's
        LSIM_PGS_PRECISION, else double). An option not given takes its default: the scene's
        solver object is not kept (lsim_sim_set_solver)."""
        if name is None:  # (the library's "the name is NULL" spoke of C)
            raise TypeError("set_solver: the name must be a str (one of solver_names()), got None")
        cfg = _config(**options)
        self._check(_set_solver(self._h, _name(name, "set_solver: the name"), C.byref(cfg)))

    solver = property(lambda self: _solver(self._h).decode())

    def solver_config(self):
        """The options of the solver in use: tol, max_iter, omega, warm_start, threads,
        sparse_limit, principal, precision ("double", "float" or None: the environment's)."""
        c = _SolverConfig()
        self._check(_solver_config(self._h, C.byref(c)))
        out = {k: getattr(c, k) for k, _ in _SolverConfig._fields_}
        names = {v: k for k, v in _PRECISIONS.items()}
        out["precision"] = names.get(out["precision"], out["precision"])
        return out

    def contacts(self):
        """The contacts of the last step with their impulses (N s), a structured array of
        CONTACT_DTYPE: id (stable across steps), kind, body[2], gap, point, normal,
        normal_impulse, friction_impulse (world, on body[0]), slip_speed."""
        h = self._h
        n = _contact_count(h)
        out = np.empty(n, dtype=CONTACT_DTYPE)  # the library writes into it: one copy
        m = _contacts(h, out.ctypes.data, n) if n else 0
        return out[:m]

    def record(self, path, every=1):
        """Records to an HDF5 file from the current state on; see record_close. every > 1
        keeps the steps whose number is a multiple of it and the last (docs/output-format.md,
        "Record stride"). Raises Error (INVALID_INPUT) for the scene file the simulation was
        loaded from, or every < 1 (no record left open then); TypeError, before any file
        is made, for an every that is not an integer (2.5 recorded every 2nd step; "x"
        left the record open with int()'s message)."""
        every = _int(every, "record: every")
        self._check(_record(self._h, _path(path, "record: path")))
        if every != 1:
            rc = _record_every(self._h, every)
            if rc < 0:
                msg = _error(self._h).decode()
                _record_close(self._h, 0)  # no half-set record left open
                raise Error(rc, msg)

    def record_close(self, keep=True):
        self._check(_record_close(self._h, int(bool(keep))))

    # -- checkpoints
    def save(self, path):
        """Writes a checkpoint (HDF5) of the state and of what the steps carry over to the
        next (warm start, sleep counters): Sim.restore of it continues the run to the bit.
        The model is not in it: forces and kinematic velocities set here, the controller and
        the solver are set again as they were. Raises Error (INVALID_INPUT for the scene
        file the simulation was loaded from, IO_ERROR when it cannot be written)."""
        self._check(_save(self._h, _path(path, "save: path")))

    def restore(self, path):
        """Sets the state and the stepper's memory to a checkpoint's (Sim.save), or to the
        last step of a run file of the command (`lcpsim SCENE.json`), so that the next steps
        are the saved run's, bit for bit. The file must be of this simulation's world (the
        same scene or built world, initial state and solver settings: set_solver first);
        anything else raises Error (INVALID_INPUT, naming the first difference; IO_ERROR for
        a file that does not open) and leaves the Sim as it was. The views q and v stay
        valid and show the restored state."""
        self._check(_restore(self._h, _path(path, "restore: path")))


_SHAPE_TYPES = {"plane": PLANE, "sphere": SPHERE, "disk": SPHERE, "box": BOX,
                "capsule": CAPSULE, "point": POINT}
_BODY_TYPES = {"dynamic": DYNAMIC, "static": STATIC, "kinematic": KINEMATIC}
_JOINT_TYPES = {"pin": PIN, "rod": ROD, "tether": TETHER}


def _kind(x, table, what):
    """A type given as its name (a key of table) or its code (an int); the code."""
    if isinstance(x, str):
        if x not in table:
            raise Error(INVALID_INPUT, "%s: unknown type '%s' (one of %s)"
                        % (what, x, ", ".join(sorted(table))))
        return table[x]
    return _int(x, what + ": type")


def _fill(dst, x, n, what):
    """Copies x (n numbers; a number when n is 1) into the first n entries of the C array dst;
    Error (INVALID_INPUT) naming what for another count, TypeError for values that are not
    real numbers. Finiteness and ranges are the library's to check."""
    a = np.asarray(x)
    if a.dtype.kind not in "biuf":  # (text, complex, objects: no conversion with a loss)
        raise TypeError("%s: needs real numbers, got %r" % (what, x))
    if a.ndim > 1 or a.size != n:
        raise Error(INVALID_INPUT, "%s: needs %d number%s, got %s"
                    % (what, n, "" if n == 1 else "s",
                       "shape %s" % (a.shape,) if a.ndim > 1 else "%d" % a.size))
    for k, value in enumerate(a.reshape(-1)):
        dst[k] = float(value)


def _number(x, what):
    """x as a float for a C double: TypeError unless a real number (no str, no complex)."""
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise TypeError("%s must be a real number, got %r" % (what, x))
    return float(x)


class World:
    """A world built in code (C: lsim_sim_create, lsim_sim_add_body, ..., lsim_sim_start),
    the same model a scene file gives, with the same checks and messages:

        w = lcpsim.World(2, 0.01)                # dimension 1, 2 or 3; time step h, s
        w.set_gravity([0, -9.81])
        ground = w.add_body("ground", type="static")
        w.add_shape(ground, "plane", mu=0.5)
        ball = w.add_body("ball", mass=1.0, inertia=0.1, position=[0, 0.5])
        w.add_shape(ball, "sphere", radius=0.5, mu=0.5)
        sim = w.start()                          # a Sim at the initial state (solver lemke)

    Vectors have the entries of the world's dimension: position 1, 2 or 3 numbers (x; x, y;
    x, y, z), a body's velocity 1, 3 or 6 (the layout of v), inertia 2-D one number (I_zz),
    3-D three (principal, Ixx, Iyy, Izz); angle is 2-D, quaternion (w, x, y, z) 3-D only.
    Another count, or a key of another dimension, raises Error (INVALID_INPUT) naming the
    field; a value the library refuses (mass <= 0, a name used twice, a plane on a dynamic
    body, bodies overlapping at start, ...) raises Error with the library's message, and the
    world goes on as before the call (a failed start() too). Values of the wrong kind raise
    TypeError. After start() the World is spent: its simulation belongs to the Sim."""

    def __init__(self, dimension, time_step):
        dimension = _int(dimension, "World: dimension")
        h, err = _P(), C.create_string_buffer(1024)
        rc = _create(C.byref(h), dimension, _number(time_step, "World: time_step"), err, 1024)
        if rc < 0:
            raise Error(rc, err.value.decode())
        self._hd = _Handle(h.value)
        self.dimension = dimension
        self._nbodies = 0

    __copy__, __deepcopy__, __reduce__ = _no_copy(
        "World", "build a second World with the same calls")

    @property
    def _h(self):
        hd = getattr(self, "_hd", None)
        if hd is None:
            raise Error(INVALID_INPUT, "the world is started: build before start(), use its Sim")
        return hd.ptr

    def _check(self, rc):
        if rc < 0:
            raise Error(rc, _error(self._h).decode())
        return rc

    def _only(self, dims, value, what):
        """Error when a key of other dimensions is given (not None) in this one."""
        if value is not None and self.dimension not in dims:
            raise Error(INVALID_INPUT, "%s applies to %s worlds only (this one is %d-D)"
                        % (what, " and ".join("%d-D" % d for d in dims), self.dimension))

    def set_gravity(self, g):
        """Gravity, a vector of the world's dimension (1-D: along the line), m/s^2."""
        a = (C.c_double * 3)()
        _fill(a, g, self.dimension, "set_gravity: g")
        self._check(_set_gravity(self._h, a))

    def set_contact(self, margin=None, max_correction_speed=None, overlap_tolerance=None,
                    allow_initial_overlap=None):
        """A scene's "contact" settings; what is not given keeps the scene's default (margin
        0, max_correction_speed 1 m/s, overlap_tolerance 1e-3 m, allow_initial_overlap
        False)."""
        d = _default_contact_def()
        if margin is not None:
            d.margin = _number(margin, "set_contact: margin")
        if max_correction_speed is not None:
            d.max_correction_speed = _number(max_correction_speed,
                                             "set_contact: max_correction_speed")
        if overlap_tolerance is not None:
            d.overlap_tolerance = _number(overlap_tolerance, "set_contact: overlap_tolerance")
        if allow_initial_overlap is not None:
            if not isinstance(allow_initial_overlap, (bool, np.bool_)):
                raise TypeError("set_contact: allow_initial_overlap must be True or False, got %r"
                                % (allow_initial_overlap,))
            d.allow_initial_overlap = int(allow_initial_overlap)
        self._check(_set_contact(self._h, C.byref(d)))

    def add_body(self, name=None, type=DYNAMIC, mass=None, inertia=None, position=None,
                 angle=None, quaternion=None, velocity=None, width=None, side=None,
                 ground_mu=None, restitution=None):
        """Adds a body; returns its index. type: "dynamic" (DYNAMIC), "static" or "kinematic".
        What is not given keeps lsim_default_body_def's value (mass 1 kg, unit inertia, at
        the origin, at rest, identity orientation). 1-D bodies: width (dynamic, kinematic;
        m, 0 a point), side (a static body: a wall, -1 occupying x <= position, +1 x >=),
        ground_mu (dynamic: friction with the ground under load m g, g = 9.81 m/s^2). velocity: a dynamic
        body's initial v, a kinematic body's prescribed one."""
        h = self._h
        d = _default_body_def()
        what = "add_body %s" % (repr(name) if name is not None else self._nbodies)
        if name is not None:
            if not isinstance(name, str):
                raise TypeError("%s: the name must be a str, got %r" % (what, name))
            d.name = _c(name.encode(), what)
        d.type = _kind(type, _BODY_TYPES, what)
        dim = self.dimension
        if mass is not None:
            d.mass = _number(mass, what + ": mass")
        self._only((2, 3), inertia, what + ": inertia")
        if inertia is not None:
            if dim == 2:  # I_zz, the C definition's inertia[2]
                izz = (C.c_double * 1)()
                _fill(izz, inertia, 1, what + ": inertia")
                d.inertia[2] = izz[0]
            else:
                _fill(d.inertia, inertia, 3, what + ": inertia")
        self._pose(d, position, angle, quaternion, what)
        if velocity is not None:
            _fill(d.velocity, velocity, {1: 1, 2: 3, 3: 6}.get(dim, 1), what + ": velocity")
        for key, value in (("width", width), ("ground_mu", ground_mu)):
            self._only((1,), value, "%s: %s" % (what, key))
            if value is not None:
                setattr(d, key, _number(value, "%s: %s" % (what, key)))
        self._only((1,), side, what + ": side")
        if side is not None:
            d.side = _int(side, what + ": side")
        if restitution is not None:
            d.restitution = _number(restitution, what + ": restitution")
        i = self._check(_add_body(h, C.byref(d)))
        self._nbodies += 1
        return i

    def _pose(self, d, position, angle, quaternion, what):
        """A body's or shape's position, 2-D angle and 3-D quaternion into its definition d,
        each checked against the world's dimension."""
        if position is not None:
            _fill(d.position, position, self.dimension, what + ": position")
        self._only((2,), angle, what + ": angle")
        if angle is not None:
            d.angle = _number(angle, what + ": angle")
        self._only((3,), quaternion, what + ": quaternion")
        if quaternion is not None:
            _fill(d.quaternion, quaternion, 4, what + ": quaternion")

    def add_shape(self, body, type="sphere", position=None, angle=None, quaternion=None,
                  radius=None, half=None, mu=None):
        """Adds a shape to a body (its index) of a 2-D or 3-D world; returns its index among
        the body's shapes (0 for its first; the j of its default name "shape<j>").
        type: "sphere" ("disk"; SPHERE), "box", "capsule" (axis local x in 2-D, z in 3-D),
        "point", or "plane" (static bodies; normal local +y in 2-D, +z in 3-D). position in
        the body frame; half: a box's half extents (the dimension's count), a capsule's half
        length (one number); mu the friction coefficient (a pair uses sqrt(mu_a mu_b)). What
        is not given keeps lsim_default_shape_def's value (radius 0.5, mu 0.5)."""
        h = self._h
        body = _int(body, "add_shape: body")
        d = _default_shape_def()
        what = "add_shape on body %d" % body
        d.type = _kind(type, _SHAPE_TYPES, what)
        dim = self.dimension
        self._pose(d, position, angle, quaternion, what)
        if radius is not None:
            d.radius = _number(radius, what + ": radius")
        if half is not None:
            _fill(d.half, half, 1 if d.type == CAPSULE else dim, what + ": half")
        if mu is not None:
            d.mu = _number(mu, what + ": mu")
        return self._check(_add_shape(h, body, C.byref(d)))

    def add_joint(self, type, body, point, other=-1, other_point=None, length=0.0, name=None,
                  collide=True):
        """Adds a joint ("pin": the two points coincide; "rod": their distance is length) or a
        tether ("tether": their distance is at most length, m) between body (dynamic; point
        in its frame) and other (a body's index, its point other_point in its frame; -1 the
        world, other_point then a world point; default the origin). collide=False (pins and
        rods): the two bodies get no contacts with each other (a scene's "collide": false);
        with True, shapes that a pin joins at a point inside both get none either.
        Returns its index among the joints (pin, rod) or the tethers."""
        h = self._h
        d = _JointDef()
        what = "add_joint %s" % (repr(name) if name is not None else "")
        what = what.rstrip()
        if name is not None:
            if not isinstance(name, str):
                raise TypeError("%s: the name must be a str, got %r" % (what, name))
            d.name = _c(name.encode(), what)
        d.type = _kind(type, _JOINT_TYPES, what)
        d.body[0] = _int(body, what + ": body")
        d.body[1] = _int(other, what + ": other")
        _fill(d.point[0], point, self.dimension, what + ": point")
        if other_point is not None:
            _fill(d.point[1], other_point, self.dimension, what + ": other_point")
        d.length = _number(length, what + ": length")
        if not isinstance(collide, (bool, np.bool_)):  # (numpy's too, as set_contact's flag)
            raise TypeError("%s: collide must be True or False, got %r" % (what, collide))
        d.no_collide = 0 if collide else 1
        return self._check(_add_joint(h, C.byref(d)))

    def start(self):
        """Checks the world as a scene's reader does and returns its Sim at the initial state
        (solver lemke: Sim.set_solver chooses another). On Error the World goes on."""
        h = self._h
        self._check(_start(h))
        # The simulation passes to the Sim (one owner: this World is spent).
        hd, self._hd = self._hd, None
        ptr, hd.ptr = hd.ptr.value, C.c_void_p()
        return Sim(ptr)


def solve_lcp(M, q, solver="lemke", z0=None, **options):
    """Solves w = M z + q, 0 <= z _|_ w >= 0. Returns (z, report); report["status"] 0 when
    solved (WARM_START_REJECTED, 1: solved from a cold start, z0 having a value that is not
    finite). z0 is a warm start (with warm_start=True). Raises Error on bad input or an
    unknown solver; ValueError when the sizes disagree (M n x n for q of n)."""
    q = _vector(q, "q")
    n = q.size
    Mf = np.asfortranarray(_matrix(M, n, "M", "q"))
    z = np.zeros(n) if z0 is None else _vector(z0, "z0", n).copy()
    options.setdefault("warm_start", z0 is not None)
    cfg, rep, err = _config(**options), _SolveReport(), C.create_string_buffer(1024)
    rc = _solve_lcp(_name(solver, "solve_lcp: solver"), n, Mf.ctypes.data_as(_D), q.ctypes.data_as(_D),
                    z.ctypes.data_as(_D), C.byref(cfg), C.byref(rep), err, 1024)
    if rc in (INVALID_INPUT, UNAVAILABLE, OUT_OF_MEMORY):
        raise Error(rc, err.value.decode())
    return z, {k: getattr(rep, k) for k, _ in _SolveReport._fields_}


def solve_fc(W, q, mu, solver="nsgs", dim=3, ndir=0, r0=None, **options):
    """Solves the frictional contact problem u = W r + q with Coulomb's law on each contact
    (dim 2 or 3 entries per contact, normal first; mu one coefficient per contact). solver:
    an exact-cone solver ("nsgs", "nsgs_aa", "siconos:fc3d_...") with ndir 0, or an LCP
    solver name with ndir > 0 polyhedral cone directions. Returns (r, report); report holds
    the exact-cone Coulomb measures (relative: Siconos' fc3d error). r0 is a warm start.
    ValueError when the sizes disagree: q needs dim * len(mu) entries, W is len(q) x len(q)."""
    if dim not in (2, 3):
        raise ValueError("solve_fc: dim must be 2 or 3, got %r" % (dim,))
    ndir = _int(ndir, "solve_fc: ndir")
    mu = _vector(mu, "mu")
    n = dim * mu.size
    q = _vector(q, "q")
    if q.size != n:
        raise ValueError("solve_fc: q needs dim * len(mu) = %d * %d = %d entries, got %d"
                         % (dim, mu.size, n, q.size))
    Wf = np.asfortranarray(_matrix(W, n, "W", "q"))
    r = np.zeros(n) if r0 is None else _vector(r0, "r0", n).copy()
    options.setdefault("warm_start", r0 is not None)
    cfg, rep, err = _config(**options), _FcReport(), C.create_string_buffer(1024)
    # The library reads W [n n], q [n], mu [nc] and writes r [n] for nc = mu.size, n = dim nc:
    # the sizes checked above.
    rc = _solve_fc(_name(solver, "solve_fc: solver"), int(dim), mu.size, Wf.ctypes.data_as(_D),
                   q.ctypes.data_as(_D), mu.ctypes.data_as(_D), ndir, r.ctypes.data_as(_D), C.byref(cfg),
                   C.byref(rep), err, 1024)
    if rc in (INVALID_INPUT, UNAVAILABLE, OUT_OF_MEMORY):
        raise Error(rc, err.value.decode())
    return r, {k: getattr(rep, k) for k, _ in _FcReport._fields_}


def solve_lcp_file(path, solver="lemke", **options):
    """Reads a Siconos .dat LCP and solves it: (z, report)."""
    options["warm_start"] = False
    cfg, rep, err = _config(**options), _SolveReport(), C.create_string_buffer(1024)
    zp, n = _D(), C.c_int(0)
    rc = _solve_file(_name(solver, "solve_lcp_file: solver"), _path(path, "solve_lcp_file: path"), C.byref(cfg), C.byref(zp), C.byref(n),
                     C.byref(rep), err, 1024)
    if not zp:
        # The library names its C function for a frictional contact file: here, Python's.
        raise Error(rc, err.value.decode().replace("lsim_solve_fc_file", "solve_fc_file"))
    z = np.ctypeslib.as_array(zp, shape=(n.value,)).copy() if n.value else np.zeros(0)
    _lib_free(C.cast(zp, _P))
    return z, {k: getattr(rep, k) for k, _ in _SolveReport._fields_}


def solve_fc_file(path, solver="nsgs", ndir=0, **options):
    """Reads a frictional contact problem (Siconos frictionContact .dat, dense or sparse-block,
    or an FCLIB HDF5 local problem) and solves it from r = 0 as solve_fc does: (r, report),
    report with the problem's "dim" (2 or 3) beside solve_fc's measures. Raises Error on a
    missing or bad file (the message names the file and place) or an unknown solver."""
    options["warm_start"] = False
    ndir = _int(ndir, "solve_fc_file: ndir")
    cfg, rep, err = _config(**options), _FcReport(), C.create_string_buffer(1024)
    rp, n, dim = _D(), C.c_int(0), C.c_int(0)
    rc = _solve_fc_file(_name(solver, "solve_fc_file: solver"), _path(path, "solve_fc_file: path"),
                        ndir, C.byref(cfg), C.byref(rp), C.byref(n), C.byref(dim), C.byref(rep),
                        err, 1024)
    if not rp:
        # The library names its C function for an LCP file: here, Python's.
        raise Error(rc, err.value.decode().replace("lsim_solve_lcp_file", "solve_lcp_file"))
    # The library wrote n entries into a malloc'd array: copied, then freed.
    r = np.ctypeslib.as_array(rp, shape=(n.value,)).copy() if n.value else np.zeros(0)
    _lib_free(C.cast(rp, _P))
    report = {k: getattr(rep, k) for k, _ in _FcReport._fields_}
    report["dim"] = dim.value
    return r, report


def compare(inputs, solvers, independent=False, steps=0, output=None):
    """Compares solvers on identical problems (as `lcpsim compare`): inputs one scene or
    .dat files, solvers a list "lemke,pgs[sweeps=20]" (or a list of str, each a spec).
    Writes the HDF5 compare file and returns one dict per series: label, problems,
    successes, failures, skipped, budget_stops (stopped at their iteration budget, as a
    fixed sweep count does: not failures), missed (finished by their own status with a
    residual above the success tolerance 1e-6), success_rate, median_wall,
    median_iterations, worst_relative_residual (the file's /summary figures). Raises Error: INVALID_INPUT for bad arguments or an output that
    is one of the inputs (refused, the input untouched), UNAVAILABLE for an unknown solver,
    IO_ERROR for a missing input; TypeError for arguments of the wrong kind (steps=2.7 ran
    2 steps, independent="no" was independent, a list of solvers an AttributeError).
    Ctrl-C (KeyboardInterrupt) stops the comparison before its next problem: the file is
    written with the problems done, /summary/run_end "interrupted", and KeyboardInterrupt
    is raised (the library's call went on to the last problem, minutes or hours, and wrote
    a complete file)."""
    if isinstance(inputs, (str, os.PathLike)):
        inputs = [inputs]
    arr = (C.c_char_p * len(inputs))(*[_path(p, "compare: input") for p in inputs])
    rows = (_CompareRow * 256)()
    nrows, err = C.c_int(256), C.create_string_buffer(1024)
    if isinstance(solvers, (list, tuple)) and all(isinstance(x, str) for x in solvers):
        solvers = ",".join(solvers)
    if not isinstance(solvers, str):
        raise TypeError("compare: solvers must be a str (\"lemke,pgs\") or a list of str, got %r"
                        % (solvers,))
    independent = _flag(independent, "compare: independent")
    steps = _int(steps, "compare: steps")
    solvers = _c(solvers.encode(), "compare: solvers")
    output = None if output is None else _path(output, "compare: output")
    # The library's call runs in a thread of its own (it releases the GIL), so that this
    # one takes Ctrl-C and raises the stop flag the comparison reads before each problem.
    # (An Event, not Thread.join: a join that KeyboardInterrupt cut short returns at once
    # the next time in Python 3.11, before the file is written.)
    stop, box, done = C.c_int(0), {}, threading.Event()

    def work():
        try:
            box["rc"] = _compare(arr, len(inputs), solvers, independent, steps, output, rows,
                                 C.byref(nrows), C.byref(stop), err, 1024)
        finally:
            done.set()

    threading.Thread(target=work, name="lcpsim.compare", daemon=True).start()
    try:
        while not done.wait(0.05):
            pass
    except KeyboardInterrupt:
        stop.value = int(signal.SIGINT)  # named in /summary/run_end_reason
        done.wait()  # the problem under way finishes, the file is written
        raise
    rc = box["rc"]
    if rc < 0:
        raise Error(rc, err.value.decode())
    out = []
    for r in rows[: min(nrows.value, 256)]:
        d = {k: getattr(r, k) for k, _ in _CompareRow._fields_}
        d["label"] = r.label.decode()
        out.append(d)
    return out
