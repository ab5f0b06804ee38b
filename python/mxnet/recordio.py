"""mx.recordio: RecordIO files (.rec, with a .idx text index for random access) and the
image-record header (IRHeader) that MXNet's image datasets put before each payload.

File format (dmlc RecordIO, see docs/recordio.md): each record is the magic 0xced7230a, a
length word (low 29 bits: payload length; top 3 bits: continuation flag), the payload and
zero padding to 4 bytes. Files move both ways between this package and MXNet 1.9.1."""
import ctypes
import numbers
import struct
from collections import namedtuple
from multiprocessing import current_process

import numpy as np

from .base import _LIB, RecordIOHandle, check_call, c_str

try:
    import cv2
except ImportError:
    cv2 = None

__all__ = ['MXRecordIO', 'MXIndexedRecordIO', 'IRHeader', 'pack', 'unpack', 'pack_img',
           'unpack_img']


class MXRecordIO(object):
    """Reads ('r') or writes ('w') the records of a RecordIO file in order.

    Parameters
    ----------
    uri : str
        Path of the record file.
    flag : str
        'w' to write (truncates the file) or 'r' to read.
    """

    def __init__(self, uri, flag):
        self.uri = c_str(uri)
        self.handle = RecordIOHandle()
        self.flag = flag
        self.pid = None
        self.is_open = False
        self.writable = flag == 'w'
        self.open()

    def open(self):
        """Opens the file (again): a reader starts at the first record, a writer truncates."""
        if self.flag == 'w':
            check_call(_LIB.MXRecordIOWriterCreate(self.uri, ctypes.byref(self.handle)))
            self.writable = True
        elif self.flag == 'r':
            check_call(_LIB.MXRecordIOReaderCreate(self.uri, ctypes.byref(self.handle)))
            self.writable = False
        else:
            raise ValueError("Invalid flag %s" % self.flag)
        self.pid = current_process().pid
        self.is_open = True

    def __del__(self):
        if _LIB is not None and getattr(self, 'is_open', False):
            self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __getstate__(self):
        """Pickles the path and mode; an open file is opened again when unpickled."""
        is_open = self.is_open
        self.close()
        state = dict(self.__dict__)
        state['is_open'] = is_open
        uri = self.uri.value
        state['uri'] = uri.decode('utf-8') if isinstance(uri, bytes) else uri
        del state['handle']
        return state

    def __setstate__(self, state):
        self.__dict__ = state
        was_open = state['is_open']
        self.is_open = False
        self.handle = RecordIOHandle()
        self.uri = c_str(self.uri)
        if was_open:
            self.open()

    def _check_pid(self, allow_reset=False):
        """A handle is not shared across processes: a reader reopens in a child when allowed."""
        if self.pid != current_process().pid:
            if allow_reset:
                self.reset()
            else:
                raise RuntimeError("Forbidden operation in multiple processes")

    def close(self):
        """Closes the file (a writer flushes)."""
        if not self.is_open:
            return
        if self.writable:
            check_call(_LIB.MXRecordIOWriterFree(self.handle))
        else:
            check_call(_LIB.MXRecordIOReaderFree(self.handle))
        self.is_open = False
        self.pid = None

    def reset(self):
        """Back to the first record; a writer truncates the file."""
        self.close()
        self.open()

    def write(self, buf):
        """Appends buf (bytes) as one record."""
        assert self.writable
        self._check_pid(allow_reset=False)
        check_call(_LIB.MXRecordIOWriterWriteRecord(self.handle, ctypes.c_char_p(buf),
                                                    ctypes.c_size_t(len(buf))))

    def read(self):
        """The next record as bytes, or None at the end of the file."""
        assert not self.writable
        self._check_pid(allow_reset=False)
        buf = ctypes.c_char_p()
        size = ctypes.c_size_t()
        check_call(_LIB.MXRecordIOReaderReadRecord(self.handle, ctypes.byref(buf),
                                                   ctypes.byref(size)))
        if not buf:
            return None
        return ctypes.string_at(buf, size.value)

    def tell(self):
        """The byte position of the next record."""
        pos = ctypes.c_size_t()
        if self.writable:
            check_call(_LIB.MXRecordIOWriterTell(self.handle, ctypes.byref(pos)))
        else:
            check_call(_LIB.MXRecordIOReaderTell(self.handle, ctypes.byref(pos)))
        return pos.value


