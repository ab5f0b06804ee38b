"""SymbolBlock: a HybridBlock whose graph is given (a Symbol, or -symbol.json + .params files).

Its parameters are the graph's arguments and auxiliary states that are not inputs, named
as in the graph (no prefix); they start deferred and get shapes from the first input.
"""
import copy
import warnings

import numpy as np

from .. import symbol
from ..base import InvalidConfigError, MXNetError
from ..ndarray import NDArray
from ..symbol import Symbol
from ._hybrid import _flatten, _infer, _regroup
from .block import HybridBlock, _common_prefix
from .parameter import ParameterDict

__all__ = ['SymbolBlock']

_ROW_SPARSE = '1'   # the storage-type id of row_sparse in a variable's __storage_type__


class SymbolBlock(HybridBlock):
    """Runs the graph `outputs` (a Symbol or list of Symbols) on NDArrays fed to the
    variables `inputs`; the graph's other arguments and auxiliary states are the block's
    parameters (shared with `params`, a ParameterDict, where names match)."""

    @staticmethod
    def imports(symbol_file, input_names, param_file=None, ctx=None, allow_missing=False,
                ignore_extra=False):
        """A SymbolBlock of a model written by `HybridBlock.export` or
        `Module.save_checkpoint`: the graph from `symbol_file`, inputs named `input_names`,
        parameters loaded from `param_file` ('arg:'/'aux:' prefixes accepted) keeping the
        file's dtypes."""
        sym = symbol.load(symbol_file)
        if isinstance(input_names, str):
            input_names = [input_names]
        if param_file is None:
            inputs = [symbol.var(name, dtype='float32') for name in input_names]
        else:
            inputs = [symbol.var(name) for name in input_names]
        block = SymbolBlock(sym, inputs)
        if param_file is not None:
            block.collect_params().load(param_file, ctx, allow_missing, ignore_extra,
                                        cast_dtype=True, dtype_source='saved')
        return block

    def __init__(self, outputs, inputs, params=None):
        super(SymbolBlock, self).__init__(prefix=None, params=None)
        self._prefix = ''
        self._params = ParameterDict('', params)
        if isinstance(inputs, Symbol) and len(inputs.list_outputs()) == 1:
            inputs = [inputs]
        if isinstance(outputs, (list, tuple)) and len(outputs) == 1:
            outputs = outputs[0]
        syms, self._in_format = _flatten(inputs, "input")
        out, self._out_format = _flatten(outputs, "output")
        input_names = set()
        for var in syms:
            if len(var.get_internals().list_outputs()) != 1:
                raise MXNetError("SymbolBlock: input symbols must be variables, but %s is the "
                                 "output of an operator" % str(var))
            input_names.add(var.name)
        for head in out:
            for node in head.get_internals():
                if node.attr('__storage_type__') == _ROW_SPARSE:
                    raise InvalidConfigError("SymbolBlock doesn't support Parameter '%s' "
                                             "because its storage type is 'row_sparse'."
                                             % node.name)
        out = symbol.Group(out) if len(out) > 1 else out[0]

        arg_names = out.list_arguments()
        aux_names = out.list_auxiliary_states()
        arg_types, aux_types = _infer_param_types(syms, out, arg_names, aux_names)
        for name, dtype in zip(arg_names, arg_types):
            if name not in input_names:
                self.params.get(name, allow_deferred_init=True, dtype=dtype)
        for name, dtype in zip(aux_names, aux_types):
            if name not in input_names:
                self.params.get(name, grad_req='null', allow_deferred_init=True, dtype=dtype)

        self._cached_graph = syms, out
        prefix_len = len(_common_prefix(list(self._params.keys())))
        self._reg_params = {key[prefix_len:]: value for key, value in self._params.items()}

    def __repr__(self):
        inputs, out = self._cached_graph
        return '{name}(\n{block} : {nin} -> {nout}\n)'.format(
            name=type(self).__name__, block=out, nin=len(inputs),
            nout=len(out.list_outputs()))

    def forward(self, x, *args):
        if isinstance(x, NDArray):
            with x.context:
                return self._call_cached_op(x, *args)
        if not isinstance(x, Symbol):
            raise TypeError("HybridBlock requires the first argument to forward be either "
                            "Symbol or NDArray, but got %s" % type(x))
        flat, fmt = _flatten([x] + list(args), "input")
        if fmt != self._in_format:
            raise ValueError("SymbolBlock: invalid input format %s, expected %s"
                             % (fmt, self._in_format))
        composed = copy.copy(self._cached_graph[1])
        composed._compose(**{var.name: value
                             for var, value in zip(self._cached_graph[0], flat)})
        return _regroup(list(composed), self._out_format)

    def _clear_cached_op(self):
        graph = self._cached_graph
        super(SymbolBlock, self)._clear_cached_op()
        self._cached_graph = graph

    def cast(self, dtype):
        self._clear_cached_op()
        super(SymbolBlock, self).cast(dtype)
        if np.dtype(dtype).name != 'float16':
            return
        # BatchNorm keeps its statistics, gamma and beta in float32 for float16 data
        names = self._cached_graph[1].get_internals().list_inputs()
        for name in names:
            for stat, mean in (('running_var', 'running_mean'), ('moving_var', 'moving_mean')):
                if not name.endswith(stat):
                    continue
                base = name[:-len(stat)]
                siblings = [base + suffix for suffix in (mean, 'gamma', 'beta')]
                if all(sib in names for sib in siblings):
                    for member in [name] + siblings:
                        self.params.get(member).cast('float32')

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError

    def reset_ctx(self, ctx):
        """Moves all parameters to `ctx` (a Context or a list of them)."""
        for param in self.collect_params().values():
            param.reset_ctx(ctx)


def _infer_param_types(inputs, out, arg_names, aux_names, default_dtype='float32'):
    """The dtypes of the graph's arguments and auxiliary states, inferred from the inputs'
    declared dtypes; float32 for all when the inputs declare none or inference fails."""
    arg_types = aux_types = None
    known = {}
    for var in inputs:
        with warnings.catch_warnings():   # a variable without a dtype is the usual case
            warnings.simplefilter('ignore')
            types = _infer(var, 'infer_type')[0]
        if not types:
            known = None
            break
        known[var.name] = types[0]
    if known is not None:
        try:
            arg_types, _, aux_types = _infer(out, 'infer_type', **known)
        except MXNetError:
            arg_types = aux_types = None
    if arg_types is None or len(arg_types) != len(arg_names):
        arg_types = [default_dtype] * len(arg_names)
    if aux_types is None or len(aux_types) != len(aux_names):
        aux_types = [default_dtype] * len(aux_names)
    return arg_types, aux_types
