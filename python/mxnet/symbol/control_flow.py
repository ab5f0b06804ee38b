"""mx.sym.contrib.foreach / while_loop / cond: the body functions are traced into subgraph
symbols (inside an AttrScope naming the subgraph), the traced graph is cut off from the outer
nodes it reads, and one `_foreach` / `_while_loop` / `_cond` node takes the graphs and the
outer symbols, with locations saying which input goes where in each graph."""
import copy

from ..attribute import AttrScope
from ..base import _as_list
from . import symbol as _symbol

__all__ = ["foreach", "while_loop", "cond"]

_SUBGRAPH_KEY = "__subgraph_name__"


def _flatten(args, what):
    """(flat list of Symbols, format): a Symbol of several outputs counts as that many."""
    if isinstance(args, _symbol.Symbol):
        n = len(args.list_outputs())
        return [args], (n if n > 1 else 0)
    if not isinstance(args, (list, tuple)):
        raise AssertionError("%s must be (nested) list of Symbol, but got %s of type %s"
                             % (what, str(args), str(type(args))))
    flat, fmt = [], []
    for item in args:
        sub, sub_fmt = _flatten(item, what)
        flat.extend(sub)
        fmt.append(sub_fmt)
    return flat, fmt


def _regroup(flat, fmt):
    """Inverse of _flatten: (nested structure, the rest of flat)."""
    if isinstance(fmt, int):
        if fmt == 0:
            return flat[0], flat[1:]
        return flat[:fmt], flat[fmt:]
    out = []
    for sub_fmt in fmt:
        item, flat = _regroup(flat, sub_fmt)
        out.append(item)
    return out, flat


def _check_symbols(items, msg):
    if not all(isinstance(x, _symbol.Symbol) for x in _as_list(items)):
        raise AssertionError(msg)


def _uniq_name(sym):
    return "%s-%s" % (sym.name, sym.attr("_value_index"))


def _subgraph_name(name):
    """A fresh name for a subgraph traced in the current scope ("outer$name<k>" when nested)."""
    if not hasattr(AttrScope._current, "value"):
        AttrScope._current.value = AttrScope()
    outer = AttrScope._current.value._attr.get(_SUBGRAPH_KEY, "")
    if outer:
        name = outer + "$" + name
    AttrScope._subgraph_names[name] += 1
    return name + str(AttrScope._subgraph_names[name] - 1)


def _in_subgraph(sym, name):
    return sym.list_attr().get(_SUBGRAPH_KEY, "") == name


def _graph_of(outputs, name):
    """The Group of the traced outputs; an output that is an input of the graph, repeats an
    earlier output, or was built outside the subgraph goes through identity, so each output
    is a node of its own inside the graph."""
    inputs = set(_symbol.Group(outputs).list_inputs()) if outputs else set()
    seen, flat = set(), []
    for o in outputs:
        seen_before = o.name in seen
        seen.add(o.name)
        if o.name in inputs or seen_before or not _in_subgraph(o, name):
            o = _symbol.op.identity(o)
        flat.append(o)
    return _symbol.Group(flat)


def _cut(graph):
    """Cut graph off from the outer nodes it reads: {variable name: outer symbol}."""
    # pylint: disable=protected-access
    return {_symbol.Symbol(h).list_outputs()[0]: _symbol.Symbol(h)
            for h in graph.handle.cut_subgraph()}


def _graph_inputs(graph):
    return {_symbol.Symbol(h).name: _symbol.Symbol(h) for h in graph.handle.input_symbols()}


def _union_inputs(graphs, known, by_name=False):
    """The outer symbols the graphs read, each once, and per graph the location of each of
    its inputs (list_inputs order) among them. known: {input name: outer symbol} for names
    that stand for given symbols (loop variables); by_name: an input named as an outer symbol
    an earlier graph reads is that symbol (cond)."""
    inputs, loc_of, locs = [], {}, []
    for graph in graphs:
        if by_name:
            known = {sym.name: sym for sym in inputs}
        cut = _cut(graph)
        graph_vars = _graph_inputs(graph)
        names = graph.list_inputs()
        if len(set(names)) != len(names):
            raise AssertionError("The inputs of the subgraph don't have unique names: "
                                 + str(names))
        graph_locs = []
        for name in names:
            if name in known:
                sym = known[name]
            elif name in cut:
                sym = cut[name]
            else:
                sym = copy.deepcopy(graph_vars[name])
            if id(sym) not in loc_of:
                loc_of[id(sym)] = len(inputs)
                inputs.append(sym)
            graph_locs.append(loc_of[id(sym)])
        locs.append(graph_locs)
    return inputs, locs


