"""Block and HybridBlock: the containers of layers, their naming scopes and parameter files.

A HybridBlock runs imperatively (F = mx.nd) until `hybridize()`; then its first call traces
hybrid_forward with F = mx.sym into one graph that later calls run as one operation, and
`export()` writes that graph and the parameters in MXNet's -symbol.json / .params formats.
SymbolBlock (symbol_block.py) runs a graph made elsewhere (`SymbolBlock.imports`).
"""
import json
import re
import threading
import warnings
from collections import OrderedDict, defaultdict

from .. import initializer, ndarray, symbol
from .. import name as _name
from ..base import InvalidConfigError, MXNetError
from ..ndarray import NDArray
from ..symbol import Symbol
from ..symbol.numpy import SymbolicNumpyUnavailable
from ._hybrid import (GraphRunner, _flatten, _formats_compatible, _gather_type_ctx_info,
                      _infer, _regroup)
from .parameter import DeferredInitializationError, Parameter, ParameterDict
from .utils import HookHandle, _brief_print_list, _indent, shape_is_known
from ..util import is_np_array
from . import _np_mode

__all__ = ['Block', 'HybridBlock', 'SymbolBlock']


class _BlockScope(object):
    """The naming scope of a Block: children created inside `with block.name_scope()` get
    prefixes <parent prefix><hint><n>_ and share the parent's ParameterDict sharing."""
    _current = threading.local()

    def __init__(self, block):
        self._block = block
        self._counter = {}
        self._old_scope = None
        self._name_scope = None

    @staticmethod
    def create(prefix, params, hint):
        """The (prefix, ParameterDict) of a new block, given what its constructor got."""
        current = getattr(_BlockScope._current, "value", None)
        if current is None:
            if prefix is None:
                if not hasattr(_name.NameManager._current, "value"):
                    _name.NameManager._current.value = _name.NameManager()
                prefix = _name.NameManager._current.value.get(None, hint) + '_'
            params = ParameterDict(prefix) if params is None else ParameterDict(params.prefix,
                                                                                params)
            return prefix, params
        if prefix is None:
            count = current._counter.get(hint, 0)
            prefix = '%s%d_' % (hint, count)
            current._counter[hint] = count + 1
        if params is None:
            parent = current._block.params
            params = ParameterDict(parent.prefix + prefix, parent._shared)
        else:
            params = ParameterDict(params.prefix, params)
        return current._block.prefix + prefix, params

    def __enter__(self):
        if self._block._empty_prefix:
            return self
        self._old_scope = getattr(_BlockScope._current, "value", None)
        _BlockScope._current.value = self
        self._name_scope = _name.Prefix(self._block.prefix)
        self._name_scope.__enter__()
        return self

    def __exit__(self, ptype, value, trace):
        if self._block._empty_prefix:
            return
        self._name_scope.__exit__(ptype, value, trace)
        self._name_scope = None
        _BlockScope._current.value = self._old_scope


def _shape_str(args):
    """How summary() prints a (nested) structure of outputs: their shapes."""
    def shapes(x):
        if isinstance(x, (list, tuple)):
            return [shapes(i) for i in x]
        return x.shape if isinstance(x, NDArray) else x
    printed = shapes(args)
    return str(printed)[1:-1] if isinstance(printed, list) else str(printed)


