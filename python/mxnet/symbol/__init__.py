"""mx.sym: symbolic graphs (for now the graphs autograd.get_symbol exports)."""
from .symbol import Symbol

__all__ = ["Symbol"]
