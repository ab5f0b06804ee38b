"""The executor's memory plan: in-place reuse (MXNET_EXEC_ENABLE_INPLACE) and block matching
(NNVM_EXEC_MATCH_RANGE) change how much memory a bind takes, never what it computes."""
import numpy as np
import mxnet as mx
from mxnet import util


def _net():
    x = mx.sym.var("x")
    w = mx.sym.var("w")
    h = mx.sym.FullyConnected(x, w, num_hidden=64, no_bias=True, name="fc")
    h = mx.sym.Activation(h, act_type="relu", name="r1")
    h = mx.sym.Activation(h, act_type="sigmoid", name="s1")
    h = h + mx.sym.Activation(h, act_type="tanh", name="t1")  # h read twice: no in-place on it
    h = mx.sym.Activation(h, act_type="relu", name="r2")
    return mx.sym.sum(h * h, name="loss")


def _run(env):
    old = {k: None for k in env}
    for k, v in env.items():
        util.setenv(k, v)
    try:
        rng = np.random.RandomState(0)
        args = {"x": mx.nd.array(rng.randn(32, 16)), "w": mx.nd.array(rng.randn(64, 16) * 0.3)}
        grads = {"x": mx.nd.zeros((32, 16)), "w": mx.nd.zeros((64, 16))}
        ex = _net().bind(mx.cpu(), args, args_grad=grads)
        ex.forward(is_train=True)
        ex.backward(mx.nd.ones((1,)))
        return ex.outputs[0].asnumpy(), grads["x"].asnumpy(), grads["w"].asnumpy()
    finally:
        for k in old:
            util.setenv(k, None)


def test_inplace_and_match_range_do_not_change_results():
    base = _run({"MXNET_EXEC_ENABLE_INPLACE": "0", "NNVM_EXEC_MATCH_RANGE": "1"})
    for env in ({"MXNET_EXEC_ENABLE_INPLACE": "1"},
                {"MXNET_EXEC_ENABLE_INPLACE": "1", "NNVM_EXEC_MATCH_RANGE": "1"},
                {"MXNET_EXEC_ENABLE_INPLACE": "0"}):
        got = _run(env)
        for a, b in zip(base, got):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


def test_relu_chain_runs_in_place_and_matches_numpy():
    x = mx.sym.var("x")
    y = mx.sym.Activation(mx.sym.Activation(mx.sym.exp(x), act_type="relu"), act_type="sigmoid")
    data = np.linspace(-2, 2, 24, dtype=np.float32).reshape(4, 6)
    for inplace in ("0", "1"):
        util.setenv("MXNET_EXEC_ENABLE_INPLACE", inplace)
        try:
            g = mx.nd.zeros((4, 6))
            ex = y.bind(mx.cpu(), {"x": mx.nd.array(data)}, args_grad={"x": g})
            ex.forward(is_train=True)
            ex.backward(mx.nd.ones((4, 6)))
        finally:
            util.setenv("MXNET_EXEC_ENABLE_INPLACE", None)
        s = 1 / (1 + np.exp(-np.exp(data)))
        np.testing.assert_allclose(ex.outputs[0].asnumpy(), s, rtol=1e-5)
        np.testing.assert_allclose(g.asnumpy(), s * (1 - s) * np.exp(data), rtol=1e-4)
