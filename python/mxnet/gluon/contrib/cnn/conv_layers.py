"""DeformableConvolution (DCNv1) and ModulatedDeformableConvolution (DCNv2) layers: a plain
convolution predicts the offsets (and, modulated, the masks) from the input, and the
deformable convolution operator samples the input at the moved taps."""
from ....base import numeric_types
from ...block import HybridBlock
from ...nn import Activation

__all__ = ['DeformableConvolution', 'ModulatedDeformableConvolution']


def _pair(value, n):
    return (value,) * n if isinstance(value, numeric_types) else tuple(value)


class _DeformableConvBase(HybridBlock):
    """Shared by both layers: parameters offset_weight / offset_bias (the offset-predicting
    convolution, `offset_channels` filters) and deformable_conv_weight / deformable_conv_bias,
    registered in `order`; the input channels are inferred at the first forward when
    in_channels is 0."""
    _op = None
    _taps_per_group = 2  # offset channels per kernel tap and deformable group

    def __init__(self, channels, kernel_size, strides, padding, dilation, groups,
                 num_deformable_group, layout, use_bias, in_channels, activation,
                 weight_initializer, bias_initializer, offset_weight_initializer,
                 offset_bias_initializer, offset_use_bias, op_name, adj, prefix, params,
                 offset_first):
        super(_DeformableConvBase, self).__init__(prefix=prefix, params=params)
        with self.name_scope():
            assert layout in ('NCHW', 'NHWC'), "Only supports 'NCHW' and 'NHWC' layout for now"
            kernel_size = _pair(kernel_size, 2)
            strides = _pair(strides, len(kernel_size))
            padding = _pair(padding, len(kernel_size))
            dilation = _pair(dilation, len(kernel_size))
            self._channels = channels
            self._in_channels = in_channels
            self._op_name = op_name
            taps = kernel_size[0] * kernel_size[1]
            offset_channels = num_deformable_group * self._taps_per_group * taps
            self.offset_split_index = num_deformable_group * 2 * taps
            self._kwargs_offset = {
                'kernel': kernel_size, 'stride': strides, 'dilate': dilation, 'pad': padding,
                'num_filter': offset_channels, 'num_group': groups,
                'no_bias': not offset_use_bias, 'layout': layout}
            self._kwargs_deformable_conv = {
                'kernel': kernel_size, 'stride': strides, 'dilate': dilation, 'pad': padding,
                'num_filter': channels, 'num_group': groups,
                'num_deformable_group': num_deformable_group, 'no_bias': not use_bias,
                'layout': layout}
            if adj:
                self._kwargs_offset['adj'] = adj
                self._kwargs_deformable_conv['adj'] = adj
            group_in = in_channels // groups if in_channels else 0
            channel_last = layout == 'NHWC'
            offset_shape = ((offset_channels,) + kernel_size + (group_in,) if channel_last
                            else (offset_channels, group_in) + kernel_size)

            def add_offset_params():
                self.offset_weight = self.params.get('offset_weight', shape=offset_shape,
                                                     init=offset_weight_initializer,
                                                     allow_deferred_init=True)
                self.offset_bias = self.params.get(
                    'offset_bias', shape=(offset_channels,), init=offset_bias_initializer,
                    allow_deferred_init=True) if offset_use_bias else None

            def add_conv_params():
                self.deformable_conv_weight = self.params.get(
                    'deformable_conv_weight', shape=(channels, group_in) + kernel_size,
                    init=weight_initializer, allow_deferred_init=True)
                self.deformable_conv_bias = self.params.get(
                    'deformable_conv_bias', shape=(channels,), init=bias_initializer,
                    allow_deferred_init=True) if use_bias else None

            for add in ((add_offset_params, add_conv_params) if offset_first
                        else (add_conv_params, add_offset_params)):
                add()
            self.act = Activation(activation, prefix=activation + '_') if activation else None

    def infer_shape(self, x, *args):
        layout = self._kwargs_offset['layout']
        groups = self._kwargs_offset['num_group']
        group_in = x.shape[layout.find('C')] // groups
        shape = list(self.offset_weight.shape)
        shape[-1 if layout == 'NHWC' else 1] = group_in
        self.offset_weight.shape = tuple(shape)
        shape = list(self.deformable_conv_weight.shape)
        shape[1] = group_in
        self.deformable_conv_weight.shape = tuple(shape)

    def _offsets(self, F, x, offset_weight, offset_bias):
        if offset_bias is None:
            return F.Convolution(x, offset_weight, cudnn_off=True, **self._kwargs_offset)
        return F.Convolution(x, offset_weight, offset_bias, cudnn_off=True,
                             **self._kwargs_offset)

    def _finish(self, out):
        return self.act(out) if self.act else out

    def __repr__(self):
        kw = self._kwargs_deformable_conv
        n = len(kw['kernel'])
        s = '{name}({mapping}, kernel_size={kernel}, stride={stride}'
        if kw['pad'] != (0,) * n:
            s += ', padding={pad}'
        if kw['dilate'] != (1,) * n:
            s += ', dilation={dilate}'
        if kw['num_group'] != 1:
            s += ', groups={num_group}'
        if self.deformable_conv_bias is None:
            s += ', bias=False'
        if self.act:
            s += ', {}'.format(self.act)
        s += ')'
        shape = self.deformable_conv_weight.shape
        return s.format(name=type(self).__name__,
                        mapping='{0} -> {1}'.format(shape[1] if shape[1] else None, shape[0]),
                        **kw)


