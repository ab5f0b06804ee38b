"""Generate the mx.nd.<op> functions (with docstrings) from the C++ operator registry."""
import keyword

from .. import _ffi
from ..base import string_types

_NDArray = _ffi.NDArray


def _doc(info):
    lines = [info["description"] or info["name"], "", "Parameters", "----------"]
    for name, typ, desc in info["arguments"]:
        lines.append("%s : %s" % (name, typ))
        if desc:
            lines.append("    " + desc)
    lines += ["out : NDArray, optional", "    The output NDArray to hold the result.", "",
              "Returns", "-------", "out : NDArray or list of NDArrays",
              "    The output of this function."]
    return "\n".join(lines)


def _is_array_arg(typ):
    return typ.startswith("NDArray") or typ.startswith("Symbol")


def make_op_function(op_name, func_name=None):
    """Build the Python function for one registered operator."""
    info = _ffi.op_info(op_name)
    index = info["index"]
    arguments = info["arguments"]
    array_names = [a[0] for a in arguments if _is_array_arg(a[1])]
    param_names = [a[0] for a in arguments if not _is_array_arg(a[1])]
    variadic = info["variadic"] or any(a[1].startswith("NDArray-or-Symbol[]") for a in arguments)
    num_args_key = info["key_var_num_args"]
    invoke = _ffi.invoke

    def op_function(*args, **kwargs):
        out = kwargs.pop("out", None)
        kwargs.pop("name", None)
        inputs = []
        params = kwargs
        pos_params = []
        for a in args:
            if isinstance(a, _NDArray):
                inputs.append(a)
            elif isinstance(a, (list, tuple)) and variadic and a and isinstance(a[0], _NDArray):
                inputs.extend(a)
            elif a is None and not pos_params and len(inputs) < len(array_names):
                continue  # an optional array input passed as None
            else:
                pos_params.append(a)
        if pos_params:
            if len(pos_params) > len(param_names):
                raise TypeError("%s() takes at most %d positional parameters, given %d"
                                % (func_name or op_name, len(param_names), len(pos_params)))
            for n, v in zip(param_names, pos_params):
                if n in params:
                    raise TypeError("%s() got multiple values for argument '%s'" % (func_name or op_name, n))
                params[n] = v
        for n in array_names:
            if n in params and isinstance(params[n], _NDArray):
                inputs.append(params.pop(n))
            elif n in params and params[n] is None:
                params.pop(n)
        if "dtype" in params and params["dtype"] is None:
            params.pop("dtype")
        if "ctx" in params:
            ctx = params["ctx"]
            if ctx is None:
                params.pop("ctx")
            else:
                params["ctx"] = str(ctx)
        if num_args_key and num_args_key not in params:
            params[num_args_key] = len(inputs)
        return invoke(index, inputs, params or None, out)

    op_function.__name__ = func_name or op_name
    op_function.__qualname__ = op_function.__name__
    op_function.__doc__ = _doc(info)
    return op_function


def _public_name(name):
    return name if not keyword.iskeyword(name) else name + "_"


def populate(module, internal_module, contrib_module, random_module, linalg_module):
    """Attach every registered op to the mx.nd namespaces the way MXNet 1.9 lays them out."""
    for name in _ffi.list_op_names():
        func = make_op_function(name)
        if name.startswith("_contrib_"):
            short = name[len("_contrib_"):]
            setattr(contrib_module, short, make_op_function(name, short))
            setattr(internal_module, name, func)
        elif name.startswith("_random_") or name.startswith("_sample_"):
            setattr(internal_module, name, func)
        elif name.startswith("_linalg_"):
            short = name[len("_linalg_"):]
            setattr(linalg_module, short, make_op_function(name, short))
            setattr(internal_module, name, func)
        elif name.startswith("linalg_"):
            setattr(module, name, func)
        elif name.startswith("_"):
            setattr(internal_module, name, func)
        else:
            if not hasattr(module, _public_name(name)):
                setattr(module, _public_name(name), func)
            setattr(internal_module, name, func)
