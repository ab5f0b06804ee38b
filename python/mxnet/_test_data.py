"""Downloads and datasets for mx.test_utils: download with retries, zip/bz2 extraction, MNIST
and CIFAR-10 helpers that use files already present (MXNet 1.9 names and signatures)."""
import bz2
import gzip
import logging
import os
import struct
import zipfile

import numpy as np

from . import _ffi

__all__ = ["list_gpus", "download", "get_zip_data", "get_bz2_data", "get_mnist_pkl",
           "get_mnist_ubyte", "get_cifar10", "get_mnist", "get_im2rec_path"]


def list_gpus():
    """range over the visible GPUs (empty without GPUs)."""
    return range(_ffi.gpu_count())


def download(url, fname=None, dirname=None, overwrite=False, retries=5):
    """Download url to fname (default: the URL's last part) in dirname and return the path.

    An existing file is kept unless overwrite. A failed attempt (network error or a status
    other than 200) is retried up to `retries` times; the last error is raised."""
    import urllib.request
    assert retries >= 0, "Number of retries should be at least 0"
    if fname is None:
        fname = url.split("/")[-1]
    if dirname is None:
        dirname = os.path.dirname(fname)
    else:
        fname = os.path.join(dirname, fname)
    if dirname != "":
        os.makedirs(dirname, exist_ok=True)
    if not overwrite and os.path.exists(fname):
        logging.info("%s exists, skipping download", fname)
        return fname
    attempts_left = retries + 1
    while True:
        try:
            with urllib.request.urlopen(url, timeout=60) as r:
                if r.status != 200:
                    raise IOError("failed to open %s: HTTP status %d" % (url, r.status))
                tmp = fname + ".part"
                with open(tmp, "wb") as f:
                    while True:
                        chunk = r.read(1 << 16)
                        if not chunk:
                            break
                        f.write(chunk)
                os.replace(tmp, fname)
            break
        except Exception as e:  # pylint: disable=broad-except
            attempts_left -= 1
            if attempts_left <= 0:
                raise e
            print("download failed, retrying, {} attempt{} left".format(
                attempts_left, "s" if attempts_left > 1 else ""))
    logging.info("downloaded %s into %s successfully", url, fname)
    return fname


def get_zip_data(data_dir, url, data_origin_name):
    """Download url as data_dir/data_origin_name and extract it into data_dir, unless that
    zip file is already there."""
    data_origin_name = os.path.join(data_dir, data_origin_name)
    if not os.path.exists(data_origin_name):
        download(url, dirname=data_dir, overwrite=False)
        with zipfile.ZipFile(data_origin_name) as zip_file:
            zip_file.extractall(path=data_dir)


def get_bz2_data(data_dir, data_name, url, data_origin_name):
    """Make data_dir/data_name the decompressed content of the bz2 file at url (kept as
    data_dir/data_origin_name while decompressing); nothing to do when data_name exists, and
    an already present bz2 file is used without downloading."""
    data_name = os.path.join(data_dir, data_name)
    if os.path.exists(data_name):
        return
    data_origin_name = download(url, fname=data_origin_name, dirname=data_dir, overwrite=False)
    with bz2.BZ2File(data_origin_name, "rb") as bz_file, open(data_name, "wb") as fout:
        for chunk in iter(lambda: bz_file.read(1 << 20), b""):
            fout.write(chunk)
    os.remove(data_origin_name)


def _have_files(folder, names):
    return all(os.path.exists(os.path.join(folder, n)) for n in names)


def get_mnist_pkl():
    """Make sure ./data/mnist.pkl.gz exists (downloads it otherwise)."""
    os.makedirs("data", exist_ok=True)
    if not os.path.exists(os.path.join("data", "mnist.pkl.gz")):
        download("http://deeplearning.net/data/mnist/mnist.pkl.gz", dirname="data")


def get_mnist_ubyte():
    """Make sure ./data holds MNIST's four idx-ubyte files (downloads mnist.zip otherwise)."""
    os.makedirs("data", exist_ok=True)
    if not _have_files("data", ["train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                                "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"]):
        zip_file_path = download("http://data.mxnet.io/mxnet/data/mnist.zip", dirname="data")
        with zipfile.ZipFile(zip_file_path) as zf:
            zf.extractall("data")


def get_cifar10():
    """Make sure ./data/cifar holds CIFAR-10's .rec and .lst files (downloads cifar10.zip
    otherwise)."""
    os.makedirs("data", exist_ok=True)
    if not _have_files(os.path.join("data", "cifar"),
                       ["train.rec", "test.rec", "train.lst", "test.lst"]):
        zip_file_path = download("http://data.mxnet.io/mxnet/data/cifar10.zip", dirname="data")
        with zipfile.ZipFile(zip_file_path) as zf:
            zf.extractall("data")


def get_mnist():
    """MNIST as a dict of numpy arrays: train_data/test_data (N, 1, 28, 28) float32 in [0, 1]
    and train_label/test_label int8; the .gz files are downloaded into the current folder
    unless already there."""
    def read_data(label_url, image_url):
        with gzip.open(download(label_url)) as flbl:
            struct.unpack(">II", flbl.read(8))
            label = np.frombuffer(flbl.read(), dtype=np.int8)
        with gzip.open(download(image_url), "rb") as fimg:
            _, _, rows, cols = struct.unpack(">IIII", fimg.read(16))
            image = np.frombuffer(fimg.read(), dtype=np.uint8).reshape(len(label), 1, rows, cols)
        return label, image.astype(np.float32) / 255

    path = "http://data.mxnet.io/data/mnist/"
    train_lbl, train_img = read_data(path + "train-labels-idx1-ubyte.gz",
                                     path + "train-images-idx3-ubyte.gz")
    test_lbl, test_img = read_data(path + "t10k-labels-idx1-ubyte.gz",
                                   path + "t10k-images-idx3-ubyte.gz")
    return {"train_data": train_img, "train_label": train_lbl,
            "test_data": test_img, "test_label": test_lbl}


def get_im2rec_path(home_env="MXNET_HOME"):
    """Path of tools/im2rec.py under $home_env or the package's source tree; IOError when
    absent."""
    mxnet_path = os.environ.get(home_env, os.path.dirname(os.path.abspath(__file__)))
    for path in (os.path.join(mxnet_path, "tools", "im2rec.py"),
                 os.path.join(mxnet_path, "..", "..", "tools", "im2rec.py")):
        if os.path.isfile(path):
            return path
    raise IOError("Could not find path to tools/im2rec.py")
