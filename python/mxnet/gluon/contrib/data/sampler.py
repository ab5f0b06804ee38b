"""IntervalSampler: strided passes over a dataset."""
from ...data import sampler as _sampler

__all__ = ['IntervalSampler']


class IntervalSampler(_sampler.Sampler):
    """Visits 0, interval, 2*interval, ...; with `rollover`, then 1, 1+interval, ... until
    every index in [0, length) was visited once; without it, only the first stride."""

    def __init__(self, length, interval, rollover=True):
        assert interval < length, \
            "Interval {} must be smaller than length {}".format(interval, length)
        self._length = length
        self._interval = interval
        self._rollover = rollover

    def __iter__(self):
        for offset in range(self._interval if self._rollover else 1):
            for i in range(offset, self._length, self._interval):
                yield i

    def __len__(self):
        return self._length if self._rollover else len(range(0, self._length, self._interval))
