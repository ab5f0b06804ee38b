"""Sparse Gluon: row_sparse parameters and gradients (Parameter.row_sparse_data, Trainer's
KVStore rules), Embedding(sparse_grad=True), contrib.SparseEmbedding (layer and operator),
and the sparse cases of gluon.utils. Values are checked against numpy."""
import os
import tempfile

import numpy as np
import pytest
import scipy.sparse as sps

import mxnet as mx
from mxnet import autograd, gluon
from mxnet.base import MXNetError
from mxnet.test_utils import assert_almost_equal

os.environ.setdefault('MXNET_STORAGE_FALLBACK_LOG_VERBOSE', '0')


def embedding_grad(idx, ograd, rows):
    """numpy reference of an embedding's weight gradient."""
    g = np.zeros((rows, ograd.shape[-1]), dtype=ograd.dtype)
    np.add.at(g, idx.reshape(-1).astype(np.int64), ograd.reshape(-1, ograd.shape[-1]))
    return g


# ---- operators ---------------------------------------------------------------------------

def test_embedding_sparse_grad_is_row_sparse_of_used_rows():
    w = mx.nd.random.uniform(shape=(10, 3))
    w.attach_grad(stype='row_sparse')
    idx = np.array([[7, 1], [7, 4]], dtype=np.float32)
    ograd = np.random.uniform(size=(2, 2, 3)).astype(np.float32)
    with autograd.record():
        y = mx.nd.Embedding(mx.nd.array(idx), w, input_dim=10, output_dim=3, sparse_grad=True)
    y.backward(mx.nd.array(ograd))
    assert w.grad.stype == 'row_sparse'
    assert w.grad.indices.asnumpy().tolist() == [1, 4, 7]
    assert_almost_equal(w.grad.asnumpy(), embedding_grad(idx, ograd, 10), rtol=1e-5, atol=1e-6)


def test_embedding_sparse_grad_into_dense_buffer_stays_dense():
    w = mx.nd.random.uniform(shape=(6, 2))
    w.attach_grad()
    idx = np.array([0, 5, 5], dtype=np.float32)
    with autograd.record():
        y = mx.nd.Embedding(mx.nd.array(idx), w, input_dim=6, output_dim=2, sparse_grad=True)
    y.backward()
    assert w.grad.stype == 'default'
    assert_almost_equal(w.grad.asnumpy(), embedding_grad(idx, np.ones((3, 2), np.float32), 6))


def test_backward_embedding_op_gives_row_sparse_imperatively():
    ograd = mx.nd.array(np.arange(8, dtype=np.float32).reshape(4, 2))
    idx = mx.nd.array([3, 0, 3, 9])  # 9 is clipped to the last row (5)
    g = mx.nd._internal._backward_Embedding(ograd, idx, input_dim=6, output_dim=2,
                                            sparse_grad=True)
    assert g.stype == 'row_sparse'
    assert g.indices.asnumpy().tolist() == [0, 3, 5]
    assert_almost_equal(g.asnumpy(), embedding_grad(np.array([3, 0, 3, 5]), ograd.asnumpy(), 6))
    dense = mx.nd._internal._backward_Embedding(ograd, idx, input_dim=6, output_dim=2)
    assert dense.stype == 'default'
    assert_almost_equal(dense.asnumpy(), g.asnumpy())


def test_contrib_sparse_embedding_forward_reads_stored_rows_only():
    w = np.random.uniform(size=(8, 4)).astype(np.float32)
    rsp = mx.nd.sparse.row_sparse_array((w[[1, 6]], [1, 6]), shape=(8, 4))
    idx = np.array([[1, 2], [6, 1]], dtype=np.float32)
    out = mx.nd.contrib.SparseEmbedding(mx.nd.array(idx), rsp, input_dim=8, output_dim=4)
    expect = np.where(np.isin(idx, [1, 6])[..., None], w[idx.astype(int)], 0)
    assert out.stype == 'default' and out.shape == (2, 2, 4)
    assert_almost_equal(out.asnumpy(), expect)
    dense_out = mx.nd.contrib.SparseEmbedding(mx.nd.array(idx), mx.nd.array(w), input_dim=8,
                                              output_dim=4)
    assert_almost_equal(dense_out.asnumpy(), w[idx.astype(int)])


