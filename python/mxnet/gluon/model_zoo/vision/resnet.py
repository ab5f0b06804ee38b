"""ResNet V1 ("Deep Residual Learning for Image Recognition", He et al. 2015) and V2 ("Identity
Mappings in Deep Residual Networks", He et al. 2016), with basic (18/34 layers) and bottleneck
(50/101/152 layers) residual blocks."""
import os

from ....context import cpu
from .... import base
from ...block import HybridBlock
from ... import nn
from ..model_store import _load_pretrained

__all__ = ['ResNetV1', 'ResNetV2',
           'BasicBlockV1', 'BasicBlockV2',
           'BottleneckV1', 'BottleneckV2',
           'resnet18_v1', 'resnet34_v1', 'resnet50_v1', 'resnet101_v1', 'resnet152_v1',
           'resnet18_v2', 'resnet34_v2', 'resnet50_v2', 'resnet101_v2', 'resnet152_v2',
           'get_resnet']


def _conv3x3(channels, stride, in_channels):
    return nn.Conv2D(channels, kernel_size=3, strides=stride, padding=1,
                     use_bias=False, in_channels=in_channels)


def _projection_v1(channels, stride, in_channels):
    """The V1 shortcut when the shape changes: 1x1 convolution then BatchNorm."""
    shortcut = nn.HybridSequential(prefix='')
    shortcut.add(nn.Conv2D(channels, kernel_size=1, strides=stride, use_bias=False,
                           in_channels=in_channels))
    shortcut.add(nn.BatchNorm())
    return shortcut


class _ResidualV1(HybridBlock):
    """relu(body(x) + shortcut(x)), the shortcut being the identity or a projection."""

    def hybrid_forward(self, F, x):
        shortcut = self.downsample(x) if self.downsample else x
        return F.Activation(self.body(x) + shortcut, act_type='relu')


class BasicBlockV1(_ResidualV1):
    """Two 3x3 convolutions with BatchNorm (ResNet V1 18 and 34).

    channels: output channels; stride: stride of the first convolution; downsample: project
    the shortcut (needed when stride or channels change); in_channels: 0 to infer."""

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super(BasicBlockV1, self).__init__(**kwargs)
        self.body = nn.HybridSequential(prefix='')
        self.body.add(_conv3x3(channels, stride, in_channels))
        self.body.add(nn.BatchNorm())
        self.body.add(nn.Activation('relu'))
        self.body.add(_conv3x3(channels, 1, channels))
        self.body.add(nn.BatchNorm())
        self.downsample = _projection_v1(channels, stride, in_channels) if downsample else None


