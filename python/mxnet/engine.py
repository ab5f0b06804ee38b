"""mx.engine: bulk execution settings."""
import contextlib

from . import _ffi

__all__ = ["set_bulk_size", "bulk"]


def set_bulk_size(size):
    """Set how many operations may be bulked into one engine task; returns the old size."""
    if not isinstance(size, int) or size < 0:
        raise ValueError("bulk size must be a non-negative int, given %r" % (size,))
    return _ffi.set_bulk_size(size)


@contextlib.contextmanager
def bulk(size):
    """Scope with the given bulk size."""
    prev = set_bulk_size(size)
    try:
        yield
    finally:
        set_bulk_size(prev)