def test_embedding_reads_row_sparse_weight_and_records_its_gradient():
    w = np.random.uniform(size=(9, 2)).astype(np.float32)
    rsp = mx.nd.sparse.row_sparse_array((w[[0, 5]], [0, 5]), shape=(9, 2))
    rsp.attach_grad(stype='row_sparse')
    idx = np.array([5, 3, 5], dtype=np.float32)
    with autograd.record():
        y = mx.nd.Embedding(mx.nd.array(idx), rsp, input_dim=9, output_dim=2, sparse_grad=True)
    assert y.stype == 'default'
    assert_almost_equal(y.asnumpy(), np.stack([w[5], np.zeros(2), w[5]]))
    y.backward()
    assert rsp.grad.indices.asnumpy().tolist() == [3, 5]
    assert_almost_equal(rsp.grad.asnumpy(), embedding_grad(idx, np.ones((3, 2), np.float32), 9))


def test_contrib_sparse_embedding_weight_grad_is_row_sparse():
    w = mx.nd.random.uniform(shape=(8, 4))
    w.attach_grad()
    idx = np.array([5, 2, 5], dtype=np.float32)
    ograd = np.random.uniform(size=(3, 4)).astype(np.float32)
    with autograd.record():
        y = mx.nd.contrib.SparseEmbedding(mx.nd.array(idx), w, input_dim=8, output_dim=4)
    y.backward(mx.nd.array(ograd))
    assert_almost_equal(w.grad.asnumpy(), embedding_grad(idx, ograd, 8), rtol=1e-5, atol=1e-6)
    g = mx.nd._internal._backward_SparseEmbedding(mx.nd.array(ograd), mx.nd.array(idx),
                                                  input_dim=8, output_dim=4)
    assert g.stype == 'row_sparse' and g.indices.asnumpy().tolist() == [2, 5]


@pytest.mark.parametrize('weight_stype', ['default', 'row_sparse'])
def test_symbol_sparse_embedding_bound_executor(weight_stype):
    data = mx.sym.Variable('data')
    weight = mx.sym.Variable('embed_weight', stype=weight_stype)
    embed = mx.sym.contrib.SparseEmbedding(data=data, weight=weight, input_dim=12, output_dim=3,
                                           deterministic=True, name='embed')
    exe = embed.simple_bind(mx.cpu(), grad_req={'data': 'null', 'embed_weight': 'write'},
                            data=(5,))
    idx = np.array([0, 11, 4, 4, 7])
    w = np.random.uniform(size=(12, 3)).astype(np.float32)
    exe.arg_dict['data'][:] = idx
    exe.arg_dict['embed_weight'][:] = w
    exe.forward(is_train=True)
    assert_almost_equal(exe.outputs[0].asnumpy(), w[idx])
    ograd = np.random.uniform(size=(5, 3)).astype(np.float32)
    exe.backward([mx.nd.array(ograd)])
    assert_almost_equal(exe.grad_dict['embed_weight'].asnumpy(), embedding_grad(idx, ograd, 12),
                        rtol=1e-5, atol=1e-6)


def test_sparse_embedding_param_checks_dtype():
    with pytest.raises(MXNetError):
        mx.nd.contrib.SparseEmbedding(mx.nd.array([0]), mx.nd.ones((2, 2)), input_dim=2,
                                      output_dim=2, dtype='int8')


# ---- Parameter ---------------------------------------------------------------------------

