"""Symbol: a computation graph with named arguments and outputs, saved as -symbol.json.

The graph lives in the C++ core (``_ffi.SymbolHandle``, the same object the C API's
SymbolHandle points to); this class adds the Python protocol of MXNet 1.9's Symbol."""
# pylint: disable=too-many-public-methods
import ctypes as _ctypes
from numbers import Number

import numpy as _numpy

from .. import _ffi
from ..attribute import AttrScope
from ..base import MXNetError, NotImplementedForSymbol, string_types, integer_types
from ..base import _NP_DTYPE_FLAGS
from ..ndarray.ndarray import _STORAGE_TYPE_STR_TO_ID
from . import _infer

__all__ = ["Symbol", "var", "Variable", "Group", "load", "load_json", "pow", "power", "maximum",
           "minimum", "hypot", "eye", "zeros", "ones", "full", "arange", "linspace",
           "histogram", "split_v2"]

# filled in by mxnet.symbol's __init__ once the generated functions exist
_internal = None
op = None

# MXNet's structured stand-in for bfloat16 (flag 12) in numpy
_BFLOAT16_NP = _numpy.dtype([("bfloat16", _numpy.uint16)])


def _binary(lhs, rhs, sym_fn, scalar_fn):
    if isinstance(rhs, Symbol):
        return getattr(_internal, sym_fn)(lhs, rhs)
    if isinstance(rhs, Number):
        return getattr(_internal, scalar_fn)(lhs, scalar=rhs)
    raise TypeError("type %s not supported" % str(type(rhs)))


def _scalar_only(lhs, rhs, scalar_fn):
    if isinstance(rhs, Number):
        return getattr(_internal, scalar_fn)(lhs, scalar=rhs)
    raise TypeError("type %s not supported" % str(type(rhs)))


