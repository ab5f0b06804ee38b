"""mx.init: weight initializers, chosen per parameter by its name's suffix or its __init__ attr."""
import json
import logging
import re
import warnings
from math import sqrt

import numpy as np

from . import ndarray
from . import random
from . import registry
from . import _fused_rnn_layout
from .base import InvalidConfigError, string_types
from .ndarray import NDArray

__all__ = ["InitDesc", "Initializer", "register", "alias", "create", "Load", "Mixed", "Zero",
           "One", "Constant", "Uniform", "Normal", "Orthogonal", "Xavier", "MSRAPrelu",
           "Bilinear", "LSTMBias", "FusedRNN"]


class InitDesc(str):
    """The name of a parameter to initialize, with its attributes (a Symbol's attr_dict; an
    '__init__' entry names the initializer to use) and the global initializer that sub-parts
    of a packed parameter fall back to."""

    def __new__(cls, name, attrs=None, global_init=None):
        desc = super().__new__(cls, name)
        desc.attrs = attrs or {}
        desc.global_init = global_init
        return desc


# Which _init_* method fills a parameter, by the end of its name; the first match wins.
_DESC_SUFFIX_RULES = [("weight", "_init_weight"), ("bias", "_init_bias"),
                      ("gamma", "_init_gamma"), ("beta", "_init_beta"),
                      ("min", "_init_zero"), ("max", "_init_one"),
                      ("weight_quantize", "_init_quantized_weight"),
                      ("bias_quantize", "_init_quantized_bias")]
# Plain-string names (the deprecated call) also cover the batch-norm statistics.
_LEGACY_SUFFIX_RULES = [("bias", "_init_bias"), ("gamma", "_init_gamma"),
                        ("beta", "_init_beta"), ("weight", "_init_weight"),
                        ("moving_mean", "_init_zero"), ("moving_var", "_init_one"),
                        ("moving_inv_var", "_init_zero"), ("moving_avg", "_init_zero"),
                        ("min", "_init_zero"), ("max", "_init_one")]


def _norm_per_element(arr):
    """Default verbose statistic: the 2-norm over the square root of the size."""
    return str((ndarray.norm(arr) / sqrt(arr.size)).asscalar())


def _bilinear_kernel(shape):
    """Weights of a bilinear upsampling filter for a (.., .., kh, kw) deconvolution weight."""
    if len(shape) != 4:
        raise ValueError("Bilinear initializer needs a 4-D weight (out, in, kh, kw), given "
                         "shape %s" % (shape,))
    factor = np.ceil(shape[3] / 2.)
    center = (2 * factor - 1 - factor % 2) / (2. * factor)
    along_x = 1 - np.abs(np.arange(shape[3]) / factor - center)
    along_y = 1 - np.abs(np.arange(shape[2]) / factor - center)
    return np.broadcast_to(np.outer(along_y, along_x), shape).astype("float32")


