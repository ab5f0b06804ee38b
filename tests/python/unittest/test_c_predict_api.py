"""C predict API (mxnet/c_predict_api.h) through ctypes: MXNet 1.9.1's exported LeNet and
ResNet-18 give its outputs; reshape, partial outputs, partial forward, threads, monitor,
NDList, dtypes; bad input; the plain-C example built and run."""
import ctypes
import os
import re
import shutil
import subprocess
import threading

import numpy as np
import pytest

import mxnet as mx
from mxnet import gluon

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures")
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
EXAMPLE = os.path.join(REPO, "example", "image-classification", "predict-c",
                       "image_classification_predict.c")

LIB = mx.base._LIB
LIB.MXGetLastError.restype = ctypes.c_char_p
u32 = ctypes.c_uint32
u32_p = ctypes.POINTER(u32)
float_p = ctypes.POINTER(ctypes.c_float)
MonitorCallback = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p)


class PredictError(Exception):
    pass


def check(ret):
    if ret != 0:
        raise PredictError(LIB.MXGetLastError().decode())


def _shape_args(shapes):
    keys, indptr, data = [], [0], []
    for k, v in shapes.items():
        keys.append(k.encode())
        data.extend(v)
        indptr.append(len(data))
    return (len(keys), (ctypes.c_char_p * max(len(keys), 1))(*keys),
            (u32 * len(indptr))(*indptr), (u32 * max(len(data), 1))(*data))


class Pred:
    """A predictor handle with the calls the tests use."""

    def __init__(self, handle):
        self.handle = handle

    @classmethod
    def create(cls, json, params, shapes, dtypes=None, outputs=None):
        n, keys, indptr, data = _shape_args(shapes)
        h = ctypes.c_void_p()
        json = json.encode() if isinstance(json, str) else json
        if outputs is not None:
            okeys = (ctypes.c_char_p * len(outputs))(*[o.encode() for o in outputs])
            check(LIB.MXPredCreatePartialOut(json, params, len(params), 1, 0, n, keys, indptr,
                                             data, len(outputs), okeys, ctypes.byref(h)))
        elif dtypes is not None:
            names = (ctypes.c_char_p * len(dtypes))(*[k.encode() for k in dtypes])
            flags = (ctypes.c_int * len(dtypes))(*dtypes.values())
            check(LIB.MXPredCreateEx(json, params, len(params), 1, 0, n, keys, indptr, data,
                                     len(dtypes), names, flags, ctypes.byref(h)))
        else:
            check(LIB.MXPredCreate(json, params, len(params), 1, 0, n, keys, indptr, data,
                                   ctypes.byref(h)))
        return cls(h)

    def __del__(self):
        if getattr(self, "handle", None):
            check(LIB.MXPredFree(self.handle))

    def set_input(self, key, value, dtype=np.float32):
        value = np.ascontiguousarray(value, dtype=dtype)
        check(LIB.MXPredSetInput(self.handle, key.encode(), value.ctypes.data_as(float_p),
                                 value.size))

    def forward(self, **inputs):
        for k, v in inputs.items():
            self.set_input(k, v)
        check(LIB.MXPredForward(self.handle))

    def output_shape(self, i=0):
        data, ndim = u32_p(), u32()
        check(LIB.MXPredGetOutputShape(self.handle, i, ctypes.byref(data), ctypes.byref(ndim)))
        return tuple(data[j] for j in range(ndim.value))

    def output_dtype(self, i=0):
        t = ctypes.c_int(-1)
        check(LIB.MXPredGetOutputType(self.handle, i, ctypes.byref(t)))
        return t.value

    def output(self, i=0):
        dtype = {0: np.float32, 1: np.float64, 2: np.float16}[self.output_dtype(i)]
        out = np.empty(self.output_shape(i), dtype=dtype)
        check(LIB.MXPredGetOutput(self.handle, i, out.ctypes.data_as(float_p), out.size))
        return out

    def reshape(self, shapes):
        n, keys, indptr, data = _shape_args(shapes)
        h = ctypes.c_void_p()
        check(LIB.MXPredReshape(n, keys, indptr, data, self.handle, ctypes.byref(h)))
        return Pred(h)


