"""HybridBlock.hybridize / export and SymbolBlock: traced graphs give the imperative results,
train through autograd, infer deferred shapes, and move to and from MXNet 1.9.1."""
import json
import os
import subprocess

import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd, gluon
from mxnet.gluon import nn

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'fixtures')
MXNET191_PYTHON = '/root/mxnet191-venv/bin/python'


def _mlp(prefix='mlp_'):
    net = nn.HybridSequential(prefix=prefix)
    with net.name_scope():
        net.add(nn.Dense(8, activation='relu'), nn.BatchNorm(), nn.Dropout(0.3), nn.Dense(3))
    return net


def _lenet():
    net = nn.HybridSequential(prefix='lenet_')
    with net.name_scope():
        net.add(nn.Conv2D(4, kernel_size=3, activation='relu'), nn.MaxPool2D(2),
                nn.Conv2D(6, kernel_size=3), nn.BatchNorm(), nn.Activation('relu'),
                nn.Flatten(), nn.Dense(5))
    return net


class _TwoInputs(gluon.HybridBlock):
    """out = dense(a) * b + c (c may be None), returned with a second output."""

    def __init__(self, **kwargs):
        super(_TwoInputs, self).__init__(**kwargs)
        with self.name_scope():
            self.dense = nn.Dense(4, in_units=3)

    def hybrid_forward(self, F, a, b, c=None):
        out = self.dense(a) * b
        if c is not None:
            out = out + c
        return out, F.sum(out, axis=1)


class _Scale(gluon.HybridBlock):
    """x * weight with weight's shape (x's) left to graph shape inference
    (no per-layer infer_shape)."""

    def __init__(self, **kwargs):
        super(_Scale, self).__init__(**kwargs)
        with self.name_scope():
            self.weight = self.params.get('weight', shape=(0, 0), init='ones',
                                          allow_deferred_init=True)

    def hybrid_forward(self, F, x, weight):
        return x * weight


def _data(*shape, seed=0):
    return mx.nd.array(np.random.RandomState(seed).uniform(-1, 1, size=shape)
                       .astype(np.float32))


def test_hybridized_forward_equals_imperative():
    net = _lenet()
    net.initialize(mx.init.Xavier())
    x = _data(2, 1, 12, 12)
    expected = net(x).asnumpy()
    net.hybridize()
    got = net(x).asnumpy()
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(net(x).asnumpy(), expected, rtol=1e-5, atol=1e-6)


def test_trace_names_inputs_data_and_parameters_by_their_names():
    net = _mlp()
    net.initialize()
    net.hybridize()
    net(_data(2, 5))
    inputs, out = net._cached_graph
    assert [v.name for v in inputs] == ['data']
    args = out.list_arguments()
    assert args[0] == 'data'
    assert 'mlp_dense0_weight' in args and 'mlp_dense1_bias' in args
    assert out.list_auxiliary_states() == ['mlp_batchnorm0_running_mean',
                                           'mlp_batchnorm0_running_var']
    assert out.list_outputs() == ['mlp_dense1_fwd_output']


def test_several_inputs_are_data0_data1_and_nested_outputs_keep_their_form():
    net = _TwoInputs(prefix='two_')
    net.initialize()
    a, b, c = _data(2, 3), _data(2, 4, seed=1), _data(2, 4, seed=2)
    expected = [o.asnumpy() for o in net(a, b, c)]
    net.hybridize()
    got = net(a, b, c)
    assert isinstance(got, list) and len(got) == 2
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g.asnumpy(), e, rtol=1e-6)
    assert [v.name for v in net._cached_graph[0]] == ['data0', 'data1', 'data2']


def test_none_input_is_left_out_of_the_graph():
    net = _TwoInputs(prefix='twonone_')
    net.initialize()
    a, b = _data(2, 3), _data(2, 4, seed=1)
    expected = net(a, b)[0].asnumpy()
    net.hybridize()
    np.testing.assert_allclose(net(a, b)[0].asnumpy(), expected, rtol=1e-6)
    assert [v.name for v in net._cached_graph[0]] == ['data0', 'data1']
    with pytest.raises(ValueError):
        net(a, b, _data(2, 4))