class Initializer:
    """Base of the initializers. Calling it with (InitDesc, NDArray) fills the array: by the
    initializer named in the descriptor's '__init__' attribute when there is one, otherwise
    by the name's suffix (weight: _init_weight, bias/beta/min: 0, gamma/max: 1, ...).
    Subclasses override _init_weight (and others as needed)."""

    def __init__(self, **kwargs):
        self._kwargs = kwargs
        self._verbose = False
        self._print_func = None

    def set_verbosity(self, verbose=False, print_func=None):
        """Log each initialized array with print_func(array) (default: its norm divided by
        the square root of its size). Returns self."""
        self._verbose = verbose
        self._print_func = print_func or _norm_per_element
        return self

    def _verbose_print(self, desc, init, arr):
        if self._verbose and self._print_func:
            logging.info("Initialized %s as %s: %s", desc, init, self._print_func(arr))

    def dumps(self):
        """The JSON string '["<registered name>", {constructor kwargs}]' that create() reads."""
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])

    def __call__(self, desc, arr):
        if not isinstance(desc, InitDesc):
            self._legacy_init(desc, arr)
            return
        if desc.global_init is None:
            desc.global_init = self
        named = desc.attrs.get("__init__", "")
        if named:
            create(named)._init_weight(desc, arr)
            self._verbose_print(desc, named, arr)
            return
        for suffix, method in _DESC_SUFFIX_RULES:
            if desc.endswith(suffix):
                getattr(self, method)(desc, arr)
                self._verbose_print(desc, suffix, arr)
                return
        self._init_default(desc, arr)

    def _legacy_init(self, name, arr):
        """The deprecated call with a plain string name."""
        warnings.warn("Calling initializer with init(str, NDArray) has been deprecated. "
                      "please use init(mx.init.InitDesc(...), NDArray) instead.",
                      DeprecationWarning, stacklevel=3)
        if not isinstance(name, string_types):
            raise TypeError("name must be string, given %r" % (name,))
        if not isinstance(arr, NDArray):
            raise TypeError("arr must be NDArray, given %r" % (type(arr),))
        if name.startswith("upsampling"):
            self._init_bilinear(name, arr)
        elif name.startswith("stn_loc") and name.endswith("weight"):
            self._init_zero(name, arr)
        elif name.startswith("stn_loc") and name.endswith("bias"):
            self._init_loc_bias(name, arr)
        else:
            for suffix, method in _LEGACY_SUFFIX_RULES:
                if name.endswith(suffix):
                    getattr(self, method)(name, arr)
                    return
            self._init_default(name, arr)

    def _init_bilinear(self, _, arr):
        arr[:] = _bilinear_kernel(arr.shape)

    def _init_loc_bias(self, _, arr):
        """The identity affine transform of a spatial transformer's localisation layer."""
        if arr.shape[0] != 6:
            raise InvalidConfigError("stn_loc bias needs 6 elements, given shape %s"
                                     % (arr.shape,))
        arr[:] = np.array([1.0, 0, 0, 0, 1.0, 0])

    def _init_zero(self, _, arr):
        arr[:] = 0.0

    def _init_one(self, _, arr):
        arr[:] = 1.0

    def _init_bias(self, _, arr):
        arr[:] = 0.0

    def _init_gamma(self, _, arr):
        arr[:] = 1.0

    def _init_beta(self, _, arr):
        arr[:] = 0.0

    def _init_quantized_bias(self, _, arr):
        arr[:] = 0

    def _init_quantized_weight(self, _, arr):
        # MXNet 1.9.1 draws one integer for the whole array; each element gets its own here.
        arr[:] = random.randint(-127, 127, shape=arr.shape, dtype="int32").asnumpy()

    def _init_weight(self, name, arr):
        raise NotImplementedError("%s must override _init_weight" % type(self).__name__)

    def _init_default(self, name, _):
        raise ValueError(
            "Unknown initialization pattern for %s. Default initialization is now limited to "
            '"weight", "bias", "gamma" (1.0), and "beta" (0.0). Please use '
            "mx.sym.Variable(init=mx.init.*) to set initialization pattern" % name)

    def __eq__(self, other):
        if not isinstance(other, Initializer):
            return NotImplemented
        return type(self) is type(other) and self._kwargs == other._kwargs


_register = registry.get_register_func(Initializer, "initializer")
alias = registry.get_alias_func(Initializer, "initializer")
create = registry.get_create_func(Initializer, "initializer")


def register(klass):
    """Register an Initializer subclass so create() and '__init__' attributes find it by its
    lower-cased class name."""
    return _register(klass)


class Load:
    """Initialize from saved arrays (a .params file name or a dict name -> NDArray); names lose
    an 'arg:'/'aux:' prefix. Names not found go to default_init."""

    def __init__(self, param, default_init=None, verbose=False):
        if isinstance(param, string_types):
            param = ndarray.load(param)
        if not isinstance(param, dict):
            raise InvalidConfigError("Load needs named arrays (a dict or a file saved from "
                                     "one), given %s" % type(param).__name__)
        self.param = {}
        for name, arr in param.items():
            if name.startswith("arg:") or name.startswith("aux:"):
                name = name[4:]
            self.param[name] = arr
        self.default_init = default_init
        self.verbose = verbose

    def __call__(self, name, arr):
        if name in self.param:
            loaded = self.param[name]
            if arr.shape != loaded.shape:
                raise InvalidConfigError(
                    "Parameter %s cannot be initialized from loading. Shape mismatch, target %s "
                    "vs loaded %s" % (name, arr.shape, loaded.shape))
            arr[:] = loaded
            if self.verbose:
                logging.info("Initialized %s by loading", name)
            return
        if self.default_init is None:
            raise InvalidConfigError("Cannot Initialize %s. Not found in loaded param and no "
                                     "default Initializer is provided." % name)
        self.default_init(name, arr)
        if self.verbose:
            logging.info("Initialized %s by default", name)


