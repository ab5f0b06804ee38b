"""MXNET_EXEC_NUM_TEMP: the temp spaces a bound executor gives its operators, per context, and
the TempSpace line of Executor.debug_str() that counts them. Also MXNET_ENABLE_CUDA_GRAPHS,
read at bind."""
import os
import subprocess
import sys
import textwrap

import mxnet as mx

_SCRIPT = textwrap.dedent("""
    import numpy as np
    import mxnet as mx
    data = mx.sym.Variable('data')
    net = data
    for i in range(3):  # three Convolutions: each asks for temp space
        net = mx.sym.Convolution(net, num_filter=4, kernel=(3, 3), pad=(1, 1), name='c%d' % i)
        net = mx.sym.Activation(net, act_type='relu', name='r%d' % i)
    ex = net.simple_bind(mx.cpu(0), data=(2, 4, 8, 8), grad_req='null')
    rng = np.random.RandomState(0)
    for name, arr in ex.arg_dict.items():
        arr[:] = rng.uniform(-1, 1, arr.shape)
    out = ex.forward()[0].asnumpy()
    np.save(OUT_FILE, out)
    print([l for l in ex.debug_str().splitlines() if 'TempSpace' in l][0])
""")


def _run(tmp_path, env):
    out_file = str(tmp_path / ("out_%d.npy" % len(os.listdir(tmp_path))))
    full = dict(os.environ)
    full.update(env)
    full["PYTHONPATH"] = os.path.dirname(os.path.dirname(mx.__file__)) + os.pathsep + \
        full.get("PYTHONPATH", "")
    res = subprocess.run([sys.executable, "-c", _SCRIPT.replace("OUT_FILE", repr(out_file))], env=full,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    import numpy as np
    return res.stdout.strip().splitlines()[-1], np.load(out_file), res.stderr


def test_default_is_one_temp_space_per_context(tmp_path):
    line, _, _ = _run(tmp_path, {})
    assert line == "Total 1 TempSpace resource requested"


def test_num_temp_spreads_the_operators_over_more_copies(tmp_path):
    one, a, _ = _run(tmp_path, {"MXNET_EXEC_NUM_TEMP": "1"})
    three, b, _ = _run(tmp_path, {"MXNET_EXEC_NUM_TEMP": "3", "MXNET_CPU_TEMP_COPY": "4"})
    assert one == "Total 1 TempSpace resource requested"
    assert three == "Total 3 TempSpace resource requested"
    import numpy as np
    np.testing.assert_array_equal(a, b)
    # more than the operators that ask, or than the device's copies, adds nothing
    many, _, _ = _run(tmp_path, {"MXNET_EXEC_NUM_TEMP": "8", "MXNET_CPU_TEMP_COPY": "2"})
    assert many == "Total 2 TempSpace resource requested"


def test_cuda_graphs_variable_is_read_at_bind(tmp_path):
    _, _, err = _run(tmp_path, {"MXNET_ENABLE_CUDA_GRAPHS": "1"})
    assert "MXNET_ENABLE_CUDA_GRAPHS" in err
    _, _, quiet = _run(tmp_path, {})
    assert "MXNET_ENABLE_CUDA_GRAPHS" not in quiet


def test_variables_are_documented_with_their_defaults():
    table = {v[0]: v for v in mx._ffi.env_vars()}
    assert table["MXNET_EXEC_NUM_TEMP"][1:3] == ("int", "1")
    assert table["MXNET_ENABLE_CUDA_GRAPHS"][1:3] == ("bool", "0")


def test_an_executor_without_temp_space_ops_takes_none():
    x = mx.sym.Variable('x')
    ex = mx.sym.relu(x).simple_bind(mx.cpu(), x=(2, 2), grad_req='null')
    assert ex.debug_str().splitlines()[-1] == "Total 0 TempSpace resource requested"
