#!/usr/bin/env python
"""Cost of the profiler per tiny operator (microseconds per call, lower is better).

Cases, all `c = a + b` on 1-element float32 arrays, N calls then mx.nd.waitall() timed
together (best of several repeats, divided by N):
  stopped           the profiler configured but stopped (what every program pays)
  running           profiler running with MXNet's default configuration (operators,
                    memory and C API calls recorded), continuous_dump off
  running_ops       running, operators only (profile_imperative; no memory, no API)
  running_agg       running with profile_all and aggregate_stats (what dumps() needs)
  overhead          running - stopped
  overhead_agg      running_agg - stopped

Measured for the framework under test and, in the same run, for MXNet 1.9.1 where its
venv exists (see _baselines.py). MXNet 1.9.1's Python calls ops through its C API, so its
'running' also records one C API event per op; this framework's Python binding does not go
through the C API. The trace is written to a temporary folder and discarded.
Not part of pass/fail.

    python benchmark/python/profiler_overhead.py [--quick] [--only mxnet,mxnet191]
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _baselines  # noqa: E402

MX = r'''
def bench(mx, np, cfg, best_of):
    import shutil, tempfile
    from mxnet import profiler
    n, rep = cfg["n"], cfg["repeats"]
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

    def timed(**config):
        def run():
            profiler.set_config(filename=trace, continuous_dump=False, **config)
            profiler.set_state("run")
            try:
                t = best_of(add, rep) / n * 1e6
            finally:
                profiler.set_state("stop")
            profiler.dump()
            assert float((a + b).asnumpy()[0]) == 3.75, "wrong result"
            return t
        return run

    def stopped():
        profiler.set_config(filename=trace, continuous_dump=False)
        return best_of(add, rep) / n * 1e6

    try:
        measure(out, "stopped", stopped)
        measure(out, "running", timed())
        measure(out, "running_ops", timed(profile_imperative=True, profile_symbolic=False,
                                          profile_memory=False, profile_api=False))
        measure(out, "running_agg", timed(profile_all=True, aggregate_stats=True))
        if out.get("stopped") is not None:
            for case, run in (("overhead", "running"), ("overhead_agg", "running_agg")):
                out[case] = (None if out.get(run) is None
                             else max(out[run] - out["stopped"], 0.0))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out
'''

CASES = ['stopped', 'running', 'running_ops', 'running_agg', 'overhead', 'overhead_agg']


def main(argv=None):
    t0 = time.time()
    args, only = _baselines.main_common(argv, __doc__.splitlines()[0])
    cfg = {'n': 200, 'repeats': 3} if args.quick else {'n': 2000, 'repeats': 7}
    only = [x for x in (only or ('mxnet', 'mxnet191')) if x in ('mxnet', 'mxnet191')]
    results = _baselines.run_all({'mxnet': MX}, cfg, args.timeout, only)
    for impl in ('numpy', 'torch'):
        results[impl] = (None, 'not applicable (no profiler API)')
    _baselines.report('profiler_overhead', CASES, results, 'us/call', higher_is_better=False,
                      cfg=cfg)
    _baselines.elapsed_note(t0)
    return 0


if __name__ == '__main__':
    sys.exit(main())
