// amp_cast and amp_multicast: the casts automatic mixed precision inserts. They cast only
// between floating-point types; other dtypes pass through unchanged.
#include "operator/inplace_identity.h"
#include "operator/tensor/elemwise_unary_kernel.h"
#include "operator/tensor/matrix_op_common.h"

namespace mxnet {
namespace op {
namespace {

bool IsFloat(int t) { return t == kFloat16 || t == kFloat32 || t == kFloat64; }

struct AmpCastParam : public dmlc::Parameter<AmpCastParam> {
  int dtype;
  DMLC_DECLARE_PARAMETER(AmpCastParam) {
    AddDTypeEnums(DMLC_DECLARE_FIELD(dtype),
                  {kFloat16, kFloat32, kFloat64, kInt32, kInt64, kInt8, kUint8})
        .describe("Output data type.");
  }
};
DMLC_REGISTER_PARAMETER(AmpCastParam);

struct AmpMultiCastParam : public dmlc::Parameter<AmpMultiCastParam> {
  int num_outputs;
  bool cast_narrow;
  DMLC_DECLARE_PARAMETER(AmpMultiCastParam) {
    DMLC_DECLARE_FIELD(num_outputs).set_lower_bound(1).describe(
        "Number of input/output pairs to be casted to the widest type.");
    DMLC_DECLARE_FIELD(cast_narrow).set_default(false).describe(
        "Whether to cast to the narrowest type");
  }
};
DMLC_REGISTER_PARAMETER(AmpMultiCastParam);

bool AmpCastType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  const int t = (*in)[0];
  if (t < 0) return false;
  const int target = Param<AmpCastParam>(attrs).dtype;
  AssignType(attrs, "output", &(*out)[0], IsFloat(t) && IsFloat(target) ? target : t);
  return true;
}

// Width order of the float types, for picking the widest (or narrowest) of the inputs.
int FloatRank(int t) { return t == kFloat16 ? 0 : t == kFloat32 ? 1 : 2; }

bool AmpMultiCastType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  const bool narrow = Param<AmpMultiCastParam>(attrs).cast_narrow;
  int chosen = -1;
  for (int t : *in) {
    if (t < 0) return false;
    if (!IsFloat(t)) continue;
    if (chosen < 0 || (narrow ? FloatRank(t) < FloatRank(chosen) : FloatRank(t) > FloatRank(chosen))) {
      chosen = t;
    }
  }
  for (size_t i = 0; i < in->size(); ++i) {
    AssignType(attrs, "output", &(*out)[i], IsFloat((*in)[i]) ? chosen : (*in)[i]);
  }
  return true;
}

bool MultiShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  bool known = true;
  for (size_t i = 0; i < in->size(); ++i) {
    AssignShape(attrs, "output", &(*out)[i], (*in)[i]);
    AssignInputShape(attrs, i, &(*in)[i], (*out)[i]);
    known = known && (*out)[i].IsKnown();
  }
  return known;
}

void CastEach(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
              const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  for (size_t i = 0; i < in.size(); ++i) CastBlob(in[i], out[i], req[i]);
}

// Each gradient goes back to its input's dtype.
std::vector<NodeEntry> CastBackGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  std::vector<NodeEntry> grads;
  for (size_t i = 0; i < n->inputs.size(); ++i) {
    grads.push_back(MakeNode("_cast_like", n->attrs.name + "_backward", {og[i], n->inputs[i]}));
  }
  return grads;
}

uint32_t NumOutputs(const NodeAttrs& attrs) {
  return static_cast<uint32_t>(Param<AmpMultiCastParam>(attrs).num_outputs);
}

// Output i may take input i's memory, and is input i when the dtype stays (MXNet 1.9.1).
std::vector<std::pair<int, int>> EachInPlace(const NodeAttrs& attrs) {
  std::vector<std::pair<int, int>> pairs;
  for (uint32_t i = 0; i < NumOutputs(attrs); ++i) pairs.emplace_back(i, i);
  return pairs;
}
std::vector<bool> EachIdentity(const NodeAttrs& attrs) {
  return std::vector<bool>(NumOutputs(attrs), true);
}

}  // namespace

NNVM_REGISTER_OP(amp_cast)
    .describe(R"doc(Cast function between low precision float/FP32 used by AMP.

It casts only between floating-point types (float16, float32, float64) and does not do anything
for other types: an integer input, or an integer dtype, leaves the array as it is.
)doc")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<AmpCastParam>)
    .add_argument("data", "NDArray-or-Symbol", "The input.")
    .add_arguments(AmpCastParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", AmpCastType)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirst)
    .set_attr<FInplaceIdentity>("FInplaceIdentity", InplaceIdentityFirst)
    .set_attr<FCompute>("FCompute<cpu>", CastEach)
    .set_attr<FGradient>("FGradient", CastBackGrad);

NNVM_REGISTER_OP(amp_multicast)
    .describe(R"doc(Cast function used by AMP, that casts its inputs to the common widest type.

The floating-point inputs are cast to the widest floating-point type among them (the narrowest
with ``cast_narrow``); other inputs pass through. ``num_outputs`` is the number of inputs.
)doc")
    .set_num_inputs(NumOutputs)
    .set_num_outputs(NumOutputs)
    .set_key_var_num_args("num_outputs")
    .set_attr_parser(ParamParser<AmpMultiCastParam>)
    .add_argument("data", "NDArray-or-Symbol[]", "Weights")
    .add_arguments(AmpMultiCastParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", MultiShape)
    .set_attr<FInferType>("FInferType", AmpMultiCastType)
    .set_attr<FInplaceOption>("FInplaceOption", EachInPlace)
    .set_attr<FInplaceIdentity>("FInplaceIdentity", EachIdentity)
    .set_attr<FCompute>("FCompute<cpu>", CastEach)
    .set_attr<FGradient>("FGradient", CastBackGrad);

}  // namespace op
}  // namespace mxnet
