"""gluon.contrib.rnn: the convolutional cells, LSTMPCell, VariationalDropoutCell and
dynamic_unroll; parameter names and shapes as MXNet 1.9.1, outputs, final states and gradients
equal to 1.9.1's on fixed weights (fixtures/gluon_contrib_mxnet191.npz, written by
tools/make_gluon_contrib_fixtures.py), a numpy ConvLSTM step, nd.contrib.foreach/while_loop."""
import os
import re

import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd
from mxnet.base import MXNetError
from mxnet.gluon import contrib, rnn

FIXTURE = np.load(os.path.join(os.path.dirname(__file__), 'fixtures',
                               'gluon_contrib_mxnet191.npz'))
T, N = 3, 2


def case(name):
    start = name + '/'
    return {k[len(start):]: FIXTURE[k] for k in FIXTURE.files if k.startswith(start)}


def weights_by_suffix(arrays):
    """{'i2h_weight': array, ...} from the fixture's 'param:<1.9.1 full name>' entries."""
    out = {}
    for key, value in arrays.items():
        if key.startswith('param:'):
            out[re.sub(r'^.*?_((i2h|h2h|h2r)_(weight|bias))$', r'\1', key[6:])] = value
    return out


def check_against_fixture(cell, arrays, run):
    params = cell.collect_params()
    expected_names = sorted(k[6:] for k in arrays if k.startswith('param:'))
    if not expected_names[0].startswith('conv_gru'):
        assert sorted(params.keys()) == expected_names
    weights = weights_by_suffix(arrays)
    cell.initialize()
    for name, param in params.items():
        suffix = name[len(cell.prefix):]
        assert param.shape == weights[suffix].shape, name
        param.set_data(mx.nd.array(weights[suffix]))
    data = mx.nd.array(arrays['data'])
    states = [mx.nd.array(arrays['begin_state%d' % i]) for i in range(2)
              if 'begin_state%d' % i in arrays]
    data.attach_grad()
    with autograd.record():
        outputs, final = run(data, states)
        (outputs * mx.nd.array(arrays['head'])).sum().backward()
    np.testing.assert_allclose(outputs.asnumpy(), arrays['outputs'], rtol=1e-5, atol=1e-5)
    assert len(final) == len([k for k in arrays if k.startswith('final_state')])
    for i, s in enumerate(final):
        np.testing.assert_allclose(s.asnumpy(), arrays['final_state%d' % i], rtol=1e-5,
                                   atol=1e-5)
    np.testing.assert_allclose(data.grad.asnumpy(), arrays['grad:data'], rtol=1e-4, atol=1e-5)
    for name, param in params.items():
        expected = [v for k, v in arrays.items()
                    if k.startswith('grad:') and k.endswith(name[len(cell.prefix):])]
        np.testing.assert_allclose(param.grad().asnumpy(), expected[0], rtol=1e-4, atol=1e-5,
                                   err_msg=name)


CELL_CASES = {
    'conv1d_rnn_relu': lambda: contrib.rnn.Conv1DRNNCell((3, 8), 4, 3, 3, activation='relu',
                                                         prefix='c1r_'),
    'conv2d_lstm_pad': lambda: contrib.rnn.Conv2DLSTMCell((2, 6, 5), 3, (3, 3), (3, 3),
                                                          i2h_pad=(1, 1), prefix='c2l_'),
    'conv2d_lstm_dilate': lambda: contrib.rnn.Conv2DLSTMCell((2, 7, 7), 2, (3, 3), (3, 1),
                                                             i2h_dilate=(2, 2),
                                                             h2h_dilate=(2, 1), prefix='c2d_'),
    'conv3d_gru': lambda: contrib.rnn.Conv3DGRUCell((2, 4, 4, 4), 2, 3, 3, i2h_pad=1,
                                                    prefix='c3g_'),
    'conv1d_gru_default_prefix': lambda: contrib.rnn.Conv1DGRUCell((2, 5), 3, 3, 5),
    'conv2d_rnn_tnc': lambda: contrib.rnn.Conv2DRNNCell((2, 4, 4), 3, 1, 3, prefix='c2r_'),
    'lstmp': lambda: contrib.rnn.LSTMPCell(6, 4, input_size=5, prefix='lp_'),
}


@pytest.mark.parametrize('name', sorted(CELL_CASES))
def test_cell_unroll_matches_mxnet191(name):
    arrays = case(name)
    cell = CELL_CASES[name]()
    layout = 'TNC' if name.endswith('_tnc') else 'NTC'
    check_against_fixture(cell, arrays, lambda d, s: cell.unroll(T, d, s, layout=layout,
                                                                 merge_outputs=True))


DYNAMIC_CASES = {
    'dyn_lstm_tnc': (lambda: rnn.LSTMCell(4, input_size=3, prefix='dl_'), 'TNC'),
    'dyn_gru_ntc_len': (lambda: rnn.GRUCell(4, input_size=3, prefix='dg_'), 'NTC'),
    'dyn_lstmp_tnc_len': (lambda: contrib.rnn.LSTMPCell(5, 3, input_size=3, prefix='dp_'),
                          'TNC'),
}


