// Array-with-scalar operators (_plus_scalar, _rdiv_scalar, _power_scalar, _equal_scalar, ...)
// with MXNet's `scalar` and `is_int` arguments, and gradients built from registered operators.
#include <cmath>
#include <type_traits>

#include "operator/tensor/elemwise_functors.h"
#include "operator/tensor/elemwise_unary_kernel.h"
#include "operator/tensor/sparse_ops.h"

namespace mxnet {
namespace op {
namespace {

struct ElemwiseScalarParam : public dmlc::Parameter<ElemwiseScalarParam> {
  double scalar;
  bool is_int;
  DMLC_DECLARE_PARAMETER(ElemwiseScalarParam) {
    DMLC_DECLARE_FIELD(scalar).set_default(1).describe("The scalar operand.");
    DMLC_DECLARE_FIELD(is_int).set_default(true).describe(
        "Whether the scalar is an integer. When false, integer inputs give float64 results.");
  }
};
DMLC_REGISTER_PARAMETER(ElemwiseScalarParam);

/*! \brief Output dtype as MXNet 1.9: the input's, except integers with a non-integer scalar
 *  (float64) and bool (int64, or float64 with a non-integer scalar). */
int ScalarOutType(int in_type, bool is_int) {
  if (in_type == kBool) return is_int ? kInt64 : kFloat64;
  if (!is_int && !IsFloatDType(in_type)) return kFloat64;
  return in_type;
}

bool ScalarType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  const auto& param = Param<ElemwiseScalarParam>(attrs);
  if ((*in)[0] < 0) {
    // Only the output is known: it is the input's dtype unless promoted, which we cannot tell.
    if ((*out)[0] >= 0 && ScalarOutType((*out)[0], param.is_int) == (*out)[0]) {
      (*in)[0] = (*out)[0];
    }
    return (*out)[0] >= 0 && (*in)[0] >= 0;
  }
  AssignType(attrs, "output", &(*out)[0], ScalarOutType((*in)[0], param.is_int));
  return true;
}

template <typename OP>
void ScalarCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& param = Param<ElemwiseScalarParam>(attrs);
  TBlob src = in[0];
  if (in[0].type_flag_ != out[0].type_flag_) {  // promoted input: convert it first
    void* buf = ctx.RequestTempSpace(in[0].Size() * DTypeSize(out[0].type_flag_));
    src = TBlob(buf, in[0].shape_, out[0].type_flag_, in[0].ctx);
    CastBlob(in[0], src, kWriteTo);
  }
  MXNET_NUMERIC_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType s = ScalarAs<DType>(param.scalar);
    MapLoop(src.dptr<DType>(), out[0].dptr<DType>(), static_cast<index_t>(out[0].Size()), req[0],
            [s](DType v) { return OP::Map(v, s); });
  });
}

// ---------------------------------------------------------------- gradients
using GradFn = std::vector<NodeEntry> (*)(const ObjectPtr&, const std::vector<NodeEntry>&);

double ScalarOf(const ObjectPtr& n) { return Param<ElemwiseScalarParam>(n->attrs).scalar; }
NodeEntry U(const char* op, const ObjectPtr& n, NodeEntry a) {
  return MakeNode(op, n->attrs.name + "_backward", {a});
}
NodeEntry Mul(const ObjectPtr& n, NodeEntry a, NodeEntry b) {
  return MakeNode("elemwise_mul", n->attrs.name + "_backward", {a, b});
}
NodeEntry Div(const ObjectPtr& n, NodeEntry a, NodeEntry b) {
  return MakeNode("elemwise_div", n->attrs.name + "_backward", {a, b});
}
NodeEntry S(const char* op, const ObjectPtr& n, NodeEntry a, double s) {
  return MakeNode(op, n->attrs.name + "_backward", {a}, {{"scalar", ScalarText(s)}});
}

// d(in) from g (gradient of the output), x (input), y (output) and s (the scalar).
#define MXNET_SCALAR_GRAD_(name, expr)                                               \
  std::vector<NodeEntry> name(const ObjectPtr& n, const std::vector<NodeEntry>& og) { \
    const NodeEntry g = og[0], x = n->inputs[0], y = Out(n);                         \
    const double s = ScalarOf(n);                                                    \
    (void)g, (void)x, (void)y, (void)s;                                              \
    return {expr};                                                                   \
  }