class MXIndexedRecordIO(MXRecordIO):
    """A RecordIO file with a text index (one "key\\tbyte-offset" line per record) for
    random access by key.

    Parameters
    ----------
    idx_path : str
        Path of the index file.
    uri : str
        Path of the record file (must be seekable).
    flag : str
        'w' or 'r'.
    key_type : type
        Type of the keys (int by default).
    """

    def __init__(self, idx_path, uri, flag, key_type=int):
        self.idx_path = idx_path
        self.idx = {}
        self.keys = []
        self.key_type = key_type
        self.fidx = None
        super(MXIndexedRecordIO, self).__init__(uri, flag)

    def open(self):
        super(MXIndexedRecordIO, self).open()
        self.idx = {}
        self.keys = []
        self.fidx = open(self.idx_path, self.flag)
        if not self.writable:
            for lineno, line in enumerate(self.fidx, 1):
                fields = line.strip().split('\t')
                if fields == ['']:
                    continue
                if len(fields) < 2:
                    raise ValueError("MXIndexedRecordIO: line %d of index '%s' is %r, expected "
                                     "'key<TAB>offset'" % (lineno, self.idx_path, line))
                key = self.key_type(fields[0])
                self.idx[key] = int(fields[1])
                self.keys.append(key)

    def close(self):
        if not self.is_open:
            return
        super(MXIndexedRecordIO, self).close()
        self.fidx.close()

    def __getstate__(self):
        state = super(MXIndexedRecordIO, self).__getstate__()
        state['fidx'] = None
        return state

    def seek(self, idx):
        """Moves the reader to the record of key idx."""
        assert not self.writable
        self._check_pid(allow_reset=True)
        check_call(_LIB.MXRecordIOReaderSeek(self.handle, ctypes.c_size_t(self.idx[idx])))

    def read_idx(self, idx):
        """The record of key idx."""
        self.seek(idx)
        return self.read()

    def write_idx(self, idx, buf):
        """Appends buf as the record of key idx and indexes it."""
        key = self.key_type(idx)
        pos = self.tell()
        self.write(buf)
        self.fidx.write('%s\t%d\n' % (str(key), pos))
        self.idx[key] = pos
        self.keys.append(key)


IRHeader = namedtuple('HEADER', ['flag', 'label', 'id', 'id2'])
"""Header of an image record: flag (the number of float32 labels that follow the header when
> 0), label (a float, or the label array when flag > 0), id and id2 (the high bits of the id)."""

_IR_FORMAT = 'IfQQ'
_IR_SIZE = struct.calcsize(_IR_FORMAT)  # 24 bytes: uint32 flag, float32 label, 2 x uint64


def pack(header, s):
    """Packs an IRHeader and payload bytes s into one record's bytes. A label array is stored
    after the header (flag = its length, label field 0); a number label sets flag to 0."""
    header = IRHeader(*header)
    if isinstance(header.label, numbers.Number):
        header = header._replace(flag=0)
    else:
        label = np.asarray(header.label, dtype=np.float32)
        header = header._replace(flag=label.size, label=0)
        s = label.tobytes() + s
    return struct.pack(_IR_FORMAT, *header) + s


def unpack(s):
    """Splits a record's bytes into its IRHeader (label an array when flag > 0) and payload."""
    if len(s) < _IR_SIZE:
        raise ValueError("recordio.unpack: record of %d bytes is shorter than the %d-byte "
                         "IRHeader" % (len(s), _IR_SIZE))
    header = IRHeader(*struct.unpack(_IR_FORMAT, s[:_IR_SIZE]))
    s = s[_IR_SIZE:]
    if header.flag > 0:
        if len(s) < header.flag * 4:
            raise ValueError("recordio.unpack: header promises %d float32 labels, the record "
                             "holds %d bytes after the header" % (header.flag, len(s)))
        header = header._replace(label=np.frombuffer(s, np.float32, header.flag))
        s = s[header.flag * 4:]
    return header, s


def unpack_img(s, iscolor=-1):
    """Splits a record into its IRHeader and the decoded image as a numpy array (BGR channel
    order as OpenCV's imdecode gives it; iscolor: -1 as stored, 0 gray, 1 color)."""
    header, s = unpack(s)
    buf = np.frombuffer(s, dtype=np.uint8)
    if cv2 is not None:
        img = cv2.imdecode(buf, iscolor)
        if img is None:
            raise ValueError("recordio.unpack_img: the payload of record id %d is not a "
                             "decodable image" % header.id)
        return header, img
    from . import image
    return header, image.imdecode_np(buf, iscolor)


def pack_img(header, img, quality=95, img_fmt='.jpg'):
    """Encodes img (an (H, W[, C]) uint8 numpy array, BGR) as JPEG (quality 1-100) or PNG
    (quality = compression 1-9) and packs it with header."""
    fmt = img_fmt.upper()
    if fmt not in ('.JPG', '.JPEG', '.PNG'):
        raise ValueError("recordio.pack_img: img_fmt %r is not one of .jpg, .jpeg, .png"
                         % img_fmt)
    if cv2 is not None:
        if fmt == '.PNG':
            params = [cv2.IMWRITE_PNG_COMPRESSION, quality]
        else:
            params = [cv2.IMWRITE_JPEG_QUALITY, quality]
        ok, buf = cv2.imencode(img_fmt, img, params)
        assert ok, 'failed to encode image'
        return pack(header, buf.tobytes())
    from . import image
    return pack(header, image.imencode_np(img, img_fmt, quality))
