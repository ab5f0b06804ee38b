"""mx.runtime: what this build of libmxnet.so contains."""
import collections

from . import _ffi

__all__ = ["Feature", "Features", "feature_list"]


class Feature:
    """One compile-time feature and whether it is enabled."""

    def __init__(self, name, enabled):
        self.name = name
        self.enabled = bool(enabled)

    def __repr__(self):
        return ("✔ " if self.enabled else "✖ ") + self.name


def feature_list():
    """List of Feature objects of this build."""
    return [Feature(name, enabled) for name, enabled in _ffi.features()]


class Features(collections.OrderedDict):
    """Features of this build, by name: Features().is_enabled('ONEDNN')."""
    instance = None

    def __new__(cls):
        if cls.instance is None:
            cls.instance = super().__new__(cls)
            super().__init__(cls.instance, [(f.name, f) for f in feature_list()])
        return cls.instance

    def __init__(self):  # pylint: disable=super-init-not-called
        pass

    def __repr__(self):
        return str(list(self.values()))

    def is_enabled(self, feature_name):
        feature_name = feature_name.upper()
        if feature_name not in self:
            raise RuntimeError("Feature '{}' is unknown, known features are: {}".format(
                feature_name, list(self.keys())))
        return self[feature_name].enabled
