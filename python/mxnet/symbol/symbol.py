"""Symbol: a computation graph with named arguments and outputs, saved as -symbol.json."""
from .. import _ffi

__all__ = ["Symbol"]


class Symbol:
    """A graph, held by the C++ core, and the outputs it gives (MXNet 1.9's Symbol API).

    Symbols are made by the library (e.g. ``mx.autograd.get_symbol``), not constructed
    directly: ``handle`` is the core's ``SymbolHandle``."""

    def __init__(self, handle):
        if not isinstance(handle, _ffi.SymbolHandle):
            raise TypeError("Symbol: expected a SymbolHandle, given %s" % type(handle).__name__)
        self.handle = handle

    @property
    def name(self):
        """Name of the node giving the only output; None for a group of several outputs."""
        names = self.handle.head_names()
        return names[0] if len(names) == 1 else None

    def __repr__(self):
        name = self.name
        if name is None:
            return "<Symbol group [%s]>" % ", ".join(self.handle.head_names())
        return "<Symbol %s>" % name

    def __len__(self):
        return len(self.handle.head_names())

    def list_arguments(self):
        """Names of the input variables, in graph order (auxiliary states excluded)."""
        return self.handle.list_arguments()

    def list_auxiliary_states(self):
        """Names of the variables an operator updates in place (e.g. batch-norm statistics)."""
        return self.handle.list_auxiliary_states()

    def list_outputs(self):
        """Output names: "<node>_output" (or "<node>_output<i>"), a variable's own name."""
        return self.handle.list_outputs()

    def list_attr(self):
        """The operator arguments (kwargs as strings) of the node giving the only output."""
        return dict(self.handle.head_attrs())

    def attr(self, key):
        """One operator argument of the output node, as a string; None when not set."""
        return self.list_attr().get(key)

    def tojson(self):
        """The graph in MXNet's -symbol.json format (loadable by MXNet 1.9's sym.load)."""
        return self.handle.tojson()

    def save(self, fname, remove_amp_cast=True):
        """Write tojson() to fname (MXNet's -symbol.json file)."""
        del remove_amp_cast  # no AMP casts are ever inserted in exported graphs
        with open(fname, "w") as f:
            f.write(self.tojson())
