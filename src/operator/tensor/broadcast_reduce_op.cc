// Broadcasting to a shape (broadcast_to, broadcast_like, broadcast_axis) and its adjoint
// _reduce_to_like, which sums a broadcast result back to the shape it was broadcast from.
#include <dmlc/parameter.h>

#include "operator/nn/onednn/onednn_layout.h"
#include "operator/tensor/broadcast_kernel.h"
#include "operator/tensor/reduce_kernel.h"

namespace mxnet {
namespace op {
namespace {

struct BroadcastToParam : public dmlc::Parameter<BroadcastToParam> {
  IntTuple shape;
  DMLC_DECLARE_PARAMETER(BroadcastToParam) {
    DMLC_DECLARE_FIELD(shape).set_default(IntTuple()).describe(
        "The target shape. A 0 keeps the input's extent on that axis, e.g. (10, 0, 0) "
        "broadcasts axis 0 of a (1, 3, 4) array to 10. The input is aligned to the right, and "
        "missing leading axes count as size 1.");
  }
};

struct BroadcastAxesParam : public dmlc::Parameter<BroadcastAxesParam> {
  IntTuple axis;
  IntTuple size;
  DMLC_DECLARE_PARAMETER(BroadcastAxesParam) {
    DMLC_DECLARE_FIELD(axis).set_default(IntTuple()).describe(
        "The axes to broadcast (each of size 1 in the input); negative counts from the end.");
    DMLC_DECLARE_FIELD(size).set_default(IntTuple()).describe(
        "The target size of each axis in axis.");
  }
};

struct BroadcastLikeParam : public dmlc::Parameter<BroadcastLikeParam> {
  dmlc::optional<IntTuple> lhs_axes;
  dmlc::optional<IntTuple> rhs_axes;
  DMLC_DECLARE_PARAMETER(BroadcastLikeParam) {
    DMLC_DECLARE_FIELD(lhs_axes).set_default(dmlc::optional<IntTuple>()).describe(
        "Axes of lhs to broadcast; None broadcasts lhs to the whole shape of rhs.");
    DMLC_DECLARE_FIELD(rhs_axes).set_default(dmlc::optional<IntTuple>()).describe(
        "Axes of rhs whose extents lhs_axes take, pairwise.");
  }
};

DMLC_REGISTER_PARAMETER(BroadcastToParam);
DMLC_REGISTER_PARAMETER(BroadcastAxesParam);
DMLC_REGISTER_PARAMETER(BroadcastLikeParam);

struct FirstArg {
  template <typename T> static T Map(T a, T) { return a; }
};

[[noreturn]] void CannotBroadcast(const NodeAttrs& attrs, const char* arg, const TShape& from,
                                  const TShape& to) {
  LOG(FATAL) << "Operator " << attrs.op->name << ": argument " << arg << " has shape " << from
             << ", which cannot be broadcast to " << to
             << " (each axis must match or be 1 in the input)";
  throw;  // unreachable
}

/*! \brief The broadcast of s to target t (right-aligned; t[i] == 0 keeps s's extent). */
TShape BroadcastTarget(const NodeAttrs& attrs, const char* arg, const TShape& s, const TShape& t) {
  if (t.ndim() < s.ndim()) CannotBroadcast(attrs, arg, s, t);
  TShape o(t.ndim(), 1);
  const int lead = t.ndim() - s.ndim();
  for (int i = 0; i < t.ndim(); ++i) {
    const dim_t si = i >= lead ? s[i - lead] : 1;
    if (t[i] < 0) CannotBroadcast(attrs, arg, s, t);
    o[i] = t[i] == 0 ? si : t[i];
    if (si != o[i] && si != 1) CannotBroadcast(attrs, arg, s, t);
  }
  return o;
}

void BroadcastForward(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  BroadcastPlan plan(in[0].shape_, in[0].shape_, out[0].shape_);
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    BroadcastBinary<FirstArg>(plan, in[0].dptr<DType>(), in[0].dptr<DType>(),
                              out[0].dptr<DType>(), req[0], static_cast<index_t>(out[0].Size()));
  });
}

// ---------------------------------------------------------------- shape rules
bool BroadcastToShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& s = (*in)[0];
  if (!s.IsKnown()) return false;
  TShape t = Param<BroadcastToParam>(attrs).shape.ToShape();
  AssignShape(attrs, "output", &(*out)[0], BroadcastTarget(attrs, "data", s, t));
  return true;
}

