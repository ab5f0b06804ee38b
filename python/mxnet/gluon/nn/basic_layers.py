"""The basic layers: containers, Dense, Dropout, the normalizations, Embedding, Flatten and
the Lambda wrappers around plain functions.

Layers whose parameter shapes depend on the input (Dense without in_units, BatchNorm without
in_channels, ...) leave the unknown dimensions 0 and fill them in `infer_shape`, which the
first forward pass calls with the actual input.
"""
import warnings

import numpy as np

from ... import nd
from ...base import InvalidConfigError, MXNetError
from ..block import Block, HybridBlock
from ..utils import _indent
from .activations import Activation

__all__ = ['Sequential', 'HybridSequential', 'Dense', 'Dropout', 'Embedding',
           'BatchNorm', 'BatchNormReLU', 'InstanceNorm', 'LayerNorm', 'GroupNorm',
           'Flatten', 'Lambda', 'HybridLambda']


def _layer_error(block, message):
    return MXNetError("%s '%s': %s" % (type(block).__name__, block.name, message))


def _call_op(block, op, x, *args, **kwargs):
    """op(x, *args, **kwargs), with the block and its input shape named in the shape or
    type errors the operator raises (the operator alone cannot say which layer failed)."""
    try:
        return op(x, *args, **kwargs)
    except MXNetError as err:
        raise _layer_error(block, "input of shape %s does not fit the layer: %s"
                           % (getattr(x, 'shape', '?'), err)) from None


def _input_dim(block, x, axis):
    """x.shape[axis], or an MXNetError naming the block when x has no such axis."""
    if not -x.ndim <= axis < x.ndim:
        raise _layer_error(block, "axis %d is out of range for an input of shape %s"
                           % (axis, x.shape))
    return x.shape[axis]


def _children_repr(block):
    modstr = '\n'.join('  ({key}): {block}'.format(key=key, block=_indent(repr(child), 2))
                       for key, child in block._children.items())
    return '{name}(\n{modstr}\n)'.format(name=type(block).__name__, modstr=modstr)


def _kwargs_repr(kwargs):
    return ', '.join('%s=%r' % (key, value) for key, value in kwargs.items())


class _SequentialMixin(object):
    """What Sequential and HybridSequential share: stacking, indexing and printing."""

    def add(self, *blocks):
        """Appends blocks; they run in the order added."""
        for block in blocks:
            self.register_child(block)

    def __repr__(self):
        return _children_repr(self)

    def __getitem__(self, key):
        """The child at `key`; a slice gives a container of the same type (same prefix)
        holding those children."""
        layers = list(self._children.values())[key]
        if not isinstance(layers, list):
            return layers
        net = type(self)(prefix=self._prefix)
        with net.name_scope():
            net.add(*layers)
        return net

    def __len__(self):
        return len(self._children)


class Sequential(_SequentialMixin, Block):
    """Runs its children one after the other."""

    def __init__(self, prefix=None, params=None):
        super(Sequential, self).__init__(prefix=prefix, params=params)

    def forward(self, x):
        for block in self._children.values():
            x = block(x)
        return x

    def hybridize(self, active=True, **kwargs):
        if self._children and all(isinstance(c, HybridBlock) for c in self._children.values()):
            warnings.warn(
                "All children of this Sequential layer '%s' are HybridBlocks. Consider "
                "using HybridSequential for the best performance." % self.prefix, stacklevel=2)
        super(Sequential, self).hybridize(active, **kwargs)


class HybridSequential(_SequentialMixin, HybridBlock):
    """Runs its (hybrid) children one after the other."""

    def __init__(self, prefix=None, params=None):
        super(HybridSequential, self).__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F, x):
        for block in self._children.values():
            x = block(x)
        return x