class Mixed:
    """Initialize each parameter with the initializer of the first regular expression that
    matches the start of its name."""

    def __init__(self, patterns, initializers):
        if len(patterns) != len(initializers):
            raise InvalidConfigError("Mixed needs one initializer per pattern, given %d patterns "
                                     "and %d initializers" % (len(patterns), len(initializers)))
        self.map = list(zip([re.compile(p) for p in patterns], initializers))

    def __call__(self, name, arr):
        for pattern, init in self.map:
            if pattern.match(name):
                init(name, arr)
                return
        raise ValueError('Parameter name %s did not match any pattern. Consider adding a ".*" '
                         "pattern at the end with a default Initializer." % name)


@register
@alias("zeros")
class Zero(Initializer):
    """Weights to 0."""

    def __init__(self):
        super().__init__()

    def _init_weight(self, _, arr):
        arr[:] = 0


@register
@alias("ones")
class One(Initializer):
    """Weights to 1."""

    def __init__(self):
        super().__init__()

    def _init_weight(self, _, arr):
        arr[:] = 1


@register
class Constant(Initializer):
    """Weights to value: a scalar, or an NDArray / numpy array of the parameter's shape."""

    def __init__(self, value):
        super().__init__(value=value)
        self.value = value

    def _init_weight(self, _, arr):
        arr[:] = self.value

    def dumps(self):
        value = self._kwargs["value"]
        if isinstance(value, NDArray):
            value = value.asnumpy()
        if isinstance(value, (np.ndarray, np.generic)):
            self._kwargs["value"] = value.tolist()
        return super().dumps()


@register
class Uniform(Initializer):
    """Weights drawn uniformly from [-scale, scale)."""

    def __init__(self, scale=0.07):
        super().__init__(scale=scale)
        self.scale = scale

    def _init_weight(self, _, arr):
        random.uniform(-self.scale, self.scale, arr.shape, out=arr)


@register
class Normal(Initializer):
    """Weights drawn from N(0, sigma^2)."""

    def __init__(self, sigma=0.01):
        super().__init__(sigma=sigma)
        self.sigma = sigma

    def _init_weight(self, _, arr):
        random.normal(0, self.sigma, arr.shape, out=arr)


@register
class Orthogonal(Initializer):
    """scale times an orthogonal matrix (Saxe et al. 2013): the singular vectors of a random
    (shape[0], prod(shape[1:])) matrix, uniform in [-1, 1) or standard normal by rand_type."""

    def __init__(self, scale=1.414, rand_type="uniform"):
        super().__init__(scale=scale, rand_type=rand_type)
        self.scale = scale
        self.rand_type = rand_type

    def _init_weight(self, _, arr):
        rows = arr.shape[0]
        cols = int(np.prod(arr.shape[1:]))
        if self.rand_type == "uniform":
            draw = random.uniform(-1.0, 1.0, shape=(rows, cols)).asnumpy()
        elif self.rand_type == "normal":
            draw = random.normal(0.0, 1.0, shape=(rows, cols)).asnumpy()
        else:
            raise ValueError("Orthogonal rand_type must be 'uniform' or 'normal', given %r"
                             % (self.rand_type,))
        left, _, right = np.linalg.svd(draw, full_matrices=False)
        orthogonal = left if left.shape == draw.shape else right
        arr[:] = self.scale * orthogonal.reshape(arr.shape)


