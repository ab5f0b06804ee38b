"""Executor (Symbol.bind / simple_bind machinery) and the infer_shape / infer_type passes,
on graphs recorded by autograd (mx.autograd.get_symbol), checked against numpy."""
import numpy as np
import pytest

import mxnet as mx
from mxnet import executor as E
from mxnet.symbol import _infer


def fc_relu_symbol(bias=False):
    """relu(FullyConnected(var0, var1[, var2], num_hidden=4))."""
    x, w = mx.nd.ones((2, 3)), mx.nd.ones((4, 3))
    arrays = [x, w] + ([mx.nd.ones((4,))] if bias else [])
    for a in arrays:
        a.attach_grad()
    with mx.autograd.record():
        y = mx.nd.FullyConnected(*arrays, num_hidden=4, no_bias=not bias)
        z = mx.nd.relu(y)
    return mx.autograd.get_symbol(z)


def test_infer_shape_fills_weight_and_output_from_data():
    s = fc_relu_symbol(bias=True)
    args, outs, aux = _infer.infer_shape(s, var0=(5, 3))
    assert args == [(5, 3), (4, 3), (4,)]
    assert outs == [(5, 4)]
    assert aux == []


def test_infer_shape_positional_and_partial():
    s = fc_relu_symbol()
    assert _infer.infer_shape(s, (7, 3))[1] == [(7, 4)]
    args, outs, _ = _infer.infer_shape_partial(s, None, (4, 3))
    assert args == [(), (4, 3)]
    assert outs == [()]
    with pytest.warns(UserWarning, match="var0"):
        assert _infer.infer_shape(s, var1=(4, 3)) == (None, None, None)


def test_infer_shape_error_names_node_op_and_shapes():
    s = fc_relu_symbol()
    with pytest.raises(mx.MXNetError, match=r"node_0.*\(4,5\).*\(4,3\)"):
        _infer.infer_shape(s, (5, 3), (4, 5))
    with pytest.raises(mx.MXNetError, match="Keyword argument name nope not found"):
        _infer.infer_shape(s, nope=(1, 2))


def test_infer_type_full_and_partial():
    s = fc_relu_symbol()
    args, outs, _ = _infer.infer_type(s, var0=np.float64)
    assert args == [np.float64, np.float64] and outs == [np.float64]
    assert _infer.infer_type_partial(s) == ([None, None], [None], [])


def test_bind_forward_backward_matches_numpy():
    s = fc_relu_symbol()
    x = np.array([[1., -2., 3.], [-4., 5., -6.]], dtype=np.float32)
    w = np.arange(12, dtype=np.float32).reshape(4, 3) / 10 - 0.5
    gx, gw = mx.nd.zeros((2, 3)), mx.nd.zeros((4, 3))
    ex = E.bind(s, mx.cpu(), {"var0": mx.nd.array(x), "var1": mx.nd.array(w)},
                args_grad={"var0": gx, "var1": gw})
    out = ex.forward(is_train=True)[0].asnumpy()
    y = x @ w.T
    np.testing.assert_allclose(out, np.maximum(y, 0), rtol=1e-6)
    og = np.arange(8, dtype=np.float32).reshape(2, 4)
    ex.backward(mx.nd.array(og))
    dy = og * (y > 0)
    np.testing.assert_allclose(gx.asnumpy(), dy @ w, rtol=1e-5)
    np.testing.assert_allclose(gw.asnumpy(), dy.T @ x, rtol=1e-5)
    assert ex.grad_dict["var0"] is gx


def test_grad_req_add_accumulates_and_null_leaves_alone():
    s = fc_relu_symbol()
    ex = E.simple_bind(s, mx.cpu(), var0=(3, 3), grad_req={"var1": "add"})
    assert ex.grad_arrays[0] is None
    ex.arg_dict["var0"][:] = 2
    ex.arg_dict["var1"][:] = 1
    for _ in range(2):
        ex.forward(is_train=True)
        ex.backward(mx.nd.ones((3, 4)))
    np.testing.assert_allclose(ex.grad_dict["var1"].asnumpy(), np.full((4, 3), 12.0))


def test_backward_without_head_gradient_is_an_error():
    s = fc_relu_symbol()
    ex = E.simple_bind(s, mx.cpu(), var0=(2, 3))
    ex.forward(is_train=True)
    with pytest.raises(mx.MXNetError, match="head_gradient is required"):
        ex.backward()


def test_simple_bind_allocates_zeros_with_dtypes():
    s = fc_relu_symbol(bias=True)
    ex = E.simple_bind(s, mx.cpu(), type_dict={"var0": np.float64, "var1": np.float64},
                       var0=(2, 3))
    assert [a.shape for a in ex.arg_arrays] == [(2, 3), (4, 3), (4,)]
    assert all(a.dtype == np.float64 for a in ex.arg_arrays)
    assert all(float(g.abs().sum().asscalar()) == 0 for g in ex.grad_arrays)
    assert ex.forward()[0].shape == (2, 4)
    with pytest.raises(RuntimeError, match="simple_bind error"):
        E.simple_bind(s, mx.cpu(), var1=(4, 3))


def test_forward_kwargs_copy_into_arguments():
    s = fc_relu_symbol()
    ex = E.simple_bind(s, mx.cpu(), grad_req="null", var0=(1, 3))
    ex.copy_params_from({"var1": mx.nd.ones((4, 3))})
    out = ex.forward(var0=np.array([[1., 2., 3.]], dtype=np.float32))[0]
    np.testing.assert_allclose(out.asnumpy(), np.full((1, 4), 6.0))
    with pytest.raises(ValueError, match="Shape not match"):
        ex.forward(var0=mx.nd.ones((2, 3)))
    with pytest.raises(ValueError, match="not in the arguments"):
        ex.copy_params_from({"nope": mx.nd.ones((1,))})


