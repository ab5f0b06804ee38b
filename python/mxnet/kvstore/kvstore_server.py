"""KVStoreServer: the server loop of distributed training. This build has no parameter
server, so run() raises MXNetError saying so (see docs/distributed_training.md)."""
import ctypes

from ..base import _LIB, check_call

__all__ = ['KVStoreServer']


class KVStoreServer(object):
    """The server side of a distributed KVStore (MXNet 1.9.1's interface)."""

    def __init__(self, kvstore):
        self.kvstore = kvstore
        self.handle = kvstore.handle
        self.init_logginig = False

    def run(self):
        """Serve until the job ends: raises MXNetError, there is no parameter server here."""
        controller = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)(
            lambda head, body, _: None)
        check_call(_LIB.MXKVStoreRunServer(self.handle, controller, None))