def test_row_sparse_parameter_needs_trainer_and_refuses_data():
    p = gluon.Parameter('w', shape=(6, 2), stype='row_sparse', grad_stype='row_sparse')
    p.initialize(init='xavier', ctx=[mx.cpu(0), mx.cpu(1)])
    rows = mx.nd.array([0, 3])
    with pytest.raises(RuntimeError, match='no Trainer'):
        p.row_sparse_data(rows)
    with pytest.raises(RuntimeError, match='row_sparse_data'):
        p.data()
    with pytest.raises(RuntimeError, match='row_sparse_data'):
        p.list_data()
    with pytest.raises(TypeError):
        gluon.Trainer([p], 'sgd')
        p.row_sparse_data([0, 3])
    dense = gluon.Parameter('d', shape=(2, 2))
    dense.initialize()
    with pytest.raises(RuntimeError, match='data()'):
        dense.row_sparse_data(rows)
    assert [g.stype for g in p.list_grad()] == ['row_sparse', 'row_sparse']
    assert p.var().attr('__storage_type__') == '1'


def test_row_sparse_data_holds_requested_rows_on_row_id_context():
    p = gluon.Parameter('x', shape=(5, 3), stype='row_sparse')
    p.initialize(init=mx.init.Uniform(), ctx=[mx.cpu(1), mx.cpu(2)])
    gluon.Trainer([p], 'sgd', kvstore='local')
    full = p._data[0].copy().asnumpy()
    got = p.row_sparse_data(mx.nd.array([4, 1, 4], ctx=mx.cpu(2)))
    assert got.stype == 'row_sparse' and got.context == mx.cpu(2)
    assert got.indices.asnumpy().tolist() == [1, 4]
    expect = np.zeros_like(full)
    expect[[1, 4]] = full[[1, 4]]
    assert_almost_equal(got.asnumpy(), expect)
    copies = p.list_row_sparse_data(mx.nd.arange(0, 5))
    assert len(copies) == 2
    for c in copies:
        assert_almost_equal(c.asnumpy(), full)


def test_sparse_parameter_dict_save_load_and_reset_ctx():
    params = gluon.ParameterDict('net_')
    params.get('w0', shape=(4, 3))
    params.get('w1', shape=(4, 3), stype='row_sparse')
    params.initialize(ctx=mx.cpu(1))
    gluon.Trainer(params, 'sgd')
    all_rows = mx.nd.arange(0, 4, ctx=mx.cpu(1))
    w1 = params['net_w1'].row_sparse_data(all_rows).asnumpy()
    with tempfile.TemporaryDirectory() as d:
        fname = os.path.join(d, 'p.params')
        params.save(fname)
        saved = mx.nd.load(fname)
        assert saved['net_w1'].stype == 'row_sparse'
        assert_almost_equal(saved['net_w1'].asnumpy(), w1)
        sparse_again = gluon.ParameterDict('net_')
        sparse_again.get('w0', shape=(4, 3))
        sparse_again.get('w1', shape=(4, 3), stype='row_sparse')
        sparse_again.load(fname, mx.cpu(1))
        gluon.Trainer(sparse_again, 'sgd')
        assert_almost_equal(sparse_again['net_w1'].row_sparse_data(all_rows).asnumpy(), w1)
        dense = gluon.ParameterDict('net_')
        dense.get('w0', shape=(4, 3))
        dense.get('w1', shape=(4, 3))
        dense.load(fname, mx.cpu(1))
        assert dense['net_w1'].data(mx.cpu(1)).stype == 'default'
        assert_almost_equal(dense['net_w1'].data(mx.cpu(1)).asnumpy(), w1)
    params['net_w1'].reset_ctx([mx.cpu(2), mx.cpu(3)])
    assert params['net_w1'].list_ctx() == [mx.cpu(2), mx.cpu(3)]
    assert all(d.stype == 'row_sparse' for d in params['net_w1']._data)


