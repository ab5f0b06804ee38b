// Activation (relu, sigmoid, tanh, softrelu, softsign) and its backward op.
#include <cmath>
#include <vector>

#include "operator/nn/float_op_helpers.h"
#include "operator/tensor/elemwise_unary_kernel.h"

namespace mxnet {
namespace op {

enum class ActType { kReLU = 0, kSigmoid = 1, kTanh = 2, kSoftReLU = 3, kSoftSign = 4 };

struct ActivationParam : public dmlc::Parameter<ActivationParam> {
  int act_type;
  DMLC_DECLARE_PARAMETER(ActivationParam) {
    DMLC_DECLARE_FIELD(act_type)
        .add_enum("relu", static_cast<int>(ActType::kReLU))
        .add_enum("sigmoid", static_cast<int>(ActType::kSigmoid))
        .add_enum("tanh", static_cast<int>(ActType::kTanh))
        .add_enum("softrelu", static_cast<int>(ActType::kSoftReLU))
        .add_enum("softsign", static_cast<int>(ActType::kSoftSign))
        .describe("Activation function to be applied.");
  }
};
DMLC_REGISTER_PARAMETER(ActivationParam);

namespace {

ActType TypeOf(const NodeAttrs& attrs) {
  return static_cast<ActType>(Param<ActivationParam>(attrs).act_type);
}

template <typename C>
C Activate(ActType t, C x) {
  switch (t) {
    case ActType::kReLU: return x > C(0) || std::isnan(x) ? x : C(0);
    case ActType::kSigmoid: return C(1) / (C(1) + std::exp(-x));
    case ActType::kTanh: return std::tanh(x);
    case ActType::kSoftReLU: return x > C(20) ? x : std::log1p(std::exp(x));  // exp overflows
    case ActType::kSoftSign: return x / (C(1) + std::fabs(x));
  }
  return x;
}

/*! \brief d(out)/d(in) from the output y and (softsign only) the input x. */
template <typename C>
C Slope(ActType t, C y, C x) {
  switch (t) {
    case ActType::kReLU: return std::isnan(y) ? y : C(y > C(0));
    case ActType::kSigmoid: return y * (C(1) - y);
    case ActType::kTanh: return C(1) - y * y;
    case ActType::kSoftReLU: return -std::expm1(-y);
    case ActType::kSoftSign: {
      const C d = C(1) + std::fabs(x);
      return C(1) / (d * d);
    }
  }
  return C(1);
}

void ActivationCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const ActType t = TypeOf(attrs);
  MXNET_REAL_TYPE_SWITCH(out[0].type_flag_, DType, {
    using C = FloatComputeOf<DType>;
    MapLoop(in[0].dptr<DType>(), out[0].dptr<DType>(), static_cast<index_t>(out[0].Size()),
            req[0], [t](DType v) { return DType(Activate<C>(t, static_cast<C>(v))); });
  });
}

// Inputs: (ograd, output) for relu, (ograd, output, data) otherwise, as MXNet's graph has them.
void ActivationGradCompute(const NodeAttrs& attrs, const OpContext&,
                           const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                           const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const ActType t = TypeOf(attrs);
  const index_t n = static_cast<index_t>(out[0].Size());
  MXNET_REAL_TYPE_SWITCH(out[0].type_flag_, DType, {
    using C = FloatComputeOf<DType>;
    const DType* g = in[0].dptr<DType>();
    const DType* y = in[1].dptr<DType>();
    const DType* x = in.size() > 2 ? in[2].dptr<DType>() : y;
    DType* dx = out[0].dptr<DType>();
    const OpReqType r = req[0];
    ParallelFor(n, [&](index_t i) {
      const C s = Slope<C>(t, static_cast<C>(y[i]), static_cast<C>(x[i]));
      Assign(dx + i, r, DType(static_cast<C>(g[i]) * s));
    });
  });
}

std::vector<NodeEntry> ActivationGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  std::vector<NodeEntry> inputs{og[0], Out(n)};
  if (TypeOf(n->attrs) != ActType::kReLU) inputs.push_back(n->inputs[0]);
  return {MakeNode("_backward_Activation", GradName(n), inputs, n->attrs.dict)};
}

}  // namespace

NNVM_REGISTER_OP(Activation)
    .describe(R"doc(Applies an activation function element-wise to the input.

The following activation functions are supported:

- `relu`: Rectified Linear Unit, :math:`y = max(x, 0)`
- `sigmoid`: :math:`y = \frac{1}{1 + exp(-x)}`
- `tanh`: Hyperbolic tangent, :math:`y = \frac{exp(x) - exp(-x)}{exp(x) + exp(-x)}`
- `softrelu`: Soft ReLU, or SoftPlus, :math:`y = log(1 + exp(x))`
- `softsign`: :math:`y = \frac{x}{1 + abs(x)}`
)doc")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<ActivationParam>)
    .add_argument("data", "NDArray-or-Symbol", "The input array.")
    .add_arguments(ActivationParam::__FIELDS__())
    .set_attr<FListOutputNames>("FListOutputNames", InputNames({"output"}))
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput)
    .set_attr<FCompute>("FCompute<cpu>", ActivationCompute)
    .set_attr<FGradient>("FGradient", ActivationGrad);

NNVM_REGISTER_OP(_backward_Activation)
    .describe("Gradient of Activation from the head gradient, its output and (except relu) its "
              "input.")
    .set_num_inputs([](const NodeAttrs& a) { return TypeOf(a) == ActType::kReLU ? 2u : 3u; })
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<ActivationParam>)
    .add_argument("args", "NDArray-or-Symbol[]", "ograd, output and (except relu) data")
    .add_arguments(ActivationParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput)
    .set_attr<FCompute>("FCompute<cpu>", ActivationGradCompute);

}  // namespace op
}  // namespace mxnet
