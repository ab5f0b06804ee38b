"""LAMB: Adam's direction with a per-layer trust ratio |w| / |step|
(https://arxiv.org/abs/1904.00962). One weight runs lamb_update_phase1/phase2; lists of
weights run the fused multi_lamb_update, MXNET_OPTIMIZER_AGGREGATION_SIZE (default and at
most 45) at a time, as MXNet 1.9.1 does. Results equal 1.9.1's bit for bit, except that the
one-weight multi-precision path keeps its float32 master copy current (see _update_one).
"""
from ..ndarray import NDArray, cast, lamb_update_phase1, lamb_update_phase2, \
    mp_lamb_update_phase1
from ..ndarray.contrib import multi_lamb_update, multi_mp_lamb_update
from .optimizer import Optimizer, aggregation_size, register, state_zeros

__all__ = ['LAMB']


@register
class LAMB(Optimizer):
    """LAMB optimizer.

    Parameters
    ----------
    learning_rate : float, default 0.001
    beta1 : float, default 0.9
    beta2 : float, default 0.999
    epsilon : float, default 1e-6
    lower_bound, upper_bound : float, optional
        Bounds of the weight norm in the trust ratio.
    bias_correction : bool, default True
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-6,
                 lower_bound=None, upper_bound=None, bias_correction=True, **kwargs):
        super(LAMB, self).__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        self.bias_correction = bias_correction
        self.aggregate_num = max(1, min(45, aggregation_size(45)))

    def create_state(self, index, weight):
        return (state_zeros(weight, dtype=weight.dtype, stype=weight.stype),  # mean
                state_zeros(weight, dtype=weight.dtype, stype=weight.stype))  # variance

    def _bounds(self):
        bounds = {}
        if self.lower_bound:
            bounds['lower_bound'] = self.lower_bound
        if self.upper_bound:
            bounds['upper_bound'] = self.upper_bound
        return bounds

    def _moment_kwargs(self):
        kwargs = {'beta1': self.beta1, 'beta2': self.beta2, 'epsilon': self.epsilon,
                  'bias_correction': self.bias_correction, 'rescale_grad': self.rescale_grad}
        if self.clip_gradient:
            kwargs['clip_gradient'] = self.clip_gradient
        return kwargs

    def _update_one(self, index, weight, grad, state, multi_precision):
        lr, wd = self._start_update(index, weight, grad)
        kwargs = self._moment_kwargs()
        kwargs['t'] = self._index_update_count[index]
        if multi_precision:
            weight32 = state[0]
            mean, var = state[1]
            g = mp_lamb_update_phase1(weight, grad, mean, var, weight32, wd=wd, **kwargs)
            # MXNet 1.9.1 ran mp_lamb_update_phase2 here, which leaves weight32 as it was:
            # every step restarted from the first master weights and training stood still.
            # The float32 step on the master copy, cast into the weight, gives the same
            # first step and keeps the master copy current.
            lamb_update_phase2(weight32, g, weight32.norm(), g.norm(), lr=lr, out=weight32,
                               **self._bounds())
            cast(weight32, dtype=weight.dtype, out=weight)
        else:
            mean, var = state
            g = lamb_update_phase1(weight, grad, mean, var, wd=wd, **kwargs)
            lamb_update_phase2(weight, g, weight.norm(), g.norm(), lr=lr, out=weight,
                               **self._bounds())

    def _update_many(self, indices, weights, grads, states, multi_precision):
        kwargs = self._moment_kwargs()
        kwargs.update(self._bounds())
        step_count, lrs, wds = [], [], []
        for index, weight, grad in zip(indices, weights, grads):
            assert isinstance(weight, NDArray)
            assert isinstance(grad, NDArray)
            self._update_count(index)
            step_count.append(self._index_update_count[index])
            lrs.append(self._get_lr(index))
            wds.append(self._get_wd(index))
        for start in range(0, len(weights), self.aggregate_num):
            end = min(start + self.aggregate_num, len(weights))
            chunk = dict(out=weights[start:end], step_count=step_count[start:end],
                         lrs=lrs[start:end], wds=wds[start:end], **kwargs)
            if multi_precision:
                weights32 = [s[0] for s in states[start:end]]
                means = [s[1][0] for s in states[start:end]]
                variances = [s[1][1] for s in states[start:end]]
                multi_mp_lamb_update(weights[start:end], grads[start:end], means, variances,
                                     weights32, **chunk)
            else:
                means = [s[0] for s in states[start:end]]
                variances = [s[1] for s in states[start:end]]
                multi_lamb_update(weights[start:end], grads[start:end], means, variances,
                                  **chunk)

    def _update_impl(self, index, weight, grad, state, multi_precision=False):
        if isinstance(index, (tuple, list)):
            if self.aggregate_num > 1:
                self._update_many(index, weight, grad, state, multi_precision)
                return
            assert len(index) == self.aggregate_num
            index, weight, grad, state = index[0], weight[0], grad[0], state[0]
        self._update_one(index, weight, grad, state, multi_precision)

    def update(self, index, weight, grad, state):
        self._update_impl(index, weight, grad, state, multi_precision=False)

    def update_multi_precision(self, index, weight, grad, state):
        self._update_impl(index, weight, grad, state,
                          multi_precision=self._wants_multi_precision(weight))
