// Batched matrix products of the linalg family: _linalg_gemm, _linalg_gemm2, _linalg_trsm,
// _linalg_trmm and _linalg_syrk, with gradients built from these same operators.
#include <string>
#include <unordered_map>
#include <vector>

#include "operator/tensor/la_op_common.h"

namespace mxnet {
namespace op {

struct LaMatrixMacParam : public dmlc::Parameter<LaMatrixMacParam> {
  bool transpose_a, transpose_b;
  double alpha, beta;
  int axis;
  DMLC_DECLARE_PARAMETER(LaMatrixMacParam) {
    DMLC_DECLARE_FIELD(transpose_a).set_default(false)
        .describe("Multiply with transposed of first input (A).");
    DMLC_DECLARE_FIELD(transpose_b).set_default(false)
        .describe("Multiply with transposed of second input (B).");
    DMLC_DECLARE_FIELD(alpha).set_default(1.0).describe("Scalar factor multiplied with A*B.");
    DMLC_DECLARE_FIELD(beta).set_default(1.0).describe("Scalar factor multiplied with C.");
    DMLC_DECLARE_FIELD(axis).set_default(-2).describe("Axis corresponding to the matrix rows.");
  }
};

struct LaMatrixMultParam : public dmlc::Parameter<LaMatrixMultParam> {
  bool transpose_a, transpose_b;
  double alpha;
  int axis;
  DMLC_DECLARE_PARAMETER(LaMatrixMultParam) {
    DMLC_DECLARE_FIELD(transpose_a).set_default(false)
        .describe("Multiply with transposed of first input (A).");
    DMLC_DECLARE_FIELD(transpose_b).set_default(false)
        .describe("Multiply with transposed of second input (B).");
    DMLC_DECLARE_FIELD(alpha).set_default(1.0).describe("Scalar factor multiplied with A*B.");
    DMLC_DECLARE_FIELD(axis).set_default(-2)
        .describe("Axis corresponding to the matrix row indices.");
  }
};

struct LaTriangMatrixMultParam : public dmlc::Parameter<LaTriangMatrixMultParam> {
  bool transpose, rightside, lower;
  double alpha;
  DMLC_DECLARE_PARAMETER(LaTriangMatrixMultParam) {
    DMLC_DECLARE_FIELD(transpose).set_default(false)
        .describe("Use transposed of the triangular matrix");
    DMLC_DECLARE_FIELD(rightside).set_default(false)
        .describe("Multiply triangular matrix from the right to non-triangular one.");
    DMLC_DECLARE_FIELD(lower).set_default(true)
        .describe("True if the triangular matrix is lower triangular, false if it is upper "
                  "triangular.");
    DMLC_DECLARE_FIELD(alpha).set_default(1.0).describe("Scalar factor to be applied to the result.");
  }
};

struct LaSyrkParam : public dmlc::Parameter<LaSyrkParam> {
  bool transpose;
  double alpha;
  DMLC_DECLARE_PARAMETER(LaSyrkParam) {
    DMLC_DECLARE_FIELD(transpose).set_default(false).describe("Use transpose of input matrix.");
    DMLC_DECLARE_FIELD(alpha).set_default(1.0).describe("Scalar factor to be applied to the result.");
  }
};

DMLC_REGISTER_PARAMETER(LaMatrixMacParam);
DMLC_REGISTER_PARAMETER(LaMatrixMultParam);
DMLC_REGISTER_PARAMETER(LaTriangMatrixMultParam);
DMLC_REGISTER_PARAMETER(LaSyrkParam);

namespace {

using linalg::Mat;

// ----------------------------------------------------------------------------- gemm, gemm2
struct GemmArgs {
  bool ta, tb;
  double alpha, beta;
  int axis;
};

GemmArgs ArgsOf(const NodeAttrs& attrs) {
  if (attrs.op->num_inputs == 3) {
    const auto& p = Param<LaMatrixMacParam>(attrs);
    return {p.transpose_a, p.transpose_b, p.alpha, p.beta, p.axis};
  }
  const auto& p = Param<LaMatrixMultParam>(attrs);
  return {p.transpose_a, p.transpose_b, p.alpha, 0.0, p.axis};
}

bool GemmShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const GemmArgs g = ArgsOf(attrs);
  const TShape& a = (*in)[0];
  const TShape& b = (*in)[1];
  if (!a.IsKnown() || !b.IsKnown()) return false;
  CheckMatrices(attrs, a, 0, false);
  CHECK_EQ(a.ndim(), b.ndim()) << "Operator " << attrs.op->name << ": A and B must have the same "
                               << "number of dimensions, given " << a << " and " << b;
  const int nd = a.ndim();
  const int axis = g.axis < 0 ? nd + g.axis : g.axis;
  CHECK(axis >= 0 && axis < nd - 1) << "Operator " << attrs.op->name << ": argument axis must be in ["
                                    << -nd << ", " << nd - 2 << "], given " << g.axis;
  TShape o = a;
  for (int i = 0; i < nd - 1; ++i) {
    if (i == axis) continue;
    CHECK_EQ(a[i], b[i]) << "Operator " << attrs.op->name << ": A " << a << " and B " << b
                         << " must agree on every axis but the row and column axes";
  }
  const dim_t ka = g.ta ? a[axis] : a[nd - 1];
  const dim_t kb = g.tb ? b[nd - 1] : b[axis];
  CHECK_EQ(ka, kb) << "Operator " << attrs.op->name << ": incompatible matrix dimensions of A " << a
                   << " and B " << b << " (transpose_a=" << g.ta << ", transpose_b=" << g.tb << ")";
  o[axis] = g.ta ? a[nd - 1] : a[axis];
  o[nd - 1] = g.tb ? b[axis] : b[nd - 1];
  if (in->size() == 3) AssignShape(attrs, "C", &(*in)[2], o);
  AssignShape(attrs, "output", &(*out)[0], o);
  return true;
}

void GemmForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const GemmArgs g = ArgsOf(attrs);
  const bool mac = in.size() == 3;
  const int nd = out[0].ndim();
  const int axis = g.axis < 0 ? nd + g.axis : g.axis;
  MXNET_LA_TYPE_SWITCH(out[0].type_flag_, DType, {
    MatrixBatch ba(in[0].shape_, axis), bb(in[1].shape_, axis), bo(out[0].shape_, axis);
    DType* o = out[0].dptr<DType>();
    const size_t n = out[0].Size();
    DType gemm_beta = DType(req[0] == kAddTo ? 1 : 0);
    if (mac && g.beta != 0) {
      // out (+)= beta * C first, then accumulate the product on top.
      const DType* c = in[2].dptr<DType>();
      const DType beta = DType(g.beta);
      if (req[0] == kAddTo) {
        for (size_t i = 0; i < n; ++i) o[i] += beta * c[i];
      } else {
        for (size_t i = 0; i < n; ++i) o[i] = beta * c[i];
      }
      gemm_beta = DType(1);
    }
    for (index_t b = 0; b < bo.count(); ++b) {
      linalg::Gemm<DType>(g.ta, g.tb, DType(g.alpha), ba.At<const DType>(in[0].dptr<DType>(), b),
                          bb.At<const DType>(in[1].dptr<DType>(), b), gemm_beta, bo.At(o, b));
    }
  });
}

NodeEntry Gemm2Node(const std::string& name, NodeEntry a, NodeEntry b, bool ta, bool tb,
                    double alpha, int axis) {
  return MakeNode("_linalg_gemm2", name, {a, b},
                  {{"transpose_a", BoolText(ta)}, {"transpose_b", BoolText(tb)},
                   {"alpha", ScalarText(alpha)}, {"axis", std::to_string(axis)}});
}

// C = alpha op_a(A) op_b(B): d op_a(A) = alpha G op_b(B)^T, d op_b(B) = alpha op_a(A)^T G.
std::vector<NodeEntry> GemmGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  const GemmArgs g = ArgsOf(n->attrs);
  const std::string name = n->attrs.name + "_backward";
  const NodeEntry &A = n->inputs[0], &B = n->inputs[1], &G = og[0];
  std::vector<NodeEntry> ret;
  ret.push_back(g.ta ? Gemm2Node(name, B, G, g.tb, true, g.alpha, g.axis)
                     : Gemm2Node(name, G, B, false, !g.tb, g.alpha, g.axis));
  ret.push_back(g.tb ? Gemm2Node(name, G, A, true, g.ta, g.alpha, g.axis)
                     : Gemm2Node(name, A, G, !g.ta, false, g.alpha, g.axis));
  if (n->inputs.size() == 3) {
    ret.push_back(g.beta == 1.0 ? G
                                : MakeNode("_mul_scalar", name, {G}, {{"scalar", ScalarText(g.beta)}}));
  }
  return ret;
}

