"""Signatures of the builtin _np_* operators (MXNet 1.9.1 documents each one here). This package
registers no _np_* operator: mx.np is written over MXNet's operators in Python, so the module
is empty."""
