"""mx.executor: a Symbol bound to arrays (Symbol.bind / simple_bind), as MXNet 1.9.1.

The graph, its gradient graph and the kernels run in C++ (src/executor); this class keeps
the Python arrays and converts arguments the way MXNet 1.9.1's Executor does."""
import numpy as np

from . import _ffi
from .base import MXNetError
from .context import Context, current_context
from .ndarray import NDArray
from . import ndarray

__all__ = ["Executor"]

_GRAD_REQ_MAP = {"null": 0, "write": 1, "add": 3}


class Executor:
    """Executor of a bound symbol: forward, backward and the bound arrays.

    Made by ``Symbol.bind`` / ``Symbol.simple_bind``, not directly."""

    def __init__(self, handle, symbol, ctx, grad_req, group2ctx):
        if not isinstance(handle, _ffi.ExecutorHandle):
            raise TypeError("Handle type error")
        self.handle = handle
        self.arg_arrays = []
        self.grad_arrays = []
        self.aux_arrays = []
        self.outputs = handle.outputs()
        self._symbol = symbol
        self._optimized_symbol = None
        self._arg_dict = None
        self._grad_dict = None
        self._aux_dict = None
        self._output_dict = None
        self._monitor_callback = None
        self._monitor_all = False
        self._ctx = ctx
        self._grad_req = grad_req
        self._group2ctx = group2ctx

    @staticmethod
    def _get_dict(names, ndarrays):
        """Name -> array, refusing duplicated names."""
        nset = set()
        for nm in names:
            if nm in nset:
                raise ValueError("Duplicate names detected, %s" % str(names))
            nset.add(nm)
        return dict(zip(names, ndarrays))

    def forward(self, is_train=False, **kwargs):
        """Compute the outputs; kwargs copy new values into arguments first (same shapes)."""
        if kwargs:
            arg_dict = self.arg_dict
            for name, array in kwargs.items():
                if not isinstance(array, (NDArray, np.ndarray)):
                    raise ValueError("only accept keyword argument of NDArrays and numpy.ndarray")
                if name not in arg_dict:
                    raise TypeError("Unknown argument %s" % name)
                if arg_dict[name].shape != array.shape:
                    raise ValueError("Shape not match! Argument %s, need: %s, received: %s"
                                     % (name, str(arg_dict[name].shape), str(array.shape)))
                arg_dict[name][:] = array
        self.handle.forward(bool(is_train))
        self.outputs = self.handle.outputs()
        return self.outputs

    def backward(self, out_grads=None, is_train=True):
        """Compute the gradients into grad_arrays; out_grads: the gradient of each output
        (an NDArray, a list, or a dict by output name; needed unless the outputs are losses)."""
        if out_grads is None:
            out_grads = []
        elif isinstance(out_grads, NDArray):
            out_grads = [out_grads]
        elif isinstance(out_grads, dict):
            out_grads = [out_grads[k] for k in self._symbol.list_outputs()]
        for obj in out_grads:
            if not isinstance(obj, NDArray):
                raise TypeError("inputs must be NDArray")
        self.handle.backward(list(out_grads), bool(is_train))

    def set_monitor_callback(self, callback, monitor_all=False):
        """callback(name, array) for each node output ("<node>_<output>") as it is computed,
        and each input too with monitor_all."""
        self._monitor_callback = callback
        self._monitor_all = monitor_all
        self.handle.set_monitor_callback(callback, bool(monitor_all))

    @property
    def arg_dict(self):
        """Argument name -> bound array."""
        if self._arg_dict is None:
            self._arg_dict = Executor._get_dict(self._symbol.list_arguments(), self.arg_arrays)
        return self._arg_dict

    @property
    def grad_dict(self):
        """Argument name -> gradient array (None where no gradient is computed)."""
        if self._grad_dict is None:
            self._grad_dict = Executor._get_dict(self._symbol.list_arguments(), self.grad_arrays)
        return self._grad_dict

    @property
    def aux_dict(self):
        """Auxiliary state name -> array."""
        if self._aux_dict is None:
            self._aux_dict = Executor._get_dict(self._symbol.list_auxiliary_states(),
                                                self.aux_arrays)
        return self._aux_dict

    @property
    def output_dict(self):
        """Output name -> output array."""
        if self._output_dict is None:
            self._output_dict = Executor._get_dict(self._symbol.list_outputs(), self.outputs)
        return self._output_dict

    def copy_params_from(self, arg_params, aux_params=None, allow_extra_params=False):
        """Copy arrays by name into the arguments (and auxiliary states), cast to their dtype."""
        for name, array in arg_params.items():
            if name in self.arg_dict:
                dst = self.arg_dict[name]
                array.astype(dst.dtype).copyto(dst)
            elif not allow_extra_params:
                raise ValueError("Find name \"%s\" that is not in the arguments" % name)
        if aux_params is None:
            return
        for name, array in aux_params.items():
            if name in self.aux_dict:
                dst = self.aux_dict[name]
                array.astype(dst.dtype).copyto(dst)
            elif not allow_extra_params:
                raise ValueError("Find name %s that is not in the auxiliary states" % name)

    def reshape(self, partial_shaping=False, allow_up_sizing=False, **kwargs):
        """A new executor for new argument shapes, sharing this one's memory where it can."""
        shapes = {k: v for k, v in kwargs.items() if isinstance(v, tuple)}
        handle = self.handle.reshape(shapes, bool(partial_shaping), bool(allow_up_sizing))
        ex = Executor(handle, self._symbol, self._ctx, self._grad_req, self._group2ctx)
        ex.arg_arrays = handle.arg_arrays()
        ex.grad_arrays = handle.grad_arrays()
        ex.aux_arrays = handle.aux_arrays()
        if self._monitor_callback is not None:  # the new executor reports to it too
            ex.set_monitor_callback(self._monitor_callback, self._monitor_all)
        return ex

    def debug_str(self):
        """The bound graph: each node with its inputs and output shapes."""
        return self.handle.debug_str()

    def get_optimized_symbol(self):
        """The symbol that runs: the bound one after common-expression elimination
        (MXNET_ELIMINATE_COMMON_EXPR)."""
        if self._optimized_symbol is None:
            from .symbol import Symbol
            self._optimized_symbol = Symbol(self.handle.symbol())
        return self._optimized_symbol