def foreach(body, data, init_states, name="foreach"):
    """Runs `outs, states = body(data_slice, states)` over axis 0 of data (a Symbol or a
    nested list of Symbols sliced together), starting from init_states. Returns (the outputs
    of every step stacked on axis 0, the final states), nested as body returns them."""
    flat_data, data_fmt = _flatten(data, "foreach input")
    _check_symbols(flat_data, "data should be a symbol or a nested list of symbols")
    flat_states, state_fmt = _flatten(init_states, "foreach states")
    _check_symbols(flat_states, "init_states should be a symbol or a nested list of symbols")

    name = _subgraph_name(name)
    with AttrScope(**{_SUBGRAPH_KEY: name}):
        step_in, _ = _regroup([_symbol.var(_uniq_name(s)) for s in flat_data], data_fmt)
        states, _ = _regroup([_symbol.var(_uniq_name(s)) for s in flat_states],
                             copy.deepcopy(state_fmt))
        outs, new_states = body(step_in, states)
        outs, out_fmt = _flatten(outs, "foreach output")
        new_states, new_state_fmt = _flatten(new_states, "foreach loop_vars")
        if state_fmt != new_state_fmt:
            raise AssertionError("The input and output loop_vars have different format")
        _check_symbols(outs, "the output should be an NDArray or a nested list of NDArrays")
        _check_symbols(new_states,
                       "the output states should be an NDArray or a nested list of NDArrays")
        num_out_data, num_states = len(outs), len(new_states)
        graph = _graph_of(outs + new_states, name)

    cut = _cut(graph)
    graph_vars = _graph_inputs(graph)
    names = graph.list_inputs()
    if len(set(names)) != len(names):
        raise AssertionError("The inputs of the subgraph don't have unique names: " + str(names))
    data_names = [_uniq_name(s) for s in flat_data]
    state_names = [_uniq_name(s) for s in flat_states]
    for n in data_names:
        if n not in names:
            raise AssertionError("the data arrays have to be used in the loop body")
    for n in state_names:
        if n not in names:
            raise AssertionError("the state arrays have to be used in the loop body")
    in_data_locs = [names.index(n) for n in data_names]
    in_state_locs = [names.index(n) for n in state_names]
    inputs = flat_data + flat_states
    remain_locs = []
    for i, n in enumerate(names):
        if n in cut:
            inputs.append(cut[n])
        elif n not in data_names and n not in state_names:
            inputs.append(copy.deepcopy(graph_vars[n]))
        else:
            continue
        remain_locs.append(i)

    num_outputs = num_out_data + num_states
    ret = _symbol._internal._foreach(graph, *inputs, num_outputs=num_outputs,
                                     num_out_data=num_out_data, in_state_locs=in_state_locs,
                                     in_data_locs=in_data_locs, remain_locs=remain_locs)
    outs, _ = _regroup([ret[i] for i in range(num_out_data)], out_fmt)
    states, _ = _regroup([ret[num_out_data + i] for i in range(num_states)], new_state_fmt)
    return outs, states


