"""Shape semantics outside numpy-shape mode (MXNet 1.9.1): 0 dims and () mean unknown, -1
dims are unknown, and partly known shapes are inferred across the graph."""
import numpy as np
import pytest
import mxnet as mx
from mxnet.base import MXNetError


def test_init_ops_reject_unknown_shapes_imperatively():
    for f in (mx.nd.zeros, mx.nd.ones):
        with pytest.raises(MXNetError):
            f(shape=())
        with pytest.raises(MXNetError):
            f(shape=(2, 0))
    with mx.np_shape():
        assert mx.nd.ones(shape=()).shape == ()
        assert mx.nd.zeros(shape=(2, 0)).shape == (2, 0)


def test_init_ops_with_unknown_dims_take_them_from_the_graph():
    b = mx.sym.ones(shape=[2, 3]) + mx.sym.transpose(mx.sym.ones(shape=[-1, -1]))
    out = b.bind(mx.cpu(), args={}).forward()[0]
    assert out.shape == (2, 3)
    np.testing.assert_allclose(out.asnumpy(), 2 * np.ones((2, 3)))
    b = mx.sym.ones(shape=[2, -1]) + mx.sym.transpose(mx.sym.ones(shape=[3, -1]))
    assert b.bind(mx.cpu(), args={}).forward()[0].shape == (2, 3)


def test_tile_with_zero_reps_needs_numpy_shapes():
    data = mx.nd.arange(16).reshape((4, 4))
    with pytest.raises(MXNetError):
        mx.nd.tile(data, reps=(1, 0, 3))
    with pytest.raises(MXNetError):
        mx.nd.tile(data, reps=(1, 2, -3))
    with mx.np_shape():
        assert mx.nd.tile(data, reps=(1, 0, 3)).shape == (1, 0, 12)


def test_diag_offset_past_the_matrix_is_an_error():
    a = mx.nd.ones((3, 4))
    assert mx.nd.diag(a, k=4).shape == (0,)
    assert mx.nd.diag(a, k=-3).shape == (0,)
    for k in (5, -4):
        with pytest.raises(MXNetError):
            mx.nd.diag(a, k=k)


@pytest.mark.parametrize("begin,end,step,want", [
    ((None, None), (None, 10), [], (0, 10)),
    ((None, None), (None, 10), (None, 2), (0, 5)),
    ((None, 3), (5, 10), [], (0, 7)),
    ((2, 3), (None, 10), (3, 3), (0, 3)),
])
def test_slice_infers_partly_known_shapes(begin, end, step, want):
    var = mx.sym.var("data", shape=(0, 20))
    out = mx.sym.slice(var, begin=begin, end=end, step=step)
    assert out.infer_shape_partial()[1][0] == want


def test_slice_axis_infers_partly_known_shapes():
    var = mx.sym.var("data", shape=(10, 0))
    assert mx.sym.slice_axis(var, axis=0, begin=0, end=5).infer_shape_partial()[1][0] == (5, 0)
    assert mx.sym.slice_axis(var, axis=1, begin=0, end=5).infer_shape_partial()[1][0] == (10, 0)


@pytest.mark.parametrize("src,args,dst", [
    ((2, 3, 5, 5), (0, -1), (2, 75)),
    ((2, 3, 5, 5), (-3, -2), (6, 5, 5)),
    ((2, 3, 5, 5), (-4, 1, 2, -2), (1, 2, 3, 5, 5)),
])
def test_reshape_infers_an_unknown_input_dim_from_its_output(src, args, dst):
    for i in range(len(src)):
        held = list(src)
        held[i] = 0
        net = mx.sym.elemwise_add(mx.sym.var("data").reshape(args), mx.sym.ones(shape=dst))
        ins, outs, _ = net.infer_shape(data=tuple(held))
        assert outs[0] == dst
        assert ins[0] == src
