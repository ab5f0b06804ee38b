"""Bulk execution (mx.engine.bulk, MXNET_EXEC_BULK_EXEC_*): same results at every bulk size."""
import contextlib
import os

import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd, gluon, nd

_BULK_VARS = ("MXNET_EXEC_BULK_EXEC_INFERENCE", "MXNET_EXEC_BULK_EXEC_TRAIN",
              "MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN")


@contextlib.contextmanager
def bulk_env(size):
    """Executor/CachedOp bulks of `size` ops (0: bulking off)."""
    old = {k: os.environ.get(k) for k in _BULK_VARS}
    values = ("1" if size else "0", "1" if size else "0", str(size))
    try:
        for k, v in zip(_BULK_VARS, values):
            mx.util.setenv(k, v)
        yield
    finally:
        for k, v in old.items():
            mx.util.setenv(k, v)


def _mlp_symbol():
    data = mx.sym.Variable("data")
    h = mx.sym.FullyConnected(data, num_hidden=16, name="fc1")
    h = mx.sym.Activation(h, act_type="relu")
    h = mx.sym.FullyConnected(h, num_hidden=8, name="fc2")
    h = mx.sym.Activation(h, act_type="tanh")
    h = mx.sym.FullyConnected(h, num_hidden=4, name="fc3")
    return mx.sym.SoftmaxOutput(h, name="softmax")


def _run_executor():
    sym = _mlp_symbol()
    rng = np.random.RandomState(0)
    exe = sym.simple_bind(mx.cpu(), data=(5, 10), grad_req="write")
    for name, arr in exe.arg_dict.items():
        arr[:] = rng.uniform(-1, 1, arr.shape) if name != "softmax_label" else \
            rng.randint(0, 4, arr.shape)
    exe.forward(is_train=True)
    exe.backward()
    results = [o.asnumpy() for o in exe.outputs]
    results += [exe.grad_dict[n].asnumpy() for n in sorted(exe.grad_dict)]
    infer = sym.simple_bind(mx.cpu(), data=(5, 10), grad_req="null")
    for name, arr in infer.arg_dict.items():
        arr[:] = exe.arg_dict[name]
    results += [o.asnumpy() for o in infer.forward(is_train=False)]
    return results


def _run_hybrid(static_alloc):
    mx.random.seed(3)
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Dense(16, activation="relu"), gluon.nn.Dense(8, activation="tanh"),
            gluon.nn.Dense(3))
    net.initialize(mx.init.Xavier())
    net.hybridize(static_alloc=static_alloc, static_shape=static_alloc)
    x = nd.array(np.random.RandomState(1).uniform(-1, 1, (6, 12)))
    results = []
    for _ in range(2):
        with autograd.record():
            loss = (net(x) ** 2).sum()
        loss.backward()
        results.append(loss.asnumpy())
        results += [p.grad().asnumpy() for p in net.collect_params().values()]
    results.append(net(x).asnumpy())  # inference
    return results


def _assert_all_equal(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("size", [1, 15])
def test_executor_same_results_with_bulks(size):
    with bulk_env(0):
        want = _run_executor()
    with bulk_env(size):
        got = _run_executor()
    _assert_all_equal(got, want)


@pytest.mark.parametrize("static_alloc", [False, True])
@pytest.mark.parametrize("size", [1, 15])
def test_hybrid_block_forward_backward_same_results_with_bulks(size, static_alloc):
    with bulk_env(0):
        want = _run_hybrid(static_alloc)
    with bulk_env(size):
        got = _run_hybrid(static_alloc)
    _assert_all_equal(got, want)


def _imperative_steps():
    rng = np.random.RandomState(2)
    w = nd.array(rng.uniform(-1, 1, (10, 10)))
    x = nd.array(rng.uniform(-1, 1, (4, 10)))
    w.attach_grad()
    out = []
    for _ in range(3):
        with autograd.record():
            h = nd.dot(x, w)
            for _ in range(6):
                h = nd.tanh(h) * 0.9 + 0.1
            loss = (h * h).sum()
        loss.backward()
        w -= 0.01 * w.grad  # in place: later steps read it
        out += [loss.asnumpy(), w.grad.asnumpy(), w.asnumpy()]
    big = nd.ones((300, 300))  # ops large enough to go to a worker
    for i in range(20):
        big = big * 1.01 + i
    out.append(big.asnumpy())
    return out


@pytest.mark.parametrize("size", [1, 10])
def test_imperative_code_inside_bulk_same_results(size):
    with mx.engine.bulk(0):
        want = _imperative_steps()
    with mx.engine.bulk(size):
        got = _imperative_steps()
    _assert_all_equal(got, want)


def test_bulk_scope_restores_the_size():
    prev = mx.engine.set_bulk_size(4)
    try:
        with mx.engine.bulk(10):
            assert mx.engine.set_bulk_size(10) == 10
        assert mx.engine.set_bulk_size(4) == 4
    finally:
        mx.engine.set_bulk_size(prev)
    with pytest.raises(ValueError):
        mx.engine.set_bulk_size(-1)


def test_error_in_a_bulk_raises_at_the_wait():
    with mx.engine.bulk(10):
        a = nd.ones((2, 2)) + 1
        b = nd.random.normal(0, -1, shape=(2, 2))  # scale < 0: fails when it runs
        c = b * 3  # reads the failed output
    with pytest.raises(mx.MXNetError, match="scale"):
        c.asnumpy()
    with mx.engine.bulk(10):
        d = a * 2
    np.testing.assert_array_equal(d.asnumpy(), np.full((2, 2), 4.0))
    mx.nd.waitall()


def test_waitall_inside_bulk_runs_the_pending_ops():
    with mx.engine.bulk(100):
        x = nd.zeros((3,))
        for _ in range(5):
            x += 1
        nd.waitall()
        np.testing.assert_array_equal(x.asnumpy(), np.full((3,), 5.0))


def _conv_with_weight_updates():
    rng = np.random.RandomState(4)
    x = nd.array(rng.uniform(-1, 1, (1, 3, 8, 8)))
    w = nd.array(rng.uniform(-1, 1, (4, 3, 3, 3)))
    b = nd.zeros((4,))
    outs = []
    for _ in range(4):
        outs.append(nd.Convolution(x, w, b, kernel=(3, 3), num_filter=4))
        w += 0.5  # in place: the next convolution must not use weights cached for the old ones
    return [o.asnumpy() for o in outs]


@pytest.mark.parametrize("size", [2, 10])
def test_weight_written_inside_a_bulk_is_seen_by_later_ops(size):
    with mx.engine.bulk(0):
        want = _conv_with_weight_updates()
    with mx.engine.bulk(size):
        got = _conv_with_weight_updates()
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
