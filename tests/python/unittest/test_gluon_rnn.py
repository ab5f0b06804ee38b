"""gluon.rnn: cells against numpy steps, unroll (layouts, merging, valid_length), the stacking
and modifier cells, parameter names and prefixes as MXNet 1.9.1, outputs equal to 1.9.1's
for the same weights (fixtures/mxnet191_gluon_rnn.npz, from
fixtures/make_gluon_loss_rnn_fixtures.py), and the fused layers (which need mx.nd.RNN)."""
import os

import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd
from mxnet.base import InvalidConfigError, MXNetError
from mxnet.gluon import rnn

HERE = os.path.join(os.path.dirname(__file__), 'fixtures')
FIXTURE = np.load(os.path.join(HERE, 'mxnet191_gluon_rnn.npz'))
HAS_RNN_OP = hasattr(mx.nd, 'RNN')
needs_rnn_op = pytest.mark.skipif(not HAS_RNN_OP, reason='the fused gluon.rnn layers run on '
                                  'the RNN operator, which this build lacks (mx.nd.RNN '
                                  'missing)')


def case(name):
    """The fixture arrays of one case, keyed without the '<case>__' part."""
    start = name + '__'
    return {k[len(start):]: FIXTURE[k] for k in FIXTURE.files if k.startswith(start)}


def load_case_params(block, arrays):
    for name, param in block.collect_params().items():
        param.set_data(mx.nd.array(arrays['param_' + name[len(block.prefix):]]))


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def np_rnn_step(x, states, w, act):
    h = act(x @ w['i2h_weight'].T + w['i2h_bias'] + states[0] @ w['h2h_weight'].T
            + w['h2h_bias'])
    return h, [h]


def np_lstm_step(x, states, w):
    gates = x @ w['i2h_weight'].T + w['i2h_bias'] + states[0] @ w['h2h_weight'].T \
        + w['h2h_bias']
    i, f, g, o = np.split(gates, 4, axis=1)
    c = sigmoid(f) * states[1] + sigmoid(i) * np.tanh(g)
    h = sigmoid(o) * np.tanh(c)
    return h, [h, c]


def np_gru_step(x, states, w):
    xr, xz, xn = np.split(x @ w['i2h_weight'].T + w['i2h_bias'], 3, axis=1)
    hr, hz, hn = np.split(states[0] @ w['h2h_weight'].T + w['h2h_bias'], 3, axis=1)
    r, z = sigmoid(xr + hr), sigmoid(xz + hz)
    n = np.tanh(xn + r * hn)
    h = (1 - z) * n + z * states[0]
    return h, [h]


STEPS = {
    'rnn_tanh': (lambda: rnn.RNNCell(5, input_size=4),
                 lambda x, s, w: np_rnn_step(x, s, w, np.tanh)),
    'rnn_relu': (lambda: rnn.RNNCell(5, activation='relu', input_size=4),
                 lambda x, s, w: np_rnn_step(x, s, w, lambda v: np.maximum(v, 0))),
    'rnn_softsign': (lambda: rnn.RNNCell(5, activation='softsign', input_size=4),
                     lambda x, s, w: np_rnn_step(x, s, w, lambda v: v / (1 + np.abs(v)))),
    'lstm': (lambda: rnn.LSTMCell(5, input_size=4), np_lstm_step),
    'gru': (lambda: rnn.GRUCell(5, input_size=4), np_gru_step),
}


def np_unroll(step, x_ntc, weights, num_states, valid_length=None):
    n, t, _ = x_ntc.shape
    states = [np.zeros((n, 5), np.float32)] * num_states
    outputs, finals = [], [s.copy() for s in states]
    for i in range(t):
        out, states = step(x_ntc[:, i], states, weights)
        outputs.append(out)
        if valid_length is not None:
            for k in range(num_states):
                done = (valid_length == i + 1)
                finals[k][done] = states[k][done]
    outputs = np.stack(outputs, axis=1)
    if valid_length is None:
        return outputs, states
    mask = np.arange(t)[None, :, None] < valid_length[:, None, None]
    return outputs * mask, finals


