"""A short libFuzzer run (tests/fuzz/run.sh) of the record reader and image decoder over the
committed seed corpus: any crash, leak or undefined behaviour fails the test."""
import os
import shutil
import subprocess

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))


@pytest.mark.skipif(shutil.which('clang++') is None, reason='clang++ (libFuzzer) not installed')
@pytest.mark.skipif(not os.path.exists('/usr/include/opencv4'), reason='libopencv-dev missing')
def test_short_fuzz_run_finds_nothing():
    out = subprocess.run(['bash', os.path.join(REPO, 'tests', 'fuzz', 'run.sh'), '3000'],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert 'Done 3000 runs' in out.stderr
