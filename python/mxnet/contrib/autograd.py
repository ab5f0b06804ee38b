"""mx.contrib.autograd: MXNet's first autograd interface (train_section, grad_and_loss),
kept for old scripts; it runs on mx.autograd."""
import functools

from .. import autograd as _autograd
from ..ndarray import NDArray, zeros_like

__all__ = ['set_is_training', 'train_section', 'test_section', 'mark_variables', 'backward',
           'compute_gradient', 'grad_and_loss', 'grad']


def set_is_training(is_train):
    """Turns recording and training mode on or off together; returns the previous state."""
    prev = _autograd.set_training(is_train)
    _autograd.set_recording(is_train)
    return prev


class TrainingStateScope(object):
    """Scope that sets recording + training to `enter_state` and restores it on exit."""

    def __init__(self, enter_state):
        self._enter_state = enter_state
        self._prev = None

    def __enter__(self):
        self._prev = set_is_training(self._enter_state)

    def __exit__(self, ptype, value, trace):
        if self._prev != self._enter_state:
            set_is_training(self._prev)


def train_section():
    """Records operations for differentiation, in training mode."""
    return TrainingStateScope(True)


def test_section():
    """Neither records nor trains."""
    return TrainingStateScope(False)


def mark_variables(variables, gradients, grad_reqs='write'):
    """Attaches gradient buffers to variables (see mx.autograd.mark_variables)."""
    _autograd.mark_variables(variables, gradients, grad_reqs)


def backward(outputs, out_grads=None, retain_graph=False):
    """Back-propagates from a list of outputs (out_grads default to ones)."""
    if not isinstance(outputs, (list, tuple)):
        raise AssertionError("outputs must be a list or tuple of NDArrays")
    if out_grads is not None and len(out_grads) != len(outputs):
        raise AssertionError("outputs and out_grads must have the same length")
    _autograd.backward(list(outputs), out_grads, retain_graph=retain_graph)


def compute_gradient(outputs):
    """backward(outputs) without head gradients."""
    backward(outputs)


def grad_and_loss(func, argnum=None):
    """Wraps func so that calling it returns (gradients of its NDArray arguments — those at
    `argnum` when given — and its output)."""
    @functools.wraps(func)
    def wrapped(*args):
        variables = args
        if argnum is not None:
            variables = [args[i] for i in (argnum if isinstance(argnum, list) else [argnum])]
        for x in variables:
            if not isinstance(x, NDArray):
                raise AssertionError("type of autograd input should NDArray.")
        grads = [zeros_like(x) for x in variables]
        mark_variables(variables, grads)
        with train_section():
            outputs = func(*args)
        compute_gradient([outputs] if isinstance(outputs, NDArray) else outputs)
        return grads, outputs
    return wrapped


def grad(func, argnum=None):
    """Like grad_and_loss, returning only the gradients."""
    with_loss = grad_and_loss(func, argnum)

    @functools.wraps(with_loss)
    def wrapped(*args):
        return with_loss(*args)[0]
    return wrapped
