"""Sparse NDArrays (row_sparse, csr) from Python: creation, parts, conversion, slicing, save and
load, pickling, the sparse kernels and the dense fallback."""
import os
import pickle
import tempfile

import numpy as np
import pytest

import mxnet as mx
from mxnet.ndarray.sparse import CSRNDArray, RowSparseNDArray, BaseSparseNDArray
from mxnet.test_utils import assert_almost_equal, rand_ndarray, rand_sparse_ndarray

DENSE = np.array([[0, 1, 0], [2, 0, 3], [0, 0, 0], [0, 0, 4]], dtype=np.float32)


def test_csr_matrix_from_parts_and_its_parts():
    a = mx.nd.sparse.csr_matrix(([1, 2, 3, 4], [1, 0, 2, 2], [0, 1, 3, 3, 4]), shape=(4, 3))
    assert isinstance(a, CSRNDArray) and isinstance(a, BaseSparseNDArray)
    assert a.stype == "csr" and a.shape == (4, 3)
    assert a.indptr.asnumpy().tolist() == [0, 1, 3, 3, 4]
    assert a.indices.asnumpy().tolist() == [1, 0, 2, 2]
    assert a.indices.dtype == np.int64
    assert a.data.asnumpy().tolist() == [1, 2, 3, 4]
    assert_almost_equal(a.asnumpy(), DENSE)


def test_row_sparse_array_from_parts():
    a = mx.nd.sparse.row_sparse_array(([[1, 2, 3], [4, 5, 6]], [1, 3]), shape=(4, 3))
    assert isinstance(a, RowSparseNDArray)
    assert a.indices.asnumpy().tolist() == [1, 3]
    want = np.zeros((4, 3), np.float32)
    want[1], want[3] = [1, 2, 3], [4, 5, 6]
    assert_almost_equal(a.asnumpy(), want)


def test_tostype_round_trips_and_is_compact():
    d = mx.nd.array(DENSE)
    csr = d.tostype("csr")
    rsp = d.tostype("row_sparse")
    assert csr.data.shape == (4,)
    assert rsp.indices.asnumpy().tolist() == [0, 1, 3]
    assert_almost_equal(csr.tostype("default").asnumpy(), DENSE)
    assert_almost_equal(rsp.tostype("default").asnumpy(), DENSE)
    with pytest.raises(ValueError):
        csr.tostype("row_sparse")


def test_zeros_and_empty_with_stype():
    for stype in ("csr", "row_sparse"):
        z = mx.nd.zeros((3, 2), stype=stype)
        assert z.stype == stype
        assert_almost_equal(z.asnumpy(), np.zeros((3, 2)))
        e = mx.nd.sparse.empty(stype, (3, 2), dtype="float64")
        assert e.dtype == np.float64
    assert mx.nd.sparse.zeros("csr", (2, 2)).indptr.asnumpy().tolist() == [0, 0, 0]


def test_csr_slicing_gives_csr_rows():
    a = mx.nd.array(DENSE).tostype("csr")
    assert a[1:3].stype == "csr"
    assert_almost_equal(a[1:3].asnumpy(), DENSE[1:3])
    assert_almost_equal(a[-1].asnumpy(), DENSE[3:4])
    assert_almost_equal(mx.nd.slice(a, begin=(1, 1), end=(4, 3)).asnumpy(), DENSE[1:4, 1:3])
    with pytest.raises(ValueError):
        a[::2]


def test_sparse_elementwise_kernels_keep_storage():
    a = rand_ndarray((6, 4), "row_sparse", density=0.5)
    b = rand_ndarray((6, 4), "row_sparse", density=0.5)
    for out, want in ((a + b, a.asnumpy() + b.asnumpy()), (a - b, a.asnumpy() - b.asnumpy()),
                      (a * b, a.asnumpy() * b.asnumpy())):
        assert out.stype == "row_sparse"
        assert_almost_equal(out.asnumpy(), want)
    c = rand_ndarray((5, 7), "csr", density=0.3)
    d = rand_ndarray((5, 7), "csr", density=0.3)
    s = c + d
    assert s.stype == "csr"
    assert_almost_equal(s.asnumpy(), c.asnumpy() + d.asnumpy())
    dense = mx.nd.ones((5, 7)) * 3
    m = c * dense
    assert m.stype == "csr"
    assert_almost_equal(m.asnumpy(), c.asnumpy() * 3)


