"""Find and load libmxnet.so (honouring MXNET_LIBRARY_PATH) and report the version."""
import ctypes
import os

__version__ = "1.9.1"


def find_lib_path():
    """Return the list of candidate paths of libmxnet.so, the preferred one first.

    MXNET_LIBRARY_PATH, when set, names the library to use (a file, or a folder holding
    libmxnet.so); otherwise the copy installed inside this package is used.
    """
    env = os.environ.get("MXNET_LIBRARY_PATH")
    if env:
        path = os.path.join(env, "libmxnet.so") if os.path.isdir(env) else env
        if not os.path.isfile(path):
            raise RuntimeError("MXNET_LIBRARY_PATH=%s does not name libmxnet.so" % env)
        return [os.path.abspath(path)]
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "libmxnet.so")
    if not os.path.isfile(path):
        raise RuntimeError("Cannot find libmxnet.so in %s; build and install the package "
                           "(pip install .) or set MXNET_LIBRARY_PATH" % here)
    return [path]


def find_include_path():
    """Return the folder of MXNet's C headers when installed beside the package."""
    here = os.path.dirname(os.path.abspath(__file__))
    for cand in (os.path.join(here, "include"),
                 os.path.join(here, "..", "..", "include")):
        if os.path.isdir(os.path.join(cand, "mxnet")):
            return os.path.abspath(cand)
    raise RuntimeError("Cannot find the MXNet include folder")


def load_lib():
    """Load libmxnet.so globally so the extension module binds to this copy."""
    path = find_lib_path()[0]
    return ctypes.CDLL(path, ctypes.RTLD_GLOBAL)
