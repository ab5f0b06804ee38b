"""group2ctx: each node of a bound graph runs on its ctx_group's context, with
_CrossDeviceCopy nodes where an edge crosses contexts, forward and backward (MXNet 1.9.1)."""
import numpy as np
import pytest
import mxnet as mx

G2C = {'dev1': mx.cpu(1), 'dev2': mx.cpu(2)}


def _chain():
    data1, data2, data3 = (mx.sym.Variable(n) for n in ('data1', 'data2', 'data3'))
    with mx.AttrScope(ctx_group='dev1'):
        net = mx.sym.elemwise_add(data1, data2, name='plus0')
        net = mx.sym.exp(net * 0.5, name='exp0')
    with mx.AttrScope(ctx_group='dev2'):
        net = mx.sym.elemwise_mul(net, data3, name='mul1')
        net = mx.sym.tanh(net, name='tanh1')
    return net


def _bind(sym, values, ctxs, group2ctx=None, grad_req='write'):
    args = {n: mx.nd.array(values[n], ctx=ctxs.get(n, mx.cpu(0))) for n in sym.list_arguments()}
    grads = {n: mx.nd.zeros(values[n].shape, ctx=ctxs.get(n, mx.cpu(0)))
             for n in sym.list_arguments()}
    return sym.bind(mx.cpu(0), args=args, args_grad=grads, grad_req=grad_req,
                    group2ctx=group2ctx)


def _values(sym, shape=(3, 4)):
    rng = np.random.RandomState(1)
    return {n: rng.uniform(-1, 1, shape).astype(np.float32) for n in sym.list_arguments()}


def test_nodes_write_their_outputs_on_their_groups_context():
    sym = _chain()
    vals = _values(sym)
    ex = _bind(sym, vals, {'data1': mx.cpu(1), 'data2': mx.cpu(1), 'data3': mx.cpu(2)}, G2C)
    seen = {}
    ex.set_monitor_callback(lambda name, arr: seen.setdefault(name, arr.context))
    ex.forward(is_train=True)
    ex.backward([mx.nd.ones((3, 4), ctx=mx.cpu(2))])
    mx.nd.waitall()
    assert seen['plus0_output'] == mx.cpu(1)
    assert seen['exp0_output'] == mx.cpu(1)
    assert seen['mul1_output'] == mx.cpu(2)
    assert seen['tanh1_output'] == mx.cpu(2)
    # the value crossing from dev1 to dev2 goes through one copy node, written on dev2
    assert seen['exp0_0_copy_output'] == mx.cpu(2)
    # backward nodes run where their forward node ran
    assert seen['tanh1_backward_output'] == mx.cpu(2)
    assert seen['exp0_backward_output'] == mx.cpu(1)
    assert ex.outputs[0].context == mx.cpu(2)


def test_results_and_gradients_equal_a_single_context_bind():
    sym = _chain()
    vals = _values(sym)
    placed = _bind(sym, vals, {'data1': mx.cpu(1), 'data2': mx.cpu(1), 'data3': mx.cpu(2)}, G2C)
    plain = _bind(sym, vals, {})
    head = np.random.RandomState(2).uniform(-1, 1, (3, 4)).astype(np.float32)
    a = placed.forward(is_train=True)[0].asnumpy()
    b = plain.forward(is_train=True)[0].asnumpy()
    np.testing.assert_array_equal(a, b)
    placed.backward([mx.nd.array(head, ctx=mx.cpu(2))])
    plain.backward([mx.nd.array(head)])
    for name in sym.list_arguments():
        assert placed.grad_dict[name].context == placed.arg_dict[name].context
        np.testing.assert_array_equal(placed.grad_dict[name].asnumpy(),
                                      plain.grad_dict[name].asnumpy())
    # and they are not trivially zero
    assert np.abs(plain.grad_dict['data1'].asnumpy()).sum() > 0


def test_grad_req_add_accumulates_across_contexts():
    sym = _chain()
    vals = _values(sym)
    ctxs = {'data1': mx.cpu(1), 'data2': mx.cpu(1), 'data3': mx.cpu(2)}
    placed = _bind(sym, vals, ctxs, G2C, grad_req='add')
    plain = _bind(sym, vals, {}, grad_req='write')
    for ex in (placed, plain):
        ex.forward(is_train=True)
    placed.backward([mx.nd.ones((3, 4), ctx=mx.cpu(2))])
    placed.backward([mx.nd.ones((3, 4), ctx=mx.cpu(2))])
    plain.backward([mx.nd.ones((3, 4))])
    for name in sym.list_arguments():
        np.testing.assert_allclose(placed.grad_dict[name].asnumpy(),
                                   2 * plain.grad_dict[name].asnumpy(), rtol=1e-6)