def model(name):
    prefix = os.path.join(FIXTURES, "hybrid191_" + name)
    with open(prefix + "-symbol.json") as f:
        json = f.read()
    with open(prefix + "-0000.params", "rb") as f:
        params = f.read()
    return json, params


EXPECTED = np.load(os.path.join(FIXTURES, "hybrid191_expected.npz"))


def close(a, b):
    np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


# ------------------------------------------------------------------ MXNet 1.9.1's models


@pytest.mark.parametrize("name", ["lenet", "resnet18"])
def test_exported_model_gives_mxnet191_outputs(name):
    json, params = model(name)
    x, y = EXPECTED["x_" + name], EXPECTED["y_" + name]
    pred = Pred.create(json, params, {"data": x.shape})
    assert pred.output_shape() == y.shape
    assert pred.output_dtype() == 0
    pred.forward(data=x)
    close(pred.output(), y)
    # a second forward with new input data reuses the bound arrays
    pred.forward(data=x[::-1])
    close(pred.output(), y[::-1])


def test_reshape_changes_batch_and_keeps_parameters():
    json, params = model("resnet18")
    x, y = EXPECTED["x_resnet18"], EXPECTED["y_resnet18"]
    small = Pred.create(json, params, {"data": (1,) + x.shape[1:]})
    small.forward(data=x[:1])
    close(small.output(), y[:1])
    big = small.reshape({"data": x.shape})  # grows: new input memory
    assert big.output_shape() == y.shape
    big.forward(data=x)
    close(big.output(), y)
    back = big.reshape({"data": (1,) + x.shape[1:]})  # shrinks: a view of big's memory
    back.forward(data=x[1:])
    close(back.output(), y[1:])
    small.forward(data=x[1:])  # the original handle stays usable
    close(small.output(), y[1:])


def test_reshape_refuses_a_shape_change_of_a_parameter():
    json, params = model("lenet")
    pred = Pred.create(json, params, {"data": (1, 1, 28, 28)})
    with pytest.raises(PredictError, match=r"parameter 'lenet_dense0_weight' would change shape "
                                           r"from \(32,400\) to \(32,576\)"):
        pred.reshape({"data": (1, 1, 32, 32)})  # the flattened size feeding dense0 changes


def _internal_output(json, params, x, name):
    sym = mx.sym.load_json(json)[0].get_internals()[name]
    loaded = {k.split(":", 1)[1]: v for k, v in mx.nd.load_frombuffer(params).items()}
    args = {n: loaded[n] for n in sym.list_arguments() if n != "data"}
    args["data"] = mx.nd.array(x)
    return sym.bind(mx.cpu(), args).forward()[0].asnumpy()


def test_partial_out_gives_internal_node_outputs():
    json, params = model("lenet")
    x, y = EXPECTED["x_lenet"], EXPECTED["y_lenet"]
    pred = Pred.create(json, params, {"data": x.shape},
                       outputs=["lenet_pool1_fwd", "lenet_dense1_fwd_output"])
    assert pred.output_shape(0) == (2, 16, 5, 5)
    pred.forward(data=x)
    close(pred.output(1), y)
    close(pred.output(0), _internal_output(json, params, x, "lenet_pool1_fwd_output"))


def test_partial_forward_steps_through_every_node():
    json, params = model("lenet")
    x, y = EXPECTED["x_lenet"], EXPECTED["y_lenet"]
    pred = Pred.create(json, params, {"data": x.shape})
    pred.set_input("data", x)
    left, steps = ctypes.c_int(1), 0
    while left.value != 0:
        check(LIB.MXPredPartialForward(pred.handle, steps, ctypes.byref(left)))
        steps += 1
    assert steps == 20  # the nodes of the graph, variables included
    close(pred.output(), y)


