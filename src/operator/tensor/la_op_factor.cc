// Factorisation-based linalg operators (_linalg_potrf, _linalg_inverse, _linalg_det,
// _linalg_slogdet) and the small linear helpers their gradients are built from
// (_linalg_triangle, _linalg_scale_matrix, _linalg_matrix_inner).
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "operator/tensor/la_op_common.h"

namespace mxnet {
namespace op {

struct LaTriangleParam : public dmlc::Parameter<LaTriangleParam> {
  int mode;
  DMLC_DECLARE_PARAMETER(LaTriangleParam) {
    DMLC_DECLARE_FIELD(mode)
        .add_enum("lower", 0).add_enum("upper", 1).add_enum("symmetrize_lower", 2)
        .add_enum("fold_upper", 3)
        .describe("lower/upper: keep that triangle (diagonal included), zero the rest; "
                  "symmetrize_lower: mirror the lower triangle onto the upper one; "
                  "fold_upper: add the upper triangle onto the lower one (transposed) and zero "
                  "it (the adjoint of symmetrize_lower).");
  }
};

struct LaScaleParam : public dmlc::Parameter<LaScaleParam> {
  bool transpose;
  DMLC_DECLARE_PARAMETER(LaScaleParam) {
    DMLC_DECLARE_FIELD(transpose).set_default(false)
        .describe("Use the transposes of the matrices.");
  }
};

struct LaPotrfParam : public dmlc::Parameter<LaPotrfParam> {
  bool lower;
  DMLC_DECLARE_PARAMETER(LaPotrfParam) {
    DMLC_DECLARE_FIELD(lower).set_default(true).describe(
        "True if the triangular matrix is lower triangular, false if it is upper triangular.");
  }
};

DMLC_REGISTER_PARAMETER(LaTriangleParam);
DMLC_REGISTER_PARAMETER(LaPotrfParam);
DMLC_REGISTER_PARAMETER(LaScaleParam);

namespace {

using linalg::Mat;
enum TriangleMode { kLower = 0, kUpper = 1, kSymmetrizeLower = 2, kFoldUpper = 3 };

bool SquareShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& a = (*in)[0];
  if (!a.IsKnown()) return false;
  CheckMatrices(attrs, a, 0, true);
  AssignShape(attrs, "output", &(*out)[0], a);
  return true;
}

bool PerMatrixOutShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& a = (*in)[0];
  if (!a.IsKnown()) return false;
  CheckMatrices(attrs, a, 0, true);
  for (auto& o : *out) AssignShape(attrs, "output", &o, PerMatrixShape(a));
  return true;
}

// ----------------------------------------------------------------------------------- potrf
void PotrfForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  MXNET_LA_TYPE_SWITCH(out[0].type_flag_, DType, {
    const size_t n = out[0].Size();
    Scratch s(ctx, req[0] == kAddTo ? Scratch::Bytes(n, sizeof(DType)) : 0);
    DType* tmp = req[0] == kAddTo ? s.Take<DType>(n) : nullptr;
    WriteOutput<DType>(out[0], req[0], tmp, [&](DType* o) {
      CopyIfNeeded(o, in[0].dptr<DType>(), n);
      MatrixBatch bo = MatrixBatch::Trailing(out[0].shape_);
      for (index_t b = 0; b < bo.count(); ++b) {
        const int info = linalg::Cholesky<DType>(bo.At(o, b));
        CHECK_EQ(info, 0) << "Operator " << attrs.op->name << ": matrix " << b
                          << " of input A is not positive definite (its leading minor of order "
                          << info << " is not positive)";
        if (!Param<LaPotrfParam>(attrs).lower) {  // U = L^T, with A = U^T U
          linalg::Mat<DType> m = bo.At(o, b);
          for (index_t i = 0; i < m.rows; ++i) {
            for (index_t j = 0; j < i; ++j) {
              std::swap(m.data[i * m.ld + j], m.data[j * m.ld + i]);
            }
          }
        }
      }
    });
  });
}

