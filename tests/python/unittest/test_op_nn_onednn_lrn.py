"""LRN on oneDNN (float32 NCHW, across channels) against the plain kernel
(MXNET_ONEDNN_ENABLED=0) and a numpy reference, forward and backward, for odd and even window
sizes, every argument, grad_req add, and the plain backward run on a oneDNN forward's tmp_norm."""
import os
import subprocess
import sys

import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd, nd


@pytest.fixture(autouse=True)
def restore_onednn():
    yield
    mx.util.setenv("MXNET_ONEDNN_ENABLED", "1")


def np_lrn(x, nsize, alpha, beta, knorm):
    half = (nsize - 1) // 2
    sq = x.astype(np.float64) ** 2
    s = np.zeros_like(sq)
    for c in range(x.shape[1]):
        s[:, c] = sq[:, max(0, c - half):c + half + 1].sum(axis=1)
    return x * (knorm + alpha / nsize * s) ** -beta


def run(x, head, grad_req="write", **kw):
    a = nd.array(x)
    a.attach_grad(grad_req=grad_req)
    for _ in range(2 if grad_req == "add" else 1):
        with autograd.record():
            y = nd.LRN(a, **kw)
        y.backward(nd.array(head))
    return y.asnumpy(), a.grad.asnumpy()


def both(fn):
    out = []
    for flag in ("1", "0"):
        mx.util.setenv("MXNET_ONEDNN_ENABLED", flag)
        out.append(fn())
    return out


@pytest.mark.parametrize("shape", [(2, 16, 7, 9), (3, 5, 4, 4), (1, 64, 14, 14)])
@pytest.mark.parametrize("nsize,kw", [(5, {}), (3, dict(alpha=0.1, beta=0.6, knorm=1.5)),
                                      (1, dict(alpha=0.5)), (4, dict(alpha=1.0, beta=1.0)),
                                      (2, dict(alpha=0.3, knorm=1.0)), (7, dict(beta=0.9))])
def test_lrn_onednn_matches_plain_and_numpy(shape, nsize, kw):
    rng = np.random.RandomState(3)
    x = rng.randn(*shape).astype(np.float32)
    head = rng.randn(*shape).astype(np.float32)
    (y1, g1), (y0, g0) = both(lambda: run(x, head, nsize=nsize, **kw))
    args = dict(dict(alpha=1e-4, beta=0.75, knorm=2.0), **kw)
    np.testing.assert_allclose(y1, np_lrn(x, nsize, **args), rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(y1, y0, rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(g1, g0, rtol=1e-4, atol=1e-5)


def test_lrn_onednn_gradient_matches_numerical():
    rng = np.random.RandomState(4)
    x = rng.randn(2, 6, 3, 3)
    head = rng.randn(2, 6, 3, 3)
    kw = dict(nsize=3, alpha=0.5, beta=0.75, knorm=1.0)
    _, g = run(x.astype(np.float32), head.astype(np.float32), **kw)
    f = lambda v: (np_lrn(v, 3, 0.5, 0.75, 1.0) * head).sum()
    num = np.zeros_like(x)
    eps = 1e-6
    for i in np.ndindex(*x.shape):
        xp, xm = x.copy(), x.copy()
        xp[i] += eps
        xm[i] -= eps
        num[i] = (f(xp) - f(xm)) / (2 * eps)
    np.testing.assert_allclose(g, num, rtol=1e-3, atol=1e-4)


def test_lrn_grad_req_add_accumulates_on_both_paths():
    rng = np.random.RandomState(5)
    x = rng.randn(2, 8, 5, 5).astype(np.float32)
    head = rng.randn(2, 8, 5, 5).astype(np.float32)
    (_, g1), (_, g0) = both(lambda: run(x, head, grad_req="add", nsize=5))
    _, once = run(x, head, nsize=5)
    np.testing.assert_allclose(g1, 2 * once, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(g1, g0, rtol=1e-4, atol=1e-5)


def test_plain_backward_works_on_a_onednn_forward():
    # tmp_norm is filled on the oneDNN path too, so switching between forward and backward
    # still gives the right gradient.
    rng = np.random.RandomState(6)
    x = rng.randn(2, 8, 5, 5).astype(np.float32)
    head = rng.randn(2, 8, 5, 5).astype(np.float32)
    _, ref = run(x, head, nsize=5)
    a = nd.array(x)
    a.attach_grad()
    mx.util.setenv("MXNET_ONEDNN_ENABLED", "1")
    with autograd.record():
        y = nd.LRN(a, nsize=5)
    y.wait_to_read()
    mx.util.setenv("MXNET_ONEDNN_ENABLED", "0")
    y.backward(nd.array(head))
    np.testing.assert_allclose(a.grad.asnumpy(), ref, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("dtype,shape", [("float64", (2, 6, 4, 4)), ("float32", (2, 6, 5)),
                                         ("float16", (2, 6, 4, 4))])
def test_other_dtypes_and_ranks_use_the_plain_kernel(dtype, shape):
    x = np.random.RandomState(7).randn(*shape)
    y = nd.LRN(nd.array(x, dtype=dtype), nsize=3).asnumpy()
    tol = 2e-3 if dtype == "float16" else 1e-5
    np.testing.assert_allclose(y, np_lrn(x.astype(dtype), 3, 1e-4, 0.75, 2.0), rtol=tol,
                               atol=tol)


SCRIPT = r'''
import mxnet as mx
a = mx.nd.ones((2, 8, 4, 4))
a.attach_grad()
with mx.autograd.record():
    y = mx.nd.LRN(a, nsize=5)
y.backward()
mx.nd.waitall()
'''


@pytest.mark.parametrize("enabled", ["1", "0"])
def test_lrn_runs_onednn_primitives_only_when_enabled(enabled):
    env = dict(os.environ, DNNL_VERBOSE="1", ONEDNN_VERBOSE="1", MXNET_ONEDNN_ENABLED=enabled)
    env["PYTHONPATH"] = os.pathsep.join(p for p in [os.path.dirname(mx.__path__[0]),
                                                    env.get("PYTHONPATH", "")] if p)
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = [l.split(",") for l in out.stdout.splitlines() if l.startswith("onednn_verbose,exec")]
    kinds = {(l[3], l[5]) for l in lines}  # primitive, propagation kind
    if enabled == "1":
        assert ("lrn", "forward_inference") in kinds, kinds
        assert ("lrn", "backward_data") in kinds, kinds
    else:
        assert not lines, lines
