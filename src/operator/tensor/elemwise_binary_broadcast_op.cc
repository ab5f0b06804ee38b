// Binary arithmetic, comparison and logical operators: broadcast_*, elemwise_* and the
// broadcast_to/like/axis family, with gradients built from other registered operators.
#include "operator/inplace_identity.h"
#include "operator/nn/onednn/onednn_layout.h"
#include "operator/tensor/broadcast_kernel.h"
#include "operator/tensor/elemwise_functors.h"
#include "operator/tensor/sparse_ops.h"
#include "operator/tensor/strided_copy.h"

namespace mxnet {
namespace op {
namespace {

template <typename Op>
void BinaryBroadcastCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                            const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  BroadcastPlan plan(in[0].shape_, in[1].shape_, out[0].shape_);
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    BroadcastBinary<Op>(plan, in[0].dptr<DType>(), in[1].dptr<DType>(), out[0].dptr<DType>(),
                        req[0], out[0].Size());
  });
}

bool SameShapeBinary(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  return ElemwiseShape(attrs, in, out);
}

// d(out)/d(input) summed back to the input's shape.
NodeEntry ReduceTo(const ObjectPtr& n, NodeEntry grad, uint32_t input) {
  return MakeNode("_reduce_to_like", n->attrs.name + "_backward", {grad, n->inputs[input]});
}

NodeEntry Mul(const ObjectPtr& n, NodeEntry a, NodeEntry b) {
  return MakeNode("broadcast_mul", n->attrs.name + "_backward", {a, b});
}

NodeEntry Div(const ObjectPtr& n, NodeEntry a, NodeEntry b) {
  return MakeNode("broadcast_div", n->attrs.name + "_backward", {a, b});
}

NodeEntry Unary(const char* op, const ObjectPtr& n, NodeEntry a) {
  return MakeNode(op, n->attrs.name + "_backward", {a});
}

using GradFn = std::vector<NodeEntry> (*)(const ObjectPtr&, const std::vector<NodeEntry>&);

std::vector<NodeEntry> AddGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  return {ReduceTo(n, og[0], 0), ReduceTo(n, og[0], 1)};
}
// elemwise_add's gradient: og for both inputs, whose shapes equal the output's. The node is an
// identity of og (FInplaceIdentity), so a graph run hands og on instead of copying it.
std::vector<NodeEntry> ElemwiseAddGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  NodeEntry g = MakeNode("_backward_add", GradName(n), {og[0]});
  return {g, NodeEntry(g.node, 1, 0)};
}

void BackwardAddCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  for (size_t i = 0; i < out.size(); ++i) {
    // an output sharing the input's memory (FInplaceIdentity) already holds it
    if (req[i] == kNullOp || (req[i] != kAddTo && out[i].dptr_ == in[0].dptr_)) continue;
    CopyElements(out[i].type_flag_, in[0].dptr_, out[i].dptr_, out[i].Size(), req[i]);
  }
}

std::vector<NodeEntry> SubGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  return {ReduceTo(n, og[0], 0), ReduceTo(n, Unary("negative", n, og[0]), 1)};
}
std::vector<NodeEntry> MulGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  return {ReduceTo(n, Mul(n, og[0], n->inputs[1]), 0), ReduceTo(n, Mul(n, og[0], n->inputs[0]), 1)};
}
std::vector<NodeEntry> DivGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  // d/da = og / b ; d/db = -og * a / b^2 = -(og / b) * out
  NodeEntry og_b = Div(n, og[0], n->inputs[1]);
  return {ReduceTo(n, og_b, 0), ReduceTo(n, Unary("negative", n, Mul(n, og_b, Out(n))), 1)};
}
std::vector<NodeEntry> ModGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  // d/da = og ; d/db = -og * floor(a / b); both 0 for integer dtypes, as MXNet defines them.
  NodeEntry g = Unary("_zero_if_integer", n, og[0]);
  NodeEntry q = Unary("floor", n, Div(n, n->inputs[0], n->inputs[1]));
  return {ReduceTo(n, g, 0), ReduceTo(n, Unary("negative", n, Mul(n, g, q)), 1)};
}

