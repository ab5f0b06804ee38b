"""mx.np / mx.npx front end checked against real numpy."""
import os
import pickle
import tempfile

import numpy as onp
import pytest

import mxnet as mx
from mxnet import np, npx
from mxnet.base import MXNetError


def _same(mx_arr, expected, rtol=1e-5, atol=1e-6):
    assert isinstance(mx_arr, np.ndarray), type(mx_arr)
    got = mx_arr.asnumpy()
    assert got.shape == onp.shape(expected), (got.shape, onp.shape(expected))
    onp.testing.assert_allclose(got, expected, rtol=rtol, atol=atol)


def test_creation_defaults():
    assert np.zeros((2, 3)).dtype == onp.float32
    assert np.ones(()).shape == ()
    assert np.zeros((0, 3)).shape == (0, 3)
    assert np.array([1, 2]).dtype == onp.float32          # Python lists: float32
    assert np.array(onp.array([1, 2])).dtype == onp.int64  # numpy arrays keep their dtype
    assert np.array(3.0).shape == ()
    assert np.full((2,), 3).dtype == onp.float32
    assert np.zeros(2, dtype=int).dtype == onp.int64
    _same(np.arange(5), onp.arange(5, dtype=onp.float32))
    _same(np.arange(2, 9, 3), onp.arange(2, 9, 3))
    _same(np.linspace(0, 1, 5), onp.linspace(0, 1, 5))
    _same(np.eye(3, 4, k=1), onp.eye(3, 4, k=1))
    _same(np.identity(2), onp.identity(2))
    _same(np.full_like(np.ones((2, 2)), 7), onp.full((2, 2), 7))
    with pytest.raises(ValueError):
        np.array(mx.nd.ones((2,)))


def test_repr_and_scalars():
    assert repr(np.array([1, 2])) == "array([1., 2.])"
    assert repr(np.array([1, 2], dtype="int32")) == "array([1, 2], dtype=int32)"
    assert repr(np.array([1.5], dtype="float64")) == "array([1.5], dtype=float64)"
    assert repr(np.array([True, False], dtype=bool)) == "array([ True, False])"
    assert repr(np.zeros((0, 3))) == "array([], shape=(0, 3))"
    a = np.array([1, 2, 3])
    assert a[1].item() == 2.0 and a[1].shape == ()
    assert a.tolist() == [1.0, 2.0, 3.0]
    assert "{:0.3g}".format(np.array(onp.pi)) == "3.14"
    assert len(a) == 3 and bool(np.array([1]))
    with pytest.raises(TypeError):
        len(np.array(1.0))


def test_arithmetic_against_numpy():
    rng = onp.random.RandomState(0)
    x = rng.uniform(1, 2, (3, 4)).astype(onp.float32)
    y = rng.uniform(1, 2, (4,)).astype(onp.float32)
    mx_x, mx_y = np.array(x), np.array(y)
    _same(mx_x + mx_y, x + y)
    _same(mx_x - 2, x - 2)
    _same(2 - mx_x, 2 - x)
    _same(mx_x * mx_y, x * y)
    _same(mx_x / mx_y, x / y)
    _same(1 / mx_x, 1 / x)
    _same(mx_x ** 2, x ** 2)
    _same(mx_x % 0.3, x % onp.float32(0.3), atol=1e-5)
    _same(-mx_x, -x)
    _same(x + mx_y, x + y)  # numpy on the left defers to mx.np
    cmp = mx_x > mx_y
    assert cmp.dtype == onp.bool_
    _same(cmp, x > y)
    _same(mx_x == 1.5, x == 1.5)
    i = np.array([1, 2], dtype="int32")
    assert (i / 2).dtype == onp.float32       # true division of ints gives float32
    assert (i + 1).dtype == onp.int32
    assert (i + np.array([1.0, 2.0])).dtype == onp.float32
    z = np.array(x)
    z += 1
    _same(z, x + 1)
    z *= mx_y
    _same(z, (x + 1) * y)


