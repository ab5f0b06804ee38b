"""mx.npx operators: MXNet's neural-network operators (the ones MXNet 1.9.1 registers as
_npx_*) on mx.np arrays, and npx.reshape with its special codes."""
import numpy as _np

from ..base import MXNetError, integer_types
from ..numpy.multiarray import _invoke, _np_call, _op, _wrap

__all__ = ["reshape"]

# npx name -> registered operator (MXNet 1.9.1's _npx_<name> alias of it)
_ALIASES = {
    "relu": "relu", "sigmoid": "sigmoid", "softmax": "softmax", "log_softmax": "log_softmax",
    "masked_softmax": None, "activation": "Activation", "batch_norm": "BatchNorm",
    "convolution": "Convolution", "deconvolution": "Deconvolution",
    "fully_connected": "FullyConnected", "pooling": "Pooling", "dropout": "Dropout",
    "embedding": "Embedding", "one_hot": "one_hot", "pick": "pick", "topk": "topk",
    "layer_norm": "LayerNorm", "group_norm": "GroupNorm", "instance_norm": "InstanceNorm",
    "leaky_relu": "LeakyReLU", "rnn": "RNN", "sequence_mask": "SequenceMask",
    "sequence_last": "SequenceLast", "sequence_reverse": "SequenceReverse",
    "smooth_l1": "smooth_l1", "erf": "erf", "erfinv": "erfinv", "gamma": "gamma",
    "gammaln": "gammaln", "batch_dot": "batch_dot", "batch_flatten": "Flatten",
    "arange_like": "_contrib_arange_like", "gather_nd": "gather_nd",
    "scatter_nd": "scatter_nd", "shape_array": "shape_array", "stop_gradient": "BlockGrad",
    "reshape_like": "reshape_like", "slice_channel": "SliceChannel", "softmin": "softmin",
    "broadcast_like": "broadcast_like", "roi_pooling": "ROIPooling", "ctc_loss": "CTCLoss",
    "hard_sigmoid": "hard_sigmoid", "softsign": "softsign", "index_copy": "_npx_index_copy",
    "box_nms": "_npx_box_nms", "box_iou": "_npx_box_iou", "box_encode": "_npx_box_encode",
    "box_decode": "_npx_box_decode", "bipartite_matching": "_npx_bipartite_matching",
    "multibox_prior": "_npx_multibox_prior", "multibox_target": "_npx_multibox_target",
    "cast": "cast", "slice": "slice", "slice_axis": "slice_axis", "slice_like": "slice_like",
    "constraint_check": None, "nonzero": None,
}


def _make(public, opname):
    def func(*args, **kwargs):
        return _np_call(_op(opname), *args, **kwargs)
    func.__name__ = func.__qualname__ = public
    func.__module__ = "mxnet.numpy_extension"
    func.__doc__ = "mx.npx.%s: operator %s on mx.np arrays." % (public, opname)
    return func


for _public, _opname in _ALIASES.items():
    if _opname is not None:
        globals()[_public] = _make(_public, _opname)
        __all__.append(_public)


def nonzero(a):
    """Indices of the nonzero elements as an int64 array of shape (N, a.ndim)."""
    from ..numpy import argwhere
    return argwhere(a)


def masked_softmax(data, mask, axis=-1, temperature=1.0, normalize=True):
    # pylint: disable=unused-argument
    """softmax of data over axis where mask is true (0 elsewhere)."""
    from .. import numpy as _mnp
    neg = _mnp.where(mask, data, -_np.inf if data.dtype != _np.float16 else -6e4)
    if temperature != 1.0:
        neg = neg / temperature
    out = _invoke("softmax", neg, axis=axis)
    return _mnp.where(mask, out, 0.0)


def constraint_check(x, msg="Constraint violated."):
    """x (a bool array) if all its elements are true, else ValueError(msg)."""
    from .. import numpy as _mnp
    if not bool(_mnp.all(x)):
        raise ValueError(msg)
    return _mnp.array(True, dtype=_np.bool_)


__all__ += ["nonzero", "masked_softmax", "constraint_check"]


def _npx_reshape_shape(src, newshape, reverse=False):
    """Target shape of npx.reshape: -1 infers one dim, -2 copies this input dim, -3 drops a
    size-1 input dim, -4 copies all remaining input dims, -5 merges two input dims, -6 splits
    one input dim into the next two values (one may be -1)."""
    src = list(src)
    spec = [int(s) for s in ((newshape,) if isinstance(newshape, integer_types) else newshape)]
    if reverse:
        src, spec = src[::-1], spec[::-1]
        # -6 consumes the two values after it: keep them after it once reversed
        fixed, i = [], 0
        while i < len(spec):
            if i + 2 < len(spec) and spec[i + 2] == -6:
                fixed += [-6, spec[i + 1], spec[i]]
                i += 3
            else:
                fixed.append(spec[i])
                i += 1
        spec = fixed
    out, i, j, infer = [], 0, 0, -1
    while i < len(spec):
        s = spec[i]
        if s >= 0:
            out.append(s)
            j += 1
        elif s == -1:
            infer = len(out)
            out.append(-1)
            j += 1
        elif s == -2:
            out.append(src[j])
            j += 1
        elif s == -3:
            if src[j] != 1:
                raise MXNetError("npx.reshape: -3 drops a size-1 dim, but dim %d of %s is %d"
                                 % (j, tuple(src), src[j]))
            j += 1
        elif s == -4:
            out += src[j:]
            j = len(src)
        elif s == -5:
            out.append(src[j] * src[j + 1])
            j += 2
        elif s == -6:
            d1, d2 = spec[i + 1], spec[i + 2]
            if d1 == -1:
                d1 = src[j] // d2
            if d2 == -1:
                d2 = src[j] // d1
            if d1 * d2 != src[j]:
                raise MXNetError("npx.reshape: -6 cannot split dim %d of size %d into %d x %d"
                                 % (j, src[j], d1, d2))
            out += [d1, d2]
            i += 2
            j += 1
        else:
            raise MXNetError("npx.reshape: unknown special value %d in newshape %s"
                             % (s, tuple(spec)))
        i += 1
    size = int(_np.prod(src)) if src else 1
    if infer >= 0:
        known = int(_np.prod([d for k, d in enumerate(out) if k != infer])) if len(out) > 1 else 1
        if known == 0 or size % known:
            raise MXNetError("npx.reshape: cannot infer -1 of %s for shape %s"
                             % (tuple(newshape), tuple(src)))
        out[infer] = size // known
    if reverse:
        out = out[::-1]
    return tuple(out)


def reshape(a, newshape, reverse=False, order="C"):
    """npx.reshape: numpy reshape with MXNet's special codes (see _npx_reshape_shape)."""
    if order != "C":
        raise NotImplementedError("npx.reshape: only order='C' is supported")
    return _wrap(a).reshape(_npx_reshape_shape(a.shape, newshape, reverse))


