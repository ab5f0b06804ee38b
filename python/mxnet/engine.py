"""mx.engine: bulk execution settings."""
import contextlib

from . import _ffi

__all__ = ["set_bulk_size", "bulk"]


def set_bulk_size(size):
    """Set the calling thread's bulk size and return its previous one.

    While it is above 0, consecutive synchronous operations this thread pushes (one device,
    normal priority) are gathered and pushed to the engine as one task of at most `size`
    operations; the pending ops are pushed when the size changes, at a wait on an array they
    use, at ``waitall`` and before an operation that cannot join. An error in one of them stops
    the task and reaches every array it writes (as in MXNet). NaiveEngine ignores it.
    """
    if not isinstance(size, int) or size < 0:
        raise ValueError("bulk size must be a non-negative int, given %r" % (size,))
    return _ffi.set_bulk_size(size)


@contextlib.contextmanager
def bulk(size):
    """Scope in which this thread's bulk size is `size` (see set_bulk_size); the previous size
    comes back at its end, and the ops still gathered are pushed then."""
    prev = set_bulk_size(size)
    try:
        yield
    finally:
        set_bulk_size(prev)
