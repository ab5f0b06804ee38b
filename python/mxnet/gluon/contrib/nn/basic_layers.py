"""Contributed layers: parallel containers, Identity, SparseEmbedding, SyncBatchNorm and
the PixelShuffle upsamplers."""
import warnings

from .... import context, nd
from ....base import InvalidConfigError
from ...block import HybridBlock, Block
from ...nn import Sequential, HybridSequential, BatchNorm
from ...nn.basic_layers import _call_op

__all__ = ['Concurrent', 'HybridConcurrent', 'Identity', 'SparseEmbedding',
           'SyncBatchNorm', 'PixelShuffle1D', 'PixelShuffle2D',
           'PixelShuffle3D']


class Concurrent(Sequential):
    """Feeds the same input to every child and concatenates their outputs along `axis`."""

    def __init__(self, axis=-1, prefix=None, params=None):
        super(Concurrent, self).__init__(prefix=prefix, params=params)
        self.axis = axis

    def forward(self, x):
        return nd.concat(*[block(x) for block in self._children.values()], dim=self.axis)


class HybridConcurrent(HybridSequential):
    """Feeds the same input to every (hybrid) child and concatenates their outputs along
    `axis`."""

    def __init__(self, axis=-1, prefix=None, params=None):
        super(HybridConcurrent, self).__init__(prefix=prefix, params=params)
        self.axis = axis

    def hybrid_forward(self, F, x):
        return F.concat(*[block(x) for block in self._children.values()], dim=self.axis)


class Identity(HybridBlock):
    """Returns its input (a placeholder branch in a Concurrent)."""

    def __init__(self, prefix=None, params=None):
        super(Identity, self).__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F, x):
        return x


class SparseEmbedding(Block):
    """An Embedding whose weight is a row_sparse Parameter (stype and grad_stype
    'row_sparse', as in MXNet 1.9.1): each forward pulls the rows its indices use from the
    Trainer's KVStore (`row_sparse_data`), so a Trainer must be created first, and the
    gradient holds those rows only. Meant for a very large input_dim."""

    def __init__(self, input_dim, output_dim, dtype='float32',
                 weight_initializer=None, **kwargs):
        super(SparseEmbedding, self).__init__(**kwargs)
        self._kwargs = {'input_dim': input_dim, 'output_dim': output_dim,
                        'dtype': dtype, 'sparse_grad': True}
        self.weight = self.params.get('weight', shape=(input_dim, output_dim),
                                      init=weight_initializer, dtype=dtype,
                                      grad_stype='row_sparse', stype='row_sparse')

    def forward(self, x):
        return _call_op(self, nd.Embedding, x, self.weight.row_sparse_data(x), name='fwd',
                        **self._kwargs)

    def __repr__(self):
        return '{name}({input_dim} -> {output_dim}, {dtype})'.format(
            name=type(self).__name__, **self._kwargs)


class SyncBatchNorm(BatchNorm):
    """Batch normalization whose statistics are computed over the whole batch split across
    `num_devices` devices (default: the number of GPUs, at least 1), channel axis 1.

    It runs contrib.SyncBatchNorm when that operator exists; otherwise it falls back to
    plain BatchNorm, which is the same computation when the batch is on one device.
    """

    def __init__(self, in_channels=0, num_devices=None, momentum=0.9, epsilon=1e-5,
                 center=True, scale=True, use_global_stats=False, beta_initializer='zeros',
                 gamma_initializer='ones', running_mean_initializer='zeros',
                 running_variance_initializer='ones', **kwargs):
        super(SyncBatchNorm, self).__init__(
            axis=1, momentum=momentum, epsilon=epsilon, center=center, scale=scale,
            use_global_stats=use_global_stats, beta_initializer=beta_initializer,
            gamma_initializer=gamma_initializer,
            running_mean_initializer=running_mean_initializer,
            running_variance_initializer=running_variance_initializer,
            in_channels=in_channels, **kwargs)
        num_devices = self._get_num_devices() if num_devices is None else num_devices
        self._kwargs = {'eps': epsilon, 'momentum': momentum,
                        'fix_gamma': not scale, 'use_global_stats': use_global_stats,
                        'ndev': num_devices, 'key': self.prefix}

    def _get_num_devices(self):
        warnings.warn("Caution using SyncBatchNorm: "
                      "if not using all the GPUs, please mannually set num_devices",
                      UserWarning)
        return max(context.num_gpus(), 1)

    def hybrid_forward(self, F, x, gamma, beta, running_mean, running_var):
        sync = getattr(F.contrib, 'SyncBatchNorm', None)
        if sync is not None:
            return _call_op(self, sync, x, gamma, beta, running_mean, running_var,
                            name='fwd', **self._kwargs)
        kwargs = {k: v for k, v in self._kwargs.items() if k not in ('ndev', 'key')}
        return _call_op(self, F.BatchNorm, x, gamma, beta, running_mean, running_var,
                        name='fwd', axis=1, **kwargs)


