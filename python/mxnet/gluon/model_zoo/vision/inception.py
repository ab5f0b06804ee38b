"""Inception V3 ("Rethinking the Inception Architecture for Computer Vision", Szegedy et al.
2015); expects 299x299 inputs."""
import os

from ....context import cpu
from .... import base
from ...block import HybridBlock
from ... import nn
from ...contrib.nn import HybridConcurrent
from ..model_store import _load_pretrained

__all__ = ['Inception3', 'inception_v3']


def _basic_conv(**conv_kwargs):
    """Convolution without bias, BatchNorm (epsilon 1e-3), relu."""
    out = nn.HybridSequential(prefix='')
    out.add(nn.Conv2D(use_bias=False, **conv_kwargs))
    out.add(nn.BatchNorm(epsilon=0.001))
    out.add(nn.Activation('relu'))
    return out


def _branch(pool, *conv_settings):
    """An optional pooling ('avg': 3x3 stride 1 padded, 'max': 3x3 stride 2, None) followed
    by basic convolutions, each given as (channels, kernel_size, strides, padding) with None
    meaning the Conv2D default."""
    out = nn.HybridSequential(prefix='')
    if pool == 'avg':
        out.add(nn.AvgPool2D(pool_size=3, strides=1, padding=1))
    elif pool == 'max':
        out.add(nn.MaxPool2D(pool_size=3, strides=2))
    for setting in conv_settings:
        conv_kwargs = {key: value for key, value in
                       zip(['channels', 'kernel_size', 'strides', 'padding'], setting)
                       if value is not None}
        out.add(_basic_conv(**conv_kwargs))
    return out


def _concurrent(prefix, make_branches):
    """Branches (created by `make_branches` inside the new block's name scope) whose outputs
    are concatenated along channels."""
    out = HybridConcurrent(axis=1, prefix=prefix)
    with out.name_scope():
        for branch in make_branches():
            out.add(branch)
    return out


def _make_A(pool_features, prefix):
    return _concurrent(prefix, lambda: [
        _branch(None, (64, 1, None, None)),
        _branch(None, (48, 1, None, None), (64, 5, None, 2)),
        _branch(None, (64, 1, None, None), (96, 3, None, 1), (96, 3, None, 1)),
        _branch('avg', (pool_features, 1, None, None))])


def _make_B(prefix):
    return _concurrent(prefix, lambda: [
        _branch(None, (384, 3, 2, None)),
        _branch(None, (64, 1, None, None), (96, 3, None, 1), (96, 3, 2, None)),
        _branch('max')])


def _make_C(channels_7x7, prefix):
    c7 = channels_7x7
    return _concurrent(prefix, lambda: [
        _branch(None, (192, 1, None, None)),
        _branch(None, (c7, 1, None, None), (c7, (1, 7), None, (0, 3)),
                (192, (7, 1), None, (3, 0))),
        _branch(None, (c7, 1, None, None), (c7, (7, 1), None, (3, 0)),
                (c7, (1, 7), None, (0, 3)), (c7, (7, 1), None, (3, 0)),
                (192, (1, 7), None, (0, 3))),
        _branch('avg', (192, 1, None, None))])


def _make_D(prefix):
    return _concurrent(prefix, lambda: [
        _branch(None, (192, 1, None, None), (320, 3, 2, None)),
        _branch(None, (192, 1, None, None), (192, (1, 7), None, (0, 3)),
                (192, (7, 1), None, (3, 0)), (192, 3, 2, None)),
        _branch('max')])


def _split_1x3_3x1():
    """Parallel 1x3 and 3x1 convolutions (384 channels each), concatenated."""
    split = HybridConcurrent(axis=1, prefix='')
    split.add(_branch(None, (384, (1, 3), None, (0, 1))))
    split.add(_branch(None, (384, (3, 1), None, (1, 0))))
    return split


def _then_split(*conv_settings):
    out = nn.HybridSequential(prefix='')
    out.add(_branch(None, *conv_settings))
    out.add(_split_1x3_3x1())
    return out


def _make_E(prefix):
    return _concurrent(prefix, lambda: [
        _branch(None, (320, 1, None, None)),
        _then_split((384, 1, None, None)),
        _then_split((448, 1, None, None), (384, 3, None, 1)),
        _branch('avg', (192, 1, None, None))])


def make_aux(classes):
    """The auxiliary classifier head (built by MXNet 1.9.1 too, but not part of Inception3)."""
    out = nn.HybridSequential(prefix='')
    out.add(nn.AvgPool2D(pool_size=5, strides=3))
    out.add(_basic_conv(channels=128, kernel_size=1))
    out.add(_basic_conv(channels=768, kernel_size=5))
    out.add(nn.Flatten())
    out.add(nn.Dense(classes))
    return out


class Inception3(HybridBlock):
    """Inception V3 with `classes` outputs."""

    def __init__(self, classes=1000, **kwargs):
        super(Inception3, self).__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            self.features.add(_basic_conv(channels=32, kernel_size=3, strides=2))
            self.features.add(_basic_conv(channels=32, kernel_size=3))
            self.features.add(_basic_conv(channels=64, kernel_size=3, padding=1))
            self.features.add(nn.MaxPool2D(pool_size=3, strides=2))
            self.features.add(_basic_conv(channels=80, kernel_size=1))
            self.features.add(_basic_conv(channels=192, kernel_size=3))
            self.features.add(nn.MaxPool2D(pool_size=3, strides=2))
            self.features.add(_make_A(32, 'A1_'))
            self.features.add(_make_A(64, 'A2_'))
            self.features.add(_make_A(64, 'A3_'))
            self.features.add(_make_B('B_'))
            self.features.add(_make_C(128, 'C1_'))
            self.features.add(_make_C(160, 'C2_'))
            self.features.add(_make_C(160, 'C3_'))
            self.features.add(_make_C(192, 'C4_'))
            self.features.add(_make_D('D_'))
            self.features.add(_make_E('E1_'))
            self.features.add(_make_E('E2_'))
            self.features.add(nn.AvgPool2D(pool_size=8))
            self.features.add(nn.Dropout(0.5))
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def inception_v3(pretrained=False, ctx=cpu(), root=os.path.join(base.data_dir(), 'models'),
                 **kwargs):
    """Inception V3; pretrained loads the published weights from `root` onto `ctx`."""
    net = Inception3(**kwargs)
    if pretrained:
        _load_pretrained(net, 'inceptionv3', ctx, root)
    return net
