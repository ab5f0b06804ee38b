// The int8/uint8 quantization operators of MXNet 1.9.1 (_contrib_quantize, _contrib_quantize_v2,
// _contrib_dequantize, _contrib_requantize): float32 <-> 8-bit integers with a (min, max) range
// travelling beside the data as two float32 scalars. Forward only (zero gradients).
//
// The rules are those of 1.9.1's generic CPU kernels:
//   int8 (zero-centered): r = max(|min|, |max|), q = sign(x) * min(|x| * 127 / r + 0.5, 127)
//     truncated; the range out is (-r, r); back: x = q * r / 127.
//   uint8 (affine): q = (x - min) * 255 / (max - min) + 0.5 truncated; the range out is
//     (min, max); back: x = q * (max - min) / 255 + min.
//   int32 (requantize): x = q * r_in / (2^31 - 1), then quantized to int8 over r = the
//     calibrated or the data's largest |x| (to uint8 with the range (0, r), negatives to 0).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "operator/operator_common.h"

namespace mxnet {
namespace op {

namespace {
enum QuantizeOutType { kAutoOut = 0, kInt8Out, kUint8Out };
}  // namespace

struct QuantizeParam : public dmlc::Parameter<QuantizeParam> {
  int out_type;
  DMLC_DECLARE_PARAMETER(QuantizeParam) {
    DMLC_DECLARE_FIELD(out_type)
        .add_enum("int8", kInt8)
        .add_enum("uint8", kUint8)
        .set_default(kUint8)
        .describe("Output data type.");
  }
};

// quantize_v2 and requantize: an output type that may follow the calibrated range.
struct CalibratedQuantizeParam : public dmlc::Parameter<CalibratedQuantizeParam> {
  int out_type;
  dmlc::optional<float> min_calib_range;
  dmlc::optional<float> max_calib_range;
  DMLC_DECLARE_PARAMETER(CalibratedQuantizeParam) {
    DMLC_DECLARE_FIELD(out_type)
        .add_enum("auto", kAutoOut)
        .add_enum("int8", kInt8Out)
        .add_enum("uint8", kUint8Out)
        .set_default(kInt8Out)
        .describe(
            "Output data type. `auto` can be specified to automatically "
            "determine output "
            "type according to min_calib_range.");
    DMLC_DECLARE_FIELD(min_calib_range)
        .set_default(dmlc::optional<float>())
        .describe(
            "The minimum scalar value in the form of float32. If "
            "present, it will be used "
            "to quantize the fp32 data into int8 or uint8.");
    DMLC_DECLARE_FIELD(max_calib_range)
        .set_default(dmlc::optional<float>())
        .describe(
            "The maximum scalar value in the form of float32. If "
            "present, it will be used "
            "to quantize the fp32 data into int8 or uint8.");
  }
  bool Calibrated() const { return min_calib_range.has_value() && max_calib_range.has_value(); }
  // auto: uint8 when calibrated with a range that starts at or above 0, else int8.
  int OutDType() const {
    if (out_type == kUint8Out) return kUint8;
    if (out_type == kAutoOut && Calibrated() && min_calib_range.value() >= 0.0f) return kUint8;
    return kInt8;
  }
};

struct DequantizeParam : public dmlc::Parameter<DequantizeParam> {
  int out_type;
  DMLC_DECLARE_PARAMETER(DequantizeParam) {
    DMLC_DECLARE_FIELD(out_type)
        .add_enum("float32", kFloat32)
        .set_default(kFloat32)
        .describe("Output data type.");
  }
};

DMLC_REGISTER_PARAMETER(QuantizeParam);
DMLC_REGISTER_PARAMETER(CalibratedQuantizeParam);
DMLC_REGISTER_PARAMETER(DequantizeParam);

namespace {

constexpr float kInt8Levels = 127.0f;  // min(|INT8_MIN|, INT8_MAX)
constexpr float kUint8Levels = 255.0f;
constexpr float kInt32Levels = 2147483647.0f;

inline float MaxAbs(float a, float b) { return std::max(std::fabs(a), std::fabs(b)); }

// One float range (lo, hi) and the 8-bit code it maps to.
struct Range {
  float lo, hi;
};

inline int8_t ToInt8(float x, float real) {
  const float scaled = std::min(std::fabs(x) * (kInt8Levels / real) + 0.5f, kInt8Levels);
  return static_cast<int8_t>(static_cast<float>((x > 0) - (x < 0)) * scaled);
}
inline uint8_t ToUint8(float x, Range r) {
  const float v = (x - r.lo) * (kUint8Levels / (r.hi - r.lo)) + 0.5f;
  return static_cast<uint8_t>(std::min(std::max(v, 0.0f), kUint8Levels));
}

// data (float32) -> out (int8 or uint8) over range r; writes the output range.
void QuantizeFloats(const float* x, index_t n, Range r, const TBlob& out, float* omin,
                    float* omax) {
  if (out.type_flag_ == kInt8) {
    const float real = MaxAbs(r.lo, r.hi);
    int8_t* y = out.dptr<int8_t>();
    ParallelFor(n, [&](index_t i) { y[i] = ToInt8(x[i], real); });
    *omin = -real;
    *omax = real;
  } else {
    uint8_t* y = out.dptr<uint8_t>();
    ParallelFor(n, [&](index_t i) { y[i] = ToUint8(x[i], r); });
    *omin = r.lo;
    *omax = r.hi;
  }
}

Range DataRange(const float* x, index_t n) {
  Range r{std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()};
  for (index_t i = 0; i < n; ++i) {
    r.lo = std::min(r.lo, x[i]);
    r.hi = std::max(r.hi, x[i]);
  }
  return r;
}

float ScalarOf(const TBlob& b) { return *b.dptr<float>(); }

// ---------------------------------------------------------------- inference data and each output
// keep data's shape; min_range / max_range and the range outputs are (1,).
bool QuantizeShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  for (size_t i = 1; i < in->size(); ++i) AssignInputShape(attrs, i, &(*in)[i], TShape({1}));
  AssignShape(attrs, "output", &(*out)[0], (*in)[0]);
  AssignInputShape(attrs, 0, &(*in)[0], (*out)[0]);
  for (size_t i = 1; i < out->size(); ++i) {
    AssignShape(attrs, i == 1 ? "min_output" : "max_output", &(*out)[i], TShape({1}));
  }
  return (*out)[0].IsKnown();
}

void RangeInputTypes(const NodeAttrs& attrs, std::vector<int>* in) {
  for (size_t i = 1; i < in->size(); ++i) AssignInputType(attrs, i, &(*in)[i], kFloat32);
}
void RangeOutputTypes(const NodeAttrs& attrs, std::vector<int>* out, int data_type) {
  AssignType(attrs, "output", &(*out)[0], data_type);
  AssignType(attrs, "min_output", &(*out)[1], kFloat32);
  AssignType(attrs, "max_output", &(*out)[2], kFloat32);
}

bool QuantizeType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  AssignInputType(attrs, 0, &(*in)[0], kFloat32);
  RangeInputTypes(attrs, in);
  RangeOutputTypes(attrs, out, Param<QuantizeParam>(attrs).out_type);
  return true;
}

bool QuantizeV2Type(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  const int t = (*in)[0];
  CHECK(t == -1 || t == kFloat32 || t == kInt8 || t == kUint8)
      << "Operator " << attrs.op->name << ": data expected dtype float32, int8 or uint8, given "
      << DTypeName(t);
  RangeOutputTypes(attrs, out, Param<CalibratedQuantizeParam>(attrs).OutDType());
  return t != -1;
}

bool DequantizeType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  const int t = (*in)[0];
  CHECK(t == -1 || t == kInt8 || t == kUint8)
      << "Operator " << attrs.op->name << ": data expected dtype int8 or uint8, given "
      << DTypeName(t);
  RangeInputTypes(attrs, in);
  AssignType(attrs, "output", &(*out)[0], Param<DequantizeParam>(attrs).out_type);
  return t != -1;
}