class Block(object):
    """Base class of all layers and models.

    A Block holds Parameters and child Blocks assigned as attributes; `forward` defines
    the computation. `prefix` names its parameters (default: the lower-cased class name
    and a counter, inside the parent's prefix); `params` shares another block's
    ParameterDict.
    """

    def __init__(self, prefix=None, params=None):
        self._empty_prefix = prefix == ''
        self._prefix, self._params = _BlockScope.create(prefix, params, self._alias())
        self._name = self._prefix[:-1] if self._prefix.endswith('_') else self._prefix
        self._scope = _BlockScope(self)
        self._children = OrderedDict()
        self._reg_params = {}
        self._forward_hooks = OrderedDict()
        self._forward_pre_hooks = OrderedDict()

    def __repr__(self):
        children = '\n'.join(['  ({key}): {block}'.format(key=key,
                                                          block=_indent(repr(block), 2))
                              for key, block in self.__dict__.items() if isinstance(block, Block)])
        return '{name}(\n{children}\n)'.format(name=type(self).__name__, children=children)

    def __setattr__(self, name, value):
        """Registers Blocks and Parameters assigned as attributes."""
        if hasattr(self, name):
            existing = getattr(self, name)
            if isinstance(existing, (Parameter, Block)) and not isinstance(value, type(existing)):
                raise TypeError('Changing attribute type for {name} from {type1} to {type2}'
                                'is not allowed.'.format(name=name, type1=type(existing),
                                                         type2=type(value)))
        if isinstance(value, Block):
            self.register_child(value, name)
        elif isinstance(value, Parameter):
            if name in self._reg_params:
                raise InvalidConfigError(
                    "Overriding Parameter attribute %s is not allowed. If you want to share "
                    "parameters between blocks, please set 'params' at Block construction "
                    "instead." % name)
            self._reg_params[name] = value
        super(Block, self).__setattr__(name, value)

    def _check_container_with_block(self):
        children = set(self._children.values())

        def unregistered(data):
            if isinstance(data, (list, tuple)):
                return any(unregistered(x) for x in data)
            if isinstance(data, dict):
                return any(unregistered(x) for x in data.values())
            return isinstance(data, Block) and data not in children
        for key, value in self.__dict__.items():
            if isinstance(value, (list, tuple, dict)) and \
                    not (key.startswith('__') or key == '_children') and unregistered(value):
                warnings.warn('"{name}" is an unregistered container with Blocks. Note that '
                              'Blocks inside the list, tuple or dict will not be registered '
                              'automatically. Make sure to register them using register_child() '
                              'or switching to nn.Sequential/nn.HybridSequential instead. '
                              .format(name=type(self).__name__ + "." + key), stacklevel=3)

    def _alias(self):
        return type(self).__name__.lower()

    @property
    def prefix(self):
        """The prefix of this block's parameter names."""
        return self._prefix

    @property
    def name(self):
        """The prefix without its trailing '_'."""
        return self._name

    def name_scope(self):
        """The scope in which children get names prefixed by this block's."""
        return self._scope

    @property
    def params(self):
        """This block's own ParameterDict (without its children's)."""
        return self._params

    def collect_params(self, select=None):
        """A ParameterDict of this block's and all descendants' parameters; `select` is a
        regular expression the names must match (re.match)."""
        self._check_container_with_block()
        collected = ParameterDict(self._params.prefix)
        if not select:
            collected.update(self.params)
        else:
            pattern = re.compile(select)
            collected.update({name: value for name, value in self.params.items()
                              if pattern.match(name)})
        for child in self._children.values():
            collected.update(child.collect_params(select=select))
        return collected

    def _collect_params_with_prefix(self, prefix=''):
        if prefix:
            prefix += '.'
        found = {prefix + key: value for key, value in self._reg_params.items()}
        for name, child in self._children.items():
            found.update(child._collect_params_with_prefix(prefix + name))
        return found

    def save_parameters(self, filename, deduplicate=False):
        """Saves the parameters under their attribute paths ('0.weight', 'conv.bias'), the
        format `load_parameters` reads, independent of prefixes."""
        params = self._collect_params_with_prefix()
        if deduplicate:
            first_name = {}
            for key, value in params.items():
                first_name.setdefault(value, key)
            params = {key: value for value, key in first_name.items()}
        ndarray.save(filename, {key: value._reduce() for key, value in params.items()})

    def save_params(self, filename):
        """Deprecated: saves with prefixed names (ParameterDict.save)."""
        warnings.warn("save_params is deprecated. Please use save_parameters. Note that if you "
                      "want load from SymbolBlock later, please use export instead.")
        try:
            self.collect_params().save(filename, strip_prefix=self.prefix)
        except ValueError as err:
            raise ValueError('%s\nsave_params is deprecated. Using save_parameters may resolve '
                             'this error.' % err)

    def load_parameters(self, filename, ctx=None, allow_missing=False,
                        ignore_extra=False, cast_dtype=False, dtype_source='current'):
        """Loads parameters written by `save_parameters` (or, for files without '.' in
        their names, by `save_params` / `ParameterDict.save`)."""
        loaded = ndarray.load(filename)
        if not isinstance(loaded, dict):
            raise InvalidConfigError("load_parameters: %s holds a list of arrays, not named "
                                     "parameters" % filename)
        params = self._collect_params_with_prefix()
        if not loaded and not params:
            return
        if not any('.' in key for key in loaded.keys()):
            self.collect_params().load(filename, ctx, allow_missing, ignore_extra, self.prefix,
                                       cast_dtype=cast_dtype, dtype_source=dtype_source)
            return
        if not allow_missing:
            names_of = defaultdict(list)
            for key, value in params.items():
                names_of[value].append(key)
            for key, value in params.items():
                if not any(name in loaded for name in names_of[value]):
                    raise InvalidConfigError(
                        "Parameter '%s' is missing in file '%s', which contains parameters: %s. "
                        "Set allow_missing=True to ignore missing parameters."
                        % (key, filename, _brief_print_list(loaded.keys())))
        for key, value in loaded.items():
            if key not in params:
                if not ignore_extra:
                    raise InvalidConfigError(
                        "Parameter '%s' loaded from file '%s' is not present in ParameterDict, "
                        "which contains parameters %s. Set ignore_extra=True to ignore. "
                        % (key, filename, _brief_print_list(params.keys())))
                continue
            params[key]._load_init(value, ctx, cast_dtype=cast_dtype, dtype_source=dtype_source)

    def load_params(self, filename, ctx=None, allow_missing=False, ignore_extra=False):
        """Deprecated name of load_parameters."""
        warnings.warn("load_params is deprecated. Please use load_parameters.")
        self.load_parameters(filename, ctx, allow_missing, ignore_extra)

    def register_child(self, block, name=None):
        """Adds `block` as a child (named by its position when `name` is None)."""
        if name is None:
            name = str(len(self._children))
        self._children[name] = block

    def register_forward_pre_hook(self, hook):
        """hook(block, inputs) runs before each forward; returns a HookHandle."""
        handle = HookHandle()
        handle.attach(self._forward_pre_hooks, hook)
        return handle

    def register_forward_hook(self, hook):
        """hook(block, inputs, outputs) runs after each forward; returns a HookHandle."""
        handle = HookHandle()
        handle.attach(self._forward_hooks, hook)
        return handle

    def apply(self, fn):
        """Calls fn on every descendant, then on this block; returns this block."""
        for child in self._children.values():
            child.apply(fn)
        fn(self)
        return self

    def initialize(self, init=initializer.Uniform(), ctx=None, verbose=False,
                   force_reinit=False):
        """Initializes all parameters of this block and its descendants."""
        self.collect_params().initialize(init, ctx, verbose, force_reinit)

    def hybridize(self, active=True, **kwargs):
        """Passes the hybridize request on to the children that are HybridBlocks."""
        for child in self._children.values():
            child.hybridize(active, **kwargs)

    def save(self, prefix):
        """Writes `prefix-model.json` (the block tree: each block's name, its children's
        names and, for a HybridBlock that has traced its graph, the graph and its input /
        output formats) and `prefix-model.params`, as MXNet 1.9 does, for `load` on a block
        of the same structure."""
        model = {}
        counter = [0]

        def describe(block, into):
            entry = {'orig_name': block.name}
            into['%s%d' % (type(block).__name__.lower(), counter[0])] = entry
            if isinstance(block, HybridBlock):
                entry['hybridized'] = bool(block._cached_graph)
                if block._cached_graph:
                    inputs, out = block._cached_graph
                    entry['in_format'] = block._in_format
                    entry['out_format'] = block._out_format
                    entry['inputs'] = [var.tojson() for var in inputs]
                    entry['symbol'] = out.tojson()
            entry['children'] = {}
            for key, child in block._children.items():
                counter[0] += 1
                entry['children'][child.name] = key
                describe(child, entry)
        describe(self, model)
        with open(prefix + '-model.json', 'w') as f:
            json.dump(model, f)
        self.save_parameters(prefix + '-model.params')

    def load(self, prefix):
        """Reads what `save` wrote into this block (same structure): block names, child
        keys and parameter names become the saved ones, then the parameters load."""
        with open(prefix + '-model.json') as f:
            model = json.load(f)
        counter = [0]

        def restore(block, into):
            key = '%s%d' % (type(block).__name__.lower(), counter[0])
            if key not in into:
                raise InvalidConfigError("load: %s-model.json has no entry %s for %s '%s'; "
                                         "the saved block tree differs from this one"
                                         % (prefix, key, type(block).__name__, block.name))
            entry = into[key]
            block._name = entry['orig_name']
            if isinstance(block, HybridBlock) and entry.get('hybridized'):
                block._in_format = entry['in_format']
                block._out_format = entry['out_format']
                block._cached_graph = ([symbol.load_json(j) for j in entry['inputs']],
                                       symbol.load_json(entry['symbol']))
                block._cached_op = None
                block._active = True
            renamed = OrderedDict()
            for name, param in block.params._params.items():
                renamed[block.name + '_' + name[len(block.params.prefix):]] = param
            block.params._params = renamed
            for child in block._children.values():
                counter[0] += 1
                restore(child, entry)
            saved_keys = entry.get('children', {})
            block._children = OrderedDict(
                (saved_keys.get(child.name, k), child) for k, child in block._children.items())
        restore(self, model)
        self.load_parameters(prefix + '-model.params')

    def cast(self, dtype):
        """Casts all parameters of this block and its descendants to `dtype`."""
        for child in self._children.values():
            child.cast(dtype)
        for param in self.params.values():
            param.cast(dtype)

    def __call__(self, *args):
        for hook in self._forward_pre_hooks.values():
            hook(self, args)
        out = self.forward(*args)
        for hook in self._forward_hooks.values():
            hook(self, args, out)
        if is_np_array():
            _np_mode.check_all_np_ndarrays(out)
        return out

    def forward(self, *args):
        """The computation of this block; override it."""
        raise NotImplementedError

    def register_op_hook(self, callback, monitor_all=False):
        """Installs `callback` for the operators of hybridized descendants."""
        for child in self._children.values():
            child.register_op_hook(callback, monitor_all)

    def summary(self, *inputs):
        """Runs a forward pass on `inputs` and prints each layer's output shape and
        parameter count (the block must not be hybridized)."""
        from .nn.basic_layers import Sequential, HybridSequential
        rows = OrderedDict()
        seen = set()
        hooks = []

        def summary_hook(block, _, outputs):
            key = '%s-%i' % (type(block).__name__, len(rows))
            row = rows[key] = OrderedDict(output_shape=_shape_str(outputs), trainable=0,
                                          shared=0, n_params=0)
            for param in block.params.values():
                size = param.data().size
                row['n_params'] += size
                row['trainable'] += 0 if param.grad_req == 'null' else size
                if param in seen:
                    row['shared'] += size
                else:
                    seen.add(param)

        def register(block):
            if isinstance(block, HybridBlock) and block._active:
                raise InvalidConfigError('"{}" must not be hybridized to print summary.'
                                         .format(block.name))
            if not isinstance(block, (Sequential, HybridSequential)):
                hooks.append(block.register_forward_hook(summary_hook))

        rows['Input'] = OrderedDict(output_shape=_shape_str(inputs), n_params=0, trainable=0,
                                    shared=0)
        try:
            self.apply(register)
            self(*inputs)
            line = '{:>20}  {:>42} {:>15}'
            print('-' * 80)
            print(line.format('Layer (type)', 'Output Shape', 'Param #'))
            print('=' * 80)
            total = sum(r['n_params'] for r in rows.values())
            trainable = sum(r['trainable'] for r in rows.values())
            shared = sum(r['shared'] for r in rows.values())
            for key, row in rows.items():
                print(line.format(key, str(row['output_shape']), row['n_params']))
            print('=' * 80)
            print('Parameters in forward computation graph, duplicate included')
            print('   Total params: ' + str(total))
            print('   Trainable params: ' + str(trainable))
            print('   Non-trainable params: ' + str(total - trainable))
            print('Shared params in forward computation graph: ' + str(shared))
            print('Unique parameters in model: ' + str(total - shared))
            print('-' * 80)
        finally:
            for hook in hooks:
                hook.detach()


