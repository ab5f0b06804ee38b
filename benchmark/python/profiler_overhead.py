#!/usr/bin/env python
"""Cost of the profiler per tiny operator (microseconds per call, lower is better).

Cases, all `c = a + b` on 1-element float32 arrays, N calls then a wait, timed together:
  stopped           the profiler configured but stopped (what every program pays)
  running           profiler running with MXNet's default configuration (operators,
                    memory and C API calls recorded), continuous_dump off
  running_ops       running, operators only (profile_imperative; no memory, no API)
  running_agg       running with profile_all and aggregate_stats (what dumps() needs)
  overhead          median over rounds of (running - stopped), each round timing one
                    stopped and one running batch back to back, so drift cancels
  overhead_iqr      the spread of those per-round differences (75th - 25th percentile)
  overhead_agg      the same median for running_agg
Each of stopped/running* is the median over the rounds. The difference is not clamped:
a negative median says the cost is below this machine's noise.

Measured for the framework under test and, in the same run, for MXNet 1.9.1 and PyTorch
(torch.profiler recording CPU ops; Debian's 1.13 and PyPI's current release) where they
exist (see _baselines.py). MXNet 1.9.1's Python calls ops through its C API, so its
'running' also records one C API event per op; this framework's Python binding records
the same API events. The trace is written to a temporary folder and discarded.
Not part of pass/fail.

    python benchmark/python/profiler_overhead.py [--quick] [--only mxnet,mxnet191,torch]
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _baselines  # noqa: E402

STATS = r'''
def batch_time(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0

def quantile(xs, q):
    xs = sorted(xs)
    pos = (len(xs) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)

def paired(run_base, run_case, rounds, n):
    """Median per-call times of both, and the median and IQR of per-round differences."""
    gc.disable()
    try:
        base, case = [], []
        for _ in range(rounds):
            base.append(run_base() / n * 1e6)
            case.append(run_case() / n * 1e6)
    finally:
        gc.enable()
    diff = [c - b for b, c in zip(base, case)]
    return (quantile(base, 0.5), quantile(case, 0.5), quantile(diff, 0.5),
            quantile(diff, 0.75) - quantile(diff, 0.25))
'''

MX = STATS + r'''
def bench(mx, np, cfg, best_of):
    import shutil, tempfile
    from mxnet import profiler
    n, rounds = cfg["n"], cfg["rounds"]
    a = mx.nd.array([1.5], dtype="float32")
    b = mx.nd.array([2.25], dtype="float32")
    mx.nd.waitall()
    tmp = tempfile.mkdtemp(prefix="mxprof_")
    trace = os.path.join(tmp, "profile.json")
    out = {"_meta": {"engine": os.environ.get("MXNET_ENGINE_TYPE", "default")}}

    def add():
        for _ in range(n):
            c = a + b
        mx.nd.waitall()

    def stopped():
        return batch_time(add)

    def running(**config):
        def run():
            profiler.set_config(filename=trace, continuous_dump=False, **config)
            profiler.set_state("run")
            try:
                return batch_time(add)
            finally:
                profiler.set_state("stop")
                profiler.dump()
        return run

    def case(name, config, diff_name=None, iqr_name=None):
        def go():
            add()                                    # warm-up
            running(**config)()
            base, run, diff, iqr = paired(stopped, running(**config), rounds, n)
            assert float((a + b).asnumpy()[0]) == 3.75, "wrong result"
            out["stopped"] = base if "stopped" not in out else min(out["stopped"], base)
            if diff_name:
                out[diff_name] = diff
            if iqr_name:
                out[iqr_name] = iqr
            return run
        measure(out, name, go)

    profiler.set_config(filename=trace, continuous_dump=False)
    try:
        case("running", {}, "overhead", "overhead_iqr")
        case("running_ops", dict(profile_imperative=True, profile_symbolic=False,
                                 profile_memory=False, profile_api=False))
        case("running_agg", dict(profile_all=True, aggregate_stats=True), "overhead_agg")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out
'''

TORCH = STATS + r'''
def bench(torch, np, cfg, best_of):
    from torch.profiler import profile, ProfilerActivity
    n, rounds = cfg["n"], cfg["rounds"]
    a = torch.tensor([1.5], dtype=torch.float32)
    b = torch.tensor([2.25], dtype=torch.float32)
    out = {"_meta": {"note": "torch.profiler, CPU activity"}}

    def add():
        for _ in range(n):
            c = a + b

    def stopped():
        return batch_time(add)

    def running():
        with profile(activities=[ProfilerActivity.CPU]):
            return batch_time(add)

    add()
    running()
    base, run, diff, iqr = paired(stopped, running, rounds, n)
    out.update(stopped=base, running=run, overhead=diff, overhead_iqr=iqr)
    return out
'''

CASES = ['stopped', 'running', 'running_ops', 'running_agg', 'overhead', 'overhead_iqr',
         'overhead_agg']


def main(argv=None):
    t0 = time.time()
    args, only = _baselines.main_common(argv, __doc__.splitlines()[0])
    cfg = {'n': 200, 'rounds': 5} if args.quick else {'n': 2000, 'rounds': 31}
    only = [x for x in (only or _baselines.IMPLS) if x != 'numpy']
    results = _baselines.run_all({'mxnet': MX, 'torch': TORCH}, cfg, args.timeout, only)
    results['numpy'] = (None, 'not applicable (no profiler)')
    _baselines.report('profiler_overhead', CASES, results, 'us/call', higher_is_better=False,
                      cfg=cfg)
    _baselines.elapsed_note(t0)
    return 0


if __name__ == '__main__':
    sys.exit(main())
