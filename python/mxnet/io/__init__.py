"""mx.io: data iterators (DataIter, NDArrayIter, ...) and their batch descriptors."""
import sys as _sys

from .io import *  # noqa: F401,F403
from .ndarray_iter import *  # noqa: F401,F403
from .mxdataiter import *  # noqa: F401,F403
from . import io, ndarray_iter, mxdataiter  # noqa: F401

# mx.io.MNISTIter, CSVIter, ... from the C++ iterator registry
mxdataiter._init_io_module(_sys.modules[__name__], io)