def test_add_n_of_row_sparse_is_row_sparse():
    arrs = [rand_ndarray((8, 3), "row_sparse", density=0.3) for _ in range(3)]
    out = mx.nd.add_n(*arrs)
    assert out.stype == "row_sparse"
    assert_almost_equal(out.asnumpy(), sum(a.asnumpy() for a in arrs))


def test_dot_csr_dense():
    csr = rand_ndarray((5, 6), "csr", density=0.4)
    w = mx.nd.array(np.random.rand(6, 3))
    out = mx.nd.dot(csr, w)
    assert out.stype == "default"
    assert_almost_equal(out.asnumpy(), csr.asnumpy().dot(w.asnumpy()), rtol=1e-5, atol=1e-6)
    x = mx.nd.array(np.random.rand(5, 2))
    t = mx.nd.dot(csr, x, transpose_a=True)
    assert t.stype == "row_sparse"
    assert_almost_equal(t.asnumpy(), csr.asnumpy().T.dot(x.asnumpy()), rtol=1e-5, atol=1e-6)
    td = mx.nd.dot(csr, x, transpose_a=True, forward_stype="default")
    assert td.stype == "default"
    assert_almost_equal(td.asnumpy(), t.asnumpy())


@pytest.mark.parametrize("transpose_a", [False, True])
def test_dot_csr_row_sparse_gradients(transpose_a):
    # as MXNet 1.9.1: the rhs gradient of dot(csr, rhs) is row_sparse (dense with
    # transpose_a) whether rhs is dense or row_sparse; the lhs gradient is dense
    rng = np.random.RandomState(0)
    a = rng.rand(4, 6) * (rng.rand(4, 6) > 0.6)
    w = rng.rand(4 if transpose_a else 6, 3)
    w[[1, 3]] = 0  # rows a row_sparse w does not store
    og = rng.rand(6 if transpose_a else 4, 3)
    lhs = mx.sym.var("lhs", stype="csr")
    rhs = mx.sym.var("rhs", stype="row_sparse")
    sym = mx.sym.dot(lhs, rhs, transpose_a=transpose_a)
    rhs_grad = mx.nd.zeros(w.shape) if transpose_a else mx.nd.zeros(w.shape).tostype("row_sparse")
    ex = sym.bind(mx.cpu(), {"lhs": mx.nd.array(a).tostype("csr"),
                             "rhs": mx.nd.array(w).tostype("row_sparse")},
                  args_grad={"lhs": mx.nd.zeros(a.shape), "rhs": rhs_grad})
    ex.forward(is_train=True)
    ex.backward(mx.nd.array(og))
    at = a.T if transpose_a else a
    assert_almost_equal(ex.outputs[0].asnumpy(), at.dot(w), rtol=1e-5, atol=1e-6)
    assert ex.grad_dict["rhs"].stype == ("default" if transpose_a else "row_sparse")
    assert_almost_equal(ex.grad_dict["rhs"].asnumpy(), at.T.dot(og), rtol=1e-5, atol=1e-6)
    want_lhs = w.dot(og.T) if transpose_a else og.dot(w.T)
    assert_almost_equal(ex.grad_dict["lhs"].asnumpy(), want_lhs, rtol=1e-5, atol=1e-6)
    # the gradient array simple_bind makes has the inferred storage type
    sb = sym.simple_bind(mx.cpu(), lhs=a.shape, rhs=w.shape,
                         stype_dict={"lhs": "csr", "rhs": "row_sparse"},
                         grad_req={"lhs": "null", "rhs": "write"})
    assert sb.grad_dict["rhs"].stype == ("default" if transpose_a else "row_sparse")
    x = mx.nd.array(w).tostype("row_sparse")
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.dot(mx.nd.array(a).tostype("csr"), x, transpose_a=transpose_a)
    y.backward(mx.nd.array(og))
    assert x.grad.stype == "row_sparse"
    assert_almost_equal(x.grad.asnumpy(), at.T.dot(og), rtol=1e-5, atol=1e-6)


def test_retain_keeps_requested_rows():
    a = mx.nd.sparse.row_sparse_array(([[1, 2], [3, 4], [5, 6]], [0, 1, 3]), shape=(4, 2))
    r = mx.nd.sparse.retain(a, mx.nd.array([0, 3], dtype="int64"))
    assert r.indices.asnumpy().tolist() == [0, 3]
    assert r.data.asnumpy().tolist() == [[1, 2], [5, 6]]
    assert a.retain(mx.nd.array([1])).asnumpy()[1].tolist() == [3, 4]


