"""Parameter, Constant and ParameterDict: named arrays a Block learns, one copy per context."""
import warnings
from collections import OrderedDict, defaultdict

import numpy as np

from .. import autograd, context, initializer, ndarray, symbol
from ..base import InvalidConfigError, MXNetError
from ..context import Context
from .utils import _brief_print_list, _indent, shape_is_known
from ..util import is_np_shape, is_np_array

__all__ = ['DeferredInitializationError', 'Parameter', 'Constant',
           'ParameterDict', 'tensor_types']

tensor_types = (symbol.Symbol, ndarray.NDArray)

_GRAD_REQS = ('write', 'add', 'null')
_STYPES = ('default', 'row_sparse', 'csr')
_NAMING_HELP = ("For more info on naming, please see "
                "https://mxnet.io/api/python/docs/tutorials/packages/gluon/blocks/naming.html")


class DeferredInitializationError(MXNetError):
    """A parameter's value was asked for before its shape was known (before the first
    forward pass of a network whose input sizes were left to inference)."""


class Parameter(object):
    """A weight of a Block: its data on each context, its gradient, and how it is
    initialized and trained (`grad_req`, `lr_mult`, `wd_mult`).

    A shape with unknown (0) dimensions and `allow_deferred_init=True` postpone the
    allocation until a forward pass tells the owning layer its input shape.
    """

    def __init__(self, name, grad_req='write', shape=None, dtype=np.float32,
                 lr_mult=1.0, wd_mult=1.0, init=None, allow_deferred_init=False,
                 differentiable=True, stype='default', grad_stype='default'):
        self._var = None
        self._data = None
        self._grad = None
        self._ctx_list = None
        self._ctx_map = None
        self._trainer = None
        self._deferred_init = ()
        self._differentiable = differentiable
        self._allow_deferred_init = allow_deferred_init
        self._grad_req = None
        self._shape = (shape,) if isinstance(shape, int) else shape
        self.name = name
        self._dtype = dtype
        self.lr_mult = lr_mult
        self.wd_mult = wd_mult
        self.grad_req = grad_req
        self.init = init
        for what, value in (('grad_stype', grad_stype), ('stype', stype)):
            if value not in _STYPES:
                raise InvalidConfigError(
                    "%s for Parameter '%s' must be one of 'default', 'row_sparse', or 'csr', "
                    "but got '%s'" % (what, name, value))
        self._grad_stype = grad_stype
        self._stype = stype

    def __repr__(self):
        return 'Parameter {name} (shape={shape}, dtype={dtype})'.format(
            name=self.name, shape=self.shape, dtype=self.dtype)

    @property
    def grad_req(self):
        return self._grad_req

    @grad_req.setter
    def grad_req(self, req):
        if req not in _GRAD_REQS:
            raise InvalidConfigError("grad_req must be one of 'write', 'add', or 'null', "
                                     "but got '%s'" % req)
        if not self._differentiable:
            req = 'null'
        if self._grad_req == req:
            return
        self._grad_req = req
        if req == 'null' and self._grad is not None:
            self._grad = None
            self._data = [d.detach() for d in self._data]
        elif self._data is not None:
            self._init_grad()

    @property
    def dtype(self):
        """The type of the parameter's data; setting it casts (see `cast`)."""
        return self._dtype

    @dtype.setter
    def dtype(self, dtype):
        self.cast(dtype)

    @property
    def shape(self):
        """The shape; unknown dimensions are 0 (-1 under `np_shape`)."""
        if self._shape is None:
            return None
        if is_np_shape():
            return tuple(d if d != 0 else -1 for d in self._shape)
        return self._shape

    @shape.setter
    def shape(self, new_shape):
        if self._shape is None:
            self._shape = new_shape
            return
        if len(self._shape) != len(new_shape) or \
                not all(old in (-1, 0, new) for new, old in zip(new_shape, self._shape)):
            raise InvalidConfigError("Expected shape %s is incompatible with given shape %s "
                                     "for Parameter '%s'." % (str(new_shape), str(self._shape),
                                                              self.name))
        self._shape = tuple(new_shape)

    def _set_trainer(self, trainer):
        if self._stype != 'default' and self._trainer and trainer and \
                self._trainer is not trainer:
            raise RuntimeError(
                "Failed to set the trainer for Parameter '%s' because it was already set. "
                "More than one trainers for a %s Parameter is not supported."
                % (self.name, self._stype))
        self._trainer = trainer

    def _check_and_get(self, arr_list, ctx):
        if arr_list is not None:
            if ctx is list:
                return arr_list
            if ctx is None:
                if len(arr_list) == 1:
                    return arr_list[0]
                ctx = context.current_context()
            by_id = self._ctx_map[ctx.device_typeid & 1]
            if ctx.device_id < len(by_id) and by_id[ctx.device_id] is not None:
                return arr_list[by_id[ctx.device_id]]
            raise RuntimeError("Parameter '%s' was not initialized on context %s. "
                               "It was only initialized on %s."
                               % (self.name, str(ctx), str(self._ctx_list)))
        if self._deferred_init:
            raise DeferredInitializationError(
                "Parameter '%s' has not been initialized yet because initialization was "
                "deferred. Actual initialization happens during the first forward pass. "
                "Please pass one batch of data through the network before accessing Parameters. "
                "You can also avoid deferred initialization by specifying in_units, "
                "num_features, etc., for network layers." % self.name)
        raise RuntimeError(
            "Parameter '%s' has not been initialized. Note that you should initialize "
            "parameters and create Trainer with Block.collect_params() instead of "
            "Block.params because the later does not include Parameters of nested child "
            "Blocks" % self.name)

    def _load_init(self, data, ctx, cast_dtype=False, dtype_source='current'):
        """Takes `data` (loaded from a file) as this parameter's value on `ctx`."""
        if cast_dtype and dtype_source not in ('current', 'saved'):
            raise InvalidConfigError("dtype_source must be 'current' or 'saved', given %r"
                                     % dtype_source)
        if self.shape:
            unknown = -1 if is_np_shape() else 0
            if len(self.shape) != len(data.shape) or \
                    not all(mine in (unknown, saved) for mine, saved in zip(self.shape, data.shape)):
                raise InvalidConfigError(
                    "Failed loading Parameter '%s' from saved params: shape incompatible "
                    "expected %s vs saved %s" % (self.name, str(self.shape), str(data.shape)))
            self.shape = tuple(saved if mine == unknown else mine
                               for mine, saved in zip(self.shape, data.shape))
        if self.dtype and np.dtype(self.dtype) != np.dtype(data.dtype):
            if not cast_dtype:
                raise InvalidConfigError(
                    "Failed loading Parameter '%s' from saved params: dtype incompatible "
                    "expected %s vs saved %s. Set cast_dtype=True to cast the dtype of saved "
                    "params." % (self.name, str(np.dtype(self.dtype)), str(np.dtype(data.dtype))))
            if dtype_source == 'current':
                data = data.astype(self.dtype, copy=False)
            else:
                self.dtype = data.dtype
        if getattr(data, 'stype', 'default') != self._stype:
            data = data.tostype(self._stype)
        if isinstance(ctx, Context):
            ctx = [ctx]
        if self._data is None:
            if self._deferred_init:
                if ctx is not None and set(ctx) != set(self._deferred_init[1]):
                    raise InvalidConfigError(
                        "Failed to load Parameter '%s' on %s because it was previous "
                        "initialized on %s." % (self.name, str(ctx), str(self.list_ctx())))
                ctx = self._deferred_init[1]
            elif ctx is None:
                ctx = [context.cpu()]
            self._init_impl(data, ctx)
        else:
            if ctx is not None and set(ctx) != set(self.list_ctx()):
                raise InvalidConfigError(
                    "Failed to load Parameter '%s' on %s because it was previous initialized "
                    "on %s." % (self.name, str(ctx), str(self.list_ctx())))
            self.set_data(data)
        self._deferred_init = ()

    def _finish_deferred_init(self):
        """Allocates and initializes a deferred parameter now that its shape is known."""
        if not self._deferred_init:
            return
        init, ctx, default_init, data = self._deferred_init
        self._deferred_init = ()
        if not shape_is_known(self.shape):
            raise InvalidConfigError(
                "Cannot initialize Parameter '%s' because it has invalid shape: %s. Please "
                "specify in_units, in_channels, etc for `Block`s." % (self.name, str(self.shape)))
        with autograd.pause():
            if data is None:
                data = ndarray.zeros(shape=self.shape, dtype=self.dtype, ctx=context.cpu(),
                                     stype=self._stype)
                initializer.create(default_init)(
                    initializer.InitDesc(self.name, {'__init__': init}), data)
            self._init_impl(data, ctx)

    def _init_impl(self, data, ctx_list):
        self._ctx_list = list(ctx_list)
        self._ctx_map = [[], []]  # [cpu ids, gpu ids] -> position in _ctx_list
        for i, ctx in enumerate(self._ctx_list):
            by_id = self._ctx_map[ctx.device_typeid & 1]
            while len(by_id) <= ctx.device_id:
                by_id.append(None)
            by_id[ctx.device_id] = i
        self._data = [data.copyto(ctx) for ctx in self._ctx_list]
        if is_np_array():  # numpy mode: the parameter's arrays are mx.np arrays
            self._data = [d.as_np_ndarray() for d in self._data]
        self._init_grad()

    def _init_grad(self):
        if self.grad_req == 'null':
            self._grad = None
            return
        if is_np_array():
            self._grad = [ndarray.zeros(shape=d.shape, dtype=d.dtype, ctx=d.context).as_np_ndarray()
                          for d in self._data]
        else:
            self._grad = [ndarray.zeros(shape=d.shape, dtype=d.dtype, ctx=d.context,
                                        stype=self._grad_stype) for d in self._data]
        autograd.mark_variables(self._data, self._grad, self.grad_req)

    def _reduce(self):
        """The average of the copies on every context, on cpu (what save() writes); a
        row_sparse parameter's whole value, pulled from its Trainer's KVStore."""
        if self._stype != 'default':
            if self._trainer is None:
                raise RuntimeError("Cannot gather the value of Parameter '%s' (storage type %s) "
                                   "when no Trainer is created with it." % (self.name, self._stype))
            cpu = context.cpu()
            out = ndarray.zeros(self.shape, dtype=self.dtype, ctx=cpu, stype='row_sparse')
            self._trainer._row_sparse_pull(  # pylint: disable=protected-access
                self, out, ndarray.arange(0, self.shape[0], dtype='int64', ctx=cpu),
                full_idx=True)
            return out
        copies = self.list_data()
        if len(copies) == 1:
            return copies[0].copyto(context.cpu())
        return ndarray.add_n(*(c.copyto(context.cpu()) for c in copies)) / len(copies)

    def initialize(self, init=None, ctx=None, default_init=initializer.Uniform(),
                   force_reinit=False):
        """Allocates the parameter on `ctx` (a context or list; default the current one)
        and fills it with `init`, else the parameter's own `init`, else `default_init`.
        With an unknown shape and `allow_deferred_init`, waits for the first forward."""
        if self._data is not None and not force_reinit:
            warnings.warn("Parameter '%s' is already initialized, ignoring. "
                          "Set force_reinit=True to re-initialize." % self.name, stacklevel=2)
            return
        self._data = self._grad = None
        if ctx is None:
            ctx = [context.current_context()]
        if isinstance(ctx, Context):
            ctx = [ctx]
        if init is None:
            init = default_init if self.init is None else self.init
        self._deferred_init = (init, ctx, default_init, None)
        if not shape_is_known(self.shape):
            if self._allow_deferred_init:
                return
            self._deferred_init = ()
            raise InvalidConfigError("Cannot initialize Parameter '%s' because it has "
                                     "invalid shape: %s." % (self.name, str(self.shape)))
        self._finish_deferred_init()

    def reset_ctx(self, ctx):
        """Moves the parameter (its average over the old contexts) to `ctx`."""
        if ctx is None:
            ctx = [context.current_context()]
        if isinstance(ctx, Context):
            ctx = [ctx]
        if self._data:
            data = self._reduce()
            with autograd.pause():
                self._init_impl(data, ctx)
        elif self._deferred_init:
            init, _, default_init, data = self._deferred_init
            self._deferred_init = (init, ctx, default_init, data)
        else:
            raise ValueError("Cannot reset context for Parameter '%s' because it "
                             "has not been initialized." % self.name)

    def set_data(self, data):
        """Writes `data` into every copy (or keeps it for a deferred initialization)."""
        self.shape = data.shape
        if self._data is None:
            if not self._deferred_init:
                raise InvalidConfigError("Parameter '%s' has not been initialized" % self.name)
            self._deferred_init = self._deferred_init[:3] + (data,)
            return
        trainer = self._trainer
        if trainer is not None and getattr(trainer, '_kv_initialized', False) and \
                getattr(trainer, '_update_on_kvstore', False) and \
                self not in getattr(trainer, '_params_to_init', ()):
            trainer._reset_kvstore()  # pylint: disable=protected-access
        for arr in self._data:
            arr[:] = data

    def _get_row_sparse(self, ctx, row_id):
        """The copy on `ctx` (row_id's context when None; every copy when list) holding,
        after a pull from the Trainer's KVStore, the rows `row_id` names."""
        if not isinstance(row_id, ndarray.NDArray):
            raise TypeError("row_id must have NDArray type, but %s is given" % type(row_id))
        if not self._trainer:
            raise RuntimeError("Cannot get row_sparse data for Parameter '%s' when no "
                               "Trainer is created with it." % self.name)
        results = self._check_and_get(self._data, row_id.context if ctx is None else ctx)
        self._trainer._row_sparse_pull(self, results, row_id)  # pylint: disable=protected-access
        return results

    def row_sparse_data(self, row_id):
        """The row_sparse parameter's copy on row_id's context, holding the rows `row_id`
        names (pulled from the Trainer's KVStore)."""
        if self._stype != 'row_sparse':
            raise RuntimeError("Cannot return a copy of Parameter %s via row_sparse_data() "
                               "because its storage type is %s. Please use data() instead."
                               % (self.name, self._stype))
        return self._get_row_sparse(None, row_id)

    def list_row_sparse_data(self, row_id):
        """The row_sparse parameter's copies on all contexts, each holding the rows `row_id`
        names."""
        if self._stype != 'row_sparse':
            raise RuntimeError("Cannot return copies of Parameter '%s' on all contexts via "
                               "list_row_sparse_data() because its storage type is %s. Please "
                               "use data() instead." % (self.name, self._stype))
        return self._get_row_sparse(list, row_id)

    def data(self, ctx=None):
        """The parameter's array on `ctx` (the only one when there is one context); a
        row_sparse parameter is read with `row_sparse_data` instead."""
        if self._stype != 'default':
            raise RuntimeError("Cannot return a copy of Parameter '%s' on ctx %s via data() "
                               "because its storage type is %s. Please use row_sparse_data() "
                               "instead." % (self.name, str(ctx), self._stype))
        return self._check_and_get(self._data, ctx)

    def list_data(self):
        """The parameter's arrays on all its contexts, in order (`list_row_sparse_data` for a
        row_sparse parameter)."""
        if self._stype != 'default':
            raise RuntimeError("Cannot return copies of Parameter '%s' on all contexts via "
                               "list_data() because its storage type is %s. Please use "
                               "row_sparse_data() instead." % (self.name, self._stype))
        return self._check_and_get(self._data, list)

    def _check_has_grad(self):
        if self._data is not None and self._grad is None:
            raise RuntimeError("Cannot get gradient array for Parameter '%s' "
                               "because grad_req='null'" % self.name)

    def grad(self, ctx=None):
        """The gradient buffer on `ctx`."""
        self._check_has_grad()
        return self._check_and_get(self._grad, ctx)

    def list_grad(self):
        """The gradient buffers on all contexts."""
        self._check_has_grad()
        return self._check_and_get(self._grad, list)

    def list_ctx(self):
        """The contexts the parameter lives (or will live) on."""
        if self._data is None:
            if self._deferred_init:
                return self._deferred_init[1]
            raise RuntimeError("Parameter '%s' has not been initialized" % self.name)
        return self._ctx_list

    def zero_grad(self):
        """Sets the gradient buffers to 0."""
        if self._grad is None:
            return
        for g in self._grad:
            ndarray.zeros_like(g, out=g)

    def var(self):
        """A Symbol variable standing for this parameter (name, shape, dtype, multipliers)."""
        if self._var is None:
            self._var = symbol.var(self.name, shape=self.shape, dtype=self.dtype,
                                   lr_mult=self.lr_mult, wd_mult=self.wd_mult,
                                   init=self.init, stype=self._stype)
        return self._var

    def cast(self, dtype):
        """Converts the data and gradient to `dtype` (kept for later if not allocated)."""
        self._dtype = dtype
        if self._data is None:
            return
        with autograd.pause():
            self._data = [d.astype(dtype) for d in self._data]
            if self._grad is None:
                return
            self._grad = [g.astype(dtype) for g in self._grad]
            autograd.mark_variables(self._data, self._grad, self.grad_req)