def test_debug_str_shows_the_copy_nodes():
    sym = _chain()
    vals = _values(sym)
    ex = _bind(sym, vals, {'data1': mx.cpu(1), 'data2': mx.cpu(1), 'data3': mx.cpu(2)}, G2C)
    text = ex.debug_str()
    assert "Op:_CrossDeviceCopy, Name=exp0_0_copy" in text
    plain = _bind(sym, vals, {}).debug_str()
    assert "_CrossDeviceCopy" not in plain


def test_simple_bind_mlp_runs_each_stage_on_its_context():
    with mx.AttrScope(ctx_group='stage1'):
        data = mx.sym.Variable('data')
        act1 = mx.sym.Activation(mx.sym.FullyConnected(data, name='fc1', num_hidden=8),
                                 name='relu1', act_type='relu')
    with mx.AttrScope(ctx_group='stage2'):
        fc2 = mx.sym.FullyConnected(act1, name='fc2', num_hidden=5)
        mlp = mx.sym.SoftmaxOutput(fc2, name='softmax')
    g2c = {'stage1': mx.cpu(1), 'stage2': mx.cpu(2)}
    placed = mlp.simple_bind(mx.cpu(0), group2ctx=g2c, data=(4, 6))
    plain = mlp.simple_bind(mx.cpu(0), data=(4, 6))
    rng = np.random.RandomState(0)
    for name in mlp.list_arguments():
        v = rng.uniform(-1, 1, plain.arg_dict[name].shape)
        if name == 'softmax_label':
            v = rng.randint(0, 5, plain.arg_dict[name].shape)
        placed.arg_dict[name][:] = v
        plain.arg_dict[name][:] = v
    where = {}
    placed.set_monitor_callback(lambda name, arr: where.setdefault(name, arr.context))
    np.testing.assert_allclose(placed.forward(is_train=True)[0].asnumpy(),
                               plain.forward(is_train=True)[0].asnumpy(), rtol=1e-6)
    placed.backward()
    plain.backward()
    mx.nd.waitall()
    assert where['fc1_output'] == mx.cpu(1) and where['relu1_output'] == mx.cpu(1)
    assert where['fc2_output'] == mx.cpu(2) and where['softmax_output'] == mx.cpu(2)
    for name in mlp.list_arguments():
        if name == 'softmax_label':
            continue
        np.testing.assert_allclose(placed.grad_dict[name].asnumpy(),
                                   plain.grad_dict[name].asnumpy(), rtol=1e-5, atol=1e-7)


def test_reshape_keeps_the_placement():
    sym = _chain()
    ex = sym.simple_bind(mx.cpu(0), group2ctx=G2C, data1=(3, 4), data2=(3, 4), data3=(3, 4))
    small = ex.reshape(data1=(2, 4), data2=(2, 4), data3=(2, 4))
    assert "_CrossDeviceCopy" in small.debug_str()
    small.forward()
    assert small.outputs[0].context == mx.cpu(2)


def test_arrays_elsewhere_need_group2ctx():
    # as MXNet 1.9.1: without group2ctx every argument must be on the bind context
    sym = _chain()
    vals = _values(sym)
    with pytest.raises(mx.MXNetError, match="All arguments must be in global context"):
        _bind(sym, vals, {'data3': mx.cpu(2)})


def test_a_written_input_cannot_cross_devices():
    with mx.AttrScope(ctx_group='dev1'):
        data = mx.sym.Variable('data')
    with mx.AttrScope(ctx_group='dev2'):
        bn = mx.sym.BatchNorm(data, name='bn')
    ex_args = {'data': mx.nd.ones((2, 3), ctx=mx.cpu(1)), 'bn_gamma': mx.nd.ones((3,), ctx=mx.cpu(2)),
               'bn_beta': mx.nd.zeros((3,), ctx=mx.cpu(2))}
    aux = {'bn_moving_mean': mx.nd.zeros((3,), ctx=mx.cpu(1)),
           'bn_moving_var': mx.nd.ones((3,), ctx=mx.cpu(1))}
    with pytest.raises(mx.MXNetError, match="mutable state cannot go across devices"):
        bn.bind(mx.cpu(0), args=ex_args, aux_states=aux, group2ctx=G2C)
