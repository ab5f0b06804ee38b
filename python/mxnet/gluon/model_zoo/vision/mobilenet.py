"""MobileNet ("MobileNets: Efficient Convolutional Neural Networks for Mobile Vision
Applications", Howard et al. 2017) and MobileNetV2 ("Inverted Residuals and Linear
Bottlenecks", Sandler et al. 2018), at width multipliers 1.0, 0.75, 0.5 and 0.25."""
import os

from ....context import cpu
from .... import base
from ...block import HybridBlock
from ... import nn
from ..model_store import _load_pretrained

__all__ = ['MobileNet', 'MobileNetV2', 'mobilenet1_0', 'mobilenet_v2_1_0', 'mobilenet0_75',
           'mobilenet_v2_0_75', 'mobilenet0_5', 'mobilenet_v2_0_5', 'mobilenet0_25',
           'mobilenet_v2_0_25', 'get_mobilenet', 'get_mobilenet_v2']


class RELU6(HybridBlock):
    """min(max(x, 0), 6)."""

    def __init__(self, **kwargs):
        super(RELU6, self).__init__(**kwargs)

    def hybrid_forward(self, F, x):
        return F.clip(x, 0, 6, name="relu6")


def _add_conv(out, channels=1, kernel=1, stride=1, pad=0,
              num_group=1, active=True, relu6=False):
    """Appends convolution (no bias), BatchNorm and, when `active`, relu or relu6 to `out`."""
    out.add(nn.Conv2D(channels, kernel, stride, pad, groups=num_group, use_bias=False))
    out.add(nn.BatchNorm(scale=True))
    if active:
        out.add(RELU6() if relu6 else nn.Activation('relu'))


def _add_conv_dw(out, dw_channels, channels, stride, relu6=False):
    """A depthwise 3x3 convolution then a pointwise 1x1 one."""
    _add_conv(out, channels=dw_channels, kernel=3, stride=stride, pad=1,
              num_group=dw_channels, relu6=relu6)
    _add_conv(out, channels=channels, relu6=relu6)


class LinearBottleneck(HybridBlock):
    """MobileNetV2's inverted residual: 1x1 expansion by `t`, depthwise 3x3 (stride
    `stride`), linear 1x1 projection to `channels`; the input is added back when the shapes
    agree."""

    def __init__(self, in_channels, channels, t, stride, **kwargs):
        super(LinearBottleneck, self).__init__(**kwargs)
        self.use_shortcut = stride == 1 and in_channels == channels
        with self.name_scope():
            self.out = nn.HybridSequential()
            _add_conv(self.out, in_channels * t, relu6=True)
            _add_conv(self.out, in_channels * t, kernel=3, stride=stride, pad=1,
                      num_group=in_channels * t, relu6=True)
            _add_conv(self.out, channels, active=False, relu6=True)

    def hybrid_forward(self, F, x):
        out = self.out(x)
        return F.elemwise_add(out, x) if self.use_shortcut else out


def _scaled(multiplier, channels):
    return [int(c * multiplier) for c in channels]


class MobileNet(HybridBlock):
    """MobileNet; multiplier: width multiplier of every layer; classes: outputs."""

    def __init__(self, multiplier=1.0, classes=1000, **kwargs):
        super(MobileNet, self).__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            with self.features.name_scope():
                _add_conv(self.features, channels=int(32 * multiplier), kernel=3, pad=1,
                          stride=2)
                dw_channels = _scaled(multiplier, [32, 64] + [128] * 2 + [256] * 2 +
                                      [512] * 6 + [1024])
                channels = _scaled(multiplier, [64] + [128] * 2 + [256] * 2 + [512] * 6 +
                                   [1024] * 2)
                strides = [1, 2] * 3 + [1] * 5 + [2, 1]
                for dwc, c, s in zip(dw_channels, channels, strides):
                    _add_conv_dw(self.features, dw_channels=dwc, channels=c, stride=s)
                self.features.add(nn.GlobalAvgPool2D())
                self.features.add(nn.Flatten())
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