class BottleneckV1(_ResidualV1):
    """1x1 (channels/4, strided), 3x3 and 1x1 (channels) convolutions with BatchNorm (ResNet V1
    50, 101, 152). Arguments as for BasicBlockV1."""

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super(BottleneckV1, self).__init__(**kwargs)
        self.body = nn.HybridSequential(prefix='')
        self.body.add(nn.Conv2D(channels // 4, kernel_size=1, strides=stride))
        self.body.add(nn.BatchNorm())
        self.body.add(nn.Activation('relu'))
        self.body.add(_conv3x3(channels // 4, 1, channels // 4))
        self.body.add(nn.BatchNorm())
        self.body.add(nn.Activation('relu'))
        self.body.add(nn.Conv2D(channels, kernel_size=1, strides=1))
        self.body.add(nn.BatchNorm())
        self.downsample = _projection_v1(channels, stride, in_channels) if downsample else None


class _ResidualV2(HybridBlock):
    """Pre-activation: each convolution i is preceded by bn_i and relu; the projection
    shortcut (when present) sees the first activated input."""

    def _set_shortcut(self, channels, stride, downsample, in_channels):
        self.downsample = nn.Conv2D(channels, 1, stride, use_bias=False,
                                    in_channels=in_channels) if downsample else None

    def hybrid_forward(self, F, x):
        shortcut = x
        for i, (bn, conv) in enumerate(self._bn_conv_pairs()):
            x = F.Activation(bn(x), act_type='relu')
            if i == 0 and self.downsample:
                shortcut = self.downsample(x)
            x = conv(x)
        return x + shortcut


class BasicBlockV2(_ResidualV2):
    """Two pre-activated 3x3 convolutions (ResNet V2 18 and 34). Arguments as for
    BasicBlockV1."""

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super(BasicBlockV2, self).__init__(**kwargs)
        self.bn1 = nn.BatchNorm()
        self.conv1 = _conv3x3(channels, stride, in_channels)
        self.bn2 = nn.BatchNorm()
        self.conv2 = _conv3x3(channels, 1, channels)
        self._set_shortcut(channels, stride, downsample, in_channels)

    def _bn_conv_pairs(self):
        return [(self.bn1, self.conv1), (self.bn2, self.conv2)]


class BottleneckV2(_ResidualV2):
    """Pre-activated 1x1, 3x3 (strided) and 1x1 convolutions (ResNet V2 50, 101, 152).
    Arguments as for BasicBlockV1."""

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super(BottleneckV2, self).__init__(**kwargs)
        self.bn1 = nn.BatchNorm()
        self.conv1 = nn.Conv2D(channels // 4, kernel_size=1, strides=1, use_bias=False)
        self.bn2 = nn.BatchNorm()
        self.conv2 = _conv3x3(channels // 4, stride, channels // 4)
        self.bn3 = nn.BatchNorm()
        self.conv3 = nn.Conv2D(channels, kernel_size=1, strides=1, use_bias=False)
        self._set_shortcut(channels, stride, downsample, in_channels)

    def _bn_conv_pairs(self):
        return [(self.bn1, self.conv1), (self.bn2, self.conv2), (self.bn3, self.conv3)]


def _add_stem(features, channels, thumbnail):
    """The input layers: one 3x3 convolution for small (thumbnail) images, else a strided 7x7
    convolution, BatchNorm, relu and a 3x3 max pooling."""
    if thumbnail:
        features.add(_conv3x3(channels, 1, 0))
    else:
        features.add(nn.Conv2D(channels, 7, 2, 3, use_bias=False))
        features.add(nn.BatchNorm())
        features.add(nn.Activation('relu'))
        features.add(nn.MaxPool2D(3, 2, 1))


def _make_stage(block, num_blocks, channels, stride, stage_index, in_channels):
    """Stage `stage_index` ('stage<i>_' prefix): the first block changes stride/channels."""
    stage = nn.HybridSequential(prefix='stage%d_' % stage_index)
    with stage.name_scope():
        stage.add(block(channels, stride, channels != in_channels, in_channels=in_channels,
                        prefix=''))
        for _ in range(num_blocks - 1):
            stage.add(block(channels, 1, False, in_channels=channels, prefix=''))
    return stage


def _check_spec(layers, channels):
    if len(layers) != len(channels) - 1:
        raise base.InvalidConfigError(
            'ResNet: channels must have one more entry than layers (the stem\'s), got '
            '%d layers and %d channels' % (len(layers), len(channels)))


class _ResNet(HybridBlock):
    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


class ResNetV1(_ResNet):
    """ResNet V1. block: BasicBlockV1 or BottleneckV1; layers: blocks per stage; channels:
    the stem's channels then each stage's; classes: outputs; thumbnail: 3x3 stem for small
    images."""

    def __init__(self, block, layers, channels, classes=1000, thumbnail=False, **kwargs):
        super(ResNetV1, self).__init__(**kwargs)
        _check_spec(layers, channels)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            _add_stem(self.features, channels[0], thumbnail)
            for i, num_blocks in enumerate(layers):
                self.features.add(_make_stage(block, num_blocks, channels[i + 1],
                                              1 if i == 0 else 2, i + 1, channels[i]))
            self.features.add(nn.GlobalAvgPool2D())
            self.output = nn.Dense(classes, in_units=channels[-1])


class ResNetV2(_ResNet):
    """ResNet V2 (pre-activation); the input is first normalized by a BatchNorm without
    scale or shift. Arguments as for ResNetV1 (block: BasicBlockV2 or BottleneckV2)."""

    def __init__(self, block, layers, channels, classes=1000, thumbnail=False, **kwargs):
        super(ResNetV2, self).__init__(**kwargs)
        _check_spec(layers, channels)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            self.features.add(nn.BatchNorm(scale=False, center=False))
            _add_stem(self.features, channels[0], thumbnail)
            for i, num_blocks in enumerate(layers):
                self.features.add(_make_stage(block, num_blocks, channels[i + 1],
                                              1 if i == 0 else 2, i + 1, channels[i]))
            self.features.add(nn.BatchNorm())
            self.features.add(nn.Activation('relu'))
            self.features.add(nn.GlobalAvgPool2D())
            self.features.add(nn.Flatten())
            self.output = nn.Dense(classes, in_units=channels[-1])


# depth -> (block kind, blocks per stage, stem channels + stage channels)
resnet_spec = {18: ('basic_block', [2, 2, 2, 2], [64, 64, 128, 256, 512]),
               34: ('basic_block', [3, 4, 6, 3], [64, 64, 128, 256, 512]),
               50: ('bottle_neck', [3, 4, 6, 3], [64, 256, 512, 1024, 2048]),
               101: ('bottle_neck', [3, 4, 23, 3], [64, 256, 512, 1024, 2048]),
               152: ('bottle_neck', [3, 8, 36, 3], [64, 256, 512, 1024, 2048])}

resnet_net_versions = [ResNetV1, ResNetV2]
resnet_block_versions = [{'basic_block': BasicBlockV1, 'bottle_neck': BottleneckV1},
                         {'basic_block': BasicBlockV2, 'bottle_neck': BottleneckV2}]


def get_resnet(version, num_layers, pretrained=False, ctx=cpu(),
               root=os.path.join(base.data_dir(), 'models'), **kwargs):
    """ResNet `version` (1 or 2) with `num_layers` (18, 34, 50, 101 or 152) layers;
    pretrained loads the published weights from `root` (see model_store) onto `ctx`."""
    if num_layers not in resnet_spec:
        raise base.InvalidConfigError('Invalid number of layers: %d. Options are %s' % (
            num_layers, str(resnet_spec.keys())))
    if version not in (1, 2):
        raise base.InvalidConfigError(
            'Invalid resnet version: %d. Options are 1 and 2.' % version)
    block_kind, layers, channels = resnet_spec[num_layers]
    net = resnet_net_versions[version - 1](resnet_block_versions[version - 1][block_kind],
                                           layers, channels, **kwargs)
    if pretrained:
        _load_pretrained(net, 'resnet%d_v%d' % (num_layers, version), ctx, root)
    return net


def _constructor(version, num_layers):
    def make(**kwargs):
        return get_resnet(version, num_layers, **kwargs)
    make.__name__ = 'resnet%d_v%d' % (num_layers, version)
    make.__doc__ = ('ResNet-%d V%d. pretrained (default False): load the published weights; '
                    'ctx: where to load them; root (default $MXNET_HOME/models): where they '
                    'are kept; other arguments go to ResNetV%d.'
                    % (num_layers, version, version))
    return make


resnet18_v1 = _constructor(1, 18)
resnet34_v1 = _constructor(1, 34)
resnet50_v1 = _constructor(1, 50)
resnet101_v1 = _constructor(1, 101)
resnet152_v1 = _constructor(1, 152)
resnet18_v2 = _constructor(2, 18)
resnet34_v2 = _constructor(2, 34)
resnet50_v2 = _constructor(2, 50)
resnet101_v2 = _constructor(2, 101)
resnet152_v2 = _constructor(2, 152)
