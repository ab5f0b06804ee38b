"""mx.viz: a text summary of a symbol's layers (print_summary) and a graphviz drawing of it
(plot_network), laid out as MXNet 1.9's."""
import copy
import json
import re
import warnings

from .symbol import Symbol

__all__ = ["print_summary", "plot_network"]


def _dims(text):
    """The integers of a shape-like kwarg ("(3, 3)" -> ["3", "3"])."""
    return re.findall(r"\d+", text)


def _output_shapes(symbol, shape):
    internals = symbol.get_internals()
    _, out_shapes, _ = internals.infer_shape(**shape)
    if out_shapes is None:
        raise ValueError("Input shape is incomplete")
    return dict(zip(internals.list_outputs(), out_shapes))


def _entry_key(node):
    return node["name"] + "_output" if node["op"] != "null" else node["name"]


def _layer_params(node, in_channels, shapes):
    """Number of learned parameters of one layer, as MXNet's summary counts them."""
    op, attrs = node["op"], node.get("attrs", {})
    no_bias = attrs.get("no_bias") == "True"
    if op == "Convolution":
        count = in_channels * int(attrs["num_filter"]) // int(attrs.get("num_group", "1"))
        for k in _dims(attrs["kernel"]):
            count *= int(k)
        return count if no_bias else count + int(attrs["num_filter"])
    if op == "FullyConnected":
        return (in_channels + (0 if no_bias else 1)) * int(attrs["num_hidden"])
    if op == "BatchNorm":
        return int(shapes[node["name"] + "_output"][1]) * 2 if shapes is not None else 0
    if op == "Embedding":
        return int(attrs["input_dim"]) * int(attrs["output_dim"])
    return 0


def print_summary(symbol, shape=None, line_length=120, positions=(.44, .64, .74, 1.)):
    """Print one row per layer: name(op), output shape (when shape gives the input shapes),
    parameter count and the layers feeding it; then the total parameter count."""
    if not isinstance(symbol, Symbol):
        raise TypeError("symbol must be Symbol")
    shapes = _output_shapes(symbol, shape) if shape is not None else None
    graph = json.loads(symbol.tojson())
    nodes = graph["nodes"]
    heads = set(graph["heads"][0])
    positions = list(positions)
    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]

    def row(fields):
        line = ""
        for field, end in zip(fields, positions):
            line = (line + str(field))[:end]
            line += " " * (end - len(line))
        print(line)

    print("_" * line_length)
    row(["Layer (type)", "Output Shape", "Param #", "Previous Layer"])
    print("=" * line_length)
    total = 0
    for i, node in enumerate(nodes):
        if node["op"] == "null" and i > 0:
            continue
        out_shape = []
        if shapes is not None and (node["op"] != "null" or i in heads):
            out_shape = shapes.get(_entry_key(node), [])[1:]
        previous, in_channels = [], 0
        if node["op"] != "null":
            for entry in node["inputs"]:
                src = nodes[entry[0]]
                if src["op"] == "null" and entry[0] not in heads:
                    continue
                previous.append(src["name"])
                if shapes is not None and _entry_key(src) in shapes:
                    in_channels += int(shapes[_entry_key(src)][1:][0])
        params = _layer_params(node, in_channels, shapes)
        total += params
        row([node["name"] + "(" + node["op"] + ")", "x".join(str(d) for d in out_shape), params,
             previous[0] if previous else ""])
        for name in previous[1:]:
            row(["", "", "", name])
        print(("=" if i == len(nodes) - 1 else "_") * line_length)
    print("Total params: {params}".format(params=total))
    print("_" * line_length)


_COLORS = ("#8dd3c7", "#fb8072", "#ffffb3", "#bebada", "#80b1d3", "#fdb462", "#b3de69",
           "#fccde5")
_WEIGHT_SUFFIXES = ("_weight", "_bias", "_beta", "_gamma", "_moving_var", "_moving_mean",
                    "_running_var", "_running_mean")


