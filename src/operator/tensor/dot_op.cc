// Matrix products dot and batch_dot (and _backward_dot), computed with BLAS gemm; float16
// inputs are widened to float32 for the product.
#include <string>
#include <unordered_map>
#include <vector>

#include "operator/tensor/dot_param.h"
#include "operator/tensor/linalg.h"
#include "operator/tensor/sparse_ops.h"

namespace mxnet {
namespace op {

DMLC_REGISTER_PARAMETER(DotParam);

namespace {

using linalg::Mat;

std::unordered_map<std::string, std::string> TransDict(bool ta, bool tb) {
  return {{"transpose_a", ta ? "True" : "False"}, {"transpose_b", tb ? "True" : "False"}};
}

template <typename DType>
Mat<const DType> CMat(const TBlob& b, index_t rows, index_t cols, index_t offset = 0) {
  return {b.dptr<DType>() + offset, rows, cols, cols};
}
template <typename DType>
Mat<DType> WMat(const TBlob& b, index_t rows, index_t cols, index_t offset = 0) {
  return {b.dptr<DType>() + offset, rows, cols, cols};
}

/*! \brief C (req) = op(A) op(B). */
template <typename DType>
void MatMul(bool ta, bool tb, const Mat<const DType>& A, const Mat<const DType>& B,
            const Mat<DType>& C, OpReqType req) {
  if (req == kNullOp) return;
  linalg::Gemm<DType>(ta, tb, DType(1), A, B, DType(req == kAddTo ? 1 : 0), C);
}

bool RealType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  if (!ElemwiseType(attrs, in, out)) return false;
  const int t = (*out)[0];
  CHECK(t == kFloat32 || t == kFloat64 || t == kFloat16)
      << "Operator " << attrs.op->name << ": supports float32, float64 and float16 inputs, given "
      << DTypeName(t);
  return true;
}

/*! \brief Runs fn on float32 copies of float16 blobs (outputs written back); other dtypes
 *  (float32, float64) go straight through. */
template <typename Fn>
void WithWideFloat(const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out, Fn fn) {
  if (in[0].type_flag_ != kFloat16) {
    fn(in, req, out);
    return;
  }
  size_t total = 0;
  for (const TBlob& b : in) total += b.Size();
  for (const TBlob& b : out) total += b.Size();
  float* space = static_cast<float*>(ctx.RequestTempSpace(total * sizeof(float)));
  std::vector<TBlob> fin, fout;
  for (const TBlob& b : in) {
    const half_t* src = b.dptr<half_t>();
    for (size_t i = 0; i < b.Size(); ++i) space[i] = static_cast<float>(src[i]);
    fin.emplace_back(space, b.shape_, kFloat32, b.ctx);
    space += b.Size();
  }
  for (size_t k = 0; k < out.size(); ++k) {
    const TBlob& b = out[k];
    if (req[k] == kAddTo) {
      const half_t* src = b.dptr<half_t>();
      for (size_t i = 0; i < b.Size(); ++i) space[i] = static_cast<float>(src[i]);
    }
    fout.emplace_back(space, b.shape_, kFloat32, b.ctx);
    space += b.Size();
  }
  fn(fin, req, fout);
  for (size_t k = 0; k < out.size(); ++k) {
    if (req[k] == kNullOp) continue;
    half_t* dst = out[k].dptr<half_t>();
    const float* src = fout[k].dptr<float>();
    for (size_t i = 0; i < out[k].Size(); ++i) dst[i] = half_t(src[i]);
  }
}

template <typename DType>
void FillZero(const TBlob& b, OpReqType req) {
  if (req == kNullOp || req == kAddTo) return;
  DType* p = b.dptr<DType>();
  for (size_t i = 0; i < b.Size(); ++i) p[i] = DType(0);
}

// ------------------------------------------------------------------------------------ dot
/*! \brief The 2-D views dot uses: lhs (ma x na), rhs (mb x nb), out (m x n). */
struct DotDims {
  index_t ma, na, mb, nb, m, n;
  DotDims(const DotParam& p, const TShape& l, const TShape& r) {
    const int ld = l.ndim(), rd = r.ndim();
    ma = p.transpose_a ? l[0] : static_cast<index_t>(l.ProdShape(0, ld - 1));
    na = p.transpose_a ? static_cast<index_t>(l.ProdShape(1, ld)) : l[ld - 1];
    mb = p.transpose_b ? static_cast<index_t>(r.ProdShape(0, rd - 1)) : r[0];
    nb = p.transpose_b ? r[rd - 1] : static_cast<index_t>(r.ProdShape(1, rd));
    m = p.transpose_a ? na : ma;
    n = p.transpose_b ? mb : nb;
  }
};

bool DotShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const DotParam& p = Param<DotParam>(attrs);
  const TShape& l = (*in)[0];
  const TShape& r = (*in)[1];
  if (l.ndim() < 0 || r.ndim() < 0) return false;
  CHECK(l.ndim() > 0 && r.ndim() > 0)
      << "Operator " << attrs.op->name << ": scalar (0-d) inputs are not supported, given "
      << l << " and " << r;
  if (l.ndim() == 1 && r.ndim() == 1) {
    CHECK(!p.transpose_a && !p.transpose_b)
        << "Operator " << attrs.op->name << ": cannot transpose 1-D inputs";
    CHECK_EQ(l[0], r[0]) << "Operator " << attrs.op->name << ": shapes " << l << " and " << r
                         << " do not match for the inner product";
    AssignShape(attrs, "output", &(*out)[0], TShape{1});
    return true;
  }
  // Unknown dims (-1, e.g. the batch) propagate to the output; the contracted sizes are
  // compared only when known (MXNet 1.9.1's partial inference).
  const bool ta = p.transpose_a, tb = p.transpose_b;
  // lhs = (L0 dims) x (L1 dims) with the contracted part L[!ta]; rhs likewise with R[tb].
  std::vector<dim_t> l0, l1, r0, r1;
  if (ta) {
    l0 = {l[0]};
    l1 = l.ndim() > 1 ? std::vector<dim_t>(l.begin() + 1, l.end()) : std::vector<dim_t>{1};
  } else {
    l0 = l.ndim() > 1 ? std::vector<dim_t>(l.begin(), l.end() - 1) : std::vector<dim_t>{1};
    l1 = {l[l.ndim() - 1]};
  }
  if (tb) {
    r0 = r.ndim() > 1 ? std::vector<dim_t>(r.begin(), r.end() - 1) : std::vector<dim_t>{1};
    r1 = {r[r.ndim() - 1]};
  } else {
    r0 = {r[0]};
    r1 = r.ndim() > 1 ? std::vector<dim_t>(r.begin() + 1, r.end()) : std::vector<dim_t>{1};
  }
  auto prod = [](const std::vector<dim_t>& v) {
    dim_t s = 1;
    for (dim_t d : v) {
      if (d < 0) return dim_t(-1);
      s *= d;
    }
    return s;
  };
  const std::vector<dim_t>& lk = ta ? l0 : l1;
  const std::vector<dim_t>& rk = tb ? r1 : r0;
  CHECK(prod(lk) < 0 || prod(rk) < 0 || prod(lk) == prod(rk)) << "Operator " << attrs.op->name << ": shapes " << l << " and "
                               << r << " (transpose_a=" << ta << ", transpose_b=" << tb
                               << ") do not match on the contracted axis";
  std::vector<dim_t> o;
  if (l.ndim() > 1) {
    const std::vector<dim_t>& keep = ta ? l1 : l0;
    o.insert(o.end(), keep.begin(), keep.end());
  }
  if (r.ndim() > 1) {
    const std::vector<dim_t>& keep = tb ? r0 : r1;
    o.insert(o.end(), keep.begin(), keep.end());
  }
  AssignShape(attrs, "output", &(*out)[0], TShape(o.begin(), o.end()));
  return l.IsKnown() && r.IsKnown();
}

template <typename DType>
void DotForwardImpl(const DotParam& p, const TBlob& l, const TBlob& r, const TBlob& o,
                    OpReqType req) {
  if (req == kNullOp) return;
  if (l.ndim() == 1 && r.ndim() == 1) {
    DType v = linalg::Dot<DType>(l.Size(), l.dptr<DType>(), r.dptr<DType>());
    Assign(o.dptr<DType>(), req, v);
    return;
  }
  if (l.Size() == 0 || r.Size() == 0) {
    FillZero<DType>(o, req);
    return;
  }
  DotDims d(p, l.shape_, r.shape_);
  MatMul<DType>(p.transpose_a, p.transpose_b, CMat<DType>(l, d.ma, d.na),
                CMat<DType>(r, d.mb, d.nb), WMat<DType>(o, d.m, d.n), req);
}

void DotForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const DotParam& p = Param<DotParam>(attrs);
  WithWideFloat(ctx, in, req, out, [&](const std::vector<TBlob>& i, const std::vector<OpReqType>& q,
                                       const std::vector<TBlob>& o) {
    if (o[0].type_flag_ == kFloat64) DotForwardImpl<double>(p, i[0], i[1], o[0], q[0]);
    else DotForwardImpl<float>(p, i[0], i[1], o[0], q[0]);
  });
}

