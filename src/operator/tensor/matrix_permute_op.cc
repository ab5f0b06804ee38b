// Operators that permute elements: transpose, SwapAxis (swapaxes), reverse (flip),
// depth_to_space and space_to_depth; each is one StridedCopy plan.
#include <algorithm>

#include "operator/tensor/matrix_op_common.h"

namespace mxnet {
namespace op {
namespace {

// ================================================================ transpose
struct TransposeParam : public dmlc::Parameter<TransposeParam> {
  IntTuple axes;
  DMLC_DECLARE_PARAMETER(TransposeParam) {
    DMLC_DECLARE_FIELD(axes).set_default(IntTuple()).describe(
        "Target axis order. By default the axes will be inverted.");
  }
};
DMLC_REGISTER_PARAMETER(TransposeParam);

// The permutation of an ndim array: axes normalized, or reversed when axes is empty.
std::vector<int> TransposeAxes(const NodeAttrs& attrs, const IntTuple& axes, int ndim) {
  std::vector<int> perm(ndim);
  if (axes.ndim() == 0) {
    for (int i = 0; i < ndim; ++i) perm[i] = ndim - 1 - i;
    return perm;
  }
  if (axes.ndim() != ndim) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": argument axes=" << axes << " has "
               << axes.ndim() << " entries, expected one per input dimension (" << ndim << ")";
  }
  std::vector<bool> seen(ndim, false);
  for (int i = 0; i < ndim; ++i) {
    perm[i] = CheckAxis(attrs, "axes", axes[i], ndim);
    if (seen[perm[i]]) {
      LOG(FATAL) << "Operator " << attrs.op->name << ": argument axes=" << axes
                 << " repeats axis " << axes[i] << ", expected a permutation";
    }
    seen[perm[i]] = true;
  }
  return perm;
}

bool TransposeShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  // Unknown dims move with their axis both ways (partial inference, as MXNet 1.9.1): the
  // output's known dims fill the input's.
  TShape& d = (*in)[0];
  const int ndim = d.ndim() >= 0 ? d.ndim() : (*out)[0].ndim();
  if (ndim < 0) return false;
  std::vector<int> perm = TransposeAxes(attrs, Param<TransposeParam>(attrs).axes, ndim);
  if ((*out)[0].ndim() >= 0) {
    TShape back(ndim, -1);
    for (int i = 0; i < ndim; ++i) back[perm[i]] = (*out)[0][i];
    AssignInputShape(attrs, 0, &d, back);
  }
  TShape o(ndim, -1);
  for (int i = 0; i < ndim; ++i) o[i] = d[perm[i]];
  AssignShape(attrs, "output", &(*out)[0], o);
  return (*out)[0].IsKnown() && d.IsKnown();
}

// out = in with output axis i walking input axis perm[i].
void PermuteCopy(const TBlob& in, const TBlob& out, const std::vector<int>& perm, OpReqType req) {
  std::vector<index_t> st = ContiguousStrides(in.shape_);
  std::vector<index_t> ost = ContiguousStrides(out.shape_);
  StridedPlan p;
  for (size_t i = 0; i < perm.size(); ++i) p.Push(out.shape_[i], st[perm[i]], ost[i]);
  StridedCopy(p, out.type_flag_, in.dptr_, out.dptr_, req);
}

void TransposeCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  PermuteCopy(in[0], out[0], TransposeAxes(attrs, Param<TransposeParam>(attrs).axes, in[0].ndim()),
              req[0]);
}

std::vector<NodeEntry> TransposeGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  const IntTuple& axes = Param<TransposeParam>(n->attrs).axes;
  std::vector<int> perm = TransposeAxes(n->attrs, axes, axes.ndim());
  std::vector<int> inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inv[perm[i]] = static_cast<int>(i);
  return {GradNode(n, "transpose", {og[0]}, {{"axes", TupleText(inv)}})};
}

