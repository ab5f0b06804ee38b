"""Symbol.infer_shape / infer_shape_partial / infer_type / infer_type_partial (MXNet 1.9.1).

The passes run in C++ (src/nnvm/infer_attr.cc); this module only converts the arguments and
results as MXNet 1.9.1's Symbol methods do, so symbol.py can call these functions directly."""
import warnings

import numpy as np

from .. import _ffi
from ..base import MXNetError, _DTYPE_TABLE
from ..util import is_np_shape

_MX_TO_NP = {flag: np.dtype(numpy_name).type for flag, _, numpy_name, _ in _DTYPE_TABLE}
_NP_TO_MX = {v: k for k, v in _MX_TO_NP.items()}

__all__ = ["infer_shape", "infer_shape_partial", "infer_type", "infer_type_partial"]


def _shape_impl(sym, partial, args, kwargs):
    if args and kwargs:
        raise ValueError("Can only specify known argument shapes either by positional or "
                         "kwargs way.")
    if args:
        keys, shapes = None, []
        for i, s in enumerate(args):
            if s is not None and not isinstance(s, (tuple, list)):
                raise TypeError("Arguments need to be shapes (tuple), but argument %d is %s."
                                % (i, type(s)))
            shapes.append(None if s is None else tuple(s))
    else:
        keys, shapes = [], []
        for k, v in kwargs.items():
            if not isinstance(v, (tuple, list)):
                raise TypeError("Arguments need to be shapes (tuple), but '%s' is %s."
                                % (k, type(v)))
            keys.append(k)
            shapes.append(tuple(v))
    return _ffi.symbol_infer_shape(sym.handle, keys, shapes, partial)


def _report(what, args, kwargs):
    print("infer_%s error. Arguments:" % what)
    for i, arg in enumerate(args):
        print("  #%d: %s" % (i, arg))
    for k, v in kwargs.items():
        print("  %s: %s" % (k, v))


def infer_shape(sym, *args, **kwargs):
    """(arg_shapes, out_shapes, aux_shapes); three Nones (and a warning naming the arguments
    left unknown) when the given shapes do not decide every shape."""
    try:
        res = _shape_impl(sym, False, args, kwargs)
        if res[1] is None:
            arg_shapes, _, _ = _shape_impl(sym, True, args, kwargs)
            unknowns = []
            for name, shape in zip(sym.list_arguments(), arg_shapes):
                if is_np_shape():
                    unknown = not shape or -1 in shape
                else:
                    unknown = not shape or 0 in shape
                if unknown:
                    if len(unknowns) >= 10:
                        unknowns.append("...")
                        break
                    unknowns.append("%s: %s" % (name, str(shape)))
            warnings.warn("Cannot decide shape for the following arguments (0s in shape means "
                          "unknown dimensions). Consider providing them as input:\n\t"
                          + "\n\t".join(unknowns), stacklevel=3)
        return res
    except MXNetError:
        _report("shape", args, kwargs)
        raise


def infer_shape_partial(sym, *args, **kwargs):
    """As infer_shape, but unknown shapes are returned as () (or with 0 dims) instead."""
    return _shape_impl(sym, True, args, kwargs)


def _type_impl(sym, partial, args, kwargs):
    if args and kwargs:
        raise ValueError("Can only specify known argument types either by positional or "
                         "kwargs way.")
    if args:
        keys, types = None, []
        for s in args:
            if s is None:
                types.append(-1)
                continue
            t = np.dtype(s).type
            if t not in _NP_TO_MX:
                raise TypeError("Argument need to be one of " + str(_NP_TO_MX))
            types.append(_NP_TO_MX[t])
    else:
        keys, types = [], []
        for k, v in kwargs.items():
            t = np.dtype(v).type
            if t in _NP_TO_MX:
                keys.append(k)
                types.append(_NP_TO_MX[t])
    res = _ffi.symbol_infer_type(sym.handle, keys, types, partial)
    if res[0] is None:
        return res
    return tuple([_MX_TO_NP.get(t) for t in part] for part in res)


def infer_type(sym, *args, **kwargs):
    """(arg_types, out_types, aux_types) as numpy types; three Nones (and a warning) when the
    given types do not decide every type."""
    try:
        res = _type_impl(sym, False, args, kwargs)
        if res[1] is None:
            arg_types, _, _ = _type_impl(sym, True, args, kwargs)
            unknowns = []
            for name, dtype in zip(sym.list_arguments(), arg_types):
                if not dtype:
                    if len(unknowns) >= 10:
                        unknowns.append("...")
                        break
                    unknowns.append("%s: %s" % (name, str(dtype)))
            warnings.warn("Cannot decide type for the following arguments. Consider providing "
                          "them as input:\n\t" + "\n\t".join(unknowns), stacklevel=3)
        return res
    except MXNetError:
        _report("type", args, kwargs)
        raise


def infer_type_partial(sym, *args, **kwargs):
    """As infer_type, with None for the types left unknown."""
    return _type_impl(sym, True, args, kwargs)
