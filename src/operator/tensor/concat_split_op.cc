// Joining and splitting along an axis: Concat (concat), stack, SliceChannel (split), and the
// internal _split_like that Concat's gradient uses.
#include <algorithm>

#include "operator/tensor/matrix_op_common.h"

namespace mxnet {
namespace op {
namespace {

// Copies a contiguous block of shape (outer, n, inner) into / out of a (outer, len, inner)
// array at position off along the middle axis.
void AxisBlockCopy(const TBlob& part, const TBlob& whole, index_t outer, index_t n, index_t len,
                   index_t inner, index_t off, bool into_whole, OpReqType req) {
  StridedPlan p;
  if (into_whole) {
    p.Push(outer, n * inner, len * inner);
    p.dst_offset = off * inner;
  } else {
    p.Push(outer, len * inner, n * inner);
    p.src_offset = off * inner;
  }
  p.Push(n * inner, 1, 1);
  if (into_whole) {
    StridedCopy(p, whole.type_flag_, part.dptr_, whole.dptr_, req);
  } else {
    StridedCopy(p, whole.type_flag_, whole.dptr_, part.dptr_, req);
  }
}

std::vector<std::string> ArgNames(uint32_t n) {
  std::vector<std::string> v;
  for (uint32_t i = 0; i < n; ++i) v.push_back("arg" + std::to_string(i));
  return v;
}

// ================================================================ Concat
struct ConcatParam : public dmlc::Parameter<ConcatParam> {
  int num_args;
  int dim;
  DMLC_DECLARE_PARAMETER(ConcatParam) {
    DMLC_DECLARE_FIELD(num_args).set_lower_bound(1).describe("Number of inputs to be concated.");
    DMLC_DECLARE_FIELD(dim).set_default(1).describe("the dimension to be concated.");
  }
};
DMLC_REGISTER_PARAMETER(ConcatParam);

uint32_t ConcatNumInputs(const NodeAttrs& attrs) { return Param<ConcatParam>(attrs).num_args; }

// Output shape of joining `parts` along dim (all other dims must agree).
TShape JoinShape(const NodeAttrs& attrs, const std::vector<TShape>& parts, int dim_arg,
                 size_t first, int* axis) {
  const TShape& s0 = parts[first];
  *axis = CheckAxis(attrs, "dim", dim_arg, s0.ndim());
  TShape o = s0;
  o[*axis] = 0;
  for (size_t i = first; i < parts.size(); ++i) {
    const TShape& s = parts[i];
    bool ok = s.ndim() == s0.ndim();
    for (int k = 0; ok && k < s.ndim(); ++k) ok = k == *axis || s[k] == s0[k];
    if (!ok) {
      LOG(FATAL) << "Operator " << attrs.op->name << ": input " << InputName(attrs, i)
                 << " has shape " << s << ", expected " << s0.ndim()
                 << " dimensions matching " << InputName(attrs, first) << " " << s0
                 << " except on dim " << dim_arg;
    }
    o[*axis] += s[*axis];
  }
  return o;
}

bool ConcatShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  bool all_known = true;
  for (const TShape& s : *in) all_known = all_known && s.IsKnown();
  if (all_known) {
    int axis;
    TShape o = JoinShape(attrs, *in, Param<ConcatParam>(attrs).dim, 0, &axis);
    AssignShape(attrs, "output", &(*out)[0], o);
    return true;
  }
  // Partial inference (MXNet 1.9.1): the dims off the axis are shared by every input and the
  // output; the axis of the output is the sum, or gives the one input axis left unknown.
  int ndim = (*out)[0].ndim();
  for (const TShape& s : *in) ndim = ndim >= 0 ? ndim : s.ndim();
  if (ndim < 0) return false;
  const int axis = CheckAxis(attrs, "dim", Param<ConcatParam>(attrs).dim, ndim);
  TShape common(ndim, -1);
  auto off_axis = [&](const TShape& s) {
    TShape t = s;
    if (t.ndim() == ndim) t[axis] = -1;
    return t;
  };
  for (size_t i = 0; i < in->size(); ++i) AssignInputShape(attrs, i, &common, off_axis((*in)[i]));
  AssignShape(attrs, "output", &common, off_axis((*out)[0]));
  dim_t sum = 0;
  int unknown = -1, n_unknown = 0;
  for (size_t i = 0; i < in->size(); ++i) {
    dim_t d = (*in)[i].ndim() == ndim ? (*in)[i][axis] : -1;
    if (d < 0) {
      unknown = static_cast<int>(i);
      ++n_unknown;
    } else {
      sum += d;
    }
  }
  const dim_t total = (*out)[0].ndim() == ndim ? (*out)[0][axis] : -1;
  for (size_t i = 0; i < in->size(); ++i) {
    TShape s = common;
    s[axis] = (*in)[i].ndim() == ndim ? (*in)[i][axis] : -1;
    if (static_cast<int>(i) == unknown && n_unknown == 1 && total >= 0) s[axis] = total - sum;
    AssignInputShape(attrs, i, &(*in)[i], s);
  }
  TShape o = common;
  o[axis] = n_unknown == 0 ? sum : total;
  AssignShape(attrs, "output", &(*out)[0], o);
  bool known = (*out)[0].IsKnown();
  for (const TShape& s : *in) known = known && s.IsKnown();
  return known;
}

void ConcatCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const TShape& o = out[0].shape_;
  int axis = CheckAxis(attrs, "dim", Param<ConcatParam>(attrs).dim, o.ndim());
  const index_t outer = o.ProdShape(0, axis), inner = o.ProdShape(axis + 1, o.ndim());
  index_t off = 0;
  for (const TBlob& x : in) {
    const index_t n = x.shape_[axis];
    AxisBlockCopy(x, out[0], outer, n, o[axis], inner, off, true, req[0]);
    off += n;
  }
}

std::vector<NodeEntry> ConcatGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  std::vector<NodeEntry> inputs{og[0]};
  inputs.insert(inputs.end(), n->inputs.begin(), n->inputs.end());
  const ConcatParam& p = Param<ConcatParam>(n->attrs);
  NodeEntry split = GradNode(n, "_split_like", inputs,
                             {{"num_args", std::to_string(p.num_args)},
                              {"dim", std::to_string(p.dim)}});
  std::vector<NodeEntry> ret;
  for (int i = 0; i < p.num_args; ++i) ret.emplace_back(split.node, i, 0);
  return ret;
}

