"""mx.sym.contrib: operators registered as _contrib_* (filled from the registry at import), and
the symbolic forms of the candidate sampler rand_zipfian and the element tests isinf /
isfinite / isnan that MXNet 1.x defines here from existing operators."""
import math

import numpy as _np

from .control_flow import foreach, while_loop, cond  # noqa: F401

__all__ = ["rand_zipfian", "isinf", "isfinite", "isnan", "foreach", "while_loop", "cond"]


def rand_zipfian(true_classes, num_sampled, range_max):
    """Symbols (sampled_classes, expected_count_true, expected_count_sampled): num_sampled
    classes drawn from P(k) = log((k + 2) / (k + 1)) / log(range_max + 1) over [0, range_max),
    and the expected count num_sampled * P(k) of each true and each sampled class."""
    from . import random as _random
    log_range = math.log(range_max + 1)
    rand = _random.uniform(0, log_range, shape=(num_sampled,), dtype="float64")
    sampled_classes = (rand.exp() - 1).astype("int64") % range_max

    def expected_count(classes):
        c = classes.astype("float64")
        return ((c + 2.0) / (c + 1.0)).log() / log_range * num_sampled

    return sampled_classes, expected_count(true_classes), expected_count(sampled_classes)


def isinf(data):
    """1 where data is +inf or -inf, else 0."""
    return data.abs() == _np.inf


def isfinite(data):
    """1 where data is neither infinite nor NaN, else 0."""
    return (data.abs() != _np.inf) * (data == data)


def isnan(data):
    """1 where data is NaN, else 0."""
    return data != data  # NaN is the only value unequal to itself