def test_gradients_reach_parameters_as_imperatively():
    x = _data(4, 1, 10, 10)
    grads = []
    for hybrid in (False, True):
        mx.random.seed(3)
        net = _lenet()
        net.initialize(mx.init.Xavier())
        if hybrid:
            net.hybridize()
        with autograd.record():
            loss = (net(x) ** 2).sum()
        loss.backward()
        grads.append({k[len(net.prefix):]: p.grad().asnumpy()
                      for k, p in net.collect_params().items() if p.grad_req != 'null'})
    assert grads[0].keys() == grads[1].keys()
    for key in grads[0]:
        np.testing.assert_allclose(grads[1][key], grads[0][key], rtol=1e-4, atol=1e-5,
                                   err_msg=key)
        assert np.abs(grads[1][key]).sum() > 0, key


def test_training_updates_batchnorm_statistics_when_hybridized():
    net = _mlp('bnstat_')
    net.initialize()
    net.hybridize()
    x = _data(8, 5)
    with autograd.record():
        out = net(x)
    out.backward()     # as in MXNet 1.9.1, the statistics move with the backward pass
    mean = net.collect_params()['bnstat_batchnorm0_running_mean'].data().asnumpy()
    assert np.abs(mean).sum() > 0


def test_trainer_step_on_hybridized_network_lowers_the_loss():
    net = _mlp('train_')
    net.initialize(mx.init.Xavier())
    net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
    x, y = _data(16, 5), mx.nd.array(np.arange(16) % 3)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    losses = []
    for _ in range(15):
        with autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(16)
        losses.append(loss.mean().asscalar())
    assert losses[-1] < losses[0]


def test_deferred_shapes_come_from_graph_shape_inference():
    net = _Scale(prefix='scale_')
    net.initialize()
    x = _data(2, 7)
    np.testing.assert_allclose(net(x).asnumpy(), x.asnumpy())
    assert net.weight.shape == (2, 7)
    hybrid = _Scale(prefix='scaleh_')
    hybrid.initialize()
    hybrid.hybridize()
    np.testing.assert_allclose(hybrid(x).asnumpy(), x.asnumpy())
    assert hybrid.weight.shape == (2, 7)


def test_infer_shape_and_infer_type_set_parameters():
    net = _lenet()
    net.initialize()
    net.infer_shape(mx.nd.zeros((1, 1, 12, 12)))
    params = net.collect_params()
    assert params['lenet_conv0_weight'].shape == (4, 1, 3, 3)
    assert params['lenet_dense0_weight'].shape == (5, 6 * 3 * 3)
    assert params['lenet_conv0_weight'].dtype == np.float32
    wide = _lenet()
    wide.initialize()
    wide.cast('float64')
    wide.infer_type(mx.nd.zeros((1, 1, 12, 12), dtype='float64'))
    assert wide.collect_params()['lenet_dense0_weight'].dtype == np.float64
    with pytest.raises(mx.base.MXNetError, match='float64'):
        net.infer_type(mx.nd.zeros((1, 1, 12, 12), dtype='float64'))


def test_new_input_shape_runs_again_with_the_same_parameters():
    net = _lenet()
    net.initialize(mx.init.Xavier())
    net.hybridize()
    small, large = _data(1, 1, 12, 12), _data(3, 1, 12, 12, seed=5)
    net(small)
    got = net(large).asnumpy()
    net.hybridize(False)
    np.testing.assert_allclose(got, net(large).asnumpy(), rtol=1e-5, atol=1e-6)


