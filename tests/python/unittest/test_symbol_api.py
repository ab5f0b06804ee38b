"""mx.sym behaviour beyond the 1.9.1 fixtures: composition rules, copies, pickling, files,
attribute scopes, naming, and the errors bad input raises."""
import copy
import json
import pickle

import pytest

import mxnet as mx
from mxnet.base import MXNetError, NotImplementedForSymbol


def mlp():
    data = mx.sym.var("data")
    fc1 = mx.sym.FullyConnected(data, num_hidden=8, name="fc1")
    bn = mx.sym.BatchNorm(fc1, name="bn")
    return mx.sym.FullyConnected(mx.sym.Activation(bn, act_type="relu", name="act"),
                                 num_hidden=2, name="fc2")


def test_missing_inputs_become_variables_named_after_the_node():
    net = mlp()
    assert net.list_arguments() == ["data", "fc1_weight", "fc1_bias", "bn_gamma", "bn_beta",
                                    "fc2_weight", "fc2_bias"]
    assert net.list_auxiliary_states() == ["bn_moving_mean", "bn_moving_var"]
    assert net.list_inputs()[:3] == ["data", "fc1_weight", "fc1_bias"]


def test_positional_and_keyword_inputs_are_the_same_graph():
    x, w = mx.sym.var("x"), mx.sym.var("w")
    a = mx.sym.FullyConnected(x, w, num_hidden=3, no_bias=True, name="f")
    b = mx.sym.FullyConnected(data=x, weight=w, num_hidden=3, no_bias=True, name="f")
    assert a.tojson() == b.tojson()
    assert a.list_arguments() == ["x", "w"]


def test_call_composes_a_copy_and_leaves_the_original():
    net2 = mx.sym.FullyConnected(name="fc3", num_hidden=10)
    data = mx.sym.var("data")
    composed = net2(fc3_data=data, name="composed")
    assert composed.name == "composed"
    # net2 already has variables (made when it was created): only fc3_data is replaced
    assert composed.list_arguments() == ["data", "fc3_weight", "fc3_bias"]
    assert net2.name == "fc3"
    assert net2.list_arguments() == ["fc3_data", "fc3_weight", "fc3_bias"]


def test_general_compose_replaces_variables_by_name():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    g = a * b
    out = g(a=mx.sym.var("x"), b=mx.sym.var("y"))
    assert out.list_arguments() == ["x", "y"]
    with pytest.raises(MXNetError, match="nope"):
        g(nope=mx.sym.var("z"))


def test_compose_rejects_unknown_input_name_naming_it():
    with pytest.raises(MXNetError, match="weightx"):
        mx.sym.FullyConnected(data=mx.sym.var("d"), weightx=mx.sym.var("w"), num_hidden=2)


def test_bad_kwarg_names_operator_and_argument():
    with pytest.raises(MXNetError, match="num_hidden"):
        mx.sym.FullyConnected(mx.sym.var("d"), num_hidden="lots")
    with pytest.raises(MXNetError, match="deprecated"):
        mx.sym.FullyConnected(mx.sym.var("d"), num_hidden=2, weight_lr_mult=0.1)


def test_group_indexing_slicing_and_iteration():
    a, b, c = mx.sym.var("a"), mx.sym.var("b"), mx.sym.var("c")
    g = mx.sym.Group([a, b, c])
    assert len(g) == 3 and g.name is None
    assert [s.name for s in g] == ["a", "b", "c"]
    assert g[1].name == "b" and g["c"].name == "c"
    assert g[0:3:2].list_outputs() == ["a", "c"]
    with pytest.raises(IndexError):
        g[3]  # pylint: disable=pointless-statement
    with pytest.raises(ValueError, match="Cannot find output"):
        g["zz"]  # pylint: disable=pointless-statement
    assert repr(g) == "<Symbol group [a, b, c]>"
    with pytest.raises(TypeError):
        mx.sym.Group([a, 1])
    with pytest.raises(TypeError):
        mx.sym.Group([])


