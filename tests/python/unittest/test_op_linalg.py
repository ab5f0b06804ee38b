# Matrix products and linear algebra: dot, batch_dot and the _linalg_* operators (gemm, gemm2,
# trsm, trmm, syrk, potrf, inverse, det, slogdet) against numpy, with numeric gradients.
import itertools

import numpy as np
import pytest

import mxnet as mx
from mxnet.test_utils import assert_almost_equal, check_numeric_gradient

nd = mx.nd
la = mx.nd.linalg
TOL = {np.float16: (2e-2, 5e-2), np.float32: (1e-4, 1e-4), np.float64: (1e-10, 1e-10)}
rng = np.random.RandomState(7)


def rand(*shape, dtype=np.float64):
    return rng.uniform(-1, 1, size=shape).astype(dtype)


def spd(n, batch=()):
    a = rng.uniform(-1, 1, size=batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def tri(n, batch=(), lower=True):
    a = rng.uniform(-1, 1, size=batch + (n, n)) + 2 * n * np.eye(n)
    return np.tril(a) if lower else np.triu(a)


def arr(x):
    return nd.array(x, dtype=x.dtype)


def np_dot(a, b, ta=False, tb=False):
    """MXNet dot: lhs as a (rows, last) matrix, rhs as (first, rest); 1-D . 1-D gives (1,)."""
    if a.ndim == 1 and b.ndim == 1:
        return np.array([np.dot(a, b)])
    A = a.reshape(a.shape[0], -1).T if ta else a.reshape(-1, a.shape[-1])
    B = b.reshape(-1, b.shape[-1]).T if tb else b.reshape(b.shape[0], -1)
    lkeep = (a.shape[1:] if ta else a.shape[:-1]) if a.ndim > 1 else ()
    rkeep = (b.shape[:-1] if tb else b.shape[1:]) if b.ndim > 1 else ()
    return (A @ B).reshape(lkeep + rkeep)


def T(x):
    return np.swapaxes(x, -1, -2)


DOT_CASES = [  # lhs shape, rhs shape, transpose_a, transpose_b
    ((3, 4), (4, 5), False, False),
    ((4, 3), (4, 5), True, False),
    ((3, 4), (5, 4), False, True),
    ((4, 3), (5, 4), True, True),
    ((6,), (6,), False, False),
    ((6,), (6, 2), False, False),
    ((3, 6), (6,), False, False),
    ((2, 3, 4), (4, 5), False, False),
    ((2, 3, 4), (4, 2, 5), False, False),
    ((4, 2, 3), (4, 5), True, False),
    ((3, 4), (2, 5, 4), False, True),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("ls,rs,ta,tb", DOT_CASES)
def test_dot_matches_numpy_for_all_ranks_and_transposes(ls, rs, ta, tb, dtype):
    a, b = rand(*ls, dtype=dtype), rand(*rs, dtype=dtype)
    out = nd.dot(nd.array(a, dtype=dtype), nd.array(b, dtype=dtype), transpose_a=ta, transpose_b=tb)
    expect = np_dot(a.astype(np.float64), b.astype(np.float64), ta, tb)
    assert out.dtype == dtype and out.shape == expect.shape
    rtol, atol = TOL[dtype]
    assert_almost_equal(out.asnumpy().astype(np.float64), expect, rtol=rtol, atol=atol)


def test_dot_large_float32_matches_numpy():
    a, b = rand(300, 200, dtype=np.float32), rand(200, 250, dtype=np.float32)
    assert_almost_equal(nd.dot(arr(a), arr(b)).asnumpy(), a @ b, rtol=1e-4, atol=1e-4)


def test_dot_accepts_forward_stype_and_zero_size():
    with mx.np_shape():  # zero-size inputs need numpy-shape semantics
        out = nd.dot(nd.ones((2, 0)), nd.ones((0, 3)), forward_stype="default")
    assert out.shape == (2, 3) and (out.asnumpy() == 0).all()


@pytest.mark.parametrize("ls,rs,ta,tb", DOT_CASES)
def test_dot_gradient_matches_numeric(ls, rs, ta, tb):
    check_numeric_gradient(lambda x, y: nd.dot(x, y, transpose_a=ta, transpose_b=tb),
                           [rand(*ls), rand(*rs)])


def test_dot_second_order_gradient_is_differentiable():
    x, w = arr(rand(3, 4)), arr(rand(4, 2))
    c = rand(3, 4)
    x.attach_grad()
    w.attach_grad()
    with mx.autograd.record():
        y = nd.dot(x, w)
        gx = mx.autograd.grad(y, [x], head_grads=[nd.ones((3, 2), dtype="float64")], create_graph=True)[0]
        z = gx * arr(c)
    z.backward()
    # gx = ones @ w^T, so d sum(gx * c) / dw = c^T @ ones.
    assert_almost_equal(w.grad.asnumpy(), c.T @ np.ones((3, 2)), rtol=1e-10, atol=1e-10)


def test_dot_rejects_bad_shapes_and_dtypes():
    with pytest.raises(mx.base.MXNetError):
        nd.dot(nd.ones((2, 3)), nd.ones((4, 5))).asnumpy()
    with pytest.raises(mx.base.MXNetError):
        nd.dot(nd.ones((2, 3), dtype="int32"), nd.ones((3, 5), dtype="int32")).asnumpy()
    with pytest.raises(mx.base.MXNetError):
        nd.dot(nd.ones((3,)), nd.ones((3,)), transpose_a=True).asnumpy()


BATCH_CASES = [((2, 3, 4), (2, 4, 5)), ((2, 2, 3, 4), (2, 2, 4, 5))]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("ta,tb", list(itertools.product([False, True], repeat=2)))
@pytest.mark.parametrize("ls,rs", BATCH_CASES)
def test_batch_dot_matches_numpy(ls, rs, ta, tb, dtype):
    a = rand(*ls, dtype=dtype)
    b = rand(*rs, dtype=dtype)
    a_in = T(a).copy() if ta else a
    b_in = T(b).copy() if tb else b
    out = nd.batch_dot(nd.array(a_in, dtype=dtype), nd.array(b_in, dtype=dtype),
                       transpose_a=ta, transpose_b=tb)
    rtol, atol = TOL[dtype]
    assert out.dtype == dtype
    assert_almost_equal(out.asnumpy().astype(np.float64), a.astype(np.float64) @ b, rtol=rtol,
                        atol=atol)


@pytest.mark.parametrize("ta,tb", list(itertools.product([False, True], repeat=2)))
def test_batch_dot_gradient_matches_numeric(ta, tb):
    a = rand(2, 4, 3) if ta else rand(2, 3, 4)
    b = rand(2, 5, 4) if tb else rand(2, 4, 5)
    check_numeric_gradient(lambda x, y: nd.batch_dot(x, y, transpose_a=ta, transpose_b=tb), [a, b])


def test_batch_dot_rejects_mismatched_batches():
    with pytest.raises(mx.base.MXNetError):
        nd.batch_dot(nd.ones((2, 3, 4)), nd.ones((3, 4, 5))).asnumpy()
    with pytest.raises(mx.base.MXNetError):
        nd.batch_dot(nd.ones((3, 4)), nd.ones((4, 5))).asnumpy()


def _op_(x, t):
    return T(x) if t else x


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("ta,tb", list(itertools.product([False, True], repeat=2)))
def test_gemm_and_gemm2_match_numpy(ta, tb, dtype):
    a = rand(2, 4, 3, dtype=dtype) if ta else rand(2, 3, 4, dtype=dtype)
    b = rand(2, 5, 4, dtype=dtype) if tb else rand(2, 4, 5, dtype=dtype)
    c = rand(2, 3, 5, dtype=dtype)
    prod = _op_(a, ta).astype(np.float64) @ _op_(b, tb)
    out2 = la.gemm2(nd.array(a, dtype=dtype), nd.array(b, dtype=dtype), transpose_a=ta,
                    transpose_b=tb, alpha=2.5)
    out = la.gemm(nd.array(a, dtype=dtype), nd.array(b, dtype=dtype), nd.array(c, dtype=dtype),
                  transpose_a=ta, transpose_b=tb, alpha=2.5, beta=-0.5)
    rtol, atol = TOL[dtype]
    assert_almost_equal(out2.asnumpy(), 2.5 * prod, rtol=rtol, atol=atol)
    assert_almost_equal(out.asnumpy(), 2.5 * prod - 0.5 * c, rtol=rtol, atol=atol)
    assert out.dtype == dtype


def test_gemm2_row_axis_argument():
    # axis=0: matrices have rows on axis 0 and columns on the last axis, axis 1 is a batch axis.
    a, b = rand(3, 2, 4), rand(4, 2, 5)
    out = la.gemm2(arr(a), arr(b), axis=0).asnumpy()
    expect = np.stack([a[:, i, :] @ b[:, i, :] for i in range(2)], axis=1)
    assert out.shape == (3, 2, 5)
    assert_almost_equal(out, expect, rtol=1e-10, atol=1e-10)
    c = rand(3, 2, 5)
    out = la.gemm(arr(a), arr(b), arr(c), axis=0, beta=2.0).asnumpy()
    assert_almost_equal(out, expect + 2 * c, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("ta,tb", list(itertools.product([False, True], repeat=2)))
def test_gemm_gradients_match_numeric(ta, tb):
    a = rand(2, 4, 3) if ta else rand(2, 3, 4)
    b = rand(2, 5, 4) if tb else rand(2, 4, 5)
    check_numeric_gradient(
        lambda x, y: la.gemm2(x, y, transpose_a=ta, transpose_b=tb, alpha=1.5), [a, b])
    check_numeric_gradient(
        lambda x, y, z: la.gemm(x, y, z, transpose_a=ta, transpose_b=tb, alpha=1.5, beta=0.7),
        [a, b, rand(2, 3, 5)])


def test_gemm_rejects_incompatible_shapes_and_int_dtype():
    with pytest.raises(mx.base.MXNetError):
        la.gemm2(nd.ones((3, 4)), nd.ones((5, 6))).asnumpy()
    with pytest.raises(mx.base.MXNetError):
        la.gemm2(nd.ones((3, 4), dtype="int32"), nd.ones((4, 6), dtype="int32")).asnumpy()
    with pytest.raises(mx.base.MXNetError):
        la.gemm2(nd.ones((3, 4)), nd.ones((4, 6)), axis=5).asnumpy()


def _solve(a, b, transpose, rightside, alpha):
    m = _op_(a, transpose)
    if rightside:  # X m = alpha b  <=>  m^T X^T = alpha b^T
        return T(np.linalg.solve(T(m), alpha * T(b)))
    return np.linalg.solve(m, alpha * b)


TRI_FLAGS = list(itertools.product([False, True], repeat=3))  # transpose, rightside, lower


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("transpose,rightside,lower", TRI_FLAGS)
def test_trsm_and_trmm_match_numpy(transpose, rightside, lower, dtype):
    a = tri(3, (2,), lower)
    full = a + (np.triu(rand(2, 3, 3), 1) if lower else np.tril(rand(2, 3, 3), -1))  # junk ignored
    b = rand(2, 4, 3) if rightside else rand(2, 3, 4)
    kw = dict(transpose=transpose, rightside=rightside, lower=lower, alpha=2.0)
    x = la.trsm(nd.array(full, dtype=dtype), nd.array(b, dtype=dtype), **kw)
    y = la.trmm(nd.array(full, dtype=dtype), nd.array(b, dtype=dtype), **kw)
    rtol, atol = TOL[dtype]
    assert_almost_equal(x.asnumpy(), _solve(a, b, transpose, rightside, 2.0), rtol=rtol, atol=atol)
    m = _op_(a, transpose)
    assert_almost_equal(y.asnumpy(), 2.0 * (b @ m if rightside else m @ b), rtol=rtol, atol=atol)


@pytest.mark.parametrize("transpose,rightside,lower", TRI_FLAGS)
def test_trsm_and_trmm_gradients_match_numeric(transpose, rightside, lower):
    a = tri(3, (2,), lower)
    b = rand(2, 4, 3) if rightside else rand(2, 3, 4)
    kw = dict(transpose=transpose, rightside=rightside, lower=lower, alpha=0.5)
    check_numeric_gradient(lambda x, y: la.trsm(x, y, **kw), [a, b])
    check_numeric_gradient(lambda x, y: la.trmm(x, y, **kw), [a, b])


@pytest.mark.parametrize("transpose", [False, True])
def test_syrk_matches_numpy_and_gradient(transpose):
    a = rand(2, 3, 4)
    out = la.syrk(arr(a), transpose=transpose, alpha=1.5).asnumpy()
    expect = 1.5 * (T(a) @ a if transpose else a @ T(a))
    assert_almost_equal(out, expect, rtol=1e-10, atol=1e-10)
    check_numeric_gradient(lambda x: la.syrk(x, transpose=transpose, alpha=1.5), [a])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_potrf_matches_numpy_cholesky(dtype):
    a = spd(4, (3,))
    out = la.potrf(nd.array(a, dtype=dtype)).asnumpy()
    rtol, atol = TOL[dtype]
    assert_almost_equal(out, np.linalg.cholesky(a), rtol=rtol, atol=atol)
    single = la.potrf(nd.array([[4.0, 1.0], [1.0, 4.25]])).asnumpy()
    assert_almost_equal(single, np.array([[2.0, 0.0], [0.5, 2.0]]), rtol=1e-6, atol=1e-6)


def _sym(x):
    # 0.5 * (x + x^T), built from gemm with an identity.
    eye = arr(np.broadcast_to(np.eye(x.shape[-1]), x.shape).copy())
    return la.gemm(x, eye, x, transpose_a=True, alpha=0.5, beta=0.5)


def test_potrf_gradient_is_the_symmetric_gradient():
    # As MXNet: the gradient is taken with respect to a symmetric A (symmetric matrix out), so
    # it matches the numeric gradient of potrf applied to a symmetrized input.
    check_numeric_gradient(lambda x: la.potrf(_sym(x)), [spd(3, (2,))], numeric_eps=1e-6)
    a = arr(spd(3))
    a.attach_grad()
    with mx.autograd.record():
        out = la.potrf(a)
    out.backward(arr(rand(3, 3)))
    g = a.grad.asnumpy()
    assert_almost_equal(g, g.T, rtol=1e-10, atol=1e-12)


def test_potrf_second_order_gradient_is_differentiable():
    a = arr(spd(3))
    a.attach_grad()
    with mx.autograd.record():
        l = la.potrf(a)
        g = mx.autograd.grad(l, [a], head_grads=[nd.ones((3, 3), dtype="float64")], create_graph=True)[0]
        s = la.gemm2(g, g)
    s.backward()
    assert np.isfinite(a.grad.asnumpy()).all()


def test_potrf_raises_for_non_positive_definite_input_at_wait():
    out = la.potrf(nd.array([[1.0, 2.0], [2.0, 1.0]]))
    with pytest.raises(mx.base.MXNetError):
        out.asnumpy()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_inverse_det_slogdet_match_numpy(dtype):
    a = rand(3, 4, 4) + 3 * np.eye(4) * np.array([1, -1, 1]).reshape(3, 1, 1)
    rtol, atol = (1e-3, 1e-3) if dtype == np.float32 else (1e-9, 1e-9)
    A = nd.array(a, dtype=dtype)
    assert_almost_equal(la.inverse(A).asnumpy(), np.linalg.inv(a), rtol=rtol, atol=atol)
    assert_almost_equal(la.det(A).asnumpy(), np.linalg.det(a), rtol=rtol, atol=atol)
    sign, logabs = la.slogdet(A)
    es, el = np.linalg.slogdet(a)
    assert_almost_equal(sign.asnumpy(), es)
    assert_almost_equal(logabs.asnumpy(), el, rtol=rtol, atol=atol)
    single = la.det(nd.array([[1.0, 4.0], [2.0, 3.0]], dtype=dtype))
    assert single.shape == (1,)
    assert_almost_equal(single.asnumpy(), np.array([-5.0]), rtol=1e-5, atol=1e-5)


def test_det_and_slogdet_of_singular_matrix():
    a = nd.array([[1.0, 2.0], [2.0, 4.0]])
    assert la.det(a).asnumpy()[0] == 0
    sign, logabs = la.slogdet(a)
    assert sign.asnumpy()[0] == 0 and np.isneginf(logabs.asnumpy()[0])


def test_inverse_det_slogdet_gradients_match_numeric():
    a = rand(2, 3, 3) + 3 * np.eye(3)
    check_numeric_gradient(lambda x: la.inverse(x), [a])
    check_numeric_gradient(lambda x: la.det(x), [a])
    check_numeric_gradient(lambda x: la.slogdet(x)[1], [a])
    check_numeric_gradient(lambda x: la.det(x), [rand(3, 3) + 3 * np.eye(3)])


def test_det_second_order_gradient_is_differentiable():
    a0 = rand(3, 3) + 3 * np.eye(3)
    a = arr(a0)
    a.attach_grad()
    with mx.autograd.record():
        d = la.det(a)
        g = mx.autograd.grad(d, [a], create_graph=True)[0]  # det(A) A^-T
        s = la.det(g)
    s.backward()
    # det(det(A) A^-T) = det(A)^(n-1) for n = 3: gradient 2 det(A) * det(A) A^-T.
    det = np.linalg.det(a0)
    assert_almost_equal(a.grad.asnumpy(), 2 * det * det * np.linalg.inv(a0).T, rtol=1e-6,
                        atol=1e-8)


def test_inverse_raises_for_singular_matrix_and_non_square_input():
    with pytest.raises(mx.base.MXNetError):
        la.inverse(nd.array([[1.0, 2.0], [2.0, 4.0]])).asnumpy()
    with pytest.raises(mx.base.MXNetError):
        la.det(nd.ones((2, 3))).asnumpy()


# ---------------------------------------------------------------- diag / triangle helpers
@pytest.mark.parametrize("n", [1, 3, 4])
@pytest.mark.parametrize("batch", [None, 2])
def test_extractdiag_makediag_roundtrip_and_gradients(n, batch):
    from mxnet.test_utils import check_symbolic_forward, check_numeric_gradient
    shape = (n, n) if batch is None else (batch, n, n)
    a = np.random.uniform(1, 10, shape)
    data = mx.sym.Variable('data')
    for offs in range(1 - n, n):
        want = np.diagonal(a, offset=offs, axis1=-2, axis2=-1)
        ext = mx.sym.linalg.extractdiag(data, offset=offs)
        check_symbolic_forward(ext, [a], [want])
        check_numeric_gradient(ext, [a])
        mk = mx.sym.linalg.makediag(data, offset=offs)
        full = np.zeros(shape)
        for idx in np.ndindex(*shape[:-2]):
            full[idx] = np.diagflat(want[idx], k=offs)
        check_symbolic_forward(mk, [want], [full])
        check_numeric_gradient(mk, [want])


@pytest.mark.parametrize("n", [1, 2, 4])
def test_extracttrian_maketrian_roundtrip(n):
    from mxnet.test_utils import check_symbolic_forward, check_numeric_gradient
    a = np.random.uniform(1, 10, (2, n, n))
    data = mx.sym.Variable('data')
    for offs in range(1 - n, n):
        for lower in ([True] if offs else [True, False]):
            ext = mx.sym.linalg.extracttrian(data, offset=offs, lower=lower)
            s = n - abs(offs)
            assert ext.infer_shape(data=a.shape)[1][0] == (2, s * (s + 1) // 2)
            sym = mx.sym.linalg.maketrian(ext, offset=offs, lower=lower)
            low = offs < 0 or (offs == 0 and lower)
            want = np.tril(a, offs) if low else np.triu(a, offs)
            check_symbolic_forward(sym, [a], [want])
            check_numeric_gradient(sym, [a])


def test_sumlogdiag_and_gradient():
    from mxnet.test_utils import check_symbolic_forward, check_symbolic_backward
    a = np.random.uniform(1, 5, (3, 4, 4))
    sym = mx.sym.linalg.sumlogdiag(mx.sym.Variable('data'))
    check_symbolic_forward(sym, [a], [np.log(np.diagonal(a, axis1=1, axis2=2)).sum(-1)])
    g = np.array([1.0, 2.0, -1.0])
    want = np.zeros_like(a)
    for b in range(3):
        want[b] = np.diag(g[b] / np.diagonal(a[b]))
    check_symbolic_backward(sym, [a], [g], [want])


@pytest.mark.parametrize("lower", [True, False])
def test_potri_inverts_from_the_factor_and_has_its_gradient(lower):
    from mxnet.test_utils import check_symbolic_forward, check_numeric_gradient
    rng = np.random.RandomState(0)
    m = rng.uniform(-1, 1, (2, 3, 3))
    spd = np.matmul(m, m.transpose(0, 2, 1)) + 3 * np.eye(3)
    L = np.linalg.cholesky(spd)
    f = L if lower else L.transpose(0, 2, 1)
    junk = f + (np.triu(np.ones((3, 3)), 1) if lower else np.tril(np.ones((3, 3)), -1))
    sym = mx.sym.linalg.potri(mx.sym.Variable('data'), lower=lower)
    check_symbolic_forward(sym, [junk], [np.linalg.inv(spd)], rtol=1e-5, atol=1e-6)
    check_numeric_gradient(sym, [f], numeric_eps=1e-6, rtol=1e-3, atol=1e-5,
                           dtype=np.float64)


def test_potrf_upper_factor_and_its_gradient():
    from mxnet.test_utils import check_symbolic_forward, check_numeric_gradient
    rng = np.random.RandomState(1)
    m = rng.uniform(-1, 1, (2, 3, 3))
    spd = np.matmul(m, m.transpose(0, 2, 1)) + 3 * np.eye(3)
    U = np.linalg.cholesky(spd).transpose(0, 2, 1)
    sym = mx.sym.linalg.potrf(mx.sym.Variable('data'), lower=False)
    check_symbolic_forward(sym, [spd], [U], rtol=1e-5, atol=1e-6)
    sym_in = mx.sym.Variable('data')
    symm = 0.5 * (sym_in + mx.sym.swapaxes(sym_in, dim1=-1, dim2=-2))
    check_numeric_gradient(mx.sym.linalg.potrf(symm, lower=False), [spd], numeric_eps=1e-6,
                           rtol=1e-3, atol=1e-5, dtype=np.float64)


@pytest.mark.parametrize("shape", [(3, 3), (2, 5), (2, 3, 4)])
def test_gelqf_factors_and_gradient(shape):
    from mxnet.test_utils import check_numeric_gradient
    rng = np.random.RandomState(2)
    a = rng.uniform(-1, 1, shape)
    q, l = mx.nd.linalg.gelqf(mx.nd.array(a, dtype='float64'))
    q, l = q.asnumpy(), l.asnumpy()
    m = shape[-2]
    np.testing.assert_allclose(np.matmul(l, q), a, atol=1e-10)
    np.testing.assert_allclose(np.matmul(q, np.swapaxes(q, -1, -2)),
                               np.broadcast_to(np.eye(m), l.shape), atol=1e-10)
    np.testing.assert_allclose(np.triu(l, 1), 0)
    assert (np.diagonal(l, axis1=-2, axis2=-1) > 0).all()
    data = mx.sym.Variable('data')
    out = mx.sym.linalg.gelqf(data)
    # a scalar function of both outputs, so both gradients take part
    loss = mx.sym.sum(out[0] * mx.sym.sin(out[0])) + mx.sym.sum(mx.sym.square(out[1]))
    check_numeric_gradient(loss, [a], numeric_eps=1e-6, rtol=1e-4, atol=1e-6, dtype=np.float64)


def test_gelqf_gradient_of_l_alone_matches_across_dtypes():
    x32 = mx.nd.random.normal(shape=(2, 3), dtype=np.float32)
    grads = []
    for x in (x32, x32.astype('float64')):
        x.attach_grad()
        with mx.autograd.record():
            mx.nd.sum(mx.nd.linalg.gelqf(x)[1]).backward()
        grads.append(x.grad.asnumpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-5, atol=1e-5)


def test_gelqf_needs_wide_matrices():
    with pytest.raises(mx.base.MXNetError):
        mx.nd.linalg.gelqf(mx.nd.ones((3, 2)))


def test_syevd_documented_example_and_signs():
    a = mx.nd.array([[1., 2.], [2., 4.]], dtype='float64')
    u, l = mx.nd.linalg.syevd(a)
    np.testing.assert_allclose(u.asnumpy(), [[0.89442719, -0.4472136], [0.4472136, 0.89442719]],
                               atol=1e-7)
    np.testing.assert_allclose(l.asnumpy(), [0., 5.], atol=1e-10)


@pytest.mark.parametrize("n", [1, 3, 6])
def test_syevd_decomposes_and_differentiates(n):
    from mxnet.test_utils import check_numeric_gradient
    rng = np.random.RandomState(n)
    m = rng.normal(0, 3, (2, n, n))
    a = 0.5 * (m + m.transpose(0, 2, 1))
    u, l = mx.nd.linalg.syevd(mx.nd.array(a, dtype='float64'))
    u, l = u.asnumpy(), l.asnumpy()
    np.testing.assert_allclose(l, np.linalg.eigvalsh(a), atol=1e-9)
    for b in range(2):
        np.testing.assert_allclose(u[b] @ a[b], np.diag(l[b]) @ u[b], atol=1e-9)
        np.testing.assert_allclose(u[b] @ u[b].T, np.eye(n), atol=1e-10)
        big = np.abs(u[b]).argmax(axis=1)
        assert (u[b][np.arange(n), big] > 0).all()
    data = mx.sym.Variable('data')
    sym = 0.5 * (data + mx.sym.swapaxes(data, dim1=-1, dim2=-2))
    out = mx.sym.linalg.syevd(sym)
    loss = mx.sym.sum(mx.sym.broadcast_mul(mx.sym.square(out[0]),
                                           mx.sym.arange(n * n, dtype="float64").reshape((1, n, n)))) + \
        mx.sym.sum(mx.sym.sin(out[1]))
    check_numeric_gradient(loss, [a], numeric_eps=1e-6, rtol=1e-3, atol=1e-6, dtype=np.float64)