// _zero_if_integer: the input for floating-point dtypes, zeros for integer ones.
void ZeroIfIntegerCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                          const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const int dtype = out[0].type_flag_;
  if (IsFloatDType(dtype)) {
    CopyElements(dtype, in[0].dptr_, out[0].dptr_, out[0].Size(), req[0]);
  } else if (req[0] != kAddTo) {
    FillElements(dtype, 0, out[0].dptr_, out[0].Size(), kWriteTo);
  }
}
std::vector<NodeEntry> PowerGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  // d/da = og * b * a^(b-1) = og * b * out / a ; d/db = og * out * log(a)
  NodeEntry a = n->inputs[0], b = n->inputs[1];
  NodeEntry a_pow = MakeNode("broadcast_power", n->attrs.name + "_backward",
                             {a, MakeNode("_minus_scalar", n->attrs.name + "_backward", {b},
                                          {{"scalar", "1"}})});
  NodeEntry da = Mul(n, og[0], Mul(n, b, a_pow));
  NodeEntry db = Mul(n, og[0], Mul(n, Out(n), Unary("log", n, a)));
  return {ReduceTo(n, da, 0), ReduceTo(n, db, 1)};
}
template <bool kMax>
std::vector<NodeEntry> MaxMinGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  NodeEntry a = n->inputs[0], b = n->inputs[1];
  NodeEntry pick_a = MakeNode(kMax ? "broadcast_greater_equal" : "broadcast_lesser_equal",
                              n->attrs.name + "_backward", {a, b});
  NodeEntry pick_b = MakeNode(kMax ? "broadcast_lesser" : "broadcast_greater",
                              n->attrs.name + "_backward", {a, b});
  return {ReduceTo(n, Mul(n, og[0], pick_a), 0), ReduceTo(n, Mul(n, og[0], pick_b), 1)};
}
std::vector<NodeEntry> HypotGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  NodeEntry og_out = Div(n, og[0], Out(n));
  return {ReduceTo(n, Mul(n, og_out, n->inputs[0]), 0), ReduceTo(n, Mul(n, og_out, n->inputs[1]), 1)};
}

// MXNet 1.9.1 (like NumPy) has no boolean subtraction: elemwise_sub and broadcast_sub fail on
// bool arrays. Checked at type inference, so the error is raised at the call.
bool NoBoolElemwiseType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  for (size_t i = 0; i < in->size(); ++i) {
    if ((*in)[i] != kBool) continue;
    LOG(FATAL) << "Operator " << attrs.op->name << " does not support boolean type: input " << i
               << " is bool (cast it with astype first)";
  }
  return ElemwiseType(attrs, in, out);
}

template <typename Op>
nnvm::Op& RegisterBinary(nnvm::Op& reg, const char* doc, GradFn grad, bool broadcast,
                         std::initializer_list<const char*> aliases = {}) {
  for (const char* a : aliases) reg.add_alias(a);
  constexpr bool kIsSub = std::is_same<Op, struct mshadow_op::minus>::value;
  reg.describe(doc)
      .set_num_inputs(2)
      .set_num_outputs(1)
      .add_argument("lhs", "NDArray-or-Symbol", "First input to the function")
      .add_argument("rhs", "NDArray-or-Symbol", "Second input to the function")
      .set_attr<FListInputNames>("FListInputNames", InputNames({"lhs", "rhs"}))
      .set_attr<FInferShape>("FInferShape", broadcast ? BinaryBroadcastShape : SameShapeBinary)
      .set_attr<FInferType>("FInferType", kIsSub ? NoBoolElemwiseType : ElemwiseType)
      .set_attr<FInplaceOption>("FInplaceOption",
                                [](const NodeAttrs&) { return std::vector<std::pair<int, int>>{{0, 0}, {1, 0}}; });
  FCompute fcompute = BinaryBroadcastCompute<Op>;
  reg.set_attr<FCompute>("FCompute<cpu>", fcompute);
  if (!broadcast) {
    reg.set_attr<onednn::FBlockedLayout>("FBlockedLayout", onednn::ElementwiseLayoutGroups);
  }
  if (!broadcast && kIsSub) SetSparseElemwiseAttrs(reg, SparseBinaryKind::kSub);
  if (!broadcast && std::is_same<Op, struct mshadow_op::plus>::value) {
    SetSparseElemwiseAttrs(reg, SparseBinaryKind::kAdd);
  }
  if (!broadcast && std::is_same<Op, struct mshadow_op::mul>::value) {
    SetSparseElemwiseAttrs(reg, SparseBinaryKind::kMul);
  }
  if (!broadcast && (std::is_same<Op, struct mshadow_op::maximum>::value ||
                     std::is_same<Op, struct mshadow_op::minimum>::value ||
                     std::is_same<Op, struct mshadow_op::hypot>::value)) {
    SetRowUnionAttrs(reg);
  }
  if (grad != nullptr) {
    reg.set_attr<FGradient>("FGradient", grad);
  } else {
    reg.set_attr<TIsNonDifferentiable>("TIsNonDifferentiable", true);
  }
  return reg;
}

