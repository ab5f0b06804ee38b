// _contrib_quadratic: y = a x^2 + b x + c elementwise (MXNet's example of a custom operator),
// its gradient built from registered operators.
#include <vector>

#include "operator/nn/float_op_helpers.h"
#include "operator/tensor/sparse_ops.h"

namespace mxnet {
namespace op {

struct QuadraticParam : public dmlc::Parameter<QuadraticParam> {
  float a, b, c;
  DMLC_DECLARE_PARAMETER(QuadraticParam) {
    DMLC_DECLARE_FIELD(a).set_default(0.0).describe(
        "Coefficient of the quadratic term in the quadratic function.");
    DMLC_DECLARE_FIELD(b).set_default(0.0).describe(
        "Coefficient of the linear term in the quadratic function.");
    DMLC_DECLARE_FIELD(c).set_default(0.0).describe("Constant term in the quadratic function.");
  }
};
DMLC_REGISTER_PARAMETER(QuadraticParam);

namespace {

void QuadraticForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const QuadraticParam& p = Param<QuadraticParam>(attrs);
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, {
    using C = FloatComputeOf<DType>;
    const C a = p.a, b = p.b, c = p.c;
    MapFloat(in[0].dptr<DType>(), out[0].dptr<DType>(), static_cast<index_t>(in[0].Size()),
             req[0], [a, b, c](C x) { return (a * x + b) * x + c; });
  });
}

// d/dx = g * (2 a x + b), as _mul_scalar / _plus_scalar / elemwise_mul nodes.
std::vector<NodeEntry> QuadraticGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  const QuadraticParam& p = Param<QuadraticParam>(n->attrs);
  const std::string name = n->attrs.name + "_backward";
  NodeEntry slope = MakeNode("_mul_scalar", name, {n->inputs[0]},
                             {{"scalar", ScalarText(2.0 * p.a)}});
  slope = MakeNode("_plus_scalar", name, {slope}, {{"scalar", ScalarText(p.b)}});
  return {MakeNode("elemwise_mul", name, {og[0], slope})};
}

}  // namespace

NNVM_REGISTER_OP(_contrib_quadratic)
    .describe(R"doc(This operators implements the quadratic function.

.. math::
    f(x) = ax^2+bx+c

where :math:`x` is an input tensor and all operations in the function are element-wise.

Example::

  x = [[1, 2], [3, 4]]
  y = quadratic(data=x, a=1, b=2, c=3)
  y = [[6, 11], [18, 27]]
)doc")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<QuadraticParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input ndarray")
    .add_arguments(QuadraticParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"data"}))
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput)
    .set_attr<FCompute>("FCompute<cpu>", QuadraticForward)
    .set_attr<FInferStorageType>("FInferStorageType", ZeroPreservingStorage)
    .set_attr<FComputeEx>("FComputeEx<cpu>", StoredValuesCompute)
    .set_attr<FGradient>("FGradient", QuadraticGrad);

}  // namespace op
}  // namespace mxnet
