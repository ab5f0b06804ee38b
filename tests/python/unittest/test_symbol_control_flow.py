"""mx.sym.contrib.foreach / while_loop / cond: the _foreach / _while_loop / _cond nodes built,
saved as JSON, inferred, and run forward and backward by the executor and by a hybridized
block, against the same computation unrolled by hand."""
import json

import numpy as np
import pytest

import mxnet as mx
from mxnet import gluon
from mxnet.base import MXNetError


def _bind_run(sym, args, out_grads):
    """(outputs, {arg: grad}) of sym bound on args, backward with out_grads."""
    grads = {k: mx.nd.zeros_like(v) for k, v in args.items()}
    exe = sym.bind(mx.cpu(), args={k: v.copy() for k, v in args.items()}, args_grad=grads)
    outs = [o.asnumpy() for o in exe.forward(is_train=True)]
    exe.backward([mx.nd.array(g) for g in out_grads])
    return outs, {k: v.asnumpy() for k, v in grads.items()}


def _foreach_body(x, states):
    h = states[0]
    w = mx.sym.var("w")
    new_h = mx.sym.tanh(x * w + h)
    return new_h * 2, [new_h]


def _foreach_unrolled(data, h0, w, steps):
    h, outs = h0, []
    for i in range(steps):
        x = mx.sym.reshape(mx.sym.slice_axis(data, axis=0, begin=i, end=i + 1), shape=(-3, -2))
        x = mx.sym.reshape(x, shape=(-1, 3))
        h = mx.sym.tanh(x * w + h)
        outs.append(mx.sym.expand_dims(h * 2, axis=0))
    return mx.sym.Group([mx.sym.concat(*outs, dim=0), h])


def test_foreach_forward_backward_match_unrolled_graph():
    data, h0, w = mx.sym.var("data"), mx.sym.var("h0"), mx.sym.var("w")
    outs, states = mx.sym.contrib.foreach(_foreach_body, data, [h0])
    loop = mx.sym.Group([outs, states[0]])
    rng = np.random.RandomState(0)
    args = {"data": mx.nd.array(rng.uniform(-1, 1, (4, 2, 3))),
            "h0": mx.nd.array(rng.uniform(-1, 1, (2, 3))),
            "w": mx.nd.array(rng.uniform(-1, 1, (2, 3)))}
    og = [rng.uniform(-1, 1, (4, 2, 3)), rng.uniform(-1, 1, (2, 3))]
    got, got_g = _bind_run(loop, args, og)
    want, want_g = _bind_run(_foreach_unrolled(data, h0, w, 4), args, og)
    assert sorted(loop.list_arguments()) == ["data", "h0", "w"]
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    for k in args:
        np.testing.assert_allclose(got_g[k], want_g[k], rtol=1e-5, atol=1e-6)


def test_foreach_infers_shapes_and_types_from_the_data():
    data, h0, w = mx.sym.var("data"), mx.sym.var("h0"), mx.sym.var("w")
    outs, states = mx.sym.contrib.foreach(_foreach_body, data, [h0])
    loop = mx.sym.Group([outs, states[0]])
    arg_shapes, out_shapes, _ = loop.infer_shape(data=(5, 2, 3), h0=(2, 3))
    assert dict(zip(loop.list_arguments(), arg_shapes))["w"] == (2, 3)
    assert out_shapes == [(5, 2, 3), (2, 3)]
    _, out_types, _ = loop.infer_type(data=np.float64)
    assert out_types == [np.float64, np.float64]


def test_while_loop_sums_until_cond_fails_and_pads_with_zeros():
    i, s = mx.sym.var("i"), mx.sym.var("s")
    outs, (fi, fs) = mx.sym.contrib.while_loop(
        cond=lambda i, s: i <= 5, func=lambda i, s: (i * 10, (i + 1, s + i)),
        loop_vars=(i, s), max_iterations=8)
    g = mx.sym.Group([outs, fi, fs])
    exe = g.bind(mx.cpu(), args={"i": mx.nd.array([1]), "s": mx.nd.array([0])})
    o, ri, rs = [x.asnumpy() for x in exe.forward()]
    assert ri[0] == 6 and rs[0] == 15
    np.testing.assert_array_equal(o[:, 0], [10, 20, 30, 40, 50, 0, 0, 0])


