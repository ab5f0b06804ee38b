"""mx.nd.CachedOp: a symbol run as one operator, recorded as one node by autograd."""
from . import _ffi
from .context import current_context
from .ndarray import NDArray

__all__ = ["CachedOp"]


class CachedOp:
    """Cached operator of a symbol (MXNet 1.9.1's CachedOp).

    Call it with one array per ``sym.list_inputs()`` name; returns the output array, or a
    list when the symbol has several outputs. flags: (name, value) pairs such as
    ``[('static_alloc', True)]``."""
    __slots__ = ["handle", "is_np_sym", "_monitor_callback"]

    def __init__(self, sym, flags=()):
        self.handle = _ffi.CachedOpHandle(sym.handle, [(str(k), str(v)) for k, v in flags])
        self.is_np_sym = False
        self._monitor_callback = None

    def __call__(self, *args, **kwargs):
        out = kwargs.pop("out", None)
        default_ctx = kwargs.pop("default_ctx", None)
        if kwargs:
            raise TypeError("CachedOp.__call__ got unexpected keyword argument(s): "
                            + ", ".join(kwargs.keys()))
        for a in args:
            if not isinstance(a, NDArray):
                raise TypeError("CachedOp: inputs must be NDArrays, given %s" % type(a).__name__)
        ctx = default_ctx if default_ctx is not None else current_context()
        outs = [] if out is None else ([out] if isinstance(out, NDArray) else list(out))
        res = self.handle.invoke(list(args), outs, ctx.device_typeid, ctx.device_id)
        if out is not None:
            return out
        return res[0] if len(res) == 1 else res
