"""mx.nd.contrib: operators registered as _contrib_* (filled from the registry at import), and
the element tests isinf/isfinite/isnan MXNet 1.x defines here from existing operators."""
import numpy as _np

from . import ndarray as _nd


def isinf(data):
    """1 where data is +inf or -inf, else 0 (same dtype as data)."""
    return data.abs() == _np.inf


def isfinite(data):
    """1 where data is neither infinite nor NaN, else 0."""
    return _nd.logical_and(data.abs() != _np.inf, data == data)


def isnan(data):
    """1 where data is NaN, else 0."""
    return data != data  # NaN is the only value unequal to itself
