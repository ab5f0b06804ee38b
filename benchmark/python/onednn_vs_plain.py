#!/usr/bin/env python
"""oneDNN against the plain CPU kernels, op by op, in one process (float32, ms, lower is better).

Each case runs forward (inference) and forward + backward under autograd with
MXNET_ONEDNN_ENABLED=1 and =0, best of --repeats after a warm-up; the last column is
plain / oneDNN (above 1: oneDNN is faster). Used to pick which cases dispatch to oneDNN.
Not part of pass/fail.

    PYTHONPATH=python python benchmark/python/onednn_vs_plain.py [--repeats R] [--only NAME,...]
"""
import argparse
import time

import numpy as np
import mxnet as mx


def arr(*shape):
    return mx.nd.array(np.random.uniform(-1, 1, shape).astype('float32'))


def cases():
    bn_x = (32, 64, 56, 56)
    mm, mv = mx.nd.zeros((64,)), mx.nd.ones((64,))
    yield 'BatchNorm train (32,64,56,56)', lambda x, g, b: mx.nd.BatchNorm(
        x, g, b, mm, mv, fix_gamma=False), [arr(*bn_x), arr(64), arr(64)], True
    yield 'BatchNorm global (32,64,56,56)', lambda x, g, b: mx.nd.BatchNorm(
        x, g, b, mm, mv, fix_gamma=False, use_global_stats=True), [arr(*bn_x), arr(64), arr(64)], True
    yield 'BatchNorm axis=-1 (4096,256)', lambda x, g, b: mx.nd.BatchNorm(
        x, g, b, mx.nd.zeros((256,)), mx.nd.ones((256,)), axis=-1, fix_gamma=False), \
        [arr(4096, 256), arr(256), arr(256)], True
    yield 'BatchNorm axis=-1 (32,56,56,64)', lambda x, g, b: mx.nd.BatchNorm(
        x, g, b, mm, mv, axis=-1, fix_gamma=False), [arr(32, 56, 56, 64), arr(64), arr(64)], True
    yield 'softmax (128,1000)', lambda x: mx.nd.softmax(x), [arr(128, 1000)], False
    yield 'softmax (2048,1000)', lambda x: mx.nd.softmax(x), [arr(2048, 1000)], False
    yield 'log_softmax (128,1000)', lambda x: mx.nd.log_softmax(x), [arr(128, 1000)], False
    yield 'softmax t=2 (128,1000)', lambda x: mx.nd.softmax(x, temperature=2.0), \
        [arr(128, 1000)], False
    yield 'softmax axis=1 (32,10,56,56)', lambda x: mx.nd.softmax(x, axis=1), \
        [arr(32, 10, 56, 56)], False
    yield 'softmax (64,8)', lambda x: mx.nd.softmax(x), [arr(64, 8)], False
    for act in ('relu', 'sigmoid', 'tanh', 'softrelu'):
        yield 'Activation %s 1M' % act, (lambda a: lambda x: mx.nd.Activation(x, act_type=a))(
            act), [arr(1 << 20)], False
    yield 'Activation relu 4K', lambda x: mx.nd.Activation(x, act_type='relu'), [arr(4096)], False
    for act in ('leaky', 'elu', 'gelu'):
        yield 'LeakyReLU %s 1M' % act, (lambda a: lambda x: mx.nd.LeakyReLU(x, act_type=a))(
            act), [arr(1 << 20)], False
    yield 'LayerNorm (4096,1024)', lambda x, g, b: mx.nd.LayerNorm(x, g, b), \
        [arr(4096, 1024), arr(1024), arr(1024)], False
    yield 'LayerNorm (128,768)', lambda x, g, b: mx.nd.LayerNorm(x, g, b), \
        [arr(128, 768), arr(768), arr(768)], False
    yield 'maxpool 2x2 (32,64,56,56)', lambda x: mx.nd.Pooling(
        x, kernel=(2, 2), stride=(2, 2), pool_type='max'), [arr(*bn_x)], False
    yield 'avgpool 3x3 s1 p1 (32,64,56,56)', lambda x: mx.nd.Pooling(
        x, kernel=(3, 3), stride=(1, 1), pad=(1, 1), pool_type='avg'), [arr(*bn_x)], False
    yield 'conv3x3 (32,64,56,56)', lambda x, w, b: mx.nd.Convolution(
        x, w, b, kernel=(3, 3), pad=(1, 1), num_filter=64), [arr(*bn_x), arr(64, 64, 3, 3), arr(64)], False
    yield 'conv1x1 (32,256,56,56)', lambda x, w, b: mx.nd.Convolution(
        x, w, b, kernel=(1, 1), num_filter=64), [arr(32, 256, 56, 56), arr(64, 256, 1, 1), arr(64)], False
    yield 'FC 128x1024->1024', lambda x, w, b: mx.nd.FullyConnected(x, w, b, num_hidden=1024), \
        [arr(128, 1024), arr(1024, 1024), arr(1024)], False


def best_of(fn, repeats):
    fn()
    best = float('inf')
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best * 1e3


def time_case(fn, args, train, repeats):
    def forward():
        fn(*args)
        mx.nd.waitall()

    for a in args:
        a.attach_grad()

    def fwd_bwd():
        with mx.autograd.record(train_mode=True):
            y = fn(*args)
        (y[0] if isinstance(y, (list, tuple)) else y).backward()
        mx.nd.waitall()

    if train:
        with mx.autograd.train_mode():
            return best_of(forward, repeats), best_of(fwd_bwd, repeats)
    return best_of(forward, repeats), best_of(fwd_bwd, repeats)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--repeats', type=int, default=10)
    ap.add_argument('--only', default='')
    args = ap.parse_args()
    only = [s for s in args.only.split(',') if s]
    print('%-36s %10s %10s %10s %10s %7s %7s' % ('case', 'fwd dnn', 'fwd plain', 'f+b dnn',
                                                 'f+b plain', 'fwd x', 'f+b x'))
    for name, fn, inputs, train in cases():
        if only and not any(o in name for o in only):
            continue
        res = {}
        for flag in ('1', '0'):
            mx.util.setenv('MXNET_ONEDNN_ENABLED', flag)
            res[flag] = time_case(fn, inputs, train, args.repeats)
        mx.util.setenv('MXNET_ONEDNN_ENABLED', '1')
        d, p = res['1'], res['0']
        print('%-36s %10.3f %10.3f %10.3f %10.3f %7.2f %7.2f' % (name, d[0], p[0], d[1], p[1],
                                                                   p[0] / d[0], p[1] / d[1]),
              flush=True)


if __name__ == '__main__':
    main()