MXNET_SCALAR_GRAD_(GradPass, g)
MXNET_SCALAR_GRAD_(GradRminus, U("negative", n, g))
MXNET_SCALAR_GRAD_(GradMul, S("_mul_scalar", n, g, s))
MXNET_SCALAR_GRAD_(GradDiv, S("_div_scalar", n, g, s))
// d(s / x) = -s / x^2 = -y / x
MXNET_SCALAR_GRAD_(GradRdiv, Mul(n, g, U("negative", n, Div(n, y, x))))
// d(s mod x) = -floor(s / x)
// mod's gradients are 0 for integer dtypes, as MXNet defines them
MXNET_SCALAR_GRAD_(GradMod, U("_zero_if_integer", n, g))
MXNET_SCALAR_GRAD_(GradRmod, Mul(n, U("_zero_if_integer", n, g),
                                 U("negative", n, U("floor", n, S("_rdiv_scalar", n, x, s)))))
MXNET_SCALAR_GRAD_(GradPower, Mul(n, g, S("_mul_scalar", n, S("_power_scalar", n, x, s - 1), s)))
MXNET_SCALAR_GRAD_(GradRpower, Mul(n, g, S("_mul_scalar", n, y, std::log(s))))
MXNET_SCALAR_GRAD_(GradMaximum, Mul(n, g, S("_greater_equal_scalar", n, x, s)))
MXNET_SCALAR_GRAD_(GradMinimum, Mul(n, g, S("_lesser_equal_scalar", n, x, s)))
MXNET_SCALAR_GRAD_(GradHypot, Mul(n, g, Div(n, x, y)))
#undef MXNET_SCALAR_GRAD_

// ---------------------------------------------------------------- registration
std::vector<std::pair<int, int>> InplaceInOut(const NodeAttrs&) { return {{0, 0}}; }
using StorageAttrs = nnvm::Op& (*)(nnvm::Op&);
bool RegisterScalar(const char* name, const char* alias, const char* doc, FCompute fcompute,
                    GradFn grad, StorageAttrs storage = SetZeroPreservingAttrs) {
  nnvm::Op& reg = nnvm::Op::Register(name);
  reg.describe(doc)
      .set_num_inputs(1)
      .set_num_outputs(1)
      .set_attr_parser(ParamParser<ElemwiseScalarParam>)
      .add_argument("data", "NDArray-or-Symbol", "The input array.")
      .add_arguments(ElemwiseScalarParam::__FIELDS__())
      .set_attr<FInferShape>("FInferShape", ElemwiseShape)
      .set_attr<FInferType>("FInferType", ScalarType)
      .set_attr<FInplaceOption>("FInplaceOption", InplaceInOut)
      .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
      .set_attr<FCompute>("FCompute<cpu>", fcompute);
  if (alias != nullptr) reg.add_alias(alias);
  storage(reg);
  if (grad != nullptr) {
    reg.set_attr<FGradient>("FGradient", grad);
  } else {
    reg.set_attr<TIsNonDifferentiable>("TIsNonDifferentiable", true);
  }
  return true;
}

