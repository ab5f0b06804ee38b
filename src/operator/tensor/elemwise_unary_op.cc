// Unary elementwise operators (exp, log, sin, sqrt, relu, floor, ..., _copy, BlockGrad,
// make_loss) with gradients built from other registered operators.
#include <cmath>
#include <type_traits>

#include "operator/tensor/elemwise_unary_functors.h"
#include "operator/tensor/elemwise_unary_kernel.h"
#include "operator/tensor/sparse_ops.h"
#include "operator/inplace_identity.h"

namespace mxnet {
namespace op {

bool NumericElemwiseType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  bool known = ElemwiseType(attrs, in, out);
  for (size_t i = 0; i < in->size(); ++i) {
    CHECK_NE((*in)[i], static_cast<int>(kBool))
        << "Operator " << attrs.op->name << ": argument " << InputName(attrs, i)
        << " expected a numeric dtype (float32, float64, float16, uint8, int8, int32, int64), "
        << "given bool";
  }
  return known;
}

namespace {

// ---------------------------------------------------------------- kernels
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define MXNET_UNARY_AVX2_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define MXNET_UNARY_AVX2_CLONES
#endif

enum FastFloatOp { kFastExp = 0, kFastSigmoid = 1, kFastTanh = 2 };

// The float32 exp-based kernels (exp, sigmoid, tanh), compiled for AVX2 as well and picked at load time. `omp simd`
// vectorizes them whatever the optimization level (elements are independent; in-place is fine).
MXNET_UNARY_AVX2_CLONES
void FastFloatChunk(int which, const float* x, float* y, index_t n, bool add) {
  if (which == kFastExp) {
    if (add) {
#pragma omp simd
      for (index_t i = 0; i < n; ++i) y[i] += unary_op::ExpF32(x[i]);
    } else {
#pragma omp simd
      for (index_t i = 0; i < n; ++i) y[i] = unary_op::ExpF32(x[i]);
    }
  } else if (which == kFastSigmoid) {
    if (add) {
#pragma omp simd
      for (index_t i = 0; i < n; ++i) y[i] += 1.0f / (1.0f + unary_op::ExpF32(-x[i]));
    } else {
#pragma omp simd
      for (index_t i = 0; i < n; ++i) y[i] = 1.0f / (1.0f + unary_op::ExpF32(-x[i]));
    }
  } else {
    if (add) {
#pragma omp simd
      for (index_t i = 0; i < n; ++i) y[i] += unary_op::TanhF32(x[i]);
    } else {
#pragma omp simd
      for (index_t i = 0; i < n; ++i) y[i] = unary_op::TanhF32(x[i]);
    }
  }
}

template <typename OP, typename DType>
void UnaryMap(const TBlob& in, const TBlob& out, OpReqType req) {
  const DType* x = in.dptr<DType>();
  DType* y = out.dptr<DType>();
  const index_t n = static_cast<index_t>(in.Size());
  constexpr bool kExp = std::is_same<OP, unary_op::exp>::value;
  constexpr bool kSigmoid = std::is_same<OP, unary_op::sigmoid>::value;
  constexpr bool kTanh = std::is_same<OP, unary_op::tanh>::value;
  if constexpr (std::is_same<DType, float>::value && (kExp || kSigmoid || kTanh)) {
    if (req == kNullOp || n <= 0) return;
    constexpr int which = kExp ? kFastExp : kSigmoid ? kFastSigmoid : kFastTanh;
    ParallelChunks(n, 16384, [&](index_t b, index_t e) {
      FastFloatChunk(which, x + b, y + b, e - b, req == kAddTo);
    });
  } else if constexpr (std::is_same<DType, half_t>::value) {
    MapLoop(x, y, n, req, [](half_t v) { return half_t(OP::Map(static_cast<float>(v))); });
  } else if constexpr (OP::kNative || std::is_floating_point<DType>::value) {
    MapLoop(x, y, n, req, [](DType v) { return OP::Map(v); });
  } else {
    using C = typename MathType<DType>::type;
    MapLoop(x, y, n, req,
            [](DType v) { return ConvertValue<DType>(OP::Map(static_cast<C>(v))); });
  }
}

template <typename OP, bool kWithBool>
void UnaryCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if constexpr (kWithBool) {
    MXNET_TYPE_SWITCH(out[0].type_flag_, DType, { UnaryMap<OP, DType>(in[0], out[0], req[0]); });
  } else {
    MXNET_NUMERIC_TYPE_SWITCH(out[0].type_flag_, DType,
                              { UnaryMap<OP, DType>(in[0], out[0], req[0]); });
  }
}

// ---------------------------------------------------------------- gradients
using GradFn = std::vector<NodeEntry> (*)(const ObjectPtr&, const std::vector<NodeEntry>&);

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

// d(in) for each op, from g (gradient of the output), x (input) and y (output).
#define MXNET_UNARY_GRAD_(name, expr)                                                \
  std::vector<NodeEntry> name(const ObjectPtr& n, const std::vector<NodeEntry>& og) { \
    const NodeEntry g = og[0], x = n->inputs[0], y = Out(n);                         \
    (void)g, (void)x, (void)y;                                                       \
    return {expr};                                                                   \
  }
MXNET_UNARY_GRAD_(GradIdentity, g)
MXNET_UNARY_GRAD_(GradOnes, U("ones_like", n, x))
MXNET_UNARY_GRAD_(GradAbs, Mul(n, g, U("sign", n, x)))
MXNET_UNARY_GRAD_(GradNegative, U("negative", n, g))
MXNET_UNARY_GRAD_(GradReciprocal, U("negative", n, Mul(n, g, U("square", n, y))))
MXNET_UNARY_GRAD_(GradSquare, Mul(n, g, S("_mul_scalar", n, x, 2)))
MXNET_UNARY_GRAD_(GradSqrt, Div(n, S("_mul_scalar", n, g, 0.5), y))
MXNET_UNARY_GRAD_(GradRsqrt, Mul(n, g, S("_mul_scalar", n, Mul(n, y, U("square", n, y)), -0.5)))
MXNET_UNARY_GRAD_(GradCbrt, Div(n, g, S("_mul_scalar", n, U("square", n, y), 3)))
MXNET_UNARY_GRAD_(GradRcbrt, Mul(n, g, S("_mul_scalar", n, U("square", n, U("square", n, y)),
                                         -1.0 / 3.0)))
MXNET_UNARY_GRAD_(GradExp, Mul(n, g, y))
MXNET_UNARY_GRAD_(GradExpm1, Mul(n, g, S("_plus_scalar", n, y, 1)))
MXNET_UNARY_GRAD_(GradLog, Div(n, g, x))
MXNET_UNARY_GRAD_(GradLog1p, Div(n, g, S("_plus_scalar", n, x, 1)))
MXNET_UNARY_GRAD_(GradLog2, Div(n, g, S("_mul_scalar", n, x, std::log(2.0))))
MXNET_UNARY_GRAD_(GradLog10, Div(n, g, S("_mul_scalar", n, x, std::log(10.0))))
MXNET_UNARY_GRAD_(GradSin, Mul(n, g, U("cos", n, x)))
MXNET_UNARY_GRAD_(GradCos, Mul(n, g, U("negative", n, U("sin", n, x))))
MXNET_UNARY_GRAD_(GradTan, Mul(n, g, S("_plus_scalar", n, U("square", n, y), 1)))
MXNET_UNARY_GRAD_(GradArcsin,
                  Div(n, g, U("sqrt", n, S("_rminus_scalar", n, U("square", n, x), 1))))
MXNET_UNARY_GRAD_(GradArccos, U("negative", n, Div(n, g, U("sqrt", n, S("_rminus_scalar", n,
                                                                         U("square", n, x), 1)))))
MXNET_UNARY_GRAD_(GradArctan, Div(n, g, S("_plus_scalar", n, U("square", n, x), 1)))
MXNET_UNARY_GRAD_(GradSinh, Mul(n, g, U("cosh", n, x)))
MXNET_UNARY_GRAD_(GradCosh, Mul(n, g, U("sinh", n, x)))
MXNET_UNARY_GRAD_(GradTanh, Mul(n, g, S("_rminus_scalar", n, U("square", n, y), 1)))
MXNET_UNARY_GRAD_(GradArcsinh,
                  Div(n, g, U("sqrt", n, S("_plus_scalar", n, U("square", n, x), 1))))
MXNET_UNARY_GRAD_(GradArccosh,
                  Div(n, g, U("sqrt", n, S("_minus_scalar", n, U("square", n, x), 1))))
MXNET_UNARY_GRAD_(GradArctanh, Div(n, g, S("_rminus_scalar", n, U("square", n, x), 1)))
// Constant slopes still refer to x, as MXNet's _backward_degrees/_backward_radians(ograd, x)
// do: autograd.grad of the gradient with respect to x then gives zeros, not "unreachable".
MXNET_UNARY_GRAD_(GradDegrees,
                  Mul(n, g, S("_mul_scalar", n, U("ones_like", n, x), 180.0 / unary_op::kPi)))
MXNET_UNARY_GRAD_(GradRadians,
                  Mul(n, g, S("_mul_scalar", n, U("ones_like", n, x), unary_op::kPi / 180.0)))
MXNET_UNARY_GRAD_(GradSigmoid, Mul(n, g, Mul(n, y, S("_rminus_scalar", n, y, 1))))
MXNET_UNARY_GRAD_(GradRelu, Mul(n, g, U("_relu_grad", n, y)))
MXNET_UNARY_GRAD_(GradSoftsign,
                  Div(n, g, U("square", n, S("_plus_scalar", n, U("abs", n, x), 1))))
MXNET_UNARY_GRAD_(GradErf, Mul(n, g, S("_mul_scalar", n,
                                       U("exp", n, U("negative", n, U("square", n, x))),
                                       2.0 / std::sqrt(unary_op::kPi))))
MXNET_UNARY_GRAD_(GradErfinv, Mul(n, g, S("_mul_scalar", n, U("exp", n, U("square", n, y)),
                                          std::sqrt(unary_op::kPi) / 2.0)))
MXNET_UNARY_GRAD_(GradGamma, Mul(n, g, Mul(n, y, U("_digamma", n, x))))
MXNET_UNARY_GRAD_(GradGammaln, Mul(n, g, U("_digamma", n, x)))
MXNET_UNARY_GRAD_(GradDigamma, Mul(n, g, U("_trigamma", n, x)))
#undef MXNET_UNARY_GRAD_

// ---------------------------------------------------------------- registration
std::vector<std::pair<int, int>> InplaceInOut(const NodeAttrs&) { return {{0, 0}}; }

/*! \brief Declare a unary op: grad nullptr marks it non-differentiable (no gradient flows,
 *  which autograd reports as zeros) unless no_grad_is_error; with_bool lets it take bool. */
nnvm::Op& RegisterUnary(const char* name, const char* doc, FCompute fcompute, bool with_bool,
                        GradFn grad, bool no_grad_is_error = false) {
  nnvm::Op& reg = nnvm::Op::Register(name);
  reg.describe(doc)
      .set_num_inputs(1)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "The input array.")
      .set_attr<FInferShape>("FInferShape", ElemwiseShape)
      .set_attr<FInferType>("FInferType", with_bool ? ElemwiseType : NumericElemwiseType)
      .set_attr<FInplaceOption>("FInplaceOption", InplaceInOut)
      .set_attr<FCompute>("FCompute<cpu>", fcompute);
  SetZeroPreservingAttrs(reg);
  if (grad != nullptr) {
    reg.set_attr<FGradient>("FGradient", grad);
  } else if (!no_grad_is_error) {
    reg.set_attr<TIsNonDifferentiable>("TIsNonDifferentiable", true);
  }
  return reg;
}