def test_dense_operators_fall_back():
    a = rand_ndarray((4, 5), "csr", density=0.5)
    assert_almost_equal(mx.nd.exp(a).asnumpy(), np.exp(a.asnumpy()))
    assert_almost_equal(mx.nd.sum(a, axis=1).asnumpy(), a.asnumpy().sum(axis=1), rtol=1e-5)
    out = mx.nd.zeros((4, 5), stype="row_sparse")
    mx.nd.negative(mx.nd.array(DENSE[:, :2].repeat(3, axis=1)[:, :5]), out=out)
    assert out.stype == "row_sparse"


def test_sgd_lazy_update_touches_only_gradient_rows():
    weight = mx.nd.ones((4, 2))
    grad = mx.nd.sparse.row_sparse_array(([[1, 1]], [2]), shape=(4, 2))
    mx.nd.sgd_update(weight, grad, lr=0.5, wd=0.1, out=weight)
    want = np.ones((4, 2), np.float32)
    want[2] = 1 - 0.5 * (1 + 0.1)
    assert_almost_equal(weight.asnumpy(), want)
    dense_weight = mx.nd.ones((4, 2))
    mx.nd.sgd_update(dense_weight, grad, lr=0.5, wd=0.1, lazy_update=False, out=dense_weight)
    want = np.full((4, 2), 1 - 0.5 * 0.1, np.float32)
    want[2] = 1 - 0.5 * (1 + 0.1)
    assert_almost_equal(dense_weight.asnumpy(), want)


def test_save_load_and_pickle_keep_storage():
    csr = rand_ndarray((4, 6), "csr", density=0.4)
    rsp = rand_ndarray((5, 2), "row_sparse", density=0.5)
    with tempfile.TemporaryDirectory() as d:
        fname = os.path.join(d, "x.nd")
        mx.nd.save(fname, {"c": csr, "r": rsp})
        back = mx.nd.load(fname)
    assert back["c"].stype == "csr" and back["r"].stype == "row_sparse"
    assert_almost_equal(back["c"].asnumpy(), csr.asnumpy())
    assert_almost_equal(back["r"].asnumpy(), rsp.asnumpy())
    p = pickle.loads(pickle.dumps(csr))
    assert isinstance(p, CSRNDArray)
    assert_almost_equal(p.asnumpy(), csr.asnumpy())


def test_scipy_round_trip():
    spsp = pytest.importorskip("scipy.sparse")
    m = spsp.random(6, 5, density=0.3, format="csr", dtype=np.float32)
    a = mx.nd.array(m)
    assert isinstance(a, CSRNDArray)
    assert_almost_equal(a.asnumpy(), m.toarray())
    assert_almost_equal(a.asscipy().toarray(), m.toarray())


def test_check_format_reports_bad_indices():
    a = mx.nd.sparse.csr_matrix(([1, 2], [2, 1], [0, 2]), shape=(1, 3))
    with pytest.raises(mx.base.MXNetError):
        a.check_format()
    a.check_format(full_check=False)


def test_copyto_and_astype():
    rsp, _ = rand_sparse_ndarray((5, 3), "row_sparse", density=0.5)
    c = rsp.copyto(mx.cpu())
    assert c.stype == "row_sparse"
    assert_almost_equal(c.asnumpy(), rsp.asnumpy())
    d = mx.nd.zeros((5, 3))
    rsp.copyto(d)
    assert_almost_equal(d.asnumpy(), rsp.asnumpy())
    h = rsp.astype("float64")
    assert h.dtype == np.float64 and h.stype == "row_sparse"


def test_zeros_like_of_sparse_is_empty_sparse():
    a = rand_ndarray((3, 4), "csr", density=0.5)
    z = mx.nd.zeros_like(a)
    assert z.stype == "csr"
    assert z.indptr.asnumpy().tolist() == [0, 0, 0, 0]
    assert_almost_equal(z.asnumpy(), np.zeros((3, 4)))