def _factors(factor, ndim):
    try:
        return (int(factor),) * ndim
    except TypeError:
        factors = tuple(int(f) for f in factor)
        if len(factors) != ndim:
            raise InvalidConfigError("wrong length {}".format(len(factors)))
        return factors


class PixelShuffle1D(HybridBlock):
    """(N, C*f, W) -> (N, C, W*f): moves channel blocks into the width."""

    def __init__(self, factor):
        super(PixelShuffle1D, self).__init__()
        self._factor = int(factor)

    def hybrid_forward(self, F, x):
        f = self._factor
        x = F.reshape(x, (0, -4, -1, f, 0))   # (N, C, f, W)
        x = F.transpose(x, (0, 1, 3, 2))      # (N, C, W, f)
        return F.reshape(x, (0, 0, -3))       # (N, C, W*f)

    def __repr__(self):
        return "{}({})".format(type(self).__name__, self._factor)


class PixelShuffle2D(HybridBlock):
    """(N, C*f1*f2, H, W) -> (N, C, H*f1, W*f2); `factor` is a number or a pair."""

    def __init__(self, factor):
        super(PixelShuffle2D, self).__init__()
        self._factors = _factors(factor, 2)

    def hybrid_forward(self, F, x):
        f1, f2 = self._factors
        x = F.reshape(x, (0, -4, -1, f1 * f2, 0, 0))   # (N, C, f1*f2, H, W)
        x = F.reshape(x, (0, 0, -4, f1, f2, 0, 0))     # (N, C, f1, f2, H, W)
        x = F.transpose(x, (0, 1, 4, 2, 5, 3))         # (N, C, H, f1, W, f2)
        return F.reshape(x, (0, 0, -3, -3))            # (N, C, H*f1, W*f2)

    def __repr__(self):
        return "{}({})".format(type(self).__name__, self._factors)


class PixelShuffle3D(HybridBlock):
    """(N, C*f1*f2*f3, D, H, W) -> (N, C, D*f1, H*f2, W*f3); `factor` is a number or a
    triple."""

    def __init__(self, factor):
        super(PixelShuffle3D, self).__init__()
        self._factors = _factors(factor, 3)

    def hybrid_forward(self, F, x):
        f1, f2, f3 = self._factors
        x = F.reshape(x, (0, -4, -1, f1 * f2 * f3, 0, 0, 0))  # (N, C, f1*f2*f3, D, H, W)
        x = F.reshape(x, (0, 0, -4, f1, f2 * f3, 0, 0, 0))    # (N, C, f1, f2*f3, D, H, W)
        x = F.reshape(x, (0, 0, 0, -4, f2, f3, 0, 0, 0))      # (N, C, f1, f2, f3, D, H, W)
        x = F.transpose(x, (0, 1, 5, 2, 6, 3, 7, 4))          # (N, C, D, f1, H, f2, W, f3)
        return F.reshape(x, (0, 0, -3, -3, -3))               # (N, C, D*f1, H*f2, W*f3)

    def __repr__(self):
        return "{}({})".format(type(self).__name__, self._factors)
