"""Environment variables and engines, each checked in a fresh subprocess."""
import os
import subprocess
import sys

import numpy as np
import pytest

import mxnet as mx

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def run_py(code, env=None, timeout=120):
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=full_env, timeout=timeout)


WORKLOAD = """
import mxnet as mx, numpy as np
a = mx.nd.array(np.arange(1000, dtype=np.float32))
acc = mx.nd.zeros((1000,))
for i in range(200):
    acc = acc * 0.5 + a
print(mx._ffi.engine_type(), float(acc.asnumpy().sum()))
"""


@pytest.mark.parametrize("engine", ["NaiveEngine", "ThreadedEngine", "ThreadedEnginePerDevice",
                                    "ThreadedEnginePerDeviceAsync"])
def test_every_engine_type_gives_the_same_result(engine):
    r = run_py(WORKLOAD, {"MXNET_ENGINE_TYPE": engine, "MXNET_CPU_WORKER_NTHREADS": "2"})
    assert r.returncode == 0, r.stderr
    name, total = r.stdout.split()
    assert name == engine.replace("Async", "")
    assert abs(float(total) - 2 * 499500.0) < 1.0


def test_malformed_engine_type_warns_and_uses_default():
    r = run_py(WORKLOAD, {"MXNET_ENGINE_TYPE": "Bogus"})
    assert r.returncode == 0, r.stderr
    assert "MXNET_ENGINE_TYPE" in r.stderr and "Bogus" in r.stderr
    assert r.stdout.split()[0] == "ThreadedEnginePerDevice"


def test_malformed_thread_count_warns_naming_the_variable():
    r = run_py(WORKLOAD, {"MXNET_CPU_WORKER_NTHREADS": "abc"})
    assert r.returncode == 0, r.stderr
    assert "MXNET_CPU_WORKER_NTHREADS" in r.stderr and "abc" in r.stderr


def test_pool_type_variable_selects_the_pool():
    code = ("import mxnet as mx\nmx.nd.ones((1000,)).asnumpy()\n"
            "print(mx._ffi.storage_stats(1, 0)['pool_type'])")
    for pool in ("Naive", "Round", "Unpooled"):
        r = run_py(code, {"MXNET_CPU_MEM_POOL_TYPE": pool})
        assert r.returncode == 0, r.stderr
        assert r.stdout.strip() == pool


def test_storage_counters_track_allocations():
    mx.nd.waitall()
    before = mx._ffi.storage_stats(1, 0)["bytes_in_use"]
    a = mx.nd.zeros((1024, 256))
    a.wait_to_read()
    during = mx._ffi.storage_stats(1, 0)["bytes_in_use"]
    assert during - before >= 1024 * 256 * 4
    del a
    mx.nd.waitall()
    after = mx._ffi.storage_stats(1, 0)["bytes_in_use"]
    assert after <= during - 1024 * 256 * 4


TEMP_SPACE = """
import mxnet as mx, numpy as np
n = 1 << 18
x = mx.nd.array(np.arange(n, dtype=np.int32), dtype="int32")
mx.nd.waitall()
stats = lambda: mx._ffi.storage_stats(1, 0)["bytes_in_use"]
before = stats()
# An int32 array plus a float scalar computes in a float dtype: the input is converted into
# temp space first (n elements of the output dtype), beside the output itself.
outs = [mx.nd._internal._plus_scalar(x, scalar=0.5, is_int=False) for _ in range(3)]
mx.nd.waitall()
after = stats()
size = np.dtype(outs[0].dtype).itemsize
ok = all(np.array_equal(o.asnumpy(), np.arange(n) + 0.5) for o in outs)
print((after - before - 3 * n * size) // (n * size), ok)
"""


@pytest.mark.parametrize("copies", [1, 2])
def test_temp_space_is_storage_memory_in_MXNET_CPU_TEMP_COPY_copies(copies):
    r = run_py(TEMP_SPACE, {"MXNET_CPU_TEMP_COPY": str(copies), "MXNET_ENGINE_TYPE": "NaiveEngine"})
    assert r.returncode == 0, r.stderr
    temp_copies, ok = r.stdout.split()
    # Each copy used grows once to the request and is kept for the next op (as in MXNet);
    # three ops in turn use min(3, copies) copies.
    assert int(temp_copies) == copies
    assert ok == "True"


def test_temp_space_appears_in_the_memory_profile(tmp_path):
    code = """
import json, mxnet as mx, numpy as np
from mxnet import profiler
n = 1 << 16
x = mx.nd.array(np.arange(n, dtype=np.int32), dtype="int32")
mx.nd.waitall()
profiler.set_config(profile_memory=True, profile_imperative=True, filename=%r)
profiler.set_state("run")
y = mx.nd._internal._plus_scalar(x, scalar=0.25, is_int=False)
mx.nd.waitall()
profiler.set_state("stop")
profiler.dump()
events = json.load(open(%r))["traceEvents"]
sizes = [e["args"]["size"] for e in events if e.get("cat") == "memory" and e["name"] == "alloc"]
nbytes = n * np.dtype(y.dtype).itemsize
print(sizes.count(nbytes), np.array_equal(y.asnumpy(), np.arange(n) + 0.25))
""" % (str(tmp_path / "p.json"), str(tmp_path / "p.json"))
    r = run_py(code)
    assert r.returncode == 0, r.stderr
    count, ok = r.stdout.split()
    assert int(count) == 2, "expected allocs of the output and of the temp space: " + r.stdout
    assert ok == "True"


