"""Convolution, transposed convolution, pooling and padding layers (1-D, 2-D, 3-D).

Layouts name the axes: N batch, C channels, D/H/W spatial. The channels-first layouts
(NCW, NCHW, NCDHW) are the default; NHWC/NDHWC (and NWC for pooling) are accepted where
MXNet 1.9.1 accepted them.
"""
from ...base import InvalidConfigError, numeric_types
from ..block import HybridBlock
from .activations import Activation
from .basic_layers import _call_op, _layer_error

__all__ = ['Conv1D', 'Conv2D', 'Conv3D',
           'Conv1DTranspose', 'Conv2DTranspose', 'Conv3DTranspose',
           'MaxPool1D', 'MaxPool2D', 'MaxPool3D',
           'AvgPool1D', 'AvgPool2D', 'AvgPool3D',
           'GlobalMaxPool1D', 'GlobalMaxPool2D', 'GlobalMaxPool3D',
           'GlobalAvgPool1D', 'GlobalAvgPool2D', 'GlobalAvgPool3D',
           'ReflectionPad2D']


def _check(condition, message):
    if not condition:
        raise InvalidConfigError(message)


def _tuple_of(value, ndim, what):
    """`value` as an ndim-tuple: a number is repeated, a sequence must have ndim items."""
    if isinstance(value, numeric_types):
        return (value,) * ndim
    value = tuple(value)
    _check(len(value) == ndim,
           "%s must be a number or a list of %d ints" % (what, ndim))
    return value


def _weight_shape(op_name, layout, channels, in_channels, kernel, groups):
    """The weight shape Convolution/Deconvolution expect; in_channels 0 stays 0 (unknown).

    Convolution: (channels, in_channels/groups, *kernel); Deconvolution swaps the roles:
    (in_channels, channels/groups, *kernel). Channels-last layouts put the per-group
    channel count after the kernel.
    """
    if op_name == 'Convolution':
        outer, inner = channels, in_channels // groups
    else:
        outer, inner = in_channels, channels // groups
    if layout.find('C') == 1:
        return (outer, inner) + tuple(kernel)
    return (outer,) + tuple(kernel) + (inner,)


class _Conv(HybridBlock):
    """A convolution (op_name 'Convolution') or transposed convolution ('Deconvolution')
    with weight, optional bias and optional activation. The input channel count is taken
    from the first input when in_channels is 0."""

    def __init__(self, channels, kernel_size, strides, padding, dilation,
                 groups, layout, in_channels=0, activation=None, use_bias=True,
                 weight_initializer=None, bias_initializer='zeros',
                 op_name='Convolution', adj=None, prefix=None, params=None):
        super(_Conv, self).__init__(prefix=prefix, params=params)
        with self.name_scope():
            self._channels = channels
            self._in_channels = in_channels
            ndim = len(kernel_size)
            strides = _tuple_of(strides, ndim, 'strides')
            padding = _tuple_of(padding, ndim, 'padding')
            dilation = _tuple_of(dilation, ndim, 'dilation')
            self._op_name = op_name
            self._kwargs = {
                'kernel': kernel_size, 'stride': strides, 'dilate': dilation,
                'pad': padding, 'num_filter': channels, 'num_group': groups,
                'no_bias': not use_bias, 'layout': layout}
            if adj is not None:
                self._kwargs['adj'] = adj
            grouped = channels if op_name == 'Convolution' else in_channels
            if grouped % groups:
                raise InvalidConfigError(
                    "%s: %s (%d) must be divisible by groups (%d)"
                    % (type(self).__name__, 'channels' if op_name == 'Convolution'
                       else 'in_channels', grouped, groups))
            self.weight = self.params.get(
                'weight', shape=_weight_shape(op_name, layout, channels, in_channels,
                                              kernel_size, groups),
                init=weight_initializer, allow_deferred_init=True)
            if use_bias:
                self.bias = self.params.get('bias', shape=(channels,),
                                            init=bias_initializer, allow_deferred_init=True)
            else:
                self.bias = None
            self.act = Activation(activation, prefix=activation + '_') \
                if activation is not None else None

    def _alias(self):
        return 'conv'

    def infer_shape(self, x, *args):
        layout = self._kwargs['layout']
        if x.ndim != len(layout):
            raise _layer_error(self, "expected a %d-D input in layout %s, given shape %s"
                               % (len(layout), layout, x.shape))
        in_channels = x.shape[layout.find('C')]
        groups = self._kwargs['num_group']
        if in_channels % groups:
            raise _layer_error(self, "the input's %d channels (shape %s) are not divisible "
                               "by groups=%d" % (in_channels, x.shape, groups))
        self.weight.shape = _weight_shape(self._op_name, layout, self._channels, in_channels,
                                          self._kwargs['kernel'], groups)

    def hybrid_forward(self, F, x, weight, bias=None):
        op = getattr(F, self._op_name)
        inputs = (weight,) if bias is None else (weight, bias)
        out = _call_op(self, op, x, *inputs, name='fwd', **self._kwargs)
        return self.act(out) if self.act is not None else out

    def __repr__(self):
        s = '{name}({mapping}, kernel_size={kernel}, stride={stride}'
        ndim = len(self._kwargs['kernel'])
        if self._kwargs['pad'] != (0,) * ndim:
            s += ', padding={pad}'
        if self._kwargs['dilate'] != (1,) * ndim:
            s += ', dilation={dilate}'
        # output_padding is not printed: MXNet 1.9.1 looked for an attribute it never set.
        if self._kwargs['num_group'] != 1:
            s += ', groups={num_group}'
        if self.bias is None:
            s += ', bias=False'
        if self.act:
            s += ', {}'.format(self.act)
        s += ')'
        shape = self.weight.shape
        return s.format(name=type(self).__name__,
                        mapping='{0} -> {1}'.format(shape[1] if shape[1] else None, shape[0]),
                        **self._kwargs)


