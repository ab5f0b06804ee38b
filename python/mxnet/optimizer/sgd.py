"""Stochastic gradient descent and its momentum variants: SGD (ccSGD), NAG, Signum, LBSGD,
DCASGD and SGLD. Each runs the fused update operator MXNet 1.9.1 runs for it, so the results
are the same bit for bit.
"""
import logging
import math

import numpy

from ..ndarray import (NDArray, mp_nag_mom_update, mp_sgd_mom_update, mp_sgd_update,
                       multi_mp_sgd_mom_update, multi_mp_sgd_update, multi_sgd_mom_update,
                       multi_sgd_update, multiply, nag_mom_update, sgd_mom_update, sgd_update,
                       signsgd_update, signum_update, zeros)
from ..random import normal
from .optimizer import (Optimizer, aggregation_size, interleave, is_float16, register,
                        state_zeros, warn_float16_accumulation)

__all__ = ['SGD', 'ccSGD', 'NAG', 'Signum', 'LBSGD', 'DCASGD', 'SGLD']


def fused_kwargs(opt, momentum=None):
    """The arguments every fused SGD-style operator takes from the optimizer; momentum and
    clip_gradient only when they are on (the operators' defaults mean off)."""
    kwargs = {'rescale_grad': opt.rescale_grad}
    momentum = opt.momentum if momentum is None else momentum
    if opt.momentum > 0:
        kwargs['momentum'] = momentum
    if opt.clip_gradient:
        kwargs['clip_gradient'] = opt.clip_gradient
    return kwargs


def as_lists(indices, weights, grads, states):
    """A single (index, weight, grad, state) as one-element lists; lists pass through."""
    if isinstance(indices, (tuple, list)):
        return indices, weights, grads, states
    return [indices], [weights], [grads], [states]


def all_dense(weights, grads):
    for weight, grad in zip(weights, grads):
        assert isinstance(weight, NDArray)
        assert isinstance(grad, NDArray)
    return all(w.stype == 'default' and g.stype == 'default' for w, g in zip(weights, grads))


def sgd_step(weight, grad, state, lr, wd, multi_precision, lazy_update, kwargs):
    """One weight's SGD step. `state` is the momentum (None without), or under
    multi_precision the pair (momentum or None, float32 master weight)."""
    if not multi_precision:
        if state is not None:
            sgd_mom_update(weight, grad, state, out=weight, lazy_update=lazy_update,
                           lr=lr, wd=wd, **kwargs)
        else:
            sgd_update(weight, grad, out=weight, lazy_update=lazy_update, lr=lr, wd=wd, **kwargs)
    elif state[0] is not None:
        mp_sgd_mom_update(weight, grad, state[0], state[1], out=weight, lr=lr, wd=wd, **kwargs)
    else:
        mp_sgd_update(weight, grad, state[1], out=weight, lr=lr, wd=wd, **kwargs)


class _MasterCopyFirstIsState(Optimizer):
    """Optimizers whose multi-precision state is (state, float32 weight), the reverse of the
    base class's order, as MXNet 1.x lays it out for the mp_* operators."""
    _warning_name = 'optimizer'

    def create_state_multi_precision(self, index, weight):
        if self.multi_precision and is_float16(weight):
            weight32 = weight.astype(numpy.float32)
            return (self.create_state(index, weight32), weight32)
        if is_float16(weight):
            warn_float16_accumulation(self._warning_name)
        return self.create_state(index, weight)


class _MomentumSGDBase(_MasterCopyFirstIsState):
    """SGD-style optimizers with an optional momentum buffer and lazy row_sparse updates."""
    _warning_name = 'SGD optimizer'

    def create_state(self, index, weight):
        if self.momentum == 0.0:
            return None
        stype = weight.stype if self.lazy_update else 'default'
        return state_zeros(weight, dtype=weight.dtype, stype=stype)

    def _update_impl(self, indices, weights, grads, states, multi_precision=False):
        indices, weights, grads, states = as_lists(indices, weights, grads, states)
        aggregate = all_dense(weights, grads)
        self._update_count(indices)
        lrs = self._get_lrs(indices)
        wds = self._get_wds(indices)
        self._apply(indices, weights, grads, states, lrs, wds, aggregate, multi_precision)

    def _apply(self, indices, weights, grads, states, lrs, wds, aggregate, multi_precision):
        """Updates the weights (lists) with their rates, all at once when `aggregate`."""
        raise NotImplementedError()

    def update(self, index, weight, grad, state):
        self._update_impl(index, weight, grad, state, multi_precision=False)

    def update_multi_precision(self, index, weight, grad, state):
        self._update_impl(index, weight, grad, state,
                          multi_precision=self._wants_multi_precision(weight))