// _split_like(data, like_0, ..., like_{n-1}): data cut along dim into parts shaped like each like.
bool SplitLikeShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  for (const TShape& s : *in) {
    if (!s.IsKnown()) return false;
  }
  int axis;
  TShape joined = JoinShape(attrs, *in, Param<ConcatParam>(attrs).dim, 1, &axis);
  AssignShape(attrs, "data", &(*in)[0], joined);
  for (size_t i = 1; i < in->size(); ++i) AssignShape(attrs, "output", &(*out)[i - 1], (*in)[i]);
  return true;
}

bool SplitLikeType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  int t = (*in)[0];
  for (int& o : *out) AssignType(attrs, "output", &o, t);
  return t >= 0;
}

void SplitLikeCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const TShape& d = in[0].shape_;
  int axis = CheckAxis(attrs, "dim", Param<ConcatParam>(attrs).dim, d.ndim());
  const index_t outer = d.ProdShape(0, axis), inner = d.ProdShape(axis + 1, d.ndim());
  index_t off = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    const index_t n = out[i].shape_[axis];
    AxisBlockCopy(out[i], in[0], outer, n, d[axis], inner, off, false, req[i]);
    off += n;
  }
}

std::vector<NodeEntry> SplitLikeGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  const ConcatParam& p = Param<ConcatParam>(n->attrs);
  std::vector<NodeEntry> ret{GradNode(n, "Concat", og,
                                      {{"num_args", std::to_string(p.num_args)},
                                       {"dim", std::to_string(p.dim)}})};
  for (size_t i = 1; i < n->inputs.size(); ++i) ret.push_back(ZeroGradOf(n, i));
  return ret;
}