bool RequantizeType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  AssignInputType(attrs, 0, &(*in)[0], kInt32);
  RangeInputTypes(attrs, in);
  RangeOutputTypes(attrs, out, Param<CalibratedQuantizeParam>(attrs).OutDType());
  return true;
}

// ---------------------------------------------------------------- kernels
void QuantizeForward(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>&, const std::vector<TBlob>& out) {
  const Range r{ScalarOf(in[1]), ScalarOf(in[2])};
  QuantizeFloats(in[0].dptr<float>(), in[0].Size(), r, out[0], out[1].dptr<float>(),
                 out[2].dptr<float>());
}

void QuantizeV2Forward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>&, const std::vector<TBlob>& out) {
  const CalibratedQuantizeParam& p = Param<CalibratedQuantizeParam>(attrs);
  float* omin = out[1].dptr<float>();
  float* omax = out[2].dptr<float>();
  const index_t n = in[0].Size();
  if (in[0].type_flag_ != kFloat32) {
    // Already quantized: the bytes pass through with the calibrated or the type's full range.
    if (out[0].dptr_ != in[0].dptr_) std::memcpy(out[0].dptr_, in[0].dptr_, n);
    const bool u8 = in[0].type_flag_ == kUint8;
    *omin = p.Calibrated() ? p.min_calib_range.value() : (u8 ? 0.0f : -kInt8Levels);
    *omax = p.Calibrated() ? p.max_calib_range.value() : (u8 ? kUint8Levels : kInt8Levels);
    return;
  }
  const float* x = in[0].dptr<float>();
  const Range r = p.Calibrated() ? Range{p.min_calib_range.value(), p.max_calib_range.value()}
                                 : DataRange(x, n);
  QuantizeFloats(x, n, r, out[0], omin, omax);
}

