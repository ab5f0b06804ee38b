"""LARS: SGD whose learning rate is scaled per layer by eta * |w| / (|g| + wd |w| + eps)
(not for biases, gammas and betas). Aggregated updates compute every layer's rate with
multi_sum_sq/multi_lars and run the preloaded_multi_* SGD operators, as MXNet 1.9.1 does.
"""
from ..ndarray import array, norm, preloaded_multi_mp_sgd_mom_update, \
    preloaded_multi_mp_sgd_update, preloaded_multi_sgd_mom_update, preloaded_multi_sgd_update, \
    multi_lars, multi_sum_sq
from .optimizer import aggregation_size, interleave, register
from .sgd import _MomentumSGDBase, fused_kwargs, sgd_step

__all__ = ['LARS']

_NO_LARS_SUFFIXES = ('gamma', 'beta', 'bias')


@register
class LARS(_MomentumSGDBase):
    """Layer-wise adaptive rate scaling (https://arxiv.org/abs/1708.03888)::

        lr_layer = lr * eta * |w| / (|rescale_grad * g| + wd * |w| + eps)   if both norms > 0

    Parameters
    ----------
    momentum : float, default 0.0
    lazy_update : bool, default True
    eta : float, default 0.001
    eps : float, default 0
    momentum_correction : bool, default True
        Scale the momentum by lr / previous lr when a scheduler changes the rate.
    """

    def __init__(self, momentum=0.0, lazy_update=True, eta=0.001, eps=0,
                 momentum_correction=True, **kwargs):
        super(LARS, self).__init__(**kwargs)
        self.momentum = momentum
        self.momentum_correction = momentum_correction
        self.lazy_update = lazy_update
        self.aggregate_num = aggregation_size(4)
        self.eta = eta
        self.eps = eps
        self.skip = 0
        self.last_lr = None
        self.cur_lr = None

    def _get_lrs(self, indices):
        # remembers the previous global rate for the momentum correction
        lr = self.learning_rate
        self.last_lr = lr if self.cur_lr is None else self.cur_lr
        self.cur_lr = lr
        return self._scaled(lr, indices, self.lr_mult, 'lr_mult')

    def set_wd_mult(self, args_wd_mult):
        # unlike the base class, *_gamma weights get no weight decay either
        self.wd_mult = {n: 0.0 for n in self.idx2name.values() if not n.endswith('_weight')}
        self.wd_mult.update(self._symbol_mults('__wd_mult__'))
        self.wd_mult.update(args_wd_mult)

    def _name(self, index):
        return self.idx2name[index] if index in self.idx2name else str(index)

    def _skips_lars(self, index):
        return self._name(index).endswith(_NO_LARS_SUFFIXES)

    def _l2norm(self, v, rescale=False):
        v = v.astype('float32')
        if rescale:
            v *= self.rescale_grad
        return norm(v).asnumpy()[0]

    def _get_lars(self, i, weight, g, lr, wd):
        """The layer's learning rate."""
        if self._skips_lars(i):
            return lr
        w_norm = self._l2norm(weight)
        g_norm = self._l2norm(g, rescale=True)
        if w_norm > 0.0 and g_norm > 0.0:
            return self.eta * w_norm / (g_norm + wd * w_norm + self.eps) * lr
        return lr

    def _apply(self, indices, weights, grads, states, lrs, wds, aggregate, multi_precision):
        momentum = self.momentum
        if self.momentum_correction and self.last_lr != 0:
            momentum = self.momentum * (self.cur_lr / self.last_lr)
        kwargs = fused_kwargs(self, momentum)
        if aggregate:
            self._update_aggregated(indices, weights, grads, states, lrs, wds,
                                    multi_precision, kwargs)
            return
        lrs = [self._get_lars(i, w, g, lr, wd)
               for i, w, g, lr, wd in zip(indices, weights, grads, lrs, wds)]
        for weight, grad, state, lr, wd in zip(weights, grads, states, lrs, wds):
            sgd_step(weight, grad, state, lr, wd, multi_precision, self.lazy_update, kwargs)

    def _update_aggregated(self, indices, weights, grads, states, lrs, wds, multi_precision,
                           kwargs):
        # the layers LARS scales first, then the others, so one slice of the rate array
        # holds the rates multi_lars rewrites
        scaled = [k for k, i in enumerate(indices) if not self._skips_lars(i)]
        order = scaled + [k for k, i in enumerate(indices) if self._skips_lars(i)]
        ctx = weights[0].context
        new_lrs = array([lrs[k] for k in order], ctx=ctx, dtype='float32')
        new_wds = array([wds[k] for k in order], ctx=ctx, dtype='float32')
        weights = [weights[k] for k in order]
        grads = [grads[k] for k in order]
        states = [states[k] for k in order]
        n_scaled = len(scaled)
        if n_scaled > 0:
            w_sum_sq = multi_sum_sq(*weights[:n_scaled], num_arrays=n_scaled)
            g_sum_sq = multi_sum_sq(*grads[:n_scaled], num_arrays=n_scaled)
            multi_lars(new_lrs[:n_scaled], w_sum_sq, g_sum_sq, new_wds[:n_scaled],
                       eta=self.eta, eps=self.eps, rescale_grad=self.rescale_grad,
                       out=new_lrs[:n_scaled])
        with_momentum = self.momentum > 0
        # (an aggregation size of 0 made MXNet loop forever here; it means one at a time)
        size = max(1, self.aggregate_num)
        for start in range(0, len(weights), size):
            end = min(start + size, len(weights))
            ws, gs, ss = weights[start:end], grads[start:end], states[start:end]
            rates = [new_lrs[start:end], new_wds[start:end]]
            common = dict(out=ws, num_weights=len(ws), **kwargs)
            if not multi_precision:
                if with_momentum:
                    preloaded_multi_sgd_mom_update(*(interleave(ws, gs, ss) + rates), **common)
                else:
                    preloaded_multi_sgd_update(*(interleave(ws, gs) + rates), **common)
            else:
                moms = [s[0] for s in ss]
                weights32 = [s[1] for s in ss]
                if with_momentum:
                    preloaded_multi_mp_sgd_mom_update(
                        *(interleave(ws, gs, moms, weights32) + rates), **common)
                else:
                    preloaded_multi_mp_sgd_update(*(interleave(ws, gs, weights32) + rates),
                                                  **common)