#define MXNET_UNARY_(name, functor, grad, doc)                                              \
  const bool reg_unary_##name##_ [[maybe_unused]] =                                        \
      (RegisterUnary(#name, doc, UnaryCompute<unary_op::functor, false>, false, grad), true)
#define MXNET_UNARY_ANY_(name, functor, grad, doc)                                          \
  const bool reg_unary_##name##_ [[maybe_unused]] =                                        \
      (RegisterUnary(#name, doc, UnaryCompute<unary_op::functor, true>, true, grad), true)

// Identity-like operators (every dtype, bool included).
const bool reg_unary__copy_ [[maybe_unused]] =
    (RegisterUnary("_copy", "Returns a copy of the input.",
                   UnaryCompute<unary_op::identity, true>, true, GradIdentity)
         .add_alias("identity")
         .set_attr<FInplaceIdentity>("FInplaceIdentity", InplaceIdentityFirst),
     true);
const bool reg_unary_BlockGrad_ [[maybe_unused]] =
    (RegisterUnary("BlockGrad",
                   "Stops gradient computation: the output equals the input, and no gradient "
                   "flows back to the input (its gradient is zero).",
                   UnaryCompute<unary_op::identity, true>, true, nullptr)
         .add_alias("stop_gradient")
         .add_alias("_sparse_stop_gradient")
         .set_attr<FInplaceIdentity>("FInplaceIdentity", InplaceIdentityFirst),
     true);
const bool reg_unary_make_loss_ [[maybe_unused]] =
    (RegisterUnary("make_loss",
                   "Marks the input as a loss: the output equals the input, and its gradient "
                   "is one for every element, whatever the head gradient.",
                   UnaryCompute<unary_op::identity, true>, true, GradOnes)
         .add_alias("_sparse_make_loss")
         .set_attr<FInplaceIdentity>("FInplaceIdentity", InplaceIdentityFirst)
         .set_attr<FListOutputNames>("FListOutputNames", InputNames({"loss"})),
     true);
// lhs unchanged, with its shape and dtype tied to rhs's: a hint for backward shape inference
// in symbolic graphs (rhs itself gets no gradient).
const bool reg_identity_with_attr_like_rhs_ [[maybe_unused]] =
    (nnvm::Op::Register("_identity_with_attr_like_rhs")
         .describe("Returns lhs unchanged; its shape and dtype must equal rhs's.")
         .set_num_inputs(2)
         .set_num_outputs(1)
         .add_argument("lhs", "NDArray-or-Symbol", "First input.")
         .add_argument("rhs", "NDArray-or-Symbol", "Input whose shape and dtype lhs takes.")
         .set_attr<FListInputNames>("FListInputNames", InputNames({"lhs", "rhs"}))
         .set_attr<FInferShape>("FInferShape", ElemwiseShape)
         .set_attr<FInferType>("FInferType", ElemwiseType)
         .set_attr<FInplaceOption>("FInplaceOption", InplaceInOut)
         .set_attr<FInplaceIdentity>("FInplaceIdentity", InplaceIdentityFirst)
         .set_attr<FCompute>("FCompute<cpu>", UnaryCompute<unary_op::identity, true>)
         .set_attr<FGradient>("FGradient",
                              [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
                                return std::vector<NodeEntry>{
                                    og[0], U("zeros_like", n, n->inputs[1])};
                              }),
     true);
MXNET_UNARY_ANY_(logical_not, logical_not, nullptr,
                 "Returns the result of logical NOT (!) on the input, element-wise: 1 where "
                 "the input is zero, 0 elsewhere, in the input's dtype.");

// Sign, rounding and arithmetic.
MXNET_UNARY_(abs, abs, GradAbs, "Returns element-wise absolute value of the input.");
MXNET_UNARY_(sign, sign, nullptr,
             "Returns element-wise sign of the input: -1, 0 or 1 (0 for NaN).");
MXNET_UNARY_(negative, negative, GradNegative, "Numerical negative of the argument, element-wise.");
MXNET_UNARY_(reciprocal, reciprocal, GradReciprocal,
             "Returns the reciprocal 1/x of the argument, element-wise.");
MXNET_UNARY_(square, square, GradSquare, "Returns element-wise squared value of the input.");
MXNET_UNARY_(sqrt, sqrt, GradSqrt, "Returns element-wise square-root value of the input.");
MXNET_UNARY_(rsqrt, rsqrt, GradRsqrt,
             "Returns element-wise inverse square-root value of the input, 1/sqrt(x).");
MXNET_UNARY_(cbrt, cbrt, GradCbrt, "Returns element-wise cube-root value of the input.");
MXNET_UNARY_(rcbrt, rcbrt, GradRcbrt,
             "Returns element-wise inverse cube-root value of the input, 1/cbrt(x).");
MXNET_UNARY_(floor, floor, nullptr,
             "Returns element-wise floor of the input: the largest integer not above x.");
MXNET_UNARY_(ceil, ceil, nullptr,
             "Returns element-wise ceiling of the input: the smallest integer not below x.");
MXNET_UNARY_(round, round, nullptr,
             "Returns element-wise rounded value to the nearest integer of the input; halves "
             "round away from zero.");
// Straight-through estimators: the rounding of round / sign forward, the head gradient
// passed back unchanged.
MXNET_UNARY_(_contrib_round_ste, round, GradIdentity,
             "Straight-through-estimator of `round()`: the output is round(x) (halves away from "
             "zero) and the gradient passes through unchanged, as if the op were identity.");
MXNET_UNARY_(_contrib_sign_ste, sign, GradIdentity,
             "Straight-through-estimator of `sign()`: the output is sign(x) and the gradient "
             "passes through unchanged, as if the op were identity.");
MXNET_UNARY_(rint, rint, nullptr,
             "Returns element-wise rounded value to the nearest integer of the input; halves "
             "round to the even integer.");
MXNET_UNARY_(fix, fix, nullptr,
             "Returns element-wise rounded value to the nearest integer towards zero.");
MXNET_UNARY_(trunc, trunc, nullptr,
             "Returns element-wise truncated value of the input (its integer part).");

// Exponentials and logarithms.
MXNET_UNARY_(exp, exp, GradExp, "Returns element-wise exponential value of the input.");
MXNET_UNARY_(expm1, expm1, GradExpm1,
             "Returns exp(x) - 1 computed element-wise, accurate for small x.");
MXNET_UNARY_(log, log, GradLog, "Returns element-wise natural logarithm of the input.");
MXNET_UNARY_(log1p, log1p, GradLog1p,
             "Returns element-wise log(1 + x), accurate for small x.");
MXNET_UNARY_(log2, log2, GradLog2, "Returns element-wise base-2 logarithm of the input.");
MXNET_UNARY_(log10, log10, GradLog10, "Returns element-wise base-10 logarithm of the input.");

// Trigonometric and hyperbolic functions.
MXNET_UNARY_(sin, sin, GradSin, "Computes the element-wise sine of the input (radians).");
MXNET_UNARY_(cos, cos, GradCos, "Computes the element-wise cosine of the input (radians).");
MXNET_UNARY_(tan, tan, GradTan, "Computes the element-wise tangent of the input (radians).");
MXNET_UNARY_(arcsin, arcsin, GradArcsin,
             "Returns element-wise inverse sine of the input, in [-pi/2, pi/2].");
MXNET_UNARY_(arccos, arccos, GradArccos,
             "Returns element-wise inverse cosine of the input, in [0, pi].");
MXNET_UNARY_(arctan, arctan, GradArctan,
             "Returns element-wise inverse tangent of the input, in [-pi/2, pi/2].");
MXNET_UNARY_(degrees, degrees, GradDegrees, "Converts each element from radians to degrees.");
MXNET_UNARY_(radians, radians, GradRadians, "Converts each element from degrees to radians.");
MXNET_UNARY_(sinh, sinh, GradSinh, "Returns the hyperbolic sine of the input, element-wise.");
MXNET_UNARY_(cosh, cosh, GradCosh, "Returns the hyperbolic cosine of the input, element-wise.");
MXNET_UNARY_(tanh, tanh, GradTanh, "Returns the hyperbolic tangent of the input, element-wise.");
MXNET_UNARY_(arcsinh, arcsinh, GradArcsinh,
             "Returns the element-wise inverse hyperbolic sine of the input.");
MXNET_UNARY_(arccosh, arccosh, GradArccosh,
             "Returns the element-wise inverse hyperbolic cosine of the input.");
MXNET_UNARY_(arctanh, arctanh, GradArctanh,
             "Returns the element-wise inverse hyperbolic tangent of the input.");

// Activations.
MXNET_UNARY_(sigmoid, sigmoid, GradSigmoid,
             "Computes sigmoid of x element-wise: 1 / (1 + exp(-x)).");
MXNET_UNARY_(relu, relu, GradRelu,
             "Computes rectified linear activation element-wise: max(x, 0).");
MXNET_UNARY_(_relu_grad, relu_grad, nullptr,
             "Internal: relu's slope at its output y (1 where y > 0, 0 where y is 0, NaN where "
             "y is NaN); relu's gradient is the head gradient times it.");
MXNET_UNARY_(softsign, softsign, GradSoftsign,
             "Computes softsign of x element-wise: x / (1 + abs(x)).");

// Special functions.
MXNET_UNARY_(erf, erf, GradErf, "Returns element-wise gauss error function of the input.");
MXNET_UNARY_(erfinv, erfinv, GradErfinv,
             "Returns element-wise inverse gauss error function of the input.");
MXNET_UNARY_(gamma, gamma, GradGamma, "Returns the gamma function of the input, element-wise.");
MXNET_UNARY_(gammaln, gammaln, GradGammaln,
             "Returns element-wise log of the absolute value of the gamma function of the "
             "input.");
MXNET_UNARY_(_digamma, digamma, GradDigamma,
             "Digamma function psi(x), the derivative of gammaln (used by the gradients of "
             "gamma and gammaln).");
// Differentiating _trigamma raises (no FGradient and not marked non-differentiable).
const bool reg_unary__trigamma_ [[maybe_unused]] = (RegisterUnary(
    "_trigamma", "Trigamma function, the derivative of digamma (has no gradient itself).",
    UnaryCompute<unary_op::trigamma, false>, false, nullptr, true), true);

#undef MXNET_UNARY_
#undef MXNET_UNARY_ANY_


}  // namespace
}  // namespace op
}  // namespace mxnet
