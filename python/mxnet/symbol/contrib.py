"""mx.sym.contrib: operators generated from the registry (see register.py)."""