_LAYOUTS = {1: ('NCW',), 2: ('NCHW', 'NHWC'), 3: ('NCDHW', 'NDHWC')}


def _conv_args(ndim, layout, kernel_size):
    layouts = _LAYOUTS[ndim]
    _check(layout in layouts, "Only supports %s layout for now"
           % ' and '.join("'%s'" % l for l in layouts))
    return _tuple_of(kernel_size, ndim, 'kernel_size')


class Conv1D(_Conv):
    """1-D convolution over (batch, channels, width) inputs."""

    def __init__(self, channels, kernel_size, strides=1, padding=0, dilation=1,
                 groups=1, layout='NCW', activation=None, use_bias=True,
                 weight_initializer=None, bias_initializer='zeros',
                 in_channels=0, **kwargs):
        kernel_size = _conv_args(1, layout, kernel_size)
        op_name = kwargs.pop('op_name', 'Convolution')
        super(Conv1D, self).__init__(
            channels, kernel_size, strides, padding, dilation, groups, layout,
            in_channels, activation, use_bias, weight_initializer, bias_initializer,
            op_name, **kwargs)


class Conv2D(_Conv):
    """2-D convolution over NCHW (or NHWC) inputs."""

    def __init__(self, channels, kernel_size, strides=(1, 1), padding=(0, 0),
                 dilation=(1, 1), groups=1, layout='NCHW',
                 activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer='zeros', in_channels=0, **kwargs):
        kernel_size = _conv_args(2, layout, kernel_size)
        op_name = kwargs.pop('op_name', 'Convolution')
        super(Conv2D, self).__init__(
            channels, kernel_size, strides, padding, dilation, groups, layout,
            in_channels, activation, use_bias, weight_initializer, bias_initializer,
            op_name, **kwargs)


class Conv3D(_Conv):
    """3-D convolution over NCDHW (or NDHWC) inputs."""

    def __init__(self, channels, kernel_size, strides=(1, 1, 1), padding=(0, 0, 0),
                 dilation=(1, 1, 1), groups=1, layout='NCDHW', activation=None,
                 use_bias=True, weight_initializer=None, bias_initializer='zeros',
                 in_channels=0, **kwargs):
        kernel_size = _conv_args(3, layout, kernel_size)
        op_name = kwargs.pop('op_name', 'Convolution')
        super(Conv3D, self).__init__(
            channels, kernel_size, strides, padding, dilation, groups, layout,
            in_channels, activation, use_bias, weight_initializer, bias_initializer,
            op_name, **kwargs)


class _ConvTranspose(_Conv):
    """A transposed convolution; output_padding adds to one side of the output size."""

    def __init__(self, ndim, channels, kernel_size, strides, padding, output_padding,
                 dilation, groups, layout, activation, use_bias, weight_initializer,
                 bias_initializer, in_channels, **kwargs):
        kernel_size = _conv_args(ndim, layout, kernel_size)
        output_padding = _tuple_of(output_padding, ndim, 'output_padding')
        op_name = kwargs.pop('op_name', 'Deconvolution')
        super(_ConvTranspose, self).__init__(
            channels, kernel_size, strides, padding, dilation, groups, layout,
            in_channels, activation, use_bias, weight_initializer, bias_initializer,
            op_name=op_name, adj=output_padding, **kwargs)
        self.outpad = output_padding


