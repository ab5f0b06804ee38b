#!/usr/bin/env python
"""Per-call overhead of tiny operators (microseconds per call, lower is better).

Cases, all on 1-element float32 arrays:
  add          c = a + b
  exp          mx.nd.exp(a) / np.exp(a) / torch.exp(a)
  relu         mx.nd.relu(a) / np.maximum(a, 0) / torch.relu(a)
  *_record     the same inside `with mx.autograd.record():` with a.attach_grad()
               (torch: a.requires_grad_(True)); numpy has no autograd, so its plain case
               is the numpy baseline of each recorded case.

MXNet-API runs (framework under test and MXNet 1.9.1) call the op N times and then
mx.nd.waitall() inside the timed region (the engine is asynchronous); the reported
figure is the best of several repeats divided by N, and the best of --rounds runs of every
implementation taken in turn (default 3), so that a slow period of a noisy machine does not
land on one implementation only.  See _baselines.py for how the
implementations (numpy, MXNet 1.9.1, Debian's PyTorch 1.13, PyPI's current PyTorch)
are found.  Not part of pass/fail.

    python benchmark/python/op_overhead.py [--quick] [--rounds R] [--only mxnet,numpy,...]
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
    ops = {"add": lambda x: x + b, "exp": mx.nd.exp, "relu": mx.nd.relu}
    expect = {"add": (3.75, 1.0), "exp": (float(np.exp(np.float32(1.5))), None),
              "relu": (1.5, 1.0)}

    def plain(f):
        def run():
            for _ in range(n):
                c = f(a)
            mx.nd.waitall()
        return run

    def recorded(f, x):
        def run():
            with mx.autograd.record():
                for _ in range(n):
                    c = f(x)
            mx.nd.waitall()
        return run

    for name, f in ops.items():
        value, grad = expect[name]
        def t_plain(f=f, value=value):
            t = best_of(plain(f), rep) / n * 1e6
            assert abs(float(f(a).asnumpy()[0]) - value) < 1e-5, "wrong result"
            return t
        measure(out, name, t_plain)

        def t_record(f=f, grad=grad):
            x = a.copy()
            x.attach_grad()
            t = best_of(recorded(f, x), rep) / n * 1e6
            with mx.autograd.record():   # sanity: the recorded graph is usable
                c = f(x)
            c.backward()
            if grad is not None:
                assert float(x.grad.asnumpy()[0]) == grad, "wrong gradient"
            return t
        measure(out, name + "_record", t_record)
    return out
'''

NP = r'''
def bench(numpy, np, cfg, best_of):
    n, rep = cfg["n"], cfg["repeats"]
    a = np.array([1.5], dtype=np.float32)
    b = np.array([2.25], dtype=np.float32)
    out = {}
    for name, f in (("add", lambda x: x + b), ("exp", np.exp),
                    ("relu", lambda x: np.maximum(x, 0))):
        def run(f=f):
            for _ in range(n):
                c = f(a)
        out[name] = best_of(run, rep) / n * 1e6
        out[name + "_record"] = None
    return out
'''

TORCH = r'''
def bench(torch, np, cfg, best_of):
    n, rep = cfg["n"], cfg["repeats"]
    a = torch.tensor([1.5], dtype=torch.float32)
    b = torch.tensor([2.25], dtype=torch.float32)
    ag = a.clone().requires_grad_(True)
    out = {}
    for name, f in (("add", lambda x: x + b), ("exp", torch.exp), ("relu", torch.relu)):
        for case, x in ((name, a), (name + "_record", ag)):
            def run(f=f, x=x):
                for _ in range(n):
                    c = f(x)
            out[case] = best_of(run, rep) / n * 1e6
    out["_meta"] = {"note": "threads=%d" % torch.get_num_threads()}
    return out
'''

CASES = ['add', 'add_record', 'exp', 'exp_record', 'relu', 'relu_record']


def main(argv=None):
    t0 = time.time()
    args, only = _baselines.main_common(argv, __doc__.splitlines()[0], rounds_default=3)
    cfg = {'n': 200, 'repeats': 3} if args.quick else {'n': 2000, 'repeats': 7}
    results = _baselines.run_rounds({'mxnet': MX, 'numpy': NP, 'torch': TORCH}, cfg,
                                    args.timeout, only, 1 if args.quick else args.rounds)
    _baselines.report('op_overhead', CASES, results, 'us/call', higher_is_better=False,
                      baseline_case={c + '_record': c for c in ('add', 'exp', 'relu')},
                      cfg=cfg)
    _baselines.elapsed_note(t0)
    return 0


if __name__ == '__main__':
    sys.exit(main())
