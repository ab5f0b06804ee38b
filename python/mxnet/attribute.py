"""mx.attribute: AttrScope, attributes given to every symbol created inside a `with` scope
(one current scope per thread)."""
import threading
import warnings
from collections import defaultdict

from .base import string_types, classproperty, with_metaclass, _MXClassPropertyMetaClass

__all__ = ["AttrScope"]


class AttrScope(with_metaclass(_MXClassPropertyMetaClass, object)):
    """Attributes (str -> str) added to symbols created in the scope; nested scopes merge,
    the inner value winning."""
    _current = threading.local()
    _subgraph_names = defaultdict(int)

    def __init__(self, **kwargs):
        self._old_scope = None
        for key, value in kwargs.items():
            if not isinstance(value, string_types):
                raise ValueError("AttrScope: attribute %s must be a string, given %r"
                                 % (key, value))
        self._attr = kwargs

    def get(self, attr):
        """The scope's attributes updated with attr (the attributes given at creation)."""
        if self._attr:
            ret = self._attr.copy()
            if attr:
                ret.update(attr)
            return ret
        return attr if attr else {}

    def __enter__(self):
        # pylint: disable=protected-access
        if not hasattr(AttrScope._current, "value"):
            AttrScope._current.value = AttrScope()
        self._old_scope = AttrScope._current.value
        attr = AttrScope._current.value._attr.copy()
        attr.update(self._attr)
        self._attr = attr
        AttrScope._current.value = self
        return self

    def __exit__(self, ptype, value, trace):
        assert self._old_scope
        AttrScope._current.value = self._old_scope

    # pylint: disable=no-self-argument
    @classproperty
    def current(cls):
        """The current scope of this thread (deprecated in MXNet 1.9: use `with`)."""
        warnings.warn("AttrScope.current has been deprecated. It is advised to use the `with` "
                      "statement with AttrScope.", DeprecationWarning)
        if not hasattr(AttrScope._current, "value"):
            cls._current.value = AttrScope()
        return cls._current.value

    @current.setter
    def current(cls, val):
        warnings.warn("AttrScope.current has been deprecated. It is advised to use the `with` "
                      "statement with AttrScope.", DeprecationWarning)
        cls._current.value = val
    # pylint: enable=no-self-argument


AttrScope._current.value = AttrScope()