NNVM_REGISTER_OP(transpose)
    .describe("Permutes the dimensions of an array; with no axes the dimensions are reversed.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<TransposeParam>)
    .add_argument("data", "NDArray-or-Symbol", "Source input")
    .add_arguments(TransposeParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", TransposeShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", TransposeCompute)
    .set_attr<FGradient>("FGradient", TransposeGrad);

// ================================================================ SwapAxis
struct SwapAxisParam : public dmlc::Parameter<SwapAxisParam> {
  int dim1, dim2;
  DMLC_DECLARE_PARAMETER(SwapAxisParam) {
    DMLC_DECLARE_FIELD(dim1).set_default(0).describe("the first axis to be swapped.");
    DMLC_DECLARE_FIELD(dim2).set_default(0).describe("the second axis to be swapped.");
  }
};
DMLC_REGISTER_PARAMETER(SwapAxisParam);

std::vector<int> SwapPerm(const NodeAttrs& attrs, int ndim) {
  const SwapAxisParam& p = Param<SwapAxisParam>(attrs);
  int a = CheckAxis(attrs, "dim1", p.dim1, ndim), b = CheckAxis(attrs, "dim2", p.dim2, ndim);
  std::vector<int> perm(ndim);
  for (int i = 0; i < ndim; ++i) perm[i] = i;
  std::swap(perm[a], perm[b]);
  return perm;
}

bool SwapAxisShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) return false;
  std::vector<int> perm = SwapPerm(attrs, d.ndim());
  TShape o(d.ndim());
  for (int i = 0; i < d.ndim(); ++i) o[i] = d[perm[i]];
  AssignShape(attrs, "output", &(*out)[0], o);
  return true;
}

void SwapAxisCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  PermuteCopy(in[0], out[0], SwapPerm(attrs, in[0].ndim()), req[0]);
}

NNVM_REGISTER_OP(SwapAxis)
    .add_alias("swapaxes")
    .describe("Interchanges two axes of an array.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<SwapAxisParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input array.")
    .add_arguments(SwapAxisParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", SwapAxisShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", SwapAxisCompute)
    .set_attr<FGradient>("FGradient", [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
      return std::vector<NodeEntry>{GradNode(n, "SwapAxis", {og[0]}, n->attrs.dict)};
    });

// ================================================================ reverse
struct ReverseParam : public dmlc::Parameter<ReverseParam> {
  IntTuple axis;
  DMLC_DECLARE_PARAMETER(ReverseParam) {
    DMLC_DECLARE_FIELD(axis).describe("The axis which to reverse elements.");
  }
};
DMLC_REGISTER_PARAMETER(ReverseParam);

std::vector<bool> ReversedAxes(const NodeAttrs& attrs, int ndim) {
  std::vector<bool> flip(ndim, false);
  for (int64_t a : Param<ReverseParam>(attrs).axis) {
    int ax = CheckAxis(attrs, "axis", a, ndim);
    flip[ax] = !flip[ax];  // listing an axis twice reverses it twice
  }
  return flip;
}

bool ReverseShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) return false;
  ReversedAxes(attrs, d.ndim());
  AssignShape(attrs, "output", &(*out)[0], d);
  return true;
}

void ReverseCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const TShape& s = in[0].shape_;
  std::vector<bool> flip = ReversedAxes(attrs, s.ndim());
  std::vector<index_t> st = ContiguousStrides(s);
  StridedPlan p;
  for (int i = 0; i < s.ndim(); ++i) {
    if (flip[i] && s[i] > 0) {
      p.src_offset += (s[i] - 1) * st[i];
      p.Push(s[i], -st[i], st[i]);
    } else {
      p.Push(s[i], st[i], st[i]);
    }
  }
  StridedCopy(p, out[0].type_flag_, in[0].dptr_, out[0].dptr_, req[0]);
}

NNVM_REGISTER_OP(reverse)
    .add_alias("flip")
    .describe("Reverses the order of elements along given axis while preserving array shape.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<ReverseParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input data array")
    .add_arguments(ReverseParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", ReverseShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", ReverseCompute)
    .set_attr<FGradient>("FGradient", [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
      return std::vector<NodeEntry>{GradNode(n, "reverse", {og[0]}, n->attrs.dict)};
    });

// ================================================================ depth_to_space, space_to_depth
struct DepthToSpaceParam : public dmlc::Parameter<DepthToSpaceParam> {
  int block_size;
  DMLC_DECLARE_PARAMETER(DepthToSpaceParam) {
    DMLC_DECLARE_FIELD(block_size).describe("Blocks of [block_size. block_size] are moved");
  }
};
DMLC_REGISTER_PARAMETER(DepthToSpaceParam);