@register
class Xavier(Initializer):
    """Glorot & Bengio's initialization: uniform in [-c, c] or normal with deviation c, where
    c = sqrt(magnitude / n) and n is fan_in, fan_out or their mean (factor_type in/out/avg);
    the fans count a convolution's kernel elements."""

    def __init__(self, rnd_type="uniform", factor_type="avg", magnitude=3):
        super().__init__(rnd_type=rnd_type, factor_type=factor_type, magnitude=magnitude)
        self.rnd_type = rnd_type
        self.factor_type = factor_type
        self.magnitude = float(magnitude)

    def _init_weight(self, name, arr):
        shape = arr.shape
        if len(shape) < 2:
            raise ValueError("Xavier initializer cannot be applied to vector {0}. It requires at"
                             " least 2D.".format(name))
        kernel_size = float(np.prod(shape[2:])) if len(shape) > 2 else 1.
        fan_in, fan_out = shape[1] * kernel_size, shape[0] * kernel_size
        if self.factor_type == "avg":
            factor = (fan_in + fan_out) / 2.0
        elif self.factor_type == "in":
            factor = fan_in
        elif self.factor_type == "out":
            factor = fan_out
        else:
            raise ValueError("Incorrect factor type %r: expected 'avg', 'in' or 'out'"
                             % (self.factor_type,))
        scale = np.sqrt(self.magnitude / factor)
        if self.rnd_type == "uniform":
            random.uniform(-scale, scale, arr.shape, out=arr)
        elif self.rnd_type == "gaussian":
            random.normal(0, scale, arr.shape, out=arr)
        else:
            raise ValueError("Unknown random type %r: expected 'uniform' or 'gaussian'"
                             % (self.rnd_type,))


@register
class MSRAPrelu(Xavier):
    """He et al. 2015 for (P)ReLU networks: Xavier gaussian with magnitude 2 / (1 + slope^2)."""

    def __init__(self, factor_type="avg", slope=0.25):
        super().__init__("gaussian", factor_type, 2. / (1 + slope ** 2))
        self._kwargs = {"factor_type": factor_type, "slope": slope}


@register
class Bilinear(Initializer):
    """A bilinear upsampling kernel, for Deconvolution weights of shape (.., .., kh, kw)."""

    def __init__(self):
        super().__init__()

    def _init_weight(self, _, arr):
        arr[:] = _bilinear_kernel(arr.shape)


@register
class LSTMBias(Initializer):
    """An LSTM cell's bias: 0 except forget_bias on the forget gate (the second of the four
    gate blocks)."""

    def __init__(self, forget_bias=1.0):
        super().__init__(forget_bias=forget_bias)
        self.forget_bias = forget_bias

    def _init_weight(self, name, arr):
        arr[:] = 0.0
        num_hidden = int(arr.shape[0] / 4)
        arr[num_hidden:2 * num_hidden] = self.forget_bias


@register
class FusedRNN(Initializer):
    """The packed parameter vector of the fused RNN op: each gate's weight and bias is
    initialized on its own, by `init` (or the global initializer when None), named
    like 'l0_i2h_f_weight' so the suffix rules apply; an LSTM's forget-gate biases get
    forget_bias. The arguments must match the RNN op's."""

    def __init__(self, init, num_hidden, num_layers, mode, bidirectional=False, forget_bias=1.0):
        if isinstance(init, string_types):
            init = create(init)
        super().__init__(init=init.dumps() if init is not None else None,
                         num_hidden=num_hidden, num_layers=num_layers, mode=mode,
                         bidirectional=bidirectional, forget_bias=forget_bias)
        self._init = init
        self._num_hidden = num_hidden
        self._num_layers = num_layers
        self._mode = mode
        self._bidirectional = bidirectional
        self._forget_bias = forget_bias

    def _init_weight(self, desc, arr):
        slices = _fused_rnn_layout.unpacked_slices(arr.size, self._num_hidden, self._num_layers,
                                                   self._mode, self._bidirectional)
        flat = arr.reshape((arr.size,))
        for name, offset, shape in slices:
            part = ndarray.zeros(shape, ctx=arr.context, dtype=arr.dtype)
            if self._mode == "lstm" and name.endswith("_f_bias"):
                part[:] = self._forget_bias
            else:
                init = self._init if self._init is not None else desc.global_init
                init(InitDesc(name, global_init=desc.global_init), part)
            size = int(np.prod(shape))
            flat[offset:offset + size] = part.reshape((size,))
