"""Generate the mx.nd.<op> functions (with docstrings) from the C++ operator registry."""
import keyword

from .. import _ffi

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


def make_op_function(op_name, func_name=None, module="mxnet.ndarray"):
    """Build the function for one registered operator: a C++ callable (argument handling and
    the call are in C++, with no Python frame per call) with its name and docstring."""
    info = _ffi.op_info(op_name)
    return _ffi.make_op_function(info["index"], func_name or op_name, _doc(info), module)


def _public_name(name):
    return name if not keyword.iskeyword(name) else name + "_"


def populate(module, internal_module, contrib_module, random_module, linalg_module,
             image_module=None):
    """Attach every registered op to the mx.nd namespaces the way MXNet 1.9 lays them out."""
    for name in _ffi.list_op_names():
        func = make_op_function(name, module=module.__name__)
        if name.startswith("_image_") and image_module is not None:
            short = name[len("_image_"):]
            setattr(image_module, short, make_op_function(name, short, image_module.__name__))
            setattr(internal_module, name, func)
        elif name.startswith("_contrib_"):
            short = name[len("_contrib_"):]
            setattr(contrib_module, short, make_op_function(name, short, contrib_module.__name__))
            setattr(internal_module, name, func)
        elif name.startswith("_random_") or name.startswith("_sample_"):
            setattr(internal_module, name, func)
            # mx.nd.random.<short> for ops the module does not write by hand (the *_like ops)
            short = name[len("_random_"):]
            if (random_module is not None and name.startswith("_random_")
                    and not hasattr(random_module, short)):
                setattr(random_module, short,
                        make_op_function(name, short, random_module.__name__))
        elif name.startswith("_linalg_"):
            short = name[len("_linalg_"):]
            setattr(linalg_module, short, make_op_function(name, short, linalg_module.__name__))
            setattr(internal_module, name, func)
        elif name.startswith("linalg_"):
            setattr(module, name, func)
        elif name.startswith("_"):
            setattr(internal_module, name, func)
        else:
            if not hasattr(module, _public_name(name)):
                setattr(module, _public_name(name), func)
            setattr(internal_module, name, func)
