"""Block and HybridBlock: the containers of layers, their naming scopes and parameter files.

HybridBlocks run imperatively here with F = mx.nd: `hybridize()` is accepted and recorded,
and the graph executor that makes it real comes with Symbol support. Deferred parameter
shapes are completed from the actual inputs by each layer's `infer_shape`.
"""
import json
import re
import threading
import warnings
from collections import OrderedDict, defaultdict

from .. import initializer, ndarray
from .. import name as _name
from ..base import InvalidConfigError, MXNetError
from ..ndarray import NDArray
from .parameter import DeferredInitializationError, Parameter, ParameterDict
from .utils import HookHandle, _brief_print_list, _indent

__all__ = ['Block', 'HybridBlock']


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
        names and whether it is hybridized) and `prefix-model.params`, as MXNet 1.9 does,
        for `load` on a block of the same structure. Graphs of hybridized blocks are not
        written yet: they need the symbolic graph."""
        model = {}
        counter = [0]

        def describe(block, into):
            entry = {'orig_name': block.name}
            into['%s%d' % (type(block).__name__.lower(), counter[0])] = entry
            if isinstance(block, HybridBlock):
                entry['hybridized'] = False
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


def _ndarrays_in(args):
    """The NDArrays in a (nested) list/tuple of arguments, in order."""
    if isinstance(args, NDArray):
        return [args]
    if isinstance(args, (list, tuple)):
        return [a for x in args for a in _ndarrays_in(x)]
    return []


class HybridBlock(Block):
    """A Block whose computation is `hybrid_forward(F, x, *args, **params)`, written once
    for F = mx.nd (run now) and F = mx.sym (the graph, once hybridized)."""

    def __init__(self, prefix=None, params=None):
        super(HybridBlock, self).__init__(prefix=prefix, params=params)
        self._active = False
        self._flags = []
        self._callback = None
        self._monitor_all = False
        self._backend = None
        self._backend_opts = {}

    def register_child(self, block, name=None):
        if not isinstance(block, HybridBlock):
            raise ValueError(
                "Children of HybridBlock must also be HybridBlock, but %s has type %s. If you "
                "are using Sequential, please try HybridSequential instead."
                % (str(block), str(type(block))))
        super(HybridBlock, self).register_child(block, name)

    def hybridize(self, active=True, backend=None, clear=True, static_alloc=False,
                  static_shape=False, inline_limit=2, forward_bulk_size=None,
                  backward_bulk_size=None, **kwargs):
        """Records the request to run as one graph. The block keeps running operator by
        operator (results are the same) until the graph executor exists."""
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
        if active and (self._forward_hooks or self._forward_pre_hooks):
            warnings.warn('"{block}" is being hybridized while still having forward hook/pre-hook. '
                          'If "{block}" is a child of HybridBlock, the hooks will not take effect.'
                          .format(block=self))
        super(HybridBlock, self).hybridize(active, static_alloc=static_alloc,
                                           static_shape=static_shape, inline_limit=inline_limit,
                                           forward_bulk_size=forward_bulk_size,
                                           backward_bulk_size=backward_bulk_size)

    def infer_shape(self, *args):
        """Completes the unknown dimensions of this block's own parameters from the
        inputs. Layers with deferred shapes (Dense, Conv, BatchNorm, ...) override it."""
        unknown = [p.name for p in self._reg_params.values() if p._deferred_init]
        raise MXNetError(
            "%s '%s': the shapes of parameters %s are left to inference, which needs the "
            "block's symbolic graph (not available in this version) or an infer_shape(*args) "
            "method on the block; give the parameters full shapes instead"
            % (type(self).__name__, self.name, ', '.join(unknown)))

    def infer_type(self, *args):
        """Sets the dtype of this block's parameters from the first input's."""
        arrays = _ndarrays_in(args)
        if arrays:
            for param in self._reg_params.values():
                param.dtype = arrays[0].dtype

    def _deferred_infer_shape(self, *args):
        try:
            self.infer_shape(*args)
        except MXNetError:
            raise
        except Exception as err:
            raise ValueError("Deferred initialization failed because shape cannot be "
                             "inferred. {}".format(err))

    def cast(self, dtype):
        super(HybridBlock, self).cast(dtype)

    def register_op_hook(self, callback, monitor_all=False):
        """Installs `callback(name, op_name, array)` for hybridized execution."""
        self._callback = callback
        self._monitor_all = monitor_all
        for child in self._children.values():
            child.register_op_hook(callback, monitor_all)

    def export(self, path, epoch=0, remove_amp_cast=True):
        """Writes `path-symbol.json` and `path-NNNN.params`; needs the symbolic graph."""
        raise MXNetError("%s '%s': export() writes the block's symbolic graph, which this "
                         "version cannot build yet (HybridBlocks run imperatively); use "
                         "save_parameters() to keep the weights" % (type(self).__name__,
                                                                    self.name))

    def forward(self, x, *args):
        """Runs hybrid_forward with F = mx.nd, finishing deferred initialization first."""
        arrays = _ndarrays_in([x] + list(args))
        if not arrays:
            raise ValueError('In HybridBlock, there must be one NDArray in the input. Please '
                             'check the type of the args.\n')
        ctx = arrays[0].context
        with ctx:
            try:
                params = {k: v.data(ctx) for k, v in self._reg_params.items()}
            except DeferredInitializationError:
                self._deferred_infer_shape(x, *args)
                for param in self.params.values():
                    param._finish_deferred_init()
                params = {k: v.data(ctx) for k, v in self._reg_params.items()}
            return self.hybrid_forward(ndarray, x, *args, **params)

    def hybrid_forward(self, F, x, *args, **kwargs):
        """The computation, with F the operator namespace (mx.nd or mx.sym); override it."""
        raise NotImplementedError
