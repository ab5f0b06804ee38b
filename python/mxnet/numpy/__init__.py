"""mx.np: NumPy-compatible arrays (mx.np.ndarray) and functions on MXNet's operators."""
# pylint: disable=wildcard-import,unused-wildcard-import,redefined-builtin
import numpy as _onp

from .multiarray import ndarray
from ._op import *  # noqa: F401,F403
from .function_base import *  # noqa: F401,F403
from . import random
from . import linalg

# numpy's scalar types and constants under the same names, as MXNet 1.9.1 exposes them
bool_ = _onp.bool_
bool = _onp.bool_  # pylint: disable=redefined-builtin
int8, int16, int32, int64 = _onp.int8, _onp.int16, _onp.int32, _onp.int64
uint8, uint16, uint32, uint64 = _onp.uint8, _onp.uint16, _onp.uint32, _onp.uint64
float16, float32, float64 = _onp.float16, _onp.float32, _onp.float64
dtype = _onp.dtype
finfo, iinfo = _onp.finfo, _onp.iinfo
PZERO, NZERO = 0.0, -0.0
_STR_2_DTYPE_ = {"float16": float16, "float32": float32, "float64": float64,
                 "float": float64, "uint8": uint8, "int8": int8, "int32": int32,
                 "int64": int64, "int": int64, "bool": bool, "bool_": bool_, "None": None}
pi, e, euler_gamma = _onp.pi, _onp.e, _onp.euler_gamma
inf, nan, PINF, NINF = _onp.inf, _onp.nan, _onp.inf, -_onp.inf
NAN, NaN, Inf, Infinity = _onp.nan, _onp.nan, _onp.inf, _onp.inf
newaxis = None