class _ShapeOnly(object):
    """Stands for an input of known shape (graph-inferred) in a layer's infer_shape rule."""

    def __init__(self, shape):
        self.shape = tuple(shape)
        self.ndim = len(self.shape)


def _descendants(block):
    for child in block._children.values():
        yield child
        yield from _descendants(child)


def _graph_op(out, flags):
    """A callable running the graph `out` on its inputs (in `out.list_inputs()` order) as
    one operation: the core's CachedOp when this build has one, otherwise the operators
    one by one (same results; autograd records each of them). Graphs with operators whose
    shape argument leaves dims to inference (symbolic begin states) run one by one too:
    the runner fills those dims from the inputs' shapes."""
    runner = GraphRunner(out)
    cached_op = vars(ndarray).get('CachedOp')   # (a module attribute lookup, never a stand-in)
    if cached_op is not None and not runner.fills_shapes:
        return cached_op(out, flags)
    names = out.list_inputs()

    def run(*arrays):
        outputs = runner(dict(zip(names, arrays)))
        return outputs[0] if len(outputs) == 1 else outputs
    return run


class HybridBlock(Block):
    """A Block whose computation is `hybrid_forward(F, x, *args, **params)`, written once
    for F = mx.nd (imperative) and F = mx.sym (the graph).

    After `hybridize()`, the first call traces hybrid_forward with F = mx.sym on input
    variables ('data', or 'data0', 'data1', ... for several inputs) and the parameters'
    variables, and later calls run that graph as one operation. Deferred parameter shapes
    come from shape inference on the traced graph."""

    def __init__(self, prefix=None, params=None):
        super(HybridBlock, self).__init__(prefix=prefix, params=params)
        self._cached_graph = ()
        self._cached_op = None
        self._cached_op_args = []
        self._traced_inputs = []     # the Symbols this block was last called on
        self._out_format = None
        self._in_format = None
        self._active = False
        self._flags = []
        self._callback = None
        self._monitor_all = False
        self._backend = None
        self._backend_opts = {}

    def __setattr__(self, name, value):
        super(HybridBlock, self).__setattr__(name, value)
        if isinstance(value, HybridBlock):
            self._clear_cached_op()

    def _get_graph(self, *args):
        """(input variables, output symbol) of hybrid_forward traced with F = mx.sym."""
        if not self._cached_graph:
            flat_args, self._in_format = _flatten(args, "input")
            real_count = sum(arg is not None for arg in flat_args)
            if real_count == 0:
                raise ValueError('All args are None and we do not support such a case. '
                                 'Received args={}'.format(args))
            inputs, data_vars = [], []
            for arg in flat_args:
                if arg is None:
                    inputs.append(None)
                    continue
                name = 'data%d' % len(data_vars) if real_count > 1 else 'data'
                variable = symbol.var(name)
                inputs.append(variable)
                data_vars.append(variable)
            grouped = _regroup(inputs, self._in_format)
            params = {key: param.var() for key, param in self._reg_params.items()}
            with self.name_scope():
                out = self.hybrid_forward(symbol, *grouped, **params)
            out, self._out_format = _flatten(out, "output")
            self._cached_graph = data_vars, symbol.Group(out)
        return self._cached_graph

    def _build_cache(self, *args):
        data, out = self._get_graph(*args)
        data_names = {var.name: i for i, var in enumerate(data)}
        input_names = out.list_inputs()
        expected = set(input_names)
        params = self.collect_params()
        for name in expected:
            if name not in params and name not in data_names:
                raise MXNetError("%s '%s': the traced graph has an input '%s' that is neither "
                                 "a block input nor a parameter" % (type(self).__name__,
                                                                     self.name, name))
        unused_data = [i for name, i in data_names.items() if name not in expected]
        if unused_data:
            warnings.warn("The %s input to HybridBlock is not used by any computation. Is "
                          "this intended?" % ', '.join('%d-th' % i for i in unused_data),
                          stacklevel=4)
        unused_params = [name for name in params.keys() if name not in expected]
        if unused_params:
            warnings.warn("Parameter %s is not used by any computation. Is this intended?"
                          % ', '.join(unused_params), stacklevel=4)

        flat_args, _ = _flatten(args, "input")
        try:
            for name in input_names:
                if name in params:
                    params[name].data()
        except DeferredInitializationError:
            self._deferred_infer_shape(*flat_args)
            for name in input_names:
                if name in params:
                    params[name]._finish_deferred_init()

        if self._backend:
            out = self._partition(out, data_names, params, flat_args)
            self._cached_graph = data, out
            input_names = out.list_inputs()
        self._cached_op_args = [(True, data_names[name]) if name in data_names
                                else (False, params[name]) for name in input_names]
        data_indices = [i for i, (is_arg, _) in enumerate(self._cached_op_args) if is_arg]
        param_indices = [i for i, (is_arg, _) in enumerate(self._cached_op_args) if not is_arg]
        flags = [('data_indices', data_indices), ('param_indices', param_indices)] + self._flags
        self._cached_op = _graph_op(out, flags)

    def _partition(self, out, data_names, params, flat_args):
        """The graph `out` partitioned by the subgraph backend named in hybridize()."""
        if getattr(type(out), 'optimize_for', None) is None:
            raise MXNetError("%s '%s': subgraph backend '%s' is not registered; this build "
                             "partitions no graphs (backend=None runs the graph as traced)"
                             % (type(self).__name__, self.name, self._backend))
        arrays = [arg for arg in flat_args if arg is not None]
        arg_dict, aux_dict = {}, {}
        aux_names = set(out.list_auxiliary_states())
        for name in out.list_inputs():
            value = (arrays[data_names[name]] if name in data_names
                     else params[name].data() if name in params else None)
            if value is not None:
                (aux_dict if name in aux_names else arg_dict)[name] = value
        ctx = arrays[0].context if arrays else None
        partitioned = out.optimize_for(self._backend, arg_dict, aux_dict, ctx,
                                       **self._backend_opts)
        unknown = [name for name in partitioned.list_inputs()
                   if name not in data_names and name not in params]
        if unknown:
            raise MXNetError("%s '%s': backend '%s' added graph inputs %s that are not "
                             "parameters of the block" % (type(self).__name__, self.name,
                                                           self._backend, unknown))
        return partitioned

    def _deferred_infer_shape(self, *args):
        try:
            self.infer_shape(*args)
        except MXNetError:
            raise    # already names the layer or operator, the shapes and what was expected
        except Exception as err:
            raise ValueError("Deferred initialization failed because shape cannot be "
                             "inferred. {}".format(err)) from None

    def _call_cached_op(self, *args):
        if self._cached_op is None:
            self._build_cache(*args)
        flat_args, fmt = _flatten(args, "input")
        if fmt != self._in_format and not _formats_compatible(fmt, self._in_format):
            raise ValueError("The argument structure of HybridBlock does not match the cached "
                             "version. Stored format = {}, input format = {}"
                             .format(fmt, self._in_format))
        arrays = [arg for arg in flat_args if arg is not None]
        cargs = [arrays[index] if is_arg else index.data()
                 for is_arg, index in self._cached_op_args]
        out = self._cached_op(*cargs)
        if isinstance(out, NDArray):
            out = [out]
        if is_np_array():
            out = _np_mode.to_np(list(out))
        return _regroup(list(out), self._out_format)

    def optimize_for(self, x, *args, backend=None, clear=False, static_alloc=False,
                     static_shape=False, inline_limit=2, forward_bulk_size=None,
                     backward_bulk_size=None, **kwargs):
        """Hybridizes and builds the graph for inputs like (x, *args) without running it,
        partitioned for `backend` (None, accepted here unlike 1.9.1: no partitioning)."""
        if kwargs:
            self._backend_opts = kwargs
        self.hybridize(True, backend, clear, static_alloc, static_shape, inline_limit,
                       forward_bulk_size, backward_bulk_size)
        has_symbol, has_ndarray, contexts, _ = _gather_type_ctx_info([x] + list(args))
        if not has_symbol and not has_ndarray:
            raise ValueError('In HybridBlock, there must be one NDArray or one Symbol in the '
                             'input. Please check the type of the args.\n')
        if len(contexts) > 1:
            raise ValueError('Found multiple contexts in the input, After hybridized, the '
                             'HybridBlock only supports one input context. Find all contexts '
                             '= {}'.format(contexts))
        self._build_cache(x, *args)

    def _clear_cached_op(self):
        self._cached_graph = ()
        self._cached_op = None
        self._cached_op_args = []
        self._np_imperative = False

    def register_child(self, block, name=None):
        if not isinstance(block, HybridBlock):
            raise ValueError(
                "Children of HybridBlock must also be HybridBlock, but %s has type %s. If you "
                "are using Sequential, please try HybridSequential instead."
                % (str(block), str(type(block))))
        super(HybridBlock, self).register_child(block, name)
        self._clear_cached_op()

    def hybridize(self, active=True, backend=None, clear=True, static_alloc=False,
                  static_shape=False, inline_limit=2, forward_bulk_size=None,
                  backward_bulk_size=None, **kwargs):
        """Turns graph execution on (or off) for this block and its HybridBlock children.

        static_alloc / static_shape: plan memory once and keep the graph for the first
        input shape; clear drops the traced graph; backend names a subgraph backend
        (None: none); other keyword arguments are the backend's options."""
        if kwargs:
            self._backend_opts = kwargs
        self._backend = backend
        self._active = active
        self._flags = [("static_alloc", static_alloc), ("static_shape", static_shape),
                       ("inline_limit", inline_limit)]
        if forward_bulk_size is not None:
            self._flags.append(("forward_bulk_size", forward_bulk_size))
        if backward_bulk_size is not None:
            self._flags.append(("backward_bulk_size", backward_bulk_size))
        if clear:
            self._clear_cached_op()
        if active and (self._forward_hooks or self._forward_pre_hooks):
            warnings.warn('"{block}" is being hybridized while still having forward hook/pre-hook. '
                          'If "{block}" is a child of HybridBlock, the hooks will not take effect.'
                          .format(block=self))
        super(HybridBlock, self).hybridize(active, static_alloc=static_alloc,
                                           static_shape=static_shape, inline_limit=inline_limit,
                                           forward_bulk_size=forward_bulk_size,
                                           backward_bulk_size=backward_bulk_size)

    def cast(self, dtype):
        self._clear_cached_op()
        super(HybridBlock, self).cast(dtype)

    def _infer_attrs(self, infer_fn, attr, *args):
        """Sets `attr` ('shape' or 'dtype') of every parameter from the traced graph's
        inference given the inputs."""
        inputs, out = self._get_graph(*args)
        flat_args, _ = _flatten(args, "input")
        arrays = [arg for arg in flat_args if arg is not None]
        known = {var.name: getattr(arr, attr) for var, arr in zip(inputs, arrays)}
        if infer_fn == 'infer_shape':
            known.update(self._shapes_from_layer_rules(out, known))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            arg_attrs, _, aux_attrs = _infer(out, infer_fn, **known)
        if arg_attrs is None:
            raise ValueError(str(caught[0].message) if caught else
                             "%s: cannot infer the %ss of %s from inputs %s"
                             % (infer_fn, attr, self.name, known))
        inferred = dict(zip(out.list_arguments(), arg_attrs))
        inferred.update(zip(out.list_auxiliary_states(), aux_attrs))
        for param in self.collect_params().values():
            if param.name in inferred:
                setattr(param, attr, inferred[param.name])

    def _shapes_from_layer_rules(self, out, known):
        """Parameter shapes the graph alone cannot decide (an operator without backward shape
        inference between a parameter and the data, e.g. the RNN layers' packed weights),
        from the per-layer `infer_shape` of the descendants that define one: each is given
        the shapes its traced inputs have in the graph."""
        arg_shapes, _, aux_shapes = out.infer_shape_partial(**known)
        inferred = dict(zip(out.list_arguments(), arg_shapes))
        inferred.update(zip(out.list_auxiliary_states(), aux_shapes))
        found = {}
        entry_shapes = None
        for block in _descendants(self):
            if type(block).infer_shape is HybridBlock.infer_shape or not block._traced_inputs:
                continue
            params = list(block._reg_params.values())
            if all(shape_is_known(inferred.get(p.name)) for p in params):
                continue
            if entry_shapes is None:
                internals = out.get_internals()
                entry_shapes = dict(zip(internals.list_outputs(),
                                        internals.infer_shape_partial(**known)[1]))
            shapes = [entry_shapes.get(arg.list_outputs()[0]) for arg in block._traced_inputs]
            if shapes[0] is None or not shape_is_known(shapes[0]):
                continue
            try:   # the rule may read only some inputs; the others may be partly unknown
                block.infer_shape(*[_ShapeOnly(shape or ()) for shape in shapes])
            except Exception:  # pylint: disable=broad-except
                continue
            found.update({p.name: p.shape for p in params if shape_is_known(p.shape)})
        return found

    def infer_shape(self, *args):
        """Infers the shapes of the parameters from the inputs (through the traced graph)."""
        self._infer_attrs('infer_shape', 'shape', *args)

    def infer_type(self, *args):
        """Infers the dtypes of the parameters from the inputs (through the traced graph)."""
        self._infer_attrs('infer_type', 'dtype', *args)

    def export(self, path, epoch=0, remove_amp_cast=True):
        """Writes `path-symbol.json` (the traced graph) and `path-%04d.params` (parameters as
        'arg:<name>' / 'aux:<name>'), loadable by `SymbolBlock.imports`, `mx.mod.Module`
        and MXNet 1.x. The block must have run hybridized once. The only input is named
        'data'; several are 'data0', 'data1', ..."""
        if not self._cached_graph:
            if getattr(self, "_np_imperative", False):
                raise MXNetError("export: %s runs imperatively under numpy semantics (its "
                                 "hybrid_forward needs mx.sym.np, which this package does not "
                                 "have yet), so it has no graph to export" % type(self).__name__)
            raise RuntimeError("Please first call block.hybridize() and then run forward with "
                               "this block at least once before calling export.")
        sym = self._cached_graph[1]
        sym.save('%s-symbol.json' % path, remove_amp_cast=remove_amp_cast)
        arg_names = set(sym.list_arguments())
        aux_names = set(sym.list_auxiliary_states())
        arrays = {}
        for is_arg, param in self._cached_op_args:
            if is_arg:
                continue
            if param.name in arg_names:
                arrays['arg:%s' % param.name] = param._reduce()
            elif param.name in aux_names:
                arrays['aux:%s' % param.name] = param._reduce()
            else:
                warnings.warn('Parameter "{name}" is not found in the graph. '
                              .format(name=param.name), stacklevel=3)
        ndarray.save('%s-%04d.params' % (path, epoch), arrays)

    def register_op_hook(self, callback, monitor_all=False):
        """Installs `callback(name, op_name, array)` for hybridized execution."""
        self._callback = callback
        self._monitor_all = monitor_all
        for child in self._children.values():
            child._callback = callback
            child._monitor_all = monitor_all

    def forward(self, x, *args):
        """Runs the block on NDArrays (the traced graph once hybridized, else hybrid_forward
        with F = mx.nd) or, given Symbols, composes its graph onto them."""
        has_symbol, has_ndarray, contexts, ctx = _gather_type_ctx_info([x] + list(args))
        if has_symbol and has_ndarray:
            raise ValueError('In HybridBlock, we do not support mixed NDArrays and Symbols '
                             'types for the input. Please check the type of the args.\n')
        if not has_symbol and not has_ndarray:
            raise ValueError('In HybridBlock, there must be one NDArray or one Symbol in the '
                             'input. Please check the type of the args.\n')
        if has_symbol:
            self._traced_inputs = [arg for arg in _flatten([x] + list(args), "input")[0]
                                   if arg is not None]
            params = {key: param.var() for key, param in self._reg_params.items()}
            with self.name_scope():
                return self.hybrid_forward(symbol, x, *args, **params)
        if self._active:
            if len(contexts) > 1:
                raise ValueError('Find multiple contexts in the input, After hybridized, the '
                                 'HybridBlock only supports one input context. You can print '
                                 'the ele.ctx in the input arguments to inspect their contexts. '
                                 'Find all contexts = {}'.format(contexts))
            with ctx:
                if not getattr(self, "_np_imperative", False):
                    try:
                        return self._call_cached_op(x, *args)
                    except SymbolicNumpyUnavailable as e:
                        # hybrid_forward needs mx.sym.np, which does not exist yet: this
                        # numpy-mode block runs imperatively (same results, no graph)
                        self._clear_cached_op()
                        self._np_imperative = True
                        warnings.warn("%s: hybridized, but runs imperatively with mx.np arrays "
                                      "(no graph, no export) because %s"
                                      % (type(self).__name__, e), stacklevel=3)
        with ctx:
            try:
                params = {k: v.data(ctx) for k, v in self._reg_params.items()}
            except DeferredInitializationError:
                self._deferred_infer_shape(x, *args)
                for param in self.params.values():
                    param._finish_deferred_init()
                params = {k: v.data(ctx) for k, v in self._reg_params.items()}
            return self.hybrid_forward(_np_mode.NUMPY_F if is_np_array() else ndarray, x, *args,
                                       **params)

    def hybrid_forward(self, F, x, *args, **kwargs):
        """The computation, with F the operator namespace (mx.nd or mx.sym); override it."""
        raise NotImplementedError


def _common_prefix(names):
    """The longest prefix all `names` share."""
    if not names:
        return ''
    prefix = names[0]
    for name in names:
        i = 0
        while i < len(prefix) and i < len(name) and prefix[i] == name[i]:
            i += 1
        prefix = prefix[:i]
    return prefix


from .symbol_block import SymbolBlock  # noqa: E402  (SymbolBlock derives from HybridBlock)
