// Array-creating operators: _zeros, _ones, _full, _arange, _eye, _linspace (shape, ctx and
// dtype arguments as MXNet 1.9) and zeros_like, ones_like.
#include <dmlc/optional.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <iterator>
#include <sstream>
#include <string>
#include <type_traits>

#include "common/np_shape.h"
#include "operator/tuple_args.h"
#include "operator/tensor/elemwise_unary_kernel.h"
#include "operator/tensor/sparse_ops.h"

namespace mxnet {
namespace op {
namespace {

#define MXNET_INIT_CTX_FIELD_                                                          \
  DMLC_DECLARE_FIELD(ctx).set_default("").describe(                                    \
      "Device of the output, as cpu(n), gpu(n) or cpu_pinned(n); only used for "       \
      "imperative calls.")
#define MXNET_INIT_DTYPE_ENUMS_(field)                                                 \
  AddDTypeEnums(field, {kFloat32, kFloat64, kFloat16, kUint8, kInt8, kInt32, kInt64})

struct InitOpParam : public dmlc::Parameter<InitOpParam> {
  ShapeArg shape;
  std::string ctx;
  int dtype;
  DMLC_DECLARE_PARAMETER(InitOpParam) {
    DMLC_DECLARE_FIELD(shape).set_default(ShapeArg()).describe("The shape of the output.");
    MXNET_INIT_CTX_FIELD_;
    MXNET_INIT_DTYPE_ENUMS_(DMLC_DECLARE_FIELD(dtype).set_default(kFloat32))
        .add_enum("bool", kBool)
        .describe("Data type of the output.");
  }
};
DMLC_REGISTER_PARAMETER(InitOpParam);

struct InitOpWithScalarParam : public dmlc::Parameter<InitOpWithScalarParam> {
  ShapeArg shape;
  std::string ctx;
  int dtype;
  double value;
  DMLC_DECLARE_PARAMETER(InitOpWithScalarParam) {
    DMLC_DECLARE_FIELD(shape).set_default(ShapeArg()).describe("The shape of the output.");
    MXNET_INIT_CTX_FIELD_;
    MXNET_INIT_DTYPE_ENUMS_(DMLC_DECLARE_FIELD(dtype).set_default(kFloat32))
        .add_enum("bool", kBool)
        .describe("Data type of the output.");
    DMLC_DECLARE_FIELD(value).describe("The value every element of the output takes.");
  }
};
DMLC_REGISTER_PARAMETER(InitOpWithScalarParam);

struct RangeParam : public dmlc::Parameter<RangeParam> {
  double start;
  dmlc::optional<double> stop;
  double step;
  int repeat;
  bool infer_range;
  std::string ctx;
  int dtype;
  DMLC_DECLARE_PARAMETER(RangeParam) {
    DMLC_DECLARE_FIELD(start).describe(
        "First value of the interval; when stop is not given, the end of the interval "
        "(which then starts at 0).");
    DMLC_DECLARE_FIELD(stop)
        .set_default(dmlc::optional<double>())
        .describe("End of the interval, not included.");
    DMLC_DECLARE_FIELD(step).set_default(1).describe("Distance between two values.");
    DMLC_DECLARE_FIELD(repeat).set_default(1).describe(
        "How many times each value is repeated in a row.");
    DMLC_DECLARE_FIELD(infer_range).set_default(false).describe(
        "When true and stop is not given, the length comes from the output's inferred shape.");
    MXNET_INIT_CTX_FIELD_;
    MXNET_INIT_DTYPE_ENUMS_(DMLC_DECLARE_FIELD(dtype).set_default(kFloat32))
        .describe("Data type of the output.");
  }
};
DMLC_REGISTER_PARAMETER(RangeParam);

struct EyeParam : public dmlc::Parameter<EyeParam> {
  int64_t N;
  int64_t M;
  int64_t k;
  std::string ctx;
  int dtype;
  DMLC_DECLARE_PARAMETER(EyeParam) {
    DMLC_DECLARE_FIELD(N).describe("Number of rows of the output.");
    DMLC_DECLARE_FIELD(M).set_default(0).describe("Number of columns; 0 means N.");
    DMLC_DECLARE_FIELD(k).set_default(0).describe(
        "Diagonal holding the ones: 0 the main one, positive above it, negative below.");
    MXNET_INIT_CTX_FIELD_;
    MXNET_INIT_DTYPE_ENUMS_(DMLC_DECLARE_FIELD(dtype).set_default(kFloat32))
        .describe("Data type of the output.");
  }
};
DMLC_REGISTER_PARAMETER(EyeParam);

struct LinspaceParam : public dmlc::Parameter<LinspaceParam> {
  double start;
  double stop;
  int num;
  bool endpoint;
  std::string ctx;
  int dtype;
  DMLC_DECLARE_PARAMETER(LinspaceParam) {
    DMLC_DECLARE_FIELD(start).describe("First value of the sequence.");
    DMLC_DECLARE_FIELD(stop).describe("Last value of the sequence (see endpoint).");
    DMLC_DECLARE_FIELD(num).describe("Number of values, at least 0.");
    DMLC_DECLARE_FIELD(endpoint).set_default(true).describe(
        "Whether stop is the last value; otherwise the values stop one step before it.");
    MXNET_INIT_CTX_FIELD_;
    MXNET_INIT_DTYPE_ENUMS_(DMLC_DECLARE_FIELD(dtype).set_default(kFloat32))
        .describe("Data type of the output.");
  }
};
DMLC_REGISTER_PARAMETER(LinspaceParam);

#undef MXNET_INIT_CTX_FIELD_
#undef MXNET_INIT_DTYPE_ENUMS_

// ---------------------------------------------------------------- inference
/*! \brief Output shape from the shape argument; when it is not given, the output's shape
 *  must come from elsewhere (a symbolic graph). A dim of -1 is unknown; outside numpy-shape
 *  semantics a dim of 0 and the shape () are unknown too (as in MXNet 1.9.1). Unknown parts
 *  are filled by the graph (a bound symbol infers them from the other nodes); imperatively
 *  the array cannot be made. */
template <typename PType>
bool InitShape(const NodeAttrs& attrs, std::vector<TShape>*, std::vector<TShape>* out) {
  const TShape& shape = Param<PType>(attrs).shape;
  if (shape.is_none()) return (*out)[0].IsKnown();
  const bool legacy = common::NumpyShapeState() == kNumpyShapeOff;
  TShape partial = shape;
  bool unknown = legacy && shape.ndim() == 0;
  if (unknown) partial = TShape();
  for (int i = 0; i < partial.ndim(); ++i) {
    CHECK_GE(partial[i], -1) << "Operator " << attrs.op->name << ": argument shape expected "
                             << "non-negative dimensions (-1: unknown), given " << shape;
    if (partial[i] == -1 || (legacy && partial[i] == 0)) {
      partial[i] = -1;
      unknown = true;
    }
  }
  if (!unknown) {
    AssignShape(attrs, "output", &(*out)[0], shape);
    return true;
  }
  if ((*out)[0].IsKnown() || common::InGraphShapeInference()) {
    AssignShape(attrs, "output", &(*out)[0], partial);
    return (*out)[0].IsKnown();
  }
  if (legacy && shape.ndim() == 0) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": argument shape () means an unknown shape "
               << "outside numpy-shape semantics; scalar arrays need mx.set_np_shape(True) or "
               << "`with mx.np_shape():`";
  }
  LOG(FATAL) << "Operator " << attrs.op->name << ": argument shape " << shape << " has unknown "
             << "dims (-1" << (legacy ? ", or 0 outside numpy-shape semantics" : "")
             << "); an array needs every size (zero-size arrays need mx.set_np_shape(True) or "
             << "`with mx.np_shape():`)";
  return false;
}

template <typename PType>
bool InitType(const NodeAttrs& attrs, std::vector<int>*, std::vector<int>* out) {
  AssignType(attrs, "output", &(*out)[0], Param<PType>(attrs).dtype);
  return true;
}

void RangeParser(NodeAttrs* attrs) {
  ParamParser<RangeParam>(attrs);
  RangeParam& p = *std::any_cast<RangeParam>(&attrs->parsed);
  if (!p.infer_range && !p.stop.has_value()) {  // arange(n) means [0, n)
    p.stop = p.start;
    p.start = 0;
  }
}

bool RangeShape(const NodeAttrs& attrs, std::vector<TShape>*, std::vector<TShape>* out) {
  const auto& p = Param<RangeParam>(attrs);
  CHECK(p.step != 0) << "Operator " << attrs.op->name << ": argument step expected non-zero, "
                     << "given " << p.step;
  CHECK_GT(p.repeat, 0) << "Operator " << attrs.op->name << ": argument repeat expected > 0, "
                        << "given " << p.repeat;
  if (!p.stop.has_value()) return (*out)[0].IsKnown();  // infer_range: length from the graph
  const double stop = p.stop.value();
  CHECK((p.step > 0 && p.start < stop) || (p.step < 0 && p.start > stop))
      << "Operator " << attrs.op->name << ": invalid range (start, stop, step) = (" << p.start
      << ", " << stop << ", " << p.step << "), expected a non-empty interval";
  const double len = std::ceil((stop - p.start) / p.step) * p.repeat;
  AssignShape(attrs, "output", &(*out)[0], TShape({static_cast<dim_t>(len)}));
  return true;
}

bool EyeShape(const NodeAttrs& attrs, std::vector<TShape>*, std::vector<TShape>* out) {
  const auto& p = Param<EyeParam>(attrs);
  CHECK_GE(p.N, 0) << "Operator " << attrs.op->name << ": argument N expected >= 0, given " << p.N;
  CHECK_GE(p.M, 0) << "Operator " << attrs.op->name << ": argument M expected >= 0, given " << p.M;
  AssignShape(attrs, "output", &(*out)[0], TShape({p.N, p.M > 0 ? p.M : p.N}));
  return true;
}

bool LinspaceShape(const NodeAttrs& attrs, std::vector<TShape>*, std::vector<TShape>* out) {
  const auto& p = Param<LinspaceParam>(attrs);
  CHECK_GE(p.num, 0) << "Operator " << attrs.op->name << ": argument num expected >= 0, given "
                     << p.num;
  AssignShape(attrs, "output", &(*out)[0], TShape({static_cast<dim_t>(p.num)}));
  return true;
}

// ---------------------------------------------------------------- kernels
/*! \brief Every element of out set to (or, with kAddTo, increased by) v. */
template <typename DType>
void FillValue(const TBlob& out, OpReqType req, DType v) {
  const index_t n = static_cast<index_t>(out.Size());
  DType* p = out.dptr<DType>();
  if (req == kNullOp || n == 0) return;
  if (req == kAddTo) {
    if (ConvertValue<bool>(v)) ParallelFor(n, [&](index_t i) { p[i] = DType(p[i] + v); });
    return;
  }
  bool zero_bits = true;  // 0, 0.0 and false are all-zero bytes in every dtype
  const unsigned char* vb = reinterpret_cast<const unsigned char*>(&v);
  for (size_t i = 0; i < sizeof(DType); ++i) zero_bits = zero_bits && vb[i] == 0;
  if (zero_bits) {
    ParallelChunks(n, 1 << 16, [&](index_t b, index_t e) {
      std::memset(static_cast<void*>(p + b), 0, (e - b) * sizeof(DType));
    });
  } else {
    ParallelFor(n, [&](index_t i) { p[i] = v; });
  }
}

template <int kValue>
void FillConstCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>&,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType,
                    { FillValue(out[0], req[0], ScalarAs<DType>(kValue)); });
}

void FullCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>&,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const double value = Param<InitOpWithScalarParam>(attrs).value;
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType,
                    { FillValue(out[0], req[0], ScalarAs<DType>(value)); });
}

void RangeCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>&,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = Param<RangeParam>(attrs);
  const index_t repeat = p.repeat;
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    DType* o = out[0].dptr<DType>();
    ParallelFor(static_cast<index_t>(out[0].Size()), [&](index_t i) {
      DType v;
      if constexpr (std::is_integral<DType>::value) {  // start and step in DType, as MXNet
        v = static_cast<DType>(ScalarAs<DType>(p.start) + (i / repeat) * ScalarAs<DType>(p.step));
      } else {
        v = DType(p.start + static_cast<double>(i / repeat) * p.step);
      }
      Assign(o + i, req[0], v);
    });
  });
}

void EyeCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>&,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = Param<EyeParam>(attrs);
  const index_t rows = out[0].shape_[0], cols = out[0].shape_[1], k = p.k;
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    DType* o = out[0].dptr<DType>();
    FillValue(out[0], req[0], DType(0));
    if (req[0] != kNullOp) {
      ParallelFor(rows, [&](index_t r) {
        const index_t c = r + k;
        if (c >= 0 && c < cols) Assign(o + r * cols + c, req[0], ScalarAs<DType>(1));
      });
    }
  });
}

void LinspaceCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>&,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = Param<LinspaceParam>(attrs);
  const int intervals = p.endpoint ? p.num - 1 : p.num;
  const double step = intervals > 0 ? (p.stop - p.start) / intervals : 0.0;
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    DType* o = out[0].dptr<DType>();
    ParallelFor(static_cast<index_t>(out[0].Size()), [&](index_t i) {
      Assign(o + i, req[0], ConvertValue<DType>(p.start + step * static_cast<double>(i)));
    });
  });
}

// ---------------------------------------------------------------- registration
std::vector<std::string> NoInputs(const NodeAttrs&) { return {}; }

void RegisterInit(const char* name, const char* doc,
                  const std::vector<dmlc::ParamFieldInfo>& fields, void (*parser)(NodeAttrs*),
                  FInferShape shape, FInferType type, FCompute fcompute) {
  nnvm::Op::Register(name)
      .describe(doc)
      .set_num_inputs(0)
      .set_num_outputs(1)
      .set_attr_parser(parser)
      .add_arguments(fields)
      .set_attr<FListInputNames>("FListInputNames", NoInputs)
      .set_attr<FInferShape>("FInferShape", shape)
      .set_attr<FInferType>("FInferType", type)
      .set_attr<FCompute>("FCompute<cpu>", fcompute)
      .set_attr<TIsNonDifferentiable>("TIsNonDifferentiable", true);
}