def test_multi_thread_predictors_share_parameters():
    json, params = model("lenet")
    x, y = EXPECTED["x_lenet"], EXPECTED["y_lenet"]
    n, keys, indptr, data = _shape_args({"data": (1,) + x.shape[1:]})
    handles = (ctypes.c_void_p * 2)()
    check(LIB.MXPredCreateMultiThread(json.encode(), params, len(params), 1, 0, n, keys, indptr,
                                      data, 2, handles))
    preds = [Pred(ctypes.c_void_p(h)) for h in handles]
    results, errors = [None, None], []

    def run(i):
        try:
            for _ in range(3):
                preds[i].forward(data=x[i:i + 1])
                results[i] = preds[i].output()
        except Exception as e:  # pylint: disable=broad-except
            errors.append(e)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    close(np.concatenate(results), y)


def test_monitor_callback_sees_each_node_output():
    json, params = model("lenet")
    x = EXPECTED["x_lenet"]
    pred = Pred.create(json, params, {"data": x.shape})
    seen = {}

    def on_output(name, handle, _):
        arr = mx.nd.NDArray(ctypes.c_void_p(handle))  # takes ownership: freed with arr
        seen[name.decode()] = arr.shape

    cb = MonitorCallback(on_output)
    check(LIB.MXPredSetMonitorCallback(pred.handle, cb, None, ctypes.c_bool(False)))
    pred.forward(data=x)
    # names as MXNet 1.9.1 gives them: list_outputs names of every node output
    assert seen["lenet_conv0_fwd_output"] == (2, 6, 24, 24)
    assert seen["lenet_dropout0_fwd_mask"] == (2, 32)
    assert seen["lenet_dense1_fwd_output"] == (2, 10)
    assert "lenet_conv0_fwd_data" not in seen
    check(LIB.MXPredSetMonitorCallback(pred.handle, cb, None, ctypes.c_bool(True)))
    seen.clear()
    pred.forward(data=x)
    assert seen["lenet_conv0_fwd_data"] == x.shape  # inputs too with monitor_all
    assert seen["lenet_conv0_fwd_weight"] == (6, 1, 5, 5)
    assert seen["lenet_conv0_relu_fwd_input0"] == (2, 6, 24, 24)  # no FListInputNames
    check(LIB.MXPredSetMonitorCallback(pred.handle, None, None, ctypes.c_bool(False)))
    seen.clear()
    pred.forward(data=x)
    assert not seen


def test_create_ex_takes_argument_dtypes(tmp_path):
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Dense(4, activation="relu"), gluon.nn.Dense(3))
    net.initialize(mx.init.Xavier())
    net.cast("float64")
    net.hybridize()
    x = np.random.RandomState(0).uniform(-1, 1, (2, 5))
    want = net(mx.nd.array(x, dtype="float64")).asnumpy()
    net.export(str(tmp_path / "net"))
    json = (tmp_path / "net-symbol.json").read_text()
    params = (tmp_path / "net-0000.params").read_bytes()
    pred = Pred.create(json, params, {"data": x.shape}, dtypes={"data": 1})
    assert pred.output_dtype() == 1
    pred.set_input("data", x, dtype=np.float64)
    check(LIB.MXPredForward(pred.handle))
    out = pred.output()
    assert out.dtype == np.float64
    np.testing.assert_allclose(out, want, rtol=1e-12)
    # without the dtype the float32 default of data conflicts with float64 weights
    with pytest.raises(PredictError, match="float64|float32|dtype|type"):
        Pred.create(json, params, {"data": x.shape})


def test_module_checkpoint_leaves_label_out_of_params(tmp_path):
    data = mx.sym.var("data")
    fc = mx.sym.FullyConnected(data, num_hidden=3, name="fc")
    sym = mx.sym.SoftmaxOutput(fc, name="softmax")
    w = np.arange(12, dtype=np.float32).reshape(3, 4) / 10
    b = np.array([0.1, -0.2, 0.3], dtype=np.float32)
    mx.nd.save(str(tmp_path / "p.params"), {"arg:fc_weight": mx.nd.array(w),
                                            "arg:fc_bias": mx.nd.array(b)})
    x = np.array([[1, 0, -1, 2]], dtype=np.float32)
    pred = Pred.create(sym.tojson(), (tmp_path / "p.params").read_bytes(), {"data": x.shape})
    pred.forward(data=x)
    z = x @ w.T + b
    want = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
    np.testing.assert_allclose(pred.output(), want, rtol=1e-6)