class Dense(HybridBlock):
    """A fully connected layer: activation(dot(x, weight.T) + bias).

    weight has shape (units, in_units); with flatten=True the input is flattened to
    (batch, -1) first, otherwise the layer acts on the last axis. in_units=0 leaves the
    input size to the first forward pass.
    """

    def __init__(self, units, activation=None, use_bias=True, flatten=True,
                 dtype='float32', weight_initializer=None, bias_initializer='zeros',
                 in_units=0, **kwargs):
        super(Dense, self).__init__(**kwargs)
        self._flatten = flatten
        with self.name_scope():
            self._units = units
            self._in_units = in_units
            self.weight = self.params.get('weight', shape=(units, in_units),
                                          init=weight_initializer, dtype=dtype,
                                          allow_deferred_init=True)
            if use_bias:
                self.bias = self.params.get('bias', shape=(units,), init=bias_initializer,
                                            dtype=dtype, allow_deferred_init=True)
            else:
                self.bias = None
            self.act = Activation(activation, prefix=activation + '_') \
                if activation is not None else None

    def infer_shape(self, x, *args):
        in_units = int(np.prod(x.shape[1:])) if self._flatten else _input_dim(self, x, -1)
        self.weight.shape = (self._units, in_units)

    def hybrid_forward(self, F, x, weight, bias=None):
        out = _call_op(self, F.FullyConnected, x, weight, bias, no_bias=bias is None,
                       num_hidden=self._units, flatten=self._flatten, name='fwd')
        return self.act(out) if self.act is not None else out

    def __repr__(self):
        shape = self.weight.shape
        return '{name}({inp} -> {out}, {act})'.format(
            name=type(self).__name__, inp=shape[1] if shape[1] else None, out=shape[0],
            act=self.act if self.act else 'linear')


class Dropout(HybridBlock):
    """Zeroes each element with probability `rate` while training (scaling the rest by
    1/(1-rate)); `axes` share one mask along those axes. Identity at inference."""

    def __init__(self, rate, axes=(), **kwargs):
        super(Dropout, self).__init__(**kwargs)
        self._rate = rate
        self._axes = axes

    def hybrid_forward(self, F, x):
        if self._rate > 0:
            return F.Dropout(x, p=self._rate, axes=self._axes, name='fwd', cudnn_off=False)
        return F.identity(x)

    def __repr__(self):
        return '{name}(p = {rate}, axes={axes})'.format(name=type(self).__name__,
                                                        rate=self._rate, axes=self._axes)


class _BatchNorm(HybridBlock):
    """Batch normalization over `axis` (the channel axis); BatchNormReLU adds a ReLU.

    While training (autograd.record(train_mode=True)) it normalizes with the batch
    statistics, and the backward pass moves running_mean/running_var by `momentum`;
    otherwise, or with use_global_stats, it uses the running statistics. scale=False
    fixes gamma at 1 (grad_req 'null'); center=False fixes beta.
    """
    _fuse_relu = False

    def __init__(self, axis=1, momentum=0.9, epsilon=1e-5, center=True, scale=True,
                 use_global_stats=False,
                 beta_initializer='zeros', gamma_initializer='ones',
                 running_mean_initializer='zeros', running_variance_initializer='ones',
                 in_channels=0, **kwargs):
        super(_BatchNorm, self).__init__(**kwargs)
        self._kwargs = {'axis': axis, 'eps': epsilon, 'momentum': momentum,
                        'fix_gamma': not scale, 'use_global_stats': use_global_stats}
        self._axis = axis
        self.fuse_relu = self._fuse_relu
        if in_channels != 0:
            self.in_channels = in_channels
        self.gamma = self.params.get('gamma', grad_req='write' if scale else 'null',
                                     shape=(in_channels,), init=gamma_initializer,
                                     allow_deferred_init=True, differentiable=scale)
        self.beta = self.params.get('beta', grad_req='write' if center else 'null',
                                    shape=(in_channels,), init=beta_initializer,
                                    allow_deferred_init=True, differentiable=center)
        self.running_mean = self.params.get('running_mean', grad_req='null',
                                            shape=(in_channels,),
                                            init=running_mean_initializer,
                                            allow_deferred_init=True, differentiable=False)
        self.running_var = self.params.get('running_var', grad_req='null',
                                           shape=(in_channels,),
                                           init=running_variance_initializer,
                                           allow_deferred_init=True, differentiable=False)

    def cast(self, dtype):
        # The statistics of a float16 network stay float32 (as the operator wants).
        if np.dtype(dtype).name == 'float16':
            dtype = 'float32'
        super(_BatchNorm, self).cast(dtype)

    def infer_shape(self, x, *args):
        channels = _input_dim(self, x, self._axis)
        for param in (self.gamma, self.beta, self.running_mean, self.running_var):
            param.shape = (channels,)

    def hybrid_forward(self, F, x, gamma, beta, running_mean, running_var):
        fused = getattr(F.contrib, 'BatchNormWithReLU', None) if self.fuse_relu else None
        out = _call_op(self, fused or F.BatchNorm, x, gamma, beta, running_mean, running_var,
                       name='fwd', **self._kwargs)
        if self.fuse_relu and fused is None:
            out = F.relu(out)
        return out

    def __repr__(self):
        in_channels = self.gamma.shape[0]
        return '{name}({content}, in_channels={channels})'.format(
            name=type(self).__name__, content=_kwargs_repr(self._kwargs),
            channels=in_channels if in_channels else None)


