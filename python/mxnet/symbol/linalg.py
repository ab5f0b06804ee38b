"""mx.sym.linalg: operators generated from the registry (see register.py)."""
