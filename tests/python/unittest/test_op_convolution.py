"""Convolution: forward and gradients against a numpy reference, in 1-D, 2-D and 3-D, with
groups, strides, dilation, padding and both layouts; oneDNN and the plain kernels agree."""
import itertools

import numpy as np
import pytest

import mxnet as mx
from mxnet.base import MXNetError


def ref_conv(x, w, b, stride, dilate, pad, groups):
    """numpy reference, channel-first: x (N, C, *S), w (K, C/g, *k)."""
    nsp = x.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    n, c = x.shape[:2]
    k = w.shape[0]
    ks = w.shape[2:]
    out_sp = [(xp.shape[2 + i] - dilate[i] * (ks[i] - 1) - 1) // stride[i] + 1 for i in range(nsp)]
    y = np.zeros((n, k) + tuple(out_sp), dtype=np.float64)
    cg, kg = c // groups, k // groups
    for g in range(groups):
        xs = xp[:, g * cg:(g + 1) * cg]
        ws = w[g * kg:(g + 1) * kg]
        for off in itertools.product(*[range(s) for s in ks]):
            sl = tuple(slice(off[i] * dilate[i],
                             off[i] * dilate[i] + (out_sp[i] - 1) * stride[i] + 1, stride[i])
                       for i in range(nsp))
            patch = xs[(slice(None), slice(None)) + sl]          # (N, cg, *out)
            wk = ws[(slice(None), slice(None)) + off]             # (kg, cg)
            y[:, g * kg:(g + 1) * kg] += np.einsum("nc...,kc->nk...", patch, wk)
    if b is not None:
        y += b.reshape((1, k) + (1,) * nsp)
    return y


def check_grads(arrays, refs, ref_fn, head, rng, eps=1e-3):
    """Each array's .grad at a few random entries against central differences of
    sum(ref_fn(*refs) * head) (refs: the numpy inputs, None for an absent bias)."""
    for i, (a, ref) in enumerate(zip(arrays, refs)):
        grad = a.grad.asnumpy()
        for _ in range(3):
            idx = tuple(rng.randint(s) for s in ref.shape)
            plus, minus = ref.copy(), ref.copy()
            plus[idx] += eps
            minus[idx] -= eps
            f_plus = (ref_fn(*[plus if j == i else r for j, r in enumerate(refs)]) * head).sum()
            f_minus = (ref_fn(*[minus if j == i else r for j, r in enumerate(refs)]) * head).sum()
            num = (f_plus - f_minus) / (2 * eps)
            assert abs(grad[idx] - num) <= 1e-3 + 1e-3 * abs(num), (i, idx, grad[idx], num)


def channel_last(a):
    return np.moveaxis(a, 1, -1)


def with_onednn(enabled):
    mx.util.setenv("MXNET_ONEDNN_ENABLED", "1" if enabled else "0")


@pytest.fixture(autouse=True)
def restore_onednn():
    yield
    with_onednn(True)


CASES = [
    # (data shape, kernel, stride, dilate, pad, num_filter, num_group, no_bias)
    ((2, 3, 9), (3,), (1,), (1,), (0,), 4, 1, False),
    ((2, 4, 10), (3,), (2,), (2,), (2,), 6, 2, True),
    ((2, 3, 7, 6), (3, 3), (1, 1), (1, 1), (1, 1), 5, 1, False),
    ((1, 4, 9, 8), (3, 2), (2, 1), (1, 2), (0, 1), 4, 2, False),
    ((2, 6, 8, 8), (1, 1), (2, 2), (1, 1), (0, 0), 6, 3, True),
    # rows the stride leaves unread at the end (oneDNN's exact right padding would be < 0)
    ((2, 3, 8, 7), (3, 2), (2, 3), (1, 1), (0, 1), 4, 1, False),
    ((1, 2, 5, 6, 5), (2, 3, 2), (1, 2, 1), (2, 1, 1), (1, 0, 1), 3, 1, False),
]


@pytest.mark.parametrize("onednn", [True, False])
@pytest.mark.parametrize("case", CASES)
def test_forward_and_gradients_match_numpy(case, onednn):
    shape, kernel, stride, dilate, pad, nf, ng, no_bias = case
    with_onednn(onednn)
    rng = np.random.RandomState(0)
    x = rng.uniform(-1, 1, shape)
    w = rng.uniform(-1, 1, (nf, shape[1] // ng) + kernel)
    b = None if no_bias else rng.uniform(-1, 1, (nf,))
    want = ref_conv(x, w, b, stride, dilate, pad, ng)
    args = [mx.nd.array(x), mx.nd.array(w)] + ([] if no_bias else [mx.nd.array(b)])
    for a in args:
        a.attach_grad()
    head = rng.uniform(-1, 1, want.shape)
    with mx.autograd.record():
        y = mx.nd.Convolution(*args, kernel=kernel, stride=stride, dilate=dilate, pad=pad,
                              num_filter=nf, num_group=ng, no_bias=no_bias)
    y.backward(mx.nd.array(head))
    np.testing.assert_allclose(y.asnumpy(), want, rtol=1e-4, atol=1e-4)
    check_grads(args, [x, w, b], lambda *r: ref_conv(*r, stride, dilate, pad, ng), head, rng)


@pytest.mark.parametrize("dtype", [np.float64, np.float16])
def test_float64_and_float16(dtype):
    rng = np.random.RandomState(1)
    x = rng.uniform(-1, 1, (2, 3, 6, 6)).astype(dtype)
    w = rng.uniform(-1, 1, (4, 3, 3, 3)).astype(dtype)
    b = rng.uniform(-1, 1, (4,)).astype(dtype)
    y = mx.nd.Convolution(mx.nd.array(x, dtype=dtype), mx.nd.array(w, dtype=dtype),
                          mx.nd.array(b, dtype=dtype), kernel=(3, 3), num_filter=4, pad=(1, 1))
    assert y.dtype == dtype
    tol = 1e-10 if dtype == np.float64 else 2e-2
    want = ref_conv(x.astype(np.float64), w.astype(np.float64), b.astype(np.float64),
                    (1, 1), (1, 1), (1, 1), 1)
    np.testing.assert_allclose(y.asnumpy().astype(np.float64), want, rtol=tol, atol=tol)


@pytest.mark.parametrize("onednn", [True, False])
@pytest.mark.parametrize("layout,shape,kernel", [("NHWC", (2, 4, 7, 6), (3, 3)),
                                                 ("NDHWC", (1, 2, 4, 5, 4), (2, 3, 2))])
def test_channel_last_layouts(layout, shape, kernel, onednn):
    with_onednn(onednn)
    rng = np.random.RandomState(2)
    x = rng.uniform(-1, 1, shape)
    w = rng.uniform(-1, 1, (6, shape[1] // 2) + kernel)
    b = rng.uniform(-1, 1, (6,))
    pad = (1,) * len(kernel)
    want = ref_conv(x, w, b, (1,) * len(kernel), (1,) * len(kernel), pad, 2)
    xl, wl = mx.nd.array(channel_last(x)), mx.nd.array(channel_last(w))
    bl = mx.nd.array(b)
    for a in (xl, wl, bl):
        a.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Convolution(xl, wl, bl, kernel=kernel, pad=pad, num_filter=6, num_group=2,
                              layout=layout)
    y.backward()
    np.testing.assert_allclose(y.asnumpy(), channel_last(want), rtol=1e-4, atol=1e-4)
    # The same gradients as the channel-first call, moved to the channel-last layout.
    xf, wf, bf = mx.nd.array(x), mx.nd.array(w), mx.nd.array(b)
    for a in (xf, wf, bf):
        a.attach_grad()
    with mx.autograd.record():
        yf = mx.nd.Convolution(xf, wf, bf, kernel=kernel, pad=pad, num_filter=6, num_group=2)
    yf.backward()
    np.testing.assert_allclose(xl.grad.asnumpy(), channel_last(xf.grad.asnumpy()), rtol=1e-4,
                               atol=1e-4)
    np.testing.assert_allclose(wl.grad.asnumpy(), channel_last(wf.grad.asnumpy()), rtol=1e-4,
                               atol=1e-4)
    np.testing.assert_allclose(bl.grad.asnumpy(), bf.grad.asnumpy(), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("onednn", [True, False])
def test_grad_req_add_accumulates(onednn):
    with_onednn(onednn)
    x = mx.nd.array(np.random.RandomState(3).uniform(-1, 1, (2, 2, 5, 5)))
    w = mx.nd.array(np.random.RandomState(4).uniform(-1, 1, (3, 2, 3, 3)))
    b = mx.nd.zeros((3,))
    for a in (x, w, b):
        a.attach_grad(grad_req="add")
    for _ in range(2):
        with mx.autograd.record():
            y = mx.nd.Convolution(x, w, b, kernel=(3, 3), num_filter=3)
        y.backward()
    once = []
    for a in (x, w, b):
        c = a.copy()
        c.attach_grad()
        once.append(c)
    with mx.autograd.record():
        y = mx.nd.Convolution(*once, kernel=(3, 3), num_filter=3)
    y.backward()
    for a, c in zip((x, w, b), once):
        np.testing.assert_allclose(a.grad.asnumpy(), 2 * c.grad.asnumpy(), rtol=1e-5, atol=1e-5)


def test_output_shape_and_stride_with_floor_as_mxnet():
    # stride 2 on an even input without pad: MXNet floors the output size (and oneDNN would
    # need a negative right pad: the plain kernel takes that call).
    x = mx.nd.ones((1, 1, 6, 6))
    y = mx.nd.Convolution(x, mx.nd.ones((1, 1, 1, 1)), kernel=(1, 1), stride=(2, 2),
                          num_filter=1, no_bias=True)
    assert y.shape == (1, 1, 3, 3)
    y = mx.nd.Convolution(x, mx.nd.ones((2, 1, 2, 2)), mx.nd.zeros((2,)), kernel=(2, 2),
                          stride=(3, 3), num_filter=2)
    assert y.shape == (1, 2, 2, 2)
    np.testing.assert_allclose(y.asnumpy(), np.full((1, 2, 2, 2), 4.0))


def test_bad_arguments_raise_naming_op_argument_and_shapes():
    x = mx.nd.ones((1, 3, 5, 5))
    with pytest.raises(MXNetError, match=r"Convolution.*kernel.*larger than the padded input"):
        mx.nd.Convolution(x, mx.nd.ones((2, 3, 7, 7)), mx.nd.ones((2,)), kernel=(7, 7),
                          num_filter=2)
    with pytest.raises(MXNetError, match=r"Convolution.*divisible by num_group"):
        mx.nd.Convolution(x, mx.nd.ones((4, 1, 3, 3)), mx.nd.ones((4,)), kernel=(3, 3),
                          num_filter=4, num_group=2)
    with pytest.raises(MXNetError, match=r"Convolution.*weight"):
        mx.nd.Convolution(x, mx.nd.ones((4, 3, 2, 2)), mx.nd.ones((4,)), kernel=(3, 3),
                          num_filter=4)
    with pytest.raises(MXNetError, match=r"Convolution.*data expected 4 dims"):
        mx.nd.Convolution(mx.nd.ones((3, 5, 5)), mx.nd.ones((4, 3, 3, 3)), mx.nd.ones((4,)),
                          kernel=(3, 3), num_filter=4)
    with pytest.raises(MXNetError, match=r"Convolution.*stride"):
        mx.nd.Convolution(x, mx.nd.ones((4, 3, 3, 3)), mx.nd.ones((4,)), kernel=(3, 3),
                          stride=(1, 1, 1), num_filter=4)
    with pytest.raises(MXNetError, match=r"layout"):
        mx.nd.Convolution(x, mx.nd.ones((4, 3, 3, 3)), mx.nd.ones((4,)), kernel=(3, 3),
                          num_filter=4, layout="NCDHW")
    with pytest.raises(MXNetError, match=r"Convolution.*int32"):
        mx.nd.Convolution(x.astype("int32"), mx.nd.ones((4, 3, 3, 3), dtype="int32"),
                          mx.nd.ones((4,), dtype="int32"), kernel=(3, 3), num_filter=4)


def test_arguments_and_defaults_as_mxnet():
    doc = mx.nd.Convolution.__doc__
    for arg in ("kernel", "stride", "dilate", "pad", "num_filter", "num_group", "workspace",
                "no_bias", "cudnn_tune", "cudnn_off", "layout"):
        assert arg in doc, arg
    y = mx.nd.Convolution(data=mx.nd.ones((1, 2, 4, 4)), weight=mx.nd.ones((3, 2, 3, 3)),
                          bias=mx.nd.ones((3,)), kernel=(3, 3), num_filter=3, workspace=512,
                          cudnn_tune="fastest", cudnn_off=True)
    np.testing.assert_allclose(y.asnumpy(), np.full((1, 3, 2, 2), 19.0))


# ------------------------------------------------------------------ Deconvolution

def ref_deconv(x, w, b, stride, dilate, pad, adj, groups):
    """numpy reference by the definition: each input element scatters weight * value.
    x (N, C, *S), w (C, F/g, *k) -> (N, F, *out)."""
    nsp = x.ndim - 2
    n, c = x.shape[:2]
    fg = w.shape[1]
    ks = w.shape[2:]
    full = [stride[i] * (x.shape[2 + i] - 1) + dilate[i] * (ks[i] - 1) + 1 for i in range(nsp)]
    y = np.zeros((n, fg * groups) + tuple(f + adj[i] for i, f in enumerate(full)))
    cg = c // groups
    for ci in range(c):
        g = ci // cg
        for pos in itertools.product(*[range(s) for s in x.shape[2:]]):
            v = x[(slice(None), ci) + pos]                      # (N,)
            for off in itertools.product(*[range(s) for s in ks]):
                tgt = tuple(pos[i] * stride[i] + off[i] * dilate[i] for i in range(nsp))
                y[(slice(None), slice(g * fg, (g + 1) * fg)) + tgt] += \
                    v[:, None] * w[(ci, slice(None)) + off][None, :]
    crop = tuple(slice(pad[i], y.shape[2 + i] - pad[i]) for i in range(nsp))
    y = y[(slice(None), slice(None)) + crop]
    if b is not None:
        y = y + b.reshape((1, -1) + (1,) * nsp)
    return y


DECONV_CASES = [
    # (data shape, kernel, stride, dilate, pad, adj, num_filter, num_group, no_bias)
    ((2, 3, 5), (3,), (2,), (1,), (1,), (1,), 4, 1, True),
    ((2, 4, 3, 4), (3, 3), (2, 2), (1, 1), (1, 0), (1, 1), 2, 2, False),
    ((1, 2, 3, 3), (2, 3), (1, 2), (2, 1), (0, 1), (0, 1), 3, 1, False),
    ((1, 2, 2, 3, 2), (2, 2, 2), (2, 1, 2), (1, 1, 1), (0, 0, 1), (1, 0, 0), 2, 1, True),
]


@pytest.mark.parametrize("onednn", [True, False])
@pytest.mark.parametrize("case", DECONV_CASES)
def test_deconvolution_forward_and_gradients_match_numpy(case, onednn):
    shape, kernel, stride, dilate, pad, adj, nf, ng, no_bias = case
    with_onednn(onednn)
    rng = np.random.RandomState(5)
    x = rng.uniform(-1, 1, shape)
    w = rng.uniform(-1, 1, (shape[1], nf // ng) + kernel)
    b = None if no_bias else rng.uniform(-1, 1, (nf,))
    want = ref_deconv(x, w, b, stride, dilate, pad, adj, ng)
    args = [mx.nd.array(x), mx.nd.array(w)] + ([] if no_bias else [mx.nd.array(b)])
    for a in args:
        a.attach_grad()
    head = rng.uniform(-1, 1, want.shape)
    with mx.autograd.record():
        y = mx.nd.Deconvolution(*args, kernel=kernel, stride=stride, dilate=dilate, pad=pad,
                                adj=adj, num_filter=nf, num_group=ng, no_bias=no_bias)
    y.backward(mx.nd.array(head))
    np.testing.assert_allclose(y.asnumpy(), want, rtol=1e-4, atol=1e-4)
    check_grads(args, [x, w, b], lambda *r: ref_deconv(*r, stride, dilate, pad, adj, ng), head,
                rng)


def test_deconvolution_target_shape_and_defaults_as_mxnet():
    x = mx.nd.array(np.arange(2 * 3 * 4 * 4).reshape(2, 3, 4, 4) / 10.)
    w = mx.nd.array(np.arange(3 * 2 * 3 * 3).reshape(3, 2, 3, 3) / 10.)
    # Sums observed with MXNet 1.9.1 on these inputs.
    y = mx.nd.Deconvolution(x, w, kernel=(3, 3), num_filter=2, stride=(2, 2), target_shape=(9, 9))
    assert y.shape == (2, 2, 9, 9)
    assert abs(y.sum().asscalar() - 25068.96) < 0.05
    y = mx.nd.Deconvolution(x, w, kernel=(3, 3), num_filter=2, stride=(2, 2), pad=(1, 1),
                            adj=(1, 1))
    assert abs(y.sum().asscalar() - 21553.56) < 0.05
    # no_bias defaults to True: two inputs are enough.
    assert mx.nd.Deconvolution(x, w, kernel=(3, 3), num_filter=2).shape == (2, 2, 6, 6)


def test_deconvolution_bad_arguments():
    x, w = mx.nd.ones((1, 3, 4, 4)), mx.nd.ones((3, 2, 3, 3))
    with pytest.raises(MXNetError, match=r"Deconvolution.*adj.*smaller than stride"):
        mx.nd.Deconvolution(x, w, kernel=(3, 3), num_filter=2, stride=(2, 2), adj=(2, 2))
    with pytest.raises(MXNetError, match=r"Deconvolution.*target_shape.*larger"):
        mx.nd.Deconvolution(x, w, kernel=(3, 3), num_filter=2, target_shape=(20, 20))
    with pytest.raises(MXNetError, match=r"Deconvolution.*divisible by num_group"):
        mx.nd.Deconvolution(x, w, kernel=(3, 3), num_filter=2, num_group=2)
    with pytest.raises(MXNetError, match=r"Deconvolution.*weight"):
        mx.nd.Deconvolution(x, mx.nd.ones((3, 2, 2, 2)), kernel=(3, 3), num_filter=2)


def test_cached_blocked_weights_follow_each_array_and_its_writes():
    # oneDNN keeps weights reordered per weight array; networks repeat one geometry with
    # different weights, and training writes the weights in place between calls.
    rng = np.random.RandomState(3)
    x = mx.nd.array(rng.randn(1, 16, 6, 6))
    ws = [mx.nd.array(rng.randn(16, 16, 3, 3)) for _ in range(3)]

    def conv(w):
        return mx.nd.Convolution(x, w, kernel=(3, 3), num_filter=16, pad=(1, 1), no_bias=True)

    def ref(w):
        return ref_conv(x.asnumpy(), w.asnumpy(), None, (1, 1), (1, 1), (1, 1), 1)

    for _ in range(2):  # alternate arrays of one geometry
        for w in ws:
            np.testing.assert_allclose(conv(w).asnumpy(), ref(w), rtol=1e-4, atol=1e-4)
    ws[1][:] = ws[1] * -2 + 1  # in-place write: the cached copy must not be used
    np.testing.assert_allclose(conv(ws[1]).asnumpy(), ref(ws[1]), rtol=1e-4, atol=1e-4)
    ws[1] *= 0.5
    np.testing.assert_allclose(conv(ws[1]).asnumpy(), ref(ws[1]), rtol=1e-4, atol=1e-4)
    w_slice = mx.nd.array(rng.randn(2, 16, 16, 3, 3))
    for i in range(2):  # views of one chunk at different offsets
        np.testing.assert_allclose(conv(w_slice[i]).asnumpy(), ref(w_slice[i]),
                                   rtol=1e-4, atol=1e-4)


# ----------------------------------------------------------------------- Winograd kernels
WINO_SCRIPT = r'''
import numpy as np, mxnet as mx
from mxnet import autograd
rng = np.random.RandomState(0)
x = mx.nd.array(rng.uniform(-1, 1, (32, 64, 28, 28)))
w = mx.nd.array(rng.uniform(-0.05, 0.05, (64, 64, 3, 3)))
x.attach_grad(); w.attach_grad()
with autograd.record():
    y = mx.nd.Convolution(x, w, kernel=(3, 3), pad=(1, 1), num_filter=64, no_bias=True)
y.backward()
mx.nd.waitall()
'''


def _conv_kernels(flag):
    """The convolution implementations oneDNN's verbose log names for WINO_SCRIPT."""
    import os
    import subprocess
    import sys
    env = dict(os.environ, DNNL_VERBOSE="1", MXNET_ONEDNN_WINOGRAD=flag)
    env["PYTHONPATH"] = os.pathsep.join(p for p in [os.path.dirname(mx.__path__[0]),
                                                    env.get("PYTHONPATH", "")] if p)
    out = subprocess.run([sys.executable, "-c", WINO_SCRIPT], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return {(f[4], f[5]) for f in (line.split(",") for line in out.stdout.splitlines())
            if f[:2] == ["onednn_verbose", "exec"] and f[3] == "convolution"}


@pytest.mark.skipif(not mx.runtime.Features().is_enabled("ONEDNN"), reason="no oneDNN")
def test_winograd_kernels_only_when_allowed():
    allowed = _conv_kernels("1")
    direct = _conv_kernels("0")
    assert not any("wino" in impl for impl, _ in direct), direct
    assert {prop for _, prop in direct} == {"forward_training", "backward_data",
                                            "backward_weights"}
    # on AVX-512 oneDNN finds its Winograd kernels faster for this shape, in every direction
    if any(impl.endswith("avx512_core") for impl, _ in direct):
        assert {prop for impl, prop in allowed if "wino" in impl} == {
            "forward_training", "backward_data", "backward_weights"}, allowed


@pytest.mark.parametrize("flag", ["1", "0"])
def test_winograd_or_direct_results_within_float32_rounding(flag):
    # The same convolution forward and backward with Winograd allowed and not, against
    # float64: both within a few float32 roundings of the sums (Winograd's error is larger
    # than direct's but of that order)
    mx.util.setenv("MXNET_ONEDNN_WINOGRAD", flag)
    try:
        rng = np.random.RandomState(1)
        xs = rng.uniform(-1, 1, (32, 32, 14, 14))
        ws = rng.uniform(-0.1, 0.1, (32, 32, 3, 3))
        head = rng.uniform(-1, 1, (32, 32, 14, 14))
        res = {}
        for dtype in ("float32", "float64"):
            x = mx.nd.array(xs, dtype=dtype)
            w = mx.nd.array(ws, dtype=dtype)
            x.attach_grad()
            w.attach_grad()
            with mx.autograd.record():
                y = mx.nd.Convolution(x, w, kernel=(3, 3), pad=(1, 1), num_filter=32,
                                      no_bias=True)
            y.backward(mx.nd.array(head, dtype=dtype))
            res[dtype] = [y.asnumpy(), x.grad.asnumpy(), w.grad.asnumpy()]
        for got, want in zip(res["float32"], res["float64"]):
            scale = np.abs(want).max()
            assert np.abs(got - want).max() <= 2e-5 * scale
    finally:
        mx.util.setenv("MXNET_ONEDNN_WINOGRAD", "1")