NNVM_REGISTER_OP(Concat)
    .add_alias("concat")
    .describe("Joins input arrays along a given axis. All inputs must have the same shape "
              "except on the concatenated dimension.")
    .set_num_inputs(ConcatNumInputs)
    .set_num_outputs(1)
    .set_key_var_num_args("num_args")
    .set_attr_parser(ParamParser<ConcatParam>)
    .add_argument("data", "NDArray-or-Symbol[]", "List of arrays to concatenate")
    .add_arguments(ConcatParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames",
                               [](const NodeAttrs& attrs) { return ArgNames(ConcatNumInputs(attrs)); })
    .set_attr<FInferShape>("FInferShape", ConcatShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", ConcatCompute)
    .set_attr<FGradient>("FGradient", ConcatGrad);

NNVM_REGISTER_OP(_split_like)
    .describe("Internal: gradient of Concat; cuts data along dim into parts shaped like the "
              "remaining inputs.")
    .set_num_inputs([](const NodeAttrs& attrs) { return ConcatNumInputs(attrs) + 1; })
    .set_num_outputs(ConcatNumInputs)
    .set_attr_parser(ParamParser<ConcatParam>)
    .add_argument("data", "NDArray-or-Symbol", "The array to cut.")
    .add_argument("like", "NDArray-or-Symbol[]", "Arrays giving the part shapes.")
    .add_arguments(ConcatParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", [](const NodeAttrs& attrs) {
      std::vector<std::string> v{"data"};
      for (uint32_t i = 0; i < ConcatNumInputs(attrs); ++i) v.push_back("like" + std::to_string(i));
      return v;
    })
    .set_attr<FInferShape>("FInferShape", SplitLikeShape)
    .set_attr<FInferType>("FInferType", SplitLikeType)
    .set_attr<FCompute>("FCompute<cpu>", SplitLikeCompute)
    .set_attr<FGradient>("FGradient", SplitLikeGrad);

// ================================================================ stack
struct StackParam : public dmlc::Parameter<StackParam> {
  int axis;
  int num_args;
  DMLC_DECLARE_PARAMETER(StackParam) {
    DMLC_DECLARE_FIELD(axis).set_default(0).describe(
        "The axis in the result array along which the input arrays are stacked.");
    DMLC_DECLARE_FIELD(num_args).set_lower_bound(1).describe("Number of inputs to be stacked.");
  }
};
DMLC_REGISTER_PARAMETER(StackParam);

uint32_t StackNumInputs(const NodeAttrs& attrs) { return Param<StackParam>(attrs).num_args; }

bool StackShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  TShape d;
  for (size_t i = 0; i < in->size(); ++i) AssignInputShape(attrs, i, &d, (*in)[i]);
  if (!d.IsKnown()) return false;
  for (auto& s : *in) s = d;
  int axis = CheckAxis(attrs, "axis", Param<StackParam>(attrs).axis, d.ndim() + 1);
  std::vector<dim_t> o(d.begin(), d.end());
  o.insert(o.begin() + axis, static_cast<dim_t>(in->size()));
  AssignShape(attrs, "output", &(*out)[0], ShapeOf(o));
  return true;
}

void StackCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const TShape& o = out[0].shape_;
  int axis = CheckAxis(attrs, "axis", Param<StackParam>(attrs).axis, o.ndim());
  const index_t outer = o.ProdShape(0, axis), inner = o.ProdShape(axis + 1, o.ndim());
  for (size_t i = 0; i < in.size(); ++i) {
    AxisBlockCopy(in[i], out[0], outer, 1, o[axis], inner, static_cast<index_t>(i), true, req[0]);
  }
}

std::vector<NodeEntry> StackGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  const StackParam& p = Param<StackParam>(n->attrs);
  NodeEntry split = GradNode(n, "SliceChannel", {og[0]},
                             {{"num_outputs", std::to_string(p.num_args)},
                              {"axis", std::to_string(p.axis)},
                              {"squeeze_axis", "True"}});
  std::vector<NodeEntry> ret;
  for (int i = 0; i < p.num_args; ++i) ret.emplace_back(split.node, i, 0);
  return ret;
}