class Symbol:
    """A symbolic graph: the outputs of some nodes. Build with mx.sym.var and mx.sym.<op>."""
    __slots__ = ["handle"]
    __array_priority__ = 1000.0

    def __init__(self, handle):
        if isinstance(handle, _ctypes.c_void_p):   # a SymbolHandle from a C API call: own it
            handle = _ffi.symbol_from_c_handle(handle.value or 0)
        if not isinstance(handle, _ffi.SymbolHandle):
            raise TypeError("Symbol: expected a SymbolHandle, given %s" % type(handle).__name__)
        self.handle = handle

    # ------------------------------------------------------------------ protocol
    def __repr__(self):
        name = self.name
        if name is None:
            return "<%s group [%s]>" % (self.__class__.__name__, ", ".join(i.name for i in self))
        return "<%s %s>" % (self.__class__.__name__, name)

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __len__(self):
        return self.handle.num_outputs()

    def __bool__(self):
        raise NotImplementedForSymbol(self.__bool__, "bool")

    __nonzero__ = __bool__

    def __copy__(self):
        return self.__deepcopy__(None)

    def __deepcopy__(self, _):
        return Symbol(self.handle.copy())

    def __getstate__(self):
        return {"handle": self.tojson() if self.handle is not None else None}

    def __setstate__(self, state):
        handle = state["handle"]
        self.handle = _ffi.symbol_load_json(handle) if handle is not None else None

    def __call__(self, *args, **kwargs):
        """A copy of this symbol composed with the given inputs (see _compose)."""
        s = self.__copy__()
        s._compose(*args, **kwargs)
        return s

    def _compose(self, *args, **kwargs):
        """Give this symbol its inputs, in place: Symbols positionally or by input name;
        name= renames the head node."""
        name = kwargs.pop("name", None)
        if args and kwargs:
            raise TypeError("compose only accept input Symbols either as positional or keyword "
                            "arguments, not both")
        for arg in list(args) + list(kwargs.values()):
            if not isinstance(arg, Symbol):
                raise TypeError("Compose expect `Symbol` as arguments")
        self.handle.compose([a.handle for a in args],
                            {k: v.handle for k, v in kwargs.items()}, name or "")

    def __getitem__(self, index):
        output_count = len(self)
        if isinstance(index, slice):
            start = 0 if index.start is None else index.start
            stop = output_count if index.stop is None else index.stop
            step = 1 if index.step is None else index.step
            return Group([self[i] for i in range(start, stop, step)])
        if isinstance(index, string_types):
            idx = None
            for i, name in enumerate(self.list_outputs()):
                if name == index:
                    if idx is not None:
                        raise ValueError('There are multiple outputs with name "%s"' % index)
                    idx = i
            if idx is None:
                raise ValueError('Cannot find output that matches name "%s"' % index)
            index = idx
        if not isinstance(index, integer_types):
            raise TypeError("Symbol only support integer index to fetch i-th output")
        if index >= output_count:
            raise IndexError  # ends iteration
        if index < 0:
            raise IndexError("Symbol output index %d out of range" % index)
        return Symbol(self.handle.output(int(index)))

    # ------------------------------------------------------------------ arithmetic
    def __add__(self, other):
        return _binary(self, other, "_Plus", "_PlusScalar")

    def __radd__(self, other):
        return self.__add__(other)

    def __sub__(self, other):
        return _binary(self, other, "_Minus", "_MinusScalar")

    def __rsub__(self, other):
        return _scalar_only(self, other, "_RMinusScalar")

    def __mul__(self, other):
        return _binary(self, other, "_Mul", "_MulScalar")

    def __rmul__(self, other):
        return self.__mul__(other)

    def __div__(self, other):
        return _binary(self, other, "_Div", "_DivScalar")

    def __rdiv__(self, other):
        return _scalar_only(self, other, "_RDivScalar")

    def __truediv__(self, other):
        return self.__div__(other)

    def __rtruediv__(self, other):
        return self.__rdiv__(other)

    def __mod__(self, other):
        return _binary(self, other, "_Mod", "_ModScalar")

    def __rmod__(self, other):
        return _scalar_only(self, other, "_RModScalar")

    def __pow__(self, other):
        return _binary(self, other, "_Power", "_PowerScalar")

    def __rpow__(self, other):
        return _scalar_only(self, other, "_rpower_scalar")

    def __neg__(self):
        return self.__mul__(-1.0)

    def __abs__(self):
        return self.abs()

    def __eq__(self, other):
        return _binary(self, other, "_equal", "_equal_scalar")

    def __ne__(self, other):
        return _binary(self, other, "_not_equal", "_not_equal_scalar")

    def __gt__(self, other):
        return _binary(self, other, "_greater", "_greater_scalar")

    def __ge__(self, other):
        return _binary(self, other, "_greater_equal", "_greater_equal_scalar")

    def __lt__(self, other):
        return _binary(self, other, "_lesser", "_lesser_scalar")

    def __le__(self, other):
        return _binary(self, other, "_lesser_equal", "_lesser_equal_scalar")


    def __iadd__(self, other):
        raise NotImplementedForSymbol(self.__iadd__, "+=", other, 1)

    def __isub__(self, other):
        raise NotImplementedForSymbol(self.__isub__, "-=", other, 1)

    def __imul__(self, other):
        raise NotImplementedForSymbol(self.__imul__, "*=", other, 1)

    def __idiv__(self, other):
        raise NotImplementedForSymbol(self.__idiv__, "/=", other, 1)

    def __itruediv__(self, other):
        raise NotImplementedForSymbol(self.__itruediv__, "/=", other, 1)

    # ------------------------------------------------------------------ graph queries
    @property
    def name(self):
        """Name of the node giving the outputs; None for a group of several nodes."""
        return self.handle.name()

    def attr(self, key):
        """One attribute of the head node as a string; None when not set."""
        return self.handle.attr(key)

    def list_attr(self, recursive=False):
        """Attributes of the head node (hidden keys also under their plain name)."""
        if recursive:
            raise DeprecationWarning("Symbol.list_attr with recursive=True has been deprecated. "
                                     "Please use attr_dict instead.")
        return dict(self.handle.list_attr(False))

    def attr_dict(self):
        """{node name: {key: value}} over every node of the graph."""
        ret = {}
        for full_key, val in self.handle.list_attr(True):
            name, key = full_key.split("$", 1)
            ret.setdefault(name, {})[key] = val
        return ret

    def _set_attr(self, **kwargs):
        for key, value in kwargs.items():
            if not isinstance(value, string_types):
                raise ValueError("Set Attr only accepts string values")
            self.handle.set_attr(key, str(value))

    def get_internals(self):
        """Every output of every node (variables included) as one grouped symbol."""
        return Symbol(self.handle.get_internals())

    def get_children(self):
        """The inputs of the head node(s) as a grouped symbol; None for a variable."""
        ret = Symbol(self.handle.get_children())
        return ret if len(ret) > 0 else None

    def list_arguments(self):
        """Names of the input variables, in graph order (auxiliary states excluded)."""
        return self.handle.list_arguments()

    def list_outputs(self):
        """Output names: "<node>_output" (or the op's own output names), a variable's name."""
        return self.handle.list_outputs()

    def list_auxiliary_states(self):
        """Names of the variables an operator updates in place (e.g. batch-norm statistics)."""
        return self.handle.list_auxiliary_states()

    def list_inputs(self):
        """Names of every variable: arguments and auxiliary states, in graph order."""
        return self.handle.list_inputs()

    def debug_str(self):
        """A text listing of the graph's nodes, inputs and attributes."""
        return self.handle.debug_str()

    def tojson(self, remove_amp_cast=True):
        """The graph in MXNet's -symbol.json format (loadable by MXNet 1.9's sym.load)."""
        del remove_amp_cast  # no pass here inserts amp_cast nodes
        return self.handle.tojson()

    def save(self, fname, remove_amp_cast=True):
        """Write tojson() to fname (MXNet's -symbol.json file)."""
        del remove_amp_cast
        if not isinstance(fname, string_types):
            raise TypeError("fname need to be string")
        self.handle.save(fname)

    # ------------------------------------------------------------------ inference and binding
    # The passes and the executor live in C++ (src/nnvm/infer_attr.cc, src/executor); the
    # argument handling of MXNet 1.9.1's methods is in _infer.py and executor.py.
    def infer_shape(self, *args, **kwargs):
        """(arg_shapes, out_shapes, aux_shapes) from the given input shapes (positional in
        list_arguments order, or by name); (None, None, None) when some stay unknown."""
        return _infer.infer_shape(self, *args, **kwargs)

    def infer_shape_partial(self, *args, **kwargs):
        """As infer_shape, with the shapes left unknown given as () or with 0 dims."""
        return _infer.infer_shape_partial(self, *args, **kwargs)

    def infer_type(self, *args, **kwargs):
        """(arg_types, out_types, aux_types) as numpy types from the given input types."""
        return _infer.infer_type(self, *args, **kwargs)

    def infer_type_partial(self, *args, **kwargs):
        """As infer_type, with None for the types left unknown."""
        return _infer.infer_type_partial(self, *args, **kwargs)

    def bind(self, ctx, args, args_grad=None, grad_req="write", aux_states=None,
             group2ctx=None, shared_exec=None):
        """An Executor over the given argument (and gradient, aux) arrays."""
        from .. import executor
        return executor.bind(self, ctx, args, args_grad, grad_req, aux_states, group2ctx,
                             shared_exec)

    def optimize_for(self, backend, args=None, aux=None, ctx=None, shape_dict=None,
                     type_dict=None, stype_dict=None, skip_infer=False, **kwargs):
        """A new symbol partitioned by the subgraph backend named `backend` ('ONEDNN' or its
        old name 'MKLDNN', the test backends 'default' / 'default_v2'); kwargs are the
        backend's options (dedup_subgraph=True shares one subgraph input per entry).
        args / aux (arrays by list or name), ctx and the shape / type dicts are accepted as
        in MXNet 1.9.1: these backends fold parameters at run time and add none."""
        if not isinstance(backend, string_types):
            raise TypeError("optimize_for: backend expected a string, given %s"
                            % type(backend).__name__)
        for what, value in (("args", args), ("aux", aux)):
            if value is not None and not isinstance(value, (list, tuple, dict)):
                raise TypeError("optimize_for: %s expected a list or dict of NDArrays, given %s"
                                % (what, type(value).__name__))
        options = {key: str(value) for key, value in kwargs.items()}
        return Symbol(_ffi.symbol_optimize_for(self.handle, backend, options))

    def simple_bind(self, ctx, grad_req="write", type_dict=None, stype_dict=None,
                    group2ctx=None, shared_arg_names=None, shared_exec=None, shared_buffer=None,
                    **kwargs):
        """An Executor with arrays allocated from the input shapes given by name."""
        from .. import executor
        return executor.simple_bind(self, ctx, grad_req, type_dict, stype_dict, group2ctx,
                                    shared_arg_names, shared_exec, shared_buffer, **kwargs)

    def eval(self, ctx=None, **kwargs):
        """Bind the given arrays (by argument name) and run forward once: the outputs."""
        from .. import executor
        return executor.eval_symbol(self, ctx, **kwargs)

    def gradient(self, wrt):
        """Not implemented in MXNet 1.9.1 either (MXSymbolGrad); use bind + backward."""
        raise MXNetError("Symbol.gradient is not implemented (as in MXNet 1.9.1): bind the "
                         "symbol and call backward instead; wrt=%s" % (wrt,))

    def _gen_atomic_symbol(self):
        return Symbol(self.handle.gen_atomic())

    def as_nd_ndarray(self):
        return self

    # ------------------------------------------------------------------ fluent methods
    # defined below from _FLUENT: x.op(...) == mx.sym.op(x, ...)
    def flatten(self, inplace=False, **kwargs):  # pylint: disable=unused-argument
        return op.flatten(self, **kwargs)

    def expand_dims(self, axis, inplace=False, **kwargs):  # pylint: disable=unused-argument
        return op.expand_dims(self, axis=axis, **kwargs)

    def squeeze(self, axis=None, inplace=False, **kwargs):  # pylint: disable=unused-argument
        return op.squeeze(self, axis=axis, **kwargs)

    def astype(self, *args, **kwargs):
        return op.cast(self, *args, **kwargs)

    def diag(self, k=0, **kwargs):
        return op.diag(self, k, **kwargs)

    def split_v2(self, *args, **kwargs):
        return split_v2(self, *args, **kwargs)

    def wait_to_read(self):
        raise NotImplementedForSymbol(self.wait_to_read, None)

    def asnumpy(self):
        raise NotImplementedForSymbol(self.asnumpy, None)

    def asscalar(self):
        raise NotImplementedForSymbol(self.asscalar, None)

    def copy(self):
        raise NotImplementedForSymbol(self.copy, None)

    def as_in_context(self):
        raise NotImplementedForSymbol(self.as_in_context, None)

    def detach(self):
        raise NotImplementedForSymbol(self.detach, None)

    def backward(self):
        raise NotImplementedForSymbol(self.backward, None)