def test_unary_and_reductions():
    rng = onp.random.RandomState(1)
    x = rng.uniform(0.5, 2, (2, 3, 4)).astype(onp.float32)
    a = np.array(x)
    for name in ("sqrt", "exp", "log", "log2", "log10", "sin", "cos", "tanh", "abs", "floor",
                 "ceil", "trunc", "sign", "square", "negative", "arctan", "expm1", "log1p"):
        _same(getattr(np, name)(a), getattr(onp, name)(x), rtol=1e-5, atol=1e-5)
    for axis in (None, 0, 1, (0, 2), -1):
        for keepdims in (False, True):
            _same(np.sum(a, axis=axis, keepdims=keepdims),
                  onp.sum(x, axis=axis, keepdims=keepdims), rtol=1e-5)
            _same(np.mean(a, axis=axis, keepdims=keepdims),
                  onp.mean(x, axis=axis, keepdims=keepdims), rtol=1e-5)
            _same(np.max(a, axis=axis, keepdims=keepdims),
                  onp.max(x, axis=axis, keepdims=keepdims))
            _same(np.min(a, axis=axis, keepdims=keepdims),
                  onp.min(x, axis=axis, keepdims=keepdims))
            _same(np.std(a, axis=axis, keepdims=keepdims),
                  onp.std(x, axis=axis, keepdims=keepdims), rtol=1e-4, atol=1e-5)
            _same(np.var(a, axis=axis, keepdims=keepdims, ddof=1),
                  onp.var(x, axis=axis, keepdims=keepdims, ddof=1), rtol=1e-4, atol=1e-5)
    _same(a.prod(axis=1), x.prod(axis=1), rtol=1e-5)
    assert np.argmax(a).dtype == onp.int64
    _same(np.argmax(a), onp.argmax(x))
    _same(np.argmin(a, axis=1), onp.argmin(x, axis=1))
    _same(np.cumsum(a, axis=1), onp.cumsum(x, axis=1), rtol=1e-5)
    _same(np.clip(a, 0.7, 1.5), onp.clip(x, 0.7, 1.5))
    _same(np.around(a, 1), onp.around(x, 1), atol=1e-5)
    assert np.sum(np.array([1, 2], dtype="int32")).dtype == onp.int32
    assert np.mean(np.array([1, 2], dtype="int32")).dtype == onp.float32
    nan = np.array([1.0, onp.nan, onp.inf, -onp.inf])
    _same(np.isnan(nan), onp.isnan(nan.asnumpy()))
    _same(np.isinf(nan), onp.isinf(nan.asnumpy()))
    _same(np.isfinite(nan), onp.isfinite(nan.asnumpy()))


def test_shapes_and_joins():
    x = onp.arange(24, dtype=onp.float32).reshape(2, 3, 4)
    a = np.array(x)
    _same(a.reshape(4, -1), x.reshape(4, -1))
    _same(a.T, x.T)
    _same(np.transpose(a, (1, 0, 2)), onp.transpose(x, (1, 0, 2)))
    _same(np.swapaxes(a, 0, 2), onp.swapaxes(x, 0, 2))
    _same(np.moveaxis(a, 0, -1), onp.moveaxis(x, 0, -1))
    _same(np.expand_dims(a, 1), onp.expand_dims(x, 1))
    _same(np.squeeze(np.ones((1, 3, 1))), onp.squeeze(onp.ones((1, 3, 1))))
    _same(a.flatten(), x.flatten())
    _same(np.concatenate([a, a], axis=1), onp.concatenate([x, x], axis=1))
    _same(np.stack([a, a], axis=-1), onp.stack([x, x], axis=-1))
    _same(np.vstack([a[0], a[1]]), onp.vstack([x[0], x[1]]))
    _same(np.hstack([a[0], a[1]]), onp.hstack([x[0], x[1]]))
    for got, want in zip(np.split(a, 2, axis=2), onp.split(x, 2, axis=2)):
        _same(got, want)
    for got, want in zip(np.array_split(a, 3, axis=2), onp.array_split(x, 3, axis=2)):
        _same(got, want)
    _same(np.flip(a, 1), onp.flip(x, 1))
    _same(np.tile(a, (2, 1, 1)), onp.tile(x, (2, 1, 1)))
    _same(np.repeat(a, 2, axis=1), onp.repeat(x, 2, axis=1))
    _same(np.where(a > 5, a, -a), onp.where(x > 5, x, -x))
    _same(np.sort(np.array([3.0, 1.0, 2.0])), onp.array([1.0, 2.0, 3.0]))
    _same(np.argsort(np.array([3.0, 1.0, 2.0])), onp.array([1, 2, 0]))
    _same(np.unique(np.array([3.0, 1.0, 3.0])), onp.array([1.0, 3.0]))
    with pytest.raises(MXNetError):
        a.reshape((5,))
    with pytest.raises(MXNetError):
        np.reshape(a, (-1, 5))