def test_zero_grad_empties_row_sparse_gradients():
    params = gluon.ParameterDict()
    params.get('e', shape=(5, 2), grad_stype='row_sparse')
    params.get('d', shape=(2, 2))
    params.initialize()
    e = params['e']
    with autograd.record():
        y = mx.nd.Embedding(mx.nd.array([1, 3]), e.data(), input_dim=5, output_dim=2,
                            sparse_grad=True)
    y.backward()
    assert e.grad().indices.asnumpy().tolist() == [1, 3]
    params['d'].grad()[:] = 7
    params.zero_grad()
    assert e.grad().stype == 'row_sparse' and e.grad().indices.shape == (0,)
    assert (params['d'].grad().asnumpy() == 0).all()
    e.grad()[:] = 1  # a stored value, then the Parameter's own zero_grad
    e.zero_grad()
    assert (e.grad().asnumpy() == 0).all()


def test_cast_keeps_storage_types():
    p = gluon.Parameter('c', shape=(3, 2), stype='row_sparse', grad_stype='row_sparse')
    p.initialize(init=mx.init.One())
    p.cast('float64')
    assert p._data[0].stype == 'row_sparse' and p._data[0].dtype == np.float64
    assert p.list_grad()[0].stype == 'row_sparse' and p.list_grad()[0].dtype == np.float64


def test_symbol_block_refuses_row_sparse_variables():
    data = mx.sym.var('data')
    weight = mx.sym.var('weight', stype='row_sparse')
    out = mx.sym.dot(data, weight)
    with pytest.raises(AssertionError, match='row_sparse'):
        gluon.SymbolBlock(out, data)


# ---- layers and Trainer ------------------------------------------------------------------

@pytest.mark.parametrize('sparse_grad', [True, False])
def test_embedding_layer_gradient(sparse_grad):
    layer = gluon.nn.Embedding(10, 4, sparse_grad=sparse_grad)
    layer.initialize()
    x = mx.nd.array([3, 4, 2, 0, 1, 3])
    with autograd.record():
        y = layer(x)
    y.backward()
    g = layer.weight.grad()
    assert g.stype == ('row_sparse' if sparse_grad else 'default')
    assert_almost_equal(g.asnumpy(), embedding_grad(x.asnumpy(), np.ones((6, 4), np.float32), 10))


def test_hybridized_sparse_grad_embedding_sums_all_uses():
    layer = gluon.nn.Embedding(10, 1, sparse_grad=True)
    layer.initialize()
    layer.hybridize()
    with autograd.record():
        loss = layer(mx.nd.ones((300,))).sum() + layer(mx.nd.array([2, 2])).sum()
    loss.backward()
    g = layer.weight.grad()
    assert g.stype == 'row_sparse'
    expect = np.zeros((10, 1), np.float32)
    expect[1], expect[2] = 300, 2
    assert_almost_equal(g.asnumpy(), expect)


def test_trainer_row_sparse_weight_updates_pulled_rows_on_kvstore():
    layer = gluon.contrib.nn.SparseEmbedding(6, 2, weight_initializer=mx.init.One())
    layer.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
    trainer = gluon.Trainer(layer.collect_params(), 'sgd', {'learning_rate': 0.5},
                            kvstore='local')
    xs = [mx.nd.array([1, 1, 4], ctx=mx.cpu(0)), mx.nd.array([4], ctx=mx.cpu(1))]
    with autograd.record():
        losses = [layer(x).sum() for x in xs]
    autograd.backward(losses)
    assert layer.weight.grad(mx.cpu(0)).stype == 'row_sparse'
    trainer.step(1)
    assert trainer._update_on_kvstore and trainer._kvstore is not None
    w = layer.weight.row_sparse_data(mx.nd.arange(0, 6)).asnumpy()
    expect = np.ones((6, 2), np.float32)
    expect[1] -= 0.5 * 2  # two uses on cpu(0)
    expect[4] -= 0.5 * 2  # one use on each context, summed by the store
    assert_almost_equal(w, expect)


def test_trainer_row_sparse_weight_refuses_update_on_workers():
    p = gluon.Parameter('w', shape=(3, 2), stype='row_sparse', grad_stype='row_sparse')
    p.initialize()
    trainer = gluon.Trainer([p], 'sgd', update_on_kvstore=False)
    with pytest.raises(ValueError, match='update_on_kvstore=False'):
        trainer._init_kvstore()
    other = p._trainer
    with pytest.raises(RuntimeError, match='More than one trainers'):
        gluon.Trainer([p], 'sgd')
    assert other is trainer


