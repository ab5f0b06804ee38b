"""NDArray.__getitem__ / __setitem__: views where MXNet gives views, slice ops otherwise."""
import numpy as np

from .. import _ffi
from ..base import MXNetError, integer_types, numeric_types
from . import ndarray as _nd

NDArray = _nd.NDArray


def _is_basic(key):
    return all(k is None or k is Ellipsis or isinstance(k, (slice,) + integer_types) for k in key)


def _expand_key(key, ndim):
    """Replace Ellipsis and pad with full slices; returns (key, positions of None)."""
    n_real = sum(1 for k in key if k is not None and k is not Ellipsis)
    if n_real > ndim:
        raise IndexError("too many indices for array: array is %d-dimensional, but %d were "
                         "indexed" % (ndim, n_real))
    if sum(1 for k in key if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    out = []
    for k in key:
        if k is Ellipsis:
            out.extend([slice(None)] * (ndim - n_real))
        else:
            out.append(k)
    if Ellipsis not in key:
        out.extend([slice(None)] * (ndim - n_real))
    return out


def _basic_plan(shape, key):
    """begin/end/step for the slice op, axes to drop (ints) and where to add axes (None)."""
    key = _expand_key(key, len(shape))
    begin, end, step, drop, final_shape = [], [], [], [], []
    axis = 0
    for k in key:
        if k is None:
            final_shape.append(1)
            continue
        dim = shape[axis]
        if isinstance(k, integer_types):
            i = int(k)
            if i < -dim or i >= dim:
                raise IndexError("index %d is out of bounds for axis %d with size %d" % (i, axis, dim))
            i %= dim
            begin.append(i)
            end.append(i + 1)
            step.append(1)
            drop.append(axis)
        else:
            b, e, s = k.indices(dim)
            if s == 0:
                raise ValueError("slice step cannot be zero")
            begin.append(b)
            end.append(e if not (s < 0 and e < 0) else None)
            step.append(s)
            n = len(range(b, e, s))
            final_shape.append(n)
        axis += 1
    return begin, end, step, tuple(final_shape)


def _flat_indices(shape, key):
    """Flat positions selected by an advanced index, computed with numpy's own rules."""
    def conv(k):
        if isinstance(k, NDArray):
            k = k.asnumpy()
        if isinstance(k, (list, np.ndarray)):
            k = np.asarray(k)
            return k if k.dtype == np.bool_ else k.astype(np.int64)  # masks stay masks
        return k
    key = tuple(conv(k) for k in key)
    positions = np.arange(int(np.prod(shape)) if shape else 1, dtype=np.int64).reshape(shape)
    try:
        return positions[key]
    except IndexError as e:
        raise IndexError(str(e)) from None


def getitem(self, key):
    if not isinstance(key, tuple):
        key = (key,)
    shape = self.shape
    if len(key) == 1 and shape:
        k = key[0]
        if isinstance(k, integer_types) and not isinstance(k, bool):
            i = int(k)
            if i < -shape[0] or i >= shape[0]:
                raise IndexError("index %d is out of bounds for axis 0 with size %d" % (i, shape[0]))
            if not self._is_recorded:
                return self._at(i % shape[0])
        elif isinstance(k, slice) and k.step in (None, 1) and not self._is_recorded:
            b, e, _ = k.indices(shape[0])
            return self._slice(b, max(b, e))
    if _is_basic(key):
        if not key:
            return self
        begin, end, step, final_shape = _basic_plan(shape, key)
        if begin:
            out = _nd._op.slice(self, begin=tuple(begin), end=tuple(end), step=tuple(step))
        else:
            out = self
        return out.reshape(final_shape) if out.shape != final_shape else out
    flat = _flat_indices(shape, key)
    idx = _nd.array(flat.reshape(-1), ctx=self.context, dtype=np.int64)
    taken = _nd._op.take(self.reshape(-1), idx, axis=0)
    return taken.reshape(flat.shape) if flat.shape != taken.shape else taken


def _value_like(value, shape, target):
    if isinstance(value, NDArray):
        v = value.as_in_context(target.context)
        if v.dtype != target.dtype:
            v = v.astype(target.dtype)
    else:
        v = _nd.array(np.asarray(value), ctx=target.context, dtype=target.dtype)
    if v.shape != shape:
        if v.size == int(np.prod(shape)) and v.ndim != len(shape):
            v = v.reshape(shape)
        else:
            v = _nd._op.broadcast_to(v.reshape((1,) * (len(shape) - v.ndim) + v.shape)
                                     if v.ndim < len(shape) else v, shape=shape)
    return v


def _fill_view(view, value):
    if isinstance(value, numeric_types):
        _nd._internal._full(shape=view.shape, value=float(value), dtype=np.dtype(view.dtype).name,
                            ctx=str(view.context), out=view)
    else:
        _value_like(value, view.shape, view).copyto(view)


def setitem(self, key, value):
    if not isinstance(key, tuple):
        key = (key,)
    shape = self.shape
    if self._is_recorded:
        pass  # assignment into a recorded array is allowed, as in MXNet
    if len(key) == 1 and (key[0] == slice(None) if isinstance(key[0], slice) else False):
        _fill_view(self, value)
        return
    if len(key) == 1 and shape:
        k = key[0]
        if isinstance(k, integer_types) and not isinstance(k, bool):
            i = int(k)
            if i < -shape[0] or i >= shape[0]:
                raise IndexError("index %d is out of bounds for axis 0 with size %d" % (i, shape[0]))
            _fill_view(self._at(i % shape[0]), value)
            return
        if isinstance(k, slice) and k.step in (None, 1):
            b, e, _ = k.indices(shape[0])
            if e > b:
                _fill_view(self._slice(b, e), value)
            return
    if _is_basic(key):
        begin, end, step, _ = _basic_plan(shape, key)
        sliced_shape = tuple(len(range(*slice(b, e, s).indices(d)))
                             for b, e, s, d in zip(begin, end, step, shape))
        if isinstance(value, numeric_types):
            _nd._internal._slice_assign_scalar(self, scalar=float(value), begin=tuple(begin),
                                               end=tuple(end), step=tuple(step), out=self)
        else:
            v = _value_like(value, sliced_shape, self)
            _nd._internal._slice_assign(self, v, begin=tuple(begin), end=tuple(end),
                                        step=tuple(step), out=self)
        return
    # Advanced assignment: numpy's rules pick the flat positions, then one scatter on the
    # device writes them (repeated positions keep the last value, as numpy does).
    flat = _flat_indices(shape, key)
    positions = flat.reshape(-1)
    if positions.size == 0:
        return
    vals = _value_like(value, flat.shape, self).reshape((positions.size,))
    idx = _nd.array(positions.reshape(1, -1), ctx=self.context, dtype=np.int64)
    whole = self.reshape((-1,))
    _nd._internal._scatter_set_nd(whole, vals, idx, shape=whole.shape, out=whole)


NDArray.__getitem__ = getitem
NDArray.__setitem__ = setitem