# ------------------------------------------------------------------ NDList


def test_ndlist_reads_named_arrays_as_float32(tmp_path):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.array([1.5, -2.25], dtype=np.float64)
    c = np.array([[7], [8]], dtype=np.int32)
    path = str(tmp_path / "x.nd")
    mx.nd.save(path, {"a": mx.nd.array(a), "b": mx.nd.array(b, dtype="float64"),
                      "c": mx.nd.array(c, dtype="int32")})
    raw = open(path, "rb").read()
    h, n = ctypes.c_void_p(), u32()
    check(LIB.MXNDListCreate(raw, len(raw), ctypes.byref(h), ctypes.byref(n)))
    got = {}
    for i in range(n.value):
        key, data, shape, ndim = ctypes.c_char_p(), float_p(), u32_p(), u32()
        check(LIB.MXNDListGet(h, i, ctypes.byref(key), ctypes.byref(data), ctypes.byref(shape),
                              ctypes.byref(ndim)))
        s = tuple(shape[j] for j in range(ndim.value))
        got[key.value.decode()] = np.ctypeslib.as_array(data, shape=s).copy()
    with pytest.raises(PredictError, match="index 3 out of range"):
        check(LIB.MXNDListGet(h, 3, ctypes.byref(ctypes.c_char_p()), ctypes.byref(float_p()),
                              ctypes.byref(u32_p()), ctypes.byref(u32())))
    check(LIB.MXNDListFree(h))
    assert sorted(got) == ["a", "b", "c"]
    np.testing.assert_array_equal(got["a"], a)
    np.testing.assert_array_equal(got["b"], b.astype(np.float32))
    np.testing.assert_array_equal(got["c"], c.astype(np.float32))


def test_ndlist_of_an_unnamed_list_has_empty_keys(tmp_path):
    path = str(tmp_path / "l.nd")
    mx.nd.save(path, [mx.nd.ones((2,)), mx.nd.zeros((1, 1))])
    raw = open(path, "rb").read()
    h, n = ctypes.c_void_p(), u32()
    check(LIB.MXNDListCreate(raw, len(raw), ctypes.byref(h), ctypes.byref(n)))
    assert n.value == 2
    key, data, shape, ndim = ctypes.c_char_p(), float_p(), u32_p(), u32()
    check(LIB.MXNDListGet(h, 1, ctypes.byref(key), ctypes.byref(data), ctypes.byref(shape),
                          ctypes.byref(ndim)))
    assert key.value == b"" and ndim.value == 2 and shape[0] == 1
    check(LIB.MXNDListFree(h))


# ------------------------------------------------------------------ bad input


def test_unknown_input_key_is_named():
    json, params = model("lenet")
    with pytest.raises(PredictError, match="unknown input key 'image'.*data"):
        Pred.create(json, params, {"image": (1, 1, 28, 28)})
    pred = Pred.create(json, params, {"data": (1, 1, 28, 28)})
    with pytest.raises(PredictError, match="MXPredSetInput: unknown input key 'image'"):
        pred.set_input("image", np.zeros((1, 1, 28, 28)))
    with pytest.raises(PredictError, match="MXPredReshape: unknown input key 'image'"):
        pred.reshape({"image": (2, 1, 28, 28)})


def test_wrong_input_size_is_reported():
    json, params = model("lenet")
    pred = Pred.create(json, params, {"data": (1, 1, 28, 28)})
    with pytest.raises(PredictError, match=r"'data' has shape \(1,1,28,28\) \(784 elements\), "
                                           r"given 10 elements"):
        pred.set_input("data", np.zeros(10))
    out = np.empty(3, dtype=np.float32)
    with pytest.raises(PredictError, match=r"output 0 has shape \(1,10\) \(10 elements\)"):
        check(LIB.MXPredGetOutput(pred.handle, 0, out.ctypes.data_as(float_p), 3))
    with pytest.raises(PredictError, match="output index 1 out of range"):
        pred.output_shape(1)
    with pytest.raises(PredictError, match="output index 5 out of range"):
        pred.output_dtype(5)