// ------------------------------------------------------------------------------ trsm, trmm
bool TriangShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const auto& p = Param<LaTriangMatrixMultParam>(attrs);
  const TShape& a = (*in)[0];
  const TShape& b = (*in)[1];
  if (!a.IsKnown() || !b.IsKnown()) return false;
  CheckMatrices(attrs, a, 0, true);
  CheckMatrices(attrs, b, 1, false);
  const int nd = a.ndim();
  CHECK_EQ(nd, b.ndim()) << "Operator " << attrs.op->name << ": A " << a << " and B " << b
                         << " must have the same number of dimensions";
  for (int i = 0; i < nd - 2; ++i) {
    CHECK_EQ(a[i], b[i]) << "Operator " << attrs.op->name << ": A " << a << " and B " << b
                         << " must agree on the batch axes";
  }
  const dim_t k = p.rightside ? b[nd - 1] : b[nd - 2];
  CHECK_EQ(a[nd - 1], k) << "Operator " << attrs.op->name << ": incompatible matrix dimensions of A "
                         << a << " and B " << b << " (rightside=" << p.rightside << ")";
  AssignShape(attrs, "output", &(*out)[0], b);
  return true;
}

template <bool kSolve>
void TriangForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const auto& p = Param<LaTriangMatrixMultParam>(attrs);
  MXNET_LA_TYPE_SWITCH(out[0].type_flag_, DType, {
    const size_t n = out[0].Size();
    Scratch s(ctx, req[0] == kAddTo ? Scratch::Bytes(n, sizeof(DType)) : 0);
    DType* tmp = req[0] == kAddTo ? s.Take<DType>(n) : nullptr;
    WriteOutput<DType>(out[0], req[0], tmp, [&](DType* o) {
      CopyIfNeeded(o, in[1].dptr<DType>(), n);
      MatrixBatch ba = MatrixBatch::Trailing(in[0].shape_), bo = MatrixBatch::Trailing(out[0].shape_);
      for (index_t b = 0; b < bo.count(); ++b) {
        Mat<const DType> A = ba.At<const DType>(in[0].dptr<DType>(), b);
        if (kSolve) {
          linalg::Trsm<DType>(p.rightside, p.lower, p.transpose, DType(p.alpha), A, bo.At(o, b));
        } else {
          linalg::Trmm<DType>(p.rightside, p.lower, p.transpose, DType(p.alpha), A, bo.At(o, b));
        }
      }
    });
  });
}

