"""Subgraph backends: partitioning by op names (the 'default' test backends), optimize_for,
MXNET_SUBGRAPH_BACKEND at bind, hybridize(backend=...), and bad backend names."""
import ctypes
import json

import numpy as np
import pytest

import mxnet as mx
from mxnet.base import _LIB, MXNetError, SymbolHandle, c_str, c_str_array, check_call, mx_uint
from mxnet.symbol import Symbol
from mxnet.test_utils import environment


def _set_op_names(backend, names):
    check_call(_LIB.MXSetSubgraphPropertyOpNamesV2(c_str(backend), mx_uint(len(names)),
                                                   c_str_array(names)))


def _clear_op_names(backend):
    check_call(_LIB.MXRemoveSubgraphPropertyOpNamesV2(c_str(backend)))


def _ops(sym):
    return [n["op"] for n in json.loads(sym.tojson())["nodes"]]


def _run(sym, inputs):
    args = {k: v for k, v in inputs.items() if k in sym.list_arguments()}
    aux = {k: v.copy() for k, v in inputs.items() if k in sym.list_auxiliary_states()}
    exe = sym.bind(mx.cpu(), args=args, aux_states=aux, grad_req="null")
    exe.forward()
    return [o.asnumpy() for o in exe.outputs]


def _inputs(sym, **shapes):
    arg_shapes, _, aux_shapes = sym.infer_shape(**shapes)
    names = sym.list_arguments() + sym.list_auxiliary_states()
    return {n: mx.nd.random.uniform(0.5, 1.5, shape=s)
            for n, s in zip(names, arg_shapes + aux_shapes)}


def _branchy():
    data = mx.sym.var("data")
    e = mx.sym.exp(data)
    out = mx.sym.cos(e) + mx.sym.sin(e)
    return mx.sym.BatchNorm(out, name="bn")


def test_named_ops_fold_into_cached_op_nodes_with_same_results():
    sym = _branchy()
    _set_op_names("default", ["exp", "sin", "BatchNorm"])
    try:
        part = sym.optimize_for("default")
    finally:
        _clear_op_names("default")
    assert part.list_inputs() == sym.list_inputs()
    assert part.list_arguments() == sym.list_arguments()
    assert part.list_auxiliary_states() == sym.list_auxiliary_states()
    ops = _ops(part)
    assert "_CachedOp" in ops and "exp" not in ops and "sin" not in ops and "cos" in ops
    inputs = _inputs(sym, data=(2, 3, 4, 4))
    for a, b in zip(_run(sym, inputs), _run(part, inputs)):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_a_path_through_an_outside_node_splits_the_subgraph():
    # exp -> cos (outside) -> plus: exp and plus in one node would make a cycle
    data = mx.sym.var("data")
    e = mx.sym.exp(data)
    sym = mx.sym.cos(e) + e
    _set_op_names("default_v2", ["exp", "elemwise_add", "_plus", "_Plus"])
    try:
        part = sym.optimize_for("default_v2")
    finally:
        _clear_op_names("default_v2")
    assert _ops(part).count("_CachedOp") == 2
    inputs = {"data": mx.nd.array([[0.1, 0.2], [0.3, 0.4]])}
    np.testing.assert_allclose(_run(sym, inputs)[0], _run(part, inputs)[0], rtol=1e-6)


def test_no_op_names_leaves_the_graph_unchanged():
    sym = _branchy()
    part = sym.optimize_for("default")
    assert _ops(part) == _ops(sym)


