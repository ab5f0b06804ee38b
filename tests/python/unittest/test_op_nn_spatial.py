# Spatial operators: GridGenerator, BilinearSampler, SpatialTransformer, Correlation, im2col,
# col2im, _contrib_AdaptiveAvgPooling2D, _contrib_BilinearResize2D and _contrib_ROIAlign --
# forward against numpy references, gradients against central differences in float64, a few
# cases against outputs and gradients recorded from MXNet 1.9.1 (fixtures/), bad arguments.
import math
import os
import sys

import numpy as np
import pytest

import mxnet as mx
from mxnet.base import MXNetError
from mxnet.test_utils import assert_almost_equal, check_numeric_gradient

nd = mx.nd
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
TOL = {np.float16: (2e-2, 2e-2), np.float32: (1e-5, 1e-5), np.float64: (1e-12, 1e-12)}
GRAD_TOL = dict(rtol=1e-4, atol=1e-6)


def _rand(*shape, low=-1.0, high=1.0, seed=0):
    return np.random.RandomState(seed).uniform(low, high, shape)


def _check(out, expected, dtype):
    rtol, atol = TOL[dtype]
    assert out.dtype == dtype
    assert_almost_equal(out.asnumpy().astype(np.float64), expected, rtol=rtol, atol=atol)


# ---------------------------------------------------------------- numpy references

def np_affine_grid(theta, h, w):
    xs, ys = -1 + np.arange(w) * 2.0 / (w - 1), -1 + np.arange(h) * 2.0 / (h - 1)
    gx, gy = np.meshgrid(xs, ys)
    points = np.stack([gx.ravel(), gy.ravel(), np.ones(h * w)])
    return (theta.reshape(-1, 2, 3) @ points).reshape(-1, 2, h, w)


def np_warp_grid(flow):
    h, w = flow.shape[2:]
    out = np.empty_like(flow)
    out[:, 0] = (flow[:, 0] + np.arange(w)) / ((w - 1) / 2.0) - 1
    out[:, 1] = (flow[:, 1] + np.arange(h)[:, None]) / ((h - 1) / 2.0) - 1
    return out


def np_bilinear_sample(data, grid):
    n_, c_, h, w = data.shape
    out = np.zeros((n_, c_) + grid.shape[2:])
    for n in range(n_):
        for i in range(grid.shape[2]):
            for j in range(grid.shape[3]):
                x = (grid[n, 0, i, j] + 1) * (w - 1) / 2.0
                y = (grid[n, 1, i, j] + 1) * (h - 1) / 2.0
                for yy in (math.floor(y), math.floor(y) + 1):
                    for xx in (math.floor(x), math.floor(x) + 1):
                        if 0 <= yy < h and 0 <= xx < w:
                            weight = (1 - abs(x - xx)) * (1 - abs(y - yy))
                            out[n, :, i, j] += weight * data[n, :, yy, xx]
    return out