NodeEntry TriangNode(const char* op, const std::string& name, NodeEntry a, NodeEntry b,
                     const LaTriangMatrixMultParam& p, bool transpose, double alpha) {
  return MakeNode(op, name, {a, b},
                  {{"transpose", BoolText(transpose)}, {"rightside", BoolText(p.rightside)},
                   {"lower", BoolText(p.lower)}, {"alpha", ScalarText(alpha)}});
}

NodeEntry KeepTriangle(const std::string& name, NodeEntry x, bool lower) {
  return MakeNode("_linalg_triangle", name, {x}, {{"mode", lower ? "lower" : "upper"}});
}

// X = alpha M^-1 B (left) or alpha B M^-1 (right) with M = op(A). With Y = M^-T G (left) or
// G M^-T (right): dB = alpha Y, and d M = -Y X^T (left) or -X^T Y (right); dA is d M (or its
// transpose) restricted to the triangle that A uses.
std::vector<NodeEntry> TrsmGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  const auto& p = Param<LaTriangMatrixMultParam>(n->attrs);
  const std::string name = n->attrs.name + "_backward";
  const NodeEntry &A = n->inputs[0], X = Out(n), &G = og[0];
  NodeEntry Y = TriangNode("_linalg_trsm", name, A, G, p, !p.transpose, 1.0);
  NodeEntry dB = p.alpha == 1.0 ? Y : TriangNode("_linalg_trsm", name, A, G, p, !p.transpose, p.alpha);
  const int ax = -2;
  NodeEntry dA;
  if (!p.rightside) {
    dA = p.transpose ? Gemm2Node(name, X, Y, false, true, -1.0, ax)
                     : Gemm2Node(name, Y, X, false, true, -1.0, ax);
  } else {
    dA = p.transpose ? Gemm2Node(name, Y, X, true, false, -1.0, ax)
                     : Gemm2Node(name, X, Y, true, false, -1.0, ax);
  }
  return {KeepTriangle(name, dA, p.lower), dB};
}

