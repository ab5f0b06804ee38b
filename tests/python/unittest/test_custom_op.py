"""Custom operators in Python (mx.operator): forward, backward, req kinds, aux states,
errors, threads, engines, profiling and exit with work pending."""
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd
from mxnet.test_utils import assert_almost_equal



class Sqr(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0] * in_data[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], 2 * in_data[0] * out_grad[0])


@mx.operator.register("test_sqr")
class SqrProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=True)

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return Sqr()


def test_forward_computes_on_the_engine():
    x = mx.nd.array([[1, 2], [3, -4]])
    y = mx.nd.Custom(x, op_type="test_sqr")
    assert isinstance(y, mx.nd.NDArray)
    assert y.shape == (2, 2) and y.dtype == np.float32
    assert_almost_equal(y.asnumpy(), x.asnumpy() ** 2)


def test_backward_gives_input_gradient():
    x = mx.nd.array([1.0, -2.0, 3.0])
    x.attach_grad()
    with autograd.record():
        y = mx.nd.Custom(x, op_type="test_sqr")
        z = y * 3
    z.backward()
    assert_almost_equal(x.grad.asnumpy(), 6 * x.asnumpy())


def test_grad_req_add_accumulates_custom_gradient():
    x = mx.nd.array([1.0, 2.0])
    x.attach_grad(grad_req="add")
    for _ in range(2):
        with autograd.record():
            y = mx.nd.Custom(x, op_type="test_sqr")
        y.backward()
    assert_almost_equal(x.grad.asnumpy(), 2 * 2 * x.asnumpy())


class Scaled(mx.operator.CustomOp):
    """Two outputs and kwargs (as strings); remembers what forward saw for backward."""
    def __init__(self, scale):
        super().__init__()
        self.scale = scale
        self.seen_train = None

    def forward(self, is_train, req, in_data, out_data, aux):
        self.seen_train = is_train
        self.assign(out_data[0], req[0], in_data[0] * self.scale)
        self.assign(out_data[1], req[1], in_data[0] + in_data[1])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        assert self.seen_train is True
        self.assign(in_grad[0], req[0], out_grad[0] * self.scale + out_grad[1])
        self.assign(in_grad[1], req[1], out_grad[1])


@mx.operator.register("test_scaled")
class ScaledProp(mx.operator.CustomOpProp):
    def __init__(self, scale="1"):
        super().__init__()
        assert isinstance(scale, str)
        self.scale = float(scale)

    def list_arguments(self):
        return ["a", "b"]

    def list_outputs(self):
        return ["scaled", "sum"]

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0], in_shape[0]], []

    def create_operator(self, ctx, in_shapes, in_dtypes):
        assert in_shapes == [[3], [3]] and in_dtypes == [0, 0]
        assert ctx == mx.cpu()
        return Scaled(self.scale)


def test_kwargs_reach_prop_as_strings_and_multiple_outputs():
    a = mx.nd.array([1, 2, 3])
    b = mx.nd.array([10, 20, 30])
    a.attach_grad()
    b.attach_grad()
    with autograd.record():
        s, t = mx.nd.Custom(a, b, op_type="test_scaled", scale=2.5)
        loss = s + t
    assert_almost_equal(s.asnumpy(), [2.5, 5, 7.5])
    assert_almost_equal(t.asnumpy(), [11, 22, 33])
    loss.backward()
    assert_almost_equal(a.grad.asnumpy(), [3.5, 3.5, 3.5])
    assert_almost_equal(b.grad.asnumpy(), [1, 1, 1])


def test_out_argument_receives_result():
    x = mx.nd.array([1, 2, 3])
    out = mx.nd.zeros((3,))
    mx.nd.Custom(x, op_type="test_sqr", out=out)
    assert_almost_equal(out.asnumpy(), [1, 4, 9])


def test_assign_honours_req_kinds():
    op = mx.operator.CustomOp()
    dst = mx.nd.array([1.0, 1.0])
    op.assign(dst, "null", mx.nd.array([5.0, 5.0]))
    assert_almost_equal(dst.asnumpy(), [1, 1])
    op.assign(dst, "write", mx.nd.array([2.0, 3.0]))
    assert_almost_equal(dst.asnumpy(), [2, 3])
    op.assign(dst, "inplace", mx.nd.array([4.0, 5.0]))
    assert_almost_equal(dst.asnumpy(), [4, 5])
    op.assign(dst, "add", mx.nd.array([1.0, 1.0]))
    assert_almost_equal(dst.asnumpy(), [5, 6])
    with pytest.raises(ValueError):
        op.assign(dst, "bogus", dst)


