"""The Symbol forms of mx.test_utils' checkers (MXNet 1.9.1 semantics): forward and backward
against expected values, central-difference gradients, consistency across contexts/dtypes,
all through Symbol.bind / simple_bind. test_utils dispatches here when given a Symbol."""
import time
import traceback

import numpy as np

from . import ndarray as nd
from . import test_utils as tu
from .symbol import Symbol, Variable, make_loss


def is_symbolic(sym):
    """A Symbol, or a non-empty list of them (check_consistency's per-context form)."""
    return isinstance(sym, Symbol) or (isinstance(sym, (list, tuple)) and len(sym) > 0
                                       and isinstance(sym[0], Symbol))


def _check_dtype(dtype, allow_asnumpy=True):
    if not ((allow_asnumpy and dtype == "asnumpy") or dtype in (np.float16, np.float32, np.float64)):
        raise ValueError("dtype must be %snp.float16, np.float32 or np.float64, given %r"
                         % ("'asnumpy', " if allow_asnumpy else "", dtype))


def _to_nd(value, ctx, dtype):
    if isinstance(value, np.ndarray):
        return nd.array(value, ctx=ctx, dtype=value.dtype if dtype == "asnumpy" else dtype)
    return value


def _parse_location(sym, location, ctx, dtype):
    """location (dict by name or list in list_arguments order) as NDArrays sorted by name."""
    names = sym.list_arguments()
    if isinstance(location, dict):
        if set(location) != set(names):
            raise ValueError("Symbol arguments and keys of the given location do not match."
                             "symbol args:%s, location.keys():%s"
                             % (str(set(names)), str(set(location))))
    elif isinstance(location, (list, tuple)):
        location = dict(zip(names, location))
    else:
        raise TypeError("location must be a dict or a list, given %s" % type(location).__name__)
    return {k: _to_nd(location[k], ctx, dtype) for k in sorted(location)}


def _sparse_grads(grads, stypes):
    """Gradient buffers in the storage types asked for (by argument name)."""
    for name, stype in (stypes or {}).items():
        if name in grads and stype not in (None, "default"):
            grads[name] = grads[name].tostype(stype)


def _parse_aux_states(sym, aux_states, ctx, dtype):
    if aux_states is None:
        return None
    names = sym.list_auxiliary_states()
    if isinstance(aux_states, dict):
        if set(aux_states) != set(names):
            raise ValueError("Symbol aux_states names and given aux_states do not match."
                             "symbol aux_names:%s, aux_states.keys:%s"
                             % (str(set(names)), str(set(aux_states))))
    else:
        aux_states = dict(zip(names, aux_states))
    return {k: nd.array(v, ctx=ctx, dtype=v.dtype if dtype == "asnumpy" else dtype)
            for k, v in aux_states.items()}


def simple_forward(sym, ctx=None, is_train=False, **inputs):
    """Bind the given numpy inputs, run forward: the output (or list of outputs) as numpy."""
    ctx = ctx or tu.default_context()
    exe = sym.bind(ctx, args={k: nd.array(v) for k, v in inputs.items()})
    exe.forward(is_train=is_train)
    outputs = [x.asnumpy() for x in exe.outputs]
    return outputs[0] if len(outputs) == 1 else outputs


def check_symbolic_forward(sym, location, expected, rtol=None, atol=None, aux_states=None,
                           ctx=None, equal_nan=False, dtype=np.float32):
    """Forward (inference mode) of sym at location equals expected (list or dict by output)."""
    _check_dtype(dtype)
    ctx = ctx or tu.default_context()
    location = _parse_location(sym, location, ctx, dtype)
    aux_states = _parse_aux_states(sym, aux_states, ctx, dtype)
    if isinstance(expected, dict):
        expected = [expected[k] for k in sym.list_outputs()]
    grads = {k: nd.zeros(v.shape, ctx=ctx, dtype=v.dtype) for k, v in location.items()}
    exe = sym.bind(ctx=ctx, args=location, args_grad=grads, aux_states=aux_states)
    exe.forward(is_train=False)
    for name, expect, output in zip(sym.list_outputs(), expected, exe.outputs):
        tu.assert_almost_equal(expect, output, rtol, atol,
                               ("EXPECTED_%s" % name, "FORWARD_%s" % name), equal_nan=equal_nan)
    return exe.outputs