class MobileNetV2(HybridBlock):
    """MobileNetV2; multiplier: width multiplier (the last 1280 channels grow only for
    multipliers above 1); classes: outputs."""

    def __init__(self, multiplier=1.0, classes=1000, **kwargs):
        super(MobileNetV2, self).__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='features_')
            with self.features.name_scope():
                _add_conv(self.features, int(32 * multiplier), kernel=3, stride=2, pad=1,
                          relu6=True)
                in_channels_group = _scaled(multiplier, [32] + [16] + [24] * 2 + [32] * 3 +
                                            [64] * 4 + [96] * 3 + [160] * 3)
                channels_group = _scaled(multiplier, [16] + [24] * 2 + [32] * 3 + [64] * 4 +
                                         [96] * 3 + [160] * 3 + [320])
                ts = [1] + [6] * 16
                strides = [1, 2] * 2 + [1, 1, 2] + [1] * 6 + [2] + [1] * 3
                for in_c, c, t, s in zip(in_channels_group, channels_group, ts, strides):
                    self.features.add(LinearBottleneck(in_channels=in_c, channels=c, t=t,
                                                       stride=s))
                last_channels = int(1280 * multiplier) if multiplier > 1.0 else 1280
                _add_conv(self.features, last_channels, relu6=True)
                self.features.add(nn.GlobalAvgPool2D())
            self.output = nn.HybridSequential(prefix='output_')
            with self.output.name_scope():
                self.output.add(nn.Conv2D(classes, 1, use_bias=False, prefix='pred_'),
                                nn.Flatten())

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def _version_suffix(multiplier):
    """'1.0', '0.75', '0.5', '0.25': the multiplier as the pretrained file names spell it."""
    suffix = '{0:.2f}'.format(multiplier)
    return suffix[:-1] if suffix in ('1.00', '0.50') else suffix


def get_mobilenet(multiplier, pretrained=False, ctx=cpu(),
                  root=os.path.join(base.data_dir(), 'models'), **kwargs):
    """MobileNet at width `multiplier`; pretrained loads the published weights from `root`
    onto `ctx`."""
    net = MobileNet(multiplier, **kwargs)
    if pretrained:
        _load_pretrained(net, 'mobilenet%s' % _version_suffix(multiplier), ctx, root)
    return net


def get_mobilenet_v2(multiplier, pretrained=False, ctx=cpu(),
                     root=os.path.join(base.data_dir(), 'models'), **kwargs):
    """MobileNetV2 at width `multiplier`; pretrained loads the published weights from
    `root` onto `ctx`."""
    net = MobileNetV2(multiplier, **kwargs)
    if pretrained:
        _load_pretrained(net, 'mobilenetv2_%s' % _version_suffix(multiplier), ctx, root)
    return net


def _constructor(get, multiplier, name):
    def make(**kwargs):
        return get(multiplier, **kwargs)
    make.__name__ = name
    make.__doc__ = ('%s with width multiplier %s; arguments as for %s.'
                    % ('MobileNetV2' if get is get_mobilenet_v2 else 'MobileNet', multiplier,
                       get.__name__))
    return make


mobilenet1_0 = _constructor(get_mobilenet, 1.0, 'mobilenet1_0')
mobilenet0_75 = _constructor(get_mobilenet, 0.75, 'mobilenet0_75')
mobilenet0_5 = _constructor(get_mobilenet, 0.5, 'mobilenet0_5')
mobilenet0_25 = _constructor(get_mobilenet, 0.25, 'mobilenet0_25')
mobilenet_v2_1_0 = _constructor(get_mobilenet_v2, 1.0, 'mobilenet_v2_1_0')
mobilenet_v2_0_75 = _constructor(get_mobilenet_v2, 0.75, 'mobilenet_v2_0_75')
mobilenet_v2_0_5 = _constructor(get_mobilenet_v2, 0.5, 'mobilenet_v2_0_5')
mobilenet_v2_0_25 = _constructor(get_mobilenet_v2, 0.25, 'mobilenet_v2_0_25')
