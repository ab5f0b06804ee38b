"""Quantization operators quantize, quantize_v2, dequantize and requantize: MXNet 1.9.1's
generic kernel rules (numpy transcriptions below), its results where its oneDNN build agrees
(fixtures/contrib_rcnn_attention_mxnet191.npz), inference rules and errors. The oneDNN build
of 1.9.1 rounds with 127.5 / 255.5 levels and scales uint8 by the largest bound instead; the
generic rules are those of 1.9.1's test_quantization_op."""
import os

import numpy as np
import pytest

import mxnet as mx
from mxnet.base import MXNetError

FIXTURE = np.load(os.path.join(os.path.dirname(__file__), 'fixtures',
                               'contrib_rcnn_attention_mxnet191.npz'))


def np_int8(x, real):
    scaled = np.minimum(np.abs(x) * np.float32(127.0 / real) + np.float32(0.5), 127)
    return (np.sign(x) * scaled).astype(np.int8)


def np_uint8(x, lo, hi):
    v = (x - lo) * np.float32(255.0 / (hi - lo)) + np.float32(0.5)
    return np.clip(v, 0, 255).astype(np.uint8)


def test_quantize_int8_matches_mxnet191():
    x, lo, hi = FIXTURE['quant/x'], FIXTURE['quant/lo'], FIXTURE['quant/hi']
    q, qmin, qmax = mx.nd.contrib.quantize(mx.nd.array(x), mx.nd.array(lo), mx.nd.array(hi),
                                           out_type='int8')
    assert q.dtype == np.int8 and qmin.shape == (1,) and qmax.dtype == np.float32
    np.testing.assert_array_equal(q.asnumpy(), FIXTURE['quant/int8'])
    np.testing.assert_array_equal(qmin.asnumpy(), FIXTURE['quant/int8_min'])
    np.testing.assert_array_equal(qmax.asnumpy(), FIXTURE['quant/int8_max'])
    deq = mx.nd.contrib.dequantize(q, qmin, qmax)
    assert deq.dtype == np.float32
    # 1.9.1's oneDNN build divides by 127.5 here; its generic kernel (and this one) by 127
    np.testing.assert_allclose(deq.asnumpy(), q.asnumpy() * np.float32(3.5 / 127), rtol=1e-6)
    np.testing.assert_allclose(deq.asnumpy(), FIXTURE['quant/int8_deq'], rtol=5e-3)


def test_quantize_uint8_is_affine_over_the_range():
    x = np.array([[-1.3, 0.2], [0.7, 2.5]], dtype=np.float32)
    q, qmin, qmax = mx.nd.contrib.quantize(mx.nd.array(x), mx.nd.array([-1.3]),
                                           mx.nd.array([2.5]))  # out_type defaults to uint8
    assert q.dtype == np.uint8
    np.testing.assert_array_equal(q.asnumpy(), np_uint8(x, np.float32(-1.3), np.float32(2.5)))
    assert qmin.asscalar() == np.float32(-1.3) and qmax.asscalar() == np.float32(2.5)
    back = mx.nd.contrib.dequantize(q, qmin, qmax).asnumpy()
    np.testing.assert_allclose(back, x, atol=3.8 / 255)


def test_quantize_v2_calibrated_and_runtime_ranges():
    x = np.random.RandomState(0).uniform(-2, 3, (3, 5)).astype(np.float32)
    q, lo, hi = mx.nd.contrib.quantize_v2(mx.nd.array(x), min_calib_range=-1.0,
                                          max_calib_range=2.0)
    assert q.dtype == np.int8  # default out_type int8
    np.testing.assert_array_equal(q.asnumpy(), np_int8(x, 2.0))
    assert (lo.asscalar(), hi.asscalar()) == (-2.0, 2.0)
    q, lo, hi = mx.nd.contrib.quantize_v2(mx.nd.array(x), out_type='uint8')
    np.testing.assert_array_equal(q.asnumpy(), np_uint8(x, x.min(), x.max()))
    assert (lo.asscalar(), hi.asscalar()) == (x.min(), x.max())
    # auto: uint8 for a calibrated range from 0, int8 otherwise
    assert mx.nd.contrib.quantize_v2(mx.nd.array(x), out_type='auto', min_calib_range=0.0,
                                     max_calib_range=3.0)[0].dtype == np.uint8
    assert mx.nd.contrib.quantize_v2(mx.nd.array(x), out_type='auto')[0].dtype == np.int8