nnvm::Op& RegisterLike(const char* name, const char* doc, FCompute fcompute) {
  return nnvm::Op::Register(name)
      .describe(doc)
      .set_num_inputs(1)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "The input; only its shape and dtype are used.")
      .set_attr<FInferShape>("FInferShape", ElemwiseShape)
      .set_attr<FInferType>("FInferType", ElemwiseType)
      .set_attr<FCompute>("FCompute<cpu>", fcompute)
      .set_attr<TIsNonDifferentiable>("TIsNonDifferentiable", true);
}

const bool reg_init_ops_ [[maybe_unused]] = [] {
#define MXNET_INIT_ARGS_(PType, parser) \
  PType::__FIELDS__(), parser, InitShape<PType>, InitType<PType>
  RegisterInit("_zeros", "Returns an array of the given shape filled with zeros.",
               MXNET_INIT_ARGS_(InitOpParam, ParamParser<InitOpParam>), FillConstCompute<0>);
  RegisterInit("_ones", "Returns an array of the given shape filled with ones.",
               MXNET_INIT_ARGS_(InitOpParam, ParamParser<InitOpParam>), FillConstCompute<1>);
  RegisterInit("_full", "Returns an array of the given shape with every element equal to value.",
               MXNET_INIT_ARGS_(InitOpWithScalarParam, ParamParser<InitOpWithScalarParam>),
               FullCompute);
#undef MXNET_INIT_ARGS_
  RegisterInit("_arange",
               "Returns evenly spaced values in [start, stop), step apart, each repeated "
               "`repeat` times.",
               RangeParam::__FIELDS__(), RangeParser, RangeShape, InitType<RangeParam>,
               RangeCompute);
  RegisterInit("_eye", "Returns a 2-D array with ones on the k-th diagonal and zeros elsewhere.",
               EyeParam::__FIELDS__(), ParamParser<EyeParam>, EyeShape, InitType<EyeParam>,
               EyeCompute);
  RegisterInit("_linspace", "Returns num evenly spaced values from start to stop (see endpoint).",
               LinspaceParam::__FIELDS__(), ParamParser<LinspaceParam>, LinspaceShape,
               InitType<LinspaceParam>, LinspaceCompute);
  SetSparseZerosLikeAttrs(
      RegisterLike("zeros_like", "Returns an array of zeros with the shape and dtype of the input.",
                   FillConstCompute<0>));
  RegisterLike("ones_like", "Returns an array of ones with the shape and dtype of the input.",
               FillConstCompute<1>);
  return true;
}();

}  // namespace
}  // namespace op
}  // namespace mxnet
