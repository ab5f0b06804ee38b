"""Helpers of the distributed KVStore tests (test_kvstore_dist*.py): run a job of a scheduler,
servers and workers on 127.0.0.1 through tools/launch.py --launcher local, with a wall-clock
limit, so a hang fails the test instead of stalling CI."""
import os
import subprocess
import sys
import textwrap

import pytest

import mxnet as mx

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))
LAUNCH = os.path.join(REPO, 'tools', 'launch.py')
PYTHONPATH = os.path.dirname(os.path.dirname(os.path.abspath(mx.__file__)))

PRELUDE = """
import os, sys, numpy as np, mxnet as mx
"""


def job_env(pythonpath=(), **extra):
    """The environment of a job's processes: this mxnet first on the path (after the
    folders in pythonpath), quick heartbeats, one engine thread."""
    env = dict(os.environ)
    env['PYTHONPATH'] = os.pathsep.join(list(pythonpath) + [PYTHONPATH, env.get('PYTHONPATH', '')])
    env.update({'PS_HEARTBEAT_INTERVAL': '0.5', 'PS_HEARTBEAT_TIMEOUT': '20',
                'PS_CONNECT_TIMEOUT': '60', 'OMP_NUM_THREADS': '1',
                'MXNET_CPU_WORKER_NTHREADS': '1'})
    for k in ('DMLC_ROLE', 'DMLC_PS_ROOT_URI', 'DMLC_PS_ROOT_PORT'):
        env.pop(k, None)
    env.update({k: str(v) for k, v in extra.items()})
    return env


def launch_script(script, args=(), workers=2, servers=2, timeout=120, cwd=None, pythonpath=(),
                  **env):
    """Run the script file (with args) as a job; return the launcher's (status, output)."""
    p = subprocess.Popen([sys.executable, LAUNCH, '-n', str(workers), '-s', str(servers),
                          '--launcher', 'local', sys.executable, str(script)] + list(args),
                         env=job_env(pythonpath, **env), cwd=cwd, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    try:
        out = p.communicate(timeout=timeout)[0]
    except subprocess.TimeoutExpired:
        p.terminate()  # the launcher ends the job's processes
        out = p.communicate(timeout=30)[0]
        pytest.fail('the job did not finish in %d s:\n%s' % (timeout, out))
    return p.returncode, out


def launch(tmp_path, body, **kw):
    """Run body (a worker script, after PRELUDE) as a job; return (status, output)."""
    script = tmp_path / 'job.py'
    script.write_text(PRELUDE + textwrap.dedent(body))
    return launch_script(script, **kw)


def run_ok(tmp_path, body, **kw):
    status, out = launch(tmp_path, body, **kw)
    assert status == 0, out
    return out
