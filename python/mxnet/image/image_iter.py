"""mx.image.ImageIter: a Python image iterator over a .rec file (optionally indexed) or a list
of image files, applying mx.image augmenters; MXNet 1.9.1's arguments and batching
(last_batch_handle 'pad', 'discard' or 'roll_over')."""
import logging
import os
import random
from numbers import Number

from .. import io, ndarray as nd, recordio
from .augmenters import CreateAugmenter
from .codec import imdecode

__all__ = ['ImageIter']


class ImageIter(io.DataIter):
    """Batches of (C, H, W) float32 images with labels, from path_imgrec (+ path_imgidx for
    shuffling and partitions), path_imglist + path_root, or imglist ([label(s)..., path]).
    kwargs go to CreateAugmenter when aug_list is not given."""

    def __init__(self, batch_size, data_shape, label_width=1, path_imgrec=None,
                 path_imglist=None, path_root=None, path_imgidx=None, shuffle=False,
                 part_index=0, num_parts=1, aug_list=None, imglist=None, data_name='data',
                 label_name='softmax_label', dtype='float32', last_batch_handle='pad',
                 **kwargs):
        super(ImageIter, self).__init__()
        assert path_imgrec or path_imglist or isinstance(imglist, list)
        assert dtype in ['int32', 'float32', 'int64', 'float64'], dtype + ' label not supported'
        assert last_batch_handle in ('pad', 'discard', 'roll_over'), last_batch_handle
        self.imgrec, self.imgidx = None, None
        if path_imgrec:
            if path_imgidx:
                self.imgrec = recordio.MXIndexedRecordIO(path_imgidx, path_imgrec, 'r')
                self.imgidx = list(self.imgrec.keys)
            else:
                self.imgrec = recordio.MXRecordIO(path_imgrec, 'r')
        imgkeys = []
        self.imglist = None
        if path_imglist:
            self.imglist = {}
            with open(path_imglist) as fin:
                for line in fin:
                    fields = line.strip().split('\t')
                    if len(fields) < 3:
                        continue
                    key = int(fields[0])
                    self.imglist[key] = (nd.array(fields[1:-1], dtype=dtype), fields[-1])
                    imgkeys.append(key)
        elif isinstance(imglist, list):
            self.imglist = {}
            for index, img in enumerate(imglist, 1):
                key = str(index)
                if len(img) > 2:
                    label = nd.array(img[:-1], dtype=dtype)
                elif isinstance(img[0], Number):
                    label = nd.array([img[0]], dtype=dtype)
                else:
                    label = nd.array(img[0], dtype=dtype)
                self.imglist[key] = (label, img[-1])
                imgkeys.append(key)
        self.path_root = path_root
        self.check_data_shape(data_shape)
        self.provide_data = [io.DataDesc(data_name, (batch_size,) + tuple(data_shape))]
        label_shape = (batch_size, label_width) if label_width > 1 else (batch_size,)
        self.provide_label = [io.DataDesc(label_name, label_shape)]
        self.batch_size = batch_size
        self.data_shape = data_shape
        self.label_width = label_width
        self.shuffle = shuffle
        if self.imgrec is None:
            self.seq = imgkeys
        elif shuffle or num_parts > 1 or path_imgidx:
            assert self.imgidx is not None, 'shuffle and num_parts > 1 need path_imgidx'
            self.seq = self.imgidx
        else:
            self.seq = None
        if num_parts > 1:
            assert part_index < num_parts
            n = len(self.seq)
            per_part = n // num_parts
            self.seq = self.seq[part_index * per_part:(part_index + 1) * per_part]
        self.auglist = CreateAugmenter(data_shape, **kwargs) if aug_list is None else aug_list
        self.cur = 0
        self._allow_read = True
        self.last_batch_handle = last_batch_handle
        self.num_image = len(self.seq) if self.seq is not None else None
        self._cache_data = self._cache_label = self._cache_idx = None
        self.reset()

    def reset(self):
        """Back to the first image (reshuffled); with 'roll_over' a cached partial batch
        is kept for the next epoch."""
        if self.seq is not None and self.shuffle:
            random.shuffle(self.seq)
        if self.last_batch_handle != 'roll_over' or self._cache_data is None:
            if self.imgrec is not None:
                self.imgrec.reset()
            self.cur = 0
            self._allow_read = True

    def hard_reset(self):
        """reset() that also drops rolled-over data."""
        if self.seq is not None and self.shuffle:
            random.shuffle(self.seq)
        if self.imgrec is not None:
            self.imgrec.reset()
        self.cur = 0
        self._allow_read = True
        self._cache_data = self._cache_label = self._cache_idx = None

    def next_sample(self):
        """(label, encoded image bytes) of the next image; StopIteration at the end."""
        if not self._allow_read:
            raise StopIteration
        if self.seq is None:
            s = self.imgrec.read()
            if s is None:
                if self.last_batch_handle != 'discard':
                    self.imgrec.reset()
                raise StopIteration
            header, img = recordio.unpack(s)
            return header.label, img
        if self.cur >= self.num_image:
            if self.last_batch_handle != 'discard':
                self.cur = 0
            raise StopIteration
        idx = self.seq[self.cur]
        self.cur += 1
        if self.imgrec is not None:
            header, img = recordio.unpack(self.imgrec.read_idx(idx))
            return (header.label if self.imglist is None else self.imglist[idx][0]), img
        label, fname = self.imglist[idx]
        return label, self.read_image(fname)

    def _batchify(self, batch_data, batch_label, start=0):
        i = start
        try:
            while i < self.batch_size:
                label, s = self.next_sample()
                data = self.imdecode(s)
                try:
                    self.check_valid_image(data)
                except RuntimeError as err:
                    logging.debug('Invalid image, skipping:  %s', str(err))
                    continue
                data = self.augmentation_transform(data)
                assert i < self.batch_size, \
                    'Batch size must be multiples of augmenter output length'
                batch_data[i] = self.postprocess_data(data)
                batch_label[i] = label
                i += 1
        except StopIteration:
            if not i:
                raise
        return i

    def _new_batch(self):
        """Fresh (data, label) arrays for one batch."""
        c, h, w = self.data_shape
        return nd.zeros((self.batch_size, c, h, w)), nd.empty(self.provide_label[0][1])

    def next(self):
        if self._cache_data is not None:
            batch_data, batch_label, i = self._cache_data, self._cache_label, self._cache_idx
        else:
            batch_data, batch_label = self._new_batch()
            i = self._batchify(batch_data, batch_label)
        pad = self.batch_size - i
        if pad != 0:
            if self.last_batch_handle == 'discard':
                raise StopIteration
            if self.last_batch_handle == 'roll_over' and self._cache_data is None:
                self._cache_data, self._cache_label, self._cache_idx = \
                    batch_data, batch_label, i
                raise StopIteration
            self._batchify(batch_data, batch_label, i)
            if self.last_batch_handle == 'pad':
                self._allow_read = False
            else:
                self._cache_data = self._cache_label = self._cache_idx = None
        return io.DataBatch([batch_data], [batch_label], pad=pad)

    def check_data_shape(self, data_shape):
        """data_shape must be (3, H, W)."""
        if not len(data_shape) == 3:
            raise ValueError('data_shape should have length 3, with dimensions CxHxW')
        if not data_shape[0] == 3:
            raise ValueError('This iterator expects inputs to have 3 channels.')

    def check_valid_image(self, data):
        """Raises RuntimeError for an image with no pixels."""
        if len(data[0].shape) == 0:
            raise RuntimeError('Data shape is wrong')

    def imdecode(self, s):
        """Decodes image bytes; a broken image raises RuntimeError naming its index/file."""
        try:
            return imdecode(s)
        except Exception as err:  # pylint: disable=broad-except
            if self.seq is not None:
                idx = self.seq[(self.cur % self.num_image) - 1]
            else:
                idx = self.cur - 1
            where = ('filename: %s' % self.imglist[idx][1]) if self.imglist is not None \
                else ('index: %s' % idx)
            raise RuntimeError('Broken image %s, %s' % (where, err))

    def read_image(self, fname):
        """The bytes of image file fname under path_root."""
        with open(os.path.join(self.path_root, fname), 'rb') as fin:
            return fin.read()

    def augmentation_transform(self, data):
        """Applies the augmenter list."""
        for aug in self.auglist:
            data = aug(data)
        return data

    def postprocess_data(self, datum):
        """(H, W, C) -> (C, H, W)."""
        return nd.transpose(datum, axes=(2, 0, 1))
