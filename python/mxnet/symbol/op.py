"""mx.sym.op: the public operators generated from the registry (see register.py)."""
__all__ = []
