"""AlexNet ("One weird trick for parallelizing convolutional neural networks", Krizhevsky
2014)."""
import os

from ....context import cpu
from .... import base
from ...block import HybridBlock
from ... import nn
from ..model_store import _load_pretrained

__all__ = ['AlexNet', 'alexnet']


class AlexNet(HybridBlock):
    """AlexNet: five convolutions and two 4096-unit dense layers, then `classes` outputs."""

    def __init__(self, classes=1000, **kwargs):
        super(AlexNet, self).__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            with self.features.name_scope():
                for channels, kernel, stride, pad, pool_after in [(64, 11, 4, 2, True),
                                                                  (192, 5, 1, 2, True),
                                                                  (384, 3, 1, 1, False),
                                                                  (256, 3, 1, 1, False),
                                                                  (256, 3, 1, 1, True)]:
                    self.features.add(nn.Conv2D(channels, kernel_size=kernel, strides=stride,
                                                padding=pad, activation='relu'))
                    if pool_after:
                        self.features.add(nn.MaxPool2D(pool_size=3, strides=2))
                self.features.add(nn.Flatten())
                for _ in range(2):
                    self.features.add(nn.Dense(4096, activation='relu'))
                    self.features.add(nn.Dropout(0.5))
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def alexnet(pretrained=False, ctx=cpu(), root=os.path.join(base.data_dir(), 'models'),
            **kwargs):
    """AlexNet; pretrained loads the published weights from `root` onto `ctx`."""
    net = AlexNet(**kwargs)
    if pretrained:
        _load_pretrained(net, 'alexnet', ctx, root)
    return net
