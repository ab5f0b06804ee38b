"""Name registries for serializable classes (initializers, metrics): register, alias, create."""
import json
import warnings

from .base import InvalidConfigError, string_types

# base class -> {lower-case name -> registered subclass}
_REGISTRY = {}


def _table(base_class):
    return _REGISTRY.setdefault(base_class, {})


def get_registry(base_class):
    """A copy of the name -> class table of base_class."""
    return dict(_table(base_class))


def get_register_func(base_class, nickname):
    """A decorator registering a subclass of base_class under its lower-cased class name
    (or the name given); a name registered twice warns and the newer class wins."""
    table = _table(base_class)

    def register(klass, name=None):
        if not (isinstance(klass, type) and issubclass(klass, base_class)):
            raise InvalidConfigError("Can only register subclass of %s, given %r"
                                     % (base_class.__name__, klass))
        key = (name or klass.__name__).lower()
        previous = table.get(key)
        if previous is not None and previous is not klass:
            warnings.warn("New %s %s.%s registered with name %s is overriding existing %s %s.%s"
                          % (nickname, klass.__module__, klass.__name__, key, nickname,
                             previous.__module__, previous.__name__), UserWarning, stacklevel=2)
        table[key] = klass
        return klass

    register.__doc__ = "Register a %s class to the %s factory." % (nickname, nickname)
    return register


def get_alias_func(base_class, nickname):
    """A decorator factory: @alias('a', 'b') registers the class under each extra name."""
    register = get_register_func(base_class, nickname)

    def alias(*aliases):
        def with_aliases(klass):
            for name in aliases:
                register(klass, name)
            return klass
        return with_aliases

    alias.__doc__ = "Register a %s class under additional names." % nickname
    return alias


def get_create_func(base_class, nickname):
    """The factory of base_class. It accepts an instance (returned as is), a registered name
    (case-insensitive) with constructor arguments, a dict {nickname: name, **kwargs}, or the
    JSON strings '["name", {kwargs}]' and '{"nickname": "name", ...}' that dumps() and
    get_config() produce."""
    table = _table(base_class)

    def create(*args, **kwargs):
        if args:
            what, args = args[0], args[1:]
        elif nickname in kwargs:
            what = kwargs.pop(nickname)
        else:
            raise InvalidConfigError("create() needs the %s to create: a name, a config or an "
                                     "instance" % nickname)
        if isinstance(what, base_class):
            if args or kwargs:
                raise InvalidConfigError("%s is already an instance. Additional arguments are "
                                         "invalid" % nickname)
            return what
        if isinstance(what, dict):
            return create(**what)
        if not isinstance(what, string_types):
            raise InvalidConfigError("%s must be of string type, given %r" % (nickname, what))
        if what.startswith("[") or what.startswith("{"):
            if args or kwargs:
                raise InvalidConfigError("a JSON %s config takes no further arguments" % nickname)
            config = json.loads(what)
            if isinstance(config, dict):
                return create(**config)
            name, config_kwargs = config
            return create(name, **config_kwargs)
        klass = table.get(what.lower())
        if klass is None:
            raise InvalidConfigError("%s is not registered. Please register with %s.register "
                                     "first" % (what.lower(), nickname))
        return klass(*args, **kwargs)

    create.__doc__ = ("Create a %s from a registered name (with constructor arguments), a config "
                      "(dict or JSON string) or an existing %s instance (returned as is)."
                      % (nickname, base_class.__name__))
    return create
