// Activation (relu, sigmoid, tanh, softrelu, softsign) and its backward op.
#include <cmath>
#include <vector>

#include "operator/nn/float_op_helpers.h"
#include "operator/nn/onednn/onednn_eltwise.h"
#include "operator/nn/onednn/onednn_layout.h"
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

/*! \brief The elementwise operator computing the same function (its fast kernels are reused);
 *  softrelu has none. */
const char* UnaryOpOf(ActType t) {
  switch (t) {
    case ActType::kReLU: return "relu";
    case ActType::kSigmoid: return "sigmoid";
    case ActType::kTanh: return "tanh";
    case ActType::kSoftSign: return "softsign";
    case ActType::kSoftReLU: return nullptr;
  }
  return nullptr;
}

/*! \brief The oneDNN function of t; false for softsign, which oneDNN 2.6 lacks. */
bool OneDNNFn(ActType t, EltwiseFn* f) {
  static const EltwiseKind kinds[] = {EltwiseKind::kReLU, EltwiseKind::kSigmoid,
                                      EltwiseKind::kTanh, EltwiseKind::kSoftReLU};
  if (t == ActType::kSoftSign) return false;
  f->kind = kinds[static_cast<int>(t)];
  return true;
}

void ActivationCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const ActType t = TypeOf(attrs);
  EltwiseFn f{EltwiseKind::kReLU};
  if (OneDNNFn(t, &f) && EltwiseUsesOneDNN(f, in[0].type_flag_, in[0].Size(), req[0])) {
    return EltwiseForwardOneDNN(f, in[0], out[0]);
  }
  if (t != ActType::kSoftReLU) {  // the elementwise op's kernel, looked up once
    static const auto& kernels = nnvm::Op::GetAttr<FCompute>("FCompute<cpu>");
    static const FCompute by_type[] = {
        kernels[nnvm::Op::Get(UnaryOpOf(ActType::kReLU))],
        kernels[nnvm::Op::Get(UnaryOpOf(ActType::kSigmoid))],
        kernels[nnvm::Op::Get(UnaryOpOf(ActType::kTanh))], nullptr,
        kernels[nnvm::Op::Get(UnaryOpOf(ActType::kSoftSign))]};
    by_type[static_cast<int>(t)](attrs, ctx, in, req, out);
    return;
  }
  MXNET_REAL_TYPE_SWITCH(out[0].type_flag_, DType, {
    using C = FloatComputeOf<DType>;
    MapFloat(in[0].dptr<DType>(), out[0].dptr<DType>(), static_cast<index_t>(out[0].Size()),
             req[0], [](C x) { return x > C(20) ? x : std::log1p(std::exp(x)); });  // no overflow
  });
}

/*! \brief d(out)/d(in) of activation kT from the output y, or for softsign the input x. */
template <ActType kT, typename C>
C Slope(C y, C x) {
  if constexpr (kT == ActType::kReLU) return y != y ? y : C(y > C(0));  // NaN stays NaN
  if constexpr (kT == ActType::kSigmoid) return y * (C(1) - y);
  if constexpr (kT == ActType::kTanh) return C(1) - y * y;
  if constexpr (kT == ActType::kSoftReLU) return -std::expm1(-y);
  if constexpr (kT == ActType::kSoftSign) {
    const C d = C(1) + std::fabs(x);
    return C(1) / (d * d);
  }
  return C(1);
}

template <ActType kT, typename DType>
void GradLoop(const std::vector<TBlob>& in, OpReqType req, const TBlob& out) {
  using C = FloatComputeOf<DType>;
  const DType* g = in[0].dptr<DType>();
  // softsign's slope reads the input, the others the output.
  const DType* v = kT == ActType::kSoftSign ? in[2].dptr<DType>() : in[1].dptr<DType>();
  MapFloat2(g, v, out.dptr<DType>(), static_cast<index_t>(out.Size()), req,
            [](C gi, C vi) { return gi * Slope<kT, C>(vi, vi); });
}

// Inputs: (ograd, output) for relu, (ograd, output, data) otherwise, as MXNet's graph has them.
void ActivationGradCompute(const NodeAttrs& attrs, const OpContext&,
                           const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                           const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  EltwiseFn f{EltwiseKind::kReLU};
  if (OneDNNFn(TypeOf(attrs), &f) &&
      EltwiseUsesOneDNN(f, out[0].type_flag_, out[0].Size(), req[0])) {
    // relu, sigmoid and tanh take their slope from the output in[1], softrelu from data in[2].
    return EltwiseBackwardOneDNN(f, in[0], EltwiseGradReadsOutput(f.kind) ? in[1] : in[2],
                                 out[0]);
  }
  MXNET_REAL_TYPE_SWITCH(out[0].type_flag_, DType, {
    switch (TypeOf(attrs)) {
      case ActType::kReLU: GradLoop<ActType::kReLU, DType>(in, req[0], out[0]); break;
      case ActType::kSigmoid: GradLoop<ActType::kSigmoid, DType>(in, req[0], out[0]); break;
      case ActType::kTanh: GradLoop<ActType::kTanh, DType>(in, req[0], out[0]); break;
      case ActType::kSoftReLU: GradLoop<ActType::kSoftReLU, DType>(in, req[0], out[0]); break;
      case ActType::kSoftSign: GradLoop<ActType::kSoftSign, DType>(in, req[0], out[0]); break;
    }
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
    .set_attr<onednn::FBlockedLayout>("FBlockedLayout", onednn::ElementwiseLayoutGroups)
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
    .set_attr<FCompute>("FCompute<cpu>", ActivationGradCompute)
    .set_attr<onednn::FBlockedLayout>("FBlockedLayout", onednn::ElementwiseLayoutGroups);

}  // namespace op
}  // namespace mxnet
