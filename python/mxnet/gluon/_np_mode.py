"""Gluon under numpy-array semantics (npx.set_np()): the F that imperative hybrid_forward gets,
output conversion and the output-type check MXNet 1.9.1 applies."""
from .. import ndarray as _nd
from .. import numpy as _mx_np
from .. import numpy_extension as _mx_npx
from ..numpy.multiarray import _np_call, _wrap


class _NumpyF:
    """mx.nd as seen by hybrid_forward in numpy mode: every operator returns mx.np arrays
    (built-in layers call F.FullyConnected and the like), and F.np / F.npx are mx.np /
    mx.npx."""
    np = _mx_np
    npx = _mx_npx

    def __getattr__(self, name):
        attr = getattr(_nd, name)
        if callable(attr) and not isinstance(attr, type):
            def call(*args, **kwargs):
                return _np_call(attr, *args, **kwargs)
            call.__name__ = name
            call.__doc__ = attr.__doc__
            self.__dict__[name] = call
            return call
        return attr


NUMPY_F = _NumpyF()


def to_np(out):
    """out (an array, or nested lists/tuples of them) with NDArrays as mx.np arrays."""
    if isinstance(out, (list, tuple)):
        return type(out)(to_np(o) for o in out)
    return _wrap(out)


def check_all_np_ndarrays(out):
    """TypeError unless every array in out is an mx.np array (a Block's outputs in numpy
    mode, as MXNet 1.9.1 checks)."""
    if isinstance(out, _nd.NDArray) and not isinstance(out, _mx_np.ndarray):
        raise TypeError("Block's output ndarrays/symbols must be of type `mxnet.numpy.ndarray` "
                        "or `mxnet.symbol.numpy._Symbol`, while got output type %s"
                        % type(out))
    if isinstance(out, (list, tuple)):
        for o in out:
            check_all_np_ndarrays(o)
