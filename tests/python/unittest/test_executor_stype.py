"""Storage types of a bound executor's arrays: the graph storage-type pass (sparse outputs,
row_sparse weight gradients, stype_dict / Variable(stype=...)), and values through it."""
import numpy as np
import pytest

import mxnet as mx


def _csr(a):
    return mx.nd.array(np.asarray(a, dtype=np.float32)).tostype("csr")


def test_simple_bind_dot_csr_gives_row_sparse_weight_grad():
    data = mx.sym.var("data", stype="csr")
    out = mx.sym.dot(data, mx.sym.var("w"))
    exe = out.simple_bind(mx.cpu(), grad_req={"data": "null", "w": "write"}, data=(4, 6), w=(6, 3))
    assert exe.arg_dict["data"].stype == "csr"
    assert exe.arg_dict["w"].stype == "default"
    assert exe.grad_dict["w"].stype == "row_sparse"
    assert exe.outputs[0].stype == "default"


def test_stype_dict_overrides_variable_default():
    out = mx.sym.dot(mx.sym.var("data"), mx.sym.var("w"))
    exe = out.simple_bind(mx.cpu(), stype_dict={"data": "csr"}, data=(2, 3), w=(3, 2))
    assert exe.arg_dict["data"].stype == "csr"
    assert exe.grad_dict["w"].stype == "row_sparse"
    # without it everything is dense
    exe = out.simple_bind(mx.cpu(), data=(2, 3), w=(3, 2))
    assert all(a.stype == "default" for a in exe.arg_arrays + exe.grad_arrays)


def test_dot_csr_backward_values():
    a = np.array([[0, 1, 0], [2, 0, 0]], dtype=np.float32)
    w = np.arange(6, dtype=np.float32).reshape(3, 2)
    g = np.array([[1, 2], [3, 4]], dtype=np.float32)
    exe = mx.sym.dot(mx.sym.var("data", stype="csr"), mx.sym.var("w")).bind(
        mx.cpu(), {"data": _csr(a), "w": mx.nd.array(w)},
        args_grad={"data": mx.nd.zeros(a.shape), "w": mx.nd.zeros(w.shape).tostype("row_sparse")})
    exe.forward(is_train=True)
    np.testing.assert_allclose(exe.outputs[0].asnumpy(), a.dot(w))
    exe.backward([mx.nd.array(g)])
    gw = exe.grad_dict["w"]
    assert gw.stype == "row_sparse"
    np.testing.assert_allclose(gw.asnumpy(), a.T.dot(g))
    assert sorted(gw.indices.asnumpy().tolist()) == [0, 1]  # row 2 of w gets no gradient
    np.testing.assert_allclose(exe.grad_dict["data"].asnumpy(), g.dot(w.T))


def test_dot_csr_transpose_a_output_row_sparse_backward_dense():
    a = np.array([[0, 1], [2, 0], [0, 3]], dtype=np.float32)
    w = np.arange(6, dtype=np.float32).reshape(3, 2)
    g = np.ones((2, 2), dtype=np.float32)
    out = mx.sym.dot(mx.sym.var("data", stype="csr"), mx.sym.var("w"), transpose_a=True)
    exe = out.bind(mx.cpu(), {"data": _csr(a), "w": mx.nd.array(w)},
                   args_grad={"data": mx.nd.zeros(a.shape), "w": mx.nd.zeros(w.shape)})
    exe.forward(is_train=True)
    assert exe.outputs[0].stype == "row_sparse"  # csr.T . dense
    np.testing.assert_allclose(exe.outputs[0].asnumpy(), a.T.dot(w))
    exe.backward([mx.nd.array(g)])
    np.testing.assert_allclose(exe.grad_dict["w"].asnumpy(), a.dot(g))
    np.testing.assert_allclose(exe.grad_dict["data"].asnumpy(), w.dot(g.T))


