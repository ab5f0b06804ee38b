"""mx.nd.contrib: operators registered as _contrib_* (filled from the registry at import)."""
