"""mx.io: data iterators (DataIter, NDArrayIter, ...) and their batch descriptors."""
from .io import *  # noqa: F401,F403
from .ndarray_iter import *  # noqa: F401,F403
from . import io, ndarray_iter  # noqa: F401