def test_while_loop_gradient_matches_unrolled_graph():
    x, w = mx.sym.var("x"), mx.sym.var("w")
    # x <- x * w + 1 three times (cond counts the steps in a loop variable)
    k = mx.sym.var("k")
    outs, (fk, fx) = mx.sym.contrib.while_loop(
        cond=lambda k, x: k < 3, func=lambda k, x: (x * 2, (k + 1, x * w + 1)),
        loop_vars=(k, x), max_iterations=5)
    loop = mx.sym.Group([mx.sym.slice_axis(outs, axis=0, begin=0, end=3), fx])
    ux, uouts = x, []
    for _ in range(3):
        uouts.append(mx.sym.expand_dims(ux * 2, axis=0))
        ux = ux * w + 1
    unrolled = mx.sym.Group([mx.sym.concat(*uouts, dim=0), mx.sym.broadcast_add(ux, k * 0)])
    rng = np.random.RandomState(1)
    args = {"k": mx.nd.array([0]), "x": mx.nd.array(rng.uniform(-1, 1, (2,))),
            "w": mx.nd.array(rng.uniform(-1, 1, (2,)))}
    og = [rng.uniform(-1, 1, (3, 2)), rng.uniform(-1, 1, (2,))]
    got, got_g = _bind_run(loop, args, og)
    want, want_g = _bind_run(unrolled, args, og)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    for name in ("x", "w"):
        np.testing.assert_allclose(got_g[name], want_g[name], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("a_val,want_branch", [(1.0, "then"), (10.0, "else")])
def test_cond_runs_and_differentiates_the_branch_taken(a_val, want_branch):
    a, b = mx.sym.var("a"), mx.sym.var("b")
    out = mx.sym.contrib.cond(a * b < 5, lambda: (a + 5) * (b + 5), lambda: (a - 5) * (b - 5))
    args = {"a": mx.nd.array([a_val]), "b": mx.nd.array([2.0])}
    got, grads = _bind_run(out, args, [np.array([1.0])])
    if want_branch == "then":
        assert got[0][0] == pytest.approx((a_val + 5) * 7)
        assert grads["a"][0] == pytest.approx(7) and grads["b"][0] == pytest.approx(a_val + 5)
    else:
        assert got[0][0] == pytest.approx((a_val - 5) * -3)
        assert grads["a"][0] == pytest.approx(-3) and grads["b"][0] == pytest.approx(a_val - 5)


def test_json_round_trip_keeps_the_subgraphs():
    data, h0 = mx.sym.var("data"), mx.sym.var("h0")
    outs, states = mx.sym.contrib.foreach(_foreach_body, data, [h0])
    loop = mx.sym.Group([outs, states[0]])
    text = loop.tojson()
    node = [n for n in json.loads(text)["nodes"] if n["op"] == "_foreach"][0]
    assert len(node["subgraphs"]) == 1 and node["attrs"]["num_outputs"] == "2"
    back = mx.sym.load_json(text)
    assert back.list_arguments() == loop.list_arguments()
    assert back.tojson() == text
    rng = np.random.RandomState(2)
    args = {"data": mx.nd.array(rng.uniform(-1, 1, (3, 2, 3))),
            "h0": mx.nd.array(rng.uniform(-1, 1, (2, 3))),
            "w": mx.nd.array(rng.uniform(-1, 1, (2, 3)))}
    og = [np.ones((3, 2, 3)), np.ones((2, 3))]
    a, ga = _bind_run(loop, args, og)
    b, gb = _bind_run(back, args, og)
    for x, y in zip(a + list(ga.values()), b + list(gb.values())):
        np.testing.assert_allclose(x, y, rtol=1e-6)


class _Rnn(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.dense = gluon.nn.Dense(3, in_units=3, flatten=False)

    def hybrid_forward(self, F, data, h):
        def step(x, states):
            new_h = F.tanh(self.dense(x) + states[0])
            return new_h, [new_h]
        outs, states = F.contrib.foreach(step, data, [h])
        return outs, states[0]


def test_hybridized_foreach_matches_imperative_forward_and_gradients():
    net = _Rnn()
    net.initialize(mx.init.Xavier())
    rng = np.random.RandomState(3)
    data = mx.nd.array(rng.uniform(-1, 1, (4, 2, 3)))
    h = mx.nd.array(rng.uniform(-1, 1, (2, 3)))
    results = []
    for hybridize in (False, True):
        if hybridize:
            net.hybridize()
        with mx.autograd.record():
            outs, last = net(data, h)
            loss = (outs * 2).sum() + last.sum()
        loss.backward()
        results.append([outs.asnumpy(), last.asnumpy()] +
                       [p.grad().asnumpy() for p in net.collect_params().values()])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_bad_locations_raise_naming_op_and_argument():
    x = mx.sym.var("x")
    body = mx.sym.Group([x * 2])
    bad = mx.sym._internal._foreach(body, mx.sym.var("data"), num_outputs=1, num_out_data=1,
                                    in_data_locs=[3], in_state_locs=[], remain_locs=[])
    with pytest.raises(MXNetError, match=r"_foreach.*in_data_locs"):
        bad.infer_shape(data=(2, 3))


def test_while_loop_without_max_iterations_is_an_error():
    i = mx.sym.var("i")
    with pytest.raises(ValueError, match="max_iterations"):
        mx.sym.contrib.while_loop(lambda i: i < 3, lambda i: (None, [i + 1]), [i])


class _CountLoop(gluon.HybridBlock):
    def hybrid_forward(self, F, i, s):
        return F.contrib.while_loop(cond=lambda i, s: i <= 5,
                                    func=lambda i, s: (None, (i + 1, s + i)),
                                    loop_vars=(i, s), max_iterations=10)


def test_hybridized_while_loop_keeps_int64_loop_variables():
    net = _CountLoop()
    net.hybridize()
    outs, (i, s) = net(mx.nd.array([1], dtype="int64"), mx.nd.array([0], dtype="int64"))
    assert outs == []
    assert i.dtype == np.int64 and s.dtype == np.int64
    assert i.asscalar() == 6 and s.asscalar() == 15
