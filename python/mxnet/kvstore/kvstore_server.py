"""KVStoreServer: the server loop of distributed training. `import mxnet` in a process started
with DMLC_ROLE=server (or scheduler) runs it and exits when the job ends, as MXNet 1.9.1 does
(tools/launch.py starts such processes; see docs/distributed_training.md)."""
import ctypes
import logging
import os
import pickle
import sys

from ..base import _LIB, check_call

__all__ = ['KVStoreServer']

_CONTROLLER_PROTO = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)


class KVStoreServer(object):
    """The server side of a distributed KVStore (MXNet 1.9.1's interface)."""

    def __init__(self, kvstore):
        self.kvstore = kvstore
        self.handle = kvstore.handle
        self.init_logginig = False

    def _controller(self):
        """The function the servers run for a worker's command: command 0 carries the
        pickled optimizer (kv.set_optimizer on worker 0)."""
        def server_controller(cmd_id, cmd_body, _):
            if not self.init_logginig:
                head = '%(asctime)-15s Server[' + str(self.kvstore.rank) + '] %(message)s'
                logging.basicConfig(level=logging.DEBUG, format=head)
                self.init_logginig = True
            if cmd_id == 0:
                optimizer = pickle.loads(cmd_body)
                self.kvstore.set_optimizer(optimizer)
            else:
                print("server %d, unknown command (%d, %s)" % (self.kvstore.rank, cmd_id,
                                                              cmd_body))
        return server_controller

    def run(self):
        """Serve pushes, pulls and commands until the workers end the job."""
        controller = _CONTROLLER_PROTO(self._controller())
        check_call(_LIB.MXKVStoreRunServer(self.handle, controller, None))


def _init_kvstore_server_module():
    """Run the server or scheduler loop when DMLC_ROLE says this process is one, then exit."""
    is_worker = ctypes.c_int()
    check_call(_LIB.MXKVStoreIsWorkerNode(ctypes.byref(is_worker)))
    if is_worker.value == 0:
        from .base import create
        kvstore = create('dist')
        server = KVStoreServer(kvstore)
        server.run()
        sys.exit()


if os.environ.get('DMLC_ROLE') in ('server', 'scheduler'):
    _init_kvstore_server_module()
