#!/usr/bin/env python
"""Train an MLP or LeNet (with BatchNorm) on Fashion-MNIST with Gluon, as an MXNet 1.9 script would.

    python example/gluon/mnist.py [--model mlp|lenet] [--epochs N] [--batch-size B]
                                  [--lr LR] [--hybridize] [--num-workers W]

The data comes from `gluon.data.vision.FashionMNIST` (Debian's dataset-fashion-mnist package
when ~/.mxnet/datasets/fashion-mnist is empty). Prints each epoch's train and test accuracy
and the training speed in samples/s.
"""
import argparse
import time

import mxnet as mx
from mxnet import autograd, gluon
from mxnet.gluon import nn

try:
    from tqdm import tqdm
except ImportError:  # the bar is a nicety; training does not need it
    def tqdm(iterable, **_):
        return iterable


def build(model):
    net = nn.HybridSequential()
    with net.name_scope():
        if model == 'mlp':
            net.add(nn.Dense(128, activation='relu'),
                    nn.Dense(64, activation='relu'),
                    nn.Dense(10))
        else:
            net.add(nn.Conv2D(20, kernel_size=5), nn.BatchNorm(), nn.Activation('relu'),
                    nn.MaxPool2D(pool_size=2, strides=2),
                    nn.Conv2D(50, kernel_size=5), nn.BatchNorm(), nn.Activation('relu'),
                    nn.MaxPool2D(pool_size=2, strides=2),
                    nn.Flatten(),
                    nn.Dense(500, activation='relu'),
                    nn.Dense(10))
    return net




def evaluate(net, loader):
    metric = mx.metric.Accuracy()
    for data, label in loader:
        metric.update([label], [net(data)])
    return metric.get()[1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--model', choices=('mlp', 'lenet'), default='lenet')
    parser.add_argument('--epochs', type=int, default=5)
    parser.add_argument('--batch-size', type=int, default=128)
    parser.add_argument('--optimizer', default='adam', help="any mx.optimizer name")
    parser.add_argument('--lr', type=float, default=0.001, help='learning rate')
    parser.add_argument('--momentum', type=float, default=0.9, help='for sgd and nag')
    parser.add_argument('--hybridize', action='store_true')
    parser.add_argument('--num-workers', type=int, default=0,
                        help='DataLoader worker processes')
    parser.add_argument('--seed', type=int, default=42)
    args = parser.parse_args()

    mx.random.seed(args.seed)
    to_tensor = gluon.data.vision.transforms.ToTensor()  # (28, 28, 1) uint8 -> (1, 28, 28) in [0, 1]
    train = gluon.data.vision.FashionMNIST(train=True).transform_first(to_tensor)
    test = gluon.data.vision.FashionMNIST(train=False).transform_first(to_tensor)
    train_loader = gluon.data.DataLoader(train, args.batch_size, shuffle=True,
                                         num_workers=args.num_workers)
    test_loader = gluon.data.DataLoader(test, 1000, num_workers=args.num_workers)

    net = build(args.model)
    net.initialize(mx.init.Xavier(magnitude=2.24))
    if args.hybridize:
        net.hybridize()
    opt_params = {'learning_rate': args.lr}
    if args.optimizer in ('sgd', 'nag'):
        opt_params['momentum'] = args.momentum
    trainer = gluon.Trainer(net.collect_params(), args.optimizer, opt_params)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    metric = mx.metric.Accuracy()

    for epoch in range(args.epochs):
        metric.reset()
        start, seen = time.time(), 0
        for data, label in tqdm(train_loader, desc='epoch %d' % epoch, leave=False):
            with autograd.record():
                output = net(data)
                loss = loss_fn(output, label)
            loss.backward()
            trainer.step(data.shape[0])
            metric.update([label], [output])
            seen += data.shape[0]
        speed = seen / (time.time() - start)
        print('epoch %d: train accuracy %.4f, test accuracy %.4f, %.0f samples/s'
              % (epoch, metric.get()[1], evaluate(net, test_loader), speed))


if __name__ == '__main__':
    main()