def check_symbolic_backward(sym, location, out_grads, expected, rtol=None, atol=None,
                            aux_states=None, grad_req="write", ctx=None, grad_stypes=None,
                            equal_nan=False, dtype=np.float32):
    """Backward of sym at location with out_grads gives expected input gradients ('add'
    is checked as the change, 'null' as untouched)."""
    _check_dtype(dtype)
    ctx = ctx or tu.default_context()
    location = _parse_location(sym, location, ctx, dtype)
    aux_states = _parse_aux_states(sym, aux_states, ctx, dtype)
    if isinstance(expected, (list, tuple)):
        expected = dict(zip(sym.list_arguments(), expected))
    grads_np = {k: np.random.normal(size=np.shape(expected[k])) for k in sorted(expected)}
    grads = {k: nd.array(v, ctx=ctx,
                         dtype=np.asarray(expected[k]).dtype if dtype == "asnumpy" else dtype)
             for k, v in grads_np.items()}
    _sparse_grads(grads, grad_stypes)
    if isinstance(grad_req, str):
        grad_req = {k: grad_req for k in sym.list_arguments()}
    elif isinstance(grad_req, (list, tuple)):
        grad_req = dict(zip(sym.list_arguments(), grad_req))
    exe = sym.bind(ctx=ctx, args=location, args_grad=grads, aux_states=aux_states,
                   grad_req=grad_req)
    exe.forward(is_train=True)
    if isinstance(out_grads, (list, tuple)):
        out_grads = [_to_nd(g, ctx, dtype) for g in out_grads]
    elif isinstance(out_grads, dict):
        out_grads = {k: _to_nd(g, ctx, dtype) for k, g in out_grads.items()}
    elif out_grads is not None:
        out_grads = [_to_nd(out_grads, ctx, dtype)]
    exe.backward(out_grads)
    for name in expected:
        names = ("EXPECTED_%s" % name, "BACKWARD_%s" % name)
        req = grad_req.get(name, "write")
        if req == "write":
            tu.assert_almost_equal(expected[name], grads[name], rtol, atol, names,
                                   equal_nan=equal_nan)
        elif req == "add":
            tu.assert_almost_equal(expected[name], grads[name].asnumpy() - grads_np[name], rtol,
                                   atol, names, equal_nan=equal_nan)
        elif req == "null":
            tu.assert_almost_equal(grads_np[name], grads[name], rtol, atol, names,
                                   equal_nan=equal_nan)
        else:
            raise ValueError("Invalid grad_req %s for argument %s" % (req, name))
    return grads


def _numeric_grads(exe, location, aux_states, eps, use_forward_train, dtype):
    """Central differences of sum(output 0) for every float input of exe."""
    approx = {k: np.zeros(v.shape, dtype=dtype) for k, v in location.items()}
    for k, v in location.items():
        exe.arg_dict[k][:] = nd.array(v, dtype=dtype)
    for k, v in location.items():
        if v.dtype.kind != "f":
            continue
        v = location[k] = np.ascontiguousarray(v)
        old = v.copy()
        flat = v.ravel()
        for i in range(flat.size):
            values = []
            for delta in (eps / 2.0, -eps):
                flat[i] += delta
                exe.arg_dict[k][:] = nd.array(v, dtype=dtype)
                for name, val in (aux_states or {}).items():
                    exe.aux_dict[name][:] = nd.array(val, dtype=dtype)
                exe.forward(is_train=use_forward_train)
                values.append(exe.outputs[0].asnumpy())
            approx[k].ravel()[i] = (values[0] - values[1]).sum() / eps
            flat[i] = old.ravel()[i]
        exe.arg_dict[k][:] = nd.array(old, dtype=dtype)
    return approx