@pytest.mark.parametrize('name', sorted(DYNAMIC_CASES))
def test_dynamic_unroll_matches_mxnet191(name):
    arrays = case(name)
    make, layout = DYNAMIC_CASES[name]
    cell = make()
    length = mx.nd.array(arrays['valid_length']) if 'valid_length' in arrays else None
    check_against_fixture(cell, arrays, lambda d, s: contrib.rnn.rnn_cell.dynamic_unroll(
        cell, d, s, layout=layout, valid_length=length))


def test_default_prefixes_and_parameter_shapes_follow_mxnet191():
    cell = contrib.rnn.Conv2DLSTMCell((3, 10, 12), 5, (3, 3), (5, 5))
    assert re.match(r'conv_lstm\d+_$', cell.prefix)
    assert cell.i2h_weight.shape == (20, 3, 3, 3)
    assert cell.h2h_weight.shape == (20, 5, 5, 5)
    assert cell.i2h_bias.shape == (20,)
    assert cell.state_info(7) == [{'shape': (7, 5, 8, 10), '__layout__': 'NCHW'}] * 2
    assert re.match(r'conv_rnn\d+_$', contrib.rnn.Conv3DRNNCell((1, 4, 4, 4), 2, 1, 1).prefix)
    gru = contrib.rnn.Conv1DGRUCell((9, 4), 2, 2, 3, i2h_pad=1, conv_layout='NWC')
    assert gru.i2h_weight.shape == (6, 2, 4) and gru.h2h_weight.shape == (6, 3, 2)
    assert gru.state_info(1)[0]['shape'] == (1, 10, 2)
    lstmp = contrib.rnn.LSTMPCell(8, 3)
    assert re.match(r'lstmp\d+_$', lstmp.prefix)
    assert lstmp.h2r_weight.shape == (3, 8) and lstmp.h2h_weight.shape == (32, 3)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def np_conv1d(x, w, b, pad):
    """x (N, C, W), w (O, C, K): stride-1 cross-correlation with zero padding."""
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad)))
    k = w.shape[2]
    out = np.stack([np.einsum('ncw,ocw->no', x[:, :, i:i + k], w)
                    for i in range(x.shape[2] - k + 1)], axis=2)
    return out + b[None, :, None]