def test_build_subgraph_by_op_names_through_the_c_api_and_json_round_trip():
    sym = _branchy()
    out = SymbolHandle()
    names = ["exp", "cos"]
    check_call(_LIB.MXBuildSubgraphByOpNames(sym.handle, c_str("default"), mx_uint(len(names)),
                                             c_str_array(names), ctypes.byref(out)))
    part = Symbol(out)
    reloaded = mx.sym.load_json(part.tojson())
    assert _ops(reloaded) == _ops(part)
    inputs = _inputs(sym, data=(1, 2, 3, 3))
    for a, b in zip(_run(sym, inputs), _run(reloaded, inputs)):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_env_backend_partitions_at_bind():
    sym = _branchy()
    inputs = _inputs(sym, data=(2, 2, 3, 3))
    expected = _run(sym, inputs)
    check_call(_LIB.MXSetSubgraphPropertyOpNames(c_str("default"), mx_uint(2),
                                                 c_str_array(["exp", "sin"])))
    try:
        with environment("MXNET_SUBGRAPH_BACKEND", "default"):
            got = _run(sym, inputs)
    finally:
        check_call(_LIB.MXRemoveSubgraphPropertyOpNames(c_str("default")))
    for a, b in zip(expected, got):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_unknown_backend_is_an_error_naming_it():
    sym = _branchy()
    with pytest.raises(MXNetError, match="NoSuchBackend"):
        sym.optimize_for("NoSuchBackend")
    inputs = _inputs(sym, data=(1, 2, 3, 3))
    with environment("MXNET_SUBGRAPH_BACKEND", "NoSuchBackend"):
        with pytest.raises(MXNetError, match="NoSuchBackend"):
            _run(sym, inputs)
    net = mx.gluon.nn.Dense(2)
    net.initialize()
    net.hybridize(backend="NoSuchBackend")
    with pytest.raises(MXNetError, match="NoSuchBackend"):
        net(mx.nd.ones((1, 3)))


def test_bad_option_value_is_an_error_naming_it():
    with pytest.raises(MXNetError, match="dedup_subgraph"):
        _branchy().optimize_for("default", dedup_subgraph="maybe")


def test_dedup_subgraph_shares_one_input_per_entry():
    data = mx.sym.var("data")
    sym = data + data
    _set_op_names("default", ["elemwise_add", "_plus", "_Plus"])
    try:
        plain = sym.optimize_for("default")
        dedup = sym.optimize_for("default", dedup_subgraph=True)
    finally:
        _clear_op_names("default")
    node = lambda s: [n for n in json.loads(s.tojson())["nodes"] if n["op"] == "_CachedOp"][0]
    assert len(node(plain)["inputs"]) == 2
    assert len(node(dedup)["inputs"]) == 1
    inputs = {"data": mx.nd.array([1.0, 2.0])}
    np.testing.assert_allclose(_run(dedup, inputs)[0], [2.0, 4.0])
    np.testing.assert_allclose(_run(plain, inputs)[0], [2.0, 4.0])


# ---------------------------------------------------------------- the ONEDNN backend
def _fused_ops(sym):
    return [op for op in _ops(sym) if op.startswith("_sg_onednn")]


def _check_fused_equals_unfused(sym, backend="ONEDNN", **shapes):
    part = sym.optimize_for(backend)
    assert part.list_outputs() == sym.list_outputs()
    assert part.list_arguments() == sym.list_arguments()
    assert part.list_auxiliary_states() == sym.list_auxiliary_states()
    arg_shapes, _, aux_shapes = sym.infer_shape(**shapes)
    rng = np.random.RandomState(3)
    inputs = {}
    for n, s in zip(sym.list_arguments() + sym.list_auxiliary_states(), arg_shapes + aux_shapes):
        low, high = (0.5, 1.5) if n.endswith("var") else (-0.5, 0.5)
        inputs[n] = mx.nd.array(rng.uniform(low, high, s))
    for a, b in zip(_run(sym, inputs), _run(part, inputs)):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
    return part


def _conv_bn(data, name, **kwargs):
    conv = mx.sym.Convolution(data, kernel=(3, 3), num_filter=4, name=name + "_conv", **kwargs)
    return mx.sym.BatchNorm(conv, fix_gamma=False, eps=1e-4, name=name + "_bn")