_FLUENT = [
    "reshape", "reshape_like", "zeros_like", "ones_like", "broadcast_axes", "repeat", "pad",
    "swapaxes", "split", "slice", "slice_axis", "slice_like", "take", "one_hot", "pick", "sort",
    "topk", "argsort", "argmax", "argmax_channel", "argmin", "clip", "abs", "sign",
    "shape_array", "size_array", "broadcast_to", "broadcast_like", "tile", "transpose", "flip",
    "depth_to_space", "space_to_depth", "sum", "nansum", "prod", "nanprod", "mean", "max", "min",
    "norm", "round", "rint", "fix", "floor", "ceil", "trunc", "sin", "cos", "tan", "arcsin",
    "arccos", "arctan", "degrees", "radians", "sinh", "cosh", "tanh", "arcsinh", "arccosh",
    "arctanh", "exp", "expm1", "log", "log10", "log2", "log1p", "sqrt", "rsqrt", "cbrt", "rcbrt",
    "square", "reciprocal", "relu", "sigmoid", "softmax", "log_softmax", "softmin",
]


def _make_fluent(fname):
    def method(self, *args, **kwargs):
        return getattr(op, fname)(self, *args, **kwargs)
    method.__name__ = fname
    method.__doc__ = "Convenience fluent method for :py:func:`%s` with this symbol as data." % fname
    return method


