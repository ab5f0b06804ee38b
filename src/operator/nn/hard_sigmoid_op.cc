// hard_sigmoid: clip(alpha * x + beta, 0, 1), and its backward.
#include <algorithm>
#include <vector>

#include "operator/nn/float_op_helpers.h"

namespace mxnet {
namespace op {

namespace {

struct HardSigmoidParam : public dmlc::Parameter<HardSigmoidParam> {
  float alpha;
  float beta;
  DMLC_DECLARE_PARAMETER(HardSigmoidParam) {
    DMLC_DECLARE_FIELD(alpha).set_default(0.2f).describe("Slope of hard sigmoid");
    DMLC_DECLARE_FIELD(beta).set_default(0.5f).describe("Bias of hard sigmoid.");
  }
};

DMLC_REGISTER_PARAMETER(HardSigmoidParam);

void HardSigmoidForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const HardSigmoidParam& p = Param<HardSigmoidParam>(attrs);
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, {
    using C = FloatComputeOf<DType>;
    const C a = p.alpha, b = p.beta;
    MapFloat(in[0].dptr<DType>(), out[0].dptr<DType>(), static_cast<index_t>(in[0].Size()),
             req[0], [a, b](C x) { return std::min(std::max(a * x + b, C(0)), C(1)); });
  });
}

// _backward_hard_sigmoid: inputs (ograd, data); alpha * ograd where the line is not clipped.
void HardSigmoidBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const HardSigmoidParam& p = Param<HardSigmoidParam>(attrs);
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, {
    using C = FloatComputeOf<DType>;
    const C a = p.alpha, b = p.beta;
    MapFloat2(in[0].dptr<DType>(), in[1].dptr<DType>(), out[0].dptr<DType>(),
              static_cast<index_t>(in[0].Size()), req[0], [a, b](C g, C x) {
                const C y = a * x + b;
                return (y > C(0) && y < C(1)) ? a * g : C(0);
              });
  });
}

std::vector<NodeEntry> HardSigmoidGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  return GradOfEachInput("_backward_hard_sigmoid", n, og);
}

}  // namespace

NNVM_REGISTER_OP(hard_sigmoid)
    .describe(R"doc(Computes hard sigmoid of x element-wise.

.. math::
   y = max(0, min(1, alpha * x + beta))

The gradient is ``alpha`` where ``0 < alpha * x + beta < 1`` and 0 elsewhere.
)doc")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<HardSigmoidParam>)
    .add_argument("data", "NDArray-or-Symbol", "The input array.")
    .add_arguments(HardSigmoidParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"data"}))
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput)
    .set_attr<FCompute>("FCompute<cpu>", HardSigmoidForward)
    .set_attr<FGradient>("FGradient", HardSigmoidGrad);

NNVM_REGISTER_OP(_backward_hard_sigmoid)
    .describe("Gradient of hard_sigmoid with respect to its input.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<HardSigmoidParam>)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output")
    .add_argument("data", "NDArray-or-Symbol", "The input of hard_sigmoid")
    .add_arguments(HardSigmoidParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"ograd", "data"}))
    .set_attr<FInferShape>("FInferShape", ForwardInputShapes)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", HardSigmoidBackward);

}  // namespace op
}  // namespace mxnet