// kToSpace: (N, C, H, W) -> (N, C/b^2, H*b, W*b); else (N, C, H, W) -> (N, C*b^2, H/b, W/b).
template <bool kToSpace>
bool BlockShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) return false;
  const std::string& op = attrs.op->name;
  int b = Param<DepthToSpaceParam>(attrs).block_size;
  if (d.ndim() != 4) {
    LOG(FATAL) << "Operator " << op << ": argument data must be a 4-D (N, C, H, W) array, "
               << "given shape " << d;
  }
  if (b <= 0) LOG(FATAL) << "Operator " << op << ": argument block_size must be positive, given " << b;
  for (int i = 0; i < 4; ++i) {
    if (d[i] == 0) LOG(FATAL) << "Operator " << op << ": dimension " << i << " of data cannot be 0";
  }
  TShape o(4);
  o[0] = d[0];
  if (kToSpace) {
    if (d[1] % (b * b) != 0) {
      LOG(FATAL) << "Operator " << op << ": depth dimension 1 of data (" << d[1]
                 << ") must be a multiple of block_size^2 (" << b * b << ")";
    }
    o[1] = d[1] / (b * b);
    o[2] = d[2] * b;
    o[3] = d[3] * b;
  } else {
    if (d[2] % b != 0 || d[3] % b != 0) {
      LOG(FATAL) << "Operator " << op << ": spatial dimensions of data " << d
                 << " must be multiples of block_size (" << b << ")";
    }
    o[1] = d[1] * b * b;
    o[2] = d[2] / b;
    o[3] = d[3] / b;
  }
  AssignShape(attrs, "output", &(*out)[0], o);
  return true;
}

template <bool kToSpace>
void BlockCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const index_t b = Param<DepthToSpaceParam>(attrs).block_size;
  const TShape& s = in[0].shape_;
  const index_t N = s[0], C = s[1], H = s[2], W = s[3];
  StridedPlan p;
  if (kToSpace) {
    // in viewed (N, b1, b2, C', H, W); out viewed (N, C', H, b1, W, b2).
    const index_t Cp = C / (b * b);
    const index_t sW = 1, sH = W, sC = H * W, sb2 = Cp * H * W, sb1 = b * sb2, sN = b * sb1;
    const index_t ob2 = 1, oW = b, ob1 = W * b, oH = b * W * b, oC = H * oH, oN = Cp * oC;
    p.Push(N, sN, oN);
    p.Push(Cp, sC, oC);
    p.Push(H, sH, oH);
    p.Push(b, sb1, ob1);
    p.Push(W, sW, oW);
    p.Push(b, sb2, ob2);
  } else {
    // in viewed (N, C, H', b1, W', b2); out viewed (N, b1, b2, C, H', W').
    const index_t Hp = H / b, Wp = W / b;
    const index_t sb2 = 1, sWp = b, sb1 = W, sHp = b * W, sC = H * W, sN = C * H * W;
    const index_t oWp = 1, oHp = Wp, oC = Hp * Wp, ob2 = C * oC, ob1 = b * ob2, oN = b * ob1;
    p.Push(N, sN, oN);
    p.Push(C, sC, oC);
    p.Push(Hp, sHp, oHp);
    p.Push(b, sb1, ob1);
    p.Push(Wp, sWp, oWp);
    p.Push(b, sb2, ob2);
  }
  StridedCopy(p, out[0].type_flag_, in[0].dptr_, out[0].dptr_, req[0]);
}

NNVM_REGISTER_OP(depth_to_space)
    .describe("Rearranges (permutes) data from depth into blocks of spatial data: (N, C, H, W) "
              "becomes (N, C/(block_size^2), H*block_size, W*block_size).")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<DepthToSpaceParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input ndarray")
    .add_arguments(DepthToSpaceParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", BlockShape<true>)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", BlockCompute<true>)
    .set_attr<FGradient>("FGradient", [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
      return std::vector<NodeEntry>{GradNode(n, "space_to_depth", {og[0]}, n->attrs.dict)};
    });

NNVM_REGISTER_OP(space_to_depth)
    .describe("Rearranges (permutes) blocks of spatial data into depth: (N, C, H, W) becomes "
              "(N, C*(block_size^2), H/block_size, W/block_size).")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<DepthToSpaceParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input ndarray")
    .add_arguments(DepthToSpaceParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", BlockShape<false>)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", BlockCompute<false>)
    .set_attr<FGradient>("FGradient", [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
      return std::vector<NodeEntry>{GradNode(n, "depth_to_space", {og[0]}, n->attrs.dict)};
    });

}  // namespace
}  // namespace op
}  // namespace mxnet
