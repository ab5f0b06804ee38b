// MakeLoss: the identity whose gradient is a constant (grad_scale, optionally normalized by the
// batch or by the count of valid elements), ignoring the head gradient.
#include <algorithm>
#include <vector>

#include "operator/nn/nn_common.h"
#include "operator/nn/op_variant.h"

namespace mxnet {
namespace op {

namespace {

enum MakeLossNorm { kNormNull = 0, kNormBatch = 1, kNormValid = 2 };

struct MakeLossParam : public dmlc::Parameter<MakeLossParam> {
  float grad_scale;
  float valid_thresh;
  int normalization;
  DMLC_DECLARE_PARAMETER(MakeLossParam) {
    DMLC_DECLARE_FIELD(grad_scale).set_default(1.0f)
        .describe("Gradient scale as a supplement to unary and binary operators");
    DMLC_DECLARE_FIELD(valid_thresh).set_default(0.0f)
        .describe("clip each element in the array to 0 when it is less than ``valid_thresh``. "
                  "This is used when ``normalization`` is set to ``'valid'``.");
    DMLC_DECLARE_FIELD(normalization)
        .add_enum("null", kNormNull)
        .add_enum("batch", kNormBatch)
        .add_enum("valid", kNormValid)
        .set_default(kNormNull)
        .describe("If this is set to null, the output gradient will not be normalized. If this "
                  "is set to batch, the output gradient will be divided by the batch size. If "
                  "this is set to valid, the output gradient will be divided by the number of "
                  "valid input elements.");
  }
};

DMLC_REGISTER_PARAMETER(MakeLossParam);

// _backward_MakeLoss: input the forward's output (counted for 'valid'); output its gradient.
void MakeLossBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const MakeLossParam& p = Param<MakeLossParam>(attrs);
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* y = in[0].dptr<DType>();
    const index_t n = static_cast<index_t>(in[0].Size());
    double scale = p.grad_scale;
    if (p.normalization == kNormBatch && in[0].shape_.ndim() > 0) {
      scale /= static_cast<double>(in[0].shape_[0]);
    } else if (p.normalization == kNormValid) {
      index_t valid = 0;
      for (index_t i = 0; i < n; ++i) valid += static_cast<float>(y[i]) > p.valid_thresh;
      scale /= static_cast<double>(std::max<index_t>(valid, 1));
    }
    const DType g = static_cast<DType>(scale);
    DType* dx = out[0].dptr<DType>();
    ParallelFor(n, [&](index_t i) { Assign(dx + i, req[0], g); });
  });
}

std::vector<NodeEntry> MakeLossGrad(const ObjectPtr& n, const std::vector<NodeEntry>&) {
  return {MakeNode("_backward_MakeLoss", GradName(n), {Out(n)}, n->attrs.dict, &n)};
}

}  // namespace

NNVM_REGISTER_OP(MakeLoss)
    .describe(R"doc(Make your own loss function in network construction.

This operator accepts a customized loss function symbol as a terminal loss and
the symbol should be an operator with no backward dependency.
The output of this function is the gradient of loss with respect to the input data.

For example, if you are a making a cross entropy loss function. Assume ``out`` is the
predicted output and ``label`` is the true label, then the cross entropy can be defined as::

  cross_entropy = label * log(out) + (1 - label) * log(1 - out)
  loss = MakeLoss(cross_entropy)

We will need to use ``MakeLoss`` when we are creating our own loss function or we want to
combine multiple loss functions. Also we may want to stop some variables' gradients
from backpropagation. See more detail in ``BlockGrad`` or ``stop_gradient``.

In addition, we can give a scale to the loss by setting ``grad_scale``,
so that the gradient of the loss will be rescaled in the backpropagation.

.. note:: This operator should be used as a Symbol instead of NDArray.

The forward output is the input; the gradient is ``grad_scale`` for every element, whatever
the head gradient, divided by the batch size (``normalization='batch'``) or by the number of
elements greater than ``valid_thresh`` (``normalization='valid'``, at least 1).
)doc")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<MakeLossParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input array.")
    .add_arguments(MakeLossParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"data"}))
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FInplaceOption>("FInplaceOption",
                              [](const NodeAttrs&) {
                                return std::vector<std::pair<int, int>>{{0, 0}};
                              })
    .set_attr<FCompute>("FCompute<cpu>", Delegate<FCompute>("_copy", "FCompute<cpu>"))
    .set_attr<FGradient>("FGradient", MakeLossGrad);

NNVM_REGISTER_OP(_backward_MakeLoss)
    .describe("Gradient of MakeLoss: grad_scale, normalized, for every element.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<MakeLossParam>)
    .add_argument("output", "NDArray-or-Symbol", "The output of MakeLoss")
    .add_arguments(MakeLossParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"output"}))
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", MakeLossBackward);

}  // namespace op
}  // namespace mxnet
