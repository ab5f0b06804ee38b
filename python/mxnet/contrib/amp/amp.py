"""AMP entry points: init() selects the low-precision type; init_trainer() gives a Gluon
Trainer a dynamic LossScaler; scale_loss() scales the loss (and unscales the gradients
through the trainer's rescale factor); unscale() does it by hand before clipping."""
import contextlib

from ... import optimizer as opt
from ...base import MXNetError
from .loss_scaler import LossScaler

__all__ = ['init', 'init_trainer', 'scale_loss', 'unscale', 'convert_symbol', 'convert_model',
           'convert_hybrid_block', 'convert_bucketing_module']

_state = {'initialized': False, 'target_dtype': None, 'first_scaler': None}


def init(target_dtype='float16', target_precision_ops=None, conditional_fp32_ops=None,
         fp32_ops=None, layout_optimization=False):
    """Turn AMP on for `target_dtype` ('float16' or 'bfloat16'). In this build the
    operators are not re-typed: everything keeps running in float32, and only the loss
    scaling machinery is active."""
    del target_precision_ops, conditional_fp32_ops, fp32_ops, layout_optimization
    if target_dtype not in ('float16', 'bfloat16'):
        raise ValueError("amp.init: target_dtype expected 'float16' or 'bfloat16', given %r"
                         % (target_dtype,))
    if not _state['initialized']:
        _state.update(initialized=True, target_dtype=target_dtype,
                      first_scaler=LossScaler())


def _trainer_class():
    from ...gluon import trainer  # pylint: disable=import-outside-toplevel
    return trainer.Trainer


def _check_trainer(optimizer_or_trainer, what):
    if isinstance(optimizer_or_trainer, _trainer_class()):
        return
    if isinstance(optimizer_or_trainer, opt.Optimizer):
        raise TypeError("AMP is currently only compatible with Gluon Trainer")
    raise TypeError("%s: optimizer_or_trainer should be a Gluon Trainer or an optimizer, "
                    "instead is %s" % (what, type(optimizer_or_trainer)))


def init_trainer(optimizer_or_trainer):
    """Attach a dynamic LossScaler to a Gluon Trainer (steps with overflowing gradients are
    skipped)."""
    if not _state['initialized']:
        raise MXNetError("AMP not initialized, did you forget to call amp.init()?")
    _check_trainer(optimizer_or_trainer, 'init_trainer')
    scaler = _state['first_scaler'] or LossScaler()
    _state['first_scaler'] = None
    optimizer_or_trainer._amp_loss_scaler = scaler
    optimizer_or_trainer._amp_original_scale = optimizer_or_trainer._scale


@contextlib.contextmanager
def scale_loss(loss, optimizer_or_trainer):
    """``with amp.scale_loss(loss, trainer) as scaled: autograd.backward(scaled)``: the
    loss times the loss scale; the trainer divides the gradients back."""
    _check_trainer(optimizer_or_trainer, 'scale_loss')
    scaler = getattr(optimizer_or_trainer, '_amp_loss_scaler', None)
    if scaler is None:
        raise MXNetError("scale_loss: call amp.init_trainer(trainer) first")
    scale = scaler.loss_scale
    optimizer_or_trainer._scale = optimizer_or_trainer._amp_original_scale / scale
    if isinstance(loss, (list, tuple)):
        yield [l * scale for l in loss]
    else:
        yield scale * loss


def unscale(optimizer_or_trainer):
    """Divide the gradients by the loss scale now (e.g. before clipping them)."""
    _check_trainer(optimizer_or_trainer, 'unscale')
    for param in optimizer_or_trainer._params:
        if param._grad is None:
            continue
        for g in param.list_grad():
            g[:] *= optimizer_or_trainer._scale
    optimizer_or_trainer._scale = 1.


def _no_conversion(name):
    def convert(*args, **kwargs):
        del args, kwargs
        raise NotImplementedError(
            "amp.%s: converting graphs to float16/bfloat16 is not available in this build "
            "(operators run in float32)" % name)
    convert.__name__ = name
    return convert


convert_symbol = _no_conversion('convert_symbol')
convert_model = _no_conversion('convert_model')
convert_hybrid_block = _no_conversion('convert_hybrid_block')
convert_bucketing_module = _no_conversion('convert_bucketing_module')
