"""Generate the mx.sym.<op> functions (with docstrings and signatures) from the C++ operator
registry, as mx.nd's are: one generic creator, specialised per op by its registry entry."""
import inspect
import keyword

import numpy as _np

from .. import _ffi
from ..attribute import AttrScope
from ..base import _Null
from ..name import NameManager


def _doc(info):
    lines = [info["description"] or info["name"], "", "Parameters", "----------"]
    for name, typ, desc in info["arguments"]:
        lines.append("%s : %s" % (name, typ))
        if desc:
            lines.append("    " + desc)
    lines += ["name : string, optional.", "    Name of the resulting symbol.", "",
              "Returns", "-------", "Symbol", "    The result symbol."]
    return "\n".join(lines)


def _dtype_text(value):
    dt = _np.dtype(value)
    return dt.names[0] if dt.names else dt.name


def _value_text(value):
    """A kwarg as MXNet 1.9's front passes it to the op's parser: str(value)."""
    return str(value)


def _symbol_class():
    from .symbol import Symbol
    return Symbol


def create_symbol(op_name, args, sym_kwargs, keys, vals, name):
    """An op node (kwargs keys/vals) composed with its inputs: positional Symbols args, or
    Symbols by input name sym_kwargs; named by the current NameManager."""
    Symbol = _symbol_class()
    if args and sym_kwargs:
        raise TypeError("Operators with variable length input can only accept input Symbols "
                        "either as positional or keyword arguments, not both")
    handle = _ffi.symbol_create_atomic(op_name, keys, [_value_text(v) for v in vals])
    s = Symbol(handle)
    s._compose(*(args or ()), name=name, **(sym_kwargs or {}))
    return s


def _current_attr(attr):
    if not hasattr(AttrScope._current, "value"):
        AttrScope._current.value = AttrScope()
    return AttrScope._current.value.get(attr)


def _current_name(name, hint):
    if not hasattr(NameManager._current, "value"):
        NameManager._current.value = NameManager()
    return NameManager._current.value.get(name, hint)


def _split_kwargs(kwargs):
    """(Symbol inputs by name, kwarg keys, kwarg values) of the remaining kwargs."""
    Symbol = _symbol_class()
    sym_kwargs, keys, vals = {}, [], []
    for k, v in kwargs.items():
        if isinstance(v, Symbol):
            sym_kwargs[k] = v
        else:
            keys.append(k)
            vals.append(v)
    return sym_kwargs, keys, vals


def make_symbol_function(op_name, func_name=None, module="mxnet.symbol"):
    """The mx.sym function of one registered op: array arguments (positional or by name, or
    *args for variadic ops) become inputs; other arguments are the op's kwargs; name and attr
    as MXNet 1.9 (NameManager hint: the function name lowercased)."""
    info = _ffi.op_info(op_name)
    func_name = func_name or op_name
    hint = func_name.lower()
    array_names, param_names, var_array = [], [], None
    for arg_name, arg_type, _ in info["arguments"]:
        if arg_type.startswith("NDArray") or arg_type.startswith("Symbol"):
            if arg_type.endswith("[]"):
                var_array = arg_name
            else:
                array_names.append(arg_name)
        else:
            param_names.append(arg_name)
    key_var = info["key_var_num_args"]
    # ops whose input count comes from an argument but whose doc lists no "[]" input
    if var_array is None and info["variadic"] and key_var:
        var_array = "data"
    Symbol = _symbol_class()

    if var_array is not None:
        def fn(*args, **kwargs):
            for a in args:
                if not isinstance(a, Symbol):
                    raise TypeError("%s: positional arguments must be Symbol instances, but got %s"
                                    % (func_name, str(a)))
            if "dtype" in kwargs:
                kwargs["dtype"] = _dtype_text(kwargs["dtype"])
            attr = kwargs.pop("attr", None)
            kwargs.update(_current_attr(attr))
            name = _current_name(kwargs.pop("name", None), hint)
            kwargs.pop("out", None)
            sym_kwargs, keys, vals = _split_kwargs(kwargs)
            if key_var and key_var not in kwargs:
                keys.append(key_var)
                vals.append(len(args) + len(sym_kwargs))
            return create_symbol(op_name, list(args), sym_kwargs, keys, vals, name)
        params = [inspect.Parameter(var_array, inspect.Parameter.VAR_POSITIONAL),
                  inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD)]
    else:
        positional = array_names + param_names

        def fn(*args, **kwargs):
            if len(args) > len(positional):
                raise TypeError("%s() takes at most %d positional arguments (%d given)"
                                % (func_name, len(positional), len(args)))
            for k, v in zip(positional, args):
                if k in kwargs:
                    raise TypeError("%s() got multiple values for argument '%s'" % (func_name, k))
                kwargs[k] = v
            name = kwargs.pop("name", None)
            attr = kwargs.pop("attr", None)
            kwargs.pop("out", None)
            arrays = {k: kwargs.pop(k) for k in array_names if k in kwargs}
            own = {k: kwargs.pop(k) for k in param_names if k in kwargs}
            kwargs.update(_current_attr(attr))
            sym_kwargs, keys, vals = _split_kwargs(kwargs)
            for k, v in arrays.items():
                if v is None:
                    continue
                if not isinstance(v, Symbol):
                    raise TypeError("Argument %s must be Symbol instances, but got %s" % (k, str(v)))
                sym_kwargs[k] = v
            for k, v in own.items():
                if v is _Null:
                    continue
                keys.append(k)
                vals.append(_dtype_text(v) if k == "dtype" else v)
            return create_symbol(op_name, None, sym_kwargs, keys, vals, _current_name(name, hint))
        params = [inspect.Parameter(k, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None)
                  for k in array_names]
        params += [inspect.Parameter(k, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=_Null)
                   for k in param_names if k.isidentifier() and not keyword.iskeyword(k)]
        params += [inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY, default=None)
                   for k in ("name", "attr", "out")]
        params.append(inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD))
    fn.__name__ = func_name
    fn.__qualname__ = func_name
    fn.__module__ = module
    fn.__doc__ = _doc(info)
    try:
        fn.__signature__ = inspect.Signature(params)
    except ValueError:
        pass
    return fn


def _public_name(name):
    return name if not keyword.iskeyword(name) else name + "_"


def populate(module, internal_module, contrib_module, random_module, linalg_module,
             image_module, op_module):
    """Attach every registered op to the mx.sym namespaces the way MXNet 1.9 lays them out."""
    for name in _ffi.list_op_names():
        func = make_symbol_function(name, module=internal_module.__name__)
        for prefix, sub in (("_image_", image_module), ("_contrib_", contrib_module),
                            ("_linalg_", linalg_module), ("_random_", None), ("_sample_", None)):
            if name.startswith(prefix):
                setattr(internal_module, name, func)
                if sub is not None:
                    short = name[len(prefix):]
                    setattr(sub, short, make_symbol_function(name, short, sub.__name__))
                elif random_module is not None and prefix == "_random_":
                    short = name[len(prefix):]
                    if not hasattr(random_module, short):
                        setattr(random_module, short,
                                make_symbol_function(name, short, random_module.__name__))
                break
        else:
            if name.startswith("_"):
                setattr(internal_module, name, func)
            else:
                public = make_symbol_function(name, module=module.__name__)
                setattr(op_module, _public_name(name), public)
                if not hasattr(module, _public_name(name)):
                    setattr(module, _public_name(name), public)
                setattr(internal_module, name, func)