@pytest.mark.parametrize("act", ["relu", "sigmoid", "tanh", "softrelu"])
def test_conv_bn_act_fuses_into_one_node(act):
    data = mx.sym.var("data")
    sym = mx.sym.Activation(_conv_bn(data, "a", pad=(1, 1)), act_type=act)
    part = _check_fused_equals_unfused(sym, data=(2, 3, 6, 6))
    assert _fused_ops(part) == ["_sg_onednn_conv"] and "BatchNorm" not in _ops(part)


def test_conv_bn_sum_relu_fuses_the_residual_add():
    data = mx.sym.var("data")
    first = mx.sym.Activation(_conv_bn(data, "a", pad=(1, 1)), act_type="relu")
    second = _conv_bn(first, "b", pad=(1, 1), no_bias=True)
    sym = mx.sym.Activation(second + first, act_type="relu")
    part = _check_fused_equals_unfused(sym, data=(2, 4, 5, 5))
    assert _fused_ops(part) == ["_sg_onednn_conv", "_sg_onednn_conv"]
    assert "elemwise_add" not in _ops(part) and "Activation" not in _ops(part)


@pytest.mark.parametrize("enabled", ["1", "0"])
def test_strided_conv_leaving_rows_unread_fuses_on_both_kernels(enabled):
    # stride 2 without padding on 8 rows: 3 out, the last row unread (oneDNN's exact right
    # padding would be -1); with oneDNN off the fused node runs the plain kernel and the steps
    data = mx.sym.var("data")
    sym = mx.sym.Activation(_conv_bn(data, "a", stride=(2, 2)), act_type="relu")
    mx.util.setenv("MXNET_ONEDNN_ENABLED", enabled)
    try:
        part = _check_fused_equals_unfused(sym, data=(1, 3, 8, 8))
    finally:
        mx.util.setenv("MXNET_ONEDNN_ENABLED", "1")
    assert _fused_ops(part) == ["_sg_onednn_conv"]


@pytest.mark.parametrize("act", ["relu", "tanh"])
def test_fully_connected_act_fuses_under_the_old_name_too(act):
    data = mx.sym.var("data")
    sym = mx.sym.Activation(mx.sym.FullyConnected(data, num_hidden=7, name="fc"), act_type=act)
    for backend in ("ONEDNN", "MKLDNN"):
        part = _check_fused_equals_unfused(sym, backend, data=(3, 5))
        assert _fused_ops(part) == ["_sg_onednn_fully_connected"]


def test_a_conv_output_read_elsewhere_is_not_fused():
    data = mx.sym.var("data")
    conv = mx.sym.Convolution(data, kernel=(1, 1), num_filter=2, name="c")
    sym = mx.sym.Group([mx.sym.Activation(conv, act_type="relu"), conv * 2])
    part = _check_fused_equals_unfused(sym, data=(1, 2, 3, 3))
    assert _fused_ops(part) == []


def test_fused_graph_saves_and_loads_as_json():
    data = mx.sym.var("data")
    sym = mx.sym.Activation(_conv_bn(data, "a", pad=(1, 1)), act_type="relu")
    part = sym.optimize_for("ONEDNN")
    again = mx.sym.load_json(part.tojson())
    assert _ops(again) == _ops(part)
    assert again.list_auxiliary_states() == sym.list_auxiliary_states()


def test_hybridize_with_onednn_backend_matches_plain_hybridize():
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Conv2D(4, 3, padding=1), mx.gluon.nn.BatchNorm(),
            mx.gluon.nn.Activation("relu"), mx.gluon.nn.Dense(3, activation="relu"))
    net.initialize(mx.init.Xavier())
    x = mx.nd.random.uniform(shape=(2, 3, 5, 5))
    net(x)
    for p in net.collect_params().values():
        if p.name.endswith("running_var"):
            p.set_data(mx.nd.random.uniform(0.5, 1.5, shape=p.shape))
        elif p.name.endswith(("running_mean", "beta")):
            p.set_data(mx.nd.random.uniform(-0.5, 0.5, shape=p.shape))
    net.hybridize()
    expected = net(x).asnumpy()
    net.hybridize(backend="ONEDNN")
    got = net(x).asnumpy()
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
    assert _fused_ops(net._cached_graph[1]) == ["_sg_onednn_conv", "_sg_onednn_fully_connected"]