void DequantizeForward(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const Range r{ScalarOf(in[1]), ScalarOf(in[2])};
  float* y = out[0].dptr<float>();
  const index_t n = in[0].Size();
  const OpReqType rq = req[0];
  if (in[0].type_flag_ == kInt8) {
    const int8_t* x = in[0].dptr<int8_t>();
    const float scale = MaxAbs(r.lo, r.hi) / kInt8Levels;
    ParallelFor(n, [&](index_t i) { Assign(y + i, rq, x[i] * scale); });
  } else {
    const uint8_t* x = in[0].dptr<uint8_t>();
    const float scale = (r.hi - r.lo) / kUint8Levels;
    ParallelFor(n, [&](index_t i) { Assign(y + i, rq, x[i] * scale + r.lo); });
  }
}

void RequantizeForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>&, const std::vector<TBlob>& out) {
  const CalibratedQuantizeParam& p = Param<CalibratedQuantizeParam>(attrs);
  const int32_t* x = in[0].dptr<int32_t>();
  const index_t n = in[0].Size();
  const float to_float = MaxAbs(ScalarOf(in[1]), ScalarOf(in[2])) / kInt32Levels;
  float real;
  if (p.Calibrated()) {
    real = MaxAbs(p.min_calib_range.value(), p.max_calib_range.value());
  } else {
    int32_t lo = std::numeric_limits<int32_t>::max(), hi = std::numeric_limits<int32_t>::min();
    for (index_t i = 0; i < n; ++i) {
      lo = std::min(lo, x[i]);
      hi = std::max(hi, x[i]);
    }
    real = n ? MaxAbs(lo * to_float, hi * to_float) : 0.0f;
  }
  float* omin = out[1].dptr<float>();
  float* omax = out[2].dptr<float>();
  if (out[0].type_flag_ == kInt8) {
    int8_t* y = out[0].dptr<int8_t>();
    ParallelFor(n, [&](index_t i) { y[i] = ToInt8(x[i] * to_float, real); });
    *omin = -real;
  } else {
    uint8_t* y = out[0].dptr<uint8_t>();
    ParallelFor(n, [&](index_t i) { y[i] = ToUint8(std::max(x[i] * to_float, 0.0f), {0, real}); });
    *omin = 0.0f;
  }
  *omax = real;
}

std::vector<NodeEntry> ZeroGradOfInputs(const ObjectPtr& n, const std::vector<NodeEntry>&) {
  return ZeroGrads(n);
}

}  // namespace

NNVM_REGISTER_OP(_contrib_quantize)
    .describe(R"doc(Quantize a input tensor from float to `out_type`,
with user-specified `min_range` and `max_range`.

min_range and max_range are scalar floats that specify the range for
the input data.

When out_type is `uint8`, the output is calculated using the following equation:

`out[i] = (in[i] - min_range) * range(OUTPUT_TYPE) / (max_range - min_range) + 0.5`,

where `range(T) = numeric_limits<T>::max() - numeric_limits<T>::min()`.

When out_type is `int8`, the output is calculate using the following equation
by keep zero centered for the quantized value:

`out[i] = sign(in[i]) * min(abs(in[i] * scale + 0.5f, quantized_range)`,

where
`quantized_range = MinAbs(max(int8), min(int8))` and
`scale = quantized_range / MaxAbs(min_range, max_range).`

.. Note::
    This operator only supports forward propagation. DO NOT use it in training.
)doc")
    .set_num_inputs(3)
    .set_num_outputs(3)
    .set_attr_parser(ParamParser<QuantizeParam>)
    .add_argument("data", "NDArray-or-Symbol", "A ndarray/symbol of type `float32`")
    .add_argument("min_range", "NDArray-or-Symbol",
                  "The minimum scalar value possibly produced for the input")
    .add_argument("max_range", "NDArray-or-Symbol",
                  "The maximum scalar value possibly produced for the input")
    .add_arguments(QuantizeParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"data", "min_range", "max_range"}))
    .set_attr<FInferShape>("FInferShape", QuantizeShape)
    .set_attr<FInferType>("FInferType", QuantizeType)
    .set_attr<FCompute>("FCompute<cpu>", QuantizeForward)
    .set_attr<FGradient>("FGradient", ZeroGradOfInputs);

