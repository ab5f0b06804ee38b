"""mx.image's object-detection pipeline (MXNet 1.9.1's names, arguments and label format):
the DetAugmenter classes, which map (image, label) to (image, label), CreateDetAugmenter and
ImageDetIter.

A raw detection label is flat: [header_width, object_width, <header extras>..., then one
object_width-long row per object: class id, xmin, ymin, xmax, ymax (normalised to [0, 1]),
extras...]. Parsed labels are (num_objects, object_width) numpy arrays; batches pad the
missing objects with -1. Random choices draw from Python's `random`, in MXNet's order, so a
seeded run repeats MXNet 1.9.1's crops, pads and flips."""
import logging
import random
import warnings
from math import sqrt

import numpy as np

from ..base import MXNetError, numeric_types
from .. import io, ndarray as nd
from .augmenters import (_ArgsDumper, Augmenter, ResizeAug, ForceResizeAug, CastAug, ColorJitterAug,
                         HueJitterAug, LightingAug, RandomGrayAug, ColorNormalizeAug)
from .codec import copyMakeBorder
from .image import fixed_crop
from .image_iter import ImageIter

__all__ = ['DetAugmenter', 'DetBorrowAug', 'DetRandomSelectAug', 'DetHorizontalFlipAug',
           'DetRandomCropAug', 'DetRandomPadAug', 'CreateMultiRandCropAugmenter',
           'CreateDetAugmenter', 'ImageDetIter']

_DEFAULT_MEAN = (123.68, 116.28, 103.53)
_DEFAULT_STD = (58.395, 57.12, 57.375)
_PCA_EIGVAL = (55.46, 4.794, 1.148)
_PCA_EIGVEC = ((-0.5675, 0.7192, 0.4009),
               (-0.5808, -0.0045, -0.8140),
               (-0.5836, -0.6948, 0.4203))
_BORDER_ISOLATED = 16  # the cv2 border type DetRandomPadAug fills with


class DetAugmenter(_ArgsDumper):
    """Base class of the detection augmenters: __call__(src, label) returns both augmented;
    dumps() gives [lower-case class name, arguments] as JSON."""

    def __call__(self, src, label):
        raise NotImplementedError("Must override implementation.")


class DetBorrowAug(DetAugmenter):
    """Applies a classification Augmenter that leaves the label unchanged."""

    def __init__(self, augmenter):
        if not isinstance(augmenter, Augmenter):
            raise TypeError('Borrowing from invalid Augmenter')
        super(DetBorrowAug, self).__init__(augmenter=augmenter.dumps())
        self.augmenter = augmenter

    def dumps(self):
        return [self.__class__.__name__.lower(), self.augmenter.dumps()]

    def __call__(self, src, label):
        return self.augmenter(src), label


class DetRandomSelectAug(DetAugmenter):
    """Applies one augmenter of aug_list chosen at random, or none with probability
    skip_prob (always none when aug_list is empty)."""

    def __init__(self, aug_list, skip_prob=0):
        super(DetRandomSelectAug, self).__init__(skip_prob=skip_prob)
        if not isinstance(aug_list, (list, tuple)):
            aug_list = [aug_list]
        if any(not isinstance(aug, DetAugmenter) for aug in aug_list):
            raise ValueError('Allow DetAugmenter in list only')
        self.aug_list = aug_list
        self.skip_prob = skip_prob if aug_list else 1

    def dumps(self):
        return [self.__class__.__name__.lower(), [x.dumps() for x in self.aug_list]]

    def __call__(self, src, label):
        if random.random() < self.skip_prob:
            return src, label
        # MXNet shuffles the list in place and takes its head; the same draws keep seeded
        # runs identical to it.
        random.shuffle(self.aug_list)
        return self.aug_list[0](src, label)


class DetHorizontalFlipAug(DetAugmenter):
    """Flips image and boxes left-right with probability p."""

    def __init__(self, p):
        super(DetHorizontalFlipAug, self).__init__(p=p)
        self.p = p

    def __call__(self, src, label):
        if random.random() < self.p:
            src = nd.flip(src, axis=1)
            self._flip_label(label)
        return src, label

    @staticmethod
    def _flip_label(label):
        """Mirrors columns 1 (xmin) and 3 (xmax) in place."""
        xmin = label[:, 1].copy()
        label[:, 1] = 1.0 - label[:, 3]
        label[:, 3] = 1.0 - xmin


