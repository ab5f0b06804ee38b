"""autograd.get_symbol and Symbol export: MXNet 1.9's -symbol.json layout, names, listings."""
import json
import os
import subprocess

import pytest

import mxnet as mx

MXNET191_PYTHON = "/root/mxnet191-venv/bin/python"


def _recorded_graph():
    """exp(a) * b + 2 summed over axis 0, from two marked variables."""
    a = mx.nd.array([1.0, 2.0, 3.0])
    b = mx.nd.array([4.0, 5.0, 6.0])
    a.attach_grad()
    b.attach_grad()
    with mx.autograd.record():
        y = mx.nd.sum(mx.nd.exp(a) * b + 2, axis=0)
    return mx.autograd.get_symbol(y)


def _split_graph():
    """split(exp(a) * k, 2)[1] with k a constant (not marked) array."""
    a = mx.nd.ones((4, 2))
    a.attach_grad()
    k = mx.nd.ones((4, 2))
    with mx.autograd.record():
        parts = mx.nd.split(mx.nd.exp(a) * k, num_outputs=2, axis=0)
    return mx.autograd.get_symbol(parts[1])


def test_get_symbol_returns_symbol_named_after_output_node():
    sym = _recorded_graph()
    assert isinstance(sym, mx.sym.Symbol)
    assert sym.name == "node_3"
    assert repr(sym) == "<Symbol node_3>"
    assert len(sym) == 1


def test_recorded_variables_and_ops_get_mxnet_autograd_names():
    doc = json.loads(_recorded_graph().tojson())
    assert [(n["op"], n["name"]) for n in doc["nodes"]] == [
        ("null", "var0"), ("exp", "node_0"), ("null", "var1"), ("broadcast_mul", "node_1"),
        ("_plus_scalar", "node_2"), ("sum", "node_3")]


def test_json_nodes_arg_nodes_heads_and_row_ptr_are_consistent():
    doc = json.loads(_split_graph().tojson())
    nodes = doc["nodes"]
    assert set(doc) == {"nodes", "arg_nodes", "node_row_ptr", "heads", "attrs"}
    assert doc["attrs"] == {"mxnet_version": ["int", 10901]}
    assert doc["arg_nodes"] == [i for i, n in enumerate(nodes) if n["op"] == "null"]
    for i, n in enumerate(nodes):
        for entry in n["inputs"]:
            assert len(entry) == 3 and entry[0] < i  # topological: inputs come first
    outputs = [2 if n["op"] == "SliceChannel" else 1 for n in nodes]
    row_ptr = doc["node_row_ptr"]
    assert row_ptr[0] == 0 and len(row_ptr) == len(nodes) + 1
    assert [row_ptr[i + 1] - row_ptr[i] for i in range(len(nodes))] == outputs
    assert doc["heads"] == [[len(nodes) - 1, 1, 0]]


def test_attrs_written_only_when_the_node_has_kwargs():
    nodes = json.loads(_split_graph().tojson())["nodes"]
    by_op = {n["op"]: n for n in nodes}
    assert "attrs" not in by_op["exp"]
    assert "attrs" not in by_op["null"]
    assert by_op["SliceChannel"]["attrs"] == {"axis": "0", "num_outputs": "2"}


def test_constant_inputs_are_arguments_named_null():
    sym = _split_graph()
    assert sym.list_arguments() == ["var0", "null1"]
    assert sym.list_auxiliary_states() == []


def test_list_outputs_names_the_selected_output_of_a_multi_output_node():
    sym = _split_graph()
    assert sym.list_outputs() == ["node_2_output1"]
    assert _recorded_graph().list_outputs() == ["node_3_output"]
    assert sym.list_attr() == {"axis": "0", "num_outputs": "2"}
    assert sym.attr("axis") == "0"


def test_marked_variable_alone_is_a_one_node_graph():
    a = mx.nd.ones((2,))
    a.attach_grad()
    sym = mx.autograd.get_symbol(a)
    assert sym.name == "var0"
    assert sym.list_outputs() == ["var0"]
    assert json.loads(sym.tojson())["heads"] == [[0, 0, 0]]


def test_tojson_matches_mxnet_byte_layout():
    a = mx.nd.ones((4, 2))
    a.attach_grad()
    with mx.autograd.record():
        y = mx.nd.split(mx.nd.exp(a), num_outputs=2, axis=0)
    expected = (
        '{\n  "nodes": [\n    {\n      "op": "null", \n      "name": "var0", \n'
        '      "inputs": []\n    }, \n    {\n      "op": "exp", \n      "name": "node_0", \n'
        '      "inputs": [[0, 0, 0]]\n    }, \n    {\n      "op": "SliceChannel", \n'
        '      "name": "node_1", \n      "attrs": {\n        "axis": "0", \n'
        '        "num_outputs": "2"\n      }, \n      "inputs": [[1, 0, 0]]\n    }\n  ], \n'
        '  "arg_nodes": [0], \n  "node_row_ptr": [0, 1, 2, 4], \n  "heads": [[2, 0, 0]], \n'
        '  "attrs": {"mxnet_version": ["int", 10901]}\n}')
    assert mx.autograd.get_symbol(y[0]).tojson() == expected


def test_save_writes_tojson(tmp_path):
    sym = _recorded_graph()
    fname = str(tmp_path / "net-symbol.json")
    sym.save(fname)
    with open(fname) as f:
        assert f.read() == sym.tojson()


def test_get_symbol_of_unrecorded_array_raises():
    with pytest.raises(mx.MXNetError, match="not part of a computation graph"):
        mx.autograd.get_symbol(mx.nd.ones((2,)))


@pytest.mark.skipif(not os.path.exists(MXNET191_PYTHON), reason="MXNet 1.9.1 is not installed")
@pytest.mark.parametrize("make", [_recorded_graph, _split_graph])
def test_mxnet191_loads_exported_json(make, tmp_path):
    sym = make()
    fname = str(tmp_path / "net-symbol.json")
    sym.save(fname)
    script = ("import json, sys, mxnet as mx\n"
              "s = mx.sym.load(sys.argv[1])\n"
              "text = open(sys.argv[1]).read()\n"
              "print(json.dumps([s.list_arguments(), s.list_outputs(), s.tojson() == text]))\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MXNET_LIBRARY_PATH")}
    out = subprocess.run([MXNET191_PYTHON, "-c", script, fname], capture_output=True, text=True,
                         timeout=300, check=True, env=env).stdout
    args, outs, same_text = json.loads(out.strip().splitlines()[-1])
    assert args == sym.list_arguments()
    assert outs == sym.list_outputs()
    assert same_text  # MXNet 1.9.1 writes the loaded graph back byte for byte
