"""mx.profiler: record operators, C API calls and memory; dump a Chrome trace or aggregate stats.

The Python face of src/profiler, called through the C API (c_api.h, profiler section) with
ctypes, with MXNet 1.9's names, arguments and defaults. Everything is recorded in C++; this
module only validates arguments (bad ones raise MXNetError and change nothing) and
converts them.
"""
import contextlib
import contextvars
import ctypes
import os
import sys
import types
import warnings

from .base import (_LIB, MXNetError, KVStoreHandle, ProfileHandle, c_str, c_str_array,
                   check_call, py_str)

__all__ = ["set_config", "set_state", "get_state", "dump", "dumps", "pause", "resume",
           "profiler_set_config", "profiler_set_state", "dump_profile", "set_kvstore_handle",
           "scope", "Domain", "Task", "Frame", "Event", "Counter", "Marker"]

# Argument widths that ctypes' int default would truncate (64-bit counter values).
_ARGTYPES = {
    "MXProfileSetCounter": [ctypes.c_void_p, ctypes.c_uint64],
    "MXProfileAdjustCounter": [ctypes.c_void_p, ctypes.c_int64],
}
for _name, _types in _ARGTYPES.items():
    _f = getattr(_LIB, _name, None)
    if _f is not None:
        _f.argtypes = _types
del _name, _types, _f

_STATES = {"stop": 0, "run": 1}
_PROCESSES = {"worker": 0, "server": 1}
_FORMATS = {"table": 0, "json": 1}
_SORT_KEYS = {"total": 0, "avg": 1, "min": 2, "max": 3, "count": 4}
_MARKER_SCOPES = ("global", "process", "thread", "task", "marker")

# The KVStore whose server processes are profiled when profile_process='server' (MXNet 1.9).
profiler_kvstore_handle = KVStoreHandle()


def _env_flag(name):
    try:
        return int(os.environ.get(name, "0").strip() or "0") != 0
    except ValueError:
        return False


# The state last set through this module; MXNET_PROFILER_AUTOSTART starts in 'run'.
_state = "run" if _env_flag("MXNET_PROFILER_AUTOSTART") else "stop"


def _choice(func, arg, value, table):
    """table[value], or MXNetError naming the function, the argument and the valid values."""
    try:
        return table[value]
    except (KeyError, TypeError):
        raise MXNetError("profiler.%s: %s must be one of %s, given %r"
                         % (func, arg, ", ".join(repr(k) for k in table), value)) from None


def _flag(func, arg, value):
    if value not in (False, True):   # also admits 0 and 1, as MXNet 1.9 does
        raise MXNetError("profiler.%s: %s must be True or False, given %r" % (func, arg, value))
    return 1 if value else 0


def _config_value(value):
    # dmlc parameters parse "True"/"False", numbers and plain strings.
    return str(bool(value)) if isinstance(value, bool) else str(value)


def set_kvstore_handle(handle):
    """Use this KVStore's handle for profile_process='server' commands."""
    global profiler_kvstore_handle
    profiler_kvstore_handle = handle


def set_config(**kwargs):
    """Configure the profiler (keyword arguments only). Unnamed settings take their defaults.

    Parameters
    ----------
    profile_all : bool, default False
        Record everything below (operators of both kinds, C API calls, memory).
    profile_symbolic : bool, default True
        Record operators run by executors and cached (hybridized) graphs.
    profile_imperative : bool, default True
        Record operators run one by one (mx.nd, autograd).
    profile_memory : bool, default True
        Record allocations and frees per device and a running bytes-in-use counter.
    profile_api : bool, default True
        Record C API calls.
    continuous_dump : bool, default True
        Append recorded events to `filename` every `dump_period` seconds while running; the
        file is valid JSON after every append, so a crash keeps what was recorded.
    dump_period : float, default 1.0
        Seconds between continuous dumps.
    aggregate_stats : bool, default False
        Keep count/total/min/max/avg per event name for dumps().
    filename : str, default 'profile.json'
        Where dump() writes the Chrome trace.
    profile_process : {'worker', 'server'}, default 'worker'
        Configure this process, or the servers of the KVStore given to set_kvstore_handle.
    """
    keys = list(kwargs)
    vals = [_config_value(kwargs[k]) for k in keys]
    if "profile_process" in kwargs:
        _choice("set_config", "profile_process", kwargs["profile_process"], _PROCESSES)
    check_call(_LIB.MXSetProcessProfilerConfig(len(keys), c_str_array(keys), c_str_array(vals),
                                               profiler_kvstore_handle))


