"""NDArray.__getitem__ / __setitem__: views where MXNet gives views, slice ops otherwise."""
import numpy as np

from .. import _ffi
from ..base import MXNetError, integer_types, numeric_types
from ..util import is_np_shape
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
    # MXNet 1.x gives shape (1,) for an all-int key, a 0-d array with numpy shape semantics.
    return begin, end, step, tuple(final_shape) or (() if is_np_shape() else (1,))


# ----------------------------------------------------------------------------- key helpers
# MXNet 1.x exposes these as NDArray static methods; its tests call some of them directly.
def _slice_len(slc, n):
    return len(range(*slc.indices(n)))


def _int_to_slice(i):
    return slice(i, i + 1) if i != -1 else slice(-1, None)


def _basic_indexing_key_to_begin_end_step(idcs, shape, keep_none=True):
    """begin, end, step tuples of a key of slices and ints (None entries are skipped);
    keep_none=False resolves them against shape as slice.indices does."""
    idcs = [k if isinstance(k, slice) else _int_to_slice(k) for k in idcs if k is not None]
    if keep_none:
        triples = [(k.start, k.stop, k.step) for k, _ in zip(idcs, shape)]
    else:
        triples = [k.indices(n) for k, n in zip(idcs, shape)]
    return tuple(zip(*triples))


def _basic_indexing_key_int_to_slice(idcs):
    """The key with each int turned into a one-element slice, and the positions of the ints."""
    conv, int_axes = [], []
    for ax, k in enumerate(idcs):
        if isinstance(k, integer_types):
            conv.append(_int_to_slice(k))
            int_axes.append(ax)
        else:
            conv.append(k)
    return tuple(conv), tuple(int_axes)


def _new_axes_after_basic_indexing(axes, key):
    """Where the axes at positions `axes` of an expanded key end up once its ints drop axes."""
    steps = np.cumsum([0] + [0 if isinstance(k, integer_types) else 1 for k in key])
    return tuple(steps[list(axes)])


def _basic_indexing_slice_is_contiguous(slc_key, shape):
    """Whether slicing with slc_key (one slice per axis) selects one contiguous block of a
    C-ordered array: going from the last axis left, once an axis is cut short every axis
    further left may select at most one element, and multi-element strides must be 1."""
    assert len(slc_key) == len(shape)
    lens = [_slice_len(k, n) for k, n in zip(slc_key, shape)]
    if int(np.prod(lens)) <= 1:
        return True
    cut = False
    for k, n, m in zip(reversed(slc_key), reversed(shape), reversed(lens)):
        if m > 1 and (k.indices(n)[2] != 1 or cut):
            return False
        if m < n:
            cut = True
    return True


def _basic_indexing_sliced_shape(slc_key, shape):
    """The shape slc_key (one slice per axis) selects."""
    assert len(slc_key) == len(shape)
    return tuple(_slice_len(k, n) for k, n in zip(slc_key, shape))


def _basic_indexing_contiguous_flat_begin_end(slc_key, shape):
    """[begin, end) flat positions of a contiguous slicing (see is_contiguous)."""
    assert len(slc_key) == len(shape)
    begin = last = 0
    for k, n in zip(slc_key, shape):
        m = _slice_len(k, n)
        if m == 0:
            return 0, 0
        start = k.indices(n)[0]
        begin = begin * n + start
        last = last * n + start + m - 1
    return begin, last + 1


def _drop_int_axes(indexed_shape, int_axes):
    """indexed_shape without the axes integer indices removed ((1,) if none remain)."""
    kept = tuple(d for i, d in enumerate(indexed_shape) if i not in int_axes)
    return kept if kept else (1,)


for _name in ("_basic_indexing_key_to_begin_end_step", "_basic_indexing_key_int_to_slice",
              "_new_axes_after_basic_indexing", "_basic_indexing_slice_is_contiguous",
              "_basic_indexing_sliced_shape", "_basic_indexing_contiguous_flat_begin_end",
              "_drop_int_axes"):
    setattr(NDArray, _name, staticmethod(globals()[_name]))


