"""mx.nd.CachedOp: a recorded graph replayed as one operator, forward and under autograd."""
import numpy as np
import pytest

import mxnet as mx


def recorded_symbol(fn, *shapes):
    arrays = [mx.nd.ones(s) for s in shapes]
    for a in arrays:
        a.attach_grad()
    with mx.autograd.record():
        out = fn(*arrays)
    return mx.autograd.get_symbol(out)


def mlp(x, w, b):
    return mx.nd.tanh(mx.nd.FullyConnected(x, w, b, num_hidden=5)) * 2


def test_forward_matches_imperative():
    s = recorded_symbol(mlp, (3, 4), (5, 4), (5,))
    op = mx.nd.CachedOp(s)
    args = [mx.nd.array(np.random.randn(*sh)) for sh in [(3, 4), (5, 4), (5,)]]
    np.testing.assert_allclose(op(*args).asnumpy(), mlp(*args).asnumpy(), rtol=1e-6)


def test_backward_matches_imperative_and_is_one_node():
    s = recorded_symbol(mlp, (3, 4), (5, 4), (5,))
    op = mx.nd.CachedOp(s, [("static_alloc", True), ("static_shape", True)])
    vals = [np.random.randn(*sh).astype(np.float32) for sh in [(3, 4), (5, 4), (5,)]]
    a = [mx.nd.array(v) for v in vals]
    b = [mx.nd.array(v) for v in vals]
    for x in a + b:
        x.attach_grad()
    with mx.autograd.record():
        y = op(*a)
        loss_a = (y * y).sum()
    loss_a.backward()
    with mx.autograd.record():
        loss_b = (mlp(*b) ** 2).sum()
    loss_b.backward()
    for x, z in zip(a, b):
        np.testing.assert_allclose(x.grad.asnumpy(), z.grad.asnumpy(), rtol=1e-5, atol=1e-6)
    with mx.autograd.record():
        y = op(*a)
    assert "_CachedOp" in mx.autograd.get_symbol(y).tojson()


def test_inputs_count_and_out_are_checked():
    s = recorded_symbol(mlp, (3, 4), (5, 4), (5,))
    op = mx.nd.CachedOp(s)
    with pytest.raises(mx.MXNetError, match="3 inputs expected"):
        op(mx.nd.ones((3, 4)))
    out = mx.nd.zeros((3, 5))
    res = op(mx.nd.ones((3, 4)), mx.nd.ones((5, 4)), mx.nd.zeros((5,)), out=out)
    assert res is out
    np.testing.assert_allclose(out.asnumpy(), np.full((3, 5), 2 * np.tanh(4.0)), rtol=1e-6)


def test_aux_state_updates_through_the_cached_graph():
    x = mx.nd.ones((4, 2))
    g, b, mm, mv = mx.nd.ones((2,)), mx.nd.zeros((2,)), mx.nd.zeros((2,)), mx.nd.ones((2,))
    for a in (x, g, b):
        a.attach_grad()
    with mx.autograd.record():
        y = mx.nd.BatchNorm(x, g, b, mm, mv, fix_gamma=False, momentum=0.5)
    s = mx.autograd.get_symbol(y)
    op = mx.nd.CachedOp(s)
    data = mx.nd.array(np.arange(8, dtype=np.float32).reshape(4, 2))
    mm2, mv2 = mx.nd.zeros((2,)), mx.nd.ones((2,))
    inputs = [data, mx.nd.ones((2,)), mx.nd.zeros((2,)), mm2, mv2]
    data.attach_grad()
    with mx.autograd.record():
        out = op(*inputs)
    out.backward()
    np.testing.assert_allclose(mm2.asnumpy(), [1.5, 2.0], rtol=1e-6)