NNVM_REGISTER_OP(stack)
    .describe("Join a sequence of arrays along a new axis. All inputs must have the same shape.")
    .set_num_inputs(StackNumInputs)
    .set_num_outputs(1)
    .set_key_var_num_args("num_args")
    .set_attr_parser(ParamParser<StackParam>)
    .add_argument("data", "NDArray-or-Symbol[]", "List of arrays to stack")
    .add_arguments(StackParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames",
                               [](const NodeAttrs& attrs) { return ArgNames(StackNumInputs(attrs)); })
    .set_attr<FInferShape>("FInferShape", StackShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", StackCompute)
    .set_attr<FGradient>("FGradient", StackGrad);

// ================================================================ SliceChannel
struct SliceChannelParam : public dmlc::Parameter<SliceChannelParam> {
  int num_outputs;
  int axis;
  bool squeeze_axis;
  DMLC_DECLARE_PARAMETER(SliceChannelParam) {
    DMLC_DECLARE_FIELD(num_outputs).set_lower_bound(1).describe("Number of splits. Note that this "
        "should evenly divide the length of the `axis`.");
    DMLC_DECLARE_FIELD(axis).set_default(1).describe("Axis along which to split.");
    DMLC_DECLARE_FIELD(squeeze_axis).set_default(false).describe(
        "If true, Removes the axis with length 1 from the shapes of the output arrays. **Note** "
        "that setting `squeeze_axis` to ``true`` removes axis with length 1 only along the "
        "`axis` which it is split. Also `squeeze_axis` can be set to ``true`` only if "
        "``input.shape[axis] == num_outputs``.");
  }
};
DMLC_REGISTER_PARAMETER(SliceChannelParam);

uint32_t SplitNumOutputs(const NodeAttrs& attrs) {
  return Param<SliceChannelParam>(attrs).num_outputs;
}

bool SliceChannelShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const SliceChannelParam& p = Param<SliceChannelParam>(attrs);
  if (!(*in)[0].IsKnown()) {
    // Partial inference (MXNet 1.9.1): unknown dims pass through, and the outputs (all one
    // shape) give back the input's dims.
    TShape o;
    for (const TShape& s : *out) AssignShape(attrs, "output", &o, s);
    const TShape& d0 = (*in)[0];
    int ndim = d0.ndim() >= 0 ? d0.ndim() : (o.ndim() >= 0 ? o.ndim() + (p.squeeze_axis ? 1 : 0) : -1);
    if (ndim < 0) return false;
    const int axis = CheckAxis(attrs, "axis", p.axis, ndim);
    TShape back(ndim, -1);
    if (o.ndim() >= 0) {
      for (int k = 0, j = 0; k < ndim; ++k) {
        if (k == axis && p.squeeze_axis) {
          back[k] = p.num_outputs;
          continue;
        }
        back[k] = k == axis ? (o[j] >= 0 ? o[j] * p.num_outputs : -1) : o[j];
        ++j;
      }
    }
    AssignInputShape(attrs, 0, &(*in)[0], back);
    const TShape& d = (*in)[0];
    if (d.ndim() >= 0) {
      std::vector<dim_t> fwd(d.begin(), d.end());
      fwd[axis] = d[axis] >= 0 ? d[axis] / p.num_outputs : -1;
      if (p.squeeze_axis) fwd.erase(fwd.begin() + axis);
      for (auto& s : *out) AssignShape(attrs, "output", &s, TShape(fwd.begin(), fwd.end()));
    }
    if (!(*in)[0].IsKnown()) return false;
  }
  const TShape& d = (*in)[0];
  int axis = CheckAxis(attrs, "axis", p.axis, d.ndim());
  if (d[axis] % p.num_outputs != 0) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": cannot split axis " << p.axis
               << " of input shape " << d << " into num_outputs=" << p.num_outputs
               << " evenly sized chunks: " << d[axis] << " is not a multiple of "
               << p.num_outputs;
  }
  std::vector<dim_t> o(d.begin(), d.end());
  o[axis] /= p.num_outputs;
  if (p.squeeze_axis) {
    if (o[axis] != 1) {
      LOG(FATAL) << "Operator " << attrs.op->name << ": squeeze_axis=True needs the split axis "
                 << "size (" << d[axis] << ") to equal num_outputs (" << p.num_outputs << ")";
    }
    o.erase(o.begin() + axis);
  }
  for (auto& s : *out) AssignShape(attrs, "output", &s, ShapeOf(o));
  return true;
}

void SliceChannelCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const TShape& d = in[0].shape_;
  int axis = CheckAxis(attrs, "axis", Param<SliceChannelParam>(attrs).axis, d.ndim());
  const index_t outer = d.ProdShape(0, axis), inner = d.ProdShape(axis + 1, d.ndim());
  const index_t n = d[axis] / static_cast<index_t>(out.size());
  for (size_t i = 0; i < out.size(); ++i) {
    AxisBlockCopy(out[i], in[0], outer, n, d[axis], inner, static_cast<index_t>(i) * n, false,
                  req[i]);
  }
}

std::vector<NodeEntry> SliceChannelGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  const SliceChannelParam& p = Param<SliceChannelParam>(n->attrs);
  const std::string num = std::to_string(p.num_outputs), axis = std::to_string(p.axis);
  if (p.squeeze_axis) return {GradNode(n, "stack", og, {{"num_args", num}, {"axis", axis}})};
  return {GradNode(n, "Concat", og, {{"num_args", num}, {"dim", axis}})};
}

NNVM_REGISTER_OP(SliceChannel)
    .add_alias("split")
    .describe("Splits an array along a particular axis into multiple sub-arrays of equal size.")
    .set_num_inputs(1)
    .set_num_outputs(SplitNumOutputs)
    .set_attr_parser(ParamParser<SliceChannelParam>)
    .add_argument("data", "NDArray-or-Symbol", "The input")
    .add_arguments(SliceChannelParam::__FIELDS__())
    .set_attr<FListOutputNames>("FListOutputNames", [](const NodeAttrs& attrs) {
      std::vector<std::string> v;
      for (uint32_t i = 0; i < SplitNumOutputs(attrs); ++i) v.push_back("output" + std::to_string(i));
      return v;
    })
    .set_attr<FInferShape>("FInferShape", SliceChannelShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", SliceChannelCompute)
    .set_attr<FGradient>("FGradient", SliceChannelGrad);

// ================================================================ _split_v2 (split_v2)
struct SplitV2Param : public dmlc::Parameter<SplitV2Param> {
  IntTuple indices;
  int axis;
  bool squeeze_axis;
  int sections;
  DMLC_DECLARE_PARAMETER(SplitV2Param) {
    DMLC_DECLARE_FIELD(indices).describe("Indices of splits. The elements should denote the "
                                         "boundaries of at which split is performed along the "
                                         "`axis`.");
    DMLC_DECLARE_FIELD(axis).set_default(1).describe("Axis along which to split.");
    DMLC_DECLARE_FIELD(squeeze_axis).set_default(false).describe(
        "If true, Removes the axis with length 1 from the shapes of the output arrays.");
    DMLC_DECLARE_FIELD(sections).set_default(0).describe("Number of sections if equally "
                                                         "splitted. Default to 0 which means "
                                                         "split by indices.");
  }
};
DMLC_REGISTER_PARAMETER(SplitV2Param);

uint32_t SplitV2NumOutputs(const NodeAttrs& attrs) {
  const SplitV2Param& p = Param<SplitV2Param>(attrs);
  return static_cast<uint32_t>(p.sections > 0 ? p.sections : p.indices.ndim());
}

// The start of each part along an axis of size len, then len.
std::vector<index_t> SplitV2Bounds(const NodeAttrs& attrs, index_t len) {
  const SplitV2Param& p = Param<SplitV2Param>(attrs);
  std::vector<index_t> b;
  if (p.sections > 0) {
    if (len % p.sections != 0) {
      LOG(FATAL) << "Operator " << attrs.op->name << ": sections=" << p.sections
                 << " does not divide the split axis of size " << len << " evenly";
    }
    for (int i = 0; i < p.sections; ++i) b.push_back(i * (len / p.sections));
  } else {
    CHECK_GT(p.indices.ndim(), 0) << "Operator " << attrs.op->name
                                  << ": argument indices expected at least one index";
    for (int64_t i : p.indices) {
      CHECK(i >= 0 && i <= len && (b.empty() || i >= b.back()))
          << "Operator " << attrs.op->name << ": argument indices expected ascending values in "
          << "[0, " << len << "], given " << TupleText(p.indices.v);
      b.push_back(static_cast<index_t>(i));
    }
  }
  b.push_back(len);
  return b;
}

bool SplitV2Shape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const SplitV2Param& p = Param<SplitV2Param>(attrs);
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) return false;
  const int axis = CheckAxis(attrs, "axis", p.axis, d.ndim());
  const std::vector<index_t> b = SplitV2Bounds(attrs, d[axis]);
  for (size_t i = 0; i < out->size(); ++i) {
    std::vector<dim_t> o(d.begin(), d.end());
    o[axis] = b[i + 1] - b[i];
    if (p.squeeze_axis) {
      CHECK_EQ(o[axis], 1) << "Operator " << attrs.op->name << ": squeeze_axis=True needs parts "
                           << "of size 1 along the axis, part " << i << " has " << o[axis];
      o.erase(o.begin() + axis);
    }
    AssignShape(attrs, "output", &(*out)[i], ShapeOf(o));
  }
  return true;
}