def _group_contexts(group2ctx):
    """group2ctx as the extension takes it: {group: (device type id, device id)}."""
    if not group2ctx:
        return {}
    out = {}
    for group, ctx in group2ctx.items():
        if not isinstance(ctx, Context):
            raise TypeError("group2ctx: the context of group %s must be a Context, given %s"
                            % (group, type(ctx)))
        out[group] = (ctx.device_typeid, ctx.device_id)
    return out


def _ndarray_inputs(arg_key, args, arg_names, allow_missing):
    """A positional list of arrays from a list or a name -> array dict (Symbol._get_ndarray_inputs)."""
    if isinstance(args, list):
        if len(args) != len(arg_names):
            raise ValueError("Length of %s does not match the number of arguments" % arg_key)
        for narr in args:
            if narr is None and allow_missing:
                continue
            if not isinstance(narr, NDArray):
                raise TypeError("Only accept list of NDArrays or dict of str to NDArray")
        return list(args)
    if isinstance(args, dict):
        arrays = []
        for name in arg_names:
            if name in args:
                narr = args[name]
                if not isinstance(narr, NDArray):
                    raise TypeError("Only accept list of NDArrays or dict of str to NDArray")
                arrays.append(narr)
            elif allow_missing:
                arrays.append(None)
            else:
                raise ValueError("key `%s` is missing in `%s`" % (name, arg_key))
        return arrays
    raise TypeError("Only accept list of NDArrays or dict of str to NDArray")


def _grad_req_list(grad_req, arg_names):
    if isinstance(grad_req, str):
        if grad_req not in _GRAD_REQ_MAP:
            raise ValueError("grad_req must be in %s" % str(_GRAD_REQ_MAP))
        return [_GRAD_REQ_MAP[grad_req]] * len(arg_names)
    if isinstance(grad_req, (list, tuple)):
        if len(grad_req) != len(arg_names):
            raise ValueError("grad_req: %d values given for %d arguments"
                             % (len(grad_req), len(arg_names)))
        return [_GRAD_REQ_MAP[item] for item in grad_req]
    if isinstance(grad_req, dict):
        return [_GRAD_REQ_MAP[grad_req[name]] if name in grad_req else 0 for name in arg_names]
    raise TypeError("grad_req must be a str, a list or a dict, given %s" % type(grad_req))