for _fname in _FLUENT:
    setattr(Symbol, _fname, _make_fluent(_fname))


# ---------------------------------------------------------------------- module functions
def var(name, attr=None, shape=None, lr_mult=None, wd_mult=None, dtype=None, init=None,
        stype=None, **kwargs):
    """A symbolic variable: an input of the graph, with optional shape, dtype, learning-rate
    and weight-decay multipliers, initializer, storage type and __attributes__."""
    if not isinstance(name, string_types):
        raise TypeError("Expect a string for variable `name`")
    ret = Symbol(_ffi.symbol_create_variable(name))
    if not hasattr(AttrScope._current, "value"):
        AttrScope._current.value = AttrScope()
    attr = AttrScope._current.value.get(attr)
    attr = {} if attr is None else attr
    if shape is not None:
        attr["__shape__"] = str(shape)
    if lr_mult is not None:
        attr["__lr_mult__"] = str(lr_mult)
    if wd_mult is not None:
        attr["__wd_mult__"] = str(wd_mult)
    if dtype is not None:
        np_dtype = _numpy.dtype(dtype)
        if np_dtype == _BFLOAT16_NP:
            attr["__dtype__"] = "12"
        else:
            if np_dtype not in _NP_DTYPE_FLAGS:
                raise TypeError("var %s: unsupported dtype %s" % (name, np_dtype))
            attr["__dtype__"] = str(_NP_DTYPE_FLAGS[np_dtype])
    if init is not None:
        if not isinstance(init, string_types):
            init = init.dumps()
        attr["__init__"] = init
    if stype is not None:
        if stype not in _STORAGE_TYPE_STR_TO_ID:
            raise ValueError("var %s: unknown storage type %r" % (name, stype))
        attr["__storage_type__"] = str(_STORAGE_TYPE_STR_TO_ID[stype])
    for k, v in kwargs.items():
        if k.startswith("__") and k.endswith("__"):
            attr[k] = str(v)
        else:
            raise ValueError("Attribute name=%s is not supported. Additional attributes must "
                             "start and end with double underscores, e.g, __yourattr__" % k)
    ret._set_attr(**attr)
    return ret