def test_conv1d_lstm_step_matches_numpy():
    rng = np.random.RandomState(0)
    cell = contrib.rnn.Conv1DLSTMCell((2, 6), 3, 3, 3)
    cell.initialize()
    w = {}
    for name, p in cell.collect_params().items():
        w[name[len(cell.prefix):]] = rng.uniform(-1, 1, p.shape).astype(np.float32)
        p.set_data(mx.nd.array(w[name[len(cell.prefix):]]))
    x = rng.uniform(-1, 1, (4, 2, 6)).astype(np.float32)
    h = rng.uniform(-1, 1, (4, 3, 4)).astype(np.float32)
    c = rng.uniform(-1, 1, (4, 3, 4)).astype(np.float32)
    out, (h2, c2) = cell(mx.nd.array(x), [mx.nd.array(h), mx.nd.array(c)])
    g = np_conv1d(x, w['i2h_weight'], w['i2h_bias'], 0) + \
        np_conv1d(h, w['h2h_weight'], w['h2h_bias'], 1)
    i, f, cand, o = np.split(g, 4, axis=1)
    c_ref = sigmoid(f) * c + sigmoid(i) * np.tanh(cand)
    h_ref = sigmoid(o) * np.tanh(c_ref)
    np.testing.assert_allclose(c2.asnumpy(), c_ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(h2.asnumpy(), h_ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out.asnumpy(), h_ref, rtol=1e-5, atol=1e-5)


def test_deferred_input_channels_are_inferred():
    cell = contrib.rnn.Conv2DGRUCell((0, 5, 5), 2, 3, 3)
    cell.initialize()
    out, _ = cell.unroll(2, mx.nd.ones((1, 2, 4, 5, 5)), merge_outputs=True)
    assert cell.i2h_weight.shape == (6, 4, 3, 3)
    assert out.shape == (1, 2, 2, 3, 3)


def test_bad_settings_and_states_are_named():
    with pytest.raises(ValueError, match='odd'):
        contrib.rnn.Conv1DRNNCell((2, 5), 3, 3, 2)
    with pytest.raises(ValueError, match='length 2'):
        contrib.rnn.Conv2DRNNCell((2, 5, 5), 3, (3, 3, 3), 3)
    cell = contrib.rnn.Conv1DRNNCell((2, 5), 3, 3, 3, prefix='bad_')
    cell.initialize()
    with pytest.raises(MXNetError, match="bad.*states of shapes"):
        cell(mx.nd.ones((1, 2, 5)), [mx.nd.ones((1, 3, 5))])


def test_variational_dropout_keeps_one_mask_per_sequence():
    cell = contrib.rnn.VariationalDropoutCell(rnn.RNNCell(20, prefix='rnn_'), drop_inputs=0.5,
                                              drop_states=0.5, drop_outputs=0.5)
    assert cell.prefix == 'rnn_vardrop'
    cell.collect_params().initialize(init='xavier')
    data = mx.nd.ones((4, 3, 10))
    with autograd.record():
        out1, _ = cell.unroll(3, data, merge_outputs=True)
        out2, _ = cell.unroll(3, data, merge_outputs=True)
    assert not np.allclose(out1.asnumpy(), out2.asnumpy())
    zeros = out1.asnumpy() == 0
    # one output mask for the sequence: a unit dropped at one step is dropped at every step
    assert zeros.any() and (zeros[:, 0, :] == zeros[:, 1, :]).all()
    assert (zeros[:, 0, :] == zeros[:, 2, :]).all()
    # outside training dropout is off and the cell is its base cell
    plain = cell.unroll(3, data, merge_outputs=True)[0]
    base = rnn.RNNCell(20, prefix='rnn_', params=cell.params)
    np.testing.assert_allclose(plain.asnumpy(),
                               base.unroll(3, data, merge_outputs=True)[0].asnumpy(), rtol=1e-6)


def test_variational_dropout_without_state_dropout_unrolls_whole_sequence():
    cell = contrib.rnn.VariationalDropoutCell(rnn.LSTMCell(6), drop_inputs=0.3,
                                              drop_outputs=0.3)
    cell.initialize()
    with autograd.record():
        out, states = cell.unroll(4, mx.nd.ones((2, 4, 5)), merge_outputs=False,
                                  valid_length=mx.nd.array([2, 4]))
    assert len(out) == 4 and out[0].shape == (2, 6) and len(states) == 2
    assert (out[3].asnumpy()[0] == 0).all()


def test_foreach_and_while_loop():
    data = mx.nd.arange(6).reshape((3, 2))
    outs, state = mx.nd.contrib.foreach(lambda x, s: ([x * 2, x + s[0]], [s[0] + x]), data,
                                        [mx.nd.zeros((2,))])
    np.testing.assert_allclose(outs[0].asnumpy(), data.asnumpy() * 2)
    np.testing.assert_allclose(outs[1].asnumpy(), [[0, 1], [2, 4], [6, 9]])
    np.testing.assert_allclose(state[0].asnumpy(), [6, 9])
    outs, final = mx.nd.contrib.while_loop(lambda i, s: i < 3,
                                           lambda i, s: (s, [i + 1, s + i]),
                                           [mx.nd.array([0]), mx.nd.array([1])],
                                           max_iterations=5)
    assert outs[0].shape == (5, 1) if isinstance(outs, list) else outs.shape == (5, 1)
    np.testing.assert_allclose(final[0].asnumpy(), [3])
    np.testing.assert_allclose(final[1].asnumpy(), [4])
    assert mx.nd.contrib.cond(mx.nd.array([0]), lambda: 1, lambda: 2) == 2


def test_channel_last_layout_matches_channel_first():
    rng = np.random.RandomState(0)
    first = contrib.rnn.Conv2DLSTMCell((3, 6, 5), 2, (3, 3), (3, 3), i2h_pad=(1, 1), prefix='a_')
    last = contrib.rnn.Conv2DLSTMCell((6, 5, 3), 2, (3, 3), (3, 3), i2h_pad=(1, 1),
                                      conv_layout='NHWC', prefix='b_')
    assert last.i2h_weight.shape == (8, 3, 3, 3) and last.state_info(1)[0]['shape'] == (1, 6, 5, 2)
    first.initialize()
    last.initialize()
    for pa, pb in zip(first.collect_params().values(), last.collect_params().values()):
        value = rng.uniform(-1, 1, pa.shape).astype(np.float32)
        pa.set_data(mx.nd.array(value))
        pb.set_data(mx.nd.array(value.transpose(0, 2, 3, 1) if value.ndim == 4 else value))
    x = rng.uniform(-1, 1, (2, 4, 3, 6, 5)).astype(np.float32)
    out_first, _ = first.unroll(4, mx.nd.array(x), merge_outputs=True)
    out_last, _ = last.unroll(4, mx.nd.array(x.transpose(0, 1, 3, 4, 2)), merge_outputs=True)
    np.testing.assert_allclose(out_last.asnumpy(), out_first.asnumpy().transpose(0, 1, 3, 4, 2),
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('name,params_file', [
    ('conv2d_lstm_pad', 'gluon_contrib_conv2d_lstm_mxnet191.params'),
    ('lstmp', 'gluon_contrib_lstmp_mxnet191.params')])
def test_mxnet191_parameter_files_load(name, params_file):
    arrays = case(name)
    cell = CELL_CASES[name]()
    cell.load_parameters(os.path.join(os.path.dirname(__file__), 'fixtures', params_file))
    states = [mx.nd.array(arrays['begin_state%d' % i]) for i in range(2)]
    out, _ = cell.unroll(T, mx.nd.array(arrays['data']), states, merge_outputs=True)
    np.testing.assert_allclose(out.asnumpy(), arrays['outputs'], rtol=1e-5, atol=1e-5)