def test_linalg():
    rng = onp.random.RandomState(2)
    x = rng.uniform(size=(3, 4)).astype(onp.float32)
    y = rng.uniform(size=(4, 5)).astype(onp.float32)
    v = rng.uniform(size=(4,)).astype(onp.float32)
    _same(np.dot(np.array(x), np.array(y)), x.dot(y), rtol=1e-5)
    _same(np.dot(np.array(v), np.array(v)), v.dot(v), rtol=1e-5)
    _same(np.dot(np.array(x), np.array(v)), x.dot(v), rtol=1e-5)
    b = rng.uniform(size=(2, 3, 4)).astype(onp.float32)
    _same(np.matmul(np.array(b), np.array(y)), onp.matmul(b, y), rtol=1e-5)
    _same(np.array(b) @ np.array(y), b @ y, rtol=1e-5)
    _same(np.tensordot(np.array(b), np.array(y), axes=1), onp.tensordot(b, y, axes=1),
          rtol=1e-5)
    _same(np.linalg.norm(np.array(x)), onp.linalg.norm(x), rtol=1e-5)


def test_indexing():
    x = onp.arange(60, dtype=onp.float32).reshape(3, 4, 5)
    a = np.array(x)
    for key in (1, -1, (1, 2), (1, 2, 3), slice(1, 3), (slice(None), 1), (Ellipsis, 2),
                (None, 1), (slice(None, None, -1),), ([0, 2],), ([0, 2], [1, 3]),
                (slice(None), [0, 3], 1), x[:, :, 0] > 20, ()):
        _same(a[key], x[key])
    _same(a[np.array([0, 2], dtype="int64")], x[[0, 2]])
    _same(a[np.array(x[:, 0, 0] > 10)], x[x[:, 0, 0] > 10])
    b = np.array(x)
    b[1] = 0
    b[:, 1, ::2] = -1
    b[b > 50] = 7
    b[[0, 2], 0, 0] = np.array([100.0, 200.0])
    y = x.copy()
    y[1] = 0
    y[:, 1, ::2] = -1
    y[y > 50] = 7
    y[[0, 2], 0, 0] = [100.0, 200.0]
    _same(b, y)
    assert np.ones(())[()].shape == ()


def test_autograd():
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    x.attach_grad()
    with mx.autograd.record():
        y = (x * x + np.exp(x)).sum()
    y.backward()
    assert isinstance(x.grad, np.ndarray)
    _same(x.grad, 2 * x.asnumpy() + onp.exp(x.asnumpy()), rtol=1e-5)
    assert isinstance(x.detach(), np.ndarray)
    with mx.autograd.record():
        z = x[0]
    z.backward()
    _same(x.grad, onp.array([[1.0, 1.0], [0.0, 0.0]]))