def _as_range(value, name, owner):
    """A (lo, hi) pair from a pair or a single number."""
    if isinstance(value, (tuple, list)):
        return value
    assert isinstance(value, numeric_types)
    logging.info('Using fixed %s: %s in %s', name, str(value), owner)
    return (value, value)


def _box_areas(boxes):
    """Areas of (xmin, ymin, xmax, ymax) rows; empty boxes count 0."""
    return np.maximum(0, boxes[:, 2] - boxes[:, 0]) * np.maximum(0, boxes[:, 3] - boxes[:, 1])


def _window_attempts(aug, height, width):
    """MXNet's window search shared by the random crop and pad: per attempt (at most
    aug.max_attempts), a random aspect ratio, the area bounds, and the heights giving the
    smallest and largest area at that ratio; nothing when aug is disabled."""
    if not aug.enabled or height <= 0 or width <= 0:
        return
    min_area = aug.area_range[0] * height * width
    max_area = aug.area_range[1] * height * width
    for _ in range(aug.max_attempts):
        ratio = random.uniform(*aug.aspect_ratio_range)
        if ratio <= 0:
            continue
        yield (ratio, min_area, max_area, int(round(sqrt(min_area / ratio))),
               int(round(sqrt(max_area / ratio))))


class DetRandomCropAug(DetAugmenter):
    """Crops a random window whose aspect ratio (w/h) is in aspect_ratio_range and whose
    area fraction is in area_range, that covers more than min_object_covered of every box it
    touches; boxes then covered by at most min_eject_coverage of their area are dropped.
    Gives up (image unchanged) after max_attempts tries."""

    def __init__(self, min_object_covered=0.1, aspect_ratio_range=(0.75, 1.33),
                 area_range=(0.05, 1.0), min_eject_coverage=0.3, max_attempts=50):
        aspect_ratio_range = _as_range(aspect_ratio_range, 'aspect ratio', 'DetRandomCropAug')
        area_range = _as_range(area_range, 'area range', 'DetRandomCropAug')
        super(DetRandomCropAug, self).__init__(
            min_object_covered=min_object_covered, aspect_ratio_range=aspect_ratio_range,
            area_range=area_range, min_eject_coverage=min_eject_coverage,
            max_attempts=max_attempts)
        self.min_object_covered = min_object_covered
        self.min_eject_coverage = min_eject_coverage
        self.max_attempts = max_attempts
        self.aspect_ratio_range = aspect_ratio_range
        self.area_range = area_range
        self.enabled = False
        if area_range[1] <= 0 or area_range[0] > area_range[1]:
            warnings.warn('Skip DetRandomCropAug due to invalid area_range: %s'
                          % (area_range,))
        elif aspect_ratio_range[0] > aspect_ratio_range[1] or aspect_ratio_range[0] <= 0:
            warnings.warn('Skip DetRandomCropAug due to invalid aspect_ratio_range: %s'
                          % (aspect_ratio_range,))
        else:
            self.enabled = True

    def __call__(self, src, label):
        crop = self._random_crop_proposal(label, src.shape[0], src.shape[1])
        if crop:
            x, y, w, h, label = crop
            src = fixed_crop(src, x, y, w, h, None)
        return src, label

    def _satisfies_constraints(self, label, window, width, height):
        """Whether the pixel window (x0, y0, x1, y1) covers every box it touches enough."""
        x0, y0, x1, y1 = window
        if (x1 - x0) * (y1 - y0) < 2:
            return False
        areas = _box_areas(label[:, 1:])
        valid = np.where(areas * width * height > 2)[0]
        if valid.size < 1:
            return False
        boxes = label[valid, 1:]
        inter = np.stack([np.maximum(boxes[:, 0], float(x0) / width),
                          np.maximum(boxes[:, 1], float(y0) / height),
                          np.minimum(boxes[:, 2], float(x1) / width),
                          np.minimum(boxes[:, 3], float(y1) / height)], axis=1)
        empty = np.logical_or(inter[:, 0] >= inter[:, 2], inter[:, 1] >= inter[:, 3])
        inter[empty, :] = 0
        coverages = _box_areas(inter) / areas[valid]
        coverages = coverages[coverages > 0]
        return coverages.size > 0 and np.amin(coverages) > self.min_object_covered

    def _update_labels(self, label, crop_box, height, width):
        """Boxes in the crop's coordinates, clipped; None when no box keeps enough area."""
        xmin, ymin = float(crop_box[0]) / width, float(crop_box[1]) / height
        w, h = float(crop_box[2]) / width, float(crop_box[3]) / height
        out = label.copy()
        out[:, (1, 3)] = (out[:, (1, 3)] - xmin) / w
        out[:, (2, 4)] = (out[:, (2, 4)] - ymin) / h
        out[:, 1:5] = np.clip(out[:, 1:5], 0, 1)
        coverage = _box_areas(out[:, 1:]) * w * h / _box_areas(label[:, 1:])
        keep = np.logical_and(out[:, 3] > out[:, 1], out[:, 4] > out[:, 2])
        keep = np.where(np.logical_and(keep, coverage > self.min_eject_coverage))[0]
        return out[keep, :] if keep.size else None

    def _random_crop_proposal(self, label, height, width):
        """(x, y, w, h, new label) of an accepted window, or () when none was found."""
        for ratio, min_area, max_area, h, max_h in _window_attempts(self, height, width):
            if round(max_h * ratio) > width:
                max_h = int((width + 0.4999999) / ratio)  # the widest window that fits
            max_h = min(max_h, height)
            h = min(h, max_h)
            if h < max_h:
                h = random.randint(h, max_h)
            w = int(round(h * ratio))
            area = w * h
            if area < min_area:
                h += 1
                w = int(round(h * ratio))
                area = w * h
            if area > max_area:
                h -= 1
                w = int(round(h * ratio))
                area = w * h
            if not (min_area <= area <= max_area and 0 <= w <= width and 0 <= h <= height):
                continue
            y = random.randint(0, max(0, height - h))
            x = random.randint(0, max(0, width - w))
            if self._satisfies_constraints(label, (x, y, x + w, y + h), width, height):
                new_label = self._update_labels(label, (x, y, w, h), height, width)
                if new_label is not None:
                    return (x, y, w, h, new_label)
        return ()


