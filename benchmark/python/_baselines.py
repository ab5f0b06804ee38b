"""Shared machinery for the Python benchmarks: run one benchmark body against

  mxnet     the framework under test: `import mxnet` with this interpreter
            (sys.executable, same environment and working directory; if that import
            fails and <repo>/python/mxnet exists, retried with <repo>/python first on
            PYTHONPATH).  It runs in a child process so that a crash or hang of a
            framework still in development cannot take the other results with it.
  numpy     numpy in this interpreter, in-process.
  mxnet191  Apache MXNet 1.9.1: $MXNET191_PYTHON, else /root/mxnet191-venv/bin/python
            (see tools/setup_baselines.sh), when it exists.
  torch     PyTorch as Debian ships it (python3-torch 1.13): $TORCH_PYTHON, else
            /usr/bin/python3, when `import torch` works there.
  torch_pypi  PyTorch's current release from PyPI in its own venv (what a user picks today):
            $TORCH_PYPI_PYTHON, else /root/torch-venv/bin/python (tools/setup_baselines.sh).

Baseline children run with PYTHONPATH, PYTHONHOME and MXNET_LIBRARY_PATH removed and a
temporary working directory, so they cannot pick up this repository's `mxnet`.
Each child prints one JSON object; the parent prints a table and one JSON line per
result.  Ratios are always against numpy and MXNet 1.9.1 measured in the same run;
absolute times from different runs must not be compared.  Benchmarks are never part
of pass/fail.

Each benchmark supplies, per implementation kind, a source snippet that defines
    bench(lib, np, cfg, best_of) -> {case: value or None, "_meta": {...}, "_errors": {...}}
where lib is the imported module (mxnet / numpy / torch), cfg a dict of sizes and
best_of(fn, repeats) returns the best wall time of fn() in seconds; snippets may use
measure(out, case, fn) (also predefined) so that one failing case keeps the others.
"""
from __future__ import print_function

import json
import math
import os
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MARK = '@@BENCH_RESULT@@ '
IMPLS = ('mxnet', 'numpy', 'mxnet191', 'torch', 'torch_pypi')

HELPERS = r'''
import gc, time, json, sys, os
def best_of(fn, repeats):
    fn()                      # warm-up (allocations, lazy init, op caches)
    best = float("inf")
    gcold = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repeats):
            t0 = time.perf_counter()
            fn()
            t = time.perf_counter() - t0
            if t < best:
                best = t
    finally:
        if gcold:
            gc.enable()
    return best

def measure(out, name, fn):
    """out[name] = fn(), or None with the reason in out["_errors"][name]."""
    try:
        out[name] = fn()
    except Exception as e:  # keep the other cases
        out[name] = None
        msg = (str(e).strip().splitlines() or [""])[-1]
        out.setdefault("_errors", {})[name] = "%s: %s" % (type(e).__name__, msg[:300])
'''

CHILD_MAIN = r'''
import importlib, traceback
_kind = sys.argv[1]
_cfg = json.loads(sys.argv[2])
try:
    _lib = importlib.import_module(_kind)
    import numpy as _np
except Exception as _e:  # report, do not crash
    print(%(mark)r + json.dumps({"_error": "import %%s failed: %%s: %%s"
                                 %% (_kind, type(_e).__name__, (str(_e).strip().splitlines() or [""])[-1])}))
    sys.exit(0)
try:
    _res = bench(_lib, _np, _cfg, best_of)
except Exception as _e:
    _res = {"_error": "%%s: %%s" %% (type(_e).__name__, (str(_e).strip().splitlines() or [""])[-1]),
            "_trace": traceback.format_exc()[-2000:]}
_meta = _res.setdefault("_meta", {})
_meta.setdefault("version", getattr(_lib, "__version__", "?"))
_meta.setdefault("file", getattr(_lib, "__file__", "?"))
_meta.setdefault("python", sys.version.split()[0])
print(%(mark)r + json.dumps(_res))
''' % {'mark': MARK}


def _clean_env():
    env = dict(os.environ)
    for k in ('PYTHONPATH', 'PYTHONHOME', 'MXNET_LIBRARY_PATH'):
        env.pop(k, None)
    return env


def mxnet191_python():
    p = os.environ.get('MXNET191_PYTHON') or '/root/mxnet191-venv/bin/python'
    return p if os.path.isfile(p) and os.access(p, os.X_OK) else None


def torch_python():
    p = os.environ.get('TORCH_PYTHON') or '/usr/bin/python3'
    return p if os.path.isfile(p) and os.access(p, os.X_OK) else None


def torch_pypi_python():
    p = os.environ.get('TORCH_PYPI_PYTHON') or '/root/torch-venv/bin/python'
    return p if os.path.isfile(p) and os.access(p, os.X_OK) else None