def test_hybrid_forward_exception_surfaces():
    class Broken(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            raise RuntimeError('broken hybrid_forward')

    net = Broken()
    net.hybridize()
    with pytest.raises(RuntimeError, match='broken hybrid_forward'):
        net(mx.nd.ones((2, 2)))


def test_unknown_operator_argument_fails_with_mxnet_error():
    class BadKernel(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.Convolution(x, num_filter=2, kernel=(3, 3), no_bias=True)

    net = BadKernel()
    net.hybridize()
    with pytest.raises((mx.base.MXNetError, ValueError)):
        net(mx.nd.ones((1, 1, 4, 4)))


def test_symbol_input_composes_the_graph():
    net = _mlp('symin_')
    out = net(mx.sym.var('data'))
    assert isinstance(out, mx.sym.Symbol)
    assert out.list_arguments()[0] == 'data'
    with pytest.raises(ValueError):
        net(mx.sym.var('a'), mx.nd.ones((1,)))


def test_export_writes_graph_and_prefixed_parameters(tmp_path):
    net = _mlp('exp_')
    net.initialize()
    with pytest.raises(RuntimeError):
        net.export(str(tmp_path / 'early'))
    net.hybridize()
    net(_data(2, 5))
    path = str(tmp_path / 'net')
    net.export(path, epoch=3)
    graph = json.load(open(path + '-symbol.json'))
    assert graph['nodes'][0]['name'] == 'data'
    saved = mx.nd.load(path + '-0003.params')
    assert 'arg:exp_dense0_weight' in saved
    assert 'aux:exp_batchnorm0_running_var' in saved
    assert not any(k.startswith('arg:data') for k in saved)


def test_export_then_imports_round_trip(tmp_path):
    net = _lenet()
    net.initialize(mx.init.Xavier())
    net.hybridize()
    x = _data(2, 1, 12, 12)
    with autograd.record():   # move the BatchNorm statistics away from their start
        net(x + 1)
    expected = net(x).asnumpy()
    path = str(tmp_path / 'lenet')
    net.export(path)
    loaded = gluon.SymbolBlock.imports(path + '-symbol.json', ['data'], path + '-0000.params')
    np.testing.assert_allclose(loaded(x).asnumpy(), expected, rtol=1e-5, atol=1e-6)
    loaded.hybridize()
    np.testing.assert_allclose(loaded(x).asnumpy(), expected, rtol=1e-5, atol=1e-6)
    assert sorted(loaded.collect_params().keys()) == sorted(net.collect_params().keys())


def test_imports_missing_parameter_raises(tmp_path):
    net = _mlp('miss_')
    net.initialize()
    net.hybridize()
    net(_data(2, 5))
    path = str(tmp_path / 'm')
    net.export(path)
    saved = mx.nd.load(path + '-0000.params')
    del saved['arg:miss_dense1_bias']
    mx.nd.save(path + '-0000.params', saved)
    with pytest.raises(Exception, match='miss_dense1_bias'):
        gluon.SymbolBlock.imports(path + '-symbol.json', ['data'], path + '-0000.params')


def test_symbol_block_on_internal_outputs_shares_parameters():
    net = _mlp('feat_')
    net.initialize()
    x = _data(2, 5)
    net(x)
    internals = net(mx.sym.var('data')).get_internals()
    feature = internals['feat_dense0_relu_fwd_output']
    block = gluon.SymbolBlock(feature, mx.sym.var('data'), params=net.collect_params())
    expected = net[0](x).asnumpy()
    np.testing.assert_allclose(block(x).asnumpy(), expected, rtol=1e-6)


def test_symbol_block_trains_through_autograd():
    data = mx.sym.var('data')
    out = mx.sym.FullyConnected(data, num_hidden=2, name='fc')
    block = gluon.SymbolBlock(out, data)
    block.initialize()
    x = _data(3, 4)
    with autograd.record():
        y = block(x).sum()
    y.backward()
    params = block.collect_params()
    np.testing.assert_allclose(params['fc_bias'].grad().asnumpy(), [3.0, 3.0])
    np.testing.assert_allclose(params['fc_weight'].grad().asnumpy(),
                               np.tile(x.asnumpy().sum(axis=0), (2, 1)), rtol=1e-5)


def test_optimize_for_without_backend_builds_the_graph():
    net = _mlp('opt_')
    net.initialize()
    x = _data(2, 5)
    expected = net(x).asnumpy()
    net.optimize_for(x)
    assert net._cached_graph and net._cached_op is not None
    np.testing.assert_allclose(net(x).asnumpy(), expected, rtol=1e-6)
    net2 = _mlp('opt2_')
    net2.initialize()
    with pytest.raises(mx.base.MXNetError, match='NoSuchBackend'):
        net2.optimize_for(x, backend='NoSuchBackend')


@pytest.mark.parametrize('name', ['lenet', 'resnet18'])
def test_mxnet191_export_imports_with_its_outputs(name):
    expected = np.load(os.path.join(FIXTURES, 'hybrid191_expected.npz'))
    prefix = os.path.join(FIXTURES, 'hybrid191_' + name)
    block = gluon.SymbolBlock.imports(prefix + '-symbol.json', ['data'],
                                      prefix + '-0000.params')
    x = mx.nd.array(expected['x_' + name])
    np.testing.assert_allclose(block(x).asnumpy(), expected['y_' + name], rtol=1e-4,
                               atol=1e-5)
    block.hybridize(static_alloc=True, static_shape=True)
    np.testing.assert_allclose(block(x).asnumpy(), expected['y_' + name], rtol=1e-4,
                               atol=1e-5)


_LOAD_IN_191 = r'''
import sys, numpy as np, mxnet as mx
prefix, xfile, yfile = sys.argv[1:4]
block = mx.gluon.SymbolBlock.imports(prefix + '-symbol.json', ['data'], prefix + '-0000.params')
out = block(mx.nd.array(np.load(xfile))).asnumpy()
np.testing.assert_allclose(out, np.load(yfile), rtol=1e-4, atol=1e-5)
mod_sym, args, auxs = mx.model.load_checkpoint(prefix, 0)
print('ok', len(args), len(auxs))
'''


@pytest.mark.skipif(not os.path.exists(MXNET191_PYTHON), reason='needs the MXNet 1.9.1 venv')
@pytest.mark.parametrize('build', ['lenet', 'resnet'])
def test_our_export_loads_in_mxnet191(tmp_path, build):
    from mxnet.gluon.model_zoo import vision
    if build == 'lenet':
        net, shape = _lenet(), (2, 1, 12, 12)
    else:
        net = vision.ResNetV1(vision.BasicBlockV1, [1, 1], [4, 4, 8], classes=6,
                              thumbnail=True)
        shape = (2, 3, 16, 16)
    net.initialize(mx.init.Xavier())
    net.hybridize()
    x = _data(*shape)
    with autograd.record():
        net(x + 1)
    y = net(x)
    prefix = str(tmp_path / build)
    net.export(prefix)
    np.save(str(tmp_path / 'x.npy'), x.asnumpy())
    np.save(str(tmp_path / 'y.npy'), y.asnumpy())
    script = str(tmp_path / 'load.py')
    with open(script, 'w') as f:
        f.write(_LOAD_IN_191)
    env = {k: v for k, v in os.environ.items() if k != 'PYTHONPATH'}
    done = subprocess.run([MXNET191_PYTHON, script, prefix, str(tmp_path / 'x.npy'),
                           str(tmp_path / 'y.npy')], capture_output=True, text=True,
                          timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.startswith('ok')


@pytest.mark.parametrize('build', ['lenet', 'lstm'])
def test_node_by_node_runner_matches_cached_op(monkeypatch, build):
    """Without mx.nd.CachedOp the graph runs operator by operator: same outputs and
    gradients (the LSTM's symbolic zero begin state gets its batch size from inference)."""
    def make():
        mx.random.seed(9)
        if build == 'lenet':
            net = _lenet()
        else:
            net = gluon.rnn.LSTM(6, num_layers=2, layout='NTC', prefix='lstm_')
        net.initialize(mx.init.Xavier())
        net.hybridize()
        return net
    shape = (2, 1, 12, 12) if build == 'lenet' else (3, 4, 5)
    x = _data(*shape)
    results = []
    for cached in (True, False):
        if not cached:
            monkeypatch.delattr(mx.ndarray, 'CachedOp', raising=False)
        net = make()
        with autograd.record():
            out = net(x)
            loss = (out * out).sum()
        loss.backward()
        results.append((out.asnumpy(), {k[len(net.prefix):]: p.grad().asnumpy()
                                         for k, p in net.collect_params().items()
                                         if p.grad_req != 'null'}))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-5, atol=1e-6)
    for key, grad in results[0][1].items():
        np.testing.assert_allclose(results[1][1][key], grad, rtol=1e-4, atol=1e-5, err_msg=key)


def test_graph_fills_zero_dims_of_a_symbolic_begin_state():
    data = mx.sym.var('data')
    state = mx.sym.zeros(shape=(0, 3))
    out = (mx.sym.FullyConnected(data, num_hidden=4, name='i2h')
           + mx.sym.FullyConnected(state, num_hidden=4, name='h2h'))
    _, out_shapes, _ = out.infer_shape(data=(5, 7))
    assert out_shapes == [(5, 4)]
    internals = out.get_internals()
    shapes = dict(zip(internals.list_outputs(), internals.infer_shape(data=(5, 7))[1]))
    assert shapes[state.list_outputs()[0]] == (5, 3)


def test_rnn_layer_inside_hybridized_network_gets_deferred_shapes():
    mx.random.seed(5)
    net = nn.HybridSequential(prefix='seq_')
    with net.name_scope():
        net.add(gluon.rnn.LSTM(6, bidirectional=True), nn.Flatten(), nn.Dense(3))
    net.initialize()
    x = _data(4, 2, 5)
    expected = net(x).asnumpy()          # imperative, per-layer shape rules
    fresh = nn.HybridSequential(prefix='seq_')
    with fresh.name_scope():
        fresh.add(gluon.rnn.LSTM(6, bidirectional=True), nn.Flatten(), nn.Dense(3))
    fresh.initialize()
    fresh.hybridize()
    fresh(x)                             # graph inference + the LSTM's own rule
    for name, param in fresh.collect_params().items():
        assert param.shape == net.collect_params()[name].shape, name
        param.set_data(net.collect_params()[name].data())
    np.testing.assert_allclose(fresh(x).asnumpy(), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("inline_limit, static_alloc, inlined", [
    (3, False, True), (2, False, False), (0, False, False), (3, True, False)])
def test_small_graphs_are_recorded_op_by_op_up_to_inline_limit(inline_limit, static_alloc,
                                                                   inlined):
    net = nn.HybridSequential()
    with net.name_scope():
        for _ in range(3):
            net.add(nn.Dense(4))
    net.initialize()
    x = mx.nd.array(np.random.uniform(size=(2, 5)))
    with autograd.record():
        expected = net(x)
    expected.backward()
    grads = [p.grad().asnumpy() for p in net.collect_params().values()]
    net.hybridize(inline_limit=inline_limit, static_alloc=static_alloc)
    with autograd.record():
        y = net(x)
    ops = [n['op'] for n in json.loads(autograd.get_symbol(y).tojson())['nodes']]
    assert ops.count('FullyConnected') == (3 if inlined else 0)
    assert ops.count('_CachedOp') == (0 if inlined else 1)
    y.backward()
    np.testing.assert_allclose(y.asnumpy(), expected.asnumpy(), rtol=1e-6)
    for p, g in zip(net.collect_params().values(), grads):
        np.testing.assert_allclose(p.grad().asnumpy(), g, rtol=1e-5, atol=1e-7)


def test_inline_limit_must_be_an_integer():
    net = nn.Dense(2)
    net.initialize()
    net.hybridize(inline_limit='many')
    with pytest.raises(mx.MXNetError, match='inline_limit'):
        net(mx.nd.ones((1, 3)))


class _CountingIdentity(mx.operator.CustomOp):
    backward_calls = 0

    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        _CountingIdentity.backward_calls += 1
        self.assign(in_grad[0], req[0], out_grad[0])


@mx.operator.register("hybrid_counting_identity")
class _CountingIdentityProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=True)

    def infer_shape(self, in_shape):
        return in_shape, in_shape, []

    def create_operator(self, ctx, shapes, dtypes):
        return _CountingIdentity()


@pytest.mark.parametrize("data_needs_grad", [False, True])
def test_hybridized_backward_skips_what_only_unwanted_gradients_need(data_needs_grad):
    class Net(gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.dense = nn.Dense(3)

        def hybrid_forward(self, F, x):
            return self.dense(F.Custom(x, op_type="hybrid_counting_identity"))

    net = Net()
    net.initialize()
    net.hybridize(inline_limit=0)
    x = mx.nd.array(np.random.uniform(size=(2, 4)))
    if data_needs_grad:
        x.attach_grad()
    _CountingIdentity.backward_calls = 0
    with autograd.record():
        y = net(x)
    y.backward()
    mx.nd.waitall()
    assert _CountingIdentity.backward_calls == (1 if data_needs_grad else 0)
    w = net.dense.weight.data().asnumpy()
    np.testing.assert_allclose(net.dense.weight.grad().asnumpy(),
                               np.ones((3, 2)).dot(x.asnumpy()), rtol=1e-5)
    if data_needs_grad:
        np.testing.assert_allclose(x.grad.asnumpy(), np.ones((2, 3)).dot(w), rtol=1e-5)