@pytest.mark.parametrize('name', sorted(STEPS))
def test_cell_unroll_matches_numpy_and_mxnet191(name):
    make, step = STEPS[name]
    arrays = case(name)
    cell = make()
    cell.initialize()
    load_case_params(cell, arrays)
    weights = {k[6:]: v for k, v in arrays.items() if k.startswith('param_')}
    num_states = len(cell.state_info())
    x = arrays['x']
    outputs, states = cell.unroll(3, mx.nd.array(x), layout='NTC', merge_outputs=True)
    expected, expected_states = np_unroll(step, x, weights, num_states)
    np.testing.assert_allclose(outputs.asnumpy(), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(outputs.asnumpy(), arrays['out'], rtol=1e-5, atol=1e-6)
    for i, state in enumerate(states):
        np.testing.assert_allclose(state.asnumpy(), expected_states[i], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(state.asnumpy(), arrays['state%d' % i], rtol=1e-5,
                                   atol=1e-6)

    valid_length = arrays['valid_length']
    outputs, states = cell.unroll(3, mx.nd.array(x), layout='NTC', merge_outputs=True,
                                  valid_length=mx.nd.array(valid_length))
    expected, expected_states = np_unroll(step, x, weights, num_states, valid_length)
    np.testing.assert_allclose(outputs.asnumpy(), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(outputs.asnumpy(), arrays['vl_out'], rtol=1e-5, atol=1e-6)
    for i, state in enumerate(states):
        np.testing.assert_allclose(state.asnumpy(), expected_states[i], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(state.asnumpy(), arrays['vl_state%d' % i], rtol=1e-5,
                                   atol=1e-6)


def lstm_with_fixture_weights():
    cell = rnn.LSTMCell(5, input_size=4)
    cell.initialize()
    load_case_params(cell, case('lstm'))
    return cell, case('lstm')


def test_unroll_layouts_and_output_forms_agree():
    cell, arrays = lstm_with_fixture_weights()
    x = arrays['x']
    tnc_out, tnc_states = cell.unroll(3, mx.nd.array(x.transpose(1, 0, 2)), layout='TNC',
                                      merge_outputs=True)
    assert tnc_out.shape == (3, 2, 5)
    np.testing.assert_allclose(tnc_out.asnumpy().transpose(1, 0, 2), arrays['out'], rtol=1e-5)
    listed, _ = cell.unroll(3, mx.nd.array(x), layout='NTC', merge_outputs=False)
    assert isinstance(listed, list) and len(listed) == 3 and listed[0].shape == (2, 5)
    np.testing.assert_allclose(np.stack([o.asnumpy() for o in listed], axis=1), arrays['out'],
                               rtol=1e-5)
    # a list of steps in, merge_outputs=None: a list out; merge_outputs=True: one tensor
    steps = [mx.nd.array(x[:, i]) for i in range(3)]
    as_given, _ = cell.unroll(3, steps, layout='NTC')
    assert isinstance(as_given, list)
    merged, states = cell.unroll(3, steps, layout='NTC', merge_outputs=True)
    np.testing.assert_allclose(merged.asnumpy(), arrays['out'], rtol=1e-5)
    np.testing.assert_allclose(states[1].asnumpy(), tnc_states[1].asnumpy(), rtol=1e-5)


def test_unroll_from_given_begin_state_equals_stepping():
    cell, arrays = lstm_with_fixture_weights()
    x = arrays['x']
    begin = [mx.nd.array(np.full((2, 5), 0.3, np.float32)),
             mx.nd.array(np.full((2, 5), -0.2, np.float32))]
    outputs, states = cell.unroll(3, mx.nd.array(x), begin_state=begin, merge_outputs=True)
    stepped = begin
    for i in range(3):
        out, stepped = cell(mx.nd.array(x[:, i]), stepped)
        np.testing.assert_allclose(outputs[:, i].asnumpy(), out.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(states[1].asnumpy(), stepped[1].asnumpy(), rtol=1e-6)


def test_bidirectional_cell_matches_mxnet191_with_valid_length():
    arrays = case('bidirectional')
    cell = rnn.BidirectionalCell(rnn.LSTMCell(3, input_size=4, prefix='l_'),
                                 rnn.GRUCell(3, input_size=4, prefix='r_'))
    cell.initialize()
    load_case_params(cell, arrays)
    outputs, states = cell.unroll(3, mx.nd.array(arrays['x']), layout='TNC',
                                  merge_outputs=True,
                                  valid_length=mx.nd.array(arrays['valid_length']))
    assert outputs.shape == (3, 2, 6) and len(states) == 3
    np.testing.assert_allclose(outputs.asnumpy(), arrays['out'], rtol=1e-5, atol=1e-6)
    for i, state in enumerate(states):
        np.testing.assert_allclose(state.asnumpy(), arrays['state%d' % i], rtol=1e-5,
                                   atol=1e-6)


def test_bidirectional_cell_reverses_time_for_the_right_cell():
    left, right = rnn.RNNCell(2, input_size=1), rnn.RNNCell(2, input_size=1)
    cell = rnn.BidirectionalCell(left, right)
    cell.initialize(mx.init.One())
    x = mx.nd.array(np.arange(4, dtype=np.float32).reshape(1, 4, 1) / 4)
    outputs, _ = cell.unroll(4, x, merge_outputs=True)
    forward, _ = left.unroll(4, x, merge_outputs=True)
    backward, _ = right.unroll(4, mx.nd.flip(x, axis=1),
                               merge_outputs=True)
    np.testing.assert_allclose(outputs[:, :, :2].asnumpy(), forward.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(outputs[:, :, 2:].asnumpy(),
                               mx.nd.flip(backward, axis=1).asnumpy(), rtol=1e-6)


def test_stack_with_residual_cell_matches_mxnet191():
    arrays = case('stack_residual')
    stack = rnn.HybridSequentialRNNCell(prefix='stack_')
    with stack.name_scope():
        stack.add(rnn.LSTMCell(4, input_size=4))
        stack.add(rnn.ResidualCell(rnn.GRUCell(4, input_size=4)))
    stack.initialize()
    load_case_params(stack, arrays)
    outputs, states = stack.unroll(3, mx.nd.array(arrays['x']), merge_outputs=False)
    assert len(outputs) == 3 and len(states) == 3
    for i, out in enumerate(outputs):
        np.testing.assert_allclose(out.asnumpy(), arrays['out%d' % i], rtol=1e-5, atol=1e-6)
    for i, state in enumerate(states):
        np.testing.assert_allclose(state.asnumpy(), arrays['state%d' % i], rtol=1e-5,
                                   atol=1e-6)
    # stepping the stack by hand gives the same first output
    out, _ = stack(mx.nd.array(arrays["x"][:, 0]),
                   stack.begin_state(batch_size=2, func=mx.nd.zeros))
    np.testing.assert_allclose(out.asnumpy(), arrays['out0'], rtol=1e-5, atol=1e-6)


def test_sequential_stack_unrolls_cell_by_cell():
    stack = rnn.SequentialRNNCell()
    with stack.name_scope():
        stack.add(rnn.LSTMCell(3))
        stack.add(rnn.DropoutCell(0.))
        stack.add(rnn.GRUCell(2))
    stack.initialize()
    x = mx.nd.array(np.random.RandomState(0).uniform(size=(2, 4, 3)))
    outputs, states = stack.unroll(4, x, merge_outputs=True)
    assert outputs.shape == (2, 4, 2)
    assert [s.shape for s in states] == [(2, 3), (2, 3), (2, 2)]
    assert len(stack) == 3 and isinstance(stack[2], rnn.GRUCell)
    step_states = stack.begin_state(batch_size=2)
    for i in range(4):
        out, step_states = stack(x[:, i], step_states)
    np.testing.assert_allclose(out.asnumpy(), outputs[:, 3].asnumpy(), rtol=1e-5)


def test_deferred_input_size_is_inferred_from_the_first_step():
    cell = rnn.GRUCell(4)
    assert cell.i2h_weight.shape == (12, 0)
    cell.initialize()
    cell(mx.nd.ones((3, 2, 5)), cell.begin_state(3))
    assert cell.i2h_weight.shape == (12, 10)
    assert repr(cell) == 'GRUCell(10 -> 12)'


def test_dropout_cell_and_zoneout_cell():
    x = mx.nd.ones((2, 3, 4))
    drop = rnn.DropoutCell(0.5)
    out, states = drop.unroll(3, x, merge_outputs=True)
    np.testing.assert_array_equal(out.asnumpy(), x.asnumpy())  # not training: identity
    assert states == []
    with autograd.train_mode():
        out, _ = drop.unroll(3, x, merge_outputs=True)
    assert set(np.unique(out.asnumpy())) <= {0., 2.}

    base = rnn.RNNCell(4, input_size=4)
    zoneout = rnn.ZoneoutCell(base, zoneout_outputs=0.5, zoneout_states=0.5)
    zoneout.initialize()
    out, _ = zoneout.unroll(3, x, merge_outputs=True)
    assert out.shape == (2, 3, 4)
    with pytest.raises(InvalidConfigError, match='cannot be called directly'):
        base.begin_state(batch_size=2)
    assert [s.shape for s in zoneout.begin_state(batch_size=2, func=mx.nd.zeros)] == [(2, 4)]


def test_zoneout_outside_training_is_the_base_cell():
    base = rnn.GRUCell(3, input_size=4)
    base.initialize()
    x = mx.nd.array(np.random.RandomState(1).uniform(size=(2, 3, 4)))
    expected, _ = base.unroll(3, x, merge_outputs=True)
    zoneout = rnn.ZoneoutCell(base, zoneout_outputs=0.3, zoneout_states=0.3)
    out, _ = zoneout.unroll(3, x, merge_outputs=True)
    np.testing.assert_allclose(out.asnumpy(), expected.asnumpy(), rtol=1e-6)


def test_residual_cell_adds_the_input():
    base = rnn.RNNCell(4, input_size=4)
    base.initialize()
    x = mx.nd.array(np.random.RandomState(2).uniform(size=(2, 3, 4)))
    plain, _ = base.unroll(3, x, merge_outputs=True)
    residual = rnn.ResidualCell(base)
    out, _ = residual.unroll(3, x, merge_outputs=True)
    np.testing.assert_allclose(out.asnumpy(), plain.asnumpy() + x.asnumpy(), rtol=1e-6)
    listed, _ = residual.unroll(3, x, merge_outputs=False)
    np.testing.assert_allclose(listed[1].asnumpy(), out[:, 1].asnumpy(), rtol=1e-6)
    vl = mx.nd.array([1, 3])
    masked, _ = residual.unroll(3, x, merge_outputs=True, valid_length=vl)
    assert not masked[0, 1:].asnumpy().any()


def test_gradients_flow_through_unroll():
    cell = rnn.LSTMCell(3, input_size=2)
    cell.initialize()
    x = mx.nd.array(np.random.RandomState(3).uniform(size=(2, 4, 2)))
    x.attach_grad()
    with autograd.record():
        outputs, _ = cell.unroll(4, x, merge_outputs=True)
        total = outputs.sum()
    total.backward()
    assert x.grad.shape == (2, 4, 2) and np.abs(x.grad.asnumpy()).sum() > 0
    assert np.abs(cell.i2h_weight.grad().asnumpy()).sum() > 0
    # numerical check of one input element
    eps = 1e-3
    xp, xm = x.copy(), x.copy()
    xp[0, 1, 0] += eps
    xm[0, 1, 0] -= eps
    numeric = (cell.unroll(4, xp, merge_outputs=True)[0].sum()
               - cell.unroll(4, xm, merge_outputs=True)[0].sum()).asscalar() / (2 * eps)
    np.testing.assert_allclose(x.grad[0, 1, 0].asscalar(), numeric, rtol=1e-2)


def test_rnn_cell_activation_by_act_type_or_callable():
    x = mx.nd.array([[0.5, -1.0]])
    expected_pre = np.array([[0.5 * 0.2 - 1.0 * 0.2 + 0.1]] * 3).T  # i2h only: h0 is zero
    for activation, apply in [('softrelu', lambda v: np.log1p(np.exp(v))),
                              (lambda v, **kwargs: mx.nd.sigmoid(v), sigmoid)]:
        cell = rnn.RNNCell(3, activation=activation, input_size=2,
                           i2h_bias_initializer=mx.init.Constant(0.1))
        cell.initialize(mx.init.Constant(0.2))
        out, states = cell(x, cell.begin_state(1))
        np.testing.assert_allclose(out.asnumpy(), apply(expected_pre).reshape(1, 3),
                                   rtol=1e-6)
        assert states[0] is out


def test_hybridized_cells_unroll_the_same():
    cell, arrays = lstm_with_fixture_weights()
    cell.hybridize()
    outputs, _ = cell.unroll(3, mx.nd.array(arrays['x']), merge_outputs=True)
    np.testing.assert_allclose(outputs.asnumpy(), arrays['out'], rtol=1e-5, atol=1e-6)


def test_cell_names_prefixes_and_reprs_as_mxnet191():
    lstm = rnn.LSTMCell(4, prefix='lstm0_')
    assert list(lstm.collect_params().keys()) == [
        'lstm0_i2h_weight', 'lstm0_h2h_weight', 'lstm0_i2h_bias', 'lstm0_h2h_bias']
    assert repr(lstm) == 'LSTMCell(None -> 16)'
    assert repr(rnn.GRUCell(4, input_size=3)) == 'GRUCell(3 -> 12)'
    assert repr(rnn.RNNCell(4)) == 'RNNCell(None -> 4, tanh)'
    assert rnn.RNNCell(4).prefix.startswith('rnn')
    assert rnn.GRUCell(4).prefix.startswith('gru')
    assert rnn.DropoutCell(0.1).prefix.startswith('dropout')
    stack = rnn.SequentialRNNCell(prefix='sequentialrnncell0_')
    with stack.name_scope():
        stack.add(rnn.LSTMCell(3))
        stack.add(rnn.DropoutCell(0.5))
        stack.add(rnn.GRUCell(2))
    assert list(stack.collect_params().keys()) == [
        'sequentialrnncell0_lstm0_i2h_weight', 'sequentialrnncell0_lstm0_h2h_weight',
        'sequentialrnncell0_lstm0_i2h_bias', 'sequentialrnncell0_lstm0_h2h_bias',
        'sequentialrnncell0_gru0_i2h_weight', 'sequentialrnncell0_gru0_h2h_weight',
        'sequentialrnncell0_gru0_i2h_bias', 'sequentialrnncell0_gru0_h2h_bias']
    assert repr(stack) == ('SequentialRNNCell(\n(0): LSTMCell(None -> 12)\n'
                           '(1): DropoutCell(rate=0.5, axes=())\n(2): GRUCell(None -> 6)\n)')
    zoneout = rnn.ZoneoutCell(rnn.RNNCell(2, prefix='rnn1_'), 0.1, 0.2)
    assert zoneout.prefix == 'rnn1_zoneout'
    assert repr(zoneout) == 'ZoneoutCell(p_out=0.1, p_state=0.2, RNNCell(None -> 2, tanh))'
    assert list(zoneout.collect_params().keys()) == [
        'rnn1_i2h_weight', 'rnn1_h2h_weight', 'rnn1_i2h_bias', 'rnn1_h2h_bias']
    residual = rnn.ResidualCell(rnn.GRUCell(2, prefix='gru1_'))
    assert residual.prefix == 'gru1_residualcell'
    assert repr(residual) == 'ResidualCell(GRUCell(None -> 6))'
    bi = rnn.BidirectionalCell(rnn.LSTMCell(2, prefix='a_'), rnn.LSTMCell(2, prefix='b_'))
    assert bi.prefix == ''
    assert repr(bi) == ('BidirectionalCell(forward=LSTMCell(None -> 8), '
                        'backward=LSTMCell(None -> 8))')
    assert bi.state_info(3) == [{'shape': (3, 2), '__layout__': 'NC'}] * 4
    assert [s.shape for s in bi.begin_state(batch_size=3)] == [(3, 2)] * 4


def test_begin_state_uses_func_and_names():
    cell = rnn.LSTMCell(3, prefix='cell_')
    names = []

    def recording_zeros(name, **kwargs):
        names.append(name)
        return mx.nd.zeros(**kwargs)
    states = cell.begin_state(batch_size=2, func=recording_zeros)
    assert names == ['cell_begin_state_0', 'cell_begin_state_1']
    assert [s.shape for s in states] == [(2, 3), (2, 3)]
    ones = cell.begin_state(batch_size=2, func=mx.nd.ones)
    assert ones[0].asnumpy().sum() == 6


def test_bad_cell_inputs():
    cell = rnn.LSTMCell(5, input_size=4, prefix='bad_')
    cell.initialize()
    with pytest.raises(MXNetError, match=r"LSTMCell 'bad'.*3 features.*input_size 4"):
        cell(mx.nd.ones((2, 3)), cell.begin_state(2))
    with pytest.raises(MXNetError, match=r"LSTMCell 'bad': states of shapes"):
        cell(mx.nd.ones((2, 4)), cell.begin_state(3))
    with pytest.raises(InvalidConfigError, match='length=4'):
        cell.unroll(4, mx.nd.ones((2, 3, 4)))
    with pytest.raises(AssertionError):
        cell.unroll(3, None)
    bi = rnn.BidirectionalCell(rnn.RNNCell(2), rnn.RNNCell(2))
    with pytest.raises(NotImplementedError, match='Bidirectional cannot be stepped'):
        bi(mx.nd.ones((1, 2)), bi.begin_state(batch_size=1))
    with pytest.raises(InvalidConfigError, match="doesn't support zoneout"):
        rnn.ZoneoutCell(bi)
    base = rnn.RNNCell(2)
    rnn.ResidualCell(base)
    with pytest.raises(InvalidConfigError, match='already modified'):
        rnn.ZoneoutCell(base)
    with pytest.raises(InvalidConfigError, match='rate must be a number'):
        rnn.DropoutCell('0.5')


# fused layers -----------------------------------------------------------------------------

LAYERS = {
    'rnn_relu_2layer': lambda: rnn.RNN(4, num_layers=2, input_size=3),
    'rnn_tanh_bi': lambda: rnn.RNN(4, activation='tanh', bidirectional=True, input_size=3),
    'lstm_ntc': lambda: rnn.LSTM(4, layout='NTC', input_size=3),
    'lstm_bi_2layer': lambda: rnn.LSTM(4, num_layers=2, bidirectional=True, input_size=3),
    'lstm_projection': lambda: rnn.LSTM(5, num_layers=2, projection_size=3, input_size=3),
    'gru_bi_2layer': lambda: rnn.GRU(4, num_layers=2, bidirectional=True, input_size=3),
}


def layer_with_fixture(name):
    layer = LAYERS[name]()
    layer.initialize()
    arrays = case(name)
    load_case_params(layer, arrays)
    return layer, arrays


def test_layer_parameter_names_shapes_and_repr_as_mxnet191():
    layer = rnn.LSTM(5, 2, bidirectional=True, prefix='lstm3_')
    names = ['%s%d_%s' % (d, i, p) for i in range(2) for d in 'lr'
             for p in ['i2h_weight', 'h2h_weight', 'i2h_bias', 'h2h_bias']]
    assert list(layer.collect_params().keys()) == ['lstm3_' + n for n in names]
    assert repr(layer) == 'LSTM(None -> 5, TNC, num_layers=2, bidirectional)'
    assert layer.l1_i2h_weight.shape == (20, 10) and layer.l0_i2h_weight.shape == (20, 0)
    assert list(layer._collect_params_with_prefix().keys())[:2] == [
        '_unfused.0.l_cell.i2h_weight', '_unfused.0.l_cell.h2h_weight']
    assert repr(rnn.GRU(5, input_size=3, dropout=0.5, layout='NTC')) == \
        'GRU(3 -> 5, NTC, dropout=0.5)'
    assert repr(rnn.RNN(4, activation='tanh')) == 'RNN(None -> 4, TNC)'
    assert rnn.RNN(4).prefix.startswith('rnn') and rnn.GRU(4).prefix.startswith('gru')
    single = rnn.GRU(3, prefix='g_')
    assert list(single._collect_params_with_prefix('net').keys()) == [
        'net._unfused.0.i2h_weight', 'net._unfused.0.h2h_weight',
        'net._unfused.0.i2h_bias', 'net._unfused.0.h2h_bias']
    proj = rnn.LSTM(5, projection_size=3, prefix='p_')
    assert [(k, v.shape) for k, v in proj.collect_params().items()] == [
        ('p_l0_i2h_weight', (20, 0)), ('p_l0_h2h_weight', (20, 3)), ('p_l0_i2h_bias', (20,)),
        ('p_l0_h2h_bias', (20,)), ('p_l0_h2r_weight', (3, 5))]
    assert proj.state_info(2) == [
        {'shape': (1, 2, 3), '__layout__': 'LNC', 'dtype': 'float32'},
        {'shape': (1, 2, 5), '__layout__': 'LNC', 'dtype': 'float32'}]
    assert rnn.GRU(4, 3, bidirectional=True).state_info(2) == [
        {'shape': (6, 2, 4), '__layout__': 'LNC', 'dtype': 'float32'}]


def test_layer_packs_weights_then_biases_in_mxnet191_order():
    layer, arrays = layer_with_fixture('lstm_projection')
    params = {k[len(layer.prefix):]: v.data() for k, v in layer.collect_params().items()}
    packed = layer._packed_params(mx.nd, params).asnumpy()
    order = ['l0_i2h_weight', 'l0_h2h_weight', 'l0_h2r_weight',
             'l1_i2h_weight', 'l1_h2h_weight', 'l1_h2r_weight',
             'l0_i2h_bias', 'l0_h2h_bias', 'l1_i2h_bias', 'l1_h2h_bias']
    expected = np.concatenate([arrays['param_' + n].ravel() for n in order])
    np.testing.assert_array_equal(packed, expected)
    layer, arrays = layer_with_fixture('gru_bi_2layer')
    params = {k[len(layer.prefix):]: v.data() for k, v in layer.collect_params().items()}
    order = ['%s%d_%s_%s' % (d, i, g, t) for t in ['weight', 'bias'] for i in range(2)
             for d in 'lr' for g in ['i2h', 'h2h']]
    np.testing.assert_array_equal(layer._packed_params(mx.nd, params).asnumpy(),
                                  np.concatenate([arrays['param_' + n].ravel()
                                                  for n in order]))


def split_fused_states(layer, begin):
    """The per-cell state list of layer._unfuse() for fused states (L*D, N, H)."""
    states = []
    for index in range(layer._num_layers * layer._dir):
        states.extend(s[index] for s in begin)
    return states


@pytest.mark.parametrize('name', ['rnn_relu_2layer', 'rnn_tanh_bi', 'lstm_ntc',
                                  'lstm_bi_2layer', 'gru_bi_2layer'])
def test_unfused_cells_reproduce_mxnet191_fused_layer(name):
    # the fused op's semantics, checked through the cells: runs without mx.nd.RNN
    layer, arrays = layer_with_fixture(name)
    stack = layer._unfuse()
    begin = [mx.nd.array(arrays['begin%d' % i]) for i in range(len(layer.state_info()))]
    outputs, states = stack.unroll(4, mx.nd.array(arrays['x']), layout=layer._layout,
                                   begin_state=split_fused_states(layer, begin),
                                   merge_outputs=True)
    np.testing.assert_allclose(outputs.asnumpy(), arrays['out'], rtol=1e-5, atol=1e-6)
    for kind in range(len(begin)):
        final = np.stack([s.asnumpy() for s in states[kind::len(begin)]])
        np.testing.assert_allclose(final, arrays['state%d' % kind], rtol=1e-5, atol=1e-6)


def test_mxnet191_parameter_file_loads_into_the_fused_layer():
    path = os.path.join(HERE, 'mxnet191_lstm_bidir.params')
    layer = rnn.LSTM(4, num_layers=2, bidirectional=True)
    layer.load_parameters(path)
    saved = mx.nd.load(path)
    assert sorted(saved) == sorted(layer._collect_params_with_prefix())
    assert layer.l0_i2h_weight.shape == (16, 3) and layer.r1_i2h_weight.shape == (16, 8)
    np.testing.assert_array_equal(layer.r1_h2h_bias.data().asnumpy(),
                                  saved['_unfused.1.r_cell.h2h_bias'].asnumpy())
    stack = layer._unfuse()
    outputs, _ = stack.unroll(4, mx.nd.array(case('lstm_file')['x']), layout='TNC',
                              merge_outputs=True)
    np.testing.assert_allclose(outputs.asnumpy(), case('lstm_file')['out'], rtol=1e-5,
                               atol=1e-6)


def test_unfuse_refuses_projection():
    with pytest.raises(InvalidConfigError, match='projection'):
        rnn.LSTM(4, projection_size=2)._unfuse()


@needs_rnn_op
@pytest.mark.parametrize('name', sorted(LAYERS))
def test_fused_layer_matches_mxnet191(name):
    layer, arrays = layer_with_fixture(name)
    begin = [mx.nd.array(arrays['begin%d' % i]) for i in range(len(layer.state_info()))]
    outputs, states = layer(mx.nd.array(arrays['x']), begin)
    np.testing.assert_allclose(outputs.asnumpy(), arrays['out'], rtol=1e-5, atol=1e-6)
    for i, state in enumerate(states):
        np.testing.assert_allclose(state.asnumpy(), arrays['state%d' % i], rtol=1e-5,
                                   atol=1e-6)
    alone = layer(mx.nd.array(arrays['x']))
    assert isinstance(alone, mx.nd.NDArray)
    np.testing.assert_allclose(alone.asnumpy(), arrays['out_no_state'], rtol=1e-5, atol=1e-6)


def sequence_length_layer():
    arrays = case('gru_sequence_length')
    layer = rnn.GRU(4, bidirectional=True, input_size=3, use_sequence_length=True)
    layer.initialize()
    load_case_params(layer, arrays)
    return layer, arrays


def test_mxnet191_cpu_fused_op_ignored_sequence_length():
    # MXNet 1.9.1's CPU RNN op accepted use_sequence_length but ran every sample over all
    # steps: its output equals the plain bidirectional run of the unfused cells
    layer, arrays = sequence_length_layer()
    outputs, _ = layer._unfuse().unroll(4, mx.nd.array(arrays['x']), layout='TNC',
                                        merge_outputs=True)
    np.testing.assert_allclose(outputs.asnumpy(), arrays['out'], rtol=1e-5, atol=1e-6)


@needs_rnn_op
def test_fused_layer_with_sequence_length_equals_cells_with_valid_length():
    # the semantics of cuDNN (and of this op): each sample runs over its own length, the
    # reverse direction starting from its last valid step
    layer, arrays = sequence_length_layer()
    lengths = arrays['lengths']
    outputs, states = layer(mx.nd.array(arrays['x']), layer.begin_state(2),
                            mx.nd.array(lengths))
    expected, expected_states = layer._unfuse().unroll(
        4, mx.nd.array(arrays['x']), layout='TNC', merge_outputs=True,
        valid_length=mx.nd.array(lengths))
    for sample, length in enumerate(lengths.astype(int)):
        np.testing.assert_allclose(outputs[:length, sample].asnumpy(),
                                   expected[:length, sample].asnumpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(states[0].asnumpy(),
                               np.stack([s.asnumpy() for s in expected_states]),
                               rtol=1e-5, atol=1e-6)


@needs_rnn_op
def test_fused_layer_infers_input_size_and_trains():
    layer = rnn.LSTM(3, layout='NTC')
    layer.initialize()
    x = mx.nd.ones((2, 5, 7))
    with autograd.record():
        out = layer(x)
    out.backward()
    assert out.shape == (2, 5, 3)
    assert layer.l0_i2h_weight.shape == (12, 7)
    assert np.abs(layer.l0_i2h_weight.grad().asnumpy()).sum() > 0


def test_fused_layer_without_the_operator_says_so():
    if HAS_RNN_OP:
        pytest.skip('mx.nd.RNN exists in this build')
    layer = rnn.LSTM(3, input_size=2, prefix='lstm_')
    layer.initialize()
    with pytest.raises(MXNetError, match="LSTM 'lstm'.*fused RNN operator"):
        layer(mx.nd.ones((4, 2, 2)))


def test_bad_layer_arguments_and_inputs():
    with pytest.raises(InvalidConfigError, match='Invalid layout NCT'):
        rnn.LSTM(3, layout='NCT')
    layer = rnn.GRU(3, input_size=2, prefix='gru_')
    layer.initialize()
    with pytest.raises(MXNetError, match=r"GRU 'gru': inputs have 5 features.*input_size 2"):
        layer(mx.nd.ones((4, 2, 5)))
    with pytest.raises(MXNetError, match='must be 3-D'):
        layer(mx.nd.ones((4, 2)))
    with pytest.raises(ValueError, match=r'Invalid recurrent state shape. Expecting \(1, 2, 3\)'):
        layer(mx.nd.ones((4, 2, 2)), mx.nd.zeros((1, 3, 3)))
