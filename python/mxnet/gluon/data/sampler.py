"""Samplers: which dataset indices a DataLoader visits, and in what order and batches."""
import numpy as np

__all__ = ['Sampler', 'SequentialSampler', 'RandomSampler', 'FilterSampler', 'BatchSampler']


class Sampler(object):
    """Base class of samplers: an iterable of indices with a length."""

    def __iter__(self):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """The indices start, start+1, ..., start+length-1 in order."""

    def __init__(self, length, start=0):
        self._length = length
        self._start = start

    def __iter__(self):
        return iter(range(self._start, self._start + self._length))

    def __len__(self):
        return self._length


class RandomSampler(Sampler):
    """A fresh permutation of [0, length) (numpy's global generator) on every pass."""

    def __init__(self, length):
        self._length = length

    def __iter__(self):
        order = np.arange(self._length)
        np.random.shuffle(order)
        return iter(order)

    def __len__(self):
        return self._length


class FilterSampler(Sampler):
    """The indices of the samples of `dataset` for which `fn(sample)` is true."""

    def __init__(self, fn, dataset):
        self._fn = fn
        self._dataset = dataset
        self._indices = [i for i, sample in enumerate(dataset) if fn(sample)]

    def __iter__(self):
        return iter(self._indices)

    def __len__(self):
        return len(self._indices)


_LAST_BATCH = ('keep', 'discard', 'rollover')


def _check_last_batch(last_batch):
    if last_batch not in _LAST_BATCH:
        raise ValueError("last_batch must be one of 'keep', 'discard', or 'rollover', "
                         "but got %s" % last_batch)


class BatchSampler(Sampler):
    """Groups the indices of `sampler` into lists of `batch_size`.

    An incomplete last batch is yielded ('keep'), dropped ('discard') or carried into the
    first batch of the next pass ('rollover').
    """

    def __init__(self, sampler, batch_size, last_batch='keep'):
        self._sampler = sampler
        self._batch_size = batch_size
        self._last_batch = last_batch
        self._prev = []

    def __iter__(self):
        _check_last_batch(self._last_batch)
        batch, self._prev = self._prev, []
        for i in self._sampler:
            batch.append(i)
            if len(batch) == self._batch_size:
                yield batch
                batch = []
        if not batch:
            return
        if self._last_batch == 'keep':
            yield batch
        elif self._last_batch == 'rollover':
            self._prev = batch

    def __len__(self):
        _check_last_batch(self._last_batch)
        if self._last_batch == 'keep':
            return (len(self._sampler) + self._batch_size - 1) // self._batch_size
        if self._last_batch == 'discard':
            return len(self._sampler) // self._batch_size
        return (len(self._prev) + len(self._sampler)) // self._batch_size