def check_numeric_gradient(sym, location, aux_states=None, numeric_eps=None, rtol=None,
                           atol=None, grad_nodes=None, use_forward_train=True, ctx=None,
                           grad_stype_dict=None, dtype=np.float32):
    """Gradients of sum(sym * random projection) from backward equal central differences."""
    _check_dtype(dtype, allow_asnumpy=False)
    ctx = ctx or tu.default_context()
    location = _parse_location(sym, location, ctx, dtype)
    location_np = {k: v.asnumpy() for k, v in location.items()}
    aux_states = _parse_aux_states(sym, aux_states, ctx, dtype)
    aux_np = None if aux_states is None else {k: v.asnumpy() for k, v in aux_states.items()}
    if grad_nodes is None:
        grad_nodes = sym.list_arguments()
        grad_req = {k: "write" for k in grad_nodes}
    elif isinstance(grad_nodes, (list, tuple)):
        grad_nodes = list(grad_nodes)
        grad_req = {k: "write" for k in grad_nodes}
    elif isinstance(grad_nodes, dict):
        grad_req = dict(grad_nodes)
        grad_nodes = list(grad_nodes)
    else:
        raise ValueError("grad_nodes must be None, a list or a dict")
    _, out_shapes, _ = sym.infer_shape(**{k: v.shape for k, v in location.items()})
    out = make_loss(sym * Variable("__random_proj"))
    proj = np.random.rand(*out_shapes[0]) + 0.1
    location["__random_proj"] = nd.array(proj, ctx=ctx, dtype=dtype)
    grads_np = {k: np.random.normal(0, 0.01, size=location[k].shape) for k in grad_nodes}
    grads_np["__random_proj"] = np.random.normal(0, 0.01, size=out_shapes[0])
    grads = {k: nd.array(v, ctx=ctx, dtype=dtype) for k, v in grads_np.items()}
    _sparse_grads(grads, grad_stype_dict)
    exe = out.bind(ctx, grad_req=grad_req, args=location, args_grad=grads,
                   aux_states=aux_states)
    exe.forward(is_train=True)
    eps = tu.get_tolerance(exe.outputs[0], numeric_eps, tu.default_numeric_eps())
    if dtype in (np.float32, np.float16) and eps < 1e-5:
        raise ValueError("check_numeric_gradient: numeric_eps %g is too small for %s"
                         % (eps, np.dtype(dtype).name))
    exe.backward()
    numeric = _numeric_grads(exe, location_np, aux_np, eps, use_forward_train, dtype)
    for name in grad_nodes:
        names = ("NUMERICAL_%s" % name, "BACKWARD_%s" % name)
        got = exe.grad_dict[name]
        if grad_req[name] == "write":
            tu.assert_almost_equal(numeric[name], got, rtol, atol, names)
        elif grad_req[name] == "add":
            tu.assert_almost_equal(numeric[name], got.asnumpy() - grads_np[name], rtol, atol,
                                   names)
        elif grad_req[name] == "null":
            tu.assert_almost_equal(grads_np[name], got, rtol, atol, names)
        else:
            raise ValueError("Invalid grad_req %s for argument %s" % (grad_req[name], name))


def check_speed(sym, location=None, ctx=None, N=20, grad_req=None, typ="whole", **kwargs):
    """Seconds per forward+backward ('whole') or forward ('forward') of sym, averaged over N."""
    ctx = ctx or tu.default_context()
    grad_req = grad_req or "write"
    if location is None:
        exe = sym.simple_bind(grad_req=grad_req, ctx=ctx, **kwargs)
        location = {k: np.random.normal(size=arr.shape, scale=1.0)
                    for k, arr in exe.arg_dict.items()}
    else:
        if not isinstance(location, dict):
            raise TypeError('Expect dict, get "location"=%s' % str(location))
        exe = sym.simple_bind(grad_req=grad_req, ctx=ctx,
                              **{k: v.shape for k, v in location.items()})
    for name, value in location.items():
        exe.arg_dict[name][:] = value.astype(exe.arg_dict[name].dtype)
    if typ not in ("whole", "forward"):
        raise ValueError('typ can only be "whole" or "forward".')

    def step():
        exe.forward(is_train=typ == "whole")
        if typ == "whole":
            exe.backward(out_grads=exe.outputs)

    step()
    for output in exe.outputs:
        output.wait_to_read()
    tic = time.time()
    for _ in range(N):
        step()
    nd.waitall()
    return (time.time() - tic) / N