class DetRandomPadAug(DetAugmenter):
    """Places the image at a random spot of a larger canvas filled with pad_val, whose aspect
    ratio (w/h) is in aspect_ratio_range and area (relative to the image) in area_range."""

    def __init__(self, aspect_ratio_range=(0.75, 1.33), area_range=(1.0, 3.0),
                 max_attempts=50, pad_val=(128, 128, 128)):
        if not isinstance(pad_val, (list, tuple)):
            assert isinstance(pad_val, numeric_types)
        aspect_ratio_range = _as_range(aspect_ratio_range, 'aspect ratio', 'DetRandomPadAug')
        area_range = _as_range(area_range, 'area range', 'DetRandomPadAug')
        super(DetRandomPadAug, self).__init__(aspect_ratio_range=aspect_ratio_range,
                                              area_range=area_range, max_attempts=max_attempts,
                                              pad_val=pad_val)
        self.pad_val = pad_val
        self.aspect_ratio_range = aspect_ratio_range
        self.area_range = area_range
        self.max_attempts = max_attempts
        self.enabled = False
        if area_range[1] <= 1.0 or area_range[0] > area_range[1]:
            warnings.warn('Skip DetRandomPadAug due to invalid parameters: %s' % (area_range,))
        elif aspect_ratio_range[0] <= 0 or aspect_ratio_range[0] > aspect_ratio_range[1]:
            warnings.warn('Skip DetRandomPadAug due to invalid aspect_ratio_range: %s'
                          % (aspect_ratio_range,))
        else:
            self.enabled = True

    def __call__(self, src, label):
        height, width, _ = src.shape
        pad = self._random_pad_proposal(label, height, width)
        if pad:
            x, y, w, h, label = pad
            src = copyMakeBorder(src, y, h - y - height, x, w - x - width, _BORDER_ISOLATED,
                                 values=self.pad_val)
        return src, label

    @staticmethod
    def _update_labels(label, pad_box, height, width):
        """Boxes in the padded canvas's coordinates."""
        out = label.copy()
        out[:, (1, 3)] = (out[:, (1, 3)] * width + pad_box[0]) / pad_box[2]
        out[:, (2, 4)] = (out[:, (2, 4)] * height + pad_box[1]) / pad_box[3]
        return out

    def _random_pad_proposal(self, label, height, width):
        """(x, y, w, h, new label) of the canvas, or () when no try gave a useful one."""
        for ratio, _, _, h, max_h in _window_attempts(self, height, width):
            if round(h * ratio) < width:
                h = int((width + 0.499999) / ratio)  # at least as wide as the image
            h = min(max(h, height), max_h)
            if h < max_h:
                h = random.randint(h, max_h)
            w = int(round(h * ratio))
            if (h - height) < 2 or (w - width) < 2:
                continue  # a border of a pixel or two is no augmentation
            y = random.randint(0, max(0, h - height))
            x = random.randint(0, max(0, w - width))
            return (x, y, w, h, self._update_labels(label, (x, y, w, h), height, width))
        return ()


