"""Sparse kernels of _scatter_elemwise_div, _scatter_plus_scalar / _scatter_minus_scalar,
take of a csr array, and FullyConnected with a (num_hidden, 1) bias, checked against numpy."""
import os

import numpy as np
import pytest

import mxnet as mx
from mxnet.test_utils import assert_almost_equal, rand_ndarray

os.environ.setdefault('MXNET_STORAGE_FALLBACK_LOG_VERBOSE', '0')


@pytest.mark.parametrize('rhs_stype', ['default', 'row_sparse', 'csr'])
def test_scatter_div_computes_lhs_rows_only(rhs_stype):
    lhs = mx.nd.sparse.row_sparse_array((np.array([[2, 4], [6, 8]], np.float32), [1, 3]),
                                        shape=(5, 2))
    rhs_np = np.array([[1, 1], [2, 4], [0, 0], [3, 0], [5, 5]], np.float32)
    rhs = mx.nd.array(rhs_np).tostype(rhs_stype)
    out = mx.nd._internal._scatter_elemwise_div(lhs, rhs)
    assert out.stype == 'row_sparse'
    assert out.indices.asnumpy().tolist() == [1, 3]
    got = out.asnumpy()
    assert got[1].tolist() == [1, 1]
    assert got[3][0] == 2 and np.isinf(got[3][1])  # 8 / 0: rhs's missing value divides
    assert (got[[0, 2, 4]] == 0).all()  # rows lhs does not store are not computed


def test_scatter_div_dense_is_elemwise_div():
    a, b = np.random.uniform(1, 2, (3, 4)), np.random.uniform(1, 2, (3, 4))
    out = mx.nd._internal._scatter_elemwise_div(mx.nd.array(a), mx.nd.array(b))
    assert out.stype == 'default'
    assert_almost_equal(out.asnumpy(), a / b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('stype', ['row_sparse', 'csr'])
@pytest.mark.parametrize('op, sign', [('_scatter_plus_scalar', 1), ('_scatter_minus_scalar', -1)])
def test_scatter_scalar_changes_stored_values_only(stype, op, sign):
    x = rand_ndarray((6, 5), stype, density=0.4)
    out = getattr(mx.nd._internal, op)(x, scalar=9)
    assert out.stype == stype
    assert_almost_equal(out.data.asnumpy(), x.data.asnumpy() + sign * 9)
    assert out.indices.asnumpy().tolist() == x.indices.asnumpy().tolist()
    dense = x.asnumpy()
    expect = np.where(dense != 0, dense + sign * 9, 0) if stype == 'csr' else None
    if expect is not None:
        # a stored zero would also change; rand_ndarray stores non-zeros only
        assert_almost_equal(out.asnumpy(), expect)


def test_scatter_scalar_dense_input():
    out = mx.nd._internal._scatter_plus_scalar(mx.nd.zeros((2, 3)), scalar=1.5)
    assert out.stype == 'default' and (out.asnumpy() == 1.5).all()


@pytest.mark.parametrize('mode', ['clip', 'wrap'])
@pytest.mark.parametrize('density', [0, 0.5, 1])
def test_take_of_csr_gives_csr(mode, density):
    data = rand_ndarray((7, 5), 'csr', density=density).astype('int32')
    idx = np.random.randint(low=-5, high=15, size=(9,))
    out = mx.nd.take(data, mx.nd.array(idx), mode=mode)
    assert out.stype == 'csr' and out.dtype == np.int32
    assert out.indptr[0].asscalar() == 0
    assert (out.asnumpy() == np.take(data.asnumpy(), idx, mode=mode, axis=0)).all()


def test_take_of_csr_raise_mode_falls_back_dense():
    data = rand_ndarray((4, 3), 'csr', density=0.5)
    out = mx.nd.take(data, mx.nd.array([3, 0]), mode='raise')
    assert out.stype == 'default'
    assert_almost_equal(out.asnumpy(), data.asnumpy()[[3, 0]])


@pytest.mark.parametrize('data_stype', ['default', 'csr'])
def test_fully_connected_accepts_column_bias(data_stype):
    data = rand_ndarray((5, 10), data_stype, density=0.5)
    weight = rand_ndarray((8, 10), 'row_sparse', density=1)
    bias = np.random.uniform(size=(8, 1)).astype(np.float32)
    out = mx.nd.sparse.FullyConnected(data, weight, num_hidden=8, bias=mx.nd.array(bias))
    expect = data.asnumpy() @ weight.asnumpy().T + bias.reshape(1, 8)
    assert_almost_equal(out.asnumpy(), expect, rtol=1e-4, atol=1e-5)
    with pytest.raises(mx.base.MXNetError):
        mx.nd.FullyConnected(data.tostype('default'), weight.tostype('default'), num_hidden=8,
                             bias=mx.nd.ones((8, 2)))
