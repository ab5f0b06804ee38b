"""MXNet: a deep-learning framework (drop-in successor to Apache MXNet 1.x)."""
from .libinfo import __version__
from .base import MXNetError
from . import base
from .context import Context, cpu, gpu, cpu_pinned, current_context, num_gpus
from .util import is_np_shape, set_np_shape, np_shape, use_np_shape
from .util import is_np_array, np_array, use_np_array, use_np
from . import ndarray
from . import ndarray as nd
from . import autograd
from . import name
from . import attribute
from .attribute import AttrScope
from . import symbol
from . import symbol as sym
from . import visualization
from . import visualization as viz
from . import executor
from . import monitor
from . import monitor as mon
from . import random
from . import random as rnd
from . import numpy
from . import numpy as np
from . import numpy_extension
from . import numpy_extension as npx
ndarray.np, ndarray.npx = numpy, numpy_extension  # mx.nd.np / mx.nd.npx, as MXNet 1.9.1
from . import registry
from . import initializer
from . import initializer as init
from . import metric
from . import runtime
from . import engine
from . import util
from .util import is_np_shape, set_np_shape, np_shape, use_np_shape
from . import test_utils
from . import context
from . import profiler
from . import operator
from . import optimizer
from . import kvstore
from . import kvstore as kv
from . import lr_scheduler
from . import io
from . import recordio
from . import image
from . import image as img
from . import gluon
from . import contrib
from . import model
from . import callback
from . import module
from . import module as mod
from . import rnn

__all__ = ["MXNetError", "Context", "cpu", "gpu", "cpu_pinned", "nd", "ndarray", "autograd",
           "optimizer", "lr_scheduler", "random", "rnd", "runtime", "engine", "util",
           "test_utils", "profiler", "operator", "current_context", "num_gpus", "name",
           "attribute", "AttrScope", "symbol", "sym", "visualization", "viz", "is_np_shape", "set_np_shape",
           "np_shape",
           "use_np_shape", "is_np_array", "np_array", "use_np_array", "use_np", "gluon", "io",
           "registry", "initializer", "init", "metric", "contrib", "kvstore", "kv",
           "recordio", "model", "callback", "module", "mod", "rnn", "numpy", "np",
           "numpy_extension", "npx"]
