"""Write tests/python/unittest/fixtures/symbol_mxnet191.json with MXNet 1.9.1.

Run with MXNet 1.9.1's interpreter: /root/mxnet191-venv/bin/python tools/make_symbol_fixtures.py
Each case is a snippet that builds a symbol `out` from `mx`; the fixture keeps the snippet and
what MXNet 1.9.1 says about the symbol (tojson, names, attributes), so the test can build the
same snippet with this package and compare. Legacy cases keep a JSON in an older layout
(written here from a 1.9.1 graph the way MXNet 0.8-0.11 laid files out) and what 1.9.1 makes
of it after loading.
"""
import contextlib
import io
import json
import os
import sys

import mxnet as mx

CASES = {
    "mlp": """
data = mx.sym.Variable('data')
fc1 = mx.sym.FullyConnected(data=data, num_hidden=128, name='fc1')
act = mx.sym.Activation(fc1, act_type='relu', name='relu1')
fc2 = mx.sym.FullyConnected(act, num_hidden=10, name='fc2')
out = mx.sym.SoftmaxOutput(fc2, name='softmax')
""",
    "conv_bn_pool": """
data = mx.sym.var('data')
c = mx.sym.Convolution(data, kernel=(3, 3), num_filter=8, pad=(1, 1), stride=(1, 1), name='conv0')
b = mx.sym.BatchNorm(c, fix_gamma=False, eps=1e-5, momentum=0.9, name='bn0')
r = mx.sym.LeakyReLU(b, act_type='prelu', name='prelu0')
p = mx.sym.Pooling(r, kernel=(2, 2), stride=(2, 2), pool_type='max', name='pool0')
f = mx.sym.Flatten(p)
d = mx.sym.Dropout(f, p=0.5)
out = mx.sym.FullyConnected(d, num_hidden=4, no_bias=True)
""",
    "auto_names": """
x = mx.sym.var('x')
y = mx.sym.FullyConnected(x, num_hidden=3)
y = mx.sym.Activation(y, act_type='tanh')
y = mx.sym.FullyConnected(y, num_hidden=2)
out = mx.sym.Group([y, mx.sym.BatchNorm(y)])
""",
    "arith_scalar": """
a = mx.sym.var('a')
b = mx.sym.var('b')
out = mx.sym.Group([a + b, a - b, a * b, a / b, a % b, a ** b, a + 1, 1 + a, a - 2.5, 3 - a,
                    a * 4, 0.5 * a, a / 2, 2 / a, a % 3, 3 % a, a ** 2, 2 ** a, -a, abs(a),
                    a == b, a != b, a > b, a >= b, a < b, a <= b, a == 1, a != 1, a > 1,
                    a >= 1, a < 1, a <= 1, mx.sym.maximum(a, b), mx.sym.minimum(a, 2),
                    mx.sym.maximum(3, a), mx.sym.hypot(a, b), mx.sym.pow(a, 3),
                    mx.sym.power(2, a)])
""",
    "variable_attrs": """
w = mx.sym.Variable('w', shape=(3, 4), dtype='float16', lr_mult=0.5, wd_mult=2,
                    init=mx.init.Xavier(magnitude=2.0), __myattr__='yes')
s = mx.sym.var('s', stype='csr', init='zeros', attr={'mood': 'fine'})
with mx.AttrScope(ctx_group='dev1', group='g'):
    v = mx.sym.var('v', lr_mult=3)
with mx.AttrScope(ctx_group='dev1'):
    fc = mx.sym.FullyConnected(v, num_hidden=2, name='fc', attr={'__mood__': 'so so'})
out = mx.sym.Group([w, s, fc])
""",
    "prefix_and_scopes": """
with mx.name.Prefix('net_'):
    x = mx.sym.var('x')
    y = mx.sym.FullyConnected(x, num_hidden=2)
    z = mx.sym.Activation(y, act_type='sigmoid')
with mx.name.NameManager():
    q = mx.sym.exp(z)
    q = mx.sym.exp(q)
out = q
""",
    "variadic": """
a = mx.sym.var('a')
b = mx.sym.var('b')
c = mx.sym.var('c')
out = mx.sym.Group([mx.sym.Concat(a, b, c, dim=1), mx.sym.add_n(a, b), mx.sym.ElementWiseSum(a, b, c, name='esum'),
                    mx.sym.stack(a, b, axis=0)])
""",
    "split_and_index": """
x = mx.sym.var('x')
s = mx.sym.split(x, num_outputs=3, axis=1, name='sp')
out = mx.sym.Group([s[0], s[2], s['sp_output1'], mx.sym.SliceChannel(x, num_outputs=2)[1]])
""",
    "compose": """
data = mx.sym.Variable('data')
net1 = mx.sym.FullyConnected(data=data, name='fc1', num_hidden=10)
net2 = mx.sym.FullyConnected(name='fc3', num_hidden=10)
out = net2(fc3_data=net1, name='composed')
""",
    "compose_general": """
a = mx.sym.var('a')
b = mx.sym.var('b')
g = mx.sym.exp(a) + b
x = mx.sym.var('x')
out = g(a=mx.sym.sqrt(x, name='sq'), b=x)
""",
    "init_ops": """
out = mx.sym.Group([mx.sym.zeros((2, 3)), mx.sym.ones(shape=(4,), dtype='int32'), mx.sym.full((2, 2), 7),
                    mx.sym.arange(0, 10, 2), mx.sym.eye(3), mx.sym.zeros_like(mx.sym.var('z'))])
""",
    "fluent": """
x = mx.sym.var('x')
out = mx.sym.Group([x.reshape((2, -1)), x.sum(axis=1, keepdims=True), x.transpose(), x.expand_dims(axis=1),
                    x.astype('float16'), x.clip(0, 1), x.flatten(), x.exp(), x.softmax(axis=-1),
                    x.slice_axis(axis=0, begin=0, end=1), x.mean()])
""",
    "submodules": """
a = mx.sym.var('a')
b = mx.sym.var('b')
out = mx.sym.Group([mx.sym.random.uniform(low=0, high=1, shape=(2, 3)), mx.sym.random.normal(shape=(2,)),
                    mx.sym.linalg.gemm2(a, b, transpose_b=True), mx.sym.linalg.potrf(a),
                    mx.sym.contrib.AdaptiveAvgPooling2D(a, output_size=1), mx.sym.random_uniform(shape=(1,)),
                    mx.sym.sample_uniform(a, b)])
""",
    "embedding_softmax": """
d = mx.sym.var('d')
e = mx.sym.Embedding(d, input_dim=10, output_dim=4, name='emb')
l = mx.sym.LinearRegressionOutput(mx.sym.sum(e, axis=1), name='lro')
out = mx.sym.Group([l, mx.sym.make_loss(mx.sym.mean(e)), mx.sym.BlockGrad(e)])
""",
    "control_flow": """
mx.attribute.AttrScope._subgraph_names.clear()
x = mx.sym.var('x')
h = mx.sym.var('h')
outs, states = mx.sym.contrib.foreach(
    lambda d, s: (mx.sym.tanh(d * mx.sym.var('w') + s[0]) * 2, [d + s[0]]), x, [h])
loop_out, (fi, fs) = mx.sym.contrib.while_loop(
    lambda i, s: i <= 5, lambda i, s: (i * 10, (i + 1, s + i)), (h, x), max_iterations=4)
picked = mx.sym.contrib.cond(h < 3, lambda: h * 2, lambda: x * 3)
out = mx.sym.Group([outs, states[0], loop_out, fi, fs, picked])
""",
}