def test_trainer_dense_weight_sparse_grad_sums_contexts_then_updates_on_workers():
    layer = gluon.nn.Embedding(5, 2, sparse_grad=True, weight_initializer=mx.init.Zero())
    ctxs = [mx.cpu(0), mx.cpu(1)]
    layer.initialize(ctx=ctxs)
    trainer = gluon.Trainer(layer.collect_params(), 'sgd', {'learning_rate': 1.0})
    xs = [mx.nd.array([0, 2], ctx=ctxs[0]), mx.nd.array([2, 3], ctx=ctxs[1])]
    with autograd.record():
        losses = [layer(x).sum() for x in xs]
    autograd.backward(losses)
    trainer.step(1)
    assert trainer._kvstore is not None and not trainer._update_on_kvstore
    expect = -embedding_grad(np.array([0, 2, 2, 3]), np.ones((4, 2), np.float32), 5)
    for c in ctxs:
        assert_almost_equal(layer.weight.data(c).asnumpy(), expect)


def test_trainer_sparse_states_save_load_round_trip():
    layer = gluon.contrib.nn.SparseEmbedding(4, 2, weight_initializer=mx.init.One())
    layer.initialize()
    trainer = gluon.Trainer(layer.collect_params(), 'sgd',
                            {'learning_rate': 0.1, 'momentum': 0.9})
    for _ in range(2):
        with autograd.record():
            loss = layer(mx.nd.array([0, 3])).sum()
        loss.backward()
        trainer.step(1)
    with tempfile.TemporaryDirectory() as d:
        fname = os.path.join(d, 'states')
        trainer.save_states(fname)
        trainer.load_states(fname)
    states = trainer._kvstore._updater.states
    mom = states[0].asnumpy() if hasattr(states[0], 'asnumpy') else states[0][0].asnumpy()
    # momentum after two lazy steps of gradient 1 on rows 0 and 3: -(0.1 + 0.9 * 0.1)
    expect = np.zeros((4, 2), np.float32)
    expect[[0, 3]] = -(0.1 + 0.9 * 0.1)
    assert_almost_equal(mom, expect)
    assert trainer._optimizer is trainer._kvstore._updater.optimizer


# ---- utils -------------------------------------------------------------------------------

@pytest.mark.parametrize('stype', ['default', 'row_sparse'])
def test_clip_global_norm_sparse(stype):
    a = mx.nd.array(np.array([[3, 0], [0, 0]], np.float32)).tostype(stype)
    b = mx.nd.array(np.array([[0, 4]], np.float32)).tostype(stype)
    norm = gluon.utils.clip_global_norm([a, b], 1.0)
    assert abs(norm - 5.0) < 1e-5
    assert a.stype == stype
    assert_almost_equal(a.asnumpy(), np.array([[0.6, 0], [0, 0]]))
    assert_almost_equal(b.asnumpy(), np.array([[0, 0.8]]))


def test_split_and_load_csr_keeps_csr_slices():
    dense = np.zeros((6, 5), np.float32)
    dense[1, 2], dense[4, 0], dense[5, 4] = 1, 2, 3
    csr = mx.nd.sparse.csr_matrix(sps.csr_matrix(dense))
    parts = gluon.utils.split_and_load(csr, [mx.cpu(0), mx.cpu(1)])
    assert all(isinstance(p, mx.nd.sparse.CSRNDArray) for p in parts)
    assert parts[1].context == mx.cpu(1)
    assert_almost_equal(parts[0].asnumpy(), dense[:3])
    assert_almost_equal(parts[1].asnumpy(), dense[3:])
    uneven = gluon.utils.split_data(csr, 4, even_split=False)
    assert [p.shape[0] for p in uneven] == [2, 2, 1, 1]
    assert_almost_equal(np.concatenate([p.asnumpy() for p in uneven]), dense)
