"""mx.npx.random: seed, bernoulli and the batch samplers of MXNet 1.9.1's numpy extension."""
import numpy as _np

from .. import random as _mx_random
from ..numpy import random as _np_random
from ..numpy.multiarray import _binary, _as_dtype, _shape_tuple

__all__ = ["seed", "bernoulli", "uniform_n", "normal_n"]


def seed(seed, ctx="all"):  # pylint: disable=redefined-outer-name
    """Seed the random number generators (the same ones mx.random uses)."""
    _mx_random.seed(seed, ctx=ctx)


def bernoulli(prob=None, logit=None, size=None, dtype=None, ctx=None, out=None):
    """Bernoulli samples with probability prob (or sigmoid(logit)); float32 by default."""
    if (prob is None) == (logit is None):
        raise ValueError("Either `prob` or `logit` must be specified, but not both.")
    if prob is not None:
        vals = prob.asnumpy() if hasattr(prob, "asnumpy") else _np.asarray(prob)
        if _np.any(vals < 0) or _np.any(vals > 1):
            raise ValueError("bernoulli: prob must be in [0, 1]")
    if logit is not None:
        from .. import numpy as _mnp
        prob = _binary("true_divide", 1.0, _binary("add", 1.0, _mnp.exp(-logit))) \
            if not isinstance(logit, (int, float)) else 1.0 / (1.0 + _np.exp(-logit))
    u = _np_random.uniform(0.0, 1.0, size=size if size is not None else getattr(prob, "shape", ()),
                           ctx=ctx)
    res = _as_dtype(_binary("less", u, prob), _np.float32 if dtype is None else dtype)
    if out is not None:
        out[...] = res
        return out
    return res


def _batch(batch_shape, *params):
    shapes = [p.shape for p in params if hasattr(p, "shape")]
    base = _np.broadcast_shapes(*shapes) if shapes else ()
    return _shape_tuple(batch_shape) + tuple(base)


def uniform_n(low=0.0, high=1.0, batch_shape=None, dtype=None, ctx=None):
    """Uniform samples of shape batch_shape + broadcast(low, high).shape."""
    return _np_random.uniform(low, high, size=_batch(batch_shape, low, high), dtype=dtype,
                              ctx=ctx)


def normal_n(loc=0.0, scale=1.0, batch_shape=None, dtype=None, ctx=None):
    """Normal samples of shape batch_shape + broadcast(loc, scale).shape."""
    return _np_random.normal(loc, scale, size=_batch(batch_shape, loc, scale), dtype=dtype,
                             ctx=ctx)
