"""SqueezeNet 1.0 and 1.1 ("SqueezeNet: AlexNet-level accuracy with 50x fewer parameters and
<0.5MB model size", Iandola et al. 2016)."""
import os

from ....context import cpu
from .... import base
from ...block import HybridBlock
from ... import nn
from ...contrib.nn import HybridConcurrent
from ..model_store import _load_pretrained

__all__ = ['SqueezeNet', 'squeezenet1_0', 'squeezenet1_1']


def _conv_relu(channels, kernel_size, padding=0):
    out = nn.HybridSequential(prefix='')
    out.add(nn.Conv2D(channels, kernel_size, padding=padding))
    out.add(nn.Activation('relu'))
    return out


def _fire(squeeze_channels, expand1x1_channels, expand3x3_channels):
    """A fire module: a 1x1 squeeze, then 1x1 and 3x3 expansions concatenated."""
    out = nn.HybridSequential(prefix='')
    out.add(_conv_relu(squeeze_channels, 1))
    expand = HybridConcurrent(axis=1, prefix='')
    expand.add(_conv_relu(expand1x1_channels, 1))
    expand.add(_conv_relu(expand3x3_channels, 3, 1))
    out.add(expand)
    return out


def _pool():
    return nn.MaxPool2D(pool_size=3, strides=2, ceil_mode=True)


class SqueezeNet(HybridBlock):
    """SqueezeNet; version: '1.0' or '1.1'; classes: outputs."""

    def __init__(self, version, classes=1000, **kwargs):
        super(SqueezeNet, self).__init__(**kwargs)
        if version not in ['1.0', '1.1']:
            raise base.InvalidConfigError(
                'Unsupported SqueezeNet version {}: 1.0 or 1.1 expected'.format(version))
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            if version == '1.0':
                self.features.add(nn.Conv2D(96, kernel_size=7, strides=2))
                self.features.add(nn.Activation('relu'))
                for layer in [_pool(), _fire(16, 64, 64), _fire(16, 64, 64),
                              _fire(32, 128, 128), _pool(), _fire(32, 128, 128),
                              _fire(48, 192, 192), _fire(48, 192, 192), _fire(64, 256, 256),
                              _pool(), _fire(64, 256, 256)]:
                    self.features.add(layer)
            else:
                self.features.add(nn.Conv2D(64, kernel_size=3, strides=2))
                self.features.add(nn.Activation('relu'))
                for layer in [_pool(), _fire(16, 64, 64), _fire(16, 64, 64), _pool(),
                              _fire(32, 128, 128), _fire(32, 128, 128), _pool(),
                              _fire(48, 192, 192), _fire(48, 192, 192), _fire(64, 256, 256),
                              _fire(64, 256, 256)]:
                    self.features.add(layer)
            self.features.add(nn.Dropout(0.5))

            self.output = nn.HybridSequential(prefix='')
            self.output.add(nn.Conv2D(classes, kernel_size=1))
            self.output.add(nn.Activation('relu'))
            self.output.add(nn.AvgPool2D(13))
            self.output.add(nn.Flatten())

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def get_squeezenet(version, pretrained=False, ctx=cpu(),
                   root=os.path.join(base.data_dir(), 'models'), **kwargs):
    """SqueezeNet `version` ('1.0' or '1.1'); pretrained loads the published weights from
    `root` onto `ctx`."""
    net = SqueezeNet(version, **kwargs)
    if pretrained:
        _load_pretrained(net, 'squeezenet%s' % version, ctx, root)
    return net


def squeezenet1_0(**kwargs):
    """SqueezeNet 1.0; arguments as for get_squeezenet."""
    return get_squeezenet('1.0', **kwargs)


def squeezenet1_1(**kwargs):
    """SqueezeNet 1.1 (fewer computations than 1.0, same accuracy); arguments as for
    get_squeezenet."""
    return get_squeezenet('1.1', **kwargs)