#define MXNET_SCALAR_(name, alias, functor, grad, doc)                         \
  const bool reg_scalar_##name##_ [[maybe_unused]] =                          \
      RegisterScalar(#name, alias, doc, ScalarCompute<mshadow_op::functor>, grad)
#define MXNET_RSCALAR_(name, alias, functor, grad, doc)                                        \
  const bool reg_scalar_##name##_ [[maybe_unused]] = RegisterScalar(                          \
      #name, alias, doc, ScalarCompute<mshadow_op::reversed<mshadow_op::functor>>, grad)

MXNET_SCALAR_(_plus_scalar, "_PlusScalar", plus, GradPass, "Adds a scalar to each element.");
MXNET_SCALAR_(_minus_scalar, "_MinusScalar", minus, GradPass,
              "Subtracts a scalar from each element.");
MXNET_RSCALAR_(_rminus_scalar, "_RMinusScalar", minus, GradRminus,
               "Subtracts each element from a scalar: scalar - x.");
MXNET_SCALAR_(_mul_scalar, "_MulScalar", mul, GradMul, "Multiplies each element by a scalar.");
MXNET_SCALAR_(_div_scalar, "_DivScalar", div, GradDiv, "Divides each element by a scalar.");
MXNET_RSCALAR_(_rdiv_scalar, "_RDivScalar", div, GradRdiv,
               "Divides a scalar by each element: scalar / x.");
MXNET_SCALAR_(_mod_scalar, "_ModScalar", mod, GradMod,
              "Each element modulo a scalar; the result takes the sign of the scalar.");
MXNET_RSCALAR_(_rmod_scalar, "_RModScalar", mod, GradRmod,
               "A scalar modulo each element: scalar mod x.");
MXNET_SCALAR_(_power_scalar, "_PowerScalar", power, GradPower,
              "Raises each element to the power of a scalar.");
MXNET_RSCALAR_(_rpower_scalar, "_RPowerScalar", power, GradRpower,
               "Raises a scalar to the power of each element: scalar ** x.");
MXNET_SCALAR_(_maximum_scalar, "_MaximumScalar", maximum, GradMaximum,
              "Element-wise maximum of the array and a scalar.");
MXNET_SCALAR_(_minimum_scalar, "_MinimumScalar", minimum, GradMinimum,
              "Element-wise minimum of the array and a scalar.");
MXNET_SCALAR_(_hypot_scalar, "_HypotScalar", hypot, GradHypot,
              "Hypotenuse sqrt(x^2 + scalar^2) for each element.");
MXNET_SCALAR_(_equal_scalar, "_EqualScalar", eq, nullptr,
              "1 where an element equals the scalar, else 0 (in the input's dtype).");
MXNET_SCALAR_(_not_equal_scalar, "_NotEqualScalar", ne, nullptr,
              "1 where an element differs from the scalar, else 0.");
MXNET_SCALAR_(_greater_scalar, "_GreaterScalar", gt, nullptr,
              "1 where an element is greater than the scalar, else 0.");
MXNET_SCALAR_(_greater_equal_scalar, "_GreaterEqualScalar", ge, nullptr,
              "1 where an element is greater than or equal to the scalar, else 0.");
MXNET_SCALAR_(_lesser_scalar, "_LesserScalar", lt, nullptr,
              "1 where an element is less than the scalar, else 0.");
MXNET_SCALAR_(_lesser_equal_scalar, "_LesserEqualScalar", le, nullptr,
              "1 where an element is less than or equal to the scalar, else 0.");
MXNET_SCALAR_(_logical_and_scalar, "_LogicalAndScalar", logical_and, nullptr,
              "Logical AND of each element with the scalar (non-zero is true), as 1 or 0.");
MXNET_SCALAR_(_logical_or_scalar, "_LogicalOrScalar", logical_or, nullptr,
              "Logical OR of each element with the scalar (non-zero is true), as 1 or 0.");
MXNET_SCALAR_(_logical_xor_scalar, "_LogicalXorScalar", logical_xor, nullptr,
              "Logical XOR of each element with the scalar (non-zero is true), as 1 or 0.");

// Scatter forms (MXNet 1.9.1): a sparse input keeps its storage; only stored values change.
const bool reg_scatter_plus_ [[maybe_unused]] = RegisterScalar(
    "_scatter_plus_scalar", nullptr,
    "Adds a scalar to each element; of a row_sparse or csr input only the stored values (the "
    "output keeps the input's storage and positions).",
    ScalarCompute<mshadow_op::plus>, GradPass, SetScatterScalarAttrs);
const bool reg_scatter_minus_ [[maybe_unused]] = RegisterScalar(
    "_scatter_minus_scalar", nullptr,
    "Subtracts a scalar from each element; of a row_sparse or csr input only the stored values "
    "(the output keeps the input's storage and positions).",
    ScalarCompute<mshadow_op::minus>, GradPass, SetScatterScalarAttrs);

#undef MXNET_SCALAR_
#undef MXNET_RSCALAR_

}  // namespace
}  // namespace op
}  // namespace mxnet