def CreateMultiRandCropAugmenter(min_object_covered=0.1, aspect_ratio_range=(0.75, 1.33),
                                 area_range=(0.05, 1.0), min_eject_coverage=0.3,
                                 max_attempts=50, skip_prob=0):
    """A DetRandomSelectAug over DetRandomCropAugs: each argument may be a list (one value
    per augmenter); single values are repeated to the longest list's length."""
    params = [p if isinstance(p, list) else [p]
              for p in (min_object_covered, aspect_ratio_range, area_range,
                        min_eject_coverage, max_attempts)]
    num = max(len(p) for p in params)
    for k, p in enumerate(params):
        if len(p) != num:
            assert len(p) == 1, 'CreateMultiRandCropAugmenter: list lengths differ'
            params[k] = p * num
    augs = [DetRandomCropAug(min_object_covered=moc, aspect_ratio_range=arr, area_range=ar,
                             min_eject_coverage=mec, max_attempts=ma)
            for moc, arr, ar, mec, ma in zip(*params)]
    return DetRandomSelectAug(augs, skip_prob=skip_prob)


def _stat_array(value, default):
    """mean/std argument: True -> MXNet's ImageNet values; an array must have 1 or 3 values."""
    if value is True:
        return np.array(default)
    if value is not None:
        assert isinstance(value, np.ndarray) and value.shape[0] in [1, 3]
    return value


def CreateDetAugmenter(data_shape, resize=0, rand_crop=0, rand_pad=0, rand_gray=0,
                       rand_mirror=False, mean=None, std=None, brightness=0, contrast=0,
                       saturation=0, pca_noise=0, hue=0, inter_method=2, min_object_covered=0.1,
                       aspect_ratio_range=(0.75, 1.33), area_range=(0.05, 3.0),
                       min_eject_coverage=0.3, max_attempts=50, pad_val=(127, 127, 127)):
    """The detection augmenter list, in MXNet's order: resize, random crop (probability
    rand_crop), mirror, random pad (probability rand_pad), forced resize to data_shape, cast
    to float32, colour jitter, hue, PCA lighting, random gray, normalisation."""
    auglist = []
    if resize > 0:
        auglist.append(DetBorrowAug(ResizeAug(resize, inter_method)))
    if rand_crop > 0:
        auglist.append(CreateMultiRandCropAugmenter(
            min_object_covered, aspect_ratio_range, area_range, min_eject_coverage,
            max_attempts, skip_prob=(1 - rand_crop)))
    if rand_mirror > 0:
        auglist.append(DetHorizontalFlipAug(0.5))
    if rand_pad > 0:
        pad_aug = DetRandomPadAug(aspect_ratio_range, (1.0, area_range[1]), max_attempts,
                                  pad_val)
        auglist.append(DetRandomSelectAug([pad_aug], 1 - rand_pad))
    auglist.append(DetBorrowAug(ForceResizeAug((data_shape[2], data_shape[1]), inter_method)))
    auglist.append(DetBorrowAug(CastAug()))
    if brightness or contrast or saturation:
        auglist.append(DetBorrowAug(ColorJitterAug(brightness, contrast, saturation)))
    if hue:
        auglist.append(DetBorrowAug(HueJitterAug(hue)))
    if pca_noise > 0:
        auglist.append(DetBorrowAug(LightingAug(pca_noise, np.array(_PCA_EIGVAL),
                                                np.array(_PCA_EIGVEC))))
    if rand_gray > 0:
        auglist.append(DetBorrowAug(RandomGrayAug(rand_gray)))
    mean = _stat_array(mean, _DEFAULT_MEAN)
    std = _stat_array(std, _DEFAULT_STD)
    if mean is not None or std is not None:
        auglist.append(DetBorrowAug(ColorNormalizeAug(mean, std)))
    return auglist


