"""Device contexts: mx.cpu(), mx.gpu(), mx.cpu_pinned() and the `with ctx:` default."""
import threading
import warnings

from .base import _ffi, classproperty, with_metaclass, _MXClassPropertyMetaClass


class Context(with_metaclass(_MXClassPropertyMetaClass, object)):
    """A device and its ordinal, e.g. Context('cpu', 0) or Context('gpu', 1)."""
    _default_ctx = threading.local()
    devtype2str = {1: "cpu", 2: "gpu", 3: "cpu_pinned", 5: "cpu_shared"}
    devstr2type = {"cpu": 1, "gpu": 2, "cpu_pinned": 3, "cpu_shared": 5}

    def __init__(self, device_type, device_id=0):
        if isinstance(device_type, Context):
            self.device_typeid = device_type.device_typeid
            self.device_id = device_type.device_id
        else:
            if device_type not in Context.devstr2type:
                raise ValueError("device_type must be one of %s, given %r"
                                 % (sorted(Context.devstr2type), device_type))
            self.device_typeid = Context.devstr2type[device_type]
            self.device_id = int(device_id)
        self._old_ctx = None

    @property
    def device_type(self):
        return Context.devtype2str[self.device_typeid]

    def __hash__(self):
        return hash((self.device_typeid, self.device_id))

    def __eq__(self, other):
        return (isinstance(other, Context) and self.device_typeid == other.device_typeid
                and self.device_id == other.device_id)

    def __str__(self):
        return "%s(%d)" % (self.device_type, self.device_id)

    __repr__ = __str__

    def __enter__(self):
        if not hasattr(Context._default_ctx, "value"):
            Context._default_ctx.value = Context("cpu", 0)
        self._old_ctx = Context._default_ctx.value
        Context._default_ctx.value = self
        return self

    def __exit__(self, ptype, value, trace):
        Context._default_ctx.value = self._old_ctx

    # pylint: disable=no-self-argument
    @classproperty
    def default_ctx(cls):
        """The default context of this thread (deprecated in MXNet 1.9: use `with ctx:` or
        mx.test_utils.set_default_context)."""
        warnings.warn("Context.default_ctx has been deprecated. Please use "
                      "`with mx.Context(...)`, or mx.test_utils.set_default_context.",
                      DeprecationWarning)
        if not hasattr(Context._default_ctx, "value"):
            cls._default_ctx.value = Context("cpu", 0)
        return cls._default_ctx.value

    @default_ctx.setter
    def default_ctx(cls, val):
        warnings.warn("Context.default_ctx has been deprecated. Please use "
                      "`with mx.Context(...)`, or mx.test_utils.set_default_context.",
                      DeprecationWarning)
        cls._default_ctx.value = val
    # pylint: enable=no-self-argument

    def empty_cache(self):
        """Release the memory this device's pool caches."""
        _ffi.release_all(self.device_typeid, self.device_id)


def cpu(device_id=0):
    """The CPU context; device_id only labels it (all cpu(i) share the host)."""
    return Context("cpu", device_id)


def cpu_pinned(device_id=0):
    """Page-locked host memory (plain host memory in a build without CUDA)."""
    return Context("cpu_pinned", device_id)


def gpu(device_id=0):
    """The GPU context; using it raises MXNetError in a build without CUDA or GPU."""
    return Context("gpu", device_id)


def num_gpus():
    """Number of visible GPUs."""
    return _ffi.gpu_count()


def gpu_memory_info(device_id=0):
    """(free, total) bytes of a GPU; raises MXNetError when the GPU is not available."""
    from .base import MXNetError
    if num_gpus() <= device_id:
        raise MXNetError("gpu_memory_info: gpu(%d) is not available (%d GPUs visible in this "
                         "build)" % (device_id, num_gpus()))
    raise MXNetError("gpu_memory_info: GPU memory queries need the CUDA backend")


def current_context():
    """The default context of this thread (cpu(0) unless inside `with ctx:`)."""
    if not hasattr(Context._default_ctx, "value"):
        Context._default_ctx.value = Context("cpu", 0)
    return Context._default_ctx.value


def _ctx_from_tuple(t):
    c = Context.__new__(Context)
    c.device_typeid, c.device_id, c._old_ctx = t[0], t[1], None
    return c