LEGACY_BASE = "conv_bn_pool"


def summary(sym, shape=None):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        mx.viz.print_summary(sym, shape)
    return buf.getvalue()


def describe(sym):
    internals = sym.get_internals()
    children = sym.get_children()
    return {
        "json": sym.tojson(),
        "arguments": sym.list_arguments(),
        "outputs": sym.list_outputs(),
        "aux": sym.list_auxiliary_states(),
        "inputs": sym.list_inputs(),
        "attr_dict": sym.attr_dict(),
        "list_attr": sym.list_attr(),
        "name": sym.name,
        "num_outputs": len(sym),
        "debug_str": sym.debug_str(),
        "internals": internals.list_outputs(),
        "children": None if children is None else children.list_outputs(),
        "repr": repr(sym),
        "summary": summary(sym),
    }


def legacy_08(graph):
    """MXNet 0.8 layout: kwargs under "param", [node, index] entries, no aux variables, no
    node_row_ptr and no version stamp."""
    nodes = graph["nodes"]
    aux_ids = set()
    for n in nodes:
        if n["op"] == "BatchNorm":
            aux_ids.update(e[0] for e in n["inputs"][3:])
            n["inputs"] = n["inputs"][:3]
    keep = [i for i in range(len(nodes)) if i not in aux_ids]
    remap = {old: new for new, old in enumerate(keep)}
    out = []
    for i in keep:
        n = nodes[i]
        out.append({"op": n["op"], "param": n.get("attrs", {}) if n["op"] != "null" else {},
                    "name": n["name"], "inputs": [[remap[e[0]], e[1]] for e in n["inputs"]],
                    "backward_source_id": -1})
        if n["op"] == "null" and n.get("attrs"):
            out[-1]["attr"] = n["attrs"]
    return {"nodes": out, "arg_nodes": [remap[i] for i in graph["arg_nodes"] if i in remap],
            "heads": [[remap[h[0]], h[1]] for h in graph["heads"]]}


