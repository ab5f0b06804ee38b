"""VGG ("Very Deep Convolutional Networks for Large-Scale Image Recognition", Simonyan and
Zisserman 2014), 11/13/16/19 layers, optionally with BatchNorm after each convolution."""
import os

from ....context import cpu
from .... import base
from ....initializer import Xavier
from ...block import HybridBlock
from ... import nn
from ..model_store import _load_pretrained

__all__ = ['VGG',
           'vgg11', 'vgg13', 'vgg16', 'vgg19',
           'vgg11_bn', 'vgg13_bn', 'vgg16_bn', 'vgg19_bn',
           'get_vgg']


def _dense_4096():
    return nn.Dense(4096, activation='relu', weight_initializer='normal',
                    bias_initializer='zeros')


class VGG(HybridBlock):
    """VGG. layers: convolutions per group; filters: channels per group (one max pooling
    ends each group); classes: outputs; batch_norm: BatchNorm after each convolution."""

    def __init__(self, layers, filters, classes=1000, batch_norm=False, **kwargs):
        super(VGG, self).__init__(**kwargs)
        if len(layers) != len(filters):
            raise base.InvalidConfigError(
                'VGG: layers and filters must have the same length, got %d and %d'
                % (len(layers), len(filters)))
        with self.name_scope():
            self.features = self._make_features(layers, filters, batch_norm)
            self.features.add(_dense_4096())
            self.features.add(nn.Dropout(rate=0.5))
            self.features.add(_dense_4096())
            self.features.add(nn.Dropout(rate=0.5))
            self.output = nn.Dense(classes, weight_initializer='normal',
                                   bias_initializer='zeros')

    def _make_features(self, layers, filters, batch_norm):
        features = nn.HybridSequential(prefix='')
        for num_convs, channels in zip(layers, filters):
            for _ in range(num_convs):
                features.add(nn.Conv2D(channels, kernel_size=3, padding=1,
                                       weight_initializer=Xavier(rnd_type='gaussian',
                                                                 factor_type='out',
                                                                 magnitude=2),
                                       bias_initializer='zeros'))
                if batch_norm:
                    features.add(nn.BatchNorm())
                features.add(nn.Activation('relu'))
            features.add(nn.MaxPool2D(strides=2))
        return features

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


# depth -> (convolutions per group, channels per group)
vgg_spec = {11: ([1, 1, 2, 2, 2], [64, 128, 256, 512, 512]),
            13: ([2, 2, 2, 2, 2], [64, 128, 256, 512, 512]),
            16: ([2, 2, 3, 3, 3], [64, 128, 256, 512, 512]),
            19: ([2, 2, 4, 4, 4], [64, 128, 256, 512, 512])}


def get_vgg(num_layers, pretrained=False, ctx=cpu(),
            root=os.path.join(base.data_dir(), 'models'), **kwargs):
    """VGG with `num_layers` (11, 13, 16 or 19) layers (batch_norm=True for the BatchNorm
    variant); pretrained loads the published weights from `root` onto `ctx`."""
    if num_layers not in vgg_spec:
        raise base.InvalidConfigError('Invalid number of layers: %s. Options are %s' % (
            num_layers, sorted(vgg_spec)))
    layers, filters = vgg_spec[num_layers]
    net = VGG(layers, filters, **kwargs)
    if pretrained:
        suffix = '_bn' if kwargs.get('batch_norm') else ''
        _load_pretrained(net, 'vgg%d%s' % (num_layers, suffix), ctx, root)
    return net


def _constructor(num_layers, batch_norm):
    def make(**kwargs):
        if batch_norm:
            kwargs['batch_norm'] = True
        return get_vgg(num_layers, **kwargs)
    make.__name__ = 'vgg%d%s' % (num_layers, '_bn' if batch_norm else '')
    make.__doc__ = ('VGG-%d%s. pretrained (default False): load the published weights; ctx: '
                    'where to load them; root (default $MXNET_HOME/models): where they are '
                    'kept; other arguments go to VGG.'
                    % (num_layers, ' with BatchNorm' if batch_norm else ''))
    return make


vgg11 = _constructor(11, False)
vgg13 = _constructor(13, False)
vgg16 = _constructor(16, False)
vgg19 = _constructor(19, False)
vgg11_bn = _constructor(11, True)
vgg13_bn = _constructor(13, True)
vgg16_bn = _constructor(16, True)
vgg19_bn = _constructor(19, True)