def np_correlation(a, b, k, md, s1, s2, pad, multiply):
    n_, c_, h, w = a.shape
    ap = np.pad(a, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    bp = np.pad(b, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    border = md + (k - 1) // 2
    oh = math.ceil((h + 2 * pad - 2 * border) / s1)
    ow = math.ceil((w + 2 * pad - 2 * border) / s1)
    r = md // s2
    gw = 2 * r + 1
    out = np.zeros((n_, gw * gw, oh, ow))
    for i in range(oh):
        for j in range(ow):
            y1, x1 = i * s1 + md, j * s1 + md
            win1 = ap[:, :, y1:y1 + k, x1:x1 + k]
            for tc in range(gw * gw):
                y2 = y1 + (tc // gw - r) * s2
                x2 = x1 + (tc % gw - r) * s2
                win2 = bp[:, :, y2:y2 + k, x2:x2 + k]
                v = win1 * win2 if multiply else np.abs(win1 - win2)
                out[:, tc, i, j] = v.reshape(n_, -1).sum(axis=1) / (k * k * c_)
    return out


def _block_grid(size, k, s, d, p):
    return (size + 2 * p - d * (k - 1) - 1) // s + 1


def np_im2col(x, k, s, d, p):
    n_, c_, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
    oh, ow = _block_grid(h, k[0], s[0], d[0], p[0]), _block_grid(w, k[1], s[1], d[1], p[1])
    cols = np.zeros((n_, c_ * k[0] * k[1], oh * ow))
    for c in range(c_):
        for a in range(k[0]):
            for b in range(k[1]):
                patch = xp[:, c, a * d[0]:a * d[0] + s[0] * (oh - 1) + 1:s[0],
                           b * d[1]:b * d[1] + s[1] * (ow - 1) + 1:s[1]]
                cols[:, (c * k[0] + a) * k[1] + b] = patch.reshape(n_, -1)
    return cols


def np_col2im(cols, size, k, s, d, p):
    n_ = cols.shape[0]
    c_ = cols.shape[1] // (k[0] * k[1])
    h, w = size
    oh, ow = _block_grid(h, k[0], s[0], d[0], p[0]), _block_grid(w, k[1], s[1], d[1], p[1])
    xp = np.zeros((n_, c_, h + 2 * p[0], w + 2 * p[1]))
    for c in range(c_):
        for a in range(k[0]):
            for b in range(k[1]):
                xp[:, c, a * d[0]:a * d[0] + s[0] * (oh - 1) + 1:s[0],
                   b * d[1]:b * d[1] + s[1] * (ow - 1) + 1:s[1]] += \
                    cols[:, (c * k[0] + a) * k[1] + b].reshape(n_, oh, ow)
    return xp[:, :, p[0]:p[0] + h, p[1]:p[1] + w]


def np_adaptive_avg_pool(x, oh, ow):
    h, w = x.shape[2:]
    out = np.zeros(x.shape[:2] + (oh, ow))
    for i in range(oh):
        h0, h1 = (i * h) // oh, -((-(i + 1) * h) // oh)
        for j in range(ow):
            w0, w1 = (j * w) // ow, -((-(j + 1) * w) // ow)
            out[:, :, i, j] = x[:, :, h0:h1, w0:w1].mean(axis=(2, 3))
    return out


def _resize_taps(n_in, n_out, align):
    # Source positions as MXNet 1.9.1 computes them: a float32 scale (0 for one output pixel,
    # which reads pixel 0) and scale * (o + shift) - shift rounded once to float32.
    f = np.float32
    scale = f(0) if n_out == 1 else f(n_in - 1) / f(n_out - 1) if align else f(n_in) / f(n_out)
    shift = 0.0 if align else 0.5
    src = np.maximum((float(scale) * (np.arange(n_out) + shift) - shift).astype(f), f(0))
    lo = src.astype(int)
    hi = np.minimum(lo + 1, n_in - 1)
    return lo, hi, (src - lo.astype(f)).astype(np.float64)


def np_bilinear_resize(x, oh, ow, align):
    ylo, yhi, fy = _resize_taps(x.shape[2], oh, align)
    xlo, xhi, fx = _resize_taps(x.shape[3], ow, align)
    rows = x[:, :, ylo] * (1 - fy)[:, None] + x[:, :, yhi] * fy[:, None]
    return rows[:, :, :, xlo] * (1 - fx) + rows[:, :, :, xhi] * fx


def _roi_sample(plane, y, x):
    h, w = plane.shape
    if y < -1 or y > h or x < -1 or x > w:
        return 0.0
    y, x = min(max(y, 0.0), h - 1), min(max(x, 0.0), w - 1)
    y0, x0 = int(y), int(x)
    y1, x1 = min(y0 + 1, h - 1), min(x0 + 1, w - 1)
    ly, lx = y - y0, x - x0
    return ((1 - ly) * (1 - lx) * plane[y0, x0] + (1 - ly) * lx * plane[y0, x1] +
            ly * (1 - lx) * plane[y1, x0] + ly * lx * plane[y1, x1])


def np_roi_align(x, rois, pooled, scale, ratio=-1, ps=False, aligned=False):
    ph, pw = pooled
    c_out = x.shape[1] // (ph * pw) if ps else x.shape[1]
    out = np.zeros((len(rois), c_out, ph, pw))
    off = 0.5 if aligned else 0.0
    for n, roi in enumerate(rois):
        b = int(roi[0])
        if b < 0:
            continue
        scale = float(np.float32(scale))  # spatial_scale is a float32 argument
        x1, y1, x2, y2 = [float(v) * scale - off for v in roi[1:]]
        rw, rh = x2 - x1, y2 - y1
        if not aligned:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        bh, bw = rh / ph, rw / pw
        gh = ratio if ratio > 0 else int(math.ceil(rh / ph))
        gw = ratio if ratio > 0 else int(math.ceil(rw / pw))
        for c in range(c_out):
            for i in range(ph):
                for j in range(pw):
                    plane = x[b, (c * ph + i) * pw + j if ps else c]
                    total = sum(_roi_sample(plane, y1 + i * bh + (iy + 0.5) * bh / gh,
                                            x1 + j * bw + (ix + 0.5) * bw / gw)
                                for iy in range(gh) for ix in range(gw))
                    out[n, c, i, j] = total / max(gh * gw, 1)
    return out


# ---------------------------------------------------------------- GridGenerator

@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_grid_generator_affine_matches_numpy(dtype):
    theta = _rand(3, 6)
    out = nd.GridGenerator(nd.array(theta, dtype=dtype), transform_type="affine",
                           target_shape=(4, 5))
    assert out.shape == (3, 2, 4, 5)
    _check(out, np_affine_grid(theta.astype(dtype).astype(np.float64), 4, 5), dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_grid_generator_warp_matches_numpy(dtype):
    flow = _rand(2, 2, 3, 4, low=-2, high=2)
    out = nd.GridGenerator(nd.array(flow, dtype=dtype), transform_type="warp")
    _check(out, np_warp_grid(flow.astype(dtype).astype(np.float64)), dtype)


def test_grid_generator_identity_affine_spans_minus_one_to_one():
    out = nd.GridGenerator(nd.array([[1, 0, 0, 0, 1, 0]]), transform_type="affine",
                           target_shape=(3, 3)).asnumpy()
    assert_almost_equal(out[0, 0], np.tile([-1.0, 0.0, 1.0], (3, 1)))
    assert_almost_equal(out[0, 1], np.tile([[-1.0], [0.0], [1.0]], (1, 3)))


@pytest.mark.parametrize("kwargs, shape", [
    (dict(transform_type="affine", target_shape=(3, 4)), (2, 6)),
    (dict(transform_type="warp"), (2, 2, 3, 4)),
])
def test_grid_generator_gradient_is_numeric(kwargs, shape):
    check_numeric_gradient(lambda d: nd.GridGenerator(d, **kwargs), [_rand(*shape)], **GRAD_TOL)


# ---------------------------------------------------------------- BilinearSampler

@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_bilinear_sampler_matches_numpy(dtype):
    data, grid = _rand(2, 3, 4, 5), _rand(2, 2, 3, 6, low=-1.4, high=1.4, seed=1)
    out = nd.BilinearSampler(nd.array(data, dtype=dtype), nd.array(grid, dtype=dtype))
    assert out.shape == (2, 3, 3, 6)
    _check(out, np_bilinear_sample(data.astype(dtype).astype(np.float64),
                                   grid.astype(dtype).astype(np.float64)), dtype)


def test_bilinear_sampler_reads_zero_outside_the_input():
    data = nd.ones((1, 2, 3, 3))
    grid = nd.array(np.full((1, 2, 2, 2), 3.0))
    assert (nd.BilinearSampler(data, grid).asnumpy() == 0).all()
    # Half a pixel past the right edge: only the in-range column contributes.
    grid = nd.array(np.array([1.5, 0.0]).reshape(1, 2, 1, 1))
    assert_almost_equal(nd.BilinearSampler(data, grid).asnumpy(), np.full((1, 2, 1, 1), 0.5))


def test_bilinear_sampler_identity_grid_returns_data():
    data = nd.array(_rand(2, 3, 4, 5))
    grid = nd.GridGenerator(nd.array([[1, 0, 0, 0, 1, 0]] * 2), transform_type="affine",
                            target_shape=(4, 5))
    assert_almost_equal(nd.BilinearSampler(data, grid, cudnn_off=True).asnumpy(),
                        data.asnumpy(), rtol=1e-5, atol=1e-6)


def test_bilinear_sampler_gradients_are_numeric():
    check_numeric_gradient(nd.BilinearSampler,
                           [_rand(2, 3, 4, 5), _rand(2, 2, 3, 4, low=-1.3, high=1.3, seed=2)],
                           **GRAD_TOL)


def test_bilinear_sampler_gradient_accumulates_with_grad_req_add():
    data, grid = nd.array(_rand(1, 2, 3, 3)), nd.array(_rand(1, 2, 2, 2, seed=3))
    data.attach_grad(grad_req="add")
    for _ in range(2):
        with mx.autograd.record():
            out = nd.BilinearSampler(data, grid)
        out.backward()
    once = data.grad.asnumpy() / 2
    data.attach_grad()
    with mx.autograd.record():
        out = nd.BilinearSampler(data, grid)
    out.backward()
    assert_almost_equal(once, data.grad.asnumpy(), rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------- SpatialTransformer

ST_KW = dict(target_shape=(3, 4), transform_type="affine", sampler_type="bilinear")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_spatial_transformer_is_grid_generator_then_sampler(dtype):
    data, loc = _rand(2, 3, 5, 6), _rand(2, 6, low=-0.8, high=0.8, seed=4)
    out = nd.SpatialTransformer(nd.array(data, dtype=dtype), nd.array(loc, dtype=dtype), **ST_KW)
    expected = np_bilinear_sample(data.astype(dtype), np_affine_grid(loc.astype(dtype), 3, 4))
    _check(out, expected, dtype)


def test_spatial_transformer_gradients_are_numeric():
    check_numeric_gradient(lambda d, l: nd.SpatialTransformer(d, l, cudnn_off=False, **ST_KW),
                           [_rand(2, 3, 5, 6), _rand(2, 6, low=-0.8, high=0.8, seed=5)],
                           **GRAD_TOL)


# ---------------------------------------------------------------- Correlation

CORR_CASES = [
    dict(),
    dict(kernel_size=3, max_displacement=2, stride1=2, stride2=2, pad_size=3),
    dict(kernel_size=1, max_displacement=2, stride1=1, stride2=1, pad_size=2, is_multiply=False),
    dict(kernel_size=3, max_displacement=1, stride1=3, stride2=1, pad_size=1),
]


@pytest.mark.parametrize("kwargs", CORR_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_correlation_matches_numpy(kwargs, dtype):
    a, b = _rand(2, 3, 6, 7), _rand(2, 3, 6, 7, seed=1)
    out = nd.Correlation(nd.array(a, dtype=dtype), nd.array(b, dtype=dtype), **kwargs)
    full = dict(kernel_size=1, max_displacement=1, stride1=1, stride2=1, pad_size=0,
                is_multiply=True)
    full.update(kwargs)
    expected = np_correlation(a.astype(dtype), b.astype(dtype), full["kernel_size"],
                              full["max_displacement"], full["stride1"], full["stride2"],
                              full["pad_size"], full["is_multiply"])
    assert out.shape == expected.shape
    _check(out, expected, dtype)


def test_correlation_float16_is_close_to_float32():
    a, b = nd.array(_rand(1, 2, 5, 5)), nd.array(_rand(1, 2, 5, 5, seed=1))
    half = nd.Correlation(a.astype("float16"), b.astype("float16"), pad_size=1)
    assert half.dtype == np.float16
    assert_almost_equal(half.asnumpy().astype(np.float32),
                        nd.Correlation(a, b, pad_size=1).asnumpy(), rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("kwargs", CORR_CASES[1:3])
def test_correlation_gradients_are_numeric(kwargs):
    check_numeric_gradient(lambda a, b: nd.Correlation(a, b, **kwargs),
                           [_rand(1, 2, 6, 7), _rand(1, 2, 6, 7, seed=1)], **GRAD_TOL)


# ---------------------------------------------------------------- im2col / col2im

IM2COL_CASES = [
    dict(kernel=(2, 2)),
    dict(kernel=(3, 3), pad=(1, 1), stride=(2, 2), dilate=(2, 1)),
    dict(kernel=(1, 3), stride=(1, 2), pad=(0, 2)),
]


def _full_block_args(kw):
    return (kw["kernel"], kw.get("stride", (1, 1)), kw.get("dilate", (1, 1)),
            kw.get("pad", (0, 0)))


@pytest.mark.parametrize("kwargs", IM2COL_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_im2col_matches_numpy(kwargs, dtype):
    x = _rand(2, 3, 5, 6)
    out = nd.im2col(nd.array(x, dtype=dtype), **kwargs)
    _check(out, np_im2col(x.astype(dtype).astype(np.float64), *_full_block_args(kwargs)), dtype)


@pytest.mark.parametrize("kwargs", IM2COL_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_col2im_matches_numpy(kwargs, dtype):
    k, s, d, p = _full_block_args(kwargs)
    blocks = _block_grid(5, k[0], s[0], d[0], p[0]) * _block_grid(6, k[1], s[1], d[1], p[1])
    cols = _rand(2, 3 * k[0] * k[1], blocks)
    out = nd.col2im(nd.array(cols, dtype=dtype), output_size=(5, 6), **kwargs)
    _check(out, np_col2im(cols.astype(dtype), (5, 6), k, s, d, p), dtype)


@pytest.mark.parametrize("shape, kwargs", [
    ((2, 3, 9), dict(kernel=(3,), stride=(2,), pad=(1,))),
    ((1, 2, 4, 5, 4), dict(kernel=(2, 3, 2), dilate=(1, 1, 2), pad=(1, 0, 1))),
])
def test_im2col_and_col2im_are_adjoint_in_1d_and_3d(shape, kwargs):
    x = _rand(*shape)
    cols = nd.im2col(nd.array(x, dtype=np.float64), **kwargs)
    c = _rand(*cols.shape, seed=1)
    back = nd.col2im(nd.array(c, dtype=np.float64), output_size=shape[2:], **kwargs)
    assert back.shape == shape
    assert abs((cols.asnumpy() * c).sum() - (x * back.asnumpy()).sum()) < 1e-10


@pytest.mark.parametrize("kwargs", IM2COL_CASES[1:])
def test_im2col_and_col2im_gradients_are_numeric(kwargs):
    check_numeric_gradient(lambda x: nd.im2col(x, **kwargs), [_rand(1, 2, 5, 6)], **GRAD_TOL)
    cols = nd.im2col(nd.zeros((1, 2, 5, 6)), **kwargs)
    check_numeric_gradient(lambda c: nd.col2im(c, output_size=(5, 6), **kwargs),
                           [_rand(*cols.shape)], **GRAD_TOL)


def test_im2col_gradient_accumulates_with_grad_req_add():
    x = nd.array(_rand(1, 2, 4, 4))
    x.attach_grad(grad_req="add")
    for _ in range(2):
        with mx.autograd.record():
            y = nd.col2im(nd.im2col(x, kernel=(2, 2)), output_size=(4, 4), kernel=(2, 2))
        y.backward()
    # d/dx of col2im(im2col(x)) summed is the count of blocks covering each pixel.
    coverage = np_col2im(np_im2col(np.ones((1, 2, 4, 4)), (2, 2), (1, 1), (1, 1), (0, 0)),
                         (4, 4), (2, 2), (1, 1), (1, 1), (0, 0))
    assert_almost_equal(x.grad.asnumpy(), 2 * coverage)


# ---------------------------------------------------------------- AdaptiveAvgPooling2D

@pytest.mark.parametrize("output_size, expected_hw", [((2, 4), (2, 4)), ((3, 7), (3, 7)),
                                                      (4, (4, 4)), (None, (1, 1))])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_adaptive_avg_pooling_matches_numpy(output_size, expected_hw, dtype):
    x = _rand(2, 3, 5, 6)
    kwargs = {} if output_size is None else dict(output_size=output_size)
    out = nd.contrib.AdaptiveAvgPooling2D(nd.array(x, dtype=dtype), **kwargs)
    _check(out, np_adaptive_avg_pool(x.astype(dtype).astype(np.float64), *expected_hw), dtype)


def test_adaptive_avg_pooling_gradient_is_numeric():
    check_numeric_gradient(lambda x: nd.contrib.AdaptiveAvgPooling2D(x, output_size=(3, 4)),
                           [_rand(2, 2, 5, 7)], **GRAD_TOL)


# ---------------------------------------------------------------- BilinearResize2D

@pytest.mark.parametrize("size", [(7, 4), (3, 9), (5, 6), (1, 1), (2, 3)])
@pytest.mark.parametrize("align", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_bilinear_resize_matches_numpy(size, align, dtype):
    x = _rand(2, 3, 5, 6)
    out = nd.contrib.BilinearResize2D(nd.array(x, dtype=dtype), height=size[0], width=size[1],
                                      align_corners=align)
    _check(out, np_bilinear_resize(x.astype(dtype).astype(np.float64), size[0], size[1], align),
           dtype)


@pytest.mark.parametrize("kwargs, hw", [
    (dict(scale_height=2.0, scale_width=0.5), (10, 3)),
    (dict(scale_width=2.0, height=3), (3, 1)),  # as 1.9.1: scale_width alone is ignored
    (dict(mode="odd_scale", scale_height=2.0, scale_width=0.5), (9, 3)),
    (dict(mode="to_even_down"), (4, 6)),
    (dict(mode="to_even_up"), (6, 6)),
    (dict(mode="to_odd_down"), (5, 5)),
    (dict(mode="to_odd_up"), (5, 7)),
])
def test_bilinear_resize_modes_give_the_output_size(kwargs, hw):
    out = nd.contrib.BilinearResize2D(nd.array(_rand(1, 2, 5, 6)), **kwargs)
    assert out.shape == (1, 2) + hw


def test_bilinear_resize_like_takes_the_size_of_the_second_input_and_gives_it_no_gradient():
    x, like = nd.array(_rand(1, 2, 5, 6)), nd.ones((3, 1, 4, 9))
    x.attach_grad()
    like.attach_grad()
    with mx.autograd.record():
        out = nd.contrib.BilinearResize2D(x, like, mode="like")
    out.backward()
    assert out.shape == (1, 2, 4, 9)
    assert_almost_equal(out.asnumpy(), np_bilinear_resize(x.asnumpy(), 4, 9, True), rtol=1e-5,
                        atol=1e-6)
    assert (like.grad.asnumpy() == 0).all()
    assert x.grad.asnumpy().sum() == pytest.approx(4 * 9 * 2, rel=1e-5)


@pytest.mark.parametrize("align", [True, False])
@pytest.mark.parametrize("size", [(7, 4), (3, 2)])
def test_bilinear_resize_gradient_is_numeric(align, size):
    check_numeric_gradient(
        lambda x: nd.contrib.BilinearResize2D(x, height=size[0], width=size[1],
                                              align_corners=align),
        [_rand(2, 2, 5, 6)], **GRAD_TOL)


# ---------------------------------------------------------------- ROIAlign

ROIS = np.array([[0, 0.5, 1.2, 4.1, 3.3], [1, -2, -1, 3, 7], [1, 1, 1, 1.2, 1.1],
                 [0, 2.2, 0.3, 5.5, 4.9], [-1, 0, 0, 2, 2]])
ROI_CASES = [
    dict(pooled_size=(2, 3), spatial_scale=1.0),
    dict(pooled_size=(2, 2), spatial_scale=0.7, sample_ratio=2),
    dict(pooled_size=(3, 2), spatial_scale=0.8, aligned=True),
    dict(pooled_size=(2, 3), spatial_scale=1.0, sample_ratio=1, aligned=True),
]


@pytest.mark.parametrize("kwargs", ROI_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_roi_align_matches_numpy(kwargs, dtype):
    x = _rand(2, 3, 5, 6)
    out = nd.contrib.ROIAlign(nd.array(x, dtype=dtype), nd.array(ROIS, dtype=dtype), **kwargs)
    expected = np_roi_align(x.astype(dtype), ROIS.astype(dtype), kwargs["pooled_size"],
                            kwargs["spatial_scale"], kwargs.get("sample_ratio", -1),
                            aligned=kwargs.get("aligned", False))
    _check(out, expected, dtype)
    assert (out.asnumpy()[-1] == 0).all()  # negative batch index: skipped


def test_roi_align_position_sensitive_matches_numpy():
    x = _rand(2, 12, 5, 6)
    out = nd.contrib.ROIAlign(nd.array(x), nd.array(ROIS), pooled_size=(2, 3),
                              spatial_scale=1.0, position_sensitive=True)
    assert out.shape == (5, 2, 2, 3)
    _check(out, np_roi_align(x, ROIS, (2, 3), 1.0, ps=True), np.float32)


def test_roi_align_float16_is_close_to_float32():
    x, rois = nd.array(_rand(2, 3, 5, 6)), nd.array(ROIS)
    kw = dict(pooled_size=(2, 2), spatial_scale=1.0)
    half = nd.contrib.ROIAlign(x.astype("float16"), rois.astype("float16"), **kw)
    assert half.dtype == np.float16
    assert_almost_equal(half.asnumpy().astype(np.float32), nd.contrib.ROIAlign(x, rois, **kw)
                        .asnumpy(), rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("kwargs", ROI_CASES[:3] + [dict(pooled_size=(2, 2), spatial_scale=1.0,
                                                         position_sensitive=True)])
def test_roi_align_data_gradient_is_numeric_and_rois_get_none(kwargs):
    channels = 8 if kwargs.get("position_sensitive") else 3
    f = lambda x, r: nd.contrib.ROIAlign(x, r, **kwargs)
    check_numeric_gradient(f, [_rand(2, channels, 5, 6), ROIS], grad_nodes=[0], **GRAD_TOL)
    x, rois = nd.array(_rand(2, channels, 5, 6)), nd.array(ROIS)
    rois.attach_grad()
    with mx.autograd.record():
        out = f(x, rois)
    out.backward()
    assert (rois.grad.asnumpy() == 0).all()


# ---------------------------------------------------------------- MXNet 1.9.1 fixtures

sys.path.insert(0, FIXTURES)
import make_spatial_fixtures  # noqa: E402  (the cases the fixtures were recorded for)

sys.path.pop(0)


@pytest.mark.parametrize("name", sorted(make_spatial_fixtures.CASES))
def test_matches_mxnet191_outputs_and_gradients(name):
    ref = np.load(os.path.join(FIXTURES, "spatial_ops_mxnet191.npz"))
    got = make_spatial_fixtures.run_case(mx, name, make_spatial_fixtures.CASES[name],
                                         make_spatial_fixtures._inputs(0))
    for key, value in got.items():
        assert_almost_equal(value, ref[name + "/" + key], rtol=1e-5, atol=2e-6,
                            names=(name + "/" + key, "mxnet191"))


# ---------------------------------------------------------------- bad arguments

X4 = nd.ones((2, 3, 5, 6))

BAD_CALLS = [
    ("affine data", lambda: nd.GridGenerator(nd.ones((2, 5)), transform_type="affine",
                                             target_shape=(2, 2)), r"\(batch, 6\)"),
    ("affine target_shape", lambda: nd.GridGenerator(nd.ones((2, 6)), transform_type="affine"),
     "target_shape"),
    ("warp channels", lambda: nd.GridGenerator(nd.ones((2, 3, 3, 4)), transform_type="warp"),
     "optical flow"),
    ("transform type", lambda: nd.GridGenerator(nd.ones((2, 6)), transform_type="shear"),
     "transform_type"),
    ("grid channels", lambda: nd.BilinearSampler(X4, nd.zeros((2, 3, 3, 4))), "grid expected"),
    ("grid batch", lambda: nd.BilinearSampler(X4, nd.zeros((1, 2, 3, 4))), "batch size"),
    ("loc width", lambda: nd.SpatialTransformer(X4, nd.ones((2, 5)), **ST_KW), "loc"),
    ("st target_shape", lambda: nd.SpatialTransformer(X4, nd.ones((2, 6)),
                                                      transform_type="affine",
                                                      sampler_type="bilinear"), "target_shape"),
    ("sampler type", lambda: nd.SpatialTransformer(X4, nd.ones((2, 6)), target_shape=(2, 2),
                                                   transform_type="affine",
                                                   sampler_type="nearest"), "sampler_type"),
    ("even kernel", lambda: nd.Correlation(X4, X4, kernel_size=2), "kernel_size"),
    ("displacement", lambda: nd.Correlation(X4, X4, max_displacement=4), "max_displacement"),
    ("stride", lambda: nd.Correlation(X4, X4, stride1=0), "stride1"),
    ("corr shapes", lambda: nd.Correlation(X4, nd.ones((2, 2, 5, 6))), "data2"),
    ("kernel too big", lambda: nd.im2col(X4, kernel=(7, 7)), "larger than the padded"),
    ("kernel dims", lambda: nd.im2col(X4, kernel=(3, 3, 3)), "spatial dims"),
    ("pad dims", lambda: nd.im2col(X4, kernel=(2, 2), pad=(1,)), "pad"),
    ("col rows", lambda: nd.col2im(nd.ones((2, 13, 20)), kernel=(2, 2), output_size=(5, 6)),
     "multiple of prod\\(kernel\\)"),
    ("col blocks", lambda: nd.col2im(nd.ones((2, 12, 21)), kernel=(2, 2), output_size=(5, 6)),
     "blocks"),
    ("pool 3d", lambda: nd.contrib.AdaptiveAvgPooling2D(nd.ones((3, 5, 6))), "4 dims"),
    ("pool size", lambda: nd.contrib.AdaptiveAvgPooling2D(X4, output_size=(1, 2, 3)),
     "output_size"),
    ("resize 3d", lambda: nd.contrib.BilinearResize2D(nd.ones((3, 5, 6)), height=2), "4 dims"),
    ("odd_scale", lambda: nd.contrib.BilinearResize2D(X4, mode="odd_scale"), "scale_height"),
    ("scale pair", lambda: nd.contrib.BilinearResize2D(X4, scale_height=2.0), "scale_width"),
    ("resize mode", lambda: nd.contrib.BilinearResize2D(X4, mode="bicubic"), "mode"),
    ("height range", lambda: nd.contrib.BilinearResize2D(X4, height=0), "height"),
    ("rois columns", lambda: nd.contrib.ROIAlign(X4, nd.ones((2, 4)), pooled_size=(2, 2),
                                                 spatial_scale=1.0), "rois expected"),
    ("ps channels", lambda: nd.contrib.ROIAlign(X4, nd.ones((2, 5)), pooled_size=(2, 2),
                                                spatial_scale=1.0, position_sensitive=True),
     "position_sensitive"),
    ("roi batch", lambda: nd.contrib.ROIAlign(X4, nd.array([[5, 0, 0, 2, 2]]),
                                              pooled_size=(2, 2), spatial_scale=1.0),
     "batch_index"),
    ("aligned empty roi", lambda: nd.contrib.ROIAlign(X4, nd.array([[0, 2, 1, 2, 3]]),
                                                      pooled_size=(2, 2), spatial_scale=1.0,
                                                      aligned=True), "positive width"),
    ("roi spatial_scale", lambda: nd.contrib.ROIAlign(X4, nd.ones((2, 5)), pooled_size=(2, 2)),
     "spatial_scale"),
    ("integer data", lambda: nd.im2col(nd.ones((1, 1, 3, 3), dtype="int32"), kernel=(2, 2)),
     "float"),
]


@pytest.mark.parametrize("label, call, message", BAD_CALLS, ids=[c[0] for c in BAD_CALLS])
def test_bad_arguments_raise_mxnet_error(label, call, message):
    with pytest.raises(MXNetError, match=message):
        call().wait_to_read()