#define MXNET_REGISTER_BINARY_(name, functor, grad, broadcast, doc, ...)                 \
  static bool __reg_##name [[maybe_unused]] = (RegisterBinary<mshadow_op::functor>(      \
      ::nnvm::Op::Register(#name), doc, grad, broadcast, {__VA_ARGS__}), true)

static bool __reg__backward_add [[maybe_unused]] =
    (::nnvm::Op::Register("_backward_add")
         .describe("The gradient of elemwise_add: the output gradient, once for each input.")
         .set_num_inputs(1)
         .set_num_outputs(2)
         .add_argument("ograd", "NDArray-or-Symbol", "The output gradient")
         .set_attr<FInferShape>("FInferShape", ElemwiseShape)
         .set_attr<FInferType>("FInferType", ElemwiseType)
         .set_attr<FInplaceOption>("FInplaceOption",
                                   [](const NodeAttrs&) {
                                     return std::vector<std::pair<int, int>>{{0, 0}, {0, 1}};
                                   })
         .set_attr<FInplaceIdentity>("FInplaceIdentity",
                                     [](const NodeAttrs&) { return std::vector<bool>{true, true}; })
         .set_attr<onednn::FBlockedLayout>("FBlockedLayout", onednn::ElementwiseLayoutGroups)
         .set_attr<FCompute>("FCompute<cpu>", BackwardAddCompute),
     true);

// Same-shape forms (MXNet's elemwise_*; also reached as _plus, _minus, ...).
MXNET_REGISTER_BINARY_(elemwise_add, plus, ElemwiseAddGrad, false, "Adds arguments element-wise.",
                       "_plus", "_add", "_Plus");
MXNET_REGISTER_BINARY_(elemwise_sub, minus, SubGrad, false, "Subtracts arguments element-wise.",
                       "_minus", "_sub", "_Minus");
MXNET_REGISTER_BINARY_(elemwise_mul, mul, MulGrad, false, "Multiplies arguments element-wise.",
                       "_mul", "_Mul");
MXNET_REGISTER_BINARY_(elemwise_div, div, DivGrad, false, "Divides arguments element-wise.",
                       "_div", "_Div");
// With a row_sparse lhs only lhs's stored rows are divided (MXNet 1.9.1's scatter form).
static bool __reg__scatter_elemwise_div [[maybe_unused]] = (SetScatterDivAttrs(
    RegisterBinary<mshadow_op::div>(::nnvm::Op::Register("_scatter_elemwise_div"),
                                    "Divides arguments element-wise. If lhs is row_sparse, only "
                                    "its stored rows are computed: the output is row_sparse with "
                                    "lhs's rows; otherwise it is elemwise_div.",
                                    DivGrad, false)), true);

// Broadcasting forms.
MXNET_REGISTER_BINARY_(broadcast_add, plus, AddGrad, true,
                       "Returns element-wise sum of the input arrays with broadcasting.",
                       "broadcast_plus");
MXNET_REGISTER_BINARY_(broadcast_sub, minus, SubGrad, true,
                       "Returns element-wise difference of the input arrays with broadcasting.",
                       "broadcast_minus");
MXNET_REGISTER_BINARY_(broadcast_mul, mul, MulGrad, true,
                       "Returns element-wise product of the input arrays with broadcasting.");
MXNET_REGISTER_BINARY_(broadcast_div, div, DivGrad, true,
                       "Returns element-wise division of the input arrays with broadcasting.");
MXNET_REGISTER_BINARY_(broadcast_mod, mod, ModGrad, true,
                       "Returns element-wise modulo of the input arrays with broadcasting.");
MXNET_REGISTER_BINARY_(broadcast_power, power, PowerGrad, true,
                       "Returns result of first array elements raised to powers from second "
                       "array, element-wise with broadcasting.");
MXNET_REGISTER_BINARY_(broadcast_maximum, maximum, MaxMinGrad<true>, true,
                       "Returns element-wise maximum of the input arrays with broadcasting.");
MXNET_REGISTER_BINARY_(broadcast_minimum, minimum, MaxMinGrad<false>, true,
                       "Returns element-wise minimum of the input arrays with broadcasting.");
MXNET_REGISTER_BINARY_(broadcast_hypot, hypot, HypotGrad, true,
                       "Returns the hypotenuse of a right angled triangle, given its legs, "
                       "element-wise with broadcasting.");
MXNET_REGISTER_BINARY_(broadcast_equal, eq, nullptr, true,
                       "Returns the result of element-wise equal to (==) comparison operation "
                       "with broadcasting.");
MXNET_REGISTER_BINARY_(broadcast_not_equal, ne, nullptr, true,
                       "Returns the result of element-wise not equal to (!=) comparison "
                       "operation with broadcasting.");
MXNET_REGISTER_BINARY_(broadcast_greater, gt, nullptr, true,
                       "Returns the result of element-wise greater than (>) comparison "
                       "operation with broadcasting.");
MXNET_REGISTER_BINARY_(broadcast_greater_equal, ge, nullptr, true,
                       "Returns the result of element-wise greater than or equal to (>=) "
                       "comparison operation with broadcasting.");
MXNET_REGISTER_BINARY_(broadcast_lesser, lt, nullptr, true,
                       "Returns the result of element-wise lesser than (<) comparison "
                       "operation with broadcasting.");
MXNET_REGISTER_BINARY_(broadcast_lesser_equal, le, nullptr, true,
                       "Returns the result of element-wise lesser than or equal to (<=) "
                       "comparison operation with broadcasting.");
MXNET_REGISTER_BINARY_(broadcast_logical_and, logical_and, nullptr, true,
                       "Returns the result of element-wise logical and with broadcasting.");
MXNET_REGISTER_BINARY_(broadcast_logical_or, logical_or, nullptr, true,
                       "Returns the result of element-wise logical or with broadcasting.");
MXNET_REGISTER_BINARY_(broadcast_logical_xor, logical_xor, nullptr, true,
                       "Returns the result of element-wise logical xor with broadcasting.");

// Same-shape forms of the rest, as MXNet 1.9's symbol operators (a % b, a ** b, a == b, ...)
// create them; mx.sym.maximum / minimum / hypot too.
MXNET_REGISTER_BINARY_(_mod, mod, ModGrad, false, "Modulo of same-shape arrays.", "_Mod");
MXNET_REGISTER_BINARY_(_power, power, PowerGrad, false, "Power of same-shape arrays.", "_Power");
MXNET_REGISTER_BINARY_(_maximum, maximum, MaxMinGrad<true>, false,
                       "Element-wise maximum of same-shape arrays.", "_Maximum");
MXNET_REGISTER_BINARY_(_minimum, minimum, MaxMinGrad<false>, false,
                       "Element-wise minimum of same-shape arrays.", "_Minimum");
MXNET_REGISTER_BINARY_(_hypot, hypot, HypotGrad, false,
                       "Hypotenuse of same-shape legs, element-wise.", "_Hypot");
MXNET_REGISTER_BINARY_(_equal, eq, nullptr, false, "a == b of same-shape arrays (1 or 0).",
                       "_Equal");
MXNET_REGISTER_BINARY_(_not_equal, ne, nullptr, false, "a != b of same-shape arrays (1 or 0).",
                       "_Not_Equal");
MXNET_REGISTER_BINARY_(_greater, gt, nullptr, false, "a > b of same-shape arrays (1 or 0).",
                       "_Greater");
MXNET_REGISTER_BINARY_(_greater_equal, ge, nullptr, false,
                       "a >= b of same-shape arrays (1 or 0).", "_Greater_Equal");
MXNET_REGISTER_BINARY_(_lesser, lt, nullptr, false, "a < b of same-shape arrays (1 or 0).",
                       "_Lesser");
MXNET_REGISTER_BINARY_(_lesser_equal, le, nullptr, false,
                       "a <= b of same-shape arrays (1 or 0).", "_Lesser_Equal");
MXNET_REGISTER_BINARY_(_logical_and, logical_and, nullptr, false,
                       "Logical and of same-shape arrays (1 or 0).", "_Logical_And");
MXNET_REGISTER_BINARY_(_logical_or, logical_or, nullptr, false,
                       "Logical or of same-shape arrays (1 or 0).", "_Logical_Or");
MXNET_REGISTER_BINARY_(_logical_xor, logical_xor, nullptr, false,
                       "Logical xor of same-shape arrays (1 or 0).", "_Logical_Xor");

NNVM_REGISTER_OP(_zero_if_integer)
    .describe("Internal: the input for floating-point dtypes, zeros for integer ones (the "
              "gradient of mod, which is 0 for integers).")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The gradient")
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FInplaceOption>("FInplaceOption",
                              [](const NodeAttrs&) { return std::vector<std::pair<int, int>>{{0, 0}}; })
    .set_attr<FCompute>("FCompute<cpu>", ZeroIfIntegerCompute)
    .set_attr<FGradient>("FGradient", [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
      return std::vector<NodeEntry>{Unary("_zero_if_integer", n, og[0])};
    });



}  // namespace
}  // namespace op
}  // namespace mxnet
