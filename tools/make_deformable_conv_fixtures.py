#!/usr/bin/env python
"""Writes tests/python/unittest/fixtures/deformable_conv_mxnet191.npz and
deformable_conv_mxnet191.params: MXNet 1.9.1's contrib.DeformableConvolution and
contrib.ModulatedDeformableConvolution on the CPU for a few argument sets (inputs, outputs;
for DeformableConvolution also the gradients under a random head gradient, as 1.9.1 has no CPU
backward for the modulated one), and a gluon.contrib.cnn network's parameter file with its
input and output.

    /root/mxnet191-venv/bin/python tools/make_deformable_conv_fixtures.py
"""
import os
import zlib

import mxnet as mx
import numpy as np
from mxnet.gluon import nn
from mxnet.gluon.contrib.cnn import DeformableConvolution, ModulatedDeformableConvolution

HERE = os.path.join(os.path.dirname(__file__), '..', 'tests', 'python', 'unittest', 'fixtures')

# name -> (data shape, operator kwargs)
CASES = {
    'basic': ((2, 3, 6, 7), dict(kernel=(3, 3), num_filter=4)),
    'stride_pad_dilate': ((1, 4, 9, 8), dict(kernel=(3, 2), stride=(2, 1), pad=(1, 2),
                                            dilate=(2, 1), num_filter=3)),
    'groups': ((2, 4, 5, 5), dict(kernel=(2, 3), num_filter=6, num_group=2,
                                  num_deformable_group=2, no_bias=True)),
    'deform_groups': ((1, 6, 6, 5), dict(kernel=(3, 3), pad=(1, 1), num_filter=3,
                                         num_deformable_group=3)),
}


def out_size(x, k, s, p, d):
    return (x + 2 * p - d * (k - 1) - 1) // s + 1


def case_arrays(name, shape, kw, modulated):
    rng = np.random.RandomState(zlib.crc32((name + str(modulated)).encode()))
    kh, kw_ = kw['kernel']
    s = kw.get('stride', (1, 1))
    p = kw.get('pad', (0, 0))
    d = kw.get('dilate', (1, 1))
    oh = out_size(shape[2], kh, s[0], p[0], d[0])
    ow = out_size(shape[3], kw_, s[1], p[1], d[1])
    dg = kw.get('num_deformable_group', 1)
    g = kw.get('num_group', 1)
    arrays = {
        'data': rng.uniform(-1, 1, shape),
        # offsets up to 2.5 pixels so that some taps leave the image
        'offset': rng.uniform(-2.5, 2.5, (shape[0], dg * 2 * kh * kw_, oh, ow)),
        'weight': rng.uniform(-1, 1, (kw['num_filter'], shape[1] // g, kh, kw_)),
    }
    if modulated:
        arrays['mask'] = rng.uniform(0, 1, (shape[0], dg * kh * kw_, oh, ow))
    if not kw.get('no_bias'):
        arrays['bias'] = rng.uniform(-1, 1, (kw['num_filter'],))
    arrays = {k: v.astype(np.float32) for k, v in arrays.items()}
    arrays['head'] = rng.uniform(-1, 1, (shape[0], kw['num_filter'], oh, ow)).astype(np.float32)
    return arrays


def main():
    result = {}
    for name, (shape, kw) in CASES.items():
        for modulated in (False, True):
            arrays = case_arrays(name, shape, kw, modulated)
            inputs = {k: mx.nd.array(v) for k, v in arrays.items() if k != 'head'}
            op = (mx.nd.contrib.ModulatedDeformableConvolution if modulated
                  else mx.nd.contrib.DeformableConvolution)
            if not modulated:
                for v in inputs.values():
                    v.attach_grad()
            with mx.autograd.record():
                out = op(**inputs, **kw)
            arrays['output'] = out.asnumpy()
            if not modulated:
                out.backward(mx.nd.array(arrays['head']))
                for k, v in inputs.items():
                    arrays['grad:' + k] = v.grad.asnumpy()
            key = ('modulated_' if modulated else 'deformable_') + name
            result.update({key + '/' + k: v for k, v in arrays.items()})

    net = nn.HybridSequential(prefix='dcn_')
    with net.name_scope():
        net.add(DeformableConvolution(4, kernel_size=3, padding=1, num_deformable_group=1,
                                      offset_weight_initializer=mx.init.Normal(0.5),
                                      offset_bias_initializer=mx.init.Normal(0.5)),
                ModulatedDeformableConvolution(4, kernel_size=(3, 2), strides=2,
                                               num_deformable_group=2, activation='relu',
                                               offset_weight_initializer=mx.init.Normal(0.5)))
    mx.random.seed(7)
    net.initialize(mx.init.Normal(0.5))
    x = mx.nd.array(np.random.RandomState(3).uniform(-1, 1, (2, 2, 7, 6)).astype(np.float32))
    result['net/data'] = x.asnumpy()
    result['net/output'] = net(x).asnumpy()
    net.save_parameters(os.path.join(HERE, 'deformable_conv_mxnet191.params'))
    np.savez_compressed(os.path.join(HERE, 'deformable_conv_mxnet191.npz'), **result)
    print('wrote %d arrays; parameters %s' % (len(result), list(net.collect_params().keys())))


if __name__ == '__main__':
    main()