def test_exit_with_queued_work_neither_hangs_nor_crashes():
    code = ("import mxnet as mx\nx = mx.nd.ones((200, 200))\n"
            "for _ in range(300):\n    x = mx.nd.dot(x, x) * 0.001\n")
    r = run_py(code, timeout=120)
    assert r.returncode == 0, r.stderr


def test_forked_child_has_a_working_engine():
    code = """
import os, mxnet as mx
a = mx.nd.ones((10,)) * 3
a.wait_to_read()
pid = os.fork()
if pid == 0:
    b = (mx.nd.ones((10,)) * 2 + a).asnumpy()
    os._exit(0 if b.sum() == 50 else 3)
_, status = os.waitpid(pid, 0)
c = (a + 1).asnumpy()
print(os.WEXITSTATUS(status), c.sum())
"""
    r = run_py(code, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["0", "40.0"]


def test_library_path_variable_is_honoured(tmp_path):
    lib = mx.libinfo.find_lib_path()[0]
    code = "import mxnet as mx; print(mx.libinfo.find_lib_path()[0])"
    r = run_py(code, {"MXNET_LIBRARY_PATH": os.path.dirname(lib)})
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == lib
    r = run_py(code, {"MXNET_LIBRARY_PATH": str(tmp_path / "missing.so")})
    assert r.returncode != 0 and "MXNET_LIBRARY_PATH" in r.stderr


def test_env_var_doc_is_generated_from_the_registry():
    sys.path.insert(0, os.path.join(REPO, "tools"))
    try:
        import gen_env_var_doc
    finally:
        sys.path.pop(0)
    with open(os.path.join(REPO, "docs", "env_var.md")) as f:
        assert f.read() == gen_env_var_doc.render(mx.util.env_var_table()), \
            "docs/env_var.md is stale: run python tools/gen_env_var_doc.py"


def test_every_registered_variable_is_documented_with_a_default():
    for name, typ, default, choices, doc in mx.util.env_var_table():
        assert name.startswith(("MXNET_", "DMLC_", "OMP_", "GOMP_", "PS_", "NNVM_"))
        assert typ in ("int", "bool", "float", "string")
        assert doc


# MXNet 1.9.1's feature keys in its order (its include/mxnet/libinfo.h); ONEDNN is appended.
MXNET191_FEATURES = [
    "CUDA", "CUDNN", "NCCL", "CUDA_RTC", "TENSORRT", "CPU_SSE", "CPU_SSE2", "CPU_SSE3",
    "CPU_SSE4_1", "CPU_SSE4_2", "CPU_SSE4A", "CPU_AVX", "CPU_AVX2", "OPENMP", "SSE", "F16C",
    "JEMALLOC", "BLAS_OPEN", "BLAS_ATLAS", "BLAS_MKL", "BLAS_APPLE", "LAPACK", "MKLDNN",
    "OPENCV", "CAFFE", "PROFILER", "DIST_KVSTORE", "CXX14", "INT64_TENSOR_SIZE",
    "SIGNAL_HANDLER", "DEBUG", "TVM_OP",
]


def test_features_list_every_mxnet191_key_in_its_order():
    names = [f.name for f in mx.runtime.feature_list()]
    assert names[:len(MXNET191_FEATURES)] == MXNET191_FEATURES
    assert names[len(MXNET191_FEATURES):] == ["ONEDNN"]


def test_features_report_what_the_build_really_contains():
    feats = mx.runtime.Features()
    assert feats.is_enabled("BLAS_OPEN") and feats.is_enabled("LAPACK")
    assert feats.is_enabled("OPENMP")
    assert feats.is_enabled("PROFILER") and feats.is_enabled("CXX14")
    # No code for these exists yet, so they are off whatever the build options said.
    for name in ("CUDA", "TENSORRT", "CAFFE"):
        assert not feats.is_enabled(name), name
    # oneDNN under its old and new names: both on exactly when the library links it.
    assert feats.is_enabled("MKLDNN") == feats.is_enabled("ONEDNN")
    with pytest.raises(RuntimeError):
        feats.is_enabled("NOT_A_FEATURE")


def test_cpu_features_follow_the_compiler_target():
    # CPU_* come from the compiler's target macros: x86-64 always has SSE and SSE2, and the
    # default -march of a Release build does not enable AVX2.
    import platform
    feats = mx.runtime.Features()
    if platform.machine() in ("x86_64", "AMD64"):
        assert feats.is_enabled("CPU_SSE") and feats.is_enabled("CPU_SSE2")
        assert not feats.is_enabled("CPU_AVX2")
    else:
        assert not any(feats.is_enabled(n) for n in MXNET191_FEATURES if n.startswith("CPU_"))


def test_memory_stays_bounded_when_python_runs_far_ahead_of_the_engine():
    # 20k dependent ops queue behind one slow op; outputs take memory only when their op runs,
    # so the chain needs a few blocks, not 2.6 GB (which the 2 GiB address-space cap forbids).
    code = """
import resource
resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
import mxnet as mx
big = mx.nd.ones((1200, 1200))
slow = mx.nd.dot(big, big)
a = mx.nd.ones((128, 128)) / 128
x = mx.nd.slice(slow, begin=(0, 0), end=(128, 128)) / 1200
for _ in range(20000):
    x = mx.nd.dot(a, x) * 1.0
value = float(x[0, 0].asscalar())
print(value, mx._ffi.storage_stats(1, 0)["peak_bytes_in_use"])
"""
    r = run_py(code, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    value, peak = r.stdout.split()
    assert abs(float(value) - 1.0) < 1e-3
    assert int(peak) < 64 << 20


@pytest.mark.parametrize("safe", ["0", "1"])
def test_float16_reductions_accumulate_in_float32_whatever_safe_accumulation_says(safe):
    # MXNet 1.9 without MXNET_SAFE_ACCUMULATION=1 summed float16 in float16 (inf past 65504)
    code = ("import mxnet as mx, numpy as np\n"
            "x = mx.nd.ones((100000,), dtype='float16')\n"
            "print(float(x.mean().asscalar()), float(mx.nd.norm(x).asscalar()))\n")
    r = run_py(code, {"MXNET_SAFE_ACCUMULATION": safe})
    assert r.returncode == 0, r.stderr
    mean, norm = map(float, r.stdout.split())
    assert mean == 1.0 and abs(norm - 316.2) < 0.5


def test_operator_tuning_variables_keep_results_exact():
    code = ("import mxnet as mx, numpy as np\n"
            "a = np.arange(200000, dtype=np.float32)\n"
            "print(float((mx.nd.array(a) * 2).sum().asscalar()) == float(np.float32((a * 2).astype(np.float64).sum())))\n")
    for env in ({"MXNET_USE_OPERATOR_TUNING": "0"}, {"MXNET_ENABLE_OPERATOR_TUNING": "0"},
                {"MXNET_USE_NUM_CORES_OPERATOR_TUNING": "1"},
                {"MXNET_USE_NUM_CORES_OPERATOR_TUNING": "64"}):
        r = run_py(code, env)
        assert r.returncode == 0 and r.stdout.strip() == "True", (env, r.stderr)


def test_reductions_are_bit_identical_whatever_the_tuning_variables_say():
    # a long strided reduction (few output tiles) is split into chunks; the chunking must not
    # follow the parallel threshold, or the summation order would change with it
    code = ("import mxnet as mx, numpy as np\n"
            "rs = np.random.RandomState(0)\n"
            "a = mx.nd.array(rs.standard_normal((300000, 3)), dtype='float64')\n"
            "print(mx.nd.sum(a, axis=0).asnumpy().tobytes().hex())\n")
    outs = set()
    for env in ({}, {"MXNET_USE_NUM_CORES_OPERATOR_TUNING": "16"},
                {"MXNET_USE_NUM_CORES_OPERATOR_TUNING": "1"}, {"MXNET_USE_OPERATOR_TUNING": "0"},
                {"OMP_NUM_THREADS": "1"}):
        r = run_py(code, env)
        assert r.returncode == 0, (env, r.stderr)
        outs.add(r.stdout.strip())
    assert len(outs) == 1


def test_an_error_is_reported_once_whichever_array_reports_it():
    # One failed op poisons its output and every array computed from it; the error is one
    # object (as in MXNet 1.9.1): once a wait reports it, no array holding it raises it again.
    a, b = mx.nd.random.normal(0, -1, (2, 2)).copyto(mx.cpu())
    with pytest.raises(mx.MXNetError, match="non-negative"):
        a.asnumpy()
    b.asnumpy()
    mx.nd.waitall()
    c = mx.nd.random.normal(0, -1, (2, 2))
    d = c * 2
    with pytest.raises(mx.MXNetError, match="non-negative"):
        mx.nd.waitall()
    d.asnumpy()
    c.asnumpy()
    e = c + 1  # its input is clean again, so the op runs
    assert e.shape == (2, 2)
    e.wait_to_read()


@pytest.mark.parametrize("given, expected", [
    ({}, "None 10000"),
    ({"OMP_WAIT_POLICY": "passive"}, "passive None"),
    ({"GOMP_SPINCOUNT": "1000"}, "None 1000"),
])
def test_omp_spins_briefly_by_default_unless_the_user_chose(given, expected):
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    env.update(given)
    out = subprocess.run([sys.executable, "-c",
                          "import os, mxnet; print(os.environ.get('OMP_WAIT_POLICY'), "
                          "os.environ.get('GOMP_SPINCOUNT'))"],
                         env=env, capture_output=True, text=True, check=True)
    assert " ".join(out.stdout.split()[-2:]) == expected