def _contiguous_view(self, key):
    """A view (sharing memory) for a basic key whose selection is one contiguous block, with
    int axes dropped and None axes added; None when the key needs a copy."""
    expanded = _expand_key(key, self.ndim)
    real = [k for k in expanded if k is not None]
    for ax, k in enumerate(real):
        if isinstance(k, integer_types) and not -self.shape[ax] <= k < self.shape[ax]:
            raise IndexError("index %d is out of bounds for axis %d with size %d"
                             % (k, ax, self.shape[ax]))
    slc_key, _ = _basic_indexing_key_int_to_slice(real)
    if (self._is_recorded or self.size == 0 or
            not _basic_indexing_slice_is_contiguous(slc_key, self.shape)):
        return None
    begin, end = _basic_indexing_contiguous_flat_begin_end(slc_key, self.shape)
    if end <= begin:
        return None
    out_shape, ax = [], 0
    for k in expanded:
        if k is None:
            out_shape.append(1)
            continue
        if not isinstance(k, integer_types):
            out_shape.append(_slice_len(slc_key[ax], self.shape[ax]))
        ax += 1
    flat = self._reshape_view((self.size,))._slice(begin, end)
    # all-int keys give shape (1,) (0-d with numpy shape semantics), as _basic_plan
    return flat._reshape_view(tuple(out_shape) or (() if is_np_shape() else (1,)))


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
                i %= shape[0]
                # MXNet 1.x: an int picks a row; of a 1-D array, shape (1,) (0-d with numpy
                # shape semantics).
                if len(shape) > 1 or is_np_shape():
                    return self._at(i)
                return self._slice(i, i + 1)
        elif isinstance(k, slice) and k.step in (None, 1) and not self._is_recorded:
            b, e, _ = k.indices(shape[0])
            return self._slice(b, max(b, e))
    if _is_basic(key):
        if not key:
            return self
        view = _contiguous_view(self, key)
        if view is not None:
            return view
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


def _value_like(value, shape, target, squeeze_axes=()):
    """value as an NDArray of target's device and dtype, broadcast to shape by numpy's rules.
    When value has more axes than shape, first its size-1 squeeze_axes (where None entries of
    the key put axes) and then its leading size-1 axes are dropped, as MXNet 1.x does."""
    if isinstance(value, NDArray):
        v = value.as_in_context(target.context)
        if v.dtype != target.dtype:
            v = v.astype(target.dtype)
    else:
        try:
            v = _nd.array(value, ctx=target.context, dtype=target.dtype)
        except (TypeError, ValueError):
            raise TypeError("NDArray does not support assignment with non-array-like object "
                            "%r of type %s" % (value, type(value))) from None
    shape = tuple(shape)
    if v.ndim > len(shape) and squeeze_axes:
        drop = [a for a in squeeze_axes if a < v.ndim and v.shape[a] == 1]
        if drop:
            v = v.reshape(tuple(d for a, d in enumerate(v.shape) if a not in drop) or (1,))
    if v.ndim > len(shape):
        extra = 0
        while extra < v.ndim - len(shape) and v.shape[extra] == 1:
            extra += 1
        if extra:
            v = v.reshape(v.shape[extra:])
    if v.shape != shape:
        v = v.reshape(shape) if v.size == 0 else v.broadcast_to(shape)
    return v


def _is_whole(key, shape):
    """Whether a basic key selects the whole array (None axes aside)."""
    if not _is_basic(key) or any(isinstance(k, integer_types) for k in key):
        return False
    try:
        real = [k for k in _expand_key(key, len(shape)) if k is not None]
    except IndexError:
        return False
    return all(k.indices(n) == (0, n, 1) for k, n in zip(real, shape))


def _fill_view(view, value, squeeze_axes=()):
    if isinstance(value, numeric_types):
        _nd._internal._full(shape=view.shape, value=float(value), dtype=np.dtype(view.dtype).name,
                            ctx=str(view.context), out=view)
        return
    v = _value_like(value, view.shape, view, squeeze_axes)
    if _ffi.is_recording() and v._is_recorded:
        _nd._internal._copy(v, out=view)  # recorded: the gradient flows back to the value
    else:
        v.copyto(view)


def setitem(self, key, value):
    if not isinstance(key, tuple):
        key = (key,)
    shape = self.shape
    if _is_whole(key, shape):
        _fill_view(self, value)
        return
    # While recording, partial assignment goes through the slice-assign ops, so that writing a
    # recorded value into part of an array is refused as MXNet refuses it (see imperative.cc).
    recording = _ffi.is_recording()
    if len(key) == 1 and shape and not recording:
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
        expanded = _expand_key(key, len(shape))
        none_axes = _new_axes_after_basic_indexing(
            [i for i, k in enumerate(expanded) if k is None], expanded)
        view = None if recording else _contiguous_view(self, tuple(k for k in key if k is not None))
        if view is not None:
            _fill_view(view, value, none_axes)
            return
        begin, end, step, _ = _basic_plan(shape, key)
        sliced_shape = tuple(len(range(*slice(b, e, s).indices(d)))
                             for b, e, s, d in zip(begin, end, step, shape))
        # The value broadcasts against the indexed shape (int axes dropped), as numpy's does.
        real = [k for k in _expand_key(key, len(shape)) if k is not None]
        int_axes = _basic_indexing_key_int_to_slice(real)[1]
        indexed_shape = _drop_int_axes(sliced_shape, int_axes)
        if isinstance(value, numeric_types):
            _nd._internal._slice_assign_scalar(self, scalar=float(value), begin=tuple(begin),
                                               end=tuple(end), step=tuple(step), out=self)
        else:
            v = _value_like(value, indexed_shape, self, none_axes).reshape(sliced_shape)
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
