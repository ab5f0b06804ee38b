#!/usr/bin/env python
"""Per-call overhead of tiny operators (microseconds per call, lower is better).

Cases, all on 1-element float32 arrays:
  add         c = a + b
  add_record  c = a + b inside `with mx.autograd.record():` (a.attach_grad());
              torch: a.requires_grad_(True).  numpy has no autograd, so the numpy
              plain add is the numpy baseline for this case.
  exp         mx.nd.exp(a) / np.exp(a) / torch.exp(a)

MXNet-API runs (framework under test and MXNet 1.9.1) call the op N times and then
mx.nd.waitall() inside the timed region (the engine is asynchronous); the reported
figure is the best of several repeats divided by N.  See _baselines.py for how the
four implementations are found.  Not part of pass/fail.

    python benchmark/python/op_overhead.py [--quick] [--only mxnet,numpy,...]
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _baselines  # noqa: E402

MX = r'''
def bench(mx, np, cfg, best_of):
    n, rep = cfg["n"], cfg["repeats"]
    a = mx.nd.array([1.5], dtype="float32")
    b = mx.nd.array([2.25], dtype="float32")
    mx.nd.waitall()
    out = {"_meta": {"engine": os.environ.get("MXNET_ENGINE_TYPE", "default")}}

    def add():
        for _ in range(n):
            c = a + b
        mx.nd.waitall()
    def t_add():
        t = best_of(add, rep) / n * 1e6
        assert float((a + b).asnumpy()[0]) == 3.75, "wrong result"
        return t
    measure(out, "add", t_add)

    def exp():
        for _ in range(n):
            c = mx.nd.exp(a)
        mx.nd.waitall()
    measure(out, "exp", lambda: best_of(exp, rep) / n * 1e6)

    def t_record():
        ag = a.copy()
        ag.attach_grad()
        def add_record():
            with mx.autograd.record():
                for _ in range(n):
                    c = ag + b
            mx.nd.waitall()
        t = best_of(add_record, rep) / n * 1e6
        with mx.autograd.record():   # sanity: the recorded graph is usable
            c = ag + b
        c.backward()
        assert float(ag.grad.asnumpy()[0]) == 1.0, "wrong gradient"
        return t
    measure(out, "add_record", t_record)
    return out
'''

NP = r'''
def bench(numpy, np, cfg, best_of):
    n, rep = cfg["n"], cfg["repeats"]
    a = np.array([1.5], dtype=np.float32)
    b = np.array([2.25], dtype=np.float32)
    out = {}
    def add():
        for _ in range(n):
            c = a + b
    out["add"] = best_of(add, rep) / n * 1e6
    def exp():
        for _ in range(n):
            c = np.exp(a)
    out["exp"] = best_of(exp, rep) / n * 1e6
    out["add_record"] = None
    return out
'''

TORCH = r'''
def bench(torch, np, cfg, best_of):
    n, rep = cfg["n"], cfg["repeats"]
    a = torch.tensor([1.5], dtype=torch.float32)
    b = torch.tensor([2.25], dtype=torch.float32)
    out = {}
    def add():
        for _ in range(n):
            c = a + b
    out["add"] = best_of(add, rep) / n * 1e6
    def exp():
        for _ in range(n):
            c = torch.exp(a)
    out["exp"] = best_of(exp, rep) / n * 1e6
    ag = a.clone().requires_grad_(True)
    def add_record():
        for _ in range(n):
            c = ag + b
    out["add_record"] = best_of(add_record, rep) / n * 1e6
    out["_meta"] = {"note": "threads=%d" % torch.get_num_threads()}
    return out
'''


def main(argv=None):
    t0 = time.time()
    args, only = _baselines.main_common(argv, __doc__.splitlines()[0])
    cfg = {'n': 200, 'repeats': 3} if args.quick else {'n': 2000, 'repeats': 7}
    results = _baselines.run_all({'mxnet': MX, 'numpy': NP, 'torch': TORCH}, cfg,
                                 args.timeout, only)
    _baselines.report('op_overhead', ['add', 'add_record', 'exp'], results, 'us/call',
                      higher_is_better=False, baseline_case={'add_record': 'add'}, cfg=cfg)
    _baselines.elapsed_note(t0)
    return 0


if __name__ == '__main__':
    sys.exit(main())
