#!/usr/bin/env python
"""Data-parallel training of an MLP on Fashion-MNIST with a distributed KVStore.

    python tools/launch.py -n 2 -s 2 --launcher local \\
        python example/distributed_training/train_fashion_mnist.py --kvstore dist_sync
    python example/distributed_training/train_fashion_mnist.py --kvstore local   # one process

Each worker trains on its own 1/num_workers of the training set (every num_workers-th
sample, from its rank); the gradients are summed on the servers, which run the optimizer
(update_on_kvstore), so every worker holds the same weights after each step. With
--kvstore local one process sees the whole set with the same global batch, and reaches the
same accuracy. Worker 0 prints each epoch's test accuracy.
"""
import argparse
import time

import mxnet as mx
from mxnet import autograd, gluon
from mxnet.gluon import nn


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--kvstore', default='dist_sync')
    parser.add_argument('--epochs', type=int, default=2)
    parser.add_argument('--batch-size', type=int, default=128, help='global batch size')
    parser.add_argument('--lr', type=float, default=0.1)
    args = parser.parse_args()

    kv = mx.kv.create(args.kvstore)
    rank, workers = kv.rank, kv.num_workers
    mx.random.seed(42)  # the same initial weights everywhere (worker 0's are sent anyway)

    def to_input(data, label):
        return data.reshape((-1,)).astype('float32') / 255, label.astype('float32')

    train = gluon.data.vision.FashionMNIST(train=True).transform(to_input)
    test = gluon.data.vision.FashionMNIST(train=False).transform(to_input)
    shard = gluon.data.SimpleDataset([train[i] for i in range(rank, len(train), workers)])
    per_worker = args.batch_size // workers
    train_data = gluon.data.DataLoader(shard, per_worker, shuffle=False, last_batch='discard')
    test_data = gluon.data.DataLoader(test, 1000)

    net = nn.HybridSequential()
    net.add(nn.Dense(128, activation='relu'), nn.Dense(64, activation='relu'), nn.Dense(10))
    net.initialize(mx.init.Xavier())
    net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), 'sgd',
                            {'learning_rate': args.lr, 'momentum': 0.9}, kvstore=kv)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    for epoch in range(args.epochs):
        start = time.time()
        for data, label in train_data:
            with autograd.record():
                loss = loss_fn(net(data), label)
            loss.backward()
            trainer.step(args.batch_size)  # the sum over workers is one global batch
        metric = mx.metric.Accuracy()
        for data, label in test_data:
            metric.update([label], [net(data)])
        if rank == 0:
            print('epoch %d: test accuracy %.4f (%.1f s, %d workers)'
                  % (epoch, metric.get()[1], time.time() - start, workers), flush=True)


if __name__ == '__main__':
    main()
