"""Gluon utilities: splitting batches across devices, gradient clipping, file download."""
import collections
import hashlib
import os
import uuid
import warnings
import weakref

import numpy as np

from .. import ndarray
from ..util import is_np_shape, is_np_array
from .. import numpy as _mx_np

__all__ = ['split_data', 'split_and_load', 'clip_global_norm',
           'check_sha1', 'download', 'replace_file']


def split_data(data, num_slice, batch_axis=0, even_split=True):
    """Splits `data` into `num_slice` slices along `batch_axis`; with even_split=False the
    first `size % num_slice` slices get one element more."""
    size = data.shape[batch_axis]
    if even_split and size % num_slice != 0:
        raise ValueError(
            "data with shape %s cannot be evenly split into %d slices along axis %d. "
            "Use a batch size that's multiple of %d or set even_split=False to allow "
            "uneven partitioning of data." % (str(data.shape), num_slice, batch_axis, num_slice))
    step, extra = divmod(size, num_slice)
    bounds = np.cumsum([0] + [step + 1] * extra + [step] * (num_slice - extra))
    if batch_axis == 0:  # a plain slice: csr arrays slice too, mx.np arrays stay mx.np
        return [data[int(bounds[i]):int(bounds[i + 1])] for i in range(num_slice)]
    if is_np_array():  # basic slicing keeps mx.np arrays mx.np arrays
        lead = (slice(None),) * batch_axis
        return [data[lead + (slice(int(bounds[i]), int(bounds[i + 1])),)]
                for i in range(num_slice)]
    return [ndarray.slice_axis(data, axis=batch_axis, begin=int(bounds[i]), end=int(bounds[i + 1]))
            for i in range(num_slice)]


def split_and_load(data, ctx_list, batch_axis=0, even_split=True):
    """Splits `data` (an NDArray or anything `nd.array` takes) into one slice per context
    and copies each slice to its context."""
    if not isinstance(data, ndarray.NDArray):
        data = (_mx_np.array if is_np_array() else ndarray.array)(data, ctx=ctx_list[0])
    if len(ctx_list) == 1:
        return [data.as_in_context(ctx_list[0])]
    slices = split_data(data, len(ctx_list), batch_axis, even_split)
    return [s.as_in_context(ctx) for s, ctx in zip(slices, ctx_list)]


def clip_global_norm(arrays, max_norm, check_isfinite=True):
    """Scales `arrays` in place so that the 2-norm of all of them together is at most
    `max_norm`; returns that norm before scaling (a float, or an NDArray when
    check_isfinite is False, which avoids waiting for it)."""
    assert len(arrays) > 0
    ctx = arrays[0].context
    squares = []
    for arr in arrays:
        if arr.stype == 'default':
            flat = arr.reshape((-1,))
            squares.append(ndarray.dot(flat, flat).as_in_context(ctx))
        else:  # sparse arrays have no flat view; their norm reads the stored values
            squares.append(ndarray.square(arr.norm()).as_in_context(ctx))
    total_norm = ndarray.sqrt(ndarray.add_n(*squares))
    if check_isfinite and not np.isfinite(total_norm.asscalar()):
        warnings.warn(UserWarning('nan or inf is detected. Clipping results will be undefined.'),
                      stacklevel=2)
    scale = max_norm / (total_norm + 1e-8)
    scale = ndarray.min(ndarray.concat(scale, ndarray.ones(1, ctx=ctx), dim=0))
    for arr in arrays:
        arr *= scale.as_in_context(arr.context)
    return total_norm.asscalar() if check_isfinite else total_norm


def _indent(text, num_spaces):
    lines = text.split('\n')
    if len(lines) == 1:
        return text
    return '\n'.join([lines[0]] + [' ' * num_spaces + line for line in lines[1:]])


def check_sha1(filename, sha1_hash):
    """Whether the SHA-1 of the file's contents is `sha1_hash` (hex)."""
    sha1 = hashlib.sha1()
    with open(filename, 'rb') as f:
        for chunk in iter(lambda: f.read(1 << 20), b''):
            sha1.update(chunk)
    return sha1.hexdigest() == sha1_hash


def replace_file(src, dst):
    """Moves `src` over `dst` atomically; on failure removes `src` and raises OSError."""
    try:
        os.replace(src, dst)
    except OSError:
        try:
            os.remove(src)
        except OSError:
            pass
        raise OSError('Moving downloaded temp file - {}, to {} failed. '
                      'Please retry the download.'.format(src, dst))


