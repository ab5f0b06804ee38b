"""LossScaler: the dynamic loss scale of AMP (halved on overflow, doubled after 2000 clean
steps, at most 2**24)."""
import logging

from ... import autograd
from ... import ndarray as nd

__all__ = ['LossScaler']


class LossScaler(object):
    """Dynamic loss scale. has_overflow(params) checks the parameters' gradients; the new
    scale takes effect at the next step, as in MXNet 1.9.1."""

    def __init__(self):
        self._loss_scale = 2. ** 16
        self._next_loss_scale = self._loss_scale
        self._max_loss_scale = 2. ** 24
        self._scale_seq_len = 2000
        self._unskipped = 0

    @property
    def loss_scale(self):
        """The current loss scale."""
        return self._loss_scale

    def has_overflow(self, params):
        """Whether any gradient of `params` (gluon Parameters) has an inf or nan; adjusts
        the scale for the next step."""
        with autograd.pause():
            grads = [g for p in params if p._grad is not None for g in p.list_grad()]
            finite = all(bool(nd.all_finite(g).asscalar()) for g in grads)
        overflow = not finite
        self._loss_scale = self._next_loss_scale
        if overflow:
            self._next_loss_scale = self._loss_scale / 2.
            self._unskipped = 0
            logging.info("AMP: decreasing loss scale to %f", self._next_loss_scale)
        else:
            self._unskipped += 1
        if self._unskipped == self._scale_seq_len:
            self._unskipped = 0
            self._next_loss_scale = min(self._max_loss_scale, self._loss_scale * 2.)
            logging.info("AMP: increasing loss scale to %f", self._next_loss_scale)
        return overflow
