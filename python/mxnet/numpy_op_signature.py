"""The mx.np / mx.npx function of a registered _np_* / _npx_* operator name (MXNet 1.9.1's
numpy_op_signature._get_builtin_op)."""
from . import numpy as _mx_np
from . import numpy_extension as _mx_npx

_SUBMODULES = {"_np_": (_mx_np, ("linalg", "random")), "_npx_": (_mx_npx, ("random",))}


def _get_builtin_op(op_name):
    """The function for operator op_name (None for a name without the _np_/_npx_ prefix;
    ValueError when no function of that name exists)."""
    for prefix, (root, submodules) in _SUBMODULES.items():
        if not op_name.startswith(prefix):
            continue
        name, module = op_name[len(prefix):], root
        for sub in submodules:
            if name.startswith(sub + "_"):
                name, module = name[len(sub) + 1:], getattr(root, sub)
                break
        op = getattr(module, name, None)
        if op is None:
            raise ValueError("Cannot find operator %s in module %s" % (name, module.__name__))
        return op
    return None
