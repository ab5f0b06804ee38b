#!/usr/bin/env python
"""Write the hybridization fixtures (exported models) with the REAL Apache MXNet 1.9.1.

Run under the MXNet 1.9.1 virtualenv, from the repository root:

    /root/mxnet191-venv/bin/python tools/make_gluon_hybrid_fixtures.py

Writes into tests/python/unittest/fixtures/:

  hybrid191_<net>-symbol.json, hybrid191_<net>-0000.params
      HybridBlock.export() of each network after hybridize() and one forward; the
      networks are a LeNet and a width-reduced ResNet-18 v1 (model_zoo's ResNetV1 with
      BasicBlockV1 and layers [2, 2, 2, 2], channels [8, 8, 16, 32, 64]: resnet18_v1's
      graph at a size small enough to commit), random initialisation under a fixed seed,
      BatchNorm running statistics moved by three training-mode passes
  hybrid191_expected.npz
      x_<net> (the fixed input) and y_<net> (MXNet 1.9.1's inference output on it)

This script is a generator, not a test; the generated files are committed.
"""
import os

import numpy as np
import mxnet as mx
from mxnet import gluon
from mxnet.gluon import nn
from mxnet.gluon.model_zoo import vision

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, 'tests', 'python', 'unittest', 'fixtures')


def lenet():
    net = nn.HybridSequential(prefix='lenet_')
    with net.name_scope():
        net.add(nn.Conv2D(6, kernel_size=5, activation='relu'),
                nn.MaxPool2D(pool_size=2, strides=2),
                nn.Conv2D(16, kernel_size=3, activation='relu'),
                nn.MaxPool2D(pool_size=2, strides=2),
                nn.Flatten(),
                nn.Dense(32, activation='relu'),
                nn.Dropout(0.5),
                nn.Dense(10))
    return net, (2, 1, 28, 28)


def small_resnet18():
    net = vision.ResNetV1(vision.BasicBlockV1, [2, 2, 2, 2], [8, 8, 16, 32, 64], classes=10,
                          prefix='resnetv10_')
    return net, (2, 3, 32, 32)


def main():
    expected = {}
    for name, build in (('lenet', lenet), ('resnet18', small_resnet18)):
        mx.random.seed(7)
        np.random.seed(7)
        net, shape = build()
        net.initialize(mx.init.Xavier(magnitude=2.0))
        net.hybridize()
        x = mx.nd.array(np.random.uniform(-1, 1, size=shape).astype(np.float32))
        for _ in range(3):
            with mx.autograd.record():
                net(x + 0.5)
        y = net(x)
        net.export(os.path.join(OUT, 'hybrid191_' + name))
        expected['x_' + name] = x.asnumpy()
        expected['y_' + name] = y.asnumpy()
    np.savez(os.path.join(OUT, 'hybrid191_expected.npz'), **expected)
    print('wrote', sorted(expected))


if __name__ == '__main__':
    main()