def legacy_attr_key(graph):
    """MXNet 0.9-0.11 layout: every node's dict under "attr", version 0.10.0 stamp, with the
    old unprefixed hidden keys (ctx_group, lr_mult, <input>_lr_mult) that FixParsing upgrades."""
    for n in graph["nodes"]:
        attrs = n.pop("attrs", None)
        if attrs is not None:
            n["attr"] = attrs
    for n in graph["nodes"]:
        if n["name"] == "conv0":
            n["attr"]["ctx_group"] = "stage1"
            n["attr"]["weight_lr_mult"] = "0.1"
    graph["attrs"] = {"mxnet_version": ["int", 1000]}
    return graph


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    out_path = os.path.join(root, "tests", "python", "unittest", "fixtures", "symbol_mxnet191.json")
    result = {"mxnet_version": mx.__version__, "cases": {}, "legacy": {}}
    for name, code in CASES.items():
        scope = {"mx": mx}
        with mx.name.NameManager():
            exec(code, scope)  # pylint: disable=exec-used
        result["cases"][name] = dict(code=code, **describe(scope["out"]))
    scope = {"mx": mx}
    with mx.name.NameManager():
        exec(CASES["mlp"], scope)  # pylint: disable=exec-used
    result["cases"]["mlp"]["summary_with_shape"] = {"shape": {"data": [2, 20]},
                                                    "text": summary(scope["out"], {"data": (2, 20)})}
    base = json.loads(result["cases"][LEGACY_BASE]["json"])
    for name, fn in (("v0.8", legacy_08), ("v0.10_attr", legacy_attr_key)):
        text = json.dumps(fn(json.loads(json.dumps(base))), indent=2)
        loaded = mx.sym.load_json(text)
        result["legacy"][name] = dict(legacy_json=text, **describe(loaded))
    with open(out_path, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
    # a real exported model: Gluon's resnet18_v1, hybridized and exported by 1.9.1
    from mxnet.gluon.model_zoo import vision
    net = vision.get_model("resnet18_v1")
    net.initialize()
    net.hybridize()
    net(mx.nd.zeros((1, 3, 224, 224)))
    prefix = os.path.join(os.path.dirname(out_path), "symbol_resnet18_v1_mxnet191")
    net.export(prefix)
    os.remove(prefix + "-0000.params")
    print("wrote", out_path, len(result["cases"]), "cases", len(result["legacy"]), "legacy")


if __name__ == "__main__":
    sys.exit(main())