def test_zero_preserving_operators_keep_storage():
    a = mx.nd.array(DENSE).tostype("csr")
    for out, want in ((mx.nd.sqrt(a), np.sqrt(DENSE)), (a * 2, DENSE * 2), (-a, -DENSE),
                      (1 == a, (DENSE == 1).astype(np.float32))):
        assert out.stype == "csr"
        assert_almost_equal(out.asnumpy(), want)
    for out, want in ((a + 1, DENSE + 1), (0 == a, (DENSE == 0).astype(np.float32)),
                      (mx.nd.exp(a), np.exp(DENSE))):
        assert out.stype == "default"
        assert_almost_equal(out.asnumpy(), want)


def test_symbolic_graph_runs_sparse_inputs():
    x = mx.sym.Variable("x", stype="csr")
    w = mx.sym.Variable("w")
    y = mx.sym.sparse.dot(x, w)
    xv = rand_ndarray((4, 6), "csr", density=0.5)
    wv = mx.nd.array(np.random.rand(6, 2))
    exe = y.bind(mx.cpu(), {"x": xv, "w": wv})
    exe.forward()
    assert_almost_equal(exe.outputs[0].asnumpy(), xv.asnumpy().dot(wv.asnumpy()), rtol=1e-5,
                        atol=1e-6)


def test_getnnz_counts_stored_values():
    a = mx.nd.array(DENSE).tostype("csr")
    assert mx.nd.contrib.getnnz(a).asnumpy().tolist() == [4]
    assert mx.nd.contrib.getnnz(a, axis=1).asnumpy().tolist() == [1, 2, 0, 1]
    assert mx.nd.contrib.getnnz(a, axis=0).asnumpy().tolist() == [1, 1, 2]


def test_quadratic_keeps_csr_when_c_is_zero():
    a = mx.nd.array(DENSE).tostype("csr")
    assert mx.nd.contrib.quadratic(a, a=1, b=2, c=0).stype == "csr"
    out = mx.nd.contrib.quadratic(a, a=1, b=2, c=1)
    assert out.stype == "default"
    assert_almost_equal(out.asnumpy(), DENSE ** 2 + 2 * DENSE + 1)


def test_lazy_update_with_row_sparse_weight_and_state():
    weight = mx.nd.ones((4, 2)).tostype("row_sparse")
    mom = mx.nd.zeros((4, 2), stype="row_sparse")
    grad = mx.nd.sparse.row_sparse_array(([[1, 1]], [1]), shape=(4, 2))
    mx.nd.sgd_mom_update(weight, grad, mom, lr=0.5, momentum=0.9, wd=0.1, out=weight)
    assert weight.stype == "row_sparse"
    want = np.ones((4, 2), np.float32)
    want[1] = 1 - 0.5 * (1 + 0.1)
    assert_almost_equal(weight.asnumpy(), want)
    assert_almost_equal(mom.asnumpy()[1], [-0.55, -0.55])
    assert_almost_equal(mom.asnumpy()[[0, 2, 3]], np.zeros((3, 2)))


def test_local_kvstore_sums_and_pulls_row_sparse_values():
    kv = mx.kv.create("local")
    shape = (4, 3)
    kv.init("a", mx.nd.zeros(shape, stype="row_sparse"))
    vals = [rand_ndarray(shape, "row_sparse", density=0.5) for _ in range(3)]
    want = sum(v.asnumpy() for v in vals)
    kv.push("a", vals)
    out = mx.nd.zeros(shape, stype="row_sparse")
    kv.pull("a", out=out, ignore_sparse=False)
    assert out.stype == "row_sparse"
    assert_almost_equal(out.asnumpy(), want)


def test_kvstore_pull_skips_row_sparse_outputs_by_default():
    kv = mx.kv.create("local")
    kv.init(3, mx.nd.ones((2, 2)))
    out = (mx.nd.ones((2, 2)) * 2).tostype("row_sparse")
    kv.pull(3, out=out)
    assert_almost_equal(out.asnumpy(), np.full((2, 2), 2.0))


def test_kvstore_row_sparse_pull_gives_requested_rows():
    kv = mx.kv.create("local")
    value = mx.nd.array(np.arange(12).reshape(4, 3))
    kv.init("w", value)
    out = mx.nd.zeros((4, 3), stype="row_sparse")
    kv.row_sparse_pull("w", out=out, row_ids=mx.nd.array([3, 1, 3]))
    assert out.indices.asnumpy().tolist() == [1, 3]
    want = np.zeros((4, 3), np.float32)
    want[[1, 3]] = value.asnumpy()[[1, 3]]
    assert_almost_equal(out.asnumpy(), want)