def test_conversion_pickle_and_ctx():
    a = np.array([1.0, 2.0])
    nd = a.as_nd_ndarray()
    assert type(nd) is mx.nd.NDArray
    back = nd.as_np_ndarray()
    assert type(back) is np.ndarray
    back[0] = 5
    assert a[0].item() == 5.0  # shares data
    b = pickle.loads(pickle.dumps(a))
    assert type(b) is np.ndarray
    _same(b, a.asnumpy())
    assert a.ctx == mx.cpu() and a.context == mx.cpu()
    c = a.copyto(mx.cpu())
    assert type(c) is np.ndarray
    assert type(a.astype("int32")) is np.ndarray


def test_random_seed_and_args():
    np.random.seed(7)
    u1 = np.random.uniform(size=(3,)).asnumpy()
    mx.random.seed(7)
    u2 = np.random.uniform(size=(3,)).asnumpy()
    onp.testing.assert_array_equal(u1, u2)
    assert np.random.uniform().shape == ()
    r = np.random.randint(0, 5, size=(100,))
    assert r.dtype == onp.int64 and r.asnumpy().min() >= 0 and r.asnumpy().max() < 5
    n = np.random.normal(1.0, 2.0, size=(2000,)).asnumpy()
    assert abs(n.mean() - 1.0) < 0.2 and abs(n.std() - 2.0) < 0.2
    c = np.random.choice(5, size=5, replace=False).asnumpy()
    assert sorted(c.tolist()) == [0, 1, 2, 3, 4]
    for name in ("uniform", "normal", "randint", "choice"):
        with pytest.raises(TypeError):
            getattr(np.random, name)(shape=())
    s = np.arange(10)
    np.random.shuffle(s)
    assert sorted(s.asnumpy().tolist()) == list(range(10))


def test_npx_ops_and_switches():
    assert not mx.util.is_np_array()
    npx.set_np()
    try:
        assert mx.util.is_np_array() and mx.util.is_np_shape()
        with pytest.raises(ValueError):
            mx.util.set_np_shape(False)
        x = np.array([[-1.0, 2.0, 0.5]])
        _same(npx.relu(x), onp.maximum(x.asnumpy(), 0))
        e = onp.exp(x.asnumpy())
        _same(npx.softmax(x), e / e.sum(-1, keepdims=True), rtol=1e-5)
        _same(npx.sigmoid(x), 1 / (1 + onp.exp(-x.asnumpy())), rtol=1e-5)
        _same(npx.one_hot(np.array([0, 2]), 3), onp.eye(3)[[0, 2]])
        y = np.ones((2, 3, 4))
        assert npx.reshape(y, (-2, -1)).shape == (2, 12)
        assert npx.reshape(y, (-5, -4)).shape == (6, 4)
        assert npx.reshape(y, (-6, 1, 2, -4)).shape == (1, 2, 3, 4)
        assert npx.reshape(np.ones((2, 1, 4)), (-2, -3, -2)).shape == (2, 4)
        w = np.ones((5, 4))
        _same(npx.fully_connected(np.ones((2, 4)), w, no_bias=True, num_hidden=5),
              onp.full((2, 5), 4.0))
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "arrs")
            npx.save(path, {"a": x, "b": y})
            loaded = npx.load(path)
            assert type(loaded["a"]) is np.ndarray
            _same(loaded["b"], y.asnumpy())
    finally:
        npx.reset_np()
    assert not mx.util.is_np_array() and not mx.util.is_np_shape()
    with pytest.raises(ValueError):
        npx.save("unused", np.ones(1))


