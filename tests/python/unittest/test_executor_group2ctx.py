"""simple_bind(group2ctx=...): arrays on the context of their variable's ctx_group (the nodes'
placement: test_executor_node_placement.py)."""
import numpy as np
import mxnet as mx


def _two_stage():
    with mx.AttrScope(ctx_group='stage1'):
        data = mx.sym.Variable('data')
        fc1 = mx.sym.FullyConnected(data, name='fc1', num_hidden=4)
    with mx.AttrScope(ctx_group='stage2'):
        out = mx.sym.BatchNorm(mx.sym.FullyConnected(fc1, name='fc2', num_hidden=3), name='bn')
    return out


def test_simple_bind_places_arrays_by_group():
    sym = _two_stage()
    g2c = {'stage1': mx.cpu(1), 'stage2': mx.cpu(2)}
    ex = sym.simple_bind(mx.cpu(0), group2ctx=g2c, data=(2, 5))
    for name, arr, grad in zip(sym.list_arguments(), ex.arg_arrays, ex.grad_arrays):
        want = g2c['stage1'] if name.startswith(('data', 'fc1')) else g2c['stage2']
        assert arr.context == want, name
        assert grad.context == want, name
    for arr in ex.aux_arrays:
        assert arr.context == g2c['stage2']


def test_simple_bind_group2ctx_computes_same_values():
    sym = _two_stage()
    plain = sym.simple_bind(mx.cpu(0), data=(2, 5))
    placed = sym.simple_bind(mx.cpu(0), group2ctx={'stage1': mx.cpu(1), 'stage2': mx.cpu(2)},
                             data=(2, 5))
    rng = np.random.RandomState(0)
    for name in sym.list_arguments():
        v = rng.uniform(-1, 1, plain.arg_dict[name].shape)
        plain.arg_dict[name][:] = v
        placed.arg_dict[name][:] = v
    for name in sym.list_auxiliary_states():
        plain.aux_dict[name][:] = 1
        placed.aux_dict[name][:] = 1
    a = plain.forward(is_train=True)[0]
    b = placed.forward(is_train=True)[0]
    np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6)
    plain.backward([mx.nd.ones(a.shape)])
    placed.backward([mx.nd.ones(b.shape)])
    np.testing.assert_allclose(plain.grad_dict['fc1_weight'].asnumpy(),
                               placed.grad_dict['fc1_weight'].asnumpy(), rtol=1e-5)


def test_simple_bind_unmapped_group_is_an_error():
    # as MXNet 1.9.1: a node in a ctx_group that group2ctx does not map cannot be placed
    sym = _two_stage()
    try:
        sym.simple_bind(mx.cpu(0), group2ctx={'stage2': mx.cpu(3)}, data=(2, 5))
    except (mx.MXNetError, RuntimeError) as e:
        assert "stage1" in str(e)
    else:
        raise AssertionError("an unmapped ctx_group was accepted")