def set_state(state="stop", profile_process="worker"):
    """Start ('run') or stop ('stop') recording."""
    global _state
    code = _choice("set_state", "state", state, _STATES)
    proc = _choice("set_state", "profile_process", profile_process, _PROCESSES)
    check_call(_LIB.MXSetProcessProfilerState(ctypes.c_int(code), ctypes.c_int(proc),
                                              profiler_kvstore_handle))
    if proc == 0:
        _state = state


def get_state():
    """'run' or 'stop': the state last set by set_state (or MXNET_PROFILER_AUTOSTART)."""
    return _state


def dump(finished=True, profile_process="worker"):
    """Write the events recorded so far to the configured file as a Chrome trace.

    With finished=False the file stays open for later dumps (continuous profiling); with
    finished=True (the default) it is completed and closed.
    """
    fin = _flag("dump", "finished", finished)
    proc = _choice("dump", "profile_process", profile_process, _PROCESSES)
    check_call(_LIB.MXDumpProcessProfile(ctypes.c_int(fin), ctypes.c_int(proc),
                                         profiler_kvstore_handle))


def dumps(reset=False, format="table", sort_by="total", ascending=False):
    """Aggregate statistics (needs aggregate_stats=True) as a string.

    Parameters
    ----------
    reset : bool
        Clear the statistics after reading them.
    format : {'table', 'json'}
        A printable table per domain, or a JSON document.
    sort_by : {'total', 'avg', 'min', 'max', 'count'}
        The column that orders the rows of each domain.
    ascending : bool
        Smallest first instead of largest first.
    """
    # pylint: disable=redefined-builtin
    args = (_flag("dumps", "reset", reset),
            _choice("dumps", "format", format, _FORMATS),
            _choice("dumps", "sort_by", sort_by, _SORT_KEYS),
            _flag("dumps", "ascending", ascending))
    out = ctypes.c_char_p()
    check_call(_LIB.MXAggregateProfileStatsPrintEx(ctypes.byref(out), *map(ctypes.c_int, args)))
    return py_str(out.value or b"")


def pause(profile_process="worker"):
    """Stop recording until resume(); the configuration and recorded events are kept."""
    proc = _choice("pause", "profile_process", profile_process, _PROCESSES)
    check_call(_LIB.MXProcessProfilePause(ctypes.c_int(1), ctypes.c_int(proc),
                                          profiler_kvstore_handle))


def resume(profile_process="worker"):
    """Resume recording after pause()."""
    proc = _choice("resume", "profile_process", profile_process, _PROCESSES)
    check_call(_LIB.MXProcessProfilePause(ctypes.c_int(0), ctypes.c_int(proc),
                                          profiler_kvstore_handle))


def profiler_set_config(mode="symbolic", filename="profile.json"):
    """Deprecated: set_config(profile_<mode>=True, filename=filename)."""
    warnings.warn("profiler.profiler_set_config() is deprecated; use profiler.set_config()",
                  DeprecationWarning, stacklevel=2)
    set_config(**{"profile_" + str(mode): True, "filename": filename})


def profiler_set_state(state="stop"):
    """Deprecated: set_state(state)."""
    warnings.warn("profiler.profiler_set_state() is deprecated; use profiler.set_state()",
                  DeprecationWarning, stacklevel=2)
    set_state(state)


def dump_profile():
    """Deprecated: dump(True)."""
    warnings.warn("profiler.dump_profile() is deprecated; use profiler.dump()",
                  DeprecationWarning, stacklevel=2)
    dump(True)


def _check_name(kind, name):
    if not isinstance(name, str):
        raise MXNetError("profiler.%s: name must be a str, given %r" % (kind, name))
    return c_str(name)


def _new_handle(create, *args):
    handle = ProfileHandle()
    check_call(create(*args, ctypes.byref(handle)))
    return handle


class _Owned:
    """A profiler object whose C handle is destroyed with it."""
    handle = None

    def __del__(self):
        handle, self.handle = self.handle, None
        if handle is not None and handle.value and _LIB is not None:
            try:
                _LIB.MXProfileDestroyHandle(handle)
            except Exception:  # pylint: disable=broad-except
                pass           # interpreter shutdown

    def __str__(self):
        return self.name


class _Duration(_Owned):
    """An object timed by start()/stop()."""

    def start(self):
        """Begin a timed span."""
        check_call(_LIB.MXProfileDurationStart(self.handle))

    def stop(self):
        """End the span begun by start()."""
        check_call(_LIB.MXProfileDurationStop(self.handle))