def test_residual_operand_first_keeps_the_argument_order():
    data, other = mx.sym.var("data"), mx.sym.var("other")
    shortcut = mx.sym.exp(other)
    sym = mx.sym.Activation(shortcut + _conv_bn(data, "a", pad=(1, 1)), act_type="relu")
    part = _check_fused_equals_unfused(sym, data=(1, 3, 4, 4), other=(1, 4, 4, 4))
    fused = [n for n in json.loads(part.tojson())["nodes"] if n["op"] == "_sg_onednn_conv"]
    assert len(fused) == 1 and fused[0]["attrs"]["sum_first"] == "True"


def test_env_backend_skips_inference_only_fusion_when_gradients_are_wanted():
    data = mx.sym.var("data")
    sym = mx.sym.Activation(mx.sym.FullyConnected(data, num_hidden=3, name="fc"), act_type="relu")
    x = mx.nd.array([[0.5, -1.0], [2.0, 0.25]])
    grads = {}
    for backend in (None, "ONEDNN"):
        with environment("MXNET_SUBGRAPH_BACKEND", backend):
            exe = sym.simple_bind(mx.cpu(), data=x.shape)
            for name, arr in exe.arg_dict.items():
                arr[:] = x if name == "data" else 0.3
            exe.forward(is_train=True)
            exe.backward(mx.nd.ones(exe.outputs[0].shape))
            grads[backend] = exe.grad_dict["fc_weight"].asnumpy()
    np.testing.assert_allclose(grads["ONEDNN"], grads[None])


def test_cached_op_symbol_from_subgraph_json_runs_forward_and_backward():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    inner = mx.sym.BatchNorm(a * b, fix_gamma=False, name="bn")
    names = inner.list_inputs()
    outer = mx.sym._internal._CachedOp(*[mx.sym.var(n) for n in names], subgraph=inner.tojson())
    assert outer.list_arguments() == inner.list_arguments()
    assert outer.list_auxiliary_states() == inner.list_auxiliary_states()
    shapes = {"a": (4, 3), "b": (4, 3), "bn_gamma": (3,), "bn_beta": (3,),
              "bn_moving_mean": (3,), "bn_moving_var": (3,)}
    rng = np.random.RandomState(1)
    arrays = {n: mx.nd.array(rng.uniform(0.5, 1.5, s)) for n, s in shapes.items()}
    results = []
    for sym in (inner, outer):
        args = {n: arrays[n] for n in sym.list_arguments()}
        grads = {n: mx.nd.zeros(shapes[n]) for n in sym.list_arguments()}
        aux = {n: arrays[n].copy() for n in sym.list_auxiliary_states()}
        exe = sym.bind(mx.cpu(), args=args, args_grad=grads, aux_states=aux)
        exe.forward(is_train=True)
        exe.backward([mx.nd.ones((4, 3))])
        results.append([exe.outputs[0].asnumpy()] + [grads[n].asnumpy() for n in sorted(grads)])
    for x, y in zip(*results):
        np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-6)


# Graphs partitioned and saved by MXNet 1.9.1 (fixtures/subgraph_*_mxnet191-symbol.json):
# the _branchy-like graph below with the 'default' backend and op names exp, sin,
# BatchNorm; and _mxnet191_fused_graph() with optimize_for('MKLDNN').
FIXTURES = __import__("os").path.join(__import__("os").path.dirname(__file__), "fixtures")


