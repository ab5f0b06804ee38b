"""Contributed optimizers: GroupAdaGrad (AdaGrad with one accumulator per row)."""
from ..ndarray import mean, sqrt, square, zeros
from .optimizer import Optimizer, register

__all__ = ['GroupAdaGrad']


@register
class GroupAdaGrad(Optimizer):
    """AdaGrad with one learning rate per row of a 2-D weight::

        grad = clip(grad * rescale_grad, clip_gradient)
        history += mean(grad ** 2, axis=1, keepdims=True)
        weight -= lr * grad / sqrt(history + eps)

    Weight decay is not supported. Row-sparse gradients use group_adagrad_update.

    Parameters
    ----------
    eps : float, default 1e-5
    """

    def __init__(self, eps=1e-5, **kwargs):
        super(GroupAdaGrad, self).__init__(**kwargs)
        self.float_stable_eps = eps

    def create_state(self, index, weight):
        assert len(weight.shape) == 2, \
            "GroupAdaGrad: weights must be 2-D, got shape %s" % (weight.shape,)
        return zeros((weight.shape[0], 1), weight.context, stype=weight.stype)

    def update(self, index, weight, grad, state):
        lr, wd = self._start_update(index, weight, grad)
        assert wd == 0, 'Weight decay is not supported for GroupAdaGrad'
        if grad.stype == 'row_sparse':
            from ..ndarray import contrib
            kwargs = {'epsilon': self.float_stable_eps, 'rescale_grad': self.rescale_grad}
            if self.clip_gradient:
                kwargs['clip_gradient'] = self.clip_gradient
            contrib.group_adagrad_update(weight, grad, state, out=weight, lr=lr, **kwargs)
            return
        grad = self._rescaled_clipped(grad)
        state[:] += mean(square(grad), axis=1, keepdims=True)
        weight[:] -= lr * grad / sqrt(state + self.float_stable_eps)