class Reqs(mx.operator.CustomOp):
    seen = []

    def forward(self, is_train, req, in_data, out_data, aux):
        Reqs.seen.append(("forward", list(req)))
        self.assign(out_data[0], req[0], in_data[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        Reqs.seen.append(("backward", list(req)))
        self.assign(in_grad[0], req[0], out_grad[0])


@mx.operator.register("test_reqs")
class ReqsProp(mx.operator.CustomOpProp):
    def create_operator(self, ctx, in_shapes, in_dtypes):
        return Reqs()


def test_imperative_calls_pass_write_req():
    Reqs.seen.clear()
    x = mx.nd.ones((2,))
    x.attach_grad()
    with autograd.record():
        y = mx.nd.Custom(x, op_type="test_reqs")
    y.backward()
    mx.nd.waitall()
    assert Reqs.seen == [("forward", ["write"]), ("backward", ["write"])]


class RunningMean(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        aux[0][:] = aux[0] * 0.5 + in_data[0].mean() * 0.5
        self.assign(out_data[0], req[0], in_data[0] - aux[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], out_grad[0])


@mx.operator.register("test_running_mean")
class RunningMeanProp(mx.operator.CustomOpProp):
    def list_auxiliary_states(self):
        return ["moving"]

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0]], [[1]]

    def create_operator(self, ctx, in_shapes, in_dtypes):
        assert in_shapes == [[4], [1]]
        return RunningMean()


def test_aux_states_are_updated_in_place():
    x = mx.nd.array([1, 2, 3, 6])
    moving = mx.nd.zeros((1,))
    y = mx.nd.Custom(x, moving, op_type="test_running_mean")
    assert_almost_equal(moving.asnumpy(), [1.5])
    assert_almost_equal(y.asnumpy(), [-0.5, 0.5, 1.5, 4.5])
    x.attach_grad()
    with autograd.record():
        y = mx.nd.Custom(x, moving, op_type="test_running_mean")
    y.backward()
    assert_almost_equal(moving.asnumpy(), [2.25])
    assert_almost_equal(x.grad.asnumpy(), [1, 1, 1, 1])


class NoTopGrad(mx.operator.CustomOp):
    seen = {}

    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0] * 2)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        NoTopGrad.seen["out_grad_empty"] = out_grad[0].size == 0 or out_grad[0].shape == ()
        self.assign(in_grad[0], req[0], mx.nd.ones_like(in_data[0]) * 7)


@mx.operator.register("test_no_top_grad")
class NoTopGradProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=False)

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return NoTopGrad()


def test_need_top_grad_false_leaves_out_grad_undeclared():
    prop = NoTopGradProp()
    assert prop.declare_backward_dependency([0], [1], [2]) == [1, 2]
    assert SqrProp().declare_backward_dependency([0], [1], [2]) == [0, 1, 2]
    x = mx.nd.array([1, 2])
    x.attach_grad()
    with autograd.record():
        y = mx.nd.Custom(x, op_type="test_no_top_grad")
    y.backward()
    assert_almost_equal(x.grad.asnumpy(), [7, 7])
    assert NoTopGrad.seen["out_grad_empty"]


