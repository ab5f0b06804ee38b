"""Underscore-prefixed operators (filled from the registry at import)."""