class Constant(Parameter):
    """A parameter that never changes (grad_req 'null'), initialized to `value`."""

    def __init__(self, name, value):
        if not isinstance(value, ndarray.NDArray):
            value = ndarray.array(value)
        self.value = value

        class _ConstantInit(initializer.Initializer):
            def _init_weight(self, _, arr):
                value.copyto(arr)
        init_name = 'Constant_{}_{}'.format(name, id(self))
        initializer.alias(init_name)(_ConstantInit)
        super(Constant, self).__init__(name, grad_req='null', shape=value.shape,
                                       dtype=value.dtype, init=init_name)

    def __repr__(self):
        return 'Constant {name} (shape={shape}, dtype={dtype})'.format(
            name=self.name, shape=self.shape, dtype=self.dtype)

    @property
    def grad_req(self):
        return 'null'

    @grad_req.setter
    def grad_req(self, req):
        if req != 'null':
            warnings.warn('Constant parameter "{}" does not support grad_req other than "null", '
                          'and new value "{}" is ignored.'.format(self.name, req))


def _merge_shapes(wanted, stored):
    """The shape both describe (unknown 0/-1 dims filled from the other), or None."""
    if len(wanted) != len(stored):
        return None
    merged = []
    for a, b in zip(wanted, stored):
        if a == b or a in (0, -1):
            merged.append(b)
        elif b in (0, -1):
            merged.append(a)
        else:
            return None
    return tuple(merged)


