"""mx.sym against MXNet 1.9.1: the same snippets build the same -symbol.json byte for byte,
the same names, attributes and debug text; 1.9.1's files (old layouts included) load here.
Fixtures: tools/make_symbol_fixtures.py run under MXNet 1.9.1."""
import json
import os

import pytest

import mxnet as mx

_FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "symbol_mxnet191.json")
with open(_FIXTURE) as _f:
    REF = json.load(_f)

CASES = sorted(REF["cases"])
LEGACY = sorted(REF["legacy"])


def build(code):
    scope = {"mx": mx}
    with mx.name.NameManager():
        exec(code, scope)  # pylint: disable=exec-used
    return scope["out"]


@pytest.fixture(params=CASES)
def case(request):
    ref = REF["cases"][request.param]
    return build(ref["code"]), ref


# MXNet 1.9.1's pip build (oneDNN) gives max Pooling a hidden workspace output, so its
# node_row_ptr counts one more output per max-pooling node; the control-flow ops here keep
# what backward reads as hidden outputs. Nothing reads node_row_ptr back.
ROW_PTR_DIFFERS = {"conv_bn_pool", "control_flow"}


def _without_row_ptr(text):
    graph = json.loads(text)
    graph.pop("node_row_ptr")
    return graph


def test_tojson_is_byte_identical_to_mxnet191(case):
    sym, ref = case
    if ref["code"] in [REF["cases"][n]["code"] for n in ROW_PTR_DIFFERS]:
        assert _without_row_ptr(sym.tojson()) == _without_row_ptr(ref["json"])
    else:
        assert sym.tojson() == ref["json"]


def test_names_match_mxnet191(case):
    sym, ref = case
    assert sym.list_arguments() == ref["arguments"]
    assert sym.list_outputs() == ref["outputs"]
    assert sym.list_auxiliary_states() == ref["aux"]
    assert sym.list_inputs() == ref["inputs"]
    assert sym.name == ref["name"]
    assert len(sym) == ref["num_outputs"]
    assert repr(sym) == ref["repr"]


def test_internals_and_children_match_mxnet191(case):
    sym, ref = case
    assert sym.get_internals().list_outputs() == ref["internals"]
    children = sym.get_children()
    assert (None if children is None else children.list_outputs()) == ref["children"]


def test_attributes_match_mxnet191(case):
    sym, ref = case
    assert sym.attr_dict() == ref["attr_dict"]
    assert sym.list_attr() == ref["list_attr"]


def test_debug_str_matches_mxnet191(case):
    sym, ref = case
    assert sym.debug_str() == ref["debug_str"]


@pytest.mark.parametrize("name", CASES)
def test_mxnet191_json_loads_and_saves_unchanged(name):
    ref = REF["cases"][name]
    sym = mx.sym.load_json(ref["json"])
    if name in ROW_PTR_DIFFERS:
        assert _without_row_ptr(sym.tojson()) == _without_row_ptr(ref["json"])
    else:
        assert sym.tojson() == ref["json"]
    assert sym.list_arguments() == ref["arguments"]
    assert sym.list_auxiliary_states() == ref["aux"]
    assert sym.list_outputs() == ref["outputs"]


@pytest.mark.parametrize("name", LEGACY)
def test_legacy_json_upgrades_as_mxnet191(name):
    ref = REF["legacy"][name]
    sym = mx.sym.load_json(ref["legacy_json"])
    assert sym.list_arguments() == ref["arguments"]
    assert sym.list_auxiliary_states() == ref["aux"]
    assert sym.list_outputs() == ref["outputs"]
    assert sym.attr_dict() == ref["attr_dict"]
    assert _without_row_ptr(sym.tojson()) == _without_row_ptr(ref["json"])  # conv_bn_pool


def _summary(sym, shape=None):
    import contextlib
    import io
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        mx.viz.print_summary(sym, shape)
    return buf.getvalue()


def test_print_summary_matches_mxnet191(case):
    sym, ref = case
    assert _summary(sym) == ref["summary"]


@pytest.mark.skipif(not hasattr(mx.sym.Symbol, "infer_shape"), reason="needs infer_shape")
def test_print_summary_with_shapes_matches_mxnet191():
    ref = REF["cases"]["mlp"]["summary_with_shape"]
    shape = {k: tuple(v) for k, v in ref["shape"].items()}
    assert _summary(build(REF["cases"]["mlp"]["code"]), shape) == ref["text"]


def test_resnet18_exported_by_mxnet191_loads_and_saves_back():
    path = os.path.join(os.path.dirname(__file__), "fixtures",
                        "symbol_resnet18_v1_mxnet191-symbol.json")
    with open(path) as f:
        text = f.read()
    sym = mx.sym.load(path)
    # max pooling: see ROW_PTR_DIFFERS
    assert _without_row_ptr(sym.tojson()) == _without_row_ptr(text)
    # the counts MXNet 1.9.1 lists for this file
    assert len(sym.list_arguments()) == 63
    assert len(sym.list_auxiliary_states()) == 40
    assert len(sym.get_internals()) == 171
    _, out_shapes, aux_shapes = sym.infer_shape(data=(2, 3, 224, 224))
    assert out_shapes == [(2, 1000)]
    assert all(len(s) == 1 for s in aux_shapes)