def test_gluon_numpy_mode():
    from mxnet import gluon, autograd
    npx.set_np()
    try:
        net = gluon.nn.HybridSequential()
        net.add(gluon.nn.Dense(4, activation="relu"), gluon.nn.Dense(2))
        net.initialize()
        x = np.ones((6, 5))
        y = net(x)
        assert type(y) is np.ndarray and y.shape == (6, 2)
        w = net[0].weight
        assert type(w.data()) is np.ndarray and type(w.grad()) is np.ndarray
        with autograd.record():
            loss = (net(x) ** 2).sum()
        loss.backward()
        imperative_grad = w.grad().asnumpy().copy()
        net.hybridize()
        y2 = net(x)
        assert type(y2) is np.ndarray
        onp.testing.assert_allclose(y2.asnumpy(), y.asnumpy(), rtol=1e-5, atol=1e-6)
        with autograd.record():
            loss = (net(x) ** 2).sum()
        loss.backward()
        onp.testing.assert_allclose(w.grad().asnumpy(), imperative_grad, rtol=1e-5, atol=1e-6)
        parts = gluon.utils.split_data(x, 3, batch_axis=0)
        assert all(type(p) is np.ndarray and p.shape == (2, 5) for p in parts)
        parts = gluon.utils.split_data(np.ones((4, 7)), 3, batch_axis=1, even_split=False)
        assert [p.shape for p in parts] == [(4, 3), (4, 2), (4, 2)]
        assert all(type(p) is np.ndarray for p in parts)

        class Mixed(gluon.HybridBlock):
            def hybrid_forward(self, F, x):
                return x.as_nd_ndarray() * 2, F.np.multiply(x, x)
        with pytest.raises(TypeError):  # numpy mode: every output must be an mx.np array
            Mixed()(x)
    finally:
        npx.reset_np()


def test_hybridized_numpy_block_runs_without_symbolic_numpy():
    from mxnet import gluon

    class Affine(gluon.HybridBlock):
        def hybrid_forward(self, F, x, y):
            return F.np.add(F.np.multiply(x, 2), y)  # needs numpy symbols when traced

    with pytest.raises(AttributeError):
        mx.sym.np.add  # pylint: disable=pointless-statement
    npx.set_np()
    try:
        net = Affine()
        net.hybridize()
        x, y = np.ones((2, 3)), np.arange(3)
        with pytest.warns(UserWarning):  # falls back to running imperatively
            out = net(x, y)
        assert type(out) is np.ndarray
        _same(out, 2 * onp.ones((2, 3)) + onp.arange(3))
        _same(net(x, y), 2 * onp.ones((2, 3)) + onp.arange(3))
    finally:
        npx.reset_np()
    s = mx.sym.var("a")
    assert s.as_nd_ndarray() is s
    assert (s + 1).list_arguments() == ["a"]  # legacy symbols keep their operators


def test_function_base_against_numpy():
    x = onp.arange(12, dtype=onp.float32).reshape(3, 4)
    a = np.array(x)
    checks = [
        (np.tril(a), onp.tril(x)), (np.triu(a, 1), onp.triu(x, 1)),
        (np.roll(a, 1, axis=1), onp.roll(x, 1, axis=1)), (np.roll(a, 5), onp.roll(x, 5)),
        (np.diff(a, 2), onp.diff(x, 2)), (np.diff(a, axis=0), onp.diff(x, axis=0)),
        (np.rot90(a), onp.rot90(x)), (np.rot90(a, 3), onp.rot90(x, 3)),
        (np.diagonal(a), onp.diagonal(x)), (np.logspace(0, 2, 3), onp.logspace(0, 2, 3)),
        (np.resize(a, (5,)), onp.resize(x, (5,))), (np.atleast_3d(a), onp.atleast_3d(x)),
        (np.meshgrid(np.arange(3), np.arange(2))[0], onp.meshgrid(onp.arange(3),
                                                                  onp.arange(2))[0]),
        (np.ediff1d(a, to_end=[9]), onp.ediff1d(x, to_end=[9])),
        (np.nan_to_num(np.array([onp.nan, onp.inf, 1.0])),
         onp.nan_to_num(onp.array([onp.nan, onp.inf, 1.0], dtype=onp.float32))),
        (np.average(a, axis=1, weights=np.array([1.0, 2.0, 3.0, 4.0])),
         onp.average(x, axis=1, weights=[1.0, 2.0, 3.0, 4.0])),
        (np.bincount(np.array([0, 1, 1, 3], dtype="int64")), onp.bincount([0, 1, 1, 3])),
    ]
    for got, want in checks:
        _same(got, want, rtol=1e-5, atol=1e-5)
    m = onp.array([[4.0, 1.0], [1.0, 3.0]], dtype=onp.float32)
    _same(np.linalg.solve(np.array(m), np.array([1.0, 2.0])),
          onp.linalg.solve(m, [1.0, 2.0]), rtol=1e-4, atol=1e-5)
    _same(np.linalg.eigvalsh(np.array(m)), onp.linalg.eigvalsh(m), rtol=1e-4, atol=1e-5)
    # the composed functions stay differentiable
    a.attach_grad()
    with mx.autograd.record():
        y = np.roll(np.tril(a), 1, axis=0).sum()
    y.backward()
    _same(a.grad, onp.tril(onp.ones((3, 4))))
    # ufunc keywords: a legal non-default value is NotImplementedError, an illegal one TypeError
    with pytest.raises(NotImplementedError):
        np.add(a, a, dtype="float64")
    with pytest.raises(TypeError):
        np.add(a, a, dtype="abcdefg")
    with pytest.raises(MXNetError):
        np.max(np.zeros((0, 2)), axis=0)