class BatchNorm(_BatchNorm):
    """Batch normalization (Ioffe & Szegedy, 2015), see _BatchNorm. Parameters: gamma and
    beta (trained), running_mean and running_var (grad_req 'null')."""


class BatchNormReLU(_BatchNorm):
    """Batch normalization followed by ReLU: contrib.BatchNormWithReLU where that operator
    exists, else BatchNorm then relu (the same values)."""
    _fuse_relu = True


class Embedding(HybridBlock):
    """Maps integer indices to rows of weight, shape (input_dim, output_dim).

    sparse_grad=True makes the weight's gradient a row_sparse array (grad_stype) that holds
    only the rows the indices used, as in MXNet 1.9.1; a Trainer then pushes and pulls it
    sparsely (and, with the default lazy_update, updates only those rows).
    """

    def __init__(self, input_dim, output_dim, dtype='float32',
                 weight_initializer=None, sparse_grad=False, **kwargs):
        super(Embedding, self).__init__(**kwargs)
        self._kwargs = {'input_dim': input_dim, 'output_dim': output_dim,
                        'dtype': dtype, 'sparse_grad': sparse_grad}
        self.weight = self.params.get('weight', shape=(input_dim, output_dim),
                                      init=weight_initializer, dtype=dtype,
                                      allow_deferred_init=True,
                                      grad_stype='row_sparse' if sparse_grad else 'default')

    def hybrid_forward(self, F, x, weight):
        return _call_op(self, F.Embedding, x, weight, name='fwd', **self._kwargs)

    def __repr__(self):
        return '{name}({input_dim} -> {output_dim}, {dtype})'.format(
            name=type(self).__name__, **self._kwargs)


class Flatten(HybridBlock):
    """Reshapes (N, d1, d2, ...) to (N, d1*d2*...)."""

    def __init__(self, **kwargs):
        super(Flatten, self).__init__(**kwargs)

    def hybrid_forward(self, F, x):
        return F.flatten(x)

    def __repr__(self):
        return type(self).__name__


class _AffineNorm(HybridBlock):
    """What InstanceNorm, LayerNorm and GroupNorm share: gamma and beta of one length (the
    channel axis's, found at the first forward when in_channels is 0), trainable unless
    scale / center say otherwise."""

    def _init_affine(self, length, scale, center, gamma_initializer, beta_initializer):
        self.gamma = self.params.get('gamma', grad_req='write' if scale else 'null',
                                     shape=(length,), init=gamma_initializer,
                                     allow_deferred_init=True)
        self.beta = self.params.get('beta', grad_req='write' if center else 'null',
                                    shape=(length,), init=beta_initializer,
                                    allow_deferred_init=True)

    def infer_shape(self, x, *args):
        channels = _input_dim(self, x, self._axis)
        self.gamma.shape = (channels,)
        self.beta.shape = (channels,)

    def __repr__(self):
        return '{name}({content}, in_channels={channels})'.format(
            name=type(self).__name__, content=_kwargs_repr(self._kwargs),
            channels=self.gamma.shape[0])


class InstanceNorm(_AffineNorm):
    """Normalizes each sample and channel over its spatial axes, then scales by gamma
    and shifts by beta (per channel; `axis` is the channel axis)."""

    def __init__(self, axis=1, epsilon=1e-5, center=True, scale=False,
                 beta_initializer='zeros', gamma_initializer='ones',
                 in_channels=0, **kwargs):
        super(InstanceNorm, self).__init__(**kwargs)
        self._kwargs = {'eps': epsilon, 'axis': axis, 'center': center, 'scale': scale}
        self._axis = axis
        self._epsilon = epsilon
        self._init_affine(in_channels, scale, center, gamma_initializer, beta_initializer)

    def hybrid_forward(self, F, x, gamma, beta):
        if self._axis == 1:
            return _call_op(self, F.InstanceNorm, x, gamma, beta, name='fwd',
                            eps=self._epsilon)
        x = x.swapaxes(1, self._axis)
        return _call_op(self, F.InstanceNorm, x, gamma, beta, name='fwd',
                        eps=self._epsilon).swapaxes(1, self._axis)


