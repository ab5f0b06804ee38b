"""mx.nd: NDArray and every registered operator as a function."""
import sys as _sys

from . import _internal, contrib, image, linalg
from . import ndarray as _ndarray_mod
from .ndarray import *  # noqa: F401,F403
from .ndarray import NDArray, array, empty, zeros, ones, full, arange, eye, linspace, \
    waitall, concatenate, moveaxis, to_dlpack_for_read, to_dlpack_for_write, from_dlpack, \
    from_numpy
from .register import populate as _populate
from .utils import save, load, load_frombuffer

from . import random  # noqa: E402  (its hand-written samplers win over generated names)

_this = _sys.modules[__name__]
_populate(_this, _internal, contrib, random, linalg, image)
_ndarray_mod._op = _this
_ndarray_mod._internal = _internal
_ndarray_mod._install_fluent()

from . import sparse  # noqa: E402
from .sparse import _ndarray_cls  # noqa: E402,F401
sparse._populate(_this, _internal)

from . import indexing as _indexing  # noqa: E402,F401
from .._cached_op import CachedOp  # noqa: E402,F401
