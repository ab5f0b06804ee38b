// Small index and shape helpers of MXNet 1.9.1: _contrib_div_sqrt_dim, _contrib_index_array,
// _contrib_arange_like, _ravel_multi_index and _unravel_index.
#include <dmlc/optional.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/type_switch.h"
#include "operator/tensor/matrix_op_common.h"

namespace mxnet {
namespace op {

struct IndexArrayParam : public dmlc::Parameter<IndexArrayParam> {
  dmlc::optional<IntTuple> axes;
  DMLC_DECLARE_PARAMETER(IndexArrayParam) {
    DMLC_DECLARE_FIELD(axes).set_default(dmlc::optional<IntTuple>()).describe(
        "The axes to include in the index array. Supports negative values.");
  }
};
DMLC_REGISTER_PARAMETER(IndexArrayParam);

struct ArangeLikeParam : public dmlc::Parameter<ArangeLikeParam> {
  double start, step;
  int repeat;
  std::string ctx;
  dmlc::optional<int> axis;
  DMLC_DECLARE_PARAMETER(ArangeLikeParam) {
    DMLC_DECLARE_FIELD(start).set_default(0).describe("Start of interval.");
    DMLC_DECLARE_FIELD(step).set_default(1).describe("Spacing between values.");
    DMLC_DECLARE_FIELD(repeat).set_default(1).describe(
        "The repeating time of all elements. E.g repeat=3, the element a will be repeated "
        "three times --> a, a, a.");
    DMLC_DECLARE_FIELD(ctx).set_default("").describe("Context of output.");
    DMLC_DECLARE_FIELD(axis).set_default(dmlc::optional<int>()).describe(
        "Arange elements according to the size of a certain axis of input array. The negative "
        "numbers are interpreted counting from the backward. If not provided, will arange "
        "elements according to the input shape.");
  }
};
DMLC_REGISTER_PARAMETER(ArangeLikeParam);

struct RavelParam : public dmlc::Parameter<RavelParam> {
  IntTuple shape;
  DMLC_DECLARE_PARAMETER(RavelParam) {
    DMLC_DECLARE_FIELD(shape).set_default(IntTuple()).describe(
        "Shape of the array into which the multi-indices apply.");
  }
};
DMLC_REGISTER_PARAMETER(RavelParam);

namespace {

int AxisIn(const NodeAttrs& attrs, const char* arg, int64_t axis, int ndim) {
  if (axis < -ndim || axis >= ndim) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": argument " << arg << " expected in ["
               << -ndim << ", " << ndim << ") for an input of " << ndim << " dims, given "
               << axis;
  }
  return static_cast<int>(axis < 0 ? axis + ndim : axis);
}

// ------------------------------------------------------------------------- div_sqrt_dim
void DivSqrtDimForward(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const TShape& s = in[0].shape_;
  const double scale = 1.0 / std::sqrt(static_cast<double>(s.ndim() ? s[s.ndim() - 1] : 1));
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, {
    using M = typename MathType<DType>::type;
    const DType* x = in[0].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    const M k = static_cast<M>(scale);
    ParallelFor(static_cast<index_t>(in[0].Size()), [&](index_t i) {
      Assign(y + i, req[0], static_cast<DType>(static_cast<M>(x[i]) * k));
    });
  });
}

// The gradient divides by the same sqrt(last dim): the op itself on the output gradient.
std::vector<NodeEntry> DivSqrtDimGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  return {GradNode(n, "_contrib_div_sqrt_dim", {og[0]})};
}

// Index values do not depend on the input's values: its gradient is zero.
std::vector<NodeEntry> ZeroInputGrads(const ObjectPtr& n, const std::vector<NodeEntry>&) {
  return ZeroGrads(n);
}

// -------------------------------------------------------------------------- index_array
std::vector<int> IndexArrayAxes(const NodeAttrs& attrs, int ndim) {
  const IndexArrayParam& p = Param<IndexArrayParam>(attrs);
  std::vector<int> axes;
  if (!p.axes.has_value()) {
    for (int i = 0; i < ndim; ++i) axes.push_back(i);
  } else {
    for (int64_t a : p.axes.value()) axes.push_back(AxisIn(attrs, "axes", a, ndim));
  }
  return axes;
}