class Conv1DTranspose(_ConvTranspose):
    """1-D transposed convolution (NCW)."""

    def __init__(self, channels, kernel_size, strides=1, padding=0, output_padding=0,
                 dilation=1, groups=1, layout='NCW', activation=None, use_bias=True,
                 weight_initializer=None, bias_initializer='zeros',
                 in_channels=0, **kwargs):
        super(Conv1DTranspose, self).__init__(
            1, channels, kernel_size, strides, padding, output_padding, dilation, groups,
            layout, activation, use_bias, weight_initializer, bias_initializer,
            in_channels, **kwargs)


class Conv2DTranspose(_ConvTranspose):
    """2-D transposed convolution (NCHW)."""

    def __init__(self, channels, kernel_size, strides=(1, 1), padding=(0, 0),
                 output_padding=(0, 0), dilation=(1, 1), groups=1, layout='NCHW',
                 activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer='zeros', in_channels=0, **kwargs):
        super(Conv2DTranspose, self).__init__(
            2, channels, kernel_size, strides, padding, output_padding, dilation, groups,
            layout, activation, use_bias, weight_initializer, bias_initializer,
            in_channels, **kwargs)


class Conv3DTranspose(_ConvTranspose):
    """3-D transposed convolution (NCDHW)."""

    def __init__(self, channels, kernel_size, strides=(1, 1, 1), padding=(0, 0, 0),
                 output_padding=(0, 0, 0), dilation=(1, 1, 1), groups=1, layout='NCDHW',
                 activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer='zeros', in_channels=0, **kwargs):
        super(Conv3DTranspose, self).__init__(
            3, channels, kernel_size, strides, padding, output_padding, dilation, groups,
            layout, activation, use_bias, weight_initializer, bias_initializer,
            in_channels, **kwargs)


class _Pooling(HybridBlock):
    """Max or average pooling; ceil_mode rounds the output size up (pooling_convention
    'full'); global pooling reduces every spatial axis to 1."""

    def __init__(self, pool_size, strides, padding, ceil_mode, global_pool,
                 pool_type, layout, count_include_pad=None, **kwargs):
        super(_Pooling, self).__init__(**kwargs)
        ndim = len(pool_size)
        strides = pool_size if strides is None else _tuple_of(strides, ndim, 'strides')
        self._kwargs = {
            'kernel': pool_size, 'stride': strides,
            'pad': _tuple_of(padding, ndim, 'padding'),
            'global_pool': global_pool, 'pool_type': pool_type, 'layout': layout,
            'pooling_convention': 'full' if ceil_mode else 'valid'}
        if count_include_pad is not None:
            self._kwargs['count_include_pad'] = count_include_pad

    def _alias(self):
        return 'pool'

    def hybrid_forward(self, F, x):
        return _call_op(self, F.Pooling, x, name='fwd', **self._kwargs)

    def __repr__(self):
        s = '{name}(size={kernel}, stride={stride}, padding={pad}, ceil_mode={ceil_mode}'
        s += ', global_pool={global_pool}, pool_type={pool_type}, layout={layout})'
        return s.format(name=type(self).__name__,
                        ceil_mode=self._kwargs['pooling_convention'] == 'full',
                        **self._kwargs)


_POOL_LAYOUTS = {1: ('NCW', 'NWC'), 2: ('NCHW', 'NHWC'), 3: ('NCDHW', 'NDHWC')}


def _pool_size(ndim, layout, pool_size):
    layouts = _POOL_LAYOUTS[ndim]
    _check(layout in layouts, "Only %s and %s layouts are valid for %dD Pooling"
           % (layouts[0], layouts[1], ndim))
    return _tuple_of(pool_size, ndim, 'pool_size')


class MaxPool1D(_Pooling):
    """Max pooling over the width of (N, C, W) inputs."""

    def __init__(self, pool_size=2, strides=None, padding=0, layout='NCW',
                 ceil_mode=False, **kwargs):
        super(MaxPool1D, self).__init__(_pool_size(1, layout, pool_size), strides, padding,
                                        ceil_mode, False, 'max', layout, **kwargs)


class MaxPool2D(_Pooling):
    """Max pooling over height and width."""

    def __init__(self, pool_size=(2, 2), strides=None, padding=0, layout='NCHW',
                 ceil_mode=False, **kwargs):
        super(MaxPool2D, self).__init__(_pool_size(2, layout, pool_size), strides, padding,
                                        ceil_mode, False, 'max', layout, **kwargs)