@register
class SGD(_MomentumSGDBase):
    """SGD with momentum and weight decay::

        rescaled_grad = lr * (rescale_grad * clip(grad, clip_gradient) + wd * weight)
        state = momentum * state + rescaled_grad
        weight = weight - state

    With ``lazy_update`` and row_sparse gradients only the rows present are updated.
    Dense weights given as lists (by an Updater, MXNET_OPTIMIZER_AGGREGATION_SIZE at a time,
    default 4) are updated by one multi-weight operator call.

    Parameters
    ----------
    momentum : float, default 0.0
    lazy_update : bool, default True
    """

    def __init__(self, momentum=0.0, lazy_update=True, **kwargs):
        super(SGD, self).__init__(**kwargs)
        self.momentum = momentum
        self.lazy_update = lazy_update
        self.aggregate_num = aggregation_size(4)

    def _apply(self, indices, weights, grads, states, lrs, wds, aggregate, multi_precision):
        kwargs = fused_kwargs(self)
        if not aggregate:
            for weight, grad, state, lr, wd in zip(weights, grads, states, lrs, wds):
                sgd_step(weight, grad, state, lr, wd, multi_precision, self.lazy_update, kwargs)
            return
        common = dict(out=weights, num_weights=len(weights), lrs=lrs, wds=wds, **kwargs)
        with_momentum = self.momentum > 0
        if not multi_precision:
            if with_momentum:
                multi_sgd_mom_update(*interleave(weights, grads, states), **common)
            else:
                multi_sgd_update(*interleave(weights, grads), **common)
        else:
            moms = [s[0] for s in states]
            weights32 = [s[1] for s in states]
            if with_momentum:
                multi_mp_sgd_mom_update(*interleave(weights, grads, moms, weights32), **common)
            else:
                multi_mp_sgd_update(*interleave(weights, grads, weights32), **common)


@register
class ccSGD(SGD):  # pylint: disable=invalid-name
    """[DEPRECATED] The same as SGD."""


@register
class Signum(Optimizer):
    """Signum: steps by the sign of the momentum (signSGD without momentum)::

        rescaled_grad = rescale_grad * clip(grad, clip_gradient) + wd * weight
        state = momentum * state + (1 - momentum) * rescaled_grad
        weight = (1 - lr * wd_lh) * weight - lr * sign(state)

    Parameters
    ----------
    momentum : float, default 0.9
    wd_lh : float, default 0.0
        Decoupled weight decay.
    """

    def __init__(self, learning_rate=0.01, momentum=0.9, wd_lh=0.0, **kwargs):
        super(Signum, self).__init__(learning_rate=learning_rate, **kwargs)
        self.momentum = momentum
        self.wd_lh = wd_lh

    def create_state(self, index, weight):
        if self.momentum == 0.0:
            return None
        return state_zeros(weight, dtype=weight.dtype, stype=weight.stype)

    def update(self, index, weight, grad, state):
        lr, wd = self._start_update(index, weight, grad)
        kwargs = fused_kwargs(self)
        if self.wd_lh:
            kwargs['wd_lh'] = self.wd_lh
        if state is not None:
            signum_update(weight, grad, state, out=weight, lr=lr, wd=wd, **kwargs)
        else:
            signsgd_update(weight, grad, out=weight, lr=lr, wd=wd, **kwargs)