void SplitV2Compute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const TShape& d = in[0].shape_;
  const int axis = CheckAxis(attrs, "axis", Param<SplitV2Param>(attrs).axis, d.ndim());
  const index_t outer = d.ProdShape(0, axis), inner = d.ProdShape(axis + 1, d.ndim());
  const std::vector<index_t> b = SplitV2Bounds(attrs, d[axis]);
  for (size_t i = 0; i < out.size(); ++i) {
    AxisBlockCopy(out[i], in[0], outer, b[i + 1] - b[i], d[axis], inner, b[i], false, req[i]);
  }
}

// The parts' gradients joined back along the axis (squeezed parts get their axis back).
std::vector<NodeEntry> SplitV2Grad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  const SplitV2Param& p = Param<SplitV2Param>(n->attrs);
  const std::string axis = std::to_string(p.axis);
  std::vector<NodeEntry> parts = og;
  if (p.squeeze_axis) {
    for (NodeEntry& e : parts) e = GradNode(n, "expand_dims", {e}, {{"axis", axis}});
  }
  return {GradNode(n, "Concat", parts,
                   {{"num_args", std::to_string(parts.size())}, {"dim", axis}})};
}

NNVM_REGISTER_OP(_split_v2)
    .describe("Splits an array along a particular axis into multiple sub-arrays, at the given "
              "indices or into `sections` equal parts (numpy.split).")
    .set_num_inputs(1)
    .set_num_outputs(SplitV2NumOutputs)
    .set_attr_parser(ParamParser<SplitV2Param>)
    .add_argument("data", "NDArray-or-Symbol", "The input")
    .add_arguments(SplitV2Param::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"data"}))
    .set_attr<FListOutputNames>("FListOutputNames", [](const NodeAttrs& attrs) {
      std::vector<std::string> v;
      for (uint32_t i = 0; i < SplitV2NumOutputs(attrs); ++i) v.push_back("output" + std::to_string(i));
      return v;
    })
    .set_attr<FInferShape>("FInferShape", SplitV2Shape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", SplitV2Compute)
    .set_attr<FGradient>("FGradient", SplitV2Grad);

}  // namespace
}  // namespace op
}  // namespace mxnet