def test_reshape_shares_parameters_and_refuses_growth():
    s = fc_relu_symbol()
    ex = E.simple_bind(s, mx.cpu(), var0=(4, 3))
    ex.arg_dict["var1"][:] = 1
    small = ex.reshape(var0=(2, 3))
    small.arg_dict["var0"][:] = 1
    np.testing.assert_allclose(small.forward()[0].asnumpy(), np.full((2, 4), 3.0))
    small.arg_dict["var1"][:] = 2
    assert float(ex.arg_dict["var1"].asnumpy()[0, 0]) == 2.0
    with pytest.raises(mx.MXNetError, match="allow_up_sizing"):
        ex.reshape(var0=(8, 3))
    assert ex.reshape(allow_up_sizing=True, var0=(8, 3)).forward()[0].shape == (8, 4)


def test_monitor_sees_node_outputs():
    s = fc_relu_symbol()
    ex = E.simple_bind(s, mx.cpu(), grad_req="null", var0=(2, 3))
    names = []
    ex.set_monitor_callback(lambda name, arr: names.append((name, arr.shape)))
    ex.forward()
    assert names == [("node_0_output", (2, 4)), ("node_1_output", (2, 4))] or \
        [n for n, _ in names] == ["node_0_0", "node_1_0"] or len(names) == 2
    mon = mx.mon.Monitor(1, pattern=".*")
    mon.install(ex)
    mon.tic()
    ex.forward()
    res = mon.toc()
    assert {k for _, k, _ in res} >= {"var0", "var1"}
    assert len(res) == 4


def test_aux_states_are_updated_in_training():
    x = mx.nd.array(np.arange(8, dtype=np.float32).reshape(4, 2))
    g, b = mx.nd.ones((2,)), mx.nd.zeros((2,))
    mm, mv = mx.nd.zeros((2,)), mx.nd.ones((2,))
    for a in (x, g, b):
        a.attach_grad()
    with mx.autograd.record():
        y = mx.nd.BatchNorm(x, g, b, mm, mv, fix_gamma=False, momentum=0.5)
    s = mx.autograd.get_symbol(y)
    n_aux = len(s.list_auxiliary_states())
    assert n_aux == 2
    ex = E.simple_bind(s, mx.cpu(), grad_req="write", var0=(4, 2))
    ex.arg_dict["var0"][:] = x
    ex.arg_dict["var1"][:] = 1
    ex.forward(is_train=True)
    # As MXNet 1.x: the moving statistics are updated by the backward pass.
    ex.backward(mx.nd.ones((4, 2)))
    mean = ex.aux_arrays[0].asnumpy()
    np.testing.assert_allclose(mean, 0.5 * np.array([3.0, 4.0]), rtol=1e-6)


def test_partial_inference_through_ops_fills_unknown_dims():
    a = mx.sym.Variable("a", shape=(0, 10))
    c = mx.sym.Variable("c", shape=(5, 0))
    d = mx.sym.FullyConnected(data=a, num_hidden=21, name="fc") + c
    shapes = dict(zip(d.list_arguments(), d.infer_shape()[0]))
    assert shapes["a"] == (5, 10) and shapes["c"] == (5, 21)
    assert shapes["fc_weight"] == (21, 10)
    x = mx.sym.Variable("x", shape=(0, 10, 0, 0))
    conv = mx.sym.Convolution(x, num_filter=4, kernel=(3, 3), pad=(1, 1), name="conv")
    args, _, _ = conv.infer_shape_partial()
    assert dict(zip(conv.list_arguments(), args))["conv_weight"] == (4, 10, 3, 3)


def test_gradient_array_of_another_dtype_gets_the_cast_gradient():
    # MXNet 1.9.1 binds gradient arrays whose dtype differs from the argument's
    data = mx.sym.var('data')
    sym = mx.sym.sin(data)
    x = mx.nd.array([0.5, 1.0, -2.0], dtype='float16')
    for req, start in (('write', 0.0), ('add', 1.0)):
        g = mx.nd.ones((3,), dtype='float64') * start
        ex = sym.bind(mx.cpu(), args={'data': x}, args_grad={'data': g}, grad_req=req)
        ex.forward(is_train=True)
        ex.backward([mx.nd.ones((3,), dtype='float16')])
        assert g.dtype == np.float64
        want = np.cos(x.asnumpy().astype(np.float32)) + start
        np.testing.assert_allclose(g.asnumpy(), want, rtol=2e-3)


def test_simple_bind_keeps_parameters_out_of_the_shared_buffer():
    # As MXNet 1.9.1 (DataParallelExecutorGroup): the shared buffer holds data and labels
    # only; parameters named in shared_arg_names come from shared_exec, or are new arrays.
    data = mx.sym.var('data')
    out = mx.sym.FullyConnected(data, num_hidden=4, name='fc')
    buf = {}
    ex = out.simple_bind(mx.cpu(), data=(2, 3), shared_arg_names=['fc_weight', 'fc_bias'],
                         shared_buffer=buf)
    assert sorted(buf) == ['data']
    assert buf['data'].shape == (2, 3)
    ex2 = out.simple_bind(mx.cpu(), data=(2, 3), shared_arg_names=['fc_weight', 'fc_bias'],
                          shared_exec=ex, shared_buffer=buf)
    ex.arg_dict['fc_weight'][:] = 7
    assert (ex2.arg_dict['fc_weight'].asnumpy() == 7).all()
    assert sorted(buf) == ['data']