@register
class NAG(_MasterCopyFirstIsState):
    """Nesterov accelerated gradient::

        state = momentum * state + grad + wd * weight
        weight = weight - lr * (grad + momentum * state)

    Parameters
    ----------
    momentum : float, default 0.0
    """
    _warning_name = 'NAG optimizer'

    def __init__(self, momentum=0.0, **kwargs):
        super(NAG, self).__init__(**kwargs)
        self.momentum = momentum

    def create_state(self, index, weight):
        if self.momentum == 0.0:
            return None
        return zeros(weight.shape, weight.context, dtype=weight.dtype)

    def _update_impl(self, index, weight, grad, state, multi_precision=False):
        lr, wd = self._start_update(index, weight, grad)
        kwargs = fused_kwargs(self)
        if not multi_precision:
            if state is not None:
                nag_mom_update(weight, grad, state, out=weight, lr=lr, wd=wd, **kwargs)
            else:
                sgd_update(weight, grad, out=weight, lr=lr, wd=wd, **kwargs)
        elif state[0] is not None:
            mp_nag_mom_update(weight, grad, state[0], state[1], out=weight, lr=lr, wd=wd,
                              **kwargs)
        else:
            mp_sgd_update(weight, grad, state[1], out=weight, lr=lr, wd=wd, **kwargs)

    def update(self, index, weight, grad, state):
        self._update_impl(index, weight, grad, state, multi_precision=False)

    def update_multi_precision(self, index, weight, grad, state):
        use_mp = self._wants_multi_precision(weight) and isinstance(state, (tuple, list))
        self._update_impl(index, weight, grad, state, multi_precision=use_mp)


@register
class LBSGD(Optimizer):
    """Large-batch SGD: accumulates `batch_scale` gradients per weight and then takes one
    SGD step with the learning rate scaled by a warm-up schedule ('linear', 'power2',
    'sqrt') or by LARS ('lars'); the updates in between leave the weight as it is.

    Parameters
    ----------
    momentum : float, default 0.0
    multi_precision : bool, default False
    warmup_strategy : {'linear', 'power2', 'sqrt', 'lars'}, default 'linear'
    warmup_epochs : int, default 5
    batch_scale : int, default 1
    updates_per_epoch : int, default 32
    begin_epoch : int, default 0
    num_epochs : int, default 60
    """

    def __init__(self, momentum=0.0, multi_precision=False, warmup_strategy='linear',
                 warmup_epochs=5, batch_scale=1, updates_per_epoch=32, begin_epoch=0,
                 num_epochs=60, **kwargs):
        super(LBSGD, self).__init__(**kwargs)
        logging.info('Running Large-Batch SGD Algorithm')
        logging.info('(Batch_scale=%f, warmup_epochs=%d, warmup_strategy=%s, '
                     'updates_per_epoch=%d)', batch_scale, warmup_epochs, warmup_strategy,
                     updates_per_epoch)
        self.momentum = momentum
        self.multi_precision = multi_precision
        self.warmup_strategy = warmup_strategy
        self.warmup_epochs = warmup_epochs
        self.batch_scale = batch_scale
        self.updates_per_epoch = updates_per_epoch
        self.init_updates = begin_epoch * updates_per_epoch
        self.num_epochs = num_epochs
        self.lbmult = 1
        self.cumgrads = {}
        self.adaptive = False
        self.admult = 1

    def create_state(self, index, weight):
        dtype = weight.dtype
        master = None
        if self.multi_precision and is_float16(weight):
            master = weight.astype(numpy.float32)
            dtype = numpy.float32
        elif is_float16(weight):
            warn_float16_accumulation('SGD optimizer')
        momentum = None
        if self.momentum != 0.0:
            momentum = state_zeros(weight, dtype=dtype, stype=weight.stype)
        return momentum if master is None else (momentum, master)

    def _get_lbmult(self, nup):
        """The warm-up multiplier of the learning rate after `nup` accumulated updates."""
        nwup = self.warmup_epochs * self.updates_per_epoch
        maxmult = float(self.batch_scale)
        if nup >= nwup:
            return maxmult
        if nwup <= 1:
            return 1.0
        if self.warmup_strategy == 'linear':
            return 1.0 + (maxmult - 1) * nup / nwup
        if self.warmup_strategy == 'power2':
            return 1.0 + (maxmult - 1) * (nup * nup) / (nwup * nwup)
        if self.warmup_strategy == 'sqrt':
            return 1.0 + (maxmult - 1) * math.sqrt(float(nup) / nwup)
        return 1.0

    def _l2norm(self, v):
        """The sum of squares of `v` (named as in MXNet, though it is not a norm)."""
        return multiply(v, v).asnumpy().sum()

    def _get_lars(self, weight, g, wd):
        """The LARS multiplier sqrt(|w|^2 / (|g|^2 + wd |w|^2)), kept within [0.01, 100]."""
        weight2 = self._l2norm(weight)
        grad2 = self._l2norm(g)
        lars = math.sqrt(weight2 / (grad2 + wd * weight2 + 1e-18))
        return min(max(lars, 0.01), 100)

    def _reset_cum_gradient(self, index):
        self.cumgrads[index]['cum_grad'] = 0

    def _get_cum_gradient(self, index):
        return self.cumgrads.get(index, {})

    def _put_cum_gradient(self, index, cgrad):
        self.cumgrads[index] = cgrad

    def _cumulate_gradient(self, grad, index):
        """Adds `grad` to the index's running sum; returns {'cum_grad', 'num_cums'}."""
        cgrad = self._get_cum_gradient(index)
        if cgrad and cgrad['num_cums'] > 0:
            cgrad = {'cum_grad': cgrad['cum_grad'] + grad, 'num_cums': cgrad['num_cums'] + 1}
        else:
            cgrad = {'cum_grad': grad, 'num_cums': self.init_updates + 1}
        self._put_cum_gradient(index, cgrad)
        return cgrad

    def update(self, index, weight, grad, state):
        assert isinstance(weight, NDArray)
        assert isinstance(grad, NDArray)
        # the learning rate is read before counting this update, as MXNet does
        lr = self._get_lr(index)
        wd = self._get_wd(index)
        self._update_count(index)
        cgrad = self._cumulate_gradient(grad, index)
        if cgrad['num_cums'] % self.batch_scale != 0:
            sgd_update(weight, grad, out=weight, lr=0.0, wd=wd)
            return
        grad = cgrad['cum_grad'] / self.batch_scale
        if self.warmup_strategy == 'lars':
            lr *= self._get_lars(weight, grad, wd)
        else:
            lr *= self._get_lbmult(cgrad['num_cums'])
        multi_precision = isinstance(state, (list, tuple))
        sgd_step(weight, grad, state, lr, wd, multi_precision, True, fused_kwargs(self))
        self._reset_cum_gradient(index)