// dA = 0.5 * L^-T * symmetrize_lower(L^T dL) * L^-1: as MXNet, the (symmetric) gradient with
// respect to a symmetric A, not restricted to the triangle potrf reads.
std::vector<NodeEntry> PotrfGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  const std::string name = n->attrs.name + "_backward";
  // With lower=False the output is U = L^T: the same rule on L and dL = dU^T.
  const bool lower = Param<LaPotrfParam>(n->attrs).lower;
  auto transposed = [&](NodeEntry e) {
    return lower ? e : MakeNode("SwapAxis", name, {e}, {{"dim1", "-2"}, {"dim2", "-1"}});
  };
  NodeEntry L = transposed(Out(n));
  NodeEntry dL = transposed(og[0]);
  auto gemm2 = [&](NodeEntry a, NodeEntry b, bool ta, bool tb) {
    return MakeNode("_linalg_gemm2", name, {a, b},
                    {{"transpose_a", BoolText(ta)}, {"transpose_b", BoolText(tb)}});
  };
  auto trsm = [&](NodeEntry b, bool transpose, bool rightside, double alpha) {
    return MakeNode("_linalg_trsm", name, {L, b},
                    {{"transpose", BoolText(transpose)}, {"rightside", BoolText(rightside)},
                     {"lower", "True"}, {"alpha", ScalarText(alpha)}});
  };
  NodeEntry sym = MakeNode("_linalg_triangle", name, {gemm2(L, dL, true, false)},
                           {{"mode", "symmetrize_lower"}});
  return {trsm(trsm(sym, true, false, 1.0), false, true, 0.5)};
}

// --------------------------------------------------------------------------------- inverse
void InverseForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  MXNET_LA_TYPE_SWITCH(out[0].type_flag_, DType, {
    const size_t n = out[0].Size();
    MatrixBatch bo = MatrixBatch::Trailing(out[0].shape_);
    const index_t k = bo.rows;
    Scratch s(ctx, Scratch::Bytes(k, sizeof(int)) +
                       Scratch::Bytes(linalg::InverseWorkSize(k), sizeof(DType)) +
                       (req[0] == kAddTo ? Scratch::Bytes(n, sizeof(DType)) : 0));
    int* ipiv = s.Take<int>(k);
    DType* work = s.Take<DType>(linalg::InverseWorkSize(k));
    DType* tmp = req[0] == kAddTo ? s.Take<DType>(n) : nullptr;
    WriteOutput<DType>(out[0], req[0], tmp, [&](DType* o) {
      CopyIfNeeded(o, in[0].dptr<DType>(), n);
      for (index_t b = 0; b < bo.count(); ++b) {
        const int info = linalg::Inverse<DType>(bo.At(o, b), ipiv, work);
        CHECK_EQ(info, 0) << "Operator " << attrs.op->name << ": matrix " << b
                          << " of input A is singular";
      }
    });
  });
}

// Y = A^-1: dA = -Y^T dY Y^T.
std::vector<NodeEntry> InverseGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  const std::string name = n->attrs.name + "_backward";
  NodeEntry Y = Out(n);
  NodeEntry t = MakeNode("_linalg_gemm2", name, {Y, og[0]}, {{"transpose_a", "True"}});
  return {MakeNode("_linalg_gemm2", name, {t, Y}, {{"transpose_b", "True"}, {"alpha", "-1"}})};
}

// ---------------------------------------------------------------------------- det, slogdet
/*! \brief fn(b, sign, logabsdet, det) for every matrix b of A, from its LU factors. */
template <typename DType, typename Fn>
void ForEachDeterminant(const OpContext& ctx, const TBlob& a, Fn fn) {
  MatrixBatch ba = MatrixBatch::Trailing(a.shape_);
  const index_t k = ba.rows;
  Scratch s(ctx, Scratch::Bytes(k, sizeof(int)) + Scratch::Bytes(k * k, sizeof(DType)));
  int* ipiv = s.Take<int>(k);
  DType* lu = s.Take<DType>(k * k);
  for (index_t b = 0; b < ba.count(); ++b) {
    const DType* src = a.dptr<DType>() + ba.Offset(b);
    std::copy(src, src + k * k, lu);
    Mat<DType> m{lu, k, k, k};
    linalg::LU<DType>(m, ipiv);
    DType sign = 1, logabs = 0, det = 1;
    for (index_t i = 0; i < k; ++i) {
      const DType d = lu[i * k + i];
      det *= d;
      if (d < 0) sign = -sign;
      if (ipiv[i] != i + 1) {
        det = -det;
        sign = -sign;
      }
      if (d == DType(0)) sign = 0;
      logabs += std::log(std::abs(d));
    }
    fn(b, sign, logabs, det);
  }
}

void DetForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  MXNET_LA_TYPE_SWITCH(out[0].type_flag_, DType, {
    DType* o = out[0].dptr<DType>();
    ForEachDeterminant<DType>(ctx, in[0], [&](index_t b, DType, DType, DType det) {
      if (req[0] != kNullOp) Assign(o + b, req[0], det);
    });
  });
}

void SlogdetForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  MXNET_LA_TYPE_SWITCH(out[0].type_flag_, DType, {
    DType* sign_out = out[0].dptr<DType>();
    DType* log_out = out[1].dptr<DType>();
    ForEachDeterminant<DType>(ctx, in[0], [&](index_t b, DType sign, DType logabs, DType) {
      if (req[0] != kNullOp) Assign(sign_out + b, req[0], sign);
      if (req[1] != kNullOp) Assign(log_out + b, req[1], logabs);
    });
  });
}

// d det / dA = det * A^-T;  d logabsdet / dA = A^-T.
std::vector<NodeEntry> DetGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  const std::string name = n->attrs.name + "_backward";
  NodeEntry inv = MakeNode("_linalg_inverse", name, {n->inputs[0]});
  NodeEntry scale = MakeNode("elemwise_mul", name, {og[0], Out(n)});
  return {MakeNode("_linalg_scale_matrix", name, {inv, scale}, {{"transpose", "True"}})};
}

std::vector<NodeEntry> SlogdetGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  const std::string name = n->attrs.name + "_backward";
  NodeEntry inv = MakeNode("_linalg_inverse", name, {n->inputs[0]});
  return {MakeNode("_linalg_scale_matrix", name, {inv, og[1]}, {{"transpose", "True"}})};
}

// ------------------------------------------------------------------------ linear helpers
void TriangleForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const int mode = Param<LaTriangleParam>(attrs).mode;
  MXNET_LA_TYPE_SWITCH(out[0].type_flag_, DType, {
    const size_t n = out[0].Size();
    Scratch s(ctx, Scratch::Bytes(n, sizeof(DType)));
    DType* tmp = s.Take<DType>(n);
    const DType* x = in[0].dptr<DType>();
    MatrixBatch bt = MatrixBatch::Trailing(in[0].shape_);
    const index_t k = bt.rows;
    for (index_t b = 0; b < bt.count(); ++b) {
      const DType* xm = x + bt.Offset(b);
      DType* ym = tmp + bt.Offset(b);
      for (index_t i = 0; i < k; ++i) {
        for (index_t j = 0; j < k; ++j) {
          const DType v = xm[i * k + j];
          DType r = 0;
          switch (mode) {
            case kLower: r = i >= j ? v : DType(0); break;
            case kUpper: r = i <= j ? v : DType(0); break;
            case kSymmetrizeLower: r = i >= j ? v : xm[j * k + i]; break;
            default: r = i > j ? v + xm[j * k + i] : (i == j ? v : DType(0)); break;
          }
          ym[i * k + j] = r;
        }
      }
    }
    // Through tmp, so the output may alias the input.
    if (req[0] != kNullOp) {
      DType* o = out[0].dptr<DType>();
      for (size_t i = 0; i < n; ++i) Assign(o + i, req[0], tmp[i]);
    }
  });
}

std::vector<NodeEntry> TriangleGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  static const char* kAdjoint[] = {"lower", "upper", "fold_upper", "symmetrize_lower"};
  const int mode = Param<LaTriangleParam>(n->attrs).mode;
  return {MakeNode("_linalg_triangle", n->attrs.name + "_backward", {og[0]},
                   {{"mode", kAdjoint[mode]}})};
}

TShape MaybeTransposed(TShape s, bool transpose) {
  if (transpose) std::swap(s[s.ndim() - 1], s[s.ndim() - 2]);
  return s;
}

// _linalg_scale_matrix(A, s): out[b] = s[b] * op(A[b]).
bool ScaleMatrixShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& a = (*in)[0];
  if (!a.IsKnown()) return false;
  CheckMatrices(attrs, a, 0, false);
  AssignShape(attrs, "s", &(*in)[1], PerMatrixShape(a));
  AssignShape(attrs, "output", &(*out)[0],
              MaybeTransposed(a, Param<LaScaleParam>(attrs).transpose));
  return true;
}

void ScaleMatrixForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const bool t = Param<LaScaleParam>(attrs).transpose;
  MXNET_LA_TYPE_SWITCH(out[0].type_flag_, DType, {
    MatrixBatch ba = MatrixBatch::Trailing(in[0].shape_);
    const index_t r = ba.rows, c = ba.cols;
    const DType* a = in[0].dptr<DType>();
    const DType* s = in[1].dptr<DType>();
    DType* o = out[0].dptr<DType>();
    ParallelFor(static_cast<index_t>(out[0].Size()), [&](index_t idx) {
      const index_t b = idx / (r * c), e = idx % (r * c);
      // Output matrix is (c x r) when transposed: element (i, j) reads A(j, i).
      const index_t src = t ? (e % r) * c + e / r : e;
      Assign(o + idx, req[0], DType(s[b] * a[b * r * c + src]));
    });
  });
}

// _linalg_matrix_inner(X, M): out[b] = sum(X[b] * op(M[b])).
bool MatrixInnerShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& m = (*in)[1];
  if (!m.IsKnown()) return false;
  CheckMatrices(attrs, m, 1, false);
  AssignShape(attrs, "X", &(*in)[0], MaybeTransposed(m, Param<LaScaleParam>(attrs).transpose));
  AssignShape(attrs, "output", &(*out)[0], PerMatrixShape(m));
  return true;
}

void MatrixInnerForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const bool t = Param<LaScaleParam>(attrs).transpose;
  MXNET_LA_TYPE_SWITCH(out[0].type_flag_, DType, {
    MatrixBatch bm = MatrixBatch::Trailing(in[1].shape_);
    const index_t r = bm.rows, c = bm.cols;
    const DType* x = in[0].dptr<DType>();
    const DType* m = in[1].dptr<DType>();
    DType* o = out[0].dptr<DType>();
    for (index_t b = 0; b < bm.count(); ++b) {
      DType acc = 0;
      for (index_t e = 0; e < r * c; ++e) {
        const index_t src = t ? (e % r) * c + e / r : e;
        acc += x[b * r * c + e] * m[b * r * c + src];
      }
      Assign(o + b, req[0], acc);
    }
  });
}

std::vector<NodeEntry> ScaleMatrixGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  const std::string name = n->attrs.name + "_backward";
  const auto& dict = n->attrs.dict;
  return {MakeNode("_linalg_scale_matrix", name, {og[0], n->inputs[1]}, dict),
          MakeNode("_linalg_matrix_inner", name, {og[0], n->inputs[0]}, dict)};
}

std::vector<NodeEntry> MatrixInnerGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  const std::string name = n->attrs.name + "_backward";
  const auto& dict = n->attrs.dict;
  return {MakeNode("_linalg_scale_matrix", name, {n->inputs[1], og[0]}, dict),
          MakeNode("_linalg_scale_matrix", name, {n->inputs[0], og[0]}, dict)};
}


}  // namespace

NNVM_REGISTER_OP(_linalg_potrf)
    .add_alias("linalg_potrf")
    .describe(R"doc(Performs Cholesky factorization of a symmetric positive-definite matrix.

Input is a tensor *A* of dimension *n >= 2*; its lower triangle is read. For every matrix of
the batch the lower triangular factor *L* with positive diagonal and *A* = *L* \* *L*\ :sup:`T`
is returned (upper triangle zero); with lower=False the upper factor *U* = *L*\ :sup:`T`
(*A* = *U*\ :sup:`T` \* *U*). A matrix that is not positive definite raises an error.
float32 and float64 only.
)doc")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<LaPotrfParam>)
    .add_argument("A", "NDArray-or-Symbol", "Tensor of input matrices to be decomposed")
    .add_arguments(LaPotrfParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"A"}))
    .set_attr<FInferShape>("FInferShape", SquareShape)
    .set_attr<FInferType>("FInferType", LaType)
    .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
    .set_attr<FInplaceOption>("FInplaceOption", [](const NodeAttrs&) {
      return std::vector<std::pair<int, int>>{{0, 0}};
    })
    .set_attr<FCompute>("FCompute<cpu>", PotrfForward)
    .set_attr<FGradient>("FGradient", PotrfGrad);

NNVM_REGISTER_OP(_linalg_inverse)
    .add_alias("linalg_inverse")
    .describe(R"doc(Compute the inverse of a matrix.

Input is a tensor *A* of dimension *n >= 2* holding square matrices on the last two axes; the
inverse of every matrix is returned. A singular matrix raises an error. float32 and float64 only.
)doc")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("A", "NDArray-or-Symbol", "Tensor of square matrix")
    .set_attr<FListInputNames>("FListInputNames", InputNames({"A"}))
    .set_attr<FInferShape>("FInferShape", SquareShape)
    .set_attr<FInferType>("FInferType", LaType)
    .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
    .set_attr<FCompute>("FCompute<cpu>", InverseForward)
    .set_attr<FGradient>("FGradient", InverseGrad);