def _node_label_and_color(node):
    op, attrs, name = node["op"], node.get("attrs", {}), node["name"]
    if op == "Convolution":
        stride = "x".join(_dims(attrs["stride"])) if "stride" in attrs else "1"
        return ("Convolution\n%s/%s, %s" % ("x".join(_dims(attrs["kernel"])), stride,
                                            attrs["num_filter"]), _COLORS[1])
    if op == "FullyConnected":
        return "FullyConnected\n%s" % attrs["num_hidden"], _COLORS[1]
    if op == "BatchNorm":
        return name, _COLORS[3]
    if op == "Activation":
        return "Activation\n%s" % attrs["act_type"], _COLORS[2]
    if op == "LeakyReLU":
        return "LeakyReLU\n%s" % attrs.get("act_type", "Leaky"), _COLORS[2]
    if op == "Pooling":
        kernel = "x".join(_dims(attrs["kernel"])) if "kernel" in attrs else "[]"
        stride = "x".join(_dims(attrs["stride"])) if "stride" in attrs else "1"
        return "Pooling\n%s, %s/%s" % (attrs["pool_type"], kernel, stride), _COLORS[4]
    if op in ("Concat", "Flatten", "Reshape"):
        return name, _COLORS[5]
    if op == "Softmax":
        return name, _COLORS[6]
    return (attrs["op_type"] if op == "Custom" else name), _COLORS[7]


def plot_network(symbol, title="plot", save_format="pdf", shape=None, dtype=None,
                 node_attrs={}, hide_weights=True):  # pylint: disable=dangerous-default-value
    """A graphviz Digraph of the symbol: one box per op, ovals for inputs, edges labelled
    with shapes (shape=) and dtypes (dtype=); weights hidden unless hide_weights=False."""
    try:
        from graphviz import Digraph
    except ImportError:
        raise ImportError("Draw network requires graphviz library")
    if not isinstance(symbol, Symbol):
        raise TypeError("symbol must be a Symbol")
    shapes = _output_shapes(symbol, shape) if shape is not None else None
    types = None
    if dtype is not None:
        internals = symbol.get_internals()
        _, out_types, _ = internals.infer_type(**dtype)
        if out_types is None:
            raise ValueError("Input type is incomplete")
        types = dict(zip(internals.list_outputs(), out_types))
    nodes = json.loads(symbol.tojson())["nodes"]
    names = [n["name"] for n in nodes]
    if len(names) != len(set(names)):
        repeated = sorted({n for n in names if names.count(n) > 1})
        warnings.warn("There are multiple variables with the same name in your graph, this may "
                      "result in cyclic graph. Repeated names: " + ",".join(repeated),
                      RuntimeWarning)
    base_attr = {"shape": "box", "fixedsize": "true", "width": "1.3", "height": "0.8034",
                 "style": "filled"}
    base_attr.update(node_attrs)
    dot = Digraph(name=title, format=save_format)
    hidden = set()
    for node in nodes:
        attr = copy.deepcopy(base_attr)
        if node["op"] == "null":
            if node["name"].endswith(_WEIGHT_SUFFIXES):
                if hide_weights:
                    hidden.add(node["name"])
                continue
            attr["shape"] = "oval"
            label, attr["fillcolor"] = node["name"], _COLORS[0]
        else:
            label, attr["fillcolor"] = _node_label_and_color(node)
        dot.node(name=node["name"], label=label, **attr)

    def entry_key(src):
        key = _entry_key(src)
        if src["op"] != "null" and "num_outputs" in src.get("attrs", {}):
            key += str(int(src["attrs"]["num_outputs"]) - 1)
        return key

    for node in nodes:
        if node["op"] == "null":
            continue
        inputs = node["inputs"][:1] if node["op"] == "_contrib_BilinearResize2D" else node["inputs"]
        for entry in inputs:
            src = nodes[entry[0]]
            if src["name"] in hidden:
                continue
            attr = {"dir": "back", "arrowtail": "open", "label": ""}
            if shapes is not None:
                attr["label"] = "x".join(str(d) for d in shapes[entry_key(src)][1:])
            if types is not None:
                attr["label"] += "(" + types[entry_key(src)].__name__ + ")"
            dot.edge(tail_name=node["name"], head_name=src["name"], **attr)
    return dot
