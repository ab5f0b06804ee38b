"""Learning-rate schedules: a function of the number of updates done so far.

An optimizer calls its scheduler with `num_update`, the largest number of updates any one
weight has had. Every scheduler may start with a warm-up of `warmup_steps` updates, rising
linearly from `warmup_begin_lr` to `base_lr` ('linear') or staying at `warmup_begin_lr`
('constant'). Attribute names are those of MXNet 1.x, so pickled schedulers load either way.
"""
import logging
from math import cos, pi

__all__ = ["LRScheduler", "FactorScheduler", "MultiFactorScheduler", "PolyScheduler",
           "CosineScheduler"]

_WARMUP_MODES = ("linear", "constant")


class LRScheduler(object):
    """Base class of learning-rate schedules.

    Parameters
    ----------
    base_lr : float, default 0.01
        Learning rate once the warm-up is over.
    warmup_steps : int, default 0
        Number of updates spent warming up.
    warmup_begin_lr : float, default 0
        Learning rate at the first warm-up update.
    warmup_mode : {'linear', 'constant'}, default 'linear'
        How the rate moves during the warm-up.
    """

    def __init__(self, base_lr=0.01, warmup_steps=0, warmup_begin_lr=0, warmup_mode='linear'):
        assert isinstance(warmup_steps, int), "warmup_steps must be an int"
        if warmup_begin_lr > base_lr:
            raise ValueError("warmup_begin_lr (%s) must not exceed base_lr (%s)"
                             % (warmup_begin_lr, base_lr))
        if warmup_steps < 0:
            raise ValueError("warmup_steps must be 0 or more, got %d" % warmup_steps)
        if warmup_mode not in _WARMUP_MODES:
            raise ValueError("warmup_mode must be 'linear' or 'constant', got %r" % (warmup_mode,))
        self.base_lr = base_lr
        self.warmup_steps = warmup_steps
        self.warmup_final_lr = base_lr
        self.warmup_begin_lr = warmup_begin_lr
        self.warmup_mode = warmup_mode

    def get_warmup_lr(self, num_update):
        """The learning rate at update `num_update` of the warm-up."""
        assert num_update < self.warmup_steps
        if self.warmup_mode == 'constant':
            return self.warmup_begin_lr
        if self.warmup_mode == 'linear':
            span = self.warmup_final_lr - self.warmup_begin_lr
            return self.warmup_begin_lr + span * float(num_update) / float(self.warmup_steps)
        raise ValueError("Invalid warmup mode %s" % self.warmup_mode)

    def __call__(self, num_update):
        """The learning rate after `num_update` updates (the most any one weight has had)."""
        raise NotImplementedError("must override this")


class FactorScheduler(LRScheduler):
    """Multiplies the rate by `factor` every `step` updates, never going below
    `stop_factor_lr`: ``base_lr * factor ** floor((num_update - 1) / step)``.
    """

    def __init__(self, step, factor=1, stop_factor_lr=1e-8, base_lr=0.01,
                 warmup_steps=0, warmup_begin_lr=0, warmup_mode='linear'):
        super(FactorScheduler, self).__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if step < 1:
            raise ValueError("Schedule step must be greater or equal than 1 round")
        if factor > 1.0:
            raise ValueError("Factor must be no more than 1 to make lr reduce")
        self.step = step
        self.factor = factor
        self.stop_factor_lr = stop_factor_lr
        self.count = 0

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        # A loop, not a test: a resumed run may jump several steps at once.
        while num_update > self.count + self.step:
            self.count += self.step
            self.base_lr = max(self.base_lr * self.factor, self.stop_factor_lr)
            if self.base_lr == self.stop_factor_lr:
                logging.info("Update[%d]: learning rate reached its floor %0.5e",
                             num_update, self.base_lr)
            else:
                logging.info("Update[%d]: Change learning rate to %0.5e",
                             num_update, self.base_lr)
        return self.base_lr


class MultiFactorScheduler(LRScheduler):
    """Multiplies the rate by `factor` each time `num_update` passes one of the increasing
    update counts in `step`.
    """

    def __init__(self, step, factor=1, base_lr=0.01, warmup_steps=0, warmup_begin_lr=0,
                 warmup_mode='linear'):
        super(MultiFactorScheduler, self).__init__(base_lr, warmup_steps, warmup_begin_lr,
                                                   warmup_mode)
        assert isinstance(step, list) and step, "step must be a non-empty list of ints"
        for previous, current in zip(step, step[1:]):
            if current <= previous:
                raise ValueError("Schedule step must be an increasing integer list")
        if min(step) < 1:
            raise ValueError("Schedule step must be greater or equal than 1 round")
        if factor > 1.0:
            raise ValueError("Factor must be no more than 1 to make lr reduce")
        self.step = step
        self.cur_step_ind = 0
        self.factor = factor
        self.count = 0

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        while self.cur_step_ind < len(self.step) and num_update > self.step[self.cur_step_ind]:
            self.count = self.step[self.cur_step_ind]
            self.cur_step_ind += 1
            self.base_lr *= self.factor
            logging.info("Update[%d]: Change learning rate to %0.5e", num_update, self.base_lr)
        return self.base_lr


class _DecayToFinal(LRScheduler):
    """Shared shape of the schedules that decay from `base_lr` to `final_lr` over the
    updates between the warm-up and `max_update`, then stay at the last value."""

    def __init__(self, max_update, base_lr, final_lr, warmup_steps, warmup_begin_lr,
                 warmup_mode):
        super(_DecayToFinal, self).__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        assert isinstance(max_update, int), "max_update must be an int"
        if max_update < 1:
            raise ValueError("maximum number of updates must be strictly positive")
        self.base_lr_orig = self.base_lr
        self.max_update = max_update
        self.final_lr = final_lr
        self.max_steps = self.max_update - self.warmup_steps

    def _decay(self, elapsed):
        """The fraction of (base_lr - final_lr) left `elapsed` updates after the warm-up."""
        raise NotImplementedError()

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        if num_update <= self.max_update:
            self.base_lr = self.final_lr + (self.base_lr_orig - self.final_lr) * \
                self._decay(num_update - self.warmup_steps)
        return self.base_lr


class PolyScheduler(_DecayToFinal):
    """Polynomial decay: ``final_lr + (base_lr - final_lr) * (1 - t / T) ** pwr`` where t
    counts updates after the warm-up and T = max_update - warmup_steps."""

    def __init__(self, max_update, base_lr=0.01, pwr=2, final_lr=0,
                 warmup_steps=0, warmup_begin_lr=0, warmup_mode='linear'):
        super(PolyScheduler, self).__init__(max_update, base_lr, final_lr, warmup_steps,
                                            warmup_begin_lr, warmup_mode)
        self.power = pwr

    def _decay(self, elapsed):
        return pow(1 - float(elapsed) / float(self.max_steps), self.power)


class CosineScheduler(_DecayToFinal):
    """Half-cosine decay: ``final_lr + (base_lr - final_lr) * (1 + cos(pi * t / T)) / 2`` where
    t counts updates after the warm-up and T = max_update - warmup_steps."""

    def __init__(self, max_update, base_lr=0.01, final_lr=0,
                 warmup_steps=0, warmup_begin_lr=0, warmup_mode='linear'):
        super(CosineScheduler, self).__init__(max_update, base_lr, final_lr, warmup_steps,
                                              warmup_begin_lr, warmup_mode)

    def _decay(self, elapsed):
        return (1 + cos(pi * elapsed / self.max_steps)) / 2