class Domain:
    """A named group of profiler objects (a category/track in the trace).

    Domain handles live as long as the process, as in MXNet.
    """

    def __init__(self, name):
        self.name = name
        self.handle = _new_handle(_LIB.MXProfileCreateDomain, _check_name("Domain", name))

    def __str__(self):
        return self.name

    def new_task(self, name):
        """A Task in this domain."""
        return Task(self, name)

    def new_frame(self, name):
        """A Frame in this domain."""
        return Frame(self, name)

    def new_counter(self, name, value=None):
        """A Counter in this domain, set to value when given."""
        return Counter(self, name, value)

    def new_marker(self, name):
        """A Marker in this domain."""
        return Marker(self, name)


class Task(_Duration):
    """A unit of work on one thread; all its start/stop spans share one statistic."""

    def __init__(self, domain, name):
        self.name = name
        self.handle = _new_handle(_LIB.MXProfileCreateTask, domain.handle,
                                  _check_name("Task", name))


class Frame(_Duration):
    """Like Task, but each start/stop span is a separate, numbered frame."""

    def __init__(self, domain, name):
        self.name = name
        self.handle = _new_handle(_LIB.MXProfileCreateFrame, domain.handle,
                                  _check_name("Frame", name))


class Event(_Duration):
    """A timed region of the calling thread, outside any domain."""

    def __init__(self, name):
        self.name = name
        self.handle = _new_handle(_LIB.MXProfileCreateEvent, _check_name("Event", name))


class Counter(_Owned):
    """A value tracked over time (a counter track in the trace).

    `counter += n` and `counter -= n` adjust it; set_value sets it.
    """

    def __init__(self, domain, name, value=None):
        self.name = name
        self.handle = _new_handle(_LIB.MXProfileCreateCounter, domain.handle,
                                  _check_name("Counter", name))
        if value is not None:
            self.set_value(value)

    def set_value(self, value):
        """Set the counter to a non-negative integer."""
        value = int(value)
        if value < 0:
            raise MXNetError("profiler.Counter.set_value: counter %r takes values >= 0, "
                             "given %d" % (self.name, value))
        check_call(_LIB.MXProfileSetCounter(self.handle, ctypes.c_uint64(value)))

    def increment(self, delta=1):
        """Add delta to the counter."""
        check_call(_LIB.MXProfileAdjustCounter(self.handle, ctypes.c_int64(int(delta))))

    def decrement(self, delta=1):
        """Subtract delta from the counter."""
        check_call(_LIB.MXProfileAdjustCounter(self.handle, ctypes.c_int64(-int(delta))))

    def __iadd__(self, delta):
        self.increment(delta)
        return self

    def __isub__(self, delta):
        self.decrement(delta)
        return self


class Marker:
    """An instant in time, drawn across the given scope of the trace."""

    def __init__(self, domain, name):
        self.name = name
        self.domain = domain

    def mark(self, scope="process"):  # pylint: disable=redefined-outer-name
        """Record the instant; scope is 'global', 'process', 'thread', 'task' or 'marker'."""
        if scope not in _MARKER_SCOPES:
            raise MXNetError("profiler.Marker.mark: scope must be one of %s, given %r"
                             % (", ".join(repr(s) for s in _MARKER_SCOPES), scope))
        check_call(_LIB.MXProfileSetMarker(self.domain.handle, _check_name("Marker", self.name),
                                           c_str(scope)))

    def __str__(self):
        return self.name


_DEFAULT_SCOPE = "<unk>:"
_current_scope = contextvars.ContextVar("profiler_scope", default=_DEFAULT_SCOPE)


@contextlib.contextmanager
def scope(name=_DEFAULT_SCOPE, append_mode=True):
    """Prefix the names of operators pushed by this thread inside the block with `name:`.

    With append_mode (the default) scopes nest: scope('a') inside scope('b') is 'b:a:'.
    Yields the full scope string; the previous scope is restored on exit, also on errors.
    """
    if not isinstance(name, str) or not name:
        raise MXNetError("profiler.scope: name must be a non-empty str, given %r" % (name,))
    if not name.endswith(":"):
        name += ":"
    outer = _current_scope.get()
    if append_mode and outer != _DEFAULT_SCOPE:
        name = outer + name
    check_call(_LIB.MXSetProfilerScope(c_str(name)))
    token = _current_scope.set(name)
    try:
        yield name
    finally:
        _current_scope.reset(token)
        check_call(_LIB.MXSetProfilerScope(c_str(outer)))


class _ProfilerModule(types.ModuleType):
    """Gives the module a `state` attribute: profiler.state == 'run' or 'stop';
    assigning it calls set_state."""

    @property
    def state(self):
        return _state

    @state.setter
    def state(self, value):
        set_state(value)


sys.modules[__name__].__class__ = _ProfilerModule