def download(url, path=None, overwrite=False, sha1_hash=None, retries=5, verify_ssl=True):
    """Downloads `url` to `path` (a file, a directory, or the URL's file name here) unless
    the file exists (and matches `sha1_hash` when given), and returns the file name.

    The data goes to a temporary file that replaces the target only when complete, so an
    existing file is never lost to a failed download. Needs the `requests` package.
    """
    if path is None:
        fname = url.split('/')[-1]
        assert fname, "Can't construct file-name from this URL. " \
            "Please set the `path` option manually."
    else:
        path = os.path.expanduser(path)
        fname = os.path.join(path, url.split('/')[-1]) if os.path.isdir(path) else path
    assert retries >= 0, \
        "Number of retries should be at least 0, currently it's {}".format(retries)
    if not verify_ssl:
        warnings.warn('Unverified HTTPS request is being made (verify_ssl=False). '
                      'Adding certificate verification is strongly advised.')
    if not overwrite and os.path.exists(fname) and \
            not (sha1_hash and not check_sha1(fname, sha1_hash)):
        return fname
    import requests
    dirname = os.path.dirname(os.path.abspath(fname))
    os.makedirs(dirname, exist_ok=True)
    while True:
        try:
            print('Downloading {} from {}...'.format(fname, url))
            response = requests.get(url, stream=True, verify=verify_ssl)
            if response.status_code != 200:
                raise RuntimeError('Failed downloading url {}'.format(url))
            temp = '{}.{}'.format(fname, uuid.uuid4())
            with open(temp, 'wb') as f:
                for chunk in response.iter_content(chunk_size=1024):
                    if chunk:
                        f.write(chunk)
            if not os.path.exists(fname) or (sha1_hash and not check_sha1(fname, sha1_hash)):
                replace_file(temp, fname)
            else:
                # another process finished the same download first
                try:
                    os.remove(temp)
                finally:
                    warnings.warn('File {} exists in file system so the downloaded file '
                                  'is deleted'.format(fname))
            if sha1_hash and not check_sha1(fname, sha1_hash):
                raise UserWarning('File {} is downloaded but the content hash does not match. '
                                  'The repo may be outdated or download may be incomplete. '
                                  'If the "repo_url" is overridden, consider switching to the '
                                  'default repo.'.format(fname))
            return fname
        except Exception as err:  # pylint: disable=broad-except
            retries -= 1
            if retries <= 0:
                raise err
            print('download failed due to {}, retrying, {} attempt{} left'
                  .format(repr(err), retries, 's' if retries > 1 else ''))


def _get_repo_url():
    """The model/data repository: MXNET_GLUON_REPO, or Apache MXNet's, ending in '/'."""
    url = os.environ.get('MXNET_GLUON_REPO',
                         'https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/')
    return url if url.endswith('/') else url + '/'


def _get_repo_file_url(namespace, filename):
    return '{}{}/{}'.format(_get_repo_url(), namespace, filename)


def _brief_print_list(lst, limit=7):
    """'a', 'b', ..., 'z': at most about `limit` quoted items."""
    lst = list(lst)
    if len(lst) > limit:
        return _brief_print_list(lst[:limit // 2], limit) + ', ..., ' + \
            _brief_print_list(lst[-limit // 2:], limit)
    return ', '.join(["'%s'" % str(i) for i in lst])


class HookHandle(object):
    """Detaches a hook from the dictionary it was registered in (also as a context
    manager). Holds the dictionary weakly, so it never keeps a block alive."""

    def __init__(self):
        self._hooks_dict_ref = None
        self._id = None

    def attach(self, hooks_dict, hook):
        assert not self._hooks_dict_ref, 'The same handle cannot be attached twice.'
        self._id = id(hook)
        hooks_dict[self._id] = hook
        self._hooks_dict_ref = weakref.ref(hooks_dict)

    def detach(self):
        hooks_dict = self._hooks_dict_ref()
        if hooks_dict is not None and self._id in hooks_dict:
            del hooks_dict[self._id]

    def __getstate__(self):
        return (self._hooks_dict_ref(), self._id)

    def __setstate__(self, state):
        hooks = state[0] if state[0] is not None else collections.OrderedDict()
        self._hooks_dict_ref = weakref.ref(hooks)
        self._id = state[1]

    def __enter__(self):
        return self

    def __exit__(self, ptype, value, trace):
        self.detach()


def shape_is_known(shape):
    """Whether every dimension of `shape` is known (0 means unknown, or -1 under np_shape)."""
    if shape is None:
        return False
    unknown = -1 if is_np_shape() else 0
    if len(shape) == 0:
        return unknown == -1
    for dim in shape:
        if dim == unknown:
            return False
        assert dim > unknown, \
            "shape dimension size cannot be less than {}, while received {}".format(unknown, dim)
    return True