def test_malformed_json_is_an_error():
    _, params = model("lenet")
    with pytest.raises(PredictError):
        Pred.create("{ this is not json", params, {"data": (1, 1, 28, 28)})
    bad_op = ('{"nodes": [{"op": "null", "name": "data", "inputs": []}, '
              '{"op": "NoSuchOp", "name": "mystery", "inputs": [[0, 0, 0]]}], '
              '"arg_nodes": [0], "heads": [[1, 0, 0]]}')
    with pytest.raises(PredictError, match="NoSuchOp"):
        Pred.create(bad_op, params, {"data": (1, 1, 28, 28)})


def test_params_missing_an_argument_are_named():
    json, params = model("lenet")
    arrays = mx.nd.load_frombuffer(params)
    del arrays["arg:lenet_dense1_bias"]
    fewer = _save_bytes(arrays)
    with pytest.raises(PredictError, match="params lack lenet_dense1_bias"):
        Pred.create(json, fewer, {"data": (1, 1, 28, 28)})


def test_params_of_a_wrong_shape_are_named():
    json, params = model("lenet")
    arrays = mx.nd.load_frombuffer(params)
    arrays["arg:lenet_dense1_bias"] = mx.nd.zeros((11,))
    with pytest.raises(PredictError, match=r"'lenet_dense1_bias' has shape \(11,\) in the params.*"
                                           r"needs \(10,\)"):
        Pred.create(json, _save_bytes(arrays), {"data": (1, 1, 28, 28)})


def test_corrupt_params_and_undecidable_shapes_are_errors():
    json, params = model("lenet")
    with pytest.raises(PredictError, match="Invalid NDArray file format"):
        Pred.create(json, params[:40], {"data": (1, 1, 28, 28)})
    with pytest.raises(PredictError, match="params lack data, not given as input keys"):
        Pred.create(json, params, {})  # no input shape
    with pytest.raises(PredictError, match="cannot decide the shapes"):
        Pred.create(json, params, {"data": (0, 1, 28, 28)})  # 0: an unknown batch size


def test_unknown_partial_output_is_named():
    json, params = model("lenet")
    with pytest.raises(PredictError, match="no node output 'nowhere_output' or 'nowhere'"):
        Pred.create(json, params, {"data": (1, 1, 28, 28)}, outputs=["nowhere"])


def test_null_handle_and_bad_device_are_errors():
    with pytest.raises(PredictError, match="MXPredForward: argument handle is NULL"):
        check(LIB.MXPredForward(None))
    json, params = model("lenet")
    n, keys, indptr, data = _shape_args({"data": (1, 1, 28, 28)})
    h = ctypes.c_void_p()
    with pytest.raises(PredictError, match="unknown device type 7"):
        check(LIB.MXPredCreate(json.encode(), params, len(params), 7, 0, n, keys, indptr, data,
                               ctypes.byref(h)))
    check(LIB.MXPredFree(None))
    check(LIB.MXNDListFree(None))


def _save_bytes(arrays):
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "p.params")
        mx.nd.save(path, arrays)
        with open(path, "rb") as f:
            return f.read()


# ------------------------------------------------------------------ the header and the C example


CC = next((c for c in (os.environ.get("CC"), "cc", "gcc", "clang") if c and shutil.which(c)), None)


@pytest.mark.parametrize("first,second", [("c_predict_api.h", "c_api.h"),
                                          ("c_api.h", "c_predict_api.h"),
                                          ("c_predict_api.h", None)])
