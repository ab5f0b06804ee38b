// _contrib_gradientmultiplier: identity forward, the gradient multiplied by a scalar backward
// (a gradient reversal layer when the scalar is negative).
#include <vector>

#include "operator/nn/float_op_helpers.h"
#include "operator/inplace_identity.h"

namespace mxnet {
namespace op {

struct GradientMultiplierParam : public dmlc::Parameter<GradientMultiplierParam> {
  double scalar;
  bool is_int;
  DMLC_DECLARE_PARAMETER(GradientMultiplierParam) {
    DMLC_DECLARE_FIELD(scalar).set_default(1).describe("lambda multiplier");
    DMLC_DECLARE_FIELD(is_int).set_default(true).describe(
        "Whether the scalar is an integer (accepted as MXNet 1.9.1's scalar operators take it; "
        "the gradient keeps its dtype).");
  }
};
DMLC_REGISTER_PARAMETER(GradientMultiplierParam);

namespace {

void CopyForward(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, {
    using C = FloatComputeOf<DType>;
    MapFloat(in[0].dptr<DType>(), out[0].dptr<DType>(), static_cast<index_t>(in[0].Size()),
             req[0], [](C x) { return x; });
  });
}

std::vector<NodeEntry> MultiplierGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  const double s = Param<GradientMultiplierParam>(n->attrs).scalar;
  return {MakeNode("_mul_scalar", n->attrs.name + "_backward", {og[0]},
                   {{"scalar", ScalarText(s)}})};
}

}  // namespace

NNVM_REGISTER_OP(_contrib_gradientmultiplier)
    .describe(R"doc(This operator implements the gradient multiplier function.
In forward pass it acts as an identity transform. During backpropagation it
multiplies the gradient from the subsequent level by a scalar factor lambda and passes it to
the preceding layer.
)doc")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<GradientMultiplierParam>)
    .add_argument("data", "NDArray-or-Symbol", "The input array.")
    .add_arguments(GradientMultiplierParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"data"}))
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput)
    .set_attr<FInplaceIdentity>("FInplaceIdentity", InplaceIdentityFirst)
    .set_attr<FCompute>("FCompute<cpu>", CopyForward)
    .set_attr<FGradient>("FGradient", MultiplierGrad);

}  // namespace op
}  // namespace mxnet
