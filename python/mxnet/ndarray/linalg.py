"""mx.nd.linalg: linear-algebra operators registered as _linalg_* (filled at import)."""