// Inputs (ograd, lhs, rhs); outputs (lhs_grad, rhs_grad).
template <typename DType>
void DotBackwardImpl(const DotParam& p, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const TBlob &og = in[0], &l = in[1], &r = in[2];
  if (l.ndim() == 1 && r.ndim() == 1) {
    const DType g = og.dptr<DType>()[0];
    for (size_t i = 0; i < l.Size(); ++i) {
      if (req[0] != kNullOp) Assign(out[0].dptr<DType>() + i, req[0], DType(g * r.dptr<DType>()[i]));
      if (req[1] != kNullOp) Assign(out[1].dptr<DType>() + i, req[1], DType(g * l.dptr<DType>()[i]));
    }
    return;
  }
  if (og.Size() == 0 || l.Size() == 0 || r.Size() == 0) {
    FillZero<DType>(out[0], req[0]);
    FillZero<DType>(out[1], req[1]);
    return;
  }
  DotDims d(p, l.shape_, r.shape_);
  auto A = CMat<DType>(l, d.ma, d.na), B = CMat<DType>(r, d.mb, d.nb), G = CMat<DType>(og, d.m, d.n);
  auto dA = WMat<DType>(out[0], d.ma, d.na), dB = WMat<DType>(out[1], d.mb, d.nb);
  const bool ta = p.transpose_a, tb = p.transpose_b;
  if (!ta && !tb) {
    MatMul<DType>(false, true, G, B, dA, req[0]);   // dA = G B^T
    MatMul<DType>(true, false, A, G, dB, req[1]);   // dB = A^T G
  } else if (!ta && tb) {
    MatMul<DType>(false, false, G, B, dA, req[0]);  // dA = G B
    MatMul<DType>(true, false, G, A, dB, req[1]);   // dB = G^T A
  } else if (ta && !tb) {
    MatMul<DType>(false, true, B, G, dA, req[0]);   // dA = B G^T
    MatMul<DType>(false, false, A, G, dB, req[1]);  // dB = A G
  } else {
    MatMul<DType>(true, true, B, G, dA, req[0]);    // dA = B^T G^T
    MatMul<DType>(true, true, G, A, dB, req[1]);    // dB = G^T A^T
  }
}

void DotBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const DotParam& p = Param<DotParam>(attrs);
  WithWideFloat(ctx, in, req, out, [&](const std::vector<TBlob>& i, const std::vector<OpReqType>& q,
                                       const std::vector<TBlob>& o) {
    if (o[0].type_flag_ == kFloat64) DotBackwardImpl<double>(p, i, q, o);
    else DotBackwardImpl<float>(p, i, q, o);
  });
}

bool DotBackwardShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  AssignShape(attrs, "lhs", &(*out)[0], (*in)[1]);
  AssignShape(attrs, "rhs", &(*out)[1], (*in)[2]);
  AssignShape(attrs, "lhs", &(*in)[1], (*out)[0]);
  AssignShape(attrs, "rhs", &(*in)[2], (*out)[1]);
  return (*out)[0].IsKnown() && (*out)[1].IsKnown();
}

std::vector<NodeEntry> DotGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  NodeEntry bw = MakeNode("_backward_dot", n->attrs.name + "_backward",
                          {og[0], n->inputs[0], n->inputs[1]}, n->attrs.dict);
  return {NodeEntry(bw.node, 0, 0), NodeEntry(bw.node, 1, 0)};
}

// _backward_dot is bilinear: (og, A, B) -> (J_A(B)^T og, J_B(A)^T og) with J the Jacobians of
// dot. Its own gradient for head grads (gA, gB) is therefore
//   og: dot(gA, B) + dot(A, gB);  A: _backward_dot(og, A, gB)[0];  B: _backward_dot(og, gA, B)[1].
std::vector<NodeEntry> DotBackwardGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  const std::string name = n->attrs.name + "_backward";
  const auto& dict = n->attrs.dict;
  NodeEntry g_og = MakeNode(
      "elemwise_add", name,
      {MakeNode("dot", name, {og[0], n->inputs[2]}, dict),
       MakeNode("dot", name, {n->inputs[1], og[1]}, dict)});
  NodeEntry a = MakeNode("_backward_dot", name, {n->inputs[0], n->inputs[1], og[1]}, dict);
  NodeEntry b = MakeNode("_backward_dot", name, {n->inputs[0], og[0], n->inputs[2]}, dict);
  return {g_og, NodeEntry(a.node, 0, 0), NodeEntry(b.node, 1, 0)};
}

