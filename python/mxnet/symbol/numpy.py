"""mx.sym.np / mx.sym.npx: the symbolic numpy front end of MXNet 1.9.1 does not exist in this
package yet. Each name raises SymbolicNumpyUnavailable (an AttributeError); a hybridized
numpy-mode HybridBlock whose hybrid_forward reaches for F.np / F.npx then runs imperatively
with mx.np arrays instead of building a graph (see gluon/block.py and docs/numpy.md)."""
import types

from ..util import is_np_array
from ..ndarray import ndarray as _nd_fluent
from .symbol import Symbol


class SymbolicNumpyUnavailable(AttributeError):
    """A symbolic numpy function (mx.sym.np.*, mx.sym.npx.*, Symbol.as_np_ndarray) was asked
    for; this package has none yet."""


class _Unavailable(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise SymbolicNumpyUnavailable(
            "%s.%s: symbolic numpy functions are not available in this package yet; numpy-mode "
            "blocks run imperatively when hybridized" % (self.__name__, name))


np = _Unavailable("mxnet.symbol.numpy")
npx = _Unavailable("mxnet.symbol.numpy_extension")


def _as_np_ndarray(self):
    raise SymbolicNumpyUnavailable("Symbol.as_np_ndarray: numpy symbols are not available in "
                                   "this package yet")


def _as_nd_ndarray(self):
    """This symbol (already a legacy Symbol)."""
    return self


Symbol.as_np_ndarray = _as_np_ndarray
Symbol.as_nd_ndarray = _as_nd_ndarray


def _numpy_mode_guard(name, method):
    """Symbol.<name> that, under numpy-array semantics, raises SymbolicNumpyUnavailable: there
    the operators of MXNet 1.9.1's numpy symbols broadcast and index as numpy does, which the
    legacy Symbol's elementwise operators do not."""
    def guarded(self, *args, **kwargs):
        if is_np_array():
            raise SymbolicNumpyUnavailable("Symbol.%s under numpy semantics: numpy symbols are "
                                           "not available in this package yet" % name)
        return method(self, *args, **kwargs)
    guarded.__name__ = name
    guarded.__doc__ = method.__doc__
    return guarded


def _numpy_mode_getattr(self, name):
    if is_np_array() and not name.startswith("__"):
        raise SymbolicNumpyUnavailable("Symbol.%s: numpy symbols are not available in this "
                                       "package yet" % name)
    raise AttributeError("'Symbol' object has no attribute '%s'" % name)


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
              "__truediv__", "__rtruediv__", "__mod__", "__rmod__", "__pow__", "__rpow__",
              "__neg__", "__eq__", "__ne__", "__gt__", "__ge__", "__lt__", "__le__",
              "__getitem__", "__iadd__", "__isub__", "__imul__", "__itruediv__"):
    if hasattr(Symbol, _name):
        setattr(Symbol, _name, _numpy_mode_guard(_name, getattr(Symbol, _name)))
# array-style methods (a legacy Symbol has some with legacy semantics: max over all axes gives
# shape (1,), reshape codes, ...): numpy symbols would give numpy's results
for _name in _nd_fluent._FLUENT + ["reshape", "flatten", "expand_dims", "squeeze",
                                   "broadcast_to", "astype", "reshape_like", "T", "dot",
                                   "swapaxes", "ndim", "shape", "dtype", "size"]:
    _method = Symbol.__dict__.get(_name)
    if callable(_method):
        setattr(Symbol, _name, _numpy_mode_guard(_name, _method))
if not hasattr(Symbol, "__getattr__"):
    Symbol.__getattr__ = _numpy_mode_getattr
