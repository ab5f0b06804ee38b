#!/usr/bin/env python
"""Memory bandwidth of large elementwise ops and a reduction (GB/s, higher is better).

On n = 10,000,000 float32 elements (--quick: 100,000):
  add  c = a + b         counts 3 arrays x 4 bytes x n
  exp  c = exp(a)        counts 2 arrays x 4 bytes x n
  sum  s = sum(a)        counts 1 array  x 4 bytes x n
Every implementation allocates its output (out-of-place), as user code does.
MXNet-API runs (framework under test and MXNet 1.9.1) issue the op k times and then
mx.nd.waitall() inside the timed region; the figure is the best of several repeats.
Thread counts are each library's defaults (shown in the header lines where known);
see _baselines.py for how the implementations are found.  Not part of pass/fail.

    python benchmark/python/elemwise.py [--quick] [--only mxnet,numpy,...]
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _baselines  # noqa: E402

MX = r'''
def bench(mx, np, cfg, best_of):
    n, k, rep = cfg["n"], cfg["k"], cfg["repeats"]
    a = mx.nd.ones((n,), dtype="float32") * 0.5
    b = mx.nd.ones((n,), dtype="float32") * 0.25
    mx.nd.waitall()
    gb = 4.0 * n * k / 1e9
    out = {"_meta": {"note": "MXNET_OMP_MAX_THREADS=%s OMP_NUM_THREADS=%s" % (
        os.environ.get("MXNET_OMP_MAX_THREADS", "unset"),
        os.environ.get("OMP_NUM_THREADS", "unset"))}}

    def add():
        for _ in range(k):
            c = a + b
        mx.nd.waitall()
    def t_add():
        t = best_of(add, rep)
        assert abs(float((a + b)[n - 1].asscalar()) - 0.75) < 1e-6, "wrong result"
        return 3 * gb / t
    measure(out, "add", t_add)

    def exp():
        for _ in range(k):
            c = mx.nd.exp(a)
        mx.nd.waitall()
    measure(out, "exp", lambda: 2 * gb / best_of(exp, rep))

    def sum_():
        for _ in range(k):
            s = mx.nd.sum(a)
        mx.nd.waitall()
    def t_sum():
        t = best_of(sum_, rep)
        assert abs(float(mx.nd.sum(a).asscalar()) - 0.5 * n) <= 1e-3 * n, "wrong sum"
        return gb / t
    measure(out, "sum", t_sum)
    return out
'''

NP = r'''
def bench(numpy, np, cfg, best_of):
    n, k, rep = cfg["n"], cfg["k"], cfg["repeats"]
    a = np.full((n,), 0.5, dtype=np.float32)
    b = np.full((n,), 0.25, dtype=np.float32)
    gb = 4.0 * n * k / 1e9
    out = {}
    def add():
        for _ in range(k):
            c = a + b
    out["add"] = 3 * gb / best_of(add, rep)
    def exp():
        for _ in range(k):
            c = np.exp(a)
    out["exp"] = 2 * gb / best_of(exp, rep)
    def sum_():
        for _ in range(k):
            s = a.sum()
    out["sum"] = gb / best_of(sum_, rep)
    return out
'''

TORCH = r'''
def bench(torch, np, cfg, best_of):
    n, k, rep = cfg["n"], cfg["k"], cfg["repeats"]
    a = torch.full((n,), 0.5, dtype=torch.float32)
    b = torch.full((n,), 0.25, dtype=torch.float32)
    gb = 4.0 * n * k / 1e9
    out = {}
    def add():
        for _ in range(k):
            c = a + b
    out["add"] = 3 * gb / best_of(add, rep)
    def exp():
        for _ in range(k):
            c = torch.exp(a)
    out["exp"] = 2 * gb / best_of(exp, rep)
    def sum_():
        for _ in range(k):
            s = a.sum()
    out["sum"] = gb / best_of(sum_, rep)
    out["_meta"] = {"note": "threads=%d" % torch.get_num_threads()}
    return out
'''


def main(argv=None):
    t0 = time.time()
    args, only = _baselines.main_common(argv, __doc__.splitlines()[0])
    cfg = ({'n': 100000, 'k': 2, 'repeats': 2} if args.quick
           else {'n': 10000000, 'k': 3, 'repeats': 5})
    results = _baselines.run_all({'mxnet': MX, 'numpy': NP, 'torch': TORCH}, cfg,
                                 args.timeout, only)
    _baselines.report('elemwise', ['add', 'exp', 'sum'], results, 'GB/s',
                      higher_is_better=True, cfg=cfg)
    _baselines.elapsed_note(t0)
    return 0


if __name__ == '__main__':
    sys.exit(main())
