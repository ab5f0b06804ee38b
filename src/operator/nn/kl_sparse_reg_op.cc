// IdentityAttachKLSparseReg: the identity whose backward adds the gradient of a KL-divergence
// sparseness penalty on the mean activation of each unit (a moving average kept as an
// auxiliary state).
#include <vector>

#include "operator/nn/float_op_helpers.h"
#include "operator/nn/nn_common.h"
#include "operator/nn/op_variant.h"

namespace mxnet {
namespace op {

namespace {

struct KLSparseRegParam : public dmlc::Parameter<KLSparseRegParam> {
  float sparseness_target;
  float penalty;
  float momentum;
  DMLC_DECLARE_PARAMETER(KLSparseRegParam) {
    DMLC_DECLARE_FIELD(sparseness_target).set_default(0.1f).set_range(0, 1)
        .describe("The sparseness target");
    DMLC_DECLARE_FIELD(penalty).set_default(0.001f)
        .describe("The tradeoff parameter for the sparseness penalty");
    DMLC_DECLARE_FIELD(momentum).set_default(0.9f).set_range(0, 1)
        .describe("The momentum for running average");
  }
};

DMLC_REGISTER_PARAMETER(KLSparseRegParam);

// data (batch, units) (trailing unit dims allowed); moving_avg (units,).
bool KLShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!data.IsKnown()) return false;
  CHECK(data.ndim() >= 2 && static_cast<index_t>(data.Size()) == data[0] * data[1])
      << "Operator " << attrs.op->name << ": argument data must be (batch, units), with any "
      << "further dimensions of size 1, given shape " << data;
  AssignInputShape(attrs, 1, &(*in)[1], TShape({data[1]}));
  AssignShape(attrs, "output", &(*out)[0], data);
  return true;
}

// _backward_IdentityAttachKLSparseReg: inputs (ograd, data, moving_avg); folds the batch mean
// of each unit into moving_avg, then adds the penalty's gradient at the new average.
void KLBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const KLSparseRegParam& p = Param<KLSparseRegParam>(attrs);
  MXNET_REAL_TYPE_SWITCH(in[1].type_flag_, DType, {
    const DType* og = in[0].dptr<DType>();
    const DType* x = in[1].dptr<DType>();
    DType* avg = in[2].dptr<DType>();
    const index_t batch = in[1].shape_[0], units = in[1].shape_[1];
    const double rho = p.sparseness_target, mom = p.momentum;
    std::vector<double> push(units);  // the penalty's gradient of each unit
    for (index_t u = 0; u < units; ++u) {
      double sum = 0;
      for (index_t b = 0; b < batch; ++b) sum += static_cast<double>(x[b * units + u]);
      const double mean = batch > 0 ? sum / batch : 0.0;
      const double a = mom * static_cast<double>(avg[u]) + (1 - mom) * mean;
      avg[u] = static_cast<DType>(a);
      push[u] = p.penalty * (-rho / a + (1 - rho) / (1 - a));
    }
    if (req[0] != kNullOp) {
      DType* dx = out[0].dptr<DType>();
      ParallelFor(batch * units, [&](index_t i) {
        Assign(dx + i, req[0],
               static_cast<DType>(static_cast<double>(og[i]) + push[i % units]));
      });
    }
  });
}

std::vector<NodeEntry> KLGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  NodeEntry bwd = MakeNode("_backward_IdentityAttachKLSparseReg", GradName(n),
                           {og[0], n->inputs[0], n->inputs[1]}, n->attrs.dict, &n);
  return {bwd, MakeNode("zeros_like", n->attrs.name + "_zero_grad", {n->inputs[1]})};
}

}  // namespace

NNVM_REGISTER_OP(IdentityAttachKLSparseReg)
    .describe(R"doc(Apply a sparse regularization to the output a sigmoid activation function.

The forward output is the input. In the backward pass (training), ``moving_avg``, the mean
activation of each unit, is updated with ``momentum`` from the batch mean (over axis 0), and the
gradient of the penalty ``penalty * KL(sparseness_target || moving_avg)``, i.e.
``penalty * (-sparseness_target / moving_avg + (1 - sparseness_target) / (1 - moving_avg))``,
is added to the gradient of each unit. Use it after a sigmoid (activations in (0, 1)).
)doc")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<KLSparseRegParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input data.")
    .add_argument("moving_avg", "NDArray-or-Symbol",
                  "Moving average of each unit's activation (auxiliary state).")
    .add_arguments(KLSparseRegParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"data", "moving_avg"}))
    .set_attr<FMutateInputs>("FMutateInputs",
                             [](const NodeAttrs&) { return std::vector<uint32_t>{1}; })
    .set_attr<FInferShape>("FInferShape", KLShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput)
    .set_attr<FCompute>("FCompute<cpu>", Delegate<FCompute>("_copy", "FCompute<cpu>"))
    .set_attr<FGradient>("FGradient", KLGrad);

NNVM_REGISTER_OP(_backward_IdentityAttachKLSparseReg)
    .describe("Gradient of IdentityAttachKLSparseReg; updates moving_avg in place.")
    .set_num_inputs(3)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<KLSparseRegParam>)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output")
    .add_argument("data", "NDArray-or-Symbol", "Input data")
    .add_argument("moving_avg", "NDArray-or-Symbol", "Moving average of each unit's activation")
    .add_arguments(KLSparseRegParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"ograd", "data", "moving_avg"}))
    .set_attr<FMutateInputs>("FMutateInputs",
                             [](const NodeAttrs&) { return std::vector<uint32_t>{2}; })
    .set_attr<FInferShape>("FInferShape", ForwardInputShapes)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", KLBackward);

}  // namespace op
}  // namespace mxnet
