"""mx.sym.image: operators generated from the registry (see register.py)."""
