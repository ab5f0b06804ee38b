"""mx.nd.contrib.foreach / while_loop / cond run imperatively: a Python loop over NDArray
operations (autograd records each step), the outputs of the steps stacked on a new axis 0."""
from ..base import _as_list
from . import ndarray as _nd
from .. import ndarray as _ops  # the registered operators (read at call time)

__all__ = ["foreach", "while_loop", "cond"]


def _flatten(args, what):
    """(flat list of the NDArrays in a nested list, the nesting to rebuild it)."""
    if isinstance(args, _nd.NDArray):
        return [args], 0
    if not isinstance(args, (list, tuple)):
        raise ValueError("%s must be an NDArray or a (nested) list of NDArrays, given %s"
                         % (what, type(args).__name__))
    flat, fmt = [], []
    for item in args:
        sub, sub_fmt = _flatten(item, what)
        flat.extend(sub)
        fmt.append(sub_fmt)
    return flat, fmt


def _regroup(flat, fmt):
    """Inverse of _flatten: (nested structure, the unused rest of flat)."""
    if isinstance(fmt, int):
        return flat[0], flat[1:]
    out = []
    for sub_fmt in fmt:
        item, flat = _regroup(flat, sub_fmt)
        out.append(item)
    return out, flat


def _scalar(value, type_, what):
    if hasattr(value, "asscalar"):
        value = value.asscalar()
    try:
        return type_(value)
    except (TypeError, ValueError):
        raise ValueError("Cannot convert %s to python %s" % (what, type_.__name__))


def foreach(body, data, init_states):
    """Runs `body(step, states) -> (outputs, new states)` for each slice data[i] along
    axis 0 (data an NDArray or a list of NDArrays sliced together). Returns (the outputs of
    all steps stacked on axis 0, in the nesting body gives them; the last states)."""
    _flatten(data, "foreach data")
    _flatten(init_states, "foreach init_states")
    single = isinstance(data, _nd.NDArray)
    steps = data.shape[0] if single else data[0].shape[0]
    states = init_states
    per_step, fmt = [], 0
    for i in range(steps):
        outs, states = body(data[i] if single else [d[i] for d in data], states)
        flat, fmt = _flatten(outs, "foreach output")
        per_step.append(flat)
    stacked = [_ops.stack(*column, axis=0) for column in zip(*per_step)]
    if not per_step:
        return [], states
    outputs, _ = _regroup(stacked, fmt)
    return outputs, states


def while_loop(cond, func, loop_vars, max_iterations=None):
    """While `cond(*loop_vars)` is true and fewer than max_iterations steps ran:
    `step_output, loop_vars = func(*loop_vars)`. Returns (the step outputs stacked on axis 0
    and padded to max_iterations rows (the padding is left uninitialized, as in MXNet),
    the last loop_vars)."""
    if max_iterations is None:
        raise ValueError("max_iterations should be specified")
    max_iterations = _scalar(max_iterations, int, "max_iterations")
    single = isinstance(loop_vars, _nd.NDArray)
    loop_vars = _as_list(loop_vars)
    if not loop_vars:
        raise ValueError("loop_vars should contain at least one element")
    per_step, fmt = [], None
    while len(per_step) < max_iterations and _scalar(cond(*loop_vars), bool,
                                                     "Return value of cond"):
        step_output, new_vars = func(*loop_vars)
        step_output = [] if step_output is None else step_output
        new_vars = _as_list([] if new_vars is None else list(new_vars)
                            if isinstance(new_vars, tuple) else new_vars)
        if len(new_vars) != len(loop_vars):
            raise ValueError("The length of loop_vars should be consistent during the loop")
        loop_vars = new_vars
        flat, fmt = _flatten(list(step_output) if isinstance(step_output, tuple)
                             else step_output, "while output")
        if per_step and len(flat) != len(per_step[0]):
            raise ValueError("Number of elements in step_output should be the same in each "
                             "step")
        per_step.append(flat)
    stacked = []
    for i, column in enumerate(zip(*per_step)):
        rows = [x.expand_dims(0) for x in column]
        if len(rows) < max_iterations:
            rows.append(_ops.empty((max_iterations - len(rows),) + column[0].shape,
                                  ctx=column[0].context, dtype=column[0].dtype))
        try:
            stacked.append(_ops.concat(*rows, dim=0))
        except Exception:
            raise ValueError("Shapes of %d-th elements in step_outputs are inconsistent: %s"
                             % (i + 1, [x.shape for x in column]))
    if fmt is not None:
        stacked, _ = _regroup(stacked, fmt)
    return stacked, (loop_vars[0] if single else loop_vars)


def cond(pred, then_func, else_func):
    """then_func() if `pred` (an NDArray of one element or a Python value) is true, else
    else_func()."""
    return then_func() if _scalar(pred, bool, "pred") else else_func()