// Out = alpha op(A) B (left) or alpha B op(A) (right).
std::vector<NodeEntry> TrmmGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  const auto& p = Param<LaTriangMatrixMultParam>(n->attrs);
  const std::string name = n->attrs.name + "_backward";
  const NodeEntry &A = n->inputs[0], &B = n->inputs[1], &G = og[0];
  NodeEntry dB = TriangNode("_linalg_trmm", name, A, G, p, !p.transpose, p.alpha);
  NodeEntry dA;
  if (!p.rightside) {
    dA = p.transpose ? Gemm2Node(name, B, G, false, true, p.alpha, -2)
                     : Gemm2Node(name, G, B, false, true, p.alpha, -2);
  } else {
    dA = p.transpose ? Gemm2Node(name, G, B, true, false, p.alpha, -2)
                     : Gemm2Node(name, B, G, true, false, p.alpha, -2);
  }
  return {KeepTriangle(name, dA, p.lower), dB};
}

// ------------------------------------------------------------------------------------ syrk
bool SyrkShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const auto& p = Param<LaSyrkParam>(attrs);
  const TShape& a = (*in)[0];
  if (!a.IsKnown()) return false;
  CheckMatrices(attrs, a, 0, false);
  const int nd = a.ndim();
  TShape o = a;
  o[nd - 2] = o[nd - 1] = p.transpose ? a[nd - 1] : a[nd - 2];
  AssignShape(attrs, "output", &(*out)[0], o);
  return true;
}

void SyrkForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const auto& p = Param<LaSyrkParam>(attrs);
  MXNET_LA_TYPE_SWITCH(out[0].type_flag_, DType, {
    const size_t n = out[0].Size();
    Scratch s(ctx, req[0] == kAddTo ? Scratch::Bytes(n, sizeof(DType)) : 0);
    DType* tmp = req[0] == kAddTo ? s.Take<DType>(n) : nullptr;
    WriteOutput<DType>(out[0], req[0], tmp, [&](DType* o) {
      MatrixBatch ba = MatrixBatch::Trailing(in[0].shape_), bo = MatrixBatch::Trailing(out[0].shape_);
      for (index_t b = 0; b < bo.count(); ++b) {
        linalg::Syrk<DType>(p.transpose, DType(p.alpha), ba.At<const DType>(in[0].dptr<DType>(), b),
                            bo.At(o, b));
      }
    });
  });
}

// Out = alpha A A^T: dA = alpha (G + G^T) A;  Out = alpha A^T A: dA = alpha A (G + G^T).
std::vector<NodeEntry> SyrkGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  const auto& p = Param<LaSyrkParam>(n->attrs);
  const std::string name = n->attrs.name + "_backward";
  const NodeEntry &A = n->inputs[0], &G = og[0];
  NodeEntry x = p.transpose ? Gemm2Node(name, A, G, false, false, p.alpha, -2)
                            : Gemm2Node(name, G, A, false, false, p.alpha, -2);
  NodeEntry y = p.transpose ? Gemm2Node(name, A, G, false, true, p.alpha, -2)
                            : Gemm2Node(name, G, A, true, false, p.alpha, -2);
  return {MakeNode("elemwise_add", name, {x, y})};
}


}  // namespace

NNVM_REGISTER_OP(_linalg_gemm)
    .add_alias("linalg_gemm")
    .describe(R"doc(Performs general matrix multiplication and accumulation.

Input are tensors *A*, *B*, *C*, each of dimension *n >= 2* and having the same shape on the
leading *n-2* dimensions. For every matrix of the batch:

  *out* = *alpha* \* *op*\ (*A*) \* *op*\ (*B*) + *beta* \* *C*

where *op*\ (X) is X or its transpose (``transpose_a``, ``transpose_b``). ``axis`` names the
axis of the matrix rows (default -2, the second-to-last); the columns are the last axis.
The operator supports float32 and float64 data types only.
)doc")
    .set_num_inputs(3)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<LaMatrixMacParam>)
    .add_argument("A", "NDArray-or-Symbol", "Tensor of input matrices")
    .add_argument("B", "NDArray-or-Symbol", "Tensor of input matrices")
    .add_argument("C", "NDArray-or-Symbol", "Tensor of input matrices")
    .add_arguments(LaMatrixMacParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"A", "B", "C"}))
    .set_attr<FInferShape>("FInferShape", GemmShape)
    .set_attr<FInferType>("FInferType", LaType)
    .set_attr<FInplaceOption>("FInplaceOption", [](const NodeAttrs&) {
      return std::vector<std::pair<int, int>>{{2, 0}};
    })
    .set_attr<FCompute>("FCompute<cpu>", GemmForward)
    .set_attr<FGradient>("FGradient", GemmGrad);

