"""What hybridization needs beside the blocks: nesting of inputs/outputs, and running a graph.

A hybridized block flattens its (nested) inputs into a list of arrays, traces
`hybrid_forward` once with `F = mx.sym` into one graph, and runs that graph on the flat
list; `_flatten` / `_regroup` keep the nesting (a format of ints: 0 one array, n > 0 a
symbol with n outputs, -1 None). `GraphRunner` runs a symbol's graph operator by operator
through the registered NDArray functions, so autograd records each operator and gradients
reach the parameters; it is the path when the core has no CachedOp.
"""
import json

from ..base import MXNetError
from ..ndarray import NDArray
from ..symbol import Symbol


def _gather_type_ctx_info(args):
    """(has_symbol, has_ndarray, set of contexts, first context) of a nested argument list."""
    if isinstance(args, NDArray):
        return False, True, {args.context}, args.context
    if isinstance(args, Symbol):
        return True, False, set(), None
    if isinstance(args, (list, tuple)):
        has_symbol = has_ndarray = False
        contexts = set()
        first = None
        for arg in args:
            sym, nd, ctxs, ctx = _gather_type_ctx_info(arg)
            has_symbol = has_symbol or sym
            has_ndarray = has_ndarray or nd
            contexts |= ctxs
            if first is None:
                first = ctx
            if has_symbol and has_ndarray:
                break
        return has_symbol, has_ndarray, contexts, first
    return False, False, set(), None


def _flatten(args, inout_str):
    """(flat list of NDArray/Symbol/None, format) of a nested structure of them."""
    if isinstance(args, NDArray):
        return [args], 0
    if isinstance(args, Symbol):
        length = len(args.list_outputs())
        return [args], length if length > 1 else 0
    if args is None:
        return [None], -1
    if not isinstance(args, (list, tuple)):
        raise ValueError("When hybridized, the input of HybridBlock {} must be (nested) list "
                         "of Symbol or NDArray, but got {} of type {}"
                         .format(inout_str, str(args), str(type(args))))
    flat, fmts = [], []
    for arg in args:
        items, fmt = _flatten(arg, inout_str)
        flat.extend(items)
        fmts.append(fmt)
    return flat, fmts


def _regroup(args, fmt):
    """The nested structure `fmt` describes, filled from the flat list `args`."""
    def merge(args, fmt):
        if isinstance(fmt, int):
            if fmt < -1:
                raise ValueError("Unsupported encoded format {}.".format(fmt))
            if fmt == 0:
                return args[0], args[1:]
            if fmt == -1:
                if args[0] is not None:
                    raise ValueError('We do not support passing types that are not None when '
                                     'the initial HybridBlock has received NoneType and has '
                                     'been hybridized. Received arg = {}, fmt = {}.'
                                     .format(args[0], fmt))
                return None, args[1:]
            return args[:fmt], args[fmt:]
        if not isinstance(args, (list, tuple)):
            raise ValueError("When hybridized, the output of HybridBlock must be (nested) list "
                             "of Symbol or NDArray, but got {} of type {}"
                             .format(args, type(args)))
        ret = []
        for item in fmt:
            res, args = merge(args, item)
            ret.append(res)
        return ret, args
    return merge(args, fmt)[0]


def _formats_compatible(given, stored):
    """Whether an input format matches the traced one, allowing trailing None arguments
    that were left to their defaults on either side."""
    if given == stored:
        return True
    if not isinstance(given, list) or not isinstance(stored, list):
        return False
    short, long_ = (given, stored) if len(given) < len(stored) else (stored, given)
    return (short == long_[:len(short)]
            and all(fmt == -1 for fmt in long_[len(short):]))


def _infer(sym, infer_fn, *args, **kwargs):
    """sym.infer_shape / infer_type (`infer_fn`), through the symbol module's inference
    helpers when the Symbol class does not carry the method itself."""
    method = getattr(type(sym), infer_fn, None)
    if method is not None:
        return method(sym, *args, **kwargs)
    from ..symbol._infer import infer_shape, infer_type
    return {'infer_shape': infer_shape, 'infer_type': infer_type}[infer_fn](sym, *args,
                                                                          **kwargs)