Variable = var


def Group(symbols, create_fn=Symbol):
    """One symbol whose outputs are the outputs of symbols, in order."""
    if not symbols or any(not isinstance(sym, Symbol) for sym in symbols):
        raise TypeError("Expected a list of symbols as input")
    return create_fn(_ffi.symbol_create_group([s.handle for s in symbols]))


def load(fname):
    """Load a symbol from a -symbol.json file (any MXNet 1.x or older layout)."""
    if not isinstance(fname, string_types):
        raise TypeError("fname need to be string")
    return Symbol(_ffi.symbol_load_file(fname))


def load_json(json_str):
    """Load a symbol from -symbol.json text."""
    if not isinstance(json_str, string_types):
        raise TypeError("fname required to be string")
    return Symbol(_ffi.symbol_load_json(json_str))


def _sym_or_scalar(left, right, sym_fn, scalar_fn, number_fn, swap_scalar=True, rscalar_fn=None):
    if isinstance(left, Symbol) and isinstance(right, Symbol):
        return getattr(_internal, sym_fn)(left, right)
    if isinstance(left, Symbol) and isinstance(right, Number):
        return getattr(_internal, scalar_fn)(left, scalar=right)
    if isinstance(left, Number) and isinstance(right, Symbol):
        return getattr(_internal, rscalar_fn or scalar_fn)(right, scalar=left)
    if isinstance(left, Number) and isinstance(right, Number):
        return number_fn(left, right)
    raise TypeError("types (%s, %s) not supported" % (str(type(left)), str(type(right))))


