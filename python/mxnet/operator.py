"""mx.operator: operators written in Python (CustomOp / CustomOpProp), run by the engine.

Register a ``CustomOpProp`` subclass with ``@mx.operator.register("name")`` and call it as
``mx.nd.Custom(*inputs, op_type="name", **kwargs)``; the kwargs reach the prop's ``__init__``
as strings. Forward and backward run on the custom-operator worker threads (see
docs/custom_op.md); an exception they raise surfaces as MXNetError when the result is waited
for.
"""
import atexit
import collections
import os

from . import _ffi

# No __all__, as in MXNet 1.9.1: `from mxnet.operator import *` also gives the module's
# ctypes names (code written for 1.9.1, e.g. monitor callbacks, relies on ctypes and
# NDArrayHandle coming from it).
import ctypes  # noqa: E402,F401
from .base import NDArrayHandle, py_str  # noqa: E402,F401

_DEFAULT_STYPE = "default"


class CustomOp(object):
    """Base class of the operator instances a CustomOpProp creates."""

    def __init__(self):
        pass

    def forward(self, is_train, req, in_data, out_data, aux):
        """Compute out_data from in_data.

        Parameters
        ----------
        is_train : bool
            Whether the call is for training.
        req : list of str
            How to write each output: 'null', 'write', 'inplace' or 'add'
            (``self.assign`` honours it).
        in_data, out_data, aux : list of NDArray
            Inputs, outputs and auxiliary states.
        """

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        """Compute in_grad from the arrays declare_backward_dependency asked for.

        Parameters
        ----------
        req : list of str
            How to write each input gradient ('null', 'write', 'inplace' or 'add').
        out_grad, in_data, out_data, in_grad, aux : list of NDArray
            Arrays not declared as dependencies are empty.
        """

    def assign(self, dst, req, src):
        """Write src into dst as req says: nothing ('null'), overwrite ('write',
        'inplace') or accumulate ('add')."""
        if req == "null":
            return
        if req in ("write", "inplace"):
            dst[:] = src
        elif req == "add":
            dst[:] += src
        else:
            raise ValueError("CustomOp.assign: req expected 'null', 'write', 'inplace' or "
                             "'add', given %r" % (req,))


class CustomOpProp(object):
    """Base class of what a custom operator declares: its inputs, outputs, auxiliary
    states, shape/type inference, backward dependencies and the operator it creates.

    Parameters
    ----------
    need_top_grad : bool
        Whether the default declare_backward_dependency asks for the output gradients.
    """

    def __init__(self, need_top_grad=True):
        self.need_top_grad_ = need_top_grad

    def infer_shape(self, in_shape):
        """Return (input shapes, output shapes[, aux shapes]) from the argument shapes
        (in list_arguments order). By default every output takes the first input's shape."""
        return in_shape, (in_shape[0],) * len(self.list_outputs()), ()

    def infer_type(self, in_type):
        """Return (input types, output types[, aux types]) from the argument numpy types.
        By default everything takes the first input's type."""
        return in_type, [in_type[0]] * len(self.list_outputs()), \
            [in_type[0]] * len(self.list_auxiliary_states())

    def infer_storage_type(self, in_stype):
        """Return (input, output[, aux]) storage types. Only dense ('default') storage
        exists, so other storage types are rejected."""
        for i, stype in enumerate(in_stype):
            if stype != _DEFAULT_STYPE:
                raise ValueError("infer_storage_type: in_stype[%d] is '%s'; only 'default' "
                                 "storage is supported" % (i, stype))
        return in_stype, [_DEFAULT_STYPE] * len(self.list_outputs()), \
            [_DEFAULT_STYPE] * len(self.list_auxiliary_states())

    def infer_storage_type_backward(self, ograd_stype, in_stype, out_stype, igrad_stype,
                                    aux_stype):
        """Storage types of the backward's arrays: all 'default' (dense)."""
        lists = [ograd_stype, in_stype, out_stype, igrad_stype, aux_stype]
        for name, stypes in zip(("ograd_stype", "igrad_stype"), (ograd_stype, igrad_stype)):
            for i, stype in enumerate(stypes):
                if stype not in (_DEFAULT_STYPE, "undefined"):
                    raise ValueError("infer_storage_type_backward: %s[%d] is '%s'; only "
                                     "'default' storage is supported" % (name, i, stype))
        return tuple([_DEFAULT_STYPE] * len(l) for l in lists)

    def list_outputs(self):
        """Names of the outputs."""
        return ["output"]

    def list_arguments(self):
        """Names of the inputs."""
        return ["data"]

    def list_auxiliary_states(self):
        """Names of the auxiliary states (inputs the operator updates)."""
        return []

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        """Ids (taken from the three lists) of the arrays backward needs: by default the
        output gradients (when need_top_grad), the inputs and the outputs."""
        deps = []
        if self.need_top_grad_:
            deps.extend(out_grad)
        deps.extend(in_data)
        deps.extend(out_data)
        return deps

    def create_operator(self, ctx, in_shapes, in_dtypes):
        """Create the CustomOp for one call on ctx, given the input shapes and dtype flags."""
        # pylint: disable=unused-argument
        return CustomOp()


def register(reg_name):
    """Class decorator registering a CustomOpProp subclass as operator ``reg_name``
    (called as ``mx.nd.Custom(..., op_type=reg_name)``)."""
    def do_register(prop_cls):
        _ffi.custom_op_register(reg_name, prop_cls)
        return prop_cls
    return do_register


def get_all_registered_operators():
    """Names of all registered operators."""
    return list(_ffi.list_op_names())


OperatorArguments = collections.namedtuple("OperatorArguments", ["narg", "names", "types"])


def get_operator_arguments(op_name):
    """Number, names and types of an operator's arguments."""
    info = _ffi.op_info(op_name)
    names = [a[0] for a in info["arguments"]]
    types = [a[1] for a in info["arguments"]]
    return OperatorArguments(len(names), names, types)


# Pending custom ops finish while Python can still run them; afterwards nothing calls in.
atexit.register(_ffi.custom_op_shutdown)
# Before a fork the engine finishes its work, with the forking thread holding the GIL; the
# custom ops among that work need the GIL, so they are waited for first, without it.
if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_ffi.custom_op_before_fork)

from ._numpy_op import PythonOp, NumpyOp  # noqa: E402,F401  (they build on the classes above)
