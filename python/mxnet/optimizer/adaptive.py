"""Optimizers with per-coordinate step sizes from running gradient statistics: Adam, Adamax,
Nadam, AdaGrad, AdaDelta, RMSProp, Ftrl and FTML. Adam, RMSProp, Ftrl and FTML run MXNet
1.9.1's fused operators; the others are written with NDArray arithmetic, as there.
"""
import math

from .. import ndarray as nd
from ..ndarray import (abs as nd_abs, adam_update, ftml_update, ftrl_update,
                       maximum, rmsprop_update, rmspropalex_update, sqrt, square, zeros)
from .optimizer import Optimizer, register, state_zeros

__all__ = ['Adam', 'Adamax', 'Nadam', 'AdaGrad', 'AdaDelta', 'RMSProp', 'Ftrl', 'FTML']


def _two_moments(weight, dtype, stype='default'):
    return (state_zeros(weight, dtype=dtype, stype=stype),
            state_zeros(weight, dtype=dtype, stype=stype))


@register
class Adam(Optimizer):
    """Adam (http://arxiv.org/abs/1412.6980)::

        rescaled_grad = clip(grad * rescale_grad + wd * weight, clip_gradient)
        m = beta1 * m + (1 - beta1) * rescaled_grad
        v = beta2 * v + (1 - beta2) * rescaled_grad ** 2
        weight -= lr * sqrt(1 - beta2 ** t) / (1 - beta1 ** t) * m / (sqrt(v) + epsilon)

    With ``lazy_update`` and row_sparse gradients only the rows present are updated.
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 lazy_update=True, **kwargs):
        super(Adam, self).__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.lazy_update = lazy_update

    def create_state(self, index, weight):
        stype = weight.stype if self.lazy_update else 'default'
        return _two_moments(weight, weight.dtype, stype)  # mean, variance

    def update(self, index, weight, grad, state):
        lr, wd = self._start_update(index, weight, grad)
        t = self._index_update_count[index]
        lr *= math.sqrt(1. - self.beta2 ** t) / (1. - self.beta1 ** t)
        kwargs = {'beta1': self.beta1, 'beta2': self.beta2, 'epsilon': self.epsilon,
                  'rescale_grad': self.rescale_grad}
        if self.clip_gradient:
            kwargs['clip_gradient'] = self.clip_gradient
        mean, var = state
        adam_update(weight, grad, mean, var, out=weight, lazy_update=self.lazy_update,
                    lr=lr, wd=wd, **kwargs)


@register
class AdaGrad(Optimizer):
    """AdaGrad::

        grad = clip(grad * rescale_grad, clip_gradient)
        history += grad ** 2
        weight += (grad / sqrt(history + eps) + wd * weight) * -lr

    Parameters
    ----------
    eps : float, default 1e-7
    """

    def __init__(self, eps=1e-7, **kwargs):
        super(AdaGrad, self).__init__(**kwargs)
        self.float_stable_eps = eps

    def create_state(self, index, weight):
        return state_zeros(weight, stype=weight.stype)  # history, float32 as in MXNet

    def update(self, index, weight, grad, state):
        lr, wd = self._start_update(index, weight, grad)
        history = state
        if grad.stype == 'row_sparse':
            kwargs = {'epsilon': self.float_stable_eps, 'rescale_grad': self.rescale_grad}
            if self.clip_gradient:
                kwargs['clip_gradient'] = self.clip_gradient
            nd.sparse.adagrad_update(weight, grad, history, out=weight, lr=lr, wd=wd, **kwargs)
            return
        grad = self._rescaled_clipped(grad)
        history[:] += square(grad)
        div = grad / sqrt(history + self.float_stable_eps)
        weight[:] += (div + weight * wd) * -lr


@register
class RMSProp(Optimizer):
    """RMSProp: Tieleman & Hinton's (rmsprop_update), or with ``centered`` Graves's
    (rmspropalex_update).

    Parameters
    ----------
    gamma1 : float, default 0.9
        Decay of the running mean of squared gradients.
    gamma2 : float, default 0.9
        Momentum of the centered version.
    epsilon : float, default 1e-8
    centered : bool, default False
    clip_weights : float, optional
        Weights are clipped to [-clip_weights, clip_weights].
    """

    def __init__(self, learning_rate=0.001, gamma1=0.9, gamma2=0.9, epsilon=1e-8,
                 centered=False, clip_weights=None, **kwargs):
        super(RMSProp, self).__init__(learning_rate=learning_rate, **kwargs)
        self.gamma1 = gamma1
        self.gamma2 = gamma2
        self.centered = centered
        self.epsilon = epsilon
        self.clip_weights = clip_weights

    def create_state(self, index, weight):
        count = 3 if self.centered else 1  # n, and for centered also g and delta
        return tuple(state_zeros(weight, stype=weight.stype) for _ in range(count))

    def update(self, index, weight, grad, state):
        lr, wd = self._start_update(index, weight, grad)
        kwargs = {'gamma1': self.gamma1, 'epsilon': self.epsilon,
                  'rescale_grad': self.rescale_grad}
        if self.centered:
            kwargs['gamma2'] = self.gamma2
        if self.clip_gradient:
            kwargs['clip_gradient'] = self.clip_gradient
        if self.clip_weights:
            kwargs['clip_weights'] = self.clip_weights
        if self.centered:
            n, g, delta = state
            rmspropalex_update(weight, grad, n, g, delta, out=weight, lr=lr, wd=wd, **kwargs)
        else:
            (n,) = state
            rmsprop_update(weight, grad, n, out=weight, lr=lr, wd=wd, **kwargs)


@register
class AdaDelta(Optimizer):
    """AdaDelta (https://arxiv.org/abs/1212.5701); the learning rate is not used::

        grad = clip(grad * rescale_grad, clip_gradient)
        acc_grad = rho * acc_grad + (1 - rho) * grad ** 2
        delta = sqrt(acc_delta + epsilon) / sqrt(acc_grad + epsilon) * grad
        acc_delta = rho * acc_delta + (1 - rho) * delta ** 2
        weight -= delta + wd * weight

    Parameters
    ----------
    rho : float, default 0.9
    epsilon : float, default 1e-5
    """

    def __init__(self, rho=0.90, epsilon=1e-5, **kwargs):
        super(AdaDelta, self).__init__(**kwargs)
        self.rho = rho
        self.epsilon = epsilon

    def create_state(self, index, weight):
        return (zeros(weight.shape, weight.context),   # accumulated squared gradient
                zeros(weight.shape, weight.context))   # accumulated squared delta

    def update(self, index, weight, grad, state):
        _, wd = self._start_update(index, weight, grad)  # AdaDelta has no learning rate
        # (MXNet scaled the caller's gradient in place; a scaled copy gives the same step)
        grad = self._rescaled_clipped(grad)
        acc_g, acc_delta = state
        acc_g[:] *= self.rho
        acc_g[:] += (1. - self.rho) * grad * grad
        delta = sqrt(acc_delta + self.epsilon) / sqrt(acc_g + self.epsilon) * grad
        acc_delta[:] *= self.rho
        acc_delta[:] += (1. - self.rho) * delta * delta
        weight[:] -= delta + wd * weight


@register
class Ftrl(Optimizer):
    """FTRL-proximal (ftrl_update), as in *Ad Click Prediction: a View from the Trenches*.

    Parameters
    ----------
    lamda1 : float, default 0.01
        L1 regularization.
    learning_rate : float, default 0.1
    beta : float, default 1
    """

    def __init__(self, lamda1=0.01, learning_rate=0.1, beta=1, **kwargs):
        super(Ftrl, self).__init__(**kwargs)
        self.lamda1 = lamda1
        self.beta = beta
        self.lr = learning_rate

    def create_state(self, index, weight):
        return _two_moments(weight, None, weight.stype)  # z, n

    def update(self, index, weight, grad, state):
        lr, wd = self._start_update(index, weight, grad)
        kwargs = {'lamda1': self.lamda1, 'beta': self.beta, 'rescale_grad': self.rescale_grad}
        if self.clip_gradient:
            kwargs['clip_gradient'] = self.clip_gradient
        z, n = state
        ftrl_update(weight, grad, z, n, out=weight, lr=lr, wd=wd, **kwargs)


@register
class Adamax(Optimizer):
    """AdaMax, Adam with the infinity norm::

        grad = clip(grad * rescale_grad + wd * weight, clip_gradient)
        m = beta1 * m + (1 - beta1) * grad
        u = maximum(beta2 * u, abs(grad))
        weight -= lr / (1 - beta1 ** t) * m / u
    """

    def __init__(self, learning_rate=0.002, beta1=0.9, beta2=0.999, **kwargs):
        super(Adamax, self).__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2

    def create_state(self, index, weight):
        return _two_moments(weight, weight.dtype)  # m, u

    def update(self, index, weight, grad, state):
        lr, wd = self._start_update(index, weight, grad)
        t = self._index_update_count[index]
        lr /= (1. - self.beta1 ** t)
        grad = self._rescaled_clipped(grad, wd, weight)
        m_t, u_t = state
        m_t[:] *= self.beta1
        m_t[:] += (1. - self.beta1) * grad
        u_t[:] = maximum(self.beta2 * u_t, nd_abs(grad))
        weight[:] -= lr * m_t / u_t


@register
class Nadam(Optimizer):
    """Adam with Nesterov momentum and a warming momentum schedule
    (http://cs229.stanford.edu/proj2015/054_report.pdf). As in MXNet, the product of the
    momentum schedule (m_schedule) is one value shared by all weights.

    Parameters
    ----------
    beta1 : float, default 0.9
    beta2 : float, default 0.999
    epsilon : float, default 1e-8
    schedule_decay : float, default 0.004
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 schedule_decay=0.004, **kwargs):
        super(Nadam, self).__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.schedule_decay = schedule_decay
        self.m_schedule = 1.

    def create_state(self, index, weight):
        return _two_moments(weight, weight.dtype)  # m, v

    def _momentum_at(self, t):
        return self.beta1 * (1. - 0.5 * (pow(0.96, t * self.schedule_decay)))

    def update(self, index, weight, grad, state):
        lr, wd = self._start_update(index, weight, grad)
        t = self._index_update_count[index]
        grad = self._rescaled_clipped(grad, wd, weight)
        momentum_t = self._momentum_at(t)
        momentum_t_1 = self._momentum_at(t + 1)
        self.m_schedule = self.m_schedule * momentum_t
        m_schedule_next = self.m_schedule * momentum_t_1
        m_t, v_t = state
        m_t[:] *= self.beta1
        m_t[:] += (1. - self.beta1) * grad
        v_t[:] *= self.beta2
        v_t[:] += (1. - self.beta2) * grad * grad
        grad_prime = grad / (1. - self.m_schedule)
        m_t_prime = m_t / (1. - m_schedule_next)
        v_t_prime = v_t / (1. - pow(self.beta2, t))
        m_t_bar = (1. - momentum_t) * grad_prime + momentum_t_1 * m_t_prime
        weight[:] -= lr * m_t_bar / (sqrt(v_t_prime) + self.epsilon)


@register
class FTML(Optimizer):
    """FTML, Follow the Moving Leader (ftml_update).

    Parameters
    ----------
    beta1 : float, default 0.6
    beta2 : float, default 0.999
    epsilon : float, default 1e-8
    """

    def __init__(self, beta1=0.6, beta2=0.999, epsilon=1e-8, **kwargs):
        super(FTML, self).__init__(**kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon

    def create_state(self, index, weight):
        # d, v, z
        return tuple(state_zeros(weight, dtype=weight.dtype) for _ in range(3))

    def update(self, index, weight, grad, state):
        lr, wd = self._start_update(index, weight, grad)
        t = self._index_update_count[index]
        kwargs = {'beta1': self.beta1, 'beta2': self.beta2, 'epsilon': self.epsilon,
                  'rescale_grad': self.rescale_grad, 't': t}
        if self.clip_gradient:
            kwargs['clip_grad'] = self.clip_gradient
        prev_d, prev_v, prev_z = state
        ftml_update(weight, grad, prev_d, prev_v, prev_z, out=weight, lr=lr, wd=wd, **kwargs)