def _mxnet191_fused_graph():
    data = mx.sym.var("data")
    conv = mx.sym.Convolution(data, kernel=(3, 3), pad=(1, 1), num_filter=8, name="c1")
    bn = mx.sym.BatchNorm(conv, name="bn1", fix_gamma=False)
    out = mx.sym.Activation(bn + data, act_type="relu")
    return mx.sym.Activation(mx.sym.FullyConnected(out, num_hidden=4, name="fc"), act_type="relu")


@pytest.mark.parametrize("fixture,expected_ops", [
    ("subgraph_default_mxnet191-symbol.json", ["_CachedOp", "cos", "elemwise_add", "_CachedOp"]),
    ("subgraph_mkldnn_mxnet191-symbol.json", ["_sg_onednn_conv", "_sg_onednn_fully_connected"]),
])
def test_graphs_partitioned_by_mxnet191_load_and_match_the_unpartitioned(fixture, expected_ops):
    part = mx.sym.load(__import__("os").path.join(FIXTURES, fixture))
    assert [op for op in _ops(part) if op != "null"] == expected_ops
    if "default" in fixture:
        data = mx.sym.var("data")
        e = mx.sym.exp(data)
        sym, shape = mx.sym.BatchNorm(mx.sym.sin(e) + mx.sym.cos(e), name="bn"), (2, 3, 4, 4)
    else:
        sym, shape = _mxnet191_fused_graph(), (2, 8, 5, 5)
    assert part.list_arguments() == sym.list_arguments()
    assert part.list_auxiliary_states() == sym.list_auxiliary_states()
    inputs = _inputs(sym, data=shape)
    for a, b in zip(_run(sym, inputs), _run(part, inputs)):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_mxnet191_switches_turn_single_fusions_off():
    data = mx.sym.var("data")
    sym = mx.sym.Activation(_conv_bn(data, "a", pad=(1, 1)), act_type="relu")
    script = ("import mxnet as mx, json; sym = mx.sym.load_json(%r); "
              "print([n['op'] for n in json.loads(sym.optimize_for('ONEDNN').tojson())['nodes'] "
              "if n['op'] != 'null'])" % sym.tojson())
    import os
    import subprocess
    import sys
    env = dict(os.environ, MXNET_DISABLE_MKLDNN_FUSE_CONV_BN="1", MXNET_SUBGRAPH_VERBOSE="0")
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                         check=True).stdout.strip().splitlines()[-1]
    # the BatchNorm stays, so nothing follows the convolution in a chain the backend takes
    assert out == "['Convolution', 'BatchNorm', 'Activation']"


def test_fused_conv_bn_follows_changes_of_weights_and_statistics():
    # The fused node folds the BatchNorm into the weights once and keeps them while neither
    # the weights nor the BatchNorm values change; every change must show in the output.
    from mxnet.gluon import nn
    net = nn.HybridSequential()
    net.add(nn.Conv2D(16, 3, padding=1, use_bias=False, in_channels=8),
            nn.BatchNorm(in_channels=16), nn.Activation("relu"))
    net.initialize(mx.init.Xavier())
    ref = nn.HybridSequential()
    ref.add(nn.Conv2D(16, 3, padding=1, use_bias=False, in_channels=8),
            nn.BatchNorm(in_channels=16), nn.Activation("relu"))
    ref.initialize()
    x = mx.nd.random.uniform(-1, 1, shape=(2, 8, 10, 10))
    net.hybridize(static_alloc=True, static_shape=True, backend="ONEDNN")

    def check():
        for p, q in zip(net.collect_params().values(), ref.collect_params().values()):
            q.set_data(p.data())
        np.testing.assert_allclose(net(x).asnumpy(), ref(x).asnumpy(), rtol=1e-4, atol=1e-5)

    check()
    check()
    params = list(net.collect_params().values())
    conv_w = params[0]
    conv_w.data()[:] = conv_w.data() * 0.5  # written in place
    check()
    for p in params[1:]:  # gamma, beta, running_mean, running_var
        p.set_data(mx.nd.random.uniform(0.5, 1.5, shape=p.shape))
        check()