class ImageDetIter(ImageIter):
    """ImageIter for detection: labels in the raw detection format (see the module doc)
    become (batch_size, max objects, object_width) float32 batches padded with -1. The label
    shape is estimated by one pass over the labels at construction; kwargs go to
    CreateDetAugmenter when aug_list is not given."""

    def __init__(self, batch_size, data_shape,
                 path_imgrec=None, path_imglist=None, path_root=None, path_imgidx=None,
                 shuffle=False, part_index=0, num_parts=1, aug_list=None, imglist=None,
                 data_name='data', label_name='label', last_batch_handle='pad', **kwargs):
        super(ImageDetIter, self).__init__(batch_size=batch_size, data_shape=data_shape,
                                           path_imgrec=path_imgrec, path_imglist=path_imglist,
                                           path_root=path_root, path_imgidx=path_imgidx,
                                           shuffle=shuffle, part_index=part_index,
                                           num_parts=num_parts, aug_list=[], imglist=imglist,
                                           data_name=data_name, label_name=label_name,
                                           last_batch_handle=last_batch_handle)
        self.auglist = CreateDetAugmenter(data_shape, **kwargs) if aug_list is None \
            else aug_list
        label_shape = self._estimate_label_shape()
        self.provide_label = [io.DataDesc(label_name, (self.batch_size,) + label_shape)]
        self.label_shape = label_shape

    def _check_valid_label(self, label):
        """Raises (skipping the sample) unless label is (n >= 1, >= 5) with a valid box."""
        if len(label.shape) != 2 or label.shape[1] < 5:
            raise MXNetError("ImageDetIter: label with shape (1+, 5+) required, %s received."
                             % str(label))
        valid = np.logical_and(label[:, 0] >= 0, label[:, 3] > label[:, 1])
        if not np.logical_and(valid, label[:, 4] > label[:, 2]).any():
            raise MXNetError('ImageDetIter: invalid label occurs (no object with class id '
                             '>= 0 and a non-empty box).')

    def _estimate_label_shape(self):
        """(max objects per image, object width) over one pass of the labels."""
        max_count, width = 0, None
        self.reset()
        try:
            while True:
                label, _ = self.next_sample()
                label = self._parse_label(label)
                max_count = max(max_count, label.shape[0])
                width = label.shape[1]
        except StopIteration:
            pass
        self.reset()
        if width is None:
            raise MXNetError('ImageDetIter: the dataset has no image, so the label shape '
                             'cannot be estimated.')
        return (max_count, width)

    def _parse_label(self, label):
        """The (num_objects, object_width) array of the objects of a raw label that have a
        non-empty box; MXNetError for a malformed label."""
        if isinstance(label, nd.NDArray):
            label = label.asnumpy()
        raw = np.asarray(label).ravel()
        if raw.size < 7:
            raise MXNetError('ImageDetIter: label shape is invalid: %s (expected at least '
                             '7 values: header width, object width, one object)'
                             % str(raw.shape))
        in_range = 2 <= raw[0] <= raw.size and 5 <= raw[1] <= raw.size  # False for NaN
        header_width, obj_width = (int(raw[0]), int(raw[1])) if in_range else (raw[0], raw[1])
        if not in_range or (raw.size - header_width) % obj_width != 0:
            raise MXNetError('ImageDetIter: label shape %s inconsistent with header width %s '
                             'and annotation width %s (expected header >= 2, object >= 5, '
                             'size = header + k * object)'
                             % (str(raw.shape), header_width, obj_width))
        out = raw[header_width:].reshape(-1, obj_width)
        valid = np.where(np.logical_and(out[:, 3] > out[:, 1], out[:, 4] > out[:, 2]))[0]
        if valid.size < 1:
            raise MXNetError('ImageDetIter: encountered a sample with no valid label.')
        return out[valid, :]

    def reshape(self, data_shape=None, label_shape=None):
        """Changes data_shape and/or label_shape (checked) for the next batches."""
        if data_shape is not None:
            self.check_data_shape(data_shape)
            self.provide_data = [io.DataDesc(self.provide_data[0][0],
                                             (self.batch_size,) + tuple(data_shape))]
            self.data_shape = data_shape
        if label_shape is not None:
            self.check_label_shape(label_shape)
            self.provide_label = [io.DataDesc(self.provide_label[0][0],
                                              (self.batch_size,) + tuple(label_shape))]
            self.label_shape = label_shape

    def _batchify(self, batch_data, batch_label, start=0):
        i = start
        try:
            while i < self.batch_size:
                label, s = self.next_sample()
                data = self.imdecode(s)
                try:
                    self.check_valid_image([data])
                    label = self._parse_label(label)
                    data, label = self.augmentation_transform(data, label)
                    self._check_valid_label(label)
                except RuntimeError as err:
                    logging.debug('Invalid image, skipping:  %s', str(err))
                    continue
                batch_data[i] = self.postprocess_data(data)
                num_object = label.shape[0]
                if num_object > batch_label.shape[1]:
                    raise MXNetError('ImageDetIter: a sample has %d objects, more than the '
                                     'label shape %s holds' % (num_object, self.label_shape))
                batch_label[i][0:num_object] = nd.array(label)
                if num_object < batch_label.shape[1]:
                    batch_label[i][num_object:] = -1
                i += 1
        except StopIteration:
            if not i:
                raise
        return i

    def _new_batch(self):
        """Fresh (data, label) arrays, the label all -1 (objects missing)."""
        c, h, w = self.data_shape
        return (nd.zeros((self.batch_size, c, h, w)), nd.full(self.provide_label[0][1], -1))

    def augmentation_transform(self, data, label):  # pylint: disable=arguments-differ
        """Applies the DetAugmenter list to (image, label)."""
        for aug in self.auglist:
            data, label = aug(data, label)
        return data, label

    def check_label_shape(self, label_shape):
        """label_shape must be (count, object width), count no smaller than now."""
        if not len(label_shape) == 2:
            raise ValueError('label_shape should have length 2')
        if label_shape[0] < self.label_shape[0]:
            raise ValueError('Attempts to reduce label count from %d to %d, not allowed.'
                             % (self.label_shape[0], label_shape[0]))
        if label_shape[1] != self.provide_label[0][1][2]:
            raise ValueError('label_shape object width inconsistent: %d vs %d.'
                             % (self.provide_label[0][1][2], label_shape[1]))

    def draw_next(self, color=None, thickness=2, mean=None, std=None, clip=True,
                  waitKey=None, window_name='draw_next', id2labels=None):
        """Yields the next augmented images (BGR uint8 numpy) with their boxes drawn (needs
        Python's cv2); mean/std (True for MXNet's defaults) undo normalisation, waitKey
        shows each in a window."""
        try:
            import cv2
        except ImportError as err:
            warnings.warn('Unable to import cv2, skip drawing: %s' % str(err))
            return
        std, mean = _stat_array(std, _DEFAULT_STD), _stat_array(mean, _DEFAULT_MEAN)
        if color:
            color = color[::-1]
        while True:
            try:
                label, s = self.next_sample()
            except StopIteration:
                return
            data = self.imdecode(s)
            try:
                self.check_valid_image([data])
                label = self._parse_label(label)
            except RuntimeError as err:
                logging.debug('Invalid image, skipping:  %s', str(err))
                continue
            data, label = self.augmentation_transform(data, label)
            image = data.asnumpy()
            if std is not None:
                image *= std
            if mean is not None:
                image += mean
            image = image[:, :, (2, 1, 0)]
            if clip:
                image = np.maximum(0, np.minimum(255, image))
            image = np.ascontiguousarray(image.astype(np.uint8))
            height, width, _ = image.shape
            for obj in label:
                x1 = int(obj[1] * width)
                if x1 < 0:
                    continue
                y1, x2, y2 = int(obj[2] * height), int(obj[3] * width), int(obj[4] * height)
                box_color = color if color else tuple(np.random.rand(3) * 255)
                cv2.rectangle(image, (x1, y1), (x2, y2), box_color, thickness)
                if id2labels is not None and int(obj[0]) in id2labels:
                    text = "{:s}".format(id2labels[int(obj[0])])
                    font = cv2.FONT_HERSHEY_SIMPLEX
                    text_height = cv2.getTextSize(text, font, 0.5, 2)[0][1]
                    cv2.putText(image, text, (x1 + 5, y1 + text_height + 5), font, 0.5,
                                (255, 255, 255), 2)
            if waitKey is not None:
                cv2.imshow(window_name, image)
                cv2.waitKey(waitKey)
            yield image

    def sync_label_shape(self, it, verbose=False):
        """Pads this iterator's and it's label shapes to the larger object count (e.g. the
        training and validation iterators); returns it."""
        assert isinstance(it, ImageDetIter), 'Synchronize with invalid iterator.'
        train_shape, val_shape = self.label_shape, it.label_shape
        assert train_shape[1] == val_shape[1], "object width mismatch."
        max_count = max(train_shape[0], val_shape[0])
        if max_count > train_shape[0]:
            self.reshape(None, (max_count, train_shape[1]))
        if max_count > val_shape[0]:
            it.reshape(None, (max_count, val_shape[1]))
        if verbose and max_count > min(train_shape[0], val_shape[0]):
            logging.info('Resized label_shape to (%d, %d).', max_count, train_shape[1])
        return it