class LayerNorm(_AffineNorm):
    """Normalizes each sample over `axis` (default the last), then applies gamma and beta
    (of that axis's length)."""

    def __init__(self, axis=-1, epsilon=1e-5, center=True, scale=True,
                 beta_initializer='zeros', gamma_initializer='ones',
                 in_channels=0, prefix=None, params=None):
        super(LayerNorm, self).__init__(prefix=prefix, params=params)
        self._kwargs = {'eps': epsilon, 'axis': axis, 'center': center, 'scale': scale}
        self._axis = axis
        self._epsilon = epsilon
        self._center = center
        self._scale = scale
        self._init_affine(in_channels, scale, center, gamma_initializer, beta_initializer)

    def hybrid_forward(self, F, data, gamma, beta):
        return _call_op(self, F.LayerNorm, data, gamma=gamma, beta=beta, axis=self._axis,
                        eps=self._epsilon)


class GroupNorm(_AffineNorm):
    """Splits the channels (axis 1) into num_groups groups and normalizes each sample's
    group; gamma and beta have one value per group, as in MXNet 1.9.1."""

    def __init__(self, num_groups=1, epsilon=1e-5, center=True, scale=True,
                 beta_initializer='zeros', gamma_initializer='ones',
                 prefix=None, params=None):
        super(GroupNorm, self).__init__(prefix=prefix, params=params)
        self._kwargs = {'eps': epsilon, 'num_groups': num_groups, 'center': center,
                        'scale': scale}
        self._num_groups = num_groups
        self._epsilon = epsilon
        self._center = center
        self._scale = scale
        self._init_affine(num_groups, scale, center, gamma_initializer, beta_initializer)

    # The group count fixes gamma and beta; nothing to learn from the input.
    infer_shape = HybridBlock.infer_shape

    def hybrid_forward(self, F, data, gamma, beta):
        return _call_op(self, F.GroupNorm, data, gamma=gamma, beta=beta,
                        num_groups=self._num_groups, eps=self._epsilon)

    def __repr__(self):
        return '{name}({content})'.format(name=type(self).__name__,
                                          content=_kwargs_repr(self._kwargs))


def _function_of(function, where):
    """The callable a Lambda wraps: `function` itself, or mx.nd's function of that name."""
    if isinstance(function, str):
        if not hasattr(nd, function):
            raise InvalidConfigError("Function name %s is not found in %s." % (function, where))
        return getattr(nd, function)
    if callable(function):
        return function
    raise ValueError("Unrecognized function in lambda: {} of type {}"
                     .format(function, type(function)))


class Lambda(Block):
    """Wraps a function of NDArrays (or the name of an mx.nd function) as a Block."""

    def __init__(self, function, prefix=None):
        super(Lambda, self).__init__(prefix=prefix)
        self._func_impl = _function_of(function, 'ndarray')

    def forward(self, *args):
        return self._func_impl(*args)

    def __repr__(self):
        return '{name}({function})'.format(name=type(self).__name__,
                                           function=self._func_impl.__name__)


class HybridLambda(HybridBlock):
    """Wraps a function `f(F, x, *args)` (or the name of an operator, looked up in F) as a
    HybridBlock."""

    def __init__(self, function, prefix=None):
        super(HybridLambda, self).__init__(prefix=prefix)
        if isinstance(function, str):
            _function_of(function, 'symbol/ndarray')
            self._func = lambda F, *args: getattr(F, function)(*args)
            self._func_name = function
        else:
            self._func = _function_of(function, 'symbol/ndarray')
            self._func_name = function.__name__

    def hybrid_forward(self, F, x, *args):
        return self._func(F, x, *args)

    def __repr__(self):
        return '{name}({function})'.format(name=type(self).__name__,
                                           function=self._func_name)