def test_split_outputs_by_index_and_name():
    s = mx.sym.split(mx.sym.var("x"), num_outputs=3, axis=1, name="sp")
    assert len(s) == 3
    assert s.list_outputs() == ["sp_output0", "sp_output1", "sp_output2"]
    assert s["sp_output1"].list_outputs() == ["sp_output1"]


def test_get_children_and_internals():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    c = a + b
    assert c.get_children().list_outputs() == ["a", "b"]
    assert a.get_children() is None
    assert mlp().get_internals()["fc1_output"].list_outputs() == ["fc1_output"]


def test_deepcopy_has_its_own_nodes():
    net = mlp()
    dup = copy.deepcopy(net)
    dup._set_attr(name="renamed")
    assert net.name == "fc2" and dup.name == "renamed"
    assert dup.tojson() != net.tojson()


def test_pickle_round_trip_keeps_the_graph():
    net = mlp()
    back = pickle.loads(pickle.dumps(net))
    assert back.tojson() == net.tojson()


def test_save_and_load_file(tmp_path):
    net = mlp()
    path = str(tmp_path / "net-symbol.json")
    net.save(path)
    assert mx.sym.load(path).tojson() == net.tojson()
    with pytest.raises(TypeError):
        net.save(123)


def test_variable_attrs_and_hidden_keys():
    v = mx.sym.var("v", shape=(2, 3), dtype="float64", lr_mult=2, wd_mult=0, init="zeros",
                   stype="row_sparse", __extra__=5)
    assert v.attr("__shape__") == "(2, 3)"
    assert v.attr("__dtype__") == "1"
    assert v.attr("lr_mult") == "2" and v.attr("__lr_mult__") == "2"
    assert v.attr("__storage_type__") == "1"
    assert v.attr("__extra__") == "5"
    assert v.list_attr()["wd_mult"] == "0"
    with pytest.raises(ValueError, match="double underscores"):
        mx.sym.var("w", extra=1)
    with pytest.raises(ValueError, match="string"):
        v._set_attr(foo=1)


def test_attr_scope_and_prefix_naming():
    with mx.AttrScope(ctx_group="stage1"):
        with mx.name.Prefix("net_"):
            x = mx.sym.var("x")
            y = mx.sym.FullyConnected(x, num_hidden=2)
    assert y.name == "net_fullyconnected0"
    assert y.attr("ctx_group") == "stage1"
    assert y.attr_dict()["net_fullyconnected0_weight"]["__ctx_group__"] == "stage1"
    assert x.name == "x"  # variables keep the name given


def test_inplace_arithmetic_and_bool_are_not_for_symbols():
    a = mx.sym.var("a")
    with pytest.raises(NotImplementedForSymbol):
        a += 1
    with pytest.raises(NotImplementedForSymbol):
        bool(a)
    with pytest.raises(TypeError):
        a + "x"  # pylint: disable=pointless-statement


def test_scalar_arithmetic_kwargs_as_mxnet_writes_them():
    a = mx.sym.var("a")
    nodes = json.loads((2 ** a).tojson())["nodes"]
    assert nodes[-1]["op"] == "_rpower_scalar" and nodes[-1]["attrs"] == {"scalar": "2"}
    assert json.loads((-a).tojson())["nodes"][-1]["attrs"] == {"scalar": "-1.0"}