NNVM_REGISTER_OP(_contrib_quantize_v2)
    .describe(R"doc(Quantize a input tensor from float to `out_type`,
with user-specified `min_calib_range` and `max_calib_range` or the input range collected at
runtime.

Output `min_range` and `max_range` are scalar floats that specify the range for the input data.

When out_type is `uint8`, the output is calculated using the following equation:

`out[i] = (in[i] - min_range) * range(OUTPUT_TYPE) / (max_range - min_range) + 0.5`,

When out_type is `int8`, the output is calculate using the following equation
by keep zero centered for the quantized value:

`out[i] = sign(in[i]) * min(abs(in[i] * scale + 0.5f, quantized_range)`,

When out_type is `auto`, the output type is automatically determined by min_calib_range if
presented. If min_calib_range < 0.0f, the output type will be int8, otherwise will be uint8.
If min_calib_range isn't presented, the output type will be int8.

An int8 or uint8 input passes through unchanged, with the calibrated range or the full range
of its type.

.. Note::
    This operator only supports forward propagation. DO NOT use it in training.
)doc")
    .set_num_inputs(1)
    .set_num_outputs(3)
    .set_attr_parser(ParamParser<CalibratedQuantizeParam>)
    .add_argument("data", "NDArray-or-Symbol", "A ndarray/symbol of type `float32`")
    .add_arguments(CalibratedQuantizeParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"data"}))
    .set_attr<FInferShape>("FInferShape", QuantizeShape)
    .set_attr<FInferType>("FInferType", QuantizeV2Type)
    .set_attr<FCompute>("FCompute<cpu>", QuantizeV2Forward)
    .set_attr<FGradient>("FGradient", ZeroGradOfInputs);

NNVM_REGISTER_OP(_contrib_dequantize)
    .describe(R"doc(Dequantize the input tensor into a float tensor.
min_range and max_range are scalar floats that specify the range for
the output data.

When input data type is `uint8`, the output is calculated using the following equation:

`out[i] = in[i] * (max_range - min_range) / range(INPUT_TYPE)`.

When input data type is `int8`, the output is calculate using the following equation
by keep zero centered for the quantized value:

`out[i] = in[i] * MaxAbs(min_range, max_range) / MinAbs(max(int8), min(int8))`,

.. Note::
    This operator only supports forward propogation. DO NOT use it in training.
)doc")
    .set_num_inputs(3)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<DequantizeParam>)
    .add_argument("data", "NDArray-or-Symbol", "A ndarray/symbol of type `uint8`")
    .add_argument("min_range", "NDArray-or-Symbol",
                  "The minimum scalar value possibly produced for the input in float32")
    .add_argument("max_range", "NDArray-or-Symbol",
                  "The maximum scalar value possibly produced for the input in float32")
    .add_arguments(DequantizeParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"data", "min_range", "max_range"}))
    .set_attr<FInferShape>("FInferShape", QuantizeShape)
    .set_attr<FInferType>("FInferType", DequantizeType)
    .set_attr<FCompute>("FCompute<cpu>", DequantizeForward)
    .set_attr<FGradient>("FGradient", ZeroGradOfInputs);

NNVM_REGISTER_OP(_contrib_requantize)
    .describe(
        R"doc(Given data that is quantized in int32 and the corresponding thresholds,
requantize the data into int8 using min and max thresholds either calculated at runtime
or from calibration. It's highly recommended to pre-calucate the min and max thresholds
through calibration since it is able to save the runtime of the operator and improve the
inference accuracy.

.. Note::
    This operator only supports forward propogation. DO NOT use it in training.
)doc")
    .set_num_inputs(3)
    .set_num_outputs(3)
    .set_attr_parser(ParamParser<CalibratedQuantizeParam>)
    .add_argument("data", "NDArray-or-Symbol", "A ndarray/symbol of type `int32`")
    .add_argument("min_range", "NDArray-or-Symbol",
                  "The original minimum scalar value in the form of float32 "
                  "used for quantizing "
                  "data into int32.")
    .add_argument("max_range", "NDArray-or-Symbol",
                  "The original maximum scalar value in the form of float32 "
                  "used for quantizing "
                  "data into int32.")
    .add_arguments(CalibratedQuantizeParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"data", "min_range", "max_range"}))
    .set_attr<FInferShape>("FInferShape", QuantizeShape)
    .set_attr<FInferType>("FInferType", RequantizeType)
    .set_attr<FCompute>("FCompute<cpu>", RequantizeForward)
    .set_attr<FGradient>("FGradient", ZeroGradOfInputs);

}  // namespace op
}  // namespace mxnet