class Fails(mx.operator.CustomOp):
    def __init__(self, where):
        super().__init__()
        self.where = where

    def forward(self, is_train, req, in_data, out_data, aux):
        if self.where == "forward":
            raise ValueError("forward exploded")
        self.assign(out_data[0], req[0], in_data[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        if self.where == "backward":
            raise ValueError("backward exploded")
        self.assign(in_grad[0], req[0], out_grad[0])


@mx.operator.register("test_fails")
class FailsProp(mx.operator.CustomOpProp):
    def __init__(self, where):
        super().__init__()
        self.where = where

    def infer_shape(self, in_shape):
        if self.where == "infer_shape":
            raise RuntimeError("cannot infer")
        return in_shape, [in_shape[0]], []

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return Fails(self.where)


def test_error_in_forward_surfaces_at_wait():
    y = mx.nd.Custom(mx.nd.ones((3,)), op_type="test_fails", where="forward")
    with pytest.raises(mx.MXNetError, match="forward exploded"):
        y.asnumpy()
    # the engine and the worker keep going
    z = mx.nd.Custom(mx.nd.ones((3,)), op_type="test_sqr")
    assert_almost_equal(z.asnumpy(), [1, 1, 1])


def test_error_in_forward_reaches_waitall_and_dependents():
    y = mx.nd.Custom(mx.nd.ones((3,)), op_type="test_fails", where="forward")
    z = y + 1
    with pytest.raises(mx.MXNetError, match="forward exploded"):
        z.wait_to_read()
    y2 = mx.nd.Custom(mx.nd.ones((3,)), op_type="test_fails", where="forward")
    del y2
    with pytest.raises(mx.MXNetError, match="forward exploded"):
        mx.nd.waitall()


def test_error_in_backward_surfaces_at_wait():
    x = mx.nd.ones((3,))
    x.attach_grad()
    with autograd.record():
        y = mx.nd.Custom(x, op_type="test_fails", where="backward")
    y.backward()
    with pytest.raises(mx.MXNetError, match="backward exploded"):
        x.grad.asnumpy()


def test_error_in_infer_shape_raises_at_call():
    with pytest.raises(mx.MXNetError, match="cannot infer"):
        mx.nd.Custom(mx.nd.ones((3,)), op_type="test_fails", where="infer_shape")


def test_error_in_prop_init_and_unknown_op_type_raise():
    with pytest.raises(mx.MXNetError, match="__init__"):
        mx.nd.Custom(mx.nd.ones((3,)), op_type="test_fails")  # missing 'where'
    with pytest.raises(mx.MXNetError, match="not_registered_anywhere"):
        mx.nd.Custom(mx.nd.ones((3,)), op_type="not_registered_anywhere")
    with pytest.raises(mx.MXNetError, match="op_type"):
        mx.nd.Custom(mx.nd.ones((3,)))


def test_wrong_number_of_inputs_raises():
    with pytest.raises(mx.MXNetError, match="input"):
        mx.nd.Custom(mx.nd.ones((3,)), mx.nd.ones((3,)), op_type="test_sqr")


@mx.operator.register("test_bad_infer")
class BadInferProp(mx.operator.CustomOpProp):
    def infer_shape(self, in_shape):
        return in_shape, []


def test_infer_shape_returning_wrong_count_raises():
    with pytest.raises(mx.MXNetError, match="expecting 1 entries in returned output"):
        mx.nd.Custom(mx.nd.ones((3,)), op_type="test_bad_infer")


class Cast(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0].astype("float64"))


@mx.operator.register("test_cast")
class CastProp(mx.operator.CustomOpProp):
    def infer_type(self, in_type):
        assert in_type == [np.float32]
        return in_type, [np.float64], []

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return Cast()


def test_infer_type_sets_output_dtype():
    y = mx.nd.Custom(mx.nd.ones((2,)), op_type="test_cast")
    assert y.dtype == np.float64
    assert_almost_equal(y.asnumpy(), [1, 1])


def test_many_ops_in_flight_keep_order():
    x = mx.nd.array([1.0001])
    for _ in range(100):
        x = mx.nd.Custom(x, op_type="test_sqr")
        x = x / x.max()
    assert_almost_equal(x.asnumpy(), [1.0])
    outs = [mx.nd.Custom(mx.nd.full((4,), i), op_type="test_sqr") for i in range(200)]
    for i, o in enumerate(outs):
        assert_almost_equal(o.asnumpy(), np.full((4,), i * i))


def test_custom_ops_from_several_python_threads():
    results = {}

    def work(k):
        y = mx.nd.full((3,), k)
        for _ in range(20):
            y = mx.nd.Custom(y, op_type="test_sqr") ** 0.5
        results[k] = y.asnumpy()

    threads = [threading.Thread(target=work, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in range(6):
        assert_almost_equal(results[k], np.full((3,), k))


class Nested(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        inner = mx.nd.Custom(in_data[0], op_type="test_sqr")
        self.assign(out_data[0], req[0], inner + 1)


@mx.operator.register("test_nested")
class NestedProp(mx.operator.CustomOpProp):
    def create_operator(self, ctx, in_shapes, in_dtypes):
        return Nested()


def test_custom_op_may_call_another_custom_op():
    y = mx.nd.Custom(mx.nd.array([2, 3]), op_type="test_nested")
    assert_almost_equal(y.asnumpy(), [5, 10])


@pytest.mark.skipif(mx._ffi.engine_type() == "NaiveEngine",
                    reason="NaiveEngine runs callbacks in the invoking thread")
def test_callbacks_run_on_a_worker_thread():
    seen = []

    class Where(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            seen.append(threading.get_ident())
            self.assign(out_data[0], req[0], in_data[0])

    @mx.operator.register("test_where")
    class WhereProp(mx.operator.CustomOpProp):
        def create_operator(self, ctx, in_shapes, in_dtypes):
            return Where()

    mx.nd.Custom(mx.nd.ones((1,)), op_type="test_where").wait_to_read()
    assert seen and seen[0] != threading.get_ident()


def test_operator_listing_helpers():
    assert "Custom" in mx.operator.get_all_registered_operators()
    args = mx.operator.get_operator_arguments("Custom")
    assert args.narg == 2 and args.names == ["data", "op_type"]


SCRIPT_HEADER = """
import mxnet as mx, numpy as np
class Slow(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        import time; time.sleep(0.01)
        self.assign(out_data[0], req[0], in_data[0] + 1)
@mx.operator.register("slow")
class SlowProp(mx.operator.CustomOpProp):
    def create_operator(self, ctx, shapes, dtypes):
        return Slow()
"""


def run_script(body, env=None):
    full_env = dict(os.environ)
    # The same mxnet as this test run: the installed package in CI, python/ in a dev build.
    pkg_parent = os.path.dirname(os.path.dirname(os.path.abspath(mx.__file__)))
    full_env["PYTHONPATH"] = pkg_parent + os.pathsep + full_env.get("PYTHONPATH", "")
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-c", SCRIPT_HEADER + body], capture_output=True,
                          text=True, env=full_env, timeout=120)


@pytest.mark.parametrize("engine", ["NaiveEngine", "ThreadedEngine", "ThreadedEnginePerDevice"])
def test_results_under_each_engine(engine):
    r = run_script("""
x = mx.nd.ones((3,))
y = mx.nd.Custom(x, op_type="slow") * 2
z = mx.nd.Custom(mx.nd.Custom(y, op_type="slow"), op_type="slow")
print(y.asnumpy().tolist(), z.asnumpy().tolist())
""", {"MXNET_ENGINE_TYPE": engine})
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[4.0, 4.0, 4.0] [6.0, 6.0, 6.0]"


def test_process_exits_cleanly_with_custom_ops_pending():
    r = run_script("""
x = mx.nd.ones((10,))
ys = [mx.nd.Custom(x, op_type="slow") for _ in range(50)]
print("pushed")
""")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "pushed"


def test_process_exits_cleanly_with_a_failed_custom_op_never_waited():
    r = run_script("""
class Bad(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        raise ValueError("never waited")
@mx.operator.register("bad")
class BadProp(mx.operator.CustomOpProp):
    def create_operator(self, ctx, shapes, dtypes):
        return Bad()
ys = [mx.nd.Custom(mx.nd.ones((2,)), op_type=name) for name in ["slow", "bad"] * 20]
print("pushed")
""")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "pushed"


@pytest.mark.parametrize("limit", [1, 3])
def test_num_threads_env_var_limits_the_workers(limit):
    r = run_script("""
import threading, time
seen = set()
class Sleepy(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        seen.add(threading.get_ident())
        time.sleep(0.02)   # releases the GIL: a free worker could take the next call
        self.assign(out_data[0], req[0], in_data[0])
@mx.operator.register("sleepy")
class SleepyProp(mx.operator.CustomOpProp):
    def create_operator(self, ctx, shapes, dtypes):
        return Sleepy()
ys = [mx.nd.Custom(mx.nd.ones((1,)), op_type="sleepy") for _ in range(12)]
mx.nd.waitall()
print(len(seen))
""", {"MXNET_CUSTOM_OP_NUM_THREADS": str(limit), "MXNET_CPU_WORKER_NTHREADS": "4"})
    assert r.returncode == 0, r.stderr
    assert 1 <= int(r.stdout) <= limit


def test_nested_custom_ops_work_with_a_single_worker():
    r = run_script("""
class Outer(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], mx.nd.Custom(in_data[0], op_type="slow"))
@mx.operator.register("outer")
class OuterProp(mx.operator.CustomOpProp):
    def create_operator(self, ctx, shapes, dtypes):
        return Outer()
ys = [mx.nd.Custom(mx.nd.ones((2,)), op_type="outer") for _ in range(10)]
print(sum(float(y.sum().asscalar()) for y in ys))
""", {"MXNET_CUSTOM_OP_NUM_THREADS": "1"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "40.0"


def test_profiler_files_custom_ops_under_custom_operator(tmp_path):
    import json
    fname = str(tmp_path / "custom_profile.json")
    mx.profiler.set_config(profile_all=True, filename=fname, aggregate_stats=True)
    mx.profiler.set_state("run")
    mx.profiler.dumps(reset=True)
    x = mx.nd.ones((3,))
    x.attach_grad()
    with autograd.record():
        y = mx.nd.Custom(x, op_type="test_sqr")
    y.backward()
    mx.nd.waitall()
    mx.profiler.set_state("stop")
    stats = json.loads(mx.profiler.dumps(format="json", reset=True))
    custom = stats["Time"]["Custom Operator"]
    assert "test_sqr::pure_python" in custom
    assert "_backward_test_sqr::pure_python" in custom
    assert "test_sqr::broadcast_mul" in custom or "test_sqr::elemwise_mul" in custom
    assert "Custom" in stats["Time"]["operator"]


def test_fork_with_custom_ops_pending_and_in_the_child():
    r = run_script("""
import os
x = mx.nd.ones((2,))
ys = [mx.nd.Custom(x, op_type="slow") for _ in range(20)]   # still running at the fork
pid = os.fork()
if pid == 0:
    z = mx.nd.Custom(mx.nd.ones((2,)), op_type="slow")      # the child starts its own workers
    os._exit(0 if z.asnumpy().tolist() == [2.0, 2.0] else 3)
_, status = os.waitpid(pid, 0)
print(os.waitstatus_to_exitcode(status), ys[-1].asnumpy().tolist())
""")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "0 [2.0, 2.0]"


def test_serializing_an_array_a_custom_op_still_computes_does_not_hang():
    # Saving waits for the array; the wait must not hold the GIL the callback needs.
    r = run_script("""
y = mx.nd.Custom(mx.nd.ones((2,)), op_type="slow")
z = mx.nd.Custom(mx.nd.ones((2,)), op_type="slow")
buf = mx._ffi.save_to_bytes([y], [])
mx.nd.save("/dev/null", [z])
print(mx.nd.load_frombuffer(buf)[0].asnumpy().tolist())
""")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[2.0, 2.0]"


def test_custom_op_gradient_in_a_bound_symbol():
    # the executor infers the backward node's shapes from the inputs it reads
    data = mx.sym.var("data")
    sym = mx.sym.Custom(data, op_type="test_sqr", name="sqr")
    x = np.array([[1.0, -2.0], [0.5, 3.0]], dtype=np.float32)
    ex = sym.simple_bind(mx.cpu(), data=x.shape)
    ex.arg_dict["data"][:] = x
    ex.forward(is_train=True)
    ex.backward([mx.nd.ones(x.shape)])
    assert_almost_equal(ex.grad_dict["data"].asnumpy(), 2 * x)


class _Double(mx.operator.NumpyOp):
    def forward(self, in_data, out_data):
        out_data[0][:] = 2 * in_data[0]

    def backward(self, out_grad, in_data, out_data, in_grad):
        in_grad[0][:] = 2 * out_grad[0]


def test_numpy_op_default_is_identity_with_unit_gradient():
    with pytest.warns(UserWarning):
        op = mx.operator.NumpyOp()
    s = op.get_symbol(mx.sym.Variable('X'), name='numpy_op')
    x = mx.nd.ones((10,)) * 10
    dx = mx.nd.zeros((10,))
    ex = s.bind(mx.cpu(), args=[x], args_grad={'X': dx})
    ex.forward(is_train=True)
    assert_almost_equal(ex.outputs[0].asnumpy(), x.asnumpy())
    ex.backward(mx.nd.ones((10,)) * 3)
    assert_almost_equal(dx.asnumpy(), np.ones(10))


def test_numpy_op_subclass_forward_and_backward():
    op = _Double()
    s = op(mx.sym.Variable('X'))
    assert s.list_arguments() == ['X']
    x = mx.nd.array([1.0, -2.0, 4.0])
    dx = mx.nd.zeros((3,))
    ex = s.bind(mx.cpu(), args={'X': x}, args_grad={'X': dx})
    ex.forward(is_train=True)
    assert_almost_equal(ex.outputs[0].asnumpy(), [2.0, -4.0, 8.0])
    ex.backward(mx.nd.array([1.0, 2.0, 3.0]))
    assert_almost_equal(dx.asnumpy(), [2.0, 4.0, 6.0])
