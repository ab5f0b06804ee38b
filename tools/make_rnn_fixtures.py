#!/usr/bin/env python
"""Writes tests/python/unittest/fixtures/rnn_*.npz: small mx.nd.RNN cases (inputs, outputs and
gradients under random head gradients; forward only with projection, which 1.9.1 cannot train
on the CPU) computed by MXNet 1.9.1 on the CPU.

    /root/mxnet191-venv/bin/python tools/make_rnn_fixtures.py
"""
import os
import zlib

import mxnet as mx
import numpy as np

T, N, I, H = 4, 3, 5, 6
CASES = {
    'lstm_2layer_bi': dict(mode='lstm', num_layers=2, bidirectional=True),
    'gru_bi': dict(mode='gru', num_layers=1, bidirectional=True),
    'gru_2layer': dict(mode='gru', num_layers=2),
    'rnn_tanh_2layer': dict(mode='rnn_tanh', num_layers=2),
    'rnn_relu_bi': dict(mode='rnn_relu', num_layers=1, bidirectional=True),
    'lstm_proj': dict(mode='lstm', num_layers=2, projection_size=4),
    'lstm_seqlen_bi': dict(mode='lstm', num_layers=1, bidirectional=True,
                           use_sequence_length=True),
    'gru_seqlen': dict(mode='gru', num_layers=2, use_sequence_length=True),
}


def param_count(mode, L, D, P):
    G = {'lstm': 4, 'gru': 3}.get(mode, 1)
    n = 0
    for l in range(L):
        In = I if l == 0 else D * P
        n += D * (G * H * (In + P) + (P * H if P != H else 0) + 2 * G * H)
    return n


def make(name, kw):
    rng = np.random.RandomState(zlib.crc32(name.encode()))
    L, D = kw['num_layers'], 2 if kw.get('bidirectional') else 1
    P = kw.get('projection_size', H)
    lstm = kw['mode'] == 'lstm'
    arrays = {
        'data': rng.uniform(-1, 1, (T, N, I)),
        'parameters': rng.uniform(-0.5, 0.5, param_count(kw['mode'], L, D, P)),
        'state': rng.uniform(-1, 1, (L * D, N, P)),
    }
    if lstm:
        arrays['state_cell'] = rng.uniform(-1, 1, (L * D, N, H))
    if kw.get('use_sequence_length'):
        arrays['sequence_length'] = np.array([T, 2, 3], dtype=np.float32)
    arrays = {k: v.astype(np.float32) for k, v in arrays.items()}
    inputs = {k: mx.nd.array(v) for k, v in arrays.items()}
    for k, v in inputs.items():
        if k != 'sequence_length':
            v.attach_grad()
    order = ['data', 'parameters', 'state', 'state_cell', 'sequence_length']
    args = [inputs[k] for k in order if k in inputs]
    heads = [rng.uniform(-1, 1, (T, N, D * P)), rng.uniform(-1, 1, (L * D, N, P))]
    if lstm:
        heads.append(rng.uniform(-1, 1, (L * D, N, H)))
    heads = [h.astype(np.float32) for h in heads]
    # 1.9.1 has no CPU training for LSTM with projection: forward only there.
    train = 'projection_size' not in kw
    if train:
        with mx.autograd.record():
            outs = mx.nd.RNN(*args, state_size=H, state_outputs=True, **kw)
        mx.autograd.backward(outs, [mx.nd.array(h) for h in heads])
    else:
        outs = mx.nd.RNN(*args, state_size=H, state_outputs=True, **kw)
    res = dict(arrays)
    res['kwargs'] = np.array(repr(dict(kw, state_size=H)))
    for i, (o, h) in enumerate(zip(outs, heads)):
        res['out%d' % i] = o.asnumpy()
        res['head%d' % i] = h
    for k, v in inputs.items():
        if k != 'sequence_length' and train:
            res['grad_' + k] = v.grad.asnumpy()
    return res


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    dst = os.path.join(here, '..', 'tests', 'python', 'unittest', 'fixtures')
    os.makedirs(dst, exist_ok=True)
    for name, kw in CASES.items():
        np.savez_compressed(os.path.join(dst, 'rnn_%s.npz' % name), **make(name, kw))
        print('wrote', name)


if __name__ == '__main__':
    main()