def test_quantize_v2_passes_quantized_data_through():
    q8 = mx.nd.array([[-5, 7, 127]], dtype=np.int8)
    out, lo, hi = mx.nd.contrib.quantize_v2(q8)
    np.testing.assert_array_equal(out.asnumpy(), q8.asnumpy())
    assert (lo.asscalar(), hi.asscalar()) == (-127.0, 127.0)
    u8 = mx.nd.array([[3, 250]], dtype=np.uint8)
    out, lo, hi = mx.nd.contrib.quantize_v2(u8, out_type='uint8', min_calib_range=0.5,
                                            max_calib_range=4.0)
    np.testing.assert_array_equal(out.asnumpy(), u8.asnumpy())
    assert (lo.asscalar(), hi.asscalar()) == (0.5, 4.0)


def test_dequantize_int8_scales_by_largest_bound():
    q = mx.nd.array([[-127, -3, 0, 64, 127]], dtype=np.int8)
    out = mx.nd.contrib.dequantize(q, mx.nd.array([-0.5]), mx.nd.array([2.0]))
    np.testing.assert_allclose(out.asnumpy(), q.asnumpy() * (2.0 / 127), rtol=1e-6)


def test_requantize_int32_to_int8_and_uint8():
    d = np.array([[-1000, 20], [70, 2500]], dtype=np.int32)
    to_float = np.float32(10.0 / 2147483647.0)
    f = d.astype(np.float32) * to_float
    args = (mx.nd.array(d, dtype=np.int32), mx.nd.array([-10.0]), mx.nd.array([10.0]))
    q, lo, hi = mx.nd.contrib.requantize(*args)
    real = np.abs(f).max()
    np.testing.assert_array_equal(q.asnumpy(), np_int8(f, real))
    np.testing.assert_allclose([lo.asscalar(), hi.asscalar()], [-real, real], rtol=1e-6)
    q, lo, hi = mx.nd.contrib.requantize(*args, min_calib_range=-1e-5, max_calib_range=1e-5)
    np.testing.assert_array_equal(q.asnumpy(), np_int8(f, 1e-5))
    # what MXNet 1.9.1 gives for uint8 (its oneDNN kernel): negatives to 0, range (0, r)
    q, lo, hi = mx.nd.contrib.requantize(*args, out_type='auto', min_calib_range=0.0,
                                         max_calib_range=1e-5)
    assert q.dtype == np.uint8
    np.testing.assert_array_equal(q.asnumpy(), [[0, 2], [8, 255]])
    assert (lo.asscalar(), hi.asscalar()) == (0.0, np.float32(1e-5))


def test_inference_and_zero_gradients():
    s = mx.sym.contrib.quantize(mx.sym.var('x'), mx.sym.var('lo'), mx.sym.var('hi'),
                                out_type='int8')
    assert s.list_arguments() == ['x', 'lo', 'hi']
    args, outs, _ = s.infer_shape(x=(2, 3))
    assert args == [(2, 3), (1,), (1,)] and outs == [(2, 3), (1,), (1,)]
    _, types, _ = s.infer_type(x=np.float32)
    assert types == [np.int8, np.float32, np.float32]
    x = mx.nd.array([[0.3, -0.2]])
    x.attach_grad()
    with mx.autograd.record():
        out = mx.nd.contrib.quantize_v2(x, min_calib_range=-1.0, max_calib_range=1.0)[0]
    out.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [[0, 0]])


def test_bad_dtypes_name_the_operator():
    with pytest.raises(MXNetError, match='_contrib_dequantize.*int8 or uint8.*float32'):
        mx.nd.contrib.dequantize(mx.nd.ones((2,)), mx.nd.array([0.0]),
                                 mx.nd.array([1.0])).wait_to_read()
    with pytest.raises(MXNetError, match='_contrib_quantize_v2.*int32'):
        mx.nd.contrib.quantize_v2(mx.nd.ones((2,), dtype=np.int32)).wait_to_read()
    with pytest.raises(MXNetError, match='_contrib_quantize.*out_type'):
        mx.nd.contrib.quantize(mx.nd.ones((2,)), mx.nd.array([0.0]), mx.nd.array([1.0]),
                               out_type='int4')
    with pytest.raises(MXNetError, match='_contrib_quantize.*min_range'):
        mx.nd.contrib.quantize(mx.nd.ones((2,)), mx.nd.array([0.0, 1.0]),
                               mx.nd.array([1.0])).wait_to_read()