bool BroadcastAxisShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& s = (*in)[0];
  if (!s.IsKnown()) return false;
  const auto& p = Param<BroadcastAxesParam>(attrs);
  if (p.axis.ndim() != p.size.ndim()) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": argument size is " << p.size
               << ", expected one size per axis in axis " << p.axis;
  }
  TShape o = s;
  const int nd = s.ndim();
  for (int i = 0; i < p.axis.ndim(); ++i) {
    int64_t a = p.axis[i];
    if (a < -nd || a >= nd) {
      LOG(FATAL) << "Operator " << attrs.op->name << ": argument axis is " << p.axis
                 << ", expected axes in [" << -nd << ", " << nd << ") for an input of shape " << s;
    }
    if (a < 0) a += nd;
    if (s[a] != 1) {
      LOG(FATAL) << "Operator " << attrs.op->name << ": argument data has shape " << s
                 << ", expected size 1 on broadcast axis " << a;
    }
    if (p.size[i] < 0) {
      LOG(FATAL) << "Operator " << attrs.op->name << ": argument size is " << p.size
                 << ", expected non-negative sizes";
    }
    o[a] = p.size[i];
  }
  AssignShape(attrs, "output", &(*out)[0], o);
  return true;
}

bool BroadcastLikeShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& l = (*in)[0];
  const TShape& r = (*in)[1];
  if (!l.IsKnown() || !r.IsKnown()) return false;
  const auto& p = Param<BroadcastLikeParam>(attrs);
  if (!p.lhs_axes.has_value() || !p.rhs_axes.has_value()) {
    AssignShape(attrs, "output", &(*out)[0], BroadcastTarget(attrs, "lhs", l, r));
    return true;
  }
  const IntTuple& la = p.lhs_axes.value();
  const IntTuple& ra = p.rhs_axes.value();
  if (la.ndim() != ra.ndim()) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": arguments lhs_axes " << la << " and rhs_axes "
               << ra << " must have the same length";
  }
  if (la.ndim() == 0) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": arguments lhs_axes and rhs_axes expected "
               << "at least one axis each (or both None), given empty tuples";
  }
  TShape o = l;
  for (int i = 0; i < la.ndim(); ++i) {
    int64_t a = la[i], b = ra[i];
    if (a < -l.ndim() || a >= l.ndim()) {
      LOG(FATAL) << "Operator " << attrs.op->name << ": argument lhs_axes is " << la
                 << ", expected axes in [" << -l.ndim() << ", " << l.ndim() << ") for lhs of shape "
                 << l;
    }
    if (b < -r.ndim() || b >= r.ndim()) {
      LOG(FATAL) << "Operator " << attrs.op->name << ": argument rhs_axes is " << ra
                 << ", expected axes in [" << -r.ndim() << ", " << r.ndim() << ") for rhs of shape "
                 << r;
    }
    if (a < 0) a += l.ndim();
    if (b < 0) b += r.ndim();
    if (l[a] != 1 && l[a] != r[b]) {
      LOG(FATAL) << "Operator " << attrs.op->name << ": axis " << a << " of lhs (shape " << l
                 << ") has size " << l[a] << ", expected 1 to broadcast it to " << r[b];
    }
    o[a] = r[b];
  }
  AssignShape(attrs, "output", &(*out)[0], o);
  return true;
}


// ---------------------------------------------------------------- _reduce_to_like
/*! \brief Axes of data summed away to reach like's shape (leading extra axes, and axes where
 *  like has size 1); throws when like is not a broadcast source of data. */
std::vector<bool> ReduceToMask(const NodeAttrs& attrs, const TShape& data, const TShape& like) {
  if (like.ndim() > data.ndim()) CannotBroadcast(attrs, "like", like, data);
  const int lead = data.ndim() - like.ndim();
  std::vector<bool> mask(data.ndim(), false);
  for (int j = 0; j < data.ndim(); ++j) {
    if (j < lead) {
      mask[j] = true;
      continue;
    }
    const dim_t l = like[j - lead];
    if (l == data[j]) continue;
    if (l != 1) CannotBroadcast(attrs, "like", like, data);
    mask[j] = true;
  }
  return mask;
}

bool ReduceToLikeShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& d = (*in)[0];
  const TShape& l = (*in)[1];
  if (!d.IsKnown() || !l.IsKnown()) return false;
  ReduceToMask(attrs, d, l);
  AssignShape(attrs, "output", &(*out)[0], l);
  return true;
}

void ReduceToLikeForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  std::vector<bool> mask = ReduceToMask(attrs, in[0].shape_, in[1].shape_);
  if (in[0].shape_ != out[0].shape_ && onednn::AnyBlocked(attrs, in, out)) {
    return onednn::OnPlainCopies(attrs, in, req, out, [&](const auto& pin, const auto& preq,
                                                          const auto& pout) {
      ReduceAxesCompute(ctx, ReduceKind::kSum, pin[0], mask, preq[0], pout[0]);
    });
  }
  ReduceAxesCompute(ctx, ReduceKind::kSum, in[0], mask, req[0], out[0]);
}

// ---------------------------------------------------------------- gradients

std::vector<NodeEntry> BroadcastGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  std::vector<NodeEntry> ret{MakeNode("_reduce_to_like", GradName(n), {og[0], n->inputs[0]})};
  if (n->inputs.size() > 1) ret.emplace_back();  // broadcast_like: rhs only gives a shape
  return ret;
}

std::vector<NodeEntry> ReduceToLikeGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  return {MakeNode("broadcast_like", GradName(n), {og[0], n->inputs[0]}), NodeEntry()};
}

const bool kRegistered [[maybe_unused]] = [] {
  nnvm::Op::Register("broadcast_to")
      .describe("Broadcasts the input array to a new shape: axes of size 1 are repeated.")
      .set_num_inputs(1)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "The input")
      .add_arguments(BroadcastToParam::__FIELDS__())
      .set_attr_parser(ParamParser<BroadcastToParam>)
      .set_attr<FInferShape>("FInferShape", BroadcastToShape)
      .set_attr<FInferType>("FInferType", ElemwiseType)
      .set_attr<FCompute>("FCompute<cpu>", BroadcastForward)
      .set_attr<FGradient>("FGradient", BroadcastGrad);

  nnvm::Op::Register("broadcast_axis")
      .describe("Broadcasts the input array over the given axes (each of size 1) to the given "
                "sizes.")
      .set_num_inputs(1)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "The input")
      .add_arguments(BroadcastAxesParam::__FIELDS__())
      .set_attr_parser(ParamParser<BroadcastAxesParam>)
      .set_attr<FInferShape>("FInferShape", BroadcastAxisShape)
      .set_attr<FInferType>("FInferType", ElemwiseType)
      .set_attr<FCompute>("FCompute<cpu>", BroadcastForward)
      .set_attr<FGradient>("FGradient", BroadcastGrad)
      .add_alias("broadcast_axes");

  nnvm::Op::Register("broadcast_like")
      .describe("Broadcasts lhs to the shape of rhs, or only lhs_axes to the extents of rhs's "
                "rhs_axes.")
      .set_num_inputs(2)
      .set_num_outputs(1)
      .add_argument("lhs", "NDArray-or-Symbol", "First input.")
      .add_argument("rhs", "NDArray-or-Symbol", "Second input.")
      .add_arguments(BroadcastLikeParam::__FIELDS__())
      .set_attr_parser(ParamParser<BroadcastLikeParam>)
      .set_attr<FListInputNames>("FListInputNames",
                                 InputNames({"lhs", "rhs"}))
      .set_attr<FInferShape>("FInferShape", BroadcastLikeShape)
      .set_attr<FInferType>("FInferType", FirstInputType)
      .set_attr<FCompute>("FCompute<cpu>", BroadcastForward)
      .set_attr<FGradient>("FGradient", BroadcastGrad);

  nnvm::Op::Register("_reduce_to_like")
      .describe("Sums data down to the shape of like, which data was broadcast from: over the "
                "leading axes like lacks and the axes where like has size 1. The gradient of "
                "the broadcasting operators.")
      .set_num_inputs(2)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "The broadcast array")
      .add_argument("like", "NDArray-or-Symbol", "An array with the target shape")
      .set_attr<FListInputNames>("FListInputNames",
                                 InputNames({"data", "like"}))
      .set_attr<FInferShape>("FInferShape", ReduceToLikeShape)
      .set_attr<FInferType>("FInferType", FirstInputType)
      .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
      .set_attr<FCompute>("FCompute<cpu>", ReduceToLikeForward)
      // a copy when like has data's shape; like's content is not read
      .set_attr<onednn::FBlockedLayout>("FBlockedLayout",
                                        [](const NodeAttrs&) {
                                          return std::vector<onednn::LayoutGroup>{{{0}, {0}},
                                                                                  {{1}, {}}};
                                        })
      .set_attr<FGradient>("FGradient", ReduceToLikeGrad);
  return true;
}();

}  // namespace
}  // namespace op
}  // namespace mxnet
