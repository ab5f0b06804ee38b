"""Gluon datasets of encoded images: ImageRecordDataset (a .rec file), ImageFolderDataset
(one folder per class) and ImageListDataset (a .lst file or a list of labels and paths)."""
import os
import warnings

import numpy as np

from .. import dataset
from .... import image, recordio

__all__ = ['ImageRecordDataset', 'ImageFolderDataset', 'ImageListDataset']

_EXTS = ('.jpg', '.jpeg', '.png')


class ImageRecordDataset(dataset.RecordFileDataset):
    """The images of a RecordIO file (with its .idx) as (image, label): image an (H, W, C)
    uint8 NDArray decoded with flag (1 color RGB, 0 gray), label the record's label (an
    array for multi-label records). transform(image, label) is applied when given."""

    def __init__(self, filename, flag=1, transform=None):
        super(ImageRecordDataset, self).__init__(filename)
        self._flag = flag
        self._transform = transform

    def __getitem__(self, idx):
        header, img = recordio.unpack(super(ImageRecordDataset, self).__getitem__(idx))
        img = image.imdecode(img, self._flag)
        if self._transform is not None:
            return self._transform(img, header.label)
        return img, header.label


class ImageFolderDataset(dataset.Dataset):
    """Images stored as root/<class name>/<image>: synsets lists the class names in sorted
    order (label i is synsets[i]), items the (path, label) pairs. Files other than .jpg,
    .jpeg and .png, and entries of root that are not folders, are skipped with a warning."""

    def __init__(self, root, flag=1, transform=None):
        self._root = os.path.expanduser(root)
        self._flag = flag
        self._transform = transform
        self._exts = list(_EXTS)
        self._list_images(self._root)

    def _list_images(self, root):
        self.synsets = []
        self.items = []
        for folder in sorted(os.listdir(root)):
            path = os.path.join(root, folder)
            if not os.path.isdir(path):
                warnings.warn('Ignoring %s, which is not a directory.' % path, stacklevel=3)
                continue
            label = len(self.synsets)
            self.synsets.append(folder)
            for filename in sorted(os.listdir(path)):
                filename = os.path.join(path, filename)
                ext = os.path.splitext(filename)[1]
                if ext.lower() not in self._exts:
                    warnings.warn('Ignoring %s of type %s. Only support %s'
                                  % (filename, ext, ', '.join(self._exts)))
                    continue
                self.items.append((filename, label))

    def __getitem__(self, idx):
        img = image.imread(self.items[idx][0], self._flag)
        label = self.items[idx][1]
        if self._transform is not None:
            return self._transform(img, label)
        return img, label

    def __len__(self):
        return len(self.items)


class ImageListDataset(dataset.Dataset):
    """Images named by a list, relative to root: imglist is the path of a .lst file
    ("index<TAB>label(s)<TAB>path" lines, as tools/im2rec.py writes) or a list of
    [label(s)..., path] entries. Items are (image, label): a float label, or a float32 array
    when there are several."""

    def __init__(self, root='.', imglist=None, flag=1):
        self._root = os.path.expanduser(root)
        self._flag = flag
        self.items = []
        if isinstance(imglist, str):
            with open(imglist) as fin:
                for lineno, line in enumerate(fin, 1):
                    fields = line.strip().split('\t')
                    if fields == ['']:
                        continue
                    if len(fields) < 3:
                        raise ValueError('ImageListDataset: line %d of %s is %r, expected '
                                         'index, label(s) and path' % (lineno, imglist, line))
                    self.items.append((fields[-1], self._label([float(v) for v in
                                                                fields[1:-1]])))
        elif imglist is not None:
            for entry in imglist:
                entry = list(entry)
                labels = entry[:-1]
                if len(labels) == 1 and not np.isscalar(labels[0]):
                    labels = list(labels[0])
                self.items.append((entry[-1], self._label([float(v) for v in labels])))
        else:
            raise ValueError('ImageListDataset: imglist (a .lst path or a list) is required')

    @staticmethod
    def _label(values):
        return values[0] if len(values) == 1 else np.array(values, dtype=np.float32)

    def __getitem__(self, idx):
        path, label = self.items[idx]
        return image.imread(os.path.join(self._root, path), self._flag), label

    def __len__(self):
        return len(self.items)