// ------------------------------------------------------------------------------ batch_dot
bool BatchDotShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const DotParam& p = Param<DotParam>(attrs);
  const TShape& l = (*in)[0];
  const TShape& r = (*in)[1];
  if (l.ndim() < 0 || r.ndim() < 0) return false;
  CHECK(l.ndim() >= 3 && l.ndim() == r.ndim())
      << "Operator " << attrs.op->name << ": inputs must be N-D arrays of equal ndim >= 3, given "
      << l << " and " << r;
  const int nd = l.ndim();
  for (int i = 0; i < nd - 2; ++i) {
    CHECK(l[i] < 0 || r[i] < 0 || l[i] == r[i])
        << "Operator " << attrs.op->name << ": batch dimensions of " << l << " and " << r
        << " differ";
  }
  const dim_t m = p.transpose_a ? l[nd - 1] : l[nd - 2];
  const dim_t kl = p.transpose_a ? l[nd - 2] : l[nd - 1];
  const dim_t kr = p.transpose_b ? r[nd - 1] : r[nd - 2];
  const dim_t n = p.transpose_b ? r[nd - 2] : r[nd - 1];
  // As MXNet 1.9.1: the matrix dims must be known; unknown batch dims propagate.
  if (m < 0 || kl < 0 || kr < 0 || n < 0) return false;
  CHECK_EQ(kl, kr) << "Operator " << attrs.op->name << ": shapes " << l << " and " << r
                   << " (transpose_a=" << p.transpose_a << ", transpose_b=" << p.transpose_b
                   << ") do not match on the contracted axis";
  TShape o = l;
  for (int i = 0; i < nd - 2; ++i) o[i] = l[i] >= 0 ? l[i] : r[i];
  o[nd - 2] = m;
  o[nd - 1] = n;
  AssignShape(attrs, "output", &(*out)[0], o);
  return o.IsKnown();
}

template <typename DType>
void BatchDotImpl(const DotParam& p, const TBlob& l, const TBlob& r, const TBlob& o,
                  OpReqType req) {
  if (req == kNullOp) return;
  if (l.Size() == 0 || r.Size() == 0) {
    FillZero<DType>(o, req);
    return;
  }
  MatrixBatch bl = MatrixBatch::Trailing(l.shape_), br = MatrixBatch::Trailing(r.shape_),
              bo = MatrixBatch::Trailing(o.shape_);
  for (index_t b = 0; b < bo.count(); ++b) {
    Mat<const DType> A = bl.At<const DType>(l.dptr<DType>(), b);
    Mat<const DType> B = br.At<const DType>(r.dptr<DType>(), b);
    MatMul<DType>(p.transpose_a, p.transpose_b, A, B, bo.At(o.dptr<DType>(), b), req);
  }
}

void BatchDotForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const DotParam& p = Param<DotParam>(attrs);
  WithWideFloat(ctx, in, req, out, [&](const std::vector<TBlob>& i, const std::vector<OpReqType>& q,
                                       const std::vector<TBlob>& o) {
    if (o[0].type_flag_ == kFloat64) BatchDotImpl<double>(p, i[0], i[1], o[0], q[0]);
    else BatchDotImpl<float>(p, i[0], i[1], o[0], q[0]);
  });
}

