"""mx.sym.sparse: the operators MXNet 1.9.1 lists for sparse arrays, as symbol functions (the
same functions as mx.sym.<name>; retain and adagrad_update exist only here)."""
from ..ndarray.sparse import _SPARSE_OP_NAMES


def _populate(op_module, internal_module):
    """Attach the op functions once mx.sym's generated functions exist."""
    mod = globals()
    for name in _SPARSE_OP_NAMES:
        if hasattr(op_module, name):
            mod[name] = getattr(op_module, name)
    for name in ("retain", "adagrad_update"):
        if hasattr(internal_module, "_sparse_" + name):
            mod[name] = getattr(internal_module, "_sparse_" + name)
