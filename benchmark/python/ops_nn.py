#!/usr/bin/env python
"""Neural-network operators, forward + backward, on float32 (higher GFLOP/s, lower ms is better).

GFLOP/s cases (counting 2 flops per multiply-add, forward + backward data + backward weights):
  conv3x3     Convolution 3x3, pad 1: N=32, C=64 -> 64, 56x56
  conv1x1     Convolution 1x1: N=32, C=256 -> 64, 56x56
  fc          FullyConnected: N=128, 1024 -> 1024
  sgemm       the machine's single-precision GEMM (numpy, 1024x1024x1024), for scale
ms cases (one forward + backward):
  batchnorm   BatchNorm (training) on the conv3x3 activation (32, 64, 56, 56)
  maxpool     max Pooling 2x2 stride 2 on the same activation
  lstm        2-layer LSTM, T=35, N=32, 256 hidden (the fused RNN op / torch.nn.LSTM)

Each framework-under-test and MXNet 1.9.1 call runs under autograd.record() with backward and
mx.nd.waitall() inside the timed region; PyTorch runs the same layers with autograd. Best of
--rounds interleaved runs (see _baselines.py). A case an implementation lacks is reported as
FAILED with the reason. Not part of pass/fail.

    python benchmark/python/ops_nn.py [--quick] [--rounds R] [--only mxnet,torch,...]
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _baselines  # noqa: E402

FLOPS = r'''
def conv_flops(n, c, k, r, hw):
    return 3 * 2.0 * n * k * c * r * r * hw * hw

def fc_flops(n, i, o):
    return 3 * 2.0 * n * i * o
'''

MX = FLOPS + r'''
def bench(mx, np, cfg, best_of):
    rep, s = cfg["repeats"], cfg["scale"]
    N, HW = max(1, 32 // s), max(8, 56 // s)
    out = {}
    def arr(*shape):
        return mx.nd.array(np.random.uniform(-1, 1, shape).astype("float32"))

    def fwd_bwd(make):
        params = make()
        for p in params[1]:
            p.attach_grad()
        def run():
            with mx.autograd.record():
                y = params[0](*params[1])
            y = y[0] if isinstance(y, (list, tuple)) else y
            y.backward()
            mx.nd.waitall()
        return run

    def conv(c, k, r):
        def make():
            x, w, b = arr(N, c, HW, HW), arr(k, c, r, r), arr(k)
            return (lambda x, w, b: mx.nd.Convolution(x, w, b, kernel=(r, r), num_filter=k,
                                                      pad=(r // 2, r // 2)), [x, w, b])
        return conv_flops(N, c, k, r, HW) / best_of(fwd_bwd(make), rep) / 1e9

    measure(out, "conv3x3", lambda: conv(64, 64, 3))
    measure(out, "conv1x1", lambda: conv(256, 64, 1))

    def fc():
        n, i, o = max(1, 128 // s), 1024 // s, 1024 // s
        def make():
            return (lambda x, w, b: mx.nd.FullyConnected(x, w, b, num_hidden=o),
                    [arr(n, i), arr(o, i), arr(o)])
        return fc_flops(n, i, o) / best_of(fwd_bwd(make), rep) / 1e9
    measure(out, "fc", fc)

    def bn():
        def make():
            mean, var = mx.nd.zeros((64,)), mx.nd.ones((64,))
            return (lambda x, g, b: mx.nd.BatchNorm(x, g, b, mean, var, fix_gamma=False),
                    [arr(N, 64, HW, HW), arr(64), arr(64)])
        with mx.autograd.train_mode():
            return best_of(fwd_bwd(make), rep) * 1e3
    measure(out, "batchnorm", bn)

    def pool():
        def make():
            return (lambda x: mx.nd.Pooling(x, kernel=(2, 2), stride=(2, 2), pool_type="max"),
                    [arr(N, 64, HW, HW)])
        return best_of(fwd_bwd(make), rep) * 1e3
    measure(out, "maxpool", pool)

    def lstm():
        T, H = 35, 256 // s
        L = 2
        nparam = sum(4 * H * (H + H) + 8 * H for _ in range(L))  # input size H in both layers
        def make():
            x, p = arr(T, N, H), arr(nparam) * 0.1
            h0, c0 = mx.nd.zeros((L, N, H)), mx.nd.zeros((L, N, H))
            return (lambda x, p: mx.nd.RNN(x, p, h0, c0, state_size=H, num_layers=L,
                                           mode="lstm", state_outputs=False), [x, p])
        with mx.autograd.train_mode():
            return best_of(fwd_bwd(make), rep) * 1e3
    measure(out, "lstm", lstm)
    return out
'''

NP = r'''
def bench(numpy, np, cfg, best_of):
    n = 1024 // cfg["scale"]
    a = np.random.rand(n, n).astype(np.float32)
    b = np.random.rand(n, n).astype(np.float32)
    out = {"sgemm": 2.0 * n ** 3 / best_of(lambda: a @ b, cfg["repeats"] * 3) / 1e9}
    for case in ("conv3x3", "conv1x1", "fc", "batchnorm", "maxpool", "lstm"):
        out[case] = None
    return out
'''

TORCH = FLOPS + r'''
def bench(torch, np, cfg, best_of):
    rep, s = cfg["repeats"], cfg["scale"]
    N, HW = max(1, 32 // s), max(8, 56 // s)
    nn = torch.nn
    out = {"_meta": {"note": "threads=%d" % torch.get_num_threads()}}

    def fwd_bwd(module, *shape):
        x = torch.rand(*shape, requires_grad=True)
        def run():
            y = module(x)
            y = y[0] if isinstance(y, tuple) else y
            y.backward(torch.ones_like(y))
        return run

    def conv(c, k, r):
        m = nn.Conv2d(c, k, r, padding=r // 2)
        return conv_flops(N, c, k, r, HW) / best_of(fwd_bwd(m, N, c, HW, HW), rep) / 1e9
    measure(out, "conv3x3", lambda: conv(64, 64, 3))
    measure(out, "conv1x1", lambda: conv(256, 64, 1))

    def fc():
        n, i, o = max(1, 128 // s), 1024 // s, 1024 // s
        return fc_flops(n, i, o) / best_of(fwd_bwd(nn.Linear(i, o), n, i), rep) / 1e9
    measure(out, "fc", fc)
    measure(out, "batchnorm",
            lambda: best_of(fwd_bwd(nn.BatchNorm2d(64).train(), N, 64, HW, HW), rep) * 1e3)
    measure(out, "maxpool",
            lambda: best_of(fwd_bwd(nn.MaxPool2d(2, 2), N, 64, HW, HW), rep) * 1e3)
    measure(out, "lstm", lambda: best_of(fwd_bwd(nn.LSTM(256 // s, 256 // s, 2), 35, N,
                                                 256 // s), rep) * 1e3)
    out["sgemm"] = None
    return out
'''

GFLOPS_CASES = ['conv3x3', 'conv1x1', 'fc', 'sgemm']
MS_CASES = ['batchnorm', 'maxpool', 'lstm']


def main(argv=None):
    t0 = time.time()
    args, only = _baselines.main_common(argv, __doc__.splitlines()[0], rounds_default=2)
    cfg = {'repeats': 2, 'scale': 4} if args.quick else {'repeats': 3, 'scale': 1}
    results = _baselines.run_rounds({'mxnet': MX, 'numpy': NP, 'torch': TORCH}, cfg,
                                    max(args.timeout, 600), only,
                                    1 if args.quick else args.rounds,
                                    higher_is_better=lambda case: case in GFLOPS_CASES)
    _baselines.report('ops_nn', GFLOPS_CASES, results, 'GFLOP/s', higher_is_better=True,
                      cfg=cfg)
    _baselines.report('ops_nn', MS_CASES, results, 'ms', higher_is_better=False, cfg=cfg)
    _baselines.elapsed_note(t0)
    return 0


if __name__ == '__main__':
    sys.exit(main())