def pow(base, exp):  # pylint: disable=redefined-builtin
    """base ** exp, element-wise, for Symbols and numbers."""
    return _sym_or_scalar(base, exp, "_Power", "_PowerScalar", lambda a, b: a ** b,
                          rscalar_fn="_RPowerScalar")


def power(base, exp):
    """Same as pow."""
    return pow(base, exp)


def maximum(left, right):
    """Element-wise maximum of Symbols and numbers."""
    return _sym_or_scalar(left, right, "_Maximum", "_MaximumScalar",
                          lambda a, b: a if a > b else b)


def minimum(left, right):
    """Element-wise minimum of Symbols and numbers."""
    return _sym_or_scalar(left, right, "_Minimum", "_MinimumScalar",
                          lambda a, b: a if a < b else b)


def hypot(left, right):
    """sqrt(left**2 + right**2), element-wise."""
    return _sym_or_scalar(left, right, "_Hypot", "_HypotScalar", _numpy.hypot)


def eye(N, M=0, k=0, dtype=None, **kwargs):
    """A 2-D symbol with ones on the k-th diagonal."""
    return _internal._eye(N, M, k, dtype=_numpy.float32 if dtype is None else dtype, **kwargs)


def zeros(shape, dtype=None, **kwargs):
    """A symbol of zeros."""
    return _internal._zeros(shape=shape, dtype=_numpy.float32 if dtype is None else dtype, **kwargs)


def ones(shape, dtype=None, **kwargs):
    """A symbol of ones."""
    return _internal._ones(shape=shape, dtype=_numpy.float32 if dtype is None else dtype, **kwargs)


def full(shape, val, dtype=None, **kwargs):
    """A symbol filled with val."""
    return _internal._full(shape=shape, dtype=_numpy.float32 if dtype is None else dtype,
                           value=float(val), **kwargs)


def arange(start, stop=None, step=1.0, repeat=1, infer_range=False, name=None, dtype=None):
    """Evenly spaced values in [start, stop)."""
    return _internal._arange(start=start, stop=stop, step=step, repeat=repeat,
                             infer_range=infer_range, name=name,
                             dtype=_numpy.float32 if dtype is None else dtype)


def linspace(start, stop, num, endpoint=True, name=None, dtype=None):
    """num evenly spaced values from start to stop."""
    return _internal._linspace(start=start, stop=stop, num=num, endpoint=endpoint, name=name,
                               dtype=_numpy.float32 if dtype is None else dtype)


def histogram(a, bins=10, range=None, **kwargs):  # pylint: disable=redefined-builtin
    """Histogram of a: bins a Symbol of edges, or a count with range (lo, hi)."""
    if isinstance(bins, Symbol):
        return _internal._histogram(data=a, bins=bins, **kwargs)
    if isinstance(bins, integer_types):
        if range is None:
            raise ValueError("null range is not supported in symbol mode")
        return _internal._histogram(data=a, bin_cnt=bins, range=range, **kwargs)
    raise ValueError("bins argument should be either an integer or an NDArray")


def split_v2(ary, indices_or_sections, axis=0, squeeze_axis=False):
    """Split ary along axis into sections (an int) or at indices (a tuple)."""
    indices, sections = [], 0
    if isinstance(indices_or_sections, int):
        sections = indices_or_sections
    elif isinstance(indices_or_sections, tuple):
        indices = [0] + list(indices_or_sections)
    else:
        raise ValueError("indices_or_sections must either int or tuple of ints")
    return _internal._split_v2(ary, indices=indices, axis=axis, squeeze_axis=squeeze_axis,
                               sections=sections)