@pytest.mark.parametrize("weight_stype", ["default", "row_sparse"])
@pytest.mark.parametrize("sparse_grad", [True, False])
def test_embedding_sparse_grad(weight_stype, sparse_grad):
    idx = np.array([1, 3, 3, 7, 0])
    weight = mx.sym.var("embed_weight", stype=weight_stype)
    emb = mx.sym.Embedding(data=mx.sym.var("data"), weight=weight, input_dim=10, output_dim=3,
                           sparse_grad=sparse_grad, name="embed")
    exe = emb.simple_bind(mx.cpu(), grad_req={"data": "null", "embed_weight": "write"},
                          data=(5,))
    assert exe.arg_dict["embed_weight"].stype == weight_stype
    expected_stype = "row_sparse" if sparse_grad else "default"
    assert exe.grad_dict["embed_weight"].stype == expected_stype
    w = np.random.uniform(-1, 1, (10, 3)).astype(np.float32)
    exe.arg_dict["data"][:] = idx
    exe.arg_dict["embed_weight"][:] = mx.nd.array(w).tostype(weight_stype)
    exe.forward(is_train=True)
    np.testing.assert_allclose(exe.outputs[0].asnumpy(), w[idx], rtol=1e-6)
    og = np.random.uniform(-1, 1, (5, 3)).astype(np.float32)
    exe.backward([mx.nd.array(og)])
    onehot = np.zeros((5, 10), dtype=np.float32)
    onehot[np.arange(5), idx] = 1
    gw = exe.grad_dict["embed_weight"]
    assert gw.stype == expected_stype
    np.testing.assert_allclose(gw.asnumpy(), onehot.T.dot(og), rtol=1e-5, atol=1e-6)
    if sparse_grad:
        assert gw.indices.asnumpy().tolist() == [0, 1, 3, 7]


def test_sparse_output_types_follow_operators():
    lhs = mx.sym.var("lhs", stype="row_sparse")
    rhs = mx.sym.var("rhs", stype="row_sparse")
    x = mx.nd.array([[1, 2], [0, 0], [3, 4]]).tostype("row_sparse")
    y = mx.nd.array([[0, 0], [5, 6], [0, 0]]).tostype("row_sparse")
    exe = (lhs + rhs).bind(mx.cpu(), {"lhs": x, "rhs": y})
    out = exe.forward()[0]
    assert out.stype == "row_sparse"
    np.testing.assert_allclose(out.asnumpy(), x.asnumpy() + y.asnumpy())
    # a zero-preserving unary op keeps csr, one that maps 0 elsewhere is dense
    c = mx.sym.var("c", stype="csr")
    cv = _csr([[0, 4], [9, 0]])
    exe = mx.sym.Group([mx.sym.sqrt(c), c + 1]).bind(mx.cpu(), {"c": cv})
    o = exe.forward()
    assert [a.stype for a in o] == ["csr", "default"]
    np.testing.assert_allclose(o[0].asnumpy(), np.sqrt(cv.asnumpy()))
    np.testing.assert_allclose(o[1].asnumpy(), cv.asnumpy() + 1)


def test_fallback_op_between_sparse_entries_stays_correct():
    # exp has no sparse kernel (exp(0) != 0): its csr input is densified, its output dense;
    # the sparse entry before it and the dense one after it both hold the right values.
    c = mx.sym.var("c", stype="csr")
    out = mx.sym.exp(mx.sym.sqrt(c)) * 2
    cv = _csr([[0, 4], [1, 0]])
    exe = out.bind(mx.cpu(), {"c": cv}, args_grad={"c": mx.nd.zeros((2, 2))})
    exe.forward(is_train=True)
    assert exe.outputs[0].stype == "default"
    np.testing.assert_allclose(exe.outputs[0].asnumpy(), np.exp(np.sqrt(cv.asnumpy())) * 2,
                               rtol=1e-6)


def test_sparse_entries_run_twice_with_new_values():
    data = mx.sym.var("data", stype="csr")
    exe = mx.sym.dot(data, mx.sym.var("w"), transpose_a=True, forward_stype="row_sparse").bind(
        mx.cpu(), {"data": _csr([[0, 1], [0, 0]]), "w": mx.nd.ones((2, 3))})
    first = exe.forward()[0]
    assert first.stype == "row_sparse"
    assert first.indices.asnumpy().tolist() == [1]
    exe.arg_dict["data"][:] = _csr([[1, 0], [0, 2]])
    second = exe.forward()[0]
    np.testing.assert_allclose(second.asnumpy(), np.array([[1, 0], [0, 2]]).T.dot(np.ones((2, 3))))


def test_bad_storage_type_attribute_names_variable():
    v = mx.sym.var("x", attr={"__storage_type__": "7"})
    with pytest.raises(RuntimeError, match="variable x"):  # simple_bind wraps the error
        (v * 2).simple_bind(mx.cpu(), x=(2, 2))


class _CsrSquare(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        x = in_data[0]
        assert x.stype == "csr"
        self.assign(out_data[0], req[0],
                    mx.nd.sparse.csr_matrix((x.data * x.data, x.indices, x.indptr), shape=x.shape))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], 2 * mx.nd.sparse.elemwise_mul(in_data[0], out_grad[0]))