def bind(symbol, ctx, args, args_grad=None, grad_req="write", aux_states=None, group2ctx=None,
         shared_exec=None):
    """Symbol.bind (MXNet 1.9.1)."""
    del shared_exec  # memory is not shared between executors bound to given arrays
    if not isinstance(ctx, Context):
        raise TypeError("Context type error")
    arg_names = symbol.list_arguments()
    args = _ndarray_inputs("args", args, arg_names, False)
    if args_grad is not None:
        args_grad = _ndarray_inputs("args_grad", args_grad, arg_names, True)
    aux_states = _ndarray_inputs("aux_states", [] if aux_states is None else aux_states,
                                 symbol.list_auxiliary_states(), False)
    reqs = _grad_req_list(grad_req, arg_names)
    handle = _ffi.executor_bind(symbol.handle, ctx.device_typeid, ctx.device_id, args,
                                [None] * len(args) if args_grad is None else args_grad, reqs,
                                aux_states, _group_contexts(group2ctx))
    executor = Executor(handle, symbol, ctx, grad_req, group2ctx)
    executor.arg_arrays = args
    executor.grad_arrays = args_grad
    executor.aux_arrays = aux_states
    return executor


def simple_bind(symbol, ctx, grad_req="write", type_dict=None, stype_dict=None, group2ctx=None,
                shared_arg_names=None, shared_exec=None, shared_buffer=None, **kwargs):
    """Symbol.simple_bind (MXNet 1.9.1): shapes by name in kwargs, arrays allocated."""
    from .base import _NP_DTYPE_FLAGS
    from .ndarray.ndarray import _STORAGE_TYPE_STR_TO_ID
    arg_names = symbol.list_arguments()
    dtypes = {}
    if type_dict is not None:
        for k, v in type_dict.items():
            flag = _NP_DTYPE_FLAGS.get(np.dtype(v))
            if flag is not None:
                dtypes[k] = flag
    shapes = {k: v for k, v in kwargs.items() if isinstance(v, tuple)}
    # storage types by name (values that are no storage type are ignored, as in MXNet 1.9.1)
    stypes = {k: _STORAGE_TYPE_STR_TO_ID[v] for k, v in (stype_dict or {}).items()
              if v in _STORAGE_TYPE_STR_TO_ID and v != "undefined"}
    if grad_req is None:
        reqs = [0] * len(arg_names)
    elif isinstance(grad_req, list) and not grad_req:
        raise RuntimeError("grad_req in simple_bind cannot be an empty list")
    elif isinstance(grad_req, dict) and not grad_req:
        raise RuntimeError("grad_req in simple_bind cannot be an empty dict")
    else:
        reqs = _grad_req_list(grad_req, arg_names)
    if shared_arg_names is not None and not isinstance(shared_arg_names, list):
        raise ValueError("shared_arg_names in simple_bind must be a list or None")
    if shared_buffer is not None and not isinstance(shared_buffer, dict):
        raise ValueError("shared_buffer in simple_bind must be dict or None")
    try:
        handle = _ffi.executor_simple_bind(
            symbol.handle, ctx.device_typeid, ctx.device_id, shapes, dtypes, reqs,
            None if shared_exec is None else shared_exec.handle, shared_arg_names or [],
            shared_buffer, stypes, _group_contexts(group2ctx))
    except MXNetError as e:
        error_msg = "simple_bind error. Arguments:\n"
        for k, v in kwargs.items():
            error_msg += "%s: %s\n" % (k, v)
        error_msg += "%s" % e
        raise RuntimeError(error_msg) from None
    executor = Executor(handle, symbol, ctx, grad_req, group2ctx)
    executor.arg_arrays = handle.arg_arrays()
    executor.grad_arrays = handle.grad_arrays()
    executor.aux_arrays = handle.aux_arrays()
    return executor


def eval_symbol(symbol, ctx=None, **kwargs):
    """Symbol.eval: bind the given arrays and run forward once."""
    if ctx is None:
        ctx = current_context()
    return bind(symbol, ctx, kwargs).forward()


del ndarray