// C = op_a(A) op_b(B): d op_a(A) = G op_b(B)^T, d op_b(B) = op_a(A)^T G, each again a batch_dot.
std::vector<NodeEntry> BatchDotGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  const DotParam& p = Param<DotParam>(n->attrs);
  const bool ta = p.transpose_a, tb = p.transpose_b;
  const std::string name = n->attrs.name + "_backward";
  const NodeEntry &A = n->inputs[0], &B = n->inputs[1], &G = og[0];
  NodeEntry dA = ta ? MakeNode("batch_dot", name, {B, G}, TransDict(tb, true))
                    : MakeNode("batch_dot", name, {G, B}, TransDict(false, !tb));
  NodeEntry dB = tb ? MakeNode("batch_dot", name, {G, A}, TransDict(true, ta))
                    : MakeNode("batch_dot", name, {A, G}, TransDict(!ta, false));
  return {dA, dB};
}

}  // namespace

NNVM_REGISTER_OP(dot)
    .describe(R"doc(Dot product of two arrays.

``dot``'s behavior depends on the input array dimensions:

- 1-D arrays: inner product of vectors (output shape (1,))
- 2-D arrays: matrix multiplication
- N-D arrays: a sum product over the last axis of the first input and the first axis of the
  second input; e.g. x of shape (n,m,k) and y of shape (k,r,s) give an output of shape
  (n,m,r,s) with dot(x,y)[i,j,a,b] = sum(x[i,j,:] * y[:,a,b]).

``transpose_a`` (``transpose_b``) first views the input as a matrix whose rows are its first
axis (columns its last axis) and transposes it.
)doc")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<DotParam>)
    .add_argument("lhs", "NDArray-or-Symbol", "The first input")
    .add_argument("rhs", "NDArray-or-Symbol", "The second input")
    .add_arguments(DotParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames",
                               InputNames({"lhs", "rhs"}))
    .set_attr<FInferShape>("FInferShape", DotShape)
    .set_attr<FInferType>("FInferType", RealType)
    .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
    .set_attr<FCompute>("FCompute<cpu>", DotForward)
    .set_attr<FInferStorageType>("FInferStorageType", DotStorage)
    .set_attr<FComputeEx>("FComputeEx<cpu>", DotCsrCompute)
    .set_attr<FGradient>("FGradient", DotGrad);

NNVM_REGISTER_OP(_backward_dot)
    .describe("Gradients of dot with respect to lhs and rhs, given the output gradient.")
    .set_num_inputs(3)
    .set_num_outputs(2)
    .set_attr_parser(ParamParser<DotParam>)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output of dot")
    .add_argument("lhs", "NDArray-or-Symbol", "The first input of dot")
    .add_argument("rhs", "NDArray-or-Symbol", "The second input of dot")
    .add_arguments(DotParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames",
                               InputNames({"ograd", "lhs", "rhs"}))
    .set_attr<FInferShape>("FInferShape", DotBackwardShape)
    .set_attr<FInferType>("FInferType", RealType)
    .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
    .set_attr<FCompute>("FCompute<cpu>", DotBackward)
    .set_attr<FInferStorageType>("FInferStorageType", DotBackwardStorage)
    .set_attr<FComputeEx>("FComputeEx<cpu>", DotBackwardCsr)
    .set_attr<FGradient>("FGradient", DotBackwardGrad);

NNVM_REGISTER_OP(batch_dot)
    .describe(R"doc(Batchwise dot product.

``lhs`` and ``rhs`` are N-D arrays (N >= 3) of equal batch dimensions; the product of the
matrices on their last two axes is taken for every batch index. With shapes (B, M, K) and
(B, K, N) the output is (B, M, N); ``transpose_a`` / ``transpose_b`` transpose those matrices.
)doc")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<DotParam>)
    .add_argument("lhs", "NDArray-or-Symbol", "The first input")
    .add_argument("rhs", "NDArray-or-Symbol", "The second input")
    .add_arguments(DotParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames",
                               InputNames({"lhs", "rhs"}))
    .set_attr<FInferShape>("FInferShape", BatchDotShape)
    .set_attr<FInferType>("FInferType", RealType)
    .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
    .set_attr<FCompute>("FCompute<cpu>", BatchDotForward)
    .set_attr<FGradient>("FGradient", BatchDotGrad);

}  // namespace op
}  // namespace mxnet