def test_zero_size_contractions_and_null_grad():
    for sa, sb in [((2, 0), (0, 3)), ((4, 2, 0), (0, 3)), ((0,), (0,)), ((3, 0), (0,))]:
        a, b = np.zeros(sa), np.ones(sb)
        a.attach_grad()
        b.attach_grad()
        with mx.autograd.record():
            y = np.matmul(a, b)
        y.backward()  # stays in the graph although nothing is summed
        _same(y, onp.matmul(onp.zeros(sa), onp.ones(sb)))
        assert a.grad.shape == sa and b.grad.shape == sb
    with pytest.raises(MXNetError):
        np.matmul(np.ones((2, 3, 4)), np.ones((3, 4, 5)))
    c = np.ones((2,))
    c.attach_grad(grad_req="null")
    assert c.grad is None


def test_einsum_and_pad_against_numpy():
    r = onp.random.RandomState(0)
    A = r.rand(3, 4).astype(onp.float32)
    B = r.rand(4, 5).astype(onp.float32)
    v = r.rand(4).astype(onp.float32)
    batch = (r.rand(2, 3, 4).astype(onp.float32), r.rand(2, 4, 5).astype(onp.float32))
    for sub, ops in [("ij,jk->ik", (A, B)), ("ij,jk", (A, B)), ("ij->ji", (A,)),
                     ("ij->", (A,)), ("i,i->", (v, v)), ("i,j->ij", (v, v)),
                     ("bij,bjk->bik", batch), ("ij,j->i", (A, v))]:
        _same(np.einsum(sub, *[np.array(o) for o in ops]), onp.einsum(sub, *ops),
              rtol=1e-5, atol=1e-5)
    a = np.array(A)
    a.attach_grad()
    with mx.autograd.record():
        y = np.einsum("ij,j->i", a, np.array(v)).sum()
    y.backward()
    _same(a.grad, onp.broadcast_to(v, A.shape))
    x = onp.arange(6, dtype=onp.float32).reshape(2, 3)
    for pw, mode in [(1, "constant"), (((1, 0), (2, 1)), "constant"), ((1, 2), "edge")]:
        _same(np.pad(np.array(x), pw, mode=mode), onp.pad(x, pw, mode=mode))
    with pytest.raises(NotImplementedError):
        np.einsum("...i->i", np.array(A))


