"""Key-value store: sums arrays pushed from several devices and hands the result back
(`mx.kv.create('local' | 'device')`); the interface distributed stores share."""
from .kvstore import *
from .base import *
from .kvstore_server import *