def check_consistency(sym, ctx_list, scale=1.0, grad_req="write", arg_params=None,
                      aux_params=None, tol=None, raise_on_err=True, ground_truth=None,
                      equal_nan=False, use_uniform=False, rand_type=np.float64, rtol=None,
                      atol=None):
    """Bind sym (or one symbol per context) with each ctx_list entry (simple_bind kwargs:
    ctx, shapes, type_dict), run forward and backward from the same values, and compare every
    output and gradient with the most precise run. Returns that run's arrays by name."""
    if tol is not None and rtol is None:
        rtol = atol = tol if not isinstance(tol, dict) else None
    if len(ctx_list) < 2:
        raise ValueError("check_consistency: ctx_list needs at least two entries")
    syms = [sym] * len(ctx_list) if isinstance(sym, Symbol) else list(sym)
    if len(syms) != len(ctx_list):
        raise ValueError("check_consistency: %d symbols for %d contexts"
                         % (len(syms), len(ctx_list)))
    output_names = syms[0].list_outputs()
    arg_names = syms[0].list_arguments()
    exes = []
    for s, ctx in zip(syms, ctx_list):
        if s.list_arguments() != arg_names or s.list_outputs() != output_names:
            raise ValueError("check_consistency: the symbols differ in arguments or outputs")
        exes.append(s.simple_bind(grad_req=grad_req, **ctx))
    arg_params = {} if arg_params is None else arg_params
    aux_params = {} if aux_params is None else aux_params
    for name in sorted(exes[0].arg_dict):
        if name not in arg_params:
            shape = exes[0].arg_dict[name].shape
            arg_params[name] = (np.random.uniform(-0.92 * scale, 0.92 * scale, size=shape)
                                if use_uniform else
                                np.random.normal(size=shape, scale=scale)).astype(rand_type)
    for name in exes[0].aux_dict:
        aux_params.setdefault(name, 0)
    for exe in exes:
        for name, arr in exe.arg_dict.items():
            arr[:] = arg_params[name]
        for name, arr in exe.aux_dict.items():
            arr[:] = aux_params[name]
        if grad_req == "add":
            for arr in exe.grad_arrays:
                if arr is not None:
                    arr[:] = 0

    def smaller_dtype(dt1, dt2):
        return dt1 if dt2 is None or np.dtype(dt1).itemsize < np.dtype(dt2).itemsize else dt2

    dtypes = [np.dtype(exe.outputs[0].dtype) for exe in exes]
    gt_idx = int(np.argmax(dtypes))
    gt = ground_truth
    if gt is None:
        gt = dict(exes[gt_idx].output_dict)
        if grad_req != "null":
            gt.update(exes[gt_idx].grad_dict)

    def compare(arr, expect, what, i, name, rt, at):
        try:
            tu.assert_almost_equal(arr, expect, rtol=rt, atol=at, equal_nan=equal_nan)
        except AssertionError as e:
            print("%s Err: ctx %d vs ctx %d at %s" % (what, i, gt_idx, name))
            traceback.print_exc()
            if raise_on_err:
                raise e
            print(str(e))

    for exe in exes:
        exe.forward(is_train=False)
    for i, exe in enumerate(exes):
        if i == gt_idx:
            continue
        for name, arr in zip(output_names, exe.outputs):
            compare(arr, gt[name], "Predict", i, name, rtol, atol)
    if grad_req == "null":
        return gt
    for exe in exes:
        exe.forward(is_train=True)
    least = [out.dtype for out in exes[0].outputs]
    for exe in exes:
        least = [smaller_dtype(out.dtype, dt) for out, dt in zip(exe.outputs, least)]
    golden = [out.astype(dt).asnumpy() for out, dt in zip(exes[0].outputs, least)]
    for exe in exes:
        exe.backward([nd.array(g, ctx=out.context, dtype=out.dtype)
                      for g, out in zip(golden, exe.outputs)])
    for i, exe in enumerate(exes):
        if i == gt_idx:
            continue
        for name, arr in zip(output_names + arg_names, exe.outputs + exe.grad_arrays):
            if gt[name] is None:
                if arr is not None:
                    raise AssertionError("check_consistency: %s has a gradient in ctx %d only"
                                         % (name, i))
                continue
            rt, at = rtol, atol
            small_arr = smaller_dtype(arr.dtype, dtypes[i])
            small_gt = smaller_dtype(gt[name].dtype, dtypes[gt_idx])
            if small_arr != arr.dtype or small_gt != gt[name].dtype:
                rt, at = tu.get_tols(arr.astype(small_arr), gt[name].astype(small_gt), rtol, atol)
            compare(arr, gt[name], "Train", i, name, rt, at)
    return gt
