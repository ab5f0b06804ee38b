"""mx.nd.histogram / mx.sym.histogram (_histogram), checked against numpy.histogram."""
import numpy as np
import pytest
import mxnet as mx
from mxnet.base import MXNetError


@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 3, 5)])
def test_uniform_bins_over_a_range(shape):
    x = np.random.uniform(-3, 3, shape)
    counts, edges = mx.nd.histogram(mx.nd.array(x, dtype='float64'), bins=6, range=(-2.5, 2.5))
    want_counts, want_edges = np.histogram(x, bins=6, range=(-2.5, 2.5))
    np.testing.assert_array_equal(counts.asnumpy(), want_counts)
    np.testing.assert_allclose(edges.asnumpy(), want_edges)
    assert counts.dtype == np.int64 and edges.dtype == np.float64


def test_given_edges_and_the_last_edge_is_inclusive():
    x = np.array([-1.0, 0.5, 0.49, 2.0, 4.5, 50.0, 51.0, -2.0])
    bins = np.array([-1.0, 0.5, 2.0, 4.5, 50.0])
    counts, edges = mx.nd.histogram(mx.nd.array(x), bins=mx.nd.array(bins))
    np.testing.assert_array_equal(counts.asnumpy(), np.histogram(x, bins=bins)[0])
    np.testing.assert_allclose(edges.asnumpy(), bins)


def test_symbol_forms():
    x = np.random.uniform(-3, 3, (20,))
    sym = mx.sym.histogram(a=mx.sym.var('data'), bins=4, range=(-3, 3))
    out = sym.bind(mx.cpu(), args={'data': mx.nd.array(x)}).forward()[0]
    np.testing.assert_array_equal(out.asnumpy(), np.histogram(x, 4, range=(-3, 3))[0])
    sym = mx.sym.histogram(a=mx.sym.var('data'), bins=mx.sym.var('bins'))
    bins = np.array([-3.0, 0.0, 1.0, 3.0])
    out = sym.bind(mx.cpu(), args={'data': mx.nd.array(x), 'bins': mx.nd.array(bins)}).forward()
    np.testing.assert_array_equal(out[0].asnumpy(), np.histogram(x, bins)[0])


def test_count_without_range_uses_numpy():
    x = np.random.uniform(0, 1, (30,))
    with pytest.warns(UserWarning):
        counts, edges = mx.nd.histogram(mx.nd.array(x), bins=5)
    np.testing.assert_array_equal(counts.asnumpy(), np.histogram(x.astype(np.float32), 5)[0])


def test_bad_arguments():
    with pytest.raises(MXNetError):
        mx.nd._internal._histogram(data=mx.nd.ones((3,)), bin_cnt=0, range=(0, 1))
    with pytest.raises(MXNetError):
        mx.nd._internal._histogram(data=mx.nd.ones((3,)), bin_cnt=3, range=(1, 0))