def test_imperative_numpy_block_warns_and_refuses_export(tmp_path):
    from mxnet import gluon

    class Twice(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.np.multiply(x, 2)

    npx.set_np()
    try:
        net = Twice()
        net.hybridize()
        with pytest.warns(UserWarning, match="runs imperatively"):
            out = net(np.ones((2,)))
        _same(out, onp.full((2,), 2.0))
        with pytest.raises(MXNetError, match="no graph to export"):
            net.export(str(tmp_path / "twice"))
    finally:
        npx.reset_np()


def test_reductions_of_zero_size_arrays():
    x = onp.zeros((2, 0, 3), dtype=onp.float32)
    a = np.array(x)
    for axis in (0, 2, (0, 2), 1, None):
        _same(np.sum(a, axis=axis), onp.sum(x, axis=axis))
    _same(np.max(a, axis=2), onp.max(x, axis=2))  # reduces a non-empty axis: empty result
    _same(np.all(a, axis=0), onp.all(x, axis=0))
    counts = np.random.multinomial(10, [0.2, 0.8], size=(3,))
    assert counts.shape == (3, 2) and (counts.sum(axis=1) == 10).asnumpy().all()


def test_random_parameter_checks_and_array_parameters():
    for call in (lambda: np.random.normal(0, -1), lambda: np.random.exponential(-1),
                 lambda: np.random.gamma(0, 1), lambda: np.random.gamma(1, np.array(-1.0)),
                 lambda: np.random.rayleigh(-1), lambda: np.random.chisquare(0),
                 lambda: npx.random.bernoulli(prob=np.array([0.5, 1.5]))):
        with pytest.raises(ValueError):
            call()
    g = np.random.gamma(np.array([1.0, 2.0, 3.0]), 2.0)
    assert g.shape == (3,) and (g.asnumpy() > 0).all()
    assert np.random.beta(np.array([1.0]), np.array([1.0])).shape == (1,)
    assert np.random.chisquare(np.array([2.0, 4.0]), size=(5, 2)).shape == (5, 2)


def test_norms_cumsum_dtypes_and_eigh_of_ints():
    x = onp.random.RandomState(3).rand(2, 3, 4).astype(onp.float32) - 0.5
    for ord_, axis in [(None, None), (1, (2, 1)), (onp.inf, (0, 2)), (-1, (1, 2)),
                       ("fro", (0, 1)), (3, 1), (0, 2), (onp.inf, 0)]:
        _same(np.linalg.norm(np.array(x), ord=ord_, axis=axis),
              onp.linalg.norm(x, ord=ord_, axis=axis), rtol=1e-4, atol=1e-5)
    b = onp.array([True, False, True])
    got = np.cumsum(np.array(b, dtype=bool))
    assert got.dtype == onp.int64
    _same(got, onp.cumsum(b))
    _same(np.cumsum(np.array([1, 2, 3], dtype="int32")), onp.array([1, 3, 6]))
    w = np.linalg.eigvalsh(np.array([[2, 1], [1, 2]], dtype="int32"))
    assert w.dtype == onp.float32
    _same(w, onp.array([1.0, 3.0]), atol=1e-5)


def test_windows_bitwise_polyval_histogram_quantiles():
    x = onp.random.RandomState(4).rand(3, 4).astype(onp.float32)
    _same(np.hanning(5), onp.hanning(5).astype(onp.float32))
    _same(np.blackman(4), onp.blackman(4).astype(onp.float32), atol=1e-6)
    _same(np.bitwise_xor(np.array([3, 5], dtype="int32"), np.array([1, 4], dtype="int32")),
          onp.array([2, 1], dtype=onp.int32))
    _same(np.polyval(np.array([1.0, 2.0, 3.0]), np.array(x)), onp.polyval([1, 2, 3], x),
          atol=1e-5)
    counts, edges = np.histogram(np.array(x), bins=3)
    want_counts, want_edges = onp.histogram(x, bins=3)
    _same(counts, want_counts)
    _same(edges, want_edges.astype(onp.float32))
    _same(np.quantile(np.array(x), 0.3, axis=1), onp.quantile(x, 0.3, axis=1))
    _same(np.percentile(np.array(x), [10, 50]), onp.percentile(x, [10, 50]))