@mx.operator.register("gstype_csr_square")
class _CsrSquareProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=True)

    def infer_storage_type(self, in_stype):
        return in_stype, ["csr"], []

    def infer_storage_type_backward(self, ograd_stype, in_stype, out_stype, igrad_stype,
                                    aux_stype):
        return ["csr"], in_stype, ["csr"], ["csr"], []

    def create_operator(self, ctx, shapes, dtypes):
        return _CsrSquare()


def test_custom_op_storage_types_reach_executor_and_operator():
    x = _csr([[0, 2], [3, 0]])
    op = mx.sym.Custom(mx.sym.var("data", stype="csr"), op_type="gstype_csr_square")
    exe = op.bind(mx.cpu(), {"data": x}, args_grad={"data": mx.nd.zeros((2, 2)).tostype("csr")})
    out = exe.forward(is_train=True)[0]
    assert out.stype == "csr"
    np.testing.assert_allclose(out.asnumpy(), x.asnumpy() ** 2)
    exe.backward([mx.nd.ones((2, 2)).tostype("csr")])
    assert exe.grad_dict["data"].stype == "csr"
    np.testing.assert_allclose(exe.grad_dict["data"].asnumpy(), 2 * x.asnumpy())
    # imperatively too
    x.attach_grad(stype="csr")
    with mx.autograd.record():
        y = mx.nd.Custom(x, op_type="gstype_csr_square")
    assert y.stype == "csr"
    y.backward(mx.nd.ones((2, 2)).tostype("csr"))
    np.testing.assert_allclose(x.grad.asnumpy(), 2 * x.asnumpy())


@pytest.mark.parametrize("op,ref", [(mx.nd._internal._maximum, np.maximum),
                                    (mx.nd._internal._minimum, np.minimum),
                                    (mx.nd._internal._hypot, np.hypot)])
@pytest.mark.parametrize("stype", ["row_sparse", "csr"])
def test_zero_preserving_binary_ops_keep_sparse_storage(op, ref, stype):
    a = np.array([[1, 0, -2], [0, 0, 0], [0, 3, 0]], dtype=np.float32)
    b = np.array([[0, 5, -1], [0, 0, 0], [0, -3, 7]], dtype=np.float32)
    r = op(mx.nd.array(a).tostype(stype), mx.nd.array(b).tostype(stype))
    assert r.stype == stype
    np.testing.assert_allclose(r.asnumpy(), ref(a, b), rtol=1e-6)
    r.check_format()


def test_csr_elemwise_with_unsorted_column_indices():
    # row 0 stores columns (2, 0): values must pair by column, not by position
    x = mx.nd.sparse.csr_matrix((np.array([3., 1.]), np.array([2, 0]), np.array([0, 2, 2])),
                                shape=(2, 3))
    y = mx.nd.sparse.csr_matrix((np.array([5., 7.]), np.array([0, 1]), np.array([0, 2, 2])),
                                shape=(2, 3))
    dense_x = np.array([[1, 0, 3], [0, 0, 0]], dtype=np.float32)
    dense_y = np.array([[5, 7, 0], [0, 0, 0]], dtype=np.float32)
    np.testing.assert_allclose((x * y).asnumpy(), dense_x * dense_y)
    np.testing.assert_allclose((x + y).asnumpy(), dense_x + dense_y)
    np.testing.assert_allclose(mx.nd._internal._maximum(x, y).asnumpy(),
                               np.maximum(dense_x, dense_y))


def test_symbol_block_refuses_row_sparse_variable():
    out = mx.sym.dot(mx.sym.var("data"), mx.sym.var("weight", stype="row_sparse"))
    with pytest.raises(AssertionError, match="weight"):
        mx.gluon.SymbolBlock(out, mx.sym.var("data"))


def test_simple_bind_shared_buffer_holds_data_not_parameters():
    out = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc")
    buf = {}
    exe = out.simple_bind(mx.cpu(), data=(2, 4), shared_arg_names=["fc_weight", "fc_bias"],
                          shared_buffer=buf)
    assert sorted(buf) == ["data"]
    assert mx.test_utils.same_array(buf["data"], exe.arg_dict["data"])
    # a second executor sharing the first one's parameters and the buffer
    exe2 = out.simple_bind(mx.cpu(), data=(2, 4), shared_arg_names=["fc_weight", "fc_bias"],
                           shared_exec=exe, shared_buffer=buf)
    assert mx.test_utils.same_array(exe.arg_dict["fc_weight"], exe2.arg_dict["fc_weight"])
    assert mx.test_utils.same_array(exe.grad_dict["fc_weight"], exe2.grad_dict["fc_weight"])
    assert mx.test_utils.same_array(exe.arg_dict["data"], exe2.arg_dict["data"])