class MaxPool3D(_Pooling):
    """Max pooling over depth, height and width."""

    def __init__(self, pool_size=(2, 2, 2), strides=None, padding=0,
                 ceil_mode=False, layout='NCDHW', **kwargs):
        super(MaxPool3D, self).__init__(_pool_size(3, layout, pool_size), strides, padding,
                                        ceil_mode, False, 'max', layout, **kwargs)


class AvgPool1D(_Pooling):
    """Average pooling over the width; count_include_pad counts padded zeros."""

    def __init__(self, pool_size=2, strides=None, padding=0, layout='NCW',
                 ceil_mode=False, count_include_pad=True, **kwargs):
        super(AvgPool1D, self).__init__(_pool_size(1, layout, pool_size), strides, padding,
                                        ceil_mode, False, 'avg', layout, count_include_pad,
                                        **kwargs)


class AvgPool2D(_Pooling):
    """Average pooling over height and width; count_include_pad counts padded zeros."""

    def __init__(self, pool_size=(2, 2), strides=None, padding=0,
                 ceil_mode=False, layout='NCHW', count_include_pad=True, **kwargs):
        super(AvgPool2D, self).__init__(_pool_size(2, layout, pool_size), strides, padding,
                                        ceil_mode, False, 'avg', layout, count_include_pad,
                                        **kwargs)


class AvgPool3D(_Pooling):
    """Average pooling over depth, height and width."""

    def __init__(self, pool_size=(2, 2, 2), strides=None, padding=0,
                 ceil_mode=False, layout='NCDHW', count_include_pad=True, **kwargs):
        super(AvgPool3D, self).__init__(_pool_size(3, layout, pool_size), strides, padding,
                                        ceil_mode, False, 'avg', layout, count_include_pad,
                                        **kwargs)


class _GlobalPooling(_Pooling):
    def __init__(self, ndim, pool_type, layout, **kwargs):
        super(_GlobalPooling, self).__init__(_pool_size(ndim, layout, 1), None, 0, True, True,
                                             pool_type, layout, **kwargs)


class GlobalMaxPool1D(_GlobalPooling):
    """The maximum over the width: (N, C, W) -> (N, C, 1)."""

    def __init__(self, layout='NCW', **kwargs):
        super(GlobalMaxPool1D, self).__init__(1, 'max', layout, **kwargs)


class GlobalMaxPool2D(_GlobalPooling):
    """The maximum over height and width: (N, C, H, W) -> (N, C, 1, 1)."""

    def __init__(self, layout='NCHW', **kwargs):
        super(GlobalMaxPool2D, self).__init__(2, 'max', layout, **kwargs)


class GlobalMaxPool3D(_GlobalPooling):
    """The maximum over depth, height and width."""

    def __init__(self, layout='NCDHW', **kwargs):
        super(GlobalMaxPool3D, self).__init__(3, 'max', layout, **kwargs)


class GlobalAvgPool1D(_GlobalPooling):
    """The mean over the width: (N, C, W) -> (N, C, 1)."""

    def __init__(self, layout='NCW', **kwargs):
        super(GlobalAvgPool1D, self).__init__(1, 'avg', layout, **kwargs)


class GlobalAvgPool2D(_GlobalPooling):
    """The mean over height and width: (N, C, H, W) -> (N, C, 1, 1)."""

    def __init__(self, layout='NCHW', **kwargs):
        super(GlobalAvgPool2D, self).__init__(2, 'avg', layout, **kwargs)


class GlobalAvgPool3D(_GlobalPooling):
    """The mean over depth, height and width."""

    def __init__(self, layout='NCDHW', **kwargs):
        super(GlobalAvgPool3D, self).__init__(3, 'avg', layout, **kwargs)


class ReflectionPad2D(HybridBlock):
    """Pads the H and W axes of an NCHW input by reflection; `padding` is a number (all
    four sides) or the 8-tuple pad_width of mx.nd.pad."""

    def __init__(self, padding=0, **kwargs):
        super(ReflectionPad2D, self).__init__(**kwargs)
        if isinstance(padding, numeric_types):
            padding = (0, 0, 0, 0, padding, padding, padding, padding)
        _check(len(padding) == 8, "ReflectionPad2D: padding must be a number or 8 ints, "
                                  "given %s" % (padding,))
        self._padding = padding

    def hybrid_forward(self, F, x):
        return _call_op(self, F.pad, x, mode='reflect', pad_width=self._padding)
