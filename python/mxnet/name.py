"""mx.name: automatic naming of symbols (NameManager, Prefix), one current manager per thread."""
import threading
import warnings

from .base import classproperty, with_metaclass, _MXClassPropertyMetaClass

__all__ = ["NameManager", "Prefix"]


class NameManager(with_metaclass(_MXClassPropertyMetaClass, object)):
    """Gives each unnamed symbol a name: the hint followed by a per-hint counter (fc0, fc1...).

    `with NameManager():` makes a fresh manager current in this thread; subclasses change
    the naming rule by overriding get()."""
    _current = threading.local()

    def __init__(self):
        self._counter = {}
        self._old_manager = None

    def get(self, name, hint):
        """name when given; otherwise hint followed by how many times hint was used before."""
        if name:
            return name
        if hint not in self._counter:
            self._counter[hint] = 0
        name = "%s%d" % (hint, self._counter[hint])
        self._counter[hint] += 1
        return name

    def __enter__(self):
        if not hasattr(NameManager._current, "value"):
            NameManager._current.value = NameManager()
        self._old_manager = NameManager._current.value
        NameManager._current.value = self
        return self

    def __exit__(self, ptype, value, trace):
        assert self._old_manager
        NameManager._current.value = self._old_manager

    # pylint: disable=no-self-argument
    @classproperty
    def current(cls):
        """The current manager of this thread (deprecated in MXNet 1.9: use `with`)."""
        warnings.warn("NameManager.current has been deprecated. It is advised to use the "
                      "`with` statement with NameManager.", DeprecationWarning)
        if not hasattr(NameManager._current, "value"):
            cls._current.value = NameManager()
        return cls._current.value

    @current.setter
    def current(cls, val):
        cls._current.value = val
    # pylint: enable=no-self-argument


class Prefix(NameManager):
    """A NameManager that puts prefix before every name: with Prefix('net_'): fc0 -> net_fc0."""

    def __init__(self, prefix):
        super().__init__()
        self._prefix = prefix

    def get(self, name, hint):
        return self._prefix + super().get(name, hint)


NameManager._current.value = NameManager()
