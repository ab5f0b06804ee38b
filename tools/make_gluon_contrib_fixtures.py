#!/usr/bin/env python
"""Writes tests/python/unittest/fixtures/gluon_contrib_mxnet191.npz: gluon.contrib.rnn cells
(ConvRNN/ConvLSTM/ConvGRU in 1-3 D, LSTMPCell, dynamic_unroll with and without valid_length)
run by MXNet 1.9.1 on fixed weights: for each case the weights under their 1.9.1 parameter
names (two cases also as 1.9.1 .params files), the inputs, begin states, the unrolled outputs and final states, and the gradients of
sum(outputs * head) with respect to the inputs and every weight.

    /root/mxnet191-venv/bin/python tools/make_gluon_contrib_fixtures.py
"""
import os
import zlib

import mxnet as mx
import numpy as np
from mxnet.gluon import contrib, rnn

OUT = os.path.join(os.path.dirname(__file__), '..', 'tests', 'python', 'unittest', 'fixtures',
                   'gluon_contrib_mxnet191.npz')
T, N = 3, 2

# name -> (constructor, per-step input shape without N, unroll kwargs)
CASES = {
    'conv1d_rnn_relu': (lambda: contrib.rnn.Conv1DRNNCell((3, 8), 4, 3, 3, activation='relu',
                                                          prefix='c1r_'), (3, 8), {}),
    'conv2d_lstm_pad': (lambda: contrib.rnn.Conv2DLSTMCell((2, 6, 5), 3, (3, 3), (3, 3),
                                                           i2h_pad=(1, 1), prefix='c2l_'),
                        (2, 6, 5), {}),
    'conv2d_lstm_dilate': (lambda: contrib.rnn.Conv2DLSTMCell((2, 7, 7), 2, (3, 3), (3, 1),
                                                              i2h_dilate=(2, 2),
                                                              h2h_dilate=(2, 1),
                                                              prefix='c2d_'), (2, 7, 7), {}),
    'conv3d_gru': (lambda: contrib.rnn.Conv3DGRUCell((2, 4, 4, 4), 2, 3, 3, i2h_pad=1,
                                                     prefix='c3g_'), (2, 4, 4, 4), {}),
    'conv1d_gru_default_prefix': (lambda: contrib.rnn.Conv1DGRUCell((2, 5), 3, 3, 5),
                                  (2, 5), {}),
    'conv2d_rnn_tnc': (lambda: contrib.rnn.Conv2DRNNCell((2, 4, 4), 3, 1, 3, prefix='c2r_'),
                       (2, 4, 4), {'layout': 'TNC'}),
    'lstmp': (lambda: contrib.rnn.LSTMPCell(6, 4, input_size=5, prefix='lp_'), (5,), {}),
}

# cases whose weights are also written as a 1.9.1 parameter file (save_parameters)
SAVED = {'conv2d_lstm_pad': 'gluon_contrib_conv2d_lstm_mxnet191.params',
         'lstmp': 'gluon_contrib_lstmp_mxnet191.params'}

DYNAMIC = {
    'dyn_lstm_tnc': (lambda: rnn.LSTMCell(4, input_size=3, prefix='dl_'), 'TNC', False),
    'dyn_gru_ntc_len': (lambda: rnn.GRUCell(4, input_size=3, prefix='dg_'), 'NTC', True),
    'dyn_lstmp_tnc_len': (lambda: contrib.rnn.LSTMPCell(5, 3, input_size=3, prefix='dp_'),
                          'TNC', True),
}


def fill(cell, rng):
    cell.initialize()
    out = {}
    for name, param in cell.collect_params().items():
        value = rng.uniform(-0.5, 0.5, param.shape).astype(np.float32)
        param.set_data(mx.nd.array(value))
        param.grad_req = 'write'
        out['param:' + name] = value
    return out


def record(cell, arrays, data, states, run):
    data.attach_grad()
    with mx.autograd.record():
        outputs, final = run(data, states)
        head = mx.nd.array(np.random.RandomState(1).uniform(-1, 1, outputs.shape))
        (outputs * head).sum().backward()
    arrays['head'] = head.asnumpy()
    arrays['outputs'] = outputs.asnumpy()
    for i, s in enumerate(final):
        arrays['final_state%d' % i] = s.asnumpy()
    arrays['grad:data'] = data.grad.asnumpy()
    for name, param in cell.collect_params().items():
        arrays['grad:' + name] = param.grad().asnumpy()


def main():
    result = {}
    for case, (make, step_shape, kwargs) in CASES.items():
        rng = np.random.RandomState(zlib.crc32(case.encode()))
        cell = make()
        arrays = fill(cell, rng)
        layout = kwargs.get('layout', 'NTC')
        shape = (T, N) + step_shape if layout == 'TNC' else (N, T) + step_shape
        data = mx.nd.array(rng.uniform(-1, 1, shape).astype(np.float32))
        states = [mx.nd.array(rng.uniform(-1, 1, info['shape']).astype(np.float32))
                  for info in cell.state_info(N)]
        arrays['data'] = data.asnumpy()
        for i, s in enumerate(states):
            arrays['begin_state%d' % i] = s.asnumpy()
        record(cell, arrays, data, states,
               lambda d, s: cell.unroll(T, d, s, layout=layout, merge_outputs=True))
        result.update({case + '/' + k: v for k, v in arrays.items()})
        if case in SAVED:
            cell.save_parameters(os.path.join(os.path.dirname(OUT), SAVED[case]))
    for case, (make, layout, with_length) in DYNAMIC.items():
        rng = np.random.RandomState(zlib.crc32(case.encode()))
        cell = make()
        arrays = fill(cell, rng)
        shape = (T, N, 3) if layout == 'TNC' else (N, T, 3)
        data = mx.nd.array(rng.uniform(-1, 1, shape).astype(np.float32))
        states = [mx.nd.array(rng.uniform(-1, 1, info['shape']).astype(np.float32))
                  for info in cell.state_info(N)]
        arrays['data'] = data.asnumpy()
        for i, s in enumerate(states):
            arrays['begin_state%d' % i] = s.asnumpy()
        length = mx.nd.array([2, 3]) if with_length else None
        if with_length:
            arrays['valid_length'] = length.asnumpy()
        record(cell, arrays, data, states,
               lambda d, s: contrib.rnn.rnn_cell.dynamic_unroll(cell, d, s, layout=layout,
                                                                valid_length=length))
        result.update({case + '/' + k: v for k, v in arrays.items()})
    np.savez_compressed(OUT, **result)
    print('wrote %s (%d arrays)' % (OUT, len(result)))


if __name__ == '__main__':
    main()