def test_load_json_errors_name_the_node():
    bad_op = {"nodes": [{"op": "null", "name": "x", "inputs": []},
                        {"op": "NoSuchOp", "name": "mystery", "inputs": [[0, 0, 0]]}],
              "arg_nodes": [0], "heads": [[1, 0, 0]]}
    with pytest.raises(MXNetError, match="mystery.*NoSuchOp|NoSuchOp.*mystery"):
        mx.sym.load_json(json.dumps(bad_op))
    with pytest.raises(MXNetError, match="malformed"):
        mx.sym.load_json('{"nodes": [')
    dangling = {"nodes": [{"op": "null", "name": "x", "inputs": []},
                          {"op": "relu", "name": "r", "inputs": [[5, 0, 0]]}],
                "arg_nodes": [0], "heads": [[1, 0, 0]]}
    with pytest.raises(MXNetError, match="node r"):
        mx.sym.load_json(json.dumps(dangling))
    bad_attr = {"nodes": [{"op": "null", "name": "x", "inputs": []},
                          {"op": "FullyConnected", "name": "fc", "attrs": {"num_hidden": "x"},
                           "inputs": [[0, 0, 0]]}],
                "arg_nodes": [0], "heads": [[1, 0, 0]]}
    with pytest.raises(MXNetError, match="fc"):
        mx.sym.load_json(json.dumps(bad_attr))


def test_json_without_node_row_ptr_and_with_two_number_entries_loads():
    text = json.dumps({"nodes": [{"op": "null", "name": "x", "inputs": []},
                                 {"op": "relu", "name": "r", "inputs": [[0, 0]]}],
                       "arg_nodes": [0], "heads": [[1, 0]],
                       "attrs": {"mxnet_version": ["int", 10901]}})
    sym = mx.sym.load_json(text)
    assert sym.list_outputs() == ["r_output"]
    assert '"node_row_ptr": [0, 1, 2]' in sym.tojson()


def test_generated_functions_carry_docs_and_signatures():
    import inspect
    assert "num_hidden" in mx.sym.FullyConnected.__doc__
    params = inspect.signature(mx.sym.FullyConnected).parameters
    assert list(params)[:3] == ["data", "weight", "bias"]
    assert mx.sym.linalg.gemm2.__name__ == "gemm2"
    assert hasattr(mx.sym.contrib, "AdaptiveAvgPooling2D")
    assert hasattr(mx.sym.random, "uniform")


def test_infer_shape_and_type_through_symbol_methods():
    net = mlp()
    arg, out, aux = net.infer_shape(data=(4, 5))
    shapes = dict(zip(net.list_arguments(), arg))
    assert shapes["fc1_weight"] == (8, 5) and shapes["fc2_weight"] == (2, 8)
    assert out == [(4, 2)] and aux == [(8,), (8,)]
    arg_t, out_t, _ = net.infer_type(data="float32")
    assert out_t[0] is not None and arg_t[0].__name__ == "float32"


def test_identity_with_attr_like_rhs_gives_backward_shape_hint():
    w = mx.sym.var("weight")
    wt = mx.sym.broadcast_add(w, mx.sym.var("wshift", shape=(1,)))
    wt = mx.sym._internal._identity_with_attr_like_rhs(wt, w)
    net = mx.sym.FullyConnected(data=mx.sym.var("data"), weight=wt, num_hidden=11, no_bias=True)
    arg, _, _ = net.infer_shape(data=(7, 100))
    assert dict(zip(net.list_arguments(), arg))["weight"] == (11, 100)


def test_eval_runs_the_graph():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    out = (a * 2 + b).eval(ctx=mx.cpu(), a=mx.nd.ones((2, 2)), b=mx.nd.ones((2, 2)))
    assert (out[0].asnumpy() == 3).all()
    with pytest.raises(MXNetError, match="not implemented"):
        a.gradient(["a"])


def test_var_shape_given_as_an_int_is_one_dimensional():
    # MXNet 1.9.1 writes shape=1 as the attribute "1" and reads it back as (1,)
    b = mx.sym.var('b', shape=1)
    assert b.attr('__shape__') == '1'
    out = mx.sym.broadcast_add(mx.sym.var('x'), b)
    arg_shapes, out_shapes, _ = out.infer_shape(x=(2, 3))
    assert arg_shapes == [(2, 3), (1,)] and out_shapes == [(2, 3)]