_OP_FUNCTIONS = {}


def _op_function(op_name):
    """The mx.nd function of a registered operator, made once per name."""
    func = _OP_FUNCTIONS.get(op_name)
    if func is None:
        from ..ndarray.register import make_op_function
        try:
            func = make_op_function(op_name)
        except Exception as err:  # pylint: disable=broad-except
            raise MXNetError("graph node of operator '%s': the operator is not registered "
                             "(%s)" % (op_name, err)) from None
        _OP_FUNCTIONS[op_name] = func
    return func


def _is_hidden_attr(key):
    return key.startswith('__') and key.endswith('__')


class GraphRunner(object):
    """Runs a symbol's graph on named NDArrays, one registered operator call per node.

    Built once per traced graph: the JSON is read into a list of steps (function, input
    entries, operator arguments) in topological order, so a call does no parsing."""

    def __init__(self, sym):
        graph = json.loads(sym.tojson())
        nodes = graph['nodes']
        self._variables = []            # (node id, name)
        self._steps = []                # (node id, name, function, inputs, kwargs)
        for nid, node in enumerate(nodes):
            if node['op'] == 'null':
                self._variables.append((nid, node['name']))
                continue
            attrs = node.get('attrs', node.get('param', {})) or {}
            kwargs = {k: v for k, v in attrs.items() if not _is_hidden_attr(k)}
            inputs = [(entry[0], entry[1]) for entry in node['inputs']]
            self._steps.append((nid, node['name'], _op_function(node['op']), inputs, kwargs))
        self._heads = [(entry[0], entry[1]) for entry in graph['heads']]
        # operators told a shape with unknown (0) dims, e.g. zeros for a symbolic begin state:
        # the dims come from shape inference over the graph, per set of input shapes
        self._sym = sym
        self._open_shapes = {nid: node['name'] + '_output' for nid, node in enumerate(nodes)
                             if node['op'] != 'null' and _has_unknown_dim(
                                 (node.get('attrs') or {}).get('shape'))}
        self._filled = {}

    @property
    def fills_shapes(self):
        """Whether some operator's shape argument leaves dims to graph shape inference."""
        return bool(self._open_shapes)

    def __call__(self, values):
        """The graph's outputs (a list of NDArrays) given {variable name: NDArray}."""
        results = {}
        for nid, name in self._variables:
            if name not in values:
                raise MXNetError("graph input '%s' was given no array" % name)
            results[nid] = [values[name]]
        filled = self._fill_shapes(values) if self._open_shapes else {}
        for nid, name, func, inputs, kwargs in self._steps:
            args = [results[src][index] for src, index in inputs]
            if nid in filled:
                kwargs = dict(kwargs, shape=filled[nid])
            out = func(*args, **kwargs)
            results[nid] = list(out) if isinstance(out, (list, tuple)) else [out]
        outputs = []
        for src, index in self._heads:
            produced = results[src]
            if index >= len(produced):
                raise MXNetError("graph output %d of node %d is not a visible output of its "
                                 "operator" % (index, src))
            outputs.append(produced[index])
        return outputs

    def _fill_shapes(self, values):
        """{node id: full output shape} of the nodes with unknown dims, given the inputs."""
        known = {name: arr.shape for name, arr in values.items() if hasattr(arr, 'shape')}
        key = tuple(sorted(known.items()))
        if key not in self._filled:
            internals = self._sym.get_internals()
            _, out_shapes, _ = _infer(internals, 'infer_shape', **known)
            if out_shapes is None:
                raise MXNetError("cannot infer the shapes of graph nodes %s from input shapes "
                                 "%s" % (sorted(self._open_shapes.values()), known))
            by_name = dict(zip(internals.list_outputs(), out_shapes))
            self._filled[key] = {nid: str(tuple(by_name[name]))
                                 for nid, name in self._open_shapes.items() if name in by_name}
        return self._filled[key]


def _has_unknown_dim(shape):
    """Whether an operator's 'shape' argument (a string such as '(0, 10)') has a 0 dim."""
    if not shape:
        return False
    try:
        dims = [int(d) for d in shape.strip('()[] ').split(',') if d.strip()]
    except ValueError:
        return False
    return 0 in dims