@register
class DCASGD(Optimizer):
    """Delay-compensated asynchronous SGD::

        step = -lr * (grad + wd * weight + lamda * grad * grad * (weight - previous_weight))
        mom = momentum * mom + step        (mom = step without momentum)
        previous_weight = weight
        weight = weight + mom

    Parameters
    ----------
    momentum : float, default 0.0
    lamda : float, default 0.04
    """

    def __init__(self, momentum=0.0, lamda=0.04, **kwargs):
        super(DCASGD, self).__init__(**kwargs)
        self.momentum = momentum
        self.weight_previous = {}
        self.lamda = lamda

    def create_state(self, index, weight):
        momentum = None
        if self.momentum != 0.0:
            momentum = zeros(weight.shape, weight.context, dtype=weight.dtype)
        return (momentum, weight.copy())

    def update(self, index, weight, grad, state):
        lr, wd = self._start_update(index, weight, grad)
        grad = self._rescaled_clipped(grad)
        mom, previous_weight = state
        step = -lr * (grad + wd * weight + self.lamda * grad * grad * (weight - previous_weight))
        # (MXNet tested the momentum array's truth value, which fails for arrays of more
        # than one element; a present buffer is what is meant)
        if mom is not None:
            mom[:] *= self.momentum
            mom[:] += step
        else:
            mom = step
        previous_weight[:] = weight
        weight[:] += mom


@register
class SGLD(Optimizer):
    """Stochastic gradient Langevin dynamics: half an SGD step plus Gaussian noise of
    variance lr::

        weight += -lr / 2 * (rescale_grad * clip(grad) + wd * weight) + normal(0, sqrt(lr))
    """

    def create_state(self, index, weight):
        return None

    def update(self, index, weight, grad, state):
        lr, wd = self._start_update(index, weight, grad)
        grad = self._rescaled_clipped(grad)
        weight[:] += - lr / 2 * (grad + wd * weight)
        weight[:] += normal(0, math.sqrt(lr), shape=weight.shape, dtype=weight.dtype,
                            ctx=weight.context)
