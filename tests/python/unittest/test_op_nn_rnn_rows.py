"""The fused RNN op with float32 products on oneDNN splits the batch rows between threads for
all steps (rnn_kernels.cc, RowSplit): its results against the single-thread OpenBLAS path
(MXNET_ONEDNN_ENABLED=0) for every mode, with projection, sequence lengths, bidirectional
layers, state outputs and odd batch sizes, forward and backward."""
import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd, nd


def param_count(mode, L, I, H, P, D):
    G = {"lstm": 4, "gru": 3, "rnn_tanh": 1, "rnn_relu": 1}[mode]
    n = 0
    for l in range(L):
        inp = I if l == 0 else D * P
        n += D * (G * H * (inp + P) + (P * H if P != H else 0))
    return n + L * D * 2 * G * H


def run(mode, T, N, I, H, L, bidir, proj, seq):
    rng = np.random.RandomState(11)
    D = 2 if bidir else 1
    P = proj or H
    x = nd.array(rng.uniform(-1, 1, (T, N, I)).astype(np.float32))
    p = nd.array(rng.uniform(-0.3, 0.3, param_count(mode, L, I, H, P, D)).astype(np.float32))
    h0 = nd.array(rng.uniform(-1, 1, (L * D, N, P)).astype(np.float32))
    args = [x, p, h0]
    if mode == "lstm":
        args.append(nd.array(rng.uniform(-1, 1, (L * D, N, H)).astype(np.float32)))
    kw = dict(state_size=H, num_layers=L, mode=mode, bidirectional=bidir, state_outputs=True)
    if proj:
        kw["projection_size"] = proj
    if seq:
        lens = rng.randint(1, T + 1, N).astype(np.float32)
        lens[0] = T
        args.append(nd.array(lens))
        kw["use_sequence_length"] = True
    for a in args[:4]:
        a.attach_grad()
    with autograd.record(train_mode=True):
        outs = nd.RNN(*args, **kw)
    heads = [nd.array(rng.uniform(-1, 1, o.shape).astype(np.float32)) for o in outs]
    autograd.backward(list(outs), heads)
    return [o.asnumpy() for o in outs] + [a.grad.asnumpy() for a in args[:4]]


@pytest.mark.parametrize("mode,N,bidir,proj,seq", [
    ("lstm", 32, False, None, False), ("lstm", 13, True, None, True),
    ("lstm", 16, False, 8, False), ("gru", 17, True, None, False), ("gru", 24, False, None, True),
    ("rnn_tanh", 9, False, None, False), ("rnn_relu", 20, True, None, True)])
def test_row_split_matches_single_thread_openblas(mode, N, bidir, proj, seq):
    cfg = (mode, 6, N, 10, 64, 2, bidir, proj, seq)  # H = 64: enough work to split
    try:
        mx.util.setenv("MXNET_ONEDNN_ENABLED", "1")
        split = run(*cfg)
        mx.util.setenv("MXNET_ONEDNN_ENABLED", "0")
        plain = run(*cfg)
    finally:
        mx.util.setenv("MXNET_ONEDNN_ENABLED", "1")
    assert len(split) == len(plain)
    for i, (a, b) in enumerate(zip(split, plain)):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5, err_msg="result %d" % i)