NNVM_REGISTER_OP(_linalg_det)
    .add_alias("linalg_det")
    .describe(R"doc(Compute the determinant of a matrix.

Input is a tensor *A* of dimension *n >= 2*. For a single matrix (n = 2) the output has shape
(1,); otherwise one determinant per matrix of the batch (shape of the leading n-2 axes).
float32 and float64 only.
)doc")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("A", "NDArray-or-Symbol", "Tensor of square matrix")
    .set_attr<FListInputNames>("FListInputNames", InputNames({"A"}))
    .set_attr<FInferShape>("FInferShape", PerMatrixOutShape)
    .set_attr<FInferType>("FInferType", LaType)
    .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
    .set_attr<FCompute>("FCompute<cpu>", DetForward)
    .set_attr<FGradient>("FGradient", DetGrad);

NNVM_REGISTER_OP(_linalg_slogdet)
    .add_alias("linalg_slogdet")
    .describe(R"doc(Compute the sign and log of the absolute value of the determinant of a matrix.

Input is a tensor *A* of dimension *n >= 2*; outputs *sign* and *logabsdet* have the shape det
gives. A singular matrix gives sign 0 and logabsdet -inf. Only logabsdet is differentiated.
float32 and float64 only.
)doc")
    .set_num_inputs(1)
    .set_num_outputs(2)
    .add_argument("A", "NDArray-or-Symbol", "Tensor of square matrix")
    .set_attr<FListInputNames>("FListInputNames", InputNames({"A"}))
    .set_attr<FListOutputNames>("FListOutputNames", InputNames({"sign", "logabsdet"}))
    .set_attr<FInferShape>("FInferShape", PerMatrixOutShape)
    .set_attr<FInferType>("FInferType", LaType)
    .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
    .set_attr<FCompute>("FCompute<cpu>", SlogdetForward)
    .set_attr<FGradient>("FGradient", SlogdetGrad);

NNVM_REGISTER_OP(_linalg_triangle)
    .describe("Triangle selection and symmetrisation of square matrices (a linear helper of the "
              "linalg gradients; see the mode argument).")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<LaTriangleParam>)
    .add_argument("A", "NDArray-or-Symbol", "Tensor of square matrices")
    .add_arguments(LaTriangleParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"A"}))
    .set_attr<FInferShape>("FInferShape", SquareShape)
    .set_attr<FInferType>("FInferType", LaType)
    .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
    .set_attr<FCompute>("FCompute<cpu>", TriangleForward)
    .set_attr<FGradient>("FGradient", TriangleGrad);

NNVM_REGISTER_OP(_linalg_scale_matrix)
    .describe("Scales every matrix of A (or its transpose) by its own scalar of s: "
              "out[b] = s[b] * op(A[b]). s has the shape det gives for A.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<LaScaleParam>)
    .add_argument("A", "NDArray-or-Symbol", "Tensor of matrices")
    .add_argument("s", "NDArray-or-Symbol", "One scale per matrix")
    .add_arguments(LaScaleParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"A", "s"}))
    .set_attr<FInferShape>("FInferShape", ScaleMatrixShape)
    .set_attr<FInferType>("FInferType", LaType)
    .set_attr<FCompute>("FCompute<cpu>", ScaleMatrixForward)
    .set_attr<FGradient>("FGradient", ScaleMatrixGrad);

NNVM_REGISTER_OP(_linalg_matrix_inner)
    .describe("Frobenius inner product of every matrix of X with the matching matrix of M (or "
              "its transpose): out[b] = sum(X[b] * op(M[b])). Output has the shape det gives.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<LaScaleParam>)
    .add_argument("X", "NDArray-or-Symbol", "Tensor of matrices")
    .add_argument("M", "NDArray-or-Symbol", "Tensor of matrices")
    .add_arguments(LaScaleParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"X", "M"}))
    .set_attr<FInferShape>("FInferShape", MatrixInnerShape)
    .set_attr<FInferType>("FInferType", LaType)
    .set_attr<FCompute>("FCompute<cpu>", MatrixInnerForward)
    .set_attr<FGradient>("FGradient", MatrixInnerGrad);

}  // namespace op
}  // namespace mxnet