bool IndexArrayShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) return false;
  std::vector<dim_t> o(d.begin(), d.end());
  o.push_back(static_cast<dim_t>(IndexArrayAxes(attrs, d.ndim()).size()));
  AssignShape(attrs, "output", &(*out)[0], ShapeOf(o));
  return true;
}

bool Int64OutType(const NodeAttrs& attrs, std::vector<int>*, std::vector<int>* out) {
  AssignType(attrs, "output", &(*out)[0], kInt64);
  return true;
}

void IndexArrayForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const TShape& s = in[0].shape_;
  const std::vector<int> axes = IndexArrayAxes(attrs, s.ndim());
  std::vector<index_t> strides(s.ndim(), 1);
  for (int i = s.ndim() - 2; i >= 0; --i) strides[i] = strides[i + 1] * s[i + 1];
  int64_t* y = out[0].dptr<int64_t>();
  const index_t n = static_cast<index_t>(in[0].Size()), k = static_cast<index_t>(axes.size());
  if (k == 0) return;
  ParallelFor(n, [&](index_t i) {
    for (index_t j = 0; j < k; ++j) {
      const int a = axes[j];
      Assign(y + i * k + j, req[0], static_cast<int64_t>((i / strides[a]) % s[a]));
    }
  });
}

// -------------------------------------------------------------------------- arange_like
bool ArangeLikeShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const ArangeLikeParam& p = Param<ArangeLikeParam>(attrs);
  const TShape& d = (*in)[0];
  if (p.axis.has_value()) {
    if (d.ndim() < 0) return false;
    const int a = AxisIn(attrs, "axis", p.axis.value(), d.ndim());
    if (d[a] < 0) return false;
    AssignShape(attrs, "output", &(*out)[0], TShape({d[a]}));
    return true;
  }
  if (!d.IsKnown()) return false;
  AssignShape(attrs, "output", &(*out)[0], d);
  return true;
}

void ArangeLikeForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>&,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const ArangeLikeParam& p = Param<ArangeLikeParam>(attrs);
  CHECK_GT(p.repeat, 0) << "Operator " << attrs.op->name << ": argument repeat expected a "
                        << "positive integer, given " << p.repeat;
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    DType* y = out[0].dptr<DType>();
    const index_t repeat = p.repeat;
    ParallelFor(static_cast<index_t>(out[0].Size()), [&](index_t i) {
      Assign(y + i, req[0], static_cast<DType>(p.start + p.step * static_cast<double>(i / repeat)));
    });
  });
}

// ----------------------------------------------------------------- ravel / unravel index
// The strides of shape; a leading -1 (any size) does not enter them.
std::vector<int64_t> RavelStrides(const NodeAttrs& attrs) {
  const IntTuple& shape = Param<RavelParam>(attrs).shape;
  CHECK_GT(shape.ndim(), 0) << "Operator " << attrs.op->name << ": argument shape is required";
  for (int i = 0; i < shape.ndim(); ++i) {
    CHECK(shape[i] > 0 || (i == 0 && shape[i] == -1))
        << "Operator " << attrs.op->name << ": argument shape expected positive dims (the first "
        << "may be -1), given " << TupleText(shape.v);
  }
  std::vector<int64_t> st(shape.ndim(), 1);
  for (int i = shape.ndim() - 2; i >= 0; --i) st[i] = st[i + 1] * shape[i + 1];
  return st;
}

bool RavelShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) return false;
  const int n = Param<RavelParam>(attrs).shape.ndim();
  CHECK(d.ndim() == 2 && d[0] == n)
      << "Operator " << attrs.op->name << ": argument data expected shape (" << n
      << ", N) (one row per dim of shape), given " << d;
  AssignShape(attrs, "output", &(*out)[0], TShape({d[1]}));
  return true;
}

bool UnravelShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) return false;
  const int n = Param<RavelParam>(attrs).shape.ndim();
  std::vector<dim_t> o{n};
  o.insert(o.end(), d.begin(), d.end());
  AssignShape(attrs, "output", &(*out)[0], ShapeOf(o));
  return true;
}

void RavelForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const std::vector<int64_t> st = RavelStrides(attrs);
  const index_t m = static_cast<index_t>(out[0].Size());
  MXNET_NUMERIC_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* x = in[0].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    ParallelFor(m, [&](index_t j) {
      double flat = 0;
      for (size_t i = 0; i < st.size(); ++i) flat += static_cast<double>(x[i * m + j]) * st[i];
      Assign(y + j, req[0], static_cast<DType>(flat));
    });
  });
}

void UnravelForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const IntTuple& shape = Param<RavelParam>(attrs).shape;
  const std::vector<int64_t> st = RavelStrides(attrs);
  const index_t m = static_cast<index_t>(in[0].Size());
  MXNET_NUMERIC_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* x = in[0].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    ParallelFor(m, [&](index_t j) {
      int64_t flat = static_cast<int64_t>(x[j]);
      for (size_t i = 0; i < st.size(); ++i) {
        int64_t c = flat / st[i];
        if (i > 0 || shape[0] > 0) c %= shape[static_cast<int>(i)];
        Assign(y + i * m + j, req[0], static_cast<DType>(c));
      }
    });
  });
}

}  // namespace

NNVM_REGISTER_OP(_contrib_div_sqrt_dim)
    .describe("Rescale the input by the square root of the channel dimension: "
              "out = data / sqrt(data.shape[-1]).")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The input array.")
    .set_attr<FListInputNames>("FListInputNames", InputNames({"data"}))
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", DivSqrtDimForward)
    .set_attr<FGradient>("FGradient", DivSqrtDimGrad);

NNVM_REGISTER_OP(_contrib_index_array)
    .describe("Returns an array of indexes of the input array: for an input of shape (d1, ..., "
              "dn) the output has shape (d1, ..., dn, n) (or (..., len(axes))), the element at "
              "(i1, ..., in) holding (i1, ..., in) (or the selected axes' indices). int64.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<IndexArrayParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input data")
    .add_arguments(IndexArrayParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"data"}))
    .set_attr<FInferShape>("FInferShape", IndexArrayShape)
    .set_attr<FInferType>("FInferType", Int64OutType)
    .set_attr<FCompute>("FCompute<cpu>", IndexArrayForward)
    .set_attr<FGradient>("FGradient", ZeroInputGrads);

NNVM_REGISTER_OP(_contrib_arange_like)
    .describe("Return an array with evenly spaced values, shaped like the input (or as long as "
              "its axis `axis`): start, start + step, ... each repeated `repeat` times.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<ArangeLikeParam>)
    .add_argument("data", "NDArray-or-Symbol", "The input")
    .add_arguments(ArangeLikeParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"data"}))
    .set_attr<FInferShape>("FInferShape", ArangeLikeShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", ArangeLikeForward)
    .set_attr<FGradient>("FGradient", ZeroInputGrads);

NNVM_REGISTER_OP(_ravel_multi_index)
    .add_alias("ravel_multi_index")
    .describe("Converts a batch of index arrays (data of shape (len(shape), N)) into an array "
              "of flat indices into an array of the given shape (the first dim may be -1).")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<RavelParam>)
    .add_argument("data", "NDArray-or-Symbol", "Batch of multi-indices")
    .add_arguments(RavelParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"data"}))
    .set_attr<FInferShape>("FInferShape", RavelShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", RavelForward)
    .set_attr<FGradient>("FGradient", NoGradient);

NNVM_REGISTER_OP(_unravel_index)
    .add_alias("unravel_index")
    .describe("Converts an array of flat indices (N,) into a batch of index arrays "
              "(len(shape), N) for an array of the given shape (the first dim may be -1).")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<RavelParam>)
    .add_argument("data", "NDArray-or-Symbol", "Array of flat indices")
    .add_arguments(RavelParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"data"}))
    .set_attr<FInferShape>("FInferShape", UnravelShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", UnravelForward)
    .set_attr<FGradient>("FGradient", NoGradient);

}  // namespace op
}  // namespace mxnet