def test_header_is_self_contained_c99(first, second):
    if CC is None:
        pytest.skip("no C compiler")
    src = "#include <mxnet/%s>\n" % first
    if second:
        src += "#include <mxnet/%s>\n" % second
    src += "int main(void) { PredictorHandle h = 0; return MXPredFree(h); }\n"
    proc = subprocess.run([CC, "-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror",
                           "-fsyntax-only", "-I" + mx.libinfo.find_include_path(), "-x", "c", "-"],
                          input=src, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


@pytest.fixture(scope="module")
def example_exe(tmp_path_factory):
    if CC is None:
        pytest.skip("no C compiler")
    libdir = os.path.dirname(mx.libinfo.find_lib_path()[0])
    exe = str(tmp_path_factory.mktemp("predict_c") / "image_classification_predict")
    subprocess.run([CC, "-std=c99", "-Wall", "-Werror", "-pedantic",
                    "-I" + mx.libinfo.find_include_path(), EXAMPLE, "-L" + libdir, "-lmxnet",
                    "-Wl,-rpath," + libdir, "-o", exe], check=True, capture_output=True,
                   text=True)
    return exe


def _run_example(exe, *args):
    env = dict(os.environ)
    env.pop("MXNET_LIBRARY_PATH", None)
    return subprocess.run([exe] + [str(a) for a in args], capture_output=True, text=True,
                          timeout=300, env=env)


def _top(stdout):
    rows = re.findall(r"sample (\d+) top (\d+): class (\d+) score (\S+)(?: label (.*))?", stdout)
    return [(int(s), int(r), int(c), float(v), lbl) for s, r, c, v, lbl in rows]


def test_example_classifies_an_nd_batch_as_mxnet191(example_exe, tmp_path):
    x, y = EXPECTED["x_lenet"], EXPECTED["y_lenet"]
    mx.nd.save(str(tmp_path / "x.nd"), [mx.nd.array(x)])
    (tmp_path / "synset.txt").write_text("".join("digit %d\n" % i for i in range(10)))
    proc = _run_example(example_exe, os.path.join(FIXTURES, "hybrid191_lenet"), 0,
                        tmp_path / "x.nd", "--top-k", 3, "--synset", tmp_path / "synset.txt")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "input shape (2,1,28,28)" in proc.stdout
    assert "output shape (2,10)" in proc.stdout
    rows = _top(proc.stdout)
    assert len(rows) == 6
    for s, r, c, v, label in rows:
        assert c == int(np.argsort(-y[s])[r - 1])
        assert abs(v - y[s, c]) < 1e-4
        assert label == "digit %d" % c


def test_example_classifies_a_pgm_image(example_exe, tmp_path):
    x = EXPECTED["x_lenet"][0, 0]
    pixels = np.clip((x - x.min()) / (x.max() - x.min()) * 255, 0, 255).astype(np.uint8)
    (tmp_path / "digit.pgm").write_bytes(b"P5\n# a comment\n28 28\n255\n" + pixels.tobytes())
    proc = _run_example(example_exe, os.path.join(FIXTURES, "hybrid191_lenet"), 0,
                        tmp_path / "digit.pgm", "--shape", "1,28,28", "--mean", 128,
                        "--scale", 1 / 64.0, "--top-k", 10)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    json, params = model("lenet")
    inp = ((pixels.astype(np.float32) - 128) / 64.0).reshape(1, 1, 28, 28)
    pred = Pred.create(json, params, {"data": inp.shape})
    pred.forward(data=inp)
    want = pred.output()[0]
    rows = _top(proc.stdout)
    assert [c for _, _, c, _, _ in rows] == list(np.argsort(-want))
    np.testing.assert_allclose([v for _, _, _, v, _ in rows], np.sort(want)[::-1], atol=1e-5)


def test_example_reports_api_errors(example_exe, tmp_path):
    (tmp_path / "x.nd").write_bytes(b"not an nd file at all, just text")
    proc = _run_example(example_exe, os.path.join(FIXTURES, "hybrid191_lenet"), 0,
                        tmp_path / "x.nd")
    assert proc.returncode == 1
    assert "MXNDListCreate" in proc.stderr and "Invalid NDArray file format" in proc.stderr