NNVM_REGISTER_OP(_linalg_gemm2)
    .add_alias("linalg_gemm2")
    .describe(R"doc(Performs general matrix multiplication.

Input are tensors *A*, *B*, each of dimension *n >= 2* and having the same shape on the leading
*n-2* dimensions. For every matrix of the batch:

  *out* = *alpha* \* *op*\ (*A*) \* *op*\ (*B*)

``axis`` names the axis of the matrix rows (default -2). float32 and float64 only.
)doc")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<LaMatrixMultParam>)
    .add_argument("A", "NDArray-or-Symbol", "Tensor of input matrices")
    .add_argument("B", "NDArray-or-Symbol", "Tensor of input matrices")
    .add_arguments(LaMatrixMultParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"A", "B"}))
    .set_attr<FInferShape>("FInferShape", GemmShape)
    .set_attr<FInferType>("FInferType", LaType)
    .set_attr<FCompute>("FCompute<cpu>", GemmForward)
    .set_attr<FGradient>("FGradient", GemmGrad);

NNVM_REGISTER_OP(_linalg_trsm)
    .add_alias("linalg_trsm")
    .describe(R"doc(Solves matrix equation involving a triangular matrix.

Input are tensors *A*, *B*, each of dimension *n >= 2* and having the same shape on the leading
*n-2* dimensions; *A* holds square triangular matrices (lower when ``lower``, the other triangle
is not used). For every matrix of the batch, *out* solves

  *op*\ (*A*) \* *out* = *alpha* \* *B*   (``rightside=False``)
  *out* \* *op*\ (*A*) = *alpha* \* *B*   (``rightside=True``)

with *op*\ (A) = A or its transpose (``transpose``). float32 and float64 only.
)doc")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<LaTriangMatrixMultParam>)
    .add_argument("A", "NDArray-or-Symbol", "Tensor of lower triangular matrices")
    .add_argument("B", "NDArray-or-Symbol", "Tensor of matrices")
    .add_arguments(LaTriangMatrixMultParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"A", "B"}))
    .set_attr<FInferShape>("FInferShape", TriangShape)
    .set_attr<FInferType>("FInferType", LaType)
    .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
    .set_attr<FInplaceOption>("FInplaceOption", [](const NodeAttrs&) {
      return std::vector<std::pair<int, int>>{{1, 0}};
    })
    .set_attr<FCompute>("FCompute<cpu>", TriangForward<true>)
    .set_attr<FGradient>("FGradient", TrsmGrad);

NNVM_REGISTER_OP(_linalg_trmm)
    .add_alias("linalg_trmm")
    .describe(R"doc(Performs multiplication with a triangular matrix.

Input are tensors *A*, *B*, each of dimension *n >= 2* and having the same shape on the leading
*n-2* dimensions; *A* holds square triangular matrices (lower when ``lower``, the other triangle
is not used). For every matrix of the batch:

  *out* = *alpha* \* *op*\ (*A*) \* *B*   (``rightside=False``)
  *out* = *alpha* \* *B* \* *op*\ (*A*)   (``rightside=True``)

float32 and float64 only.
)doc")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<LaTriangMatrixMultParam>)
    .add_argument("A", "NDArray-or-Symbol", "Tensor of lower triangular matrices")
    .add_argument("B", "NDArray-or-Symbol", "Tensor of matrices")
    .add_arguments(LaTriangMatrixMultParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"A", "B"}))
    .set_attr<FInferShape>("FInferShape", TriangShape)
    .set_attr<FInferType>("FInferType", LaType)
    .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
    .set_attr<FInplaceOption>("FInplaceOption", [](const NodeAttrs&) {
      return std::vector<std::pair<int, int>>{{1, 0}};
    })
    .set_attr<FCompute>("FCompute<cpu>", TriangForward<false>)
    .set_attr<FGradient>("FGradient", TrmmGrad);

NNVM_REGISTER_OP(_linalg_syrk)
    .add_alias("linalg_syrk")
    .describe(R"doc(Multiplication of matrix with its transpose.

Input is a tensor *A* of dimension *n >= 2*. For every matrix of the batch:

  *out* = *alpha* \* *A* \* *A*\ :sup:`T`   (``transpose=False``)
  *out* = *alpha* \* *A*\ :sup:`T` \* *A*   (``transpose=True``)

float32 and float64 only.
)doc")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<LaSyrkParam>)
    .add_argument("A", "NDArray-or-Symbol", "Tensor of input matrices")
    .add_arguments(LaSyrkParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"A"}))
    .set_attr<FInferShape>("FInferShape", SyrkShape)
    .set_attr<FInferType>("FInferType", LaType)
    .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
    .set_attr<FCompute>("FCompute<cpu>", SyrkForward)
    .set_attr<FGradient>("FGradient", SyrkGrad);

}  // namespace op
}  // namespace mxnet
