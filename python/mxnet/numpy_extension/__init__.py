"""mx.npx: MXNet's operators beyond numpy (neural-network layers, npx.reshape), the numpy
semantics switches, devices, save/load and seeding, for mx.np arrays."""
# pylint: disable=wildcard-import,unused-wildcard-import
from ._op import *  # noqa: F401,F403
from . import random
from .utils import save, load
from ..context import Context, cpu, gpu, cpu_pinned, current_context, num_gpus, \
    gpu_memory_info
from ..util import is_np_shape, is_np_array, set_np, reset_np, use_np, use_np_array, \
    use_np_shape, np_shape, np_array, get_cuda_compute_capability
from ..ndarray import waitall


def seed(seed, ctx="all"):  # pylint: disable=redefined-outer-name
    """Seed the random number generators."""
    random.seed(seed, ctx)