def while_loop(cond, func, loop_vars, max_iterations=None, name="while_loop"):
    """While `cond(*loop_vars)` is non-zero, at most max_iterations times:
    `step_output, loop_vars = func(*loop_vars)`. Returns (the step outputs stacked on axis 0,
    max_iterations rows, zero past the last step taken; the final loop_vars)."""
    flat_vars, var_fmt = _flatten(loop_vars, "while loop_vars")
    _check_symbols(flat_vars, "loop_vars should be a symbol or a nested list of symbols")
    if max_iterations is None:
        raise ValueError("max_iterations should be specified")
    if hasattr(max_iterations, "asscalar"):
        max_iterations = max_iterations.asscalar()
    try:
        max_iterations = int(max_iterations)
    except (TypeError, ValueError):
        raise ValueError("Cannot convert max_iteration to python int")
    if len(loop_vars) == 0:
        raise ValueError("loop_vars should contain at least one element")

    def trace(fn, graph_name):
        graph_name = _subgraph_name(graph_name)
        with AttrScope(**{_SUBGRAPH_KEY: graph_name}):
            vars_in, _ = _regroup([_symbol.var(_uniq_name(s)) for s in flat_vars], var_fmt)
            outs, states, out_fmt = fn(vars_in)
            return _graph_of(outs + states, graph_name), len(outs), len(outs) + len(states), \
                out_fmt

    def cond_fn(vars_in):
        result = cond(*vars_in)
        if not isinstance(result, _symbol.Symbol):
            raise ValueError("Return of cond must be a Symbol")
        return [], [result], []

    def func_fn(vars_in):
        step_output, new_vars = func(*vars_in)
        step_output = [] if step_output is None else step_output
        new_vars = [] if new_vars is None else new_vars
        step_output = list(step_output) if isinstance(step_output, tuple) else step_output
        new_vars = list(new_vars) if isinstance(new_vars, tuple) else new_vars
        step_output, out_fmt = _flatten(step_output, "while output")
        new_vars, _ = _flatten(new_vars, "while loop_vars")
        if len(vars_in) != len(new_vars):
            raise ValueError("The number of loop_vars should be consistent during the loop")
        return step_output, new_vars, out_fmt

    cond_g, num_out_data, num_outputs, _ = trace(cond_fn, name + "_cond")
    assert num_out_data == 0 and num_outputs == 1
    func_g, num_out_data, num_outputs, out_fmt = trace(func_fn, name + "_func")
    known = {_uniq_name(s): s for s in flat_vars}
    inputs, (cond_locs, func_locs) = _union_inputs([cond_g, func_g], known)
    func_names = func_g.list_inputs()
    func_var_locs = []
    for i, s in enumerate(flat_vars, 1):
        if _uniq_name(s) not in func_names:
            raise ValueError("The %d-th loop_var doesn't involve into the computation" % i)
        func_var_locs.append(func_names.index(_uniq_name(s)))
    result = _symbol._internal._while_loop(
        cond_g, func_g, *inputs, max_iterations=max_iterations, cond_input_locs=cond_locs,
        func_input_locs=func_locs, func_var_locs=func_var_locs, num_out_data=num_out_data,
        num_outputs=num_outputs)
    outputs, _ = _regroup([result[i] for i in range(num_out_data)], out_fmt)
    final_vars, _ = _regroup([result[i] for i in range(num_out_data, num_outputs)], var_fmt)
    return outputs, final_vars


def cond(pred, then_func, else_func, name="cond"):
    """then_func() when the scalar Symbol pred is non-zero, else else_func(); both give the
    same number of outputs, of the same shapes and dtypes."""
    def trace(fn, graph_name):
        graph_name = _subgraph_name(graph_name)
        with AttrScope(**{_SUBGRAPH_KEY: graph_name}):
            outs, out_fmt = _flatten(fn(), "cond outputs")
            return _graph_of(outs, graph_name), len(outs), out_fmt

    cond_g, n_cond, _ = trace(lambda: pred, name + "_pred")
    if n_cond != 1:
        raise ValueError("pred should always be a single output")
    then_g, n_then, then_fmt = trace(then_func, name + "_then")
    else_g, n_else, _ = trace(else_func, name + "_else")
    if n_then != n_else:
        raise ValueError("Number of outputs differs between then-branch and else-branch")
    inputs, (cond_locs, then_locs, else_locs) = _union_inputs([cond_g, then_g, else_g], {}, by_name=True)
    result = _symbol._internal._cond(cond_g, then_g, else_g, *inputs,
                                     cond_input_locs=cond_locs, then_input_locs=then_locs,
                                     else_input_locs=else_locs, num_outputs=n_then)
    outputs, _ = _regroup([result[i] for i in range(n_then)], then_fmt)
    return outputs