class ParameterDict(object):
    """An ordered name -> Parameter mapping with a common prefix; `shared` is another
    ParameterDict whose parameters are reused when asked for by name."""

    def __init__(self, prefix='', shared=None):
        self._prefix = prefix
        self._params = OrderedDict()
        self._shared = shared

    def __repr__(self):
        content = '\n'.join([_indent('  {0}'.format(v), 2) for v in self.values()])
        return '{name}(\n{content}\n)'.format(name=self._prefix + ' ' if self._prefix else '',
                                              content=content)

    def __getitem__(self, key):
        return self._params[key]

    def __iter__(self):
        return iter(self._params)

    def __len__(self):
        return len(self._params)

    def __contains__(self, key):
        return key in self._params

    def items(self):
        return self._params.items()

    def keys(self):
        return self._params.keys()

    def values(self):
        return self._params.values()

    @property
    def prefix(self):
        """The prefix of every parameter name created through `get`."""
        return self._prefix

    def _get_impl(self, name):
        if name in self._params:
            return self._params[name]
        if self._shared is not None and name in self._shared._params:
            self._params[name] = self._shared._params[name]
            return self._params[name]
        return None

    def get(self, name, **kwargs):
        """The parameter `prefix + name`, created with `kwargs` if it does not exist; for an
        existing one, each given attribute must agree with the stored one (unknown shape
        dimensions are filled in)."""
        name = self.prefix + name
        param = self._get_impl(name)
        if param is None:
            param = Parameter(name, **kwargs)
            self._params[name] = param
            return param
        for key, value in kwargs.items():
            existing = getattr(param, key, None)
            if existing is None:
                setattr(param, key, value)
                continue
            if key == 'shape' and value is not None:
                value = (value,) if isinstance(value, int) else tuple(value)
                merged = _merge_shapes(value, existing)
                if merged is not None:
                    param._shape = merged  # pylint: disable=protected-access
                    continue
            elif key == 'dtype' and np.dtype(value) == np.dtype(existing):
                continue
            if value is not None and value != existing:
                raise InvalidConfigError(
                    "Cannot retrieve Parameter '%s' because desired attribute does not match "
                    "with stored for attribute '%s': desired '%s' vs stored '%s'."
                    % (name, key, str(value), str(existing)))
        return param

    def get_constant(self, name, value=None):
        """The Constant `prefix + name`, created from `value` if it does not exist."""
        name = self.prefix + name
        param = self._get_impl(name)
        if param is None:
            if value is None:
                raise KeyError("No constant named '{}'. Please specify value if you want to "
                               "create a new constant.".format(name))
            param = Constant(name, value)
            self._params[name] = param
        elif value is not None:
            if not isinstance(param, Constant):
                raise InvalidConfigError(
                    "Parameter '{}' already exists but it is not a constant.".format(name))
            if isinstance(value, ndarray.NDArray):
                value = value.asnumpy()
            if param.shape != np.shape(value) or not (param.value.asnumpy() == value).all():
                raise InvalidConfigError(
                    "Constant '{}' already exists but it's value doesn't match new "
                    "value".format(name))
        return param

    def update(self, other):
        """Adds the parameters of `other`; a name may only map to the same parameter."""
        for key, value in other.items():
            if key in self._params and self._params[key] is not value:
                raise InvalidConfigError(
                    "Cannot update self with other because they have different Parameters "
                    "with the same name '%s'" % key)
        for key, value in other.items():
            self._params[key] = value

    def initialize(self, init=initializer.Uniform(), ctx=None, verbose=False,
                   force_reinit=False):
        """Initializes every parameter (`init` is the default for those without their own)."""
        if verbose:
            init.set_verbosity(verbose=verbose)
        for param in self.values():
            param.initialize(None, ctx, init, force_reinit=force_reinit)

    def zero_grad(self):
        """Sets all gradient buffers to 0 (one reset_arrays op per context)."""
        by_ctx = defaultdict(list)
        for param in self.values():
            if param.grad_req == 'null' or param._grad is None:  # pylint: disable=protected-access
                continue
            for g in param.list_grad():
                if g.stype == 'default':
                    by_ctx[g.context].append(g)
                else:  # a sparse gradient becomes empty (no stored row)
                    ndarray.zeros_like(g, out=g)
        for arrays in by_ctx.values():
            ndarray.reset_arrays(*arrays, num_arrays=len(arrays))

    def reset_ctx(self, ctx):
        """Moves every parameter to `ctx`."""
        for param in self.values():
            param.reset_ctx(ctx)

    def list_ctx(self):
        """Every context some parameter lives on."""
        found = set()
        for param in self.values():
            found.update(param.list_ctx())
        return list(found)

    def setattr(self, name, value):
        """Sets attribute `name` (grad_req, lr_mult, ...) of every parameter."""
        for param in self.values():
            setattr(param, name, value)

    def save(self, filename, strip_prefix=''):
        """Saves the parameters in MXNet's .params format, names without `strip_prefix`."""
        arrays = {}
        for param in self.values():
            if not param.name.startswith(strip_prefix):
                raise ValueError(
                    "Prefix '%s' is to be striped before saving, but Parameter's name '%s' "
                    "does not start with '%s'. this may be due to your Block shares parameters "
                    "from other Blocks or you forgot to use 'with name_scope()' when creating "
                    "child blocks. %s" % (strip_prefix, param.name, strip_prefix, _NAMING_HELP))
            arrays[param.name[len(strip_prefix):]] = param._reduce()  # pylint: disable=protected-access
        ndarray.save(filename, arrays)

    def load(self, filename, ctx=None, allow_missing=False, ignore_extra=False,
             restore_prefix='', cast_dtype=False, dtype_source="current"):
        """Loads parameters saved by `save` (or `export`: 'arg:'/'aux:' prefixes dropped),
        prepending `restore_prefix` to the saved names."""
        if restore_prefix:
            for name in self.keys():
                if not name.startswith(restore_prefix):
                    raise InvalidConfigError(
                        "restore_prefix is '%s' but Parameters name '%s' does not start with "
                        "'%s'. %s" % (restore_prefix, name, restore_prefix, _NAMING_HELP))
        self.load_dict(ndarray.load(filename), ctx, allow_missing, ignore_extra,
                       restore_prefix, filename, cast_dtype, dtype_source)

    def load_dict(self, param_dict, ctx=None, allow_missing=False, ignore_extra=False,
                  restore_prefix='', filename=None, cast_dtype=False, dtype_source="current"):
        """Like `load`, from a name -> NDArray dict (or list of pairs)."""
        items = param_dict.items() if isinstance(param_dict, dict) else param_dict
        arrays = {restore_prefix + (k[4:] if k.startswith(('arg:', 'aux:')) else k): v
                  for k, v in items}
        source = "file: %s" % filename if filename else "param_dict"
        if not allow_missing:
            for name in self.keys():
                if name not in arrays:
                    raise InvalidConfigError(
                        "Parameter '%s' is missing in %s, which contains parameters: %s. "
                        "Please make sure source and target networks have the same prefix. %s"
                        % (name[len(restore_prefix):], source,
                           _brief_print_list(arrays.keys()), _NAMING_HELP))
        for name, value in arrays.items():
            if name not in self._params:
                if not ignore_extra:
                    raise InvalidConfigError(
                        "Parameter '%s' loaded from %s is not present in ParameterDict, "
                        "choices are: %s. Set ignore_extra to True to ignore. Please make sure "
                        "source and target networks have the same prefix. %s"
                        % (name[len(restore_prefix):], source,
                           _brief_print_list(self._params.keys()), _NAMING_HELP))
                continue
            self[name]._load_init(value, ctx, cast_dtype=cast_dtype,  # pylint: disable=protected-access
                                  dtype_source=dtype_source)
