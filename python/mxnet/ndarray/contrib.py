"""mx.nd.contrib: operators registered as _contrib_* (filled from the registry at import), the
candidate sampler rand_zipfian, the element tests isinf/isfinite/isnan MXNet 1.x defines
here from existing operators, the AdamW updates, which take rescale_grad as a number or an
array, and the multi-tensor AdamW and LAMB updates, which take lists of arrays."""
import math

import numpy as _np

from ..context import current_context
from . import ndarray as _nd
from .control_flow import foreach, while_loop, cond  # noqa: F401

__all__ = ["rand_zipfian", "isinf", "isfinite", "isnan", "adamw_update", "mp_adamw_update",
           "multi_adamw_update", "multi_mp_adamw_update", "multi_lamb_update",
           "multi_mp_lamb_update", "foreach", "while_loop", "cond"]


def rand_zipfian(true_classes, num_sampled, range_max, ctx=None):
    """Draw num_sampled candidate classes (with replacement) from the approximately
    log-uniform (Zipfian) distribution P(k) = log((k + 2) / (k + 1)) / log(range_max + 1)
    over [0, range_max).

    Returns (sampled_classes: int64 (num_sampled,), expected_count_true: float64, the
    expected count num_sampled * P(k) of each of true_classes, expected_count_sampled:
    float64, the same for each sampled class), all on ctx (default: the current context)."""
    from . import random as _random
    if ctx is None:
        ctx = current_context()
    log_range = math.log(range_max + 1)
    rand = _random.uniform(0, log_range, shape=(num_sampled,), dtype="float64", ctx=ctx)
    # exp(u) - 1 for u uniform on [0, log(range_max + 1)) has P(floor = k) = P(k) above
    sampled_classes = (rand.exp() - 1).astype("int64") % range_max

    def expected_count(classes):
        c = classes.astype("float64")
        return ((c + 2.0) / (c + 1.0)).log() / log_range * num_sampled

    return (sampled_classes, expected_count(true_classes.as_in_context(ctx)),
            expected_count(sampled_classes))


def isinf(data):
    """1 where data is +inf or -inf, else 0 (same dtype as data)."""
    return data.abs() == _np.inf


def isfinite(data):
    """1 where data is neither infinite nor NaN, else 0."""
    return _nd.logical_and(data.abs() != _np.inf, data == data)


def isnan(data):
    """1 where data is NaN, else 0."""
    return data != data  # NaN is the only value unequal to itself


def _rescale_grad_array(rescale_grad, ctx):
    """rescale_grad as the (1,) array the _adamw_update operators read, on ctx."""
    if isinstance(rescale_grad, _nd.NDArray):
        return rescale_grad.as_in_context(ctx)
    return _nd.full(shape=(1,), val=rescale_grad, ctx=ctx)


def adamw_update(weight, grad, mean, var, rescale_grad, lr, eta, beta1=0.9, beta2=0.999,
                 epsilon=1e-8, wd=0, clip_gradient=-1, out=None, name=None, **kwargs):
    """AdamW update (operator _adamw_update); rescale_grad may be a number or an NDArray, and
    the update is skipped when it is NaN, Inf or 0. mean and var are updated in place."""
    from . import _internal
    return _internal._adamw_update(weight=weight, grad=grad, mean=mean, var=var,
                                   rescale_grad=_rescale_grad_array(rescale_grad, weight.context),
                                   lr=lr, eta=eta, beta1=beta1, beta2=beta2, epsilon=epsilon,
                                   wd=wd, clip_gradient=clip_gradient, out=out, name=name,
                                   **kwargs)


def mp_adamw_update(weight, grad, mean, var, weight32, rescale_grad, lr, eta, beta1=0.9,
                    beta2=0.999, epsilon=1e-8, wd=0, clip_gradient=-1, out=None, name=None,
                    **kwargs):
    """Multi-precision AdamW update (operator _mp_adamw_update): as adamw_update, computed in
    float32 on mean, var and weight32, which are updated in place."""
    from . import _internal
    return _internal._mp_adamw_update(weight=weight, grad=grad, mean=mean, var=var,
                                      weight32=weight32,
                                      rescale_grad=_rescale_grad_array(rescale_grad,
                                                                       weight.context),
                                      lr=lr, eta=eta, beta1=beta1, beta2=beta2,
                                      epsilon=epsilon, wd=wd, clip_gradient=clip_gradient,
                                      out=out, name=name, **kwargs)


def _interleave(*lists):
    """[a0, b0, ..., a1, b1, ...] from lists [a0, a1, ...], [b0, b1, ...], ..."""
    return [x for group in zip(*lists) for x in group]


def multi_adamw_update(weights, grads, mean, var, rescale_grad, lrs, wds, etas, out=None,
                       name=None, size=0, **kwargs):
    """AdamW update of several weights in one call (operator _multi_adamw_update): lists of
    weights, gradients, means and variances (the last two updated in place), one lr, wd and
    eta per weight; rescale_grad a number or an NDArray; size defaults to len(weights)."""
    from . import _internal
    data = _interleave(weights, grads, mean, var)
    data.append(_rescale_grad_array(rescale_grad, weights[0].context))
    return _internal._multi_adamw_update(*data, out=out, num_weights=size or len(weights),
                                         lrs=lrs, wds=wds, etas=etas, name=name, **kwargs)


def multi_mp_adamw_update(weights, grads, mean, var, weights32, rescale_grad, lrs, wds, etas,
                          out=None, name=None, size=0, **kwargs):
    """Multi-precision form of multi_adamw_update (operator _multi_mp_adamw_update): float32
    means, variances and master weights weights32, all updated in place."""
    from . import _internal
    data = _interleave(weights, grads, mean, var, weights32)
    data.append(_rescale_grad_array(rescale_grad, weights[0].context))
    return _internal._multi_mp_adamw_update(*data, out=out, num_weights=size or len(weights),
                                            lrs=lrs, wds=wds, etas=etas, name=name, **kwargs)


def multi_lamb_update(weights, grads, mean, var, step_count, lrs, wds, out=None, num_tensors=0,
                      **kwargs):
    """LAMB update of several weights in one call (operator _multi_lamb_update): lists of
    weights, gradients, means and variances (the last two updated in place), a step count,
    learning rate and weight decay per weight; num_tensors defaults to len(weights)."""
    from . import _internal
    return _internal._multi_lamb_update(*_interleave(weights, grads, mean, var), out=out,
                                        num_tensors=num_tensors or len(weights),
                                        step_count=step_count, learning_rates=lrs, wds=wds,
                                        **kwargs)


def multi_mp_lamb_update(weights, grads, mean, var, weights32, step_count, lrs, wds, out=None,
                         num_tensors=0, **kwargs):
    """Multi-precision form of multi_lamb_update (operator _multi_mp_lamb_update): float32
    means, variances and master weights weights32, all updated in place."""
    from . import _internal
    return _internal._multi_mp_lamb_update(*_interleave(weights, grads, mean, var, weights32),
                                           out=out, num_tensors=num_tensors or len(weights),
                                           step_count=step_count, learning_rates=lrs, wds=wds,
                                           **kwargs)
