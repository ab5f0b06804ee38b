"""Autograd: record imperative computation and differentiate it (MXNet 1.9 API)."""
# The imports below the first are the module names MXNet 1.9's autograd exposes: it had no
# __all__, so `from mxnet.autograd import *` gave them too, and scripts rely on that.
import ctypes
import traceback
from array import array
from ctypes import c_int, c_void_p, CFUNCTYPE, POINTER, cast
from threading import Lock

from . import _ffi
from .base import check_call, string_types, mx_uint, NDArrayHandle, c_array, c_handle_array
from .base import c_array_buf, MXCallbackList, SymbolHandle
from .ndarray.ndarray import NDArray
from .symbol import Symbol

__all__ = ["record", "pause", "train_mode", "predict_mode", "is_recording", "is_training",
           "set_recording", "set_training", "mark_variables", "backward", "grad", "Function",
           "get_symbol",
           # imported names MXNet 1.9's star import also gives
           "array", "Lock", "traceback", "ctypes", "c_int", "c_void_p", "CFUNCTYPE", "POINTER",
           "cast", "check_call", "string_types", "mx_uint", "NDArrayHandle", "c_array",
           "c_handle_array", "c_array_buf", "MXCallbackList", "SymbolHandle", "NDArray",
           "Symbol"]

_GRAD_REQ = {"null": 0, "write": 1, "inplace": 1, "add": 3}


def set_recording(is_recording):
    """Set recording on/off for this thread; returns the previous state."""
    return bool(_ffi.set_recording(bool(is_recording)))


def set_training(train_mode):
    """Set training/predicting mode for this thread; returns the previous mode."""
    return bool(_ffi.set_training(bool(train_mode)))


def is_recording():
    return bool(_ffi.is_recording())


def is_training():
    return bool(_ffi.is_training())


class _RecordingStateScope:
    """Scope that sets recording and training state and restores them on exit."""

    def __init__(self, is_record, train_mode):
        self._enter_is_record = is_record
        self._enter_train_mode = train_mode
        self._prev_is_record = None
        self._prev_train_mode = None

    def __enter__(self):
        if self._enter_is_record is not None:
            self._prev_is_record = set_recording(self._enter_is_record)
        if self._enter_train_mode is not None:
            self._prev_train_mode = set_training(self._enter_train_mode)

    def __exit__(self, ptype, value, trace):
        if self._enter_is_record is not None and self._prev_is_record != self._enter_is_record:
            set_recording(self._prev_is_record)
        if self._enter_train_mode is not None and self._prev_train_mode != self._enter_train_mode:
            set_training(self._prev_train_mode)


def record(train_mode=True):
    """Scope in which computation is recorded for differentiation."""
    return _RecordingStateScope(True, train_mode)


def pause(train_mode=False):
    """Scope in which recording is paused."""
    return _RecordingStateScope(False, train_mode)


def train_mode():
    """Scope with training-mode behaviour (dropout active, batch norm uses batch stats)."""
    return _RecordingStateScope(None, True)


def predict_mode():
    """Scope with inference-mode behaviour."""
    return _RecordingStateScope(None, False)


def _as_list(x):
    if x is None:
        return None
    return list(x) if isinstance(x, (list, tuple)) else [x]


def mark_variables(variables, gradients, grad_reqs="write"):
    """Mark arrays as variables; their gradients are written into gradients."""
    variables = _as_list(variables)
    gradients = _as_list(gradients)
    if isinstance(grad_reqs, str):
        grad_reqs = [grad_reqs] * len(variables)
    if len(variables) != len(gradients) or len(variables) != len(grad_reqs):
        raise ValueError("variables, gradients and grad_reqs must have the same length")
    reqs = []
    for r in grad_reqs:
        if r not in _GRAD_REQ:
            raise ValueError("grad_req must be one of 'null', 'write', 'add', given %r" % (r,))
        reqs.append(_GRAD_REQ[r])
    _ffi.mark_variables(variables, reqs, gradients)


def backward(heads, head_grads=None, retain_graph=False, train_mode=True):
    """Compute the gradients of heads with respect to the marked variables."""
    heads = _as_list(heads)
    if head_grads is None:
        head_grads = [None] * len(heads)
    else:
        head_grads = _as_list(head_grads)
        if len(head_grads) != len(heads):
            raise ValueError("heads and head_grads must have the same length")
    _ffi.backward(heads, head_grads, [], bool(retain_graph), False, bool(train_mode))


def grad(heads, variables, head_grads=None, retain_graph=None, create_graph=False,
         train_mode=True):
    """Return the gradients of heads with respect to variables (nothing is written to .grad).

    With create_graph=True the gradient computation is itself recorded, so the returned
    gradients can be differentiated again (higher order).

    Returns a list with one gradient per variable, also for a single NDArray variable: that
    is what MXNet 1.9.1 returns, and code written for it indexes the result with [0]."""
    heads = _as_list(heads)
    variables = _as_list(variables)
    if head_grads is None:
        head_grads = [None] * len(heads)
    else:
        head_grads = _as_list(head_grads)
    if retain_graph is None:
        retain_graph = create_graph
    ret = _ffi.backward(heads, head_grads, variables, bool(retain_graph), bool(create_graph),
                        bool(train_mode))
    return list(ret)


def get_symbol(x):
    """The recorded computation that produced x, as a Symbol."""
    from .symbol import Symbol
    return Symbol(_ffi.autograd_get_symbol(x))


class Function:
    """A user-defined differentiable function: subclass and define forward and backward.

    Inside forward, computation is not recorded; backward receives the output gradients and
    returns one gradient per forward input::

        class sigmoid(mx.autograd.Function):
            def forward(self, x):
                y = 1 / (1 + mx.nd.exp(-x))
                self.save_for_backward(y)
                return y

            def backward(self, dy):
                y, = self.saved_tensors
                return dy * y * (1 - y)
    """

    def __init__(self):
        self._used = False
        self.saved_tensors = ()

    def save_for_backward(self, *args):
        self.saved_tensors = args

    def __call__(self, *inputs):
        if self._used:
            raise RuntimeError("Each Function instance can only be called once. "
                               "Please create another instance.")
        self._used = True
        with pause(is_training()):
            outputs = self.forward(*inputs)
        single = isinstance(outputs, NDArray)
        outs = [outputs] if single else list(outputs)
        for o in outs:
            if not isinstance(o, NDArray):
                raise TypeError("autograd.Function.forward must return NDArray(s), got %s" % type(o))
        if is_recording():
            _ffi.record_function(self, list(inputs), outs)
        return outputs

    def forward(self, *inputs):
        raise NotImplementedError

    def backward(self, *output_grads):
        raise NotImplementedError