def run_child(python, kind, snippet, cfg, timeout, env=None, cwd=None):
    """Run snippet's bench() under `python`; return (result dict, None) or (None, reason)."""
    code = HELPERS + '\n' + snippet + '\n' + CHILD_MAIN
    own_tmp = None
    if cwd is None:
        own_tmp = tempfile.mkdtemp(prefix='mxbench_')
        cwd = own_tmp
    try:
        proc = subprocess.run([python, '-c', code, kind, json.dumps(cfg)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              env=env, cwd=cwd, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, 'timed out after %d s' % timeout
    except OSError as e:
        return None, 'cannot run %s: %s' % (python, e)
    finally:
        if own_tmp:
            try:
                os.rmdir(own_tmp)
            except OSError:
                pass
    out = proc.stdout.decode('utf-8', 'replace')
    lines = [l for l in out.splitlines() if l.startswith(MARK)]
    if not lines:
        err = proc.stderr.decode('utf-8', 'replace').strip().splitlines()
        return None, 'exit code %d, no result%s' % (
            proc.returncode, (': ' + err[-1][:200]) if err else '')
    res = json.loads(lines[-1][len(MARK):])
    if '_error' in res:
        return None, res['_error']
    return res, None


def run_inprocess(module, snippet, cfg):
    ns = {}
    try:
        lib = __import__(module)
        import numpy as np  # noqa
    except Exception as e:  # pylint: disable=broad-except
        return None, 'import %s failed: %s: %s' % (module, type(e).__name__, e)
    exec(compile(HELPERS + '\n' + snippet, '<bench-%s>' % module, 'exec'), ns)
    try:
        res = ns['bench'](lib, np, cfg, ns['best_of'])
    except Exception as e:  # pylint: disable=broad-except
        return None, '%s: %s' % (type(e).__name__, e)
    meta = res.setdefault('_meta', {})
    meta.setdefault('version', getattr(lib, '__version__', '?'))
    meta.setdefault('file', getattr(lib, '__file__', '?'))
    meta.setdefault('python', sys.version.split()[0])
    return res, None


def run_all(snippets, cfg, timeout, only=None):
    """snippets: {'mxnet': src, 'numpy': src, 'torch': src}; the mxnet source also
    serves MXNet 1.9.1.  Returns {impl: (result or None, reason or None)}."""
    results = {}
    want = only or IMPLS

    if 'mxnet' in want:
        res, why = run_child(sys.executable, 'mxnet', snippets['mxnet'], cfg, timeout,
                             env=dict(os.environ), cwd=os.getcwd())
        repo_py = os.path.join(REPO, 'python')
        if res is None and why and why.startswith('import mxnet failed') and \
                os.path.isdir(os.path.join(repo_py, 'mxnet')):
            env = dict(os.environ)
            env['PYTHONPATH'] = repo_py + os.pathsep + env.get('PYTHONPATH', '')
            res2, why2 = run_child(sys.executable, 'mxnet', snippets['mxnet'], cfg,
                                   timeout, env=env, cwd=os.getcwd())
            if res2 is not None:
                res, why = res2, None
            else:
                why = '%s; with %s on PYTHONPATH: %s' % (why, repo_py, why2)
        results['mxnet'] = (res, why)

    if 'numpy' in want:
        results['numpy'] = run_inprocess('numpy', snippets['numpy'], cfg)

    if 'mxnet191' in want:
        py = mxnet191_python()
        if py is None:
            results['mxnet191'] = (None, 'no MXNet 1.9.1 python (set MXNET191_PYTHON or run '
                                         'tools/setup_baselines.sh)')
        else:
            res, why = run_child(py, 'mxnet', snippets['mxnet'], cfg, timeout, env=_clean_env())
            if res is not None and res['_meta'].get('version') != '1.9.1':
                why, res = 'expected mxnet 1.9.1 at %s, found %s' % (
                    py, res['_meta'].get('version')), None
            results['mxnet191'] = (res, why)

    for impl, find, var in (('torch', torch_python, 'TORCH_PYTHON'),
                            ('torch_pypi', torch_pypi_python, 'TORCH_PYPI_PYTHON')):
        if impl not in want:
            continue
        py = find()
        if py is None:
            results[impl] = (None, 'no python for %s (set %s)' % (impl, var))
        elif 'torch' not in snippets:
            results[impl] = (None, 'not applicable')
        else:
            results[impl] = run_child(py, 'torch', snippets['torch'], cfg, timeout,
                                      env=_clean_env())
    return results


def run_rounds(snippets, cfg, timeout, only=None, rounds=1, higher_is_better=False):
    """run_all `rounds` times, every implementation once per round (so a slow period of a
    noisy machine hits all of them alike), keeping each case's best value over the rounds.
    An implementation that fails in any round is reported with that round's reason.
    higher_is_better: a bool for every case, or a function of the case name."""
    higher = higher_is_better if callable(higher_is_better) else (lambda case: higher_is_better)
    merged = {}
    for _ in range(max(1, rounds)):
        for impl, (res, why) in run_all(snippets, cfg, timeout, only).items():
            prev = merged.get(impl)
            if prev is None:
                merged[impl] = (res, why)
                continue
            if prev[0] is None:
                continue
            if res is None:
                merged[impl] = (None, why)
                continue
            best = prev[0]
            for case, v in res.items():
                if case.startswith('_') or v is None:
                    continue
                old = best.get(case)
                if old is None or (v > old if higher(case) else v < old):
                    best[case] = v
    for impl, (res, _) in merged.items():
        if res is not None:
            res.setdefault('_meta', {})['rounds'] = max(1, rounds)
    return merged


def _fmt(v):
    if v is None:
        return 'n/a'
    if v >= 100:
        return '%.1f' % v
    if v >= 1:
        return '%.2f' % v
    return '%.3g' % v


def report(bench, cases, results, unit, higher_is_better, baseline_case=None, cfg=None):
    """Print the table and one JSON line per (case, impl).

    speedup_vs_X > 1 means faster than X (for time units: X_time / time; for
    throughput units: value / X_value).  baseline_case maps a case to the case of the
    *numpy* result used as its baseline when numpy has no such case (e.g. autograd)."""
    baseline_case = baseline_case or {}
    print('== %s (%s; %s)' % (bench, unit, 'higher is better' if higher_is_better
                                           else 'lower is better'))
    for impl in IMPLS:
        res, why = results.get(impl, (None, 'not run'))
        if res is None:
            print('%s: unavailable (%s)' % (impl, why))
        else:
            m = res.get('_meta', {})
            print('%s: %s %s%s' % (impl, m.get('version', '?'), m.get('file', ''),
                                   ('  ' + m['note']) if m.get('note') else ''))
            for case, err in sorted(res.get('_errors', {}).items()):
                print('%s: case %s failed (%s)' % (impl, case, err))
    hdr = '%-14s %-10s %12s %14s %18s' % ('case', 'impl', unit, 'speedup/numpy',
                                           'speedup/mxnet191')
    print(hdr)
    print('-' * len(hdr))

    def value(impl, case):
        res = results.get(impl, (None, None))[0]
        return None if res is None else res.get(case)

    def speedup(v, base):
        if v is None or base is None or v <= 0 or base <= 0:
            return None
        return v / base if higher_is_better else base / v

    lines = []
    for case in cases:
        np_base = value('numpy', case)
        if np_base is None and case in baseline_case:
            np_base = value('numpy', baseline_case[case])
        mx_base = value('mxnet191', case)
        for impl in IMPLS:
            res, why = results.get(impl, (None, 'not run'))
            v = value(impl, case)
            s_np, s_mx = speedup(v, np_base), speedup(v, mx_base)
            print('%-14s %-10s %12s %14s %18s' % (
                case, impl, ('unavail.' if res is None else
                             'FAILED' if case in res.get('_errors', {}) else _fmt(v)),
                _fmt(s_np), _fmt(s_mx)))
            rec = {'benchmark': bench, 'case': case, 'impl': impl, 'unit': unit,
                   'value': v, 'speedup_vs_numpy': s_np, 'speedup_vs_mxnet191': s_mx,
                   'version': (res or {}).get('_meta', {}).get('version')}
            if res is None:
                rec['unavailable'] = why
            elif case in res.get('_errors', {}):
                rec['error'] = res['_errors'][case]
            if cfg:
                rec['config'] = cfg
            lines.append(rec)
    for rec in lines:
        print(json.dumps(rec, sort_keys=True))


def main_common(argv, description, rounds_default=None):
    """Parse the common flags; --rounds (see run_rounds) exists when rounds_default is set."""
    import argparse
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument('--quick', action='store_true', help='tiny smoke run')
    ap.add_argument('--only', default='', help='comma list of: ' + ','.join(IMPLS))
    ap.add_argument('--timeout', type=int, default=45,
                    help='seconds per child process (default 45)')
    if rounds_default is not None:
        ap.add_argument('--rounds', type=int, default=rounds_default,
                        help='run every implementation this many times, interleaved, and '
                             'keep the best value of each case (default %d)' % rounds_default)
    args = ap.parse_args(argv)
    only = [x for x in args.only.split(',') if x] or None
    if only:
        bad = [x for x in only if x not in IMPLS]
        if bad:
            ap.error('unknown impl %s' % bad)
    return args, only


def elapsed_note(t0):
    print('(total wall time %.1f s)' % (time.time() - t0))