class DeformableConvolution(_DeformableConvBase):
    """2-D deformable convolution (https://arxiv.org/abs/1703.06211): a convolution with the
    same kernel, stride, padding and dilation predicts 2 * kh * kw * num_deformable_group
    offset channels from the input, and `contrib.DeformableConvolution` samples the input at
    the offset taps.

    Parameters as MXNet 1.9.1: channels, kernel_size=(1, 1), strides=(1, 1),
    padding=(0, 0), dilation=(1, 1), groups=1, num_deformable_group=1, layout='NCHW' (the
    operator computes NCHW only), use_bias=True, in_channels=0 (inferred at the first forward),
    activation=None, weight_initializer=None, bias_initializer='zeros',
    offset_weight_initializer='zeros', offset_bias_initializer='zeros', offset_use_bias=True.
    Parameters: offset_weight, offset_bias, deformable_conv_weight, deformable_conv_bias."""

    def __init__(self, channels, kernel_size=(1, 1), strides=(1, 1), padding=(0, 0),
                 dilation=(1, 1), groups=1, num_deformable_group=1, layout='NCHW',
                 use_bias=True, in_channels=0, activation=None, weight_initializer=None,
                 bias_initializer='zeros', offset_weight_initializer='zeros',
                 offset_bias_initializer='zeros', offset_use_bias=True,
                 op_name='DeformableConvolution', adj=None, prefix=None, params=None):
        super(DeformableConvolution, self).__init__(
            channels, kernel_size, strides, padding, dilation, groups, num_deformable_group,
            layout, use_bias, in_channels, activation, weight_initializer, bias_initializer,
            offset_weight_initializer, offset_bias_initializer, offset_use_bias, op_name, adj,
            prefix, params, offset_first=True)

    def _alias(self):
        return 'deformable_conv'

    def hybrid_forward(self, F, x, offset_weight, deformable_conv_weight, offset_bias=None,
                       deformable_conv_bias=None):
        offset = self._offsets(F, x, offset_weight, offset_bias)
        extra = {} if deformable_conv_bias is None else {'bias': deformable_conv_bias}
        out = F.contrib.DeformableConvolution(data=x, offset=offset,
                                              weight=deformable_conv_weight, name='fwd',
                                              **dict(extra, **self._kwargs_deformable_conv))
        return self._finish(out)


class ModulatedDeformableConvolution(_DeformableConvBase):
    """2-D modulated deformable convolution (https://arxiv.org/abs/1811.11168): the
    offset-predicting convolution gives 3 * kh * kw * num_deformable_group channels, the first
    two thirds the offsets and the rest, through 2 * sigmoid, the masks of
    `contrib.ModulatedDeformableConvolution`.

    Parameters as DeformableConvolution; its parameters are registered in 1.9.1's order:
    deformable_conv_weight, deformable_conv_bias, offset_weight, offset_bias."""
    _taps_per_group = 3

    def __init__(self, channels, kernel_size=(1, 1), strides=(1, 1), padding=(0, 0),
                 dilation=(1, 1), groups=1, num_deformable_group=1, layout='NCHW',
                 use_bias=True, in_channels=0, activation=None, weight_initializer=None,
                 bias_initializer='zeros', offset_weight_initializer='zeros',
                 offset_bias_initializer='zeros', offset_use_bias=True,
                 op_name='ModulatedDeformableConvolution', adj=None, prefix=None, params=None):
        super(ModulatedDeformableConvolution, self).__init__(
            channels, kernel_size, strides, padding, dilation, groups, num_deformable_group,
            layout, use_bias, in_channels, activation, weight_initializer, bias_initializer,
            offset_weight_initializer, offset_bias_initializer, offset_use_bias, op_name, adj,
            prefix, params, offset_first=False)

    def _alias(self):
        return 'modulated_deformable_conv'

    def hybrid_forward(self, F, x, offset_weight, deformable_conv_weight, offset_bias=None,
                       deformable_conv_bias=None):
        offset = self._offsets(F, x, offset_weight, offset_bias)
        offset_t = F.slice_axis(offset, axis=1, begin=0, end=self.offset_split_index)
        mask = F.sigmoid(F.slice_axis(offset, axis=1, begin=self.offset_split_index,
                                      end=None)) * 2
        extra = {} if deformable_conv_bias is None else {'bias': deformable_conv_bias}
        out = F.contrib.ModulatedDeformableConvolution(
            data=x, offset=offset_t, mask=mask, weight=deformable_conv_weight, name='fwd',
            **dict(extra, **self._kwargs_deformable_conv))
        return self._finish(out)
